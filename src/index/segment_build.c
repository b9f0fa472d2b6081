/*
 * segment_build.c — the segment builder (parsed documents -> segment bytes)
 * and segment merging; the one writer of the segment format, specified here.
 *
 * How it works. tv_segment_builder_add inverts each document into per-field
 * in-memory structures: a hash map from term to a growable byte list of
 * postings (varint doc, varint freq, varint position deltas), a norm byte
 * per doc, (doc, value) lists for numeric doc values and points, (doc, key)
 * lists for sorted-set doc values, and presence bitsets. Stored data goes to
 * per-doc columns and to _source chunks that are LZ4-compressed as soon as
 * they reach 4 KiB (TV_SEG_CHUNK). A hit's _source is read by decompressing
 * its chunk up to the end of the document, so the chunk size is the price
 * of a fetch: 16 KiB chunks cost about 29 k instructions per hit (56% of a
 * low-frequency term query's instructions), 4 KiB ones a quarter of that,
 * for 6% more store (1,697 -> 1,798 bytes per 1.4 KB document). Rejected:
 * one LZ4 block per document (poor compression of 1-2 KB texts) and a
 * decompressed-chunk cache (the ten hits of a query rarely share a chunk). tv_segment_builder_finish sorts terms, keys and points
 * and serialises everything into ONE contiguous buffer (below), which is
 * then opened by the same reader code that opens a file's bytes.
 *
 * Merging feeds the same in-memory structures from existing segments
 * instead of from parsed documents: views are processed in order, live docs
 * get dense new ids, and every per-field list is appended in ascending new
 * doc id. Since finish depends only on the content of those structures, a
 * merge gives byte for byte the segment a fresh build of the kept documents
 * gives (the tests check exactly that). Rejected for now: a streaming k-way
 * merge of term dictionaries (less memory for big merges) — it is the next
 * step once segments outgrow memory; the format does not change.
 *
 * ---------------------------------------------------------------- FORMAT
 * Version TV_SEG_VERSION (2; 1 had varint positions). All integers little-endian. Definitions:
 *   col      a packed column: u64 n, i64 min, i64 slope, u8 bits (0..64),
 *            u8[7] zero, then ceil(n*bits/8) bytes of (value_i - slope*i -
 *            min) bit-packed (entry i in bits [i*bits, (i+1)*bits), LSB
 *            first; the arithmetic is modulo 2^64), then 8 zero bytes, then
 *            zero bytes to a multiple of 8. The writer takes slope 0 or the
 *            line through the first and last values, whichever needs fewer
 *            bits: offsets of equal-sized items and seq_nos in doc order
 *            then need none.
 *   bits(n)  a bitset: ceil(n/64) u64 words, doc d is bit d%64 of word d/64.
 *   blob     u64 len, len bytes, zero bytes to a multiple of 8.
 *
 * File:
 *   [0,8)    magic "TROVESEG"
 *   [8,12)   u32 version
 *   [12,16)  u32 max_doc (1 .. 2^31-1)
 *   [16,20)  u32 nsections
 *   [20,24)  u32 reserved, 0
 *   [24,28)  u32 xxh32 of the section table
 *   [28,32)  u32 xxh32 of bytes [0,28)
 *   [32, 32+32*nsections) section table, strictly ascending by (field,
 *            kind); entry: u32 kind, u32 field, u64 offset, u64 length,
 *            u32 xxh32 of the section's bytes, u32 reserved 0.
 *   sections, each at an offset that is a multiple of 8, inside the file,
 *            not overlapping; the bytes between them in file order (fewer
 *            than 8 before each, and after the last) are zero.
 * Sections of field 0 with kinds META and SOURCE exist in every segment
 * (NESTED when needed);
 * the others exist per field only when the field has such data.
 *
 * META (1): col version[max_doc], col seq_no[max_doc], col
 *   primary_term[max_doc], col id_block_offs[ceil(max_doc/16)+1] (offsets
 *   into the next blob where each block of 16 docs starts, then its end),
 *   blob ids (per doc in order, front-coded within its block: varint prefix
 *   (bytes shared with the previous doc's _id; 0 for a block's first doc),
 *   varint suffix_len, suffix bytes), col routing_offs[max_doc+1]
 *   (cumulative offsets into the next blob), blob routings, bits(max_doc)
 *   has_routing. (Ids of one bulk load share long prefixes: front coding
 *   halves them, and a hit's _id costs at most 16 short decodes.)
 * SOURCE (2): u32 nchunks, u32 0, bits(max_doc) has_source, col
 *   offs[max_doc+1] (cumulative offsets of each doc's _source in the
 *   concatenation of all sources), nchunks * 32-byte chunk entries {u32
 *   first_doc, u32 ndocs, u64 raw_start, u64 comp_off, u32 raw_len, u32
 *   comp_len}, blob compressed (each chunk an independent LZ4 block holding
 *   the raw bytes [raw_start, raw_start+raw_len) of docs [first_doc,
 *   first_doc+ndocs); a chunk closes after the doc that brings it to
 *   TV_SEG_CHUNK = 4 KiB, a writer's choice: readers accept any chunking).
 * NESTED (3, only when some doc is nested): col nest[max_doc]: 0 for a
 *   root doc, else 1 + the field id of the nested object mapping the doc
 *   was parsed from. Docs form blocks (index.h, "doc blocks"): a root's
 *   nested docs precede it, so the last doc is a root. Nested docs have no
 *   _id term, no routing and no _source; their META rows repeat the root's
 *   version, seq_no and primary term with an empty _id.
 * TERMS (10): u32 nterms, u32 nblocks, u32 doc_count, u32 max_term_len, u64
 *   sum_total_term_freq, u64 sum_doc_freq, u8 index_options, u8[7] 0, u32
 *   block_off[nblocks] (relative to the blocks area, ascending), zero pad to
 *   8, then the blocks area (rest of the section). A block holds up to 32
 *   terms in byte order: varint count, then per term: varint prefix (bytes
 *   shared with the previous term; 0 for a block's first term), varint
 *   suffix_len, suffix bytes, varint doc_freq, [if index_options >= FREQS:
 *   varint total_term_freq - doc_freq], varint postings offset (the first
 *   term of a block: absolute in POSTINGS; others: delta from the previous
 *   term), [if index_options >= POSITIONS: varint positions offset, same
 *   scheme]. Binary search over the blocks' first terms, then a scan.
 * POSTINGS (11): per term at its offset. With df < 128, only the tail (below).
 *   Otherwise nb = df/128 full blocks: u32 tail_off (in the data area), u32
 *   tail_pos_off (relative to the term's positions); nb skip entries of 12
 *   bytes {u32 last_doc, u32 data_off, u32 pos_off}; then the data area:
 *   per full block at its data_off u8 bits, 16*bits bytes of bit-packed doc
 *   gaps (doc - prev - 1, prev = the previous doc, -1 before the first),
 *   [if freqs: u8 fbits, 16*fbits bytes of freq-1], then the block's
 *   impacts: varint n (1..16), n pairs {varint freq-1, u8 norm}, freq
 *   ascending, norm ascending: the block's Pareto-competitive (freq, norm)
 *   pairs, capped by merging neighbours into (higher freq, lower norm) (a
 *   reader finds them from the two widths; decoding never reads them);
 *   then the tail (df % 128 docs): per doc
 *   varint gap (without freqs) or varint (gap << 1 | (freq == 1)) followed
 *   by varint freq when freq != 1. Fields of index_options DOCS store no
 *   freqs (freq reads as 1; total_term_freq = doc_freq). The section ends
 *   with 8 zero bytes.
 * POSITIONS (12): per term at its offset, one group per postings block
 *   (each full block, then the tail), the group of a full block at its skip
 *   entry's pos_off and the tail's at tail_pos_off. A group holds the
 *   position deltas of its docs in doc order (freq values per doc, each
 *   from the previous position of the same doc, the first from 0), cut into
 *   chunks of 128 values, the last one shorter: per chunk u8 bits (0..32)
 *   and ceil(n*bits/8) bytes of the n values bit-packed (value i in bits
 *   [i*bits, (i+1)*bits), LSB first). A group's value count is the sum of
 *   its docs' freqs, so chunks carry no count. Ends with 8 zero bytes.
 * NORMS (13): max_doc bytes, tv_norm_encode (Lucene's SmallFloat.intToByte4)
 *   of the doc's field length; 0 = no value.
 * DV_NUMERIC (14): u8 mode (0: every doc has exactly one value, value i is
 *   doc i's; 1: general), u8[7] 0, [mode 1: col offs[max_doc+1]], col
 *   values (ascending within a doc).
 * DV_SORTED (15): u32 nords, u8 mode (as above), u8[3] 0, col
 *   term_offs[nords+1], blob terms (sorted, distinct), [mode 1: col
 *   doc_offs[max_doc+1]], col ords (ascending and distinct within a doc).
 * POINTS (16): col values (ascending), col docs (the doc of each value;
 *   ascending among equal values).
 * FIELD_DOCS (17): u32 count, u8 mode (0: list, 1: bitset), u8[3] 0, then
 *   col docs[count] (ascending) or bits(max_doc): the docs with any term,
 *   doc value or point in the field.
 *
 * Limits: max_doc < 2^31; one term's postings data and one field's term
 * blocks under 4 GiB (u32 offsets); a field's doc values and points hold at
 * most TV_SEG_MAX_VALUES_PER_DOC values per doc on average (finish returns
 * TROVE_ELIMIT beyond); a single _source under 2 GiB. TV_IO_OFFSETS fields
 * are stored as TV_IO_POSITIONS (no reader call returns offsets).
 *
 * What the builder takes from a tv_doc_field: tokens -> postings (grouped by
 * term; freq = occurrences; positions as given); norms -> tv_norm_encode(
 * field_length); nums -> points always, and numeric doc values when dv_kind
 * is TV_DV_NUMERIC; keys -> sorted-set doc values when dv_kind is
 * TV_DV_SORTED_SET. A field's index options are those of the first doc that
 * gives it terms. Every doc's _id is indexed under TV_FIELD_ID (DOCS).
 */
