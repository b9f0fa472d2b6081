/* test_json_reader.c — the JSON reader: values, numbers, strings, errors
 * with Jackson's wording and position, duplicate keys, depth, NDJSON lines,
 * accessors, out-of-memory paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "json/json.h"

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

static tv_json *parse_ok(const char *s) {
    tv_json *v = NULL;
    tv_json_error e;
    memset(&e, 0, sizeof e);
    tv_status st = tv_json_parse(&A, s, strlen(s), &v, &e);
    if (st != TROVE_OK) fprintf(stderr, "unexpected error for %s: %s\n", s, e.msg);
    assert_int_equal(st, TROVE_OK);
    assert_non_null(v);
    return v;
}

static void parse_err(const char *s, size_t len, tv_status code, uint32_t line, uint32_t col,
                      const char *msg) {
    tv_json *v = (tv_json *)1;
    tv_json_error e;
    memset(&e, 0, sizeof e);
    tv_status st = tv_json_parse(&A, s, len, &v, &e);
    if (st != code || e.line != line || e.col != col || strcmp(e.msg, msg) != 0)
        fprintf(stderr, "input %.*s\n got  %d [%u:%u] %s\n want %d [%u:%u] %s\n", (int)len, s, st,
                e.line, e.col, e.msg, code, line, col, msg);
    assert_int_equal(st, code);
    assert_int_equal(e.code, code);
    assert_null(v);
    assert_string_equal(e.msg, msg);
    assert_int_equal(e.line, line);
    assert_int_equal(e.col, col);
}
#define ERR(s, line, col, msg) parse_err(s, strlen(s), TROVE_EJSON, line, col, msg)

static void test_values(void **state) {
    (void)state;
    tv_json *v = parse_ok(" {\"a\": 1, \"b\": [true, false, null, \"x\"], \"c\": {}, \"d\": []} ");
    assert_int_equal(v->type, TV_JSON_OBJECT);
    assert_int_equal(v->len, 4);
    assert_int_equal(v->off, 1);
    assert_string_equal(v->v.members[0].key, "a");
    assert_int_equal(v->v.members[0].key_off, 2);
    assert_int_equal(v->v.members[0].val.off, 7);
    assert_string_equal(v->v.members[1].key, "b");
    assert_string_equal(v->v.members[2].key, "c");
    assert_string_equal(v->v.members[3].key, "d");
    const tv_json *b = tv_json_get(v, "b");
    assert_true(tv_json_is_array(b));
    assert_int_equal(b->len, 4);
    assert_int_equal(b->v.items[0].type, TV_JSON_TRUE);
    assert_int_equal(b->v.items[1].type, TV_JSON_FALSE);
    assert_int_equal(b->v.items[2].type, TV_JSON_NULL);
    assert_int_equal(b->v.items[3].type, TV_JSON_STRING);
    assert_int_equal(b->v.items[3].off, 35);
    assert_true(tv_json_is_bool(&b->v.items[0]));
    assert_true(tv_json_is_object(tv_json_get(v, "c")));
    assert_int_equal(tv_json_get(v, "c")->len, 0);
    assert_int_equal(tv_json_get(v, "d")->len, 0);
    assert_null(tv_json_get(v, "e"));
    assert_null(tv_json_get(b, "a"));
    assert_null(tv_json_get(NULL, "a"));
    assert_non_null(tv_json_getn(v, "abc", 1));
    /* scalars at the root */
    assert_int_equal(parse_ok("true")->type, TV_JSON_TRUE);
    assert_int_equal(parse_ok("null ")->type, TV_JSON_NULL);
    assert_int_equal(parse_ok("\t\r\n\"s\"\n")->type, TV_JSON_STRING);
    assert_int_equal(parse_ok("42")->v.i, 42);
    /* literals followed directly by a delimiter */
    v = parse_ok("[true,false,null]");
    assert_int_equal(v->len, 3);
    v = parse_ok("{\"a\":null}");
    assert_int_equal(v->v.members[0].val.type, TV_JSON_NULL);
}

