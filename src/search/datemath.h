/*
 * datemath.h — date values in queries (private to src/search/): parses a
 * date string with a mapping's `format` and OpenSearch date math into epoch
 * milliseconds.
 */
#ifndef TROVE_SEARCH_DATEMATH_H
#define TROVE_SEARCH_DATEMATH_H

#include "util/util.h"

typedef enum tv_datemath_result {
    TV_DATEMATH_OK = 0,
    TV_DATEMATH_BAD,                /* failed to parse */
    TV_DATEMATH_UNSUPPORTED_FORMAT, /* a format trove does not implement */
} tv_datemath_result;

/* round_up: as OpenSearch's roundUp (gt / lte bounds): "/d" rounds to the
 * unit's last millisecond and a partial date fills missing fields with
 * maxima. format NULL: strict_date_optional_time||epoch_millis. */
tv_datemath_result tv_datemath_parse(const char *s, size_t n, const char *format, bool round_up,
                                     int64_t now_ms, int64_t *out);

#endif /* TROVE_SEARCH_DATEMATH_H */
