/* test_api_scroll.c — URI search (?q=), scroll (open, pages from a held
 * snapshot, clear, expiry, errors) and point in time (create, search, list,
 * delete) through trove_request, bodies compared exactly. */
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

static const char *SH = "\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0}";

static void test_uri_search(void **s) {
    (void)s;
    docs("u", 3);
    char want[1024];
    snprintf(want, sizeof want,
             "{\"took\":0,\"timed_out\":false,%s,\"hits\":{\"total\":{\"value\":3,\"relation\":\"eq\"},"
             "\"max_score\":null,\"hits\":[{\"_index\":\"u\",\"_id\":\"3\",\"_score\":null,\"_source\":{\"foo\":3},"
             "\"sort\":[3]}]}}",
             SH);
    EXPECT("GET", "/u/_search?q=common&sort=foo:desc&size=1&_source_includes=foo", NULL, 200, want);
    snprintf(want, sizeof want,
             "{\"took\":0,\"timed_out\":false,%s,\"hits\":{\"total\":{\"value\":1,\"relation\":\"eq\"},"
             "\"max_score\":null,\"hits\":[{\"_index\":\"u\",\"_id\":\"2\",\"_score\":null,\"sort\":[2]}]}}",
             SH);
    EXPECT("GET", "/u/_search?q=t:word2&sort=foo&_source=false", NULL, 200, want);
    /* default_operator AND needs both terms; df names the default field;
     * q replaces the body's query */
    char *b;
    assert_int_equal(req("GET", "/u/_search?q=word1%20common&df=t&default_operator=AND&size=0", NULL, &b), 200);
    assert_non_null(strstr(b, "\"total\":{\"value\":1,"));
    free(b);
    assert_int_equal(req("GET", "/u/_search?q=word1%20common&df=t&size=0", NULL, &b), 200);
    assert_non_null(strstr(b, "\"total\":{\"value\":3,"));
    free(b);
    assert_int_equal(req("POST", "/u/_search?q=foo:2&size=0", "{\"query\":{\"match_all\":{}}}", &b), 200);
    assert_non_null(strstr(b, "\"total\":{\"value\":1,"));
    free(b);
    EXPECT("GET", "/u/_search?q=x&default_operator=XOR", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"No enum constant "
           "org.opensearch.index.query.Operator.XOR\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"No enum "
           "constant org.opensearch.index.query.Operator.XOR\"},\"status\":400}");
}

static void test_scroll_pages(void **s) {
    (void)s;
    docs("sc", 3);
    char *b;
    assert_int_equal(req("GET", "/sc/_search?scroll=1m&size=2&sort=foo&_source=false&rest_total_hits_as_int=true",
                         NULL, &b),
                     200);
    char *id = field(b, "_scroll_id");
    assert_non_null(id);
    assert_true(strncmp(b, "{\"_scroll_id\":", 14) == 0);
    assert_non_null(strstr(b, "\"hits\":{\"total\":3,\"max_score\":null,\"hits\":[{\"_index\":\"sc\",\"_id\":\"1\""));
    free(b);
    /* a write after the scroll opened is not seen */
    assert_int_equal(req("PUT", "/sc/_doc/0?refresh=true", "{\"foo\":0}", NULL), 201);
    char path[512], want[1024];
    snprintf(path, sizeof path, "/_search/scroll?scroll=1m&scroll_id=%s&rest_total_hits_as_int=true", id);
    snprintf(want, sizeof want,
             "{\"_scroll_id\":\"%s\",\"took\":0,\"timed_out\":false,%s,\"hits\":{\"total\":3,\"max_score\":null,"
             "\"hits\":[{\"_index\":\"sc\",\"_id\":\"3\",\"_score\":null,\"sort\":[3]}]}}",
             id, SH);
    EXPECT("GET", path, NULL, 200, want);
    char body[512];
    snprintf(body, sizeof body, "{\"scroll_id\":\"%s\",\"scroll\":\"1m\"}", id);
    snprintf(want, sizeof want,
             "{\"_scroll_id\":\"%s\",\"took\":0,\"timed_out\":false,%s,\"hits\":{\"total\":{\"value\":3,"
             "\"relation\":\"eq\"},\"max_score\":null,\"hits\":[]}}",
             id, SH);
    EXPECT("POST", "/_search/scroll", body, 200, want); /* body wins over ?scroll_id */
    snprintf(body, sizeof body, "{\"scroll_id\":[\"%s\"]}", id);
    EXPECT("DELETE", "/_search/scroll", body, 200, "{\"succeeded\":true,\"num_freed\":1}");
    EXPECT("DELETE", "/_search/scroll", body, 404, "{\"succeeded\":true,\"num_freed\":0}");
    const char *gone =
        "{\"error\":{\"root_cause\":[{\"type\":\"search_context_missing_exception\",\"reason\":\"No search context "
        "found for id [1]\"}],\"type\":\"search_phase_execution_exception\",\"reason\":\"all shards failed\","
        "\"phase\":\"query\",\"grouped\":true,\"failed_shards\":[{\"shard\":-1,\"index\":null,\"reason\":{\"type\":"
        "\"search_context_missing_exception\",\"reason\":\"No search context found for id [1]\"}}],\"caused_by\":{"
        "\"type\":\"search_context_missing_exception\",\"reason\":\"No search context found for id [1]\"}},"
        "\"status\":404}";
    snprintf(path, sizeof path, "/_search/scroll/%s", id);
    EXPECT("GET", path, NULL, 404, gone);
    free(id);
}

