/*
 * rewrite.c — Lucene's query rewriting (IndexSearcher.rewrite) over the
 * AST, between parsing and statistics.
 *
 * Why: Lucene rewrites a BooleanQuery until nothing changes, and some of
 * its rules change how scores are added up, not only which documents
 * match. Flattening a nested pure disjunction turns (float)(a + (float)(b +
 * c)) into (float)(a + b + c); inlining a required bool without SHOULD
 * clauses does the same for conjunctions; SHOULD clauses as many as
 * minimum_should_match become MUST clauses. A _score equal to OpenSearch's
 * to the bit needs the same tree, so the rules that shape it are replayed
 * here, in BooleanQuery.rewrite's order, one rule per step, the whole tree
 * stepped until a fixpoint:
 *
 *   bool      no clause / only MUST_NOT -> match_none; one clause (msm 0,
 *             or msm 1 on a SHOULD) -> the clause (a FILTER one as
 *             constant_score with boost 0); clauses rewritten one step,
 *             match_none SHOULD / MUST_NOT clauses dropped, a match_none
 *             MUST / FILTER clause makes the bool match_none; a match_all
 *             MUST_NOT -> match_none; match_all FILTER clauses dropped when
 *             other required clauses exist; nested pure disjunctions in
 *             SHOULD flattened (msm <= 1); required bools without SHOULD
 *             clauses and msm 0 inlined (their MUST become FILTER under a
 *             FILTER); fewer SHOULD clauses than msm -> match_none, as many
 *             -> all MUST; the SHOULD clauses of a lone pure-SHOULD MUST
 *             clause inlined with msm max(1, inner msm)
 *   dis_max   none -> match_none; one -> that one; tie_breaker 1 -> bool of
 *             SHOULD clauses; else subs rewritten one step
 *   constant_score  inner rewritten; match_none inner -> match_none
 *   boosting  positive and negative rewritten (a match_none positive stays
 *             a boosting query: FunctionScoreQuery does not collapse)
 * A bool (or dis_max) with a boost is Lucene's BoostQuery around it: rules
 * that look into a clause's class (flattening, inlining) do not see
 * through it, and a clause that replaces a boosted node takes the product
 * of the boosts (BoostQuery.rewrite).
 *
 * Not replayed (they change neither matches nor score arithmetic for the
 * trees trove builds, or need query equality trove does not compute):
 * deduplication of equal clauses (their boosts summed), FILTER clauses that
 * are also MUST / SHOULD clauses, a MUST match_all beside filters turned
 * into a constant_score. Per-segment simplifications (a SHOULD clause
 * without matches in a segment) are BooleanWeight's and live in exec.c.
 *
 * Rejected: rewriting while parsing (the parser mirrors OpenSearch's
 * builders, which build the unrewritten Lucene query; one place for
 * Lucene's rules keeps both readable).
 */
#include "query/query.h"

/* memcpy of n pointers; src may be NULL when n is 0 (empty clause lists). */
static void cpy(tv_query **dst, tv_query *const *src, size_t n) {
    if (n) memcpy(dst, src, n * sizeof *dst);
}

static tv_query *dup_node(tv_arena *a, const tv_query *q) {
    tv_query *n = tv_arena_alloc(a, sizeof *n);
    if (n) *n = *q;
    return n;
}

static tv_query *new_node(tv_arena *a, tv_qkind kind) {
    tv_query *n = tv_arena_calloc(a, 1, sizeof *n);
    if (n) {
        n->kind = (uint8_t)kind;
        n->boost = 1.0f;
    }
    return n;
}

/* child takes the place of a node whose boost was `boost`. */
static tv_query *with_boost(tv_arena *a, tv_query *child, float boost) {
    if (boost == 1.0f) return child;
    tv_query *n = dup_node(a, child);
    if (n) n->boost = boost * child->boost;
    return n;
}

