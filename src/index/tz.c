/*
 * tz.c — time zones: java.time's zone id grammar, TZif files from the
 * system tz database, and the POSIX TZ rule of their footers.
 *
 * Representation. A zone is its initial offset plus a table of
 * transitions (UTC seconds, strictly increasing, each with the offset in
 * force from then on), and optionally a rule (standard and daylight
 * offsets, the two POSIX dates and times) that generates the transitions
 * after the table's end, year by year. Transitions that do not change the
 * total offset are dropped when the table is built, because java.time's
 * ZoneRules has none (they would otherwise show as "previous transitions"
 * to the rounding code).
 *
 * Lookups. Every query reduces to two primitives: the last transition at
 * or before a second (binary search in the table, or for instants past
 * the table the rule's transitions of that year and the one before,
 * computed in O(1)) and the first transition after a second. A local
 * date-time is resolved by walking the transitions of a four-day window
 * around it: a transition makes the local times [at+min(before,after),
 * at+max(before,after)) a gap (offset grows) or an overlap (it shrinks);
 * the last transition whose window start is at or before the local time
 * decides. Offsets are bounded to +-18 hours (java.time's limit; every
 * TZif file outside that range is rejected), so a transition more than two
 * days from a local time cannot affect it.
 *
 * Loading. tv_tz_get parses the id with ZoneId.of's grammar; offsets
 * become fixed zones, region ids are read from $TZDIR (default
 * /usr/share/zoneinfo) after the same syntax check java.time makes, and
 * ids java.time's own database lacks (posix/, right/, localtime, ...)
 * are refused. Zones are cached in a mutex-guarded list for the process;
 * the number of distinct zones a process sees is small.
 *
 * Alternatives rejected: libc's localtime_r/mktime (one process-wide TZ,
 * no way to ask about a zone by name without setenv races, and mktime's
 * gap/overlap choice is not java.time's); expanding the footer rule into
 * the table up to some year (a cut-off year would be wrong past it and
 * costs memory per zone, while the per-year computation is a few
 * divisions).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "index/date.h"
#include "index/tz.h"

#define MAX_OFF (18 * 3600)
#define WINDOW (2 * 86400)
/* Transitions beyond +-1e14 s (3 million years) are outside the table;
 * instants and local times are clamped to +-2^62 ms (146 million years),
 * so no sum of an instant and an offset can overflow. */
#define TABLE_LIMIT INT64_C(100000000000000)
#define MS_LIMIT (INT64_C(1) << 62)

static int64_t clampms(int64_t v) { return v > MS_LIMIT ? MS_LIMIT : v < -MS_LIMIT ? -MS_LIMIT : v; }

typedef struct rule_date {
    char kind; /* 'J' (1..365, no Feb 29), 'D' (0..365), 'M' (month.week.day) */
    int a, b, c;
    int32_t time; /* seconds after local midnight, -167h..167h */
} rule_date;

struct tv_tz {
    char *id;
    bool fixed;
    bool owned; /* from tv_tz_from_tzif: tv_tz_free may free it */
    int32_t off0; /* offset before the first transition */
    size_t n;
    int64_t *at;  /* transition instants, UTC seconds */
    int32_t *off; /* off[i]: the offset from at[i] on */
    bool rule;    /* the footer rule generates transitions after rule_after */
    int64_t rule_after;
    int32_t std, dst;
    rule_date rs, re;
};

typedef struct trans {
    int64_t at;
    int32_t before, after;
} trans;

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* ------------------------------------------------------------ rules */

