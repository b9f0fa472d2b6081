/* test_api_search_routing.c — routed searches through trove_request: a
 * search with `routing` (or an alias's search_routing, or a `_shards:`
 * preference) reaches only the shards those values route to, so it sees
 * exactly the documents living there (each document's shard read back from
 * explain's "_shard"), and _shards counts the shards searched; counts,
 * scrolls, global aggregations and delete_by_query narrow the same way. */
#define API_TEST_MASK_TOOK
#include <stdbool.h>

#include "api_test.h"

#define NDOCS 12

/* shard_of[i]: the shard document i (routing "r<i>") lives on. */
static int shard_of[NDOCS];

static void load(void) {
    OK("PUT", "/s", "{\"settings\":{\"number_of_shards\":5}}");
    for (int i = 0; i < NDOCS; i++) {
        char path[64], body[64];
        snprintf(path, sizeof path, "/s/_doc/%d?routing=r%d", i, i);
        snprintf(body, sizeof body, "{\"n\":%d}", i);
        OK("PUT", path, body);
    }
    OK("POST", "/s/_refresh", NULL);
    char *got;
    assert_int_equal(req("POST", "/s/_search?explain=true&size=100&filter_path=hits.hits._id,hits.hits._shard",
                         "{}", &got), 200);
    int seen = 0;
    for (const char *p = got; (p = strstr(p, "{\"_shard\":\"[s][")) != NULL; seen++) {
        int sh = atoi(p + 15);
        const char *id = strstr(p, "\"_id\":\"");
        assert_non_null(id);
        shard_of[atoi(id + 7)] = sh;
        p = id;
    }
    free(got);
    assert_int_equal(seen, NDOCS);
}

/* The ids (sorted by n) a search returns, as "0,3,7". */
static void ids_of(const char *path, const char *body, char *out, size_t cap) {
    char *got;
    int st = req("POST", path, body, &got);
    if (st != 200) fail_msg("%s: %d %s", path, st, got);
    out[0] = '\0';
    for (const char *p = got; (p = strstr(p, "\"_id\":\"")) != NULL; p += 7) {
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "%s%d", n ? "," : "", atoi(p + 7));
    }
    free(got);
}

/* The docs on the shards in mask, as ids_of prints them. */
static void expect_mask(unsigned mask, char *out, size_t cap) {
    out[0] = '\0';
    for (int i = 0; i < NDOCS; i++) {
        if (!(mask >> shard_of[i] & 1)) continue;
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "%s%d", n ? "," : "", i);
    }
}

static const char *SORTED = "{\"size\":100,\"sort\":[{\"n\":\"asc\"}]}";

static void test_routing_param(void **s) {
    (void)s;
    load();
    char got[256], want[256];
    ids_of("/s/_search?routing=r3", SORTED, got, sizeof got);
    expect_mask(1u << shard_of[3], want, sizeof want);
    assert_string_equal(got, want);
    ids_of("/s/_search?routing=r3,%20r8", SORTED, got, sizeof got); /* values trimmed */
    expect_mask(1u << shard_of[3] | 1u << shard_of[8], want, sizeof want);
    assert_string_equal(got, want);
    unsigned two = 1u << shard_of[3] | 1u << shard_of[8];
    char exp[160];
    snprintf(exp, sizeof exp, "\"_shards\":{\"total\":%d,\"successful\":%d,\"skipped\":0,\"failed\":0}",
             __builtin_popcount(two), __builtin_popcount(two));
    EXPECT_HAS("POST", "/s/_search?routing=r3,r8", "{}", 200, exp);
    /* every shard without routing */
    EXPECT_HAS("POST", "/s/_search", "{}", 200, "\"_shards\":{\"total\":5,\"successful\":5");
    /* _count narrows the same way */
    expect_mask(1u << shard_of[5], want, sizeof want);
    int n = 1;
    for (const char *p = want; *p; p++) n += *p == ',';
    snprintf(exp, sizeof exp, "{\"count\":%d,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0}}", n);
    EXPECT("GET", "/s/_count?routing=r5", NULL, 200, exp);
    /* _shards: preference */
    ids_of("/s/_search?preference=_shards:0,4%7C_local", SORTED, got, sizeof got);
    expect_mask(1u << 0 | 1u << 4, want, sizeof want);
    assert_string_equal(got, want);
    /* a global aggregation counts the searched shards' documents only */
    expect_mask(1u << shard_of[1], want, sizeof want);
    n = 1;
    for (const char *p = want; *p; p++) n += *p == ',';
    snprintf(exp, sizeof exp, "\"aggregations\":{\"all\":{\"doc_count\":%d}}", n);
    EXPECT_HAS("POST", "/s/_search?routing=r1", "{\"size\":0,\"aggs\":{\"all\":{\"global\":{}}}}", 200, exp);
}

