/*
 * exec.c — statistics (prepare) and per-segment planning of the AST into
 * doc iterators, with Lucene's scoring combinations.
 *
 * prepare walks the AST once per target with the product of boosts from
 * the root (Lucene passes `boost` down through createWeight), sums each
 * term's doc_freq / total_term_freq and each field's doc_count /
 * sum_total_term_freq over the snapshot's segments, and stores a BM25
 * scorer in the leaf. Phrase-prefix expansions are resolved here too
 * (snapshot-wide, first max_expansions terms in segment then term order, as
 * OpenSearch's MultiPhrasePrefixQuery does).
 *
 * plan builds, per segment, a tree of iterators (tv_iter) in the request
 * arena:
 *   term        postings + BM25 (norm byte 1 when the field has no norms,
 *               as Lucene's TermScorer); constant for keyword terms
 *   conjunction leads with the cheapest iterator, advances the others;
 *               score = (float) sum in double of the scoring clauses
 *               (ConjunctionScorer)
 *   disjunction doc = min of the subs, minimum_should_match by counting;
 *               score = (float) double sum (DisjunctionSumScorer /
 *               BooleanScorer / MaxScoreBulkScorer all sum in double)
 *   req/opt     float(req) + float(opt) (ReqOptSumScorer sums in float)
 *   req/excl    must_not
 *   dis_max     (float)(max + sumOthers * tie) in double
 *   phrase      conjunction of the positions' postings, then positions:
 *               exact freq = number of matching start positions; sloppy
 *               freq = sum of 1/(1+matchLength) over the matches found by
 *               Lucene's SloppyPhraseMatcher algorithm (repeated terms in a
 *               sloppy phrase are not given Lucene's special handling)
 *   filters     term sets, multi-term (prefix ...), ranges: bitsets built
 *               once per segment; exists: the field's doc postings
 * Deleted docs are not filtered here: the collector checks live bits once
 * per candidate (cheaper than in every leaf).
 *
 * Top-k pruning (set_min_score, told by the collector once its heap is full
 * and the total is no longer needed): a BM25 term skips whole postings
 * blocks whose bound — the best score of the block's competitive (freq,
 * norm) impacts, computed by the scoring function itself — is <= the worst
 * hit; a sum disjunction runs block-max MaxScore one window at a time
 * (window = up to the first block end among its clauses; clauses whose
 * bounds sum to <= the worst hit are non-essential and only advanced to
 * candidates the essential clauses produce). Every returned doc has all its
 * matching clauses positioned on it, so scores are bit-identical to the
 * exhaustive path; sums of bounds are compared one float ulp up, which
 * covers any difference of summation order. A constant-score root
 * (match_all, a bitset filter, constant_score, exists) simply ends once the
 * worst hit scores as much as it does. Rejected: WAND (pivoting on a
 * sorted list per doc costs more than MaxScore's per-window partition for
 * the few clauses a match query has); pruning inside conjunctions and
 * nested bools (the collector only talks to the root; those keep the
 * exhaustive path).
 *
 * Profiling (profile.c): plan and prepare look each node up in the plan
 * context's profile (one branch per node and segment when there is
 * none), time it, and wrap a profiled node's iterator in a timing one.
 *
 * Rejected: building a bitset for every node (simple, but loses skipping
 * and scores); a heap-based disjunction (kept linear: the typical query has
 * a handful of clauses, and wide unions — prefix, terms — become bitsets).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "query/automaton.h"
#include "query/query.h"

#define NO_MORE TV_NO_MORE_DOCS

static inline bool behind(uint32_t d, uint32_t target) { return d == TV_ITER_UNSET || d < target; }

/* ================================================================ prepare */

typedef struct fstat {
    uint64_t doc_count, sum_ttf, sum_df;
} fstat;

static void field_stats(const tv_snapshot *snap, uint32_t field, fstat *out) {
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < snap->nsegs; i++) {
        tv_field_stats fs;
        if (tv_segment_field_stats(snap->segs[i].seg, field, &fs)) {
            out->doc_count += fs.doc_count;
            out->sum_ttf += fs.sum_total_term_freq;
            out->sum_df += fs.sum_doc_freq;
        }
    }
    /* DOCS-only fields: Lucene reports sumTotalTermFreq == sumDocFreq */
    if (out->sum_ttf < out->sum_df) out->sum_ttf = out->sum_df;
}

static void term_stats(const tv_snapshot *snap, uint32_t field, const char *t, size_t len,
                       uint64_t *df, uint64_t *ttf) {
    *df = *ttf = 0;
    for (uint32_t i = 0; i < snap->nsegs; i++) {
        tv_term_state st;
        if (tv_segment_term(snap->segs[i].seg, field, t, len, &st)) {
            *df += st.doc_freq;
            *ttf += st.total_term_freq ? st.total_term_freq : st.doc_freq;
        }
    }
}

bool tv_query_term_state(const tv_query *q, const tv_snapshot *snap, const tv_segview *sv, tv_term_state *out) {
    if (snap && q->u.term.snap == snap && sv >= snap->segs && sv < snap->segs + snap->nsegs) {
        size_t i = (size_t)(sv - snap->segs);
        if (!q->u.term.found[i]) return false;
        *out = q->u.term.states[i];
        return true;
    }
    return tv_segment_term(sv->seg, q->field_id, q->u.term.term, q->u.term.len, out);
}

static bool has_prefix(const char *t, size_t len, const char *p, size_t plen) {
    return len >= plen && memcmp(t, p, plen) == 0;
}

/* Expands the last position of a phrase_prefix (snapshot-wide). */
static tv_status expand_phrase_prefix(tv_query *q, const tv_snapshot *snap, tv_arena *a) {
    uint32_t n = q->u.phrase.nterms;
    tv_qterm last = q->u.phrase.terms[n - 1];
    uint32_t maxe = q->u.phrase.max_expansions;
    TV_VEC(tv_qterm) ex = {0};
    tv_status st = TROVE_OK;
    for (uint32_t i = 0; i < snap->nsegs && ex.len < maxe; i++) {
        tv_terms_iter *it = tv_terms_iter_new(snap->segs[i].seg, q->field_id, a);
        if (!it) continue;
        tv_terms_iter_seek(it, last.term, last.len);
        const char *t;
        size_t tl;
        tv_term_state ts;
        while (ex.len < maxe && tv_terms_iter_next(it, &t, &tl, &ts)) {
            if (!has_prefix(t, tl, last.term, last.len)) break;
            bool dup = false;
            for (size_t k = 0; k < ex.len; k++)
                if (ex.items[k].len == tl && memcmp(ex.items[k].term, t, tl) == 0) { dup = true; break; }
            if (dup) continue;
            tv_qterm e = {tv_arena_memdup(a, t, tl), (uint32_t)tl, last.pos};
            if ((!e.term && tl) || tv_vec_push(&ex, e)) { st = TROVE_ENOMEM; break; }
        }
        if (st) break;
    }
    if (!st) {
        if (ex.len == 0) {
            q->kind = TV_Q_MATCH_NONE;
        } else if (n == 1) {
            /* one position: Lucene rewrites to a disjunction of the terms */
            tv_query **subs = tv_arena_calloc(a, ex.len, sizeof *subs);
            if (!subs) st = TROVE_ENOMEM;
            for (size_t k = 0; !st && k < ex.len; k++) {
                tv_query *t = tv_arena_calloc(a, 1, sizeof *t);
                if (!t) { st = TROVE_ENOMEM; break; }
                t->kind = TV_Q_TERM;
                t->boost = 1.0f;
                t->field = q->field;
                t->field_id = q->field_id;
                t->u.term.term = ex.items[k].term;
                t->u.term.len = ex.items[k].len;
                subs[k] = t;
            }
            if (!st) {
                q->kind = TV_Q_BOOL;
                memset(&q->u, 0, sizeof q->u);
                q->u.boolq.should = subs;
                q->u.boolq.nshould = (uint32_t)ex.len;
            }
        } else {
            tv_qterm *ts = tv_arena_alloc(a, (n - 1 + ex.len) * sizeof *ts);
            if (!ts) st = TROVE_ENOMEM;
            else {
                memcpy(ts, q->u.phrase.terms, (n - 1) * sizeof *ts);
                memcpy(ts + n - 1, ex.items, ex.len * sizeof *ts);
                q->u.phrase.terms = ts;
                q->u.phrase.nterms = (uint32_t)(n - 1 + ex.len);
                q->kind = TV_Q_PHRASE;
            }
        }
    }
    tv_vec_fini(&ex);
    return st;
}

/* The profile whose create_weight timings prepare fills (tv_query_prepare_profiled). */
static _Thread_local tv_qprof *g_prep_prof;

static tv_status prepare_node(tv_query *q, const tv_snapshot *snap, float boost, tv_arena *a);

static tv_status prepare(tv_query *q, const tv_snapshot *snap, float boost, tv_arena *a) {
    tv_qprof_node *n = TV_UNLIKELY(g_prep_prof != NULL) ? tv_qprof_find(g_prep_prof, q) : NULL;
    if (!n) return prepare_node(q, snap, boost, a);
    uint64_t t0 = tv_mono_ns();
    tv_status st = prepare_node(q, snap, boost, a);
    uint64_t dt = tv_mono_ns() - t0;
    n->ns[TV_QT_CREATE_WEIGHT] += dt;
    n->count[TV_QT_CREATE_WEIGHT]++;
    if (n->inner) {
        n->inner->ns[TV_QT_CREATE_WEIGHT] += dt;
        n->inner->count[TV_QT_CREATE_WEIGHT]++;
    }
    return st;
}

