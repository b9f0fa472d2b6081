/*
 * text.h — the text layer: Unicode tables, tokenizers, token filters
 * and analyzers, behaving as Lucene's (as shipped in OpenSearch 3.x).
 *
 * Owns: Java-style case mapping (the UTF-8 codec is util's), Unicode
 * property tables generated at build time from the Unicode Character
 * Database (Debian's unicode-data), the
 * `standard` tokenizer (UAX #29 word boundaries, as Lucene's
 * StandardTokenizer, max token length 255), `whitespace`, `keyword`,
 * `letter` and `lowercase` tokenizers, token filters (`lowercase`,
 * `uppercase`, `stop` with `_english_` and custom lists, `asciifolding`,
 * `trim`, `length`, `stemmer`/`snowball`/`porter_stem` through libstemmer;
 * edge n-grams and shingles only inside the analyzers of the mapping's
 * hidden sub-fields, tv_analyzer_wrap),
 * and analyzers: the built-ins (`standard`, `simple`, `whitespace`,
 * `keyword`, `stop`, `english`) and `custom` analyzers defined in index
 * settings (`index.analysis.analyzer.*`, `.tokenizer.*`, `.filter.*`).
 *
 * Tokens carry a position (Lucene's position, i.e. the sum of position
 * increments minus one, so a removed stop word leaves a gap), byte offsets
 * into the input, and UTF-16 offsets (Lucene's start_offset/end_offset,
 * which _analyze and highlighting report).
 *
 * Files:
 *   utf8.c                Java-style case mapping over UTF-8 and
 *                         the ASCII-folding lookup (the codec is util's)
 *   wordbreak.c           UAX #29 word boundaries, as the annex states
 *                         them (the standard tokenizer does not call it)
 *   standard_tokenizer.c  the `standard` tokenizer (Lucene's
 *                         StandardTokenizer), plus the shared token-array
 *                         and UTF-16 offset helpers
 *   tokenizers.c          the `whitespace`, `letter`, `lowercase` and
 *                         `keyword` tokenizers, and the dispatch over
 *                         tokenizer kinds
 *   filters.c             the core token filters, each as its Lucene
 *                         counterpart
 *   analyzer.c            running an analyzer (tv_analyze: char filters,
 *                         tokenizer, filters, offsets mapped back), the
 *                         built-in analyzers, analyzers composed for
 *                         _analyze, and the per-index registry built from
 *                         the "analysis" settings
 *   component.c           reading one component's settings (tv_comp_*)
 *   catalog.c             the component types beyond the core ones, by
 *                         OpenSearch name, and the names trove lacks
 *   offmap.c              char filters' offset corrections (BaseCharFilter)
 *   resources.c           stop word lists and stemmer rules embedded from
 *                         Debian's Lucene 4.10 jars (gen_resources.py)
 *   cf_mapping.c          the `mapping` char filter
 *   tf_reverse.c          the `reverse` token filter
 *   tf_icu.c              analysis-icu's icu_normalizer (filter and char
 *                         filter) and icu_transform, through libicu
 *   tok_icu.c             analysis-icu's `icu_tokenizer` (script runs,
 *                         ICU word break iterators), through libicu
 *   tf_icu_collation.c    analysis-icu's `icu_collation` filter (ICU
 *                         collation keys as IndexableBinaryStringTools
 *                         strings), through libicu
 *   lang_common.c         what the language files share: UTF-16 rule
 *                         runs, stem_exclusion marking, stop sets,
 *                         `stemmer` language names (lang_int.h)
 *   lang_cjk.c            `cjk_width`, `cjk_bigram`, the `cjk` analyzer
 *   lang_arabic.c         Arabic, Persian and Sorani normalizers, stemmers
 *                         and analyzers
 *   lang_indic.c          `indic_normalization`, Hindi and Bengali
 *                         normalizers, stemmers and analyzers
 *   lang_cyrillic.c       `russian_stem`, the Bulgarian stemmer, the
 *                         `russian` and `bulgarian` analyzers
 *   lang_misc.c           `czech_stem`, the Indonesian stemmer, the
 *                         `czech`, `armenian` and `indonesian` analyzers
 *   tok_thai.c            the `thai` tokenizer (ICU's word breaks) and
 *                         the `thai` analyzer, not listed in the catalog
 *                         (ICU's Thai words are not the JDK's)
 *   lang_greek.c          Greek lower-casing, the Greek stemmer, the
 *                         `greek` analyzer
 *   lang_eu.c             the Latin-script European language analyzers
 *                         (french ... turkish, snowball), elision,
 *                         apostrophe, Irish/Turkish lower-casing, their
 *                         stop sets and the `stemmer` table for them
 *   lang_romance.c        French/Spanish/Italian/Portuguese light and
 *                         minimal stemmers, RSLP (Portuguese, Galician)
 *   lang_germanic.c       German light/minimal stemmers, normalization,
 *                         german_stem
 *   lang_nordic.c         Swedish/Norwegian light and minimal stemmers,
 *                         Scandinavian normalization and folding
 *   lang_uralic.c         Finnish and Hungarian light stemmers
 *   lang_baltic.c         the Latvian stemmer
 *   lang_serbian.c        `serbian_normalization`
 *   tok_ngram.c           the `ngram` and `edge_ngram` tokenizers
 *   tok_pattern.c         the `pattern` tokenizer
 *   tok_char_group.c      the `char_group` tokenizer
 *   tok_simple_pattern.c  the `simple_pattern` and `simple_pattern_split`
 *                         tokenizers (Lucene RegExp run through PCRE2's DFA)
 *   tok_path_hierarchy.c  the `path_hierarchy` tokenizer
 *   tok_classic.c         the `classic` tokenizer (Unicode 3.0 classes from
 *                         gen_classic.py)
 *   tok_uax_url_email.c   the `uax_url_email` tokenizer (the standard
 *                         tokenizer plus URLs and e-mail addresses)
 *   cf_pattern_replace.c  the `pattern_replace` char filter
 *   cf_html_strip.c       the `html_strip` char filter (entities from
 *                         gen_entities.py)
 *   an_pattern.c          the `pattern` analyzer
 *   an_fingerprint.c      the `fingerprint` analyzer
 *   jregex.c              Java regular expressions over PCRE2, the one
 *                         engine of analysis (flags, Java-only syntax,
 *                         find() semantics, replacement strings)
 *   tf_ngram.c            `ngram` and `edge_ngram` token filters
 *   tf_limit.c            `truncate` and `limit`
 *   tf_dedup.c            `unique` and `remove_duplicates`
 *   tf_keyword.c          `keyword_marker`, `keyword_repeat`,
 *                         `stemmer_override`
 *   tf_kstem.c            `kstem` (KStemFilter, its dictionary read out of
 *                         Lucene's classes by gen_resources.py)
 *   tf_snowball_compat.c  Snowball names libstemmer lacks: German2 (its
 *                         prelude, then German), Kp/Lovins (Lucene 10: gone)
 *   tf_pattern.c          `pattern_replace` and `pattern_capture`
 *   tf_keep.c             `keep` and `keep_types`
 *   tf_classic.c          `classic` and `decimal_digit`
 *   tf_fingerprint.c      the `fingerprint` token filter
 *   tf_common_grams.c     `common_grams` (index and query mode)
 *   tf_min_hash.c         `min_hash` (MurmurHash3, as MinHashFilter)
 *   tf_multiplexer.c      `multiplexer`, `condition` and
 *                         `predicate_token_filter` (Painless through
 *                         tv_text_script_hooks)
 *   tf_payload.c          `delimited_payload`, `delimited_termfreq`
 *   tf_hunspell.c         `hunspell` (HunspellStemFilter over .aff/.dic files)
 *   tok_kuromoji.c        the `kuromoji_tokenizer` (Lucene's JapaneseTokenizer:
 *                         kuromoji's Viterbi over MeCab's compiled IPADIC)
 *   tf_kuromoji.c         kuromoji_baseform, kuromoji_part_of_speech,
 *                         kuromoji_readingform, kuromoji_stemmer, ja_stop
 *   cf_kuromoji.c         the `kuromoji_iteration_mark` char filter
 *   lang_ja.c             the `kuromoji` analyzer (JapaneseAnalyzer), its
 *                         CJK width folding, and the `_japanese_` stop set
 *   tf_synonym.c          the `synonym` and `synonym_graph` token filters
 *                         (Solr and WordNet rules, analyzed per analyzer)
 *   tf_shingle.c          the `shingle` token filter (ShingleFilter)
 *   tf_word_delimiter.c   `word_delimiter` and `word_delimiter_graph`
 *   tf_flatten_graph.c    `flatten_graph` (FlattenGraphFilter)
 *   settings_json.c       a small JSON reader that flattens the "analysis"
 *                         settings into dotted keys (text cannot use json)
 *
 * Components beyond the core live one family per file: tok_*.c
 * tokenizers, tf_*.c token filters, cf_*.c char filters, lang_*.c language
 * analyzers and their stemmers and word sets; catalog.c lists them.
 */
