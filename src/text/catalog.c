/*
 * catalog.c — every analysis component type trove knows beyond the core
 * kinds of tokenizers.c and filters.c, by OpenSearch name: tokenizers,
 * token filters, char filters, analyzers and named word sets, plus the
 * names OpenSearch has that trove does not implement (those answer 400
 * unsupported_operation_exception naming themselves, never "unknown").
 *
 * Adding a component: write it in its own file (tok_*.c, tf_*.c, cf_*.c,
 * lang_*.c), declare its type object below and list it in its table. Lookups are linear over a few
 * dozen names, done when an index's settings are parsed, never per
 * document; rejected: a hash (nothing to gain) and self-registration from
 * constructors (order and linking become invisible).
 */
#include "text/lang_int.h"

/* ----------------------------------------------------------- the types */

extern const tv_charfilter_type tv_cf_mapping;
extern const tv_filter_type tv_tf_reverse;
extern const tv_filter_type tv_tf_serbian_normalization;
#ifdef TROVE_HAVE_ICU
extern const tv_filter_type tv_tf_icu_normalizer, tv_tf_icu_transform;
extern const tv_charfilter_type tv_cf_icu_normalizer;
extern const tv_tokenizer_type tv_tok_icu;
extern const tv_filter_type tv_tf_icu_collation;
#define ICU_TOKENIZERS &tv_tok_icu,
#ifdef TROVE_HAVE_UTR30 /* the folding data was rebuilt (layer.cmake) */
extern const tv_filter_type tv_tf_icu_folding;
extern const tv_analyzer_type tv_an_icu;
#define ICU_FILTERS &tv_tf_icu_normalizer, &tv_tf_icu_transform, &tv_tf_icu_collation, \
    &tv_tf_icu_folding,
#define ICU_ANALYZERS &tv_an_icu,
#else
#define ICU_FILTERS &tv_tf_icu_normalizer, &tv_tf_icu_transform, &tv_tf_icu_collation,
#define ICU_ANALYZERS
#endif
#define ICU_CHARFILTERS &tv_cf_icu_normalizer,
#else
#define ICU_TOKENIZERS
#define ICU_ANALYZERS
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
    tv_an_indonesian, tv_an_chinese;
/* lang_eu.c */
extern const tv_filter_type tv_tf_elision, tv_tf_apostrophe, tv_tf_german_normalization,
    tv_tf_scandinavian_normalization, tv_tf_scandinavian_folding, tv_tf_german_stem,
    tv_tf_french_stem, tv_tf_dutch_stem, tv_tf_brazilian_stem;
extern const tv_analyzer_type tv_an_french, tv_an_german, tv_an_spanish, tv_an_italian,
    tv_an_portuguese, tv_an_brazilian, tv_an_galician, tv_an_catalan, tv_an_dutch, tv_an_danish,
    tv_an_norwegian, tv_an_swedish, tv_an_finnish, tv_an_hungarian, tv_an_estonian, tv_an_irish, tv_an_basque,
    tv_an_romanian, tv_an_lithuanian, tv_an_latvian, tv_an_turkish, tv_an_snowball;
#define STOPSET(id) const tv_termset *tv_stop_##id(void);
STOPSET(french) STOPSET(german) STOPSET(spanish) STOPSET(italian) STOPSET(portuguese)
STOPSET(dutch) STOPSET(danish) STOPSET(norwegian) STOPSET(swedish) STOPSET(finnish)
STOPSET(hungarian) STOPSET(brazilian) STOPSET(catalan) STOPSET(galician) STOPSET(basque)
STOPSET(irish) STOPSET(romanian) STOPSET(latvian) STOPSET(turkish) STOPSET(estonian)
STOPSET(lithuanian)
#undef STOPSET
extern const tv_tokenizer_type tv_tok_ngram, tv_tok_ngram_old, tv_tok_edge_ngram,
    tv_tok_edge_ngram_old, tv_tok_pattern, tv_tok_char_group, tv_tok_path_hierarchy,
    tv_tok_path_hierarchy_old, tv_tok_simple_pattern, tv_tok_simple_pattern_split;
