/*
 * h_cat.c — the _cat APIs trove has: health, indices, count, aliases.
 *
 * A small table engine reproduces OpenSearch's RestTable: columns with
 * aliases, a description, right alignment and a default flag; `h` selects
 * columns by name, alias or wildcard (shown under the name asked for);
 * `v` adds a header line; `s` sorts by columns (":desc" reverses, numbers
 * and byte sizes compare as numbers, missing values first); `help` lists
 * "name | aliases | description" padded; `bytes` renders sizes in a fixed
 * unit; `format=json` answers an array of objects whose values are the
 * rendered strings. Text output: cells padded to the column width (left or
 * right aligned), one space between columns, no padding after the last
 * left-aligned tv_cat_cell, "\n" after each row.
 *
 * _cat/indices lists the columns trove can fill (health to pri.store.size,
 * OpenSearch's first twelve); the statistics columns OpenSearch adds after
 * them are not offered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "api.h"
#include "cat_int.h"

bool tv_cat_add_row(tv_req *r, tv_cat_table *t) {
    if (t->nrows == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 16;
        tv_cat_cell *c = tv_arena_calloc(&r->arena, nc * t->ncols, sizeof *c);
        if (!c) return !(r->oom = true);
        if (t->nrows) memcpy(c, t->cells, t->nrows * t->ncols * sizeof *c);
        t->cells = c;
        t->cap = nc;
    }
    t->nrows++;
    return true;
}

tv_cat_cell *tv_cat_at(tv_cat_table *t, size_t row, size_t c) { return &t->cells[row * t->ncols + c]; }

void tv_cat_set_str(tv_cat_table *t, size_t c, const char *s) { tv_cat_at(t, t->nrows - 1, c)->s = s; }

void tv_cat_set_num(tv_req *r, tv_cat_table *t, size_t c, int64_t v) {
    tv_cat_cell *x = tv_cat_at(t, t->nrows - 1, c);
    x->s = tv_arena_sprintf(&r->arena, "%lld", (long long)v);
    if (!x->s) r->oom = true;
    x->num = true;
    x->n = v;
}

/* ByteSizeValue.toString (util/java.c), or the unit `bytes` asks for. */
void tv_cat_set_bytes(tv_req *r, tv_cat_table *t, size_t c, int64_t b) {
    tv_cat_cell *x = tv_cat_at(t, t->nrows - 1, c);
    x->num = true;
    x->n = b;
    const char *unit = tv_req_param(r, "bytes");
    static const char *const suf[] = {"b", "kb", "mb", "gb", "tb", "pb"};
    if (unit) {
        int k = -1;
        for (int i = 0; i < 6; i++)
            if (strcmp(unit, suf[i]) == 0 || (unit[0] == suf[i][0] && unit[1] == '\0')) k = i;
        if (k >= 0) {
            int64_t v = b;
            for (int i = 0; i < k; i++) v /= 1024;
            x->s = tv_arena_sprintf(&r->arena, "%lld", (long long)v);
            if (!x->s) r->oom = true;
            return;
        }
    }
    char txt[32];
    tv_java_byte_size(b, txt, sizeof txt);
    x->s = tv_arena_strndup(&r->arena, txt, strlen(txt));
    if (!x->s) r->oom = true;
}

static bool alias_has(const char *aliases, const char *name) {
    size_t n = strlen(name);
    for (const char *p = aliases; p && *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && memcmp(p, name, n) == 0) return true;
        p = e ? e + 1 : p + l;
    }
    return false;
}

static bool alias_match(const char *aliases, const char *pat) {
    for (const char *p = aliases; p && *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (tv_simple_match(pat, p, l)) return true;
        p = e ? e + 1 : p + l;
    }
    return false;
}

typedef struct disp {
    size_t col;
    const char *name;
} disp;

