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
    /* the text the tokenizer read; its length is Lucene's final offset
     * (tv_analyze sets both before each filter runs; a filter that needs
     * the UTF-16 final offset counts it: only fingerprint does) */
    const char *final_text;
    uint32_t final_off;
    const void *morph; /* the tokenizer's per-token side data (tv_token.attr), or NULL */
    bool graph_off; /* a filter set Lucene's DisableGraphAttribute (shingle): tv_analyze
                       ORs it over the chain into tv_tokens.graph_off */
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
/* text as UTF-16 code units in a (*u), with per unit the byte offset of its
 * code point (*boff; boff[units] = len), for libraries that walk UTF-16
 * (ICU's break iterators). Returns the number of units, -1 out of memory. */
int32_t tv_utf16_with_offsets(tv_arena *a, const char *text, size_t len, uint16_t **u,
                              uint32_t **boff);

/* Java's character classes over the Unicode tables (Character.isLetter,
 * isDigit, isWhitespace; OpenSearch CharMatcher's PUNCTUATION and SYMBOL). */
static inline bool tv_java_letter(uint32_t cp) {
    uint8_t g = tv_uc_props(cp)->gc;
    return g >= TV_GC_LU && g <= TV_GC_LO;
}
static inline bool tv_java_digit(uint32_t cp) { return tv_uc_props(cp)->gc == TV_GC_ND; }
static inline bool tv_java_white(uint32_t cp) {
    return (tv_uc_props(cp)->flags & TV_UCF_JWHITE) != 0;
}
static inline bool tv_java_punct(uint32_t cp) {
    uint8_t g = tv_uc_props(cp)->gc;
    return (g >= TV_GC_PD && g <= TV_GC_PO) || g == TV_GC_PI || g == TV_GC_PF;
}
static inline bool tv_java_symbol(uint32_t cp) {
    uint8_t g = tv_uc_props(cp)->gc;
    return g >= TV_GC_SM && g <= TV_GC_SO;
}

/* ------------------------------------------------------------ tokenizers */

enum tv_tokenizer_kind {
    TV_TK_STANDARD = 0,
    TV_TK_WHITESPACE,
    TV_TK_KEYWORD,
    TV_TK_LETTER,
    TV_TK_LOWERCASE,
    TV_TK_EXT, /* a tokenizer of the catalog: `ext` runs it over `cfg` */
};

struct tv_tokenizer_type;
typedef struct tv_tokenizer_def {
    uint8_t kind;
    uint32_t max_token_length; /* standard, whitespace, letter, lowercase: 255 */
    const struct tv_tokenizer_type *ext; /* TV_TK_EXT only */
    const void *cfg;                     /* its configuration (registry-owned or static) */
    const char *name;                    /* as _analyze explain shows it (NULL: the type's) */
} tv_tokenizer_def;

tv_status tv_tokenize_standard(tv_arena *a, const char *text, size_t len, uint32_t max_len,
                               tv_tokvec *out);
/* The standard tokenizer with rules tried before its own at each scan
 * position (uax_url_email's URLs and e-mail addresses). `at` is told the
 * standard rules' longest match at p (std16 UTF-16 units, 0: none) and
 * answers TV_STD_KEEP (emit it, or skip a code point when there is none),
 * TV_STD_TAKE (emit its own token of *bytes, *units, *type instead) or
 * TV_STD_RESCAN (nothing emitted: scan p again; the hook changed state). */
enum { TV_STD_KEEP = 0, TV_STD_TAKE, TV_STD_RESCAN };
typedef struct tv_std_hook tv_std_hook;
struct tv_std_hook {
    int (*at)(tv_std_hook *h, const char *text, size_t len, size_t p, uint32_t max16,
              uint32_t std16, size_t *bytes, uint32_t *units, uint8_t *type);
};
tv_status tv_tokenize_standard_hooked(tv_arena *a, const char *text, size_t len, uint32_t max_len,
                                      tv_std_hook *hook, tv_tokvec *out);
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
    TV_TF_EXT,        /* a filter of the catalog: `ext` applies it with `cfg` */
};

