/*
 * analyzer.c — analyzers: running the pipeline (tv_analyze), the built-in
 * analyzers, analyzers composed for _analyze, and the per-index registry
 * built from the "analysis" settings.
 *
 * An analyzer is char filter, tokenizer and filter definitions (plain data;
 * the kinds beyond the core ones carry their catalog type, whose functions
 * run them): tv_analyze runs the char filters, the tokenizer into an arena
 * token array, each filter, maps offsets back through the char filters'
 * corrections, copies any term that still borrows the input into one arena
 * block, and turns position increments into absolute positions. Built-ins
 * are static and immutable; catalog analyzers named bare ("french") are
 * built once into a process-wide registry. tv_analyze_stages runs the
 * prefixes of a chain for _analyze explain.
 *
 * The registry parses the settings once (settings_json.c flattens nested
 * and dotted keys alike), builds named tokenizers and filters first, then
 * analyzers that refer to them, reporting OpenSearch's messages:
 *   "Unknown analyzer type [x] for [name]" (also tokenizer/filter),
 *   "analyzer [name] must specify either an analyzer type, or a tokenizer",
 *   "Custom Analyzer [name] failed to find tokenizer under name [x]",
 *   "Custom Analyzer [name] failed to find filter under name [x]".
 * Components that OpenSearch has but trove does not implement (html_strip,
 * shingle, ...: catalog.c) fail with TROVE_EUNSUPPORTED naming them, so an
 * index never silently analyzes differently from OpenSearch.
 *
 * Normalizers (index.analysis.normalizer.*, OpenSearch's
 * CustomNormalizerProvider) are analyzers over the keyword tokenizer whose
 * char filters and filters must all work on whole values (catalog.c's
 * normalizing lists): "Custom normalizer [n] may not use filter [f]". The
 * registry also keeps the index-level limits components check
 * (index.max_ngram_diff) and cleanups for memory outside its arena
 * (compiled regular expressions).
 *
 * Chain-aware filters (synonym, synonym_graph: getChainAwareTokenFilterFactory)
 * are specialised per analyzer once its tokenizer, char filters and filters
 * are resolved (tv_analyzer_parts_chain, for custom analyzers and composed
 * _analyze chains): each gets what precedes it, minus filters whose type
 * says they take no part in synonym parsing, and refusing those that cannot.
 */
#include <stdio.h>
#include <stdlib.h>

#include "text/settings_json.h"
#include "text/lang_eu.h"
#include "text/text_int.h"

/* ------------------------------------------------------------- names */

const char *tv_token_type_name(uint8_t type) {
    static const char *const names[TV_TOK_TYPE_COUNT] = {
        "word", "<ALPHANUM>", "<NUM>", "<SOUTHEAST_ASIAN>", "<IDEOGRAPHIC>", "<HIRAGANA>",
        "<KATAKANA>", "<HANGUL>", "<EMOJI>", "shingle", "SYNONYM", "<DOUBLE>", "<SINGLE>",
        "<APOSTROPHE>", "<ACRONYM>", "<COMPANY>", "<EMAIL>", "<HOST>", "<CJ>", "<ACRONYM_DEP>",
        "<URL>", "fingerprint", "MIN_HASH", "keyword", "gram"};
    return type < TV_ARRAY_LEN(names) ? names[type] : "word";
}

const char *tv_analyzer_name(const tv_analyzer *an) { return an ? an->name : ""; }

/* ------------------------------------------------------------ running */

/* Maps token byte offsets through the char filters' corrections (the last
 * filter's first) onto the original input, and recounts their UTF-16
 * offsets there. */
static void correct_offsets(const tv_offmap *maps, size_t nmaps, const char *src, size_t srclen,
                            tv_tokvec *v) {
    tv_u16pos ps = {(const uint8_t *)src, 0, 0}, pe = ps;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        uint32_t s = t->start, e = t->end;
        for (size_t k = nmaps; k-- > 0;) {
            s = tv_offmap_correct(&maps[k], s);
            e = tv_offmap_correct(&maps[k], e);
        }
        if (s > srclen) s = (uint32_t)srclen;
        if (e > srclen) e = (uint32_t)srclen;
        if (e < s) e = s;
        t->start = s;
        t->end = e;
        if (s < ps.byte) ps = (tv_u16pos){(const uint8_t *)src, 0, 0};
        if (e < pe.byte) pe = (tv_u16pos){(const uint8_t *)src, 0, 0};
        t->start16 = tv_u16_at(&ps, s);
        t->end16 = tv_u16_at(&pe, e);
    }
}

/* Runs the first ncf char filters over [*text, +*len), replacing both with
 * the output and filling maps[0 .. ncf). */
static tv_status run_charfilters(const tv_analyzer *an, tv_arena *arena, size_t ncf,
                                 const char **text, size_t *len, tv_offmap *maps) {
    for (size_t i = 0; i < ncf; i++) {
        tv_cfout o = {0};
        tv_status st = an->charfilters[i].ext->run(arena, an->charfilters[i].cfg, *text, *len, &o);
        if (st) return st;
        if (o.len > UINT32_MAX) return TROVE_ELIMIT;
        maps[i] = o.map;
        *text = o.text ? o.text : "";
        *len = o.len;
    }
    return TROVE_OK;
}

/* The chain of `an` with its char filters, tokenizer and first nfilters
 * filters (tv_analyze runs all of them; explain runs prefixes). */
