/* test_text_analyzers.c — tokenizers, filters and analyzers against what
 * Lucene/OpenSearch produce (terms, types, positions, offsets), the
 * analysis-settings registry and its errors, and out-of-memory paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "text_test.h"

#define A "<ALPHANUM>"
#define NUM "<NUM>"

static void test_standard_basic(void **state) {
    (void)state;
    const tv_analyzer *std = B("standard");
    check(std, "", (exp_tok[]){END});
    check(std, ".", (exp_tok[]){END});
    check(std, " ", (exp_tok[]){END});
    check(std, "The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.",
          (exp_tok[]){{"the", A, 0, 0, 3}, {"2", NUM, 1, 4, 5}, {"quick", A, 2, 6, 11},
                      {"brown", A, 3, 12, 17}, {"foxes", A, 4, 18, 23}, {"jumped", A, 5, 24, 30},
                      {"over", A, 6, 31, 35}, {"the", A, 7, 36, 39}, {"lazy", A, 8, 40, 44},
                      {"dog's", A, 9, 45, 50}, {"bone", A, 10, 51, 55}, END});
    check(std, "David has 5000 bones",
          (exp_tok[]){{"david", A, 0, 0, 5}, {"has", A, 1, 6, 9}, {"5000", NUM, 2, 10, 14},
                      {"bones", A, 3, 15, 20}, END});
    check(std, "B2B 2B", (exp_tok[]){{"b2b", A, 0, 0, 3}, {"2b", A, 1, 4, 6}, END});
    check(std, "some-dashed-phrase dogs,chase,cats ac/dc",
          (exp_tok[]){{"some", A, 0, -1, -1}, {"dashed", A, 1, -1, -1}, {"phrase", A, 2, -1, -1},
                      {"dogs", A, 3, -1, -1}, {"chase", A, 4, -1, -1}, {"cats", A, 5, -1, -1},
                      {"ac", A, 6, -1, -1}, {"dc", A, 7, -1, -1}, END});
    check(std, "O'Reilly you're she's Jim's don't O'Reilly's",
          (exp_tok[]){{"o'reilly", A, 0, -1, -1}, {"you're", A, 1, -1, -1}, {"she's", A, 2, -1, -1},
                      {"jim's", A, 3, -1, -1}, {"don't", A, 4, -1, -1}, {"o'reilly's", A, 5, -1, -1}, END});
    check(std, "21.35 R2D2 C3PO 216.239.63.104 1,000,000 1_000",
          (exp_tok[]){{"21.35", NUM, 0, -1, -1}, {"r2d2", A, 1, -1, -1}, {"c3po", A, 2, -1, -1},
                      {"216.239.63.104", NUM, 3, -1, -1}, {"1,000,000", NUM, 4, -1, -1},
                      {"1_000", NUM, 5, -1, -1}, END});
    check(std, "\"QUOTED\" word foo.bar e.g. end. _x x_ ___",
          (exp_tok[]){{"quoted", A, 0, 1, 7}, {"word", A, 1, -1, -1}, {"foo.bar", A, 2, -1, -1},
                      {"e.g", A, 3, -1, -1}, {"end", A, 4, -1, -1}, {"_x", A, 5, -1, -1},
                      {"x_", A, 6, -1, -1}, END});
    check(std, "a:b 3:4 1.a a.1 wi-fi",
          (exp_tok[]){{"a:b", A, 0, -1, -1}, {"3", NUM, 1, -1, -1}, {"4", NUM, 2, -1, -1},
                      {"1", NUM, 3, -1, -1}, {"a", A, 4, -1, -1}, {"a", A, 5, -1, -1},
                      {"1", NUM, 6, -1, -1}, {"wi", A, 7, -1, -1}, {"fi", A, 8, -1, -1}, END});
}

static void test_standard_unicode(void **state) {
    (void)state;
    const tv_analyzer *std = B("standard");
    /* Chinese and full-width forms */
    check(std, "我是中国人。 １２３４ Ｔｅｓｔｓ ",
          (exp_tok[]){{"我", "<IDEOGRAPHIC>", 0, 0, 1}, {"是", "<IDEOGRAPHIC>", 1, 1, 2},
                      {"中", "<IDEOGRAPHIC>", 2, 2, 3}, {"国", "<IDEOGRAPHIC>", 3, 3, 4},
                      {"人", "<IDEOGRAPHIC>", 4, 4, 5}, {"１２３４", NUM, 5, 7, 11},
                      {"ｔｅｓｔｓ", A, 6, 12, 17}, END});
    check(std, "안녕하세요 한글입니다",
          (exp_tok[]){{"안녕하세요", "<HANGUL>", 0, 0, 5}, {"한글입니다", "<HANGUL>", 1, 6, 11}, END});
    check(std, "仮名遣い カタカナ",
          (exp_tok[]){{"仮", "<IDEOGRAPHIC>", 0, -1, -1}, {"名", "<IDEOGRAPHIC>", 1, -1, -1},
                      {"遣", "<IDEOGRAPHIC>", 2, -1, -1}, {"い", "<HIRAGANA>", 3, -1, -1},
                      {"カタカナ", "<KATAKANA>", 4, 5, 9}, END});
    /* supplementary ideographs: offsets in UTF-16 units */
    check(std, "𩬅艱鍟䇹愯瀛",
          (exp_tok[]){{"𩬅", "<IDEOGRAPHIC>", 0, 0, 2}, {"艱", "<IDEOGRAPHIC>", 1, 2, 3},
                      {"鍟", "<IDEOGRAPHIC>", 2, 3, 4}, {"䇹", "<IDEOGRAPHIC>", 3, 4, 5},
                      {"愯", "<IDEOGRAPHIC>", 4, 5, 6}, {"瀛", "<IDEOGRAPHIC>", 5, 6, 7}, END});
    /* combining marks stay with their base */
    check(std, "moͤchte ざ ザ 壹゙ सुख",
          (exp_tok[]){{"moͤchte", A, 0, -1, -1}, {"ざ", "<HIRAGANA>", 1, -1, -1},
                      {"ザ", "<KATAKANA>", 2, -1, -1}, {"壹゙", "<IDEOGRAPHIC>", 3, -1, -1},
                      {"सुख", A, 4, -1, -1}, END});
    /* Thai: one South-East Asian run */
    check(std, "ภาษาไทย abc",
          (exp_tok[]){{"ภาษาไทย", "<SOUTHEAST_ASIAN>", 0, 0, 7}, {"abc", A, 1, 8, 11}, END});
    /* Armenian and Greek lower-casing */
    check(std, "Վիքիպեդիայի 13 ΚΑΛΗΜΈΡΑ",
          (exp_tok[]){{"վիքիպեդիայի", A, 0, -1, -1}, {"13", NUM, 1, -1, -1},
                      {"καλημέρα", A, 2, -1, -1}, END});
    /* Hebrew quotes (WB7a-c) */
    check(std, "צה\"ל דוד'",
          (exp_tok[]){{"צה\"ל", A, 0, -1, -1}, {"דוד'", A, 1, -1, -1}, END});
    /* invalid UTF-8 never crashes, decodes as U+FFFD and is skipped */
    check(std, "ab\xff" "cd", (exp_tok[]){{"ab", A, 0, 0, 2}, {"cd", A, 1, 3, 5}, END});
}