/* Days since the epoch of the rule's date in year y. */
static int64_t rule_day(int64_t y, const rule_date *r) {
    int64_t jan1 = tv_days_from_civil(y, 1, 1);
    switch (r->kind) {
    case 'J': return jan1 + r->a - 1 + (is_leap(y) && r->a >= 60);
    case 'D': return jan1 + r->a;
    default: {
        static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        int64_t first = tv_days_from_civil(y, (unsigned)r->a, 1);
        int64_t wd = ((first + 4) % 7 + 7) % 7; /* 1970-01-01 was a Thursday; Sunday = 0 */
        int64_t day = first + (r->c - wd + 7) % 7 + 7 * (r->b - 1);
        int64_t dim = dm[r->a - 1] + (r->a == 2 && is_leap(y));
        while (day >= first + dim) day -= 7;
        return day;
    }
    }
}

/* The rule's two transitions of year y, in time order. */
static void rule_year(const tv_tz *z, int64_t y, trans out[2]) {
    trans s = {rule_day(y, &z->rs) * 86400 + z->rs.time - z->std, z->std, z->dst};
    trans e = {rule_day(y, &z->re) * 86400 + z->re.time - z->dst, z->dst, z->std};
    if (s.at <= e.at) {
        out[0] = s;
        out[1] = e;
    } else {
        out[0] = e;
        out[1] = s;
    }
}

static int64_t year_of(int64_t sec) {
    int64_t y;
    unsigned m, d;
    tv_civil_from_days(floor_div(sec, 86400), &y, &m, &d);
    return y;
}

/* The offset the rule alone gives at second s. */
static int32_t rule_offset(const tv_tz *z, int64_t s) {
    int64_t y = year_of(s);
    for (int64_t k = y + 1; k >= y - 2; k--) {
        trans tr[2];
        rule_year(z, k, tr);
        for (int i = 1; i >= 0; i--)
            if (tr[i].at <= s) return tr[i].after;
    }
    return z->std;
}

/* ------------------------------------------------------------ lookups */

/* The last transition with at <= s. */
static bool last_le(const tv_tz *z, int64_t s, trans *t) {
    if (z->rule && s > z->rule_after) {
        int64_t y = year_of(s);
        for (int64_t k = y + 1; k >= y - 1; k--) {
            trans tr[2];
            rule_year(z, k, tr);
            for (int i = 1; i >= 0; i--)
                if (tr[i].at <= s && tr[i].at > z->rule_after) {
                    *t = tr[i];
                    return true;
                }
        }
    }
    size_t lo = 0, hi = z->n; /* first index with at > s */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (z->at[mid] <= s) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return false;
    t->at = z->at[lo - 1];
    t->before = lo >= 2 ? z->off[lo - 2] : z->off0;
    t->after = z->off[lo - 1];
    return true;
}

/* The first transition with at > s. */
static bool first_gt(const tv_tz *z, int64_t s, trans *t) {
    size_t lo = 0, hi = z->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (z->at[mid] <= s) lo = mid + 1;
        else hi = mid;
    }
    if (lo < z->n) {
        t->at = z->at[lo];
        t->before = lo ? z->off[lo - 1] : z->off0;
        t->after = z->off[lo];
        return true;
    }
    if (!z->rule) return false;
    int64_t from = s > z->rule_after ? s : z->rule_after;
    int64_t y = year_of(from);
    for (int64_t k = y - 1; k <= y + 2; k++) {
        trans tr[2];
        rule_year(z, k, tr);
        for (int i = 0; i < 2; i++)
            if (tr[i].at > from) {
                *t = tr[i];
                return true;
            }
    }
    return false;
}

int32_t tv_tz_offset(const tv_tz *z, int64_t utc_ms) {
    if (z->fixed) return z->off0;
    trans t;
    return last_le(z, floor_div(clampms(utc_ms), 1000), &t) ? t.after : z->off0;
}

bool tv_tz_prev_transition(const tv_tz *z, int64_t utc_ms, int64_t *at_ms) {
    if (z->fixed) return false;
    utc_ms = clampms(utc_ms);
    trans t; /* at*1000 < utc_ms  <=>  at <= ceil(utc_ms / 1000) - 1 */
    if (!last_le(z, -floor_div(-utc_ms, 1000) - 1, &t)) return false;
    *at_ms = t.at * 1000;
    return true;
}

