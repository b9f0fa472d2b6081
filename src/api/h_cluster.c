/*
 * h_cluster.c — GET /_cluster/health[/{index}] and GET|PUT
 * /_cluster/settings.
 *
 * Health is computed as OpenSearch computes it on a single node: every
 * index has number_of_shards active primaries; its replicas can never be
 * assigned (a replica never shares a node with its primary), so they are
 * unassigned and the index is yellow when number_of_replicas > 0, green
 * otherwise. Closed indices are replicated since 7.2 and count like open
 * ones. The cluster status is the worst index status; a named index that
 * does not exist makes it red.
 *
 * wait_for_status and a named index that must exist are conditions: when
 * they do not hold the handler polls (every 20 ms) until they do or the
 * `timeout` (30s by default) passes, and then answers timed_out: true with
 * 408 as OpenSearch. Polling was chosen over a condition variable: index
 * creation happens in other handlers that know nothing about waiters, and a
 * waiting health request is rare. Through trove_request_nowait (the HTTP
 * server's event loops) the handler never sleeps: it answers "ask again in
 * 20 ms" and the timeout runs from the request's first ask. The other wait_for_* conditions (nodes,
 * active shards, no relocating/initializing shards, events) always hold on
 * one node.
 *
 * Cluster settings are kept in the node as two flat JSON objects
 * (persistent, transient); PUT merges the update (null or "prefix.*": null
 * removes) and echoes what it set, GET prints them nested or flat.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "api.h"

#define POLL_MS 20 /* how often a waiting request looks again */

typedef enum { H_GREEN = 0, H_YELLOW, H_RED } hstatus;
static const char *const hnames[] = {"green", "yellow", "red"};

typedef struct ihealth {
    const char *name;
    int64_t shards, replicas;
    hstatus st;
} ihealth;

typedef struct chealth {
    hstatus st;
    int64_t active_primary, active, unassigned;
    ihealth *idx;
    size_t n;
    bool missing;
} chealth;


static bool compute(tv_req *r, const tv_resolve_opts *o, chealth *h) {
    memset(h, 0, sizeof *h);
    tv_index_list l;
    if (r->p_index && *r->p_index) {
        /* as OpenSearch: a missing index is a red cluster, not an error */
        tv_resolve_opts strict = *o;
        strict.ignore_unavailable = false;
        if (!tv_node_resolve_ex(r, r->p_index, &strict, &l)) {
            if (r->oom) return false;
            h->missing = true;
            tv_resolve_opts lenient = *o;
            lenient.ignore_unavailable = true;
            lenient.allow_no_indices = true;
            if (!tv_node_resolve_ex(r, r->p_index, &lenient, &l)) return false;
        }
    } else if (!tv_node_resolve_ex(r, NULL, o, &l)) {
        return false;
    }
    h->idx = l.len ? tv_arena_calloc(&r->arena, l.len, sizeof *h->idx) : NULL;
    if (l.len && !h->idx) {
        tv_index_list_release(&l);
        return !(r->oom = true);
    }
    for (size_t i = 0; i < l.len; i++) {
        tv_index *idx = l.items[i];
        ihealth *ih = &h->idx[h->n++];
        const char *nm = tv_index_name(idx);
        ih->name = tv_arena_strndup(&r->arena, nm, strlen(nm));
        tv_index_lock(idx);
        tv_settings *s = tv_index_settings(idx);
        ih->shards = s->number_of_shards ? s->number_of_shards : 1;
        ih->replicas = s->number_of_replicas;
        tv_index_unlock(idx);
        ih->st = ih->replicas > 0 ? H_YELLOW : H_GREEN;
        if (ih->st > h->st) h->st = ih->st;
        h->active_primary += ih->shards;
        h->active += ih->shards;
        h->unassigned += ih->shards * ih->replicas;
    }
    tv_index_list_release(&l);
    if (h->missing) h->st = H_RED;
    /* an index of the data directory that was not recovered: its primary
     * is unassigned, the cluster red */
    tv_failed_index *fl;
    size_t nf = tv_durable_failed_list(r->node, &r->arena, &fl);
    for (size_t i = 0; i < nf; i++) {
        if (r->p_index && *r->p_index && !tv_simple_match(r->p_index, fl[i].name, strlen(fl[i].name))) continue;
        h->st = H_RED;
        h->unassigned += 1;
    }
    return true;
}