static void test_standard_emoji(void **state) {
    (void)state;
    const tv_analyzer *std = B("standard");
    const char *E = "<EMOJI>";
    check(std, "💩 💩💩", (exp_tok[]){{"💩", E, 0, 0, 2}, {"💩", E, 1, 3, 5}, {"💩", E, 2, 5, 7}, END});
    check(std, "poo💩poo", (exp_tok[]){{"poo", A, 0, -1, -1}, {"💩", E, 1, -1, -1}, {"poo", A, 2, -1, -1}, END});
    check(std, "💩中國💩",
          (exp_tok[]){{"💩", E, 0, -1, -1}, {"中", "<IDEOGRAPHIC>", 1, -1, -1},
                      {"國", "<IDEOGRAPHIC>", 2, -1, -1}, {"💩", E, 3, -1, -1}, END});
    check(std, "👩‍❤️‍👩", (exp_tok[]){{"👩‍❤️‍👩", E, 0, 0, 8}, END});
    check(std, "👨🏼‍⚕️", (exp_tok[]){{"👨🏼‍⚕️", E, 0, -1, -1}, END});
    check(std, "🇺🇸🇺🇸", (exp_tok[]){{"🇺🇸", E, 0, 0, 4}, {"🇺🇸", E, 1, 4, 8}, END});
    check(std, "#️⃣ 3️⃣ 3⃣", (exp_tok[]){{"#️⃣", E, 0, -1, -1}, {"3️⃣", E, 1, -1, -1}, {"3⃣", E, 2, -1, -1}, END});
    check(std, "🏴󠁧󠁢󠁥󠁮󠁧󠁿", (exp_tok[]){{"🏴󠁧󠁢󠁥󠁮󠁧󠁿", E, 0, -1, -1}, END});
    /* © is Extended_Pictographic, so an emoji token; a lone "#" is not */
    check(std, "✔️ © # 3", (exp_tok[]){{"✔️", E, 0, -1, -1}, {"©", E, 1, -1, -1}, {"3", NUM, 2, -1, -1}, END});
}