static void test_scroll_expiry_and_all(void **s) {
    (void)s;
    docs("ex", 2);
    char *b;
    assert_int_equal(req("GET", "/ex/_search?scroll=1ms&size=1", NULL, &b), 200);
    char *id = field(b, "_scroll_id");
    free(b);
    usleep(20000);
    char path[512];
    snprintf(path, sizeof path, "/_search/scroll?scroll_id=%s", id);
    assert_int_equal(req("GET", path, NULL, &b), 404);
    assert_non_null(strstr(b, "No search context found for id [1]"));
    free(b);
    free(id);
    assert_int_equal(req("GET", "/ex/_search?scroll=1m&size=1", NULL, NULL), 200);
    assert_int_equal(req("GET", "/ex/_search?scroll=1m&size=1", NULL, NULL), 200);
    EXPECT("DELETE", "/_search/scroll/_all", NULL, 200, "{\"succeeded\":true,\"num_freed\":2}");
    EXPECT("DELETE", "/_search/scroll?scroll_id=_all", NULL, 404, "{\"succeeded\":true,\"num_freed\":0}");
}

static void test_scroll_errors(void **s) {
    (void)s;
    docs("se", 1);
    EXPECT("GET", "/se/_search?scroll=1m&size=0&request_cache=true", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: [size] cannot be [0] in a scroll context;2: [request_cache] cannot be used in a scroll "
           "context;\"}],\"type\":\"action_request_validation_exception\",\"reason\":\"Validation Failed: 1: [size] "
           "cannot be [0] in a scroll context;2: [request_cache] cannot be used in a scroll context;\"},"
           "\"status\":400}");
    char *b;
    assert_int_equal(req("POST", "/se/_search?scroll=1m", "{\"track_total_hits\":false,\"from\":1}", &b), 400);
    assert_non_null(strstr(b, "\"Validation Failed: 1: disabling [track_total_hits] is not allowed in a scroll "
                              "context;2: using [from] is not allowed in a scroll context;\""));
    free(b);
    assert_int_equal(req("GET", "/se/_search?scroll=5m&size=10010", NULL, &b), 400);
    assert_non_null(strstr(b, "\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Batch size is "
                              "too large, size must be less than or equal to: [10000] but was [10010]. Scroll batch "
                              "sizes cost as much memory as result windows so they are controlled by the "
                              "[index.max_result_window] index level setting.\"}],\"type\":"
                              "\"search_phase_execution_exception\""));
    free(b);
    EXPECT("GET", "/se/_search?scroll=1x", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"failed to parse setting [scroll] "
           "with value [1x] as a time value: unit is missing or unrecognized\"}],\"type\":\"illegal_argument_exception\","
           "\"reason\":\"failed to parse setting [scroll] with value [1x] as a time value: unit is missing or "
           "unrecognized\"},\"status\":400}");
    assert_int_equal(req("GET", "/se/_search?scroll=25h", NULL, &b), 400);
    assert_non_null(strstr(b, "Keep alive for request (1d) is too large. It must be less than (1d)."));
    free(b);
    EXPECT("POST", "/_search/scroll", "{\"scroll_id\":\"invalid_scroll_id\"}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Cannot parse scroll "
           "id\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"Cannot parse scroll id\",\"caused_by\":{"
           "\"type\":\"illegal_argument_exception\",\"reason\":\"Last unit does not have enough valid bits\"}},"
           "\"status\":400}");
    EXPECT("POST", "/_search/scroll", "{}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: scrollId is missing;\"}],\"type\":\"action_request_validation_exception\",\"reason\":"
           "\"Validation Failed: 1: scrollId is missing;\"},\"status\":400}");
    EXPECT("POST", "/_search/scroll", "{\"foo\":1}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Unknown parameter "
           "[foo] in request body or parameter is of the wrong type[VALUE_NUMBER] \"}],\"type\":"
           "\"illegal_argument_exception\",\"reason\":\"Unknown parameter [foo] in request body or parameter is of "
           "the wrong type[VALUE_NUMBER] \"},\"status\":400}");
    EXPECT("DELETE", "/_search/scroll", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: no scroll ids specified;\"}],\"type\":\"action_request_validation_exception\",\"reason\":"
           "\"Validation Failed: 1: no scroll ids specified;\"},\"status\":400}");
}

