/*
 * tf_min_hash.c — the `min_hash` token filter (Lucene's MinHashFilter via
 * OpenSearch's MinHashTokenFilterFactory: hash_count 1, bucket_count 512,
 * hash_set_size 1, with_rotation true when bucket_count > 1).
 *
 * Every term (as UTF-16LE bytes) is hashed with MurmurHash3 x64 128 (seed
 * 0) and combined (h*37 + g) with the hash of each variant number i (its 4
 * big-endian bytes); the variant's bucket is the high 32 bits of the high
 * half divided by ceil(2^32 / bucket_count), and each bucket keeps its
 * hash_set_size smallest values (unsigned, high half first). With
 * rotation (and a set size of 1), an empty bucket borrows the smallest
 * value of the next non-empty one, cyclically. The output is, variant by
 * variant and bucket by bucket, one token per kept value: the value's 16-bit
 * chunks as UTF-16 units (the variant number's two first when hash_count >
 * 1; the low half's last two only when it is 1), type MIN_HASH, the first
 * at the next position and the rest stacked on it, offsets 0 to the last
 * input token's end. A chunk that is a lone surrogate cannot be written
 * as UTF-8 and becomes U+FFFD.
 *
 * Buckets are fixed arrays sorted by insertion; rejected: Java's tree sets
 * (the sets hold one value by default).
 */
#include "text/text_int.h"

typedef struct mh_cfg {
    int64_t hash_count, bucket_count, set_size;
    bool rotation;
} mh_cfg;

typedef struct pair128 {
    uint64_t lo, hi; /* Lucene's val1, val2 */
} pair128;

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static uint64_t fmix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

static uint64_t le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* MurmurHash3_x64_128, seed 0. */
static pair128 murmur3(const uint8_t *key, size_t len) {
    const uint64_t c1 = 0x87c37b91114253d5ull, c2 = 0x4cf5ad432745937full;
    uint64_t h1 = 0, h2 = 0;
    size_t nblocks = len / 16;
    for (size_t i = 0; i < nblocks; i++) {
        uint64_t k1 = le64(key + i * 16), k2 = le64(key + i * 16 + 8);
        k1 *= c1; k1 = rotl(k1, 31); k1 *= c2; h1 ^= k1;
        h1 = rotl(h1, 27); h1 += h2; h1 = h1 * 5 + 0x52dce729;
        k2 *= c2; k2 = rotl(k2, 33); k2 *= c1; h2 ^= k2;
        h2 = rotl(h2, 31); h2 += h1; h2 = h2 * 5 + 0x38495ab5;
    }
    const uint8_t *tail = key + nblocks * 16;
    uint64_t k1 = 0, k2 = 0;
    size_t rem = len & 15;
    for (size_t i = rem; i > 8; i--) k2 |= (uint64_t)tail[i - 1] << (8 * (i - 9));
    if (rem > 8) { k2 *= c2; k2 = rotl(k2, 33); k2 *= c1; h2 ^= k2; }
    for (size_t i = rem < 8 ? rem : 8; i > 0; i--) k1 |= (uint64_t)tail[i - 1] << (8 * (i - 1));
    if (rem > 0) { k1 *= c1; k1 = rotl(k1, 31); k1 *= c2; h1 ^= k1; }
    h1 ^= len; h2 ^= len;
    h1 += h2; h2 += h1;
    h1 = fmix(h1); h2 = fmix(h2);
    h1 += h2; h2 += h1;
    return (pair128){h1, h2};
}

static int cmp_pair(pair128 a, pair128 b) {
    if (a.hi != b.hi) return a.hi < b.hi ? -1 : 1;
    if (a.lo != b.lo) return a.lo < b.lo ? -1 : 1;
    return 0;
}

static tv_status mh_build(tv_comp *c, const void **out, tv_error *err) {
    mh_cfg *m = tv_comp_alloc(c, sizeof *m);
    if (!m) return TROVE_ENOMEM;
    tv_status st = tv_comp_int(c, "hash_count", 1, &m->hash_count, err);
    if (!st) st = tv_comp_int(c, "bucket_count", 512, &m->bucket_count, err);
    if (!st) st = tv_comp_int(c, "hash_set_size", 1, &m->set_size, err);
    if (!st) st = tv_comp_bool(c, "with_rotation", m->bucket_count > 1, &m->rotation, err);
    if (st) return st;
    if (m->hash_count <= 0) return tv_error_set(err, TROVE_EARG, "hashCount must be greater than zero");
    if (m->bucket_count <= 0) return tv_error_set(err, TROVE_EARG, "bucketCount must be greater than zero");
    if (m->set_size <= 0) return tv_error_set(err, TROVE_EARG, "hashSetSize must be greater than zero");
    if (m->hash_count * m->bucket_count * m->set_size > (1 << 24))
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "min_hash with hash_count * bucket_count * hash_set_size above %d is not supported",
                            1 << 24);
    *out = m;
    return TROVE_OK;
}

/* Appends UTF-16 unit u (pairing surrogates with the pending one). */
static void put_unit(uint16_t u, uint16_t *pend, char *o, size_t *w) {
    if (*pend) {
        uint16_t hi = *pend;
        *pend = 0;
        if (u >= 0xDC00 && u < 0xE000) {
            *w += tv_utf8_encode(0x10000 + (((uint32_t)hi - 0xD800) << 10) + (u - 0xDC00),
                                 (uint8_t *)o + *w);
            return;
        }
        *w += tv_utf8_encode(0xFFFD, (uint8_t *)o + *w);
    }
    if (u >= 0xD800 && u < 0xDC00) *pend = u;
    else *w += tv_utf8_encode(u >= 0xDC00 && u < 0xE000 ? 0xFFFD : u, (uint8_t *)o + *w);
}

