/* test_text_lang_other.c — the non-Latin-script and other language
 * analyzers and their components (lang_*.c, tok_thai.c): cjk, russian,
 * arabic, persian, sorani, hindi, bengali, greek, czech, bulgarian,
 * armenian, indonesian, thai; cjk_width, cjk_bigram, decimal_digit, the
 * normalization filters, the `stemmer` languages, stop words,
 * stem_exclusion and the errors. Expected tokens come from Lucene 4.10
 * (Debian's jars, through the analysis oracle of tests/analysis) unless a
 * comment names a Lucene 10 difference that OpenSearch 3.x follows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "text_test.h"

#define A "<ALPHANUM>"
#define D "<DOUBLE>"
#define S "<SINGLE>"

/* A one-off analyzer: tokenizer and filters by name over registry r
 * (NULL: built-ins), inline definitions in `inl` ("analysis" JSON). */
static tv_analyzer *comp(const char *inl, const char *tok, const char *const *f, size_t nf) {
    tv_error err;
    tv_analyzer *an = tv_analyzer_compose(NULL, inl, inl ? strlen(inl) : 0, tok, f, nf, NULL, 0, &err);
    if (!an) fprintf(stderr, "compose: %s\n", err.reason);
    return an;
}

/* The analyzer "a" of settings JSON, checked against exp. */
static void check_reg(const char *json, const char *text, const exp_tok *exp) {
    tv_error err;
    tv_analysis *r = reg(json, &err);
    if (!r) fprintf(stderr, "registry: %s\n", err.reason);
    assert_non_null(r);
    check(tv_analysis_get(r, "a", 1), text, exp);
    tv_analysis_free(r);
}

static void test_cjk(void **state) {
    (void)state;
    /* width folding (halfwidth katakana, voiced mark composed, fullwidth
     * ASCII), bigrams across aligned tokens, a lone <SINGLE>, hangul */
    check(B("cjk"), "我是中国人 ﾃｽﾄ ｶﾞ ＡＢＣ and 한국어",
          (exp_tok[]){{"我是", D, 0, 0, 2}, {"是中", D, 1, 1, 3}, {"中国", D, 2, 2, 4},
                      {"国人", D, 3, 3, 5}, {"テス", D, 4, 6, 8}, {"スト", D, 5, 7, 9},
                      {"ガ", S, 6, 10, 12}, {"abc", A, 7, 13, 16}, {"한국", D, 9, 21, 23},
                      {"국어", D, 10, 22, 24}, END});
    /* output_unigrams stacks each bigram on its first unigram (positionLength 2) */
    tv_analyzer *an = comp("{\"filter\":{\"u\":{\"type\":\"cjk_bigram\",\"output_unigrams\":true}}}",
                           "standard", (const char *[]){"u"}, 1);
    check(an, "我是中国人 x 日",
          (exp_tok[]){{"我", S, 0, 0, 1}, {"我是", D, 0, 0, 2}, {"是", S, 1, 1, 2},
                      {"是中", D, 1, 1, 3}, {"中", S, 2, 2, 3}, {"中国", D, 2, 2, 4},
                      {"国", S, 3, 3, 4}, {"国人", D, 3, 3, 5}, {"人", S, 4, 4, 5},
                      {"x", A, 5, 6, 7}, {"日", S, 6, 8, 9}, END});
    tv_arena a;
    tv_arena_init(&a);
    tv_tokens t;
    assert_int_equal(tv_analyze(an, &a, "中国", 6, 0, &t), TROVE_OK);
    assert_int_equal(t.len, 3);
    assert_int_equal(t.items[1].pos_len, 2);
    assert_true(t.items[0].pos_len <= 1);
    tv_arena_fini(&a);
    tv_analyzer_free(an);
    /* ignored_scripts: han passes through, unknown names are ignored */
    an = comp("{\"filter\":{\"g\":{\"type\":\"cjk_bigram\",\"ignored_scripts\":[\"han\",\"latin\"]}}}",
              "standard", (const char *[]){"g"}, 1);
    check(an, "東京タワーへ行く",
          (exp_tok[]){{"東", "<IDEOGRAPHIC>", 0, 0, 1}, {"京", "<IDEOGRAPHIC>", 1, 1, 2},
                      {"タワ", D, 2, 2, 4}, {"ワー", D, 3, 3, 5}, {"ーへ", D, 4, 4, 6},
                      {"行", "<IDEOGRAPHIC>", 5, 6, 7}, {"く", S, 6, 7, 8}, END});
    tv_analyzer_free(an);
    /* cjk_width alone; the cjk stop set (English words) */
    an = comp(NULL, "whitespace", (const char *[]){"cjk_width"}, 1);
    check(an, "ｳﾞｧｲｵﾘﾝ Ｔｅｓｔ", (exp_tok[]){{"ヴァイオリン", "word", 0, 0, 7}, {"Test", "word", 1, 8, 12}, END});
    tv_analyzer_free(an);
    check(B("cjk"), "the test", (exp_tok[]){{"test", A, 1, 4, 8}, END});
    check_reg("{\"analyzer\":{\"a\":{\"type\":\"cjk\",\"stopwords\":[\"test\"]}}}", "the test",
              (exp_tok[]){{"the", A, 0, 0, 3}, END});
}

