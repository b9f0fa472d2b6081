/*
 * java.c — Java's parsing rules that OpenSearch's answers depend on, in
 * one place: TimeValue.parseTimeValue (every time-valued URL parameter,
 * setting and body field) and the syntax Double.parseDouble accepts.
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
