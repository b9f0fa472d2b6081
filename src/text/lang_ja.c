/*
 * lang_ja.c — the `kuromoji` analyzer (OpenSearch's KuromojiAnalyzerProvider
 * over Lucene's JapaneseAnalyzer) and the CJK width folding it applies.
 *
 * Chain (Lucene 10's JapaneseAnalyzer.createComponents, as OpenSearch 3.x
 * builds it): kuromoji_tokenizer in `mode` (default search) with
 * punctuation discarded and, since Lucene 8.5, compound tokens discarded;
 * kuromoji_baseform; kuromoji_part_of_speech with kuromoji's default stop
 * tags; CJK width folding (CJKWidthFilter); a stop filter with `stopwords`
 * (default `_japanese_`); kuromoji_stemmer (minimum length 4); lowercase.
 * Settings: mode, stopwords (stopwords_path unsupported),
 * user_dictionary_rules (user_dictionary unsupported).
 *
 * CJK width folding (the cjk_width filter is not in this tree, so it lives
 * here as a static step): full-width ASCII variants U+FF01..U+FF5E become
 * ASCII; half-width katakana U+FF65..U+FF9F become their full-width forms,
 * a half-width (semi-)voiced mark combining with the katakana before it
 * where a precomposed form exists.
 */
#include <string.h>

#include "text/text_int.h"

extern const tv_tokenizer_type tv_tok_kuromoji;
extern const tv_filter_type tv_tf_kuromoji_baseform, tv_tf_kuromoji_pos, tv_tf_kuromoji_stemmer;
tv_status tv_ja_analyzer_tokenizer(tv_comp *c, const void **cfg, tv_error *err);
const tv_termset *tv_ja_stopwords(void);

/* ------------------------------------------------------------ width */

/* Full-width forms of U+FF65..U+FF9F (the Unicode <narrow> decompositions). */
static const uint16_t kana_norm[] = {
    0x30FB, 0x30F2, 0x30A1, 0x30A3, 0x30A5, 0x30A7, 0x30A9, 0x30E3, 0x30E5, 0x30E7, 0x30C3,
    0x30FC, 0x30A2, 0x30A4, 0x30A6, 0x30A8, 0x30AA, 0x30AB, 0x30AD, 0x30AF, 0x30B1, 0x30B3,
    0x30B5, 0x30B7, 0x30B9, 0x30BB, 0x30BD, 0x30BF, 0x30C1, 0x30C4, 0x30C6, 0x30C8, 0x30CA,
    0x30CB, 0x30CC, 0x30CD, 0x30CE, 0x30CF, 0x30D2, 0x30D5, 0x30D8, 0x30DB, 0x30DE, 0x30DF,
    0x30E0, 0x30E1, 0x30E2, 0x30E4, 0x30E6, 0x30E8, 0x30E9, 0x30EA, 0x30EB, 0x30EC, 0x30ED,
    0x30EF, 0x30F3, 0x3099, 0x309A};

/* The precomposed (semi-)voiced form of katakana k, or 0. */
static uint32_t voiced(uint32_t k, bool half) {
    if (half) return (k >= 0x30CF && k <= 0x30DB && (k - 0x30CF) % 3 == 0) ? k + 2 : 0;
    if ((k >= 0x30AB && k <= 0x30C2 && (k - 0x30AB) % 2 == 0) ||
        k == 0x30C4 || k == 0x30C6 || k == 0x30C8 ||
        (k >= 0x30CF && k <= 0x30DB && (k - 0x30CF) % 3 == 0) || k == 0x30FD)
        return k + 1;
    if (k == 0x30A6) return 0x30F4;
    if (k >= 0x30EF && k <= 0x30F2) return k + 8;
    return 0;
}

static tv_status width_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        const uint8_t *p = (const uint8_t *)t->term, *e = p + t->term_len;
        bool any = false;
        for (const uint8_t *q = p; q + 2 < e; q++)
            if (q[0] == 0xEF && (q[1] == 0xBC || q[1] == 0xBD || q[1] == 0xBE)) any = true;
        if (!any) continue;
        uint32_t *cps = tv_arena_alloc(a, (t->term_len + 1) * sizeof *cps);
        char *out = tv_arena_alloc(a, (size_t)t->term_len * 3 + 1); /* U+FFFD for invalid bytes */
        if (!cps || !out) return TROVE_ENOMEM;
        size_t n = 0;
        while (p < e) {
            uint32_t cp;
            p += tv_utf8_decode(p, e, &cp);
            if (cp >= 0xFF01 && cp <= 0xFF5E) {
                cp -= 0xFEE0;
            } else if (cp >= 0xFF65 && cp <= 0xFF9F) {
                if ((cp == 0xFF9E || cp == 0xFF9F) && n > 0) {
                    uint32_t c2 = voiced(cps[n - 1], cp == 0xFF9F);
                    if (c2) {
                        cps[n - 1] = c2;
                        continue;
                    }
                }
                cp = kana_norm[cp - 0xFF65];
            }
            cps[n++] = cp;
        }
        size_t o = 0;
        for (size_t k = 0; k < n; k++) o += tv_utf8_encode(cps[k], (uint8_t *)out + o);
        out[o] = 0;
        t->term = out;
        t->term_len = (uint32_t)o;
    }
    return TROVE_OK;
}

static const tv_filter_type width_type = {"cjk_width", NULL, width_apply};

/* ------------------------------------------------------------ analyzer */

static tv_status kuromoji_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    const void *tcfg;
    tv_status st = tv_ja_analyzer_tokenizer(c, &tcfg, err);
    if (st) return st;
    if (tv_comp_has(c, "stopwords_path"))
        return tv_error_set(err, TROVE_EUNSUPPORTED, "[stopwords_path] is not supported");
    const tv_termset *stop;
    st = tv_comp_words(c, "stopwords", tv_ja_stopwords(), false, &stop, err);
    if (st) return st;
    p->tok = (tv_tokenizer_def){.kind = TV_TK_EXT, .ext = &tv_tok_kuromoji, .cfg = tcfg};
    size_t k = 0;
    p->filters[k++] = (tv_filter_def){.kind = TV_TF_EXT, .ext = &tv_tf_kuromoji_baseform};
    p->filters[k++] = (tv_filter_def){.kind = TV_TF_EXT, .ext = &tv_tf_kuromoji_pos};
    p->filters[k++] = (tv_filter_def){.kind = TV_TF_EXT, .ext = &width_type};
    p->filters[k++] = (tv_filter_def){.kind = TV_TF_STOP, .stop = stop};
    p->filters[k++] = (tv_filter_def){.kind = TV_TF_EXT, .ext = &tv_tf_kuromoji_stemmer};
    p->filters[k++] = (tv_filter_def){.kind = TV_TF_LOWERCASE};
    p->nfilters = k;
    return TROVE_OK;
}

const tv_analyzer_type tv_lang_kuromoji = {"kuromoji", kuromoji_build};
