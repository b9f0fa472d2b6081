/*
 * tf_kuromoji.c — the analysis-kuromoji token filters, over the per-token
 * morphology kuromoji_tokenizer leaves in the token array (tv_ja_morph):
 *
 *   kuromoji_baseform        JapaneseBaseFormFilter: the base form of
 *                            inflected words (keywords left alone)
 *   kuromoji_part_of_speech  JapanesePartOfSpeechStopFilter: drops tokens
 *                            whose part of speech is in `stoptags`
 *                            (default: kuromoji's stoptags.txt)
 *   kuromoji_readingform     JapaneseReadingFormFilter: the katakana
 *                            reading (use_romaji: unsupported)
 *   kuromoji_stemmer         JapaneseKatakanaStemFilter: drops a final
 *                            prolonged sound mark (U+30FC) from all-katakana
 *                            terms of at least minimum_length (4) chars
 *   ja_stop                  StopFilter with `stopwords` (default and
 *                            `_japanese_`: kuromoji's stopwords.txt)
 *
 * Tokens of other tokenizers carry no morphology: the morphology filters
 * leave them as Lucene does when the attributes are null. Removing a token
 * adds its position increment to the next (FilteringTokenFilter).
 * Rejected: copying the morphology into each token (tv_token stays small
 * for every other analyzer; one 32-bit index fills its padding).
 */
#include <string.h>

#include "text/text_int.h"

/* Keeps the tokens pred accepts; a removed token's increment moves on. */
static void filter_tokens(tv_tokvec *v, bool (*keep)(const void *, const tv_tokvec *, const tv_token *),
                          const void *cfg) {
    size_t o = 0;
    uint32_t carry = 0;
    for (size_t i = 0; i < v->len; i++) {
        tv_token t = v->items[i];
        if (!keep(cfg, v, &t)) {
            carry += t.position;
            continue;
        }
        t.position += carry;
        carry = 0;
        v->items[o++] = t;
    }
    v->len = o;
    v->trailing += carry;
}

/* ------------------------------------------------------------ baseform */

static tv_status baseform_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a, (void)cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        const tv_ja_morph *m = tv_ja_morph_of(v, t);
        if (!m || !m->base || (t->flags & TV_TOKF_KEYWORD)) continue;
        t->term = m->base;
        t->term_len = (uint32_t)strlen(m->base);
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_kuromoji_baseform = {"kuromoji_baseform", NULL, baseform_apply};

/* ------------------------------------------------------- part of speech */

/* kuromoji's stoptags.txt: a tag per line, '#' comments, trimmed. */
static const tv_termset *default_stoptags(void) { return tv_resource_words("ja/stoptags.txt", false); }

static tv_status pos_build(tv_comp *c, const void **cfg, tv_error *err) {
    if (tv_comp_has(c, "stoptags_path"))
        return tv_error_set(err, TROVE_EUNSUPPORTED, "[stoptags_path] is not supported");
    const char *const *vals;
    const size_t *lens;
    size_t n;
    tv_comp_list(c, "stoptags", &vals, &lens, &n);
    if (!tv_comp_has(c, "stoptags")) {
        *cfg = default_stoptags();
        return *cfg ? TROVE_OK : TROVE_ENOMEM;
    }
    const tv_termset *ts;
    tv_status st = tv_comp_termset(c, vals, lens, n, false, &ts);
    if (st) return st;
    *cfg = ts;
    return TROVE_OK;
}

static bool pos_keep(const void *cfg, const tv_tokvec *v, const tv_token *t) {
    const tv_ja_morph *m = tv_ja_morph_of(v, t);
    return !m || !m->pos || !tv_termset_has(cfg, m->pos, strlen(m->pos));
}

static tv_status pos_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    filter_tokens(v, pos_keep, cfg ? cfg : default_stoptags());
    return TROVE_OK;
}

const tv_filter_type tv_tf_kuromoji_pos = {"kuromoji_part_of_speech", pos_build, pos_apply};

/* ------------------------------------------------------------ reading */

