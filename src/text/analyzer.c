/*
 * analyzer.c — analyzers: running the pipeline (tv_analyze), the built-in
 * analyzers, analyzers composed for _analyze, and the per-index registry
 * built from the "analysis" settings.
 *
 * An analyzer is a tokenizer definition plus an array of filter
 * definitions (plain data, no vtables): tv_analyze runs the tokenizer into
 * an arena token array, applies each filter, copies any term that still
 * borrows the input into one arena block, and turns position increments
 * into absolute positions. Built-ins are static and immutable.
 *
 * The registry parses the settings once (settings_json.c flattens nested
 * and dotted keys alike), builds named tokenizers and filters first, then
 * analyzers that refer to them, reporting OpenSearch's messages:
 *   "Unknown analyzer type [x] for [name]" (also tokenizer/filter),
 *   "analyzer [name] must specify either an analyzer type, or a tokenizer",
 *   "Custom Analyzer [name] failed to find tokenizer under name [x]",
 *   "Custom Analyzer [name] failed to find filter under name [x]".
 * Components that OpenSearch has but trove does not implement (ngram,
 * synonym, pattern, ...) fail with TROVE_EUNSUPPORTED naming them, so an
 * index never silently analyzes differently from OpenSearch.
 */
#include <stdio.h>
#include <stdlib.h>

#include "text/settings_json.h"
#include "text/text_int.h"

/* ------------------------------------------------------------- names */

const char *tv_token_type_name(uint8_t type) {
    static const char *const names[] = {"word", "<ALPHANUM>", "<NUM>", "<SOUTHEAST_ASIAN>",
                                        "<IDEOGRAPHIC>", "<HIRAGANA>", "<KATAKANA>",
                                        "<HANGUL>", "<EMOJI>"};
    return type < TV_ARRAY_LEN(names) ? names[type] : "word";
}

const char *tv_analyzer_name(const tv_analyzer *an) { return an ? an->name : ""; }

/* ------------------------------------------------------------ running */

tv_status tv_analyze(const tv_analyzer *an, tv_arena *arena, const char *text, size_t len,
                     uint32_t position_offset, tv_tokens *out) {
    memset(out, 0, sizeof *out);
    out->end_position = position_offset;
    if (len > UINT32_MAX) return TROVE_ELIMIT;
    if (!text) text = "";
    tv_tokvec v = {0};
    /* pre-size for ordinary prose (a token per ~6 bytes) to avoid regrowth */
    size_t guess = len / 6 + 8;
    if (guess > 4096) guess = 4096;
    v.items = tv_arena_alloc(arena, guess * sizeof *v.items);
    if (!v.items) return TROVE_ENOMEM;
    v.cap = guess;
    tv_status st = tv_tokenize(arena, &an->tok, text, len, &v);
    if (st) return st;
    for (size_t i = 0; i < an->nfilters; i++) {
        st = tv_filter_apply(arena, &an->filters[i], &v);
        if (st) return st;
    }
    /* copy terms that still borrow the input into one arena block */
    uintptr_t lo = (uintptr_t)text, hi = lo + len;
    size_t borrowed = 0;
    for (size_t i = 0; i < v.len; i++) {
        uintptr_t t = (uintptr_t)v.items[i].term;
        if (t >= lo && t < hi) borrowed += v.items[i].term_len + 1;
    }
    if (borrowed) {
        char *blk = tv_arena_alloc(arena, borrowed);
        if (!blk) return TROVE_ENOMEM;
        for (size_t i = 0; i < v.len; i++) {
            tv_token *t = &v.items[i];
            uintptr_t tp = (uintptr_t)t->term;
            if (tp >= lo && tp < hi) {
                memcpy(blk, t->term, t->term_len);
                blk[t->term_len] = 0;
                t->term = blk;
                blk += t->term_len + 1;
            }
        }
    }
    int64_t pos = (int64_t)position_offset - 1;
    for (size_t i = 0; i < v.len; i++) {
        tv_token *t = &v.items[i];
        pos += t->position;
        if (pos < (int64_t)position_offset) pos = position_offset;
        t->position = (uint32_t)pos;
    }
    out->items = v.items;
    out->len = v.len;
    out->end_position = (uint32_t)(v.len ? pos + 1 + v.trailing : (int64_t)position_offset + v.trailing);
    return TROVE_OK;
}

/* ----------------------------------------------------------- built-ins */

static const tv_filter_def f_lower = {.kind = TV_TF_LOWERCASE};
static const tv_filter_def simple_filters[] = {{.kind = TV_TF_LOWERCASE}};
static tv_filter_def stop_filters[2] = {{.kind = TV_TF_LOWERCASE}, {.kind = TV_TF_STOP}};
static tv_filter_def english_filters[4] = {{.kind = TV_TF_POSSESSIVE},
                                           {.kind = TV_TF_LOWERCASE},
                                           {.kind = TV_TF_STOP},
                                           {.kind = TV_TF_SNOWBALL, .algo = 0 /* porter */}};