extern const tv_tokenizer_type tv_tok_classic, tv_tok_uax_url_email;
extern const tv_charfilter_type tv_cf_pattern_replace, tv_cf_html_strip;
extern const tv_analyzer_type tv_an_pattern, tv_an_fingerprint;
extern const tv_filter_type tv_tf_ngram;
extern const tv_filter_type tv_tf_edge_ngram;
extern const tv_filter_type tv_tf_ngram_old;
extern const tv_filter_type tv_tf_edge_ngram_old;
extern const tv_filter_type tv_tf_truncate;
extern const tv_filter_type tv_tf_limit;
extern const tv_filter_type tv_tf_unique;
extern const tv_filter_type tv_tf_remove_duplicates;
extern const tv_filter_type tv_tf_keyword_marker;
extern const tv_filter_type tv_tf_keyword_repeat;
extern const tv_filter_type tv_tf_stemmer_override;
extern const tv_filter_type tv_tf_kstem;
extern const tv_filter_type tv_tf_pattern_replace;
extern const tv_filter_type tv_tf_pattern_capture;
extern const tv_filter_type tv_tf_keep;
extern const tv_filter_type tv_tf_keep_types;
extern const tv_filter_type tv_tf_decimal_digit;
extern const tv_filter_type tv_tf_elision;
extern const tv_filter_type tv_tf_apostrophe;
extern const tv_filter_type tv_tf_classic;
extern const tv_filter_type tv_tf_fingerprint;
extern const tv_filter_type tv_tf_common_grams;
extern const tv_filter_type tv_tf_min_hash;
extern const tv_filter_type tv_tf_multiplexer;
extern const tv_filter_type tv_tf_condition;
extern const tv_filter_type tv_tf_predicate;
extern const tv_filter_type tv_tf_delimited_payload;
extern const tv_filter_type tv_tf_delimited_term_freq;
extern const tv_filter_type tv_tf_hunspell;
extern const tv_filter_type tv_tf_synonym;
extern const tv_filter_type tv_tf_synonym_graph;
extern const tv_filter_type tv_tf_shingle, tv_tf_word_delimiter, tv_tf_word_delimiter_graph,
    tv_tf_flatten_graph;

/* tok_thai.c's tv_tok_thai and tv_an_thai are not listed: ICU's Thai
 * dictionary splits words differently from the JDK's that OpenSearch uses
 * (27 of 100 corpus sentences agree), so `thai` answers 400 instead. */
#ifdef TROVE_HAVE_MECAB
extern const tv_tokenizer_type tv_tok_kuromoji;
extern const tv_filter_type tv_tf_kuromoji_baseform, tv_tf_kuromoji_pos, tv_tf_kuromoji_reading,
    tv_tf_kuromoji_stemmer, tv_tf_ja_stop, tv_tf_kuromoji_number;
extern const tv_analyzer_type tv_lang_kuromoji;
extern const tv_charfilter_type tv_cf_kuromoji_iteration_mark;
const tv_termset *tv_ja_stopwords(void);
#define JA_TOKENIZERS &tv_tok_kuromoji,
#define JA_FILTERS &tv_tf_kuromoji_baseform, &tv_tf_kuromoji_pos, &tv_tf_kuromoji_reading, \
    &tv_tf_kuromoji_stemmer, &tv_tf_ja_stop, &tv_tf_kuromoji_number,
