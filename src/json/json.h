/*
 * json.h — the JSON layer: a reader that builds a DOM in an arena, and a
 * writer that prints values the way OpenSearch (Jackson, Java) prints them.
 *
 * Reader: RFC 8259 JSON. Integers that fit int64 are exact (TV_JSON_INT);
 * larger non-negative integers up to UINT64_MAX are exact (TV_JSON_UINT);
 * every other number is a double (TV_JSON_DOUBLE) parsed with correct
 * rounding; `raw`/`raw_len` keep every number's source text so that callers
 * needing BigInteger/BigDecimal behaviour (unsigned_long, scaled_float) can
 * re-read it. Strings are unescaped into the arena (NUL-terminated, may
 * contain NUL bytes: use `len`). Objects keep member order. A duplicate key
 * in one object is an error (OpenSearch enables Jackson's strict duplicate
 * detection). Errors give a byte position and a 1-based line and column
 * (`[line:col]` in parsing_exception reasons), with Jackson's wording where
 * OpenSearch shows it to users.
 *
 * Every value records `off`, the byte offset of its first character in the
 * input, so later layers (the query DSL) can report `[line:col]` of the
 * value they reject: see tv_json_linecol().
 *
 * Writer: appends to a tv_buf. Doubles print as Java's Double.toString,
 * floats as Float.toString (shortest round-trip digits; "1.0", "1.0E-4",
 * "1.2345678E7"); NaN and the infinities are written as the strings "NaN",
 * "Infinity" and "-Infinity", as Jackson's QUOTE_NON_NUMERIC_NUMBERS does.
 * `pretty` mode prints as OpenSearch's `?pretty` (Jackson's default pretty
 * printer: two-space indent, `"key" : value`, `[ ]`/`{ }` for empties).
 *
 * Reader decisions callers may rely on (details in json_read.c):
 *   - A lone surrogate in a \u escape becomes U+FFFD (what Lucene indexes
 *     for it); every string in the DOM is valid UTF-8.
 *   - Raw bytes in strings must be valid UTF-8: errors say "Invalid UTF-8
 *     start byte 0x.." / "Invalid UTF-8 middle byte 0x.." as Jackson does;
 *     overlong forms, encoded surrogates and code points above U+10FFFF are
 *     rejected too (Jackson lets them through).
 *   - Decimals out of double range become +-infinity or 0, as Java does;
 *     `raw` keeps the text.
 *   - Content after the root value is an error (Jackson's message when it
 *     is an unknown token or a close marker, otherwise "Unexpected character
 *     (..): expected end-of-input after the root value").
 *   - Empty input: "No content to map due to end-of-input".
 *   - err->pos/line/col follow Jackson: "Unexpected character" errors point
 *     at the character, errors raised after consuming input (unrecognized
 *     tokens, invalid UTF-8, duplicate fields, end of input) just after it.
 *     Columns count bytes. The api layer appends Jackson's location suffix
 *     itself if it wants one.
 *   - Empty strings may point to a static "" rather than into the arena.
 *
 * Writer: tv_jw.first[d] has bit 0 set while level d is empty and bit 1
 * set when level d is an object. Characters outside the BMP are written as
 * escaped surrogate pairs (`\uD83D\uDE00`), as Jackson 2.x does.
 *
 * Files:
 *   json_read.c    the reader: one value (tv_json_parse) or NDJSON line by
 *                  line (tv_json_parse_line), Jackson's error messages
 *   json_write.c   the writer (tv_jw), including Java's Double.toString and
 *                  Float.toString for every number printed
 *   xcontent.c     what OpenSearch does to JSON objects through Java maps:
 *                  HashMap key order, _source includes/excludes filtering
 *                  (XContentMapValues.filter) and the partial-update merge
 *                  of _update (XContentHelper.update)
 */
#ifndef TROVE_JSON_H
#define TROVE_JSON_H

#include "util/util.h"

