/*
 * test_api_analysis_scripting.c — the `condition` and
 * `predicate_token_filter` token filters through the REST API: OpenSearch's
 * modules/analysis-common yamlRestTest 60_analysis_scripting.yml (all four
 * tests: condition, condition-vars, script_filter, script_filter_position),
 * the Token getters as methods, an index analyzer using condition, and
 * the factories' errors (OpenSearch's ScriptedConditionTokenFilterFactory
 * and PredicateTokenFilterScriptFactory messages).
 */
#include "api_test.h"

#define W "{\"text\":\"Vorsprung Durch Technik\",\"tokenizer\":\"whitespace\",\"filter\":["

static void t_yaml(void **s) {
    (void)s;
    /* "condition" */
    EXPECT("POST", "/_analyze",
           W "{\"type\":\"condition\",\"filter\":[\"lowercase\"],\"script\":{\"source\":\"token.term.length() > 5\"}}]}",
           200,
           "{\"tokens\":[{\"token\":\"vorsprung\",\"start_offset\":0,\"end_offset\":9,\"type\":\"word\",\"position\":0},"
           "{\"token\":\"Durch\",\"start_offset\":10,\"end_offset\":15,\"type\":\"word\",\"position\":1},"
           "{\"token\":\"technik\",\"start_offset\":16,\"end_offset\":23,\"type\":\"word\",\"position\":2}]}");
    /* "condition-vars" */
    EXPECT_HAS("POST", "/_analyze",
               W "{\"type\":\"condition\",\"filter\":[\"lowercase\"],\"script\":{\"source\":\"token.position >= 1 && "
                 "token.positionIncrement > 0 && token.startOffset > 0 && token.endOffset > 0 && "
                 "(token.positionLength == 1 || token.type == \\\"a\\\" || token.keyword)\"}}]}",
               200,
               "{\"tokens\":[{\"token\":\"Vorsprung\",\"start_offset\":0,\"end_offset\":9,\"type\":\"word\",\"position\":0},"
               "{\"token\":\"durch\",");
    EXPECT_HAS("POST", "/_analyze",
               W "{\"type\":\"condition\",\"filter\":[\"lowercase\"],\"script\":{\"source\":\"token.position >= 1\"}}]}",
               200, "{\"token\":\"technik\",");
    /* "script_filter" */
    EXPECT("POST", "/_analyze",
           W "{\"type\":\"predicate_token_filter\",\"script\":{\"source\":\"token.term.length() > 5\"}}]}", 200,
           "{\"tokens\":[{\"token\":\"Vorsprung\",\"start_offset\":0,\"end_offset\":9,\"type\":\"word\",\"position\":0},"
           "{\"token\":\"Technik\",\"start_offset\":16,\"end_offset\":23,\"type\":\"word\",\"position\":2}]}");
    /* "script_filter_position" */
    EXPECT("POST", "/_analyze",
           "{\"text\":\"a b c d e f g h\",\"tokenizer\":\"whitespace\",\"filter\":[{\"type\":\"predicate_token_filter\","
           "\"script\":{\"source\":\"token.position >= 4\"}}]}",
           200,
           "{\"tokens\":[{\"token\":\"e\",\"start_offset\":8,\"end_offset\":9,\"type\":\"word\",\"position\":4},"
           "{\"token\":\"f\",\"start_offset\":10,\"end_offset\":11,\"type\":\"word\",\"position\":5},"
           "{\"token\":\"g\",\"start_offset\":12,\"end_offset\":13,\"type\":\"word\",\"position\":6},"
           "{\"token\":\"h\",\"start_offset\":14,\"end_offset\":15,\"type\":\"word\",\"position\":7}]}");
}

