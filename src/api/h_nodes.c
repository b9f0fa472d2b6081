/*
 * h_nodes.c — GET /_nodes/stats/breaker (and /_nodes/{node_id}/stats/
 * breaker), and the circuit breakers' limits from the cluster settings.
 *
 * The breakers themselves are util/breaker.c; a node and its clones share
 * one set (tv_node_breakers), as one OpenSearch process has one
 * HierarchyCircuitBreakerService. trove_request reserves every request's
 * body on in_flight_requests and its arena's blocks on request, and
 * answers 429 circuit_breaking_exception when one refuses (node.c).
 *
 * Settings. indices.breaker.request.limit / .overhead,
 * indices.breaker.fielddata.limit / .overhead,
 * network.breaker.inflight_requests.limit / .overhead,
 * indices.breaker.accounting.limit / .overhead and
 * indices.breaker.total.limit are dynamic cluster settings: a limit is a
 * memory size or a percentage of the node's heap budget
 * (trove_options.heap_bytes). A value that does not parse is refused as
 * OpenSearch's settings updater refuses it ("illegal value can't update
 * [key] from [old] to [new]", caused by the parse failure), before
 * anything is stored (tv_api_breaker_setting_check); after a successful
 * update the limits are recomputed (tv_api_breakers_apply), transient
 * over persistent over the defaults.
 *
 * Stats. Only the breaker section of _nodes/stats is produced: a metric
 * list naming anything else answers 400 naming what trove does not
 * report, rather than a response missing sections. The node's envelope is
 * NodeStats': timestamp, name, transport_address, host, ip, roles,
 * attributes, then "breakers" with each child in OpenSearch's HashMap
 * order and the parent last (CircuitBreakerStats: limit_size_in_bytes,
 * limit_size, estimated_size_in_bytes, estimated_size, overhead, tripped).
 * fielddata and accounting never hold anything here: trove has no
 * fielddata and does not account segment memory on a breaker.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

typedef struct bsetting {
    const char *limit_key, *overhead_key;
    tv_breaker_kind kind;
    const char *def; /* default limit text */
} bsetting;

static const bsetting settings[] = {
    {"indices.breaker.request.limit", "indices.breaker.request.overhead", TV_BREAKER_REQUEST, "60%"},
    {"indices.breaker.fielddata.limit", "indices.breaker.fielddata.overhead", TV_BREAKER_FIELDDATA, "40%"},
    {"network.breaker.inflight_requests.limit", "network.breaker.inflight_requests.overhead", TV_BREAKER_IN_FLIGHT,
     "100%"},
    {"indices.breaker.accounting.limit", "indices.breaker.accounting.overhead", TV_BREAKER_ACCOUNTING, "100%"},
    {"indices.breaker.total.limit", NULL, TV_BREAKER_PARENT, "95%"},
};
static const double def_overheads[] = {1.0, 1.03, 2.0, 1.0, 1.0};

/* A setting's text from flat settings JSON (NULL: unset). */
static const char *setting_text(tv_arena *a, const char *flat, const char *key) {
    if (!flat) return NULL;
    tv_json *j = NULL;
    if (tv_json_parse(a, flat, strlen(flat), &j, NULL) != TROVE_OK || !j) return NULL;
    const tv_json *v = tv_json_get(j, key);
    if (!v || v->type == TV_JSON_NULL) return NULL;
    if (v->type == TV_JSON_STRING) return v->v.s;
    if (v->raw) return tv_arena_strndup(a, v->raw, v->raw_len);
    return NULL;
}

