/*
 * h_cat_shards.c — _cat/shards[/{index}] and _cat/recovery[/{index}]
 * (RestShardsAction, RestCatRecoveryAction) for the one node trove is.
 *
 * Shards: per index (name order), per shard number, the primary STARTED
 * on this node, then number_of_replicas replica copies UNASSIGNED
 * (INDEX_CREATED at the index's creation, recovery source peer), as a
 * single OpenSearch node lists them. docs, docs.deleted, store and
 * segments.count come from the index layer's statistics when the index has
 * one shard; an index with several shards keeps every document in one
 * store (routing is emulated, node/routing.c), so per-shard figures are
 * not known and those cells stay empty rather than show the index's total
 * on one shard. The statistics columns OpenSearch keeps per shard (get,
 * indexing, merges, refresh, search, warmer...) are listed, as `help`
 * shows them, but trove keeps no such counters: their cells are empty.
 *
 * Recovery: every started primary recovered from an empty store (a new
 * index) or, for a closed one, from its existing store, stage done, files
 * and bytes taken from the index's store size, no translog operations to
 * replay (trove's recovery of a data directory replays the translog before
 * the node serves, and keeps no per-shard account of it).
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"
#include "cat_int.h"

#define NA(name, alias, desc) {name, alias, desc, true, false}

static const tv_cat_col shard_cols[] = {
    {"index", "i,idx", "index name", false, true},
    {"shard", "s,sh", "shard name", false, true},
    {"prirep", "p,pr,primaryOrReplica", "primary or replica", false, true},
    {"state", "st", "shard state", false, true},
    {"docs", "d,dc", "number of docs in shard", true, true},
    {"store", "sto", "store size of shard (how much disk it uses)", true, true},
    {"ip", NULL, "ip of node where it lives", false, true},
    {"id", NULL, "unique id of node where it lives", false, false},
    {"node", "n", "name of node where it lives", false, true},
    {"sync_id", NULL, "sync id", false, false},
    {"unassigned.reason", "ur", "reason shard is unassigned", false, false},
    {"unassigned.at", "ua", "time shard became unassigned (UTC)", false, false},
    {"unassigned.for", "uf", "time has been unassigned", true, false},
    {"unassigned.details", "ud", "additional details as to why the shard became unassigned", false, false},
    {"recoverysource.type", "rs", "recovery source type", false, false},
    NA("completion.size", "cs,completionSize", "size of completion"),
    NA("fielddata.memory_size", "fm,fielddataMemory", "used fielddata cache"),
    NA("fielddata.evictions", "fe,fielddataEvictions", "fielddata evictions"),
    NA("query_cache.memory_size", "qcm,queryCacheMemory", "used query cache"),
    NA("query_cache.evictions", "qce,queryCacheEvictions", "query cache evictions"),
    NA("flush.total", "ft,flushTotal", "number of flushes"),
    NA("flush.total_time", "ftt,flushTotalTime", "time spent in flush"),
    NA("get.current", "gc,getCurrent", "number of current get ops"),
    NA("get.time", "gti,getTime", "time spent in get"),
    NA("get.total", "gto,getTotal", "number of get ops"),
    NA("get.exists_time", "geti,getExistsTime", "time spent in successful gets"),
    NA("get.exists_total", "geto,getExistsTotal", "number of successful gets"),
    NA("get.missing_time", "gmti,getMissingTime", "time spent in failed gets"),
    NA("get.missing_total", "gmto,getMissingTotal", "number of failed gets"),
    NA("indexing.delete_current", "idc,indexingDeleteCurrent", "number of current deletions"),
    NA("indexing.delete_time", "idti,indexingDeleteTime", "time spent in deletions"),
    NA("indexing.delete_total", "idto,indexingDeleteTotal", "number of delete ops"),
    NA("indexing.index_current", "iic,indexingIndexCurrent", "number of current indexing ops"),
    NA("indexing.index_time", "iiti,indexingIndexTime", "time spent in indexing"),
    NA("indexing.index_total", "iito,indexingIndexTotal", "number of indexing ops"),
    NA("indexing.index_failed", "iif,indexingIndexFailed", "number of failed indexing ops"),
    NA("merges.current", "mc,mergesCurrent", "number of current merges"),
    NA("merges.current_docs", "mcd,mergesCurrentDocs", "number of current merging docs"),
    NA("merges.current_size", "mcs,mergesCurrentSize", "size of current merges"),
    NA("merges.total", "mt,mergesTotal", "number of completed merge ops"),
    NA("merges.total_docs", "mtd,mergesTotalDocs", "docs merged"),
    NA("merges.total_size", "mts,mergesTotalSize", "size merged"),
    NA("merges.total_time", "mtt,mergesTotalTime", "time spent in merges"),
    NA("refresh.total", "rto,refreshTotal", "total refreshes"),
    NA("refresh.time", "rti,refreshTime", "time spent in refreshes"),
    NA("refresh.external_total", "rto,refreshTotal", "total external refreshes"),
    NA("refresh.external_time", "rti,refreshTime", "time spent in external refreshes"),
    NA("refresh.listeners", "rli,refreshListeners", "number of pending refresh listeners"),
    NA("search.fetch_current", "sfc,searchFetchCurrent", "current fetch phase ops"),
    NA("search.fetch_time", "sfti,searchFetchTime", "time spent in fetch phase"),
    NA("search.fetch_total", "sfto,searchFetchTotal", "total fetch ops"),
    NA("search.open_contexts", "so,searchOpenContexts", "open search contexts"),
    NA("search.query_current", "sqc,searchQueryCurrent", "current query phase ops"),
    NA("search.query_time", "sqti,searchQueryTime", "time spent in query phase"),
    NA("search.query_total", "sqto,searchQueryTotal", "total query phase ops"),
    NA("search.concurrent_query_current", "scqc,searchConcurrentQueryCurrent", "current concurrent query phase ops"),
    NA("search.concurrent_query_time", "scqti,searchConcurrentQueryTime", "time spent in concurrent query phase"),
    NA("search.concurrent_query_total", "scqto,searchConcurrentQueryTotal", "total concurrent query phase ops"),
    NA("search.concurrent_avg_slice_count", "casc,searchConcurrentAvgSliceCount", "average query concurrency"),
    NA("search.scroll_current", "scc,searchScrollCurrent", "open scroll contexts"),
    NA("search.scroll_time", "scti,searchScrollTime", "time scroll contexts held open"),
    NA("search.scroll_total", "scto,searchScrollTotal", "completed scroll contexts"),
    NA("search.point_in_time_current", "spc,searchPointInTimeCurrent", "open point in time contexts"),
    NA("search.point_in_time_time", "spti,searchPointInTimeTime", "time point in time contexts held open"),
    NA("search.point_in_time_total", "spto,searchPointInTimeTotal", "completed point in time contexts"),
    NA("search.search_idle_reactivate_count_total", "ssirct,searchSearchIdleReactivateCountTotal",
       "number of times a shard reactivated"),
    {"segments.count", "sc,segmentsCount", "number of segments", true, false},
    NA("segments.memory", "sm,segmentsMemory", "memory used by segments"),
    NA("segments.index_writer_memory", "siwm,segmentsIndexWriterMemory", "memory used by index writer"),
    NA("segments.version_map_memory", "svmm,segmentsVersionMapMemory", "memory used by version map"),
    NA("segments.fixed_bitset_memory", "sfbm,fixedBitsetMemory",
       "memory used by fixed bit sets for nested object field types and type filters for types referred in "
       "_parent fields"),
    NA("seq_no.max", "sqm,maxSeqNo", "max sequence number"),
    NA("seq_no.local_checkpoint", "sql,localCheckpoint", "local checkpoint"),
    NA("seq_no.global_checkpoint", "sqg,globalCheckpoint", "global checkpoint"),
    NA("warmer.current", "wc,warmerCurrent", "current warmer ops"),
    NA("warmer.total", "wto,warmerTotal", "total warmer ops"),
    NA("warmer.total_time", "wtt,warmerTotalTime", "time spent in warmers"),
    NA("path.data", "pd,dataPath", "shard data path"),
    NA("path.state", "ps,statsPath", "shard state path"),
    {"docs.deleted", "dd,docsDeleted", "number of deleted docs in shard", true, false},
};

enum { C_INDEX, C_SHARD, C_PRIREP, C_STATE, C_DOCS, C_STORE, C_IP, C_ID, C_NODE };
#define C_UREASON 10
#define C_UAT 11
#define C_UFOR 12
#define C_RSTYPE 14

static size_t col_of(const tv_cat_col *cols, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(cols[i].name, name) == 0) return i;
    return 0;
}

void tv_h_cat_shards(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    bool local;
    if (!tv_req_param_bool(r, "local", false, &local)) return;
    tv_resolve_opts o = {.ignore_unavailable = false,
                         .allow_no_indices = true,
                         .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED | TV_EXPAND_HIDDEN};
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    const size_t n = TV_ARRAY_LEN(shard_cols);
    const size_t c_seg = col_of(shard_cols, n, "segments.count"), c_dd = col_of(shard_cols, n, "docs.deleted"),
                 c_pd = col_of(shard_cols, n, "path.data"), c_ps = col_of(shard_cols, n, "path.state");
    const char *dir = tv_durable_dir(r->node->durable);
    int64_t now = tv_now_ms();
    tv_cat_table t = {.cols = shard_cols, .ncols = n};
    for (size_t i = 0; i < l.len && !r->oom; i++) {
        tv_index *idx = l.items[i];
        const char *name = tv_index_name(idx);
        int64_t rep, shards = tv_api_index_shards(idx, &rep);
        bool closed = tv_node_is_closed(r->node, name);
        tv_index_stats st = {0};
        if (!closed && shards == 1) tv_index_get_stats(idx, &st);
        tv_index_lock(idx);
        int64_t created = tv_index_settings(idx)->creation_date_ms;
        tv_index_unlock(idx);
        char at[40];
        tv_api_format_date(created, at);
        for (int64_t s = 0; s < shards && !r->oom; s++) {
            for (int64_t c = 0; c <= rep && !r->oom; c++) {
                bool primary = c == 0;
                if (!tv_cat_add_row(r, &t)) break;
                tv_cat_set_str(&t, C_INDEX, name);
                tv_cat_set_num(r, &t, C_SHARD, s);
                tv_cat_set_str(&t, C_PRIREP, primary ? "p" : "r");
                tv_cat_set_str(&t, C_STATE, primary ? "STARTED" : "UNASSIGNED");
                if (primary) {
                    if (!closed && shards == 1) {
                        tv_cat_set_num(r, &t, C_DOCS, (int64_t)st.docs_count);
                        tv_cat_set_bytes(r, &t, C_STORE, (int64_t)st.store_bytes);
                        tv_cat_set_num(r, &t, c_seg, st.segments);
                        tv_cat_set_num(r, &t, c_dd, (int64_t)st.docs_deleted);
                    }
                    tv_cat_set_str(&t, C_IP, "127.0.0.1");
                    tv_cat_set_str(&t, C_ID, r->node->node_id);
                    tv_cat_set_str(&t, C_NODE, r->node->st->node_name);
                    if (dir) {
                        char *p = tv_arena_sprintf(&r->arena, "%s/indices/%s", dir, tv_index_uuid(idx));
                        if (!p) r->oom = true;
                        tv_cat_set_str(&t, c_pd, p);
                        tv_cat_set_str(&t, c_ps, p);
                    }
                } else {
                    tv_cat_set_str(&t, C_UREASON, "INDEX_CREATED");
                    tv_cat_set_str(&t, C_UAT, tv_arena_strndup(&r->arena, at, strlen(at)));
                    tv_cat_set_time(r, &t, C_UFOR, now - created);
                    tv_cat_set_str(&t, C_RSTYPE, "peer");
                }
            }
        }
    }
    tv_index_list_release(&l);
    tv_cat_respond(r, &t);
}

/* ------------------------------------------------------- _cat/recovery */

