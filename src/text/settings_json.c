/*
 * settings_json.c — a small JSON reader for the "analysis" settings object,
 * flattening it into OpenSearch's dotted setting keys.
 *
 * The text layer sits beside the JSON layer, not above it (util <- text), so
 * it cannot use src/json; analysis settings are small and read once per
 * index, so a compact recursive-descent reader is enough. It accepts RFC
 * 8259 JSON (strings with every escape, surrogate pairs joined), bounded to
 * depth 64, and returns a flat list of (dotted key, leaf) pairs: nested
 * objects and dotted keys ({"analyzer":{"a":{..}}} and {"analyzer.a.type":..})
 * come out the same, as they do in OpenSearch's Settings. Leaves are scalars
 * (kept as their string form, as Settings does) or arrays of scalars.
 */
#include <stdio.h>

#include "text/settings_json.h"

typedef struct rd {
    const char *p, *end;
    tv_arena *a;
    tv_sjson_list *out;
    int depth;
    bool oom;
} rd;

static void *aalloc(rd *r, size_t n) {
    void *p = tv_arena_alloc(r->a, n);
    if (!p) r->oom = true;
    return p;
}
static char *astrndup(rd *r, const char *s, size_t n) {
    char *p = tv_arena_strndup(r->a, s, n);
    if (!p) r->oom = true;
    return p;
}

static void ws(rd *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
}

static int hex4(const char *p) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= c - '0';
        else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
        else return -1;
    }
    return v;
}

/* Reads a string at r->p (at the opening quote) into the arena. */
static char *str(rd *r, size_t *len) {
    if (r->p >= r->end || *r->p != '"') return NULL;
    r->p++;
    const char *s = r->p;
    size_t cap = 0;
    while (s < r->end && *s != '"') {
        if (*s == '\\') s++;
        s++;
        cap++;
    }
    if (s >= r->end) return NULL;
    char *o = aalloc(r, cap * 4 + 1);
    if (!o) return NULL;
    size_t n = 0;
    while (r->p < r->end && *r->p != '"') {
        unsigned char c = (unsigned char)*r->p++;
        if (c < 0x20) return NULL;
        if (c != '\\') {
            o[n++] = (char)c;
            continue;
        }
        if (r->p >= r->end) return NULL;
        c = (unsigned char)*r->p++;
        switch (c) {
        case '"': case '\\': case '/': o[n++] = (char)c; break;
        case 'b': o[n++] = '\b'; break;
        case 'f': o[n++] = '\f'; break;
        case 'n': o[n++] = '\n'; break;
        case 'r': o[n++] = '\r'; break;
        case 't': o[n++] = '\t'; break;
        case 'u': {
            if (r->end - r->p < 4) return NULL;
            int v = hex4(r->p);
            if (v < 0) return NULL;
            r->p += 4;
            uint32_t cp = (uint32_t)v;
            if (cp >= 0xD800 && cp <= 0xDBFF && r->end - r->p >= 6 && r->p[0] == '\\' &&
                r->p[1] == 'u') {
                int lo = hex4(r->p + 2);
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
                    r->p += 6;
                }
            }
            if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
            uint8_t tmp[4];
            size_t k = tv_utf8_encode(cp, tmp);
            memcpy(o + n, tmp, k);
            n += k;
            break;
        }
        default: return NULL;
        }
    }
    if (r->p >= r->end) return NULL;
    r->p++; /* closing quote */
    o[n] = 0;
    *len = n;
    return o;
}

/* A scalar: string, number, true/false/null. Fills v. */
static bool scalar(rd *r, tv_sjson_val *v) {
    if (r->p >= r->end) return false;
    if (*r->p == '"') {
        v->s = str(r, &v->len);
        v->is_string = true;
        return v->s != NULL;
    }
    const char *b = r->p;
    while (r->p < r->end && (strchr("+-.eE", *r->p) || (*r->p >= '0' && *r->p <= '9') ||
                             (*r->p >= 'a' && *r->p <= 'z')))
        r->p++;
    size_t n = (size_t)(r->p - b);
    if (n == 0) return false;
    bool num = (*b == '-' || (*b >= '0' && *b <= '9'));
    if (!num && !(tv_streq(b, n, "true") || tv_streq(b, n, "false") || tv_streq(b, n, "null")))
        return false;
    v->s = astrndup(r, b, n);
    v->len = n;
    v->is_null = tv_streq(b, n, "null");
    return v->s != NULL;
}