static tv_analyzer builtins[] = {
    {.name = (char *)"standard", .is_static = true, .tok = {TV_TK_STANDARD, 255},
     .nfilters = 1, .filters = (tv_filter_def *)&f_lower},
    {.name = (char *)"simple", .is_static = true, .tok = {TV_TK_LETTER, 255}, .nfilters = 1,
     .filters = (tv_filter_def *)simple_filters},
    {.name = (char *)"whitespace", .is_static = true, .tok = {TV_TK_WHITESPACE, 255}},
    {.name = (char *)"keyword", .is_static = true, .tok = {TV_TK_KEYWORD, 0}},
    {.name = (char *)"stop", .is_static = true, .tok = {TV_TK_LETTER, 255}, .nfilters = 2,
     .filters = stop_filters},
    {.name = (char *)"english", .is_static = true, .tok = {TV_TK_STANDARD, 255}, .nfilters = 4,
     .filters = english_filters},
};

static void builtins_init(void) {
    /* the static initialisers cannot take the address of the English set
     * across files in a constant expression portably; fill it in once */
    stop_filters[1].stop = tv_stop_english();
    english_filters[2].stop = tv_stop_english();
}

#include <pthread.h>
static pthread_once_t builtins_once = PTHREAD_ONCE_INIT;

const tv_analyzer *tv_analyzer_builtin(const char *name, size_t len) {
    pthread_once(&builtins_once, builtins_init);
    for (size_t i = 0; i < TV_ARRAY_LEN(builtins); i++)
        if (tv_streq(name, len, builtins[i].name)) return &builtins[i];
    return NULL;
}

/* ------------------------------------------------------------ registry */

typedef struct named_tok {
    char *name;
    tv_tokenizer_def def;
} named_tok;
typedef struct named_filter {
    char *name;
    tv_filter_def def;
} named_filter;

struct tv_analysis {
    TV_VEC(tv_analyzer *) analyzers;
    TV_VEC(named_tok) toks;
    TV_VEC(named_filter) filters;
    TV_VEC(tv_termset *) sets;
};

static void analyzer_destroy(tv_analyzer *an) {
    if (!an) return;
    tv_free(an->name);
    tv_free(an->filters);
    tv_free(an);
}

void tv_analyzer_free(tv_analyzer *an) {
    if (!an || an->is_static || an->is_registry) return;
    analyzer_destroy(an);
}

void tv_analysis_free(tv_analysis *a) {
    if (!a) return;
    for (size_t i = 0; i < a->analyzers.len; i++) analyzer_destroy(a->analyzers.items[i]);
    for (size_t i = 0; i < a->toks.len; i++) tv_free(a->toks.items[i].name);
    for (size_t i = 0; i < a->filters.len; i++) tv_free(a->filters.items[i].name);
    for (size_t i = 0; i < a->sets.len; i++) tv_termset_free(a->sets.items[i]);
    tv_vec_fini(&a->analyzers);
    tv_vec_fini(&a->toks);
    tv_vec_fini(&a->filters);
    tv_vec_fini(&a->sets);
    tv_free(a);
}

const tv_analyzer *tv_analysis_get(const tv_analysis *a, const char *name, size_t len) {
    if (a) {
        for (size_t i = 0; i < a->analyzers.len; i++)
            if (tv_streq(name, len, a->analyzers.items[i]->name)) return a->analyzers.items[i];
    }
    return tv_analyzer_builtin(name, len);
}

/* Built-in tokenizers and filters by name (for custom analyzers and _analyze). */
static bool builtin_tokenizer(const char *n, size_t len, tv_tokenizer_def *d) {
    static const struct { const char *name; uint8_t kind; } t[] = {
        {"standard", TV_TK_STANDARD}, {"whitespace", TV_TK_WHITESPACE}, {"keyword", TV_TK_KEYWORD},
        {"letter", TV_TK_LETTER}, {"lowercase", TV_TK_LOWERCASE}};
    for (size_t i = 0; i < TV_ARRAY_LEN(t); i++)
        if (tv_streq(n, len, t[i].name)) {
            d->kind = t[i].kind;
            d->max_token_length = 255;
            return true;
        }
    return false;
}

static bool builtin_filter(const char *n, size_t len, tv_filter_def *d) {
    memset(d, 0, sizeof *d);
    if (tv_streq(n, len, "lowercase")) d->kind = TV_TF_LOWERCASE;
    else if (tv_streq(n, len, "uppercase")) d->kind = TV_TF_UPPERCASE;
    else if (tv_streq(n, len, "stop")) {
        d->kind = TV_TF_STOP;
        d->stop = tv_stop_english();
    } else if (tv_streq(n, len, "asciifolding")) d->kind = TV_TF_ASCIIFOLDING;
    else if (tv_streq(n, len, "trim")) d->kind = TV_TF_TRIM;
    else if (tv_streq(n, len, "length")) {
        d->kind = TV_TF_LENGTH;
        d->max = UINT32_MAX;
    } else if (tv_streq(n, len, "porter_stem") || tv_streq(n, len, "stemmer")) {
        d->kind = TV_TF_SNOWBALL;
        d->algo = tv_stem_algo_find("porter", 6);
    } else if (tv_streq(n, len, "snowball")) {
        d->kind = TV_TF_SNOWBALL;
        d->algo = tv_stem_algo_find("english", 7);
    } else return false;
    return true;
}

