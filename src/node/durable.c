/*
 * durable.c — a node on a data directory (trove_options.data_dir, `trove
 * serve --data DIR`): what is on disk, and when it is written.
 *
 * Layout:
 *   DIR/node.lock                    flock'd by the one process using DIR
 *   DIR/node.json                    the node's metadata: cluster uuid,
 *                                    aliases, templates (index, legacy and
 *                                    component: "component": true), stored
 *                                    scripts, ingest pipelines, closed marks,
 *                                    persistent cluster settings (rewritten
 *                                    atomically after a request changed them)
 *   DIR/indices/<uuid>/index.json    {"name", "settings" (flat, with the
 *                                    index's uuid and creation date),
 *                                    "mappings" (as created)}
 *   DIR/indices/<uuid>/translog.tlog every applied operation since creation
 *                                    (store.h frames it, translog_ops.c
 *                                    says what a record holds): generation 0
 *   .../translog-<g>.tlog            the operations after commit g
 *   .../commit.json                  the last commit: {"name", "generation",
 *                                    "next_seq_no", "settings", "mappings",
 *                                    "field_ids" (each field's id: a grown
 *                                    mapping numbers its fields in the order
 *                                    they came, which a parse of "mappings"
 *                                    alone would not give back),
 *                                    "segments": [{"file", "live"}]}, a
 *                                    newline, 8 hex digits of its xxh32
 *   .../seg-<g>-<k>.tvs              a segment's bytes as in memory (the
 *                                    format of segment_build.c), written
 *                                    once by commit g
 *   .../seg-<g>-<k>-<c>.liv          its live docs as of commit c:
 *                                    "TROVELIV", u32 max_doc, u32 xxh32 of
 *                                    the words, the bitset words
 * An index is created on disk before it enters the node's table (a
 * temporary directory renamed into place, so a crash leaves it whole or
 * absent), and its translog is attached before any write can reach it.
 * Deleting an index renames its directory to <uuid>.deleted (durably: the
 * index is gone once the rename is) and then removes it; an open finishes
 * the removal of any left over.
 *
 * Acknowledged means durable: after a writing handler ran, every index
 * whose translog has unsynced records is synced (index.translog.durability
 * request; async: at most every sync_interval) before the response leaves;
 * a sync that fails turns the response into a 500 io_exception. A syncer
 * thread ticks every 100 ms so that async translogs are synced every
 * sync_interval even when no further write comes.
 *
 * Commits (_flush, _forcemerge, and the syncer when a translog outgrows
 * index.translog.flush_threshold_size, 512mb by default): one at a time
 * per node. The next
 * translog generation g is created, then tv_index_commit_begin seals the
 * buffer and swaps it in under the writer lock, so every earlier operation
 * is in the commit's segments and every later one in generation g. Then,
 * outside the lock: the segments not on disk yet are written (each file
 * fsynced and renamed into place, the directory fsynced), the live-docs
 * files, and commit.json the same way; only after that are the translogs
 * below g and the files commit.json does not name removed. A commit cut
 * short anywhere leaves the previous commit.json and every translog it
 * needs: open replays every generation from the commit's on.
 *
 * Opening reads commit.json (or, never committed, index.json), maps its
 * segment files (structure checked, checksums left to trove check, which
 * reads every byte) and loads their live docs, replays the translog generations from the
 * commit's on in order, attaches the last for appends, and refreshes. An
 * index that cannot be read back (corrupt translog, segment or manifest,
 * unreadable index.json) is left on disk untouched and not served: it is
 * named on stderr with the reason, requests naming it answer 500
 * corrupt_index_exception with that reason (no auto-create or create over
 * it), _cat/indices and _cluster/health show it red, and DELETE removes its
 * directory; the other indices open.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "node/node.h"
#include "store/store.h"

struct tv_durable {
    char *dir;
    tv_store_lock *lock;
    pthread_mutex_t meta_mu; /* orders node.json writes */
    tv_buf meta;             /* node.json as last written */
    /* the syncer: index.translog.durability async syncs every
     * sync_interval whether or not more writes come */
    trove_node *node;
    pthread_t syncer;
    bool syncer_on;
    pthread_mutex_t stop_mu;
    pthread_cond_t stop_cv;
    bool stop;
    /* indices whose directory could not be read back (not served) */
    TV_VEC(tv_failed_index) failed;
    pthread_mutex_t failed_mu;
    /* commits: one at a time; per index its generation and the files of
     * the segments already on disk (by tv_segment_id) */
    pthread_mutex_t commit_mu;
    TV_VEC(struct dindex *) dix;
};

typedef struct segfile {
    uint64_t seg_id;
    char *file;
} segfile;

static void failed_fini(tv_failed_index *f) {
    tv_free(f->name);
    tv_free(f->uuid);
    tv_free(f->dir);
    tv_free(f->reason);
}

typedef TV_VEC(segfile) segfiles;

static void segfiles_fini(segfiles *v) {
    for (size_t i = 0; i < v->len; i++) tv_free(v->items[i].file);
    tv_vec_fini(v);
}

typedef struct dindex {
    char uuid[32];
    uint64_t gen;    /* of the last commit (0: none) */
    uint64_t tl_gen; /* of the translog appended to */
    segfiles files;
} dindex;

static dindex *dindex_get(tv_durable *d, const char *uuid) {
    for (size_t i = 0; i < d->dix.len; i++)
        if (!strcmp(d->dix.items[i]->uuid, uuid)) return d->dix.items[i];
    dindex *x = tv_calloc(1, sizeof *x);
    if (!x || tv_vec_push(&d->dix, x)) {
        tv_free(x);
        return NULL;
    }
    snprintf(x->uuid, sizeof x->uuid, "%s", uuid);
    return x;
}

static void dindex_free(dindex *x) {
    segfiles_fini(&x->files);
    tv_free(x);
}

static const char *segfile_of(const dindex *x, uint64_t id) {
    for (size_t i = 0; i < x->files.len; i++)
        if (x->files.items[i].seg_id == id) return x->files.items[i].file;
    return NULL;
}

#define SYNCER_TICK_MS 100

/* Syncs the dirty translogs of n's indices (tv_index_sync decides what is
 * due); the first failure's status, err filled. */
/* Every index of n, retained (release with tv_index_list_release); false
 * on OOM. */
static bool list_indices(trove_node *n, tv_index_list *l) {
    memset(l, 0, sizeof *l);
    pthread_rwlock_rdlock(&n->lock);
    size_t it = 0, cap = n->st->indices.len;
    l->items = tv_malloc((cap ? cap : 1) * sizeof *l->items);
    void *v;
    while (l->items && tv_map_next(&n->st->indices, &it, NULL, NULL, &v)) l->items[l->len++] = tv_index_retain(v);
    pthread_rwlock_unlock(&n->lock);
    return l->items != NULL;
}

static tv_status sync_indices(trove_node *n, tv_sync_mode mode, tv_error *err) {
    tv_index_list l;
    if (!list_indices(n, &l)) return tv_error_oom(err);
    tv_status st = TROVE_OK;
    for (size_t i = 0; i < l.len; i++) {
        tv_status s = tv_index_sync(l.items[i], mode, st ? NULL : err);
        if (s && !st) st = s;
    }
    tv_index_list_release(&l);
    return st;
}

