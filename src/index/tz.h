/*
 * tz.h — time zones as java.time sees them: fixed offsets ("Z", "+01:00",
 * "UTC+01:00") and region zones ("Europe/Paris") read from the system tz
 * database (TZif files under $TZDIR, else /usr/share/zoneinfo), with the
 * POSIX TZ rule of each file's footer for instants after its last
 * transition. Part of the index layer; date.h and rounding.h build on it,
 * the search layer's date_histogram uses all three.
 *
 * Instants are int64 milliseconds since the Unix epoch (UTC); local
 * date-times are milliseconds since 1970-01-01T00:00 on the local clock;
 * offsets are seconds east of UTC.
 *
 * A transition that leaves the total offset unchanged (only the
 * abbreviation or the DST flag changes) is not a transition here, as it is
 * not one in java.time's ZoneRules.
 *
 * Ownership: zones from tv_tz_get and tv_tz_utc are immutable, shared by
 * every thread and live until the process exits (never free them). Zones
 * from tv_tz_from_tzif are owned by the caller (tv_tz_free).
 * Thread safety: every function may be called from any thread; tv_tz_get
 * serialises its cache with a mutex, the queries are pure.
 */
#ifndef TROVE_INDEX_TZ_H
#define TROVE_INDEX_TZ_H

#include "util/util.h"

typedef struct tv_tz tv_tz;

/* Resolves a zone id as java.time.ZoneId.of does (the parser OpenSearch's
 * date_histogram time_zone uses): "Z"; offsets "+1", "+01", "+0100",
 * "+01:00", "+010030", "+01:00:30" (|hours| <= 18); "UTC", "GMT", "UT"
 * alone or followed by an offset ("UTC+01:00", "GMT-5"); otherwise a region
 * id matching [A-Za-z][A-Za-z0-9~/._+-]+ read from the tz database. Java's
 * messages on failure (TROVE_EARG):
 *   "Invalid ID for ZoneOffset, invalid format: +013"
 *   "Invalid ID for ZoneOffset, non numeric characters found: +1:00"
 *   "Zone offset hours not in valid range: value 25 is not in the range -18 to 18"
 *   "Invalid ID for offset-based ZoneId: UTC+25"
 *   "Invalid ID for region-based ZoneId, invalid format: /etc/passwd"
 *   "Unknown time-zone ID: Foo/Bar"
 * Ids with "..", a NUL byte, or naming files Java's tz database lacks
 * ("posix/...", "right/...", "localtime", "posixrules", "Factory", "EST",
 * "HST", "MST", "ROC") are unknown. *out is borrowed for the process. */
tv_status tv_tz_get(const char *id, size_t len, const tv_tz **out, tv_error *err);

/* The UTC zone (id "Z"). Never NULL. */
const tv_tz *tv_tz_utc(void);

/* The id as java.time prints it: "Z" for a zero offset given as an offset
 * ("+00:00"), "+01:00" for "+0100", "UTC+01:00", "GMT-05:00", "UTC" for
 * "UTC+00:00"; region ids as given. Borrowed from z. */
const char *tv_tz_id(const tv_tz *z);

/* True when the zone never changes its offset (fixed offsets, "UTC",
 * "Etc/GMT-1", a TZif file without transitions and a fixed footer). */
bool tv_tz_is_fixed(const tv_tz *z);

/* The offset in force at instant utc_ms, seconds east of UTC. */
int32_t tv_tz_offset(const tv_tz *z, int64_t utc_ms);

/* A local date-time to an instant, as LocalDateTime.atZone(z).toInstant():
 * in a gap the local time moves later by the gap's length (so the result
 * is local - offset before the gap); in an overlap the earlier offset (the
 * one in force before the transition) wins. */
int64_t tv_tz_local_to_utc(const tv_tz *z, int64_t local_ms);

/* As tv_tz_local_to_utc, but in an overlap prefer_s wins when it is one of
 * the two valid offsets (ZonedDateTime.ofLocal with a preferred offset, as
 * ZonedDateTime arithmetic and withZoneSameLocal resolve). */
int64_t tv_tz_local_to_utc_prefer(const tv_tz *z, int64_t local_ms, int32_t prefer_s);

/* What a local date-time is in zone z: TV_TZ_LOCAL_ONE (one valid offset,
 * *off), TV_TZ_LOCAL_GAP (skipped by a transition: *before, *after and
 * *at_ms, the transition's instant) or TV_TZ_LOCAL_OVERLAP (both *before
 * and *after are valid; *at_ms the transition). For rounding. */
typedef enum tv_tz_local_kind { TV_TZ_LOCAL_ONE, TV_TZ_LOCAL_GAP, TV_TZ_LOCAL_OVERLAP } tv_tz_local_kind;
tv_tz_local_kind tv_tz_local_info(const tv_tz *z, int64_t local_ms, int32_t *off, int32_t *before,
                                  int32_t *after, int64_t *at_ms);

/* The last transition strictly before instant utc_ms (ZoneRules
 * .previousTransition): true and its instant in *at_ms, false when there
 * is none. */
bool tv_tz_prev_transition(const tv_tz *z, int64_t utc_ms, int64_t *at_ms);

/* Parses a TZif image (RFC 8536, versions 1 to 4; the 64-bit body of v2+
 * and its footer TZ string, whose rule gives the transitions after the
 * last one in the table). id (NUL-terminated, copied) becomes the zone's
 * id. Never reads outside [data, data+len). TROVE_EARG on malformed data,
 * TROVE_ENOMEM. *out is owned: tv_tz_free. */
tv_status tv_tz_from_tzif(const uint8_t *data, size_t len, const char *id, tv_tz **out);

/* Frees a zone from tv_tz_from_tzif. NULL is a no-op. Never pass a zone
 * from tv_tz_get or tv_tz_utc. */
void tv_tz_free(tv_tz *z);

#endif /* TROVE_INDEX_TZ_H */