static const char *const unsupported_tokenizers[] = {
    "ngram", "edge_ngram", "nGram", "edgeNGram", "pattern", "simple_pattern",
    "simple_pattern_split", "char_group", "classic", "uax_url_email", "path_hierarchy",
    "PathHierarchy", "thai", "icu_tokenizer", "kuromoji_tokenizer", "nori_tokenizer",
    "smartcn_tokenizer"};
static const char *const unsupported_filters[] = {
    "ngram", "edge_ngram", "nGram", "edgeNGram", "shingle", "synonym", "synonym_graph",
    "word_delimiter", "word_delimiter_graph", "keyword_marker", "keyword_repeat", "kstem",
    "stemmer_override", "elision", "truncate", "unique", "pattern_capture", "pattern_replace",
    "limit", "hunspell", "common_grams", "cjk_width", "cjk_bigram", "decimal_digit",
    "fingerprint", "min_hash", "delimited_payload", "keep", "keep_types", "classic",
    "apostrophe", "reverse", "phonetic", "dictionary_decompounder", "hyphenation_decompounder",
    "multiplexer", "condition", "predicate_token_filter", "remove_duplicates", "flatten_graph",
    "arabic_normalization", "german_normalization", "hindi_normalization", "indic_normalization",
    "persian_normalization", "scandinavian_normalization", "scandinavian_folding",
    "serbian_normalization", "sorani_normalization", "arabic_stem", "brazilian_stem",
    "czech_stem", "dutch_stem", "french_stem", "german_stem", "russian_stem", "cjk_width",
    "icu_folding", "icu_normalizer", "delimited_term_freq", "mapping"};
static const char *const unsupported_analyzers[] = {
    "pattern", "fingerprint", "arabic", "armenian", "basque", "bengali", "brazilian",
    "bulgarian", "catalan", "cjk", "czech", "danish", "dutch", "estonian", "finnish", "french",
    "galician", "german", "greek", "hindi", "hungarian", "indonesian", "irish", "italian",
    "latvian", "lithuanian", "norwegian", "persian", "portuguese", "romanian", "russian",
    "sorani", "spanish", "swedish", "turkish", "thai", "snowball", "classic"};

static bool in_list(const char *const *l, size_t n, const char *s, size_t len) {
    for (size_t i = 0; i < n; i++)
        if (tv_streq(s, len, l[i])) return true;
    return false;
}

/* --- settings access over the flattened list --- */

typedef struct comp {
    const char *name; /* component name */
    size_t name_len;
    const char *kind; /* "analyzer", "tokenizer", "filter" */
    const tv_sjson_entry *e; /* entries of this component: [e, e+n) is not contiguous: scan */
    const tv_sjson_list *all;
    size_t prefix_len; /* strlen(kind) + 1 + name_len + 1 */
} comp;

static const tv_sjson_entry *setting(const comp *c, const char *key) {
    size_t kl = strlen(key);
    for (size_t i = 0; i < c->all->len; i++) {
        const tv_sjson_entry *e = &c->all->items[i];
        size_t kind_len = strlen(c->kind);
        if (e->key_len != c->prefix_len + kl) continue;
        if (memcmp(e->key, c->kind, kind_len) != 0 || e->key[kind_len] != '.') continue;
        if (memcmp(e->key + kind_len + 1, c->name, c->name_len) != 0) continue;
        if (e->key[kind_len + 1 + c->name_len] != '.') continue;
        if (memcmp(e->key + c->prefix_len, key, kl) == 0) return e;
    }
    return NULL;
}

static const char *setting_str(const comp *c, const char *key, size_t *len) {
    const tv_sjson_entry *e = setting(c, key);
    if (!e || e->is_array || e->nvals != 1 || e->vals[0].is_null) return NULL;
    *len = e->vals[0].len;
    return e->vals[0].s;
}

static tv_status setting_int(const comp *c, const char *key, int64_t def, int64_t *out,
                             tv_error *err) {
    size_t n;
    const char *s = setting_str(c, key, &n);
    if (!s) {
        *out = def;
        return TROVE_OK;
    }
    if (!tv_parse_i64(s, n, out) || *out < INT32_MIN || *out > INT32_MAX)
        return tv_error_set(err, TROVE_EARG, "Failed to parse value [%s] for setting [%s]", s, key);
    return TROVE_OK;
}

static tv_status setting_bool(const comp *c, const char *key, bool def, bool *out,
                              tv_error *err) {
    size_t n;
    const char *s = setting_str(c, key, &n);
    if (!s) *out = def;
    else if (tv_streq(s, n, "true")) *out = true;
    else if (tv_streq(s, n, "false")) *out = false;
    else
        return tv_error_set(err, TROVE_EARG,
                            "Failed to parse value [%s] as only [true] or [false] are allowed.", s);
    return TROVE_OK;
}

