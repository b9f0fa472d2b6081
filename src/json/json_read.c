/*
 * json_read.c — the JSON reader: RFC 8259 text to a DOM in an arena.
 *
 * What it does. tv_json_parse() reads exactly one value; tv_json_parse_line()
 * reads NDJSON one line at a time (_bulk, _msearch). Errors carry a byte
 * position, a 1-based line and column, and Jackson's wording, because
 * OpenSearch shows Jackson's messages to users in json_parse_exception and
 * parsing_exception reasons.
 *
 * Algorithm. One recursive-descent pass over the bytes; nothing is tokenised
 * twice. Children of an open array or object are collected on two scratch
 * stacks (one of tv_json for array items, one of tv_json_member for object
 * members); when the container closes, its children are copied into one
 * arena allocation of exactly the right size, so every container is one
 * contiguous array and the parse allocates nothing per value from the heap.
 * The scratch stacks start in a buffer on the C stack and move to the heap
 * only for very wide or deep documents (freed before returning).
 * Arena allocations are bumped inline on the arena's public ptr/end and fall
 * back to tv_arena_alloc() when the block is full.
 *
 * Strings: a scan finds the closing quote eight bytes at a time (SWAR: a
 * byte is interesting if it is '"', '\\', < 0x20 or >= 0x80) and validates
 * UTF-8 sequences as it meets them. A string without escapes is then one
 * memcpy into the arena. A string with escapes is decoded in a second pass
 * into an allocation of the raw length (unescaped text is never longer than
 * its escaped form) whose unused tail is given back to the arena.
 *   - \u escapes: a high surrogate followed by a \u low surrogate is one
 *     code point; a lone surrogate (which Jackson keeps as a Java char, and
 *     which Lucene turns into U+FFFD when it indexes the text) becomes
 *     U+FFFD, so every string in the DOM is valid UTF-8.
 *   - Raw bytes must be valid UTF-8. Jackson rejects bad start and middle
 *     bytes ("Invalid UTF-8 start byte 0x..", "Invalid UTF-8 middle byte
 *     0x.."), but lets overlong forms, encoded surrogates and code points
 *     above U+10FFFF through; we reject those too, with the same messages
 *     (the byte where the sequence stops being valid is named), so that
 *     later layers can rely on well-formed UTF-8.
 *
 * Numbers: integers are accumulated exactly (int64, then uint64; anything
 * larger becomes a double). Decimals with at most 19 significant digits
 * whose mantissa fits 2^53 and whose decimal exponent is within +-22 are
 * converted with one IEEE multiplication or division, which is exact
 * (Clinger's fast path: both operands are exact doubles, so the one rounding
 * is the correct rounding). Everything else goes through strtod() on a
 * bounded copy of the token (glibc's strtod is correctly rounded), with the
 * decimal point adapted to the current locale. Out-of-range decimals become
 * +-infinity or zero, as Java's Double.parseDouble does.
 *
 * Duplicate keys (OpenSearch enables Jackson's STRICT_DUPLICATE_DETECTION):
 * objects with up to 16 members compare each new key linearly against the
 * previous ones; from the 17th member on, an open-addressing table of
 * (member index, hash) pairs is built in the arena and grown by doubling, so
 * large objects stay linear overall.
 *
 * Error positions follow Jackson: an "Unexpected character" error points at
 * the character; errors Jackson raises after consuming input (unrecognized
 * tokens, invalid UTF-8, duplicate fields, end of input) point just after
 * what was consumed. Columns count bytes, as Jackson's byte parser does.
 *
 * Rejected alternatives: a token stream plus a tree builder (two passes and
 * a token buffer); a linked-list DOM (no O(1) indexing, worse locality);
 * per-node malloc as jansson does (the reason it is slow); SIMD structural
 * indexing as simdjson does (large code and a second pass; the SWAR string
 * scan gets most of the win for the documents OpenSearch sees).
 */
#include <ctype.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "json/json.h"

#define SOURCE_DESC "[Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled)"
#define VALUE_LIST "(JSON String, Number, Array, Object or token 'null', 'true' or 'false')"
#define LINEAR_DUP_MAX 16
#define INLINE_VALS 128
#define INLINE_MEMS 64

typedef struct dslot {
    uint32_t idx; /* member index + 1 (0: empty) */
    uint32_t hash;
} dslot;

typedef struct jp {
    const uint8_t *base; /* positions are relative to base */
    const uint8_t *end;
    tv_arena *arena;
    tv_json_error *err;
    tv_status status;
    int depth;
    tv_json *vals;
    size_t nvals, capvals;
    tv_json_member *mems;
    size_t nmems, capmems;
    tv_json *inline_vals;
    tv_json_member *inline_mems;
} jp;

/* ------------------------------------------------------------ allocation */

static inline void *aalloc(tv_arena *a, size_t n) {
    uintptr_t p = ((uintptr_t)a->ptr + 7) & ~(uintptr_t)7;
    if (TV_LIKELY(a->ptr != NULL && p <= (uintptr_t)a->end && n <= (uintptr_t)a->end - p)) {
        a->ptr = (char *)(p + n);
        return (void *)p;
    }
    return tv_arena_alloc(a, n);
}

/* Gives back the tail of the most recent allocation [p, p+had) keeping used. */
static inline void ashrink(tv_arena *a, void *p, size_t had, size_t used) {
    if ((char *)p + had == a->ptr) a->ptr = (char *)p + used;
}

/* ---------------------------------------------------------------- errors */

