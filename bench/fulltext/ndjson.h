/* ndjson.h: the NDJSON line decoder of bench/fulltext, shared by gen_scale.c,
 * peers/sqlite_peer.c and peers/xapian_peer.cc.  Header-only, static inline, C11 and C++.
 *
 * A line holds one JSON object, {"id":"...","body":"...", ...} (make_corpus.py's format; other
 * members are allowed).  ndjson_string_field() reads the whole object and decodes the string
 * value of one top-level member to UTF-8: \" \\ \/ \b \f \n \r \t and \uXXXX, a surrogate pair
 * becoming one code point and a lone surrogate U+FFFD.  Member names are compared after decoding,
 * so "bo\u0064y" is "body".  A member with a non-string value is skipped whatever its name, so a
 * key whose value is not a string counts as absent.  If the key occurs more than once, the first
 * string value wins; the later ones are checked and skipped.
 *
 * Checked, and -1 (malformed) when wrong: the object's braces, its "name": value members and the
 * commas between them, every string's escapes and closing quote (other members' names and values
 * too), the nesting depth of a skipped object or array, and that only JSON whitespace (space, tab,
 * CR, LF) stands before the '{' and after the '}'.  So an empty member, an unknown escape, a \u
 * without four hex digits, an unterminated string or container, or text after the object are
 * all rejected.
 *
 * Not checked, passed through as they are: the spelling of a skipped number or literal (any
 * non-empty run of bytes other than whitespace and , : [ ] { } "), whether a ']' closes a '[' or a
 * '{', raw control bytes inside strings, and UTF-8 validity (string bytes are copied unchanged).
 * This is a corpus reader, not a JSON validator.
 */
#ifndef BENCH_FULLTEXT_NDJSON_H
#define BENCH_FULLTEXT_NDJSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Where the decoder puts a string's bytes. */
enum { NDJSON_IMPL_SKIP, NDJSON_IMPL_MATCH, NDJSON_IMPL_APPEND };

typedef struct {
    int mode;
    /* NDJSON_IMPL_MATCH: compare with want[0..want_len); got bytes agreed so far. */
    const char *want;
    size_t want_len, got;
    int differs;
    /* NDJSON_IMPL_APPEND: append to *buf (capacity *cap, kept NUL-terminated); len bytes so far. */
    char **buf;
    size_t *cap, len;
} ndjson_impl_sink;

static inline void ndjson_impl_sink_init(ndjson_impl_sink *s, int mode) {
    s->mode = mode;
    s->want = NULL;
    s->want_len = s->got = 0;
    s->differs = 0;
    s->buf = NULL;
    s->cap = NULL;
    s->len = 0;
}

/* Makes room for `extra` more bytes and the NUL.  Returns 0 when out of memory. */
static inline int ndjson_impl_reserve(ndjson_impl_sink *s, size_t extra) {
    size_t need = s->len + extra + 1;
    if (need < s->len) return 0;
    if (*s->buf && *s->cap >= need) return 1;
    size_t cap = *s->buf && *s->cap ? *s->cap : 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    char *p = (char *)realloc(*s->buf, cap);
    if (!p) return 0;
    *s->buf = p;
    *s->cap = cap;
    return 1;
}

/* Takes n decoded bytes.  Returns 0 when out of memory. */
static inline int ndjson_impl_emit(ndjson_impl_sink *s, const char *bytes, size_t n) {
    if (s->mode == NDJSON_IMPL_MATCH) {
        if (!s->differs) {
            if (n > s->want_len - s->got || memcmp(s->want + s->got, bytes, n) != 0) s->differs = 1;
            else s->got += n;
        }
    } else if (s->mode == NDJSON_IMPL_APPEND) {
        if (!ndjson_impl_reserve(s, n)) return 0;
        memcpy(*s->buf + s->len, bytes, n);
        s->len += n;
        (*s->buf)[s->len] = '\0';
    }
    return 1;
}