static void commit_full(trove_node *n);

static void *syncer_main(void *arg) {
    tv_durable *d = arg;
    pthread_mutex_lock(&d->stop_mu);
    while (!d->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += SYNCER_TICK_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&d->stop_cv, &d->stop_mu, &ts);
        if (d->stop) break;
        pthread_mutex_unlock(&d->stop_mu);
        tv_error err = TV_ERROR_INIT;
        (void)sync_indices(d->node, TV_SYNC_TIMER, &err); /* a failure shows in the next write's answer */
        commit_full(d->node);
        pthread_mutex_lock(&d->stop_mu);
    }
    pthread_mutex_unlock(&d->stop_mu);
    return NULL;
}

static char *path_join(const char *a, const char *b, const char *c) {
    size_t n = strlen(a) + strlen(b) + (c ? strlen(c) : 0) + 3;
    char *p = tv_malloc(n);
    if (p) snprintf(p, n, "%s/%s%s%s", a, b, c ? "/" : "", c ? c : "");
    return p;
}

/* DIR/indices/<uuid>[suffix] */
static char *index_dir(const tv_durable *d, const char *uuid, const char *suffix) {
    size_t n = strlen(d->dir) + strlen(uuid) + strlen(suffix) + 16;
    char *p = tv_malloc(n);
    if (p) snprintf(p, n, "%s/indices/%s%s", d->dir, uuid, suffix);
    return p;
}

static tv_status replay_cb(void *ctx, const uint8_t *rec, size_t len) {
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_index_replay(ctx, rec, len, &err);
    if (st) fprintf(stderr, "trove: translog replay: %s\n", err.reason);
    return st;
}

/* The index an index.json describes, empty (no translog read). Returns
 * owned, or NULL with err. */
/* The empty index an index.json or commit.json object describes: "name",
 * "settings" (flat), "mappings" (null: created without), and a commit's
 * "field_ids" (absent in index.json, whose mapping is the one created and
 * numbers as a parse does). NULL with err. */
static tv_index *index_from_json(const tv_json *j, const char *path, tv_error *err) {
    const tv_json *name = tv_json_get(j, "name");
    if (!name || name->type != TV_JSON_STRING) {
        tv_error_set(err, TROVE_ECORRUPT, "[%s] is not an index description", path);
        return NULL;
    }
    const tv_json *settings = tv_json_get(j, "settings"), *mappings = tv_json_get(j, "mappings");
    const tv_json *ids = tv_json_get(j, "field_ids");
    if (mappings && mappings->type == TV_JSON_NULL) mappings = NULL;
    return tv_index_restore(name->v.s, settings, mappings, ids, err); /* strings are NUL-terminated */
}

static tv_index *index_from_meta(const char *dir, tv_error *err) {
    char *meta_path = path_join(dir, "index.json", NULL), *bytes = NULL;
    size_t n = 0;
    tv_index *idx = NULL;
    tv_arena a;
    tv_arena_init(&a);
    tv_status st = meta_path ? tv_store_read_file(meta_path, &bytes, &n, err)
                             : tv_error_oom(err);
    if (st == TROVE_ENOTFOUND) tv_error_set(err, TROVE_ECORRUPT, "[%s] is missing", meta_path);
    if (st) goto out;
    tv_json *meta = NULL;
    tv_json_error je;
    if (tv_json_parse(&a, bytes, n, &meta, &je)) {
        tv_error_set(err, TROVE_ECORRUPT, "[%s] is not an index description", meta_path);
        goto out;
    }
    idx = index_from_json(meta, meta_path, err);
out:
    tv_arena_fini(&a);
    tv_free(bytes);
    tv_free(meta_path);
    return idx;
}

/* ------------------------------------------------------------ commits */

/* translog.tlog is generation 0, translog-<g>.tlog generation g. */
static char *translog_path(const char *dir, uint64_t gen) {
    char name[64];
    if (gen) snprintf(name, sizeof name, "translog-%llu.tlog", (unsigned long long)gen);
    else snprintf(name, sizeof name, "translog.tlog");
    return path_join(dir, name, NULL);
}

typedef struct gens {
    TV_VEC(uint64_t) v;
    bool oom;
} gens;

