/*
 * profile.c — the query half of the Profile API ("profile": true): the tree
 * of Lucene queries OpenSearch's QueryProfiler reports for a rewritten
 * query AST, and the timers that fill each node's breakdown.
 *
 * The tree (tv_qprof_build) mirrors the weights Lucene creates through
 * IndexSearcher.createWeight, each a node with the query's class name
 * (Query.getClass().getSimpleName()) and its toString (to_string.c, in its
 * rewritten form): bool -> BooleanQuery over its clauses (must, must_not,
 * should, filter: BoolQueryBuilder's order), constant_score ->
 * ConstantScoreQuery over its inner query, a keyword term in a scoring
 * position -> ConstantScoreQuery over a TermQuery, a text term -> TermQuery,
 * a numeric term -> IndexOrDocValuesQuery (whose two halves are weighed
 * without the searcher, so no children), match_phrase -> PhraseQuery,
 * a dis_max of one query -> DisjunctionMaxQuery, match_all at the top ->
 * ApproximateScoreQuery (OpenSearch 3's approximation wrapper, which
 * weighs its resolved query directly), inside a query or when the request
 * has no query -> MatchAllDocsQuery. Every other node (and a boost, whose
 * BoostQuery OpenSearch would report) is refused with
 * unsupported_operation_exception naming the query: a profile never shows
 * a tree trove cannot vouch for.
 *
 * Timers: exec.c calls in here only when a plan context carries a profile
 * (one branch per node and segment; nothing per document when profiling
 * is off). create_weight is tv_query_prepare's time per node (children
 * included, as Lucene's createWeight recursion), build_scorer the time to
 * plan the node in a segment (once per segment), and every iterator a
 * profiled node plans is wrapped by a profiling iterator that times and
 * counts next_doc, advance, score, shallow_advance (block-max window),
 * compute_max_score (block-max bound) and set_min_competitive_score with
 * CLOCK_MONOTONIC around the call, as ProfileScorer does. The wrapper
 * hides the inner iterator's count and or_bits shortcuts, so a profiled
 * search iterates what it counts. "match" (two-phase confirmation) stays
 * 0: trove's phrase iterators confirm positions inside next_doc.
 *
 * Rejected: sampling timers (Lucene's profile times every call; the
 * numbers would not add up), and timing inside each iterator kind (every
 * kind would pay a branch per document when profiling is off).
 */
#include "query/parse.h"

static const char *const k_qt_names[TV_QT_COUNT] = {
    "create_weight", "build_scorer", "next_doc", "advance", "match",
    "score", "shallow_advance", "compute_max_score", "set_min_competitive_score",
};

const char *tv_qtiming_name(tv_qtiming t) { return t < TV_QT_COUNT ? k_qt_names[t] : ""; }

/* ------------------------------------------------------------ the tree */

typedef struct bctx {
    tv_arena *a;
    const tv_mapping *m;
    tv_error *err;
    TV_VEC(tv_qprof_node *) nodes;
} bctx;

static tv_qprof_node *new_node(bctx *c, const tv_query *q, const char *type, const char *desc) {
    tv_qprof_node *n = tv_arena_calloc(c->a, 1, sizeof *n);
    if (!n) return NULL;
    n->q = q;
    n->type = type;
    n->description = desc;
    if (q && tv_vec_push(&c->nodes, n)) return NULL;
    return n;
}

static tv_status refuse(bctx *c, const char *what) {
    return tv_error_set(c->err, TROVE_EUNSUPPORTED, "[profile] of a [%s] query is not supported by trove",
                        what ? what : "query");
}

static tv_status build(bctx *c, const tv_query *q, bool scoring, bool top, bool request_query, tv_qprof_node **out);

static tv_status add_kid(bctx *c, tv_qprof_node *p, const tv_query *q, bool scoring) {
    tv_qprof_node *k = NULL;
    tv_status st = build(c, q, scoring, false, true, &k);
    if (st) return st;
    tv_qprof_node **nk = tv_arena_alloc(c->a, (p->nkids + 1) * sizeof *nk);
    if (!nk) return tv_error_oom(c->err);
    if (p->nkids) memcpy(nk, p->kids, p->nkids * sizeof *nk);
    nk[p->nkids++] = k;
    p->kids = nk;
    return TROVE_OK;
}

