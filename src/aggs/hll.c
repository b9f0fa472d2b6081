/*
 * hll.c — OpenSearch's HyperLogLog++ for the `cardinality` aggregation,
 * reproduced so that every count it can compute equals OpenSearch's.
 *
 * Hashes. A keyword (bytes) value is hashed with MurmurHash3 x64_128, seed
 * 0, keeping h1; a long with hppc's BitMixer.mix64 (Stafford's variant 9:
 * two xor-shift-multiply rounds, constants 0x4cd6944c5cc20b6d and
 * 0xfc12c5b19d3259e9, shifts 32/29/32); a double with mix64 of
 * doubleToLongBits. The hash is used as is (no rehash, the `rehash`
 * parameter has been ignored since Elasticsearch 6).
 *
 * Precision. precision_threshold t gives p = clamp(bitsRequired(
 * ceil(t / 0.75f) * 4), 4, 18), with Java's arithmetic: t is converted to a
 * float and divided in float, ceil in double, the product in a (wrapping)
 * long; bitsRequired(v) = max(1, 64 - nlz(v)) and throws for v < 0. No
 * threshold means p = 14.
 *
 * Linear counting phase. A hash becomes a 32-bit non-zero code keeping its
 * top P2 = 25 bits e: if the low 25 - p bits of e are not all zero, the
 * code is e << 1 (the register index and run length can be recovered from
 * e alone); otherwise it is e << 7 | runLen << 1 | 1 with runLen = 1 +
 * min(nlz(hash << 25), 39). The phase keeps the set of distinct codes; its
 * count is linear counting over 2^25 virtual registers, round(2^25 *
 * ln(2^25 / (2^25 - n))), which is n itself up to a few thousand (n = 11000
 * already gives 11001). Two values count once when their hashes share a
 * code, so "exact" means exact up to that. OpenSearch switches to registers
 * when the set would exceed (2^p / 4) * 0.75 codes (3072 for p = 14): its
 * set lives in the 2^p bytes the registers will occupy, as ints.
 *
 * Register phase. Register index = top p bits, value = max run length 1 +
 * min(nlz(hash << p), 64 - p); a code decodes to the same pair, so
 * replaying the set at the switch (or merging a set into registers) gives
 * the registers the hashes themselves would. The count: raw estimate e1 =
 * alpha * m * m / sum(2^-reg) summed in register order (alpha 0.673 for
 * p = 4, 0.697 for p = 5, else 0.7213 / (1 + 1.079 / m)); if some registers
 * are zero, h = round(m * ln(m / zeros)) and h is the answer when h <= the
 * paper's threshold for p (THRESHOLDS below, 11500 for p = 14); otherwise
 * the answer is round(e1) when e1 > 5m, and round(e1 - bias(e1)) when e1 <=
 * 5m, bias being a k = 6 nearest-neighbour interpolation in two empirical
 * tables (RAW_ESTIMATE_DATA and BIAS_DATA of AbstractHyperLogLog, about 200
 * doubles per precision from the paper's appendix). trove does not carry
 * those tables, so that case answers TV_HLL_NEEDS_BIAS instead of a number
 * that would differ from OpenSearch's.
 *
 * Merge (InternalCardinality.reduce): codes of a set are added one by one
 * (switching when the threshold is passed), registers are merged by max
 * after switching the destination. Set union and max commute, and the
 * switch happens exactly when the union passes the threshold, so the merge
 * equals the sketch of all hashes whatever the order of shards, segments
 * or collectors — which is also why OpenSearch's ordinals/direct/hybrid
 * collectors (execution_hint) give the same numbers.
 *
 * Floating point: the same operations in the same order as Java (no fused
 * multiply-add is possible in them); Java's Math.round is reproduced
 * exactly (floor, then up when the fraction is >= 0.5). Math.log may differ
 * from the C library's log in the last bit in rare cases; after the
 * multiplication by m that changes the count only if the product lies
 * within an ulp of a half-integer.
 *
 * Memory. OpenSearch gives every bucket 2^p bytes from the start. Here the
 * set starts at 4 slots and doubles (load <= 3/4, linear probing with a
 * multiplicative hash of the code), so a sketch with a handful of values is
 * a few dozen bytes; at the threshold the set is 2^p / 4 ints = 2^p bytes,
 * and only then the 2^p registers are allocated (and the set freed).
 *
 * Alternatives rejected: a sorted array for the set (O(n) inserts at a few
 * thousand codes); sparse HLL++ with 25-bit precision lists, as in the
 * paper (different numbers from OpenSearch's); computing the bias by any
 * other means (it would not be OpenSearch's answer).
 */
#include "aggs/hll.h"

#include <math.h>

