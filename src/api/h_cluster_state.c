/*
 * h_cluster_state.c — GET /_cluster/state[/{metric}[/{index}]], the voting
 * configuration exclusions (POST/DELETE /_cluster/voting_config_exclusions),
 * GET /_cluster/pending_tasks and GET /_remote/info.
 *
 * The cluster state is the one-node cluster trove is, written as
 * ClusterState.toXContent writes it: cluster_name, then cluster_uuid
 * always, then per metric asked (`_all` or none: every one; unknown names
 * are ignored, as RestClusterStateAction parses them leniently) version +
 * state_uuid, master_node, cluster_manager_node, blocks, nodes, metadata,
 * routing_table, routing_nodes. Blocks are the index blocks OpenSearch
 * derives from index.blocks.* settings and closed indices (ids and texts
 * of IndexMetadata's blocks). The metadata holds cluster_coordination (one
 * voting node: this one), legacy templates, the indices (state, settings,
 * mappings under "_doc", alias names, primary terms, in-sync allocations),
 * and the component and composable templates and repositories as metadata
 * customs. The routing table has number_of_shards started primaries on
 * this node per index and its replicas unassigned (INDEX_CREATED), as a
 * single node shows them. An {index} expression filters metadata indices
 * and the routing table (lenient: missing names are skipped) and, as
 * TransportClusterStateAction, leaves templates and customs out.
 *
 * Version: the node state's version (tv_node_state.version), raised by the
 * router after every request that changed metadata; state_uuid is derived
 * from the cluster uuid and that version, so it changes exactly when the
 * version does. Allocation ids are derived from index uuid and shard.
 *
 * Voting configuration exclusions are kept in the node state as JSON (for
 * a single node they only show in the cluster state; OpenSearch would wait
 * for the excluded node to leave the voting configuration, which an
 * unknown id or name never is in, so it adds "_absent_" entries as here).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "api.h"

enum {
    M_VERSION = 1 << 0,
    M_MASTER = 1 << 1,
    M_CM = 1 << 2,
    M_BLOCKS = 1 << 3,
    M_NODES = 1 << 4,
    M_METADATA = 1 << 5,
    M_ROUTING_TABLE = 1 << 6,
    M_ROUTING_NODES = 1 << 7,
    M_CUSTOMS = 1 << 8,
    M_ALL = (1 << 9) - 1
};

static unsigned parse_metrics(tv_req *r, const char *s) {
    if (!s || !*s) return M_ALL;
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"version", M_VERSION},          {"master_node", M_MASTER},       {"cluster_manager_node", M_CM},
                 {"blocks", M_BLOCKS},            {"nodes", M_NODES},              {"metadata", M_METADATA},
                 {"routing_table", M_ROUTING_TABLE}, {"routing_nodes", M_ROUTING_NODES}, {"customs", M_CUSTOMS}};
    const char **parts = NULL;
    size_t n = tv_split_commas(&r->arena, s, &parts);
    unsigned m = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(parts[i], "_all") == 0) return M_ALL;
        for (size_t k = 0; k < TV_ARRAY_LEN(names); k++)
            if (strcmp(parts[i], names[k].name) == 0) m |= names[k].bit;
    }
    return m;
}

/* state_uuid: 22 URL-safe base64 chars from a hash of (cluster uuid, version). */
void tv_api_state_uuid(trove_node *n, char out[24]) {
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char seed[64];
    int len = snprintf(seed, sizeof seed, "%s/%lld", n->st->cluster_uuid, (long long)n->st->version);
    uint64_t h1 = tv_hash(seed, (size_t)len), h2 = tv_hash(&h1, sizeof h1);
    for (int i = 0; i < 22; i++) {
        uint64_t *h = i < 11 ? &h1 : &h2;
        out[i] = b64[*h & 63];
        *h >>= 6;
    }
    out[22] = '\0';
}

