/*
 * lang_cjk.c — Chinese/Japanese/Korean: the `cjk_width` filter
 * (CJKWidthFilter), the `cjk_bigram` filter (CJKBigramFilter, with
 * OpenSearch's `ignored_scripts` and `output_unigrams`) and the `cjk`
 * analyzer (CJKAnalyzer: standard tokenizer, cjk_width, lowercase,
 * cjk_bigram, stop words from cjk/stopwords.txt), and the `chinese`
 * analyzer OpenSearch keeps for old indices (ChineseAnalyzerProvider: a
 * standard analyzer with the English stop words, whatever its settings).
 *
 * cjk_width folds fullwidth ASCII (U+FF01..FF5E) to ASCII and halfwidth
 * katakana (U+FF65..FF9F) to their ordinary forms, composing a halfwidth
 * voiced/semi-voiced sound mark with the kana before it when a composed
 * kana exists (the tables below are the kana block's voiced/semi-voiced
 * partners, as Unicode lays them out).
 *
 * cjk_bigram: the standard tokenizer emits each Han, hiragana, katakana or
 * hangul run as tokens of those types; consecutive such tokens whose
 * offsets touch (one ends where the next starts) form a segment, and a
 * segment of n code points gives the n-1 bigrams <DOUBLE>, or one
 * unigram <SINGLE> when n is 1. With output_unigrams every code point is
 * also a unigram and each bigram is stacked on its first unigram
 * (increment 0, positionLength 2): A, AB, B, BC, C. Other tokens pass
 * unchanged. As Lucene, the grams take fresh attributes: position
 * increment 1 (a gap from a removed token before them is not kept) and no
 * keyword flag; a token whose offsets do not span its text (a char filter
 * changed it) gives each of its code points the whole token's offsets.
 * Lucene 10 keeps 4.10's positions here (a proposed change to add a
 * position after each bigram segment, apache/lucene#15825, is not in it).
 *
 * Lucene walks the tokens with a state machine that peeks one token ahead;
 * here a segment is gathered first, then emitted: the same output without
 * captured states. Rejected: emitting as tokens arrive (the lone-unigram
 * case needs the lookahead either way).
 */
#include "text/lang_int.h"

/* ------------------------------------------------------------ cjk_width */

static const uint16_t kana_norm[] = {
    0x30fb, 0x30f2, 0x30a1, 0x30a3, 0x30a5, 0x30a7, 0x30a9, 0x30e3, 0x30e5, 0x30e7, 0x30c3,
    0x30fc, 0x30a2, 0x30a4, 0x30a6, 0x30a8, 0x30aa, 0x30ab, 0x30ad, 0x30af, 0x30b1, 0x30b3,
    0x30b5, 0x30b7, 0x30b9, 0x30bb, 0x30bd, 0x30bf, 0x30c1, 0x30c4, 0x30c6, 0x30c8, 0x30ca,
    0x30cb, 0x30cc, 0x30cd, 0x30ce, 0x30cf, 0x30d2, 0x30d5, 0x30d8, 0x30db, 0x30de, 0x30df,
    0x30e0, 0x30e1, 0x30e2, 0x30e4, 0x30e6, 0x30e8, 0x30e9, 0x30ea, 0x30eb, 0x30ec, 0x30ed,
    0x30ef, 0x30f3, 0x3099, 0x309A};

/* The katakana (U+30A6..30FD) that take the voiced mark, and by how much
 * the code point moves: U+30A6 ウ→ヴ (+78), the k/s/t/h rows (+1), ワ..ヲ → ヷ..ヺ (+8), ヽ→ヾ. */
static int voiced_delta(char16_t c) {
    if (c == 0x30A6) return 78;
    if (c == 0x30FD) return 1;
    if (c >= 0x30EF && c <= 0x30F2) return 8;
    if ((c >= 0x30AB && c <= 0x30C2) || (c >= 0x30C4 && c <= 0x30C9))
        return ((c - 0x30AB) % 2 == 0 && c <= 0x30C2) || (c >= 0x30C4 && (c - 0x30C4) % 2 == 0) ? 1 : 0;
    if (c >= 0x30CF && c <= 0x30DD) return (c - 0x30CF) % 3 == 0 ? 1 : 0;
    return 0;
}
static int half_voiced_delta(char16_t c) {
    return (c >= 0x30CF && c <= 0x30DD && (c - 0x30CF) % 3 == 0) ? 2 : 0;
}

