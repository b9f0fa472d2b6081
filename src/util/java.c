/*
 * java.c — the Java behaviour OpenSearch's answers depend on, in one
 * place: TimeValue.parseTimeValue (every time-valued URL parameter,
 * setting and body field), the syntax Double.parseDouble accepts, (long)
 * of a double, ByteSizeValue's printing, String.hashCode and the order a
 * HashMap iterates (maps OpenSearch prints unordered: sibling
 * aggregations, a hit's fields, error metadata, a filtered _source), and
 * java.text.DecimalFormat for the digit patterns formats use. Java's
 * float and double printing (Float/Double.toString) is the JSON writer's
 * (json_write.c), where every number is printed.
 *
 * TimeValue. The text is lower-cased and trimmed (Java's trim: every byte
 * <= ' '), then its unit is its suffix: nanos, micros, ms, s, m (matched
 * on the raw text, case-sensitively: "M" would be months), h, d. Without
 * a unit only "-0*1" (minus one: "no timeout") and "0+" are allowed. The
 * number before the unit is Long.parseLong of the trimmed rest: below -1
 * is "negative durations are not supported"; not a long but a double is
 * "fractional time values are not supported"; anything else "failed to
 * parse". Every error is an illegal_argument_exception, as OpenSearch's
 * TimeValue (in libs/core, where OpenSearchParseException is not) throws
 * it, the two number failures caused by the number_format_exception.
 * Values convert to nanoseconds, saturating.
 *
 * Java's (long) of a double: NaN is 0, out of range saturates (C's cast
 * is undefined there).
 *
 * Rejected: a regex-free scan per caller (there were four copies of this
 * with different corner cases: minutes case-insensitive in one, "1.5s"
 * accepted by strtod in another).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Java's String.trim(): bytes <= ' ' at both ends. */
static void java_trim(const char **s, size_t *n) {
    while (*n && (unsigned char)(*s)[0] <= ' ') (*s)++, (*n)--;
    while (*n && (unsigned char)(*s)[*n - 1] <= ' ') (*n)--;
}

bool tv_java_double_syntax(const char *s, size_t n) {
    java_trim(&s, &n);
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    if (n - i == 3 && memcmp(s + i, "NaN", 3) == 0) return true;
    if (n - i == 8 && memcmp(s + i, "Infinity", 8) == 0) return true;
    size_t digits = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++, digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++, digits++;
    }
    if (!digits) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        size_t ed = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++, ed++;
        if (!ed) return false;
    }
    if (i < n && (s[i] == 'f' || s[i] == 'F' || s[i] == 'd' || s[i] == 'D')) i++;
    return i == n;
}

/* Long.parseLong: an optional sign, then decimal digits only. */
static bool java_parse_long(const char *s, size_t n, int64_t *out) {
    if (n && s[0] == '+') {
        if (n == 1 || s[1] == '-' || s[1] == '+') return false;
        s++, n--;
    }
    return n && tv_parse_i64(s, n, out);
}

tv_status tv_parse_time_value(const char *v, size_t n, const char *setting, int64_t *nanos, tv_error *err) {
    const char *t = v;
    size_t tl = n;
    java_trim(&t, &tl);
    static const struct {
        const char *unit;
        int64_t ns;
    } units[] = {{"nanos", 1}, {"micros", 1000}, {"ms", 1000000}, {"s", 1000000000},
                 {"m", 60000000000}, {"h", 3600000000000}, {"d", 86400000000000}};
    size_t u = TV_ARRAY_LEN(units);
    for (size_t k = 0; k < TV_ARRAY_LEN(units) && u == TV_ARRAY_LEN(units); k++) {
        size_t l = strlen(units[k].unit);
        if (tl < l) continue;
        bool match = true;
        for (size_t j = 0; j < l && match; j++) {
            char c = t[tl - l + j];
            if (c >= 'A' && c <= 'Z' && k != 4) c = (char)(c + 32); /* 'm' is case-sensitive */
            match = c == units[k].unit[j];
        }
        /* the raw text must end in 'm' for minutes (Java looks at the
         * untrimmed value: "5m " is not minutes) */
        if (match && k == 4 && (n == 0 || v[n - 1] != 'm')) match = false;
        if (match) u = k;
    }
    if (u == TV_ARRAY_LEN(units)) {
        bool minus_one = tl >= 2 && t[0] == '-' && t[tl - 1] == '1' && strspn(t + 1, "0") == tl - 2;
        bool zero = tl > 0 && strspn(t, "0") == tl;
        if (minus_one || zero) {
            *nanos = minus_one ? -1 : 0;
            return TROVE_OK;
        }
        return tv_error_set(err, TROVE_EARG,
                            "failed to parse setting [%s] with value [%.*s] as a time value: unit is missing or "
                            "unrecognized",
                            setting, (int)TV_MIN(n, 512), v);
    }
    const char *num = t;
    size_t nl = tl - strlen(units[u].unit);
    java_trim(&num, &nl);
    int64_t x;
    if (!java_parse_long(num, nl, &x)) {
        if (tv_java_double_syntax(num, nl))
            tv_error_set(err, TROVE_EARG, "failed to parse [%.*s], fractional time values are not supported",
                         (int)TV_MIN(n, 512), v);
        else
            tv_error_set(err, TROVE_EARG, "failed to parse [%.*s]", (int)TV_MIN(n, 512), v);
        return tv_error_cause(err, TROVE_ENUMBERFORMAT, "For input string: \"%.*s\"", (int)TV_MIN(nl, 512), num);
    }
    if (x < -1)
        return tv_error_set(err, TROVE_EARG,
                            "failed to parse setting [%s] with value [%.*s] as a time value: negative durations "
                            "are not supported",
                            setting, (int)TV_MIN(n, 512), v);
    int64_t mul = units[u].ns;
    *nanos = x > INT64_MAX / mul ? INT64_MAX : x * mul; /* -1 of a unit is -1 of it, as TimeValue keeps it */
    return TROVE_OK;
}