static const tv_cat_col recovery_cols[] = {
    {"index", "i,idx", "index name", false, true},
    {"shard", "s,sh", "shard name", false, true},
    {"start_time", "start", "recovery start time", false, false},
    {"start_time_millis", "start_millis", "recovery start time in epoch milliseconds", false, false},
    {"stop_time", "stop", "recovery stop time", false, false},
    {"stop_time_millis", "stop_millis", "recovery stop time in epoch milliseconds", false, false},
    {"time", "t,ti", "recovery time", true, true},
    {"type", "ty", "recovery type", false, true},
    {"stage", "st", "recovery stage", false, true},
    {"source_host", "shost", "source host", false, true},
    {"source_node", "snode", "source node name", false, true},
    {"target_host", "thost", "target host", false, true},
    {"target_node", "tnode", "target node name", false, true},
    {"repository", "rep", "repository", false, true},
    {"snapshot", "snap", "snapshot", false, true},
    {"files", "f", "number of files to recover", true, true},
    {"files_recovered", "fr", "files recovered", true, true},
    {"files_percent", "fp", "percent of files recovered", true, true},
    {"files_total", "tf", "total number of files", true, true},
    {"bytes", "b", "number of bytes to recover", true, true},
    {"bytes_recovered", "br", "bytes recovered", true, true},
    {"bytes_percent", "bp", "percent of bytes recovered", true, true},
    {"bytes_total", "tb", "total number of bytes", true, true},
    {"translog_ops", "to", "number of translog ops to recover", true, true},
    {"translog_ops_recovered", "tor", "translog ops recovered", true, true},
    {"translog_ops_percent", "top", "percent of translog ops recovered", true, true},
};

