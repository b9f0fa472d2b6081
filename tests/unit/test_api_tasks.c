/* test_api_tasks.c — the tasks API through trove_request: a by-query run
 * with wait_for_completion=false answers its task id and stores its result
 * (GET /_tasks/{id}, the .tasks index), a throttled task is listed while it
 * runs, rethrottled and cancelled, requests_per_second really sleeps, and
 * the tasks API's errors. Modelled on the reindex module's yamlRestTest
 * (delete_by_query/70_throttle, update_by_query/70_slices) and tasks.*. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define API_TEST_MASK_NO_KEYS
#define API_TEST_MASK_TOOK
#include "api_test.h"

static void docs(const char *index, int n) {
    char path[128], body[128];
    for (int i = 1; i <= n; i++) {
        snprintf(path, sizeof path, "/%s/_doc/%d", index, i);
        snprintf(body, sizeof body, "{\"n\":%d}", i);
        assert_int_equal(req("PUT", path, body, NULL), 201);
    }
    snprintf(path, sizeof path, "/%s/_refresh", index);
    assert_int_equal(req("POST", path, NULL, NULL), 200);
}

/* The "task" of a wait_for_completion=false answer into id. */
static void task_of(const char *method, const char *path, const char *body, char *id, size_t cap) {
    char *got;
    assert_int_equal(req(method, path, body, &got), 200);
    const char *p = strstr(got, "{\"task\":\"");
    if (!p) fail_msg("no task: %s", got);
    p += 9;
    size_t n = strcspn(p, "\"");
    assert_true(n < cap);
    memcpy(id, p, n);
    id[n] = '\0';
    assert_string_equal(p + n, "\"}");
    free(got);
}

static void test_stored_result(void **s) {
    (void)s;
    docs("t", 3);
    char id[96], path[160];
    task_of("POST", "/t/_delete_by_query?wait_for_completion=false&refresh=true", "{\"query\":{\"match_all\":{}}}",
            id, sizeof id);
    assert_non_null(strchr(id, ':'));
    snprintf(path, sizeof path, "/_tasks/%s?wait_for_completion=true", id);
    char *got;
    assert_int_equal(req("GET", path, NULL, &got), 200);
    /* TaskResult: completed, the task (detailed, with its final status), the response */
    assert_non_null(strstr(got, "{\"completed\":true,\"task\":{\"node\":\""));
    assert_non_null(strstr(got, "\"type\":\"transport\",\"action\":\"indices:data/write/delete/byquery\",\"status\":{"
                                "\"total\":3,\"updated\":0,\"created\":0,\"deleted\":3,\"batches\":1,"
                                "\"version_conflicts\":0,\"noops\":0,\"retries\":{\"bulk\":0,\"search\":0},"
                                "\"throttled_millis\":0,\"requests_per_second\":-1.0,\"throttled_until_millis\":0},"
                                "\"description\":\"delete-by-query [t]\",\"start_time_in_millis\":"));
    assert_non_null(strstr(got, "\"cancellable\":true,\"cancelled\":false,\"headers\":{}},\"response\":{\"took\":"));
    assert_non_null(strstr(got, "\"timed_out\":false,\"total\":3,\"deleted\":3,\"batches\":1,"));
    free(got);
    /* persisted as OpenSearch persists it: one document of .tasks */
    EXPECT_HAS("GET", "/.tasks/_count", NULL, 200, "{\"count\":1,");
    EXPECT_HAS("GET", "/t/_count", NULL, 200, "{\"count\":0,");
    /* a second ask answers the same stored result */
    snprintf(path, sizeof path, "/_tasks/%s", id);
    EXPECT_HAS("GET", path, NULL, 200, "\"response\":{\"took\":");
}

