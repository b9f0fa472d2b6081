/*
 * router.c — from a request target to a handler, as OpenSearch's
 * RestController does it.
 *
 * Target parsing: the raw path (before '?') is split on '/', empty
 * segments ignored; the query string is split on '&' into name=value pairs,
 * each percent-decoded with '+' as space (RestUtils.decodeComponent; a
 * later duplicate wins). A bad escape is a 400 illegal_argument_exception
 * with RestUtils' wording.
 *
 * Matching: the route table lists (method, pattern, handler, parameters).
 * Explicit pattern segments compare with the raw (undecoded) segment,
 * {param} segments match any segment and are decoded. Every pattern that
 * matches the path contributes its method; like OpenSearch's path trie
 * walk, candidates are tried in order of explicitness (at the first segment
 * where two patterns differ, the explicit one wins), and:
 *   - the first candidate registered for the request's method handles it;
 *   - no candidate for the method but some candidate at all: 405, body
 *     {"error":"Incorrect HTTP method for uri [..] and method [..],
 *     allowed: [..]","status":405} and an Allow header;
 *   - OPTIONS: 200 with Allow;
 *   - nothing matches: 400 {"error":"no handler found for uri [path] and
 *     method [M]","status":400} (path without the query, decoded as
 *     java.net.URI.getPath, or "invalid uri has been requested").
 * A trie was rejected: the table has a few hundred routes, split into
 * segments once per process, and a linear scan comparing segment counts
 * first costs a few thousand instructions, less than building a trie.
 *
 * Parameters: every route lists the URL parameters its OpenSearch handler
 * consumes; anything else is BaseRestHandler's "request [path] contains
 * unrecognized parameter(s): [x] -> did you mean [y]?" (Lucene's
 * Levenshtein similarity > 0.5, best first, ties by name).
 *
 * Before a single-document handler runs, its {index} is resolved to one
 * concrete index (an alias to its index or write index, a closed index
 * refused), so the handlers stay unaware of aliases. `format` other than
 * json is only for _cat (text tables).
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

/* ------------------------------------------------------------ decoding */

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* RestUtils.decodeComponent. Returns NULL with *bad set to an error reason
 * (arena) on a malformed escape, NULL with *bad NULL on OOM. */
static char *decode_component(tv_arena *a, const char *s, size_t n, const char **bad) {
    *bad = NULL;
    char *o = tv_arena_alloc(a, n + 1);
    if (!o) return NULL;
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '+') {
            o[j++] = ' ';
        } else if (c == '%') {
            char *whole = tv_arena_strndup(a, s, n);
            if (!whole) return NULL;
            if (i == n - 1) {
                *bad = tv_arena_sprintf(a, "unterminated escape sequence at end of string: %s", whole);
                return NULL;
            }
            if (i == n - 2) {
                *bad = tv_arena_sprintf(a, "partial escape sequence at end of string: %s", whole);
                return NULL;
            }
            int h = hexval((unsigned char)s[i + 1]), l = hexval((unsigned char)s[i + 2]);
            if (h < 0 || l < 0) {
                *bad = tv_arena_sprintf(a, "invalid escape sequence `%%%c%c' at index %zu of: %s", s[i + 1],
                                        s[i + 2], i, whole);
                return NULL;
            }
            o[j++] = (char)(h * 16 + l);
            i += 2;
        } else {
            o[j++] = c;
        }
    }
    o[j] = '\0';
    return o;
}

/* java.net.URI(uri).getPath(): NULL when the URI does not parse. */
static char *uri_path(tv_arena *a, const char *uri) {
    size_t n = strcspn(uri, "?#");
    for (size_t i = 0; uri[i]; i++) {
        unsigned char c = (unsigned char)uri[i];
        if (c <= 0x20 || c == 0x7f || strchr("\"<>\\^`{|}", c)) return NULL;
        if (i < n && (c == '[' || c == ']')) return NULL;
        if (c == '%' && (hexval((unsigned char)uri[i + 1]) < 0 || hexval((unsigned char)uri[i + 2]) < 0))
            return NULL;
    }
    char *o = tv_arena_alloc(a, n + 1);
    if (!o) return NULL;
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (uri[i] == '%') {
            o[j++] = (char)(hexval((unsigned char)uri[i + 1]) * 16 + hexval((unsigned char)uri[i + 2]));
            i += 2;
        } else {
            o[j++] = uri[i];
        }
    }
    o[j] = '\0';
    return o;
}

/* -------------------------------------------------------------- params */

const char *tv_req_param(const tv_req *r, const char *key) {
    for (size_t i = r->nparams; i-- > 0;)
        if (strcmp(r->params[i].key, key) == 0) return r->params[i].val;
    return NULL;
}

bool tv_req_param_bool(tv_req *r, const char *key, bool def, bool *out) {
    const char *v = tv_req_param(r, key);
    if (!v) {
        *out = def;
        return true;
    }
    if (!*v || strcmp(v, "true") == 0) {
        *out = true;
        return true;
    }
    if (strcmp(v, "false") == 0) {
        *out = false;
        return true;
    }
    return tv_req_fail(r, TROVE_EARG,
                       "Failed to parse value [%s] as only [true] or [false] are allowed.", v);
}

bool tv_req_param_i64(tv_req *r, const char *key, int64_t def, int64_t *out) {
    const char *v = tv_req_param(r, key);
    if (!v) {
        *out = def;
        return true;
    }
    if (!tv_parse_i64(v, strlen(v), out) || *out < INT32_MIN || *out > INT32_MAX)
        return tv_req_fail_number(r, "int", key, v);
    return true;
}

bool tv_req_fail_number(tv_req *r, const char *kind, const char *key, const char *val) {
    tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
    tv_api_err *c = tv_arena_calloc(&r->arena, 1, sizeof *c);
    if (!e || !c) {
        r->oom = true;
        return false;
    }
    e->type = TROVE_EARG;
    e->status = 400;
    e->reason = tv_arena_sprintf(&r->arena, "Failed to parse %s parameter [%s] with value [%s]", kind, key, val);
    c->type = TROVE_ENUMBERFORMAT;
    c->status = 400;
    c->reason = tv_arena_sprintf(&r->arena, "For input string: \"%s\"", val);
    if (!e->reason || !c->reason) {
        r->oom = true;
        return false;
    }
    e->cause = c;
    tv_req_error(r, e);
    return false;
}

/* Lucene's LevenshteinDistance.getDistance: 1 - d / max(len). */
static float levenshtein_sim(const char *a, const char *b) {
    size_t n = strlen(a), m = strlen(b);
    if (n == 0 || m == 0) return n == m ? 1.0f : 0.0f;
    size_t *prev = tv_malloc((m + 1) * sizeof *prev), *cur = tv_malloc((m + 1) * sizeof *cur);
    if (!prev || !cur) {
        tv_free(prev);
        tv_free(cur);
        return 0.0f;
    }
    for (size_t j = 0; j <= m; j++) prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t v = prev[j - 1] + cost;
            if (prev[j] + 1 < v) v = prev[j] + 1;
            if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
            cur[j] = v;
        }
        size_t *t = prev;
        prev = cur;
        cur = t;
    }
    size_t d = prev[m];
    tv_free(prev);
    tv_free(cur);
    return 1.0f - (float)d / (float)(n > m ? n : m);
}

static const char *const global_params[] = {"pretty", "human", "error_trace", "filter_path", "format", NULL};

typedef struct cand {
    float sim;
    const char *name;
} cand;

