/*
 * lang_eu.h — what the European language files of src/text share
 * (lang_eu.c, lang_romance.c, lang_germanic.c, lang_nordic.c,
 * lang_uralic.c, lang_baltic.c): stemmers and normalizers written over a
 * term's UTF-16 code units, as Lucene's light/minimal stemmers are, so
 * their length conditions count what Lucene counts.
 */
#ifndef TROVE_TEXT_LANG_EU_H
#define TROVE_TEXT_LANG_EU_H

#include "text/text_int.h"

/* A stemmer over s[0..len): rewrites it in place and returns the new
 * length. s has room for 2 * len + TV_STEM16_SLACK units (a rule may
 * lengthen the term: ß -> ss, RSLP replacements). */
#define TV_STEM16_SLACK 32
typedef int (*tv_stem16_fn)(uint16_t *s, int len);

typedef struct tv_stem16 {
    const char *name;
    tv_stem16_fn stem;
    bool normalizer; /* applies to keyword-marked tokens too (not a stemmer) */
} tv_stem16;

/* The filter that runs a tv_stem16 (cfg: const tv_stem16 *). */
extern const tv_filter_type tv_tf_stem16;
static inline tv_filter_def tv_stem16_def(const tv_stem16 *s) {
    tv_filter_def d;
    memset(&d, 0, sizeof d);
    d.kind = TV_TF_EXT;
    d.ext = &tv_tf_stem16;
    d.cfg = s;
    return d;
}

/* Whether s[0..len) ends with the ASCII/Latin-1 literal suf (UTF-8 in the
 * source: each code point below U+0800 is one unit). Inline, comparing from
 * the suffix's last code point back (decoded in place, no copy): the rule
 * sets call it with literals dozens of times a word (docs/performance.md). */
static inline bool tv_s16_ends(const uint16_t *s, int len, const char *suf) {
    const uint8_t *b = (const uint8_t *)suf, *p = b;
    while (*p) p++;
    int k = len;
    while (p > b) {
        uint8_t c = *--p;
        uint32_t cp = c, shift = 0;
        if (c >= 0x80) { /* continuation bytes back to the lead byte */
            cp = 0;
            while ((c & 0xC0) == 0x80 && p > b) {
                cp |= (uint32_t)(c & 0x3F) << shift;
                shift += 6;
                c = *--p;
            }
            cp |= (uint32_t)(c & (shift == 6 ? 0x1F : 0x0F)) << shift;
        }
        if (k == 0 || s[--k] != (uint16_t)cp) return false;
    }
    return true;
}
/* Deletes s[pos]; returns the new length (Lucene's StemmerUtil.delete). */
int tv_s16_delete(uint16_t *s, int pos, int len);
/* Inserts c at pos (room assumed); returns the new length. */
int tv_s16_insert(uint16_t *s, int pos, int len, uint16_t c);

/* lang_romance.c */
extern const tv_stem16 tv_stem_light_french, tv_stem_minimal_french, tv_stem_light_spanish,
    tv_stem_light_italian, tv_stem_light_portuguese, tv_stem_minimal_portuguese,
    tv_stem_portuguese_rslp, tv_stem_galician, tv_stem_minimal_galician, tv_stem_brazilian;
/* lang_germanic.c */
extern const tv_stem16 tv_stem_light_german, tv_stem_minimal_german, tv_stem_german_old,
    tv_norm_german;
/* lang_nordic.c */
extern const tv_stem16 tv_stem_light_swedish, tv_stem_light_norwegian,
    tv_stem_minimal_norwegian, tv_stem_light_nynorsk, tv_stem_minimal_nynorsk,
    tv_norm_scandinavian, tv_fold_scandinavian;
/* lang_uralic.c */
extern const tv_stem16 tv_stem_light_finnish, tv_stem_light_hungarian;
/* lang_baltic.c */
extern const tv_stem16 tv_stem_latvian;

/* The `stemmer` filter's languages of this family (lang_eu.c): fills d for
 * `lang` (matched as OpenSearch does, ignoring case). TROVE_ENOTFOUND when
 * the language is not one of them (err untouched); TROVE_EUNSUPPORTED
 * (err set) for one trove cannot run. */
tv_status tv_lang_eu_stemmer(const char *lang, size_t n, tv_filter_def *d, tv_error *err);
/* The `snowball` filter and analyzer language (OpenSearch capitalizes the
 * first letter; Lucene loads org.tartarus.snowball.ext.<Name>Stemmer):
 * the libstemmer algorithm index, or -1 with err set. */
int tv_lang_snowball(const char *lang, size_t n, tv_error *err);
/* The Snowball stemmer `algo` as a filter (Romanian with Lucene 10's
 * reading of the cedilla letters). */
tv_filter_def tv_lang_snowball_def(int algo);
/* A SetKeywordMarkerFilter over set (stem_exclusion). */
tv_filter_def tv_lang_keyword_def(const tv_termset *set);
/* `lowercase` filter `language`: greek (not here), irish, turkish. */
extern const tv_filter_type tv_tf_irish_lowercase, tv_tf_turkish_lowercase;

#endif /* TROVE_TEXT_LANG_EU_H */
