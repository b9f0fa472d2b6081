/* test_api_alias.c — aliases through trove_request: POST /_aliases, the
 * _alias endpoints, aliases in create-index bodies and GET /{index}, reads
 * and writes through aliases (write index rules and errors), alias filters
 * on _search/_count, and index expressions (wildcards, exclusions, hidden
 * indices, expand_wildcards, ignore_unavailable, allow_no_indices). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"

#include "api_test.h"

static void test_alias_crud(void **s) {
    (void)s;
    OK("PUT", "/a", "{\"aliases\":{\"al\":{\"filter\":{\"term\":{\"k\":\"x\"}},\"routing\":\"1\"},\"al2\":{}}}");
    OK("PUT", "/b", NULL);
    EXPECT("GET", "/a/_alias", NULL, 200,
           "{\"a\":{\"aliases\":{\"al\":{\"filter\":{\"term\":{\"k\":\"x\"}},\"index_routing\":\"1\","
           "\"search_routing\":\"1\"},\"al2\":{}}}}");
    EXPECT("GET", "/_alias/al2", NULL, 200, "{\"a\":{\"aliases\":{\"al2\":{}}}}");
    EXPECT("GET", "/_alias", NULL, 200,
           "{\"a\":{\"aliases\":{\"al\":{\"filter\":{\"term\":{\"k\":\"x\"}},\"index_routing\":\"1\","
           "\"search_routing\":\"1\"},\"al2\":{}}},\"b\":{\"aliases\":{}}}");
    /* GET /_aliases is the same API (RestGetAliasesAction) */
    EXPECT("GET", "/_aliases", NULL, 200,
           "{\"a\":{\"aliases\":{\"al\":{\"filter\":{\"term\":{\"k\":\"x\"}},\"index_routing\":\"1\","
           "\"search_routing\":\"1\"},\"al2\":{}}},\"b\":{\"aliases\":{}}}");
    EXPECT_STATUS("HEAD", "/a/_alias", NULL, 200);
    EXPECT("GET", "/_alias/al2,nope", NULL, 404,
           "{\"error\":\"alias [nope] missing\",\"status\":404,\"a\":{\"aliases\":{\"al2\":{}}}}");
    EXPECT("HEAD", "/_alias/al2", NULL, 200, "");
    EXPECT("HEAD", "/b/_alias/al2", NULL, 404, "");
    EXPECT("PUT", "/b/_alias/al2", "{\"is_write_index\":true}", 200, "{\"acknowledged\":true}");
    EXPECT("GET", "/_alias/al2", NULL, 200,
           "{\"a\":{\"aliases\":{\"al2\":{}}},\"b\":{\"aliases\":{\"al2\":{\"is_write_index\":true}}}}");
    EXPECT("DELETE", "/b/_alias/al2", NULL, 200, "{\"acknowledged\":true}");
    EXPECT("DELETE", "/b/_alias/al2", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"aliases_not_found_exception\",\"reason\":\"aliases [al2] "
           "missing\",\"resource.id\":\"al2\",\"resource.type\":\"aliases\"}],\"type\":\"aliases_not_found_exception\","
           "\"reason\":\"aliases [al2] missing\",\"resource.id\":\"al2\",\"resource.type\":\"aliases\"},\"status\":404}");
    /* POST /_aliases: atomic actions */
    EXPECT("POST", "/_aliases",
           "{\"actions\":[{\"remove\":{\"index\":\"a\",\"alias\":\"al2\"}},{\"add\":{\"indices\":[\"a\",\"b\"],"
           "\"alias\":\"both\"}}]}",
           200, "{\"acknowledged\":true}");
    EXPECT("GET", "/_alias/both", NULL, 200, "{\"a\":{\"aliases\":{\"both\":{}}},\"b\":{\"aliases\":{\"both\":{}}}}");
    /* a failing action leaves everything as it was */
    EXPECT_STATUS("POST", "/_aliases",
                  "{\"actions\":[{\"remove\":{\"index\":\"a\",\"alias\":\"both\"}},{\"add\":{\"index\":\"nope\","
                  "\"alias\":\"x\"}}]}",
                  404);
    EXPECT("GET", "/_alias/both?filter_path=*.aliases", NULL, 200,
           "{\"a\":{\"aliases\":{\"both\":{}}},\"b\":{\"aliases\":{\"both\":{}}}}");
    EXPECT("POST", "/_aliases", "{\"actions\":[]}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: Must specify at least one alias action;\"}],\"type\":\"action_request_validation_exception\","
           "\"reason\":\"Validation Failed: 1: Must specify at least one alias action;\"},\"status\":400}");
    EXPECT("POST", "/_aliases", "{\"actions\":[{\"add\":{\"index\":\"a\"}}]}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: One of [alias] or [aliases] is required;\"}],\"type\":\"action_request_validation_exception\","
           "\"reason\":\"Validation Failed: 1: One of [alias] or [aliases] is required;\"},\"status\":400}");
    EXPECT("PUT", "/a/_alias/b", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"invalid_alias_name_exception\",\"reason\":\"Invalid alias name "
           "[b]: an index or data stream exists with the same name as the alias\",\"index\":\"b\",\"index_uuid\":"
           "\"X\"}],\"type\":\"invalid_alias_name_exception\",\"reason\":\"Invalid alias name [b]: an index or data "
           "stream exists with the same name as the alias\",\"index\":\"b\",\"index_uuid\":\"X\"},\"status\":400}");
    EXPECT("PUT", "/both", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"invalid_index_name_exception\",\"reason\":\"Invalid index name "
           "[both], already exists as alias\",\"index\":\"both\",\"index_uuid\":\"X\"}],\"type\":"
           "\"invalid_index_name_exception\",\"reason\":\"Invalid index name [both], already exists as alias\","
           "\"index\":\"both\",\"index_uuid\":\"X\"},\"status\":400}");
    /* remove_index drops the index; deleting an index drops its aliases */
    EXPECT("POST", "/_aliases", "{\"actions\":[{\"remove_index\":{\"index\":\"b\"}}]}", 200, "{\"acknowledged\":true}");
    EXPECT_STATUS("HEAD", "/b", NULL, 404);
    OK("DELETE", "/a", NULL);
    EXPECT("GET", "/_alias", NULL, 200, "{}");
}