void tv_json_linecol(const void *p, size_t len, size_t off, uint32_t *line, uint32_t *col) {
    const uint8_t *s = p;
    if (off > len) off = len;
    uint32_t ln = 1;
    size_t ls = 0;
    for (size_t i = 0; i < off; i++) {
        if (s[i] == '\n') {
            ln++;
            ls = i + 1;
        } else if (s[i] == '\r' && !(i + 1 < len && s[i + 1] == '\n')) {
            ln++;
            ls = i + 1;
        }
    }
    if (line) *line = ln;
    if (col) *col = (uint32_t)(off - ls + 1);
}

static void *fail(jp *P, tv_status code, const uint8_t *at, const char *fmt, ...) TV_PRINTF(4, 5);
static void *fail(jp *P, tv_status code, const uint8_t *at, const char *fmt, ...) {
    if (P->status != TROVE_OK) return NULL;
    P->status = code;
    tv_json_error *e = P->err;
    if (!e) return NULL;
    e->code = code;
    e->pos = (size_t)(at - P->base);
    /* line:col over the whole input before pos */
    tv_json_linecol(P->base, (size_t)(P->end - P->base), e->pos, &e->line, &e->col);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return NULL;
}

static void *oom(jp *P, const uint8_t *at) { return fail(P, TROVE_ENOMEM, at, "out of memory"); }

/* Jackson's _getCharDesc(): "'x' (code 120)", "(CTRL-CHAR, code 10)". */
static const char *char_desc(char *buf, size_t cap, uint32_t c) {
    if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
        snprintf(buf, cap, "(CTRL-CHAR, code %u)", c);
    } else {
        char u[5];
        u[tv_utf8_encode(c, (uint8_t *)u)] = 0;
        if (c > 255) snprintf(buf, cap, "'%s' (code %u / 0x%x)", u, c, c);
        else snprintf(buf, cap, "'%s' (code %u)", u, c);
    }
    return buf;
}

/* Decodes the character at p for an error message (a lone or invalid byte
 * is described by its value, as Jackson's byte parser does). */
static uint32_t decode_for_error(const uint8_t *p, const uint8_t *end, size_t *n) {
    uint32_t c = *p;
    *n = 1;
    if (c < 0x80) return c;
    int k = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    if (k == 0 || (size_t)(end - p) <= (size_t)k) return c;
    uint32_t v = c & (0x3F >> k);
    for (int i = 1; i <= k; i++) {
        if ((p[i] & 0xC0) != 0x80) return c;
        v = (v << 6) | (p[i] & 0x3F);
    }
    *n = (size_t)k + 1;
    return v;
}

static void *unexpected_plain(jp *P, const uint8_t *at, const char *comment) {
    char d[64];
    size_t n;
    uint32_t c = *at;
    if (c >= 0x80) c = decode_for_error(at, P->end, &n);
    return fail(P, TROVE_EJSON, at, "Unexpected character (%s): %s", char_desc(d, sizeof d, c),
                comment);
}

static void *unexpected_char(jp *P, const uint8_t *at, const char *comment) {
    char d[64];
    uint32_t c = *at;
    if (c == '/')
        return fail(P, TROVE_EJSON, at,
                    "Unexpected character ('/' (code 47)): maybe a (non-standard) comment? (not "
                    "recognized as one since Feature 'ALLOW_COMMENTS' not enabled for parser)");
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
        return fail(P, TROVE_EJSON, at + 1,
                    "Illegal character (%s): only regular white space (\\r, \\n, \\t) is allowed "
                    "between tokens",
                    char_desc(d, sizeof d, c));
    return unexpected_plain(P, at, comment);
}

static bool java_ident_part(uint32_t c) {
    if (c >= 0x80) return c >= 0xA0; /* letters and most non-ASCII; C1 controls are "ignorable" */
    return isalnum((int)c) || c == '_' || c == '$' || c <= 0x08 || (c >= 0x0E && c <= 0x1B) ||
           c == 0x7F;
}

static bool java_ident_start(uint32_t c) {
    if (c >= 0x80) return c >= 0xA0 && c != 0xD7 && c != 0xF7;
    return isalpha((int)c) || c == '_' || c == '$';
}

/* Jackson's _reportInvalidToken(): the matched part, then as many Java
 * identifier characters as follow (up to 256), consuming one more. */
static void *invalid_token(jp *P, const uint8_t *start, const uint8_t *p) {
    char tok[300];
    size_t tl = 0;
    size_t chars = 0;
    for (const uint8_t *s = start; s < p && tl < 200; s++) tok[tl++] = (char)*s, chars++;
    while (p < P->end) {
        size_t n;
        uint32_t c = decode_for_error(p, P->end, &n);
        if (c == '\n' || c == '\r') break; /* keep the error on the token's line */
        p += n;
        if (!java_ident_part(c)) break;
        if (tl + 4 < 280) {
            if (c >= 0x80 && n == 1) tl += tv_utf8_encode(c, (uint8_t *)tok + tl);
            else if (c >= 0x80) memcpy(tok + tl, p - n, n), tl += n;
            else tok[tl++] = (char)c;
        }
        if (++chars >= 256) {
            memcpy(tok + tl, "...", 3);
            tl += 3;
            break;
        }
    }
    tok[tl] = 0;
    return fail(P, TROVE_EJSON, p, "Unrecognized token '%s': was expecting %s", tok, VALUE_LIST);
}

static void *eof_close(jp *P, const uint8_t *open) {
    uint32_t line, col;
    tv_json_linecol(P->base, (size_t)(P->end - P->base), (size_t)(open - P->base), &line, &col);
    return fail(P, TROVE_EJSON, P->end,
                "Unexpected end-of-input: expected close marker for %s (start marker at " SOURCE_DESC
                "; line: %u, column: %u])",
                *open == '[' ? "Array" : "Object", line, col);
}