static int width_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    for (int i = 0; i < len; i++) {
        char16_t ch = s[i];
        if (ch >= 0xFF01 && ch <= 0xFF5E) {
            s[i] = (char16_t)(ch - 0xFEE0);
        } else if (ch >= 0xFF65 && ch <= 0xFF9F) {
            if ((ch == 0xFF9E || ch == 0xFF9F) && i > 0 && s[i - 1] >= 0x30A6 && s[i - 1] <= 0x30FD) {
                int d = ch == 0xFF9F ? half_voiced_delta(s[i - 1]) : voiced_delta(s[i - 1]);
                if (d) {
                    s[i - 1] = (char16_t)(s[i - 1] + d);
                    len = tv_u16_del(s, i--, len);
                    continue;
                }
            }
            s[i] = kana_norm[ch - 0xFF65];
        }
    }
    return len;
}

static tv_status width_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, false, width_rule, cfg);
}

const tv_filter_type tv_tf_cjk_width = {"cjk_width", NULL, width_apply};

/* ----------------------------------------------------------- cjk_bigram */

enum { CJK_HAN = 1, CJK_HIRAGANA = 2, CJK_KATAKANA = 4, CJK_HANGUL = 8 };

typedef struct bigram_cfg {
    unsigned flags;
    bool unigrams;
} bigram_cfg;

static tv_status bigram_build(tv_comp *c, const void **out, tv_error *err) {
    bigram_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    tv_status st = tv_comp_bool(c, "output_unigrams", false, &g->unigrams, err);
    if (st) return st;
    g->flags = CJK_HAN | CJK_HIRAGANA | CJK_KATAKANA | CJK_HANGUL;
    const char *const *vals;
    const size_t *lens;
    size_t n;
    tv_comp_list(c, "ignored_scripts", &vals, &lens, &n);
    for (size_t i = 0; i < n; i++) { /* unknown names are ignored, as OpenSearch does */
        if (tv_streq(vals[i], lens[i], "han")) g->flags &= ~(unsigned)CJK_HAN;
        else if (tv_streq(vals[i], lens[i], "hiragana")) g->flags &= ~(unsigned)CJK_HIRAGANA;
        else if (tv_streq(vals[i], lens[i], "katakana")) g->flags &= ~(unsigned)CJK_KATAKANA;
        else if (tv_streq(vals[i], lens[i], "hangul")) g->flags &= ~(unsigned)CJK_HANGUL;
    }
    *out = g;
    return TROVE_OK;
}

static bool bigram_type(const bigram_cfg *g, uint8_t type) {
    switch (type) {
    case TV_TOK_IDEOGRAPHIC: return g->flags & CJK_HAN;
    case TV_TOK_HIRAGANA: return g->flags & CJK_HIRAGANA;
    case TV_TOK_KATAKANA: return g->flags & CJK_KATAKANA;
    case TV_TOK_HANGUL: return g->flags & CJK_HANGUL;
    default: return false;
    }
}

/* One code point of a segment: its bytes and offsets. */
typedef struct seg_cp {
    const char *s;
    uint8_t n;
    uint32_t start, end, start16, end16;
} seg_cp;

static tv_status emit_gram(tv_arena *a, tv_tokvec *out, const seg_cp *x, const seg_cp *y,
                           uint32_t inc, uint16_t pos_len) {
    size_t n = x->n + (y ? y->n : 0);
    char *t = tv_arena_alloc(a, n + 1);
    if (!t) return TROVE_ENOMEM;
    memcpy(t, x->s, x->n);
    if (y) memcpy(t + x->n, y->s, y->n);
    t[n] = 0;
    tv_token g = {.term = t, .term_len = (uint32_t)n, .position = inc, .start = x->start,
                  .start16 = x->start16, .end = y ? y->end : x->end,
                  .end16 = y ? y->end16 : x->end16, .type = y ? TV_TOK_DOUBLE : TV_TOK_SINGLE,
                  .pos_len = pos_len};
    return tv_tokvec_push(a, out, &g);
}

