/*
 * segment.c — the segment reader: opening (parsing and validating) the one
 * contiguous byte layout written by segment_build.c (the format is
 * specified there), and every read call of index.h's "segments" section:
 * field statistics, exact term lookup, term enumeration with seek, postings
 * iterators (next / advance / freq / positions / impacts), field-docs
 * iterators, norms, doc values, points and stored documents.
 *
 * Trust model: the bytes are untrusted (an mmap'd file tomorrow). Open
 * verifies the header, the section table and every section's xxh32, then
 * parses each section's fixed structure (headers, columns, tables) with
 * bounds checks, so that the pointers kept in tv_segment only reach bytes of
 * their section. What open does not walk (term blocks, postings blocks,
 * position streams, per-doc offsets) is checked when it is decoded: a
 * malformed term block ends the enumeration, a malformed postings block
 * ends the iterator (docs are always strictly ascending and < max_doc, by
 * construction of the gap coding plus a check of each block's last doc
 * against its skip entry), and stored documents give TROVE_ECORRUPT.
 *
 * Postings hot path: the iterator is a plain struct; a block of 128 doc
 * gaps (and freqs, only when asked) is unpacked at once into small arrays
 * and prefix-summed; next() is an index increment; advance() first scans
 * the decoded block, else searches the skip entries (last doc per block) by
 * galloping from the current block and decodes only the target block.
 * Positions are decoded lazily: the iterator remembers which doc of the
 * block the position stream is at; the docs passed by are skipped by
 * arithmetic (a chunk's size follows from its bit width and the block's
 * freqs), and only the current doc's values are unpacked, one shift and
 * mask each. Packed chunks replaced varints in format 2: 8% smaller on
 * English text and no per-byte scan to skip a doc.
 *
 * Exact term lookup needs no buffer: within a prefix-compressed block it
 * tracks m, the bytes the previous term shares with the target, and decides
 * each term from its prefix length alone unless the prefix equals m.
 */
#include <lz4.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "index/segment_int.h"
#include "store/store.h"

static _Atomic uint64_t next_segment_id = 1;

static inline bool bit_get(const uint8_t *words, uint32_t i) { return (words[i >> 3] >> (i & 7)) & 1; }

/* ------------------------------------------------------------- refcounting */

tv_segment *tv_segment_retain(const tv_segment *s) {
    tv_segment *m = (tv_segment *)s;
    if (m) atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
    return m;
}

void tv_segment_release(const tv_segment *s) {
    tv_segment *m = (tv_segment *)s;
    if (!m) return;
    if (atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) != 1) return;
    tv_free(m->fields);
    tv_free(m->roots);
    tv_free(atomic_load(&m->idf));
    for (uint32_t i = 0; i < m->nnest; i++) tv_free(atomic_load(&m->nest_docs[i]));
    tv_free(m->nest_docs);
    tv_free(m->nest_vals);
    if (m->mapped) tv_store_unmap(m->bytes, m->len);
    else tv_free(m->bytes);
    tv_free(m);
}

uint32_t tv_segment_max_doc(const tv_segment *s) { return s->max_doc; }
uint64_t tv_segment_id(const tv_segment *s) { return s->id; }
size_t tv_segment_bytes(const tv_segment *s) { return s->len; }
const void *tv_segment_bytes_ptr(const tv_segment *s, size_t *len) {
    if (len) *len = s->len;
    return s->bytes;
}

const tv_segfield *tv_segment_field(const tv_segment *s, uint32_t field) {
    uint32_t lo = 0, hi = s->nfields;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (s->fields[mid].id < field) lo = mid + 1;
        else hi = mid;
    }
    return lo < s->nfields && s->fields[lo].id == field ? &s->fields[lo] : NULL;
}

/* -------------------------------------------------------------------- open */

typedef struct rd {
    const uint8_t *base, *p, *end;
    bool bad;
} rd;

static bool rd_need(rd *r, uint64_t n) {
    if (r->bad || (uint64_t)(r->end - r->p) < n) {
        r->bad = true;
        return false;
    }
    return true;
}
static uint32_t rd_u32(rd *r) {
    if (!rd_need(r, 4)) return 0;
    uint32_t v = tv_ld32(r->p);
    r->p += 4;
    return v;
}
static uint64_t rd_u64(rd *r) {
    if (!rd_need(r, 8)) return 0;
    uint64_t v = tv_ld64(r->p);
    r->p += 8;
    return v;
}
static const uint8_t *rd_bytes(rd *r, uint64_t n) {
    if (!rd_need(r, n)) return NULL;
    const uint8_t *q = r->p;
    r->p += n;
    return q;
}
static void rd_align(rd *r) {
    size_t off = (size_t)(r->p - r->base);
    if (off & 7) rd_bytes(r, 8 - (off & 7));
}
/* A column; expect_n == UINT64_MAX accepts any count. */
static void rd_col(rd *r, tv_col *c, uint64_t expect_n) {
    c->n = rd_u64(r);
    c->min = (int64_t)rd_u64(r);
    c->slope = (int64_t)rd_u64(r);
    const uint8_t *h = rd_bytes(r, 8);
    if (r->bad) return;
    c->bits = h[0];
    if (c->bits > 64 || (expect_n != UINT64_MAX && c->n != expect_n) || c->n > (1ull << 40)) {
        r->bad = true;
        return;
    }
    c->data = rd_bytes(r, tv_packed_bytes(c->n, c->bits) + TV_CODEC_PAD);
    rd_align(r);
}
static void rd_blob(rd *r, const uint8_t **p, uint64_t *n) {
    *n = rd_u64(r);
    *p = rd_bytes(r, *n);
    rd_align(r);
}
static const uint8_t *rd_bits(rd *r, uint32_t max_doc) {
    return rd_bytes(r, (((uint64_t)max_doc + 63) / 64) * 8);
}

/* Offsets columns must start at 0 and end at the blob length they index;
 * intermediate values are checked on access. */
static bool offs_ok(const tv_col *c, uint64_t total) {
    return c->n >= 1 && tv_col_get(c, 0) == 0 && (uint64_t)tv_col_get(c, c->n - 1) == total;
}

static bool parse_meta(tv_segment *s, rd *r) {
    uint32_t md = s->max_doc;
    rd_col(r, &s->m_version, md);
    rd_col(r, &s->m_seq, md);
    rd_col(r, &s->m_term, md);
    rd_col(r, &s->m_id_blocks, ((uint64_t)md + TV_SEG_ID_BLOCK - 1) / TV_SEG_ID_BLOCK + 1);
    rd_blob(r, &s->m_id_blob, &s->m_id_blob_len);
    rd_col(r, &s->m_rt_offs, (uint64_t)md + 1);
    rd_blob(r, &s->m_rt_blob, &s->m_rt_blob_len);
    s->m_has_rt = rd_bits(r, md);
    return !r->bad && offs_ok(&s->m_id_blocks, s->m_id_blob_len) &&
           offs_ok(&s->m_rt_offs, s->m_rt_blob_len);
}

/* NESTED: the column, whose last doc must be a root (a block ends with
 * its root) and whose values fit a u32; the root bitset is built here. */
static bool parse_nested(tv_segment *s, rd *r) {
    uint32_t md = s->max_doc;
    rd_col(r, &s->n_nest, md);
    if (r->bad) return false;
    size_t nw = ((size_t)md + 63) / 64;
    if (!(s->roots = tv_calloc(nw, sizeof(uint64_t)))) return false;
    uint32_t n = 0;
    for (uint32_t d = 0; d < md; d++) {
        int64_t v = tv_col_get(&s->n_nest, d);
        if (v < 0 || v > (int64_t)UINT32_MAX) return false;
        if (v == 0) {
            s->roots[d >> 6] |= 1ull << (d & 63);
            n++;
        }
    }
    if (tv_col_get(&s->n_nest, md - 1) != 0) return false;
    s->nroots = n;
    s->has_nest = true;
    /* the distinct nest values: few (one per nested object mapping) */
    for (uint32_t d = 0; d < md; d++) {
        uint32_t v = (uint32_t)tv_col_get(&s->n_nest, d), lo = 0, hi = s->nnest;
        if (!v) continue;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (s->nest_vals[mid] < v) lo = mid + 1;
            else hi = mid;
        }
        if (lo < s->nnest && s->nest_vals[lo] == v) continue;
        uint32_t *nv = tv_realloc(s->nest_vals, (s->nnest + 1) * sizeof *nv);
        if (!nv) return false;
        s->nest_vals = nv;
        memmove(nv + lo + 1, nv + lo, (s->nnest - lo) * sizeof *nv);
        nv[lo] = v;
        s->nnest++;
    }
    s->nest_docs = tv_calloc(s->nnest ? s->nnest : 1, sizeof *s->nest_docs);
    return s->nest_docs != NULL;
}

const uint64_t *tv_segment_nest_docs(const tv_segment *s, uint32_t nest, bool *oom) {
    uint32_t lo = 0, hi = s->nnest;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (s->nest_vals[mid] < nest) lo = mid + 1;
        else hi = mid;
    }
    if (lo >= s->nnest || s->nest_vals[lo] != nest) return NULL;
    uint64_t *w = atomic_load_explicit(&s->nest_docs[lo], memory_order_acquire);
    if (w) return w;
    size_t nw = ((size_t)s->max_doc + 63) / 64;
    if (!(w = tv_calloc(nw, sizeof *w))) {
        *oom = true;
        return NULL;
    }
    for (uint32_t d = 0; d < s->max_doc; d++)
        if ((uint32_t)tv_col_get(&s->n_nest, d) == nest) w[d >> 6] |= 1ull << (d & 63);
    uint64_t *expect = NULL;
    if (!atomic_compare_exchange_strong_explicit(&s->nest_docs[lo], &expect, w, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        tv_free(w); /* another reader built it first */
        return expect;
    }
    return w;
}

