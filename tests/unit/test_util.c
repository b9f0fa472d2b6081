/* test_util.c — arena, buf, map, bitset, varint, status tables, failing allocator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "util/util.h"

static void test_status_tables(void **state) {
    (void)state;
    assert_string_equal(trove_status_type(TROVE_ENOINDEX), "index_not_found_exception");
    assert_int_equal(trove_status_http(TROVE_ENOINDEX), 404);
    assert_int_equal(trove_status_http(TROVE_ECONFLICT), 409);
    assert_string_equal(trove_status_name(TROVE_EARG), "EARG");
    assert_int_equal(trove_status_http(-1), 500);
    assert_int_equal(trove_status_http(TROVE_STATUS_COUNT_), 500);
    tv_error e = TV_ERROR_INIT;
    assert_int_equal(tv_error_set(&e, TROVE_EPARSE, "bad [%s]", "x"), TROVE_EPARSE);
    assert_string_equal(e.reason, "bad [x]");
    assert_int_equal(e.cause_code, TROVE_OK);
    /* the first error wins; tv_error_wrap replaces it */
    assert_int_equal(tv_error_set(&e, TROVE_EARG, "second"), TROVE_EPARSE);
    assert_string_equal(e.reason, "bad [x]");
    trove_error pub;
    tv_error_to_public(&e, &pub);
    assert_int_equal(pub.code, TROVE_EPARSE);
    assert_string_equal(pub.message, "bad [x]");
    assert_int_equal(tv_error_wrap(&e, TROVE_EQUERYSHARD, "outer"), TROVE_EQUERYSHARD);
    assert_string_equal(e.reason, "outer");
    tv_error_clear(&e);
    assert_int_equal(tv_error_set(&e, TROVE_EARG, "again"), TROVE_EARG);
    assert_int_equal(tv_error_as(&e, TROVE_EAGGEXEC), TROVE_EARG);
    assert_int_equal(tv_error_type(&e), TROVE_EAGGEXEC);
    /* the table's other columns */
    assert_true(tv_status_os(TROVE_ENOINDEX));
    assert_false(tv_status_os(TROVE_EARG));
    assert_string_equal(tv_status_java(TROVE_EARG), "java.lang.IllegalArgumentException");
    tv_buf b;
    tv_buf_init(&b);
    tv_status_simple_name(&b, TROVE_ENOINDEX);
    tv_buf_putc(&b, ' ');
    tv_status_simple_name(&b, TROVE_EJSONEOF);
    tv_buf_putc(&b, ' ');
    tv_status_java_name(&b, TROVE_EXCONTENT);
    tv_buf_putc(&b, 0);
    assert_string_equal(b.data, "IndexNotFoundException JsonEOFException org.opensearch.core.xcontent.XContentParseException");
    tv_buf_fini(&b);
    /* every code but OK and the two without a body has a type */
    for (int c = 1; c < TROVE_STATUS_COUNT_; c++)
        if (c != TROVE_ENOHANDLER && c != TROVE_EMETHOD) assert_true(trove_status_type(c)[0] != 0);
}

static void test_arena(void **state) {
    (void)state;
    tv_arena a;
    tv_arena_init(&a);
    char *first = tv_arena_alloc(&a, 3);
    assert_non_null(first);
    for (int i = 0; i < 10000; i++) {
        size_t n = (size_t)(i % 97) + 1;
        unsigned char *p = tv_arena_alloc(&a, n);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 8, 0);
        memset(p, 0xab, n);
    }
    char *big = tv_arena_alloc(&a, 3 << 20); /* a dedicated block */
    assert_non_null(big);
    memset(big, 1, 3 << 20);
    char *s = tv_arena_sprintf(&a, "%d-%s", 42, "x");
    assert_string_equal(s, "42-x");
    assert_string_equal(tv_arena_strndup(&a, "hello", 4), "hell");
    tv_arena_reset(&a);
    assert_non_null(tv_arena_calloc(&a, 10, 10));
    tv_arena_fini(&a);
    tv_arena_fini(&a); /* idempotent */
}

