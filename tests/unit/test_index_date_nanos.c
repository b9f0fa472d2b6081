/* test_index_date_nanos.c — nanosecond dates (date_nanos fields): parsing
 * with the nanos formats and epoch_millis fractions, the 1970..2262 range
 * with OpenSearch's messages, printing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "index/date.h"

static int64_t ns(const char *fmt, const char *s) {
    int64_t v = 0;
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_date_parse_nanos(fmt, s, strlen(s), &v, &err);
    if (st) fail_msg("%s: %s", s, err.reason);
    return v;
}

static void test_parse(void **state) {
    (void)state;
    assert_true(ns(NULL, "2018-10-29T12:12:12.123456789Z") == 1540815132123456789LL);
    assert_true(ns(NULL, "2018-10-29T12:12:12.987654Z") == 1540815132987654000LL);
    assert_true(ns(NULL, "2018-10-29") == 1540771200000000000LL);
    assert_true(ns(NULL, "1540815132123") == 1540815132123000000LL);
    assert_true(ns(NULL, "1540815132123.456789") == 1540815132123456789LL);
    assert_true(ns("epoch_second", "1540815132.5") == 1540815132500000000LL);
    assert_true(ns("strict_date_optional_time", "1970-01-01T00:00:00Z") == 0);
    assert_true(ns(NULL, "2262-04-11T23:47:16.854775807Z") == INT64_MAX);
    int64_t v;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_date_parse_nanos(NULL, "1969-12-31T23:59:59.5Z", 22, &v, &err), TROVE_EARG);
    assert_string_equal(err.reason, "date[1969-12-31T23:59:59.500Z] is before the epoch in 1970 and "
                                    "cannot be stored in nanosecond resolution");
    tv_error_clear(&err);
    assert_int_equal(tv_date_parse_nanos(NULL, "2262-04-11T23:47:16.854775808Z", 30, &v, &err),
                     TROVE_EARG);
    assert_string_equal(err.reason, "date[2262-04-11T23:47:16.854775808Z] is after "
                                    "2262-04-11T23:47:16.854775807 and cannot be stored in "
                                    "nanosecond resolution");
    tv_error_clear(&err);
    assert_int_equal(tv_date_parse_nanos(NULL, "nope", 4, &v, &err), TROVE_EARG);
    assert_string_equal(err.reason, "failed to parse date field [nope] with format "
                                    "[strict_date_optional_time_nanos||epoch_millis]");
    /* round_up fills the missing fraction to the last nanosecond */
    tv_error_clear(&err);
    assert_int_equal(tv_date_parse_ex_nanos(NULL, "2018-10-29T12:12:12Z", 20, true, 0, &v, &err),
                     TROVE_OK);
    assert_true(v == 1540815132999999999LL);
    /* the millisecond parser is unchanged by the nanos path */
    int64_t ms;
    tv_error_clear(&err);
    assert_int_equal(tv_date_parse(NULL, "2018-10-29T12:12:12.123456789Z", 30, &ms, &err), TROVE_OK);
    assert_true(ms == 1540815132123LL);
}

static void test_format(void **state) {
    (void)state;
    char out[64];
    tv_date_format_nanos(1540815132123456789LL, NULL, out, sizeof out);
    assert_string_equal(out, "2018-10-29T12:12:12.123456789Z");
    tv_date_format_nanos(1540815132120000000LL, NULL, out, sizeof out);
    assert_string_equal(out, "2018-10-29T12:12:12.120Z");
    tv_date_format_nanos(1540815132123456000LL, NULL, out, sizeof out);
    assert_string_equal(out, "2018-10-29T12:12:12.123456Z");
    tv_date_format_nanos(1540815132123456789LL, "epoch_millis", out, sizeof out);
    assert_string_equal(out, "1540815132123.456789");
    tv_date_format_nanos(1540815132123000000LL, "epoch_millis", out, sizeof out);
    assert_string_equal(out, "1540815132123");
    tv_date_format_nanos(1540815132123456789LL, "strict_date_optional_time", out, sizeof out);
    assert_string_equal(out, "2018-10-29T12:12:12.123Z");
    tv_date_format_nanos(1540815132123456789LL, "yyyy-MM-dd HH:mm:ss.SSSSSS", out, sizeof out);
    assert_string_equal(out, "2018-10-29 12:12:12.123456");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