uint32_t tv_segment_nest(const tv_segment *s, uint32_t doc) {
    if (!s->has_nest || doc >= s->max_doc) return 0;
    return (uint32_t)tv_col_get(&s->n_nest, doc);
}

const uint64_t *tv_segment_roots(const tv_segment *s, uint32_t *nroots) {
    if (nroots) *nroots = s->has_nest ? s->nroots : s->max_doc;
    return s->has_nest ? s->roots : NULL;
}

static bool parse_source(tv_segment *s, rd *r) {
    uint32_t md = s->max_doc;
    s->nchunks = rd_u32(r);
    rd_u32(r);
    s->s_has_src = rd_bits(r, md);
    rd_col(r, &s->s_offs, (uint64_t)md + 1);
    if (r->bad || s->nchunks > md) return false;
    s->s_chunks = rd_bytes(r, (uint64_t)s->nchunks * 32);
    rd_blob(r, &s->s_comp, &s->s_comp_len);
    if (r->bad || tv_col_get(&s->s_offs, 0) != 0) return false;
    /* chunks cover [0, max_doc) in order */
    uint64_t next = 0;
    for (uint32_t c = 0; c < s->nchunks; c++) {
        const uint8_t *e = s->s_chunks + (size_t)c * 32;
        uint32_t first = tv_ld32(e), nd = tv_ld32(e + 4);
        uint64_t comp_off = tv_ld64(e + 16);
        uint32_t raw_len = tv_ld32(e + 24), comp_len = tv_ld32(e + 28);
        if (first != next || nd == 0 || comp_off > s->s_comp_len ||
            comp_len > s->s_comp_len - comp_off || raw_len > INT32_MAX || comp_len > INT32_MAX ||
            raw_len > (uint64_t)comp_len * 255 + 64) /* beyond LZ4's best ratio */
            return false;
        next += nd;
    }
    return next == md;
}

static bool parse_terms(tv_segment *s, tv_segfield *f, rd *r) {
    f->nterms = rd_u32(r);
    f->nblocks = rd_u32(r);
    f->stats.doc_count = rd_u32(r);
    f->max_term_len = rd_u32(r);
    f->stats.sum_total_term_freq = rd_u64(r);
    f->stats.sum_doc_freq = rd_u64(r);
    const uint8_t *h = rd_bytes(r, 8);
    if (r->bad) return false;
    f->index_options = h[0];
    if (f->index_options > TV_IO_OFFSETS || f->nterms == 0 ||
        f->nblocks != (f->nterms + TV_SEG_TERMS_PER_BLOCK - 1) / TV_SEG_TERMS_PER_BLOCK ||
        f->stats.doc_count > s->max_doc)
        return false;
    f->block_offs = rd_bytes(r, (uint64_t)f->nblocks * 4);
    rd_align(r);
    if (r->bad) return false;
    f->blocks = r->p;
    f->blocks_len = (size_t)(r->end - r->p);
    if (f->max_term_len > f->blocks_len) return false;
    uint32_t prev = 0;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        uint32_t off = tv_ld32(f->block_offs + 4 * b);
        if (off >= f->blocks_len || (b && off <= prev)) return false;
        prev = off;
    }
    return true;
}

static bool parse_dvn(tv_segment *s, tv_segfield *f, rd *r) {
    const uint8_t *h = rd_bytes(r, 8);
    if (!h || h[0] > 1) return false;
    f->dvn_single = h[0] == 0;
    if (!f->dvn_single) rd_col(r, &f->dvn_offs, (uint64_t)s->max_doc + 1);
    rd_col(r, &f->dvn_vals, UINT64_MAX);
    if (r->bad || f->dvn_vals.n > (uint64_t)TV_SEG_MAX_VALUES_PER_DOC * s->max_doc) return false;
    if (f->dvn_single) return f->dvn_vals.n == s->max_doc;
    return offs_ok(&f->dvn_offs, f->dvn_vals.n);
}

static bool parse_dvs(tv_segment *s, tv_segfield *f, rd *r) {
    f->dvs_nords = rd_u32(r);
    const uint8_t *h = rd_bytes(r, 4);
    if (!h || h[0] > 1) return false;
    f->dvs_single = h[0] == 0;
    rd_col(r, &f->dvs_term_offs, (uint64_t)f->dvs_nords + 1);
    rd_blob(r, &f->dvs_blob, &f->dvs_blob_len);
    if (!f->dvs_single) rd_col(r, &f->dvs_doc_offs, (uint64_t)s->max_doc + 1);
    rd_col(r, &f->dvs_ords, UINT64_MAX);
    if (r->bad || !offs_ok(&f->dvs_term_offs, f->dvs_blob_len) || f->dvs_nords > f->dvs_ords.n ||
        f->dvs_ords.n > (uint64_t)TV_SEG_MAX_VALUES_PER_DOC * s->max_doc)
        return false;
    if (f->dvs_single) return f->dvs_ords.n == s->max_doc;
    return offs_ok(&f->dvs_doc_offs, f->dvs_ords.n);
}

static bool parse_points(const tv_segment *s, tv_segfield *f, rd *r) {
    rd_col(r, &f->pt_vals, UINT64_MAX);
    rd_col(r, &f->pt_docs, f->pt_vals.n);
    return !r->bad && f->pt_vals.n > 0 && f->pt_vals.n <= (uint64_t)TV_SEG_MAX_VALUES_PER_DOC * s->max_doc;
}

static bool parse_fdocs(tv_segment *s, tv_segfield *f, rd *r) {
    f->fdocs_count = rd_u32(r);
    const uint8_t *h = rd_bytes(r, 4);
    if (!h || h[0] > 1 || f->fdocs_count > s->max_doc) return false;
    f->fdocs_bitset = h[0] == 1;
    if (f->fdocs_bitset) f->fdocs_bits = rd_bits(r, s->max_doc);
    else rd_col(r, &f->fdocs_list, f->fdocs_count);
    return !r->bad;
}

static tv_status corrupt(tv_error *err, const char *what) {
    return tv_error_set(err, TROVE_ECORRUPT, "corrupt segment: %s", what);
}

static bool table_usable(const uint8_t *b, size_t len, uint32_t *nsec) {
    if (len < TV_SEG_HEADER || memcmp(b, TV_SEG_MAGIC, 8) != 0) return false;
    *nsec = tv_ld32(b + 16);
    return (uint64_t)*nsec * TV_SEG_SECTION <= len - TV_SEG_HEADER;
}

typedef struct sec_span {
    uint64_t off, len;
} sec_span;

static int span_cmp(const void *a, const void *b) {
    const sec_span *x = a, *y = b;
    return (x->off > y->off) - (x->off < y->off);
}

/* Every byte outside the header, the table and the sections is padding:
 * fewer than 8 zero bytes before each section (in file order) and after the
 * last one, and no two sections overlap. With the checksums this leaves no
 * byte of a file unchecked. The table's offsets and lengths must already be
 * in range. TROVE_OK, TROVE_ECORRUPT or TROVE_ENOMEM. */
static tv_status check_layout(const uint8_t *b, size_t len, uint32_t nsec) {
    sec_span *sp = tv_malloc((nsec ? nsec : 1) * sizeof *sp);
    if (!sp) return TROVE_ENOMEM;
    for (uint32_t i = 0; i < nsec; i++) {
        const uint8_t *e = b + TV_SEG_HEADER + (size_t)i * TV_SEG_SECTION;
        sp[i] = (sec_span){tv_ld64(e + 8), tv_ld64(e + 16)};
    }
    qsort(sp, nsec, sizeof *sp, span_cmp);
    uint64_t at = TV_SEG_HEADER + (uint64_t)nsec * TV_SEG_SECTION;
    tv_status st = TROVE_OK;
    for (uint32_t i = 0; i <= nsec && st == TROVE_OK; i++) {
        uint64_t next = i < nsec ? sp[i].off : len;
        if (next < at || next - at >= 8) st = TROVE_ECORRUPT;
        for (uint64_t k = at; st == TROVE_OK && k < next; k++)
            if (b[k]) st = TROVE_ECORRUPT;
        if (i < nsec) at = sp[i].off + sp[i].len;
    }
    tv_free(sp);
    return st;
}

bool tv_segment_fix_checksums(uint8_t *b, size_t len) {
    uint32_t nsec;
    if (!table_usable(b, len, &nsec)) return false;
    for (uint32_t i = 0; i < nsec; i++) {
        uint8_t *e = b + TV_SEG_HEADER + (size_t)i * TV_SEG_SECTION;
        uint64_t off = tv_ld64(e + 8), sl = tv_ld64(e + 16);
        if (off <= len && sl <= len - off) tv_st32(e + 24, tv_checksum32(b + off, (size_t)sl));
    }
    tv_st32(b + 24, tv_checksum32(b + TV_SEG_HEADER, (size_t)nsec * TV_SEG_SECTION));
    tv_st32(b + 28, tv_checksum32(b, 28));
    return true;
}