static void test_numbers(void **state) {
    (void)state;
    tv_json *v = parse_ok("[0, -0, 1, -1, 9223372036854775807, -9223372036854775808, "
                          "9223372036854775808, 18446744073709551615, 18446744073709551616, "
                          "-9223372036854775809, 1.5, -0.0, 1e2, 1E-2, 2.5e+3, 0.1, "
                          "123456789012345678901234567890]");
    tv_json *it = v->v.items;
    assert_int_equal(it[0].type, TV_JSON_INT);
    assert_int_equal(it[0].v.i, 0);
    assert_int_equal(it[1].type, TV_JSON_INT);
    assert_int_equal(it[1].v.i, 0);
    assert_int_equal(it[1].raw_len, 2);
    assert_memory_equal(it[1].raw, "-0", 2);
    assert_int_equal(it[2].v.i, 1);
    assert_int_equal(it[3].v.i, -1);
    assert_int_equal(it[4].type, TV_JSON_INT);
    assert_true(it[4].v.i == INT64_MAX);
    assert_int_equal(it[5].type, TV_JSON_INT);
    assert_true(it[5].v.i == INT64_MIN);
    assert_int_equal(it[6].type, TV_JSON_UINT);
    assert_true(it[6].v.u == (uint64_t)INT64_MAX + 1);
    assert_int_equal(it[7].type, TV_JSON_UINT);
    assert_true(it[7].v.u == UINT64_MAX);
    assert_int_equal(it[8].type, TV_JSON_DOUBLE);
    assert_true(it[8].v.d == 18446744073709551616.0);
    assert_memory_equal(it[8].raw, "18446744073709551616", 20);
    assert_int_equal(it[9].type, TV_JSON_DOUBLE);
    assert_true(it[9].v.d == -9223372036854775809.0);
    assert_int_equal(it[10].type, TV_JSON_DOUBLE);
    assert_true(it[10].v.d == 1.5);
    assert_int_equal(it[11].type, TV_JSON_DOUBLE);
    assert_true(it[11].v.d == 0 && signbit(it[11].v.d));
    assert_true(it[12].v.d == 100.0);
    assert_true(it[13].v.d == 0.01);
    assert_true(it[14].v.d == 2500.0);
    assert_true(it[15].v.d == 0.1);
    assert_true(it[16].v.d == 123456789012345678901234567890.0);
    assert_true(tv_json_as_double(&it[3]) == -1.0);
    assert_true(tv_json_as_double(&it[7]) == 18446744073709551615.0);
    assert_true(tv_json_as_double(&it[10]) == 1.5);
    assert_true(tv_json_as_double(NULL) == 0);
    assert_true(tv_json_is_number(&it[7]));
    assert_false(tv_json_is_number(v));
    /* extremes: overflow to infinity and underflow to zero, as Java does */
    v = parse_ok("[1e400, -1e400, 1e-400, 4.9e-324, 1.7976931348623157e308, 0e99999999999]");
    assert_true(isinf(v->v.items[0].v.d) && v->v.items[0].v.d > 0);
    assert_true(isinf(v->v.items[1].v.d) && v->v.items[1].v.d < 0);
    assert_true(v->v.items[2].v.d == 0);
    assert_true(v->v.items[3].v.d == 4.9e-324);
    assert_true(v->v.items[4].v.d == 1.7976931348623157e308);
    assert_true(v->v.items[5].v.d == 0);
}

/* Every decimal the reader converts must equal glibc's correctly rounded
 * strtod, on both the fast and the slow path. */
