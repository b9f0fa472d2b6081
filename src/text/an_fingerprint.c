/*
 * an_fingerprint.c — the `fingerprint` analyzer (Lucene's
 * FingerprintAnalyzer with OpenSearch's FingerprintAnalyzerProvider
 * settings: separator (" ", one char), max_output_size (255), stopwords
 * (none by default)).
 *
 * Chain: standard tokenizer, lowercase, asciifolding, stop, then Lucene's
 * FingerprintFilter: the distinct terms, sorted by UTF-16 code units,
 * joined by the separator into one token of type "fingerprint" spanning
 * the whole input (offsets 0 to the input's length, position 0); no token
 * when there are no terms or the joined size (UTF-16 units, one per
 * separator) exceeds max_output_size. The fingerprint step needs the
 * input's length (its end offset), which filters do not see, so the whole
 * chain runs inside this analyzer's tokenizer; rejected: carrying the
 * final offset through every filter for this one user.
 */
#include <stdlib.h>

#include "text/text_int.h"

typedef struct fp_cfg {
    char sep[4];
    uint32_t sep_len;
    uint32_t max;
    const tv_termset *stop; /* NULL: none */
} fp_cfg;

static tv_status fp_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err);

/* UTF-16 order of two UTF-8 strings (Lucene sorts the char[] terms):
 * code point order except that supplementary characters sort below
 * U+E000..U+FFFF. */
static int cmp_u16(const char *a, size_t an, const char *b, size_t bn) {
    const uint8_t *p = (const uint8_t *)a, *pe = p + an, *q = (const uint8_t *)b, *qe = q + bn;
    while (p < pe && q < qe) {
        uint32_t x, y;
        p += tv_utf8_decode(p, pe, &x);
        q += tv_utf8_decode(q, qe, &y);
        if (x == y) continue;
        uint32_t kx = x >= 0x10000 ? 0xD800 + ((x - 0x10000) >> 10) : x;
        uint32_t ky = y >= 0x10000 ? 0xD800 + ((y - 0x10000) >> 10) : y;
        if (kx == ky) { /* two supplementary chars with the same high surrogate */
            return x < y ? -1 : 1;
        }
        return kx < ky ? -1 : 1;
    }
    return (p < pe) - (q < qe);
}

static int cmp_tok(const void *a, const void *b) {
    const tv_token *x = a, *y = b;
    return cmp_u16(x->term, x->term_len, y->term, y->term_len);
}

static tv_status fp_run(tv_arena *a, const void *cfg, const char *text, size_t len, tv_tokvec *out) {
    const fp_cfg *g = cfg;
    tv_tokvec v = {0};
    tv_status st = tv_tokenize_standard(a, text, len, 255, &v);
    tv_filter_def lower = {.kind = TV_TF_LOWERCASE}, fold = {.kind = TV_TF_ASCIIFOLDING},
                  stop = {.kind = TV_TF_STOP, .stop = g->stop};
    if (!st) st = tv_filter_apply(a, &lower, &v);
    if (!st) st = tv_filter_apply(a, &fold, &v);
    if (!st && g->stop && g->stop->n) st = tv_filter_apply(a, &stop, &v);
    if (st || v.len == 0) return st;
    /* distinct terms, in order of the UTF-16 comparison */
    qsort(v.items, v.len, sizeof *v.items, cmp_tok);
    size_t n = 0;
    uint64_t size = 0;
    for (size_t i = 0; i < v.len; i++) {
        if (n && cmp_tok(&v.items[n - 1], &v.items[i]) == 0) continue;
        v.items[n++] = v.items[i];
        size += tv_utf16_len(v.items[i].term, v.items[i].term_len) + (n > 1);
    }
    if (size > g->max) return TROVE_OK;
    tv_buf b;
    tv_buf_init(&b);
    for (size_t i = 0; i < n; i++) {
        if (i) tv_buf_append(&b, g->sep, g->sep_len);
        tv_buf_append(&b, v.items[i].term, v.items[i].term_len);
    }
    char *term = b.oom ? NULL : tv_arena_memdup(a, b.data ? b.data : "", b.len);
    size_t tl = b.len;
    tv_buf_fini(&b);
    if (!term) return TROVE_ENOMEM;
    tv_token t = {.term = term, .term_len = (uint32_t)tl, .position = 1, .start = 0,
                  .end = (uint32_t)len, .start16 = 0, .end16 = (uint32_t)tv_utf16_len(text, len),
                  .type = TV_TOK_FINGERPRINT};
    return tv_tokvec_push(a, out, &t);
}

static const tv_tokenizer_type fp_chain = {"fingerprint", NULL, fp_run};

static tv_status fp_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    fp_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    memset(g, 0, sizeof *g);
    size_t sl = 0;
    const char *sep = tv_comp_str(c, "separator", &sl);
    if (!sep) {
        sep = " ";
        sl = 1;
    }
    if (tv_utf16_len(sep, sl) != 1)
        return tv_error_set(err, TROVE_EARG,
                            "Setting [separator] must be a single, non-null character. [%.*s] was provided.",
                            (int)sl, sep);
    memcpy(g->sep, sep, sl);
    g->sep_len = (uint32_t)sl;
    int64_t max;
    tv_status st = tv_comp_int(c, "max_output_size", 255, &max, err);
    if (st) return st;
    g->max = max < 0 ? 0 : (uint32_t)max;
    if ((st = tv_comp_words(c, "stopwords", NULL, false, &g->stop, err))) return st;
    memset(&p->tok, 0, sizeof p->tok);
    p->tok.kind = TV_TK_EXT;
    p->tok.ext = &fp_chain;
    p->tok.cfg = g;
    return TROVE_OK;
}

const tv_analyzer_type tv_an_fingerprint = {"fingerprint", fp_build};