static void collect_gen(void *ctx, const char *name) {
    gens *g = ctx;
    unsigned long long k;
    char tail[8];
    if (!strcmp(name, "translog.tlog")) k = 0;
    else if (sscanf(name, "translog-%llu.tlo%1s", &k, tail) != 2 || strcmp(tail, "g") || !k) return;
    if (tv_vec_push(&g->v, (uint64_t)k)) g->oom = true;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The translog generations in dir, ascending. */
static tv_status translog_gens(const char *dir, gens *g, tv_error *err) {
    memset(g, 0, sizeof *g);
    tv_status st = tv_store_list(dir, collect_gen, g, err);
    if (!st && g->oom) st = tv_error_oom(err);
    if (!st && g->v.len) qsort(g->v.items, g->v.len, sizeof *g->v.items, cmp_u64);
    return st;
}

#define LIVE_MAGIC "TROVELIV"

/* commit.json: the JSON text, a newline, 8 hex digits of its xxh32. */
static tv_status read_manifest(const char *dir, tv_arena *a, char **bytes, tv_json **out, tv_error *err) {
    char *path = path_join(dir, "commit.json", NULL);
    size_t n = 0;
    if (!path) return tv_error_oom(err);
    tv_status st = tv_store_read_file(path, bytes, &n, err);
    if (!st) {
        char *nl = n >= 9 ? *bytes + n - 9 : NULL;
        unsigned sum;
        tv_json_error je;
        if (!nl || *nl != '\n' || sscanf(nl + 1, "%8x", &sum) != 1 || sum != tv_checksum32(*bytes, (size_t)(nl - *bytes)) ||
            tv_json_parse(a, *bytes, (size_t)(nl - *bytes), out, &je) != TROVE_OK)
            st = tv_error_set(err, TROVE_ECORRUPT, "[%s] fails its checksum", path);
    }
    tv_free(path);
    return st;
}

/* Reads a live-docs file of a segment of max_doc docs (tv_malloc'd words). */
static uint64_t *read_live(const char *path, uint32_t max_doc, tv_error *err) {
    char *b = NULL;
    size_t n = 0;
    size_t nw = ((size_t)max_doc + 63) / 64;
    if (tv_store_read_file(path, &b, &n, err)) return NULL;
    uint32_t md, sum;
    uint64_t *w = NULL;
    if (n == 16 + nw * 8 && !memcmp(b, LIVE_MAGIC, 8)) {
        memcpy(&md, b + 8, 4);
        memcpy(&sum, b + 12, 4);
        if (md == max_doc && sum == tv_checksum32(b + 16, nw * 8) && (w = tv_malloc(nw ? nw * 8 : 1)))
            memcpy(w, b + 16, nw * 8);
    }
    if (!w) tv_error_set(err, TROVE_ECORRUPT, "[%s] is not the live docs of a %u-doc segment", path, max_doc);
    tv_free(b);
    return w;
}

/* The index as its last commit left it (segments installed, no replay), or
 * as index.json describes it when it was never committed; *gen is the
 * commit's generation (0: none). With x, the segment files are recorded.
 * verify reads, checksums and checks the invariants of every segment
 * (trove check: tv_segment_check); else they are mapped. */
static tv_index *load_base(const char *dir, dindex *x, bool verify, uint64_t *gen, tv_error *err) {
    tv_arena a;
    tv_arena_init(&a);
    char *bytes = NULL;
    tv_json *m = NULL;
    *gen = 0;
    tv_status st = read_manifest(dir, &a, &bytes, &m, err);
    if (st == TROVE_ENOTFOUND) {
        tv_free(bytes);
        tv_arena_fini(&a);
        return index_from_meta(dir, err);
    }
    tv_index *idx = NULL;
    const tv_json *g = st ? NULL : tv_json_get(m, "generation");
    const tv_json *seq = st ? NULL : tv_json_get(m, "next_seq_no"), *segs = st ? NULL : tv_json_get(m, "segments");
    if (!st && (!g || g->type != TV_JSON_INT || !seq || seq->type != TV_JSON_INT || !segs ||
                segs->type != TV_JSON_ARRAY))
        st = tv_error_set(err, TROVE_ECORRUPT, "[%s/commit.json] is not a commit", dir);
    if (!st && !(idx = index_from_json(m, "commit.json", err))) st = err->code ? err->code : TROVE_ECORRUPT;
    uint32_t ns = st ? 0 : segs->len;
    tv_segment **sv = ns ? tv_calloc(ns, sizeof *sv) : NULL;
    uint64_t **lv = ns ? tv_calloc(ns, sizeof *lv) : NULL;
    if (ns && (!sv || !lv)) st = tv_error_oom(err);
    for (uint32_t i = 0; !st && i < ns; i++) {
        const tv_json *e = &segs->v.items[i], *f = tv_json_get(e, "file"), *l = tv_json_get(e, "live");
        if (!f || f->type != TV_JSON_STRING || strchr(f->v.s, '/') ||
            (l && l->type == TV_JSON_STRING && strchr(l->v.s, '/'))) { /* names inside the directory only */
            st = tv_error_set(err, TROVE_ECORRUPT, "[%s/commit.json]: a bad segment entry", dir);
            break;
        }
        char *fp = path_join(dir, f->v.s, NULL);
        if (!fp) {
            st = tv_error_oom(err);
        } else if (verify) { /* trove check: every byte read and checksummed */
            char *sb = NULL;
            size_t sl = 0;
            st = tv_store_read_file(fp, &sb, &sl, err);
            if (st == TROVE_ENOTFOUND) st = tv_error_set(err, TROVE_ECORRUPT, "segment [%s] is missing", fp);
            if (!st) st = tv_segment_open(sb, sl, &sv[i], err);
            if (!st) st = tv_segment_check(sv[i], err); /* doc counts, term statistics, order */
            tv_free(sb);
        } else { /* open: mapped, read as queries touch it */
            st = tv_segment_open_file(fp, &sv[i], err);
        }
        if (!st && l && l->type == TV_JSON_STRING) {
            char *lp = path_join(dir, l->v.s, NULL);
            lv[i] = lp ? read_live(lp, tv_segment_max_doc(sv[i]), err) : NULL;
            if (!lv[i]) st = err->code ? err->code : TROVE_ENOMEM;
            tv_free(lp);
        }
        if (!st && x) {
            segfile sf = {tv_segment_id(sv[i]), tv_strndup(f->v.s, f->len)};
            if (!sf.file || tv_vec_push(&x->files, sf)) {
                tv_free(sf.file);
                st = tv_error_oom(err);
            }
        }
        tv_free(fp);
    }
    if (!st) st = tv_index_install(idx, (const tv_segment *const *)sv, (const uint64_t *const *)lv, ns, seq->v.i, err);
    for (uint32_t i = 0; i < ns; i++) {
        if (sv) tv_segment_release(sv[i]);
        if (lv) tv_free(lv[i]);
    }
    tv_free(sv);
    tv_free(lv);
    if (!st) *gen = (uint64_t)g->v.i;
    if (st) {
        tv_index_release(idx);
        idx = NULL;
    }
    tv_free(bytes);
    tv_arena_fini(&a);
    return idx;
}

/* Reads one index directory back: its last commit, then every translog
 * generation from the commit's on, the last one attached for appends,
 * refreshed. Returns owned, or NULL with err (and, when it got that far,
 * the index name and uuid in *name and *uuid, tv_malloc'd). */
static tv_index *restore_index(tv_durable *d, const char *dir, char **name, char **uuid, tv_error *err) {
    dindex tmp = {0};
    uint64_t gen = 0;
    tv_index *idx = load_base(dir, &tmp, false, &gen, err);
    gens g = {0};
    tv_translog *tl = NULL;
    uint64_t last = gen;
    if (!idx) goto fail;
    *name = tv_strndup(tv_index_name(idx), strlen(tv_index_name(idx)));
    *uuid = tv_strndup(tv_index_uuid(idx), strlen(tv_index_uuid(idx)));
    if (translog_gens(dir, &g, err)) goto fail;
    for (size_t i = 0; i < g.v.len; i++) {
        if (g.v.items[i] < gen) continue; /* covered by the commit; its deletion was cut short */
        char *p = translog_path(dir, g.v.items[i]);
        tv_translog_close(tl);
        tl = NULL;
        tv_status st = p ? tv_translog_open(p, replay_cb, idx, &tl, err) : tv_error_oom(err);
        tv_free(p);
        if (st) goto fail;
        last = g.v.items[i];
    }
    if (!tl) { /* committed and nothing after: the generation's translog */
        char *p = translog_path(dir, gen);
        tv_status st = p ? tv_translog_open(p, NULL, NULL, &tl, err) : tv_error_oom(err);
        tv_free(p);
        if (st) goto fail;
    }
    tv_index_attach_translog(idx, tl);
    tl = NULL;
    if (tv_index_refresh(idx) != TROVE_OK) {
        tv_error_oom(err);
        goto fail;
    }
    dindex *x = d ? dindex_get(d, tv_index_uuid(idx)) : NULL;
    if (d && !x) {
        tv_error_oom(err);
        goto fail;
    }
    if (x) {
        x->gen = gen;
        x->tl_gen = last;
        x->files = tmp.files;
        memset(&tmp.files, 0, sizeof tmp.files);
    }
    segfiles_fini(&tmp.files);
    tv_vec_fini(&g.v);
    return idx;
fail:
    tv_translog_close(tl);
    tv_index_release(idx);
    segfiles_fini(&tmp.files);
    tv_vec_fini(&g.v);
    return NULL;
}

typedef struct scan {
    tv_durable *d;
    tv_node_state *st;
    tv_status status;
    tv_error *err;
    TV_VEC(char *) names;
} scan;

static void collect(void *ctx, const char *name) {
    scan *s = ctx;
    char *c = tv_strndup(name, strlen(name));
    if (!c || tv_vec_push(&s->names, c)) {
        tv_free(c);
        s->status = TROVE_ENOMEM;
    }
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* ------------------------------------------------------------ node.json */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void raw_or_null(tv_jw *w, const char *json) {
    if (json) tv_jw_raw(w, json, strlen(json));
    else tv_jw_null(w);
}

static void str_or_null(tv_jw *w, const char *s) {
    if (s) tv_jw_strz(w, s);
    else tv_jw_null(w);
}

/* The node's metadata as node.json holds it (caller holds the node lock). */
static void meta_write(tv_buf *b, const tv_node_state *st) {
    tv_jw w;
    tv_jw_init(&w, b, false);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "cluster_uuid");
    tv_jw_strz(&w, st->cluster_uuid);
    tv_jw_keyz(&w, "aliases");
    tv_jw_arr_begin(&w);
    for (size_t i = 0; i < st->naliases; i++) {
        const tv_alias *a = &st->aliases[i];
        tv_jw_obj_begin(&w);
        tv_jw_keyz(&w, "alias");
        tv_jw_strz(&w, a->alias);
        tv_jw_keyz(&w, "index");
        tv_jw_strz(&w, a->index);
        tv_jw_keyz(&w, "filter");
        raw_or_null(&w, a->filter);
        tv_jw_keyz(&w, "index_routing");
        str_or_null(&w, a->index_routing);
        tv_jw_keyz(&w, "search_routing");
        str_or_null(&w, a->search_routing);
        tv_jw_keyz(&w, "is_write_index");
        tv_jw_int(&w, a->is_write_index);
        tv_jw_keyz(&w, "is_hidden");
        tv_jw_int(&w, a->is_hidden);
        tv_jw_obj_end(&w);
    }
    tv_jw_arr_end(&w);
    tv_jw_keyz(&w, "templates");
    tv_jw_arr_begin(&w);
    for (size_t i = 0; i < st->ntemplates; i++) {
        tv_jw_obj_begin(&w);
        tv_jw_keyz(&w, "name");
        tv_jw_strz(&w, st->templates[i].name);
        tv_jw_keyz(&w, "legacy");
        tv_jw_bool(&w, st->templates[i].legacy);
        if (st->templates[i].component) {
            tv_jw_keyz(&w, "component");
            tv_jw_bool(&w, true);
        }
        tv_jw_keyz(&w, "body");
        raw_or_null(&w, st->templates[i].body);
        tv_jw_obj_end(&w);
    }
    tv_jw_arr_end(&w);
    tv_jw_keyz(&w, "scripts");
    tv_jw_arr_begin(&w);
    for (size_t i = 0; i < st->nscripts; i++) {
        tv_jw_obj_begin(&w);
        tv_jw_keyz(&w, "id");
        tv_jw_strz(&w, st->scripts[i].id);
        tv_jw_keyz(&w, "lang");
        tv_jw_strz(&w, st->scripts[i].lang);
        tv_jw_keyz(&w, "source");
        tv_jw_strz(&w, st->scripts[i].source);
        tv_jw_obj_end(&w);
    }
    tv_jw_arr_end(&w);
    /* closed marks, sorted: the bytes compare equal when nothing changed */
    tv_jw_keyz(&w, "closed");
    tv_jw_arr_begin(&w);
    size_t nc = st->closed.len, k = 0, it = 0;
    const char **names = tv_malloc((nc ? nc : 1) * sizeof *names);
    const char *key;
    size_t kl;
    while (names && tv_map_next(&st->closed, &it, &key, &kl, NULL)) names[k++] = key;
    if (!names) b->oom = true;
    else qsort(names, k, sizeof *names, cmp_str);
    for (size_t i = 0; names && i < k; i++) tv_jw_strz(&w, names[i]);
    tv_free(names);
    tv_jw_arr_end(&w);
    tv_jw_keyz(&w, "persistent"); /* transient cluster settings do not survive a restart */
    raw_or_null(&w, st->cluster_persistent);
    if (st->pipelines) { /* absent until the first pipeline, as voting exclusions */
        tv_jw_keyz(&w, "ingest_pipelines");
        raw_or_null(&w, st->pipelines);
    }
    if (st->voting_exclusions) { /* absent until the first exclusion: older node.json files compare equal */
        tv_jw_keyz(&w, "voting_config_exclusions");
        raw_or_null(&w, st->voting_exclusions);
    }
    tv_jw_obj_end(&w);
}

/* A JSON value back as the compact text the state keeps, or NULL for null. */
static char *compact(const tv_json *v, bool *ok) {
    if (!v || v->type == TV_JSON_NULL) return NULL;
    char *s = tv_json_compact(v);
    if (!s) *ok = false;
    return s;
}

static char *str_of(const tv_json *v, bool *ok) {
    if (!v || v->type != TV_JSON_STRING) return NULL;
    char *s = tv_strndup(v->v.s, v->len);
    if (!s) *ok = false;
    return s;
}

/* Reads node.json (if any) into st; aliases of indices that are not served
 * are dropped. */
static tv_status meta_read(tv_durable *d, tv_node_state *st, tv_error *err) {
    char *path = path_join(d->dir, "node.json", NULL), *bytes = NULL;
    size_t n = 0;
    if (!path) return tv_error_oom(err);
    tv_status rs = tv_store_read_file(path, &bytes, &n, err);
    if (rs == TROVE_ENOTFOUND) {
        tv_free(path);
        return TROVE_OK;
    }
    tv_arena a;
    tv_arena_init(&a);
    tv_json *j = NULL;
    tv_json_error je;
    bool ok = true;
    tv_status st2 = rs;
    if (!rs && tv_json_parse(&a, bytes, n, &j, &je) != TROVE_OK)
        st2 = tv_error_set(err, TROVE_ECORRUPT, "[%s] is not node metadata", path);
    if (!st2) {
        const tv_json *u = tv_json_get(j, "cluster_uuid"), *al = tv_json_get(j, "aliases");
        const tv_json *tp = tv_json_get(j, "templates"), *cl = tv_json_get(j, "closed");
        if (u && u->type == TV_JSON_STRING && u->len < sizeof st->cluster_uuid)
            snprintf(st->cluster_uuid, sizeof st->cluster_uuid, "%.*s", (int)u->len, u->v.s);
        size_t na = al && al->type == TV_JSON_ARRAY ? al->len : 0;
        size_t nt = tp && tp->type == TV_JSON_ARRAY ? tp->len : 0;
        st->aliases = na ? tv_calloc(na, sizeof *st->aliases) : NULL;
        st->templates = nt ? tv_calloc(nt, sizeof *st->templates) : NULL;
        if ((na && !st->aliases) || (nt && !st->templates)) ok = false;
        for (size_t i = 0; ok && i < na; i++) {
            const tv_json *e = &al->v.items[i];
            const tv_json *ix = tv_json_get(e, "index");
            if (!ix || ix->type != TV_JSON_STRING || !tv_map_has(&st->indices, ix->v.s, ix->len)) continue;
            tv_alias *x = &st->aliases[st->naliases++];
            x->alias = str_of(tv_json_get(e, "alias"), &ok);
            x->index = str_of(ix, &ok);
            x->filter = compact(tv_json_get(e, "filter"), &ok);
            x->index_routing = str_of(tv_json_get(e, "index_routing"), &ok);
            x->search_routing = str_of(tv_json_get(e, "search_routing"), &ok);
            const tv_json *wi = tv_json_get(e, "is_write_index"), *hd = tv_json_get(e, "is_hidden");
            x->is_write_index = (int8_t)(wi && wi->type == TV_JSON_INT ? wi->v.i : -1);
            x->is_hidden = (int8_t)(hd && hd->type == TV_JSON_INT ? hd->v.i : -1);
            if (ok && (!x->alias || !x->index)) st2 = tv_error_set(err, TROVE_ECORRUPT, "[%s]: a bad alias", path);
        }
        for (size_t i = 0; ok && !st2 && i < nt; i++) {
            const tv_json *e = &tp->v.items[i], *lg = tv_json_get(e, "legacy");
            tv_template *t = &st->templates[st->ntemplates++];
            t->name = str_of(tv_json_get(e, "name"), &ok);
            t->body = compact(tv_json_get(e, "body"), &ok);
            t->legacy = lg && lg->type == TV_JSON_TRUE;
            const tv_json *cp = tv_json_get(e, "component");
            t->component = cp && cp->type == TV_JSON_TRUE;
            if (ok && (!t->name || !t->body)) st2 = tv_error_set(err, TROVE_ECORRUPT, "[%s]: a bad template", path);
        }
        const tv_json *sc = tv_json_get(j, "scripts");
        size_t ns = sc && sc->type == TV_JSON_ARRAY ? sc->len : 0;
        st->scripts = ns ? tv_calloc(ns, sizeof *st->scripts) : NULL;
        if (ns && !st->scripts) ok = false;
        for (size_t i = 0; ok && !st2 && i < ns; i++) {
            const tv_json *e = &sc->v.items[i];
            tv_stored_script *t = &st->scripts[st->nscripts++];
            t->id = str_of(tv_json_get(e, "id"), &ok);
            t->lang = str_of(tv_json_get(e, "lang"), &ok);
            t->source = str_of(tv_json_get(e, "source"), &ok);
            if (ok && (!t->id || !t->lang || !t->source))
                st2 = tv_error_set(err, TROVE_ECORRUPT, "[%s]: a bad stored script", path);
        }
        for (size_t i = 0; ok && cl && cl->type == TV_JSON_ARRAY && i < cl->len; i++) {
            const tv_json *e = &cl->v.items[i];
            if (e->type == TV_JSON_STRING && tv_map_has(&st->indices, e->v.s, e->len) &&
                tv_map_put(&st->closed, e->v.s, e->len, (void *)1, NULL))
                ok = false;
        }
        st->cluster_persistent = compact(tv_json_get(j, "persistent"), &ok);
        const tv_json *vx = tv_json_get(j, "voting_config_exclusions");
        if (vx && vx->type == TV_JSON_ARRAY) st->voting_exclusions = compact(vx, &ok);
        const tv_json *ip = tv_json_get(j, "ingest_pipelines");
        if (ip && ip->type == TV_JSON_OBJECT && ip->len) st->pipelines = compact(ip, &ok);
    }
    if (!ok && !st2) st2 = tv_error_oom(err);
    tv_arena_fini(&a);
    tv_free(bytes);
    tv_free(path);
    if (!st2) meta_write(&d->meta, st); /* what is on disk now, as this process would write it */
    return st2;
}

/* Rewrites node.json when the metadata changed (after a writing request). */
static tv_status meta_sync(trove_node *n, tv_error *err) {
    tv_durable *d = n->durable;
    tv_buf b;
    tv_buf_init(&b);
    pthread_rwlock_rdlock(&n->lock);
    meta_write(&b, n->st);
    pthread_rwlock_unlock(&n->lock);
    tv_status st = TROVE_OK;
    pthread_mutex_lock(&d->meta_mu);
    if (b.oom) {
        st = tv_error_oom(err);
    } else if (b.len != d->meta.len || memcmp(b.data, d->meta.data, b.len)) {
        char *path = path_join(d->dir, "node.json", NULL);
        st = path ? tv_store_write_atomic(path, b.data, b.len, err) : tv_error_oom(err);
        tv_free(path);
        if (!st) {
            tv_buf t = d->meta;
            d->meta = b;
            b = t;
        }
    }
    pthread_mutex_unlock(&d->meta_mu);
    tv_buf_fini(&b);
    return st;
}

tv_status tv_durable_open(trove_node *n, const char *dir, tv_error *err) {
    tv_durable *d = tv_calloc(1, sizeof *d);
    if (!d || !(d->dir = tv_strndup(dir, strlen(dir)))) {
        tv_free(d);
        return tv_error_oom(err);
    }
    pthread_mutex_init(&d->meta_mu, NULL);
    pthread_mutex_init(&d->stop_mu, NULL);
    pthread_mutex_init(&d->failed_mu, NULL);
    pthread_mutex_init(&d->commit_mu, NULL);
    pthread_cond_init(&d->stop_cv, NULL);
    tv_buf_init(&d->meta);
    tv_status st = tv_store_lock_dir(dir, &d->lock, err);
    char *indices = st ? NULL : path_join(dir, "indices", NULL);
    if (!st && !indices) st = tv_error_oom(err);
    if (!st) st = tv_store_mkdir(indices, err);
    scan s = {.d = d, .st = n->st, .err = err};
    if (!st) st = tv_store_list(indices, collect, &s, err);
    if (!st && s.status) st = tv_error_set(err, s.status, "out of memory");
    for (size_t i = 0; !st && i < s.names.len; i++) {
        char *sub = path_join(indices, s.names.items[i], NULL);
        if (!sub) {
            st = tv_error_oom(err);
            break;
        }
        if (ends_with(s.names.items[i], ".deleted") || ends_with(s.names.items[i], ".tmp")) {
            st = tv_store_remove_tree(sub, err); /* a delete or create cut short */
        } else {
            tv_error ie;
            tv_error_clear(&ie);
            char *name = NULL, *uuid = NULL;
            tv_index *idx = restore_index(d, sub, &name, &uuid, &ie);
            if (!idx && ie.code == TROVE_ENOMEM) {
                st = tv_error_oom(err);
            } else if (!idx) {
                fprintf(stderr, "trove: index in [%s] is not served: %s\n", sub, ie.reason);
                tv_failed_index f = {.name = name ? name : tv_strndup(s.names.items[i], strlen(s.names.items[i])),
                                     .uuid = uuid ? uuid : tv_strndup(s.names.items[i], strlen(s.names.items[i])),
                                     .dir = tv_strndup(sub, strlen(sub)),
                                     .reason = tv_strndup(ie.reason, strlen(ie.reason))};
                name = uuid = NULL;
                if (!f.name || !f.uuid || !f.dir || !f.reason || tv_vec_push(&d->failed, f)) {
                    failed_fini(&f);
                    st = tv_error_oom(err);
                }
            } else if (tv_map_put(&n->st->indices, tv_index_name(idx), strlen(tv_index_name(idx)), idx, NULL)) {
                tv_index_release(idx);
                st = tv_error_oom(err);
            }
            tv_free(name);
            tv_free(uuid);
        }
        tv_free(sub);
    }
    for (size_t i = 0; i < s.names.len; i++) tv_free(s.names.items[i]);
    tv_vec_fini(&s.names);
    tv_free(indices);
    if (!st) st = meta_read(d, n->st, err);
    d->node = n;
    if (!st && pthread_create(&d->syncer, NULL, syncer_main, d) != 0)
        st = tv_error_set(err, TROVE_ENOMEM, "cannot start the translog syncer thread");
    if (st) {
        tv_durable_free(d);
        return st;
    }
    d->syncer_on = true;
    n->durable = d;
    return TROVE_OK;
}

void tv_durable_stop(tv_durable *d) {
    if (!d || !d->syncer_on) return;
    pthread_mutex_lock(&d->stop_mu);
    d->stop = true;
    pthread_cond_signal(&d->stop_cv);
    pthread_mutex_unlock(&d->stop_mu);
    pthread_join(d->syncer, NULL);
    d->syncer_on = false;
}

const char *tv_durable_dir(const tv_durable *d) { return d ? d->dir : NULL; }

void tv_durable_free(tv_durable *d) {
    if (!d) return;
    tv_durable_stop(d);
    pthread_mutex_destroy(&d->stop_mu);
    pthread_cond_destroy(&d->stop_cv);
    for (size_t i = 0; i < d->failed.len; i++) {
        tv_failed_index *f = &d->failed.items[i];
        failed_fini(f);
    }
    tv_vec_fini(&d->failed);
    pthread_mutex_destroy(&d->failed_mu);
    for (size_t i = 0; i < d->dix.len; i++) dindex_free(d->dix.items[i]);
    tv_vec_fini(&d->dix);
    pthread_mutex_destroy(&d->commit_mu);
    tv_store_unlock(d->lock);
    pthread_mutex_destroy(&d->meta_mu);
    tv_buf_fini(&d->meta);
    tv_free(d->dir);
    tv_free(d);
}

tv_status tv_durable_create_index(trove_node *n, tv_index *idx, const tv_json *mappings, tv_error *err) {
    tv_durable *d = n->durable;
    if (!d) return TROVE_OK;
    const char *uuid = tv_index_uuid(idx);
    char *tmp = index_dir(d, uuid, ".tmp"), *final = index_dir(d, uuid, "");
    char *meta = tmp ? path_join(tmp, "index.json", NULL) : NULL;
    char *tl_tmp = tmp ? path_join(tmp, "translog.tlog", NULL) : NULL;
    char *tl_path = final ? path_join(final, "translog.tlog", NULL) : NULL;
    tv_buf b;
    tv_buf_init(&b);
    tv_status st = TROVE_OK;
    tv_translog *tl = NULL;
    if (!tmp || !final || !meta || !tl_tmp || !tl_path) {
        st = tv_error_oom(err);
        goto out;
    }
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "name");
    tv_jw_strz(&w, tv_index_name(idx));
    tv_jw_keyz(&w, "settings");
    tv_index_lock(idx);
    tv_settings_write(tv_index_settings(idx), &w, true);
    tv_index_unlock(idx);
    tv_jw_keyz(&w, "mappings");
    if (mappings) tv_jw_value(&w, mappings);
    else tv_jw_null(&w);
    tv_jw_obj_end(&w);
    if (b.oom) {
        st = tv_error_oom(err);
        goto out;
    }
    if ((st = tv_store_mkdir(tmp, err)) || (st = tv_store_write_atomic(meta, b.data, b.len, err)))
        goto out;
    /* an empty translog (its header) inside the temporary directory, then
     * the whole directory into place */
    if ((st = tv_translog_open(tl_tmp, NULL, NULL, &tl, err))) goto out;
    tv_translog_close(tl);
    tl = NULL;
    if ((st = tv_store_rename(tmp, final, err))) goto out;
    if ((st = tv_translog_open(tl_path, NULL, NULL, &tl, err))) goto out;
    tv_index_attach_translog(idx, tl);
out:
    if (st && tmp) {
        tv_error ignored = TV_ERROR_INIT;
        (void)tv_store_remove_tree(tmp, &ignored);
    }
    tv_buf_fini(&b);
    tv_free(tmp);
    tv_free(final);
    tv_free(meta);
    tv_free(tl_tmp);
    tv_free(tl_path);
    return st;
}