static void test_double_rounding(void **state) {
    (void)state;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    char buf[64];
    for (int i = 0; i < 200000; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        int digits = 1 + (int)(s % 20);
        int point = (int)((s >> 8) % 22);
        int exp = (int)((s >> 16) % 80) - 40;
        uint64_t m = s >> 20;
        int n = 0;
        if (s & (1ull << 63)) buf[n++] = '-';
        char d[32];
        int dl = snprintf(d, sizeof d, "%llu", (unsigned long long)m);
        if (dl > digits) dl = digits;
        if (point >= dl) point = dl - 1;
        if (point < 1) point = 1;
        if (d[0] == '0') d[0] = '1';
        memcpy(buf + n, d, (size_t)point);
        n += point;
        if (point < dl) {
            buf[n++] = '.';
            memcpy(buf + n, d + point, (size_t)(dl - point));
            n += dl - point;
        }
        if (i & 1) n += snprintf(buf + n, sizeof buf - (size_t)n, "e%d", exp);
        buf[n] = 0;
        tv_json *v;
        assert_int_equal(tv_json_parse(&A, buf, (size_t)n, &v, NULL), TROVE_OK);
        double want = strtod(buf, NULL);
        double got = tv_json_as_double(v);
        if (v->type == TV_JSON_DOUBLE && memcmp(&got, &want, sizeof got) != 0) {
            fprintf(stderr, "%s: got %.17g want %.17g\n", buf, got, want);
            fail();
        }
        if ((i & 1023) == 0) tv_arena_reset(&A);
    }
}

static void test_strings(void **state) {
    (void)state;
    tv_json *v = parse_ok("[\"\", \"plain\", \"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\", \"\\u00e9\\u20ac\", "
                          "\"\\ud83d\\ude00\", \"\\ud800\", \"\\udc00x\", \"\\ud800\\u0041\", \"a\\u0000b\", "
                          "\"h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80\", \"\\uD834\\uDD1E\"]");
    tv_json *it = v->v.items;
    assert_int_equal(it[0].len, 0);
    assert_string_equal(it[0].v.s, "");
    assert_string_equal(it[1].v.s, "plain");
    assert_int_equal(it[1].len, 5);
    assert_string_equal(it[2].v.s, "a\"b\\c/d\be\ff\ng\rh\ti");
    assert_string_equal(it[3].v.s, "\xc3\xa9\xe2\x82\xac");
    assert_string_equal(it[4].v.s, "\xf0\x9f\x98\x80");
    /* lone surrogates become U+FFFD */
    assert_string_equal(it[5].v.s, "\xef\xbf\xbd");
    assert_string_equal(it[6].v.s, "\xef\xbf\xbdx");
    assert_string_equal(it[7].v.s, "\xef\xbf\xbd" "A");
    /* NUL inside a string: use len */
    assert_int_equal(it[8].len, 3);
    assert_memory_equal(it[8].v.s, "a\0b", 4);
    assert_string_equal(it[9].v.s, "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80");
    assert_string_equal(it[10].v.s, "\xf0\x9d\x84\x9e");
    /* long strings go through the 8-byte scan and its tail */
    char big[3000];
    big[0] = '"';
    for (int i = 1; i < 2998; i++) big[i] = (char)('a' + i % 26);
    big[1500] = '\\';
    big[1501] = 'n';
    big[2998] = '"';
    big[2999] = 0;
    v = parse_ok(big);
    assert_int_equal(v->len, 2996);
    assert_int_equal(v->v.s[1499], '\n');
    assert_int_equal(v->v.s[1500], big[1502]);
    /* keys are unescaped too */
    v = parse_ok("{\"k\\u0065y\": 1}");
    assert_string_equal(v->v.members[0].key, "key");
    assert_int_equal(v->v.members[0].key_len, 3);
    assert_non_null(tv_json_get(v, "key"));
}

