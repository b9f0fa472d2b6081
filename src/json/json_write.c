/*
 * json_write.c — the JSON writer: values printed the way OpenSearch (Jackson
 * on Java 21) prints them.
 *
 * Streaming writer. tv_jw keeps one byte per open container in `first`:
 * bit 0 is set while the container has no element yet, bit 1 marks an
 * object. Commas, the key separator and (pretty mode) white space are
 * written before each element, so callers only say what to write.
 *
 * Pretty mode is Jackson's DefaultPrettyPrinter as OpenSearch configures it
 * for `?pretty`: objects are indented with "\n" plus two spaces per open
 * object; arrays use a fixed one-space "indenter", so `[ 1, 2 ]` stays on one
 * line and does not add indentation for what it contains; keys are followed
 * by " : "; empty containers print as `{ }` and `[ ]`.
 *
 * Strings are escaped as Jackson's UTF8JsonGenerator escapes a Java String:
 * `\"`, `\\`, `\b \t \n \f \r`, other controls as `\u00XX` (upper-case hex),
 * DEL and '/' unescaped; characters outside the BMP become a pair of escaped
 * surrogates (`\uD83D\uDE00`), because Jackson 2.x writes each UTF-16 half
 * of a supplementary character as an escape unless
 * COMBINE_UNICODE_SURROGATES_IN_UTF8 is enabled, which OpenSearch does not
 * do. Invalid UTF-8 bytes become U+FFFD (Java would already hold U+FFFD
 * after decoding them).
 *
 * Doubles and floats: Java 19+ Double.toString / Float.toString (Raffaello
 * Giulietti's specification): among the decimals that round to the value,
 * take those of minimal length n (when n is 1, those of length 1 or 2), then
 * the one closest to the value (the even one on a tie). Then Java's layout:
 * plain for 1e-3 <= |v| < 1e7 ("100.0", "0.001"), computerized scientific
 * otherwise ("1.0E7", "9.99E-4"), at least one digit after the point.
 *
 * Fast path (the search Schubfach formalised, done here in exact integer
 * arithmetic): v = c 2^q; the decimals that round to v are those in
 * [(c - 1/2) 2^q, (c + 1/2) 2^q] (the lower half-gap is 1/4 when c is a
 * power of two above the smallest normal; the ends belong to the interval
 * when c is even, as round-half-even gives them to v). With k =
 * floor(log10(width of that interval)) the interval scaled by 10^-k is
 * between 1 and 10 wide, so it holds at least one integer and at most one
 * multiple of 10. Let s = floor(v 10^-k). If the multiple of 10 just below
 * or just above s is inside, it is the only decimal of the shortest length
 * (for s >= 100 also under Java's "length 1 or 2" rule, since a 2-digit
 * decimal is then a multiple of 10 too); otherwise the answer is s or s + 1,
 * whichever is inside and closer (the even one on a tie). The scaled ends
 * are computed exactly: 4c 2^q 10^-k is the product 4c 5^-k shifted right
 * by k - q when k <= 0 (5^54 fits in 126 bits) and a 128-bit quotient by 5^k
 * when k > 0, each with a flag saying whether the result is an integer,
 * which decides the ends that fall exactly on a candidate (1e23 lies exactly
 * half-way between two doubles). That covers every float from 1e-43 up and
 * the doubles from about 6e-39 to 1e46, at ~150-300 instructions per number.
 * The rest (the tiniest subnormals, where s < 100; doubles outside that
 * range; compilers without 128-bit integers) take the probe path: find n by
 * binary search (having an n-digit decimal that round-trips is monotonic in
 * n); for a length n the only candidates are the n-digit decimal nearest to
 * the value, which glibc's printf("%.*e") computes exactly, and the nearest
 * one on the other side; strtod (strtof for floats; both correctly rounded)
 * tells whether a candidate round-trips. The probe path is exact but costs
 * ~18,000 instructions per number, which made printing ten _score values a
 * quarter of a small search's instructions. tests/unit/test_json_float.c
 * checks the fast path against the probe path over millions of values.
 * Rejected: Ryu / Schubfach with their tables of 617 128-bit approximate
 * reciprocals of powers of 10, whose exactness rests on a proof about the
 * whole table; here exactness is by construction and the 28 powers of 5
 * are the only table.
 *
 * tv_jw_raw() copies a complete JSON text. Compact mode copies the bytes as
 * they are (OpenSearch writes a stored _source verbatim). Pretty mode
 * re-parses it and writes it through the writer, as Jackson's
 * copyCurrentStructure does for OpenSearch: strings are re-escaped, integers
 * printed as longs (or verbatim when larger), decimals re-printed with
 * Double.toString.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "json/json.h"

#define F_FIRST 1
#define F_OBJECT 2

/* ------------------------------------------------------------ numbers */

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

