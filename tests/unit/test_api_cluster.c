/* test_api_cluster.c — cluster health, cluster settings, index settings
 * updates, open/close, _stats/_flush/_forcemerge and filter_path, through
 * trove_request. Bodies are compared exactly after masking per-run values
 * (uuids, dates). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"

#include "api_test.h"

#define HEALTH_HEAD(status, to) \
    "{\"cluster_name\":\"trove\",\"status\":\"" status "\",\"timed_out\":" to ",\"number_of_nodes\":1," \
    "\"number_of_data_nodes\":1,\"discovered_master\":true,\"discovered_cluster_manager\":true,"

static void test_health(void **s) {
    (void)s;
    EXPECT("GET", "/_cluster/health", NULL, 200,
           HEALTH_HEAD("green", "false") "\"active_primary_shards\":0,\"active_shards\":0,\"relocating_shards\":0,"
           "\"initializing_shards\":0,\"unassigned_shards\":0,\"delayed_unassigned_shards\":0,"
           "\"number_of_pending_tasks\":0,\"number_of_in_flight_fetch\":0,\"task_max_waiting_in_queue_millis\":0,"
           "\"active_shards_percent_as_number\":100.0}");
    OK("PUT", "/green", "{\"settings\":{\"number_of_replicas\":0,\"number_of_shards\":2}}");
    OK("PUT", "/yellow", NULL); /* number_of_replicas defaults to 1 */
    EXPECT("GET", "/_cluster/health?human", NULL, 200,
           HEALTH_HEAD("yellow", "false") "\"active_primary_shards\":3,\"active_shards\":3,\"relocating_shards\":0,"
           "\"initializing_shards\":0,\"unassigned_shards\":1,\"delayed_unassigned_shards\":0,"
           "\"number_of_pending_tasks\":0,\"number_of_in_flight_fetch\":0,\"task_max_waiting_in_queue\":\"0s\","
           "\"task_max_waiting_in_queue_millis\":0,\"active_shards_percent\":\"75.0%\","
           "\"active_shards_percent_as_number\":75.0}");
    EXPECT("GET", "/_cluster/health/green?level=indices&filter_path=status,indices", NULL, 200,
           "{\"status\":\"green\",\"indices\":{\"green\":{\"status\":\"green\",\"number_of_shards\":2,"
           "\"number_of_replicas\":0,\"active_primary_shards\":2,\"active_shards\":2,\"relocating_shards\":0,"
           "\"initializing_shards\":0,\"unassigned_shards\":0}}}");
    EXPECT("GET", "/_cluster/health/yellow?level=shards&filter_path=indices.*.shards", NULL, 200,
           "{\"indices\":{\"yellow\":{\"shards\":{\"0\":{\"status\":\"yellow\",\"primary_active\":true,"
           "\"active_shards\":1,\"relocating_shards\":0,\"initializing_shards\":0,\"unassigned_shards\":1}}}}}");
    /* satisfied at once */
    EXPECT("GET", "/_cluster/health?wait_for_status=yellow&filter_path=status,timed_out", NULL, 200,
           "{\"status\":\"yellow\",\"timed_out\":false}");
    /* cannot become green: 408 after the timeout */
    EXPECT("GET", "/_cluster/health?wait_for_status=green&timeout=30ms&filter_path=status,timed_out", NULL, 408,
           "{\"status\":\"yellow\",\"timed_out\":true}");
    /* a missing index is red and times out */
    EXPECT("GET", "/_cluster/health/nope?timeout=10ms&filter_path=status,timed_out", NULL, 408,
           "{\"status\":\"red\",\"timed_out\":true}");
    EXPECT("GET", "/_cluster/health?wait_for_status=blue", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"unknown cluster health "
           "status [blue]\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"unknown cluster health status "
           "[blue]\"},\"status\":400}");
    /* closed indices still count (replicated closed indices) */
    OK("POST", "/green/_close", NULL);
    EXPECT("GET", "/_cluster/health/gr*?filter_path=active_shards&expand_wildcards=closed", NULL, 200,
           "{\"active_shards\":2}");
    EXPECT("GET", "/_cluster/health/gr*?filter_path=active_shards&expand_wildcards=open", NULL, 200,
           "{\"active_shards\":0}");
}

/* trove_request_nowait never sleeps: a waiting health request answers
 * TROVE_EWAIT with a retry time until its condition holds, and times out
 * counting from its first ask (*since). */