/* A close marker that does not match: open is the '[' or '{' of the
 * enclosing container, or NULL at the root. */
static void *mismatched(jp *P, const uint8_t *at, const uint8_t *open) {
    char exp = *at == ']' ? '}' : ']';
    const char *what = "root";
    uint32_t line = 1, col = 0;
    if (open) {
        what = *open == '[' ? "Array" : "Object";
        tv_json_linecol(P->base, (size_t)(P->end - P->base), (size_t)(open - P->base), &line, &col);
    }
    return fail(P, TROVE_EJSON, at,
                "Unexpected close marker '%c': expected '%c' (for %s starting at " SOURCE_DESC
                "; line: %u, column: %u])",
                *at, exp, what, line, col);
}

/* --------------------------------------------------------- white space */

static inline const uint8_t *skip_ws(const uint8_t *p, const uint8_t *end) {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    return p;
}

/* ---------------------------------------------------------------- UTF-8 */

/* Validates the multi-byte sequence at p (*p >= 0x80). Returns its length,
 * or 0 with an error set. */
static size_t utf8_seq(jp *P, const uint8_t *p) {
    const uint8_t *end = P->end;
    uint8_t c = *p;
    size_t n;
    uint8_t lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        else if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        else if (c == 0xF4) hi = 0x8F;
    } else {
        fail(P, TROVE_EJSON, p + 1, "Invalid UTF-8 start byte 0x%x", c);
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if (p + i >= end) {
            fail(P, TROVE_EJSON, end, "Unexpected end-of-input in VALUE_STRING");
            return 0;
        }
        uint8_t d = p[i];
        if (d < lo || d > hi) {
            fail(P, TROVE_EJSON, p + i + 1, "Invalid UTF-8 middle byte 0x%x", d);
            return 0;
        }
        lo = 0x80;
        hi = 0xBF;
    }
    return n;
}

/* --------------------------------------------------------------- strings */

static const uint8_t hexval[256] = {
#define H(c, v) [c] = v + 1
    H('0', 0),  H('1', 1),  H('2', 2),  H('3', 3),  H('4', 4),  H('5', 5),  H('6', 6),  H('7', 7),
    H('8', 8),  H('9', 9),  H('a', 10), H('b', 11), H('c', 12), H('d', 13), H('e', 14), H('f', 15),
    H('A', 10), H('B', 11), H('C', 12), H('D', 13), H('E', 14), H('F', 15),
#undef H
};

/* 1 for bytes a string scan must stop at: '"', '\\', controls, non-ASCII. */
static const uint8_t str_special[256] = {
    [0 ... 0x1F] = 1, ['"'] = 1, ['\\'] = 1, [0x80 ... 0xFF] = 1,
};

static inline uint32_t hex4(const uint8_t *p) {
    return (uint32_t)(hexval[p[0]] - 1) << 12 | (uint32_t)(hexval[p[1]] - 1) << 8 |
           (uint32_t)(hexval[p[2]] - 1) << 4 | (uint32_t)(hexval[p[3]] - 1);
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HAVE_SWAR 1
#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull
static inline uint64_t swar_special(uint64_t w) {
    uint64_t q = w ^ (ONES * '"');
    uint64_t b = w ^ (ONES * '\\');
    uint64_t m = ((q - ONES) & ~q) | ((b - ONES) & ~b) | ((w - ONES * 0x20) & ~w) | w;
    return m & HIGHS;
}
#endif

/*
 * Parses a string whose opening quote is at q. Stores the unescaped,
 * NUL-terminated copy in *out and *outlen, and returns the position after the
 * closing quote, or NULL on error.
 */
static const uint8_t *parse_string(jp *P, const uint8_t *q, const char **out, uint32_t *outlen,
                                   bool is_name) {
    const uint8_t *end = P->end;
    const uint8_t *s = q + 1;
    bool esc = false;
    for (;;) {
#ifdef HAVE_SWAR
        while (s + 8 <= end) {
            uint64_t w;
            memcpy(&w, s, 8);
            uint64_t m = swar_special(w);
            if (m) {
                s += __builtin_ctzll(m) >> 3;
                goto special;
            }
            s += 8;
        }
#endif
        while (s < end && !str_special[*s]) s++;
        if (s >= end)
            return fail(P, TROVE_EJSON, end,
                        is_name ? "Unexpected end-of-input in field name"
                                : "Unexpected end-of-input in VALUE_STRING");
#ifdef HAVE_SWAR
    special:
#endif
        if (*s == '"') break;
        if (*s >= 0x80) {
            size_t n = utf8_seq(P, s);
            if (!n) return NULL;
            s += n;
            continue;
        }
        if (*s == '\\') {
            esc = true;
            if (s + 1 >= end)
                return fail(P, TROVE_EJSON, end, "Unexpected end-of-input in character escape sequence");
            uint8_t e = s[1];
            if (e == 'u') {
                for (int i = 2; i < 6; i++) {
                    if (s + i >= end)
                        return fail(P, TROVE_EJSON, end,
                                    "Unexpected end-of-input in character escape sequence");
                    if (!hexval[s[i]]) {
                        char d[64];
                        size_t n;
                        uint32_t c = decode_for_error(s + i, end, &n);
                        return fail(P, TROVE_EJSON, s + i,
                                    "Unexpected character (%s): expected a hex-digit for character "
                                    "escape sequence",
                                    char_desc(d, sizeof d, c));
                    }
                }
                s += 6;
            } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                       e == 'r' || e == 't') {
                s += 2;
            } else {
                char d[64];
                size_t n;
                uint32_t c = decode_for_error(s + 1, end, &n);
                return fail(P, TROVE_EJSON, s + 1, "Unrecognized character escape %s",
                            char_desc(d, sizeof d, c));
            }
            continue;
        }
        /* a control character */
        {
            char d[64];
            return fail(P, TROVE_EJSON, s,
                        "Illegal unquoted character (%s): has to be escaped using backslash to be "
                        "included in %s",
                        char_desc(d, sizeof d, *s), is_name ? "name" : "string value");
        }
    }
    /* s is at the closing quote */
    const uint8_t *b = q + 1;
    size_t rawlen = (size_t)(s - b);
    if (rawlen > UINT32_MAX) return fail(P, TROVE_ELIMIT, q, "String length exceeds 4 GiB");
    if (!esc) {
        if (rawlen == 0) {
            *out = "";
            *outlen = 0;
            return s + 1;
        }
        char *d = aalloc(P->arena, rawlen + 1);
        if (!d) return oom(P, q);
        memcpy(d, b, rawlen);
        d[rawlen] = 0;
        *out = d;
        *outlen = (uint32_t)rawlen;
        return s + 1;
    }
    char *d = aalloc(P->arena, rawlen + 1);
    if (!d) return oom(P, q);
    char *o = d;
    const uint8_t *r = b;
    while (r < s) {
        const uint8_t *bs = memchr(r, '\\', (size_t)(s - r));
        if (!bs) bs = s;
        memcpy(o, r, (size_t)(bs - r));
        o += bs - r;
        r = bs;
        if (r >= s) break;
        uint8_t e = r[1];
        r += 2;
        switch (e) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            uint32_t c = hex4(r);
            r += 4;
            if (c >= 0xD800 && c <= 0xDBFF) {
                if (r + 6 <= s && r[0] == '\\' && r[1] == 'u') {
                    uint32_t c2 = hex4(r + 2);
                    if (c2 >= 0xDC00 && c2 <= 0xDFFF) {
                        c = 0x10000 + ((c - 0xD800) << 10) + (c2 - 0xDC00);
                        r += 6;
                    } else {
                        c = 0xFFFD;
                    }
                } else {
                    c = 0xFFFD;
                }
            } else if (c >= 0xDC00 && c <= 0xDFFF) {
                c = 0xFFFD;
            }
            o += tv_utf8_encode(c, (uint8_t *)o);
            break;
        }
        default: *o++ = (char)e; break; /* " \ / */
        }
    }
    *o = 0;
    size_t n = (size_t)(o - d);
    ashrink(P->arena, d, rawlen + 1, n + 1);
    *out = d;
    *outlen = (uint32_t)n;
    return s + 1;
}