static void test_errors(void **state) {
    (void)state;
    ERR("{\"a\": tru}", 1, 11,
        "Unrecognized token 'tru': was expecting (JSON String, Number, Array, Object or token "
        "'null', 'true' or 'false')");
    ERR("[truex]", 1, 8,
        "Unrecognized token 'truex': was expecting (JSON String, Number, Array, Object or token "
        "'null', 'true' or 'false')");
    ERR("nul", 1, 4,
        "Unrecognized token 'nul': was expecting (JSON String, Number, Array, Object or token "
        "'null', 'true' or 'false')");
    ERR("{\"a\": xyz, \"b\": 1}", 1, 11,
        "Unrecognized token 'xyz': was expecting (JSON String, Number, Array, Object or token "
        "'null', 'true' or 'false')");
    ERR("{\"a\":1,}", 1, 8,
        "Unexpected character ('}' (code 125)): was expecting double-quote to start field name");
    ERR("{a:1}", 1, 2,
        "Unexpected character ('a' (code 97)): was expecting double-quote to start field name");
    ERR("{'a':1}", 1, 2,
        "Unexpected character (''' (code 39)): was expecting double-quote to start field name");
    ERR("[1,]", 1, 4, "Unexpected character (']' (code 93)): expected a value");
    ERR("[,1]", 1, 2, "Unexpected character (',' (code 44)): expected a value");
    ERR("{\"a\":}", 1, 6, "Unexpected character ('}' (code 125)): expected a value");
    ERR("{\"a\":]", 1, 6,
        "Unexpected character (']' (code 93)): expected a valid value (JSON String, Number, Array, "
        "Object or token 'null', 'true' or 'false')");
    ERR("[1 2]", 1, 4,
        "Unexpected character ('2' (code 50)): was expecting comma to separate Array entries");
    ERR("{\"a\":1 \"b\":2}", 1, 8,
        "Unexpected character ('\"' (code 34)): was expecting comma to separate Object entries");
    ERR("{\"a\" 1}", 1, 6,
        "Unexpected character ('1' (code 49)): was expecting a colon to separate field name and "
        "value");
    ERR("[}", 1, 2,
        "Unexpected close marker '}': expected ']' (for Array starting at [Source: REDACTED "
        "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 1])");
    ERR("{\"a\":[1}", 1, 8,
        "Unexpected close marker '}': expected ']' (for Array starting at [Source: REDACTED "
        "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 6])");
    ERR("{\"a\":1]", 1, 7,
        "Unexpected close marker ']': expected '}' (for Object starting at [Source: REDACTED "
        "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 1])");
    ERR("]", 1, 1,
        "Unexpected close marker ']': expected '}' (for root starting at [Source: REDACTED "
        "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 0])");
    ERR("{}}", 1, 3,
        "Unexpected close marker '}': expected ']' (for root starting at [Source: REDACTED "
        "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 0])");
    ERR("{", 1, 2,
        "Unexpected end-of-input: expected close marker for Object (start marker at [Source: "
        "REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 1])");
    ERR("\n  [1, [2", 2, 9,
        "Unexpected end-of-input: expected close marker for Array (start marker at [Source: "
        "REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 2, column: 7])");
    ERR("{\"a\":1,", 1, 8, "Unexpected end-of-input within/between Object entries");
    ERR("[1,", 1, 4, "Unexpected end-of-input within/between Array entries");
    ERR("{\"a\"", 1, 5, "Unexpected end-of-input within/between Object entries");
    ERR("{\"a\":", 1, 6, "Unexpected end-of-input within/between Object entries");
    ERR("\"abc", 1, 5, "Unexpected end-of-input in VALUE_STRING");
    ERR("{\"abc", 1, 6, "Unexpected end-of-input in field name");
    ERR("\"ab\\", 1, 5, "Unexpected end-of-input in character escape sequence");
    ERR("\"\\u12", 1, 6, "Unexpected end-of-input in character escape sequence");
    ERR("", 1, 1, "No content to map due to end-of-input");
    ERR(" \n ", 2, 2, "No content to map due to end-of-input");
    /* numbers */
    ERR("[01]", 1, 3, "Invalid numeric value: Leading zeroes not allowed");
    ERR("-01", 1, 3, "Invalid numeric value: Leading zeroes not allowed");
    ERR("[1.]", 1, 4,
        "Unexpected character (']' (code 93)) in numeric value: Decimal point not followed by a "
        "digit");
    ERR("1.", 1, 2,
        "Unexpected character ('.' (code 46)) in numeric value: Decimal point not followed by a "
        "digit");
    ERR("[1e]", 1, 4,
        "Unexpected character (']' (code 93)) in numeric value: Exponent indicator not followed by "
        "a digit");
    ERR("[1e+x]", 1, 5,
        "Unexpected character ('x' (code 120)) in numeric value: Exponent indicator not followed "
        "by a digit");
    ERR("1e", 1, 3, "Unexpected end-of-input in a Number value");
    ERR("-", 1, 2, "Unexpected end-of-input in a Number value");
    ERR("[-]", 1, 3,
        "Unexpected character (']' (code 93)) in numeric value: expected digit (0-9) to follow "
        "minus sign, for valid numeric value");
    ERR("[+1]", 1, 3,
        "Unexpected character ('+' (code 43)) in numeric value: JSON spec does not allow numbers "
        "to have plus signs: enable `JsonReadFeature.ALLOW_LEADING_PLUS_SIGN_FOR_NUMBERS` to allow");
    ERR("[.5]", 1, 2,
        "Unexpected character ('.' (code 46)): expected a valid value (JSON String, Number, Array, "
        "Object or token 'null', 'true' or 'false')");
    ERR("[NaN]", 1, 5,
        "Non-standard token 'NaN': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow");
    ERR("[Infinity]", 1, 10,
        "Non-standard token 'Infinity': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to "
        "allow");
    ERR("[-Infinity]", 1, 11,
        "Non-standard token '-Infinity': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to "
        "allow");
    ERR("1x", 1, 2,
        "Unexpected character ('x' (code 120)): Expected space separating root-level values");
    ERR("[0x10]", 1, 3,
        "Unexpected character ('x' (code 120)): was expecting comma to separate Array entries");
    /* trailing content */
    ERR("{} x", 1, 5,
        "Unrecognized token 'x': was expecting (JSON String, Number, Array, Object or token "
        "'null', 'true' or 'false')");
    ERR("{} {}", 1, 4,
        "Unexpected character ('{' (code 123)): expected end-of-input after the root value");
    /* comments, control characters, escapes */
    ERR("{/*c*/}", 1, 2,
        "Unexpected character ('/' (code 47)): maybe a (non-standard) comment? (not recognized as "
        "one since Feature 'ALLOW_COMMENTS' not enabled for parser)");
    ERR("[1,\f2]", 1, 5,
        "Illegal character ((CTRL-CHAR, code 12)): only regular white space (\\r, \\n, \\t) is "
        "allowed between tokens");
    ERR("\"a\nb\"", 1, 3,
        "Illegal unquoted character ((CTRL-CHAR, code 10)): has to be escaped using backslash to "
        "be included in string value");
    ERR("{\"a\tb\":1}", 1, 4,
        "Illegal unquoted character ((CTRL-CHAR, code 9)): has to be escaped using backslash to "
        "be included in name");
    ERR("\"\\x\"", 1, 3, "Unrecognized character escape 'x' (code 120)");
    ERR("\"\\'\"", 1, 3, "Unrecognized character escape ''' (code 39)");
    ERR("\"\\u12g4\"", 1, 6,
        "Unexpected character ('g' (code 103)): expected a hex-digit for character escape "
        "sequence");
    ERR("[\"\\u00e9\", \xc3\xa9]", 1, 15,
        "Unrecognized token '\xc3\xa9': was expecting (JSON String, Number, Array, Object or "
        "token 'null', 'true' or 'false')");
    ERR("#", 1, 1,
        "Unexpected character ('#' (code 35)): expected a valid value (JSON String, Number, "
        "Array, Object or token 'null', 'true' or 'false')");
}

