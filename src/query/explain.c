/*
 * explain.c — Lucene's score explanations (Weight.explain) for one document
 * of a rewritten, prepared query: what OpenSearch prints as a hit's
 * "_explanation" (explain: true) and as the body of the _explain API.
 *
 * The tree is built node by node as Lucene 10 builds it, for the weights
 * OpenSearch 3.1 creates from the query kinds trove has:
 *
 *   term         TermWeight.explain: "weight(f:t in D) [PerFieldSimilarity],
 *                result of:" over BM25Scorer.explain ("score(freq=F),
 *                computed as boost * idf * tf from:" with an optional
 *                "boost", "idf, computed as log(1 + (N - n + 0.5) / (n +
 *                0.5)) from:" with n and N as longs, and "tf, computed as
 *                freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:" with
 *                freq, k1, b, dl ("(approximate)" when the norm byte is
 *                above 39) and avgdl); "no matching term" otherwise
 *   phrase       PhraseWeight.explain: the same with "phraseFreq=F" and
 *                "idf, sum of:" over the terms' idfs; "no matching terms"
 *                when a term is missing from the doc, "no matching phrase"
 *                when all are there but not in order
 *   bool         BooleanWeight.explain: clauses in OpenSearch's builder
 *                order (must, must_not, should, filter); scoring clauses
 *                as they are, a matching filter as "match on required
 *                clause, product of:" [0 "# clause", e], a matching
 *                must_not as "match on prohibited clause (q)", a missing
 *                required clause as "no match on required clause (q)";
 *                then "Failure to meet condition(s) of required/prohibited
 *                clause(s)", "No matching clauses", "Failure to match
 *                minimum number of optional clauses: N" or "sum of:"
 *   dis_max      DisjunctionMaxWeight.explain: "max of:" or "max plus T
 *                times others of:" over the matching subs; "No matching
 *                clause" over the non-matching ones. Subs in the query's
 *                order: Lucene iterates its disjuncts' Multiset, whose hash
 *                order depends on the JVM's per-process BytesRef hash seed,
 *                so no order is OpenSearch's for every run
 *   constant_score, match_all   ConstantScoreWeight.explain: the query's
 *                toString, "^score" when the score is not 1; "<q> doesn't
 *                match id D" otherwise
 *   non-scoring clauses (filter, must_not) are weights created without
 *                scores, which IndexSearcher.createWeight wraps in the query
 *                cache's CachingWrapperWeight: a ConstantScoreWeight of score
 *                1 whose explanation is the clause's toString (value 1.0)
 *   boosts       BoostQuery has no weight of its own: the boost reaches the
 *                leaves' BM25 ("boost" detail) and constant scores; it shows
 *                in toString as "(q)^B" where the boosted query is a clause
 *
 * Values equal the scores to the bit: leaves use bm25.c's arithmetic on the
 * same (freq, norm) the scorers read, and compound nodes (bool, dis_max)
 * take the score of their own iterator planned on the segment and advanced
 * to the doc — what Lucene's BooleanWeight.explain does with its scorer.
 * Descriptions carry the segment-local doc id, as Lucene's (IndexSearcher
 * .explain subtracts the leaf's docBase before Weight.explain).
 *
 * Kinds whose Lucene tree trove does not reproduce exactly (ranges, terms
 * sets, multi-term queries, exists, boosting, match_none, constant-score
 * terms, multi-term phrase positions, compound queries in a filter context)
 * are refused by tv_explain_check with unsupported_operation_exception,
 * never answered with an approximate tree.
 *
 * Rejected: re-deriving compound values from the children's explanation
 * values (Lucene warns that ReqOptSumScorer's float casts make that differ
 * from the score; the iterator gives the score itself); explaining in the
 * collector (explanations are built for the page's hits only, after the
 * search, as OpenSearch's fetch sub-phase does).
 */
#include <math.h>
#include <stdio.h>

#include "query/query.h"

struct tv_expl {
    float value;
    int64_t lvalue;
    bool is_long; /* the value is a Java long (n, N) */
    bool match;
    const char *desc;
    const tv_expl **details;
    uint32_t n;
};

typedef struct ectx {
    tv_arena *a;
    const tv_snapshot *snap;
    const tv_segview *sv;
    uint32_t doc; /* segment-local */
    tv_status st; /* sticky */
} ectx;

/* ------------------------------------------------------------ the nodes */

