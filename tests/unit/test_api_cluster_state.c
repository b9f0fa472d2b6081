/* test_api_cluster_state.c — _cluster/state, _cluster/stats, voting config
 * exclusions, allocation explain, pending tasks, remote info, nodes info,
 * component templates and snapshot repositories/snapshots, through
 * trove_request. Per-run values (uuids, dates, ids) are masked or checked
 * by shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"

#include "api_test.h"

static void test_state_metrics(void **s) {
    (void)s;
    OK("PUT", "/a", "{\"settings\":{\"number_of_shards\":2,\"number_of_replicas\":1}}");
    OK("PUT", "/b", "{\"settings\":{\"number_of_replicas\":0}}");
    /* no blocks: an empty object */
    EXPECT("GET", "/_cluster/state/blocks?filter_path=blocks", NULL, 200, "{\"blocks\":{}}");
    OK("PUT", "/a/_settings", "{\"index.blocks.read_only\":true}");
    EXPECT("GET", "/_cluster/state/blocks?filter_path=blocks", NULL, 200,
           "{\"blocks\":{\"indices\":{\"a\":{\"5\":{\"description\":\"index read-only (api)\",\"retryable\":false,"
           "\"levels\":[\"write\",\"metadata_write\"]}}}}}");
    OK("PUT", "/a/_settings", "{\"index.blocks.read_only\":false}");
    /* only the metrics asked for, cluster_uuid always */
    char *got;
    assert_int_equal(req("GET", "/_cluster/state/cluster_manager_node", NULL, &got), 200);
    assert_non_null(strstr(got, "\"cluster_uuid\":"));
    assert_non_null(strstr(got, "\"cluster_manager_node\":"));
    assert_null(strstr(got, "\"master_node\""));
    assert_null(strstr(got, "\"metadata\""));
    assert_null(strstr(got, "\"version\""));
    free(got);
    /* the index filter: metadata and routing table of b only */
    assert_int_equal(req("GET", "/_cluster/state/metadata,routing_table/b", NULL, &got), 200);
    assert_non_null(strstr(got, "\"indices\":{\"b\":{"));
    assert_null(strstr(got, "\"a\":{"));
    assert_null(strstr(got, "\"templates\""));
    free(got);
    /* a's routing: 2 started primaries, each with an unassigned replica */
    EXPECT("GET", "/_cluster/state/routing_table/a?filter_path=routing_table.indices.a.shards.*.state", NULL, 200,
           "{\"routing_table\":{\"indices\":{\"a\":{\"shards\":{\"0\":[{\"state\":\"STARTED\"},{\"state\":"
           "\"UNASSIGNED\"}],\"1\":[{\"state\":\"STARTED\"},{\"state\":\"UNASSIGNED\"}]}}}}}");
    EXPECT("GET", "/_cluster/state/routing_nodes?filter_path=routing_nodes.unassigned.shard", NULL, 200,
           "{\"routing_nodes\":{\"unassigned\":[{\"shard\":0},{\"shard\":1}]}}");
    /* the version moves with metadata changes, not with document writes */
    char *v1, *v2, *v3;
    assert_int_equal(req("GET", "/_cluster/state/version?filter_path=version", NULL, &v1), 200);
    OK("PUT", "/b/_doc/1?refresh=true", "{\"x\":1}");
    assert_int_equal(req("GET", "/_cluster/state/version?filter_path=version", NULL, &v2), 200);
    assert_string_equal(v1, v2);
    OK("PUT", "/c", NULL);
    assert_int_equal(req("GET", "/_cluster/state/version?filter_path=version", NULL, &v3), 200);
    assert_string_not_equal(v2, v3);
    free(v1);
    free(v2);
    free(v3);
    /* the closed index block */
    OK("POST", "/b/_close", NULL);
    EXPECT_HAS("GET", "/_cluster/state/blocks", NULL, 200,
               "\"b\":{\"4\":{\"description\":\"index closed\",\"retryable\":false,\"levels\":[\"read\",\"write\"]}}");
    EXPECT_HAS("GET", "/_cluster/state/metadata/b", NULL, 200, "\"state\":\"close\"");
}