/* A set of terms (stop words). Immutable once built; shared. */
typedef struct tv_termset {
    const char *const *words; /* sorted by bytes (lower-cased when ignore_case); NUL-terminated */
    const uint32_t *lens;
    size_t n;
    bool ignore_case;
    /* a hash of the words for tv_termset_has (open addressing, linear
     * probing; slots[i] is a word's index + 1, 0 empty; mask + 1 slots);
     * NULL: binary search over words */
    const uint32_t *slots;
    uint32_t mask;
} tv_termset;

/* Builds a set from n words (copied); owned, free with tv_termset_free. NULL on OOM. */
tv_termset *tv_termset_new(const char *const *words, const size_t *lens, size_t n,
                           bool ignore_case);
void tv_termset_free(tv_termset *s);

struct tv_filter_type;
typedef struct tv_filter_def {
    uint8_t kind;
    const struct tv_filter_type *ext; /* TV_TF_EXT only */
    const void *cfg;                  /* its configuration (registry-owned or static) */
    const char *name;                 /* as _analyze explain shows it (NULL: the type's) */
    bool preserve_original;    /* asciifolding */
    uint32_t min, max;         /* length; snowball: min UTF-16 length stemmed (0: any) */
    int algo;                  /* snowball: index into tv_stem_algos */
    const tv_termset *stop;    /* stop: borrowed (static or owned by the registry) */
} tv_filter_def;

tv_status tv_filter_apply(tv_arena *a, const tv_filter_def *f, tv_tokvec *v);
/* Applies the chain filters[0..n) to v (multiplexer branches). */
static inline tv_status tv_filters_apply(tv_arena *a, const tv_filter_def *filters, size_t n,
                                         tv_tokvec *v) {
    for (size_t i = 0; i < n; i++) {
        tv_status st = tv_filter_apply(a, &filters[i], v);
        if (st) return st;
    }
    return TROVE_OK;
}


/* The built-in English stop set (Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET). */
const tv_termset *tv_stop_english(void);
bool tv_termset_has(const tv_termset *s, const char *term, size_t len);

/* Stem memo (filters.c): this thread's cache of recent results of a pure
 * term -> term function (a stemmer or normalizer whose output depends on
 * the term's bytes alone), named by id, a static address that names the
 * function (its own address). NULL when none can be had (then run uncached).
 * get: the memoized result of [t, +n) in *out / *outlen, *same when it is
 * the term unchanged; false if not memoized. Results borrow the memo until
 * the next put: copy them. Terms over 30 bytes are never memoized. */
typedef struct tv_stem_memo tv_stem_memo;
tv_stem_memo *tv_stem_memo_for(const void *id);
bool tv_stem_memo_get(tv_stem_memo *m, const char *t, uint32_t n, const char **out,
                      uint32_t *outlen, bool *same);
void tv_stem_memo_put(tv_stem_memo *m, const char *t, uint32_t n, const char *out,
                      uint32_t outlen, bool same);
/* t's memoized result applied to t (a new term in a): 1 when m had it, 0
 * when not (m may be NULL), -1 out of memory. */
int tv_stem_memo_apply(tv_stem_memo *m, tv_arena *a, tv_token *t);

/* libstemmer algorithms we expose, by index. */
extern const char *const tv_stem_algos[];
extern const size_t tv_stem_algo_count;
int tv_stem_algo_find(const char *name, size_t len); /* -1 if unknown */

/* ------------------------------------------------------------ char filters */

/*
 * Offset correction, as Lucene's BaseCharFilter: a char filter that changes
 * the text's length records, at each output offset where the difference
 * changes, the cumulative difference (input offset - output offset) from
 * there on. Offsets are bytes here; tv_analyze turns the corrected byte
 * offsets into UTF-16 ones over the original input.
 */
typedef struct tv_offmap {
    uint32_t *off;  /* ascending output offsets */
    int32_t *diff;  /* cumulative diff from off[i] on */
    size_t n, cap;
} tv_offmap;
/* Records that from output offset `out_off` on, input = output + diff.
 * A later point at the same offset replaces the earlier one. */
tv_status tv_offmap_add(tv_arena *a, tv_offmap *m, uint32_t out_off, int32_t diff);
/* The input offset of output offset `off`. */
uint32_t tv_offmap_correct(const tv_offmap *m, uint32_t off);

