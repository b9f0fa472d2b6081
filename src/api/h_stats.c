/*
 * h_stats.c — GET [/{index}]/_stats[/{metric}], and POST|GET _flush and
 * POST _forcemerge.
 *
 * _stats writes every section of OpenSearch 3.1's CommonStats, in its
 * order (docs, store, indexing, get, search, merges, refresh, flush,
 * warmer, query_cache, fielddata, completion, segments, translog,
 * request_cache, recovery), each in its *Stats.toXContent shape, with the
 * `human` strings (TimeValue and ByteSizeValue, util/java.c) before the
 * raw figures. The figures are what trove really did, counted per index
 * (index.h, tv_stat) where the work happens:
 *   indexing   engine writes (applied ones with their time; index writes
 *              refused by version conditions as failed); no-op updates in
 *              the update path (h_doc.c)
 *   get        GET/HEAD by id, _source, _mget items and the read of an
 *              update (h_doc.c), exists or missing, with their time
 *   search     per target index of a search (one index does one shard's
 *              work): query or, for a suggest-only search, suggest; fetch
 *              when the page held its hits (h_search.c); scroll and
 *              point-in-time contexts while open and when freed (h_scroll.c)
 *   refresh    every refresh asked for (API, ?refresh, periodic); external
 *              equals total: every trove refresh publishes a snapshot
 *   flush      each _flush (and the flush of a close) and, as periodic,
 *              each commit by translog size
 *   merges     the engine's merges, current ones on the background thread
 *   segments   count is the working segments; Lucene 9's per-structure
 *              memory figures are 0 in OpenSearch too; index_writer_memory
 *              is the write buffer's bytes, version_map_memory the id map
 *              of the buffer and the delete tombstones (both estimated from
 *              their real sizes); fixed_bit_set 0 (the nested bitsets a
 *              segment caches are not measured)
 *   translog   on a data directory the translog file's bytes and the writes
 *              since the last commit; in memory the writes since the last
 *              flush and their encoded size (translog_ops.c, framed as the
 *              file frames them, no file header); uncommitted equals the
 *              whole (a commit drops the generations it covers)
 * trove has no query cache, request cache, fielddata cache, completion
 * suggester, warmers, recovery or remote store: those are zeros, which is
 * what they hold (fielddata on text fields is computed per request, never
 * kept). `fields`, `fielddata_fields` and `completion_fields` add the
 * (empty) per-field maps as OpenSearch does when they are given; `groups`
 * adds nothing since no search can carry "stats" groups (search.c refuses
 * them). level=shards answers 400: the per-shard sections (routing,
 * commit, seq_no, retention leases, shard path) are not reproduced.
 * On one node replicas are never assigned, so "total" equals "primaries",
 * and _shards counts every copy (total) against the started primaries
 * (successful), as OpenSearch does. Closed indices are reported with
 * forbid_closed_indices=false; closing (and opening) recreates
 * OpenSearch's shards, so their counters start again from zero.
 *
 * _flush and _forcemerge are accepted: the in-memory engine has nothing to
 * fsync; both answer the broadcast _shards header after refreshing, so a
 * forced merge request still makes buffered writes visible as OpenSearch's
 * flush would not hide them. _forcemerge with max_num_segments merges each
 * index down to that many segments (tv_index_force_merge); without it the
 * merge policy's own merges are all there is to do, as in OpenSearch.
 *
 * Rejected: a per-request counting hook in the engine's get (it would count
 * trove's own lookups, such as the routing emulation's, that OpenSearch
 * does not make), and measuring a search from outside the search layer
 * (the query and fetch phases could not be told apart).
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

/* OpenSearch's metric names, in CommonStats' output order; bit i of a mask
 * selects metrics[i]. */
#define metrics tv_api_stats_metrics
const char *const tv_api_stats_metrics[] = {"docs",     "store",       "indexing",  "get",        "search",
                                      "merge",    "refresh",     "flush",     "warmer",     "query_cache",
                                      "fielddata", "completion", "segments",  "translog",   "request_cache",
                                      "recovery", NULL};
