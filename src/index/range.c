/*
 * range.c — the range field types (integer_range, long_range, float_range,
 * double_range, date_range, ip_range): how a range's bounds are encoded
 * and how two ranges relate.
 *
 * A document's range is kept with inclusive bounds, as OpenSearch's
 * RangeFieldMapper.Range after RangeType.parseFrom/parseTo (gt moves the
 * lower bound to the next value up, lt the upper one to the next value
 * down; an open end is the type's minimum or maximum). Each bound is an
 * order-preserving big-endian byte string: 8 bytes for the numeric and
 * date types (the sortable int64 of index.h with its sign bit flipped, so
 * unsigned byte order is numeric order; float bounds are widened to
 * double exactly), 16 for ip_range (the tv_ip_parse bytes, IPv4 mapped).
 * The range is the lower bound's bytes followed by the upper bound's: one
 * term of the field's postings and one value of its sorted-set doc
 * values, so duplicates collapse and pairs never separate.
 *
 * Queries compare bytes only: a range query on a range field enumerates
 * the field's terms and keeps those whose range stands in the relation
 * asked for to the query's range (tv_range_relation), which is exact for
 * multi-valued fields too (a document matches when any of its ranges
 * does, as Lucene's RangeFieldQuery). Rejected: Lucene's BKD points over
 * 2 * w dimensions (the term dictionary already orders the ranges by
 * lower bound, and a separate points structure would be a new segment
 * section for one field family), and two numeric doc values per range
 * (sorted numeric doc values sort each document's values, which would
 * separate a range's bounds when a document has several ranges).
 */
#include <math.h>
#include <string.h>

#include "index/index.h"

size_t tv_range_width(tv_field_type range_type) { return range_type == TV_FT_IP ? 16 : 8; }

void tv_range_encode_bound(tv_field_type range_type, int64_t sortable, const uint8_t *ip, uint8_t *out) {
    if (range_type == TV_FT_IP) {
        memcpy(out, ip, 16);
        return;
    }
    uint64_t u = (uint64_t)sortable ^ 0x8000000000000000ull;
    for (int i = 7; i >= 0; i--) {
        out[i] = (uint8_t)u;
        u >>= 8;
    }
}

int64_t tv_range_decode_bound(const uint8_t *in) {
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) u = (u << 8) | in[i];
    return (int64_t)(u ^ 0x8000000000000000ull);
}

bool tv_range_relation(const uint8_t *stored, const uint8_t *query, size_t w, tv_range_rel rel) {
    const uint8_t *a = stored, *b = stored + w, *c = query, *d = query + w;
    switch (rel) {
    case TV_RANGE_CONTAINS: return memcmp(a, c, w) <= 0 && memcmp(d, b, w) <= 0;
    case TV_RANGE_WITHIN: return memcmp(c, a, w) <= 0 && memcmp(b, d, w) <= 0;
    case TV_RANGE_INTERSECTS: break;
    }
    return memcmp(a, d, w) <= 0 && memcmp(c, b, w) <= 0;
}

const char *tv_range_type_name(tv_field_type range_type) {
    switch (range_type) {
    case TV_FT_INTEGER: return "integer_range";
    case TV_FT_LONG: return "long_range";
    case TV_FT_FLOAT: return "float_range";
    case TV_FT_DOUBLE: return "double_range";
    case TV_FT_DATE: return "date_range";
    case TV_FT_IP: return "ip_range";
    default: return "range";
    }
}

void tv_range_limits(tv_field_type range_type, int64_t *min, int64_t *max) {
    switch (range_type) {
    case TV_FT_INTEGER:
        *min = INT32_MIN;
        *max = INT32_MAX;
        return;
    case TV_FT_FLOAT:
    case TV_FT_DOUBLE:
        *min = tv_double_to_sortable(-INFINITY);
        *max = tv_double_to_sortable(INFINITY);
        return;
    default:
        *min = INT64_MIN;
        *max = INT64_MAX;
        return;
    }
}

int64_t tv_range_next(tv_field_type range_type, int64_t s, bool up) {
    int64_t lo, hi;
    tv_range_limits(range_type, &lo, &hi);
    if (up ? s >= hi : s <= lo) return s;
    if (range_type == TV_FT_FLOAT) {
        float f = (float)tv_sortable_to_double(s);
        return tv_double_to_sortable((double)nextafterf(f, up ? INFINITY : -INFINITY));
    }
    if (range_type == TV_FT_DOUBLE) {
        double d = tv_sortable_to_double(s);
        return tv_double_to_sortable(nextafter(d, up ? INFINITY : -INFINITY));
    }
    return up ? s + 1 : s - 1;
}
