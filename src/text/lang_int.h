/*
 * lang_int.h — helpers shared by the language files of src/text
 * (lang_*.c, tok_thai.c): running a stemmer or normalizer written as
 * Lucene writes them (over a term's UTF-16 code units, in place, returning
 * the new length), marking stem exclusions, and assembling a language
 * analyzer's chain. Internal to src/text; lang_common.c implements it.
 */
#ifndef TROVE_TEXT_LANG_INT_H
#define TROVE_TEXT_LANG_INT_H

#include <uchar.h>

#include "text/text_int.h"

/* A rule set over UTF-16 units: rewrites s[0..len) in place (it may grow
 * the term up to cap units) and returns the new length. */
typedef int (*tv_u16_rule)(const void *cfg, char16_t *s, int len, int cap);

/* Applies fn to every token's term (tokens marked TV_TOKF_KEYWORD are
 * left alone when skip_keyword), re-encoding changed terms in the arena. */
tv_status tv_lang_u16_apply(tv_arena *a, tv_tokvec *v, bool skip_keyword, tv_u16_rule fn,
                            const void *cfg);

/* Whether s[0..len) ends with / starts with the NUL-terminated UTF-16 string x.
 * Inline: the rule sets call them with literals dozens of times a word, and
 * inlined the literal's length folds away (an out-of-line call measured a
 * third of the Czech analyzer's instructions; docs/performance.md). */
static inline bool tv_u16_ends(const char16_t *s, int len, const char16_t *x) {
    int n = 0;
    while (x[n]) n++;
    if (n > len) return false;
    for (int i = n; i-- > 0;) /* from the last unit: most tests fail there */
        if (s[len - n + i] != x[i]) return false;
    return true;
}
static inline bool tv_u16_starts(const char16_t *s, int len, const char16_t *x) {
    int n = 0;
    while (x[n]) n++;
    if (n > len) return false;
    for (int i = 0; i < n; i++)
        if (s[i] != x[i]) return false;
    return true;
}
/* Deletes s[pos] (StemmerUtil.delete); returns the new length. */
int tv_u16_del(char16_t *s, int pos, int len);
/* Deletes n units at pos (StemmerUtil.deleteN). */
int tv_u16_deln(char16_t *s, int pos, int len, int n);

/* SetKeywordMarkerFilter: marks tokens whose term is in the set. */
extern const tv_filter_type tv_lang_keyword_marker;
/* DecimalDigitFilter: any Unicode decimal digit (Nd) to its ASCII digit. */
extern const tv_filter_type tv_tf_decimal_digit;

/* Appending pieces to a language analyzer's parts. */
void tv_lang_add(tv_analyzer_parts *p, const tv_filter_def *d);
void tv_lang_add_core(tv_analyzer_parts *p, uint8_t kind);
void tv_lang_add_ext(tv_analyzer_parts *p, const tv_filter_type *t, const void *cfg);
void tv_lang_add_snowball(tv_analyzer_parts *p, const char *algo);
/* The standard tokenizer (max_token_length 255). */
void tv_lang_standard(tv_analyzer_parts *p);
/* Reads `stopwords` (default def, the resource's set; NULL def when the
 * language has no list on this system: then `stopwords` must be given,
 * else 400 naming `missing`) and appends a stop filter. */
tv_status tv_lang_stop(tv_comp *c, tv_analyzer_parts *p, const tv_termset *def,
                       const char *missing, tv_error *err);
/* Reads `stem_exclusion` and, when non-empty, appends a keyword marker. */
tv_status tv_lang_exclusion(tv_comp *c, tv_analyzer_parts *p, tv_error *err);

/* The named stop sets of the languages (catalog.c lists them). */
const tv_termset *tv_words_arabic(void);
const tv_termset *tv_words_armenian(void);
const tv_termset *tv_words_bulgarian(void);
const tv_termset *tv_words_cjk(void);
const tv_termset *tv_words_czech(void);
const tv_termset *tv_words_greek(void);
const tv_termset *tv_words_hindi(void);
const tv_termset *tv_words_bengali(void);
const tv_termset *tv_words_indonesian(void);
const tv_termset *tv_words_persian(void);
const tv_termset *tv_words_russian(void);
const tv_termset *tv_words_sorani(void);
const tv_termset *tv_words_thai(void);

#endif /* TROVE_TEXT_LANG_INT_H */
