/* test_api_reindex.c — POST /_reindex through trove_request, modelled on
 * the reindex module's yamlRestTest (reindex/10_basic, 20_validation,
 * 30_search, 80_slices, 90_remote): the response, op_type create and
 * conflicts, external versions, routing, _source filtering, sort and
 * max_docs, slices, and the validation errors in OpenSearch's words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API_TEST_MASK_NO_KEYS
#define API_TEST_MASK_TOOK
#include "api_test.h"

#define TAIL "\"noops\":0,\"retries\":{\"bulk\":0,\"search\":0},\"throttled_millis\":0,\"requests_per_second\":-1.0,\"throttled_until_millis\":0,\"failures\":[]}"

static void put(const char *path, const char *body) { assert_int_equal(req("PUT", path, body, NULL), 201); }

static void test_basic(void **s) {
    (void)s;
    put("/source/_doc/1", "{\"text\":\"test\"}");
    put("/source/_doc/2?routing=r", "{\"text\":\"junk\"}");
    OK("POST", "/source/_refresh", NULL);
    /* 10_basic "Response format for created" */
    EXPECT("POST", "/_reindex?refresh=true", "{\"source\":{\"index\":\"source\"},\"dest\":{\"index\":\"dest\"}}", 200,
           "{\"took\":0,\"timed_out\":false,\"total\":2,\"updated\":0,\"created\":2,\"deleted\":0,\"batches\":1,"
           "\"version_conflicts\":0," TAIL);
    /* routing kept, source copied byte for byte */
    EXPECT("GET", "/dest/_doc/2?routing=r", NULL, 200,
           "{\"_index\":\"dest\",\"_id\":\"2\",\"_version\":1,\"_seq_no\":1,\"_primary_term\":1,\"_routing\":\"r\","
           "\"found\":true,\"_source\":{\"text\":\"junk\"}}");
    /* "Response format for updated" */
    EXPECT("POST", "/_reindex", "{\"source\":{\"index\":\"source\"},\"dest\":{\"index\":\"dest\"}}", 200,
           "{\"took\":0,\"timed_out\":false,\"total\":2,\"updated\":2,\"created\":0,\"deleted\":0,\"batches\":1,"
           "\"version_conflicts\":0," TAIL);
    /* "Response for version conflict": op_type create aborts with 409 */
    char *got;
    assert_int_equal(req("POST", "/_reindex",
                         "{\"source\":{\"index\":\"source\"},\"dest\":{\"index\":\"dest\",\"op_type\":\"create\"}}",
                         &got),
                     409);
    if (!strstr(got, "\"total\":2,\"updated\":0,\"created\":0,\"deleted\":0,\"batches\":1,\"version_conflicts\":2,") ||
        !strstr(got, "{\"index\":\"dest\",\"id\":\"1\",\"cause\":{\"type\":\"version_conflict_engine_exception\","
                     "\"reason\":\"[1]: version conflict, document already exists (current version [2])\""))
        fail_msg("%s", got);
    free(got);
    /* "Zero version conflicts with conflicts=proceed" */
    EXPECT("POST", "/_reindex",
           "{\"conflicts\":\"proceed\",\"source\":{\"index\":\"source\"},\"dest\":{\"index\":\"dest\",\"op_type\":"
           "\"create\"}}",
           200,
           "{\"took\":0,\"timed_out\":false,\"total\":2,\"updated\":0,\"created\":0,\"deleted\":0,\"batches\":1,"
           "\"version_conflicts\":2," TAIL);
    /* external versions: the source's (1) is not above the dest's (3) */
    EXPECT("POST", "/_reindex",
           "{\"conflicts\":\"proceed\",\"source\":{\"index\":\"source\"},\"dest\":{\"index\":\"dest\","
           "\"version_type\":\"external\"}}",
           200,
           "{\"took\":0,\"timed_out\":false,\"total\":2,\"updated\":0,\"created\":0,\"deleted\":0,\"batches\":1,"
           "\"version_conflicts\":2," TAIL);
    /* nothing to copy, no dest index made */
    EXPECT("POST", "/_reindex", "{\"source\":{\"index\":\"source\",\"query\":{\"term\":{\"text\":\"none\"}}},"
                                "\"dest\":{\"index\":\"empty\"}}",
           200,
           "{\"took\":0,\"timed_out\":false,\"total\":0,\"updated\":0,\"created\":0,\"deleted\":0,\"batches\":0,"
           "\"version_conflicts\":0," TAIL);
    EXPECT_STATUS("HEAD", "/empty", NULL, 404);
}

