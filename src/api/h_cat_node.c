/*
 * h_cat_node.c — the _cat APIs about the node itself: cluster_manager
 * (and its deprecated name master), thread_pool[/{patterns}], plugins,
 * nodes, allocation, nodeattrs and pending_tasks.
 *
 * cluster_manager: one row, this node (id, host, ip, name), as a
 * single-node cluster elects itself.
 *
 * thread_pool: one row per pool of OpenSearch's ThreadPool (h_nodes.c's
 * list, sized for this machine's processors as OpenSearch sizes them),
 * filtered by the comma list of simple-match patterns, sorted by pool name.
 * trove runs requests to completion on its event loops and has none of
 * these executors, so active, queue, rejected, largest and completed are
 * 0, which is what they count here: no task ever ran on them. Only the
 * search pools carry a total_wait_time (0s), the others -1, as OpenSearch
 * prints them.
 *
 * plugins: analysis-kuromoji when Japanese analysis is available, else no rows.
 *
 * pending_tasks: the cluster manager's update queue, always empty on one
 * node that applies every change inside its request.
 *
 * nodes: this node with the columns trove can fill from /proc, statvfs
 * and getloadavg (OpenSearch's statistics columns are not offered, as
 * _cat/indices does); heap is the heap budget and the resident set.
 * allocation: this node's shards and store, its file system, and the
 * UNASSIGNED row of the replicas a single node cannot place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "api.h"
#include "text/text.h" /* tv_analysis_plugins */
#include "cat_int.h"

static const tv_cat_col cm_cols[] = {
    {"id", NULL, "node id", false, true},
    {"host", "h", "host name", false, true},
    {"ip", NULL, "ip address", false, true},
    {"node", "n", "node name", false, true},
};

/* GET /_cat/cluster_manager and /_cat/master */
void tv_h_cat_cluster_manager(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    bool local;
    if (!tv_req_param_bool(r, "local", false, &local)) return;
    tv_cat_table t = {.cols = cm_cols, .ncols = TV_ARRAY_LEN(cm_cols)};
    if (!tv_cat_add_row(r, &t)) return;
    tv_cat_set_str(&t, 0, r->node->node_id);
    tv_cat_set_str(&t, 1, "127.0.0.1");
    tv_cat_set_str(&t, 2, "127.0.0.1");
    tv_cat_set_str(&t, 3, r->node->st->node_name);
    tv_cat_respond(r, &t);
}

static const tv_cat_col pool_cols[] = {
    {"node_name", "nn", "node name", false, true},
    {"node_id", "id", "persistent node id", false, false},
    {"ephemeral_node_id", "eid", "ephemeral node id", false, false},
    {"pid", "p", "process id", false, false},
    {"host", "h", "host name", false, false},
    {"ip", "i", "ip address", false, false},
    {"port", "po", "bound transport port", false, false},
    {"name", "n", "thread pool name", false, true},
    {"type", "t", "thread pool type", false, false},
    {"active", "a", "number of active threads", true, true},
    {"pool_size", "psz", "number of threads", true, false},
    {"queue", "q", "number of tasks currently in queue", true, true},
    {"queue_size", "qs", "maximum number of tasks permitted in queue", true, false},
    {"rejected", "r", "number of rejected tasks", true, true},
    {"largest", "l", "highest number of seen active threads", true, false},
    {"completed", "c", "number of completed tasks", true, false},
    {"total_wait_time", "twt", "total time tasks spent waiting in thread_pool queue", true, false},
    {"core", "cr", "core number of threads in a scaling thread pool", true, false},
    {"max", "mx", "maximum number of threads in a scaling thread pool", true, false},
    {"size", "sz", "number of threads in a fixed thread pool", true, false},
    {"keep_alive", "ka", "thread keep alive time", true, false},
};