tv_tz_local_kind tv_tz_local_info(const tv_tz *z, int64_t local_ms, int32_t *off, int32_t *before,
                                  int32_t *after, int64_t *at_ms) {
    if (z->fixed) {
        *off = z->off0;
        return TV_TZ_LOCAL_ONE;
    }
    local_ms = clampms(local_ms);
    int64_t ls = floor_div(local_ms, 1000);
    trans t, cand = {0, 0, 0};
    bool have = false;
    int64_t s = ls - WINDOW;
    int32_t cur = last_le(z, s, &t) ? t.after : z->off0;
    while (first_gt(z, s, &t) && t.at <= ls + WINDOW) {
        int32_t lo = t.before < t.after ? t.before : t.after;
        if ((t.at + lo) * 1000 <= local_ms) {
            cand = t;
            have = true;
        }
        s = t.at;
    }
    if (!have) {
        *off = cur;
        return TV_TZ_LOCAL_ONE;
    }
    int32_t hi = cand.before > cand.after ? cand.before : cand.after;
    if (local_ms < (cand.at + hi) * 1000) {
        *before = cand.before;
        *after = cand.after;
        *at_ms = cand.at * 1000;
        return cand.after > cand.before ? TV_TZ_LOCAL_GAP : TV_TZ_LOCAL_OVERLAP;
    }
    *off = cand.after;
    return TV_TZ_LOCAL_ONE;
}

int64_t tv_tz_local_to_utc_prefer(const tv_tz *z, int64_t local_ms, int32_t prefer_s) {
    int32_t off = 0, before = 0, after = 0;
    int64_t at;
    switch (tv_tz_local_info(z, local_ms, &off, &before, &after, &at)) {
    case TV_TZ_LOCAL_ONE: return local_ms - (int64_t)off * 1000;
    case TV_TZ_LOCAL_GAP: return local_ms - (int64_t)before * 1000;
    default: return local_ms - (int64_t)(prefer_s == after ? after : before) * 1000;
    }
}

int64_t tv_tz_local_to_utc(const tv_tz *z, int64_t local_ms) {
    int32_t off = 0, before = 0, after = 0;
    int64_t at;
    if (tv_tz_local_info(z, local_ms, &off, &before, &after, &at) == TV_TZ_LOCAL_ONE)
        return local_ms - (int64_t)off * 1000;
    return local_ms - (int64_t)before * 1000;
}

const char *tv_tz_id(const tv_tz *z) { return z->id; }
bool tv_tz_is_fixed(const tv_tz *z) { return z->fixed; }

static tv_tz utc_zone = {.id = (char *)"Z", .fixed = true};
const tv_tz *tv_tz_utc(void) { return &utc_zone; }

void tv_tz_free(tv_tz *z) {
    if (!z || !z->owned) return;
    tv_free(z->id);
    tv_free(z->at);
    tv_free(z->off);
    tv_free(z);
}

/* ------------------------------------------------------------ POSIX TZ */

typedef struct cur {
    const char *p, *end;
} cur;

static bool digit(const cur *c) { return c->p < c->end && *c->p >= '0' && *c->p <= '9'; }

static bool num(cur *c, int maxdig, int *v) {
    int n = 0, r = 0;
    while (n < maxdig && digit(c)) {
        r = r * 10 + (*c->p++ - '0');
        n++;
    }
    *v = r;
    return n > 0;
}

/* [+-]hh[:mm[:ss]] with hours up to maxh; seconds, signed. */
static bool hms(cur *c, int maxh, int32_t *out) {
    int sign = 1, h, m = 0, s = 0;
    if (c->p < c->end && (*c->p == '+' || *c->p == '-')) sign = *c->p++ == '-' ? -1 : 1;
    if (!num(c, 3, &h) || h > maxh) return false;
    if (c->p < c->end && *c->p == ':') {
        c->p++;
        if (!num(c, 2, &m) || m > 59) return false;
        if (c->p < c->end && *c->p == ':') {
            c->p++;
            if (!num(c, 2, &s) || s > 59) return false;
        }
    }
    *out = sign * (h * 3600 + m * 60 + s);
    return true;
}

