/*
 * suggest.c — the "suggest" section of _search with the term suggester:
 * OpenSearch's SuggestBuilder / TermSuggestionBuilder parsing, TermSuggester
 * driving Lucene's DirectSpellChecker on each shard, and the coordinating
 * node's reduce (Suggest.reduce) and response.
 *
 * Parsing follows SuggestBuilder.fromXContent -> SuggestionBuilder
 * .fromXContent -> TermSuggestionBuilder.fromXContent: a global "text", one
 * object per named suggestion holding "text" (or "prefix"/"regex") and one
 * suggester object; each option is validated by its setter as it is read,
 * with the setter's IllegalArgumentException message. "phrase" and
 * "completion" suggesters exist in OpenSearch but not here: they fail with
 * unsupported_operation_exception; any other name is OpenSearch's
 * named_object_not_found_exception.
 *
 * On each target (trove's index = one shard), as TermSuggestionBuilder.build
 * and TermSuggester.innerExecute: the field must be mapped; the text is
 * analyzed with the given analyzer or the field's search analyzer (keyword
 * analyzer, or the normalizer, for non-text fields); each token becomes one
 * entry whose offset/length are the token's UTF-16 offsets in the text. For
 * each token, DirectSpellChecker.suggestSimilar with OpenSearch's settings
 * (lowerCaseTerms off):
 *   - words shorter than min_word_length code points get nothing;
 *   - docfreq = the term's doc freq summed over segments (deleted docs
 *     included, as IndexReader.docFreq); mode missing stops when > 0;
 *     max_term_freq (absolute when >= 1, else a fraction of maxDoc, ceil)
 *     stops frequent words; the candidates' df threshold is 0 (missing,
 *     always) or docfreq (popular), raised by min_doc_freq (absolute, or
 *     (int)(f * maxDoc) - 1);
 *   - two passes over the merged term dictionary (MultiTerms: terms of all
 *     segments in byte order, doc freqs summed), as FuzzyTermsEnum: ed 1
 *     with prefix max(prefix_length, 0), then, when fewer than
 *     shard_size * max_inspections were found and max_edits is 2, ed 2 with
 *     prefix max(prefix_length, 1). A candidate shares the first prefix code
 *     points and is within ed Damerau (optimal string alignment) edits of
 *     the rest; its boost is 1 - ed / min(cp(candidate), cp(word)) in float;
 *   - each pass keeps a priority queue of shard_size * max_inspections
 *     ScoreTerms (least: lowest boost, then the greatest term), skipping a
 *     candidate whose boost is <= the least's when full, the word itself,
 *     df <= threshold, and score < accuracy (score = the boost, or the
 *     levenshtein / damerau_levenshtein StringDistance); FuzzyTermsEnum's
 *     switch to a smaller edit distance when the queue's bottom reaches a
 *     distance's best possible boost is replayed too (one term late, as
 *     the enum applies it), so the candidates seen are Lucene's;
 *   - the union of both passes, sorted (score: score, freq desc, then the
 *     word ascending in UTF-16 order; frequency: freq, score, word), cut
 *     to shard_size.
 * Reduce (Suggest.reduce): one target's entries are kept in its order;
 * several targets' entries are merged per position by option text (freq
 * summed, score max) and sorted by TermSuggestion's comparator (text in
 * byte order); then every entry is cut to size. Suggestions are written
 * sorted by name (the Suggest constructor sorts them), after hits and
 * aggregations, prefixed "term#" under typed_keys.
 *
 * Candidates are found by walking each segment's terms under the literal
 * prefix and computing the bounded edit distance, rather than intersecting
 * a Levenshtein automaton with the dictionary: the same set, simpler, and
 * the suggester is not on the hot path. (Rejected: reusing the fuzzy
 * query's automaton cursor, which would need the per-pass distance anyway
 * for the boost.)
 *
 * Not here: jaro_winkler and ngram string distances (unsupported, named);
 * analyzers by name are the built-ins and those some field of the mapping
 * uses (a custom analyzer no field uses reads as missing).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "query/automaton.h"
#include "query/parse.h"
#include "search/suggest.h"
#include "text/text.h"

typedef enum { SM_MISSING, SM_POPULAR, SM_ALWAYS } sugg_mode;
typedef enum { SD_INTERNAL, SD_DAMERAU, SD_LEVENSHTEIN } sugg_dist;

typedef struct term_sugg {
    const char *name;
    const char *text; /* NULL: the global text */
    size_t text_len;
    const char *field;
    const char *analyzer; /* NULL: the field's search analyzer */
    int32_t size;         /* 5 */
    int32_t shard_size;   /* -1: max(size, 5) */
    sugg_mode mode;
    sugg_dist dist;
    bool sort_freq;
    float accuracy, max_term_freq, min_doc_freq;
    int32_t max_edits, max_inspections, prefix_len, min_word_len;
} term_sugg;

struct tv_suggest {
    const char *global_text;
    size_t global_len;
    term_sugg *items;
    size_t n;
};

/* ---------------------------------------------------------------- parse */

static tv_status oom(tv_error *err) { return tv_error_oom(err); }

static void term_defaults(term_sugg *t) {
    memset(t, 0, sizeof *t);
    t->size = 5;
    t->shard_size = -1;
    t->mode = SM_MISSING;
    t->dist = SD_INTERNAL;
    t->accuracy = 0.5f;
    t->max_term_freq = 0.01f;
    t->min_doc_freq = 0.0f;
    t->max_edits = 2;
    t->max_inspections = 5;
    t->prefix_len = 1;
    t->min_word_len = 4;
}

static bool is_value(const tv_json *v) {
    return v->type == TV_JSON_STRING || v->type == TV_JSON_INT || v->type == TV_JSON_UINT ||
           v->type == TV_JSON_DOUBLE || v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE;
}

/* Java's (int) of a double: saturating, NaN is 0. */
static int32_t java_int(double x) {
    if (x != x) return 0;
    if (x >= 2147483647.0) return INT32_MAX;
    if (x <= -2147483648.0) return INT32_MIN;
    return (int32_t)x;
}