#ifndef TROVE_TEXT_H
#define TROVE_TEXT_H

#include "util/util.h"

/* ------------------------------------------------------------------ UTF-8 */

/* Lower-cases as Java's Character.toLowerCase per code point (what Lucene's
 * LowerCaseFilter does), appending to out. */
void tv_utf8_lower(const char *s, size_t n, tv_buf *out);
/* Upper-cases as Java's Character.toUpperCase per code point (Lucene's
 * UpperCaseFilter), appending to out. */
void tv_utf8_upper(const char *s, size_t n, tv_buf *out);

/* ------------------------------------------------------ word boundaries */

/*
 * UAX #29 word boundaries (default rules WB1..WB999, Unicode version of the
 * installed UCD), over UTF-8: returns the byte offset of the first boundary
 * after `pos` (pos < len), i.e. the end of the segment that starts at pos.
 * Segments include spaces and punctuation; the standard tokenizer decides
 * which become tokens. Invalid UTF-8 bytes are single U+FFFD segments.
 */
size_t tv_wb_next(const char *text, size_t len, size_t pos);

/* ----------------------------------------------------------------- tokens */

typedef struct tv_token {
    const char *term;    /* the token's bytes (allocated in the arena given) */
    uint32_t term_len;
    uint32_t position;   /* 0-based absolute position */
    uint32_t start, end; /* byte offsets of the source span in the input */
    uint32_t start16, end16; /* the same span in UTF-16 code units */
    uint8_t type;        /* tv_token_type: <ALPHANUM>, <NUM>, ... */
    uint8_t flags;       /* TV_TOKF_*: Lucene's KeywordAttribute, ... */
    uint16_t pos_len;    /* Lucene's positionLength (0 and 1 both mean 1) */
    uint32_t attr;       /* 1 + index into the tokenizer's per-token side data
                            (tv_tokvec.morph: kuromoji's part of speech, base
                            form, reading); 0: none. Fills what was padding. */
} tv_token;

