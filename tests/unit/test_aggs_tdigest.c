/* test_aggs_tdigest.c — the t-digest sketch of the percentiles and
 * percentile_ranks aggregations against the values OpenSearch's library
 * computes, bit for bit.
 *
 * How the expected values were produced: com.tdunning:t-digest 3.3 (the
 * version OpenSearch 3.x depends on; TDigestState extends its MergingDigest)
 * was compiled from its release sources, and a throwaway Java program (not
 * in this repository) ran the same operations as each test below on
 * MergingDigest: new MergingDigest(100), add(x), dst.add(src) for a reduce,
 * compress(), quantile(p / 100), cdf(x), size(), and for the read-back case
 * byteSize() + asBytes() + MergingDigest.fromBytes() + add(List.of(..)) as
 * TDigestState.read does. Each double was printed with
 * Double.doubleToRawLongBits (compared here) and Double.toString (the
 * comments). The generated inputs use splitmix64, written the same way in
 * both programs. The same program compared this C code with the library on
 * randomized operation sequences (compressions 5 to 1000, merges, compress,
 * read-back, signed zeros, huge values); all results were identical. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aggs/tdigest.h"

/* ------------------------------------------------------------ expected */

static const uint64_t one_pct[] = {
    0x4045400000000000ULL, /* 42.5 */
    0x4045400000000000ULL, /* 42.5 */
    0x4045400000000000ULL, /* 42.5 */
    0x4045400000000000ULL, /* 42.5 */
    0x4045400000000000ULL, /* 42.5 */
    0x4045400000000000ULL, /* 42.5 */
    0x4045400000000000ULL, /* 42.5 */
};

static const uint64_t one_rank[] = {
    0x0000000000000000ULL, /* 0.0 */
    0x3fe0000000000000ULL, /* 0.5 */
    0x3ff0000000000000ULL, /* 1.0 */
};

static const uint64_t one_count = 1;

static const uint64_t two_pct[] = {
    0x4024000000000000ULL, /* 10.0 */
    0x4024000000000000ULL, /* 10.0 */
    0x4024000000000000ULL, /* 10.0 */
    0x4034000000000000ULL, /* 20.0 */
    0x4034000000000000ULL, /* 20.0 */
    0x4034000000000000ULL, /* 20.0 */
    0x4034000000000000ULL, /* 20.0 */
};

static const uint64_t two_rank[] = {
    0x0000000000000000ULL, /* 0.0 */
    0x3fd0000000000000ULL, /* 0.25 */
    0x3fe0000000000000ULL, /* 0.5 */
    0x3fe0000000000000ULL, /* 0.5 */
    0x3fe8000000000000ULL, /* 0.75 */
    0x3ff0000000000000ULL, /* 1.0 */
};

static const uint64_t two_count = 2;

static const uint64_t five_pct[] = {
    0x3ff0000000000000ULL, /* 1.0 */
    0x3ff0000000000000ULL, /* 1.0 */
    0x3ff0000000000000ULL, /* 1.0 */
    0x4008000000000000ULL, /* 3.0 */
    0x4010000000000000ULL, /* 4.0 */
    0x4014000000000000ULL, /* 5.0 */
    0x4014000000000000ULL, /* 5.0 */
};

static const uint64_t five_rank[] = {
    0x0000000000000000ULL, /* 0.0 */
    0x3fc999999999999aULL, /* 0.2 */
    0x3fd999999999999aULL, /* 0.4 */
    0x3fe0000000000000ULL, /* 0.5 */
    0x3fe3333333333333ULL, /* 0.6 */
    0x3fe6666666666666ULL, /* 0.7 */
    0x3feccccccccccccdULL, /* 0.9 */
    0x3ff0000000000000ULL, /* 1.0 */
};

static const uint64_t five_count = 5;

static const uint64_t hundred_pct[] = {
    0x3ff8000000000000ULL, /* 1.5 */
    0x401e000000000000ULL, /* 7.5 */
    0x4042c00000000000ULL, /* 37.5 */
    0x4052900000000000ULL, /* 74.25 */
    0x405c200000000000ULL, /* 112.5 */
    0x4061d00000000000ULL, /* 142.5 */
    0x4062900000000000ULL, /* 148.5 */
};