/* A stable merge sort with a context (qsort has none; no globals, since
 * searches run on many threads). */
typedef int (*ctx_cmp)(const void *a, const void *b, const void *ctx);
static void msort_rec(char *v, char *tmp, size_t n, size_t sz, ctx_cmp cmp, const void *ctx) {
    if (n < 2) return;
    size_t h = n / 2;
    msort_rec(v, tmp, h, sz, cmp, ctx);
    msort_rec(v + h * sz, tmp, n - h, sz, cmp, ctx);
    size_t i = 0, j = h, o = 0;
    while (i < h && j < n) {
        if (cmp(v + j * sz, v + i * sz, ctx) < 0) memcpy(tmp + (o++) * sz, v + (j++) * sz, sz);
        else memcpy(tmp + (o++) * sz, v + (i++) * sz, sz);
    }
    while (i < h) memcpy(tmp + (o++) * sz, v + (i++) * sz, sz);
    while (j < n) memcpy(tmp + (o++) * sz, v + (j++) * sz, sz);
    memcpy(v, tmp, n * sz);
}
static bool msort(void *base, size_t n, size_t sz, ctx_cmp cmp, const void *ctx, tv_arena *a) {
    if (n < 2) return true;
    char *tmp = tv_arena_alloc(a, n * sz);
    if (!tmp) return false;
    msort_rec(base, tmp, n, sz, cmp, ctx);
    return true;
}

/* parser.text() of a value token, copied into the arena. */
static const char *value_text(tv_dsl *d, const tv_json *v, size_t *len) {
    const char *s;
    size_t n;
    if (!tv_dsl_scalar_text(v, &s, &n)) { s = ""; n = 0; }
    if (len) *len = n;
    return tv_arena_strndup(d->arena, s, n);
}

static void upper_ascii(char *dst, size_t cap, const char *s, size_t n) {
    size_t i = 0;
    for (; i < n && i + 1 < cap; i++) dst[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
    dst[i] = '\0';
}

/* A float setter's check that a value above 1 is whole (Math.floor). */
static bool fractional_above_one(float f) { return f > 1.0f && (double)f != floor((double)f); }

static tv_status parse_term(tv_dsl *d, const tv_json *o, term_sugg *t) {
    term_defaults(t);
    const char *field = NULL;
    for (uint32_t i = 0; i < o->len; i++) {
        const tv_json_member *m = &o->v.members[i];
        const char *k = m->key;
        size_t kl = m->key_len;
        const tv_json *v = &m->val;
        if (!is_value(v))
            return tv_dsl_error(d, TROVE_EPARSE, v->off, "suggester[term] parsing failed on [%s]", k);
        tv_status st = TROVE_OK;
        int32_t iv = 0;
        float fv = 0;
        size_t sl;
        if (tv_streq(k, kl, "analyzer")) {
            if (!(t->analyzer = value_text(d, v, NULL))) return oom(d->err);
        } else if (tv_streq(k, kl, "field")) {
            if (!(field = value_text(d, v, NULL))) return oom(d->err);
        } else if (tv_streq(k, kl, "size")) {
            if ((st = tv_dsl_java_int(d, v, &iv))) return st;
            if (iv <= 0) return tv_error_set(d->err, TROVE_EARG, "size must be positive");
            t->size = iv;
        } else if (tv_streq(k, kl, "shard_size")) {
            if ((st = tv_dsl_java_int(d, v, &iv))) return st;
            t->shard_size = iv;
        } else if (tv_streq(k, kl, "suggest_mode")) {
            const char *s = value_text(d, v, &sl);
            if (!s) return oom(d->err);
            char up[64];
            upper_ascii(up, sizeof up, s, sl);
            if (strcmp(up, "MISSING") == 0) t->mode = SM_MISSING;
            else if (strcmp(up, "POPULAR") == 0) t->mode = SM_POPULAR;
            else if (strcmp(up, "ALWAYS") == 0) t->mode = SM_ALWAYS;
            else
                return tv_error_set(d->err, TROVE_EARG,
                                    "No enum constant org.opensearch.search.suggest.term.TermSuggestionBuilder.SuggestMode.%s", up);
        } else if (tv_streq(k, kl, "accuracy")) {
            if ((st = tv_dsl_java_float(d, v, &fv))) return st;
            if (fv < 0.0f || fv > 1.0f) return tv_error_set(d->err, TROVE_EARG, "accuracy must be between 0 and 1");
            t->accuracy = fv;
        } else if (tv_streq(k, kl, "sort")) {
            const char *s = value_text(d, v, &sl);
            if (!s) return oom(d->err);
            char up[64];
            upper_ascii(up, sizeof up, s, sl);
            if (strcmp(up, "SCORE") == 0) t->sort_freq = false;
            else if (strcmp(up, "FREQUENCY") == 0) t->sort_freq = true;
            else return tv_error_set(d->err, TROVE_EARG, "No enum constant org.opensearch.search.suggest.SortBy.%s", up);
        } else if (tv_streq(k, kl, "string_distance")) {
            const char *s = value_text(d, v, &sl);
            if (!s) return oom(d->err);
            char low[64];
            size_t j = 0;
            for (; j < sl && j + 1 < sizeof low; j++) low[j] = (char)(s[j] >= 'A' && s[j] <= 'Z' ? s[j] + 32 : s[j]);
            low[j] = '\0';
            if (strcmp(low, "internal") == 0) t->dist = SD_INTERNAL;
            else if (strcmp(low, "damerau_levenshtein") == 0) t->dist = SD_DAMERAU;
            else if (strcmp(low, "levenshtein") == 0) t->dist = SD_LEVENSHTEIN;
            else if (strcmp(low, "jaro_winkler") == 0 || strcmp(low, "ngram") == 0)
                return tv_error_set(d->err, TROVE_EUNSUPPORTED,
                                    "the [%s] string_distance of the term suggester is not supported by trove", low);
            else return tv_error_set(d->err, TROVE_EARG, "Illegal distance option %s", s);
        } else if (tv_streq(k, kl, "max_edits")) {
            if ((st = tv_dsl_java_int(d, v, &iv))) return st;
            if (iv < 1 || iv > 2) return tv_error_set(d->err, TROVE_EARG, "maxEdits must be between 1 and 2");
            t->max_edits = iv;
        } else if (tv_streq(k, kl, "max_inspections")) {
            if ((st = tv_dsl_java_int(d, v, &iv))) return st;
            if (iv < 0) return tv_error_set(d->err, TROVE_EARG, "maxInspections must be positive");
            t->max_inspections = iv;
        } else if (tv_streq(k, kl, "max_term_freq")) {
            if ((st = tv_dsl_java_float(d, v, &fv))) return st;
            if (fv < 0.0f) return tv_error_set(d->err, TROVE_EARG, "maxTermFreq must be positive");
            if (fractional_above_one(fv))
                return tv_error_set(d->err, TROVE_EARG, "if maxTermFreq is greater than 1, it must not be a fraction");
            t->max_term_freq = fv;
        } else if (tv_streq(k, kl, "prefix_length")) {
            if ((st = tv_dsl_java_int(d, v, &iv))) return st;
            if (iv < 0) return tv_error_set(d->err, TROVE_EARG, "prefixLength must be positive");
            t->prefix_len = iv;
        } else if (tv_streq(k, kl, "min_word_length") || tv_streq(k, kl, "min_word_len")) {
            if ((st = tv_dsl_java_int(d, v, &iv))) return st;
            if (iv < 1) return tv_error_set(d->err, TROVE_EARG, "minWordLength must be greater or equal to 1");
            t->min_word_len = iv;
        } else if (tv_streq(k, kl, "min_doc_freq")) {
            if ((st = tv_dsl_java_float(d, v, &fv))) return st;
            if (fv < 0.0f) return tv_error_set(d->err, TROVE_EARG, "minDocFreq must be positive");
            if (fractional_above_one(fv))
                return tv_error_set(d->err, TROVE_EARG, "if minDocFreq is greater than 1, it must not be a fraction");
            t->min_doc_freq = fv;
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, v->off, "suggester[term] doesn't support field [%s]", k);
        }
    }
    if (!field) return tv_error_set(d->err, TROVE_EPARSEEXC, "the required field option [field] is missing");
    if (!*field) return tv_error_set(d->err, TROVE_EARG, "suggestion field name is empty");
    t->field = field;
    return TROVE_OK;
}