static bool plain_bool(const tv_query *q) { return q->kind == TV_Q_BOOL && q->boost == 1.0f; }

static bool pure_disjunction(const tv_query *q) {
    return plain_bool(q) && q->u.boolq.nmust == 0 && q->u.boolq.nfilter == 0 &&
           q->u.boolq.nmust_not == 0 && q->u.boolq.nshould > 0 && q->u.boolq.msm <= 1;
}

/* A growable list of clauses in the arena (bounded by the sum of inputs). */
typedef struct clist {
    tv_query **v;
    uint32_t n;
} clist;

static bool cl_init(tv_arena *a, clist *c, size_t cap) {
    c->n = 0;
    c->v = tv_arena_alloc(a, (cap ? cap : 1) * sizeof *c->v);
    return c->v != NULL;
}

typedef struct bparts {
    clist must, should, must_not, filter;
} bparts;

static bool parts_init(tv_arena *a, bparts *p, size_t cap) {
    return cl_init(a, &p->must, cap) && cl_init(a, &p->should, cap) && cl_init(a, &p->must_not, cap) &&
           cl_init(a, &p->filter, cap);
}

static tv_query *parts_bool(tv_arena *a, const tv_query *proto, const bparts *p, int32_t msm) {
    tv_query *n = dup_node(a, proto);
    if (!n) return NULL;
    n->u.boolq.must = p->must.v;
    n->u.boolq.nmust = p->must.n;
    n->u.boolq.should = p->should.v;
    n->u.boolq.nshould = p->should.n;
    n->u.boolq.must_not = p->must_not.v;
    n->u.boolq.nmust_not = p->must_not.n;
    n->u.boolq.filter = p->filter.v;
    n->u.boolq.nfilter = p->filter.n;
    n->u.boolq.msm = msm;
    return n;
}

static tv_status step(tv_query *q, tv_arena *a, tv_query **out);

static size_t bool_size(const tv_query *q) {
    return (size_t)q->u.boolq.nmust + q->u.boolq.nshould + q->u.boolq.nmust_not + q->u.boolq.nfilter;
}

