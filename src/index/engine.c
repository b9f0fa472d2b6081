/*
 * engine.c — tv_index: writes, the write buffer, refresh, versions and
 * sequence numbers, deletes, snapshots, the merge policy and clones.
 *
 * State of an index (everything below `mu`, the writer lock):
 *
 *   working segments   the segments the writer sees, oldest first, each with
 *                      its current live-docs bitset. A prefix-or-all of them
 *                      is what the published snapshot reads; segments sealed
 *                      but not yet published ("pending": by a clone or by a
 *                      full buffer) are working segments too.
 *   write buffer       documents indexed since the last seal: the parsed
 *                      document, its metadata and its source, copied into
 *                      one arena, plus `bufmap`: id -> latest buffered
 *                      copy. An id overwritten inside the buffer marks the
 *                      older copy dead, so a seal adds each id once.
 *                      Tokens are kept compactly: terms are interned per
 *                      buffer (`bterms`: term -> id) and each field's
 *                      tokens become varints (term id, zigzag position
 *                      delta), 2-4 bytes a token instead of a 40-byte
 *                      tv_token plus a copy of its term; the seal decodes
 *                      one document at a time back into tv_tokens for the
 *                      segment builder (which reads only term and
 *                      position). Offsets and token types are dropped: no
 *                      segment stores them. This took the buffer from 11-13
 *                      KB to about 2.9 KB per 1.4 KB document, plus the
 *                      term table (bounded by the vocabulary). Rejected:
 *                      feeding the segment builder at write time (the
 *                      buffer would hold only postings), because the
 *                      builder cannot drop a doc overwritten in the buffer
 *                      nor serve a realtime get before finish.
 *   tombstones         id -> (version, seq_no, time) of recent deletes, kept
 *                      for index.gc_deletes (60 s) so that a re-index after a
 *                      delete continues the version, as OpenSearch's live
 *                      version map does.
 *   snapshot           the published, immutable view searches read.
 *
 * Id lookup (conflicts, realtime get): bufmap, then tombstones, then the
 * working segments newest first through the _id term (TV_FIELD_ID), skipping
 * dead docs. Chosen over a version map covering every document (Lucene's
 * choice too): the map would cost memory per document and would have to be
 * copied by a clone, which must stay O(1) in documents. The price is a term
 * lookup per segment and reading the stored metadata of the hit.
 *
 * Doc blocks (nested objects, index.h): a segment holding nested docs
 * always has a live bitset, and only its roots are ever set in it, so the
 * snapshot's live docs are roots and a root's nested docs live and die
 * with it; num_docs counts roots (tv_index_get_stats adds the nested docs
 * of live roots back, as Lucene counts them).
 *
 * Deletes are applied at once: overwriting or deleting a document that lives
 * in a segment clears its bit in the working bitset. Bitsets are reference
 * counted and copy-on-write: the writer mutates one in place only when it is
 * the sole holder; when a snapshot or a clone shares it, the writer first
 * copies it. So a published snapshot never changes, and a refresh publishes
 * the working bitsets by taking references.
 *
 * Refresh = seal the buffer into a segment (tv_segment_builder), run the merge
 * policy over the working segments, publish a new snapshot (a pointer swap
 * under `snap_mu`, a second small lock that readers hold only to take a
 * reference). Each step leaves a consistent state, so an out-of-memory in any
 * of them loses nothing: the index stays usable and a later refresh retries.
 * Lazy periodic refresh: tv_index_acquire refreshes when the oldest
 * unpublished write is older than index.refresh_interval, and, when the
 * interval was not set explicitly, also when the index is "search idle" (no
 * acquire for 30 s), because OpenSearch's first search on an idle shard waits
 * for a refresh and so sees every earlier write.
 *
 * Merge policy (log-structured, after Lucene's LogMergePolicy): a segment's
 * level is floor(log10(live docs)); scanning from the oldest segment, the
 * band from there to the last segment of the highest remaining level is
 * merged ten adjacent segments at a time. Adjacent merges keep insertion
 * order of documents. N single-document refreshes leave at most nine
 * segments per decimal level: O(log N). Merges drop deleted documents (Lucene
 * counts them in statistics until merged; so do we, through the segments).
 * A merge of up to TV_ENGINE_BG_MERGE_DOCS live documents runs inside
 * refresh; a larger one on a thread of its own, off the writer lock (see
 * "background merges" below), because under the lock a merge of 100,000
 * documents stopped every write for a second and one of a million for ten.
 * Rejected: tiered merging of
 * non-adjacent segments (reorders documents, and tie order of equal scores is
 * observable through the API).
 *
 * Clone: seal the source's buffer into a pending segment, then give the clone
 * references to the same working segments, bitsets, published snapshot and
 * mapping, a deep copy of the (small) settings, and a copy of the recent
 * tombstones. O(segments + recent deletes); no document is copied. Either
 * side's next refresh publishes the pending segment on that side only.
 *
 * Versions, seq_no and conflicts follow OpenSearch's primary-side planning
 * (InternalEngine): create = internal versioning with "must not exist";
 * if_seq_no/if_primary_term compare with the current copy; external /
 * external_gte compare the given version. A conflict consumes no seq_no;
 * every applied operation, including the delete of a missing document, takes
 * the next one. The primary term is always 1. A dynamic mapping update is
 * merged before the conflict check, so it survives a conflicting write, as in
 * OpenSearch (where the master applies it before the engine runs).
 *
 * Durability (index.h, "durability"): with a translog attached, a write's
 * record is appended after everything that can fail has been prepared and
 * before the commit step, and a record that cannot be appended undoes the
 * preparation (the buffer map entry, a tombstone, a copied bitset), so a
 * refused write leaves no trace in memory or on disk. Replay
 * (translog_ops.c) goes through the same put and delete with opts.replay:
 * the recorded version and seq_no instead of the conditions. Syncing is
 * the caller's (tv_index_sync after a request), never under the writer
 * lock's critical path of another write.
 *
 * Statistics (index.h, tv_stat): atomic counters per index, added to where
 * the work is done (writes, refreshes, merges here; gets, flushes and
 * search phases by the layers above), read one by one by _stats (a
 * snapshot of each counter, not of them all at once: OpenSearch's are not
 * either). The translog's operations and bytes since the last commit are
 * kept under the writer lock beside the write that adds them; without a
 * translog the bytes are each record's encoded size (tv_tlog_write_size,
 * computed, not encoded) so memory and data directories report alike.
 * Rejected: timing with the engine's millisecond clock (sub-millisecond
 * writes would sum to zero; OpenSearch sums nanoseconds).
 */
#include "index/codec.h"
#include "index/engine_int.h"
#include "store/store.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#define PRIMARY_TERM 1
#define ID_MAX_BYTES 512
#define VERSION_MATCH_DELETED (-4) /* OpenSearch's Versions.MATCH_DELETED */
#define VERSION_NOT_FOUND (-1)     /* OpenSearch's Versions.NOT_FOUND */

/* ------------------------------------------------------------------ clock */

static atomic_llong clock_offset_ms;

void tv_engine_test_advance_clock(int64_t ms) { atomic_fetch_add(&clock_offset_ms, ms); }

int64_t tv_engine_now_ms(void) {
    /* +1 day so that "never" (0) is always longer ago than any interval */
    return (int64_t)(tv_mono_ns() / 1000000u) + 86400000 + atomic_load(&clock_offset_ms);
}

/* ------------------------------------------------------ live-doc bitsets */

typedef struct tv_live {
    atomic_uint rc;
    uint32_t nbits;
    uint64_t words[];
} tv_live;

static tv_live *live_alloc(uint32_t nbits) {
    size_t nw = ((size_t)nbits + 63) / 64;
    tv_live *l = tv_malloc(sizeof *l + nw * sizeof(uint64_t));
    if (!l) return NULL;
    atomic_init(&l->rc, 1);
    l->nbits = nbits;
    return l;
}

static tv_live *live_new_all(uint32_t nbits) {
    tv_live *l = live_alloc(nbits);
    if (!l) return NULL;
    size_t nw = ((size_t)nbits + 63) / 64;
    memset(l->words, 0xff, nw * sizeof(uint64_t));
    if (nbits & 63) l->words[nw - 1] = (1ull << (nbits & 63)) - 1;
    return l;
}

static tv_live *live_copy(const tv_live *src) {
    tv_live *l = live_alloc(src->nbits);
    if (!l) return NULL;
    memcpy(l->words, src->words, (((size_t)src->nbits + 63) / 64) * sizeof(uint64_t));
    return l;
}

static tv_live *live_retain(tv_live *l) {
    if (l) atomic_fetch_add_explicit(&l->rc, 1, memory_order_relaxed);
    return l;
}

static void live_release(tv_live *l) {
    if (l && atomic_fetch_sub_explicit(&l->rc, 1, memory_order_acq_rel) == 1) tv_free(l);
}

/* A new working segment's live bits: NULL (all live) unless it holds doc
 * blocks, whose nested docs are never live (index.h, "doc blocks"). */
static tv_status live_for_new(const tv_segment *seg, tv_live **out, uint32_t *num_docs) {
    uint32_t n;
    const uint64_t *roots = tv_segment_roots(seg, &n);
    *out = NULL;
    *num_docs = n;
    if (!roots) return TROVE_OK;
    uint32_t md = tv_segment_max_doc(seg);
    if (!(*out = live_alloc(md))) return TROVE_ENOMEM;
    memcpy((*out)->words, roots, (((size_t)md + 63) / 64) * sizeof(uint64_t));
    return TROVE_OK;
}

/* ------------------------------------------------------ shared analysis */

/* The analysis registry outlives every mapping that points into it: the
 * index, its clones and snapshots hold references. */
typedef struct shared_an {
    atomic_uint rc;
    tv_analysis *a;
} shared_an;

static shared_an *an_retain(shared_an *s) {
    if (s) atomic_fetch_add_explicit(&s->rc, 1, memory_order_relaxed);
    return s;
}

static void an_release(shared_an *s) {
    if (s && atomic_fetch_sub_explicit(&s->rc, 1, memory_order_acq_rel) == 1) {
        tv_analysis_free(s->a);
        tv_free(s);
    }
}

/* -------------------------------------------------------------- snapshots */

typedef struct snap_impl {
    tv_snapshot pub; /* first: a tv_snapshot* is a snap_impl* */
    atomic_uint rc;
    shared_an *an;
    tv_live **lives; /* per segment, retained (NULL: all live) */
    tv_segview *views;
} snap_impl;

const tv_snapshot *tv_snapshot_retain(const tv_snapshot *s) {
    if (s) atomic_fetch_add_explicit(&((snap_impl *)s)->rc, 1, memory_order_relaxed);
    return s;
}

void tv_snapshot_release(const tv_snapshot *s) {
    if (!s) return;
    snap_impl *si = (snap_impl *)s;
    if (atomic_fetch_sub_explicit(&si->rc, 1, memory_order_acq_rel) != 1) return;
    for (uint32_t i = 0; i < s->nsegs; i++) {
        tv_segment_release(si->views[i].seg);
        live_release(si->lives[i]);
    }
    tv_mapping_release(s->mapping);
    an_release(si->an);
    tv_free(si);
}

/* Allocates a snapshot of n segments (views and lives to be filled). */
static snap_impl *snap_alloc(uint32_t n) {
    size_t sz = sizeof(snap_impl) + (size_t)n * sizeof(tv_segview) + (size_t)n * sizeof(tv_live *);
    snap_impl *s = tv_calloc(1, sz);
    if (!s) return NULL;
    atomic_init(&s->rc, 1);
    s->views = (tv_segview *)(s + 1);
    s->lives = (tv_live **)(s->views + n);
    s->pub.segs = s->views;
    s->pub.nsegs = n;
    return s;
}