static tv_status run_chain(const tv_analyzer *an, tv_arena *arena, const char *text, size_t len,
                           uint32_t position_offset, size_t nfilters, tv_tokens *out) {
    memset(out, 0, sizeof *out);
    out->end_position = position_offset;
    if (len > UINT32_MAX) return TROVE_ELIMIT;
    if (!text) text = "";
    /* char filters: the tokenizer reads their output (in the arena); token
     * offsets are mapped back through each filter's corrections below */
    const char *src = text;
    size_t srclen = len;
    tv_offmap maps[TV_PARTS_MAX_CHARFILTERS];
    size_t nmaps = an->ncharfilters < TV_PARTS_MAX_CHARFILTERS ? an->ncharfilters
                                                                : TV_PARTS_MAX_CHARFILTERS;
    tv_status cst = run_charfilters(an, arena, nmaps, &text, &len, maps);
    if (cst) return cst;
    tv_tokvec v = {0};
    /* pre-size for ordinary prose (a token per ~6 bytes) to avoid regrowth */
    size_t guess = len / 6 + 8;
    if (guess > 4096) guess = 4096;
    v.items = tv_arena_alloc(arena, guess * sizeof *v.items);
    if (!v.items) return TROVE_ENOMEM;
    v.cap = guess;
    tv_status st = tv_tokenize(arena, &an->tok, text, len, &v);
    if (st) return st;
    const void *morph = v.morph; /* filters that build a new array may drop it */
    bool graph_off = false;
    for (size_t i = 0; i < nfilters && i < an->nfilters; i++) {
        /* the end of the text (Lucene's final offset), re-set for each
         * filter: filters that build a new array need not carry it */
        v.final_text = text;
        v.final_off = (uint32_t)len;
        st = tv_filter_apply(arena, &an->filters[i], &v);
        if (st) return st;
        if (!v.morph) v.morph = morph;
        graph_off |= v.graph_off;
    }
    out->graph_off = graph_off;
    if (nmaps) correct_offsets(maps, nmaps, src, srclen, &v);
    /* copy terms that still borrow the input into one arena block (those
     * borrowing a char filter's output are in the arena already) */
    uintptr_t lo = (uintptr_t)src, hi = lo + srclen;
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

tv_status tv_analyze(const tv_analyzer *an, tv_arena *arena, const char *text, size_t len,
                     uint32_t position_offset, tv_tokens *out) {
    return run_chain(an, arena, text, len, position_offset, an->nfilters, out);
}

size_t tv_analyzer_stage_count(const tv_analyzer *an) {
    return an->is_custom ? an->ncharfilters + 1 + an->nfilters : 1;
}

static const char *tok_name(const tv_tokenizer_def *d) {
    static const char *const core[] = {"standard", "whitespace", "keyword", "letter", "lowercase"};
    if (d->name) return d->name;
    if (d->kind == TV_TK_EXT) return d->ext->name;
    return d->kind < TV_ARRAY_LEN(core) ? core[d->kind] : "tokenizer";
}

static const char *filter_name(const tv_filter_def *d) {
    static const char *const core[] = {"lowercase", "uppercase", "stop", "asciifolding", "trim",
                                       "length", "snowball", "english_possessive",
                                       "minimal_english", "edge_ngram", "shingle", "shingle"};
    if (d->name) return d->name;
    if (d->kind == TV_TF_EXT) return d->ext->name;
    return d->kind < TV_ARRAY_LEN(core) ? core[d->kind] : "filter";
}

static bool normalizing_filter(const tv_filter_def *d);

static bool adds_keyword_attr(const tv_filter_def *d) {
    if (d->kind == TV_TF_EXT) return (d->ext->traits & TV_TRAIT_KEYWORD_ATTR) != 0;
    return d->kind == TV_TF_SNOWBALL || d->kind == TV_TF_MINIMAL_EN;
}


tv_status tv_analyze_stages(const tv_analyzer *an, tv_arena *arena, const char *text, size_t len,
                            uint32_t position_offset, tv_stage *out) {
    if (!an->is_custom) {
        memset(out, 0, sizeof *out);
        out->kind = TV_STAGE_ANALYZER;
        out->name = an->name;
        for (size_t i = 0; i < an->nfilters; i++) out->keyword_attr |= adds_keyword_attr(&an->filters[i]);
        return tv_analyze(an, arena, text, len, position_offset, &out->tokens);
    }
    size_t k = 0;
    tv_status st;
    tv_offmap maps[TV_PARTS_MAX_CHARFILTERS];
    const char *in = text;
    size_t inlen = len;
    for (size_t i = 0; i < an->ncharfilters && i < TV_PARTS_MAX_CHARFILTERS; i++) {
        tv_stage *s = &out[k++];
        memset(s, 0, sizeof *s);
        s->kind = TV_STAGE_CHARFILTER;
        s->name = an->charfilters[i].name ? an->charfilters[i].name : an->charfilters[i].ext->name;
        s->text = text ? text : "";
        s->text_len = len;
        /* each char filter's own output over the previous one's */
        tv_analyzer one = *an;
        one.charfilters = (tv_charfilter_def *)&an->charfilters[i];
        if ((st = run_charfilters(&one, arena, 1, &s->text, &s->text_len, maps))) return st;
        text = s->text;
        len = s->text_len;
    }
    /* the token stages run over the original input, as Lucene rebuilds the
     * stream per stage, so their offsets point into it */
    bool kw = false;
    for (size_t j = 0; j <= an->nfilters; j++) {
        tv_stage *s = &out[k++];
        memset(s, 0, sizeof *s);
        s->kind = j ? TV_STAGE_FILTER : TV_STAGE_TOKENIZER;
        s->name = j ? filter_name(&an->filters[j - 1]) : tok_name(&an->tok);
        if (j) kw |= adds_keyword_attr(&an->filters[j - 1]);
        s->keyword_attr = kw;
        if ((st = run_chain(an, arena, in, inlen, position_offset, j, &s->tokens))) return st;
    }
    return TROVE_OK;
}

/* ----------------------------------------------------------- built-ins */

static const tv_filter_def f_lower = {.kind = TV_TF_LOWERCASE};
static const tv_filter_def simple_filters[] = {{.kind = TV_TF_LOWERCASE}};
static tv_filter_def stop_filters[2] = {{.kind = TV_TF_LOWERCASE}, {.kind = TV_TF_STOP}};
static tv_filter_def english_filters[4] = {{.kind = TV_TF_POSSESSIVE},
                                           {.kind = TV_TF_LOWERCASE},
                                           {.kind = TV_TF_STOP},
                                           {.kind = TV_TF_SNOWBALL, .algo = 0 /* porter */,
                                            .min = 3 /* PorterStemFilter */}};

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


/* ------------------------------------------------------------ registry */

typedef struct named_tok {
    char *name;
    tv_tokenizer_def def;
} named_tok;
typedef struct named_filter {
    char *name;
    tv_filter_def def;
} named_filter;
typedef struct named_cf {
    char *name;
    tv_charfilter_def def;
} named_cf;

struct on_free {
    void (*fn)(void *);
    void *p;
};

struct tv_analysis {
    TV_VEC(tv_analyzer *) analyzers;
    TV_VEC(tv_analyzer *) normalizers; /* index.analysis.normalizer.* */
    TV_VEC(named_tok) toks;
    TV_VEC(named_filter) filters;
    TV_VEC(named_cf) cfs;
    TV_VEC(tv_termset *) sets;
    TV_VEC(struct on_free) on_free; /* run when the registry is freed */
    tv_arena arena; /* component configurations (tv_comp_alloc) */
    tv_analysis_limits limits; /* index-level limits components check */
    const struct tv_analysis *ctx;  /* while building an _analyze scratch: the index's */
    const tv_sjson_list *settings;  /* while building: the flattened settings */
    int ref_depth;                  /* nesting of tv_comp_filter_ref builds */
};

tv_status tv_analysis_on_free(tv_analysis *a, void (*fn)(void *), void *p) {
    struct on_free f = {fn, p};
    if (tv_vec_push(&a->on_free, f)) {
        fn(p);
        return TROVE_ENOMEM;
    }
    return TROVE_OK;
}

static const tv_analysis_limits default_limits = {.max_ngram_diff = 1, .max_shingle_diff = 3};

const tv_analysis_limits *tv_comp_limits(const tv_comp *c) {
    return c->reg ? &c->reg->limits : &default_limits;
}

void *tv_analysis_alloc(tv_analysis *a, size_t n) { return tv_arena_alloc(&a->arena, n); }

tv_status tv_analysis_keep_set(tv_analysis *a, tv_termset *ts) {
    return tv_vec_push(&a->sets, ts) ? TROVE_ENOMEM : TROVE_OK;
}

static tv_analysis *analysis_alloc(void) {
    tv_analysis *a = tv_calloc(1, sizeof *a);
    if (a) {
        tv_arena_init(&a->arena);
        a->limits = default_limits;
    }
    return a;
}


static void analyzer_destroy(tv_analyzer *an) {
    if (!an) return;
    tv_free(an->name);
    tv_free(an->filters);
    tv_free(an->charfilters);
    tv_analysis_free(an->scratch);
    tv_free(an);
}

void tv_analyzer_free(tv_analyzer *an) {
    if (!an || an->is_static || an->is_registry) return;
    analyzer_destroy(an);
}

void tv_analysis_free(tv_analysis *a) {
    if (!a) return;
    for (size_t i = 0; i < a->analyzers.len; i++) analyzer_destroy(a->analyzers.items[i]);
    for (size_t i = 0; i < a->normalizers.len; i++) analyzer_destroy(a->normalizers.items[i]);
    tv_vec_fini(&a->normalizers);
    for (size_t i = 0; i < a->toks.len; i++) tv_free(a->toks.items[i].name);
    for (size_t i = 0; i < a->filters.len; i++) tv_free(a->filters.items[i].name);
    for (size_t i = 0; i < a->cfs.len; i++) tv_free(a->cfs.items[i].name);
    for (size_t i = 0; i < a->sets.len; i++) tv_termset_free(a->sets.items[i]);
    for (size_t i = a->on_free.len; i-- > 0;) a->on_free.items[i].fn(a->on_free.items[i].p);
    tv_vec_fini(&a->on_free);
    tv_vec_fini(&a->analyzers);
    tv_vec_fini(&a->toks);
    tv_vec_fini(&a->filters);
    tv_vec_fini(&a->cfs);
    tv_vec_fini(&a->sets);
    tv_arena_fini(&a->arena);
    tv_free(a);
}

static const tv_analyzer *catalog_builtin(const char *name, size_t len);

const tv_analyzer *tv_analyzer_builtin(const char *name, size_t len) {
    pthread_once(&builtins_once, builtins_init);
    for (size_t i = 0; i < TV_ARRAY_LEN(builtins); i++)
        if (tv_streq(name, len, builtins[i].name)) return &builtins[i];
    return catalog_builtin(name, len);
}

const tv_analyzer *tv_analysis_get(const tv_analysis *a, const char *name, size_t len) {
    if (a) {
        for (size_t i = 0; i < a->analyzers.len; i++)
            if (tv_streq(name, len, a->analyzers.items[i]->name)) return a->analyzers.items[i];
    }
    return tv_analyzer_builtin(name, len);
}

/* A component with no settings (referred to by bare name), in registry a. */
static tv_comp bare_comp(tv_analysis *a, const char *kind, const char *name, size_t len) {
    return (tv_comp){.name = name, .name_len = len, .kind = kind, .all = NULL, .reg = a};
}

/* Core tokenizers by name. */
static bool core_tokenizer(const char *n, size_t len, tv_tokenizer_def *d) {
    static const struct { const char *name; uint8_t kind; } t[] = {
        {"standard", TV_TK_STANDARD}, {"whitespace", TV_TK_WHITESPACE}, {"keyword", TV_TK_KEYWORD},
        {"letter", TV_TK_LETTER}, {"lowercase", TV_TK_LOWERCASE}};
    for (size_t i = 0; i < TV_ARRAY_LEN(t); i++)
        if (tv_streq(n, len, t[i].name)) {
            memset(d, 0, sizeof *d);
            d->kind = t[i].kind;
            d->max_token_length = 255;
            return true;
        }
    return false;
}

/* Core filters by bare name (their defaults). */
static bool core_filter(const char *n, size_t len, tv_filter_def *d) {
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
        d->min = 3; /* PorterStemFilter */
    } else if (tv_streq(n, len, "snowball")) {
        d->kind = TV_TF_SNOWBALL;
        d->algo = tv_stem_algo_find("english", 7);
    } else return false;
    return true;
}