static tv_status prepare_node(tv_query *q, const tv_snapshot *snap, float boost, tv_arena *a) {
    boost = boost * q->boost;
    q->score_boost = boost;
    tv_status st = TROVE_OK;
    switch ((tv_qkind)q->kind) {
    case TV_Q_TERM: {
        q->u.term.snap = NULL;
        if (q->u.term.constant) break;
        uint64_t df = 0;
        q->u.term.states = tv_arena_alloc(a, (snap->nsegs + 1) * sizeof *q->u.term.states);
        q->u.term.found = tv_arena_alloc(a, snap->nsegs + 1);
        if (!q->u.term.states || !q->u.term.found) return TROVE_ENOMEM;
        for (uint32_t i = 0; i < snap->nsegs; i++) {
            q->u.term.found[i] = tv_segment_term(snap->segs[i].seg, q->field_id, q->u.term.term, q->u.term.len,
                                                 &q->u.term.states[i]);
            if (q->u.term.found[i]) df += q->u.term.states[i].doc_freq;
        }
        q->u.term.snap = snap;
        q->u.term.sim = NULL;
        if (df == 0) break;
        fstat fs;
        field_stats(snap, q->field_id, &fs);
        tv_bm25 *sim = tv_arena_alloc(a, sizeof *sim);
        if (!sim) return TROVE_ENOMEM;
        tv_bm25_init(sim, boost, tv_bm25_idf(df, fs.doc_count), fs.sum_ttf, fs.doc_count);
        q->u.term.sim = sim;
        break;
    }
    case TV_Q_PHRASE_PREFIX:
        st = expand_phrase_prefix(q, snap, a);
        if (st) return st;
        if (q->kind != TV_Q_PHRASE) {
            q->boost = 1.0f; /* already applied above */
            st = prepare(q, snap, boost, a);
            q->score_boost = boost;
            return st;
        }
        /* fall through */
    case TV_Q_PHRASE: {
        double idf = 0;
        q->u.phrase.sim = NULL;
        bool missing = false;
        for (uint32_t i = 0; i < q->u.phrase.nterms; i++) {
            uint64_t df, ttf;
            const tv_qterm *t = &q->u.phrase.terms[i];
            term_stats(snap, q->field_id, t->term, t->len, &df, &ttf);
            if (df == 0) {
                /* a position whose every alternative is absent: no match */
                bool alt = false;
                for (uint32_t j = 0; j < q->u.phrase.nterms; j++)
                    if (j != i && q->u.phrase.terms[j].pos == t->pos) alt = true;
                if (!alt) missing = true;
                continue;
            }
            fstat fs0;
            field_stats(snap, q->field_id, &fs0);
            idf += tv_bm25_idf(df, fs0.doc_count);
        }
        if (missing) break;
        fstat fs;
        field_stats(snap, q->field_id, &fs);
        tv_bm25 *sim = tv_arena_alloc(a, sizeof *sim);
        if (!sim) return TROVE_ENOMEM;
        tv_bm25_init(sim, boost, (float)idf, fs.sum_ttf, fs.doc_count);
        q->u.phrase.sim = sim;
        break;
    }
    case TV_Q_BOOL:
        for (uint32_t i = 0; i < q->u.boolq.nmust && !st; i++) st = prepare(q->u.boolq.must[i], snap, boost, a);
        for (uint32_t i = 0; i < q->u.boolq.nshould && !st; i++) st = prepare(q->u.boolq.should[i], snap, boost, a);
        for (uint32_t i = 0; i < q->u.boolq.nmust_not && !st; i++) st = prepare(q->u.boolq.must_not[i], snap, 0.0f, a);
        for (uint32_t i = 0; i < q->u.boolq.nfilter && !st; i++) st = prepare(q->u.boolq.filter[i], snap, 0.0f, a);
        break;
    case TV_Q_DISMAX:
        for (uint32_t i = 0; i < q->u.dismax.nsubs && !st; i++) st = prepare(q->u.dismax.subs[i], snap, boost, a);
        break;
    case TV_Q_CONST:
        st = prepare(q->u.cnst.inner, snap, 0.0f, a);
        break;
    case TV_Q_BOOSTING:
        st = prepare(q->u.boosting.positive, snap, 1.0f, a);
        if (!st) st = prepare(q->u.boosting.negative, snap, 0.0f, a);
        break;
    case TV_Q_EXT:
        if (q->u.ext.prepare) st = q->u.ext.prepare(q, snap, boost, a);
        break;
    default:
        break;
    }
    return st;
}

tv_status tv_query_prepare(tv_query *q, const tv_snapshot *snap, tv_arena *arena) {
    return prepare(q, snap, 1.0f, arena);
}

tv_status tv_query_prepare_profiled(tv_query *q, const tv_snapshot *snap, tv_arena *arena, tv_qprof *prof) {
    g_prep_prof = prof;
    tv_status st = prepare(q, snap, 1.0f, arena);
    g_prep_prof = NULL;
    return st;
}

/* ============================================================== iterators */

static tv_iter *iter_init(tv_iter *it, const tv_iter_vt *vt, uint64_t cost, float max) {
    it->vt = vt;
    it->doc = TV_ITER_UNSET;
    it->cost = cost;
    it->max_score = max;
    return it;
}

/* ---------------------------------------------------------------- all */

typedef struct all_it {
    tv_iter it;
    uint32_t max_doc;
    float score;
} all_it;

static uint32_t all_advance(tv_iter *it, uint32_t t) {
    all_it *a = (all_it *)it;
    return it->doc = t < a->max_doc ? t : NO_MORE;
}
static uint32_t all_next(tv_iter *it) { return all_advance(it, it->doc == TV_ITER_UNSET ? 0 : it->doc + 1); }
static float all_score(tv_iter *it) { return ((all_it *)it)->score; }
/* Constant-score iterators end once the worst hit scores as much as they
 * do: every later doc ties it and loses. */
static void all_set_min(tv_iter *it, float min) {
    if (min >= ((all_it *)it)->score) ((all_it *)it)->max_doc = 0;
}
static const tv_iter_vt all_vt = {all_next, all_advance, all_score, NULL, NULL, all_set_min};

tv_iter *tv_iter_all(tv_arena *a, uint32_t max_doc, float score) {
    all_it *it = tv_arena_alloc(a, sizeof *it);
    if (!it) return NULL;
    it->max_doc = max_doc;
    it->score = score;
    return iter_init(&it->it, &all_vt, max_doc, score);
}

/* -------------------------------------------------------------- bitset */

typedef struct bits_it {
    tv_iter it;
    const uint64_t *words;
    uint32_t max_doc;
    float score;
} bits_it;

static uint32_t bits_advance(tv_iter *it, uint32_t t) {
    bits_it *b = (bits_it *)it;
    if (t >= b->max_doc) return it->doc = NO_MORE;
    uint32_t w = t >> 6;
    uint64_t word = b->words[w] & (~0ull << (t & 63));
    uint32_t nw = (b->max_doc + 63) >> 6;
    while (!word) {
        if (++w >= nw) return it->doc = NO_MORE;
        word = b->words[w];
    }
    uint32_t d = (w << 6) + (uint32_t)__builtin_ctzll(word);
    return it->doc = d < b->max_doc ? d : NO_MORE;
}
static uint32_t bits_next(tv_iter *it) { return bits_advance(it, it->doc == TV_ITER_UNSET ? 0 : it->doc + 1); }
static float bits_score(tv_iter *it) { return ((bits_it *)it)->score; }
static void bits_set_min(tv_iter *it, float min) {
    if (min >= ((bits_it *)it)->score) ((bits_it *)it)->max_doc = 0;
}
static bool bits_count(tv_iter *it, const tv_count_ctx *cx, uint64_t *out) {
    (void)cx;
    *out = ((bits_it *)it)->max_doc ? it->cost : 0; /* cost is the popcount */
    return true;
}
static void bits_or(tv_iter *it, uint64_t *words, uint32_t nbits) {
    bits_it *b = (bits_it *)it;
    uint32_t n = b->max_doc < nbits ? b->max_doc : nbits;
    for (uint32_t w = 0; w < n / 64; w++) words[w] |= b->words[w];
    if (n % 64) words[n / 64] |= b->words[n / 64] & ((1ull << (n % 64)) - 1);
    it->doc = NO_MORE;
}
static const tv_iter_vt bits_vt = {bits_next, bits_advance, bits_score, NULL, NULL, bits_set_min, bits_count, bits_or};

tv_iter *tv_iter_bitset(tv_arena *a, const tv_bitset *bs, uint32_t max_doc, float score) {
    bits_it *it = tv_arena_alloc(a, sizeof *it);
    if (!it) return NULL;
    it->words = bs->words;
    it->max_doc = max_doc;
    it->score = score;
    size_t cnt = 0;
    for (uint32_t i = 0; i < (max_doc + 63) / 64; i++) cnt += (size_t)__builtin_popcountll(bs->words[i]);
    return iter_init(&it->it, &bits_vt, cnt, score);
}

static bool arena_bitset(tv_arena *a, uint32_t max_doc, tv_bitset *out) {
    size_t nw = ((size_t)max_doc + 63) / 64;
    out->words = tv_arena_calloc(a, nw ? nw : 1, sizeof(uint64_t));
    out->nbits = max_doc;
    return out->words != NULL;
}

/* ---------------------------------------------------------------- term */

typedef struct term_it {
    tv_iter it;
    tv_postings *p;
    const tv_bm25 *sim; /* NULL: constant */
    float cscore;
    const tv_segment *seg;
    uint32_t field;
    bool norms;
    const uint8_t *norm_bytes; /* the segment's norms of the field (NULL: none) */
    uint32_t max_doc;          /* their count */
    /* top-k pruning (set_min_score): skip blocks whose bound is <= min */
    bool prune;
    float min;
    uint32_t blk_lo;   /* the block bound blk_max holds for [blk_lo, blk_upto] */
    uint32_t blk_upto;
    float blk_max;
} term_it;

