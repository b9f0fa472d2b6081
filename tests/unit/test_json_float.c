/* test_json_float.c — tv_fmt_double / tv_fmt_float against the reference:
 * the writer's former implementation (a binary search over the digit count
 * with printf("%.*e") candidates checked by strtod / strtof, exact but slow),
 * kept verbatim below as ref_fmt. The writer now has an exact integer fast
 * path; every number it prints must be byte for byte the reference's.
 *
 * Values: every exponent of both formats with fixed and random significands,
 * powers of two (the irregular intervals), neighbours of powers of ten,
 * subnormals, integers, short decimals as a parser produces them, floats
 * computed the way BM25 scores are, and uniformly random bit patterns.
 * TROVE_FLOAT_CHECKS=N sets the number of random values of each kind
 * (default 100,000; millions take minutes, since the reference costs
 * ~20,000 instructions a number). Java's exact expected strings are checked
 * by test_json_writer.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"

/* ------------------------------------------------ the reference (former code) */

/* Writes the candidate decimal digits[0..n) x 10^(e-n+1) as text for strtod. */
static void cand_text(char *buf, const char *digits, int n, int e) {
    memcpy(buf, digits, (size_t)n);
    snprintf(buf + n, 16, "e%d", e - n + 1);
}

static bool roundtrips(const char *text, double v, bool is_float, int *cmp) {
    if (is_float) {
        float f = strtof(text, NULL);
        *cmp = f < (float)v ? -1 : f > (float)v ? 1 : 0;
    } else {
        double d = strtod(text, NULL);
        *cmp = d < v ? -1 : d > v ? 1 : 0;
    }
    return *cmp == 0;
}

/* Adds delta (+1 or -1) to the n-digit integer in digits; handles carry and
 * borrow by moving the exponent. Returns the new digit count. */
static int step_digits(char *digits, int n, int *e, int delta) {
    if (delta > 0) {
        int i = n - 1;
        while (i >= 0 && digits[i] == '9') digits[i--] = '0';
        if (i < 0) {
            digits[0] = '1';
            for (int k = 1; k < n; k++) digits[k] = '0';
            (*e)++;
        } else {
            digits[i]++;
        }
    } else {
        int i = n - 1;
        while (i >= 0 && digits[i] == '0') digits[i--] = '9';
        digits[i]--; /* digits[0] != '0' for a normalised candidate */
        if (digits[0] == '0') {
            /* 1000 - 1 = 0999: renormalise to 999 with one more 9 */
            memmove(digits, digits + 1, (size_t)n - 1);
            digits[n - 1] = '9';
            (*e)--;
        }
    }
    return n;
}

/*
 * Looks for an n-digit decimal that rounds to v (v > 0, finite). On success
 * writes its digits (n of them) and decimal exponent and returns true.
 */
static bool try_len(double v, bool is_float, int n, char *digits, int *e) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*e", n - 1, v);
    /* buf is d[.ddd]e[+-]xx */
    int k = 0;
    for (const char *s = buf; *s && *s != 'e'; s++)
        if (*s != '.') digits[k++] = *s;
    const char *ep = strchr(buf, 'e');
    *e = atoi(ep + 1);
    char text[64];
    cand_text(text, digits, n, *e);
    int cmp;
    if (roundtrips(text, v, is_float, &cmp)) return true;
    /* the nearest n-digit decimal on the other side of v */
    step_digits(digits, n, e, cmp < 0 ? 1 : -1);
    cand_text(text, digits, n, *e);
    int cmp2;
    return roundtrips(text, v, is_float, &cmp2);
}

/* Java's shortest digits of v > 0: returns the digit count, without trailing
 * zeros (at least one digit). */
static int ref_shortest(double v, bool is_float, char *digits, int *e) {
    int lo = 1, hi = is_float ? 9 : 17;
    char dg[24];
    int de = 0;
    /* hi always succeeds */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (try_len(v, is_float, mid, dg, &de)) hi = mid;
        else lo = mid + 1;
    }
    int n = lo;
    if (n == 1) n = 2; /* length 1 or 2: the closest of those */
    if (!try_len(v, is_float, n, digits, e)) {
        /* cannot happen for n >= the minimal length; be safe */
        try_len(v, is_float, is_float ? 9 : 17, digits, e);
        n = is_float ? 9 : 17;
    }
    while (n > 1 && digits[n - 1] == '0') n--;
    return n;
}

