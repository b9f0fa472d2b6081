/*
 * h_nodes.c — the circuit breakers' limits from the cluster settings, nodes info
 * (GET /_nodes[/{node_id}][/{metric}]), and what the other handlers say
 * of the node itself: its roles and attributes, the process and system
 * figures /proc gives, the thread pools OpenSearch would size.
 *
 * Nodes info writes NodeInfo's sections trove can fill truthfully:
 * settings (cluster and node names), os (uname, /etc/os-release,
 * processors), process (pid), jvm (no JVM: the pid, start time and the
 * heap budget the breakers use), thread_pool, plugins (analysis-kuromoji when
 * Japanese analysis is available) and modules (none),
 * ingest (the processor types ingest.c runs). transport, http, aggregations, indices and
 * search_pipelines are left out of _all and answer 400 when named: the
 * addresses belong to the server, not the api layer.
 *
 * The breakers themselves are util/breaker.c; a node and its clones share
 * one set (tv_node_breakers), as one OpenSearch process has one
 * HierarchyCircuitBreakerService. trove_request reserves every request's
 * body on in_flight_requests and its arena's blocks on request, and
 * answers 429 circuit_breaking_exception when one refuses (node.c).
 *
 * Settings. indices.breaker.request.limit / .overhead,
 * indices.breaker.fielddata.limit / .overhead,
 * network.breaker.inflight_requests.limit / .overhead,
 * indices.breaker.accounting.limit / .overhead and
 * indices.breaker.total.limit are dynamic cluster settings: a limit is a
 * memory size or a percentage of the node's heap budget
 * (trove_options.heap_bytes). A value that does not parse is refused as
 * OpenSearch's settings updater refuses it ("illegal value can't update
 * [key] from [old] to [new]", caused by the parse failure), before
 * anything is stored (tv_api_breaker_setting_check); after a successful
 * update the limits are recomputed (tv_api_breakers_apply), transient
 * over persistent over the defaults.
 *
 * Stats: h_nodes_stats.c writes every section of _nodes/stats (the
 * breakers among them, as CircuitBreakerStats: limit_size_in_bytes,
 * limit_size, estimated_size_in_bytes, estimated_size, overhead, tripped).
 * fielddata and accounting never hold anything here: trove has no
 * fielddata and does not account segment memory on a breaker.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "api.h"
#include "text/text.h" /* tv_analysis_plugins */

void tv_api_plugins_json(tv_jw *w) {
    tv_analysis_plugin p[4];
    size_t n = tv_analysis_plugins(p);
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < n; i++) { /* PluginInfo.toXContent */
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "name");
        tv_jw_strz(w, p[i].name);
        tv_jw_keyz(w, "version");
        tv_jw_strz(w, TROVE_OPENSEARCH_VERSION);
        tv_jw_keyz(w, "opensearch_version");
        tv_jw_strz(w, TROVE_OPENSEARCH_VERSION);
        tv_jw_keyz(w, "java_version");
        tv_jw_strz(w, "21");
        tv_jw_keyz(w, "description");
        tv_jw_strz(w, p[i].description);
        tv_jw_keyz(w, "classname");
        tv_jw_strz(w, p[i].classname);
        tv_jw_keyz(w, "custom_foldername");
        tv_jw_strz(w, "");
        tv_jw_keyz(w, "extended_plugins");
        tv_jw_arr_begin(w);
        tv_jw_arr_end(w);
        tv_jw_keyz(w, "has_native_controller");
        tv_jw_bool(w, false);
        tv_jw_obj_end(w);
    }
    tv_jw_arr_end(w);
}

/* The modules whose features trove has (PluginInfo.toXContent of each):
 * analysis-common, whose analyzers, tokenizers and filters are trove's
 * text layer (its YAML suite's "Module loaded" looks for it). */
