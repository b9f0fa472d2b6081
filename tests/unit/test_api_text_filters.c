/*
 * test_api_text_filters.c — the generic token filters through the REST
 * API: `_analyze` with inline and index-defined filters, and index
 * creation errors, mirroring OpenSearch's analysis-common YAML suite
 * (40_token_filters.yml: keywordmarker, unique, ngram, edge_ngram,
 * elision, stemmer_override, truncate, pattern_capture, pattern_replace,
 * limit_count, common_grams, delimited_payload, delimited_termfreq,
 * keep_filter, keep_types_filter, apostrophe, decimal_digit, fingerprint,
 * min_hash, multiplexer), plus what those do not show: positionLength of
 * common grams and index.max_ngram_diff.
 */
#include "api_test.h"

#define AN(body) "{\"tokens\":[" body "]}"
#define TOK(t, s, e, ty, p) "{\"token\":\"" t "\",\"start_offset\":" #s ",\"end_offset\":" #e ",\"type\":\"" ty "\",\"position\":" #p "}"

static void t_inline(void **s) {
    (void)s;
    /* PorterStemmer stems words of three chars or more: "is" stays */
    EXPECT("POST", "/_analyze",
           "{\"text\":\"This is troubled\",\"tokenizer\":\"standard\",\"filter\":[{\"type\":\"keyword_marker\","
           "\"keywords\":\"troubled\"},{\"type\":\"porter_stem\"}]}",
           200,
           AN(TOK("Thi", 0, 4, "<ALPHANUM>", 0) "," TOK("is", 5, 7, "<ALPHANUM>", 1) ","
              TOK("troubled", 8, 16, "<ALPHANUM>", 2)));
    EXPECT("POST", "/_analyze", "{\"text\":\"Foo Foo Bar!\",\"tokenizer\":\"whitespace\",\"filter\":[\"unique\"]}", 200,
           AN(TOK("Foo", 0, 3, "word", 0) "," TOK("Bar!", 8, 12, "word", 1)));
    EXPECT("POST", "/_analyze", "{\"text\":\"foo's bar\",\"tokenizer\":\"keyword\",\"filter\":[\"apostrophe\"]}", 200,
           AN(TOK("foo", 0, 9, "word", 0)));
    EXPECT("POST", "/_analyze",
           "{\"text\":\"\xd9\xa1\xd9\xa2\xd9\xa3\xd9\xa4\",\"tokenizer\":\"keyword\",\"filter\":[\"decimal_digit\"]}",
           200, AN(TOK("1234", 0, 4, "word", 0)));
    EXPECT("POST", "/_analyze", "{\"text\":\"A1 B2 A1 D4 C3\",\"tokenizer\":\"whitespace\",\"filter\":[\"fingerprint\"]}",
           200, AN(TOK("A1 B2 C3 D4", 0, 14, "fingerprint", 0)));
    EXPECT("POST", "/_analyze", "{\"text\":\"foo|5\",\"tokenizer\":\"keyword\",\"filter\":[\"delimited_payload\"]}", 200,
           AN(TOK("foo", 0, 5, "word", 0)));
    EXPECT("POST", "/_analyze",
           "{\"text\":\"The quick fox\",\"tokenizer\":\"standard\",\"filter\":[{\"type\":\"multiplexer\","
           "\"filters\":[\"lowercase\",\"uppercase\"],\"preserve_original\":false}]}",
           200,
           AN(TOK("the", 0, 3, "<ALPHANUM>", 0) "," TOK("THE", 0, 3, "<ALPHANUM>", 0) ","
              TOK("quick", 4, 9, "<ALPHANUM>", 1) "," TOK("QUICK", 4, 9, "<ALPHANUM>", 1) ","
              TOK("fox", 10, 13, "<ALPHANUM>", 2) "," TOK("FOX", 10, 13, "<ALPHANUM>", 2)));
    /* min_hash: 512 buckets, all filled by rotation */
    char *out;
    assert_int_equal(req("POST", "/_analyze",
                         "{\"text\":\"the quick brown fox\",\"tokenizer\":\"whitespace\",\"filter\":[\"min_hash\"]}",
                         &out), 200);
    size_t n = 0;
    for (const char *p = out; (p = strstr(p, "\"MIN_HASH\"")); p++) n++;
    assert_int_equal(n, 512);
    free(out);
    /* errors: an unknown branch, a required setting, a refused filter */
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"a\",\"tokenizer\":\"keyword\",\"filter\":[{\"type\":\"multiplexer\",\"filters\":[\"nope\"]}]}",
               400, "Multiplexing filter [__anonymous__multiplexer] refers to undefined tokenfilter [nope]");
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"a\",\"tokenizer\":\"keyword\",\"filter\":[{\"type\":\"lowercase\"},"
               "{\"type\":\"pattern_replace\"}]}",
               400, "pattern is missing for [__anonymous__pattern_replace] token filter of type 'pattern_replace'");
    /* bare names: the pre-configured filters, or settings required */
    EXPECT("POST", "/_analyze", "{\"text\":\"foobar\",\"tokenizer\":\"keyword\",\"filter\":[\"edge_ngram\"]}", 200,
           AN(TOK("f", 0, 6, "word", 0)));
    EXPECT("POST", "/_analyze", "{\"text\":\"L'avion\",\"tokenizer\":\"keyword\",\"filter\":[\"elision\"]}", 200,
           AN(TOK("avion", 0, 7, "word", 0)));
    EXPECT("POST", "/_analyze", "{\"text\":\"abcdefghijkl\",\"tokenizer\":\"keyword\",\"filter\":[\"truncate\"]}",
           200, AN(TOK("abcdefghij", 0, 12, "word", 0)));
    EXPECT("POST", "/_analyze", "{\"text\":\"a b\",\"tokenizer\":\"whitespace\",\"filter\":[\"common_grams\"]}", 200,
           AN(TOK("a", 0, 1, "word", 0) "," TOK("b", 2, 3, "word", 1)));
    EXPECT_HAS("POST", "/_analyze", "{\"text\":\"a\",\"tokenizer\":\"keyword\",\"filter\":[\"keep\"]}", 400,
               "Analysis settings required - can't instantiate analysis factory");
}