static void test_voting_exclusions(void **s) {
    (void)s;
    EXPECT("GET", "/_cluster/state/metadata?filter_path=metadata.cluster_coordination.voting_config_exclusions",
           NULL, 200, "{\"metadata\":{\"cluster_coordination\":{\"voting_config_exclusions\":[]}}}");
    EXPECT_STATUS("POST", "/_cluster/voting_config_exclusions?node_ids=n1,n2", NULL, 200);
    EXPECT("GET", "/_cluster/state/metadata?filter_path=metadata.cluster_coordination.voting_config_exclusions",
           NULL, 200,
           "{\"metadata\":{\"cluster_coordination\":{\"voting_config_exclusions\":[{\"node_id\":\"n1\",\"node_name\":"
           "\"_absent_\"},{\"node_id\":\"n2\",\"node_name\":\"_absent_\"}]}}}");
    EXPECT_HAS("POST", "/_cluster/voting_config_exclusions", NULL, 400,
               "Please set node identifiers correctly. One and only one of [node_name], [node_names] and [node_ids] "
               "has to be set");
    EXPECT_HAS("POST", "/_cluster/voting_config_exclusions?node_ids=a&node_names=b", NULL, 400,
               "illegal_argument_exception");
    EXPECT_STATUS("DELETE", "/_cluster/voting_config_exclusions", NULL, 200);
    EXPECT_HAS("GET", "/_cluster/state/metadata", NULL, 200, "\"voting_config_exclusions\":[]");
}

static void test_stats_and_small(void **s) {
    (void)s;
    OK("PUT", "/s1", "{\"settings\":{\"number_of_replicas\":0},\"mappings\":{\"properties\":{\"k\":{\"type\":"
                     "\"keyword\"},\"t\":{\"type\":\"text\"}}}}");
    OK("PUT", "/s1/_doc/1?refresh=true", "{\"k\":\"x\",\"t\":\"y\"}");
    OK("PUT", "/s1/_doc/2?refresh=true", "{\"k\":\"z\"}");
    EXPECT("GET", "/_cluster/stats?filter_path=status,indices.count,indices.docs,nodes.count", NULL, 200,
           "{\"status\":\"green\",\"indices\":{\"count\":1,\"docs\":{\"count\":2,\"deleted\":0}},\"nodes\":{\"count\":"
           "{\"total\":1,\"cluster_manager\":1,\"coordinating_only\":0,\"data\":1,\"ingest\":1,\"master\":1,"
           "\"remote_cluster_client\":1,\"search\":0}}}");
    EXPECT("GET", "/_cluster/stats?filter_path=indices.mappings,nodes.discovery_types,nodes.packaging_types", NULL,
           200,
           "{\"indices\":{\"mappings\":{\"field_types\":[{\"name\":\"keyword\",\"count\":1,\"index_count\":1},{"
           "\"name\":\"text\",\"count\":1,\"index_count\":1}]}},\"nodes\":{\"discovery_types\":{\"single-node\":1},"
           "\"packaging_types\":[{\"type\":\"tar\",\"count\":1}]}}");
    EXPECT("GET", "/_cluster/stats/nodes/nobody?filter_path=_nodes", NULL, 200,
           "{\"_nodes\":{\"total\":0,\"successful\":0,\"failed\":0}}");
    EXPECT("GET", "/_cluster/pending_tasks", NULL, 200, "{\"tasks\":[]}");
    EXPECT("GET", "/_remote/info", NULL, 200, "{}");
}

static void test_allocation_explain(void **s) {
    (void)s;
    EXPECT("GET", "/_cluster/allocation/explain", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"unable to find any "
           "unassigned shards to explain [ClusterAllocationExplainRequest[useAnyUnassignedShard=true,"
           "includeYesDecisions?=false]\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"unable to find any "
           "unassigned shards to explain [ClusterAllocationExplainRequest[useAnyUnassignedShard=true,"
           "includeYesDecisions?=false]\"},\"status\":400}");
    OK("PUT", "/e", "{\"settings\":{\"number_of_replicas\":2}}");
    EXPECT("GET", "/_cluster/allocation/explain?filter_path=index,shard,primary,current_state,can_allocate", NULL,
           200,
           "{\"index\":\"e\",\"shard\":0,\"primary\":false,\"current_state\":\"unassigned\",\"can_allocate\":\"no\"}");
    EXPECT("POST", "/_cluster/allocation/explain?filter_path=current_state,can_remain_on_current_node",
           "{\"index\":\"e\",\"shard\":0,\"primary\":true}", 200,
           "{\"current_state\":\"started\",\"can_remain_on_current_node\":\"yes\"}");
    EXPECT_HAS("POST", "/_cluster/allocation/explain", "{\"index\":\"e\"}", 400,
               "Validation Failed: 1: shard must be specified;2: primary must be specified;");
    EXPECT_HAS("POST", "/_cluster/allocation/explain", "{\"index\":\"nope\",\"shard\":0,\"primary\":true}", 404,
               "index_not_found_exception");
    EXPECT_HAS("POST", "/_cluster/allocation/explain", "{\"index\":\"e\",\"shard\":3,\"primary\":true}", 400,
               "unable to find any shards to explain");
}