/* NamedXContentRegistry's miss: "[line:col] unknown field [name]". */
static tv_status unknown_suggester(tv_dsl *d, const tv_json *v, const char *name) {
    uint32_t l = 0, c = 0;
    if (d->src) tv_json_linecol(d->src, d->src_len, v->off, &l, &c);
    tv_status st = tv_dsl_error(d, TROVE_EXCONTENT, v->off, "[%u:%u] unknown field [%s]", l, c, name);
    tv_error_as(d->err, TROVE_ENAMEDOBJECT);
    return st;
}

/* What SuggestionBuilder.fromXContent reads of one suggestion. */
typedef struct sugg_parse {
    term_sugg *t;
    bool have;
    const char *text, *prefix, *regex; /* the last of each */
    size_t text_len, prefix_len, regex_len;
} sugg_parse;

/* One member of a suggestion object (an array's items are read as its
 * token loop reads them: values under the array's name, objects as
 * suggesters). */
static tv_status parse_suggestion_member(tv_dsl *d, const char *k, size_t kl, const tv_json *v, sugg_parse *sp) {
    if (is_value(v)) {
        const char **dst = NULL;
        size_t *dl = NULL;
        if (tv_streq(k, kl, "text")) { dst = &sp->text; dl = &sp->text_len; }
        else if (tv_streq(k, kl, "prefix")) { dst = &sp->prefix; dl = &sp->prefix_len; }
        else if (tv_streq(k, kl, "regex")) { dst = &sp->regex; dl = &sp->regex_len; }
        else return tv_dsl_error(d, TROVE_EPARSE, v->off, "suggestion does not support [%s]", k);
        if (!(*dst = value_text(d, v, dl))) return oom(d->err);
        return TROVE_OK;
    }
    if (v->type == TV_JSON_OBJECT) {
        if (tv_streq(k, kl, "term")) {
            tv_status st = parse_term(d, v, sp->t);
            if (!st) sp->have = true;
            return st;
        }
        if (tv_streq(k, kl, "phrase") || tv_streq(k, kl, "completion"))
            return tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off, "the [%s] suggester is not supported by trove", k);
        return unknown_suggester(d, v, k);
    }
    if (v->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++) {
            tv_status st = parse_suggestion_member(d, k, kl, &v->v.items[i], sp);
            if (st) return st;
        }
    }
    return TROVE_OK; /* null: skipped by the token loop */
}

static tv_status parse_suggestion(tv_dsl *d, const tv_json *o, term_sugg *t) {
    sugg_parse sp = {0};
    sp.t = t;
    for (uint32_t i = 0; i < o->len; i++) {
        const tv_json_member *m = &o->v.members[i];
        tv_status st = parse_suggestion_member(d, m->key, m->key_len, &m->val, &sp);
        if (st) return st;
    }
    if (!sp.have) return tv_error_set(d->err, TROVE_EPARSEEXC, "missing suggestion object");
    /* populateCommonFields: the text, else the prefix, else the regex */
    if (sp.text) { t->text = sp.text; t->text_len = sp.text_len; }
    else if (sp.prefix) { t->text = sp.prefix; t->text_len = sp.prefix_len; }
    else if (sp.regex) { t->text = sp.regex; t->text_len = sp.regex_len; }
    return TROVE_OK;
}