#include <lz4.h>
#include <stdlib.h>

#include "index/segment_int.h"

/* ------------------------------------------------------------ builder state */

typedef struct bterm {
    const char *key;
    uint32_t key_len;
    uint32_t df;
    uint64_t ttf;
    uint8_t *p; /* postings: varint doc, varint freq, [freq varint pos deltas] */
    size_t len, cap;
    uint32_t mark; /* invert_field scratch: doc + 1 of the doc that last used it */
    uint32_t slot; /* invert_field scratch: its index among that doc's terms */
} bterm;

typedef TV_VEC(uint64_t) u64vec;
typedef TV_VEC(uint32_t) u32vec;
typedef TV_VEC(int64_t) i64vec;

typedef struct bfield {
    uint32_t id;
    uint8_t index_options;
    bool norms;
    bool dvn, dvs;
    tv_map terms; /* key -> bterm* */
    TV_VEC(bterm *) tlist;
    TV_VEC(uint8_t) normv; /* by doc */
    u64vec has_terms, has_any; /* bitsets by doc */
    u32vec dvn_docs;
    i64vec dvn_vals;
    tv_map keys; /* key -> (void *)(uintptr_t)(key id + 1) */
    TV_VEC(bterm *) klist; /* key strings (bterm used for key/len only) */
    u32vec dvs_docs, dvs_keys;
    u32vec pt_docs;
    i64vec pt_vals;
} bfield;

typedef struct chunk_ent {
    uint32_t first_doc, ndocs;
    uint64_t raw_start, comp_off;
    uint32_t raw_len, comp_len;
} chunk_ent;

struct tv_segment_builder {
    tv_status err; /* sticky */
    uint32_t ndocs;
    tv_arena arena; /* term keys, bterms */
    TV_VEC(bfield *) fields; /* sorted by id */
    /* stored */
    i64vec version, seq, pterm;
    tv_buf ids, rts;
    u64vec id_offs, rt_offs, has_rt, has_src, src_offs;
    tv_buf raw, comp;
    TV_VEC(chunk_ent) chunks;
    u32vec nest; /* per doc once any doc is nested (empty before) */
    uint32_t chunk_first;
    uint64_t raw_total;
    /* scratch of invert_field */
    u32vec tslot;           /* per token: its term's slot */
    TV_VEC(bterm *) uniq;   /* per slot: the term */
    u32vec cnt, start;      /* per slot: occurrences, first index in tpos */
    u32vec tpos;            /* positions grouped by slot */
    tv_buf tmp;
    /* LZ4 state kept for the builder's life: initialising one costs 16 KB
     * of memset, which for the one-document segments of refresh=true
     * writes was a fifth of the seal; a fast reset per chunk keeps every
     * chunk an independent block */
    LZ4_stream_t *lz;
};

static void bfield_free(bfield *f) {
    if (!f) return;
    for (size_t i = 0; i < f->tlist.len; i++) tv_free(f->tlist.items[i]->p);
    tv_map_fini(&f->terms);
    tv_vec_fini(&f->tlist);
    tv_vec_fini(&f->normv);
    tv_vec_fini(&f->has_terms);
    tv_vec_fini(&f->has_any);
    tv_vec_fini(&f->dvn_docs);
    tv_vec_fini(&f->dvn_vals);
    tv_map_fini(&f->keys);
    tv_vec_fini(&f->klist);
    tv_vec_fini(&f->dvs_docs);
    tv_vec_fini(&f->dvs_keys);
    tv_vec_fini(&f->pt_docs);
    tv_vec_fini(&f->pt_vals);
    tv_free(f);
}

static void builder_reset(tv_segment_builder *b) {
    for (size_t i = 0; i < b->fields.len; i++) bfield_free(b->fields.items[i]);
    tv_vec_fini(&b->fields);
    tv_arena_fini(&b->arena);
    tv_arena_init(&b->arena);
    tv_vec_fini(&b->version);
    tv_vec_fini(&b->seq);
    tv_vec_fini(&b->pterm);
    tv_buf_fini(&b->ids);
    tv_buf_fini(&b->rts);
    tv_vec_fini(&b->id_offs);
    tv_vec_fini(&b->rt_offs);
    tv_vec_fini(&b->has_rt);
    tv_vec_fini(&b->has_src);
    tv_vec_fini(&b->src_offs);
    tv_buf_fini(&b->raw);
    tv_buf_fini(&b->comp);
    tv_vec_fini(&b->chunks);
    tv_vec_fini(&b->nest);
    tv_vec_fini(&b->tslot);
    tv_vec_fini(&b->uniq);
    tv_vec_fini(&b->cnt);
    tv_vec_fini(&b->start);
    tv_vec_fini(&b->tpos);
    tv_buf_fini(&b->tmp);
    b->chunk_first = 0;
    b->raw_total = 0;
    b->ndocs = 0;
    b->err = TROVE_OK;
}

tv_segment_builder *tv_segment_builder_new(void) {
    tv_segment_builder *b = tv_calloc(1, sizeof *b);
    if (!b) return NULL;
    tv_arena_init(&b->arena);
    tv_buf_init(&b->ids);
    tv_buf_init(&b->rts);
    tv_buf_init(&b->raw);
    tv_buf_init(&b->comp);
    tv_buf_init(&b->tmp);
    return b;
}

void tv_segment_builder_free(tv_segment_builder *b) {
    if (!b) return;
    builder_reset(b);
    tv_arena_fini(&b->arena);
    tv_free(b->lz);
    tv_free(b);
}

uint32_t tv_segment_builder_docs(const tv_segment_builder *b) { return b->ndocs; }

/* Sets bit doc in a growable bitset. */
static int bits_set(u64vec *v, uint32_t doc) {
    size_t w = doc >> 6;
    if (w >= v->len) {
        if (tv_vec_reserve(v, w + 1)) return -1;
        while (v->len <= w) v->items[v->len++] = 0;
    }
    v->items[w] |= 1ull << (doc & 63);
    return 0;
}
static bool bits_get(const u64vec *v, uint32_t doc) {
    size_t w = doc >> 6;
    return w < v->len && ((v->items[w] >> (doc & 63)) & 1);
}

static bfield *get_field(tv_segment_builder *b, uint32_t id, uint8_t index_options) {
    size_t lo = 0, hi = b->fields.len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (b->fields.items[mid]->id < id) lo = mid + 1;
        else hi = mid;
    }
    if (lo < b->fields.len && b->fields.items[lo]->id == id) return b->fields.items[lo];
    bfield *f = tv_calloc(1, sizeof *f);
    if (!f) return NULL;
    f->id = id;
    f->index_options = index_options;
    /* keys live in the builder's arena (bterm.key): the maps borrow them */
    tv_map_init_borrowed(&f->terms);
    tv_map_init_borrowed(&f->keys);
    if (tv_vec_reserve(&b->fields, b->fields.len + 1)) {
        tv_free(f);
        return NULL;
    }
    memmove(&b->fields.items[lo + 1], &b->fields.items[lo],
            (b->fields.len - lo) * sizeof(bfield *));
    b->fields.items[lo] = f;
    b->fields.len++;
    return f;
}

static bterm *get_term(tv_segment_builder *b, bfield *f, const char *key, size_t len) {
    bterm *t = tv_map_get(&f->terms, key, len);
    if (t) return t;
    t = tv_arena_calloc(&b->arena, 1, sizeof *t);
    if (!t) return NULL;
    t->key = tv_arena_memdup(&b->arena, key, len);
    if (!t->key && len) return NULL;
    t->key_len = (uint32_t)len;
    if (tv_vec_push(&f->tlist, t)) return NULL;
    if (tv_map_put(&f->terms, t->key, len, t, NULL) != TROVE_OK) {
        f->tlist.len--;
        return NULL;
    }
    return t;
}