/* Columns to show (buildDisplayHeaders). */
static size_t display(tv_req *r, const tv_cat_table *t, disp *out) {
    const char *h = tv_req_param(r, "h");
    bool ts = true;
    (void)tv_req_param_bool(r, "ts", true, &ts);
    size_t n = 0;
    if (!h) {
        for (size_t i = 0; i < t->ncols; i++) {
            if (!t->cols[i].def) continue;
            if (!ts && (strcmp(t->cols[i].name, "epoch") == 0 || strcmp(t->cols[i].name, "timestamp") == 0)) continue;
            out[n].col = i;
            out[n++].name = t->cols[i].name;
        }
        return n;
    }
    const char **parts = NULL;
    size_t np = tv_split_commas(&r->arena, h, &parts);
    for (size_t p = 0; p < np; p++) {
        const char *want = parts[p];
        if (strchr(want, '*')) {
            for (size_t i = 0; i < t->ncols; i++) {
                if (!tv_simple_match(want, t->cols[i].name, strlen(t->cols[i].name)) &&
                    !alias_match(t->cols[i].aliases, want))
                    continue;
                bool dup = false;
                for (size_t j = 0; j < n; j++)
                    if (out[j].col == i) dup = true;
                if (dup || n >= 64) continue;
                out[n].col = i;
                out[n++].name = t->cols[i].name;
            }
            continue;
        }
        for (size_t i = 0; i < t->ncols; i++) {
            if (strcmp(t->cols[i].name, want) != 0 && !alias_has(t->cols[i].aliases, want)) continue;
            if (!ts && (strcmp(t->cols[i].name, "epoch") == 0 || strcmp(t->cols[i].name, "timestamp") == 0)) break;
            bool dup = false;
            for (size_t j = 0; j < n; j++)
                if (strcmp(out[j].name, want) == 0) dup = true;
            if (!dup && n < 64) {
                out[n].col = i;
                out[n++].name = want;
            }
            break;
        }
    }
    return n;
}

typedef struct sortkey {
    size_t col;
    bool desc;
} sortkey;

static _Thread_local const tv_cat_table *g_sort_t;
static _Thread_local const sortkey *g_keys;
static _Thread_local size_t g_nkeys;

static int cmp_rows(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    tv_cat_table *t = (tv_cat_table *)g_sort_t;
    for (size_t k = 0; k < g_nkeys; k++) {
        const tv_cat_cell *p = tv_cat_at(t, x, g_keys[k].col), *q = tv_cat_at(t, y, g_keys[k].col);
        int c;
        if (!p->s && !q->s)
            c = 0;
        else if (!p->s)
            c = -1;
        else if (!q->s)
            c = 1;
        else if (p->num && q->num)
            c = p->n < q->n ? -1 : p->n > q->n;
        else
            c = strcmp(p->s, q->s);
        if (g_keys[k].desc) c = -c;
        if (c) return c;
    }
    return x < y ? -1 : x > y;
}

static pthread_mutex_t sort_mu = PTHREAD_MUTEX_INITIALIZER;