enum {
    TV_TOKF_KEYWORD = 1, /* keyword_marker & co.: stemmers leave the token alone */
};

typedef enum tv_token_type {
    TV_TOK_WORD = 0,     /* "word" (whitespace/keyword/letter tokenizers) */
    TV_TOK_ALPHANUM,     /* "<ALPHANUM>" */
    TV_TOK_NUM,          /* "<NUM>" */
    TV_TOK_SOUTHEAST_ASIAN, /* "<SOUTHEAST_ASIAN>" */
    TV_TOK_IDEOGRAPHIC,  /* "<IDEOGRAPHIC>" */
    TV_TOK_HIRAGANA,     /* "<HIRAGANA>" */
    TV_TOK_KATAKANA,     /* "<KATAKANA>" */
    TV_TOK_HANGUL,       /* "<HANGUL>" */
    TV_TOK_EMOJI,        /* "<EMOJI>" */
    TV_TOK_SHINGLE,      /* "shingle" (ShingleFilter) */
    TV_TOK_SYNONYM,      /* "SYNONYM" (synonym filters) */
    TV_TOK_DOUBLE,       /* "<DOUBLE>" (cjk_bigram) */
    TV_TOK_SINGLE,       /* "<SINGLE>" (cjk_bigram) */
    TV_TOK_APOSTROPHE,   /* "<APOSTROPHE>" (classic) */
    TV_TOK_ACRONYM,      /* "<ACRONYM>" (classic) */
    TV_TOK_COMPANY,      /* "<COMPANY>" (classic) */
    TV_TOK_EMAIL,        /* "<EMAIL>" (classic, uax_url_email) */
    TV_TOK_HOST,         /* "<HOST>" (classic) */
    TV_TOK_CJ,           /* "<CJ>" (classic) */
    TV_TOK_ACRONYM_DEP,  /* "<ACRONYM_DEP>" (classic) */
    TV_TOK_URL,          /* "<URL>" (uax_url_email) */
    TV_TOK_FINGERPRINT,  /* "fingerprint" (fingerprint filter) */
    TV_TOK_MIN_HASH,     /* "MIN_HASH" (min_hash filter) */
    TV_TOK_KEYWORD_TYPE, /* "keyword" */
    TV_TOK_GRAM,         /* "gram" (common_grams) */
    TV_TOK_TYPE_COUNT
} tv_token_type;

