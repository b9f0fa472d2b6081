/*
 * test_sync_spool.c — the spool of a streamed transaction: messages come
 * back in order and byte for byte; a subtransaction's abort drops it and
 * everything after it, and nothing before; an abort of what was never
 * spooled changes nothing; a replay stops when its callback says so.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync.h"

typedef struct got {
    int n;
    char msgs[64][64];
    int stop_after; /* 0: never */
} got;

static bool collect(void *ud, const uint8_t *msg, size_t len) {
    got *g = ud;
    assert_true(len < 64 && g->n < 64);
    memcpy(g->msgs[g->n], msg, len);
    g->msgs[g->n][len] = '\0';
    g->n++;
    return g->stop_after == 0 || g->n < g->stop_after;
}

static void add(tv_spool *s, uint32_t sub, const char *m) {
    assert_true(tv_spool_add(s, sub, (const uint8_t *)m, strlen(m)));
}

static got replay(tv_spool *s) {
    got g;
    memset(&g, 0, sizeof g);
    assert_true(tv_spool_replay(s, collect, &g));
    return g;
}

static void test_messages_come_back_in_order(void **state) {
    (void)state;
    tv_spool *s = tv_spool_open(100);
    assert_non_null(s);
    assert_int_equal(tv_spool_xid(s), 100);
    got g = replay(s);
    assert_int_equal(g.n, 0);
    add(s, 100, "I one");
    add(s, 0, "I two");
    add(s, 100, "");
    add(s, 100, "U three");
    assert_int_equal(tv_spool_count(s), 4);
    g = replay(s);
    assert_int_equal(g.n, 4);
    assert_string_equal(g.msgs[0], "I one");
    assert_string_equal(g.msgs[1], "I two");
    assert_string_equal(g.msgs[2], "");
    assert_string_equal(g.msgs[3], "U three");
    /* a replay does not consume: the same again */
    g = replay(s);
    assert_int_equal(g.n, 4);
    tv_spool_free(s);
}

static void test_subtransaction_abort_drops_it_and_what_follows(void **state) {
    (void)state;
    tv_spool *s = tv_spool_open(7);
    add(s, 7, "top a");
    add(s, 8, "sub8 a");   /* SAVEPOINT s1 */
    add(s, 7, "top b");    /* (the top level again: stays) */
    add(s, 9, "sub9 a");   /* SAVEPOINT s2, nested */
    add(s, 8, "sub8 b");
    add(s, 10, "sub10 a");
    tv_spool_abort_sub(s, 42); /* never spooled: nothing */
    assert_int_equal(tv_spool_count(s), 6);
    assert_true(tv_spool_abort_sub(s, 9)); /* ROLLBACK TO s2 */
    got g = replay(s);
    assert_int_equal(g.n, 3);
    assert_string_equal(g.msgs[0], "top a");
    assert_string_equal(g.msgs[1], "sub8 a");
    assert_string_equal(g.msgs[2], "top b");
    assert_int_equal(tv_spool_count(s), 3);
    /* appends go on after the cut; a later abort of sub8 cuts at its start */
    add(s, 11, "sub11 a");
    add(s, 7, "top c");
    assert_true(tv_spool_abort_sub(s, 11));
    g = replay(s);
    assert_int_equal(g.n, 3);
    add(s, 12, "sub12 a");
    assert_true(tv_spool_abort_sub(s, 8));
    g = replay(s);
    assert_int_equal(g.n, 1);
    assert_string_equal(g.msgs[0], "top a");
    /* sub9 was dropped with its list entry: aborting it again is nothing */
    assert_true(tv_spool_abort_sub(s, 9));
    assert_int_equal(tv_spool_count(s), 1);
    tv_spool_free(s);
}

static void test_replay_stops_when_told(void **state) {
    (void)state;
    tv_spool *s = tv_spool_open(1);
    for (int i = 0; i < 10; i++) add(s, 1, "m");
    got g;
    memset(&g, 0, sizeof g);
    g.stop_after = 3;
    assert_false(tv_spool_replay(s, collect, &g));
    assert_int_equal(g.n, 3);
    tv_spool_free(s);
    tv_spool_free(NULL);
}

typedef struct bigcheck {
    int n;
    bool bad;
} bigcheck;

static uint8_t big_byte(size_t i) { return (uint8_t)(i * 13 + i / 251); }

static bool check_big(void *ud, const uint8_t *msg, size_t len) {
    bigcheck *c = ud;
    size_t want = c->n == 0 ? (size_t)3 << 20 : 10;
    if (len != want) c->bad = true;
    for (size_t i = 0; i < len && !c->bad; i++) c->bad = msg[i] != big_byte(i);
    c->n++;
    return true;
}

/* A message of megabytes, then a small one: both come back whole. */
static void test_large_messages(void **state) {
    (void)state;
    tv_spool *s = tv_spool_open(5);
    size_t n = (size_t)3 << 20;
    uint8_t *big = malloc(n);
    assert_non_null(big);
    for (size_t i = 0; i < n; i++) big[i] = big_byte(i);
    assert_true(tv_spool_add(s, 5, big, n));
    assert_true(tv_spool_add(s, 5, big, 10));
    bigcheck c = {0, false};
    assert_true(tv_spool_replay(s, check_big, &c));
    assert_int_equal(c.n, 2);
    assert_false(c.bad);
    tv_spool_free(s);
    free(big);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_messages_come_back_in_order),
        cmocka_unit_test(test_subtransaction_abort_drops_it_and_what_follows),
        cmocka_unit_test(test_replay_stops_when_told),
        cmocka_unit_test(test_large_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