static void release_bytes(uint8_t *bytes, size_t len, bool mapped) {
    if (mapped) tv_store_unmap(bytes, len);
    else tv_free(bytes);
}

/* Opens bytes the segment will own: tv_malloc'd, or a file's mapping. */
static tv_status open_bytes(uint8_t *bytes, size_t len, bool verify, bool mapped, tv_segment **out,
                            tv_error *err) {
    *out = NULL;
    tv_segment *s = tv_calloc(1, sizeof *s);
    if (!s) {
        release_bytes(bytes, len, mapped);
        return tv_error_set(err, TROVE_ENOMEM, "out of memory opening a segment");
    }
    s->bytes = bytes;
    s->len = len;
    s->mapped = mapped;
    atomic_init(&s->refs, 1);
    tv_status st = TROVE_ECORRUPT;
    uint32_t nsec;
    if (!table_usable(bytes, len, &nsec)) {
        corrupt(err, "bad header");
        goto fail;
    }
    if (tv_ld32(bytes + 8) != TV_SEG_VERSION) {
        tv_error_set(err, TROVE_ECORRUPT, "unsupported segment format version [%u]",
                     (unsigned)tv_ld32(bytes + 8));
        goto fail;
    }
    s->max_doc = tv_ld32(bytes + 12);
    if (verify && (tv_ld32(bytes + 28) != tv_checksum32(bytes, 28) ||
                   tv_ld32(bytes + 24) != tv_checksum32(bytes + TV_SEG_HEADER, (size_t)nsec * TV_SEG_SECTION))) {
        corrupt(err, "header checksum mismatch");
        goto fail;
    }
    if (s->max_doc == 0 || s->max_doc > TV_SEG_MAX_DOCS) {
        corrupt(err, "bad max_doc");
        goto fail;
    }
    /* count fields: the table is sorted by (field, kind) */
    uint32_t nf = 0;
    uint64_t prev_key = 0;
    for (uint32_t i = 0; i < nsec; i++) {
        const uint8_t *e = bytes + TV_SEG_HEADER + (size_t)i * TV_SEG_SECTION;
        uint32_t kind = tv_ld32(e), field = tv_ld32(e + 4);
        uint64_t off = tv_ld64(e + 8), sl = tv_ld64(e + 16);
        uint64_t key = (uint64_t)field << 32 | kind;
        if ((i && key <= prev_key) || off > len || sl > len - off || (off & 7) ||
            off < TV_SEG_HEADER + (uint64_t)nsec * TV_SEG_SECTION) {
            corrupt(err, "bad section table");
            goto fail;
        }
        if (verify && tv_ld32(e + 24) != tv_checksum32(bytes + off, (size_t)sl)) {
            corrupt(err, "section checksum mismatch");
            goto fail;
        }
        if (kind >= TV_SEC_TERMS && (i == 0 || field != (uint32_t)(prev_key >> 32) ||
                                     (uint32_t)prev_key < TV_SEC_TERMS))
            nf++;
        prev_key = key;
    }
    if ((st = check_layout(bytes, len, nsec)) != TROVE_OK) {
        if (st == TROVE_ENOMEM) tv_error_set(err, st, "out of memory opening a segment");
        else corrupt(err, "bytes outside the sections");
        goto fail;
    }
    st = TROVE_ECORRUPT;
    s->fields = tv_calloc(nf ? nf : 1, sizeof *s->fields);
    if (!s->fields) {
        st = tv_error_set(err, TROVE_ENOMEM, "out of memory opening a segment");
        goto fail;
    }
    bool have_meta = false, have_src = false;
    tv_segfield *f = NULL;
    for (uint32_t i = 0; i < nsec; i++) {
        const uint8_t *e = bytes + TV_SEG_HEADER + (size_t)i * TV_SEG_SECTION;
        uint32_t kind = tv_ld32(e), field = tv_ld32(e + 4);
        uint64_t off = tv_ld64(e + 8), sl = tv_ld64(e + 16);
        rd r = {bytes + off, bytes + off, bytes + off + sl, false};
        bool ok;
        if (kind == TV_SEC_META || kind == TV_SEC_SOURCE || kind == TV_SEC_NESTED) {
            if (field != 0) {
                corrupt(err, "bad section field");
                goto fail;
            }
            if (kind == TV_SEC_NESTED) {
                ok = parse_nested(s, &r);
            } else {
                ok = kind == TV_SEC_META ? parse_meta(s, &r) : parse_source(s, &r);
                if (kind == TV_SEC_META) have_meta = true;
                else have_src = true;
            }
        } else {
            if (!f || f->id != field) {
                if (s->nfields >= nf) {
                    corrupt(err, "bad section table");
                    goto fail;
                }
                f = &s->fields[s->nfields++];
                f->id = field;
            }
            switch (kind) {
            case TV_SEC_TERMS:
                f->terms = r.base;
                f->terms_len = (size_t)sl;
                ok = parse_terms(s, f, &r);
                break;
            case TV_SEC_POSTINGS:
                f->post = r.base;
                f->post_len = (size_t)sl;
                ok = sl >= TV_CODEC_PAD;
                break;
            case TV_SEC_POSITIONS:
                f->pos = r.base;
                f->pos_len = (size_t)sl;
                ok = sl >= TV_CODEC_PAD;
                break;
            case TV_SEC_NORMS:
                f->norms = r.base;
                ok = sl >= s->max_doc;
                break;
            case TV_SEC_DV_NUMERIC:
                ok = f->has_dvn = parse_dvn(s, f, &r);
                break;
            case TV_SEC_DV_SORTED:
                ok = f->has_dvs = parse_dvs(s, f, &r);
                break;
            case TV_SEC_POINTS:
                ok = f->has_points = parse_points(s, f, &r);
                break;
            case TV_SEC_FIELD_DOCS:
                ok = f->has_fdocs = parse_fdocs(s, f, &r);
                break;
            default:
                ok = false;
            }
        }
        if (!ok) {
            tv_error_set(err, TROVE_ECORRUPT, "corrupt segment: bad section [%u] of field [%u]",
                         (unsigned)kind, (unsigned)field);
            goto fail;
        }
    }
    if (!have_meta || !have_src) {
        corrupt(err, "missing stored fields");
        goto fail;
    }
    for (uint32_t i = 0; i < s->nfields; i++) {
        const tv_segfield *g = &s->fields[i];
        bool want_pos = g->terms && g->index_options >= TV_IO_POSITIONS;
        if (!g->terms != !g->post || want_pos != !!g->pos) {
            corrupt(err, "inconsistent postings sections");
            goto fail;
        }
    }
    s->id = atomic_fetch_add(&next_segment_id, 1);
    *out = s;
    return TROVE_OK;
fail:
    tv_free(s->fields);
    tv_free(s->roots);
    tv_free(s->nest_vals);
    tv_free(s->nest_docs);
    release_bytes(s->bytes, s->len, s->mapped);
    tv_free(s);
    return st;
}

tv_status tv_segment_open_owned(uint8_t *bytes, size_t len, bool verify, tv_segment **out,
                                tv_error *err) {
    return open_bytes(bytes, len, verify, false, out, err);
}

tv_status tv_segment_open_file(const char *path, tv_segment **out, tv_error *err) {
    *out = NULL;
    const uint8_t *p;
    size_t len;
    tv_status st = tv_store_map(path, &p, &len, err);
    if (st == TROVE_ENOTFOUND) return tv_error_set(err, TROVE_ECORRUPT, "segment [%s] is missing", path);
    if (st) return st;
    /* the checksums are trove check's: verifying them here would read every
     * page of the file, which mapping is there to avoid */
    return open_bytes((uint8_t *)p, len, false, true, out, err);
}

tv_status tv_segment_open(const void *bytes, size_t len, tv_segment **out, tv_error *err) {
    *out = NULL;
    uint8_t *copy = tv_malloc(len ? len : 1);
    if (!copy) return tv_error_set(err, TROVE_ENOMEM, "out of memory opening a segment");
    if (len) memcpy(copy, bytes, len);
    return tv_segment_open_owned(copy, len, true, out, err);
}

/* --------------------------------------------------------- term dictionary */

bool tv_segment_field_stats(const tv_segment *s, uint32_t field, tv_field_stats *out) {
    const tv_segfield *f = tv_segment_field(s, field);
    if (!f || !f->terms) return false;
    *out = f->stats;
    return true;
}

/* A cursor over one term block. */
typedef struct tcur {
    const uint8_t *p, *end;
    uint32_t left;
    bool first;
    uint64_t post, pos;
    /* the entry just decoded */
    uint64_t prefix, slen;
    const uint8_t *suffix;
    uint64_t df, ttf;
} tcur;

static bool tcur_block(const tv_segfield *f, uint32_t b, tcur *c) {
    uint32_t off = tv_ld32(f->block_offs + 4 * (size_t)b);
    c->p = f->blocks + off;
    c->end = f->blocks + f->blocks_len;
    uint64_t n;
    c->p = tv_vget(c->p, c->end, &n);
    if (!c->p || n == 0 || n > TV_SEG_TERMS_PER_BLOCK) return false;
    c->left = (uint32_t)n;
    c->first = true;
    return true;
}