static void test_nodes_info(void **s) {
    (void)s;
    char *got;
    assert_int_equal(req("GET", "/_nodes", NULL, &got), 200);
    assert_non_null(strstr(got, "\"roles\":[\"cluster_manager\",\"data\",\"ingest\",\"remote_cluster_client\"]"));
    assert_non_null(strstr(got, "\"os\":{"));
#if defined(TROVE_HAVE_ICU) && defined(TROVE_HAVE_MECAB)
    assert_non_null(strstr(got, "\"plugins\":[{\"name\":\"analysis-icu\""));
    assert_non_null(strstr(got, "{\"name\":\"analysis-kuromoji\""));
#elif defined(TROVE_HAVE_ICU)
    assert_non_null(strstr(got, "\"plugins\":[{\"name\":\"analysis-icu\""));
#elif defined(TROVE_HAVE_MECAB)
    assert_non_null(strstr(got, "\"plugins\":[{\"name\":\"analysis-kuromoji\""));
#else
    assert_non_null(strstr(got, "\"plugins\":[]"));
#endif
    free(got);
    /* one path segment of metric names is metrics */
    assert_int_equal(req("GET", "/_nodes/os", NULL, &got), 200);
    assert_non_null(strstr(got, "\"os\":{"));
    assert_null(strstr(got, "\"process\":{"));
    free(got);
    /* else node ids: none matches */
    EXPECT("GET", "/_nodes/nobody?filter_path=_nodes", NULL, 200,
           "{\"_nodes\":{\"total\":0,\"successful\":0,\"failed\":0}}");
    EXPECT_HAS("GET", "/_nodes/_local/http", NULL, 400, "unsupported_operation_exception");
    /* nodes stats fs */
    EXPECT_HAS("GET", "/_nodes/stats/fs", NULL, 200, "\"cache_reserved_in_bytes\":0,\"cache_utilized_in_bytes\":0");
}

static void test_component_templates(void **s) {
    (void)s;
    EXPECT("GET", "/_component_template", NULL, 200, "{\"component_templates\":[]}");
    EXPECT_HAS("GET", "/_component_template/ct", NULL, 404, "component template matching [ct] not found");
    EXPECT_STATUS("HEAD", "/_component_template/ct", NULL, 404);
    OK("PUT", "/_component_template/ct",
       "{\"template\":{\"settings\":{\"number_of_shards\":3},\"mappings\":{\"properties\":{\"f\":{\"type\":"
       "\"keyword\"}}}},\"version\":2}");
    EXPECT("GET", "/_component_template/ct", NULL, 200,
           "{\"component_templates\":[{\"name\":\"ct\",\"component_template\":{\"template\":{\"settings\":{\"index\":"
           "{\"number_of_shards\":\"3\"}},\"mappings\":{\"properties\":{\"f\":{\"type\":\"keyword\"}}}},"
           "\"version\":2}}]}");
    EXPECT_STATUS("HEAD", "/_component_template/ct", NULL, 200);
    EXPECT_HAS("PUT", "/_component_template/ct?create=true", "{\"template\":{}}", 400,
               "component template [ct] already exists");
    EXPECT_HAS("PUT", "/_component_template/x", "{\"version\":1}", 400, "Required [template]");
    /* a composable template must name existing components */
    EXPECT_HAS("PUT", "/_index_template/it", "{\"index_patterns\":[\"logs-*\"],\"composed_of\":[\"ct\",\"nope\"]}",
               400, "specifies component templates [nope] that do not exist");
    OK("PUT", "/_index_template/it",
       "{\"index_patterns\":[\"logs-*\"],\"composed_of\":[\"ct\"],\"template\":{\"settings\":{\"number_of_replicas\":"
       "0}}}");
    /* applied at index creation: the component's settings and mapping, the template's own over them */
    OK("PUT", "/logs-1", NULL);
    EXPECT("GET", "/logs-1/_settings?filter_path=*.settings.index.number_of_*", NULL, 200,
           "{\"logs-1\":{\"settings\":{\"index\":{\"number_of_shards\":\"3\",\"number_of_replicas\":\"0\"}}}}");
    EXPECT_HAS("GET", "/logs-1/_mapping", NULL, 200, "\"f\":{\"type\":\"keyword\"}");
    /* in use: cannot be removed */
    EXPECT_HAS("DELETE", "/_component_template/ct", NULL, 400,
               "component templates [ct] cannot be removed as they are still in use by index templates [it]");
    OK("DELETE", "/_index_template/it", NULL);
    OK("DELETE", "/_component_template/ct", NULL);
    EXPECT_HAS("DELETE", "/_component_template/ct", NULL, 404, "resource_not_found_exception");
    /* legacy templates are untouched by component deletes */
    OK("PUT", "/_template/leg", "{\"index_patterns\":[\"z*\"]}");
    OK("DELETE", "/_component_template/*", NULL);
    EXPECT_HAS("GET", "/_template/leg", NULL, 200, "\"leg\":{\"order\":0");
}

