/* test_text_kstem.c — the stemmers of tf_kstem.c and tf_snowball_compat.c:
 * `kstem` and the `stemmer` names light_english / lightEnglish / kstem
 * (KStemFilter), Snowball German2 (`snowball` analyzer and filter,
 * `stemmer` german2), and the names Lucene 10 removed (the `stemmer`
 * languages kp / dutch_kp / dutchKp / lovins end the stream, as OpenSearch
 * 3.x answers them; the `snowball` languages Kp / Lovins are refused as
 * Lucene 10's SnowballFilter refuses them). Expected tokens came from
 * Lucene 4.10 (Debian's liblucene4.10-java: KStemFilter and
 * SnowballFilter("German2") after StandardTokenizer and LowerCaseFilter). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "text_test.h"

#define A "<ALPHANUM>"

static const char *const EN = "The Italians were aging; happier calories, abilities and hopefully "
                              "microcoded civilizations. Going AIDS xyzzies";
/* Lucene 4.10's KStemFilter */
static const exp_tok EN_KSTEM[] = {
    {"the", A, 0, 0, 3},        {"italy", A, 1, 4, 12},      {"were", A, 2, 13, 17},
    {"age", A, 3, 18, 23},      {"happy", A, 4, 25, 32},     {"calorie", A, 5, 33, 41},
    {"abilities", A, 6, 43, 52}, {"and", A, 7, 53, 56},      {"hopefully", A, 8, 57, 66},
    {"microcode", A, 9, 67, 77}, {"civilization", A, 10, 78, 91}, {"go", A, 11, 93, 98},
    {"aids", A, 12, 99, 103},   {"xyzzy", A, 13, 104, 111},  END};

static void test_kstem(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"filter\":{\"le\":{\"type\":\"stemmer\",\"language\":\"light_english\"},"
                         "\"le2\":{\"type\":\"stemmer\",\"language\":\"lightEnglish\"},"
                         "\"ks\":{\"type\":\"stemmer\",\"name\":\"KStem\"},"
                         "\"km\":{\"type\":\"keyword_marker\",\"keywords\":[\"italians\",\"aging\"]}},"
                         "\"analyzer\":{\"a\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"kstem\"]},"
                         "\"b\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"le\"]},"
                         "\"c\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"le2\"]},"
                         "\"d\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"ks\"]},"
                         "\"e\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"km\",\"kstem\"]},"
                         "\"f\":{\"tokenizer\":\"whitespace\",\"filter\":[\"kstem\"]}}}",
                         &err);
    assert_non_null(r);
    check(tv_analysis_get(r, "a", 1), EN, EN_KSTEM);
    check(tv_analysis_get(r, "b", 1), EN, EN_KSTEM);
    check(tv_analysis_get(r, "c", 1), EN, EN_KSTEM);
    check(tv_analysis_get(r, "d", 1), EN, EN_KSTEM);
    /* keyword_marker: marked tokens are not stemmed */
    check(tv_analysis_get(r, "e", 1), "Italians aging calories",
          (exp_tok[]){{"italians", A, 0, 0, 8}, {"aging", A, 1, 9, 14}, {"calorie", A, 2, 15, 23}, END});
    /* upper case, digits, non-ASCII letters, two letters, 50 letters: left alone
     * (KStemmer stems only a-z words of 3..49 letters) */
    check(tv_analysis_get(r, "f", 1),
          "Dogs dogs2 caf\xc3\xa9s is aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaas "
          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaas",
          (exp_tok[]){{"Dogs", "word", 0, 0, 4},
                      {"dogs2", "word", 1, 5, 10},
                      {"caf\xc3\xa9s", "word", 2, 11, 16},
                      {"is", "word", 3, 17, 19},
                      {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaas", "word", 4, 20, 70},
                      {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "word", 5, 71, 120},
                      END});
    tv_analysis_free(r);
}