static void test_search(void **s) {
    (void)s;
    put("/test/_doc/1", "{\"order\":1,\"text\":\"test\",\"x\":1}");
    put("/test/_doc/2", "{\"order\":2,\"text\":\"junk\",\"x\":2}");
    OK("POST", "/test/_refresh", NULL);
    /* 30_search: a query, sort and max_docs (size), _source filtering,
     * dest routing "=value" */
    EXPECT("POST", "/_reindex?refresh=true",
           "{\"size\":1,\"source\":{\"index\":\"test\",\"sort\":{\"order\":\"desc\"},\"_source\":[\"order\"]},"
           "\"dest\":{\"index\":\"target\",\"routing\":\"=k\"}}",
           200,
           "{\"took\":0,\"timed_out\":false,\"total\":1,\"updated\":0,\"created\":1,\"deleted\":0,\"batches\":1,"
           "\"version_conflicts\":0," TAIL);
    EXPECT("GET", "/target/_doc/2?routing=k", NULL, 200,
           "{\"_index\":\"target\",\"_id\":\"2\",\"_version\":1,\"_seq_no\":0,\"_primary_term\":1,\"_routing\":\"k\","
           "\"found\":true,\"_source\":{\"order\":2}}");
    EXPECT("POST", "/_reindex?refresh=true&max_docs=1",
           "{\"source\":{\"index\":\"test\",\"query\":{\"match\":{\"text\":\"test\"}}},\"dest\":{\"index\":\"t2\"}}",
           200,
           "{\"took\":0,\"timed_out\":false,\"total\":1,\"updated\":0,\"created\":1,\"deleted\":0,\"batches\":1,"
           "\"version_conflicts\":0," TAIL);
    EXPECT_HAS("GET", "/t2/_count?q=text:test", NULL, 200, "{\"count\":1,");
}

static void test_slices(void **s) {
    (void)s;
    OK("PUT", "/sl", "{\"settings\":{\"number_of_shards\":3}}");
    for (int i = 1; i <= 6; i++) {
        char p[64];
        snprintf(p, sizeof p, "/sl/_doc/%d", i);
        put(p, "{\"text\":\"test\"}");
    }
    OK("POST", "/sl/_refresh", NULL);
    /* 80_slices: auto = the source's shard count; the slices' statuses */
    char *got;
    assert_int_equal(req("POST", "/_reindex?slices=auto&refresh=true",
                         "{\"source\":{\"index\":\"sl\"},\"dest\":{\"index\":\"sl2\"}}", &got),
                     200);
    if (!strstr(got, "\"total\":6,\"updated\":0,\"created\":6,") || !strstr(got, "\"slices\":[{\"slice_id\":0,") ||
        !strstr(got, "{\"slice_id\":2,") || strstr(got, "{\"slice_id\":3,"))
        fail_msg("%s", got);
    free(got);
    EXPECT_HAS("GET", "/sl2/_count", NULL, 200, "{\"count\":6,");
}