void tv_cat_respond(tv_req *r, tv_cat_table *t) {
    if (r->oom) return;
    bool help;
    if (!tv_req_param_bool(r, "help", false, &help)) return;
    tv_buf *o = &r->out;
    if (help) {
        size_t w[3] = {0, 0, 0};
        for (size_t i = 0; i < t->ncols; i++) {
            size_t l0 = strlen(t->cols[i].name), l1 = strlen(t->cols[i].aliases ? t->cols[i].aliases : ""),
                   l2 = strlen(t->cols[i].desc ? t->cols[i].desc : "not available");
            if (l0 > w[0]) w[0] = l0;
            if (l1 > w[1]) w[1] = l1;
            if (l2 > w[2]) w[2] = l2;
        }
        tv_req_empty(r, 200);
        for (size_t i = 0; i < t->ncols; i++) {
            const char *a = t->cols[i].aliases ? t->cols[i].aliases : "";
            const char *d = t->cols[i].desc ? t->cols[i].desc : "not available";
            tv_buf_printf(o, "%-*s | %-*s | %-*s\n", (int)w[0], t->cols[i].name, (int)w[1], a, (int)w[2], d);
        }
        return;
    }
    bool v;
    if (!tv_req_param_bool(r, "v", false, &v)) return;
    disp d[64];
    size_t nd = display(r, t, d);
    /* row order */
    size_t *order = t->nrows ? tv_arena_calloc(&r->arena, t->nrows, sizeof *order) : NULL;
    if (t->nrows && !order) {
        r->oom = true;
        return;
    }
    for (size_t i = 0; i < t->nrows; i++) order[i] = i;
    const char *s = tv_req_param(r, "s");
    if (s) {
        const char **parts = NULL;
        size_t np = tv_split_commas(&r->arena, s, &parts);
        sortkey *keys = np ? tv_arena_calloc(&r->arena, np, sizeof *keys) : NULL;
        for (size_t p = 0; p < np && keys; p++) {
            char *c = tv_arena_strndup(&r->arena, parts[p], strlen(parts[p]));
            if (!c) {
                r->oom = true;
                return;
            }
            size_t cl = strlen(c);
            if (cl > 5 && strcmp(c + cl - 5, ":desc") == 0) {
                keys[p].desc = true;
                c[cl - 5] = '\0';
            } else if (cl > 4 && strcmp(c + cl - 4, ":asc") == 0) {
                c[cl - 4] = '\0';
            }
            bool found = false;
            for (size_t i = 0; i < t->ncols && !found; i++)
                if (strcmp(t->cols[i].name, c) == 0 || alias_has(t->cols[i].aliases, c)) {
                    keys[p].col = i;
                    found = true;
                }
            if (!found) {
                tv_req_fail(r, TROVE_EUNSUPPORTED, "Unable to sort by unknown sort key `%s`",
                            c);
                return;
            }
        }
        if (np && keys && t->nrows > 1) {
            pthread_mutex_lock(&sort_mu);
            g_sort_t = t;
            g_keys = keys;
            g_nkeys = np;
            qsort(order, t->nrows, sizeof *order, cmp_rows);
            pthread_mutex_unlock(&sort_mu);
        }
    }
    const char *fmt = tv_req_param(r, "format");
    if (fmt && strcmp(fmt, "json") == 0) {
        tv_jw *w = tv_req_json(r, 200);
        tv_jw_arr_begin(w);
        for (size_t i = 0; i < t->nrows; i++) {
            tv_jw_obj_begin(w);
            for (size_t c = 0; c < nd; c++) {
                tv_jw_keyz(w, d[c].name);
                const tv_cat_cell *x = tv_cat_at(t, order[i], d[c].col);
                if (x->s)
                    tv_jw_strz(w, x->s);
                else
                    tv_jw_null(w);
            }
            tv_jw_obj_end(w);
        }
        tv_jw_arr_end(w);
        return;
    }
    size_t width[64] = {0};
    for (size_t c = 0; c < nd; c++) {
        if (v) width[c] = strlen(d[c].name);
        for (size_t i = 0; i < t->nrows; i++) {
            const tv_cat_cell *x = tv_cat_at(t, i, d[c].col);
            size_t l = x->s ? strlen(x->s) : 0;
            if (l > width[c]) width[c] = l;
        }
    }
    tv_req_empty(r, 200);
    for (size_t i = 0; i < t->nrows + (v ? 1 : 0); i++) {
        for (size_t c = 0; c < nd; c++) {
            bool last = c + 1 == nd;
            const char *txt;
            bool right = t->cols[d[c].col].right;
            if (v && i == 0) {
                txt = d[c].name;
            } else {
                txt = tv_cat_at(t, order[i - (v ? 1 : 0)], d[c].col)->s;
            }
            size_t l = txt ? strlen(txt) : 0;
            size_t pad = width[c] > l ? width[c] - l : 0;
            if (pad && right) {
                for (size_t k = 0; k < pad; k++) tv_buf_putc(o, ' ');
                if (txt) tv_buf_puts(o, txt);
            } else {
                if (txt) tv_buf_puts(o, txt);
                if (!last)
                    for (size_t k = 0; k < pad; k++) tv_buf_putc(o, ' ');
            }
            if (!last) tv_buf_putc(o, ' ');
        }
        tv_buf_putc(o, '\n');
    }
}