static void modules_json(tv_jw *w) {
    tv_jw_arr_begin(w);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "name");
    tv_jw_strz(w, "analysis-common");
    tv_jw_keyz(w, "version");
    tv_jw_strz(w, TROVE_OPENSEARCH_VERSION);
    tv_jw_keyz(w, "opensearch_version");
    tv_jw_strz(w, TROVE_OPENSEARCH_VERSION);
    tv_jw_keyz(w, "java_version");
    tv_jw_strz(w, "21");
    tv_jw_keyz(w, "description");
    tv_jw_strz(w, "Adds \"built in\" analyzers to OpenSearch.");
    tv_jw_keyz(w, "classname");
    tv_jw_strz(w, "org.opensearch.analysis.common.CommonAnalysisModulePlugin");
    tv_jw_keyz(w, "custom_foldername");
    tv_jw_strz(w, "");
    tv_jw_keyz(w, "extended_plugins");
    tv_jw_arr_begin(w);
    tv_jw_strz(w, "lang-painless");
    tv_jw_arr_end(w);
    tv_jw_keyz(w, "has_native_controller");
    tv_jw_bool(w, false);
    tv_jw_obj_end(w);
    tv_jw_arr_end(w);
}

typedef struct bsetting {
    const char *limit_key, *overhead_key;
    tv_breaker_kind kind;
    const char *def; /* default limit text */
} bsetting;

static const bsetting settings[] = {
    {"indices.breaker.request.limit", "indices.breaker.request.overhead", TV_BREAKER_REQUEST, "60%"},
    {"indices.breaker.fielddata.limit", "indices.breaker.fielddata.overhead", TV_BREAKER_FIELDDATA, "40%"},
    {"network.breaker.inflight_requests.limit", "network.breaker.inflight_requests.overhead", TV_BREAKER_IN_FLIGHT,
     "100%"},
    {"indices.breaker.accounting.limit", "indices.breaker.accounting.overhead", TV_BREAKER_ACCOUNTING, "100%"},
    {"indices.breaker.total.limit", NULL, TV_BREAKER_PARENT, "95%"},
};
static const double def_overheads[] = {1.0, 1.03, 2.0, 1.0, 1.0};

/* A setting's text from flat settings JSON (NULL: unset). */
static const char *setting_text(tv_arena *a, const char *flat, const char *key) {
    if (!flat) return NULL;
    tv_json *j = NULL;
    if (tv_json_parse(a, flat, strlen(flat), &j, NULL) != TROVE_OK || !j) return NULL;
    const tv_json *v = tv_json_get(j, key);
    if (!v || v->type == TV_JSON_NULL) return NULL;
    if (v->type == TV_JSON_STRING) return v->v.s;
    if (v->raw) return tv_arena_strndup(a, v->raw, v->raw_len);
    return NULL;
}

bool tv_api_breaker_setting_check(tv_req *r, const char *key, const tv_json *jv) {
    if (!jv || jv->type == TV_JSON_NULL) return true;
    const char *val = jv->type == TV_JSON_STRING ? jv->v.s
                      : jv->raw                 ? tv_arena_strndup(&r->arena, jv->raw, jv->raw_len)
                      : jv->type == TV_JSON_TRUE ? "true"
                                                 : "false";
    if (!val) return !(r->oom = true);
    for (size_t i = 0; i < TV_ARRAY_LEN(settings); i++) {
        const bsetting *s = &settings[i];
        bool is_limit = strcmp(key, s->limit_key) == 0, is_over = s->overhead_key && strcmp(key, s->overhead_key) == 0;
        if (!is_limit && !is_over) continue;
        int64_t b;
        double d = 0;
        bool ok = is_limit ? tv_parse_memory_size(val, strlen(val), r->node->brk->b.heap, &b)
                           : tv_java_double_syntax(val, strlen(val)) && (d = strtod(val, NULL)) >= 0;
        if (ok) return true;
        /* "from": the value in force (transient over persistent), else the
         * default as OpenSearch prints it */
        const char *old = setting_text(&r->arena, r->node->st->cluster_transient, key);
        if (!old) old = setting_text(&r->arena, r->node->st->cluster_persistent, key);
        char oldbuf[32];
        if (!old && is_limit) old = s->def;
        if (!old) {
            tv_fmt_double(def_overheads[s->kind], oldbuf);
            old = oldbuf;
        }
        tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e), *c = tv_arena_calloc(&r->arena, 1, sizeof *c);
        if (!e || !c) return !(r->oom = true);
        e->type = TROVE_EARG;
        e->status = 400;
        e->reason = tv_arena_sprintf(&r->arena, "illegal value can't update [%s] from [%s] to [%s]", key, old, val);
        c->type = is_limit ? TROVE_EPARSEEXC : TROVE_EARG;
        c->status = 400;
        c->reason = is_limit ? tv_arena_sprintf(&r->arena,
                                                "failed to parse setting [%s] with value [%s] as a size in bytes: unit "
                                                "is missing or unrecognized",
                                                key, val)
                             : tv_arena_sprintf(&r->arena, "Failed to parse value [%s] for setting [%s] must be >= 0.0",
                                                val, key);
        e->cause = c;
        tv_req_error(r, e);
        return false;
    }
    return true;
}

