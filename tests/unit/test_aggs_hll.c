/* test_aggs_hll.c — the cardinality sketch (src/aggs/hll.c) against
 * OpenSearch's HyperLogLog++.
 *
 * Where the expected numbers come from: "hello" and "The quick brown fox
 * jumps over the lazy dog" are the published MurmurHash3_x64_128 (seed 0)
 * vectors of the reference implementation. Every other expected value
 * (hashes, precisions, counts, merges) was produced by a throwaway Java 17
 * program, not part of this repository, that re-implements OpenSearch's
 * code as written in its sources (MurmurHash3.hash128, BitMixer.mix64,
 * HyperLogLogPlusPlus.precisionFromThreshold, AbstractLinearCounting,
 * AbstractHyperLogLog, HyperLogLogPlusPlus.merge) with Java's own
 * arithmetic (float division, Math.log, Math.round), using a plain
 * java.util.HashSet for the linear-counting set and reporting -1 wherever
 * OpenSearch would subtract its empirical bias estimate (the tables trove
 * does not carry). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "aggs/hll.h"

/* ------------------------------------------------------------ hashes */

static void test_murmur3_vectors(void **state) {
    (void)state;
    static const struct {
        const char *s;
        uint64_t h1, h2;
    } v[] = {
        {"", 0x0000000000000000ULL, 0x0000000000000000ULL},
        {"a", 0x85555565f6597889ULL, 0xe6b53a48510e895aULL},
        {"ab", 0x938b11ea16ed1b2eULL, 0xe65ea7019b52d4adULL},
        {"abc", 0xb4963f3f3fad7867ULL, 0x3ba2744126ca2d52ULL},
        {"hello", 0xcbd8a7b341bd9b02ULL, 0x5b1e906a48ae1d19ULL},
        {"0123456789abcde", 0xa62dd5f6c0bf2351ULL, 0x4fccf50c7c544cf0ULL},
        {"0123456789abcdef", 0x4be06d94cf4ad1a7ULL, 0x87c35b5c63a708daULL},
        {"0123456789abcdefg", 0x8e32612daa45f9deULL, 0x0800f4c206c372eeULL},
        {"The quick brown fox jumps over the lazy dog", 0xe34bbc7bbc071b6cULL,
         0x7a433ca9c49a9347ULL},
        {"caf\xc3\xa9", 0xa2e7c22a053364ddULL, 0x0acaaa4789576479ULL},
        {"0123456789abcdef0123456789abcdef", 0x4f3a26b5d6197cbaULL, 0x10b5291efa740ca2ULL},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint64_t h[2];
        size_t n = strlen(v[i].s);
        tv_murmur3_x64_128(v[i].s, n, 0, h);
        assert_true(h[0] == v[i].h1);
        assert_true(h[1] == v[i].h2);
        assert_true(tv_hash_bytes(v[i].s, n) == v[i].h1);
    }
    /* the hash reads only the n bytes it is given (unaligned, in a larger
     * buffer) */
    char buf[64];
    memcpy(buf + 3, "0123456789abcdefg", 17);
    assert_true(tv_hash_bytes(buf + 3, 17) == 0x8e32612daa45f9deULL);
    assert_true(tv_hash_bytes(NULL, 0) == 0);
}

static void test_hash_long(void **state) {
    (void)state;
    static const struct {
        int64_t v;
        uint64_t h;
    } v[] = {
        {0LL, 0x0000000000000000ULL},
        {1LL, 0xdd2fccc0739bd967ULL},
        {-1LL, 0x7bae997932ab3f21ULL},
        {2LL, 0xb6725f324ce8da05ULL},
        {42LL, 0xfb58cdb2efcc10e1ULL},
        {1234567890123LL, 0x769fad1ff5e3838cULL},
        {INT64_MIN, 0xa4f6595aff8b758eULL},
        {INT64_MAX, 0xbdd74cbc19559f90ULL},
        {1700000000000LL, 0x0b38a724f16cbea1ULL}, /* a date in epoch millis */
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) assert_true(tv_hash_long(v[i].v) == v[i].h);
    /* By hand for 1: z = 1 ^ (1 >>> 32) = 1, times 0x4cd6944c5cc20b6d;
     * then z ^ (z >>> 29), times 0xfc12c5b19d3259e9; then z ^ (z >>> 32). */
    uint64_t z = 1;
    z = (z ^ (z >> 32)) * 0x4cd6944c5cc20b6dULL;
    assert_true(z == 0x4cd6944c5cc20b6dULL);
    z = (z ^ (z >> 29)) * 0xfc12c5b19d3259e9ULL;
    z ^= z >> 32;
    assert_true(z == 0xdd2fccc0739bd967ULL);
}