static void t_index_filters(void **s) {
    (void)s;
    OK("PUT", "/tf",
       "{\"settings\":{\"analysis\":{\"filter\":{"
       "\"my_ngram\":{\"type\":\"ngram\",\"min_gram\":3,\"max_gram\":3},"
       "\"my_edge_ngram\":{\"type\":\"edge_ngram\",\"min_gram\":3,\"max_gram\":6},"
       "\"my_elision\":{\"type\":\"elision\",\"articles\":[\"l\",\"m\",\"t\",\"qu\",\"n\",\"s\",\"j\"]},"
       "\"my_stemmer\":{\"type\":\"stemmer\",\"language\":\"dutch\"},"
       "\"my_stemmer_override\":{\"type\":\"stemmer_override\",\"rules\":[\"zoeken => override\",\"foo, bar => baz\"]},"
       "\"my_truncate\":{\"type\":\"truncate\",\"length\":3},"
       "\"my_pattern_capture\":{\"type\":\"pattern_capture\",\"preserve_original\":false,\"patterns\":[\"([^@]+)\"]},"
       "\"my_pattern_replace\":{\"type\":\"pattern_replace\",\"pattern\":\"a\",\"replacement\":\"b\"},"
       "\"my_limit\":{\"type\":\"limit\",\"max_token_count\":2},"
       "\"my_common\":{\"type\":\"common_grams\",\"common_words\":[\"a\"]},"
       "\"my_termfreq\":{\"type\":\"delimited_termfreq\",\"delimiter\":\"^\"},"
       "\"my_keep\":{\"type\":\"keep\",\"keep_words\":[\"foo\",\"bar\"]},"
       "\"my_keep_types\":{\"type\":\"keep_types\",\"types\":[\"<NUM>\"]},"
       "\"my_fingerprint\":{\"type\":\"fingerprint\",\"separator\":\"_\"}}}}}");
    EXPECT("POST", "/tf/_analyze", "{\"text\":\"foobar\",\"tokenizer\":\"keyword\",\"filter\":[\"my_ngram\"]}", 200,
           AN(TOK("foo", 0, 6, "word", 0) "," TOK("oob", 0, 6, "word", 0) "," TOK("oba", 0, 6, "word", 0) ","
              TOK("bar", 0, 6, "word", 0)));
    EXPECT("POST", "/tf/_analyze", "{\"text\":\"foobar\",\"tokenizer\":\"keyword\",\"filter\":[\"my_edge_ngram\"]}", 200,
           AN(TOK("foo", 0, 6, "word", 0) "," TOK("foob", 0, 6, "word", 0) "," TOK("fooba", 0, 6, "word", 0) ","
              TOK("foobar", 0, 6, "word", 0)));
    EXPECT("POST", "/tf/_analyze", "{\"text\":\"l'avion\",\"tokenizer\":\"keyword\",\"filter\":[\"my_elision\"]}", 200,
           AN(TOK("avion", 0, 7, "word", 0)));
    EXPECT("POST", "/tf/_analyze",
           "{\"text\":\"zoeken\",\"tokenizer\":\"keyword\",\"filter\":[\"my_stemmer_override\",\"my_stemmer\"]}", 200,
           AN(TOK("override", 0, 6, "word", 0)));
    EXPECT("POST", "/tf/_analyze", "{\"text\":\"foo bar\",\"tokenizer\":\"whitespace\",\"filter\":[\"my_stemmer_override\"]}",
           200, AN(TOK("baz", 0, 3, "word", 0) "," TOK("baz", 4, 7, "word", 1)));
    EXPECT("POST", "/tf/_analyze", "{\"text\":\"foobar\",\"tokenizer\":\"keyword\",\"filter\":[\"my_truncate\"]}", 200,
           AN(TOK("foo", 0, 6, "word", 0)));
    EXPECT("POST", "/tf/_analyze", "{\"text\":\"foo@bar.baz\",\"tokenizer\":\"keyword\",\"filter\":[\"my_pattern_capture\"]}",
           200, AN(TOK("foo", 0, 11, "word", 0) "," TOK("bar.baz", 0, 11, "word", 0)));
    EXPECT("POST", "/tf/_analyze", "{\"text\":\"a\",\"tokenizer\":\"keyword\",\"filter\":[\"my_pattern_replace\"]}", 200,
           AN(TOK("b", 0, 1, "word", 0)));
    EXPECT("POST", "/tf/_analyze", "{\"text\":\"a b c\",\"tokenizer\":\"whitespace\",\"filter\":[\"my_limit\"]}", 200,
           AN(TOK("a", 0, 1, "word", 0) "," TOK("b", 2, 3, "word", 1)));
    /* common grams: the gram spans two positions (AnalyzeToken's positionLength) */
    EXPECT("POST", "/tf/_analyze", "{\"text\":\"a b c\",\"tokenizer\":\"whitespace\",\"filter\":[\"my_common\"]}", 200,
           AN(TOK("a", 0, 1, "word", 0) ","
              "{\"token\":\"a_b\",\"start_offset\":0,\"end_offset\":3,\"type\":\"gram\",\"position\":0,\"positionLength\":2},"
              TOK("b", 2, 3, "word", 1) "," TOK("c", 4, 5, "word", 2)));
    EXPECT("POST", "/tf/_analyze", "{\"text\":\"foo^3\",\"tokenizer\":\"keyword\",\"filter\":[\"my_termfreq\"]}", 200,
           AN(TOK("foo", 0, 5, "word", 0)));
    EXPECT("POST", "/tf/_analyze", "{\"text\":\"foo bar baz\",\"tokenizer\":\"whitespace\",\"filter\":[\"my_keep\"]}", 200,
           AN(TOK("foo", 0, 3, "word", 0) "," TOK("bar", 4, 7, "word", 1)));
    EXPECT("POST", "/tf/_analyze", "{\"text\":\"foo 123 bar\",\"tokenizer\":\"standard\",\"filter\":[\"my_keep_types\"]}",
           200, AN(TOK("123", 4, 7, "<NUM>", 1)));
    EXPECT("POST", "/tf/_analyze", "{\"text\":\"A1 B2 A1 D4 C3\",\"tokenizer\":\"whitespace\",\"filter\":[\"my_fingerprint\"]}",
           200, AN(TOK("A1_B2_C3_D4", 0, 14, "fingerprint", 0)));
    /* an inline ngram over the index reads its max_ngram_diff (1) */
    EXPECT_HAS("POST", "/tf/_analyze",
               "{\"text\":\"ab\",\"tokenizer\":\"keyword\",\"filter\":[{\"type\":\"ngram\",\"min_gram\":1,\"max_gram\":3}]}",
               400, "must be less than or equal to: [1] but was [2]");
    OK("DELETE", "/tf", NULL);
}

