/*
 * test_api_trove.c — the /_trove management API in process: a frozen base
 * refuses writes with 403 trove_base_frozen and still answers reads and
 * searches (POST _search included); /_osmem paths are aliases; clones need
 * a transport (400 without one) and, with a stand-in transport that records
 * the clone nodes it is handed, are listed, fetched, deleted and isolated
 * from the base.
 */
#include <stdbool.h>

#include "api_test.h"

#include "api/api.h"

#define JSON_DOC "{\"title\":\"hello\"}"

static void seed(void) {
    OK("PUT", "/items", "{\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"}}}}");
    OK("PUT", "/items/_doc/1?refresh=true", JSON_DOC);
}

static void test_info_and_freeze(void **s) {
    (void)s;
    seed();
    EXPECT("GET", "/_trove", NULL, 200, "{\"version\":\"0.1.0\",\"frozen\":false,\"clones\":{\"count\":0,\"ids\":[]}}");
    EXPECT("POST", "/_trove/base/freeze", NULL, 200, "{\"acknowledged\":true,\"frozen\":true}");
    EXPECT_HAS("GET", "/_trove", NULL, 200, "\"frozen\":true");
    EXPECT_HAS("GET", "/_osmem", NULL, 200, "\"frozen\":true");

    /* writes of every kind: 403 with the trove_base_frozen envelope */
    const char *want = "{\"error\":{\"root_cause\":[{\"type\":\"trove_base_frozen\",\"reason\":\"the base is frozen: "
                       "writes are refused (POST /_trove/clones for a writable clone, or POST "
                       "/_trove/base/unfreeze)\"}],\"type\":\"trove_base_frozen\",\"reason\":\"the base is frozen: "
                       "writes are refused (POST /_trove/clones for a writable clone, or POST "
                       "/_trove/base/unfreeze)\"},\"status\":403}";
    EXPECT("PUT", "/items/_doc/2", JSON_DOC, 403, want);
    EXPECT_STATUS("POST", "/items/_doc", JSON_DOC, 403);
    EXPECT_STATUS("PUT", "/items/_create/3", JSON_DOC, 403);
    EXPECT_STATUS("POST", "/items/_update/1", "{\"doc\":{\"title\":\"x\"}}", 403);
    EXPECT_STATUS("DELETE", "/items/_doc/1", NULL, 403);
    EXPECT_STATUS("POST", "/_bulk", "{\"index\":{\"_index\":\"items\"}}\n{}\n", 403);
    EXPECT_STATUS("POST", "/items/_delete_by_query", "{\"query\":{\"match_all\":{}}}", 403);
    EXPECT_STATUS("PUT", "/other", NULL, 403);
    EXPECT_STATUS("DELETE", "/items", NULL, 403);
    EXPECT_STATUS("PUT", "/items/_mapping", "{\"properties\":{\"n\":{\"type\":\"long\"}}}", 403);
    EXPECT_STATUS("PUT", "/items/_settings", "{\"index\":{\"number_of_replicas\":0}}", 403);
    EXPECT_STATUS("POST", "/_aliases", "{\"actions\":[{\"add\":{\"index\":\"items\",\"alias\":\"a\"}}]}", 403);
    EXPECT_STATUS("PUT", "/_index_template/t", "{\"index_patterns\":[\"t*\"]}", 403);
    EXPECT_STATUS("POST", "/items/_close", NULL, 403);

    /* reads and searches pass */
    EXPECT_HAS("GET", "/items/_doc/1", NULL, 200, "\"found\":true");
    EXPECT_HAS("POST", "/items/_search", "{\"query\":{\"match\":{\"title\":\"hello\"}}}", 200,
               "\"total\":{\"value\":1,");
    EXPECT_HAS("GET", "/items/_count", NULL, 200, "\"count\":1");
    EXPECT_HAS("POST", "/_mget", "{\"docs\":[{\"_index\":\"items\",\"_id\":\"1\"}]}", 200, "\"found\":true");
    OK("POST", "/items/_refresh", NULL);
    OK("GET", "/items/_mapping", NULL);

    /* nothing changed; unfreeze (through the /_osmem alias) lets writes in */
    EXPECT_HAS("GET", "/items/_count", NULL, 200, "\"count\":1");
    EXPECT("POST", "/_osmem/base/unfreeze", NULL, 200, "{\"acknowledged\":true,\"frozen\":false}");
    OK("PUT", "/items/_doc/2?refresh=true", JSON_DOC);
    EXPECT_HAS("GET", "/items/_count", NULL, 200, "\"count\":2");
}