/* Java's shortest digits of v > 0 by probing: returns the digit count,
 * without trailing zeros (at least one digit). */
static int shortest_probe(double v, bool is_float, char *digits, int *e) {
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

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

/* 5^0 .. 5^27 (5^27 < 2^63); 5^k for k <= 54 is a product of two. */
static const uint64_t pow5_64[28] = {
    1ull,
    5ull,
    25ull,
    125ull,
    625ull,
    3125ull,
    15625ull,
    78125ull,
    390625ull,
    1953125ull,
    9765625ull,
    48828125ull,
    244140625ull,
    1220703125ull,
    6103515625ull,
    30517578125ull,
    152587890625ull,
    762939453125ull,
    3814697265625ull,
    19073486328125ull,
    95367431640625ull,
    476837158203125ull,
    2384185791015625ull,
    11920928955078125ull,
    59604644775390625ull,
    298023223876953125ull,
    1490116119384765625ull,
    7450580596923828125ull,
};

static u128 pow5(int k) { /* 0 <= k <= 54 */
    int a = k < 27 ? k : 27;
    return (u128)pow5_64[a] * pow5_64[k - a];
}

/* floor(a / 2^s) for negative a too, without relying on >> of negatives */
static int floor_shift(int64_t a, int s) {
    const int64_t bias = (int64_t)1 << 40; /* a multiple of 2^s larger than |a| */
    return (int)(((a + bias) >> s) - (bias >> s));
}

/* An end or the centre of the rounding interval, scaled: floor(x) and
 * whether x is an integer. */
typedef struct scaled {
    uint64_t fl;
    bool exact;
} scaled;

/* x = m 2^q 10^-k exactly (m < 2^57, |k| <= 54). False when x does not fit
 * the arithmetic here (the caller falls back). */
static bool scale(uint64_t m, int q, int k, scaled *x) {
    if (k <= 0) {
        /* m 5^-k 2^(q-k): a product of up to 183 bits, shifted */
        u128 p = pow5(-k);
        u128 lo = (u128)m * (uint64_t)p;
        u128 hi = (u128)m * (uint64_t)(p >> 64) + (lo >> 64); /* product = hi 2^64 + low64 */
        uint64_t low64 = (uint64_t)lo;
        int sh = q - k;
        if (sh >= 0) {
            /* only k = 0, q in [0, 3]: the product is m itself */
            if (hi != 0 || sh > 6) return false;
            x->fl = low64 << sh;
            x->exact = true;
            return true;
        }
        int t = -sh;
        u128 f;
        bool rest;
        if (t >= 64) {
            if (t - 64 >= 128) return false;
            f = hi >> (t - 64);
            rest = low64 != 0 || (t > 64 && (hi & (((u128)1 << (t - 64)) - 1)) != 0);
        } else {
            /* f = product >> t < 2^62 needs hi < 2^(t-2) */
            if (t < 2 ? hi != 0 : (hi >> (t - 2)) != 0) return false;
            f = (hi << (64 - t)) | (low64 >> t);
            rest = (low64 & (((uint64_t)1 << t) - 1)) != 0;
        }
        if (f >> 62) return false;
        x->fl = (uint64_t)f;
        x->exact = !rest;
        return true;
    }
    /* k > 0: m 2^(q-k) / 5^k, q - k >= 0 since k <= q log10(2) */
    int sh = q - k;
    if (sh < 0 || sh + (64 - __builtin_clzll(m)) > 127) return false;
    u128 num = (u128)m << sh, p = pow5(k);
    u128 f = num / p;
    if (f >> 62) return false;
    x->fl = (uint64_t)f;
    x->exact = f * p == num;
    return true;
}

/* Is the integer n (scaled by 4: N = 4n) above the lower end / below the
 * upper end? incl: the ends belong to the interval. */
static bool above_lo(const scaled *lo, uint64_t N, bool incl) {
    return incl && lo->exact ? lo->fl <= N : lo->fl < N;
}
static bool below_hi(const scaled *hi, uint64_t N, bool incl) {
    return incl || !hi->exact ? N <= hi->fl : N < hi->fl;
}

/* The fast path: v = c 2^q (c > 0), irregular when the gap below v is half
 * the gap above. Writes the shortest digits (no trailing zeros) and the
 * decimal exponent of the first digit; returns the digit count, or 0 when
 * the caller must use the probe path. */
static int shortest_fast(uint64_t c, int q, bool irregular, char *digits, int *e) {
    uint64_t cb = c << 2, cbl = irregular ? cb - 1 : cb - 2, cbr = cb + 2;
    /* k = floor(log10(2^q)), or floor(log10(3/4 2^q)) when irregular: the
     * scaled interval is in [1, 10) wide. Both formulas are exact for
     * |q| <= 1200 (checked with rational arithmetic). */
    int k = irregular ? floor_shift((int64_t)q * 1262611 - 524031, 22) : floor_shift((int64_t)q * 78913, 18);
    if (k < -54 || k > 54) return 0;
    scaled vb, vl, vr;
    if (!scale(cb, q, k, &vb) || !scale(cbl, q, k, &vl) || !scale(cbr, q, k, &vr)) return 0;
    bool incl = (c & 1) == 0;
    uint64_t s = vb.fl >> 2, d;
    if (s < 100) return 0; /* a 2-digit decimal need not be a multiple of 10: probe */
    uint64_t sp = s / 10 * 10, tp = sp + 10;
    bool spin = above_lo(&vl, sp << 2, incl), tpin = below_hi(&vr, tp << 2, incl);
    if (spin && tpin) return 0; /* cannot happen with a width below 10 */
    if (spin || tpin) {
        d = spin ? sp : tp;
    } else {
        uint64_t t = s + 1;
        bool sin = above_lo(&vl, s << 2, incl), tin = below_hi(&vr, t << 2, incl);
        if (sin && tin) {
            uint64_t mid = (s << 2) + 2; /* 4 (s + 1/2) */
            int cmp = vb.exact ? (vb.fl > mid) - (vb.fl < mid) : vb.fl >= mid ? 1 : -1;
            d = cmp < 0 ? s : cmp > 0 ? t : (s & 1) == 0 ? s : t;
        } else if (sin || tin) {
            d = sin ? s : t;
        } else {
            return 0; /* cannot happen with a width of at least 1 */
        }
    }
    char tmp[24];
    int n = 0;
    while (d) {
        tmp[n++] = (char)('0' + d % 10);
        d /= 10;
    }
    *e = n - 1 + k;
    int lead = 0;
    while (lead < n - 1 && tmp[lead] == '0') lead++; /* trailing zeros of the number */
    int len = n - lead;
    for (int i = 0; i < len; i++) digits[i] = tmp[n - 1 - i];
    return len;
}
#endif

/* Java's shortest digits of v > 0 (finite): returns the digit count, without
 * trailing zeros (at least one digit), and the exponent of the first. */
static int shortest(double v, bool is_float, char *digits, int *e) {
#ifdef __SIZEOF_INT128__
    uint64_t c;
    int q;
    bool irregular;
    if (is_float) {
        float f = (float)v;
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        uint32_t be = (bits >> 23) & 0xFF, frac = bits & 0x7FFFFF;
        c = be ? frac | 0x800000u : frac;
        q = be ? (int)be - 150 : -149;
        irregular = frac == 0 && be > 1;
    } else {
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        uint32_t be = (uint32_t)(bits >> 52) & 0x7FF;
        uint64_t frac = bits & 0xFFFFFFFFFFFFFull;
        c = be ? frac | 0x10000000000000ull : frac;
        q = be ? (int)be - 1075 : -1074;
        irregular = frac == 0 && be > 1;
    }
    int n = shortest_fast(c, q, irregular, digits, e);
    if (n > 0) return n;
#endif
    return shortest_probe(v, is_float, digits, e);
}

static size_t fmt_java(double v, bool is_float, char *out) {
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
    int n = shortest(v, is_float, d, &e);
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
        *o++ = 'E';
        if (e < 0) *o++ = '-', e = -e;
        if (e >= 100) *o++ = (char)('0' + e / 100);
        if (e >= 10) *o++ = (char)('0' + e / 10 % 10);
        *o++ = (char)('0' + e % 10);
    }
    *o = 0;
    return (size_t)(o - out);
}