/* An allocation id of a started shard copy, stable for (index uuid, shard). */
void tv_api_allocation_id(tv_index *idx, int shard, char out[24]) {
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char seed[80];
    int len = snprintf(seed, sizeof seed, "%s/%d/alloc", tv_index_uuid(idx), shard);
    uint64_t h1 = tv_hash(seed, (size_t)len), h2 = tv_hash(&h1, sizeof h1);
    for (int i = 0; i < 22; i++) {
        uint64_t *h = i < 11 ? &h1 : &h2;
        out[i] = b64[*h & 63];
        *h >>= 6;
    }
    out[22] = '\0';
}

typedef struct iblock {
    const char *setting;
    int id;
    const char *desc;
    bool retryable;
    const char *levels[2];
} iblock;

/* IndexMetadata's API blocks, in id order. */
static const iblock iblocks[] = {
    {"index.blocks.read_only", 5, "index read-only (api)", false, {"write", "metadata_write"}},
    {"index.blocks.read", 7, "index read (api)", false, {"read", NULL}},
    {"index.blocks.write", 8, "index write (api)", false, {"write", NULL}},
    {"index.blocks.metadata", 9, "index metadata (api)", false, {"metadata_read", "metadata_write"}},
    {"index.blocks.read_only_allow_delete", 12,
     "disk usage exceeded flood-stage watermark, index has read-only-allow-delete block", true,
     {"write", "metadata_write"}},
};

static void write_block(tv_jw *w, int id, const char *desc, bool retryable, const char *const *levels, size_t nl) {
    char k[16];
    snprintf(k, sizeof k, "%d", id);
    tv_jw_keyz(w, k);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "description");
    tv_jw_strz(w, desc);
    tv_jw_keyz(w, "retryable");
    tv_jw_bool(w, retryable);
    tv_jw_keyz(w, "levels");
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < nl; i++)
        if (levels[i]) tv_jw_strz(w, levels[i]);
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
}

/* Does the index carry any block? Writes them when w is set. */
static size_t index_blocks(trove_node *n, tv_index *idx, tv_jw *w) {
    size_t k = 0;
    bool closed = tv_node_is_closed(n, tv_index_name(idx));
    if (closed) {
        static const char *const lv[] = {"read", "write"};
        if (w) write_block(w, 4, "index closed", false, lv, 2);
        k++;
    }
    tv_index_lock(idx);
    tv_settings *s = tv_index_settings(idx);
    bool on[TV_ARRAY_LEN(iblocks)];
    for (size_t i = 0; i < TV_ARRAY_LEN(iblocks); i++) on[i] = tv_settings_bool(s, iblocks[i].setting, false);
    tv_index_unlock(idx);
    for (size_t i = 0; i < TV_ARRAY_LEN(iblocks); i++) {
        if (!on[i]) continue;
        if (w) write_block(w, iblocks[i].id, iblocks[i].desc, iblocks[i].retryable, iblocks[i].levels, 2);
        k++;
    }
    return k;
}

static void write_blocks(tv_req *r, tv_jw *w, const tv_index_list *all) {
    tv_jw_keyz(w, "blocks");
    tv_jw_obj_begin(w);
    bool any = false;
    for (size_t i = 0; i < all->len; i++)
        if (index_blocks(r->node, all->items[i], NULL)) any = true;
    if (any) {
        tv_jw_keyz(w, "indices");
        tv_jw_obj_begin(w);
        for (size_t i = 0; i < all->len; i++) {
            if (!index_blocks(r->node, all->items[i], NULL)) continue;
            tv_jw_keyz(w, tv_index_name(all->items[i]));
            tv_jw_obj_begin(w);
            index_blocks(r->node, all->items[i], w);
            tv_jw_obj_end(w);
        }
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
}

static void write_nodes(tv_req *r, tv_jw *w) {
    tv_jw_keyz(w, "nodes");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, r->node->node_id);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "name");
    tv_jw_strz(w, r->node->st->node_name);
    tv_jw_keyz(w, "ephemeral_id");
    char eph[24];
    tv_api_node_ephemeral_id(r->node, eph);
    tv_jw_strz(w, eph);
    tv_jw_keyz(w, "transport_address");
    tv_jw_strz(w, TV_API_TRANSPORT_ADDRESS);
    tv_jw_keyz(w, "attributes");
    tv_api_write_node_attributes(r, w);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