#define JA_CHARFILTERS &tv_cf_kuromoji_iteration_mark,
#define JA_ANALYZERS &tv_lang_kuromoji,
#define JA_WORDS {"_japanese_", tv_ja_stopwords},
#else
#define JA_TOKENIZERS
#define JA_FILTERS
#define JA_CHARFILTERS
#define JA_ANALYZERS
#define JA_WORDS
#endif
static const tv_tokenizer_type *const tokenizers[] = {
    JA_TOKENIZERS
    ICU_TOKENIZERS
    &tv_tok_ngram, &tv_tok_ngram_old, &tv_tok_edge_ngram, &tv_tok_edge_ngram_old,
    &tv_tok_pattern, &tv_tok_char_group, &tv_tok_path_hierarchy, &tv_tok_path_hierarchy_old,
    &tv_tok_simple_pattern, &tv_tok_simple_pattern_split,
    &tv_tok_classic, &tv_tok_uax_url_email,
};
static const tv_filter_type *const filters[] = {
    &tv_tf_reverse,
    JA_FILTERS
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
    &tv_tf_serbian_normalization,
    &tv_tf_russian_stem,
    &tv_tf_czech_stem,
    &tv_tf_elision,
    &tv_tf_apostrophe,
    &tv_tf_german_normalization,
    &tv_tf_scandinavian_normalization,
    &tv_tf_scandinavian_folding,
    &tv_tf_german_stem,
    &tv_tf_french_stem,
    &tv_tf_dutch_stem,
    &tv_tf_brazilian_stem,
    &tv_tf_ngram,
    &tv_tf_edge_ngram,
    &tv_tf_ngram_old,
    &tv_tf_edge_ngram_old,
    &tv_tf_truncate,
    &tv_tf_limit,
    &tv_tf_unique,
    &tv_tf_remove_duplicates,
    &tv_tf_keyword_marker,
    &tv_tf_keyword_repeat,
    &tv_tf_stemmer_override,
    &tv_tf_kstem,
    &tv_tf_pattern_replace,
    &tv_tf_pattern_capture,
    &tv_tf_keep,
    &tv_tf_keep_types,
    &tv_tf_classic,
    &tv_tf_fingerprint,
    &tv_tf_common_grams,
    &tv_tf_min_hash,
    &tv_tf_multiplexer,
    &tv_tf_condition,
    &tv_tf_predicate,
    &tv_tf_delimited_payload,
    &tv_tf_delimited_term_freq,
    &tv_tf_hunspell,
    &tv_tf_synonym,
    &tv_tf_synonym_graph,
    &tv_tf_shingle,
    &tv_tf_word_delimiter,
    &tv_tf_word_delimiter_graph,
    &tv_tf_flatten_graph,
};
static const tv_charfilter_type *const charfilters[] = {
    &tv_cf_mapping,
    JA_CHARFILTERS
    ICU_CHARFILTERS
    &tv_cf_pattern_replace,
    &tv_cf_html_strip,
};
static const tv_analyzer_type *const analyzers[] = {
    JA_ANALYZERS
    ICU_ANALYZERS
    &tv_an_cjk,     &tv_an_arabic,   &tv_an_persian,  &tv_an_sorani,     &tv_an_hindi,
    &tv_an_bengali, &tv_an_russian,  &tv_an_bulgarian, &tv_an_czech,     &tv_an_armenian,
    &tv_an_greek,   &tv_an_indonesian, &tv_an_chinese,
    &tv_an_french, &tv_an_german, &tv_an_spanish, &tv_an_italian, &tv_an_portuguese,
    &tv_an_brazilian, &tv_an_galician, &tv_an_catalan, &tv_an_dutch, &tv_an_danish,
    &tv_an_norwegian, &tv_an_swedish, &tv_an_finnish, &tv_an_hungarian, &tv_an_estonian,
    &tv_an_irish, &tv_an_basque, &tv_an_romanian, &tv_an_lithuanian, &tv_an_latvian, &tv_an_turkish,
    &tv_an_snowball,
    &tv_an_pattern, &tv_an_fingerprint,
};

/* The analysis-kuromoji plugin's names: built with MeCab they are types
 * above, but answer unsupported when the dictionary is missing or
 * `trove serve --no-ja` switched them off (the check is the lookups'). */
static const char *const ja_names[] = {
    "kuromoji_tokenizer", "kuromoji", "kuromoji_baseform", "kuromoji_part_of_speech",
    "kuromoji_readingform", "kuromoji_stemmer", "ja_stop", "kuromoji_number",
    "kuromoji_iteration_mark", "kuromoji_completion"};

