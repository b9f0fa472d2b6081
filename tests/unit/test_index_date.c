/* test_index_date.c — date formats, printing and date math. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "index/date.h"

static int64_t P(const char *fmt, const char *s) {
    int64_t ms = 0;
    tv_error err = TV_ERROR_INIT;
    if (tv_date_parse(fmt, s, strlen(s), &ms, &err)) fail_msg("parse %s: %s", s, err.reason);
    return ms;
}

static void bad(const char *fmt, const char *s) {
    int64_t ms;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_date_parse(fmt, s, strlen(s), &ms, &err), TROVE_EARG);
    char want[512];
    snprintf(want, sizeof want, "failed to parse date field [%s] with format [%s]", s,
             fmt ? fmt : TV_DATE_DEFAULT_FORMAT);
    assert_string_equal(err.reason, want);
    assert_int_equal(err.cause_code, TROVE_EDATEPARSE);
}

static const char *F(int64_t ms, const char *fmt) {
    static char buf[128];
    tv_date_format(ms, fmt, buf, sizeof buf);
    return buf;
}

static int64_t MATH(const char *e, bool up) {
    int64_t ms = 0;
    tv_error err = TV_ERROR_INIT;
    /* now = 2020-09-13T12:26:40.123Z */
    tv_error_clear(&err);
    if (tv_date_math(NULL, e, strlen(e), 1600000000123LL, up, &ms, &err)) fail_msg("%s: %s", e, err.reason);
    return ms;
}

static void test_parse_builtin(void **state) {
    (void)state;
    assert_true(P(NULL, "2020-01-02T03:04:05.678Z") == 1577934245678LL);
    assert_true(P(NULL, "2020-01-02") == 1577923200000LL);
    assert_true(P(NULL, "2020") == 1577836800000LL);
    assert_true(P(NULL, "2020-01-02T03:04:05+01:00") == 1577930645000LL);
    assert_true(P(NULL, "2020-01-02T03:04:05.123456789-0130") == 1577939645123LL);
    assert_true(P(NULL, "1577836800000") == 1577836800000LL);
    assert_true(P(NULL, "-1000") == -1000);
    assert_true(P(NULL, "1969-12-31T23:59:59.999Z") == -1);
    assert_true(P(NULL, "2000-02-29") == 951782400000LL);
    bad(NULL, "2020-02-30");
    bad(NULL, "2019-02-29");
    bad(NULL, "2020-1-2");
    bad(NULL, "abc");
    bad(NULL, "");
    bad(NULL, "2020-01-02T25:00");
    assert_true(P("date_optional_time", "2020-1-2T3:4") == 1577934240000LL);
    assert_true(P("basic_date", "20200102") == 1577923200000LL);
    assert_true(P("strict_date_time", "2020-01-02T03:04:05.1Z") == 1577934245100LL);
    bad("strict_date_time", "2020-01-02T03:04:05Z");
    assert_true(P("epoch_second", "1577836800.5") == 1577836800500LL);
    assert_true(P("epoch_second", "1577836800") == 1577836800000LL);
    assert_true(P("strict_date_hour_minute_second", "2020-01-02T03:04:05") == 1577934245000LL);
    assert_true(P("strict_year_month", "2020-02") == 1580515200000LL);
}

static void test_parse_patterns(void **state) {
    (void)state;
    assert_true(P("yyyy-MM-dd HH:mm:ss", "2020-01-02 03:04:05") == 1577934245000LL);
    assert_true(P("yyyy/MM/dd HH:mm:ss Z||yyyy/MM/dd Z", "2020/01/02 +0100") == 1577919600000LL);
    assert_true(P("yyyy/MM/dd HH:mm:ss Z||yyyy/MM/dd Z", "2020/01/02 03:04:05 -0500") == 1577952245000LL);
    assert_true(P("dd MMM yyyy", "02 Feb 2021") == 1612224000000LL);
    assert_true(P("dd.MM.yyyy'T'HH", "02.01.2020T03") == 1577934000000LL);
    assert_true(P("yyyyMMddHHmmss", "20200102030405") == 1577934245000LL);
    assert_true(P("MM/dd/yyyy hh:mm a", "01/02/2020 03:04 PM") == 1577977440000LL);
    /* custom patterns resolve "smartly": the day clamps to the month */
    assert_true(P("yyyy-MM-dd", "2021-02-30") == 1614470400000LL);
    bad("yyyy-MM-dd", "2021-13-01");
    bad("yyyy-MM-dd", "2021-01-01x");
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_date_format_check("yyyy-tt", &err), TROVE_EARG);
    assert_string_equal(err.reason, "Invalid format: [yyyy-tt]: Unknown pattern letter: t");
    tv_error_clear(&err);
    assert_int_equal(tv_date_format_check("yyyy-ww", &err), TROVE_EUNSUPPORTED);
    tv_error_clear(&err);
    assert_int_equal(tv_date_format_check("strict_date_optional_time||epoch_millis", &err), TROVE_OK);
    tv_error_clear(&err);
    assert_int_equal(tv_date_format_check("yyyy-MM-dd'T'HH:mm:ss.SSSZ", &err), TROVE_OK);
}

