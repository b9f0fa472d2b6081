/*
 * test_api_nodes_stats.c — GET /_nodes/stats through the REST API: every
 * section in NodeStats' order, metric and index metric selection, the
 * numbers being the node's real ones, and OpenSearch's errors.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_test.h"

/* A number after "key": at or after the first `after` (NULL: anywhere);
 * -1 when absent. */
static long long num_after(const char *body, const char *after, const char *key) {
    const char *p = after ? strstr(body, after) : body;
    if (!p) return -1;
    char k[96];
    snprintf(k, sizeof k, "\"%s\":", key);
    p = strstr(p, k);
    return p ? strtoll(p + strlen(k), NULL, 10) : -1;
}

static void index_docs(const char *index, int n) {
    char path[64];
    snprintf(path, sizeof path, "/%s", index);
    OK("PUT", path, NULL);
    for (int i = 0; i < n; i++) {
        char doc[64];
        snprintf(path, sizeof path, "/%s/_doc/%d", index, i);
        snprintf(doc, sizeof doc, "{\"n\":%d,\"t\":\"word %d\"}", i, i);
        OK("PUT", path, doc);
    }
    snprintf(path, sizeof path, "/%s/_refresh", index);
    OK("POST", path, NULL);
}

/* Every section, once, in NodeStats.toXContent's order. */
static void test_sections_in_order(void **s) {
    (void)s;
    index_docs("a", 2);
    char *b = NULL;
    assert_int_equal(req("GET", "/_nodes/stats", NULL, &b), 200);
    static const char *const keys[] = {
        "\"_nodes\":{\"total\":1,\"successful\":1,\"failed\":0}", "\"cluster_name\":\"trove\"", "\"timestamp\":",
        "\"name\":", "\"roles\":", "\"attributes\":{", "\"indices\":{\"docs\":{", "\"os\":{", "\"process\":{",
        "\"jvm\":{", "\"thread_pool\":{", "\"fs\":{", "\"transport\":{", "\"http\":{", "\"breakers\":{",
        "\"script\":{", "\"discovery\":{", "\"ingest\":{", "\"adaptive_selection\":{", "\"script_cache\":{",
        "\"indexing_pressure\":{", "\"shard_indexing_pressure\":{", "\"search_backpressure\":{",
        "\"cluster_manager_throttling\":{", "\"weighted_routing\":{", "\"task_cancellation\":{",
        "\"search_pipeline\":{", "\"resource_usage_stats\":{", "\"segment_replication_backpressure\":{",
        "\"repositories\":[", "\"admission_control\":{", "\"caches\":{", "\"remote_store\":{"};
    const char *p = b;
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const char *q = strstr(p, keys[i]);
        if (!q) fail_msg("%s missing after ...%.60s", keys[i], p);
        p = q + strlen(keys[i]);
    }
    /* no file cache without the search role */
    assert_null(strstr(b, "\"file_cache\""));
    /* the sections' shapes */
    assert_non_null(strstr(b, "\"transport\":{\"server_open\":0,\"total_outbound_connections\":0,\"rx_count\":0,"
                              "\"rx_size_in_bytes\":0,\"tx_count\":0,\"tx_size_in_bytes\":0}"));
    assert_non_null(strstr(b, "\"ingest\":{\"total\":{\"count\":0,\"time_in_millis\":0,\"current\":0,\"failed\":0},"
                              "\"pipelines\":{}}"));
    assert_non_null(strstr(b, "\"search\":{\"threads\":0,\"queue\":0,\"active\":0,\"rejected\":0,\"largest\":0,"
                              "\"completed\":0,\"total_wait_time_in_nanos\":0}"));
    assert_non_null(strstr(b, "\"gc\":{\"collectors\":{\"young\":{\"collection_count\":0,"));
    free(b);
}

/* The figures are the node's: documents indexed, store bytes equal to
 * _stats', memory between zero and the machine's, uptime growing. */
