/* test_json_writer.c — the JSON writer: Java's Double.toString and
 * Float.toString, Jackson's string escaping and pretty printer, raw values,
 * round trips through the reader, out-of-memory. Expected number strings
 * were produced by Java 25's Double.toString / Float.toString. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "json/json.h"

static void check_double(double v, const char *want) {
    char out[40];
    size_t n = tv_fmt_double(v, out);
    if (strcmp(out, want) != 0) fprintf(stderr, "double %a: got %s want %s\n", v, out, want);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
}

static void check_float(float v, const char *want) {
    char out[40];
    size_t n = tv_fmt_float(v, out);
    if (strcmp(out, want) != 0) fprintf(stderr, "float %a: got %s want %s\n", (double)v, out, want);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
}

static void test_fmt_double(void **state) {
    (void)state;
    check_double(0.0, "0.0");
    check_double(-0.0, "-0.0");
    check_double(1.0, "1.0");
    check_double(-1.0, "-1.0");
    check_double(0.1, "0.1");
    check_double(0.2, "0.2");
    check_double(0.3, "0.3");
    check_double(0.1 + 0.2, "0.30000000000000004");
    check_double(100.0, "100.0");
    check_double(1e7, "1.0E7");
    check_double(0x1.312cfffffffffp23, "9999999.999999998");
    check_double(9999999.0, "9999999.0");
    check_double(1234567.0, "1234567.0");
    check_double(12345678.0, "1.2345678E7");
    check_double(1000000.0, "1000000.0");
    check_double(0.001, "0.001");
    check_double(0.002, "0.002");
    check_double(0x1.0624dd2f1a9fbp-10, "9.999999999999998E-4");
    check_double(1e-4, "1.0E-4");
    check_double(1e-5, "1.0E-5");
    check_double(-2.5e-5, "-2.5E-5");
    check_double(1e16, "1.0E16");
    check_double(1e21, "1.0E21");
    check_double(1e22, "1.0E22");
    check_double(1e23, "1.0E23");
    check_double(2e23, "2.0E23");
    check_double(0x0.0000000000001p-1022, "4.9E-324"); /* Double.MIN_VALUE: 2 digits, not 5E-324 */
    check_double(0x1.fffffffffffffp1023, "1.7976931348623157E308");
    check_double(0x1.0p-1022, "2.2250738585072014E-308");
    check_double(1.0 / 3, "0.3333333333333333");
    check_double(2.0 / 3, "0.6666666666666666");
    check_double(123456789012345678.5, "1.2345678901234568E17");
    check_double(9007199254740992.0, "9.007199254740992E15");
    check_double(3.141592653589793, "3.141592653589793");
    check_double(2.718281828459045, "2.718281828459045");
    check_double(1.5e300, "1.5E300");
    check_double(0.5, "0.5");
    check_double(NAN, "NaN");
    check_double(INFINITY, "Infinity");
    check_double(-INFINITY, "-Infinity");
    /* every power of ten round-trips and uses the layout of its range */
    for (int e = -320; e <= 308; e++) {
        char in[16], out[40];
        snprintf(in, sizeof in, "1e%d", e);
        double v = strtod(in, NULL);
        tv_fmt_double(v, out);
        assert_true(strtod(out, NULL) == v);
        if (e >= -3 && e < 7) assert_null(strchr(out, 'E'));
        else assert_non_null(strchr(out, 'E'));
    }
}

