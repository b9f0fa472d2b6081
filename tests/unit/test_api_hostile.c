/*
 * test_api_hostile.c — requests that once took the server down, each kept
 * as a regression test (issue 15: no request can take trove down).
 *
 * Each case is one request against a node holding a small index of the
 * common field types; it asserts the status and a part of the body (the
 * error's type and reason), so a fix that turns a crash into the wrong
 * answer fails too. Inputs the fuzzers found go into their corpora as
 * well; a case here says what the user sees.
 */
#include "api_test.h"

static int load(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/h",
       "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\"},\"k\":{\"type\":\"keyword\"},\"n\":{\"type\":\"long\"},"
       "\"d\":{\"type\":\"date\"},\"f\":{\"type\":\"double\"},\"o\":{\"type\":\"nested\",\"properties\":{\"x\":{\"type\":\"keyword\"}}}}}}");
    OK("POST", "/h/_bulk?refresh=true",
       "{\"index\":{\"_id\":\"1\"}}\n{\"t\":\"quick fox\",\"k\":\"a\",\"n\":1,\"d\":\"2020-01-01\",\"f\":1.5,\"o\":[{\"x\":\"p\"}]}\n"
       "{\"index\":{\"_id\":\"2\"}}\n{\"t\":\"lazy dog\",\"k\":\"b\",\"n\":2,\"d\":\"2021-06-01\",\"f\":-2.5}\n");
    return 0;
}

/* A negative rescore window crashed the server: the window, read as a
 * size_t, overflowed the collector's allocation. */
static void test_rescore_window(void **s) {
    (void)s;
    const char *neg = "{\"query\":{\"match\":{\"t\":\"fox\"}},\"rescore\":{\"window_size\":-1,"
                      "\"query\":{\"rescore_query\":{\"match\":{\"t\":\"quick\"}}}}}";
    EXPECT_HAS("POST", "/h/_search", neg, 400,
               "\"type\":\"search_phase_execution_exception\",\"reason\":\"all shards failed\"");
    EXPECT_HAS("POST", "/h/_search", neg, 400,
               "{\"type\":\"illegal_argument_exception\",\"reason\":\"Rescore window [-1] must be greater than or equal to 0\"}");
    EXPECT_HAS("POST", "/h/_search?size=0", neg, 400, "Rescore window [-1]");
    /* the smallest int, and the two neighbours of the limit */
    EXPECT_HAS("POST", "/h/_search",
               "{\"rescore\":{\"window_size\":-2147483648,\"query\":{\"rescore_query\":{\"match_all\":{}}}}}", 400,
               "Rescore window [-2147483648] must be greater than or equal to 0");
    EXPECT_HAS("POST", "/h/_search",
               "{\"rescore\":{\"window_size\":10001,\"query\":{\"rescore_query\":{\"match_all\":{}}}}}", 400,
               "Rescore window [10001] is too large. It must be less than [10000].");
    EXPECT_STATUS("POST", "/h/_search",
                  "{\"rescore\":{\"window_size\":10000,\"query\":{\"rescore_query\":{\"match_all\":{}}}}}", 200);
    /* a window of 0 rescores nothing: the first-pass order stands */
    EXPECT_HAS("POST", "/h/_search",
               "{\"query\":{\"match\":{\"t\":\"fox\"}},\"rescore\":{\"window_size\":0,\"query\":{\"rescore_query\":"
               "{\"match\":{\"t\":\"quick\"}}}}}", 200, "\"hits\":[{\"_index\":\"h\",\"_id\":\"1\"");
    /* beyond an int: Jackson's intValue() error */
    EXPECT_HAS("POST", "/h/_search",
               "{\"rescore\":{\"window_size\":4294967296,\"query\":{\"rescore_query\":{\"match_all\":{}}}}}", 400,
               "out of range of int");
}

/* Lucene's BoostQuery takes only a finite boost >= +0.0; OpenSearch wraps
 * a query in one when its boost is not 1 (and it matches something), so
 * anything else fails on the shard. A boost of 1e308 (infinite as a
 * float) once answered "_score":NaN, which is not JSON. */