static tv_expl *node(ectx *x, bool match, float value, const char *desc) {
    tv_expl *e = tv_arena_calloc(x->a, 1, sizeof *e);
    if (!e || !desc) {
        x->st = TROVE_ENOMEM;
        return NULL;
    }
    e->match = match;
    e->value = match ? value : 0.0f;
    e->desc = desc;
    return e;
}

static void add(ectx *x, tv_expl *p, const tv_expl *c) {
    if (!p || !c) {
        x->st = TROVE_ENOMEM;
        return;
    }
    const tv_expl **d = tv_arena_alloc(x->a, (p->n + 1) * sizeof *d);
    if (!d) {
        x->st = TROVE_ENOMEM;
        return;
    }
    if (p->n) memcpy(d, p->details, p->n * sizeof *d);
    d[p->n++] = c;
    p->details = d;
}

static tv_expl *lnode(ectx *x, int64_t v, const char *desc) {
    tv_expl *e = node(x, true, 0, desc);
    if (e) {
        e->is_long = true;
        e->lvalue = v;
    }
    return e;
}

/* Float.toString */
static const char *jf(ectx *x, float v) {
    char b[40];
    tv_fmt_float(v, b);
    return tv_arena_strndup(x->a, b, strlen(b));
}

/* -------------------------------------------------------------- toString */

static void qstr(tv_buf *b, const tv_query *q, bool with_boost);

static void qstr_clause(tv_buf *b, const tv_query *c, bool boost) {
    /* BooleanQuery / DisjunctionMaxQuery wrap sub-bools in parens (a
     * boosted one is a BoostQuery, which brings its own) */
    bool paren = c->kind == TV_Q_BOOL && !(boost && c->boost != 1.0f);
    if (paren) tv_buf_putc(b, '(');
    qstr(b, c, boost);
    if (paren) tv_buf_putc(b, ')');
}

static void qstr_inner(tv_buf *b, const tv_query *q) {
    switch ((tv_qkind)q->kind) {
    case TV_Q_MATCH_ALL:
        tv_buf_puts(b, "*:*");
        break;
    case TV_Q_TERM:
        tv_buf_append(b, q->field->path, q->field->path_len);
        tv_buf_putc(b, ':');
        tv_buf_append(b, q->u.term.term, q->u.term.len);
        break;
    case TV_Q_PHRASE: {
        /* PhraseQuery.toString: one piece per position, "?" for holes */
        tv_buf_append(b, q->field->path, q->field->path_len);
        tv_buf_puts(b, ":\"");
        uint32_t maxp = 0;
        for (uint32_t i = 0; i < q->u.phrase.nterms; i++)
            if (q->u.phrase.terms[i].pos > maxp) maxp = q->u.phrase.terms[i].pos;
        for (uint32_t p = 0; p <= maxp; p++) {
            if (p) tv_buf_putc(b, ' ');
            bool any = false;
            for (uint32_t i = 0; i < q->u.phrase.nterms; i++) {
                const tv_qterm *t = &q->u.phrase.terms[i];
                if (t->pos != p) continue;
                if (any) tv_buf_putc(b, '|');
                tv_buf_append(b, t->term, t->len);
                any = true;
            }
            if (!any) tv_buf_putc(b, '?');
        }
        tv_buf_putc(b, '"');
        if (q->u.phrase.slop) tv_buf_printf(b, "~%u", q->u.phrase.slop);
        break;
    }
    case TV_Q_CONST:
        tv_buf_puts(b, "ConstantScore(");
        qstr(b, q->u.cnst.inner, false); /* ConstantScoreQuery.rewrite drops inner boosts */
        tv_buf_putc(b, ')');
        break;
    case TV_Q_BOOL: {
        /* BooleanQuery.toString: "+" MUST, "-" MUST_NOT, "" SHOULD, "#"
         * FILTER, in the builder's order; filter and must_not clauses lost
         * their boosts in BooleanQuery.rewrite */
        int32_t msm = q->u.boolq.msm;
        if (msm > 0) tv_buf_putc(b, '(');
        bool first = true;
        struct { tv_query **c; uint32_t n; char occ; bool boost; } g[4] = {
            {q->u.boolq.must, q->u.boolq.nmust, '+', true},
            {q->u.boolq.must_not, q->u.boolq.nmust_not, '-', false},
            {q->u.boolq.should, q->u.boolq.nshould, 0, true},
            {q->u.boolq.filter, q->u.boolq.nfilter, '#', false},
        };
        for (int k = 0; k < 4; k++)
            for (uint32_t i = 0; i < g[k].n; i++) {
                if (!first) tv_buf_putc(b, ' ');
                first = false;
                if (g[k].occ) tv_buf_putc(b, g[k].occ);
                qstr_clause(b, g[k].c[i], g[k].boost);
            }
        if (msm > 0) tv_buf_printf(b, ")~%d", msm);
        break;
    }
    case TV_Q_DISMAX: {
        tv_buf_putc(b, '(');
        for (uint32_t i = 0; i < q->u.dismax.nsubs; i++) {
            if (i) tv_buf_puts(b, " | ");
            qstr_clause(b, q->u.dismax.subs[i], true);
        }
        tv_buf_putc(b, ')');
        if (q->u.dismax.tie_breaker != 0.0f) {
            char f[40];
            tv_fmt_float(q->u.dismax.tie_breaker, f);
            tv_buf_printf(b, "~%s", f);
        }
        break;
    }
    default:
        break; /* refused by tv_explain_check */
    }
}