static void test_russian_bulgarian(void **state) {
    (void)state;
    check(B("russian"), "Вместе с тем о силе электромагнитной энергии",
          (exp_tok[]){{"вмест", A, 0, 0, 6}, {"сил", A, 4, 15, 19},
                      {"электромагнитн", A, 5, 20, 36}, {"энерг", A, 6, 37, 44}, END});
    check_reg("{\"analyzer\":{\"a\":{\"type\":\"russian\",\"stem_exclusion\":[\"энергии\"]}}}",
              "энергии энергия", (exp_tok[]){{"энергии", A, 0, 0, 7}, {"энерг", A, 1, 8, 15}, END});
    check_reg("{\"analyzer\":{\"a\":{\"type\":\"russian\",\"stopwords\":\"_none_\"}}}", "с тем",
              (exp_tok[]){{"с", A, 0, -1, -1}, {"тем", A, 1, -1, -1}, END});
    tv_analyzer *an = comp(NULL, "standard", (const char *[]){"lowercase", "russian_stem"}, 2);
    check(an, "Силе", (exp_tok[]){{"сил", A, 0, 0, 4}, END});
    tv_analyzer_free(an);
    check(B("bulgarian"), "компютри градовете",
          (exp_tok[]){{"компютр", A, 0, 0, 8}, {"град", A, 1, 9, 18}, END});
    check_reg("{\"filter\":{\"s\":{\"type\":\"stemmer\",\"language\":\"Bulgarian\"}},"
              "\"analyzer\":{\"a\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"s\"]}}}",
              "градовете", (exp_tok[]){{"град", A, 0, 0, 9}, END});
}

