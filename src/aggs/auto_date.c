/*
 * auto_date.c — the rounding ladder of auto_date_histogram
 * (AutoDateHistogramAggregationBuilder.buildRoundings): second (inner
 * intervals 1, 5, 10, 30), minute (1, 5, 10, 30), hour (1, 3, 12), day
 * (1, 7), month (1, 3), year (1, 5, 10, 20, 50, 100), each with the rough
 * duration OpenSearch estimates bucket counts with (a month is 30 days, a
 * year 365), sliced from "minimum_interval". collect.c climbs it while a
 * shard collects (AutoDateHistogramAggregator.FromSingle's
 * increaseRoundingIfNeeded); result.c's reduce climbs it again and merges
 * consecutive buckets (InternalAutoDateHistogram.reduce).
 *
 * Rejected: one table per file that needs it (the two stages must agree
 * on every number).
 */
#include "aggs/aggs.h"

static const struct {
    const char *name;   /* minimum_interval */
    const char *abbrev; /* the "interval" unit */
    tv_date_unit unit;
    int64_t rough_ms;
    int inner[6];
    int ninner;
} k_ladder[] = {
    {"second", "s", TV_DU_SECOND, 1000LL, {1, 5, 10, 30}, 4},
    {"minute", "m", TV_DU_MINUTE, 60000LL, {1, 5, 10, 30}, 4},
    {"hour", "h", TV_DU_HOUR, 3600000LL, {1, 3, 12}, 3},
    {"day", "d", TV_DU_DAY, 86400000LL, {1, 7}, 2},
    {"month", "M", TV_DU_MONTH, 2592000000LL, {1, 3}, 2},
    {"year", "y", TV_DU_YEAR, 31536000000LL, {1, 5, 10, 20, 50, 100}, 6},
};

int tv_adh_first(const char *minimum_interval) {
    if (!minimum_interval) return 0;
    for (int i = 0; i < (int)TV_ARRAY_LEN(k_ladder); i++)
        if (!strcmp(k_ladder[i].name, minimum_interval)) return i;
    return -1;
}

int tv_adh_levels(const tv_agg *a) { return (int)TV_ARRAY_LEN(k_ladder) - a->adh_first; }

void tv_adh_rounding(const tv_agg *a, int idx, const tv_tz *tz, tv_rounding *out) {
    tv_rounding_calendar(out, k_ladder[a->adh_first + idx].unit, tz, 0);
}

int64_t tv_adh_rough_ms(const tv_agg *a, int idx) { return k_ladder[a->adh_first + idx].rough_ms; }

const int *tv_adh_inner(const tv_agg *a, int idx, int *n) {
    *n = k_ladder[a->adh_first + idx].ninner;
    return k_ladder[a->adh_first + idx].inner;
}

int tv_adh_max_inner(const tv_agg *a, int idx) {
    int n;
    const int *in = tv_adh_inner(a, idx, &n);
    return in[n - 1];
}

const char *tv_adh_abbrev(const tv_agg *a, int idx) { return k_ladder[a->adh_first + idx].abbrev; }
