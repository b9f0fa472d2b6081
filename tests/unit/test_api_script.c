/* test_api_script.c — Painless scripts in the document APIs through
 * trove_request: _update with a script (index, noop, delete, params,
 * upsert, scripted_upsert, stored scripts, _bulk), _update_by_query with a
 * script (updated / deleted / noops, the ctx checks), stored scripts
 * (PUT/GET/DELETE, compiled when stored, copied to clones), and the
 * ScriptException envelope of compile and runtime errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#define API_TEST_MASK_TOOK
#include "api_test.h"

#define SHARDS "\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0}"

static void test_update_script(void **s) {
    (void)s;
    OK("PUT", "/u/_doc/1", "{\"count\":1,\"tags\":[\"a\"],\"o\":{\"z\":1,\"b\":2}}");
    /* params, list and map methods; the source keeps its key order */
    EXPECT("POST", "/u/_update/1?_source=true",
           "{\"script\":{\"source\":\"ctx._source.count += params.n; ctx._source.tags.add(params.t); "
           "ctx._source.o.a = ctx._id + ctx._version\",\"lang\":\"painless\",\"params\":{\"n\":4,\"t\":\"b\"}}}",
           200,
           "{\"_index\":\"u\",\"_id\":\"1\",\"_version\":2,\"result\":\"updated\"," SHARDS
           ",\"_seq_no\":1,\"_primary_term\":1,\"get\":{\"_seq_no\":1,\"_primary_term\":1,\"found\":true,"
           "\"_source\":{\"count\":5,\"tags\":[\"a\",\"b\"],\"o\":{\"z\":1,\"b\":2,\"a\":\"11\"}}}}");
    /* a script that changes nothing still updates (no detect_noop) */
    EXPECT("POST", "/u/_update/1", "{\"script\":\"int x = 1\"}", 200,
           "{\"_index\":\"u\",\"_id\":\"1\",\"_version\":3,\"result\":\"updated\"," SHARDS
           ",\"_seq_no\":2,\"_primary_term\":1}");
    /* op none / noop */
    EXPECT("POST", "/u/_update/1", "{\"script\":\"ctx.op = 'none'\"}", 200,
           "{\"_index\":\"u\",\"_id\":\"1\",\"_version\":3,\"result\":\"noop\",\"_shards\":{\"total\":0,"
           "\"successful\":0,\"failed\":0},\"_seq_no\":2,\"_primary_term\":1}");
    /* a map the script creates prints in HashMap order */
    OK("POST", "/u/_update/1", "{\"script\":\"ctx._source.m = ['zz': 1, 'b': 2, 'a': 3]; ctx._source.remove('tags')\"}");
    EXPECT("GET", "/u/_source/1", NULL, 200, "{\"count\":5,\"o\":{\"z\":1,\"b\":2,\"a\":\"11\"},\"m\":{\"zz\":1,\"a\":3,\"b\":2}}");
    /* op delete */
    EXPECT("POST", "/u/_update/1", "{\"script\":\"if (ctx._source.count > 3) { ctx.op = 'delete' }\"}", 200,
           "{\"_index\":\"u\",\"_id\":\"1\",\"_version\":5,\"result\":\"deleted\"," SHARDS
           ",\"_seq_no\":4,\"_primary_term\":1}");
    EXPECT_STATUS("GET", "/u/_doc/1", NULL, 404);
}