static void test_arabic_persian_sorani(void **state) {
    (void)state;
    check(B("arabic"), "والكتاب الكتابات مكتبة",
          (exp_tok[]){{"كتاب", A, 0, 0, 7}, {"كتاب", A, 1, 8, 16}, {"مكتب", A, 2, 17, 22}, END});
    /* Lucene 10 adds DecimalDigitFilter to the arabic analyzer (4.10 keeps ٣٤) */
    check(B("arabic"), "٣٤", (exp_tok[]){{"34", "<NUM>", 0, 0, 2}, END});
    /* stem_exclusion is matched after normalization (ة is then ه) */
    check_reg("{\"analyzer\":{\"a\":{\"type\":\"arabic\",\"stem_exclusion\":[\"مكتبه\"]}}}", "مكتبة",
              (exp_tok[]){{"مكتبه", A, 0, 0, 5}, END});
    check_reg("{\"analyzer\":{\"a\":{\"type\":\"arabic\",\"stem_exclusion\":[\"مكتبة\"]}}}", "مكتبة",
              (exp_tok[]){{"مكتب", A, 0, 0, 5}, END});
    /* the `stemmer` language arabic is ArabicStemFilter (no normalization):
     * صاموا and على stay */
    tv_analyzer *an = comp("{\"filter\":{\"s\":{\"type\":\"stemmer\",\"language\":\"arabic\"}}}",
                           "standard", (const char *[]){"s"}, 1);
    check(an, "صاموا على الكتاب", (exp_tok[]){{"صاموا", A, 0, -1, -1}, {"على", A, 1, -1, -1},
                                               {"كتاب", A, 2, -1, -1}, END});
    tv_analyzer_free(an);
    an = comp(NULL, "whitespace", (const char *[]){"arabic_normalization"}, 1);
    check(an, "أحمد مُحَمَّد ـكتابـ", (exp_tok[]){{"احمد", "word", 0, -1, -1}, {"محمد", "word", 1, -1, -1},
                                                   {"كتاب", "word", 2, -1, -1}, END});
    tv_analyzer_free(an);
    /* persian: the ZWNJ is a word break; Lucene 10's PersianStemFilter
     * strips ان (Lucene 4.10, without a stemmer, keeps دوستان) */
    check(B("persian"), "کتاب‌ها بهترین دوستان",
          (exp_tok[]){{"كتاب", A, 0, 0, 4}, {"دوست", A, 3, 15, 21}, END});
    an = comp(NULL, "whitespace", (const char *[]){"persian_normalization", "persian_stem"}, 2);
    check(an, "کتابها", (exp_tok[]){{"كتاب", "word", 0, 0, 6}, END});
    tv_analyzer_free(an);
    check(B("sorani"), "پیاوەکان دەچنە ماڵەوە",
          (exp_tok[]){{"پیاو", A, 0, 0, 8}, {"دەچن", A, 1, 9, 14}, {"ماڵەو", A, 2, 15, 21}, END});
}

static void test_indic(void **state) {
    (void)state;
    check(B("hindi"), "किताबें हिंदी का एक",
          (exp_tok[]){{"किताब", A, 0, 0, 7}, {"हिंद", A, 1, 8, 13}, END});
    tv_analyzer *an = comp(NULL, "standard", (const char *[]){"lowercase", "indic_normalization", "hindi_normalization"}, 3);
    check(an, "क़िताब अाप", (exp_tok[]){{"किताब", A, 0, 0, 6}, {"अप", A, 1, 7, 10}, END});
    tv_analyzer_free(an);
    /* decimal_digit: Devanagari and Arabic-Indic digits */
    an = comp(NULL, "whitespace", (const char *[]){"decimal_digit"}, 1);
    check(an, "१२३ ٤٥ x9", (exp_tok[]){{"123", "word", 0, 0, 3}, {"45", "word", 1, 4, 6},
                                        {"x9", "word", 2, 7, 9}, END});
    tv_analyzer_free(an);
    /* bengali: Lucene 4.10 has no Bengali analyzer and no bn/stopwords.txt,
     * so the list must be given; the stemmer is Lucene 10's BengaliStemmer */
    if (!B("bengali")) /* built without Lucene 8's bn/stopwords.txt */
        expect_error("{\"analyzer\":{\"a\":{\"type\":\"bengali\"}}}", TROVE_EUNSUPPORTED,
                     "analyzer [a] needs the stop word list [bn/stopwords.txt], which this build "
                     "lacks: set [stopwords]");
    check_reg("{\"analyzer\":{\"a\":{\"type\":\"bengali\",\"stopwords\":[\"এবং\"]}}}",
              "বাংলাদেশের এবং মানুষেরা",
              (exp_tok[]){{"বাংলাদেস", A, 0, -1, -1}, {"মানুস", A, 2, -1, -1}, END});
}