static void test_german2(void **state) {
    (void)state;
    static const char *const DE = "Die B\xc3\xbc" "cher und Buecher der H\xc3\xa4" "user, Haeuser und Mauern "
                                  "quaestor Stra\xc3\x9f" "e";
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"filter\":{\"s\":{\"type\":\"snowball\",\"language\":\"german2\"},"
                         "\"t\":{\"type\":\"stemmer\",\"language\":\"German2\"}},"
                         "\"analyzer\":{\"a\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"s\"]},"
                         "\"b\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"t\"]},"
                         "\"c\":{\"type\":\"snowball\",\"language\":\"German2\"}}}",
                         &err);
    assert_non_null(r);
    /* Lucene 4.10's SnowballFilter "German2": ue/ae fold as ü/ä, "qu" and the
     * two letters after it stay */
    const exp_tok all[] = {{"die", A, 0, 0, 3},   {"buch", A, 1, 4, 10},   {"und", A, 2, 11, 14},
                           {"buch", A, 3, 15, 22}, {"der", A, 4, 23, 26},   {"haus", A, 5, 27, 33},
                           {"haus", A, 6, 35, 42}, {"und", A, 7, 43, 46},   {"mau", A, 8, 47, 53},
                           {"quaestor", A, 9, 54, 62}, {"strass", A, 10, 63, 69}, END};
    check(tv_analysis_get(r, "a", 1), DE, all);
    check(tv_analysis_get(r, "b", 1), DE, all);
    tv_analysis_free(r);
    /* Lucene 10 folded German2 into German: the plain German names stem alike */
    r = reg("{\"filter\":{\"s\":{\"type\":\"snowball\",\"language\":\"German\"},"
            "\"t\":{\"type\":\"stemmer\",\"language\":\"german\"}},"
            "\"analyzer\":{\"a\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"s\"]},"
            "\"b\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"t\"]}}}",
            &err);
    assert_non_null(r);
    check(tv_analysis_get(r, "a", 1), DE, all);
    check(tv_analysis_get(r, "b", 1), DE, all);
    tv_analysis_free(r);
    r = reg("{\"analyzer\":{\"c\":{\"type\":\"snowball\",\"language\":\"German2\"}}}", &err);
    assert_non_null(r);
    /* the snowball analyzer: German2 takes German's default stop words */
    check(tv_analysis_get(r, "c", 1), DE,
          (exp_tok[]){{"buch", A, 1, 4, 10}, {"buch", A, 3, 15, 22}, {"haus", A, 5, 27, 33},
                      {"haus", A, 6, 35, 42}, {"mau", A, 8, 47, 53}, {"quaestor", A, 9, 54, 62},
                      {"strass", A, 10, 63, 69}, END});
    tv_analysis_free(r);
}

static void test_removed(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"filter\":{\"k\":{\"type\":\"stemmer\",\"language\":\"dutch_kp\"},"
                         "\"k2\":{\"type\":\"stemmer\",\"language\":\"dutchKp\"},"
                         "\"k3\":{\"type\":\"stemmer\",\"language\":\"KP\"},"
                         "\"l\":{\"type\":\"stemmer\",\"language\":\"lovins\"}},"
                         "\"analyzer\":{\"a\":{\"tokenizer\":\"standard\",\"filter\":[\"k\"]},"
                         "\"b\":{\"tokenizer\":\"standard\",\"filter\":[\"k2\"]},"
                         "\"c\":{\"tokenizer\":\"standard\",\"filter\":[\"k3\"]},"
                         "\"d\":{\"tokenizer\":\"standard\",\"filter\":[\"l\"]}}}",
                         &err);
    assert_non_null(r);
    /* OpenSearch 3.x: a filter whose incrementToken() answers false */
    const exp_tok none[] = {END};
    check(tv_analysis_get(r, "a", 1), "de kinderen fietsen", none);
    check(tv_analysis_get(r, "b", 1), "de kinderen fietsen", none);
    check(tv_analysis_get(r, "c", 1), "de kinderen fietsen", none);
    check(tv_analysis_get(r, "d", 1), "nationality running", none);
    tv_analysis_free(r);
    /* Lucene 10's SnowballFilter finds no class for them */
    expect_error("{\"filter\":{\"s\":{\"type\":\"snowball\",\"language\":\"kp\"}}}", TROVE_EARG,
                 "Invalid stemmer class specified: Kp");
    expect_error("{\"filter\":{\"s\":{\"type\":\"snowball\",\"language\":\"Lovins\"}}}", TROVE_EARG,
                 "Invalid stemmer class specified: Lovins");
    expect_error("{\"analyzer\":{\"a\":{\"type\":\"snowball\",\"language\":\"Kp\"}}}", TROVE_EARG,
                 "Invalid stemmer class specified: Kp");
    expect_error("{\"analyzer\":{\"a\":{\"type\":\"snowball\",\"language\":\"Lovins\"}}}", TROVE_EARG,
                 "Invalid stemmer class specified: Lovins");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kstem),
        cmocka_unit_test(test_german2),
        cmocka_unit_test(test_removed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
