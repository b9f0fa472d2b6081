/*
 * dsl_synonym.c — what Lucene's QueryBuilder makes of analyzed text whose
 * tokens are stacked (synonyms at one position) or form a graph
 * (positionLength > 1, synonym_graph and word_delimiter_graph), for the
 * match and match_phrase queries; and SynonymQuery, the query of several
 * terms at one position.
 *
 * SynonymQuery (Lucene 10): the terms score as one pseudo-term: BM25 with
 * the largest document frequency of the terms (summed over segments per
 * term) for idf, and per document the sum of the matching terms'
 * frequencies; it matches the union of their postings. It is a TV_Q_EXT
 * node: prepare gathers the statistics, plan opens each term's postings in
 * the segment and walks their union (linear over a handful of terms).
 *
 * The token graph (GraphTokenStreamFiniteStrings): a token goes from node
 * p to p + positionLength (+ the gap of a position increment > 1, which
 * the token absorbs; a stacked token keeps its position's node). The
 * articulation points (cut vertices) of a graph whose edges all go
 * forward are the nodes no edge jumps over; between two of them a segment
 * either starts several side paths (each path, in token order, becomes a
 * phrase when auto_generate_synonyms_phrase_query, else a conjunction, a
 * single token a term; the paths are OR-ed) or holds the terms of one
 * position (a term, or a SynonymQuery). analyzeGraphBoolean joins the
 * segments with the operator; analyzeGraphPhrase with slop > 0 ORs the
 * phrases of every path through the graph; with slop 0 OpenSearch builds
 * span queries, which trove does not have (400).
 *
 * Rejected: approximating SynonymQuery by a disjunction of term queries
 * (the hits agree but every score differs: idf per term and summed
 * scores), the shortcut query_string still takes.
 */
#include <math.h>
#include <stdlib.h>

#include "query/parse.h"
#include "query/query.h"

/* ---------------------------------------------------------- SynonymQuery */

typedef struct syn_q {
    const tv_qterm *terms;
    uint32_t n;
    const tv_field *field;
    uint32_t field_id;
    tv_bm25 *sim; /* NULL: no term anywhere */
} syn_q;

static tv_status syn_prepare(tv_query *q, const tv_snapshot *snap, float boost, tv_arena *a) {
    syn_q *s = q->u.ext.state;
    s->sim = NULL;
    uint64_t maxdf = 0;
    for (uint32_t t = 0; t < s->n; t++) {
        uint64_t df = 0;
        for (uint32_t i = 0; i < snap->nsegs; i++) {
            tv_term_state st;
            if (tv_segment_term(snap->segs[i].seg, s->field_id, s->terms[t].term, s->terms[t].len, &st))
                df += st.doc_freq;
        }
        if (df > maxdf) maxdf = df;
    }
    if (maxdf == 0) return TROVE_OK;
    uint64_t doc_count = 0, sum_ttf = 0, sum_df = 0;
    for (uint32_t i = 0; i < snap->nsegs; i++) {
        tv_field_stats fs;
        if (tv_segment_field_stats(snap->segs[i].seg, s->field_id, &fs)) {
            doc_count += fs.doc_count;
            sum_ttf += fs.sum_total_term_freq;
            sum_df += fs.sum_doc_freq;
        }
    }
    if (sum_ttf < sum_df) sum_ttf = sum_df; /* DOCS-only fields, as exec.c */
    s->sim = tv_arena_alloc(a, sizeof *s->sim);
    if (!s->sim) return TROVE_ENOMEM;
    tv_bm25_init(s->sim, boost, tv_bm25_idf(maxdf, doc_count), sum_ttf, doc_count);
    return TROVE_OK;
}

typedef struct syn_it {
    tv_iter it;
    tv_postings **p;
    uint32_t n;
    const tv_bm25 *sim; /* NULL: constant */
    float cscore;
    const uint8_t *norm_bytes;
    bool norms;
    uint32_t max_doc;
} syn_it;

static uint32_t syn_min(syn_it *s) {
    uint32_t mn = TV_NO_MORE_DOCS;
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t d = tv_postings_doc(s->p[i]);
        if (d < mn) mn = d;
    }
    return mn;
}