static void test_validation(void **s) {
    (void)s;
    /* 20_validation */
    EXPECT_HAS("POST", "/_reindex", "{\"junk\":{\"more_junk\":null}}", 400, "unknown field [junk]");
    EXPECT_HAS("POST", "/_reindex", "{\"source\":{\"junk\":{}}}", 400, "Unknown key for a START_OBJECT in [junk].");
    EXPECT_HAS("POST", "/_reindex", "{\"dest\":{\"junk\":{}}}", 400, "[dest] unknown field [junk]");
    EXPECT("POST", "/_reindex", "{\"dest\":{}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: use _all if you really want to copy from all existing indexes;2: index must be specified;\"}],"
           "\"type\":\"action_request_validation_exception\",\"reason\":\"Validation Failed: 1: use _all if you "
           "really want to copy from all existing indexes;2: index must be specified;\"},\"status\":400}");
    EXPECT_HAS("POST", "/_reindex", "{\"source\":{\"size\":\"cat\"},\"dest\":{\"index\":\"dest\"}}", 400,
               "\"type\":\"number_format_exception\",\"reason\":\"For input string: \\\"cat\\\"\"");
    EXPECT_HAS("POST", "/_reindex", "{\"source\":{\"from\":1},\"dest\":{\"index\":\"dest\"}}", 400,
               "from is not supported in this context");
    EXPECT_HAS("POST", "/_reindex", "{\"dest\":{\"version\":10}}", 400, "[dest] unknown field [version]");
    EXPECT_HAS("POST", "/_reindex", "{\"conflicts\":\"cat\"}", 400,
               "conflicts may only be \\\"proceed\\\" or \\\"abort\\\" but was [cat]");
    EXPECT_HAS("POST", "/_reindex", "{\"source\":{\"index\":\"test\"},\"dest\":{\"index\":\"dest\"},\"size\":-4}", 400,
               "[max_docs] parameter cannot be negative, found [-4]");
    EXPECT_HAS("POST", "/_reindex?max_docs=1&slices=2", "{\"source\":{\"index\":\"test\"},\"dest\":{\"index\":\"d\"}}",
               400, "[max_docs] should be >= [slices]");
    EXPECT_HAS("POST", "/_reindex?max_docs=5",
               "{\"source\":{\"index\":\"test\"},\"dest\":{\"index\":\"d\"},\"max_docs\":4}", 400,
               "[max_docs] set to two different values [4] and [5]");
    EXPECT_HAS("POST", "/_reindex?requests_per_second=unlimited",
               "{\"source\":{\"index\":\"test\"},\"dest\":{\"index\":\"d\"}}", 400,
               "[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.");
    EXPECT_HAS("POST", "/_reindex?slices=0", "{\"source\":{\"index\":\"test\"},\"dest\":{\"index\":\"d\"}}", 400,
               "[slices] must be a positive integer or the string \\\"auto\\\"");
    EXPECT_HAS("POST", "/_reindex", "{\"source\":{\"index\":\"t\",\"_source\":false},\"dest\":{\"index\":\"d\"}}", 400,
               "_source:false is not supported in this context");
    EXPECT_HAS("POST", "/_reindex", "{\"source\":{\"index\":\"t\",\"stored_fields\":[\"_id\"]},\"dest\":{\"index\":\"d\"}}",
               400, "stored_fields is not supported in this context");
    EXPECT_HAS("POST", "/_reindex", "{\"source\":{\"index\":\"t\"},\"dest\":{\"index\":\"d\",\"routing\":\"x\"}}", 400,
               "routing must be unset, [keep], [discard] or [=<some new value>]");
    EXPECT_HAS("POST", "/_reindex", "{\"source\":{\"index\":\"t\"},\"dest\":{\"index\":\"d\",\"op_type\":\"upsert\"}}",
               400, "opType must be 'create' or 'index', found: [upsert]");
    EXPECT_HAS("POST", "/_reindex", "{\"source\":{\"index\":\"t\"},\"dest\":{\"index\":\"d\"},\"script\":{}}", 400,
               "must specify either [source] for an inline script or [id] for a stored script");
    /* a missing source index; reading and writing one index */
    EXPECT_HAS("POST", "/_reindex", "{\"source\":{\"index\":\"missing\"},\"dest\":{\"index\":\"d\"}}", 404,
               "\"type\":\"index_not_found_exception\",\"reason\":\"no such index [missing]\"");
    put("/same/_doc/1", "{}");
    EXPECT_HAS("POST", "/_reindex", "{\"source\":{\"index\":\"same\"},\"dest\":{\"index\":\"same\"}}", 400,
               "reindex cannot write into an index its reading from [same]");
    /* source without _source */
    OK("PUT", "/nosrc", "{\"mappings\":{\"_source\":{\"enabled\":false}}}");
    put("/nosrc/_doc/1?refresh=true", "{\"age\":23}");
    EXPECT_HAS("POST", "/_reindex", "{\"source\":{\"index\":\"nosrc\"},\"dest\":{\"index\":\"d\"}}", 400,
               "[nosrc][1] didn't store _source");
}

static void test_remote(void **s) {
    (void)s;
    /* 20_validation / 90_remote: parsed, then refused as a default
     * OpenSearch refuses it (an empty reindex.remote.allowlist) */
    EXPECT_HAS("POST", "/_reindex",
               "{\"source\":{\"remote\":{\"host\":\"http://badremote:9200\"},\"index\":\"test\"},\"dest\":{\"index\":"
               "\"dest\"}}",
               400, "[badremote:9200] not allowlisted in reindex.remote.allowlist");
    EXPECT_HAS("POST", "/_reindex",
               "{\"source\":{\"remote\":{\"host\":\"badremote\",\"weird\":\"stuff\",\"badkey\":\"is bad\"},\"index\":"
               "\"test\"},\"dest\":{\"index\":\"dest\"}}",
               400, "[host] must be of the form [scheme]://[host]:[port](/[pathPrefix])? but was [badremote]");
    EXPECT_HAS("POST", "/_reindex",
               "{\"source\":{\"remote\":{\"host\":\"http://okremote:9200\",\"weird\":\"stuff\",\"badkey\":\"is bad\"},"
               "\"index\":\"test\"},\"dest\":{\"index\":\"dest\"}}",
               400, "Unsupported fields in [remote]: [weird,badkey]");
    EXPECT_HAS("POST", "/_reindex",
               "{\"source\":{\"remote\":{\"host\":\"http://okremote:9200\",\"socket_timeout\":\"borked\"},\"index\":"
               "\"test\"},\"dest\":{\"index\":\"dest\"}}",
               400, "number_format_exception");
}

