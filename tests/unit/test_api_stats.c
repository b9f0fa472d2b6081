/*
 * test_api_stats.c — _stats, _flush and _forcemerge through the REST API.
 */
#include <stdbool.h>

#include "api_test.h"

/* POST _forcemerge?max_num_segments=1 merges every segment into one and
 * drops deleted documents: _stats shows no deleted docs, BM25 statistics
 * no longer count them (a deleted doc's terms stop raising df), and every
 * live document is still found. */
static void test_forcemerge(void **s) {
    (void)s;
    OK("PUT", "/m", "{\"settings\":{\"refresh_interval\":\"-1\"}}");
    for (int seg = 0; seg < 3; seg++) {
        for (int i = 0; i < 4; i++) {
            char path[64], doc[64];
            snprintf(path, sizeof path, "/m/_doc/%d", seg * 4 + i);
            snprintf(doc, sizeof doc, "{\"t\":\"%s\"}", i == 0 ? "rare" : "common word");
            OK("PUT", path, doc);
        }
        OK("POST", "/m/_refresh", NULL);
    }
    OK("DELETE", "/m/_doc/4", NULL);
    OK("DELETE", "/m/_doc/8", NULL);
    OK("POST", "/m/_refresh", NULL);
    EXPECT_HAS("GET", "/m/_stats/docs", NULL, 200, "\"docs\":{\"count\":10,\"deleted\":2}");
    char *before, *after;
    assert_int_equal(req("POST", "/m/_search", "{\"query\":{\"match\":{\"t\":\"rare\"}}}", &before), 200);
    EXPECT_HAS("POST", "/m/_forcemerge?max_num_segments=1", NULL, 200, "\"_shards\":");
    EXPECT_HAS("GET", "/m/_stats/docs", NULL, 200, "\"docs\":{\"count\":10,\"deleted\":0}");
    EXPECT_HAS("GET", "/m/_count", NULL, 200, "\"count\":10");
    assert_int_equal(req("POST", "/m/_search", "{\"query\":{\"match\":{\"t\":\"rare\"}}}", &after), 200);
    /* one doc has "rare" now (ids 4 and 8 are gone): df 3 -> 1 raises its score */
    assert_non_null(strstr(after, "\"total\":{\"value\":1,"));
    assert_string_not_equal(strstr(before, "\"max_score\""), strstr(after, "\"max_score\""));
    free(before);
    free(after);
    /* without max_num_segments nothing but the refresh happens */
    OK("POST", "/m/_forcemerge", NULL);
    EXPECT_HAS("GET", "/m/_count", NULL, 200, "\"count\":10");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_forcemerge, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