void tv_api_breakers_apply(trove_node *n) {
    tv_arena a;
    tv_arena_init(&a);
    pthread_rwlock_rdlock(&n->lock);
    const char *kinds[2] = {n->st->cluster_transient, n->st->cluster_persistent};
    tv_breakers *b = &n->brk->b;
    for (size_t i = 0; i < TV_ARRAY_LEN(settings); i++) {
        const bsetting *s = &settings[i];
        const char *lim = NULL, *over = NULL;
        for (int k = 0; k < 2; k++) {
            if (!lim) lim = setting_text(&a, kinds[k], s->limit_key);
            if (!over && s->overhead_key) over = setting_text(&a, kinds[k], s->overhead_key);
        }
        int64_t bytes;
        if (!lim || !tv_parse_memory_size(lim, strlen(lim), b->heap, &bytes))
            tv_parse_memory_size(s->def, strlen(s->def), b->heap, &bytes);
        atomic_store(&b->b[s->kind].limit, bytes);
        double o = over && tv_java_double_syntax(over, strlen(over)) ? strtod(over, NULL) : def_overheads[s->kind];
        b->b[s->kind].overhead = o >= 0 ? o : def_overheads[s->kind];
    }
    pthread_rwlock_unlock(&n->lock);
    tv_arena_fini(&a);
}

/* ------------------------------------------------------------------ stats */

/* Does node_id (a comma-separated list of ids, names, _local, _all, *,
 * _cluster_manager/_master, or a pattern) select this node? */
bool tv_api_node_selects(tv_req *r, const char *ids) {
    if (!ids) return true;
    const char *name = r->node->st->node_name;
    for (const char *p = ids; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (tv_streq(p, l, "_local") || tv_streq(p, l, "_all") || tv_streq(p, l, "_master") ||
            tv_streq(p, l, "_cluster_manager") || tv_streq(p, l, r->node->node_id) ||
            tv_glob_match(p, l, name, strlen(name)) || tv_glob_match(p, l, r->node->node_id, strlen(r->node->node_id)))
            return true;
        p = e ? e + 1 : p + l;
    }
    return false;
}

void tv_api_nodes_header(tv_req *r, tv_jw *w, bool one) {
    tv_jw_keyz(w, "_nodes");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "total");
    tv_jw_int(w, one);
    tv_jw_keyz(w, "successful");
    tv_jw_int(w, one);
    tv_jw_keyz(w, "failed");
    tv_jw_int(w, 0);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "cluster_name");
    tv_jw_strz(w, r->node->st->cluster_name);
}

void tv_api_node_head(tv_req *r, tv_jw *w) {
    tv_jw_keyz(w, "name");
    tv_jw_strz(w, r->node->st->node_name);
    tv_jw_keyz(w, "transport_address");
    tv_jw_strz(w, "127.0.0.1:9300");
    tv_jw_keyz(w, "host");
    tv_jw_strz(w, "127.0.0.1");
    tv_jw_keyz(w, "ip");
    tv_jw_strz(w, "127.0.0.1:9300");
    tv_jw_keyz(w, "roles");
    tv_api_write_node_roles(w);
    tv_jw_keyz(w, "attributes");
    tv_api_write_node_attributes(r, w);
}

