/*
 * significant.c — the parts of significant_terms and significant_text that
 * need neither a shard nor a reduce: the significance heuristics, the
 * priority queue their buckets are ranked in, and the duplicate-text
 * filter of significant_text.
 *
 * Heuristics (SignificanceHeuristic.getScore(subsetFreq, subsetSize,
 * supersetFreq, supersetSize)) are computed in doubles, in OpenSearch's
 * operation order, so scores print as OpenSearch prints them: jlh (the
 * default), mutual_information and chi_square (the NXY frequencies, with
 * include_negatives and background_is_superset), gnd and percentage, with
 * their argument checks and messages. script_heuristic is refused at parse
 * time (parse.c).
 *
 * Ranking. OpenSearch keeps the best buckets in Lucene's PriorityQueue
 * ordered by score alone, so the order of equal scores is the heap's:
 * tv_sig_rank replays insertWithOverflow and pop over a binary heap
 * exactly (upHeap/downHeap as Lucene writes them). A sort with a
 * tie-break would print ties in another order; rejected.
 *
 * Duplicate text (filter_duplicate_text): Lucene-side classes in
 * OpenSearch, DeDuplicatingTokenFilter over DuplicateByteSequenceSpotter.
 * Each token is hashed (MurmurHash3 x64_128, seed 0, low byte of h1) to
 * one byte; the spotter counts every run of 6 consecutive bytes since the
 * start of the document, and reports how often the run ending at the
 * current byte was seen before (up to 255). When a token's run was seen,
 * the filter marks the 6 slots of its ring of recent tokens, and a token
 * leaves the ring with the largest mark it received; tokens with a mark
 * are dropped. The ring and its marks are replayed slot for slot,
 * including marks on slots not yet filled (which the next tokens written
 * there inherit), since which tokens survive depends on them. The spotter
 * is kept per parent bucket and restarts its run at each document, as
 * OpenSearch's. The spotter's trie is replaced by a hash table from the
 * 6-byte run to its count (same counts, fewer allocations).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "aggs/aggs.h"
#include "aggs/hll.h"

/* ---------------------------------------------------------- heuristics */

static tv_status freq_check(int64_t sub_df, int64_t sub_size, int64_t sup_df, int64_t sup_size, const char *fn,
                            char *msg, size_t cap) {
    if (sub_df < 0 || sub_size < 0 || sup_df < 0 || sup_size < 0) {
        snprintf(msg, cap, "Frequencies of subset and superset must be positive in %s.getScore()", fn);
        return TROVE_EARG;
    }
    if (sub_df > sub_size) {
        snprintf(msg, cap, "subsetFreq > subsetSize, in %s", fn);
        return TROVE_EARG;
    }
    if (sup_df > sup_size) {
        snprintf(msg, cap, "supersetFreq > supersetSize, in %s", fn);
        return TROVE_EARG;
    }
    return TROVE_OK;
}

typedef struct nxy {
    double n00, n01, n10, n11, n0_, n1_, n_0, n_1, n;
} nxy;

#define SCORE_ERROR_MESSAGE                                                                                            \
    ", does your background filter not include all documents in the bucket? If so and it is intentional, set "        \
    "\"background_is_superset\": false"

static tv_status compute_nxy(const tv_agg *a, int64_t sub_df, int64_t sub_size, int64_t sup_df, int64_t sup_size,
                             const char *fn, nxy *f, char *msg, size_t cap) {
    tv_status st = freq_check(sub_df, sub_size, sup_df, sup_size, fn, msg, cap);
    if (st) return st;
    if (a->sig_bg_superset) {
        if (sub_df > sup_df) { snprintf(msg, cap, "subsetFreq > supersetFreq%s", SCORE_ERROR_MESSAGE); return TROVE_EARG; }
        if (sub_size > sup_size) { snprintf(msg, cap, "subsetSize > supersetSize%s", SCORE_ERROR_MESSAGE); return TROVE_EARG; }
        if (sup_df - sub_df > sup_size - sub_size) {
            snprintf(msg, cap, "supersetFreq - subsetFreq > supersetSize - subsetSize%s", SCORE_ERROR_MESSAGE);
            return TROVE_EARG;
        }
        f->n00 = (double)(sup_size - sup_df - (sub_size - sub_df));
        f->n01 = (double)(sub_size - sub_df);
        f->n10 = (double)(sup_df - sub_df);
        f->n11 = (double)sub_df;
        f->n0_ = (double)(sup_size - sup_df);
        f->n1_ = (double)sup_df;
        f->n_0 = (double)(sup_size - sub_size);
        f->n_1 = (double)sub_size;
        f->n = (double)sup_size;
    } else {
        f->n00 = (double)(sup_size - sup_df);
        f->n01 = (double)(sub_size - sub_df);
        f->n10 = (double)sup_df;
        f->n11 = (double)sub_df;
        f->n0_ = (double)(sup_size - sup_df + sub_size - sub_df);
        f->n1_ = (double)(sup_df + sub_df);
        f->n_0 = (double)sup_size;
        f->n_1 = (double)sub_size;
        f->n = (double)(sup_size + sub_size);
    }
    return TROVE_OK;
}

