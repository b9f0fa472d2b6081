/*
 * pgvalue.c — a PostgreSQL column value in text output format -> the JSON
 * value of a document field, by type OID; a column type -> an OpenSearch
 * field mapping. Pure: no I/O, no state, no memory the caller must free.
 *
 * Input is what the feed's sessions print (DateStyle ISO, TimeZone UTC,
 * IntervalStyle postgres, bytea_output hex, extra_float_digits 3), checked
 * against PostgreSQL 15. A text that is not a valid value of a type we
 * convert makes tv_pgv_json return false (the feed dead-letters the row);
 * types written as strings are not checked.
 *
 * Values and mappings:
 *   bool 16             "t"/"f" -> true/false                boolean
 *   int2 21, int4 23,   integer text (checked, in range) ->  short, integer,
 *   int8 20, oid 26     a number                             long, long
 *   float4 700,         finite: the text as a JSON number    float, double
 *   float8 701          ("1e+30", "-0" are JSON); NaN, Infinity, -Infinity:
 *                       the string (the index rejects it: a dead letter)
 *   numeric 1700        default: the string, keyword. numeric_as_number:
 *                       finite -> a number, NaN/+-Infinity -> the string;
 *                       scaled_float with scaling_factor 10^scale when the
 *                       typmod has a scale (PG 15 scales are 11-bit signed:
 *                       numeric(5,-2) has scale -2), double when it has none
 *                       or 10^scale is no normal finite double (|scale| > 307)
 *   text 25, varchar 1043, bpchar 1042, name 19
 *                       the string; text with a keyword subfield
 *                       (ignore_above 256), as dynamic mapping gives
 *   uuid 2950, "char" 18, time 1083, timetz 1266, interval 1186, macaddr,
 *   money, bit, geometric, tsvector, xml, pg_lsn, ranges, unknown OIDs
 *   (enums, composites, user base types), TV_PGV_STRING
 *                       the string as is, keyword
 *   json 114, jsonb 3802
 *                       parsed (false if it is not JSON, has a duplicate
 *                       key, or nests deeper than the writer can) and
 *                       written compactly (never raw: a json value may hold
 *                       newlines, which would break an NDJSON body);
 *                       {"type":"object","dynamic":true}
 *   date 1082           "2020-01-02" as is                   date
 *   timestamp 1114      "2020-01-02 03:04:05.5" -> "2020-01-02T03:04:05.5"
 *   timestamptz 1184    "...05.5+00" -> "...05.5Z"; "+05" -> "+05:00";
 *                       "+05:30", "+00:19:32" as is           date
 *                       infinity, -infinity and BC values stay the PG text
 *                       (the index rejects them: a dead letter)
 *   bytea 17            "\x0a0b" -> base64 "Cgs="; bad hex -> false; binary
 *   inet 869            the string as is                     ip
 *                       (with a netmask, "10.0.0.1/8", the ip field
 *                       rejects it: a dead letter)
 *   cidr 650            the string as is                     keyword (trove has no ip_range)
 *   arrays              nested JSON arrays (see below); an array maps as
 *                       its element type; TV_PGV_STRING_ARRAY (an array
 *                       of enums, as the feed resolves it) is an array of
 *                       strings
 *
 * Arrays: the built-in array types are those with hand-assigned OIDs
 * (< 10000), taken from a PostgreSQL 15 catalog (pg_type, typcategory 'A');
 * OIDs from 10000 up (catalog and information_schema row types) are
 * assigned by genbki/initdb, differ between versions, and are written as
 * strings. The text is PG's array output: an optional "[lo:hi]...=" bounds
 * decoration (skipped), then '{' elements '}' nested once per dimension
 * (at most 6). Elements are separated by ',' (';' for box); an element is
 * unquoted, or double-quoted with backslash escapes; an unquoted NULL (any
 * case) is JSON null, a quoted "NULL" the string. Each element is converted
 * by its type's rule (this function, recursively). int2vector 22 and
 * oidvector 30 (typcategory 'A' too) print as space-separated integers
 * ("1 2 3"): a JSON array of numbers.
 *
 * Memory: conversions write straight into the writer's buffer. Exceptions:
 * an array element with escapes is unescaped into a stack buffer, or a
 * heap one freed before returning when it is large; json is parsed in a
 * local arena. On out of memory the buffer's sticky oom flag is set and
 * false returned.
 */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>

#include "sync/sync.h"

