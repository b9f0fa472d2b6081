/*
 * test_api_kuromoji.c — Japanese analysis through the REST API
 * (trove_request): _analyze with the kuromoji analyzer, tokenizer and
 * filters (OpenSearch's plugins/analysis-kuromoji yamlRestTest
 * 10_basic.yml, the parts trove implements), positionLength in _analyze,
 * an index whose text field uses the kuromoji analyzer (match queries and
 * highlighting, whose UTF-16 offsets must land on the original text), and
 * the plugin listed by _cat/plugins and _nodes/plugins.
 *
 * Expected tokens are Lucene's (4.10 via jshell; the analyzer without the
 * compound token, as Lucene 10's JapaneseAnalyzer). Built without MeCab,
 * the kuromoji names answer 400.
 */
#include "api_test.h"

#ifdef TROVE_HAVE_MECAB

static void t_analyze(void **s) {
    (void)s;
    /* 10_basic.yml "Analyzer" */
    EXPECT_HAS("POST", "/_analyze", "{\"text\":\"JR新宿駅の近くにビールを飲みに行こうか\",\"analyzer\":\"kuromoji\"}", 200,
               "{\"tokens\":[{\"token\":\"jr\",\"start_offset\":0,\"end_offset\":2,\"type\":\"word\",\"position\":0},"
               "{\"token\":\"新宿\",\"start_offset\":2,\"end_offset\":4,\"type\":\"word\",\"position\":1},"
               "{\"token\":\"駅\",\"start_offset\":4,\"end_offset\":5,\"type\":\"word\",\"position\":2},"
               "{\"token\":\"近く\",\"start_offset\":6,\"end_offset\":8,\"type\":\"word\",\"position\":4},"
               "{\"token\":\"ビール\",\"start_offset\":9,\"end_offset\":12,\"type\":\"word\",\"position\":6},"
               "{\"token\":\"飲む\",\"start_offset\":13,\"end_offset\":15,\"type\":\"word\",\"position\":8},"
               "{\"token\":\"行く\",\"start_offset\":16,\"end_offset\":18,\"type\":\"word\",\"position\":10}]}");
    /* "Tokenizer": search mode emits the compound with its positionLength */
    EXPECT("POST", "/_analyze", "{\"text\":\"関西国際空港\",\"tokenizer\":\"kuromoji_tokenizer\"}", 200,
           "{\"tokens\":[{\"token\":\"関西\",\"start_offset\":0,\"end_offset\":2,\"type\":\"word\",\"position\":0},"
           "{\"token\":\"関西国際空港\",\"start_offset\":0,\"end_offset\":6,\"type\":\"word\",\"position\":0,\"positionLength\":3},"
           "{\"token\":\"国際\",\"start_offset\":2,\"end_offset\":4,\"type\":\"word\",\"position\":1},"
           "{\"token\":\"空港\",\"start_offset\":4,\"end_offset\":6,\"type\":\"word\",\"position\":2}]}");
    /* "Baseform filter", "Reading filter", "Stemming filter" */
    EXPECT_HAS("POST", "/_analyze", "{\"text\":\"飲み\",\"tokenizer\":\"kuromoji_tokenizer\",\"filter\":[\"kuromoji_baseform\"]}",
               200, "{\"tokens\":[{\"token\":\"飲む\",");
    EXPECT_HAS("POST", "/_analyze", "{\"text\":\"寿司\",\"tokenizer\":\"kuromoji_tokenizer\",\"filter\":[\"kuromoji_readingform\"]}",
               200, "{\"tokens\":[{\"token\":\"スシ\",");
    EXPECT_HAS("POST", "/_analyze", "{\"text\":\"サーバー\",\"tokenizer\":\"kuromoji_tokenizer\",\"filter\":[\"kuromoji_stemmer\"]}",
               200, "{\"tokens\":[{\"token\":\"サーバ\",");
    /* inline tokenizer settings; a surrogate pair counts two UTF-16 units */
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"𠮷野家で\",\"tokenizer\":{\"type\":\"kuromoji_tokenizer\",\"mode\":\"normal\"}}", 200,
               "\"token\":\"で\",\"start_offset\":4,\"end_offset\":5");
    /* what trove lacks answers 400 naming it */
    EXPECT_HAS("PUT", "/jc", "{\"settings\":{\"analysis\":{\"analyzer\":{\"c\":{\"type\":\"kuromoji_completion\"}}}}}",
               400, "unsupported_operation_exception");
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"寿司\",\"tokenizer\":\"kuromoji_tokenizer\",\"filter\":[{\"type\":\"kuromoji_readingform\",\"use_romaji\":true}]}",
               200, "{\"tokens\":[{\"token\":\"sushi\",\"start_offset\":0,\"end_offset\":2,");
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"寿司\",\"tokenizer\":{\"type\":\"kuromoji_tokenizer\",\"mode\":\"quick\"}}", 400,
               "No enum constant org.apache.lucene.analysis.ja.JapaneseTokenizer.Mode.QUICK");
}