static bool posix_name(cur *c) {
    if (c->p < c->end && *c->p == '<') {
        c->p++;
        const char *s = c->p;
        while (c->p < c->end && *c->p != '>') {
            char ch = *c->p;
            if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
                  ch == '+' || ch == '-'))
                return false;
            c->p++;
        }
        if (c->p >= c->end || c->p - s < 3) return false;
        c->p++;
        return true;
    }
    const char *s = c->p;
    while (c->p < c->end && ((*c->p >= 'A' && *c->p <= 'Z') || (*c->p >= 'a' && *c->p <= 'z'))) c->p++;
    return c->p - s >= 3;
}

static bool rdate(cur *c, rule_date *r) {
    r->time = 7200;
    if (c->p < c->end && *c->p == 'J') {
        c->p++;
        r->kind = 'J';
        if (!num(c, 3, &r->a) || r->a < 1 || r->a > 365) return false;
    } else if (c->p < c->end && *c->p == 'M') {
        c->p++;
        r->kind = 'M';
        if (!num(c, 2, &r->a) || r->a < 1 || r->a > 12) return false;
        if (c->p >= c->end || *c->p++ != '.') return false;
        if (!num(c, 1, &r->b) || r->b < 1 || r->b > 5) return false;
        if (c->p >= c->end || *c->p++ != '.') return false;
        if (!num(c, 1, &r->c) || r->c > 6) return false;
    } else {
        r->kind = 'D';
        if (!num(c, 3, &r->a) || r->a > 365) return false;
    }
    if (c->p < c->end && *c->p == '/') {
        c->p++;
        if (!hms(c, 167, &r->time)) return false;
    }
    return true;
}

/* Parses a footer TZ string into z (std/dst/rule or a fixed offset in
 * *fixed_off). Returns false when malformed. */
static bool parse_posix(const char *s, size_t len, tv_tz *z, bool *has_dst, int32_t *fixed_off) {
    cur c = {s, s + len};
    int32_t w;
    if (!posix_name(&c) || !hms(&c, 24, &w)) return false;
    z->std = -w;
    if (z->std < -MAX_OFF || z->std > MAX_OFF) return false;
    *fixed_off = z->std;
    *has_dst = false;
    if (c.p == c.end) return true;
    if (!posix_name(&c)) return false;
    z->dst = z->std + 3600;
    if (c.p < c.end && *c.p != ',') {
        if (!hms(&c, 24, &w)) return false;
        z->dst = -w;
    }
    if (c.p == c.end) { /* no rule: the US rule POSIX implementations assume */
        z->rs = (rule_date){'M', 3, 2, 0, 7200};
        z->re = (rule_date){'M', 11, 1, 0, 7200};
    } else {
        if (*c.p++ != ',' || !rdate(&c, &z->rs)) return false;
        if (c.p >= c.end || *c.p++ != ',' || !rdate(&c, &z->re)) return false;
        if (c.p != c.end) return false;
    }
    if (z->std < -MAX_OFF || z->std > MAX_OFF || z->dst < -MAX_OFF || z->dst > MAX_OFF) return false;
    if (z->std == z->dst) return true; /* "DST" with no offset change: fixed */
    /* Daylight time all year ("EST5EDT,0/0,J365/25"): no standard time is
     * left between one year's end and the next year's start. */
    z->rule = true;
    trans a[2], b[2];
    rule_year(z, 2001, a);
    rule_year(z, 2002, b);
    if (a[1].at >= b[0].at) {
        z->rule = false;
        *fixed_off = a[1].after == z->std ? z->dst : z->std;
        return true;
    }
    *has_dst = true;
    return true;
}