static void write_index_health(tv_jw *w, const ihealth *ih, bool shards) {
    tv_jw_keyz(w, ih->name);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "status");
    tv_jw_strz(w, hnames[ih->st]);
    tv_jw_keyz(w, "number_of_shards");
    tv_jw_int(w, ih->shards);
    tv_jw_keyz(w, "number_of_replicas");
    tv_jw_int(w, ih->replicas);
    tv_jw_keyz(w, "active_primary_shards");
    tv_jw_int(w, ih->shards);
    tv_jw_keyz(w, "active_shards");
    tv_jw_int(w, ih->shards);
    tv_jw_keyz(w, "relocating_shards");
    tv_jw_int(w, 0);
    tv_jw_keyz(w, "initializing_shards");
    tv_jw_int(w, 0);
    tv_jw_keyz(w, "unassigned_shards");
    tv_jw_int(w, ih->shards * ih->replicas);
    if (shards) {
        tv_jw_keyz(w, "shards");
        tv_jw_obj_begin(w);
        for (int64_t s = 0; s < ih->shards; s++) {
            char k[24];
            snprintf(k, sizeof k, "%lld", (long long)s);
            tv_jw_keyz(w, k);
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "status");
            tv_jw_strz(w, hnames[ih->st]);
            tv_jw_keyz(w, "primary_active");
            tv_jw_bool(w, true);
            tv_jw_keyz(w, "active_shards");
            tv_jw_int(w, 1);
            tv_jw_keyz(w, "relocating_shards");
            tv_jw_int(w, 0);
            tv_jw_keyz(w, "initializing_shards");
            tv_jw_int(w, 0);
            tv_jw_keyz(w, "unassigned_shards");
            tv_jw_int(w, ih->replicas);
            tv_jw_obj_end(w);
        }
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
}

static bool parse_status(tv_req *r, const char *v, int *out) {
    *out = -1;
    if (!v) return true;
    for (int i = 0; i < 3; i++)
        if (strcmp(v, hnames[i]) == 0 || (strlen(v) == strlen(hnames[i]) && strncasecmp(v, hnames[i], 6) == 0)) {
            *out = i;
            return true;
        }
    return tv_req_fail(r, TROVE_EARG, "unknown cluster health status [%s]", v);
}