static tv_status push(rd *r, const char *key, size_t klen, tv_sjson_val *vals, size_t nvals,
                      bool is_array) {
    tv_sjson_list *l = r->out;
    if (l->len == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 16;
        tv_sjson_entry *ne = aalloc(r, nc * sizeof *ne);
        if (!ne) return TROVE_ENOMEM;
        if (l->len) memcpy(ne, l->items, l->len * sizeof *ne);
        l->items = ne;
        l->cap = nc;
    }
    tv_sjson_entry *e = &l->items[l->len++];
    e->key = astrndup(r, key, klen);
    e->key_len = klen;
    e->vals = vals;
    e->nvals = nvals;
    e->is_array = is_array;
    if (!e->key) return TROVE_ENOMEM;
    return TROVE_OK;
}

static bool value(rd *r, const char *prefix, size_t plen);

static bool object(rd *r, const char *prefix, size_t plen) {
    if (++r->depth > 64) return false;
    r->p++; /* { */
    ws(r);
    if (r->p < r->end && *r->p == '}') {
        r->p++;
        r->depth--;
        return true;
    }
    for (;;) {
        ws(r);
        size_t klen;
        char *k = str(r, &klen);
        if (!k) return false;
        ws(r);
        if (r->p >= r->end || *r->p != ':') return false;
        r->p++;
        ws(r);
        size_t nlen = plen ? plen + 1 + klen : klen;
        char *full = aalloc(r, nlen + 1);
        if (!full) return false;
        if (plen) {
            memcpy(full, prefix, plen);
            full[plen] = '.';
            memcpy(full + plen + 1, k, klen);
        } else {
            memcpy(full, k, klen);
        }
        full[nlen] = 0;
        if (!value(r, full, nlen)) return false;
        ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == '}') {
            r->p++;
            r->depth--;
            return true;
        }
        return false;
    }
}

static bool value(rd *r, const char *prefix, size_t plen) {
    ws(r);
    if (r->p >= r->end) return false;
    if (*r->p == '{') return object(r, prefix, plen);
    if (*r->p == '[') {
        r->p++;
        size_t cap = 4, n = 0;
        tv_sjson_val *vals = aalloc(r, cap * sizeof *vals);
        if (!vals) return false;
        ws(r);
        if (r->p < r->end && *r->p == ']') {
            r->p++;
            return push(r, prefix, plen, vals, 0, true) == TROVE_OK;
        }
        for (;;) {
            ws(r);
            if (n == cap) {
                tv_sjson_val *nv = aalloc(r, cap * 2 * sizeof *nv);
                if (!nv) return false;
                memcpy(nv, vals, n * sizeof *nv);
                vals = nv;
                cap *= 2;
            }
            memset(&vals[n], 0, sizeof vals[n]);
            if (r->p < r->end && (*r->p == '{' || *r->p == '[')) return false; /* not a setting */
            if (!scalar(r, &vals[n])) return false;
            n++;
            ws(r);
            if (r->p < r->end && *r->p == ',') {
                r->p++;
                continue;
            }
            if (r->p < r->end && *r->p == ']') {
                r->p++;
                break;
            }
            return false;
        }
        return push(r, prefix, plen, vals, n, true) == TROVE_OK;
    }
    tv_sjson_val *v = aalloc(r, sizeof *v);
    if (!v) return false;
    memset(v, 0, sizeof *v);
    if (!scalar(r, v)) return false;
    return push(r, prefix, plen, v, 1, false) == TROVE_OK;
}

tv_status tv_sjson_flatten(tv_arena *a, const char *json, size_t len, tv_sjson_list *out) {
    memset(out, 0, sizeof *out);
    rd r = {.p = json, .end = json + len, .a = a, .out = out};
    ws(&r);
    if (r.p >= r.end || *r.p != '{') return TROVE_EARG;
    if (!object(&r, "", 0)) return r.oom ? TROVE_ENOMEM : TROVE_EARG;
    ws(&r);
    if (r.p != r.end) return TROVE_EARG;
    return TROVE_OK;
}
