/*
 * dsl_nested.c — the nested query (OpenSearch's NestedQueryBuilder, which
 * runs as Lucene's ToParentBlockJoinQuery).
 *
 * Nested objects are doc blocks (index.h): a nested object's docs are a
 * bitset the segment builds once (tv_segment_nest_docs), and each block
 * ends with its root. The query is a TV_Q_EXT node: per segment the inner
 * query is planned over every doc (a view without live bits: nested docs
 * are never live, and a child counts only through its parent, which the
 * collector checks), its matches are kept to the docs of `path`, and each
 * run of matching children is joined to the next doc of the parent filter:
 * the root docs, or the docs of the enclosing nested query's path when nested
 * queries nest (OpenSearch's nested scope, not the mapping's parent).
 * Scores combine as BlockJoinScorer does: in double, `avg` divided by the
 * count, `none` 0, cast to float at the end.
 *
 * inner_hits are the fetch layer's (fetch/inner_hits.c): the parser calls
 * d->inner_hits to parse and check them, and lists each nested query that
 * has them where the fetch phase finds them (tv_dsl.nested_ih, or the
 * enclosing definition's kids).
 *
 * Ownership: everything lives in the request arena.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "query/parse.h"

enum { SM_NONE = 0, SM_AVG, SM_MAX, SM_MIN, SM_SUM };

/* ----------------------------------------------------- nested bitsets */

/* The docs of a nested path in a segment (the segment's cached bitset);
 * NULL when the segment has none. */
const uint64_t *tv_nested_path_bits(const tv_segment *seg, const tv_field *path, bool *oom) {
    return tv_segment_nest_docs(seg, path->id + 1, oom);
}

/* The parent filter of a nested query in a segment: the roots, or the
 * docs of the enclosing nested path. */
const uint64_t *tv_nested_parent_bits(const tv_segment *seg, const tv_field *scope, bool *oom) {
    if (!scope) return tv_segment_roots(seg, NULL);
    return tv_nested_path_bits(seg, scope, oom);
}

/* ------------------------------------------------------------ iterator */

typedef struct nest_it {
    tv_iter it;
    tv_iter *child;
    const uint64_t *cbits, *pbits;
    uint32_t max_doc;
    uint32_t c; /* the child iterator's doc, kept to cbits (TV_ITER_UNSET before) */
    int mode;
    bool scores;
    float score;
} nest_it;

static uint32_t kept_child(nest_it *x, uint32_t d) {
    while (d != TV_NO_MORE_DOCS && !(d < x->max_doc && tv_bits_get(x->cbits, d))) d = tv_iter_next(x->child);
    return d;
}

/* From the first child of the next parent (x->c): the parent, with the
 * score of its matching children. */
static uint32_t join(nest_it *x) {
    uint32_t c = x->c;
    if (c == TV_NO_MORE_DOCS) return x->it.doc = TV_NO_MORE_DOCS;
    uint32_t p = tv_bits_next(x->pbits, c, x->max_doc);
    if (p >= x->max_doc) {
        x->c = TV_NO_MORE_DOCS;
        return x->it.doc = TV_NO_MORE_DOCS;
    }
    double s = 0;
    uint32_t freq = 0;
    while (c < p) {
        float cs = x->scores ? tv_iter_score(x->child) : 0.0f;
        if (freq == 0) s = cs;
        else if (x->mode == SM_AVG || x->mode == SM_SUM) s += cs;
        else if (x->mode == SM_MIN) s = fmin(s, cs);
        else if (x->mode == SM_MAX) s = fmax(s, cs);
        freq++;
        c = kept_child(x, tv_iter_next(x->child));
    }
    x->c = c;
    if (x->mode == SM_AVG) s /= freq;
    x->score = x->mode == SM_NONE ? 0.0f : (float)s;
    return x->it.doc = p;
}

static uint32_t nest_next(tv_iter *it) {
    nest_it *x = (nest_it *)it;
    if (x->c == TV_ITER_UNSET) x->c = kept_child(x, tv_iter_next(x->child));
    return join(x);
}

static uint32_t nest_advance(tv_iter *it, uint32_t target) {
    nest_it *x = (nest_it *)it;
    /* the children of parents >= target come after the last parent before it */
    uint32_t prev = target < x->max_doc ? tv_bits_prev(x->pbits, target, x->max_doc) : UINT32_MAX;
    if (target >= x->max_doc) {
        x->c = TV_NO_MORE_DOCS;
        return x->it.doc = TV_NO_MORE_DOCS;
    }
    uint32_t from = prev == UINT32_MAX ? 0 : prev + 1;
    if (x->c == TV_ITER_UNSET || x->c < from) x->c = kept_child(x, tv_iter_advance(x->child, from));
    return join(x);
}