/* ------------------------------------------------------------ TZif */

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const uint8_t *p) { return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4)); }

typedef struct tzif_hdr {
    uint32_t isut, isstd, leap, time, type, chars;
} tzif_hdr;

static bool read_hdr(const uint8_t *d, size_t len, size_t at, tzif_hdr *h, char *version) {
    if (len < at || len - at < 44 || memcmp(d + at, "TZif", 4) != 0) return false;
    *version = (char)d[at + 4];
    const uint8_t *c = d + at + 20;
    h->isut = be32(c);
    h->isstd = be32(c + 4);
    h->leap = be32(c + 8);
    h->time = be32(c + 12);
    h->type = be32(c + 16);
    h->chars = be32(c + 20);
    return true;
}

/* The size of a data block with time size ts (4 or 8). */
static uint64_t block_size(const tzif_hdr *h, unsigned ts) {
    return (uint64_t)h->time * (ts + 1) + (uint64_t)h->type * 6 + h->chars +
           (uint64_t)h->leap * (ts + 4) + h->isstd + h->isut;
}

tv_status tv_tz_from_tzif(const uint8_t *data, size_t len, const char *id, tv_tz **out) {
    *out = NULL;
    tzif_hdr h;
    char ver;
    if (!data || !read_hdr(data, len, 0, &h, &ver)) return TROVE_EARG;
    uint64_t sz1 = block_size(&h, 4);
    if (sz1 > len - 44) return TROVE_EARG;
    const uint8_t *body = data + 44;
    unsigned ts = 4;
    const uint8_t *footer = NULL;
    size_t footer_len = 0;
    if (ver != 0) {
        size_t at2 = 44 + (size_t)sz1;
        if (!read_hdr(data, len, at2, &h, &ver)) return TROVE_EARG;
        uint64_t sz2 = block_size(&h, 8);
        if (sz2 > len - at2 - 44) return TROVE_EARG;
        body = data + at2 + 44;
        ts = 8;
        size_t fat = at2 + 44 + (size_t)sz2;
        if (fat < len) {
            if (data[fat] != '\n') return TROVE_EARG;
            const uint8_t *nl = memchr(data + fat + 1, '\n', len - fat - 1);
            if (!nl) return TROVE_EARG;
            footer = data + fat + 1;
            footer_len = (size_t)(nl - footer);
        }
    }
    if (h.type == 0 || h.type > 256 || h.chars == 0) return TROVE_EARG;
    const uint8_t *times = body, *idx = body + (size_t)h.time * ts,
                  *types = idx + h.time;
    int32_t offs[256];
    for (uint32_t i = 0; i < h.type; i++) {
        int32_t o = (int32_t)be32(types + 6 * i);
        if (o < -MAX_OFF || o > MAX_OFF || types[6 * i + 4] > 1 || types[6 * i + 5] >= h.chars)
            return TROVE_EARG;
        offs[i] = o;
    }
    tv_tz *z = tv_calloc(1, sizeof *z);
    if (!z) return TROVE_ENOMEM;
    z->owned = true;
    z->id = tv_strndup(id ? id : "", id ? strlen(id) : 0);
    if (h.time) {
        z->at = tv_malloc(sizeof *z->at * h.time);
        z->off = tv_malloc(sizeof *z->off * h.time);
    }
    if (!z->id || (h.time && (!z->at || !z->off))) {
        tv_tz_free(z);
        return TROVE_ENOMEM;
    }
    z->off0 = offs[0];
    int32_t prev = z->off0;
    int64_t last = INT64_MIN;
    for (uint32_t i = 0; i < h.time; i++) {
        int64_t t = ts == 8 ? be64(times + 8 * (size_t)i) : (int64_t)(int32_t)be32(times + 4 * (size_t)i);
        if (idx[i] >= h.type || (i && t <= last)) {
            tv_tz_free(z);
            return TROVE_EARG;
        }
        last = t;
        if (t < -TABLE_LIMIT) { /* zic's "big bang" and older: the initial offset */
            if (z->n == 0) z->off0 = prev = offs[idx[i]];
            continue;
        }
        if (t > TABLE_LIMIT || offs[idx[i]] == prev) continue;
        prev = offs[idx[i]];
        z->at[z->n] = t;
        z->off[z->n++] = prev;
    }
    if (last > TABLE_LIMIT) last = TABLE_LIMIT;
    if (footer_len) {
        bool has_dst;
        int32_t fixed_off;
        if (!parse_posix((const char *)footer, footer_len, z, &has_dst, &fixed_off)) {
            tv_tz_free(z);
            return TROVE_EARG;
        }
        /* RFC 8536: the footer must agree with the last transition's type */
        int32_t tail = z->n ? z->off[z->n - 1] : z->off0;
        if (has_dst) {
            z->rule_after = last;
            if (h.time && rule_offset(z, last) != tail) {
                tv_tz_free(z);
                return TROVE_EARG;
            }
        } else if (h.time == 0) {
            z->off0 = fixed_off; /* no table: the footer is the zone */
        } else if (fixed_off != tail) {
            tv_tz_free(z);
            return TROVE_EARG;
        }
    }
    z->fixed = z->n == 0 && !z->rule;
    *out = z;
    return TROVE_OK;
}