static void test_alias_read_write(void **s) {
    (void)s;
    OK("PUT", "/r1", "{\"aliases\":{\"one\":{},\"many\":{},\"f\":{\"filter\":{\"term\":{\"k\":\"x\"}}}}}");
    OK("PUT", "/r2", "{\"aliases\":{\"many\":{}}}");
    OK("PUT", "/r1/_doc/1?refresh=true", "{\"k\":\"x\"}");
    OK("PUT", "/r1/_doc/2?refresh=true", "{\"k\":\"y\"}");
    /* write through an alias with one index; the answer names the index */
    EXPECT_HAS("PUT", "/one/_doc/3?refresh=true", "{\"k\":\"z\"}", 201, "{\"_index\":\"r1\",\"_id\":\"3\"");
    EXPECT_HAS("GET", "/one/_doc/3", NULL, 200, "{\"_index\":\"r1\",\"_id\":\"3\"");
    const char *nowrite = "no write index is defined for alias [many]. The write index may be explicitly disabled "
                          "using is_write_index=false or the alias points to multiple indices without one being "
                          "designated as a write index";
    EXPECT_HAS("PUT", "/many/_doc/9", "{}", 400, nowrite);
    EXPECT_HAS("GET", "/many/_doc/1", NULL, 400,
               "alias [many] has more than one index associated with it [r1, r2], can't execute a single index op");
    /* is_write_index designates the target */
    OK("POST", "/_aliases", "{\"actions\":[{\"add\":{\"index\":\"r2\",\"alias\":\"many\",\"is_write_index\":true}}]}");
    EXPECT_HAS("PUT", "/many/_doc/9?refresh=true", "{\"k\":\"x\"}", 201, "{\"_index\":\"r2\"");
    EXPECT_HAS("GET", "/many/_count", NULL, 200, "{\"count\":4,");
    /* one is_write_index per alias */
    EXPECT_HAS("POST", "/_aliases", "{\"actions\":[{\"add\":{\"index\":\"r1\",\"alias\":\"many\",\"is_write_index\":true}}]}",
               400, "alias [many] has more than one write index [r1, r2]");
    /* the alias filter applies to searches and counts */
    EXPECT_HAS("GET", "/f/_count", NULL, 200, "{\"count\":1,");
    EXPECT("POST", "/f/_search?filter_path=hits.hits._id,hits.hits._score", "{\"query\":{\"match_all\":{}}}", 200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"_score\":1.0}]}}");
    EXPECT("POST", "/f/_count", "{\"query\":{\"term\":{\"k\":\"y\"}}}", 200,
           "{\"count\":0,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0}}");
    EXPECT_HAS("GET", "/r1/_count", NULL, 200, "{\"count\":3,");
}