/* Stop words: "_english_", "_none_", a list, or a comma-separated string. */
static tv_status parse_stopwords(tv_analysis *a, const comp *c, const tv_termset *def,
                                 const tv_termset **out, tv_error *err) {
    bool ignore_case;
    tv_status st = setting_bool(c, "ignore_case", false, &ignore_case, err);
    if (st) return st;
    if (setting(c, "stopwords_path"))
        return tv_error_set(err, TROVE_EUNSUPPORTED, "[stopwords_path] is not supported for [%s]",
                            c->name);
    const tv_sjson_entry *e = setting(c, "stopwords");
    const char *words_buf[1];
    size_t lens_buf[1];
    const char **words = NULL;
    size_t *lens = NULL, n = 0;
    if (!e) {
        if (!ignore_case || !def) {
            *out = def;
            return TROVE_OK;
        }
        words = (const char **)def->words;
        n = def->n;
    } else if (!e->is_array) {
        const char *s = e->vals[0].s;
        size_t sl = e->vals[0].len;
        if (tv_streq(s, sl, "_english_")) {
            if (!ignore_case) {
                *out = tv_stop_english();
                return TROVE_OK;
            }
            words = (const char **)tv_stop_english()->words;
            n = tv_stop_english()->n;
        } else if (tv_streq(s, sl, "_none_")) {
            n = 0;
        } else if (sl > 1 && s[0] == '_' && s[sl - 1] == '_') {
            return tv_error_set(err, TROVE_EUNSUPPORTED, "stop words [%s] are not supported", s);
        } else {
            /* comma-separated */
            size_t cnt = 1;
            for (size_t i = 0; i < sl; i++) cnt += s[i] == ',';
            words = tv_malloc(cnt * sizeof *words);
            lens = tv_malloc(cnt * sizeof *lens);
            if (!words || !lens) {
                tv_free(words);
                tv_free(lens);
                return TROVE_ENOMEM;
            }
            size_t b = 0;
            for (size_t i = 0; i <= sl; i++) {
                if (i == sl || s[i] == ',') {
                    size_t x = b, y = i;
                    while (x < y && s[x] == ' ') x++;
                    while (y > x && s[y - 1] == ' ') y--;
                    if (y > x) {
                        words[n] = s + x;
                        lens[n++] = y - x;
                    }
                    b = i + 1;
                }
            }
        }
    } else {
        n = e->nvals;
        words = n ? tv_malloc(n * sizeof *words) : words_buf;
        lens = n ? tv_malloc(n * sizeof *lens) : lens_buf;
        if (!words || !lens) {
            if (words != words_buf) tv_free(words);
            if (lens != lens_buf) tv_free(lens);
            return TROVE_ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
            words[i] = e->vals[i].s;
            lens[i] = e->vals[i].len;
        }
    }
    bool own_lens = lens != NULL && lens != lens_buf;
    if (!lens) { /* words came from a static set */
        lens = n ? tv_malloc(n * sizeof *lens) : lens_buf;
        if (!lens) return TROVE_ENOMEM;
        for (size_t i = 0; i < n; i++) lens[i] = strlen(words[i]);
        own_lens = n != 0;
        tv_termset *ts = tv_termset_new(words, lens, n, ignore_case);
        if (own_lens) tv_free(lens);
        if (!ts) return TROVE_ENOMEM;
        if (tv_vec_push(&a->sets, ts)) {
            tv_termset_free(ts);
            return TROVE_ENOMEM;
        }
        *out = ts;
        return TROVE_OK;
    }
    tv_termset *ts = tv_termset_new(words, lens, n, ignore_case);
    if (words != words_buf) tv_free(words);
    if (own_lens) tv_free(lens);
    if (!ts) return TROVE_ENOMEM;
    if (tv_vec_push(&a->sets, ts)) {
        tv_termset_free(ts);
        return TROVE_ENOMEM;
    }
    *out = ts;
    return TROVE_OK;
}

/* OpenSearch `stemmer` languages mapped onto libstemmer; others unsupported. */
static int stemmer_language(const char *l, size_t n, bool *possessive, bool *minimal) {
    static const struct { const char *lang, *algo; } m[] = {
        {"english", "porter"}, {"porter", "porter"}, {"porter2", "english"},
        {"arabic", "arabic"}, {"armenian", "armenian"}, {"basque", "basque"},
        {"catalan", "catalan"}, {"danish", "danish"}, {"dutch", "dutch"},
        {"finnish", "finnish"}, {"french", "french"}, {"german", "german"},
        {"hungarian", "hungarian"}, {"irish", "irish"}, {"italian", "italian"},
        {"lithuanian", "lithuanian"}, {"norwegian", "norwegian"}, {"portuguese", "portuguese"},
        {"romanian", "romanian"}, {"russian", "russian"}, {"spanish", "spanish"},
        {"swedish", "swedish"}, {"turkish", "turkish"}};
    *possessive = tv_streq(l, n, "possessive_english");
    *minimal = tv_streq(l, n, "minimal_english");
    if (*possessive || *minimal) return -2;
    for (size_t i = 0; i < TV_ARRAY_LEN(m); i++)
        if (tv_streq(l, n, m[i].lang)) return tv_stem_algo_find(m[i].algo, strlen(m[i].algo));
    return -1;
}

