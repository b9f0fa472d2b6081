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

/* ---------------------------------------------------------- profile.c */

/* One collector of the profile's "collector" tree. */
typedef struct tv_coll_prof {
    const char *name, *reason;
    uint64_t ns;
    struct tv_coll_prof *kids;
    uint32_t nkids;
} tv_coll_prof;

/* One entry of a shard's "searches": the query trees, the rewrite time,
 * the collector tree. */
typedef struct tv_search_prof {
    tv_qprof q;
    uint64_t rewrite_ns;
    tv_coll_prof coll;
} tv_search_prof;

/* A target's (shard's) profile: its searches (the query; then the
 * global aggregations' match-all, when there are some), its aggregation
 * shards (non-global, then global). */
typedef struct tv_shard_prof {
    const char *index;
    tv_search_prof searches[2];
    uint32_t nsearches;
    const struct tv_agg_shard *aggs, *global_aggs;
} tv_shard_prof;

/* Writes "profile":{"shards":[...]} (SearchProfileShardResults: shards
 * sorted by their id). */
void tv_search_profile_write(tv_jw *w, const tv_shard_prof *shards, size_t n, const char *node_id, tv_arena *a);

#endif /* TROVE_SEARCH_INT_H */