static bool tcur_next(const tv_segfield *f, tcur *c) {
    if (c->left == 0) return false;
    const uint8_t *p = c->p, *end = c->end;
    uint64_t v;
    if (!(p = tv_vget(p, end, &c->prefix)) || !(p = tv_vget(p, end, &c->slen))) return false;
    if (c->slen > (uint64_t)(end - p) || (c->first && c->prefix)) return false;
    c->suffix = p;
    p += c->slen;
    if (!(p = tv_vget(p, end, &c->df))) return false;
    c->ttf = c->df;
    if (f->index_options >= TV_IO_FREQS) {
        if (!(p = tv_vget(p, end, &v))) return false;
        c->ttf += v;
    }
    if (!(p = tv_vget(p, end, &v))) return false;
    c->post = c->first ? v : c->post + v;
    if (f->index_options >= TV_IO_POSITIONS) {
        if (!(p = tv_vget(p, end, &v))) return false;
        c->pos = c->first ? v : c->pos + v;
    }
    c->first = false;
    c->left--;
    c->p = p;
    return true;
}

static void tcur_state(const tcur *c, tv_term_state *st) {
    st->doc_freq = c->df > UINT32_MAX ? UINT32_MAX : (uint32_t)c->df;
    st->total_term_freq = c->ttf;
    st->loc[0] = c->post;
    st->loc[1] = c->pos;
    st->loc[2] = 0;
}

/* tv_memcmp2 for the short strings terms are: a byte loop beats the call
 * to memcmp. */
static inline int term_cmp(const void *a, size_t alen, const void *b, size_t blen) {
    const uint8_t *x = a, *y = b;
    size_t n = alen < blen ? alen : blen;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return (alen > blen) - (alen < blen);
}

/* Compares the first term of block b with target. */
static int block_cmp(const tv_segfield *f, uint32_t b, const void *target, size_t len, bool *ok) {
    tcur c;
    if (!tcur_block(f, b, &c) || !tcur_next(f, &c)) {
        *ok = false;
        return 0;
    }
    return term_cmp(c.suffix, c.slen, target, len);
}

/* The last block whose first term is <= target, or -1 (target before every
 * term, or corrupt). */