static void test_throttle_sleeps(void **s) {
    (void)s;
    docs("th", 3);
    /* a delay of batch size / requests_per_second before each scroll
     * response after the first (the last, empty one too): 3 x 100 ms */
    char *got;
    assert_int_equal(req("POST", "/th/_delete_by_query?scroll_size=1&requests_per_second=10",
                         "{\"query\":{\"match_all\":{}}}", &got),
                     200);
    assert_non_null(strstr(got, "\"total\":3,\"deleted\":3,\"batches\":3,\"version_conflicts\":0,\"noops\":0,"
                                "\"retries\":{\"bulk\":0,\"search\":0},\"throttled_millis\":300,"
                                "\"requests_per_second\":10.0,\"throttled_until_millis\":0,\"failures\":[]}"));
    free(got);
}

/* Through trove_request_nowait (the server's loops) a throttled request
 * never sleeps on the caller: it runs on a task thread and is asked again
 * until it answered. */
static void test_nowait_throttled(void **s) {
    (void)s;
    docs("nw", 2);
    const char *path = "/nw/_delete_by_query?scroll_size=1&requests_per_second=20";
    const char *body = "{\"query\":{\"match_all\":{}}}";
    int64_t since = 0;
    int retry = 0, asks = 0, rc;
    trove_response resp;
    while ((rc = trove_request_nowait(N, "POST", path, body, strlen(body), &since, &retry, &resp)) == TROVE_EWAIT) {
        asks++;
        assert_true(since < 0 && retry > 0);
        usleep((useconds_t)retry * 1000);
    }
    assert_int_equal(rc, TROVE_OK);
    assert_int_equal(resp.status, 200);
    assert_true(asks > 0);
    /* 1 / 20 s after each of the two batches */
    if (!strstr(resp.body, "\"total\":2,\"deleted\":2,\"batches\":2,\"version_conflicts\":0,\"noops\":0,"
                           "\"retries\":{\"bulk\":0,\"search\":0},\"throttled_millis\":100,"))
        fail_msg("%s", resp.body);
    trove_response_fini(&resp);
    /* not a stored task: nothing in .tasks */
    EXPECT_STATUS("GET", "/.tasks/_count", NULL, 404);
}

static void test_list_rethrottle(void **s) {
    (void)s;
    docs("rt", 3);
    char id[96], path[192];
    /* about 9.5 years per document */
    task_of("POST", "/rt/_delete_by_query?wait_for_completion=false&scroll_size=1&requests_per_second=.00000001",
            "{\"query\":{\"match_all\":{}}}", id, sizeof id);
    /* listed while it runs: grouped by node, detailed shows status and description */
    char *got;
    assert_int_equal(req("GET", "/_tasks?actions=*byquery&detailed=true", NULL, &got), 200);
    char key[128];
    snprintf(key, sizeof key, "\"tasks\":{\"%s\":{\"node\":", id);
    if (!strstr(got, "{\"nodes\":{\"") || !strstr(got, "\"roles\":[") || !strstr(got, key) ||
        !strstr(got, "\"description\":\"delete-by-query [rt]\"") || strstr(got, "tasks/lists"))
        fail_msg("%s", got);
    free(got);
    /* not detailed: no status, no description; the list task itself shows */
    assert_int_equal(req("GET", "/_tasks?group_by=none", NULL, &got), 200);
    if (!strstr(got, "{\"tasks\":[{") || strstr(got, "\"status\"") || strstr(got, "\"description\"") ||
        !strstr(got, "\"action\":\"cluster:monitor/tasks/lists\"") ||
        !strstr(got, "\"action\":\"cluster:monitor/tasks/lists[n]\""))
        fail_msg("%s", got);
    free(got);
    snprintf(path, sizeof path, "/_tasks/%s", id);
    EXPECT_HAS("GET", path, NULL, 200, "{\"completed\":false,\"task\":{");
    /* unlimited: the pending delay is dropped */
    snprintf(path, sizeof path, "/_delete_by_query/%s/_rethrottle?requests_per_second=-1", id);
    assert_int_equal(req("POST", path, NULL, &got), 200);
    if (!strstr(got, key) || !strstr(got, "\"requests_per_second\":-1.0")) fail_msg("%s", got);
    free(got);
    snprintf(path, sizeof path, "/_tasks/%s?wait_for_completion=true", id);
    assert_int_equal(req("GET", path, NULL, &got), 200);
    if (!strstr(got, "\"response\":{\"took\":0,\"timed_out\":false,\"total\":3,\"deleted\":3,\"batches\":3,"
                     "\"version_conflicts\":0,\"noops\":0,\"retries\":{\"bulk\":0,\"search\":0},\"throttled_millis\":0,"))
        fail_msg("%s", got);
    free(got);
}