static float impacts_max(const term_it *t, const tv_impact *imp, size_t n) {
    float mx = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t norm = t->norms ? imp[i].norm : 1;
        float s = tv_bm25_score(t->sim, (float)imp[i].freq, norm);
        if (s > mx) mx = s;
    }
    return n ? mx : t->sim->weight;
}

/* The first doc >= d (d already a posting of the term) in a block whose
 * bound beats min. The bound of a block is the best BM25 of its
 * competitive (freq, norm) pairs, computed by the same function as the
 * score, so a skipped doc's score is <= that bound <= min. */
static void term_load_block(term_it *t, uint32_t target) {
    if (t->blk_upto != TV_ITER_UNSET && target >= t->blk_lo && target <= t->blk_upto) return;
    const tv_impact *imp;
    size_t n;
    t->blk_upto = tv_postings_impacts(t->p, target, &imp, &n);
    if (t->blk_upto < target) t->blk_upto = NO_MORE; /* defensive: bound the rest */
    t->blk_lo = target;
    t->blk_max = impacts_max(t, imp, n);
}

static uint32_t term_skip_blocks(term_it *t, uint32_t d) {
    while (d != NO_MORE) {
        term_load_block(t, d);
        if (t->blk_max > t->min) break;
        if (t->blk_upto == NO_MORE) return NO_MORE;
        d = tv_postings_advance(t->p, t->blk_upto + 1);
    }
    return d;
}

static uint32_t term_next(tv_iter *it) {
    term_it *t = (term_it *)it;
    uint32_t d = tv_postings_next(t->p);
    if (t->prune) d = term_skip_blocks(t, d);
    return it->doc = d;
}
static void term_set_min(tv_iter *it, float min) {
    term_it *t = (term_it *)it;
    if (!t->sim || t->min >= min) return;
    t->prune = true;
    t->min = min;
}
static uint32_t term_advance(tv_iter *it, uint32_t t) {
    return it->doc = tv_postings_advance(((term_it *)it)->p, t);
}
static float term_score(tv_iter *it) {
    term_it *t = (term_it *)it;
    if (!t->sim) return t->cscore;
    uint32_t freq = tv_postings_freq(t->p);
    /* the norms array read in place: a call per scored doc was a tenth of
     * a term query's instructions */
    uint8_t norm = !t->norms ? 1 : t->norm_bytes && it->doc < t->max_doc ? t->norm_bytes[it->doc] : 0;
    return tv_bm25_score(t->sim, (float)freq, norm);
}
static uint32_t term_shallow(tv_iter *it, uint32_t target) {
    term_it *t = (term_it *)it;
    if (!t->sim) return NO_MORE;
    term_load_block(t, target);
    return t->blk_upto;
}
/* The bound of the block term_shallow last moved to (term_shallow(target)
 * first; upto is that call's result). */
static float term_block_max(tv_iter *it, uint32_t upto) {
    term_it *t = (term_it *)it;
    (void)upto;
    if (!t->sim) return t->cscore;
    return t->blk_max;
}
static void term_or(tv_iter *it, uint64_t *words, uint32_t nbits) {
    tv_postings_or_bits(((term_it *)it)->p, words, nbits);
    it->doc = NO_MORE;
}
static const tv_iter_vt term_vt = {term_next,      term_advance, term_score, term_shallow,
                                   term_block_max, term_set_min, NULL,       term_or};
/* constant-score terms and exists: no block bounds; the whole iterator
 * ends once the worst hit scores as much (prune then means "exhausted") */
static uint32_t cterm_next(tv_iter *it) {
    term_it *t = (term_it *)it;
    return it->doc = t->prune ? NO_MORE : tv_postings_next(t->p);
}
static uint32_t cterm_advance(tv_iter *it, uint32_t target) {
    term_it *t = (term_it *)it;
    return it->doc = t->prune ? NO_MORE : tv_postings_advance(t->p, target);
}
static void cterm_set_min(tv_iter *it, float min) {
    term_it *t = (term_it *)it;
    if (!t->sim && min >= t->cscore) t->prune = true;
}
static const tv_iter_vt cterm_vt = {cterm_next, cterm_advance, term_score, NULL, NULL, cterm_set_min, NULL, term_or};

/* --------------------------------------------------------- conjunction */

typedef struct conj_it {
    tv_iter it;
    tv_iter **subs;     /* sorted by cost; subs[0] leads */
    tv_iter **scoring;  /* in clause order */
    uint32_t n, nscoring;
} conj_it;

static uint32_t conj_align(conj_it *c, uint32_t doc) {
again:
    if (doc == NO_MORE) return c->it.doc = NO_MORE;
    for (uint32_t i = 1; i < c->n; i++) {
        tv_iter *s = c->subs[i];
        uint32_t d = s->doc;
        if (behind(d, doc)) d = tv_iter_advance(s, doc);
        if (d != doc) {
            doc = tv_iter_advance(c->subs[0], d);
            goto again;
        }
    }
    return c->it.doc = doc;
}
static uint32_t conj_next(tv_iter *it) {
    conj_it *c = (conj_it *)it;
    return conj_align(c, tv_iter_next(c->subs[0]));
}
static uint32_t conj_advance(tv_iter *it, uint32_t t) {
    conj_it *c = (conj_it *)it;
    return conj_align(c, tv_iter_advance(c->subs[0], t));
}
static float conj_score(tv_iter *it) {
    conj_it *c = (conj_it *)it;
    double s = 0;
    for (uint32_t i = 0; i < c->nscoring; i++) s += tv_iter_score(c->scoring[i]);
    return (float)s;
}
/* Counting by bitsets (tv_iter_count): every doc of every list is
 * decoded a block at a time into a bitset (a few instructions a doc),
 * then words are combined and counted. A conjunction's leapfrog instead
 * advances the others once per doc of the rarest list (tens of
 * instructions each) but skips blocks, so bitsets win only when the lists
 * are of similar lengths: the total within BITS_DENSITY times the rarest.
 * A disjunction's settle loop visits every doc of every list anyway. */
#define BITS_DENSITY 16

static bool all_or_bits(tv_iter **subs, uint32_t n, uint64_t *cost_sum) {
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!subs[i]->vt->or_bits || subs[i]->doc != TV_ITER_UNSET) return false;
        sum += subs[i]->cost;
    }
    *cost_sum = sum;
    return true;
}

static uint64_t popcount_words(const uint64_t *w, size_t n) {
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++) c += (uint64_t)__builtin_popcountll(w[i]);
    return c;
}

static bool conj_count(tv_iter *it, const tv_count_ctx *cx, uint64_t *out) {
    conj_it *c = (conj_it *)it;
    uint64_t sum;
    if (!all_or_bits(c->subs, c->n, &sum) || sum > BITS_DENSITY * c->subs[0]->cost) return false;
    size_t nw = ((size_t)cx->max_doc + 63) / 64;
    uint64_t *acc = tv_arena_calloc(cx->arena, nw + 1, sizeof *acc);
    uint64_t *tmp = tv_arena_alloc(cx->arena, (nw + 1) * sizeof *tmp);
    if (!acc || !tmp) return false;
    c->subs[0]->vt->or_bits(c->subs[0], acc, cx->max_doc);
    for (uint32_t i = 1; i < c->n; i++) {
        memset(tmp, 0, nw * sizeof *tmp);
        c->subs[i]->vt->or_bits(c->subs[i], tmp, cx->max_doc);
        for (size_t w = 0; w < nw; w++) acc[w] &= tmp[w];
    }
    *out = popcount_words(acc, nw);
    it->doc = NO_MORE;
    return true;
}
static const tv_iter_vt conj_vt = {conj_next, conj_advance, conj_score, NULL, NULL, NULL, conj_count, NULL};

static int cost_cmp(const void *a, const void *b) {
    const tv_iter *x = *(tv_iter *const *)a, *y = *(tv_iter *const *)b;
    return x->cost < y->cost ? -1 : x->cost > y->cost;
}

/* subs: all required iterators; scoring: those whose scores are summed. */
static tv_iter *make_conj(tv_arena *a, tv_iter **subs, uint32_t n, tv_iter **scoring, uint32_t nscoring) {
    conj_it *c = tv_arena_alloc(a, sizeof *c);
    tv_iter **s = tv_arena_alloc(a, n * sizeof *s);
    tv_iter **sc = tv_arena_alloc(a, (nscoring ? nscoring : 1) * sizeof *sc);
    if (!c || !s || !sc) return NULL;
    memcpy(s, subs, n * sizeof *s);
    if (nscoring) memcpy(sc, scoring, nscoring * sizeof *sc);
    qsort(s, n, sizeof *s, cost_cmp);
    c->subs = s;
    c->n = n;
    c->scoring = sc;
    c->nscoring = nscoring;
    float mx = 0;
    for (uint32_t i = 0; i < nscoring; i++) mx += sc[i]->max_score;
    return iter_init(&c->it, &conj_vt, s[0]->cost, mx);
}

/* --------------------------------------------------------- disjunction */

typedef struct disj_it {
    tv_iter it;
    tv_iter **subs;
    uint32_t n;
    uint32_t msm;    /* >= 1 */
    bool dismax;
    float tie;
    /* top-k pruning (block-max MaxScore), a sum disjunction of subs that
     * all have block bounds */
    bool prune;
    float min;
    float *bmax;     /* per sub: bound over the current window */
    uint32_t *order; /* subs by bmax ascending */
    uint8_t *ess;    /* per sub: essential in the current window */
    uint32_t cached_doc; /* disj_score of this doc is cached_score */
    float cached_score;
    /* the window the bounds above describe: [.., win_upto]; k subs (in
     * order) are non-essential under win_min, their bounds summing to
     * win_noness */
    bool win_ok, part_ok;
    uint32_t win_upto, win_k;
    float win_min;
    double win_noness;
} disj_it;