bool tv_api_breaker_setting_check(tv_req *r, const char *key, const tv_json *jv) {
    if (!jv || jv->type == TV_JSON_NULL) return true;
    const char *val = jv->type == TV_JSON_STRING ? jv->v.s
                      : jv->raw                 ? tv_arena_strndup(&r->arena, jv->raw, jv->raw_len)
                      : jv->type == TV_JSON_TRUE ? "true"
                                                 : "false";
    if (!val) return !(r->oom = true);
    for (size_t i = 0; i < TV_ARRAY_LEN(settings); i++) {
        const bsetting *s = &settings[i];
        bool is_limit = strcmp(key, s->limit_key) == 0, is_over = s->overhead_key && strcmp(key, s->overhead_key) == 0;
        if (!is_limit && !is_over) continue;
        int64_t b;
        double d = 0;
        bool ok = is_limit ? tv_parse_memory_size(val, strlen(val), r->node->brk->b.heap, &b)
                           : tv_java_double_syntax(val, strlen(val)) && (d = strtod(val, NULL)) >= 0;
        if (ok) return true;
        /* "from": the value in force (transient over persistent), else the
         * default as OpenSearch prints it */
        const char *old = setting_text(&r->arena, r->node->st->cluster_transient, key);
        if (!old) old = setting_text(&r->arena, r->node->st->cluster_persistent, key);
        char oldbuf[32];
        if (!old && is_limit) old = s->def;
        if (!old) {
            tv_fmt_double(def_overheads[s->kind], oldbuf);
            old = oldbuf;
        }
        tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e), *c = tv_arena_calloc(&r->arena, 1, sizeof *c);
        if (!e || !c) return !(r->oom = true);
        e->type = TROVE_EARG;
        e->status = 400;
        e->reason = tv_arena_sprintf(&r->arena, "illegal value can't update [%s] from [%s] to [%s]", key, old, val);
        c->type = is_limit ? TROVE_EPARSEEXC : TROVE_EARG;
        c->status = 400;
        c->reason = is_limit ? tv_arena_sprintf(&r->arena,
                                                "failed to parse setting [%s] with value [%s] as a size in bytes: unit "
                                                "is missing or unrecognized",
                                                key, val)
                             : tv_arena_sprintf(&r->arena, "Failed to parse value [%s] for setting [%s] must be >= 0.0",
                                                val, key);
        e->cause = c;
        tv_req_error(r, e);
        return false;
    }
    return true;
}

void tv_api_breakers_apply(trove_node *n) {
    tv_arena a;
    tv_arena_init(&a);
    pthread_rwlock_rdlock(&n->lock);
    const char *kinds[2] = {n->st->cluster_transient, n->st->cluster_persistent};
    tv_breakers *b = &n->brk->b;
    for (size_t i = 0; i < TV_ARRAY_LEN(settings); i++) {
        const bsetting *s = &settings[i];
        const char *lim = NULL, *over = NULL;
        for (int k = 0; k < 2; k++) {
            if (!lim) lim = setting_text(&a, kinds[k], s->limit_key);
            if (!over && s->overhead_key) over = setting_text(&a, kinds[k], s->overhead_key);
        }
        int64_t bytes;
        if (!lim || !tv_parse_memory_size(lim, strlen(lim), b->heap, &bytes))
            tv_parse_memory_size(s->def, strlen(s->def), b->heap, &bytes);
        atomic_store(&b->b[s->kind].limit, bytes);
        double o = over && tv_java_double_syntax(over, strlen(over)) ? strtod(over, NULL) : def_overheads[s->kind];
        b->b[s->kind].overhead = o >= 0 ? o : def_overheads[s->kind];
    }
    pthread_rwlock_unlock(&n->lock);
    tv_arena_fini(&a);
}

/* ------------------------------------------------------------------ stats */

/* Does node_id (a comma-separated list of ids, names, _local, _all, *,
 * _cluster_manager/_master, or a pattern) select this node? */
bool tv_api_node_selects(tv_req *r, const char *ids) {
    if (!ids) return true;
    const char *name = r->node->st->node_name;
    for (const char *p = ids; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (tv_streq(p, l, "_local") || tv_streq(p, l, "_all") || tv_streq(p, l, "_master") ||
            tv_streq(p, l, "_cluster_manager") || tv_streq(p, l, r->node->node_id) ||
            tv_glob_match(p, l, name, strlen(name)) || tv_glob_match(p, l, r->node->node_id, strlen(r->node->node_id)))
            return true;
        p = e ? e + 1 : p + l;
    }
    return false;
}

