/*
 * fields.c — small per-field helpers shared by the index and search layers:
 * OpenSearch type names, the sortable encoding of doubles, and the one-byte
 * norm encoding of field lengths.
 *
 * tv_double_to_sortable is Lucene's NumericUtils.doubleToSortableLong: the
 * IEEE bits with the magnitude bits flipped for negative values, so that
 * signed int64 order equals numeric order (-0.0 sorts before 0.0, NaN is
 * canonicalised and sorts last). The mapping is its own inverse on bits.
 *
 * tv_norm_encode is Lucene's SmallFloat.intToByte4: lengths below 24 are
 * stored exactly; above, 24 + a 4-bit-mantissa float of (length - 24), so
 * lengths 0..40 survive a round trip exactly and larger ones fall into
 * buckets whose width doubles every 8 codes. BM25 must see exactly these
 * buckets to score as Lucene does, so no other scheme (e.g. a log scale)
 * was considered.
 */
#include <math.h>

#include "index/index.h"

static const char *const type_names[] = {
    [TV_FT_OBJECT] = "object",       [TV_FT_TEXT] = "text",
    [TV_FT_KEYWORD] = "keyword",     [TV_FT_LONG] = "long",
    [TV_FT_INTEGER] = "integer",     [TV_FT_SHORT] = "short",
    [TV_FT_BYTE] = "byte",           [TV_FT_DOUBLE] = "double",
    [TV_FT_FLOAT] = "float",         [TV_FT_HALF_FLOAT] = "half_float",
    [TV_FT_SCALED_FLOAT] = "scaled_float", [TV_FT_UNSIGNED_LONG] = "unsigned_long",
    [TV_FT_DATE] = "date",           [TV_FT_BOOLEAN] = "boolean",
};

const char *tv_field_type_name(tv_field_type t) {
    if ((unsigned)t >= TV_ARRAY_LEN(type_names) || !type_names[t]) return "unknown";
    return type_names[t];
}

bool tv_field_type_is_numeric(tv_field_type t) {
    switch (t) {
    case TV_FT_LONG: case TV_FT_INTEGER: case TV_FT_SHORT: case TV_FT_BYTE:
    case TV_FT_DOUBLE: case TV_FT_FLOAT: case TV_FT_HALF_FLOAT: case TV_FT_SCALED_FLOAT:
    case TV_FT_UNSIGNED_LONG:
        return true;
    default:
        return false;
    }
}

bool tv_field_type_is_floating(tv_field_type t) {
    return t == TV_FT_DOUBLE || t == TV_FT_FLOAT || t == TV_FT_HALF_FLOAT;
}

int64_t tv_double_to_sortable(double d) {
    int64_t bits;
    if (isnan(d)) d = NAN; /* Double.doubleToLongBits canonicalises NaN */
    memcpy(&bits, &d, sizeof bits);
    if (isnan(d)) bits = 0x7ff8000000000000LL;
    return bits ^ ((bits >> 63) & INT64_MAX);
}

double tv_sortable_to_double(int64_t s) {
    int64_t bits = s ^ ((s >> 63) & INT64_MAX);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* SmallFloat.longToInt4 / int4ToLong: a float with a 3-bit explicit
 * mantissa (plus the implicit leading one) and a 5-bit exponent. */
static uint32_t long_to_int4(uint64_t i) {
    int num_bits = i ? 64 - __builtin_clzll(i) : 0;
    if (num_bits < 4) return (uint32_t)i;
    int shift = num_bits - 4;
    uint32_t encoded = (uint32_t)(i >> shift) & 0x07;
    return encoded | ((uint32_t)(shift + 1) << 3);
}

static uint64_t int4_to_long(uint32_t i) {
    uint64_t bits = i & 0x07;
    int shift = (int)(i >> 3) - 1;
    return shift == -1 ? bits : (bits | 0x08) << shift;
}

/* 255 - longToInt4(Integer.MAX_VALUE) = 24 */
#define NUM_FREE_VALUES 24u

uint8_t tv_norm_encode(uint32_t length) {
    if (length > INT32_MAX) length = INT32_MAX; /* Java ints */
    if (length < NUM_FREE_VALUES) return (uint8_t)length;
    return (uint8_t)(NUM_FREE_VALUES + long_to_int4(length - NUM_FREE_VALUES));
}

uint32_t tv_norm_decode(uint8_t norm) {
    if (norm < NUM_FREE_VALUES) return norm;
    uint64_t decoded = NUM_FREE_VALUES + int4_to_long(norm - NUM_FREE_VALUES);
    return decoded > INT32_MAX ? (uint32_t)INT32_MAX : (uint32_t)decoded;
}