tv_status tv_suggest_parse(tv_dsl *d, const tv_json *v, tv_suggest **out) {
    tv_suggest *s = tv_arena_calloc(d->arena, 1, sizeof *s);
    if (!s) return oom(d->err);
    size_t nobj = 0;
    for (uint32_t i = 0; i < v->len; i++) nobj += v->v.members[i].val.type == TV_JSON_OBJECT;
    s->items = tv_arena_calloc(d->arena, nobj ? nobj : 1, sizeof *s->items);
    if (!s->items) return oom(d->err);
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        const tv_json *x = &m->val;
        if (is_value(x)) {
            if (!tv_streq(m->key, m->key_len, "text"))
                return tv_error_set(d->err, TROVE_EARG, "[suggest] does not support [%s]", m->key);
            if (!(s->global_text = value_text(d, x, &s->global_len))) return oom(d->err);
        } else if (x->type == TV_JSON_OBJECT) {
            for (size_t j = 0; j < s->n; j++)
                if (strcmp(s->items[j].name, m->key) == 0)
                    return tv_error_set(d->err, TROVE_EARG, "already added another suggestion with name [%s]", m->key);
            term_sugg *t = &s->items[s->n];
            tv_status st = parse_suggestion(d, x, t);
            if (st) return st;
            if (!(t->name = tv_arena_strndup(d->arena, m->key, m->key_len))) return oom(d->err);
            s->n++;
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, x->off, "unexpected token [%s] after [%s]", tv_dsl_token_name(x), m->key);
        }
    }
    *out = s;
    return TROVE_OK;
}

tv_status tv_suggest_from_params(tv_dsl *d, const tv_search_params *p, tv_suggest **out) {
    /* RestSearchAction: termSuggestion(field).text(suggest_text or q)
     * .size(suggest_size, 5).suggestMode(SuggestMode.resolve(suggest_mode)) */
    if (!*p->suggest_field) return tv_error_set(d->err, TROVE_EARG, "suggestion field name is empty");
    tv_suggest *s = tv_arena_calloc(d->arena, 1, sizeof *s);
    term_sugg *t = tv_arena_calloc(d->arena, 1, sizeof *t);
    if (!s || !t) return oom(d->err);
    term_defaults(t);
    int64_t size = p->suggest_size < 0 && p->suggest_size == -1 ? 5 : p->suggest_size;
    if (size <= 0) return tv_error_set(d->err, TROVE_EARG, "size must be positive");
    t->size = (int32_t)size;
    if (!p->suggest_mode) {
        /* SuggestMode.resolve(null): Objects.requireNonNull */
        tv_error_set(d->err, TROVE_EINTERNAL, "Input string is null");
        tv_error_as(d->err, TROVE_ENULLPOINTER);
        return TROVE_EINTERNAL;
    }
    char up[64];
    upper_ascii(up, sizeof up, p->suggest_mode, strlen(p->suggest_mode));
    if (strcmp(up, "MISSING") == 0) t->mode = SM_MISSING;
    else if (strcmp(up, "POPULAR") == 0) t->mode = SM_POPULAR;
    else if (strcmp(up, "ALWAYS") == 0) t->mode = SM_ALWAYS;
    else
        return tv_error_set(d->err, TROVE_EARG,
                            "No enum constant org.opensearch.search.suggest.term.TermSuggestionBuilder.SuggestMode.%s", up);
    t->name = p->suggest_field;
    t->field = p->suggest_field;
    const char *text = p->suggest_text ? p->suggest_text : p->q;
    if (text) {
        t->text = text;
        t->text_len = strlen(text);
    }
    s->items = t;
    s->n = 1;
    *out = s;
    return TROVE_OK;
}

/* ---------------------------------------------------------- spell check */

typedef struct cand {
    const char *term;
    uint32_t len;
    uint32_t ed;
    int64_t df;
} cand;

typedef struct sword {
    const char *term;
    uint32_t len;
    float boost, score;
    int64_t df;
} sword;

typedef struct opt {
    const char *text;
    uint32_t len;
    float score;
    int64_t freq;
} opt;

typedef struct entry {
    const char *text;
    uint32_t len;
    int32_t offset, length;
    opt *opts;
    size_t nopts;
} entry;

typedef TV_VEC(cand) cand_vec;
typedef TV_VEC(sword) sword_vec;

typedef struct shard_res {
    entry *entries;
    size_t n;
} shard_res;

static int bytes_cmp(const char *a, size_t al, const char *b, size_t bl) {
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c;
    return al < bl ? -1 : al > bl ? 1 : 0;
}

/* Java's String.compareTo over UTF-8 input: UTF-16 code unit order, i.e.
 * code point order except that U+E000..U+FFFF sort after the
 * supplementary planes (whose surrogates are D800..DFFF). */
static uint32_t utf16_key(uint32_t cp) { return cp >= 0xE000 && cp <= 0xFFFF ? cp + 0x200000 : cp; }
static int utf16_cmp(const char *a, size_t al, const char *b, size_t bl) {
    const uint8_t *p = (const uint8_t *)a, *pe = p + al, *q = (const uint8_t *)b, *qe = q + bl;
    while (p < pe && q < qe) {
        uint32_t x, y;
        p += tv_utf8_decode(p, pe, &x);
        q += tv_utf8_decode(q, qe, &y);
        if (x != y) return utf16_key(x) < utf16_key(y) ? -1 : 1;
    }
    return p < pe ? 1 : q < qe ? -1 : 0;
}

static int cand_cmp(const void *a, const void *b, const void *ctx) {
    const cand *x = a, *y = b;
    return bytes_cmp(x->term, x->len, y->term, y->len);
}

/* ScoreTerm.compareTo */
static int st_cmp(const sword *a, const sword *b) {
    if (a->len == b->len && memcmp(a->term, b->term, a->len) == 0) return 0;
    if (a->boost == b->boost) return bytes_cmp(b->term, b->len, a->term, a->len);
    return a->boost < b->boost ? -1 : 1;
}

static size_t queue_head(const sword *q, size_t n) {
    size_t h = 0;
    for (size_t i = 1; i < n; i++)
        if (st_cmp(&q[i], &q[h]) < 0) h = i;
    return h;
}