size_t tv_fmt_double(double v, char *out) { return fmt_java(v, false, out); }
size_t tv_fmt_float(float v, char *out) { return fmt_java((double)v, true, out); }

/* ---------------------------------------------------------- strings */

static const char hexu[] = "0123456789ABCDEF";

/* 0: copy; 1: needs escaping or is non-ASCII */
static const uint8_t esc_class[256] = {
    [0 ... 0x1F] = 1, ['"'] = 1, ['\\'] = 1, [0x80 ... 0xFF] = 1,
};

static char *put_u(char *o, uint32_t c) {
    *o++ = '\\';
    *o++ = 'u';
    *o++ = hexu[(c >> 12) & 15];
    *o++ = hexu[(c >> 8) & 15];
    *o++ = hexu[(c >> 4) & 15];
    *o++ = hexu[c & 15];
    return o;
}

/* Length of the valid UTF-8 sequence at s (s[0] >= 0x80), 0 if invalid. */
static size_t utf8_len(const uint8_t *s, size_t avail, uint32_t *cp) {
    uint8_t c = s[0];
    size_t n;
    uint8_t lo = 0x80, hi = 0xBF;
    uint32_t v;
    if (c >= 0xC2 && c <= 0xDF) n = 2, v = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3, v = c & 0x0F;
        if (c == 0xE0) lo = 0xA0;
        else if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, v = c & 0x07;
        if (c == 0xF0) lo = 0x90;
        else if (c == 0xF4) hi = 0x8F;
    } else return 0;
    if (avail < n) return 0;
    for (size_t i = 1; i < n; i++) {
        if (s[i] < lo || s[i] > hi) return 0;
        lo = 0x80, hi = 0xBF;
        v = (v << 6) | (s[i] & 0x3F);
    }
    *cp = v;
    return n;
}

