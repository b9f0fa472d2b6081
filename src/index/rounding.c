/*
 * rounding.c — OpenSearch's Rounding: calendar units and fixed intervals
 * in a time zone, with offsets.
 *
 * Algorithm. Each rounding converts the instant to local time with the
 * offset in force, truncates the local time (civil-calendar arithmetic for
 * days, weeks, months, quarters and years; floor division for the rest),
 * then maps the truncated local time back to an instant with the rule of
 * its family, which is where DST matters (see rounding.h):
 *   - units of a day or more: the first instant of that local day
 *     (tv_tz_local_info: one offset, the earlier offset of an overlap, or
 *     the transition instant of a gap);
 *   - seconds, minutes, hours: the latest candidate instant not after the
 *     value; when the previous transition lies after the candidate (or the
 *     truncated time is in a gap), the value is moved to just before that
 *     transition and rounded again — Rounding's JavaTimeNotToMidnightRounding;
 *   - fixed intervals: Rounding's TimeIntervalRounding.JavaTimeRounding,
 *     including its step back over the previous transition, and its search
 *     for the next key (round() treated as a black box, the step halved
 *     and reversed when it over- or undershoots).
 * A zone without transitions takes a pure arithmetic path (local = utc +
 * offset; floor; subtract), which is what OpenSearch's prepared "fixed"
 * roundings do; region zones cost a few binary searches per call.
 *
 * Alternatives rejected: OpenSearch's prepare(min, max) specialisations
 * (precomputed arrays of keys, per-range offset lookups) — they are
 * required to agree with the general forms implemented here, and a caller
 * that needs them can add a key cache on top; converting through struct tm
 * and libc (no zone handle, no control of gap/overlap resolution).
 */
#include "index/rounding.h"

#include "index/date.h"

#define MS_LIMIT (INT64_C(1) << 62)

static int64_t clampms(__int128 v) {
    return (int64_t)(v > MS_LIMIT ? MS_LIMIT : v < -MS_LIMIT ? -MS_LIMIT : v);
}

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static const int64_t unit_ms[] = {1000, 60000, 3600000, 86400000};

bool tv_date_unit_parse(const char *s, size_t len, tv_date_unit *out) {
    static const struct {
        const char *a, *b;
        tv_date_unit u;
    } names[] = {
        {"1s", "second", TV_DU_SECOND}, {"1m", "minute", TV_DU_MINUTE}, {"1h", "hour", TV_DU_HOUR},
        {"1d", "day", TV_DU_DAY},       {"1w", "week", TV_DU_WEEK},     {"1M", "month", TV_DU_MONTH},
        {"1q", "quarter", TV_DU_QUARTER}, {"1y", "year", TV_DU_YEAR},
    };
    for (size_t i = 0; i < TV_ARRAY_LEN(names); i++)
        if (tv_streq(s, len, names[i].a) || tv_streq(s, len, names[i].b)) {
            *out = names[i].u;
            return true;
        }
    return false;
}

/* The arithmetic form, when the zone never changes offset and the step
 * has one length: what Rounding's FixedToMidnight / fixed-zone interval
 * preparations compute, floor((t + zone offset) / step) * step - offset. */
static void set_fast(tv_rounding *r, int64_t step) {
    r->fast = step > 0 && tv_tz_is_fixed(r->tz) && r->offset_ms > -(INT64_C(1) << 50) && r->offset_ms < (INT64_C(1) << 50);
    r->fast_step = step;
    r->fast_zoff = r->fast ? (int64_t)tv_tz_offset(r->tz, 0) * 1000 : 0;
}

void tv_rounding_calendar(tv_rounding *r, tv_date_unit unit, const tv_tz *z, int64_t offset_ms) {
    r->tz = z ? z : tv_tz_utc();
    r->interval_ms = 0;
    r->offset_ms = offset_ms;
    r->unit = unit;
    set_fast(r, unit <= TV_DU_DAY ? unit_ms[unit] : 0);
}

void tv_rounding_fixed(tv_rounding *r, int64_t interval_ms, const tv_tz *z, int64_t offset_ms) {
    r->tz = z ? z : tv_tz_utc();
    r->interval_ms = interval_ms < 1 ? 1 : interval_ms > (MS_LIMIT >> 1) ? (MS_LIMIT >> 1) : interval_ms;
    r->offset_ms = offset_ms;
    r->unit = TV_DU_SECOND;
    set_fast(r, r->interval_ms < (INT64_C(1) << 50) ? r->interval_ms : 0);
}