typedef enum tv_json_type {
    TV_JSON_NULL = 0,
    TV_JSON_FALSE,
    TV_JSON_TRUE,
    TV_JSON_INT,    /* v.i: an integer literal in int64 range */
    TV_JSON_UINT,   /* v.u: an integer literal in (INT64_MAX, UINT64_MAX] */
    TV_JSON_DOUBLE, /* v.d: any other number (fraction, exponent, or too large) */
    TV_JSON_STRING, /* v.s, len bytes (unescaped, NUL-terminated) */
    TV_JSON_ARRAY,  /* v.items, len elements */
    TV_JSON_OBJECT, /* v.members, len members, in input order */
} tv_json_type;

typedef struct tv_json tv_json;
typedef struct tv_json_member tv_json_member;

struct tv_json {
    uint8_t type;    /* tv_json_type */
    uint32_t len;    /* string bytes, array elements or object members */
    uint32_t off;    /* byte offset of the value's first character */
    uint32_t raw_len; /* numbers: length of the source text at raw */
    const char *raw; /* numbers: source text (borrowed from the input) */
    union {
        int64_t i;
        uint64_t u;
        double d;
        const char *s;
        tv_json *items;
        tv_json_member *members;
    } v;
};

struct tv_json_member {
    const char *key; /* unescaped, NUL-terminated */
    uint32_t key_len;
    uint32_t key_off; /* byte offset of the key's opening quote */
    tv_json val;
};

typedef struct tv_json_error {
    tv_status code;   /* TROVE_EJSON for malformed input, TROVE_ENOMEM, TROVE_ELIMIT (depth) */
    size_t pos;       /* byte offset where the problem was found */
    uint32_t line, col; /* 1-based */
    char msg[256];    /* e.g. "Unexpected character ('}' (code 125)): was expecting double-quote to start field name" */
} tv_json_error;

/* Maximum nesting depth of arrays and objects (deeper input is an error). */
#define TV_JSON_MAX_DEPTH 1000

/*
 * Parses exactly one JSON value (surrounded by optional white space) from
 * [p, p+len). On success *out points to the root (allocated in arena, as is
 * everything it points to; strings may also point into arena copies — never
 * into the input except `raw` of numbers, which borrows the input: keep the
 * input alive as long as you read `raw`). Returns TROVE_OK, or the error
 * code with err filled (err may be NULL). Never reads past len.
 */
tv_status tv_json_parse(tv_arena *arena, const void *p, size_t len, tv_json **out,
                        tv_json_error *err);

/*
 * Parses a sequence of JSON values separated by newlines (NDJSON, as in
 * _bulk and _msearch): call repeatedly with *offset starting at 0; each call
 * parses the next line's value. Returns TROVE_OK with *out set, TROVE_OK with
 * *out NULL at the end of input, or an error. Empty lines are skipped.
 * Positions in err are relative to the whole input.
 */
tv_status tv_json_parse_line(tv_arena *arena, const void *p, size_t len, size_t *offset,
                             tv_json **out, tv_json_error *err);

/* 1-based line and column of byte offset `off` in [p, p+len). */
void tv_json_linecol(const void *p, size_t len, size_t off, uint32_t *line, uint32_t *col);

/* Member lookup in an object: the value of the first member named key, or
 * NULL (also when obj is NULL or not an object). */
const tv_json *tv_json_get(const tv_json *obj, const char *key);
const tv_json *tv_json_getn(const tv_json *obj, const char *key, size_t key_len);

/* Type tests and conversions. */
static inline bool tv_json_is_number(const tv_json *v) {
    return v && (v->type == TV_JSON_INT || v->type == TV_JSON_UINT || v->type == TV_JSON_DOUBLE);
}
static inline bool tv_json_is_string(const tv_json *v) { return v && v->type == TV_JSON_STRING; }
static inline bool tv_json_is_object(const tv_json *v) { return v && v->type == TV_JSON_OBJECT; }
static inline bool tv_json_is_array(const tv_json *v) { return v && v->type == TV_JSON_ARRAY; }
static inline bool tv_json_is_bool(const tv_json *v) {
    return v && (v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE);
}
/* A number as double (INT/UINT converted, DOUBLE as is). 0 for non-numbers. */
double tv_json_as_double(const tv_json *v);

/* Deep equality (objects compare members in order). */
bool tv_json_equal(const tv_json *a, const tv_json *b);