/* GET /_cat/thread_pool[/{thread_pool_patterns}] */
void tv_h_cat_thread_pool(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    bool local;
    if (!tv_req_param_bool(r, "local", false, &local)) return;
    const char **pats = NULL;
    size_t np = r->p_name ? tv_split_commas(&r->arena, r->p_name, &pats) : 0;
    tv_api_pool pools[32];
    size_t n = tv_api_thread_pools(pools, TV_ARRAY_LEN(pools));
    if (n > TV_ARRAY_LEN(pools)) n = TV_ARRAY_LEN(pools);
    char eph[24];
    tv_api_node_ephemeral_id(r->node, eph);
    tv_cat_table t = {.cols = pool_cols, .ncols = TV_ARRAY_LEN(pool_cols)};
    for (size_t i = 0; i < n && !r->oom; i++) {
        bool hit = np == 0;
        for (size_t k = 0; k < np && !hit; k++)
            hit = tv_simple_match(pats[k], pools[i].name, strlen(pools[i].name));
        if (!hit || !tv_cat_add_row(r, &t)) continue;
        bool scaling = strcmp(pools[i].type, "scaling") == 0;
        tv_cat_set_str(&t, 0, r->node->st->node_name);
        tv_cat_set_str(&t, 1, r->node->node_id);
        tv_cat_set_str(&t, 2, tv_arena_strndup(&r->arena, eph, strlen(eph)));
        tv_cat_set_num(r, &t, 3, (int64_t)getpid());
        tv_cat_set_str(&t, 4, "127.0.0.1");
        tv_cat_set_str(&t, 5, "127.0.0.1");
        tv_cat_set_num(r, &t, 6, 9300);
        tv_cat_set_str(&t, 7, pools[i].name);
        tv_cat_set_str(&t, 8, pools[i].type);
        tv_cat_set_num(r, &t, 9, 0);
        tv_cat_set_num(r, &t, 10, 0);
        tv_cat_set_num(r, &t, 11, 0);
        tv_cat_set_num(r, &t, 12, pools[i].queue_size);
        tv_cat_set_num(r, &t, 13, 0);
        tv_cat_set_num(r, &t, 14, 0);
        tv_cat_set_num(r, &t, 15, 0);
        bool search = strcmp(pools[i].name, "search") == 0 || strcmp(pools[i].name, "search_throttled") == 0 ||
                      strcmp(pools[i].name, "index_searcher") == 0;
        if (search)
            tv_cat_set_str(&t, 16, "0s");
        else
            tv_cat_set_num(r, &t, 16, -1);
        if (scaling) {
            tv_cat_set_num(r, &t, 17, pools[i].core);
            tv_cat_set_num(r, &t, 18, pools[i].max);
        } else {
            tv_cat_set_num(r, &t, 19, pools[i].max);
        }
        if (pools[i].keep_alive) tv_cat_set_str(&t, 20, pools[i].keep_alive);
    }
    tv_cat_respond(r, &t);
}

static const tv_cat_col plugin_cols[] = {
    {"id", NULL, "unique node id", false, false},
    {"name", "n", "node name", false, true},
    {"component", "c", "component", false, true},
    {"version", "v", "component version", false, true},
    {"description", "d", "plugin details", false, false},
};

/* GET /_cat/plugins: the analysis plugins this build offers
 * (tv_analysis_plugins), one row each. */
void tv_h_cat_plugins(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    bool local;
    if (!tv_req_param_bool(r, "local", false, &local)) return;
    tv_cat_table t = {.cols = plugin_cols, .ncols = TV_ARRAY_LEN(plugin_cols)};
    tv_analysis_plugin p[4];
    size_t n = tv_analysis_plugins(p);
    for (size_t i = 0; i < n; i++) {
        if (!tv_cat_add_row(r, &t)) return;
        tv_cat_set_str(&t, 0, r->node->node_id);
        tv_cat_set_str(&t, 1, r->node->st->node_name);
        tv_cat_set_str(&t, 2, p[i].name);
        tv_cat_set_str(&t, 3, TROVE_OPENSEARCH_VERSION);
        tv_cat_set_str(&t, 4, p[i].description);
    }
    tv_cat_respond(r, &t);
}