static uint32_t syn_advance(tv_iter *it, uint32_t target) {
    syn_it *s = (syn_it *)it;
    for (uint32_t i = 0; i < s->n; i++)
        if (tv_postings_doc(s->p[i]) < target) tv_postings_advance(s->p[i], target);
    return it->doc = syn_min(s);
}
static uint32_t syn_next(tv_iter *it) {
    /* the postings start on their first docs: the first next() is their min */
    uint32_t d = it->doc;
    if (d == TV_ITER_UNSET) return it->doc = syn_min((syn_it *)it);
    return syn_advance(it, d + 1);
}
static float syn_score(tv_iter *it) {
    syn_it *s = (syn_it *)it;
    if (!s->sim) return s->cscore;
    uint32_t freq = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (tv_postings_doc(s->p[i]) == it->doc) freq += tv_postings_freq(s->p[i]);
    uint8_t norm = !s->norms ? 1 : s->norm_bytes && it->doc < s->max_doc ? s->norm_bytes[it->doc] : 0;
    return tv_bm25_score(s->sim, (float)freq, norm);
}
static const tv_iter_vt syn_vt = {syn_next, syn_advance, syn_score, NULL, NULL, NULL, NULL, NULL};

static tv_status syn_plan(tv_query *q, const tv_segview *sv, tv_plan_ctx *ctx, tv_iter **out) {
    syn_q *s = q->u.ext.state;
    *out = NULL;
    bool scores = ctx->scores;
    if (scores && !s->sim) return TROVE_OK;
    syn_it *it = tv_arena_calloc(ctx->arena, 1, sizeof *it);
    tv_postings **p = tv_arena_calloc(ctx->arena, s->n, sizeof *p);
    if (!it || !p) return TROVE_ENOMEM;
    uint64_t cost = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        tv_term_state st;
        if (!tv_segment_term(sv->seg, s->field_id, s->terms[i].term, s->terms[i].len, &st)) continue;
        p[it->n] = tv_postings_open(sv->seg, s->field_id, &st, scores ? TV_POST_FREQS : 0, ctx->arena);
        if (!p[it->n]) return TROVE_ENOMEM;
        tv_postings_next(p[it->n]); /* every term sits on a doc */
        it->n++;
        cost += st.doc_freq;
    }
    if (!it->n) return TROVE_OK;
    it->p = p;
    it->sim = scores ? s->sim : NULL;
    it->cscore = q->score_boost;
    it->norms = s->field && s->field->norms;
    it->norm_bytes = it->norms ? tv_segment_norms(sv->seg, s->field_id) : NULL;
    it->max_doc = tv_segment_max_doc(sv->seg);
    it->it.vt = &syn_vt;
    it->it.doc = TV_ITER_UNSET;
    it->it.cost = cost;
    it->it.max_score = it->sim ? it->sim->weight : it->cscore;
    *out = &it->it;
    return TROVE_OK;
}

tv_query *tv_q_synonym(tv_dsl *d, const tv_field *f, const tv_token *const *toks, uint32_t n) {
    syn_q *s = tv_arena_calloc(d->arena, 1, sizeof *s);
    tv_qterm *ts = tv_arena_calloc(d->arena, n, sizeof *ts);
    tv_query *q = tv_q_new(d, TV_Q_EXT);
    if (!s || !ts || !q) return NULL;
    for (uint32_t i = 0; i < n; i++) {
        ts[i].term = toks[i]->term;
        ts[i].len = toks[i]->term_len;
    }
    s->terms = ts;
    s->n = n;
    s->field = f;
    s->field_id = f->id;
    q->field = f;
    q->field_id = f->id;
    q->origin = "synonym";
    q->u.ext.prepare = syn_prepare;
    q->u.ext.plan = syn_plan;
    q->u.ext.state = s;
    return q;
}

/* ------------------------------------------------------------ the graph */

typedef struct gedge {
    const tv_token *t;
    uint32_t from, to;
    uint32_t inc; /* the token's position increment (a stacked one: its position's) */
} gedge;

typedef struct tgraph {
    gedge *e; /* in token order */
    uint32_t n;
    uint32_t last; /* the accepting node */
} tgraph;

/* GraphTokenStreamFiniteStrings.build over tokens with absolute positions. */
static bool graph_build(tv_arena *a, const tv_tokens *toks, tgraph *g) {
    g->e = tv_arena_calloc(a, toks->len ? toks->len : 1, sizeof *g->e);
    if (!g->e) return false;
    g->n = 0;
    g->last = 0;
    int64_t pos = -1, gap = 0, prevpos = -1;
    uint32_t prev_inc = 1;
    for (size_t i = 0; i < toks->len; i++) {
        const tv_token *t = &toks->items[i];
        int64_t inc = (int64_t)t->position - prevpos;
        if (i == 0) inc = (int64_t)t->position + 1;
        prevpos = t->position;
        if (inc == 0) {
            if (gap > 0) pos -= gap;
        } else {
            pos++;
            gap = inc - 1;
        }
        /* DisableGraphAttribute (shingle): every token spans one position */
        int64_t end = pos + (t->pos_len > 1 && !toks->graph_off ? t->pos_len : 1) + gap;
        g->e[g->n++] = (gedge){t, (uint32_t)pos, (uint32_t)end, inc == 0 ? prev_inc : (uint32_t)inc};
        if ((uint32_t)end > g->last) g->last = (uint32_t)end;
        pos += gap;
        if (inc > 0) prev_inc = (uint32_t)inc;
    }
    return true;
}