/* ------------------------------------------------------ node identity */

/* The roles trove's one node has (DiscoveryNodeRole names, sorted). */
const char *const tv_api_node_roles[] = {"cluster_manager", "data", "ingest", "remote_cluster_client", NULL};

void tv_api_write_node_roles(tv_jw *w) {
    tv_jw_arr_begin(w);
    for (size_t i = 0; tv_api_node_roles[i]; i++) tv_jw_strz(w, tv_api_node_roles[i]);
    tv_jw_arr_end(w);
}

const tv_json *tv_api_node_attrs(tv_req *r) {
    static const tv_json none = {.type = TV_JSON_OBJECT};
    const char *s = r->node->st->node_attrs; /* fixed at open: no lock */
    tv_json *j = NULL;
    if (!s || tv_json_parse(&r->arena, s, strlen(s), &j, NULL) != TROVE_OK || j->type != TV_JSON_OBJECT) {
        if (s) r->oom = true;
        return &none;
    }
    return j;
}

static int kv_cmp(const void *a, const void *b) {
    return strcmp(((const tv_kv *)a)->key, ((const tv_kv *)b)->key);
}

static const tv_json *str_json(tv_arena *a, const char *s) {
    tv_json *j = tv_arena_calloc(a, 1, sizeof *j);
    if (!j) return NULL;
    j->type = TV_JSON_STRING;
    j->v.s = s;
    j->len = (uint32_t)strlen(s);
    return j;
}

/* The settings every node reports as its own: names and attributes. */
static const char *const node_setting_defaults[][2] = {
    {"action.auto_create_index", "true"},
    {"indices.query.bool.max_clause_count", "1024"},
    {"script.max_size_in_bytes", "65535"},
    {"search.allow_expensive_queries", "true"},
    {"search.max_buckets", "65535"},
};

size_t tv_api_node_settings(tv_req *r, bool defaults, tv_kv **out) {
    const tv_json *attrs = tv_api_node_attrs(r);
    size_t cap = 2 + attrs->len + (defaults ? TV_ARRAY_LEN(node_setting_defaults) + 2 * TV_ARRAY_LEN(settings) : 0);
    tv_kv *kv = tv_arena_calloc(&r->arena, cap, sizeof *kv);
    if (!kv) {
        r->oom = true;
        *out = NULL;
        return 0;
    }
    size_t n = 0;
    kv[n].key = "cluster.name";
    kv[n++].val = str_json(&r->arena, r->node->st->cluster_name);
    kv[n].key = "node.name";
    kv[n++].val = str_json(&r->arena, r->node->st->node_name);
    for (uint32_t i = 0; i < attrs->len; i++) {
        kv[n].key = tv_arena_sprintf(&r->arena, "node.attr.%s", attrs->v.members[i].key);
        kv[n++].val = &attrs->v.members[i].val;
    }
    if (defaults) {
        for (size_t i = 0; i < TV_ARRAY_LEN(node_setting_defaults); i++) {
            kv[n].key = node_setting_defaults[i][0];
            kv[n++].val = str_json(&r->arena, node_setting_defaults[i][1]);
        }
        for (size_t i = 0; i < TV_ARRAY_LEN(settings); i++) { /* the breakers' defaults */
            kv[n].key = settings[i].limit_key;
            kv[n++].val = str_json(&r->arena, settings[i].def);
            if (!settings[i].overhead_key) continue;
            char buf[32];
            tv_fmt_double(def_overheads[settings[i].kind], buf);
            kv[n].key = settings[i].overhead_key;
            kv[n++].val = str_json(&r->arena, tv_arena_strndup(&r->arena, buf, strlen(buf)));
        }
    }
    for (size_t i = 0; i < n; i++)
        if (!kv[i].key || !kv[i].val) r->oom = true;
    if (r->oom) n = 0;
    qsort(kv, n, sizeof *kv, kv_cmp);
    *out = kv;
    return n;
}