/* --------------------------------------------------------------- numbers */

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static double slow_strtod(jp *P, const uint8_t *s, size_t n, bool *ok) {
    char local[128];
    char *buf = n < sizeof local ? local : tv_malloc(n + 1);
    *ok = buf != NULL;
    if (!buf) return 0;
    memcpy(buf, s, n);
    buf[n] = 0;
    const char *dp = localeconv()->decimal_point;
    if (dp && dp[0] != '.' && dp[0] && !dp[1]) {
        char *dot = memchr(buf, '.', n);
        if (dot) *dot = dp[0];
    }
    double d = strtod(buf, NULL);
    if (buf != local) tv_free(buf);
    TV_UNUSED(P);
    return d;
}

static const uint8_t *number_char_error(jp *P, const uint8_t *at, const char *comment) {
    char d[64];
    size_t n;
    uint32_t c = decode_for_error(at, P->end, &n);
    return fail(P, TROVE_EJSON, at, "Unexpected character (%s) in numeric value: %s",
                char_desc(d, sizeof d, c), comment);
}

static const uint8_t *match_word(jp *P, const uint8_t *p, const char *w);

static const uint8_t *parse_number(jp *P, const uint8_t *p, tv_json *v) {
    const uint8_t *end = P->end;
    const uint8_t *start = p;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
        if (p >= end) return fail(P, TROVE_EJSON, end, "Unexpected end-of-input in a Number value");
        if (*p < '0' || *p > '9') {
            if (*p == 'I' && p + 1 < end && (p[1] == 'n' || p[1] == 'N')) {
                const char *w = p[1] == 'n' ? "-Infinity" : "-INF";
                const uint8_t *r = match_word(P, start, w);
                if (!r) return NULL;
                return fail(P, TROVE_EJSON, r,
                            "Non-standard token '%s': enable "
                            "`JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow", w);
            }
            if (*p == 'I') {
                if (p + 1 >= end) return fail(P, TROVE_EJSON, end, "Unexpected end-of-input in a Number value");
                p++;
            }
            return number_char_error(P, p, "expected digit (0-9) to follow minus sign, for valid numeric value");
        }
    }
    uint64_t m = 0;
    int nd = 0; /* significant digits accumulated in m */
    bool big = false;
    const uint8_t *ds = p;
    if (*p == '0') {
        p++;
        if (p < end && *p >= '0' && *p <= '9')
            return fail(P, TROVE_EJSON, p, "Invalid numeric value: Leading zeroes not allowed");
    } else {
        while (p < end && *p >= '0' && *p <= '9') {
            if (nd < 19) m = m * 10 + (uint64_t)(*p - '0'), nd++;
            else big = true;
            p++;
        }
    }
    size_t intdigits = (size_t)(p - ds);
    bool isfloat = false;
    int64_t exp10 = 0; /* value = m * 10^exp10 when !big */
    if (p < end && *p == '.') {
        isfloat = true;
        p++;
        if (p >= end) return number_char_error(P, p - 1, "Decimal point not followed by a digit");
        if (*p < '0' || *p > '9') return number_char_error(P, p, "Decimal point not followed by a digit");
        /* leading zeros of the fraction of "0.000123" are not significant */
        if (m == 0 && intdigits == 1) {
            while (p < end && *p == '0') p++, exp10--;
        }
        while (p < end && *p >= '0' && *p <= '9') {
            if (nd < 19) m = m * 10 + (uint64_t)(*p - '0'), nd++, exp10--;
            else big = true;
            p++;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        isfloat = true;
        p++;
        if (p >= end) return fail(P, TROVE_EJSON, end, "Unexpected end-of-input in a Number value");
        bool eneg = false;
        if (*p == '+' || *p == '-') {
            eneg = *p == '-';
            p++;
            if (p >= end) return fail(P, TROVE_EJSON, end, "Unexpected end-of-input in a Number value");
        }
        if (*p < '0' || *p > '9') return number_char_error(P, p, "Exponent indicator not followed by a digit");
        int64_t e = 0;
        while (p < end && *p >= '0' && *p <= '9') {
            if (e < 1000000) e = e * 10 + (*p - '0');
            p++;
        }
        exp10 += eneg ? -e : e;
    }
    size_t rawlen = (size_t)(p - start);
    if (rawlen > UINT32_MAX) return fail(P, TROVE_ELIMIT, start, "Number length exceeds 4 GiB");
    v->raw = (const char *)start;
    v->raw_len = (uint32_t)rawlen;
    if (!isfloat) {
        if (!big && nd <= 19) {
            if (neg) {
                if (m <= (uint64_t)INT64_MAX) {
                    v->type = TV_JSON_INT;
                    v->v.i = -(int64_t)m;
                    return p;
                }
                if (m == (uint64_t)INT64_MAX + 1) {
                    v->type = TV_JSON_INT;
                    v->v.i = INT64_MIN;
                    return p;
                }
            } else if (m <= (uint64_t)INT64_MAX) {
                v->type = TV_JSON_INT;
                v->v.i = (int64_t)m;
                return p;
            } else {
                v->type = TV_JSON_UINT;
                v->v.u = m;
                return p;
            }
        } else if (!neg && intdigits == 20) {
            /* 20 digits may still fit uint64 */
            uint64_t u = 0;
            bool ok = true;
            for (const uint8_t *r = ds; r < ds + 20; r++) {
                uint64_t dgt = (uint64_t)(*r - '0');
                if (u > (UINT64_MAX - dgt) / 10) {
                    ok = false;
                    break;
                }
                u = u * 10 + dgt;
            }
            if (ok) {
                v->type = TV_JSON_UINT;
                v->v.u = u;
                return p;
            }
        }
    }
    v->type = TV_JSON_DOUBLE;
#if FLT_EVAL_METHOD == 0
    if (!big && m < (1ull << 53) && exp10 >= -22 && exp10 <= 22) {
        double d = (double)m;
        d = exp10 < 0 ? d / pow10_exact[-exp10] : d * pow10_exact[exp10];
        v->v.d = neg ? -d : d;
        return p;
    }
#endif
    if (m == 0 && !big) {
        v->v.d = neg ? -0.0 : 0.0;
        return p;
    }
    bool ok;
    v->v.d = slow_strtod(P, start, rawlen, &ok);
    if (!ok) return oom(P, start);
    return p;
}