/* A catalog tokenizer/filter/char filter built from component c. */
static tv_status ext_tokenizer(const tv_tokenizer_type *t, tv_comp *c, tv_tokenizer_def *d,
                               tv_error *err) {
    memset(d, 0, sizeof *d);
    d->kind = TV_TK_EXT;
    d->ext = t;
    return t->build ? t->build(c, &d->cfg, err) : TROVE_OK;
}
static tv_status ext_filter(const tv_filter_type *t, tv_comp *c, tv_filter_def *d,
                            tv_error *err) {
    memset(d, 0, sizeof *d);
    d->kind = TV_TF_EXT;
    d->ext = t;
    return t->build ? t->build(c, &d->cfg, err) : TROVE_OK;
}
static tv_status ext_charfilter(const tv_charfilter_type *t, tv_comp *c, tv_charfilter_def *d,
                                tv_error *err) {
    memset(d, 0, sizeof *d);
    d->ext = t;
    return t->build ? t->build(c, &d->cfg, err) : TROVE_OK;
}

/* Resolves a tokenizer/filter/char filter referred to by name: the
 * registry's own (ctx, then reg), then the core and catalog ones with
 * default settings (built in reg). TROVE_ENOTFOUND (err untouched) when none has the name,
 * TROVE_EUNSUPPORTED (err set) when OpenSearch has it and trove does not. */
static const tv_tokenizer_def *find_tok(const tv_analysis *a, const char *n, size_t len) {
    for (size_t i = 0; a && i < a->toks.len; i++)
        if (tv_streq(n, len, a->toks.items[i].name)) return &a->toks.items[i].def;
    return NULL;
}
static const tv_filter_def *find_filter(const tv_analysis *a, const char *n, size_t len) {
    for (size_t i = 0; a && i < a->filters.len; i++)
        if (tv_streq(n, len, a->filters.items[i].name)) return &a->filters.items[i].def;
    return NULL;
}
static const tv_charfilter_def *find_cf(const tv_analysis *a, const char *n, size_t len) {
    for (size_t i = 0; a && i < a->cfs.len; i++)
        if (tv_streq(n, len, a->cfs.items[i].name)) return &a->cfs.items[i].def;
    return NULL;
}

static tv_status resolve_tok(const tv_analysis *ctx, tv_analysis *reg, const char *n, size_t len,
                             tv_tokenizer_def *d, tv_error *err) {
    const tv_tokenizer_def *td = find_tok(reg, n, len);
    if (!td) td = find_tok(ctx, n, len);
    if (td) {
        *d = *td;
        return TROVE_OK;
    }
    tv_comp c = bare_comp(reg, "tokenizer", n, len);
    if (core_tokenizer(n, len, d)) return (d->name = tv_comp_strdup(&c, n, len)) ? TROVE_OK : TROVE_ENOMEM;
    const tv_tokenizer_type *t = tv_catalog_tokenizer(n, len);
    if (t) {
        tv_status st = ext_tokenizer(t, &c, d, err);
        if (!st && !(d->name = tv_comp_strdup(&c, n, len))) st = TROVE_ENOMEM;
        return st;
    }
    if (tv_catalog_unsupported("tokenizer", n, len))
        return tv_error_set(err, TROVE_EUNSUPPORTED, "tokenizer [%.*s] is not supported",
                            (int)len, n);
    return TROVE_ENOTFOUND;
}

static tv_status resolve_filter(const tv_analysis *ctx, tv_analysis *reg, const char *n,
                                size_t len, tv_filter_def *d, tv_error *err) {
    const tv_filter_def *fd = find_filter(reg, n, len);
    if (!fd) fd = find_filter(ctx, n, len);
    if (fd) {
        *d = *fd;
        return TROVE_OK;
    }
    tv_comp c = bare_comp(reg, "filter", n, len);
    if (core_filter(n, len, d)) return (d->name = tv_comp_strdup(&c, n, len)) ? TROVE_OK : TROVE_ENOMEM;
    const tv_filter_type *t = tv_catalog_filter(n, len);
    if (t) {
        tv_status st = ext_filter(t, &c, d, err);
        if (!st && !(d->name = tv_comp_strdup(&c, n, len))) st = TROVE_ENOMEM;
        return st;
    }
    if (tv_catalog_unsupported("filter", n, len))
        return tv_error_set(err, TROVE_EUNSUPPORTED, "filter [%.*s] is not supported", (int)len,
                            n);
    return TROVE_ENOTFOUND;
}

static tv_status resolve_cf(const tv_analysis *ctx, tv_analysis *reg, const char *n, size_t len,
                            tv_charfilter_def *d, tv_error *err) {
    const tv_charfilter_def *cd = find_cf(reg, n, len);
    if (!cd) cd = find_cf(ctx, n, len);
    if (cd) {
        *d = *cd;
        return TROVE_OK;
    }
    const tv_charfilter_type *t = tv_catalog_charfilter(n, len);
    if (t) {
        tv_comp c = bare_comp(reg, "char_filter", n, len);
        tv_status st = ext_charfilter(t, &c, d, err);
        if (!st && !(d->name = tv_comp_strdup(&c, n, len))) st = TROVE_ENOMEM;
        return st;
    }
    if (tv_catalog_unsupported("char_filter", n, len))
        return tv_error_set(err, TROVE_EUNSUPPORTED, "char_filter [%.*s] is not supported",
                            (int)len, n);
    return TROVE_ENOTFOUND;
}