static int64_t find_block(const tv_segfield *f, const void *target, size_t len) {
    int64_t lo = 0, hi = (int64_t)f->nblocks - 1, ans = -1;
    while (lo <= hi) {
        int64_t mid = (lo + hi) / 2;
        bool ok = true;
        int c = block_cmp(f, (uint32_t)mid, target, len, &ok);
        if (!ok) return -1;
        if (c <= 0) {
            ans = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return ans;
}

bool tv_segment_term(const tv_segment *s, uint32_t field, const void *term, size_t len,
                     tv_term_state *out) {
    const tv_segfield *f = tv_segment_field(s, field);
    if (!f || !f->terms) return false;
    int64_t b = find_block(f, term, len);
    if (b < 0) return false;
    const uint8_t *t = term;
    tcur c;
    if (!tcur_block(f, (uint32_t)b, &c)) return false;
    size_t m = 0; /* bytes the previous term shares with target (previous < target) */
    while (tcur_next(f, &c)) {
        if (c.prefix < m) return false; /* this term > target */
        if (c.prefix > m) continue;      /* this term < target, still m shared */
        size_t rest = len - m, k = 0, n = (size_t)TV_MIN((uint64_t)rest, c.slen);
        while (k < n && c.suffix[k] == t[m + k]) k++;
        if (k == n) {
            if (c.slen == rest) {
                tcur_state(&c, out);
                return true;
            }
            if (c.slen > rest) return false; /* target is a prefix of term: term > target */
        } else if (c.suffix[k] > t[m + k]) {
            return false;
        }
        m += k;
    }
    return false;
}

/* --------------------------------------------------------- the _id filter */

/* A Bloom filter of a segment's _id terms: m bits (a power of two), 7
 * probes from one 64-bit hash (double hashing, Kirsch-Mitzenmacher), about
 * 10 bits per id for about 1% false positives. Every write of a document
 * with an explicit id asks each segment whether it holds the id; without
 * the filter that is a binary search over the term blocks of every
 * segment, which dominated a bulk load of new ids (trove sync's snapshot).
 * Built on the first lookup, not at write time, so the segment format is
 * unchanged and segments nobody writes to pay nothing. */
typedef struct tv_idfilter {
    uint64_t mask; /* m - 1 */
    uint64_t words[];
} tv_idfilter;

#define IDF_PROBES 7

static bool idf_test(const tv_idfilter *f, uint64_t h) {
    uint64_t h1 = h, h2 = (h >> 32) | (h << 32) | 1;
    for (int i = 0; i < IDF_PROBES; i++, h1 += h2) {
        uint64_t b = h1 & f->mask;
        if (!((f->words[b >> 6] >> (b & 63)) & 1)) return false;
    }
    return true;
}

static void idf_set(tv_idfilter *f, uint64_t h) {
    uint64_t h1 = h, h2 = (h >> 32) | (h << 32) | 1;
    for (int i = 0; i < IDF_PROBES; i++, h1 += h2) {
        uint64_t b = h1 & f->mask;
        f->words[b >> 6] |= 1ull << (b & 63);
    }
}

/* Builds the filter of s's ids (NULL when out of memory). */
static tv_idfilter *idf_build(const tv_segment *s) {
    const tv_segfield *fld = tv_segment_field(s, TV_FIELD_ID);
    uint64_t n = fld ? fld->stats.doc_count : 0, bits = 64;
    while (bits < n * 10 && bits < (1ull << 40)) bits <<= 1;
    tv_idfilter *f = tv_calloc(1, sizeof *f + bits / 8);
    if (!f) return NULL;
    f->mask = bits - 1;
    if (!fld) return f;
    tv_arena a;
    tv_arena_init(&a);
    tv_terms_iter *it = tv_terms_iter_new(s, TV_FIELD_ID, &a);
    if (!it) { /* out of memory: a filter without its ids would rule them out */
        tv_arena_fini(&a);
        tv_free(f);
        return NULL;
    }
    const char *t;
    size_t len;
    tv_term_state st;
    while (tv_terms_iter_next(it, &t, &len, &st)) idf_set(f, tv_hash(t, len));
    tv_arena_fini(&a);
    return f;
}

bool tv_segment_id_maybe(const tv_segment *s, const void *id, size_t len) {
    tv_segment *m = (tv_segment *)s;
    tv_idfilter *f = atomic_load_explicit(&m->idf, memory_order_acquire);
    if (!f) {
        if (!(f = idf_build(s))) return true;
        tv_idfilter *expect = NULL;
        if (!atomic_compare_exchange_strong_explicit(&m->idf, &expect, f, memory_order_acq_rel,
                                                     memory_order_acquire)) {
            tv_free(f); /* another thread built it first */
            f = expect;
        }
    }
    return idf_test(f, tv_hash(id, len));
}

struct tv_terms_iter {
    const tv_segfield *f;
    char *buf;
    size_t len;
    uint32_t blk; /* current block */
    tcur c;
    size_t shared; /* bytes the term returned last shares with the one before */
    bool pending, done, started;
};

tv_terms_iter *tv_terms_iter_new(const tv_segment *s, uint32_t field, tv_arena *arena) {
    const tv_segfield *f = tv_segment_field(s, field);
    if (!f || !f->terms) return NULL;
    tv_terms_iter *it = tv_arena_calloc(arena, 1, sizeof *it);
    if (!it) return NULL;
    it->f = f;
    /* 8 bytes of slack: it_step copies suffixes a word at a time */
    it->buf = tv_arena_alloc(arena, (size_t)f->max_term_len + 9);
    if (!it->buf) return NULL;
    return it;
}

/* Decodes the next entry into buf; false at the end or on corruption. */
static inline bool it_step(tv_terms_iter *it) {
    const tv_segfield *f = it->f;
    if (it->done) return false;
    while (!it->started || it->c.left == 0) {
        uint32_t b = it->started ? it->blk + 1 : 0;
        if (b >= f->nblocks || !tcur_block(f, b, &it->c)) {
            it->done = true;
            return false;
        }
        it->blk = b;
        it->started = true;
    }
    if (!tcur_next(f, &it->c) || it->c.prefix > it->len ||
        it->c.prefix + it->c.slen > f->max_term_len) {
        it->done = true;
        return false;
    }
    /* suffixes are short: word copies, where the block has the bytes to
     * over-read, beat a call to memcpy */
    char *dst = it->buf + it->c.prefix;
    const uint8_t *src = it->c.suffix;
    size_t n = (size_t)it->c.slen;
    if (n <= 16 && (size_t)(it->c.end - src) >= 16) {
        memcpy(dst, src, 8);
        if (n > 8) memcpy(dst + 8, src + 8, 8);
    } else {
        memcpy(dst, src, n);
    }
    it->len = (size_t)(it->c.prefix + n);
    return true;
}

/* Scans the current block for the first term >= target, which is known
 * to come before the next block's first term. */
static void seek_in_block(tv_terms_iter *it, const void *target, size_t len) {
    while (it->c.left) {
        if (!it_step(it)) return;
        if (term_cmp(it->buf, it->len, target, len) >= 0) {
            it->pending = true;
            return;
        }
    }
    /* the next block starts after target */
}

/* A seek forward from the term the iterator stands on (returned, or
 * pending and below target): the current block when target comes before
 * the next one, else a gallop over the blocks ahead; false when neither
 * applies (the caller does the full binary search). Automaton enumerations
 * seek a short way forward thousands of times. */
static bool seek_forward(tv_terms_iter *it, const void *target, size_t len) {
    const tv_segfield *f = it->f;
    if (!it->started || it->done || term_cmp(it->buf, it->len, target, len) >= 0) return false;
    bool ok = true;
    uint32_t nb = f->nblocks;
    if (it->blk + 1 >= nb || block_cmp(f, it->blk + 1, target, len, &ok) > 0) {
        if (!ok) return false;
        it->pending = false;
        seek_in_block(it, target, len);
        return true;
    }
    if (!ok) return false;
    /* the last block whose first term <= target, at or after blk + 1 */
    uint32_t lo = it->blk + 1, step = 1, hi;
    for (;;) {
        hi = lo + step;
        if (hi >= nb) {
            hi = nb;
            break;
        }
        int c = block_cmp(f, hi, target, len, &ok);
        if (!ok) return false;
        if (c > 0) break;
        lo = hi;
        step *= 2;
    }
    while (hi - lo > 1) { /* first(lo) <= target < first(hi) */
        uint32_t mid = lo + (hi - lo) / 2;
        int c = block_cmp(f, mid, target, len, &ok);
        if (!ok) return false;
        if (c <= 0) lo = mid;
        else hi = mid;
    }
    it->pending = false;
    it->len = 0;
    if (!tcur_block(f, lo, &it->c)) {
        it->done = true;
        return true;
    }
    it->blk = lo;
    seek_in_block(it, target, len);
    return true;
}

void tv_terms_iter_seek(tv_terms_iter *it, const void *target, size_t len) {
    const tv_segfield *f = it->f;
    if (seek_forward(it, target, len)) return;
    it->pending = false;
    it->done = false;
    it->len = 0;
    int64_t b = find_block(f, target, len);
    if (b < 0) b = 0;
    if (!tcur_block(f, (uint32_t)b, &it->c)) {
        it->done = true;
        return;
    }
    it->blk = (uint32_t)b;
    it->started = true;
    seek_in_block(it, target, len);
}

bool tv_terms_iter_next(tv_terms_iter *it, const char **term, size_t *len, tv_term_state *st) {
    if (it->pending) {
        it->pending = false;
        it->shared = 0;
    } else {
        if (!it_step(it)) return false;
        it->shared = (size_t)it->c.prefix;
    }
    *term = it->buf;
    *len = it->len;
    if (st) tcur_state(&it->c, st);
    return true;
}

bool tv_terms_iter_next_match(tv_terms_iter *it, const char *prefix, size_t plen, const char *suffix,
                              size_t slen, const char **term, size_t *len, tv_term_state *st) {
    size_t shared = SIZE_MAX; /* with the term returned before: the least prefix on the way */
    bool first = true;
    for (;;) {
        bool check = first; /* must the prefix be compared? */
        if (it->pending) {
            it->pending = false;
            shared = 0;
            check = true;
        } else {
            if (!it_step(it)) return false;
            if (it->c.prefix < shared) shared = (size_t)it->c.prefix;
            /* sharing plen bytes with a term that had the prefix */
            check = check || it->c.prefix < plen;
        }
        first = false;
        size_t n = it->len;
        if (check && plen && (n < plen || memcmp(it->buf, prefix, plen) != 0)) return false;
        if (n < slen) continue;
        size_t i = 1;
        while (i <= slen && it->buf[n - i] == suffix[slen - i]) i++;
        if (i > slen) break;
    }
    it->shared = shared;
    *term = it->buf;
    *len = it->len;
    if (st) tcur_state(&it->c, st);
    return true;
}

size_t tv_terms_iter_shared(const tv_terms_iter *it) { return it->shared; }

size_t tv_terms_iter_max_len(const tv_terms_iter *it) { return it->f->max_term_len; }

/* ---------------------------------------------------------------- postings */

enum { PK_TERM = 0, PK_LIST, PK_BITS, PK_EMPTY };

struct tv_postings {
    uint32_t doc;
    uint32_t i, n;      /* cursor and count in docs[] */
    uint32_t blk;       /* block in docs[]: 0..nb-1 full, nb tail; UINT32_MAX before first */
    uint32_t nb, df;
    uint8_t kind;
    bool started, ended;
    bool has_freqs;     /* the field stores freqs */
    bool dec_freqs;     /* decode them */
    bool want_pos;
    uint32_t max_doc;
    const uint8_t *sec_end;
    const uint8_t *skip; /* nb entries of TV_SEG_SKIP bytes */
    const uint8_t *data;
    uint32_t tail_off, tail_pos_off;
    /* positions: the block's group of chunks (format in segment_build.c) */
    const uint8_t *pos_base, *pos_end;
    const uint8_t *pq;  /* the next chunk's bits byte; NULL: none */
    const uint8_t *pc;  /* the current chunk's packed values */
    uint64_t prem;      /* values of the group after the current chunk */
    uint32_t pc_bits, pc_n, pc_i; /* its width, values, next value */
    uint32_t pos_doc, pos_used, last_pos;
    /* field docs */
    const uint8_t *bits;
    tv_col list;
    uint64_t li;
    uint64_t cost;
    const tv_segfield *f;
    /* impacts */
    size_t nimp;
    uint32_t tail_last; /* computed tail impacts: last doc, 0 = not yet */
    bool tail_done;
    tv_impact imps[TV_SEG_MAX_IMPACTS];
    tv_impact tail_imps[TV_SEG_MAX_IMPACTS];
    size_t ntail_imps;
    uint32_t docs[TV_BLOCK];
    uint32_t freqs[TV_BLOCK];
};

static inline uint32_t skip_last(const tv_postings *p, uint32_t k) { return tv_ld32(p->skip + TV_SEG_SKIP * (size_t)k); }

static tv_postings *post_alloc(tv_arena *arena, uint8_t kind) {
    tv_postings *p = tv_arena_alloc(arena, sizeof *p);
    if (!p) return NULL;
    memset(p, 0, offsetof(tv_postings, docs));
    p->kind = kind;
    p->doc = UINT32_MAX;
    p->blk = UINT32_MAX;
    return p;
}

tv_postings *tv_postings_open(const tv_segment *s, uint32_t field, const tv_term_state *st,
                              unsigned flags, tv_arena *arena) {
    tv_postings *p = post_alloc(arena, PK_EMPTY);
    if (!p) return NULL;
    const tv_segfield *f = tv_segment_field(s, field);
    if (!f || !f->post || !st || st->doc_freq == 0 || st->doc_freq > s->max_doc || st->loc[0] >= f->post_len)
        return p;
    p->f = f;
    p->max_doc = s->max_doc;
    p->df = st->doc_freq;
    p->cost = st->doc_freq;
    p->nb = st->doc_freq / TV_BLOCK;
    p->has_freqs = f->index_options >= TV_IO_FREQS;
    p->want_pos = (flags & TV_POST_POSITIONS) && f->pos;
    p->dec_freqs = p->has_freqs && (flags & (TV_POST_FREQS | TV_POST_POSITIONS));
    const uint8_t *t = f->post + st->loc[0];
    p->sec_end = f->post + f->post_len;
    size_t avail = (size_t)(p->sec_end - t);
    if (p->nb) {
        if (avail < 8 || (avail - 8) / TV_SEG_SKIP < p->nb) return p;
        p->tail_off = tv_ld32(t);
        p->tail_pos_off = tv_ld32(t + 4);
        p->skip = t + 8;
        p->data = p->skip + (size_t)TV_SEG_SKIP * p->nb;
    } else {
        p->data = t;
        p->tail_off = 0;
        p->tail_pos_off = 0;
    }
    if (p->want_pos) {
        if (st->loc[1] >= f->pos_len) p->want_pos = false;
        else {
            p->pos_base = f->pos + st->loc[1];
            p->pos_end = f->pos + f->pos_len;
        }
    }
    p->kind = PK_TERM;
    return p;
}

tv_postings *tv_postings_field_docs(const tv_segment *s, uint32_t field, tv_arena *arena) {
    const tv_segfield *f = tv_segment_field(s, field);
    if (!f || !f->has_fdocs || f->fdocs_count == 0) return NULL;
    tv_postings *p = post_alloc(arena, f->fdocs_bitset ? PK_BITS : PK_LIST);
    if (!p) return NULL;
    p->f = f;
    p->max_doc = s->max_doc;
    p->cost = f->fdocs_count;
    p->bits = f->fdocs_bits;
    p->list = f->fdocs_list;
    return p;
}

_Static_assert(offsetof(struct tv_postings, doc) == 0, "tv_postings_doc in index.h reads the first member");
uint64_t tv_postings_cost(const tv_postings *p) { return p->cost; }

static uint32_t post_end(tv_postings *p) {
    p->n = p->i = 0;
    p->ended = true;
    return p->doc = TV_NO_MORE_DOCS;
}

/* Points the position reader at the group of the block just loaded, at
 * offset off of the term's positions, holding nvalues (its freqs' sum). */
static void pos_group(tv_postings *p, uint32_t off, uint64_t nvalues) {
    p->pq = off < (size_t)(p->pos_end - p->pos_base) ? p->pos_base + off : NULL;
    p->prem = nvalues;
}

/* Loads block k (k == nb: the tail) into docs[]/freqs[]. False at the end or
 * on corruption. */
static bool load_block(tv_postings *p, uint32_t k) {
    if (k > p->nb) return false;
    uint64_t prev = k ? (uint64_t)skip_last(p, k - 1) : UINT64_MAX; /* UINT64_MAX + 1 == 0 */
    size_t data_len = (size_t)(p->sec_end - p->data);
    p->blk = k;
    p->i = 0;
    p->pos_doc = p->pos_used = p->last_pos = 0;
    p->pc_n = p->pc_i = 0;
    if (k < p->nb) {
        const uint8_t *e = p->skip + TV_SEG_SKIP * (size_t)k;
        uint32_t last = tv_ld32(e), off = tv_ld32(e + 4), poff = tv_ld32(e + 8);
        if (off >= data_len) return false;
        const uint8_t *q = p->data + off;
        unsigned bits = q[0];
        size_t need = 1 + 16 * (size_t)bits + TV_CODEC_PAD;
        if (bits > 32 || need > (size_t)(p->sec_end - q)) return false;
        tv_bp128_unpack(q + 1, bits, p->docs);
        uint64_t d = prev;
        for (int j = 0; j < TV_BLOCK; j++) {
            d += (uint64_t)p->docs[j] + 1;
            p->docs[j] = (uint32_t)d;
        }
        if (d != last || d >= p->max_doc) return false;
        q += 1 + 16 * (size_t)bits;
        if (p->has_freqs) {
            unsigned fb = q[0];
            if (fb > 32 || 1 + 16 * (size_t)fb + TV_CODEC_PAD > (size_t)(p->sec_end - q)) return false;
            if (p->dec_freqs) {
                tv_bp128_unpack(q + 1, fb, p->freqs);
                for (int j = 0; j < TV_BLOCK; j++) p->freqs[j] += 1;
            }
        }
        p->n = TV_BLOCK;
        if (p->want_pos) {
            uint64_t nvalues = 0; /* positions in the block */
            for (int j = 0; j < TV_BLOCK; j++) nvalues += p->freqs[j];
            pos_group(p, poff, nvalues);
        }
        return true;
    }
    uint32_t cnt = p->df - p->nb * TV_BLOCK;
    if (k > p->nb || cnt == 0 || p->tail_off >= data_len) return false;
    const uint8_t *q = p->data + p->tail_off, *end = p->sec_end;
    uint64_t d = prev, nvalues = 0;
    uint32_t j = 0;
    for (; j < cnt; j++) {
        uint64_t v, fr = 1;
        if (!(q = tv_vget(q, end, &v))) break;
        if (p->has_freqs) {
            if (!(v & 1) && !(q = tv_vget(q, end, &fr))) break;
            v >>= 1;
        }
        d += v + 1;
        if (d >= p->max_doc) break;
        p->docs[j] = (uint32_t)d;
        p->freqs[j] = (uint32_t)TV_MIN(fr, (uint64_t)UINT32_MAX);
        nvalues += p->freqs[j];
    }
    p->n = j;
    if (p->want_pos) pos_group(p, p->tail_pos_off, nvalues);
    return j > 0;
}

static uint32_t list_next_from(tv_postings *p, uint32_t target) {
    if (p->kind == PK_BITS) {
        uint32_t w = target >> 6, nw = (p->max_doc + 63) / 64;
        if (target >= p->max_doc) return post_end(p);
        uint64_t word = tv_ld64(p->bits + 8 * (size_t)w) & (~0ull << (target & 63));
        for (;;) {
            if (word) {
                uint32_t d = (w << 6) + (uint32_t)__builtin_ctzll(word);
                return d < p->max_doc ? (p->doc = d) : post_end(p);
            }
            if (++w >= nw) return post_end(p);
            word = tv_ld64(p->bits + 8 * (size_t)w);
        }
    }
    /* PK_LIST: ascending docs; stop at anything out of order */
    uint64_t lo = p->li, hi = p->list.n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)tv_col_get(&p->list, mid) < target) lo = mid + 1;
        else hi = mid;
    }
    if (lo >= p->list.n) return post_end(p);
    uint64_t d = (uint64_t)tv_col_get(&p->list, lo);
    if (d >= p->max_doc || (p->li && d <= p->doc)) return post_end(p);
    p->li = lo + 1;
    return p->doc = (uint32_t)d;
}