/* ----------------------------------------------------------- literals */

/* Matches the literal w at p (Jackson's _matchToken); returns the position
 * after it, or NULL with "Unrecognized token" set. */
static const uint8_t *match_word(jp *P, const uint8_t *p, const char *w) {
    const uint8_t *s = p;
    size_t i = 0;
    for (; w[i]; i++) {
        if (s + i >= P->end || s[i] != (uint8_t)w[i]) return invalid_token(P, p, s + i);
    }
    const uint8_t *r = s + i;
    if (r < P->end && *r >= '0' && *r != ']' && *r != '}') {
        size_t n;
        uint32_t c = decode_for_error(r, P->end, &n);
        if (java_ident_part(c)) return invalid_token(P, p, r);
    }
    return r;
}

/* --------------------------------------------------------------- values */

/* A byte after a literal that certainly ends it (Jackson checks only bytes
 * >= '0' other than ']' and '}', and only identifier characters fail). */
static inline bool word_end(uint8_t c) { return c < '0' || c == ']' || c == '}' || c == ','; }

enum { CTX_ROOT, CTX_ARRAY, CTX_OBJECT };

static const uint8_t *parse_value(jp *P, const uint8_t *p, tv_json *v, int ctx, const uint8_t *open);

static bool grow_vals(jp *P) {
    size_t nc = P->capvals * 2;
    tv_json *n = tv_malloc(nc * sizeof *n);
    if (!n) return false;
    memcpy(n, P->vals, P->nvals * sizeof *n);
    if (P->vals != P->inline_vals) tv_free(P->vals);
    P->vals = n;
    P->capvals = nc;
    return true;
}

static bool grow_mems(jp *P) {
    size_t nc = P->capmems * 2;
    tv_json_member *n = tv_malloc(nc * sizeof *n);
    if (!n) return false;
    memcpy(n, P->mems, P->nmems * sizeof *n);
    if (P->mems != P->inline_mems) tv_free(P->mems);
    P->mems = n;
    P->capmems = nc;
    return true;
}

static void *depth_error(jp *P, const uint8_t *at) {
    return fail(P, TROVE_ELIMIT, at,
                "Document nesting depth (%d) exceeds the maximum allowed (%d, from "
                "`StreamReadConstraints.getMaxNestingDepth()`)",
                P->depth, TV_JSON_MAX_DEPTH);
}

