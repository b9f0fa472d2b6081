/* test_aggs_significant.c — significant.c alone: the significance
 * heuristics (the cases of OpenSearch's SignificanceHeuristicTests, plus
 * values worked by hand from the formulas), their argument checks, the
 * order Lucene's PriorityQueue gives equal scores, and the duplicate-text
 * filter (DeDuplicatingTokenFilter over DuplicateByteSequenceSpotter). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggs/aggs.h"

static double score(int h, bool neg, bool superset, int64_t a, int64_t b, int64_t c, int64_t d) {
    tv_agg ag;
    memset(&ag, 0, sizeof ag);
    ag.sig_heuristic = h;
    ag.sig_include_negatives = neg;
    ag.sig_bg_superset = superset;
    double out = 12345;
    char msg[300];
    assert_int_equal(tv_sig_score(&ag, a, b, c, d, &out, msg, sizeof msg), TROVE_OK);
    return out;
}

static const char *score_err(int h, bool superset, int64_t a, int64_t b, int64_t c, int64_t d) {
    static char msg[300];
    tv_agg ag;
    memset(&ag, 0, sizeof ag);
    ag.sig_heuristic = h;
    ag.sig_bg_superset = superset;
    double out;
    msg[0] = 0;
    assert_int_equal(tv_sig_score(&ag, a, b, c, d, &out, msg, sizeof msg), TROVE_EARG);
    return msg;
}

static void test_jlh_and_percentage(void **s) {
    (void)s;
    /* subset 1/1 against 1/3: (1 - 1/3) * 3 */
    assert_true(fabs(score(TV_SIG_JLH, 0, 1, 1, 1, 1, 3) - 2.0) < 1e-12);
    /* more common in the background than in the subset: 0 */
    assert_true(score(TV_SIG_JLH, 0, 1, 1, 4, 1, 2) == 0.0);
    /* empty sets: 0; a term missing from the background counts as 1 */
    assert_true(score(TV_SIG_JLH, 0, 1, 0, 0, 0, 0) == 0.0);
    assert_true(score(TV_SIG_JLH, 0, 1, 2, 2, 0, 10) == (1.0 - 0.1) * (1.0 / 0.1));
    /* the YAML "Default index" numbers: 4 of 4 docs against 5 of 7 */
    assert_true(score(TV_SIG_JLH, 0, 1, 4, 4, 5, 7) == 0.39999999999999997);
    assert_true(score(TV_SIG_JLH, 0, 1, 3, 3, 4, 7) == 0.75);
    assert_true(score(TV_SIG_PERCENTAGE, 0, 1, 4, 4, 5, 7) == 0.8);
    assert_true(score(TV_SIG_PERCENTAGE, 0, 1, 0, 4, 0, 7) == 0.0);
}

static void test_mutual_information(void **s) {
    (void)s;
    /* SignificanceHeuristicTests.testScoreMutual */
    assert_true(score(TV_SIG_MUTUAL_INFORMATION, 1, 1, 1, 1, 1, 3) > 0.0);
    assert_true(score(TV_SIG_MUTUAL_INFORMATION, 1, 1, 1, 1, 2, 3) < score(TV_SIG_MUTUAL_INFORMATION, 1, 1, 1, 1, 1, 3));
    assert_true(score(TV_SIG_MUTUAL_INFORMATION, 1, 1, 2, 2, 2, 4) == 1.0);
    assert_true(score(TV_SIG_MUTUAL_INFORMATION, 1, 1, 0, 2, 2, 4) == 1.0);
    assert_true(score(TV_SIG_MUTUAL_INFORMATION, 1, 1, 2, 2, 4, 4) == 0.0);
    assert_true(score(TV_SIG_MUTUAL_INFORMATION, 1, 1, 1, 2, 2, 4) == 0.0);
    assert_true(score(TV_SIG_MUTUAL_INFORMATION, 1, 1, 3, 6, 9, 18) == 0.0);
    /* without negatives, a term rarer in the subset than outside it */
    assert_true(score(TV_SIG_MUTUAL_INFORMATION, 0, 0, 2, 3, 1, 4) > 0.0);
    assert_true(isinf(score(TV_SIG_MUTUAL_INFORMATION, 0, 1, 0, 2, 2, 4)));
}

static void test_chi_square_and_gnd(void **s) {
    (void)s;
    /* 4 of 4 in the subset, 5 of 7 overall: N11 4, N01 0, N10 1, N00 2:
     * 7 * (4*2 - 0)^2 / (4 * 5 * 2 * 3) */
    assert_true(score(TV_SIG_CHI_SQUARE, 0, 1, 4, 4, 5, 7) == 7.0 * 64.0 / 120.0);
    /* negatives: N11/N_1 = 1/4 < N10/N_0 = 3/3 */
    assert_true(isinf(score(TV_SIG_CHI_SQUARE, 0, 1, 1, 4, 4, 7)) && score(TV_SIG_CHI_SQUARE, 0, 1, 1, 4, 4, 7) < 0);
    assert_true(score(TV_SIG_CHI_SQUARE, 1, 1, 1, 4, 4, 7) > 0);
    /* SignificanceHeuristicTests.testGNDCornerCases */
    assert_true(score(TV_SIG_GND, 1, 1, 0, 2, 0, 3) == 0.0);
    assert_true(score(TV_SIG_GND, 1, 1, 0, 1, 2, 5) == 0.0);
    assert_true(score(TV_SIG_GND, 1, 1, 0, 0, 0, 2) == 0.0);
    assert_true(score(TV_SIG_GND, 1, 1, 1, 1, 1, 1) == 1.0);
    assert_true(score(TV_SIG_GND, 1, 0, 0, 0, 0, 0) == 0.0);
    /* exp(-(max(log 5, log 4) - log 4) / (log 7 - min(log 5, log 4))) */
    assert_true(score(TV_SIG_GND, 1, 1, 4, 4, 5, 7) == exp(-1.0 * ((log(5.0) - log(4.0)) / (log(7.0) - log(4.0)))));
}

