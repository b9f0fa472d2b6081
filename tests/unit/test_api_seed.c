/*
 * test_api_seed.c — trove_node_load_seed: the seed directory and single-
 * file formats, the order of the steps, and errors that name the file, the
 * line and OpenSearch's reason.
 *
 * Fixtures: tests/fixtures/seed/ (items/: template, index, two bulk files,
 * aliases and an ignored README; single.ndjson; bad/: a bulk file whose
 * second index item fails). Failure cases that need other files write them
 * to a temporary directory.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_test.h"

#ifndef TROVE_SOURCE_DIR
#define TROVE_SOURCE_DIR "."
#endif
#define SEEDS TROVE_SOURCE_DIR "/tests/fixtures/seed"

static char tmpdir[256];

static void put_file(const char *name, const char *text) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void make_tmpdir(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/trove_seed_test.XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
}

static void rm_tmpdir(void) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    assert_int_equal(system(cmd), 0);
}

static void test_directory(void **s) {
    (void)s;
    trove_error err;
    assert_int_equal(trove_node_load_seed(N, SEEDS "/items", &err), 0);
    /* bulk with refresh=true: searchable at once */
    EXPECT_HAS("GET", "/items/_count", NULL, 200, "\"count\":3,");
    EXPECT_HAS("GET", "/items/_doc/2", NULL, 200, "\"title\":\"Blue ceramic mug\"");
    /* the index file's mappings */
    EXPECT_HAS("GET", "/items/_mapping", NULL, 200,
               "\"category\":{\"type\":\"keyword\"},\"created\":{\"type\":\"date\"},\"price\":{\"type\":\"double\"}");
    EXPECT_HAS("GET", "/items/_search?q=title:red&size=0", NULL, 200, "\"total\":{\"value\":2,");
    /* the template came before the bulk files: level is a keyword, not text */
    EXPECT_HAS("GET", "/logs-2024/_mapping", NULL, 200, "\"level\":{\"type\":\"keyword\"}");
    /* an action of logs-2024.ndjson that names its own _index */
    EXPECT_HAS("GET", "/logs-other/_doc/x", NULL, 200, "\"found\":true");
    /* aliases.json came last: logs-* matched both log indices */
    EXPECT_HAS("GET", "/shop/_count", NULL, 200, "\"count\":3,");
    EXPECT_HAS("GET", "/logs/_count", NULL, 200, "\"count\":2,");
}

static void test_single_file(void **s) {
    (void)s;
    trove_error err;
    assert_int_equal(trove_node_load_seed(N, SEEDS "/single.ndjson", &err), 0);
    EXPECT_HAS("GET", "/books/_count", NULL, 200, "\"count\":1,"); /* 2 was deleted */
    EXPECT_HAS("GET", "/films/_doc/1", NULL, 200, "\"title\":\"Stalker\"");
    /* two seeds in a row add up */
    assert_int_equal(trove_node_load_seed(N, SEEDS "/items", &err), 0);
    EXPECT_HAS("GET", "/_cat/indices?h=index&s=index", NULL, 200, "books\nfilms\nitems\nlogs-2024\nlogs-other\n");
}

static void test_failed_item(void **s) {
    (void)s;
    trove_error err;
    int rc = trove_node_load_seed(N, SEEDS "/bad", &err);
    assert_int_equal(rc, TROVE_EMAPPER);
    assert_int_equal(err.code, TROVE_EMAPPER);
    const char *want = SEEDS "/bad/items.ndjson:4: mapper_parsing_exception: failed to parse field [price] of "
                             "type [double] in document with id '2'.";
    if (strncmp(err.message, want, strlen(want)) != 0) fail_msg("message: %s", err.message);
    /* the byte offset of line 4 in the file */
    assert_int_equal(err.pos, strlen("{\"index\":{\"_id\":\"1\"}}\n{\"title\":\"ok\",\"price\":1.5}\n"
                                     "{\"delete\":{\"_id\":\"404\"}}\n"));
    /* _bulk does not stop at a failed item: 1 and 3 are in, 2 is not */
    EXPECT_HAS("GET", "/items/_count", NULL, 200, "\"count\":2,");
    EXPECT_STATUS("GET", "/items/_doc/2", NULL, 404);
}