static void test_index_patterns(void **s) {
    (void)s;
    OK("PUT", "/logs-a", NULL);
    OK("PUT", "/logs-b", NULL);
    OK("PUT", "/other", NULL);
    OK("PUT", "/.hid", "{\"settings\":{\"index.hidden\":true}}");
    OK("PUT", "/vis-hidden", "{\"settings\":{\"index\":{\"hidden\":true}}}");
    EXPECT("GET", "/logs-*/_mapping", NULL, 200, "{\"logs-a\":{\"mappings\":{}},\"logs-b\":{\"mappings\":{}}}");
    EXPECT("GET", "/*,-logs-b/_mapping", NULL, 200, "{\"logs-a\":{\"mappings\":{}},\"other\":{\"mappings\":{}}}");
    EXPECT("GET", "/logs-a,other/_mapping", NULL, 200, "{\"logs-a\":{\"mappings\":{}},\"other\":{\"mappings\":{}}}");
    /* hidden indices: only with expand_wildcards=hidden, or a dot pattern for dot names */
    EXPECT("GET", "/*/_mapping?filter_path=*.mappings", NULL, 200,
           "{\"logs-a\":{\"mappings\":{}},\"logs-b\":{\"mappings\":{}},\"other\":{\"mappings\":{}}}");
    EXPECT("GET", "/.*/_mapping", NULL, 200, "{\".hid\":{\"mappings\":{}}}");
    EXPECT("GET", "/v*/_mapping?expand_wildcards=open,hidden", NULL, 200, "{\"vis-hidden\":{\"mappings\":{}}}");
    EXPECT("GET", "/vis-hidden/_mapping", NULL, 200, "{\"vis-hidden\":{\"mappings\":{}}}");
    EXPECT("GET", "/logs-*/_mapping?expand_wildcards=none", NULL, 200, "{}");
    EXPECT("GET", "/_all/_settings?expand_wildcards=bogus", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"No valid expand "
           "wildcard value [bogus]\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"No valid expand wildcard "
           "value [bogus]\"},\"status\":400}");
    /* missing names, ignore_unavailable, allow_no_indices */
    EXPECT_HAS("GET", "/logs-a,nope/_mapping", NULL, 404, "\"reason\":\"no such index [nope]\"");
    EXPECT("GET", "/logs-a,nope/_mapping?ignore_unavailable=true", NULL, 200, "{\"logs-a\":{\"mappings\":{}}}");
    EXPECT_HAS("GET", "/zz*/_mapping?allow_no_indices=false", NULL, 404, "\"reason\":\"no such index [zz*]\"");
    EXPECT("GET", "/zz*/_mapping", NULL, 200, "{}");
    /* delete refuses aliases and deletes through wildcards */
    OK("PUT", "/other/_alias/al", NULL);
    EXPECT_HAS("DELETE", "/al", NULL, 400,
               "The provided expression [al] matches an alias, specify the corresponding concrete indices instead.");
    OK("DELETE", "/logs-*", NULL);
    EXPECT("GET", "/_all/_mapping?expand_wildcards=all", NULL, 200,
           "{\".hid\":{\"mappings\":{}},\"other\":{\"mappings\":{}},\"vis-hidden\":{\"mappings\":{}}}");
}