static tv_status build(bctx *c, const tv_query *q, bool scoring, bool top, bool request_query, tv_qprof_node **out) {
    const char *desc = NULL, *bad = NULL;
    if (scoring && q->boost != 1.0f && q->kind != TV_Q_MATCH_NONE) return refuse(c, "boost");
    if (q->kind == TV_Q_MATCH_ALL) {
        /* the request's match_all at the top stays OpenSearch 3's
         * ApproximateScoreQuery; the match-all of a request without a
         * query (ParsedQuery.parsedMatchAllQuery) and one inside a query
         * are Lucene's MatchAllDocsQuery */
        if (top && request_query && q->origin) {
            if (tv_query_to_string_node(q, c->m, true, 0, c->a, &desc, &bad)) return bad ? refuse(c, bad) : tv_error_oom(c->err);
            *out = new_node(c, q, "ApproximateScoreQuery", desc);
        } else {
            *out = new_node(c, q, "MatchAllDocsQuery", "*:*");
        }
        return *out ? TROVE_OK : tv_error_oom(c->err);
    }
    if (tv_query_to_string_node(q, c->m, scoring, 1, c->a, &desc, &bad)) return bad ? refuse(c, bad) : tv_error_oom(c->err);
    const char *type = NULL;
    switch ((tv_qkind)q->kind) {
    case TV_Q_MATCH_NONE: type = "MatchNoDocsQuery"; break;
    case TV_Q_TERM:
        if (q->u.term.constant && scoring) {
            /* ConstantScore(f:v): the TermQuery inside is weighed through
             * the searcher, so it is a child, measured by a second wrapper
             * around the same iterator */
            tv_qprof_node *n = new_node(c, q, "ConstantScoreQuery", desc);
            if (!n) return tv_error_oom(c->err);
            const char *inner = NULL;
            if (tv_query_to_string_node(q, c->m, false, 1, c->a, &inner, &bad)) return bad ? refuse(c, bad) : tv_error_oom(c->err);
            tv_qprof_node *k = tv_arena_calloc(c->a, 1, sizeof *k);
            n->kids = tv_arena_alloc(c->a, sizeof *n->kids);
            if (!k || !n->kids) return tv_error_oom(c->err);
            k->type = "TermQuery";
            k->description = inner;
            n->kids[0] = k;
            n->nkids = 1;
            n->inner = k;
            *out = n;
            return TROVE_OK;
        }
        type = "TermQuery";
        break;
    case TV_Q_RANGE_NUM: type = "IndexOrDocValuesQuery"; break;
    case TV_Q_PHRASE: type = "PhraseQuery"; break;
    case TV_Q_TERM_SET: type = "TermInSetQuery"; break;
    case TV_Q_BOOL: {
        tv_qprof_node *n = new_node(c, q, "BooleanQuery", desc);
        if (!n) return tv_error_oom(c->err);
        tv_status st = TROVE_OK;
        for (uint32_t i = 0; !st && i < q->u.boolq.nmust; i++) st = add_kid(c, n, q->u.boolq.must[i], true);
        for (uint32_t i = 0; !st && i < q->u.boolq.nmust_not; i++) st = add_kid(c, n, q->u.boolq.must_not[i], false);
        for (uint32_t i = 0; !st && i < q->u.boolq.nshould; i++) st = add_kid(c, n, q->u.boolq.should[i], true);
        for (uint32_t i = 0; !st && i < q->u.boolq.nfilter; i++) st = add_kid(c, n, q->u.boolq.filter[i], false);
        *out = n;
        return st;
    }
    case TV_Q_CONST: {
        tv_qprof_node *n = new_node(c, q, "ConstantScoreQuery", desc);
        if (!n) return tv_error_oom(c->err);
        *out = n;
        return add_kid(c, n, q->u.cnst.inner, false);
    }
    case TV_Q_DISMAX: {
        tv_qprof_node *n = new_node(c, q, "DisjunctionMaxQuery", desc);
        if (!n) return tv_error_oom(c->err);
        *out = n;
        tv_status st = TROVE_OK;
        for (uint32_t i = 0; !st && i < q->u.dismax.nsubs; i++) st = add_kid(c, n, q->u.dismax.subs[i], scoring);
        return st;
    }
    default: return refuse(c, q->origin);
    }
    *out = new_node(c, q, type, desc);
    return *out ? TROVE_OK : tv_error_oom(c->err);
}

