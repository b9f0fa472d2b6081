/* test_api_authz.c — trove_request_classify: access level, OpenSearch action
 * name, scope and indices of requests, the bodies of _bulk, _mget and
 * _msearch, the fail-closed defaults, and out-of-memory on every
 * allocation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "trove.h"
#include "util/util.h"

/* "a,b" for the class's indices */
static void joined(const trove_request_class *c, char *out, size_t cap) {
    out[0] = '\0';
    for (size_t i = 0; i < c->nindices; i++) {
        strncat(out, i ? "," : "", cap - strlen(out) - 1);
        strncat(out, c->indices[i], cap - strlen(out) - 1);
    }
}

static void check_(const char *m, const char *path, const char *body, int access, int scope, const char *action,
                   const char *indices, int line) {
    trove_request_class c;
    int rc = trove_request_classify(m, path, body, body ? strlen(body) : 0, &c);
    char got[512];
    joined(&c, got, sizeof got);
    if (rc != 0 || c.access != access || c.scope != scope || strcmp(c.action, action) != 0 ||
        strcmp(got, indices) != 0)
        fail_msg("line %d: %s %s\n want %d %d %s [%s]\n got  %d %d %s [%s] rc %d", line, m, path, access, scope,
                 action, indices, c.access, c.scope, c.action, got, rc);
    trove_request_class_fini(&c);
}
#define CHECK(m, p, b, acc, sc, act, idx) check_((m), (p), (b), (acc), (sc), (act), (idx), __LINE__)

enum { R = TROVE_ACCESS_READ, W = TROVE_ACCESS_WRITE, A = TROVE_ACCESS_ADMIN };
enum { IDX = TROVE_SCOPE_INDICES, ALL = TROVE_SCOPE_CLUSTER, ANY = TROVE_SCOPE_ANY };

static void test_routes(void **state) {
    (void)state;
    CHECK("GET", "/", NULL, R, ANY, "cluster:monitor/main", "");
    CHECK("HEAD", "/", NULL, R, ANY, "cluster:monitor/main", "");
    CHECK("GET", "/logs-1/_search?q=x", NULL, R, IDX, "indices:data/read/search", "logs-1");
    CHECK("POST", "/logs-*,metrics/_search", NULL, R, IDX, "indices:data/read/search", "logs-*,metrics");
    CHECK("POST", "/logs-*,-logs-9/_count", NULL, R, IDX, "indices:data/read/search", "logs-*");
    CHECK("GET", "/_search", NULL, R, ALL, "indices:data/read/search", "");
    CHECK("GET", "/_all/_search", NULL, R, ALL, "indices:data/read/search", "");
    CHECK("GET", "/a,*/_search", NULL, R, ALL, "indices:data/read/search", "");
    CHECK("GET", "/logs%2D1/_doc/7", NULL, R, IDX, "indices:data/read/get", "logs-1");
    CHECK("HEAD", "/logs-1", NULL, R, IDX, "indices:admin/get", "logs-1");
    CHECK("GET", "/_cluster/health/logs-1", NULL, R, ALL, "cluster:monitor/health", "");
    CHECK("GET", "/_cat/indices", NULL, R, ALL, "indices:monitor/stats", "");
    CHECK("GET", "/_search/scroll", NULL, R, ANY, "indices:data/read/scroll", "");
    CHECK("POST", "/_analyze", NULL, R, ANY, "indices:admin/analyze", "");
    CHECK("POST", "/logs-1/_analyze", NULL, R, IDX, "indices:admin/analyze", "logs-1");
    CHECK("GET", "/_index_template/t", NULL, R, ALL, "indices:admin/index_template/get", "");
    CHECK("GET", "/_template/t", NULL, R, ALL, "indices:admin/template/get", "");

    CHECK("PUT", "/logs-1/_doc/1", NULL, W, IDX, "indices:data/write/index", "logs-1");
    CHECK("POST", "/logs-1/_doc", NULL, W, IDX, "indices:data/write/index", "logs-1");
    CHECK("DELETE", "/logs-1/_doc/1", NULL, W, IDX, "indices:data/write/delete", "logs-1");
    CHECK("POST", "/logs-1/_update/1", NULL, W, IDX, "indices:data/write/update", "logs-1");
    CHECK("POST", "/logs-1/_delete_by_query", NULL, W, IDX, "indices:data/write/delete/byquery", "logs-1");
    CHECK("POST", "/_refresh", NULL, W, ALL, "indices:admin/refresh", "");

    CHECK("PUT", "/logs-1", NULL, A, IDX, "indices:admin/create", "logs-1");
    CHECK("DELETE", "/logs-1", NULL, A, IDX, "indices:admin/delete", "logs-1");
    CHECK("PUT", "/logs-1/_mapping", NULL, A, IDX, "indices:admin/mapping/put", "logs-1");
    CHECK("POST", "/_aliases", NULL, A, ALL, "indices:admin/aliases", "");
    CHECK("PUT", "/_index_template/t", NULL, A, ALL, "indices:admin/index_template/put", "");
    CHECK("PUT", "/_cluster/settings", NULL, A, ALL, "cluster:admin/settings/update", "");
    CHECK("POST", "/_trove/clones", NULL, A, ALL, "cluster:admin/trove/clones/create", "");
    CHECK("PUT", "/_ingest/pipeline/p", NULL, A, ALL, "cluster:admin/ingest/pipeline/put", "");

    /* no handler runs: anyone may hear the 400/405 */
    CHECK("GET", "/_no/such/api/here", NULL, TROVE_ACCESS_NONE, IDX, "", "");
    CHECK("PATCH", "/logs-1", NULL, TROVE_ACCESS_NONE, IDX, "", "");
    CHECK("GET", "/bad%zz/_search", NULL, TROVE_ACCESS_NONE, IDX, "", "");
}

