/* test_text_icu.c — analysis-icu's icu_normalizer (token filter and char
 * filter, with the char filter's offset corrections) and icu_transform,
 * through libicu. Expected tokens are ICU's normalization forms (NFKC
 * casefold folds width, ligatures and ß) and transliterations, as
 * Lucene's ICUNormalizer2Filter / CharFilter and ICUTransformFilter give
 * them (checked against Lucene 4.10 with ICU4J 72 by tests/analysis). */
#include "text_test.h"

static void test_normalizer_filter(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = tv_analyzer_compose(NULL, NULL, 0, "whitespace",
                                          (const char *[]){"icu_normalizer"}, 1, NULL, 0, &err);
    /* nfkc_cf by default: width, ligature, sharp s, case */
    check(an, "\xef\xbc\xa6\xef\xbd\x95\xef\xbd\x8c\xef\xbd\x8c \xef\xac\x81ne Stra\xc3\x9f" "e",
          (exp_tok[]){{"full", "word", 0, 0, 4}, {"fine", "word", 1, 5, 8}, {"strasse", "word", 2, 9, 15}, END});
    tv_analyzer_free(an);
    /* a unicode_set_filter leaves other chars alone; nfc composes */
    const char *inl = "{\"filter\":{\"n\":{\"type\":\"icu_normalizer\",\"name\":\"nfc\","
                      "\"unicode_set_filter\":\"[^e]\"}}}";
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, inl, strlen(inl), "whitespace", (const char *[]){"n"}, 1, NULL, 0, &err);
    check(an, "a\xcc\x8a e\xcc\x81",
          (exp_tok[]){{"\xc3\xa5", "word", 0, 0, 2}, {"e\xcc\x81", "word", 1, 3, 5}, END});
    tv_analyzer_free(an);
    tv_error_clear(&err);
    inl = "{\"filter\":{\"n\":{\"type\":\"icu_normalizer\",\"name\":\"bogus\"}}}";
    assert_null(tv_analyzer_compose(NULL, inl, strlen(inl), "whitespace", (const char *[]){"n"}, 1, NULL, 0, &err));
    assert_int_equal(err.code, TROVE_EARG);
    /* a normalizing filter: usable without a tokenizer */
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, NULL, 0, NULL, (const char *[]){"icu_normalizer"}, 1, NULL, 0, &err);
    check(an, "A B", (exp_tok[]){{"a b", "word", 0, 0, 3}, END});
    tv_analyzer_free(an);
}

static void test_normalizer_char_filter(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    /* "ﬁ" (1 char) becomes "fi" (2): the token still spans the input's 3 chars;
     * "㎏" becomes "kg" */
    tv_analyzer *an = tv_analyzer_compose(NULL, NULL, 0, "whitespace", NULL, 0,
                                          (const char *[]){"icu_normalizer"}, 1, &err);
    check(an, "\xef\xac\x81ne \xe3\x8e\x8f x",
          (exp_tok[]){{"fine", "word", 0, 0, 3}, {"kg", "word", 1, 4, 5}, {"x", "word", 2, 6, 7}, END});
    tv_analyzer_free(an);
    /* decompose mode: nfc's decomposition is NFD; a longer output maps back */
    const char *inl = "{\"char_filter\":{\"d\":{\"type\":\"icu_normalizer\",\"name\":\"nfc\",\"mode\":\"decompose\"}}}";
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, inl, strlen(inl), "whitespace", NULL, 0, (const char *[]){"d"}, 1, &err);
    check(an, "\xc3\xa9t\xc3\xa9 z", (exp_tok[]){{"e\xcc\x81te\xcc\x81", "word", 0, 0, 3}, {"z", "word", 1, 4, 5}, END});
    tv_analyzer_free(an);
}

static void test_transform(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    const char *inl = "{\"filter\":{\"t\":{\"type\":\"icu_transform\","
                      "\"id\":\"Any-Latin; NFD; [:Nonspacing Mark:] Remove; NFC\"}}}";
    tv_analyzer *an = tv_analyzer_compose(NULL, inl, strlen(inl), "whitespace", (const char *[]){"t"}, 1,
                                          NULL, 0, &err);
    check(an, "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 \xce\xb1\xce\xb2",
          (exp_tok[]){{"Privet", "word", 0, 0, 6}, {"ab", "word", 1, 7, 9}, END});
    tv_analyzer_free(an);
    /* the default id is Null: nothing changes */
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, NULL, 0, "whitespace", (const char *[]){"icu_transform"}, 1, NULL, 0, &err);
    check(an, "Ab", (exp_tok[]){{"Ab", "word", 0, 0, 2}, END});
    tv_analyzer_free(an);
    inl = "{\"filter\":{\"t\":{\"type\":\"icu_transform\",\"id\":\"No-Such\"}}}";
    tv_error_clear(&err);
    assert_null(tv_analyzer_compose(NULL, inl, strlen(inl), "whitespace", (const char *[]){"t"}, 1, NULL, 0, &err));
    assert_int_equal(err.code, TROVE_EARG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalizer_filter),
        cmocka_unit_test(test_normalizer_char_filter),
        cmocka_unit_test(test_transform),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
