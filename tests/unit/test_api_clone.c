/*
 * test_api_clone.c — copy-on-write clones (trove_node_clone): a clone shares
 * its source's state until either side writes, and from then on neither
 * sees the other's changes, whichever side writes first and whatever the
 * change (documents, index creation and deletion, close, aliases,
 * templates, cluster settings, refresh visibility). Also: clones of
 * clones, freeing in any order, out-of-memory on the first write into a
 * clone, and clones taken while other threads write to the source.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define API_TEST_MASK_TOOK
#include "api_test.h"
#include "util/util.h"

#define COUNT_BODY(n) "{\"count\":" #n ",\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0}}"

/* req() on another node */
static int on(trove_node *node, const char *m, const char *p, const char *b, char **out) {
    trove_node *saved = N;
    N = node;
    int st = req(m, p, b, out);
    N = saved;
    return st;
}

static long count_of(trove_node *node, const char *index) {
    char path[64], *b;
    snprintf(path, sizeof path, "/%s/_count", index);
    int st = on(node, "GET", path, NULL, &b);
    long c = st == 200 ? strtol(strstr(b, "\"count\":") + 8, NULL, 10) : -st;
    free(b);
    return c;
}

static void seed(void) {
    OK("PUT", "/a", "{\"settings\":{\"refresh_interval\":\"-1\"}}");
    OK("PUT", "/a/_doc/1?refresh=true", "{\"t\":\"one\"}");
    OK("PUT", "/b/_doc/1?refresh=true", "{\"t\":\"one\"}");
    OK("POST", "/_aliases", "{\"actions\":[{\"add\":{\"index\":\"a\",\"alias\":\"al\"}}]}");
    OK("PUT", "/_index_template/t1", "{\"index_patterns\":[\"t1-*\"]}");
}

/* Every kind of change made on `writer` after the clone stays there. */
static void check_isolation(trove_node *writer, trove_node *other) {
    char *b;
    assert_int_equal(on(writer, "PUT", "/a/_doc/2?refresh=true", "{\"t\":\"two\"}", &b), 201);
    free(b);
    assert_int_equal(count_of(writer, "a"), 2);
    assert_int_equal(count_of(other, "a"), 1);
    assert_int_equal(on(other, "GET", "/a/_doc/2", NULL, &b), 404);
    free(b);
    assert_int_equal(on(writer, "PUT", "/fresh", NULL, &b), 200);
    free(b);
    assert_int_equal(on(other, "HEAD", "/fresh", NULL, NULL), 404);
    assert_int_equal(on(writer, "DELETE", "/b", NULL, &b), 200);
    free(b);
    assert_int_equal(count_of(other, "b"), 1);
    assert_int_equal(on(writer, "POST", "/a/_close", NULL, &b), 200);
    free(b);
    assert_int_equal(count_of(other, "a"), 1);
    assert_int_equal(on(writer, "POST", "/a/_open", NULL, &b), 200);
    free(b);
    assert_int_equal(on(writer, "POST", "/_aliases", "{\"actions\":[{\"add\":{\"index\":\"a\",\"alias\":\"al2\"}}]}", &b),
                     200);
    free(b);
    assert_int_equal(on(other, "GET", "/_alias/al2", NULL, &b), 404);
    free(b);
    assert_int_equal(on(writer, "DELETE", "/_index_template/t1", NULL, &b), 200);
    free(b);
    assert_int_equal(on(other, "GET", "/_index_template/t1", NULL, &b), 200);
    free(b);
    assert_int_equal(on(writer, "PUT", "/_cluster/settings",
                        "{\"persistent\":{\"search.default_search_timeout\":\"5s\"}}", &b),
                     200);
    free(b);
    assert_int_equal(on(other, "GET", "/_cluster/settings", NULL, &b), 200);
    assert_null(strstr(b, "default_search_timeout"));
    free(b);
}

static void test_clone_writes_first(void **s) {
    (void)s;
    seed();
    trove_node *c = trove_node_clone(N, NULL);
    assert_non_null(c);
    /* the clone answers from the shared state */
    assert_int_equal(count_of(c, "a"), 1);
    assert_int_equal(count_of(c, "al"), 1);
    check_isolation(c, N);
    trove_node_free(c);
    assert_int_equal(count_of(N, "a"), 1);
}

static void test_source_writes_first(void **s) {
    (void)s;
    seed();
    trove_node *c = trove_node_clone(N, NULL);
    assert_non_null(c);
    check_isolation(N, c);
    /* the clone still has everything it started with */
    assert_int_equal(count_of(c, "b"), 1);
    char *b;
    assert_int_equal(on(c, "GET", "/_alias/al", NULL, &b), 200);
    free(b);
    trove_node_free(c);
}

/* A refresh on one side must not publish the other side's buffered
 * documents: with refresh_interval -1 only an explicit refresh does. */
