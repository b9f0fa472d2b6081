/*
 * test_api_analysis_urls_html.c — the `classic` and `uax_url_email`
 * tokenizers and the `html_strip` char filter through the REST API:
 * OpenSearch's analysis-common YAML tests of them (30_tokenizers.yml
 * "classic" and "uax_url_email", 50_char_filters.yml "html_strip"), the
 * components used by an index's analyzer, and their settings errors.
 *
 * Expected tokens come from Lucene 4.10 (tests/analysis/LuceneOracle.java).
 */
#include "api_test.h"

static void t_classic(void **s) {
    (void)s;
    const char *want = "{\"tokens\":["
                       "{\"token\":\"Brown\",\"start_offset\":0,\"end_offset\":5,\"type\":\"<ALPHANUM>\",\"position\":0},"
                       "{\"token\":\"Foxes\",\"start_offset\":6,\"end_offset\":11,\"type\":\"<ALPHANUM>\",\"position\":1},"
                       "{\"token\":\"don't\",\"start_offset\":12,\"end_offset\":17,\"type\":\"<APOSTROPHE>\",\"position\":2},"
                       "{\"token\":\"jump\",\"start_offset\":18,\"end_offset\":22,\"type\":\"<ALPHANUM>\",\"position\":3}]}";
    EXPECT("POST", "/_analyze", "{\"tokenizer\":\"classic\",\"text\":\"Brown-Foxes don't jump.\"}", 200, want);
    EXPECT("POST", "/_analyze", "{\"tokenizer\":{\"type\":\"classic\"},\"text\":\"Brown-Foxes don't jump.\"}", 200,
           want);
    EXPECT_HAS("POST", "/_analyze", "{\"tokenizer\":\"classic\",\"text\":\"Brown\",\"explain\":true}", 200,
               "\"tokenizer\":{\"name\":\"classic\",\"tokens\":[{\"token\":\"Brown\"");
    /* with the classic filter, as the classic analyzers chain them */
    EXPECT("POST", "/_analyze", "{\"tokenizer\":\"classic\",\"filter\":[\"classic\"],\"text\":\"I.B.M. Smith's\"}", 200,
           "{\"tokens\":[{\"token\":\"IBM\",\"start_offset\":0,\"end_offset\":6,\"type\":\"<ACRONYM>\",\"position\":0},"
           "{\"token\":\"Smith\",\"start_offset\":7,\"end_offset\":14,\"type\":\"<APOSTROPHE>\",\"position\":1}]}");
    EXPECT_HAS("POST", "/_analyze", "{\"tokenizer\":{\"type\":\"classic\",\"max_token_length\":0},\"text\":\"a\"}", 400,
               "\"type\":\"illegal_argument_exception\",\"reason\":\"maxTokenLength must be greater than zero\"");
}

static void t_uax_url_email(void **s) {
    (void)s;
    const char *want =
        "{\"tokens\":[{\"token\":\"Email\",\"start_offset\":0,\"end_offset\":5,\"type\":\"<ALPHANUM>\",\"position\":0},"
        "{\"token\":\"me\",\"start_offset\":6,\"end_offset\":8,\"type\":\"<ALPHANUM>\",\"position\":1},"
        "{\"token\":\"at\",\"start_offset\":9,\"end_offset\":11,\"type\":\"<ALPHANUM>\",\"position\":2},"
        "{\"token\":\"john.smith@global-international.com\",\"start_offset\":12,\"end_offset\":47,\"type\":\"<EMAIL>\","
        "\"position\":3}]}";
    EXPECT("POST", "/_analyze",
           "{\"tokenizer\":\"uax_url_email\",\"text\":\"Email me at john.smith@global-international.com\"}", 200, want);
    EXPECT("POST", "/_analyze",
           "{\"tokenizer\":{\"type\":\"uax_url_email\"},\"text\":\"Email me at john.smith@global-international.com\"}",
           200, want);
    EXPECT("POST", "/_analyze", "{\"tokenizer\":\"uax_url_email\",\"text\":\"see https://example.org/a?b=1.\"}", 200,
           "{\"tokens\":[{\"token\":\"see\",\"start_offset\":0,\"end_offset\":3,\"type\":\"<ALPHANUM>\",\"position\":0},"
           "{\"token\":\"https://example.org/a?b=1.\",\"start_offset\":4,\"end_offset\":30,\"type\":\"<URL>\","
           "\"position\":1}]}");
    EXPECT_HAS("POST", "/_analyze",
               "{\"tokenizer\":{\"type\":\"uax_url_email\",\"max_token_length\":1048577},\"text\":\"a\"}", 400,
               "maxTokenLength may not exceed 1048576");
}

