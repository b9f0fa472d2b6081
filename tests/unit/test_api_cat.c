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

#include "api_test.h"

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
    /* the aliases of hidden indices show by default, not when
     * expand_wildcards leaves hidden indices out */
    OK("PUT", "/hid", "{\"settings\":{\"index.hidden\":true},\"aliases\":{\"ha\":{\"is_hidden\":true}}}");
    CAT("/_cat/aliases?h=a,i&s=alias", "al c1\nha hid\nw  c1\n");
    CAT("/_cat/aliases?h=a,i&s=alias&expand_wildcards=open,closed", "al c1\nw  c1\n");
    /* _cat/health: discovered_cluster_manager among the default columns */
    t = cat("/_cat/health?v&ts=false");
    assert_non_null(strstr(t, "discovered_cluster_manager"));
    free(t);
    EXPECT_STATUS("GET", "/_cat/aliases?format=yaml", NULL, 400);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cat_indices, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cat_health_count_aliases, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