static tv_status step_bool(tv_query *q, tv_arena *a, tv_query **out) {
    *out = q;
    uint32_t nm = q->u.boolq.nmust, ns = q->u.boolq.nshould, nn = q->u.boolq.nmust_not,
             nf = q->u.boolq.nfilter;
    int32_t msm = q->u.boolq.msm;
    size_t n = bool_size(q);
    size_t cap = n;
    /* empty, or only prohibited clauses: no matches */
    if (n == 0 || n == nn) {
        *out = new_node(a, TV_Q_MATCH_NONE);
        return *out ? TROVE_OK : TROVE_ENOMEM;
    }
    /* one clause */
    if (n == 1 && ((msm == 1 && ns == 1) || msm == 0)) {
        if (ns) *out = with_boost(a, q->u.boolq.should[0], q->boost);
        else if (nm) *out = with_boost(a, q->u.boolq.must[0], q->boost);
        else {
            tv_query *c = new_node(a, TV_Q_CONST);
            if (c) {
                c->u.cnst.inner = q->u.boolq.filter[0];
                c->boost = 0.0f; /* no scoring clause: a score of 0 */
            }
            *out = c;
        }
        return *out ? TROVE_OK : TROVE_ENOMEM;
    }
    /* rewrite the clauses one step; match_none clauses */
    {
        bparts p;
        if (!parts_init(a, &p, cap)) return TROVE_ENOMEM;
        bool changed = false;
        tv_status st;
        struct { tv_query **src; uint32_t n; clist *dst; bool required, scoring; } lists[4] = {
            {q->u.boolq.must, nm, &p.must, true, true},
            {q->u.boolq.must_not, nn, &p.must_not, false, false},
            {q->u.boolq.should, ns, &p.should, false, true},
            {q->u.boolq.filter, nf, &p.filter, true, false},
        };
        for (int l = 0; l < 4; l++) {
            for (uint32_t i = 0; i < lists[l].n; i++) {
                tv_query *c = lists[l].src[i], *r;
                if ((st = step(c, a, &r))) return st;
                /* FILTER and MUST_NOT clauses are rewritten as
                 * ConstantScoreQuery(clause), whose wrapper is dropped */
                if (!lists[l].scoring && r->kind == TV_Q_CONST) {
                    r = r->u.cnst.inner;
                }
                if (r != c || c->kind == TV_Q_MATCH_NONE) changed = true;
                if (r->kind == TV_Q_MATCH_NONE) {
                    if (lists[l].required) {
                        *out = r == c ? new_node(a, TV_Q_MATCH_NONE) : r;
                        return *out ? TROVE_OK : TROVE_ENOMEM;
                    }
                    continue; /* SHOULD / MUST_NOT: ignored */
                }
                lists[l].dst->v[lists[l].dst->n++] = r;
            }
        }
        if (changed) {
            *out = parts_bool(a, q, &p, msm);
            return *out ? TROVE_OK : TROVE_ENOMEM;
        }
    }
    /* a MUST_NOT match_all excludes everything */
    for (uint32_t i = 0; i < nn; i++) {
        if (q->u.boolq.must_not[i]->kind == TV_Q_MATCH_ALL) {
            *out = new_node(a, TV_Q_MATCH_NONE);
            return *out ? TROVE_OK : TROVE_ENOMEM;
        }
    }
    /* FILTER clauses that match all documents */
    if (nf > 1 || nm > 0) {
        for (uint32_t i = 0; i < nf; i++) {
            if (q->u.boolq.filter[i]->kind != TV_Q_MATCH_ALL) continue;
            bparts p;
            if (!parts_init(a, &p, cap)) return TROVE_ENOMEM;
            cpy(p.must.v, q->u.boolq.must, nm);
            p.must.n = nm;
            cpy(p.should.v, q->u.boolq.should, ns);
            p.should.n = ns;
            cpy(p.must_not.v, q->u.boolq.must_not, nn);
            p.must_not.n = nn;
            for (uint32_t j = 0; j < nf; j++)
                if (j != i) p.filter.v[p.filter.n++] = q->u.boolq.filter[j];
            *out = parts_bool(a, q, &p, msm);
            return *out ? TROVE_OK : TROVE_ENOMEM;
        }
    }
    /* flatten nested pure disjunctions */
    if (msm <= 1) {
        size_t extra = 0;
        bool any = false;
        for (uint32_t i = 0; i < ns; i++) {
            if (pure_disjunction(q->u.boolq.should[i])) {
                any = true;
                extra += q->u.boolq.should[i]->u.boolq.nshould;
            }
        }
        if (any) {
            bparts p;
            if (!parts_init(a, &p, cap + extra)) return TROVE_ENOMEM;
            cpy(p.must.v, q->u.boolq.must, nm);
            p.must.n = nm;
            cpy(p.must_not.v, q->u.boolq.must_not, nn);
            p.must_not.n = nn;
            cpy(p.filter.v, q->u.boolq.filter, nf);
            p.filter.n = nf;
            for (uint32_t i = 0; i < ns; i++) {
                tv_query *c = q->u.boolq.should[i];
                if (pure_disjunction(c)) {
                    for (uint32_t j = 0; j < c->u.boolq.nshould; j++) p.should.v[p.should.n++] = c->u.boolq.should[j];
                } else {
                    p.should.v[p.should.n++] = c;
                }
            }
            *out = parts_bool(a, q, &p, msm);
            return *out ? TROVE_OK : TROVE_ENOMEM;
        }
    }
    /* inline required bools that have no SHOULD clause */
    {
        size_t extra = 0;
        bool any = false;
        for (int l = 0; l < 2; l++) {
            tv_query **src = l ? q->u.boolq.filter : q->u.boolq.must;
            uint32_t cnt = l ? nf : nm;
            for (uint32_t i = 0; i < cnt; i++) {
                tv_query *c = src[i];
                if (plain_bool(c) && c->u.boolq.msm == 0 && c->u.boolq.nshould == 0) {
                    any = true;
                    extra += bool_size(c);
                }
            }
        }
        if (any) {
            bparts p;
            if (!parts_init(a, &p, cap + extra)) return TROVE_ENOMEM;
            cpy(p.should.v, q->u.boolq.should, ns);
            p.should.n = ns;
            cpy(p.must_not.v, q->u.boolq.must_not, nn);
            p.must_not.n = nn;
            for (int l = 0; l < 2; l++) {
                tv_query **src = l ? q->u.boolq.filter : q->u.boolq.must;
                uint32_t cnt = l ? nf : nm;
                clist *dst = l ? &p.filter : &p.must;
                for (uint32_t i = 0; i < cnt; i++) {
                    tv_query *c = src[i];
                    if (!(plain_bool(c) && c->u.boolq.msm == 0 && c->u.boolq.nshould == 0)) {
                        dst->v[dst->n++] = c;
                        continue;
                    }
                    for (uint32_t j = 0; j < c->u.boolq.nmust; j++) dst->v[dst->n++] = c->u.boolq.must[j];
                    for (uint32_t j = 0; j < c->u.boolq.nfilter; j++) p.filter.v[p.filter.n++] = c->u.boolq.filter[j];
                    for (uint32_t j = 0; j < c->u.boolq.nmust_not; j++) p.must_not.v[p.must_not.n++] = c->u.boolq.must_not[j];
                }
            }
            *out = parts_bool(a, q, &p, msm);
            return *out ? TROVE_OK : TROVE_ENOMEM;
        }
    }
    /* SHOULD clause count versus minimum_should_match */
    if ((int32_t)ns < msm) {
        *out = new_node(a, TV_Q_MATCH_NONE);
        return *out ? TROVE_OK : TROVE_ENOMEM;
    }
    if (ns > 0 && (int32_t)ns == msm) {
        bparts p;
        if (!parts_init(a, &p, cap)) return TROVE_ENOMEM;
        cpy(p.must.v, q->u.boolq.must, nm);
        cpy(p.must.v + nm, q->u.boolq.should, ns);
        p.must.n = nm + ns;
        cpy(p.must_not.v, q->u.boolq.must_not, nn);
        p.must_not.n = nn;
        cpy(p.filter.v, q->u.boolq.filter, nf);
        p.filter.n = nf;
        *out = parts_bool(a, q, &p, 0);
        return *out ? TROVE_OK : TROVE_ENOMEM;
    }
    /* the SHOULD clauses of the only MUST clause */
    if (ns == 0 && nm == 1 && plain_bool(q->u.boolq.must[0])) {
        tv_query *in = q->u.boolq.must[0];
        if (in->u.boolq.nshould > 0 && bool_size(in) == in->u.boolq.nshould) {
            bparts p;
            if (!parts_init(a, &p, cap + in->u.boolq.nshould)) return TROVE_ENOMEM;
            cpy(p.must_not.v, q->u.boolq.must_not, nn);
            p.must_not.n = nn;
            cpy(p.filter.v, q->u.boolq.filter, nf);
            p.filter.n = nf;
            cpy(p.should.v, in->u.boolq.should, in->u.boolq.nshould);
            p.should.n = in->u.boolq.nshould;
            *out = parts_bool(a, q, &p, in->u.boolq.msm > 1 ? in->u.boolq.msm : 1);
            return *out ? TROVE_OK : TROVE_ENOMEM;
        }
    }
    return TROVE_OK;
}

