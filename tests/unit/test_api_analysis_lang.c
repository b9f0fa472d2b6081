/*
 * test_api_analysis_lang.c — the language analyzers of lang_*.c and
 * tok_thai.c through the REST layer: `_analyze` answers (positionLength
 * appears when a token spans more than one position, as OpenSearch's
 * AnalyzeToken prints it), analyzers configured in index settings, and a
 * text field analyzed in Thai found by a match query. Token values come
 * from Lucene 4.10 (the analysis oracle of tests/analysis).
 */
#include "api_test.h"
#include "text/text.h"

static void t_analyze_cjk(void **s) {
    (void)s;
    EXPECT("POST", "/_analyze",
           "{\"tokenizer\":\"standard\",\"filter\":[{\"type\":\"cjk_bigram\",\"output_unigrams\":true}],"
           "\"text\":\"中国\"}",
           200,
           "{\"tokens\":[{\"token\":\"中\",\"start_offset\":0,\"end_offset\":1,\"type\":\"<SINGLE>\","
           "\"position\":0},{\"token\":\"中国\",\"start_offset\":0,\"end_offset\":2,\"type\":\"<DOUBLE>\","
           "\"position\":0,\"positionLength\":2},{\"token\":\"国\",\"start_offset\":1,\"end_offset\":2,"
           "\"type\":\"<SINGLE>\",\"position\":1}]}");
    /* cjk_width composed the voiced marks: the term no longer spans its
     * offsets, so every bigram takes the whole token's (as Lucene does) */
    EXPECT("POST", "/_analyze", "{\"analyzer\":\"cjk\",\"text\":\"ｶﾞｲﾄﾞ\"}", 200,
           "{\"tokens\":[{\"token\":\"ガイ\",\"start_offset\":0,\"end_offset\":5,\"type\":\"<DOUBLE>\","
           "\"position\":0},{\"token\":\"イド\",\"start_offset\":0,\"end_offset\":5,\"type\":\"<DOUBLE>\","
           "\"position\":1}]}");
}

static void t_index_settings(void **s) {
    (void)s;
    OK("PUT", "/gr",
       "{\"settings\":{\"analysis\":{\"analyzer\":{\"el\":{\"type\":\"greek\",\"stopwords\":[\"ποδηλατεσ\"]},"
       "\"ru\":{\"type\":\"russian\",\"stem_exclusion\":[\"энергии\"]}}}}}");
    EXPECT("POST", "/gr/_analyze", "{\"analyzer\":\"el\",\"text\":\"Οι ποδηλάτες\"}", 200,
           "{\"tokens\":[{\"token\":\"οι\",\"start_offset\":0,\"end_offset\":2,\"type\":\"<ALPHANUM>\","
           "\"position\":0}]}");
    EXPECT("POST", "/gr/_analyze", "{\"analyzer\":\"ru\",\"text\":\"энергии энергия\"}", 200,
           "{\"tokens\":[{\"token\":\"энергии\",\"start_offset\":0,\"end_offset\":7,\"type\":\"<ALPHANUM>\","
           "\"position\":0},{\"token\":\"энерг\",\"start_offset\":8,\"end_offset\":15,\"type\":\"<ALPHANUM>\","
           "\"position\":1}]}");
    OK("DELETE", "/gr", NULL);
    /* bengali without stopwords: 400 when the build lacks Lucene 8's list */
    if (!tv_analyzer_builtin("bengali", 7))
        EXPECT_HAS("PUT", "/bn", "{\"settings\":{\"analysis\":{\"analyzer\":{\"b\":{\"type\":\"bengali\"}}}}}", 400,
                   "bn/stopwords.txt");
}

static void t_thai_field(void **s) {
    (void)s;
    /* not built (ICU's Thai words are not the JDK's): loud, not approximate */
    EXPECT_HAS("PUT", "/th", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"analyzer\":\"thai\"}}}}",
               400, "analyzer [thai] is not supported");
    EXPECT_HAS("POST", "/_analyze", "{\"analyzer\":\"thai\",\"text\":\"a\"}", 400, "analyzer [thai] is not supported");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_analyze_cjk),
        cmocka_unit_test(t_index_settings),
        cmocka_unit_test(t_thai_field),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
