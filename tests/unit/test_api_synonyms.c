/*
 * test_api_synonyms.c — synonym and synonym_graph filters through
 * trove_request: _analyze output (positionLength), index settings errors
 * (updateable filters at index time), and match / match_phrase queries
 * over synonym_graph analyzers (QueryBuilder's graph analysis and
 * SynonymQuery).
 *
 * The searches mirror OpenSearch's analysis-common YAML suite
 * search.query/60_synonym_graph.yml (its hit counts and orders are
 * OpenSearch's); the SynonymQuery score was computed by hand from
 * Lucene 10's SynonymQuery (max docFreq for idf, summed frequencies) and
 * BM25. Graph phrases with slop 0 (span queries in OpenSearch) and
 * match_phrase_prefix over a graph answer 400 in trove.
 */
#include "api_test.h"

static void hits_are(const char *idx, const char *body, bool scores, const char *want) {
    char path[128], got[512];
    snprintf(path, sizeof path, "/%s/_search", idx);
    char *out;
    int st = req("POST", path, body, &out);
    hit_list(out, scores, got, sizeof got);
    if (st != 200 || strcmp(got, want) != 0) fail_msg("%s\n want %s\n got  %d %s", body, want, st, out);
    free(out);
}

static void t_analyze(void **s) {
    (void)s;
    EXPECT("POST", "/_analyze",
           "{\"tokenizer\":\"whitespace\",\"filter\":[{\"type\":\"synonym_graph\",\"synonyms\":[\"ny, new york\"]}],"
           "\"text\":\"ny is\"}",
           200,
           "{\"tokens\":[{\"token\":\"new\",\"start_offset\":0,\"end_offset\":2,\"type\":\"SYNONYM\",\"position\":0},"
           "{\"token\":\"ny\",\"start_offset\":0,\"end_offset\":2,\"type\":\"word\",\"position\":0,\"positionLength\":2},"
           "{\"token\":\"york\",\"start_offset\":0,\"end_offset\":2,\"type\":\"SYNONYM\",\"position\":1},"
           "{\"token\":\"is\",\"start_offset\":3,\"end_offset\":5,\"type\":\"word\",\"position\":2}]}");
    /* 40_token_filters.yml "synonym": car, auto */
    EXPECT("POST", "/_analyze",
           "{\"tokenizer\":\"whitespace\",\"filter\":[{\"type\":\"synonym\",\"synonyms\":[\"car, auto\"]}],"
           "\"text\":\"what car magazine\"}",
           200,
           "{\"tokens\":[{\"token\":\"what\",\"start_offset\":0,\"end_offset\":4,\"type\":\"word\",\"position\":0},"
           "{\"token\":\"car\",\"start_offset\":5,\"end_offset\":8,\"type\":\"word\",\"position\":1},"
           "{\"token\":\"auto\",\"start_offset\":5,\"end_offset\":8,\"type\":\"SYNONYM\",\"position\":1},"
           "{\"token\":\"magazine\",\"start_offset\":9,\"end_offset\":17,\"type\":\"word\",\"position\":2}]}");
    EXPECT("POST", "/_analyze",
           "{\"tokenizer\":\"whitespace\",\"filter\":[{\"type\":\"synonym\",\"synonyms\":[\"a => b => c\"]}],\"text\":\"a\"}",
           400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Failed to build synonyms\"}],"
           "\"type\":\"illegal_argument_exception\",\"reason\":\"Failed to build synonyms\"},\"status\":400}");
}