/* Code points of UTF-8 bytes, into the arena. */
static uint32_t *code_points(tv_arena *a, const char *s, size_t len, size_t *n) {
    uint32_t *out = tv_arena_alloc(a, (len + 1) * sizeof *out);
    *n = 0;
    if (!out) return NULL;
    const uint8_t *p = (const uint8_t *)s, *e = p + len;
    while (p < e) p += tv_utf8_decode(p, e, &out[(*n)++]);
    return out;
}

/* LuceneLevenshteinDistance.getDistance (code points, transpositions). */
static float damerau_score(tv_arena *a, const char *s, size_t sl, const char *t, size_t tl) {
    size_t n, m;
    uint32_t *x = code_points(a, s, sl, &n), *y = code_points(a, t, tl, &m);
    if (!x || !y) return 0;
    if (n == 0 || m == 0) return n == m ? 0.0f : (float)(n > m ? n : m);
    int *d = tv_arena_alloc(a, (n + 1) * (m + 1) * sizeof *d);
    if (!d) return 0;
#define D(i, j) d[(i) * (m + 1) + (j)]
    for (size_t i = 0; i <= n; i++) D(i, 0) = (int)i;
    for (size_t j = 0; j <= m; j++) D(0, j) = (int)j;
    for (size_t j = 1; j <= m; j++) {
        for (size_t i = 1; i <= n; i++) {
            int cost = x[i - 1] == y[j - 1] ? 0 : 1;
            int v = D(i - 1, j) + 1;
            if (D(i, j - 1) + 1 < v) v = D(i, j - 1) + 1;
            if (D(i - 1, j - 1) + cost < v) v = D(i - 1, j - 1) + cost;
            if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] && D(i - 2, j - 2) + cost < v)
                v = D(i - 2, j - 2) + cost;
            D(i, j) = v;
        }
    }
    float r = 1.0f - ((float)D(n, m) / (float)(m < n ? m : n));
#undef D
    return r;
}

/* UTF-16 code units of UTF-8 bytes. */
static uint16_t *utf16_units(tv_arena *a, const char *s, size_t len, size_t *n) {
    uint16_t *out = tv_arena_alloc(a, (2 * len + 1) * sizeof *out);
    *n = 0;
    if (!out) return NULL;
    const uint8_t *p = (const uint8_t *)s, *e = p + len;
    while (p < e) {
        uint32_t cp;
        p += tv_utf8_decode(p, e, &cp);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            out[(*n)++] = (uint16_t)(0xD800 + (cp >> 10));
            out[(*n)++] = (uint16_t)(0xDC00 + (cp & 0x3FF));
        } else {
            out[(*n)++] = (uint16_t)cp;
        }
    }
    return out;
}

/* LevenshteinDistance.getDistance (UTF-16 chars, no transpositions,
 * scaled by the longer string). */
static float levenshtein_score(tv_arena *a, const char *s, size_t sl, const char *t, size_t tl) {
    size_t n, m;
    uint16_t *x = utf16_units(a, s, sl, &n), *y = utf16_units(a, t, tl, &m);
    if (!x || !y) return 0;
    if (n == 0 || m == 0) return n == m ? 1.0f : 0.0f;
    int *p = tv_arena_alloc(a, (n + 1) * sizeof *p), *d = tv_arena_alloc(a, (n + 1) * sizeof *d);
    if (!p || !d) return 0;
    for (size_t i = 0; i <= n; i++) p[i] = (int)i;
    for (size_t j = 1; j <= m; j++) {
        d[0] = (int)j;
        for (size_t i = 1; i <= n; i++) {
            int cost = x[i - 1] == y[j - 1] ? 0 : 1;
            int v = d[i - 1] + 1;
            if (p[i] + 1 < v) v = p[i] + 1;
            if (p[i - 1] + cost < v) v = p[i - 1] + cost;
            d[i] = v;
        }
        int *sw = p;
        p = d;
        d = sw;
    }
    return 1.0f - ((float)p[n] / (float)(m > n ? m : n));
}

typedef struct spell {
    const term_sugg *s;
    const tv_snapshot *snap;
    uint32_t field;
    const char *word;
    size_t word_len;
    size_t word_cps;
    tv_arena *arena;
    tv_error *err;
} spell;

/* The merged dictionary's terms that share the word's first `prefix`
 * code points and are within max_ed edits of the rest, in byte order,
 * with their edit distances and summed doc freqs. */
static tv_status collect(const spell *sp, int prefix, int max_ed, cand_vec *out) {
    const char *w = sp->word;
    size_t wl = sp->word_len;
    /* the byte length of the first min(prefix, cps) code points */
    size_t pb = 0;
    for (int k = 0; k < prefix && pb < wl; k++) {
        uint32_t cp;
        pb += tv_utf8_decode((const uint8_t *)w + pb, (const uint8_t *)w + wl, &cp);
    }
    size_t wrest = tv_cp_count(w + pb, wl - pb);
    tv_map seen;
    tv_map_init(&seen);
    tv_status st = TROVE_OK;
    for (uint32_t i = 0; i < sp->snap->nsegs && !st; i++) {
        tv_terms_iter *it = tv_terms_iter_new(sp->snap->segs[i].seg, sp->field, sp->arena);
        if (!it) continue;
        if (pb) tv_terms_iter_seek(it, w, pb);
        const char *t;
        size_t tl;
        tv_term_state ts;
        while (tv_terms_iter_next(it, &t, &tl, &ts)) {
            if (pb && (tl < pb || memcmp(t, w, pb) != 0)) break;
            size_t trest = tv_cp_count(t + pb, tl - pb); /* lengths alone rule most terms out */
            if ((trest > wrest ? trest - wrest : wrest - trest) > (size_t)max_ed) continue;
            int ed = tv_edit_distance(w + pb, wl - pb, t + pb, tl - pb, max_ed, true);
            if (ed > max_ed) continue;
            void *v = tv_map_get(&seen, t, tl);
            if (v) {
                out->items[(uintptr_t)v - 1].df += ts.doc_freq;
                continue;
            }
            char *copy = tv_arena_memdup(sp->arena, t, tl);
            cand c = {copy, (uint32_t)tl, (uint32_t)ed, ts.doc_freq};
            if ((!copy && tl) || tv_vec_push(out, c) || tv_map_put(&seen, t, tl, (void *)(uintptr_t)out->len, NULL)) {
                st = oom(sp->err);
                break;
            }
        }
    }
    tv_map_fini(&seen);
    if (!st && out->len > 1 && !msort(out->items, out->len, sizeof *out->items, cand_cmp, NULL, sp->arena))
        st = oom(sp->err);
    return st;
}

