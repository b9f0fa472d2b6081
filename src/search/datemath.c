/*
 * datemath.c — dates in queries: epoch_millis, strict_date_optional_time
 * and OpenSearch date math ("now-1d/d", "2020-01-01||+1M/d"), with the
 * round-up behaviour range queries use (gt / lte parse with roundUp, which
 * rounds "/d" to the day's last millisecond and fills fields a partial date
 * leaves out with their maxima, as OpenSearch's JavaDateMathParser does).
 *
 * Only the default format (strict_date_optional_time||epoch_millis) and
 * epoch_millis / epoch_second are understood; other `format`s are rejected
 * with an unsupported error rather than guessed. The mapping layer's date
 * parser can replace this file's parsing once it exports one.
 */
#include <stdio.h>
#include <stdlib.h>

#include "search/datemath.h"

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
static int mdays(int64_t y, int m) {
    static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : d[m - 1];
}

/* days from 1970-01-01 to y-m-d (proleptic Gregorian) */
static int64_t days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yy + (*m <= 2);
}

static int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

static int digits(const char *s, size_t n, size_t *i, int min, int max, int64_t *out) {
    size_t k = 0;
    int64_t v = 0;
    while (*i + k < n && k < (size_t)max && s[*i + k] >= '0' && s[*i + k] <= '9') {
        v = v * 10 + (s[*i + k] - '0');
        k++;
    }
    if ((int)k < min) return 0;
    *i += k;
    *out = v;
    return (int)k;
}

/* strict_date_optional_time: yyyy[-MM[-dd[THH[:mm[:ss[.S+]]]]]][Z|+-HH[:mm]] */
static bool parse_iso(const char *s, size_t n, bool round_up, int64_t *out) {
    size_t i = 0;
    int64_t y, mo = round_up ? 12 : 1, dd = -1, hh = round_up ? 23 : 0, mi = round_up ? 59 : 0,
               ss = round_up ? 59 : 0, ms = round_up ? 999 : 0;
    int64_t tz = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) { neg = s[i] == '-'; i++; }
    if (!digits(s, n, &i, 4, 9, &y)) return false;
    if (neg) y = -y;
    if (i < n && s[i] == '-') {
        i++;
        if (digits(s, n, &i, 2, 2, &mo) != 2 || mo < 1 || mo > 12) return false;
        if (i < n && s[i] == '-') {
            i++;
            if (digits(s, n, &i, 2, 2, &dd) != 2) return false;
            if (i < n && s[i] == 'T') {
                i++;
                if (digits(s, n, &i, 2, 2, &hh) != 2 || hh > 23) return false;
                if (round_up) { mi = 59; ss = 59; ms = 999; }
                if (i < n && s[i] == ':') {
                    i++;
                    if (digits(s, n, &i, 2, 2, &mi) != 2 || mi > 59) return false;
                    if (i < n && s[i] == ':') {
                        i++;
                        if (digits(s, n, &i, 2, 2, &ss) != 2 || ss > 59) return false;
                        if (i < n && (s[i] == '.' || s[i] == ',')) {
                            i++;
                            size_t st = i;
                            int64_t frac;
                            int nd = digits(s, n, &i, 1, 9, &frac);
                            if (!nd) return false;
                            (void)st;
                            while (nd < 3) { frac *= 10; nd++; }
                            while (nd > 3) { frac /= 10; nd--; }
                            ms = frac;
                        }
                    }
                }
                if (i < n && s[i] == 'Z') i++;
                else if (i < n && (s[i] == '+' || s[i] == '-')) {
                    bool tneg = s[i] == '-';
                    i++;
                    int64_t th, tm = 0;
                    if (digits(s, n, &i, 2, 2, &th) != 2) return false;
                    if (i < n && s[i] == ':') i++;
                    if (i < n) { if (digits(s, n, &i, 2, 2, &tm) != 2) return false; }
                    tz = (th * 60 + tm) * 60000 * (tneg ? -1 : 1);
                }
            }
        }
    }
    if (i != n) return false;
    if (dd < 0) dd = round_up ? mdays(y, (int)mo) : 1;
    if (dd < 1 || dd > mdays(y, (int)mo)) return false;
    int64_t days = days_from_civil(y, (int)mo, (int)dd);
    *out = ((days * 24 + hh) * 60 + mi) * 60000 + ss * 1000 + ms - tz;
    return true;
}

static bool parse_epoch_millis(const char *s, size_t n, int64_t *out) {
    /* epoch_millis accepts an optional fraction (ignored beyond millis) */
    const char *dot = memchr(s, '.', n);
    size_t il = dot ? (size_t)(dot - s) : n;
    if (!tv_parse_i64(s, il, out)) return false;
    if (dot) {
        for (size_t i = il + 1; i < n; i++)
            if (s[i] < '0' || s[i] > '9') return false;
    }
    return true;
}

static bool format_has(const char *fmt, const char *name) {
    size_t nl = strlen(name);
    const char *p = fmt;
    while (p && *p) {
        const char *e = strstr(p, "||");
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == nl && memcmp(p, name, nl) == 0) return true;
        p = e ? e + 2 : NULL;
    }
    return false;
}