#define HLL_P2 25
#define HLL_INITIAL_SLOTS 4u

/* The HLL++ paper's linear counting thresholds for p = 4..18
 * (AbstractHyperLogLog.THRESHOLDS). */
static const int64_t HLL_THRESHOLDS[] = {10,   20,   40,    80,    220,   400,    900,   1800,
                                         3100, 6500, 11500, 20000, 50000, 120000, 350000};

struct tv_hll {
    uint8_t p;
    bool dense;    /* registers (OpenSearch's HYPERLOGLOG) instead of the set */
    uint32_t size; /* set: distinct codes held */
    uint32_t cap;  /* set: slots (a power of two; 0 before the first add) */
    union {
        uint32_t *set; /* open addressing; 0 = empty (codes are never 0) */
        uint8_t *regs; /* 2^p registers */
    } u;
};

/* ------------------------------------------------------------- hashes */

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t load_le64(const unsigned char *b) {
    return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24 |
           (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 | (uint64_t)b[6] << 48 |
           (uint64_t)b[7] << 56;
}

static inline uint64_t fmix64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

void tv_murmur3_x64_128(const void *p, size_t n, uint64_t seed, uint64_t out[2]) {
    const uint64_t c1 = 0x87c37b91114253d5ULL, c2 = 0x4cf5ad432745937fULL;
    const unsigned char *b = p;
    uint64_t h1 = seed, h2 = seed;
    size_t blocks = n / 16;
    for (size_t i = 0; i < blocks; i++, b += 16) {
        uint64_t k1 = load_le64(b), k2 = load_le64(b + 8);
        k1 *= c1;
        k1 = rotl64(k1, 31);
        k1 *= c2;
        h1 ^= k1;
        h1 = rotl64(h1, 27);
        h1 += h2;
        h1 = h1 * 5 + 0x52dce729;
        k2 *= c2;
        k2 = rotl64(k2, 33);
        k2 *= c1;
        h2 ^= k2;
        h2 = rotl64(h2, 31);
        h2 += h1;
        h2 = h2 * 5 + 0x38495ab5;
    }
    /* tail: bytes 8..14 go to k2, bytes 0..7 to k1, little-endian */
    size_t rem = n & 15;
    uint64_t k1 = 0, k2 = 0;
    if (rem > 8) {
        for (size_t i = rem; i-- > 8;) k2 = (k2 << 8) | b[i];
        k2 *= c2;
        k2 = rotl64(k2, 33);
        k2 *= c1;
        h2 ^= k2;
    }
    if (rem > 0) {
        for (size_t i = rem > 8 ? 8 : rem; i-- > 0;) k1 = (k1 << 8) | b[i];
        k1 *= c1;
        k1 = rotl64(k1, 31);
        k1 *= c2;
        h1 ^= k1;
    }
    /* Java xors its int length (never negative, so no sign extension). */
    h1 ^= (uint64_t)n;
    h2 ^= (uint64_t)n;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    h2 += h1;
    out[0] = h1;
    out[1] = h2;
}

uint64_t tv_hash_bytes(const void *p, size_t n) {
    uint64_t h[2];
    tv_murmur3_x64_128(p, n, 0, h);
    return h[0];
}

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 32)) * 0x4cd6944c5cc20b6dULL;
    z = (z ^ (z >> 29)) * 0xfc12c5b19d3259e9ULL;
    return z ^ (z >> 32);
}

uint64_t tv_hash_long(int64_t v) { return mix64((uint64_t)v); }

uint64_t tv_hash_double(double v) {
    uint64_t bits;
    if (v != v) {
        bits = 0x7ff8000000000000ULL; /* doubleToLongBits: the canonical NaN */
    } else {
        memcpy(&bits, &v, sizeof bits);
    }
    return mix64(bits);
}

/* ----------------------------------------------------------- precision */

static inline int nlz64(uint64_t x) { return x ? __builtin_clzll(x) : 64; }
static inline int nlz32(uint32_t x) { return x ? __builtin_clz(x) : 32; }

int64_t tv_hll_table_bytes(int64_t precision_threshold) {
    /* Java: (long) Math.ceil(count / MAX_LOAD_FACTOR), a long over a float
     * is float division; the cast saturates at Long.MAX_VALUE. */
    float q = (float)precision_threshold / 0.75f;
    double c = ceil((double)q);
    int64_t entries = c >= 9223372036854775808.0 ? INT64_MAX : c <= -9223372036854775808.0 ? INT64_MIN : (int64_t)c;
    return (int64_t)((uint64_t)entries * 4u); /* wraps like Java's long */
}