static void test_clone_keeps_metadata(void **s) {
    (void)s;
    OK("PUT", "/m", "{\"aliases\":{\"ma\":{}}}");
    OK("POST", "/m/_close", NULL);
    OK("PUT", "/_index_template/mt", "{\"index_patterns\":[\"q*\"]}");
    OK("PUT", "/_cluster/settings", "{\"persistent\":{\"cluster.x\":\"1\"}}");
    trove_node *orig = N;
    N = trove_node_clone(orig, NULL);
    assert_non_null(N);
    EXPECT("GET", "/_alias/ma", NULL, 200, "{\"m\":{\"aliases\":{\"ma\":{}}}}");
    EXPECT_HAS("GET", "/m/_count", NULL, 400, "index_closed_exception");
    EXPECT("GET", "/_index_template/mt?filter_path=index_templates.name", NULL, 200,
           "{\"index_templates\":[{\"name\":\"mt\"}]}");
    EXPECT("GET", "/_cluster/settings?flat_settings", NULL, 200,
           "{\"persistent\":{\"cluster.x\":\"1\"},\"transient\":{}}");
    /* changes on the clone stay there */
    OK("DELETE", "/m/_alias/ma", NULL);
    trove_node_free(N);
    N = orig;
    EXPECT("GET", "/_alias/ma", NULL, 200, "{\"m\":{\"aliases\":{\"ma\":{}}}}");
}

/* PUT _alias's body overrides the path (RestIndexPutAliasAction), routing
 * precedence (an action's index_routing/search_routing win over routing;
 * AliasMetadata applies them in order), and a template's aliases stored
 * as AliasMetadata. */
static void test_alias_put_body_and_routing(void **s) {
    (void)s;
    OK("PUT", "/a", NULL);
    OK("PUT", "/b", NULL);
    OK("PUT", "/_alias", "{\"index\":\"a,b\",\"alias\":\"both\"}");
    EXPECT("GET", "/_alias/both", NULL, 200,
           "{\"a\":{\"aliases\":{\"both\":{}}},\"b\":{\"aliases\":{\"both\":{}}}}");
    OK("PUT", "/nope/_alias/ignored", "{\"index\":\"a\",\"alias\":\"over\"}");
    EXPECT("GET", "/_alias/over", NULL, 200, "{\"a\":{\"aliases\":{\"over\":{}}}}");
    EXPECT_HAS("PUT", "/a/_alias/x", "{\"abc\":1}", 400, "\"reason\":\"unknown field [abc]\"");
    EXPECT_HAS("PUT", "/_alias", "{\"alias\":\"x\"}", 400, "One of [index] or [indices] is required;");
    OK("POST", "/_aliases",
       "{\"actions\":[{\"add\":{\"index\":\"a\",\"alias\":\"r\",\"index_routing\":\"i\",\"routing\":\"g\"}}]}");
    EXPECT("GET", "/a/_alias/r", NULL, 200,
           "{\"a\":{\"aliases\":{\"r\":{\"index_routing\":\"i\",\"search_routing\":\"g\"}}}}");
    OK("PUT", "/c", "{\"aliases\":{\"r2\":{\"index_routing\":\"i\",\"routing\":\"g\"}}}");
    EXPECT("GET", "/c/_alias/r2", NULL, 200,
           "{\"c\":{\"aliases\":{\"r2\":{\"index_routing\":\"g\",\"search_routing\":\"g\"}}}}");
    EXPECT_HAS("POST", "/_aliases", "{\"actions\":[{\"remove\":{\"index\":\"a\",\"aliases\":[]}}]}", 400,
               "[aliases] can't be empty");
    OK("PUT", "/_template/t", "{\"index_patterns\":[\"t-*\"],\"aliases\":{\"tb\":{\"routing\":\"b\"}}}");
    EXPECT_HAS("GET", "/_template/t", NULL, 200,
               "\"aliases\":{\"tb\":{\"index_routing\":\"b\",\"search_routing\":\"b\"}}");
}

