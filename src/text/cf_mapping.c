/*
 * cf_mapping.c — the `mapping` char filter (Lucene's MappingCharFilter with
 * OpenSearch's MappingCharFilterFactory rules).
 *
 * Rules are "key => value" strings (`mappings`; a rule starting with '#' is
 * a comment unless it is "# => ..."; the last "=>" splits, both sides trimmed, then unescaped: \\ \n \t \r \b \f \uXXXX, any other
 * escaped char stands for itself). At each input position the longest
 * key that matches is replaced by its value; other bytes are copied.
 * Offsets follow BaseCharFilter: a shorter replacement maps its end to the
 * end of the match, a longer one maps its extra chars back onto the last
 * matched one. Keys are kept sorted by first byte, longest first, so a
 * position costs one probe per key sharing its first byte; rejected: an
 * FST as Lucene builds, whose gain needs rule sets far larger than
 * mapping filters carry.
 */
#include <stdio.h>
#include <stdlib.h>

#include "text/text_int.h"

typedef struct rule {
    const char *key, *val;
    uint32_t klen, vlen;
} rule;

typedef struct mapping_cfg {
    rule *rules; /* sorted: by first byte, then longest key first */
    size_t n;
    uint32_t first[257]; /* rules[first[b] .. first[b+1]) start with byte b */
} mapping_cfg;

/* Unescapes s into out (room for n bytes + 4); an error status on a bad escape. */
static tv_status unescape(const char *s, size_t n, char *out, size_t *outn, tv_error *err) {
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        char c = s[i++];
        if (c != '\\') {
            out[o++] = c;
            continue;
        }
        if (i >= n)
            return tv_error_set(err, TROVE_ERUNTIME, "Invalid escaped char in [%.*s]", (int)n, s);
        c = s[i++];
        switch (c) {
        case 'n': out[o++] = '\n'; break;
        case 't': out[o++] = '\t'; break;
        case 'r': out[o++] = '\r'; break;
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'u': {
            if (i + 4 > n)
                return tv_error_set(err, TROVE_ERUNTIME, "Invalid escaped char in [%.*s]", (int)n, s);
            uint32_t cp = 0;
            for (int k = 0; k < 4; k++) {
                char h = s[i + (size_t)k];
                int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                        : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                if (v < 0)
                    return tv_error_set(err, TROVE_ENUMBERFORMAT,
                                        "For input string: \"%.4s\" under radix 16", s + i);
                cp = cp * 16 + (uint32_t)v;
            }
            i += 4;
            /* a surrogate pair written as two escapes is one code point */
            if (cp >= 0xD800 && cp < 0xDC00 && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
                uint32_t lo = 0;
                bool ok = true;
                for (int k = 0; k < 4 && ok; k++) {
                    char h = s[i + 2 + (size_t)k];
                    int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                            : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                    ok = v >= 0;
                    lo = lo * 16 + (uint32_t)(v < 0 ? 0 : v);
                }
                if (ok && lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
            }
            if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;
            o += tv_utf8_encode(cp, (uint8_t *)out + o);
            break;
        }
        default: out[o++] = c; break;
        }
    }
    *outn = o;
    return TROVE_OK;
}

static int cmp_rule(const void *a, const void *b) {
    const rule *x = a, *y = b;
    unsigned char fx = (unsigned char)x->key[0], fy = (unsigned char)y->key[0];
    if (fx != fy) return fx < fy ? -1 : 1;
    if (x->klen != y->klen) return x->klen > y->klen ? -1 : 1;
    return memcmp(x->key, y->key, x->klen);
}

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* A rule starting with '#' is a comment (Analysis.parseWordList), unless it
 * maps '#' itself: "#", optional white space, then "=>" (OpenSearch 2.11+). */
static bool is_comment(const char *s, size_t n) {
    if (n == 0 || s[0] != '#') return false;
    size_t i = 1;
    while (i < n && is_ws(s[i])) i++;
    return !(i + 1 < n && s[i] == '=' && s[i + 1] == '>');
}