static void write_escaped(tv_buf *b, const char *str, size_t len) {
    const uint8_t *s = (const uint8_t *)str, *end = s + len;
    /* the common case (keys, ids, index names): nothing to escape, one
     * reservation and one copy */
    const uint8_t *r0 = s;
    while (r0 < end && !esc_class[*r0]) r0++;
    if (r0 == end) {
        if (!tv_buf_reserve(b, len + 2)) return;
        char *o = b->data + b->len;
        *o++ = '"';
        if (len) memcpy(o, s, len);
        o += len;
        *o++ = '"';
        b->len = (size_t)(o - b->data);
        b->data[b->len] = 0;
        return;
    }
    tv_buf_putc(b, '"');
    while (s < end) {
        const uint8_t *r = s;
        while (r < end && !esc_class[*r]) r++;
        if (r > s) tv_buf_append(b, s, (size_t)(r - s));
        s = r;
        if (s >= end) break;
        /* a run of bytes that need attention, bounded to keep the
         * reservation small */
        size_t chunk = (size_t)(end - s) < 256 ? (size_t)(end - s) : 256;
        if (!tv_buf_reserve(b, chunk * 12)) return;
        char *o = b->data + b->len;
        const uint8_t *cend = s + chunk;
        while (s < cend) {
            uint8_t c = *s;
            if (!esc_class[c]) {
                *o++ = (char)c;
                s++;
                continue;
            }
            if (c >= 0x80) {
                uint32_t cp;
                size_t n = utf8_len(s, (size_t)(end - s), &cp);
                if (n == 0) {
                    memcpy(o, "\xEF\xBF\xBD", 3);
                    o += 3;
                    s++;
                } else if (n == 4) {
                    cp -= 0x10000;
                    o = put_u(o, 0xD800 + (cp >> 10));
                    o = put_u(o, 0xDC00 + (cp & 0x3FF));
                    s += 4;
                } else {
                    memcpy(o, s, n);
                    o += n;
                    s += n;
                }
                continue;
            }
            s++;
            *o++ = '\\';
            switch (c) {
            case '"': *o++ = '"'; break;
            case '\\': *o++ = '\\'; break;
            case '\b': *o++ = 'b'; break;
            case '\t': *o++ = 't'; break;
            case '\n': *o++ = 'n'; break;
            case '\f': *o++ = 'f'; break;
            case '\r': *o++ = 'r'; break;
            default:
                o--;
                o = put_u(o, c);
                break;
            }
        }
        b->len = (size_t)(o - b->data);
        b->data[b->len] = 0;
    }
    tv_buf_putc(b, '"');
}

