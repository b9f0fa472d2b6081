/*
 * authz.c — trove_request_classify: what a request needs from its caller
 * (access level, OpenSearch action name, the indices it reaches), for the
 * server's HTTP Basic authorization and for embedding programs.
 *
 * The route is the one dispatch will run (tv_route_find in router.c walks
 * the same table the same way), so a request cannot be classified as one
 * route and served by another. The class comes from a table keyed by the
 * handler (and, for handlers shared by several APIs, the route pattern's
 * prefix); a handler missing from the table needs ADMIN, with an action
 * name derived from whether its route names an index, so a route added
 * later without a line here fails closed.
 *
 * Indices. The {index} path segment is split at commas; `_all` or `*`
 * make the scope the whole node, exclusions ("-x") are left out (they only
 * narrow a pattern), and no segment at all means the whole node for index
 * APIs. Three routes take index names from the body too, and the body is
 * read only when the caller passes it (a caller that grants the request
 * anyway skips the cost):
 *   - _bulk: every line that is an object whose member's value is an
 *     object with `_index` contributes that name. This over-approximates
 *     (a document line shaped like an action adds a name, which can only
 *     deny), so line pairing need not mirror h_bulk.c; lines that contain
 *     neither `_index` nor a `\u` escape cannot name an index and are not
 *     parsed. An action without `_index` uses the path's index, which is
 *     listed; without one the handler refuses it.
 *   - _mget: docs[]._index; docs without one use the path's index.
 *   - _msearch: header and body lines paired as h_msearch.c cuts them; a
 *     header's index (string or array) is listed, a header without one
 *     searches the path's index or, without one, every index (scope whole
 *     node).
 * A body that does not parse gives the whole-node scope: the handler
 * refuses it anyway, and a pattern-limited caller gets 403 instead of 400.
 *
 * Rejected: classifying in the server from the raw path (a second route
 * parser that would drift from the router), and a permission column in the
 * route table (every route line would change; the table here is keyed by
 * handler and is short).
 */
#include <stdlib.h>

#include "api.h"

typedef enum kind {
    K_INDEX,    /* the path's indices, or the whole node without them */
    K_CLUSTER,  /* always the whole node */
    K_ANY,      /* no index data */
    K_ANY_IDX,  /* the path's indices, or no index data without them */
    K_BULK,     /* + _index of the body's action lines */
    K_MGET,     /* + docs[]._index */
    K_MSEARCH,  /* + header lines' index */
} kind;

typedef struct rule {
    tv_handler h;
    const char *prefix; /* route pattern prefix, NULL: any route of h */
    tv_method method;   /* TV_METHOD_COUNT: any */
    int access;
    const char *action;
    kind k;
} rule;

#define ANYM TV_METHOD_COUNT
#define R TROVE_ACCESS_READ
#define W TROVE_ACCESS_WRITE
#define A TROVE_ACCESS_ADMIN