static void t_index_search_highlight(void **s) {
    (void)s;
    OK("PUT", "/ja",
       "{\"settings\":{\"analysis\":{\"analyzer\":{\"ja_normal\":{\"type\":\"kuromoji\",\"mode\":\"normal\"}}}},"
       "\"mappings\":{\"properties\":{\"body\":{\"type\":\"text\",\"analyzer\":\"kuromoji\"},"
       "\"title\":{\"type\":\"text\",\"analyzer\":\"ja_normal\"}}}}");
    OK("PUT", "/ja/_doc/1", "{\"body\":\"関西国際空港に行った\",\"title\":\"関西国際空港\"}");
    OK("PUT", "/ja/_doc/2", "{\"body\":\"ｻｰﾊﾞｰのﾊﾟﾌｫｰﾏﾝｽを改善した\",\"title\":\"サーバー\"}");
    OK("PUT", "/ja/_doc/3?refresh=true", "{\"body\":\"𠮷野家で牛丼を食べた\",\"title\":\"牛丼\"}");
    char got[256];
    char *out;
    /* the inflected form matches its base form; stop words and particles are gone */
    assert_int_equal(req("POST", "/ja/_search", "{\"query\":{\"match\":{\"body\":\"行く\"}}}", &out), 200);
    hit_list(out, false, got, sizeof got);
    assert_string_equal(got, "1");
    free(out);
    /* half-width katakana folds and the long vowel mark is stemmed */
    assert_int_equal(req("POST", "/ja/_search", "{\"query\":{\"match\":{\"body\":\"サーバ\"}}}", &out), 200);
    hit_list(out, false, got, sizeof got);
    assert_string_equal(got, "2");
    free(out);
    /* normal mode keeps the compound whole: its parts do not match */
    assert_int_equal(req("POST", "/ja/_search", "{\"query\":{\"match\":{\"title\":\"空港\"}}}", &out), 200);
    hit_list(out, false, got, sizeof got);
    assert_string_equal(got, "");
    free(out);
    /* highlighting: offsets fall on the original characters */
    EXPECT_HAS("POST", "/ja/_search",
               "{\"query\":{\"match\":{\"body\":\"空港\"}},\"highlight\":{\"fields\":{\"body\":{}}}}", 200,
               "\"highlight\":{\"body\":[\"関西国際<em>空港</em>に行った\"]}");
    EXPECT_HAS("POST", "/ja/_search",
               "{\"query\":{\"match\":{\"body\":\"サーバー\"}},\"highlight\":{\"fields\":{\"body\":{}}}}", 200,
               "\"highlight\":{\"body\":[\"<em>ｻｰﾊﾞｰ</em>のﾊﾟﾌｫｰﾏﾝｽを改善した\"]}");
    EXPECT_HAS("POST", "/ja/_search",
               "{\"query\":{\"match\":{\"body\":\"牛丼\"}},\"highlight\":{\"fields\":{\"body\":{}}}}", 200,
               "野家で<em>牛</em><em>丼</em>を食べた\"]}"); /* 牛 and 丼 are two words */
    /* the index's analyzer through _analyze */
    EXPECT_HAS("POST", "/ja/_analyze", "{\"analyzer\":\"ja_normal\",\"text\":\"関西国際空港\"}", 200,
               "{\"tokens\":[{\"token\":\"関西国際空港\",\"start_offset\":0,\"end_offset\":6,");
    OK("DELETE", "/ja", NULL);
}

static void t_plugins(void **s) {
    (void)s;
    EXPECT_HAS("GET", "/_cat/plugins?h=component", NULL, 200, "analysis-kuromoji\n");
    EXPECT_HAS("GET", "/_nodes/plugins", NULL, 200,
               "{\"name\":\"analysis-kuromoji\",\"version\":\"" TROVE_OPENSEARCH_VERSION "\"");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_analyze),
        cmocka_unit_test(t_index_search_highlight),
        cmocka_unit_test(t_plugins),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

#else

static void t_unsupported(void **s) {
    (void)s;
    EXPECT_HAS("POST", "/_analyze", "{\"text\":\"寿司\",\"analyzer\":\"kuromoji\"}", 400,
               "unsupported_operation_exception");
    EXPECT("GET", "/_cat/plugins", NULL, 200, "");
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(t_unsupported)};
    return cmocka_run_group_tests(tests, setup, teardown);
}

#endif
