/* test_api_cat_cluster.c — _cat/templates, shards, recovery,
 * cluster_manager (and master), thread_pool and plugins through
 * trove_request: rows, column selection, sorting, filters, help. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"

#include "api_test.h"

static char *get(const char *path) {
    char *got;
    int st = req("GET", path, NULL, &got);
    if (st != 200) fail_msg("GET %s: %d %s", path, st, got);
    return got;
}

static void test_cat_templates(void **s) {
    (void)s;
    char *got = get("/_cat/templates");
    assert_string_equal(got, "");
    free(got);
    OK("PUT", "/_template/t1", "{\"order\":1,\"version\":7,\"index_patterns\":[\"a*\",\"b*\"]}");
    OK("PUT", "/_template/t0", "{\"index_patterns\":\"c*\"}");
    OK("PUT", "/_component_template/comp", "{\"template\":{}}");
    OK("PUT", "/_index_template/v2", "{\"index_patterns\":[\"v2*\"],\"priority\":4,\"version\":3,"
                                     "\"composed_of\":[\"comp\"]}");
    /* legacy rows, then composable ones; component templates are not rows */
    got = get("/_cat/templates?v");
    assert_string_equal(got, "name index_patterns order version composed_of\n"
                             "t0   [c*]           0             \n"
                             "t1   [a*, b*]       1     7       \n"
                             "v2   [v2*]          4     3       [comp]\n");
    free(got);
    got = get("/_cat/templates/t*?h=name,version&s=version:desc");
    assert_string_equal(got, "t1 7\nt0 \n");
    free(got);
    got = get("/_cat/templates?help");
    assert_non_null(strstr(got, "composed_of    | c   | component templates comprising index template"));
    free(got);
    got = get("/_cat/templates/v2?format=json");
    assert_string_equal(got, "[{\"name\":\"v2\",\"index_patterns\":\"[v2*]\",\"order\":\"4\",\"version\":\"3\","
                             "\"composed_of\":\"[comp]\"}]");
    free(got);
}

static void test_cat_shards(void **s) {
    (void)s;
    OK("PUT", "/one", "{\"settings\":{\"number_of_replicas\":0}}");
    OK("PUT", "/one/_doc/1?refresh=true", "{\"x\":1}");
    OK("PUT", "/one/_doc/2?refresh=true", "{\"x\":2}");
    OK("PUT", "/two", "{\"settings\":{\"number_of_shards\":2,\"number_of_replicas\":1}}");
    char *got = get("/_cat/shards?h=index,shard,prirep,state,docs,unassigned.reason");
    assert_string_equal(got, "one 0 p STARTED    2 \n"
                             "two 0 p STARTED      \n"
                             "two 0 r UNASSIGNED   INDEX_CREATED\n"
                             "two 1 p STARTED      \n"
                             "two 1 r UNASSIGNED   INDEX_CREATED\n");
    free(got);
    got = get("/_cat/shards/o*?h=i,n");
    char want[256];
    char *name = NULL;
    char *nodes;
    assert_int_equal(req("GET", "/_nodes?filter_path=nodes.*.name", NULL, &nodes), 200);
    name = field(nodes, "name");
    assert_non_null(name);
    snprintf(want, sizeof want, "one %s\n", name);
    assert_string_equal(got, want);
    free(got);
    free(name);
    free(nodes);
    got = get("/_cat/shards?h=index,docs&s=docs:desc&pri");
    assert_string_equal(got, "one 2\ntwo  \ntwo  \ntwo  \ntwo  \n");
    free(got);
    EXPECT_HAS("GET", "/_cat/shards/nope", NULL, 404, "index_not_found_exception");
}

static void test_cat_recovery(void **s) {
    (void)s;
    char *got = get("/_cat/recovery");
    assert_string_equal(got, "");
    free(got);
    OK("PUT", "/r1", "{\"settings\":{\"number_of_replicas\":0}}");
    OK("PUT", "/r2", "{\"settings\":{\"number_of_replicas\":0}}");
    OK("POST", "/r2/_close", NULL);
    got = get("/_cat/recovery?h=i,s,ty,st,top");
    assert_string_equal(got, "r1 0 empty_store    done 100.0%\nr2 0 existing_store done 100.0%\n");
    free(got);
    got = get("/_cat/recovery?active_only=true");
    assert_string_equal(got, "");
    free(got);
}