static void test_numbers_real(void **s) {
    (void)s;
    index_docs("a", 7);
    index_docs("b", 5);
    OK("DELETE", "/b/_doc/0", NULL);
    OK("POST", "/b/_refresh", NULL);
    char *b = NULL, *st = NULL;
    assert_int_equal(req("GET", "/_nodes/stats", NULL, &b), 200);
    assert_int_equal(num_after(b, "\"indices\":{\"docs\":", "count"), 11);
    assert_int_equal(num_after(b, "\"indices\":{\"docs\":", "deleted"), 1);
    assert_int_equal(num_after(b, "\"indexing\":", "index_total"), 12);
    assert_int_equal(num_after(b, "\"indexing\":", "delete_total"), 1);
    assert_int_equal(req("GET", "/_all/_stats/store", NULL, &st), 200);
    long long store = num_after(b, "\"store\":", "size_in_bytes");
    assert_true(store > 0);
    assert_int_equal(store, num_after(st, "\"_all\":{\"primaries\":{\"store\":", "size_in_bytes"));
    long long heap = num_after(b, "\"jvm\":", "heap_used_in_bytes");
    long long mem = num_after(b, "\"os\":", "total_in_bytes");
    assert_true(heap > 0);
    assert_true(heap < mem);
    assert_true(num_after(b, "\"jvm\":", "heap_max_in_bytes") > 0);
    assert_true(num_after(b, "\"process\":", "open_file_descriptors") > 0);
    assert_true(num_after(b, "\"process\":", "total_virtual_in_bytes") >= heap);
    assert_true(num_after(b, "\"threads\":{", "count") >= 1);
    long long up1 = num_after(b, "\"jvm\":", "uptime_in_millis");
    free(b);
    free(st);
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    assert_int_equal(req("GET", "/_nodes/stats/jvm", NULL, &b), 200);
    assert_true(num_after(b, "\"jvm\":", "uptime_in_millis") > up1);
    free(b);
    /* in process: no HTTP connection */
    EXPECT_HAS("GET", "/_nodes/stats/http", NULL, 200, "\"http\":{\"current_open\":0,\"total_opened\":0}");
}

/* Metrics and index metrics select sections; level=indices adds each
 * index's own figures. */
static void test_selection(void **s) {
    (void)s;
    index_docs("x", 3);
    index_docs("y", 1);
    char *b = NULL;
    assert_int_equal(req("GET", "/_nodes/stats/jvm,os", NULL, &b), 200);
    assert_non_null(strstr(b, "\"os\":{"));
    assert_non_null(strstr(b, "\"jvm\":{"));
    assert_null(strstr(b, "\"indices\":"));
    assert_null(strstr(b, "\"breakers\":"));
    assert_null(strstr(b, "\"process\":"));
    free(b);
    EXPECT_HAS("GET", "/_nodes/stats/indices/docs", NULL, 200,
               "\"attributes\":{\"shard_indexing_pressure_enabled\":\"true\"},\"indices\":{\"docs\":{\"count\":4,"
               "\"deleted\":0}}}}}");
    EXPECT_HAS("GET", "/_nodes/_local/stats/indices/docs,store?level=indices", NULL, 200,
               "\"indices\":{\"docs\":{\"count\":4,\"deleted\":0},\"store\":{");
    assert_int_equal(req("GET", "/_nodes/stats/indices/docs?level=indices", NULL, &b), 200);
    assert_non_null(strstr(b, "\"indices\":{\"x\":{\"docs\":{\"count\":3,\"deleted\":0}},\"y\":{\"docs\":{\"count\":1,"
                              "\"deleted\":0}}}}"));
    free(b);
    EXPECT_HAS("GET", "/_nodes/stats/indices/docs?level=node", NULL, 200, "\"indices\":{\"docs\":{\"count\":4,"
                                                                           "\"deleted\":0}}}}}");
    /* human strings before the figures */
    EXPECT_HAS("GET", "/_nodes/stats/process?human", NULL, 200, "\"cpu\":{\"percent\":");
    EXPECT_HAS("GET", "/_nodes/stats/jvm?human", NULL, 200, "\"mem\":{\"heap_used\":\"");
    EXPECT_HAS("GET", "/_nodes/stats/fielddata?human", NULL, 400, "contains unrecognized metric: [fielddata]");
    EXPECT_HAS("GET", "/_nodes/stats/indices/fielddata?fields=*", NULL, 200,
               "\"fielddata\":{\"memory_size_in_bytes\":0,\"evictions\":0,\"fields\":{}}");
    /* a node id that is not this node's: no node */
    EXPECT("GET", "/_nodes/other/stats/jvm", NULL, 200,
           "{\"_nodes\":{\"total\":0,\"successful\":0,\"failed\":0},\"cluster_name\":\"trove\",\"nodes\":{}}");
    EXPECT_HAS("GET", "/_nodes/_all/stats/transport", NULL, 200, "\"transport\":{\"server_open\":0,");
}

