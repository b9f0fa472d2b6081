/*
 * api_test.h — helpers shared by the unit tests that drive the REST API
 * through trove_request: one node per test group (setup/teardown), req()
 * that returns the status and a masked copy of the body, and EXPECT-style
 * macros that print both bodies on a mismatch.
 *
 * Masking makes bodies comparable byte for byte: string values of the keys
 * in API_TEST_MASK_KEYS (uuids, creation dates) become "X" (none with
 * API_TEST_MASK_NO_KEYS defined), and with API_TEST_MASK_TOOK defined,
 * "took":N becomes "took":0. Define these before including this file.
 *
 * Header-only and static: each test program includes it once.
 */
#ifndef TROVE_API_TEST_H
#define TROVE_API_TEST_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trove.h"

#ifndef API_TEST_MASK_KEYS
#define API_TEST_MASK_KEYS "index_uuid", "uuid", "creation_date"
#endif

static trove_node *N;

static char *mask(const char *in) {
#ifdef API_TEST_MASK_NO_KEYS
    static const char *const skeys[] = {NULL};
#else
    static const char *const skeys[] = {API_TEST_MASK_KEYS, NULL};
#endif
    size_t n = strlen(in);
    char *out = malloc(n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        bool done = false;
#ifdef API_TEST_MASK_TOOK
        if (strncmp(in + i, "\"took\":", 7) == 0) {
            memcpy(out + o, "\"took\":0", 8);
            o += 8;
            i += 7;
            while (i < n && in[i] >= '0' && in[i] <= '9') i++;
            continue;
        }
#endif
        if (in[i] == '"') {
            for (int k = 0; skeys[k] && !done; k++) {
                size_t kl = strlen(skeys[k]);
                if (strncmp(in + i + 1, skeys[k], kl) == 0 && strncmp(in + i + 1 + kl, "\":\"", 3) == 0) {
                    memcpy(out + o, in + i, kl + 4);
                    o += kl + 4;
                    i += kl + 4;
                    while (i < n && in[i] != '"') i++;
                    out[o++] = 'X';
                    done = true;
                }
            }
        }
        if (!done) out[o++] = in[i++];
    }
    out[o] = '\0';
    return out;
}

static int req(const char *m, const char *path, const char *body, char **out) {
    trove_response r;
    int rc = trove_request(N, m, path, body, body ? strlen(body) : 0, &r);
    assert_int_equal(rc, 0);
    if (out) *out = mask(r.body ? r.body : "");
    int st = r.status;
    trove_response_fini(&r);
    return st;
}

/* The value of a string field (first occurrence), malloc'd; NULL if absent. */
__attribute__((unused)) static char *field(const char *body, const char *key) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(body, pat);
    if (!p) return NULL;
    p += strlen(pat);
    const char *e = strchr(p, '"');
    char *s = malloc((size_t)(e - p) + 1);
    memcpy(s, p, (size_t)(e - p));
    s[e - p] = '\0';
    return s;
}

/* The hits of a search response in order: "id" each (with scores:
 * "id:score", the score as printed), comma separated, into out. */
__attribute__((unused)) static void hit_list(const char *got, bool scores, char *out, size_t cap) {
    size_t o = 0;
    out[0] = '\0';
    const char *h = strstr(got, "\"hits\":[");
    for (const char *p = h; p && (p = strstr(p, "\"_id\":\"")) != NULL;) {
        p += 7;
        size_t n = strcspn(p, "\"");
        const char *sc = scores ? strstr(p, "\"_score\":") : NULL;
        size_t sn = 0;
        if (sc) {
            sc += 9;
            sn = strcspn(sc, ",}");
        }
        if (o + n + sn + 3 >= cap) break;
        if (o) out[o++] = ',';
        memcpy(out + o, p, n);
        o += n;
        if (scores) {
            out[o++] = ':';
            if (sc) memcpy(out + o, sc, sn);
            o += sn;
        }
        out[o] = '\0';
        p += n;
    }
}

#define EXPECT(m, p, b, st, want)                                                          \
    do {                                                                                   \
        char *got_;                                                                        \
        int s_ = req((m), (p), (b), &got_);                                                \
        if (s_ != (st) || strcmp(got_, (want)) != 0)                                       \
            fail_msg("%s %s\n want %d %s\n got  %d %s", (m), (p), (st), (want), s_, got_); \
        free(got_);                                                                        \
    } while (0)

#define EXPECT_HAS(m, p, b, st, part)                                                            \
    do {                                                                                         \
        char *got_;                                                                              \
        int s_ = req((m), (p), (b), &got_);                                                      \
        if (s_ != (st) || !strstr(got_, (part)))                                                 \
            fail_msg("%s %s\n want %d ...%s...\n got  %d %s", (m), (p), (st), (part), s_, got_); \
        free(got_);                                                                              \
    } while (0)

#define OK(m, p, b)                                                                              \
    do {                                                                                         \
        char *got_;                                                                              \
        int s_ = req((m), (p), (b), &got_);                                                      \
        if (s_ < 200 || s_ > 299) fail_msg("%s %s\n want 2xx\n got  %d %s", (m), (p), s_, got_); \
        free(got_);                                                                              \
    } while (0)

#define EXPECT_STATUS(m, p, b, st)                                                          \
    do {                                                                                    \
        char *got_;                                                                         \
        int s_ = req((m), (p), (b), &got_);                                                 \
        if (s_ != (st)) fail_msg("%s %s\n want %d\n got  %d %s", (m), (p), (st), s_, got_); \
        free(got_);                                                                         \
    } while (0)

__attribute__((unused)) static int setup(void **s) {
    (void)s;
    N = trove_node_open(NULL, NULL);
    return N ? 0 : -1;
}

__attribute__((unused)) static int teardown(void **s) {
    (void)s;
    trove_node_free(N);
    N = NULL;
    return 0;
}

#endif /* TROVE_API_TEST_H */