/* TimeValue.toString: the largest unit in which the value is at least 1,
 * one decimal kept (truncated, as Strings.format1Decimals) when there is a
 * fraction; or the whole number of the unit `time` asks for. */
void tv_cat_set_time(tv_req *r, tv_cat_table *t, size_t c, int64_t ms) {
    tv_cat_cell *x = tv_cat_at(t, t->nrows - 1, c);
    x->num = true;
    x->n = ms;
    const char *unit = tv_req_param(r, "time");
    static const struct {
        const char *u;
        double ms;
    } units[] = {{"d", 86400000.0}, {"h", 3600000.0}, {"m", 60000.0}, {"s", 1000.0},
                 {"ms", 1.0},       {"micros", 1e-3}, {"nanos", 1e-6}};
    if (unit) {
        for (size_t i = 0; i < TV_ARRAY_LEN(units); i++)
            if (strcmp(unit, units[i].u) == 0) {
                x->s = tv_arena_sprintf(&r->arena, "%lld", (long long)((double)ms / units[i].ms));
                if (!x->s) r->oom = true;
                return;
            }
    }
    const char *suf = "ms";
    double v = (double)ms;
    if (ms < 0) {
        x->s = tv_arena_sprintf(&r->arena, "%lld", (long long)ms);
        if (!x->s) r->oom = true;
        return;
    }
    for (size_t i = 0; i < 4; i++)
        if ((double)ms >= units[i].ms) {
            v = (double)ms / units[i].ms;
            suf = units[i].u;
            break;
        }
    int64_t tenths = (int64_t)(v * 10.0);
    if (tenths % 10 == 0)
        x->s = tv_arena_sprintf(&r->arena, "%lld%s", (long long)(tenths / 10), suf);
    else
        x->s = tv_arena_sprintf(&r->arena, "%lld.%lld%s", (long long)(tenths / 10), (long long)(tenths % 10), suf);
    if (!x->s) r->oom = true;
}