/* ------------------------------------------------------------ calendar */

/* Truncates local time t to the start of unit u (Rounding's
 * truncateLocalDateTime). */
static int64_t trunc_local(int64_t t, tv_date_unit u) {
    if (u <= TV_DU_DAY) return floor_div(t, unit_ms[u]) * unit_ms[u];
    int64_t days = floor_div(t, 86400000);
    if (u == TV_DU_WEEK) return (days - ((days % 7 + 7 + 3) % 7)) * 86400000; /* back to Monday */
    int64_t y;
    unsigned m, d;
    tv_civil_from_days(days, &y, &m, &d);
    if (u == TV_DU_YEAR) m = 1;
    else if (u == TV_DU_QUARTER) m = (m - 1) / 3 * 3 + 1;
    return tv_days_from_civil(y, m, 1) * 86400000;
}

/* The next unit's start after local midnight lm that starts a unit. */
static int64_t next_local(int64_t lm, tv_date_unit u) {
    if (u == TV_DU_DAY) return lm + 86400000;
    if (u == TV_DU_WEEK) return lm + 7 * 86400000;
    int64_t y;
    unsigned m, d;
    tv_civil_from_days(floor_div(lm, 86400000), &y, &m, &d);
    int64_t months = y * 12 + (m - 1) + (u == TV_DU_MONTH ? 1 : u == TV_DU_QUARTER ? 3 : 12);
    int64_t ny = floor_div(months, 12);
    return tv_days_from_civil(ny, (unsigned)(months - ny * 12) + 1, 1) * 86400000;
}

/* The first instant of the local day starting at local midnight lm. */
static int64_t first_on_day(const tv_tz *z, int64_t lm) {
    int32_t off = 0, before = 0, after = 0;
    int64_t at = 0;
    switch (tv_tz_local_info(z, lm, &off, &before, &after, &at)) {
    case TV_TZ_LOCAL_ONE: return lm - (int64_t)off * 1000;
    case TV_TZ_LOCAL_OVERLAP: return lm - (int64_t)before * 1000;
    default: return at;
    }
}

static int64_t to_local(const tv_tz *z, int64_t utc) { return utc + (int64_t)tv_tz_offset(z, utc) * 1000; }

/* Seconds, minutes, hours in a zone with transitions. */
static int64_t round_small(const tv_tz *z, tv_date_unit u, int64_t v) {
    int64_t inst = v;
    for (int guard = 0; guard < 4096; guard++) {
        int64_t tl = trunc_local(to_local(z, inst), u);
        int32_t off = 0, before = 0, after = 0;
        int64_t at = 0, truncated = 0;
        bool have = false;
        tv_tz_local_kind kind = tv_tz_local_info(z, tl, &off, &before, &after, &at);
        switch (kind) {
        case TV_TZ_LOCAL_ONE:
            truncated = tl - (int64_t)off * 1000;
            have = truncated <= inst;
            break;
        case TV_TZ_LOCAL_OVERLAP: /* the latest candidate not after inst */
            if (tl - (int64_t)after * 1000 <= inst) {
                truncated = tl - (int64_t)after * 1000;
                have = true;
            } else if (tl - (int64_t)before * 1000 <= inst) {
                truncated = tl - (int64_t)before * 1000;
                have = true;
            }
            break;
        default: break; /* the truncated time is in a gap */
        }
        int64_t prev;
        if (!tv_tz_prev_transition(z, inst, &prev)) {
            /* Java dereferences null here (the zone's first transition
             * opened a gap over the truncated time): the transition
             * instant is the first instant of that local unit */
            if (have) return truncated;
            return kind == TV_TZ_LOCAL_GAP && at <= inst ? at : inst;
        }
        if (have && prev <= truncated) return truncated;
        inst = prev - 1; /* round from just before the transition */
    }
    return inst;
}

