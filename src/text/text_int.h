/*
 * text_int.h — internals shared by the files of src/text (not a contract
 * for other layers: use text.h).
 *
 * An analysis runs as a pipeline over one growable token array in the
 * caller's arena: the tokenizer fills it, each filter rewrites it in place
 * (or into a new array when it adds tokens), and tv_analyze finally turns
 * position increments into absolute positions. While the pipeline runs,
 * tv_token.position holds the token's *position increment* (Lucene's
 * PositionIncrementAttribute) and `term` may borrow the input text; terms
 * still borrowing the input are copied into the arena at the end.
 */
#ifndef TROVE_TEXT_INT_H
#define TROVE_TEXT_INT_H

#include "text/text.h"
#include "text/unicode.h"

typedef struct tv_tokvec {
    tv_token *items;
    size_t len, cap;
    uint32_t trailing; /* position increments of tokens removed after the last one */
} tv_tokvec;

/* Grows v to hold at least one more token (doubling, in the arena). */
tv_status tv_tokvec_grow(tv_arena *a, tv_tokvec *v);
/* Appends a copy of *t. TROVE_OK or TROVE_ENOMEM. */
static inline tv_status tv_tokvec_push(tv_arena *a, tv_tokvec *v, const tv_token *t) {
    if (TV_UNLIKELY(v->len == v->cap) && tv_tokvec_grow(a, v)) return TROVE_ENOMEM;
    v->items[v->len++] = *t;
    return TROVE_OK;
}

/* Tracks UTF-16 offsets while a tokenizer walks bytes forward. */
typedef struct tv_u16pos {
    const uint8_t *text;
    size_t byte;  /* a byte offset ... */
    uint32_t u16; /* ... and the UTF-16 offset of the same place */
} tv_u16pos;
/* UTF-16 offset of byte offset `b` (b >= the last one asked). */
uint32_t tv_u16_at(tv_u16pos *p, size_t b);

/* ------------------------------------------------------------ tokenizers */

enum tv_tokenizer_kind {
    TV_TK_STANDARD = 0,
    TV_TK_WHITESPACE,
    TV_TK_KEYWORD,
    TV_TK_LETTER,
    TV_TK_LOWERCASE,
};

typedef struct tv_tokenizer_def {
    uint8_t kind;
    uint32_t max_token_length; /* standard, whitespace, letter, lowercase: 255 */
} tv_tokenizer_def;

tv_status tv_tokenize_standard(tv_arena *a, const char *text, size_t len, uint32_t max_len,
                               tv_tokvec *out);
tv_status tv_tokenize_chars(tv_arena *a, const tv_tokenizer_def *def, const char *text,
                            size_t len, tv_tokvec *out);
tv_status tv_tokenize(tv_arena *a, const tv_tokenizer_def *def, const char *text, size_t len,
                      tv_tokvec *out);

/* ---------------------------------------------------------------- filters */

enum tv_filter_kind {
    TV_TF_LOWERCASE = 0,
    TV_TF_UPPERCASE,
    TV_TF_STOP,
    TV_TF_ASCIIFOLDING,
    TV_TF_TRIM,
    TV_TF_LENGTH,
    TV_TF_SNOWBALL,   /* libstemmer algorithm `algo` (also porter_stem, stemmer) */
    TV_TF_POSSESSIVE, /* english_possessive / stemmer possessive_english */
    TV_TF_MINIMAL_EN, /* stemmer minimal_english */
    TV_TF_EDGE_NGRAM, /* EdgeNGramTokenFilter(min, max, preserveOriginal false); only
                         through tv_analyzer_wrap (index_prefixes), not by name */
    TV_TF_SHINGLE2,   /* FixedShingleFilter(2): only through tv_analyzer_wrap
                         (index_phrases), not by name */
    TV_TF_SHINGLE_N,  /* FixedShingleFilter(min, " ", "") with `max` extra
                         trailing positions (search_as_you_type's
                         TrailingShingleTokenFilter): tv_analyzer_wrap only */
};

/* A set of terms (stop words). Immutable once built; shared. */
typedef struct tv_termset {
    const char *const *words; /* sorted by bytes (lower-cased when ignore_case); NUL-terminated */
    const uint32_t *lens;
    size_t n;
    bool ignore_case;
} tv_termset;

/* Builds a set from n words (copied); owned, free with tv_termset_free. NULL on OOM. */
tv_termset *tv_termset_new(const char *const *words, const size_t *lens, size_t n,
                           bool ignore_case);
void tv_termset_free(tv_termset *s);

typedef struct tv_filter_def {
    uint8_t kind;
    bool preserve_original;    /* asciifolding */
    uint32_t min, max;         /* length */
    int algo;                  /* snowball: index into tv_stem_algos */
    const tv_termset *stop;    /* stop: borrowed (static or owned by the registry) */
} tv_filter_def;

tv_status tv_filter_apply(tv_arena *a, const tv_filter_def *f, tv_tokvec *v);

/* The built-in English stop set (Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET). */
const tv_termset *tv_stop_english(void);
bool tv_termset_has(const tv_termset *s, const char *term, size_t len);

/* libstemmer algorithms we expose, by index. */
extern const char *const tv_stem_algos[];
extern const size_t tv_stem_algo_count;
int tv_stem_algo_find(const char *name, size_t len); /* -1 if unknown */

/* -------------------------------------------------------------- analyzers */

struct tv_analyzer {
    char *name;           /* owned unless is_static */
    bool is_static;       /* built-in: never freed */
    bool is_registry;     /* owned by a tv_analysis: tv_analyzer_free is a no-op */
    tv_tokenizer_def tok;
    size_t nfilters;
    tv_filter_def *filters; /* owned unless is_static */
};

#endif /* TROVE_TEXT_INT_H */