/* A path of edges from node `from` to node `to`: visits each in token
 * order (the determinized automaton's transition order). */
typedef tv_status (*path_fn)(void *ctx, gedge *const *path, uint32_t n);

static tv_status paths(const tgraph *g, uint32_t from, uint32_t to, gedge **stack, uint32_t depth,
                       path_fn fn, void *ctx, uint32_t *budget) {
    if (from == to) return fn(ctx, stack, depth);
    for (uint32_t i = 0; i < g->n; i++) {
        if (g->e[i].from != from || g->e[i].to > to) continue;
        if (*budget == 0) return TROVE_ELIMIT;
        (*budget)--;
        stack[depth] = &g->e[i];
        tv_status st = paths(g, g->e[i].to, to, stack, depth + 1, fn, ctx, budget);
        if (st) return st;
    }
    return TROVE_OK;
}

typedef struct qlist {
    tv_dsl *d;
    const tv_field *f;
    bool phrase; /* a path of several tokens: a phrase (else a conjunction) */
    uint32_t slop;
    TV_VEC(tv_query *) qs;
    bool oom;
} qlist;

/* createFieldQuery(path, MUST, quoted, slop) of a linear path. */
static tv_status path_query(void *ctx, gedge *const *path, uint32_t n) {
    qlist *l = ctx;
    tv_dsl *d = l->d;
    tv_query *q;
    if (n == 1) {
        q = tv_q_term(d, l->f, path[0]->t->term, path[0]->t->term_len);
    } else if (l->phrase) {
        q = NULL;
        if (l->f->phrase_field || l->f->sayt == 1) {
            /* TextFieldType.phraseQuery: the index_phrases shingles */
            tv_token *tk = tv_arena_calloc(d->arena, n, sizeof *tk);
            if (!tk) return TROVE_ENOMEM;
            uint32_t pos = 0;
            for (uint32_t i = 0; i < n; i++) {
                if (i) pos += path[i]->inc;
                tk[i] = *path[i]->t;
                tk[i].position = pos;
                tk[i].pos_len = 1;
            }
            tv_tokens pt = {tk, n, pos + 1};
            tv_status st = tv_dsl_index_phrase(d, l->f, &pt, l->slop, &q);
            if (st) return st;
        }
        if (q) goto add;
        q = tv_q_new(d, TV_Q_PHRASE);
        tv_qterm *ts = tv_arena_calloc(d->arena, n, sizeof *ts);
        if (!q || !ts) return TROVE_ENOMEM;
        uint32_t pos = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (i) pos += path[i]->inc;
            ts[i] = (tv_qterm){path[i]->t->term, path[i]->t->term_len, pos};
        }
        q->field = l->f;
        q->field_id = l->f->id;
        q->u.phrase.terms = ts;
        q->u.phrase.nterms = n;
        q->u.phrase.slop = l->slop;
        q->u.phrase.max_expansions = 50;
    } else {
        tv_query **cl = tv_arena_calloc(d->arena, n, sizeof *cl);
        if (!cl) return TROVE_ENOMEM;
        for (uint32_t i = 0; i < n; i++) {
            cl[i] = tv_q_term(d, l->f, path[i]->t->term, path[i]->t->term_len);
            if (!cl[i]) return TROVE_ENOMEM;
        }
        q = tv_q_bool(d, cl, n, NULL, 0, 0);
    }
add:
    if (!q || tv_vec_push(&l->qs, q)) return TROVE_ENOMEM;
    return TROVE_OK;
}

static tv_status graph_err(tv_dsl *d, tv_status st) {
    if (st == TROVE_ELIMIT)
        return tv_error_set(d->err, TROVE_EARG, "Exceeded maximum recursion level during graph analysis");
    if (st == TROVE_ENOMEM) return tv_error_oom(d->err);
    return st; /* already described */
}

/* The OR of the queries of every path from `from` to `to`. */
static tv_status side_paths(tv_dsl *d, const tv_field *f, const tgraph *g, uint32_t from, uint32_t to,
                            bool phrase, uint32_t slop, tv_query **out) {
    qlist l = {d, f, phrase, slop, {0}, false};
    gedge **stack = tv_arena_calloc(d->arena, g->n + 1, sizeof *stack);
    if (!stack) return tv_error_oom(d->err);
    uint32_t budget = 1u << 16;
    tv_status st = paths(g, from, to, stack, 0, path_query, &l, &budget);
    if (st) {
        tv_vec_fini(&l.qs);
        return graph_err(d, st);
    }
    tv_query **cl = tv_arena_calloc(d->arena, l.qs.len + 1, sizeof *cl);
    if (!cl) {
        tv_vec_fini(&l.qs);
        return tv_error_oom(d->err);
    }
    uint32_t n = (uint32_t)l.qs.len;
    if (n) memcpy(cl, l.qs.items, n * sizeof *cl);
    tv_vec_fini(&l.qs);
    *out = n == 1 ? cl[0] : tv_q_bool(d, NULL, 0, cl, n, 0);
    return *out ? TROVE_OK : tv_error_oom(d->err);
}

