/*
 * catalog.c — every analysis component type trove knows beyond the core
 * kinds of tokenizers.c and filters.c, by OpenSearch name: tokenizers,
 * token filters, char filters, analyzers and named word sets, plus the
 * names OpenSearch has that trove does not implement (those answer 400
 * unsupported_operation_exception naming themselves, never "unknown").
 *
 * Adding a component: write it in its own file (tok_*.c, tf_*.c, cf_*.c,
 * lang_*.c), declare its type object below, list it in its table, and take
 * its name out of the unsupported list. Lookups are linear over a few
 * dozen names, done when an index's settings are parsed, never per
 * document; rejected: a hash (nothing to gain) and self-registration from
 * constructors (order and linking become invisible).
 */
#include "text/lang_int.h"

/* ----------------------------------------------------------- the types */

extern const tv_charfilter_type tv_cf_mapping;
extern const tv_filter_type tv_tf_reverse;
#ifdef TROVE_HAVE_ICU
extern const tv_filter_type tv_tf_icu_normalizer, tv_tf_icu_transform;
extern const tv_charfilter_type tv_cf_icu_normalizer;
#define ICU_FILTERS &tv_tf_icu_normalizer, &tv_tf_icu_transform,
#define ICU_CHARFILTERS &tv_cf_icu_normalizer,
#else
#define ICU_FILTERS
#define ICU_CHARFILTERS
#endif
/* lang_*.c */
extern const tv_filter_type tv_tf_cjk_width, tv_tf_cjk_bigram, tv_tf_arabic_normalization,
    tv_tf_arabic_stem, tv_tf_persian_normalization, tv_tf_persian_stem,
    tv_tf_sorani_normalization, tv_tf_indic_normalization, tv_tf_hindi_normalization,
    tv_tf_bengali_normalization, tv_tf_russian_stem, tv_tf_czech_stem;
extern const tv_analyzer_type tv_an_cjk, tv_an_arabic, tv_an_persian, tv_an_sorani, tv_an_hindi,
    tv_an_bengali, tv_an_russian, tv_an_bulgarian, tv_an_czech, tv_an_armenian, tv_an_greek,
    tv_an_indonesian;

/* tok_thai.c's tv_tok_thai and tv_an_thai are not listed: ICU's Thai
 * dictionary splits words differently from the JDK's that OpenSearch uses
 * (27 of 100 corpus sentences agree), so `thai` answers 400 instead. */
static const tv_tokenizer_type *const tokenizers[] = {
    NULL,
};
static const tv_filter_type *const filters[] = {
    &tv_tf_reverse,
    ICU_FILTERS
    &tv_tf_cjk_width,
    &tv_tf_cjk_bigram,
    &tv_tf_decimal_digit,
    &tv_tf_arabic_normalization,
    &tv_tf_arabic_stem,
    &tv_tf_persian_normalization,
    &tv_tf_persian_stem,
    &tv_tf_sorani_normalization,
    &tv_tf_indic_normalization,
    &tv_tf_hindi_normalization,
    &tv_tf_bengali_normalization,
    &tv_tf_russian_stem,
    &tv_tf_czech_stem,
};
static const tv_charfilter_type *const charfilters[] = {
    &tv_cf_mapping,
    ICU_CHARFILTERS
};
static const tv_analyzer_type *const analyzers[] = {
    &tv_an_cjk,     &tv_an_arabic,   &tv_an_persian,  &tv_an_sorani,     &tv_an_hindi,
    &tv_an_bengali, &tv_an_russian,  &tv_an_bulgarian, &tv_an_czech,     &tv_an_armenian,
    &tv_an_greek,   &tv_an_indonesian,
};

/* Named word sets for stopwords / stem_exclusion / articles settings. */
static const struct {
    const char *name;
    const tv_termset *(*get)(void);
} word_sets[] = {
    {"_english_", tv_stop_english},
    {"_arabic_", tv_words_arabic},
    {"_armenian_", tv_words_armenian},
    {"_bulgarian_", tv_words_bulgarian},
    {"_cjk_", tv_words_cjk},
    {"_czech_", tv_words_czech},
    {"_greek_", tv_words_greek},
    {"_hindi_", tv_words_hindi},
    {"_indonesian_", tv_words_indonesian},
    {"_persian_", tv_words_persian},
    {"_russian_", tv_words_russian},
    {"_sorani_", tv_words_sorani},
    {"_thai_", tv_words_thai},
};