tv_status tv_durable_drop_index(trove_node *n, tv_index *idx, tv_error *err) {
    tv_durable *d = n->durable;
    if (!d || !tv_index_durable(idx)) return TROVE_OK;
    char *dir = index_dir(d, tv_index_uuid(idx), ""), *gone = index_dir(d, tv_index_uuid(idx), ".deleted");
    tv_status st = dir && gone ? tv_store_rename(dir, gone, err) : tv_error_oom(err);
    if (!st) {
        tv_error ignored = TV_ERROR_INIT; /* the next open finishes a removal cut short */
        (void)tv_store_remove_tree(gone, &ignored);
    }
    tv_free(dir);
    tv_free(gone);
    return st;
}

tv_status tv_durable_sync(trove_node *n, tv_error *err) {
    if (!n->durable) return TROVE_OK;
    tv_status st = sync_indices(n, TV_SYNC_REQUEST, err);
    if (!st) st = meta_sync(n, err);
    return st;
}

/* ------------------------------------------------------------ _flush */

typedef struct keep {
    const char *const *names;
    size_t n;
    uint64_t gen; /* translogs below it go */
    const char *dir;
    TV_VEC(char *) gone;
    bool oom;
} keep;

static void collect_stale(void *ctx, const char *name) {
    keep *k = ctx;
    size_t len = strlen(name);
    bool seg = len > 4 && (!strcmp(name + len - 4, ".tvs") || !strcmp(name + len - 4, ".liv"));
    unsigned long long g = 0;
    char tail[8];
    bool tlog = !strcmp(name, "translog.tlog") ||
                (sscanf(name, "translog-%llu.tlo%1s", &g, tail) == 2 && !strcmp(tail, "g"));
    if (!seg && !(tlog && g < k->gen)) return;
    for (size_t i = 0; seg && i < k->n; i++)
        if (!strcmp(k->names[i], name)) return;
    char *p = path_join(k->dir, name, NULL);
    if (!p || tv_vec_push(&k->gone, p)) {
        tv_free(p);
        k->oom = true;
    }
}

