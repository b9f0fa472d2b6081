/*
 * h_nodes_stats.c — GET /_nodes[/{node_id}]/stats[/{metric}[/{index_metric}]]:
 * every section OpenSearch 3.x's NodeStats writes for one node, in its
 * order (indices, os, process, jvm, thread_pool, fs, transport, http,
 * breakers, script, discovery, ingest, adaptive_selection, script_cache,
 * indexing_pressure, shard_indexing_pressure, search_backpressure,
 * cluster_manager_throttling, weighted_routing, task_cancellation,
 * search_pipeline, resource_usage_stats, segment_replication_backpressure,
 * repositories, admission_control, caches, remote_store), each in its
 * *Stats.toXContent shape with the `human` strings before the raw figures.
 *
 * Metric parsing is RestNodesStatsAction's: `_all` (the default) alone or
 * individual names, never both ("contains _all and individual metrics");
 * unknown names reported together, sorted, with Levenshtein suggestions
 * ("contains unrecognized metric: [x] -> did you mean [y]?"); index
 * metrics only with `indices` ("... but indices stats not requested" /
 * "... but all stats requested"). file_cache is a known metric but, as on
 * an OpenSearch node without the search role, has no section.
 *
 * Where the figures come from (what is real, and what is honest zero):
 *   indices    h_stats.c's per-index counters (tv_index_get_stats) summed
 *              over the open indices (CommonStats.add); level=indices adds
 *              the per-index objects; level=shards answers 400 (the
 *              counters are kept per index, not per shard)
 *   os         /proc: cpu percent over the time since the previous sample
 *              (since boot for the first), /proc/loadavg, MemTotal and
 *              MemAvailable (free, as the OS probe's "available"), swap
 *   process    /proc/self: descriptors, cpu time (percent of all
 *              processors since the previous sample), virtual size
 *   jvm        trove has no JVM; the mapping is: uptime = process uptime;
 *              heap_used = resident bytes (what the real-memory parent
 *              breaker counts), heap_committed = resident bytes, heap_max =
 *              the --heap budget the breakers use; non-heap 0; one pool,
 *              "old", holds the heap (peak_used = VmHWM), young and
 *              survivor are empty; threads = the process's thread count
 *              (peak: the largest seen by this process's samples); gc
 *              collectors young/old with 0 collections (no collector runs);
 *              buffer pools and classes 0
 *   thread_pool  the pools _cat/thread_pool lists (tv_api_thread_pools);
 *              trove's work runs on its event loops, so they never hold a
 *              thread or a task: all counters 0
 *   fs, breakers  as before (h_nodes.c's figures)
 *   transport  zeros: one node has no transport layer
 *   http       the server's connection counters kept on the node
 *              (trove_node_http_conn); 0 for in-process requests
 *   script, script_cache  the script cache's compilations and evictions
 *              (script.h); no compilation rate limit exists
 *   ingest     the IngestStats shape with zero totals and no pipelines
 *   everything else: zeros in OpenSearch's shapes (nothing to throttle,
 *              no backpressure, no remote store, no adaptive selection data)
 * Rejected: keeping sampled history in a background thread (the figures
 * are read on demand, as OpenSearch's probes do), and reporting made-up
 * JVM pool splits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "api.h"
#include "script/script.h"

/* ------------------------------------------------------------ metrics */

/* NodesStatsRequest.Metric names (and "indices"), in output order */
static const char *const metric_names[] = {
    "indices",           "os",
    "process",           "jvm",
    "thread_pool",       "fs",
    "transport",         "http",
    "breaker",           "script",
    "discovery",         "ingest",
    "adaptive_selection", "script_cache",
    "indexing_pressure", "shard_indexing_pressure",
    "search_backpressure", "cluster_manager_throttling",
    "weighted_routing",  "file_cache",
    "task_cancellation", "search_pipeline",
    "resource_usage_stats", "segment_replication_backpressure",
    "repositories",      "admission_control",
    "caches",            "remote_store",
    NULL};
enum {
    S_INDICES, S_OS, S_PROCESS, S_JVM, S_THREAD_POOL, S_FS, S_TRANSPORT, S_HTTP, S_BREAKER, S_SCRIPT, S_DISCOVERY,
    S_INGEST, S_ADAPTIVE, S_SCRIPT_CACHE, S_IDX_PRESSURE, S_SHARD_PRESSURE, S_SEARCH_BP, S_CM_THROTTLING,
    S_WEIGHTED, S_FILE_CACHE, S_TASK_CANCEL, S_SEARCH_PIPELINE, S_RESOURCE, S_SEGREP_BP, S_REPOS, S_ADMISSION,
    S_CACHES, S_REMOTE, S__COUNT
};