static void test_health_nowait(void **s) {
    (void)s;
    const char *path = "/_cluster/health/later?timeout=200ms&filter_path=status,timed_out";
    trove_response r;
    int64_t since = 0;
    int retry = -1;
    assert_int_equal(trove_request_nowait(N, "GET", path, NULL, 0, &since, &retry, &r), TROVE_EWAIT);
    assert_null(r.body);
    assert_true(since > 0);
    assert_true(retry > 0 && retry <= 20);
    int64_t first = since;
    assert_int_equal(trove_request_nowait(N, "GET", path, NULL, 0, &since, &retry, &r), TROVE_EWAIT);
    assert_true(since == first); /* kept across asks */
    OK("PUT", "/later", "{\"settings\":{\"number_of_replicas\":0}}");
    assert_int_equal(trove_request_nowait(N, "GET", path, NULL, 0, &since, &retry, &r), TROVE_OK);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "{\"status\":\"green\",\"timed_out\":false}");
    trove_response_fini(&r);
    /* the timeout counts from the first ask: a request that arrived long
     * ago has timed out at its next ask */
    since = first - 1000;
    assert_int_equal(trove_request_nowait(N, "GET", "/_cluster/health/never?timeout=200ms&filter_path=timed_out", NULL,
                                          0, &since, &retry, &r),
                     TROVE_OK);
    assert_int_equal(r.status, 408);
    assert_string_equal(r.body, "{\"timed_out\":true}");
    trove_response_fini(&r);
    /* a request that never waits answers at once; since must be given */
    since = 0;
    assert_int_equal(trove_request_nowait(N, "GET", "/", NULL, 0, &since, &retry, &r), TROVE_OK);
    assert_int_equal(r.status, 200);
    trove_response_fini(&r);
    assert_int_equal(trove_request_nowait(N, "GET", "/", NULL, 0, NULL, &retry, &r), TROVE_EARG);
    assert_int_equal(trove_request_nowait(N, "GET", "/", NULL, 0, &since, NULL, &r), TROVE_EARG);
    /* a bad timeout is OpenSearch's error, not a wait of 0 */
    EXPECT("GET", "/_cluster/health?wait_for_status=green&timeout=1x", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"failed to parse "
           "setting [timeout] with value [1x] as a time value: unit is missing or unrecognized\"}],\"type\":"
           "\"illegal_argument_exception\",\"reason\":\"failed to parse setting [timeout] with value [1x] as a "
           "time value: unit is missing or unrecognized\"},\"status\":400}");
}

static void test_cluster_settings(void **s) {
    (void)s;
    EXPECT("GET", "/_cluster/settings", NULL, 200, "{\"persistent\":{},\"transient\":{}}");
    EXPECT("PUT", "/_cluster/settings",
           "{\"persistent\":{\"cluster.routing.allocation.enable\":\"all\"},\"transient\":{\"search\":"
           "{\"max_buckets\":100}}}",
           200,
           "{\"acknowledged\":true,\"persistent\":{\"cluster\":{\"routing\":{\"allocation\":{\"enable\":\"all\"}}}},"
           "\"transient\":{\"search\":{\"max_buckets\":\"100\"}}}");
    EXPECT("GET", "/_cluster/settings?flat_settings", NULL, 200,
           "{\"persistent\":{\"cluster.routing.allocation.enable\":\"all\"},\"transient\":{\"search.max_buckets\":"
           "\"100\"}}");
    /* null and prefix.* remove */
    EXPECT("PUT", "/_cluster/settings?flat_settings=true", "{\"persistent\":{\"cluster.*\":null}}", 200,
           "{\"acknowledged\":true,\"persistent\":{},\"transient\":{}}");
    EXPECT("GET", "/_cluster/settings?flat_settings", NULL, 200,
           "{\"persistent\":{},\"transient\":{\"search.max_buckets\":\"100\"}}");
    EXPECT("PUT", "/_cluster/settings", "{}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: no settings to update;\"}],\"type\":\"action_request_validation_exception\",\"reason\":"
           "\"Validation Failed: 1: no settings to update;\"},\"status\":400}");
    EXPECT("PUT", "/_cluster/settings", "{\"persistent\":{\"nope.x\":1}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"persistent setting "
           "[nope.x], not recognized\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"persistent setting "
           "[nope.x], not recognized\"},\"status\":400}");
}