/* ------------------------------------------------------------ writer */

void tv_jw_init(tv_jw *w, tv_buf *out, bool pretty) {
    w->out = out;
    w->pretty = pretty;
    w->depth = 0;
    w->first[0] = F_FIRST;
    w->after_key = 0;
}

static int nesting(const tv_jw *w) {
    int n = 0;
    for (int i = 1; i <= w->depth && i < TV_JW_MAX_DEPTH; i++) n += (w->first[i] & F_OBJECT) != 0;
    return n;
}

static void newline_indent(tv_jw *w, int nest) {
    tv_buf *b = w->out;
    size_t n = 1 + 2 * (size_t)nest;
    if (!tv_buf_reserve(b, n)) return;
    b->data[b->len] = '\n';
    memset(b->data + b->len + 1, ' ', n - 1);
    b->len += n;
    b->data[b->len] = 0;
}

/* Separators before a value (not a key). */
static void before_value(tv_jw *w) {
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth == 0) {
        if (!(w->first[0] & F_FIRST)) tv_buf_putc(w->out, ' '); /* root value separator */
        w->first[0] &= (uint8_t)~F_FIRST;
        return;
    }
    if (w->depth >= TV_JW_MAX_DEPTH) return;
    uint8_t *f = &w->first[w->depth];
    if (*f & F_FIRST) {
        *f &= (uint8_t)~F_FIRST;
        if (w->pretty) tv_buf_putc(w->out, ' ');
    } else {
        tv_buf_putc(w->out, ',');
        if (w->pretty) tv_buf_putc(w->out, ' ');
    }
}

static void open_container(tv_jw *w, char c, uint8_t kind) {
    before_value(w);
    tv_buf_putc(w->out, c);
    w->depth++;
    if (w->depth >= TV_JW_MAX_DEPTH) {
        w->out->oom = true; /* too deep: a sticky failure */
        return;
    }
    w->first[w->depth] = (uint8_t)(F_FIRST | kind);
}

void tv_jw_obj_begin(tv_jw *w) { open_container(w, '{', F_OBJECT); }
void tv_jw_arr_begin(tv_jw *w) { open_container(w, '[', 0); }

void tv_jw_obj_end(tv_jw *w) {
    if (w->depth <= 0) return;
    bool empty = w->depth < TV_JW_MAX_DEPTH ? (w->first[w->depth] & F_FIRST) != 0 : true;
    if (w->pretty) {
        if (empty) tv_buf_putc(w->out, ' ');
        else newline_indent(w, nesting(w) - 1);
    }
    tv_buf_putc(w->out, '}');
    w->depth--;
    w->after_key = 0;
}

void tv_jw_arr_end(tv_jw *w) {
    if (w->depth <= 0) return;
    if (w->pretty) tv_buf_putc(w->out, ' ');
    tv_buf_putc(w->out, ']');
    w->depth--;
    w->after_key = 0;
}

void tv_jw_key(tv_jw *w, const char *key, size_t len) {
    tv_buf *b = w->out;
    if (!w->pretty && w->depth > 0 && w->depth < TV_JW_MAX_DEPTH && len <= 32 && !b->oom &&
        b->cap - b->len > len + 4) {
        /* the common key: short, nothing to escape, room in the buffer;
         * written in place (the general path was 200 instructions a key) */
        size_t i = 0;
        while (i < len && !esc_class[(uint8_t)key[i]]) i++;
        if (i == len) {
            char *o = b->data + b->len;
            uint8_t *f = &w->first[w->depth];
            if (*f & F_FIRST) *f &= (uint8_t)~F_FIRST;
            else *o++ = ',';
            *o++ = '"';
            memcpy(o, key, len);
            o += len;
            *o++ = '"';
            *o++ = ':';
            *o = 0;
            b->len = (size_t)(o - b->data);
            w->after_key = 1;
            return;
        }
    }
    if (w->depth > 0 && w->depth < TV_JW_MAX_DEPTH) {
        uint8_t *f = &w->first[w->depth];
        if (*f & F_FIRST) *f &= (uint8_t)~F_FIRST;
        else tv_buf_putc(w->out, ',');
        if (w->pretty) newline_indent(w, nesting(w));
    }
    write_escaped(w->out, key, len);
    if (w->pretty) tv_buf_append(w->out, " : ", 3);
    else tv_buf_putc(w->out, ':');
    w->after_key = 1;
}