/* ------------------------------------------------------------ ids */

static tv_status zone_err(tv_error *err, bool rules, const char *fmt, const char *id, size_t len) {
    tv_status st = tv_error_set(err, TROVE_EARG, "%s%.*s", fmt, (int)TV_MIN(len, 512), id);
    tv_error_as(err, rules ? TROVE_EZONERULES : TROVE_EDATETIME);
    return st;
}

static int two(const char *s) { return (s[0] - '0') * 10 + (s[1] - '0'); }
static bool isd(char c) { return c >= '0' && c <= '9'; }

/* ZoneOffset.of: sets *secs or returns the DateTimeException message in
 * msg (with the id as java prints it, "+1" becoming "+01"). */
static bool zone_offset_of(const char *s, size_t len, int32_t *secs, char *msg, size_t cap) {
    char id[16];
    if (len == 2) {
        id[0] = s[0];
        id[1] = '0';
        id[2] = s[1];
        len = 3;
    } else if (len < sizeof id) {
        memcpy(id, s, len);
    }
    if (len != 3 && len != 5 && len != 6 && len != 7 && len != 9) {
        snprintf(msg, cap, "Invalid ID for ZoneOffset, invalid format: %.*s", (int)TV_MIN(len, 512), s);
        return false;
    }
    id[len] = '\0';
    /* (position, preceded by a colon) of hours, minutes, seconds */
    int pos[3] = {1, 0, 0};
    bool colon[3] = {false, false, false};
    int fields = 1;
    if (len == 5) pos[1] = 3, fields = 2;
    if (len == 6) pos[1] = 4, colon[1] = true, fields = 2;
    if (len == 7) pos[1] = 3, pos[2] = 5, fields = 3;
    if (len == 9) pos[1] = 4, colon[1] = true, pos[2] = 7, colon[2] = true, fields = 3;
    int v[3] = {0, 0, 0};
    for (int i = 0; i < fields; i++) {
        if (colon[i] && id[pos[i] - 1] != ':') {
            snprintf(msg, cap, "Invalid ID for ZoneOffset, colon not found when expected: %s", id);
            return false;
        }
        if (!isd(id[pos[i]]) || !isd(id[pos[i] + 1])) {
            snprintf(msg, cap, "Invalid ID for ZoneOffset, non numeric characters found: %s", id);
            return false;
        }
        v[i] = two(id + pos[i]);
    }
    if (id[0] != '+' && id[0] != '-') {
        snprintf(msg, cap, "Invalid ID for ZoneOffset, plus/minus not found when expected: %s", id);
        return false;
    }
    int sign = id[0] == '-' ? -1 : 1;
    if (v[0] > 18) {
        snprintf(msg, cap, "Zone offset hours not in valid range: value %d is not in the range -18 to 18",
                 sign * v[0]);
        return false;
    }
    if (v[1] > 59) {
        snprintf(msg, cap, "Zone offset minutes not in valid range: value %d is not in the range -59 to 59",
                 sign * v[1]);
        return false;
    }
    if (v[2] > 59) {
        snprintf(msg, cap, "Zone offset seconds not in valid range: value %d is not in the range -59 to 59",
                 sign * v[2]);
        return false;
    }
    if (v[0] == 18 && (v[1] | v[2])) {
        snprintf(msg, cap, "Zone offset not in valid range: -18:00 to +18:00");
        return false;
    }
    *secs = sign * (v[0] * 3600 + v[1] * 60 + v[2]);
    return true;
}