enum {
    OID_BOOL = 16,
    OID_BYTEA = 17,
    OID_CHAR = 18,
    OID_NAME = 19,
    OID_INT8 = 20,
    OID_INT2 = 21,
    OID_INT2VECTOR = 22,
    OID_INT4 = 23,
    OID_TEXT = 25,
    OID_OID = 26,
    OID_OIDVECTOR = 30,
    OID_JSON = 114,
    OID_BOX = 603,
    OID_CIDR = 650,
    OID_FLOAT4 = 700,
    OID_FLOAT8 = 701,
    OID_INET = 869,
    OID_BPCHAR = 1042,
    OID_VARCHAR = 1043,
    OID_DATE = 1082,
    OID_TIMESTAMP = 1114,
    OID_TIMESTAMPTZ = 1184,
    OID_NUMERIC = 1700,
    OID_JSONB = 3802,
};

#define PG_MAXDIM 6
#define ELEM_STACK 256 /* unescaped array elements up to this size stay on the stack */

/* Built-in array types (OID < 10000) and their elements, sorted by OID:
 * SELECT a.oid, a.typelem FROM pg_type a JOIN pg_type e ON e.oid = a.typelem
 * WHERE a.typcategory = 'A' AND a.oid < 10000 (PostgreSQL 15). */
static const struct {
    uint16_t oid, elem;
} arrays[] = {
    {22, 21},     {30, 26},     {143, 142},   {199, 114},   {210, 71},    {270, 75},    {271, 5069},
    {272, 81},    {273, 83},    {629, 628},   {651, 650},   {719, 718},   {775, 774},   {791, 790},
    {1000, 16},   {1001, 17},   {1002, 18},   {1003, 19},   {1005, 21},   {1006, 22},   {1007, 23},
    {1008, 24},   {1009, 25},   {1010, 27},   {1011, 28},   {1012, 29},   {1013, 30},   {1014, 1042},
    {1015, 1043}, {1016, 20},   {1017, 600},  {1018, 601},  {1019, 602},  {1020, 603},  {1021, 700},
    {1022, 701},  {1027, 604},  {1028, 26},   {1034, 1033}, {1040, 829},  {1041, 869},  {1115, 1114},
    {1182, 1082}, {1183, 1083}, {1185, 1184}, {1187, 1186}, {1231, 1700}, {1263, 2275}, {1270, 1266},
    {1561, 1560}, {1563, 1562}, {2201, 1790}, {2207, 2202}, {2208, 2203}, {2209, 2204}, {2210, 2205},
    {2211, 2206}, {2949, 2970}, {2951, 2950}, {3221, 3220}, {3643, 3614}, {3644, 3642}, {3645, 3615},
    {3735, 3734}, {3770, 3769}, {3807, 3802}, {3905, 3904}, {3907, 3906}, {3909, 3908}, {3911, 3910},
    {3913, 3912}, {3927, 3926}, {4073, 4072}, {4090, 4089}, {4097, 4096}, {4192, 4191}, {5039, 5038},
    {6150, 4451}, {6151, 4532}, {6152, 4533}, {6153, 4534}, {6155, 4535}, {6157, 4536},
};

uint32_t tv_pgv_array_elem(uint32_t oid) {
    if (oid == TV_PGV_STRING_ARRAY) return TV_PGV_STRING;
    size_t lo = 0, hi = TV_ARRAY_LEN(arrays);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (arrays[mid].oid == oid) return arrays[mid].elem;
        if (arrays[mid].oid < oid) lo = mid + 1;
        else hi = mid;
    }
    return 0;
}

/* ------------------------------------------------------------ scalars */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* An integer as PG prints one: -?[0-9]+, within [min, max]. */
static bool parse_int(const char *s, size_t n, int64_t min, int64_t max, int64_t *out) {
    if (n == 0 || s[0] == '+') return false;
    int64_t v;
    if (!tv_parse_i64(s, n, &v) || v < min || v > max) return false;
    *out = v;
    return true;
}

static bool write_int(tv_jw *w, const char *s, size_t n, int64_t min, int64_t max) {
    int64_t v;
    if (!parse_int(s, n, min, max, &v)) return false;
    tv_jw_int(w, v);
    return true;
}