static void t_settings(void **s) {
    (void)s;
    /* an updateable filter: search time only */
    const char *an = "{\"settings\":{\"analysis\":{\"filter\":{\"syn\":{\"type\":\"synonym_graph\",\"synonyms\":[\"a, b\"],"
                     "\"updateable\":true}},\"analyzer\":{\"sa\":{\"tokenizer\":\"standard\",\"filter\":[\"syn\"]}}}},"
                     "\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",%s}}}}";
    char body[1024];
    snprintf(body, sizeof body, an, "\"analyzer\":\"sa\"");
    EXPECT_HAS("PUT", "/up", body, 400,
               "analyzer [sa] contains filters [syn] that are not allowed to run in index time mode.");
    EXPECT_HAS("PUT", "/up", body, 400, "\"type\":\"mapper_parsing_exception\"");
    snprintf(body, sizeof body, an, "\"search_analyzer\":\"sa\"");
    OK("PUT", "/up", body);
    OK("PUT", "/up/_doc/1?refresh=true", "{\"t\":\"b\"}");
    hits_are("up", "{\"query\":{\"match\":{\"t\":\"a\"}}}", false, "1");
    OK("DELETE", "/up", NULL);
    /* the rules are analyzed at index creation */
    EXPECT_HAS("PUT", "/bad",
               "{\"settings\":{\"analysis\":{\"filter\":{\"syn\":{\"type\":\"synonym\",\"synonyms\":[\"the => x\"]}},"
               "\"analyzer\":{\"a\":{\"tokenizer\":\"standard\",\"filter\":[\"stop\",\"syn\"]}}}}}",
               400, "Failed to build synonyms");
    EXPECT_HAS("PUT", "/bad",
               "{\"settings\":{\"analysis\":{\"filter\":{\"syn\":{\"type\":\"synonym\",\"synonyms_path\":\"s.txt\"}}}}}",
               400, "unsupported_operation_exception");
}

/* search.query/60_synonym_graph.yml's setup */
static void graph_index(void) {
    OK("PUT", "/test",
       "{\"settings\":{\"index\":{\"number_of_shards\":1},\"analysis\":{\"filter\":{"
       "\"syns\":{\"type\":\"synonym\",\"synonyms\":[\"wtf, what the fudge\",\"foo, bar baz\"]},"
       "\"graph_syns\":{\"type\":\"synonym_graph\",\"synonyms\":[\"wtf, what the fudge\",\"foo, bar baz\"]}},"
       "\"analyzer\":{\"lower_syns\":{\"type\":\"custom\",\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"syns\"]},"
       "\"lower_graph_syns\":{\"type\":\"custom\",\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"graph_syns\"]}}}},"
       "\"mappings\":{\"properties\":{\"field\":{\"type\":\"text\"},\"phrase_field\":{\"type\":\"text\",\"index_phrases\":true}}}}");
    OK("PUT", "/test/_doc/1", "{\"text\":\"say wtf happened foo\"}");
    OK("PUT", "/test/_doc/2", "{\"text\":\"bar baz what the fudge man\"}");
    OK("PUT", "/test/_doc/3", "{\"text\":\"wtf\"}");
    OK("PUT", "/test/_doc/4", "{\"text\":\"what is the name for fudge\"}");
    OK("PUT", "/test/_doc/5", "{\"text\":\"bar two three\"}");
    OK("PUT", "/test/_doc/6?refresh=true", "{\"text\":\"bar baz two three\"}");
}

static void t_graph_queries(void **s) {
    (void)s;
    graph_index();
    /* simple multiterm phrase: the non-graph filter's stacked tokens */
    hits_are("test", "{\"query\":{\"match_phrase\":{\"text\":{\"query\":\"foo two three\",\"analyzer\":\"lower_syns\"}}}}",
             false, "5");
    /* with the graph filter OpenSearch builds span queries: refused */
    EXPECT_HAS("POST", "/test/_search",
               "{\"query\":{\"match_phrase\":{\"text\":{\"query\":\"foo two three\",\"analyzer\":\"lower_graph_syns\"}}}}",
               400, "unsupported_operation_exception");
    /* ... with slop, the OR of every path's phrase */
    hits_are("test",
             "{\"query\":{\"match_phrase\":{\"text\":{\"query\":\"foo two three\",\"analyzer\":\"lower_graph_syns\",\"slop\":1}}}}",
             false, "6");
    /* simple multiterm and */
    hits_are("test",
             "{\"query\":{\"match\":{\"text\":{\"query\":\"say what the fudge\",\"analyzer\":\"lower_syns\",\"operator\":\"and\"}}}}",
             false, "1");
    hits_are("test",
             "{\"query\":{\"match\":{\"text\":{\"query\":\"say what the fudge\",\"analyzer\":\"lower_graph_syns\",\"operator\":\"and\"}}}}",
             false, "1");
    /* minimum should match: counted over the graph's segments */
    char body[512], got[512], *out;
    snprintf(body, sizeof body,
             "{\"query\":{\"match\":{\"text\":{\"query\":\"three what the fudge foo\",\"operator\":\"or\","
             "\"analyzer\":\"lower_graph_syns\",\"auto_generate_synonyms_phrase_query\":false}}}}");
    assert_int_equal(req("POST", "/test/_search", body, &out), 200);
    assert_non_null(strstr(out, "\"total\":{\"value\":6,"));
    free(out);
    hits_are("test",
             "{\"query\":{\"match\":{\"text\":{\"query\":\"three what the fudge foo\",\"operator\":\"or\","
             "\"analyzer\":\"lower_graph_syns\",\"minimum_should_match\":\"80%\"}}}}",
             false, "2,6,1");
    /* multiterm synonyms phrase */
    hits_are("test",
             "{\"query\":{\"match\":{\"text\":{\"query\":\"wtf\",\"operator\":\"and\",\"analyzer\":\"lower_graph_syns\"}}}}",
             false, "2,3,1");
    /* phrase prefix over a graph: refused */
    EXPECT_HAS("POST", "/test/_search",
               "{\"query\":{\"match_phrase_prefix\":{\"text\":{\"query\":\"wtf\",\"analyzer\":\"lower_graph_syns\"}}}}",
               400, "unsupported_operation_exception");
    /* index_phrases: the side path's phrase goes to the shingle field */
    OK("PUT", "/test/_doc/9?refresh=true", "{\"phrase_field\":\"bar baz\"}");
    hits_are("test", "{\"query\":{\"match\":{\"phrase_field\":{\"query\":\"bar baz\",\"analyzer\":\"lower_graph_syns\"}}}}",
             false, "9");
    (void)got;
    OK("DELETE", "/test", NULL);
}