void tv_api_write_node_attributes(tv_req *r, tv_jw *w) {
    const tv_json *a = tv_api_node_attrs(r);
    tv_jw_obj_begin(w);
    for (uint32_t i = 0; i < a->len; i++) {
        tv_jw_key(w, a->v.members[i].key, a->v.members[i].key_len);
        tv_jw_value(w, &a->v.members[i].val);
    }
    tv_jw_keyz(w, "shard_indexing_pressure_enabled");
    tv_jw_strz(w, "true");
    tv_jw_obj_end(w);
}

void tv_api_node_ephemeral_id(trove_node *n, char out[24]) {
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char seed[48];
    int len = snprintf(seed, sizeof seed, "%s/ephemeral", n->node_id);
    uint64_t h1 = tv_hash(seed, (size_t)len), h2 = tv_hash(&h1, sizeof h1);
    for (int i = 0; i < 22; i++) {
        uint64_t *h = i < 11 ? &h1 : &h2;
        out[i] = b64[*h & 63];
        *h >>= 6;
    }
    out[22] = '\0';
}

/* ------------------------------------------------- process and system */

bool tv_api_read_proc(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "r");
    if (!f) return false;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n > 0;
}

int64_t tv_api_proc_field(const char *text, const char *key) {
    const char *p = strstr(text, key);
    if (!p) return -1;
    p += strlen(key);
    while (*p == ' ' || *p == '\t' || *p == ':') p++;
    return strtoll(p, NULL, 10);
}

void tv_api_sys_info(tv_api_sys *s) {
    memset(s, 0, sizeof *s);
    s->pid = (int64_t)getpid();
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    s->processors = cpus > 0 ? cpus : 1;
    long page = sysconf(_SC_PAGESIZE);
    char buf[4096];
    if (tv_api_read_proc("/proc/self/statm", buf, sizeof buf)) {
        long long size = 0, res = 0;
        if (sscanf(buf, "%lld %lld", &size, &res) == 2) {
            s->virtual_bytes = size * page;
            s->rss_bytes = res * page;
        }
    }
    long ticks = sysconf(_SC_CLK_TCK);
    if (ticks <= 0) ticks = 100;
    int64_t btime = 0;
    static char stat[16384];
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&mu);
    if (tv_api_read_proc("/proc/stat", stat, sizeof stat)) {
        const char *p = strstr(stat, "\nbtime ");
        if (p) btime = strtoll(p + 7, NULL, 10);
    }
    pthread_mutex_unlock(&mu);
    if (tv_api_read_proc("/proc/self/stat", buf, sizeof buf)) {
        const char *p = strrchr(buf, ')'); /* after the command name */
        if (p) {
            /* fields from 3 (state) on; utime 14, stime 15, starttime 22 */
            unsigned long long v[24] = {0};
            int k = 3;
            for (const char *q = p + 2; *q && k <= 22; k++) {
                if (k >= 4) v[k] = strtoull(q, NULL, 10);
                q = strchr(q, ' ');
                if (!q) break;
                q++;
            }
            s->cpu_ms = (int64_t)((v[14] + v[15]) * 1000ull / (unsigned long long)ticks);
            if (btime) s->start_ms = (btime * 1000) + (int64_t)(v[22] * 1000ull / (unsigned long long)ticks);
        }
    }
    if (tv_api_read_proc("/proc/meminfo", buf, sizeof buf)) {
        int64_t total = tv_api_proc_field(buf, "MemTotal"), avail = tv_api_proc_field(buf, "MemAvailable");
        if (avail < 0) avail = tv_api_proc_field(buf, "MemFree");
        s->mem_total = total > 0 ? total * 1024 : 0;
        s->mem_free = avail > 0 ? avail * 1024 : 0;
        int64_t st = tv_api_proc_field(buf, "SwapTotal"), sf = tv_api_proc_field(buf, "SwapFree");
        s->swap_total = st > 0 ? st * 1024 : 0;
        s->swap_free = sf > 0 ? sf * 1024 : 0;
    }
    DIR *d = opendir("/proc/self/fd");
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (e->d_name[0] != '.') s->open_fds++;
        closedir(d);
        s->open_fds--; /* the directory stream itself */
    }
    struct rlimit rl;
    s->max_fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (int64_t)rl.rlim_cur : -1;
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(s->os_name, sizeof s->os_name, "%s", u.sysname);
        snprintf(s->os_arch, sizeof s->os_arch, "%s", u.machine);
        snprintf(s->os_version, sizeof s->os_version, "%s", u.release);
    }
    s->pretty_name[0] = '\0';
    if (tv_api_read_proc("/etc/os-release", buf, sizeof buf)) {
        const char *p = strstr(buf, "PRETTY_NAME=");
        if (p) {
            p += 12;
            if (*p == '"') p++;
            size_t l = strcspn(p, "\"\n");
            snprintf(s->pretty_name, sizeof s->pretty_name, "%.*s", (int)l, p);
        }
    }
    if (!s->pretty_name[0]) snprintf(s->pretty_name, sizeof s->pretty_name, "%s", s->os_name);
}