/* ZoneOffset's id: "Z", "+01:00", "-05:30", "+01:00:30". */
static void offset_id(int32_t secs, char *out, size_t cap) {
    if (secs == 0) {
        snprintf(out, cap, "Z");
        return;
    }
    int32_t a = secs < 0 ? -secs : secs;
    if (a % 60)
        snprintf(out, cap, "%c%02d:%02d:%02d", secs < 0 ? '-' : '+', a / 3600, a / 60 % 60, a % 60);
    else
        snprintf(out, cap, "%c%02d:%02d", secs < 0 ? '-' : '+', a / 3600, a / 60 % 60);
}

/* [A-Za-z][A-Za-z0-9~/._+-]+ (ZoneRegion's check). */
static bool region_syntax(const char *s, size_t len) {
    if (len < 2 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z'))) return false;
    for (size_t i = 1; i < len; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || isd(c) || c == '~' || c == '/' ||
              c == '.' || c == '_' || c == '+' || c == '-'))
            return false;
    }
    return true;
}

/* Files of the system database that are not zones of java.time's. */
static bool region_known(const char *s, size_t len) {
    static const char *const excluded[] = {"localtime", "posixrules", "Factory", "EST", "HST", "MST", "ROC"};
    for (size_t i = 0; i < TV_ARRAY_LEN(excluded); i++)
        if (tv_streq(s, len, excluded[i])) return false;
    if ((len > 6 && memcmp(s, "posix/", 6) == 0) || (len > 6 && memcmp(s, "right/", 6) == 0)) return false;
    if (s[len - 1] == '/') return false;
    for (size_t i = 0; i + 1 < len; i++)
        if (s[i] == '/' && (s[i + 1] == '/' || s[i + 1] == '.')) return false;
    for (size_t i = 0; i + 1 < len; i++)
        if (s[i] == '.' && s[i + 1] == '.') return false;
    return len < 200;
}

typedef struct cache_ent {
    struct cache_ent *next;
    tv_tz *z;
    size_t len;
    char key[];
} cache_ent;

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static cache_ent *cache;

static tv_tz *fixed_zone(const char *id, int32_t secs) {
    tv_tz *z = tv_calloc(1, sizeof *z);
    if (!z) return NULL;
    z->id = tv_strndup(id, strlen(id));
    if (!z->id) {
        tv_free(z);
        return NULL;
    }
    z->fixed = true;
    z->off0 = secs;
    return z;
}