/* RFC 8259 number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool json_number(const char *s, size_t n) {
    size_t i = 0;
    if (i < n && s[i] == '-') i++;
    if (i >= n || !is_digit(s[i])) return false;
    if (s[i] == '0') i++;
    else
        while (i < n && is_digit(s[i])) i++;
    if (i < n && s[i] == '.') {
        if (++i >= n || !is_digit(s[i])) return false;
        while (i < n && is_digit(s[i])) i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= n || !is_digit(s[i])) return false;
        while (i < n && is_digit(s[i])) i++;
    }
    return i == n;
}

static bool special_float(const char *s, size_t n) {
    return tv_streq(s, n, "NaN") || tv_streq(s, n, "Infinity") || tv_streq(s, n, "-Infinity");
}

/* float4/float8, and numeric as a number: finite -> the text as a number,
 * NaN/+-Infinity -> the string. */
static bool write_float(tv_jw *w, const char *s, size_t n) {
    if (special_float(s, n)) {
        tv_jw_str(w, s, n);
        return true;
    }
    if (!json_number(s, n)) return false;
    tv_jw_raw(w, s, n);
    return true;
}

/* ---- dates ---- */

static bool is_infinity(const char *s, size_t n) { return tv_streq(s, n, "infinity") || tv_streq(s, n, "-infinity"); }

static bool digits(const char *s, size_t n, size_t at, size_t count) {
    if (at + count > n) return false;
    for (size_t i = at; i < at + count; i++)
        if (!is_digit(s[i])) return false;
    return true;
}

/* "YYYY-MM-DD" (4 or more year digits) at the start of s: its length, or 0. */
static size_t date_part(const char *s, size_t n) {
    size_t y = 0;
    while (y < n && is_digit(s[y])) y++;
    if (y < 4 || y + 6 > n || s[y] != '-' || !digits(s, n, y + 1, 2) || s[y + 3] != '-' || !digits(s, n, y + 4, 2))
        return 0;
    return y + 6;
}

/* "HH:MM:SS" with an optional ".f" (1 to 6 digits) at s+at: its end, or 0. */
static size_t time_part(const char *s, size_t n, size_t at) {
    if (!digits(s, n, at, 2) || at + 8 > n || s[at + 2] != ':' || !digits(s, n, at + 3, 2) || s[at + 5] != ':' ||
        !digits(s, n, at + 6, 2))
        return 0;
    size_t i = at + 8;
    if (i < n && s[i] == '.') {
        size_t f = ++i;
        while (i < n && is_digit(s[i])) i++;
        if (i == f || i - f > 6) return 0;
    }
    return i;
}

static bool ends_bc(const char *s, size_t n) { return n > 3 && memcmp(s + n - 3, " BC", 3) == 0; }

static bool write_date(tv_jw *w, const char *s, size_t n) {
    if (!is_infinity(s, n)) {
        size_t d = date_part(s, n);
        if (!d || !(d == n || (d + 3 == n && ends_bc(s, n)))) return false;
    }
    tv_jw_str(w, s, n);
    return true;
}

/* timestamp (tz false) and timestamptz (tz true). */
static bool write_timestamp(tv_jw *w, const char *s, size_t n, bool tz) {
    if (is_infinity(s, n)) {
        tv_jw_str(w, s, n);
        return true;
    }
    bool bc = ends_bc(s, n);
    size_t end = bc ? n - 3 : n; /* the BC suffix follows the offset */
    size_t d = date_part(s, end);
    if (!d || d >= end || s[d] != ' ') return false;
    size_t t = time_part(s, end, d + 1);
    if (!t) return false;
    size_t off = t; /* the offset: [+-]HH, [+-]HH:MM or [+-]HH:MM:SS */
    if (tz) {
        if (off >= end || (s[off] != '+' && s[off] != '-') || !digits(s, end, off + 1, 2)) return false;
        size_t len = end - off;
        if (!(len == 3 || (len == 6 && s[off + 3] == ':' && digits(s, end, off + 4, 2)) ||
              (len == 9 && s[off + 3] == ':' && digits(s, end, off + 4, 2) && s[off + 6] == ':' &&
               digits(s, end, off + 7, 2))))
            return false;
    } else if (off != end) {
        return false;
    }
    if (bc) {
        tv_jw_str(w, s, n);
        return true;
    }
    char b[64]; /* date (at most 12 bytes of year), time, offset: well below */
    if (n + 3 > sizeof b) return false;
    memcpy(b, s, n);
    b[d] = 'T';
    size_t m = n;
    if (tz && n - off == 3) {
        if (s[off] == '+' && s[off + 1] == '0' && s[off + 2] == '0') {
            b[off] = 'Z';
            m = off + 1;
        } else {
            memcpy(b + n, ":00", 3);
            m = n + 3;
        }
    }
    tv_jw_str(w, b, m);
    return true;
}