enum {
    M_DOCS = 1u << 0, M_STORE = 1u << 1, M_INDEXING = 1u << 2, M_GET = 1u << 3, M_SEARCH = 1u << 4,
    M_MERGE = 1u << 5, M_REFRESH = 1u << 6, M_FLUSH = 1u << 7, M_WARMER = 1u << 8, M_QUERY_CACHE = 1u << 9,
    M_FIELDDATA = 1u << 10, M_COMPLETION = 1u << 11, M_SEGMENTS = 1u << 12, M_TRANSLOG = 1u << 13,
    M_REQUEST_CACHE = 1u << 14, M_RECOVERY = 1u << 15, M_ALL = (1u << 16) - 1
};

typedef struct wopts {
    unsigned mask;
    bool human;
    bool fd_fields, comp_fields; /* the per-field maps were asked for */
} wopts;

static int64_t ms_of(int64_t ns) { return ns > 0 ? ns / 1000000 : 0; }

/* XContentBuilder.humanReadableField of a TimeValue in milliseconds. */
static void time_field(tv_jw *w, const wopts *o, const char *human, const char *raw, int64_t ms) {
    if (o->human) {
        char b[32];
        tv_java_time_value(ms, b, sizeof b);
        tv_jw_keyz(w, human);
        tv_jw_strz(w, b);
    }
    tv_jw_keyz(w, raw);
    tv_jw_int(w, ms);
}

/* The same of a ByteSizeValue. */
static void bytes_field(tv_jw *w, const wopts *o, const char *human, const char *raw, int64_t bytes) {
    if (o->human) {
        char b[32];
        tv_java_byte_size(bytes, b, sizeof b);
        tv_jw_keyz(w, human);
        tv_jw_strz(w, b);
    }
    tv_jw_keyz(w, raw);
    tv_jw_int(w, bytes);
}

static void int_field(tv_jw *w, const char *key, int64_t v) {
    tv_jw_keyz(w, key);
    tv_jw_int(w, v);
}

/* A group of zero figures: human and raw byte fields (started, succeeded,
 * failed ...) as the remote store's statistics write them. */
static void zero_bytes3(tv_jw *w, const wopts *o, const char *key, const char *a, const char *b, const char *c) {
    tv_jw_keyz(w, key);
    tv_jw_obj_begin(w);
    const char *names[] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        char raw[40];
        snprintf(raw, sizeof raw, "%s_bytes", names[i]);
        bytes_field(w, o, names[i], raw, 0);
    }
    tv_jw_obj_end(w);
}

static void write_search(tv_jw *w, const wopts *o, const int64_t *c) {
    tv_jw_keyz(w, "search");
    tv_jw_obj_begin(w);
    int_field(w, "open_contexts", c[TV_STAT_SCROLL_CURRENT] + c[TV_STAT_PIT_CURRENT]);
    int_field(w, "query_total", c[TV_STAT_QUERY_TOTAL]);
    time_field(w, o, "query_time", "query_time_in_millis", ms_of(c[TV_STAT_QUERY_NS]));
    int_field(w, "query_current", 0);
    /* trove never slices a query across threads */
    int_field(w, "concurrent_query_total", 0);
    time_field(w, o, "concurrent_query_time", "concurrent_query_time_in_millis", 0);
    int_field(w, "concurrent_query_current", 0);
    tv_jw_keyz(w, "concurrent_avg_slice_count");
    tv_jw_double(w, 0.0);
    int_field(w, "fetch_total", c[TV_STAT_FETCH_TOTAL]);
    time_field(w, o, "fetch_time", "fetch_time_in_millis", ms_of(c[TV_STAT_FETCH_NS]));
    int_field(w, "fetch_current", 0);
    int_field(w, "scroll_total", c[TV_STAT_SCROLL_TOTAL]);
    time_field(w, o, "scroll_time", "scroll_time_in_millis", ms_of(c[TV_STAT_SCROLL_NS]));
    int_field(w, "scroll_current", c[TV_STAT_SCROLL_CURRENT]);
    int_field(w, "point_in_time_total", c[TV_STAT_PIT_TOTAL]);
    time_field(w, o, "point_in_time_time", "point_in_time_time_in_millis", ms_of(c[TV_STAT_PIT_NS]));
    int_field(w, "point_in_time_current", c[TV_STAT_PIT_CURRENT]);
    int_field(w, "suggest_total", c[TV_STAT_SUGGEST_TOTAL]);
    time_field(w, o, "suggest_time", "suggest_time_in_millis", ms_of(c[TV_STAT_SUGGEST_NS]));
    int_field(w, "suggest_current", 0);
    /* the search-idle refresh is lazy here (engine.c) and not counted */
    int_field(w, "search_idle_reactivate_count_total", 0);
    tv_jw_obj_end(w);
}