/* Retains everything and fills the totals. */
static void snap_finish(snap_impl *s, const tv_mapping *m, shared_an *an, uint64_t gen) {
    uint64_t base = 0, live = 0;
    for (uint32_t i = 0; i < s->pub.nsegs; i++) {
        tv_segview *v = &s->views[i];
        tv_segment_retain(v->seg);
        live_retain(s->lives[i]);
        v->live = s->lives[i] ? s->lives[i]->words : NULL;
        v->doc_base = (uint32_t)base;
        base += v->max_doc;
        live += v->num_docs;
    }
    s->pub.max_doc = base;
    s->pub.num_docs = live;
    s->pub.mapping = tv_mapping_retain(m);
    s->an = an_retain(an);
    s->pub.generation = gen;
}

/* --------------------------------------------------------------- the index */

typedef struct wseg {
    tv_segment *seg; /* retained */
    tv_live *live;   /* retained; NULL: all live */
    uint32_t max_doc, num_docs;
} wseg;

typedef struct bufdoc {
    tv_parsed_doc doc; /* copy in the buffer arena; every field's tokens are
                          NULL, encoded in ctok instead */
    const uint8_t **ctok; /* per field: varint pairs (term id, zigzag position
                             delta), ntokens of them; NULL if none */
    tv_doc_meta meta;  /* id/routing point into the arena */
    bool dead;         /* overwritten or deleted since */
    struct bufdoc *kids; /* its nested docs in block order (doc and ctok
                            only; doc.nested is NULL: they are here) */
    uint32_t nkids;
} bufdoc;

typedef struct tomb {
    int64_t version, seq_no, primary_term;
    int64_t time_ms;
} tomb;

struct tv_index {
    atomic_uint rc;
    pthread_mutex_t mu;      /* the writer lock */
    pthread_mutex_t snap_mu; /* guards the `snap` pointer only */
    bool mu_ok, snap_mu_ok, settings_ok;
    char *name;
    tv_settings settings;
    shared_an *an;
    const tv_mapping *mapping;
    const tv_snapshot *snap;
    uint64_t generation;

    TV_VEC(wseg) segs;

    tv_arena buf_arena;
    tv_map bterms;                 /* buffered term bytes -> (void *)(id + 1) */
    TV_VEC(const char *) bterm_ptr; /* by id: the bytes, in buf_arena */
    TV_VEC(uint32_t) bterm_len;
    tv_buf ctmp;                   /* scratch for encoding tokens */
    TV_VEC(bufdoc *) buf;
    uint32_t buf_live;
    tv_map bufmap; /* id -> bufdoc* */
    tv_map tombs;  /* id -> tomb* (heap) */

    int64_t next_seq_no;
    atomic_llong dirty_since_ms; /* 0: nothing unpublished */
    atomic_llong last_acquire_ms;
    tv_segment_builder *builder;
    tv_arena scratch; /* per write operation */
    tv_translog *tl;  /* owned; NULL: in memory only */
    int64_t last_sync_ms;
    /* the background merge, if one runs: its window's first segment and
     * size (the window is found again by identity when it ends) */
    bool merging;
    const tv_segment *bg_first;
    size_t bg_k;
    /* statistics (index.h, tv_stat): counters anyone adds to without the
     * lock; the translog's operations and bytes since the last commit and
     * when it was last written, under the lock */
    atomic_llong stat[TV_STAT__COUNT];
    uint64_t tlog_ops, tlog_bytes;
    int64_t tlog_last_ms;
};

void tv_index_stat_add(tv_index *idx, tv_stat s, int64_t v) {
    atomic_fetch_add_explicit(&idx->stat[s], v, memory_order_relaxed);
}

static int64_t ns_since(uint64_t t0) { return (int64_t)(tv_mono_ns() - t0); }

static void lock(tv_index *idx) { pthread_mutex_lock(&idx->mu); }
static void unlock(tv_index *idx) { pthread_mutex_unlock(&idx->mu); }

static void mark_dirty(tv_index *idx) {
    if (atomic_load(&idx->dirty_since_ms) == 0) atomic_store(&idx->dirty_since_ms, tv_engine_now_ms());
}

static void buffer_clear(tv_index *idx) {
    idx->buf.len = 0;
    if (idx->buf.cap > 4096) tv_vec_fini(&idx->buf);
    idx->buf_live = 0;
    tv_arena_reset(&idx->buf_arena);
    tv_map_fini(&idx->bufmap); /* keeps the maps borrowing */
    tv_map_fini(&idx->bterms);
    tv_vec_fini(&idx->bterm_ptr);
    tv_vec_fini(&idx->bterm_len);
    tv_buf_fini(&idx->ctmp);
    tv_buf_init(&idx->ctmp);
}

/* Bytes the write buffer holds: its arena plus the term table (slot, key
 * copy and vector entries, estimated). */
static size_t buffer_bytes(const tv_index *idx) {
    return idx->buf_arena.total + idx->bterms.cap * sizeof(tv_map_slot) +
           idx->bterm_ptr.cap * (sizeof(const char *) + sizeof(uint32_t) + 24);
}

static void tombs_clear(tv_map *m) {
    size_t it = 0;
    void *v;
    while (tv_map_next(m, &it, NULL, NULL, &v)) tv_free(v);
    tv_map_fini(m);
}

static void index_destroy(tv_index *idx) {
    if (!idx) return;
    tv_snapshot_release(idx->snap);
    for (size_t i = 0; i < idx->segs.len; i++) {
        tv_segment_release(idx->segs.items[i].seg);
        live_release(idx->segs.items[i].live);
    }
    tv_vec_fini(&idx->segs);
    tv_vec_fini(&idx->buf);
    tv_arena_fini(&idx->buf_arena);
    tv_map_fini(&idx->bufmap);
    tv_map_fini(&idx->bterms);
    tv_vec_fini(&idx->bterm_ptr);
    tv_vec_fini(&idx->bterm_len);
    tv_buf_fini(&idx->ctmp);
    tombs_clear(&idx->tombs);
    tv_segment_builder_free(idx->builder);
    tv_arena_fini(&idx->scratch);
    tv_translog_close(idx->tl);
    tv_mapping_release(idx->mapping);
    if (idx->settings_ok) {
        idx->settings.analysis = NULL; /* owned by the shared holder */
        tv_settings_fini(&idx->settings);
    }
    an_release(idx->an);
    if (idx->mu_ok) pthread_mutex_destroy(&idx->mu);
    if (idx->snap_mu_ok) pthread_mutex_destroy(&idx->snap_mu);
    tv_free(idx->name);
    tv_free(idx);
}

/* A zeroed index with its locks and containers ready. */
static tv_index *index_alloc(const char *name, size_t name_len) {
    tv_index *idx = tv_calloc(1, sizeof *idx);
    if (!idx) return NULL;
    atomic_init(&idx->rc, 1);
    atomic_init(&idx->dirty_since_ms, 0);
    atomic_init(&idx->last_acquire_ms, 0);
    for (int i = 0; i < TV_STAT__COUNT; i++) atomic_init(&idx->stat[i], 0);
    idx->tlog_last_ms = tv_engine_now_ms();
    tv_arena_init(&idx->buf_arena);
    tv_arena_init(&idx->scratch);
    /* both maps' keys live in buf_arena (the buffered doc's id, the
     * interned term's copy), reset together with them */
    tv_map_init_borrowed(&idx->bufmap);
    tv_map_init_borrowed(&idx->bterms);
    tv_buf_init(&idx->ctmp);
    tv_map_init(&idx->tombs);
    idx->mu_ok = pthread_mutex_init(&idx->mu, NULL) == 0;
    idx->snap_mu_ok = pthread_mutex_init(&idx->snap_mu, NULL) == 0;
    idx->name = tv_strndup(name, name_len);
    if (!idx->mu_ok || !idx->snap_mu_ok || !idx->name) {
        index_destroy(idx);
        return NULL;
    }
    return idx;
}

static snap_impl *snap_from_working(tv_index *idx, const tv_mapping *m) {
    snap_impl *s = snap_alloc((uint32_t)idx->segs.len);
    if (!s) return NULL;
    for (size_t i = 0; i < idx->segs.len; i++) {
        const wseg *w = &idx->segs.items[i];
        s->views[i].seg = w->seg;
        s->views[i].max_doc = w->max_doc;
        s->views[i].num_docs = w->num_docs;
        s->lives[i] = w->live;
    }
    snap_finish(s, m, idx->an, ++idx->generation);
    return s;
}

/* The published snapshot again, with another mapping (after a mapping
 * update: OpenSearch's searches see a new mapping at once). */
static snap_impl *snap_with_mapping(tv_index *idx, const tv_mapping *m) {
    const snap_impl *old = (const snap_impl *)idx->snap;
    snap_impl *s = snap_alloc(old->pub.nsegs);
    if (!s) return NULL;
    for (uint32_t i = 0; i < old->pub.nsegs; i++) {
        s->views[i] = old->views[i];
        s->lives[i] = old->lives[i];
    }
    snap_finish(s, m, idx->an, ++idx->generation);
    return s;
}

static void publish(tv_index *idx, snap_impl *s) {
    pthread_mutex_lock(&idx->snap_mu);
    const tv_snapshot *old = idx->snap;
    idx->snap = &s->pub;
    pthread_mutex_unlock(&idx->snap_mu);
    tv_snapshot_release(old);
}

/* Swaps in a new mapping (owned reference passed in) and republishes the
 * snapshot with it. On OOM the mapping is released and nothing changes. */
static tv_status install_mapping(tv_index *idx, const tv_mapping *m) {
    snap_impl *s = snap_with_mapping(idx, m);
    if (!s) {
        tv_mapping_release(m);
        return TROVE_ENOMEM;
    }
    tv_mapping_release(idx->mapping);
    idx->mapping = m;
    publish(idx, s);
    return TROVE_OK;
}

/* ---------------------------------------------------------------- settings */

/* A time setting from the flat settings ("60s", "1m", "500ms", "-1"), def
 * when unset or malformed. */
static int64_t setting_ms(const tv_index *idx, const char *key, int64_t def) {
    const tv_json *v = idx->settings.flat ? tv_json_get(idx->settings.flat, key) : NULL;
    if (!v) return def;
    if (v->type == TV_JSON_INT) return v->v.i;
    if (v->type != TV_JSON_STRING) return def;
    const char *s = v->v.s;
    size_t n = v->len, k = 0;
    while (k < n && ((s[k] >= '0' && s[k] <= '9') || (k == 0 && s[k] == '-'))) k++;
    int64_t num;
    if (!k || !tv_parse_i64(s, k, &num)) return def;
    const char *u = s + k;
    size_t ul = n - k;
    if (ul == 0 || tv_streq(u, ul, "ms")) return num;
    if (tv_streq(u, ul, "s")) return num * 1000;
    if (tv_streq(u, ul, "m")) return num * 60000;
    if (tv_streq(u, ul, "h")) return num * 3600000;
    if (tv_streq(u, ul, "d")) return num * 86400000;
    return def;
}

static bool refresh_interval_explicit(const tv_index *idx) {
    return idx->settings.flat && tv_json_get(idx->settings.flat, "index.refresh_interval") != NULL;
}

/* Deep copy of a JSON value into an arena (settings of a clone). */
static tv_json *json_copy(tv_arena *a, const tv_json *src, tv_json *dst) {
    *dst = *src;
    switch (src->type) {
    case TV_JSON_INT:
    case TV_JSON_UINT:
    case TV_JSON_DOUBLE:
        if (src->raw) {
            dst->raw = tv_arena_memdup(a, src->raw, src->raw_len);
            if (!dst->raw) return NULL;
        }
        break;
    case TV_JSON_STRING:
        dst->v.s = tv_arena_strndup(a, src->v.s, src->len);
        if (!dst->v.s) return NULL;
        break;
    case TV_JSON_ARRAY: {
        tv_json *items = tv_arena_calloc(a, src->len ? src->len : 1, sizeof *items);
        if (!items) return NULL;
        for (uint32_t i = 0; i < src->len; i++)
            if (!json_copy(a, &src->v.items[i], &items[i])) return NULL;
        dst->v.items = items;
        break;
    }
    case TV_JSON_OBJECT: {
        tv_json_member *ms = tv_arena_calloc(a, src->len ? src->len : 1, sizeof *ms);
        if (!ms) return NULL;
        for (uint32_t i = 0; i < src->len; i++) {
            ms[i] = src->v.members[i];
            ms[i].key = tv_arena_strndup(a, src->v.members[i].key, src->v.members[i].key_len);
            if (!ms[i].key || !json_copy(a, &src->v.members[i].val, &ms[i].val)) return NULL;
        }
        dst->v.members = ms;
        break;
    }
    default:
        break;
    }
    return dst;
}