static void test_boost(void **s) {
    (void)s;
    EXPECT_HAS("POST", "/h/_search", "{\"query\":{\"match\":{\"t\":{\"query\":\"fox\",\"boost\":-1}}}}", 400,
               "{\"type\":\"query_shard_exception\",\"reason\":\"failed to create query: boost must be a positive float, "
               "got -1.0\",\"index\":\"h\",\"index_uuid\":\"X\",\"caused_by\":{\"type\":\"illegal_argument_exception\","
               "\"reason\":\"boost must be a positive float, got -1.0\"}}");
    EXPECT_HAS("POST", "/h/_search", "{\"query\":{\"term\":{\"k\":{\"value\":\"a\",\"boost\":1e308}}}}", 400,
               "boost must be a positive float, got Infinity");
    EXPECT_HAS("POST", "/h/_search", "{\"query\":{\"bool\":{\"boost\":-0.0,\"must\":[{\"match_all\":{}}]}}}", 400,
               "boost must be a positive float, got -0.0");
    /* deep inside, and in _count */
    EXPECT_HAS("POST", "/h/_count",
               "{\"query\":{\"bool\":{\"should\":[{\"match_all\":{}},{\"range\":{\"n\":{\"gte\":1,\"boost\":-2}}}]}}}",
               400, "boost must be a positive float, got -2.0");
    /* a parse error later in the body wins: OpenSearch parses it all first */
    EXPECT_HAS("POST", "/h/_search",
               "{\"query\":{\"bool\":{\"should\":[{\"term\":{\"k\":{\"value\":\"a\",\"boost\":-1}}},{\"nope\":{}}]}}}",
               400, "\"type\":\"parsing_exception\",\"reason\":\"unknown query [nope]");
    /* zero is a boost, and a query that matches nothing is never wrapped */
    EXPECT_HAS("POST", "/h/_search", "{\"query\":{\"match\":{\"t\":{\"query\":\"fox\",\"boost\":0}}}}", 200,
               "\"_score\":0.0");
    EXPECT_HAS("POST", "/h/_search", "{\"query\":{\"match\":{\"unmapped\":{\"query\":\"fox\",\"boost\":-1}}}}", 200,
               "\"hits\":[]");
    /* _validate says why */
    EXPECT_HAS("POST", "/h/_validate/query", "{\"query\":{\"match\":{\"t\":{\"query\":\"fox\",\"boost\":-1}}}}", 200,
               "\"valid\":false");
}

/* A precision_threshold near Long.MAX_VALUE sized a HyperLogLog++ table
 * that could not be allocated (500 out of memory); OpenSearch's
 * precisionFromThreshold overflows its long there and PackedInts throws. */
static void test_cardinality_threshold(void **s) {
    (void)s;
    EXPECT_HAS("POST", "/h/_search?size=0",
               "{\"aggs\":{\"c\":{\"cardinality\":{\"field\":\"n\",\"precision_threshold\":9223372036854775807}}}}", 400,
               "{\"type\":\"illegal_argument_exception\",\"reason\":\"maxValue must be non-negative (got: -4)\"}");
    EXPECT_HAS("POST", "/h/_search?size=0",
               "{\"aggs\":{\"c\":{\"cardinality\":{\"field\":\"unmapped\",\"precision_threshold\":9223372036854775807}}}}",
               400, "maxValue must be non-negative");
    /* large but representable: the precision is capped (18 bits) */
    EXPECT_HAS("POST", "/h/_search?size=0",
               "{\"aggs\":{\"c\":{\"cardinality\":{\"field\":\"n\",\"precision_threshold\":1000000000000}}}}", 200,
               "\"c\":{\"value\":2}");
}

/* top_hits of size 2^31-1 tried to allocate its whole window (500 out of
 * memory): index.max_inner_result_window bounds it, as for inner hits,
 * and the index setting is honoured by both. */
static void test_inner_result_window(void **s) {
    (void)s;
    EXPECT_HAS("POST", "/h/_search?size=0", "{\"aggs\":{\"t\":{\"top_hits\":{\"size\":2147483647}}}}", 400,
               "\"reason\":\"Top hits result window is too large, the top hits aggregator [t]'s from + size must be less "
               "than or equal to: [100] but was [2147483647]. This limit can be set by changing the "
               "[index.max_inner_result_window] index level setting.\"");
    EXPECT_HAS("POST", "/h/_search?size=0", "{\"aggs\":{\"t\":{\"top_hits\":{\"from\":60,\"size\":41}}}}", 400,
               "but was [101]");
    EXPECT_STATUS("POST", "/h/_search?size=0", "{\"aggs\":{\"t\":{\"top_hits\":{\"from\":60,\"size\":40}}}}", 200);
    const char *ih = "{\"query\":{\"nested\":{\"path\":\"o\",\"query\":{\"match_all\":{}},\"inner_hits\":{\"size\":150}}}}";
    EXPECT_HAS("POST", "/h/_search", ih, 400, "Inner result window is too large, the inner hit definition's [o]'s from "
                                              "+ size must be less than or equal to: [100] but was [150]");
    OK("PUT", "/h/_settings", "{\"index\":{\"max_inner_result_window\":200}}");
    EXPECT_STATUS("POST", "/h/_search", ih, 200);
    EXPECT_STATUS("POST", "/h/_search?size=0", "{\"aggs\":{\"t\":{\"top_hits\":{\"size\":150}}}}", 200);
    EXPECT_HAS("POST", "/h/_search?size=0", "{\"aggs\":{\"t\":{\"top_hits\":{\"size\":201}}}}", 400,
               "must be less than or equal to: [200] but was [201]");
    OK("PUT", "/h/_settings", "{\"index\":{\"max_inner_result_window\":null}}");
}

