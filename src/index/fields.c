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
 *
 * IP addresses follow OpenSearch's InetAddresses: dotted IPv4 with four
 * decimal octets (no leading zeros), IPv6 with at most one "::" and an
 * optional trailing dotted IPv4; the 16-byte form maps IPv4 into
 * ::ffff:0:0/96 (Lucene's InetAddressPoint), so memcmp order is address
 * order and one term dictionary serves term, range and CIDR queries.
 * Printing compresses the longest run (two or more) of zero groups, the
 * first one on ties, lower-case hex (RFC 5952, Guava's toAddrString).
 * Geo points use Lucene's GeoEncodingUtils quantization (floor of degrees
 * over 180/2^32 resp. 360/2^32, the maxima clamped).
 */
#include <math.h>
#include <stdio.h>

#include "index/index.h"

static const char *const type_names[] = {
    [TV_FT_OBJECT] = "object",       [TV_FT_TEXT] = "text",
    [TV_FT_KEYWORD] = "keyword",     [TV_FT_LONG] = "long",
    [TV_FT_INTEGER] = "integer",     [TV_FT_SHORT] = "short",
    [TV_FT_BYTE] = "byte",           [TV_FT_DOUBLE] = "double",
    [TV_FT_FLOAT] = "float",         [TV_FT_HALF_FLOAT] = "half_float",
    [TV_FT_SCALED_FLOAT] = "scaled_float", [TV_FT_UNSIGNED_LONG] = "unsigned_long",
    [TV_FT_DATE] = "date",           [TV_FT_BOOLEAN] = "boolean",
    [TV_FT_BINARY] = "binary",       [TV_FT_IP] = "ip",
    [TV_FT_MATCH_ONLY_TEXT] = "match_only_text", [TV_FT_GEO_POINT] = "geo_point",
    [TV_FT_DATE_NANOS] = "date_nanos", [TV_FT_RANGE] = "range",
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

bool tv_field_type_is_text(tv_field_type t) {
    return t == TV_FT_TEXT || t == TV_FT_MATCH_ONLY_TEXT;
}

/* ------------------------------------------------------------ ip */

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool parse_v4(const char *s, size_t n, uint8_t out[4]) {
    size_t i = 0;
    for (int part = 0; part < 4; part++) {
        if (part) {
            if (i >= n || s[i] != '.') return false;
            i++;
        }
        size_t st = i;
        unsigned v = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9' && i - st < 4) v = v * 10 + (unsigned)(s[i++] - '0');
        size_t len = i - st;
        if (len == 0 || len > 3 || v > 255 || (len > 1 && s[st] == '0')) return false;
        out[part] = (uint8_t)v;
    }
    return i == n;
}

bool tv_ip_parse(const char *s, size_t n, uint8_t out[16]) {
    if (!s || n == 0 || n > 64) return false;
    bool colon = memchr(s, ':', n) != NULL;
    if (!colon) {
        uint8_t v4[4];
        if (!parse_v4(s, n, v4)) return false;
        memset(out, 0, 10);
        out[10] = out[11] = 0xff;
        memcpy(out + 12, v4, 4);
        return true;
    }
    /* IPv6: groups before and after "::" */
    uint16_t head[8], tail[8];
    int nh = 0, nt = 0;
    bool gap = false;
    size_t i = 0;
    if (n >= 2 && s[0] == ':' ) {
        if (s[1] != ':') return false;
        gap = true;
        i = 2;
        if (i == n) goto assemble;
    }
    while (i < n) {
        /* a trailing dotted IPv4 takes two groups */
        size_t j = i;
        while (j < n && s[j] != ':') j++;
        if (j == n && memchr(s + i, '.', n - i)) {
            uint8_t v4[4];
            if (!parse_v4(s + i, n - i, v4)) return false;
            uint16_t g1 = (uint16_t)(v4[0] << 8 | v4[1]), g2 = (uint16_t)(v4[2] << 8 | v4[3]);
            if (gap) {
                if (nt > 6) return false;
                tail[nt++] = g1;
                tail[nt++] = g2;
            } else {
                if (nh > 6) return false;
                head[nh++] = g1;
                head[nh++] = g2;
            }
            i = n;
            break;
        }
        size_t len = j - i;
        if (len == 0 || len > 4) return false;
        unsigned v = 0;
        for (size_t k = i; k < j; k++) {
            int h = hexval(s[k]);
            if (h < 0) return false;
            v = v << 4 | (unsigned)h;
        }
        if (gap) {
            if (nt >= 8) return false;
            tail[nt++] = (uint16_t)v;
        } else {
            if (nh >= 8) return false;
            head[nh++] = (uint16_t)v;
        }
        i = j;
        if (i == n) break;
        /* at ':' */
        i++;
        if (i < n && s[i] == ':') {
            if (gap) return false;
            gap = true;
            i++;
            if (i == n) break;
        } else if (i == n) {
            return false; /* trailing single ':' */
        }
    }
assemble:
    if (gap ? nh + nt > 7 : nh != 8) return false;
    uint16_t g[8] = {0};
    for (int k = 0; k < nh; k++) g[k] = head[k];
    for (int k = 0; k < nt; k++) g[8 - nt + k] = tail[k];
    for (int k = 0; k < 8; k++) {
        out[2 * k] = (uint8_t)(g[k] >> 8);
        out[2 * k + 1] = (uint8_t)g[k];
    }
    return true;
}

static bool is_v4_mapped(const uint8_t ip[16]) {
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return memcmp(ip, prefix, 12) == 0;
}

size_t tv_ip_format(const uint8_t ip[16], char *out) {
    if (is_v4_mapped(ip))
        return (size_t)snprintf(out, TV_IP_TEXT_MAX, "%u.%u.%u.%u", ip[12], ip[13], ip[14], ip[15]);
    uint16_t g[8];
    for (int k = 0; k < 8; k++) g[k] = (uint16_t)(ip[2 * k] << 8 | ip[2 * k + 1]);
    int best = -1, best_len = 0;
    for (int k = 0; k < 8;) {
        if (g[k]) {
            k++;
            continue;
        }
        int e = k;
        while (e < 8 && g[e] == 0) e++;
        if (e - k >= 2 && e - k > best_len) {
            best = k;
            best_len = e - k;
        }
        k = e;
    }
    size_t o = 0;
    for (int k = 0; k < 8; k++) {
        if (k == best) {
            out[o++] = ':';
            if (k == 0) out[o++] = ':';
            k += best_len - 1;
            continue;
        }
        o += (size_t)snprintf(out + o, TV_IP_TEXT_MAX - o, "%x", g[k]);
        if (k < 7) out[o++] = ':';
    }
    out[o] = '\0';
    return o;
}

bool tv_ip_parse_cidr(const char *s, size_t n, uint8_t lo[16], uint8_t hi[16]) {
    const char *slash = memchr(s, '/', n);
    if (!slash) return false;
    size_t al = (size_t)(slash - s);
    const char *p = slash + 1;
    size_t pl = n - al - 1;
    if (pl == 0 || pl > 3) return false;
    unsigned bits = 0;
    for (size_t i = 0; i < pl; i++) {
        if (p[i] < '0' || p[i] > '9') return false;
        bits = bits * 10 + (unsigned)(p[i] - '0');
    }
    if (!tv_ip_parse(s, al, lo)) return false;
    bool v4 = memchr(s, ':', al) == NULL;
    if (v4) {
        if (bits > 32) return false;
        bits += 96;
    } else if (bits > 128) {
        return false;
    }
    memcpy(hi, lo, 16);
    for (unsigned b = bits; b < 128; b++) {
        lo[b / 8] &= (uint8_t)~(0x80u >> (b % 8));
        hi[b / 8] |= (uint8_t)(0x80u >> (b % 8));
    }
    return true;
}

/* ------------------------------------------------------------ geo */

#define LAT_DECODE (180.0 / 4294967296.0)
#define LON_DECODE (360.0 / 4294967296.0)

int64_t tv_geo_encode(double lat, double lon) {
    int32_t la = lat >= 90.0 ? INT32_MAX : (int32_t)floor(lat / LAT_DECODE);
    int32_t lo = lon >= 180.0 ? INT32_MAX : (int32_t)floor(lon / LON_DECODE);
    return (int64_t)(((uint64_t)(uint32_t)la << 32) | (uint32_t)lo);
}

void tv_geo_decode(int64_t packed, double *lat, double *lon) {
    int32_t la = (int32_t)(uint32_t)((uint64_t)packed >> 32);
    int32_t lo = (int32_t)(uint32_t)(uint64_t)packed;
    *lat = la * LAT_DECODE;
    *lon = lo * LON_DECODE;
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