static void test_cat_node_tables(void **s) {
    (void)s;
    char *cm = get("/_cat/cluster_manager?h=ip");
    assert_string_equal(cm, "127.0.0.1\n");
    free(cm);
    char *a = get("/_cat/cluster_manager"), *b = get("/_cat/master");
    assert_string_equal(a, b);
    free(a);
    free(b);
    char *got = get("/_cat/cluster_manager?help");
    assert_non_null(strstr(got, "host | h | host name"));
    free(got);
    got = get("/_cat/thread_pool/write,search,generic?h=name,type,total_wait_time");
    assert_string_equal(got, "generic scaling   -1\nsearch  resizable 0s\nwrite   fixed     -1\n");
    free(got);
    got = get("/_cat/thread_pool/nothing*");
    assert_string_equal(got, "");
    free(got);
    got = get("/_cat/plugins?v");
#if defined(TROVE_HAVE_ICU) && defined(TROVE_HAVE_MECAB) /* both analysis plugins */
    assert_string_equal(got, "name  component         version\ntrove analysis-icu      " TROVE_OPENSEARCH_VERSION
                             "\ntrove analysis-kuromoji " TROVE_OPENSEARCH_VERSION "\n");
#elif defined(TROVE_HAVE_MECAB) /* the Japanese analysis plugin (mecab-ipadic-utf8 installed) */
    assert_string_equal(got, "name  component         version\ntrove analysis-kuromoji " TROVE_OPENSEARCH_VERSION "\n");
#else
    assert_string_equal(got, "name component version\n");
#endif
    free(got);
}

static void test_cat_nodes_allocation(void **s) {
    (void)s;
    char *got = get("/_cat/nodes?h=ip,node.role,node.roles,cluster_manager");
    assert_string_equal(got, "127.0.0.1 dimr cluster_manager,data,ingest,remote_cluster_client *\n");
    free(got);
    got = get("/_cat/nodes?h=heap.max&bytes=b");
    char want[64];
    snprintf(want, sizeof want, "%lld\n", (long long)N->brk->b.heap);
    assert_string_equal(got, want);
    free(got);
    OK("PUT", "/al", "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":1}}");
    got = get("/_cat/allocation?h=shards,node");
    char *nodes, *name;
    assert_int_equal(req("GET", "/_nodes?filter_path=nodes.*.name", NULL, &nodes), 200);
    name = field(nodes, "name");
    char want2[256];
    snprintf(want2, sizeof want2, "3 %s\n3 UNASSIGNED\n", name);
    assert_string_equal(got, want2);
    free(got);
    free(nodes);
    free(name);
    got = get("/_cat/allocation/nobody?h=shards,node");
    assert_string_equal(got, "3 UNASSIGNED\n");
    free(got);
}

/* --node-attr: the attributes every node view shows, sorted, and their
 * validation at open. */
static void test_node_attributes(void **s) {
    (void)s;
    trove_node_free(N);
    const char *attrs[] = {"zone=z1", "rack=r7"};
    trove_options o = {.node_attrs = attrs, .n_node_attrs = 2};
    N = trove_node_open(&o, NULL);
    assert_non_null(N);
    char *got = get("/_cat/nodeattrs?h=attr,value");
    assert_string_equal(got, "rack                            r7\n"
                             "zone                            z1\n"
                             "shard_indexing_pressure_enabled true\n");
    free(got);
    got = get("/_cat/nodeattrs?help");
    assert_non_null(strstr(got, "value | attr.value | attribute value"));
    free(got);
    got = get("/_nodes?filter_path=nodes.*.attributes");
    assert_non_null(strstr(got, "{\"rack\":\"r7\",\"zone\":\"z1\",\"shard_indexing_pressure_enabled\":\"true\"}"));
    free(got);
    got = get("/_cluster/settings?include_defaults&flat_settings&filter_path=defaults.node*");
    assert_string_equal(got, "{\"defaults\":{\"node.attr.rack\":\"r7\",\"node.attr.zone\":\"z1\",\"node.name\":\"trove\"}}");
    free(got);
    /* a default is not repeated once a kind sets it */
    OK("PUT", "/_cluster/settings", "{\"persistent\":{\"search.max_buckets\":100}}");
    got = get("/_cluster/settings?include_defaults&flat_settings&filter_path=*.search*");
    assert_string_equal(got, "{\"persistent\":{\"search.max_buckets\":\"100\"},"
                             "\"defaults\":{\"search.allow_expensive_queries\":\"true\"}}");
    free(got);
    /* a clone keeps them */
    trove_node *c = trove_node_clone(N, NULL);
    trove_response resp;
    assert_int_equal(trove_request(c, "GET", "/_cat/nodeattrs?h=value", NULL, 0, &resp), 0);
    assert_string_equal(resp.body, "r7\nz1\ntrue\n");
    trove_response_fini(&resp);
    trove_node_free(c);
    /* malformed and repeated names refuse to open */
    trove_error e;
    const char *bad[] = {"rack"}, *twice[] = {"a=1", "a=2"};
    o = (trove_options){.node_attrs = bad, .n_node_attrs = 1};
    assert_null(trove_node_open(&o, &e));
    assert_string_equal(e.message, "node attribute [rack] is not NAME=VALUE");
    o = (trove_options){.node_attrs = twice, .n_node_attrs = 2};
    assert_null(trove_node_open(&o, &e));
    assert_string_equal(e.message, "node attribute [node.attr.a] is given twice");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cat_templates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cat_shards, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cat_recovery, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cat_node_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cat_nodes_allocation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_node_attributes, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