/* ---- bytea ---- */

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* "\x" and hex pairs -> a base64 string. The string is built in the
 * writer's buffer: an empty string is written (which puts any separator
 * the position needs), its closing quote replaced by the base64 text. */
static bool write_bytea(tv_jw *w, const char *s, size_t n) {
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (n < 2 || s[0] != '\\' || s[1] != 'x' || (n - 2) % 2) return false;
    for (size_t i = 2; i < n; i++)
        if (hexval(s[i]) < 0) return false;
    size_t bytes = (n - 2) / 2;
    tv_buf *out = w->out;
    tv_jw_str(w, "", 0);
    if (out->oom) return false;
    if (out->len < 2 || out->data[out->len - 1] != '"') return false; /* cannot happen */
    out->len--;
    size_t enc = (bytes + 2) / 3 * 4;
    if (!tv_buf_reserve(out, enc + 1)) return false;
    char *o = out->data + out->len;
    const char *p = s + 2;
    for (size_t i = 0; i < bytes; i += 3) {
        uint32_t v = 0;
        size_t k = bytes - i < 3 ? bytes - i : 3;
        for (size_t j = 0; j < 3; j++) {
            v <<= 8;
            if (j < k) {
                v |= (uint32_t)(hexval(p[0]) << 4 | hexval(p[1]));
                p += 2;
            }
        }
        *o++ = b64[v >> 18 & 63];
        *o++ = b64[v >> 12 & 63];
        *o++ = k > 1 ? b64[v >> 6 & 63] : '=';
        *o++ = k > 2 ? b64[v & 63] : '=';
    }
    *o++ = '"';
    *o = '\0';
    out->len += enc + 1;
    return true;
}

/* ---- json ---- */

static int json_depth(const tv_json *v) {
    if (v->type != TV_JSON_ARRAY && v->type != TV_JSON_OBJECT) return 0;
    int d = 0;
    for (uint32_t i = 0; i < v->len; i++) {
        int k = json_depth(v->type == TV_JSON_ARRAY ? &v->v.items[i] : &v->v.members[i].val);
        if (k > d) d = k; /* not TV_MAX: it would evaluate the call twice */
    }
    return d + 1;
}

static bool write_json(tv_jw *w, const char *s, size_t n) {
    tv_arena a;
    tv_arena_init(&a);
    tv_json *v = NULL;
    tv_status st = tv_json_parse(&a, s, n, &v, NULL);
    bool ok = st == TROVE_OK && w->depth + json_depth(v) < TV_JW_MAX_DEPTH;
    if (ok) tv_jw_value(w, v);
    if (st == TROVE_ENOMEM) w->out->oom = true;
    tv_arena_fini(&a);
    return ok;
}

/* ------------------------------------------------------------- arrays */

static bool convert(tv_jw *w, uint32_t oid, const char *s, size_t n, const tv_pgv_opts *o, int depth);

/* int2vector and oidvector: "1 2 3" (space-separated; "" is empty). */
static bool write_vector(tv_jw *w, const char *s, size_t n, uint32_t elem) {
    tv_jw_arr_begin(w);
    size_t i = 0;
    for (;;) {
        while (i < n && s[i] == ' ') i++;
        if (i == n) break;
        size_t b = i;
        while (i < n && s[i] != ' ') i++;
        bool ok = elem == OID_INT2 ? write_int(w, s + b, i - b, INT16_MIN, INT16_MAX)
                                   : write_int(w, s + b, i - b, 0, UINT32_MAX);
        if (!ok) return false;
    }
    tv_jw_arr_end(w);
    return true;
}

/* array_isspace: what PG skips around elements. */
static bool pg_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

typedef struct arr_parse {
    tv_jw *w;
    const char *p, *end;
    uint32_t elem;
    char delim;
    const tv_pgv_opts *o;
    int depth; /* of array-in-array conversions (int2vector[]) */
} arr_parse;

static void skip_space(arr_parse *a) {
    while (a->p < a->end && pg_space(*a->p)) a->p++;
}