/* Query.toString(""), with BoostQuery's "(q)^B" when with_boost. */
static void qstr(tv_buf *b, const tv_query *q, bool with_boost) {
    if (with_boost && q->boost != 1.0f) {
        char f[40];
        tv_fmt_float(q->boost, f);
        tv_buf_putc(b, '(');
        qstr_inner(b, q);
        tv_buf_printf(b, ")^%s", f);
        return;
    }
    qstr_inner(b, q);
}

static const char *qs(ectx *x, const tv_query *q, bool with_boost, const char *prefix, const char *suffix) {
    tv_buf b;
    tv_buf_init(&b);
    if (prefix) tv_buf_puts(&b, prefix);
    qstr(&b, q, with_boost);
    if (suffix) tv_buf_puts(&b, suffix);
    char *s = b.oom ? NULL : tv_arena_strndup(x->a, b.data ? b.data : "", b.len);
    tv_buf_fini(&b);
    if (!s) x->st = TROVE_ENOMEM;
    return s;
}

/* ----------------------------------------------------------- the checks */

static const char *kind_name(const tv_query *q) {
    switch ((tv_qkind)q->kind) {
    case TV_Q_MATCH_ALL: return "match_all";
    case TV_Q_MATCH_NONE: return "match_none";
    case TV_Q_TERM: return "term";
    case TV_Q_PHRASE: return "match_phrase";
    case TV_Q_BOOL: return "bool";
    case TV_Q_DISMAX: return "dis_max";
    case TV_Q_CONST: return "constant_score";
    case TV_Q_BOOSTING: return "boosting";
    case TV_Q_TERM_SET: return "terms";
    case TV_Q_MULTI_TERM: return "multi_term";
    case TV_Q_RANGE_NUM:
    case TV_Q_RANGE_TERM: return "range";
    case TV_Q_EXISTS: return "exists";
    case TV_Q_PHRASE_PREFIX: return "match_phrase_prefix";
    case TV_Q_EXT: return q->origin ? q->origin : "span";
    }
    return "unknown";
}

static bool leaf_ok(const tv_query *q) {
    switch ((tv_qkind)q->kind) {
    case TV_Q_MATCH_ALL:
        return true;
    case TV_Q_TERM:
        return q->field && !q->u.term.constant && q->field_id != TV_FIELD_ID;
    case TV_Q_PHRASE:
        if (!q->field || q->u.phrase.nterms < 2) return false;
        for (uint32_t i = 1; i < q->u.phrase.nterms; i++)
            if (q->u.phrase.terms[i].pos <= q->u.phrase.terms[i - 1].pos) return false; /* MultiPhraseQuery */
        return true;
    default:
        return false;
    }
}