static void test_request_errors(void **s) {
    (void)s;
    trove_error err;
    make_tmpdir();
    char path[512];

    /* the index exists already: OpenSearch's reason, no line */
    put_file("a.index.json", "{}");
    assert_int_equal(trove_node_load_seed(N, tmpdir, &err), 0);
    int rc = trove_node_load_seed(N, tmpdir, &err);
    assert_int_equal(rc, TROVE_EEXISTS);
    snprintf(path, sizeof path, "%s/a.index.json: resource_already_exists_exception: index [a/", tmpdir);
    if (strncmp(err.message, path, strlen(path)) != 0) fail_msg("message: %s", err.message);

    /* malformed JSON in an index file: the line of the syntax error */
    put_file("a.index.json", "{\n  \"settings\": {\n    \"number_of_shards\": 1,,\n  }\n}\n");
    rc = trove_node_load_seed(N, tmpdir, &err);
    snprintf(path, sizeof path, "%s/a.index.json:3: ", tmpdir);
    if (rc == 0 || strncmp(err.message, path, strlen(path)) != 0) fail_msg("rc %d message: %s", rc, err.message);
    unlink(strcat(strcpy(path, tmpdir), "/a.index.json"));

    /* a single file whose action does not name its index */
    put_file("noindex.ndjson", "{\"index\":{\"_index\":\"n1\",\"_id\":\"1\"}}\n{\"a\":1}\n{\"index\":{\"_id\":\"2\"}}\n{\"a\":2}\n");
    snprintf(path, sizeof path, "%s/noindex.ndjson", tmpdir);
    rc = trove_node_load_seed(N, path, &err);
    assert_int_equal(rc, TROVE_EVALIDATION);
    if (!strstr(err.message, "noindex.ndjson: action_request_validation_exception: Validation Failed: 1: index is missing"))
        fail_msg("message: %s", err.message);
    unlink(path);

    /* a malformed bulk body: the first line that is not JSON */
    put_file("m.ndjson", "{\"index\":{\"_id\":\"1\"}}\n{\"a\":1}\n{\"index\":{\"_id\":\"2\"}\n{\"a\":2}\n");
    rc = trove_node_load_seed(N, tmpdir, &err);
    snprintf(path, sizeof path, "%s/m.ndjson:3: ", tmpdir);
    if (rc == 0 || strncmp(err.message, path, strlen(path)) != 0) fail_msg("rc %d message: %s", rc, err.message);
    strcat(strcpy(path, tmpdir), "/m.ndjson");
    unlink(path);

    /* aliases.json naming a missing index */
    put_file("aliases.json", "{\"actions\":[{\"add\":{\"index\":\"nope\",\"alias\":\"x\"}}]}");
    rc = trove_node_load_seed(N, tmpdir, &err);
    assert_int_equal(rc, TROVE_ENOINDEX);
    if (!strstr(err.message, "/aliases.json: index_not_found_exception: no such index [nope]"))
        fail_msg("message: %s", err.message);
    rm_tmpdir();
}

static void test_bad_paths(void **s) {
    (void)s;
    trove_error err;
    assert_int_equal(trove_node_load_seed(N, SEEDS "/does-not-exist", &err), TROVE_EIO);
    assert_non_null(strstr(err.message, "does-not-exist: cannot read the seed: No such file or directory"));
    assert_int_equal(trove_node_load_seed(N, SEEDS "/items/items.index.json", &err), TROVE_EARG);
    assert_non_null(strstr(err.message, "a seed is a directory or an .ndjson file"));
    assert_int_equal(trove_node_load_seed(N, "", &err), TROVE_EARG);
    assert_int_equal(trove_node_load_seed(N, NULL, NULL), TROVE_EARG);
    /* nothing was created */
    EXPECT("GET", "/_cat/indices", NULL, 200, "");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_single_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_item, setup, teardown),
        cmocka_unit_test_setup_teardown(test_request_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_paths, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