static const tv_cat_col pending_cols[] = {
    {"insertOrder", "o", "task insertion order", true, true},
    {"timeInQueue", "t", "how long task has been in queue", true, true},
    {"priority", "p", "task priority", false, true},
    {"source", "s", "task source", false, true},
};

/* GET /_cat/pending_tasks: the cluster manager's queue of cluster state
 * updates; a single node applies each change inside its request, so the
 * queue is always empty (as _cluster/pending_tasks says). */
void tv_h_cat_pending_tasks(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    bool local;
    if (!tv_req_param_bool(r, "local", false, &local)) return;
    tv_cat_table t = {.cols = pending_cols, .ncols = TV_ARRAY_LEN(pending_cols)};
    tv_cat_respond(r, &t);
}

static const tv_cat_col nodeattr_cols[] = {
    {"node", NULL, "node name", false, true},
    {"id", "id,nodeId", "unique node id", false, false},
    {"pid", "p", "process id", false, false},
    {"host", "h", "host name", false, true},
    {"ip", "i", "ip address", false, true},
    {"port", "po", "bound transport port", false, false},
    {"attr", "attr.name", "attribute description", false, true},
    {"value", "attr.value", "attribute value", false, true},
};

/* GET /_cat/nodeattrs: a row per attribute of the node (the custom ones,
 * then shard_indexing_pressure_enabled, as _nodes lists them). */
void tv_h_cat_nodeattrs(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    bool local;
    if (!tv_req_param_bool(r, "local", false, &local)) return;
    const tv_json *a = tv_api_node_attrs(r);
    tv_cat_table t = {.cols = nodeattr_cols, .ncols = TV_ARRAY_LEN(nodeattr_cols)};
    for (uint32_t i = 0; i <= a->len; i++) {
        if (!tv_cat_add_row(r, &t)) return;
        tv_cat_set_str(&t, 0, r->node->st->node_name);
        tv_cat_set_str(&t, 1, r->node->node_id);
        tv_cat_set_num(r, &t, 2, (int64_t)getpid());
        tv_cat_set_str(&t, 3, "127.0.0.1");
        tv_cat_set_str(&t, 4, "127.0.0.1");
        tv_cat_set_num(r, &t, 5, 9300);
        if (i < a->len) {
            tv_cat_set_str(&t, 6, a->v.members[i].key);
            tv_cat_set_str(&t, 7, a->v.members[i].val.v.s);
        } else {
            tv_cat_set_str(&t, 6, "shard_indexing_pressure_enabled");
            tv_cat_set_str(&t, 7, "true");
        }
    }
    tv_cat_respond(r, &t);
}

/* ----------------------------------------------------------- _cat/nodes */

/* The columns trove can fill (RestNodesAction has many more statistics
 * columns; as _cat/indices, those are not offered). */
static const tv_cat_col node_cols[] = {
    {"id", "id,nodeId", "unique node id", false, false},
    {"pid", "p", "process id", false, false},
    {"ip", "i", "ip address", false, true},
    {"port", "po", "bound transport port", false, false},
    {"version", "v", "os version", false, false},
    {"disk.total", "dt,diskTotal", "total disk space", true, false},
    {"disk.used", "du,diskUsed", "used disk space", true, false},
    {"disk.avail", "d,da,disk,diskAvail", "available disk space", true, false},
    {"disk.used_percent", "dup,diskUsedPercent", "used disk space percentage", true, false},
    {"heap.current", "hc,heapCurrent", "used heap", true, false},
    {"heap.percent", "hp,heapPercent", "used heap ratio", true, true},
    {"heap.max", "hm,heapMax", "max configured heap", true, false},
    {"ram.current", "rc,ramCurrent", "used machine memory", true, false},
    {"ram.percent", "rp,ramPercent", "used machine memory ratio", true, true},
    {"ram.max", "rm,ramMax", "total machine memory", true, false},
    {"file_desc.current", "fdc,fileDescriptorCurrent", "used file descriptors", true, false},
    {"file_desc.percent", "fdp,fileDescriptorPercent", "used file descriptor ratio", true, false},
    {"file_desc.max", "fdm,fileDescriptorMax", "max file descriptors", true, false},
    {"load_1m", "l", "1m load avg", true, true},
    {"load_5m", "l", "5m load avg", true, true},
    {"load_15m", "l", "15m load avg", true, true},
    {"uptime", "u", "node uptime", true, false},
    {"node.role", "r,role,nodeRole",
     "m:cluster manager eligible node, d:data node, i:ingest node, -:coordinating node only", false, true},
    {"node.roles", "rs,all roles", "the full name of the node roles", false, true},
    {"cluster_manager", "cm,m,cluster_manager", "*:current cluster manager", false, true},
    {"name", "n", "node name", false, true},
};