static int cmp_cand(const void *a, const void *b) {
    const cand *x = a, *y = b;
    if (x->sim != y->sim) return x->sim > y->sim ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Appends bad name i of an "unrecognized" message with its candidates
 * (sorted most similar first): "[x] -> did you mean [y]?" or "... any of
 * [y, z]?". */
static void put_suggestion(tv_buf *m, size_t i, const char *bad, cand *cs, size_t nc) {
    qsort(cs, nc, sizeof *cs, cmp_cand);
    if (i) tv_buf_puts(m, ", ");
    tv_buf_printf(m, "[%s]", bad);
    if (nc == 1) {
        tv_buf_printf(m, " -> did you mean [%s]?", cs[0].name);
    } else if (nc > 1) {
        tv_buf_puts(m, " -> did you mean any of [");
        for (size_t j = 0; j < nc; j++) tv_buf_printf(m, "%s%s", j ? ", " : "", cs[j].name);
        tv_buf_puts(m, "]?");
    }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static bool in_list(const char *const *list, const char *s) {
    for (; list && *list; list++)
        if (strcmp(*list, s) == 0) return true;
    return false;
}

/* ---------------------------------------------------------------- routes */

#define P(...) ((const char *const[]){__VA_ARGS__, NULL})

static const char *const P_NONE[] = {NULL};
#define P_DOC_WRITE \
    P("if_primary_term", "if_seq_no", "op_type", "pipeline", "refresh", "require_alias", "routing", "timeout", \
      "version", "version_type", "wait_for_active_shards")
#define P_CREATE P("pipeline", "refresh", "routing", "timeout", "version", "version_type", "wait_for_active_shards")
#define P_GET                                                                                                \
    P("_source", "_source_excludes", "_source_includes", "preference", "realtime", "refresh", "routing", \
      "stored_fields", "version", "version_type")
#define P_EXPLAIN                                                                                        \
    P("_source", "_source_excludes", "_source_includes", "analyze_wildcard", "analyzer", "default_operator", \
      "df", "lenient", "preference", "q", "routing", "stored_fields")
#define P_SEARCH                                                                                               \
    P("_source", "_source_excludes", "_source_includes", "allow_no_indices", "allow_partial_search_results", \
      "analyze_wildcard", "analyzer", "batched_reduce_size", "ccs_minimize_roundtrips", "default_operator",  \
      "df", "docvalue_fields", "expand_wildcards", "explain", "from", "ignore_throttled",                     \
      "ignore_unavailable", "include_named_queries_score", "lenient", "max_concurrent_shard_requests",       \
      "pre_filter_shard_size", "preference", "q", "request_cache", "rest_total_hits_as_int", "routing",      \
      "scroll", "search_pipeline", "search_type", "seq_no_primary_term", "size", "sort", "stats",            \
      "stored_fields", "suggest_field", "suggest_mode", "suggest_size", "suggest_text", "terminate_after",   \
      "timeout", "track_scores", "track_total_hits", "typed_keys", "version", "cancel_after_time_interval",  \
      "phase_took")
#define P_COUNT                                                                                             \
    P("allow_no_indices", "analyze_wildcard", "analyzer", "default_operator", "df", "expand_wildcards", \
      "ignore_throttled", "ignore_unavailable", "lenient", "min_score", "preference", "q", "routing",   \
      "terminate_after")
#define P_BULK                                                                                            \
    P("_source", "_source_excludes", "_source_includes", "pipeline", "refresh", "require_alias", "routing", \
      "timeout", "type", "wait_for_active_shards", "batch_size")
#define P_MGET \
    P("_source", "_source_excludes", "_source_includes", "preference", "realtime", "refresh", "routing", "stored_fields")
#define P_UPDATE                                                                                           \
    P("_source", "_source_excludes", "_source_includes", "if_primary_term", "if_seq_no", "lang", "refresh", \
      "require_alias", "retry_on_conflict", "routing", "timeout", "wait_for_active_shards")
#define P_DELETE                                                                                         \
    P("if_primary_term", "if_seq_no", "refresh", "routing", "timeout", "version", "version_type", \
      "wait_for_active_shards")
#define P_IDX_OPTS P("allow_no_indices", "expand_wildcards", "ignore_unavailable")
#define P_ALIAS_GET P("allow_no_indices", "expand_wildcards", "ignore_unavailable", "local")
#define P_ALIAS_PUT P("cluster_manager_timeout", "master_timeout", "timeout")
#define P_ROLLOVER P("cluster_manager_timeout", "dry_run", "master_timeout", "timeout", "wait_for_active_shards")
#define P_SETTINGS_PUT                                                                                \
    P("allow_no_indices", "cluster_manager_timeout", "expand_wildcards", "flat_settings", "ignore_unavailable", \
      "master_timeout", "preserve_existing", "timeout")
#define P_SETTINGS_GET                                                                                \
    P("allow_no_indices", "cluster_manager_timeout", "expand_wildcards", "flat_settings", "ignore_unavailable", \
      "include_defaults", "local", "master_timeout")
#define P_STATS                                                                                        \
    P("completion_fields", "expand_wildcards", "fielddata_fields", "fields", "forbid_closed_indices", "groups", \
      "include_field_level_segment_file_sizes", "include_segment_file_sizes", "include_unloaded_segments",     \
      "level", "allow_no_indices", "ignore_unavailable")
#define P_FLUSH P("allow_no_indices", "expand_wildcards", "force", "ignore_unavailable", "wait_if_ongoing")
#define P_FORCEMERGE                                                                                    \
    P("allow_no_indices", "expand_wildcards", "flush", "ignore_unavailable", "max_num_segments",        \
      "only_expunge_deletes", "wait_for_completion", "primary_only")
#define P_OPEN_CLOSE                                                                                    \
    P("allow_no_indices", "cluster_manager_timeout", "expand_wildcards", "ignore_unavailable", "master_timeout", \
      "timeout", "wait_for_active_shards", "wait_for_completion", "task_execution_timeout")
#define P_HEALTH                                                                                        \
    P("cluster_manager_timeout", "expand_wildcards", "level", "local", "master_timeout", "timeout",     \
      "wait_for_active_shards", "wait_for_events", "wait_for_no_initializing_shards",                   \
      "wait_for_no_relocating_shards", "wait_for_nodes", "wait_for_status", "awareness_attribute",      \
      "ensure_node_commissioned")
#define P_CAT(...) \
    P("format", "h", "help", "v", "ts", "pri", "bytes", "size", "time", "s", "timeout", "cluster_manager_timeout", \
      "master_timeout", __VA_ARGS__)
#define P_CAT_INDICES P_CAT("expand_wildcards", "health", "include_unloaded_segments", "local")
#define P_NODES_STATS                                                                                   \
    P("completion_fields", "fielddata_fields", "fields", "groups", "include_segment_file_sizes", "level", \
      "timeout", "types", "include_all", "top")
#define P_TEMPLATE_GET P("cluster_manager_timeout", "flat_settings", "local", "master_timeout")
#define P_SCRIPT_PUT P("cluster_manager_timeout", "context", "master_timeout", "timeout")
#define P_SCRIPT_GET P("cluster_manager_timeout", "master_timeout")
#define P_SCRIPT_DELETE P("cluster_manager_timeout", "master_timeout", "timeout")
#define P_TEMPLATE_PUT P("cause", "cluster_manager_timeout", "create", "master_timeout", "order", "timeout")

typedef struct route {
    tv_method method;
    const char *pattern;
    tv_handler h;
    const char *const *params;
} route;

#define P_MAPPING_GET \
    P("allow_no_indices", "cluster_manager_timeout", "expand_wildcards", "ignore_unavailable", "local", "master_timeout")
#define P_MAPPING_PUT                                                                                                  \
    P("allow_no_indices", "cluster_manager_timeout", "expand_wildcards", "ignore_unavailable", "master_timeout",       \
      "timeout", "write_index_only")

static const route routes[] = {
    {TV_GET, "/", tv_h_root, P_NONE},
    {TV_HEAD, "/", tv_h_root, P_NONE},

    {TV_GET, "/_trove", tv_h_trove_info, P_NONE},
    {TV_POST, "/_trove/base/freeze", tv_h_trove_freeze, P_NONE},
    {TV_POST, "/_trove/base/unfreeze", tv_h_trove_unfreeze, P_NONE},
    {TV_POST, "/_trove/clones", tv_h_trove_clone_create, P_NONE},
    {TV_GET, "/_trove/clones", tv_h_trove_clone_list, P_NONE},
    {TV_DELETE, "/_trove/clones", tv_h_trove_clone_delete_all, P_NONE},
    {TV_GET, "/_trove/clones/{id}", tv_h_trove_clone_get, P_NONE},
    {TV_GET, "/_trove/sync", tv_h_trove_sync, P_NONE},
    {TV_DELETE, "/_trove/clones/{id}", tv_h_trove_clone_delete, P_NONE},

    {TV_GET, "/_osmem", tv_h_trove_info, P_NONE},
    {TV_GET, "/_osmem/base", tv_h_osmem_base, P_NONE},
    {TV_POST, "/_osmem/base/freeze", tv_h_trove_freeze, P_NONE},
    {TV_POST, "/_osmem/base/unfreeze", tv_h_trove_unfreeze, P_NONE},
    {TV_POST, "/_osmem/clones", tv_h_trove_clone_create, P_NONE},
    {TV_GET, "/_osmem/clones", tv_h_trove_clone_list, P_NONE},
    {TV_DELETE, "/_osmem/clones", tv_h_trove_clone_delete_all, P_NONE},
    {TV_GET, "/_osmem/clones/{id}", tv_h_trove_clone_get, P_NONE},
    {TV_DELETE, "/_osmem/clones/{id}", tv_h_trove_clone_delete, P_NONE},

    {TV_POST, "/_bulk", tv_h_bulk, P_BULK},
    {TV_PUT, "/_bulk", tv_h_bulk, P_BULK},
    {TV_POST, "/{index}/_bulk", tv_h_bulk, P_BULK},
    {TV_PUT, "/{index}/_bulk", tv_h_bulk, P_BULK},

    {TV_GET, "/_search", tv_h_search_aliased, P_SEARCH},
    {TV_POST, "/_search", tv_h_search_aliased, P_SEARCH},
    {TV_GET, "/{index}/_search", tv_h_search_aliased, P_SEARCH},
    {TV_POST, "/{index}/_search", tv_h_search_aliased, P_SEARCH},
    {TV_POST, "/_count", tv_h_count_aliased, P_COUNT},
    {TV_GET, "/_count", tv_h_count_aliased, P_COUNT},
    {TV_POST, "/{index}/_count", tv_h_count_aliased, P_COUNT},
    {TV_GET, "/{index}/_count", tv_h_count_aliased, P_COUNT},

#define P_VALIDATE                                                                                      \
    P("all_shards", "allow_no_indices", "analyze_wildcard", "analyzer", "default_operator", "df", "explain", \
      "expand_wildcards", "ignore_unavailable", "lenient", "q", "rewrite")
    {TV_GET, "/_validate/query", tv_h_validate_query, P_VALIDATE},
    {TV_POST, "/_validate/query", tv_h_validate_query, P_VALIDATE},
    {TV_GET, "/{index}/_validate/query", tv_h_validate_query, P_VALIDATE},
    {TV_POST, "/{index}/_validate/query", tv_h_validate_query, P_VALIDATE},

    {TV_GET, "/_mget", tv_h_mget, P_MGET},
    {TV_POST, "/_mget", tv_h_mget, P_MGET},
    {TV_GET, "/{index}/_mget", tv_h_mget, P_MGET},
    {TV_POST, "/{index}/_mget", tv_h_mget, P_MGET},

    {TV_POST, "/_refresh", tv_h_refresh, P_IDX_OPTS},
    {TV_GET, "/_refresh", tv_h_refresh, P_IDX_OPTS},
    {TV_POST, "/{index}/_refresh", tv_h_refresh, P_IDX_OPTS},
    {TV_GET, "/{index}/_refresh", tv_h_refresh, P_IDX_OPTS},

    {TV_GET, "/{index}", tv_h_index_get,
     P("allow_no_indices", "cluster_manager_timeout", "expand_wildcards", "flat_settings", "ignore_unavailable",
       "include_defaults", "local", "master_timeout")},
    {TV_HEAD, "/{index}", tv_h_index_exists,
     P("allow_no_indices", "expand_wildcards", "flat_settings", "ignore_unavailable", "include_defaults", "local")},
    {TV_PUT, "/{index}", tv_h_index_create,
     P("cluster_manager_timeout", "master_timeout", "timeout", "wait_for_active_shards")},
    {TV_DELETE, "/{index}", tv_h_index_delete,
     P("allow_no_indices", "cluster_manager_timeout", "expand_wildcards", "ignore_unavailable", "master_timeout",
       "timeout")},

    /* RestGetMappingAction and RestPutMappingAction answer the plural paths too */
    {TV_GET, "/_mapping", tv_h_mapping_get, P_MAPPING_GET},
    {TV_GET, "/_mappings", tv_h_mapping_get, P_MAPPING_GET},
    {TV_GET, "/{index}/_mapping", tv_h_mapping_get, P_MAPPING_GET},
    {TV_GET, "/{index}/_mappings", tv_h_mapping_get, P_MAPPING_GET},
    {TV_PUT, "/{index}/_mapping", tv_h_mapping_put, P_MAPPING_PUT},
    {TV_POST, "/{index}/_mapping", tv_h_mapping_put, P_MAPPING_PUT},
    {TV_PUT, "/{index}/_mappings", tv_h_mapping_put, P_MAPPING_PUT},
    {TV_POST, "/{index}/_mappings", tv_h_mapping_put, P_MAPPING_PUT},
    {TV_GET, "/_settings", tv_h_settings_get,
     P("allow_no_indices", "cluster_manager_timeout", "expand_wildcards", "flat_settings", "ignore_unavailable",
       "include_defaults", "local", "master_timeout")},
    {TV_GET, "/{index}/_settings", tv_h_settings_get,
     P("allow_no_indices", "cluster_manager_timeout", "expand_wildcards", "flat_settings", "ignore_unavailable",
       "include_defaults", "local", "master_timeout")},

    {TV_PUT, "/{index}/_doc/{id}", tv_h_doc_index, P_DOC_WRITE},
    {TV_POST, "/{index}/_doc/{id}", tv_h_doc_index, P_DOC_WRITE},
    {TV_POST, "/{index}/_doc", tv_h_doc_index, P_DOC_WRITE},
    {TV_PUT, "/{index}/_create/{id}", tv_h_doc_create, P_CREATE},
    {TV_POST, "/{index}/_create/{id}", tv_h_doc_create, P_CREATE},
    {TV_GET, "/{index}/_doc/{id}", tv_h_doc_get, P_GET},
    {TV_HEAD, "/{index}/_doc/{id}", tv_h_doc_get, P_GET},
    {TV_GET, "/{index}/_source/{id}", tv_h_source_get, P_GET},
    {TV_HEAD, "/{index}/_source/{id}", tv_h_source_get, P_GET},
    {TV_DELETE, "/{index}/_doc/{id}", tv_h_doc_delete, P_DELETE},
    {TV_POST, "/{index}/_update/{id}", tv_h_doc_update, P_UPDATE},

    /* OpenSearch APIs trove does not implement: answered with
     * unsupported_operation_exception naming the API */
#define P_MSEARCH                                                                                              \
    P("ccs_minimize_roundtrips", "max_concurrent_searches", "max_concurrent_shard_requests",                  \
      "pre_filter_shard_size", "rest_total_hits_as_int", "search_type", "typed_keys", "routing",             \
      "expand_wildcards", "ignore_unavailable", "allow_no_indices", "ignore_throttled",                      \
      "cancel_after_time_interval", "coordinator_timeout")
    {TV_GET, "/_msearch", tv_h_msearch, P_MSEARCH},
    {TV_POST, "/_msearch", tv_h_msearch, P_MSEARCH},
    {TV_GET, "/{index}/_msearch", tv_h_msearch, P_MSEARCH},
    {TV_POST, "/{index}/_msearch", tv_h_msearch, P_MSEARCH},
#define P_TASKS_CANCEL P("actions", "group_by", "nodes", "parent_task_id", "wait_for_completion")
#define P_BYQUERY(...)                                                                                         \
    P("_source", "_source_excludes", "_source_includes", "allow_no_indices", "analyze_wildcard", "analyzer",  \
      "conflicts", "default_operator", "df", "expand_wildcards", "from", "ignore_unavailable", "lenient",     \
      "max_docs", "preference", "q", "refresh", "request_cache", "requests_per_second", "routing", "scroll",  \
      "scroll_size", "search_timeout", "search_type", "size", "slices", "sort", "stats", "terminate_after",   \
      "timeout", "version", "wait_for_active_shards", "wait_for_completion", __VA_ARGS__)
    {TV_POST, "/{index}/_delete_by_query", tv_h_delete_by_query, P_BYQUERY("version_type")},
    {TV_POST, "/{index}/_update_by_query", tv_h_update_by_query, P_BYQUERY("pipeline", "version_type")},
    {TV_POST, "/_reindex", tv_h_reindex,
     P("max_docs", "refresh", "requests_per_second", "require_alias", "scroll", "slices", "timeout",
       "wait_for_active_shards", "wait_for_completion")},
    {TV_GET, "/_search/scroll", tv_h_scroll, P("scroll", "scroll_id", "rest_total_hits_as_int", "typed_keys")},
    {TV_POST, "/_search/scroll", tv_h_scroll, P("scroll", "scroll_id", "rest_total_hits_as_int", "typed_keys")},
    {TV_GET, "/_search/scroll/{id}", tv_h_scroll, P("scroll", "scroll_id", "rest_total_hits_as_int", "typed_keys")},
    {TV_POST, "/_search/scroll/{id}", tv_h_scroll, P("scroll", "scroll_id", "rest_total_hits_as_int", "typed_keys")},
    {TV_DELETE, "/_search/scroll", tv_h_clear_scroll, P("scroll_id")},
    {TV_DELETE, "/_search/scroll/{id}", tv_h_clear_scroll, P("scroll_id")},
    {TV_POST, "/{index}/_search/point_in_time", tv_h_pit_create,
     P("keep_alive", "allow_partial_pit_creation", "preference", "routing", "expand_wildcards", "ignore_unavailable",
       "allow_no_indices")},
    {TV_DELETE, "/_search/point_in_time", tv_h_pit_delete, P_NONE},
    {TV_DELETE, "/_search/point_in_time/_all", tv_h_pit_delete_all, P_NONE},
    {TV_GET, "/_search/point_in_time/_all", tv_h_pit_list, P_NONE},
    {TV_GET, "/{index}/_explain/{id}", tv_h_explain, P_EXPLAIN},
    {TV_POST, "/{index}/_explain/{id}", tv_h_explain, P_EXPLAIN},
#define P_FIELD_CAPS P("allow_no_indices", "expand_wildcards", "fields", "ignore_unavailable", "include_unmapped")
    {TV_GET, "/_field_caps", tv_h_field_caps, P_FIELD_CAPS},
    {TV_POST, "/_field_caps", tv_h_field_caps, P_FIELD_CAPS},
    {TV_GET, "/{index}/_field_caps", tv_h_field_caps, P_FIELD_CAPS},
    {TV_POST, "/{index}/_field_caps", tv_h_field_caps, P_FIELD_CAPS},
    {TV_GET, "/_analyze", tv_h_analyze, P("index")},
    {TV_POST, "/_analyze", tv_h_analyze, P("index")},
    {TV_GET, "/{index}/_analyze", tv_h_analyze, P("index")},
    {TV_POST, "/{index}/_analyze", tv_h_analyze, P("index")},
    {TV_POST, "/_aliases", tv_h_aliases_post, P_ALIAS_PUT},
    {TV_GET, "/_alias", tv_h_alias_get, P_ALIAS_GET},
    {TV_GET, "/_aliases", tv_h_alias_get, P_ALIAS_GET}, /* RestGetAliasesAction lists it too */
    {TV_GET, "/_alias/{name}", tv_h_alias_get, P_ALIAS_GET},
    {TV_HEAD, "/_alias/{name}", tv_h_alias_get, P_ALIAS_GET},
    {TV_GET, "/{index}/_alias", tv_h_alias_get, P_ALIAS_GET},
    {TV_HEAD, "/{index}/_alias", tv_h_alias_get, P_ALIAS_GET},
    {TV_GET, "/{index}/_alias/{name}", tv_h_alias_get, P_ALIAS_GET},
    {TV_HEAD, "/{index}/_alias/{name}", tv_h_alias_get, P_ALIAS_GET},
    {TV_PUT, "/{index}/_alias/{name}", tv_h_alias_put, P_ALIAS_PUT},
    {TV_POST, "/{index}/_alias/{name}", tv_h_alias_put, P_ALIAS_PUT},
    {TV_PUT, "/{index}/_aliases/{name}", tv_h_alias_put, P_ALIAS_PUT},
    {TV_POST, "/{index}/_aliases/{name}", tv_h_alias_put, P_ALIAS_PUT},
    {TV_PUT, "/{index}/_alias", tv_h_alias_put, P_ALIAS_PUT},
    {TV_PUT, "/{index}/_aliases", tv_h_alias_put, P_ALIAS_PUT},
    {TV_PUT, "/_alias/{name}", tv_h_alias_put, P_ALIAS_PUT},
    {TV_POST, "/_alias/{name}", tv_h_alias_put, P_ALIAS_PUT},
    {TV_PUT, "/_aliases/{name}", tv_h_alias_put, P_ALIAS_PUT},
    {TV_POST, "/_aliases/{name}", tv_h_alias_put, P_ALIAS_PUT},
    {TV_PUT, "/_alias", tv_h_alias_put, P_ALIAS_PUT},
    {TV_POST, "/{alias}/_rollover", tv_h_rollover, P_ROLLOVER},
    {TV_POST, "/{alias}/_rollover/{new_index}", tv_h_rollover, P_ROLLOVER},
    {TV_DELETE, "/{index}/_alias/{name}", tv_h_alias_delete, P_ALIAS_PUT},
    {TV_DELETE, "/{index}/_aliases/{name}", tv_h_alias_delete, P_ALIAS_PUT},
    {TV_PUT, "/{index}/_settings", tv_h_settings_put, P_SETTINGS_PUT},
    {TV_PUT, "/_settings", tv_h_settings_put, P_SETTINGS_PUT},
    {TV_GET, "/_settings/{name}", tv_h_settings_get, P_SETTINGS_GET},
    {TV_GET, "/{index}/_settings/{name}", tv_h_settings_get, P_SETTINGS_GET},
    {TV_GET, "/_stats", tv_h_stats, P_STATS},
    {TV_GET, "/_stats/{metric}", tv_h_stats, P_STATS},
    {TV_GET, "/{index}/_stats", tv_h_stats, P_STATS},
    {TV_GET, "/{index}/_stats/{metric}", tv_h_stats, P_STATS},
    {TV_POST, "/_flush", tv_h_flush, P_FLUSH},
    {TV_GET, "/_flush", tv_h_flush, P_FLUSH},
    {TV_POST, "/{index}/_flush", tv_h_flush, P_FLUSH},
    {TV_GET, "/{index}/_flush", tv_h_flush, P_FLUSH},
    {TV_POST, "/_forcemerge", tv_h_forcemerge, P_FORCEMERGE},
    {TV_POST, "/{index}/_forcemerge", tv_h_forcemerge, P_FORCEMERGE},
    {TV_POST, "/{index}/_open", tv_h_index_open, P_OPEN_CLOSE},
    {TV_POST, "/{index}/_close", tv_h_index_close, P_OPEN_CLOSE},
    {TV_GET, "/_cluster/health", tv_h_cluster_health, P_HEALTH},
    {TV_GET, "/_cluster/health/{index}", tv_h_cluster_health, P_HEALTH},
    {TV_GET, "/_cluster/settings", tv_h_cluster_settings_get,
     P("cluster_manager_timeout", "flat_settings", "include_defaults", "master_timeout", "timeout", "local")},
    {TV_PUT, "/_cluster/settings", tv_h_cluster_settings_put,
     P("cluster_manager_timeout", "flat_settings", "master_timeout", "timeout")},
#define P_CLUSTER_STATE                                                                                      \
    P("allow_no_indices", "cluster_manager_timeout", "expand_wildcards", "flat_settings", "ignore_unavailable", \
      "local", "master_timeout", "wait_for_metadata_version", "wait_for_timeout")
    {TV_GET, "/_cluster/state", tv_h_cluster_state, P_CLUSTER_STATE},
    {TV_GET, "/_cluster/state/{metric}", tv_h_cluster_state, P_CLUSTER_STATE},
    {TV_GET, "/_cluster/state/{metric}/{index}", tv_h_cluster_state, P_CLUSTER_STATE},
    {TV_GET, "/_cluster/stats", tv_h_cluster_stats, P("flat_settings", "timeout")},
    {TV_GET, "/_cluster/stats/nodes/{name}", tv_h_cluster_stats, P("flat_settings", "timeout")},
    {TV_GET, "/_cluster/pending_tasks", tv_h_cluster_pending_tasks,
     P("cluster_manager_timeout", "local", "master_timeout")},
    {TV_GET, "/_remote/info", tv_h_remote_info, P_NONE},
    {TV_GET, "/_cluster/allocation/explain", tv_h_cluster_allocation_explain,
     P("include_disk_info", "include_yes_decisions")},
    {TV_POST, "/_cluster/allocation/explain", tv_h_cluster_allocation_explain,
     P("include_disk_info", "include_yes_decisions")},
    {TV_POST, "/_cluster/voting_config_exclusions", tv_h_voting_exclusions_post,
     P("node_ids", "node_names", "timeout", "cluster_manager_timeout", "master_timeout")},
    {TV_DELETE, "/_cluster/voting_config_exclusions", tv_h_voting_exclusions_delete,
     P("wait_for_removal", "cluster_manager_timeout", "master_timeout")},
#define P_NODES_INFO P("flat_settings", "timeout")
    {TV_GET, "/_nodes", tv_h_nodes_info, P_NODES_INFO},
    {TV_GET, "/_nodes/{name}", tv_h_nodes_info_one, P_NODES_INFO},
    {TV_GET, "/_nodes/{name}/{metric}", tv_h_nodes_info_node, P_NODES_INFO},
#define P_COMPONENT_GET P("cluster_manager_timeout", "flat_settings", "local", "master_timeout")
#define P_COMPONENT_PUT P("cluster_manager_timeout", "create", "master_timeout", "timeout")
    {TV_GET, "/_component_template", tv_h_component_template_get, P_COMPONENT_GET},
    {TV_GET, "/_component_template/{name}", tv_h_component_template_get, P_COMPONENT_GET},
    {TV_HEAD, "/_component_template/{name}", tv_h_component_template_get, P_COMPONENT_GET},
    {TV_PUT, "/_component_template/{name}", tv_h_component_template_put, P_COMPONENT_PUT},
    {TV_POST, "/_component_template/{name}", tv_h_component_template_put, P_COMPONENT_PUT},
    {TV_DELETE, "/_component_template/{name}", tv_h_component_template_delete,
     P("cluster_manager_timeout", "master_timeout", "timeout")},
#define P_SNAP_M P("cluster_manager_timeout", "master_timeout")
#define P_SNAP_MT P("cluster_manager_timeout", "master_timeout", "timeout")
    {TV_PUT, "/_snapshot/{name}", tv_h_repository_put, P("cluster_manager_timeout", "master_timeout", "timeout", "verify")},
    {TV_POST, "/_snapshot/{name}", tv_h_repository_put, P("cluster_manager_timeout", "master_timeout", "timeout", "verify")},
    {TV_GET, "/_snapshot", tv_h_repository_get, P("cluster_manager_timeout", "master_timeout", "local")},
    {TV_GET, "/_snapshot/{name}", tv_h_repository_get, P("cluster_manager_timeout", "master_timeout", "local")},
    {TV_DELETE, "/_snapshot/{name}", tv_h_repository_delete, P_SNAP_MT},
    {TV_POST, "/_snapshot/{name}/_verify", tv_h_repository_verify, P_SNAP_MT},
    {TV_POST, "/_snapshot/{name}/_cleanup", tv_h_repository_cleanup, P_SNAP_MT},
    {TV_PUT, "/_snapshot/{name}/{name}", tv_h_snapshot_create, P("cluster_manager_timeout", "master_timeout", "wait_for_completion")},
    {TV_POST, "/_snapshot/{name}/{name}", tv_h_snapshot_create, P("cluster_manager_timeout", "master_timeout", "wait_for_completion")},
    {TV_GET, "/_snapshot/{name}/{name}", tv_h_snapshot_get,
     P("cluster_manager_timeout", "master_timeout", "ignore_unavailable", "verbose")},
    {TV_DELETE, "/_snapshot/{name}/{name}", tv_h_snapshot_delete, P_SNAP_M},
    {TV_GET, "/_snapshot/_status", tv_h_snapshot_status, P("cluster_manager_timeout", "master_timeout", "ignore_unavailable")},
    {TV_GET, "/_snapshot/{name}/_status", tv_h_snapshot_status,
     P("cluster_manager_timeout", "master_timeout", "ignore_unavailable")},
    {TV_GET, "/_cat/snapshots", tv_h_cat_snapshots, P_CAT("ignore_unavailable", "repository")},
    {TV_GET, "/_cat/snapshots/{name}", tv_h_cat_snapshots, P_CAT("ignore_unavailable")},
    {TV_GET, "/_cat/repositories", tv_h_cat_repositories, P_CAT("local")},
    {TV_GET, "/_cat/shards", tv_h_cat_shards, P_CAT("local")},
    {TV_GET, "/_cat/shards/{index}", tv_h_cat_shards, P_CAT("local")},
    {TV_GET, "/_cat/recovery", tv_h_cat_recovery, P_CAT("active_only", "detailed", "index")},
    {TV_GET, "/_cat/recovery/{index}", tv_h_cat_recovery, P_CAT("active_only", "detailed")},
    {TV_GET, "/_cat/cluster_manager", tv_h_cat_cluster_manager, P_CAT("local")},
    {TV_GET, "/_cat/master", tv_h_cat_cluster_manager, P_CAT("local")},
    {TV_GET, "/_cat/thread_pool", tv_h_cat_thread_pool, P_CAT("local")},
    {TV_GET, "/_cat/thread_pool/{name}", tv_h_cat_thread_pool, P_CAT("local")},
    {TV_GET, "/_cat/plugins", tv_h_cat_plugins, P_CAT("local")},
    {TV_GET, "/_cat/pending_tasks", tv_h_cat_pending_tasks, P_CAT("local")},
    {TV_GET, "/_cat/nodeattrs", tv_h_cat_nodeattrs, P_CAT("local")},
    {TV_GET, "/_cat/nodes", tv_h_cat_nodes, P_CAT("full_id", "local")},
    {TV_GET, "/_cat/allocation", tv_h_cat_allocation, P_CAT("local")},
    {TV_GET, "/_cat/allocation/{name}", tv_h_cat_allocation, P_CAT("local")},
    {TV_GET, "/_cat/templates", tv_h_cat_templates, P_CAT("local")},
    {TV_GET, "/_cat/templates/{name}", tv_h_cat_templates, P_CAT("local")},
    {TV_GET, "/_cat/indices", tv_h_cat_indices, P_CAT_INDICES},
    {TV_GET, "/_cat/indices/{index}", tv_h_cat_indices, P_CAT_INDICES},
    {TV_GET, "/_cat/aliases", tv_h_cat_aliases, P_CAT("expand_wildcards", "local")},
    {TV_GET, "/_cat/aliases/{name}", tv_h_cat_aliases, P_CAT("expand_wildcards", "local")},
    {TV_GET, "/_cat/count", tv_h_cat_count, P_CAT("local")},
    {TV_GET, "/_cat/count/{index}", tv_h_cat_count, P_CAT("local")},
    {TV_GET, "/_cat/health", tv_h_cat_health, P_CAT("local")},
    {TV_GET, "/_nodes/stats", tv_h_nodes_stats, P_NODES_STATS},
    {TV_GET, "/_nodes/stats/{metric}", tv_h_nodes_stats, P_NODES_STATS},
    {TV_GET, "/_nodes/{name}/stats", tv_h_nodes_stats_node, P_NODES_STATS},
    {TV_GET, "/_nodes/{name}/stats/{metric}", tv_h_nodes_stats_node, P_NODES_STATS},
    {TV_GET, "/_nodes/stats/{metric}/{index_metric}", tv_h_nodes_stats, P_NODES_STATS},
    {TV_GET, "/_nodes/{name}/stats/{metric}/{index_metric}", tv_h_nodes_stats_node, P_NODES_STATS},
    {TV_GET, "/_tasks/{task_id}", tv_h_tasks_get, P("timeout", "wait_for_completion")},
    {TV_GET, "/_index_template", tv_h_template_get, P_TEMPLATE_GET},
    {TV_GET, "/_index_template/{name}", tv_h_template_get, P_TEMPLATE_GET},
    {TV_HEAD, "/_index_template/{name}", tv_h_template_get, P_TEMPLATE_GET},
    {TV_PUT, "/_index_template/{name}", tv_h_template_put, P_TEMPLATE_PUT},
    {TV_POST, "/_index_template/{name}", tv_h_template_put, P_TEMPLATE_PUT},
    {TV_DELETE, "/_index_template/{name}", tv_h_template_delete, P_TEMPLATE_PUT},
    {TV_GET, "/_template", tv_h_template_get, P_TEMPLATE_GET},
    {TV_GET, "/_template/{name}", tv_h_template_get, P_TEMPLATE_GET},
    {TV_HEAD, "/_template/{name}", tv_h_template_get, P_TEMPLATE_GET},
    {TV_PUT, "/_template/{name}", tv_h_template_put, P_TEMPLATE_PUT},
    {TV_POST, "/_template/{name}", tv_h_template_put, P_TEMPLATE_PUT},
    {TV_DELETE, "/_template/{name}", tv_h_template_delete, P_TEMPLATE_PUT},
    {TV_PUT, "/_ingest/pipeline/{id}", tv_h_ingest_put, P("cluster_manager_timeout", "master_timeout", "timeout")},
    {TV_GET, "/_ingest/pipeline/{id}", tv_h_ingest_get, P("cluster_manager_timeout", "master_timeout")},
    {TV_DELETE, "/_ingest/pipeline/{id}", tv_h_ingest_delete, P("cluster_manager_timeout", "master_timeout", "timeout")},
    {TV_PUT, "/_scripts/{id}", tv_h_script_put, P_SCRIPT_PUT},
    {TV_POST, "/_scripts/{id}", tv_h_script_put, P_SCRIPT_PUT},    /* The rest of OpenSearch's REST API (its rest-api-spec, 3.x paths):
     * what trove does not have answers 400 unsupported_operation_exception
     * naming the method and path, never "no handler found" and never an
     * API path read as an index name. */
    {TV_GET, "/{index}/_termvectors", tv_h_unsupported, NULL}, /* termvectors */
    {TV_POST, "/{index}/_termvectors", tv_h_unsupported, NULL},
    {TV_GET, "/{index}/_termvectors/{id}", tv_h_unsupported, NULL},
    {TV_POST, "/{index}/_termvectors/{id}", tv_h_unsupported, NULL},
    {TV_GET, "/_mtermvectors", tv_h_unsupported, NULL}, /* mtermvectors */
    {TV_POST, "/_mtermvectors", tv_h_unsupported, NULL},
    {TV_GET, "/{index}/_mtermvectors", tv_h_unsupported, NULL},
    {TV_POST, "/{index}/_mtermvectors", tv_h_unsupported, NULL},
    {TV_GET, "/_cat/fielddata", tv_h_unsupported, NULL}, /* cat.fielddata */
    {TV_GET, "/_cat/fielddata/{fields}", tv_h_unsupported, NULL}, /* cat.fielddata */
    {TV_GET, "/_cat", tv_h_unsupported, NULL}, /* cat.help */
    {TV_GET, "/_cat/segment_replication", tv_h_unsupported, NULL}, /* cat.segment_replication */
    {TV_GET, "/_cat/segment_replication/{index}", tv_h_unsupported, NULL}, /* cat.segment_replication */
    {TV_GET, "/_cat/segments", tv_h_unsupported, NULL}, /* cat.segments */
    {TV_GET, "/_cat/segments/{index}", tv_h_unsupported, NULL}, /* cat.segments */
    {TV_GET, "/_cat/tasks", tv_h_unsupported, NULL}, /* cat.tasks */
    {TV_GET, "/_cluster/awareness/{awareness_attribute_name}/health", tv_h_unsupported, NULL}, /* cluster.awareness_attribute_health */
    {TV_DELETE, "/_cluster/decommission/awareness/", tv_h_unsupported, NULL}, /* cluster.delete_decommission_awareness */
    {TV_DELETE, "/_cluster/routing/awareness/weights", tv_h_unsupported, NULL}, /* cluster.delete_weighted_routing */
    {TV_GET, "/_cluster/settings/_describe", tv_h_unsupported, NULL}, /* cluster.describe_settings */
    {TV_GET, "/_cluster/decommission/awareness/{awareness_attribute_name}/_status", tv_h_unsupported, NULL}, /* cluster.get_decommission_awareness */
    {TV_GET, "/_cluster/routing/awareness/{attribute}/weights", tv_h_unsupported, NULL}, /* cluster.get_weighted_routing */
    {TV_PUT, "/_cluster/management/decommission", tv_h_unsupported, NULL}, /* cluster.management_decommission */
    {TV_PUT, "/_cluster/decommission/awareness/{awareness_attribute_name}/{awareness_attribute_value}", tv_h_unsupported, NULL}, /* cluster.put_decommission_awareness */
    {TV_PUT, "/_cluster/routing/awareness/{attribute}/weights", tv_h_unsupported, NULL}, /* cluster.put_weighted_routing */
    {TV_POST, "/_cluster/reroute", tv_h_unsupported, NULL}, /* cluster.reroute */
    {TV_PUT, "/_wlm/query_group", tv_h_unsupported, NULL}, /* create_query_group_context */
    {TV_POST, "/_wlm/query_group", tv_h_unsupported, NULL}, /* create_query_group_context */
    {TV_PUT, "/_wlm/workload_group", tv_h_unsupported, NULL}, /* create_workload_group_context */
    {TV_POST, "/_wlm/workload_group", tv_h_unsupported, NULL}, /* create_workload_group_context */
    {TV_DELETE, "/_dangling/{index_uuid}", tv_h_unsupported, NULL}, /* dangling_indices.delete_dangling_index */
    {TV_POST, "/_dangling/{index_uuid}", tv_h_unsupported, NULL}, /* dangling_indices.import_dangling_index */
    {TV_GET, "/_dangling", tv_h_unsupported, NULL}, /* dangling_indices.list_dangling_indices */
    {TV_POST, "/_delete_by_query/{task_id}/_rethrottle", tv_h_rethrottle, P("group_by", "requests_per_second")},
    {TV_DELETE, "/_wlm/query_group/{name}", tv_h_unsupported, NULL}, /* delete_query_group_context */
    {TV_DELETE, "/_scripts/{id}", tv_h_script_delete, P_SCRIPT_DELETE}, /* delete_script */
    {TV_DELETE, "/_wlm/workload_group/{name}", tv_h_unsupported, NULL}, /* delete_workload_group_context */
    {TV_GET, "/_wlm/query_group", tv_h_unsupported, NULL}, /* get_query_group_context */
    {TV_GET, "/_wlm/query_group/{name}", tv_h_unsupported, NULL}, /* get_query_group_context */
    {TV_GET, "/_scripts/{id}", tv_h_script_get, P_SCRIPT_GET}, /* get_script */
    {TV_GET, "/_script_context", tv_h_unsupported, NULL}, /* get_script_context */
    {TV_GET, "/_script_language", tv_h_unsupported, NULL}, /* get_script_languages */
    {TV_GET, "/_wlm/workload_group", tv_h_unsupported, NULL}, /* get_workload_group_context */
    {TV_GET, "/_wlm/workload_group/{name}", tv_h_unsupported, NULL}, /* get_workload_group_context */
    {TV_PUT, "/{index}/_block/{block}", tv_h_unsupported, NULL}, /* indices.add_block */
    {TV_POST, "/_cache/clear", tv_h_unsupported, NULL}, /* indices.clear_cache */
    {TV_POST, "/{index}/_cache/clear", tv_h_unsupported, NULL}, /* indices.clear_cache */
    {TV_PUT, "/{index}/_clone/{target}", tv_h_unsupported, NULL}, /* indices.clone */
    {TV_POST, "/{index}/_clone/{target}", tv_h_unsupported, NULL}, /* indices.clone */
    {TV_GET, "/_data_stream/_stats", tv_h_unsupported, NULL}, /* indices.data_streams_stats */
    {TV_GET, "/_data_stream/{name}/_stats", tv_h_unsupported, NULL}, /* indices.data_streams_stats */
    {TV_DELETE, "/_data_stream/{name}", tv_h_unsupported, NULL}, /* indices.delete_data_stream */
    {TV_GET, "/_data_stream", tv_h_unsupported, NULL}, /* indices.get_data_stream */
    {TV_GET, "/_data_stream/{name}", tv_h_unsupported, NULL}, /* indices.get_data_stream */
    {TV_GET, "/_mapping/field/{fields}", tv_h_unsupported, NULL}, /* indices.get_field_mapping */
    {TV_GET, "/{index}/_mapping/field/{fields}", tv_h_unsupported, NULL}, /* indices.get_field_mapping */
    {TV_POST, "/_data_stream/_modify", tv_h_unsupported, NULL}, /* indices.modify_data_stream */
    {TV_PUT, "/{index}/_shrink/{target}", tv_h_unsupported, NULL}, /* indices.shrink */
    {TV_POST, "/{index}/_shrink/{target}", tv_h_unsupported, NULL}, /* indices.shrink */
    {TV_POST, "/_index_template/_simulate_index/{name}", tv_h_unsupported, NULL}, /* indices.simulate_index_template */
    {TV_POST, "/_index_template/_simulate", tv_h_unsupported, NULL}, /* indices.simulate_template */
    {TV_POST, "/_index_template/_simulate/{name}", tv_h_unsupported, NULL}, /* indices.simulate_template */
    {TV_PUT, "/{index}/_split/{target}", tv_h_unsupported, NULL}, /* indices.split */
    {TV_POST, "/{index}/_split/{target}", tv_h_unsupported, NULL}, /* indices.split */
    {TV_GET, "/_ingest/pipeline", tv_h_ingest_get, P("cluster_manager_timeout", "master_timeout")}, /* ingest.get_pipeline */
    {TV_GET, "/_ingest/pipeline/_simulate", tv_h_ingest_simulate, P("verbose")}, /* ingest.simulate */
    {TV_POST, "/_ingest/pipeline/_simulate", tv_h_ingest_simulate, P("verbose")}, /* ingest.simulate */
    {TV_GET, "/_ingest/pipeline/{id}/_simulate", tv_h_ingest_simulate, P("verbose")}, /* ingest.simulate */
    {TV_POST, "/_ingest/pipeline/{id}/_simulate", tv_h_ingest_simulate, P("verbose")}, /* ingest.simulate */
    {TV_GET, "/_msearch/template", tv_h_unsupported, NULL}, /* msearch_template */
    {TV_POST, "/_msearch/template", tv_h_unsupported, NULL}, /* msearch_template */
    {TV_GET, "/{index}/_msearch/template", tv_h_unsupported, NULL}, /* msearch_template */
    {TV_POST, "/{index}/_msearch/template", tv_h_unsupported, NULL}, /* msearch_template */
    {TV_GET, "/_nodes/hot_threads", tv_h_unsupported, NULL}, /* nodes.hot_threads */
    {TV_GET, "/_nodes/{node_id}/hot_threads", tv_h_unsupported, NULL}, /* nodes.hot_threads */
    {TV_POST, "/_nodes/reload_secure_settings", tv_h_unsupported, NULL}, /* nodes.reload_secure_settings */
    {TV_POST, "/_nodes/{node_id}/reload_secure_settings", tv_h_unsupported, NULL}, /* nodes.reload_secure_settings */
    {TV_GET, "/_nodes/usage", tv_h_unsupported, NULL}, /* nodes.usage */
    {TV_GET, "/_nodes/{node_id}/usage", tv_h_unsupported, NULL}, /* nodes.usage */
    {TV_GET, "/_nodes/usage/{metric}", tv_h_unsupported, NULL}, /* nodes.usage */
    {TV_GET, "/_nodes/{node_id}/usage/{metric}", tv_h_unsupported, NULL}, /* nodes.usage */
    {TV_PUT, "/_scripts/{id}/{context}", tv_h_script_put, P_SCRIPT_PUT}, /* put_script */
    {TV_POST, "/_scripts/{id}/{context}", tv_h_script_put, P_SCRIPT_PUT}, /* put_script */
    {TV_GET, "/_rank_eval", tv_h_unsupported, NULL}, /* rank_eval */
    {TV_POST, "/_rank_eval", tv_h_unsupported, NULL}, /* rank_eval */
    {TV_GET, "/{index}/_rank_eval", tv_h_unsupported, NULL}, /* rank_eval */
    {TV_POST, "/{index}/_rank_eval", tv_h_unsupported, NULL}, /* rank_eval */
    {TV_POST, "/_reindex/{task_id}/_rethrottle", tv_h_rethrottle, P("group_by", "requests_per_second")},
    {TV_POST, "/_remotestore/_restore", tv_h_unsupported, NULL}, /* remote_store.restore */
    {TV_GET, "/_remotestore/stats/{index}", tv_h_unsupported, NULL}, /* remote_store.stats */
    {TV_GET, "/_remotestore/stats/{index}/{shard_id}", tv_h_unsupported, NULL}, /* remote_store.stats */
    {TV_GET, "/_render/template", tv_h_unsupported, NULL}, /* render_search_template */
    {TV_POST, "/_render/template", tv_h_unsupported, NULL}, /* render_search_template */
    {TV_GET, "/_render/template/{id}", tv_h_unsupported, NULL}, /* render_search_template */
    {TV_POST, "/_render/template/{id}", tv_h_unsupported, NULL}, /* render_search_template */
    {TV_GET, "/_scripts/painless/_context", tv_h_unsupported, NULL}, /* scripts_painless_context */
    {TV_GET, "/_scripts/painless/_execute", tv_h_unsupported, NULL}, /* scripts_painless_execute */
    {TV_POST, "/_scripts/painless/_execute", tv_h_unsupported, NULL}, /* scripts_painless_execute */
    {TV_DELETE, "/_search/pipeline/{id}", tv_h_unsupported, NULL}, /* search_pipeline.delete */
    {TV_GET, "/_search/pipeline", tv_h_unsupported, NULL}, /* search_pipeline.get */
    {TV_GET, "/_search/pipeline/{id}", tv_h_unsupported, NULL}, /* search_pipeline.get */
    {TV_PUT, "/_search/pipeline/{id}", tv_h_unsupported, NULL}, /* search_pipeline.put */
    {TV_GET, "/_search_shards", tv_h_unsupported, NULL}, /* search_shards */
    {TV_POST, "/_search_shards", tv_h_unsupported, NULL}, /* search_shards */
    {TV_GET, "/{index}/_search_shards", tv_h_unsupported, NULL}, /* search_shards */
    {TV_POST, "/{index}/_search_shards", tv_h_unsupported, NULL}, /* search_shards */
    {TV_GET, "/_search/template", tv_h_unsupported, NULL}, /* search_template */
    {TV_POST, "/_search/template", tv_h_unsupported, NULL}, /* search_template */
    {TV_GET, "/{index}/_search/template", tv_h_unsupported, NULL}, /* search_template */
    {TV_POST, "/{index}/_search/template", tv_h_unsupported, NULL}, /* search_template */
    {TV_PUT, "/_snapshot/{repository}/{snapshot}/_clone/{target_snapshot}", tv_h_unsupported, NULL}, /* snapshot.clone */
    {TV_POST, "/_snapshot/{repository}/{snapshot}/_restore", tv_h_unsupported, NULL}, /* snapshot.restore */
    {TV_GET, "/_snapshot/{repository}/{snapshot}/_status", tv_h_unsupported, NULL}, /* snapshot.status */
    {TV_POST, "/_tasks/_cancel", tv_h_tasks_cancel, P_TASKS_CANCEL},
    {TV_POST, "/_tasks/{task_id}/_cancel", tv_h_tasks_cancel, P_TASKS_CANCEL},
    {TV_DELETE, "/_tasks/{task_id}", tv_h_unsupported, NULL}, /* tasks.delete */
    {TV_GET, "/_tasks", tv_h_tasks_list,
     P("actions", "detailed", "group_by", "nodes", "parent_task_id", "timeout", "wait_for_completion")},
    {TV_POST, "/_update_by_query/{task_id}/_rethrottle", tv_h_rethrottle, P("group_by", "requests_per_second")},
    {TV_PUT, "/_wlm/query_group/{name}", tv_h_unsupported, NULL}, /* update_query_group_context */
    {TV_POST, "/_wlm/query_group/{name}", tv_h_unsupported, NULL}, /* update_query_group_context */
    {TV_PUT, "/_wlm/workload_group/{name}", tv_h_unsupported, NULL}, /* update_workload_group_context */
    {TV_POST, "/_wlm/workload_group/{name}", tv_h_unsupported, NULL}, /* update_workload_group_context */
};

#define MAX_SEGS 16

typedef struct seg {
    const char *p;
    size_t n;
} seg;

static size_t split_path(const char *p, size_t n, seg *out, size_t cap) {
    size_t k = 0, i = 0;
    while (i < n) {
        while (i < n && p[i] == '/') i++;
        if (i >= n) break;
        size_t s = i;
        while (i < n && p[i] != '/') i++;
        if (k == cap) return cap + 1;
        out[k].p = p + s;
        out[k].n = i - s;
        k++;
    }
    return k;
}

/* The route table's patterns split once (the table is static, so is
 * this): matching a request then compares segment counts and literal
 * segments only. Splitting every pattern per request cost about 40,000
 * instructions, most of a small search's routing. */
typedef struct route_segs {
    uint8_t n; /* MAX_SEGS + 1: longer than any path matched */
    seg s[MAX_SEGS];
} route_segs;

static route_segs split_routes[TV_ARRAY_LEN(routes)];
static pthread_once_t split_once = PTHREAD_ONCE_INIT;

static void split_all_routes(void) {
    for (size_t i = 0; i < TV_ARRAY_LEN(routes); i++)
        split_routes[i].n = (uint8_t)split_path(routes[i].pattern, strlen(routes[i].pattern), split_routes[i].s,
                                                MAX_SEGS);
}

/* Does route i match the path segments? Fills a "wildcard mask" (bit i set
 * when segment i is a {param}) for ordering. */
static bool route_match(size_t i, const seg *segs, size_t nsegs, unsigned *mask) {
    const route_segs *rs = &split_routes[i];
    if (rs->n != nsegs) return false;
    *mask = 0;
    for (size_t k = 0; k < nsegs; k++) {
        const seg *ps = &rs->s[k];
        if (ps->p[0] == '{') {
            *mask |= 1u << (MAX_SEGS - 1 - k);
            continue;
        }
        if (ps->n != segs[k].n || memcmp(ps->p, segs[k].p, ps->n) != 0) return false;
    }
    return true;
}

static void fail_simple(tv_req *r, int status, const char *msg) {
    tv_jw *w = tv_req_json(r, status);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "error");
    tv_jw_strz(w, msg);
    tv_jw_keyz(w, "status");
    tv_jw_int(w, status);
    tv_jw_obj_end(w);
}

static bool parse_query(tv_req *r, const char *q) {
    size_t n = strlen(q);
    size_t cap = 1;
    for (size_t i = 0; i < n; i++)
        if (q[i] == '&') cap++;
    r->params = tv_arena_calloc(&r->arena, cap, sizeof *r->params);
    if (!r->params) {
        r->oom = true;
        return false;
    }
    size_t i = 0;
    while (i < n) {
        size_t s = i;
        while (i < n && q[i] != '&') i++;
        size_t e = i;
        i++;
        if (e == s) continue;
        const char *eq = memchr(q + s, '=', e - s);
        const char *bad = NULL;
        char *k, *v;
        if (eq) {
            k = decode_component(&r->arena, q + s, (size_t)(eq - (q + s)), &bad);
            v = k ? decode_component(&r->arena, eq + 1, (size_t)(q + e - eq - 1), &bad) : NULL;
        } else {
            k = decode_component(&r->arena, q + s, e - s, &bad);
            v = k ? tv_arena_strndup(&r->arena, "", 0) : NULL;
        }
        if (!k || !v) {
            if (bad)
                tv_req_fail(r, TROVE_EARG, "%s", bad);
            else
                r->oom = true;
            return false;
        }
        r->params[r->nparams].key = k;
        r->params[r->nparams].val = v;
        r->nparams++;
    }
    return true;
}

/*
 * Time-valued parameters (timeout, master_timeout, ...): trove has no use
 * for them but checks them as RestRequest.paramAsTime does (TimeValue's
 * rules: "-1", "0", or a number with one of the units nanos, micros, ms,
 * s, m, h, d), so a request OpenSearch rejects is rejected here too.
 */
static bool check_time_param(tv_req *r, const char *key) {
    const char *v = tv_req_param(r, key);
    int64_t ms;
    return !v || tv_api_parse_time_ms(r, key, v, &ms);
}

/* Params the handler does not read are unrecognized, as RestController
 * reports the ones a handler left unconsumed: every given parameter that
 * is neither in the route's list (less `unread`, the ones this request's
 * handler skipped), a global one, nor a path part. The message names each
 * with its did-you-mean candidates from the same lists. */
static bool validate_params(tv_req *r, const char *const *route_params, const char *const *pathparams,
                            const char *const *unread) {
    if (!route_params) return true; /* unsupported APIs: the handler answers */
    const char *const *rp = route_params;
    if (unread) { /* the route's params less the unread ones */
        size_t n = 0;
        for (const char *const *p = route_params; *p; p++) n++;
        const char **keep = tv_arena_calloc(&r->arena, n + 1, sizeof *keep);
        if (!keep) return (r->oom = true), false;
        size_t k = 0;
        for (const char *const *p = route_params; *p; p++)
            if (!in_list(unread, *p)) keep[k++] = *p;
        rp = keep;
    }
    const char **bad = tv_arena_calloc(&r->arena, r->nparams + 1, sizeof *bad);
    if (!bad) {
        r->oom = true;
        return false;
    }
    size_t nbad = 0;
    for (size_t i = 0; i < r->nparams; i++) {
        const char *k = r->params[i].key;
        if (in_list(rp, k) || in_list(global_params, k) || in_list(pathparams, k)) continue;
        bool dup = false;
        for (size_t j = 0; j < nbad; j++)
            if (strcmp(bad[j], k) == 0) dup = true;
        if (!dup) bad[nbad++] = k;
    }
    if (nbad == 0) return true;
    qsort(bad, nbad, sizeof *bad, cmp_str);
    /* candidates: route params, global params, path params */
    size_t ncand_max = 0;
    for (const char *const *p = rp; *p; p++) ncand_max++;
    ncand_max += TV_ARRAY_LEN(global_params) + 4;
    cand *cs = tv_arena_calloc(&r->arena, ncand_max, sizeof *cs);
    if (!cs) {
        r->oom = true;
        return false;
    }
    tv_buf m;
    tv_buf_init(&m);
    tv_buf_printf(&m, "request [%s] contains unrecognized parameter%s: ", r->path, nbad > 1 ? "s" : "");
    for (size_t i = 0; i < nbad; i++) {
        size_t nc = 0;
        const char *const *lists[3] = {rp, global_params, pathparams};
        for (int li = 0; li < 3; li++)
            for (const char *const *p = lists[li]; p && *p; p++) {
                bool seen = false;
                for (size_t j = 0; j < nc; j++)
                    if (strcmp(cs[j].name, *p) == 0) seen = true;
                if (seen) continue;
                float s = levenshtein_sim(bad[i], *p);
                if (s > 0.5f && nc < ncand_max) {
                    cs[nc].sim = s;
                    cs[nc].name = *p;
                    nc++;
                }
            }
        put_suggestion(&m, i, bad[i], cs, nc);
    }
    if (m.oom) {
        tv_buf_fini(&m);
        r->oom = true;
        return false;
    }
    tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
    char *reason = tv_arena_strndup(&r->arena, m.data ? m.data : "", m.len);
    tv_buf_fini(&m);
    if (!e || !reason) {
        r->oom = true;
        return false;
    }
    e->type = TROVE_EARG;
    e->reason = reason;
    e->status = 400;
    tv_req_error(r, e);
    return false;
}

/* BaseRestHandler.unrecognized for names other than parameters: "request
 * [path] contains unrecognized <what>[s]: [x] -> did you mean [y]?", each
 * bad name (sorted, unique) with the candidates more than half similar. */
void tv_req_fail_unrecognized(tv_req *r, const char *what, const char *const *bad, size_t nbad,
                              const char *const *cands) {
    size_t ncand = 0;
    for (const char *const *p = cands; *p; p++) ncand++;
    cand *cs = tv_arena_calloc(&r->arena, ncand + 1, sizeof *cs);
    if (!cs) return (void)(r->oom = true);
    tv_buf m;
    tv_buf_init(&m);
    tv_buf_printf(&m, "request [%s] contains unrecognized %s%s: ", r->path, what, nbad > 1 ? "s" : "");
    for (size_t i = 0; i < nbad; i++) {
        size_t nc = 0;
        for (const char *const *p = cands; *p; p++) {
            float s = levenshtein_sim(bad[i], *p);
            if (s > 0.5f) {
                cs[nc].sim = s;
                cs[nc].name = *p;
                nc++;
            }
        }
        put_suggestion(&m, i, bad[i], cs, nc);
    }
    if (m.oom) r->oom = true;
    else tv_req_fail(r, TROVE_EARG, "%.*s", (int)m.len, m.data);
    tv_buf_fini(&m);
}

bool tv_req_fail_unread(tv_req *r, const char *const *unread) {
    return validate_params(r, r->route_params, r->path_params, unread);
}

/* Single-document APIs name one index: an alias is replaced by its index
 * (its write index for writes) and a closed index is refused before the
 * handler runs, so handlers see a concrete name. */
static bool single_target(tv_req *r, const route *rt) {
    if (!r->p_index) return true;
    bool write = rt->h == tv_h_doc_index || rt->h == tv_h_doc_create || rt->h == tv_h_doc_delete ||
                 rt->h == tv_h_doc_update;
    bool read = rt->h == tv_h_doc_get || rt->h == tv_h_source_get || rt->h == tv_h_explain;
    bool multi = rt->h == tv_h_bulk || rt->h == tv_h_mget;
    if (!write && !read && !multi) return true;
    if (multi) { /* a default index in the path: refuse it when closed */
        if (tv_node_is_closed(r->node, r->p_index)) {
            tv_index *idx = tv_node_get_index(r->node, r->p_index);
            if (idx) {
                tv_req_fail_closed(r, idx);
                tv_index_release(idx);
                return false;
            }
        }
        return true;
    }
    r->p_index_given = r->p_index;
    const char *t = tv_node_single_target(r, r->p_index, write);
    if (!t) return false;
    r->p_index = t;
    if (strcmp(t, r->p_index_given) != 0 && tv_node_is_alias(r->node, r->p_index_given)) {
        /* an alias's index_routing becomes the request's routing */
        const char *given = tv_req_param(r, "routing"), *aroute = NULL;
        tv_api_err *e = NULL;
        if (given && !*given) given = NULL;
        if (!tv_node_alias_routing(r, r->p_index_given, t, given, &aroute, &e)) {
            if (e) tv_req_error(r, e);
            return false;
        }
        if (aroute && aroute != given) {
            tv_param *np = tv_arena_calloc(&r->arena, r->nparams + 1, sizeof *np);
            if (!np) {
                r->oom = true;
                return false;
            }
            size_t k = 0;
            for (size_t i = 0; i < r->nparams; i++)
                if (strcmp(r->params[i].key, "routing") != 0) np[k++] = r->params[i];
            np[k].key = "routing";
            np[k].val = aroute;
            r->params = np;
            r->nparams = k + 1;
        }
    }
    return true;
}

static void methods_list(tv_buf *b, const bool *allowed, const tv_method *order, size_t norder,
                         const char *sep) {
    for (size_t i = 0; i < norder; i++)
        if (allowed[order[i]]) tv_buf_printf(b, "%s%s", i ? sep : "", tv_method_name(order[i]));
}

static void dispatch(tv_req *r);

/* error_trace=true adds "stack_trace" to the error objects written while
 * the request runs (error.c); the flag is restored for nested requests. */
void tv_api_dispatch(tv_req *r) {
    bool prev = tv_api_error_trace_set(false);
    dispatch(r);
    tv_api_error_trace_set(prev);
}

/* RestController.dispatchRequest: the body is reserved on the in-flight
 * requests breaker, refused past its limit unless the handler cannot trip
 * breakers (canTripCircuitBreaker() false: the settings that change the
 * limits and the monitoring APIs, so that an operator can always see and
 * fix them); those do not charge the request breaker either. The
 * reservation is released by trove_request when the request ends. */
static bool cannot_trip(const route *rt) {
    return rt->h == tv_h_cluster_settings_put || rt->h == tv_h_cluster_settings_get || rt->h == tv_h_cluster_health ||
           rt->h == tv_h_nodes_stats || rt->h == tv_h_nodes_stats_node || rt->h == tv_h_nodes_info ||
           rt->h == tv_h_nodes_info_one || rt->h == tv_h_nodes_info_node || rt->h == tv_h_cluster_state ||
           rt->h == tv_h_cluster_stats || rt->h == tv_h_cluster_pending_tasks || strncmp(rt->pattern, "/_cat", 5) == 0 ||
           strcmp(rt->pattern, "/") == 0;
}

static bool charge_in_flight(tv_req *r, const route *rt) {
    tv_breakers *b = &r->node->brk->b;
    int64_t n = (int64_t)r->body_len;
    if (cannot_trip(rt)) {
        if (n) atomic_fetch_add(&b->b[TV_BREAKER_IN_FLIGHT].used, n); /* addWithoutBreaking */
    } else if (!tv_breaker_add(b, TV_BREAKER_IN_FLIGHT, n, "<http_request>", r->trip)) {
        r->arena.tripped = true; /* answered as a trip by trove_request */
        return false;
    } else {
        tv_arena_charge(&r->arena, b, r->trip); /* from now on */
    }
    r->in_flight = n;
    return true;
}

static bool changes_metadata(tv_handler h) {
    static const tv_handler data[] = {tv_h_doc_index,        tv_h_doc_create,       tv_h_doc_delete,
                                      tv_h_doc_update,       tv_h_bulk,             tv_h_delete_by_query,
                                      tv_h_update_by_query,  tv_h_refresh,          tv_h_flush,
                                      tv_h_forcemerge,       tv_h_doc_get,          tv_h_source_get,
                                      tv_h_mget,             tv_h_search_aliased,   tv_h_count_aliased,
                                      tv_h_msearch,          tv_h_scroll,           tv_h_clear_scroll,
                                      tv_h_pit_create,       tv_h_pit_delete,       tv_h_pit_delete_all,
                                      tv_h_cluster_allocation_explain};
    for (size_t i = 0; i < TV_ARRAY_LEN(data); i++)
        if (data[i] == h) return false;
    return true;
}

static void dispatch(tv_req *r) {
    /* split the target */
    const char *uri = r->uri;
    size_t plen = strcspn(uri, "?");
    char *raw = tv_arena_strndup(&r->arena, uri, plen);
    if (!raw) {
        r->oom = true;
        return;
    }
    r->raw_path = raw;
    const char *bad = NULL;
    char *dec = decode_component(&r->arena, raw, plen, &bad);
    r->path = dec ? dec : raw;

    seg segs[MAX_SEGS];
    size_t nsegs = split_path(raw, plen, segs, MAX_SEGS);

    /* candidates */
    size_t cand_idx[TV_ARRAY_LEN(routes)];
    unsigned cand_mask[TV_ARRAY_LEN(routes)];
    size_t ncand = 0;
    bool allowed[TV_METHOD_COUNT] = {0};
    tv_method order[TV_METHOD_COUNT];
    size_t norder = 0;
    if (nsegs <= MAX_SEGS) {
        pthread_once(&split_once, split_all_routes);
        for (size_t i = 0; i < TV_ARRAY_LEN(routes); i++) {
            unsigned mask;
            if (!route_match(i, segs, nsegs, &mask)) continue;
            cand_idx[ncand] = i;
            cand_mask[ncand] = mask;
            ncand++;
            if (!allowed[routes[i].method]) {
                allowed[routes[i].method] = true;
                order[norder++] = routes[i].method;
            }
        }
    }

    if (r->method == TV_METHOD_COUNT || !allowed[r->method]) {
        if (r->method == TV_OPTIONS) {
            tv_req_empty(r, 200);
        } else if (r->method == TV_METHOD_COUNT || norder > 0) {
            tv_buf msg;
            tv_buf_init(&msg);
            if (r->method == TV_METHOD_COUNT)
                tv_buf_puts(&msg, "Unexpected HTTP method");
            else
                tv_buf_printf(&msg, "Incorrect HTTP method for uri [%s] and method [%s]", uri,
                              tv_method_name(r->method));
            if (norder) {
                tv_buf_puts(&msg, ", allowed: [");
                methods_list(&msg, allowed, order, norder, ", ");
                tv_buf_puts(&msg, "]");
            }
            if (msg.oom) {
                tv_buf_fini(&msg);
                r->oom = true;
                return;
            }
            fail_simple(r, 405, msg.data);
            tv_buf_fini(&msg);
        } else {
            char *p = uri_path(&r->arena, uri);
            if (p) {
                char *m = tv_arena_sprintf(&r->arena, "no handler found for uri [%s] and method [%s]", p,
                                           tv_method_name(r->method));
                if (!m) {
                    r->oom = true;
                    return;
                }
                fail_simple(r, 400, m);
            } else {
                fail_simple(r, 400, "invalid uri has been requested");
            }
        }
        if (norder) {
            tv_buf a;
            tv_buf_init(&a);
            methods_list(&a, allowed, order, norder, ",");
            size_t n;
            r->allow = tv_buf_detach(&a, &n);
            if (!r->allow) r->oom = true;
        }
        return;
    }

    /* choose the most explicit candidate for the method */
    const route *rt = NULL;
    unsigned best = 0;
    for (size_t i = 0; i < ncand; i++) {
        const route *c = &routes[cand_idx[i]];
        if (c->method != r->method) continue;
        if (!rt || cand_mask[i] < best) {
            rt = c;
            best = cand_mask[i];
        }
    }
    if (rt && !charge_in_flight(r, rt)) return;

    /* query string */
    if (uri[plen] == '?' && !parse_query(r, uri + plen + 1)) return;
    if (!dec) { /* a malformed escape in the path */
        if (bad)
            tv_req_fail(r, TROVE_EARG, "%s", bad);
        else
            r->oom = true;
        return;
    }

    /* path parameters */
    const char *pathparams[4] = {0};
    size_t npp = 0;
    const seg *ps = split_routes[rt - routes].s;
    size_t np = split_routes[rt - routes].n;
    for (size_t i = 0; i < np; i++) {
        if (ps[i].p[0] != '{') continue;
        char *v = decode_component(&r->arena, segs[i].p, segs[i].n, &bad);
        if (!v) {
            if (bad)
                tv_req_fail(r, TROVE_EARG, "%s", bad);
            else
                r->oom = true;
            return;
        }
        if (tv_streq(ps[i].p, ps[i].n, "{index}")) {
            r->p_index = v;
            pathparams[npp++] = "index";
        } else if (tv_streq(ps[i].p, ps[i].n, "{id}")) {
            r->p_id = v;
            pathparams[npp++] = "id";
        } else if (tv_streq(ps[i].p, ps[i].n, "{task_id}")) {
            r->p_id = v;
            pathparams[npp++] = "task_id";
        } else if (npp < 3) {
            if (tv_streq(ps[i].p, ps[i].n, "{name}") || tv_streq(ps[i].p, ps[i].n, "{metric}") ||
                tv_streq(ps[i].p, ps[i].n, "{alias}") || tv_streq(ps[i].p, ps[i].n, "{new_index}") ||
                tv_streq(ps[i].p, ps[i].n, "{context}") || tv_streq(ps[i].p, ps[i].n, "{index_metric}")) {
                if (r->p_name2)
                    r->p_name3 = v;
                else if (r->p_name)
                    r->p_name2 = v;
                else
                    r->p_name = v;
            }
            pathparams[npp++] = tv_arena_strndup(&r->arena, ps[i].p + 1, ps[i].n - 2);
        }
    }

    /* global parameters */
    bool pretty;
    if (!tv_req_param_bool(r, "pretty", false, &pretty)) return;
    r->pretty = pretty;
    bool dummy;
    if (!tv_req_param_bool(r, "human", false, &dummy)) return;
    if (!tv_req_param_bool(r, "error_trace", false, &dummy)) return;
    tv_api_error_trace_set(dummy);
    r->route_params = rt->params;
    for (size_t i = 0; i < TV_ARRAY_LEN(pathparams) && pathparams[i]; i++) r->path_params[i] = pathparams[i];
    if (!validate_params(r, rt->params, pathparams, NULL)) return;
    if (rt->params && (!check_time_param(r, "timeout") || !check_time_param(r, "master_timeout") ||
                       !check_time_param(r, "cluster_manager_timeout")))
        return;
    const char *fmt = tv_req_param(r, "format");
    if (fmt && strcmp(fmt, "json") != 0 && strncmp(r->path, "/_cat/", 6) != 0) {
        tv_req_fail(r, TROVE_EUNSUPPORTED,
                    "trove answers only in JSON: unsupported format [%s]", fmt);
        return;
    }
    if (tv_trove_refuse_frozen(r, rt->h)) return; /* management API, h_trove.c */
    if (!single_target(r, rt)) return;
    /* copy-on-write: a write first gets the node a state of its own */
    bool writes = tv_handler_writes(r, rt->h);
    if (writes && !tv_node_own_state(r)) {
        r->oom = true;
        return;
    }
    rt->h(r);
    /* a metadata change is a new cluster state version (document writes,
     * refresh, flush and merges are not) */
    if (writes && !r->oom && r->status >= 200 && r->status < 300 && changes_metadata(rt->h)) {
        pthread_rwlock_wrlock(&r->node->lock);
        r->node->st->version++;
        pthread_rwlock_unlock(&r->node->lock);
    }
    /* acknowledged means durable: sync before the response leaves */
    tv_error err;
    tv_error_clear(&err);
    if (writes && r->node->durable && tv_durable_sync(r->node, &err) != TROVE_OK) {
        if (err.code == TROVE_ENOMEM) {
            r->oom = true;
            return;
        }
        tv_buf_clear(&r->out);
        tv_req_fail_tv(r, &err, NULL);
    }
}

void tv_h_unsupported(tv_req *r) {
    tv_req_fail(r, TROVE_EUNSUPPORTED,
                "trove does not support the API [%s %s]", tv_method_name(r->method), r->path);
}

/* The route dispatch() would run for (method, target), found the same way
 * (same segments, same candidates, the most explicit one for the method),
 * for authorization (authz.c) before the request runs. */
int tv_route_find(tv_arena *a, tv_method m, const char *uri, tv_route_info *out) {
    memset(out, 0, sizeof *out);
    size_t plen = strcspn(uri, "?");
    seg segs[MAX_SEGS];
    size_t nsegs = split_path(uri, plen, segs, MAX_SEGS);
    if (nsegs > MAX_SEGS || m == TV_METHOD_COUNT) return 0;
    pthread_once(&split_once, split_all_routes);
    const route *rt = NULL;
    size_t ri = 0;
    unsigned best = 0;
    for (size_t i = 0; i < TV_ARRAY_LEN(routes); i++) {
        unsigned mask;
        if (routes[i].method != m || !route_match(i, segs, nsegs, &mask)) continue;
        if (!rt || mask < best) {
            rt = &routes[i];
            ri = i;
            best = mask;
        }
    }
    if (!rt) return 0;
    out->h = rt->h;
    out->pattern = rt->pattern;
    const seg *ps = split_routes[ri].s;
    for (size_t i = 0; i < split_routes[ri].n; i++) {
        if (!tv_streq(ps[i].p, ps[i].n, "{index}")) continue;
        const char *bad = NULL;
        out->index = decode_component(a, segs[i].p, segs[i].n, &bad);
        if (!out->index) return bad ? 0 : -1; /* a bad escape: dispatch answers 400 */
    }
    return 1;
}