static tv_status build_filter(tv_analysis *a, const comp *c, tv_filter_def *d, tv_error *err) {
    size_t tn = 0;
    const char *type = setting_str(c, "type", &tn);
    memset(d, 0, sizeof *d);
    if (!type)
        return tv_error_set(err, TROVE_EARG, "filter [%s] must specify either an analyzer type, or a tokenizer",
                            c->name);
    tv_status st;
    if (tv_streq(type, tn, "lowercase") || tv_streq(type, tn, "uppercase")) {
        d->kind = type[0] == 'l' ? TV_TF_LOWERCASE : TV_TF_UPPERCASE;
        size_t ln;
        const char *lang = setting_str(c, "language", &ln);
        if (lang && ln)
            return tv_error_set(err, TROVE_EUNSUPPORTED,
                                "lowercase filter language [%s] is not supported", lang);
    } else if (tv_streq(type, tn, "stop")) {
        d->kind = TV_TF_STOP;
        bool remove_trailing;
        if ((st = setting_bool(c, "remove_trailing", true, &remove_trailing, err))) return st;
        if (!remove_trailing)
            return tv_error_set(err, TROVE_EUNSUPPORTED,
                                "stop filter [%s] with remove_trailing [false] is not supported",
                                c->name);
        if ((st = parse_stopwords(a, c, tv_stop_english(), &d->stop, err))) return st;
    } else if (tv_streq(type, tn, "asciifolding")) {
        d->kind = TV_TF_ASCIIFOLDING;
        if ((st = setting_bool(c, "preserve_original", false, &d->preserve_original, err))) return st;
    } else if (tv_streq(type, tn, "trim")) {
        d->kind = TV_TF_TRIM;
    } else if (tv_streq(type, tn, "length")) {
        d->kind = TV_TF_LENGTH;
        int64_t mn, mx;
        if ((st = setting_int(c, "min", 0, &mn, err))) return st;
        if ((st = setting_int(c, "max", INT32_MAX, &mx, err))) return st;
        if (mn < 0 || mx < mn)
            return tv_error_set(err, TROVE_EARG, "minimum length must be greater than or equal to zero and less than or equal to maximum length");
        d->min = (uint32_t)mn;
        d->max = (uint32_t)mx;
    } else if (tv_streq(type, tn, "porter_stem")) {
        d->kind = TV_TF_SNOWBALL;
        d->algo = tv_stem_algo_find("porter", 6);
    } else if (tv_streq(type, tn, "stemmer")) {
        size_t ln;
        const char *lang = setting_str(c, "language", &ln);
        if (!lang) lang = setting_str(c, "name", &ln);
        if (!lang) {
            lang = "porter";
            ln = 6;
        }
        bool poss, minimal;
        int algo = stemmer_language(lang, ln, &poss, &minimal);
        if (poss) d->kind = TV_TF_POSSESSIVE;
        else if (minimal) d->kind = TV_TF_MINIMAL_EN;
        else if (algo >= 0) {
            d->kind = TV_TF_SNOWBALL;
            d->algo = algo;
        } else
            return tv_error_set(err, TROVE_EUNSUPPORTED, "stemmer language [%s] is not supported",
                                lang);
    } else if (tv_streq(type, tn, "snowball")) {
        size_t ln;
        const char *lang = setting_str(c, "language", &ln);
        if (!lang) {
            lang = "English";
            ln = 7;
        }
        char low[32];
        size_t k = 0;
        for (; k < ln && k < sizeof low - 1; k++)
            low[k] = (char)((lang[k] >= 'A' && lang[k] <= 'Z') ? lang[k] + 32 : lang[k]);
        low[k] = 0;
        int algo = tv_stem_algo_find(low, k);
        if (algo < 0 || ln >= sizeof low)
            return tv_error_set(err, TROVE_EUNSUPPORTED, "snowball language [%s] is not supported",
                                lang);
        d->kind = TV_TF_SNOWBALL;
        d->algo = algo;
    } else if (in_list(unsupported_filters, TV_ARRAY_LEN(unsupported_filters), type, tn)) {
        return tv_error_set(err, TROVE_EUNSUPPORTED, "filter type [%s] is not supported", type);
    } else {
        return tv_error_set(err, TROVE_EARG, "Unknown filter type [%s] for [%s]", type, c->name);
    }
    return TROVE_OK;
}

