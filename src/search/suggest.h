/*
 * suggest.h — the body's "suggest" section (OpenSearch's SuggestBuilder)
 * with the term suggester, private to src/search/ (search.c calls it).
 *
 * Ownership: everything lives in the request arena given (the tv_dsl's or
 * the caller's); nothing needs freeing. Errors fill the tv_error with
 * OpenSearch's type and reason; a failure that OpenSearch raises on the
 * shard (a field without a mapping, an unknown analyzer, no text) carries
 * err->index so the api layer wraps it in search_phase_execution_exception.
 */
#ifndef TROVE_SEARCH_SUGGEST_H
#define TROVE_SEARCH_SUGGEST_H

#include "query/query.h"
#include "search/search.h"

typedef struct tv_suggest tv_suggest;

/* Parses the value of "suggest" (an object) as SuggestBuilder.fromXContent
 * does. */
tv_status tv_suggest_parse(tv_dsl *d, const tv_json *v, tv_suggest **out);

/* The suggestion RestSearchAction builds from ?suggest_field=,
 * suggest_text (default: q), suggest_mode, suggest_size; it replaces the
 * body's suggest. Call only when p->suggest_field is set. */
tv_status tv_suggest_from_params(tv_dsl *d, const tv_search_params *p, tv_suggest **out);

/* Runs every suggestion on every target (a target is one shard), reduces
 * the results as the coordinating node does, and writes
 * "suggest":{...} (the key and the object) to out. Writes nothing when
 * there are no targets. */
tv_status tv_suggest_write(const tv_suggest *s, const tv_search_target *targets, size_t ntargets,
                           bool typed_keys, tv_arena *arena, tv_jw *out, tv_error *err);

#endif /* TROVE_SEARCH_SUGGEST_H */
