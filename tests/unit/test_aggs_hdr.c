/* test_aggs_hdr.c — the HDR histogram (hdr.c) and the MovingFunctions of
 * moving_fn.c, directly.
 *
 * HDR expectations are derived by hand from DoubleHistogram's definition
 * (see hdr.c): with d digits a value v >= the smallest recorded value's
 * power of two L lies in a bucket of width 2^(floor(log2 v) - m), m =
 * ceil(log2(2 * 10^d)) - 1, and a percentile answers the bucket's integer
 * top (lo / r + s - 1) times r = L / 2^m. The values the YAML suite pins
 * (51.0302734375, 1101.9990234375, 1426066581225472, 126.03125,
 * 1101.96875 for d = 3) are checked here as well. MovingFunctions
 * expectations are worked out from the Java source's arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aggs/aggs.h"
#include "aggs/hdr.h"

static tv_hdr *of(int digits, const double *v, size_t n) {
    tv_hdr *h = tv_hdr_new(digits);
    assert_non_null(h);
    for (size_t i = 0; i < n; i++) assert_int_equal(tv_hdr_add(h, v[i]), TROVE_OK);
    return h;
}

static void test_yaml_values(void **s) {
    (void)s;
    const double a[] = {1, 51, 1101, 1425497558138880.0};
    tv_hdr *h = of(3, a, 4);
    assert_true(tv_hdr_value_at(h, 1) == 1.0);
    assert_true(tv_hdr_value_at(h, 50) == 51.0302734375);
    assert_true(tv_hdr_value_at(h, 75) == 1101.9990234375);
    assert_true(tv_hdr_value_at(h, 99) == 1426066581225472.0);
    assert_int_equal(tv_hdr_count(h), 4);
    tv_hdr_free(h);
    const double b[] = {51, 1101, 1425497558138880.0, 126};
    h = of(3, b, 4);
    assert_true(tv_hdr_value_at(h, 1) == 51.0);
    assert_true(tv_hdr_value_at(h, 50) == 126.03125);
    assert_true(tv_hdr_value_at(h, 75) == 1101.96875);
    tv_hdr_free(h);
}

static void test_order_and_merge(void **s) {
    (void)s;
    /* the answer depends on the values only: any order, any split */
    const double a[] = {1101, 51, 7, 1425497558138880.0, 1};
    const double x[] = {1, 7}, y[] = {51, 1425497558138880.0, 1101};
    tv_hdr *h = of(3, a, 5), *p = of(3, y, 3), *q = of(3, x, 2), *m = tv_hdr_new(3);
    assert_int_equal(tv_hdr_merge(m, p), TROVE_OK);
    assert_int_equal(tv_hdr_merge(m, q), TROVE_OK);
    for (double pc = 0; pc <= 100; pc += 12.5) assert_true(tv_hdr_value_at(h, pc) == tv_hdr_value_at(m, pc));
    assert_true(tv_hdr_value_at(m, 0) == 1.0); /* percentile 0: the lowest equivalent value */
    assert_int_equal(tv_hdr_count(m), 5);
    tv_hdr_free(h);
    tv_hdr_free(p);
    tv_hdr_free(q);
    tv_hdr_free(m);
}

static void test_zero_digits_and_ranks(void **s) {
    (void)s;
    /* d = 0: one sub-bucket per half power of two; 0 is its own bucket */
    const double a[] = {0, 0, 3, 5, 6};
    tv_hdr *h = of(0, a, 5);
    assert_true(tv_hdr_value_at(h, 40) == 0.0);
    /* L = 2, r = 2: 3 is the integer 1, a bucket of size 1: (1 + 1 - 1) * 2 = 2 */
    assert_true(tv_hdr_value_at(h, 60) == 2.0);
    /* 5 and 6 share [4, 8): integer 2, s = 2: (2 + 2 - 1) * 2 = 6 */
    assert_true(tv_hdr_value_at(h, 100) == 6.0);
    assert_true(tv_hdr_rank(h, 0) == 40.0);
    assert_true(tv_hdr_rank(h, 1) == 40.0);   /* below L: the zeros only */
    assert_true(tv_hdr_rank(h, 3.9) == 60.0);
    assert_true(tv_hdr_rank(h, 4) == 100.0);  /* 4 shares 5's and 6's bucket */
    assert_true(isnan(tv_hdr_rank(NULL, 1)));
    tv_hdr_free(h);
    tv_hdr *e = tv_hdr_new(3);
    assert_true(isnan(tv_hdr_value_at(e, 50)));
    tv_hdr_free(e);
}