static void t_index_errors(void **s) {
    (void)s;
    EXPECT("PUT", "/tf2", "{\"settings\":{\"analysis\":{\"filter\":{\"my_elision\":{\"type\":\"elision\"}}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"elision filter "
           "requires [articles] or [articles_path] setting\"}],\"type\":\"illegal_argument_exception\","
           "\"reason\":\"elision filter requires [articles] or [articles_path] setting\"},\"status\":400}");
    EXPECT_HAS("PUT", "/tf2",
               "{\"settings\":{\"analysis\":{\"filter\":{\"g\":{\"type\":\"ngram\",\"min_gram\":1,\"max_gram\":4}}}}}",
               400,
               "The difference between max_gram and min_gram in NGram Tokenizer must be less than or equal to: "
               "[1] but was [3]. This limit can be set by changing the [index.max_ngram_diff] index level setting.");
    /* index.max_ngram_diff raises it */
    OK("PUT", "/tf3",
       "{\"settings\":{\"index.max_ngram_diff\":3,\"analysis\":{\"filter\":{\"g\":{\"type\":\"ngram\",\"min_gram\":1,"
       "\"max_gram\":4}}}}}");
    EXPECT("POST", "/tf3/_analyze", "{\"text\":\"ab\",\"tokenizer\":\"keyword\",\"filter\":[\"g\"]}", 200,
           AN(TOK("a", 0, 2, "word", 0) "," TOK("ab", 0, 2, "word", 0) "," TOK("b", 0, 2, "word", 0)));
    OK("DELETE", "/tf3", NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_inline),
        cmocka_unit_test(t_index_filters),
        cmocka_unit_test(t_index_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
