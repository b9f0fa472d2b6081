/*
 * search_int.h — what the files of the search layer share (src/search/
 * only; search.h is the layer's header for the api).
 */
#ifndef TROVE_SEARCH_INT_H
#define TROVE_SEARCH_INT_H

#include "query/query.h"
#include "search/search.h"

/* tv_dsl_init for a request that may fetch hits: nested queries' inner_hits
 * go to the fetch layer (tv_fetch_inner_hits). search.c. */
void tv_search_dsl_init(tv_dsl *d, tv_arena *arena, tv_error *err, const tv_search_params *params);

#endif /* TROVE_SEARCH_INT_H */