static uint32_t disj_settle(disj_it *d) {
    for (;;) {
        uint32_t mn = NO_MORE, cnt = 0;
        for (uint32_t i = 0; i < d->n; i++) {
            uint32_t x = d->subs[i]->doc;
            if (x < mn) { mn = x; cnt = 1; }
            else if (x == mn) cnt++;
        }
        if (mn == NO_MORE || cnt >= d->msm) return d->it.doc = mn;
        /* not enough clauses here: move past mn */
        for (uint32_t i = 0; i < d->n; i++)
            if (d->subs[i]->doc == mn) tv_iter_next(d->subs[i]);
    }
}
/* A float bound of a double sum that is safe against the summation order:
 * the score sums the same kind of terms in another order, which can
 * differ from this sum by a few double ulps, far below one float ulp. */
static inline float safe_bound(double sum) {
    /* nextafterf(x, INFINITY) without the libm call (7% of an OR query) */
    float f = (float)sum;
    if (f != f || f == INFINITY) return f;
    if (f == 0) return FLT_TRUE_MIN;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u = f > 0 ? u + 1 : u - 1;
    memcpy(&f, &u, sizeof f);
    return f;
}

/*
 * Block-max MaxScore (Lucene's MaxScoreBulkScorer idea, one window at a
 * time). From target, the window ends at the first block end among the
 * subs; each sub's bound over the window is its block's bound. Subs sorted
 * by bound: the longest prefix whose bounds sum to <= min is non-essential
 * (a doc they alone match cannot compete). Candidates come from the
 * essential subs only; a candidate whose essential scores plus the
 * non-essential bounds cannot beat min is skipped; otherwise the lagging
 * subs are advanced to it, so score() sees every matching sub exactly as
 * without pruning. A window where everything is non-essential is skipped
 * whole. Subs may lag behind the current doc; they are advanced lazily.
 */
static uint32_t disj_next_pruned(disj_it *d) {
    uint32_t target = d->it.doc == TV_ITER_UNSET ? 0 : d->it.doc + 1;
    uint32_t n = d->n;
    for (;;) {
        if (target == NO_MORE || d->it.doc == NO_MORE) return d->it.doc = NO_MORE;
        if (!d->win_ok || target > d->win_upto) {
            /* a new window: bounds and their order (kept while the
             * candidates stay inside it: a bound over the window bounds
             * every doc in it) */
            uint32_t upto = NO_MORE;
            bool any = false;
            for (uint32_t i = 0; i < n; i++) {
                tv_iter *s = d->subs[i];
                if (s->doc == NO_MORE) { d->bmax[i] = 0; continue; }
                any = true;
                uint32_t e = s->vt->shallow(s, target);
                d->bmax[i] = s->vt->block_max(s, e);
                if (e < upto) upto = e;
            }
            if (!any) return d->it.doc = NO_MORE;
            /* insertion sort of sub indices by bound (n is small) */
            for (uint32_t i = 0; i < n; i++) {
                uint32_t j = i, x = i;
                while (j > 0 && d->bmax[d->order[j - 1]] > d->bmax[x]) { d->order[j] = d->order[j - 1]; j--; }
                d->order[j] = x;
            }
            d->win_ok = true;
            d->win_upto = upto;
            d->part_ok = false;
        }
        uint32_t upto = d->win_upto;
        if (!d->part_ok || d->win_min != d->min) {
            /* the partition under the current min */
            double noness = 0;
            uint32_t k = 0;
            while (k < n && safe_bound(noness + d->bmax[d->order[k]]) <= d->min) noness += d->bmax[d->order[k++]];
            d->win_k = k;
            d->win_noness = noness;
            d->win_min = d->min;
            d->part_ok = true;
        }
        double noness = d->win_noness;
        uint32_t k = d->win_k;
        if (k == n) {
            if (upto == NO_MORE) return d->it.doc = NO_MORE;
            target = upto + 1;
            continue;
        }
        uint32_t cand = NO_MORE;
        for (uint32_t j = 0; j < n; j++) d->ess[d->order[j]] = j >= k;
        for (uint32_t j = k; j < n; j++) {
            tv_iter *s = d->subs[d->order[j]];
            if (behind(s->doc, target)) tv_iter_advance(s, target);
            if (s->doc < cand) cand = s->doc;
        }
        if (cand > upto || cand == NO_MORE) {
            /* nothing essential left in the window (to the end, when the
             * window is the rest of the segment: what remains cannot
             * compete) */
            if (upto == NO_MORE) return d->it.doc = NO_MORE;
            target = upto + 1;
            continue;
        }
        /* the essential subs' scores in sub order: with no non-essential
         * sub this is exactly disj_score's sum, kept for it */
        double esum = 0;
        for (uint32_t i = 0; i < n; i++) {
            tv_iter *s = d->subs[i];
            if (d->ess[i] && s->doc == cand) esum += tv_iter_score(s);
        }
        if (safe_bound(esum + noness) <= d->min) {
            target = cand + 1;
            continue;
        }
        if (k == 0) {
            d->cached_doc = cand;
            d->cached_score = (float)esum;
        }
        for (uint32_t j = 0; j < k; j++) {
            tv_iter *s = d->subs[d->order[j]];
            if (behind(s->doc, cand)) tv_iter_advance(s, cand);
        }
        return d->it.doc = cand;
    }
}

static void disj_set_min(tv_iter *it, float min) {
    disj_it *d = (disj_it *)it;
    if (d->dismax || d->msm > 1 || !d->bmax) return;
    for (uint32_t i = 0; i < d->n; i++)
        if (!d->subs[i]->vt->shallow || !d->subs[i]->vt->block_max) return;
    if (d->prune && d->min >= min) return;
    d->prune = true;
    d->min = min;
}

static uint32_t disj_next(tv_iter *it) {
    disj_it *d = (disj_it *)it;
    if (d->prune) return disj_next_pruned(d);
    uint32_t cur = it->doc;
    for (uint32_t i = 0; i < d->n; i++) {
        tv_iter *s = d->subs[i];
        if (s->doc == TV_ITER_UNSET || s->doc == cur) tv_iter_next(s);
    }
    return disj_settle(d);
}
static uint32_t disj_advance(tv_iter *it, uint32_t t) {
    disj_it *d = (disj_it *)it;
    for (uint32_t i = 0; i < d->n; i++) {
        tv_iter *s = d->subs[i];
        if (behind(s->doc, t)) tv_iter_advance(s, t);
    }
    return disj_settle(d);
}
static float disj_score(tv_iter *it) {
    disj_it *d = (disj_it *)it;
    uint32_t doc = it->doc;
    if (d->prune && d->cached_doc == doc) return d->cached_score;
    if (!d->dismax) {
        double s = 0;
        for (uint32_t i = 0; i < d->n; i++)
            if (d->subs[i]->doc == doc) s += tv_iter_score(d->subs[i]);
        return (float)s;
    }
    float mx = 0;
    double other = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        if (d->subs[i]->doc != doc) continue;
        float s = tv_iter_score(d->subs[i]);
        if (s >= mx) { other += mx; mx = s; }
        else other += s;
    }
    return (float)(mx + other * (double)d->tie);
}
static bool disj_count(tv_iter *it, const tv_count_ctx *cx, uint64_t *out) {
    disj_it *d = (disj_it *)it;
    uint64_t sum;
    if (d->msm != 1 || !all_or_bits(d->subs, d->n, &sum)) return false;
    size_t nw = ((size_t)cx->max_doc + 63) / 64;
    uint64_t *acc = tv_arena_calloc(cx->arena, nw + 1, sizeof *acc);
    if (!acc) return false;
    for (uint32_t i = 0; i < d->n; i++) d->subs[i]->vt->or_bits(d->subs[i], acc, cx->max_doc);
    *out = popcount_words(acc, nw);
    it->doc = NO_MORE;
    return true;
}
static const tv_iter_vt disj_vt = {disj_next, disj_advance, disj_score, NULL, NULL, disj_set_min, disj_count, NULL};

static tv_iter *make_disj(tv_arena *a, tv_iter **subs, uint32_t n, uint32_t msm, bool dismax, float tie) {
    disj_it *d = tv_arena_alloc(a, sizeof *d);
    tv_iter **s = tv_arena_alloc(a, n * sizeof *s);
    if (!d || !s) return NULL;
    memcpy(s, subs, n * sizeof *s);
    d->subs = s;
    d->n = n;
    d->msm = msm ? msm : 1;
    d->dismax = dismax;
    d->tie = tie;
    d->prune = false;
    d->min = -INFINITY;
    d->bmax = tv_arena_alloc(a, n * sizeof *d->bmax);
    d->order = tv_arena_alloc(a, n * sizeof *d->order);
    d->ess = tv_arena_alloc(a, n * sizeof *d->ess);
    d->cached_doc = TV_ITER_UNSET;
    d->win_ok = d->part_ok = false;
    if (!d->bmax || !d->order || !d->ess) return NULL;
    uint64_t cost = 0;
    float mx = 0, mxd = 0;
    for (uint32_t i = 0; i < n; i++) {
        cost += s[i]->cost;
        mx += s[i]->max_score;
        if (s[i]->max_score > mxd) mxd = s[i]->max_score;
    }
    return iter_init(&d->it, &disj_vt, cost, dismax ? mxd + tie * mx : mx);
}

/* ----------------------------------------------------- req/opt, req/excl */

typedef struct pair_it {
    tv_iter it;
    tv_iter *req, *other;
    double factor;   /* boosting: negative_boost */
    float boost;     /* boosting: outer boost */
} pair_it;

