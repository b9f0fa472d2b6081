/*
 * h_stats.c — GET [/{index}]/_stats[/{metric}], and POST|GET _flush and
 * POST _forcemerge.
 *
 * _stats reports what trove measures per index: docs (count of live
 * documents, deleted ones not yet merged away) and store (bytes of the
 * segments). On one node replicas are never assigned, so "total" equals
 * "primaries", and _shards counts every copy (total) against the started
 * primaries (successful), as OpenSearch does. Metric filters are checked
 * against OpenSearch's list; metrics trove does not measure are accepted
 * and left out.
 *
 * _flush and _forcemerge are accepted: the in-memory engine has nothing to
 * fsync; both answer the broadcast _shards header after refreshing, so a
 * forced merge request still makes buffered writes visible as OpenSearch's
 * flush would not hide them. _forcemerge with max_num_segments merges each
 * index down to that many segments (tv_index_force_merge); without it the
 * merge policy's own merges are all there is to do, as in OpenSearch.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

static const char *const metrics[] = {"_all",        "docs",        "store",      "indexing", "get",
                                      "search",      "merge",       "refresh",    "flush",    "warmer",
                                      "query_cache", "fielddata",   "completion", "segments", "translog",
                                      "request_cache", "recovery",  NULL};

static void write_common(tv_jw *w, const tv_index_stats *st, bool docs, bool store, bool human) {
    tv_jw_obj_begin(w);
    if (docs) {
        tv_jw_keyz(w, "docs");
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "count");
        tv_jw_uint(w, st->docs_count);
        tv_jw_keyz(w, "deleted");
        tv_jw_uint(w, st->docs_deleted);
        tv_jw_obj_end(w);
    }
    if (store) {
        tv_jw_keyz(w, "store");
        tv_jw_obj_begin(w);
        if (human) {
            char b[32];
            tv_java_byte_size((int64_t)st->store_bytes, b, sizeof b);
            tv_jw_keyz(w, "size");
            tv_jw_strz(w, b);
        }
        tv_jw_keyz(w, "size_in_bytes");
        tv_jw_uint(w, st->store_bytes);
        if (human) {
            tv_jw_keyz(w, "reserved");
            tv_jw_strz(w, "0b");
        }
        tv_jw_keyz(w, "reserved_in_bytes");
        tv_jw_int(w, 0);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
}

void tv_h_stats(tv_req *r) {
    bool docs = true, store = true, human;
    if (!tv_req_param_bool(r, "human", false, &human)) return;
    if (r->p_name) {
        const char **m = NULL;
        size_t nm = tv_split_commas(&r->arena, r->p_name, &m);
        bool all = false;
        docs = store = false;
        for (size_t i = 0; i < nm; i++) {
            bool known = false;
            for (size_t k = 0; metrics[k]; k++)
                if (strcmp(metrics[k], m[i]) == 0) known = true;
            if (!known) {
                tv_req_fail(r, TROVE_EARG,
                            "request [%s] contains unrecognized metric: [%s]", r->path, m[i]);
                return;
            }
            if (strcmp(m[i], "_all") == 0) all = true;
            if (strcmp(m[i], "docs") == 0) docs = true;
            if (strcmp(m[i], "store") == 0) store = true;
        }
        if (all) docs = store = true;
    }
    const char *level = tv_req_param(r, "level");
    if (level && strcmp(level, "cluster") && strcmp(level, "indices") && strcmp(level, "shards")) {
        tv_req_fail(r, TROVE_EARG,
                    "level parameter must be one of [cluster] or [indices] or [shards] but was [%s]", level);
        return;
    }
    tv_resolve_opts o = {.allow_no_indices = true, .expand = TV_EXPAND_OPEN | TV_EXPAND_HIDDEN,
                         .forbid_closed = true};
    if (!tv_resolve_opts_parse(r, &o)) return;
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    tv_index_stats *st = l.len ? tv_arena_calloc(&r->arena, l.len, sizeof *st) : NULL;
    if (l.len && !st) {
        tv_index_list_release(&l);
        r->oom = true;
        return;
    }
    tv_index_stats all = {0};
    int64_t total = 0, ok = 0;
    for (size_t i = 0; i < l.len; i++) {
        tv_index_get_stats(l.items[i], &st[i]);
        all.docs_count += st[i].docs_count;
        all.docs_deleted += st[i].docs_deleted;
        all.store_bytes += st[i].store_bytes;
        int64_t shards;
        tv_index_lock(l.items[i]);
        shards = tv_index_settings(l.items[i])->number_of_shards;
        tv_index_unlock(l.items[i]);
        if (shards < 1) shards = 1;
        total += shards * tv_index_shard_total(l.items[i]);
        ok += shards;
    }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "_shards");
    tv_write_shards(w, total, ok);
    tv_jw_keyz(w, "_all");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "primaries");
    write_common(w, &all, docs, store, human);
    tv_jw_keyz(w, "total");
    write_common(w, &all, docs, store, human);
    tv_jw_obj_end(w);
    if (!level || strcmp(level, "cluster") != 0) {
        tv_jw_keyz(w, "indices");
        tv_jw_obj_begin(w);
        for (size_t i = 0; i < l.len; i++) {
            tv_jw_keyz(w, tv_index_name(l.items[i]));
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "uuid");
            tv_jw_strz(w, tv_index_uuid(l.items[i]));
            tv_jw_keyz(w, "primaries");
            write_common(w, &st[i], docs, store, human);
            tv_jw_keyz(w, "total");
            write_common(w, &st[i], docs, store, human);
            tv_jw_obj_end(w);
        }
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_index_list_release(&l);
}

/* _flush and _forcemerge: sync each index's translog (on a data
 * directory), refresh it, and with forcemerge and max_num_segments merge it
 * down to that many segments. */
