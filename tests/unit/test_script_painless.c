/* test_script_painless.c — the Painless interpreter (src/script): small
 * programs with the value they return (printed as JSON) or the error
 * OpenSearch reports for them (compile or runtime, the Java exception and
 * its message, the script_stack excerpt). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script.h"

/* Runs src with params (JSON or NULL) and ctx (JSON object or NULL) and
 * returns the result as compact JSON followed by " ctx=<ctx>" when ctx is
 * given, or "ERR <compile|runtime> <type>: <reason>" (static buffer). */
static char out[4096];

static const char *run_ctx(const char *src, const char *params, const char *ctx) {
    tv_arena a;
    tv_arena_init(&a);
    tv_script_error err;
    tv_script *s = tv_script_compile(src, strlen(src), TV_SCRIPT_G_CTX, &err);
    if (!s) {
        snprintf(out, sizeof out, "ERR compile %s: %s", trove_status_type(err.cause), err.cause_reason);
        tv_arena_fini(&a);
        return out;
    }
    tv_script_env env;
    memset(&env, 0, sizeof env);
    env.arena = &a;
    tv_json *j;
    if (params) {
        assert_int_equal(tv_json_parse(&a, params, strlen(params), &j, NULL), TROVE_OK);
        assert_int_equal(tv_sv_from_json(&a, j, false, &env.params), TROVE_OK);
    }
    if (ctx) {
        assert_int_equal(tv_json_parse(&a, ctx, strlen(ctx), &j, NULL), TROVE_OK);
        assert_int_equal(tv_sv_from_json(&a, j, true, &env.ctx), TROVE_OK);
    }
    tv_sv res;
    tv_status st = tv_script_run(s, &env, &res, &err);
    if (st != TROVE_OK) {
        snprintf(out, sizeof out, "ERR runtime %s: %s", trove_status_type(err.cause), err.cause_reason);
    } else {
        tv_buf b;
        tv_buf_init(&b);
        tv_jw w;
        tv_jw_init(&w, &b, false);
        tv_sv_write_json(&w, &res);
        if (ctx) {
            tv_buf_puts(&b, " ctx=");
            tv_jw_init(&w, &b, false);
            tv_sv_write_json(&w, &env.ctx);
        }
        snprintf(out, sizeof out, "%s", b.data ? b.data : "");
        tv_buf_fini(&b);
    }
    tv_script_release(s);
    tv_arena_fini(&a);
    return out;
}

static const char *run(const char *src) { return run_ctx(src, NULL, NULL); }

#define EXPECT(src, want) assert_string_equal(run(src), want)

static void test_literals_and_arithmetic(void **state) {
    (void)state;
    EXPECT("return 1 + 2 * 3", "7");
    EXPECT("1 + 2", "3"); /* the last expression is the value */
    EXPECT("return 7 / 2", "3");
    EXPECT("return -7 / 2", "-3");
    EXPECT("return -7 % 3", "-1");
    EXPECT("return 7.0 / 2", "3.5");
    EXPECT("return 1L << 40", "1099511627776");
    EXPECT("return 2147483647 + 1", "-2147483648"); /* int wraps */
    EXPECT("return 2147483647L + 1", "2147483648");
    EXPECT("return 0x10 + 010", "24");
    EXPECT("return 1.5f * 2", "3.0");
    EXPECT("return 0.1 + 0.2", "0.30000000000000004");
    EXPECT("return 1e3", "1000.0");
    EXPECT("return -2147483648", "-2147483648");
    EXPECT("return 5 & 3 | 8 ^ 1", "9");
    EXPECT("return -8 >> 1", "-4");
    EXPECT("return -8 >>> 28", "15");
    EXPECT("return ~5", "-6");
    EXPECT("return 10 > 3 && 2 <= 2", "true");
    EXPECT("return !(1 == 1L)", "false");
    EXPECT("return 1 == 1.0", "true");
    EXPECT("return 'a' + 1 + 2", "\"a12\"");
    EXPECT("return 1 + 2 + 'a'", "\"3a\"");
    EXPECT("return 'x' + 1.0 + null + true", "\"x1.0nulltrue\"");
    EXPECT("return \"it's\" + 'say \"hi\"'", "\"it'ssay \\\"hi\\\"\"");
    EXPECT("return 'a\\\\b'", "\"a\\\\b\"");
    EXPECT("return 1.0E20 + ''", "\"1.0E20\"");
    EXPECT("return 3 > 2 ? 'yes' : 'no'", "\"yes\"");
    EXPECT("def x = null; return x ?: 'dflt'", "\"dflt\"");
    EXPECT("def x = null; return x?.length()", "null");
    EXPECT("return 'ab' == 'a' + 'b'", "true");
    EXPECT("return 'ab' === 'ab'", "true");
}