/* A live-docs file: "TROVELIV", u32 max_doc, u32 xxh32 of the words, the
 * bitset words (bit d of word d/64 set: doc d is live). */
static tv_status write_live(const char *path, const uint64_t *words, uint32_t max_doc, tv_error *err) {
    size_t nw = ((size_t)max_doc + 63) / 64;
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_append(&b, LIVE_MAGIC, 8);
    uint32_t sum = tv_checksum32(words, nw * 8);
    tv_buf_append(&b, &max_doc, 4);
    tv_buf_append(&b, &sum, 4);
    tv_buf_append(&b, words, nw * 8);
    tv_status st = b.oom ? tv_error_oom(err) : tv_store_write_atomic(path, b.data, b.len, err);
    tv_buf_fini(&b);
    return st;
}

tv_status tv_durable_commit(trove_node *n, tv_index *idx, tv_error *err) {
    tv_durable *d = n->durable;
    if (!d || !tv_index_durable(idx)) return TROVE_OK;
    pthread_mutex_lock(&d->commit_mu);
    tv_status st = TROVE_OK;
    dindex *x = dindex_get(d, tv_index_uuid(idx));
    char *dir = index_dir(d, tv_index_uuid(idx), "");
    tv_commit_point cp = {0};
    tv_buf man;
    tv_buf_init(&man);
    segfiles files = {0};
    keep k = {0};
    if (!x || !dir) {
        st = tv_error_oom(err);
        goto out;
    }
    /* 1. the next translog generation, then the point, which swaps it in */
    uint64_t g = x->tl_gen + 1;
    char *tp = translog_path(dir, g);
    tv_translog *next = NULL;
    st = tp ? tv_translog_open(tp, NULL, NULL, &next, err) : tv_error_oom(err);
    if (!st && (st = tv_index_commit_begin(idx, next, &cp, err)) != TROVE_OK) {
        tv_translog_close(next);
        unlink(tp);
    }
    tv_free(tp);
    if (st) goto out;
    x->tl_gen = g; /* appends go there now, whatever follows */
    /* 2. segment and live-docs files (segments already on disk keep theirs) */
    tv_jw w;
    tv_jw_init(&w, &man, false);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "name");
    tv_jw_strz(&w, tv_index_name(idx));
    tv_jw_keyz(&w, "generation");
    tv_jw_uint(&w, g);
    tv_jw_keyz(&w, "next_seq_no");
    tv_jw_int(&w, cp.next_seq_no);
    tv_jw_keyz(&w, "settings");
    tv_jw_raw(&w, cp.settings_json, strlen(cp.settings_json));
    tv_jw_keyz(&w, "mappings");
    tv_jw_raw(&w, cp.mapping_json, strlen(cp.mapping_json));
    tv_jw_keyz(&w, "field_ids");
    tv_jw_raw(&w, cp.field_ids_json, strlen(cp.field_ids_json));
    tv_jw_keyz(&w, "segments");
    tv_jw_arr_begin(&w);
    for (uint32_t i = 0; !st && i < cp.nsegs; i++) {
        uint64_t id = tv_segment_id(cp.segs[i].seg);
        const char *have = segfile_of(x, id);
        char name[64], live[64];
        if (have) snprintf(name, sizeof name, "%s", have);
        else snprintf(name, sizeof name, "seg-%llu-%u.tvs", (unsigned long long)g, i);
        segfile sf = {id, tv_strndup(name, strlen(name))};
        if (!sf.file || tv_vec_push(&files, sf)) {
            tv_free(sf.file);
            st = tv_error_oom(err);
            break;
        }
        if (!have) {
            size_t len;
            const void *bytes = tv_segment_bytes_ptr(cp.segs[i].seg, &len);
            char *fp = path_join(dir, name, NULL);
            st = fp ? tv_store_write_atomic(fp, bytes, len, err) : tv_error_oom(err);
            tv_free(fp);
        }
        tv_jw_obj_begin(&w);
        tv_jw_keyz(&w, "file");
        tv_jw_strz(&w, name);
        tv_jw_keyz(&w, "live");
        if (!st && cp.segs[i].live) {
            snprintf(live, sizeof live, "%.*s-%llu.liv", (int)(strlen(name) - 4), name, (unsigned long long)g);
            char *lp = path_join(dir, live, NULL);
            st = lp ? write_live(lp, cp.segs[i].live, cp.segs[i].max_doc, err) : tv_error_oom(err);
            tv_free(lp);
            tv_jw_strz(&w, live);
        } else {
            tv_jw_null(&w);
        }
        tv_jw_obj_end(&w);
    }
    tv_jw_arr_end(&w);
    tv_jw_obj_end(&w);
    if (st) goto out;
    /* 3. the manifest: from here on the commit is the index */
    uint32_t sum = tv_checksum32(man.data, man.len);
    tv_buf_printf(&man, "\n%08x", sum);
    char *mp = path_join(dir, "commit.json", NULL);
    st = man.oom || !mp ? tv_error_oom(err) : tv_store_write_atomic(mp, man.data, man.len, err);
    tv_free(mp);
    if (st) goto out;
    segfiles_fini(&x->files);
    x->files = files;
    memset(&files, 0, sizeof files);
    x->gen = g;
    /* 4. what the commit no longer needs: older translogs, other files */
    const char **names = tv_malloc((x->files.len ? x->files.len : 1) * 2 * sizeof *names);
    char (*lives)[64] = tv_malloc((x->files.len ? x->files.len : 1) * sizeof *lives);
    size_t nn = 0;
    for (size_t i = 0; names && lives && i < x->files.len; i++) {
        names[nn++] = x->files.items[i].file;
        snprintf(lives[i], sizeof lives[i], "%.*s-%llu.liv", (int)(strlen(x->files.items[i].file) - 4),
                 x->files.items[i].file, (unsigned long long)g);
        names[nn++] = lives[i];
    }
    k = (keep){.names = names, .n = nn, .gen = g, .dir = dir};
    tv_error ignored = TV_ERROR_INIT;
    if (names && lives) (void)tv_store_list(dir, collect_stale, &k, &ignored);
    for (size_t i = 0; i < k.gone.len; i++) {
        unlink(k.gone.items[i]);
        tv_free(k.gone.items[i]);
    }
    if (k.gone.len) (void)tv_store_sync_dir(dir, &ignored);
    tv_vec_fini(&k.gone);
    tv_free(names);
    tv_free(lives);