static void test_upserts(void **s) {
    (void)s;
    /* a missing document without upsert */
    EXPECT("POST", "/v/_update/1", "{\"script\":\"ctx._source.n = 1\"}", 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"document_missing_exception\",\"reason\":\"[1]: document "
           "missing\",\"index\":\"v\",\"shard\":\"0\",\"index_uuid\":\"X\"}],\"type\":\"document_missing_exception\","
           "\"reason\":\"[1]: document missing\",\"index\":\"v\",\"shard\":\"0\",\"index_uuid\":\"X\"},\"status\":404}");
    /* upsert: indexed as it is, the script does not run */
    EXPECT("POST", "/v/_update/1", "{\"script\":\"ctx._source.n = 99\",\"upsert\":{\"n\":0}}", 201,
           "{\"_index\":\"v\",\"_id\":\"1\",\"_version\":1,\"result\":\"created\"," SHARDS
           ",\"_seq_no\":0,\"_primary_term\":1}");
    EXPECT("GET", "/v/_source/1", NULL, 200, "{\"n\":0}");
    /* ... and on an existing document the script runs */
    OK("POST", "/v/_update/1", "{\"script\":\"ctx._source.n = 99\",\"upsert\":{\"n\":0}}");
    EXPECT("GET", "/v/_source/1", NULL, 200, "{\"n\":99}");
    /* scripted_upsert: the script builds the new document from the upsert (op create) */
    EXPECT("POST", "/v/_update/2",
           "{\"scripted_upsert\":true,\"script\":{\"source\":\"ctx._source.op = ctx.op; ctx._source.n += 5\"},"
           "\"upsert\":{\"n\":1}}",
           201,
           "{\"_index\":\"v\",\"_id\":\"2\",\"_version\":1,\"result\":\"created\"," SHARDS
           ",\"_seq_no\":2,\"_primary_term\":1}");
    EXPECT("GET", "/v/_source/2", NULL, 200, "{\"n\":6,\"op\":\"create\"}");
    /* a scripted upsert that sets op none creates nothing */
    EXPECT("POST", "/v/_update/3", "{\"scripted_upsert\":true,\"script\":\"ctx.op = 'none'\",\"upsert\":{}}", 200,
           "{\"_index\":\"v\",\"_id\":\"3\",\"_version\":-1,\"result\":\"noop\",\"_shards\":{\"total\":0,"
           "\"successful\":0,\"failed\":0}}");
    EXPECT_STATUS("GET", "/v/_doc/3", NULL, 404);
    /* _bulk update with a script */
    EXPECT_HAS("POST", "/_bulk", "{\"update\":{\"_index\":\"v\",\"_id\":\"1\"}}\n{\"script\":\"ctx._source.n++\"}\n", 200,
               "\"result\":\"updated\"");
    EXPECT("GET", "/v/_source/1", NULL, 200, "{\"n\":100}");
}

static void test_script_errors(void **s) {
    (void)s;
    OK("PUT", "/e/_doc/1", "{\"n\":1}");
    EXPECT("POST", "/e/_update/1", "{\"script\":\"ctx._source.n = ctx._source.n / 0\"}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"failed to execute "
           "script\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"failed to execute script\",\"caused_by\":"
           "{\"type\":\"script_exception\",\"reason\":\"runtime error\",\"script_stack\":[\"ctx._source.n = "
           "ctx._source.n / 0\",\"                ^---- HERE\"],\"script\":\"ctx._source.n = "
           "ctx._source.n / 0\",\"lang\":\"painless\",\"position\":{\"offset\":16,\"start\":0,\"end\":33},"
           "\"caused_by\":{\"type\":\"arithmetic_exception\",\"reason\":\"/ by zero\"}}},\"status\":400}");
    EXPECT("POST", "/e/_update/1", "{\"script\":\"ctx._source.n = undefinedThing\"}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"failed to execute "
           "script\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"failed to execute script\",\"caused_by\":"
           "{\"type\":\"script_exception\",\"reason\":\"compile error\",\"script_stack\":[\"ctx._source.n = "
           "undefinedThing\",\"                ^---- HERE\"],\"script\":\"ctx._source.n = undefinedThing\","
           "\"lang\":\"painless\",\"position\":{\"offset\":16,\"start\":0,\"end\":30},\"caused_by\":{\"type\":"
           "\"illegal_argument_exception\",\"reason\":\"cannot resolve symbol [undefinedThing]\"}}},\"status\":400}");
    EXPECT_HAS("POST", "/e/_update/1", "{\"script\":\"ctx._source.missing.x = 1\"}", 400,
               "\"caused_by\":{\"type\":\"null_pointer_exception\"");
    /* Script.parse */
    EXPECT_HAS("POST", "/e/_update/1", "{\"script\":{\"source\":\"1\",\"id\":\"x\"}}", 400,
               "must only use one of [source, id] when specifying a script");
    EXPECT_HAS("POST", "/e/_update/1", "{\"script\":{\"lang\":\"painless\"}}", 400,
               "must specify either [source] for an inline script or [id] for a stored script");
    EXPECT_HAS("POST", "/e/_update/1", "{\"script\":{\"source\":\"1\",\"lang\":\"nope\"}}", 400,
               "script_lang not supported [nope]");
    EXPECT_HAS("POST", "/e/_update/1", "{\"script\":{\"source\":\"1\",\"lang\":\"expression\"}}", 400,
               "\"type\":\"unsupported_operation_exception\"");
    EXPECT_HAS("POST", "/e/_update/1", "{\"script\":{\"source\":\"1\",\"foo\":1}}", 400,
               "[1:25] [script] unknown field [foo]");
    EXPECT_HAS("POST", "/e/_update/1", "{\"script\":{\"id\":\"nope\"}}", 400,
               "\"caused_by\":{\"type\":\"resource_not_found_exception\",\"reason\":\"unable to find script [nope] in "
               "cluster state\"}");
    /* lambdas are outside the subset: a compile error naming them */
    EXPECT_HAS("POST", "/e/_update/1", "{\"script\":\"ctx._source.n = [1].stream().map(x -> x)\"}", 400,
               "trove does not support lambdas in Painless scripts");
    EXPECT("GET", "/e/_source/1", NULL, 200, "{\"n\":1}");
}

