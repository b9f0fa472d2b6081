/* test_text_wordbreak.c — every case of the UCD's WordBreakTest.txt through
 * tv_wb_next(), plus UTF-8 decoding edge cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "text/text.h"

#define WORDBREAK_TEST "/usr/share/unicode/auxiliary/WordBreakTest.txt"

static void test_wordbreak_file(void **state) {
    (void)state;
    FILE *f = fopen(WORDBREAK_TEST, "r");
    assert_non_null(f); /* Debian package unicode-data */
    char line[4096];
    int cases = 0, failures = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || *p == '\n') continue;
        uint8_t text[1024];
        size_t len = 0;
        size_t expect[256], nexpect = 0;
        /* tokens: "÷" (C3 B7), "×" (C3 97), hex code points */
        while (*p) {
            if (*p == ' ' || *p == '\t' || *p == '\n') {
                p++;
            } else if ((uint8_t)p[0] == 0xC3 && (uint8_t)p[1] == 0xB7) {
                if (len > 0) expect[nexpect++] = len;
                p += 2;
            } else if ((uint8_t)p[0] == 0xC3 && (uint8_t)p[1] == 0x97) {
                p += 2;
            } else {
                char *e;
                unsigned long cp = strtoul(p, &e, 16);
                assert_true(e != p);
                p = e;
                len += tv_utf8_encode((uint32_t)cp, text + len);
            }
        }
        cases++;
        size_t got[256], ngot = 0, pos = 0;
        while (pos < len) {
            size_t next = tv_wb_next((const char *)text, len, pos);
            assert_true(next > pos && next <= len);
            got[ngot++] = next;
            pos = next;
        }
        bool ok = ngot == nexpect;
        for (size_t i = 0; ok && i < ngot; i++) ok = got[i] == expect[i];
        if (!ok) {
            if (failures < 20) fprintf(stderr, "WordBreakTest.txt:%d fails\n", lineno);
            failures++;
        }
    }
    fclose(f);
    fprintf(stderr, "%d WordBreakTest cases, %d failures\n", cases, failures);
    assert_true(cases > 1000);
    assert_int_equal(failures, 0);
}

static void test_utf8_decode(void **state) {
    (void)state;
    uint32_t cp;
    const uint8_t over[] = {0xC0, 0x80};
    assert_int_equal(tv_utf8_decode(over, over + 2, &cp), 1);
    assert_int_equal(cp, 0xFFFD);
    const uint8_t sur[] = {0xED, 0xA0, 0x80};
    assert_int_equal(tv_utf8_decode(sur, sur + 3, &cp), 1);
    assert_int_equal(cp, 0xFFFD);
    const uint8_t trunc[] = {0xE2, 0x82};
    assert_int_equal(tv_utf8_decode(trunc, trunc + 2, &cp), 1);
    const uint8_t euro[] = {0xE2, 0x82, 0xAC};
    assert_int_equal(tv_utf8_decode(euro, euro + 3, &cp), 3);
    assert_int_equal(cp, 0x20AC);
    const uint8_t big[] = {0xF4, 0x90, 0x80, 0x80};
    assert_int_equal(tv_utf8_decode(big, big + 4, &cp), 1);
    const uint8_t emoji[] = {0xF0, 0x9F, 0x98, 0x80};
    assert_int_equal(tv_utf8_decode(emoji, emoji + 4, &cp), 4);
    assert_int_equal(cp, 0x1F600);
    uint8_t out[4];
    assert_int_equal(tv_utf8_encode(0x1F600, out), 4);
    assert_memory_equal(out, emoji, 4);
    assert_true(tv_utf8_valid("h\xC3\xA9llo", 6));
    assert_false(tv_utf8_valid("h\xC3", 2));
    assert_int_equal(tv_utf16_len("a\xF0\x9F\x98\x80\xC3\xA9", 7), 4);
}

static void test_case_mapping(void **state) {
    (void)state;
    tv_buf b;
    tv_buf_init(&b);
    tv_utf8_lower("\xC4\xB0STANBUL \xCE\xA3\xCE\x91\xCE\xA3", 16, &b); /* İSTANBUL ΣΑΣ */
    assert_string_equal(b.data, "istanbul \xCF\x83\xCE\xB1\xCF\x83"); /* σασ: no final sigma */
    tv_buf_clear(&b);
    tv_utf8_upper("stra\xC3\x9F" "e \xC7\x86", 10, &b); /* straße ǆ */
    assert_string_equal(b.data, "STRA\xC3\x9F" "E \xC7\x84"); /* ß stays, ǆ -> Ǆ */
    tv_buf_fini(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wordbreak_file),
        cmocka_unit_test(test_utf8_decode),
        cmocka_unit_test(test_case_mapping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