static int term_put(bterm *t, const uint8_t *p, size_t n) {
    if (t->len + n > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        while (cap < t->len + n) cap *= 2;
        uint8_t *np = tv_realloc(t->p, cap);
        if (!np) return -1;
        t->p = np;
        t->cap = cap;
    }
    memcpy(t->p + t->len, p, n);
    t->len += n;
    return 0;
}

static inline int term_varint(bterm *t, uint64_t v) {
    /* in place when there is room (most values are one byte) */
    if (TV_LIKELY(t->cap - t->len >= 10)) {
        if (v < 0x80) t->p[t->len++] = (uint8_t)v;
        else t->len += tv_varint_put(t->p + t->len, v);
        return 0;
    }
    uint8_t tmp[10];
    return term_put(t, tmp, tv_varint_put(tmp, v));
}

/* Appends one posting. pos: freq position deltas (NULL when the field keeps
 * no positions). Docs must come in ascending order per term. */
static int add_posting(bfield *f, bterm *t, uint32_t doc, uint32_t freq, const uint32_t *pos_deltas) {
    if (term_varint(t, doc) || term_varint(t, freq)) return -1;
    if (f->index_options >= TV_IO_POSITIONS) {
        for (uint32_t i = 0; i < freq; i++)
            if (term_varint(t, pos_deltas ? pos_deltas[i] : 0)) return -1;
    }
    t->df++;
    t->ttf += freq;
    return bits_set(&f->has_terms, doc);
}

static int set_norm(bfield *f, uint32_t doc, uint8_t norm) {
    if (doc >= f->normv.len) {
        if (tv_vec_reserve(&f->normv, (size_t)doc + 1)) return -1;
        while (f->normv.len <= doc) f->normv.items[f->normv.len++] = 0;
    }
    f->normv.items[doc] = norm;
    return 0;
}

static int add_key(tv_segment_builder *b, bfield *f, uint32_t doc, const char *key, size_t len) {
    void *v = tv_map_get(&f->keys, key, len);
    uint32_t kid;
    if (v) {
        kid = (uint32_t)((uintptr_t)v - 1);
    } else {
        bterm *k = tv_arena_calloc(&b->arena, 1, sizeof *k);
        if (!k) return -1;
        k->key = tv_arena_memdup(&b->arena, key, len);
        if (!k->key && len) return -1;
        k->key_len = (uint32_t)len;
        kid = (uint32_t)f->klist.len;
        if (tv_vec_push(&f->klist, k)) return -1;
        if (tv_map_put(&f->keys, k->key, len, (void *)(uintptr_t)(kid + 1), NULL) != TROVE_OK) return -1;
    }
    if (tv_vec_push(&f->dvs_docs, doc) || tv_vec_push(&f->dvs_keys, kid)) return -1;
    return 0;
}

/* qsort, minus its call for arrays already in order (the sections of a
 * segment are added in id order; small segments are full of arrays of one
 * or two): n - 1 comparisons instead of glibc's merge sort with its
 * scratch buffer. */
static void sort_n(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
    const char *p = base;
    size_t i = 1;
    while (i < n && cmp(p + (i - 1) * size, p + i * size) <= 0) i++;
    if (i < n) qsort(base, n, size, cmp);
}

/* _source chunking: compresses the pending raw chunk. */
static int flush_chunk(tv_segment_builder *b) {
    if (b->ndocs == b->chunk_first) return 0;
    int bound = LZ4_compressBound((int)b->raw.len);
    if (bound <= 0 || !tv_buf_reserve(&b->comp, (size_t)bound)) return -1;
    if (!b->lz) {
        if (!(b->lz = tv_malloc(sizeof *b->lz))) return -1;
        LZ4_initStream(b->lz, sizeof *b->lz);
    }
    int n = 0;
    if (b->raw.len) {
        LZ4_resetStream_fast(b->lz); /* no dictionary: an independent block */
        n = LZ4_compress_fast_continue(b->lz, b->raw.data, b->comp.data + b->comp.len, (int)b->raw.len, bound, 1);
    }
    if (b->raw.len && n <= 0) return -1;
    chunk_ent c = {b->chunk_first, b->ndocs - b->chunk_first, b->raw_total - b->raw.len,
                   b->comp.len, (uint32_t)b->raw.len, (uint32_t)n};
    if (tv_vec_push(&b->chunks, c)) return -1;
    b->comp.len += (size_t)n;
    tv_buf_clear(&b->raw);
    b->chunk_first = b->ndocs;
    return 0;
}

/* Records doc b->ndocs's nested object (0: a root). The column starts
 * with the first nested doc, zeros before it. */
static int add_nest(tv_segment_builder *b, uint32_t nest) {
    if (nest == 0 && b->nest.len == 0) return 0;
    if (b->nest.len == 0 && b->ndocs) {
        if (tv_vec_reserve(&b->nest, b->ndocs)) return -1;
        memset(b->nest.items, 0, (size_t)b->ndocs * sizeof(uint32_t));
        b->nest.len = b->ndocs;
    }
    return tv_vec_push(&b->nest, nest);
}

/* Adds the stored part of a document as doc b->ndocs (does not bump ndocs). */
static int add_stored(tv_segment_builder *b, const tv_doc_meta *meta, const char *src, size_t src_len) {
    uint32_t doc = b->ndocs;
    if (doc == 0) {
        if (tv_vec_push(&b->id_offs, 0) || tv_vec_push(&b->rt_offs, 0) ||
            tv_vec_push(&b->src_offs, 0))
            return -1;
    }
    if (tv_vec_push(&b->version, meta->version) || tv_vec_push(&b->seq, meta->seq_no) ||
        tv_vec_push(&b->pterm, meta->primary_term))
        return -1;
    tv_buf_append(&b->ids, meta->id, meta->id_len);
    if (tv_vec_push(&b->id_offs, b->ids.len)) return -1;
    if (meta->routing) {
        tv_buf_append(&b->rts, meta->routing, meta->routing_len);
        if (bits_set(&b->has_rt, doc)) return -1;
    }
    if (tv_vec_push(&b->rt_offs, b->rts.len)) return -1;
    if (src) {
        if (src_len > (size_t)INT32_MAX - b->raw.len) return -1;
        tv_buf_append(&b->raw, src, src_len);
        b->raw_total += src_len;
        if (bits_set(&b->has_src, doc)) return -1;
    }
    if (tv_vec_push(&b->src_offs, b->raw_total)) return -1;
    if (b->ids.oom || b->rts.oom || b->raw.oom) return -1;
    return 0;
}