static void test_stored_scripts(void **s) {
    (void)s;
    EXPECT("GET", "/_scripts/inc", NULL, 404, "{\"_id\":\"inc\",\"found\":false}");
    EXPECT("PUT", "/_scripts/inc", "{\"script\":{\"lang\":\"painless\",\"source\":\"ctx._source.n += params.by\"}}",
           200, "{\"acknowledged\":true}");
    EXPECT("GET", "/_scripts/inc", NULL, 200,
           "{\"_id\":\"inc\",\"found\":true,\"script\":{\"lang\":\"painless\",\"source\":\"ctx._source.n += "
           "params.by\"}}");
    OK("PUT", "/st/_doc/1", "{\"n\":1}");
    OK("POST", "/st/_update/1", "{\"script\":{\"id\":\"inc\",\"params\":{\"by\":41}}}");
    EXPECT("GET", "/st/_source/1", NULL, 200, "{\"n\":42}");
    /* a clone sees the stored script; its changes stay its own */
    trove_error err;
    trove_node *base = N, *c = trove_node_clone(N, &err);
    assert_non_null(c);
    N = c;
    EXPECT("GET", "/_scripts/inc", NULL, 200,
           "{\"_id\":\"inc\",\"found\":true,\"script\":{\"lang\":\"painless\",\"source\":\"ctx._source.n += "
           "params.by\"}}");
    OK("DELETE", "/_scripts/inc", NULL);
    EXPECT("GET", "/_scripts/inc", NULL, 404, "{\"_id\":\"inc\",\"found\":false}");
    N = base;
    trove_node_free(c);
    EXPECT_HAS("GET", "/_scripts/inc", NULL, 200, "\"found\":true");
    /* stored with a context; compiled when stored */
    EXPECT("POST", "/_scripts/two/update", "{\"script\":{\"lang\":\"painless\",\"source\":\"ctx.op = 'noop'\"}}", 200,
           "{\"acknowledged\":true}");
    EXPECT_HAS("PUT", "/_scripts/bad", "{\"script\":{\"lang\":\"painless\",\"source\":\"ctx._source.n +\"}}", 400,
               "\"reason\":\"failed to parse/compile stored script [bad]\",\"caused_by\":{\"type\":\"script_exception\","
               "\"reason\":\"compile error\"");
    EXPECT_HAS("PUT", "/_scripts/bad", "{\"script\":{\"lang\":\"painless\"}}", 400, "must specify source for stored script");
    EXPECT_HAS("PUT", "/_scripts/bad", "{\"script\":{\"source\":\"1\"}}", 400, "must specify lang for stored script");
    EXPECT_HAS("PUT", "/_scripts/bad", "{\"script\":{\"lang\":\"foo\",\"source\":\"1\"}}", 400,
               "unable to put stored script with unsupported lang [foo]");
    EXPECT_STATUS("GET", "/_scripts/bad", NULL, 404);
    EXPECT("DELETE", "/_scripts/nope", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"resource_not_found_exception\",\"reason\":\"stored script [nope] "
           "does not exist\"}],\"type\":\"resource_not_found_exception\",\"reason\":\"stored script [nope] does not "
           "exist\"},\"status\":404}");
}