static void write_voting_exclusions(tv_req *r, tv_jw *w) {
    tv_jw_keyz(w, "voting_config_exclusions");
    const char *v = r->node->st->voting_exclusions;
    if (v)
        tv_jw_raw(w, v, strlen(v));
    else {
        tv_jw_arr_begin(w);
        tv_jw_arr_end(w);
    }
}

static void write_index_metadata(tv_req *r, tv_jw *w, tv_index *idx, bool flat) {
    const char *name = tv_index_name(idx);
    int64_t shards, replicas;
    tv_index_lock(idx);
    tv_settings *s = tv_index_settings(idx);
    shards = s->number_of_shards ? s->number_of_shards : 1;
    replicas = s->number_of_replicas;
    tv_index_unlock(idx);
    tv_shard_route rt;
    tv_shard_route_of(idx, &rt);
    tv_jw_keyz(w, name);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "version");
    tv_jw_int(w, 1);
    tv_jw_keyz(w, "mapping_version");
    tv_jw_int(w, 1);
    tv_jw_keyz(w, "settings_version");
    tv_jw_int(w, 1);
    tv_jw_keyz(w, "aliases_version");
    tv_jw_int(w, 1);
    tv_jw_keyz(w, "routing_num_shards");
    tv_jw_int(w, rt.routing_num_shards);
    tv_jw_keyz(w, "state");
    tv_jw_strz(w, tv_node_is_closed(r->node, name) ? "close" : "open");
    tv_jw_keyz(w, "settings");
    tv_index_lock(idx);
    tv_settings_write(tv_index_settings(idx), w, flat);
    tv_index_unlock(idx);
    tv_jw_keyz(w, "mappings");
    tv_jw_obj_begin(w);
    const tv_mapping *m = tv_index_mapping(idx);
    if (m) {
        tv_buf mb;
        tv_buf_init(&mb);
        tv_jw mw;
        tv_jw_init(&mw, &mb, false);
        tv_mapping_write(m, &mw);
        tv_mapping_release(m);
        /* an empty mapping is left out, as MappingMetadata is absent then */
        if (!mb.oom && !(mb.len == 2 && memcmp(mb.data, "{}", 2) == 0)) {
            tv_jw_keyz(w, "_doc");
            tv_jw_raw(w, mb.data, mb.len);
        }
        if (mb.oom) r->oom = true;
        tv_buf_fini(&mb);
    } else {
        r->oom = true;
    }
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "aliases");
    tv_jw_arr_begin(w);
    pthread_rwlock_rdlock(&r->node->lock);
    for (size_t i = 0; i < r->node->st->naliases; i++)
        if (strcmp(r->node->st->aliases[i].index, name) == 0) tv_jw_strz(w, r->node->st->aliases[i].alias);
    pthread_rwlock_unlock(&r->node->lock);
    tv_jw_arr_end(w);
    tv_jw_keyz(w, "primary_terms");
    tv_jw_obj_begin(w);
    char k[16];
    for (int64_t i = 0; i < shards; i++) {
        snprintf(k, sizeof k, "%lld", (long long)i);
        tv_jw_keyz(w, k);
        tv_jw_int(w, 1);
    }
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "in_sync_allocations");
    tv_jw_obj_begin(w);
    for (int64_t i = 0; i < shards; i++) {
        snprintf(k, sizeof k, "%lld", (long long)i);
        tv_jw_keyz(w, k);
        tv_jw_arr_begin(w);
        char aid[24];
        tv_api_allocation_id(idx, (int)i, aid);
        tv_jw_strz(w, aid);
        tv_jw_arr_end(w);
    }
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "rollover_info");
    tv_jw_obj_begin(w);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "system");
    tv_jw_bool(w, false);
    (void)replicas;
    tv_jw_obj_end(w);
}