static void test_pit(void **s) {
    (void)s;
    docs("pit", 2);
    char *b;
    assert_int_equal(req("POST", "/pit/_search/point_in_time?keep_alive=23h", NULL, &b), 200);
    char *id = field(b, "pit_id");
    assert_non_null(id);
    assert_non_null(strstr(b, "\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0},\"creation_time\":"));
    free(b);
    assert_int_equal(req("PUT", "/pit/_doc/0?refresh=true", "{\"foo\":0}", NULL), 201);
    char body[512], want[1024];
    snprintf(body, sizeof body, "{\"size\":1,\"sort\":[\"foo\"],\"_source\":false,\"pit\":{\"id\":\"%s\",\"keep_alive\":\"10m\"}}", id);
    snprintf(want, sizeof want,
             "{\"pit_id\":\"%s\",\"took\":0,\"timed_out\":false,%s,\"hits\":{\"total\":{\"value\":2,\"relation\":"
             "\"eq\"},\"max_score\":null,\"hits\":[{\"_index\":\"pit\",\"_id\":\"1\",\"_score\":null,\"sort\":[1]}]}}",
             id, SH);
    EXPECT("POST", "/_search", body, 200, want);
    /* search_after pages the held snapshot */
    snprintf(body, sizeof body, "{\"size\":1,\"sort\":[\"foo\"],\"_source\":false,\"search_after\":[1],\"pit\":{\"id\":\"%s\"}}", id);
    assert_int_equal(req("POST", "/_search", body, &b), 200);
    assert_non_null(strstr(b, "\"_id\":\"2\""));
    free(b);
    EXPECT("POST", "/pit/_search", body, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: [indices] cannot be used with point in time;\"}],\"type\":"
           "\"action_request_validation_exception\",\"reason\":\"Validation Failed: 1: [indices] cannot be used with "
           "point in time;\"},\"status\":400}");
    assert_int_equal(req("GET", "/_search/point_in_time/_all", NULL, &b), 200);
    assert_non_null(strstr(b, "\"keep_alive\":600000}]}"));
    assert_true(strncmp(b, "{\"pits\":[{\"pit_id\":\"", 20) == 0);
    free(b);
    snprintf(body, sizeof body, "{\"pit_id\":[\"%s\"]}", id);
    snprintf(want, sizeof want, "{\"pits\":[{\"successful\":true,\"pit_id\":\"%s\"}]}", id);
    EXPECT("DELETE", "/_search/point_in_time", body, 200, want);
    snprintf(body, sizeof body, "{\"pit\":{\"id\":\"%s\"}}", id);
    assert_int_equal(req("POST", "/_search", body, &b), 404);
    assert_non_null(strstr(b, "\"failed_shards\":[{\"shard\":0,\"index\":\"pit\",\"node\":"));
    assert_non_null(strstr(b, "No search context found for id [1]"));
    free(b);
    free(id);
    EXPECT("POST", "/pit/_search/point_in_time", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: keep alive not specified;\"}],\"type\":\"action_request_validation_exception\",\"reason\":"
           "\"Validation Failed: 1: keep alive not specified;\"},\"status\":400}");
    assert_int_equal(req("POST", "/pit/_search/point_in_time?keep_alive=1m", NULL, NULL), 200);
    assert_int_equal(req("DELETE", "/_search/point_in_time/_all", NULL, &b), 200);
    assert_true(strncmp(b, "{\"pits\":[{\"successful\":true,\"pit_id\":\"", 38) == 0);
    free(b);
    EXPECT("DELETE", "/_search/point_in_time/_all", NULL, 200, "{\"pits\":[]}");
    EXPECT("DELETE", "/_search/point_in_time", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: No pit ids specified;\"}],\"type\":\"action_request_validation_exception\",\"reason\":"
           "\"Validation Failed: 1: No pit ids specified;\"},\"status\":400}");
    /* a context left open is freed with the node (no leak under ASan) */
    assert_int_equal(req("POST", "/pit/_search/point_in_time?keep_alive=1m", NULL, NULL), 200);
    assert_int_equal(req("GET", "/pit/_search?scroll=1m", NULL, NULL), 200);
}