/* URL parameters of _search, _msearch, _count and the by-query APIs that
 * were read loosely or not at all: each is checked as the OpenSearch
 * setter that takes it checks it. */
static void test_search_url_params(void **s) {
    (void)s;
    EXPECT_HAS("GET", "/h/_search?terminate_after=-1", NULL, 400, "\"reason\":\"terminateAfter must be > 0\"");
    EXPECT_HAS("GET", "/h/_count?terminate_after=-1", NULL, 400, "\"reason\":\"terminateAfter must be > 0\"");
    EXPECT_HAS("GET", "/h/_search?terminate_after=x", NULL, 400,
               "Failed to parse int parameter [terminate_after] with value [x]");
    EXPECT_STATUS("GET", "/h/_search?terminate_after=0", NULL, 200);
    EXPECT_HAS("GET", "/h/_search?batched_reduce_size=1", NULL, 400, "\"reason\":\"batchedReduceSize must be >= 2\"");
    EXPECT_STATUS("GET", "/h/_search?batched_reduce_size=2", NULL, 200);
    EXPECT_HAS("GET", "/h/_search?pre_filter_shard_size=0", NULL, 400, "\"reason\":\"preFilterShardSize must be >= 1\"");
    EXPECT_HAS("GET", "/h/_search?max_concurrent_shard_requests=0", NULL, 400,
               "\"reason\":\"maxConcurrentShardRequests must be >= 1\"");
    EXPECT_HAS("GET", "/h/_search?max_concurrent_shard_requests=abc", NULL, 400,
               "Failed to parse int parameter [max_concurrent_shard_requests] with value [abc]");
    EXPECT_HAS("POST", "/_msearch?pre_filter_shard_size=0", "{\"index\":\"h\"}\n{}\n", 400,
               "\"reason\":\"preFilterShardSize must be >= 1\"");
    EXPECT_HAS("GET", "/h/_search?suggest_field=t&suggest_size=0", NULL, 400, "\"reason\":\"size must be positive\"");
    /* without suggest_field RestSearchAction never reads them: unrecognized */
    EXPECT_HAS("GET", "/h/_search?suggest_size=abc", NULL, 400,
               "\"reason\":\"request [/h/_search] contains unrecognized parameter: [suggest_size] -> did you mean "
               "[suggest_field]?\"");
    /* a legacy template's ?order is an int, used when the body has none */
    EXPECT_HAS("PUT", "/_template/hostile?order=abc", "{\"index_patterns\":[\"zz*\"]}", 400,
               "Failed to parse int parameter [order] with value [abc]");
    OK("PUT", "/_template/hostile?order=7", "{\"index_patterns\":[\"zz*\"]}");
    EXPECT_HAS("GET", "/_template/hostile", NULL, 200, "{\"hostile\":{\"order\":7,");
    OK("PUT", "/_template/hostile?order=7", "{\"order\":3,\"index_patterns\":[\"zz*\"]}");
    EXPECT_HAS("GET", "/_template/hostile", NULL, 200, "{\"hostile\":{\"order\":3,");
    OK("DELETE", "/_template/hostile", NULL);
    /* time values: TimeValue's illegal_argument_exception */
    EXPECT_HAS("GET", "/h/_search?scroll=1.5m", NULL, 400,
               "\"type\":\"illegal_argument_exception\",\"reason\":\"failed to parse [1.5m], fractional time values are not "
               "supported\",\"caused_by\":{\"type\":\"number_format_exception\",\"reason\":\"For input string: \\\"1.5\\\"\"}");
    /* by-query: the search's parameters, scroll_size, search_timeout */
    EXPECT_HAS("POST", "/h/_delete_by_query?from=-1", "{\"query\":{\"match_none\":{}}}", 400,
               "[from] parameter cannot be negative, found [-1]");
    EXPECT_HAS("POST", "/h/_delete_by_query?from=1", "{\"query\":{\"match_none\":{}}}", 400,
               "\"reason\":\"Validation Failed: 1: from is not supported in this context;\"");
    EXPECT_HAS("POST", "/h/_update_by_query?scroll_size=-3", "{\"query\":{\"match_none\":{}}}", 400,
               "[size] parameter cannot be negative, found [-3]");
    EXPECT_HAS("POST", "/h/_update_by_query?scroll_size=0", "{\"query\":{\"match_none\":{}}}", 400,
               "Validation Failed: 1: [size] cannot be [0] in a scroll context;");
    EXPECT_HAS("POST", "/h/_update_by_query?search_timeout=abc", "{\"query\":{\"match_none\":{}}}", 400,
               "failed to parse setting [search_timeout] with value [abc] as a time value");
    EXPECT_HAS("POST", "/h/_update_by_query?scroll=abc", "{\"query\":{\"match_none\":{}}}", 400,
               "failed to parse setting [scroll] with value [abc] as a time value");
    EXPECT_HAS("POST", "/h/_delete_by_query?terminate_after=-2", "{\"query\":{\"match_none\":{}}}", 400,
               "terminateAfter must be > 0");
    EXPECT_HAS("POST", "/h/_delete_by_query?max_docs=0&slices=auto", "{\"query\":{\"match_none\":{}}}", 400,
               "Validation Failed: 1: maxDocs should be greater than 0 if the request is limited to some number of "
               "documents or -1 if it isn't but it was [0];");
    EXPECT_HAS("POST", "/h/_delete_by_query", "{\"from\":2,\"stored_fields\":[\"_id\"],\"query\":{\"match_none\":{}}}",
               400, "Validation Failed: 1: from is not supported in this context;2: stored_fields is not supported in this context;");
    EXPECT_STATUS("POST", "/h/_delete_by_query?scroll_size=5&search_timeout=1s&scroll=1m&requests_per_second=-1",
                  "{\"query\":{\"match_none\":{}}}", 200);
}

