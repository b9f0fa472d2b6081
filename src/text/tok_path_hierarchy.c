/*
 * tok_path_hierarchy.c — the `path_hierarchy` tokenizer (also by its old
 * name PathHierarchy): Lucene's PathHierarchyTokenizer and, with
 * reverse: true, ReversePathHierarchyTokenizer, with OpenSearch's
 * PathHierarchyTokenizerFactory settings: delimiter ("/"), replacement
 * (the delimiter), buffer_size (1024; only its sign matters), skip (0),
 * reverse (false).
 *
 * Forward: the text is cut into segments — the first runs up to the first
 * delimiter that follows at least one character, each later one is a
 * delimiter plus what follows up to the next delimiter. After `skip`
 * segments, each further segment ends a token that spans from the first
 * kept segment (delimiters written as the replacement). Reverse: the
 * segment starts are 0 and just after each delimiter; the tokens run from
 * each start to the end of the text minus `skip` segments. The first token
 * has position increment 1, the others 0 (all at one position).
 */
#include "text/text_int.h"

typedef struct ph_cfg {
    uint32_t delim, repl; /* Java chars (BMP code points) */
    uint32_t skip;
    bool reverse;
} ph_cfg;

/* A one-char setting: its code point, or false when absent. */
static tv_status one_char(tv_comp *c, const char *key, uint32_t *out, bool *set, tv_error *err) {
    size_t n;
    const char *s = tv_comp_str(c, key, &n);
    *set = s != NULL;
    if (!s) return TROVE_OK;
    uint32_t cp = 0;
    if (n) tv_utf8_decode((const uint8_t *)s, (const uint8_t *)s + n, &cp);
    if (tv_utf16_len(s, n) != 1)
        return tv_error_set(err, TROVE_EARG, "%s must be a one char value", key);
    *out = cp;
    return TROVE_OK;
}

static tv_status ph_build(tv_comp *c, const void **out, tv_error *err) {
    ph_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    memset(g, 0, sizeof *g);
    int64_t bufsz, skip;
    bool set;
    tv_status st;
    if ((st = tv_comp_int(c, "buffer_size", 1024, &bufsz, err))) return st;
    g->delim = '/';
    if ((st = one_char(c, "delimiter", &g->delim, &set, err))) return st;
    g->repl = g->delim;
    if ((st = one_char(c, "replacement", &g->repl, &set, err))) return st;
    if ((st = tv_comp_int(c, "skip", 0, &skip, err))) return st;
    if ((st = tv_comp_bool(c, "reverse", false, &g->reverse, err))) return st;
    /* the Lucene constructors' checks */
    if (bufsz < 0) return tv_error_set(err, TROVE_EARG, "bufferSize cannot be negative");
    if (skip < 0) return tv_error_set(err, TROVE_EARG, "skip cannot be negative");
    g->skip = (uint32_t)skip;
    *out = g;
    return TROVE_OK;
}

/* The text with every delimiter replaced (bytes of the output term). */
static tv_status replaced(tv_arena *a, const ph_cfg *g, const char *text, size_t len,
                          const char **out, size_t *outlen) {
    if (g->delim == g->repl) {
        *out = text;
        *outlen = len;
        return TROVE_OK;
    }
    char *d = tv_arena_alloc(a, len * 4 + 4), *o = d;
    if (!d) return TROVE_ENOMEM;
    const uint8_t *p = (const uint8_t *)text, *e = p + len;
    while (p < e) {
        uint32_t cp;
        size_t k = tv_utf8_decode(p, e, &cp);
        if (cp == g->delim) o += tv_utf8_encode(g->repl, (uint8_t *)o);
        else {
            memcpy(o, p, k);
            o += k;
        }
        p += k;
    }
    *out = d;
    *outlen = (size_t)(o - d);
    return TROVE_OK;
}

