/*
 * test_text_lang_misc.c — serbian_normalization, kuromoji_number and the
 * built-in analyzers whose data Lucene 4.10 lacks (bengali, estonian,
 * lithuanian).
 *
 * Expected kuromoji_number tokens came from Lucene 8.7's
 * JapaneseNumberFilter (Debian's liblucene8-java, via jshell, over
 * WhitespaceTokenizer; the filter is unchanged in Lucene 10) and from its
 * javadoc's examples; serbian_normalization's from Lucene's
 * SerbianNormalizationFilter rules (not in Lucene 4.10: no oracle).
 */
#include <string.h>

#include "text_test.h"

static tv_analysis *must(const char *json) {
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg(json, &err);
    if (!r) fprintf(stderr, "refused: %s\n", err.reason);
    assert_non_null(r);
    return r;
}

static void test_serbian(void **state) {
    (void)state;
    tv_analysis *r = must("{\"analyzer\":{\"a\":{\"tokenizer\":\"standard\","
                          "\"filter\":[\"serbian_normalization\"]}}}");
    const tv_analyzer *a = tv_analysis_get(r, "a", 1);
    /* Ђорђе Đorđe џеп љубав ЉУБАВ čačak шума њива ћирилица */
    check(a, "\xd0\x82\xd0\xbe\xd1\x80\xd1\x92\xd0\xb5 \xc4\x90or\xc4\x91" "e "
             "\xd1\x9f\xd0\xb5\xd0\xbf \xd1\x99\xd1\x83\xd0\xb1\xd0\xb0\xd0\xb2 "
             "\xd0\x89\xd0\xa3\xd0\x91\xd0\x90\xd0\x92 \xc4\x8d" "a\xc4\x8d" "ak "
             "\xd1\x88\xd1\x83\xd0\xbc\xd0\xb0 \xd1\x9a\xd0\xb8\xd0\xb2\xd0\xb0 "
             "\xd1\x9b\xd0\xb8\xd1\x80\xd0\xb8\xd0\xbb\xd0\xb8\xd1\x86\xd0\xb0",
          (exp_tok[]){/* upper case is left alone: the filter expects lower case */
                      {"\xd0\x82ordje", "<ALPHANUM>", 0, 0, 5},
                      {"\xc4\x90ordje", "<ALPHANUM>", 1, 6, 11},
                      {"dzep", NULL, 2, 12, 15},
                      {"ljubav", NULL, 3, 16, 21},
                      {"\xd0\x89\xd0\xa3\xd0\x91\xd0\x90\xd0\x92", NULL, 4, 22, 27},
                      {"cacak", NULL, 5, 28, 33},
                      {"suma", NULL, 6, 34, 38},
                      {"njiva", NULL, 7, 39, 43},
                      {"cirilica", NULL, 8, 44, 52}, END});
    tv_analysis_free(r);
    /* after lowercase, every letter becomes bald Latin */
    r = must("{\"analyzer\":{\"a\":{\"tokenizer\":\"standard\","
             "\"filter\":[\"lowercase\",\"serbian_normalization\"]}}}");
    check(tv_analysis_get(r, "a", 1), "\xd0\x89\xd0\xa3\xd0\x91\xd0\x90\xd0\x92 \xc4\x90or\xc4\x91" "e",
          (exp_tok[]){{"ljubav", NULL, 0, 0, 5}, {"djordje", NULL, 1, 6, 11}, END});
    tv_analysis_free(r);
}

