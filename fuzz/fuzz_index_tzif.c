/*
 * fuzz_index_tzif.c — arbitrary bytes as a TZif file (the format of the
 * system tz database that tv_tz_get reads): header counts, transition
 * table, types and the footer's POSIX TZ rule. A parsed zone is then asked
 * for offsets, previous transitions, local-to-UTC conversions and calendar
 * and interval roundings at instants before, inside and after its table
 * (footer rule years included). Nothing may crash, leak or trip a
 * sanitizer, and the answers must keep the zone's own invariants: offsets
 * within +-18 hours, a previous transition strictly before the instant.
 * (A rounded value not after its value holds for real zones; damaged
 * tables with transitions hours apart can break it, as they would in
 * java.time, so it is not asserted here.)
 */
#include <stdint.h>
#include <stdlib.h>

#include "index/rounding.h"
#include "index/tz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int64_t instants[] = {
    INT64_C(-4000000000000),  /* 1843 */
    INT64_C(-1),
    INT64_C(0),
    INT64_C(1616893200000),   /* 2021-03-28T01:00Z */
    INT64_C(1635642000000),   /* 2021-10-31T01:00Z */
    INT64_C(2145916800000),   /* 2038 */
    INT64_C(5680281600000),   /* 2150 */
    INT64_C(4611686018427387904), /* clamped */
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tv_tz *z = NULL;
    if (tv_tz_from_tzif(data, size, "fuzz", &z) != TROVE_OK) return 0;
    for (size_t i = 0; i < sizeof instants / sizeof instants[0]; i++) {
        int64_t t = instants[i];
        int32_t off = tv_tz_offset(z, t);
        if (off < -18 * 3600 || off > 18 * 3600) abort();
        int64_t at;
        if (tv_tz_prev_transition(z, t, &at) && at >= t) abort();
        (void)tv_tz_local_to_utc(z, t);
        (void)tv_tz_local_to_utc_prefer(z, t, off);
        tv_rounding r;
        tv_rounding_calendar(&r, (tv_date_unit)(i % 8), z, 0);
        int64_t k = tv_rounding_round(&r, t);
        (void)tv_rounding_next(&r, k);
        tv_rounding_fixed(&r, 5400000, z, 0);
        k = tv_rounding_round(&r, t);
        (void)tv_rounding_next(&r, k);
    }
    tv_tz_free(z);
    return 0;
}