static void test_clone_needs_transport(void **s) {
    (void)s;
    EXPECT_HAS("POST", "/_trove/clones", NULL, 400, "\"type\":\"illegal_argument_exception\"");
    EXPECT_HAS("POST", "/_trove/clones", NULL, 400, "clones need a transport");
    EXPECT("GET", "/_trove/clones", NULL, 200, "{\"clones\":[]}");
    EXPECT_HAS("GET", "/_trove/clones/nope", NULL, 404, "\"type\":\"resource_not_found_exception\"");
    EXPECT_HAS("DELETE", "/_trove/clones/nope", NULL, 404, "clone [nope] not found");
    EXPECT("DELETE", "/_trove/clones", NULL, 200, "{\"acknowledged\":true,\"deleted\":0}");
}

/* Under /_osmem the answers take osmem's shapes (sorted keys, its error
 * types); in osmem's flavour a frozen base refuses with osmem's type. */
static void test_osmem_shapes(void **s) {
    (void)s;
    OK("PUT", "/items/_doc/1?refresh=true", JSON_DOC);
    EXPECT("GET", "/_osmem", NULL, 200, "{\"clones\":0,\"frozen\":false,\"version\":\"0.1.0\"}");
    EXPECT("GET", "/_osmem/base", NULL, 200, "{\"clones\":0,\"frozen\":false,\"indices\":[\"items\"]}");
    EXPECT_HAS("GET", "/_osmem/clones/nope", NULL, 404, "\"type\":\"osmem_clone_not_found\",\"reason\":\"no clone [nope]\"");
    EXPECT_HAS("DELETE", "/_osmem/clones/nope", NULL, 404, "\"type\":\"osmem_clone_not_found\"");
    EXPECT("DELETE", "/_osmem/clones", NULL, 200, "{\"acknowledged\":true,\"closed\":0}");
    OK("POST", "/_osmem/base/freeze", NULL);
    EXPECT_HAS("PUT", "/items/_doc/2", JSON_DOC, 403, "\"type\":\"trove_base_frozen\"");
    trove_node_set_osmem_flavor(N, true);
    EXPECT_HAS("PUT", "/items/_doc/2", JSON_DOC, 403,
               "\"type\":\"osmem_base_frozen\",\"reason\":\"the base cluster is frozen; write to a clone created "
               "with POST /_osmem/clones\"");
    EXPECT_HAS("GET", "/_osmem/base", NULL, 200, "\"frozen\":true");
}

/* A stand-in transport: clone i gets port 40000 + i; it owns the nodes. */
#define MAXC 8
static trove_node *clones[MAXC];
static bool open_[MAXC];
static int nclones, nclosed;

static int fake_open(void *ud, trove_node *clone, void **token) {
    assert_ptr_equal(ud, &nclones);
    if (nclones == MAXC) return -1;
    clones[nclones] = clone;
    open_[nclones] = true;
    *token = (void *)(intptr_t)nclones;
    return 40000 + nclones++;
}

static void fake_close(void *ud, void *token) {
    assert_ptr_equal(ud, &nclones);
    int i = (int)(intptr_t)token;
    assert_true(open_[i]);
    open_[i] = false;
    nclosed++;
    trove_node_free(clones[i]);
    clones[i] = NULL;
}

static int creq(trove_node *n, const char *m, const char *path, const char *body, char **out) {
    trove_node *save = N;
    N = n;
    int st = req(m, path, body, out);
    N = save;
    return st;
}

