/*
 * test_api_breaker.c — the memory circuit breakers through trove_request:
 * a request whose body or working memory would pass a limit answers 429
 * circuit_breaking_exception with OpenSearch's message, bytes_wanted,
 * bytes_limit and durability, before it allocates; reservations are given
 * back when requests end (estimated sizes return to what they were); the
 * limits follow the dynamic cluster settings (percentages of the node's
 * heap budget) and refuse values that do not parse; GET
 * /_nodes/stats/breaker reports them; a clone shares its base's breakers.
 */
#include "api_test.h"

#define HEAP (64 * 1024 * 1024) /* the node's budget: request 60% = 38.3mb */

static int open_node(void **s) {
    (void)s;
    trove_options o = {.heap_bytes = HEAP};
    N = trove_node_open(&o, NULL);
    if (!N) return -1;
    OK("PUT", "/b", "{\"mappings\":{\"properties\":{\"k\":{\"type\":\"keyword\"},\"t\":{\"type\":\"text\"}}}}");
    OK("POST", "/b/_doc/1?refresh=true", "{\"k\":\"a\",\"t\":\"x y\"}");
    return 0;
}

/* A bool of n term clauses: a body of n * ~30 bytes whose parse needs
 * several times that. */
static char *wide(int n) {
    size_t cap = (size_t)n * 40 + 100;
    char *b = malloc(cap);
    size_t o = (size_t)snprintf(b, cap, "{\"query\":{\"bool\":{\"should\":[");
    for (int i = 0; i < n; i++) o += (size_t)snprintf(b + o, cap - o, "%s{\"term\":{\"k\":\"v%d\"}}", i ? "," : "", i);
    snprintf(b + o, cap - o, "]}}}");
    return b;
}

/* "estimated_size_in_bytes" of a breaker in a _nodes/stats/breaker body. */
static long long estimated(const char *body, const char *breaker) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":{", breaker);
    const char *p = strstr(body, pat);
    p = p ? strstr(p, "\"estimated_size_in_bytes\":") : NULL;
    return p ? atoll(p + 26) : -1;
}

static void test_stats(void **s) {
    (void)s;
    char *b;
    assert_int_equal(req("GET", "/_nodes/stats/breaker", NULL, &b), 200);
    /* 60% of 64 MiB, as MemorySizeValue computes it */
    assert_non_null(strstr(b, "\"breakers\":{\"request\":{\"limit_size_in_bytes\":40265318,\"limit_size\":\"38.3mb\","));
    assert_non_null(strstr(b, "\"fielddata\":{\"limit_size_in_bytes\":26843545,\"limit_size\":\"25.5mb\",\"estimated_size_in_bytes\":0,"
                              "\"estimated_size\":\"0b\",\"overhead\":1.03,\"tripped\":0}"));
    assert_non_null(strstr(b, "\"in_flight_requests\":{\"limit_size_in_bytes\":67108864,\"limit_size\":\"64mb\",\"estimated_size_in_bytes\":0,"
                              "\"estimated_size\":\"0b\",\"overhead\":2.0,\"tripped\":0},\"accounting\":{"));
    assert_non_null(strstr(b, "\"parent\":{\"limit_size_in_bytes\":63753420,\"limit_size\":\"60.7mb\","));
    assert_non_null(strstr(b, "\"roles\":[\"cluster_manager\",\"data\",\"ingest\",\"remote_cluster_client\"]"));
    free(b);
    EXPECT_HAS("GET", "/_nodes/_local/stats/breaker", NULL, 200, "\"_nodes\":{\"total\":1,\"successful\":1,\"failed\":0}");
    EXPECT_HAS("GET", "/_nodes/nobody/stats/breaker", NULL, 200, "\"_nodes\":{\"total\":0,\"successful\":0,\"failed\":0},"
                                                                  "\"cluster_name\":\"trove\",\"nodes\":{}}");
    EXPECT_HAS("GET", "/_nodes/stats/jvm,breaker", NULL, 200, "\"breakers\":{\"request\":");
    EXPECT_HAS("GET", "/_nodes/stats", NULL, 200, "\"breakers\":{\"request\":");
}

static void test_request_breaker(void **s) {
    (void)s;
    char *q = wide(1000);
    EXPECT_STATUS("POST", "/b/_search", q, 200);
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"indices.breaker.request.limit\":\"16kb\"}}");
    EXPECT_HAS("POST", "/b/_search", q, 429,
               "{\"error\":{\"root_cause\":[{\"type\":\"circuit_breaking_exception\",\"reason\":\"[request] Data too large, "
               "data for [<reused_arrays>] would be [");
    EXPECT_HAS("POST", "/b/_search", q, 429,
               "], which is larger than the limit of [16384/16kb]\",\"bytes_wanted\":");
    EXPECT_HAS("POST", "/b/_search", q, 429, "\"bytes_limit\":16384,\"durability\":\"TRANSIENT\"},\"status\":429}");
    /* small requests still pass, and the reservations were all given back */
    EXPECT_STATUS("GET", "/b/_doc/1", NULL, 200);
    char *b;
    assert_int_equal(req("GET", "/_nodes/stats/breaker", NULL, &b), 200);
    assert_non_null(strstr(b, "\"tripped\":3}"));
    long long est = estimated(b, "request");
    assert_true(est == 0); /* the stats API charges nothing */
    free(b);
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"indices.breaker.request.limit\":null}}");
    EXPECT_STATUS("POST", "/b/_search", q, 200);
    free(q);
}