static void test_snapshots(void **s) {
    (void)s;
    EXPECT_HAS("PUT", "/_snapshot/r", "{\"settings\":{\"location\":\"x\"}}", 400, "type is missing");
    EXPECT_HAS("PUT", "/_snapshot/r", "{\"type\":\"s3\",\"settings\":{}}", 500,
               "[r] repository type [s3] does not exist");
    EXPECT_HAS("PUT", "/_snapshot/r", "{\"type\":\"fs\",\"settings\":{}}", 500, "[r] missing location");
    OK("PUT", "/_snapshot/r", "{\"type\":\"fs\",\"settings\":{\"location\":\"loc\"}}");
    EXPECT("GET", "/_snapshot", NULL, 200, "{\"r\":{\"type\":\"fs\",\"settings\":{\"location\":\"loc\"}}}");
    EXPECT_HAS("GET", "/_snapshot/nope", NULL, 404, "repository_missing_exception");
    OK("PUT", "/i1", "{\"settings\":{\"number_of_shards\":2,\"number_of_replicas\":0}}");
    EXPECT("PUT", "/_snapshot/r/s1?wait_for_completion=true&filter_path=snapshot.snapshot,snapshot.indices,"
                  "snapshot.state,snapshot.shards",
           NULL, 200,
           "{\"snapshot\":{\"snapshot\":\"s1\",\"indices\":[\"i1\"],\"state\":\"SUCCESS\",\"shards\":{\"total\":2,"
           "\"failed\":0,\"successful\":2}}}");
    EXPECT_HAS("PUT", "/_snapshot/r/s1", NULL, 400, "snapshot with the same name already exists");
    EXPECT_HAS("PUT", "/_snapshot/r/Bad", NULL, 400, "Invalid snapshot name [Bad], must be lowercase");
    EXPECT_HAS("PUT", "/_snapshot/r/s2", "{\"indices\":\"missing\"}", 404, "index_not_found_exception");
    EXPECT("PUT", "/_snapshot/r/s2", "{\"indices\":\"missing\",\"ignore_unavailable\":true}", 200,
           "{\"accepted\":true}");
    EXPECT("GET", "/_snapshot/r/_all?filter_path=snapshots.snapshot", NULL, 200,
           "{\"snapshots\":[{\"snapshot\":\"s1\"},{\"snapshot\":\"s2\"}]}");
    EXPECT_HAS("GET", "/_snapshot/r/zz", NULL, 404, "[r:zz] is missing");
    char *got;
    assert_int_equal(req("GET", "/_cat/snapshots/r?h=id,status,indices,successful_shards,total_shards", NULL, &got),
                     200);
    assert_string_equal(got, "s1 SUCCESS 1 2 2\ns2 SUCCESS 0 0 0\n");
    free(got);
    OK("DELETE", "/_snapshot/r/s1", NULL);
    EXPECT_HAS("DELETE", "/_snapshot/r/s1", NULL, 404, "snapshot_missing_exception");
    EXPECT("POST", "/_snapshot/r/_cleanup", NULL, 200, "{\"results\":{\"deleted_bytes\":0,\"deleted_blobs\":0}}");
    /* restore stays unsupported: no data was copied */
    EXPECT_HAS("POST", "/_snapshot/r/s2/_restore", NULL, 400, "unsupported_operation_exception");
    OK("DELETE", "/_snapshot/r", NULL);
    EXPECT_HAS("DELETE", "/_snapshot/r", NULL, 404, "[r] missing");
}

static void test_backpressure_setting(void **s) {
    (void)s;
    EXPECT("PUT", "/_cluster/settings", "{\"persistent\":{\"search_backpressure.mode\":\"monitor_only\"}}", 200,
           "{\"acknowledged\":true,\"persistent\":{\"search_backpressure\":{\"mode\":\"monitor_only\"}},"
           "\"transient\":{}}");
    EXPECT_HAS("PUT", "/_cluster/settings", "{\"persistent\":{\"search_backpressure.mode\":\"monitor-only\"}}", 400,
               "Invalid SearchBackpressureMode: monitor-only");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_state_metrics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_voting_exclusions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stats_and_small, setup, teardown),
        cmocka_unit_test_setup_teardown(test_allocation_explain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nodes_info, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_templates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_snapshots, setup, teardown),
        cmocka_unit_test_setup_teardown(test_backpressure_setting, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