static tv_status step(tv_query *q, tv_arena *a, tv_query **out) {
    *out = q;
    tv_status st;
    switch ((tv_qkind)q->kind) {
    case TV_Q_BOOL:
        return step_bool(q, a, out);
    case TV_Q_DISMAX: {
        uint32_t n = q->u.dismax.nsubs;
        if (n == 0) {
            *out = new_node(a, TV_Q_MATCH_NONE);
            return *out ? TROVE_OK : TROVE_ENOMEM;
        }
        if (n == 1) {
            *out = with_boost(a, q->u.dismax.subs[0], q->boost);
            return *out ? TROVE_OK : TROVE_ENOMEM;
        }
        if (q->u.dismax.tie_breaker == 1.0f) {
            tv_query *b = new_node(a, TV_Q_BOOL);
            if (!b) return TROVE_ENOMEM;
            b->boost = q->boost;
            b->u.boolq.should = q->u.dismax.subs;
            b->u.boolq.nshould = n;
            *out = b;
            return TROVE_OK;
        }
        tv_query **subs = NULL;
        for (uint32_t i = 0; i < n; i++) {
            tv_query *r;
            if ((st = step(q->u.dismax.subs[i], a, &r))) return st;
            if (r == q->u.dismax.subs[i]) continue;
            if (!subs) {
                subs = tv_arena_alloc(a, n * sizeof *subs);
                if (!subs) return TROVE_ENOMEM;
                cpy(subs, q->u.dismax.subs, n);
            }
            subs[i] = r;
        }
        if (subs) {
            tv_query *d = dup_node(a, q);
            if (!d) return TROVE_ENOMEM;
            d->u.dismax.subs = subs;
            *out = d;
        }
        return TROVE_OK;
    }
    case TV_Q_CONST: {
        tv_query *r;
        if ((st = step(q->u.cnst.inner, a, &r))) return st;
        if (r->kind == TV_Q_MATCH_NONE) {
            *out = r == q->u.cnst.inner ? new_node(a, TV_Q_MATCH_NONE) : r;
            return *out ? TROVE_OK : TROVE_ENOMEM;
        }
        if (r != q->u.cnst.inner) {
            tv_query *d = dup_node(a, q);
            if (!d) return TROVE_ENOMEM;
            d->u.cnst.inner = r;
            *out = d;
        }
        return TROVE_OK;
    }
    case TV_Q_BOOSTING: {
        tv_query *p, *n;
        if ((st = step(q->u.boosting.positive, a, &p))) return st;
        if ((st = step(q->u.boosting.negative, a, &n))) return st;
        if (p != q->u.boosting.positive || n != q->u.boosting.negative) {
            tv_query *d = dup_node(a, q);
            if (!d) return TROVE_ENOMEM;
            d->u.boosting.positive = p;
            d->u.boosting.negative = n;
            *out = d;
        }
        return TROVE_OK;
    }
    default:
        return TROVE_OK;
    }
}