static tv_status build_tokenizer(const comp *c, tv_tokenizer_def *d, tv_error *err) {
    size_t tn = 0;
    const char *type = setting_str(c, "type", &tn);
    if (!type)
        return tv_error_set(err, TROVE_EARG,
                            "tokenizer [%s] must specify either an analyzer type, or a tokenizer",
                            c->name);
    if (!builtin_tokenizer(type, tn, d)) {
        if (in_list(unsupported_tokenizers, TV_ARRAY_LEN(unsupported_tokenizers), type, tn))
            return tv_error_set(err, TROVE_EUNSUPPORTED, "tokenizer type [%s] is not supported",
                                type);
        return tv_error_set(err, TROVE_EARG, "Unknown tokenizer type [%s] for [%s]", type, c->name);
    }
    if (d->kind != TV_TK_KEYWORD) {
        int64_t m;
        tv_status st = setting_int(c, "max_token_length", 255, &m, err);
        if (st) return st;
        if (m <= 0 || m > 1024 * 1024)
            return tv_error_set(err, TROVE_EARG, "maxTokenLen must be greater than 0 and less than %d passed: %lld",
                                1024 * 1024, (long long)m);
        d->max_token_length = (uint32_t)m;
    }
    return TROVE_OK;
}

static tv_analyzer *analyzer_new(const char *name, size_t nlen, tv_tokenizer_def tok,
                                 const tv_filter_def *filters, size_t nfilters) {
    tv_analyzer *an = tv_calloc(1, sizeof *an);
    if (!an) return NULL;
    an->name = tv_strndup(name, nlen);
    an->tok = tok;
    an->nfilters = nfilters;
    an->filters = tv_malloc((nfilters ? nfilters : 1) * sizeof *an->filters);
    if (!an->name || !an->filters) {
        analyzer_destroy(an);
        return NULL;
    }
    if (nfilters) memcpy(an->filters, filters, nfilters * sizeof *filters);
    return an;
}

static const tv_filter_def *find_filter(const tv_analysis *a, const char *n, size_t len) {
    for (size_t i = 0; a && i < a->filters.len; i++)
        if (tv_streq(n, len, a->filters.items[i].name)) return &a->filters.items[i].def;
    return NULL;
}
static const tv_tokenizer_def *find_tok(const tv_analysis *a, const char *n, size_t len) {
    for (size_t i = 0; a && i < a->toks.len; i++)
        if (tv_streq(n, len, a->toks.items[i].name)) return &a->toks.items[i].def;
    return NULL;
}