/* The first node (pre-order) whose explanation trove cannot give. */
static const tv_query *unsupported(const tv_query *q, bool scoring) {
    if (leaf_ok(q)) return NULL;
    if (!scoring) return q; /* a compound filter: rewriteNoScoring's shapes */
    const tv_query *u = NULL;
    switch ((tv_qkind)q->kind) {
    case TV_Q_BOOL:
        for (uint32_t i = 0; !u && i < q->u.boolq.nmust; i++) u = unsupported(q->u.boolq.must[i], true);
        for (uint32_t i = 0; !u && i < q->u.boolq.nmust_not; i++) u = unsupported(q->u.boolq.must_not[i], false);
        for (uint32_t i = 0; !u && i < q->u.boolq.nshould; i++) u = unsupported(q->u.boolq.should[i], true);
        for (uint32_t i = 0; !u && i < q->u.boolq.nfilter; i++) u = unsupported(q->u.boolq.filter[i], false);
        return u;
    case TV_Q_DISMAX:
        for (uint32_t i = 0; !u && i < q->u.dismax.nsubs; i++) u = unsupported(q->u.dismax.subs[i], true);
        return u;
    case TV_Q_CONST:
        return unsupported(q->u.cnst.inner, false);
    default:
        return q;
    }
}

tv_status tv_explain_check(const tv_query *q, tv_error *err) {
    const tv_query *u = unsupported(q, true);
    if (!u) return TROVE_OK;
    return tv_error_set(err, TROVE_EUNSUPPORTED, "[explain] of a [%s] query is not supported by trove",
                        kind_name(u));
}

/* --------------------------------------------------------- the matching */

/* The query's iterator on the segment, advanced to the doc; NULL when it
 * does not match it. */
static tv_iter *iter_at(ectx *x, tv_query *q, bool scores) {
    tv_plan_ctx pc = {x->a, x->snap, scores, false};
    tv_iter *it = NULL;
    tv_status st = tv_plan(q, x->sv, &pc, &it);
    if (st) {
        x->st = st;
        return NULL;
    }
    if (!it || tv_iter_advance(it, x->doc) != x->doc) return NULL;
    return it;
}

/* ------------------------------------------------------------- the BM25 */

static uint64_t field_doc_count(const tv_snapshot *snap, uint32_t field) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < snap->nsegs; i++) {
        tv_field_stats fs;
        if (tv_segment_field_stats(snap->segs[i].seg, field, &fs)) n += fs.doc_count;
    }
    return n;
}

static uint64_t term_doc_freq(const tv_snapshot *snap, uint32_t field, const char *t, size_t len) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < snap->nsegs; i++) {
        tv_term_state st;
        if (tv_segment_term(snap->segs[i].seg, field, t, len, &st)) n += st.doc_freq;
    }
    return n;
}

/* BM25Similarity.idfExplain for one term. */
static tv_expl *idf_expl(ectx *x, uint64_t df, uint64_t n_docs) {
    tv_expl *e = node(x, true, tv_bm25_idf(df, n_docs), "idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:");
    add(x, e, lnode(x, (int64_t)df, "n, number of documents containing term"));
    add(x, e, lnode(x, (int64_t)n_docs, "N, total number of documents with field"));
    return e;
}

/* BM25Scorer.explain(freq, norm) over an idf explanation. */
static tv_expl *bm25_expl(ectx *x, const tv_bm25 *sim, float boost, tv_expl *idf, tv_expl *freq, const char *freq_text,
                          uint8_t norm) {
    const float k1 = TV_BM25_K1, b = TV_BM25_B;
    float f = freq ? freq->value : 0;
    tv_expl *s = node(x, true, tv_bm25_score(sim, f, norm),
                      tv_arena_sprintf(x->a, "score(%s), computed as boost * idf * tf from:", freq_text));
    if (boost != 1.0f) add(x, s, node(x, true, boost, "boost"));
    add(x, s, idf);
    float dl = (float)tv_norm_decode(norm);
    float avgdl = sim->avgdl;
    float ni = 1.0f / (k1 * ((1 - b) + b * dl / avgdl));
    tv_expl *tf = node(x, true, 1.0f - 1.0f / (1.0f + f * ni),
                       "tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:");
    add(x, tf, freq);
    add(x, tf, node(x, true, k1, "k1, term saturation parameter"));
    add(x, tf, node(x, true, b, "b, length normalization parameter"));
    add(x, tf, node(x, true, dl, norm > 39 ? "dl, length of field (approximate)" : "dl, length of field"));
    add(x, tf, node(x, true, avgdl, "avgdl, average length of field"));
    add(x, s, tf);
    return s;
}

static const char *weight_desc(ectx *x, const tv_query *q) {
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_puts(&b, "weight(");
    qstr(&b, q, false);
    tv_buf_printf(&b, " in %u) [PerFieldSimilarity], result of:", x->doc);
    char *s = b.oom ? NULL : tv_arena_strndup(x->a, b.data, b.len);
    tv_buf_fini(&b);
    if (!s) x->st = TROVE_ENOMEM;
    return s;
}