static void write_segments(tv_jw *w, const wopts *o, const tv_index_stats *st) {
    tv_jw_keyz(w, "segments");
    tv_jw_obj_begin(w);
    int_field(w, "count", st->segments);
    static const char *const zero[] = {"memory", "terms_memory", "stored_fields_memory", "term_vectors_memory",
                                       "norms_memory", "points_memory", "doc_values_memory"};
    for (size_t i = 0; i < TV_ARRAY_LEN(zero); i++) {
        char raw[48];
        snprintf(raw, sizeof raw, "%s_in_bytes", zero[i]);
        bytes_field(w, o, zero[i], raw, 0);
    }
    bytes_field(w, o, "index_writer_memory", "index_writer_memory_in_bytes", (int64_t)st->buffer_bytes);
    bytes_field(w, o, "version_map_memory", "version_map_memory_in_bytes", (int64_t)st->version_map_bytes);
    bytes_field(w, o, "fixed_bit_set", "fixed_bit_set_memory_in_bytes", 0);
    int_field(w, "max_unsafe_auto_id_timestamp", -1);
    tv_jw_keyz(w, "remote_store");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "upload");
    tv_jw_obj_begin(w);
    zero_bytes3(w, o, "total_upload_size", "started", "succeeded", "failed");
    tv_jw_keyz(w, "refresh_size_lag");
    tv_jw_obj_begin(w);
    bytes_field(w, o, "total", "total_bytes", 0);
    bytes_field(w, o, "max", "max_bytes", 0);
    tv_jw_obj_end(w);
    time_field(w, o, "max_refresh_time_lag", "max_refresh_time_lag_in_millis", 0);
    time_field(w, o, "total_time_spent", "total_time_spent_in_millis", 0);
    tv_jw_keyz(w, "pressure");
    tv_jw_obj_begin(w);
    int_field(w, "total_rejections", 0);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "download");
    tv_jw_obj_begin(w);
    zero_bytes3(w, o, "total_download_size", "started", "succeeded", "failed");
    time_field(w, o, "total_time_spent", "total_time_spent_in_millis", 0);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "segment_replication");
    tv_jw_obj_begin(w);
    int_field(w, "max_bytes_behind", 0);
    int_field(w, "total_bytes_behind", 0);
    int_field(w, "max_replication_lag", 0);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "file_sizes");
    tv_jw_obj_begin(w);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

static void write_translog(tv_jw *w, const wopts *o, const tv_index_stats *st) {
    tv_jw_keyz(w, "translog");
    tv_jw_obj_begin(w);
    int_field(w, "operations", (int64_t)st->tlog_ops);
    bytes_field(w, o, "size", "size_in_bytes", (int64_t)st->tlog_bytes);
    int_field(w, "uncommitted_operations", (int64_t)st->tlog_ops);
    bytes_field(w, o, "uncommitted_size", "uncommitted_size_in_bytes", (int64_t)st->tlog_bytes);
    int_field(w, "earliest_last_modified_age", st->tlog_age_ms);
    tv_jw_keyz(w, "remote_store");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "upload");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "total_uploads");
    tv_jw_obj_begin(w);
    int_field(w, "started", 0);
    int_field(w, "failed", 0);
    int_field(w, "succeeded", 0);
    tv_jw_obj_end(w);
    zero_bytes3(w, o, "total_upload_size", "started", "failed", "succeeded");
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