/* What a char filter produces: the new text (in the arena) and its map. */
typedef struct tv_cfout {
    const char *text;
    size_t len;
    tv_offmap map;
} tv_cfout;

struct tv_charfilter_type;
typedef struct tv_charfilter_def {
    const struct tv_charfilter_type *ext;
    const void *cfg;
    const char *name; /* as _analyze explain shows it (NULL: the type's) */
} tv_charfilter_def;

/* ------------------------------------------------------------ components */

/*
 * A component being built from settings: its name, its settings
 * ("filter.my_ngram.min_gram" is key "min_gram" of filter my_ngram) and
 * the registry whose memory holds what the component keeps. Valid only
 * during the build call; strings read from it must be copied
 * (tv_comp_strdup) to outlive the call. A component referred to by bare
 * name ("filter": ["ngram"]) is built with no settings at all.
 */
typedef struct tv_comp tv_comp;
struct tv_sjson_list;
struct tv_analysis;
struct tv_comp {
    const char *name;                /* NUL-terminated */
    size_t name_len;
    const char *kind;                /* "analyzer", "tokenizer", "filter", "char_filter" */
    const struct tv_sjson_list *all; /* the flattened settings; NULL: none */
    size_t prefix_len;               /* strlen(kind) + 1 + name_len + 1 */
    struct tv_analysis *reg;         /* the registry being built */
};
/* A filter another component refers to by name (multiplexer): the
 * registry's (built on demand from its settings), the index's, or a core
 * or catalog one with defaults. TROVE_ENOTFOUND (err untouched) if none. */
tv_status tv_comp_filter_ref(tv_comp *c, const char *name, size_t len, tv_filter_def *out,
                             tv_error *err);
/* The registry's memory (analyzer.c): lives until tv_analysis_free. */
void *tv_analysis_alloc(struct tv_analysis *a, size_t n);
tv_status tv_analysis_on_free(struct tv_analysis *a, void (*fn)(void *), void *p);
tv_status tv_analysis_keep_set(struct tv_analysis *a, tv_termset *ts);

const char *tv_comp_name(const tv_comp *c);
/* The index-level limits of the registry being built (analyzer.c). */
const tv_analysis_limits *tv_comp_limits(const tv_comp *c);
/* Whether the component is used by bare name ("filter": ["keep"]): no
 * settings at all. OpenSearch then uses its pre-configured component when
 * there is one (whose defaults may differ from the type's), and refuses
 * the types that require settings with tv_comp_requires_settings(). */
static inline bool tv_comp_bare(const tv_comp *c) { return c->all == NULL; }
static inline tv_status tv_comp_requires_settings(tv_error *err) {
    return tv_error_set(err, TROVE_EARG, "Analysis settings required - can't instantiate analysis factory");
}
/* Whether `key` is set (to anything, null included). */
bool tv_comp_has(const tv_comp *c, const char *key);
/* `key` as one string: NULL when absent, null or an array. */
const char *tv_comp_str(const tv_comp *c, const char *key, size_t *len);
/* `key` as an int32 / double / boolean, `def` when absent; a value that
 * does not parse is TROVE_EARG with OpenSearch's message. */
tv_status tv_comp_int(const tv_comp *c, const char *key, int64_t def, int64_t *out, tv_error *err);
tv_status tv_comp_double(const tv_comp *c, const char *key, double def, double *out, tv_error *err);
tv_status tv_comp_bool(const tv_comp *c, const char *key, bool def, bool *out, tv_error *err);
/* `key` as a list of strings: an array's elements, or one value as a list
 * of one; *n = 0 when absent. Borrowed for the build call. */
void tv_comp_list(const tv_comp *c, const char *key, const char *const **vals,
                  const size_t **lens, size_t *n);
/* As tv_comp_list, but one string value is split on commas and each piece
 * trimmed (OpenSearch's Settings.getAsList, trailing empty pieces dropped). */
void tv_comp_list_csv(const tv_comp *c, const char *key, const char *const **vals,
                      const size_t **lens, size_t *n);