static tv_expl *explain_term(ectx *x, const tv_query *q) {
    tv_term_state ts;
    if (!q->u.term.sim || !tv_query_term_state(q, x->snap, x->sv, &ts)) return node(x, false, 0, "no matching term");
    tv_postings *p = tv_postings_open(x->sv->seg, q->field_id, &ts, TV_POST_FREQS, x->a);
    if (!p) {
        x->st = TROVE_ENOMEM;
        return NULL;
    }
    if (tv_postings_advance(p, x->doc) != x->doc) return node(x, false, 0, "no matching term");
    float freq = (float)tv_postings_freq(p);
    /* the norm the scorer reads (TermScorer: 1 without norms) */
    bool norms = q->field && q->field->norms;
    const uint8_t *nb = norms ? tv_segment_norms(x->sv->seg, q->field_id) : NULL;
    uint8_t norm = !norms ? 1 : nb && x->doc < tv_segment_max_doc(x->sv->seg) ? nb[x->doc] : 0;
    const tv_bm25 *sim = q->u.term.sim;
    uint64_t nd = field_doc_count(x->snap, q->field_id);
    uint64_t df = term_doc_freq(x->snap, q->field_id, q->u.term.term, q->u.term.len);
    tv_expl *idf = idf_expl(x, df, nd);
    if (idf) idf->value = sim->idf;
    tv_expl *fe = node(x, true, freq, "freq, occurrences of term within document");
    tv_expl *s = bm25_expl(x, sim, q->score_boost, idf, fe, tv_arena_sprintf(x->a, "freq=%s", jf(x, freq)), norm);
    tv_expl *w = node(x, true, s ? s->value : 0, weight_desc(x, q));
    add(x, w, s);
    return w;
}

static tv_expl *explain_phrase(ectx *x, tv_query *q) {
    const tv_bm25 *sim = q->u.phrase.sim;
    if (!sim) return node(x, false, 0, "no matching terms");
    /* the approximation: every term in the doc */
    for (uint32_t i = 0; i < q->u.phrase.nterms; i++) {
        const tv_qterm *t = &q->u.phrase.terms[i];
        tv_term_state ts;
        if (!tv_segment_term(x->sv->seg, q->field_id, t->term, t->len, &ts)) return node(x, false, 0, "no matching terms");
        tv_postings *p = tv_postings_open(x->sv->seg, q->field_id, &ts, 0, x->a);
        if (!p) {
            x->st = TROVE_ENOMEM;
            return NULL;
        }
        if (tv_postings_advance(p, x->doc) != x->doc) return node(x, false, 0, "no matching terms");
    }
    tv_iter *it = iter_at(x, q, true);
    if (x->st) return NULL;
    if (!it) return node(x, false, 0, "no matching phrase");
    float freq = tv_iter_phrase_freq(it);
    bool norms = q->field && q->field->norms;
    uint8_t norm = norms ? tv_segment_norm(x->sv->seg, q->field_id, x->doc) : 1;
    uint64_t nd = field_doc_count(x->snap, q->field_id);
    tv_expl *idf = node(x, true, sim->idf, "idf, sum of:");
    for (uint32_t i = 0; i < q->u.phrase.nterms; i++) {
        const tv_qterm *t = &q->u.phrase.terms[i];
        add(x, idf, idf_expl(x, term_doc_freq(x->snap, q->field_id, t->term, t->len), nd));
    }
    const char *ft = tv_arena_sprintf(x->a, "phraseFreq=%s", jf(x, freq));
    tv_expl *fe = node(x, true, freq, ft);
    tv_expl *s = bm25_expl(x, sim, q->score_boost, idf, fe, ft, norm);
    tv_expl *w = node(x, true, s ? s->value : 0, weight_desc(x, q));
    add(x, w, s);
    return w;
}

/* ------------------------------------------------------------ the tree */

static tv_expl *explain(ectx *x, tv_query *q, bool scoring);

/* A weight created without scores, as the query cache wraps it. */
static tv_expl *explain_cached(ectx *x, tv_query *q) {
    if (iter_at(x, q, false)) return node(x, true, 1.0f, qs(x, q, false, NULL, NULL));
    if (x->st) return NULL;
    return node(x, false, 0, qs(x, q, false, NULL, tv_arena_sprintf(x->a, " doesn't match id %u", x->doc)));
}