/* One DirectSpellChecker.suggestSimilar(term, numSug, ir, docfreq,
 * editDistance, accuracy) pass: appends its queue to `words`. */
static tv_status pass(const spell *sp, int32_t num_sug, int64_t docfreq, int ed_max, sword_vec *words) {
    const term_sugg *s = sp->s;
    cand_vec cands = {0};
    int prefix = s->prefix_len > ed_max - 1 ? s->prefix_len : ed_max - 1;
    tv_status st = collect(sp, prefix, ed_max, &cands);
    if (st) {
        tv_vec_fini(&cands);
        return st;
    }
    sword *q = tv_arena_alloc(sp->arena, ((size_t)(num_sug > 0 ? num_sug : 0) + 1) * sizeof *q);
    if (!q) {
        tv_vec_fini(&cands);
        return oom(sp->err);
    }
    size_t qn = 0;
    /* FuzzyTermsEnum's state: the enum's max edits and the bottom it last
     * saw; a changed bottom is applied before the term after the next */
    int cur_max = ed_max;
    float seen_bottom = -INFINITY, attr_bottom = -INFINITY;
    bool queued = false;
    for (size_t i = 0; i < cands.len; i++) {
        const cand *c = &cands.items[i];
        if (queued) {
            queued = false;
            while (cur_max > 0) {
                float max_boost = 1.0f - ((float)cur_max / (float)sp->word_cps);
                if (seen_bottom < max_boost) break;
                cur_max--;
            }
        }
        if ((int)c->ed > cur_max) continue; /* not enumerated by the smaller automaton */
        if (attr_bottom != seen_bottom) {
            seen_bottom = attr_bottom;
            queued = true;
        }
        float boost;
        if (c->ed == 0) {
            boost = 1.0f;
        } else {
            size_t cps = tv_cp_count(c->term, c->len);
            size_t mn = cps < sp->word_cps ? cps : sp->word_cps;
            boost = mn ? 1.0f - (float)c->ed / (float)mn : -INFINITY;
        }
        float score = boost;
        if ((int64_t)qn >= num_sug) {
            if (qn == 0) {
                /* PriorityQueue.peek() of an empty queue (max_inspections 0) */
                tv_vec_fini(&cands);
                tv_error_set(sp->err, TROVE_EINTERNAL,
                             "Cannot read field \"boost\" because the return value of \"java.util.PriorityQueue.peek()\" is null");
                tv_error_as(sp->err, TROVE_ENULLPOINTER);
                return TROVE_EINTERNAL;
            }
            if (score <= q[queue_head(q, qn)].boost) continue;
        }
        if (c->len == sp->word_len && memcmp(c->term, sp->word, c->len) == 0) continue;
        if (c->df <= docfreq) continue;
        if (s->dist == SD_DAMERAU) score = damerau_score(sp->arena, sp->word, sp->word_len, c->term, c->len);
        else if (s->dist == SD_LEVENSHTEIN) score = levenshtein_score(sp->arena, sp->word, sp->word_len, c->term, c->len);
        if (score < s->accuracy) continue;
        q[qn++] = (sword){c->term, c->len, score, score, c->df};
        if ((int64_t)qn > num_sug) {
            size_t h = queue_head(q, qn);
            q[h] = q[--qn];
        }
        attr_bottom = (int64_t)qn >= num_sug ? q[queue_head(q, qn)].boost : -INFINITY;
    }
    tv_vec_fini(&cands);
    for (size_t i = 0; i < qn; i++) {
        bool dup = false;
        for (size_t j = 0; j < words->len && !dup; j++)
            dup = words->items[j].len == q[i].len && memcmp(words->items[j].term, q[i].term, q[i].len) == 0;
        if (!dup && tv_vec_push(words, q[i])) return oom(sp->err);
    }
    return TROVE_OK;
}

/* SuggestWordScoreComparator / SuggestWordFrequencyComparator, reversed;
 * ctx: the sort is by frequency */
static int sword_cmp(const void *pa, const void *pb, const void *ctx) {
    const sword *a = pa, *b = pb;
    if (ctx) {
        if (a->df != b->df) return a->df > b->df ? -1 : 1;
        if (a->score != b->score) return a->score > b->score ? -1 : 1;
    } else {
        if (a->score != b->score) return a->score > b->score ? -1 : 1;
        if (a->df != b->df) return a->df > b->df ? -1 : 1;
    }
    return utf16_cmp(a->term, a->len, b->term, b->len);
}

static int64_t doc_freq(const tv_snapshot *snap, uint32_t field, const char *t, size_t len) {
    int64_t df = 0;
    for (uint32_t i = 0; i < snap->nsegs; i++) {
        tv_term_state st;
        if (tv_segment_term(snap->segs[i].seg, field, t, len, &st)) df += st.doc_freq;
    }
    return df;
}

/* DirectSpellChecker.suggestSimilar(term, numSug, ir, suggestMode) with
 * OpenSearch's settings; options into e. */