static void test_hash_double(void **state) {
    (void)state;
    static const struct {
        double v;
        uint64_t h;
    } v[] = {
        {0.0, 0x0000000000000000ULL},  {-0.0, 0xa4f6595aff8b758eULL},
        {1.0, 0x87abe697161ad763ULL},  {-1.5, 0x53060df50fa31cf6ULL},
        {3.14, 0x7d91f073de86c942ULL}, {1e300, 0x48ca9770d28f2cc8ULL},
        {0.1, 0x3ede07ef9c6b89b9ULL},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) assert_true(tv_hash_double(v[i].v) == v[i].h);
    assert_true(tv_hash_double(INFINITY) == 0x3995851176fa4d4fULL);
    /* doubleToLongBits folds every NaN into 0x7ff8000000000000 */
    assert_true(tv_hash_double(NAN) == 0xc170ddc44496a75dULL);
    uint64_t bits = 0xfff0000000000123ULL;
    double other_nan;
    memcpy(&other_nan, &bits, sizeof bits);
    assert_true(tv_hash_double(other_nan) == 0xc170ddc44496a75dULL);
    /* -0.0 is the bits of Long.MIN_VALUE; 1.0 the long 0x3ff0000000000000 */
    assert_true(tv_hash_double(-0.0) == tv_hash_long(INT64_MIN));
    assert_true(tv_hash_double(1.0) == tv_hash_long(0x3ff0000000000000LL));
}

/* ----------------------------------------------------------- precision */

static void test_precision(void **state) {
    (void)state;
    static const struct {
        int64_t t;
        int p;
    } v[] = {
        {0LL, 4},
        {1LL, 4},
        {2LL, 4},
        {3LL, 5},
        {10LL, 6},
        {11LL, 6},
        {12LL, 7},
        {24LL, 8},
        {25LL, 8},
        {100LL, 10},
        {1000LL, 13},
        {3000LL, 14},
        {3072LL, 15},
        {3073LL, 15},
        {6143LL, 15},
        {6144LL, 16},
        {6145LL, 16},
        {12287LL, 16},
        {12288LL, 17},
        {12289LL, 17},
        {40000LL, 18},
        {49152LL, 18},
        {49153LL, 18},
        {100000LL, 18},
        {1000000LL, 18},
        {2147483647LL, 18},
        {288230376151711744LL, 18},
        {576460752303423487LL, 18},
        {576460752303423488LL, 18},
        {1152921504606846976LL, 18},
        {2305843009213693952LL, -1}, /* 2^61: ceil(t/0.75f)*4 wraps negative */
        {3458764513820540928LL, 4},  /* 3*2^60: wraps to a small positive */
        {INT64_MAX, -1},             /* the cast saturates, *4 is -4 */
        {-1LL, -1},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        if (tv_hll_precision(v[i].t) != v[i].p)
            fprintf(stderr, "threshold %lld: %d, expected %d\n", (long long)v[i].t,
                    tv_hll_precision(v[i].t), v[i].p);
        assert_int_equal(tv_hll_precision(v[i].t), v[i].p);
    }
    assert_int_equal(tv_hll_precision(3000), TV_HLL_DEFAULT_PRECISION);
}

/* -------------------------------------------------------- sequences */

enum { KEYWORDS, LONGS, HALVES };

static uint64_t value_hash(int kind, int i) {
    char b[32];
    switch (kind) {
    case KEYWORDS:
        snprintf(b, sizeof b, "k%d", i);
        return tv_hash_bytes(b, strlen(b));
    case LONGS:
        return tv_hash_long(i);
    default:
        return tv_hash_double(i * 0.5);
    }
}

