/*
 * h_cluster_alloc.c — GET|POST /_cluster/allocation/explain
 * (ClusterAllocationExplanation for a single node).
 *
 * On one node every primary is started here and every replica is
 * unassigned: the same_shard decider refuses to put a copy beside its
 * primary, and there is no other node. The request names a shard copy
 * (index, shard, primary; current_node optional) or, with no body, asks
 * for the first unassigned copy (indices in name order, shards in order,
 * as the routing table's unassigned list holds them); with none the answer
 * is OpenSearch's illegal_argument_exception naming the request.
 *
 * A started copy: current_state "started", current_node, can remain,
 * rebalancing allowed cluster-wide but to no other node. An unassigned
 * replica: unassigned_info (INDEX_CREATED at the index's creation date),
 * can_allocate "no" with this node's same_shard decision. include_disk_info
 * adds the data path's file system (cluster_info).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/statvfs.h>

#include "api.h"

static void write_node_ref(tv_req *r, tv_jw *w, bool ranking) {
    tv_jw_keyz(w, "id");
    tv_jw_strz(w, r->node->node_id);
    tv_jw_keyz(w, "name");
    tv_jw_strz(w, r->node->st->node_name);
    tv_jw_keyz(w, "transport_address");
    tv_jw_strz(w, TV_API_TRANSPORT_ADDRESS);
    tv_jw_keyz(w, "attributes");
    tv_api_write_node_attributes(r, w);
    if (ranking) {
        tv_jw_keyz(w, "weight_ranking");
        tv_jw_int(w, 1);
    }
}

static void write_disk(tv_jw *w, const char *key, const char *path, const struct statvfs *fs) {
    int64_t total = (int64_t)fs->f_blocks * (int64_t)fs->f_frsize, fr = (int64_t)fs->f_bavail * (int64_t)fs->f_frsize;
    tv_jw_keyz(w, key);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "path");
    tv_jw_strz(w, path);
    tv_jw_keyz(w, "total_bytes");
    tv_jw_int(w, total);
    tv_jw_keyz(w, "used_bytes");
    tv_jw_int(w, total - fr);
    tv_jw_keyz(w, "free_bytes");
    tv_jw_int(w, fr);
    double fp = total ? 100.0 * (double)fr / (double)total : 100.0;
    tv_jw_keyz(w, "free_disk_percent");
    tv_jw_double(w, fp);
    tv_jw_keyz(w, "used_disk_percent");
    tv_jw_double(w, 100.0 - fp);
    tv_jw_obj_end(w);
}

static void write_cluster_info(tv_req *r, tv_jw *w) {
    tv_jw_keyz(w, "cluster_info");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "nodes");
    tv_jw_obj_begin(w);
    const char *dir = tv_durable_dir(r->node->durable);
    struct statvfs fs;
    if (statvfs(dir ? dir : ".", &fs) == 0) {
        tv_jw_keyz(w, r->node->node_id);
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "node_name");
        tv_jw_strz(w, r->node->st->node_name);
        write_disk(w, "least_available", dir ? dir : ".", &fs);
        write_disk(w, "most_available", dir ? dir : ".", &fs);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "shard_sizes");
    tv_jw_obj_begin(w);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "shard_data_set_sizes");
    tv_jw_obj_begin(w);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "shard_paths");
    tv_jw_obj_begin(w);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "reserved_sizes");
    tv_jw_arr_begin(w);
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
}

static bool body_int(tv_req *r, const tv_json *b, const char *k, int64_t *out, bool *has) {
    const tv_json *v = b ? tv_json_get(b, k) : NULL;
    *has = v && v->type != TV_JSON_NULL;
    if (!*has) return true;
    if (v->type == TV_JSON_INT) {
        *out = v->v.i;
        return true;
    }
    if (v->type == TV_JSON_STRING && tv_parse_i64(v->v.s, v->len, out)) return true;
    return tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [cluster/allocation/explain] failed to parse field [%s]", k);
}

void tv_h_cluster_allocation_explain(tv_req *r) {
    bool yes, disk;
    if (!tv_req_param_bool(r, "include_yes_decisions", false, &yes)) return;
    if (!tv_req_param_bool(r, "include_disk_info", false, &disk)) return;
    const tv_json *b = NULL;
    if (r->body_len) {
        b = tv_req_parse_body(r, TV_BODY_PARSER);
        if (!b) return;
        if (b->type != TV_JSON_OBJECT) {
            tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
            return;
        }
        for (uint32_t i = 0; i < b->len; i++) {
            const char *k = b->v.members[i].key;
            if (strcmp(k, "index") && strcmp(k, "shard") && strcmp(k, "primary") && strcmp(k, "current_node")) {
                tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [cluster/allocation/explain] unknown field [%s]", k);
                return;
            }
        }
    }
    const tv_json *ij = b ? tv_json_get(b, "index") : NULL, *pj = b ? tv_json_get(b, "primary") : NULL,
                  *cj = b ? tv_json_get(b, "current_node") : NULL;
    int64_t shard = 0;
    bool has_shard, has_index = ij && ij->type != TV_JSON_NULL, has_primary = pj && pj->type != TV_JSON_NULL;
    if (!body_int(r, b, "shard", &shard, &has_shard)) return;
    bool primary = pj && pj->type == TV_JSON_TRUE;
    bool any = !has_index && !has_shard && !has_primary && !(cj && cj->type != TV_JSON_NULL);
    const char *yes_txt = yes ? "true" : "false";
    tv_index *idx = NULL;
    if (any) {
        /* the first unassigned copy: a replica of the first index that has one */
        tv_resolve_opts o = {.ignore_unavailable = true,
                             .allow_no_indices = true,
                             .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED | TV_EXPAND_HIDDEN};
        tv_index_list l;
        if (!tv_node_resolve_ex(r, NULL, &o, &l)) return;
        for (size_t i = 0; i < l.len && !idx; i++) {
            int64_t rep;
            tv_api_index_shards(l.items[i], &rep);
            if (rep > 0) {
                idx = l.items[i];
                tv_index_retain(idx);
            }
        }
        tv_index_list_release(&l);
        if (!idx) {
            tv_req_fail(r, TROVE_EARG,
                        "unable to find any unassigned shards to explain "
                        "[ClusterAllocationExplainRequest[useAnyUnassignedShard=true,includeYesDecisions?=%s]",
                        yes_txt);
            return;
        }
        shard = 0;
        primary = false;
    } else {
        tv_buf v;
        tv_buf_init(&v);
        int nv = 0;
        if (!has_index) tv_buf_printf(&v, "%d: index must be specified;", ++nv);
        if (!has_shard) tv_buf_printf(&v, "%d: shard must be specified;", ++nv);
        if (!has_primary) tv_buf_printf(&v, "%d: primary must be specified;", ++nv);
        if (nv) {
            tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: %.*s", (int)v.len, v.data);
            tv_buf_fini(&v);
            return;
        }
        tv_buf_fini(&v);
        if (ij->type != TV_JSON_STRING) {
            tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [cluster/allocation/explain] failed to parse field [index]");
            return;
        }
        idx = tv_node_get_index(r->node, ij->v.s);
        if (!idx) {
            tv_api_err *e = tv_api_err_no_index(r, ij->v.s);
            if (e) tv_req_error(r, e);
            return;
        }
    }
    int64_t rep, shards = tv_api_index_shards(idx, &rep);
    const char *cur = cj && cj->type == TV_JSON_STRING ? cj->v.s : NULL;
    const char *name = tv_index_name(idx);
    if (shard < 0 || shard >= shards || (!primary && rep == 0) ||
        (primary && cur && strcmp(cur, r->node->node_id) != 0 && strcmp(cur, r->node->st->node_name) != 0)) {
        if (cur)
            tv_req_fail(r, TROVE_EARG,
                        "unable to find a shard assigned to node [%s] to explain "
                        "[ClusterAllocationExplainRequest[index=%s,shard=%lld,primary?=%s,currentNode=%s,"
                        "includeYesDecisions?=%s]",
                        cur, name, (long long)shard, primary ? "true" : "false", cur, yes_txt);
        else
            tv_req_fail(r, TROVE_EARG,
                        "unable to find any shards to explain [ClusterAllocationExplainRequest[index=%s,shard=%lld,"
                        "primary?=%s,includeYesDecisions?=%s] in the routing table",
                        name, (long long)shard, primary ? "true" : "false", yes_txt);
        tv_index_release(idx);
        return;
    }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "index");
    tv_jw_strz(w, name);
    tv_jw_keyz(w, "shard");
    tv_jw_int(w, shard);
    tv_jw_keyz(w, "primary");
    tv_jw_bool(w, primary);
    tv_jw_keyz(w, "current_state");
    tv_jw_strz(w, primary ? "started" : "unassigned");
    if (primary) {
        tv_jw_keyz(w, "current_node");
        tv_jw_obj_begin(w);
        write_node_ref(r, w, true);
        tv_jw_obj_end(w);
        if (disk) write_cluster_info(r, w);
        tv_jw_keyz(w, "can_remain_on_current_node");
        tv_jw_strz(w, "yes");
        tv_jw_keyz(w, "can_rebalance_cluster");
        tv_jw_strz(w, "yes");
        tv_jw_keyz(w, "can_rebalance_to_other_node");
        tv_jw_strz(w, "no");
        tv_jw_keyz(w, "rebalance_explanation");
        tv_jw_strz(w, "cannot rebalance as no target node exists that can both allocate this shard and improve the "
                      "cluster balance");
    } else {
        tv_jw_keyz(w, "unassigned_info");
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
        tv_jw_keyz(w, "last_allocation_status");
        tv_jw_strz(w, "no_attempt");
        tv_jw_obj_end(w);
        if (disk) write_cluster_info(r, w);
        tv_jw_keyz(w, "can_allocate");
        tv_jw_strz(w, "no");
        tv_jw_keyz(w, "allocate_explanation");
        tv_jw_strz(w, "cannot allocate because allocation is not permitted to any of the nodes");
        tv_jw_keyz(w, "node_allocation_decisions");
        tv_jw_arr_begin(w);
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "node_id");
        tv_jw_strz(w, r->node->node_id);
        tv_jw_keyz(w, "node_name");
        tv_jw_strz(w, r->node->st->node_name);
        tv_jw_keyz(w, "transport_address");
        tv_jw_strz(w, TV_API_TRANSPORT_ADDRESS);
        tv_jw_keyz(w, "node_attributes");
        tv_api_write_node_attributes(r, w);
        tv_jw_keyz(w, "node_decision");
        tv_jw_strz(w, "no");
        tv_jw_keyz(w, "weight_ranking");
        tv_jw_int(w, 1);
        tv_jw_keyz(w, "deciders");
        tv_jw_arr_begin(w);
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "decider");
        tv_jw_strz(w, "same_shard");
        tv_jw_keyz(w, "decision");
        tv_jw_strz(w, "NO");
        tv_jw_keyz(w, "explanation");
        char aid[24];
        tv_api_allocation_id(idx, (int)shard, aid);
        char *ex = tv_arena_sprintf(&r->arena,
                                    "a copy of this shard is already allocated to this node [[%s][%lld], node[%s], [P], "
                                    "s[STARTED], a[id=%s]]",
                                    name, (long long)shard, r->node->node_id, aid);
        if (!ex) r->oom = true;
        tv_jw_strz(w, ex ? ex : "");
        tv_jw_obj_end(w);
        tv_jw_arr_end(w);
        tv_jw_obj_end(w);
        tv_jw_arr_end(w);
    }
    tv_jw_obj_end(w);
    tv_index_release(idx);
}