typedef struct nctx {
    tv_req *r;
    tv_jw *w;
    bool human;
} nctx;

static void int_field(tv_jw *w, const char *k, int64_t v) {
    tv_jw_keyz(w, k);
    tv_jw_int(w, v);
}

/* The raw number, preceded with ?human by its text as fmt spells it. */
static void human_field(nctx *c, const char *human, const char *raw, int64_t v, void (*fmt)(int64_t, char *, size_t)) {
    if (c->human) {
        char b[32];
        fmt(v, b, sizeof b);
        tv_jw_keyz(c->w, human);
        tv_jw_strz(c->w, b);
    }
    int_field(c->w, raw, v);
}

static void bytes_field(nctx *c, const char *human, const char *raw, int64_t v) {
    human_field(c, human, raw, v, tv_java_byte_size);
}

static void time_field(nctx *c, const char *human, const char *raw, int64_t ms) {
    human_field(c, human, raw, ms, tv_java_time_value);
}

static void obj(tv_jw *w, const char *k) {
    tv_jw_keyz(w, k);
    tv_jw_obj_begin(w);
}

static void empty_obj(tv_jw *w, const char *k) {
    obj(w, k);
    tv_jw_obj_end(w);
}

/* ------------------------------------------------------------ samples */


/* Percent figures over the time since the previous sample (OsProbe and
 * ProcessProbe read the same kind of deltas from the OS). */
static pthread_mutex_t sample_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long prev_busy, prev_all; /* /proc/stat ticks */
static int64_t prev_cpu_ms, prev_wall_ms;      /* the process */
static int64_t peak_threads;

static int64_t os_cpu_percent(void) {
    char buf[512];
    if (!tv_api_read_proc("/proc/stat", buf, sizeof buf) || strncmp(buf, "cpu ", 4) != 0) return -1;
    unsigned long long v[8] = {0};
    sscanf(buf + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
           &v[7]);
    unsigned long long all = 0, idle = v[3] + v[4];
    for (int i = 0; i < 8; i++) all += v[i];
    unsigned long long busy = all - idle;
    pthread_mutex_lock(&sample_mu);
    unsigned long long db = busy - prev_busy, da = all - prev_all;
    if (all <= prev_all) db = busy, da = all; /* no time passed: since boot */
    prev_busy = busy;
    prev_all = all;
    pthread_mutex_unlock(&sample_mu);
    return da ? (int64_t)(100.0 * (double)db / (double)da + 0.5) : 0;
}

static int64_t process_cpu_percent(const tv_api_sys *s, int64_t now) {
    pthread_mutex_lock(&sample_mu);
    int64_t dc = s->cpu_ms - prev_cpu_ms, dw = now - prev_wall_ms;
    if (!prev_wall_ms || dw <= 0) { /* since the process started */
        dc = s->cpu_ms;
        dw = s->start_ms ? now - s->start_ms : 0;
    }
    prev_cpu_ms = s->cpu_ms;
    prev_wall_ms = now;
    pthread_mutex_unlock(&sample_mu);
    if (dw <= 0 || s->processors <= 0) return 0;
    double p = 100.0 * (double)dc / (double)dw / (double)s->processors;
    return p < 0 ? 0 : p > 100 ? 100 : (int64_t)(p + 0.5);
}

/* ------------------------------------------------------------- sections */