static void test_alias_scroll_by_query(void **s) {
    (void)s;
    load();
    char got[256], want[256];
    OK("POST", "/_aliases", "{\"actions\":[{\"add\":{\"index\":\"s\",\"alias\":\"a\",\"search_routing\":\"r2,r6\"}}]}");
    ids_of("/a/_search", SORTED, got, sizeof got);
    expect_mask(1u << shard_of[2] | 1u << shard_of[6], want, sizeof want);
    assert_string_equal(got, want);
    /* request routing and the alias's: their shards' intersection */
    ids_of("/a/_search?routing=r2", SORTED, got, sizeof got);
    expect_mask(1u << shard_of[2], want, sizeof want);
    assert_string_equal(got, want);
    /* a scroll's later pages stay on the routed shards */
    char *page;
    assert_int_equal(req("POST", "/s/_search?routing=r4&scroll=1m", "{\"size\":1,\"sort\":[{\"n\":\"asc\"}]}", &page),
                     200);
    char *sid = field(page, "_scroll_id");
    free(page);
    expect_mask(1u << shard_of[4], want, sizeof want);
    char all[256] = "", body[512];
    int first = -1;
    assert_int_equal(req("POST", "/s/_search?routing=r4", "{\"size\":1,\"sort\":[{\"n\":\"asc\"}]}", &page), 200);
    first = atoi(strstr(page, "\"_id\":\"") + 7);
    free(page);
    snprintf(all, sizeof all, "%d", first);
    for (int i = 0; i < NDOCS; i++) {
        snprintf(body, sizeof body, "{\"scroll\":\"1m\",\"scroll_id\":\"%s\"}", sid);
        assert_int_equal(req("POST", "/_search/scroll", body, &page), 200);
        const char *p = strstr(page, "\"_id\":\"");
        if (p) {
            size_t n = strlen(all);
            snprintf(all + n, sizeof all - n, ",%d", atoi(p + 7));
        }
        free(page);
        if (!p) break;
    }
    free(sid);
    assert_string_equal(all, want);
    /* delete_by_query deletes the routed shards' matches only */
    OK("POST", "/s/_delete_by_query?routing=r7&refresh=true", "{\"query\":{\"match_all\":{}}}");
    ids_of("/s/_search", SORTED, got, sizeof got);
    expect_mask(0x1f & ~(1u << shard_of[7]), want, sizeof want);
    assert_string_equal(got, want);
}

static void test_partitioned(void **s) {
    (void)s;
    /* routing_partition_size 2 (one routing shard per shard): a routing
     * value spreads over two shards */
    OK("PUT", "/p", "{\"settings\":{\"number_of_shards\":4,\"number_of_routing_shards\":4,\"routing_partition_size\":2},"
                    "\"mappings\":{\"_routing\":{\"required\":true}}}");
    for (int i = 0; i < 20; i++) {
        char path[64];
        snprintf(path, sizeof path, "/p/_doc/%d?routing=same", i);
        OK("PUT", path, "{}");
    }
    OK("POST", "/p/_refresh", NULL);
    EXPECT_HAS("POST", "/p/_search?routing=same", "{\"size\":0}", 200,
               "\"_shards\":{\"total\":2,\"successful\":2,\"skipped\":0,\"failed\":0},\"hits\":{\"total\":{\"value\":20,");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_routing_param, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alias_scroll_by_query, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partitioned, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
