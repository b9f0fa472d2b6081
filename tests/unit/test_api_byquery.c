/* test_api_byquery.c — _delete_by_query and _update_by_query through
 * trove_request: counts and response shape, max_docs, batches, q=, the
 * held snapshot, version conflicts (abort and proceed), errors. */
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

#define TAIL "\"noops\":0,\"retries\":{\"bulk\":0,\"search\":0},\"throttled_millis\":0,\"requests_per_second\":-1.0,\"throttled_until_millis\":0,\"failures\":[]}"

static void test_delete_by_query(void **s) {
    (void)s;
    docs("d", 5);
    EXPECT("POST", "/d/_delete_by_query?refresh=true", "{\"query\":{\"range\":{\"foo\":{\"gte\":4}}}}", 200,
           "{\"took\":0,\"timed_out\":false,\"total\":2,\"deleted\":2,\"batches\":1,\"version_conflicts\":0," TAIL);
    EXPECT("GET", "/d/_count", NULL, 200, "{\"count\":3,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0}}");
    EXPECT("POST", "/d/_delete_by_query?q=foo:1&refresh=true", NULL, 200,
           "{\"took\":0,\"timed_out\":false,\"total\":1,\"deleted\":1,\"batches\":1,\"version_conflicts\":0," TAIL);
    EXPECT("POST", "/d/_delete_by_query?scroll_size=1", "{\"max_docs\":1,\"query\":{\"match_all\":{}}}", 200,
           "{\"took\":0,\"timed_out\":false,\"total\":1,\"deleted\":1,\"batches\":1,\"version_conflicts\":0," TAIL);
    /* not refreshed: the next one sees the deleted doc in its snapshot and
     * conflicts on it (its delete's seq_no moved on) */
    assert_int_equal(req("POST", "/d/_refresh", NULL, NULL), 200);
    EXPECT("POST", "/d/_delete_by_query?scroll_size=1", "{\"query\":{\"match_all\":{}}}", 200,
           "{\"took\":0,\"timed_out\":false,\"total\":1,\"deleted\":1,\"batches\":1,\"version_conflicts\":0," TAIL);
    /* doc 3 is deleted but not refreshed away: the snapshot still has it,
     * and the conditioned delete finds no document, as OpenSearch's would */
    char *b;
    assert_int_equal(req("POST", "/d/_delete_by_query", "{\"query\":{\"match_all\":{}}}", &b), 409);
    assert_non_null(strstr(b, "\"total\":1,\"deleted\":0,\"batches\":1,\"version_conflicts\":1,"));
    assert_non_null(strstr(b, "\"reason\":\"[3]: version conflict, required seqNo [2], primary term [1]. but no "
                              "document was found\""));
    free(b);
    EXPECT("POST", "/d/_delete_by_query?conflicts=proceed&refresh=true", "{\"query\":{\"match_all\":{}}}", 200,
           "{\"took\":0,\"timed_out\":false,\"total\":1,\"deleted\":0,\"batches\":1,\"version_conflicts\":1," TAIL);
    EXPECT("POST", "/d/_delete_by_query", "{\"query\":{\"match_all\":{}}}", 200,
           "{\"took\":0,\"timed_out\":false,\"total\":0,\"deleted\":0,\"batches\":0,\"version_conflicts\":0," TAIL);
}