static void t_getters_and_index(void **s) {
    (void)s;
    /* the getters as methods; type names as Lucene's TypeAttribute */
    EXPECT("POST", "/_analyze",
           "{\"text\":\"a b 7\",\"tokenizer\":\"standard\",\"filter\":[{\"type\":\"predicate_token_filter\","
           "\"script\":{\"source\":\"token.getType() == '<NUM>' || (token.getTerm() == 'b' && !token.isKeyword() "
           "&& token.getPositionLength() == 1 && token.getStartOffset() == 2 && token.getEndOffset() == 3 && "
           "token.getPositionIncrement() == 1 && token.getPosition() == 1)\"}}]}",
           200,
           "{\"tokens\":[{\"token\":\"b\",\"start_offset\":2,\"end_offset\":3,\"type\":\"<ALPHANUM>\",\"position\":1},"
           "{\"token\":\"7\",\"start_offset\":4,\"end_offset\":5,\"type\":\"<NUM>\",\"position\":2}]}");
    /* a run of matching tokens goes through the chain as one stream */
    OK("PUT", "/ci",
       "{\"settings\":{\"analysis\":{\"filter\":{\"c\":{\"type\":\"condition\",\"filter\":[\"lowercase\",\"reverse\"],"
       "\"script\":{\"source\":\"token.term.length() > 3\"}}},\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\","
       "\"filter\":[\"c\"]}}}}}");
    EXPECT("POST", "/ci/_analyze", "{\"analyzer\":\"a\",\"text\":\"The Quick FOX jumps\"}", 200,
           "{\"tokens\":[{\"token\":\"The\",\"start_offset\":0,\"end_offset\":3,\"type\":\"word\",\"position\":0},"
           "{\"token\":\"kciuq\",\"start_offset\":4,\"end_offset\":9,\"type\":\"word\",\"position\":1},"
           "{\"token\":\"FOX\",\"start_offset\":10,\"end_offset\":13,\"type\":\"word\",\"position\":2},"
           "{\"token\":\"spmuj\",\"start_offset\":14,\"end_offset\":19,\"type\":\"word\",\"position\":3}]}");
    /* tokens a condition's chain removes leave their positions to the next */
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"a the b\",\"tokenizer\":\"whitespace\",\"filter\":[{\"type\":\"condition\",\"filter\":[\"stop\"],"
               "\"script\":{\"source\":\"token.term == 'the'\"}}]}",
               200, "{\"token\":\"b\",\"start_offset\":6,\"end_offset\":7,\"type\":\"word\",\"position\":2}");
}

static void t_errors(void **s) {
    (void)s;
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"a\",\"tokenizer\":\"whitespace\",\"filter\":[{\"type\":\"condition\",\"script\":{\"source\":\"true\"}}]}",
               400, "Empty list of filters provided to tokenfilter [__anonymous__condition]");
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"a\",\"tokenizer\":\"whitespace\",\"filter\":[{\"type\":\"condition\",\"filter\":[\"nope\"],"
               "\"script\":{\"source\":\"true\"}}]}",
               400, "ScriptedConditionTokenFilter [__anonymous__condition] refers to undefined token filter [nope]");
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"a\",\"tokenizer\":\"whitespace\",\"filter\":[{\"type\":\"predicate_token_filter\","
               "\"script\":{\"id\":\"x\"}}]}",
               400, "Cannot use stored scripts in tokenfilter [__anonymous__predicate_token_filter]");
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"a\",\"tokenizer\":\"whitespace\",\"filter\":[{\"type\":\"predicate_token_filter\"}]}", 400,
               "must specify either [source] for an inline script or [id] for a stored script");
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"a\",\"tokenizer\":\"whitespace\",\"filter\":[{\"type\":\"predicate_token_filter\","
               "\"script\":{\"source\":\"true\",\"lang\":\"expression\"}}]}",
               400, "script_lang not supported [expression]");
    /* a compile error is a script_exception caused by the parser's */
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"a\",\"tokenizer\":\"whitespace\",\"filter\":[{\"type\":\"predicate_token_filter\","
               "\"script\":{\"source\":\"token.term.length(\"}}]}",
               400, "\"type\":\"script_exception\",\"reason\":\"compile error\"");
    /* other contexts' globals do not resolve */
    EXPECT_HAS("POST", "/_analyze",
               "{\"text\":\"a\",\"tokenizer\":\"whitespace\",\"filter\":[{\"type\":\"predicate_token_filter\","
               "\"script\":{\"source\":\"ctx.x == 1\"}}]}",
               400, "cannot resolve symbol [ctx]");
    /* bare name: settings required */
    EXPECT_HAS("POST", "/_analyze", "{\"text\":\"a\",\"tokenizer\":\"whitespace\",\"filter\":[\"condition\"]}", 400,
               "Analysis settings required");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_yaml),
        cmocka_unit_test(t_getters_and_index),
        cmocka_unit_test(t_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