#define UBQ_TAIL                                                                                             \
    "\"retries\":{\"bulk\":0,\"search\":0},\"throttled_millis\":0,\"requests_per_second\":-1.0,"                \
    "\"throttled_until_millis\":0,\"failures\":[]}"

static void test_update_by_query(void **s) {
    (void)s;
    for (int i = 1; i <= 4; i++) {
        char path[64], body[64];
        snprintf(path, sizeof path, "/q/_doc/%d", i);
        snprintf(body, sizeof body, "{\"level\":%d,\"name\":\"d%d\"}", i, i);
        OK("PUT", path, body);
    }
    OK("POST", "/q/_refresh", NULL);
    EXPECT("POST", "/q/_update_by_query?refresh=true",
           "{\"script\":{\"source\":\"if (ctx._source.level == 1) { ctx.op = 'noop' } else if (ctx._source.level == 2) "
           "{ ctx.op = 'delete' } else { ctx._source.name += '!'; ctx._source.v = ctx._version }\"}}",
           200,
           "{\"took\":0,\"timed_out\":false,\"total\":4,\"updated\":2,\"deleted\":1,\"batches\":1,"
           "\"version_conflicts\":0,\"noops\":1," UBQ_TAIL);
    /* the re-indexed source went through a HashMap (buckets 5, 6, 8 of 16) */
    EXPECT("GET", "/q/_source/3", NULL, 200, "{\"level\":3,\"v\":1,\"name\":\"d3!\"}");
    EXPECT("GET", "/q/_source/1", NULL, 200, "{\"level\":1,\"name\":\"d1\"}");
    EXPECT_STATUS("GET", "/q/_doc/2", NULL, 404);
    /* what ctx may not become */
    EXPECT_HAS("POST", "/q/_update_by_query", "{\"script\":\"ctx._version = 7\"}", 400,
               "\"reason\":\"Modifying [_version] not allowed\"");
    EXPECT_HAS("POST", "/q/_update_by_query", "{\"script\":\"ctx.remove('_source')\"}", 400,
               "\"reason\":\"Script cleared source\"");
    EXPECT_HAS("POST", "/q/_update_by_query", "{\"script\":\"ctx.b = 1; ctx.a = 2\"}", 400,
               "\"reason\":\"Invalid fields added to context [a,b]\"");
    EXPECT_HAS("POST", "/q/_update_by_query", "{\"script\":\"ctx.op = 'DELETE'; ctx.x = 1\"}", 200, "\"deleted\":3");
    /* a runtime error is the ScriptException itself */
    OK("PUT", "/q2/_doc/1?refresh=true", "{\"a\":1}");
    EXPECT_HAS("POST", "/q2/_update_by_query", "{\"script\":\"ctx._source.a = ctx._source.b.c\"}", 400,
               "{\"error\":{\"root_cause\":[{\"type\":\"script_exception\",\"reason\":\"runtime error\"");
    /* nothing to update: the script is never compiled */
    OK("PUT", "/q3", NULL);
    EXPECT_HAS("POST", "/q3/_update_by_query", "{\"script\":\"syntax error\"}", 200, "\"total\":0");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_update_script, setup, teardown),
        cmocka_unit_test_setup_teardown(test_upserts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_script_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stored_scripts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_by_query, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