static void test_version_conflicts(void **s) {
    (void)s;
    const char *manual = "{\"settings\":{\"index\":{\"refresh_interval\":\"-1\"}}}";
    assert_int_equal(req("PUT", "/v", manual, NULL), 200);
    docs("v", 3);
    /* doc 2 changes after the refresh: the searchable snapshot still has
     * its old seq_no, as a concurrent update would leave it */
    assert_int_equal(req("PUT", "/v/_doc/2", "{\"foo\":20}", NULL), 200);
    char *b;
    assert_int_equal(req("POST", "/v/_delete_by_query", "{\"query\":{\"match_all\":{}}}", &b), 409);
    const char *want_head = "{\"took\":0,\"timed_out\":false,\"total\":3,\"deleted\":2,\"batches\":1,\"version_conflicts\":1,"
                            "\"noops\":0,\"retries\":{\"bulk\":0,\"search\":0},\"throttled_millis\":0,"
                            "\"requests_per_second\":-1.0,\"throttled_until_millis\":0,\"failures\":[{\"index\":\"v\","
                            "\"id\":\"2\",\"cause\":{\"type\":\"version_conflict_engine_exception\",\"reason\":\"[2]: "
                            "version conflict, required seqNo [1], primary term [1]. current document has seqNo [3] "
                            "and primary term [1]\"";
    if (strncmp(b, want_head, strlen(want_head)) != 0) fail_msg("got %s", b);
    assert_non_null(strstr(b, "\"status\":409}]}"));
    free(b);
    assert_int_equal(req("PUT", "/w", manual, NULL), 200);
    docs("w", 3);
    assert_int_equal(req("PUT", "/w/_doc/2", "{\"foo\":20}", NULL), 200);
    EXPECT("POST", "/w/_update_by_query?conflicts=proceed", NULL, 200,
           "{\"took\":0,\"timed_out\":false,\"total\":3,\"updated\":2,\"deleted\":0,\"batches\":1,"
           "\"version_conflicts\":1," TAIL);
}

static void test_update_by_query(void **s) {
    (void)s;
    docs("up", 2);
    EXPECT("POST", "/up/_update_by_query?refresh=true", "{\"query\":{\"term\":{\"foo\":2}}}", 200,
           "{\"took\":0,\"timed_out\":false,\"total\":1,\"updated\":1,\"deleted\":0,\"batches\":1,"
           "\"version_conflicts\":0," TAIL);
    /* same source bytes, new version */
    EXPECT("GET", "/up/_doc/2", NULL, 200,
           "{\"_index\":\"up\",\"_id\":\"2\",\"_version\":2,\"_seq_no\":2,\"_primary_term\":1,\"found\":true,"
           "\"_source\":{\"foo\":2,\"t\":\"word2 common\"}}");
    /* delete_by_query takes no script */
    EXPECT("POST", "/up/_delete_by_query", "{\"script\":{\"source\":\"ctx._source.x = 1\"}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"unsupported_operation_exception\",\"reason\":\"trove does not "
           "support scripts ([script] of _delete_by_query)\"}],\"type\":\"unsupported_operation_exception\","
           "\"reason\":\"trove does not support scripts ([script] of _delete_by_query)\"},\"status\":400}");
}

static void test_errors(void **s) {
    (void)s;
    docs("e", 1);
    /* DeleteByQueryRequest.validate: a delete needs a query (the body's or q=) */
    EXPECT("POST", "/e/_delete_by_query", "{}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: query is missing;\"}],\"type\":\"action_request_validation_exception\",\"reason\":"
           "\"Validation Failed: 1: query is missing;\"},\"status\":400}");
    EXPECT("POST", "/e/_delete_by_query?conflicts=maybe", "{}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"conflicts may only be "
           "\\\"proceed\\\" or \\\"abort\\\" but was [maybe]\"}],\"type\":\"illegal_argument_exception\",\"reason\":"
           "\"conflicts may only be \\\"proceed\\\" or \\\"abort\\\" but was [maybe]\"},\"status\":400}");
    EXPECT("POST", "/nope/_delete_by_query", "{\"query\":{\"match_all\":{}}}", 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope]\","
           "\"index\":\"nope\",\"resource.id\":\"nope\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"_na_\"}],"
           "\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope]\",\"index\":\"nope\","
           "\"resource.id\":\"nope\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"_na_\"},\"status\":404}");
    EXPECT("POST", "/e/_delete_by_query?slices=auto", "{\"query\":{\"match_all\":{}}}", 200,
           "{\"took\":0,\"timed_out\":false,\"total\":1,\"deleted\":1,\"batches\":1,\"version_conflicts\":0," TAIL);
    char *b;
    assert_int_equal(req("POST", "/e/_delete_by_query", "{\"query\":{\"bogus\":{}}}", &b), 400);
    assert_non_null(strstr(b, "unknown query [bogus]"));
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_delete_by_query, setup, teardown),
        cmocka_unit_test_setup_teardown(test_version_conflicts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_by_query, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