static uint32_t reqopt_next(tv_iter *it) { return it->doc = tv_iter_next(((pair_it *)it)->req); }
static uint32_t reqopt_advance(tv_iter *it, uint32_t t) { return it->doc = tv_iter_advance(((pair_it *)it)->req, t); }
static float reqopt_score(tv_iter *it) {
    pair_it *p = (pair_it *)it;
    float s = tv_iter_score(p->req);
    uint32_t doc = it->doc;
    if (behind(p->other->doc, doc)) tv_iter_advance(p->other, doc);
    if (p->other->doc == doc) s += tv_iter_score(p->other);
    return s;
}
static const tv_iter_vt reqopt_vt = {reqopt_next, reqopt_advance, reqopt_score, NULL, NULL};

static uint32_t excl_skip(pair_it *p, uint32_t doc) {
    while (doc != NO_MORE) {
        if (behind(p->other->doc, doc)) tv_iter_advance(p->other, doc);
        if (p->other->doc != doc) break;
        doc = tv_iter_next(p->req);
    }
    return p->it.doc = doc;
}
static uint32_t excl_next(tv_iter *it) { pair_it *p = (pair_it *)it; return excl_skip(p, tv_iter_next(p->req)); }
static uint32_t excl_advance(tv_iter *it, uint32_t t) { pair_it *p = (pair_it *)it; return excl_skip(p, tv_iter_advance(p->req, t)); }
static float excl_score(tv_iter *it) { return tv_iter_score(((pair_it *)it)->req); }
static const tv_iter_vt excl_vt = {excl_next, excl_advance, excl_score, NULL, NULL};

static float boosting_score(tv_iter *it) {
    pair_it *p = (pair_it *)it;
    double s = tv_iter_score(p->req);
    uint32_t doc = it->doc;
    if (p->other) {
        if (behind(p->other->doc, doc)) tv_iter_advance(p->other, doc);
        if (p->other->doc == doc) s *= p->factor;
    }
    double r = s * (double)p->boost;
    return (float)(r > 0 ? r : 0);
}
static const tv_iter_vt boosting_vt = {reqopt_next, reqopt_advance, boosting_score, NULL, NULL};

static tv_iter *make_pair(tv_arena *a, const tv_iter_vt *vt, tv_iter *req, tv_iter *other, float max) {
    pair_it *p = tv_arena_calloc(a, 1, sizeof *p);
    if (!p) return NULL;
    p->req = req;
    p->other = other;
    return iter_init(&p->it, vt, req->cost, max);
}

/* ----------------------------------------------------- doc-values scan */

typedef struct dv_scan {
    tv_iter it;
    tv_dv_test test;
    const void *state;
    tv_dv_reader rd;
    uint32_t max_doc;
    float base, score;
    int64_t *vals;
    uint32_t cap;
    tv_arena *arena;
} dv_scan;

static uint32_t scan_advance(tv_iter *it, uint32_t t) {
    dv_scan *x = (dv_scan *)it;
    for (uint32_t d = t; d < x->max_doc; d++) {
        uint32_t n = tv_dv_read_numeric(&x->rd, d, x->vals, x->cap);
        if (!n) continue;
        if (n > x->cap) { /* more values than ever seen: grow, read again */
            int64_t *nv = tv_arena_alloc(x->arena, (size_t)n * sizeof *nv);
            if (nv) {
                x->vals = nv;
                x->cap = n;
            }
            n = tv_dv_read_numeric(&x->rd, d, x->vals, x->cap);
            if (n > x->cap) n = x->cap;
        }
        x->score = x->base;
        if (x->test(x->state, x->vals, n, &x->score)) return it->doc = d;
    }
    return it->doc = TV_NO_MORE_DOCS;
}

static uint32_t scan_next(tv_iter *it) { return scan_advance(it, it->doc == TV_ITER_UNSET ? 0 : it->doc + 1); }
static float scan_score(tv_iter *it) { return ((dv_scan *)it)->score; }
static const tv_iter_vt scan_vt = {.next = scan_next, .advance = scan_advance, .score = scan_score};

tv_status tv_iter_dv_scan(const tv_segview *sv, uint32_t field_id, tv_dv_test test, const void *state, float score,
                          float max_score, tv_arena *arena, tv_iter **out) {
    dv_scan *x = tv_arena_calloc(arena, 1, sizeof *x);
    if (!x) return TROVE_ENOMEM;
    x->test = test;
    x->state = state;
    x->max_doc = sv->max_doc;
    x->arena = arena;
    x->cap = 16;
    x->vals = tv_arena_alloc(arena, x->cap * sizeof *x->vals);
    if (!x->vals) return TROVE_ENOMEM;
    x->base = x->score = score;
    tv_segment_dv_reader(sv->seg, field_id, &x->rd);
    x->it.vt = &scan_vt;
    x->it.doc = TV_ITER_UNSET;
    x->it.cost = sv->max_doc;
    x->it.max_score = max_score;
    *out = &x->it;
    return TROVE_OK;
}

/* ------------------------------------------------------ constant wrapper */

typedef struct const_it {
    tv_iter it;
    tv_iter *in;
    float score;
    bool done; /* set_min_score reached the constant */
} const_it;
static uint32_t const_next(tv_iter *it) {
    const_it *c = (const_it *)it;
    return it->doc = c->done ? NO_MORE : tv_iter_next(c->in);
}
static uint32_t const_advance(tv_iter *it, uint32_t t) {
    const_it *c = (const_it *)it;
    return it->doc = c->done ? NO_MORE : tv_iter_advance(c->in, t);
}
static float const_score(tv_iter *it) { return ((const_it *)it)->score; }
static void const_set_min(tv_iter *it, float min) {
    if (min >= ((const_it *)it)->score) ((const_it *)it)->done = true;
}
static bool const_count(tv_iter *it, const tv_count_ctx *cx, uint64_t *out) {
    const_it *c = (const_it *)it;
    if (c->done) {
        *out = 0;
        return true;
    }
    return tv_iter_count(c->in, cx, out);
}
static void const_or(tv_iter *it, uint64_t *words, uint32_t nbits) {
    const_it *c = (const_it *)it;
    if (!c->done) c->in->vt->or_bits(c->in, words, nbits);
    it->doc = NO_MORE;
}
/* the hooks the inner iterator has, and only those */
static const tv_iter_vt const_vts[4] = {
    {const_next, const_advance, const_score, NULL, NULL, const_set_min, NULL, NULL},
    {const_next, const_advance, const_score, NULL, NULL, const_set_min, const_count, NULL},
    {const_next, const_advance, const_score, NULL, NULL, const_set_min, NULL, const_or},
    {const_next, const_advance, const_score, NULL, NULL, const_set_min, const_count, const_or},
};

static tv_iter *make_const(tv_arena *a, tv_iter *in, float score) {
    const_it *c = tv_arena_alloc(a, sizeof *c);
    if (!c) return NULL;
    c->in = in;
    c->score = score;
    c->done = false;
    const tv_iter_vt *vt = &const_vts[(in->vt->count ? 1 : 0) | (in->vt->or_bits ? 2 : 0)];
    return iter_init(&c->it, vt, in->cost, score);
}

/* --------------------------------------------------------------- phrase */

typedef struct ppos {
    tv_postings **alts; /* postings of the alternatives at this position */
    uint32_t nalts;
    uint32_t offset;    /* position in the phrase */
    uint32_t doc;       /* min doc over alts */
    uint32_t *pos;      /* positions in the current doc (scratch) */
    uint32_t npos, cap;
    uint64_t cost;      /* doc_freq summed over alts */
} ppos;

typedef struct phrase_it {
    tv_iter it;
    ppos *pp;
    uint32_t *order; /* pp by cost, rarest first: the conjunction's order */
    uint32_t n;
    uint32_t slop;
    const tv_bm25 *sim;
    const tv_segment *seg;
    uint32_t field;
    bool norms;
    float freq;
    tv_arena *arena;
    /* sloppy scratch */
    int32_t *spos;
    uint32_t *sidx;
} phrase_it;

static uint32_t ppos_doc(ppos *p) {
    if (TV_LIKELY(p->nalts == 1)) return p->doc = tv_postings_doc(p->alts[0]);
    uint32_t mn = NO_MORE;
    for (uint32_t i = 0; i < p->nalts; i++) {
        uint32_t d = tv_postings_doc(p->alts[i]);
        if (d < mn) mn = d;
    }
    return p->doc = mn;
}
static uint32_t ppos_advance(ppos *p, uint32_t t) {
    if (TV_LIKELY(p->nalts == 1)) return p->doc = tv_postings_advance(p->alts[0], t);
    for (uint32_t i = 0; i < p->nalts; i++)
        if (tv_postings_doc(p->alts[i]) < t) tv_postings_advance(p->alts[i], t);
    return ppos_doc(p);
}