static void test_in_flight_breaker(void **s) {
    (void)s;
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"network.breaker.inflight_requests.limit\":\"40kb\"}}");
    char *q = wide(1000); /* ~30 kB, estimated twice over */
    EXPECT_HAS("POST", "/b/_search", q, 429,
               "\"reason\":\"[in_flight_requests] Data too large, data for [<http_request>] would be [");
    EXPECT_HAS("POST", "/b/_search", q, 429, "which is larger than the limit of [40960/40kb]\"");
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"network.breaker.inflight_requests.limit\":\"1mb\"}}");
    EXPECT_STATUS("POST", "/b/_search", q, 200);
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"network.breaker.inflight_requests.limit\":null}}");
    char *b;
    assert_int_equal(req("GET", "/_nodes/stats/breaker", NULL, &b), 200);
    assert_int_equal(estimated(b, "in_flight_requests"), 0);
    free(b);
    free(q);
}

/* the parent watches the resident set: a limit below it refuses every
 * reservation, with real usage and every child's usage in the message */
static void test_parent_breaker(void **s) {
    (void)s;
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"indices.breaker.total.limit\":\"1kb\"}}");
    char *q = wide(100);
    EXPECT_HAS("POST", "/b/_search", q, 429, "\"reason\":\"[parent] Data too large, data for [<http_request>] would be [");
    EXPECT_HAS("POST", "/b/_search", q, 429, "which is larger than the limit of [1024/1kb], real usage: [");
    EXPECT_HAS("POST", "/b/_search", q, 429, ", usages [request=");
    EXPECT_HAS("POST", "/b/_search", q, 429, ", fielddata=0/0b, in_flight_requests=");
    free(q);
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"indices.breaker.total.limit\":null}}");
    EXPECT_HAS("GET", "/_nodes/stats/breaker", NULL, 200, "\"overhead\":1.0,\"tripped\":4}}");
}

static void test_settings(void **s) {
    (void)s;
    EXPECT("PUT", "/_cluster/settings", "{\"persistent\":{\"indices.breaker.request.limit\":\"lots\"}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"illegal value can't update "
           "[indices.breaker.request.limit] from [60%] to [lots]\"}],\"type\":\"illegal_argument_exception\",\"reason\":"
           "\"illegal value can't update [indices.breaker.request.limit] from [60%] to [lots]\",\"caused_by\":{\"type\":"
           "\"parse_exception\",\"reason\":\"failed to parse setting [indices.breaker.request.limit] with value [lots] as a "
           "size in bytes: unit is missing or unrecognized\"}},\"status\":400}");
    EXPECT_STATUS("PUT", "/_cluster/settings", "{\"persistent\":{\"indices.breaker.request.limit\":\"101%\"}}", 400);
    EXPECT_STATUS("PUT", "/_cluster/settings", "{\"persistent\":{\"indices.breaker.request.overhead\":-1}}", 400);
    /* a percentage is of the heap budget; persistent under transient */
    OK("PUT", "/_cluster/settings", "{\"persistent\":{\"indices.breaker.request.limit\":\"50%\"}}");
    EXPECT_HAS("GET", "/_nodes/stats/breaker", NULL, 200, "\"request\":{\"limit_size_in_bytes\":33554432,\"limit_size\":\"32mb\"");
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"indices.breaker.request.limit\":\"10mb\"}}");
    EXPECT_HAS("GET", "/_nodes/stats/breaker", NULL, 200, "\"request\":{\"limit_size_in_bytes\":10485760,\"limit_size\":\"10mb\"");
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"indices.breaker.request.limit\":null},\"persistent\":{"
                                   "\"indices.breaker.request.limit\":null}}");
    EXPECT_HAS("GET", "/_nodes/stats/breaker", NULL, 200, "\"request\":{\"limit_size_in_bytes\":40265318,");
}

/* one process, one set of breakers: a clone's trips count on its base */
static void test_clone_shares(void **s) {
    (void)s;
    trove_node *c = trove_node_clone(N, NULL);
    assert_non_null(c);
    trove_response r;
    const char *set = "{\"transient\":{\"network.breaker.inflight_requests.limit\":\"10b\"}}";
    assert_int_equal(trove_request(c, "PUT", "/_cluster/settings", set, strlen(set), &r), 0);
    trove_response_fini(&r);
    const char *body = "{\"query\":{\"match_all\":{}}}";
    assert_int_equal(trove_request(c, "POST", "/b/_search", body, strlen(body), &r), 0);
    assert_int_equal(r.status, 429);
    trove_response_fini(&r);
    /* the limit came from the clone's settings, but the breakers are one */
    assert_int_equal(trove_request(N, "POST", "/b/_search", body, strlen(body), &r), 0);
    assert_int_equal(r.status, 429);
    trove_response_fini(&r);
    trove_node_free(c);
    /* the settings APIs cannot trip a breaker (canTripCircuitBreaker):
     * the base's update puts its own limits back */
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"network.breaker.inflight_requests.limit\":null}}");
    EXPECT_STATUS("POST", "/b/_search", body, 200);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats),           cmocka_unit_test(test_request_breaker),
        cmocka_unit_test(test_in_flight_breaker), cmocka_unit_test(test_parent_breaker),
        cmocka_unit_test(test_settings),        cmocka_unit_test(test_clone_shares),
    };
    return cmocka_run_group_tests(tests, open_node, teardown);
}