static void flush_or_merge(tv_req *r, bool forcemerge) {
    tv_resolve_opts o = {.allow_no_indices = true, .expand = TV_EXPAND_OPEN, .forbid_closed = true};
    if (!tv_resolve_opts_parse(r, &o)) return;
    bool b;
    if (!tv_req_param_bool(r, "force", false, &b) || !tv_req_param_bool(r, "wait_if_ongoing", true, &b) ||
        !tv_req_param_bool(r, "only_expunge_deletes", false, &b) || !tv_req_param_bool(r, "flush", true, &b))
        return;
    int64_t mns;
    if (!tv_req_param_i64(r, "max_num_segments", -1, &mns)) return;
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    int64_t total = 0, ok = 0;
    tv_error serr;
    tv_error_clear(&serr);
    for (size_t i = 0; i < l.len; i++) {
        /* a flush makes the translog durable whatever its durability says */
        if (tv_index_sync(l.items[i], TV_SYNC_FORCE, &serr) != TROVE_OK) {
            tv_index_list_release(&l);
            tv_req_fail_tv(r, &serr, NULL);
            return;
        }
        if (tv_index_refresh(l.items[i]) == TROVE_ENOMEM ||
            (mns > 0 && forcemerge && tv_index_force_merge(l.items[i], (uint32_t)TV_MIN(mns, (int64_t)UINT32_MAX)) == TROVE_ENOMEM)) {
            r->oom = true;
            break;
        }
        /* on a data directory, a flush is a commit (forcemerge flushes too) */
        if (tv_durable_commit(r->node, l.items[i], &serr) != TROVE_OK) {
            tv_index_list_release(&l);
            if (serr.code == TROVE_ENOMEM) r->oom = true;
            else tv_req_fail_tv(r, &serr, NULL);
            return;
        }
        int64_t shards;
        tv_index_lock(l.items[i]);
        shards = tv_index_settings(l.items[i])->number_of_shards;
        tv_index_unlock(l.items[i]);
        if (shards < 1) shards = 1;
        total += shards * tv_index_shard_total(l.items[i]);
        ok += shards;
    }
    tv_index_list_release(&l);
    if (r->oom) return;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "_shards");
    tv_write_shards(w, total, ok);
    tv_jw_obj_end(w);
}

void tv_h_flush(tv_req *r) { flush_or_merge(r, false); }
void tv_h_forcemerge(tv_req *r) { flush_or_merge(r, true); }
