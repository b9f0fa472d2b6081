/*
 * tf_ngram.c — the `ngram` and `edge_ngram` token filters (Lucene 10's
 * NGramTokenFilter and EdgeNGramTokenFilter, with OpenSearch's
 * NGramTokenFilterFactory / EdgeNGramTokenFilterFactory settings:
 * min_gram 1, max_gram 2, preserve_original false; edge_ngram's `side`
 * front|back, back being a reverse before and after the grams).
 *
 * Grams count code points. ngram emits, for each start position in turn,
 * the grams of min..max code points that fit; edge_ngram those starting
 * at 0. Every gram keeps the token's offsets and type; the first gram of a
 * token takes its position increment (plus the increments of the tokens
 * before it that produced nothing, as Lucene 10 does — Lucene 4.10 lost
 * those), the others 0. preserve_original keeps a token shorter than
 * min_gram as it is, and emits a token longer than max_gram after its
 * grams at the same position.
 *
 * The ngram filter refuses max_gram - min_gram above index.max_ngram_diff
 * (OpenSearch's message names the "NGram Tokenizer", for the filter too).
 * By bare name, edge_ngram is OpenSearch's pre-configured filter, whose
 * grams are of 1 code point only (ngram's keeps 1..2).
 * Rejected: sharing filters.c's edge n-gram of index_prefixes, which has
 * no `side` and is fixed to what the mapping's sub-fields need.
 */
#include "text/text_int.h"

typedef struct ngram_cfg {
    uint32_t min, max;
    bool preserve, edge, back;
} ngram_cfg;

static tv_status read_grams(tv_comp *c, ngram_cfg *g, tv_error *err) {
    int64_t mn, mx;
    tv_status st;
    if ((st = tv_comp_int(c, "min_gram", 1, &mn, err))) return st;
    if ((st = tv_comp_int(c, "max_gram", 2, &mx, err))) return st;
    if ((st = tv_comp_bool(c, "preserve_original", false, &g->preserve, err))) return st;
    if (!g->edge) {
        int64_t diff = mx - mn, allowed = tv_comp_limits(c)->max_ngram_diff;
        if (diff > allowed)
            return tv_error_set(err, TROVE_EARG,
                                "The difference between max_gram and min_gram in NGram Tokenizer "
                                "must be less than or equal to: [%lld] but was [%lld]. This limit "
                                "can be set by changing the [index.max_ngram_diff] index level "
                                "setting.",
                                (long long)allowed, (long long)diff);
    }
    /* the Lucene filters' constructors */
    if (mn < 1) return tv_error_set(err, TROVE_EARG, "minGram must be greater than zero");
    if (mn > mx) return tv_error_set(err, TROVE_EARG, "minGram must not be greater than maxGram");
    g->min = (uint32_t)mn;
    g->max = (uint32_t)mx;
    return TROVE_OK;
}

static tv_status ngram_build(tv_comp *c, const void **out, tv_error *err) {
    ngram_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    memset(g, 0, sizeof *g);
    tv_status st = read_grams(c, g, err);
    if (st) return st;
    *out = g;
    return TROVE_OK;
}

static tv_status edge_build(tv_comp *c, const void **out, tv_error *err) {
    ngram_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    memset(g, 0, sizeof *g);
    g->edge = true;
    size_t sl;
    const char *side = tv_comp_str(c, "side", &sl);
    if (side && tv_streq(side, sl, "back")) g->back = true;
    else if (side && !tv_streq(side, sl, "front"))
        return tv_error_set(err, TROVE_EARG, "invalid side: %s", side);
    tv_status st = read_grams(c, g, err);
    if (st) return st;
    if (tv_comp_bare(c)) g->max = 1; /* the pre-configured edge_ngram: grams of 1 */
    *out = g;
    return TROVE_OK;
}