static inline int ndjson_impl_emit_utf8(ndjson_impl_sink *s, uint32_t c) {
    char u[4];
    size_t n;
    if (c < 0x80) {
        u[0] = (char)c;
        n = 1;
    } else if (c < 0x800) {
        u[0] = (char)(0xC0 | (c >> 6));
        u[1] = (char)(0x80 | (c & 0x3F));
        n = 2;
    } else if (c < 0x10000) {
        u[0] = (char)(0xE0 | (c >> 12));
        u[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        u[2] = (char)(0x80 | (c & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | (c >> 18));
        u[1] = (char)(0x80 | ((c >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((c >> 6) & 0x3F));
        u[3] = (char)(0x80 | (c & 0x3F));
        n = 4;
    }
    return ndjson_impl_emit(s, u, n);
}

/* The four hex digits at p[0..4), if they are within end. */
static inline int ndjson_impl_hex4(const char *p, const char *end, uint32_t *v) {
    if (end - p < 4) return 0;
    uint32_t x = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        x <<= 4;
        if (c >= '0' && c <= '9') x |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') x |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') x |= (uint32_t)(c - 'A' + 10);
        else return 0;
    }
    *v = x;
    return 1;
}

static inline const char *ndjson_impl_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
    return p;
}

/* Decodes the JSON string whose opening quote is at *pp into s; on success *pp is just past the
 * closing quote.  Returns 1, -1 when malformed, -2 when out of memory. */
static inline int ndjson_impl_string(const char **pp, const char *end, ndjson_impl_sink *s) {
    const char *p = *pp + 1;
    for (;;) {
        const char *run = p;
        while (p < end && *p != '"' && *p != '\\') p++;
        if (p > run && !ndjson_impl_emit(s, run, (size_t)(p - run))) return -2;
        if (p >= end) return -1;
        if (*p == '"') {
            *pp = p + 1;
            return 1;
        }
        if (end - p < 2) return -1;
        char e = p[1], lit;
        p += 2;
        switch (e) {
        case '"': lit = '"'; break;
        case '\\': lit = '\\'; break;
        case '/': lit = '/'; break;
        case 'b': lit = '\b'; break;
        case 'f': lit = '\f'; break;
        case 'n': lit = '\n'; break;
        case 'r': lit = '\r'; break;
        case 't': lit = '\t'; break;
        case 'u': {
            uint32_t c, lo;
            if (!ndjson_impl_hex4(p, end, &c)) return -1;
            p += 4;
            if (c >= 0xD800 && c <= 0xDBFF) {
                if (end - p >= 6 && p[0] == '\\' && p[1] == 'u' && ndjson_impl_hex4(p + 2, end, &lo) &&
                    lo >= 0xDC00 && lo <= 0xDFFF) {
                    p += 6;
                    c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                } else {
                    c = 0xFFFD; /* a high surrogate without its low half */
                }
            } else if (c >= 0xDC00 && c <= 0xDFFF) {
                c = 0xFFFD; /* a low surrogate on its own */
            }
            if (!ndjson_impl_emit_utf8(s, c)) return -2;
            continue;
        }
        default: return -1;
        }
        if (!ndjson_impl_emit(s, &lit, 1)) return -2;
    }
}

/* Skips the value at *pp (whitespace already skipped): a string, an object or array (strings
 * inside it decoded and dropped, brackets counted), or a scalar.  Returns 1, -1 when malformed. */
static inline int ndjson_impl_skip_value(const char **pp, const char *end) {
    ndjson_impl_sink none;
    ndjson_impl_sink_init(&none, NDJSON_IMPL_SKIP);
    const char *p = *pp;
    if (p >= end) return -1;
    if (*p == '"') return ndjson_impl_string(pp, end, &none);
    if (*p == '{' || *p == '[') {
        size_t depth = 0;
        while (p < end) {
            char c = *p;
            if (c == '"') {
                int r = ndjson_impl_string(&p, end, &none);
                if (r != 1) return r;
                continue;
            }
            if (c == '{' || c == '[') {
                depth++;
            } else if ((c == '}' || c == ']') && --depth == 0) {
                *pp = p + 1;
                return 1;
            }
            p++;
        }
        return -1;
    }
    const char *start = p;
    while (p < end && !(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == ',' ||
                        *p == ':' || *p == '[' || *p == ']' || *p == '{' || *p == '}' || *p == '"'))
        p++;
    if (p == start) return -1;
    *pp = p;
    return 1;
}

/* ndjson_string_field() without its clean-up: out->len is the decoded length when it returns 1. */
static inline int ndjson_impl_field(const char *line, size_t len, const char *key, ndjson_impl_sink *out) {
    const char *p = line, *end = line + len;
    size_t key_len = strlen(key);
    int found = 0;
    p = ndjson_impl_ws(p, end);
    if (p >= end || *p != '{') return -1;
    p = ndjson_impl_ws(p + 1, end);
    if (p < end && *p == '}') {
        p++;
    } else {
        for (;;) {
            if (p >= end || *p != '"') return -1;
            ndjson_impl_sink name;
            ndjson_impl_sink_init(&name, found ? NDJSON_IMPL_SKIP : NDJSON_IMPL_MATCH);
            name.want = key;
            name.want_len = key_len;
            int r = ndjson_impl_string(&p, end, &name);
            if (r != 1) return r;
            p = ndjson_impl_ws(p, end);
            if (p >= end || *p != ':') return -1;
            p = ndjson_impl_ws(p + 1, end);
            if (!found && !name.differs && name.got == key_len && p < end && *p == '"') {
                if (!ndjson_impl_reserve(out, 0)) return -2; /* *buf non-NULL even for "" */
                r = ndjson_impl_string(&p, end, out);
                found = 1;
            } else {
                r = ndjson_impl_skip_value(&p, end);
            }
            if (r != 1) return r;
            p = ndjson_impl_ws(p, end);
            if (p < end && *p == ',') {
                p = ndjson_impl_ws(p + 1, end);
                continue;
            }
            if (p < end && *p == '}') {
                p++;
                break;
            }
            return -1;
        }
    }
    if (ndjson_impl_ws(p, end) != end) return -1;
    return found;
}

/* Finds the top-level string member `key` (a NUL-terminated name) of the JSON object in
 * line[0..len) and decodes its value into the caller's buffer *buf of capacity *cap (NULL and 0
 * to start with; grown with realloc, the caller frees it).  Returns
 *    1  found: *buf holds *out_len decoded bytes followed by a NUL (*buf is never NULL then);
 *    0  the line is a well-formed object without `key`, or whose `key` is not a string;
 *   -1  the line is malformed (see the top of this file; a blank line is malformed too);
 *   -2  realloc failed.
 * Unless it returns 1, *out_len is 0 and *buf, if not NULL, holds "". */
static inline int ndjson_string_field(const char *line, size_t len, const char *key, char **buf,
                                      size_t *cap, size_t *out_len) {
    ndjson_impl_sink out;
    ndjson_impl_sink_init(&out, NDJSON_IMPL_APPEND);
    out.buf = buf;
    out.cap = cap;
    int r = ndjson_impl_field(line, len, key, &out);
    *out_len = r == 1 ? out.len : 0;
    if (r != 1 && *buf && *cap) (*buf)[0] = '\0';
    return r;
}

/* Whether line[0..len) is only JSON whitespace (the readers skip such lines). */
static inline int ndjson_blank(const char *line, size_t len) {
    return ndjson_impl_ws(line, line + len) == line + len;
}

#endif /* BENCH_FULLTEXT_NDJSON_H */