static size_t ref_fmt(double v, bool is_float, char *out) {
    char *o = out;
    if (isnan(v)) {
        memcpy(out, "NaN", 4);
        return 3;
    }
    if (signbit(v)) *o++ = '-', v = -v;
    if (isinf(v)) {
        memcpy(o, "Infinity", 9);
        return (size_t)(o - out) + 8;
    }
    if (v == 0) {
        memcpy(o, "0.0", 4);
        return (size_t)(o - out) + 3;
    }
    char d[24];
    int e;
    int n = ref_shortest(v, is_float, d, &e);
    if (e >= -3 && e < 7) {
        if (e >= 0) {
            for (int i = 0; i <= e; i++) *o++ = i < n ? d[i] : '0';
            *o++ = '.';
            if (n > e + 1) {
                memcpy(o, d + e + 1, (size_t)(n - e - 1));
                o += n - e - 1;
            } else {
                *o++ = '0';
            }
        } else {
            *o++ = '0';
            *o++ = '.';
            for (int i = 0; i < -e - 1; i++) *o++ = '0';
            memcpy(o, d, (size_t)n);
            o += n;
        }
    } else {
        *o++ = d[0];
        *o++ = '.';
        if (n > 1) {
            memcpy(o, d + 1, (size_t)n - 1);
            o += n - 1;
        } else {
            *o++ = '0';
        }
        o += sprintf(o, "E%d", e);
    }
    *o = 0;
    return (size_t)(o - out);
}


/* ------------------------------------------------------------ comparison */

static uint64_t checked, failures;

static void cmp_double(double v) {
    char got[40], want[40];
    size_t n = tv_fmt_double(v, got);
    ref_fmt(v, false, want);
    checked++;
    if (strcmp(got, want) != 0 || n != strlen(want)) {
        if (failures++ < 20) fprintf(stderr, "double %a: got %s want %s\n", v, got, want);
    }
}

static void cmp_float(float v) {
    char got[40], want[40];
    size_t n = tv_fmt_float(v, got);
    ref_fmt((double)v, true, want);
    checked++;
    if (strcmp(got, want) != 0 || n != strlen(want)) {
        if (failures++ < 20) fprintf(stderr, "float %a: got %s want %s\n", (double)v, got, want);
    }
}