void tv_h_cat_recovery(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    bool active_only, detailed;
    if (!tv_req_param_bool(r, "active_only", false, &active_only)) return;
    if (!tv_req_param_bool(r, "detailed", false, &detailed)) return;
    const char *expr = r->p_index ? r->p_index : tv_req_param(r, "index");
    tv_resolve_opts o = {.ignore_unavailable = false,
                         .allow_no_indices = true,
                         .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED | TV_EXPAND_HIDDEN};
    tv_index_list l;
    if (!tv_node_resolve_ex(r, expr, &o, &l)) return;
    tv_cat_table t = {.cols = recovery_cols, .ncols = TV_ARRAY_LEN(recovery_cols)};
    /* every recovery finished when the index opened: none is active */
    for (size_t i = 0; i < l.len && !r->oom && !active_only; i++) {
        tv_index *idx = l.items[i];
        const char *name = tv_index_name(idx);
        bool closed = tv_node_is_closed(r->node, name);
        int64_t shards = tv_api_index_shards(idx, NULL);
        tv_index_lock(idx);
        int64_t created = tv_index_settings(idx)->creation_date_ms;
        tv_index_unlock(idx);
        char at[40];
        tv_api_format_date(created, at);
        for (int64_t s = 0; s < shards && !r->oom; s++) {
            if (!tv_cat_add_row(r, &t)) break;
            tv_cat_set_str(&t, 0, name);
            tv_cat_set_num(r, &t, 1, s);
            tv_cat_set_str(&t, 2, tv_arena_strndup(&r->arena, at, strlen(at)));
            tv_cat_set_num(r, &t, 3, created);
            tv_cat_set_str(&t, 4, tv_arena_strndup(&r->arena, at, strlen(at)));
            tv_cat_set_num(r, &t, 5, created);
            tv_cat_set_time(r, &t, 6, 0);
            tv_cat_set_str(&t, 7, closed ? "existing_store" : "empty_store");
            tv_cat_set_str(&t, 8, "done");
            tv_cat_set_str(&t, 9, "n/a");
            tv_cat_set_str(&t, 10, "n/a");
            tv_cat_set_str(&t, 11, "127.0.0.1");
            tv_cat_set_str(&t, 12, r->node->st->node_name);
            tv_cat_set_str(&t, 13, "n/a");
            tv_cat_set_str(&t, 14, "n/a");
            tv_cat_set_num(r, &t, 15, 0);
            tv_cat_set_num(r, &t, 16, 0);
            tv_cat_set_str(&t, 17, "0.0%");
            tv_cat_set_num(r, &t, 18, 0);
            tv_cat_set_bytes(r, &t, 19, 0);
            tv_cat_set_bytes(r, &t, 20, 0);
            tv_cat_set_str(&t, 21, "0.0%");
            tv_cat_set_bytes(r, &t, 22, 0);
            tv_cat_set_num(r, &t, 23, 0);
            tv_cat_set_num(r, &t, 24, 0);
            tv_cat_set_str(&t, 25, "100.0%");
        }
    }
    tv_index_list_release(&l);
    tv_cat_respond(r, &t);
}
