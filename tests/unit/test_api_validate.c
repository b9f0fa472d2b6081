/*
 * test_api_validate.c — _validate/query through trove_request: valid and
 * invalid queries, request-level and shard-level errors, URI search, the
 * explain / rewrite strings (Lucene's Query.toString of what OpenSearch
 * builds), several indices, missing indices, and the refusals.
 *
 * The expected bodies are derived from OpenSearch 3.x's sources
 * (RestValidateQueryAction, TransportValidateQueryAction,
 * ValidateQueryResponse, QueryExplanation, OpenSearchException's
 * toString / getDetailedMessage, ExceptionsHelper.detailedMessage), its
 * YAML test indices.validate_query/10_basic.yml (the match_all
 * explanation, "unknown query [..] did you mean [bool]?", "request does not
 * support [match_all]") and Lucene 10's toString methods; they were not
 * checked against a running OpenSearch.
 */
#include "api_test.h"

/* index uuids vary: "[v1/<uuid>]" becomes "[v1/X]" */
static char *unuuid(char *s) {
    char *o = s;
    for (char *p = s; *p;) {
        if (p[0] == '[' && p[1] == 'v' && (p[2] == '1' || p[2] == '2') && p[3] == '/') {
            memcpy(o, p, 4);
            o += 4;
            p += 4;
            while (*p && *p != ']') p++;
            *o++ = 'X';
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
    return s;
}

#define V(m, p, b, st, want)                                                               \
    do {                                                                                   \
        char *got_;                                                                        \
        int s_ = req((m), (p), (b), &got_);                                                \
        unuuid(got_);                                                                      \
        if (s_ != (st) || strcmp(got_, (want)) != 0)                                       \
            fail_msg("%s %s %s\n want %d %s\n got  %d %s", (m), (p), (b) ? (b) : "", (st), (want), s_, got_); \
        free(got_);                                                                        \
    } while (0)

#define SH1 "{\"_shards\":{\"total\":1,\"successful\":1,\"failed\":0},"

/* the explanation of one query on v1 */
#define EXPL(qs, query, want) \
    V("POST", "/v1/_validate/query" qs, "{\"query\":" query "}", 200, \
      SH1 "\"valid\":true,\"explanations\":[{\"index\":\"v1\",\"valid\":true,\"explanation\":\"" want "\"}]}")

static int setup_v(void **s) {
    if (setup(s)) return -1;
    const char *m = "{\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"},\"tag\":{\"type\":\"keyword\"},"
                    "\"n\":{\"type\":\"long\"},\"year\":{\"type\":\"integer\"}}}}";
    OK("PUT", "/v1", m);
    OK("PUT", "/v2", "{\"mappings\":{\"properties\":{\"title\":{\"type\":\"keyword\"},\"n\":{\"type\":\"long\"}}}}");
    OK("PUT", "/v1/_doc/1?refresh=true", "{\"title\":\"the quick brown fox\",\"tag\":\"a\",\"n\":3,\"year\":2001}");
    OK("PUT", "/v2/_doc/1?refresh=true", "{\"title\":\"x\",\"n\":3}");
    return 0;
}

static void t_valid(void **s) {
    (void)s;
    V("GET", "/v1/_validate/query", NULL, 200, SH1 "\"valid\":true}");
    V("POST", "/v1/_validate/query", "{\"query\":{\"match\":{\"title\":\"fox\"}}}", 200, SH1 "\"valid\":true}");
    V("GET", "/v1/_validate/query?q=title:fox", NULL, 200, SH1 "\"valid\":true}");
    V("GET", "/v1,v2/_validate/query", NULL, 200, "{\"_shards\":{\"total\":2,\"successful\":2,\"failed\":0},\"valid\":true}");
    V("GET", "/_validate/query", NULL, 200, "{\"_shards\":{\"total\":2,\"successful\":2,\"failed\":0},\"valid\":true}");
    /* the YAML test's last case: no body, explain */
    V("GET", "/v1/_validate/query?explain=true", NULL, 200,
      SH1 "\"valid\":true,\"explanations\":[{\"index\":\"v1\",\"valid\":true,\"explanation\":"
          "\"ApproximateScoreQuery(originalQuery=*:*, approximationQuery=Approximate(*:*))\"}]}");
    /* all_shards: the shard id, and the explanation even without explain */
    V("GET", "/v1/_validate/query?all_shards=true", NULL, 200,
      SH1 "\"valid\":true,\"explanations\":[{\"index\":\"v1\",\"shard\":0,\"valid\":true,\"explanation\":"
          "\"ApproximateScoreQuery(originalQuery=*:*, approximationQuery=Approximate(*:*))\"}]}");
}

static void t_request_errors(void **s) {
    (void)s;
    V("POST", "/v1/_validate/query", "{\"query\":{\"invalid_query\":{}}}", 200, "{\"valid\":false}");
    V("POST", "/v1/_validate/query?explain=true", "{\"query\":{\"invalid_query\":{}}}", 200,
      "{\"valid\":false,\"error\":\"ParsingException[unknown query [invalid_query]]; nested: "
      "NamedObjectNotFoundException[[1:27] unknown field [invalid_query]];; "
      "org.opensearch.core.xcontent.NamedObjectNotFoundException: [1:27] unknown field [invalid_query]\"}");
    V("POST", "/v1/_validate/query?explain=true", "{\"query\":{\"boool\":{}}}", 200,
      "{\"valid\":false,\"error\":\"ParsingException[unknown query [boool] did you mean [bool]?]; nested: "
      "NamedObjectNotFoundException[[1:19] unknown field [boool]];; "
      "org.opensearch.core.xcontent.NamedObjectNotFoundException: [1:19] unknown field [boool]\"}");
    V("POST", "/v1/_validate/query", "{\"match_all\":{}}", 200, "{\"valid\":false}");
    V("POST", "/v1/_validate/query?explain=true", "{\"match_all\":{}}", 200,
      "{\"valid\":false,\"error\":\"ParsingException[request does not support [match_all]]\"}");
    V("POST", "/v1/_validate/query?explain=true", "{\"query\":{\"match_all\":{}},\"size\":1}", 200,
      "{\"valid\":false,\"error\":\"ParsingException[request does not support [size]]\"}");
    V("POST", "/v1/_validate/query?explain=true", "{\"query\":null}", 200,
      "{\"valid\":false,\"error\":\"ParsingException[[_na] query malformed, must start with start_object]\"}");
    V("POST", "/v1/_validate/query?explain=true", "[1]", 200,
      "{\"valid\":false,\"error\":\"ParsingException[Expected [START_OBJECT] but found [START_ARRAY]]\"}");
    V("POST", "/v1/_validate/query", "not json", 200, "{\"valid\":false}");
    V("POST", "/v1/_validate/query", "{}", 400,
      "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation Failed: "
      "1: query cannot be null;\"}],\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
      "Failed: 1: query cannot be null;\"},\"status\":400}");
    V("GET", "/v1/_validate/query?q=x&default_operator=xor&explain=true", NULL, 200,
      "{\"valid\":false,\"error\":\"No enum constant org.opensearch.index.query.Operator.XOR\"}");
}

static void t_shard_errors(void **s) {
    (void)s;
    const char *b = "{\"query\":{\"term\":{\"n\":\"abc\"}}}";
    V("POST", "/v1/_validate/query", b, 200, SH1 "\"valid\":false}");
    V("POST", "/v1/_validate/query?explain=true", b, 200,
      SH1 "\"valid\":false,\"explanations\":[{\"index\":\"v1\",\"valid\":false,\"error\":\"[v1/X] "
          "QueryShardException[failed to create query: For input string: \\\"abc\\\"]; nested: "
          "NumberFormatException[For input string: \\\"abc\\\"];; java.lang.NumberFormatException: For input "
          "string: \\\"abc\\\"\"}]}");
    /* one index maps the field as text, the other as long */
    V("POST", "/v1,v2/_validate/query?explain=true", "{\"query\":{\"term\":{\"title\":\"fox\"}}}", 200,
      "{\"_shards\":{\"total\":2,\"successful\":2,\"failed\":0},\"valid\":true,\"explanations\":["
      "{\"index\":\"v1\",\"valid\":true,\"explanation\":\"title:fox\"},"
      "{\"index\":\"v2\",\"valid\":true,\"explanation\":\"ConstantScore(title:fox)\"}]}");
    V("POST", "/v1,v2/_validate/query", "{\"query\":{\"term\":{\"year\":\"abc\"}}}", 200,
      "{\"_shards\":{\"total\":2,\"successful\":2,\"failed\":0},\"valid\":false}");
}

static void t_missing(void **s) {
    (void)s;
    EXPECT_HAS("GET", "/nope/_validate/query", NULL, 404, "\"type\":\"index_not_found_exception\"");
    V("GET", "/nope/_validate/query?ignore_unavailable=true", NULL, 200,
      "{\"_shards\":{\"total\":0,\"successful\":0,\"failed\":0},\"valid\":true}");
    EXPECT_HAS("GET", "/v1/_validate/query?explainn=true", NULL, 400, "did you mean [explain]?");
    EXPECT_STATUS("DELETE", "/v1/_validate/query", NULL, 405);
}

static void t_explain(void **s) {
    (void)s;
    EXPL("?explain=true", "{\"match_all\":{}}", "ApproximateScoreQuery(originalQuery=*:*, approximationQuery=Approximate(*:*))");
    EXPL("?explain=true", "{\"match_all\":{\"boost\":2}}", "(ApproximateScoreQuery(originalQuery=*:*, approximationQuery=Approximate(*:*)))^2.0");
    EXPL("?explain=true", "{\"bool\":{}}", "ApproximateScoreQuery(originalQuery=*:*, approximationQuery=Approximate(*:*))");
    EXPL("?explain=true", "{\"match_none\":{}}", "MatchNoDocsQuery(\\\"User requested \\\"match_none\\\" query.\\\")");
    EXPL("?explain=true", "{\"term\":{\"nope\":\"x\"}}", "MatchNoDocsQuery(\\\"User requested \\\"match_none\\\" query.\\\")");
    EXPL("?explain=true", "{\"match\":{\"nope\":\"x\"}}", "MatchNoDocsQuery(\\\"unmapped fields [nope]\\\")");
    EXPL("?explain=true", "{\"term\":{\"title\":\"fox\"}}", "title:fox");
    EXPL("?explain=true", "{\"term\":{\"tag\":\"a\"}}", "ConstantScore(tag:a)");
    EXPL("?explain=true", "{\"term\":{\"tag\":{\"value\":\"a\",\"boost\":2}}}", "(ConstantScore(tag:a))^2.0");
    EXPL("?explain=true", "{\"term\":{\"year\":2001}}", "IndexOrDocValuesQuery(indexQuery=year:[2001 TO 2001], dvQuery=year:[2001 TO 2001])");
    EXPL("?explain=true", "{\"term\":{\"n\":-7}}", "IndexOrDocValuesQuery(indexQuery=n:[-7 TO -7], dvQuery=n:[-7 TO -7])");
    EXPL("?explain=true", "{\"match\":{\"title\":\"Quick Fox\"}}", "title:quick title:fox");
    EXPL("?explain=true", "{\"match\":{\"title\":{\"query\":\"quick fox\",\"operator\":\"and\"}}}", "+title:quick +title:fox");
    EXPL("?explain=true", "{\"match\":{\"title\":{\"query\":\"a b c\",\"minimum_should_match\":2}}}", "(title:a title:b title:c)~2");
    EXPL("?explain=true", "{\"match\":{\"title\":{\"query\":\"quick fox\",\"boost\":1.5}}}", "(title:quick title:fox)^1.5");
    EXPL("?explain=true", "{\"match\":{\"tag\":\"a\"}}", "ConstantScore(tag:a)");
    EXPL("?explain=true", "{\"match_phrase\":{\"title\":\"quick fox\"}}", "title:\\\"quick fox\\\"");
    EXPL("?explain=true", "{\"match_phrase\":{\"title\":{\"query\":\"quick fox\",\"slop\":2}}}", "title:\\\"quick fox\\\"~2");
    EXPL("?explain=true", "{\"terms\":{\"tag\":[\"b\",\"a\"]}}", "tag:(a b)");
    EXPL("?explain=true", "{\"prefix\":{\"tag\":\"a\"}}", "tag:a*");
    EXPL("?explain=true", "{\"constant_score\":{\"filter\":{\"term\":{\"title\":\"fox\"}},\"boost\":3}}", "(ConstantScore(title:fox))^3.0");
    EXPL("?explain=true", "{\"dis_max\":{\"queries\":[{\"term\":{\"title\":\"fox\"}}],\"tie_breaker\":0.5}}", "(title:fox)~0.5");
    EXPL("?explain=true", "{\"bool\":{\"must\":[{\"term\":{\"title\":\"fox\"}}],\"should\":[{\"term\":{\"tag\":\"a\"}}],"
         "\"must_not\":[{\"term\":{\"title\":\"dog\"}}],\"filter\":[{\"term\":{\"tag\":\"b\"}}]}}",
         "+title:fox -title:dog ConstantScore(tag:a) #ConstantScore(tag:b)");
    EXPL("?explain=true", "{\"bool\":{\"must_not\":[{\"term\":{\"tag\":\"a\"}}]}}", "-ConstantScore(tag:a) #*:*");
    EXPL("?explain=true", "{\"bool\":{\"should\":[{\"match\":{\"title\":\"quick fox\"}},{\"term\":{\"title\":\"x\"}}],\"boost\":2}}",
         "((title:quick title:fox) title:x)^2.0");
    EXPL("?explain=true", "{\"bool\":{\"must\":[{\"term\":{\"year\":2001}}],\"should\":[{\"term\":{\"title\":\"a\"}},{\"term\":{\"title\":\"b\"}}],\"minimum_should_match\":1}}",
         "(title:a title:b #IndexOrDocValuesQuery(indexQuery=year:[2001 TO 2001], dvQuery=year:[2001 TO 2001]))~1");
}

static void t_rewrite(void **s) {
    (void)s;
    EXPL("?rewrite=true", "{\"prefix\":{\"tag\":\"a\"}}", "tag:a*");
    EXPL("?rewrite=true", "{\"bool\":{\"must_not\":[{\"term\":{\"tag\":\"a\"}}]}}", "-tag:a #*:*");
    EXPL("?rewrite=true", "{\"bool\":{\"filter\":[{\"term\":{\"tag\":\"a\"}}]}}", "(ConstantScore(tag:a))^0.0");
    EXPL("?rewrite=true", "{\"bool\":{\"must\":[{\"match\":{\"title\":\"quick fox\"}}]}}", "title:quick title:fox");
    EXPL("?rewrite=true", "{\"match_all\":{}}", "ApproximateScoreQuery(originalQuery=*:*, approximationQuery=Approximate(*:*))");
    EXPL("?rewrite=true", "{\"match_all\":{\"boost\":2}}", "(*:*)^2.0");
    EXPL("?rewrite=true", "{\"constant_score\":{\"filter\":{\"term\":{\"tag\":\"a\"}}}}", "ConstantScore(tag:a)");
    /* a rewrite to MatchNoDocsQuery prints the parsed query */
    EXPL("?rewrite=true", "{\"bool\":{\"must\":[{\"match_none\":{}}],\"should\":[{\"term\":{\"title\":\"x\"}}]}}",
         "+MatchNoDocsQuery(\\\"User requested \\\"match_none\\\" query.\\\") title:x");
}

static void t_unsupported(void **s) {
    (void)s;
    EXPECT_HAS("POST", "/v1/_validate/query?explain=true", "{\"query\":{\"range\":{\"n\":{\"gte\":1}}}}", 400,
               "\"type\":\"unsupported_operation_exception\",\"reason\":\"trove cannot print the [explain] of [range] in _validate/query as Lucene does\"");
    EXPECT_HAS("POST", "/v1/_validate/query?explain=true",
               "{\"query\":{\"dis_max\":{\"queries\":[{\"term\":{\"title\":\"a\"}},{\"term\":{\"title\":\"b\"}}]}}}", 400,
               "[explain] of [dis_max]");
    EXPECT_HAS("POST", "/v1/_validate/query?explain=true", "{\"query\":{\"wildcard\":{\"tag\":\"a*b\"}}}", 400, "[explain] of [wildcard]");
    EXPECT_HAS("POST", "/v1/_validate/query?explain=true", "{\"query\":{\"exists\":{\"field\":\"tag\"}}}", 400, "[explain] of [exists]");
    EXPECT_HAS("GET", "/v1/_validate/query?q=x&lenient=true", NULL, 400, "unsupported_operation_exception");
    /* without explain the same queries validate */
    V("POST", "/v1/_validate/query", "{\"query\":{\"range\":{\"n\":{\"gte\":1}}}}", 200, SH1 "\"valid\":true}");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_valid),        cmocka_unit_test(t_request_errors), cmocka_unit_test(t_shard_errors),
        cmocka_unit_test(t_missing),      cmocka_unit_test(t_explain),        cmocka_unit_test(t_rewrite),
        cmocka_unit_test(t_unsupported),
    };
    return cmocka_run_group_tests(tests, setup_v, teardown);
}
