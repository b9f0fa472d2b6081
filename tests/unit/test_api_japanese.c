/*
 * test_api_japanese.c — Japanese search end to end through the REST API
 * (trove_request): an index whose text field uses the kuromoji analyzer,
 * Japanese documents indexed, match and match_phrase queries (the
 * analyzer drops particles and auxiliaries but keeps their positions, so
 * a phrase spans the gaps they leave; inflected forms meet at their base
 * form) and highlighting, whose fragments must put <em> on the original
 * characters (UTF-16 offsets, including a character outside the BMP).
 *
 * Token positions and base forms are Lucene's JapaneseAnalyzer's (search
 * mode, IPADIC); the unified highlighter marks each matching term of a
 * phrase on its own, as OpenSearch's does. Built without MeCab, the
 * index cannot be created (400 naming kuromoji).
 */
#include "api_test.h"

#ifdef TROVE_HAVE_MECAB

static void hits_are(const char *body, const char *want) {
    char *out, got[256];
    int st = req("POST", "/jp/_search", body, &out);
    if (st != 200) fail_msg("%s\n got %d %s", body, st, out);
    hit_list(out, false, got, sizeof got);
    if (strcmp(got, want) != 0) fail_msg("%s\n want hits [%s]\n got [%s] %s", body, want, got, out);
    free(out);
}

static int index_setup(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/jp",
       "{\"mappings\":{\"properties\":{\"body\":{\"type\":\"text\",\"analyzer\":\"kuromoji\"},"
       "\"tag\":{\"type\":\"keyword\"}}}}");
    OK("PUT", "/jp/_doc/1", "{\"body\":\"関西国際空港に行った\",\"tag\":\"a\"}");
    OK("PUT", "/jp/_doc/2", "{\"body\":\"東京で寿司を食べました。寿司はおいしい。\",\"tag\":\"b\"}");
    OK("PUT", "/jp/_doc/3", "{\"body\":\"𠮷野家で牛丼を食べた\",\"tag\":\"c\"}");
    OK("PUT", "/jp/_doc/4?refresh=true", "{\"body\":\"大阪の空港から東京へ飛んだ\",\"tag\":\"d\"}");
    return 0;
}

static void t_match(void **s) {
    (void)s;
    /* 食べました / 食べた both index the base form 食べる */
    hits_are("{\"query\":{\"match\":{\"body\":\"食べる\"}},\"sort\":[\"tag\"]}", "2,3");
    /* a particle alone is no query at all: の and を are removed */
    hits_are("{\"query\":{\"match\":{\"body\":\"を\"}}}", "");
    hits_are("{\"query\":{\"match\":{\"body\":{\"query\":\"空港 東京\",\"operator\":\"and\"}}}}", "4");
    hits_are("{\"query\":{\"match\":{\"body\":\"空港\"}},\"sort\":[\"tag\"]}", "1,4");
}

static void t_match_phrase(void **s) {
    (void)s;
    hits_are("{\"query\":{\"match_phrase\":{\"body\":\"国際空港\"}}}", "1");
    /* に (removed) leaves a gap between 空港 and 行く in the query and the document */
    hits_are("{\"query\":{\"match_phrase\":{\"body\":\"空港に行った\"}}}", "1");
    /* without the gap the terms are not adjacent */
    hits_are("{\"query\":{\"match_phrase\":{\"body\":\"空港行った\"}}}", "");
    hits_are("{\"query\":{\"match_phrase\":{\"body\":\"空港関西\"}}}", "");
    hits_are("{\"query\":{\"match_phrase\":{\"body\":\"空港から東京\"}}}", "4");
    hits_are("{\"query\":{\"match_phrase\":{\"body\":\"牛丼を食べた\"}}}", "3");
    /* slop lets the phrase's terms stand apart */
    hits_are("{\"query\":{\"match_phrase\":{\"body\":{\"query\":\"大阪東京\",\"slop\":3}}}}", "4");
    hits_are("{\"query\":{\"match_phrase\":{\"body\":{\"query\":\"大阪東京\",\"slop\":1}}}}", "");
}

static void t_highlight(void **s) {
    (void)s;
    EXPECT_HAS("POST", "/jp/_search",
               "{\"query\":{\"match_phrase\":{\"body\":\"国際空港\"}},\"highlight\":{\"fields\":{\"body\":{}}}}", 200,
               "\"highlight\":{\"body\":[\"関西<em>国際</em><em>空港</em>に行った\"]}");
    /* offsets after a character outside the BMP (two UTF-16 units; Jackson
     * writes such a character of a string it builds as two escapes) */
    EXPECT_HAS("POST", "/jp/_search",
               "{\"query\":{\"match_phrase\":{\"body\":\"牛丼を食べた\"}},\"highlight\":{\"fields\":{\"body\":{}}}}", 200,
               "\"highlight\":{\"body\":[\"\\uD842\\uDFB7野家で<em>牛</em><em>丼</em>を<em>食べ</em>た\"]}");
    /* every occurrence, the inflected form highlighted as written */
    EXPECT_HAS("POST", "/jp/_search",
               "{\"query\":{\"match\":{\"body\":\"寿司を食べる\"}},\"highlight\":{\"fields\":{\"body\":{}}},"
               "\"sort\":[\"tag\"]}",
               200, "\"highlight\":{\"body\":[\"東京で<em>寿司</em>を<em>食べ</em>ました。<em>寿司</em>はおいしい。\"]}");
    /* custom tags and a small fragment size still cut on the original text */
    EXPECT_HAS("POST", "/jp/_search",
               "{\"query\":{\"match\":{\"body\":\"空港\"}},\"highlight\":{\"pre_tags\":[\"[\"],\"post_tags\":[\"]\"],"
               "\"fields\":{\"body\":{}}},\"sort\":[\"tag\"]}",
               200, "\"highlight\":{\"body\":[\"大阪の[空港]から東京へ飛んだ\"]}");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_match),
        cmocka_unit_test(t_match_phrase),
        cmocka_unit_test(t_highlight),
    };
    return cmocka_run_group_tests(tests, index_setup, teardown);
}

#else

static void t_unsupported(void **s) {
    (void)s;
    EXPECT_HAS("PUT", "/jp", "{\"mappings\":{\"properties\":{\"body\":{\"type\":\"text\",\"analyzer\":\"kuromoji\"}}}}",
               400, "kuromoji");
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(t_unsupported)};
    return cmocka_run_group_tests(tests, setup, teardown);
}

#endif