static void test_bodies(void **state) {
    (void)state;
    /* bulk: every action's _index, the path's index, escapes decoded */
    CHECK("POST", "/_bulk",
          "{\"index\":{\"_index\":\"a\",\"_id\":\"1\"}}\n{\"x\":1}\n{\"delete\":{\"_index\":\"b\",\"_id\":\"2\"}}\n"
          "{\"create\":{\"\\u005findex\":\"c\"}}\n{\"_index\":\"not an action\"}\n",
          W, IDX, "indices:data/write/bulk", "a,b,c");
    CHECK("POST", "/logs-1/_bulk", "{\"index\":{\"_id\":\"1\"}}\n{\"x\":1}\n", W, IDX, "indices:data/write/bulk",
          "logs-1");
    CHECK("POST", "/logs-1/_bulk", "{\"index\":{\"_index\":\"secret\"}}\n{}\n", W, IDX, "indices:data/write/bulk",
          "logs-1,secret");
    CHECK("POST", "/_bulk", "{\"index\":{\"_index\":\"_all\"}}\n{}\n", W, ALL, "indices:data/write/bulk", "");
    /* without the body, only the path (body_names_indices says so) */
    trove_request_class c;
    assert_int_equal(trove_request_classify("POST", "/logs-1/_bulk", NULL, 0, &c), 0);
    assert_int_equal(c.body_names_indices, 1);
    assert_int_equal(c.nindices, 1);
    trove_request_class_fini(&c);

    /* mget */
    CHECK("POST", "/a/_mget", "{\"docs\":[{\"_id\":\"1\"},{\"_index\":\"b\",\"_id\":\"2\"}]}", R, IDX,
          "indices:data/read/mget", "a,b");
    CHECK("POST", "/a/_mget", "{\"ids\":[\"1\"]}", R, IDX, "indices:data/read/mget", "a");
    CHECK("POST", "/_mget", "{\"docs\":", R, ALL, "indices:data/read/mget", "");

    /* msearch: header indices; a header without one searches the path's
     * index, or everything */
    CHECK("POST", "/_msearch", "{\"index\":\"a\"}\n{}\n{\"index\":[\"b\",\"c,d\"]}\n{}\n", R, IDX,
          "indices:data/read/msearch", "a,b,c,d");
    CHECK("POST", "/_msearch", "{\"index\":\"a\"}\n{}\n{}\n{}\n", R, ALL, "indices:data/read/msearch", "");
    CHECK("POST", "/x/_msearch", "\n{}\n{}\n", R, IDX, "indices:data/read/msearch", "x");
    CHECK("POST", "/x/_msearch", "{\"index\":\"y\"}\n{}\n", R, IDX, "indices:data/read/msearch", "x,y");
    CHECK("POST", "/x/_msearch", "{nope\n{}\n", R, ALL, "indices:data/read/msearch", "");
}

static void test_arguments_and_oom(void **state) {
    (void)state;
    trove_request_class c;
    assert_int_equal(trove_request_classify(NULL, "/", NULL, 0, &c), TROVE_EARG);
    assert_int_equal(trove_request_classify("GET", "/", NULL, 3, &c), TROVE_EARG);
    assert_int_equal(trove_request_classify("GET", "/", NULL, 0, NULL), TROVE_EARG);
    trove_request_class_fini(NULL);
    const char *body = "{\"index\":{\"_index\":\"a\"}}\n{}\n{\"index\":{\"_index\":\"b\"}}\n{}\n";
    for (long n = 0;; n++) {
        tv_alloc_fail_after(n);
        int rc = trove_request_classify("POST", "/x,y/_bulk", body, strlen(body), &c);
        tv_alloc_fail_after(-1);
        if (rc == 0) {
            assert_int_equal(c.nindices, 4);
            trove_request_class_fini(&c);
            break;
        }
        assert_int_equal(rc, TROVE_ENOMEM);
        assert_null(c.indices);
        assert_true(n < 1000);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routes),
        cmocka_unit_test(test_bodies),
        cmocka_unit_test(test_arguments_and_oom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