static int64_t cal_round(const tv_rounding *r, int64_t v) {
    const tv_tz *z = r->tz;
    tv_date_unit u = r->unit;
    if (tv_tz_is_fixed(z)) {
        int64_t off = (int64_t)tv_tz_offset(z, 0) * 1000;
        return trunc_local(v + off, u) - off;
    }
    if (u >= TV_DU_DAY) return first_on_day(z, trunc_local(to_local(z, v), u));
    return round_small(z, u, v);
}

static int64_t cal_next(const tv_rounding *r, int64_t v) {
    const tv_tz *z = r->tz;
    tv_date_unit u = r->unit;
    if (u >= TV_DU_DAY) {
        if (tv_tz_is_fixed(z)) {
            int64_t off = (int64_t)tv_tz_offset(z, 0) * 1000;
            return next_local(trunc_local(v + off, u), u) - off;
        }
        return first_on_day(z, next_local(trunc_local(to_local(z, v), u), u));
    }
    int64_t step = unit_ms[u];
    int64_t once = cal_round(r, v + step);
    return v < once ? once : cal_round(r, v + 2 * step);
}

/* ------------------------------------------------------------ intervals */

static int64_t iv_round(const tv_rounding *r, int64_t v) {
    const tv_tz *z = r->tz;
    int64_t iv = r->interval_ms;
    if (tv_tz_is_fixed(z)) {
        int64_t off = (int64_t)tv_tz_offset(z, 0) * 1000;
        return floor_div(v + off, iv) * iv - off;
    }
    for (int guard = 0; guard < 4096; guard++) {
        int64_t rounded = floor_div(to_local(z, v), iv) * iv;
        int32_t off = 0, before = 0, after = 0;
        int64_t at = 0;
        tv_tz_local_kind k = tv_tz_local_info(z, rounded, &off, &before, &after, &at);
        if (k == TV_TZ_LOCAL_GAP) return at; /* the rounded time was skipped: the gap's start */
        int32_t offs[2] = {off, off};
        int n = 1;
        if (k == TV_TZ_LOCAL_OVERLAP) {
            offs[0] = before;
            offs[1] = after;
            n = 2;
        }
        int64_t prev;
        bool has_prev = tv_tz_prev_transition(z, v + 1, &prev); /* at or before v */
        bool again = false;
        for (int i = n - 1; i >= 0; i--) {
            int64_t inst = rounded - (int64_t)offs[i] * 1000;
            if (has_prev && inst < prev) { /* rounding across the transition: round from before it */
                v = prev - 1;
                again = true;
                break;
            }
            if (v >= inst) return inst;
        }
        if (!again) return rounded - (int64_t)offs[0] * 1000;
    }
    return v;
}

static int64_t iv_next(const tv_rounding *r, int64_t v) {
    int64_t iv = r->interval_ms;
    if (tv_tz_is_fixed(r->tz)) return iv_round(r, v) + iv;
    int64_t prev_round = iv_round(r, v), inc = iv, from = prev_round;
    for (int it = 1; it < 100; it++) {
        from = clampms((__int128)from + inc);
        int64_t rounded = iv_round(r, from);
        if (rounded <= prev_round) { /* not high enough */
            if (inc < 0) inc = -inc / 2;
            continue;
        }
        if (iv_round(r, rounded - 1) > prev_round) { /* too high */
            if (inc > 0) inc = -inc / 2;
            continue;
        }
        return rounded;
    }
    return iv_round(r, from);
}

/* ------------------------------------------------------------ offsets */

int64_t tv_rounding_round(const tv_rounding *r, int64_t utc_ms) {
    if (r->fast && utc_ms > -(INT64_C(1) << 55) && utc_ms < (INT64_C(1) << 55)) {
        int64_t v = utc_ms - r->offset_ms + r->fast_zoff;
        return floor_div(v, r->fast_step) * r->fast_step - r->fast_zoff + r->offset_ms;
    }
    int64_t off = clampms(r->offset_ms), v = clampms((__int128)clampms(utc_ms) - off);
    return clampms((__int128)(r->interval_ms ? iv_round(r, v) : cal_round(r, v)) + off);
}

int64_t tv_rounding_next(const tv_rounding *r, int64_t rounded_utc_ms) {
    int64_t off = clampms(r->offset_ms), v = clampms((__int128)clampms(rounded_utc_ms) - off);
    return clampms((__int128)(r->interval_ms ? iv_next(r, v) : cal_next(r, v)) + off);
}