static void test_standard_max_length(void **state) {
    (void)state;
    const tv_analyzer *std = B("standard");
    char b255[256], input[1024];
    memset(b255, 'b', 255);
    b255[255] = 0;
    snprintf(input, sizeof input, "x %s %sb", b255, b255);
    check(std, input, (exp_tok[]){{"x", A, 0, 0, 1}, {b255, A, 1, 2, 257}, {b255, A, 2, 258, 513},
                                  {"b", A, 3, 513, 514}, END});
    /* whitespace tokenizer splits the same way */
    check(B("whitespace"), input, (exp_tok[]){{"x", "word", 0, -1, -1}, {b255, "word", 1, -1, -1},
                                              {b255, "word", 2, -1, -1}, {"b", "word", 3, -1, -1}, END});
}

static void test_other_builtins(void **state) {
    (void)state;
    const char *text = "The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.";
    check(B("whitespace"), text,
          (exp_tok[]){{"The", "word", 0, 0, 3}, {"2", "word", 1, 4, 5}, {"QUICK", "word", 2, -1, -1},
                      {"Brown-Foxes", "word", 3, -1, -1}, {"jumped", "word", 4, -1, -1},
                      {"over", "word", 5, -1, -1}, {"the", "word", 6, -1, -1}, {"lazy", "word", 7, -1, -1},
                      {"dog's", "word", 8, -1, -1}, {"bone.", "word", 9, 51, 56}, END});
    check(B("simple"), text,
          (exp_tok[]){{"the", "word", 0, -1, -1}, {"quick", "word", 1, -1, -1}, {"brown", "word", 2, -1, -1},
                      {"foxes", "word", 3, -1, -1}, {"jumped", "word", 4, -1, -1}, {"over", "word", 5, -1, -1},
                      {"the", "word", 6, -1, -1}, {"lazy", "word", 7, -1, -1}, {"dog", "word", 8, 45, 48},
                      {"s", "word", 9, 49, 50}, {"bone", "word", 10, -1, -1}, END});
    check(B("stop"), text,
          (exp_tok[]){{"quick", "word", 1, -1, -1}, {"brown", "word", 2, -1, -1}, {"foxes", "word", 3, -1, -1},
                      {"jumped", "word", 4, -1, -1}, {"over", "word", 5, -1, -1}, {"lazy", "word", 7, -1, -1},
                      {"dog", "word", 8, -1, -1}, {"s", "word", 9, -1, -1}, {"bone", "word", 10, -1, -1}, END});
    check(B("keyword"), text, (exp_tok[]){{text, "word", 0, 0, 56}, END});
    check(B("keyword"), "", (exp_tok[]){{"", "word", 0, 0, 0}, END});
    check(B("english"), text,
          (exp_tok[]){{"2", NUM, 1, -1, -1}, {"quick", A, 2, -1, -1}, {"brown", A, 3, -1, -1},
                      {"fox", A, 4, -1, -1}, {"jump", A, 5, -1, -1}, {"over", A, 6, -1, -1},
                      {"lazi", A, 8, -1, -1}, {"dog", A, 9, 45, 50}, {"bone", A, 10, -1, -1}, END});
    /* whitespace: Java's isWhitespace (no-break space is not white space) */
    check(B("whitespace"), "a\xC2\xA0" "b\xE2\x80\x83" "c",
          (exp_tok[]){{"a\xC2\xA0" "b", "word", 0, 0, 3}, {"c", "word", 1, 4, 5}, END});
    assert_null(B("nope"));
    assert_string_equal(tv_analyzer_name(B("standard")), "standard");
}