#ifdef TROVE_HAVE_MECAB
static void test_number(void **state) {
    (void)state;
    if (!tv_ja_available()) skip();
    tv_analysis *r = must("{\"analyzer\":{\"w\":{\"tokenizer\":\"whitespace\",\"filter\":[\"kuromoji_number\"]},"
                          "\"k\":{\"tokenizer\":\"kt\",\"filter\":[\"kuromoji_number\"]}},"
                          "\"tokenizer\":{\"kt\":{\"type\":\"kuromoji_tokenizer\",\"discard_punctuation\":false}}}");
    const tv_analyzer *w = tv_analysis_get(r, "w", 1), *k = tv_analysis_get(r, "k", 1);
    /* the javadoc's examples, one run each (kuromoji splits them into
     * numerals and punctuation tokens, which the filter joins) */
    static const struct { const char *in, *out; } ex[] = {
        {"\xe3\x80\x87\xe3\x80\x87\xe4\xb8\x83", "7"},                       /* 〇〇七 */
        {"\xe4\xb8\x80\xe3\x80\x87\xe3\x80\x87\xe3\x80\x87", "1000"},         /* 一〇〇〇 */
        {"\xe4\xb8\x89\xe5\x8d\x83" "2\xe7\x99\xbe\xef\xbc\x92\xe5\x8d\x81\xe4\xb8\x89", "3223"}, /* 三千2百２十三 */
        {"\xe5\x85\x86\xe5\x85\xad\xe7\x99\xbe\xe4\xb8\x87\xe4\xba\x94\xe5\x8d\x83\xe4\xb8\x80",
         "1000006005001"},                                                   /* 兆六百万五千一 */
        {"\xef\xbc\x93\xef\xbc\x8e\xef\xbc\x92\xe5\x8d\x83", "3200"},         /* ３．２千 */
        {"\xef\xbc\x91\xef\xbc\x8e\xef\xbc\x92\xe4\xb8\x87\xef\xbc\x93\xef\xbc\x94\xef\xbc\x95\xef\xbc\x8e"
         "\xef\xbc\x96\xef\xbc\x97", "12345.67"},                            /* １．２万３４５．６７ */
        {"4,647.100", "4647.1"},
        {"15,7", "157"},
        {"1.2.3", "1.2.3"}, /* not a number: the text stays */
    };
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        int n16 = (int)tv_utf16_len(ex[i].in, strlen(ex[i].in));
        check(k, ex[i].in, (exp_tok[]){{ex[i].out, NULL, 0, 0, n16}, END});
    }
    /* a whitespace token with punctuation inside is not a numeral: untouched */
    check(w, "\xef\xbc\x93\xef\xbc\x8e\xef\xbc\x92\xe5\x8d\x83",
          (exp_tok[]){{"\xef\xbc\x93\xef\xbc\x8e\xef\xbc\x92\xe5\x8d\x83", NULL, 0, 0, 4}, END});
    /* runs across tokens (Lucene 8.7, whitespace tokens): 三 千 円 の 1 . 5 万 */
    check(w, "\xe4\xb8\x89 \xe5\x8d\x83 \xe5\x86\x86 \xe3\x81\xae 1 . 5 \xe4\xb8\x87",
          (exp_tok[]){{"3000", NULL, 0, 0, 3}, {"\xe5\x86\x86", NULL, 1, 4, 5},
                      {"\xe3\x81\xae", NULL, 2, 6, 7}, {"15000", NULL, 3, 8, 15}, END});
    /* punctuation never starts a run; trailing separators join it: . 5 百 / 3 , , 4 x */
    check(w, ". 5 \xe7\x99\xbe", (exp_tok[]){{".", NULL, 0, 0, 1}, {"500", NULL, 1, 2, 5}, END});
    check(w, "3 , , 4 x", (exp_tok[]){{"34", NULL, 0, 0, 7}, {"x", NULL, 1, 8, 9}, END});
    /* beyond 64 bits: 千 千 千 垓 and a 20-digit number times 垓 */
    check(w, "\xe5\x8d\x83 \xe5\x8d\x83 \xe5\x8d\x83 \xe5\x9e\x93",
          (exp_tok[]){{"300000000000000000000000", NULL, 0, 0, 7}, END});
    check(w, "12345678901234567890 \xe5\x9e\x93",
          (exp_tok[]){{"1234567890123456789000000000000000000000", NULL, 0, 0, 22}, END});
    /* a separator token after a complete run stays a token: １ ，０００ 円 */
    check(w, "\xef\xbc\x91 \xef\xbc\x8c\xef\xbc\x90\xef\xbc\x90\xef\xbc\x90 \xe5\x86\x86",
          (exp_tok[]){{"1", NULL, 0, 0, 1}, {"\xef\xbc\x8c\xef\xbc\x90\xef\xbc\x90\xef\xbc\x90", NULL, 1, 2, 6},
                      {"\xe5\x86\x86", NULL, 2, 7, 8}, END});
    /* over kuromoji's tokens: 本日十万二千五百円のワインを買った */
    check(k, "\xe6\x9c\xac\xe6\x97\xa5\xe5\x8d\x81\xe4\xb8\x87\xe4\xba\x8c\xe5\x8d\x83\xe4\xba\x94\xe7\x99\xbe"
             "\xe5\x86\x86\xe3\x81\xae\xe3\x83\xaf\xe3\x82\xa4\xe3\x83\xb3\xe3\x82\x92\xe8\xb2\xb7\xe3\x81\xa3"
             "\xe3\x81\x9f",
          (exp_tok[]){{"\xe6\x9c\xac\xe6\x97\xa5", NULL, 0, 0, 2}, {"102500", NULL, 1, 2, 8},
                      {"\xe5\x86\x86", NULL, 2, 8, 9}, {"\xe3\x81\xae", NULL, 3, 9, 10},
                      {"\xe3\x83\xaf\xe3\x82\xa4\xe3\x83\xb3", NULL, 4, 10, 13}, {"\xe3\x82\x92", NULL, 5, 13, 14},
                      {"\xe8\xb2\xb7\xe3\x81\xa3", NULL, 6, 14, 16}, {"\xe3\x81\x9f", NULL, 7, 16, 17}, END});
    /* keyword tokens are left alone */
    tv_analysis_free(r);
    r = must("{\"analyzer\":{\"w\":{\"tokenizer\":\"whitespace\",\"filter\":[\"km\",\"kuromoji_number\"]}},"
             "\"filter\":{\"km\":{\"type\":\"keyword_marker\",\"keywords\":[\"\xe5\x8d\x81\"]}}}");
    check(tv_analysis_get(r, "w", 1), "\xe5\x8d\x81 \xe4\xba\x8c",
          (exp_tok[]){{"\xe5\x8d\x81", NULL, 0, 0, 1}, {"2", NULL, 1, 2, 3}, END});
    tv_analysis_free(r);
}

