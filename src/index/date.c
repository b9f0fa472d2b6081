/*
 * date.c — OpenSearch dates: built-in formats, Java-style patterns, `||`
 * alternatives, printing, and date math.
 *
 * Algorithm. Every format alternative is either epoch_millis/epoch_second
 * (a decimal number) or a pattern in DateTimeFormatter syntax; each built-in
 * name (strict_date_optional_time, basic_date, ...) is an entry in a table
 * that gives the pattern to parse with, the pattern to print with and
 * whether the strict resolver applies. A small interpreter walks the
 * pattern and the input together: letter runs are fields (y M d H m s S
 * X Z a E ...), quoted text and punctuation are literals, `[...]` is an
 * optional section tried greedily (on failure the input position and the
 * fields are restored). Parsed fields become an instant through
 * days-from-civil arithmetic (Howard Hinnant's algorithm), so no libc time
 * zone state is touched and any year in ±292 million fits.
 *
 * Resolution follows java.time: built-in formats resolve strictly
 * (2021-02-30 fails), custom patterns "smartly" (the day is clamped to the
 * end of the month). Missing fields default to their minimum, or with
 * round_up (range query upper bounds) to their maximum, as OpenSearch's
 * round-up parser does.
 *
 * Alternatives rejected: strptime/timegm (locale and TZ dependent, no
 * fractions, no optional sections, no strictness control); compiling
 * patterns into a token array cached per field (patterns are a dozen
 * characters; interpreting them directly costs less than a cache lookup and
 * keeps the mapping free of date state).
 */
#include <stdio.h>

#include "index/date.h"

/* ------------------------------------------------------------ calendar */

int64_t tv_days_from_civil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