static void test_positions_and_end(void **state) {
    (void)state;
    tv_arena a;
    tv_arena_init(&a);
    tv_tokens t;
    assert_int_equal(tv_analyze(B("stop"), &a, "fox the", 7, 0, &t), TROVE_OK);
    assert_int_equal(t.len, 1);
    assert_int_equal(t.end_position, 2); /* trailing stop word leaves a gap */
    assert_int_equal(tv_analyze(B("standard"), &a, "a b", 3, 102, &t), TROVE_OK);
    assert_int_equal(t.items[0].position, 102);
    assert_int_equal(t.items[1].position, 103);
    assert_int_equal(t.end_position, 104);
    assert_int_equal(tv_analyze(B("standard"), &a, "", 0, 7, &t), TROVE_OK);
    assert_int_equal(t.len, 0);
    assert_int_equal(t.end_position, 7);
    /* terms are NUL-terminated copies in the arena */
    char buf[] = "Hello World";
    assert_int_equal(tv_analyze(B("whitespace"), &a, buf, strlen(buf), 0, &t), TROVE_OK);
    memset(buf, 'x', strlen(buf));
    assert_string_equal(t.items[0].term, "Hello");
    assert_string_equal(t.items[1].term, "World");
    tv_arena_fini(&a);
}

static void test_compose_filters(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = tv_analyzer_compose(NULL, NULL, 0, "standard", (const char *[]){"asciifolding"}, 1, NULL, 0, &err);
    assert_non_null(an);
    check(an, "açaí à la carte Ærøskøbing ﬁsh ①",
          (exp_tok[]){{"acai", A, 0, -1, -1}, {"a", A, 1, -1, -1}, {"la", A, 2, -1, -1},
                      {"carte", A, 3, -1, -1}, {"AEroskobing", A, 4, -1, -1}, {"fish", A, 5, -1, -1}, END});
    tv_analyzer_free(an);
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, NULL, 0, "whitespace", (const char *[]){"uppercase", "porter_stem"}, 2, NULL, 0, &err);
    assert_non_null(an);
    tv_analyzer_free(an);
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, NULL, 0, "whitespace", (const char *[]){"lowercase", "porter_stem"}, 2, NULL, 0, &err);
    check(an, "Running ponies caresses relational",
          (exp_tok[]){{"run", "word", 0, -1, -1}, {"poni", "word", 1, -1, -1}, {"caress", "word", 2, -1, -1},
                      {"relat", "word", 3, -1, -1}, END});
    tv_analyzer_free(an);
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, NULL, 0, "keyword", (const char *[]){"trim", "lowercase"}, 2, NULL, 0, &err);
    check(an, "  Fox \t", (exp_tok[]){{"fox", "word", 0, 0, 7}, END});
    tv_analyzer_free(an);
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, NULL, 0, "letter", NULL, 0, NULL, 0, &err);
    check(an, "Hello,World", (exp_tok[]){{"Hello", "word", 0, 0, 5}, {"World", "word", 1, 6, 11}, END});
    tv_analyzer_free(an);
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, NULL, 0, "lowercase", NULL, 0, NULL, 0, &err);
    check(an, "İSTANBUL ΣΑΣ", (exp_tok[]){{"istanbul", "word", 0, -1, -1}, {"σασ", "word", 1, -1, -1}, END});
    tv_analyzer_free(an);
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, NULL, 0, "standard", (const char *[]){"snowball"}, 1, NULL, 0, &err);
    assert_non_null(an);
    check(an, "generously running", (exp_tok[]){{"generous", A, 0, -1, -1}, {"run", A, 1, -1, -1}, END});
    tv_analyzer_free(an);
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, NULL, 0, "standard", (const char *[]){"porter_stem"}, 1, NULL, 0, &err);
    check(an, "generously", (exp_tok[]){{"gener", A, 0, -1, -1}, END});
    tv_analyzer_free(an);
    /* filters without a tokenizer run as a normalizer over the whole text:
     * the keyword tokenizer, and only normalizing filters */
    tv_error_clear(&err);
    an = tv_analyzer_compose(NULL, NULL, 0, NULL, (const char *[]){"lowercase"}, 1, NULL, 0, &err);
    check(an, "Foo BAR", (exp_tok[]){{"foo bar", "word", 0, 0, 7}, END});
    tv_analyzer_free(an);
    tv_error_clear(&err);
    assert_null(tv_analyzer_compose(NULL, NULL, 0, NULL, (const char *[]){"snowball"}, 1, NULL, 0, &err));
    assert_string_equal(err.reason, "Custom normalizer may not use filter [snowball]");
    /* errors */
    tv_error_clear(&err);
    assert_null(tv_analyzer_compose(NULL, NULL, 0, "nope", NULL, 0, NULL, 0, &err));
    assert_int_equal(err.code, TROVE_EARG);
    assert_string_equal(err.reason, "failed to find global tokenizer under [nope]");
    tv_error_clear(&err);
    assert_null(tv_analyzer_compose(NULL, NULL, 0, NULL, (const char *[]){"nope"}, 1, NULL, 0, &err));
    assert_string_equal(err.reason, "failed to find global filter under [nope]");
    tv_error_clear(&err);
    assert_null(tv_analyzer_compose(NULL, NULL, 0, "thai", NULL, 0, NULL, 0, &err));
    assert_int_equal(err.code, TROVE_EUNSUPPORTED);
    tv_error_clear(&err);
    assert_null(tv_analyzer_compose(NULL, NULL, 0, NULL, (const char *[]){"nori_part_of_speech"}, 1, NULL, 0, &err));
    assert_int_equal(err.code, TROVE_EUNSUPPORTED);
    tv_analyzer_free(NULL);
    tv_analyzer_free((tv_analyzer *)B("standard")); /* no-op */
}