static void test_locals_and_casts(void **state) {
    (void)state;
    EXPECT("int x = 5; x += 2.7; return x", "7"); /* compound assignment narrows */
    EXPECT("def x = 5; x += 2.5; return x", "7.5");
    EXPECT("long l = 3; return l * 1000000000", "3000000000");
    EXPECT("double d = 1; return d", "1.0");
    EXPECT("return (int) 3.99", "3");
    EXPECT("return (int) -3.99", "-3");
    EXPECT("return (long) 1e30", "9223372036854775807");
    EXPECT("return (int) 4294967297L", "1");
    EXPECT("return (byte) 200", "-56");
    EXPECT("return (double) 1 / 4", "0.25");
    EXPECT("return (char) 65 + ''", "\"A\"");
    EXPECT("int i = 0; i++; ++i; i--; return i", "1");
    EXPECT("int a = 1, b = 2; return a + b", "3");
    EXPECT("def x = 'str'; return x instanceof String", "true");
    EXPECT("def x = 1; return x instanceof Long", "false");
    EXPECT("def l = [1]; return l instanceof List && l instanceof ArrayList", "true");
    EXPECT("String s; return s", "null");
    EXPECT("int n; return n", "0");
}

static void test_control_flow(void **state) {
    (void)state;
    EXPECT("int s = 0; for (int i = 0; i < 10; i++) { if (i % 2 == 0) continue; s += i; } return s", "25");
    EXPECT("int s = 0; int i = 0; while (true) { if (++i > 5) break; s += i } return s", "15");
    EXPECT("int i = 0; do { i += 3 } while (i < 10); return i", "12");
    EXPECT("def t = 0; for (def x : [1, 2, 3]) { t += x } return t", "6");
    EXPECT("def t = ''; for (x in ['a', 'b']) { t += x } return t", "\"ab\"");
    EXPECT("int t = 0; for (int x : [1, 2, 3]) t += x; return t", "6");
    EXPECT("if (false) { return 1 } else if (true) { return 2 } else { return 3 }", "2");
    EXPECT("def m = ['a': 1, 'b': 2]; int t = 0; for (def e : m.entrySet()) { t += e.value } return t", "3");
    EXPECT("for (int i = 0, j = 10; i < j; i++, j--) {} return 1", "1");
}

static void test_lists_maps_strings(void **state) {
    (void)state;
    EXPECT("def l = [3, 1, 2]; l.add(4); l.sort(null); return l", "[1,2,3,4]");
    EXPECT("def l = new ArrayList(); l.add('a'); l.add(0, 'b'); return l", "[\"b\",\"a\"]");
    EXPECT("def l = [1, 2, 3]; l.remove(0); return l.size() + ':' + l", "\"2:[2, 3]\"");
    EXPECT("def l = ['x', 'y']; return l.contains('y') && l.indexOf('y') == 1 && !l.isEmpty()", "true");
    EXPECT("def l = [1, 2]; l[0] = 5; return l[-1] + l[0]", "7");
    EXPECT("def l = [1, 2]; l.addAll([3]); l.set(0, 9); return l", "[9,2,3]");
    EXPECT("def m = [:]; m.put('k', 1); m['j'] = 2; m.x = 3; return m.k + m.j + m['x'] + m.size()", "9");
    EXPECT("def m = ['a': 1]; return m.getOrDefault('b', 7) + (m.containsKey('a') ? 1 : 0)", "8");
    EXPECT("def m = ['a': 1, 'b': 2]; m.remove('a'); return m.keySet()", "[\"b\"]");
    /* a HashMap prints in HashMap order; ctx._source (ordered) in insertion order */
    EXPECT("return ['b': 1, 'a': 2]", "{\"a\":2,\"b\":1}");
    EXPECT("return ['zz': 1, 'a': 2, 'b': 3]", "{\"zz\":1,\"a\":2,\"b\":3}"); /* "zz" hashes to bucket 0 */
    EXPECT("return 'Hello'.length() + 'Hello'.substring(1, 3) + 'Hello'.indexOf('l')", "\"5el2\"");
    EXPECT("return ' a b '.trim().toUpperCase().replace(' ', '-')", "\"A-B\"");
    EXPECT("return 'abc'.startsWith('ab') && 'abc'.endsWith('c') && 'abc'.contains('b')", "true");
    EXPECT("return 'a,b,,'.split(',')", "[\"a\",\"b\"]");
    EXPECT("return 'a,b,,'.splitOnToken(',')", "[\"a\",\"b\",\"\",\"\"]");
    EXPECT("def a = 'x:y'.split(':'); return a.length + a[1]", "\"2y\"");
    EXPECT("return 'abc'.charAt(1) == (char) 'b'", "true");
    EXPECT("return 'héllo'.length() + 'héllo'.substring(1, 2)", "\"5é\"");
    EXPECT("return [1, [2, 'x'], ['k': null]] + ''", "\"[1, [2, x], {k=null}]\"");
    EXPECT("return String.join('-', ['a', 'b'])", "\"a-b\"");
    EXPECT("return 'a'.hashCode() + 'ab'.equals('ab').toString()", "\"97true\"");
}