int64_t tv_java_d2l(double v) {
    if (v != v) return 0;
    if (v >= 9223372036854775807.0) return INT64_MAX;
    if (v <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)v;
}

void tv_java_byte_size(int64_t bytes, char *out, size_t cap) {
    static const char *const suf[] = {"b", "kb", "mb", "gb", "tb", "pb"};
    if (bytes < 1024) {
        snprintf(out, cap, "%lldb", (long long)bytes);
        return;
    }
    int k = 0;
    double v = (double)bytes;
    while (k < 5 && v >= 1024.0) {
        v /= 1024.0;
        k++;
    }
    /* Strings.format1Decimals: the first decimal of the double's text
     * (truncated), dropped when zero */
    long long tenths = (long long)(v * 10.0);
    if (tenths % 10 == 0)
        snprintf(out, cap, "%lld%s", tenths / 10, suf[k]);
    else
        snprintf(out, cap, "%lld.%lld%s", tenths / 10, tenths % 10, suf[k]);
}

void tv_java_time_value(int64_t ms, char *out, size_t cap) {
    static const struct {
        const char *u;
        int64_t ms;
    } units[] = {{"d", 86400000}, {"h", 3600000}, {"m", 60000}, {"s", 1000}};
    if (ms < 0) {
        snprintf(out, cap, "%lld", (long long)ms);
        return;
    }
    if (ms == 0) {
        snprintf(out, cap, "0s");
        return;
    }
    for (size_t i = 0; i < TV_ARRAY_LEN(units); i++) {
        if (ms < units[i].ms) continue;
        /* TimeValue.formatDecimal: the first decimal of the double's text,
         * truncated, dropped when zero */
        double v = (double)ms / (double)units[i].ms;
        long long tenths = (long long)(v * 10.0);
        if (tenths % 10 == 0)
            snprintf(out, cap, "%lld%s", tenths / 10, units[i].u);
        else
            snprintf(out, cap, "%lld.%lld%s", tenths / 10, tenths % 10, units[i].u);
        return;
    }
    snprintf(out, cap, "%lldms", (long long)ms);
}

/* ByteSizeValue.parseBytesSizeValue: "-1", "0", or a number with a unit
 * (b, k/kb, m/mb, g/gb, t/tb, p/pb; case-insensitive). */
bool tv_parse_byte_size(const char *s, size_t n, int64_t *out) {
    if (tv_streq(s, n, "-1")) {
        *out = -1;
        return true;
    }
    if (tv_streq(s, n, "0")) {
        *out = 0;
        return true;
    }
    static const struct {
        const char *unit;
        double mult;
    } units[] = {{"pb", 1125899906842624.0}, {"tb", 1099511627776.0}, {"gb", 1073741824.0},
                 {"mb", 1048576.0}, {"kb", 1024.0}, {"p", 1125899906842624.0},
                 {"t", 1099511627776.0}, {"g", 1073741824.0}, {"m", 1048576.0}, {"k", 1024.0},
                 {"b", 1.0}};
    char low[40];
    if (n == 0 || n >= sizeof low) return false;
    for (size_t i = 0; i < n; i++) low[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] + 32) : s[i];
    low[n] = '\0';
    for (size_t i = 0; i < TV_ARRAY_LEN(units); i++) {
        size_t ul = strlen(units[i].unit);
        if (n <= ul || memcmp(low + n - ul, units[i].unit, ul) != 0) continue;
        char num[40];
        memcpy(num, low, n - ul);
        num[n - ul] = '\0';
        char *end;
        double v = strtod(num, &end);
        if (end == num || *end || v < 0) return false;
        *out = tv_java_d2l(v * units[i].mult);
        return true;
    }
    return false;
}