static tv_status suggest_similar(const spell *sp, int32_t num_sug, entry *e) {
    const term_sugg *s = sp->s;
    if (sp->word_cps < (size_t)s->min_word_len) return TROVE_OK;
    int64_t docfreq = doc_freq(sp->snap, sp->field, sp->word, sp->word_len);
    if (s->mode == SM_MISSING && docfreq > 0) return TROVE_OK;
    int64_t max_doc = (int64_t)sp->snap->max_doc;
    float mqf = s->max_term_freq;
    if (mqf >= 1.0f && (double)docfreq > (double)mqf) return TROVE_OK;
    if (docfreq > java_int(ceil((double)(mqf * (float)max_doc)))) return TROVE_OK;
    if (s->mode != SM_POPULAR) docfreq = 0;
    float thr = s->min_doc_freq;
    if (thr >= 1.0f) {
        if (java_int(thr) > docfreq) docfreq = java_int(thr);
    } else if (thr > 0.0f) {
        int64_t x = (int64_t)java_int((double)(thr * (float)max_doc)) - 1;
        if (x > docfreq) docfreq = x;
    }
    /* numSug * maxInspections in Java int arithmetic */
    int32_t inspections = (int32_t)((uint32_t)num_sug * (uint32_t)s->max_inspections);
    sword_vec words = {0};
    tv_status st = pass(sp, inspections, docfreq, 1, &words);
    if (!st && s->max_edits > 1 && (int64_t)words.len < inspections)
        st = pass(sp, inspections, docfreq, s->max_edits, &words);
    if (!st && words.len) {
        if (!msort(words.items, words.len, sizeof *words.items, sword_cmp, s->sort_freq ? s : NULL, sp->arena))
            st = oom(sp->err);
        size_t keep = num_sug < 0 ? 0 : (size_t)num_sug < words.len ? (size_t)num_sug : words.len;
        e->opts = st ? NULL : tv_arena_alloc(sp->arena, (keep ? keep : 1) * sizeof *e->opts);
        if (!st && !e->opts) st = oom(sp->err);
        for (size_t i = 0; e->opts && !st && i < keep; i++)
            e->opts[e->nopts++] = (opt){words.items[i].term, words.items[i].len, words.items[i].score, words.items[i].df};
    }
    tv_vec_fini(&words);
    return st;
}

static bool has_terms(tv_field_type t) {
    return t == TV_FT_TEXT || t == TV_FT_MATCH_ONLY_TEXT || t == TV_FT_KEYWORD;
}

/* mapperService.getNamedAnalyzer as far as trove can see it: built-ins and
 * the analyzers the mapping's fields use. */
static const tv_analyzer *named_analyzer(const tv_mapping *m, const char *name) {
    size_t nl = strlen(name);
    const tv_analyzer *a = tv_analyzer_builtin(name, nl);
    if (a) return a;
    uint32_t n = m ? tv_mapping_field_count(m) : 0;
    for (uint32_t i = 0; i < n; i++) {
        const tv_field *f = tv_mapping_field_by_id(m, i);
        if (!f) continue;
        const tv_analyzer *c[4] = {f->analyzer, f->search_analyzer, f->search_quote_analyzer, f->normalizer};
        for (int k = 0; k < 4; k++)
            if (c[k] && strcmp(tv_analyzer_name(c[k]), name) == 0) return c[k];
    }
    return NULL;
}

static tv_status shard_err(tv_error *err, const tv_search_target *t) {
    snprintf(err->index, sizeof err->index, "%s", t->index ? t->index : "");
    return err->code;
}

/* TermSuggestionBuilder.build + TermSuggester.innerExecute on one target. */
static tv_status run_shard(const tv_suggest *all, const term_sugg *s, const tv_search_target *t, tv_arena *a,
                           shard_res *out, tv_error *err) {
    const tv_mapping *m = t->snap ? t->snap->mapping : NULL;
    const tv_field *f = m ? tv_mapping_field(m, s->field, strlen(s->field)) : NULL;
    if (!f || f->type == TV_FT_OBJECT) {
        tv_error_set(err, TROVE_EARG, "no mapping found for field [%s]", s->field);
        return shard_err(err, t);
    }
    const tv_analyzer *an = NULL;
    bool keyword = false;
    if (s->analyzer) {
        if (!(an = named_analyzer(m, s->analyzer))) {
            tv_error_set(err, TROVE_EARG, "analyzer [%s] doesn't exists", s->analyzer);
            return shard_err(err, t);
        }
    } else if (tv_field_type_is_text(f->type)) {
        an = f->search_analyzer ? f->search_analyzer : f->analyzer;
        if (!an) an = tv_analyzer_builtin("standard", 8);
    } else if (f->type == TV_FT_KEYWORD && f->normalizer) {
        an = f->normalizer;
    } else {
        keyword = true; /* Lucene.KEYWORD_ANALYZER */
    }
    const char *text = s->text ? s->text : all->global_text;
    size_t text_len = s->text ? s->text_len : all->global_len;
    if (!text) {
        tv_error_set(err, TROVE_EARG, "The required text option is missing");
        return shard_err(err, t);
    }
    tv_tokens toks = {0};
    tv_token one;
    if (keyword) {
        memset(&one, 0, sizeof one);
        one.term = text;
        one.term_len = (uint32_t)text_len;
        one.end16 = (uint32_t)tv_utf16_len(text, text_len);
        toks.items = &one;
        toks.len = 1;
    } else if (an && tv_analyze(an, a, text, text_len, 0, &toks)) {
        return oom(err);
    }
    out->n = 0;
    out->entries = tv_arena_calloc(a, toks.len ? toks.len : 1, sizeof *out->entries);
    if (!out->entries) return oom(err);
    /* the shard size: given, or max(size, 5) */
    int32_t shard_size = s->shard_size >= 0 || s->shard_size < -1 ? s->shard_size : (s->size > 5 ? s->size : 5);
    bool empty = !t->snap || t->snap->num_docs == 0 || !has_terms(f->type); /* emptySuggestion / no terms */
    for (size_t i = 0; i < toks.len; i++) {
        const tv_token *k = &toks.items[i];
        entry *e = &out->entries[out->n++];
        e->text = k->term;
        e->len = k->term_len;
        e->offset = (int32_t)k->start16;
        e->length = (int32_t)(k->end16 - k->start16);
        if (empty) continue;
        spell sp = {s, t->snap, f->id, k->term, k->term_len, tv_cp_count(k->term, k->term_len), a, err};
        tv_status st = suggest_similar(&sp, shard_size, e);
        if (st) return err->code == st && st != TROVE_ENOMEM ? shard_err(err, t) : st;
    }
    return TROVE_OK;
}

/* --------------------------------------------------------------- reduce */