/* ConstantScoreWeight.explain */
static tv_expl *explain_constant(ectx *x, tv_query *q, bool match) {
    float s = q->score_boost;
    if (match) {
        const char *sfx = s == 1.0f ? NULL : tv_arena_sprintf(x->a, "^%s", jf(x, s));
        return node(x, true, s, qs(x, q, false, NULL, sfx));
    }
    return node(x, false, 0, qs(x, q, false, NULL, tv_arena_sprintf(x->a, " doesn't match id %u", x->doc)));
}

static tv_expl *explain_bool(ectx *x, tv_query *q) {
    tv_expl *res = node(x, true, 0, "sum of:"); /* details gathered here first */
    if (!res) return NULL;
    bool fail = false;
    int32_t match_count = 0, should_count = 0;
    enum { MUST, MUST_NOT, SHOULD, FILTER };
    struct { tv_query **c; uint32_t n; int occ; } g[4] = {
        {q->u.boolq.must, q->u.boolq.nmust, MUST},
        {q->u.boolq.must_not, q->u.boolq.nmust_not, MUST_NOT},
        {q->u.boolq.should, q->u.boolq.nshould, SHOULD},
        {q->u.boolq.filter, q->u.boolq.nfilter, FILTER},
    };
    for (int k = 0; k < 4 && !x->st; k++)
        for (uint32_t i = 0; i < g[k].n && !x->st; i++) {
            tv_query *c = g[k].c[i];
            int occ = g[k].occ;
            bool scoring = occ == MUST || occ == SHOULD, required = occ == MUST || occ == FILTER;
            tv_expl *e = explain(x, c, scoring);
            if (!e) return NULL;
            if (e->match) {
                if (scoring) {
                    add(x, res, e);
                } else if (required) {
                    tv_expl *r = node(x, true, 0, "match on required clause, product of:");
                    add(x, r, node(x, true, 0, "# clause"));
                    add(x, r, e);
                    add(x, res, r);
                } else {
                    tv_expl *r = node(x, false, 0, qs(x, c, false, "match on prohibited clause (", ")"));
                    add(x, r, e);
                    add(x, res, r);
                    fail = true;
                }
                if (occ != MUST_NOT) match_count++;
                if (occ == SHOULD) should_count++;
            } else if (required) {
                tv_expl *r = node(x, false, 0, qs(x, c, scoring, "no match on required clause (", ")"));
                add(x, r, e);
                add(x, res, r);
                fail = true;
            }
        }
    if (x->st) return NULL;
    int32_t msm = q->u.boolq.msm;
    if (fail || match_count == 0 || should_count < msm) {
        res->match = false;
        res->value = 0;
        if (fail) res->desc = "Failure to meet condition(s) of required/prohibited clause(s)";
        else if (match_count == 0) res->desc = "No matching clauses";
        else res->desc = tv_arena_sprintf(x->a, "Failure to match minimum number of optional clauses: %d", msm);
        if (!res->desc) x->st = TROVE_ENOMEM;
        return res;
    }
    tv_iter *it = iter_at(x, q, true);
    if (x->st) return NULL;
    res->value = it ? tv_iter_score(it) : 0.0f;
    return res;
}

static tv_expl *explain_dismax(ectx *x, tv_query *q) {
    tv_expl *on = node(x, true, 0, "max of:"), *off = node(x, false, 0, "No matching clause");
    if (!on || !off) return NULL;
    bool match = false;
    for (uint32_t i = 0; i < q->u.dismax.nsubs && !x->st; i++) {
        tv_expl *e = explain(x, q->u.dismax.subs[i], true);
        if (!e) return NULL;
        if (e->match) {
            match = true;
            add(x, on, e);
        } else if (!match) {
            add(x, off, e);
        }
    }
    if (x->st) return NULL;
    if (!match) return off;
    float tie = q->u.dismax.tie_breaker;
    if (tie != 0.0f) on->desc = tv_arena_sprintf(x->a, "max plus %s times others of:", jf(x, tie));
    if (!on->desc) x->st = TROVE_ENOMEM;
    tv_iter *it = iter_at(x, q, true);
    if (x->st) return NULL;
    on->value = it ? tv_iter_score(it) : 0.0f;
    return on;
}