/* "<ALPHANUM>" etc. Borrowed, static. */
const char *tv_token_type_name(uint8_t type);

typedef struct tv_tokens {
    tv_token *items;
    size_t len;
    uint32_t end_position; /* position after the last token, incl. trailing gaps */
    bool graph_off; /* Lucene's DisableGraphAttribute (shingle): positionLength
                       builds no graph query */
} tv_tokens;

/* -------------------------------------------------------------- analyzers */

typedef struct tv_analyzer tv_analyzer;

/*
 * Runs an analyzer over text. Tokens and their terms are allocated in arena.
 * Returns TROVE_OK or TROVE_ENOMEM. `position_offset` is added to every
 * position (callers indexing an array of strings pass the previous value's
 * end_position + position_increment_gap, 100 for text fields).
 */
tv_status tv_analyze(const tv_analyzer *an, tv_arena *arena, const char *text, size_t len,
                     uint32_t position_offset, tv_tokens *out);

/*
 * _analyze explain: the analyzer's stages, each run on its own as
 * OpenSearch's TransportAnalyzeAction does. A custom or composed chain has
 * its char filters (each stage's filtered text), its tokenizer and each
 * token filter (the tokens of the chain up to it); any other analyzer has
 * one stage, its final tokens. Stage tokens have absolute positions from
 * position_offset and offsets into the input. Everything is in arena.
 */
typedef enum tv_stage_kind { TV_STAGE_CHARFILTER, TV_STAGE_TOKENIZER, TV_STAGE_FILTER,
                             TV_STAGE_ANALYZER } tv_stage_kind;
typedef struct tv_stage {
    tv_stage_kind kind;
    const char *name;     /* the component's or analyzer's name */
    const char *text;     /* TV_STAGE_CHARFILTER: the filtered text */
    size_t text_len;
    tv_tokens tokens;     /* the other kinds */
    bool keyword_attr;    /* the chain so far carries Lucene's KeywordAttribute */
} tv_stage;
/* The number of stages tv_analyze_stages fills. */
size_t tv_analyzer_stage_count(const tv_analyzer *an);
/* Fills out[0 .. tv_analyzer_stage_count(an)). TROVE_OK or TROVE_ENOMEM. */
tv_status tv_analyze_stages(const tv_analyzer *an, tv_arena *arena, const char *text, size_t len,
                            uint32_t position_offset, tv_stage *out);

/* The analyzer's name as configured ("standard", "my_analyzer"). Borrowed. */
const char *tv_analyzer_name(const tv_analyzer *an);

/* A built-in analyzer by name, or NULL if unknown. Borrowed, static,
 * thread-safe. */