static tv_status ph_run(tv_arena *a, const void *cfg, const char *text, size_t len, tv_tokvec *out) {
    const ph_cfg *g = cfg;
    const uint8_t *s = (const uint8_t *)text, *end = s + len;
    /* bounds: byte offsets where segments start (input) + the end */
    size_t cap = len + 2, nb = 0;
    uint32_t *bound = tv_arena_alloc(a, cap * sizeof *bound);
    uint32_t *obound = tv_arena_alloc(a, cap * sizeof *obound); /* same, in the replaced text */
    if (!bound || !obound) return TROVE_ENOMEM;
    int rdiff = (int)tv_utf8_encode(g->repl, (uint8_t[4]){0}) -
                (int)tv_utf8_encode(g->delim, (uint8_t[4]){0});
    const char *rt;
    size_t rl;
    if (replaced(a, g, text, len, &rt, &rl)) return TROVE_ENOMEM;
    tv_u16pos u = {s, 0, 0};
    bool first = true;
    if (!g->reverse) {
        /* forward segments: a delimiter starts a new one unless it is the
         * very first character */
        size_t p = 0;
        int64_t shift = 0; /* output bytes - input bytes so far */
        bound[nb] = 0;
        obound[nb++] = 0;
        while (p < len) {
            uint32_t cp;
            size_t k = tv_utf8_decode(s + p, end, &cp);
            if (cp == g->delim && p > 0) {
                bound[nb] = (uint32_t)p;
                obound[nb++] = (uint32_t)(p + shift);
            }
            if (cp == g->delim) shift += rdiff;
            p += k;
        }
        if (len == 0) return TROVE_OK;
        bound[nb] = (uint32_t)len;
        obound[nb] = (uint32_t)rl;
        /* segments: [bound[i], bound[i+1]) for i < nb */
        if (g->skip >= nb) return TROVE_OK;
        uint32_t st = bound[g->skip], ost = obound[g->skip];
        uint32_t s16 = tv_u16_at(&u, st);
        for (size_t i = g->skip; i < nb; i++) {
            uint32_t e = bound[i + 1];
            tv_u16pos ue = u;
            tv_token t = {.term = rt + ost, .term_len = obound[i + 1] - ost,
                          .position = first ? 1 : 0, .start = st, .end = e, .start16 = s16,
                          .end16 = tv_u16_at(&ue, e), .type = TV_TOK_WORD};
            first = false;
            if (tv_tokvec_push(a, out, &t)) return TROVE_ENOMEM;
        }
        return TROVE_OK;
    }
    /* reverse: starts at 0 and after each delimiter; the end at the text's
     * end unless it ends with a delimiter already counted */
    size_t p = 0;
    int64_t shift = 0;
    bound[nb] = 0;
    obound[nb++] = 0;
    while (p < len) {
        uint32_t cp;
        size_t k = tv_utf8_decode(s + p, end, &cp);
        p += k;
        if (cp == g->delim) {
            shift += rdiff;
            bound[nb] = (uint32_t)p;
            obound[nb++] = (uint32_t)(p + shift);
        }
    }
    if (bound[nb - 1] < len) {
        bound[nb] = (uint32_t)len;
        obound[nb++] = (uint32_t)rl;
    }
    if ((int64_t)nb - 1 - (int64_t)g->skip < 0) return TROVE_OK;
    size_t endi = nb - 1 - g->skip;
    uint32_t e = bound[endi], oe = obound[endi];
    tv_u16pos ue = u;
    uint32_t e16 = tv_u16_at(&ue, e);
    for (size_t i = 0; i + 1 + g->skip < nb; i++) {
        tv_token t = {.term = rt + obound[i], .term_len = oe - obound[i],
                      .position = first ? 1 : 0, .start = bound[i], .end = e,
                      .start16 = tv_u16_at(&u, bound[i]), .end16 = e16, .type = TV_TOK_WORD};
        first = false;
        if (tv_tokvec_push(a, out, &t)) return TROVE_ENOMEM;
    }
    return TROVE_OK;
}

const tv_tokenizer_type tv_tok_path_hierarchy = {"path_hierarchy", ph_build, ph_run};
const tv_tokenizer_type tv_tok_path_hierarchy_old = {"PathHierarchy", ph_build, ph_run};