static int u32cmp(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static bool ppos_load(phrase_it *ph, ppos *p, uint32_t doc) {
    p->npos = 0;
    for (uint32_t i = 0; i < p->nalts; i++) {
        if (p->nalts > 1 && tv_postings_doc(p->alts[i]) != doc) continue;
        uint32_t f = tv_postings_freq(p->alts[i]);
        if (p->npos + f > p->cap) {
            uint32_t nc = TV_MAX(p->cap * 2, p->npos + f + 8);
            uint32_t *np = tv_arena_alloc(ph->arena, nc * sizeof *np);
            if (!np) return false;
            if (p->npos) memcpy(np, p->pos, p->npos * sizeof *np);
            p->pos = np;
            p->cap = nc;
        }
        p->npos += tv_postings_positions(p->alts[i], p->pos + p->npos, f);
    }
    if (p->nalts > 1) qsort(p->pos, p->npos, sizeof *p->pos, u32cmp);
    return true;
}

/* Exact phrase: number of start positions s with s + offset_i in every
 * position list. */
static float exact_freq(phrase_it *ph) {
    uint32_t *idx = ph->sidx;
    for (uint32_t i = 0; i < ph->n; i++) idx[i] = 0;
    ppos *lead = &ph->pp[0];
    float freq = 0;
    for (uint32_t k = 0; k < lead->npos; k++) {
        int64_t start = (int64_t)lead->pos[k] - lead->offset;
        bool ok = true;
        for (uint32_t i = 1; i < ph->n && ok; i++) {
            ppos *p = &ph->pp[i];
            int64_t want = start + p->offset;
            while (idx[i] < p->npos && (int64_t)p->pos[idx[i]] < want) idx[i]++;
            if (idx[i] >= p->npos) return freq;
            if ((int64_t)p->pos[idx[i]] != want) ok = false;
        }
        if (ok) {
            freq += 1.0f;
            if (!ph->sim) return freq; /* matching is all a count or a filter needs */
        }
    }
    return freq;
}

/* Lucene's SloppyPhraseMatcher (no repeated terms): a queue of
 * (position - offset) per term; repeatedly pop the smallest, record the
 * match length end - min, advance it while it stays the smallest. */
typedef struct spp {
    int32_t position;
    uint32_t offset, ord, upto;
} spp;

static bool spp_less(const spp *a, const spp *b) {
    if (a->position != b->position) return a->position < b->position;
    if (a->offset != b->offset) return a->offset < b->offset;
    return a->ord < b->ord;
}

static float sloppy_freq(phrase_it *ph) {
    uint32_t n = ph->n;
    spp q[64];
    uint32_t qn = 0;
    spp all[64];
    if (n > 64) return 0;
    int32_t end = INT32_MIN;
    for (uint32_t i = 0; i < n; i++) {
        ppos *p = &ph->pp[i];
        if (!p->npos) return 0;
        all[i].position = (int32_t)p->pos[0] - (int32_t)p->offset;
        all[i].offset = p->offset;
        all[i].ord = i;
        all[i].upto = 1;
        if (all[i].position > end) end = all[i].position;
    }
    /* the queue as a sorted array (n is small) */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = qn++;
        while (j > 0 && spp_less(&all[i], &q[j - 1])) { q[j] = q[j - 1]; j--; }
        q[j] = all[i];
    }
    float freq = 0;
    for (;;) {
        /* nextMatch */
        spp pp = q[0];
        memmove(q, q + 1, (qn - 1) * sizeof *q);
        qn--;
        int32_t match_len = end - pp.position;
        int32_t next = q[0].position;
        bool done = false, found = false;
        for (;;) {
            ppos *P = &ph->pp[pp.ord];
            if (pp.upto >= P->npos) { done = true; break; }
            pp.position = (int32_t)P->pos[pp.upto++] - (int32_t)pp.offset;
            if (pp.position > end) end = pp.position;
            if (pp.position > next) {
                uint32_t j = qn++;
                while (j > 0 && spp_less(&pp, &q[j - 1])) { q[j] = q[j - 1]; j--; }
                q[j] = pp;
                if (match_len <= (int32_t)ph->slop) { found = true; break; }
                pp = q[0];
                memmove(q, q + 1, (qn - 1) * sizeof *q);
                qn--;
                next = q[0].position;
                match_len = end - pp.position;
            } else {
                int32_t ml2 = end - pp.position;
                if (ml2 < match_len) match_len = ml2;
            }
        }
        if (found) {
            freq += 1.0f / (1.0f + (float)match_len);
            if (!ph->sim) return freq; /* matching is all a count or a filter needs */
            continue;
        }
        if (done && match_len <= (int32_t)ph->slop) freq += 1.0f / (1.0f + (float)match_len);
        break;
    }
    return freq;
}

static uint32_t phrase_find(phrase_it *ph, uint32_t doc) {
    for (;;) {
        /* conjunction over positions: the rarest leads, the others catch
         * up; whoever overshoots sends the lead after it */
        ppos *lead = &ph->pp[ph->order[0]];
        if (lead->doc < doc) ppos_advance(lead, doc);
        doc = lead->doc;
        for (uint32_t k = 1; k < ph->n && doc != NO_MORE;) {
            ppos *p = &ph->pp[ph->order[k]];
            uint32_t d = p->doc < doc ? ppos_advance(p, doc) : p->doc;
            if (d == doc) {
                k++;
                continue;
            }
            doc = d == NO_MORE ? NO_MORE : ppos_advance(lead, d);
            k = 1;
        }
        if (doc == NO_MORE) return ph->it.doc = NO_MORE;
        for (uint32_t i = 0; i < ph->n; i++)
            if (!ppos_load(ph, &ph->pp[i], doc)) return ph->it.doc = NO_MORE;
        float f = ph->slop == 0 ? exact_freq(ph) : sloppy_freq(ph);
        if (f > 0) {
            ph->freq = f;
            return ph->it.doc = doc;
        }
        doc++;
    }
}
static uint32_t phrase_next(tv_iter *it) {
    phrase_it *ph = (phrase_it *)it;
    return phrase_find(ph, it->doc == TV_ITER_UNSET ? 0 : it->doc + 1);
}
static uint32_t phrase_advance(tv_iter *it, uint32_t t) { return phrase_find((phrase_it *)it, t); }
static float phrase_score(tv_iter *it) {
    phrase_it *ph = (phrase_it *)it;
    if (!ph->sim) return 0;
    uint8_t norm = ph->norms ? tv_segment_norm(ph->seg, ph->field, it->doc) : 1;
    return tv_bm25_score(ph->sim, ph->freq, norm);
}
static const tv_iter_vt phrase_vt = {phrase_next, phrase_advance, phrase_score, NULL, NULL};
/* explain.c's "phraseFreq=": the freq phrase_score used */
float tv_iter_phrase_freq(const tv_iter *it) { return it->vt == &phrase_vt ? ((const phrase_it *)it)->freq : 0.0f; }

/* ================================================================= plan */

static tv_status plan(tv_query *q, const tv_segview *sv, tv_plan_ctx *ctx, bool scores, tv_iter **out);

/* ORs a term's docs into bs. The postings iterator lives in `scratch`,
 * reset here, so that a query expanding to thousands of terms holds one
 * iterator at a time (/[a-z]{10,}/ on 30k docs took 56 MB when each
 * stayed in the request arena). */
static tv_status bits_from_postings(const tv_segment *seg, uint32_t field, const tv_term_state *st,
                                    tv_arena *scratch, tv_bitset *bs) {
    tv_arena_reset(scratch);
    tv_postings *p = tv_postings_open(seg, field, st, 0, scratch);
    if (!p) return TROVE_ENOMEM;
    tv_postings_or_bits(p, bs->words, bs->nbits);
    return TROVE_OK;
}

static bool ci_equal(const char *t, size_t tl, const char *lower, size_t ll) {
    if (tl != ll) return false;
    for (size_t i = 0; i < tl; i++) {
        char c = t[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != lower[i]) return false;
    }
    return true;
}

static tv_status plan_multi(tv_query *q, const tv_segview *sv, tv_plan_ctx *ctx, float score, tv_iter **out) {
    const tv_term_matcher *m = &q->u.multi.m;
    tv_terms_iter *ti = tv_terms_iter_new(sv->seg, q->field_id, ctx->arena);
    if (!ti) return TROVE_OK;
    bool seek = m->prefix && !m->case_insensitive;
    if (seek) tv_terms_iter_seek(ti, m->prefix, m->prefix_len);
    tv_bitset bs;
    if (!arena_bitset(ctx->arena, sv->max_doc, &bs)) return TROVE_ENOMEM;
    const char *t;
    size_t tl;
    tv_term_state st;
    uint32_t count = 0;
    bool any = false;
    char *skip = NULL; /* the seek target past a dead prefix (arena, grown as needed) */
    size_t skip_cap = 0;
    tv_automaton_cursor cur;
    if (m->automaton && !tv_automaton_cursor_init(&cur, m->automaton, tv_terms_iter_max_len(ti), ctx->arena))
        return TROVE_ENOMEM;
    /* `*ing`, `h*band`: only terms with the literal suffix reach the DFA */
    size_t suffix_len = 0;
    const char *suffix = NULL;
    if (m->automaton && !m->case_insensitive) suffix = tv_automaton_tail_suffix(m->automaton, &suffix_len);
    tv_arena scratch;
    tv_arena_init(&scratch);
    while (suffix ? tv_terms_iter_next_match(ti, seek ? m->prefix : NULL, seek ? m->prefix_len : 0, suffix,
                                             suffix_len, &t, &tl, &st)
                  : tv_terms_iter_next(ti, &t, &tl, &st)) {
        if (seek && !has_prefix(t, tl, m->prefix, m->prefix_len)) break;
        bool ok;
        if (m->case_insensitive) ok = m->exact ? ci_equal(t, tl, m->prefix, m->prefix_len) : true;
        else if (m->exact) ok = tl == m->prefix_len;
        else ok = true;
        if (ok && m->automaton && !m->case_insensitive) {
            /* a rejected term may let the enumeration seek past every
             * term that shares its dead prefix */
            if (tl + 4 > skip_cap) {
                skip_cap = tl * 2 + 16;
                if (!(skip = tv_arena_alloc(ctx->arena, skip_cap))) {
                    tv_arena_fini(&scratch);
                    return TROVE_ENOMEM;
                }
            }
            size_t n;
            ok = tv_automaton_cursor_next(&cur, t, tl, tv_terms_iter_shared(ti), skip, &n);
            if (!ok && n == 0) break; /* no later term can match */
            if (!ok && n != SIZE_MAX) {
                tv_terms_iter_seek(ti, skip, n);
                continue;
            }
        } else if (ok && m->accept) {
            ok = m->accept(m->state, t, tl);
        } else if (m->automaton && cur.valid > tv_terms_iter_shared(ti)) {
            cur.valid = tv_terms_iter_shared(ti); /* a term the cursor did not see */
        }
        if (!ok) continue;
        tv_status s2 = bits_from_postings(sv->seg, q->field_id, &st, &scratch, &bs);
        if (s2) {
            tv_arena_fini(&scratch);
            return s2;
        }
        any = true;
        if (m->max_terms && ++count >= m->max_terms) break;
    }
    tv_arena_fini(&scratch);
    if (!any) return TROVE_OK;
    *out = tv_iter_bitset(ctx->arena, &bs, sv->max_doc, score);
    return *out ? TROVE_OK : TROVE_ENOMEM;
}