static const uint64_t hundred_rank[] = {
    0x3f747ae147ae147bULL, /* 0.005 */
    0x3f847ae147ae147bULL, /* 0.01 */
    0x3f8eb851eb851eb8ULL, /* 0.015 */
    0x3fb1eb851eb851ecULL, /* 0.07 */
    0x3fe0000000000000ULL, /* 0.5 */
    0x3fe028f5c28f5c29ULL, /* 0.505 */
    0x3fe57e4b17e4b17fULL, /* 0.6716666666666667 */
    0x3fefd70a3d70a3d7ULL, /* 0.995 */
    0x3ff0000000000000ULL, /* 1.0 */
};

static const uint64_t hundred_count = 100;

static const uint64_t big_pct[] = {
    0x3fb8e5a29832a7b9ULL, /* 0.09725395408409455 */
    0x400483fbf7c31abaULL, /* 2.5644454342285288 */
    0x404f8e3df8be174dULL, /* 63.11126622468746 */
    0x406f42849e6b3102ULL, /* 250.0786888211806 */
    0x40816b7ce6b8f4e7ULL, /* 557.43598694322 */
    0x408c1d5fdc0d8d97ULL, /* 899.6718064364276 */
    0x408e9b5339f2d58dULL, /* 979.4156378718777 */
};

static const uint64_t big_rank[] = {
    0x3f4f0f9d1578ff86ULL, /* 9.4790620909889E-4 */
    0x3f9fa4158e9618ccULL, /* 0.030899369075563496 */
    0x3fb98fedbaf142b4ULL, /* 0.09985242666267419 */
    0x3fdffebf2815a7dfULL, /* 0.49992350496779453 */
    0x3fe6b9fe0d5f6137ULL, /* 0.7102041493590495 */
    0x3fee67c7548f5da8ULL, /* 0.9501682902872988 */
    0x3fefff43419e3001ULL, /* 0.99991 */
};

static const uint64_t big_count = 100000;

static const uint64_t bigc_pct[] = {
    0x3fb925f2c64df426ULL, /* 0.09823529569071407 */
    0x40052d310804f3d3ULL, /* 2.6470661760817875 */
    0x405022b30a293392ULL, /* 64.54217771552638 */
    0x406f749516b48bd3ULL, /* 251.64319930327346 */
    0x40817cac75edb431ULL, /* 559.5842093058219 */
    0x408c1f946c712808ULL, /* 899.947472461733 */
    0x408e9affb81bf57dULL, /* 979.3748628792088 */
};

static const uint64_t bigc_rank[] = {
    0x3f9f40125105166cULL, /* 0.030517851061878806 */
    0x3fdfe72bb49f83b4ULL, /* 0.49848454131102504 */
    0x3fee669f15837a47ULL, /* 0.9500270290553282 */
};

static const uint64_t bigc_count = 100000;

static const uint64_t all_pct[] = {
    0x3fd7e204b0f233e8ULL, /* 0.37317006378071804 */
    0x4020f6512d3bdb06ULL, /* 8.481088079029643 */
    0x4060cf7348cee3dfULL, /* 134.48282280357577 */
    0x4077c468ef57199eULL, /* 380.27561887763466 */
    0x408516fe7e71033bULL, /* 674.8742646054374 */
    0x408d331268cea755ULL, /* 934.3839889664474 */
    0x408ed5b0a7ea02daULL, /* 986.7112577707405 */
};

static const uint64_t all_rank[] = {
    0x3f90ad6b94cdf0bbULL, /* 0.016286545712760097 */
    0x3fd7f49ddfe06650ULL, /* 0.3743052183432143 */
    0x3fe35ac891b92c04ULL, /* 0.6048319669874904 */
    0x3fed8cafab5caaddULL, /* 0.9234236094392504 */
};

static const uint64_t all_count = 100000;

static const uint64_t merged_pct[] = {
    0x3fd992ae2fb5d04eULL, /* 0.39957766207885903 */
    0x4021640b81f096b1ULL, /* 8.695400295847636 */
    0x4060224e0484bb81ULL, /* 129.07202363895706 */
    0x4077eeddc8f602b4ULL, /* 382.92914672944903 */
    0x4084f9c6f73ec912ULL, /* 671.2221512704002 */
    0x408d31a7c00b8d49ULL, /* 934.2069092657558 */
    0x408ed3d9efa8b2b3ULL, /* 986.4814141444716 */
};

