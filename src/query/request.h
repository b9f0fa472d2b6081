/*
 * request.h — what a search asks, as every layer of a search reads it: the
 * targets (an index name and a snapshot each) and the URL parameters the
 * api layer parsed. The query layer reads the body text and limits from
 * here; fetch, aggs and search the rest. search.h gives these to the api.
 *
 * Ownership: the caller's; nothing here allocates.
 */
#ifndef TROVE_QUERY_REQUEST_H
#define TROVE_QUERY_REQUEST_H

#include "index/index.h"
#include "json/json.h"
#include "script/script.h"
#include "util/util.h"

/* The shards of an index a search reaches, when routing or a
 * `_shards:` preference narrows them: keep() says whether a document
 * (its _id and stored _routing, NULL when none) lives on one of them. */
typedef struct tv_shard_pick {
    bool (*keep)(const void *ud, const char *id, size_t id_len, const char *routing, size_t routing_len);
    const void *ud;
} tv_shard_pick;

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
    uint32_t nshards;                /* shards searched, for _shards (0: 1) */
    const tv_shard_pick *pick;       /* NULL: every shard */
    int64_t max_script_fields;       /* index.max_script_fields (0: the default, 32) */
} tv_search_target;

/*
 * A terms query's lookup (TermsLookup): the values at `path` of document
 * `id` (routed by `routing`) of `index`, or of the hits of `query` there.
 * store: read the stored field (trove reads it from _source). Strings in
 * the parser's arena; query points into the request body.
 */
typedef struct tv_terms_lookup {
    const char *index, *id, *routing, *path;
    const tv_json *query;
    bool store;
} tv_terms_lookup;
/* Fetches a lookup's values as a JSON array (*values, in arena): the
 * layer that can read other indices (the api) provides it, as the
 * coordinator's rewrite does in OpenSearch. On failure err is set (a
 * request-level error: not marked as a shard's). */
typedef tv_status (*tv_terms_lookup_fn)(const void *ctx, const tv_terms_lookup *l, tv_arena *arena,
                                        tv_json **values, tv_error *err);

/*
 * A script of the search that failed (compile or runtime error): the
 * ScriptException's details and the script's source (in the request's
 * arena), for the api layer to answer as OpenSearch does. set false: none.
 */
typedef struct tv_script_failure {
    bool set;
    tv_script_error err;
    const char *source;
    size_t len;
} tv_script_failure;
/* A stored script's source by id (NULL: not found); the api layer reads
 * the node's state. */
typedef const char *(*tv_stored_script_fn)(const void *ctx, const char *id, size_t *len);

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
    bool disallow_expensive;      /* search.allow_expensive_queries: false */
    bool named_scores;            /* ?include_named_queries_score: hits'
                                     matched_queries as {name: score} */
    tv_terms_lookup_fn lookup;    /* terms lookups (NULL: answered
                                     unsupported) and its context */
    const void *lookup_ctx;
    /* Scripts (query/qscript.c): stored scripts by id (NULL: refused), and
     * where a failing script's error is copied (NULL: not reported beyond
     * err's script_exception). scripts: the search layer's per-request
     * state (set by tv_search_run; callers leave it NULL). */
    tv_stored_script_fn stored_script;
    const void *stored_script_ctx;
    tv_script_failure *script_failure;
    struct tv_qscripts *scripts;
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
    /* Optional (NULL: not measured): what the search did per target, for
     * the index statistics the api layer keeps (SearchStats). */
    struct tv_search_stats *stats;
} tv_search_params;

/*
 * Filled by tv_search_run / tv_search_count when params->stats is set; the
 * caller gives arrays of ntargets entries (zeroed).
 */
typedef struct tv_search_stats {
    int64_t *query_ns;  /* per target: its query phase (collection and aggregations) */
    bool *fetched;      /* per target: the page held hits of it (a fetch phase ran) */
    int64_t fetch_ns;   /* the fetch phase: writing the page's hits */
    int64_t suggest_ns; /* the suggestions (after the hits) */
    bool suggest_only;  /* a "suggest" without query or aggregations: OpenSearch
                           counts it as a suggestion, not a query */
    bool done;          /* the query phase ran for every target */
} tv_search_stats;

void tv_search_params_init(tv_search_params *p);

#endif /* TROVE_QUERY_REQUEST_H */
