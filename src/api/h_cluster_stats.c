/*
 * h_cluster_stats.c — GET /_cluster/stats[/nodes/{node_id}]
 * (ClusterStatsResponse for the one node trove is).
 *
 * indices: every index (open and closed as OpenSearch counts them: closed
 * ones have no shard stats), shards per index (min/max/avg over indices),
 * the live and deleted document counts and store size from the index
 * layer's statistics, segment counts, the mapped field types with how many
 * fields and indices use each. fielddata, query_cache and completion stay
 * at zero: trove has none of them. nodes: one node counted under each of
 * its roles (master and cluster_manager both, as OpenSearch 2+ counts the
 * legacy name too), the OpenSearch version trove answers as, os figures
 * from /proc/meminfo and uname, the process's open descriptors, a
 * JVM-shaped section with what trove has in its place (uptime, the heap
 * budget its breakers use, resident memory as heap used, thread count),
 * the file system holding the data directory (the working directory for
 * an in-memory node), plugins (analysis-kuromoji when available), discovery type single-node, packaging
 * type tar.
 *
 * A node filter that does not select this node gives zero nodes, as
 * OpenSearch answers for a filter matching none.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/statvfs.h>

#include "api.h"

typedef struct ftype {
    const char *name;
    int64_t count, indices;
} ftype;

static int cmp_ftype(const void *a, const void *b) {
    return strcmp(((const ftype *)a)->name, ((const ftype *)b)->name);
}

/* Counts the mapping's field types ("type": "x" in properties, recursively). */
static void count_types(const tv_json *props, ftype *ft, size_t *nft, size_t cap, bool *seen_in_index) {
    for (uint32_t i = 0; props && props->type == TV_JSON_OBJECT && i < props->len; i++) {
        const tv_json *f = &props->v.members[i].val;
        const tv_json *t = tv_json_get(f, "type");
        const char *tn = t && t->type == TV_JSON_STRING ? t->v.s : tv_json_get(f, "properties") ? "object" : NULL;
        if (tn) {
            size_t k = 0;
            while (k < *nft && strcmp(ft[k].name, tn) != 0) k++;
            if (k == *nft && *nft < cap) {
                ft[k].name = tn;
                ft[k].count = ft[k].indices = 0;
                (*nft)++;
            }
            if (k < *nft) {
                ft[k].count++;
                if (!seen_in_index[k]) {
                    seen_in_index[k] = true;
                    ft[k].indices++;
                }
            }
        }
        count_types(tv_json_get(f, "properties"), ft, nft, cap, seen_in_index);
        const tv_json *mf = tv_json_get(f, "fields");
        count_types(mf, ft, nft, cap, seen_in_index);
    }
}

static void minmaxavg(tv_jw *w, const char *key, double mn, double mx, double avg) {
    tv_jw_keyz(w, key);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "min");
    tv_jw_double(w, mn);
    tv_jw_keyz(w, "max");
    tv_jw_double(w, mx);
    tv_jw_keyz(w, "avg");
    tv_jw_double(w, avg);
    tv_jw_obj_end(w);
}

