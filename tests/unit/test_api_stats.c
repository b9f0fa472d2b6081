/*
 * test_api_stats.c — _stats, _flush and _forcemerge through the REST API.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A number after "key": in the response (the first occurrence at or after
 * `after`, NULL: anywhere); -1 when absent. */
static long long num_after(const char *body, const char *after, const char *key) {
    const char *p = after ? strstr(body, after) : body;
    if (!p) return -1;
    char k[96];
    snprintf(k, sizeof k, "\"%s\":", key);
    p = strstr(p, k);
    return p ? strtoll(p + strlen(k), NULL, 10) : -1;
}

/* GET /s/_stats/<metric> and the number of key in its index section. */
static long long stat(const char *metric, const char *key) {
    char path[128], *b = NULL;
    snprintf(path, sizeof path, "/s/_stats/%s", metric);
    assert_int_equal(req("GET", path, NULL, &b), 200);
    long long v = num_after(b, "\"indices\":{\"s\":", key);
    free(b);
    return v;
}

/* Writes count as they happen: three indexed documents are index_total 3,
 * a conflicting create is index_failed, a delete (of a missing document
 * too) delete_total, a no-op update noop_update_total; the update's read is
 * a get. */
static void test_indexing(void **s) {
    (void)s;
    OK("PUT", "/s", NULL);
    assert_int_equal(stat("indexing", "index_total"), 0);
    OK("PUT", "/s/_doc/1", "{\"a\":1}");
    OK("PUT", "/s/_doc/2", "{\"a\":2}");
    OK("PUT", "/s/_doc/3", "{\"a\":3}");
    assert_int_equal(stat("indexing", "index_total"), 3);
    assert_int_equal(stat("indexing", "index_failed"), 0);
    EXPECT_STATUS("PUT", "/s/_create/1", "{\"a\":1}", 409);
    assert_int_equal(stat("indexing", "index_failed"), 1);
    assert_int_equal(stat("indexing", "index_total"), 3);
    /* a document that does not parse never reaches the engine's counts */
    EXPECT_STATUS("PUT", "/s/_doc/4", "{\"a\":\"x\"}", 400);
    assert_int_equal(stat("indexing", "index_total"), 3);
    OK("DELETE", "/s/_doc/3", NULL);
    EXPECT_STATUS("DELETE", "/s/_doc/9", NULL, 404);
    assert_int_equal(stat("indexing", "delete_total"), 2);
    OK("POST", "/s/_update/1", "{\"doc\":{\"a\":1}}");
    assert_int_equal(stat("indexing", "noop_update_total"), 1);
    assert_int_equal(stat("indexing", "index_total"), 3);
    assert_int_equal(stat("get", "exists_total"), 1);
}

/* A GET hit and a miss, a HEAD and an _mget of two: exists and missing. */
static void test_get(void **s) {
    (void)s;
    OK("PUT", "/s/_doc/1", "{\"a\":1}");
    OK("GET", "/s/_doc/1", NULL);
    EXPECT_STATUS("GET", "/s/_doc/2", NULL, 404);
    assert_int_equal(stat("get", "exists_total"), 1);
    assert_int_equal(stat("get", "missing_total"), 1);
    assert_int_equal(stat("get", "total"), 2);
    OK("POST", "/s/_mget", "{\"ids\":[\"1\",\"7\"]}");
    EXPECT_STATUS("HEAD", "/s/_doc/1", NULL, 200);
    assert_int_equal(stat("get", "exists_total"), 3);
    assert_int_equal(stat("get", "missing_total"), 2);
    /* the deprecated getTime is written without human, time only with it */
    EXPECT_HAS("GET", "/s/_stats/get", NULL, 200, "\"total\":5,\"getTime\":\"0s\",\"time_in_millis\":0,");
    EXPECT_HAS("GET", "/s/_stats/get?human", NULL, 200,
               "\"total\":5,\"getTime\":\"0s\",\"time\":\"0s\",\"time_in_millis\":0,\"exists_total\":3,"
               "\"exists_time\":\"0s\"");
}

/* A search is a query and, on a one-shard index, a fetch; a suggest-only
 * search a suggestion; a scroll is open until cleared, then counted. */