static void test_registry(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"analyzer\":{\"my\":{\"type\":\"custom\",\"tokenizer\":\"standard\","
                         "\"filter\":[\"lowercase\",\"my_stop\",\"fold\",\"len\"]},"
                         "\"std_stop\":{\"type\":\"standard\",\"stopwords\":\"_english_\"},"
                         "\"st\":{\"type\":\"stop\",\"stopwords\":[\"foo\",\"Bar\"]},"
                         "\"ws\":{\"tokenizer\":\"my_ws\"}},"
                         "\"filter\":{\"my_stop\":{\"type\":\"stop\",\"stopwords\":[\"foo\"],\"ignore_case\":true},"
                         "\"fold\":{\"type\":\"asciifolding\",\"preserve_original\":\"true\"},"
                         "\"len\":{\"type\":\"length\",\"min\":2,\"max\":\"6\"}},"
                         "\"tokenizer\":{\"my_ws\":{\"type\":\"whitespace\",\"max_token_length\":3}}}",
                         &err);
    assert_non_null(r);
    const tv_analyzer *my = tv_analysis_get(r, "my", 2);
    check(my, "FOO café x elephants bar",
          (exp_tok[]){{"cafe", A, 1, -1, -1}, {"café", A, 1, -1, -1}, {"bar", A, 4, -1, -1}, END});
    check(tv_analysis_get(r, "std_stop", 8), "The fox is here",
          (exp_tok[]){{"fox", A, 1, -1, -1}, {"here", A, 3, -1, -1}, END});
    /* the stop analyzer lower-cases before the (case-sensitive) set: "Bar" never matches */
    check(tv_analysis_get(r, "st", 2), "foo the Bar bar",
          (exp_tok[]){{"the", "word", 1, -1, -1}, {"bar", "word", 2, -1, -1}, {"bar", "word", 3, -1, -1}, END});
    check(tv_analysis_get(r, "ws", 2), "abcdef gh",
          (exp_tok[]){{"abc", "word", 0, 0, 3}, {"def", "word", 1, 3, 6}, {"gh", "word", 2, -1, -1}, END});
    assert_ptr_equal(tv_analysis_get(r, "standard", 8), B("standard"));
    assert_null(tv_analysis_get(r, "nope", 4));
    tv_error_clear(&err);
    tv_analyzer *c = tv_analyzer_compose(r, NULL, 0, "my_ws", (const char *[]){"my_stop"}, 1, NULL, 0, &err);
    assert_non_null(c);
    check(c, "Foo ab", (exp_tok[]){{"ab", "word", 1, -1, -1}, END});
    tv_analyzer_free(c);
    tv_error_clear(&err);
    assert_null(tv_analyzer_compose(r, NULL, 0, "nope", NULL, 0, NULL, 0, &err));
    assert_string_equal(err.reason, "failed to find tokenizer under [nope]");
    tv_analysis_free(r);

    /* flat, dotted keys mean the same */
    tv_error_clear(&err);
    r = reg("{\"analyzer.x.tokenizer\":\"keyword\",\"analyzer.x.filter\":\"lowercase\"}", &err);
    assert_non_null(r);
    check(tv_analysis_get(r, "x", 1), "AB C", (exp_tok[]){{"ab c", "word", 0, -1, -1}, END});
    tv_analysis_free(r);
    tv_error_clear(&err);
    r = tv_analysis_new(NULL, 0, &err);
    assert_non_null(r);
    tv_analysis_free(r);
    tv_analysis_free(NULL);
}