static tv_status load_region(const char *id, size_t len, tv_tz **out, tv_error *err) {
    const char *dir = getenv("TZDIR");
    if (!dir || !*dir) dir = "/usr/share/zoneinfo";
    char path[4096];
    snprintf(path, sizeof path, "%s/%.*s", dir, (int)len, id);
    FILE *f = fopen(path, "rb");
    if (!f) return zone_err(err, true, "Unknown time-zone ID: ", id, len);
    uint8_t *buf = tv_malloc(1 << 20);
    if (!buf) {
        fclose(f);
        return tv_error_set(err, TROVE_ENOMEM, "out of memory reading time zone [%.*s]", (int)len, id);
    }
    size_t n = fread(buf, 1, 1 << 20, f);
    fclose(f);
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)len, id);
    tv_status st = tv_tz_from_tzif(buf, n, name, out);
    tv_free(buf);
    if (st == TROVE_ENOMEM) return tv_error_set(err, st, "out of memory reading time zone [%s]", name);
    if (st) return zone_err(err, true, "Unknown time-zone ID: ", id, len);
    (*out)->owned = false;
    return TROVE_OK;
}

/* Builds the zone for id (not cached). */
static tv_status make_zone(const char *id, size_t len, tv_tz **out, tv_error *err) {
    char msg[640], nid[32];
    int32_t secs;
    if (len <= 1 || id[0] == '+' || id[0] == '-') {
        if (len == 1 && id[0] == 'Z') {
            *out = &utc_zone;
            return TROVE_OK;
        }
        if (!zone_offset_of(id, len, &secs, msg, sizeof msg)) return zone_err(err, false, msg, "", 0);
        offset_id(secs, nid, sizeof nid);
    } else if ((len >= 3 && (memcmp(id, "UTC", 3) == 0 || memcmp(id, "GMT", 3) == 0)) ||
               (len >= 2 && memcmp(id, "UT", 2) == 0)) {
        size_t pl = (memcmp(id, "UTC", TV_MIN(len, 3)) == 0 || memcmp(id, "GMT", TV_MIN(len, 3)) == 0) && len >= 3 ? 3 : 2;
        if (len > pl && id[pl] != '+' && id[pl] != '-') goto region;
        secs = 0;
        if (len > pl && !zone_offset_of(id + pl, len - pl, &secs, msg, sizeof msg))
            return zone_err(err, false, "Invalid ID for offset-based ZoneId: ", id, len);
        char off[16];
        offset_id(secs, off, sizeof off);
        snprintf(nid, sizeof nid, "%.*s%s", (int)pl, id, secs ? off : "");
    } else {
        goto region;
    }
    *out = fixed_zone(nid, secs);
    return *out ? TROVE_OK : tv_error_oom(err);
region:
    if (!region_syntax(id, len))
        return zone_err(err, false, "Invalid ID for region-based ZoneId, invalid format: ", id, len);
    if (!region_known(id, len)) return zone_err(err, true, "Unknown time-zone ID: ", id, len);
    return load_region(id, len, out, err);
}

tv_status tv_tz_get(const char *id, size_t len, const tv_tz **out, tv_error *err) {
    *out = NULL;
    if (len == 1 && id[0] == 'Z') {
        *out = &utc_zone;
        return TROVE_OK;
    }
    pthread_mutex_lock(&cache_mu);
    for (cache_ent *e = cache; e; e = e->next)
        if (e->len == len && memcmp(e->key, id, len) == 0) {
            *out = e->z;
            pthread_mutex_unlock(&cache_mu);
            return TROVE_OK;
        }
    tv_tz *z = NULL;
    tv_status st = make_zone(id, len, &z, err);
    if (st == TROVE_OK && z != &utc_zone) {
        cache_ent *e = tv_malloc(sizeof *e + len + 1);
        if (!e) {
            z->owned = true;
            tv_tz_free(z);
            pthread_mutex_unlock(&cache_mu);
            return tv_error_oom(err);
        }
        e->z = z;
        e->len = len;
        memcpy(e->key, id, len);
        e->key[len] = '\0';
        e->next = cache;
        cache = e;
    }
    pthread_mutex_unlock(&cache_mu);
    if (st == TROVE_OK) *out = z;
    return st;
}