static void test_buf(void **state) {
    (void)state;
    tv_buf b;
    tv_buf_init(&b);
    for (int i = 0; i < 1000; i++) tv_buf_printf(&b, "%d,", i);
    assert_false(b.oom);
    assert_memory_equal(b.data, "0,1,2,", 6);
    tv_buf_putc(&b, 'z');
    assert_int_equal(b.data[b.len - 1], 'z');
    assert_int_equal(b.data[b.len], '\0');
    char long_s[1000];
    memset(long_s, 'q', sizeof long_s - 1);
    long_s[sizeof long_s - 1] = 0;
    size_t before = b.len;
    tv_buf_printf(&b, "%s", long_s);
    assert_int_equal(b.len, before + 999);
    size_t n;
    char *d = tv_buf_detach(&b, &n);
    assert_int_equal(n, before + 999);
    assert_int_equal(b.len, 0);
    tv_free(d);
    d = tv_buf_detach(&b, &n);
    assert_string_equal(d, "");
    tv_free(d);
}

static void test_buf_oom_is_sticky(void **state) {
    (void)state;
    tv_buf b;
    tv_buf_init(&b);
    tv_alloc_fail_after(0);
    tv_buf_puts(&b, "abc");
    tv_alloc_fail_after(-1);
    assert_true(b.oom);
    tv_buf_puts(&b, "def"); /* ignored after the failure */
    assert_int_equal(b.len, 0);
    assert_null(tv_buf_detach(&b, NULL));
    tv_buf_fini(&b);
}

static void test_map(void **state) {
    (void)state;
    tv_map m;
    tv_map_init(&m);
    char key[32];
    for (intptr_t i = 0; i < 5000; i++) {
        int n = snprintf(key, sizeof key, "k%ld", (long)i);
        assert_int_equal(tv_map_put(&m, key, (size_t)n, (void *)(i + 1), NULL), TROVE_OK);
    }
    assert_int_equal(m.len, 5000);
    for (intptr_t i = 0; i < 5000; i += 2) {
        int n = snprintf(key, sizeof key, "k%ld", (long)i);
        assert_ptr_equal(tv_map_del(&m, key, (size_t)n), (void *)(i + 1));
    }
    assert_int_equal(m.len, 2500);
    for (intptr_t i = 0; i < 5000; i++) {
        int n = snprintf(key, sizeof key, "k%ld", (long)i);
        void *v = tv_map_get(&m, key, (size_t)n);
        if (i % 2) assert_ptr_equal(v, (void *)(i + 1));
        else assert_null(v);
    }
    void *old;
    assert_int_equal(tv_map_put(&m, "k1", 2, (void *)7, &old), TROVE_OK);
    assert_ptr_equal(old, (void *)2);
    size_t it = 0, count = 0;
    while (tv_map_next(&m, &it, NULL, NULL, NULL)) count++;
    assert_int_equal(count, 2500);
    tv_map copy;
    assert_int_equal(tv_map_copy(&copy, &m), TROVE_OK);
    assert_ptr_equal(tv_map_get(&copy, "k1", 2), (void *)7);
    tv_map_fini(&copy);
    tv_map_fini(&m);
}

/* A borrowing map keeps the caller's key pointers (no copy to free: the
 * sanitizer build would report a double free or a leak otherwise), and an
 * empty key given as NULL is still a key. */
static void test_map_borrowed(void **state) {
    (void)state;
    tv_map m;
    tv_map_init_borrowed(&m);
    char keys[64][8];
    for (int i = 0; i < 64; i++) {
        snprintf(keys[i], sizeof keys[i], "k%d", i);
        assert_int_equal(tv_map_put(&m, keys[i], strlen(keys[i]), (void *)(intptr_t)(i + 1), NULL), TROVE_OK);
    }
    assert_int_equal(tv_map_put(&m, NULL, 0, (void *)(intptr_t)100, NULL), TROVE_OK);
    assert_ptr_equal(tv_map_get(&m, "", 0), (void *)(intptr_t)100);
    assert_ptr_equal(tv_map_get(&m, "k63", 3), (void *)(intptr_t)64);
    size_t it = 0, n = 0;
    const char *k;
    size_t kl;
    void *v;
    while (tv_map_next(&m, &it, &k, &kl, &v)) {
        intptr_t i = (intptr_t)v - 1;
        if (i < 64) assert_ptr_equal(k, keys[i]); /* the caller's bytes, not a copy */
        n++;
    }
    assert_int_equal(n, 65);
    assert_ptr_equal(tv_map_del(&m, "k5", 2), (void *)(intptr_t)6);
    assert_null(tv_map_get(&m, "k5", 2));
    /* a copy owns its keys again */
    tv_map c;
    assert_int_equal(tv_map_copy(&c, &m), TROVE_OK);
    assert_false(c.borrowed);
    assert_ptr_equal(tv_map_get(&c, "k7", 2), (void *)(intptr_t)8);
    tv_map_fini(&c);
    tv_map_fini(&m);
    assert_true(m.borrowed); /* still borrowing after fini, ready for reuse */
    assert_int_equal(tv_map_put(&m, keys[1], 2, (void *)1, NULL), TROVE_OK);
    tv_map_fini(&m);
}