/* The templates of one kind as metadata prints them (name -> body). */
static void write_templates(tv_req *r, tv_jw *w, int kind) {
    for (size_t i = 0; i < r->node->st->ntemplates; i++) {
        const tv_template *t = &r->node->st->templates[i];
        int k = t->component ? 2 : t->legacy ? 0 : 1;
        if (k != kind) continue;
        tv_jw_keyz(w, t->name);
        tv_jw_raw(w, t->body, strlen(t->body));
    }
}

static bool has_templates(tv_req *r, int kind) {
    for (size_t i = 0; i < r->node->st->ntemplates; i++) {
        const tv_template *t = &r->node->st->templates[i];
        if ((t->component ? 2 : t->legacy ? 0 : 1) == kind) return true;
    }
    return false;
}

static void write_metadata(tv_req *r, tv_jw *w, const tv_index_list *sel, bool filtered, bool flat) {
    tv_jw_keyz(w, "metadata");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "cluster_uuid");
    tv_jw_strz(w, r->node->st->cluster_uuid);
    tv_jw_keyz(w, "cluster_uuid_committed");
    tv_jw_bool(w, true);
    tv_jw_keyz(w, "cluster_coordination");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "term");
    tv_jw_int(w, 1);
    tv_jw_keyz(w, "last_committed_config");
    tv_jw_arr_begin(w);
    tv_jw_strz(w, r->node->node_id);
    tv_jw_arr_end(w);
    tv_jw_keyz(w, "last_accepted_config");
    tv_jw_arr_begin(w);
    tv_jw_strz(w, r->node->node_id);
    tv_jw_arr_end(w);
    pthread_rwlock_rdlock(&r->node->lock);
    write_voting_exclusions(r, w);
    pthread_rwlock_unlock(&r->node->lock);
    tv_jw_obj_end(w);
    if (!filtered) {
        tv_jw_keyz(w, "templates");
        tv_jw_obj_begin(w);
        pthread_rwlock_rdlock(&r->node->lock);
        write_templates(r, w, 0);
        pthread_rwlock_unlock(&r->node->lock);
        tv_jw_obj_end(w);
    }
    tv_jw_keyz(w, "indices");
    tv_jw_obj_begin(w);
    for (size_t i = 0; i < sel->len; i++) write_index_metadata(r, w, sel->items[i], flat);
    tv_jw_obj_end(w);
    if (!filtered) {
        pthread_rwlock_rdlock(&r->node->lock);
        tv_jw_keyz(w, "index-graveyard");
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "tombstones");
        tv_jw_arr_begin(w);
        tv_jw_arr_end(w);
        tv_jw_obj_end(w);
        if (has_templates(r, 2)) {
            tv_jw_keyz(w, "component_template");
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "component_template");
            tv_jw_obj_begin(w);
            write_templates(r, w, 2);
            tv_jw_obj_end(w);
            tv_jw_obj_end(w);
        }
        if (has_templates(r, 1)) {
            tv_jw_keyz(w, "index_template");
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "index_template");
            tv_jw_obj_begin(w);
            write_templates(r, w, 1);
            tv_jw_obj_end(w);
            tv_jw_obj_end(w);
        }
        if (r->node->st->repositories) {
            tv_jw_keyz(w, "repositories");
            tv_jw_raw(w, r->node->st->repositories, strlen(r->node->st->repositories));
        }
        pthread_rwlock_unlock(&r->node->lock);
    }
    tv_jw_obj_end(w);
}