static void test_refresh_stays_on_its_side(void **s) {
    (void)s;
    seed();
    OK("PUT", "/a/_doc/9", "{\"t\":\"buffered\"}"); /* not refreshed */
    trove_node *c1 = trove_node_clone(N, NULL), *c2 = trove_node_clone(N, NULL);
    assert_non_null(c1);
    assert_non_null(c2);
    char *b;
    assert_int_equal(on(c1, "POST", "/a/_refresh", NULL, &b), 200);
    free(b);
    assert_int_equal(count_of(c1, "a"), 2);
    assert_int_equal(count_of(N, "a"), 1);
    assert_int_equal(count_of(c2, "a"), 1);
    assert_int_equal(on(c2, "GET", "/a/_doc/9?refresh=true", NULL, &b), 200);
    free(b);
    assert_int_equal(count_of(c2, "a"), 2);
    assert_int_equal(count_of(N, "a"), 1);
    /* realtime get sees the buffered doc everywhere */
    assert_int_equal(on(N, "GET", "/a/_doc/9", NULL, &b), 200);
    free(b);
    trove_node_free(c1);
    trove_node_free(c2);
}

static void test_chains_and_free_order(void **s) {
    (void)s;
    seed();
    trove_node *c1 = trove_node_clone(N, NULL);
    trove_node *c2 = trove_node_clone(c1, NULL);
    trove_node *c3 = trove_node_clone(c2, NULL);
    assert_non_null(c3);
    char *b;
    assert_int_equal(on(c2, "PUT", "/a/_doc/c2?refresh=true", "{}", &b), 201);
    free(b);
    trove_node *c4 = trove_node_clone(c2, NULL); /* sees c2's write */
    /* the source goes first: every clone keeps its documents */
    trove_node_free(N);
    N = NULL;
    assert_int_equal(count_of(c1, "a"), 1);
    assert_int_equal(count_of(c2, "a"), 2);
    assert_int_equal(count_of(c3, "a"), 1);
    assert_int_equal(count_of(c4, "a"), 2);
    trove_node_free(c2);
    assert_int_equal(on(c4, "PUT", "/a/_doc/c4?refresh=true", "{}", &b), 201);
    free(b);
    assert_int_equal(count_of(c4, "a"), 3);
    assert_int_equal(count_of(c3, "a"), 1);
    trove_node_free(c1);
    trove_node_free(c3);
    N = c4; /* teardown frees it */
}

/* Out of memory anywhere in the first write into a clone (copying its
 * state included): the write answers TROVE_ENOMEM or succeeds, and the
 * source never changes. */
static void test_first_write_oom(void **s) {
    (void)s;
    seed();
    long failures = 0;
    bool done = false;
    for (long n = 0; !done && n < 100000; n++) {
        trove_node *c = trove_node_clone(N, NULL);
        assert_non_null(c);
        trove_response r;
        tv_alloc_fail_after(n);
        int rc = trove_request(c, "PUT", "/a/_doc/new?refresh=true", "{}", 2, &r);
        tv_alloc_fail_after(-1);
        if (rc != 0) {
            assert_int_equal(rc, TROVE_ENOMEM);
            failures++;
            /* the failure may come after the write was applied */
            long k = count_of(c, "a");
            assert_true(k == 1 || k == 2);
        } else {
            done = r.status == 201;
            if (done) assert_int_equal(count_of(c, "a"), 2);
            trove_response_fini(&r);
        }
        assert_int_equal(count_of(N, "a"), 1);
        trove_node_free(c);
    }
    assert_true(done);
    assert_true(failures > 5);
}

/* Clones taken while a thread writes to the source: whether the clone was
 * lazy (nothing in flight) or copied at once (a write in flight), its
 * count never moves afterwards, and writes into it never reach the source. */
static atomic_int stop;
static void *base_writer(void *arg) {
    trove_node *base = arg;
    for (int i = 0; !atomic_load(&stop); i++) {
        char path[64];
        snprintf(path, sizeof path, "/a/_doc/w%d?refresh=true", i);
        trove_response r;
        assert_int_equal(trove_request(base, "PUT", path, "{\"t\":\"w\"}", 9, &r), 0);
        assert_int_equal(r.status, 201);
        trove_response_fini(&r);
    }
    return NULL;
}

static void test_clones_under_concurrent_writes(void **s) {
    (void)s;
    seed();
    atomic_store(&stop, 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, base_writer, N), 0);
    for (int i = 0; i < 300; i++) {
        trove_node *c = trove_node_clone(N, NULL);
        assert_non_null(c);
        long k = count_of(c, "a");
        assert_true(k >= 1);
        for (int j = 0; j < 5; j++) {
            char *b;
            assert_int_equal(on(c, "POST", "/a/_search", "{\"size\":1}", &b), 200);
            free(b);
            assert_int_equal(count_of(c, "a"), k);
        }
        char *b;
        assert_int_equal(on(c, "PUT", "/a/_doc/mine?refresh=true", "{}", &b), 201);
        free(b);
        assert_int_equal(count_of(c, "a"), k + 1);
        trove_node_free(c);
    }
    atomic_store(&stop, 1);
    pthread_join(th, NULL);
    char *b;
    assert_int_equal(req("GET", "/a/_doc/mine", NULL, &b), 404);
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_clone_writes_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_source_writes_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refresh_stays_on_its_side, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chains_and_free_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_first_write_oom, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clones_under_concurrent_writes, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