/* use_romaji over tokens without a reading romanizes the term itself
 * (expected: Lucene 4.10's ToStringUtil.getRomanization via jshell) */
static void test_romaji(void **state) {
    (void)state;
    if (!tv_ja_available()) skip();
    tv_analysis *r = must("{\"analyzer\":{\"w\":{\"tokenizer\":\"whitespace\",\"filter\":[\"rf\"]}},"
                          "\"filter\":{\"rf\":{\"type\":\"kuromoji_readingform\",\"use_romaji\":true}}}");
    const tv_analyzer *w = tv_analysis_get(r, "w", 1);
    static const struct { const char *in, *out; } ex[] = {
        {"キョウト", "kyōto"}, {"シャッポ", "shappo"}, {"コーヒー", "kohi"}, {"ガッコウ", "gakkō"},
        {"シンブン", "shimbun"}, {"ゲンイン", "gen'in"}, {"ファイル", "fairu"}, {"ラ゜", "la"},
        {"abc", "abc"}, {"ヴィェ", "vye"}, {"ヴァ", "va"}, {"ッガ", "ga"}, {"チュウ", "chū"},
        {"ンー", "n"}, {"ウュ", "wyu"}, {"フィェ", "fye"}, {"トゥ", "tu"},
    };
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        int n16 = (int)tv_utf16_len(ex[i].in, strlen(ex[i].in));
        check(w, ex[i].in, (exp_tok[]){{ex[i].out, NULL, 0, 0, n16}, END});
    }
    /* ッ alone romanizes to nothing: an empty term, kept */
    check(w, "ッ", (exp_tok[]){{"", NULL, 0, 0, 1}, END});
    tv_analysis_free(r);
    /* over kuromoji: the reading's romanization (東京 トウキョウ) */
    r = must("{\"analyzer\":{\"k\":{\"tokenizer\":\"kuromoji_tokenizer\",\"filter\":[\"rf\"]}},"
             "\"filter\":{\"rf\":{\"type\":\"kuromoji_readingform\",\"use_romaji\":true}}}");
    check(tv_analysis_get(r, "k", 1), "東京", (exp_tok[]){{"tōkyō", NULL, 0, 0, 2}, END});
    tv_analysis_free(r);
}
#endif

/* bengali and lithuanian need Lucene 10's bn/lt stop word lists (from
 * Debian's Lucene 8 jar when the build has it); estonian also needs the
 * Estonian Snowball stemmer, which libstemmer 2.2 lacks. */
static void test_missing_data(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    assert_null(B("estonian"));
    assert_true(tv_analyzer_builtin_error("estonian", 8, &err));
    assert_int_equal(err.code, TROVE_EUNSUPPORTED);
    assert_string_equal(err.reason, "analyzer [estonian]: the estonian Snowball stemmer is not available");
    assert_false(tv_analyzer_builtin_error("english", 7, &err));
    assert_true(tv_analyzer_unsupported("estonian", 8));
    if (B("lithuanian")) {
        /* ir (and) is a stop word; namai stems to nam */
        check(B("lithuanian"), "ir namai", (exp_tok[]){{"nam", NULL, 1, 3, 8}, END});
    } else {
        assert_true(tv_analyzer_builtin_error("lithuanian", 10, &err));
        assert_string_equal(err.reason, "analyzer [lithuanian]: its default stop words (Lucene's "
                                        "lt/stopwords.txt) are not available");
    }
    if (!B("bengali")) {
        assert_true(tv_analyzer_builtin_error("bengali", 7, &err));
        assert_int_equal(err.code, TROVE_EUNSUPPORTED);
    }
    /* custom analyzers of those types with explicit stop words work */
    tv_analysis *r = must("{\"analyzer\":{\"lt\":{\"type\":\"lithuanian\",\"stopwords\":[\"ir\"]},"
                          "\"bn\":{\"type\":\"bengali\",\"stopwords\":\"_none_\"}}}");
    check(tv_analysis_get(r, "lt", 2), "ir namai", (exp_tok[]){{"nam", NULL, 1, 3, 8}, END});
    assert_non_null(tv_analysis_get(r, "bn", 2));
    tv_analysis_free(r);
    /* estonian does not, whatever the stop words */
    r = reg("{\"analyzer\":{\"et\":{\"type\":\"estonian\",\"stopwords\":[\"ja\"]}}}", &err);
    assert_null(r);
    assert_int_equal(err.code, TROVE_EUNSUPPORTED);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serbian),
#ifdef TROVE_HAVE_MECAB
        cmocka_unit_test(test_number),
        cmocka_unit_test(test_romaji),
#endif
        cmocka_unit_test(test_missing_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