static const uint8_t *parse_array(jp *P, const uint8_t *open, tv_json *v) {
    const uint8_t *end = P->end;
    if (++P->depth > TV_JSON_MAX_DEPTH) return depth_error(P, open);
    size_t base = P->nvals;
    const uint8_t *p = skip_ws(open + 1, end);
    if (p >= end) return eof_close(P, open);
    if (*p == ']') {
        p++;
        goto done;
    }
    if (*p == '}') return mismatched(P, p, open);
    for (;;) {
        tv_json item;
        p = parse_value(P, p, &item, CTX_ARRAY, open);
        if (!p) return NULL;
        if (P->nvals == P->capvals && !grow_vals(P)) return oom(P, p);
        P->vals[P->nvals++] = item;
        p = skip_ws(p, end);
        if (p >= end) return eof_close(P, open);
        if (*p == ',') {
            p = skip_ws(p + 1, end);
            if (p >= end)
                return fail(P, TROVE_EJSON, end, "Unexpected end-of-input within/between Array entries");
            continue;
        }
        if (*p == ']') {
            p++;
            break;
        }
        if (*p == '}') return mismatched(P, p, open);
        return unexpected_char(P, p, "was expecting comma to separate Array entries");
    }
done:;
    size_t n = P->nvals - base;
    if (n > UINT32_MAX) return fail(P, TROVE_ELIMIT, open, "Array length exceeds 2^32");
    v->type = TV_JSON_ARRAY;
    v->len = (uint32_t)n;
    v->v.items = NULL;
    if (n) {
        tv_json *items = aalloc(P->arena, n * sizeof *items);
        if (!items) return oom(P, open);
        memcpy(items, P->vals + base, n * sizeof *items);
        v->v.items = items;
    }
    P->nvals = base;
    P->depth--;
    return p;
}

static inline bool key_eq(const tv_json_member *m, const char *k, uint32_t kl) {
    return m->key_len == kl && memcmp(m->key, k, kl) == 0;
}

/* Inserts member index i (relative to base) into the table; returns false
 * if an equal key is already there. */
static bool dup_insert(jp *P, dslot *tab, uint32_t cap, size_t base, uint32_t i, uint32_t h) {
    const tv_json_member *m = &P->mems[base + i];
    uint32_t mask = cap - 1;
    for (uint32_t k = h & mask;; k = (k + 1) & mask) {
        if (tab[k].idx == 0) {
            tab[k].idx = i + 1;
            tab[k].hash = h;
            return true;
        }
        if (tab[k].hash == h && key_eq(&P->mems[base + tab[k].idx - 1], m->key, m->key_len)) return false;
    }
}

static __attribute__((noinline)) void *dup_error(jp *P, const uint8_t *at, const char *key,
                                                 uint32_t klen) {
    char name[200];
    size_t nl = klen < sizeof name - 4 ? klen : sizeof name - 4;
    memcpy(name, key, nl);
    if (nl < klen) memcpy(name + nl, "...", 3), nl += 3;
    name[nl] = 0;
    return fail(P, TROVE_EJSON, at, "Duplicate field '%s'", name);
}

static const uint8_t *parse_object(jp *P, const uint8_t *open, tv_json *v) {
    const uint8_t *end = P->end;
    if (++P->depth > TV_JSON_MAX_DEPTH) return depth_error(P, open);
    size_t base = P->nmems;
    dslot *tab = NULL;
    uint32_t tcap = 0;
    const uint8_t *p = skip_ws(open + 1, end);
    if (p >= end) return eof_close(P, open);
    if (*p == '}') {
        p++;
        goto done;
    }
    if (*p == ']') return mismatched(P, p, open);
    for (;;) {
        if (*p != '"') return unexpected_char(P, p, "was expecting double-quote to start field name");
        const char *key;
        uint32_t klen;
        const uint8_t *kq = p;
        p = parse_string(P, p, &key, &klen, true);
        if (!p) return NULL;
        /* duplicate detection */
        size_t count = P->nmems - base;
        if (count > 0) {
            bool dup = false;
            if (count < LINEAR_DUP_MAX) {
                for (size_t i = base; i < P->nmems; i++)
                    if (key_eq(&P->mems[i], key, klen)) {
                        dup = true;
                        break;
                    }
            } else {
                if ((count + 1) * 2 > tcap) {
                    uint32_t nc = tcap ? tcap * 2 : 64;
                    dslot *nt = aalloc(P->arena, (size_t)nc * sizeof *nt);
                    if (!nt) return oom(P, kq);
                    memset(nt, 0, (size_t)nc * sizeof *nt);
                    if (tab) {
                        for (uint32_t k = 0; k < tcap; k++)
                            if (tab[k].idx) dup_insert(P, nt, nc, base, tab[k].idx - 1, tab[k].hash);
                    } else {
                        for (uint32_t i = 0; i < count; i++) {
                            const tv_json_member *m = &P->mems[base + i];
                            dup_insert(P, nt, nc, base, i, (uint32_t)tv_hash(m->key, m->key_len));
                        }
                    }
                    tab = nt;
                    tcap = nc;
                }
                uint32_t h = (uint32_t)tv_hash(key, klen);
                uint32_t mask = tcap - 1;
                for (uint32_t k = h & mask; tab[k].idx; k = (k + 1) & mask) {
                    if (tab[k].hash == h && key_eq(&P->mems[base + tab[k].idx - 1], key, klen)) {
                        dup = true;
                        break;
                    }
                }
                if (!dup) {
                    /* the member is pushed below at index count */
                    for (uint32_t k = h & mask;; k = (k + 1) & mask)
                        if (!tab[k].idx) {
                            tab[k].idx = (uint32_t)count + 1;
                            tab[k].hash = h;
                            break;
                        }
                }
            }
            if (dup) return dup_error(P, p, key, klen);
        }
        p = skip_ws(p, end);
        if (p >= end)
            return fail(P, TROVE_EJSON, end, "Unexpected end-of-input within/between Object entries");
        if (*p != ':')
            return unexpected_char(P, p, "was expecting a colon to separate field name and value");
        p = skip_ws(p + 1, end);
        if (p >= end)
            return fail(P, TROVE_EJSON, end, "Unexpected end-of-input within/between Object entries");
        tv_json val;
        p = parse_value(P, p, &val, CTX_OBJECT, open);
        if (!p) return NULL;
        if (P->nmems == P->capmems && !grow_mems(P)) return oom(P, p);
        tv_json_member *m = &P->mems[P->nmems++];
        m->key = key;
        m->key_len = klen;
        m->key_off = (uint32_t)(kq - P->base);
        m->val = val;
        p = skip_ws(p, end);
        if (p >= end) return eof_close(P, open);
        if (*p == ',') {
            p = skip_ws(p + 1, end);
            if (p >= end)
                return fail(P, TROVE_EJSON, end, "Unexpected end-of-input within/between Object entries");
            continue;
        }
        if (*p == '}') {
            p++;
            break;
        }
        if (*p == ']') return mismatched(P, p, open);
        return unexpected_char(P, p, "was expecting comma to separate Object entries");
    }
done:;
    size_t n = P->nmems - base;
    if (n > UINT32_MAX) return fail(P, TROVE_ELIMIT, open, "Object size exceeds 2^32");
    v->type = TV_JSON_OBJECT;
    v->len = (uint32_t)n;
    v->v.members = NULL;
    if (n) {
        tv_json_member *ms = aalloc(P->arena, n * sizeof *ms);
        if (!ms) return oom(P, open);
        memcpy(ms, P->mems + base, n * sizeof *ms);
        v->v.members = ms;
    }
    P->nmems = base;
    P->depth--;
    return p;
}