static const rule rules[] = {
    {tv_h_root, NULL, ANYM, R, "cluster:monitor/main", K_ANY},

    {tv_h_search_aliased, NULL, ANYM, R, "indices:data/read/search", K_INDEX},
    {tv_h_count_aliased, NULL, ANYM, R, "indices:data/read/search", K_INDEX},
    {tv_h_msearch, NULL, ANYM, R, "indices:data/read/msearch", K_MSEARCH},
    {tv_h_validate_query, NULL, ANYM, R, "indices:admin/validate/query", K_INDEX},
    {tv_h_doc_get, NULL, ANYM, R, "indices:data/read/get", K_INDEX},
    {tv_h_source_get, NULL, ANYM, R, "indices:data/read/get", K_INDEX},
    {tv_h_mget, NULL, ANYM, R, "indices:data/read/mget", K_MGET},
    {tv_h_explain, NULL, ANYM, R, "indices:data/read/explain", K_INDEX},
    {tv_h_field_caps, NULL, ANYM, R, "indices:data/read/field_caps", K_INDEX},
    {tv_h_scroll, NULL, ANYM, R, "indices:data/read/scroll", K_ANY},
    {tv_h_clear_scroll, NULL, ANYM, R, "indices:data/read/scroll/clear", K_ANY},
    {tv_h_pit_create, NULL, ANYM, R, "indices:data/read/point_in_time/create", K_INDEX},
    {tv_h_pit_delete, NULL, ANYM, R, "indices:data/read/point_in_time/delete", K_ANY},
    {tv_h_pit_delete_all, NULL, ANYM, R, "indices:data/read/point_in_time/delete", K_CLUSTER},
    {tv_h_pit_list, NULL, ANYM, R, "indices:data/read/point_in_time/readall", K_CLUSTER},
    {tv_h_analyze, NULL, ANYM, R, "indices:admin/analyze", K_ANY_IDX},
    {tv_h_index_get, NULL, ANYM, R, "indices:admin/get", K_INDEX},
    {tv_h_index_exists, NULL, ANYM, R, "indices:admin/get", K_INDEX},
    {tv_h_mapping_get, NULL, ANYM, R, "indices:admin/mappings/get", K_INDEX},
    {tv_h_settings_get, NULL, ANYM, R, "indices:monitor/settings/get", K_INDEX},
    {tv_h_alias_get, NULL, ANYM, R, "indices:admin/aliases/get", K_INDEX},
    {tv_h_stats, NULL, ANYM, R, "indices:monitor/stats", K_INDEX},
    {tv_h_cat_indices, NULL, ANYM, R, "indices:monitor/stats", K_INDEX},
    {tv_h_cat_count, NULL, ANYM, R, "indices:data/read/search", K_INDEX},
    {tv_h_cat_aliases, NULL, ANYM, R, "indices:admin/aliases/get", K_CLUSTER},
    {tv_h_cat_health, NULL, ANYM, R, "cluster:monitor/health", K_CLUSTER},
    {tv_h_cluster_health, NULL, ANYM, R, "cluster:monitor/health", K_CLUSTER},
    {tv_h_nodes_stats, NULL, ANYM, R, "cluster:monitor/nodes/stats", K_CLUSTER},
    {tv_h_nodes_stats_node, NULL, ANYM, R, "cluster:monitor/nodes/stats", K_CLUSTER},
    {tv_h_cluster_settings_get, NULL, ANYM, R, "cluster:monitor/settings", K_CLUSTER},
    {tv_h_template_get, "/_index_template", ANYM, R, "indices:admin/index_template/get", K_CLUSTER},
    {tv_h_template_get, NULL, ANYM, R, "indices:admin/template/get", K_CLUSTER},

    {tv_h_cluster_state, NULL, ANYM, R, "cluster:monitor/state", K_CLUSTER},
    {tv_h_cluster_stats, NULL, ANYM, R, "cluster:monitor/stats", K_CLUSTER},
    {tv_h_cluster_pending_tasks, NULL, ANYM, R, "cluster:monitor/task", K_CLUSTER},
    {tv_h_remote_info, NULL, ANYM, R, "cluster:monitor/remote/info", K_CLUSTER},
    {tv_h_cluster_allocation_explain, NULL, ANYM, R, "cluster:monitor/allocation/explain", K_CLUSTER},
    {tv_h_nodes_info, NULL, ANYM, R, "cluster:monitor/nodes/info", K_CLUSTER},
    {tv_h_nodes_info_one, NULL, ANYM, R, "cluster:monitor/nodes/info", K_CLUSTER},
    {tv_h_nodes_info_node, NULL, ANYM, R, "cluster:monitor/nodes/info", K_CLUSTER},
    {tv_h_component_template_get, NULL, ANYM, R, "cluster:admin/component_template/get", K_CLUSTER},
    {tv_h_repository_get, NULL, ANYM, R, "cluster:admin/repository/get", K_CLUSTER},
    {tv_h_snapshot_get, NULL, ANYM, R, "cluster:admin/snapshot/get", K_CLUSTER},
    {tv_h_snapshot_status, NULL, ANYM, R, "cluster:admin/snapshot/status", K_CLUSTER},
    {tv_h_cat_templates, NULL, ANYM, R, "indices:admin/template/get", K_CLUSTER},
    {tv_h_cat_shards, NULL, ANYM, R, "indices:monitor/stats", K_INDEX},
    {tv_h_cat_recovery, NULL, ANYM, R, "indices:monitor/recovery", K_INDEX},
    {tv_h_cat_cluster_manager, NULL, ANYM, R, "cluster:monitor/state", K_CLUSTER},
    {tv_h_cat_thread_pool, NULL, ANYM, R, "cluster:monitor/nodes/info", K_CLUSTER},
    {tv_h_cat_plugins, NULL, ANYM, R, "cluster:monitor/nodes/info", K_CLUSTER},
    {tv_h_cat_nodeattrs, NULL, ANYM, R, "cluster:monitor/nodes/info", K_CLUSTER},
    {tv_h_cat_nodes, NULL, ANYM, R, "cluster:monitor/nodes/stats", K_CLUSTER},
    {tv_h_cat_allocation, NULL, ANYM, R, "cluster:monitor/state", K_CLUSTER},
    {tv_h_cat_snapshots, NULL, ANYM, R, "cluster:admin/snapshot/get", K_CLUSTER},
    {tv_h_cat_repositories, NULL, ANYM, R, "cluster:admin/repository/get", K_CLUSTER},

    {tv_h_doc_index, NULL, ANYM, W, "indices:data/write/index", K_INDEX},
    {tv_h_doc_create, NULL, ANYM, W, "indices:data/write/index", K_INDEX},
    {tv_h_doc_update, NULL, ANYM, W, "indices:data/write/update", K_INDEX},
    {tv_h_doc_delete, NULL, ANYM, W, "indices:data/write/delete", K_INDEX},
    {tv_h_bulk, NULL, ANYM, W, "indices:data/write/bulk", K_BULK},
    {tv_h_delete_by_query, NULL, ANYM, W, "indices:data/write/delete/byquery", K_INDEX},
    {tv_h_update_by_query, NULL, ANYM, W, "indices:data/write/update/byquery", K_INDEX},
    {tv_h_reindex, NULL, ANYM, W, "indices:data/write/reindex", K_CLUSTER},
    {tv_h_tasks_list, NULL, ANYM, R, "cluster:monitor/tasks/lists", K_CLUSTER},
    {tv_h_tasks_get, NULL, ANYM, R, "cluster:monitor/task/get", K_CLUSTER},
    {tv_h_tasks_cancel, NULL, ANYM, A, "cluster:admin/tasks/cancel", K_CLUSTER},
    {tv_h_rethrottle, NULL, ANYM, A, "cluster:admin/reindex/rethrottle", K_CLUSTER},
    {tv_h_refresh, NULL, ANYM, W, "indices:admin/refresh", K_INDEX},
    {tv_h_flush, NULL, ANYM, W, "indices:admin/flush", K_INDEX},

    {tv_h_index_create, NULL, ANYM, A, "indices:admin/create", K_INDEX},
    {tv_h_index_delete, NULL, ANYM, A, "indices:admin/delete", K_INDEX},
    {tv_h_index_open, NULL, ANYM, A, "indices:admin/open", K_INDEX},
    {tv_h_index_close, NULL, ANYM, A, "indices:admin/close", K_INDEX},
    {tv_h_mapping_put, NULL, ANYM, A, "indices:admin/mapping/put", K_INDEX},
    {tv_h_settings_put, NULL, ANYM, A, "indices:admin/settings/update", K_INDEX},
    {tv_h_forcemerge, NULL, ANYM, A, "indices:admin/forcemerge", K_INDEX},
    {tv_h_aliases_post, NULL, ANYM, A, "indices:admin/aliases", K_CLUSTER},
    {tv_h_alias_put, NULL, ANYM, A, "indices:admin/aliases", K_INDEX},
    {tv_h_alias_delete, NULL, ANYM, A, "indices:admin/aliases", K_INDEX},
    {tv_h_template_put, "/_index_template", ANYM, A, "indices:admin/index_template/put", K_CLUSTER},
    {tv_h_template_put, NULL, ANYM, A, "indices:admin/template/put", K_CLUSTER},
    {tv_h_template_delete, "/_index_template", ANYM, A, "indices:admin/index_template/delete", K_CLUSTER},
    {tv_h_template_delete, NULL, ANYM, A, "indices:admin/template/delete", K_CLUSTER},
    {tv_h_cluster_settings_put, NULL, ANYM, A, "cluster:admin/settings/update", K_CLUSTER},
    {tv_h_component_template_put, NULL, ANYM, A, "cluster:admin/component_template/put", K_CLUSTER},
    {tv_h_component_template_delete, NULL, ANYM, A, "cluster:admin/component_template/delete", K_CLUSTER},
    {tv_h_repository_put, NULL, ANYM, A, "cluster:admin/repository/put", K_CLUSTER},
    {tv_h_repository_delete, NULL, ANYM, A, "cluster:admin/repository/delete", K_CLUSTER},
    {tv_h_repository_verify, NULL, ANYM, A, "cluster:admin/repository/verify", K_CLUSTER},
    {tv_h_repository_cleanup, NULL, ANYM, A, "cluster:admin/repository/_cleanup", K_CLUSTER},
    {tv_h_snapshot_create, NULL, ANYM, A, "cluster:admin/snapshot/create", K_CLUSTER},
    {tv_h_snapshot_delete, NULL, ANYM, A, "cluster:admin/snapshot/delete", K_CLUSTER},
    {tv_h_voting_exclusions_post, NULL, ANYM, A, "cluster:admin/voting_config/add_exclusions", K_CLUSTER},
    {tv_h_voting_exclusions_delete, NULL, ANYM, A, "cluster:admin/voting_config/clear_exclusions", K_CLUSTER},
    {tv_h_trove_info, NULL, ANYM, A, "cluster:admin/trove/info", K_CLUSTER},
    {tv_h_osmem_base, NULL, ANYM, A, "cluster:admin/trove/info", K_CLUSTER},
    {tv_h_trove_freeze, NULL, ANYM, A, "cluster:admin/trove/base/freeze", K_CLUSTER},
    {tv_h_trove_unfreeze, NULL, ANYM, A, "cluster:admin/trove/base/unfreeze", K_CLUSTER},
    {tv_h_trove_clone_create, NULL, ANYM, A, "cluster:admin/trove/clones/create", K_CLUSTER},
    {tv_h_trove_clone_list, NULL, ANYM, A, "cluster:admin/trove/clones/get", K_CLUSTER},
    {tv_h_trove_clone_get, NULL, ANYM, A, "cluster:admin/trove/clones/get", K_CLUSTER},
    {tv_h_trove_clone_delete, NULL, ANYM, A, "cluster:admin/trove/clones/delete", K_CLUSTER},
    {tv_h_trove_clone_delete_all, NULL, ANYM, A, "cluster:admin/trove/clones/delete", K_CLUSTER},
    {tv_h_trove_sync, NULL, ANYM, A, "cluster:admin/trove/sync/get", K_CLUSTER},

    /* APIs trove answers 400 for: named as OpenSearch names them */
    {tv_h_unsupported, "/_tasks", ANYM, R, "cluster:monitor/task/get", K_CLUSTER},
    {tv_h_ingest_get, NULL, ANYM, R, "cluster:admin/ingest/pipeline/get", K_CLUSTER},
    {tv_h_ingest_put, NULL, ANYM, A, "cluster:admin/ingest/pipeline/put", K_CLUSTER},
    {tv_h_ingest_delete, NULL, ANYM, A, "cluster:admin/ingest/pipeline/delete", K_CLUSTER},
    {tv_h_ingest_simulate, NULL, ANYM, R, "cluster:admin/ingest/pipeline/simulate", K_CLUSTER},
    {tv_h_unsupported, "/_scripts", ANYM, A, "cluster:admin/script/put", K_CLUSTER},
    {tv_h_script_put, NULL, ANYM, A, "cluster:admin/script/put", K_CLUSTER},
    {tv_h_script_get, NULL, ANYM, R, "cluster:admin/script/get", K_CLUSTER},
    {tv_h_script_delete, NULL, ANYM, A, "cluster:admin/script/delete", K_CLUSTER},
};