/* Distinct values 0..n-1 added in order; after each checkpoint n the
 * count and the phase OpenSearch has (count -1: bias table needed). */
static const int NS[] = {1,    2,    3,    4,    5,     10,    50,    100,    192,    193,   500,
                         1000, 3072, 3073, 5000, 8000, 11000, 20000, 40000, 100000, 200000, 300000};

typedef struct {
    int kind, p;
    int64_t count[22];
    int dense[22];
} seq_case;

static const seq_case SEQS[] = {
    {KEYWORDS, 4,
     {1, 2, 3, 5, 6, -1, -1, -1, 143, 143, 691, 941, 3426, 3426, 6084, 8933, 10733, 18945, 27406,
      69698, 185099, 246799},
     {0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {KEYWORDS, 10,
     {1, 2, 3, 4, 5, 10, 50, 100, 192, 186, 504, -1, -1, -1, -1, 8009, 10658, 19359, 38794, 102257,
      200349, 302569},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {KEYWORDS, 14,
     {1, 2, 3, 4, 5, 10, 50, 100, 192, 193, 500, 1000, 3072, 3062, 5011, 7983, 10971, -1, -1,
      100573, 202044, 305069},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {KEYWORDS, 18,
     {1, 2, 3, 4, 5, 10, 50, 100, 192, 193, 500, 1000, 3072, 3073, 5000, 8000, 11001, 20000,
      39994, 99856, 199987, 300037},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1}},
    {LONGS, 4,
     {1, 2, 3, 3, 5, -1, -1, 116, 168, 168, 326, 1568, 4404, 4404, 6070, 8182, 10652, 12948, 30932,
      99453, 218581, 255707},
     {0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {LONGS, 10,
     {1, 2, 3, 4, 5, 10, 50, 100, 192, 199, 501, -1, -1, -1, 5159, 8011, 11003, 19969, 41870,
      103342, 203340, 296317},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {LONGS, 14,
     {1, 2, 3, 4, 5, 10, 50, 100, 192, 193, 500, 1000, 3072, 3057, 4973, 7861, 10870, -1, -1,
      99776, 202542, 300703},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {LONGS, 18,
     {1, 2, 3, 4, 5, 10, 50, 100, 192, 193, 500, 1000, 3072, 3073, 5000, 8000, 11001, 19999,
      39999, 99995, 199666, 299400},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1}},
    {HALVES, 14,
     {1, 2, 3, 4, 5, 10, 50, 100, 192, 193, 500, 1000, 3072, 3062, 4990, 7915, 10916, -1, -1,
      100597, 198151, 296411},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
};

static void test_sequences(void **state) {
    (void)state;
    for (size_t c = 0; c < sizeof SEQS / sizeof SEQS[0]; c++) {
        const seq_case *sc = &SEQS[c];
        tv_hll *h = tv_hll_new(sc->p);
        assert_non_null(h);
        assert_int_equal(tv_hll_cardinality(h), 0);
        int done = 0;
        for (size_t k = 0; k < sizeof NS / sizeof NS[0]; k++) {
            for (; done < NS[k]; done++) assert_int_equal(tv_hll_add(h, value_hash(sc->kind, done)), TROVE_OK);
            int64_t got = tv_hll_cardinality(h);
            if (got != sc->count[k] || (int)tv_hll_is_dense(h) != sc->dense[k])
                fprintf(stderr, "kind %d p %d n %d: %lld dense %d, expected %lld dense %d\n", sc->kind,
                        sc->p, NS[k], (long long)got, tv_hll_is_dense(h), (long long)sc->count[k],
                        sc->dense[k]);
            assert_true(got == sc->count[k]);
            assert_int_equal(tv_hll_is_dense(h), sc->dense[k]);
        }
        tv_hll_free(h);
    }
}

/* Linear counting is exact (up to hash codes that collide) while the set
 * holds the values: every value repeated changes nothing. */
static void test_exact_and_duplicates(void **state) {
    (void)state;
    tv_hll *h = tv_hll_new(14);
    assert_non_null(h);
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 3000; i++) assert_int_equal(tv_hll_add(h, tv_hash_long(i)), TROVE_OK);
    assert_int_equal(tv_hll_cardinality(h), 3000);
    assert_false(tv_hll_is_dense(h));
    tv_hll_free(h);

    /* the linear-counting formula itself: round(2^25 ln(2^25/(2^25-n)))
     * is n up to n = 8192 and beyond (p = 18 keeps 49152 codes) */
    h = tv_hll_new(18);
    assert_non_null(h);
    for (int i = 0; i < 8192; i++) assert_int_equal(tv_hll_add(h, tv_hash_long(i)), TROVE_OK);
    assert_int_equal(tv_hll_cardinality(h), 8192);
    tv_hll_free(h);
}

/* The switch to registers: when the set would pass (2^p/4)*0.75 codes,
 * not before, and the memory before it grows from a few dozen bytes.
 * Hashes that share a code count once (for p = 18, the 49152 values
 * 0..49151 hold about 36 such pairs, which the linear-counting formula
 * compensates for), so the switch value is checked exactly where no
 * codes collide, p <= 14. */
static void test_switch_and_memory(void **state) {
    (void)state;
    for (int p = TV_HLL_MIN_PRECISION; p <= TV_HLL_MAX_PRECISION; p++) {
        int threshold = 3 << (p - 4);
        tv_hll *h = tv_hll_new(p);
        assert_non_null(h);
        assert_int_equal(tv_hll_get_precision(h), p);
        assert_true(tv_hll_memory(h) <= 32);
        assert_int_equal(tv_hll_add(h, tv_hash_long(0)), TROVE_OK);
        assert_true(tv_hll_memory(h) <= 48);
        int i = 1;
        for (; i < threshold; i++) assert_int_equal(tv_hll_add(h, tv_hash_long(i)), TROVE_OK);
        assert_false(tv_hll_is_dense(h));
        if (p <= 14) assert_int_equal(tv_hll_cardinality(h), threshold);
        /* the set never takes more than the registers will */
        assert_true(tv_hll_memory(h) <= 32 + ((size_t)1 << p));
        assert_int_equal(tv_hll_add(h, tv_hash_long(threshold - 1)), TROVE_OK); /* a repeat */
        assert_false(tv_hll_is_dense(h));
        for (; !tv_hll_is_dense(h); i++) {
            assert_true(tv_hll_memory(h) <= 32 + ((size_t)1 << p));
            assert_int_equal(tv_hll_add(h, tv_hash_long(i)), TROVE_OK);
        }
        if (p <= 14) assert_int_equal(i, threshold + 1);
        assert_true(i <= threshold + 100);
        assert_true(tv_hll_memory(h) <= 32 + ((size_t)1 << p));
        tv_hll_free(h);
    }
    /* a small sketch stays small */
    tv_hll *h = tv_hll_new(14);
    assert_non_null(h);
    for (int i = 0; i < 5; i++) assert_int_equal(tv_hll_add(h, tv_hash_long(i)), TROVE_OK);
    assert_true(tv_hll_memory(h) <= 64);
    tv_hll_free(h);
    assert_null(tv_hll_new(3));
    assert_null(tv_hll_new(19));
    tv_hll_free(NULL);
}

/* ---------------------------------------------------------------- merge */

/* A holds mix64(i) for i < na with i % 3 != 2, B for i < nb with i % 3 !=
 * 0 (they overlap on i % 3 == 1). Expected counts of A, B and of the
 * merge, both orders (p = 14). */
static const struct {
    int na, nb;
    int64_t a, b, merged;
    int a_dense, b_dense, merged_dense;
} MERGES[] = {
    {100, 200, 67, 133, 167, 0, 0, 0},           /* LC + LC = LC */
    {3000, 3000, 2000, 2000, 3000, 0, 0, 0},     /* LC + LC at 3000: still LC */
    {4000, 2000, 2667, 1333, 3318, 0, 0, 1},     /* LC + LC passing the threshold */
    {2000, 4000, 1334, 2666, 3336, 0, 0, 1},     /* the same, other sizes */
    {4500, 4500, 3000, 3000, 4479, 0, 0, 1},     /* two full sets */
    {10000, 300, 6554, 200, 6650, 1, 0, 1},      /* HLL + LC */
    {300, 10000, 200, 6667, 6777, 0, 1, 1},      /* LC + HLL */
    {200000, 100000, 133844, -1, 167667, 1, 1, 1}, /* HLL + HLL (B needs the bias table) */
};

static tv_hll *range_sketch(int n, int skip_mod) {
    tv_hll *h = tv_hll_new(14);
    assert_non_null(h);
    for (int i = 0; i < n; i++)
        if (i % 3 != skip_mod) assert_int_equal(tv_hll_add(h, tv_hash_long(i)), TROVE_OK);
    return h;
}

static void test_merge(void **state) {
    (void)state;
    for (size_t c = 0; c < sizeof MERGES / sizeof MERGES[0]; c++) {
        tv_hll *a = range_sketch(MERGES[c].na, 2), *b = range_sketch(MERGES[c].nb, 0);
        assert_true(tv_hll_cardinality(a) == MERGES[c].a);
        assert_true(tv_hll_cardinality(b) == MERGES[c].b);
        assert_int_equal(tv_hll_is_dense(a), MERGES[c].a_dense);
        assert_int_equal(tv_hll_is_dense(b), MERGES[c].b_dense);
        /* every value into one sketch */
        tv_hll *all = tv_hll_new(14);
        assert_non_null(all);
        int n = TV_MAX(MERGES[c].na, MERGES[c].nb);
        for (int i = 0; i < n; i++)
            if ((i < MERGES[c].na && i % 3 != 2) || (i < MERGES[c].nb && i % 3 != 0))
                assert_int_equal(tv_hll_add(all, tv_hash_long(i)), TROVE_OK);
        /* reduce: a fresh sketch, merged with each shard, in both orders;
         * and merged straight into a shard */
        tv_hll *r1 = tv_hll_new(14), *r2 = tv_hll_new(14);
        assert_non_null(r1);
        assert_non_null(r2);
        assert_int_equal(tv_hll_merge(r1, a), TROVE_OK);
        assert_int_equal(tv_hll_merge(r1, b), TROVE_OK);
        assert_int_equal(tv_hll_merge(r2, b), TROVE_OK);
        assert_int_equal(tv_hll_merge(r2, a), TROVE_OK);
        assert_int_equal(tv_hll_merge(a, b), TROVE_OK);
        assert_true(tv_hll_cardinality(r1) == MERGES[c].merged);
        assert_int_equal(tv_hll_is_dense(r1), MERGES[c].merged_dense);
        assert_true(tv_hll_equal(r1, all));
        assert_true(tv_hll_equal(r2, all));
        assert_true(tv_hll_equal(a, all));
        assert_true(tv_hll_cardinality(b) == MERGES[c].b); /* src unchanged */
        /* merging again, or with itself, changes nothing */
        assert_int_equal(tv_hll_merge(r1, b), TROVE_OK);
        assert_int_equal(tv_hll_merge(r1, r1), TROVE_OK);
        assert_true(tv_hll_equal(r1, all));
        tv_hll_free(a);
        tv_hll_free(b);
        tv_hll_free(all);
        tv_hll_free(r1);
        tv_hll_free(r2);
    }
    /* many small shards (a terms bucket per shard), merged one by one */
    tv_hll *shards[40], *all = tv_hll_new(14), *r = tv_hll_new(14);
    assert_non_null(all);
    assert_non_null(r);
    for (int s = 0; s < 40; s++) {
        shards[s] = tv_hll_new(14);
        assert_non_null(shards[s]);
        for (int i = s * 100; i < s * 100 + 150; i++) {
            assert_int_equal(tv_hll_add(shards[s], tv_hash_long(i)), TROVE_OK);
            assert_int_equal(tv_hll_add(all, tv_hash_long(i)), TROVE_OK);
        }
    }
    for (int s = 39; s >= 0; s--) {
        assert_int_equal(tv_hll_merge(r, shards[s]), TROVE_OK);
        tv_hll_free(shards[s]);
    }
    assert_true(tv_hll_equal(r, all));
    assert_true(tv_hll_is_dense(r)); /* 4050 distinct > 3072 */
    assert_int_equal(tv_hll_cardinality(r), tv_hll_cardinality(all));
    tv_hll_free(r);
    tv_hll_free(all);
    /* different precisions do not merge */
    tv_hll *x = tv_hll_new(10), *y = tv_hll_new(11);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(tv_hll_add(y, 1), TROVE_OK);
    assert_int_equal(tv_hll_merge(x, y), TROVE_EARG);
    assert_int_equal(tv_hll_cardinality(x), 0);
    tv_hll_free(x);
    tv_hll_free(y);
}

/* A large count with the default precision, outside the bias range:
 * 300000 distinct keywords give 305069 in OpenSearch (the Java
 * re-implementation; raw estimate e1 > 5 * 2^14 and no empty register, so
 * the answer is round(e1) itself). As a plausibility check it is within
 * three standard errors (1.04 / sqrt(2^14) = 0.81 %) of the truth. The
 * bias range answers TV_HLL_NEEDS_BIAS. */
static void test_large_and_bias_range(void **state) {
    (void)state;
    tv_hll *h = tv_hll_new(TV_HLL_DEFAULT_PRECISION);
    assert_non_null(h);
    int64_t at20000 = 0;
    for (int i = 0; i < 300000; i++) {
        assert_int_equal(tv_hll_add(h, value_hash(KEYWORDS, i)), TROVE_OK);
        if (i + 1 == 20000) at20000 = tv_hll_cardinality(h);
    }
    assert_true(at20000 == TV_HLL_NEEDS_BIAS);
    int64_t c = tv_hll_cardinality(h);
    assert_true(c == 305069);
    assert_true(fabs((double)c - 300000.0) < 3 * 1.04 / 128 * 300000.0);
    tv_hll_free(h);
}

/* ------------------------------------------------------------- failures */

static void test_oom(void **state) {
    (void)state;
    /* every allocation of a 5000-value run failing in turn: the sketch
     * stays valid and a retry completes it to the same state */
    tv_hll *ref = tv_hll_new(14);
    assert_non_null(ref);
    for (int i = 0; i < 5000; i++) assert_int_equal(tv_hll_add(ref, tv_hash_long(i)), TROVE_OK);
    for (long fail = 0; fail < 16; fail++) {
        tv_hll *h = tv_hll_new(14);
        assert_non_null(h);
        int failures = 0;
        tv_alloc_fail_after(fail);
        for (int i = 0; i < 5000; i++) {
            tv_status st = tv_hll_add(h, tv_hash_long(i));
            if (st == TROVE_ENOMEM) {
                failures++;
                tv_alloc_fail_after(-1);
                st = tv_hll_add(h, tv_hash_long(i));
            }
            assert_int_equal(st, TROVE_OK);
        }
        tv_alloc_fail_after(-1);
        assert_true(tv_hll_equal(h, ref));
        assert_true(failures <= 1);
        tv_hll_free(h);
    }
    tv_alloc_fail_after(0);
    assert_null(tv_hll_new(14));
    tv_alloc_fail_after(-1);
    /* a failing merge into an empty sketch */
    tv_hll *d = tv_hll_new(14);
    assert_non_null(d);
    tv_alloc_fail_after(0);
    assert_int_equal(tv_hll_merge(d, ref), TROVE_ENOMEM);
    tv_alloc_fail_after(-1);
    assert_int_equal(tv_hll_merge(d, ref), TROVE_OK);
    assert_true(tv_hll_equal(d, ref));
    tv_hll_free(d);
    tv_hll_free(ref);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_murmur3_vectors),      cmocka_unit_test(test_hash_long),
        cmocka_unit_test(test_hash_double),          cmocka_unit_test(test_precision),
        cmocka_unit_test(test_sequences),            cmocka_unit_test(test_exact_and_duplicates),
        cmocka_unit_test(test_switch_and_memory),    cmocka_unit_test(test_merge),
        cmocka_unit_test(test_large_and_bias_range), cmocka_unit_test(test_oom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