static void t_synonym_query(void **s) {
    (void)s;
    OK("PUT", "/sq",
       "{\"settings\":{\"analysis\":{\"filter\":{\"syn\":{\"type\":\"synonym_graph\",\"synonyms\":[\"quick, fast\"]}},"
       "\"analyzer\":{\"sa\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"syn\"]}}}},"
       "\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"search_analyzer\":\"sa\"}}}}");
    const char *docs[] = {"the quick brown fox", "a fast car", "i love new york", "ny rocks",
                          "what the fudge happened", "new people in york", "quick fast quick"};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char path[32], body[128];
        snprintf(path, sizeof path, "/sq/_doc/%zu", i + 1);
        snprintf(body, sizeof body, "{\"t\":\"%s\"}", docs[i]);
        OK("PUT", path, body);
    }
    OK("POST", "/sq/_refresh", NULL);
    /* SynonymQuery(quick, fast): idf of the larger docFreq (2 of 7 docs),
     * frequencies summed: doc 7 has 3 in 3 words, idf ln(3.2) */
    hits_are("sq", "{\"query\":{\"match\":{\"t\":\"fast\"}}}", true, "7:0.8536886,2:0.557198,1:0.4949578");
    hits_are("sq", "{\"query\":{\"match\":{\"t\":\"quick\"}}}", true, "7:0.8536886,2:0.557198,1:0.4949578");
    /* query_string: one position of synonyms is the same SynonymQuery */
    hits_are("sq", "{\"query\":{\"query_string\":{\"default_field\":\"t\",\"query\":\"fast\"}}}", true,
             "7:0.8536886,2:0.557198,1:0.4949578");
    /* operator and msm count positions, not terms */
    hits_are("sq", "{\"query\":{\"match\":{\"t\":{\"query\":\"quick car\",\"operator\":\"and\"}}}}", false, "2");
    hits_are("sq", "{\"query\":{\"match\":{\"t\":{\"query\":\"fast fox\",\"minimum_should_match\":2}}}}", false, "1");
    /* stacked terms in a phrase: alternatives at one position */
    hits_are("sq", "{\"query\":{\"match_phrase\":{\"t\":\"fast brown\"}}}", false, "1");
    /* filter context and _count */
    EXPECT_HAS("POST", "/sq/_count", "{\"query\":{\"match\":{\"t\":\"fast\"}}}", 200, "\"count\":3,");
    hits_are("sq", "{\"query\":{\"bool\":{\"filter\":{\"match\":{\"t\":\"fast\"}}}}}", true, "1:0.0,2:0.0,7:0.0");
    /* what trove cannot build over synonyms answers 400 */
    EXPECT_HAS("POST", "/sq/_search", "{\"query\":{\"match\":{\"t\":{\"query\":\"fast\",\"fuzziness\":1}}}}", 400,
               "unsupported_operation_exception");
    OK("DELETE", "/sq", NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_analyze),
        cmocka_unit_test(t_settings),
        cmocka_unit_test(t_graph_queries),
        cmocka_unit_test(t_synonym_query),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