/* Memory that lives as long as the registry. NULL on OOM. */
void *tv_comp_alloc(tv_comp *c, size_t n);
/* Has the registry call fn(p) when it is freed (configurations holding
 * outside resources: compiled patterns, ICU objects). If registering fails
 * (OOM) fn(p) runs at once and TROVE_ENOMEM is returned. */
tv_status tv_comp_on_free(tv_comp *c, void (*fn)(void *), void *p);
char *tv_comp_strdup(tv_comp *c, const char *s, size_t n);
/* A term set owned by the registry, from n words (copied). */
tv_status tv_comp_termset(tv_comp *c, const char *const *words, const size_t *lens, size_t n,
                          bool ignore_case, const tv_termset **out);
/*
 * A word set setting as OpenSearch's Analysis.parseWords reads it: `key`
 * (e.g. "stopwords", "stem_exclusion", "articles") as a list, a
 * comma-separated string, a named set ("_english_", "_french_", "_none_"),
 * or absent (then `def`, which may be NULL). `key`_path answers
 * unsupported. ignore_case lower-cases the set and the lookups.
 */
tv_status tv_comp_words(tv_comp *c, const char *key, const tv_termset *def, bool ignore_case,
                        const tv_termset **out, tv_error *err);

/* Runs fn(p) when the registry is freed (for memory not in its arena,
 * e.g. compiled regular expressions). TROVE_ENOMEM: fn was not recorded. */
tv_status tv_comp_on_free(tv_comp *c, void (*fn)(void *), void *p);

/* ------------------------------------------------ Java regular expressions */

/* java.util.regex over PCRE2 (jregex.c): a compiled pattern, owned by the
 * registry (freed with it); immutable and shareable between threads. */
typedef struct tv_jregex tv_jregex;
/* Compiles `pat` with OpenSearch's flag names (`flags` "A|B", NULL: none). */
tv_status tv_jregex_compile(tv_comp *c, const char *pat, size_t plen, const char *flags,
                            size_t flen, tv_jregex **out, tv_error *err);
uint32_t tv_jregex_groups(const tv_jregex *r); /* capturing groups */
/* A matcher: match data in an arena, reset onto one text after another
 * and walked with Matcher.find() semantics. */
typedef struct tv_jmatcher {
    const tv_jregex *re;
    const char *text;
    size_t len, next;
    size_t start, end; /* the last match (bytes) */
    void *md;          /* pcre2 match data, in the arena */
    size_t *ov;
    uint32_t nov;
    bool done;
} tv_jmatcher;
/* A matcher for r whose match data lives in `a`; reset it onto a text. */
tv_status tv_jregex_start(tv_jmatcher *m, tv_arena *a, const tv_jregex *r);
void tv_jregex_reset(tv_jmatcher *m, const char *text, size_t len);
bool tv_jregex_find(tv_jmatcher *m);
/* Group g of the last match: false when it did not participate. */
bool tv_jregex_group(const tv_jmatcher *m, uint32_t g, size_t *s, size_t *e);
/* Matcher.matches(): the whole of s matches (m's text is not used). */
bool tv_jregex_matches(tv_jmatcher *m, const char *s, size_t n);
/* A parsed Matcher.appendReplacement string. */
typedef struct tv_jrepl_part {
    const char *lit;
    uint32_t len;
    int group; /* >= 0: a group reference; -1: the literal */
} tv_jrepl_part;
typedef struct tv_jrepl {
    tv_jrepl_part *parts;
    size_t n;
} tv_jrepl;
tv_status tv_jrepl_parse(tv_comp *c, const tv_jregex *r, const char *s, size_t n, tv_jrepl *out,
                         tv_error *err);
/* Appends the replacement of m's last match to b. */
void tv_jrepl_append(const tv_jrepl *rp, const tv_jmatcher *m, tv_buf *b);

/* ------------------------------------------------------------ resources */

/* Files of Debian's Lucene 4.10 analyzers jars, embedded at build time
 * (gen_resources.py): stop word lists and stemmer rules, named by their
 * path below org/apache/lucene/analysis/ ("snowball/french_stop.txt"). */
typedef struct tv_text_resource {
    const char *name;
    size_t len;
    const char *data;
} tv_text_resource;
extern const tv_text_resource tv_text_resources[];
extern const size_t tv_text_resource_count;