static float nest_score(tv_iter *it) { return ((nest_it *)it)->score; }

static const tv_iter_vt nest_vt = {nest_next, nest_advance, nest_score, NULL, NULL, NULL, NULL, NULL};

/* --------------------------------------------------------------- hooks */

static tv_status nest_prepare(tv_query *q, const tv_snapshot *snap, float boost, tv_arena *arena) {
    tv_nested_q *s = q->u.ext.state;
    /* the BoostQuery around the block join reaches the child weight */
    s->inner->boost = s->inner_boost0 * boost;
    s->ih_prepared = false;
    return tv_query_prepare(s->inner, snap, arena);
}

static tv_status nest_plan(tv_query *q, const tv_segview *sv, struct tv_plan_ctx *ctx, tv_iter **out) {
    tv_nested_q *s = q->u.ext.state;
    *out = NULL;
    if (!tv_segment_roots(sv->seg, NULL)) return TROVE_OK; /* no nested docs here */
    bool oom = false;
    const uint64_t *cb = tv_nested_path_bits(sv->seg, s->path, &oom);
    const uint64_t *pb = cb ? tv_nested_parent_bits(sv->seg, s->scope, &oom) : NULL;
    if (oom) return TROVE_ENOMEM;
    if (!cb || !pb) return TROVE_OK;
    tv_segview all = *sv;
    all.live = NULL; /* children are never live: their parent decides */
    tv_plan_ctx cx = {ctx->arena, ctx->snap, ctx->scores && s->mode != SM_NONE, false};
    tv_iter *child = NULL;
    tv_status st = tv_plan(s->inner, &all, &cx, &child);
    if (st || !child) return st;
    nest_it *x = tv_arena_calloc(ctx->arena, 1, sizeof *x);
    if (!x) return TROVE_ENOMEM;
    x->it.vt = &nest_vt;
    x->it.doc = TV_ITER_UNSET;
    x->it.cost = child->cost;
    x->it.max_score = s->mode == SM_NONE ? 0.0f : INFINITY;
    x->child = child;
    x->cbits = cb;
    x->pbits = pb;
    x->max_doc = sv->max_doc;
    x->c = TV_ITER_UNSET;
    x->mode = s->mode;
    x->scores = cx.scores;
    *out = &x->it;
    return TROVE_OK;
}

/* --------------------------------------------------------------- parse */

static tv_status unsupported(tv_dsl *d, uint32_t off, const char *what) {
    return tv_dsl_error(d, TROVE_EUNSUPPORTED, off, "%s is not supported by trove", what);
}

/* QueryShardContext.toQuery's wrapping of an IllegalStateException. */
static tv_status shard_state(tv_dsl *d, const char *fmt, const char *path) {
    char msg[600];
    snprintf(msg, sizeof msg, fmt, path);
    tv_error_set(d->err, TROVE_EQUERYSHARD, "failed to create query: %s", msg);
    tv_error_cause(d->err, TROVE_EILLEGALSTATE, "%s", msg);
    if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
    return TROVE_EQUERYSHARD;
}