/* A bool of n term clauses on k (malloc'd JSON). */
static char *wide_bool(int n, const char *wrap_open, const char *wrap_close) {
    size_t cap = (size_t)n * 40 + 200;
    char *b = malloc(cap);
    size_t o = (size_t)snprintf(b, cap, "{\"query\":%s{\"bool\":{\"should\":[", wrap_open);
    for (int i = 0; i < n; i++) o += (size_t)snprintf(b + o, cap - o, "%s{\"term\":{\"k\":\"v%d\"}}", i ? "," : "", i);
    snprintf(b + o, cap - o, "]}}%s}", wrap_close);
    return b;
}

/* indices.query.bool.max_clause_count: a bool wider than the limit fails
 * while the query is built (query_shard_exception, 400); more leaves than
 * the limit + 1 over nested bools fail the rewrite (500, as OpenSearch 3.1
 * answers it). The cluster setting moves both. */
static void test_clause_limits(void **s) {
    (void)s;
    char *b = wide_bool(1024, "", "");
    EXPECT_STATUS("POST", "/h/_search", b, 200);
    free(b);
    b = wide_bool(1025, "", "");
    EXPECT_HAS("POST", "/h/_search", b, 400,
               "{\"type\":\"query_shard_exception\",\"reason\":\"failed to create query: maxClauseCount is set to "
               "1024\",\"index\":\"h\",\"index_uuid\":\"X\",\"caused_by\":{\"type\":\"too_many_clauses\",\"reason\":"
               "\"maxClauseCount is set to 1024\"}}");
    free(b);
    /* a match query of 1100 terms is a bool of 1100 clauses */
    size_t cap = 1100 * 8 + 100;
    char *m = malloc(cap);
    size_t o = (size_t)snprintf(m, cap, "{\"query\":{\"match\":{\"t\":\"");
    for (int i = 0; i < 1100; i++) o += (size_t)snprintf(m + o, cap - o, "w%d ", i);
    snprintf(m + o, cap - o, "\"}}}");
    EXPECT_HAS("POST", "/h/_search", m, 400, "failed to create query: maxClauseCount is set to 1024");
    /* two bools of 600: 1200 leaves */
    char *half1 = wide_bool(600, "", ""), *half2 = wide_bool(600, "", "");
    size_t l1 = strlen(half1), l2 = strlen(half2);
    char *both = malloc(l1 + l2 + 100);
    /* {"query":{"bool":{"must":[<q1>,<q2>]}}} from the two bodies' queries */
    half1[l1 - 1] = '\0';
    half2[l2 - 1] = '\0';
    sprintf(both, "{\"query\":{\"bool\":{\"must\":[%s,%s]}}}", half1 + 9, half2 + 9);
    EXPECT_HAS("POST", "/h/_search", both, 500,
               "\"root_cause\":[{\"type\":\"too_many_nested_clauses\",\"reason\":\"Query contains too many nested clauses; "
               "maxClauseCount is set to 1024\"}],\"type\":\"search_phase_execution_exception\"");
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"indices.query.bool.max_clause_count\":2048}}");
    EXPECT_STATUS("POST", "/h/_search", both, 200);
    EXPECT_STATUS("POST", "/h/_search", m, 200);
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"indices.query.bool.max_clause_count\":100}}");
    b = wide_bool(101, "", "");
    EXPECT_HAS("POST", "/h/_count", b, 400, "maxClauseCount is set to 100");
    free(b);
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"indices.query.bool.max_clause_count\":null}}");
    free(half1);
    free(half2);
    free(both);
    free(m);
}