/* Parses a value starting at p (p < end, not white space). */
static const uint8_t *parse_value(jp *P, const uint8_t *p, tv_json *v, int ctx, const uint8_t *open) {
    v->off = (uint32_t)(p - P->base);
    v->len = 0;
    v->raw = NULL;
    v->raw_len = 0;
    switch (*p) {
    case '"': {
        const char *s;
        uint32_t n;
        p = parse_string(P, p, &s, &n, false);
        v->type = TV_JSON_STRING;
        v->v.s = s;
        v->len = n;
        return p;
    }
    case '{':
        v->type = TV_JSON_OBJECT;
        return parse_object(P, p, v);
    case '[':
        v->type = TV_JSON_ARRAY;
        return parse_array(P, p, v);
    case 't':
        v->type = TV_JSON_TRUE;
        v->v.i = 0;
        if (p + 4 <= P->end && memcmp(p, "true", 4) == 0 && (p + 4 == P->end || word_end(p[4])))
            return p + 4;
        return match_word(P, p, "true");
    case 'f':
        v->type = TV_JSON_FALSE;
        v->v.i = 0;
        if (p + 5 <= P->end && memcmp(p, "false", 5) == 0 && (p + 5 == P->end || word_end(p[5])))
            return p + 5;
        return match_word(P, p, "false");
    case 'n':
        v->type = TV_JSON_NULL;
        v->v.i = 0;
        if (p + 4 <= P->end && memcmp(p, "null", 4) == 0 && (p + 4 == P->end || word_end(p[4])))
            return p + 4;
        return match_word(P, p, "null");
    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9': {
        const uint8_t *r = parse_number(P, p, v);
        if (r && ctx == CTX_ROOT && r < P->end && *r != ' ' && *r != '\t' && *r != '\n' && *r != '\r')
            return unexpected_plain(P, r, "Expected space separating root-level values");
        return r;
    }
    case 'N': {
        const uint8_t *r = match_word(P, p, "NaN");
        if (!r) return NULL;
        return fail(P, TROVE_EJSON, r,
                    "Non-standard token 'NaN': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow");
    }
    case 'I': {
        const uint8_t *r = match_word(P, p, "Infinity");
        if (!r) return NULL;
        return fail(P, TROVE_EJSON, r,
                    "Non-standard token 'Infinity': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow");
    }
    case '+':
        if (p + 1 >= P->end) return fail(P, TROVE_EJSON, P->end, "Unexpected end-of-input in a Number value");
        if (p[1] == 'I' && p + 2 < P->end && p[2] == 'n') {
            const uint8_t *r = match_word(P, p, "+Infinity");
            if (!r) return NULL;
            return fail(P, TROVE_EJSON, r,
                        "Non-standard token '+Infinity': enable "
                        "`JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow");
        }
        return fail(P, TROVE_EJSON, p + 1,
                    "Unexpected character ('+' (code 43)) in numeric value: JSON spec does not "
                    "allow numbers to have plus signs: enable "
                    "`JsonReadFeature.ALLOW_LEADING_PLUS_SIGN_FOR_NUMBERS` to allow");
    case ']':
        if (ctx == CTX_ROOT) return mismatched(P, p, NULL);
        if (ctx == CTX_ARRAY) return unexpected_char(P, p, "expected a value");
        break;
    case '}':
        if (ctx == CTX_ROOT) return mismatched(P, p, NULL);
        return unexpected_char(P, p, "expected a value");
    case ',':
        return unexpected_char(P, p, "expected a value");
    default:
        break;
    }
    TV_UNUSED(open);
    size_t n;
    uint32_t c = decode_for_error(p, P->end, &n);
    if (java_ident_start(c)) return invalid_token(P, p, p + n);
    return unexpected_char(P, p, "expected a valid value " VALUE_LIST);
}