uint32_t tv_postings_next(tv_postings *p) {
    if (TV_LIKELY(p->kind == PK_TERM)) {
        if (TV_LIKELY(p->i + 1 < p->n)) return p->doc = p->docs[++p->i];
        if (p->ended) return TV_NO_MORE_DOCS;
        uint32_t k = p->blk == UINT32_MAX ? 0 : p->blk + 1;
        if (!load_block(p, k)) return post_end(p);
        return p->doc = p->docs[0];
    }
    if (p->kind == PK_EMPTY || p->ended) return p->doc = TV_NO_MORE_DOCS;
    uint32_t from = p->started ? p->doc + 1 : 0;
    p->started = true;
    return list_next_from(p, from);
}

void tv_postings_or_bits(tv_postings *p, uint64_t *words, uint32_t nbits) {
    if (p->kind != PK_TERM) {
        for (uint32_t d = tv_postings_next(p); d != TV_NO_MORE_DOCS; d = tv_postings_next(p))
            if (d < nbits) words[d >> 6] |= 1ull << (d & 63);
        return;
    }
    if (p->ended) return;
    uint32_t k = 0;
    if (p->blk != UINT32_MAX) {
        for (uint32_t j = p->i + 1; j < p->n; j++)
            if (p->docs[j] < nbits) words[p->docs[j] >> 6] |= 1ull << (p->docs[j] & 63);
        k = p->blk + 1;
    }
    /* whole blocks, straight from the decoded arrays */
    for (; load_block(p, k); k++)
        for (uint32_t j = 0; j < p->n; j++)
            if (p->docs[j] < nbits) words[p->docs[j] >> 6] |= 1ull << (p->docs[j] & 63);
    post_end(p);
}

uint32_t tv_postings_advance(tv_postings *p, uint32_t target) {
    if (p->kind != PK_TERM) {
        if (p->kind == PK_EMPTY || p->ended) return p->doc = TV_NO_MORE_DOCS;
        p->started = true;
        return list_next_from(p, target);
    }
    if (p->ended) return TV_NO_MORE_DOCS;
    if (p->n == 0 || p->docs[p->n - 1] < target) {
        /* find the first block whose last doc >= target */
        uint32_t k = p->blk == UINT32_MAX ? 0 : p->blk + 1;
        if (k < p->nb && skip_last(p, k) < target) {
            /* gallop, then binary search over skip entries */
            uint32_t step = 1, lo = k, hi;
            for (;;) {
                hi = lo + step;
                if (hi >= p->nb) {
                    hi = p->nb;
                    break;
                }
                if (skip_last(p, hi) >= target) break;
                lo = hi;
                step *= 2;
            }
            /* skip_last(lo) < target; answer in (lo, hi] */
            lo++;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (skip_last(p, mid) < target) lo = mid + 1;
                else hi = mid;
            }
            k = lo;
        }
        if (!load_block(p, k)) return post_end(p);
        p->i = 0;
        if (p->docs[0] >= target) return p->doc = p->docs[0];
    }
    /* search the decoded block (ascending): a few linear steps for short
     * strides, then binary search, then a short scan */
    uint32_t i = p->i, hi = p->n;
    for (uint32_t k = 0; k < 8 && i < hi && p->docs[i] < target; k++) i++;
    while (hi - i > 8 && p->docs[i] < target) {
        uint32_t mid = i + (hi - i) / 2;
        if (p->docs[mid] < target) i = mid + 1;
        else hi = mid;
    }
    while (i < p->n && p->docs[i] < target) i++;
    if (i >= p->n) { /* corrupt skip data: move on block by block */
        p->i = p->n - 1;
        uint32_t d;
        while ((d = tv_postings_next(p)) < target) {
        }
        return d;
    }
    p->i = i;
    return p->doc = p->docs[i];
}

uint32_t tv_postings_freq(tv_postings *p) {
    if (p->kind != PK_TERM || !p->dec_freqs || p->i >= p->n) return 1;
    return p->freqs[p->i];
}

/* Opens the group's next chunk; false when there is none or it does not
 * fit its section (corrupt: the positions end). */
static bool pos_chunk(tv_postings *p) {
    if (!p->prem || !p->pq) return false;
    unsigned bits = p->pq[0];
    uint32_t n = p->prem < TV_BLOCK ? (uint32_t)p->prem : TV_BLOCK;
    size_t bytes = (size_t)tv_packed_bytes(n, bits);
    if (bits > 32 || 1 + bytes + TV_CODEC_PAD > (size_t)(p->pos_end - p->pq)) {
        p->prem = 0;
        return false;
    }
    p->pc = p->pq + 1;
    p->pc_bits = bits;
    p->pc_n = n;
    p->pc_i = 0;
    p->prem -= n;
    p->pq = p->pc + bytes;
    return true;
}

/* Moves the position reader to the current doc's first position: whole
 * chunks are passed by their headers, without reading their values. */
static void pos_sync(tv_postings *p) {
    if (p->pos_doc >= p->i) return;
    uint64_t skip = p->freqs[p->pos_doc] - p->pos_used;
    for (uint32_t d = p->pos_doc + 1; d < p->i; d++) skip += p->freqs[d];
    while (skip > p->pc_n - p->pc_i) {
        skip -= p->pc_n - p->pc_i;
        p->pc_i = p->pc_n;
        if (!pos_chunk(p)) break;
    }
    p->pc_i += (uint32_t)TV_MIN(skip, (uint64_t)(p->pc_n - p->pc_i));
    p->pos_doc = p->i;
    p->pos_used = 0;
    p->last_pos = 0;
}

