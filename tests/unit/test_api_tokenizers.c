/*
 * test_api_tokenizers.c — tokenizers, char filters and normalizers through
 * the REST API: the upstream analysis-common YAML smoke tests
 * (30_tokenizers.yml ngram / edge_ngram / path_hierarchy / pattern,
 * 50_char_filters.yml pattern_replace) without `explain`, index.max_ngram_diff
 * on an index, and keyword fields with a custom normalizer (indexing, term
 * query and terms aggregation see normalized values; _analyze with
 * `normalizer`; filters without a tokenizer form a normalizer).
 *
 * Expected answers follow OpenSearch 3.x (TransportAnalyzeAction,
 * CustomNormalizerProvider, KeywordFieldMapper); they were not checked
 * against a running OpenSearch.
 */
#include "api_test.h"

#define TOK(t, s, e, p) "{\"token\":\"" t "\",\"start_offset\":" #s ",\"end_offset\":" #e ",\"type\":\"word\",\"position\":" #p "}"

static void t_yaml_smoke(void **s) {
    (void)s;
    EXPECT("POST", "/_analyze", "{\"text\":\"foobar\",\"tokenizer\":{\"type\":\"ngram\",\"min_gram\":3,\"max_gram\":3}}",
           200, "{\"tokens\":[" TOK("foo", 0, 3, 0) "," TOK("oob", 1, 4, 1) "," TOK("oba", 2, 5, 2) ","
                TOK("bar", 3, 6, 3) "]}");
    EXPECT("POST", "/_analyze", "{\"text\":\"foo\",\"tokenizer\":\"ngram\"}", 200,
           "{\"tokens\":[" TOK("f", 0, 1, 0) "," TOK("fo", 0, 2, 1) "," TOK("o", 1, 2, 2) ","
           TOK("oo", 1, 3, 3) "," TOK("o", 2, 3, 4) "]}");
    EXPECT("POST", "/_analyze", "{\"text\":\"foo\",\"tokenizer\":{\"type\":\"edge_ngram\",\"min_gram\":1,\"max_gram\":3}}",
           200, "{\"tokens\":[" TOK("f", 0, 1, 0) "," TOK("fo", 0, 2, 1) "," TOK("foo", 0, 3, 2) "]}");
    EXPECT("POST", "/_analyze", "{\"text\":\"foo\",\"tokenizer\":\"edge_ngram\"}", 200,
           "{\"tokens\":[" TOK("f", 0, 1, 0) "," TOK("fo", 0, 2, 1) "]}");
    EXPECT("POST", "/_analyze", "{\"text\":\"good\",\"tokenizer\":{\"type\":\"ngram\",\"min_gram\":2,\"max_gram\":4}}",
           400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"The difference "
           "between max_gram and min_gram in NGram Tokenizer must be less than or equal to: [1] but was "
           "[2]. This limit can be set by changing the [index.max_ngram_diff] index level setting.\"}],"
           "\"type\":\"illegal_argument_exception\",\"reason\":\"The difference between max_gram and "
           "min_gram in NGram Tokenizer must be less than or equal to: [1] but was [2]. This limit can "
           "be set by changing the [index.max_ngram_diff] index level setting.\"},\"status\":400}");
    EXPECT("POST", "/_analyze", "{\"text\":\"a/b/c\",\"tokenizer\":{\"type\":\"PathHierarchy\"}}", 200,
           "{\"tokens\":[" TOK("a", 0, 1, 0) "," TOK("a/b", 0, 3, 0) "," TOK("a/b/c", 0, 5, 0) "]}");
    EXPECT("POST", "/_analyze", "{\"text\":\"a/b/c\",\"tokenizer\":\"path_hierarchy\"}", 200,
           "{\"tokens\":[" TOK("a", 0, 1, 0) "," TOK("a/b", 0, 3, 0) "," TOK("a/b/c", 0, 5, 0) "]}");
    EXPECT("POST", "/_analyze", "{\"text\":\"split by whitespace\",\"tokenizer\":\"pattern\"}", 200,
           "{\"tokens\":[" TOK("split", 0, 5, 0) "," TOK("by", 6, 8, 1) "," TOK("whitespace", 9, 19, 2) "]}");
    EXPECT("POST", "/_analyze",
           "{\"text\":\"sample6 sample1\",\"tokenizer\":\"keyword\",\"char_filter\":[{\"type\":\"pattern_replace\","
           "\"pattern\":\"sample(.*)\",\"replacement\":\"replacedSample $1\"}]}",
           200, "{\"tokens\":[" TOK("replacedSample 6 sample1", 0, 15, 0) "]}");
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"x\",\"tokenizer\":\"keyword\",\"char_filter\":[{\"type\":\"pattern_replace\"}]}", 400,
               "pattern is missing for [");
}