static tv_status settings_copy(tv_settings *dst, const tv_settings *src, tv_analysis *an) {
    *dst = *src;
    tv_arena_init(&dst->flat_arena);
    dst->flat = NULL;
    dst->analysis = an;
    if (src->flat) {
        tv_json *root = tv_arena_alloc(&dst->flat_arena, sizeof *root);
        if (!root || !json_copy(&dst->flat_arena, src->flat, root)) {
            tv_arena_fini(&dst->flat_arena);
            return TROVE_ENOMEM;
        }
        dst->flat = root;
    }
    return TROVE_OK;
}

/* ------------------------------------------------------------- public API */

void tv_write_opts_init(tv_write_opts *o) {
    memset(o, 0, sizeof *o);
    o->op_type = TV_OP_INDEX;
    o->if_seq_no = TV_SEQ_NO_UNSET;
    o->if_primary_term = 0;
    o->version = TV_VERSION_UNSET;
    o->version_type = TV_VT_INTERNAL;
    o->refresh = TV_REFRESH_FALSE;
}

const char *tv_write_result_name(tv_write_result_kind k) {
    switch (k) {
    case TV_RESULT_CREATED: return "created";
    case TV_RESULT_UPDATED: return "updated";
    case TV_RESULT_DELETED: return "deleted";
    case TV_RESULT_NOT_FOUND: return "not_found";
    case TV_RESULT_NOOP: return "noop";
    }
    return "unknown";
}

static tv_index *index_new(const char *name, const tv_json *settings, const tv_json *mappings,
                           const tv_json *field_ids, bool restoring, tv_error *err) {
    tv_index *idx = index_alloc(name, strlen(name));
    if (!idx) {
        tv_error_oom(err);
        return NULL;
    }
    if ((restoring ? tv_settings_restore : tv_settings_parse)(settings, name, &idx->settings, err) != TROVE_OK) {
        index_destroy(idx);
        return NULL;
    }
    idx->settings_ok = true;
    idx->an = tv_calloc(1, sizeof *idx->an);
    if (!idx->an) {
        /* the settings still own their registry: free it through them */
        idx->settings_ok = false;
        tv_settings_fini(&idx->settings);
        index_destroy(idx);
        tv_error_oom(err);
        return NULL;
    }
    atomic_init(&idx->an->rc, 1);
    idx->an->a = idx->settings.analysis;
    idx->mapping = tv_mapping_parse_ids(mappings, field_ids, idx->settings.analysis, err);
    if (!idx->mapping || tv_mapping_check_limits(idx->mapping, &idx->settings, err) != TROVE_OK) {
        index_destroy(idx);
        return NULL;
    }
    snap_impl *s = snap_from_working(idx, idx->mapping);
    if (!s) {
        index_destroy(idx);
        tv_error_oom(err);
        return NULL;
    }
    idx->snap = &s->pub;
    return idx;
}

tv_index *tv_index_new(const char *name, const tv_json *settings, const tv_json *mappings,
                       tv_error *err) {
    return index_new(name, settings, mappings, NULL, false, err);
}

tv_index *tv_index_restore(const char *name, const tv_json *flat_settings, const tv_json *mappings,
                           const tv_json *field_ids, tv_error *err) {
    return index_new(name, flat_settings, mappings, field_ids, true, err);
}

tv_index *tv_index_retain(tv_index *idx) {
    if (idx) atomic_fetch_add_explicit(&idx->rc, 1, memory_order_relaxed);
    return idx;
}

void tv_index_release(tv_index *idx) {
    if (idx && atomic_fetch_sub_explicit(&idx->rc, 1, memory_order_acq_rel) == 1) index_destroy(idx);
}

const char *tv_index_name(const tv_index *idx) { return idx->name; }
const char *tv_index_uuid(const tv_index *idx) { return idx->settings.uuid; }

const tv_mapping *tv_index_mapping(tv_index *idx) {
    lock(idx);
    const tv_mapping *m = tv_mapping_retain(idx->mapping);
    unlock(idx);
    return m;
}

tv_settings *tv_index_settings(tv_index *idx) { return &idx->settings; }
void tv_index_lock(tv_index *idx) { lock(idx); }
void tv_index_unlock(tv_index *idx) { unlock(idx); }

/* Appends the record built in b to the translog and releases b (caller
 * holds the lock). */
static tv_status append_record(tv_index *idx, tv_buf *b, tv_error *err) {
    tv_status st = b->oom ? tv_error_oom(err)
                          : tv_translog_append(idx->tl, b->data, b->len, err);
    tv_buf_fini(b);
    return st;
}

/* Appends a MAPPING or SETTINGS record of a JSON body (caller holds the
 * lock); TROVE_OK without a translog. */
static tv_status log_json(tv_index *idx, uint8_t type, const tv_json *body, tv_error *err) {
    if (!idx->tl) return TROVE_OK;
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_u8(&b, type);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_value(&w, body);
    return append_record(idx, &b, err);
}

tv_status tv_index_put_mapping(tv_index *idx, const tv_json *body, tv_error *err) {
    lock(idx);
    tv_status st = TROVE_OK;
    const tv_mapping *m = tv_mapping_merge(idx->mapping, body, idx->an->a, err);
    if (!m) {
        st = err && err->code != TROVE_OK ? err->code : TROVE_EMAPPER;
    } else if ((st = tv_mapping_check_limits(m, &idx->settings, err)) != TROVE_OK ||
               (st = log_json(idx, TV_TLOG_MAPPING, body, err)) != TROVE_OK) {
        tv_mapping_release(m);
    } else {
        st = install_mapping(idx, m);
        if (st) tv_error_set(err, st, "out of memory");
    }
    unlock(idx);
    return st;
}

/* ------------------------------------------------------------- id lookup */

typedef enum lk_kind { LK_NONE = 0, LK_BUF, LK_SEG, LK_DELETED } lk_kind;

typedef struct lookup {
    lk_kind kind;
    int64_t version, seq_no, primary_term;
    bufdoc *bd;   /* LK_BUF */
    size_t segi;  /* LK_SEG: index into working segments */
    uint32_t doc; /* LK_SEG */
    tomb *tb;     /* any tombstone entry of the id (expired or not) */
} lookup;

/* Finds the live doc with _id id in a segment. *found false if none. */
static tv_status seg_find(const tv_segment *seg, const uint64_t *live, const char *id, size_t len,
                          tv_arena *a, bool *found, uint32_t *doc) {
    *found = false;
    tv_term_state st;
    if (!tv_segment_id_maybe(seg, id, len) || !tv_segment_term(seg, TV_FIELD_ID, id, len, &st)) return TROVE_OK;
    tv_postings *p = tv_postings_open(seg, TV_FIELD_ID, &st, 0, a);
    if (!p) return TROVE_ENOMEM;
    for (uint32_t d = tv_postings_next(p); d != TV_NO_MORE_DOCS; d = tv_postings_next(p)) {
        if (!live || ((live[d >> 6] >> (d & 63)) & 1)) {
            *found = true;
            *doc = d;
            return TROVE_OK;
        }
    }
    return TROVE_OK;
}

/* The current state of an id as the writer sees it (lock held). */
static tv_status lookup_id(tv_index *idx, const char *id, size_t len, tv_arena *a, lookup *out) {
    memset(out, 0, sizeof *out);
    out->tb = tv_map_get(&idx->tombs, id, len);
    bufdoc *bd = tv_map_get(&idx->bufmap, id, len);
    if (bd) {
        out->kind = LK_BUF;
        out->bd = bd;
        out->version = bd->meta.version;
        out->seq_no = bd->meta.seq_no;
        out->primary_term = bd->meta.primary_term;
        return TROVE_OK;
    }
    if (out->tb) {
        /* a tombstone means no live copy exists anywhere */
        if (tv_engine_now_ms() - out->tb->time_ms > setting_ms(idx, "index.gc_deletes", TV_ENGINE_GC_DELETES_MS)) return TROVE_OK;
        out->kind = LK_DELETED;
        out->version = out->tb->version;
        out->seq_no = out->tb->seq_no;
        out->primary_term = out->tb->primary_term;
        return TROVE_OK;
    }
    for (size_t i = idx->segs.len; i-- > 0;) {
        const wseg *w = &idx->segs.items[i];
        bool found;
        uint32_t doc;
        tv_status st = seg_find(w->seg, w->live ? w->live->words : NULL, id, len, a, &found, &doc);
        if (st) return st;
        if (!found) continue;
        /* metadata only: the segment reader skips the _source chunk when
         * source is NULL (relied upon here; index.h does not say it) */
        tv_doc_meta meta;
        st = tv_segment_doc(w->seg, doc, a, &meta, NULL, NULL);
        if (st) return st;
        out->kind = LK_SEG;
        out->segi = i;
        out->doc = doc;
        out->version = meta.version;
        out->seq_no = meta.seq_no;
        out->primary_term = meta.primary_term;
        return TROVE_OK;
    }
    return TROVE_OK;
}

/* ------------------------------------------------------------- validation */

static const char *version_type_upper(tv_version_type t) {
    switch (t) {
    case TV_VT_INTERNAL: return "INTERNAL";
    case TV_VT_EXTERNAL: return "EXTERNAL";
    case TV_VT_EXTERNAL_GTE: return "EXTERNAL_GTE";
    }
    return "INTERNAL";
}

/*
 * The request validation OpenSearch runs before a write reaches the engine
 * (IndexRequest/DeleteRequest.validate): action_request_validation_exception
 * "Validation Failed: 1: ...;2: ...;". The api layer may check first; the
 * engine checks again so that library callers get the same answers.
 */
static tv_status validate_write(const char *id, size_t id_len, const tv_write_opts *o, bool is_put,
                                tv_error *err) {
    const char *msgs[6];
    char idmsg[700];
    int n = 0;
    int64_t version = o->version;
    bool create = is_put && o->op_type == TV_OP_CREATE;
    if (create && version == TV_VERSION_UNSET) version = VERSION_MATCH_DELETED;
    if (create) {
        if (o->version_type != TV_VT_INTERNAL)
            msgs[n++] = "create operations only support internal versioning. use index instead";
        else if (version != VERSION_MATCH_DELETED)
            msgs[n++] = "create operations do not support explicit versions. use index instead";
        else if (o->if_seq_no != TV_SEQ_NO_UNSET || o->if_primary_term != 0)
            msgs[n++] = "create operations do not support compare and set. use index instead";
    }
    if (n == 0) {
        bool valid;
        if (o->version_type == TV_VT_INTERNAL)
            valid = version > 0 || version == TV_VERSION_UNSET || version == VERSION_MATCH_DELETED;
        else
            valid = version >= 0;
        if (!valid) msgs[n++] = NULL; /* formatted below */
        if (o->version_type == TV_VT_INTERNAL && version != TV_VERSION_UNSET &&
            version != VERSION_MATCH_DELETED)
            msgs[n++] = "internal versioning can not be used for optimistic concurrency control. "
                        "Please use `if_seq_no` and `if_primary_term` instead";
        if (o->if_seq_no != TV_SEQ_NO_UNSET &&
            (o->version_type != TV_VT_INTERNAL || version != TV_VERSION_UNSET))
            msgs[n++] = "compare and write operations can not use versioning";
        if (o->if_primary_term == 0 && o->if_seq_no != TV_SEQ_NO_UNSET)
            msgs[n++] = "ifSeqNo is set, but primary term is [0]";
        if (o->if_primary_term != 0 && o->if_seq_no == TV_SEQ_NO_UNSET)
            msgs[n++] = ""; /* formatted below */
        if (is_put && id_len > ID_MAX_BYTES) {
            snprintf(idmsg, sizeof idmsg, "id [%.*s] is too long, must be no longer than 512 bytes but was: %zu",
                     (int)TV_MIN(id_len, 600), id, id_len);
            msgs[n++] = idmsg;
        }
    }
    if (n == 0) return TROVE_OK;
    if (!err) return TROVE_EVALIDATION;
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_puts(&b, "Validation Failed: ");
    for (int i = 0; i < n; i++) {
        tv_buf_printf(&b, "%d: ", i + 1);
        if (!msgs[i])
            tv_buf_printf(&b, "illegal version value [%lld] for version type [%s]", (long long)version,
                          version_type_upper(o->version_type));
        else if (!msgs[i][0])
            tv_buf_printf(&b, "ifSeqNo is unassigned, but primary term is [%lld]",
                          (long long)o->if_primary_term);
        else
            tv_buf_puts(&b, msgs[i]);
        tv_buf_putc(&b, ';');
    }
    if (b.oom) {
        tv_buf_fini(&b);
        return tv_error_oom(err);
    }
    tv_error_set(err, TROVE_EVALIDATION, "%s", b.data);
    tv_buf_fini(&b);
    return TROVE_EVALIDATION;
}