static tv_status mapping_build(tv_comp *c, const void **out, tv_error *err) {
    if (tv_comp_has(c, "mappings_path"))
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "[mappings_path] is not supported for [%s]: give the rules in [mappings]",
                            tv_comp_name(c));
    const char *const *rules;
    const size_t *lens;
    size_t n;
    if (!tv_comp_has(c, "mappings"))
        return tv_error_set(err, TROVE_EARG,
                            "mapping requires either `mappings` or `mappings_path` to be configured");
    tv_comp_list(c, "mappings", &rules, &lens, &n);
    mapping_cfg *m = tv_comp_alloc(c, sizeof *m);
    rule *rs = tv_comp_alloc(c, (n ? n : 1) * sizeof *rs);
    if (!m || !rs) return TROVE_ENOMEM;
    memset(m, 0, sizeof *m);
    size_t nr = 0; /* rules kept: comments are not */
    for (size_t i = 0; i < n; i++) {
        const char *s = rules[i];
        size_t sl = lens[i];
        if (is_comment(s, sl)) continue;
        /* the last "=>" splits (the pattern's first group is greedy) */
        size_t arrow = SIZE_MAX;
        for (size_t k = 0; k + 1 < sl; k++)
            if (s[k] == '=' && s[k + 1] == '>') arrow = k;
        if (arrow == SIZE_MAX)
            return tv_error_set(err, TROVE_ERUNTIME, "Line [%zu]: Invalid mapping rule : [%.*s]",
                                i + 1, (int)sl, s);
        size_t a0 = 0, a1 = arrow, b0 = arrow + 2, b1 = sl;
        while (a0 < a1 && is_ws(s[a0])) a0++;
        while (a1 > a0 && is_ws(s[a1 - 1])) a1--;
        while (b0 < b1 && is_ws(s[b0])) b0++;
        while (b1 > b0 && is_ws(s[b1 - 1])) b1--;
        char *k = tv_comp_alloc(c, a1 - a0 + 8), *v = tv_comp_alloc(c, b1 - b0 + 8);
        if (!k || !v) return TROVE_ENOMEM;
        size_t kl, vl;
        tv_error e2;
        tv_error_clear(&e2);
        tv_status st = unescape(s + a0, a1 - a0, k, &kl, &e2);
        if (!st) st = unescape(s + b0, b1 - b0, v, &vl, &e2);
        if (st) /* reported with their line, as parseWordList does */
            return tv_error_set(err, st, "Line [%zu]: %s", i + 1, e2.reason);
        if (kl == 0) return tv_error_set(err, TROVE_EARG, "cannot match the empty string");
        rs[nr++] = (rule){k, v, (uint32_t)kl, (uint32_t)vl};
    }
    n = nr;
    qsort(rs, n, sizeof *rs, cmp_rule);
    for (size_t i = 1; i < n; i++)
        if (rs[i].klen == rs[i - 1].klen && memcmp(rs[i].key, rs[i - 1].key, rs[i].klen) == 0)
            return tv_error_set(err, TROVE_EARG, "match \"%.*s\" was already added",
                                (int)rs[i].klen, rs[i].key);
    size_t r = 0;
    for (unsigned b = 0; b <= 256; b++) {
        while (r < n && (unsigned char)rs[r].key[0] < b) r++;
        m->first[b] = (uint32_t)r;
    }
    m->rules = rs;
    m->n = n;
    *out = m;
    return TROVE_OK;
}

static tv_status mapping_run(tv_arena *a, const void *cfg, const char *in, size_t len,
                             tv_cfout *out) {
    const mapping_cfg *m = cfg;
    tv_buf b;
    tv_buf_init(&b);
    tv_status st = TROVE_OK;
    int64_t cum = 0; /* input - output from here on */
    size_t i = 0;
    while (i < len && !st) {
        unsigned char c0 = (unsigned char)in[i];
        const rule *hit = NULL;
        for (uint32_t k = m->first[c0]; k < m->first[c0 + 1] && !hit; k++)
            if (m->rules[k].klen <= len - i && memcmp(in + i, m->rules[k].key, m->rules[k].klen) == 0)
                hit = &m->rules[k];
        if (!hit) {
            tv_buf_putc(&b, in[i]);
            i++;
            continue;
        }
        tv_buf_append(&b, hit->val, hit->vlen);
        i += hit->klen;
        int64_t diff = (int64_t)hit->klen - hit->vlen;
        if (diff > 0) {
            st = tv_offmap_add(a, &out->map, (uint32_t)(i - diff - cum), (int32_t)(cum + diff));
        } else if (diff < 0) {
            int64_t ostart = (int64_t)i - cum;
            for (int64_t x = 0; x < -diff && !st; x++)
                st = tv_offmap_add(a, &out->map, (uint32_t)(ostart + x), (int32_t)(cum - x - 1));
        }
        cum += diff;
    }
    if (b.oom) st = TROVE_ENOMEM;
    if (!st) {
        char *t = tv_arena_memdup(a, b.data ? b.data : "", b.len);
        if (!t) st = TROVE_ENOMEM;
        out->text = t;
        out->len = b.len;
    }
    tv_buf_fini(&b);
    return st;
}

const tv_charfilter_type tv_cf_mapping = {"mapping", mapping_build, mapping_run};