/* ------------------------------------------------------------------ writer */

/*
 * A streaming writer. Commas and (in pretty mode) indentation are inserted
 * automatically. Misuse (a value where a key is expected) is a programming
 * error caught by assertions in debug builds. The first failure (OOM in the
 * buffer) is sticky in the buffer's `oom` flag.
 */
#define TV_JW_MAX_DEPTH 256
typedef struct tv_jw {
    tv_buf *out;
    bool pretty;
    int depth;
    uint8_t first[TV_JW_MAX_DEPTH]; /* 1 while no element was written at that level */
    uint8_t after_key;              /* a key was just written: the next value follows it */
} tv_jw;

/* Starts writing into out (appends; does not clear). */
void tv_jw_init(tv_jw *w, tv_buf *out, bool pretty);
void tv_jw_obj_begin(tv_jw *w);
void tv_jw_obj_end(tv_jw *w);
void tv_jw_arr_begin(tv_jw *w);
void tv_jw_arr_end(tv_jw *w);
/* An object key. */
void tv_jw_key(tv_jw *w, const char *key, size_t len);
void tv_jw_keyz(tv_jw *w, const char *key); /* NUL-terminated */
/* A string value (escaped as Jackson escapes: \" \\ \n \r \t \b \f, other
 * control characters as \u00XX; invalid UTF-8 bytes become U+FFFD). */
void tv_jw_str(tv_jw *w, const char *s, size_t len);
void tv_jw_strz(tv_jw *w, const char *s);
void tv_jw_int(tv_jw *w, int64_t v);
void tv_jw_uint(tv_jw *w, uint64_t v);
/* Java Double.toString / Float.toString formatting. */
void tv_jw_double(tv_jw *w, double v);
void tv_jw_float(tv_jw *w, float v);
void tv_jw_bool(tv_jw *w, bool v);
void tv_jw_null(tv_jw *w);
/* Inserts bytes that are already one complete JSON value (a stored _source).
 * In pretty mode the value is re-indented. */
void tv_jw_raw(tv_jw *w, const char *json, size_t len);
/* Writes a parsed value (numbers written from `raw` when present, so they
 * round-trip byte for byte). */
void tv_jw_value(tv_jw *w, const tv_json *v);

/* Formats as Java would into out (NUL-terminated); returns the length.
 * out must hold at least 32 bytes. */
size_t tv_fmt_double(double v, char *out);
size_t tv_fmt_float(float v, char *out);

/* v as compact JSON text (tv_malloc'd, NUL-terminated), NULL on OOM. */
char *tv_json_compact(const tv_json *v);

/* ---- xcontent.c: OpenSearch's map operations on JSON ---- */

/*
 * Source filtering (_source_includes/_source_excludes, "_source" arrays):
 * returns a copy of src (arena) keeping the paths that match any include
 * (none: all) and no exclude, with XContentMapValues.filter's rules (a
 * pattern also matches every path below what it matches; an object is kept
 * when it was included or kept something; scalars in arrays survive when
 * the array was included). hashmap: objects list their members in the
 * order OpenSearch prints a source that went through its unordered maps
 * (GET's _source filter), else in the document's order. The result may
 * share values with src. NULL on OOM.
 */
tv_json *tv_json_filter(tv_arena *a, const tv_json *src, const char *const *incl, size_t nincl,
                        const char *const *excl, size_t nexcl, bool hashmap);
/* A copy whose objects are in Java HashMap iteration order (a value that
 * went through OpenSearch's unordered maps). NULL on OOM. */
tv_json *tv_json_hm_order(tv_arena *a, const tv_json *v);
/*
 * The partial-update merge (XContentHelper.update): base with changes
 * applied (objects merged key by key, everything else replaced; existing
 * keys keep their place, new keys are appended in the order OpenSearch's
 * unordered map of the partial doc yields). *changed: whether any value
 * differs (always true when detect_noop is false). NULL on OOM.
 */
tv_json *tv_json_merge(tv_arena *a, const tv_json *base, const tv_json *changes, bool detect_noop,
                       bool *changed);

#endif /* TROVE_JSON_H */