static void test_index_settings(void **s) {
    (void)s;
    OK("PUT", "/i", "{\"settings\":{\"number_of_replicas\":0}}");
    OK("PUT", "/i/_doc/1", "{\"a\":1}");
    EXPECT("PUT", "/i/_settings", "{\"index\":{\"max_result_window\":5,\"refresh_interval\":\"-1\"}}", 200,
           "{\"acknowledged\":true}");
    EXPECT("GET", "/i/_settings/index.max_result_window,index.refresh*?flat_settings", NULL, 200,
           "{\"i\":{\"settings\":{\"index.max_result_window\":\"5\",\"index.refresh_interval\":\"-1\"}}}");
    /* honoured: max_result_window */
    EXPECT_STATUS("POST", "/i/_search", "{\"from\":3,\"size\":3}", 400);
    /* the settings wrapper and number_of_replicas (health follows) */
    EXPECT("PUT", "/i/_settings", "{\"settings\":{\"number_of_replicas\":1}}", 200, "{\"acknowledged\":true}");
    EXPECT("GET", "/_cluster/health/i?filter_path=status", NULL, 200, "{\"status\":\"yellow\"}");
    EXPECT_HAS("PUT", "/i/_settings", "{\"index.number_of_shards\":3}", 400,
               "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Can't update non "
               "dynamic settings [[index.number_of_shards]] for open indices [[i/");
    EXPECT("PUT", "/nope/_settings", "{\"index.number_of_replicas\":1}", 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope]\","
           "\"index\":\"nope\",\"resource.id\":\"nope\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\"}],"
           "\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope]\",\"index\":\"nope\","
           "\"resource.id\":\"nope\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\"},\"status\":404}");
    /* preserve_existing keeps what is set */
    EXPECT("PUT", "/i/_settings?preserve_existing=true", "{\"index.max_result_window\":50}", 200,
           "{\"acknowledged\":true}");
    EXPECT("GET", "/i/_settings/index.max_result_window?flat_settings", NULL, 200,
           "{\"i\":{\"settings\":{\"index.max_result_window\":\"5\"}}}");
}

static void test_open_close(void **s) {
    (void)s;
    OK("PUT", "/c", NULL);
    OK("PUT", "/c/_doc/1?refresh=true", "{\"a\":1}");
    EXPECT("POST", "/c/_close", NULL, 200,
           "{\"acknowledged\":true,\"shards_acknowledged\":true,\"indices\":{\"c\":{\"closed\":true}}}");
    const char *closed = "{\"error\":{\"root_cause\":[{\"type\":\"index_closed_exception\",\"reason\":\"closed\","
                         "\"index\":\"c\",\"index_uuid\":\"X\"}],\"type\":\"index_closed_exception\",\"reason\":"
                         "\"closed\",\"index\":\"c\",\"index_uuid\":\"X\"},\"status\":400}";
    EXPECT("GET", "/c/_doc/1", NULL, 400, closed);
    EXPECT("PUT", "/c/_doc/2", "{}", 400, closed);
    EXPECT("POST", "/c/_search", NULL, 400, closed);
    EXPECT("GET", "/c/_count", NULL, 400, closed);
    /* GET /{index} still answers; wildcards skip closed indices */
    EXPECT_STATUS("GET", "/c", NULL, 200);
    EXPECT("GET", "/c*/_count", NULL, 200,
           "{\"count\":0,\"_shards\":{\"total\":0,\"successful\":0,\"skipped\":0,\"failed\":0}}");
    EXPECT("GET", "/c/_count?ignore_unavailable=true", NULL, 200,
           "{\"count\":0,\"_shards\":{\"total\":0,\"successful\":0,\"skipped\":0,\"failed\":0}}");
    EXPECT("POST", "/c/_open", NULL, 200, "{\"acknowledged\":true,\"shards_acknowledged\":true}");
    EXPECT("GET", "/c/_count", NULL, 200,
           "{\"count\":1,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0}}");
    EXPECT_STATUS("POST", "/missing/_close", NULL, 404);
}

