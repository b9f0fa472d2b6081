/*
 * date.h — dates as OpenSearch parses, prints and computes them: the
 * built-in formats (strict_date_optional_time, epoch_millis, ...), Java
 * DateTimeFormatter-style patterns ("yyyy-MM-dd HH:mm:ss Z"), `||`
 * alternatives, and date math ("now-1d/d", "2020-01-01||+1M/d") for range
 * queries. Part of the index layer; the search layer includes it.
 *
 * All instants are int64 milliseconds since the Unix epoch (UTC), proleptic
 * Gregorian calendar. The _ex functions take fixed offsets (seconds east
 * of UTC: "Z", "UTC", "GMT", "+01:00", "+0100", "-05"); the _tz functions
 * take any zone of tz.h, region ids ("Europe/Paris") included.
 *
 * Errors (tv_error, may be NULL):
 *   TROVE_EARG  "failed to parse date field [x] with format [f]"
 *               (OpenSearch's IllegalArgumentException wording; the cause is
 *               a date_time_parse_exception)
 *   TROVE_EARG  "Invalid format: [f]: Unknown pattern letter: q" for a bad
 *               pattern (tv_date_format_check)
 *   TROVE_EARG  date math errors with OpenSearch's reasons ("operator not
 *               supported for date math [...]", "unit [x] not supported for
 *               date math [...]", "truncated date math [...]"); OpenSearch
 *               reports these as parse_exception, which has no status of its
 *               own in trove.h.
 * Thread safety: all functions are pure.
 */
#ifndef TROVE_INDEX_DATE_H
#define TROVE_INDEX_DATE_H

#include "index/tz.h"
#include "util/util.h"

/* The default format of a date field. */
#define TV_DATE_DEFAULT_FORMAT "strict_date_optional_time||epoch_millis"
/* The default format of a date_nanos field. */
#define TV_DATE_NANOS_DEFAULT_FORMAT "strict_date_optional_time_nanos||epoch_millis"

/* Checks that every alternative of format is a known built-in name or a
 * pattern trove can interpret. TROVE_OK or TROVE_EARG/TROVE_EUNSUPPORTED. */
tv_status tv_date_format_check(const char *format, tv_error *err);

/* Parses [s, s+len) with format (NULL: the default format). */
tv_status tv_date_parse(const char *format, const char *s, size_t len, int64_t *ms, tv_error *err);

/* As tv_date_parse, with OpenSearch's range-query extras: round_up fills
 * fields missing from the text with their maximum ("2020-01" -> the last
 * millisecond of January), tz_offset_s is the zone used when the text has
 * none. */
tv_status tv_date_parse_ex(const char *format, const char *s, size_t len, bool round_up,
                           int32_t tz_offset_s, int64_t *ms, tv_error *err);

/* Prints ms with the first alternative of format (NULL: default) into out
 * (NUL-terminated, truncated to cap). Returns the full length (as snprintf).
 * strict_date_optional_time prints "2020-01-02T03:04:05.000Z"; epoch_millis
 * prints the integer. */
size_t tv_date_format(int64_t ms, const char *format, char *out, size_t cap);

/*
 * Nanosecond resolution (date_nanos fields). tv_date_parse_nanos parses as
 * tv_date_parse but keeps the fraction to the nanosecond (epoch_millis keeps
 * fractional millis too) and converts the instant to epoch nanoseconds as
 * OpenSearch's DateUtils.toLong does: instants before 1970 fail with
 * "date[1969-12-31T23:59:59Z] is before the epoch in 1970 and cannot be
 * stored in nanosecond resolution", after 2262-04-11T23:47:16.854775807
 * with "date[...] is after 2262-04-11T23:47:16.854775807 and cannot be
 * stored in nanosecond resolution" (TROVE_EARG, no cause).
 * tv_date_parse_ex_nanos adds round_up and the zone (range queries), with
 * the same range checks. tv_date_format_nanos prints as tv_date_format with
 * the fraction to the nanosecond (patterns with up to nine S letters;
 * epoch_millis prints the millis with a fraction when sub-millisecond, as
 * OpenSearch's epoch printer).
 */
tv_status tv_date_parse_nanos(const char *format, const char *s, size_t len, int64_t *ns,
                              tv_error *err);
tv_status tv_date_parse_ex_nanos(const char *format, const char *s, size_t len, bool round_up,
                                 int32_t tz_offset_s, int64_t *ns, tv_error *err);
size_t tv_date_format_nanos(int64_t ns, const char *format, char *out, size_t cap);

/* Evaluates date math: "now", "now-1d/d", "2020-01-01||+1M/d", or a plain
 * date in format. round_up selects the end of the rounded unit (for lte and
 * gt bounds, as OpenSearch's range query does). */
tv_status tv_date_math(const char *format, const char *expr, size_t len, int64_t now_ms,
                       bool round_up, int64_t *ms, tv_error *err);
tv_status tv_date_math_ex(const char *format, const char *expr, size_t len, int64_t now_ms,
                          bool round_up, int32_t tz_offset_s, int64_t *ms, tv_error *err);

/*
 * Region time zones (tz.h). tv_date_format_tz prints ms in zone z (NULL:
 * UTC) as DateFormatter.withZone does: strict_date_optional_time gives
 * "2020-01-01T00:00:00.000+01:00" ("Z" at offset 0); pattern letters X, x,
 * Z, O print the offset as java.time does ("+01", "+0100", "+01:00",
 * "GMT+01:00", "GMT+1"); V and z print the zone id (java prints a
 * localized name for z, which trove does not have).
 * tv_date_parse_ex_tz parses as tv_date_parse_ex with the zone applied
 * where the text has none (LocalDateTime resolved in z; in an overlap
 * offset 0 wins when it is one of the two, otherwise the earlier offset,
 * as withZoneSameLocal from UTC resolves).
 * tv_date_math_tz evaluates date math as OpenSearch's JavaDateMathParser
 * with a ZonedDateTime in z: rounding ("/d", "/M") and date units (y M w
 * d) work on local time, keeping the current offset when it stays valid;
 * time units (h m s) move the instant.
 */
size_t tv_date_format_tz(int64_t ms, const char *format, const tv_tz *z, char *out, size_t cap);
tv_status tv_date_parse_ex_tz(const char *format, const char *s, size_t len, bool round_up,
                              const tv_tz *z, int64_t *ms, tv_error *err);
tv_status tv_date_math_tz(const char *format, const char *expr, size_t len, int64_t now_ms,
                          bool round_up, const tv_tz *z, int64_t *ms, tv_error *err);

/* Parses a time_zone parameter ("+01:00", "-0530", "Z", "UTC", "GMT",
 * "UTC+2") into seconds east of UTC. */
tv_status tv_date_parse_tz(const char *s, size_t len, int32_t *offset_s, tv_error *err);

/* Civil calendar helpers (proleptic Gregorian). */
int64_t tv_days_from_civil(int64_t y, unsigned m, unsigned d);
void tv_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d);

#endif /* TROVE_INDEX_DATE_H */
