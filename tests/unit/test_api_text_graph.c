/*
 * test_api_text_graph.c — the graph token filters through the REST API:
 * OpenSearch's analysis-common YAML tests (40_token_filters.yml:
 * word_delimiter, word_delimiter_graph with adjust_offsets and explain,
 * "synonym_graph and flatten_graph"), plus what they do not show:
 * shingles in an index (index.max_shingle_diff, positionLength) and match
 * queries over shingle and word_delimiter_graph analyzers (a shingle
 * stream builds no graph query: DisableGraphAttribute).
 */
#include "api_test.h"

#define AN(body) "{\"tokens\":[" body "]}"
#define TOK(t, s, e, ty, p) "{\"token\":\"" t "\",\"start_offset\":" #s ",\"end_offset\":" #e ",\"type\":\"" ty "\",\"position\":" #p "}"
#define TOKL(t, s, e, ty, p, l)                                                                                      \
    "{\"token\":\"" t "\",\"start_offset\":" #s ",\"end_offset\":" #e ",\"type\":\"" ty "\",\"position\":" #p \
    ",\"positionLength\":" #l "}"

static void t_word_delimiter(void **s) {
    (void)s;
    const char *qu = AN(TOK("the", 0, 3, "<ALPHANUM>", 0) "," TOK("qu", 4, 6, "<ALPHANUM>", 1) ","
                        TOK("1", 6, 7, "<ALPHANUM>", 2) "," TOK("ck", 7, 9, "<ALPHANUM>", 3) ","
                        TOK("brown", 10, 15, "<ALPHANUM>", 4) "," TOK("fox", 16, 19, "<ALPHANUM>", 5));
    EXPECT("POST", "/_analyze", "{\"text\":\"the qu1ck brown fox\",\"tokenizer\":\"standard\",\"filter\":[\"word_delimiter\"]}",
           200, qu);
    EXPECT("POST", "/_analyze",
           "{\"text\":\"the qu1ck brown fox\",\"tokenizer\":\"standard\",\"filter\":[\"word_delimiter_graph\"]}", 200, qu);
    const char *whole = AN(TOK("the", 0, 3, "<ALPHANUM>", 0) "," TOK("qu1ck", 4, 9, "<ALPHANUM>", 1) ","
                           TOK("brown", 10, 15, "<ALPHANUM>", 2) "," TOK("fox", 16, 19, "<ALPHANUM>", 3));
    EXPECT("POST", "/_analyze",
           "{\"text\":\"the qu1ck brown fox\",\"tokenizer\":\"standard\",\"filter\":[{\"type\":\"word_delimiter\","
           "\"split_on_numerics\":false}]}",
           200, whole);
    EXPECT("POST", "/_analyze",
           "{\"text\":\"the qu1ck brown fox\",\"tokenizer\":\"standard\",\"filter\":[{\"type\":\"word_delimiter_graph\","
           "\"split_on_numerics\":false}]}",
           200, whole);
    EXPECT("POST", "/_analyze",
           "{\"text\":\"the qu1ck brown fox\",\"tokenizer\":\"standard\",\"filter\":[{\"type\":\"word_delimiter_graph\","
           "\"adjust_offsets\":false}]}",
           200,
           AN(TOK("the", 0, 3, "<ALPHANUM>", 0) "," TOK("qu", 4, 9, "<ALPHANUM>", 1) "," TOK("1", 4, 9, "<ALPHANUM>", 2)
              "," TOK("ck", 4, 9, "<ALPHANUM>", 3) "," TOK("brown", 10, 15, "<ALPHANUM>", 4) ","
              TOK("fox", 16, 19, "<ALPHANUM>", 5)));
    /* explain: the tokenizer's tokens, then the filter's */
    char *out;
    assert_int_equal(req("POST", "/_analyze",
                         "{\"text\":\"the qu1ck brown fox\",\"explain\":true,\"tokenizer\":\"standard\","
                         "\"filter\":[\"word_delimiter_graph\"]}",
                         &out),
                     200);
    assert_non_null(strstr(out, "\"custom_analyzer\":true"));
    assert_non_null(strstr(out, "\"tokenfilters\":[{\"name\":\"word_delimiter_graph\",\"tokens\":[{\"token\":\"the\""));
    assert_non_null(strstr(out, "{\"token\":\"ck\",\"start_offset\":7,\"end_offset\":9,"));
    free(out);
    /* the graph: preserved original and catenation span their parts */
    EXPECT("POST", "/_analyze",
           "{\"text\":\"Wi-Fi x\",\"tokenizer\":\"whitespace\",\"filter\":[{\"type\":\"word_delimiter_graph\","
           "\"preserve_original\":true,\"catenate_words\":true}]}",
           200,
           AN(TOKL("Wi-Fi", 0, 5, "word", 0, 2) "," TOKL("WiFi", 0, 5, "word", 0, 2) "," TOK("Wi", 0, 2, "word", 0) ","
              TOK("Fi", 3, 5, "word", 1) "," TOK("x", 6, 7, "word", 2)));
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"a\",\"tokenizer\":\"keyword\",\"filter\":[{\"type\":\"word_delimiter\",\"type_table_path\":\"t.txt\"}]}",
               400, "\"type\":\"unsupported_operation_exception\"");
}