uint32_t tv_postings_positions(tv_postings *p, uint32_t *out, uint32_t cap) {
    if (p->kind != PK_TERM || !p->want_pos || p->i >= p->n) return 0;
    pos_sync(p);
    uint32_t f = p->freqs[p->i] - p->pos_used, want = TV_MIN(f, cap), k = 0;
    uint32_t last = p->last_pos;
    while (k < want) {
        if (p->pc_i == p->pc_n && !pos_chunk(p)) break;
        uint32_t take = TV_MIN(want - k, p->pc_n - p->pc_i);
        /* bits <= 32 and a shift <= 7: one 64-bit load per value */
        const unsigned b = p->pc_bits;
        const uint64_t mask = (1ull << b) - 1;
        const uint8_t *d = p->pc;
        for (uint32_t j = 0, bit = p->pc_i * b; j < take; j++, bit += b) {
            last += (uint32_t)((tv_ld64(d + (bit >> 3)) >> (bit & 7)) & mask);
            out[k + j] = last;
        }
        k += take;
        p->pc_i += take;
    }
    p->pos_used += k;
    p->last_pos = last;
    return k;
}

uint32_t tv_postings_next_pos(tv_postings *p) {
    uint32_t v;
    return tv_postings_positions(p, &v, 1) ? v : p->last_pos;
}

static size_t read_impacts(const uint8_t *q, const uint8_t *end, tv_impact *out) {
    uint64_t n, fr;
    if (!(q = tv_vget(q, end, &n)) || n == 0 || n > TV_SEG_MAX_IMPACTS) return 0;
    for (uint64_t i = 0; i < n; i++) {
        if (!(q = tv_vget(q, end, &fr)) || q >= end) return 0;
        out[i].freq = (uint32_t)TV_MIN(fr + 1, (uint64_t)UINT32_MAX);
        out[i].norm = *q++;
    }
    return (size_t)n;
}

/* Impacts of the tail block, computed from its docs, freqs and norms. */
static void tail_impacts(tv_postings *p) {
    p->tail_done = true;
    p->ntail_imps = 0;
    p->tail_last = TV_NO_MORE_DOCS;
    uint32_t cnt = p->df - p->nb * TV_BLOCK;
    if (cnt == 0 || p->tail_off >= (size_t)(p->sec_end - p->data)) return;
    const uint8_t *q = p->data + p->tail_off, *end = p->sec_end;
    uint64_t d = p->nb ? (uint64_t)skip_last(p, p->nb - 1) : UINT64_MAX;
    const uint8_t *norms = p->f->norms;
    /* Pareto set by norm: best freq per norm value, then sweep */
    uint32_t best[256];
    memset(best, 0, sizeof best);
    uint32_t j = 0;
    for (; j < cnt; j++) {
        uint64_t v, fr = 1;
        if (!(q = tv_vget(q, end, &v))) break;
        if (p->has_freqs) {
            if (!(v & 1) && !(q = tv_vget(q, end, &fr))) break;
            v >>= 1;
        }
        d += v + 1;
        if (d >= p->max_doc) break;
        uint8_t nrm = norms ? norms[d] : 0;
        uint32_t f32 = (uint32_t)TV_MIN(fr, (uint64_t)UINT32_MAX);
        if (f32 > best[nrm]) best[nrm] = f32;
    }
    if (j == 0) return;
    p->tail_last = (uint32_t)d;
    tv_impact tmp[256];
    size_t k = 0;
    for (int nrm = 0; nrm < 256; nrm++)
        if (best[nrm] && (k == 0 || best[nrm] > tmp[k - 1].freq)) tmp[k++] = (tv_impact){best[nrm], (uint8_t)nrm};
    while (k > TV_SEG_MAX_IMPACTS) {
        size_t bi = 0;
        for (size_t i = 1; i + 1 < k; i++)
            if (tmp[i + 1].freq - tmp[i].freq < tmp[bi + 1].freq - tmp[bi].freq) bi = i;
        tmp[bi].freq = tmp[bi + 1].freq;
        memmove(&tmp[bi + 1], &tmp[bi + 2], (k - bi - 2) * sizeof tmp[0]);
        k--;
    }
    memcpy(p->tail_imps, tmp, k * sizeof tmp[0]);
    p->ntail_imps = k;
}

uint32_t tv_postings_impacts(tv_postings *p, uint32_t target, const tv_impact **imp, size_t *n) {
    *imp = p->imps;
    *n = 0;
    if (p->kind != PK_TERM) {
        if (p->kind == PK_EMPTY) return TV_NO_MORE_DOCS;
        p->imps[0] = (tv_impact){1, 0};
        *n = 1;
        return TV_NO_MORE_DOCS;
    }
    uint32_t lo = 0, hi = p->nb;
    if (p->blk != UINT32_MAX && p->blk < p->nb && p->doc != TV_NO_MORE_DOCS && target >= p->doc) lo = p->blk;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (skip_last(p, mid) < target) lo = mid + 1;
        else hi = mid;
    }
    if (lo < p->nb) {
        p->nimp = 0;
        /* the block's impacts follow its doc gaps and freqs */
        uint32_t off = tv_ld32(p->skip + TV_SEG_SKIP * (size_t)lo + 4);
        const uint8_t *q = off < (size_t)(p->sec_end - p->data) ? p->data + off : p->sec_end;
        for (int part = 0; part < (p->has_freqs ? 2 : 1) && q < p->sec_end; part++) {
            size_t w = 1 + 16 * (size_t)q[0];
            q = q[0] <= 32 && w < (size_t)(p->sec_end - q) ? q + w : p->sec_end;
        }
        if (q < p->sec_end) p->nimp = read_impacts(q, p->sec_end, p->imps);
        if (p->nimp == 0) { /* corrupt: a bound that is always valid */
            p->imps[0] = (tv_impact){UINT32_MAX, 0};
            p->nimp = 1;
        }
        *n = p->nimp;
        return skip_last(p, lo);
    }
    if (!p->tail_done) tail_impacts(p);
    if (p->ntail_imps == 0 || target > p->tail_last) return TV_NO_MORE_DOCS;
    *imp = p->tail_imps;
    *n = p->ntail_imps;
    return p->tail_last;
}

/* ------------------------------------------------------ norms, doc values */

uint8_t tv_segment_norm(const tv_segment *s, uint32_t field, uint32_t doc) {
    const tv_segfield *f = tv_segment_field(s, field);
    if (!f || !f->norms || doc >= s->max_doc) return 0;
    return f->norms[doc];
}

const uint8_t *tv_segment_norms(const tv_segment *s, uint32_t field) {
    const tv_segfield *f = tv_segment_field(s, field);
    return f ? f->norms : NULL;
}

/* [a, z) of a doc in a per-doc offsets column over n values. */
static bool doc_range(const tv_col *offs, bool single, uint32_t doc, uint64_t n, uint64_t *a, uint64_t *z) {
    if (single) {
        *a = doc;
        *z = (uint64_t)doc + 1;
    } else {
        *a = (uint64_t)tv_col_get(offs, doc);
        *z = (uint64_t)tv_col_get(offs, (uint64_t)doc + 1);
    }
    return *a <= *z && *z <= n;
}

static uint32_t dv_numeric(const tv_segfield *f, uint32_t max_doc, uint32_t doc, int64_t *out, uint32_t cap) {
    uint64_t a, z;
    if (!f || !f->has_dvn || doc >= max_doc ||
        !doc_range(&f->dvn_offs, f->dvn_single, doc, f->dvn_vals.n, &a, &z))
        return 0;
    uint64_t cnt = z - a;
    if (cnt > UINT32_MAX) cnt = UINT32_MAX;
    for (uint64_t i = 0; i < cnt && i < cap; i++) out[i] = tv_col_get(&f->dvn_vals, a + i);
    return (uint32_t)cnt;
}

uint32_t tv_segment_dv_numeric(const tv_segment *s, uint32_t field, uint32_t doc, int64_t *out,
                               uint32_t cap) {
    return dv_numeric(tv_segment_field(s, field), s->max_doc, doc, out, cap);
}

void tv_segment_dv_reader(const tv_segment *s, uint32_t field, tv_dv_reader *out) {
    out->f = tv_segment_field(s, field);
    out->max_doc = s->max_doc;
}

uint32_t tv_dv_read_numeric(const tv_dv_reader *r, uint32_t doc, int64_t *out, uint32_t cap) {
    return dv_numeric(r->f, r->max_doc, doc, out, cap);
}

uint32_t tv_segment_dv_ords(const tv_segment *s, uint32_t field, uint32_t doc, uint32_t *out,
                            uint32_t cap) {
    const tv_segfield *f = tv_segment_field(s, field);
    uint64_t a, z;
    if (!f || !f->has_dvs || doc >= s->max_doc ||
        !doc_range(&f->dvs_doc_offs, f->dvs_single, doc, f->dvs_ords.n, &a, &z))
        return 0;
    uint64_t cnt = z - a;
    if (cnt > UINT32_MAX) cnt = UINT32_MAX;
    for (uint64_t i = 0; i < cnt && i < cap; i++) {
        uint64_t o = (uint64_t)tv_col_get(&f->dvs_ords, a + i);
        out[i] = o < f->dvs_nords ? (uint32_t)o : 0;
    }
    return (uint32_t)cnt;
}