/* ----------------------------------------- what OpenSearch has, trove not */

static const char *const unsupported_tokenizers[] = {
    "ngram", "edge_ngram", "nGram", "edgeNGram", "pattern", "simple_pattern",
    "simple_pattern_split", "char_group", "classic", "uax_url_email", "path_hierarchy",
    "PathHierarchy", "thai", "icu_tokenizer", "kuromoji_tokenizer", "nori_tokenizer",
    "smartcn_tokenizer"};
static const char *const unsupported_filters[] = {
    "ngram", "edge_ngram", "nGram", "edgeNGram", "shingle", "synonym", "synonym_graph",
    "word_delimiter", "word_delimiter_graph", "keyword_marker", "keyword_repeat", "kstem",
    "stemmer_override", "elision", "truncate", "unique", "pattern_capture", "pattern_replace",
    "limit", "hunspell", "common_grams",
    "fingerprint", "min_hash", "delimited_payload", "keep", "keep_types", "classic",
    "apostrophe", "phonetic", "dictionary_decompounder", "hyphenation_decompounder",
    "multiplexer", "condition", "predicate_token_filter", "remove_duplicates", "flatten_graph",
    "german_normalization",
    "scandinavian_normalization", "scandinavian_folding",
    "serbian_normalization", "brazilian_stem",
    "dutch_stem", "french_stem", "german_stem",
    "icu_folding", "icu_normalizer", "icu_collation", "icu_transform", "delimited_term_freq",
    "kuromoji_baseform", "kuromoji_part_of_speech", "kuromoji_readingform", "kuromoji_stemmer",
    "ja_stop", "kuromoji_number",
    "irish_lowercase", "turkish_lowercase", "porter2"};
static const char *const unsupported_charfilters[] = {
    "html_strip", "pattern_replace", "icu_normalizer", "kuromoji_iteration_mark"};
static const char *const unsupported_analyzers[] = {
    "pattern", "fingerprint", "basque", "brazilian",
    "catalan", "danish", "dutch", "estonian", "finnish", "french",
    "galician", "german", "hungarian", "irish", "italian",
    "latvian", "lithuanian", "norwegian", "portuguese", "romanian",
    "spanish", "swedish", "turkish", "thai", "snowball", "classic", "kuromoji",
    "icu_analyzer", "smartcn", "nori"};

/* ------------------------------------------------------------- lookups */

#define FIND(table, name, len)                                                    \
    do {                                                                          \
        for (size_t i_ = 0; i_ < TV_ARRAY_LEN(table); i_++)                       \
            if ((table)[i_] && tv_streq((name), (len), (table)[i_]->name)) return (table)[i_]; \
        return NULL;                                                              \
    } while (0)

const tv_tokenizer_type *tv_catalog_tokenizer(const char *name, size_t len) {
    FIND(tokenizers, name, len);
}
const tv_filter_type *tv_catalog_filter(const char *name, size_t len) { FIND(filters, name, len); }
const tv_charfilter_type *tv_catalog_charfilter(const char *name, size_t len) {
    FIND(charfilters, name, len);
}
const tv_analyzer_type *tv_catalog_analyzer(const char *name, size_t len) {
    FIND(analyzers, name, len);
}

const tv_termset *tv_catalog_words(const char *name, size_t len) {
    for (size_t i = 0; i < TV_ARRAY_LEN(word_sets); i++)
        if (tv_streq(name, len, word_sets[i].name)) return word_sets[i].get();
    return NULL;
}

static bool in_list(const char *const *l, size_t n, const char *s, size_t len) {
    for (size_t i = 0; i < n; i++)
        if (tv_streq(s, len, l[i])) return true;
    return false;
}

bool tv_catalog_unsupported(const char *kind, const char *name, size_t len) {
    switch (kind[0]) {
    case 't': return in_list(unsupported_tokenizers, TV_ARRAY_LEN(unsupported_tokenizers), name, len);
    case 'f': return in_list(unsupported_filters, TV_ARRAY_LEN(unsupported_filters), name, len);
    case 'c':
        return in_list(unsupported_charfilters, TV_ARRAY_LEN(unsupported_charfilters), name, len);
    default: return in_list(unsupported_analyzers, TV_ARRAY_LEN(unsupported_analyzers), name, len);
    }
}

bool tv_analyzer_unsupported(const char *name, size_t len) {
    return !tv_catalog_analyzer(name, len) && tv_catalog_unsupported("analyzer", name, len);
}