/* ------------------------------------------------------------------ API */

static tv_status parse_range(tv_arena *arena, const uint8_t *base, const uint8_t *start,
                             const uint8_t *end, tv_json **out, tv_json_error *err) {
    tv_json inline_vals[INLINE_VALS];
    tv_json_member inline_mems[INLINE_MEMS];
    jp P = {
        .base = base,
        .end = end,
        .arena = arena,
        .err = err,
        .status = TROVE_OK,
        .vals = inline_vals,
        .capvals = INLINE_VALS,
        .mems = inline_mems,
        .capmems = INLINE_MEMS,
        .inline_vals = inline_vals,
        .inline_mems = inline_mems,
    };
    *out = NULL;
    if ((size_t)(end - base) > UINT32_MAX) {
        fail(&P, TROVE_ELIMIT, start, "Document length exceeds 4 GiB");
        return P.status;
    }
    const uint8_t *p = skip_ws(start, end);
    if (p >= end) {
        fail(&P, TROVE_EJSON, end, "No content to map due to end-of-input");
        return P.status;
    }
    tv_json *root = aalloc(arena, sizeof *root);
    if (!root) {
        oom(&P, p);
        return P.status;
    }
    p = parse_value(&P, p, root, CTX_ROOT, NULL);
    if (p) {
        p = skip_ws(p, end);
        if (p < end) {
            /* trailing content after the root value */
            size_t n;
            uint32_t c = decode_for_error(p, end, &n);
            if (*p == ']' || *p == '}') mismatched(&P, p, NULL);
            else if (java_ident_start(c) && *p != 't' && *p != 'f' && *p != 'n')
                invalid_token(&P, p, p + n);
            else unexpected_char(&P, p, "expected end-of-input after the root value");
        }
    }
    if (P.vals != inline_vals) tv_free(P.vals);
    if (P.mems != inline_mems) tv_free(P.mems);
    if (P.status == TROVE_OK) *out = root;
    return P.status;
}

tv_status tv_json_parse(tv_arena *arena, const void *p, size_t len, tv_json **out,
                        tv_json_error *err) {
    const uint8_t *b = p ? p : (const uint8_t *)"";
    return parse_range(arena, b, b, b + len, out, err);
}

tv_status tv_json_parse_line(tv_arena *arena, const void *p, size_t len, size_t *offset,
                             tv_json **out, tv_json_error *err) {
    const uint8_t *b = p ? p : (const uint8_t *)"";
    *out = NULL;
    while (*offset < len) {
        const uint8_t *s = b + *offset;
        const uint8_t *nl = memchr(s, '\n', len - *offset);
        const uint8_t *e = nl ? nl : b + len;
        *offset = nl ? (size_t)(nl - b) + 1 : len;
        if (skip_ws(s, e) == e) continue; /* an empty line */
        /* positions are relative to the whole input; the value must end at
         * the end of its line */
        return parse_range(arena, b, s, e, out, err);
    }
    return TROVE_OK;
}

/* --------------------------------------------------------------- access */

const tv_json *tv_json_getn(const tv_json *obj, const char *key, size_t key_len) {
    if (!obj || obj->type != TV_JSON_OBJECT) return NULL;
    for (uint32_t i = 0; i < obj->len; i++) {
        const tv_json_member *m = &obj->v.members[i];
        if (m->key_len == key_len && memcmp(m->key, key, key_len) == 0) return &m->val;
    }
    return NULL;
}

const tv_json *tv_json_get(const tv_json *obj, const char *key) {
    return tv_json_getn(obj, key, strlen(key));
}

double tv_json_as_double(const tv_json *v) {
    if (!v) return 0;
    switch (v->type) {
    case TV_JSON_INT: return (double)v->v.i;
    case TV_JSON_UINT: return (double)v->v.u;
    case TV_JSON_DOUBLE: return v->v.d;
    default: return 0;
    }
}

bool tv_json_equal(const tv_json *a, const tv_json *b) {
    if (a == b) return true;
    if (!a || !b || a->type != b->type) return false;
    switch (a->type) {
    case TV_JSON_NULL:
    case TV_JSON_TRUE:
    case TV_JSON_FALSE: return true;
    case TV_JSON_INT: return a->v.i == b->v.i;
    case TV_JSON_UINT: return a->v.u == b->v.u;
    case TV_JSON_DOUBLE: return a->v.d == b->v.d || (isnan(a->v.d) && isnan(b->v.d));
    case TV_JSON_STRING: return a->len == b->len && memcmp(a->v.s, b->v.s, a->len) == 0;
    case TV_JSON_ARRAY:
        if (a->len != b->len) return false;
        for (uint32_t i = 0; i < a->len; i++)
            if (!tv_json_equal(&a->v.items[i], &b->v.items[i])) return false;
        return true;
    case TV_JSON_OBJECT:
        if (a->len != b->len) return false;
        for (uint32_t i = 0; i < a->len; i++) {
            const tv_json_member *x = &a->v.members[i], *y = &b->v.members[i];
            if (x->key_len != y->key_len || memcmp(x->key, y->key, x->key_len) != 0) return false;
            if (!tv_json_equal(&x->val, &y->val)) return false;
        }
        return true;
    default: return false;
    }
}