void tv_jw_keyz(tv_jw *w, const char *key) { tv_jw_key(w, key, strlen(key)); }

void tv_jw_str(tv_jw *w, const char *s, size_t len) {
    before_value(w);
    write_escaped(w->out, s, len);
}

void tv_jw_strz(tv_jw *w, const char *s) { tv_jw_str(w, s, strlen(s)); }

static void put_text(tv_jw *w, const char *s, size_t n) {
    before_value(w);
    tv_buf_append(w->out, s, n);
}

/* Decimal digits of v ending at `end`; returns the first. (snprintf was
 * 700 instructions an integer, a tenth of a small search's response.) */
static char *u64_digits(uint64_t v, char *end) {
    char *p = end;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return p;
}

void tv_jw_int(tv_jw *w, int64_t v) {
    char b[24], *end = b + sizeof b;
    char *p = u64_digits(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, end);
    if (v < 0) *--p = '-';
    put_text(w, p, (size_t)(end - p));
}

void tv_jw_uint(tv_jw *w, uint64_t v) {
    char b[24], *end = b + sizeof b;
    char *p = u64_digits(v, end);
    put_text(w, p, (size_t)(end - p));
}

/* Jackson's QUOTE_NON_NUMERIC_NUMBERS (on by default in OpenSearch's
 * XContent): NaN and the infinities are written as strings, so a response
 * stays JSON whatever arithmetic produced them (a boost of 1e308 makes an
 * infinite score, a 0/0 average a NaN). */