/* A resource's bytes, NULL if there is none by that name. Static. */
const char *tv_resource(const char *name, size_t *len);
/* A word list resource as a set, parsed as Lucene's WordlistLoader does:
 * snowball format ('|' starts a comment, several words per line) or plain
 * (a word per line, lines starting with '#' skipped, words trimmed).
 * Built once, cached for the life of the process; NULL if there is no such
 * resource (or on OOM). Case-sensitive. */
const tv_termset *tv_resource_words(const char *name, bool snowball);

/* ------------------------------------------------------------ the catalog */

/* A tokenizer, token filter, char filter or analyzer type beyond the core
 * kinds above, listed in catalog.c. `build` reads the component's settings
 * into a configuration allocated with tv_comp_alloc (NULL build: none). */
typedef struct tv_tokenizer_type {
    const char *name;
    tv_status (*build)(tv_comp *c, const void **cfg, tv_error *err);
    /* Appends the tokens of [text, text+len) to out (position = increment). */
    tv_status (*run)(tv_arena *a, const void *cfg, const char *text, size_t len, tv_tokvec *out);
} tv_tokenizer_type;

/* What precedes a chain-aware filter in one analyzer (see chain below):
 * the tokenizer, the char filters, the filters before it and their names
 * as the analyzer lists them. */
typedef struct tv_analyzer_chain {
    const tv_tokenizer_def *tok;
    const tv_charfilter_def *charfilters;
    size_t ncharfilters;
    const tv_filter_def *filters;
    const char *const *names;
    size_t nfilters;
} tv_analyzer_chain;

/* How a filter takes part when a later synonym filter of the same
 * analyzer analyzes its rules (OpenSearch's getSynonymFilter). */
enum {
    TV_SYN_SELF = 0, /* as it is (the default) */
    TV_SYN_SKIP,     /* left out (IDENTITY_FILTER: synonym filters themselves) */
    TV_SYN_REJECT,   /* "Token filter [x] cannot be used to parse synonyms" */
};

typedef struct tv_filter_type {
    const char *name;
    tv_status (*build)(tv_comp *c, const void **cfg, tv_error *err);
    /* Rewrites v (in place or into a new array in the arena). */
    tv_status (*apply)(tv_arena *a, const void *cfg, tv_tokvec *v);
    /* Chain-aware filters (OpenSearch's getChainAwareTokenFilterFactory:
     * synonym, synonym_graph): called for each analyzer that uses the
     * filter, after the analyzer's other components are resolved, with
     * what precedes the filter there; replaces *cfg (build's result) by
     * that analyzer's own configuration. NULL: none. */
    tv_status (*chain)(tv_comp *c, const tv_analyzer_chain *before, const void **cfg,
                       tv_error *err);
    uint8_t in_synonyms; /* TV_SYN_* */
    /* Filters refused at index time (updateable synonyms: AnalysisMode
     * SEARCH_TIME): the filter's name when cfg is one, else NULL. NULL
     * hook: never. */
    const char *(*search_time_only)(const void *cfg);
    /* TV_TRAIT_*: what OpenSearch knows of the filter beyond running it. */
    unsigned traits;
} tv_filter_type;


enum {
    /* adds Lucene's KeywordAttribute to the stream (stemmers and keyword
     * markers), which _analyze explain lists */
    TV_TRAIT_KEYWORD_ATTR = 1,
};

typedef struct tv_charfilter_type {
    const char *name;
    tv_status (*build)(tv_comp *c, const void **cfg, tv_error *err);
    /* Filters [in, in+len) into out (text in the arena, offsets mapped). */
    tv_status (*run)(tv_arena *a, const void *cfg, const char *in, size_t len, tv_cfout *out);
} tv_charfilter_type;

#define TV_PARTS_MAX_FILTERS 64
#define TV_PARTS_MAX_CHARFILTERS 16
/* An analyzer's pieces, as an analyzer type's build fills them. */
typedef struct tv_analyzer_parts {
    tv_tokenizer_def tok;
    tv_filter_def filters[TV_PARTS_MAX_FILTERS];
    size_t nfilters;
    tv_charfilter_def charfilters[TV_PARTS_MAX_CHARFILTERS];
    size_t ncharfilters;
} tv_analyzer_parts;

