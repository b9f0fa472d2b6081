/*
 * index_test.h — helpers shared by the index layer's document tests: one
 * arena per test group (setup/teardown), J() to parse JSON into it, M() to
 * parse a mapping, parse()/parse_fails() for documents, field() to find a
 * parsed field, json_text() to print a value. Header-only and static: each
 * test program includes it once.
 */
#ifndef TROVE_INDEX_TEST_H
#define TROVE_INDEX_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "index/index.h"

#define TV_TEST_UNUSED __attribute__((unused))

static tv_arena A;

static int setup(void **state) {
    (void)state;
    tv_arena_init(&A);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    tv_arena_fini(&A);
    return 0;
}

static TV_TEST_UNUSED tv_json *J(const char *s) {
    tv_json *out = NULL;
    tv_json_error je;
    assert_int_equal(tv_json_parse(&A, s, strlen(s), &out, &je), TROVE_OK);
    return out;
}

static TV_TEST_UNUSED tv_mapping *M(const char *s) {
    tv_error err = TV_ERROR_INIT;
    tv_mapping *m = tv_mapping_parse(J(s), NULL, &err);
    if (!m) fail_msg("mapping: %s", err.reason);
    return m;
}

/* A JSON value printed compactly, in the arena. */
static TV_TEST_UNUSED char *json_text(const tv_json *u) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_value(&w, u);
    char *s = tv_arena_strndup(&A, b.data, b.len);
    tv_buf_fini(&b);
    return s;
}

/* Parses a document that must need no dynamic mapping update. */
static TV_TEST_UNUSED tv_parsed_doc parse(const tv_mapping *m, const char *src) {
    tv_parsed_doc d;
    tv_json *upd = NULL;
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_doc_parse(m, "1", 1, src, strlen(src), &A, &d, &upd, &err);
    if (st) fail_msg("doc: %s / %s", err.reason, err.cause_reason);
    if (upd) fail_msg("unexpected dynamic update: %s", json_text(upd));
    return d;
}

/* Parsing fails with code and reason (and, when cause_reason is set, that cause). */
static TV_TEST_UNUSED void parse_fails(const tv_mapping *m, const char *src, tv_status code,
                                       const char *reason, tv_status cause, const char *cause_reason) {
    tv_parsed_doc d;
    tv_json *upd = NULL;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_doc_parse(m, "x", 1, src, strlen(src), &A, &d, &upd, &err), code);
    assert_int_equal(err.code, code);
    assert_string_equal(err.reason, reason);
    if (cause_reason) {
        assert_int_equal(err.cause_code, cause);
        assert_string_equal(err.cause_reason, cause_reason);
    }
}

/* The parsed field at path, NULL when the document has none. */
static TV_TEST_UNUSED const tv_doc_field *field(const tv_mapping *m, const tv_parsed_doc *d, const char *path) {
    const tv_field *f = tv_mapping_field(m, path, strlen(path));
    assert_non_null(f);
    for (uint32_t i = 0; i < d->nfields; i++)
        if (d->fields[i].field == f->id) return &d->fields[i];
    return NULL;
}

#endif /* TROVE_INDEX_TEST_H */