static void test_registry_errors(void **state) {
    (void)state;
    expect_error("{\"analyzer\":{\"a\":{\"type\":\"foo\"}}}", TROVE_EARG, "Unknown analyzer type [foo] for [a]");
    expect_error("{\"analyzer\":{\"a\":{\"filter\":[\"lowercase\"]}}}", TROVE_EARG,
                 "analyzer [a] must specify either an analyzer type, or a tokenizer");
    expect_error("{\"analyzer\":{\"a\":{\"tokenizer\":\"nope\"}}}", TROVE_EARG,
                 "Custom Analyzer [a] failed to find tokenizer under name [nope]");
    expect_error("{\"analyzer\":{\"a\":{\"tokenizer\":\"standard\",\"filter\":[\"nope\"]}}}", TROVE_EARG,
                 "Custom Analyzer [a] failed to find filter under name [nope]");
    expect_error("{\"filter\":{\"f\":{\"type\":\"nope\"}}}", TROVE_EARG, "Unknown filter type [nope] for [f]");
    expect_error("{\"tokenizer\":{\"t\":{\"type\":\"nope\"}}}", TROVE_EARG, "Unknown tokenizer type [nope] for [t]");
    expect_error("{\"filter\":{\"f\":{\"type\":\"nori_part_of_speech\"}}}", TROVE_EUNSUPPORTED,
                 "filter type [nori_part_of_speech] is not supported");
    expect_error("{\"tokenizer\":{\"t\":{\"type\":\"thai\"}}}", TROVE_EUNSUPPORTED, "tokenizer type [thai] is not supported");
    expect_error("{\"filter\":{\"f\":{\"type\":\"stemmer\",\"language\":\"light_klingon\"}}}", TROVE_EUNSUPPORTED,
                 "stemmer language [light_klingon] is not supported");
    expect_error("{\"tokenizer\":{\"t\":{\"type\":\"standard\",\"max_token_length\":\"x\"}}}", TROVE_EARG,
                 "Failed to parse value [x] for setting [max_token_length]");
    expect_error("{\"analyzer\":", TROVE_EARG, "failed to parse analysis settings");
}

