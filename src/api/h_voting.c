/*
 * h_voting.c — POST and DELETE /_cluster/voting_config_exclusions.
 *
 * OpenSearch keeps a list of nodes excluded from the cluster manager
 * election's voting configuration in the cluster state's coordination
 * metadata (metadata.cluster_coordination.voting_config_exclusions), so an
 * operator can take cluster-manager-eligible nodes away safely. A node
 * named that is not in the cluster is still added, with "_absent_" for
 * the half that is not known (its name for an id, its id for a name); the
 * list holds at most cluster.max_voting_config_exclusions (10) entries.
 *
 * trove is one node. Excluding an absent node is bookkeeping and behaves
 * as OpenSearch's does. Excluding trove's own node would, on OpenSearch's
 * single node, wait for a reconfiguration that can never happen and time
 * out; trove refuses it at once (unsupported_operation_exception) rather
 * than hold the request for the timeout.
 *
 * The list lives in the node state as a compact JSON array (like the
 * cluster settings), so clones copy it and the data directory keeps it.
 * Both answers are 200 with an empty body, as OpenSearch's responses
 * write no content.
 */
#include <string.h>

#include "api.h"

#define MAX_EXCLUSIONS 10 /* cluster.max_voting_config_exclusions' default */

typedef struct excl {
    const char *id, *name;
} excl;

/* The node's current exclusions (arena). Caller holds the node lock. */
static bool load(tv_req *r, excl **out, size_t *n) {
    *out = NULL;
    *n = 0;
    const char *text = r->node->st->voting_exclusions;
    if (!text) return true;
    tv_json *j = NULL;
    if (tv_json_parse(&r->arena, text, strlen(text), &j, NULL) != TROVE_OK || j->type != TV_JSON_ARRAY)
        return !(r->oom = true);
    *out = tv_arena_alloc(&r->arena, (j->len ? j->len : 1) * sizeof **out);
    if (!*out) return !(r->oom = true);
    for (uint32_t i = 0; i < j->len; i++) {
        const tv_json *id = tv_json_get(&j->v.items[i], "node_id");
        const tv_json *nm = tv_json_get(&j->v.items[i], "node_name");
        if (!tv_json_is_string(id) || !tv_json_is_string(nm)) continue;
        (*out)[(*n)++] = (excl){id->v.s, nm->v.s};
    }
    return true;
}

/* The list as the compact JSON text the state keeps (owned), NULL out of memory. */
static char *store_text(const excl *e, size_t n) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_arr_begin(&w);
    for (size_t i = 0; i < n; i++) {
        tv_jw_obj_begin(&w);
        tv_jw_keyz(&w, "node_id");
        tv_jw_strz(&w, e[i].id);
        tv_jw_keyz(&w, "node_name");
        tv_jw_strz(&w, e[i].name);
        tv_jw_obj_end(&w);
    }
    tv_jw_arr_end(&w);
    char *s = b.oom ? NULL : tv_strndup((const char *)b.data, b.len);
    tv_buf_fini(&b);
    return s;
}

static bool has_text(const char *s) { return s && *s; }

void tv_h_voting_exclusions_post(tv_req *r) {
    const char *ids = tv_req_param(r, "node_ids"), *names = tv_req_param(r, "node_names");
    if (has_text(ids) == has_text(names)) {
        tv_req_fail(r, TROVE_EARG,
                    "Please set node identifiers correctly. One and only one of [node_name], [node_names] and "
                    "[node_ids] has to be set");
        return;
    }
    const char *timeout = tv_req_param(r, "timeout");
    int64_t ms;
    if (timeout && !tv_api_parse_time_ms(r, "timeout", timeout, &ms)) return;
    bool by_id = has_text(ids);
    const char **want;
    size_t nwant = tv_split_commas(&r->arena, by_id ? ids : names, &want);
    if (!want) {
        r->oom = true;
        return;
    }
    const char *self = by_id ? r->node->node_id : r->node->st->node_name;
    for (size_t i = 0; i < nwant; i++)
        if (self && strcmp(want[i], self) == 0) {
            tv_req_fail(r, TROVE_EUNSUPPORTED,
                        "trove is a single node: excluding its own node [%s] from the voting configuration "
                        "could never take effect",
                        want[i]);
            return;
        }
    bool ok = false;
    pthread_rwlock_wrlock(&r->node->lock);
    excl *cur;
    size_t ncur;
    if (!load(r, &cur, &ncur)) goto out;
    excl *all = tv_arena_alloc(&r->arena, (ncur + nwant + 1) * sizeof *all);
    if (!all) {
        r->oom = true;
        goto out;
    }
    if (ncur) memcpy(all, cur, ncur * sizeof *cur);
    size_t n = ncur;
    for (size_t i = 0; i < nwant; i++) {
        excl e = by_id ? (excl){want[i], "_absent_"} : (excl){"_absent_", want[i]};
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++)
            dup = strcmp(all[k].id, e.id) == 0 && strcmp(all[k].name, e.name) == 0;
        if (!dup) all[n++] = e;
    }
    if (n > MAX_EXCLUSIONS) {
        tv_buf lb;
        tv_buf_init(&lb);
        for (size_t i = 0; i < nwant; i++) tv_buf_printf(&lb, "%s%s", i ? ", " : "", want[i]);
        tv_req_fail(r, TROVE_EARG,
                    "add voting config exclusions request for nodes %s [%.*s] would add [%zu] exclusions to the "
                    "existing [%zu] which would exceed the maximum of [%d] set by "
                    "[cluster.max_voting_config_exclusions]",
                    by_id ? "with ids" : "named", (int)lb.len, lb.data ? (const char *)lb.data : "", n - ncur, ncur,
                    MAX_EXCLUSIONS);
        tv_buf_fini(&lb);
        goto out;
    }
    char *text = store_text(all, n);
    if (!text) {
        r->oom = true;
        goto out;
    }
    tv_free(r->node->st->voting_exclusions);
    r->node->st->voting_exclusions = text;
    ok = true;
out:
    pthread_rwlock_unlock(&r->node->lock);
    if (ok) tv_req_empty(r, 200);
}

void tv_h_voting_exclusions_delete(tv_req *r) {
    bool wait;
    if (!tv_req_param_bool(r, "wait_for_removal", true, &wait)) return;
    /* the node itself is never excluded (see above): no excluded node is
     * in the cluster, so there is nothing to wait for */
    pthread_rwlock_wrlock(&r->node->lock);
    tv_free(r->node->st->voting_exclusions);
    r->node->st->voting_exclusions = NULL;
    pthread_rwlock_unlock(&r->node->lock);
    tv_req_empty(r, 200);
}

/* metadata.cluster_coordination.voting_config_exclusions: the list (for
 * _cluster/state). Caller holds the node lock. */
void tv_voting_exclusions_write(tv_req *r, tv_jw *w) {
    excl *cur;
    size_t n;
    tv_jw_arr_begin(w);
    if (load(r, &cur, &n))
        for (size_t i = 0; i < n; i++) {
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "node_id");
            tv_jw_strz(w, cur[i].id);
            tv_jw_keyz(w, "node_name");
            tv_jw_strz(w, cur[i].name);
            tv_jw_obj_end(w);
        }
    tv_jw_arr_end(w);
}