static void test_statics(void **state) {
    (void)state;
    EXPECT("return Math.max(3, 7L) + Math.min(2.5, 1)", "8.0");
    EXPECT("return Math.abs(-4) + Math.pow(2, 10) + Math.sqrt(16)", "1032.0");
    EXPECT("return Math.round(2.5) + Math.round(-2.5) + Math.floor(1.7) + Math.ceil(1.2)", "4.0");
    EXPECT("return Integer.parseInt('-42') + Long.parseLong('10000000000')", "9999999958");
    EXPECT("return Double.parseDouble('1.5e2')", "150.0");
    EXPECT("return String.valueOf(12) + Integer.MAX_VALUE", "\"122147483647\"");
    EXPECT("return Math.PI > 3.14", "true");
    EXPECT("def l = [3, 1]; Collections.sort(l); return l", "[1,3]");
}

static void test_ctx_and_params(void **state) {
    (void)state;
    assert_string_equal(run_ctx("ctx._source.user = 'not' + ctx._source.user", NULL, "{\"_source\":{\"user\":\"kim\",\"n\":1}}"),
                        "null ctx={\"_source\":{\"user\":\"notkim\",\"n\":1}}");
    assert_string_equal(run_ctx("ctx._source.count += params.inc; ctx._source.tags.add(params.tag)",
                                "{\"inc\":4,\"tag\":\"t2\"}", "{\"_source\":{\"count\":1,\"tags\":[\"t1\"]}}"),
                        "null ctx={\"_source\":{\"count\":5,\"tags\":[\"t1\",\"t2\"]}}");
    assert_string_equal(run_ctx("ctx._source.remove('a'); ctx._source.z = [:]; ctx.op = 'noop'", NULL,
                                "{\"_source\":{\"a\":1,\"b\":2.5}}"),
                        "null ctx={\"_source\":{\"b\":2.5,\"z\":{}},\"op\":\"noop\"}");
    assert_string_equal(run_ctx("return params['x'] * 2", "{\"x\":21}", NULL), "42");
    assert_string_equal(run_ctx("return params.missing", "{}", NULL), "null");
}

static void test_compile_errors(void **state) {
    (void)state;
    EXPECT("return x", "ERR compile illegal_argument_exception: cannot resolve symbol [x]");
    EXPECT("syntax errors are fun!",
           "ERR compile illegal_argument_exception: invalid sequence of tokens near [errors].");
    EXPECT("return 1 +", "ERR compile illegal_argument_exception: unexpected end of script.");
    EXPECT("int x = 1; int x = 2", "ERR compile illegal_argument_exception: variable [x] is already defined in the scope");
    EXPECT("return 2147483648", "ERR compile illegal_argument_exception: Invalid int constant [2147483648].");
    EXPECT("1 + 1; return 2", "ERR compile illegal_argument_exception: not a statement: result not used");
    EXPECT("def f = x -> x", "ERR compile unsupported_operation_exception: trove does not support lambdas in Painless scripts");
    EXPECT("return 'a' =~ /a/",
           "ERR compile unsupported_operation_exception: trove does not support regexes in Painless scripts");
    EXPECT("int[] a = new int[2]", "ERR compile unsupported_operation_exception: trove does not support arrays in Painless scripts");
    EXPECT("break", "ERR compile illegal_argument_exception: invalid break statement: not inside a loop");
    EXPECT("return \"a\\n\"", "ERR compile illegal_argument_exception: unexpected character [\\].");
    tv_script_error err;
    assert_null(tv_script_compile("return ctx", 10, 0, &err)); /* a context without ctx */
    assert_string_equal(err.cause_reason, "cannot resolve symbol [ctx]");
    assert_int_equal(err.cause, TROVE_EARG);
    assert_int_equal(err.code, TROVE_ESCRIPT);
}

