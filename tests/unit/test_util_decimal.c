/* test_util_decimal.c — tv_java_decimal_format against what
 * java.text.DecimalFormat prints for the same pattern and value: digit
 * patterns, HALF_EVEN rounding, grouping, literal prefix and suffix text
 * (plain and quoted), '%', and the negative subpattern. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "util/util.h"

static void check(const char *pat, double x, const char *want) {
    char out[400];
    tv_java_decimal_format(x, pat, out, sizeof out);
    if (strcmp(out, want)) fail_msg("format(%s, %g): want [%s] got [%s]", pat, x, want, out);
}

static void test_digits(void **s) {
    (void)s;
    check("#.0", 1.25, "1.2");
    check("#.0", 0.5, ".5");
    check("0.00", 0.5, "0.50");
    check("#,##0.###", 1234567.891, "1,234,567.891");
    check("#", 0, "0");
    check("0.0", -1.5, "-1.5");
}

static void test_affixes(void **s) {
    (void)s;
    check("Value is ##0.0", 50, "Value is 50.0");
    check("'#'0", 5, "#5");
    check("0.0 units", 3, "3.0 units");
    check("'it''s' 0", 7, "it's 7");
    check("0%", 0.25, "25%");
    check("0.0;(0.0)", -1.5, "(1.5)");
    check("0.0;(0.0)", 1.5, "1.5");
    check("$0.00", -2, "-$2.00");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digits),
        cmocka_unit_test(test_affixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