static void test_stats_flush(void **s) {
    (void)s;
    OK("PUT", "/s1", "{\"settings\":{\"number_of_replicas\":0}}");
    OK("PUT", "/s1/_doc/1?refresh=true", "{\"a\":1}");
    OK("PUT", "/s1/_doc/2?refresh=true", "{\"a\":2}");
    EXPECT("GET", "/_stats/docs?filter_path=_shards,_all.primaries.docs.count,indices.s1.total.docs", NULL, 200,
           "{\"_shards\":{\"total\":1,\"successful\":1,\"failed\":0},\"_all\":{\"primaries\":{\"docs\":{\"count\":2}}},"
           "\"indices\":{\"s1\":{\"total\":{\"docs\":{\"count\":2,\"deleted\":0}}}}}");
    char *b;
    assert_int_equal(req("GET", "/s1/_stats?filter_path=_all.total.store.size_in_bytes", NULL, &b), 200);
    assert_non_null(strstr(b, "{\"_all\":{\"total\":{\"store\":{\"size_in_bytes\":"));
    assert_null(strstr(b, "\"size_in_bytes\":0}"));
    free(b);
    EXPECT("GET", "/_stats/docs,foo", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"request "
           "[/_stats/docs,foo] contains unrecognized metric: [foo]\"}],\"type\":\"illegal_argument_exception\","
           "\"reason\":\"request [/_stats/docs,foo] contains unrecognized metric: [foo]\"},\"status\":400}");
    EXPECT("POST", "/s1/_flush", NULL, 200, "{\"_shards\":{\"total\":1,\"successful\":1,\"failed\":0}}");
    EXPECT("POST", "/_forcemerge?max_num_segments=1", NULL, 200,
           "{\"_shards\":{\"total\":1,\"successful\":1,\"failed\":0}}");
}

static void test_filter_path(void **s) {
    (void)s;
    OK("PUT", "/f", NULL);
    OK("PUT", "/f/_doc/1?refresh=true", "{\"a\":{\"b\":1,\"c\":2}}");
    EXPECT("GET", "/f/_search?filter_path=hits.hits._source.a.b", NULL, 200,
           "{\"hits\":{\"hits\":[{\"_source\":{\"a\":{\"b\":1}}}]}}");
    EXPECT("GET", "/f/_search?filter_path=**.c", NULL, 200, "{\"hits\":{\"hits\":[{\"_source\":{\"a\":{\"c\":2}}}]}}");
    EXPECT("GET", "/f/_search?filter_path=-hits,-took,-_shards", NULL, 200, "{\"timed_out\":false}");
    EXPECT("GET", "/f/_search?filter_path=hits.total,-hits.total.relation", NULL, 200,
           "{\"hits\":{\"total\":{\"value\":1}}}");
    EXPECT("GET", "/f/_search?filter_path=nothing", NULL, 200, "{}");
    /* errors are not filtered */
    EXPECT("GET", "/zz/_search?filter_path=status", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"index_not_found_exception\",\"reason\":\"no such index [zz]\","
           "\"index\":\"zz\",\"resource.id\":\"zz\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\"}],"
           "\"type\":\"index_not_found_exception\",\"reason\":\"no such index [zz]\",\"index\":\"zz\","
           "\"resource.id\":\"zz\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\"},\"status\":404}");
}

/* Voting config exclusions: absent nodes are listed, the list is capped at
 * 10, DELETE clears it, and trove's own node is refused. */
static void test_voting_exclusions(void **s) {
    (void)s;
    const char *both = "Please set node identifiers correctly. One and only one of [node_name], [node_names] and "
                       "[node_ids] has to be set";
    EXPECT_HAS("POST", "/_cluster/voting_config_exclusions", NULL, 400, both);
    EXPECT_HAS("POST", "/_cluster/voting_config_exclusions?node_ids=a&node_names=b", NULL, 400, both);
    EXPECT("POST", "/_cluster/voting_config_exclusions?node_ids=a,b", NULL, 200, "");
    EXPECT("POST", "/_cluster/voting_config_exclusions?node_ids=a", NULL, 200, ""); /* already there */
    EXPECT("POST", "/_cluster/voting_config_exclusions?node_names=n1,n2,n3,n4,n5,n6,n7,n8", NULL, 200, "");
    EXPECT_HAS("POST", "/_cluster/voting_config_exclusions?node_names=n9", NULL, 400,
               "\"reason\":\"add voting config exclusions request for nodes named [n9] would add [1] exclusions to "
               "the existing [10] which would exceed the maximum of [10] set by "
               "[cluster.max_voting_config_exclusions]\"");
    EXPECT_HAS("POST", "/_cluster/voting_config_exclusions?node_names=trove&timeout=1s", NULL, 400,
               "unsupported_operation_exception");
    EXPECT_HAS("POST", "/_cluster/voting_config_exclusions?node_ids=z&timeout=soon", NULL, 400,
               "failed to parse setting [timeout] with value [soon] as a time value");
    EXPECT("DELETE", "/_cluster/voting_config_exclusions?wait_for_removal=false", NULL, 200, "");
    EXPECT("POST", "/_cluster/voting_config_exclusions?node_names=n9", NULL, 200, "");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_health, setup, teardown),
        cmocka_unit_test_setup_teardown(test_health_nowait, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cluster_settings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_settings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_close, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stats_flush, setup, teardown),
        cmocka_unit_test_setup_teardown(test_filter_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_voting_exclusions, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