/* Named word sets for stopwords / stem_exclusion / articles settings. */
static const struct {
    const char *name;
    const tv_termset *(*get)(void);
} word_sets[] = {
    {"_english_", tv_stop_english},
    JA_WORDS
    {"_arabic_", tv_words_arabic},
    {"_armenian_", tv_words_armenian},
    {"_bengali_", tv_words_bengali},
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
    {"_basque_", tv_stop_basque},
    {"_brazilian_", tv_stop_brazilian},
    {"_catalan_", tv_stop_catalan},
    {"_danish_", tv_stop_danish},
    {"_dutch_", tv_stop_dutch},
    {"_estonian_", tv_stop_estonian},
    {"_finnish_", tv_stop_finnish},
    {"_french_", tv_stop_french},
    {"_galician_", tv_stop_galician},
    {"_german_", tv_stop_german},
    {"_hungarian_", tv_stop_hungarian},
    {"_irish_", tv_stop_irish},
    {"_italian_", tv_stop_italian},
    {"_latvian_", tv_stop_latvian},
    {"_lithuanian_", tv_stop_lithuanian},
    {"_norwegian_", tv_stop_norwegian},
    {"_portuguese_", tv_stop_portuguese},
    {"_romanian_", tv_stop_romanian},
    {"_spanish_", tv_stop_spanish},
    {"_swedish_", tv_stop_swedish},
    {"_turkish_", tv_stop_turkish},
};

/* ------------------------------------------ every name OpenSearch has */

/* The tokenizers, filters, char filters and analyzers of OpenSearch 3.x
 * and its analysis plugins. A name here that no table above lists answers
 * unsupported_operation_exception naming itself; listing a type above is
 * all it takes to support it (these lists need no edit). */
static const char *const os_tokenizers[] = {
    "ngram", "edge_ngram", "nGram", "edgeNGram", "pattern", "simple_pattern",
    "simple_pattern_split", "char_group", "classic", "uax_url_email", "path_hierarchy",
    "PathHierarchy", "thai", "icu_tokenizer", "kuromoji_tokenizer", "nori_tokenizer",
    "smartcn_tokenizer"};
static const char *const os_filters[] = {
    "ngram", "edge_ngram", "nGram", "edgeNGram", "shingle", "synonym", "synonym_graph",
    "word_delimiter", "word_delimiter_graph", "keyword_marker", "keyword_repeat", "kstem",
    "stemmer_override", "elision", "truncate", "unique", "pattern_capture", "pattern_replace",
    "limit", "hunspell", "common_grams", "cjk_width", "cjk_bigram", "decimal_digit",
    "fingerprint", "min_hash", "delimited_payload", "delimited_termfreq", "keep", "keep_types",
    "classic", "apostrophe", "phonetic", "dictionary_decompounder", "hyphenation_decompounder",
    "multiplexer", "condition", "predicate_token_filter", "remove_duplicates", "flatten_graph",
    "concatenate_graph",
    "arabic_normalization", "german_normalization", "hindi_normalization", "indic_normalization",
    "bengali_normalization", "persian_normalization", "scandinavian_normalization",
    "scandinavian_folding", "serbian_normalization", "sorani_normalization", "arabic_stem",
    "brazilian_stem", "czech_stem", "dutch_stem", "french_stem", "german_stem", "russian_stem",
    "persian_stem", "icu_folding", "icu_normalizer", "icu_collation", "icu_transform",
    "kuromoji_baseform", "kuromoji_part_of_speech", "kuromoji_readingform", "kuromoji_stemmer",
    "ja_stop", "kuromoji_number", "kuromoji_completion", "nori_part_of_speech",
    "nori_readingform", "nori_number", "smartcn_stop", "stempel", "polish_stop"};
static const char *const os_charfilters[] = {
    "html_strip", "pattern_replace", "mapping", "icu_normalizer", "kuromoji_iteration_mark"};