/* ------------------------------------------------------------- info */

/* The thread pools a node reports (ThreadPool's names, sorted), sized as
 * OpenSearch sizes them for the number of processors; trove's own work
 * runs on its event loops, so none of them ever has a task. */
size_t tv_api_thread_pools(tv_api_pool *out, size_t cap) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t p = cpus > 0 ? cpus : 1;
    int64_t half = (p + 1) / 2, half5 = half < 5 ? half : 5, half10 = half < 10 ? half : 10;
    int64_t p4 = 4 * p;
    const tv_api_pool pools[] = {
        {"analyze", "fixed", 1, 1, 16, NULL},
        {"fetch_shard_started", "scaling", 1, 2 * p, -1, "5m"},
        {"fetch_shard_store", "scaling", 1, 2 * p, -1, "5m"},
        {"flush", "scaling", 1, half5, -1, "5m"},
        {"force_merge", "fixed", 1, 1, -1, NULL},
        {"generic", "scaling", 4, p4 > 128 ? p4 : 128, -1, "30s"},
        {"get", "fixed", p, p, 1000, NULL},
        {"index_searcher", "resizable", p * 2, p * 2, 1000, NULL},
        {"listener", "fixed", half10, half10, -1, NULL},
        {"management", "scaling", 1, 5, -1, "5m"},
        {"refresh", "scaling", 1, half10, -1, "5m"},
        {"search", "resizable", (p * 3) / 2 + 1, (p * 3) / 2 + 1, 1000, NULL},
        {"search_throttled", "resizable", 1, 1, 100, NULL},
        {"snapshot", "scaling", 1, half5, -1, "5m"},
        {"system_read", "fixed", half5, half5, 2000, NULL},
        {"system_write", "fixed", half5, half5, 1000, NULL},
        {"warmer", "scaling", 1, half5, -1, "5m"},
        {"write", "fixed", p, p, 10000, NULL},
    };
    size_t n = TV_ARRAY_LEN(pools) < cap ? TV_ARRAY_LEN(pools) : cap;
    memcpy(out, pools, n * sizeof *out);
    return TV_ARRAY_LEN(pools);
}

enum {
    I_SETTINGS = 1 << 0,
    I_OS = 1 << 1,
    I_PROCESS = 1 << 2,
    I_JVM = 1 << 3,
    I_THREAD_POOL = 1 << 4,
    I_TRANSPORT = 1 << 5,
    I_HTTP = 1 << 6,
    I_PLUGINS = 1 << 7,
    I_INGEST = 1 << 8,
    I_AGGS = 1 << 9,
    I_INDICES = 1 << 10,
    I_PIPELINES = 1 << 11,
};
static const char *const info_metrics[] = {"settings", "os",      "process",      "jvm",     "thread_pool",
                                           "transport", "http",   "plugins",      "ingest",  "aggregations",
                                           "indices",  "search_pipelines", NULL};
/* what trove cannot describe: its HTTP and transport addresses belong to
 * the server (the api layer has none), and the per-type aggregation and
 * search pipeline listings are not kept */
#define I_UNKNOWN (I_TRANSPORT | I_HTTP | I_AGGS | I_PIPELINES | I_INDICES)