/* ---------------------------------------------------- conflicts, versions */

static tv_status conflict(tv_index *idx, tv_error *err, const char *id, size_t id_len, const char *fmt,
                          ...) TV_PRINTF(5, 6);
static tv_status conflict(tv_index *idx, tv_error *err, const char *id, size_t id_len, const char *fmt,
                          ...) {
    if (!err) return TROVE_ECONFLICT;
    char expl[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(expl, sizeof expl, fmt, ap);
    va_end(ap);
    tv_error_set(err, TROVE_ECONFLICT, "[%.*s]: version conflict, %s", (int)TV_MIN(id_len, 512), id, expl);
    snprintf(err->index, sizeof err->index, "%s", idx->name);
    return TROVE_ECONFLICT;
}

/*
 * OpenSearch's planIndexingAsPrimary / planDeletionAsPrimary checks. On
 * success *new_version is the version the operation gets.
 */
static tv_status check_conditions(tv_index *idx, const char *id, size_t id_len, const tv_write_opts *o,
                                  bool is_put, const lookup *lk, int64_t *new_version, tv_error *err) {
    bool gone = lk->kind == LK_NONE || lk->kind == LK_DELETED;
    int64_t current = lk->kind == LK_NONE ? VERSION_NOT_FOUND : lk->version;
    int64_t expected = o->version;
    if (is_put && o->op_type == TV_OP_CREATE && expected == TV_VERSION_UNSET) expected = VERSION_MATCH_DELETED;

    if (o->if_seq_no != TV_SEQ_NO_UNSET) {
        if (gone)
            return conflict(idx, err, id, id_len,
                            "required seqNo [%lld], primary term [%lld]. but no document was found",
                            (long long)o->if_seq_no, (long long)o->if_primary_term);
        if (lk->seq_no != o->if_seq_no || lk->primary_term != o->if_primary_term)
            return conflict(idx, err, id, id_len,
                            "required seqNo [%lld], primary term [%lld]. current document has seqNo "
                            "[%lld] and primary term [%lld]",
                            (long long)o->if_seq_no, (long long)o->if_primary_term,
                            (long long)lk->seq_no, (long long)lk->primary_term);
    }
    switch (o->version_type) {
    case TV_VT_INTERNAL:
        if (expected == VERSION_MATCH_DELETED && !gone)
            return conflict(idx, err, id, id_len, "document already exists (current version [%lld])",
                            (long long)current);
        if (expected != TV_VERSION_UNSET && expected != VERSION_MATCH_DELETED && current != expected) {
            if (current == VERSION_NOT_FOUND)
                return conflict(idx, err, id, id_len, "document does not exist (expected version [%lld])",
                                (long long)expected);
            return conflict(idx, err, id, id_len,
                            "current version [%lld] is different than the one provided [%lld]",
                            (long long)current, (long long)expected);
        }
        *new_version = current == VERSION_NOT_FOUND ? 1 : current + 1;
        return TROVE_OK;
    case TV_VT_EXTERNAL:
        if (current != VERSION_NOT_FOUND && (expected == TV_VERSION_UNSET || current >= expected))
            return conflict(idx, err, id, id_len,
                            "current version [%lld] is higher or equal to the one provided [%lld]",
                            (long long)current, (long long)expected);
        *new_version = expected;
        return TROVE_OK;
    case TV_VT_EXTERNAL_GTE:
        if (current != VERSION_NOT_FOUND && (expected == TV_VERSION_UNSET || current > expected))
            return conflict(idx, err, id, id_len, "current version [%lld] is higher than the one provided [%lld]",
                            (long long)current, (long long)expected);
        *new_version = expected;
        return TROVE_OK;
    }
    return TROVE_OK;
}

/* ----------------------------------------------------------- buffer docs */

static char *arena_dup(tv_arena *a, const char *s, size_t n, bool *oom) {
    if (!s) return NULL;
    char *d = tv_arena_memdup(a, s, n);
    if (!d) *oom = true;
    return d;
}

/* The buffer's id of a term, interning it; UINT32_MAX on OOM. */
static uint32_t intern_term(tv_index *idx, const char *term, uint32_t len) {
    void *v = tv_map_get(&idx->bterms, term, len);
    if (v) return (uint32_t)((uintptr_t)v - 1);
    uint32_t id = (uint32_t)idx->bterm_ptr.len;
    if (id == UINT32_MAX - 1) return UINT32_MAX;
    char *copy = tv_arena_memdup(&idx->buf_arena, term, len);
    if ((!copy && len) || tv_vec_reserve(&idx->bterm_ptr, (size_t)id + 1) ||
        tv_vec_reserve(&idx->bterm_len, (size_t)id + 1) ||
        tv_map_put(&idx->bterms, copy, len, (void *)(uintptr_t)(id + 1), NULL))
        return UINT32_MAX;
    idx->bterm_ptr.items[idx->bterm_ptr.len++] = copy ? copy : "";
    idx->bterm_len.items[idx->bterm_len.len++] = len;
    return id;
}

/* A field's tokens as varint pairs in the buffer arena, or NULL on OOM. */
static const uint8_t *encode_tokens(tv_index *idx, const tv_doc_field *sf) {
    tv_buf *b = &idx->ctmp;
    if (b->oom) { /* sticky: start afresh after a failed encode */
        tv_buf_fini(b);
        tv_buf_init(b);
    }
    tv_buf_clear(b);
    /* at most 5 + 10 bytes a token */
    if (!tv_buf_reserve(b, (size_t)sf->ntokens * 15)) return NULL;
    uint8_t *out = (uint8_t *)b->data;
    size_t n = 0;
    uint32_t prev = 0;
    for (uint32_t t = 0; t < sf->ntokens; t++) {
        const tv_token *tk = &sf->tokens[t];
        uint32_t id = intern_term(idx, tk->term, tk->term_len);
        if (id == UINT32_MAX) return NULL;
        n += tv_varint_put(out + n, id);
        n += tv_varint_put(out + n, tv_zigzag((int64_t)tk->position - (int64_t)prev));
        prev = tk->position;
    }
    return (const uint8_t *)tv_arena_memdup(&idx->buf_arena, out, n ? n : 1);
}

/* Decodes the tokens of one part of a buffered doc (the root or a nested
 * doc) into a (a per-doc scratch arena): *out is a copy of bd->doc whose
 * fields have their tokens back. */
static tv_status decode_part(const tv_index *idx, const bufdoc *bd, tv_arena *a, tv_parsed_doc *out) {
    *out = bd->doc;
    if (!bd->ctok) return TROVE_OK;
    tv_doc_field *fs = tv_arena_alloc(a, bd->doc.nfields * sizeof *fs);
    if (!fs) return TROVE_ENOMEM;
    for (uint32_t i = 0; i < bd->doc.nfields; i++) {
        fs[i] = bd->doc.fields[i];
        const uint8_t *p = bd->ctok[i];
        if (!p) continue;
        tv_token *toks = tv_arena_alloc(a, (size_t)fs[i].ntokens * sizeof *toks);
        if (!toks) return TROVE_ENOMEM;
        uint32_t pos = 0;
        for (uint32_t t = 0; t < fs[i].ntokens; t++) {
            uint64_t id, dz;
            /* written by encode_tokens: well formed; 1-byte fast path */
            if (*p < 0x80) id = *p++;
            else p += tv_varint_get(p, p + 10, &id);
            if (*p < 0x80) dz = *p++;
            else p += tv_varint_get(p, p + 10, &dz);
            pos = (uint32_t)((int64_t)pos + tv_unzigzag(dz));
            toks[t] = (tv_token){.term = idx->bterm_ptr.items[id],
                                 .term_len = idx->bterm_len.items[id],
                                 .position = pos};
        }
        fs[i].tokens = toks;
    }
    out->fields = fs;
    return TROVE_OK;
}

/* decode_part of the root and of each nested doc. */
static tv_status decode_doc(const tv_index *idx, const bufdoc *bd, tv_arena *a, tv_parsed_doc *out) {
    tv_status st = decode_part(idx, bd, a, out);
    if (st || !bd->nkids) return st;
    tv_parsed_doc *kids = tv_arena_alloc(a, bd->nkids * sizeof *kids);
    if (!kids) return TROVE_ENOMEM;
    for (uint32_t k = 0; k < bd->nkids; k++)
        if ((st = decode_part(idx, &bd->kids[k], a, &kids[k]))) return st;
    out->nested = kids;
    return TROVE_OK;
}

/* Copies the fields of pd into bd->doc (tokens encoded into bd->ctok). */
static bool copy_fields(tv_index *idx, bufdoc *bd, const tv_parsed_doc *pd) {
    tv_arena *a = &idx->buf_arena;
    bool oom = false;
    tv_parsed_doc *d = &bd->doc;
    d->fields = pd->nfields ? tv_arena_alloc(a, pd->nfields * sizeof *d->fields) : NULL;
    if (pd->nfields && !d->fields) return false;
    for (uint32_t i = 0; i < pd->nfields; i++) {
        const tv_doc_field *sf = &pd->fields[i];
        tv_doc_field *f = &d->fields[i];
        *f = *sf;
        f->tokens = NULL;
        if (sf->ntokens) {
            if (!bd->ctok && !(bd->ctok = tv_arena_calloc(a, pd->nfields, sizeof *bd->ctok))) return false;
            if (!(bd->ctok[i] = encode_tokens(idx, sf))) return false;
        }
        if (sf->nnums) {
            f->nums = (const int64_t *)arena_dup(a, (const char *)sf->nums, sf->nnums * sizeof(int64_t), &oom);
        }
        if (sf->nkeys) {
            const char **keys = tv_arena_alloc(a, sf->nkeys * sizeof *keys);
            if (!keys) return false;
            for (uint32_t k = 0; k < sf->nkeys; k++) keys[k] = arena_dup(a, sf->keys[k], sf->key_lens[k], &oom);
            f->keys = keys;
            f->key_lens = (const uint32_t *)arena_dup(a, (const char *)sf->key_lens,
                                                      sf->nkeys * sizeof(uint32_t), &oom);
        }
        if (oom) return false;
    }
    return true;
}

/* Copy of a parsed doc (built in the scratch arena) into the buffer. */
static bufdoc *bufdoc_new(tv_index *idx, const tv_parsed_doc *pd, const tv_doc_meta *meta) {
    tv_arena *a = &idx->buf_arena;
    bool oom = false;
    bufdoc *bd = tv_arena_calloc(a, 1, sizeof *bd);
    if (!bd) return NULL;
    bd->meta = *meta;
    bd->meta.id = arena_dup(a, meta->id, meta->id_len, &oom);
    bd->meta.routing = arena_dup(a, meta->routing, meta->routing_len, &oom);
    tv_parsed_doc *d = &bd->doc;
    *d = *pd;
    d->id = bd->meta.id;
    d->id_len = bd->meta.id_len;
    d->routing = bd->meta.routing;
    d->routing_len = bd->meta.routing_len;
    d->source = arena_dup(a, pd->source, pd->source_len, &oom);
    d->nested = NULL; /* in bd->kids */
    if (oom || !copy_fields(idx, bd, pd)) return NULL;
    if (pd->nnested) {
        if (!(bd->kids = tv_arena_calloc(a, pd->nnested, sizeof *bd->kids))) return NULL;
        bd->nkids = pd->nnested;
        for (uint32_t k = 0; k < pd->nnested; k++) {
            bd->kids[k].doc = pd->nested[k];
            if (!copy_fields(idx, &bd->kids[k], &pd->nested[k])) return NULL;
        }
    }
    return bd;
}

/* -------------------------------------------------------------- sealing */

/* Seals the buffer into a new working segment (unpublished until the next
 * publish). On failure nothing changes. */
static tv_status seal_buffer(tv_index *idx) {
    if (idx->buf_live == 0) {
        if (idx->buf.len) buffer_clear(idx);
        return TROVE_OK;
    }
    if (tv_vec_reserve(&idx->segs, idx->segs.len + 1)) return TROVE_ENOMEM;
    if (!idx->builder && !(idx->builder = tv_segment_builder_new())) return TROVE_ENOMEM;
    tv_status st = TROVE_OK;
    tv_arena da;
    tv_arena_init(&da);
    for (size_t i = 0; i < idx->buf.len && !st; i++) {
        const bufdoc *bd = idx->buf.items[i];
        if (bd->dead) continue;
        tv_parsed_doc d;
        tv_arena_reset(&da);
        st = decode_doc(idx, bd, &da, &d);
        if (!st) st = tv_segment_builder_add(idx->builder, &d, &bd->meta, NULL);
    }
    tv_arena_fini(&da);
    tv_segment *seg = NULL;
    if (!st) st = tv_segment_builder_finish(idx->builder, &seg);
    if (st) {
        /* the builder's state is unknown after a failure: start afresh */
        tv_segment_builder_free(idx->builder);
        idx->builder = NULL;
        return st;
    }
    if (seg) {
        tv_live *l;
        uint32_t live_docs;
        if (live_for_new(seg, &l, &live_docs)) {
            tv_segment_release(seg);
            return TROVE_ENOMEM;
        }
        idx->segs.items[idx->segs.len++] = (wseg){seg, l, tv_segment_max_doc(seg), live_docs};
    }
    buffer_clear(idx);
    return TROVE_OK;
}

/* ------------------------------------------------------------ merging */

static int seg_level(uint32_t docs) {
    int l = 0;
    while (docs >= 10) {
        docs /= 10;
        l++;
    }
    return l;
}

/* Replaces working segments [i, i+k) by their merge. */
static tv_status merge_window(tv_index *idx, size_t i, size_t k) {
    tv_segview stack[TV_ENGINE_MERGE_FACTOR] = {{0}}; /* gcc cannot see views[0..k) filled */
    tv_segview *views = k <= TV_ENGINE_MERGE_FACTOR ? stack : tv_malloc(k * sizeof *views);
    if (!views) return TROVE_ENOMEM;
    uint64_t t0 = tv_mono_ns(), docs = 0, bytes = 0;
    for (size_t j = 0; j < k; j++) {
        const wseg *w = &idx->segs.items[i + j];
        views[j] = (tv_segview){w->seg, w->live ? w->live->words : NULL, 0, w->max_doc, w->num_docs};
        docs += w->max_doc;
        bytes += tv_segment_bytes(w->seg);
    }
    tv_segment *m = NULL;
    tv_status st = tv_segment_merge(views, k, &m);
    if (views != stack) tv_free(views);
    if (st) return st;
    /* MergeStats: the merged segments' documents (deleted ones too, as
     * Lucene's totalNumDocs) and bytes */
    tv_index_stat_add(idx, TV_STAT_MERGE_TOTAL, 1);
    tv_index_stat_add(idx, TV_STAT_MERGE_DOCS, (int64_t)docs);
    tv_index_stat_add(idx, TV_STAT_MERGE_BYTES, (int64_t)bytes);
    tv_index_stat_add(idx, TV_STAT_MERGE_NS, ns_since(t0));
    tv_live *ml = NULL;
    uint32_t m_live = 0;
    if (m && live_for_new(m, &ml, &m_live)) {
        tv_segment_release(m);
        return TROVE_ENOMEM;
    }
    for (size_t j = 0; j < k; j++) {
        tv_segment_release(idx->segs.items[i + j].seg);
        live_release(idx->segs.items[i + j].live);
    }
    size_t keep = 0;
    if (m && tv_segment_max_doc(m) > 0) {
        idx->segs.items[i] = (wseg){m, ml, tv_segment_max_doc(m), m_live};
        keep = 1;
    } else {
        tv_segment_release(m);
        live_release(ml);
    }
    memmove(&idx->segs.items[i + keep], &idx->segs.items[i + k],
            (idx->segs.len - i - k) * sizeof(wseg));
    idx->segs.len -= k - keep;
    return TROVE_OK;
}

/* Picks the next merge among the segments from `from` on: *start and
 * returns true. */
static bool pick_merge(const tv_index *idx, size_t from, size_t *start) {
    size_t n = idx->segs.len;
    const size_t F = TV_ENGINE_MERGE_FACTOR;
    size_t s = from;
    while (s < n) {
        int maxl = -1;
        for (size_t i = s; i < n; i++) maxl = TV_MAX(maxl, seg_level(idx->segs.items[i].num_docs));
        size_t upto = s;
        for (size_t i = n; i-- > s;)
            if (seg_level(idx->segs.items[i].num_docs) == maxl) {
                upto = i;
                break;
            }
        if (upto + 1 - s >= F) {
            *start = s;
            return true;
        }
        s = upto + 1;
    }
    if (n > TV_ENGINE_MAX_SEGMENTS && n - from >= F) {
        uint64_t best = UINT64_MAX;
        for (size_t i = from; i + F <= n; i++) {
            uint64_t sum = 0;
            for (size_t j = 0; j < F; j++) sum += idx->segs.items[i + j].num_docs;
            if (sum < best) {
                best = sum;
                *start = i;
            }
        }
        return true;
    }
    return false;
}

/* ------------------------------------------------------- background merges
 *
 * A window of more than TV_ENGINE_BG_MERGE_DOCS live documents merges on a
 * thread of its own. It takes references to the window's segments and live
 * bitsets as they are (a bitset is copied before a delete changes a shared
 * one, so the references stay as they were), merges without the lock, and
 * installs the result under it: the window is found again by the
 * segments' identity (a force merge or a clone's work may have replaced it:
 * the result is then dropped), and every document deleted meanwhile (live
 * then, dead now) is deleted in the result too, found by its _id. While it
 * runs, smaller merges go on after its window only. Adjacent windows keep
 * the documents' order, as the synchronous merges do. */

void (*tv_engine_bg_merge_hook)(void);

typedef struct bgmerge {
    tv_index *idx; /* retained */
    size_t k;
    wseg *win;     /* the window as it was: segments and bitsets retained */
    uint64_t t0;   /* when it started, and its size (statistics) */
    int64_t docs, bytes;
} bgmerge;

/* Deletes in m (live bits ml, count *m_live) the documents of window
 * segment w that were live in `then` and are not now. */
static tv_status reconcile(const wseg *then, const wseg *now, tv_segment *m, tv_live **ml, uint32_t *m_live,
                           tv_arena *a) {
    for (uint32_t d = 0; d < then->max_doc; d++) {
        bool was = !then->live || ((then->live->words[d >> 6] >> (d & 63)) & 1);
        bool is = !now->live || ((now->live->words[d >> 6] >> (d & 63)) & 1);
        if (!was || is) continue;
        tv_arena_reset(a);
        tv_doc_meta meta;
        tv_status st = tv_segment_doc(then->seg, d, a, &meta, NULL, NULL);
        if (st) return st;
        bool found;
        uint32_t doc;
        st = seg_find(m, *ml ? (*ml)->words : NULL, meta.id, meta.id_len, a, &found, &doc);
        if (st) return st;
        if (!found) continue;
        if (!*ml && !(*ml = live_new_all(tv_segment_max_doc(m)))) return TROVE_ENOMEM;
        (*ml)->words[doc >> 6] &= ~(1ull << (doc & 63));
        (*m_live)--;
    }
    return TROVE_OK;
}

/* Installs a finished background merge (lock held; takes m). */
static void bg_install(tv_index *idx, const bgmerge *b, tv_segment *m) {
    size_t p = SIZE_MAX;
    for (size_t i = 0; i + b->k <= idx->segs.len && p == SIZE_MAX; i++) {
        bool same = true;
        for (size_t j = 0; j < b->k && same; j++) same = idx->segs.items[i + j].seg == b->win[j].seg;
        if (same) p = i;
    }
    tv_live *ml = NULL;
    uint32_t m_live = 0;
    tv_arena a;
    tv_arena_init(&a);
    bool ok = p != SIZE_MAX && m && live_for_new(m, &ml, &m_live) == TROVE_OK;
    for (size_t j = 0; ok && j < b->k; j++) {
        const wseg *now = &idx->segs.items[p + j];
        if (now->live != b->win[j].live) ok = reconcile(&b->win[j], now, m, &ml, &m_live, &a) == TROVE_OK;
    }
    tv_arena_fini(&a);
    if (!ok) { /* replaced meanwhile, or out of memory: the window stays */
        tv_segment_release(m);
        live_release(ml);
        return;
    }
    for (size_t j = 0; j < b->k; j++) {
        tv_segment_release(idx->segs.items[p + j].seg);
        live_release(idx->segs.items[p + j].live);
    }
    size_t keep = 0;
    if (tv_segment_max_doc(m) > 0) {
        idx->segs.items[p] = (wseg){m, ml, tv_segment_max_doc(m), m_live};
        keep = 1;
    } else {
        tv_segment_release(m);
        live_release(ml);
    }
    memmove(&idx->segs.items[p + keep], &idx->segs.items[p + b->k], (idx->segs.len - p - b->k) * sizeof(wseg));
    idx->segs.len -= b->k - keep;
    /* a clean index publishes the merged segment at once (the same
     * documents); with unpublished writes the next refresh does */
    if (atomic_load(&idx->dirty_since_ms) == 0) {
        snap_impl *s = snap_from_working(idx, idx->mapping);
        if (s) publish(idx, s);
    }
}

static void *bg_merge_main(void *arg) {
    bgmerge *b = arg;
    tv_segview stack[TV_ENGINE_MERGE_FACTOR] = {{0}};
    tv_segview *views = b->k <= TV_ENGINE_MERGE_FACTOR ? stack : tv_malloc(b->k * sizeof *views);
    tv_segment *m = NULL;
    if (views) {
        for (size_t j = 0; j < b->k; j++) {
            const wseg *w = &b->win[j];
            views[j] = (tv_segview){w->seg, w->live ? w->live->words : NULL, 0, w->max_doc, w->num_docs};
        }
        if (tv_segment_merge(views, b->k, &m) != TROVE_OK) m = NULL;
        if (views != stack) tv_free(views);
    }
    if (tv_engine_bg_merge_hook) tv_engine_bg_merge_hook();
    tv_index *idx = b->idx;
    lock(idx);
    if (m) {
        bg_install(idx, b, m);
        tv_index_stat_add(idx, TV_STAT_MERGE_TOTAL, 1);
        tv_index_stat_add(idx, TV_STAT_MERGE_DOCS, b->docs);
        tv_index_stat_add(idx, TV_STAT_MERGE_BYTES, b->bytes);
        tv_index_stat_add(idx, TV_STAT_MERGE_NS, ns_since(b->t0));
    }
    tv_index_stat_add(idx, TV_STAT_MERGE_CURRENT, -1);
    tv_index_stat_add(idx, TV_STAT_MERGE_CURRENT_DOCS, -b->docs);
    tv_index_stat_add(idx, TV_STAT_MERGE_CURRENT_BYTES, -b->bytes);
    idx->merging = false;
    idx->bg_first = NULL;
    unlock(idx);
    for (size_t j = 0; j < b->k; j++) {
        tv_segment_release(b->win[j].seg);
        live_release(b->win[j].live);
    }
    tv_free(b->win);
    tv_free(b);
    tv_index_release(idx);
    return NULL;
}

/* Starts merging window [start, start + k) in the background (lock held);
 * false when it cannot (out of memory, no thread): merge it here then. */
static bool bg_merge_start(tv_index *idx, size_t start, size_t k) {
    bgmerge *b = tv_calloc(1, sizeof *b);
    wseg *win = tv_calloc(k, sizeof *win);
    if (!b || !win) {
        tv_free(b);
        tv_free(win);
        return false;
    }
    for (size_t j = 0; j < k; j++) {
        win[j] = idx->segs.items[start + j];
        tv_segment_retain(win[j].seg);
        live_retain(win[j].live);
    }
    *b = (bgmerge){tv_index_retain(idx), k, win, tv_mono_ns(), 0, 0};
    for (size_t j = 0; j < k; j++) {
        b->docs += win[j].max_doc;
        b->bytes += (int64_t)tv_segment_bytes(win[j].seg);
    }
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    bool ok = pthread_create(&th, &at, bg_merge_main, b) == 0;
    pthread_attr_destroy(&at);
    if (!ok) {
        for (size_t j = 0; j < k; j++) {
            tv_segment_release(win[j].seg);
            live_release(win[j].live);
        }
        tv_index_release(b->idx);
        tv_free(win);
        tv_free(b);
        return false;
    }
    tv_index_stat_add(idx, TV_STAT_MERGE_CURRENT, 1);
    tv_index_stat_add(idx, TV_STAT_MERGE_CURRENT_DOCS, b->docs);
    tv_index_stat_add(idx, TV_STAT_MERGE_CURRENT_BYTES, b->bytes);
    idx->merging = true;
    idx->bg_first = win[0].seg;
    idx->bg_k = k;
    return true;
}

/* Where merges may start: after the background merge's window, if one
 * runs (past the end when its window cannot be found). */
static size_t merge_from(const tv_index *idx) {
    if (!idx->merging) return 0;
    for (size_t i = 0; i < idx->segs.len; i++)
        if (idx->segs.items[i].seg == idx->bg_first) return i + idx->bg_k;
    return idx->segs.len;
}

/* Drops fully deleted segments and merges while the policy asks. Merge
 * failures (OOM) stop merging; the index stays consistent. */
static void maybe_merge(tv_index *idx) {
    size_t j = 0;
    for (size_t i = 0; i < idx->segs.len; i++) {
        wseg *w = &idx->segs.items[i];
        if (w->num_docs == 0) {
            tv_segment_release(w->seg);
            live_release(w->live);
        } else {
            idx->segs.items[j++] = *w;
        }
    }
    idx->segs.len = j;
    const size_t F = TV_ENGINE_MERGE_FACTOR;
    size_t start = 0;
    while (pick_merge(idx, merge_from(idx), &start)) {
        uint64_t docs = 0;
        for (size_t i = start; i < start + F; i++) docs += idx->segs.items[i].num_docs;
        if (docs > TV_ENGINE_BG_MERGE_DOCS && !idx->merging && bg_merge_start(idx, start, F)) continue;
        if (merge_window(idx, start, F) != TROVE_OK) break;
    }
}

static void prune_tombs(tv_index *idx) {
    int64_t now = tv_engine_now_ms(), gc = setting_ms(idx, "index.gc_deletes", TV_ENGINE_GC_DELETES_MS);
    size_t it = 0;
    const char *key;
    size_t len;
    void *v;
    while (tv_map_next(&idx->tombs, &it, &key, &len, &v)) {
        tomb *t = v;
        if (now - t->time_ms > gc) {
            tv_map_del(&idx->tombs, key, len);
            tv_free(t);
        }
    }
}

static tv_status refresh_work(tv_index *idx) {
    if (atomic_load(&idx->dirty_since_ms) == 0) return TROVE_OK;
    tv_status st = seal_buffer(idx);
    if (st) return st;
    maybe_merge(idx);
    prune_tombs(idx);
    snap_impl *s = snap_from_working(idx, idx->mapping);
    if (!s) return TROVE_ENOMEM;
    publish(idx, s);
    atomic_store(&idx->dirty_since_ms, 0);
    return TROVE_OK;
}

/* A refresh, counted (RefreshStats): every one asked for, by the API, a
 * write's ?refresh or the periodic refresh, also when nothing changed, as
 * Lucene's refresh listeners see each maybeRefresh; its time includes the
 * merges it runs, which are counted as merges too. */
static tv_status refresh_locked(tv_index *idx) {
    uint64_t t0 = tv_mono_ns();
    tv_status st = refresh_work(idx);
    tv_index_stat_add(idx, TV_STAT_REFRESH_TOTAL, 1);
    tv_index_stat_add(idx, TV_STAT_REFRESH_NS, ns_since(t0));
    return st;
}

tv_status tv_index_refresh(tv_index *idx) {
    lock(idx);
    tv_status st = refresh_locked(idx);
    unlock(idx);
    return st;
}

tv_status tv_index_force_merge(tv_index *idx, uint32_t max_segments) {
    if (max_segments < 1) max_segments = 1;
    lock(idx);
    tv_status st = TROVE_OK;
    size_t n = idx->segs.len;
    if (n > max_segments) {
        /* one merge of the oldest n - max + 1 segments: every document is
         * rewritten once, where repeated windows of ten would rewrite the
         * oldest ones again at each level */
        st = merge_window(idx, 0, n - max_segments + 1);
        /* a clean index publishes the merged segments at once (the same
         * documents, deleted ones gone); with unpublished writes the next
         * refresh publishes them with those writes */
        if (!st && atomic_load(&idx->dirty_since_ms) == 0) {
            snap_impl *s = snap_from_working(idx, idx->mapping);
            if (s) publish(idx, s);
            else st = TROVE_ENOMEM;
        }
    }
    unlock(idx);
    return st;
}

/* A JSON text of what write() writes (tv_malloc'd), NULL on OOM. */
static char *json_text(void (*write)(const void *, tv_jw *), const void *what) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    write(what, &w);
    char *s = b.oom ? NULL : tv_strndup(b.data ? b.data : "", b.len);
    tv_buf_fini(&b);
    return s;
}
static void write_mapping(const void *m, tv_jw *w) { tv_mapping_write(m, w); }
static void write_field_ids(const void *m, tv_jw *w) { tv_mapping_write_ids(m, w); }
static void write_flat_settings(const void *s, tv_jw *w) { tv_settings_write(s, w, true); }