/* One element at a->p (not a sub-array). */
static bool array_element(arr_parse *a) {
    const char *p = a->p, *end = a->end;
    if (*p != '"') {
        const char *b = p;
        while (p < end && *p != a->delim && *p != '}') {
            if (*p == '{' || *p == '"' || *p == '\\') return false;
            p++;
        }
        const char *e = p;
        while (e > b && pg_space(e[-1])) e--;
        a->p = p;
        if (e == b) return false;
        if (e - b == 4 && (b[0] | 0x20) == 'n' && (b[1] | 0x20) == 'u' && (b[2] | 0x20) == 'l' &&
            (b[3] | 0x20) == 'l') {
            tv_jw_null(a->w);
            return true;
        }
        return convert(a->w, a->elem, b, (size_t)(e - b), a->o, a->depth + 1);
    }
    /* quoted: find the closing quote, counting the escaped bytes */
    const char *b = ++p;
    size_t escapes = 0;
    while (p < end && *p != '"') {
        if (*p == '\\') {
            if (++p == end) return false;
            escapes++;
        }
        p++;
    }
    if (p == end) return false;
    a->p = p + 1;
    size_t n = (size_t)(p - b) - escapes;
    if (!escapes) return convert(a->w, a->elem, b, n, a->o, a->depth + 1);
    char stack[ELEM_STACK];
    char *u = n <= sizeof stack ? stack : tv_malloc(n);
    if (!u) {
        a->w->out->oom = true;
        return false;
    }
    size_t k = 0;
    for (const char *q = b; q < p; q++) {
        if (*q == '\\') q++;
        u[k++] = *q;
    }
    bool ok = convert(a->w, a->elem, u, n, a->o, a->depth + 1);
    if (u != stack) tv_free(u);
    return ok;
}

/* '{' ... '}' at a->p: one dimension (dim 1 the outermost). */
static bool array_level(arr_parse *a, int dim) {
    if (dim > PG_MAXDIM || a->p >= a->end || *a->p != '{') return false;
    if (a->w->depth + 1 >= TV_JW_MAX_DEPTH) return false; /* the writer would fail for good */
    a->p++;
    tv_jw_arr_begin(a->w);
    skip_space(a);
    if (a->p < a->end && *a->p == '}') {
        a->p++;
        tv_jw_arr_end(a->w);
        return true;
    }
    int kind = 0; /* 1: elements, 2: sub-arrays (never both) */
    for (;;) {
        skip_space(a);
        if (a->p >= a->end) return false;
        if (*a->p == '{') {
            if (kind == 1) return false;
            kind = 2;
            if (!array_level(a, dim + 1)) return false;
        } else {
            if (kind == 2) return false;
            kind = 1;
            if (!array_element(a)) return false;
        }
        skip_space(a);
        if (a->p >= a->end) return false;
        char c = *a->p++;
        if (c == '}') break;
        if (c != a->delim) return false;
    }
    tv_jw_arr_end(a->w);
    return true;
}

/* "[-?n:-?n]" repeated, then '=' (array_out's bounds decoration). */
static bool skip_bounds(arr_parse *a) {
    const char *p = a->p, *end = a->end;
    if (p >= end || *p != '[') return true;
    while (p < end && *p == '[') {
        p++;
        for (int part = 0; part < 2; part++) {
            if (p < end && (*p == '-' || *p == '+')) p++;
            if (p >= end || !is_digit(*p)) return false;
            while (p < end && is_digit(*p)) p++;
            if (p >= end || *p != (part ? ']' : ':')) return false;
            p++;
        }
    }
    if (p >= end || *p != '=') return false;
    a->p = p + 1;
    return true;
}

static bool write_array(tv_jw *w, uint32_t elem, const char *s, size_t n, const tv_pgv_opts *o, int depth) {
    arr_parse a = {w, s, s + n, elem, elem == OID_BOX ? ';' : ',', o, depth};
    skip_space(&a);
    if (!skip_bounds(&a)) return false;
    skip_space(&a);
    if (!array_level(&a, 1)) return false;
    skip_space(&a);
    return a.p == a.end;
}

/* ------------------------------------------------------------- values */