static bool put_non_finite(tv_jw *w, double v) {
    if (isfinite(v)) return false;
    tv_jw_strz(w, isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
    return true;
}

void tv_jw_double(tv_jw *w, double v) {
    if (put_non_finite(w, v)) return;
    char b[40];
    size_t n = tv_fmt_double(v, b);
    put_text(w, b, n);
}

/* Java's shortest float text is ~700 instructions; a page of hits repeats
 * few scores (a term's score depends only on its freq and the doc's norm
 * byte), so each thread keeps the last texts by the float's bits, in a
 * small direct-mapped table. A float's text never exceeds 15 bytes
 * ("-1.17549435E-38"). */
#define FLOAT_MEMO 64
typedef struct float_memo {
    uint32_t bits;
    uint8_t len; /* 0: empty */
    char text[15];
} float_memo;
static _Thread_local float_memo memo[FLOAT_MEMO];

void tv_jw_float(tv_jw *w, float v) {
    if (put_non_finite(w, v)) return;
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    float_memo *m = &memo[(bits * 2654435761u) >> 26];
    if (m->len && m->bits == bits) {
        put_text(w, m->text, m->len);
        return;
    }
    char b[40];
    size_t n = tv_fmt_float(v, b);
    if (n <= sizeof m->text) {
        m->bits = bits;
        m->len = (uint8_t)n;
        memcpy(m->text, b, n);
    }
    put_text(w, b, n);
}

void tv_jw_bool(tv_jw *w, bool v) { put_text(w, v ? "true" : "false", v ? 4 : 5); }
void tv_jw_null(tv_jw *w) { put_text(w, "null", 4); }

/* Writes a scalar's text (no separators). canonical: numbers as Jackson's
 * copyCurrentStructure prints them; otherwise from `raw` when present. */
static void emit_scalar(tv_buf *b, const tv_json *v, bool canonical) {
    char t[40];
    switch (v->type) {
    case TV_JSON_NULL: tv_buf_append(b, "null", 4); break;
    case TV_JSON_TRUE: tv_buf_append(b, "true", 4); break;
    case TV_JSON_FALSE: tv_buf_append(b, "false", 5); break;
    case TV_JSON_INT:
        if (v->raw && !canonical) tv_buf_append(b, v->raw, v->raw_len);
        else tv_buf_append(b, t, (size_t)snprintf(t, sizeof t, "%" PRId64, v->v.i));
        break;
    case TV_JSON_UINT:
        if (v->raw && !canonical) tv_buf_append(b, v->raw, v->raw_len);
        else tv_buf_append(b, t, (size_t)snprintf(t, sizeof t, "%" PRIu64, v->v.u));
        break;
    case TV_JSON_DOUBLE: {
        bool integral = v->raw && !memchr(v->raw, '.', v->raw_len) &&
                        !memchr(v->raw, 'e', v->raw_len) && !memchr(v->raw, 'E', v->raw_len);
        if (v->raw && (!canonical || integral)) {
            /* verbatim, or an integer too large for 64 bits (a BigInteger) */
            tv_buf_append(b, v->raw, v->raw_len);
        } else if (canonical && isinf(v->v.d)) {
            /* Jackson quotes non-finite numbers by default */
            tv_buf_puts(b, v->v.d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        } else {
            tv_buf_append(b, t, tv_fmt_double(v->v.d, t));
        }
        break;
    }
    case TV_JSON_STRING: write_escaped(b, v->v.s, v->len); break;
    default: break;
    }
}

/* A container deeper than the writer's state (TV_JW_MAX_DEPTH) is written
 * with the same layout rules, keeping its state on the C stack. nest is the
 * number of open objects around it (for pretty indentation). */
static void emit_deep(tv_jw *w, const tv_json *v, bool canonical, int nest) {
    tv_buf *b = w->out;
    if (v->type == TV_JSON_ARRAY) {
        tv_buf_putc(b, '[');
        for (uint32_t i = 0; i < v->len; i++) {
            if (i) tv_buf_putc(b, ',');
            if (w->pretty) tv_buf_putc(b, ' ');
            emit_deep(w, &v->v.items[i], canonical, nest);
        }
        if (w->pretty) tv_buf_putc(b, ' ');
        tv_buf_putc(b, ']');
    } else if (v->type == TV_JSON_OBJECT) {
        tv_buf_putc(b, '{');
        for (uint32_t i = 0; i < v->len; i++) {
            if (i) tv_buf_putc(b, ',');
            if (w->pretty) newline_indent(w, nest + 1);
            write_escaped(b, v->v.members[i].key, v->v.members[i].key_len);
            if (w->pretty) tv_buf_append(b, " : ", 3);
            else tv_buf_putc(b, ':');
            emit_deep(w, &v->v.members[i].val, canonical, nest + 1);
        }
        if (w->pretty) {
            if (v->len) newline_indent(w, nest);
            else tv_buf_putc(b, ' ');
        }
        tv_buf_putc(b, '}');
    } else {
        emit_scalar(b, v, canonical);
    }
}

static void write_value(tv_jw *w, const tv_json *v, bool canonical) {
    switch (v->type) {
    case TV_JSON_ARRAY:
    case TV_JSON_OBJECT:
        if (w->depth + 1 >= TV_JW_MAX_DEPTH) {
            before_value(w);
            emit_deep(w, v, canonical, nesting(w));
            return;
        }
        if (v->type == TV_JSON_ARRAY) {
            tv_jw_arr_begin(w);
            for (uint32_t i = 0; i < v->len; i++) write_value(w, &v->v.items[i], canonical);
            tv_jw_arr_end(w);
        } else {
            tv_jw_obj_begin(w);
            for (uint32_t i = 0; i < v->len; i++) {
                tv_jw_key(w, v->v.members[i].key, v->v.members[i].key_len);
                write_value(w, &v->v.members[i].val, canonical);
            }
            tv_jw_obj_end(w);
        }
        return;
    default:
        before_value(w);
        emit_scalar(w->out, v, canonical);
        return;
    }
}

void tv_jw_value(tv_jw *w, const tv_json *v) {
    if (!v) {
        tv_jw_null(w);
        return;
    }
    write_value(w, v, false);
}

void tv_jw_raw(tv_jw *w, const char *json, size_t len) {
    if (!w->pretty) {
        put_text(w, json, len);
        return;
    }
    tv_arena a;
    tv_arena_init(&a);
    tv_json *v;
    tv_json_error err;
    tv_status st = tv_json_parse(&a, json, len, &v, &err);
    if (st == TROVE_OK) {
        write_value(w, v, true);
    } else if (st == TROVE_ENOMEM) {
        w->out->oom = true;
    } else {
        /* not valid JSON: nothing to re-indent, keep the bytes */
        put_text(w, json, len);
    }
    tv_arena_fini(&a);
}

char *tv_json_compact(const tv_json *v) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_value(&w, v);
    char *s = b.oom ? NULL : tv_strndup(b.data ? b.data : "", b.len);
    tv_buf_fini(&b);
    return s;
}
