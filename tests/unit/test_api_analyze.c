/*
 * test_api_analyze.c — the _analyze API beyond plain token lists: inline
 * tokenizer, filter and char filter definitions, explain (the detail of a
 * custom chain stage by stage, or a built-in analyzer's tokens, with the
 * extended attributes and the `attributes` filter), filters given without
 * a tokenizer (a keyword tokenizer, normalizing filters only), and
 * index.analyze.max_token_count.
 *
 * Expected bodies follow OpenSearch 3.x's TransportAnalyzeAction
 * (detailAnalyze, TokenListCreator, extractExtendedAttributes) and
 * AnalyzeAction's XContent; the bytes of a term print as Lucene's
 * BytesRef.toString. They were not checked against a running OpenSearch.
 */
#include "api_test.h"

static void t_inline_and_char_filters(void **s) {
    (void)s;
    EXPECT("POST", "/_analyze",
           "{\"tokenizer\":{\"type\":\"whitespace\",\"max_token_length\":4},"
           "\"char_filter\":[{\"type\":\"mapping\",\"mappings\":[\"& => and\"]}],"
           "\"filter\":[\"lowercase\",{\"type\":\"stop\",\"stopwords\":[\"and\"]}],\"text\":\"Tom & Jerrys\"}",
           200,
           "{\"tokens\":[{\"token\":\"tom\",\"start_offset\":0,\"end_offset\":3,\"type\":\"word\",\"position\":0},"
           "{\"token\":\"jerr\",\"start_offset\":6,\"end_offset\":10,\"type\":\"word\",\"position\":2},"
           "{\"token\":\"ys\",\"start_offset\":10,\"end_offset\":12,\"type\":\"word\",\"position\":3}]}");
    /* a char filter of the index, by name */
    OK("PUT", "/cf", "{\"settings\":{\"analysis\":{\"char_filter\":{\"amp\":{\"type\":\"mapping\",\"mappings\":[\"& => and\"]}}}}}");
    EXPECT("POST", "/cf/_analyze", "{\"tokenizer\":\"whitespace\",\"char_filter\":[\"amp\"],\"text\":\"a&b\"}", 200,
           "{\"tokens\":[{\"token\":\"aandb\",\"start_offset\":0,\"end_offset\":3,\"type\":\"word\",\"position\":0}]}");
    EXPECT_HAS("POST", "/_analyze", "{\"tokenizer\":\"whitespace\",\"char_filter\":[\"amp\"],\"text\":\"a\"}", 400,
               "failed to find global char_filter under [amp]");
    EXPECT("POST", "/_analyze", "{\"tokenizer\":\"whitespace\",\"char_filter\":[\"html_strip\"],\"text\":\"<b>a</b>\"}",
           200, "{\"tokens\":[{\"token\":\"a\",\"start_offset\":3,\"end_offset\":8,\"type\":\"word\",\"position\":0}]}");
    EXPECT_HAS("POST", "/_analyze", "{\"tokenizer\":\"whitespace\",\"char_filter\":[{\"type\":\"mapping\",\"mappings\":[\"a\"]}],\"text\":\"a\"}",
               500, "Line [1]: Invalid mapping rule : [a]");
    OK("DELETE", "/cf", NULL);
}

static void t_no_tokenizer(void **s) {
    (void)s;
    /* the whole text is one token, normalized */
    EXPECT("POST", "/_analyze", "{\"filter\":[\"lowercase\"],\"text\":\"Foo BAR\"}", 200,
           "{\"tokens\":[{\"token\":\"foo bar\",\"start_offset\":0,\"end_offset\":7,\"type\":\"word\",\"position\":0}]}");
    EXPECT_HAS("POST", "/_analyze", "{\"filter\":[\"porter_stem\"],\"text\":\"Foo\"}", 400,
               "Custom normalizer may not use filter [porter_stem]");
}