#undef R
#undef W
#undef A

static const rule *find_rule(const tv_route_info *ri, tv_method m) {
    for (size_t i = 0; i < TV_ARRAY_LEN(rules); i++) {
        const rule *r = &rules[i];
        if (r->h != ri->h || (r->method != ANYM && r->method != m)) continue;
        if (r->prefix && strncmp(ri->pattern, r->prefix, strlen(r->prefix)) != 0) continue;
        return r;
    }
    return NULL;
}

/* ------------------------------------------------------------- targets */

typedef struct targets {
    tv_arena *a;
    const char **v;
    size_t n, cap;
    bool cluster; /* the whole node */
    bool oom;
} targets;

static void add_name(targets *t, const char *s, size_t n) {
    if (n == 0 || s[0] == '-') return; /* empty, or an exclusion (it only narrows) */
    if (tv_streq(s, n, "_all") || tv_streq(s, n, "*")) {
        t->cluster = true;
        return;
    }
    for (size_t i = 0; i < t->n; i++)
        if (strlen(t->v[i]) == n && memcmp(t->v[i], s, n) == 0) return;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 8;
        const char **v = tv_arena_alloc(t->a, cap * sizeof *v);
        if (!v) {
            t->oom = true;
            return;
        }
        if (t->n) memcpy(v, t->v, t->n * sizeof *v);
        t->v = v;
        t->cap = cap;
    }
    char *c = tv_arena_strndup(t->a, s, n);
    if (!c) {
        t->oom = true;
        return;
    }
    t->v[t->n++] = c;
}