static tv_expl *explain(ectx *x, tv_query *q, bool scoring) {
    if (x->st) return NULL;
    if (!scoring) return explain_cached(x, q);
    switch ((tv_qkind)q->kind) {
    case TV_Q_MATCH_ALL:
        return explain_constant(x, q, true);
    case TV_Q_CONST: {
        bool m = iter_at(x, q->u.cnst.inner, false) != NULL;
        if (x->st) return NULL;
        return explain_constant(x, q, m);
    }
    case TV_Q_TERM:
        return explain_term(x, q);
    case TV_Q_PHRASE:
        return explain_phrase(x, q);
    case TV_Q_BOOL:
        return explain_bool(x, q);
    case TV_Q_DISMAX:
        return explain_dismax(x, q);
    default:
        x->st = TROVE_EUNSUPPORTED; /* tv_explain_check refuses these first */
        return NULL;
    }
}

tv_status tv_explain(tv_query *q, const tv_snapshot *snap, uint32_t seg, uint32_t doc, tv_arena *arena,
                     const tv_expl **out) {
    *out = NULL;
    if (seg >= snap->nsegs) return TROVE_EARG;
    ectx x = {arena, snap, &snap->segs[seg], doc, TROVE_OK};
    const tv_expl *e;
    if (!tv_segview_live(x.sv, doc))
        /* IndexSearcher.explain: a deleted doc (the shard-wide id) */
        e = node(&x, false, 0, tv_arena_sprintf(arena, "Document %u is deleted", x.sv->doc_base + doc));
    else
        e = explain(&x, q, true);
    if (x.st) return x.st;
    if (!e) return TROVE_ENOMEM;
    *out = e;
    return TROVE_OK;
}

bool tv_expl_match(const tv_expl *e) { return e && e->match; }
float tv_expl_value(const tv_expl *e) { return e ? e->value : 0.0f; }

/* The members of SearchHit.buildExplanation / ExplainResponse's: value
 * (a Float, or a Long for n and N), description, details (always, an
 * empty array for leaves: Explanation.getDetails is never null). */
void tv_expl_write_members(tv_jw *w, const tv_expl *e) {
    tv_jw_keyz(w, "value");
    if (e->is_long) tv_jw_int(w, e->lvalue);
    else tv_jw_float(w, e->value);
    tv_jw_keyz(w, "description");
    tv_jw_strz(w, e->desc);
    tv_jw_keyz(w, "details");
    tv_jw_arr_begin(w);
    for (uint32_t i = 0; i < e->n; i++) tv_expl_write(w, e->details[i]);
    tv_jw_arr_end(w);
}

void tv_expl_write(tv_jw *w, const tv_expl *e) {
    tv_jw_obj_begin(w);
    tv_expl_write_members(w, e);
    tv_jw_obj_end(w);
}

/* ------------------------------------------------------ the hit writer */

void tv_explain_hit_head(tv_jw *w, const tv_search_params *p, size_t target, const char *index,
                         const tv_doc_meta *meta) {
    /* SearchHit.toInnerXContent: _shard and _node first, when there is an
     * explanation; ShardId prints as [index][N] */
    uint32_t shard = 0;
    if (p && p->shard_of && meta && meta->id)
        shard = p->shard_of(p->shard_ctx, target, meta->id, meta->id_len, meta->routing,
                            meta->routing ? meta->routing_len : 0);
    char buf[32];
    tv_jw_keyz(w, "_shard");
    tv_buf b;
    tv_buf_init(&b);
    snprintf(buf, sizeof buf, "][%u]", shard);
    tv_buf_putc(&b, '[');
    tv_buf_puts(&b, index ? index : "");
    tv_buf_puts(&b, buf);
    tv_jw_str(w, b.data ? b.data : "", b.len);
    if (b.oom) w->out->oom = true;
    tv_buf_fini(&b);
    tv_jw_keyz(w, "_node");
    tv_jw_strz(w, p && p->node_id ? p->node_id : "");
}

tv_status tv_explain_hit(tv_jw *w, tv_query *q, const tv_snapshot *snap, uint32_t seg, uint32_t doc, tv_arena *arena) {
    const tv_expl *e;
    tv_status st = tv_explain(q, snap, seg, doc, arena, &e);
    if (st) return st;
    tv_jw_keyz(w, "_explanation");
    tv_expl_write(w, e);
    return TROVE_OK;
}