/* OpenSearch `stemmer` languages mapped onto libstemmer; others unsupported. */
static int stemmer_language(const char *l, size_t n, bool *possessive, bool *minimal) {
    static const struct { const char *lang, *algo; } m[] = {
        {"english", "porter"}, {"porter", "porter"}, {"porter2", "english"},
        {"arabic", "arabic"}, {"armenian", "armenian"}, {"basque", "basque"},
        {"catalan", "catalan"}, {"danish", "danish"}, {"dutch", "dutch"},
        {"finnish", "finnish"}, {"french", "french"},
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


static tv_status build_filter(tv_comp *c, tv_filter_def *d, tv_error *err) {
    size_t tn = 0;
    const char *type = tv_comp_str(c, "type", &tn);
    memset(d, 0, sizeof *d);
    if (!type)
        return tv_error_set(err, TROVE_EARG, "filter [%s] must specify either an analyzer type, or a tokenizer",
                            c->name);
    tv_status st;
    if (tv_streq(type, tn, "lowercase") || tv_streq(type, tn, "uppercase")) {
        d->kind = type[0] == 'l' ? TV_TF_LOWERCASE : TV_TF_UPPERCASE;
        size_t ln;
        const char *lang = tv_comp_str(c, "language", &ln);
        if (lang && ln && d->kind == TV_TF_LOWERCASE) {
            /* LowerCaseTokenFilterFactory: greek, irish and turkish have
             * their own filters; the name compares ignoring case */
            char low[16];
            size_t k = 0;
            for (; k < ln && k < sizeof low - 1; k++)
                low[k] = (char)(lang[k] >= 'A' && lang[k] <= 'Z' ? lang[k] + 32 : lang[k]);
            low[k] = 0;
            if (ln < sizeof low && tv_lang_lowercase(low, k))
                return ext_filter(tv_lang_lowercase(low, k), c, d, err);
            if (ln < sizeof low && !strcmp(low, "irish"))
                return ext_filter(&tv_tf_irish_lowercase, c, d, err);
            if (ln < sizeof low && !strcmp(low, "turkish"))
                return ext_filter(&tv_tf_turkish_lowercase, c, d, err);
            return tv_error_set(err, TROVE_EARG, "language [%s] not support for lower case", lang);
        }
        if (lang && ln)
            return tv_error_set(err, TROVE_EUNSUPPORTED,
                                "lowercase filter language [%s] is not supported", lang);
    } else if (tv_streq(type, tn, "stop")) {
        d->kind = TV_TF_STOP;
        bool remove_trailing, ignore_case;
        if ((st = tv_comp_bool(c, "remove_trailing", true, &remove_trailing, err))) return st;
        if (!remove_trailing)
            return tv_error_set(err, TROVE_EUNSUPPORTED,
                                "stop filter [%s] with remove_trailing [false] is not supported",
                                c->name);
        if ((st = tv_comp_bool(c, "ignore_case", false, &ignore_case, err))) return st;
        if ((st = tv_comp_words(c, "stopwords", tv_stop_english(), ignore_case, &d->stop, err)))
            return st;
    } else if (tv_streq(type, tn, "asciifolding")) {
        d->kind = TV_TF_ASCIIFOLDING;
        if ((st = tv_comp_bool(c, "preserve_original", false, &d->preserve_original, err))) return st;
    } else if (tv_streq(type, tn, "trim")) {
        d->kind = TV_TF_TRIM;
    } else if (tv_streq(type, tn, "length")) {
        d->kind = TV_TF_LENGTH;
        int64_t mn, mx;
        if ((st = tv_comp_int(c, "min", 0, &mn, err))) return st;
        if ((st = tv_comp_int(c, "max", INT32_MAX, &mx, err))) return st;
        if (mn < 0 || mx < mn)
            return tv_error_set(err, TROVE_EARG, "minimum length must be greater than or equal to zero and less than or equal to maximum length");
        d->min = (uint32_t)mn;
        d->max = (uint32_t)mx;
    } else if (tv_streq(type, tn, "porter_stem")) {
        d->kind = TV_TF_SNOWBALL;
        d->algo = tv_stem_algo_find("porter", 6);
        d->min = 3; /* PorterStemFilter */
    } else if (tv_streq(type, tn, "stemmer")) {
        size_t ln;
        const char *lang = tv_comp_str(c, "language", &ln);
        if (!lang) lang = tv_comp_str(c, "name", &ln);
        if (!lang) {
            lang = "porter";
            ln = 6;
        }
        const tv_filter_type *lt = tv_lang_stemmer(lang, ln);
        if (lt) return ext_filter(lt, c, d, err);
        st = tv_lang_eu_stemmer(lang, ln, d, err);
        if (st != TROVE_ENOTFOUND) return st;
        bool poss, minimal;
        int algo = stemmer_language(lang, ln, &poss, &minimal);
        if (poss) d->kind = TV_TF_POSSESSIVE;
        else if (minimal) d->kind = TV_TF_MINIMAL_EN;
        else if (algo >= 0) {
            d->kind = TV_TF_SNOWBALL;
            d->algo = algo;
            /* "english" and "porter" are Lucene's PorterStemFilter */
            if (algo == tv_stem_algo_find("porter", 6)) d->min = 3;
        } else
            return tv_error_set(err, TROVE_EUNSUPPORTED, "stemmer language [%s] is not supported",
                                lang);
    } else if (tv_streq(type, tn, "snowball")) {
        size_t ln;
        const char *lang = tv_comp_str(c, "language", &ln);
        if (!lang) {
            lang = "English";
            ln = 7;
        }
        char low[32];
        size_t k = 0;
        for (; k < ln && k < sizeof low - 1; k++)
            low[k] = (char)((lang[k] >= 'A' && lang[k] <= 'Z') ? lang[k] + 32 : lang[k]);
        low[k] = 0;
        /* Lucene 10's German is Snowball's German2 (tf_snowball_compat.c), and German2
         * runs it; it has no Kp or Lovins; OpenSearch capitalizes the name's first letter */
        extern const tv_filter_type tv_tf_german2;
        if (ln < sizeof low && (!strcmp(low, "german2") || !strcmp(low, "german")))
            return ext_filter(&tv_tf_german2, c, d, err);
        if (ln < sizeof low && (!strcmp(low, "kp") || !strcmp(low, "lovins")))
            return tv_error_set(err, TROVE_EARG, "Invalid stemmer class specified: %c%s",
                                low[0] - 32, lang + 1);
        int algo = tv_stem_algo_find(low, k);
        if (algo < 0 || ln >= sizeof low)
            return tv_error_set(err, TROVE_EUNSUPPORTED, "snowball language [%s] is not supported",
                                lang);
        *d = tv_lang_snowball_def(algo);
    } else if (tv_catalog_filter(type, tn)) {
        return ext_filter(tv_catalog_filter(type, tn), c, d, err);
    } else if (tv_catalog_unsupported("filter", type, tn)) {
        return tv_error_set(err, TROVE_EUNSUPPORTED, "filter type [%s] is not supported", type);
    } else {
        return tv_error_set(err, TROVE_EARG, "Unknown filter type [%s] for [%s]", type, c->name);
    }
    return TROVE_OK;
}

static tv_status build_tokenizer(tv_comp *c, tv_tokenizer_def *d, tv_error *err) {
    size_t tn = 0;
    const char *type = tv_comp_str(c, "type", &tn);
    if (!type)
        return tv_error_set(err, TROVE_EARG,
                            "tokenizer [%s] must specify either an analyzer type, or a tokenizer",
                            c->name);
    if (!core_tokenizer(type, tn, d)) {
        const tv_tokenizer_type *t = tv_catalog_tokenizer(type, tn);
        if (t) return ext_tokenizer(t, c, d, err);
        if (tv_catalog_unsupported("tokenizer", type, tn))
            return tv_error_set(err, TROVE_EUNSUPPORTED, "tokenizer type [%s] is not supported",
                                type);
        return tv_error_set(err, TROVE_EARG, "Unknown tokenizer type [%s] for [%s]", type, c->name);
    }
    if (d->kind != TV_TK_KEYWORD) {
        int64_t m;
        tv_status st = tv_comp_int(c, "max_token_length", 255, &m, err);
        if (st) return st;
        if (m <= 0 || m > 1024 * 1024)
            return tv_error_set(err, TROVE_EARG, "maxTokenLen must be greater than 0 and less than %d passed: %lld",
                                1024 * 1024, (long long)m);
        d->max_token_length = (uint32_t)m;
    }
    return TROVE_OK;
}

static tv_status build_charfilter(tv_comp *c, tv_charfilter_def *d, tv_error *err) {
    size_t tn = 0;
    const char *type = tv_comp_str(c, "type", &tn);
    if (!type)
        return tv_error_set(err, TROVE_EARG,
                            "char filter [%s] must specify either an analyzer type, or a tokenizer",
                            c->name);
    const tv_charfilter_type *t = tv_catalog_charfilter(type, tn);
    if (t) return ext_charfilter(t, c, d, err);
    if (tv_catalog_unsupported("char_filter", type, tn))
        return tv_error_set(err, TROVE_EUNSUPPORTED, "char_filter type [%s] is not supported", type);
    return tv_error_set(err, TROVE_EARG, "Unknown char_filter type [%s] for [%s]", type, c->name);
}

static tv_analyzer *analyzer_new(const char *name, size_t nlen, const tv_analyzer_parts *p) {
    tv_analyzer *an = tv_calloc(1, sizeof *an);
    if (!an) return NULL;
    an->name = tv_strndup(name, nlen);
    an->tok = p->tok;
    an->nfilters = p->nfilters;
    an->filters = tv_malloc((p->nfilters ? p->nfilters : 1) * sizeof *an->filters);
    if (p->ncharfilters) {
        an->ncharfilters = p->ncharfilters;
        an->charfilters = tv_malloc(p->ncharfilters * sizeof *an->charfilters);
    }
    if (!an->name || !an->filters || (p->ncharfilters && !an->charfilters)) {
        analyzer_destroy(an);
        return NULL;
    }
    if (p->nfilters) memcpy(an->filters, p->filters, p->nfilters * sizeof *p->filters);
    if (p->ncharfilters)
        memcpy(an->charfilters, p->charfilters, p->ncharfilters * sizeof *p->charfilters);
    return an;
}

/* A custom analyzer's char_filter, tokenizer and filter lists (OpenSearch's
 * CustomAnalyzerProvider). */
static tv_status build_custom(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    const char *const *names;
    const size_t *lens;
    size_t n;
    tv_status st;
    size_t kn = 0;
    const char *tokname = tv_comp_str(c, "tokenizer", &kn);
    if (!tokname)
        return tv_error_set(err, TROVE_EARG,
                            "Custom Analyzer [%s] must be configured with a tokenizer", c->name);
    st = resolve_tok(NULL, c->reg, tokname, kn, &p->tok, err);
    if (st == TROVE_ENOTFOUND)
        return tv_error_set(err, TROVE_EARG,
                            "Custom Analyzer [%s] failed to find tokenizer under name [%s]",
                            c->name, tokname);
    if (st) return st;
    tv_comp_list(c, "char_filter", &names, &lens, &n);
    for (size_t i = 0; i < n; i++) {
        if (p->ncharfilters == TV_PARTS_MAX_CHARFILTERS)
            return tv_error_set(err, TROVE_ELIMIT, "too many char filters in analyzer [%s]",
                                c->name);
        st = resolve_cf(NULL, c->reg, names[i], lens[i], &p->charfilters[p->ncharfilters], err);
        if (st == TROVE_ENOTFOUND)
            return tv_error_set(err, TROVE_EARG,
                                "Custom Analyzer [%s] failed to find char_filter under name [%s]",
                                c->name, names[i]);
        if (st) return st;
        p->ncharfilters++;
    }
    tv_comp_list(c, "filter", &names, &lens, &n);
    for (size_t i = 0; i < n; i++) {
        if (p->nfilters == TV_PARTS_MAX_FILTERS)
            return tv_error_set(err, TROVE_ELIMIT, "too many filters in analyzer [%s]", c->name);
        st = resolve_filter(NULL, c->reg, names[i], lens[i], &p->filters[p->nfilters], err);
        if (st == TROVE_ENOTFOUND)
            return tv_error_set(err, TROVE_EARG,
                                "Custom Analyzer [%s] failed to find filter under name [%s]",
                                c->name, names[i]);
        if (st) return st;
        p->nfilters++;
    }
    /* synonym filters analyze their rules with what precedes them here */
    return tv_analyzer_parts_chain(c->reg, p, names, err);
}

/* Lets each chain-aware filter (synonyms) of p build its configuration
 * for this analyzer: a CustomAnalyzer of p's tokenizer, char filters and
 * the filters before it, each as it takes part in synonym parsing. */
tv_status tv_analyzer_parts_chain(tv_analysis *reg, tv_analyzer_parts *p,
                                  const char *const *names, tv_error *err) {
    for (size_t i = 0; i < p->nfilters; i++) {
        tv_filter_def *f = &p->filters[i];
        if (f->kind != TV_TF_EXT || !f->ext->chain) continue;
        tv_filter_def before[TV_PARTS_MAX_FILTERS];
        const char *bnames[TV_PARTS_MAX_FILTERS];
        size_t nb = 0;
        for (size_t k = 0; k < i; k++) {
            const tv_filter_def *g = &p->filters[k];
            uint8_t how = g->kind == TV_TF_EXT ? g->ext->in_synonyms : TV_SYN_SELF;
            if (how == TV_SYN_SKIP) continue;
            if (how == TV_SYN_REJECT)
                return tv_error_set(err, TROVE_EARG,
                                    "Token filter [%s] cannot be used to parse synonyms",
                                    names ? names[k] : g->ext->name);
            before[nb] = *g;
            bnames[nb++] = names ? names[k] : "";
        }
        tv_analyzer_chain ch = {.tok = &p->tok, .charfilters = p->charfilters,
                                .ncharfilters = p->ncharfilters, .filters = before,
                                .names = bnames, .nfilters = nb};
        const char *nm = names ? names[i] : f->ext->name;
        tv_comp c = bare_comp(reg, "filter", nm, strlen(nm));
        tv_status st = f->ext->chain(&c, &ch, &f->cfg, err);
        if (st) return st;
    }
    return TROVE_OK;
}

bool tv_analyzer_time_check(const tv_analyzer *an, const char *mode, char *names, size_t cap) {
    size_t o = 0;
    bool bad = false;
    if (cap) names[0] = 0;
    for (size_t i = 0; an && i < an->nfilters; i++) {
        const tv_filter_def *f = &an->filters[i];
        const char *nm = f->kind == TV_TF_EXT && f->ext->search_time_only
                             ? f->ext->search_time_only(f->cfg) : NULL;
        if (!nm || mode[0] == 's') continue; /* search time: allowed */
        int w = snprintf(names + o, o < cap ? cap - o : 0, "%s%s", bad ? ", " : "", nm);
        if (w > 0) o += (size_t)w;
        if (o >= cap) o = cap ? cap - 1 : 0;
        bad = true;
    }
    return !bad;
}

/* The core built-in analyzer types, configured (stopwords, max_token_length). */
static tv_status build_core(tv_comp *c, const char *type, size_t tn, tv_analyzer_parts *p,
                            tv_error *err) {
    const tv_analyzer *b = tv_analyzer_builtin(type, tn);
    tv_status st;
    p->tok = b->tok;
    for (size_t i = 0; i < b->nfilters; i++) p->filters[p->nfilters++] = b->filters[i];
    if (p->tok.kind == TV_TK_STANDARD || p->tok.kind == TV_TK_WHITESPACE) {
        int64_t m;
        if ((st = tv_comp_int(c, "max_token_length", 255, &m, err))) return st;
        if (m <= 0 || m > 1024 * 1024)
            return tv_error_set(err, TROVE_EARG, "maxTokenLen must be greater than 0 and less than %d passed: %lld",
                                1024 * 1024, (long long)m);
        p->tok.max_token_length = (uint32_t)m;
    }
    bool ignore_case;
    if ((st = tv_comp_bool(c, "ignore_case", false, &ignore_case, err))) return st;
    if (tv_streq(type, tn, "standard")) {
        /* standard: no stop words unless configured */
        const tv_termset *ts = NULL;
        if ((st = tv_comp_words(c, "stopwords", NULL, ignore_case, &ts, err))) return st;
        if (ts && ts->n) {
            memset(&p->filters[p->nfilters], 0, sizeof p->filters[0]);
            p->filters[p->nfilters].kind = TV_TF_STOP;
            p->filters[p->nfilters++].stop = ts;
        }
    } else if (tv_streq(type, tn, "stop") || tv_streq(type, tn, "english")) {
        const tv_termset *ts = NULL, *excl = NULL;
        if (type[0] == 'e' && tv_comp_has(c, "stem_exclusion")) {
            /* a SetKeywordMarkerFilter before the Porter stemmer */
            if ((st = tv_comp_words(c, "stem_exclusion", NULL, false, &excl, err))) return st;
            if (excl && excl->n && p->nfilters < TV_PARTS_MAX_FILTERS) {
                p->filters[p->nfilters] = p->filters[p->nfilters - 1];
                p->filters[p->nfilters - 1] = tv_lang_keyword_def(excl);
                p->nfilters++;
            }
        }
        if ((st = tv_comp_words(c, "stopwords", tv_stop_english(), ignore_case, &ts, err)))
            return st;
        size_t o = 0;
        for (size_t i = 0; i < p->nfilters; i++) {
            if (p->filters[i].kind == TV_TF_STOP) {
                if (!ts || !ts->n) continue; /* drop an empty stop filter */
                p->filters[i].stop = ts;
            }
            p->filters[o++] = p->filters[i];
        }
        p->nfilters = o;
    }
    return TROVE_OK;
}

static bool is_core_analyzer(const char *type, size_t tn) {
    for (size_t i = 0; i < TV_ARRAY_LEN(builtins); i++)
        if (tv_streq(type, tn, builtins[i].name)) return true;
    return false;
}

static tv_status build_analyzer(tv_comp *c, tv_error *err) {
    size_t tn = 0;
    const char *type = tv_comp_str(c, "type", &tn);
    tv_analyzer_parts *p = tv_comp_alloc(c, sizeof *p);
    if (!p) return TROVE_ENOMEM;
    memset(p, 0, sizeof *p);
    tv_status st;
    if (!type || tv_streq(type, tn, "custom")) {
        if (!type && !tv_comp_has(c, "tokenizer"))
            return tv_error_set(err, TROVE_EARG,
                                "analyzer [%s] must specify either an analyzer type, or a tokenizer",
                                c->name);
        st = build_custom(c, p, err);
    } else if (is_core_analyzer(type, tn)) {
        st = build_core(c, type, tn, p, err);
    } else if (tv_catalog_analyzer(type, tn)) {
        st = tv_catalog_analyzer(type, tn)->build(c, p, err);
    } else if (tv_catalog_unsupported("analyzer", type, tn)) {
        return tv_error_set(err, TROVE_EUNSUPPORTED, "analyzer type [%s] is not supported", type);
    } else {
        return tv_error_set(err, TROVE_EARG, "Unknown analyzer type [%s] for [%s]", type, c->name);
    }
    if (st) return st;
    tv_analyzer *an = analyzer_new(c->name, c->name_len, p);
    if (!an) return TROVE_ENOMEM;
    an->is_registry = true;
    an->is_custom = !type || tv_streq(type, tn, "custom");
    if (tv_vec_push(&c->reg->analyzers, an)) {
        analyzer_destroy(an);
        return TROVE_ENOMEM;
    }
    return TROVE_OK;
}

/* The name explain shows for a component: _analyze's inline definitions
 * (registered as "_inline_...") are anonymous, as in OpenSearch. */
/* The name explain shows: a component defined inline in _analyze (trove
 * names it "_inline_...") is OpenSearch's "__anonymous__" + its type
 * (AnalysisRegistry.getComponentFactory); NULL when out of memory. */
static const char *display_name(tv_comp *c, const char *name) {
    if (!name || strncmp(name, "_inline_", 8) != 0) return name;
    size_t tl = 0;
    const char *type = tv_comp_str(c, "type", &tl);
    char buf[160];
    int n = snprintf(buf, sizeof buf, "__anonymous__%.*s", type ? (int)tl : 0, type ? type : "");
    return tv_comp_strdup(c, buf, n < (int)sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Whether a filter may run in a normalizer (OpenSearch's
 * NormalizingTokenFilterFactory / NormalizingCharFilterFactory). */
static bool normalizing_filter(const tv_filter_def *d) {
    switch (d->kind) {
    case TV_TF_LOWERCASE:
    case TV_TF_UPPERCASE:
    case TV_TF_ASCIIFOLDING:
    case TV_TF_TRIM: return true;
    case TV_TF_EXT: return tv_catalog_normalizing("filter", d->ext->name, strlen(d->ext->name));
    default: return false;
    }
}

/* A custom normalizer (OpenSearch's CustomNormalizerProvider): the keyword
 * tokenizer, then char filters and filters that all work on whole values. */
static tv_status build_normalizer(tv_comp *c, tv_error *err) {
    size_t tn = 0;
    const char *type = tv_comp_str(c, "type", &tn);
    if (type && !tv_streq(type, tn, "custom"))
        return tv_error_set(err, TROVE_EARG, "Unknown normalizer type [%s] for [%s]", type, c->name);
    if (tv_comp_has(c, "tokenizer"))
        return tv_error_set(err, TROVE_EARG, "Custom normalizer [%s] cannot configure a tokenizer",
                            c->name);
    tv_analyzer_parts *p = tv_comp_alloc(c, sizeof *p);
    if (!p) return TROVE_ENOMEM;
    memset(p, 0, sizeof *p);
    p->tok.kind = TV_TK_KEYWORD;
    const char *const *names;
    const size_t *lens;
    size_t n;
    tv_status st;
    tv_comp_list(c, "char_filter", &names, &lens, &n);
    for (size_t i = 0; i < n; i++) {
        if (p->ncharfilters == TV_PARTS_MAX_CHARFILTERS)
            return tv_error_set(err, TROVE_ELIMIT, "too many char filters in normalizer [%s]", c->name);
        tv_charfilter_def *d = &p->charfilters[p->ncharfilters];
        st = resolve_cf(NULL, c->reg, names[i], lens[i], d, err);
        if (st == TROVE_ENOTFOUND)
            return tv_error_set(err, TROVE_EARG,
                                "Custom normalizer [%s] failed to find char_filter under name [%s]",
                                c->name, names[i]);
        if (st) return st;
        if (!tv_catalog_normalizing("char_filter", d->ext->name, strlen(d->ext->name)))
            return tv_error_set(err, TROVE_EARG, "Custom normalizer [%s] may not use char filter [%s]",
                                c->name, names[i]);
        p->ncharfilters++;
    }
    tv_comp_list(c, "filter", &names, &lens, &n);
    for (size_t i = 0; i < n; i++) {
        if (p->nfilters == TV_PARTS_MAX_FILTERS)
            return tv_error_set(err, TROVE_ELIMIT, "too many filters in normalizer [%s]", c->name);
        tv_filter_def *d = &p->filters[p->nfilters];
        st = resolve_filter(NULL, c->reg, names[i], lens[i], d, err);
        if (st == TROVE_ENOTFOUND)
            return tv_error_set(err, TROVE_EARG,
                                "Custom normalizer [%s] failed to find filter under name [%s]",
                                c->name, names[i]);
        if (st) return st;
        if (!normalizing_filter(d))
            return tv_error_set(err, TROVE_EARG, "Custom normalizer [%s] may not use filter [%s]",
                                c->name, names[i]);
        p->nfilters++;
    }
    tv_analyzer *an = analyzer_new(c->name, c->name_len, p);
    if (!an) return TROVE_ENOMEM;
    an->is_registry = true;
    if (tv_vec_push(&c->reg->normalizers, an)) {
        analyzer_destroy(an);
        return TROVE_ENOMEM;
    }
    return TROVE_OK;
}

long tv_analyzer_not_normalizing(const tv_analyzer *an, bool *in_charfilters) {
    for (size_t i = 0; i < an->ncharfilters; i++) {
        const char *t = an->charfilters[i].ext->name;
        if (!tv_catalog_normalizing("char_filter", t, strlen(t))) {
            *in_charfilters = true;
            return (long)i;
        }
    }
    for (size_t i = 0; i < an->nfilters; i++)
        if (!normalizing_filter(&an->filters[i])) {
            *in_charfilters = false;
            return (long)i;
        }
    return -1;
}

/* The built-in `lowercase` normalizer (OpenSearch's LowercaseNormalizer). */
static tv_analyzer lowercase_normalizer = {.name = (char *)"lowercase", .is_static = true,
                                           .tok = {TV_TK_KEYWORD, 0}, .nfilters = 1,
                                           .filters = (tv_filter_def *)&f_lower};

const tv_analyzer *tv_analysis_normalizer(const tv_analysis *a, const char *name, size_t len) {
    for (size_t i = 0; a && i < a->normalizers.len; i++)
        if (tv_streq(name, len, a->normalizers.items[i]->name)) return a->normalizers.items[i];
    if (tv_streq(name, len, "lowercase")) return &lowercase_normalizer;
    return NULL;
}

/* Builds every component of a kind, in order of first appearance. */
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
        char namez[256];
        if (nl >= sizeof namez) return tv_error_set(err, TROVE_EARG, "analysis component name too long");
        memcpy(namez, name, nl);
        namez[nl] = 0;
        tv_comp c = {.name = namez, .name_len = nl, .kind = kind, .all = l,
                     .prefix_len = kl + 1 + nl + 1, .reg = a};
        tv_status st;
        if (kind[0] == 'a') {
            st = build_analyzer(&c, err);
        } else if (kind[0] == 'n') {
            st = build_normalizer(&c, err);
        } else if (kind[0] == 't') {
            named_tok nt = {0};
            st = build_tokenizer(&c, &nt.def, err);
            if (!st) {
                nt.name = tv_strndup(name, nl);
                nt.def.name = display_name(&c, nt.name);
                if (!nt.name || !nt.def.name || tv_vec_push(&a->toks, nt)) {
                    tv_free(nt.name);
                    st = TROVE_ENOMEM;
                }
            }
        } else if (kind[0] == 'f') {
            if (find_filter(a, namez, nl)) continue; /* built already, by tv_comp_filter_ref */
            named_filter nf = {0};
            st = build_filter(&c, &nf.def, err);
            if (!st) {
                nf.name = tv_strndup(name, nl);
                nf.def.name = display_name(&c, nf.name);
                if (!nf.name || !nf.def.name || tv_vec_push(&a->filters, nf)) {
                    tv_free(nf.name);
                    st = TROVE_ENOMEM;
                }
            }
        } else {
            named_cf ncf = {0};
            st = build_charfilter(&c, &ncf.def, err);
            if (!st) {
                ncf.name = tv_strndup(name, nl);
                ncf.def.name = display_name(&c, ncf.name);
                if (!ncf.name || !ncf.def.name || tv_vec_push(&a->cfs, ncf)) {
                    tv_free(ncf.name);
                    st = TROVE_ENOMEM;
                }
            }
        }
        if (st == TROVE_ENOMEM) tv_error_oom(err);
        if (st) return st;
    }
    return TROVE_OK;
}

/* A filter that another one refers to (multiplexer, condition): one of
 * the registry's (built now from the settings if it is defined there and
 * not built yet, as OpenSearch resolves references after building every
 * filter), of the index's for an _analyze scratch, or a core or catalog
 * one with its defaults. */
tv_status tv_comp_filter_ref(tv_comp *c, const char *name, size_t len, tv_filter_def *out,
                             tv_error *err) {
    tv_analysis *a = c->reg;
    const tv_filter_def *fd = find_filter(a, name, len);
    if (fd) {
        *out = *fd;
        return TROVE_OK;
    }
    const tv_sjson_list *l = a->settings;
    for (size_t i = 0; l && i < l->len; i++) {
        const tv_sjson_entry *e = &l->items[i];
        if (e->key_len <= 7 + len + 1 || memcmp(e->key, "filter.", 7) != 0 ||
            memcmp(e->key + 7, name, len) != 0 || e->key[7 + len] != '.')
            continue;
        if (a->ref_depth > 16)
            return tv_error_set(err, TROVE_EARG, "filter [%.*s] refers to itself", (int)len, name);
        char namez[256];
        if (len >= sizeof namez) return TROVE_ENOTFOUND;
        memcpy(namez, name, len);
        namez[len] = 0;
        tv_comp rc = {.name = namez, .name_len = len, .kind = "filter", .all = l,
                      .prefix_len = 7 + len + 1, .reg = a};
        named_filter nf = {0};
        a->ref_depth++;
        tv_status st = build_filter(&rc, &nf.def, err);
        a->ref_depth--;
        if (st) return st;
        nf.name = tv_strndup(name, len);
        nf.def.name = display_name(&rc, nf.name);
        if (!nf.name || !nf.def.name || tv_vec_push(&a->filters, nf)) {
            tv_free(nf.name);
            return TROVE_ENOMEM;
        }
        *out = nf.def;
        return TROVE_OK;
    }
    return resolve_filter(a->ctx, a, name, len, out, err);
}

/* Parses `json` into a new registry (tokenizers, filters and char filters
 * before the analyzers that name them). */
static tv_analysis *analysis_build(const char *json, size_t len, const tv_analysis *ctx,
                                   const tv_analysis_limits *lim, tv_error *err) {
    tv_analysis *a = analysis_alloc();
    if (!a) {
        tv_error_oom(err);
        return NULL;
    }
    a->ctx = ctx;
    if (lim) a->limits = *lim;
    else if (ctx) a->limits = ctx->limits;
    if (!json || len == 0) return a;
    tv_arena ar;
    tv_arena_init(&ar);
    tv_sjson_list l;
    tv_status st = tv_sjson_flatten(&ar, json, len, &l);
    if (st == TROVE_ENOMEM) tv_error_oom(err);
    else if (st) tv_error_set(err, TROVE_EARG, "failed to parse analysis settings");
    a->settings = &l;
    if (!st) st = each_component(a, &l, "tokenizer", err);
    if (!st) st = each_component(a, &l, "filter", err);
    if (!st) st = each_component(a, &l, "char_filter", err);
    if (!st) st = each_component(a, &l, "analyzer", err);
    if (!st) st = each_component(a, &l, "normalizer", err);
    a->settings = NULL;
    tv_arena_fini(&ar);
    if (st) {
        tv_analysis_free(a);
        return NULL;
    }
    return a;
}

/* AnalysisRegistry.build: the default analyzer runs at index and search
 * time alike, so it may not hold search-time-only filters. Frees a on
 * refusal. */
static tv_analysis *default_checked(tv_analysis *a, tv_error *err) {
    char names[256];
    const tv_analyzer *d = NULL;
    for (size_t i = 0; a && i < a->analyzers.len && !d; i++)
        if (!strcmp(a->analyzers.items[i]->name, "default")) d = a->analyzers.items[i];
    if (d && !tv_analyzer_time_check(d, "all", names, sizeof names)) {
        tv_error_set(err, TROVE_EMAPPEREXC,
                     "analyzer [default] contains filters [%s] that are not allowed to run in all mode.",
                     names);
        tv_analysis_free(a);
        return NULL;
    }
    return a;
}

tv_analysis *tv_analysis_new(const char *json, size_t len, tv_error *err) {
    tv_error_clear(err);
    return default_checked(analysis_build(json, len, NULL, NULL, err), err);
}

tv_analysis *tv_analysis_new_limits(const char *json, size_t len, const tv_analysis_limits *lim,
                                    tv_error *err) {
    tv_error_clear(err);
    return default_checked(analysis_build(json, len, NULL, lim, err), err);
}

/* Catalog analyzers by bare name ("french"): built once with their
 * defaults into a registry that lives as long as the process. */
static pthread_mutex_t catalog_mu = PTHREAD_MUTEX_INITIALIZER;
static tv_analysis *catalog_reg;

static const tv_analyzer *catalog_builtin(const char *name, size_t len) {
    const tv_analyzer_type *t = tv_catalog_analyzer(name, len);
    if (!t) return NULL;
    const tv_analyzer *found = NULL;
    pthread_mutex_lock(&catalog_mu);
    if (!catalog_reg) catalog_reg = analysis_alloc();
    for (size_t i = 0; catalog_reg && i < catalog_reg->analyzers.len && !found; i++)
        if (tv_streq(name, len, catalog_reg->analyzers.items[i]->name))
            found = catalog_reg->analyzers.items[i];
    if (!found && catalog_reg) {
        /* named as asked: a fallback type (kuromoji -> cjk) has another name */
        tv_comp c = bare_comp(catalog_reg, "analyzer", t->name, strlen(t->name));
        tv_analyzer_parts *p = tv_comp_alloc(&c, sizeof *p);
        tv_error err;
        tv_error_clear(&err);
        if (p) {
            memset(p, 0, sizeof *p);
            tv_analyzer *an = t->build(&c, p, &err) ? NULL : analyzer_new(name, len, p);
            if (an) {
                an->is_static = true;
                if (tv_vec_push(&catalog_reg->analyzers, an)) analyzer_destroy(an);
                else found = an;
            }
        }
    }
    pthread_mutex_unlock(&catalog_mu);
    return found;
}

bool tv_analyzer_builtin_error(const char *name, size_t len, tv_error *err) {
    const tv_analyzer_type *t = tv_catalog_analyzer(name, len);
    if (!t || tv_analyzer_builtin(name, len)) return false;
    /* built again in a scratch registry, for the reason only (rare: once
     * per request naming an analyzer whose data trove lacks) */
    tv_analysis *scratch = analysis_alloc();
    if (!scratch) {
        tv_error_set(err, TROVE_ENOMEM, "out of memory");
        return true;
    }
    tv_comp c = bare_comp(scratch, "analyzer", t->name, strlen(t->name));
    tv_analyzer_parts *p = tv_comp_alloc(&c, sizeof *p);
    tv_error_clear(err);
    if (p) {
        memset(p, 0, sizeof *p);
        if (t->build(&c, p, err) == TROVE_OK)
            tv_error_set(err, TROVE_EUNSUPPORTED, "analyzer [%.*s] is not supported", (int)len, name);
    } else {
        tv_error_set(err, TROVE_ENOMEM, "out of memory");
    }
    tv_analysis_free(scratch);
    return true;
}

tv_analyzer *tv_analyzer_wrap(const tv_analyzer *base, tv_analyzer_wrap_kind kind, uint32_t min,
                              uint32_t max) {
    size_t nb = base->nfilters;
    tv_analyzer_parts *p = tv_calloc(1, sizeof *p);
    if (!p || nb + 2 > TV_PARTS_MAX_FILTERS) {
        tv_free(p);
        return NULL;
    }
    p->tok = base->tok;
    if (nb) memcpy(p->filters, base->filters, nb * sizeof *p->filters);
    p->ncharfilters = base->ncharfilters;
    if (base->ncharfilters)
        memcpy(p->charfilters, base->charfilters, base->ncharfilters * sizeof *p->charfilters);
    tv_filter_def *fl = p->filters;
    p->nfilters = nb + 1;
    switch (kind) {
    case TV_WRAP_EDGE_NGRAM: fl[nb] = (tv_filter_def){.kind = TV_TF_EDGE_NGRAM, .min = min, .max = max}; break;
    case TV_WRAP_SHINGLE2: fl[nb] = (tv_filter_def){.kind = TV_TF_SHINGLE2}; break;
    case TV_WRAP_SHINGLE_N: fl[nb] = (tv_filter_def){.kind = TV_TF_SHINGLE_N, .min = min, .max = 0}; break;
    case TV_WRAP_SAYT_PREFIX:
        fl[nb] = (tv_filter_def){.kind = TV_TF_SHINGLE_N, .min = min, .max = min - 1};
        fl[nb + 1] = (tv_filter_def){.kind = TV_TF_EDGE_NGRAM, .min = 1, .max = 20, .preserve_original = true};
        p->nfilters = nb + 2;
        break;
    }
    tv_analyzer *an = analyzer_new(base->name, strlen(base->name), p);
    tv_free(p);
    return an;
}

tv_analyzer *tv_analyzer_compose(const tv_analysis *ctx, const char *inline_json,
                                 size_t inline_len, const char *tokenizer,
                                 const char *const *filters, size_t nfilters,
                                 const char *const *charfilters, size_t ncharfilters,
                                 tv_error *err) {
    tv_error_clear(err);
    tv_analysis *scratch = analysis_build(inline_json, inline_len, ctx, ctx ? &ctx->limits : NULL, err);
    if (!scratch) return NULL;
    tv_analyzer_parts *p = tv_calloc(1, sizeof *p);
    tv_analyzer *an = NULL;
    tv_status st = p ? TROVE_OK : TROVE_ENOMEM;
    if (!st && (nfilters > TV_PARTS_MAX_FILTERS || ncharfilters > TV_PARTS_MAX_CHARFILTERS))
        st = tv_error_set(err, TROVE_ELIMIT, "too many filters");
    if (!st) {
        /* filters without a tokenizer run over the whole text, as
         * OpenSearch builds them (a keyword tokenizer, normalizer style) */
        p->tok = (tv_tokenizer_def){.kind = TV_TK_KEYWORD, .max_token_length = 255};
        if (tokenizer) {
            size_t kn = strlen(tokenizer);
            st = resolve_tok(ctx, scratch, tokenizer, kn, &p->tok, err);
            if (st == TROVE_ENOTFOUND)
                st = tv_error_set(err, TROVE_EARG, "failed to find %stokenizer under [%s]",
                                  ctx ? "" : "global ", tokenizer);
        }
    }
    for (size_t i = 0; !st && i < ncharfilters; i++) {
        st = resolve_cf(ctx, scratch, charfilters[i], strlen(charfilters[i]), &p->charfilters[i], err);
        if (st == TROVE_ENOTFOUND)
            st = tv_error_set(err, TROVE_EARG, "failed to find %schar_filter under [%s]",
                              ctx ? "" : "global ", charfilters[i]);
        p->ncharfilters = i + 1;
    }
    for (size_t i = 0; !st && i < nfilters; i++) {
        st = resolve_filter(ctx, scratch, filters[i], strlen(filters[i]), &p->filters[i], err);
        if (st == TROVE_ENOTFOUND)
            st = tv_error_set(err, TROVE_EARG, "failed to find %sfilter under [%s]",
                              ctx ? "" : "global ", filters[i]);
        p->nfilters = i + 1;
        if (!st && !tokenizer && !normalizing_filter(&p->filters[i]))
            st = tv_error_set(err, TROVE_EARG, "Custom normalizer may not use filter [%s]",
                              filter_name(&p->filters[i]));
    }
    if (!st) st = tv_analyzer_parts_chain(scratch, p, filters, err);
    if (!st) {
        an = analyzer_new("_anonymous_", 11, p);
        if (an) {
            an->scratch = scratch;
            an->is_custom = true;
        }
        else st = TROVE_ENOMEM;
    }
    if (st == TROVE_ENOMEM) tv_error_oom(err);
    if (!an) tv_analysis_free(scratch);
    tv_free(p);
    return an;
}