static void test_format(void **state) {
    (void)state;
    assert_string_equal(F(1577934245678LL, NULL), "2020-01-02T03:04:05.678Z");
    assert_string_equal(F(0, NULL), "1970-01-01T00:00:00.000Z");
    assert_string_equal(F(-1, NULL), "1969-12-31T23:59:59.999Z");
    assert_string_equal(F(1577934245678LL, "epoch_millis"), "1577934245678");
    assert_string_equal(F(1577934245678LL, "epoch_second"), "1577934245.678");
    assert_string_equal(F(1577934245000LL, "epoch_second"), "1577934245");
    assert_string_equal(F(1577934245678LL, "strict_date"), "2020-01-02");
    assert_string_equal(F(1577934245678LL, "yyyy/MM/dd HH:mm:ss||epoch_millis"), "2020/01/02 03:04:05");
    assert_string_equal(F(1577934245678LL, "dd MMM yyyy, EEE"), "02 Jan 2020, Thu");
    assert_string_equal(F(1577934245678LL, "basic_date_time"), "20200102T030405.678Z");
    char small[5];
    assert_int_equal(tv_date_format(1577934245678LL, NULL, small, sizeof small), 24);
    assert_string_equal(small, "2020");
}

static void test_math(void **state) {
    (void)state;
    assert_string_equal(F(MATH("now", false), NULL), "2020-09-13T12:26:40.123Z");
    assert_string_equal(F(MATH("now-1d/d", false), NULL), "2020-09-12T00:00:00.000Z");
    assert_string_equal(F(MATH("now-1d/d", true), NULL), "2020-09-12T23:59:59.999Z");
    assert_string_equal(F(MATH("now/w", false), NULL), "2020-09-07T00:00:00.000Z");
    assert_string_equal(F(MATH("now+1h+30m", false), NULL), "2020-09-13T13:56:40.123Z");
    assert_string_equal(F(MATH("now/M", true), NULL), "2020-09-30T23:59:59.999Z");
    assert_string_equal(F(MATH("now-1y/y", false), NULL), "2019-01-01T00:00:00.000Z");
    assert_string_equal(F(MATH("2020-01-01||+1M/d", false), NULL), "2020-02-01T00:00:00.000Z");
    assert_string_equal(F(MATH("2020-01-31||+1M", false), NULL), "2020-02-29T00:00:00.000Z");
    assert_string_equal(F(MATH("2020-01-01||/M", true), NULL), "2020-01-31T23:59:59.999Z");
    /* a date without math: round_up fills missing fields with their maximum */
    assert_string_equal(F(MATH("2020-01", true), NULL), "2020-01-31T23:59:59.999Z");
    assert_string_equal(F(MATH("2020-01-02", true), NULL), "2020-01-02T23:59:59.999Z");
    assert_string_equal(F(MATH("2020-01-02", false), NULL), "2020-01-02T00:00:00.000Z");
    int64_t ms;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_date_math(NULL, "now+1x", 6, 0, false, &ms, &err), TROVE_EARG);
    assert_string_equal(err.reason, "unit [x] not supported for date math [now+1x]");
    tv_error_clear(&err);
    assert_int_equal(tv_date_math(NULL, "now*1d", 6, 0, false, &ms, &err), TROVE_EARG);
    assert_string_equal(err.reason, "operator not supported for date math [now*1d]");
    tv_error_clear(&err);
    assert_int_equal(tv_date_math(NULL, "now-", 4, 0, false, &ms, &err), TROVE_EARG);
    assert_string_equal(err.reason, "truncated date math [now-]");
    tv_error_clear(&err);
    assert_int_equal(tv_date_math(NULL, "now/2d", 6, 0, false, &ms, &err), TROVE_EARG);
    tv_error_clear(&err);
    assert_int_equal(tv_date_math(NULL, "nope||+1d", 9, 0, false, &ms, &err), TROVE_EARG);
    /* time zones */
    int32_t off;
    tv_error_clear(&err);
    assert_int_equal(tv_date_parse_tz("+01:00", 6, &off, &err), TROVE_OK);
    assert_int_equal(off, 3600);
    tv_error_clear(&err);
    assert_int_equal(tv_date_parse_tz("-0530", 5, &off, &err), TROVE_OK);
    assert_int_equal(off, -19800);
    tv_error_clear(&err);
    assert_int_equal(tv_date_parse_tz("UTC", 3, &off, &err), TROVE_OK);
    assert_int_equal(off, 0);
    tv_error_clear(&err);
    assert_int_equal(tv_date_parse_tz("Europe/Paris", 12, &off, &err), TROVE_EUNSUPPORTED);
    tv_error_clear(&err);
    assert_int_equal(tv_date_math_ex(NULL, "2020-01-02||/d", 14, 0, false, 3600, &ms, &err), TROVE_OK);
    assert_string_equal(F(ms, NULL), "2020-01-01T23:00:00.000Z");
}

static void test_calendar(void **state) {
    (void)state;
    for (int64_t d = -800000; d < 800000; d += 97) {
        int64_t y;
        unsigned m, dd;
        tv_civil_from_days(d, &y, &m, &dd);
        assert_true(tv_days_from_civil(y, m, dd) == d);
    }
    assert_true(tv_days_from_civil(1970, 1, 1) == 0);
    assert_true(tv_days_from_civil(2000, 3, 1) == 11017);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_builtin), cmocka_unit_test(test_parse_patterns),
        cmocka_unit_test(test_format),        cmocka_unit_test(test_math),
        cmocka_unit_test(test_calendar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