static void write_common_fields(tv_jw *w, const tv_index_stats *st, const wopts *o) {
    const int64_t *c = st->ctr;
    unsigned m = o->mask;
    if (m & M_DOCS) {
        tv_jw_keyz(w, "docs");
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "count");
        tv_jw_uint(w, st->docs_count);
        tv_jw_keyz(w, "deleted");
        tv_jw_uint(w, st->docs_deleted);
        tv_jw_obj_end(w);
    }
    if (m & M_STORE) {
        tv_jw_keyz(w, "store");
        tv_jw_obj_begin(w);
        bytes_field(w, o, "size", "size_in_bytes", (int64_t)st->store_bytes);
        bytes_field(w, o, "reserved", "reserved_in_bytes", 0);
        tv_jw_obj_end(w);
    }
    if (m & M_INDEXING) {
        tv_jw_keyz(w, "indexing");
        tv_jw_obj_begin(w);
        int_field(w, "index_total", c[TV_STAT_INDEX_TOTAL]);
        time_field(w, o, "index_time", "index_time_in_millis", ms_of(c[TV_STAT_INDEX_NS]));
        int_field(w, "index_current", 0);
        int_field(w, "index_failed", c[TV_STAT_INDEX_FAILED]);
        int_field(w, "delete_total", c[TV_STAT_DELETE_TOTAL]);
        time_field(w, o, "delete_time", "delete_time_in_millis", ms_of(c[TV_STAT_DELETE_NS]));
        int_field(w, "delete_current", 0);
        int_field(w, "noop_update_total", c[TV_STAT_NOOP_UPDATE]);
        tv_jw_keyz(w, "is_throttled");
        tv_jw_bool(w, false);
        time_field(w, o, "throttle_time", "throttle_time_in_millis", 0);
        /* per-status item counts are node-level (bulk) figures */
        tv_jw_keyz(w, "doc_status");
        tv_jw_obj_begin(w);
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
    }
    if (m & M_GET) {
        int64_t ex = ms_of(c[TV_STAT_GET_EXISTS_NS]), mi = ms_of(c[TV_STAT_GET_MISSING_NS]);
        char b[32];
        tv_jw_keyz(w, "get");
        tv_jw_obj_begin(w);
        int_field(w, "total", c[TV_STAT_GET_EXISTS] + c[TV_STAT_GET_MISSING]);
        /* the deprecated "getTime" is written always (GetStats) */
        tv_java_time_value(ex + mi, b, sizeof b);
        tv_jw_keyz(w, "getTime");
        tv_jw_strz(w, b);
        time_field(w, o, "time", "time_in_millis", ex + mi);
        int_field(w, "exists_total", c[TV_STAT_GET_EXISTS]);
        time_field(w, o, "exists_time", "exists_time_in_millis", ex);
        int_field(w, "missing_total", c[TV_STAT_GET_MISSING]);
        time_field(w, o, "missing_time", "missing_time_in_millis", mi);
        int_field(w, "current", 0);
        tv_jw_obj_end(w);
    }
    if (m & M_SEARCH) write_search(w, o, c);
    if (m & M_MERGE) {
        tv_jw_keyz(w, "merges");
        tv_jw_obj_begin(w);
        int_field(w, "current", c[TV_STAT_MERGE_CURRENT]);
        int_field(w, "current_docs", c[TV_STAT_MERGE_CURRENT_DOCS]);
        bytes_field(w, o, "current_size", "current_size_in_bytes", c[TV_STAT_MERGE_CURRENT_BYTES]);
        int_field(w, "total", c[TV_STAT_MERGE_TOTAL]);
        time_field(w, o, "total_time", "total_time_in_millis", ms_of(c[TV_STAT_MERGE_NS]));
        int_field(w, "total_docs", c[TV_STAT_MERGE_DOCS]);
        bytes_field(w, o, "total_size", "total_size_in_bytes", c[TV_STAT_MERGE_BYTES]);
        /* merges are never paused or rate limited */
        time_field(w, o, "total_stopped_time", "total_stopped_time_in_millis", 0);
        time_field(w, o, "total_throttled_time", "total_throttled_time_in_millis", 0);
        bytes_field(w, o, "total_auto_throttle", "total_auto_throttle_in_bytes", 0);
        int_field(w, "unreferenced_file_cleanups_performed", 0);
        tv_jw_obj_end(w);
    }
    if (m & M_REFRESH) {
        tv_jw_keyz(w, "refresh");
        tv_jw_obj_begin(w);
        int_field(w, "total", c[TV_STAT_REFRESH_TOTAL]);
        time_field(w, o, "total_time", "total_time_in_millis", ms_of(c[TV_STAT_REFRESH_NS]));
        int_field(w, "external_total", c[TV_STAT_REFRESH_TOTAL]);
        time_field(w, o, "external_total_time", "external_total_time_in_millis", ms_of(c[TV_STAT_REFRESH_NS]));
        int_field(w, "listeners", 0); /* refresh=wait_for refreshes at once: nobody waits */
        tv_jw_obj_end(w);
    }
    if (m & M_FLUSH) {
        tv_jw_keyz(w, "flush");
        tv_jw_obj_begin(w);
        int_field(w, "total", c[TV_STAT_FLUSH_TOTAL]);
        int_field(w, "periodic", c[TV_STAT_FLUSH_PERIODIC]);
        time_field(w, o, "total_time", "total_time_in_millis", ms_of(c[TV_STAT_FLUSH_NS]));
        tv_jw_obj_end(w);
    }
    if (m & M_WARMER) {
        tv_jw_keyz(w, "warmer");
        tv_jw_obj_begin(w);
        int_field(w, "current", 0);
        int_field(w, "total", 0);
        time_field(w, o, "total_time", "total_time_in_millis", 0);
        tv_jw_obj_end(w);
    }
    if (m & M_QUERY_CACHE) {
        tv_jw_keyz(w, "query_cache");
        tv_jw_obj_begin(w);
        bytes_field(w, o, "memory_size", "memory_size_in_bytes", 0);
        static const char *const qc[] = {"total_count", "hit_count", "miss_count", "cache_size", "cache_count",
                                         "evictions"};
        for (size_t i = 0; i < TV_ARRAY_LEN(qc); i++) int_field(w, qc[i], 0);
        tv_jw_obj_end(w);
    }
    if (m & M_FIELDDATA) {
        tv_jw_keyz(w, "fielddata");
        tv_jw_obj_begin(w);
        bytes_field(w, o, "memory_size", "memory_size_in_bytes", 0);
        int_field(w, "evictions", 0);
        if (o->fd_fields) { /* no field has fielddata held in memory */
            tv_jw_keyz(w, "fields");
            tv_jw_obj_begin(w);
            tv_jw_obj_end(w);
        }
        tv_jw_obj_end(w);
    }
    if (m & M_COMPLETION) {
        tv_jw_keyz(w, "completion");
        tv_jw_obj_begin(w);
        bytes_field(w, o, "size", "size_in_bytes", 0);
        if (o->comp_fields) { /* no completion field exists */
            tv_jw_keyz(w, "fields");
            tv_jw_obj_begin(w);
            tv_jw_obj_end(w);
        }
        tv_jw_obj_end(w);
    }
    if (m & M_SEGMENTS) write_segments(w, o, st);
    if (m & M_TRANSLOG) write_translog(w, o, st);
    if (m & M_REQUEST_CACHE) {
        tv_jw_keyz(w, "request_cache");
        tv_jw_obj_begin(w);
        bytes_field(w, o, "memory_size", "memory_size_in_bytes", 0);
        int_field(w, "evictions", 0);
        int_field(w, "hit_count", 0);
        int_field(w, "miss_count", 0);
        tv_jw_obj_end(w);
    }
    if (m & M_RECOVERY) {
        tv_jw_keyz(w, "recovery");
        tv_jw_obj_begin(w);
        int_field(w, "current_as_source", 0);
        int_field(w, "current_as_target", 0);
        time_field(w, o, "throttle_time", "throttle_time_in_millis", 0);
        tv_jw_obj_end(w);
    }
}

