/*
 * roaring.c — the terms query's `"value_type": "bitmap"`: a RoaringBitmap
 * in its portable serialization (the format every Roaring library
 * shares, what OpenSearch's RoaringBitmap.deserialize reads), decoded
 * here, and the query that matches an integer field's documents whose
 * value the bitmap contains (IntegerFieldType.bitmapQuery).
 *
 * The format (little-endian throughout):
 *   cookie u32: 12346 (no run containers) followed by the container count
 *     u32; or 12347 in the low 16 bits with count - 1 in the high 16,
 *     followed by a bitset of (count + 7) / 8 bytes marking run containers;
 *   per container: its key u16 (the values' high 16 bits) and its
 *     cardinality - 1 u16;
 *   without run containers, or with 4 containers or more, an offset u32
 *     per container (skipped: containers follow one another, as
 *     RoaringArray.deserialize reads them);
 *   each container: a run container is its run count u16 and that many
 *     (start u16, length - 1 u16) pairs; otherwise a cardinality up to
 *     4096 is an array of that many u16, above it a bitmap of 1024 u64.
 * The decoder never expands the values: it keeps each container's place
 * in a copy of the bytes and answers membership by binary search over the
 * keys, then inside the container, so a hostile bitmap of 2^32 values
 * costs its own size. Every length is checked against the input; a short
 * or malformed input, a bad cookie, more than 65536 containers or keys
 * out of order fail with "Failed to deserialize the bitmap." as
 * OpenSearch reports the library's exception.
 *
 * The query is a TV_Q_EXT node with a constant score (the boost, as
 * BitmapIndexQuery's ConstantScoreWeight): per segment it walks the
 * field's doc values and keeps a document when one of its values, as a
 * Java int (the bitmap's unsigned 32 bits), is in the bitmap.
 *
 * Alternatives rejected: expanding the bitmap into a terms set (memory
 * unbounded by the request size), and linking CRoaring (a dependency for
 * sixty lines of reading).
 */
#include <stdio.h>
#include <stdlib.h>

#include "query/parse.h"

#define COOKIE_NO_RUN 12346u
#define COOKIE_RUN 12347u

enum { C_ARRAY, C_BITMAP, C_RUN };

typedef struct rb_container {
    uint16_t key;
    uint8_t kind;
    uint32_t n;          /* array: values; run: runs */
    const uint8_t *data; /* into the copy */
} rb_container;

struct tv_roaring {
    rb_container *c;
    uint32_t n;
};

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

tv_status tv_roaring_decode(const void *bytes, size_t len, tv_arena *arena, tv_roaring **out) {
    *out = NULL;
    const uint8_t *p = bytes;
    if (len < 4) return TROVE_ECORRUPT;
    uint32_t cookie = rd32(p), count;
    size_t pos = 4;
    const uint8_t *runs = NULL;
    if ((cookie & 0xFFFF) == COOKIE_RUN) {
        count = (cookie >> 16) + 1;
        size_t rl = (count + 7) / 8;
        if (len - pos < rl) return TROVE_ECORRUPT;
        runs = p + pos;
        pos += rl;
    } else if (cookie == COOKIE_NO_RUN) {
        if (len - pos < 4) return TROVE_ECORRUPT;
        count = rd32(p + pos);
        pos += 4;
        if (count > 65536) return TROVE_ECORRUPT;
    } else {
        return TROVE_ECORRUPT;
    }
    if ((len - pos) / 4 < count) return TROVE_ECORRUPT; /* the key/cardinality header */
    const uint8_t *hdr = p + pos;
    pos += (size_t)count * 4;
    if (!runs || count >= 4) {
        if ((len - pos) / 4 < count) return TROVE_ECORRUPT;
        pos += (size_t)count * 4;
    }
    uint8_t *copy = (uint8_t *)tv_arena_memdup(arena, p, len);
    tv_roaring *r = tv_arena_calloc(arena, 1, sizeof *r);
    rb_container *cs = tv_arena_calloc(arena, count ? count : 1, sizeof *cs);
    if (!copy || !r || !cs) return TROVE_ENOMEM;
    for (uint32_t i = 0; i < count; i++) {
        uint16_t key = rd16(hdr + 4 * (size_t)i);
        uint32_t card = (uint32_t)rd16(hdr + 4 * (size_t)i + 2) + 1;
        if (i && key <= cs[i - 1].key) return TROVE_ECORRUPT;
        rb_container *c = &cs[i];
        c->key = key;
        if (runs && (runs[i / 8] >> (i % 8)) & 1) {
            if (len - pos < 2) return TROVE_ECORRUPT;
            c->kind = C_RUN;
            c->n = rd16(p + pos);
            pos += 2;
            if ((len - pos) / 4 < c->n) return TROVE_ECORRUPT;
            c->data = copy + pos;
            pos += (size_t)c->n * 4;
        } else if (card <= 4096) {
            c->kind = C_ARRAY;
            c->n = card;
            if ((len - pos) / 2 < card) return TROVE_ECORRUPT;
            c->data = copy + pos;
            pos += (size_t)card * 2;
        } else {
            c->kind = C_BITMAP;
            if (len - pos < 8192) return TROVE_ECORRUPT;
            c->data = copy + pos;
            pos += 8192;
        }
    }
    r->c = cs;
    r->n = count;
    *out = r;
    return TROVE_OK;
}