/* ShardRouting.toXContent of one copy. */
static void write_shard_routing(tv_req *r, tv_jw *w, tv_index *idx, int shard, bool primary) {
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "state");
    tv_jw_strz(w, primary ? "STARTED" : "UNASSIGNED");
    tv_jw_keyz(w, "primary");
    tv_jw_bool(w, primary);
    tv_jw_keyz(w, "node");
    if (primary)
        tv_jw_strz(w, r->node->node_id);
    else
        tv_jw_null(w);
    tv_jw_keyz(w, "relocating_node");
    tv_jw_null(w);
    tv_jw_keyz(w, "shard");
    tv_jw_int(w, shard);
    tv_jw_keyz(w, "index");
    tv_jw_strz(w, tv_index_name(idx));
    if (primary) {
        tv_jw_keyz(w, "allocation_id");
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "id");
        char aid[24];
        tv_api_allocation_id(idx, shard, aid);
        tv_jw_strz(w, aid);
        tv_jw_obj_end(w);
    } else {
        tv_jw_keyz(w, "recovery_source");
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "type");
        tv_jw_strz(w, "PEER");
        tv_jw_obj_end(w);
        tv_jw_keyz(w, "unassigned_info");
        tv_api_write_unassigned_info(w, idx);
    }
    tv_jw_obj_end(w);
}

void tv_api_write_unassigned_info(tv_jw *w, tv_index *idx) {
    tv_index_lock(idx);
    int64_t created = tv_index_settings(idx)->creation_date_ms;
    tv_index_unlock(idx);
    char at[40];
    tv_api_format_date(created, at);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "reason");
    tv_jw_strz(w, "INDEX_CREATED");
    tv_jw_keyz(w, "at");
    tv_jw_strz(w, at);
    tv_jw_keyz(w, "delayed");
    tv_jw_bool(w, false);
    tv_jw_keyz(w, "allocation_status");
    tv_jw_strz(w, "no_attempt");
    tv_jw_obj_end(w);
}

void tv_api_format_date(int64_t ms, char out[40]) {
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    snprintf(out, 40, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

int64_t tv_api_index_shards(tv_index *idx, int64_t *replicas) {
    tv_index_lock(idx);
    tv_settings *s = tv_index_settings(idx);
    int64_t shards = s->number_of_shards ? s->number_of_shards : 1;
    if (replicas) *replicas = s->number_of_replicas;
    tv_index_unlock(idx);
    return shards;
}

static void write_routing_table(tv_req *r, tv_jw *w, const tv_index_list *sel) {
    tv_jw_keyz(w, "routing_table");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "indices");
    tv_jw_obj_begin(w);
    for (size_t i = 0; i < sel->len; i++) {
        tv_index *idx = sel->items[i];
        int64_t rep, shards = tv_api_index_shards(idx, &rep);
        tv_jw_keyz(w, tv_index_name(idx));
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "shards");
        tv_jw_obj_begin(w);
        for (int64_t s = 0; s < shards; s++) {
            char k[16];
            snprintf(k, sizeof k, "%lld", (long long)s);
            tv_jw_keyz(w, k);
            tv_jw_arr_begin(w);
            write_shard_routing(r, w, idx, (int)s, true);
            for (int64_t c = 0; c < rep; c++) write_shard_routing(r, w, idx, (int)s, false);
            tv_jw_arr_end(w);
        }
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

static void write_routing_nodes(tv_req *r, tv_jw *w, const tv_index_list *sel) {
    tv_jw_keyz(w, "routing_nodes");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "unassigned");
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < sel->len; i++) {
        int64_t rep, shards = tv_api_index_shards(sel->items[i], &rep);
        for (int64_t s = 0; s < shards; s++)
            for (int64_t c = 0; c < rep; c++) write_shard_routing(r, w, sel->items[i], (int)s, false);
    }
    tv_jw_arr_end(w);
    tv_jw_keyz(w, "nodes");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, r->node->node_id);
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < sel->len; i++) {
        int64_t shards = tv_api_index_shards(sel->items[i], NULL);
        for (int64_t s = 0; s < shards; s++) write_shard_routing(r, w, sel->items[i], (int)s, true);
    }
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

