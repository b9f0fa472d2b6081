/*
 * search.h — the search layer: a search request from its body to its
 * response, over the layers below it.
 *
 * Owns: the _search and _count body (SearchSourceBuilder's keys and
 * errors), collection per target (top-k by score with block-max pruning,
 * counting, field sort, search_after, collapse, rescore, timeouts), and the
 * orchestration of query (query/) -> collect -> aggregations (aggs/) ->
 * fetch (fetch/) -> OpenSearch's _search and _count response bodies; the
 * suggest section; the _validate/query and _explain APIs.
 *
 * Reads indices only through index.h snapshots. Knows nothing about HTTP:
 * the api layer resolves index names to snapshots, validates URL
 * parameters, and hands them here.
 *
 * Files:
 *   search.c     _search and _count: the request body, collection (top-k
 *                heap, counting, pruning), the page's fetch and the response
 *   explain.c    the _explain API: the document by _id, then the explanation
 *                of its score (built by query/explain.c)
 *   suggest.c    the "suggest" section of _search, with the term suggester
 *   profile.c    the Profile API's "profile" section: per shard its query
 *                trees (query/profile.c), rewrite time, collector tree and
 *                aggregation profiles (aggs/collect.c)
 *   validate.c   _validate/query: parse (and rewrite) a query against each
 *                target without running it, and print the Lucene query
 *                OpenSearch would have built (query/to_string.c)
 */
#ifndef TROVE_SEARCH_H
#define TROVE_SEARCH_H

#include "index/index.h"
#include "json/json.h"
#include "query/request.h"
#include "util/util.h"


/*
 * Runs a _search over targets with the request body (NULL: match_all) and
 * writes the whole response object ({"took":..,"timed_out":false,
 * "_shards":{..},"hits":{..}}) to out. Errors (TROVE_EPARSE with
 * err->line/col, TROVE_EQUERYSHARD, TROVE_EARG, TROVE_EUNSUPPORTED, ...)
 * leave out untouched and fill err with OpenSearch's type and reason; the
 * api layer wraps them as OpenSearch does (search_phase_execution_exception
 * where OpenSearch wraps).
 */
tv_status tv_search_run(const tv_search_target *targets, size_t ntargets, const tv_json *body,
                        const tv_search_params *params, tv_arena *arena, tv_jw *out,
                        tv_error *err);

/* Runs a _count: {"count":N,"_shards":{...}}. body may be NULL or {"query":..}. */
tv_status tv_search_count(const tv_search_target *targets, size_t ntargets, const tv_json *body,
                          const tv_search_params *params, tv_arena *arena, tv_jw *out,
                          tv_error *err);

/*
 * _validate/query (validate.c): parses the query (an object such as
 * {"match":{..}}; NULL: params->q as URI search, else match_all) once as
 * the REST layer does, then against each target without running it.
 *   - a failure of the first parse is request-level: returned (EPARSE,
 *     EXCONTENT, EARG, ...) with err filled and out untouched;
 *   - otherwise TROVE_OK, and out[i] (ntargets entries, caller storage)
 *     says whether target i builds the query, with its error if not, and
 *     with explain or rewrite the Lucene string OpenSearch prints for it
 *     (arena);
 *   - TROVE_EUNSUPPORTED when an explanation asked for cannot be printed
 *     exactly (err names the query kind); TROVE_ENOMEM.
 * Only params->q, df, default_operator, analyzer and body_text are read.
 */
typedef struct tv_validate_result {
    bool valid;
    const char *explanation; /* NULL unless asked and valid */
    tv_error err;            /* when !valid */
} tv_validate_result;

tv_status tv_search_validate(const tv_search_target *targets, size_t ntargets, const tv_json *query,
                             const tv_search_params *params, bool explain, bool rewrite, tv_arena *arena,
                             tv_validate_result *out, tv_error *err);

/*
 * The _explain API (explain.c): the document with _id `id` in the target's
 * snapshot (refreshed documents only, as TransportExplainAction's
 * non-realtime get), and Lucene's explanation of its score for the body's
 * {"query":..} (or params->q). Errors: parsing_exception for other body
 * keys, action_request_validation_exception without a query, the query
 * parser's errors, unsupported_operation_exception for query kinds trove
 * cannot explain exactly. The result's pointers live in arena. t NULL:
 * only the request's own checks (body keys, a query present).
 */
struct tv_expl;
typedef struct tv_explain_result {
    bool exists;                /* the doc was found */
    bool matched;               /* the explanation is a match */
    const struct tv_expl *expl; /* NULL when !exists */
    tv_doc_meta meta;           /* the doc's metadata and source */
    const char *src;
    size_t src_len;
} tv_explain_result;
tv_status tv_search_explain(const tv_search_target *t, const tv_json *body, const tv_search_params *params,
                            const char *id, size_t id_len, tv_arena *arena, tv_explain_result *res,
                            tv_error *err);
/* Writes the explanation's members (value, description, details) into an
 * object the caller opened. */
void tv_search_explain_write(tv_jw *w, const tv_explain_result *res);

#endif /* TROVE_SEARCH_H */