bool tv_parse_memory_size(const char *s, size_t n, int64_t heap, int64_t *out) {
    if (n && s[n - 1] == '%') {
        /* MemorySizeValue.parseBytesSizeValueOrHeapRatio */
        char num[40];
        if (n - 1 == 0 || n - 1 >= sizeof num || !tv_java_double_syntax(s, n - 1)) return false;
        memcpy(num, s, n - 1);
        num[n - 1] = '\0';
        double pct = strtod(num, NULL);
        if (!(pct >= 0 && pct <= 100)) return false;
        *out = tv_java_d2l((double)heap * pct / 100.0);
        return true;
    }
    return tv_parse_byte_size(s, n, out);
}

/* ------------------------------------------------ String and HashMap */

/* java.lang.String.hashCode over the UTF-16 code units of UTF-8 s. */
int32_t tv_java_string_hash(const char *s, size_t n) {
    uint32_t h = 0;
    const uint8_t *p = (const uint8_t *)s, *end = p + n;
    while (p < end) {
        uint32_t cp;
        p += tv_utf8_decode(p, end, &cp);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            h = h * 31 + (0xd800 + (cp >> 10));
            h = h * 31 + (0xdc00 + (cp & 0x3ff));
        } else {
            h = h * 31 + cp;
        }
    }
    return (int32_t)h;
}

/* The order a java.util.HashMap<String,...> iterates names[0..n) inserted
 * in that order: by bucket (spread hash & (capacity - 1)), then insertion. */
uint32_t tv_java_hm_bucket(const char *key, size_t len, size_t n) {
    uint32_t cap = 16; /* the table a HashMap reaches by inserting n keys */
    while ((double)n > 0.75 * cap) cap *= 2;
    uint32_t h = (uint32_t)tv_java_string_hash(key, len);
    return (h ^ (h >> 16)) & (cap - 1);
}

void tv_java_hashmap_order(const char *const *names, uint32_t n, uint32_t *order) {
    uint32_t *slot = tv_malloc((n + 1) * sizeof *slot);
    for (uint32_t i = 0; i < n; i++) {
        if (slot) slot[i] = tv_java_hm_bucket(names[i], strlen(names[i]), n);
        order[i] = i;
    }
    if (!slot) return;
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && slot[order[j - 1]] > slot[order[j]]; j--) {
            uint32_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    tv_free(slot);
}

/* ---------------------------------------------------- DecimalFormat */

/*
 * java.text.DecimalFormat for the patterns docvalue_fields and aggregation
 * formats use: "#.0", "0.00", "#,##0.###", "#", with literal prefix and
 * suffix text ("Value is ##0.0", "'#'0", "0.0 units", "0%"): the integer
 * part's '0's are the minimum integer digits (none: "0.5" prints ".5", as
 * Java does), its ',' sets the grouping size, the fraction's '0's the
 * minimum and '0'+'#' the maximum fraction digits; HALF_EVEN rounding
 * (printf rounds the exact binary value to nearest-even, as DecimalFormat
 * does). Affixes are applyPattern's: text up to the first digit, '#', ','
 * or '.', and after the number; '...' quotes text ('' is a quote), '%'
 * multiplies by 100 and '\u2030' by 1000. A ';' starts the negative
 * subpattern, whose affixes replace "-" + the positive prefix. Exponent
 * patterns are not interpreted (such patterns print the plain number).
 * Writes a NUL-terminated string into out (cap >= 400).
 */
typedef struct dfmt_affix {
    char s[128];
    size_t n;
} dfmt_affix;

static void affix_put(dfmt_affix *a, const char *p, size_t n) {
    if (a->n + n >= sizeof a->s) n = sizeof a->s - 1 - a->n;
    memcpy(a->s + a->n, p, n);
    a->n += n;
    a->s[a->n] = 0;
}

/* Reads an affix from *pp up to a number character (stop_num) or ';' / end. */
static bool parse_affix(const char **pp, bool stop_num, dfmt_affix *a, double *mult) {
    const char *p = *pp;
    while (*p && *p != ';') {
        char ch = *p;
        if (stop_num && (ch == '0' || ch == '#' || ch == ',' || ch == '.')) break;
        if (ch == '\'') {
            p++;
            if (*p == '\'') { affix_put(a, "'", 1); p++; continue; }
            while (*p) {
                if (*p == '\'') {
                    if (p[1] == '\'') { affix_put(a, "'", 1); p += 2; continue; }
                    p++;
                    break;
                }
                affix_put(a, p, 1);
                p++;
            }
            continue;
        }
        if (ch == '%') *mult = 100;
        else if (!strncmp(p, "\xe2\x80\xb0", 3)) { /* per mille; strncmp stops at the pattern's end */
            *mult = 1000;
            affix_put(a, p, 3);
            p += 3;
            continue;
        }
        else if (!stop_num && (ch == '0' || ch == '#' || ch == ',' || ch == '.')) return false;
        affix_put(a, p, 1);
        p++;
    }
    *pp = p;
    return true;
}

