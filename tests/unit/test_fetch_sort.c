/* test_fetch_sort.c — the one sort parser (fetch/sort.c) and the hit sort of
 * top_hits and inner_hits (fetch/hit_sort.c): SortBuilder's forms, its
 * errors, the options the hit sort refuses by name, and the order of
 * hits. Links the fetch layer only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch/fetch.h"

typedef struct fx {
    tv_arena a;
    tv_error err;
    tv_dsl d;
} fx;

static int setup(void **state) {
    fx *f = calloc(1, sizeof *f);
    tv_arena_init(&f->a);
    tv_error_clear(&f->err);
    tv_dsl_init(&f->d, &f->a, &f->err, NULL);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx *f = *state;
    tv_arena_fini(&f->a);
    free(f);
    return 0;
}

static const tv_json *json(fx *f, const char *s) {
    tv_json *v = NULL;
    assert_int_equal(tv_json_parse(&f->a, s, strlen(s), &v, NULL), TROVE_OK);
    return v;
}

static void test_sort_forms(void **state) {
    fx *f = *state;
    tv_sort_spec *s = NULL;
    size_t n = 0;
    assert_int_equal(tv_sort_parse(&f->d, json(f, "[\"_score\",{\"price\":\"desc\"},{\"name\":{\"order\":\"asc\","
                                                    "\"missing\":\"_first\",\"mode\":\"MAX\"}},\"_doc\"]"),
                                   &s, &n),
                     TROVE_OK);
    assert_int_equal(n, 4);
    assert_int_equal(s[0].kind, TV_SORT_SCORE);
    assert_true(s[0].desc); /* _score defaults to descending */
    assert_int_equal(s[1].kind, TV_SORT_FIELD);
    assert_string_equal(s[1].field, "price");
    assert_true(s[1].desc);
    assert_false(s[2].desc);
    assert_true(s[2].missing_first);
    assert_int_equal(s[2].mode, TV_SORT_MODE_MAX); /* SortMode.fromString ignores case */
    assert_int_equal(s[3].kind, TV_SORT_DOC);
    /* a bare name, and an object of several keys */
    assert_int_equal(tv_sort_parse(&f->d, json(f, "\"price\""), &s, &n), TROVE_OK);
    assert_int_equal(n, 1);
    assert_false(s[0].desc);
    assert_int_equal(tv_sort_parse(&f->d, json(f, "{\"a\":\"desc\",\"b\":\"asc\"}"), &s, &n), TROVE_OK);
    assert_int_equal(n, 2);
    assert_string_equal(s[1].field, "b");
}

static void test_sort_errors(void **state) {
    fx *f = *state;
    tv_sort_spec *s = NULL;
    size_t n = 0;
    assert_int_equal(tv_sort_parse(&f->d, json(f, "{\"price\":\"up\"}"), &s, &n), TROVE_EARG);
    assert_string_equal(f->err.reason, "Unknown SortOrder [up]");
    tv_error_clear(&f->err);
    assert_int_equal(tv_sort_parse(&f->d, json(f, "{\"price\":{\"bogus\":1}}"), &s, &n), TROVE_EPARSE);
    assert_string_equal(f->err.reason, "[field_sort] unknown field [bogus]");
    tv_error_clear(&f->err);
    assert_int_equal(tv_sort_parse(&f->d, json(f, "[1]"), &s, &n), TROVE_EPARSE);
    assert_string_equal(f->err.reason, "[sort] unexpected token [VALUE_NUMBER]");
}

static void test_hit_sort(void **state) {
    fx *f = *state;
    tv_hit_sort hs;
    memset(&hs, 0, sizeof hs);
    assert_int_equal(tv_hit_sort_parse(&f->d, json(f, "[{\"n\":\"desc\"},\"_score\"]"), "top_hits", &hs), TROVE_OK);
    assert_int_equal(hs.n, 2);
    assert_string_equal(hs.keys[0].field, "n");
    assert_null(hs.keys[1].field);
    /* by n descending, missing values last, then by score, then by doc */
    tv_hit x, y;
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    x.sk[0] = y.sk[0] = 1;
    x.sv[0] = 5;
    y.sv[0] = 3;
    assert_true(tv_hit_cmp(&hs, &x, &y) < 0);
    y.sv[0] = 5;
    x.score = 1.0f;
    y.score = 2.0f;
    assert_true(tv_hit_cmp(&hs, &x, &y) > 0);
    y.score = 1.0f;
    y.doc = 1;
    assert_true(tv_hit_cmp(&hs, &x, &y) < 0);
    y.sk[0] = 0; /* missing */
    assert_true(tv_hit_cmp(&hs, &x, &y) < 0);
    /* options the hit sort does not run are refused by name */
    static const char *const refused[][2] = {
        {"[\"_doc\"]", "_doc"},
        {"[{\"n\":{\"missing\":\"_first\"}}]", "missing"},
        {"[{\"n\":{\"mode\":\"avg\"}}]", "mode"},
        {"[{\"n\":{\"unmapped_type\":\"long\"}}]", "unmapped_type"},
        {"[{\"n\":{\"numeric_type\":\"long\"}}]", "numeric_type"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        tv_error_clear(&f->err);
        assert_int_equal(tv_hit_sort_parse(&f->d, json(f, refused[i][0]), "inner_hits", &hs), TROVE_EUNSUPPORTED);
        char want[128];
        snprintf(want, sizeof want, "[%s] in a [inner_hits] sort is not supported by trove", refused[i][1]);
        assert_string_equal(f->err.reason, want);
    }
    tv_error_clear(&f->err);
    assert_int_equal(tv_hit_sort_parse(&f->d, json(f, "[\"a\",\"b\",\"c\",\"d\",\"e\"]"), "top_hits", &hs),
                     TROVE_EUNSUPPORTED);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sort_forms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sort_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hit_sort, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