static tv_status plan_trange(tv_query *q, const tv_segview *sv, tv_plan_ctx *ctx, float score, tv_iter **out) {
    tv_terms_iter *ti = tv_terms_iter_new(sv->seg, q->field_id, ctx->arena);
    if (!ti) return TROVE_OK;
    const char *lo = q->u.trange.lo, *hi = q->u.trange.hi;
    bool boolean = q->field && q->field->type == TV_FT_BOOLEAN;
    if (lo) tv_terms_iter_seek(ti, lo, q->u.trange.lo_len);
    tv_bitset bs;
    if (!arena_bitset(ctx->arena, sv->max_doc, &bs)) return TROVE_ENOMEM;
    const char *t;
    size_t tl;
    tv_term_state st;
    bool any = false;
    tv_arena scratch;
    tv_arena_init(&scratch);
    while (tv_terms_iter_next(ti, &t, &tl, &st)) {
        if (!boolean) {
            if (lo && !q->u.trange.lo_incl && tv_memcmp2(t, tl, lo, q->u.trange.lo_len) == 0) continue;
            if (hi) {
                int c = tv_memcmp2(t, tl, hi, q->u.trange.hi_len);
                if (c > 0 || (c == 0 && !q->u.trange.hi_incl)) break;
            }
        }
        tv_status s2 = bits_from_postings(sv->seg, q->field_id, &st, &scratch, &bs);
        if (s2) {
            tv_arena_fini(&scratch);
            return s2;
        }
        any = true;
    }
    tv_arena_fini(&scratch);
    if (!any) return TROVE_OK;
    *out = tv_iter_bitset(ctx->arena, &bs, sv->max_doc, score);
    return *out ? TROVE_OK : TROVE_ENOMEM;
}

static tv_status plan_set(tv_query *q, const tv_segview *sv, tv_plan_ctx *ctx, float score, tv_iter **out) {
    tv_bitset bs;
    bool any = false;
    if (!arena_bitset(ctx->arena, sv->max_doc, &bs)) return TROVE_ENOMEM;
    tv_arena scratch;
    tv_arena_init(&scratch);
    for (uint32_t i = 0; i < q->u.set.nterms; i++) {
        tv_term_state st;
        if (!tv_segment_term(sv->seg, q->field_id, q->u.set.terms[i].term, q->u.set.terms[i].len, &st)) continue;
        tv_status s2 = bits_from_postings(sv->seg, q->field_id, &st, &scratch, &bs);
        if (s2) {
            tv_arena_fini(&scratch);
            return s2;
        }
        any = true;
    }
    tv_arena_fini(&scratch);
    if (!any) return TROVE_OK;
    *out = tv_iter_bitset(ctx->arena, &bs, sv->max_doc, score);
    return *out ? TROVE_OK : TROVE_ENOMEM;
}

static tv_status plan_phrase(tv_query *q, const tv_segview *sv, tv_plan_ctx *ctx, bool scores, tv_iter **out) {
    uint32_t nt = q->u.phrase.nterms;
    if (!q->u.phrase.sim) return TROVE_OK;
    phrase_it *ph = tv_arena_calloc(ctx->arena, 1, sizeof *ph);
    ppos *pp = tv_arena_calloc(ctx->arena, nt, sizeof *pp);
    tv_postings **alts = tv_arena_calloc(ctx->arena, nt, sizeof *alts);
    if (!ph || !pp || !alts) return TROVE_ENOMEM;
    uint32_t n = 0;
    uint64_t cost = UINT64_MAX;
    /* terms are grouped by position (consecutive entries may share one) */
    for (uint32_t i = 0; i < nt;) {
        uint32_t j = i;
        ppos *p = &pp[n];
        p->alts = alts + i;
        p->offset = q->u.phrase.terms[i].pos;
        p->doc = TV_ITER_UNSET;
        uint64_t pc = 0;
        while (j < nt && q->u.phrase.terms[j].pos == p->offset) {
            tv_term_state st;
            const tv_qterm *t = &q->u.phrase.terms[j];
            if (tv_segment_term(sv->seg, q->field_id, t->term, t->len, &st)) {
                tv_postings *po = tv_postings_open(sv->seg, q->field_id, &st, TV_POST_FREQS | TV_POST_POSITIONS, ctx->arena);
                if (!po) return TROVE_ENOMEM;
                tv_postings_next(po); /* every alternative sits on a doc */
                p->alts[p->nalts++] = po;
                pc += st.doc_freq;
            }
            j++;
        }
        if (p->nalts == 0) return TROVE_OK; /* a position absent in this segment */
        p->cost = pc;
        ppos_doc(p);
        if (pc < cost) cost = pc;
        n++;
        i = j;
    }
    ph->pp = pp;
    ph->n = n;
    ph->slop = q->u.phrase.slop;
    ph->sim = scores ? q->u.phrase.sim : NULL;
    ph->seg = sv->seg;
    ph->field = q->field_id;
    ph->norms = q->field && q->field->norms;
    ph->arena = ctx->arena;
    ph->sidx = tv_arena_calloc(ctx->arena, n, sizeof *ph->sidx);
    ph->order = tv_arena_alloc(ctx->arena, n * sizeof *ph->order);
    if (!ph->sidx || !ph->order) return TROVE_ENOMEM;
    /* the rarest position leads the conjunction (insertion sort: n is small) */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = i;
        while (j > 0 && pp[ph->order[j - 1]].cost > pp[i].cost) {
            ph->order[j] = ph->order[j - 1];
            j--;
        }
        ph->order[j] = i;
    }
    *out = iter_init(&ph->it, &phrase_vt, cost, ph->sim ? ph->sim->weight : 0);
    return TROVE_OK;
}

static tv_status plan_bool(tv_query *q, const tv_segview *sv, tv_plan_ctx *ctx, bool scores, tv_iter **out) {
    tv_arena *a = ctx->arena;
    uint32_t nm = q->u.boolq.nmust, ns = q->u.boolq.nshould, nn = q->u.boolq.nmust_not,
             nf = q->u.boolq.nfilter;
    int32_t msm = q->u.boolq.msm;
    if (msm > (int32_t)ns) return TROVE_OK;
    tv_iter **req = tv_arena_alloc(a, (nm + nf + ns + 1) * sizeof *req);
    tv_iter **reqs = tv_arena_alloc(a, (nm + ns + 1) * sizeof *reqs);
    tv_iter **opt = tv_arena_alloc(a, (ns + 1) * sizeof *opt);
    tv_iter **excl = tv_arena_alloc(a, (nn + 1) * sizeof *excl);
    if (!req || !reqs || !opt || !excl) return TROVE_ENOMEM;
    uint32_t nreq = 0, nreqs = 0, nopt = 0, nexcl = 0;
    tv_status st;
    for (uint32_t i = 0; i < nm; i++) {
        tv_iter *it = NULL;
        if ((st = plan(q->u.boolq.must[i], sv, ctx, scores, &it))) return st;
        if (!it) return TROVE_OK;
        req[nreq++] = it;
        reqs[nreqs++] = it;
    }
    for (uint32_t i = 0; i < nf; i++) {
        tv_iter *it = NULL;
        if ((st = plan(q->u.boolq.filter[i], sv, ctx, false, &it))) return st;
        if (!it) return TROVE_OK;
        req[nreq++] = it;
    }
    for (uint32_t i = 0; i < ns; i++) {
        tv_iter *it = NULL;
        if ((st = plan(q->u.boolq.should[i], sv, ctx, scores, &it))) return st;
        if (it) opt[nopt++] = it;
    }
    for (uint32_t i = 0; i < nn; i++) {
        tv_iter *it = NULL;
        if ((st = plan(q->u.boolq.must_not[i], sv, ctx, false, &it))) return st;
        if (it) excl[nexcl++] = it;
    }
    if ((int32_t)nopt < msm) return TROVE_OK;
    tv_iter *res = NULL;
    if (msm > 0 && msm == (int32_t)nopt) {
        /* BooleanWeight: as many SHOULD scorers in this segment as msm —
         * every one is required (one flat conjunction) */
        for (uint32_t i = 0; i < nopt; i++) { req[nreq++] = opt[i]; reqs[nreqs++] = opt[i]; }
        nopt = 0;
    } else if (msm > 0) {
        tv_iter *d = make_disj(a, opt, nopt, (uint32_t)msm, false, 0);
        if (!d) return TROVE_ENOMEM;
        if (nreq > 0 && scores) {
            /* BooleanScorerSupplier: required and optional parts are each
             * scored on their own (a float each), then
             * ConjunctionScorer([req, opt]) adds the two in double */
            tv_iter *r;
            if (nreq == 1 && nreqs == 1) r = req[0];
            else if (nreq == 1 && nreqs == 0) r = make_const(a, req[0], 0.0f);
            else r = make_conj(a, req, nreq, reqs, nreqs);
            if (!r) return TROVE_ENOMEM;
            req[0] = reqs[0] = r;
            req[1] = reqs[1] = d;
            nreq = nreqs = 2;
        } else {
            req[nreq++] = d;
            reqs[nreqs++] = d;
        }
        nopt = 0;
    }
    if (nreq == 0) {
        if (nopt == 0) return TROVE_OK;
        res = nopt == 1 ? opt[0] : make_disj(a, opt, nopt, 1, false, 0);
    } else {
        if (nreq == 1 && nreqs == 1) res = req[0];
        else if (nreq == 1 && nreqs == 0) res = scores ? make_const(a, req[0], 0.0f) : req[0];
        else res = make_conj(a, req, nreq, reqs, nreqs);
        if (!res) return TROVE_ENOMEM;
        if (nopt) {
            tv_iter *o = nopt == 1 ? opt[0] : make_disj(a, opt, nopt, 1, false, 0);
            if (!o) return TROVE_ENOMEM;
            if (scores) res = make_pair(a, &reqopt_vt, res, o, res->max_score + o->max_score);
        }
    }
    if (!res) return TROVE_ENOMEM;
    if (nexcl) {
        tv_iter *x = nexcl == 1 ? excl[0] : make_disj(a, excl, nexcl, 1, false, 0);
        if (!x) return TROVE_ENOMEM;
        res = make_pair(a, &excl_vt, res, x, res->max_score);
        if (!res) return TROVE_ENOMEM;
    }
    *out = res;
    return TROVE_OK;
}