static void test_search(void **s) {
    (void)s;
    OK("PUT", "/s", "{\"settings\":{\"number_of_shards\":1}}");
    OK("PUT", "/s/_doc/1?refresh=true", "{\"t\":\"hello\"}");
    OK("POST", "/s/_search", "{\"query\":{\"match\":{\"t\":\"hello\"}}}");
    assert_int_equal(stat("search", "query_total"), 1);
    assert_int_equal(stat("search", "fetch_total"), 1);
    OK("POST", "/s/_count", NULL);
    assert_int_equal(stat("search", "query_total"), 2);
    /* a failed search counts nothing */
    EXPECT_STATUS("POST", "/s/_search", "{\"query\":{\"nope\":{}}}", 400);
    assert_int_equal(stat("search", "query_total"), 2);
    OK("POST", "/s/_search", "{\"suggest\":{\"x\":{\"text\":\"helo\",\"term\":{\"field\":\"t\"}}}}");
    assert_int_equal(stat("search", "suggest_total"), 1);
    assert_int_equal(stat("search", "query_total"), 2);
    char *b = NULL;
    assert_int_equal(req("POST", "/s/_search?scroll=1m", "{\"size\":1}", &b), 200);
    assert_int_equal(stat("search", "scroll_current"), 1);
    assert_int_equal(stat("search", "open_contexts"), 1);
    assert_int_equal(stat("search", "scroll_total"), 0);
    free(b);
    OK("DELETE", "/_search/scroll/_all", NULL);
    assert_int_equal(stat("search", "scroll_current"), 0);
    assert_int_equal(stat("search", "scroll_total"), 1);
    assert_int_equal(stat("search", "query_total"), 3);
}

/* Two indices of one shard each: a search fetches only from the index
 * whose hits are on the page. */
static void test_fetch_per_target(void **s) {
    (void)s;
    OK("PUT", "/s", "{\"settings\":{\"number_of_shards\":1}}");
    OK("PUT", "/o", "{\"settings\":{\"number_of_shards\":1}}");
    OK("PUT", "/s/_doc/1?refresh=true", "{\"t\":\"hello\"}");
    OK("PUT", "/o/_doc/1?refresh=true", "{\"t\":\"bye\"}");
    OK("POST", "/s,o/_search", "{\"query\":{\"match\":{\"t\":\"hello\"}}}");
    char *b = NULL;
    assert_int_equal(req("GET", "/_stats/search", NULL, &b), 200);
    assert_int_equal(num_after(b, "\"indices\":{", "query_total"), 1);
    assert_int_equal(num_after(b, "\"o\":{", "query_total"), 1);
    assert_int_equal(num_after(b, "\"o\":{", "fetch_total"), 0);
    assert_int_equal(num_after(b, "\"s\":{", "fetch_total"), 1);
    assert_int_equal(num_after(b, "\"_all\":{", "query_total"), 2);
    free(b);
}

/* Refreshes and flushes count; the in-memory translog holds the writes
 * since the last flush and their encoded size, and a flush empties it. */
static void test_refresh_flush_translog(void **s) {
    (void)s;
    OK("PUT", "/s", "{\"settings\":{\"refresh_interval\":\"-1\"}}");
    long long r0 = stat("refresh", "total");
    OK("POST", "/s/_refresh", NULL);
    assert_int_equal(stat("refresh", "total"), r0 + 1);
    assert_int_equal(stat("refresh", "external_total"), r0 + 1);
    assert_int_equal(stat("translog", "operations"), 0);
    assert_int_equal(stat("translog", "size_in_bytes"), 0);
    OK("PUT", "/s/_doc/1", "{\"a\":1}");
    OK("PUT", "/s/_doc/2", "{\"a\":2}");
    assert_int_equal(stat("translog", "operations"), 2);
    assert_int_equal(stat("translog", "uncommitted_operations"), 2);
    /* per record: 12 bytes of frame, type, id, routing, version, seq_no,
     * primary term and the 7-byte source with its length (1+1+1+1+1+1+1+1+7) */
    assert_int_equal(stat("translog", "size_in_bytes"), 2 * (12 + 15));
    assert_int_equal(stat("flush", "total"), 0);
    OK("POST", "/s/_flush", NULL);
    assert_int_equal(stat("flush", "total"), 1);
    assert_int_equal(stat("flush", "periodic"), 0);
    assert_int_equal(stat("translog", "operations"), 0);
    assert_int_equal(stat("translog", "uncommitted_size_in_bytes"), 0);
    assert_int_equal(stat("docs", "count"), 2);
    assert_int_equal(stat("segments", "count"), 1);
}

