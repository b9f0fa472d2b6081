/*
 * shards.c — the answers that depend on an index being sharded: a
 * missing _routing (routing_missing_exception), require_alias, a document
 * that lives on another shard than the request's routing reaches (found
 * as "not_found"), and the "shard" metadata of an error (node/routing.c
 * computes the shards).
 */
#include "api.h"

tv_api_err *tv_api_err_routing_missing(tv_req *r, const char *index, const char *id) {
    tv_api_err *e = tv_api_err_new(r, TROVE_ENOROUTING, "routing is required for [%s]/[%s]", index, id ? id : "");
    if (!e) return NULL;
    tv_api_err_meta(e, "index", index);
    tv_api_err_meta(e, "index_uuid", "_na_");
    return e;
}

tv_api_err *tv_api_err_require_alias(tv_req *r, const char *name) {
    tv_api_err *e = tv_api_err_new(
        r, TROVE_ENOINDEX, "no such index [%s] and [require_alias] request flag is [true] and [%s] is not an alias",
        name, name);
    if (!e) return NULL;
    tv_api_err_meta(e, "index", name);
    tv_api_err_meta(e, "index_uuid", "_na_");
    return e;
}

bool tv_api_doc_elsewhere(tv_req *r, tv_index *idx, const char *id, size_t id_len, const char *routing,
                          size_t routing_len) {
    tv_shard_route rt;
    tv_shard_route_of(idx, &rt);
    if (rt.num_shards <= 1) return false;
    bool found = false;
    tv_doc_meta meta;
    memset(&meta, 0, sizeof meta);
    const char *src = NULL;
    size_t srclen = 0;
    if (tv_index_get(idx, id, id_len, true, &r->arena, &found, &meta, &src, &srclen) != TROVE_OK) {
        r->oom = true;
        return false;
    }
    if (!found) return false;
    return !tv_same_shard(idx, id, id_len, routing, routing_len, meta.routing,
                              meta.routing ? meta.routing_len : 0);
}

void tv_api_write_not_found(tv_jw *w, const char *index, const char *id, size_t id_len, int64_t shard_total) {
    tv_write_result res;
    memset(&res, 0, sizeof res);
    res.result = TV_RESULT_NOT_FOUND;
    res.version = 1;
    res.seq_no = TV_SEQ_NO_UNSET;
    tv_api_write_result(w, index, id, id_len, &res, shard_total);
}

void tv_api_err_fix_shard(tv_req *r, tv_api_err *e, tv_index *idx, const char *id, const char *routing,
                          size_t routing_len) {
    if (!e || !idx || !id) return;
    tv_shard_route rt;
    tv_shard_route_of(idx, &rt);
    if (rt.num_shards <= 1) return;
    uint32_t shard = tv_shard_id(&rt, id, strlen(id), routing, routing_len);
    for (tv_api_err *x = e; x; x = x->cause) {
        for (int i = 0; i < x->nmeta; i++) {
            if (strcmp(x->meta_key[i], "shard") != 0) continue;
            const char *v = tv_arena_sprintf(&r->arena, "%u", shard);
            if (!v) {
                r->oom = true;
                return;
            }
            x->meta_val[i] = v;
        }
    }
}