out:
    segfiles_fini(&files);
    tv_commit_point_fini(&cp); /* closes the old translog */
    tv_buf_fini(&man);
    tv_free(dir);
    pthread_mutex_unlock(&d->commit_mu);
    return st;
}

/* The syncer's other job: a commit for every index whose translog outgrew
 * index.translog.flush_threshold_size, off the requests' path. A failure
 * is left for the next tick or _flush (the translog still holds it all). */
static void commit_full(trove_node *n) {
    tv_index_list l;
    if (!list_indices(n, &l)) return;
    for (size_t i = 0; i < l.len; i++) {
        tv_error err = TV_ERROR_INIT;
        if (!tv_index_translog_full(l.items[i])) continue;
        uint64_t t0 = tv_mono_ns();
        if (tv_durable_commit(n, l.items[i], &err) != TROVE_OK)
            fprintf(stderr, "trove: commit of [%s] by translog size: %s\n", tv_index_name(l.items[i]), err.reason);
        else /* a periodic flush (IndexShard.afterWriteOperation's) */
            tv_index_note_flush(l.items[i], true, true, (int64_t)(tv_mono_ns() - t0));
    }
    tv_index_list_release(&l);
}

/* ------------------------------------------------------- failed recovery */

bool tv_durable_failed(trove_node *n, const char *name, tv_failed_index *out) {
    tv_durable *d = n->durable;
    if (!d) return false;
    bool found = false;
    pthread_mutex_lock(&d->failed_mu);
    for (size_t i = 0; i < d->failed.len && !found; i++)
        if (!strcmp(d->failed.items[i].name, name)) {
            *out = d->failed.items[i];
            found = true;
        }
    pthread_mutex_unlock(&d->failed_mu);
    return found;
}

