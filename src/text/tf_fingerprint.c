/*
 * tf_fingerprint.c — the `fingerprint` token filter (Lucene's
 * FingerprintFilter, OpenSearch's FingerprintTokenFilterFactory): the
 * distinct terms of the whole stream, sorted (by UTF-16 code units, as
 * Java compares char arrays) and joined by `separator` (one character, " "
 * by default) into one token of type "fingerprint", position 1, offsets
 * from 0 to the end of the text; no token when there is no term or when
 * the joined length (UTF-16 units) would pass max_output_size (255).
 *
 * Sorting compares UTF-8 bytes except where code points above U+FFFF meet
 * U+E000..U+FFFF, where UTF-16 order differs; the comparison fixes that up.
 * Rejected: converting every term to UTF-16 to sort.
 */
#include <stdlib.h>

#include "text/text_int.h"

typedef struct fp_cfg {
    char sep[8];
    uint32_t sep_len;
    int64_t max;
} fp_cfg;

static tv_status fp_build(tv_comp *c, const void **out, tv_error *err) {
    fp_cfg *f = tv_comp_alloc(c, sizeof *f);
    if (!f) return TROVE_ENOMEM;
    memcpy(f->sep, " ", 2);
    f->sep_len = 1;
    size_t sl;
    const char *sep = tv_comp_str(c, "separator", &sl);
    if (sep) {
        if (tv_utf16_len(sep, sl) != 1)
            return tv_error_set(err, TROVE_EARG,
                                "Setting [separator] must be a single, non-null character. [%s] was provided.",
                                sep);
        memcpy(f->sep, sep, sl);
        f->sep_len = (uint32_t)sl;
    }
    tv_status st = tv_comp_int(c, "max_output_size", 255, &f->max, err);
    if (st) return st;
    *out = f;
    return TROVE_OK;
}

/* UTF-16 order of two UTF-8 strings. */
static int cmp_u16(const char *a, size_t an, const char *b, size_t bn) {
    size_t i = 0, n = an < bn ? an : bn;
    while (i < n && a[i] == b[i]) i++;
    if (i == an || i == bn) return an < bn ? -1 : an > bn;
    if (i < an && i < bn) {
        /* back to the start of the differing code points */
        size_t k = i;
        while (k > 0 && ((uint8_t)a[k] & 0xC0) == 0x80) k--;
        uint32_t ca, cb;
        tv_utf8_decode((const uint8_t *)a + k, (const uint8_t *)a + an, &ca);
        tv_utf8_decode((const uint8_t *)b + k, (const uint8_t *)b + bn, &cb);
        /* a supplementary code point sorts as its high surrogate D800..DBFF */
        uint32_t ka = ca >= 0x10000 ? 0xD800 + ((ca - 0x10000) >> 10) : ca;
        uint32_t kb = cb >= 0x10000 ? 0xD800 + ((cb - 0x10000) >> 10) : cb;
        if (ka != kb) return ka < kb ? -1 : 1;
    }
    return (uint8_t)a[i] < (uint8_t)b[i] ? -1 : 1;
}

static int cmp_tok(const void *x, const void *y) {
    const tv_token *a = *(const tv_token *const *)x, *b = *(const tv_token *const *)y;
    return cmp_u16(a->term, a->term_len, b->term, b->term_len);
}

static tv_status fp_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const fp_cfg *f = cfg;
    const tv_token **ts = tv_arena_alloc(a, (v->len ? v->len : 1) * sizeof *ts);
    if (!ts) return TROVE_ENOMEM;
    for (size_t i = 0; i < v->len; i++) ts[i] = &v->items[i];
    qsort(ts, v->len, sizeof *ts, cmp_tok);
    size_t n = 0, bytes = 0;
    int64_t u16 = 0;
    for (size_t i = 0; i < v->len; i++) {
        if (n && ts[n - 1]->term_len == ts[i]->term_len &&
            memcmp(ts[n - 1]->term, ts[i]->term, ts[i]->term_len) == 0)
            continue;
        u16 += (int64_t)tv_utf16_len(ts[i]->term, ts[i]->term_len) + (n ? 1 : 0);
        bytes += ts[i]->term_len + f->sep_len;
        ts[n++] = ts[i];
    }
    tv_tokvec out = {0};
    if (n == 0 || u16 > f->max) {
        *v = out;
        return TROVE_OK;
    }
    char *term = tv_arena_alloc(a, bytes + 1);
    if (!term) return TROVE_ENOMEM;
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (i) {
            memcpy(term + w, f->sep, f->sep_len);
            w += f->sep_len;
        }
        memcpy(term + w, ts[i]->term, ts[i]->term_len);
        w += ts[i]->term_len;
    }
    term[w] = 0;
    tv_token t = {0};
    t.term = term;
    t.term_len = (uint32_t)w;
    t.position = 1;
    t.start = 0;
    t.start16 = 0;
    t.end = v->final_off;
    t.end16 = (uint32_t)tv_utf16_len(v->final_text, v->final_off);
    t.type = TV_TOK_FINGERPRINT;
    if (tv_tokvec_push(a, &out, &t)) return TROVE_ENOMEM;
    *v = out;
    return TROVE_OK;
}

const tv_filter_type tv_tf_fingerprint = {"fingerprint", fp_build, fp_apply};