static void test_invalid_utf8(void **state) {
    (void)state;
    ERR("\"a\xff\"", 1, 4, "Invalid UTF-8 start byte 0xff");
    ERR("\"a\x80\"", 1, 4, "Invalid UTF-8 start byte 0x80");
    ERR("\"\xc3\x28\"", 1, 4, "Invalid UTF-8 middle byte 0x28");
    ERR("\"\xe2\x82\"", 1, 5, "Invalid UTF-8 middle byte 0x22");
    /* stricter than Jackson: overlong forms, encoded surrogates, > U+10FFFF */
    ERR("\"\xc0\xaf\"", 1, 3, "Invalid UTF-8 start byte 0xc0");
    ERR("\"\xe0\x80\xaf\"", 1, 4, "Invalid UTF-8 middle byte 0x80");
    ERR("\"\xed\xa0\x80\"", 1, 4, "Invalid UTF-8 middle byte 0xa0");
    ERR("\"\xf4\x90\x80\x80\"", 1, 4, "Invalid UTF-8 middle byte 0x90");
    ERR("\"\xf5\x80\x80\x80\"", 1, 3, "Invalid UTF-8 start byte 0xf5");
    ERR("{\"k\xff\":1}", 1, 5, "Invalid UTF-8 start byte 0xff");
    ERR("\"\xf0\x9f\x98", 1, 5, "Unexpected end-of-input in VALUE_STRING");
    /* the maximum code points are fine */
    tv_json *v = parse_ok("\"\xf4\x8f\xbf\xbf \xef\xbf\xbf \xed\x9f\xbf\"");
    assert_int_equal(v->len, 12);
}