static void test_cancel(void **s) {
    (void)s;
    docs("c", 2);
    char id[96], path[192];
    task_of("POST", "/c/_update_by_query?wait_for_completion=false&scroll_size=1&requests_per_second=.00000001",
            NULL, id, sizeof id);
    /* once its first batch ran, it waits ~9.5 years for the second */
    snprintf(path, sizeof path, "/_tasks/%s", id);
    char *got = NULL;
    for (int i = 0; i < 500; i++) {
        free(got);
        assert_int_equal(req("GET", path, NULL, &got), 200);
        if (strstr(got, "\"batches\":1,")) break;
        usleep(10000);
    }
    if (!strstr(got, "{\"completed\":false,") || !strstr(got, "\"batches\":1,")) fail_msg("%s", got);
    free(got);
    /* wait_for_completion: the answer comes once the task ended */
    snprintf(path, sizeof path, "/_tasks/%s/_cancel?wait_for_completion=true", id);
    assert_int_equal(req("POST", path, NULL, &got), 200);
    if (!strstr(got, "\"cancellable\":true,\"cancelled\":true")) fail_msg("%s", got);
    free(got);
    snprintf(path, sizeof path, "/_tasks/%s", id);
    assert_int_equal(req("GET", path, NULL, &got), 200);
    /* the first batch ran, the delayed second one did not */
    if (!strstr(got, "\"cancelled\":true") || !strstr(got, "\"total\":2,\"updated\":1,\"deleted\":0,\"batches\":1,") ||
        !strstr(got, "\"canceled\":\"by user request\""))
        fail_msg("%s", got);
    free(got);
}

static void test_errors(void **s) {
    (void)s;
    EXPECT("GET", "/_tasks/nope", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"malformed task id "
           "nope\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"malformed task id nope\"},\"status\":400}");
    EXPECT("GET", "/_tasks/other:1", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"resource_not_found_exception\",\"reason\":\"task [other:1] "
           "belongs to the node [other] which isn't part of the cluster and there is no record of the task\"}],"
           "\"type\":\"resource_not_found_exception\",\"reason\":\"task [other:1] belongs to the node [other] which "
           "isn't part of the cluster and there is no record of the task\"},\"status\":404}");
    EXPECT("POST", "/_reindex/x:1/_rethrottle", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"requests_per_second is "
           "a required parameter\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"requests_per_second is a "
           "required parameter\"},\"status\":400}");
    EXPECT_HAS("POST", "/_update_by_query/x:1/_rethrottle?requests_per_second=0", NULL, 400,
               "\"reason\":\"[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.\"");
    /* an unknown task of another node: a node failure in a 200 answer */
    EXPECT("POST", "/_tasks/x:1/_cancel", NULL, 200,
           "{\"node_failures\":[{\"type\":\"failed_node_exception\",\"reason\":\"Failed node [x]\",\"node_id\":\"x\","
           "\"caused_by\":{\"type\":\"no_such_node_exception\",\"reason\":\"No such node [x]\",\"node_id\":\"x\"}}],"
           "\"nodes\":{}}");
    EXPECT("GET", "/_tasks?group_by=tree", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Unknown group by value "
           "tree\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"Unknown group by value tree\"},"
           "\"status\":400}");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_stored_result, setup, teardown),
        cmocka_unit_test_setup_teardown(test_throttle_sleeps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nowait_throttled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_rethrottle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