static void test_checks(void **s) {
    (void)s;
    assert_string_equal(score_err(TV_SIG_JLH, true, -1, 1, 1, 1), "Frequencies of subset and superset must be positive in JLHScore.getScore()");
    assert_string_equal(score_err(TV_SIG_PERCENTAGE, true, 2, 1, 1, 3), "subsetFreq > subsetSize, in PercentageScore");
    assert_string_equal(score_err(TV_SIG_GND, true, 1, 1, 4, 3), "supersetFreq > supersetSize, in GND");
    assert_string_equal(score_err(TV_SIG_CHI_SQUARE, true, 2, 2, 1, 3),
                        "subsetFreq > supersetFreq, does your background filter not include all documents in the bucket? If so "
                        "and it is intentional, set \"background_is_superset\": false");
    assert_string_equal(score_err(TV_SIG_MUTUAL_INFORMATION, true, 1, 5, 1, 3),
                        "subsetSize > supersetSize, does your background filter not include all documents in the bucket? If so "
                        "and it is intentional, set \"background_is_superset\": false");
    /* the same frequencies are fine when the background is not a superset */
    assert_true(score(TV_SIG_CHI_SQUARE, 1, 0, 2, 2, 1, 3) > 0);
}

static void test_rank_ties(void **s) {
    (void)s;
    tv_arena ar;
    tv_arena_init(&ar);
    agg_bucket b[5];
    memset(b, 0, sizeof b);
    agg_bucket *p[5];
    for (int i = 0; i < 3; i++) { b[i].score = 1.0; b[i].ki = i; p[i] = &b[i]; }
    /* three equal scores come out as the heap pops them: 1, 2, 0 */
    assert_int_equal(tv_sig_rank(p, 3, 3, &ar), 3);
    assert_int_equal(p[0]->ki, 1);
    assert_int_equal(p[1]->ki, 2);
    assert_int_equal(p[2]->ki, 0);
    /* a full queue keeps the best, and an equal score replaces the top */
    double sc[5] = {0.5, 2.0, 1.0, 0.5, 3.0};
    for (int i = 0; i < 5; i++) { b[i].score = sc[i]; b[i].ki = i; p[i] = &b[i]; }
    assert_int_equal(tv_sig_rank(p, 5, 2, &ar), 2);
    assert_int_equal(p[0]->ki, 4);
    assert_int_equal(p[1]->ki, 1);
    tv_arena_fini(&ar);
}

static void tokens_of(const char *const *w, size_t n, tv_tokens *t, tv_token *items) {
    for (size_t i = 0; i < n; i++) {
        memset(&items[i], 0, sizeof items[i]);
        items[i].term = w[i];
        items[i].term_len = (uint32_t)strlen(w[i]);
    }
    t->items = items;
    t->len = n;
}

static void test_duplicate_filter(void **s) {
    (void)s;
    static const char *const w[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot",
                                    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"};
    tv_token items[13];
    tv_tokens t;
    bool keep[13];
    tv_dup_spotter *sp = tv_dup_spotter_new();
    assert_non_null(sp);
    /* a run of 6 repeated within a value: the copy goes, the original and
     * what follows the copy stay */
    tokens_of(w, 13, &t, items);
    assert_int_equal(tv_dup_filter(sp, &t, keep), TROVE_OK);
    for (int i = 0; i < 13; i++) assert_int_equal(keep[i], i < 6 || i == 12);
    /* the next document repeats the run: all of it goes */
    tv_dup_spotter_new_sequence(sp);
    tokens_of(w, 6, &t, items);
    assert_int_equal(tv_dup_filter(sp, &t, keep), TROVE_OK);
    for (int i = 0; i < 6; i++) assert_false(keep[i]);
    /* fewer than 6 tokens are never duplicates */
    tv_dup_spotter_new_sequence(sp);
    tokens_of(w, 5, &t, items);
    assert_int_equal(tv_dup_filter(sp, &t, keep), TROVE_OK);
    for (int i = 0; i < 5; i++) assert_true(keep[i]);
    tv_dup_spotter_free(sp);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jlh_and_percentage), cmocka_unit_test(test_mutual_information),
        cmocka_unit_test(test_chi_square_and_gnd), cmocka_unit_test(test_checks),
        cmocka_unit_test(test_rank_ties),          cmocka_unit_test(test_duplicate_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