static void test_positions(void **state) {
    (void)state;
    /* line:col of errors on later lines, with CRLF and lone CR */
    ERR("{\n  \"a\": 1,\n  \"b\": x\n}", 3, 9,
        "Unrecognized token 'x': was expecting (JSON String, Number, Array, Object or token "
        "'null', 'true' or 'false')");
    ERR("{\r\n\"a\":1,\r\n\"a\":2}", 3, 4, "Duplicate field 'a'");
    ERR("[1,\r2,\r\n3 4]", 3, 3,
        "Unexpected character ('4' (code 52)): was expecting comma to separate Array entries");
    uint32_t line, col;
    const char *s = "ab\ncd\r\nef\rg";
    tv_json_linecol(s, strlen(s), 0, &line, &col);
    assert_int_equal(line, 1);
    assert_int_equal(col, 1);
    tv_json_linecol(s, strlen(s), 4, &line, &col);
    assert_int_equal(line, 2);
    assert_int_equal(col, 2);
    tv_json_linecol(s, strlen(s), 8, &line, &col);
    assert_int_equal(line, 3);
    assert_int_equal(col, 2);
    tv_json_linecol(s, strlen(s), 10, &line, &col);
    assert_int_equal(line, 4);
    assert_int_equal(col, 1);
    tv_json_linecol(s, strlen(s), 1000, &line, &col); /* clamped */
    assert_int_equal(line, 4);
    assert_int_equal(col, 2);
    /* value offsets give the line:col of a value the DSL rejects */
    const char *q = "{\n  \"query\": {\n    \"match\": 5\n  }\n}";
    tv_json *v = parse_ok(q);
    const tv_json *m = tv_json_get(tv_json_get(v, "query"), "match");
    tv_json_linecol(q, strlen(q), m->off, &line, &col);
    assert_int_equal(line, 3);
    assert_int_equal(col, 14);
}