static const uint64_t merged_rank[] = {
    0x3f8f49cc6499deaaULL, /* 0.0152774780465131 */
    0x3fd7af4a1d8f4f4aULL, /* 0.3700738228483159 */
    0x3fe35c208fcd1191ULL, /* 0.6049959953893894 */
    0x3fed9fbb454a4ec0ULL, /* 0.9257484772992584 */
};

static const uint64_t merged_count = 100000;

static const uint64_t reread_pct[] = {
    0x3fd830d5b84bb9b5ULL, /* 0.37798064229618983 */
    0x40213d1dda5c0cbaULL, /* 8.619368385063684 */
    0x4060b6a3790dde08ULL, /* 133.70745518406352 */
    0x4077f9d58340392aULL, /* 383.6146271237109 */
    0x4085116f4f4c5dd9ULL, /* 674.1793504682674 */
    0x408d31f4f8bba590ULL, /* 934.244615045538 */
    0x408ed1aeda53f859ULL, /* 986.210377365128 */
};

static const uint64_t reread_rank[] = {
    0x3f9055fd06e53514ULL, /* 0.01595301966272185 */
    0x3fd7ccba873db8b6ULL, /* 0.37187064368380207 */
    0x3fe353ddcb64e55bULL, /* 0.6039875958005426 */
    0x3fed9fbb454a4ec0ULL, /* 0.9257484772992584 */
};

static const uint64_t reread_count = 100000;

static const uint64_t negzero[] = {
    0x8000000000000000ULL, /* -0.0 */
    0x0000000000000000ULL, /* 0.0 */
};

/* ------------------------------------------------------------ helpers */

static const double PCT[7] = {1, 5, 25, 50, 75, 95, 99};