tv_status tv_query_rewrite(tv_query **q, tv_arena *arena) {
    /* every step strictly simplifies; the bound only guards a bug */
    for (int guard = 0; guard < 100000; guard++) {
        tv_query *r;
        tv_status st = step(*q, arena, &r);
        if (st) return st;
        if (r == *q) return TROVE_OK;
        *q = r;
    }
    return TROVE_OK;
}

/* ------------------------------------------------------- clause limits */

/*
 * indices.query.bool.max_clause_count (Lucene's IndexSearcher
 * maxClauseCount, 1024 by default), at the two places Lucene checks it:
 *
 *  - BooleanQuery.Builder.add refuses a clause past the limit: in
 *    OpenSearch that happens while toQuery builds the query (a bool, or a
 *    match query's terms), so QueryShardContext wraps the TooManyClauses
 *    in a query_shard_exception (400).
 *  - IndexSearcher.rewrite visits the rewritten tree and throws
 *    TooManyNestedClauses when it meets a leaf with more than the limit
 *    already counted (so up to limit + 1 leaves pass): a search-phase
 *    failure that OpenSearch 3.1 answers with a 500.
 *
 * A leaf is what Lucene's visitor counts: a term, a phrase, a terms set, a
 * multi-term query, a range, exists, match_all; an extension (nested,
 * function_score, query_string's wrapper) counts as one. Bools, dis_max,
 * constant_score and boosting count their children.
 */