bool tv_roaring_contains(const tv_roaring *r, uint32_t v) {
    uint16_t hi = (uint16_t)(v >> 16), lo = (uint16_t)v;
    uint32_t a = 0, b = r->n;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (r->c[m].key < hi) a = m + 1;
        else b = m;
    }
    if (a == r->n || r->c[a].key != hi) return false;
    const rb_container *c = &r->c[a];
    if (c->kind == C_BITMAP) return (c->data[lo >> 3] >> (lo & 7)) & 1;
    if (c->kind == C_ARRAY) {
        uint32_t x = 0, y = c->n;
        while (x < y) {
            uint32_t m = x + (y - x) / 2;
            if (rd16(c->data + 2 * (size_t)m) < lo) x = m + 1;
            else y = m;
        }
        return x < c->n && rd16(c->data + 2 * (size_t)x) == lo;
    }
    /* runs: the last run starting at or before lo */
    uint32_t x = 0, y = c->n;
    while (x < y) {
        uint32_t m = x + (y - x) / 2;
        if (rd16(c->data + 4 * (size_t)m) <= lo) x = m + 1;
        else y = m;
    }
    if (x == 0) return false;
    uint32_t start = rd16(c->data + 4 * (size_t)(x - 1)), length = rd16(c->data + 4 * (size_t)(x - 1) + 2);
    return lo <= start + length;
}

/* ------------------------------------------------------------- the query */

static bool bm_test(const void *st, const int64_t *v, uint32_t n, float *score) {
    (void)score;
    for (uint32_t i = 0; i < n; i++)
        if (tv_roaring_contains(st, (uint32_t)(int32_t)v[i])) return true;
    return false;
}


static tv_status bm_plan(tv_query *q, const tv_segview *sv, struct tv_plan_ctx *ctx, tv_iter **out) {
    return tv_iter_dv_scan(sv, q->field_id, bm_test, q->u.ext.state, q->score_boost, q->score_boost, ctx->arena, out);
}

tv_status tv_q_bitmap(tv_dsl *d, const tv_field *f, const void *bytes, size_t len, uint32_t off, tv_query **out) {
    if (f->type != TV_FT_INTEGER)
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, off,
                            "[terms] query with [value_type] [bitmap] on a field of type [%s] is not supported by trove",
                            tv_field_declared_type(f));
    if (!f->doc_values)
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, off,
                            "[terms] query with [value_type] [bitmap] on a field without doc values is not supported by trove");
    tv_roaring *r;
    tv_status st = tv_roaring_decode(bytes, len, d->arena, &r);
    if (st == TROVE_ENOMEM) return tv_error_oom(d->err);
    if (st) {
        /* IntegerFieldType.bitmapQuery on the shard */
        tv_dsl_error(d, TROVE_EARG, off, "Failed to deserialize the bitmap.");
        if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
        return TROVE_EARG;
    }
    tv_query *q = tv_q_new(d, TV_Q_EXT);
    if (!q) return tv_error_oom(d->err);
    q->field = f;
    q->field_id = f->id;
    q->u.ext.plan = bm_plan;
    q->u.ext.state = r;
    *out = q;
    return TROVE_OK;
}

/* java.util.Base64.getDecoder(): the basic alphabet, '=' padding only at
 * the end, no line breaks; *n_out bytes written to out (len * 3 / 4 + 3
 * bytes suffice). Returns the offending character (>= 0) or -1 when the
 * input is valid; -2 for a bad length or padding. */
static int base64_decode(const char *s, size_t n, uint8_t *out, size_t *n_out) {
    static int8_t val[256];
    static bool init;
    if (!init) {
        memset(val, -1, sizeof val);
        const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (int i = 0; i < 64; i++) val[(unsigned char)a[i]] = (int8_t)i;
        init = true;
    }
    size_t o = 0, end = n;
    while (end > 0 && s[end - 1] == '=') end--;
    if (n - end > 2) return -2;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < end; i++) {
        int v = val[(unsigned char)s[i]];
        if (v < 0) return (unsigned char)s[i];
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (uint8_t)(acc >> bits);
        }
    }
    if (end % 4 == 1) return -2; /* a lone 6-bit unit */
    if (n != end && n % 4 != 0) return -2;
    *n_out = o;
    return -1;
}

tv_status tv_q_bitmap_base64(tv_dsl *d, const tv_field *f, const char *s, size_t n, uint32_t off, tv_query **out) {
    uint8_t *buf = tv_arena_alloc(d->arena, n / 4 * 3 + 4);
    if (!buf) return tv_error_oom(d->err);
    size_t bl = 0;
    int bad = base64_decode(s, n, buf, &bl);
    if (bad >= 0) return tv_dsl_error(d, TROVE_EARG, off, "Illegal base64 character %x", bad);
    if (bad == -2)
        return tv_dsl_error(d, TROVE_EARG, off, "Last unit does not have enough valid bits");
    return tv_q_bitmap(d, f, buf, bl, off, out);
}