tv_status tv_dsl_parse_nested(tv_dsl *d, const tv_json *body, tv_query **out) {
    *out = NULL;
    if (body->type != TV_JSON_OBJECT)
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "[nested] query malformed, no start_object after query name");
    const tv_json *path = NULL, *query = NULL, *ih = NULL;
    float boost = 1.0f;
    bool ignore_unmapped = false;
    int mode = SM_AVG;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        bool obj = v->type == TV_JSON_OBJECT || v->type == TV_JSON_ARRAY;
        if (obj && tv_streq(m->key, m->key_len, "query")) {
            query = v;
        } else if (obj && tv_streq(m->key, m->key_len, "inner_hits")) {
            if (v->type != TV_JSON_OBJECT) return tv_dsl_error(d, TROVE_EPARSE, v->off, "[inner_hits] must be an object");
            ih = v;
        } else if (obj) {
            return tv_dsl_error(d, TROVE_EPARSE, v->off, "[nested] query does not support [%.*s]", (int)m->key_len, m->key);
        } else if (tv_streq(m->key, m->key_len, "path")) {
            path = v;
        } else if (tv_streq(m->key, m->key_len, "boost")) {
            tv_status st = tv_dsl_float(d, "nested", "boost", v, &boost);
            if (st) return st;
        } else if (tv_streq(m->key, m->key_len, "ignore_unmapped")) {
            tv_status st = tv_dsl_bool(d, "nested", "ignore_unmapped", v, &ignore_unmapped);
            if (st) return st;
        } else if (tv_streq(m->key, m->key_len, "score_mode")) {
            const char *t = "";
            size_t tl = 0;
            tv_dsl_scalar_text(v, &t, &tl);
            static const char *const names[] = {"none", "avg", "max", "min", "sum"};
            mode = -1;
            for (int k = 0; k < 5; k++)
                if (tv_streq(t, tl, names[k])) mode = k;
            if (mode < 0)
                return tv_dsl_error(d, TROVE_EARG, v->off, "No score mode for child query [%.*s] found", (int)tl, t);
        } else if (tv_streq(m->key, m->key_len, "_name")) {
            /* named queries: accepted, not reported (as elsewhere) */
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, v->off, "[nested] query does not support [%.*s]", (int)m->key_len, m->key);
        }
    }
    if (!path) return tv_dsl_error(d, TROVE_EARG, body->off, "[nested] requires 'path' field");
    if (!query) return tv_dsl_error(d, TROVE_EARG, body->off, "[nested] requires 'query' field");
    const char *ps = "";
    size_t pl = 0;
    tv_dsl_scalar_text(path, &ps, &pl);
    char pz[512];
    snprintf(pz, sizeof pz, "%.*s", (int)TV_MIN(pl, 500u), ps);
    tv_nested_q *s = tv_arena_calloc(d->arena, 1, sizeof *s);
    if (!s) return TROVE_ENOMEM;
    s->mode = mode;
    const char *ih_name = NULL;
    if (ih) {
        if (!d->inner_hits) return unsupported(d, ih->off, "[inner_hits] outside a search");
        tv_status st = d->inner_hits->parse(d, ih, &s->ih, &ih_name);
        if (st) return st;
    }
    /* NestedQueryBuilder.doToQuery refuses before it looks at the path */
    tv_status est = tv_dsl_expensive(d, "[joining] queries", "");
    if (est) return est;
    const tv_field *f = d->mapping ? tv_mapping_field(d->mapping, ps, pl) : NULL;
    if (!f) {
        if (ignore_unmapped) {
            *out = tv_q_new(d, TV_Q_MATCH_NONE);
            return *out ? TROVE_OK : TROVE_ENOMEM;
        }
        return shard_state(d, "[nested] failed to find nested object under path [%s]", pz);
    }
    if (f->type != TV_FT_OBJECT || !f->nested)
        return shard_state(d, "[nested] nested object under path [%s] is not of nested type", pz);
    s->path = f;
    s->scope = d->nested_scope;
    /* NestedQueryBuilder.extractInnerHitBuilders looks inside a nested
     * query only when that one has inner_hits itself */
    if (s->ih && d->nested_q && !d->nested_q->ih) s->ih = NULL;
    struct tv_nested_q *outer = d->nested_q;
    d->nested_scope = f;
    d->nested_q = s;
    tv_status st = tv_dsl_parse_query(d, query, &s->inner);
    d->nested_scope = s->scope;
    d->nested_q = outer;
    if (!st) st = tv_query_rewrite(&s->inner, d->arena);
    if (st) return st;
    s->inner_boost0 = s->inner->boost;
    if (s->ih) {
        s->ih_key = ih_name ? ih_name : f->path;
        if ((st = d->inner_hits->check(d, s))) return st;
        /* a nested query inside another one's inner query: its inner hits
         * nest inside the enclosing definition's hits */
        tv_nested_q ***list = d->nested_q ? &d->nested_q->kids : &d->nested_ih;
        uint32_t *count = d->nested_q ? &d->nested_q->nkids : &d->nnested_ih;
        for (uint32_t i = 0; i < *count; i++)
            if (!strcmp((*list)[i]->ih_key, s->ih_key))
                return tv_dsl_error(d, TROVE_EARG, ih->off, "[inner_hits] already contains an entry for key [%s]",
                                    s->ih_key);
        tv_nested_q **grown = tv_arena_alloc(d->arena, (*count + 1) * sizeof *grown);
        if (!grown) return TROVE_ENOMEM;
        if (*count) memcpy(grown, *list, *count * sizeof *grown);
        grown[(*count)++] = s;
        *list = grown;
    }
    tv_query *q = tv_q_new(d, TV_Q_EXT);
    if (!q) return TROVE_ENOMEM;
    q->boost = boost;
    q->u.ext.prepare = nest_prepare;
    q->u.ext.plan = nest_plan;
    q->u.ext.state = s;
    *out = q;
    return TROVE_OK;
}