size_t tv_durable_failed_list(trove_node *n, tv_arena *a, tv_failed_index **out) {
    tv_durable *d = n->durable;
    *out = NULL;
    if (!d) return 0;
    pthread_mutex_lock(&d->failed_mu);
    size_t k = d->failed.len;
    tv_failed_index *v = k ? tv_arena_calloc(a, k, sizeof *v) : NULL;
    for (size_t i = 0; v && i < k; i++) {
        const tv_failed_index *f = &d->failed.items[i];
        v[i] = (tv_failed_index){tv_arena_strndup(a, f->name, strlen(f->name)),
                                 tv_arena_strndup(a, f->uuid, strlen(f->uuid)), NULL,
                                 tv_arena_strndup(a, f->reason, strlen(f->reason))};
    }
    pthread_mutex_unlock(&d->failed_mu);
    *out = v;
    return v ? k : 0;
}

tv_status tv_durable_drop_failed(trove_node *n, const char *name, tv_error *err) {
    tv_durable *d = n->durable;
    if (!d) return TROVE_ENOTFOUND;
    pthread_mutex_lock(&d->failed_mu);
    tv_status st = TROVE_ENOTFOUND;
    for (size_t i = 0; i < d->failed.len; i++) {
        tv_failed_index *f = &d->failed.items[i];
        if (strcmp(f->name, name)) continue;
        /* the evidence goes only when asked to: DELETE of the index */
        size_t n1 = strlen(f->dir) + 16;
        char *gone = tv_malloc(n1);
        if (!gone) {
            st = tv_error_oom(err);
            break;
        }
        snprintf(gone, n1, "%s.deleted", f->dir);
        st = tv_store_rename(f->dir, gone, err);
        if (!st) {
            tv_error ignored = TV_ERROR_INIT;
            (void)tv_store_remove_tree(gone, &ignored);
            failed_fini(f);
            d->failed.items[i] = d->failed.items[--d->failed.len];
        }
        tv_free(gone);
        break;
    }
    pthread_mutex_unlock(&d->failed_mu);
    return st;
}