/* MutualInformation.getMITerm: 0 * log(0) is 0. */
static double mi_term(double nxy_, double nx_, double n_y, double n) {
    double numerator = fabs(n * nxy_);
    double denominator = fabs(nx_ * n_y);
    double factor = fabs(nxy_ / n);
    if (numerator < 1.e-7 && factor < 1.e-7) return 0.0;
    return factor * log(numerator / denominator);
}

/* Java's Math.max / Math.min of doubles (NaN wins). */
static double jmax(double x, double y) { return isnan(x) ? x : isnan(y) ? y : x >= y ? x : y; }
static double jmin(double x, double y) { return isnan(x) ? x : isnan(y) ? y : x <= y ? x : y; }

tv_status tv_sig_score(const tv_agg *a, int64_t sub_df, int64_t sub_size, int64_t sup_df, int64_t sup_size,
                       double *out, char *msg, size_t cap) {
    tv_status st;
    nxy f;
    *out = 0;
    switch ((tv_sig_heuristic)a->sig_heuristic) {
    case TV_SIG_JLH: {
        if ((st = freq_check(sub_df, sub_size, sup_df, sup_size, "JLHScore", msg, cap))) return st;
        if (sub_size == 0 || sup_size == 0) return TROVE_OK;
        if (sup_df == 0) sup_df = 1; /* a background that is not a superset */
        double subp = (double)sub_df / (double)sub_size;
        double supp = (double)sup_df / (double)sup_size;
        double abs_change = subp - supp;
        if (abs_change <= 0) return TROVE_OK;
        double rel_change = subp / supp;
        *out = abs_change * rel_change;
        return TROVE_OK;
    }
    case TV_SIG_PERCENTAGE:
        if ((st = freq_check(sub_df, sub_size, sup_df, sup_size, "PercentageScore", msg, cap))) return st;
        *out = sup_df == 0 ? 0 : (double)sub_df / (double)sup_df;
        return TROVE_OK;
    case TV_SIG_MUTUAL_INFORMATION: {
        if ((st = compute_nxy(a, sub_df, sub_size, sup_df, sup_size, "MutualInformation", &f, msg, cap))) return st;
        double score = (mi_term(f.n00, f.n0_, f.n_0, f.n) + mi_term(f.n01, f.n0_, f.n_1, f.n) +
                        mi_term(f.n10, f.n1_, f.n_0, f.n) + mi_term(f.n11, f.n1_, f.n_1, f.n)) /
                       log(2.0);
        if (isnan(score)) score = -INFINITY;
        if (!a->sig_include_negatives && f.n11 / f.n_1 < f.n10 / f.n_0) score = -INFINITY;
        *out = score;
        return TROVE_OK;
    }
    case TV_SIG_CHI_SQUARE:
        if ((st = compute_nxy(a, sub_df, sub_size, sup_df, sup_size, "ChiSquare", &f, msg, cap))) return st;
        if (!a->sig_include_negatives && f.n11 / f.n_1 < f.n10 / f.n_0) {
            *out = -INFINITY;
            return TROVE_OK;
        }
        *out = f.n * pow(f.n11 * f.n00 - f.n01 * f.n10, 2.0) / (f.n_1 * f.n1_ * f.n0_ * f.n_0);
        return TROVE_OK;
    case TV_SIG_GND: {
        if ((st = compute_nxy(a, sub_df, sub_size, sup_df, sup_size, "GND", &f, msg, cap))) return st;
        double fx = f.n1_, fy = f.n_1, fxy = f.n11, n = f.n;
        if (fxy == 0) return TROVE_OK; /* no co-occurrence */
        if (fx == fy && fx == fxy) { *out = 1.0; return TROVE_OK; }
        double score = (jmax(log(fx), log(fy)) - log(fxy)) / (log(n) - jmin(log(fx), log(fy)));
        *out = exp(-1.0 * score); /* GND scores relevant terms low */
        return TROVE_OK;
    }
    }
    return TROVE_OK;
}

/* ---------------------------------------------------- Lucene's queue */

typedef struct pq {
    agg_bucket **heap; /* 1-based */
    size_t size, max;
} pq;

static bool less(const agg_bucket *x, const agg_bucket *y) { return x->score < y->score; }

static void up_heap(pq *q, size_t i) {
    agg_bucket *node = q->heap[i];
    size_t j = i >> 1;
    while (j > 0 && less(node, q->heap[j])) {
        q->heap[i] = q->heap[j];
        i = j;
        j >>= 1;
    }
    q->heap[i] = node;
}

static void down_heap(pq *q, size_t i) {
    agg_bucket *node = q->heap[i];
    size_t j = i << 1, k = j + 1;
    if (k <= q->size && less(q->heap[k], q->heap[j])) j = k;
    while (j <= q->size && less(q->heap[j], node)) {
        q->heap[i] = q->heap[j];
        i = j;
        j = i << 1;
        k = j + 1;
        if (k <= q->size && less(q->heap[k], q->heap[j])) j = k;
    }
    q->heap[i] = node;
}