/* A comma-separated expression ("a,b*,-c"); returns whether it named
 * anything (an index, a pattern, or the whole node). */
static bool add_expr(targets *t, const char *s, size_t n) {
    size_t before = t->n;
    bool was = t->cluster;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && s[j] != ',') j++;
        size_t a = i, b = j;
        while (a < b && s[a] == ' ') a++;
        while (b > a && s[b - 1] == ' ') b--;
        add_name(t, s + a, b - a);
        i = j + 1;
    }
    return t->n > before || t->cluster != was;
}

/* A JSON value naming indices: a string (comma-separated) or an array of
 * strings; anything else makes the scope the whole node. */
static bool add_json_names(targets *t, const tv_json *v) {
    if (tv_json_is_string(v)) return add_expr(t, v->v.s, v->len);
    if (tv_json_is_array(v)) {
        bool any = false;
        for (uint32_t i = 0; i < v->len; i++) any |= add_json_names(t, &v->v.items[i]);
        return any;
    }
    t->cluster = true;
    return true;
}

static bool has_sub(const char *p, size_t n, const char *lit) {
    size_t m = strlen(lit);
    for (size_t i = 0; i + m <= n; i++)
        if (p[i] == lit[0] && memcmp(p + i, lit, m) == 0) return true;
    return false;
}