void tv_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static unsigned days_in_month(int64_t y, unsigned m) {
    static const unsigned dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : dm[m - 1];
}

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static const char *const month_short[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
static const char *const month_long[] = {"January", "February", "March",     "April",
                                         "May",     "June",     "July",      "August",
                                         "September", "October", "November", "December"};
static const char *const dow_short[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
static const char *const dow_long[] = {"Monday", "Tuesday", "Wednesday", "Thursday",
                                       "Friday", "Saturday", "Sunday"};

/* ------------------------------------------------------------ built-ins */

typedef struct builtin {
    const char *name;
    const char *parse;  /* pattern to parse with; NULL: epoch */
    const char *print;  /* pattern to print with */
    bool strict;        /* strict widths and resolver */
} builtin;

#define ISO_OPT "yyyy[-MM[-dd]]['T'HH[:mm[:ss[.S]]]][X]"
#define ISO_PRINT "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"

static const builtin builtins[] = {
    {"strict_date_optional_time", ISO_OPT, ISO_PRINT, true},
    {"date_optional_time", ISO_OPT, ISO_PRINT, false},
    {"strict_date_optional_time_nanos", ISO_OPT, "yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSSXXX", true},
    {"iso8601", ISO_OPT, ISO_PRINT, false},
    {"epoch_millis", NULL, NULL, true},
    {"epoch_second", NULL, NULL, true},
    {"strict_date", "yyyy-MM-dd", "yyyy-MM-dd", true},
    {"date", "yyyy-MM-dd", "yyyy-MM-dd", false},
    {"strict_date_time", "yyyy-MM-dd'T'HH:mm:ss.SX", ISO_PRINT, true},
    {"date_time", "yyyy-MM-dd'T'HH:mm:ss.SX", ISO_PRINT, false},
    {"strict_date_time_no_millis", "yyyy-MM-dd'T'HH:mm:ssX", "yyyy-MM-dd'T'HH:mm:ssXXX", true},
    {"date_time_no_millis", "yyyy-MM-dd'T'HH:mm:ssX", "yyyy-MM-dd'T'HH:mm:ssXXX", false},
    {"basic_date", "yyyyMMdd", "yyyyMMdd", true},
    {"basic_date_time", "yyyyMMdd'T'HHmmss.SX", "yyyyMMdd'T'HHmmss.SSSXX", true},
    {"basic_date_time_no_millis", "yyyyMMdd'T'HHmmssX", "yyyyMMdd'T'HHmmssXX", true},
    {"strict_date_hour_minute_second", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss", true},
    {"date_hour_minute_second", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss", false},
    {"strict_date_hour_minute_second_millis", "yyyy-MM-dd'T'HH:mm:ss.S",
     "yyyy-MM-dd'T'HH:mm:ss.SSS", true},
    {"date_hour_minute_second_millis", "yyyy-MM-dd'T'HH:mm:ss.S", "yyyy-MM-dd'T'HH:mm:ss.SSS",
     false},
    {"strict_date_hour_minute_second_fraction", "yyyy-MM-dd'T'HH:mm:ss.S",
     "yyyy-MM-dd'T'HH:mm:ss.SSS", true},
    {"date_hour_minute_second_fraction", "yyyy-MM-dd'T'HH:mm:ss.S", "yyyy-MM-dd'T'HH:mm:ss.SSS",
     false},
    {"strict_date_hour_minute", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mm", true},
    {"date_hour_minute", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mm", false},
    {"strict_date_hour", "yyyy-MM-dd'T'HH", "yyyy-MM-dd'T'HH", true},
    {"date_hour", "yyyy-MM-dd'T'HH", "yyyy-MM-dd'T'HH", false},
    {"strict_year_month_day", "yyyy-MM-dd", "yyyy-MM-dd", true},
    {"year_month_day", "yyyy-MM-dd", "yyyy-MM-dd", false},
    {"strict_year_month", "yyyy-MM", "yyyy-MM", true},
    {"year_month", "yyyy-MM", "yyyy-MM", false},
    {"strict_year", "yyyy", "yyyy", true},
    {"year", "yyyy", "yyyy", false},
    {"strict_hour_minute_second", "HH:mm:ss", "HH:mm:ss", true},
    {"hour_minute_second", "HH:mm:ss", "HH:mm:ss", false},
    {"strict_hour_minute", "HH:mm", "HH:mm", true},
    {"hour_minute", "HH:mm", "HH:mm", false},
    {"strict_hour", "HH", "HH", true},
    {"hour", "HH", "HH", false},
};

static const builtin *find_builtin(const char *name, size_t len) {
    for (size_t i = 0; i < TV_ARRAY_LEN(builtins); i++)
        if (tv_streq(name, len, builtins[i].name)) return &builtins[i];
    return NULL;
}

/* ------------------------------------------------------------ parsing */

enum {
    F_YEAR = 1, F_MONTH = 2, F_DAY = 4, F_HOUR = 8, F_MIN = 16, F_SEC = 32, F_FRAC = 64,
};

typedef struct dt {
    int64_t year;
    int month, day, hour, minute, second;
    int64_t nanos;
    int ampm;     /* -1 unset, 0 AM, 1 PM */
    int hour12;   /* -1 unset */
    bool has_zone;
    int32_t off;
    unsigned have;
} dt;

typedef struct pctx {
    const char *s, *end; /* input cursor */
    bool strict;         /* built-in: fixed widths, strict resolver */
    bool builtin;        /* built-in: fraction 1..9 digits, any offset form */
    bool bad_pattern;    /* pattern uses an unsupported letter */
    char bad_letter;
} pctx;

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Reads between min and max digits into *v. */
static bool read_digits(pctx *c, int min, int max, int64_t *v) {
    int n = 0;
    int64_t r = 0;
    while (n < max && c->s < c->end && is_digit(*c->s)) {
        r = r * 10 + (*c->s - '0');
        c->s++;
        n++;
    }
    if (n < min) return false;
    *v = r;
    return true;
}

static bool match_ci(pctx *c, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(c->end - c->s) < n) return false;
    for (size_t i = 0; i < n; i++) {
        char a = c->s[i], b = word[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a + 32);
        if (b >= 'A' && b <= 'Z') b = (char)(b + 32);
        if (a != b) return false;
    }
    c->s += n;
    return true;
}

/* Offset forms: Z (if allow_z), +HH, +HHMM, +HH:MM, +HH:MM:SS. */
static bool read_offset(pctx *c, bool allow_z, dt *t) {
    if (allow_z && c->s < c->end && *c->s == 'Z') {
        c->s++;
        t->has_zone = true;
        t->off = 0;
        return true;
    }
    if (c->s >= c->end || (*c->s != '+' && *c->s != '-')) return false;
    int sign = *c->s == '-' ? -1 : 1;
    c->s++;
    int64_t hh, mm = 0, ss = 0;
    if (!read_digits(c, 2, 2, &hh)) return false;
    if (c->s < c->end && *c->s == ':') {
        c->s++;
        if (!read_digits(c, 2, 2, &mm)) return false;
        if (c->s < c->end && *c->s == ':') {
            c->s++;
            if (!read_digits(c, 2, 2, &ss)) return false;
        }
    } else if (c->end - c->s >= 2 && is_digit(c->s[0]) && is_digit(c->s[1])) {
        read_digits(c, 2, 2, &mm);
    }
    if (hh > 18 || mm > 59 || ss > 59) return false;
    t->has_zone = true;
    t->off = sign * (int32_t)(hh * 3600 + mm * 60 + ss);
    return true;
}

static bool read_zone_name(pctx *c, dt *t) {
    if (match_ci(c, "UTC") || match_ci(c, "GMT") || match_ci(c, "UT")) {
        t->has_zone = true;
        t->off = 0;
        if (c->s < c->end && (*c->s == '+' || *c->s == '-')) return read_offset(c, false, t);
        return true;
    }
    return read_offset(c, true, t);
}

/* Finds the ']' matching the '[' at p (p points just after '['). */
static const char *match_bracket(const char *p, const char *pend) {
    int depth = 1;
    bool quoted = false;
    for (; p < pend; p++) {
        if (*p == '\'') quoted = !quoted;
        else if (!quoted && *p == '[') depth++;
        else if (!quoted && *p == ']' && --depth == 0) return p;
    }
    return pend;
}

/* True when the pattern at p starts a numeric field (for adjacent value
 * parsing: "yyyyMMdd" gives the year exactly its width). */
static bool next_is_numeric(const char *p, const char *pend) {
    if (p >= pend) return false;
    char l = *p;
    if (l == '[') return next_is_numeric(p + 1, pend);
    if (!is_alpha(l)) return false;
    size_t n = 0;
    while (p + n < pend && p[n] == l) n++;
    switch (l) {
    case 'y': case 'u': case 'Y': case 'd': case 'H': case 'h': case 'k': case 'K':
    case 'm': case 's': case 'S': case 'D':
        return true;
    case 'M': case 'L':
        return n <= 2;
    default:
        return false;
    }
}

static bool run_pattern(const char *p, const char *pend, pctx *c, dt *t);

static bool field(char l, size_t n, const char *after, const char *pend, pctx *c, dt *t) {
    int64_t v;
    bool fixed = c->strict;
    switch (l) {
    case 'y': case 'u': case 'Y': {
        bool neg = false;
        if (n == 2) {
            if (!read_digits(c, 2, 2, &v)) return false;
            v += 2000;
        } else {
            if (n >= 4 && c->s < c->end && (*c->s == '-' || *c->s == '+') && !c->strict) {
                neg = *c->s == '-';
                c->s++;
            }
            int min = (int)n, max = next_is_numeric(after, pend) ? (int)TV_MAX(n, 4) : 9;
            if (!c->strict && !next_is_numeric(after, pend)) min = 1;
            if (min > max) min = max;
            if (!read_digits(c, min, max, &v)) return false;
            if (neg) v = -v;
        }
        t->year = v;
        t->have |= F_YEAR;
        return true;
    }
    case 'M': case 'L':
        if (n >= 3) {
            for (int i = 0; i < 12; i++) {
                if ((n == 3 && match_ci(c, month_short[i])) || (n > 3 && match_ci(c, month_long[i]))) {
                    t->month = i + 1;
                    t->have |= F_MONTH;
                    return true;
                }
            }
            return false;
        }
        if (!read_digits(c, (n == 2 && fixed) ? 2 : 1, 2, &v) || v < 1 || v > 12) return false;
        t->month = (int)v;
        t->have |= F_MONTH;
        return true;
    case 'd':
        if (!read_digits(c, (n == 2 && fixed) ? 2 : 1, 2, &v) || v < 1 || v > 31) return false;
        t->day = (int)v;
        t->have |= F_DAY;
        return true;
    case 'H': case 'k':
        if (!read_digits(c, (n == 2 && fixed) ? 2 : 1, 2, &v)) return false;
        if (l == 'k') {
            if (v < 1 || v > 24) return false;
            if (v == 24) v = 0;
        }
        if (v > 23) return false;
        t->hour = (int)v;
        t->have |= F_HOUR;
        return true;
    case 'h': case 'K':
        if (!read_digits(c, (n == 2 && fixed) ? 2 : 1, 2, &v)) return false;
        if (l == 'h' ? (v < 1 || v > 12) : v > 11) return false;
        t->hour12 = (int)(v % 12);
        t->have |= F_HOUR;
        return true;
    case 'm':
        if (!read_digits(c, (n == 2 && fixed) ? 2 : 1, 2, &v) || v > 59) return false;
        t->minute = (int)v;
        t->have |= F_MIN;
        return true;
    case 's':
        if (!read_digits(c, (n == 2 && fixed) ? 2 : 1, 2, &v) || v > 59) return false;
        t->second = (int)v;
        t->have |= F_SEC;
        return true;
    case 'S': {
        const char *start = c->s;
        int min = c->builtin ? 1 : (int)n, max = c->builtin ? 9 : (int)n;
        if (max > 9) max = min = 9;
        if (!read_digits(c, min, max, &v)) return false;
        int digits = (int)(c->s - start);
        for (int i = digits; i < 9; i++) v *= 10;
        t->nanos = v;
        t->have |= F_FRAC;
        return true;
    }
    case 'a':
        if (match_ci(c, "AM")) t->ampm = 0;
        else if (match_ci(c, "PM")) t->ampm = 1;
        else return false;
        return true;
    case 'E':
        for (int i = 0; i < 7; i++)
            if ((n <= 3 && match_ci(c, dow_short[i])) || (n > 3 && match_ci(c, dow_long[i])))
                return true;
        return false;
    case 'X':
        return read_offset(c, true, t);
    case 'x':
        return read_offset(c, false, t);
    case 'Z':
        if (n == 4) {
            if (!match_ci(c, "GMT")) return false;
            t->has_zone = true;
            t->off = 0;
            if (c->s < c->end && (*c->s == '+' || *c->s == '-')) return read_offset(c, false, t);
            return true;
        }
        return read_offset(c, n >= 5 || c->builtin, t);
    case 'z': case 'V': case 'O':
        return read_zone_name(c, t);
    default:
        c->bad_pattern = true;
        c->bad_letter = l;
        return false;
    }
}

static bool run_pattern(const char *p, const char *pend, pctx *c, dt *t) {
    while (p < pend) {
        char ch = *p;
        if (ch == '[') {
            const char *close = match_bracket(p + 1, pend);
            pctx save_c = *c;
            dt save_t = *t;
            if (!run_pattern(p + 1, close, c, t)) {
                if (c->bad_pattern) return false;
                *c = save_c;
                *t = save_t;
            }
            p = close < pend ? close + 1 : pend;
        } else if (ch == ']') {
            p++; /* stray: ignore as java does not, but harmless */
        } else if (ch == '\'') {
            p++;
            if (p < pend && *p == '\'') { /* '' is a quote */
                if (c->s >= c->end || *c->s != '\'') return false;
                c->s++;
                p++;
                continue;
            }
            while (p < pend) {
                if (*p == '\'') {
                    if (p + 1 < pend && p[1] == '\'') {
                        if (c->s >= c->end || *c->s != '\'') return false;
                        c->s++;
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                if (c->s >= c->end || *c->s != *p) return false;
                c->s++;
                p++;
            }
        } else if (is_alpha(ch)) {
            size_t n = 0;
            while (p + n < pend && p[n] == ch) n++;
            if (!field(ch, n, p + n, pend, c, t)) return false;
            p += n;
        } else {
            if (c->s >= c->end || *c->s != ch) return false;
            c->s++;
            p++;
        }
    }
    return true;
}

static bool known_letter(char l) {
    return strchr("yuYMLdHkhKmsSaEXxZzVO", l) != NULL;
}

/* Java's reserved pattern letters that trove does not interpret. */
static bool java_letter(char l) { return strchr("GQqwWDFecnNABgv", l) != NULL; }

static tv_status check_pattern(const char *p, size_t len, const char *whole, tv_error *err) {
    const char *pend = p + len;
    bool quoted = false;
    for (; p < pend; p++) {
        if (*p == '\'') {
            quoted = !quoted;
            continue;
        }
        if (quoted || !is_alpha(*p)) continue;
        if (known_letter(*p)) continue;
        if (java_letter(*p))
            return tv_error_set(err, TROVE_EUNSUPPORTED,
                                "date format [%s] uses pattern letter [%c], which trove does not "
                                "support",
                                whole, *p);
        return tv_error_set(err, TROVE_EARG, "Invalid format: [%s]: Unknown pattern letter: %c",
                            whole, *p);
    }
    return TROVE_OK;
}

/* Resolves parsed fields to an instant: seconds since the epoch and the
 * nanosecond of that second (0..999999999). */
static bool resolve_inst(dt *t, bool strict, bool round_up, int32_t tz, const tv_tz *z,
                         int64_t *sec, int64_t *nano) {
    int64_t year = (t->have & F_YEAR) ? t->year : 1970;
    int month = (t->have & F_MONTH) ? t->month : (round_up ? 12 : 1);
    int day;
    if (t->have & F_DAY) {
        day = t->day;
        unsigned dim = days_in_month(year, (unsigned)month);
        if ((unsigned)day > dim) {
            if (strict) return false;
            day = (int)dim;
        }
    } else {
        day = round_up ? (int)days_in_month(year, (unsigned)month) : 1;
    }
    int hour;
    if (t->hour12 >= 0) {
        hour = t->hour12 + (t->ampm == 1 ? 12 : 0);
    } else if (t->have & F_HOUR) {
        hour = t->hour;
        if (t->ampm == 1 && hour < 12) hour += 12;
    } else {
        hour = round_up ? 23 : 0;
    }
    int minute = (t->have & F_MIN) ? t->minute : (round_up ? 59 : 0);
    int second = (t->have & F_SEC) ? t->second : (round_up ? 59 : 0);
    *nano = (t->have & F_FRAC) ? t->nanos : (round_up ? 999999999 : 0);
    if (year < -292000000 || year > 292000000) return false;
    int64_t days = tv_days_from_civil(year, (unsigned)month, (unsigned)day);
    int64_t local = ((days * 24 + hour) * 60 + minute) * 60 + second;
    if (!t->has_zone && z) {
        /* withZoneSameLocal from UTC: an overlap keeps offset 0 when valid */
        *sec = local - (local * 1000 - tv_tz_local_to_utc_prefer(z, local * 1000, 0)) / 1000;
        return true;
    }
    int32_t off = t->has_zone ? t->off : tz;
    *sec = local - off;
    return true;
}

static bool resolve(dt *t, bool strict, bool round_up, int32_t tz, const tv_tz *z, int64_t *ms) {
    int64_t sec, nano;
    if (!resolve_inst(t, strict, round_up, tz, z, &sec, &nano)) return false;
    *ms = sec * 1000 + nano / 1000000;
    return true;
}

/* epoch_millis / epoch_second: [-]digits[.digits] */
static bool parse_epoch(const char *s, size_t len, bool seconds, bool round_up, int64_t *ms) {
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        i++;
    }
    size_t start = i;
    uint64_t whole = 0;
    while (i < len && is_digit(s[i])) {
        if (whole > (UINT64_MAX - 9) / 10) return false;
        whole = whole * 10 + (uint64_t)(s[i] - '0');
        i++;
    }
    if (i == start) return false;
    int64_t frac_ms = 0; /* fraction of the unit, in units of 1e-3 (millis of a second) */
    bool has_frac = false;
    if (i < len && s[i] == '.') {
        i++;
        size_t fs = i;
        int nd = 0;
        int64_t f = 0;
        while (i < len && is_digit(s[i])) {
            if (nd < 3) {
                f = f * 10 + (s[i] - '0');
                nd++;
            }
            i++;
        }
        if (i == fs) return false;
        while (nd < 3) {
            f *= 10;
            nd++;
        }
        frac_ms = f;
        has_frac = true;
    }
    if (i != len) return false;
    if (seconds) {
        if (whole > (uint64_t)INT64_MAX / 1000 - 1) return false;
        int64_t v = (int64_t)whole * 1000 + frac_ms;
        if (!has_frac && round_up) v += 999;
        *ms = neg ? -v : v;
    } else {
        if (whole > (uint64_t)INT64_MAX) return false;
        int64_t v = (int64_t)whole;
        (void)frac_ms; /* sub-millisecond precision is dropped */
        *ms = neg ? -v : v;
    }
    return true;
}

/* epoch_millis / epoch_second to (seconds, nanos) keeping up to nanosecond
 * fractions, for date_nanos. */
static bool parse_epoch_inst(const char *s, size_t len, bool seconds, bool round_up, int64_t *sec,
                             int64_t *nano) {
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        i++;
    }
    size_t start = i;
    uint64_t whole = 0;
    while (i < len && is_digit(s[i])) {
        if (whole > (UINT64_MAX - 9) / 10) return false;
        whole = whole * 10 + (uint64_t)(s[i] - '0');
        i++;
    }
    if (i == start) return false;
    int fdigits = seconds ? 9 : 6; /* the fraction's resolution in nanos */
    int64_t frac = 0;
    bool has_frac = false;
    if (i < len && s[i] == '.') {
        i++;
        size_t fs = i;
        int nd = 0;
        while (i < len && is_digit(s[i])) {
            if (nd < fdigits) {
                frac = frac * 10 + (s[i] - '0');
                nd++;
            }
            i++;
        }
        if (i == fs) return false;
        while (nd < fdigits) {
            frac *= 10;
            nd++;
        }
        has_frac = true;
    }
    if (i != len) return false;
    __int128 total; /* nanoseconds */
    if (seconds) total = (__int128)whole * 1000000000 + frac;
    else total = (__int128)whole * 1000000 + frac;
    if (!has_frac && round_up) total += seconds ? 999999999 : 999999;
    if (neg) total = -total;
    __int128 q = total / 1000000000, r = total % 1000000000;
    if (r < 0) {
        r += 1000000000;
        q--;
    }
    if (q > INT64_MAX / 2 || q < INT64_MIN / 2) return false;
    *sec = (int64_t)q;
    *nano = (int64_t)r;
    return true;
}

/* As parse_one below, to (seconds, nanos). */
static int parse_one_inst(const char *f, size_t flen, const char *s, size_t len, bool round_up,
                          int32_t tz, int64_t *sec, int64_t *nano) {
    const builtin *b = find_builtin(f, flen);
    if (b && !b->parse)
        return parse_epoch_inst(s, len, b->name[6] == 's', round_up, sec, nano) ? 1 : 0;
    const char *pat = b ? b->parse : f;
    size_t plen = b ? strlen(pat) : flen;
    pctx c = {.s = s, .end = s + len, .strict = b ? b->strict : false, .builtin = b != NULL};
    dt t = {.month = 1, .day = 1, .ampm = -1, .hour12 = -1};
    if (!run_pattern(pat, pat + plen, &c, &t)) return c.bad_pattern ? -1 : 0;
    if (c.s != c.end) return 0;
    if (!t.have) return 0;
    return resolve_inst(&t, b ? b->strict : false, round_up, tz, NULL, sec, nano) ? 1 : 0;
}

/* Parses with one alternative [f, f+flen). 1 = ok, 0 = no match, -1 = bad format. */
static int parse_one(const char *f, size_t flen, const char *s, size_t len, bool round_up,
                     int32_t tz, const tv_tz *z, int64_t *ms) {
    const builtin *b = find_builtin(f, flen);
    if (b && !b->parse) return parse_epoch(s, len, b->name[6] == 's', round_up, ms) ? 1 : 0;
    const char *pat = b ? b->parse : f;
    size_t plen = b ? strlen(pat) : flen;
    pctx c = {.s = s, .end = s + len, .strict = b ? b->strict : false, .builtin = b != NULL};
    dt t = {.month = 1, .day = 1, .ampm = -1, .hour12 = -1};
    if (!run_pattern(pat, pat + plen, &c, &t)) return c.bad_pattern ? -1 : 0;
    if (c.s != c.end) return 0;
    if (!t.have) return 0;
    return resolve(&t, b ? b->strict : false, round_up, tz, z, ms) ? 1 : 0;
}

static const char *next_alt(const char *f, const char *fend) {
    for (const char *p = f; p + 1 < fend; p++)
        if (p[0] == '|' && p[1] == '|') return p;
    return fend;
}

tv_status tv_date_format_check(const char *format, tv_error *err) {
    if (!format || !*format) return tv_error_set(err, TROVE_EARG, "Empty format");
    const char *f = format, *fend = format + strlen(format);
    while (f <= fend) {
        const char *e = next_alt(f, fend);
        if (e == f) return tv_error_set(err, TROVE_EARG, "Invalid format: [%s]: empty pattern", format);
        if (!find_builtin(f, (size_t)(e - f))) {
            tv_status st = check_pattern(f, (size_t)(e - f), format, err);
            if (st) return st;
        }
        if (e == fend) break;
        f = e + 2;
    }
    return TROVE_OK;
}

static tv_status parse_ex(const char *format, const char *s, size_t len, bool round_up,
                          int32_t tz_offset_s, const tv_tz *z, int64_t *ms, tv_error *err) {
    if (!format) format = TV_DATE_DEFAULT_FORMAT;
    const char *f = format, *fend = format + strlen(format);
    while (f < fend) {
        const char *e = next_alt(f, fend);
        int r = parse_one(f, (size_t)(e - f), s, len, round_up, tz_offset_s, z, ms);
        if (r == 1) return TROVE_OK;
        if (e == fend) break;
        f = e + 2;
    }
    tv_error_set(err, TROVE_EARG, "failed to parse date field [%.*s] with format [%s]",
                 (int)TV_MIN(len, 512), s, format);
    if (next_alt(format, fend) != fend)
        tv_error_cause(err, TROVE_EDATEPARSE, "Failed to parse with all enclosed parsers");
    else
        tv_error_cause(err, TROVE_EDATEPARSE, "Text '%.*s' could not be parsed at index 0",
                       (int)TV_MIN(len, 512), s);
    return TROVE_EARG;
}

tv_status tv_date_parse_ex(const char *format, const char *s, size_t len, bool round_up,
                           int32_t tz_offset_s, int64_t *ms, tv_error *err) {
    return parse_ex(format, s, len, round_up, tz_offset_s, NULL, ms, err);
}

tv_status tv_date_parse_ex_tz(const char *format, const char *s, size_t len, bool round_up,
                              const tv_tz *z, int64_t *ms, tv_error *err) {
    return parse_ex(format, s, len, round_up, 0, z, ms, err);
}

tv_status tv_date_parse(const char *format, const char *s, size_t len, int64_t *ms, tv_error *err) {
    return tv_date_parse_ex(format, s, len, false, 0, ms, err);
}

/* java.time.Instant.toString: ISO-8601 UTC, the fraction in groups of
 * three digits and only as long as needed. */
static void instant_string(int64_t sec, int64_t nano, char *out, size_t cap) {
    int64_t days = floor_div(sec, 86400), rem = sec - days * 86400;
    int64_t y;
    unsigned m, d;
    tv_civil_from_days(days, &y, &m, &d);
    char frac[16] = "";
    if (nano) {
        if (nano % 1000000 == 0) snprintf(frac, sizeof frac, ".%03lld", (long long)(nano / 1000000));
        else if (nano % 1000 == 0) snprintf(frac, sizeof frac, ".%06lld", (long long)(nano / 1000));
        else snprintf(frac, sizeof frac, ".%09lld", (long long)nano);
    }
    snprintf(out, cap, "%s%04lld-%02u-%02uT%02d:%02d:%02d%sZ", y > 9999 ? "+" : "", (long long)y, m, d,
             (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60), frac);
}

tv_status tv_date_parse_ex_nanos(const char *format, const char *s, size_t len, bool round_up,
                                 int32_t tz_offset_s, int64_t *ns, tv_error *err) {
    if (!format) format = TV_DATE_NANOS_DEFAULT_FORMAT;
    const char *f = format, *fend = format + strlen(format);
    while (f < fend) {
        const char *e = next_alt(f, fend);
        int64_t sec, nano;
        int r = parse_one_inst(f, (size_t)(e - f), s, len, round_up, tz_offset_s, &sec, &nano);
        if (r == 1) {
            char inst[64];
            /* DateUtils.toLong: 1970-01-01 .. 2262-04-11T23:47:16.854775807 */
            if (sec < 0) {
                instant_string(sec, nano, inst, sizeof inst);
                return tv_error_set(err, TROVE_EARG,
                                    "date[%s] is before the epoch in 1970 and cannot be stored in "
                                    "nanosecond resolution",
                                    inst);
            }
            if (sec > INT64_MAX / 1000000000 ||
                (sec == INT64_MAX / 1000000000 && nano > INT64_MAX % 1000000000)) {
                instant_string(sec, nano, inst, sizeof inst);
                return tv_error_set(err, TROVE_EARG,
                                    "date[%s] is after 2262-04-11T23:47:16.854775807 and cannot be "
                                    "stored in nanosecond resolution",
                                    inst);
            }
            *ns = sec * 1000000000 + nano;
            return TROVE_OK;
        }
        if (e == fend) break;
        f = e + 2;
    }
    tv_error_set(err, TROVE_EARG, "failed to parse date field [%.*s] with format [%s]",
                 (int)TV_MIN(len, 512), s, format);
    if (next_alt(format, fend) != fend)
        tv_error_cause(err, TROVE_EDATEPARSE, "Failed to parse with all enclosed parsers");
    else
        tv_error_cause(err, TROVE_EDATEPARSE, "Text '%.*s' could not be parsed at index 0",
                       (int)TV_MIN(len, 512), s);
    return TROVE_EARG;
}

tv_status tv_date_parse_nanos(const char *format, const char *s, size_t len, int64_t *ns,
                              tv_error *err) {
    return tv_date_parse_ex_nanos(format, s, len, false, 0, ns, err);
}

/* ------------------------------------------------------------ printing */

typedef struct outbuf {
    char *out;
    size_t cap, len;
} outbuf;

static void put(outbuf *o, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (o->len + 1 < o->cap) o->out[o->len] = s[i];
        o->len++;
    }
    if (o->cap) o->out[TV_MIN(o->len, o->cap - 1)] = '\0';
}

static void putnum(outbuf *o, int64_t v, int width) {
    char tmp[48];
    if (width > 19) width = 19; /* Java caps padded widths at 19 digits */
    int n = snprintf(tmp, sizeof tmp, "%0*lld", width, (long long)v);
    if (n < 0) return;
    put(o, tmp, TV_MIN((size_t)n, sizeof tmp - 1));
}

typedef struct fields {
    int64_t year;
    unsigned month, day;
    int hour, minute, second, millis, dow;
    int64_t nanos; /* nano of second (millis * 1000000 for millisecond instants) */
    bool trim_frac; /* print the fraction with 3..9 digits, trailing zeros cut */
    bool zoned;     /* tv_date_format_tz: zone letters print off and zone */
    int32_t off;    /* seconds east of UTC */
    const tv_tz *zone;
} fields;

/* An offset as DateTimeFormatterBuilder.appendOffset prints it: style 'h'
 * "+HH", 'H' "+HHmm", 'M' "+HHMM", 'C' "+HH:MM", 's' "+HHMMss", 'S'
 * "+HH:MM:ss" (lower-case parts only when not zero); zero as zero. */
static void put_offset(outbuf *o, int32_t off, char style, const char *zero) {
    if (off == 0) {
        put(o, zero, strlen(zero));
        return;
    }
    int32_t a = off < 0 ? -off : off;
    int hh = a / 3600, mm = a / 60 % 60, ss = a % 60;
    char tmp[16];
    int n = snprintf(tmp, sizeof tmp, "%c%02d", off < 0 ? '-' : '+', hh);
    const char *colon = (style == 'C' || style == 'S') ? ":" : "";
    if (style != 'h' && (style != 'H' || mm || ss))
        n += snprintf(tmp + n, sizeof tmp - (size_t)n, "%s%02d", style == 'H' ? "" : colon, mm);
    if ((style == 's' || style == 'S') && ss)
        n += snprintf(tmp + n, sizeof tmp - (size_t)n, "%s%02d", colon, ss);
    put(o, tmp, (size_t)n);
}

/* appendLocalizedOffset: "GMT", "GMT+01:00" (full) or "GMT+1" (short). */
static void put_gmt(outbuf *o, int32_t off, bool full) {
    put(o, "GMT", 3);
    if (off == 0) return;
    int32_t a = off < 0 ? -off : off;
    int hh = a / 3600, mm = a / 60 % 60, ss = a % 60;
    char tmp[16];
    int n;
    if (full) {
        n = snprintf(tmp, sizeof tmp, "%c%02d:%02d", off < 0 ? '-' : '+', hh, mm);
        if (ss) n += snprintf(tmp + n, sizeof tmp - (size_t)n, ":%02d", ss);
    } else {
        n = snprintf(tmp, sizeof tmp, "%c%d", off < 0 ? '-' : '+', hh);
        if (mm || ss) n += snprintf(tmp + n, sizeof tmp - (size_t)n, ":%02d", mm);
        if (ss) n += snprintf(tmp + n, sizeof tmp - (size_t)n, ":%02d", ss);
    }
    put(o, tmp, (size_t)n);
}

/* The zone letters of a zoned print (X x Z O V z). */
static void put_zone(outbuf *o, char l, size_t n, const fields *fd) {
    static const char styles[] = "hMCsS";
    char st = styles[n > 5 ? 4 : n - 1];
    if (st == 'h') st = 'H';
    switch (l) {
    case 'X': put_offset(o, fd->off, st, "Z"); break;
    case 'x': {
        static const char *const zeros[] = {"+00", "+0000", "+00:00", "+0000", "+00:00"};
        put_offset(o, fd->off, st, zeros[n > 5 ? 4 : n - 1]);
        break;
    }
    case 'Z':
        if (n == 4) put_gmt(o, fd->off, true);
        else if (n >= 5) put_offset(o, fd->off, 'S', "Z");
        else put_offset(o, fd->off, 'M', "+0000");
        break;
    case 'O': put_gmt(o, fd->off, n >= 4); break;
    default: { /* V, z: the zone id */
        const char *id = tv_tz_id(fd->zone);
        put(o, id, strlen(id));
        break;
    }
    }
}

static void print_pattern(const char *p, const char *pend, const fields *fd, outbuf *o) {
    while (p < pend) {
        char ch = *p;
        if (ch == '[' || ch == ']') {
            p++;
        } else if (ch == '\'') {
            p++;
            if (p < pend && *p == '\'') {
                put(o, "'", 1);
                p++;
                continue;
            }
            while (p < pend) {
                if (*p == '\'') {
                    if (p + 1 < pend && p[1] == '\'') {
                        put(o, "'", 1);
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                put(o, p, 1);
                p++;
            }
        } else if (is_alpha(ch)) {
            size_t n = 0;
            while (p + n < pend && p[n] == ch) n++;
            int w = (int)n;
            switch (ch) {
            case 'y': case 'u': case 'Y':
                if (n == 2) {
                    putnum(o, ((fd->year % 100) + 100) % 100, 2);
                } else {
                    if (fd->year > 9999 && n >= 4) put(o, "+", 1);
                    if (fd->year < 0) {
                        put(o, "-", 1);
                        putnum(o, -fd->year, w);
                    } else {
                        putnum(o, fd->year, w);
                    }
                }
                break;
            case 'M': case 'L':
                if (n == 3) put(o, month_short[fd->month - 1], 3);
                else if (n > 3) put(o, month_long[fd->month - 1], strlen(month_long[fd->month - 1]));
                else putnum(o, fd->month, w);
                break;
            case 'd': putnum(o, fd->day, w); break;
            case 'H': putnum(o, fd->hour, w); break;
            case 'k': putnum(o, fd->hour == 0 ? 24 : fd->hour, w); break;
            case 'h': putnum(o, fd->hour % 12 == 0 ? 12 : fd->hour % 12, w); break;
            case 'K': putnum(o, fd->hour % 12, w); break;
            case 'm': putnum(o, fd->minute, w); break;
            case 's': putnum(o, fd->second, w); break;
            case 'S': {
                char digits[16];
                snprintf(digits, sizeof digits, "%09lld", (long long)fd->nanos);
                size_t nd = TV_MIN(n, 9);
                if (fd->trim_frac)
                    while (nd > 3 && digits[nd - 1] == '0') nd--;
                put(o, digits, nd);
                break;
            }
            case 'a': put(o, fd->hour < 12 ? "AM" : "PM", 2); break;
            case 'E':
                if (n <= 3) put(o, dow_short[fd->dow], 3);
                else put(o, dow_long[fd->dow], strlen(dow_long[fd->dow]));
                break;
            case 'X': case 'x': case 'Z': case 'z': case 'V': case 'O':
                if (fd->zoned) {
                    put_zone(o, ch, n, fd);
                    break;
                }
                if (ch == 'X') put(o, "Z", 1);
                else if (ch == 'x') put(o, n == 1 ? "+00" : n == 3 ? "+00:00" : "+0000", n == 1 ? 3 : n == 3 ? 6 : 5);
                else if (ch == 'Z') put(o, n == 4 ? "GMT" : n >= 5 ? "Z" : "+0000", n == 4 ? 3 : n >= 5 ? 1 : 5);
                else put(o, "UTC", 3);
                break;
            default: break;
            }
            p += n;
        } else {
            put(o, p, 1);
            p++;
        }
    }
}

static size_t format_ms(int64_t ms, const char *format, const tv_tz *z, char *out, size_t cap) {
    outbuf o = {out, cap, 0};
    if (cap) out[0] = '\0';
    if (!format) format = TV_DATE_DEFAULT_FORMAT;
    const char *fend = format + strlen(format);
    const char *e = next_alt(format, fend);
    const builtin *b = find_builtin(format, (size_t)(e - format));
    if (b && !b->parse) {
        char tmp[48];
        int n;
        if (b->name[6] == 's') {
            int64_t sec = floor_div(ms, 1000), rem = ms - sec * 1000;
            n = rem ? snprintf(tmp, sizeof tmp, "%lld.%03lld", (long long)sec, (long long)rem)
                    : snprintf(tmp, sizeof tmp, "%lld", (long long)sec);
            /* trim trailing zeros of the fraction */
            while (rem && n > 0 && tmp[n - 1] == '0') n--;
        } else {
            n = snprintf(tmp, sizeof tmp, "%lld", (long long)ms);
        }
        put(&o, tmp, (size_t)n);
        return o.len;
    }
    fields fd = {0};
    if (z) {
        fd.zoned = true;
        fd.zone = z;
        fd.off = tv_tz_offset(z, ms);
        if (__builtin_add_overflow(ms, (int64_t)fd.off * 1000, &ms)) fd.off = 0;
    }
    int64_t days = floor_div(ms, 86400000);
    int64_t rem = ms - days * 86400000;
    tv_civil_from_days(days, &fd.year, &fd.month, &fd.day);
    fd.hour = (int)(rem / 3600000);
    fd.minute = (int)(rem / 60000 % 60);
    fd.second = (int)(rem / 1000 % 60);
    fd.millis = (int)(rem % 1000);
    fd.nanos = (int64_t)fd.millis * 1000000;
    /* strict_date_optional_time_nanos prints 3 to 9 fraction digits: a
     * millisecond value (a date_histogram key of a date_nanos field) 3 */
    fd.trim_frac = b && strcmp(b->name, "strict_date_optional_time_nanos") == 0;
    fd.dow = (int)(((days % 7) + 7 + 3) % 7); /* 1970-01-01 was a Thursday (index 3) */
    if (b && fd.off == 0 && fd.year >= 0 && fd.year <= 9999 && !strcmp(b->name, "strict_date_optional_time")) {
        /* the default format at offset 0, the common case of every
         * date_histogram key: digits by hand, as the pattern prints them */
        char t[24];
        unsigned y = (unsigned)fd.year;
        t[0] = (char)('0' + y / 1000); t[1] = (char)('0' + y / 100 % 10); t[2] = (char)('0' + y / 10 % 10); t[3] = (char)('0' + y % 10);
        t[4] = '-'; t[5] = (char)('0' + fd.month / 10); t[6] = (char)('0' + fd.month % 10);
        t[7] = '-'; t[8] = (char)('0' + fd.day / 10); t[9] = (char)('0' + fd.day % 10);
        t[10] = 'T'; t[11] = (char)('0' + fd.hour / 10); t[12] = (char)('0' + fd.hour % 10);
        t[13] = ':'; t[14] = (char)('0' + fd.minute / 10); t[15] = (char)('0' + fd.minute % 10);
        t[16] = ':'; t[17] = (char)('0' + fd.second / 10); t[18] = (char)('0' + fd.second % 10);
        t[19] = '.'; t[20] = (char)('0' + fd.millis / 100); t[21] = (char)('0' + fd.millis / 10 % 10); t[22] = (char)('0' + fd.millis % 10);
        t[23] = 'Z';
        put(&o, t, sizeof t);
        return o.len;
    }
    const char *pat = b ? b->print : format;
    size_t plen = b ? strlen(pat) : (size_t)(e - format);
    print_pattern(pat, pat + plen, &fd, &o);
    return o.len;
}

size_t tv_date_format(int64_t ms, const char *format, char *out, size_t cap) {
    return format_ms(ms, format, NULL, out, cap);
}

size_t tv_date_format_tz(int64_t ms, const char *format, const tv_tz *z, char *out, size_t cap) {
    return format_ms(ms, format, z ? z : tv_tz_utc(), out, cap);
}

size_t tv_date_format_nanos(int64_t ns, const char *format, char *out, size_t cap) {
    int64_t ms = floor_div(ns, 1000000), sub = ns - ms * 1000000; /* nanos below the milli */
    if (!format) format = TV_DATE_NANOS_DEFAULT_FORMAT;
    const char *fend = format + strlen(format);
    const char *e = next_alt(format, fend);
    const builtin *b = find_builtin(format, (size_t)(e - format));
    outbuf o = {out, cap, 0};
    if (cap) out[0] = '\0';
    if (b && !b->parse) { /* epoch_millis / epoch_second with the sub-unit fraction */
        char tmp[64];
        int n;
        if (b->name[6] == 's') {
            int64_t sec = floor_div(ns, 1000000000), rem = ns - sec * 1000000000;
            n = rem ? snprintf(tmp, sizeof tmp, "%lld.%09lld", (long long)sec, (long long)rem)
                    : snprintf(tmp, sizeof tmp, "%lld", (long long)sec);
            while (rem && n > 0 && tmp[n - 1] == '0') n--;
        } else {
            n = sub ? snprintf(tmp, sizeof tmp, "%lld.%06lld", (long long)ms, (long long)sub)
                    : snprintf(tmp, sizeof tmp, "%lld", (long long)ms);
            while (sub && n > 0 && tmp[n - 1] == '0') n--;
        }
        put(&o, tmp, (size_t)n);
        return o.len;
    }
    fields fd = {0};
    int64_t days = floor_div(ms, 86400000);
    int64_t rem = ms - days * 86400000;
    tv_civil_from_days(days, &fd.year, &fd.month, &fd.day);
    fd.hour = (int)(rem / 3600000);
    fd.minute = (int)(rem / 60000 % 60);
    fd.second = (int)(rem / 1000 % 60);
    fd.millis = (int)(rem % 1000);
    fd.nanos = (int64_t)fd.millis * 1000000 + sub;
    /* strict_date_optional_time_nanos prints 3 to 9 fraction digits */
    fd.trim_frac = b && strcmp(b->name, "strict_date_optional_time_nanos") == 0;
    fd.dow = (int)(((days % 7) + 7 + 3) % 7); /* 1970-01-01 was a Thursday (index 3) */
    const char *pat = b ? b->print : format;
    size_t plen = b ? strlen(pat) : (size_t)(e - format);
    print_pattern(pat, pat + plen, &fd, &o);
    return o.len;
}

/* ------------------------------------------------------------ date math */

tv_status tv_date_parse_tz(const char *s, size_t len, int32_t *offset_s, tv_error *err) {
    pctx c = {.s = s, .end = s + len};
    dt t = {.ampm = -1, .hour12 = -1};
    if (len && read_zone_name(&c, &t) && c.s == c.end) {
        *offset_s = t.off;
        return TROVE_OK;
    }
    /* region ids look like Area/City */
    for (size_t i = 0; i < len; i++)
        if (s[i] == '/')
            return tv_error_set(err, TROVE_EUNSUPPORTED,
                                "time zone [%.*s] is not supported by trove: only fixed offsets "
                                "and UTC are",
                                (int)TV_MIN(len, 256), s);
    return tv_error_set(err, TROVE_EARG, "Unknown time-zone ID: %.*s", (int)TV_MIN(len, 256), s);
}

/* Rounds local time t (ms) down to the start of unit u. */
static int64_t round_down(int64_t t, char u) {
    int64_t days = floor_div(t, 86400000);
    switch (u) {
    case 's': return floor_div(t, 1000) * 1000;
    case 'm': return floor_div(t, 60000) * 60000;
    case 'h': case 'H': return floor_div(t, 3600000) * 3600000;
    case 'd': return days * 86400000;
    case 'w': { /* ISO weeks start on Monday */
        int64_t dow = ((days % 7) + 7 + 3) % 7;
        return (days - dow) * 86400000;
    }
    case 'M': case 'y': {
        int64_t y;
        unsigned m, d;
        tv_civil_from_days(days, &y, &m, &d);
        return tv_days_from_civil(y, u == 'y' ? 1 : m, 1) * 86400000;
    }
    default: return t;
    }
}

static int64_t add_months(int64_t t, int64_t n) {
    int64_t days = floor_div(t, 86400000), rem = t - days * 86400000;
    int64_t y;
    unsigned m, d;
    tv_civil_from_days(days, &y, &m, &d);
    int64_t total = y * 12 + (m - 1) + n;
    int64_t ny = floor_div(total, 12);
    unsigned nm = (unsigned)(total - ny * 12) + 1;
    unsigned dim = days_in_month(ny, nm);
    if (d > dim) d = dim;
    return tv_days_from_civil(ny, nm, d) * 86400000 + rem;
}

/* Adds n units; false on overflow (years beyond +-292 million). */
static bool add_unit(int64_t *t, char u, int64_t n) {
    const int64_t lim = INT64_C(9000000000000000000);
    if (*t > lim / 2 || *t < -lim / 2) return false;
    switch (u) {
    case 'y': *t = add_months(*t, n * 12); return true;
    case 'M': *t = add_months(*t, n); return true;
    case 'w': *t += n * 7 * 86400000; return true;
    case 'd': *t += n * 86400000; return true;
    case 'h': case 'H': *t += n * 3600000; return true;
    case 'm': *t += n * 60000; return true;
    case 's': *t += n * 1000; return true;
    default: return true;
    }
}

/* A ZonedDateTime: local time and the offset in force. With z NULL the
 * zone is the fixed offset fix (seconds). Date units (y M w d) and
 * rounding change the local time and resolve it keeping the current offset
 * when still valid (ZonedDateTime's resolveLocal); time units (h m s) move
 * the instant (resolveInstant). */
typedef struct zdt {
    int64_t local;
    int32_t off;
    const tv_tz *z;
} zdt;

static void zdt_instant(zdt *d, int64_t inst) {
    d->off = d->z ? tv_tz_offset(d->z, inst) : d->off;
    d->local = inst + (int64_t)d->off * 1000;
}

static void zdt_local(zdt *d, int64_t local) {
    if (!d->z) {
        d->local = local;
        return;
    }
    int32_t off = 0, before = 0, after = 0;
    int64_t at;
    switch (tv_tz_local_info(d->z, local, &off, &before, &after, &at)) {
    case TV_TZ_LOCAL_ONE: d->off = off; d->local = local; break;
    case TV_TZ_LOCAL_GAP: /* later by the gap's length, in the offset after */
        d->local = local + ((int64_t)after - before) * 1000;
        d->off = after;
        break;
    default:
        if (d->off != before && d->off != after) d->off = before;
        d->local = local;
        break;
    }
}

static bool time_unit(char u) { return u == 'h' || u == 'H' || u == 'm' || u == 's'; }

static tv_status apply_math(const char *m, size_t len, const char *whole, size_t wlen,
                            int64_t *t, bool round_up, int32_t tz, const tv_tz *z, tv_error *err) {
    const int64_t lim = INT64_C(4000000000000000000);
    if (z && (*t > lim || *t < -lim)) goto overflow;
    zdt d = {.off = tz, .z = z};
    zdt_instant(&d, *t);
    size_t i = 0;
    while (i < len) {
        char op = m[i++];
        bool round = false;
        int sign = 1;
        if (op == '/') round = true;
        else if (op == '+') sign = 1;
        else if (op == '-') sign = -1;
        else
            return tv_error_set(err, TROVE_EARG, "operator not supported for date math [%.*s]",
                                (int)TV_MIN(wlen, 512), whole);
        if (i >= len)
            return tv_error_set(err, TROVE_EARG, "truncated date math [%.*s]",
                                (int)TV_MIN(wlen, 512), whole);
        int64_t num = 1;
        if (!round && is_digit(m[i])) {
            num = 0;
            while (i < len && is_digit(m[i])) {
                if (num > 100000000) 
                    return tv_error_set(err, TROVE_EARG, "failed to parse date math [%.*s]",
                                        (int)TV_MIN(wlen, 512), whole);
                num = num * 10 + (m[i] - '0');
                i++;
            }
        } else if (round && is_digit(m[i])) {
            return tv_error_set(err, TROVE_EARG,
                                "rounding `/` can only be used on single unit types [%.*s]",
                                (int)TV_MIN(wlen, 512), whole);
        }
        if (i >= len)
            return tv_error_set(err, TROVE_EARG, "truncated date math [%.*s]",
                                (int)TV_MIN(wlen, 512), whole);
        char u = m[i++];
        if (!strchr("yMwdhHms", u))
            return tv_error_set(err, TROVE_EARG, "unit [%c] not supported for date math [%.*s]",
                                u, (int)TV_MIN(wlen, 512), whole);
        int64_t n = round ? 1 : sign * num;
        if (round) zdt_local(&d, round_down(d.local, u));
        if (!round || round_up) {
            int64_t v;
            if (time_unit(u)) {
                v = d.local - (int64_t)d.off * 1000;
                if (!add_unit(&v, u, n)) goto overflow;
                zdt_instant(&d, v);
            } else {
                v = d.local;
                if (!add_unit(&v, u, n)) goto overflow;
                zdt_local(&d, v);
            }
        }
        if (round && round_up) zdt_instant(&d, d.local - (int64_t)d.off * 1000 - 1);
    }
    *t = d.local - (int64_t)d.off * 1000;
    return TROVE_OK;
overflow:
    return tv_error_set(err, TROVE_EARG, "failed to parse date math [%.*s]: out of range",
                        (int)TV_MIN(wlen, 512), whole);
}

static tv_status math_impl(const char *format, const char *expr, size_t len, int64_t now_ms,
                           bool round_up, int32_t tz_offset_s, const tv_tz *z, int64_t *ms,
                           tv_error *err) {
    if (len >= 3 && memcmp(expr, "now", 3) == 0) {
        int64_t t = now_ms;
        tv_status st = apply_math(expr + 3, len - 3, expr, len, &t, round_up, tz_offset_s, z, err);
        if (st) return st;
        *ms = t;
        return TROVE_OK;
    }
    const char *sep = NULL;
    for (size_t i = 0; i + 1 < len; i++)
        if (expr[i] == '|' && expr[i + 1] == '|') {
            sep = expr + i;
            break;
        }
    if (!sep) return parse_ex(format, expr, len, round_up, tz_offset_s, z, ms, err);
    int64_t t;
    tv_status st = parse_ex(format, expr, (size_t)(sep - expr), false, tz_offset_s, z, &t, err);
    if (st) return st;
    st = apply_math(sep + 2, len - (size_t)(sep + 2 - expr), expr, len, &t, round_up, tz_offset_s,
                    z, err);
    if (st) return st;
    *ms = t;
    return TROVE_OK;
}

tv_status tv_date_math_ex(const char *format, const char *expr, size_t len, int64_t now_ms,
                          bool round_up, int32_t tz_offset_s, int64_t *ms, tv_error *err) {
    return math_impl(format, expr, len, now_ms, round_up, tz_offset_s, NULL, ms, err);
}

tv_status tv_date_math_tz(const char *format, const char *expr, size_t len, int64_t now_ms,
                          bool round_up, const tv_tz *z, int64_t *ms, tv_error *err) {
    return math_impl(format, expr, len, now_ms, round_up, 0, z ? z : tv_tz_utc(), ms, err);
}

tv_status tv_date_math(const char *format, const char *expr, size_t len, int64_t now_ms,
                       bool round_up, int64_t *ms, tv_error *err) {
    return tv_date_math_ex(format, expr, len, now_ms, round_up, 0, ms, err);
}