static tv_status flush_segment(tv_arena *a, const bigram_cfg *g, const seg_cp *seg, size_t n,
                               tv_tokvec *out) {
    tv_status st = TROVE_OK;
    if (n == 1) return emit_gram(a, out, &seg[0], NULL, 1, 0);
    for (size_t i = 0; i + 1 < n && !st; i++) {
        if (g->unigrams) {
            st = emit_gram(a, out, &seg[i], NULL, 1, 0);
            if (!st) st = emit_gram(a, out, &seg[i], &seg[i + 1], 0, 2);
        } else {
            st = emit_gram(a, out, &seg[i], &seg[i + 1], 1, 0);
        }
    }
    if (!st && g->unigrams) st = emit_gram(a, out, &seg[n - 1], NULL, 1, 0);
    return st;
}

static tv_status bigram_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const bigram_cfg *g = cfg;
    if (!g->flags) return TROVE_OK;
    bool any = false;
    for (size_t i = 0; i < v->len && !any; i++) any = bigram_type(g, v->items[i].type);
    if (!any) return TROVE_OK;
    size_t total = 0;
    for (size_t i = 0; i < v->len; i++) total += v->items[i].term_len;
    seg_cp *seg = tv_arena_alloc(a, (total + 1) * sizeof *seg);
    if (!seg) return TROVE_ENOMEM;
    size_t nseg = 0;
    uint32_t last_end = 0;
    tv_tokvec out = {0};
    for (size_t i = 0; i < v->len; i++) {
        const tv_token *t = &v->items[i];
        if (!bigram_type(g, t->type)) {
            if (nseg && flush_segment(a, g, seg, nseg, &out)) return TROVE_ENOMEM;
            nseg = 0;
            if (tv_tokvec_push(a, &out, t)) return TROVE_ENOMEM;
            continue;
        }
        if (t->start != last_end && nseg) {
            if (flush_segment(a, g, seg, nseg, &out)) return TROVE_ENOMEM;
            nseg = 0;
        }
        last_end = t->end;
        const uint8_t *p = (const uint8_t *)t->term, *end = p + t->term_len;
        bool crazy = t->end - t->start != t->term_len;
        uint32_t b = t->start, b16 = t->start16;
        while (p < end) {
            uint32_t cp;
            size_t k = tv_utf8_decode(p, end, &cp);
            seg_cp *x = &seg[nseg++];
            x->s = (const char *)p;
            x->n = (uint8_t)k;
            if (crazy) {
                x->start = t->start, x->end = t->end;
                x->start16 = t->start16, x->end16 = t->end16;
            } else {
                x->start = b, x->start16 = b16;
                b += (uint32_t)k;
                b16 += cp >= 0x10000 ? 2 : 1;
                x->end = b, x->end16 = b16;
            }
            p += k;
        }
    }
    if (nseg && flush_segment(a, g, seg, nseg, &out)) return TROVE_ENOMEM;
    out.trailing = v->trailing;
    *v = out;
    return TROVE_OK;
}

const tv_filter_type tv_tf_cjk_bigram = {"cjk_bigram", bigram_build, bigram_apply};

/* ------------------------------------------------------------ analyzer */

static const bigram_cfg all_scripts = {CJK_HAN | CJK_HIRAGANA | CJK_KATAKANA | CJK_HANGUL, false};

static tv_status cjk_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    tv_lang_standard(p);
    tv_lang_add_ext(p, &tv_tf_cjk_width, NULL);
    tv_lang_add_core(p, TV_TF_LOWERCASE);
    tv_lang_add_ext(p, &tv_tf_cjk_bigram, &all_scripts);
    return tv_lang_stop(c, p, tv_words_cjk(), "cjk/stopwords.txt", err);
}

const tv_analyzer_type tv_an_cjk = {"cjk", cjk_build};

static tv_status chinese_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    (void)c;
    (void)err;
    tv_lang_standard(p);
    tv_lang_add_core(p, TV_TF_LOWERCASE);
    tv_filter_def stop = {.kind = TV_TF_STOP, .stop = tv_stop_english()};
    tv_lang_add(p, &stop);
    return TROVE_OK;
}

const tv_analyzer_type tv_an_chinese = {"chinese", chinese_build};
