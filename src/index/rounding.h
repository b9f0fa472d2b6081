/*
 * rounding.h — OpenSearch's date rounding (org.opensearch.common.Rounding)
 * for date_histogram buckets and date math: calendar units (second ..
 * year; weeks start on Monday, quarters in January, April, July and
 * October) and fixed intervals (any number of milliseconds), each in a
 * time zone and optionally shifted by an offset. Part of the index layer.
 *
 * Semantics are Rounding's general (java.time based) implementations,
 * which its faster prepared forms must equal:
 *   - calendar units of a day or more round to the first instant of the
 *     local day that starts the unit: local midnight, or when midnight is
 *     in a DST gap the transition's instant, or in an overlap the earlier
 *     of the two midnights;
 *   - seconds, minutes and hours round to the latest instant at or before
 *     the value whose local time is the truncated local time, stepping back
 *     over a transition that lies between them;
 *   - fixed intervals round local time down to a multiple of the interval
 *     (counted from 1970-01-01T00:00 local) and map it back the same way,
 *     a rounded local time in a gap giving the gap's start;
 *   - an offset shifts the buckets: round(v) = inner(v - offset) + offset.
 * tv_rounding_next gives the next bucket's key from a key
 * (nextRoundingValue), so buckets are [key, next(key)).
 *
 * Instants beyond +-2^62 ms (146 million years) are clamped. All functions
 * are pure and thread-safe; a tv_rounding is a value (copy it freely) that
 * borrows its zone (zones from tv_tz_get live for the process).
 */
#ifndef TROVE_INDEX_ROUNDING_H
#define TROVE_INDEX_ROUNDING_H

#include "index/tz.h"

typedef enum tv_date_unit {
    TV_DU_SECOND,
    TV_DU_MINUTE,
    TV_DU_HOUR,
    TV_DU_DAY,
    TV_DU_WEEK,
    TV_DU_MONTH,
    TV_DU_QUARTER,
    TV_DU_YEAR
} tv_date_unit;

/* A calendar_interval as DateHistogramAggregationBuilder.DATE_FIELD_UNITS
 * names it: "1s"/"second", "1m"/"minute", "1h"/"hour", "1d"/"day",
 * "1w"/"week", "1M"/"month", "1q"/"quarter", "1y"/"year" (case matters).
 * False for anything else. */
bool tv_date_unit_parse(const char *s, size_t len, tv_date_unit *out);

typedef struct tv_rounding {
    const tv_tz *tz;     /* never NULL after init */
    int64_t interval_ms; /* fixed intervals: > 0; calendar units: 0 */
    int64_t offset_ms;
    tv_date_unit unit;
    /* a zone with one offset and a step of fixed length (a fixed interval,
     * or a unit up to day): rounding is floor arithmetic on local time */
    bool fast;
    int64_t fast_step, fast_zoff;
} tv_rounding;

/* Calendar rounding to unit in zone z (NULL: UTC), shifted by offset_ms. */
void tv_rounding_calendar(tv_rounding *r, tv_date_unit unit, const tv_tz *z, int64_t offset_ms);

/* Fixed-interval rounding. interval_ms must be >= 1 (intervals above 2^61 are clamped; OpenSearch refuses
 * others with "Zero or negative time interval not supported"; the caller
 * checks; smaller values are taken as 1). */
void tv_rounding_fixed(tv_rounding *r, int64_t interval_ms, const tv_tz *z, int64_t offset_ms);

/* The key of the bucket holding utc_ms (Rounding.Prepared.round). */
int64_t tv_rounding_round(const tv_rounding *r, int64_t utc_ms);

/* The key of the bucket after the one whose key is rounded_utc_ms
 * (Rounding.Prepared.nextRoundingValue). */
int64_t tv_rounding_next(const tv_rounding *r, int64_t rounded_utc_ms);

#endif /* TROVE_INDEX_ROUNDING_H */