size_t tv_sig_rank(agg_bucket **items, size_t n, size_t max, tv_arena *arena) {
    pq q = {NULL, 0, max};
    size_t cap = TV_MIN(max, n);
    q.heap = tv_arena_alloc(arena, (cap + 2) * sizeof *q.heap);
    if (!q.heap) return SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        agg_bucket *e = items[i];
        if (q.size < q.max) {
            q.heap[++q.size] = e;
            up_heap(&q, q.size);
        } else if (q.size > 0 && !less(e, q.heap[1])) {
            q.heap[1] = e;
            down_heap(&q, 1);
        }
    }
    size_t k = q.size;
    for (size_t i = k; i-- > 0;) {
        items[i] = q.heap[1];
        q.heap[1] = q.heap[q.size];
        q.size--;
        if (q.size) down_heap(&q, 1);
    }
    return k;
}

/* ------------------------------------------------------ duplicate text */

#define DUP_DEPTH 6
#define DUP_MAX_HITS 255

typedef struct dup_slot {
    uint64_t run; /* the 6 bytes, +1 in the top byte so 0 is empty */
    uint8_t hits;
} dup_slot;

struct tv_dup_spotter {
    dup_slot *slots;
    size_t cap, n;
    uint8_t seq[DUP_DEPTH];
    int next;
    bool filled;
};

tv_dup_spotter *tv_dup_spotter_new(void) { return tv_calloc(1, sizeof(tv_dup_spotter)); }

void tv_dup_spotter_free(tv_dup_spotter *s) {
    if (!s) return;
    tv_free(s->slots);
    tv_free(s);
}

void tv_dup_spotter_new_sequence(tv_dup_spotter *s) {
    s->filled = false;
    s->next = 0;
}

static uint64_t run_hash(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

/* DuplicateByteSequenceSpotter.addByte: prior sightings of the run of 6
 * bytes ending with b (0 until 6 bytes of this sequence). -1: OOM. */
static int dup_add(tv_dup_spotter *s, uint8_t b) {
    s->seq[s->next++] = b;
    if (s->next >= DUP_DEPTH) {
        s->next = 0;
        s->filled = true;
    }
    if (!s->filled) return 0;
    uint64_t run = 0;
    for (int i = 0, p = s->next; i < DUP_DEPTH; i++, p = (p + 1) % DUP_DEPTH) run = run << 8 | s->seq[p];
    run |= 1ull << 56;
    if ((s->n + 1) * 4 > s->cap * 3) {
        size_t nc = s->cap ? s->cap * 2 : 256;
        dup_slot *ns = tv_calloc(nc, sizeof *ns);
        if (!ns) return -1;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slots[i].run) continue;
            size_t j = run_hash(s->slots[i].run) & (nc - 1);
            while (ns[j].run) j = (j + 1) & (nc - 1);
            ns[j] = s->slots[i];
        }
        tv_free(s->slots);
        s->slots = ns;
        s->cap = nc;
    }
    size_t j = run_hash(run) & (s->cap - 1);
    while (s->slots[j].run && s->slots[j].run != run) j = (j + 1) & (s->cap - 1);
    if (!s->slots[j].run) {
        s->slots[j].run = run;
        s->slots[j].hits = 1;
        s->n++;
        return 0;
    }
    int hits = s->slots[j].hits;
    if (hits < DUP_MAX_HITS) s->slots[j].hits++;
    return hits;
}

tv_status tv_dup_filter(tv_dup_spotter *s, const tv_tokens *toks, bool *keep) {
    int slot_tok[DUP_DEPTH];
    int marks[DUP_DEPTH] = {0};
    int cursor = 0;
    bool wrapped = false;
    for (int i = 0; i < DUP_DEPTH; i++) slot_tok[i] = -1;
    for (size_t i = 0; i < toks->len; i++) keep[i] = true;
#define EMIT(sl)                                                                                                       \
    do {                                                                                                               \
        if (marks[sl] > 0) {                                                                                           \
            keep[slot_tok[sl]] = false;                                                                                \
            marks[sl] = 0;                                                                                             \
        }                                                                                                              \
    } while (0)
    for (size_t i = 0; i < toks->len; i++) {
        uint64_t h[2];
        tv_murmur3_x64_128(toks->items[i].term, toks->items[i].term_len, 0, h);
        int seen = dup_add(s, (uint8_t)(h[0] & 0xFF));
        if (seen < 0) return TROVE_ENOMEM;
        slot_tok[cursor] = (int)i;
        if (seen >= 1)
            for (int k = 0; k < DUP_DEPTH; k++) marks[k] = TV_MAX(marks[k], seen);
        if (++cursor >= DUP_DEPTH) {
            cursor = 0;
            wrapped = true;
        }
        if (wrapped && slot_tok[cursor] >= 0) EMIT(cursor);
    }
    for (int p = wrapped ? (cursor + 1) % DUP_DEPTH : 0; p != cursor; p = (p + 1) % DUP_DEPTH)
        if (slot_tok[p] >= 0) EMIT(p);
#undef EMIT
    return TROVE_OK;
}