static int metric_bit(const char *s, size_t l) {
    for (int i = 0; info_metrics[i]; i++)
        if (tv_streq(s, l, info_metrics[i])) return 1 << i;
    return 0;
}

/* Are all comma parts of s info metrics (or _all)? */
static bool all_metrics(const char *s) {
    for (const char *p = s; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l && !tv_streq(p, l, "_all") && !metric_bit(p, l)) return false;
        p = e ? e + 1 : p + l;
    }
    return true;
}

static void write_node_head(tv_req *r, tv_jw *w) {
    tv_jw_keyz(w, "name");
    tv_jw_strz(w, r->node->st->node_name);
    tv_jw_keyz(w, "transport_address");
    tv_jw_strz(w, TV_API_TRANSPORT_ADDRESS);
    tv_jw_keyz(w, "host");
    tv_jw_strz(w, "127.0.0.1");
    tv_jw_keyz(w, "ip");
    tv_jw_strz(w, "127.0.0.1");
}

static void nodes_info(tv_req *r, const char *ids, const char *metrics) {
    unsigned m = 0;
    if (!metrics || !*metrics) {
        m = ~0u & ~(unsigned)I_UNKNOWN;
    } else {
        bool all = false;
        tv_buf bad;
        tv_buf_init(&bad);
        size_t nbad = 0;
        for (const char *p = metrics; *p;) {
            const char *e = strchr(p, ',');
            size_t l = e ? (size_t)(e - p) : strlen(p);
            int b = metric_bit(p, l);
            if (tv_streq(p, l, "_all"))
                all = true;
            else if (b)
                m |= (unsigned)b;
            else if (l)
                tv_buf_printf(&bad, "%s%.*s", nbad++ ? ", " : "", (int)l, p);
            p = e ? e + 1 : p + l;
        }
        if (nbad) {
            tv_req_fail(r, TROVE_EILLEGALSTATE, "Used an illegal metric: [%.*s]", (int)bad.len, bad.data);
            tv_buf_fini(&bad);
            return;
        }
        tv_buf_fini(&bad);
        if (all) m = ~0u & ~(unsigned)I_UNKNOWN;
        else if (m & I_UNKNOWN)
            return (void)tv_req_fail(r, TROVE_EUNSUPPORTED,
                                     "trove does not report the [transport], [http], [aggregations], [indices] "
                                     "and [search_pipelines] sections of _nodes info");
    }
    bool flat;
    if (!tv_req_param_bool(r, "flat_settings", false, &flat)) return;
    bool one = tv_api_node_selects(r, ids);
    tv_api_sys sys;
    tv_api_sys_info(&sys);
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_api_nodes_header(r, w, one);
    tv_jw_keyz(w, "nodes");
    tv_jw_obj_begin(w);
    if (one) {
        tv_jw_keyz(w, r->node->node_id);
        tv_jw_obj_begin(w);
        write_node_head(r, w);
        tv_jw_keyz(w, "version");
        tv_jw_strz(w, TROVE_OPENSEARCH_VERSION);
        tv_jw_keyz(w, "build_type");
        tv_jw_strz(w, "tar");
        tv_jw_keyz(w, "build_hash");
        tv_jw_strz(w, "trove-" TROVE_VERSION_STRING);
        tv_jw_keyz(w, "roles");
        tv_api_write_node_roles(w);
        tv_jw_keyz(w, "attributes");
        tv_api_write_node_attributes(r, w);
        if (m & I_SETTINGS) {
            tv_jw_keyz(w, "settings");
            tv_kv *kv;
            size_t nkv = tv_api_node_settings(r, false, &kv);
            const tv_json *j = tv_kv_to_json(&r->arena, kv, nkv, flat);
            if (!j) {
                r->oom = true;
                tv_jw_obj_begin(w);
                tv_jw_obj_end(w);
            } else {
                tv_jw_value(w, j);
            }
        }
        if (m & I_OS) {
            tv_jw_keyz(w, "os");
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "refresh_interval_in_millis");
            tv_jw_int(w, 1000);
            tv_jw_keyz(w, "name");
            tv_jw_strz(w, sys.os_name);
            tv_jw_keyz(w, "pretty_name");
            tv_jw_strz(w, sys.pretty_name);
            tv_jw_keyz(w, "arch");
            tv_jw_strz(w, sys.os_arch);
            tv_jw_keyz(w, "version");
            tv_jw_strz(w, sys.os_version);
            tv_jw_keyz(w, "available_processors");
            tv_jw_int(w, sys.processors);
            tv_jw_keyz(w, "allocated_processors");
            tv_jw_int(w, sys.processors);
            tv_jw_obj_end(w);
        }
        if (m & I_PROCESS) {
            tv_jw_keyz(w, "process");
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "refresh_interval_in_millis");
            tv_jw_int(w, 1000);
            tv_jw_keyz(w, "id");
            tv_jw_int(w, sys.pid);
            tv_jw_keyz(w, "mlockall");
            tv_jw_bool(w, false);
            tv_jw_obj_end(w);
        }
        if (m & I_JVM) {
            /* no JVM: the process and its heap budget */
            tv_jw_keyz(w, "jvm");
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "pid");
            tv_jw_int(w, sys.pid);
            tv_jw_keyz(w, "start_time_in_millis");
            tv_jw_int(w, sys.start_ms);
            tv_jw_keyz(w, "mem");
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "heap_init_in_bytes");
            tv_jw_int(w, r->node->brk->b.heap);
            tv_jw_keyz(w, "heap_max_in_bytes");
            tv_jw_int(w, r->node->brk->b.heap);
            tv_jw_obj_end(w);
            tv_jw_obj_end(w);
        }
        if (m & I_THREAD_POOL) {
            tv_api_pool pools[32];
            size_t np = tv_api_thread_pools(pools, TV_ARRAY_LEN(pools));
            tv_jw_keyz(w, "thread_pool");
            tv_jw_obj_begin(w);
            for (size_t i = 0; i < np; i++) {
                tv_jw_keyz(w, pools[i].name);
                tv_jw_obj_begin(w);
                tv_jw_keyz(w, "type");
                tv_jw_strz(w, pools[i].type);
                if (strcmp(pools[i].type, "scaling") == 0) {
                    tv_jw_keyz(w, "core");
                    tv_jw_int(w, pools[i].core);
                    tv_jw_keyz(w, "max");
                    tv_jw_int(w, pools[i].max);
                    tv_jw_keyz(w, "keep_alive");
                    tv_jw_strz(w, pools[i].keep_alive);
                } else {
                    tv_jw_keyz(w, "size");
                    tv_jw_int(w, pools[i].max);
                }
                tv_jw_keyz(w, "queue_size");
                tv_jw_int(w, pools[i].queue_size);
                tv_jw_obj_end(w);
            }
            tv_jw_obj_end(w);
        }
        if (m & I_PLUGINS) {
            tv_jw_keyz(w, "plugins");
            tv_api_plugins_json(w);
            tv_jw_keyz(w, "modules");
            modules_json(w);
        }
        if (m & I_INGEST) {
            tv_jw_keyz(w, "ingest");
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "processors");
            tv_jw_arr_begin(w);
            for (const char *const *t = tv_ingest_processor_types(); *t; t++) {
                tv_jw_obj_begin(w);
                tv_jw_keyz(w, "type");
                tv_jw_strz(w, *t);
                tv_jw_obj_end(w);
            }
            tv_jw_arr_end(w);
            tv_jw_obj_end(w);
        }
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

/* GET /_nodes */
void tv_h_nodes_info(tv_req *r) { nodes_info(r, NULL, NULL); }

/* GET /_nodes/{node_id_or_metric}: metrics when every part is one
 * (RestNodesInfoAction), else node ids */
void tv_h_nodes_info_one(tv_req *r) {
    if (all_metrics(r->p_name))
        nodes_info(r, NULL, r->p_name);
    else
        nodes_info(r, r->p_name, NULL);
}

/* GET /_nodes/{node_id}/{metric} */
void tv_h_nodes_info_node(tv_req *r) { nodes_info(r, r->p_name, r->p_name2); }