static void test_duplicates(void **state) {
    (void)state;
    ERR("{\"a\":1,\"a\":2}", 1, 11, "Duplicate field 'a'");
    ERR("{\"a\":1,\"b\":{\"c\":1,\"c\":2}}", 1, 22, "Duplicate field 'c'");
    ERR("{\"\":1,\"\":2}", 1, 9, "Duplicate field ''");
    /* escaped and unescaped spellings of the same key are duplicates */
    ERR("{\"ab\":1,\"a\\u0062\":2}", 1, 18, "Duplicate field 'ab'");
    /* same key in sibling and nested objects is fine */
    tv_json *v = parse_ok("{\"a\":{\"a\":1},\"b\":{\"a\":2},\"c\":[{\"a\":1},{\"a\":2}]}");
    assert_int_equal(v->len, 3);
    /* large objects switch to a hash table: dup at the start, the end, and
     * keys sharing prefixes */
    for (int where = 0; where < 3; where++) {
        tv_buf b;
        tv_buf_init(&b);
        tv_buf_putc(&b, '{');
        int n = 2000;
        for (int i = 0; i < n; i++) tv_buf_printf(&b, "%s\"key%d\":{\"key%d\":%d}", i ? "," : "", i, i, i);
        int dupk = where == 0 ? 0 : where == 1 ? n - 1 : 17;
        size_t body = b.len;
        tv_buf_printf(&b, ",\"key%d\":0}", dupk);
        tv_json *out;
        tv_json_error e;
        assert_int_equal(tv_json_parse(&A, b.data, b.len, &out, &e), TROVE_EJSON);
        char want[64];
        snprintf(want, sizeof want, "Duplicate field 'key%d'", dupk);
        assert_string_equal(e.msg, want);
        /* without the duplicate it parses, in order */
        b.len = body;
        tv_buf_putc(&b, '}');
        assert_int_equal(tv_json_parse(&A, b.data, b.len, &out, &e), TROVE_OK);
        assert_int_equal(out->len, n);
        assert_string_equal(out->v.members[n - 1].key, "key1999");
        assert_int_equal(tv_json_get(out, "key1234")->v.members[0].val.v.i, 1234);
        tv_buf_fini(&b);
    }
}

static void test_depth(void **state) {
    (void)state;
    char *s = malloc(2 * 1001 + 1);
    for (int i = 0; i < 1000; i++) s[i] = '[', s[1000 + i] = ']';
    s[2000] = 0;
    tv_json *v = parse_ok(s);
    int d = 0;
    while (v->type == TV_JSON_ARRAY && v->len) v = &v->v.items[0], d++;
    assert_int_equal(d, 999);
    for (int i = 0; i < 1001; i++) s[i] = i % 2 ? '[' : '{';
    /* objects need keys; build {"a":[{"a":[... instead */
    tv_buf b;
    tv_buf_init(&b);
    for (int i = 0; i < 1001; i++) tv_buf_puts(&b, i % 2 ? "[" : "{\"a\":");
    tv_json_error e;
    assert_int_equal(tv_json_parse(&A, b.data, b.len, &v, &e), TROVE_ELIMIT);
    assert_string_equal(e.msg, "Document nesting depth (1001) exceeds the maximum allowed (1000, "
                               "from `StreamReadConstraints.getMaxNestingDepth()`)");
    tv_buf_fini(&b);
    memset(s, '[', 2000);
    assert_int_equal(tv_json_parse(&A, s, 2000, &v, &e), TROVE_ELIMIT);
    free(s);
}

static void test_parse_line(void **state) {
    (void)state;
    const char *in = "{\"index\":{\"_id\":\"1\"}}\n{\"a\":1}\r\n\n   \n{\"b\":[1,2]}\n[true]";
    size_t len = strlen(in), off = 0;
    tv_json *v;
    tv_json_error e;
    assert_int_equal(tv_json_parse_line(&A, in, len, &off, &v, &e), TROVE_OK);
    assert_non_null(tv_json_get(v, "index"));
    assert_int_equal(off, 22);
    assert_int_equal(tv_json_parse_line(&A, in, len, &off, &v, &e), TROVE_OK);
    assert_int_equal(tv_json_get(v, "a")->v.i, 1);
    assert_int_equal(tv_json_get(v, "a")->off, 27);
    assert_int_equal(tv_json_parse_line(&A, in, len, &off, &v, &e), TROVE_OK);
    assert_int_equal(tv_json_get(v, "b")->len, 2);
    assert_int_equal(tv_json_parse_line(&A, in, len, &off, &v, &e), TROVE_OK);
    assert_int_equal(v->type, TV_JSON_ARRAY);
    assert_int_equal(off, len);
    assert_int_equal(tv_json_parse_line(&A, in, len, &off, &v, &e), TROVE_OK);
    assert_null(v);
    /* an error on line 3 is reported against the whole input; a value may
     * not continue on the next line */
    const char *bad = "{}\n{}\n{\"a\":\n1}\n";
    off = 0;
    len = strlen(bad);
    assert_int_equal(tv_json_parse_line(&A, bad, len, &off, &v, &e), TROVE_OK);
    assert_int_equal(tv_json_parse_line(&A, bad, len, &off, &v, &e), TROVE_OK);
    assert_int_equal(tv_json_parse_line(&A, bad, len, &off, &v, &e), TROVE_EJSON);
    assert_null(v);
    assert_int_equal(e.line, 3);
    assert_int_equal(e.col, 6);
    assert_int_equal(e.pos, 11);
    assert_string_equal(e.msg, "Unexpected end-of-input within/between Object entries");
    /* two values on one line */
    off = 0;
    assert_int_equal(tv_json_parse_line(&A, "{} {}\n", 6, &off, &v, &e), TROVE_EJSON);
    /* empty input */
    off = 0;
    assert_int_equal(tv_json_parse_line(&A, "", 0, &off, &v, &e), TROVE_OK);
    assert_null(v);
}