int tv_hll_precision(int64_t precision_threshold) {
    if (precision_threshold < 0) return -1;
    uint64_t bytes = (uint64_t)tv_hll_table_bytes(precision_threshold);
    if (bytes >> 63) return -1;              /* bitsRequired(negative) throws */
    int bits = bytes ? 64 - nlz64(bytes) : 1;
    if (bits < TV_HLL_MIN_PRECISION) bits = TV_HLL_MIN_PRECISION;
    if (bits > TV_HLL_MAX_PRECISION) bits = TV_HLL_MAX_PRECISION;
    return bits;
}

/* ------------------------------------------------------ code and registers */

static inline uint32_t lc_threshold(int p) { return 3u << (p - 4); } /* (2^p/4)*0.75 */
static inline uint32_t lc_max_slots(int p) { return 1u << (p - 2); }

static uint32_t encode_hash(uint64_t hash, int p) {
    uint64_t e = hash >> (64 - HLL_P2);
    if ((e & ((1ULL << (HLL_P2 - p)) - 1)) == 0) {
        int nlz = nlz64(hash << HLL_P2);
        uint64_t run = 1 + (uint64_t)(nlz < 64 - HLL_P2 ? nlz : 64 - HLL_P2);
        return (uint32_t)((e << 7) | (run << 1) | 1);
    }
    return (uint32_t)(e << 1);
}

static inline void reg_put(uint8_t *regs, uint32_t index, int run) {
    if (regs[index] < run) regs[index] = (uint8_t)run;
}

static inline void reg_add_hash(tv_hll *h, uint64_t hash) {
    int p = h->p;
    uint32_t index = (uint32_t)(hash >> (64 - p));
    int nlz = nlz64(hash << p);
    reg_put(h->u.regs, index, 1 + (nlz < 64 - p ? nlz : 64 - p));
}

static inline void reg_add_code(tv_hll *h, uint32_t code) {
    int p = h->p, run;
    uint32_t index;
    if (code & 1) {
        run = (int)((code >> 1) & 0x3F) + (HLL_P2 - p);
        index = code >> 7;
    } else {
        run = 1 + nlz32(code << (31 + p - HLL_P2));
        index = code >> 1;
    }
    reg_put(h->u.regs, index >> (HLL_P2 - p), run);
}

/* ------------------------------------------------------------------ set */

static inline uint32_t slot_of(uint32_t code, uint32_t cap) {
    /* multiplicative hashing: the top log2(cap) bits of code * 2^32/phi */
    return (uint32_t)(((uint64_t)(code * 0x9E3779B1u) * cap) >> 32);
}

static bool set_has(const tv_hll *h, uint32_t code) {
    if (h->cap == 0) return false;
    uint32_t mask = h->cap - 1;
    for (uint32_t i = slot_of(code, h->cap);; i = (i + 1) & mask) {
        uint32_t v = h->u.set[i];
        if (v == code) return true;
        if (v == 0) return false;
    }
}

static void set_put(uint32_t *set, uint32_t cap, uint32_t code) {
    uint32_t mask = cap - 1;
    uint32_t i = slot_of(code, cap);
    while (set[i] != 0) i = (i + 1) & mask;
    set[i] = code;
}

static tv_status set_grow(tv_hll *h) {
    uint32_t ncap = h->cap ? h->cap * 2 : HLL_INITIAL_SLOTS;
    if (ncap > lc_max_slots(h->p)) ncap = lc_max_slots(h->p);
    uint32_t *nset = tv_calloc(ncap, sizeof *nset);
    if (!nset) return TROVE_ENOMEM;
    for (uint32_t i = 0; i < h->cap; i++)
        if (h->u.set[i]) set_put(nset, ncap, h->u.set[i]);
    tv_free(h->u.set);
    h->u.set = nset;
    h->cap = ncap;
    return TROVE_OK;
}

/* HyperLogLogPlusPlus.upgradeToHll: replay the codes into fresh registers. */
static tv_status upgrade(tv_hll *h) {
    uint8_t *regs = tv_calloc((size_t)1 << h->p, 1);
    if (!regs) return TROVE_ENOMEM;
    uint32_t *set = h->u.set;
    uint32_t cap = h->cap;
    h->u.regs = regs;
    h->dense = true;
    for (uint32_t i = 0; i < cap; i++)
        if (set[i]) reg_add_code(h, set[i]);
    tv_free(set);
    h->cap = 0;
    h->size = 0;
    return TROVE_OK;
}

/* LinearCounting.addEncoded, then the switch when the set passes the
 * threshold. The switch happens before the threshold+1-th code is stored
 * (it goes straight to the registers), which is the same final state. */