void tv_commit_point_fini(tv_commit_point *cp) {
    for (uint32_t i = 0; i < cp->nsegs; i++) {
        tv_segment_release(cp->segs[i].seg);
        tv_free(cp->segs[i].live);
    }
    tv_free(cp->segs);
    tv_free(cp->settings_json);
    tv_free(cp->mapping_json);
    tv_free(cp->field_ids_json);
    tv_translog_close(cp->old_tl);
    memset(cp, 0, sizeof *cp);
}

tv_status tv_index_commit_begin(tv_index *idx, tv_translog *next, tv_commit_point *cp, tv_error *err) {
    memset(cp, 0, sizeof *cp);
    lock(idx);
    tv_status st = seal_buffer(idx);
    if (!st) {
        cp->segs = tv_calloc(idx->segs.len ? idx->segs.len : 1, sizeof *cp->segs);
        cp->settings_json = json_text(write_flat_settings, &idx->settings);
        cp->mapping_json = json_text(write_mapping, idx->mapping);
        cp->field_ids_json = json_text(write_field_ids, idx->mapping);
        if (!cp->segs || !cp->settings_json || !cp->mapping_json || !cp->field_ids_json) st = TROVE_ENOMEM;
    }
    for (size_t i = 0; !st && i < idx->segs.len; i++) {
        const wseg *w = &idx->segs.items[i];
        tv_commit_seg *c = &cp->segs[cp->nsegs];
        if (w->live) {
            size_t nw = ((size_t)w->max_doc + 63) / 64;
            if (!(c->live = tv_malloc(nw * sizeof(uint64_t)))) {
                st = TROVE_ENOMEM;
                break;
            }
            memcpy(c->live, w->live->words, nw * sizeof(uint64_t));
        }
        c->seg = tv_segment_retain(w->seg);
        c->max_doc = w->max_doc;
        cp->nsegs++;
    }
    if (!st) {
        cp->next_seq_no = idx->next_seq_no;
        cp->old_tl = idx->tl;
        idx->tl = next;
        idx->tlog_ops = 0;
        idx->tlog_bytes = 0;
        idx->tlog_last_ms = tv_engine_now_ms();
    }
    unlock(idx);
    if (st) {
        tv_commit_point_fini(cp);
        tv_error_set(err, st, "out of memory");
    }
    return st;
}