/* The ids and sort values of a search's hits: "index/id:sort,...". */
static void sort_list(const char *got, char *out, size_t cap) {
    size_t o = 0;
    out[0] = '\0';
    for (const char *p = strstr(got, "\"hits\":["); p && (p = strstr(p, "\"_index\":\"")) != NULL;) {
        p += 10;
        size_t il = strcspn(p, "\"");
        const char *id = strstr(p, "\"_id\":\"") + 7;
        size_t idl = strcspn(id, "\"");
        const char *sv = strstr(id, "\"sort\":[") + 8;
        size_t svl = strcspn(sv, "]");
        o += (size_t)snprintf(out + o, cap - o, "%s%.*s/%.*s:%.*s", o ? "," : "", (int)il, p, (int)idl, id, (int)svl, sv);
        p = sv;
    }
}

/* _shard_doc with a point in time: (shard index << 32) | the shard's doc
 * id, ascending by default, search_after pages across shards. */
static void test_pit_shard_doc(void **s) {
    (void)s;
    docs("sa", 2);
    docs("sb", 2);
    char *b, list[512];
    assert_int_equal(req("POST", "/sa,sb/_search/point_in_time?keep_alive=1m", NULL, &b), 200);
    char *id = field(b, "pit_id");
    free(b);
    char body[600];
    snprintf(body, sizeof body, "{\"size\":3,\"sort\":[{\"_shard_doc\":{}}],\"pit\":{\"id\":\"%s\"}}", id);
    assert_int_equal(req("POST", "/_search", body, &b), 200);
    sort_list(b, list, sizeof list);
    assert_string_equal(list, "sa/1:0,sa/2:1,sb/1:4294967296");
    free(b);
    snprintf(body, sizeof body, "{\"size\":3,\"sort\":[\"_shard_doc\"],\"search_after\":[1],\"pit\":{\"id\":\"%s\"}}", id);
    assert_int_equal(req("POST", "/_search", body, &b), 200);
    sort_list(b, list, sizeof list);
    assert_string_equal(list, "sb/1:4294967296,sb/2:4294967297");
    free(b);
    snprintf(body, sizeof body, "{\"size\":2,\"sort\":[{\"_shard_doc\":{\"order\":\"desc\"}}],\"pit\":{\"id\":\"%s\"}}", id);
    assert_int_equal(req("POST", "/_search", body, &b), 200);
    sort_list(b, list, sizeof list);
    assert_string_equal(list, "sb/2:4294967297,sb/1:4294967296");
    free(b);
    snprintf(body, sizeof body, "{\"sort\":[{\"_shard_doc\":{\"x\":1}}],\"pit\":{\"id\":\"%s\"}}", id);
    assert_int_equal(req("POST", "/_search", body, &b), 400);
    assert_non_null(strstr(b, "[_shard_doc] unknown field [x]"));
    free(b);
    free(id);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_uri_search, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scroll_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scroll_expiry_and_all, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scroll_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pit_shard_doc, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