static void test_oom(void **state) {
    (void)state;
    const char *json = "{\"analyzer\":{\"my\":{\"type\":\"custom\",\"tokenizer\":\"standard\","
                       "\"filter\":[\"lowercase\",\"s\"]}},\"filter\":{\"s\":{\"type\":\"stop\",\"stopwords\":[\"a\",\"b\"]}}}";
    bool ok = false;
    for (long n = 0; n < 200 && !ok; n++) {
        tv_error err = TV_ERROR_INIT;
        tv_alloc_fail_after(n);
        tv_error_clear(&err);
        tv_analysis *r = tv_analysis_new(json, strlen(json), &err);
        tv_alloc_fail_after(-1);
        if (r) {
            ok = true;
            tv_analysis_free(r);
        } else {
            assert_int_equal(err.code, TROVE_ENOMEM);
        }
    }
    assert_true(ok);
    const char *text = "Some Text with enough tokens to grow the array: a b c d e f g h i j k l m n o p q r s t u v w x y z Ünïcödé";
    ok = false;
    for (long n = 0; n < 200 && !ok; n++) {
        tv_arena a;
        tv_arena_init(&a);
        tv_tokens t;
        tv_alloc_fail_after(n);
        tv_status st = tv_analyze(B("english"), &a, text, strlen(text), 0, &t);
        tv_alloc_fail_after(-1);
        if (st == TROVE_OK) ok = true;
        else assert_int_equal(st, TROVE_ENOMEM);
        tv_arena_fini(&a);
    }
    assert_true(ok);
}

/* The mapping char filter: longest match wins, offsets of shrunk and grown
 * replacements map back onto the input (BaseCharFilter), rule errors. */
static void test_mapping_char_filter(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"char_filter\":{\"m\":{\"type\":\"mapping\",\"mappings\":"
                         "[\"ph => f\",\"p => P\",\"\\u00fc => ue\",\"& => and\",\"\\\\u0041 => a\","
                         "\"x => y => z\"]}},"
                         "\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"char_filter\":[\"m\"]}}}",
                         &err);
    assert_non_null(r);
    /* "phone" -> "fone": the token covers all of "phone"; "über" -> "ueber"
     * keeps its 4 input chars; "A" came through \u0041; the last "=>"
     * splits "x => y => z", so "x => y" becomes "z" */
    check(tv_analysis_get(r, "a", 1), "phone pup \xc3\xbc" "ber & A x => y",
          (exp_tok[]){{"fone", "word", 0, 0, 5}, {"PuP", "word", 1, 6, 9},
                      {"ueber", "word", 2, 10, 14}, {"and", "word", 3, 15, 16},
                      {"a", "word", 4, 17, 18}, {"z", "word", 5, 19, 25}, END});
    tv_analysis_free(r);
    const char *bad[][2] = {
        {"[\"a\"]", "Line [1]: Invalid mapping rule : [a]"},
        {"[\"a => b\",\"a:b\"]", "Line [2]: Invalid mapping rule : [a:b]"},
        {"[\"a\\\\ => b\"]", "Line [1]: Invalid escaped char in [a\\]"},
        {"[\" => b\"]", "cannot match the empty string"},
        {"[\"a => b\",\"a => c\"]", "match \"a\" was already added"},
    };
    for (size_t i = 0; i < TV_ARRAY_LEN(bad); i++) {
        char json[256];
        snprintf(json, sizeof json, "{\"char_filter\":{\"m\":{\"type\":\"mapping\",\"mappings\":%s}}}",
                 bad[i][0]);
        tv_error_clear(&err);
        assert_null(reg(json, &err));
        assert_string_equal(err.reason, bad[i][1]);
    }
    tv_error_clear(&err);
    assert_null(reg("{\"char_filter\":{\"m\":{\"type\":\"mapping\"}}}", &err));
    assert_string_equal(err.reason,
                        "mapping requires either `mappings` or `mappings_path` to be configured");
}