tv_status tv_index_install(tv_index *idx, const tv_segment *const *segs, const uint64_t *const *lives,
                           uint32_t n, int64_t next_seq_no, tv_error *err) {
    lock(idx);
    tv_status st = tv_vec_reserve(&idx->segs, idx->segs.len + n) ? TROVE_ENOMEM : TROVE_OK;
    for (uint32_t i = 0; !st && i < n; i++) {
        uint32_t md = tv_segment_max_doc(segs[i]), live_docs = md;
        tv_live *l = NULL;
        if (!lives[i] && live_for_new(segs[i], &l, &live_docs)) {
            st = TROVE_ENOMEM;
            break;
        }
        if (lives[i]) {
            if (!(l = live_alloc(md))) {
                st = TROVE_ENOMEM;
                break;
            }
            size_t nw = ((size_t)md + 63) / 64;
            memcpy(l->words, lives[i], nw * sizeof(uint64_t));
            if (md & 63) l->words[nw - 1] &= (1ull << (md & 63)) - 1;
            const uint64_t *roots = tv_segment_roots(segs[i], NULL);
            if (roots) /* a nested doc is never live, whatever the file says */
                for (size_t k = 0; k < nw; k++) l->words[k] &= roots[k];
            live_docs = 0;
            for (size_t k = 0; k < nw; k++) live_docs += (uint32_t)__builtin_popcountll(l->words[k]);
        }
        idx->segs.items[idx->segs.len++] = (wseg){tv_segment_retain(segs[i]), l, md, live_docs};
    }
    if (!st) {
        idx->next_seq_no = next_seq_no;
        snap_impl *sn = snap_from_working(idx, idx->mapping);
        if (sn) publish(idx, sn);
        else st = TROVE_ENOMEM;
    }
    unlock(idx);
    return st ? tv_error_set(err, st, "out of memory") : TROVE_OK;
}

tv_status tv_index_seal(tv_index *idx) {
    lock(idx);
    tv_status st = seal_buffer(idx);
    unlock(idx);
    return st;
}

uint32_t tv_index_buffered_docs(tv_index *idx) {
    lock(idx);
    uint32_t n = idx->buf_live;
    unlock(idx);
    return n;
}