static void test_task(void **s) {
    (void)s;
    put("/tk/_doc/1?refresh=true", "{\"a\":1}");
    char *got;
    assert_int_equal(req("POST", "/_reindex?wait_for_completion=false",
                         "{\"source\":{\"index\":\"tk\"},\"dest\":{\"index\":\"tk2\"}}", &got),
                     200);
    const char *p = strstr(got, "{\"task\":\"");
    assert_non_null(p);
    char path[160];
    snprintf(path, sizeof path, "/_tasks/%.*s?wait_for_completion=true", (int)strcspn(p + 9, "\""), p + 9);
    free(got);
    assert_int_equal(req("GET", path, NULL, &got), 200);
    if (!strstr(got, "\"action\":\"indices:data/write/reindex\"") ||
        !strstr(got, "\"description\":\"reindex from [tk] to [tk2]\"") ||
        !strstr(got, "\"response\":{\"took\":0,\"timed_out\":false,\"total\":1,\"updated\":0,\"created\":1,"))
        fail_msg("%s", got);
    free(got);
}

/* A reindex script (ReindexScriptApplier): ctx._source changes, op noop
 * and delete, _index and _id move the copy, _routing sets its routing;
 * a cleared _index fails as OpenSearch's null check does. */
static void test_script(void **s) {
    (void)s;
    for (int i = 1; i <= 4; i++) {
        char path[32], body[64];
        snprintf(path, sizeof path, "/src/_doc/%d", i);
        snprintf(body, sizeof body, "{\"n\":%d}", i);
        put(path, body);
    }
    OK("POST", "/src/_refresh", NULL);
    EXPECT_HAS("POST", "/_reindex?refresh=true",
               "{\"source\":{\"index\":\"src\"},\"dest\":{\"index\":\"dst\"},\"script\":{\"lang\":\"painless\","
               "\"params\":{\"k\":10},\"source\":\"if (ctx._source.n == 2) { ctx.op = 'noop' } "
               "else if (ctx._source.n == 3) { ctx._index = 'other'; ctx._id = 'z' + ctx._id } "
               "else if (ctx._source.n == 4) { ctx._routing = 'r' } ctx._source.m = ctx._source.n * params.k\"}}",
               200, "\"total\":4,\"updated\":0,\"created\":3,\"deleted\":0,\"batches\":1,\"version_conflicts\":0,\"noops\":1,");
    OK("POST", "/other/_refresh", NULL);
    EXPECT_HAS("GET", "/dst/_doc/1", NULL, 200, "\"_source\":{\"m\":10,\"n\":1}");
    EXPECT_STATUS("GET", "/dst/_doc/2", NULL, 404);
    EXPECT_STATUS("GET", "/dst/_doc/3", NULL, 404);
    EXPECT_HAS("GET", "/other/_doc/z3", NULL, 200, "\"_source\":{\"m\":30,\"n\":3}");
    EXPECT_HAS("GET", "/dst/_doc/4?routing=r", NULL, 200, "\"_routing\":\"r\"");
    /* op delete removes the ids from the dest; each counts as deleted */
    EXPECT_HAS("POST", "/_reindex?refresh=true",
               "{\"source\":{\"index\":\"src\"},\"dest\":{\"index\":\"dst\"},\"script\":\"ctx.op = 'delete'\"}", 200,
               "\"created\":0,\"deleted\":4,");
    EXPECT_STATUS("GET", "/dst/_doc/1", NULL, 404);
    EXPECT_HAS("POST", "/_reindex",
               "{\"source\":{\"index\":\"src\"},\"dest\":{\"index\":\"dst\"},\"script\":\"ctx._index = null\"}", 500,
               "\"type\":\"null_pointer_exception\",\"reason\":\"Can't reindex without a destination index!\"");
    EXPECT_HAS("POST", "/_reindex",
               "{\"source\":{\"index\":\"src\"},\"dest\":{\"index\":\"dst\"},\"script\":\"ctx._version = 7\"}", 400,
               "trove does not support a reindex script that sets [_version]");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_basic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_search, setup, teardown),
        cmocka_unit_test_setup_teardown(test_slices, setup, teardown),
        cmocka_unit_test_setup_teardown(test_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remote, setup, teardown),
        cmocka_unit_test_setup_teardown(test_task, setup, teardown),
        cmocka_unit_test_setup_teardown(test_script, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
