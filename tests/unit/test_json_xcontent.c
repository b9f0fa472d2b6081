/* test_json_xcontent.c — OpenSearch's map operations on JSON (json/xcontent.c):
 * XContentMapValues.filter in document and HashMap order, and the
 * partial-update merge. The filter is the one the index (a mapping's
 * _source includes/excludes), the fetch phase and GET share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"

/* src filtered with comma lists (NULL: none), as compact JSON. */
static void check_filter(const char *src, const char *inc, const char *exc, bool hashmap, const char *want) {
    tv_arena a;
    tv_arena_init(&a);
    tv_json *doc = NULL;
    assert_int_equal(tv_json_parse(&a, src, strlen(src), &doc, NULL), TROVE_OK);
    const char *il[8], *el[8];
    size_t ni = 0, ne = 0;
    char ib[256], eb[256];
    snprintf(ib, sizeof ib, "%s", inc ? inc : "");
    snprintf(eb, sizeof eb, "%s", exc ? exc : "");
    for (char *t = strtok(ib, ","); t && ni < 8; t = strtok(NULL, ",")) il[ni++] = t;
    for (char *t = strtok(eb, ","); t && ne < 8; t = strtok(NULL, ",")) el[ne++] = t;
    const tv_json *f = tv_json_filter(&a, doc, il, ni, el, ne, hashmap);
    assert_non_null(f);
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_value(&w, f);
    tv_buf_putc(&b, 0);
    assert_string_equal(b.data, want);
    tv_buf_fini(&b);
    tv_arena_fini(&a);
}

static const char doc[] = "{\"e\":\"s\",\"a\":{\"c\":2,\"b\":1},\"d\":[{\"x\":1,\"y\":2},{\"y\":3},4]}";

static void test_filter_includes(void **state) {
    (void)state;
    /* a partly included object keeps what matched; objects in an array are
     * filtered like any object, and an emptied one is dropped; a scalar in
     * an array survives only when the array itself was included */
    check_filter(doc, "a.b,d.x", NULL, false, "{\"a\":{\"b\":1},\"d\":[{\"x\":1}]}");
    /* an include of an object keeps all of it, scalars of its arrays too */
    check_filter(doc, "d", NULL, false, "{\"d\":[{\"x\":1,\"y\":2},{\"y\":3},4]}");
    /* wildcards match within a path and every path below a match */
    check_filter(doc, "a*", NULL, false, "{\"a\":{\"c\":2,\"b\":1}}");
    check_filter(doc, "*.b", NULL, false, "{\"a\":{\"b\":1}}");
    check_filter(doc, "nothing", NULL, false, "{}");
}

static void test_filter_excludes(void **state) {
    (void)state;
    check_filter(doc, NULL, "a", false, "{\"e\":\"s\",\"d\":[{\"x\":1,\"y\":2},{\"y\":3},4]}");
    /* an object whose members are all excluded stays, empty, when included */
    check_filter(doc, NULL, "a.*", false, "{\"e\":\"s\",\"a\":{},\"d\":[{\"x\":1,\"y\":2},{\"y\":3},4]}");
    check_filter(doc, NULL, "d.y", false, "{\"e\":\"s\",\"a\":{\"c\":2,\"b\":1},\"d\":[{\"x\":1},4]}");
    /* an exclude wins over an include of the same path */
    check_filter(doc, "a", "a.c", false, "{\"a\":{\"b\":1}}");
}

static void test_filter_order(void **state) {
    (void)state;
    /* document order, or the order a HashMap iterates ("a" before "e"; "b"
     * before "c") as OpenSearch prints a source that went through one */
    check_filter(doc, "a,e", NULL, false, "{\"e\":\"s\",\"a\":{\"c\":2,\"b\":1}}");
    check_filter(doc, "a,e", NULL, true, "{\"a\":{\"b\":1,\"c\":2},\"e\":\"s\"}");
}

static void test_merge(void **state) {
    (void)state;
    tv_arena a;
    tv_arena_init(&a);
    tv_json *base = NULL, *ch = NULL;
    const char *bs = "{\"z\":1,\"o\":{\"k\":1},\"l\":[1]}", *cs = "{\"o\":{\"n\":2},\"z\":1,\"new\":true}";
    assert_int_equal(tv_json_parse(&a, bs, strlen(bs), &base, NULL), TROVE_OK);
    assert_int_equal(tv_json_parse(&a, cs, strlen(cs), &ch, NULL), TROVE_OK);
    bool changed = false;
    const tv_json *m = tv_json_merge(&a, base, ch, true, &changed);
    assert_non_null(m);
    assert_true(changed);
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_value(&w, m);
    tv_buf_putc(&b, 0);
    /* existing keys keep their place, objects merge, new keys append */
    assert_string_equal(b.data, "{\"z\":1,\"o\":{\"k\":1,\"n\":2},\"l\":[1],\"new\":true}");
    tv_buf_fini(&b);
    /* nothing differs: a noop */
    assert_non_null(tv_json_merge(&a, base, base, true, &changed));
    assert_false(changed);
    tv_arena_fini(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_includes),
        cmocka_unit_test(test_filter_excludes),
        cmocka_unit_test(test_filter_order),
        cmocka_unit_test(test_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