/* GET /_cluster/state[/{metric}[/{index}]] */
void tv_h_cluster_state(tv_req *r) {
    bool flat, local;
    if (!tv_req_param_bool(r, "flat_settings", false, &flat)) return;
    if (!tv_req_param_bool(r, "local", false, &local)) return;
    int64_t wmv;
    const char *wv = tv_req_param(r, "wait_for_metadata_version");
    if (wv && (!tv_parse_i64(wv, strlen(wv), &wmv))) {
        tv_req_fail_number(r, "long", "wait_for_metadata_version", wv);
        return;
    }
    const char *wt = tv_req_param(r, "wait_for_timeout");
    int64_t wt_ms;
    if (wt && !tv_api_parse_time_ms(r, "wait_for_timeout", wt, &wt_ms)) return;
    unsigned m = parse_metrics(r, r->p_name);
    tv_resolve_opts o = {.ignore_unavailable = true, .allow_no_indices = true, .expand = TV_EXPAND_OPEN};
    if (!tv_resolve_opts_parse(r, &o)) return;
    bool filtered = r->p_index && *r->p_index && strcmp(r->p_index, "_all") != 0 && strcmp(r->p_index, "*") != 0;
    tv_index_list sel = {0}, all = {0};
    tv_resolve_opts everything = {.ignore_unavailable = true,
                                  .allow_no_indices = true,
                                  .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED | TV_EXPAND_HIDDEN};
    if (!tv_node_resolve_ex(r, NULL, &everything, &all)) return;
    if (filtered) {
        if (!tv_node_resolve_ex(r, r->p_index, &o, &sel)) {
            tv_index_list_release(&all);
            return;
        }
    }
    const tv_index_list *use = filtered ? &sel : &all;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "cluster_name");
    tv_jw_strz(w, r->node->st->cluster_name);
    tv_jw_keyz(w, "cluster_uuid");
    tv_jw_strz(w, r->node->st->cluster_uuid);
    if (m & M_VERSION) {
        char su[24];
        pthread_rwlock_rdlock(&r->node->lock);
        int64_t v = r->node->st->version;
        tv_api_state_uuid(r->node, su);
        pthread_rwlock_unlock(&r->node->lock);
        tv_jw_keyz(w, "version");
        tv_jw_int(w, v);
        tv_jw_keyz(w, "state_uuid");
        tv_jw_strz(w, su);
    }
    if (m & M_MASTER) {
        tv_jw_keyz(w, "master_node");
        tv_jw_strz(w, r->node->node_id);
    }
    if (m & M_CM) {
        tv_jw_keyz(w, "cluster_manager_node");
        tv_jw_strz(w, r->node->node_id);
    }
    if (m & M_BLOCKS) write_blocks(r, w, &all);
    if (m & M_NODES) write_nodes(r, w);
    if (m & M_METADATA) write_metadata(r, w, use, filtered, flat);
    if (m & M_ROUTING_TABLE) write_routing_table(r, w, use);
    if (m & M_ROUTING_NODES) write_routing_nodes(r, w, use);
    tv_jw_obj_end(w);
    tv_index_list_release(&sel);
    tv_index_list_release(&all);
}

/* ------------------------------------------- voting config exclusions */