static void body_bulk(targets *t, const char *d, size_t len) {
    for (size_t from = 0; from < len && !t->oom;) {
        const char *nl = memchr(d + from, '\n', len - from);
        size_t end = nl ? (size_t)(nl - d) : len;
        const char *line = d + from;
        size_t n = end - from;
        from = end + 1;
        if (!has_sub(line, n, "_index") && !has_sub(line, n, "\\u")) continue;
        tv_json *v = NULL;
        tv_json_error err;
        if (tv_json_parse(t->a, line, n, &v, &err) != TROVE_OK) {
            if (err.code == TROVE_ENOMEM) t->oom = true;
            continue; /* a document line, or a broken action the handler refuses */
        }
        if (!tv_json_is_object(v)) continue;
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json *act = &v->v.members[i].val;
            if (!tv_json_is_object(act)) continue;
            for (uint32_t k = 0; k < act->len; k++)
                if (tv_streq(act->v.members[k].key, act->v.members[k].key_len, "_index"))
                    add_json_names(t, &act->v.members[k].val);
        }
    }
}

static void body_mget(targets *t, const char *d, size_t len) {
    tv_json *v = NULL;
    tv_json_error err;
    if (tv_json_parse(t->a, d, len, &v, &err) != TROVE_OK) {
        if (err.code == TROVE_ENOMEM) t->oom = true;
        t->cluster = true;
        return;
    }
    const tv_json *docs = tv_json_get(v, "docs");
    if (!tv_json_is_array(docs)) return;
    for (uint32_t i = 0; i < docs->len; i++) {
        const tv_json *doc = &docs->v.items[i];
        if (!tv_json_is_object(doc)) continue;
        for (uint32_t k = 0; k < doc->len; k++)
            if (tv_streq(doc->v.members[k].key, doc->v.members[k].key_len, "_index"))
                add_json_names(t, &doc->v.members[k].val);
    }
}

