/* test_api_msearch.c — _msearch through trove_request: per-item answers
 * and errors with status, header keys, request-level failures, NDJSON
 * framing errors, parameters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "api/api.h"

#define API_TEST_MASK_NO_KEYS
#define API_TEST_MASK_TOOK
#include "api_test.h"

static void docs(const char *index, int n) {
    char path[128], body[128];
    for (int i = 1; i <= n; i++) {
        snprintf(path, sizeof path, "/%s/_doc/%d", index, i);
        snprintf(body, sizeof body, "{\"foo\":%d,\"t\":\"word%d common\"}", i, i);
        assert_int_equal(req("PUT", path, body, NULL), 201);
    }
    snprintf(path, sizeof path, "/%s/_refresh", index);
    assert_int_equal(req("POST", path, NULL, NULL), 200);
}

static void test_msearch_items(void **s) {
    (void)s;
    docs("index_1", 3);
    docs("index_2", 1);
    const char *body = "{\"index\":\"index_*\"}\n{\"query\":{\"match\":{\"foo\":1}},\"size\":0}\n"
                       "{\"index\":\"index_3\"}\n{\"query\":{\"match_all\":{}}}\n"
                       "{}\n{\"size\":0}\n";
    EXPECT("POST", "/_msearch?rest_total_hits_as_int=true&max_concurrent_searches=1", body, 200,
           "{\"took\":0,\"responses\":[{\"took\":0,\"timed_out\":false,\"_shards\":{\"total\":2,\"successful\":2,"
           "\"skipped\":0,\"failed\":0},\"hits\":{\"total\":2,\"max_score\":null,\"hits\":[]},\"status\":200},"
           "{\"error\":{\"root_cause\":[{\"type\":\"index_not_found_exception\",\"reason\":\"no such index "
           "[index_3]\",\"index\":\"index_3\",\"resource.id\":\"index_3\",\"resource.type\":\"index_or_alias\","
           "\"index_uuid\":\"_na_\"}],\"type\":\"index_not_found_exception\",\"reason\":\"no such index [index_3]\","
           "\"index\":\"index_3\",\"resource.id\":\"index_3\",\"resource.type\":\"index_or_alias\",\"index_uuid\":"
           "\"_na_\"},\"status\":404},{\"took\":0,\"timed_out\":false,\"_shards\":{\"total\":2,\"successful\":2,"
           "\"skipped\":0,\"failed\":0},\"hits\":{\"total\":4,\"max_score\":null,\"hits\":[]},\"status\":200}]}");
    /* the path index is the default; header index arrays; a leading newline */
    EXPECT("GET", "/index_2/_msearch", "\n{}\n{\"size\":0}\n{\"index\":[\"index_1\",\"index_2\"]}\n{\"size\":0,\"track_total_hits\":1}\n", 200,
           "{\"took\":0,\"responses\":[{\"took\":0,\"timed_out\":false,\"_shards\":{\"total\":1,\"successful\":1,"
           "\"skipped\":0,\"failed\":0},\"hits\":{\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":null,"
           "\"hits\":[]},\"status\":200},{\"took\":0,\"timed_out\":false,\"_shards\":{\"total\":2,\"successful\":2,"
           "\"skipped\":0,\"failed\":0},\"hits\":{\"total\":{\"value\":1,\"relation\":\"gte\"},\"max_score\":null,"
           "\"hits\":[]},\"status\":200}]}");
    /* a shard failure stays in its item */
    char *b;
    assert_int_equal(req("POST", "/_msearch", "{\"index\":\"index_1\"}\n{\"sort\":[\"nope\"]}\n{}\n{\"size\":0}\n", &b), 200);
    assert_non_null(strstr(b, "{\"took\":0,\"responses\":[{\"error\":{\"root_cause\":[{\"type\":\"query_shard_exception\""));
    assert_non_null(strstr(b, "\"status\":400},{\"took\":0"));
    free(b);
}

static void test_msearch_request_errors(void **s) {
    (void)s;
    docs("m", 1);
    EXPECT("POST", "/_msearch?rest_total_hits_as_int=true", "{\"index\":\"m\"}\n{\"track_total_hits\":10}\n", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"[rest_total_hits_as_int] "
           "cannot be used if the tracking of total hits is not accurate, got 10\"}],\"type\":"
           "\"illegal_argument_exception\",\"reason\":\"[rest_total_hits_as_int] cannot be used if the tracking of "
           "total hits is not accurate, got 10\"},\"status\":400}");
    EXPECT("POST", "/_msearch", "{\"foo\":\"x\"}\n{}\n", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"key [foo] is not "
           "supported in the metadata section\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"key [foo] is "
           "not supported in the metadata section\"},\"status\":400}");
    EXPECT("POST", "/_msearch", "{}\n{}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"The msearch request "
           "must be terminated by a newline [\\n]\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"The msearch "
           "request must be terminated by a newline [\\n]\"},\"status\":400}");
    EXPECT("POST", "/m/_msearch", "{}\n{\"query\":{\"bogus\":{}}}\n", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parsing_exception\",\"reason\":\"unknown query [bogus]\",\"line\":1,"
           "\"col\":19}],\"type\":\"parsing_exception\",\"reason\":\"unknown query [bogus]\",\"line\":1,\"col\":19},"
           "\"status\":400}");
    EXPECT("POST", "/_msearch?max_concurrent_searches=0", "{}\n{}\n", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":"
           "\"maxConcurrentSearchRequests must be positive\"}],\"type\":\"illegal_argument_exception\",\"reason\":"
           "\"maxConcurrentSearchRequests must be positive\"},\"status\":400}");
    EXPECT("POST", "/_msearch", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parse_exception\",\"reason\":\"request body or source parameter "
           "is required\"}],\"type\":\"parse_exception\",\"reason\":\"request body or source parameter is "
           "required\"},\"status\":400}");
    EXPECT("POST", "/_msearch?size=1", "{}\n{}\n", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"request [/_msearch] "
           "contains unrecognized parameter: [size]\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"request "
           "[/_msearch] contains unrecognized parameter: [size]\"},\"status\":400}");
    /* no items: an empty list */
    EXPECT("POST", "/_msearch", "\n", 200, "{\"took\":0,\"responses\":[]}");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_msearch_items, setup, teardown),
        cmocka_unit_test_setup_teardown(test_msearch_request_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