static void test_fmt_float(void **state) {
    (void)state;
    check_float(0.2876821f, "0.2876821");
    check_float(1.3862944f, "1.3862944");
    check_float(0.6931472f, "0.6931472");
    check_float(0.0f, "0.0");
    check_float(-0.0f, "-0.0");
    check_float(1.0f, "1.0");
    check_float(0.1f, "0.1");
    check_float(1.1f, "1.1");
    check_float(3.0f, "3.0");
    check_float(1e7f, "1.0E7");
    check_float(9999999.0f, "9999999.0");
    check_float(1.2345678e7f, "1.2345678E7");
    check_float(16777216.0f, "1.6777216E7");
    check_float(0x0.000002p-126f, "1.4E-45"); /* Float.MIN_VALUE */
    check_float(0x1.fffffep127f, "3.4028235E38");
    check_float(0x1.0p-126f, "1.1754944E-38");
    check_float(1.0f / 3, "0.33333334");
    check_float(0.001f, "0.001");
    check_float(0x1.0624dcp-10f, "9.999999E-4");
    check_float(2.7182817f, "2.7182817");
    check_float(123.456f, "123.456");
    /* a float printed as float, not as the double it widens to */
    char out[40];
    tv_fmt_double((double)0.1f, out);
    assert_string_equal(out, "0.10000000149011612");
}

static char *render(void (*fn)(tv_jw *), bool pretty) {
    static char keep[4096];
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, pretty);
    fn(&w);
    assert_false(b.oom);
    snprintf(keep, sizeof keep, "%s", b.data ? b.data : "");
    tv_buf_fini(&b);
    return keep;
}

static void doc(tv_jw *w) {
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "took");
    tv_jw_int(w, 5);
    tv_jw_keyz(w, "timed_out");
    tv_jw_bool(w, false);
    tv_jw_keyz(w, "hits");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "max_score");
    tv_jw_float(w, 0.2876821f);
    tv_jw_keyz(w, "hits");
    tv_jw_arr_begin(w);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "_id");
    tv_jw_strz(w, "1");
    tv_jw_keyz(w, "sort");
    tv_jw_arr_begin(w);
    tv_jw_int(w, 1);
    tv_jw_uint(w, UINT64_MAX);
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "_id");
    tv_jw_strz(w, "2");
    tv_jw_obj_end(w);
    tv_jw_arr_end(w);
    tv_jw_keyz(w, "empty_o");
    tv_jw_obj_begin(w);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "empty_a");
    tv_jw_arr_begin(w);
    tv_jw_arr_end(w);
    tv_jw_keyz(w, "n");
    tv_jw_null(w);
    tv_jw_keyz(w, "d");
    tv_jw_double(w, 1e7);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

static void test_writer(void **state) {
    (void)state;
    assert_string_equal(render(doc, false),
                        "{\"took\":5,\"timed_out\":false,\"hits\":{\"max_score\":0.2876821,\"hits\":[{"
                        "\"_id\":\"1\",\"sort\":[1,18446744073709551615]},{\"_id\":\"2\"}],"
                        "\"empty_o\":{},\"empty_a\":[],\"n\":null,\"d\":1.0E7}}");
    assert_string_equal(render(doc, true),
                        "{\n"
                        "  \"took\" : 5,\n"
                        "  \"timed_out\" : false,\n"
                        "  \"hits\" : {\n"
                        "    \"max_score\" : 0.2876821,\n"
                        "    \"hits\" : [ {\n"
                        "      \"_id\" : \"1\",\n"
                        "      \"sort\" : [ 1, 18446744073709551615 ]\n"
                        "    }, {\n"
                        "      \"_id\" : \"2\"\n"
                        "    } ],\n"
                        "    \"empty_o\" : { },\n"
                        "    \"empty_a\" : [ ],\n"
                        "    \"n\" : null,\n"
                        "    \"d\" : 1.0E7\n"
                        "  }\n"
                        "}");
}

static void nested_arrays(tv_jw *w) {
    tv_jw_arr_begin(w);
    tv_jw_arr_begin(w);
    tv_jw_int(w, 1);
    tv_jw_arr_end(w);
    tv_jw_arr_begin(w);
    tv_jw_arr_end(w);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "a");
    tv_jw_arr_begin(w);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "b");
    tv_jw_int(w, -2);
    tv_jw_obj_end(w);
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
    tv_jw_arr_end(w);
}

static void test_pretty_arrays(void **state) {
    (void)state;
    assert_string_equal(render(nested_arrays, false), "[[1],[],{\"a\":[{\"b\":-2}]}]");
    assert_string_equal(render(nested_arrays, true),
                        "[ [ 1 ], [ ], {\n"
                        "  \"a\" : [ {\n"
                        "    \"b\" : -2\n"
                        "  } ]\n"
                        "} ]");
}

