/*
 * segment_int.h — private to src/index/segment*.c (and the segment tests,
 * fuzzer and benchmark): the parsed view of a segment's bytes that the
 * reader builds at open, shared by the reader (segment.c) and the builder /
 * merger (segment_build.c). The byte format itself is specified in the
 * design comment of segment_build.c, which writes it.
 */
#ifndef TROVE_INDEX_SEGMENT_INT_H
#define TROVE_INDEX_SEGMENT_INT_H

#include "index/codec.h"
#include "index/index.h"

#define TV_SEG_MAGIC "TROVESEG"
#define TV_SEG_VERSION 2u
#define TV_SEG_HEADER 32u     /* fixed header bytes */
#define TV_SEG_SECTION 32u    /* bytes per section table entry */
#define TV_SEG_TERMS_PER_BLOCK 32u
#define TV_SEG_MAX_IMPACTS 16u
#define TV_SEG_SKIP 12u       /* bytes per postings skip entry */
#define TV_SEG_CHUNK 4096u    /* raw _source bytes per LZ4 chunk (at least) */
#define TV_SEG_MAX_DOCS 0x7fffffffu
#define TV_SEG_ID_BLOCK 16u   /* docs per front-coded block of _ids */
/* Doc values and points of one field hold at most this many values per doc
 * of the segment on average (a format limit that bounds the work a reader
 * can be made to do by a small corrupt file). */
#define TV_SEG_MAX_VALUES_PER_DOC 1024u

/* Section kinds. */
enum {
    TV_SEC_META = 1,     /* per-doc _id, _routing, version, seq_no, primary_term */
    TV_SEC_SOURCE = 2,   /* _source in LZ4 chunks */
    TV_SEC_NESTED = 3,   /* per-doc nested object (doc blocks); absent: all roots */
    TV_SEC_TERMS = 10,   /* term dictionary of a field */
    TV_SEC_POSTINGS = 11,/* doc/freq blocks, skip data, impacts */
    TV_SEC_POSITIONS = 12,
    TV_SEC_NORMS = 13,
    TV_SEC_DV_NUMERIC = 14,
    TV_SEC_DV_SORTED = 15,
    TV_SEC_POINTS = 16,
    TV_SEC_FIELD_DOCS = 17,
};

/* A packed column as read: n values, value i = min + slope*i +
 * packed_get(i) (modulo 2^64). */
typedef struct tv_col {
    const uint8_t *data;
    uint64_t n;
    int64_t min, slope;
    unsigned bits;
} tv_col;

static inline int64_t tv_col_get(const tv_col *c, uint64_t i) {
    if (TV_UNLIKELY(i >= c->n)) return c->min;
    return (int64_t)((uint64_t)c->min + (uint64_t)c->slope * i + tv_packed_get(c->data, c->bits, i));
}

typedef struct tv_segfield {
    uint32_t id;
    /* terms */
    const uint8_t *terms;      /* TERMS section, NULL if none */
    size_t terms_len;
    uint32_t nterms, nblocks, max_term_len;
    tv_field_stats stats;
    uint8_t index_options;
    const uint8_t *block_offs; /* nblocks u32, validated ascending and in range */
    const uint8_t *blocks;     /* term blocks area */
    size_t blocks_len;
    const uint8_t *post;       /* POSTINGS section */
    size_t post_len;
    const uint8_t *pos;        /* POSITIONS section, NULL if none */
    size_t pos_len;
    /* norms: max_doc bytes, NULL if none */
    const uint8_t *norms;
    /* sorted numeric doc values */
    bool has_dvn;
    bool dvn_single;           /* value index == doc, every doc has exactly one */
    tv_col dvn_offs, dvn_vals;
    /* sorted set doc values */
    bool has_dvs;
    bool dvs_single;
    uint32_t dvs_nords;
    tv_col dvs_term_offs, dvs_doc_offs, dvs_ords;
    const uint8_t *dvs_blob;
    uint64_t dvs_blob_len;
    /* points: values sorted ascending (with their docs) */
    bool has_points;
    tv_col pt_vals, pt_docs;
    /* docs with any value */
    bool has_fdocs;
    bool fdocs_bitset;
    uint32_t fdocs_count;
    const uint8_t *fdocs_bits; /* bitset words (bitset mode) */
    tv_col fdocs_list;         /* list mode */
} tv_segfield;

struct tv_segment {
    _Atomic long refs;
    uint64_t id;
    uint8_t *bytes; /* owned: tv_free'd, or unmapped when mapped */
    size_t len;
    bool mapped;
    uint32_t max_doc;
    tv_segfield *fields; /* sorted by id */
    uint32_t nfields;
    /* META */
    tv_col m_version, m_seq, m_term, m_id_blocks, m_rt_offs;
    const uint8_t *m_id_blob, *m_rt_blob;
    uint64_t m_id_blob_len, m_rt_blob_len;
    const uint8_t *m_has_rt; /* bitset words */
    /* SOURCE */
    uint32_t nchunks;
    const uint8_t *s_has_src; /* bitset words */
    tv_col s_offs;            /* max_doc+1 cumulative raw offsets */
    const uint8_t *s_chunks;  /* nchunks * 32 bytes */
    const uint8_t *s_comp;
    uint64_t s_comp_len;
    /* NESTED: per-doc 1 + nested object field id (0: root) */
    bool has_nest;
    tv_col n_nest;
    uint64_t *roots; /* tv_malloc'd at open when has_nest: root docs */
    uint32_t nroots;
    /* the distinct nonzero nest values (ascending) and, per value, the
     * bitset of its docs, built on first use and published by CAS
     * (tv_segment_nest_docs) */
    uint32_t *nest_vals;
    uint64_t *_Atomic *nest_docs;
    uint32_t nnest;
    /* a Bloom filter of the _id terms, built on the first id lookup and
     * published by CAS (tv_segment_id_maybe); idf_empty: none to build */
    struct tv_idfilter *_Atomic idf;
};

/* The field of a segment, or NULL. */
const tv_segfield *tv_segment_field(const tv_segment *s, uint32_t field);
/* Opens bytes that are already owned (takes ownership even on failure). */
tv_status tv_segment_open_owned(uint8_t *bytes, size_t len, bool verify_checksums,
                                tv_segment **out, tv_error *err);
/* Recomputes every checksum of serialized segment bytes whose header and
 * section table parse (for tests and the fuzzer, to reach the structural
 * validation behind the checksums). Returns false if the table is unusable. */
bool tv_segment_fix_checksums(uint8_t *bytes, size_t len);


/* Iterating a segment's fields (for merge and tests). */
static inline uint32_t tv_segment_nfields(const tv_segment *s) { return s->nfields; }
static inline const tv_segfield *tv_segment_field_at(const tv_segment *s, uint32_t i) {
    return &s->fields[i];
}

#endif /* TROVE_INDEX_SEGMENT_INT_H */
