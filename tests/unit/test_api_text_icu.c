/*
 * test_api_text_icu.c — the analysis-icu plugin through the REST API,
 * mirroring its YAML suite (plugins/analysis-icu/src/yamlRestTest/.../
 * analysis_icu/10_basic.yml: Tokenizer, Normalization filter and
 * charfilter, Folding filter, unicode_set_filter and the deprecated
 * unicodeSetFilter on index-defined components), plus the icu_analyzer by
 * bare name and the unsupported rule_files setting.
 */
#include "api_test.h"

#define AN(body) "{\"tokens\":[" body "]}"
#define TOK(t, s, e, ty, p) "{\"token\":\"" t "\",\"start_offset\":" #s ",\"end_offset\":" #e ",\"type\":\"" ty "\",\"position\":" #p "}"

static void t_basic(void **s) {
    (void)s;
    EXPECT("POST", "/_analyze", "{\"text\":\"Foo Bar\",\"tokenizer\":\"icu_tokenizer\"}", 200,
           AN(TOK("Foo", 0, 3, "<ALPHANUM>", 0) "," TOK("Bar", 4, 7, "<ALPHANUM>", 1)));
    EXPECT("POST", "/_analyze",
           "{\"filter\":[\"icu_normalizer\"],\"text\":\"Foo Bar Ru\xc3\x9f\",\"tokenizer\":\"standard\"}", 200,
           AN(TOK("foo", 0, 3, "<ALPHANUM>", 0) "," TOK("bar", 4, 7, "<ALPHANUM>", 1) ","
              TOK("russ", 8, 11, "<ALPHANUM>", 2)));
    EXPECT("POST", "/_analyze",
           "{\"char_filter\":[\"icu_normalizer\"],\"text\":\"Foo Bar Ru\xc3\x9f\",\"tokenizer\":\"standard\"}", 200,
           AN(TOK("foo", 0, 3, "<ALPHANUM>", 0) "," TOK("bar", 4, 7, "<ALPHANUM>", 1) ","
              TOK("russ", 8, 11, "<ALPHANUM>", 2)));
#ifdef TROVE_HAVE_UTR30
    EXPECT("POST", "/_analyze",
           "{\"filter\":[\"icu_folding\"],\"text\":\"Foo Bar r\xc3\xa9sum\xc3\xa9\",\"tokenizer\":\"standard\"}", 200,
           AN(TOK("foo", 0, 3, "<ALPHANUM>", 0) "," TOK("bar", 4, 7, "<ALPHANUM>", 1) ","
              TOK("resume", 8, 14, "<ALPHANUM>", 2)));
    /* the icu_analyzer by bare name: normalizer, icu_tokenizer, folding */
    EXPECT("POST", "/_analyze", "{\"analyzer\":\"icu_analyzer\",\"text\":\"\xef\xac\x81ne R\xc3\xa9sum\xc3\xa9\"}", 200,
           AN(TOK("fine", 0, 3, "<ALPHANUM>", 0) "," TOK("resume", 4, 10, "<ALPHANUM>", 1)));
#endif
}

static void t_set_filter(void **s) {
    (void)s;
    /* unicode_set_filter, and the deprecated unicodeSetFilter */
    for (int dep = 0; dep < 2; dep++) {
        char body[1024];
        const char *key = dep ? "unicodeSetFilter" : "unicode_set_filter";
        snprintf(body, sizeof body,
                 "{\"settings\":{\"index\":{\"analysis\":{\"char_filter\":{\"charfilter_icu_normalizer\":{"
                 "\"type\":\"icu_normalizer\",\"%s\":\"[^\xc3\x9f]\"}},\"filter\":{\"tokenfilter_icu_normalizer\":{"
                 "\"type\":\"icu_normalizer\",\"%s\":\"[^\xc3\x9f" "B]\"},\"tokenfilter_icu_folding\":{"
                 "\"type\":\"%s\",\"%s\":\"[^\xc3\xa2]\"}}}}}}",
                 key, key,
#ifdef TROVE_HAVE_UTR30
                 "icu_folding",
#else
                 "icu_normalizer",
#endif
                 key);
        EXPECT_STATUS("PUT", "/test", body, 200);
        EXPECT("POST", "/test/_analyze",
               "{\"char_filter\":[\"charfilter_icu_normalizer\"],\"tokenizer\":\"standard\","
               "\"text\":\"charfilter F\xc3\xb6o B\xc3\xa2r Ru\xc3\x9f\"}",
               200,
               AN(TOK("charfilter", 0, 10, "<ALPHANUM>", 0) "," TOK("f\xc3\xb6o", 11, 14, "<ALPHANUM>", 1) ","
                  TOK("b\xc3\xa2r", 15, 18, "<ALPHANUM>", 2) "," TOK("ru\xc3\x9f", 19, 22, "<ALPHANUM>", 3)));
        EXPECT("POST", "/test/_analyze",
               "{\"filter\":[\"tokenfilter_icu_normalizer\"],\"tokenizer\":\"standard\","
               "\"text\":\"tokenfilter F\xc3\xb6o B\xc3\xa2r Ru\xc3\x9f\"}",
               200,
               AN(TOK("tokenfilter", 0, 11, "<ALPHANUM>", 0) "," TOK("f\xc3\xb6o", 12, 15, "<ALPHANUM>", 1) ","
                  TOK("B\xc3\xa2r", 16, 19, "<ALPHANUM>", 2) "," TOK("ru\xc3\x9f", 20, 23, "<ALPHANUM>", 3)));
#ifdef TROVE_HAVE_UTR30
        EXPECT("POST", "/test/_analyze",
               "{\"filter\":[\"tokenfilter_icu_folding\"],\"tokenizer\":\"standard\","
               "\"text\":\"icufolding F\xc3\xb6o B\xc3\xa2r Ru\xc3\x9f\"}",
               200,
               AN(TOK("icufolding", 0, 10, "<ALPHANUM>", 0) "," TOK("foo", 11, 14, "<ALPHANUM>", 1) ","
                  TOK("b\xc3\xa2r", 15, 18, "<ALPHANUM>", 2) "," TOK("russ", 19, 22, "<ALPHANUM>", 3)));
#endif
        EXPECT_STATUS("DELETE", "/test", NULL, 200);
    }
}

static void t_errors(void **s) {
    (void)s;
    EXPECT_HAS("PUT", "/bad",
               "{\"settings\":{\"analysis\":{\"tokenizer\":{\"t\":{\"type\":\"icu_tokenizer\","
               "\"rule_files\":\"Latn:KeywordTokenizer.rbbi\"}}}}}",
               400, "[rule_files] is not supported for [icu_tokenizer]");
#ifdef TROVE_HAVE_UTR30
    EXPECT_HAS("PUT", "/bad",
               "{\"settings\":{\"analysis\":{\"analyzer\":{\"a\":{\"type\":\"icu_analyzer\",\"mode\":\"x\"}}}}}", 400,
               "Unknown mode [x] in analyzer [a], expected one of [compose, decompose]");
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_basic),
        cmocka_unit_test(t_set_filter),
        cmocka_unit_test(t_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