static tv_status reading_build(tv_comp *c, const void **cfg, tv_error *err) {
    bool romaji;
    tv_status st = tv_comp_bool(c, "use_romaji", false, &romaji, err);
    if (st) return st;
    if (romaji)
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "kuromoji_readingform [use_romaji] is not supported");
    *cfg = NULL;
    return TROVE_OK;
}

static tv_status reading_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a, (void)cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        const tv_ja_morph *m = tv_ja_morph_of(v, t);
        if (!m || !m->reading) continue;
        t->term = m->reading;
        t->term_len = (uint32_t)strlen(m->reading);
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_kuromoji_reading = {"kuromoji_readingform", reading_build,
                                               reading_apply};

/* ------------------------------------------------------------ stemmer */

typedef struct stem_cfg {
    uint32_t min;
} stem_cfg;

static const stem_cfg stem_default = {4};

static tv_status stem_build(tv_comp *c, const void **cfg, tv_error *err) {
    int64_t m;
    tv_status st = tv_comp_int(c, "minimum_length", 4, &m, err);
    if (st) return st;
    if (m < 1) return tv_error_set(err, TROVE_EARG, "minimumLength must be >=1");
    stem_cfg *s = tv_comp_alloc(c, sizeof *s);
    if (!s) return TROVE_ENOMEM;
    s->min = (uint32_t)(m > UINT32_MAX ? UINT32_MAX : m);
    *cfg = s;
    return TROVE_OK;
}

static tv_status stem_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    const stem_cfg *s = cfg ? cfg : &stem_default;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        if (t->flags & TV_TOKF_KEYWORD) continue;
        /* every char in the Katakana block (all 3-byte UTF-8: E3 82 A0 .. E3 83 BF) */
        const uint8_t *p = (const uint8_t *)t->term;
        size_t n = t->term_len;
        if (n % 3 || n / 3 < s->min) continue;
        bool kata = true;
        for (size_t j = 0; j < n && kata; j += 3) {
            uint32_t cp = ((uint32_t)(p[j] & 0x0F) << 12) | ((uint32_t)(p[j + 1] & 0x3F) << 6) |
                          (p[j + 2] & 0x3F);
            kata = (p[j] & 0xF0) == 0xE0 && tv_ja_katakana_block(cp);
        }
        /* U+30FC KATAKANA-HIRAGANA PROLONGED SOUND MARK = E3 83 BC */
        if (kata && p[n - 3] == 0xE3 && p[n - 2] == 0x83 && p[n - 1] == 0xBC) t->term_len -= 3;
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_kuromoji_stemmer = {"kuromoji_stemmer", stem_build, stem_apply};

/* ------------------------------------------------------------ ja_stop */

typedef struct jstop_cfg {
    const tv_termset *set;
} jstop_cfg;

const tv_termset *tv_ja_stopwords(void) { return tv_resource_words("ja/stopwords.txt", false); }

static tv_status jstop_build(tv_comp *c, const void **cfg, tv_error *err) {
    bool ic, trailing;
    tv_status st = tv_comp_bool(c, "ignore_case", false, &ic, err);
    if (st) return st;
    st = tv_comp_bool(c, "remove_trailing", true, &trailing, err);
    if (st) return st;
    if (!trailing)
        return tv_error_set(err, TROVE_EUNSUPPORTED, "ja_stop [remove_trailing: false] is not supported");
    jstop_cfg *j = tv_comp_alloc(c, sizeof *j);
    if (!j) return TROVE_ENOMEM;
    st = tv_comp_words(c, "stopwords", tv_ja_stopwords(), ic, &j->set, err);
    if (st) return st;
    *cfg = j;
    return TROVE_OK;
}

static bool jstop_keep(const void *cfg, const tv_tokvec *v, const tv_token *t) {
    (void)v;
    const tv_termset *s = cfg;
    return !s || !tv_termset_has(s, t->term, t->term_len);
}

static tv_status jstop_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    const jstop_cfg *j = cfg;
    filter_tokens(v, jstop_keep, j ? j->set : tv_ja_stopwords());
    return TROVE_OK;
}

const tv_filter_type tv_tf_ja_stop = {"ja_stop", jstop_build, jstop_apply};