static void t_index_ngram_diff(void **s) {
    (void)s;
    const char *bad = "{\"settings\":{\"analysis\":{\"tokenizer\":{\"g\":{\"type\":\"ngram\",\"min_gram\":1,"
                      "\"max_gram\":3}}}}}";
    EXPECT_HAS("PUT", "/ng0", bad, 400, "must be less than or equal to: [1] but was [2]");
    OK("PUT", "/ng1",
       "{\"settings\":{\"index.max_ngram_diff\":2,\"analysis\":{\"tokenizer\":{\"g\":{\"type\":\"ngram\","
       "\"min_gram\":1,\"max_gram\":3,\"token_chars\":[\"letter\"]}},\"analyzer\":{\"a\":{\"tokenizer\":\"g\"}}}},"
       "\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"analyzer\":\"a\"}}}}");
    EXPECT("POST", "/ng1/_analyze", "{\"text\":\"ab c\",\"analyzer\":\"a\"}", 200,
           "{\"tokens\":[" TOK("a", 0, 1, 0) "," TOK("ab", 0, 2, 1) "," TOK("b", 1, 2, 2) ","
           TOK("c", 3, 4, 3) "]}");
    /* an inline tokenizer in _analyze on the index uses the index's limit */
    EXPECT_STATUS("POST", "/ng1/_analyze",
                  "{\"text\":\"abc\",\"tokenizer\":{\"type\":\"ngram\",\"min_gram\":1,\"max_gram\":3}}", 200);
    OK("PUT", "/ng1/_doc/1?refresh=true", "{\"t\":\"xylophone\"}");
    char *out;
    int st = req("POST", "/ng1/_search", "{\"query\":{\"match\":{\"t\":{\"query\":\"lop\",\"analyzer\":\"keyword\"}}}}", &out);
    assert_int_equal(st, 200);
    assert_non_null(strstr(out, "\"_id\":\"1\""));
    free(out);
    OK("DELETE", "/ng1", NULL);
}

static void t_normalizer(void **s) {
    (void)s;
    OK("PUT", "/nz",
       "{\"settings\":{\"analysis\":{\"char_filter\":{\"dash\":{\"type\":\"pattern_replace\",\"pattern\":\"-\","
       "\"replacement\":\"\"}},\"normalizer\":{\"n\":{\"type\":\"custom\",\"char_filter\":[\"dash\"],"
       "\"filter\":[\"lowercase\",\"asciifolding\"]}}}},"
       "\"mappings\":{\"properties\":{\"k\":{\"type\":\"keyword\",\"normalizer\":\"n\"}}}}");
    EXPECT("GET", "/nz/_mapping", NULL, 200,
           "{\"nz\":{\"mappings\":{\"properties\":{\"k\":{\"type\":\"keyword\",\"normalizer\":\"n\"}}}}}");
    OK("PUT", "/nz/_doc/1", "{\"k\":\"Caf\xc3\xa9-Bar\"}");
    OK("PUT", "/nz/_doc/2?refresh=true", "{\"k\":\"CAFEBAR\"}");
    /* the term query is normalized too: both documents match */
    char *out;
    int st = req("POST", "/nz/_search", "{\"query\":{\"term\":{\"k\":\"cafe-BAR\"}}}", &out);
    assert_int_equal(st, 200);
    assert_non_null(strstr(out, "\"total\":{\"value\":2"));
    free(out);
    /* the terms aggregation sees the normalized value */
    st = req("POST", "/nz/_search", "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"k\"}}}}", &out);
    assert_int_equal(st, 200);
    if (!strstr(out, "\"buckets\":[{\"key\":\"cafebar\",\"doc_count\":2}]")) fail_msg("%s", out);
    free(out);
    EXPECT("POST", "/nz/_analyze", "{\"normalizer\":\"n\",\"text\":\"A-b\"}", 200,
           "{\"tokens\":[" TOK("ab", 0, 3, 0) "]}");
    EXPECT("POST", "/nz/_analyze", "{\"normalizer\":\"lowercase\",\"text\":\"A B\"}", 200,
           "{\"tokens\":[" TOK("a b", 0, 3, 0) "]}");
    EXPECT_HAS("POST", "/nz/_analyze", "{\"normalizer\":\"nope\",\"text\":\"A\"}", 400,
               "failed to find normalizer under [nope]");
    OK("DELETE", "/nz", NULL);
    /* definition errors */
    EXPECT_HAS("PUT", "/nz1", "{\"settings\":{\"analysis\":{\"normalizer\":{\"n\":{\"filter\":[\"stop\"]}}}}}", 400,
               "Custom normalizer [n] may not use filter [stop]");
    EXPECT_HAS("PUT", "/nz1",
               "{\"settings\":{\"analysis\":{\"char_filter\":{\"m\":{\"type\":\"mapping\",\"mappings\":[\"a=>b\"]}},"
               "\"normalizer\":{\"n\":{\"char_filter\":[\"m\"],\"tokenizer\":\"standard\"}}}}}",
               400, "Custom normalizer [n] cannot configure a tokenizer");
    EXPECT_HAS("PUT", "/nz1", "{\"mappings\":{\"properties\":{\"k\":{\"type\":\"keyword\",\"normalizer\":\"n\"}}}}", 400,
               "normalizer [n] not found for field [k]");
    /* filters without a tokenizer: a normalizer over the keyword tokenizer */
    EXPECT("POST", "/_analyze", "{\"filter\":[\"lowercase\"],\"text\":\"AB Cd\"}", 200,
           "{\"tokens\":[" TOK("ab cd", 0, 5, 0) "]}");
    EXPECT_HAS("POST", "/_analyze", "{\"filter\":[\"porter_stem\"],\"text\":\"running\"}", 400,
               "Custom normalizer may not use filter [porter_stem]");
    EXPECT_HAS("POST", "/_analyze", "{\"filter\":[{\"type\":\"stop\"}],\"text\":\"running\"}", 400,
               "Custom normalizer may not use filter [__anonymous__stop]");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_yaml_smoke),
        cmocka_unit_test(t_index_ngram_diff),
        cmocka_unit_test(t_normalizer),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