static tv_status mh_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const mh_cfg *m = cfg;
    size_t H = (size_t)m->hash_count, B = (size_t)m->bucket_count, S = (size_t)m->set_size;
    if (v->len == 0) return TROVE_OK;
    pair128 *sets = tv_arena_alloc(a, H * B * S * sizeof *sets);
    uint32_t *cnt = tv_arena_alloc(a, H * B * sizeof *cnt);
    pair128 *ih = tv_arena_alloc(a, H * sizeof *ih);
    uint8_t *buf = NULL;
    size_t bufcap = 0;
    if (!sets || !cnt || !ih) return TROVE_ENOMEM;
    memset(cnt, 0, H * B * sizeof *cnt);
    for (size_t i = 0; i < H; i++) {
        uint8_t be[4] = {(uint8_t)(i >> 24), (uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i};
        ih[i] = murmur3(be, 4);
    }
    uint64_t bsize = ((uint64_t)1 << 32) / B + (((uint64_t)1 << 32) % B != 0);
    for (size_t t = 0; t < v->len; t++) {
        const tv_token *tk = &v->items[t];
        if ((size_t)tk->term_len * 2 + 4 > bufcap) {
            bufcap = (size_t)tk->term_len * 2 + 4;
            if (!(buf = tv_arena_alloc(a, bufcap))) return TROVE_ENOMEM;
        }
        size_t n = 0; /* the term as UTF-16LE */
        const uint8_t *s = (const uint8_t *)tk->term, *end = s + tk->term_len;
        while (s < end) {
            uint32_t cp;
            s += tv_utf8_decode(s, end, &cp);
            if (cp >= 0x10000) {
                uint16_t hi = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10));
                uint16_t lo = (uint16_t)(0xDC00 + ((cp - 0x10000) & 0x3FF));
                buf[n++] = (uint8_t)hi; buf[n++] = (uint8_t)(hi >> 8);
                buf[n++] = (uint8_t)lo; buf[n++] = (uint8_t)(lo >> 8);
            } else {
                buf[n++] = (uint8_t)cp; buf[n++] = (uint8_t)(cp >> 8);
            }
        }
        pair128 h = murmur3(buf, n);
        for (size_t i = 0; i < H; i++) {
            pair128 r = {h.lo * 37 + ih[i].lo, h.hi * 37 + ih[i].hi};
            size_t b = (size_t)((r.hi >> 32) / bsize);
            pair128 *set = &sets[(i * B + b) * S];
            uint32_t *c = &cnt[i * B + b];
            /* FixedSizeTreeSet.add: when full, a value below the largest
             * evicts it first, even if the value is there already */
            if (*c == S) {
                if (cmp_pair(r, set[S - 1]) >= 0) continue;
                (*c)--;
            }
            size_t pos = 0;
            while (pos < *c && cmp_pair(set[pos], r) < 0) pos++;
            if (pos < *c && cmp_pair(set[pos], r) == 0) continue;
            memmove(set + pos + 1, set + pos, (*c - pos) * sizeof *set);
            set[pos] = r;
            (*c)++;
        }
    }
    if (m->rotation && S == 1) {
        for (size_t i = 0; i < H; i++)
            for (size_t b = 0; b < B; b++) {
                if (cnt[i * B + b]) continue;
                for (size_t off = 1; off < B; off++) {
                    size_t nb = (b + off) % B;
                    if (cnt[i * B + nb]) {
                        sets[(i * B + b) * S] = sets[(i * B + nb) * S];
                        cnt[i * B + b] = 1;
                        break;
                    }
                }
            }
    }
    const tv_token *lastt = &v->items[v->len - 1];
    tv_tokvec out = {0};
    bool first = true;
    for (size_t i = 0; i < H; i++)
        for (size_t b = 0; b < B; b++)
            for (size_t k = 0; k < cnt[i * B + b]; k++) {
                pair128 p = sets[(i * B + b) * S + k];
                uint16_t units[10];
                size_t nu = 0;
                if (H > 1) {
                    units[nu++] = (uint16_t)(i >> 16);
                    units[nu++] = (uint16_t)i;
                }
                for (int sh = 48; sh >= 0; sh -= 16) units[nu++] = (uint16_t)(p.hi >> sh);
                units[nu++] = (uint16_t)(p.lo >> 48);
                units[nu++] = (uint16_t)(p.lo >> 32);
                if (H == 1) {
                    units[nu++] = (uint16_t)(p.lo >> 16);
                    units[nu++] = (uint16_t)p.lo;
                }
                char *o = tv_arena_alloc(a, nu * 3 + 4);
                if (!o) return TROVE_ENOMEM;
                size_t w = 0;
                uint16_t pend = 0;
                for (size_t u = 0; u < nu; u++) put_unit(units[u], &pend, o, &w);
                if (pend) w += tv_utf8_encode(0xFFFD, (uint8_t *)o + w);
                o[w] = 0;
                tv_token t = {0};
                t.term = o;
                t.term_len = (uint32_t)w;
                t.position = first ? 1 : 0;
                t.end = lastt->end;
                t.end16 = lastt->end16;
                t.type = TV_TOK_MIN_HASH;
                first = false;
                if (tv_tokvec_push(a, &out, &t)) return TROVE_ENOMEM;
            }
    *v = out;
    return TROVE_OK;
}

const tv_filter_type tv_tf_min_hash = {"min_hash", mh_build, mh_apply};