static void set_pct(tv_req *r, tv_cat_table *t, size_t c, int64_t part, int64_t whole) {
    if (whole > 0) tv_cat_set_num(r, t, c, (int64_t)(100.0 * (double)part / (double)whole + 0.5));
}

static void set_load(tv_req *r, tv_cat_table *t, size_t c, double v) {
    char *s = tv_arena_sprintf(&r->arena, "%.2f", v);
    if (!s) r->oom = true;
    tv_cat_set_str(t, c, s);
}

/* GET /_cat/nodes: this node. heap is trove's heap budget (what its
 * breakers measure against) and the resident set as heap used. */
void tv_h_cat_nodes(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    bool local, full;
    if (!tv_req_param_bool(r, "local", false, &local)) return;
    if (!tv_req_param_bool(r, "full_id", false, &full)) return;
    tv_api_sys sys;
    tv_api_sys_info(&sys);
    tv_cat_table t = {.cols = node_cols, .ncols = TV_ARRAY_LEN(node_cols)};
    if (!tv_cat_add_row(r, &t)) return;
    tv_cat_set_str(&t, 0, full ? r->node->node_id : tv_arena_strndup(&r->arena, r->node->node_id, 4));
    tv_cat_set_num(r, &t, 1, sys.pid);
    tv_cat_set_str(&t, 2, "127.0.0.1");
    tv_cat_set_num(r, &t, 3, 9300);
    tv_cat_set_str(&t, 4, TROVE_OPENSEARCH_VERSION);
    const char *dir = tv_durable_dir(r->node->durable);
    struct statvfs fs;
    if (statvfs(dir ? dir : ".", &fs) == 0) {
        int64_t total = (int64_t)fs.f_blocks * (int64_t)fs.f_frsize, avail = (int64_t)fs.f_bavail * (int64_t)fs.f_frsize;
        tv_cat_set_bytes(r, &t, 5, total);
        tv_cat_set_bytes(r, &t, 6, total - avail);
        tv_cat_set_bytes(r, &t, 7, avail);
        if (total > 0) {
            char *p = tv_arena_sprintf(&r->arena, "%.2f", 100.0 * (double)(total - avail) / (double)total);
            if (!p) r->oom = true;
            tv_cat_set_str(&t, 8, p);
        }
    }
    int64_t heap = r->node->brk->b.heap;
    tv_cat_set_bytes(r, &t, 9, sys.rss_bytes);
    set_pct(r, &t, 10, sys.rss_bytes, heap);
    tv_cat_set_bytes(r, &t, 11, heap);
    tv_cat_set_bytes(r, &t, 12, sys.mem_total - sys.mem_free);
    set_pct(r, &t, 13, sys.mem_total - sys.mem_free, sys.mem_total);
    tv_cat_set_bytes(r, &t, 14, sys.mem_total);
    tv_cat_set_num(r, &t, 15, sys.open_fds);
    set_pct(r, &t, 16, sys.open_fds, sys.max_fds);
    tv_cat_set_num(r, &t, 17, sys.max_fds);
    double la[3];
    if (getloadavg(la, 3) == 3) {
        set_load(r, &t, 18, la[0]);
        set_load(r, &t, 19, la[1]);
        set_load(r, &t, 20, la[2]);
    }
    if (sys.start_ms) tv_cat_set_time(r, &t, 21, tv_now_ms() - sys.start_ms);
    tv_cat_set_str(&t, 22, "dimr");
    tv_cat_set_str(&t, 23, "cluster_manager,data,ingest,remote_cluster_client");
    tv_cat_set_str(&t, 24, "*");
    tv_cat_set_str(&t, 25, r->node->st->node_name);
    tv_cat_respond(r, &t);
}