static double from_bits64(uint64_t b) {
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static float from_bits32(uint32_t b) {
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* splitmix64 */
static uint64_t rng_state = 0x5EED;
static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static long nchecks(void) {
    const char *s = getenv("TROVE_FLOAT_CHECKS");
    long n = s ? strtol(s, NULL, 10) : 0;
    return n > 0 ? n : 100000;
}

static void finish(const char *what) {
    fprintf(stderr, "%s: %llu values, %llu differences\n", what, (unsigned long long)checked,
            (unsigned long long)failures);
    assert_int_equal(failures, 0);
    checked = failures = 0;
}

static void test_double_structured(void **state) {
    (void)state;
    /* every biased exponent: significands 0, 1, 2, all ones, all but one,
     * a few random; both signs for some */
    for (uint64_t e = 0; e < 2047; e++) {
        uint64_t fr[] = {0, 1, 2, 3, 0xFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFEull, 0x8000000000000ull,
                         rnd() & 0xFFFFFFFFFFFFFull, rnd() & 0xFFFFFFFFFFFFFull, rnd() & 0xFFFFFFFFFFFFFull};
        for (size_t i = 0; i < sizeof fr / sizeof fr[0]; i++) cmp_double(from_bits64(e << 52 | fr[i]));
        cmp_double(-from_bits64(e << 52 | (rnd() & 0xFFFFFFFFFFFFFull)));
    }
    /* the smallest subnormals (the probe path) and their neighbourhood */
    for (uint64_t c = 1; c < 5000; c++) cmp_double(from_bits64(c));
    /* powers of ten and their neighbours */
    for (int p = -330; p <= 310; p++) {
        char t[32];
        snprintf(t, sizeof t, "1e%d", p);
        double d = strtod(t, NULL);
        cmp_double(d);
        cmp_double(nextafter(d, 0));
        cmp_double(nextafter(d, INFINITY));
        for (int m = 2; m <= 9; m++) {
            snprintf(t, sizeof t, "%de%d", m, p);
            cmp_double(strtod(t, NULL));
        }
    }
    /* integers, and halves near 2^53 */
    for (int64_t i = 0; i < 100000; i++) cmp_double((double)i);
    for (int64_t i = -5000; i < 5000; i++) cmp_double((double)((1LL << 53) + i));
    for (int i = 0; i < 64; i++) cmp_double(ldexp(1.0, i) * 3);
    /* short decimals as a JSON parser produces them */
    for (int i = 0; i < 200000; i++) {
        char t[48];
        int digits = 1 + (int)(rnd() % 17);
        uint64_t m = rnd() % 100000000000000000ull;
        int p = (int)(rnd() % 60) - 30;
        snprintf(t, sizeof t, "%.*se%d", digits, "12345678901234567", p);
        if (i & 1) snprintf(t, sizeof t, "%llue%d", (unsigned long long)(m % (uint64_t)pow(10, digits)), p);
        cmp_double(strtod(t, NULL));
    }
    finish("double structured");
}

static void test_double_random(void **state) {
    (void)state;
    long n = nchecks();
    for (long i = 0; i < n; i++) {
        double d = from_bits64(rnd());
        if (isnan(d)) continue;
        cmp_double(d);
    }
    /* the common range of printed numbers: |v| in [1e-9, 1e17) */
    for (long i = 0; i < n; i++) {
        uint64_t b = rnd();
        uint64_t e = 1023 - 30 + (b >> 52) % 87;
        cmp_double(from_bits64(e << 52 | (b & 0xFFFFFFFFFFFFFull)));
    }
    finish("double random");
}

static void test_float_structured(void **state) {
    (void)state;
    for (uint32_t e = 0; e < 255; e++) {
        uint32_t fr[] = {0, 1, 2, 3, 0x7FFFFF, 0x7FFFFE, 0x400000, (uint32_t)rnd() & 0x7FFFFF,
                         (uint32_t)rnd() & 0x7FFFFF, (uint32_t)rnd() & 0x7FFFFF};
        for (size_t i = 0; i < sizeof fr / sizeof fr[0]; i++) cmp_float(from_bits32(e << 23 | fr[i]));
        cmp_float(-from_bits32(e << 23 | ((uint32_t)rnd() & 0x7FFFFF)));
    }
    for (uint32_t c = 1; c < 20000; c++) cmp_float(from_bits32(c));
    for (int p = -46; p <= 39; p++) {
        char t[32];
        snprintf(t, sizeof t, "1e%d", p);
        float f = strtof(t, NULL);
        cmp_float(f);
        cmp_float(nextafterf(f, 0));
        cmp_float(nextafterf(f, INFINITY));
    }
    for (int i = 0; i < 100000; i++) cmp_float((float)i);
    for (int i = 0; i < 100000; i++) cmp_float((float)i / 1000.0f);
    /* scores as BM25 computes them: idf * tf / (tf + k1 * (1 - b + b * dl / avgdl)) */
    for (int i = 0; i < 100000; i++) {
        float idf = logf(1.0f + ((float)(rnd() % 100000) + 0.5f) / ((float)(rnd() % 1000) + 1.5f));
        float tf = (float)(1 + rnd() % 20), dl = (float)(1 + rnd() % 500), avg = 195.3f;
        float boost = (i & 3) == 0 ? 2.2f : 1.0f;
        cmp_float(boost * idf * tf / (tf + 1.2f * (1 - 0.75f + 0.75f * dl / avg)));
    }
    finish("float structured");
}

static void test_float_random(void **state) {
    (void)state;
    long n = nchecks();
    for (long i = 0; i < n; i++) {
        float f = from_bits32((uint32_t)rnd());
        if (isnan(f)) continue;
        cmp_float(f);
    }
    /* scores and other small numbers: [2^-20, 2^20) */
    for (long i = 0; i < n; i++) {
        uint32_t b = (uint32_t)rnd();
        uint32_t e = 127 - 20 + (b >> 23) % 40;
        cmp_float(from_bits32(e << 23 | (b & 0x7FFFFF)));
    }
    finish("float random");
}

static void test_specials(void **state) {
    (void)state;
    char out[40];
    assert_int_equal(tv_fmt_double(NAN, out), 3);
    assert_string_equal(out, "NaN");
    assert_int_equal(tv_fmt_double(-INFINITY, out), 9);
    assert_string_equal(out, "-Infinity");
    assert_int_equal(tv_fmt_float(INFINITY, out), 8);
    assert_string_equal(out, "Infinity");
    assert_int_equal(tv_fmt_float(-0.0f, out), 4);
    assert_string_equal(out, "-0.0");
    /* ends of the rounding interval that are exactly short decimals */
    tv_fmt_double(1e23, out);
    assert_string_equal(out, "1.0E23");
    tv_fmt_double(0x1.0p-1074, out);
    assert_string_equal(out, "4.9E-324");
    tv_fmt_float(0x1.0p-149f, out);
    assert_string_equal(out, "1.4E-45");
    tv_fmt_float(0x1.fffffep127f, out);
    assert_string_equal(out, "3.4028235E38");
    tv_fmt_float(0.2876821f, out);
    assert_string_equal(out, "0.2876821");
    tv_fmt_float(1.0f, out);
    assert_string_equal(out, "1.0");
    tv_fmt_double(0x1.0p-1022, out);
    assert_string_equal(out, "2.2250738585072014E-308");
    tv_fmt_double(5e-324 * 3, out);
    assert_string_equal(out, "1.5E-323");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_specials),          cmocka_unit_test(test_double_structured),
        cmocka_unit_test(test_double_random),     cmocka_unit_test(test_float_structured),
        cmocka_unit_test(test_float_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