static tv_status add_code(tv_hll *h, uint32_t code) {
    if (h->dense) {
        reg_add_code(h, code);
        return TROVE_OK;
    }
    if (set_has(h, code)) return TROVE_OK;
    if (h->size >= lc_threshold(h->p)) {
        tv_status st = upgrade(h);
        if (st != TROVE_OK) return st;
        reg_add_code(h, code);
        return TROVE_OK;
    }
    if ((uint64_t)(h->size + 1) * 4 > (uint64_t)h->cap * 3) {
        tv_status st = set_grow(h);
        if (st != TROVE_OK) return st;
    }
    set_put(h->u.set, h->cap, code);
    h->size++;
    return TROVE_OK;
}

/* --------------------------------------------------------------- public */

tv_hll *tv_hll_new(int precision) {
    if (precision < TV_HLL_MIN_PRECISION || precision > TV_HLL_MAX_PRECISION) return NULL;
    tv_hll *h = tv_calloc(1, sizeof *h);
    if (!h) return NULL;
    h->p = (uint8_t)precision;
    return h;
}

void tv_hll_free(tv_hll *h) {
    if (!h) return;
    if (h->dense)
        tv_free(h->u.regs);
    else
        tv_free(h->u.set);
    tv_free(h);
}

tv_status tv_hll_add(tv_hll *h, uint64_t hash) {
    if (h->dense) {
        reg_add_hash(h, hash);
        return TROVE_OK;
    }
    return add_code(h, encode_hash(hash, h->p));
}

tv_status tv_hll_merge(tv_hll *dst, const tv_hll *src) {
    if (dst->p != src->p) return TROVE_EARG;
    if (dst == src) return TROVE_OK;
    if (!src->dense) {
        for (uint32_t i = 0; i < src->cap; i++) {
            if (!src->u.set[i]) continue;
            tv_status st = add_code(dst, src->u.set[i]);
            if (st != TROVE_OK) return st;
        }
        return TROVE_OK;
    }
    if (!dst->dense) {
        tv_status st = upgrade(dst);
        if (st != TROVE_OK) return st;
    }
    size_t m = (size_t)1 << dst->p;
    for (size_t i = 0; i < m; i++)
        if (dst->u.regs[i] < src->u.regs[i]) dst->u.regs[i] = src->u.regs[i];
    return TROVE_OK;
}

/* Java's Math.round(double): the closest long, ties toward +infinity. */
static int64_t java_round(double x) {
    if (x != x) return 0;
    if (x >= 9223372036854775808.0) return INT64_MAX;
    if (x <= -9223372036854775808.0) return INT64_MIN;
    double f = floor(x);
    if (x - f >= 0.5) f += 1.0; /* x - f is exact */
    return (int64_t)f;
}

/* AbstractCardinalityAlgorithm.linearCounting */
static int64_t linear_counting(int64_t m, int64_t v) {
    return java_round((double)m * log((double)m / (double)v));
}

int64_t tv_hll_cardinality(const tv_hll *h) {
    if (!h->dense) {
        const int64_t m = (int64_t)1 << HLL_P2;
        return linear_counting(m, m - (int64_t)h->size);
    }
    int p = h->p;
    int m = 1 << p;
    double inverse_sum = 0;
    int64_t zeros = 0;
    for (int i = 0; i < m; i++) {
        int run = h->u.regs[i];
        inverse_sum += 1. / (double)((uint64_t)1 << run);
        if (run == 0) zeros++;
    }
    double alpha = p == 4 ? 0.673 : p == 5 ? 0.697 : 0.7213 / (1 + 1.079 / m);
    double alpha_mm = alpha * m * m;
    double e1 = alpha_mm / inverse_sum;
    if (zeros != 0) {
        int64_t lc = linear_counting(m, zeros);
        if (lc <= HLL_THRESHOLDS[p - TV_HLL_MIN_PRECISION]) return lc;
    }
    if (e1 <= 5 * m) return TV_HLL_NEEDS_BIAS; /* e1 - estimateBias(e1) */
    return java_round(e1);
}

int tv_hll_get_precision(const tv_hll *h) { return h->p; }

bool tv_hll_is_dense(const tv_hll *h) { return h->dense; }

bool tv_hll_equal(const tv_hll *a, const tv_hll *b) {
    if (a->p != b->p || a->dense != b->dense) return false;
    if (a->dense) return memcmp(a->u.regs, b->u.regs, (size_t)1 << a->p) == 0;
    if (a->size != b->size) return false;
    for (uint32_t i = 0; i < a->cap; i++)
        if (a->u.set[i] && !set_has(b, a->u.set[i])) return false;
    return true;
}

size_t tv_hll_memory(const tv_hll *h) {
    size_t n = sizeof *h;
    if (h->dense)
        n += (size_t)1 << h->p;
    else
        n += (size_t)h->cap * sizeof(uint32_t);
    return n;
}