const tv_snapshot *tv_index_acquire(tv_index *idx) {
    int64_t now = tv_engine_now_ms();
    int64_t last = atomic_exchange(&idx->last_acquire_ms, now);
    if (atomic_load(&idx->dirty_since_ms) != 0) {
        lock(idx);
        int64_t since = atomic_load(&idx->dirty_since_ms);
        if (since != 0) {
            int64_t interval = idx->settings.refresh_interval_ms;
            bool due = interval >= 0 && now - since >= interval;
            bool idle = !refresh_interval_explicit(idx) && now - last >= TV_ENGINE_SEARCH_IDLE_MS;
            if (due || idle) (void)refresh_locked(idx); /* on OOM: serve the old snapshot */
        }
        unlock(idx);
    }
    pthread_mutex_lock(&idx->snap_mu);
    const tv_snapshot *s = tv_snapshot_retain(idx->snap);
    pthread_mutex_unlock(&idx->snap_mu);
    return s;
}

/* ---------------------------------------------------------------- writes */

/* Parses source, merging dynamic mapping updates (lock held). */
static tv_status parse_doc(tv_index *idx, const char *id, size_t id_len, const char *source,
                           size_t source_len, tv_parsed_doc *pd, tv_error *err) {
    /* settings-driven limits: fields past index.mapping.total_fields.limit stay
     * unmapped when unmap_fields_beyond_limit is set */
    tv_doc_opts opts;
    tv_doc_opts_from_settings(&idx->settings, &opts);
    for (int attempt = 0; attempt < 4; attempt++) {
        tv_json *update = NULL;
        tv_status st = tv_doc_parse_ex(idx->mapping, &opts, id, id_len, source, source_len,
                                       &idx->scratch, pd, &update, err);
        if (st) return st;
        if (!update) return TROVE_OK;
        const tv_mapping *m = tv_mapping_merge(idx->mapping, update, idx->an->a, err);
        if (!m) return err && err->code != TROVE_OK ? err->code : TROVE_EMAPPER;
        /* a dynamic template may map a field derived source cannot rebuild */
        if (opts.derived_source && (st = tv_mapping_check_derivable(m, &idx->settings, err)) != TROVE_OK) {
            tv_mapping_release(m);
            return st;
        }
        st = install_mapping(idx, m);
        if (st) return tv_error_set(err, st, "out of memory");
    }
    return tv_error_set(err, TROVE_EINTERNAL, "dynamic mapping update did not converge for [%.*s]",
                        (int)TV_MIN(id_len, 512), id);
}

/* Appends an INDEX or DELETE record (format in translog_ops.c). */
static tv_status log_write(tv_index *idx, uint8_t type, const tv_doc_meta *m, const char *source,
                           size_t source_len, tv_error *err) {
    tv_buf b;
    tv_buf_init(&b);
    tv_tlog_encode_write(&b, type, m, source, source_len);
    return append_record(idx, &b, err);
}

void tv_index_attach_translog(tv_index *idx, tv_translog *tl) {
    lock(idx);
    tv_translog_close(idx->tl);
    idx->tl = tl;
    idx->last_sync_ms = tv_engine_now_ms();
    unlock(idx);
}

bool tv_index_durable(const tv_index *idx) {
    tv_index *m = (tv_index *)idx; /* the lock, not the index, changes */
    lock(m);
    bool d = idx->tl != NULL;
    unlock(m);
    return d;
}

bool tv_index_translog_full(tv_index *idx) {
    lock(idx);
    int64_t limit = tv_settings_bytes(&idx->settings, "index.translog.flush_threshold_size", (int64_t)512 << 20);
    bool full = idx->tl && limit >= 0 && tv_translog_size(idx->tl) > (uint64_t)limit;
    unlock(idx);
    return full;
}

tv_status tv_index_log_settings(tv_index *idx, const char *body, size_t len, tv_error *err) {
    if (!idx->tl) return TROVE_OK;
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_u8(&b, TV_TLOG_SETTINGS);
    tv_buf_append(&b, body, len);
    lock(idx);
    tv_status st = append_record(idx, &b, err);
    unlock(idx);
    return st;
}

tv_status tv_index_sync(tv_index *idx, tv_sync_mode mode, tv_error *err) {
    /* the translog is taken under the lock and held by a reference: a
     * commit may replace (and close) it meanwhile */
    lock(idx);
    tv_translog *tl = tv_translog_retain(idx->tl);
    /* a translog whose sync failed refuses its own writes (every append says
     * so); other requests, which merely sync everything dirty, go on */
    if (!tl || !tv_translog_dirty(tl) || (mode != TV_SYNC_FORCE && tv_translog_failed(tl))) {
        unlock(idx);
        tv_translog_close(tl);
        return TROVE_OK;
    }
    const tv_json *d = tv_json_get(idx->settings.flat, "index.translog.durability");
    bool async = d && d->type == TV_JSON_STRING && d->len == 5 && strncasecmp(d->v.s, "async", 5) == 0;
    int64_t interval = setting_ms(idx, "index.translog.sync_interval", 5000);
    int64_t now = tv_engine_now_ms();
    bool due = mode == TV_SYNC_FORCE || (async ? now - idx->last_sync_ms >= interval : mode == TV_SYNC_REQUEST);
    if (due) idx->last_sync_ms = now;
    unlock(idx);
    tv_status st = due ? tv_translog_sync(tl, err) : TROVE_OK;
    tv_translog_close(tl);
    return st;
}

static tv_status after_write(tv_index *idx, const tv_write_opts *o, tv_write_result *res, tv_error *err) {
    tv_status st = TROVE_OK;
    if (idx->buf.len >= TV_ENGINE_BUFFER_MAX_DOCS || buffer_bytes(idx) >= TV_ENGINE_BUFFER_MAX_BYTES)
        (void)seal_buffer(idx); /* best effort: the buffer simply keeps growing on OOM */
    if (o->refresh != TV_REFRESH_FALSE) {
        st = refresh_locked(idx);
        if (st) tv_error_set(err, st, "out of memory");
        else if (o->refresh == TV_REFRESH_TRUE && res) res->forced_refresh = true;
    }
    return st;
}

/* A write in the translog's statistics (lock held): with a translog the
 * file says its bytes; without one, the record's encoded size, framed. */
static void tlog_count(tv_index *idx, uint8_t type, const tv_doc_meta *m, size_t source_len, bool replay) {
    idx->tlog_ops++;
    if (!idx->tl && !replay) idx->tlog_bytes += tv_tlog_write_size(type, m, source_len) + TV_TLOG_FRAME_BYTES;
    idx->tlog_last_ms = tv_engine_now_ms();
}

static tv_status put_impl(tv_index *idx, const char *id, size_t id_len, const char *source, size_t source_len,
                          const tv_write_opts *opts, tv_write_result *res, tv_error *err);
static tv_status delete_impl(tv_index *idx, const char *id, size_t id_len, const tv_write_opts *opts,
                             tv_write_result *res, tv_error *err);

/* IndexingStats, as OpenSearch's listeners count them: an applied write
 * (a delete of a missing document too) counts with its time; an index
 * refused by its version conditions counts as failed (a delete's failure
 * counts nowhere); a document that does not parse is refused before the
 * engine and counts nowhere; translog replay counts nowhere. */
tv_status tv_index_put(tv_index *idx, const char *id, size_t id_len, const char *source,
                       size_t source_len, const tv_write_opts *opts, tv_write_result *res,
                       tv_error *err) {
    uint64_t t0 = tv_mono_ns();
    tv_status st = put_impl(idx, id, id_len, source, source_len, opts, res, err);
    if (opts && opts->replay) return st;
    if (st == TROVE_OK) {
        tv_index_stat_add(idx, TV_STAT_INDEX_TOTAL, 1);
        tv_index_stat_add(idx, TV_STAT_INDEX_NS, ns_since(t0));
    } else if (st == TROVE_ECONFLICT) {
        tv_index_stat_add(idx, TV_STAT_INDEX_FAILED, 1);
    }
    return st;
}

tv_status tv_index_delete(tv_index *idx, const char *id, size_t id_len, const tv_write_opts *opts,
                          tv_write_result *res, tv_error *err) {
    uint64_t t0 = tv_mono_ns();
    tv_status st = delete_impl(idx, id, id_len, opts, res, err);
    if (opts && opts->replay) return st;
    if (st == TROVE_OK) {
        tv_index_stat_add(idx, TV_STAT_DELETE_TOTAL, 1);
        tv_index_stat_add(idx, TV_STAT_DELETE_NS, ns_since(t0));
    }
    return st;
}

static tv_status put_impl(tv_index *idx, const char *id, size_t id_len, const char *source, size_t source_len,
                          const tv_write_opts *opts, tv_write_result *res, tv_error *err) {
    tv_write_opts defaults;
    if (!opts) {
        tv_write_opts_init(&defaults);
        opts = &defaults;
    }
    tv_status st = validate_write(id, id_len, opts, true, err);
    if (st) return st;
    lock(idx);
    tv_arena_reset(&idx->scratch);
    tv_parsed_doc pd;
    lookup lk;
    int64_t version = 0;
    st = parse_doc(idx, id, id_len, source, source_len, &pd, err);
    if (st) goto out;
    st = lookup_id(idx, id, id_len, &idx->scratch, &lk);
    if (st) {
        tv_error_set(err, st, "%s", trove_status_message(st));
        goto out;
    }
    if (opts->replay) {
        version = opts->replay_version;
        idx->next_seq_no = opts->replay_seq_no;
    } else if ((st = check_conditions(idx, id, id_len, opts, true, &lk, &version, err))) {
        goto out;
    }

    /* prepare everything that can fail */
    tv_doc_meta meta = {id, (uint32_t)id_len, opts->routing, (uint32_t)opts->routing_len,
                        version, idx->next_seq_no, PRIMARY_TERM};
    bufdoc *bd = bufdoc_new(idx, &pd, &meta);
    tv_live *nl = NULL;
    wseg *w = lk.kind == LK_SEG ? &idx->segs.items[lk.segi] : NULL;
    if (bd && w) {
        nl = w->live && atomic_load(&w->live->rc) == 1 ? w->live
             : w->live                                 ? live_copy(w->live)
                                                       : live_new_all(w->max_doc);
    }
    if (!bd || (w && !nl) || tv_vec_reserve(&idx->buf, idx->buf.len + 1) ||
        tv_map_put(&idx->bufmap, bd->meta.id, id_len, bd, NULL)) {
        if (w && nl && nl != w->live) live_release(nl);
        st = tv_error_oom(err);
        goto out;
    }
    /* the record goes to the translog last: if it cannot, undo the map */
    if (idx->tl && (st = log_write(idx, TV_TLOG_INDEX, &meta, source, source_len, err))) {
        if (lk.kind == LK_BUF) (void)tv_map_put(&idx->bufmap, lk.bd->meta.id, id_len, lk.bd, NULL);
        else tv_map_del(&idx->bufmap, id, id_len);
        if (w && nl != w->live) live_release(nl);
        goto out;
    }

    /* commit: nothing below fails */
    tlog_count(idx, TV_TLOG_INDEX, &meta, source_len, opts->replay);
    idx->buf.items[idx->buf.len++] = bd;
    idx->buf_live++;
    if (lk.kind == LK_BUF) {
        lk.bd->dead = true;
        idx->buf_live--;
    } else if (w) {
        if (nl != w->live) {
            live_release(w->live);
            w->live = nl;
        }
        nl->words[lk.doc >> 6] &= ~(1ull << (lk.doc & 63));
        w->num_docs--;
    }
    if (lk.tb) {
        tv_map_del(&idx->tombs, id, id_len);
        tv_free(lk.tb);
    }
    if (res) {
        res->result = lk.kind == LK_BUF || lk.kind == LK_SEG ? TV_RESULT_UPDATED : TV_RESULT_CREATED;
        res->version = version;
        res->seq_no = idx->next_seq_no;
        res->primary_term = PRIMARY_TERM;
        res->forced_refresh = false;
    }
    idx->next_seq_no++;
    mark_dirty(idx);
    st = after_write(idx, opts, res, err);
out:
    unlock(idx);
    return st;
}