/* ------------------------------------------------------------- trove check */

typedef struct checked {
    tv_index *idx;
    uint64_t records, writes, updates; /* updates: mapping and settings */
    int64_t last_seq;
    tv_status bad;
    char why[300];
} checked;

static tv_status check_cb(void *ctx, const uint8_t *rec, size_t len) {
    checked *c = ctx;
    int64_t seq;
    c->records++;
    if (tv_index_record_seq_no(rec, len, &seq)) {
        c->writes++;
        if (seq <= c->last_seq) {
            snprintf(c->why, sizeof c->why, "record %llu has seq_no %lld after %lld",
                     (unsigned long long)c->records, (long long)seq, (long long)c->last_seq);
            return c->bad = TROVE_ECORRUPT;
        }
        c->last_seq = seq;
    } else {
        c->updates++;
    }
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_index_replay(c->idx, rec, len, &err);
    if (st) {
        snprintf(c->why, sizeof c->why, "record %llu: %s", (unsigned long long)c->records, err.reason);
        c->bad = st;
    }
    return st;
}

/* Checks one index directory without changing it; appends its report line:
 * the commit's segments (checksums verified as they load), then every
 * translog generation from the commit's on, scanned and replayed. */
static bool check_index(const char *dir, const char *name, tv_buf *report) {
    tv_error err;
    tv_error_clear(&err);
    checked c = {.last_seq = -1};
    char *bytes = NULL;
    size_t total = 0, torn = 0;
    uint64_t gen = 0;
    gens g = {0};
    bool ok = false;
    if (!(c.idx = load_base(dir, NULL, true, &gen, &err))) {
        tv_buf_printf(report, "%s: CORRUPT: %s\n", name, err.reason);
        goto out;
    }
    tv_index_stats base;
    tv_index_get_stats(c.idx, &base);
    tv_status st = translog_gens(dir, &g, &err);
    bool any = false;
    for (size_t i = 0; !st && i < g.v.len; i++) {
        if (g.v.items[i] < gen) continue;
        char *tl_path = translog_path(dir, g.v.items[i]);
        size_t n = 0, valid = 0;
        st = tl_path ? tv_store_read_file(tl_path, &bytes, &n, &err) : TROVE_ENOMEM;
        if (!st) st = tv_translog_scan(tl_path, (const uint8_t *)bytes, n, check_cb, &c, &valid, &err);
        tv_free(bytes);
        bytes = NULL;
        tv_free(tl_path);
        total += n;
        torn += n - valid;
        any = true;
    }
    if (!st && !any && gen == 0) st = tv_error_set(&err, TROVE_ECORRUPT, "the translog is missing");
    if (st) {
        tv_buf_printf(report, "index [%s] (%s): CORRUPT: %s\n", tv_index_name(c.idx), name, c.bad ? c.why : err.reason);
        goto out;
    }
    (void)tv_index_refresh(c.idx);
    tv_index_stats stats;
    tv_index_get_stats(c.idx, &stats);
    tv_buf_printf(report, "index [%s] (%s): ok: ", tv_index_name(c.idx), name);
    if (gen)
        tv_buf_printf(report, "commit %llu with %u segments and %llu documents, then ", (unsigned long long)gen,
                      base.segments, (unsigned long long)base.docs_count);
    tv_buf_printf(report,
                  "%llu records (%llu writes, %llu mapping/settings updates), max seq_no %lld, %llu documents, "
                  "translog %zu bytes",
                  (unsigned long long)c.records, (unsigned long long)c.writes, (unsigned long long)c.updates,
                  (long long)c.last_seq, (unsigned long long)stats.docs_count, total);
    if (torn) tv_buf_printf(report, ", a torn tail of %zu bytes (cut at the next open)", torn);
    tv_buf_puts(report, "\n");
    ok = true;
out:
    tv_index_release(c.idx);
    tv_free(bytes);
    tv_vec_fini(&g.v);
    return ok;
}

tv_status tv_durable_check(const char *dir, tv_buf *report, bool *clean, tv_error *err) {
    *clean = false;
    if (access(dir, F_OK)) return tv_error_set(err, TROVE_ENOTFOUND, "no data directory [%s]", dir);
    tv_store_lock *lock = NULL;
    tv_status st = tv_store_lock_dir(dir, &lock, err);
    if (st) return st;
    char *indices = path_join(dir, "indices", NULL);
    scan s = {0};
    if (!indices) st = tv_error_oom(err);
    else st = tv_store_list(indices, collect, &s, err);
    if (!st && s.status) st = tv_error_set(err, s.status, "out of memory");
    bool all = true;
    for (size_t i = 0; !st && i < s.names.len; i++) {
        const char *nm = s.names.items[i];
        char *sub = path_join(indices, nm, NULL);
        if (!sub) {
            st = tv_error_oom(err);
            break;
        }
        if (ends_with(nm, ".deleted") || ends_with(nm, ".tmp"))
            tv_buf_printf(report, "%s: left by an interrupted create or delete (removed at the next open)\n", nm);
        else if (!check_index(sub, nm, report))
            all = false;
        tv_free(sub);
    }
    if (!st) tv_buf_printf(report, "%zu index directories: %s\n", s.names.len, all ? "clean" : "NOT CLEAN");
    for (size_t i = 0; i < s.names.len; i++) tv_free(s.names.items[i]);
    tv_vec_fini(&s.names);
    tv_free(indices);
    tv_store_unlock(lock);
    if (!st && report->oom) st = tv_error_oom(err);
    *clean = !st && all;
    return st;
}