static void t_explain(void **s) {
    (void)s;
    EXPECT("POST", "/_analyze",
           "{\"tokenizer\":\"whitespace\",\"filter\":[\"lowercase\",\"porter_stem\"],\"text\":[\"A Running\",\"os\"],"
           "\"explain\":true}",
           200,
           "{\"detail\":{\"custom_analyzer\":true,\"charfilters\":[],"
           "\"tokenizer\":{\"name\":\"whitespace\",\"tokens\":["
           "{\"token\":\"A\",\"start_offset\":0,\"end_offset\":1,\"type\":\"word\",\"position\":0,\"bytes\":\"[41]\",\"positionLength\":1,\"termFrequency\":1},"
           "{\"token\":\"Running\",\"start_offset\":2,\"end_offset\":9,\"type\":\"word\",\"position\":1,\"bytes\":\"[52 75 6e 6e 69 6e 67]\",\"positionLength\":1,\"termFrequency\":1},"
           "{\"token\":\"os\",\"start_offset\":10,\"end_offset\":12,\"type\":\"word\",\"position\":2,\"bytes\":\"[6f 73]\",\"positionLength\":1,\"termFrequency\":1}]},"
           "\"tokenfilters\":[{\"name\":\"lowercase\",\"tokens\":["
           "{\"token\":\"a\",\"start_offset\":0,\"end_offset\":1,\"type\":\"word\",\"position\":0,\"bytes\":\"[61]\",\"positionLength\":1,\"termFrequency\":1},"
           "{\"token\":\"running\",\"start_offset\":2,\"end_offset\":9,\"type\":\"word\",\"position\":1,\"bytes\":\"[72 75 6e 6e 69 6e 67]\",\"positionLength\":1,\"termFrequency\":1},"
           "{\"token\":\"os\",\"start_offset\":10,\"end_offset\":12,\"type\":\"word\",\"position\":2,\"bytes\":\"[6f 73]\",\"positionLength\":1,\"termFrequency\":1}]},"
           "{\"name\":\"porter_stem\",\"tokens\":["
           "{\"token\":\"a\",\"start_offset\":0,\"end_offset\":1,\"type\":\"word\",\"position\":0,\"bytes\":\"[61]\",\"keyword\":false,\"positionLength\":1,\"termFrequency\":1},"
           "{\"token\":\"run\",\"start_offset\":2,\"end_offset\":9,\"type\":\"word\",\"position\":1,\"bytes\":\"[72 75 6e]\",\"keyword\":false,\"positionLength\":1,\"termFrequency\":1},"
           "{\"token\":\"os\",\"start_offset\":10,\"end_offset\":12,\"type\":\"word\",\"position\":2,\"bytes\":\"[6f 73]\",\"keyword\":false,\"positionLength\":1,\"termFrequency\":1}]}]}}");
    /* a built-in analyzer is one list; attributes keeps only those named */
    EXPECT("POST", "/_analyze",
           "{\"analyzer\":\"english\",\"text\":\"The foxes\",\"explain\":true,\"attributes\":[\"Keyword\"]}", 200,
           "{\"detail\":{\"custom_analyzer\":false,\"analyzer\":{\"name\":\"english\",\"tokens\":["
           "{\"token\":\"fox\",\"start_offset\":4,\"end_offset\":9,\"type\":\"<ALPHANUM>\",\"position\":1,\"keyword\":false}]}}}");
    /* a scalar names one attribute (its text): none of Lucene's */
    EXPECT("POST", "/_analyze", "{\"analyzer\":\"standard\",\"text\":\"ab\",\"explain\":true,\"attributes\":5}", 200,
           "{\"detail\":{\"custom_analyzer\":false,\"analyzer\":{\"name\":\"standard\",\"tokens\":["
           "{\"token\":\"ab\",\"start_offset\":0,\"end_offset\":2,\"type\":\"<ALPHANUM>\",\"position\":0}]}}}");
    /* inline components are anonymous; a char filter shows its texts */
    EXPECT("POST", "/_analyze",
           "{\"tokenizer\":{\"type\":\"keyword\"},\"char_filter\":[{\"type\":\"mapping\",\"mappings\":[\"x => y\"]}],"
           "\"filter\":[{\"type\":\"uppercase\"}],\"text\":[\"ax\",\"x\"],\"explain\":true,\"attributes\":[\"nothing\"]}",
           200,
           "{\"detail\":{\"custom_analyzer\":true,\"charfilters\":[{\"name\":\"__anonymous__mapping\",\"filtered_text\":[\"ay\",\"y\"]}],"
           "\"tokenizer\":{\"name\":\"__anonymous__keyword\",\"tokens\":["
           "{\"token\":\"ay\",\"start_offset\":0,\"end_offset\":2,\"type\":\"word\",\"position\":0},"
           "{\"token\":\"y\",\"start_offset\":3,\"end_offset\":4,\"type\":\"word\",\"position\":1}]},"
           "\"tokenfilters\":[{\"name\":\"__anonymous__uppercase\",\"tokens\":["
           "{\"token\":\"AY\",\"start_offset\":0,\"end_offset\":2,\"type\":\"word\",\"position\":0},"
           "{\"token\":\"Y\",\"start_offset\":3,\"end_offset\":4,\"type\":\"word\",\"position\":1}]}]}}");
}

static void t_max_token_count(void **s) {
    (void)s;
    OK("PUT", "/mt", "{\"settings\":{\"index.analyze.max_token_count\":2}}");
    OK("POST", "/mt/_analyze", "{\"analyzer\":\"standard\",\"text\":\"a b\"}");
    EXPECT("POST", "/mt/_analyze", "{\"analyzer\":\"standard\",\"text\":[\"a\",\"b c\"]}", 500,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_state_exception\",\"reason\":\"The number of tokens produced "
           "by calling _analyze has exceeded the allowed maximum of [2]. This limit can be set by changing the "
           "[index.analyze.max_token_count] index level setting.\"}],\"type\":\"illegal_state_exception\",\"reason\":"
           "\"The number of tokens produced by calling _analyze has exceeded the allowed maximum of [2]. This limit can "
           "be set by changing the [index.analyze.max_token_count] index level setting.\"},\"status\":500}");
    OK("DELETE", "/mt", NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_inline_and_char_filters),
        cmocka_unit_test(t_no_tokenizer),
        cmocka_unit_test(t_explain),
        cmocka_unit_test(t_max_token_count),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