void tv_java_decimal_format(double x, const char *pat, char *out, size_t cap) {
    int min_int = 0, min_frac = 0, max_frac = 0, group = 0;
    bool frac = false, valid = true, has_neg = false;
    int since_comma = -1;
    double mult = 1;
    dfmt_affix pre = {{0}, 0}, suf = {{0}, 0}, npre = {{0}, 0}, nsuf = {{0}, 0};
    const char *p = pat;
    if (!parse_affix(&p, true, &pre, &mult)) valid = false;
    for (; valid && *p && *p != ';'; p++) {
        char ch = *p;
        if (ch == '.') { if (frac) valid = false; frac = true; continue; }
        if (ch == ',') { if (!frac) since_comma = 0; continue; }
        if (ch == '0' || ch == '#') {
            if (frac) { max_frac++; if (ch == '0') min_frac = max_frac; }
            else { if (ch == '0') min_int++; if (since_comma >= 0) since_comma++; }
            continue;
        }
        if (ch == 'E') { valid = false; break; }
        break; /* the suffix */
    }
    if (valid && *p && *p != ';' && !parse_affix(&p, false, &suf, &mult)) valid = false;
    if (valid && *p == ';') {
        double m2 = mult;
        p++;
        has_neg = true;
        if (!parse_affix(&p, true, &npre, &m2)) valid = false;
        while (*p == '0' || *p == '#' || *p == ',' || *p == '.') p++;
        if (valid && !parse_affix(&p, false, &nsuf, &m2)) valid = false;
    }
    if (!has_neg) {
        affix_put(&npre, "-", 1);
        affix_put(&npre, pre.s, pre.n);
        affix_put(&nsuf, suf.s, suf.n);
    }
    if (since_comma > 0) group = since_comma;
    if (!valid || !isfinite(x)) {
        if (isnan(x)) snprintf(out, cap, "NaN");
        else if (isinf(x)) snprintf(out, cap, "%s\xe2\x88\x9e%s", x < 0 ? npre.s : pre.s, x < 0 ? nsuf.s : suf.s); /* U+221E */
        else snprintf(out, cap, "%.17g", x);
        return;
    }
    if (mult != 1) x *= mult;
    if (max_frac > 340) max_frac = 340;
    char num[400];
    snprintf(num, sizeof num, "%.*f", max_frac, fabs(x));
    char *dot = strchr(num, '.');
    size_t ilen = dot ? (size_t)(dot - num) : strlen(num);
    const char *fr = dot ? dot + 1 : "";
    size_t flen = strlen(fr);
    while ((int)flen > min_frac && fr[flen - 1] == '0') flen--;
    bool neg = signbit(x) != 0; /* as Java: -0.0 and negatives rounding to 0 keep the sign */
    /* integer digits without leading zeros, then padded to min_int */
    const char *ip = num;
    while (ilen > 0 && *ip == '0') { ip++; ilen--; }
    char digits[400];
    size_t nd = 0;
    for (int k = (int)ilen; k < min_int && nd < 340; k++) digits[nd++] = '0';
    for (size_t k = 0; k < ilen && nd < 390; k++) digits[nd++] = ip[k];
    size_t o = 0;
    const dfmt_affix *ap = neg ? &npre : &pre, *as = neg ? &nsuf : &suf;
    for (size_t k = 0; k < ap->n && o + 1 < cap; k++) out[o++] = ap->s[k];
    for (size_t k = 0; k < nd && o + 2 < cap; k++) {
        if (group > 0 && k > 0 && (nd - k) % (size_t)group == 0) out[o++] = ',';
        out[o++] = digits[k];
    }
    if (flen > 0 || (nd == 0 && min_frac == 0 && max_frac == 0)) {
        if (flen > 0) {
            if (o + 1 < cap) out[o++] = '.';
            for (size_t k = 0; k < flen && o + 1 < cap; k++) out[o++] = fr[k];
        } else if (o + 1 < cap) {
            out[o++] = '0'; /* "#" of 0 prints "0" */
        }
    }
    for (size_t k = 0; k < as->n && o + 1 < cap; k++) out[o++] = as->s[k];
    out[o < cap ? o : cap - 1] = 0;
}