static char *create_clone(char **url) {
    char *b;
    assert_int_equal(req("POST", "/_osmem/clones", NULL, &b), 201);
    char *id = field(b, "id");
    *url = field(b, "url");
    assert_non_null(id);
    assert_non_null(*url);
    free(b);
    return id;
}

static void test_clones(void **s) {
    (void)s;
    nclones = nclosed = 0;
    assert_int_equal(trove_node_set_clone_transport(N, fake_open, fake_close, &nclones), TROVE_OK);
    seed();
    char *u0, *u1;
    char *id0 = create_clone(&u0);
    assert_string_equal(u0, "http://127.0.0.1:40000");
    char *id1 = create_clone(&u1);
    assert_string_equal(u1, "http://127.0.0.1:40001");
    assert_string_not_equal(id0, id1);
    /* a clone freezes the base; the clones are not frozen */
    EXPECT_HAS("GET", "/_trove", NULL, 200, "\"frozen\":true,\"clones\":{\"count\":2,");
    EXPECT_STATUS("PUT", "/items/_doc/9", JSON_DOC, 403);
    char *b;
    assert_int_equal(creq(clones[0], "GET", "/_trove", NULL, &b), 200);
    assert_non_null(strstr(b, "\"frozen\":false"));
    free(b);

    /* writes on a clone: invisible to the base and to the other clone */
    assert_int_equal(creq(clones[0], "PUT", "/items/_doc/2?refresh=true", JSON_DOC, &b), 201);
    free(b);
    assert_int_equal(creq(clones[0], "GET", "/items/_count", NULL, &b), 200);
    assert_non_null(strstr(b, "\"count\":2"));
    free(b);
    assert_int_equal(creq(clones[1], "GET", "/items/_count", NULL, &b), 200);
    assert_non_null(strstr(b, "\"count\":1"));
    free(b);
    EXPECT_HAS("GET", "/items/_count", NULL, 200, "\"count\":1");

    /* list, get, delete one, delete all */
    char path[96];
    snprintf(path, sizeof path, "/_trove/clones/%s", id1);
    char want[160];
    snprintf(want, sizeof want, "{\"id\":\"%s\",\"url\":\"%s\"}", id1, u1);
    EXPECT("GET", path, NULL, 200, want);
    EXPECT_HAS("GET", "/_trove/clones", NULL, 200, want);
    EXPECT("DELETE", path, NULL, 200, "{\"acknowledged\":true}");
    assert_int_equal(nclosed, 1);
    assert_false(open_[1]);
    EXPECT_STATUS("GET", path, NULL, 404);
    EXPECT_STATUS("DELETE", path, NULL, 404);
    snprintf(want, sizeof want, "{\"clones\":[{\"id\":\"%s\",\"url\":\"%s\"}]}", id0, u0);
    EXPECT("GET", "/_trove/clones", NULL, 200, want);
    char *u2;
    char *id2 = create_clone(&u2);
    EXPECT("DELETE", "/_trove/clones", NULL, 200, "{\"acknowledged\":true,\"deleted\":2}");
    assert_int_equal(nclosed, 3);
    EXPECT_HAS("GET", "/_trove", NULL, 200, "\"count\":0,");

    /* a clone left open is closed with the base (teardown frees N) */
    free(u2);
    free(create_clone(&u2));
    free(u2);
    free(id0);
    free(id1);
    free(id2);
    free(u0);
    free(u1);
}

static int teardown_clones(void **s) {
    int rc = teardown(s);
    assert_int_equal(nclosed, 4); /* the last clone, closed by trove_node_free */
    return rc;
}

int main(void) {
    const struct CMUnitTest freeze[] = {
        cmocka_unit_test_setup_teardown(test_info_and_freeze, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clone_needs_transport, setup, teardown),
        cmocka_unit_test_setup_teardown(test_osmem_shapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clones, setup, teardown_clones),
    };
    return cmocka_run_group_tests(freeze, NULL, NULL);
}
