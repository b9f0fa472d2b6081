/*
 * corpus.h — a deterministic generator of English-like documents and of
 * query sets shaped like luceneutil's classes, for the engine benchmarks.
 * Header-only (CMake compiles only bench/bench_*.c, each its own program):
 * every function is static.
 *
 * Vocabulary: NWORDS (50,000) pronounceable words built from syllables
 * (onset + vowel, an optional coda), deduplicated, drawn with a seeded
 * generator. Frequent ranks get short words (1 syllable for the first 60
 * ranks, 2 up to rank 3,000, 3 up to 30,000, then 4), as natural languages
 * do. Word ranks follow Zipf's law with exponent 1 (rank r has weight 1/r),
 * sampled in O(1) with Vose's alias method.
 *
 * Collocations: NPHRASES (2,000) word pairs, themselves Zipf-weighted, are
 * emitted as a unit at 4% of the body's word slots. Without them every
 * bigram would be the product of two independent draws, and a phrase query
 * would almost never find its terms adjacent; with them phrase classes have
 * what real text has (for "new york", phrase frequency close to the rarer
 * term's frequency).
 *
 * A document:
 *   {"title":"3-12 words","body":"50-500 words in sentences","tag":"tag-042",
 *    "views":12345,"date":"2017-03-04T05:06:07Z"}
 * Body lengths are log-uniform in [50, 500] words (mean ~195): many short
 * documents and a tail of long ones, as in an encyclopedia dump, rather than
 * the flat 275-word mean of a uniform draw. Sentences are 5-24 words, the
 * first capitalised, ending in '.', with a ',' after ~6% of words. Tags are
 * Zipf over 500 values, views log-uniform in [1, 10^7), dates uniform over
 * 2010-2024.
 *
 * Statistics: while generating, the body's document frequency of every word
 * and of every collocation (counted as adjacent tokens, which is what a
 * phrase query matches: the standard tokenizer gives consecutive positions
 * across punctuation) are tallied, so query classes are drawn by frequency
 * band without asking the engine, and the engine's counts can be checked
 * against them.
 *
 * Query classes mirror luceneutil's (high/med/low term, AND and OR of a
 * high-frequency term with a high/med/low one, high/med/low phrase). Bands
 * are fractions of the documents, scaled from the document frequencies
 * luceneutil's query files record ("the" 8.2M, med terms 0.6-0.8M, low
 * terms ~80k, the rare partner of and_high_low 0.8k-7k, phrases 0.5-5M /
 * 0.25-0.5M / ~70k) read as fractions of a 10M-document Wikipedia index,
 * and widened where a 100k-document corpus would leave too few words.
 *
 * Rejected: /usr/share/dict/words (absent on a fresh Debian 12); a Markov
 * model of real text (needs a text to learn from, which the repo must not
 * carry); binary search over the cumulative distribution (16 unpredictable
 * branches per word where the alias method needs one draw and one compare).
 */
#ifndef TROVE_BENCH_CORPUS_H
#define TROVE_BENCH_CORPUS_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/util.h"

#define BC_NWORDS 50000u
#define BC_NPHRASES 2000u
#define BC_NTAGS 500u
#define BC_PHRASE_RATE 0.04
#define BC_FN static __attribute__((unused))

/* ------------------------------------------------------------ randomness */

/* splitmix64: tiny, fast, and every seed gives a full-period stream. */
typedef struct bc_rng {
    uint64_t s;
} bc_rng;