/* Lucene's PointRangeQuery has no scorer in a segment (and the segment
 * then counts as having no such clause, which changes how a bool adds up
 * scores) only when the segment has no value of the field or the range is
 * disjoint from the segment's [min, max] (deleted docs included). A range
 * that matches nothing in between still has one: values below and above. */
static bool range_straddles(const tv_query *q, const tv_segview *sv, tv_arena *a) {
    int64_t lo = q->u.nrange.lo, hi = q->u.nrange.hi;
    if (lo > hi || lo == INT64_MIN || hi == INT64_MAX) return false;
    tv_bitset below, above;
    if (!arena_bitset(a, sv->max_doc, &below) || !arena_bitset(a, sv->max_doc, &above)) return false;
    if (tv_segment_points_range(sv->seg, q->field_id, INT64_MIN, lo - 1, &below)) return false;
    if (tv_segment_points_range(sv->seg, q->field_id, hi + 1, INT64_MAX, &above)) return false;
    size_t nw = ((size_t)sv->max_doc + 63) / 64;
    bool b = false, u = false;
    for (size_t i = 0; i < nw; i++) {
        b |= below.words[i] != 0;
        u |= above.words[i] != 0;
    }
    return b && u;
}

static tv_status plan_node(tv_query *q, const tv_segview *sv, tv_plan_ctx *ctx, bool scores, tv_iter **out);

/* Profiling (profile.c): a profiled node's plan is timed as build_scorer
 * and its iterator wrapped; one branch per node and segment otherwise. */
static tv_status plan(tv_query *q, const tv_segview *sv, tv_plan_ctx *ctx, bool scores, tv_iter **out) {
    tv_qprof_node *n = TV_UNLIKELY(ctx->prof != NULL) ? tv_qprof_find(ctx->prof, q) : NULL;
    if (!n) return plan_node(q, sv, ctx, scores, out);
    uint64_t t0 = tv_mono_ns();
    tv_status st = plan_node(q, sv, ctx, scores, out);
    uint64_t dt = tv_mono_ns() - t0;
    n->ns[TV_QT_BUILD_SCORER] += dt;
    n->count[TV_QT_BUILD_SCORER]++;
    if (n->inner) {
        n->inner->ns[TV_QT_BUILD_SCORER] += dt;
        n->inner->count[TV_QT_BUILD_SCORER]++;
    }
    if (st || !*out) return st;
    if (n->inner && !(*out = tv_qprof_wrap(n->inner, *out, ctx->arena))) return TROVE_ENOMEM;
    if (!(*out = tv_qprof_wrap(n, *out, ctx->arena))) return TROVE_ENOMEM;
    return TROVE_OK;
}

static tv_status plan_node(tv_query *q, const tv_segview *sv, tv_plan_ctx *ctx, bool scores, tv_iter **out) {
    *out = NULL;
    tv_arena *a = ctx->arena;
    float cscore = scores ? q->score_boost : 0.0f;
    switch ((tv_qkind)q->kind) {
    case TV_Q_MATCH_ALL:
        *out = tv_iter_all(a, sv->max_doc, cscore);
        return *out ? TROVE_OK : TROVE_ENOMEM;
    case TV_Q_MATCH_NONE:
        return TROVE_OK;
    case TV_Q_TERM: {
        tv_term_state st;
        if (!q->u.term.constant && !q->u.term.sim && scores) return TROVE_OK;
        if (!tv_query_term_state(q, ctx->snap, sv, &st)) return TROVE_OK;
        bool bm25 = scores && !q->u.term.constant && q->u.term.sim;
        unsigned flags = bm25 ? TV_POST_FREQS : 0;
        if (bm25 && ctx->impacts) flags |= TV_POST_IMPACTS;
        term_it *t = tv_arena_alloc(a, sizeof *t);
        if (!t) return TROVE_ENOMEM;
        t->p = tv_postings_open(sv->seg, q->field_id, &st, flags, a);
        if (!t->p) return TROVE_ENOMEM;
        t->sim = bm25 ? q->u.term.sim : NULL;
        t->cscore = cscore;
        t->seg = sv->seg;
        t->field = q->field_id;
        t->norms = q->field && q->field->norms;
        t->norm_bytes = t->norms ? tv_segment_norms(sv->seg, q->field_id) : NULL;
        t->max_doc = tv_segment_max_doc(sv->seg);
        t->prune = false;
        t->min = -INFINITY;
        t->blk_upto = TV_ITER_UNSET;
        t->blk_max = 0;
        *out = iter_init(&t->it, bm25 && ctx->impacts ? &term_vt : &cterm_vt, st.doc_freq,
                         bm25 ? q->u.term.sim->weight : cscore);
        return TROVE_OK;
    }
    case TV_Q_PHRASE:
        return plan_phrase(q, sv, ctx, scores, out);
    case TV_Q_PHRASE_PREFIX:
        return TROVE_OK; /* resolved by prepare */
    case TV_Q_BOOL:
        return plan_bool(q, sv, ctx, scores, out);
    case TV_Q_DISMAX: {
        tv_iter **subs = tv_arena_alloc(a, (q->u.dismax.nsubs + 1) * sizeof *subs);
        if (!subs) return TROVE_ENOMEM;
        uint32_t n = 0;
        for (uint32_t i = 0; i < q->u.dismax.nsubs; i++) {
            tv_iter *it = NULL;
            tv_status st = plan(q->u.dismax.subs[i], sv, ctx, scores, &it);
            if (st) return st;
            if (it) subs[n++] = it;
        }
        if (!n) return TROVE_OK;
        *out = make_disj(a, subs, n, 1, true, q->u.dismax.tie_breaker);
        return *out ? TROVE_OK : TROVE_ENOMEM;
    }
    case TV_Q_CONST: {
        tv_iter *in = NULL;
        tv_status st = plan(q->u.cnst.inner, sv, ctx, false, &in);
        if (st || !in) return st;
        *out = scores ? make_const(a, in, cscore) : in;
        return *out ? TROVE_OK : TROVE_ENOMEM;
    }
    case TV_Q_BOOSTING: {
        tv_iter *pos = NULL, *neg = NULL;
        tv_status st = plan(q->u.boosting.positive, sv, ctx, scores, &pos);
        if (st || !pos) return st;
        if (!scores) { *out = pos; return TROVE_OK; }
        st = plan(q->u.boosting.negative, sv, ctx, false, &neg);
        if (st) return st;
        pair_it *p = (pair_it *)make_pair(a, &boosting_vt, pos, neg, pos->max_score * q->score_boost);
        if (!p) return TROVE_ENOMEM;
        p->factor = (double)q->u.boosting.negative_boost;
        p->boost = q->score_boost;
        *out = &p->it;
        return TROVE_OK;
    }
    case TV_Q_TERM_SET:
        return plan_set(q, sv, ctx, cscore, out);
    case TV_Q_MULTI_TERM:
        return plan_multi(q, sv, ctx, cscore, out);
    case TV_Q_RANGE_TERM:
        return plan_trange(q, sv, ctx, cscore, out);
    case TV_Q_RANGE_NUM: {
        tv_bitset bs;
        if (!arena_bitset(a, sv->max_doc, &bs)) return TROVE_ENOMEM;
        tv_status st = tv_segment_points_range(sv->seg, q->field_id, q->u.nrange.lo, q->u.nrange.hi, &bs);
        if (st) return st;
        *out = tv_iter_bitset(a, &bs, sv->max_doc, cscore);
        if (!*out) return TROVE_ENOMEM;
        if ((*out)->cost == 0 && !range_straddles(q, sv, a)) *out = NULL;
        return TROVE_OK;
    }
    case TV_Q_EXISTS: {
        tv_postings *p = tv_postings_field_docs(sv->seg, q->field_id, a);
        if (!p) return TROVE_OK;
        term_it *t = tv_arena_alloc(a, sizeof *t);
        if (!t) return TROVE_ENOMEM;
        t->p = p;
        t->sim = NULL;
        t->cscore = cscore;
        t->seg = sv->seg;
        t->field = q->field_id;
        t->norms = false;
        t->norm_bytes = NULL;
        t->max_doc = 0;
        t->prune = false;
        *out = iter_init(&t->it, &cterm_vt, tv_postings_cost(p), cscore);
        return TROVE_OK;
    }
    case TV_Q_EXT:
        if (q->u.ext.plan) return q->u.ext.plan(q, sv, ctx, out);
        return TROVE_OK;
    }
    return TROVE_OK;
}

tv_status tv_plan(tv_query *q, const tv_segview *sv, tv_plan_ctx *ctx, tv_iter **out) {
    return plan(q, sv, ctx, ctx->scores, out);
}
