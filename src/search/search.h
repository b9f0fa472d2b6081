/*
 * search.h — the search layer: the query DSL, scoring and collection.
 *
 * Owns: parsing the query DSL (and query_string / simple_query_string) into
 * an AST allocated in the request arena; planning the AST per segment into
 * iterators (next/advance/cost/score/max_score); BM25 exactly as Lucene's
 * BM25Similarity; top-k (block-max WAND / MaxScore), counting, field sort,
 * search_after, source filtering; and writing OpenSearch's _search and
 * _count response bodies.
 *
 * Reads indices only through index.h snapshots. Knows nothing about HTTP:
 * the api layer resolves index names to snapshots, validates URL
 * parameters, and hands them here.
 */
#ifndef TROVE_SEARCH_H
#define TROVE_SEARCH_H

#include "index/index.h"
#include "json/json.h"
#include "util/util.h"

/* One index to search: its name (as echoed in hits' "_index") and a
 * snapshot the caller holds a reference on for the duration of the call. */
typedef struct tv_search_target {
    const char *index;
    const tv_snapshot *snap;
    int64_t max_result_window; /* index.max_result_window */
    int64_t max_docvalue_fields; /* index.max_docvalue_fields_search (0: the
                                    default, 100) */
    int64_t max_rescore_window;  /* index.max_rescore_window (0: max_result_window) */
    int64_t max_analyzed_offset; /* index.highlight.max_analyzed_offset (0:
                                    the default, 1000000) */
    int64_t max_inner_result_window; /* index.max_inner_result_window (0: the
                                        default, 100): inner hits, top_hits */
    int64_t max_terms_count;         /* index.max_terms_count (0: 65536) */
} tv_search_target;

/*
 * URL parameters of _search / _count that the api layer parsed. Unset
 * numbers are -1; unset strings NULL. URL values override body values as
 * OpenSearch does (from, size, sort, _source, ...).
 */
typedef struct tv_search_params {
    int64_t from;
    int64_t size;
    int64_t terminate_after;
    const char *timeout;          /* ?timeout= (a TimeValue); NULL unset */
    const char *track_total_hits; /* "true", "false", or a number; NULL unset */
    bool rest_total_hits_as_int;
    const char *source;           /* _source=false|true|a,b */
    const char *source_includes;  /* _source_includes */
    const char *source_excludes;  /* _source_excludes */
    const char *sort;             /* "field:asc,other" */
    const char *q;                /* URI search (query_string) */
    const char *df;
    const char *default_operator; /* "AND"/"OR" */
    const char *analyzer;
    bool seq_no_primary_term;
    bool version;
    bool explain;
    bool typed_keys;              /* aggregation names prefixed with their type */
    int64_t max_buckets;          /* search.max_buckets; 0: the default (65535) */
    int64_t max_clause_count;     /* indices.query.bool.max_clause_count; 0: 1024 */
    bool skip_aggs;               /* a scroll's later page: aggregations belong to the first one */
    bool scroll;                  /* the first page of a scroll */
    const char *docvalue_fields;  /* "a,b": added to the body's list */
    /* ?suggest_field= (and suggest_text, suggest_mode, suggest_size: -1
     * unset): a term suggestion that replaces the body's suggest */
    const char *suggest_field;
    const char *suggest_text;
    const char *suggest_mode;
    int64_t suggest_size;
    /* The request body's text, when the caller has it: parse errors then
     * carry OpenSearch's [line:col] (err->line/col). Without it err->pos
     * still holds the byte offset of the offending value. */
    const char *body_text;
    size_t body_text_len;
    /* explain (hits' "_shard":"[index][N]" and "_node"): the node's id
     * (NULL: "") and the shard a document of target t lives on (NULL: 0) */
    const char *node_id;
    uint32_t (*shard_of)(const void *ctx, size_t target, const char *id, size_t id_len, const char *routing,
                         size_t routing_len);
    const void *shard_ctx;
} tv_search_params;

void tv_search_params_init(tv_search_params *p);

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