/* Inline components for _analyze, the reverse filter, named word sets
 * inside stop word lists, and names OpenSearch has that trove lacks. */
static void test_compose_inline(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    const char *inl = "{\"filter\":{\"s\":{\"type\":\"stop\",\"stopwords\":[\"_english_\",\"fox\"]}},"
                      "\"char_filter\":{\"c\":{\"type\":\"mapping\",\"mappings\":[\"0 => zero\"]}}}";
    tv_analyzer *an = tv_analyzer_compose(NULL, inl, strlen(inl), "whitespace",
                                          (const char *[]){"s", "reverse"}, 2,
                                          (const char *[]){"c"}, 1, &err);
    assert_non_null(an);
    check(an, "the fox ate 0 \xf0\x9f\x98\x80" "b",
          (exp_tok[]){{"eta", "word", 2, 8, 11}, {"orez", "word", 3, 12, 13},
                      {"b\xf0\x9f\x98\x80", "word", 4, 14, 17}, END});
    tv_analyzer_free(an);
    tv_error_clear(&err);
    /* a char filter by bare name */
    an = tv_analyzer_compose(NULL, NULL, 0, "whitespace", NULL, 0, (const char *[]){"html_strip"}, 1, &err);
    assert_non_null(an);
    check(an, "<p>a&amp;b</p>", (exp_tok[]){{"a&b", "word", 0, 3, 10}, END});
    tv_analyzer_free(an);
    tv_error_clear(&err);
    assert_null(tv_analyzer_compose(NULL, NULL, 0, "whitespace", NULL, 0,
                                    (const char *[]){"nope"}, 1, &err));
    assert_string_equal(err.reason, "failed to find global char_filter under [nope]");
}

/* Invalid UTF-8 through case mapping: each invalid byte becomes U+FFFD
 * (three bytes), so a term can triple; the fuzzer found the buffer sized
 * for a case mapping's growth only. */
static void test_invalid_utf8_case(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = tv_analyzer_compose(NULL, NULL, 0, "keyword", (const char *[]){"lowercase"}, 1,
                                          NULL, 0, &err);
    assert_non_null(an);
    char in[601], want[1800 + 2];
    memset(in, 0xE8, 600);
    in[600] = 0;
    size_t w = 0;
    for (int i = 0; i < 600; i++) {
        memcpy(want + w, "\xef\xbf\xbd", 3);
        w += 3;
    }
    want[w] = 0;
    tv_arena a;
    tv_arena_init(&a);
    tv_tokens toks;
    assert_int_equal(tv_analyze(an, &a, in, 600, 0, &toks), TROVE_OK);
    /* what the arena hands out next must not overlap the term */
    char *after = tv_arena_alloc(&a, 4096);
    assert_non_null(after);
    memset(after, 'x', 4096);
    assert_int_equal(toks.len, 1);
    assert_int_equal(toks.items[0].term_len, 1800);
    assert_memory_equal(toks.items[0].term, want, 1800);
    tv_arena_fini(&a);
    tv_analyzer_free(an);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standard_basic),    cmocka_unit_test(test_standard_unicode),
        cmocka_unit_test(test_standard_emoji),    cmocka_unit_test(test_standard_max_length),
        cmocka_unit_test(test_other_builtins),    cmocka_unit_test(test_positions_and_end),
        cmocka_unit_test(test_compose_filters),   cmocka_unit_test(test_registry),
        cmocka_unit_test(test_registry_errors),   cmocka_unit_test(test_oom),
        cmocka_unit_test(test_mapping_char_filter), cmocka_unit_test(test_compose_inline),
        cmocka_unit_test(test_invalid_utf8_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