static void test_equal(void **state) {
    (void)state;
    tv_json *a = parse_ok("{\"a\":[1,2.5,\"x\",null,true,{\"b\":false}],\"u\":18446744073709551615}");
    tv_json *b = parse_ok("{ \"a\" : [ 1, 2.50, \"x\", null, true, { \"b\" : false } ], \"u\": 18446744073709551615 }");
    tv_json *c = parse_ok("{\"a\":[1,2.5,\"x\",null,true,{\"b\":true}],\"u\":18446744073709551615}");
    tv_json *d = parse_ok("{\"u\":18446744073709551615,\"a\":[1,2.5,\"x\",null,true,{\"b\":false}]}");
    assert_true(tv_json_equal(a, b));
    assert_false(tv_json_equal(a, c));
    assert_false(tv_json_equal(a, d)); /* member order matters */
    assert_false(tv_json_equal(parse_ok("1"), parse_ok("1.0")));
    assert_false(tv_json_equal(parse_ok("\"a\""), parse_ok("\"ab\"")));
    assert_false(tv_json_equal(parse_ok("[1]"), parse_ok("[1,2]")));
    assert_true(tv_json_equal(NULL, NULL));
    assert_false(tv_json_equal(a, NULL));
}

/* Every allocation failure gives TROVE_ENOMEM, a clean error, and no leak
 * (the replay under ASan checks leaks). */
static void test_oom(void **state) {
    (void)state;
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_puts(&b, "{\"wide\":[");
    for (int i = 0; i < 600; i++) tv_buf_printf(&b, "%s{\"s\":\"str\\u00e9%d\",\"n\":%d.5}", i ? "," : "", i, i);
    tv_buf_puts(&b, "],\"obj\":{");
    for (int i = 0; i < 300; i++) tv_buf_printf(&b, "%s\"k%d\":%d", i ? "," : "", i, i);
    tv_buf_puts(&b, "}}");
    bool done = false;
    int failures = 0;
    for (long n = 0; !done && n < 10000; n++) {
        tv_arena a;
        tv_arena_init(&a);
        tv_json *v = (tv_json *)1;
        tv_json_error e;
        tv_alloc_fail_after(n);
        tv_status st = tv_json_parse(&a, b.data, b.len, &v, &e);
        tv_alloc_fail_after(-1);
        if (st == TROVE_OK) {
            done = true;
            assert_int_equal(tv_json_get(v, "wide")->len, 600);
            assert_int_equal(tv_json_get(v, "obj")->len, 300);
        } else {
            assert_int_equal(st, TROVE_ENOMEM);
            assert_int_equal(e.code, TROVE_ENOMEM);
            assert_null(v);
            failures++;
        }
        tv_arena_fini(&a);
    }
    assert_true(done);
    assert_true(failures > 3);
    tv_buf_fini(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_double_rounding, setup, teardown),
        cmocka_unit_test_setup_teardown(test_strings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_utf8, setup, teardown),
        cmocka_unit_test_setup_teardown(test_positions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_duplicates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_depth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_equal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oom, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