static int64_t count_threads(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    int64_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

void tv_h_cluster_stats(tv_req *r) {
    /* node filter: /_cluster/stats/nodes/{node_id} */
    bool one = true;
    if (r->p_name) {
        one = false;
        const char **parts = NULL;
        size_t np = tv_split_commas(&r->arena, r->p_name, &parts);
        for (size_t i = 0; i < np; i++)
            if (strcmp(parts[i], "_all") == 0 || strcmp(parts[i], "_local") == 0 || strcmp(parts[i], "_master") == 0 ||
                strcmp(parts[i], "_cluster_manager") == 0 || strcmp(parts[i], r->node->node_id) == 0 ||
                tv_simple_match(parts[i], r->node->st->node_name, strlen(r->node->st->node_name)) ||
                strcmp(parts[i], "cluster_manager:true") == 0 || strcmp(parts[i], "master:true") == 0 ||
                strcmp(parts[i], "data:true") == 0 || strcmp(parts[i], "ingest:true") == 0)
                one = true;
    }
    tv_resolve_opts o = {.ignore_unavailable = true,
                         .allow_no_indices = true,
                         .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED | TV_EXPAND_HIDDEN};
    tv_index_list l = {0};
    if (one && !tv_node_resolve_ex(r, NULL, &o, &l)) return;
    int64_t nidx = 0, shards = 0, primaries = 0, docs = 0, deleted = 0, store = 0, segs = 0;
    double smin = 0, smax = 0, pmin = 0, pmax = 0, rmin = 0, rmax = 0, rsum = 0;
    bool yellow = false;
    ftype ft[64];
    size_t nft = 0;
    for (size_t i = 0; i < l.len && !r->oom; i++) {
        tv_index *idx = l.items[i];
        int64_t rep, s = tv_api_index_shards(idx, &rep);
        if (rep) yellow = true;
        /* on one node only primaries are assigned: shards == primaries */
        nidx++;
        shards += s;
        primaries += s;
        double ds = (double)s;
        if (i == 0 || ds < smin) smin = pmin = ds;
        if (i == 0 || ds > smax) smax = pmax = ds;
        double repl = 0.0; /* assigned replicas per primary */
        if (i == 0 || repl < rmin) rmin = repl;
        if (i == 0 || repl > rmax) rmax = repl;
        rsum += repl;
        if (!tv_node_is_closed(r->node, tv_index_name(idx))) {
            tv_index_stats st;
            tv_index_get_stats(idx, &st);
            docs += (int64_t)st.docs_count;
            deleted += (int64_t)st.docs_deleted;
            store += (int64_t)st.store_bytes;
            segs += st.segments;
        }
        const tv_mapping *m = tv_index_mapping(idx);
        if (m) {
            tv_buf mb;
            tv_buf_init(&mb);
            tv_jw mw;
            tv_jw_init(&mw, &mb, false);
            tv_mapping_write(m, &mw);
            tv_mapping_release(m);
            tv_json *mj = NULL;
            if (!mb.oom && tv_json_parse(&r->arena, mb.data, mb.len, &mj, NULL) == TROVE_OK) {
                bool seen[64] = {0};
                count_types(tv_json_get(mj, "properties"), ft, &nft, TV_ARRAY_LEN(ft), seen);
            }
            tv_buf_fini(&mb);
        }
    }
    tv_index_list_release(&l);
    qsort(ft, nft, sizeof *ft, cmp_ftype);
    tv_api_sys sys;
    tv_api_sys_info(&sys);
    int64_t now = tv_now_ms();

    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_api_nodes_header(r, w, one);
    tv_jw_keyz(w, "cluster_uuid");
    tv_jw_strz(w, r->node->st->cluster_uuid);
    tv_jw_keyz(w, "timestamp");
    tv_jw_int(w, now);
    tv_jw_keyz(w, "status");
    tv_jw_strz(w, yellow ? "yellow" : "green");

    tv_jw_keyz(w, "indices");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "count");
    tv_jw_int(w, nidx);
    tv_jw_keyz(w, "shards");
    tv_jw_obj_begin(w);
    if (nidx) {
        tv_jw_keyz(w, "total");
        tv_jw_int(w, shards);
        tv_jw_keyz(w, "primaries");
        tv_jw_int(w, primaries);
        tv_jw_keyz(w, "replication");
        tv_jw_double(w, primaries ? (double)(shards - primaries) / (double)primaries : 0.0);
        tv_jw_keyz(w, "index");
        tv_jw_obj_begin(w);
        minmaxavg(w, "shards", smin, smax, (double)shards / (double)nidx);
        minmaxavg(w, "primaries", pmin, pmax, (double)primaries / (double)nidx);
        minmaxavg(w, "replication", rmin, rmax, rsum / (double)nidx);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "docs");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "count");
    tv_jw_int(w, docs);
    tv_jw_keyz(w, "deleted");
    tv_jw_int(w, deleted);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "store");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "size_in_bytes");
    tv_jw_int(w, store);
    tv_jw_keyz(w, "reserved_in_bytes");
    tv_jw_int(w, 0);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "fielddata");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "memory_size_in_bytes");
    tv_jw_int(w, 0);
    tv_jw_keyz(w, "evictions");
    tv_jw_int(w, 0);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "query_cache");
    tv_jw_obj_begin(w);
    static const char *const qc[] = {"memory_size_in_bytes", "total_count", "hit_count", "miss_count",
                                     "cache_size",           "cache_count", "evictions"};
    for (size_t i = 0; i < TV_ARRAY_LEN(qc); i++) {
        tv_jw_keyz(w, qc[i]);
        tv_jw_int(w, 0);
    }
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "completion");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "size_in_bytes");
    tv_jw_int(w, 0);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "segments");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "count");
    tv_jw_int(w, segs);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "mappings");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "field_types");
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < nft; i++) {
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "name");
        tv_jw_strz(w, ft[i].name);
        tv_jw_keyz(w, "count");
        tv_jw_int(w, ft[i].count);
        tv_jw_keyz(w, "index_count");
        tv_jw_int(w, ft[i].indices);
        tv_jw_obj_end(w);
    }
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);

    tv_jw_keyz(w, "nodes");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "count");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "total");
    tv_jw_int(w, one);
    static const char *const roles[] = {"cluster_manager", "coordinating_only", "data",   "ingest",
                                        "master",          "remote_cluster_client", "search"};
    for (size_t i = 0; i < TV_ARRAY_LEN(roles); i++) {
        tv_jw_keyz(w, roles[i]);
        bool has = strcmp(roles[i], "coordinating_only") != 0 && strcmp(roles[i], "search") != 0;
        tv_jw_int(w, one && has);
    }
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "versions");
    tv_jw_arr_begin(w);
    if (one) tv_jw_strz(w, TROVE_OPENSEARCH_VERSION);
    tv_jw_arr_end(w);
    /* os */
    tv_jw_keyz(w, "os");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "available_processors");
    tv_jw_int(w, one ? sys.processors : 0);
    tv_jw_keyz(w, "allocated_processors");
    tv_jw_int(w, one ? sys.processors : 0);
    tv_jw_keyz(w, "names");
    tv_jw_arr_begin(w);
    if (one) {
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "name");
        tv_jw_strz(w, sys.os_name);
        tv_jw_keyz(w, "count");
        tv_jw_int(w, 1);
        tv_jw_obj_end(w);
    }
    tv_jw_arr_end(w);
    tv_jw_keyz(w, "pretty_names");
    tv_jw_arr_begin(w);
    if (one) {
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "pretty_name");
        tv_jw_strz(w, sys.pretty_name);
        tv_jw_keyz(w, "count");
        tv_jw_int(w, 1);
        tv_jw_obj_end(w);
    }
    tv_jw_arr_end(w);
    tv_jw_keyz(w, "mem");
    tv_jw_obj_begin(w);
    int64_t total = one ? sys.mem_total : 0, freeb = one ? sys.mem_free : 0;
    tv_jw_keyz(w, "total_in_bytes");
    tv_jw_int(w, total);
    tv_jw_keyz(w, "free_in_bytes");
    tv_jw_int(w, freeb);
    tv_jw_keyz(w, "used_in_bytes");
    tv_jw_int(w, total - freeb);
    /* OsStats.Mem: Math.round(100.0 * x / total) */
    tv_jw_keyz(w, "free_percent");
    tv_jw_int(w, total ? (int64_t)(100.0 * (double)freeb / (double)total + 0.5) : 0);
    tv_jw_keyz(w, "used_percent");
    tv_jw_int(w, total ? (int64_t)(100.0 * (double)(total - freeb) / (double)total + 0.5) : 0);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
    /* process */
    tv_jw_keyz(w, "process");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "cpu");
    tv_jw_obj_begin(w);
    int64_t up = one && sys.start_ms ? now - sys.start_ms : 0;
    tv_jw_keyz(w, "percent");
    tv_jw_int(w, up > 0 ? (int64_t)(100.0 * (double)sys.cpu_ms / (double)up / (double)sys.processors) : 0);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "open_file_descriptors");
    tv_jw_obj_begin(w);
    int64_t fds = one ? sys.open_fds : 0;
    tv_jw_keyz(w, "min");
    tv_jw_int(w, fds);
    tv_jw_keyz(w, "max");
    tv_jw_int(w, fds);
    tv_jw_keyz(w, "avg");
    tv_jw_int(w, fds);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
    /* jvm: what trove has in its place */
    tv_jw_keyz(w, "jvm");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "max_uptime_in_millis");
    tv_jw_int(w, up);
    tv_jw_keyz(w, "versions");
    tv_jw_arr_begin(w);
    tv_jw_arr_end(w);
    tv_jw_keyz(w, "mem");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "heap_used_in_bytes");
    tv_jw_int(w, one ? sys.rss_bytes : 0);
    tv_jw_keyz(w, "heap_max_in_bytes");
    tv_jw_int(w, one ? r->node->brk->b.heap : 0);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "threads");
    tv_jw_int(w, one ? count_threads() : 0);
    tv_jw_obj_end(w);
    /* fs */
    tv_jw_keyz(w, "fs");
    tv_jw_obj_begin(w);
    struct statvfs fs;
    const char *dir = tv_durable_dir(r->node->durable);
    if (one && statvfs(dir ? dir : ".", &fs) == 0) {
        tv_jw_keyz(w, "total_in_bytes");
        tv_jw_int(w, (int64_t)fs.f_blocks * (int64_t)fs.f_frsize);
        tv_jw_keyz(w, "free_in_bytes");
        tv_jw_int(w, (int64_t)fs.f_bfree * (int64_t)fs.f_frsize);
        tv_jw_keyz(w, "available_in_bytes");
        tv_jw_int(w, (int64_t)fs.f_bavail * (int64_t)fs.f_frsize);
        tv_jw_keyz(w, "cache_reserved_in_bytes");
        tv_jw_int(w, 0);
    }
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "plugins");
    tv_api_plugins_json(w);
    tv_jw_keyz(w, "network_types");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "transport_types");
    tv_jw_obj_begin(w);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "http_types");
    tv_jw_obj_begin(w);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "discovery_types");
    tv_jw_obj_begin(w);
    if (one) {
        tv_jw_keyz(w, "single-node");
        tv_jw_int(w, 1);
    }
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "packaging_types");
    tv_jw_arr_begin(w);
    if (one) {
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "type");
        tv_jw_strz(w, "tar");
        tv_jw_keyz(w, "count");
        tv_jw_int(w, 1);
        tv_jw_obj_end(w);
    }
    tv_jw_arr_end(w);
    tv_jw_keyz(w, "ingest");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "number_of_pipelines");
    tv_jw_int(w, 0);
    tv_jw_keyz(w, "processor_stats");
    tv_jw_obj_begin(w);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}