static const char *const os_analyzers[] = {
    "pattern", "fingerprint", "snowball", "arabic", "armenian", "basque", "bengali", "brazilian",
    "bulgarian", "catalan", "chinese", "cjk", "czech", "danish", "dutch", "english", "estonian", "finnish",
    "french", "galician", "german", "greek", "hindi", "hungarian", "indonesian", "irish",
    "italian", "latvian", "lithuanian", "norwegian", "persian", "portuguese", "romanian",
    "russian", "serbian", "sorani", "spanish", "swedish", "turkish", "thai", "kuromoji",
    "kuromoji_completion", "icu_analyzer", "smartcn", "nori", "polish"};

/* Types that work on whole values, so normalizers may use them
 * (OpenSearch's NormalizingTokenFilterFactory / NormalizingCharFilterFactory
 * implementations in analysis-common and the analysis plugins). */
static const char *const normalizing_filters[] = {
    "lowercase", "uppercase", "asciifolding", "trim", "elision", "cjk_width", "decimal_digit",
    "arabic_normalization", "bengali_normalization", "german_normalization",
    "hindi_normalization", "indic_normalization", "persian_normalization",
    "scandinavian_folding", "scandinavian_normalization", "serbian_normalization",
    "sorani_normalization", "icu_folding", "icu_normalizer", "icu_transform"};
static const char *const normalizing_charfilters[] = {"mapping", "pattern_replace",
                                                      "icu_normalizer"};

/* ------------------------------------------------------------- lookups */

static bool in_list(const char *const *l, size_t n, const char *s, size_t len);
/* A kuromoji name while the Japanese dictionary is unavailable. */
static bool ja_off(const char *name, size_t len) {
    return in_list(ja_names, TV_ARRAY_LEN(ja_names), name, len) && !tv_ja_available();
}

#define FIND(table, name, len)                                                    \
    do {                                                                          \
        if (ja_off((name), (len))) return NULL;                                   \
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
extern const tv_analyzer_type tv_an_cjk;
const tv_analyzer_type *tv_catalog_analyzer(const char *name, size_t len) {
    /* without Japanese analysis (no dictionary, or --no-ja) the kuromoji
     * analyzer falls back to the cjk analyzer's bigrams, as osmem does */
    if (tv_streq(name, len, "kuromoji") && ja_off(name, len)) return &tv_an_cjk;
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
    if (ja_off(name, len)) return true;
    switch (kind[0]) {
    case 't': return in_list(os_tokenizers, TV_ARRAY_LEN(os_tokenizers), name, len);
    case 'f': return in_list(os_filters, TV_ARRAY_LEN(os_filters), name, len);
    case 'c': return in_list(os_charfilters, TV_ARRAY_LEN(os_charfilters), name, len);
    default: return in_list(os_analyzers, TV_ARRAY_LEN(os_analyzers), name, len);
    }
}

bool tv_analyzer_unsupported(const char *name, size_t len) {
    if (tv_catalog_analyzer(name, len)) return !tv_analyzer_builtin(name, len); /* its data is missing */
    return tv_catalog_unsupported("analyzer", name, len);
}

bool tv_catalog_normalizing(const char *kind, const char *type, size_t len) {
    if (kind[0] == 'f')
        return in_list(normalizing_filters, TV_ARRAY_LEN(normalizing_filters), type, len);
    return in_list(normalizing_charfilters, TV_ARRAY_LEN(normalizing_charfilters), type, len);
}

size_t tv_analysis_plugins(tv_analysis_plugin *out) {
    size_t n = 0;
#ifdef TROVE_HAVE_ICU
    out[n++] = (tv_analysis_plugin){
        "analysis-icu",
        "The ICU Analysis plugin integrates the Lucene ICU module into OpenSearch, adding ICU-related "
        "analysis components.",
        "org.opensearch.plugin.analysis.icu.AnalysisICUPlugin"};
#endif
    if (tv_ja_available())
        out[n++] = (tv_analysis_plugin){
            "analysis-kuromoji",
            "The Japanese (kuromoji) Analysis plugin integrates Lucene kuromoji analysis module into "
            "opensearch.",
            "org.opensearch.plugin.analysis.kuromoji.AnalysisKuromojiPlugin"};
    return n;
}