/* POST /_cluster/voting_config_exclusions?node_ids=|node_names= */
void tv_h_voting_exclusions_post(tv_req *r) {
    const char *ids = tv_req_param(r, "node_ids"), *names = tv_req_param(r, "node_names");
    bool has_ids = ids && *ids, has_names = names && *names;
    if (has_ids == has_names) {
        tv_req_fail(r, TROVE_EARG,
                    "Please set node identifiers correctly. One and only one of [node_name], [node_names] and "
                    "[node_ids] has to be set");
        return;
    }
    int64_t timeout_ms = 30000;
    const char *to = tv_req_param(r, "timeout");
    if (to && !tv_api_parse_time_ms(r, "timeout", to, &timeout_ms)) return;
    const char **parts = NULL;
    size_t n = tv_split_commas(&r->arena, has_ids ? ids : names, &parts);
    /* excluding this node would, on OpenSearch's single node, wait for a
     * reconfiguration that can never happen and time out: refused at once */
    for (size_t i = 0; i < n; i++)
        if (!strcmp(parts[i], has_ids ? r->node->node_id : r->node->st->node_name)) {
            tv_req_fail(r, TROVE_EUNSUPPORTED,
                        "trove is a single node: excluding its own node [%s] from the voting configuration could "
                        "never take effect",
                        parts[i]);
            return;
        }
    pthread_rwlock_wrlock(&r->node->lock);
    tv_node_state *st = r->node->st;
    tv_json *cur = NULL;
    if (st->voting_exclusions && tv_json_parse(&r->arena, st->voting_exclusions, strlen(st->voting_exclusions), &cur,
                                                NULL) != TROVE_OK)
        cur = NULL;
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_arr_begin(&w);
    size_t count = 0;
    for (uint32_t i = 0; cur && cur->type == TV_JSON_ARRAY && i < cur->len; i++) {
        tv_jw_value(&w, &cur->v.items[i]);
        count++;
    }
    for (size_t i = 0; i < n; i++) {
        const char *id = has_ids ? parts[i] : "_absent_";
        const char *nm = has_ids ? "_absent_" : parts[i];
        bool dup = false;
        for (uint32_t k = 0; cur && cur->type == TV_JSON_ARRAY && k < cur->len; k++) {
            const tv_json *ei = tv_json_get(&cur->v.items[k], "node_id"),
                          *en = tv_json_get(&cur->v.items[k], "node_name");
            if (ei && en && ei->type == TV_JSON_STRING && en->type == TV_JSON_STRING && strcmp(ei->v.s, id) == 0 &&
                strcmp(en->v.s, nm) == 0)
                dup = true;
        }
        if (dup) continue;
        tv_jw_obj_begin(&w);
        tv_jw_keyz(&w, "node_id");
        tv_jw_strz(&w, id);
        tv_jw_keyz(&w, "node_name");
        tv_jw_strz(&w, nm);
        tv_jw_obj_end(&w);
        count++;
    }
    tv_jw_arr_end(&w);
    bool ok = true;
    /* cluster.max_voting_config_exclusions (10) */
    if (count > 10) {
        ok = false;
        tv_req_fail(r, TROVE_EARG,
                    "add voting config exclusions request for %s [%s] would add [%zu] exclusions to the existing "
                    "[%zu] which would exceed the maximum of [10] set by [cluster.max_voting_config_exclusions]",
                    has_ids ? "nodes with ids" : "nodes named", has_ids ? ids : names,
                    count - (cur && cur->type == TV_JSON_ARRAY ? cur->len : 0),
                    (size_t)(cur && cur->type == TV_JSON_ARRAY ? cur->len : 0));
    } else {
        char *text = b.oom ? NULL : tv_strndup(b.data, b.len);
        if (!text) {
            ok = false;
            r->oom = true;
        } else {
            tv_free(st->voting_exclusions);
            st->voting_exclusions = text;
        }
    }
    pthread_rwlock_unlock(&r->node->lock);
    tv_buf_fini(&b);
    if (ok) tv_req_empty(r, 200);
}

/* DELETE /_cluster/voting_config_exclusions[?wait_for_removal=] */
void tv_h_voting_exclusions_delete(tv_req *r) {
    bool wait;
    if (!tv_req_param_bool(r, "wait_for_removal", true, &wait)) return;
    pthread_rwlock_wrlock(&r->node->lock);
    tv_free(r->node->st->voting_exclusions);
    r->node->st->voting_exclusions = NULL;
    pthread_rwlock_unlock(&r->node->lock);
    tv_req_empty(r, 200);
}

/* ------------------------------------------------ small cluster APIs */

/* GET /_cluster/pending_tasks: a single node applies every change within
 * the request that makes it, so nothing is ever pending. */
void tv_h_cluster_pending_tasks(tv_req *r) {
    bool local;
    if (!tv_req_param_bool(r, "local", false, &local)) return;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "tasks");
    tv_jw_arr_begin(w);
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
}

/* GET /_remote/info: trove has no remote clusters. */
void tv_h_remote_info(tv_req *r) {
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_obj_end(w);
}