/* Lines cut as h_msearch.c cuts them (MultiSearchRequest's rules). */
static void body_msearch(targets *t, const char *d, size_t len, bool path_index) {
    size_t from = 0;
    for (;;) {
        const char *nl = from < len ? memchr(d + from, '\n', len - from) : NULL;
        if (!nl) break;
        size_t mk = (size_t)(nl - d);
        if (mk == 0) {
            from = 1;
            continue;
        }
        bool named = false;
        if (mk > from) {
            tv_json *v = NULL;
            tv_json_error err = {0};
            if (tv_json_parse(t->a, d + from, mk - from, &v, &err) != TROVE_OK || !tv_json_is_object(v)) {
                if (err.code == TROVE_ENOMEM) t->oom = true;
                t->cluster = true;
                return;
            }
            for (uint32_t k = 0; k < v->len; k++)
                if (tv_streq(v->v.members[k].key, v->v.members[k].key_len, "index") ||
                    tv_streq(v->v.members[k].key, v->v.members[k].key_len, "indices"))
                    named |= add_json_names(t, &v->v.members[k].val);
        }
        if (!named && !path_index) t->cluster = true;
        from = mk + 1;
        nl = from < len ? memchr(d + from, '\n', len - from) : NULL;
        if (!nl) break;
        from = (size_t)(nl - d) + 1;
    }
}

/* ------------------------------------------------------------ classify */

int trove_request_classify(const char *method, const char *path_and_query, const void *body, size_t body_len,
                           trove_request_class *out) {
    if (!out) return TROVE_EARG;
    memset(out, 0, sizeof *out);
    out->action = "";
    if (!method || !path_and_query || (!body && body_len)) return TROVE_EARG;
    tv_method m = TV_METHOD_COUNT;
    for (int i = 0; i < TV_METHOD_COUNT; i++)
        if (strcmp(method, tv_method_name((tv_method)i)) == 0) m = (tv_method)i;
    tv_arena a;
    tv_arena_init(&a);
    tv_route_info ri;
    int found = tv_route_find(&a, m, path_and_query, &ri);
    if (found <= 0) {
        tv_arena_fini(&a);
        return found < 0 ? TROVE_ENOMEM : TROVE_OK; /* no handler runs: TROVE_ACCESS_NONE */
    }
    const rule *r = find_rule(&ri, m);
    rule fallback = {ri.h, NULL, ANYM, TROVE_ACCESS_ADMIN,
                     ri.index ? "indices:admin/unclassified" : "cluster:admin/unclassified", K_INDEX};
    if (!r) r = &fallback;
    out->access = r->access;
    out->action = r->action;
    out->body_names_indices = r->k == K_BULK || r->k == K_MGET || r->k == K_MSEARCH;

    targets t = {.a = &a};
    bool named = ri.index && add_expr(&t, ri.index, strlen(ri.index));
    if (body && body_len) {
        if (r->k == K_BULK) body_bulk(&t, body, body_len);
        else if (r->k == K_MGET) body_mget(&t, body, body_len);
        else if (r->k == K_MSEARCH) body_msearch(&t, body, body_len, named);
    }
    if (r->k == K_CLUSTER || t.cluster) out->scope = TROVE_SCOPE_CLUSTER;
    else if (r->k == K_ANY || (r->k == K_ANY_IDX && !named)) out->scope = TROVE_SCOPE_ANY;
    else if (t.n == 0) out->scope = TROVE_SCOPE_CLUSTER;
    else out->scope = TROVE_SCOPE_INDICES;

    /* the names in one owned block: the pointers, then the strings */
    int rc = t.oom ? TROVE_ENOMEM : TROVE_OK;
    if (rc == TROVE_OK && out->scope == TROVE_SCOPE_INDICES) {
        size_t bytes = t.n * sizeof(char *);
        for (size_t i = 0; i < t.n; i++) bytes += strlen(t.v[i]) + 1;
        char **v = tv_malloc(bytes);
        if (!v) {
            rc = TROVE_ENOMEM;
        } else {
            char *p = (char *)(v + t.n);
            for (size_t i = 0; i < t.n; i++) {
                size_t l = strlen(t.v[i]) + 1;
                memcpy(p, t.v[i], l);
                v[i] = p;
                p += l;
            }
            out->indices = v;
            out->nindices = t.n;
        }
    }
    tv_arena_fini(&a);
    if (rc != TROVE_OK) {
        memset(out, 0, sizeof *out);
        out->action = "";
    }
    return rc;
}

void trove_request_class_fini(trove_request_class *c) {
    if (!c) return;
    tv_free(c->indices);
    c->indices = NULL;
    c->nindices = 0;
}