static inline uint64_t bc_next(bc_rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* Uniform in [0, n). */
static inline uint32_t bc_below(bc_rng *r, uint32_t n) {
    return (uint32_t)(((bc_next(r) >> 32) * (uint64_t)n) >> 32);
}
/* Uniform in [0, 1). */
static inline double bc_unit(bc_rng *r) { return (double)(bc_next(r) >> 11) * 0x1.0p-53; }

/* Vose's alias method: draw index i with probability w[i] / sum(w). */
typedef struct bc_alias {
    uint32_t n;
    float *prob;
    uint32_t *alias;
} bc_alias;

BC_FN void bc_alias_fini(bc_alias *a) {
    tv_free(a->prob);
    tv_free(a->alias);
    memset(a, 0, sizeof *a);
}

/* Zipf weights 1/(i+1)^s over n outcomes. Returns false on OOM. */
BC_FN bool bc_alias_zipf(bc_alias *a, uint32_t n, double s) {
    memset(a, 0, sizeof *a);
    double *p = tv_malloc(n * sizeof *p);
    uint32_t *small = tv_malloc(n * sizeof *small), *large = tv_malloc(n * sizeof *large);
    a->prob = tv_malloc(n * sizeof *a->prob);
    a->alias = tv_malloc(n * sizeof *a->alias);
    if (!p || !small || !large || !a->prob || !a->alias) {
        tv_free(p);
        tv_free(small);
        tv_free(large);
        bc_alias_fini(a);
        return false;
    }
    a->n = n;
    double sum = 0;
    for (uint32_t i = 0; i < n; i++) sum += p[i] = 1.0 / pow((double)i + 1, s);
    uint32_t ns = 0, nl = 0;
    for (uint32_t i = 0; i < n; i++) {
        p[i] = p[i] * n / sum;
        if (p[i] < 1.0) small[ns++] = i;
        else large[nl++] = i;
    }
    while (ns && nl) {
        uint32_t l = small[--ns], g = large[nl - 1];
        a->prob[l] = (float)p[l];
        a->alias[l] = g;
        p[g] = (p[g] + p[l]) - 1.0;
        if (p[g] < 1.0) {
            nl--;
            small[ns++] = g;
        }
    }
    while (nl) a->prob[large[--nl]] = 1.0f, a->alias[large[nl]] = large[nl];
    while (ns) a->prob[small[--ns]] = 1.0f, a->alias[small[ns]] = small[ns];
    tv_free(p);
    tv_free(small);
    tv_free(large);
    return true;
}

static inline uint32_t bc_alias_draw(const bc_alias *a, bc_rng *r) {
    uint64_t x = bc_next(r);
    uint32_t i = (uint32_t)(((x >> 32) * (uint64_t)a->n) >> 32);
    float u = (float)(uint32_t)x * 0x1.0p-32f;
    return u < a->prob[i] ? i : a->alias[i];
}

/* ------------------------------------------------------------ the corpus */

typedef struct bc_corpus {
    uint64_t seed;
    /* vocabulary: word r is text + off[r], length len[r] */
    char *text;
    uint32_t *off;
    uint8_t *len;
    bc_alias zipf;
    /* collocations: pairs of word ranks, Zipf-weighted */
    uint32_t (*phr)[2];
    uint32_t nphr;
    bc_alias phr_zipf;
    /* bigram (w1 * NWORDS + w2) -> collocation index + 1, open addressing */
    uint64_t *ht_key;
    uint32_t *ht_val;
    uint32_t ht_mask;
    bc_alias tag_zipf;
    /* generation state (bc_corpus_reset restarts the same stream) */
    bc_rng rng;
    uint32_t ndocs;
    /* statistics of the generated documents' body field */
    uint32_t *df;        /* per word: documents containing it */
    uint32_t *stamp;     /* per word: last document counted (1-based) */
    uint32_t *phr_df;    /* per collocation: documents containing the bigram */
    uint32_t *phr_stamp;
    uint64_t body_tokens;
    uint64_t source_bytes;
} bc_corpus;

static const char *const bc_onsets[] = {"",  "b",  "c",  "d",  "f",  "g",  "h",  "j",  "k",  "l",
                                        "m", "n",  "p",  "r",  "s",  "t",  "v",  "w",  "z",  "st",
                                        "tr", "ch", "sh", "th", "br", "pl", "gr", "qu"};
static const char *const bc_vowels[] = {"a", "e", "i", "o", "u", "ai", "ea", "ou", "io", "y"};
static const char *const bc_codas[] = {"", "n", "r", "s", "t", "l", "m", "nd", "st", "ng", "rk", "x"};

BC_FN void bc_corpus_fini(bc_corpus *c) {
    tv_free(c->text);
    tv_free(c->off);
    tv_free(c->len);
    bc_alias_fini(&c->zipf);
    tv_free(c->phr);
    bc_alias_fini(&c->phr_zipf);
    tv_free(c->ht_key);
    tv_free(c->ht_val);
    bc_alias_fini(&c->tag_zipf);
    tv_free(c->df);
    tv_free(c->stamp);
    tv_free(c->phr_df);
    tv_free(c->phr_stamp);
    memset(c, 0, sizeof *c);
}

/* Restarts the document stream and clears the statistics: the next
 * documents are the same as after bc_corpus_init with the same seed. */
BC_FN void bc_corpus_reset(bc_corpus *c) {
    c->rng.s = c->seed * 0x2545F4914F6CDD1Dull + 0x1234567;
    c->ndocs = 0;
    c->body_tokens = 0;
    c->source_bytes = 0;
    memset(c->df, 0, BC_NWORDS * sizeof *c->df);
    memset(c->stamp, 0, BC_NWORDS * sizeof *c->stamp);
    memset(c->phr_df, 0, c->nphr * sizeof *c->phr_df);
    memset(c->phr_stamp, 0, c->nphr * sizeof *c->phr_stamp);
}

static inline uint32_t bc_ht_slot(uint64_t key, uint32_t mask) {
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & mask;
}

/* Collocation index + 1 of bigram (a, b), 0 when it is not one. */
static inline uint32_t bc_phrase_of(const bc_corpus *c, uint32_t a, uint32_t b) {
    uint64_t key = (uint64_t)a * BC_NWORDS + b + 1;
    for (uint32_t i = bc_ht_slot(key, c->ht_mask);; i = (i + 1) & c->ht_mask) {
        if (c->ht_key[i] == key) return c->ht_val[i];
        if (!c->ht_key[i]) return 0;
    }
}

/* Builds the vocabulary, the collocations and the samplers for a seed.
 * Returns false on OOM (c is then zeroed). */
BC_FN bool bc_corpus_init(bc_corpus *c, uint64_t seed) {
    memset(c, 0, sizeof *c);
    c->seed = seed;
    bc_rng r = {seed ^ 0xC0FFEE1234ull};
    tv_map seen;
    tv_map_init(&seen);
    tv_buf text;
    tv_buf_init(&text);
    c->off = tv_malloc(BC_NWORDS * sizeof *c->off);
    c->len = tv_malloc(BC_NWORDS);
    c->df = tv_calloc(BC_NWORDS, sizeof *c->df);
    c->stamp = tv_calloc(BC_NWORDS, sizeof *c->stamp);
    if (!c->off || !c->len || !c->df || !c->stamp) goto oom;
    for (uint32_t w = 0; w < BC_NWORDS;) {
        unsigned nsyl = w < 60 ? 1 : w < 3000 ? 2 : w < 30000 ? 3 : 4;
        char word[64];
        size_t n = 0;
        for (unsigned s = 0; s < nsyl; s++) {
            const char *on = bc_onsets[bc_below(&r, TV_ARRAY_LEN(bc_onsets))];
            const char *vo = bc_vowels[bc_below(&r, TV_ARRAY_LEN(bc_vowels))];
            n += (size_t)snprintf(word + n, sizeof word - n, "%s%s", on, vo);
        }
        if (bc_below(&r, 2)) n += (size_t)snprintf(word + n, sizeof word - n, "%s", bc_codas[bc_below(&r, TV_ARRAY_LEN(bc_codas))]);
        if (n < 2 || tv_map_has(&seen, word, n)) continue; /* one-letter words and repeats: draw again */
        if (tv_map_put(&seen, word, n, NULL, NULL)) goto oom;
        c->off[w] = (uint32_t)text.len;
        c->len[w] = (uint8_t)n;
        tv_buf_append(&text, word, n);
        w++;
    }
    if (text.oom) goto oom;
    size_t tl;
    c->text = tv_buf_detach(&text, &tl);
    if (!c->text || !bc_alias_zipf(&c->zipf, BC_NWORDS, 1.0) || !bc_alias_zipf(&c->tag_zipf, BC_NTAGS, 1.0))
        goto oom;

    /* collocations: distinct pairs of distinct Zipf-drawn words */
    c->phr = tv_malloc(BC_NPHRASES * sizeof *c->phr);
    c->ht_mask = 4 * BC_NPHRASES;
    while (c->ht_mask & (c->ht_mask - 1)) c->ht_mask &= c->ht_mask - 1;
    c->ht_mask = c->ht_mask * 2 - 1;
    c->ht_key = tv_calloc((size_t)c->ht_mask + 1, sizeof *c->ht_key);
    c->ht_val = tv_calloc((size_t)c->ht_mask + 1, sizeof *c->ht_val);
    if (!c->phr || !c->ht_key || !c->ht_val) goto oom;
    while (c->nphr < BC_NPHRASES) {
        uint32_t a = bc_alias_draw(&c->zipf, &r), b = bc_alias_draw(&c->zipf, &r);
        if (a == b || bc_phrase_of(c, a, b)) continue;
        uint64_t key = (uint64_t)a * BC_NWORDS + b + 1;
        uint32_t i = bc_ht_slot(key, c->ht_mask);
        while (c->ht_key[i]) i = (i + 1) & c->ht_mask;
        c->ht_key[i] = key;
        c->ht_val[i] = c->nphr + 1;
        c->phr[c->nphr][0] = a;
        c->phr[c->nphr][1] = b;
        c->nphr++;
    }
    c->phr_df = tv_calloc(c->nphr, sizeof *c->phr_df);
    c->phr_stamp = tv_calloc(c->nphr, sizeof *c->phr_stamp);
    if (!c->phr_df || !c->phr_stamp || !bc_alias_zipf(&c->phr_zipf, c->nphr, 1.0)) goto oom;
    tv_map_fini(&seen);
    bc_corpus_reset(c);
    return true;
oom:
    tv_map_fini(&seen);
    tv_buf_fini(&text);
    bc_corpus_fini(c);
    return false;
}

static inline const char *bc_word(const bc_corpus *c, uint32_t w, size_t *len) {
    *len = c->len[w];
    return c->text + c->off[w];
}

/* Appends word w (capitalised when cap) and counts it in the statistics
 * when body is true; prev is the previous body word (UINT32_MAX at the
 * start) for bigram counting. */
static inline void bc_emit(bc_corpus *c, tv_buf *out, uint32_t w, bool cap, bool body, uint32_t prev) {
    size_t n;
    const char *s = bc_word(c, w, &n);
    size_t at = out->len;
    tv_buf_append(out, s, n);
    if (cap && !out->oom) out->data[at] = (char)(out->data[at] - 'a' + 'A');
    if (!body) return;
    uint32_t d = c->ndocs + 1;
    c->body_tokens++;
    if (c->stamp[w] != d) c->stamp[w] = d, c->df[w]++;
    if (prev != UINT32_MAX) {
        uint32_t p = bc_phrase_of(c, prev, w);
        if (p && c->phr_stamp[p - 1] != d) c->phr_stamp[p - 1] = d, c->phr_df[p - 1]++;
    }
}

/* Appends the next document's JSON (one line, no newline) to out. */
BC_FN void bc_doc(bc_corpus *c, tv_buf *out) {
    bc_rng *r = &c->rng;
    size_t start = out->len;
    tv_buf_puts(out, "{\"title\":\"");
    uint32_t nt = 3 + bc_below(r, 10);
    for (uint32_t i = 0; i < nt; i++) {
        if (i) tv_buf_putc(out, ' ');
        bc_emit(c, out, bc_alias_draw(&c->zipf, r), true, false, 0);
    }
    tv_buf_puts(out, "\",\"body\":\"");
    uint32_t nb = (uint32_t)(50.0 * exp(bc_unit(r) * log(10.0)));
    uint32_t prev = UINT32_MAX, sentence = 0, slen = 5 + bc_below(r, 20);
    for (uint32_t i = 0; i < nb; i++) {
        if (i) tv_buf_putc(out, ' ');
        bool cap = sentence == 0;
        if (i + 1 < nb && bc_unit(r) < BC_PHRASE_RATE) {
            const uint32_t *p = c->phr[bc_alias_draw(&c->phr_zipf, r)];
            bc_emit(c, out, p[0], cap, true, prev);
            tv_buf_putc(out, ' ');
            bc_emit(c, out, p[1], false, true, p[0]);
            prev = p[1];
            i++;
            sentence += 2;
        } else {
            uint32_t w = bc_alias_draw(&c->zipf, r);
            bc_emit(c, out, w, cap, true, prev);
            prev = w;
            sentence++;
        }
        if (sentence >= slen || i + 1 == nb) {
            tv_buf_putc(out, '.');
            sentence = 0;
            slen = 5 + bc_below(r, 20);
        } else if (bc_below(r, 16) == 0) {
            tv_buf_putc(out, ',');
        }
    }
    time_t t = (time_t)(1262304000 + (int64_t)bc_below(r, 1735689600u - 1262304000u));
    struct tm tm;
    gmtime_r(&t, &tm);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    tv_buf_printf(out, "\",\"tag\":\"tag-%03u\",\"views\":%lld,\"date\":\"%s\"}", bc_alias_draw(&c->tag_zipf, r),
                  (long long)exp(bc_unit(r) * log(1e7)), date);
    c->source_bytes += out->len - start;
    c->ndocs++;
}

/* ------------------------------------------------------------ query sets */

typedef enum bc_kind { BC_TERM = 0, BC_AND, BC_OR, BC_PHRASE } bc_kind;

/* A band of document frequency, as fractions of the documents. */
typedef struct bc_band {
    double lo, hi;
} bc_band;

#define BC_HIGH ((bc_band){0.12, 0.90})
#define BC_MED ((bc_band){0.05, 0.09})
#define BC_LOW ((bc_band){0.005, 0.012})
#define BC_MED2 ((bc_band){0.008, 0.065})   /* second term of *_high_med */
#define BC_RARE ((bc_band){0.00008, 0.0008}) /* second term of *_high_low */
#define BC_PHIGH ((bc_band){0.05, 0.60})
#define BC_PMED ((bc_band){0.02, 0.05})
#define BC_PLOW ((bc_band){0.004, 0.012})

typedef struct bc_class {
    const char *name;
    bc_kind kind;
    bc_band a, b; /* a: the term / first term / phrase; b: second term */
} bc_class;

static const bc_class bc_classes[] = {
    {"high_term", BC_TERM, BC_HIGH, {0, 0}},
    {"med_term", BC_TERM, BC_MED, {0, 0}},
    {"low_term", BC_TERM, BC_LOW, {0, 0}},
    {"and_high_high", BC_AND, BC_HIGH, BC_HIGH},
    {"and_high_med", BC_AND, BC_HIGH, BC_MED2},
    {"and_high_low", BC_AND, BC_HIGH, BC_RARE},
    {"or_high_high", BC_OR, BC_HIGH, BC_HIGH},
    {"or_high_med", BC_OR, BC_HIGH, BC_MED2},
    {"or_high_low", BC_OR, BC_HIGH, BC_RARE},
    {"high_phrase", BC_PHRASE, BC_PHIGH, {0, 0}},
    {"med_phrase", BC_PHRASE, BC_PMED, {0, 0}},
    {"low_phrase", BC_PHRASE, BC_PLOW, {0, 0}},
};
#define BC_NCLASSES TV_ARRAY_LEN(bc_classes)

/* One generated query: word ranks (w[1] unused for terms) and the
 * documents the generator counted: df[0], df[1] for the words, pdf for the
 * phrase (phrases only). */
typedef struct bc_query {
    uint32_t w[2];
    uint32_t df[2];
    uint32_t pdf;
} bc_query;

static inline bool bc_in(const bc_corpus *c, uint32_t df, bc_band b) {
    double lo = b.lo * c->ndocs, hi = b.hi * c->ndocs;
    if (lo < 2) lo = 2; /* at least two documents: never an empty result */
    return df >= lo && df <= hi;
}

/* Words (ranks, ascending) whose body document frequency is in band. */
BC_FN uint32_t bc_band_words(const bc_corpus *c, bc_band b, uint32_t *out) {
    uint32_t n = 0;
    for (uint32_t w = 0; w < BC_NWORDS; w++)
        if (bc_in(c, c->df[w], b)) out[n++] = w;
    return n;
}

/*
 * Draws up to max distinct queries of class k from the statistics of the
 * documents generated so far (call after generating the corpus). The draw
 * is seeded by the corpus seed and the class, so a class's queries do not
 * depend on which other classes are asked for. Returns the number written
 * to out (fewer than max when the band holds fewer candidates; 0 on OOM).
 */
BC_FN uint32_t bc_queries(const bc_corpus *c, const bc_class *k, uint32_t max, bc_query *out) {
    bc_rng r = {c->seed * 31 + (uint64_t)(k - bc_classes) * 0x51ED27ull + 7};
    uint32_t n = 0;
    if (k->kind == BC_PHRASE) {
        uint32_t *cand = tv_malloc(c->nphr * sizeof *cand), nc = 0;
        if (!cand) return 0;
        for (uint32_t i = 0; i < c->nphr; i++)
            if (bc_in(c, c->phr_df[i], k->a)) cand[nc++] = i;
        for (; n < max && nc; n++) { /* sample without replacement */
            uint32_t j = bc_below(&r, nc), p = cand[j];
            cand[j] = cand[--nc];
            out[n] = (bc_query){{c->phr[p][0], c->phr[p][1]}, {c->df[c->phr[p][0]], c->df[c->phr[p][1]]}, c->phr_df[p]};
        }
        tv_free(cand);
        return n;
    }
    uint32_t *a = tv_malloc(BC_NWORDS * sizeof *a), *b = tv_malloc(BC_NWORDS * sizeof *b);
    if (!a || !b) {
        tv_free(a);
        tv_free(b);
        return 0;
    }
    uint32_t na = bc_band_words(c, k->a, a);
    if (k->kind == BC_TERM) {
        for (; n < max && na; n++) {
            uint32_t j = bc_below(&r, na), w = a[j];
            a[j] = a[--na];
            out[n] = (bc_query){{w, 0}, {c->df[w], 0}, 0};
        }
    } else {
        uint32_t nb = bc_band_words(c, k->b, b);
        for (uint32_t tries = 0; n < max && na && nb && tries < 100 * max; tries++) {
            uint32_t x = a[bc_below(&r, na)], y = b[bc_below(&r, nb)];
            bool dup = x == y;
            for (uint32_t i = 0; i < n && !dup; i++)
                dup = (out[i].w[0] == x && out[i].w[1] == y) || (out[i].w[0] == y && out[i].w[1] == x);
            if (!dup) out[n++] = (bc_query){{x, y}, {c->df[x], c->df[y]}, 0};
        }
    }
    tv_free(a);
    tv_free(b);
    return n;
}

/* Appends a query in luceneutil's syntax: w, +a +b, a b, "a b". */
BC_FN void bc_query_text(const bc_corpus *c, bc_kind kind, const bc_query *q, tv_buf *out) {
    size_t l0, l1;
    const char *w0 = bc_word(c, q->w[0], &l0), *w1 = bc_word(c, q->w[1], &l1);
    switch (kind) {
    case BC_TERM: tv_buf_append(out, w0, l0); break;
    case BC_AND: tv_buf_printf(out, "+%.*s +%.*s", (int)l0, w0, (int)l1, w1); break;
    case BC_OR: tv_buf_printf(out, "%.*s %.*s", (int)l0, w0, (int)l1, w1); break;
    case BC_PHRASE: tv_buf_printf(out, "\"%.*s %.*s\"", (int)l0, w0, (int)l1, w1); break;
    }
}

#endif /* TROVE_BENCH_CORPUS_H */