static void write_common(tv_jw *w, const tv_index_stats *st, const wopts *o) {
    tv_jw_obj_begin(w);
    write_common_fields(w, st, o);
    tv_jw_obj_end(w);
}

void tv_api_write_common_stats(tv_jw *w, const tv_index_stats *st, unsigned mask, bool human, bool fd_fields,
                               bool comp_fields) {
    wopts o = {.mask = mask, .human = human, .fd_fields = fd_fields, .comp_fields = comp_fields};
    write_common_fields(w, st, &o);
}

/* CommonStats.add: sums, and the translog's earliest age as the smallest
 * one set (TranslogStats.add). */
void tv_api_stats_add(tv_index_stats *a, const tv_index_stats *b) {
    a->docs_count += b->docs_count;
    a->docs_deleted += b->docs_deleted;
    a->store_bytes += b->store_bytes;
    a->segments += b->segments;
    a->buffer_bytes += b->buffer_bytes;
    a->version_map_bytes += b->version_map_bytes;
    a->tlog_ops += b->tlog_ops;
    a->tlog_bytes += b->tlog_bytes;
    a->tlog_age_ms = a->tlog_age_ms == 0 ? b->tlog_age_ms : TV_MIN(a->tlog_age_ms, b->tlog_age_ms);
    for (int i = 0; i < TV_STAT__COUNT; i++) a->ctr[i] += b->ctr[i];
}