tv_status tv_qprof_build(const tv_query *q, bool request_query, const tv_mapping *m, tv_arena *a, tv_qprof *prof,
                         tv_error *err) {
    bctx c = {a, m, err, {0}};
    tv_qprof_node **roots = tv_arena_alloc(a, (prof->nroots + 1) * sizeof *roots);
    if (!roots) return tv_error_oom(err);
    if (prof->nroots) memcpy(roots, prof->roots, prof->nroots * sizeof *roots);
    /* keep the nodes found so far */
    for (size_t i = 0; i < prof->nnodes; i++)
        if (tv_vec_push(&c.nodes, prof->nodes[i])) { tv_vec_fini(&c.nodes); return tv_error_oom(err); }
    tv_qprof_node *root = NULL;
    tv_status st = build(&c, q, request_query, true, request_query, &root);
    if (!st) {
        roots[prof->nroots++] = root;
        prof->roots = roots;
        prof->nodes = tv_arena_alloc(a, (c.nodes.len + 1) * sizeof *prof->nodes);
        if (!prof->nodes) st = tv_error_oom(err);
        else {
            if (c.nodes.len) memcpy(prof->nodes, c.nodes.items, c.nodes.len * sizeof *prof->nodes);
            prof->nnodes = c.nodes.len;
        }
    }
    tv_vec_fini(&c.nodes);
    return st;
}

tv_qprof_node *tv_qprof_find(const tv_qprof *p, const tv_query *q) {
    for (size_t i = 0; i < p->nnodes; i++)
        if (p->nodes[i]->q == q) return p->nodes[i];
    return NULL;
}

uint64_t tv_qprof_node_time(const tv_qprof_node *n) {
    uint64_t t = 0;
    for (int i = 0; i < TV_QT_COUNT; i++) t += n->ns[i];
    return t;
}

/* ----------------------------------------------------- the wrapper */

typedef struct prof_it {
    tv_iter it;
    tv_iter *in;
    tv_qprof_node *n;
    tv_iter_vt vt; /* the inner's hooks that exist, each timed */
} prof_it;

#define PROF_CALL(p, kind, expr)                   \
    do {                                           \
        uint64_t t0_ = tv_mono_ns();               \
        expr;                                      \
        (p)->n->ns[kind] += tv_mono_ns() - t0_;    \
        (p)->n->count[kind]++;                     \
    } while (0)

static uint32_t p_next(tv_iter *it) {
    prof_it *p = (prof_it *)it;
    uint32_t d;
    PROF_CALL(p, TV_QT_NEXT_DOC, d = p->in->vt->next(p->in));
    it->doc = d;
    return d;
}

static uint32_t p_advance(tv_iter *it, uint32_t target) {
    prof_it *p = (prof_it *)it;
    uint32_t d;
    PROF_CALL(p, TV_QT_ADVANCE, d = p->in->vt->advance(p->in, target));
    it->doc = d;
    return d;
}

static float p_score(tv_iter *it) {
    prof_it *p = (prof_it *)it;
    float s;
    PROF_CALL(p, TV_QT_SCORE, s = p->in->vt->score(p->in));
    return s;
}

static uint32_t p_shallow(tv_iter *it, uint32_t target) {
    prof_it *p = (prof_it *)it;
    uint32_t d;
    PROF_CALL(p, TV_QT_SHALLOW_ADVANCE, d = p->in->vt->shallow(p->in, target));
    return d;
}

static float p_block_max(tv_iter *it, uint32_t upto) {
    prof_it *p = (prof_it *)it;
    float s;
    PROF_CALL(p, TV_QT_COMPUTE_MAX_SCORE, s = p->in->vt->block_max(p->in, upto));
    return s;
}

static void p_set_min(tv_iter *it, float min) {
    prof_it *p = (prof_it *)it;
    PROF_CALL(p, TV_QT_SET_MIN_COMPETITIVE_SCORE, p->in->vt->set_min_score(p->in, min));
    it->doc = p->in->doc;
}

tv_iter *tv_qprof_wrap(tv_qprof_node *n, tv_iter *in, tv_arena *a) {
    prof_it *p = tv_arena_calloc(a, 1, sizeof *p);
    if (!p) return NULL;
    p->in = in;
    p->n = n;
    p->vt.next = p_next;
    p->vt.advance = p_advance;
    p->vt.score = p_score;
    p->vt.shallow = in->vt->shallow ? p_shallow : NULL;
    p->vt.block_max = in->vt->block_max ? p_block_max : NULL;
    p->vt.set_min_score = in->vt->set_min_score ? p_set_min : NULL;
    p->vt.count = NULL;
    p->vt.or_bits = NULL;
    p->it.vt = &p->vt;
    p->it.doc = in->doc;
    p->it.cost = in->cost;
    p->it.max_score = in->max_score;
    return &p->it;
}