/* Runs the chain hooks of an analyzer's filters in order (analyzer.c),
 * `names` naming each filter as the analyzer lists it. */
tv_status tv_analyzer_parts_chain(struct tv_analysis *reg, tv_analyzer_parts *p,
                                  const char *const *names, tv_error *err);

typedef struct tv_analyzer_type {
    const char *name;
    /* Fills parts from the analyzer's settings (stopwords, stem_exclusion...). */
    tv_status (*build)(tv_comp *c, tv_analyzer_parts *parts, tv_error *err);
} tv_analyzer_type;

const tv_tokenizer_type *tv_catalog_tokenizer(const char *name, size_t len);
const tv_filter_type *tv_catalog_filter(const char *name, size_t len);
const tv_charfilter_type *tv_catalog_charfilter(const char *name, size_t len);
const tv_analyzer_type *tv_catalog_analyzer(const char *name, size_t len);
/* The `stemmer` filter's languages that are rule sets of the lang_*.c
 * files (arabic, bengali, bulgarian, czech, greek, hindi,
 * indonesian, sorani, light_russian; ASCII case
 * ignored, as OpenSearch's equalsIgnoreCase), NULL for others. */
const tv_filter_type *tv_lang_stemmer(const char *lang, size_t len);
/* The `lowercase` filter's `language` values that lang_*.c implement
 * (greek), NULL for others. */
const tv_filter_type *tv_lang_lowercase(const char *lang, size_t len);
/* A named word set ("_english_", "_french_"...), NULL if unknown. */
const tv_termset *tv_catalog_words(const char *name, size_t len);
/* Whether OpenSearch has a component of that kind and name (kind:
 * "tokenizer", "filter", "char_filter", "analyzer"); callers ask the
 * catalog first, so a name that reaches this is one trove lacks. */
bool tv_catalog_unsupported(const char *kind, const char *name, size_t len);
/* Whether a filter or char filter type (kind "filter" / "char_filter") may
 * run in a normalizer (OpenSearch's Normalizing*FilterFactory). */
bool tv_catalog_normalizing(const char *kind, const char *type, size_t len);

/* -------------------------------------------------------------- analyzers */

struct tv_analyzer {
    char *name;           /* owned unless is_static */
    bool is_static;       /* built-in: never freed */
    bool is_registry;     /* owned by a tv_analysis: tv_analyzer_free is a no-op */
    tv_tokenizer_def tok;
    size_t nfilters;
    tv_filter_def *filters; /* owned unless is_static */
    size_t ncharfilters;
    tv_charfilter_def *charfilters; /* owned unless is_static; NULL when none */
    struct tv_analysis *scratch; /* owned: inline components of a composed analyzer */
    bool is_custom; /* a custom or composed chain: _analyze explain shows its stages */
};

/* ------------------------------------------------------------ Japanese */

/* What kuromoji knows of one token (Lucene's PartOfSpeechAttribute,
 * BaseFormAttribute, ReadingAttribute, InflectionAttribute); NULL strings
 * where Lucene's attributes answer null. Strings are NUL-terminated. */
typedef struct tv_ja_morph {
    const char *pos;      /* "名詞-固有名詞-地域-一般" */
    const char *base;     /* base form, NULL when none */
    const char *reading;  /* katakana reading, NULL for unknown words */
    const char *pron;     /* pronunciation, NULL for unknown words */
    const char *infl_type, *infl_form; /* NULL when "*" */
} tv_ja_morph;
/* The morphology of token t in v, NULL if it has none. */
static inline const tv_ja_morph *tv_ja_morph_of(const tv_tokvec *v, const tv_token *t) {
    return v->morph && t->attr ? &((const tv_ja_morph *)v->morph)[t->attr - 1] : NULL;
}
/* kuromoji's char.def class test used by filters: whether the code point is
 * in the KATAKANA Unicode block (JapaneseKatakanaStemFilter). */
static inline bool tv_ja_katakana_block(uint32_t cp) { return cp >= 0x30A0 && cp <= 0x30FF; }

#endif /* TROVE_TEXT_INT_H */