static tv_status build_analyzer(tv_analysis *a, const comp *c, tv_error *err) {
    size_t tn = 0, kn = 0;
    const char *type = setting_str(c, "type", &tn);
    const char *tokname = setting_str(c, "tokenizer", &kn);
    tv_tokenizer_def tok = {TV_TK_STANDARD, 255};
    tv_filter_def fl[64];
    size_t nf = 0;
    tv_status st;
    if (setting(c, "char_filter")) {
        const tv_sjson_entry *e = setting(c, "char_filter");
        if (e->nvals > 0)
            return tv_error_set(err, TROVE_EUNSUPPORTED, "char_filter is not supported (analyzer [%s])",
                                c->name);
    }
    if (!type || tv_streq(type, tn, "custom")) {
        if (!tokname) {
            if (!type)
                return tv_error_set(err, TROVE_EARG,
                                    "analyzer [%s] must specify either an analyzer type, or a tokenizer",
                                    c->name);
            return tv_error_set(err, TROVE_EARG,
                                "Custom Analyzer [%s] must be configured with a tokenizer", c->name);
        }
        const tv_tokenizer_def *td = find_tok(a, tokname, kn);
        if (td) tok = *td;
        else if (!builtin_tokenizer(tokname, kn, &tok)) {
            if (in_list(unsupported_tokenizers, TV_ARRAY_LEN(unsupported_tokenizers), tokname, kn))
                return tv_error_set(err, TROVE_EUNSUPPORTED, "tokenizer [%s] is not supported",
                                    tokname);
            return tv_error_set(err, TROVE_EARG,
                                "Custom Analyzer [%s] failed to find tokenizer under name [%s]",
                                c->name, tokname);
        }
        const tv_sjson_entry *e = setting(c, "filter");
        for (size_t i = 0; e && i < e->nvals; i++) {
            const char *fn = e->vals[i].s;
            size_t fnl = e->vals[i].len;
            if (nf == TV_ARRAY_LEN(fl))
                return tv_error_set(err, TROVE_ELIMIT, "too many filters in analyzer [%s]", c->name);
            const tv_filter_def *fd = find_filter(a, fn, fnl);
            if (fd) fl[nf++] = *fd;
            else if (builtin_filter(fn, fnl, &fl[nf])) nf++;
            else if (in_list(unsupported_filters, TV_ARRAY_LEN(unsupported_filters), fn, fnl))
                return tv_error_set(err, TROVE_EUNSUPPORTED, "filter [%s] is not supported", fn);
            else
                return tv_error_set(err, TROVE_EARG,
                                    "Custom Analyzer [%s] failed to find filter under name [%s]",
                                    c->name, fn);
        }
    } else if (tv_streq(type, tn, "standard") || tv_streq(type, tn, "stop") ||
               tv_streq(type, tn, "english") || tv_streq(type, tn, "simple") ||
               tv_streq(type, tn, "whitespace") || tv_streq(type, tn, "keyword")) {
        const tv_analyzer *b = tv_analyzer_builtin(type, tn);
        tok = b->tok;
        for (size_t i = 0; i < b->nfilters; i++) fl[nf++] = b->filters[i];
        if (tok.kind == TV_TK_STANDARD || tok.kind == TV_TK_WHITESPACE) {
            int64_t m;
            if ((st = setting_int(c, "max_token_length", 255, &m, err))) return st;
            if (m <= 0 || m > 1024 * 1024)
                return tv_error_set(err, TROVE_EARG, "maxTokenLen must be greater than 0 and less than %d passed: %lld",
                                    1024 * 1024, (long long)m);
            tok.max_token_length = (uint32_t)m;
        }
        if (tv_streq(type, tn, "standard")) {
            /* standard: stop words none unless configured */
            const tv_termset *ts = NULL;
            if ((st = parse_stopwords(a, c, NULL, &ts, err))) return st;
            if (ts && ts->n) {
                fl[nf].kind = TV_TF_STOP;
                memset(&fl[nf], 0, sizeof fl[nf]);
                fl[nf].kind = TV_TF_STOP;
                fl[nf].stop = ts;
                nf++;
            }
        } else if (tv_streq(type, tn, "stop") || tv_streq(type, tn, "english")) {
            const tv_termset *ts = NULL;
            if (setting(c, "stem_exclusion"))
                return tv_error_set(err, TROVE_EUNSUPPORTED, "[stem_exclusion] is not supported");
            if ((st = parse_stopwords(a, c, tv_stop_english(), &ts, err))) return st;
            for (size_t i = 0; i < nf; i++)
                if (fl[i].kind == TV_TF_STOP) fl[i].stop = ts;
            if (!ts || !ts->n) { /* drop an empty stop filter */
                size_t o = 0;
                for (size_t i = 0; i < nf; i++)
                    if (fl[i].kind != TV_TF_STOP) fl[o++] = fl[i];
                nf = o;
            }
        }
    } else if (in_list(unsupported_analyzers, TV_ARRAY_LEN(unsupported_analyzers), type, tn)) {
        return tv_error_set(err, TROVE_EUNSUPPORTED, "analyzer type [%s] is not supported", type);
    } else {
        return tv_error_set(err, TROVE_EARG, "Unknown analyzer type [%s] for [%s]", type, c->name);
    }
    tv_analyzer *an = analyzer_new(c->name, c->name_len, tok, fl, nf);
    if (!an) return TROVE_ENOMEM;
    an->is_registry = true;
    if (tv_vec_push(&a->analyzers, an)) {
        analyzer_destroy(an);
        return TROVE_ENOMEM;
    }
    return TROVE_OK;
}

/* Component names of a kind, in order of first appearance. */
static tv_status each_component(tv_analysis *a, const tv_sjson_list *l, const char *kind,
                                tv_error *err) {
    size_t kl = strlen(kind);
    for (size_t i = 0; i < l->len; i++) {
        const tv_sjson_entry *e = &l->items[i];
        if (e->key_len <= kl + 1 || memcmp(e->key, kind, kl) != 0 || e->key[kl] != '.') continue;
        const char *name = e->key + kl + 1;
        const char *dot = memchr(name, '.', e->key_len - kl - 1);
        if (!dot) continue; /* "analyzer.x": not a component object */
        size_t nl = (size_t)(dot - name);
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) {
            const tv_sjson_entry *f = &l->items[j];
            seen = f->key_len > kl + 1 + nl && memcmp(f->key, e->key, kl + 1 + nl + 1) == 0;
        }
        if (seen) continue;
        comp c = {.name = name, .name_len = nl, .kind = kind, .all = l, .prefix_len = kl + 1 + nl + 1};
        char namez[256];
        if (nl >= sizeof namez) return tv_error_set(err, TROVE_EARG, "analysis component name too long");
        memcpy(namez, name, nl);
        namez[nl] = 0;
        c.name = namez;
        tv_status st;
        if (kind[0] == 'a') {
            st = build_analyzer(a, &c, err);
        } else if (kind[0] == 't') {
            named_tok nt = {0};
            st = build_tokenizer(&c, &nt.def, err);
            if (!st) {
                nt.name = tv_strndup(name, nl);
                if (!nt.name || tv_vec_push(&a->toks, nt)) {
                    tv_free(nt.name);
                    st = TROVE_ENOMEM;
                }
            }
        } else if (kind[0] == 'f') {
            named_filter nf = {0};
            st = build_filter(a, &c, &nf.def, err);
            if (!st) {
                nf.name = tv_strndup(name, nl);
                if (!nf.name || tv_vec_push(&a->filters, nf)) {
                    tv_free(nf.name);
                    st = TROVE_ENOMEM;
                }
            }
        } else { /* char_filter */
            st = tv_error_set(err, TROVE_EUNSUPPORTED, "char_filter [%s] is not supported", namez);
        }
        if (st == TROVE_ENOMEM) tv_error_oom(err);
        if (st) return st;
    }
    return TROVE_OK;
}