static bool convert(tv_jw *w, uint32_t oid, const char *s, size_t n, const tv_pgv_opts *o, int depth) {
    if (depth > 4) return false; /* built-in nesting stops at int2vector[] */
    uint32_t elem = tv_pgv_array_elem(oid);
    if (elem) {
        if (oid == OID_INT2VECTOR || oid == OID_OIDVECTOR) return write_vector(w, s, n, elem);
        return write_array(w, elem, s, n, o, depth);
    }
    switch (oid) {
    case OID_BOOL:
        if (n != 1 || (s[0] != 't' && s[0] != 'f')) return false;
        tv_jw_bool(w, s[0] == 't');
        return true;
    case OID_INT2: return write_int(w, s, n, INT16_MIN, INT16_MAX);
    case OID_INT4: return write_int(w, s, n, INT32_MIN, INT32_MAX);
    case OID_INT8: return write_int(w, s, n, INT64_MIN, INT64_MAX);
    case OID_OID: return write_int(w, s, n, 0, UINT32_MAX);
    case OID_FLOAT4:
    case OID_FLOAT8: return write_float(w, s, n);
    case OID_NUMERIC:
        if (o && o->numeric_as_number) return write_float(w, s, n);
        if (!special_float(s, n) && !json_number(s, n)) return false;
        tv_jw_str(w, s, n);
        return true;
    case OID_JSON:
    case OID_JSONB: return write_json(w, s, n);
    case OID_DATE: return write_date(w, s, n);
    case OID_TIMESTAMP: return write_timestamp(w, s, n, false);
    case OID_TIMESTAMPTZ: return write_timestamp(w, s, n, true);
    case OID_BYTEA: return write_bytea(w, s, n);
    default: tv_jw_str(w, s, n); return true;
    }
}

bool tv_pgv_json(tv_jw *w, uint32_t oid, const char *text, size_t len, const tv_pgv_opts *o) {
    return convert(w, oid, text, len, o, 0);
}

/* ----------------------------------------------------------- mappings */

static void map_type(tv_jw *w, const char *type) {
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "type");
    tv_jw_strz(w, type);
    tv_jw_obj_end(w);
}

/* numeric(p,s): scaled_float with 10^s, or double. */
static void map_numeric(tv_jw *w, int32_t typmod) {
    if (typmod < 4) {
        map_type(w, "double");
        return;
    }
    /* PG 15: the low 11 bits of typmod - VARHDRSZ are the scale, signed */
    int scale = (int)((((uint32_t)typmod - 4) & 0x7ff) ^ 1024) - 1024;
    char num[16];
    snprintf(num, sizeof num, "1e%d", scale);
    double factor = strtod(num, NULL);
    if (!(factor >= DBL_MIN && factor <= DBL_MAX)) { /* zero, subnormal or infinite */
        map_type(w, "double");
        return;
    }
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "type");
    tv_jw_strz(w, "scaled_float");
    tv_jw_keyz(w, "scaling_factor");
    if (scale >= 0 && scale <= 18) {
        int64_t f = 1;
        for (int i = 0; i < scale; i++) f *= 10;
        tv_jw_int(w, f);
    } else {
        tv_jw_double(w, factor);
    }
    tv_jw_obj_end(w);
}

void tv_pgv_mapping(tv_jw *w, uint32_t oid, int32_t typmod, const tv_pgv_opts *o) {
    for (uint32_t elem; (elem = tv_pgv_array_elem(oid)) != 0;) oid = elem; /* typmod is the element's */
    switch (oid) {
    case OID_BOOL: map_type(w, "boolean"); return;
    case OID_INT2: map_type(w, "short"); return;
    case OID_INT4: map_type(w, "integer"); return;
    case OID_INT8:
    case OID_OID: map_type(w, "long"); return;
    case OID_FLOAT4: map_type(w, "float"); return;
    case OID_FLOAT8: map_type(w, "double"); return;
    case OID_NUMERIC:
        if (o && o->numeric_as_number) map_numeric(w, typmod);
        else map_type(w, "keyword");
        return;
    case OID_TEXT:
    case OID_VARCHAR:
    case OID_BPCHAR:
    case OID_NAME:
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "type");
        tv_jw_strz(w, "text");
        tv_jw_keyz(w, "fields");
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "keyword");
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "type");
        tv_jw_strz(w, "keyword");
        tv_jw_keyz(w, "ignore_above");
        tv_jw_int(w, 256);
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
        return;
    case OID_JSON:
    case OID_JSONB:
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "type");
        tv_jw_strz(w, "object");
        tv_jw_keyz(w, "dynamic");
        tv_jw_bool(w, true);
        tv_jw_obj_end(w);
        return;
    case OID_DATE:
    case OID_TIMESTAMP:
    case OID_TIMESTAMPTZ: map_type(w, "date"); return;
    case OID_BYTEA: map_type(w, "binary"); return;
    case OID_INET: map_type(w, "ip"); return;
    case OID_CIDR: map_type(w, "keyword"); return; /* ip_range: trove has none yet */
    default: map_type(w, "keyword"); return;
    }
}