bool tv_segment_dv_term(const tv_segment *s, uint32_t field, uint32_t ord, const char **term,
                        size_t *len) {
    const tv_segfield *f = tv_segment_field(s, field);
    if (!f || !f->has_dvs || ord >= f->dvs_nords) return false;
    uint64_t a = (uint64_t)tv_col_get(&f->dvs_term_offs, ord);
    uint64_t z = (uint64_t)tv_col_get(&f->dvs_term_offs, (uint64_t)ord + 1);
    if (a > z || z > f->dvs_blob_len) return false;
    *term = (const char *)f->dvs_blob + a;
    *len = (size_t)(z - a);
    return true;
}

uint32_t tv_segment_dv_ord_count(const tv_segment *s, uint32_t field) {
    const tv_segfield *f = tv_segment_field(s, field);
    return f && f->has_dvs ? f->dvs_nords : 0;
}

tv_status tv_segment_points_range(const tv_segment *s, uint32_t field, int64_t lo, int64_t hi,
                                  tv_bitset *out) {
    const tv_segfield *f = tv_segment_field(s, field);
    if (!f || !f->has_points || lo > hi) return TROVE_OK;
    uint64_t a = 0, b = f->pt_vals.n;
    while (a < b) {
        uint64_t mid = a + (b - a) / 2;
        if (tv_col_get(&f->pt_vals, mid) < lo) a = mid + 1;
        else b = mid;
    }
    size_t lim = TV_MIN((size_t)s->max_doc, out->nbits);
    for (uint64_t i = a; i < f->pt_vals.n && tv_col_get(&f->pt_vals, i) <= hi; i++) {
        uint64_t d = (uint64_t)tv_col_get(&f->pt_docs, i);
        if (d < lim) tv_bitset_set(out, (size_t)d);
    }
    return TROVE_OK;
}

void tv_segment_points(const tv_segment *s, uint32_t field, tv_points_view *out) {
    const tv_segfield *f = tv_segment_field(s, field);
    out->f = f && f->has_points ? f : NULL;
    out->n = out->f ? f->pt_vals.n : 0;
}

int64_t tv_points_value(const tv_points_view *p, uint64_t i) {
    return tv_col_get(&((const tv_segfield *)p->f)->pt_vals, i);
}

uint32_t tv_points_doc(const tv_points_view *p, uint64_t i) {
    return (uint32_t)tv_col_get(&((const tv_segfield *)p->f)->pt_docs, i);
}

/* ---------------------------------------------------------------- stored */

/* Doc's _id from its front-coded block, into the arena (NUL-terminated).
 * An id is at most as long as its block's bytes, so one buffer of that
 * size holds every step. */
static tv_status read_id(const tv_segment *s, uint32_t doc, tv_arena *arena, tv_doc_meta *meta) {
    uint32_t blk = doc / TV_SEG_ID_BLOCK;
    uint64_t a = (uint64_t)tv_col_get(&s->m_id_blocks, blk);
    uint64_t z = (uint64_t)tv_col_get(&s->m_id_blocks, (uint64_t)blk + 1);
    if (a > z || z > s->m_id_blob_len || z - a > UINT32_MAX) return TROVE_ECORRUPT;
    char *id = tv_arena_alloc(arena, (size_t)(z - a) + 1);
    if (!id) return TROVE_ENOMEM;
    const uint8_t *q = s->m_id_blob + a, *end = s->m_id_blob + z;
    uint64_t len = 0;
    for (uint32_t k = 0; k <= doc % TV_SEG_ID_BLOCK; k++) {
        uint64_t pre, suf;
        if (!(q = tv_vget(q, end, &pre)) || !(q = tv_vget(q, end, &suf)) || pre > len ||
            suf > (uint64_t)(end - q))
            return TROVE_ECORRUPT;
        memcpy(id + pre, q, (size_t)suf);
        q += suf;
        len = pre + suf;
    }
    id[len] = '\0';
    meta->id = id;
    meta->id_len = (uint32_t)len;
    return TROVE_OK;
}

static tv_status read_meta(const tv_segment *s, uint32_t doc, tv_arena *arena, tv_doc_meta *meta) {
    tv_status st = read_id(s, doc, arena, meta);
    if (st != TROVE_OK) return st;
    uint64_t a, z;
    meta->routing = NULL;
    meta->routing_len = 0;
    if (bit_get(s->m_has_rt, doc)) {
        a = (uint64_t)tv_col_get(&s->m_rt_offs, doc);
        z = (uint64_t)tv_col_get(&s->m_rt_offs, (uint64_t)doc + 1);
        if (a > z || z > s->m_rt_blob_len || z - a > UINT32_MAX) return TROVE_ECORRUPT;
        char *rt = tv_arena_strndup(arena, (const char *)s->m_rt_blob + a, (size_t)(z - a));
        if (!rt) return TROVE_ENOMEM;
        meta->routing = rt;
        meta->routing_len = (uint32_t)(z - a);
    }
    meta->version = tv_col_get(&s->m_version, doc);
    meta->seq_no = tv_col_get(&s->m_seq, doc);
    meta->primary_term = tv_col_get(&s->m_term, doc);
    return TROVE_OK;
}

/* The chunk holding doc: its index, and where doc's bytes lie in it. */
static tv_status find_chunk(const tv_segment *s, uint32_t doc, uint32_t *chunk, size_t *start, size_t *end) {
    uint32_t lo = 0, hi = s->nchunks;
    if (s->nchunks == 0) return TROVE_ECORRUPT;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (tv_ld32(s->s_chunks + (size_t)mid * 32) <= doc) lo = mid;
        else hi = mid;
    }
    const uint8_t *e = s->s_chunks + (size_t)lo * 32;
    uint64_t raw_start = tv_ld64(e + 8);
    uint32_t raw_len = tv_ld32(e + 24);
    uint64_t a = (uint64_t)tv_col_get(&s->s_offs, doc), z = (uint64_t)tv_col_get(&s->s_offs, (uint64_t)doc + 1);
    if (a < raw_start || z < a || z - raw_start > raw_len) return TROVE_ECORRUPT;
    *chunk = lo;
    *start = (size_t)(a - raw_start);
    *end = (size_t)(z - raw_start);
    return TROVE_OK;
}

/* Decompresses the first `target` bytes of a chunk into the arena. */
static tv_status inflate_chunk(const tv_segment *s, uint32_t chunk, size_t target, tv_arena *arena,
                               const char **out) {
    const uint8_t *e = s->s_chunks + (size_t)chunk * 32;
    uint64_t comp_off = tv_ld64(e + 16);
    uint32_t comp_len = tv_ld32(e + 28);
    char *dst = tv_arena_alloc(arena, target + 1);
    if (!dst) return TROVE_ENOMEM;
    if (target) {
        int got = LZ4_decompress_safe_partial((const char *)s->s_comp + comp_off, dst, (int)comp_len,
                                              (int)target, (int)target);
        if (got < 0 || (size_t)got < target) return TROVE_ECORRUPT;
    }
    dst[target] = 0;
    *out = dst;
    return TROVE_OK;
}

tv_status tv_segment_doc_cached(const tv_segment *s, uint32_t doc, uint32_t upto, tv_stored_cache *cache,
                                tv_arena *arena, tv_doc_meta *meta, const char **source, size_t *source_len) {
    if (doc >= s->max_doc) return TROVE_EARG;
    tv_status st;
    if (meta && (st = read_meta(s, doc, arena, meta))) return st;
    if (!source) return TROVE_OK;
    *source = NULL;
    if (source_len) *source_len = 0;
    if (!bit_get(s->s_has_src, doc)) return TROVE_OK;
    uint32_t chunk;
    size_t a, z;
    if ((st = find_chunk(s, doc, &chunk, &a, &z))) return st;
    const char *raw = NULL;
    if (cache) {
        for (unsigned i = 0; i < TV_STORED_CACHE_WAYS; i++) {
            if (cache->way[i].seg == s && cache->way[i].chunk == chunk && cache->way[i].have >= z) {
                raw = cache->way[i].raw;
                break;
            }
        }
    }
    if (!raw) {
        size_t target = z;
        if (cache && upto > doc && upto < s->max_doc) {
            /* far enough for upto: its end when it shares the chunk, else
             * the whole chunk */
            uint32_t uchunk;
            size_t ua, uz;
            if (find_chunk(s, upto, &uchunk, &ua, &uz) == TROVE_OK)
                target = uchunk == chunk ? TV_MAX(z, uz) : tv_ld32(s->s_chunks + (size_t)chunk * 32 + 24);
        }
        if ((st = inflate_chunk(s, chunk, target, arena, &raw))) return st;
        if (cache) {
            unsigned w = cache->next++ % TV_STORED_CACHE_WAYS;
            cache->way[w].seg = s;
            cache->way[w].chunk = chunk;
            cache->way[w].raw = raw;
            cache->way[w].have = target;
        }
    }
    *source = raw + a;
    if (source_len) *source_len = z - a;
    return TROVE_OK;
}

tv_status tv_segment_doc(const tv_segment *s, uint32_t doc, tv_arena *arena, tv_doc_meta *meta,
                         const char **source, size_t *source_len) {
    return tv_segment_doc_cached(s, doc, doc, NULL, arena, meta, source, source_len);
}