bool tv_tokens_are_graph(const tv_tokens *toks, bool *stacked) {
    bool graph = false;
    *stacked = false;
    for (size_t i = 0; i < toks->len; i++) {
        if (toks->items[i].pos_len > 1) graph = true;
        if (i && toks->items[i].position == toks->items[i - 1].position) *stacked = true;
    }
    /* a stream with DisableGraphAttribute (shingle) builds no graph query */
    return graph && !toks->graph_off;
}

tv_status tv_dsl_token_clauses(tv_dsl *d, const tv_field *f, const tv_tokens *toks, bool auto_phrase,
                               tv_query ***clauses, uint32_t *nclauses) {
    *clauses = NULL;
    *nclauses = 0;
    tgraph g;
    if (!graph_build(d->arena, toks, &g)) return tv_error_oom(d->err);
    tv_query **cl = tv_arena_calloc(d->arena, g.n + 1, sizeof *cl);
    const tv_token **terms = tv_arena_calloc(d->arena, g.n + 1, sizeof *terms);
    if (!cl || !terms) return tv_error_oom(d->err);
    uint32_t nc = 0;
    uint32_t start = 0;
    while (start < g.last) {
        /* the next articulation point: the first node after start that
         * some edge reaches and no edge jumps over */
        uint32_t end = g.last;
        for (uint32_t p = start + 1; p < g.last; p++) {
            bool touched = false, jumped = false;
            for (uint32_t i = 0; i < g.n && !jumped; i++) {
                if (g.e[i].from == p || g.e[i].to == p) touched = true;
                if (g.e[i].from < p && g.e[i].to > p) jumped = true;
            }
            if (touched && !jumped) {
                end = p;
                break;
            }
        }
        /* hasSidePath: edges from start reach different nodes */
        uint32_t nt = 0, dest = UINT32_MAX;
        bool side = false;
        for (uint32_t i = 0; i < g.n; i++) {
            if (g.e[i].from != start) continue;
            if (dest != UINT32_MAX && g.e[i].to != dest) side = true;
            dest = g.e[i].to;
            terms[nt++] = g.e[i].t;
        }
        tv_query *q = NULL;
        if (side) {
            tv_status st = side_paths(d, f, &g, start, end, auto_phrase, 0, &q);
            if (st) return st;
        } else if (nt == 1) {
            q = tv_q_term(d, f, terms[0]->term, terms[0]->term_len);
        } else if (nt > 1) {
            q = tv_q_synonym(d, f, terms, nt);
        }
        if (nt && !q) return tv_error_oom(d->err);
        if (q) cl[nc++] = q;
        if (end <= start) break;
        start = end;
    }
    *clauses = cl;
    *nclauses = nc;
    return TROVE_OK;
}

tv_status tv_dsl_graph_phrase(tv_dsl *d, const tv_field *f, const tv_tokens *toks, uint32_t slop,
                              tv_query **out) {
    *out = NULL;
    if (slop == 0)
        return tv_error_set(d->err, TROVE_EUNSUPPORTED,
                            "phrase queries over a token graph (multi-word synonyms) on field [%s] need span queries, which trove does not support",
                            f->path);
    tgraph g;
    if (!graph_build(d->arena, toks, &g)) return tv_error_oom(d->err);
    /* every finite string: a phrase (or a term), OR-ed (never unwrapped) */
    qlist l = {d, f, true, slop, {0}, false};
    gedge **stack = tv_arena_calloc(d->arena, g.n + 1, sizeof *stack);
    if (!stack) return tv_error_oom(d->err);
    uint32_t budget = 1u << 16;
    tv_status st = paths(&g, 0, g.last, stack, 0, path_query, &l, &budget);
    if (st) {
        tv_vec_fini(&l.qs);
        return graph_err(d, st);
    }
    uint32_t n = (uint32_t)l.qs.len;
    tv_query **cl = tv_arena_calloc(d->arena, n + 1, sizeof *cl);
    if (!cl) {
        tv_vec_fini(&l.qs);
        return tv_error_oom(d->err);
    }
    if (n) memcpy(cl, l.qs.items, n * sizeof *cl);
    tv_vec_fini(&l.qs);
    *out = tv_q_bool(d, NULL, 0, cl, n, 0);
    return *out ? TROVE_OK : tv_error_oom(d->err);
}