static void t_flatten(void **s) {
    (void)s;
    OK("PUT", "/fg",
       "{\"settings\":{\"analysis\":{\"filter\":{\"my_synonym_graph\":{\"type\":\"synonym_graph\","
       "\"synonyms\":[\"automatic teller machine,atm,cash point\"]}}}}}");
    EXPECT("POST", "/fg/_analyze",
           "{\"text\":\"this automatic teller machine is down\",\"tokenizer\":\"whitespace\","
           "\"filter\":[\"my_synonym_graph\",\"flatten_graph\"]}",
           200,
           /* offsets shrink-wrapped to the merged nodes (FlattenGraphFilter) */
           AN(TOK("this", 0, 4, "word", 0) "," TOKL("atm", 5, 29, "SYNONYM", 1, 3) "," TOK("cash", 5, 14, "SYNONYM", 1)
              "," TOK("automatic", 5, 14, "word", 1) "," TOKL("point", 15, 29, "SYNONYM", 2, 2) ","
              TOK("teller", 15, 21, "word", 2) "," TOK("machine", 22, 29, "word", 3) ","
              TOK("is", 30, 32, "word", 4) "," TOK("down", 33, 37, "word", 5)));
    OK("DELETE", "/fg", NULL);
}

static void t_shingle_index(void **s) {
    (void)s;
    EXPECT_HAS("PUT", "/sh",
               "{\"settings\":{\"analysis\":{\"filter\":{\"s\":{\"type\":\"shingle\",\"max_shingle_size\":5}}}}}", 400,
               "In Shingle TokenFilter the difference between max_shingle_size and min_shingle_size (and +1 if "
               "outputting unigrams) must be less than or equal to: [3] but was [4]. This limit can be set by "
               "changing the [index.max_shingle_diff] index level setting.");
    OK("PUT", "/sh",
       "{\"settings\":{\"index.max_shingle_diff\":4,\"analysis\":{\"filter\":{\"s\":{\"type\":\"shingle\","
       "\"max_shingle_size\":5}},\"analyzer\":{\"sa\":{\"tokenizer\":\"whitespace\",\"filter\":[\"lowercase\",\"s\"]}}}},"
       "\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"analyzer\":\"sa\"}}}}");
    EXPECT("POST", "/sh/_analyze", "{\"text\":\"A b\",\"analyzer\":\"sa\"}", 200,
           AN(TOK("a", 0, 1, "word", 0) "," TOKL("a b", 0, 3, "shingle", 0, 2) "," TOK("b", 2, 3, "word", 1)));
    OK("PUT", "/sh/_doc/1?refresh=true", "{\"t\":\"the quick brown fox\"}");
    OK("PUT", "/sh/_doc/2?refresh=true", "{\"t\":\"brown quick\"}");
    /* shingles stack at their first position and build no graph query */
    EXPECT_HAS("POST", "/sh/_search", "{\"query\":{\"match\":{\"t\":{\"query\":\"quick brown\",\"operator\":\"and\"}}}}",
               200, "\"total\":{\"value\":2,\"relation\":\"eq\"}");
    EXPECT_HAS("POST", "/sh/_search", "{\"query\":{\"match_phrase\":{\"t\":\"quick brown\"}}}", 200,
               "\"total\":{\"value\":1,\"relation\":\"eq\"}");
    OK("DELETE", "/sh", NULL);
}

static void t_wdg_search(void **s) {
    (void)s;
    OK("PUT", "/wg",
       "{\"settings\":{\"analysis\":{\"filter\":{\"wd\":{\"type\":\"word_delimiter_graph\",\"catenate_words\":true}},"
       "\"analyzer\":{\"ix\":{\"tokenizer\":\"whitespace\",\"filter\":[\"wd\",\"flatten_graph\",\"lowercase\"]},"
       "\"q\":{\"tokenizer\":\"whitespace\",\"filter\":[\"wd\",\"lowercase\"]}}}},"
       "\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"analyzer\":\"ix\",\"search_analyzer\":\"q\"}}}}");
    OK("PUT", "/wg/_doc/1?refresh=true", "{\"t\":\"cheap Wi-Fi router\"}");
    OK("PUT", "/wg/_doc/2?refresh=true", "{\"t\":\"wifi\"}");
    /* the query's graph: (wifi | wi fi) */
    EXPECT_HAS("POST", "/wg/_search", "{\"query\":{\"match\":{\"t\":\"Wi-Fi\"}}}", 200,
               "\"total\":{\"value\":2,\"relation\":\"eq\"}");
    EXPECT_HAS("POST", "/wg/_search",
               "{\"query\":{\"match\":{\"t\":{\"query\":\"cheap wi-fi router\",\"operator\":\"and\"}}}}", 200,
               "\"total\":{\"value\":1,\"relation\":\"eq\"}");
    OK("DELETE", "/wg", NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_word_delimiter),
        cmocka_unit_test(t_flatten),
        cmocka_unit_test(t_shingle_index),
        cmocka_unit_test(t_wdg_search),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