static void test_map_oom(void **state) {
    (void)state;
    for (long fail = 0; fail < 20; fail++) {
        tv_map m;
        tv_map_init(&m);
        tv_alloc_fail_after(fail);
        tv_status st = TROVE_OK;
        for (int i = 0; i < 20 && st == TROVE_OK; i++) {
            char key[8];
            int n = snprintf(key, sizeof key, "%d", i);
            st = tv_map_put(&m, key, (size_t)n, NULL, NULL);
        }
        tv_alloc_fail_after(-1);
        assert_true(st == TROVE_OK || st == TROVE_ENOMEM);
        tv_map_fini(&m);
    }
}

static void test_bitset(void **state) {
    (void)state;
    tv_bitset b;
    assert_true(tv_bitset_init(&b, 1000));
    assert_int_equal(tv_bitset_next(&b, 0), SIZE_MAX);
    tv_bitset_set(&b, 3);
    tv_bitset_set(&b, 64);
    tv_bitset_set(&b, 999);
    assert_int_equal(tv_bitset_count(&b), 3);
    assert_int_equal(tv_bitset_next(&b, 0), 3);
    assert_int_equal(tv_bitset_next(&b, 4), 64);
    assert_int_equal(tv_bitset_next(&b, 65), 999);
    assert_int_equal(tv_bitset_next(&b, 1000), SIZE_MAX);
    tv_bitset_clear(&b, 64);
    assert_false(tv_bitset_get(&b, 64));
    tv_bitset_fini(&b);
}

static void test_varint(void **state) {
    (void)state;
    uint64_t vals[] = {0, 1, 127, 128, 300, UINT32_MAX, UINT64_MAX};
    uint8_t buf[16];
    for (size_t i = 0; i < TV_ARRAY_LEN(vals); i++) {
        size_t n = tv_varint_put(buf, vals[i]);
        uint64_t v;
        assert_int_equal(tv_varint_get(buf, buf + n, &v), n);
        assert_true(v == vals[i]);
        assert_int_equal(tv_varint_get(buf, buf + n - 1, &v), 0); /* truncated */
    }
    uint8_t overlong[11] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0};
    uint64_t v;
    assert_int_equal(tv_varint_get(overlong, overlong + 11, &v), 0);
    assert_true(tv_unzigzag(tv_zigzag(INT64_MIN)) == INT64_MIN);
    assert_true(tv_unzigzag(tv_zigzag(-5)) == -5);
}

static void test_parse_i64(void **state) {
    (void)state;
    int64_t v;
    assert_true(tv_parse_i64("9223372036854775807", 19, &v) && v == INT64_MAX);
    assert_true(tv_parse_i64("-9223372036854775808", 20, &v) && v == INT64_MIN);
    assert_false(tv_parse_i64("9223372036854775808", 19, &v));
    assert_false(tv_parse_i64("12a", 3, &v));
    assert_false(tv_parse_i64("-", 1, &v));
    assert_false(tv_parse_i64("", 0, &v));
}

static void test_glob_match(void **state) {
    (void)state;
#define G(p, s) tv_glob_match(p, strlen(p), s, strlen(s))
    assert_true(G("*", ""));
    assert_true(G("*", "abc"));
    assert_true(G("a*c", "abc"));
    assert_true(G("a*c", "ac"));
    assert_true(G("*.keyword", "title.keyword"));
    assert_true(G("a*b*c", "axxbyyc"));
    assert_true(G("a**", "a"));
    assert_false(G("a*c", "abd"));
    assert_false(G("abc", "ab"));
    assert_false(G("", "a"));
    assert_true(G("", ""));
    assert_false(G("a?c", "abc")); /* only '*' is special */
#undef G
}

/* TimeValue.parseTimeValue's corners: units by suffix (minutes only in
 * lower case), -1 and 0 without a unit, Java's trim, Long.parseLong of the
 * number, and the three error texts. */