static void test_runtime_errors(void **state) {
    (void)state;
    EXPECT("return 1 / 0", "ERR runtime arithmetic_exception: / by zero");
    EXPECT("return 1L % 0L", "ERR runtime arithmetic_exception: / by zero");
    EXPECT("return 1.0 / 0", "\"Infinity\"");
    EXPECT("def x = null; return x.foo",
           "ERR runtime null_pointer_exception: Cannot invoke \"Object.getClass()\" because \"callArgs[0]\" is null");
    EXPECT("def l = [1]; return l[3]", "ERR runtime index_out_of_bounds_exception: Index 3 out of bounds for length 1");
    EXPECT("def l = [1]; return l.get(-1)", "ERR runtime index_out_of_bounds_exception: Index -1 out of bounds for length 1");
    EXPECT("return 'abc'.substring(2, 5)", "ERR runtime string_index_out_of_bounds_exception: begin 2, end 5, length 3");
    EXPECT("def s = 'a'; return s * 2",
           "ERR runtime class_cast_exception: Cannot apply [*] operation to types [java.lang.String] and [java.lang.Integer].");
    EXPECT("int x = 1L", "ERR runtime class_cast_exception: cannot implicitly cast def [long] to int");
    EXPECT("def l = []; return l.foo()", "ERR runtime illegal_argument_exception: dynamic method [java.util.ArrayList, foo/0] not found");
    EXPECT("return Integer.parseInt('x1')", "ERR runtime number_format_exception: For input string: \"x1\"");
    EXPECT("while (true) {}",
           "ERR runtime painless_error: The maximum number of statements that can be executed in a loop has been reached.");
    EXPECT("int i = 0; for (;;) { i++ }",
           "ERR runtime painless_error: The maximum number of statements that can be executed in a loop has been reached.");
    EXPECT("def s = ''; while (true) { s += 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' }",
           "ERR runtime illegal_argument_exception: the script took more than [67108864] bytes of memory");
    EXPECT("def l = [1, 2, 3]; for (def x : l) { l.add(x) }", "ERR runtime concurrent_modification_exception: ");
}

static void test_error_stack(void **state) {
    (void)state;
    tv_script_error err;
    const char *src = "int a = 1;\nreturn a / 0;";
    tv_script *s = tv_script_compile(src, strlen(src), 0, &err);
    assert_non_null(s);
    tv_arena a;
    tv_arena_init(&a);
    tv_script_env env;
    memset(&env, 0, sizeof env);
    env.arena = &a;
    tv_sv res;
    assert_int_equal(tv_script_run(s, &env, &res, &err), TROVE_ESCRIPT);
    assert_false(err.compile);
    assert_string_equal(err.stack[0], "return a / 0;");
    assert_string_equal(err.stack[1], "       ^---- HERE"); /* a binary expression is located at its start */
    assert_int_equal(err.offset, 18);
    assert_int_equal(err.start, 11);
    assert_int_equal(err.end, 24);
    tv_script_release(s);
    tv_arena_fini(&a);

    const char *bad = "ctx._source.user = \"not\" + ctx._source.user + ) + more text after this";
    s = tv_script_compile(bad, strlen(bad), TV_SCRIPT_G_CTX, &err);
    assert_null(s);
    assert_true(err.compile);
    assert_int_equal(err.offset, 46);
    assert_string_equal(err.stack[0], "... ot\" + ctx._source.user + ) + more text after this");
    assert_string_equal(err.stack[1], "                             ^---- HERE");
}

static void test_cache(void **state) {
    (void)state;
    tv_script_error err;
    tv_script *a = tv_script_get("return 1", 8, 0, &err);
    tv_script *b = tv_script_get("return 1", 8, 0, &err);
    tv_script *c = tv_script_get("return 1", 8, TV_SCRIPT_G_CTX, &err);
    assert_ptr_equal(a, b);
    assert_ptr_not_equal(a, c);
    tv_script_release(a);
    tv_script_release(b);
    tv_script_release(c);
    char big[TV_SCRIPT_MAX_SIZE + 2];
    memset(big, ' ', sizeof big);
    assert_null(tv_script_compile(big, sizeof big, 0, &err));
    assert_int_equal(err.code, TROVE_EARG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literals_and_arithmetic),
        cmocka_unit_test(test_locals_and_casts),
        cmocka_unit_test(test_control_flow),
        cmocka_unit_test(test_lists_maps_strings),
        cmocka_unit_test(test_statics),
        cmocka_unit_test(test_ctx_and_params),
        cmocka_unit_test(test_compile_errors),
        cmocka_unit_test(test_runtime_errors),
        cmocka_unit_test(test_error_stack),
        cmocka_unit_test(test_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