/* _rollover: the generated name, conditions, dry runs, the alias move
 * (plain and explicit write alias) and the errors of a bad target. */
static void test_rollover(void **s) {
    (void)s;
    OK("PUT", "/logs-1", "{\"aliases\":{\"w\":{},\"r\":{}}}");
    OK("PUT", "/logs-1/_doc/1?refresh=true", "{\"a\":1}");
    EXPECT("POST", "/w/_rollover", "{\"conditions\":{\"max_docs\":2,\"max_age\":\"90m\",\"max_size\":\"1gb\"}}", 200,
           "{\"acknowledged\":false,\"shards_acknowledged\":false,\"old_index\":\"logs-1\",\"new_index\":"
           "\"logs-000002\",\"rolled_over\":false,\"dry_run\":false,\"conditions\":{\"[max_size: 1gb]\":false,"
           "\"[max_age: 1.5h]\":false,\"[max_docs: 2]\":false}}");
    EXPECT("POST", "/w/_rollover?dry_run=true", "{\"conditions\":{\"max_docs\":1}}", 200,
           "{\"acknowledged\":false,\"shards_acknowledged\":false,\"old_index\":\"logs-1\",\"new_index\":"
           "\"logs-000002\",\"rolled_over\":false,\"dry_run\":true,\"conditions\":{\"[max_docs: 1]\":true}}");
    EXPECT_STATUS("HEAD", "/logs-000002", NULL, 404);
    EXPECT("POST", "/w/_rollover", "{\"conditions\":{\"max_docs\":1},\"settings\":{\"number_of_replicas\":0}}", 200,
           "{\"acknowledged\":true,\"shards_acknowledged\":true,\"old_index\":\"logs-1\",\"new_index\":"
           "\"logs-000002\",\"rolled_over\":true,\"dry_run\":false,\"conditions\":{\"[max_docs: 1]\":true}}");
    EXPECT("GET", "/_alias", NULL, 200,
           "{\"logs-000002\":{\"aliases\":{\"w\":{}}},\"logs-1\":{\"aliases\":{\"r\":{}}}}");
    EXPECT_HAS("GET", "/logs-000002/_settings", NULL, 200, "\"number_of_replicas\":\"0\"");
    /* an explicit write alias stays on the old index, no longer writing */
    OK("PUT", "/ew-7", "{\"aliases\":{\"ew\":{\"is_write_index\":true}}}");
    EXPECT_HAS("POST", "/ew/_rollover/next", NULL, 200, "\"old_index\":\"ew-7\",\"new_index\":\"next\",\"rolled_over\":true");
    EXPECT("GET", "/_alias/ew", NULL, 200,
           "{\"ew-7\":{\"aliases\":{\"ew\":{\"is_write_index\":false}}},\"next\":{\"aliases\":{\"ew\":{\"is_write_index\":"
           "true}}}}");
    /* errors */
    EXPECT_HAS("POST", "/r/_rollover?dry_run=true", NULL, 400, "resource_already_exists_exception");
    EXPECT_HAS("POST", "/r/_rollover/bad%7Cname", NULL, 400, "invalid_index_name_exception");
    EXPECT_HAS("POST", "/nope/_rollover", NULL, 400, "\"reason\":\"rollover target [nope] does not exist\"");
    EXPECT_HAS("POST", "/logs-1/_rollover", NULL, 400,
               "rollover target is a [concrete index] but one of [alias, data_stream] was expected");
    OK("PUT", "/plain", "{\"aliases\":{\"p\":{}}}");
    EXPECT_HAS("POST", "/p/_rollover", NULL, 400, "index name [plain] does not match pattern '^.*-\\\\d+$'");
    EXPECT_HAS("POST", "/p/_rollover", "{\"conditions\":{\"max_bytes\":1}}", 400, "[conditions] unknown field [max_bytes]");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_alias_crud, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alias_read_write, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_patterns, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clone_keeps_metadata, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alias_put_body_and_routing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rollover, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