/* search_after of a number beyond a long on a long field was a C cast out
 * of range (UBSan, found by the request fuzzer): Number.longValue()
 * saturates. */
static void test_search_after_huge(void **s) {
    (void)s;
    EXPECT_HAS("POST", "/h/_search", "{\"sort\":[{\"n\":\"asc\"}],\"search_after\":[1.5e19]}", 200, "\"hits\":[]");
    EXPECT_HAS("POST", "/h/_search", "{\"sort\":[{\"n\":\"asc\"}],\"search_after\":[-1.5e19]}", 200, "\"_id\":\"1\"");
}

/* A term query's number out of a long's range on a long field printed the
 * number's source text with %s, reading to the end of the body and past it
 * when the body is not NUL-terminated (ASan, found by the request fuzzer).
 * The body here is an exact-size heap copy, as the HTTP server passes it. */
static void test_term_out_of_range_message(void **s) {
    (void)s;
    static const char body[] = "{\"query\":{\"term\":{\"n\":1e300}}}";
    char *exact = malloc(sizeof body - 1);
    assert_non_null(exact);
    memcpy(exact, body, sizeof body - 1);
    trove_response r;
    assert_int_equal(trove_request(N, "POST", "/h/_search", exact, sizeof body - 1, &r), 0);
    assert_int_equal(r.status, 400);
    assert_non_null(strstr(r.body, "Value [1e300] is out of range for a long"));
    trove_response_fini(&r);
    free(exact);
}

/* index.max_terms_count bounds a terms query's values (a mapped field's;
 * an unmapped one is rewritten to match_none first). */
static void test_max_terms_count(void **s) {
    (void)s;
    OK("PUT", "/h/_settings", "{\"index\":{\"max_terms_count\":3}}");
    EXPECT_STATUS("POST", "/h/_search", "{\"query\":{\"terms\":{\"k\":[\"a\",\"b\",\"c\"]}}}", 200);
    EXPECT_HAS("POST", "/h/_search", "{\"query\":{\"terms\":{\"k\":[\"a\",\"b\",\"c\",\"d\"]}}}", 400,
               "{\"type\":\"query_shard_exception\",\"reason\":\"failed to create query: The number of terms [4] used in "
               "the Terms Query request has exceeded the allowed maximum of [3]. This maximum can be set by changing the "
               "[index.max_terms_count] index level setting.\",\"index\":\"h\"");
    EXPECT_HAS("POST", "/h/_search", "{\"query\":{\"terms\":{\"n\":[1,2,3,4]}}}", 400, "The number of terms [4]");
    EXPECT_HAS("POST", "/h/_search", "{\"query\":{\"terms\":{\"_id\":[\"1\",\"2\",\"3\",\"4\"]}}}", 400, "terms [4]");
    EXPECT_STATUS("POST", "/h/_search", "{\"query\":{\"terms\":{\"nope\":[1,2,3,4]}}}", 200);
    OK("PUT", "/h/_settings", "{\"index\":{\"max_terms_count\":null}}");
    EXPECT_STATUS("POST", "/h/_search", "{\"query\":{\"terms\":{\"k\":[\"a\",\"b\",\"c\",\"d\"]}}}", 200);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rescore_window),
        cmocka_unit_test(test_boost),
        cmocka_unit_test(test_cardinality_threshold),
        cmocka_unit_test(test_inner_result_window),
        cmocka_unit_test(test_search_url_params),
        cmocka_unit_test(test_clause_limits),
        cmocka_unit_test(test_search_after_huge),
        cmocka_unit_test(test_max_terms_count),
        cmocka_unit_test(test_term_out_of_range_message),
    };
    return cmocka_run_group_tests(tests, load, teardown);
}