static void strings(tv_jw *w) {
    tv_jw_arr_begin(w);
    tv_jw_strz(w, "q\"b\\s/");
    tv_jw_strz(w, "\b\t\n\f\r\x01\x1f\x7f");
    tv_jw_str(w, "a\0b", 3);
    tv_jw_strz(w, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    tv_jw_strz(w, "bad\xff\xc3(\xed\xa0\x80.");
    tv_jw_arr_end(w);
}

static void test_escaping(void **state) {
    (void)state;
    assert_string_equal(render(strings, false),
                        "[\"q\\\"b\\\\s/\",\"\\b\\t\\n\\f\\r\\u0001\\u001F\x7f\",\"a\\u0000b\","
                        "\"\xc3\xa9\xe2\x82\xac\\uD83D\\uDE00\","
                        "\"bad\xef\xbf\xbd\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd.\"]");
    /* keys are escaped the same way */
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_obj_begin(&w);
    tv_jw_key(&w, "k\"\n", 3);
    tv_jw_int(&w, INT64_MIN);
    tv_jw_obj_end(&w);
    assert_string_equal(b.data, "{\"k\\\"\\n\":-9223372036854775808}");
    /* integers at the edges of the digit loop */
    tv_buf_clear(&b);
    tv_jw_init(&w, &b, false);
    tv_jw_arr_begin(&w);
    tv_jw_int(&w, 0);
    tv_jw_int(&w, -1);
    tv_jw_int(&w, INT64_MAX);
    tv_jw_uint(&w, 0);
    tv_jw_uint(&w, 10);
    tv_jw_arr_end(&w);
    assert_string_equal(b.data, "[0,-1,9223372036854775807,0,10]");
    /* a long string with sparse escapes crosses the chunked path */
    tv_buf_clear(&b);
    char big[5000];
    for (int i = 0; i < 4999; i++) big[i] = i % 100 == 0 ? '\n' : (char)('a' + i % 26);
    big[4999] = 0;
    tv_jw_init(&w, &b, false);
    tv_jw_strz(&w, big);
    tv_arena a;
    tv_arena_init(&a);
    tv_json *v;
    assert_int_equal(tv_json_parse(&a, b.data, b.len, &v, NULL), TROVE_OK);
    assert_int_equal(v->len, 4999);
    assert_memory_equal(v->v.s, big, 4999);
    tv_arena_fini(&a);
    tv_buf_fini(&b);
}

/* NaN and the infinities are strings, as Jackson's QUOTE_NON_NUMERIC_NUMBERS
 * writes them: the response stays JSON (a boost of 1e308 once made
 * "_score":NaN). */
static void test_non_finite(void **state) {
    (void)state;
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "a");
    tv_jw_double(&w, NAN);
    tv_jw_keyz(&w, "b");
    tv_jw_float(&w, INFINITY);
    tv_jw_keyz(&w, "c");
    tv_jw_float(&w, -INFINITY);
    tv_jw_keyz(&w, "d");
    tv_jw_float(&w, 1.5f);
    tv_jw_obj_end(&w);
    assert_string_equal(b.data, "{\"a\":\"NaN\",\"b\":\"Infinity\",\"c\":\"-Infinity\",\"d\":1.5}");
    tv_buf_fini(&b);
}