/* Whether a comma list parameter names at least one field. */
static bool has_fields(tv_req *r, const char *key) {
    const char *v = tv_req_param(r, key);
    if (!v) return false;
    const char **parts = NULL;
    return tv_split_commas(&r->arena, v, &parts) > 0;
}

void tv_h_stats(tv_req *r) {
    wopts o = {.mask = M_ALL};
    if (!tv_req_param_bool(r, "human", false, &o.human)) return;
    if (r->p_name) {
        const char **m = NULL;
        size_t nm = tv_split_commas(&r->arena, r->p_name, &m);
        bool all = false;
        o.mask = 0;
        tv_buf bad;
        tv_buf_init(&bad);
        size_t nbad = 0;
        /* RestIndicesStatsAction: unknown metrics reported together, sorted */
        for (size_t i = 0; i < nm; i++) {
            unsigned bit = 0;
            for (size_t k = 0; metrics[k]; k++)
                if (strcmp(metrics[k], m[i]) == 0) bit = 1u << k;
            if (strcmp(m[i], "_all") == 0) all = true;
            else if (bit) o.mask |= bit;
            else {
                bool seen = false;
                for (size_t j = 0; j < i; j++) seen |= strcmp(m[j], m[i]) == 0;
                if (!seen) nbad++;
            }
        }
        if (all && nm > 1) {
            tv_buf_fini(&bad);
            tv_req_fail(r, TROVE_EARG, "request [%s] contains _all and individual metrics [%s]", r->path, r->p_name);
            return;
        }
        if (nbad) {
            /* a TreeSet's order: sort the unknown names */
            const char **u = tv_arena_calloc(&r->arena, nbad, sizeof *u);
            size_t nu = 0;
            for (size_t i = 0; u && i < nm; i++) {
                bool known = strcmp(m[i], "_all") == 0;
                for (size_t k = 0; metrics[k]; k++) known |= strcmp(metrics[k], m[i]) == 0;
                bool dup = false;
                for (size_t j = 0; j < nu; j++) dup |= strcmp(u[j], m[i]) == 0;
                if (known || dup) continue;
                size_t at = nu++;
                while (at > 0 && strcmp(u[at - 1], m[i]) > 0) {
                    u[at] = u[at - 1];
                    at--;
                }
                u[at] = m[i];
            }
            if (!u) {
                tv_buf_fini(&bad);
                r->oom = true;
                return;
            }
            for (size_t i = 0; i < nu; i++) tv_buf_printf(&bad, "%s%s", i ? ", " : "", u[i]);
            if (bad.oom) r->oom = true;
            else
                tv_req_fail(r, TROVE_EARG, "request [%s] contains unrecognized metric%s: [%.*s]", r->path,
                            nu > 1 ? "s" : "", (int)bad.len, bad.data);
            tv_buf_fini(&bad);
            return;
        }
        tv_buf_fini(&bad);
        if (all) o.mask = M_ALL;
    }
    const char *level = tv_req_param(r, "level");
    if (level && strcmp(level, "cluster") && strcmp(level, "indices") && strcmp(level, "shards")) {
        tv_req_fail(r, TROVE_EARG,
                    "level parameter must be one of [cluster] or [indices] or [shards] but was [%s]", level);
        return;
    }
    o.fd_fields = (o.mask & M_FIELDDATA) && has_fields(r, tv_req_param(r, "fielddata_fields") ? "fielddata_fields" : "fields");
    o.comp_fields =
        (o.mask & M_COMPLETION) && has_fields(r, tv_req_param(r, "completion_fields") ? "completion_fields" : "fields");
    bool b;
    if (!tv_req_param_bool(r, "include_segment_file_sizes", false, &b) ||
        !tv_req_param_bool(r, "include_unloaded_segments", false, &b) ||
        !tv_req_param_bool(r, "include_field_level_segment_file_sizes", false, &b))
        return;
    (void)tv_req_param(r, "groups"); /* no search carries groups (see above) */
    bool forbid_closed;
    if (!tv_req_param_bool(r, "forbid_closed_indices", true, &forbid_closed)) return;
    tv_resolve_opts ro = {.allow_no_indices = true, .expand = TV_EXPAND_OPEN | TV_EXPAND_HIDDEN,
                          .forbid_closed = forbid_closed};
    if (!tv_resolve_opts_parse(r, &ro)) return;
    if (level && strcmp(level, "shards") == 0) {
        tv_req_fail(r, TROVE_EUNSUPPORTED, "[level=shards] of the index stats API is not supported by trove");
        return;
    }
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &ro, &l)) return;
    tv_index_stats *st = l.len ? tv_arena_calloc(&r->arena, l.len, sizeof *st) : NULL;
    if (l.len && !st) {
        tv_index_list_release(&l);
        r->oom = true;
        return;
    }
    tv_index_stats all;
    memset(&all, 0, sizeof all);
    int64_t total = 0, ok = 0;
    for (size_t i = 0; i < l.len; i++) {
        tv_index_get_stats(l.items[i], &st[i]);
        tv_api_stats_add(&all, &st[i]);
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
    write_common(w, &all, &o);
    tv_jw_keyz(w, "total");
    write_common(w, &all, &o);
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
            write_common(w, &st[i], &o);
            tv_jw_keyz(w, "total");
            write_common(w, &st[i], &o);
            tv_jw_obj_end(w);
        }
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_index_list_release(&l);
}