static int after_stored(tv_segment_builder *b) {
    b->ndocs++;
    if (b->raw.len >= TV_SEG_CHUNK) return flush_chunk(b);
    return 0;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int invert_field(tv_segment_builder *b, bfield *f, uint32_t doc, const tv_doc_field *df) {
    if (df->ntokens) {
        /* a field's index options are those of the first doc giving it terms */
        if (f->tlist.len == 0) f->index_options = (uint8_t)df->index_options;
        /* Group the tokens by term without sorting them: each token's term
         * is looked up (or created) in the field's dictionary, and the
         * term's scratch mark gives it a slot for this doc on first sight.
         * A counting pass then lays each term's positions out contiguously
         * in token order, which is ascending position order for analyzer
         * output (checked; sorted if not). The terms reach add_posting in
         * order of first occurrence instead of byte order: postings are
         * per term, and finish sorts the dictionary, so the bytes written
         * are the same. This replaced a qsort of the token pointers by
         * (term, position), a third of all indexing instructions. */
        uint32_t n = df->ntokens, mark = doc + 1;
        b->tslot.len = b->uniq.len = b->cnt.len = 0;
        if (tv_vec_reserve(&b->tslot, n) || tv_vec_reserve(&b->uniq, n) || tv_vec_reserve(&b->cnt, n) ||
            tv_vec_reserve(&b->start, n) || tv_vec_reserve(&b->tpos, n))
            return -1;
        uint32_t nu = 0;
        for (uint32_t i = 0; i < n; i++) {
            const tv_token *tk = &df->tokens[i];
            bterm *t = get_term(b, f, tk->term, tk->term_len);
            if (!t) return -1;
            if (t->mark != mark) {
                t->mark = mark;
                t->slot = nu;
                b->uniq.items[nu] = t;
                b->cnt.items[nu] = 0;
                nu++;
            }
            b->cnt.items[t->slot]++;
            b->tslot.items[i] = t->slot;
        }
        uint32_t *start = b->start.items, *cnt = b->cnt.items, *pos = b->tpos.items;
        uint32_t acc = 0;
        for (uint32_t u = 0; u < nu; u++) {
            start[u] = acc;
            acc += cnt[u];
            cnt[u] = start[u]; /* now the fill cursor */
        }
        for (uint32_t i = 0; i < n; i++) pos[cnt[b->tslot.items[i]]++] = df->tokens[i].position;
        for (uint32_t u = 0; u < nu; u++) {
            uint32_t *d = pos + start[u], freq = cnt[u] - start[u];
            for (uint32_t k = 1; k < freq; k++)
                if (d[k] < d[k - 1]) {
                    sort_n(d, freq, sizeof *d, cmp_u32);
                    break;
                }
            /* positions -> deltas, in place, back to front */
            for (uint32_t k = freq; k-- > 1;) d[k] -= d[k - 1];
            if (add_posting(f, b->uniq.items[u], doc, freq, d)) return -1;
        }
    }
    if (df->norms) {
        f->norms = true;
        if (set_norm(f, doc, tv_norm_encode(df->field_length))) return -1;
    }
    if (df->nnums) {
        for (uint32_t i = 0; i < df->nnums; i++)
            if (tv_vec_push(&f->pt_vals, df->nums[i]) || tv_vec_push(&f->pt_docs, doc)) return -1;
        if (df->dv_kind == TV_DV_NUMERIC) {
            f->dvn = true;
            size_t vb = f->dvn_vals.len;
            for (uint32_t i = 0; i < df->nnums; i++)
                if (tv_vec_push(&f->dvn_vals, df->nums[i]) || tv_vec_push(&f->dvn_docs, doc)) return -1;
            sort_n(f->dvn_vals.items + vb, df->nnums, sizeof(int64_t), cmp_i64);
        }
    }
    if (df->nkeys && df->dv_kind == TV_DV_SORTED_SET) {
        f->dvs = true;
        for (uint32_t i = 0; i < df->nkeys; i++)
            if (add_key(b, f, doc, df->keys[i], df->key_lens[i])) return -1;
    }
    if (df->ntokens || df->nnums || (df->nkeys && df->dv_kind == TV_DV_SORTED_SET))
        if (bits_set(&f->has_any, doc)) return -1;
    return 0;
}

/* Adds one doc of a block: a nested doc (no _id term, no source, no
 * routing; the root's version numbers) or the root. */
static int add_one(tv_segment_builder *b, const tv_parsed_doc *doc, const tv_doc_meta *meta) {
    uint32_t d = b->ndocs;
    if (doc->nest) {
        tv_doc_meta nm = {.id = "", .version = meta->version, .seq_no = meta->seq_no,
                          .primary_term = meta->primary_term};
        if (add_stored(b, &nm, NULL, 0) || add_nest(b, doc->nest)) return -1;
    } else {
        if (add_stored(b, meta, doc->source, doc->source_len) || add_nest(b, 0)) return -1;
        bfield *idf = get_field(b, TV_FIELD_ID, TV_IO_DOCS);
        if (!idf) return -1;
        bterm *t = get_term(b, idf, meta->id, meta->id_len);
        if (!t || add_posting(idf, t, d, 1, NULL)) return -1;
    }
    for (uint32_t i = 0; i < doc->nfields; i++) {
        const tv_doc_field *df = &doc->fields[i];
        if (df->field == TV_FIELD_ID) continue;
        bfield *f = get_field(b, df->field, (uint8_t)df->index_options);
        if (!f || invert_field(b, f, d, df)) return -1;
    }
    return after_stored(b);
}

tv_status tv_segment_builder_add(tv_segment_builder *b, const tv_parsed_doc *doc,
                                 const tv_doc_meta *meta, uint32_t *docid) {
    if (b->err) return b->err;
    if ((uint64_t)b->ndocs + doc->nnested >= TV_SEG_MAX_DOCS) return TROVE_ELIMIT;
    for (uint32_t k = 0; k < doc->nnested; k++)
        if (add_one(b, &doc->nested[k], meta)) goto oom;
    uint32_t d = b->ndocs;
    if (add_one(b, doc, meta)) goto oom;
    if (docid) *docid = d;
    return TROVE_OK;
oom:
    b->err = TROVE_ENOMEM;
    return b->err;
}

/* ------------------------------------------------------------- serialising */

/* The bits that value - slope*i - mn needs for every i with the smallest
 * such mn (in *mn); 65 when a difference leaves the int64 range. */
static unsigned col_bits(const int64_t *v, const uint64_t *uv, uint64_t n, int64_t slope, int64_t *mn) {
    __int128 lo = 0, hi = 0;
    for (uint64_t i = 0; i < n; i++) {
        __int128 x = (__int128)(v ? v[i] : (int64_t)uv[i]) - (__int128)slope * (__int128)i;
        if (i == 0 || x < lo) lo = x;
        if (i == 0 || x > hi) hi = x;
    }
    if (lo < INT64_MIN || hi > INT64_MAX) return 65;
    *mn = (int64_t)lo;
    return tv_bits_needed64((uint64_t)(hi - lo));
}

static void put_col(tv_buf *o, const int64_t *v, const uint64_t *uv, uint64_t n, uint64_t *scratch) {
    /* exactly one of v (signed values) or uv (unsigned, < 2^63) is given */
    int64_t mn = 0, slope = 0;
    unsigned bits = col_bits(v, uv, n, 0, &mn);
    if (n > 2 && bits) { /* a line through the ends: offsets of equal-sized items, seq_nos */
        int64_t first = v ? v[0] : (int64_t)uv[0], last = v ? v[n - 1] : (int64_t)uv[n - 1];
        __int128 sl = ((__int128)last - first) / (__int128)(n - 1);
        int64_t mn2;
        unsigned b2 = sl >= INT64_MIN && sl <= INT64_MAX ? col_bits(v, uv, n, (int64_t)sl, &mn2) : 65;
        if (b2 < bits) bits = b2, mn = mn2, slope = (int64_t)sl;
    }
    for (uint64_t i = 0; i < n; i++)
        scratch[i] = (uint64_t)(v ? v[i] : (int64_t)uv[i]) - (uint64_t)slope * i - (uint64_t)mn;
    tv_buf_u64(o, n);
    tv_buf_u64(o, (uint64_t)mn);
    tv_buf_u64(o, (uint64_t)slope);
    uint8_t hdr[8] = {(uint8_t)bits};
    tv_buf_append(o, hdr, 8);
    tv_packed_append(o, scratch, n, bits);
    tv_buf_align8(o);
}

/* Scratch for a column: on the stack for the small columns of small
 * segments (a refresh=true write seals one document: a dozen columns of
 * one or two values, where a malloc each was measurable), else heap. */
#define COL_STACK 64

/* A column from signed values (allocates its own scratch). */
static int col_i64(tv_buf *o, const int64_t *v, uint64_t n) {
    uint64_t stack[COL_STACK];
    uint64_t *s = n <= COL_STACK ? stack : tv_malloc(n * sizeof *s);
    if (!s) return -1;
    put_col(o, v, NULL, n, s);
    if (s != stack) tv_free(s);
    return o->oom ? -1 : 0;
}
/* A column from ascending unsigned values. */
static int col_u64(tv_buf *o, const uint64_t *v, uint64_t n) {
    uint64_t stack[COL_STACK];
    uint64_t *s = n <= COL_STACK ? stack : tv_malloc(n * sizeof *s);
    if (!s) return -1;
    put_col(o, NULL, v, n, s);
    if (s != stack) tv_free(s);
    return o->oom ? -1 : 0;
}
/* A column from uint32 values (any order). */
static int col_u32(tv_buf *o, const uint32_t *v, uint64_t n) {
    int64_t stack[COL_STACK] = {0}; /* gcc cannot see that w[0..n) is filled */
    int64_t *w = n <= COL_STACK ? stack : tv_malloc(n * sizeof *w);
    if (!w) return -1;
    for (uint64_t i = 0; i < n; i++) w[i] = v[i];
    int r = col_i64(o, w, n);
    if (w != stack) tv_free(w);
    return r;
}

static void put_blob(tv_buf *o, const void *p, uint64_t n) {
    tv_buf_u64(o, n);
    tv_buf_append(o, p, (size_t)n);
    tv_buf_align8(o);
}

static void put_bits(tv_buf *o, const u64vec *v, uint32_t max_doc) {
    size_t nw = ((size_t)max_doc + 63) / 64;
    for (size_t i = 0; i < nw; i++) tv_buf_u64(o, i < v->len ? v->items[i] : 0);
}

typedef struct sec_ent {
    uint32_t kind, field;
    uint64_t off, len;
} sec_ent;
typedef TV_VEC(sec_ent) secvec;

static int sec_begin(tv_buf *o, secvec *secs, uint32_t kind, uint32_t field) {
    tv_buf_align8(o);
    sec_ent e = {kind, field, o->len, 0};
    return tv_vec_push(secs, e);
}
static void sec_end(tv_buf *o, secvec *secs) { secs->items[secs->len - 1].len = o->len - secs->items[secs->len - 1].off; }

typedef struct imp_pair {
    uint32_t freq;
    uint8_t norm;
} imp_pair;

/* Competitive (freq, norm) pairs of a block, capped, appended to o. */
static void put_impacts(tv_buf *o, const uint32_t *freqs, const uint32_t *docs, uint32_t n,
                        const bfield *f) {
    /* the best freq per norm (norms are bytes: no sort), then, by norm
     * ascending, the pairs whose freq beats every pair with a smaller or
     * equal norm (sorting the block's pairs was 8% of indexing) */
    uint8_t nv[TV_BLOCK];
    unsigned lo = 255, hi = 0;
    for (uint32_t i = 0; i < n; i++) {
        nv[i] = docs[i] < f->normv.len ? f->normv.items[docs[i]] : 0;
        if (nv[i] < lo) lo = nv[i];
        if (nv[i] > hi) hi = nv[i];
    }
    uint32_t top[256];
    for (unsigned v = lo; v <= hi; v++) top[v] = 0;
    for (uint32_t i = 0; i < n; i++)
        if (freqs[i] > top[nv[i]]) top[nv[i]] = freqs[i];
    imp_pair p[TV_BLOCK];
    uint32_t k = 0;
    for (unsigned v = lo; n && v <= hi; v++)
        if (top[v] && (k == 0 || top[v] > p[k - 1].freq)) {
            p[k].freq = top[v];
            p[k].norm = (uint8_t)v;
            k++;
        }
    while (k > TV_SEG_MAX_IMPACTS) { /* merge the closest neighbours */
        uint32_t best = 0;
        for (uint32_t i = 1; i + 1 < k; i++)
            if (p[i + 1].freq - p[i].freq < p[best + 1].freq - p[best].freq) best = i;
        p[best].freq = p[best + 1].freq;
        memmove(&p[best + 1], &p[best + 2], (k - best - 2) * sizeof p[0]);
        k--;
    }
    tv_buf_varint(o, k);
    for (uint32_t i = 0; i < k; i++) {
        tv_buf_varint(o, p[i].freq - 1);
        tv_buf_u8(o, p[i].norm);
    }
}

/* Writes one group's position deltas (a full block's docs, or the tail's)
 * to pos: chunks of up to TV_BLOCK values, each u8 bits + packed values. */
static void put_positions(tv_buf *pos, const uint32_t *v, size_t n) {
    uint8_t packed[16 * 32];
    for (size_t c = 0; c < n; c += TV_BLOCK) {
        size_t m = TV_MIN(n - c, (size_t)TV_BLOCK);
        uint32_t any = 0;
        for (size_t k = 0; k < m; k++) any |= v[c + k];
        unsigned bits = tv_bits_needed32(any);
        tv_buf_u8(pos, (uint8_t)bits);
        tv_buf_append(pos, packed, tv_bitpack32(v + c, m, bits, packed));
    }
}

/* Writes one term's postings (to post, with positions to pos; pvals is
 * scratch for one group's position deltas). */
static int write_postings(const bfield *f, const bterm *t, tv_buf *post, tv_buf *pos, tv_buf *data,
                          u32vec *skips, u32vec *pvals) {
    bool freqs = f->index_options >= TV_IO_FREQS, positions = f->index_options >= TV_IO_POSITIONS;
    uint32_t nb = t->df / TV_BLOCK;
    uint64_t pos_base = pos->len;
    tv_buf_clear(data);
    skips->len = 0;
    pvals->len = 0;
    uint32_t docs[TV_BLOCK], fr[TV_BLOCK], gaps[TV_BLOCK];
    uint32_t n = 0, blk = 0, block_pos_off = 0;
    int64_t prev = -1;
    const uint8_t *p = t->p, *end = t->p + t->len;
    uint32_t tail_off = 0, tail_pos_off = 0;
    for (uint32_t i = 0; i < t->df; i++) {
        uint64_t doc, freq;
        p = tv_vget(p, end, &doc);
        if (p) p = tv_vget(p, end, &freq);
        if (!p) return -1;
        if (n == 0 && blk < nb) block_pos_off = (uint32_t)(pos->len - pos_base);
        if (i == nb * TV_BLOCK) {
            tail_off = (uint32_t)data->len;
            tail_pos_off = (uint32_t)(pos->len - pos_base);
        }
        if (positions) {
            for (uint64_t k = 0; k < freq; k++) {
                uint64_t dl;
                p = tv_vget(p, end, &dl);
                if (!p || tv_vec_push(pvals, (uint32_t)dl)) return -1;
            }
        }
        if (blk < nb) {
            docs[n] = (uint32_t)doc;
            fr[n] = (uint32_t)freq;
            gaps[n] = (uint32_t)((int64_t)doc - prev - 1);
            prev = (int64_t)doc;
            if (++n == TV_BLOCK) {
                uint32_t ent[3] = {docs[TV_BLOCK - 1], (uint32_t)data->len, block_pos_off};
                for (int k = 0; k < 3; k++)
                    if (tv_vec_push(skips, ent[k])) return -1;
                unsigned bits = 0;
                for (int k = 0; k < TV_BLOCK; k++) bits |= gaps[k];
                bits = tv_bits_needed32(bits);
                uint8_t packed[16 * 32];
                tv_buf_u8(data, (uint8_t)bits);
                tv_bp128_pack(gaps, bits, packed);
                tv_buf_append(data, packed, 16 * bits);
                if (freqs) {
                    unsigned fb = 0;
                    for (int k = 0; k < TV_BLOCK; k++) {
                        gaps[k] = fr[k] - 1;
                        fb |= gaps[k];
                    }
                    fb = tv_bits_needed32(fb);
                    tv_buf_u8(data, (uint8_t)fb);
                    tv_bp128_pack(gaps, fb, packed);
                    tv_buf_append(data, packed, 16 * fb);
                } else {
                    for (int k = 0; k < TV_BLOCK; k++) fr[k] = 1;
                }
                put_impacts(data, fr, docs, TV_BLOCK, f);
                put_positions(pos, pvals->items, pvals->len);
                pvals->len = 0;
                n = 0;
                blk++;
            }
        } else {
            uint64_t gap = (uint64_t)((int64_t)doc - prev - 1);
            prev = (int64_t)doc;
            if (freqs) {
                tv_buf_varint(data, gap << 1 | (freq == 1));
                if (freq != 1) tv_buf_varint(data, freq);
            } else {
                tv_buf_varint(data, gap);
            }
        }
    }
    put_positions(pos, pvals->items, pvals->len); /* the tail's */
    if (nb) {
        tv_buf_u32(post, nb * TV_BLOCK == t->df ? (uint32_t)data->len : tail_off);
        tv_buf_u32(post, nb * TV_BLOCK == t->df ? (uint32_t)(pos->len - pos_base) : tail_pos_off);
        tv_buf_append(post, skips->items, skips->len * sizeof(uint32_t));
    }
    tv_buf_append(post, data->data, data->len);
    return (post->oom || pos->oom || data->oom) ? -1 : 0;
}

static int cmp_bterm(const void *a, const void *b) {
    const bterm *x = *(const bterm *const *)a, *y = *(const bterm *const *)b;
    return tv_memcmp2(x->key, x->key_len, y->key, y->key_len);
}

static int write_terms(tv_segment_builder *b, bfield *f, tv_buf *o, secvec *secs) {
    static const uint8_t zero[TV_CODEC_PAD];
    size_t nt = f->tlist.len;
    sort_n(f->tlist.items, nt, sizeof(bterm *), cmp_bterm);
    bool freqs = f->index_options >= TV_IO_FREQS, positions = f->index_options >= TV_IO_POSITIONS;
    tv_buf post, pos, blocks, data;
    tv_buf_init(&post);
    tv_buf_init(&pos);
    tv_buf_init(&blocks);
    tv_buf_init(&data);
    u32vec boffs = {0}, skips = {0}, pvals = {0};
    int rc = -1;
    uint64_t sum_df = 0, sum_ttf = 0;
    uint32_t max_len = 0;
    const bterm *prevt = NULL;
    uint64_t prev_post = 0, prev_pos = 0;
    for (size_t i = 0; i < nt; i++) {
        const bterm *t = f->tlist.items[i];
        uint64_t poff = post.len, ppos = pos.len;
        if (write_postings(f, t, &post, &pos, &data, &skips, &pvals)) goto out;
        uint64_t ttf = freqs ? t->ttf : t->df;
        sum_df += t->df;
        sum_ttf += ttf;
        if (t->key_len > max_len) max_len = t->key_len;
        bool first = (i % TV_SEG_TERMS_PER_BLOCK) == 0;
        if (first) {
            if (blocks.len > UINT32_MAX || tv_vec_push(&boffs, (uint32_t)blocks.len)) goto out;
            tv_buf_varint(&blocks, TV_MIN(nt - i, (size_t)TV_SEG_TERMS_PER_BLOCK));
        }
        uint32_t prefix = 0;
        if (!first) {
            uint32_t m = TV_MIN(prevt->key_len, t->key_len);
            while (prefix < m && prevt->key[prefix] == t->key[prefix]) prefix++;
        }
        tv_buf_varint(&blocks, prefix);
        tv_buf_varint(&blocks, t->key_len - prefix);
        tv_buf_append(&blocks, t->key + prefix, t->key_len - prefix);
        tv_buf_varint(&blocks, t->df);
        if (freqs) tv_buf_varint(&blocks, ttf - t->df);
        tv_buf_varint(&blocks, first ? poff : poff - prev_post);
        if (positions) tv_buf_varint(&blocks, first ? ppos : ppos - prev_pos);
        prev_post = poff;
        prev_pos = ppos;
        prevt = t;
    }
    tv_buf_append(&post, zero, TV_CODEC_PAD);
    if (positions) tv_buf_append(&pos, zero, TV_CODEC_PAD);
    uint32_t doc_count = 0;
    for (size_t w = 0; w < f->has_terms.len; w++) doc_count += (uint32_t)__builtin_popcountll(f->has_terms.items[w]);
    /* TERMS */
    if (sec_begin(o, secs, TV_SEC_TERMS, f->id)) goto out;
    tv_buf_u32(o, (uint32_t)nt);
    tv_buf_u32(o, (uint32_t)boffs.len);
    tv_buf_u32(o, doc_count);
    tv_buf_u32(o, max_len);
    tv_buf_u64(o, sum_ttf);
    tv_buf_u64(o, sum_df);
    uint8_t hdr[8] = {f->index_options};
    tv_buf_append(o, hdr, 8);
    tv_buf_append(o, boffs.items, boffs.len * 4);
    tv_buf_align8(o);
    tv_buf_append(o, blocks.data, blocks.len);
    sec_end(o, secs);
    if (sec_begin(o, secs, TV_SEC_POSTINGS, f->id)) goto out;
    tv_buf_append(o, post.data, post.len);
    sec_end(o, secs);
    if (positions) {
        if (sec_begin(o, secs, TV_SEC_POSITIONS, f->id)) goto out;
        tv_buf_append(o, pos.data, pos.len);
        sec_end(o, secs);
    }
    rc = (o->oom || post.oom || pos.oom || blocks.oom) ? -1 : 0;
out:
    tv_buf_fini(&post);
    tv_buf_fini(&pos);
    tv_buf_fini(&blocks);
    tv_buf_fini(&data);
    tv_vec_fini(&boffs);
    tv_vec_fini(&skips);
    tv_vec_fini(&pvals);
    return rc;
}

/* Per-doc offsets (max_doc+1, cumulative counts) from ascending doc list. */
static uint64_t *doc_offsets(const uint32_t *docs, size_t n, uint32_t max_doc, bool *single) {
    uint64_t *offs = tv_calloc((size_t)max_doc + 1, sizeof *offs);
    if (!offs) return NULL;
    for (size_t i = 0; i < n; i++) offs[docs[i] + 1]++;
    *single = true;
    for (uint32_t d = 0; d < max_doc; d++) {
        if (offs[d + 1] != 1) *single = false;
        offs[d + 1] += offs[d];
    }
    return offs;
}

typedef struct ptpair {
    int64_t v;
    uint32_t doc;
} ptpair;
static int cmp_pt(const void *a, const void *b) {
    const ptpair *x = a, *y = b;
    if (x->v != y->v) return x->v < y->v ? -1 : 1;
    return (x->doc > y->doc) - (x->doc < y->doc);
}

typedef struct kref {
    const bterm *k;
    uint32_t id;
} kref;
static int cmp_kref(const void *a, const void *b) {
    const kref *x = a, *y = b;
    return tv_memcmp2(x->k->key, x->k->key_len, y->k->key, y->k->key_len);
}

static int write_field(tv_segment_builder *b, bfield *f, tv_buf *o, secvec *secs) {
    uint32_t max_doc = b->ndocs;
    uint64_t limit = (uint64_t)TV_SEG_MAX_VALUES_PER_DOC * max_doc;
    if (f->pt_vals.len > limit || f->dvn_vals.len > limit || f->dvs_docs.len > limit) {
        b->err = TROVE_ELIMIT;
        return -1;
    }
    if (f->tlist.len && write_terms(b, f, o, secs)) return -1;
    if (f->norms) {
        if (sec_begin(o, secs, TV_SEC_NORMS, f->id)) return -1;
        size_t have = TV_MIN(f->normv.len, (size_t)max_doc);
        tv_buf_append(o, f->normv.items, have);
        for (size_t i = have; i < max_doc; i++) tv_buf_u8(o, 0);
        sec_end(o, secs);
    }
    if (f->dvn && f->dvn_vals.len) {
        bool single;
        uint64_t *offs = doc_offsets(f->dvn_docs.items, f->dvn_docs.len, max_doc, &single);
        if (!offs) return -1;
        int r = sec_begin(o, secs, TV_SEC_DV_NUMERIC, f->id);
        uint8_t hdr[8] = {single ? 0 : 1};
        tv_buf_append(o, hdr, 8);
        if (!r && !single) r = col_u64(o, offs, (uint64_t)max_doc + 1);
        tv_free(offs);
        if (r || col_i64(o, f->dvn_vals.items, f->dvn_vals.len)) return -1;
        sec_end(o, secs);
    }
    if (f->dvs && f->klist.len) {
        size_t nk = f->klist.len;
        kref *kr = tv_malloc(nk * sizeof *kr);
        uint32_t *ord_of = tv_malloc(nk * sizeof *ord_of);
        uint64_t *toffs = tv_malloc((nk + 1) * sizeof *toffs);
        int r = (kr && ord_of && toffs) ? 0 : -1;
        tv_buf blob;
        tv_buf_init(&blob);
        if (!r) {
            for (size_t i = 0; i < nk; i++) kr[i] = (kref){f->klist.items[i], (uint32_t)i};
            sort_n(kr, nk, sizeof *kr, cmp_kref);
            toffs[0] = 0;
            for (size_t i = 0; i < nk; i++) {
                ord_of[kr[i].id] = (uint32_t)i;
                tv_buf_append(&blob, kr[i].k->key, kr[i].k->key_len);
                toffs[i + 1] = blob.len;
            }
            /* per doc: ords sorted, distinct */
            size_t n = f->dvs_docs.len;
            uint32_t *ords = tv_malloc((n ? n : 1) * sizeof *ords);
            uint32_t *docs = tv_malloc((n ? n : 1) * sizeof *docs);
            if (!ords || !docs) r = -1;
            size_t m = 0;
            for (size_t i = 0; !r && i < n;) {
                size_t j = i;
                while (j < n && f->dvs_docs.items[j] == f->dvs_docs.items[i]) j++;
                size_t s = m;
                for (size_t k = i; k < j; k++) {
                    uint32_t ord = ord_of[f->dvs_keys.items[k]];
                    size_t q = m;
                    while (q > s && ords[q - 1] > ord) q--;
                    if (q > s && ords[q - 1] == ord) continue;
                    memmove(&ords[q + 1], &ords[q], (m - q) * sizeof *ords);
                    ords[q] = ord;
                    m++;
                }
                for (size_t k = s; k < m; k++) docs[k] = f->dvs_docs.items[i];
                i = j;
            }
            bool single = false;
            uint64_t *offs = r ? NULL : doc_offsets(docs, m, max_doc, &single);
            if (!offs) r = -1;
            if (!r) r = sec_begin(o, secs, TV_SEC_DV_SORTED, f->id);
            if (!r) {
                tv_buf_u32(o, (uint32_t)nk);
                uint8_t hdr[4] = {single ? 0 : 1};
                tv_buf_append(o, hdr, 4);
                r = col_u64(o, toffs, nk + 1);
                put_blob(o, blob.data, blob.len);
                if (!r && !single) r = col_u64(o, offs, (uint64_t)max_doc + 1);
                if (!r) r = col_u32(o, ords, m);
                sec_end(o, secs);
            }
            tv_free(offs);
            tv_free(ords);
            tv_free(docs);
        }
        if (blob.oom) r = -1;
        tv_buf_fini(&blob);
        tv_free(kr);
        tv_free(ord_of);
        tv_free(toffs);
        if (r) return -1;
    }
    if (f->pt_vals.len) {
        size_t n = f->pt_vals.len;
        ptpair *pp = tv_malloc(n * sizeof *pp);
        int64_t *vals = tv_malloc(n * sizeof *vals);
        uint32_t *docs = tv_malloc(n * sizeof *docs);
        int r = (pp && vals && docs) ? 0 : -1;
        if (!r) {
            for (size_t i = 0; i < n; i++) pp[i] = (ptpair){f->pt_vals.items[i], f->pt_docs.items[i]};
            sort_n(pp, n, sizeof *pp, cmp_pt);
            for (size_t i = 0; i < n; i++) {
                vals[i] = pp[i].v;
                docs[i] = pp[i].doc;
            }
            r = sec_begin(o, secs, TV_SEC_POINTS, f->id);
            if (!r) r = col_i64(o, vals, n);
            if (!r) r = col_u32(o, docs, n);
            sec_end(o, secs);
        }
        tv_free(pp);
        tv_free(vals);
        tv_free(docs);
        if (r) return -1;
    }
    if (f->id != TV_FIELD_ID) {
        uint32_t count = 0;
        for (size_t w = 0; w < f->has_any.len; w++) count += (uint32_t)__builtin_popcountll(f->has_any.items[w]);
        if (count) {
            if (sec_begin(o, secs, TV_SEC_FIELD_DOCS, f->id)) return -1;
            bool bitset = (uint64_t)count * tv_bits_needed32(max_doc) > max_doc;
            tv_buf_u32(o, count);
            uint8_t hdr[4] = {bitset ? 1 : 0};
            tv_buf_append(o, hdr, 4);
            if (bitset) {
                put_bits(o, &f->has_any, max_doc);
            } else {
                uint32_t *docs = tv_malloc(count * sizeof *docs);
                if (!docs) return -1;
                uint32_t k = 0;
                for (uint32_t d = 0; d < max_doc; d++)
                    if (bits_get(&f->has_any, d)) docs[k++] = d;
                int r = col_u32(o, docs, k);
                tv_free(docs);
                if (r) return -1;
            }
            sec_end(o, secs);
        }
    }
    return o->oom ? -1 : 0;
}

/* The _ids of META: block offsets and the front-coded blob (format above). */
static int put_ids(const tv_segment_builder *b, tv_buf *o) {
    uint32_t max_doc = b->ndocs, nblk = (max_doc + TV_SEG_ID_BLOCK - 1) / TV_SEG_ID_BLOCK;
    u64vec offs = {0};
    tv_buf blob;
    tv_buf_init(&blob);
    const char *ids = b->ids.data;
    for (uint32_t d = 0; d < max_doc; d++) {
        const char *id = ids + b->id_offs.items[d];
        size_t len = (size_t)(b->id_offs.items[d + 1] - b->id_offs.items[d]), pre = 0;
        if (d % TV_SEG_ID_BLOCK == 0) {
            if (tv_vec_push(&offs, blob.len)) goto oom;
        } else {
            const char *prev = ids + b->id_offs.items[d - 1];
            size_t plen = (size_t)(b->id_offs.items[d] - b->id_offs.items[d - 1]);
            while (pre < len && pre < plen && prev[pre] == id[pre]) pre++;
        }
        tv_buf_varint(&blob, pre);
        tv_buf_varint(&blob, len - pre);
        tv_buf_append(&blob, id + pre, len - pre);
    }
    if (tv_vec_push(&offs, blob.len) || blob.oom || offs.len != (size_t)nblk + 1) goto oom;
    int rc = col_u64(o, offs.items, offs.len);
    put_blob(o, blob.data, blob.len);
    tv_vec_fini(&offs);
    tv_buf_fini(&blob);
    return rc || o->oom ? -1 : 0;
oom:
    tv_vec_fini(&offs);
    tv_buf_fini(&blob);
    return -1;
}

static int cmp_sec(const void *a, const void *b) {
    const sec_ent *x = a, *y = b;
    if (x->field != y->field) return x->field < y->field ? -1 : 1;
    return (x->kind > y->kind) - (x->kind < y->kind);
}

static tv_status serialise(tv_segment_builder *b, tv_segment **out) {
    tv_buf o;
    tv_buf_init(&o);
    secvec secs = {0};
    uint32_t max_doc = b->ndocs;
    static const uint8_t hdr0[TV_SEG_HEADER];
    tv_buf_append(&o, hdr0, sizeof hdr0);
    /* META */
    if (sec_begin(&o, &secs, TV_SEC_META, 0)) goto oom;
    if (col_i64(&o, b->version.items, max_doc) || col_i64(&o, b->seq.items, max_doc) ||
        col_i64(&o, b->pterm.items, max_doc) || put_ids(b, &o))
        goto oom;
    if (col_u64(&o, b->rt_offs.items, (uint64_t)max_doc + 1)) goto oom;
    put_blob(&o, b->rts.data, b->rts.len);
    put_bits(&o, &b->has_rt, max_doc);
    sec_end(&o, &secs);
    /* SOURCE */
    if (flush_chunk(b)) goto oom;
    if (sec_begin(&o, &secs, TV_SEC_SOURCE, 0)) goto oom;
    tv_buf_u32(&o, (uint32_t)b->chunks.len);
    tv_buf_u32(&o, 0);
    put_bits(&o, &b->has_src, max_doc);
    if (col_u64(&o, b->src_offs.items, (uint64_t)max_doc + 1)) goto oom;
    for (size_t i = 0; i < b->chunks.len; i++) {
        const chunk_ent *c = &b->chunks.items[i];
        tv_buf_u32(&o, c->first_doc);
        tv_buf_u32(&o, c->ndocs);
        tv_buf_u64(&o, c->raw_start);
        tv_buf_u64(&o, c->comp_off);
        tv_buf_u32(&o, c->raw_len);
        tv_buf_u32(&o, c->comp_len);
    }
    put_blob(&o, b->comp.data, b->comp.len);
    sec_end(&o, &secs);
    /* NESTED, when some doc is nested */
    if (b->nest.len) {
        if (b->nest.len != max_doc || sec_begin(&o, &secs, TV_SEC_NESTED, 0) ||
            col_u32(&o, b->nest.items, max_doc))
            goto oom;
        sec_end(&o, &secs);
    }
    for (size_t i = 0; i < b->fields.len; i++)
        if (write_field(b, b->fields.items[i], &o, &secs)) goto oom;
    tv_buf_align8(&o);
    if (o.oom) goto oom;
    /* the section table goes after the header: shift the sections */
    sort_n(secs.items, secs.len, sizeof *secs.items, cmp_sec);
    size_t tbl = secs.len * TV_SEG_SECTION;
    if (!tv_buf_reserve(&o, tbl)) goto oom;
    memmove(o.data + TV_SEG_HEADER + tbl, o.data + TV_SEG_HEADER, o.len - TV_SEG_HEADER);
    o.len += tbl;
    uint8_t *base = (uint8_t *)o.data;
    for (size_t i = 0; i < secs.len; i++) {
        uint8_t *e = base + TV_SEG_HEADER + i * TV_SEG_SECTION;
        sec_ent *s = &secs.items[i];
        s->off += tbl;
        tv_st32(e, s->kind);
        tv_st32(e + 4, s->field);
        tv_st64(e + 8, s->off);
        tv_st64(e + 16, s->len);
        tv_st32(e + 24, tv_checksum32(base + s->off, (size_t)s->len));
        tv_st32(e + 28, 0);
    }
    memcpy(base, TV_SEG_MAGIC, 8);
    tv_st32(base + 8, TV_SEG_VERSION);
    tv_st32(base + 12, max_doc);
    tv_st32(base + 16, (uint32_t)secs.len);
    tv_st32(base + 20, 0);
    tv_st32(base + 24, tv_checksum32(base + TV_SEG_HEADER, tbl));
    tv_st32(base + 28, tv_checksum32(base, 28));
    tv_vec_fini(&secs);
    size_t len;
    char *bytes = tv_buf_detach(&o, &len);
    if (!bytes) return TROVE_ENOMEM;
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_segment_open_owned((uint8_t *)bytes, len, false, out, &err);
    return st == TROVE_ECORRUPT ? TROVE_EINTERNAL : st;
oom:
    tv_vec_fini(&secs);
    tv_buf_fini(&o);
    return b->err ? b->err : TROVE_ENOMEM;
}

tv_status tv_segment_builder_finish(tv_segment_builder *b, tv_segment **out) {
    *out = NULL;
    tv_status st = b->err;
    if (!st && b->ndocs) st = serialise(b, out);
    builder_reset(b);
    return st;
}

/* ------------------------------------------------------------------ merge */

static int merge_field(tv_segment_builder *b, const tv_segment *s, const tv_segfield *sf,
                       const uint32_t *map, tv_arena *arena) {
    uint32_t max_doc = s->max_doc;
    bfield *f = get_field(b, sf->id, sf->terms ? sf->index_options : TV_IO_DOCS);
    if (!f) return -1;
    if (sf->terms) {
        if (f->tlist.len == 0) f->index_options = sf->index_options;
        tv_terms_iter *it = tv_terms_iter_new(s, sf->id, arena);
        if (!it) return -1; /* the field has terms: out of memory */
        const char *term;
        size_t tlen;
        tv_term_state st;
        u32vec deltas = {0};
        bool want_pos = f->index_options >= TV_IO_POSITIONS;
        while (tv_terms_iter_next(it, &term, &tlen, &st)) {
            bterm *t = NULL;
            tv_postings *p = tv_postings_open(s, sf->id, &st, want_pos ? TV_POST_POSITIONS | TV_POST_FREQS : TV_POST_FREQS, arena);
            if (!p) goto fail;
            for (uint32_t d = tv_postings_next(p); d != TV_NO_MORE_DOCS; d = tv_postings_next(p)) {
                if (map[d] == UINT32_MAX) continue;
                if (!t && !(t = get_term(b, f, term, tlen))) goto fail;
                uint32_t freq = tv_postings_freq(p);
                if (want_pos) {
                    if (tv_vec_reserve(&deltas, freq)) goto fail;
                    uint32_t prev = 0;
                    bool have = sf->index_options >= TV_IO_POSITIONS;
                    for (uint32_t k = 0; k < freq; k++) {
                        uint32_t ps = have ? tv_postings_next_pos(p) : 0;
                        deltas.items[k] = ps - prev;
                        prev = ps;
                    }
                }
                if (add_posting(f, t, map[d], freq, want_pos ? deltas.items : NULL)) goto fail;
            }
            continue;
        fail:
            tv_vec_fini(&deltas);
            return -1;
        }
        tv_vec_fini(&deltas);
    }
    if (sf->norms) {
        f->norms = true;
        for (uint32_t d = 0; d < max_doc; d++)
            if (map[d] != UINT32_MAX && set_norm(f, map[d], sf->norms[d])) return -1;
    }
    if (sf->has_dvn) {
        f->dvn = true;
        int64_t tmp[16];
        for (uint32_t d = 0; d < max_doc; d++) {
            if (map[d] == UINT32_MAX) continue;
            uint32_t n = tv_segment_dv_numeric(s, sf->id, d, tmp, 16);
            int64_t *v = tmp;
            if (n > 16) {
                v = tv_arena_alloc(arena, n * sizeof *v);
                if (!v) return -1;
                n = tv_segment_dv_numeric(s, sf->id, d, v, n);
            }
            for (uint32_t i = 0; i < n; i++)
                if (tv_vec_push(&f->dvn_vals, v[i]) || tv_vec_push(&f->dvn_docs, map[d])) return -1;
        }
    }
    if (sf->has_dvs) {
        f->dvs = true;
        uint32_t tmp[16];
        for (uint32_t d = 0; d < max_doc; d++) {
            if (map[d] == UINT32_MAX) continue;
            uint32_t n = tv_segment_dv_ords(s, sf->id, d, tmp, 16);
            uint32_t *v = tmp;
            if (n > 16) {
                v = tv_arena_alloc(arena, n * sizeof *v);
                if (!v) return -1;
                n = tv_segment_dv_ords(s, sf->id, d, v, n);
            }
            for (uint32_t i = 0; i < n; i++) {
                const char *k;
                size_t kl;
                if (!tv_segment_dv_term(s, sf->id, v[i], &k, &kl)) continue;
                if (add_key(b, f, map[d], k, kl)) return -1;
            }
        }
    }
    if (sf->has_points) {
        for (uint64_t i = 0; i < sf->pt_vals.n; i++) {
            uint64_t d = (uint64_t)tv_col_get(&sf->pt_docs, i);
            if (d >= max_doc || map[d] == UINT32_MAX) continue;
            if (tv_vec_push(&f->pt_vals, tv_col_get(&sf->pt_vals, i)) ||
                tv_vec_push(&f->pt_docs, map[d]))
                return -1;
        }
    }
    if (sf->has_fdocs) {
        tv_postings *p = tv_postings_field_docs(s, sf->id, arena);
        if (!p) return -1;
        for (uint32_t d = tv_postings_next(p); d != TV_NO_MORE_DOCS; d = tv_postings_next(p))
            if (map[d] != UINT32_MAX && bits_set(&f->has_any, map[d])) return -1;
    }
    return 0;
}

static tv_status merge_view(tv_segment_builder *b, const tv_segview *v) {
    const tv_segment *s = v->seg;
    uint32_t max_doc = s->max_doc;
    tv_status st = TROVE_ENOMEM;
    uint32_t *map = tv_malloc(((size_t)max_doc + 1) * sizeof *map);
    uint64_t *keep = NULL;
    char *chunk = NULL;
    size_t chunk_cap = 0;
    tv_arena arena;
    tv_arena_init(&arena);
    if (!map) goto out;
    for (uint32_t d = 0; d < max_doc; d++) map[d] = UINT32_MAX;
    /* the docs kept: live roots with their nested docs (a block is kept
     * or dropped whole; the view's live bits are set on roots only) */
    if (s->has_nest) {
        if (!(keep = tv_calloc(((size_t)max_doc + 63) / 64, sizeof *keep))) goto out;
        bool cur = false;
        for (uint32_t d = max_doc; d-- > 0;) {
            if (tv_segment_nest(s, d) == 0) cur = tv_segview_live(v, d);
            if (cur) keep[d >> 6] |= 1ull << (d & 63);
        }
    }
#define KEPT(d) (keep ? (keep[(d) >> 6] >> ((d) & 63)) & 1 : tv_segview_live(v, (d)))
    /* stored fields, a chunk at a time */
    for (uint32_t c = 0; c < s->nchunks; c++) {
        const uint8_t *e = s->s_chunks + (size_t)c * 32;
        uint32_t first = tv_ld32(e), nd = tv_ld32(e + 4);
        uint64_t raw_start = tv_ld64(e + 8), comp_off = tv_ld64(e + 16);
        uint32_t raw_len = tv_ld32(e + 24), comp_len = tv_ld32(e + 28);
        if ((uint64_t)first + nd > max_doc || comp_off > s->s_comp_len ||
            comp_len > s->s_comp_len - comp_off) {
            st = TROVE_ECORRUPT;
            goto out;
        }
        bool any = false;
        for (uint32_t d = first; d < first + nd; d++) any |= KEPT(d);
        if (!any) continue;
        if (raw_len + 1 > chunk_cap) {
            tv_free(chunk);
            chunk_cap = (size_t)raw_len + 1;
            if (!(chunk = tv_malloc(chunk_cap))) goto out;
        }
        if (raw_len && LZ4_decompress_safe((const char *)s->s_comp + comp_off, chunk, (int)comp_len,
                                           (int)raw_len) != (int)raw_len) {
            st = TROVE_ECORRUPT;
            goto out;
        }
        for (uint32_t d = first; d < first + nd; d++) {
            if (!KEPT(d)) continue;
            tv_doc_meta meta;
            tv_arena_reset(&arena);
            st = tv_segment_doc(s, d, &arena, &meta, NULL, NULL);
            if (st) goto out;
            st = TROVE_ENOMEM;
            const char *src = NULL;
            size_t slen = 0;
            if ((s->s_has_src[d >> 3] >> (d & 7)) & 1) {
                uint64_t a = (uint64_t)tv_col_get(&s->s_offs, d), z = (uint64_t)tv_col_get(&s->s_offs, d + 1);
                if (a < raw_start || z < a || z - raw_start > raw_len) {
                    st = TROVE_ECORRUPT;
                    goto out;
                }
                src = chunk + (a - raw_start);
                slen = (size_t)(z - a);
            }
            if (b->ndocs >= TV_SEG_MAX_DOCS) {
                st = TROVE_ELIMIT;
                goto out;
            }
            map[d] = b->ndocs;
            if (add_stored(b, &meta, src, slen) || add_nest(b, tv_segment_nest(s, d)) || after_stored(b))
                goto out;
        }
    }
    for (uint32_t i = 0; i < s->nfields; i++) {
        tv_arena_reset(&arena);
        if (merge_field(b, s, &s->fields[i], map, &arena)) goto out;
    }
    st = TROVE_OK;
out:
#undef KEPT
    tv_free(keep);
    tv_free(map);
    tv_free(chunk);
    tv_arena_fini(&arena);
    return st;
}

tv_status tv_segment_merge(const tv_segview *views, size_t n, tv_segment **out) {
    *out = NULL;
    tv_segment_builder *b = tv_segment_builder_new();
    if (!b) return TROVE_ENOMEM;
    tv_status st = TROVE_OK;
    for (size_t i = 0; i < n && !st; i++) st = merge_view(b, &views[i]);
    if (!st) st = tv_segment_builder_finish(b, out);
    tv_segment_builder_free(b);
    return st;
}