void tv_h_cluster_health(tv_req *r) {
    tv_resolve_opts o = {.ignore_unavailable = true,
                         .allow_no_indices = true,
                         .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED | TV_EXPAND_HIDDEN};
    if (!tv_resolve_opts_parse(r, &o)) return;
    int want;
    if (!parse_status(r, tv_req_param(r, "wait_for_status"), &want)) return;
    bool local, human;
    if (!tv_req_param_bool(r, "local", false, &local)) return;
    if (!tv_req_param_bool(r, "human", false, &human)) return;
    const char *level = tv_req_param(r, "level");
    if (!level) level = "cluster";
    if (strcmp(level, "cluster") && strcmp(level, "indices") && strcmp(level, "shards") &&
        strcmp(level, "awareness_attributes")) {
        tv_req_fail(r, TROVE_EARG,
                    "No enum constant org.opensearch.action.admin.cluster.health.ClusterHealthRequest.Level.%s",
                    level);
        return;
    }
    const char *to = tv_req_param(r, "timeout");
    int64_t timeout = 30000;
    if (to && !tv_api_parse_time_ms(r, "timeout", to, &timeout)) return;
    if (timeout < 0) timeout = 0;
    if (!r->since_ms) r->since_ms = (int64_t)(tv_mono_ns() / 1000000u);
    int64_t deadline = r->since_ms > INT64_MAX - timeout ? INT64_MAX : r->since_ms + timeout;
    chealth h;
    bool timed_out = false;
    for (;;) {
        if (!compute(r, &o, &h)) return;
        bool ok = !h.missing && (want < 0 || (int)h.st <= want);
        if (ok) break;
        int64_t now = (int64_t)(tv_mono_ns() / 1000000u);
        if (now >= deadline) {
            timed_out = true;
            break;
        }
        int64_t nap = TV_MIN(deadline - now, (int64_t)POLL_MS);
        if (r->nowait) { /* the caller asks again later */
            r->waits = true;
            r->retry_ms = (int)nap;
            return;
        }
        struct timespec ts = {0, (long)nap * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    int64_t total = h.active + h.unassigned;
    double pct = total == 0 ? 100.0 : (double)h.active / (double)total * 100.0;
    tv_jw *w = tv_req_json(r, timed_out ? 408 : 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "cluster_name");
    tv_jw_strz(w, r->node->st->cluster_name);
    tv_jw_keyz(w, "status");
    tv_jw_strz(w, hnames[h.st]);
    tv_jw_keyz(w, "timed_out");
    tv_jw_bool(w, timed_out);
    tv_jw_keyz(w, "number_of_nodes");
    tv_jw_int(w, 1);
    tv_jw_keyz(w, "number_of_data_nodes");
    tv_jw_int(w, 1);
    tv_jw_keyz(w, "discovered_master");
    tv_jw_bool(w, true);
    tv_jw_keyz(w, "discovered_cluster_manager");
    tv_jw_bool(w, true);
    tv_jw_keyz(w, "active_primary_shards");
    tv_jw_int(w, h.active_primary);
    tv_jw_keyz(w, "active_shards");
    tv_jw_int(w, h.active);
    tv_jw_keyz(w, "relocating_shards");
    tv_jw_int(w, 0);
    tv_jw_keyz(w, "initializing_shards");
    tv_jw_int(w, 0);
    tv_jw_keyz(w, "unassigned_shards");
    tv_jw_int(w, h.unassigned);
    tv_jw_keyz(w, "delayed_unassigned_shards");
    tv_jw_int(w, 0);
    tv_jw_keyz(w, "number_of_pending_tasks");
    tv_jw_int(w, 0);
    tv_jw_keyz(w, "number_of_in_flight_fetch");
    tv_jw_int(w, 0);
    if (human) {
        tv_jw_keyz(w, "task_max_waiting_in_queue");
        tv_jw_strz(w, "0s");
    }
    tv_jw_keyz(w, "task_max_waiting_in_queue_millis");
    tv_jw_int(w, 0);
    if (human) {
        char s[64];
        snprintf(s, sizeof s, "%.1f%%", pct); /* XContentBuilder.percentageField */
        tv_jw_keyz(w, "active_shards_percent");
        tv_jw_strz(w, s);
    }
    tv_jw_keyz(w, "active_shards_percent_as_number");
    tv_jw_double(w, pct);
    if (strcmp(level, "indices") == 0 || strcmp(level, "shards") == 0) {
        tv_jw_keyz(w, "indices");
        tv_jw_obj_begin(w);
        for (size_t i = 0; i < h.n; i++) write_index_health(w, &h.idx[i], strcmp(level, "shards") == 0);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
}

/* --------------------------------------------------- cluster settings */

static const char *const known_prefixes[] = {
    "cluster.",  "indices.", "search.",   "action.",  "logger.",     "script.",     "http.",  "transport.",
    "thread_pool.", "node.", "plugins.",  "network.", "discovery.",  "gateway.",    "bootstrap.", "path.",
    "opensearch.", "ingest.", "persistent_task.", "snapshot.", "repositories.", "monitor.", "index.",
    "search_backpressure.", NULL};

/* SearchBackpressureMode.fromName: the values search_backpressure.mode
 * takes. False with the 400 set for another value. */
static bool backpressure_mode_ok(tv_req *r, const tv_kv *kv) {
    if (strcmp(kv->key, "search_backpressure.mode") != 0 || !kv->val) return true;
    const char *v = kv->val->type == TV_JSON_STRING ? kv->val->v.s : NULL;
    if (v && (strcmp(v, "disabled") == 0 || strcmp(v, "monitor_only") == 0 || strcmp(v, "enforced") == 0))
        return true;
    if (!v && kv->val->raw) v = tv_arena_strndup(&r->arena, kv->val->raw, kv->val->raw_len);
    return tv_req_fail(r, TROVE_EARG, "Invalid SearchBackpressureMode: %s", v ? v : "");
}

static bool setting_known(const char *k) {
    for (size_t i = 0; known_prefixes[i]; i++)
        if (strncmp(k, known_prefixes[i], strlen(known_prefixes[i])) == 0) return true;
    return false;
}

/* Current settings of one kind as kv (arena). Caller holds the lock. */
static bool load_kind(tv_req *r, const char *text, tv_kv **kv, size_t *n) {
    *kv = NULL;
    *n = 0;
    if (!text) return true;
    tv_json *j = NULL;
    if (tv_json_parse(&r->arena, text, strlen(text), &j, NULL) != TROVE_OK) return !(r->oom = true);
    return tv_flatten_settings(&r->arena, j, false, kv, n) || !(r->oom = true);
}

static void write_kind(tv_req *r, tv_jw *w, const char *name, const tv_kv *kv, size_t n, bool flat) {
    tv_jw_keyz(w, name);
    tv_json *j = tv_kv_to_json(&r->arena, kv, n, flat);
    if (!j) {
        r->oom = true;
        tv_jw_obj_begin(w);
        tv_jw_obj_end(w);
        return;
    }
    tv_jw_value(w, j);
}

void tv_h_cluster_settings_get(tv_req *r) {
    bool flat, defaults;
    if (!tv_req_param_bool(r, "flat_settings", false, &flat)) return;
    if (!tv_req_param_bool(r, "include_defaults", false, &defaults)) return;
    tv_kv *p, *t;
    size_t np, nt;
    pthread_rwlock_rdlock(&r->node->lock);
    bool ok = load_kind(r, r->node->st->cluster_persistent, &p, &np) && load_kind(r, r->node->st->cluster_transient, &t, &nt);
    pthread_rwlock_unlock(&r->node->lock);
    if (!ok) return;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    write_kind(r, w, "persistent", p, np, flat);
    write_kind(r, w, "transient", t, nt, flat);
    if (defaults) {
        /* the defaults of what neither kind sets */
        tv_kv *d;
        size_t nd = tv_api_node_settings(r, true, &d), k = 0;
        for (size_t i = 0; i < nd; i++) {
            bool set = false;
            for (size_t j = 0; j < np && !set; j++) set = strcmp(p[j].key, d[i].key) == 0;
            for (size_t j = 0; j < nt && !set; j++) set = strcmp(t[j].key, d[i].key) == 0;
            if (!set) d[k++] = d[i];
        }
        write_kind(r, w, "defaults", d, k, flat);
    }
    tv_jw_obj_end(w);
}

/* Applies updates to cur (kv) into a new list; null removes, "x.*": null
 * removes every key under x. */
static bool apply_updates(tv_req *r, const tv_kv *cur, size_t ncur, const tv_kv *up, size_t nup, tv_kv **out,
                          size_t *nout) {
    tv_kv *res = tv_arena_calloc(&r->arena, ncur + nup + 1, sizeof *res);
    if (!res) return !(r->oom = true);
    size_t n = 0;
    for (size_t i = 0; i < ncur; i++) {
        bool drop = false;
        for (size_t j = 0; j < nup && !drop; j++) {
            if (strcmp(up[j].key, cur[i].key) == 0) drop = true;
            if (!up[j].val && strchr(up[j].key, '*') && tv_simple_match(up[j].key, cur[i].key, strlen(cur[i].key)))
                drop = true;
        }
        if (!drop) res[n++] = cur[i];
    }
    for (size_t j = 0; j < nup; j++)
        if (up[j].val) res[n++] = up[j];
    /* sort */
    for (size_t i = 1; i < n; i++) {
        tv_kv x = res[i];
        size_t k = i;
        while (k > 0 && strcmp(res[k - 1].key, x.key) > 0) {
            res[k] = res[k - 1];
            k--;
        }
        res[k] = x;
    }
    *out = res;
    *nout = n;
    return true;
}

static char *kv_text(tv_req *r, const tv_kv *kv, size_t n) {
    if (n == 0) return NULL;
    tv_json *j = tv_kv_to_json(&r->arena, kv, n, true);
    if (!j) {
        r->oom = true;
        return NULL;
    }
    char *s = tv_json_compact(j);
    if (!s) r->oom = true;
    return s;
}

void tv_h_cluster_settings_put(tv_req *r) {
    bool flat;
    if (!tv_req_param_bool(r, "flat_settings", false, &flat)) return;
    if (!r->body_len) {
        tv_req_fail(r, TROVE_EPARSEEXC, "request body is required");
        return;
    }
    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body) return;
    if (body->type != TV_JSON_OBJECT) {
        tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
        return;
    }
    const tv_json *pj = NULL, *tj = NULL;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (strcmp(m->key, "persistent") == 0)
            pj = &m->val;
        else if (strcmp(m->key, "transient") == 0)
            tj = &m->val;
        else {
            tv_req_fail(r, TROVE_EARG,
                        "[cluster_update_settings_request] unknown field [%s]", m->key);
            return;
        }
    }
    tv_kv *pu, *tu;
    size_t npu, ntu;
    if (!tv_flatten_settings(&r->arena, pj, false, &pu, &npu) ||
        !tv_flatten_settings(&r->arena, tj, false, &tu, &ntu)) {
        r->oom = true;
        return;
    }
    if (npu + ntu == 0) {
        tv_req_fail(r, TROVE_EVALIDATION,
                    "Validation Failed: 1: no settings to update;");
        return;
    }
    for (int kind = 0; kind < 2; kind++) {
        const tv_kv *u = kind ? tu : pu;
        size_t n = kind ? ntu : npu;
        for (size_t i = 0; i < n; i++)
            if (!setting_known(u[i].key) && !(u[i].val == NULL && strchr(u[i].key, '*'))) {
                tv_req_fail(r, TROVE_EARG, "%s setting [%s], not recognized",
                            kind ? "transient" : "persistent", u[i].key);
                return;
            } else if (!tv_api_breaker_setting_check(r, u[i].key, u[i].val) || !backpressure_mode_ok(r, &u[i])) {
                return;
            }
    }
    pthread_rwlock_wrlock(&r->node->lock);
    tv_kv *pc, *tc, *pn, *tn;
    size_t npc, ntc, npn, ntn;
    bool ok = load_kind(r, r->node->st->cluster_persistent, &pc, &npc) && load_kind(r, r->node->st->cluster_transient, &tc, &ntc) &&
              apply_updates(r, pc, npc, pu, npu, &pn, &npn) && apply_updates(r, tc, ntc, tu, ntu, &tn, &ntn);
    if (ok) {
        char *ps = kv_text(r, pn, npn), *ts = kv_text(r, tn, ntn);
        if (r->oom) {
            tv_free(ps);
            tv_free(ts);
        } else {
            tv_free(r->node->st->cluster_persistent);
            tv_free(r->node->st->cluster_transient);
            r->node->st->cluster_persistent = ps;
            r->node->st->cluster_transient = ts;
        }
    }
    pthread_rwlock_unlock(&r->node->lock);
    if (r->oom) return;
    tv_api_breakers_apply(r->node);
    /* echo what was set (removals are not shown) */
    size_t k = 0;
    for (size_t i = 0; i < npu; i++)
        if (pu[i].val) pu[k++] = pu[i];
    npu = k;
    k = 0;
    for (size_t i = 0; i < ntu; i++)
        if (tu[i].val) tu[k++] = tu[i];
    ntu = k;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "acknowledged");
    tv_jw_bool(w, true);
    write_kind(r, w, "persistent", pu, npu, flat);
    write_kind(r, w, "transient", tu, ntu, flat);
    tv_jw_obj_end(w);
}