void tv_cat_set_epoch(tv_req *r, tv_cat_table *t, size_t c_epoch, size_t c_hms, int64_t ms) {
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    tv_cat_set_num(r, t, c_epoch, (int64_t)secs);
    char *ts = tv_arena_sprintf(&r->arena, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
    if (!ts) r->oom = true;
    tv_cat_set_str(t, c_hms, ts);
}

void tv_cat_set_timestamp(tv_req *r, tv_cat_table *t) {
    int64_t ms = tv_now_ms();
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    tv_cat_set_num(r, t, 0, (int64_t)secs);
    char *ts = tv_arena_sprintf(&r->arena, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
    if (!ts) r->oom = true;
    tv_cat_set_str(t, 1, ts);
}

bool tv_cat_check_format(tv_req *r) {
    const char *fmt = tv_req_param(r, "format");
    if (fmt && strcmp(fmt, "json") != 0 && strcmp(fmt, "text") != 0 && strcmp(fmt, "txt") != 0)
        return tv_req_fail(r, TROVE_EUNSUPPORTED,
                           "trove answers _cat only as text or JSON: unsupported format [%s]", fmt);
    return true;
}

/* --------------------------------------------------------- _cat/health */

static const tv_cat_col health_cols[] = {
    TV_CAT_TS_COLS,
    {"cluster", "cl", "cluster name", false, true},
    {"status", "st", "health status", false, true},
    {"node.total", "nt,nodeTotal", "total number of nodes", true, true},
    {"node.data", "nd,nodeData", "number of nodes that can store data", true, true},
    {"discovered_cluster_manager", "dcm,discoveredClusterManager", "cluster manager is discovered", true, true},
    {"shards", "t,sh,shards.total,shardsTotal", "total number of shards", true, true},
    {"pri", "p,shards.primary,shardsPrimary", "number of primary shards", true, true},
    {"relo", "r,shards.relocating,shardsRelocating", "number of relocating nodes", true, true},
    {"init", "i,shards.initializing,shardsInitializing", "number of initializing nodes", true, true},
    {"unassign", "u,shards.unassigned,shardsUnassigned", "number of unassigned shards", true, true},
    {"pending_tasks", "pt,pendingTasks", "number of pending tasks", true, true},
    {"max_task_wait_time", "mtwt,maxTaskWaitTime", "wait time of longest task pending", true, true},
    {"active_shards_percent", "asp,activeShardsPercent", "active number of shards in percent", true, true},
};

/* Per-index health figures (as _cluster/health computes them). */
static void index_health(tv_index *idx, int64_t *shards, int64_t *replicas) {
    tv_index_lock(idx);
    tv_settings *s = tv_index_settings(idx);
    *shards = s->number_of_shards ? s->number_of_shards : 1;
    *replicas = s->number_of_replicas;
    tv_index_unlock(idx);
}

void tv_h_cat_health(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    tv_cat_table t = {.cols = health_cols, .ncols = TV_ARRAY_LEN(health_cols)};
    tv_resolve_opts o = {.ignore_unavailable = true,
                         .allow_no_indices = true,
                         .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED | TV_EXPAND_HIDDEN};
    tv_index_list l;
    if (!tv_node_resolve_ex(r, NULL, &o, &l)) return;
    int64_t act = 0, pri = 0, un = 0;
    bool yellow = false;
    for (size_t i = 0; i < l.len; i++) {
        int64_t s, rep;
        index_health(l.items[i], &s, &rep);
        act += s;
        pri += s;
        un += s * rep;
        if (rep) yellow = true;
    }
    tv_index_list_release(&l);
    if (!tv_cat_add_row(r, &t)) return;
    tv_cat_set_timestamp(r, &t);
    tv_cat_set_str(&t, 2, r->node->st->cluster_name);
    tv_cat_set_str(&t, 3, yellow ? "yellow" : "green");
    tv_cat_set_num(r, &t, 4, 1);
    tv_cat_set_num(r, &t, 5, 1);
    tv_cat_set_str(&t, 6, "true");
    tv_cat_set_num(r, &t, 7, act);
    tv_cat_set_num(r, &t, 8, pri);
    tv_cat_set_num(r, &t, 9, 0);
    tv_cat_set_num(r, &t, 10, 0);
    tv_cat_set_num(r, &t, 11, un);
    tv_cat_set_num(r, &t, 12, 0);
    tv_cat_set_str(&t, 13, "-");
    double pct = act + un == 0 ? 100.0 : (double)act / (double)(act + un) * 100.0;
    char *p = tv_arena_sprintf(&r->arena, "%.1f%%", pct);
    if (!p) r->oom = true;
    tv_cat_set_str(&t, 14, p);
    tv_cat_respond(r, &t);
}

/* -------------------------------------------------------- _cat/indices */

static const tv_cat_col indices_cols[] = {
    {"health", "h", "current health status", false, true},
    {"status", "s", "open/close status", false, true},
    {"index", "i,idx", "index name", false, true},
    {"uuid", "id,uuid", "index uuid", false, true},
    {"pri", "p,shards.primary,shardsPrimary", "number of primary shards", true, true},
    {"rep", "r,shards.replica,shardsReplica", "number of replica shards", true, true},
    {"docs.count", "dc,docsCount", "available docs", true, true},
    {"docs.deleted", "dd,docsDeleted", "deleted docs", true, true},
    {"creation.date", "cd", "index creation date (millisecond value)", false, false},
    {"creation.date.string", "cds", "index creation date (as string)", false, false},
    {"store.size", "ss,storeSize", "store size of primaries & replicas", true, true},
    {"pri.store.size", NULL, "store size of primaries", true, true},
};

void tv_h_cat_indices(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    const char *hf = tv_req_param(r, "health");
    if (hf && strcmp(hf, "green") != 0 && strcmp(hf, "yellow") != 0 && strcmp(hf, "red") != 0) {
        tv_req_fail(r, TROVE_EARG, "unknown cluster health status [%s]", hf);
        return;
    }
    bool pri_flag;
    if (!tv_req_param_bool(r, "pri", false, &pri_flag)) return;
    tv_resolve_opts o = {.ignore_unavailable = false,
                         .allow_no_indices = true,
                         .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED};
    if (!tv_resolve_opts_parse(r, &o)) return;
    tv_index_list l = {0};
    tv_failed_index named;
    bool only_failed = r->p_index && tv_durable_failed(r->node, r->p_index, &named); /* its red row below */
    if (!only_failed && !tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    tv_cat_table t = {.cols = indices_cols, .ncols = TV_ARRAY_LEN(indices_cols)};
    for (size_t i = 0; i < l.len && !r->oom; i++) {
        tv_index *idx = l.items[i];
        const char *name = tv_index_name(idx);
        bool closed = tv_node_is_closed(r->node, name);
        int64_t shards, rep;
        index_health(idx, &shards, &rep);
        const char *health = rep ? "yellow" : "green";
        if (hf && strcmp(hf, health) != 0) continue;
        if (!tv_cat_add_row(r, &t)) break;
        tv_cat_set_str(&t, 0, health);
        tv_cat_set_str(&t, 1, closed ? "close" : "open");
        tv_cat_set_str(&t, 2, name);
        tv_cat_set_str(&t, 3, tv_arena_strndup(&r->arena, tv_index_uuid(idx), strlen(tv_index_uuid(idx))));
        tv_cat_set_num(r, &t, 4, shards);
        tv_cat_set_num(r, &t, 5, rep);
        tv_index_lock(idx);
        int64_t created = tv_index_settings(idx)->creation_date_ms;
        tv_index_unlock(idx);
        tv_cat_set_num(r, &t, 8, created);
        time_t secs = (time_t)(created / 1000);
        struct tm tm;
        gmtime_r(&secs, &tm);
        char *cds = tv_arena_sprintf(&r->arena, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(created % 1000));
        if (!cds) r->oom = true;
        tv_cat_set_str(&t, 9, cds);
        if (!closed) {
            tv_index_stats st;
            tv_index_get_stats(idx, &st);
            tv_cat_set_num(r, &t, 6, (int64_t)st.docs_count);
            tv_cat_set_num(r, &t, 7, (int64_t)st.docs_deleted);
            tv_cat_set_bytes(r, &t, 10, (int64_t)st.store_bytes);
            tv_cat_set_bytes(r, &t, 11, (int64_t)st.store_bytes);
        }
    }
    tv_index_list_release(&l);
    /* indices of the data directory that were not recovered: red, no figures */
    tv_failed_index *fl;
    size_t nf = tv_durable_failed_list(r->node, &r->arena, &fl);
    for (size_t i = 0; i < nf && !r->oom && (!hf || strcmp(hf, "red") == 0); i++) {
        if (r->p_index && !tv_simple_match(r->p_index, fl[i].name, strlen(fl[i].name))) continue;
        if (!tv_cat_add_row(r, &t)) break;
        tv_cat_set_str(&t, 0, "red");
        tv_cat_set_str(&t, 1, "open");
        tv_cat_set_str(&t, 2, fl[i].name);
        tv_cat_set_str(&t, 3, fl[i].uuid);
    }
    tv_cat_respond(r, &t);
}

/* ---------------------------------------------------------- _cat/count */

static const tv_cat_col count_cols[] = {
    TV_CAT_TS_COLS,
    {"count", "dc,docs.count,docsCount", "the document count", false, true},
};

void tv_h_cat_count(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    tv_resolve_opts o = {.ignore_unavailable = false, .allow_no_indices = true, .expand = TV_EXPAND_OPEN,
                         .forbid_closed = true};
    if (!tv_resolve_opts_parse(r, &o)) return;
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    int64_t total = 0;
    for (size_t i = 0; i < l.len; i++) {
        const tv_snapshot *s = tv_index_acquire(l.items[i]);
        if (!s) {
            r->oom = true;
            break;
        }
        total += (int64_t)s->num_docs;
        tv_snapshot_release(s);
    }
    tv_index_list_release(&l);
    tv_cat_table t = {.cols = count_cols, .ncols = TV_ARRAY_LEN(count_cols)};
    if (!tv_cat_add_row(r, &t)) return;
    tv_cat_set_timestamp(r, &t);
    tv_cat_set_num(r, &t, 2, total);
    tv_cat_respond(r, &t);
}

/* -------------------------------------------------------- _cat/aliases */

static const tv_cat_col alias_cols[] = {
    {"alias", "a", "alias name", false, true},
    {"index", "i,idx", "index alias points to", false, true},
    {"filter", "f,fi", "filter", false, true},
    {"routing.index", "ri,routingIndex", "index routing", false, true},
    {"routing.search", "rs,routingSearch", "search routing", false, true},
    {"is_write_index", "w,isWriteIndex", "write index", false, true},
};

void tv_h_cat_aliases(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    const char **names = NULL;
    size_t nn = r->p_name ? tv_split_commas(&r->arena, r->p_name, &names) : 0;
    tv_cat_table t = {.cols = alias_cols, .ncols = TV_ARRAY_LEN(alias_cols)};
    /* RestAliasAction lists the aliases of the indices "*" expands to:
     * every index by default, hidden ones too; expand_wildcards narrows it */
    tv_resolve_opts o = {.ignore_unavailable = true,
                         .allow_no_indices = true,
                         .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED | TV_EXPAND_HIDDEN};
    if (!tv_resolve_opts_parse(r, &o)) return;
    tv_index_list l;
    if (!tv_node_resolve_ex(r, "*", &o, &l)) return;
    const char **shown = tv_arena_calloc(&r->arena, l.len + 1, sizeof *shown);
    for (size_t i = 0; shown && i < l.len; i++) shown[i] = tv_index_name(l.items[i]);
    size_t nshown = l.len;
    if (!shown) r->oom = true;
    pthread_rwlock_rdlock(&r->node->lock);
    for (size_t i = 0; i < r->node->st->naliases && !r->oom; i++) {
        const tv_alias *a = &r->node->st->aliases[i];
        bool listed = false;
        for (size_t j = 0; j < nshown && !listed; j++) listed = strcmp(shown[j], a->index) == 0;
        if (!listed) continue;
        bool hit = nn == 0;
        for (size_t j = 0; j < nn && !hit; j++)
            hit = strcmp(names[j], "_all") == 0 || tv_simple_match(names[j], a->alias, strlen(a->alias));
        if (!hit || !tv_cat_add_row(r, &t)) continue;
        tv_cat_set_str(&t, 0, tv_arena_strndup(&r->arena, a->alias, strlen(a->alias)));
        tv_cat_set_str(&t, 1, tv_arena_strndup(&r->arena, a->index, strlen(a->index)));
        tv_cat_set_str(&t, 2, a->filter ? "*" : "-");
        tv_cat_set_str(&t, 3, a->index_routing ? tv_arena_strndup(&r->arena, a->index_routing, strlen(a->index_routing)) : "-");
        tv_cat_set_str(&t, 4,
                a->search_routing ? tv_arena_strndup(&r->arena, a->search_routing, strlen(a->search_routing)) : "-");
        tv_cat_set_str(&t, 5, a->is_write_index < 0 ? "-" : a->is_write_index ? "true" : "false");
    }
    pthread_rwlock_unlock(&r->node->lock);
    tv_index_list_release(&l);
    tv_cat_respond(r, &t);
}