const tv_analyzer *tv_analyzer_builtin(const char *name, size_t len);
/* Whether OpenSearch has a built-in analyzer of that name that trove does
 * not implement (callers answer unsupported_operation_exception). */
bool tv_analyzer_unsupported(const char *name, size_t len);
/* When the built-in analyzer `name` exists but cannot be built with its
 * defaults (its stop words or stemmer are missing: estonian), sets err to
 * why (unsupported_operation_exception naming what is missing) and returns
 * true; else false, err untouched. */
bool tv_analyzer_builtin_error(const char *name, size_t len, tv_error *err);

/*
 * The analysis registry of one index: built-in analyzers plus those defined
 * in the index settings' "analysis" object (the JSON object found at
 * settings.index.analysis or settings.analysis, already located by the
 * caller, passed as its raw bytes). Immutable after creation; safe to share
 * between threads and clones.
 */
typedef struct tv_analysis tv_analysis;

/* Builds a registry from the "analysis" settings JSON (NULL/0 for none).
 * Returns owned (free with tv_analysis_free) or NULL with err filled:
 * unknown tokenizer/filter/analyzer types are TROVE_EARG with OpenSearch's
 * reason (e.g. "failed to find analyzer type [foo] or tokenizer for [bar]"),
 * unsupported-but-real ones TROVE_EUNSUPPORTED naming them. */
tv_analysis *tv_analysis_new(const char *json, size_t len, tv_error *err);
/* Index-level settings that components check while they are built
 * (OpenSearch's IndexSettings): index.max_ngram_diff (1 by default) and
 * index.max_shingle_diff (3). tv_analysis_new uses the defaults. */
typedef struct tv_analysis_limits {
    int32_t max_ngram_diff;
    int32_t max_shingle_diff;
} tv_analysis_limits;
tv_analysis *tv_analysis_new_limits(const char *json, size_t len, const tv_analysis_limits *lim,
                                    tv_error *err);
void tv_analysis_free(tv_analysis *a);
/* Looks up an analyzer by name (custom first, then built-in). Borrowed until
 * tv_analysis_free. NULL registry means built-ins only. */
const tv_analyzer *tv_analysis_get(const tv_analysis *a, const char *name, size_t len);
/* Looks up a normalizer (index.analysis.normalizer.*, then the built-in
 * `lowercase`): an analyzer whose one token is the normalized value. NULL
 * if none has the name. Borrowed as tv_analysis_get's. */
const tv_analyzer *tv_analysis_normalizer(const tv_analysis *a, const char *name, size_t len);

/*
 * For `_analyze` without a named analyzer: builds a one-off analyzer from a
 * tokenizer name (NULL: the keyword tokenizer, as OpenSearch runs filters
 * given without one), filter and char filter names, in
 * a registry context (may be NULL: built-ins only). `inline_json` (NULL/0
 * for none) is an "analysis"-shaped object defining components that the
 * names may refer to (the request's inline definitions, under names the
 * caller chose). Returns owned; free with tv_analyzer_free.
 */
tv_analyzer *tv_analyzer_compose(const tv_analysis *ctx, const char *inline_json,
                                 size_t inline_len, const char *tokenizer,
                                 const char *const *filters, size_t nfilters,
                                 const char *const *charfilters, size_t ncharfilters,
                                 tv_error *err);
void tv_analyzer_free(tv_analyzer *an); /* no-op on built-ins and registry entries */
/* For a chain composed as a normalizer (_analyze with filters but no
 * tokenizer): the index of its first char filter or filter that may not run
 * in a normalizer (*in_charfilters tells which list), -1 when none. */
long tv_analyzer_not_normalizing(const tv_analyzer *an, bool *in_charfilters);

/*
 * OpenSearch's NamedAnalyzer.checkAllowedInMode: whether the analyzer may
 * run in `mode` ("index time", "search time" or "all"). False when it
 * holds filters allowed at search time only (`updateable` synonyms); their
 * names are then written to names ("a, b", truncated to cap) for the
 * MapperException "analyzer [x] contains filters [a, b] that are not
 * allowed to run in all mode."
 */