static bool bool_too_wide(const tv_query *q, int64_t max) {
    switch (q->kind) {
    case TV_Q_BOOL: {
        const tv_query *const *lists[4] = {(const tv_query *const *)q->u.boolq.must,
                                           (const tv_query *const *)q->u.boolq.should,
                                           (const tv_query *const *)q->u.boolq.must_not,
                                           (const tv_query *const *)q->u.boolq.filter};
        uint32_t ns[4] = {q->u.boolq.nmust, q->u.boolq.nshould, q->u.boolq.nmust_not, q->u.boolq.nfilter};
        if ((int64_t)ns[0] + ns[1] + ns[2] + ns[3] > max) return true;
        for (int l = 0; l < 4; l++)
            for (uint32_t i = 0; i < ns[l]; i++)
                if (bool_too_wide(lists[l][i], max)) return true;
        return false;
    }
    case TV_Q_DISMAX:
        for (uint32_t i = 0; i < q->u.dismax.nsubs; i++)
            if (bool_too_wide(q->u.dismax.subs[i], max)) return true;
        return false;
    case TV_Q_CONST: return q->u.cnst.inner && bool_too_wide(q->u.cnst.inner, max);
    case TV_Q_BOOSTING:
        return bool_too_wide(q->u.boosting.positive, max) || bool_too_wide(q->u.boosting.negative, max);
    default: return false;
    }
}

static uint64_t leaves(const tv_query *q) {
    uint64_t n = 0;
    switch (q->kind) {
    case TV_Q_BOOL:
        for (uint32_t i = 0; i < q->u.boolq.nmust; i++) n += leaves(q->u.boolq.must[i]);
        for (uint32_t i = 0; i < q->u.boolq.nshould; i++) n += leaves(q->u.boolq.should[i]);
        for (uint32_t i = 0; i < q->u.boolq.nmust_not; i++) n += leaves(q->u.boolq.must_not[i]);
        for (uint32_t i = 0; i < q->u.boolq.nfilter; i++) n += leaves(q->u.boolq.filter[i]);
        return n;
    case TV_Q_DISMAX:
        for (uint32_t i = 0; i < q->u.dismax.nsubs; i++) n += leaves(q->u.dismax.subs[i]);
        return n;
    case TV_Q_CONST: return q->u.cnst.inner ? leaves(q->u.cnst.inner) : 1;
    case TV_Q_BOOSTING: return leaves(q->u.boosting.positive) + leaves(q->u.boosting.negative);
    case TV_Q_MATCH_NONE: return 0; /* MatchNoDocsQuery visits nothing */
    default: return 1;
    }
}

tv_status tv_query_check_bool_clauses(const tv_query *q, int64_t max, tv_error *err) {
    if (max <= 0) max = TV_MAX_CLAUSE_COUNT;
    if (!q || !bool_too_wide(q, max)) return TROVE_OK;
    tv_error_set(err, TROVE_EQUERYSHARD, "failed to create query: maxClauseCount is set to %lld", (long long)max);
    return tv_error_cause(err, TROVE_ETOOMANYCLAUSES, "maxClauseCount is set to %lld", (long long)max);
}

tv_status tv_query_check_nested_clauses(const tv_query *q, int64_t max, tv_error *err) {
    if (max <= 0) max = TV_MAX_CLAUSE_COUNT;
    if (!q || leaves(q) <= (uint64_t)max + 1) return TROVE_OK;
    return tv_error_set(err, TROVE_ETOOMANYNESTED, "Query contains too many nested clauses; maxClauseCount is set to %lld",
                        (long long)max);
}