static void t_html_strip(void **s) {
    (void)s;
    /* 50_char_filters.yml "html_strip" */
    EXPECT("POST", "/_analyze",
           "{\"text\":\"<html>test<yyy>foo</yyy></html>\",\"tokenizer\":\"keyword\",\"char_filter\":[{\"type\":"
           "\"html_strip\",\"escaped_tags\":[\"xxx\",\"yyy\"],\"read_ahead\":1024}]}",
           200,
           "{\"tokens\":[{\"token\":\"\\ntest<yyy>foo</yyy>\\n\",\"start_offset\":0,\"end_offset\":31,\"type\":\"word\","
           "\"position\":0}]}");
    /* explain shows the filtered text */
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"<b>caf&eacute;</b>\",\"tokenizer\":\"standard\",\"char_filter\":[\"html_strip\"],"
               "\"explain\":true}",
               200, "\"charfilters\":[{\"name\":\"html_strip\",\"filtered_text\":[\"caf\xc3\xa9\"]}]");
    /* an index analyzer: offsets point into the HTML, so highlighting can use
     * them; a token's end extends over the tags removed right after it (Lucene's
     * BaseCharFilter correction), so the highlight closes after "</b>" */
    OK("PUT", "/h",
       "{\"settings\":{\"analysis\":{\"char_filter\":{\"strip\":{\"type\":\"html_strip\",\"escaped_tags\":\"code\"}},"
       "\"analyzer\":{\"html\":{\"tokenizer\":\"standard\",\"char_filter\":[\"strip\"],\"filter\":[\"lowercase\"]}}}},"
       "\"mappings\":{\"properties\":{\"body\":{\"type\":\"text\",\"analyzer\":\"html\"}}}}");
    EXPECT("POST", "/h/_analyze",
           "{\"analyzer\":\"html\",\"text\":\"<p>Hello <code>x</code> W&ouml;rld</p>\"}", 200,
           "{\"tokens\":[{\"token\":\"hello\",\"start_offset\":3,\"end_offset\":8,\"type\":\"<ALPHANUM>\",\"position\":0},"
           "{\"token\":\"code\",\"start_offset\":10,\"end_offset\":14,\"type\":\"<ALPHANUM>\",\"position\":1},"
           "{\"token\":\"x\",\"start_offset\":15,\"end_offset\":16,\"type\":\"<ALPHANUM>\",\"position\":2},"
           "{\"token\":\"code\",\"start_offset\":18,\"end_offset\":22,\"type\":\"<ALPHANUM>\",\"position\":3},"
           "{\"token\":\"w\xc3\xb6rld\",\"start_offset\":24,\"end_offset\":34,\"type\":\"<ALPHANUM>\",\"position\":4}]}");
    OK("PUT", "/h/_doc/1?refresh=true", "{\"body\":\"<p>The <b>quick</b> fox</p>\"}");
    EXPECT_HAS("POST", "/h/_search", "{\"query\":{\"match\":{\"body\":\"quick\"}},\"highlight\":{\"fields\":{\"body\":{}}}}",
               200, "\"highlight\":{\"body\":[\"<p>The <b><em>quick</b></em> fox</p>\"]}");
    OK("DELETE", "/h", NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_classic),
        cmocka_unit_test(t_uax_url_email),
        cmocka_unit_test(t_html_strip),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
