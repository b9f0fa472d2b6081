/* test_api_kstem.c — the English KStem filter and the Snowball names
 * libstemmer lacks, through the REST API: `_analyze` with inline and bare
 * filters, an index whose field stems with `kstem`, and the answers
 * OpenSearch 3.x gives for the stemmers Lucene 10 removed (dutch_kp,
 * lovins: no tokens; snowball Kp: 400). Expected KStem tokens came from
 * Lucene 4.10's KStemFilter. */
#include "api_test.h"

static void t_analyze(void **s) {
    (void)s;
    EXPECT("POST", "/_analyze",
           "{\"text\":\"Italians happier\",\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"kstem\"]}", 200,
           "{\"tokens\":[{\"token\":\"italy\",\"start_offset\":0,\"end_offset\":8,\"type\":\"<ALPHANUM>\","
           "\"position\":0},{\"token\":\"happy\",\"start_offset\":9,\"end_offset\":16,\"type\":\"<ALPHANUM>\","
           "\"position\":1}]}");
    EXPECT("POST", "/_analyze",
           "{\"text\":\"civilizations\",\"tokenizer\":\"standard\",\"filter\":[{\"type\":\"stemmer\","
           "\"language\":\"light_english\"}]}",
           200,
           "{\"tokens\":[{\"token\":\"civilization\",\"start_offset\":0,\"end_offset\":13,\"type\":\"<ALPHANUM>\","
           "\"position\":0}]}");
    EXPECT("POST", "/_analyze",
           "{\"text\":\"Haeuser\",\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",{\"type\":\"snowball\","
           "\"language\":\"German2\"}]}",
           200,
           "{\"tokens\":[{\"token\":\"haus\",\"start_offset\":0,\"end_offset\":7,\"type\":\"<ALPHANUM>\","
           "\"position\":0}]}");
    /* Lucene 10 removed Kp and Lovins */
    EXPECT("POST", "/_analyze",
           "{\"text\":\"de kinderen\",\"tokenizer\":\"standard\",\"filter\":[{\"type\":\"stemmer\","
           "\"language\":\"dutch_kp\"}]}",
           200, "{\"tokens\":[]}");
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"x\",\"tokenizer\":\"standard\",\"filter\":[{\"type\":\"snowball\",\"language\":\"Kp\"}]}",
               400, "\"type\":\"illegal_argument_exception\",\"reason\":\"Invalid stemmer class specified: Kp\"");
}

static void t_search(void **s) {
    (void)s;
    OK("PUT", "/ks",
       "{\"settings\":{\"analysis\":{\"analyzer\":{\"en\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\","
       "\"kstem\"]}}}},\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"analyzer\":\"en\"}}}}");
    OK("PUT", "/ks/_doc/1?refresh=true", "{\"t\":\"The calories of Italians\"}");
    EXPECT_HAS("POST", "/ks/_search", "{\"query\":{\"match\":{\"t\":\"calorie italy\"}}}", 200,
               "\"total\":{\"value\":1,\"relation\":\"eq\"}");
    EXPECT("POST", "/ks/_analyze", "{\"analyzer\":\"en\",\"text\":\"aging\"}", 200,
           "{\"tokens\":[{\"token\":\"age\",\"start_offset\":0,\"end_offset\":5,\"type\":\"<ALPHANUM>\","
           "\"position\":0}]}");
    OK("DELETE", "/ks", NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_analyze),
        cmocka_unit_test(t_search),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