tv_analysis *tv_analysis_new(const char *json, size_t len, tv_error *err) {
    tv_error_clear(err);
    tv_analysis *a = tv_calloc(1, sizeof *a);
    if (!a) {
        tv_error_oom(err);
        return NULL;
    }
    if (!json || len == 0) return a;
    tv_arena ar;
    tv_arena_init(&ar);
    tv_sjson_list l;
    tv_status st = tv_sjson_flatten(&ar, json, len, &l);
    if (st == TROVE_ENOMEM) tv_error_oom(err);
    else if (st) tv_error_set(err, TROVE_EARG, "failed to parse analysis settings");
    if (!st) st = each_component(a, &l, "tokenizer", err);
    if (!st) st = each_component(a, &l, "filter", err);
    if (!st) st = each_component(a, &l, "char_filter", err);
    if (!st) st = each_component(a, &l, "analyzer", err);
    tv_arena_fini(&ar);
    if (st) {
        tv_analysis_free(a);
        return NULL;
    }
    return a;
}

tv_analyzer *tv_analyzer_wrap(const tv_analyzer *base, tv_analyzer_wrap_kind kind, uint32_t min,
                              uint32_t max) {
    size_t nb = base->nfilters;
    tv_filter_def *fl = tv_malloc((nb + 2) * sizeof *fl);
    if (!fl) return NULL;
    if (nb) memcpy(fl, base->filters, nb * sizeof *fl);
    memset(&fl[nb], 0, 2 * sizeof *fl);
    size_t nf = nb + 1;
    switch (kind) {
    case TV_WRAP_EDGE_NGRAM: fl[nb] = (tv_filter_def){.kind = TV_TF_EDGE_NGRAM, .min = min, .max = max}; break;
    case TV_WRAP_SHINGLE2: fl[nb] = (tv_filter_def){.kind = TV_TF_SHINGLE2}; break;
    case TV_WRAP_SHINGLE_N: fl[nb] = (tv_filter_def){.kind = TV_TF_SHINGLE_N, .min = min, .max = 0}; break;
    case TV_WRAP_SAYT_PREFIX:
        fl[nb] = (tv_filter_def){.kind = TV_TF_SHINGLE_N, .min = min, .max = min - 1};
        fl[nb + 1] = (tv_filter_def){.kind = TV_TF_EDGE_NGRAM, .min = 1, .max = 20, .preserve_original = true};
        nf = nb + 2;
        break;
    }
    tv_analyzer *an = analyzer_new(base->name, strlen(base->name), base->tok, fl, nf);
    tv_free(fl);
    return an;
}

tv_analyzer *tv_analyzer_compose(const tv_analysis *ctx, const char *tokenizer,
                                 const char *const *filters, size_t nfilters, tv_error *err) {
    tv_error_clear(err);
    tv_tokenizer_def tok = {TV_TK_STANDARD, 255};
    if (tokenizer) {
        size_t kn = strlen(tokenizer);
        const tv_tokenizer_def *td = find_tok(ctx, tokenizer, kn);
        if (td) tok = *td;
        else if (!builtin_tokenizer(tokenizer, kn, &tok)) {
            if (in_list(unsupported_tokenizers, TV_ARRAY_LEN(unsupported_tokenizers), tokenizer, kn)) {
                tv_error_set(err, TROVE_EUNSUPPORTED, "tokenizer [%s] is not supported", tokenizer);
                return NULL;
            }
            tv_error_set(err, TROVE_EARG, "failed to find %stokenizer under [%s]",
                         ctx ? "" : "global ", tokenizer);
            return NULL;
        }
    }
    tv_filter_def *fl = tv_malloc((nfilters ? nfilters : 1) * sizeof *fl);
    if (!fl) {
        tv_error_oom(err);
        return NULL;
    }
    for (size_t i = 0; i < nfilters; i++) {
        size_t fnl = strlen(filters[i]);
        const tv_filter_def *fd = find_filter(ctx, filters[i], fnl);
        if (fd) fl[i] = *fd;
        else if (!builtin_filter(filters[i], fnl, &fl[i])) {
            if (in_list(unsupported_filters, TV_ARRAY_LEN(unsupported_filters), filters[i], fnl))
                tv_error_set(err, TROVE_EUNSUPPORTED, "filter [%s] is not supported", filters[i]);
            else
                tv_error_set(err, TROVE_EARG, "failed to find %sfilter under [%s]",
                             ctx ? "" : "global ", filters[i]);
            tv_free(fl);
            return NULL;
        }
    }
    tv_analyzer *an = analyzer_new("_anonymous_", 11, tok, fl, nfilters);
    tv_free(fl);
    if (!an) tv_error_oom(err);
    return an;
}
