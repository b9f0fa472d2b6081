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
 *   tf_synonym.c          the `synonym` and `synonym_graph` token filters
 *                         (Solr and WordNet rules, analyzed per analyzer)
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
    TV_TOK_TYPE_COUNT
} tv_token_type;

/* "<ALPHANUM>" etc. Borrowed, static. */
const char *tv_token_type_name(uint8_t type);

typedef struct tv_tokens {
    tv_token *items;
    size_t len;
    uint32_t end_position; /* position after the last token, incl. trailing gaps */
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

/* The analyzer's name as configured ("standard", "my_analyzer"). Borrowed. */
const char *tv_analyzer_name(const tv_analyzer *an);

/* A built-in analyzer by name, or NULL if unknown. Borrowed, static,
 * thread-safe. */
const tv_analyzer *tv_analyzer_builtin(const char *name, size_t len);

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
void tv_analysis_free(tv_analysis *a);
/* Looks up an analyzer by name (custom first, then built-in). Borrowed until
 * tv_analysis_free. NULL registry means built-ins only. */
const tv_analyzer *tv_analysis_get(const tv_analysis *a, const char *name, size_t len);

/*
 * For `_analyze` without a named analyzer: builds a one-off analyzer from a
 * tokenizer name (or NULL for "standard"), filter and char filter names, in
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

#endif /* TROVE_TEXT_H */
