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
#include "text/text_int.h"

/* ----------------------------------------------------------- the types */

extern const tv_charfilter_type tv_cf_mapping;
extern const tv_filter_type tv_tf_reverse;
extern const tv_filter_type tv_tf_synonym;
extern const tv_filter_type tv_tf_synonym_graph;

static const tv_tokenizer_type *const tokenizers[] = {
    NULL,
};
static const tv_filter_type *const filters[] = {
    &tv_tf_reverse,
    &tv_tf_synonym,
    &tv_tf_synonym_graph,
};
static const tv_charfilter_type *const charfilters[] = {
    &tv_cf_mapping,
};
static const tv_analyzer_type *const analyzers[] = {
    NULL,
};

/* Named word sets for stopwords / stem_exclusion / articles settings. */
static const struct {
    const char *name;
    const tv_termset *(*get)(void);
} word_sets[] = {
    {"_english_", tv_stop_english},
};

/* ----------------------------------------- what OpenSearch has, trove not */

static const char *const unsupported_tokenizers[] = {
    "ngram", "edge_ngram", "nGram", "edgeNGram", "pattern", "simple_pattern",
    "simple_pattern_split", "char_group", "classic", "uax_url_email", "path_hierarchy",
    "PathHierarchy", "thai", "icu_tokenizer", "kuromoji_tokenizer", "nori_tokenizer",
    "smartcn_tokenizer"};
static const char *const unsupported_filters[] = {
    "ngram", "edge_ngram", "nGram", "edgeNGram", "shingle",
    "word_delimiter", "word_delimiter_graph", "keyword_marker", "keyword_repeat", "kstem",
    "stemmer_override", "elision", "truncate", "unique", "pattern_capture", "pattern_replace",
    "limit", "hunspell", "common_grams", "cjk_width", "cjk_bigram", "decimal_digit",
    "fingerprint", "min_hash", "delimited_payload", "keep", "keep_types", "classic",
    "apostrophe", "phonetic", "dictionary_decompounder", "hyphenation_decompounder",
    "multiplexer", "condition", "predicate_token_filter", "remove_duplicates", "flatten_graph",
    "arabic_normalization", "german_normalization", "hindi_normalization", "indic_normalization",
    "persian_normalization", "scandinavian_normalization", "scandinavian_folding",
    "serbian_normalization", "sorani_normalization", "arabic_stem", "brazilian_stem",
    "czech_stem", "dutch_stem", "french_stem", "german_stem", "russian_stem",
    "icu_folding", "icu_normalizer", "icu_collation", "icu_transform", "delimited_term_freq",
    "kuromoji_baseform", "kuromoji_part_of_speech", "kuromoji_readingform", "kuromoji_stemmer",
    "ja_stop", "kuromoji_number", "bengali_normalization", "decimal_digit", "greek_lowercase",
    "irish_lowercase", "turkish_lowercase", "cjk_width", "porter2"};
static const char *const unsupported_charfilters[] = {
    "html_strip", "pattern_replace", "icu_normalizer", "kuromoji_iteration_mark"};
static const char *const unsupported_analyzers[] = {
    "pattern", "fingerprint", "arabic", "armenian", "basque", "bengali", "brazilian",
    "bulgarian", "catalan", "cjk", "czech", "danish", "dutch", "estonian", "finnish", "french",
    "galician", "german", "greek", "hindi", "hungarian", "indonesian", "irish", "italian",
    "latvian", "lithuanian", "norwegian", "persian", "portuguese", "romanian", "russian",
    "sorani", "spanish", "swedish", "turkish", "thai", "snowball", "classic", "kuromoji",
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