static uint64_t bits(double d) {
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static void expect_bits(double got, uint64_t want, const char *what, double arg) {
    if (bits(got) != want) {
        double w;
        memcpy(&w, &want, sizeof w);
        fprintf(stderr, "%s(%.17g): got %.17g (%016llx), want %.17g (%016llx)\n", what, arg, got,
                (unsigned long long)bits(got), w, (unsigned long long)want);
    }
    assert_true(bits(got) == want);
}

static void check(tv_tdigest *t, const uint64_t pct[7], const double *ranks, const uint64_t *rank_want,
                  size_t nranks, uint64_t count) {
    for (size_t i = 0; i < 7; i++) expect_bits(tv_tdigest_quantile(t, PCT[i] / 100), pct[i], "percentile", PCT[i]);
    for (size_t i = 0; i < nranks; i++) expect_bits(tv_tdigest_cdf(t, ranks[i]), rank_want[i], "cdf", ranks[i]);
    assert_true(tv_tdigest_count(t) == count);
}

/* splitmix64, as in the program that produced the expected values */
static uint64_t sm_state;
static double sm_uniform(void) {
    uint64_t z = (sm_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

/* kind 'u': uniform [0, 1000); kind 's': u * u * 1000 (skewed) */
static void gen(tv_tdigest *t, char kind, int n, uint64_t seed) {
    sm_state = seed;
    for (int i = 0; i < n; i++) {
        double u = sm_uniform();
        assert_int_equal(tv_tdigest_add(t, kind == 'u' ? u * 1000 : u * u * 1000), TROVE_OK);
    }
}

static tv_tdigest *digest(void) {
    tv_tdigest *t = tv_tdigest_new(TV_TDIGEST_DEFAULT_COMPRESSION);
    assert_non_null(t);
    return t;
}

/* ------------------------------------------------------------ tests */

static void test_empty(void **state) {
    tv_tdigest *t = digest();
    assert_true(tv_tdigest_count(t) == 0);
    for (size_t i = 0; i < 7; i++) assert_true(isnan(tv_tdigest_quantile(t, PCT[i] / 100)));
    assert_true(isnan(tv_tdigest_cdf(t, 0)));
    assert_int_equal(tv_tdigest_compress(t), TROVE_OK);
    tv_tdigest *r = digest();
    assert_int_equal(tv_tdigest_merge(r, t), TROVE_OK);
    assert_true(tv_tdigest_count(r) == 0);
    assert_true(isnan(tv_tdigest_quantile(r, 0.5)));
    tv_tdigest *back = tv_tdigest_readback(t);
    assert_non_null(back);
    assert_true(isnan(tv_tdigest_cdf(back, 1)));
    /* an empty digest is one small struct */
    assert_true(tv_tdigest_memory(t) <= 128);
    tv_tdigest_free(back);
    tv_tdigest_free(r);
    tv_tdigest_free(t);
    tv_tdigest_free(NULL);
}

static void test_one_value(void **state) {
    tv_tdigest *t = digest();
    assert_int_equal(tv_tdigest_add(t, 42.5), TROVE_OK);
    static const double ranks[] = {10, 42.5, 50};
    check(t, one_pct, ranks, one_rank, 3, one_count);
    tv_tdigest_free(t);
}

static void test_two_values(void **state) {
    tv_tdigest *t = digest();
    assert_int_equal(tv_tdigest_add(t, 10), TROVE_OK);
    assert_int_equal(tv_tdigest_add(t, 20), TROVE_OK);
    static const double ranks[] = {5, 10, 12.5, 15, 20, 25};
    check(t, two_pct, ranks, two_rank, 6, two_count);
    tv_tdigest_free(t);
}

static void test_five_values(void **state) {
    tv_tdigest *t = digest();
    static const double v[] = {3, 1, 4, 1, 5};
    for (size_t i = 0; i < 5; i++) assert_int_equal(tv_tdigest_add(t, v[i]), TROVE_OK);
    static const double ranks[] = {0, 1, 2, 3, 3.5, 4, 5, 6};
    check(t, five_pct, ranks, five_rank, 8, five_count);
    assert_int_equal(tv_tdigest_centroid_count(t), 5); /* one centroid per value */
    tv_tdigest_free(t);
}

static void test_hundred_values(void **state) {
    tv_tdigest *t = digest();
    for (int i = 0; i < 100; i++) assert_int_equal(tv_tdigest_add(t, ((i * 37) % 100) * 1.5), TROVE_OK);
    static const double ranks[] = {0, 0.75, 1.5, 10, 74.25, 75, 100, 148.5, 150};
    check(t, hundred_pct, ranks, hundred_rank, 9, hundred_count);
    tv_tdigest_free(t);
}

static void test_hundred_thousand(void **state) {
    tv_tdigest *t = digest();
    gen(t, 's', 100000, 42);
    static const double ranks[] = {0.001, 1, 10, 250, 500, 900, 999.9};
    check(t, big_pct, ranks, big_rank, 7, big_count);
    /* bounded size: a few hundred centroids, at most ~25 KB */
    assert_true(tv_tdigest_memory(t) < 32 * 1024);
    /* compress() is one more merge pass at the requested compression */
    assert_int_equal(tv_tdigest_compress(t), TROVE_OK);
    static const double ranks_c[] = {1, 250, 900};
    check(t, bigc_pct, ranks_c, bigc_rank, 3, bigc_count);
    tv_tdigest_free(t);
}

/* A reduce of two shard states (new state, add each) against one digest of
 * all the values: t-digest results depend on the merge history, so the two
 * answers differ, and each equals the library's. */
static void test_merge(void **state) {
    static const double ranks[] = {1, 250, 500, 900};
    tv_tdigest *all = digest();
    gen(all, 'u', 50000, 1);
    gen(all, 's', 50000, 2);
    check(all, all_pct, ranks, all_rank, 4, all_count);

    tv_tdigest *a = digest(), *b = digest();
    gen(a, 'u', 50000, 1);
    gen(b, 's', 50000, 2);
    tv_tdigest *r = digest();
    assert_int_equal(tv_tdigest_merge(r, a), TROVE_OK);
    assert_int_equal(tv_tdigest_merge(r, b), TROVE_OK);
    assert_true(tv_tdigest_count(a) == 50000); /* sources are left as they were */
    check(r, merged_pct, ranks, merged_rank, 4, merged_count);

    /* serialized (OpenSearch >= 3.4 writes byteSize() and asBytes(): two
     * compress() calls) and read back */
    assert_int_equal(tv_tdigest_compress(r), TROVE_OK);
    assert_int_equal(tv_tdigest_compress(r), TROVE_OK);
    tv_tdigest *back = tv_tdigest_readback(r);
    assert_non_null(back);
    check(back, reread_pct, ranks, reread_rank, 4, reread_count);

    tv_tdigest_free(back);
    tv_tdigest_free(r);
    tv_tdigest_free(b);
    tv_tdigest_free(a);
    tv_tdigest_free(all);
}

/* Centroids cross a reduce as Java Centroid objects, whose mean is
 * recomputed as 0 + w * (x - 0) / w: -0.0 comes out as 0.0. */
static void test_negative_zero(void **state) {
    tv_tdigest *z = digest(), *r = digest();
    assert_int_equal(tv_tdigest_add(z, -0.0), TROVE_OK);
    assert_int_equal(tv_tdigest_merge(r, z), TROVE_OK);
    expect_bits(tv_tdigest_quantile(z, 0.5), negzero[0], "quantile", 0.5);
    expect_bits(tv_tdigest_quantile(r, 0.5), negzero[1], "quantile", 0.5);
    tv_tdigest_free(r);
    tv_tdigest_free(z);
}

static void test_invalid_arguments(void **state) {
    tv_tdigest *t = digest();
    assert_int_equal(tv_tdigest_add(t, NAN), TROVE_EARG);
    assert_true(tv_tdigest_count(t) == 0);
    assert_int_equal(tv_tdigest_add(t, 1), TROVE_OK);
    assert_true(isnan(tv_tdigest_quantile(t, -0.1)));
    assert_true(isnan(tv_tdigest_quantile(t, 1.1)));
    assert_true(isnan(tv_tdigest_cdf(t, INFINITY)));
    assert_true(isnan(tv_tdigest_cdf(t, NAN)));
    assert_true(tv_tdigest_quantile(t, 1) == 1);
    /* compression below 10 acts as 10 */
    tv_tdigest *small = tv_tdigest_new(1);
    assert_non_null(small);
    assert_true(tv_tdigest_compression(small) == 10);
    tv_tdigest_free(small);
    tv_tdigest_free(t);
}

static void test_out_of_memory(void **state) {
    tv_alloc_fail_after(0);
    assert_null(tv_tdigest_new(100));
    tv_alloc_fail_after(-1);

    tv_tdigest *t = digest();
    tv_alloc_fail_after(0);
    assert_int_equal(tv_tdigest_add(t, 1), TROVE_ENOMEM);
    tv_alloc_fail_after(-1);
    assert_true(tv_tdigest_count(t) == 0);

    /* a failed merge pass leaves the digest as it was */
    for (int i = 0; i < 2000; i++) assert_int_equal(tv_tdigest_add(t, i), TROVE_OK);
    tv_alloc_fail_after(0);
    assert_int_equal(tv_tdigest_flush(t), TROVE_ENOMEM);
    assert_true(isnan(tv_tdigest_quantile(t, 0.5)));
    assert_int_equal(tv_tdigest_compress(t), TROVE_ENOMEM);
    tv_alloc_fail_after(-1);
    tv_tdigest *r = digest();
    tv_alloc_fail_after(0);
    assert_int_equal(tv_tdigest_merge(r, t), TROVE_ENOMEM);
    assert_null(tv_tdigest_readback(t));
    tv_alloc_fail_after(-1);
    assert_true(tv_tdigest_count(t) == 2000);

    tv_tdigest *ref = digest();
    for (int i = 0; i < 2000; i++) assert_int_equal(tv_tdigest_add(ref, i), TROVE_OK);
    for (size_t i = 0; i < 7; i++)
        assert_true(bits(tv_tdigest_quantile(t, PCT[i] / 100)) == bits(tv_tdigest_quantile(ref, PCT[i] / 100)));
    tv_tdigest_free(ref);
    tv_tdigest_free(r);
    tv_tdigest_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_one_value),
        cmocka_unit_test(test_two_values),
        cmocka_unit_test(test_five_values),
        cmocka_unit_test(test_hundred_values),
        cmocka_unit_test(test_hundred_thousand),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_negative_zero),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