static void test_greek_czech_misc(void **state) {
    (void)state;
    check(B("greek"), "Οι Έλληνες ποδηλάτες καθεστώτος",
          (exp_tok[]){{"ελλην", A, 1, 3, 10}, {"ποδηλατ", A, 2, 11, 20}, {"καθεστ", A, 3, 21, 31}, END});
    check_reg("{\"filter\":{\"g\":{\"type\":\"lowercase\",\"language\":\"greek\"}},"
              "\"analyzer\":{\"a\":{\"tokenizer\":\"standard\",\"filter\":[\"g\"]}}}",
              "ΆΛΦΑ Ωραίος", (exp_tok[]){{"αλφα", A, 0, 0, 4}, {"ωραιοσ", A, 1, 5, 11}, END});
    check(B("czech"), "Pražské hradní stráže",
          (exp_tok[]){{"pražsk", A, 0, 0, 7}, {"hradn", A, 1, 8, 14}, {"stráh", A, 2, 15, 21}, END});
    tv_analyzer *an = comp(NULL, "standard", (const char *[]){"lowercase", "czech_stem"}, 2);
    check(an, "Hradní", (exp_tok[]){{"hradn", A, 0, 0, 6}, END});
    tv_analyzer_free(an);
    check(B("armenian"), "Հայաստանի մայրաքաղաքը Երևանն է",
          (exp_tok[]){{"հայաստ", A, 0, 0, 9}, {"մայրաքաղ", A, 1, 10, 21}, {"երև", A, 2, 22, 28}, END});
    check(B("indonesian"), "Pembangunan jalan sedang dikerjakan oleh mereka",
          (exp_tok[]){{"bangun", A, 0, 0, 11}, {"jalan", A, 1, 12, 17}, {"kerja", A, 3, 25, 35}, END});
}

/* thai answers 400: ICU's Thai dictionary is not the JDK's that OpenSearch
 * segments with (tok_thai.c is not listed in the catalog) */
static void test_thai(void **state) {
    (void)state;
    assert_null(B("thai"));
    assert_true(tv_analyzer_unsupported("thai", 4));
    tv_error err = TV_ERROR_INIT;
    assert_null(tv_analyzer_compose(NULL, NULL, 0, "thai", NULL, 0, NULL, 0, &err));
    assert_int_equal(err.code, TROVE_EUNSUPPORTED);
}

static void test_named_sets_and_errors(void **state) {
    (void)state;
    /* the languages' named stop sets work in a stop filter */
    check_reg("{\"filter\":{\"s\":{\"type\":\"stop\",\"stopwords\":\"_russian_\"}},"
              "\"analyzer\":{\"a\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"s\"]}}}",
              "Он и она", (exp_tok[]){END});
    check_reg("{\"filter\":{\"s\":{\"type\":\"stop\",\"stopwords\":[\"_greek_\",\"x\"]}},"
              "\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"filter\":[\"s\"]}}}",
              "και x y", (exp_tok[]){{"y", "word", 2, 6, 7}, END});
    if (!B("bengali"))
        expect_error("{\"analyzer\":{\"a\":{\"type\":\"arabic\",\"stopwords\":\"_bengali_\"}}}",
                     TROVE_EUNSUPPORTED, "stop words [_bengali_] are not supported");
    expect_error("{\"analyzer\":{\"a\":{\"type\":\"hindi\",\"stopwords_path\":\"x.txt\"}}}",
                 TROVE_EUNSUPPORTED, "[stopwords_path] is not supported for [a]");
    expect_error("{\"filter\":{\"b\":{\"type\":\"cjk_bigram\",\"output_unigrams\":\"yes\"}}}",
                 TROVE_EARG, "Failed to parse value [yes] as only [true] or [false] are allowed.");
    expect_error("{\"analyzer\":{\"a\":{\"type\":\"czech\",\"stopwords_case\":\"maybe\"}}}",
                 TROVE_EARG, "Failed to parse value [maybe] as only [true] or [false] are allowed.");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cjk),           cmocka_unit_test(test_russian_bulgarian),
        cmocka_unit_test(test_arabic_persian_sorani), cmocka_unit_test(test_indic),
        cmocka_unit_test(test_greek_czech_misc), cmocka_unit_test(test_thai),
        cmocka_unit_test(test_named_sets_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