static void test_raw(void **state) {
    (void)state;
    const char *src = "{ \"title\": \"caf\\u00e9 \\ud83d\\ude00\", \"n\": [1, -0, 1.50, 1e3, "
                      "123456789012345678901234567890, 2.5E-5], \"o\": {} }";
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    /* compact: verbatim bytes */
    tv_jw_init(&w, &b, false);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "_source");
    tv_jw_raw(&w, src, strlen(src));
    tv_jw_keyz(&w, "x");
    tv_jw_int(&w, 1);
    tv_jw_obj_end(&w);
    char want[512];
    snprintf(want, sizeof want, "{\"_source\":%s,\"x\":1}", src);
    assert_string_equal(b.data, want);
    /* pretty: re-indented, strings re-escaped, numbers as Jackson copies them */
    tv_buf_clear(&b);
    tv_jw_init(&w, &b, true);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "_source");
    tv_jw_raw(&w, src, strlen(src));
    tv_jw_obj_end(&w);
    assert_string_equal(b.data, "{\n"
                                "  \"_source\" : {\n"
                                "    \"title\" : \"caf\xc3\xa9 \\uD83D\\uDE00\",\n"
                                "    \"n\" : [ 1, 0, 1.5, 1000.0, 123456789012345678901234567890, 2.5E-5 ],\n"
                                "    \"o\" : { }\n"
                                "  }\n"
                                "}");
    /* invalid raw JSON in pretty mode is kept as is */
    tv_buf_clear(&b);
    tv_jw_init(&w, &b, true);
    tv_jw_raw(&w, "{bad", 4);
    assert_string_equal(b.data, "{bad");
    tv_buf_fini(&b);
}

/* parse -> write (compact and pretty) -> parse gives an equal DOM; the
 * compact text of a compact input is byte-identical. */
static void test_round_trip(void **state) {
    (void)state;
    const char *docs[] = {
        "{\"a\":1,\"b\":[true,false,null,\"x\\\"y\"],\"c\":{\"d\":-1.5e-7,\"e\":18446744073709551615}}",
        "[[],{},[[[]]],{\"\":{\"\":\"\"}}]",
        "\"\\u0000\\u001f\\\\\"",
        "[0.1,1e400,-0.0,12345678901234567890123]",
        "{\"emoji\":\"\xf0\x9f\x98\x80\",\"\xc3\xa9\":\"\xe2\x82\xac\"}",
    };
    for (size_t i = 0; i < TV_ARRAY_LEN(docs); i++) {
        for (int pretty = 0; pretty < 2; pretty++) {
            tv_arena a;
            tv_arena_init(&a);
            tv_json *v1, *v2;
            assert_int_equal(tv_json_parse(&a, docs[i], strlen(docs[i]), &v1, NULL), TROVE_OK);
            tv_buf b;
            tv_buf_init(&b);
            tv_jw w;
            tv_jw_init(&w, &b, pretty);
            tv_jw_value(&w, v1);
            assert_int_equal(tv_json_parse(&a, b.data, b.len, &v2, NULL), TROVE_OK);
            assert_true(tv_json_equal(v1, v2));
            if (!pretty && i != 2 && i != 4) assert_string_equal(b.data, docs[i]);
            tv_buf_fini(&b);
            tv_arena_fini(&a);
        }
    }
}

/* Documents as deep as the reader accepts (1000) are written, compact and
 * pretty, although the writer's own state holds TV_JW_MAX_DEPTH levels. */