/* Merges: a forced merge of the segments into one is one merge of their
 * documents. */
static void test_merges(void **s) {
    (void)s;
    OK("PUT", "/s", "{\"settings\":{\"refresh_interval\":\"-1\"}}");
    for (int i = 0; i < 3; i++) {
        char path[64];
        snprintf(path, sizeof path, "/s/_doc/%d?refresh=true", i);
        OK("PUT", path, "{\"a\":1}");
    }
    assert_int_equal(stat("segments", "count"), 3);
    OK("DELETE", "/s/_doc/0", NULL);
    assert_int_equal(stat("merge", "total"), 0);
    OK("POST", "/s/_forcemerge?max_num_segments=1", NULL);
    assert_int_equal(stat("merge", "total"), 1);
    /* the refresh before it dropped the wholly deleted segment (as Lucene
     * drops a 100% deleted one): the merge read the other two */
    assert_int_equal(stat("merge", "total_docs"), 2);
    assert_true(stat("merge", "total_size_in_bytes") > 0);
    assert_int_equal(stat("segments", "count"), 1);
    /* a forced merge's own flush is not a flush of the statistics */
    assert_int_equal(stat("flush", "total"), 0);
}

/* Every section, in CommonStats' order; metric errors as OpenSearch's. */
static void test_shape(void **s) {
    (void)s;
    OK("PUT", "/s", NULL);
    char *b = NULL;
    assert_int_equal(req("GET", "/s/_stats", NULL, &b), 200);
    static const char *const order[] = {"\"docs\"", "\"store\"", "\"indexing\"", "\"get\"", "\"search\"",
                                        "\"merges\"", "\"refresh\"", "\"flush\"", "\"warmer\"",
                                        "\"query_cache\"", "\"fielddata\"", "\"completion\"", "\"segments\"",
                                        "\"translog\"", "\"request_cache\"", "\"recovery\""};
    const char *p = strstr(b, "\"primaries\"");
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        const char *q = strstr(p, order[i]);
        assert_non_null(q);
        p = q;
    }
    free(b);
    EXPECT_HAS("GET", "/s/_stats/merge,flush?human", NULL, 200,
               "\"flush\":{\"total\":0,\"periodic\":0,\"total_time\":\"0s\",\"total_time_in_millis\":0}");
    EXPECT_HAS("GET", "/s/_stats/fielddata?fields=a*", NULL, 200,
               "\"fielddata\":{\"memory_size_in_bytes\":0,\"evictions\":0,\"fields\":{}}");
    EXPECT_HAS("GET", "/s/_stats/completion,fielddata?completion_fields=a", NULL, 200,
               "\"fielddata\":{\"memory_size_in_bytes\":0,\"evictions\":0},\"completion\":{\"size_in_bytes\":0,"
               "\"fields\":{}}");
    EXPECT_HAS("GET", "/s/_stats/_all,docs", NULL, 400,
               "\"reason\":\"request [/s/_stats/_all,docs] contains _all and individual metrics [_all,docs]\"");
    EXPECT_HAS("GET", "/s/_stats/zz,docs,aa", NULL, 400, "contains unrecognized metrics: [aa, zz]");
    EXPECT_HAS("GET", "/s/_stats?level=shards", NULL, 400, "unsupported_operation_exception");
}

/* A closed index reports its translog (emptied by the close's flush) with
 * forbid_closed_indices=false, and its counters start afresh. */
static void test_closed(void **s) {
    (void)s;
    OK("PUT", "/s", NULL);
    OK("PUT", "/s/_doc/1", "{\"a\":1}");
    assert_int_equal(stat("translog", "operations"), 1);
    OK("POST", "/s/_close", NULL);
    EXPECT_STATUS("GET", "/s/_stats", NULL, 400);
    char *b = NULL;
    assert_int_equal(req("GET", "/s/_stats/translog,indexing?forbid_closed_indices=false&expand_wildcards=all", NULL, &b), 200);
    assert_int_equal(num_after(b, "\"indices\":{\"s\":", "operations"), 0);
    assert_int_equal(num_after(b, "\"indices\":{\"s\":", "index_total"), 0);
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_forcemerge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_indexing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_get, setup, teardown),
        cmocka_unit_test_setup_teardown(test_search, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fetch_per_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refresh_flush_translog, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merges, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_closed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