/* ------------------------------------------------------ _cat/allocation */

static const tv_cat_col alloc_cols[] = {
    {"shards", "s", "number of shards on node", true, true},
    {"disk.indices", "di,diskIndices", "disk used by ES indices", true, true},
    {"disk.used", "du,diskUsed", "disk used (total, not just ES)", true, true},
    {"disk.avail", "da,diskAvail", "disk available", true, true},
    {"disk.total", "dt,diskTotal", "total capacity of all volumes", true, true},
    {"disk.percent", "dp,diskPercent", "percent disk used", true, true},
    {"host", "h", "host of node", false, true},
    {"ip", NULL, "ip of node", false, true},
    {"node", "n", "name of node", false, true},
};

/* GET /_cat/allocation[/{node_id}]: this node's started shards and the
 * store they take, its file system, and a row for the unassigned
 * replicas. */
void tv_h_cat_allocation(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    bool local;
    if (!tv_req_param_bool(r, "local", false, &local)) return;
    bool mine = true;
    if (r->p_name) {
        mine = false;
        const char **parts = NULL;
        size_t np = tv_split_commas(&r->arena, r->p_name, &parts);
        for (size_t i = 0; i < np; i++)
            if (strcmp(parts[i], "_all") == 0 || strcmp(parts[i], "_local") == 0 ||
                strcmp(parts[i], "_cluster_manager") == 0 || strcmp(parts[i], "_master") == 0 ||
                strcmp(parts[i], r->node->node_id) == 0 ||
                tv_simple_match(parts[i], r->node->st->node_name, strlen(r->node->st->node_name)))
                mine = true;
    }
    tv_resolve_opts o = {.ignore_unavailable = true,
                         .allow_no_indices = true,
                         .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED | TV_EXPAND_HIDDEN};
    tv_index_list l;
    if (!tv_node_resolve_ex(r, NULL, &o, &l)) return;
    int64_t shards = 0, unassigned = 0, store = 0;
    for (size_t i = 0; i < l.len; i++) {
        int64_t rep, s = tv_api_index_shards(l.items[i], &rep);
        shards += s;
        unassigned += s * rep;
        if (!tv_node_is_closed(r->node, tv_index_name(l.items[i]))) {
            tv_index_stats st;
            tv_index_get_stats(l.items[i], &st);
            store += (int64_t)st.store_bytes;
        }
    }
    tv_index_list_release(&l);
    tv_cat_table t = {.cols = alloc_cols, .ncols = TV_ARRAY_LEN(alloc_cols)};
    if (mine && tv_cat_add_row(r, &t)) {
        tv_cat_set_num(r, &t, 0, shards);
        tv_cat_set_bytes(r, &t, 1, store);
        const char *dir = tv_durable_dir(r->node->durable);
        struct statvfs fs;
        if (statvfs(dir ? dir : ".", &fs) == 0) {
            int64_t total = (int64_t)fs.f_blocks * (int64_t)fs.f_frsize,
                    avail = (int64_t)fs.f_bavail * (int64_t)fs.f_frsize;
            tv_cat_set_bytes(r, &t, 2, total - avail);
            tv_cat_set_bytes(r, &t, 3, avail);
            tv_cat_set_bytes(r, &t, 4, total);
            set_pct(r, &t, 5, total - avail, total);
        }
        tv_cat_set_str(&t, 6, "127.0.0.1");
        tv_cat_set_str(&t, 7, "127.0.0.1");
        tv_cat_set_str(&t, 8, r->node->st->node_name);
    }
    if (unassigned && tv_cat_add_row(r, &t)) {
        tv_cat_set_num(r, &t, 0, unassigned);
        tv_cat_set_str(&t, 8, "UNASSIGNED");
    }
    tv_cat_respond(r, &t);
}