/* TermSuggestion.SCORE / FREQUENCY (ctx: by frequency) */
static int opt_cmp(const void *pa, const void *pb, const void *ctx) {
    const opt *a = pa, *b = pb;
    if (!ctx && a->score != b->score) return a->score > b->score ? -1 : 1;
    if (a->freq != b->freq) return a->freq > b->freq ? -1 : 1;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return bytes_cmp(a->text, a->len, b->text, b->len);
}

/* Suggestion.reduce + Entry.reduce over the targets' results of one
 * suggestion, into res[0]. */
static tv_status reduce(const term_sugg *s, shard_res *res, size_t n, tv_arena *a, tv_error *err) {
    shard_res *lead = &res[0];
    if (n > 1) {
        for (size_t e = 0; e < lead->n; e++) {
            for (size_t k = 0; k < n; k++) {
                if (res[k].n != lead->n)
                    return tv_error_set(err, TROVE_EINTERNAL,
                                        "Can't merge suggest result, this might be caused by suggest calls across multiple "
                                        "indices with different analysis chains. Suggest entries have different sizes "
                                        "actual [%zu] expected [%zu]",
                                        res[k].n, lead->n);
            }
            entry *le = &lead->entries[e];
            size_t total = 0;
            for (size_t k = 0; k < n; k++) {
                const entry *x = &res[k].entries[e];
                if (x->len != le->len || memcmp(x->text, le->text, le->len) != 0)
                    return tv_error_set(err, TROVE_EINTERNAL,
                                        "Can't merge suggest entries, this might be caused by suggest calls across multiple "
                                        "indices with different analysis chains. Suggest entries have different text "
                                        "actual [%.*s] expected [%.*s]",
                                        (int)x->len, x->text, (int)le->len, le->text);
                total += x->nopts;
            }
            opt *m = tv_arena_alloc(a, (total ? total : 1) * sizeof *m);
            if (!m) return oom(err);
            size_t mn = 0;
            for (size_t k = 0; k < n; k++) {
                const entry *x = &res[k].entries[e];
                for (size_t j = 0; j < x->nopts; j++) {
                    const opt *o = &x->opts[j];
                    size_t at = mn;
                    for (size_t q = 0; q < mn && at == mn; q++)
                        if (m[q].len == o->len && memcmp(m[q].text, o->text, o->len) == 0) at = q;
                    if (at == mn) {
                        m[mn++] = *o;
                    } else {
                        if (o->score > m[at].score) m[at].score = o->score;
                        m[at].freq += o->freq;
                    }
                }
            }
            if (!msort(m, mn, sizeof *m, opt_cmp, s->sort_freq ? s : NULL, a)) return oom(err);
            le->opts = m;
            le->nopts = mn;
        }
    }
    for (size_t e = 0; e < lead->n; e++)
        if (lead->entries[e].nopts > (size_t)s->size) lead->entries[e].nopts = (size_t)s->size;
    return TROVE_OK;
}

/* ---------------------------------------------------------------- write */

static int name_cmp(const void *a, const void *b, const void *ctx) {
    const term_sugg *items = ctx;
    const term_sugg *x = &items[*(const size_t *)a], *y = &items[*(const size_t *)b];
    return utf16_cmp(x->name, strlen(x->name), y->name, strlen(y->name));
}

tv_status tv_suggest_write(const tv_suggest *s, const tv_search_target *targets, size_t ntargets,
                           bool typed_keys, tv_arena *arena, tv_jw *out, tv_error *err) {
    if (!s || ntargets == 0) return TROVE_OK;
    shard_res **res = tv_arena_calloc(arena, s->n ? s->n : 1, sizeof *res);
    size_t *order = tv_arena_alloc(arena, (s->n ? s->n : 1) * sizeof *order);
    if (!res || !order) return oom(err);
    for (size_t i = 0; i < s->n; i++) {
        res[i] = tv_arena_calloc(arena, ntargets, sizeof **res);
        if (!res[i]) return oom(err);
        for (size_t k = 0; k < ntargets; k++) {
            tv_status st = run_shard(s, &s->items[i], &targets[k], arena, &res[i][k], err);
            if (st) return st;
        }
        tv_status st = reduce(&s->items[i], res[i], ntargets, arena, err);
        if (st) return st;
        order[i] = i;
    }
    if (!msort(order, s->n, sizeof *order, name_cmp, s->items, arena)) return oom(err);
    tv_jw_keyz(out, "suggest");
    tv_jw_obj_begin(out);
    for (size_t oi = 0; oi < s->n; oi++) {
        size_t i = order[oi];
        const term_sugg *t = &s->items[i];
        if (typed_keys) {
            char *k = tv_arena_sprintf(arena, "term#%s", t->name);
            if (!k) return oom(err);
            tv_jw_keyz(out, k);
        } else {
            tv_jw_keyz(out, t->name);
        }
        tv_jw_arr_begin(out);
        const shard_res *r = &res[i][0];
        for (size_t e = 0; e < r->n; e++) {
            const entry *x = &r->entries[e];
            tv_jw_obj_begin(out);
            tv_jw_keyz(out, "text");
            tv_jw_str(out, x->text, x->len);
            tv_jw_keyz(out, "offset");
            tv_jw_int(out, x->offset);
            tv_jw_keyz(out, "length");
            tv_jw_int(out, x->length);
            tv_jw_keyz(out, "options");
            tv_jw_arr_begin(out);
            for (size_t j = 0; j < x->nopts; j++) {
                tv_jw_obj_begin(out);
                tv_jw_keyz(out, "text");
                tv_jw_str(out, x->opts[j].text, x->opts[j].len);
                tv_jw_keyz(out, "score");
                tv_jw_float(out, x->opts[j].score);
                tv_jw_keyz(out, "freq");
                tv_jw_int(out, x->opts[j].freq);
                tv_jw_obj_end(out);
            }
            tv_jw_arr_end(out);
            tv_jw_obj_end(out);
        }
        tv_jw_arr_end(out);
    }
    tv_jw_obj_end(out);
    return TROVE_OK;
}
