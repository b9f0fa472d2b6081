/*
 * oracle_test.h — what the randomized differential tests (test_oracle*.c)
 * share: their random generator, and a request through trove_request
 * whose response body is parsed into an arena. Header-only and static:
 * each test program includes it once.
 */
#ifndef TROVE_ORACLE_TEST_H
#define TROVE_ORACLE_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "json/json.h"
#include "trove.h"
#include "util/util.h"

/* xorshift64*: seed rng_state (nonzero) before use. */
static uint64_t rng_state;
static uint64_t rnd(void) {
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1Dull;
}
/* Uniform in [0, n) (0 when n <= 0). */
static int rn(int n) { return n <= 0 ? 0 : (int)(rnd() % (uint64_t)n); }
static bool coin(int percent) { return rn(100) < percent; }

/* A request to node: returns the status. When out, the body parsed into
 * *out (in arena a; an unparsable body fails the test); when raw, the body
 * text copied into a. Without raw, a failure status other than 404 is
 * printed to stderr. */
__attribute__((unused)) static int oracle_request(trove_node *node, tv_arena *a, const char *method, const char *path,
                                                  const char *body, tv_json **out, char **raw) {
    trove_response r;
    int rc = trove_request(node, method, path, body, body ? strlen(body) : 0, &r);
    assert_int_equal(rc, 0);
    int status = r.status;
    if (out) {
        tv_json_error je;
        char *copy = tv_arena_memdup(a, r.body, r.body_len);
        if (tv_json_parse(a, copy, r.body_len, out, &je) != TROVE_OK) {
            fprintf(stderr, "unparsable response to %s %s: %s\n", method, path, r.body);
            fail();
        }
    }
    if (raw) *raw = tv_arena_strndup(a, r.body ? r.body : "", r.body_len);
    if (status >= 300 && status != 404 && !raw) fprintf(stderr, "%s %s -> %d %s\n", method, path, status, r.body);
    trove_response_fini(&r);
    return status;
}

#endif /* TROVE_ORACLE_TEST_H */
