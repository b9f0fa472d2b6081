/*
 * lang_serbian.c — the `serbian_normalization` token filter (Lucene's
 * SerbianNormalizationFilter, which OpenSearch's
 * SerbianNormalizationFilterFactory builds): Serbian Cyrillic and Latin to
 * "bald" Latin.
 *
 * Each lower-case Serbian Cyrillic letter becomes its Latin transliteration
 * and the Latin letters with diacritics lose them: ђ and đ become "dj",
 * љ "lj", њ "nj", џ "dz"; ћ ч ц ć č become c, ж з ž z, ш š s; the other
 * letters of the Serbian alphabet (а б в г д е и ј к л м н о п р с т у ф х)
 * their one Latin letter. Everything else, upper case included (the filter
 * expects lower-cased input), is left as it is; keyword-marked tokens are
 * not special (Lucene's filter ignores KeywordAttribute).
 *
 * A table indexed by code point (U+0430..U+045F, and a switch for the four
 * Latin letters) gives one or two ASCII bytes; tokens without a byte >= 0xC4
 * are left untouched without a copy. Rejected: a general transliteration
 * table (ICU's Serbian-Latin keeps diacritics, which this filter drops).
 */
#include <string.h>

#include "text/text_int.h"

/* U+0430 .. U+045F: the replacement (one or two ASCII letters), "" for none */
static const char *const cyr[0x30] = {
    /* 0430 */ "a", "b", "v", "g", "d", "e", "z" /* ж */, "z", "i", "",  "k", "l", "m", "n", "o", "p",
    /* 0440 */ "r", "s", "t", "u", "f", "h", "c", "c", "s", "", "", "", "", "", "", "",
    /* 0450 */ "", "", "dj", "", "", "", "", "", "j", "lj", "nj", "c", "", "", "", "dz",
};

/* The replacement of cp, or NULL to keep it. */
static const char *serbian_map(uint32_t cp) {
    if (cp >= 0x430 && cp <= 0x45F) return cyr[cp - 0x430][0] ? cyr[cp - 0x430] : NULL;
    switch (cp) {
    case 0x107: case 0x10D: return "c"; /* ć č */
    case 0x111: return "dj";            /* đ */
    case 0x161: return "s";             /* š */
    case 0x17E: return "z";             /* ž */
    default: return NULL;
    }
}

static tv_status serbian_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        const uint8_t *p = (const uint8_t *)t->term, *e = p + t->term_len;
        bool any = false;
        for (const uint8_t *q = p; q < e && !any; q++) any = *q >= 0xC4 && *q <= 0xD1;
        if (!any) continue;
        /* each letter replaced takes 2 bytes and gives at most 2 */
        char *out = tv_arena_alloc(a, (size_t)t->term_len + 1), *o = out;
        if (!out) return TROVE_ENOMEM;
        while (p < e) {
            uint32_t cp;
            size_t n = tv_utf8_decode(p, e, &cp);
            const char *r = serbian_map(cp);
            if (r) {
                size_t rl = strlen(r);
                memcpy(o, r, rl);
                o += rl;
            } else {
                memcpy(o, p, n);
                o += n;
            }
            p += n;
        }
        *o = 0;
        t->term = out;
        t->term_len = (uint32_t)(o - out);
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_serbian_normalization = {"serbian_normalization", NULL, serbian_apply};