/* RestNodesStatsAction's errors. */
static void test_errors(void **s) {
    (void)s;
#define ERR(path, reason)                                                                                     \
    EXPECT_HAS("GET", path, NULL, 400,                                                                        \
               "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"" reason "\"}]")
    ERR("/_nodes/stats/x", "request [/_nodes/stats/x] contains unrecognized metric: [x]");
    ERR("/_nodes/stats/jvmm,os,zz",
        "request [/_nodes/stats/jvmm,os,zz] contains unrecognized metrics: [jvmm] -> did you mean [jvm]?, [zz]");
    ERR("/_nodes/stats/_all,jvm", "request [/_nodes/stats/_all,jvm] contains _all and individual metrics [_all,jvm]");
    ERR("/_nodes/stats/jvm/docs", "request [/_nodes/stats/jvm/docs] contains index metrics [docs] but indices stats "
                                  "not requested");
    ERR("/_nodes/stats/_all/docs", "request [/_nodes/stats/_all/docs] contains index metrics [docs] but all stats "
                                   "requested");
    ERR("/_nodes/stats/indices/dcs", "request [/_nodes/stats/indices/dcs] contains unrecognized index metric: [dcs] "
                                     "-> did you mean [docs]?");
    ERR("/_nodes/stats/indices?level=all",
        "level parameter must be one of [indices] or [node] or [shards] but was [all]");
    EXPECT_STATUS("GET", "/_nodes/stats?level=bogus", NULL, 400);
    EXPECT_HAS("GET", "/_nodes/stats?bogus=1", NULL, 400, "contains unrecognized parameter: [bogus]");
#undef ERR
}

/* The script cache's compilations count scripts compiled once each. */
static void test_script_counters(void **s) {
    (void)s;
    index_docs("sc", 2);
    char *b = NULL;
    assert_int_equal(req("GET", "/_nodes/stats/script", NULL, &b), 200);
    long long before = num_after(b, "\"script\":", "compilations");
    free(b);
    assert_true(before >= 0);
    const char *q = "{\"script\":{\"source\":\"ctx._source.n += 12345 - 12344\"}}";
    OK("POST", "/sc/_update/0", q);
    OK("POST", "/sc/_update/1", q); /* cached: no second compilation */
    assert_int_equal(req("GET", "/_nodes/stats/script,script_cache", NULL, &b), 200);
    assert_int_equal(num_after(b, "\"script\":", "compilations"), before + 1);
    assert_int_equal(num_after(b, "\"script_cache\":{\"sum\":", "compilations"), before + 1);
    assert_int_equal(num_after(b, "\"script\":", "compilation_limit_triggered"), 0);
    free(b);
}

/* _cat/pending_tasks: OpenSearch's columns, never a row on one node. */
static void test_cat_pending_tasks(void **s) {
    (void)s;
    index_docs("p", 1);
    EXPECT("GET", "/_cat/pending_tasks", NULL, 200, "");
    EXPECT("GET", "/_cat/pending_tasks?v", NULL, 200, "insertOrder timeInQueue priority source\n");
    EXPECT("GET", "/_cat/pending_tasks?format=json", NULL, 200, "[]");
    EXPECT("GET", "/_cat/pending_tasks?help", NULL, 200,
           "insertOrder | o | task insertion order           \n"
           "timeInQueue | t | how long task has been in queue\n"
           "priority    | p | task priority                  \n"
           "source      | s | task source                    \n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sections_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_numbers_real, setup, teardown),
        cmocka_unit_test_setup_teardown(test_selection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_script_counters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cat_pending_tasks, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