static bool parse_plain(const char *s, size_t n, const char *format, bool round_up, int64_t *out) {
    const char *fmt = format && *format ? format : "strict_date_optional_time||epoch_millis";
    const char *p = fmt;
    while (p && *p) {
        const char *e = strstr(p, "||");
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if ((tv_streq(p, l, "strict_date_optional_time") || tv_streq(p, l, "date_optional_time") ||
             tv_streq(p, l, "strict_date_optional_time_nanos") || tv_streq(p, l, "strict_date") ||
             tv_streq(p, l, "date") || tv_streq(p, l, "yyyy-MM-dd") ||
             tv_streq(p, l, "strict_date_time") || tv_streq(p, l, "date_time")) &&
            parse_iso(s, n, round_up, out))
            return true;
        if (tv_streq(p, l, "epoch_millis") && parse_epoch_millis(s, n, out)) return true;
        if (tv_streq(p, l, "epoch_second")) {
            int64_t v;
            if (tv_parse_i64(s, n, &v)) { *out = v * 1000; return true; }
        }
        p = e ? e + 2 : NULL;
    }
    return false;
}

static bool known_format(const char *format) {
    static const char *const ok[] = {"strict_date_optional_time", "date_optional_time",
                                     "strict_date_optional_time_nanos", "strict_date", "date",
                                     "yyyy-MM-dd", "strict_date_time", "date_time",
                                     "epoch_millis", "epoch_second"};
    const char *p = format;
    while (p && *p) {
        const char *e = strstr(p, "||");
        size_t l = e ? (size_t)(e - p) : strlen(p);
        bool found = false;
        for (size_t i = 0; i < TV_ARRAY_LEN(ok); i++)
            if (tv_streq(p, l, ok[i])) found = true;
        if (!found) return false;
        p = e ? e + 2 : NULL;
    }
    return true;
}

/* Applies a unit round (down, or up to the unit's last millisecond). */
static int64_t round_unit(int64_t t, char unit, bool up) {
    int64_t days = floor_div(t, 86400000);
    int64_t y;
    int m, d;
    civil_from_days(days, &y, &m, &d);
    int64_t start, next;
    switch (unit) {
    case 'y': start = days_from_civil(y, 1, 1) * 86400000; next = days_from_civil(y + 1, 1, 1) * 86400000; break;
    case 'M': start = days_from_civil(y, m, 1) * 86400000;
              next = (m == 12 ? days_from_civil(y + 1, 1, 1) : days_from_civil(y, m + 1, 1)) * 86400000; break;
    case 'w': {
        int64_t dow = ((days % 7) + 7 + 3) % 7; /* 1970-01-01 was a Thursday; Monday = 0 */
        start = (days - dow) * 86400000;
        next = start + 7 * 86400000LL;
        break;
    }
    case 'd': start = days * 86400000; next = start + 86400000; break;
    case 'h': case 'H': start = floor_div(t, 3600000) * 3600000; next = start + 3600000; break;
    case 'm': start = floor_div(t, 60000) * 60000; next = start + 60000; break;
    case 's': start = floor_div(t, 1000) * 1000; next = start + 1000; break;
    default: return t;
    }
    return up ? next - 1 : start;
}

static int64_t add_unit(int64_t t, int64_t n, char unit) {
    switch (unit) {
    case 'y': case 'M': {
        int64_t days = floor_div(t, 86400000);
        int64_t rem = t - days * 86400000;
        int64_t y;
        int m, d;
        civil_from_days(days, &y, &m, &d);
        int64_t months = y * 12 + (m - 1) + (unit == 'y' ? n * 12 : n);
        int64_t ny = floor_div(months, 12);
        int nm = (int)(months - ny * 12) + 1;
        if (d > mdays(ny, nm)) d = mdays(ny, nm);
        return days_from_civil(ny, nm, d) * 86400000 + rem;
    }
    case 'w': return t + n * 7 * 86400000LL;
    case 'd': return t + n * 86400000LL;
    case 'h': case 'H': return t + n * 3600000LL;
    case 'm': return t + n * 60000LL;
    case 's': return t + n * 1000LL;
    default: return t;
    }
}

tv_datemath_result tv_datemath_parse(const char *s, size_t n, const char *format, bool round_up,
                                     int64_t now_ms, int64_t *out) {
    if (format && *format && !known_format(format)) return TV_DATEMATH_UNSUPPORTED_FORMAT;
    int64_t t;
    size_t i;
    if (n >= 3 && memcmp(s, "now", 3) == 0) {
        t = now_ms;
        i = 3;
    } else {
        const char *bars = NULL;
        for (size_t k = 0; k + 1 < n; k++)
            if (s[k] == '|' && s[k + 1] == '|') { bars = s + k; break; }
        size_t dl = bars ? (size_t)(bars - s) : n;
        /* with math, the date itself is parsed without round-up */
        if (!parse_plain(s, dl, format, bars ? false : round_up, &t)) return TV_DATEMATH_BAD;
        if (!bars) { *out = t; return TV_DATEMATH_OK; }
        i = dl + 2;
    }
    while (i < n) {
        char c = s[i++];
        if (c == '/') {
            if (i >= n) return TV_DATEMATH_BAD;
            char u = s[i++];
            if (!strchr("yMwdhHms", u)) return TV_DATEMATH_BAD;
            t = round_unit(t, u, round_up);
        } else if (c == '+' || c == '-') {
            int64_t num = 1;
            size_t st = i;
            int64_t v = 0;
            while (i < n && s[i] >= '0' && s[i] <= '9') { v = v * 10 + (s[i] - '0'); i++; }
            if (i > st) num = v;
            if (i >= n) return TV_DATEMATH_BAD;
            char u = s[i++];
            if (!strchr("yMwdhHms", u)) return TV_DATEMATH_BAD;
            t = add_unit(t, c == '-' ? -num : num, u);
        } else {
            return TV_DATEMATH_BAD;
        }
    }
    *out = t;
    return TV_DATEMATH_OK;
}