static tv_status delete_impl(tv_index *idx, const char *id, size_t id_len, const tv_write_opts *opts,
                             tv_write_result *res, tv_error *err) {
    tv_write_opts defaults;
    if (!opts) {
        tv_write_opts_init(&defaults);
        opts = &defaults;
    }
    tv_status st = validate_write(id, id_len, opts, false, err);
    if (st) return st;
    lock(idx);
    tv_arena_reset(&idx->scratch);
    lookup lk;
    int64_t version = 0;
    st = lookup_id(idx, id, id_len, &idx->scratch, &lk);
    if (st) {
        tv_error_set(err, st, "%s", trove_status_message(st));
        goto out;
    }
    if (opts->replay) {
        version = opts->replay_version;
        idx->next_seq_no = opts->replay_seq_no;
    } else if ((st = check_conditions(idx, id, id_len, opts, false, &lk, &version, err))) {
        goto out;
    }

    /* prepare */
    tomb *tb = lk.tb;
    bool new_tomb = false;
    if (!tb) {
        tb = tv_malloc(sizeof *tb);
        new_tomb = true;
    }
    tv_live *nl = NULL;
    wseg *w = lk.kind == LK_SEG ? &idx->segs.items[lk.segi] : NULL;
    if (tb && w) {
        nl = w->live && atomic_load(&w->live->rc) == 1 ? w->live
             : w->live                                 ? live_copy(w->live)
                                                       : live_new_all(w->max_doc);
    }
    if (!tb || (w && !nl) || (new_tomb && tv_map_put(&idx->tombs, id, id_len, tb, NULL))) {
        if (w && nl && nl != w->live) live_release(nl);
        if (new_tomb) tv_free(tb);
        st = tv_error_oom(err);
        goto out;
    }
    tv_doc_meta meta = {id, (uint32_t)id_len, opts->routing, (uint32_t)opts->routing_len,
                        version, idx->next_seq_no, PRIMARY_TERM};
    if (idx->tl && (st = log_write(idx, TV_TLOG_DELETE, &meta, NULL, 0, err))) {
        if (w && nl != w->live) live_release(nl);
        if (new_tomb) {
            tv_map_del(&idx->tombs, id, id_len);
            tv_free(tb);
        }
        goto out;
    }

    /* commit */
    tlog_count(idx, TV_TLOG_DELETE, &meta, 0, opts->replay);
    bool found = lk.kind == LK_BUF || lk.kind == LK_SEG;
    *tb = (tomb){version, idx->next_seq_no, PRIMARY_TERM, tv_engine_now_ms()};
    if (lk.kind == LK_BUF) {
        lk.bd->dead = true;
        idx->buf_live--;
        tv_map_del(&idx->bufmap, id, id_len);
    } else if (w) {
        if (nl != w->live) {
            live_release(w->live);
            w->live = nl;
        }
        nl->words[lk.doc >> 6] &= ~(1ull << (lk.doc & 63));
        w->num_docs--;
    }
    if (res) {
        res->result = found ? TV_RESULT_DELETED : TV_RESULT_NOT_FOUND;
        res->version = version;
        res->seq_no = idx->next_seq_no;
        res->primary_term = PRIMARY_TERM;
        res->forced_refresh = false;
    }
    idx->next_seq_no++;
    if (found) mark_dirty(idx);
    st = after_write(idx, opts, res, err);
out:
    unlock(idx);
    return st;
}

/* ------------------------------------------------------------------ reads */

static tv_status get_from_segment(const tv_segment *seg, uint32_t doc, tv_arena *arena, tv_doc_meta *meta,
                                  const char **source, size_t *source_len) {
    return tv_segment_doc(seg, doc, arena, meta, source, source_len);
}

tv_status tv_index_get(tv_index *idx, const char *id, size_t id_len, bool realtime, tv_arena *arena,
                       bool *found, tv_doc_meta *meta, const char **source, size_t *source_len) {
    *found = false;
    *source = NULL;
    *source_len = 0;
    memset(meta, 0, sizeof *meta);
    tv_status st = TROVE_OK;
    if (!realtime) {
        const tv_snapshot *s = tv_index_acquire(idx);
        if (!s) return TROVE_ENOMEM;
        for (uint32_t i = s->nsegs; i-- > 0 && !st;) {
            const tv_segview *v = &s->segs[i];
            uint32_t doc = 0;
            st = seg_find(v->seg, v->live, id, id_len, arena, found, &doc);
            if (!st && *found) {
                st = get_from_segment(v->seg, doc, arena, meta, source, source_len);
                break;
            }
        }
        tv_snapshot_release(s);
        if (st) *found = false;
        return st;
    }
    lock(idx);
    bufdoc *bd = tv_map_get(&idx->bufmap, id, id_len);
    if (bd) {
        bool oom = false;
        *meta = bd->meta;
        meta->id = tv_arena_strndup(arena, bd->meta.id, bd->meta.id_len);
        if (!meta->id) oom = true;
        if (bd->meta.routing) {
            meta->routing = tv_arena_strndup(arena, bd->meta.routing, bd->meta.routing_len);
            if (!meta->routing) oom = true;
        }
        if (bd->doc.source) {
            *source = tv_arena_strndup(arena, bd->doc.source, bd->doc.source_len);
            *source_len = bd->doc.source_len;
            if (!*source) oom = true;
        }
        if (oom) st = TROVE_ENOMEM;
        else *found = true;
    } else if (!tv_map_has(&idx->tombs, id, id_len)) {
        for (size_t i = idx->segs.len; i-- > 0 && !st;) {
            const wseg *w = &idx->segs.items[i];
            uint32_t doc = 0;
            st = seg_find(w->seg, w->live ? w->live->words : NULL, id, id_len, arena, found, &doc);
            if (!st && *found) {
                st = get_from_segment(w->seg, doc, arena, meta, source, source_len);
                break;
            }
        }
    }
    unlock(idx);
    if (st) {
        *found = false;
        *source = NULL;
        *source_len = 0;
    }
    return st;
}

void tv_index_get_stats(tv_index *idx, tv_index_stats *out) {
    memset(out, 0, sizeof *out);
    lock(idx);
    /* Lucene's counts, as OpenSearch reports them: a live root's nested
     * docs count as documents too */
    out->docs_count = idx->buf_live;
    for (size_t i = 0; i < idx->buf.len; i++)
        if (!idx->buf.items[i]->dead) out->docs_count += idx->buf.items[i]->nkids;
    for (size_t i = 0; i < idx->segs.len; i++) {
        const wseg *w = &idx->segs.items[i];
        uint64_t live = w->num_docs;
        const uint64_t *roots = tv_segment_roots(w->seg, NULL);
        if (roots) {
            live = 0;
            uint32_t prev = UINT32_MAX; /* the previous root */
            for (uint32_t wi = 0; wi < (w->max_doc + 63) / 64; wi++)
                for (uint64_t bits = roots[wi]; bits; bits &= bits - 1) {
                    uint32_t r = wi * 64 + (uint32_t)__builtin_ctzll(bits);
                    if (w->live && ((w->live->words[wi] >> (r & 63)) & 1)) live += r - prev;
                    prev = r;
                }
        }
        out->docs_count += live;
        out->docs_deleted += w->max_doc - live;
        out->store_bytes += tv_segment_bytes(w->seg);
    }
    out->segments = (uint32_t)idx->segs.len;
    out->buffer_bytes = idx->buf.len ? buffer_bytes(idx) : 0;
    out->version_map_bytes = idx->bufmap.cap * sizeof(tv_map_slot) +
                             idx->tombs.cap * sizeof(tv_map_slot) + idx->tombs.len * sizeof(tomb);
    out->tlog_ops = idx->tlog_ops;
    out->tlog_bytes = idx->tl ? tv_translog_size(idx->tl) : idx->tlog_bytes;
    out->tlog_age_ms = tv_engine_now_ms() - idx->tlog_last_ms;
    unlock(idx);
    for (int i = 0; i < TV_STAT__COUNT; i++) out->ctr[i] = atomic_load_explicit(&idx->stat[i], memory_order_relaxed);
}

void tv_index_stats_restart(tv_index *idx) {
    for (int i = 0; i < TV_STAT__COUNT; i++) {
        if (i == TV_STAT_SCROLL_CURRENT || i == TV_STAT_PIT_CURRENT || i == TV_STAT_MERGE_CURRENT ||
            i == TV_STAT_MERGE_CURRENT_DOCS || i == TV_STAT_MERGE_CURRENT_BYTES)
            continue;
        atomic_store(&idx->stat[i], 0);
    }
}

void tv_index_note_flush(tv_index *idx, bool counted, bool periodic, int64_t ns) {
    if (counted) {
        tv_index_stat_add(idx, TV_STAT_FLUSH_TOTAL, 1);
        if (periodic) tv_index_stat_add(idx, TV_STAT_FLUSH_PERIODIC, 1);
        tv_index_stat_add(idx, TV_STAT_FLUSH_NS, ns);
    }
    lock(idx);
    if (!idx->tl) {
        /* in memory the flush is the commit: what it covered leaves the
         * translog (a new empty generation, as OpenSearch's flush rolls one) */
        idx->tlog_ops = 0;
        idx->tlog_bytes = 0;
        idx->tlog_last_ms = tv_engine_now_ms();
    }
    unlock(idx);
}

/* ------------------------------------------------------------------ clone */

tv_index *tv_index_clone(tv_index *src, tv_error *err) {
    tv_index *c = index_alloc(src->name, strlen(src->name));
    if (!c) {
        tv_error_oom(err);
        return NULL;
    }
    lock(src);
    tv_status st = seal_buffer(src);
    if (!st && tv_vec_reserve(&c->segs, src->segs.len ? src->segs.len : 1)) st = TROVE_ENOMEM;
    if (!st && settings_copy(&c->settings, &src->settings, src->an->a)) st = TROVE_ENOMEM;
    if (!st) {
        c->settings_ok = true;
        size_t it = 0;
        const char *key;
        size_t len;
        void *v;
        while (!st && tv_map_next(&src->tombs, &it, &key, &len, &v)) {
            tomb *t = tv_malloc(sizeof *t);
            if (!t) {
                st = TROVE_ENOMEM;
                break;
            }
            *t = *(tomb *)v;
            if (tv_map_put(&c->tombs, key, len, t, NULL)) {
                tv_free(t);
                st = TROVE_ENOMEM;
            }
        }
    }
    if (!st) {
        c->an = an_retain(src->an);
        c->mapping = tv_mapping_retain(src->mapping);
        c->snap = tv_snapshot_retain(src->snap);
        c->generation = src->generation;
        c->next_seq_no = src->next_seq_no;
        for (size_t i = 0; i < src->segs.len; i++) {
            wseg w = src->segs.items[i];
            tv_segment_retain(w.seg);
            live_retain(w.live);
            c->segs.items[c->segs.len++] = w;
        }
        for (int i = 0; i < TV_STAT__COUNT; i++) atomic_store(&c->stat[i], atomic_load(&src->stat[i]));
        /* a background merge runs for the source only */
        atomic_store(&c->stat[TV_STAT_MERGE_CURRENT], 0);
        atomic_store(&c->stat[TV_STAT_MERGE_CURRENT_DOCS], 0);
        atomic_store(&c->stat[TV_STAT_MERGE_CURRENT_BYTES], 0);
        /* the clone's translog is in memory: the source's writes since its
         * flush, when they are known in that form */
        c->tlog_ops = src->tl ? 0 : src->tlog_ops;
        c->tlog_bytes = src->tl ? 0 : src->tlog_bytes;
        c->tlog_last_ms = src->tlog_last_ms;
        atomic_store(&c->dirty_since_ms, atomic_load(&src->dirty_since_ms));
        atomic_store(&c->last_acquire_ms, atomic_load(&src->last_acquire_ms));
    }
    unlock(src);
    if (st) {
        if (!c->an) {
            c->settings.analysis = NULL;
        }
        index_destroy(c);
        tv_error_set(err, st, "out of memory");
        return NULL;
    }
    return c;
}