/* [s, s+n) with its code points in reverse order, in the arena. */
static char *reversed(tv_arena *a, const char *s, size_t n) {
    char *o = tv_arena_alloc(a, n + 1);
    if (!o) return NULL;
    const uint8_t *p = (const uint8_t *)s;
    size_t w = n;
    for (size_t r = 0; r < n;) {
        size_t k = 1;
        if (p[r] >= 0xF0) k = 4;
        else if (p[r] >= 0xE0) k = 3;
        else if (p[r] >= 0xC0) k = 2;
        if (k > n - r) k = n - r;
        w -= k;
        memcpy(o + w, p + r, k);
        r += k;
    }
    o[n] = 0;
    return o;
}

static tv_status ngram_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const ngram_cfg *g = cfg;
    tv_tokvec out = {0};
    uint32_t pending = 0; /* increments of tokens that produced nothing */
    uint32_t *cps = NULL; /* byte offset of each code point, plus the end */
    size_t cps_cap = 0;
    for (size_t i = 0; i < v->len; i++) {
        tv_token t = v->items[i];
        pending += t.position;
        if (g->back && t.term_len > 1) {
            char *r = reversed(a, t.term, t.term_len);
            if (!r) return TROVE_ENOMEM;
            t.term = r;
        }
        const uint8_t *s = (const uint8_t *)t.term, *end = s + t.term_len;
        size_t ncp = 0;
        if (t.term_len + 1 > cps_cap) {
            cps_cap = (size_t)t.term_len * 2 + 16;
            cps = tv_arena_alloc(a, cps_cap * sizeof *cps);
            if (!cps) return TROVE_ENOMEM;
        }
        for (const uint8_t *q = s; q < end;) {
            uint32_t cp;
            cps[ncp++] = (uint32_t)(q - s);
            q += tv_utf8_decode(q, end, &cp);
        }
        cps[ncp] = t.term_len;
        if (ncp < g->min) {
            if (!g->preserve) continue;
            tv_token o = t;
            o.position = pending;
            pending = 0;
            if (g->back) o.term = v->items[i].term;
            if (tv_tokvec_push(a, &out, &o)) return TROVE_ENOMEM;
            continue;
        }
        size_t last_start = g->edge ? 0 : ncp - g->min;
        for (size_t b = 0; b <= last_start; b++) {
            for (size_t n = g->min; n <= g->max && b + n <= ncp; n++) {
                tv_token o = t;
                o.term = t.term + cps[b];
                o.term_len = cps[b + n] - cps[b];
                if (g->back) {
                    char *r = reversed(a, o.term, o.term_len);
                    if (!r) return TROVE_ENOMEM;
                    o.term = r;
                }
                o.position = pending;
                pending = 0;
                if (tv_tokvec_push(a, &out, &o)) return TROVE_ENOMEM;
            }
        }
        if (g->preserve && ncp > g->max) {
            tv_token o = v->items[i];
            o.position = 0;
            if (tv_tokvec_push(a, &out, &o)) return TROVE_ENOMEM;
        }
    }
    out.trailing = v->trailing + pending;
    out.final_off = v->final_off;
    out.final_text = v->final_text;
    *v = out;
    return TROVE_OK;
}

const tv_filter_type tv_tf_ngram = {"ngram", ngram_build, ngram_apply};
const tv_filter_type tv_tf_edge_ngram = {"edge_ngram", edge_build, ngram_apply};

/* The names OpenSearch dropped (6.4) and refuses for new indices. */
static tv_status ngram_old_build(tv_comp *c, const void **out, tv_error *err) {
    (void)c;
    (void)out;
    return tv_error_set(err, TROVE_EARG,
                        "The [nGram] token filter name was deprecated in 6.4 and cannot be used in "
                        "new indices. Please change the filter name to [ngram] instead.");
}
static tv_status edge_old_build(tv_comp *c, const void **out, tv_error *err) {
    (void)c;
    (void)out;
    return tv_error_set(err, TROVE_EARG,
                        "The [edgeNGram] token filter name was deprecated in 6.4 and cannot be used "
                        "in new indices. Please change the filter name to [edge_ngram] instead.");
}
const tv_filter_type tv_tf_ngram_old = {"nGram", ngram_old_build, NULL};
const tv_filter_type tv_tf_edge_ngram_old = {"edgeNGram", edge_old_build, NULL};