void tv_api_count_get(tv_index *idx, bool found, uint64_t t0) {
    int64_t ns = (int64_t)(tv_mono_ns() - t0);
    tv_index_stat_add(idx, found ? TV_STAT_GET_EXISTS : TV_STAT_GET_MISSING, 1);
    tv_index_stat_add(idx, found ? TV_STAT_GET_EXISTS_NS : TV_STAT_GET_MISSING_NS, ns);
}

/* One index's flush (_flush, the close of an index, the flush of
 * _forcemerge): the translog made durable whatever its durability says,
 * the buffer refreshed, and on a data directory a commit. */
static tv_status flush_one(tv_req *r, tv_index *idx, bool counted, int64_t max_segments, tv_error *err) {
    uint64_t t0 = tv_mono_ns();
    tv_status st = tv_index_sync(idx, TV_SYNC_FORCE, err);
    if (st == TROVE_OK && tv_index_refresh(idx) == TROVE_ENOMEM) st = tv_error_oom(err);
    if (st == TROVE_OK && max_segments > 0 &&
        tv_index_force_merge(idx, (uint32_t)TV_MIN(max_segments, (int64_t)UINT32_MAX)) == TROVE_ENOMEM)
        st = tv_error_oom(err);
    if (st == TROVE_OK) st = tv_durable_commit(r->node, idx, err);
    if (st == TROVE_OK) tv_index_note_flush(idx, counted, false, (int64_t)(tv_mono_ns() - t0));
    return st;
}

tv_status tv_api_flush_index(tv_req *r, tv_index *idx, tv_error *err) { return flush_one(r, idx, true, -1, err); }

/* _flush and _forcemerge: each index flushed (flush_one); with forcemerge
 * and max_num_segments merged down to that many segments after its
 * refresh, before its commit. */
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
        /* a forced merge flushes too, uncounted (InternalEngine's own flush) */
        if (flush_one(r, l.items[i], !forcemerge, forcemerge ? mns : -1, &serr) != TROVE_OK) {
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