static void write_indices(nctx *c, const tv_index_list *l, const tv_index_stats *st, const tv_index_stats *all,
                          unsigned mask, bool fd, bool comp, bool per_index) {
    tv_jw *w = c->w;
    /* NodeIndicesStats: the node's CommonStats, then level=indices' map */
    obj(w, "indices");
    tv_api_write_common_stats(w, all, mask, c->human, fd, comp);
    if (per_index) {
        obj(w, "indices");
        for (size_t i = 0; i < l->len; i++) {
            obj(w, tv_index_name(l->items[i]));
            tv_api_write_common_stats(w, &st[i], mask, c->human, fd, comp);
            tv_jw_obj_end(w);
        }
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
}

/* os.mem and os.swap's sizes. */
static void total_free_used(nctx *c, int64_t total, int64_t freeb) {
    bytes_field(c, "total", "total_in_bytes", total);
    bytes_field(c, "free", "free_in_bytes", freeb);
    bytes_field(c, "used", "used_in_bytes", total - freeb);
}

static void write_os(nctx *c, const tv_api_sys *s, int64_t now) {
    tv_jw *w = c->w;
    obj(w, "os");
    int_field(w, "timestamp", now);
    obj(w, "cpu");
    int64_t pct = os_cpu_percent();
    int_field(w, "percent", pct < 0 ? 0 : pct);
    char buf[256];
    double la[3];
    if (tv_api_read_proc("/proc/loadavg", buf, sizeof buf) && sscanf(buf, "%lf %lf %lf", &la[0], &la[1], &la[2]) == 3) {
        obj(w, "load_average");
        static const char *const k[] = {"1m", "5m", "15m"};
        for (int i = 0; i < 3; i++) {
            tv_jw_keyz(w, k[i]);
            tv_jw_double(w, la[i]);
        }
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    obj(w, "mem");
    int64_t total = s->mem_total, freeb = s->mem_free;
    total_free_used(c, total, freeb);
    int_field(w, "free_percent", total ? (int64_t)(100.0 * (double)freeb / (double)total + 0.5) : 0);
    int_field(w, "used_percent", total ? (int64_t)(100.0 * (double)(total - freeb) / (double)total + 0.5) : 0);
    tv_jw_obj_end(w);
    obj(w, "swap");
    total_free_used(c, s->swap_total, s->swap_free);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

static void write_process(nctx *c, const tv_api_sys *s, int64_t now) {
    tv_jw *w = c->w;
    obj(w, "process");
    int_field(w, "timestamp", now);
    int_field(w, "open_file_descriptors", s->open_fds);
    int_field(w, "max_file_descriptors", s->max_fds);
    obj(w, "cpu");
    int_field(w, "percent", process_cpu_percent(s, now));
    time_field(c, "total", "total_in_millis", s->cpu_ms);
    tv_jw_obj_end(w);
    obj(w, "mem");
    bytes_field(c, "total_virtual", "total_virtual_in_bytes", s->virtual_bytes);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

static void write_pool(nctx *c, const char *name, int64_t used, int64_t max, int64_t peak) {
    obj(c->w, name);
    bytes_field(c, "used", "used_in_bytes", used);
    bytes_field(c, "max", "max_in_bytes", max);
    bytes_field(c, "peak_used", "peak_used_in_bytes", peak);
    bytes_field(c, "peak_max", "peak_max_in_bytes", max);
    obj(c->w, "last_gc_stats"); /* no collection has run */
    bytes_field(c, "used", "used_in_bytes", 0);
    bytes_field(c, "max", "max_in_bytes", max);
    int_field(c->w, "usage_percent", -1);
    tv_jw_obj_end(c->w);
    tv_jw_obj_end(c->w);
}

static void write_jvm(nctx *c, const tv_api_sys *s, int64_t now) {
    tv_jw *w = c->w;
    int64_t heap_max = c->r->node->brk->b.heap, used = s->rss_bytes;
    char buf[4096];
    int64_t threads = 0, hwm = used;
    if (tv_api_read_proc("/proc/self/status", buf, sizeof buf)) {
        threads = tv_api_proc_field(buf, "\nThreads");
        int64_t kb = tv_api_proc_field(buf, "\nVmHWM");
        if (kb > 0) hwm = kb * 1024;
    }
    if (threads < 0) threads = 0;
    pthread_mutex_lock(&sample_mu);
    if (threads > peak_threads) peak_threads = threads;
    int64_t peak = peak_threads;
    pthread_mutex_unlock(&sample_mu);
    obj(w, "jvm");
    int_field(w, "timestamp", now);
    time_field(c, "uptime", "uptime_in_millis", s->start_ms ? now - s->start_ms : 0);
    obj(w, "mem");
    bytes_field(c, "heap_used", "heap_used_in_bytes", used);
    /* JvmStats.Mem.getHeapUsedPercent: used * 100 / max, as a short */
    int_field(w, "heap_used_percent", heap_max > 0 ? (int64_t)((double)used * 100.0 / (double)heap_max) : -1);
    bytes_field(c, "heap_committed", "heap_committed_in_bytes", used);
    bytes_field(c, "heap_max", "heap_max_in_bytes", heap_max);
    bytes_field(c, "non_heap_used", "non_heap_used_in_bytes", 0);
    bytes_field(c, "non_heap_committed", "non_heap_committed_in_bytes", 0);
    obj(w, "pools");
    write_pool(c, "young", 0, 0, 0);
    write_pool(c, "old", used, heap_max, hwm);
    write_pool(c, "survivor", 0, 0, 0);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
    obj(w, "threads");
    int_field(w, "count", threads);
    int_field(w, "peak_count", peak);
    tv_jw_obj_end(w);
    obj(w, "gc");
    obj(w, "collectors");
    static const char *const gcs[] = {"young", "old"};
    for (int i = 0; i < 2; i++) {
        obj(w, gcs[i]);
        int_field(w, "collection_count", 0);
        time_field(c, "collection_time", "collection_time_in_millis", 0);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
    obj(w, "buffer_pools");
    static const char *const bps[] = {"mapped", "direct", "mapped - 'non-volatile memory'"};
    for (int i = 0; i < 3; i++) {
        obj(w, bps[i]);
        int_field(w, "count", 0);
        bytes_field(c, "used", "used_in_bytes", 0);
        bytes_field(c, "total_capacity", "total_capacity_in_bytes", 0);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    obj(w, "classes");
    int_field(w, "current_loaded_count", 0);
    int_field(w, "total_loaded_count", 0);
    int_field(w, "total_unloaded_count", 0);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

static void write_thread_pool(nctx *c) {
    tv_jw *w = c->w;
    tv_api_pool pools[32];
    size_t np = tv_api_thread_pools(pools, TV_ARRAY_LEN(pools));
    if (np > TV_ARRAY_LEN(pools)) np = TV_ARRAY_LEN(pools);
    obj(w, "thread_pool");
    for (size_t i = 0; i < np; i++) {
        obj(w, pools[i].name);
        static const char *const k[] = {"threads", "queue", "active", "rejected", "largest", "completed"};
        for (size_t j = 0; j < TV_ARRAY_LEN(k); j++) int_field(w, k[j], 0);
        /* resizable (queue-tracking) pools report their wait time */
        if (strcmp(pools[i].type, "resizable") == 0) time_field(c, "total_wait_time", "total_wait_time_in_nanos", 0);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
}

/* FsInfo of the file system holding the data directory (the working
 * directory for an in-memory node); trove has no file cache, so its
 * reserved and utilized bytes are 0. */
static void write_fs_figures(nctx *c, const struct statvfs *fs) {
    bytes_field(c, "total", "total_in_bytes", (int64_t)fs->f_blocks * (int64_t)fs->f_frsize);
    bytes_field(c, "free", "free_in_bytes", (int64_t)fs->f_bfree * (int64_t)fs->f_frsize);
    bytes_field(c, "available", "available_in_bytes", (int64_t)fs->f_bavail * (int64_t)fs->f_frsize);
    bytes_field(c, "cache_reserved", "cache_reserved_in_bytes", 0);
    bytes_field(c, "cache_utilized", "cache_utilized_in_bytes", 0);
}

static void write_fs(nctx *c, int64_t now) {
    tv_jw *w = c->w;
    const char *dir = tv_durable_dir(c->r->node->durable);
    char cwd[1024];
    if (!dir) dir = getcwd(cwd, sizeof cwd) ? cwd : ".";
    struct statvfs fs;
    bool ok = statvfs(dir, &fs) == 0;
    obj(w, "fs");
    int_field(w, "timestamp", now);
    obj(w, "total");
    if (ok) write_fs_figures(c, &fs);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "data");
    tv_jw_arr_begin(w);
    if (ok) {
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "path");
        tv_jw_strz(w, dir);
        write_fs_figures(c, &fs);
        tv_jw_obj_end(w);
    }
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
}

static void write_breaker(nctx *c, tv_breakers *b, tv_breaker_kind k) {
    tv_jw *w = c->w;
    char s[32];
    int64_t limit = atomic_load(&b->b[k].limit);
    /* children: the bytes reserved (ChildMemoryCircuitBreaker.getUsed);
     * parent: its usage as it checks it */
    int64_t est = k == TV_BREAKER_PARENT ? tv_breaker_estimate(b, k) : atomic_load(&b->b[k].used);
    obj(w, tv_breaker_name(k));
    int_field(w, "limit_size_in_bytes", limit);
    tv_jw_keyz(w, "limit_size");
    tv_java_byte_size(limit, s, sizeof s);
    tv_jw_strz(w, s);
    int_field(w, "estimated_size_in_bytes", est);
    tv_jw_keyz(w, "estimated_size");
    tv_java_byte_size(est, s, sizeof s);
    tv_jw_strz(w, s);
    tv_jw_keyz(w, "overhead");
    tv_jw_double(w, k == TV_BREAKER_PARENT ? 1.0 : b->b[k].overhead);
    int_field(w, "tripped", atomic_load(&b->b[k].tripped));
    tv_jw_obj_end(w);
}

static void write_breakers(nctx *c) {
    obj(c->w, "breakers");
    /* OpenSearch's HashMap order of the children, the parent last */
    static const tv_breaker_kind order[] = {TV_BREAKER_REQUEST, TV_BREAKER_FIELDDATA, TV_BREAKER_IN_FLIGHT,
                                            TV_BREAKER_ACCOUNTING, TV_BREAKER_PARENT};
    for (size_t i = 0; i < TV_ARRAY_LEN(order); i++) write_breaker(c, &c->r->node->brk->b, order[i]);
    tv_jw_obj_end(c->w);
}

static void write_script_counts(tv_jw *w) {
    int64_t comp, evict;
    tv_script_cache_stats(&comp, &evict);
    int_field(w, "compilations", comp);
    int_field(w, "cache_evictions", evict);
    int_field(w, "compilation_limit_triggered", 0);
}

/* IngestStats.Stats / SearchPipelineStats' totals */
static void op_totals(nctx *c, const char *key) {
    obj(c->w, key);
    int_field(c->w, "count", 0);
    time_field(c, "time", "time_in_millis", 0);
    int_field(c->w, "current", 0);
    int_field(c->w, "failed", 0);
    tv_jw_obj_end(c->w);
}

static void write_pressure_bytes(nctx *c, bool total) {
    static const char *const k[] = {"combined_coordinating_and_primary", "coordinating", "primary", "replica", "all"};
    for (size_t i = 0; i < TV_ARRAY_LEN(k); i++) {
        char raw[64];
        snprintf(raw, sizeof raw, "%s_in_bytes", k[i]);
        bytes_field(c, k[i], raw, 0);
    }
    if (total) {
        int_field(c->w, "coordinating_rejections", 0);
        int_field(c->w, "primary_rejections", 0);
        int_field(c->w, "replica_rejections", 0);
    }
}

static void write_tracker(nctx *c, const char *name, const char *unit) {
    char a[48], b[48], r[48];
    obj(c->w, name);
    int_field(c->w, "cancellation_count", 0);
    snprintf(a, sizeof a, "current_max_%s", unit);
    snprintf(b, sizeof b, "current_avg_%s", unit);
    snprintf(r, sizeof r, "rolling_avg_%s", unit);
    int_field(c->w, a, 0);
    int_field(c->w, b, 0);
    if (strcmp(unit, "bytes") == 0) int_field(c->w, r, 0);
    tv_jw_obj_end(c->w);
}

static void write_backpressure_task(nctx *c, const char *key) {
    tv_jw *w = c->w;
    obj(w, key);
    obj(w, "resource_tracker_stats");
    write_tracker(c, "cpu_usage_tracker", "millis");
    write_tracker(c, "elapsed_time_tracker", "millis");
    write_tracker(c, "heap_usage_tracker", "bytes");
    tv_jw_obj_end(w);
    obj(w, "cancellation_stats");
    int_field(w, "cancellation_count", 0);
    int_field(w, "cancellation_limit_reached_count", 0);
    tv_jw_obj_end(w);
    int_field(w, "completion_count", 0);
    tv_jw_obj_end(w);
}

static void write_rest(nctx *c, const bool *want, const tv_api_sys *s, int64_t now) {
    tv_jw *w = c->w;
    trove_node *n = c->r->node;
    if (want[S_TRANSPORT]) {
        obj(w, "transport");
        int_field(w, "server_open", 0);
        int_field(w, "total_outbound_connections", 0);
        int_field(w, "rx_count", 0);
        bytes_field(c, "rx_size", "rx_size_in_bytes", 0);
        int_field(w, "tx_count", 0);
        bytes_field(c, "tx_size", "tx_size_in_bytes", 0);
        tv_jw_obj_end(w);
    }
    if (want[S_HTTP]) {
        obj(w, "http");
        int_field(w, "current_open", (int64_t)atomic_load(&n->http_open));
        int_field(w, "total_opened", (int64_t)atomic_load(&n->http_opened));
        tv_jw_obj_end(w);
    }
    if (want[S_BREAKER]) write_breakers(c);
    if (want[S_SCRIPT]) {
        obj(w, "script");
        write_script_counts(w);
        tv_jw_obj_end(w);
    }
    if (want[S_DISCOVERY]) {
        obj(w, "discovery");
        obj(w, "cluster_state_queue");
        int_field(w, "total", 0);
        int_field(w, "pending", 0);
        int_field(w, "committed", 0);
        tv_jw_obj_end(w);
        obj(w, "published_cluster_states");
        int_field(w, "full_states", 0);
        int_field(w, "incompatible_diffs", 0);
        int_field(w, "compatible_diffs", 0);
        tv_jw_obj_end(w);
        obj(w, "cluster_state_stats");
        obj(w, "overall");
        int_field(w, "update_count", 0);
        int_field(w, "total_time_in_millis", 0);
        int_field(w, "failed_count", 0);
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
    }
    if (want[S_INGEST]) {
        obj(w, "ingest");
        op_totals(c, "total");
        empty_obj(w, "pipelines");
        tv_jw_obj_end(w);
    }
    if (want[S_ADAPTIVE]) empty_obj(w, "adaptive_selection"); /* no search was routed between nodes */
    if (want[S_SCRIPT_CACHE]) {
        obj(w, "script_cache");
        obj(w, "sum");
        write_script_counts(w);
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
    }
    if (want[S_IDX_PRESSURE]) {
        obj(w, "indexing_pressure");
        obj(w, "memory");
        obj(w, "current");
        write_pressure_bytes(c, false);
        tv_jw_obj_end(w);
        obj(w, "total");
        write_pressure_bytes(c, true);
        tv_jw_obj_end(w);
        /* indexing_pressure.memory.limit: 10% of the heap */
        bytes_field(c, "limit", "limit_in_bytes", n->brk->b.heap / 10);
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
    }
    if (want[S_SHARD_PRESSURE]) {
        obj(w, "shard_indexing_pressure");
        empty_obj(w, "stats");
        obj(w, "total_rejections_breakup_shadow_mode");
        int_field(w, "node_limits", 0);
        int_field(w, "no_successful_request_limits", 0);
        int_field(w, "throughput_degradation_limits", 0);
        tv_jw_obj_end(w);
        tv_jw_keyz(w, "enabled");
        tv_jw_bool(w, false);
        tv_jw_keyz(w, "enforced");
        tv_jw_bool(w, false);
        tv_jw_obj_end(w);
    }
    if (want[S_SEARCH_BP]) {
        obj(w, "search_backpressure");
        write_backpressure_task(c, "search_task");
        write_backpressure_task(c, "search_shard_task");
        tv_jw_keyz(w, "mode");
        tv_jw_strz(w, "monitor_only");
        tv_jw_obj_end(w);
    }
    if (want[S_CM_THROTTLING]) {
        obj(w, "cluster_manager_throttling");
        obj(w, "cluster_manager_stats");
        int_field(w, "TotalThrottledTasks", 0);
        empty_obj(w, "ThrottledTasksPerTaskType");
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
    }
    if (want[S_WEIGHTED]) {
        obj(w, "weighted_routing");
        obj(w, "stats");
        int_field(w, "fail_open_count", 0);
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
    }
    /* file_cache: none (no search role) */
    if (want[S_TASK_CANCEL]) {
        obj(w, "task_cancellation");
        obj(w, "search_shard_task");
        int_field(w, "current_count_post_cancel", 0);
        int_field(w, "total_count_post_cancel", 0);
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
    }
    if (want[S_SEARCH_PIPELINE]) {
        obj(w, "search_pipeline");
        op_totals(c, "total_request");
        op_totals(c, "total_response");
        empty_obj(w, "pipelines");
        tv_jw_obj_end(w);
    }
    if (want[S_RESOURCE]) {
        obj(w, "resource_usage_stats");
        obj(w, n->node_id);
        int_field(w, "timestamp", now);
        char b[32];
        int64_t cpu = os_cpu_percent();
        snprintf(b, sizeof b, "%.1f", cpu < 0 ? 0.0 : (double)cpu);
        tv_jw_keyz(w, "cpu_utilization_percent");
        tv_jw_strz(w, b);
        int64_t heap = n->brk->b.heap;
        snprintf(b, sizeof b, "%.1f", heap > 0 ? 100.0 * (double)s->rss_bytes / (double)heap : 0.0);
        tv_jw_keyz(w, "memory_utilization_percent");
        tv_jw_strz(w, b);
        obj(w, "io_usage_stats");
        tv_jw_keyz(w, "max_io_utilization_percent");
        tv_jw_strz(w, "0.0");
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
    }
    if (want[S_SEGREP_BP]) {
        obj(w, "segment_replication_backpressure");
        int_field(w, "total_rejected_requests", 0);
        tv_jw_obj_end(w);
    }
    if (want[S_REPOS]) {
        tv_jw_keyz(w, "repositories");
        tv_jw_arr_begin(w);
        tv_jw_arr_end(w);
    }
    if (want[S_ADMISSION]) {
        obj(w, "admission_control");
        static const char *const ctl[] = {"global_cpu_usage", "global_io_usage"};
        for (int i = 0; i < 2; i++) {
            obj(w, ctl[i]);
            obj(w, "transport");
            empty_obj(w, "rejection_count");
            tv_jw_obj_end(w);
            tv_jw_obj_end(w);
        }
        tv_jw_obj_end(w);
    }
    if (want[S_CACHES]) {
        obj(w, "caches");
        obj(w, "request_cache");
        bytes_field(c, "size", "size_in_bytes", 0);
        int_field(w, "evictions", 0);
        int_field(w, "hit_count", 0);
        int_field(w, "miss_count", 0);
        int_field(w, "item_count", 0);
        tv_jw_keyz(w, "store_name");
        tv_jw_strz(w, "opensearch_onheap");
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
    }
    if (want[S_REMOTE]) {
        obj(w, "remote_store");
        int_field(w, "last_successful_fetch_of_pinned_timestamps", 0);
        tv_jw_obj_end(w);
    }
}

/* ------------------------------------------------------------ request */

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The comma list's names missing from known (sorted, unique), into *bad. */
static size_t unknown_names(tv_req *r, const char **parts, size_t n, const char *const *known, const char ***bad) {
    const char **u = tv_arena_calloc(&r->arena, n + 1, sizeof *u);
    if (!u) return (r->oom = true), 0;
    size_t nu = 0;
    for (size_t i = 0; i < n; i++) {
        bool ok = false;
        for (size_t k = 0; known[k]; k++) ok |= strcmp(known[k], parts[i]) == 0;
        bool dup = false;
        for (size_t j = 0; j < nu; j++) dup |= strcmp(u[j], parts[i]) == 0;
        if (!ok && !dup) u[nu++] = parts[i];
    }
    qsort(u, nu, sizeof *u, cmp_str);
    *bad = u;
    return nu;
}

static bool has_param_fields(tv_req *r, const char *key) {
    const char *v = tv_req_param(r, key);
    const char **p = NULL;
    return v && tv_split_commas(&r->arena, v, &p) > 0;
}

static void nodes_stats(tv_req *r, const char *ids, const char *metric, const char *index_metric) {
    bool want[S__COUNT] = {0};
    unsigned imask = 0;
    const char **m = NULL;
    size_t nm = metric ? tv_split_commas(&r->arena, metric, &m) : 0;
    bool all = nm == 0;
    for (size_t i = 0; i < nm; i++) all |= strcmp(m[i], "_all") == 0;
    if (all && nm <= 1) {
        if (index_metric)
            return (void)tv_req_fail(r, TROVE_EARG, "request [%s] contains index metrics [%s] but all stats requested",
                                     r->path, index_metric);
        for (int i = 0; i < S__COUNT; i++) want[i] = true;
        imask = TV_API_STATS_ALL;
    } else if (all) {
        return (void)tv_req_fail(r, TROVE_EARG, "request [%s] contains _all and individual metrics [%s]", r->path,
                                 metric);
    } else {
        const char **bad;
        size_t nbad = unknown_names(r, m, nm, metric_names, &bad);
        if (r->oom) return;
        if (nbad) return tv_req_fail_unrecognized(r, "metric", bad, nbad, metric_names);
        for (size_t i = 0; i < nm; i++)
            for (int k = 0; k < S__COUNT; k++)
                if (strcmp(metric_names[k], m[i]) == 0) want[k] = true;
        if (want[S_INDICES]) {
            const char **im = NULL;
            size_t ni = index_metric ? tv_split_commas(&r->arena, index_metric, &im) : 0;
            bool iall = ni == 0 || (ni == 1 && strcmp(im[0], "_all") == 0);
            if (iall) {
                imask = TV_API_STATS_ALL;
            } else {
                nbad = unknown_names(r, im, ni, tv_api_stats_metrics, &bad);
                if (r->oom) return;
                if (nbad) return tv_req_fail_unrecognized(r, "index metric", bad, nbad, tv_api_stats_metrics);
                for (size_t i = 0; i < ni; i++)
                    for (int k = 0; tv_api_stats_metrics[k]; k++)
                        if (strcmp(tv_api_stats_metrics[k], im[i]) == 0) imask |= 1u << k;
            }
        } else if (index_metric) {
            return (void)tv_req_fail(r, TROVE_EARG,
                                     "request [%s] contains index metrics [%s] but indices stats not requested",
                                     r->path, index_metric);
        }
    }
    nctx c = {.r = r};
    if (!tv_req_param_bool(r, "human", false, &c.human)) return;
    bool b;
    if (!tv_req_param_bool(r, "include_segment_file_sizes", false, &b) ||
        !tv_req_param_bool(r, "include_all", false, &b) || !tv_req_param_bool(r, "top", false, &b))
        return;
    (void)tv_req_param(r, "groups"); /* no search carries stats groups (search.c refuses them) */
    (void)tv_req_param(r, "types");
    (void)tv_req_param(r, "timeout");
    bool fd = want[S_INDICES] && (imask & (1u << 10)) &&
              (has_param_fields(r, "fielddata_fields") || has_param_fields(r, "fields"));
    bool comp = want[S_INDICES] && (imask & (1u << 11)) &&
                (has_param_fields(r, "completion_fields") || has_param_fields(r, "fields"));
    /* NodeIndicesStats checks the level as it writes */
    const char *level = tv_req_param(r, "level");
    bool per_index = false;
    if (want[S_INDICES] && level) {
        if (strcasecmp(level, "indices") && strcasecmp(level, "node") && strcasecmp(level, "shards"))
            return (void)tv_req_fail(r, TROVE_EARG,
                                     "level parameter must be one of [indices] or [node] or [shards] but was [%s]",
                                     level);
        if (strcasecmp(level, "shards") == 0)
            return (void)tv_req_fail(r, TROVE_EUNSUPPORTED,
                                     "[level=shards] of the nodes stats API is not supported by trove");
        per_index = strcasecmp(level, "indices") == 0;
    }
    bool one = tv_api_node_selects(r, ids);
    tv_index_list l = {0};
    tv_index_stats *st = NULL, sum;
    memset(&sum, 0, sizeof sum);
    if (one && want[S_INDICES]) {
        tv_resolve_opts ro = {.allow_no_indices = true, .expand = TV_EXPAND_OPEN | TV_EXPAND_HIDDEN};
        if (!tv_node_resolve_ex(r, "_all", &ro, &l)) return;
        st = l.len ? tv_arena_calloc(&r->arena, l.len, sizeof *st) : NULL;
        if (l.len && !st) {
            tv_index_list_release(&l);
            r->oom = true;
            return;
        }
        for (size_t i = 0; i < l.len; i++) {
            tv_index_get_stats(l.items[i], &st[i]);
            tv_api_stats_add(&sum, &st[i]);
        }
    }
    tv_api_sys sys;
    tv_api_sys_info(&sys);
    int64_t now = tv_now_ms();
    tv_jw *w = tv_req_json(r, 200);
    c.w = w;
    tv_jw_obj_begin(w);
    tv_api_nodes_header(r, w, one);
    obj(w, "nodes");
    if (one) {
        obj(w, r->node->node_id);
        int_field(w, "timestamp", now);
        tv_api_node_head(r, w);
        if (want[S_INDICES]) write_indices(&c, &l, st, &sum, imask, fd, comp, per_index);
        if (want[S_OS]) write_os(&c, &sys, now);
        if (want[S_PROCESS]) write_process(&c, &sys, now);
        if (want[S_JVM]) write_jvm(&c, &sys, now);
        if (want[S_THREAD_POOL]) write_thread_pool(&c);
        if (want[S_FS]) write_fs(&c, now);
        write_rest(&c, want, &sys, now);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
    tv_index_list_release(&l);
}

/* GET /_nodes/stats[/{metric}[/{index_metric}]] */
void tv_h_nodes_stats(tv_req *r) { nodes_stats(r, NULL, r->p_name, r->p_name2); }
/* GET /_nodes/{node_id}/stats[/{metric}[/{index_metric}]] */
void tv_h_nodes_stats_node(tv_req *r) { nodes_stats(r, r->p_name, r->p_name2, r->p_name3); }

void trove_node_http_conn(trove_node *n, int delta) {
    atomic_fetch_add(&n->http_open, delta);
    if (delta > 0) atomic_fetch_add(&n->http_opened, delta);
}
