/* test_api_cat.c — _cat/health, _cat/indices, _cat/count and _cat/aliases
 * through trove_request: text tables (alignment, v, h with aliases and
 * wildcards, s, help, bytes) and format=json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"

static trove_node *N;

static char *mask(const char *in) {
    static const char *const skeys[] = {"index_uuid", "uuid", "creation_date", NULL};
    size_t n = strlen(in);
    char *out = malloc(n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        bool done = false;
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

#define EXPECT(m, p, b, st, want)                                                          \
    do {                                                                                   \
        char *got_;                                                                        \
        int s_ = req((m), (p), (b), &got_);                                                \
        if (s_ != (st) || strcmp(got_, (want)) != 0)                                       \
            fail_msg("%s %s\n want %d %s\n got  %d %s", (m), (p), (st), (want), s_, got_); \
        free(got_);                                                                        \
    } while (0)

#define EXPECT_HAS(m, p, b, st, part)                                                      \
    do {                                                                                   \
        char *got_;                                                                        \
        int s_ = req((m), (p), (b), &got_);                                                \
        if (s_ != (st) || !strstr(got_, (part)))                                           \
            fail_msg("%s %s\n want %d ...%s...\n got  %d %s", (m), (p), (st), (part), s_, got_); \
        free(got_);                                                                        \
    } while (0)

#define OK(m, p, b)                                                                         \
    do {                                                                                    \
        char *got_;                                                                         \
        int s_ = req((m), (p), (b), &got_);                                                 \
        if (s_ < 200 || s_ > 299) fail_msg("%s %s\n want 2xx\n got  %d %s", (m), (p), s_, got_); \
        free(got_);                                                                         \
    } while (0)
#define EXPECT_STATUS(m, p, b, st)                                                 \
    do {                                                                           \
        char *got_;                                                                \
        int s_ = req((m), (p), (b), &got_);                                        \
        if (s_ != (st)) fail_msg("%s %s\n want %d\n got  %d %s", (m), (p), (st), s_, got_); \
        free(got_);                                                                \
    } while (0)

static int setup(void **s) {
    (void)s;
    N = trove_node_open(NULL, NULL);
    return N ? 0 : -1;
}
static int teardown(void **s) {
    (void)s;
    trove_node_free(N);
    N = NULL;
    return 0;
}

/* Replaces the 22-char uuid column and epoch/timestamp values so tables
 * compare exactly. */
static char *cat(const char *path) {
    trove_response r;
    assert_int_equal(trove_request(N, "GET", path, NULL, 0, &r), 0);
    assert_int_equal(r.status, 200);
    char *s = strndup(r.body ? r.body : "", r.body_len);
    trove_response_fini(&r);
    return s;
}

#define CAT(path, want)                                                          \
    do {                                                                         \
        char *g_ = cat(path);                                                    \
        if (strcmp(g_, (want)) != 0) fail_msg("%s\n want [%s]\n got  [%s]", path, (want), g_); \
        free(g_);                                                                \
    } while (0)

static void test_cat_indices(void **s) {
    (void)s;
    CAT("/_cat/indices", "");
    CAT("/_cat/indices?v", "health status index uuid pri rep docs.count docs.deleted store.size pri.store.size\n");
    OK("PUT", "/idx-one", "{\"settings\":{\"number_of_replicas\":0}}");
    OK("PUT", "/b", NULL);
    OK("PUT", "/idx-one/_doc/1?refresh=true", "{\"a\":1}");
    OK("POST", "/b/_close", NULL);
    CAT("/_cat/indices?h=health,status,index,pri,rep,docs.count,docs.deleted&s=index",
        "yellow close b       1 1    \n"
        "green  open  idx-one 1 0 1 0\n");
    CAT("/_cat/indices?h=i,dc&v&s=i:desc", "i       dc\nidx-one  1\nb         \n");
    CAT("/_cat/indices/idx*?h=index,pri", "idx-one 1\n");
    CAT("/_cat/indices?health=green&h=i", "idx-one\n");
    CAT("/_cat/indices?h=s,i&s=s,i", "close b\nopen  idx-one\n");
    CAT("/_cat/indices?h=i,docs.*&s=i&format=json",
        "[{\"i\":\"b\",\"docs.count\":null,\"docs.deleted\":null},"
        "{\"i\":\"idx-one\",\"docs.count\":\"1\",\"docs.deleted\":\"0\"}]");
    char *t = cat("/_cat/indices/idx-one?h=ss&bytes=b");
    assert_true(atoi(t) > 0);
    assert_int_equal(t[strlen(t) - 1], '\n');
    free(t);
    t = cat("/_cat/indices/idx-one?h=uuid,cd,cds");
    assert_int_equal(strlen(t), 22 + 1 + 13 + 1 + 24 + 1);
    free(t);
    t = cat("/_cat/indices?help");
    assert_non_null(strstr(t, "docs.count           | dc,docsCount                   | available docs"));
    free(t);
    EXPECT("GET", "/_cat/indices?s=nope", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"unsupported_operation_exception\",\"reason\":\"Unable to sort by "
           "unknown sort key `nope`\"}],\"type\":\"unsupported_operation_exception\",\"reason\":\"Unable to sort by "
           "unknown sort key `nope`\"},\"status\":400}");
    EXPECT_STATUS("GET", "/_cat/indices?health=purple", NULL, 400);
    EXPECT_STATUS("GET", "/_cat/indices/nope", NULL, 404);
}

static void test_cat_health_count_aliases(void **s) {
    (void)s;
    OK("PUT", "/c1", "{\"settings\":{\"number_of_replicas\":0},\"aliases\":{\"al\":{\"filter\":{\"match_all\":{}}},"
                     "\"w\":{\"is_write_index\":true,\"routing\":\"r\"}}}");
    OK("PUT", "/c1/_doc/1?refresh=true", "{}");
    OK("PUT", "/c1/_doc/2?refresh=true", "{}");
    CAT("/_cat/health?h=cluster,status,shards,pri,unassign,active_shards_percent&v",
        "cluster status shards pri unassign active_shards_percent\n"
        "trove   green       1   1        0                100.0%\n");
    CAT("/_cat/count?h=count", "2\n");
    CAT("/_cat/count/c1?h=dc&format=json", "[{\"dc\":\"2\"}]");
    char *t = cat("/_cat/count?v");
    assert_non_null(strstr(t, "epoch      timestamp count\n"));
    free(t);
    CAT("/_cat/aliases?v&s=alias",
        "alias index filter routing.index routing.search is_write_index\n"
        "al    c1    *      -             -              -\n"
        "w     c1    -      r             r              true\n");
    CAT("/_cat/aliases/w?h=a,i,w", "w c1 true\n");
    EXPECT_STATUS("GET", "/_cat/aliases?format=yaml", NULL, 400);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cat_indices, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cat_health_count_aliases, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