void tv_api_node_head(tv_req *r, tv_jw *w) {
    tv_jw_keyz(w, "name");
    tv_jw_strz(w, r->node->st->node_name);
    tv_jw_keyz(w, "transport_address");
    tv_jw_strz(w, "127.0.0.1:9300");
    tv_jw_keyz(w, "host");
    tv_jw_strz(w, "127.0.0.1");
    tv_jw_keyz(w, "ip");
    tv_jw_strz(w, "127.0.0.1:9300");
    tv_jw_keyz(w, "roles");
    tv_jw_arr_begin(w);
    static const char *const roles[] = {"cluster_manager", "data", "ingest", "remote_cluster_client"};
    for (size_t i = 0; i < TV_ARRAY_LEN(roles); i++) tv_jw_strz(w, roles[i]);
    tv_jw_arr_end(w);
    tv_jw_keyz(w, "attributes");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "shard_indexing_pressure_enabled");
    tv_jw_strz(w, "true");
    tv_jw_obj_end(w);
}

static void write_breaker(tv_jw *w, tv_breakers *b, tv_breaker_kind k) {
    char s[32];
    int64_t limit = atomic_load(&b->b[k].limit);
    /* children: the bytes reserved (ChildMemoryCircuitBreaker.getUsed);
     * parent: its usage as it checks it */
    int64_t est = k == TV_BREAKER_PARENT ? tv_breaker_estimate(b, k) : atomic_load(&b->b[k].used);
    tv_jw_keyz(w, tv_breaker_name(k));
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "limit_size_in_bytes");
    tv_jw_int(w, limit);
    tv_jw_keyz(w, "limit_size");
    tv_java_byte_size(limit, s, sizeof s);
    tv_jw_strz(w, s);
    tv_jw_keyz(w, "estimated_size_in_bytes");
    tv_jw_int(w, est);
    tv_jw_keyz(w, "estimated_size");
    tv_java_byte_size(est, s, sizeof s);
    tv_jw_strz(w, s);
    tv_jw_keyz(w, "overhead");
    tv_jw_double(w, k == TV_BREAKER_PARENT ? 1.0 : b->b[k].overhead);
    tv_jw_keyz(w, "tripped");
    tv_jw_int(w, atomic_load(&b->b[k].tripped));
    tv_jw_obj_end(w);
}

static void nodes_stats(tv_req *r, const char *ids, const char *metrics) {
    /* the metrics asked for: only breaker is produced */
    if (!metrics || !*metrics || strcmp(metrics, "_all") == 0)
        return (void)tv_req_fail(r, TROVE_EUNSUPPORTED,
                                 "trove reports only the [breaker] metric of _nodes/stats (ask for "
                                 "/_nodes/stats/breaker)");
    for (const char *p = metrics; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (!tv_streq(p, l, "breaker"))
            return (void)tv_req_fail(r, TROVE_EUNSUPPORTED,
                                     "trove does not report the [%.*s] metric of _nodes/stats (only [breaker])", (int)l,
                                     p);
        p = e ? e + 1 : p + l;
    }
    bool one = tv_api_node_selects(r, ids);
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "_nodes");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "total");
    tv_jw_int(w, one);
    tv_jw_keyz(w, "successful");
    tv_jw_int(w, one);
    tv_jw_keyz(w, "failed");
    tv_jw_int(w, 0);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "cluster_name");
    tv_jw_strz(w, r->node->st->cluster_name);
    tv_jw_keyz(w, "nodes");
    tv_jw_obj_begin(w);
    if (one) {
        tv_jw_keyz(w, r->node->node_id);
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "timestamp");
        tv_jw_int(w, tv_now_ms());
        tv_api_node_head(r, w);
        tv_jw_keyz(w, "breakers");
        tv_jw_obj_begin(w);
        static const tv_breaker_kind order[] = {TV_BREAKER_REQUEST, TV_BREAKER_FIELDDATA, TV_BREAKER_IN_FLIGHT,
                                                TV_BREAKER_ACCOUNTING, TV_BREAKER_PARENT};
        for (size_t i = 0; i < TV_ARRAY_LEN(order); i++) write_breaker(w, &r->node->brk->b, order[i]);
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

/* GET /_nodes/stats[/{metric}] */
void tv_h_nodes_stats(tv_req *r) { nodes_stats(r, NULL, r->p_name); }
/* GET /_nodes/{node_id}/stats[/{metric}] */
void tv_h_nodes_stats_node(tv_req *r) { nodes_stats(r, r->p_name, r->p_name2); }