static void expect_time(const char *v, int64_t want_ns) {
    tv_error e = TV_ERROR_INIT;
    int64_t ns = 12345;
    tv_error_clear(&e);
    tv_status st = tv_parse_time_value(v, strlen(v), "t", &ns, &e);
    if (st != TROVE_OK || ns != want_ns) fail_msg("%s: status %d ns %lld (%s)", v, st, (long long)ns, e.reason);
}

static void expect_time_err(const char *v, const char *reason, bool caused) {
    tv_error e = TV_ERROR_INIT;
    int64_t ns;
    tv_error_clear(&e);
    tv_status st = tv_parse_time_value(v, strlen(v), "t", &ns, &e);
    assert_int_equal(st, TROVE_EARG);
    assert_string_equal(e.reason, reason);
    assert_int_equal(e.cause_code == TROVE_ENUMBERFORMAT, caused);
}

static void test_time_value(void **s) {
    (void)s;
    expect_time("5s", 5000000000);
    expect_time(" 5 S ", 5000000000);
    expect_time("5m", 300000000000);
    expect_time("2d", 172800000000000);
    expect_time("7nanos", 7);
    expect_time("7MICROS", 7000);
    expect_time("10ms", 10000000);
    expect_time("-1", -1);
    expect_time("-0001", -1);
    expect_time("000", 0);
    expect_time("-1s", -1000000000);
    expect_time("+3h", 10800000000000);
    expect_time("9223372036854775807d", INT64_MAX); /* saturates */
    expect_time_err("abc", "failed to parse setting [t] with value [abc] as a time value: unit is missing or unrecognized",
                    false);
    expect_time_err("5M", "failed to parse setting [t] with value [5M] as a time value: unit is missing or unrecognized",
                    false);
    expect_time_err("5m ", "failed to parse setting [t] with value [5m ] as a time value: unit is missing or unrecognized",
                    false);
    expect_time_err("", "failed to parse setting [t] with value [] as a time value: unit is missing or unrecognized", false);
    expect_time_err("-2s", "failed to parse setting [t] with value [-2s] as a time value: negative durations are not supported",
                    false);
    expect_time_err("1.5s", "failed to parse [1.5s], fractional time values are not supported", true);
    expect_time_err("xs", "failed to parse [xs]", true);
    expect_time_err("s", "failed to parse [s]", true);
    expect_time_err("99999999999999999999s", "failed to parse [99999999999999999999s], fractional time values are not supported",
                    true);
    assert_true(tv_java_double_syntax(" 1e5 ", 5));
    assert_true(tv_java_double_syntax("-.5f", 4));
    assert_true(tv_java_double_syntax("NaN", 3));
    assert_false(tv_java_double_syntax("1e", 2));
    assert_false(tv_java_double_syntax(".", 1));
    assert_false(tv_java_double_syntax("", 0));
}

/* TimeValue.toString of milliseconds, as _stats?human prints times: the
 * largest unit reached, one decimal truncated (9.1046m -> 9.1m), ".0"
 * dropped. */
static void test_time_value_string(void **s) {
    (void)s;
    static const struct {
        int64_t ms;
        const char *want;
    } cases[] = {{0, "0s"}, {12, "12ms"}, {999, "999ms"}, {1000, "1s"}, {1500, "1.5s"}, {1999, "1.9s"},
                 {546278, "9.1m"}, {60000, "1m"}, {3600000, "1h"}, {9386293, "2.6h"}, {100433772, "1.1d"},
                 {-1, "-1"}};
    for (size_t i = 0; i < TV_ARRAY_LEN(cases); i++) {
        char b[32];
        tv_java_time_value(cases[i].ms, b, sizeof b);
        assert_string_equal(b, cases[i].want);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_value_string),
        cmocka_unit_test(test_status_tables), cmocka_unit_test(test_arena),
        cmocka_unit_test(test_buf),           cmocka_unit_test(test_buf_oom_is_sticky),
        cmocka_unit_test(test_map),           cmocka_unit_test(test_map_borrowed), cmocka_unit_test(test_map_oom),
        cmocka_unit_test(test_bitset),        cmocka_unit_test(test_varint),
        cmocka_unit_test(test_parse_i64),     cmocka_unit_test(test_glob_match),
        cmocka_unit_test(test_time_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