static void test_refusals(void **s) {
    (void)s;
    tv_hdr *h = tv_hdr_new(3);
    assert_int_equal(tv_hdr_add(h, -1), TROVE_EUNSUPPORTED);
    assert_int_equal(tv_hdr_add(h, NAN), TROVE_EUNSUPPORTED);
    assert_int_equal(tv_hdr_add(h, 1e-3), TROVE_OK);
    /* max / r must stay below 2^63: with L = 2^-10 and m = 10, v < 2^43 */
    assert_int_equal(tv_hdr_add(h, ldexp(1, 42)), TROVE_OK);
    assert_int_equal(tv_hdr_add(h, ldexp(1, 43)), TROVE_EUNSUPPORTED);
    assert_int_equal(tv_hdr_count(h), 2);
    tv_hdr_free(h);
}

static void test_moving_functions(void **s) {
    (void)s;
    const double v[] = {1, 5, 2, 8};
    assert_true(tv_movfn_max(v, 4) == 8);
    assert_true(tv_movfn_min(v, 4) == 1);
    assert_true(isnan(tv_movfn_max(v, 0)));
    assert_true(tv_movfn_sum(v, 0) == 0.0);
    /* DoubleStream.sum compensates: 1e16 + 1 + 1 keeps both ones */
    const double k[] = {1e16, 1, 1};
    assert_true(tv_movfn_sum(k, 3) == 10000000000000002.0);
    assert_true(tv_movfn_unweighted_avg(v, 4) == 4.0);
    assert_true(tv_movfn_std_dev(v, 4, 4.0) == sqrt(7.5));
    /* (1*1 + 5*2 + 2*3 + 8*4) / (1 + 1 + 2 + 3 + 4) */
    assert_true(tv_movfn_linear_weighted_avg(v, 4) == 49.0 / 11.0);
    assert_true(tv_movfn_ewma(v, 4, 0.5) == 5.25);
    assert_true(tv_movfn_holt(v, 1, 0.5, 0.5) == 1.0);
    double out;
    tv_error e;
    tv_error_clear(&e);
    assert_int_equal(tv_movfn_holt_winters(v, 4, 0.5, 0.5, 0.5, 3, false, &out, &e), TROVE_EARG);
    assert_int_equal(tv_movfn_holt_winters(v, 4, 0.5, 0.5, 0.5, 2, false, &out, &e), TROVE_OK);
    assert_true(isfinite(out));
    /* the script recognizer: one call, literals or params */
    tv_movfn m;
    const char *src = "MovingFunctions.ewma(values, 0.5)";
    tv_movfn_compile(&m, src, strlen(src), NULL, NULL);
    assert_int_equal(tv_movfn_eval(&m, v, 4, &out, &e), TROVE_OK);
    assert_true(out == 5.25);
    src = "MovingFunctions.ewma(values) + 1";
    tv_movfn_compile(&m, src, strlen(src), NULL, NULL);
    tv_error_clear(&e);
    assert_int_equal(tv_movfn_eval(&m, v, 4, &out, &e), TROVE_EUNSUPPORTED);
    src = "MovingFunctions.sum(values)";
    tv_movfn_compile(&m, src, strlen(src), "expression", NULL);
    tv_error_clear(&e);
    assert_int_equal(tv_movfn_eval(&m, v, 4, &out, &e), TROVE_EUNSUPPORTED);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_yaml_values),
        cmocka_unit_test(test_order_and_merge),
        cmocka_unit_test(test_zero_digits_and_ranks),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_moving_functions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