bool tv_analyzer_time_check(const tv_analyzer *an, const char *mode, char *names, size_t cap);

/*
 * The analyzers of text's hidden sub-fields (OpenSearch's
 * PrefixWrappedAnalyzer and PhraseWrappedAnalyzer): `base`'s tokenizer and
 * filters followed by edge n-grams of min..max code points
 * (TV_WRAP_EDGE_NGRAM, index_prefixes) or by 2-shingles (TV_WRAP_SHINGLE2,
 * index_phrases; min and max unused). Named as base. Returns owned (free
 * with tv_analyzer_free, before base's registry) or NULL on OOM.
 */
/* search_as_you_type (SearchAsYouTypeAnalyzer): TV_WRAP_SHINGLE_N,
 * shingles of exactly `min` positions with "" fillers; TV_WRAP_SAYT_PREFIX,
 * the same with min - 1 extra trailing positions, then edge n-grams of 1..20
 * code points keeping longer originals (max unused in both). */
typedef enum tv_analyzer_wrap_kind {
    TV_WRAP_EDGE_NGRAM,
    TV_WRAP_SHINGLE2,
    TV_WRAP_SHINGLE_N,
    TV_WRAP_SAYT_PREFIX
} tv_analyzer_wrap_kind;
tv_analyzer *tv_analyzer_wrap(const tv_analyzer *base, tv_analyzer_wrap_kind kind, uint32_t min,
                              uint32_t max);
/* Note: an analyzer composed with a registry ctx borrows that registry's
 * stop-word sets: free it before tv_analysis_free(ctx). Analyzers (built-in,
 * registry, composed) are immutable and safe to use from many threads. */

/* ------------------------------------------------------------- scripts */

/*
 * Analysis predicate scripts (the `condition` and `predicate_token_filter`
 * filters' Painless `script`): the script layer sits above this one, so
 * the layer that has both (api, when a node opens) registers how to
 * compile and run them. Without hooks those filters answer 400
 * unsupported. The hooks must be thread-safe; a compiled handle is
 * immutable and shared by every analysis that uses the filter.
 */
typedef struct tv_text_token_info {
    const char *term, *type; /* the term; the type's name ("word", "<ALPHANUM>") */
    size_t term_len;
    int32_t position;            /* absolute, as AnalysisPredicateScript.Token counts it */
    int32_t position_increment, position_length, start_offset, end_offset; /* offsets UTF-16 */
    bool keyword;
} tv_text_token_info;
typedef struct tv_text_script_hooks {
    /* Compiles an inline Painless source for the analysis predicate
     * context: a handle, or NULL with err set as OpenSearch answers. */
    void *(*compile)(const char *src, size_t len, tv_error *err);
    /* Runs it on one token (values in arena a): 1 true, 0 false, -1 the
     * run failed (err set). */
    int (*test)(void *handle, const tv_text_token_info *tok, tv_arena *a, tv_error *err);
    void (*release)(void *handle);
} tv_text_script_hooks;
/* Registers the hooks (a static object); idempotent. */
void tv_text_set_script_hooks(const tv_text_script_hooks *h);

/* ------------------------------------------------------------ Japanese */

/* Whether the kuromoji components work: built with MeCab, not switched off,
 * and its IPADIC dictionary found (loaded on the first call). Thread-safe. */
bool tv_ja_available(void);
/* Switches the kuromoji components off (trove serve --no-ja): call before
 * any analysis. */
void tv_ja_disable(void);

/* ------------------------------------------------------------- plugins */

/* The analysis plugins whose components this build offers, as OpenSearch
 * lists its plugins (_cat/plugins, _nodes): analysis-icu when built with
 * ICU, analysis-kuromoji while tv_ja_available(). Sorted by name. */
typedef struct tv_analysis_plugin {
    const char *name, *description, *classname;
} tv_analysis_plugin;
/* Fills out (room for 4) and returns how many. Static strings. */
size_t tv_analysis_plugins(tv_analysis_plugin *out);

#endif /* TROVE_TEXT_H */