static void test_deep(void **state) {
    (void)state;
    tv_buf in, out, want;
    tv_buf_init(&in);
    tv_buf_init(&out);
    tv_buf_init(&want);
    for (int i = 0; i < 1000; i++) tv_buf_putc(&in, '[');
    tv_buf_putc(&in, '1');
    for (int i = 0; i < 1000; i++) tv_buf_putc(&in, ']');
    for (int i = 0; i < 1000; i++) tv_buf_puts(&want, "[ ");
    tv_buf_putc(&want, '1');
    for (int i = 0; i < 1000; i++) tv_buf_puts(&want, " ]");
    tv_jw w;
    tv_jw_init(&w, &out, true);
    tv_jw_raw(&w, in.data, in.len);
    assert_false(out.oom);
    assert_string_equal(out.data, want.data);
    /* objects: {"a":{"a":...}} with pretty indentation all the way down */
    tv_buf_clear(&in);
    for (int i = 0; i < 600; i++) tv_buf_puts(&in, "{\"a\":");
    tv_buf_puts(&in, "[]");
    for (int i = 0; i < 600; i++) tv_buf_putc(&in, '}');
    tv_arena a;
    tv_arena_init(&a);
    tv_json *v, *v2;
    assert_int_equal(tv_json_parse(&a, in.data, in.len, &v, NULL), TROVE_OK);
    for (int pretty = 0; pretty < 2; pretty++) {
        tv_buf_clear(&out);
        tv_jw_init(&w, &out, pretty);
        tv_jw_value(&w, v);
        assert_false(out.oom);
        assert_int_equal(tv_json_parse(&a, out.data, out.len, &v2, NULL), TROVE_OK);
        assert_true(tv_json_equal(v, v2));
        if (!pretty) assert_string_equal(out.data, in.data);
    }
    /* the innermost line is indented by 2 spaces per enclosing object */
    const char *last = strstr(out.data, "[ ]");
    assert_non_null(last);
    const char *nl = last;
    while (*nl != '\n') nl--;
    assert_int_equal(last - nl - 1, 2 * 600 + (int)strlen("\"a\" : "));
    tv_arena_fini(&a);
    tv_buf_fini(&in);
    tv_buf_fini(&out);
    tv_buf_fini(&want);
}

static void test_oom(void **state) {
    (void)state;
    bool done = false;
    for (long n = 0; !done && n < 5000; n += 1 + n / 8) {
        tv_buf b;
        tv_buf_init(&b);
        tv_jw w;
        tv_jw_init(&w, &b, true);
        tv_alloc_fail_after(n);
        tv_jw_obj_begin(&w);
        for (int i = 0; i < 200; i++) {
            tv_jw_keyz(&w, "key");
            tv_jw_strz(&w, "value \xf0\x9f\x98\x80 with \"escapes\"\n");
            tv_jw_raw(&w, "{\"a\":[1,2,3]}", 13);
        }
        tv_jw_obj_end(&w);
        tv_alloc_fail_after(-1);
        if (!b.oom) {
            done = true;
            assert_true(b.len > 200 * 40);
        } else {
            size_t len;
            assert_null(tv_buf_detach(&b, &len));
        }
        tv_buf_fini(&b);
    }
    assert_true(done);
}

/* tv_jw_float remembers recent texts by the float's bits: whatever the
 * order, repeats and floats that share a slot, every text must be
 * tv_fmt_float's. */
static void test_float_memo(void **state) {
    (void)state;
    /* 4,096 consecutive floats above 1.0 (many share a slot and most of
     * their bits), then repeats of a few scores, visited in a scrambled
     * order three times */
    enum { N = 4096 + 64 };
    static float vals[N];
    uint32_t one;
    float f1 = 1.0f;
    memcpy(&one, &f1, sizeof one);
    for (uint32_t i = 0; i < 4096; i++) {
        uint32_t bits = one + i;
        memcpy(&vals[i], &bits, sizeof bits);
    }
    for (int i = 0; i < 64; i++) vals[4096 + i] = (float)(i % 5) * 0.1f;
    tv_buf b;
    tv_buf_init(&b);
    uint32_t x = 12345;
    for (int round = 0; round < 3 * N; round++) {
        x = x * 1103515245u + 12345u;
        int k = (int)((x >> 8) % N);
        tv_buf_clear(&b);
        tv_jw w;
        tv_jw_init(&w, &b, false);
        tv_jw_float(&w, vals[k]);
        char want[40];
        size_t n = tv_fmt_float(vals[k], want);
        assert_int_equal(b.len, n);
        assert_memory_equal(b.data, want, n);
    }
    tv_buf_fini(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmt_double), cmocka_unit_test(test_fmt_float),
        cmocka_unit_test(test_writer),     cmocka_unit_test(test_pretty_arrays),
        cmocka_unit_test(test_escaping),   cmocka_unit_test(test_raw),
        cmocka_unit_test(test_non_finite),
        cmocka_unit_test(test_round_trip), cmocka_unit_test(test_deep),
        cmocka_unit_test(test_oom),        cmocka_unit_test(test_float_memo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
