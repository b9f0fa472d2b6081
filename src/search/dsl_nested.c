/*
 * dsl_nested.c — the nested query (OpenSearch's NestedQueryBuilder, which
 * runs as Lucene's ToParentBlockJoinQuery) and its inner_hits.
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
 * inner_hits (NestedInnerHitSubContext): for each hit, the inner query runs
 * again over the children of that hit's root (boost 1: the nested query's
 * own boost is not part of it), top `from + size` by score then doc id.
 * The page's hits are collected at once, in doc order with one plan of the
 * inner query per segment (planning can cost a pass over the segment),
 * then written in the page's order.
 * An inner hit carries the nested identity (tv_nested_identity: `_nested`
 * {field, offset}, one level per nested object from the root, each offset
 * counted among the parent's objects of that path in the block, as
 * FetchPhase.getInternalNestedIdentity counts) and its `_source` is that
 * object of the root's source; top_hits of nested docs use the same.
 * The inner_hits of a nested query inside another one nest inside each of
 * the outer one's inner hits (collected under the outer window's hits,
 * with the same one-plan-per-segment pass), or are ignored when the outer
 * one has none, as extractInnerHitBuilders does. Not reproduced (400
 * naming it): the inner_hits options explain, fields,
 * docvalue_fields, stored_fields and script_fields. A _source filter
 * applies to the wrapped object, which is then unwrapped, as
 * FetchSourcePhase does for a nested hit.
 * inner_hits' highlight runs the search's highlighter with the inner query
 * over the object wrapped in its paths ({"a": {"b": {...}}}), which is the
 * source FetchPhase gives a nested hit's highlighter.
 *
 * Ownership: everything lives in the request arena.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "search/agg.h"
#include "search/dsl_int.h"
#include "search/highlight.h"

enum { SM_NONE = 0, SM_AVG, SM_MAX, SM_MIN, SM_SUM };

struct tv_nested_q {
    tv_query *inner;
    float inner_boost0;   /* the inner query's own boost */
    const tv_field *path; /* the nested object */
    const tv_field *scope; /* the enclosing nested query's path (NULL: root) */
    int mode;
    /* inner_hits (has_ih false: none) */
    bool has_ih;
    const char *ih_name;
    int64_t ih_from, ih_size;
    bool ih_source, ih_version, ih_seq_no;
    const char **ih_inc, **ih_exc; /* _source includes / excludes */
    size_t ih_ninc, ih_nexc;
    bool ih_prepared; /* the inner query's weights are the inner hits' (boost 1) */
    tv_hl *ih_hl;         /* inner_hits "highlight" (NULL: none) */
    tv_agg ih_sort;       /* inner_hits "sort" (th_sorts, th_nsorts; top_hits' machinery) */
    const tv_field *ih_sortf[4]; /* the sort keys' fields (NULL: _score) */
    bool ih_track_scores;
    tv_hl_target *ih_hlt; /* ... bound to the target (tv_nested_inner_hits_bind) */
    struct ih_res *res;   /* per parent: the page's hits, or (for kids) the
                             window hits of the enclosing definition */
    uint32_t nres;
    /* inner_hits of nested queries inside this one's inner query (when
     * this one has inner_hits: they nest inside each of its hits) */
    struct tv_nested_q **kids;
    uint32_t nkids;
};

/* ------------------------------------------------------------- bitsets */

static inline bool bit_at(const uint64_t *w, uint32_t d) { return (w[d >> 6] >> (d & 63)) & 1; }

/* The first set bit >= from, n when none. */
static uint32_t next_set(const uint64_t *w, uint32_t from, uint32_t n) {
    tv_bitset b = {(uint64_t *)w, n};
    size_t i = tv_bitset_next(&b, from);
    return i == SIZE_MAX ? n : (uint32_t)i;
}

/* The last set bit < before, UINT32_MAX when none. */
static uint32_t prev_set(const uint64_t *w, uint32_t before, uint32_t n) {
    tv_bitset b = {(uint64_t *)w, n};
    size_t i = tv_bitset_prev(&b, before);
    return i == SIZE_MAX ? UINT32_MAX : (uint32_t)i;
}

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
    while (d != TV_NO_MORE_DOCS && !(d < x->max_doc && bit_at(x->cbits, d))) d = tv_iter_next(x->child);
    return d;
}

/* From the first child of the next parent (x->c): the parent, with the
 * score of its matching children. */
static uint32_t join(nest_it *x) {
    uint32_t c = x->c;
    if (c == TV_NO_MORE_DOCS) return x->it.doc = TV_NO_MORE_DOCS;
    uint32_t p = next_set(x->pbits, c, x->max_doc);
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
    uint32_t prev = target < x->max_doc ? prev_set(x->pbits, target, x->max_doc) : UINT32_MAX;
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

/* A string or an array of strings (FetchSourceContext's patterns) into
 * an arena array. */
static tv_status str_list(tv_dsl *d, const tv_json *v, const char ***out, size_t *n) {
    uint32_t cnt = v->type == TV_JSON_ARRAY ? v->len : 1;
    const char **l = tv_arena_calloc(d->arena, cnt + 1, sizeof *l);
    if (!l) return TROVE_ENOMEM;
    for (uint32_t i = 0; i < cnt; i++) {
        const tv_json *e = v->type == TV_JSON_ARRAY ? &v->v.items[i] : v;
        if (e->type != TV_JSON_STRING)
            return tv_dsl_error(d, TROVE_EPARSE, e->off, "Unknown key for a %s in [_source].", tv_dsl_token_name(e));
        if (!(l[i] = tv_arena_strndup(d->arena, e->v.s, e->len))) return TROVE_ENOMEM;
    }
    *out = l;
    *n = cnt;
    return TROVE_OK;
}

/* InnerHitBuilder's options, the ones trove runs. */
static tv_status parse_inner_hits(tv_dsl *d, const tv_json *v, tv_nested_q *s) {
    s->has_ih = true;
    s->ih_size = 3;
    s->ih_source = true;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        const tv_json *x = &m->val;
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)TV_MIN(m->key_len, 60u), m->key);
        if (!strcmp(key, "name")) {
            if (x->type != TV_JSON_STRING)
                return tv_dsl_error(d, TROVE_EPARSE, x->off, "[inner_hits] name doesn't support values of type: %s",
                                    tv_dsl_token_name(x));
            s->ih_name = tv_arena_strndup(d->arena, x->v.s, x->len);
            if (!s->ih_name) return TROVE_ENOMEM;
        } else if (!strcmp(key, "from") || !strcmp(key, "size")) {
            int64_t n;
            tv_status st = tv_dsl_int(d, "inner_hits", key, x, &n);
            if (st) return st;
            *(key[0] == 'f' ? &s->ih_from : &s->ih_size) = n;
        } else if (!strcmp(key, "version") || !strcmp(key, "seq_no_primary_term") || !strcmp(key, "ignore_unmapped") ||
                   !strcmp(key, "track_scores")) {
            bool b;
            tv_status st = tv_dsl_bool(d, "inner_hits", key, x, &b);
            if (st) return st;
            if (key[0] == 'v') s->ih_version = b;
            else if (key[0] == 's') s->ih_seq_no = b;
            else if (key[0] == 't') s->ih_track_scores = b;
        } else if (!strcmp(key, "_source")) {
            /* FetchSourceContext: a boolean, a pattern or patterns, or
             * {includes, excludes} */
            tv_status st = TROVE_OK;
            if (x->type == TV_JSON_TRUE || x->type == TV_JSON_FALSE) s->ih_source = x->type == TV_JSON_TRUE;
            else if (x->type == TV_JSON_STRING || x->type == TV_JSON_ARRAY) st = str_list(d, x, &s->ih_inc, &s->ih_ninc);
            else if (x->type == TV_JSON_OBJECT) {
                for (uint32_t k = 0; k < x->len && !st; k++) {
                    const tv_json_member *sm = &x->v.members[k];
                    if (tv_streq(sm->key, sm->key_len, "includes") || tv_streq(sm->key, sm->key_len, "include"))
                        st = str_list(d, &sm->val, &s->ih_inc, &s->ih_ninc);
                    else if (tv_streq(sm->key, sm->key_len, "excludes") || tv_streq(sm->key, sm->key_len, "exclude"))
                        st = str_list(d, &sm->val, &s->ih_exc, &s->ih_nexc);
                    else
                        return tv_dsl_error(d, TROVE_EPARSE, sm->val.off, "Unknown key for a %s in [_source]: [%s].",
                                            tv_dsl_token_name(&sm->val), sm->key);
                }
            } else {
                return tv_dsl_error(d, TROVE_EPARSE, x->off, "Expected one of [%s, %s] but found [%s]", "VALUE_BOOLEAN",
                                    "START_OBJECT", tv_dsl_token_name(x));
            }
            if (st) return st;
        } else if (!strcmp(key, "highlight")) {
            tv_status st = tv_hl_parse(d, x, &s->ih_hl);
            if (st) return st;
        } else if (!strcmp(key, "sort")) {
            tv_status st = tv_agg_parse_hit_sort(d, x, "inner_hits", &s->ih_sort);
            if (st) return st;
        } else if (!strcmp(key, "explain") ||
                   !strcmp(key, "fields") || !strcmp(key, "docvalue_fields") || !strcmp(key, "stored_fields") ||
                   !strcmp(key, "script_fields") || !strcmp(key, "collapse")) {
            char what[96];
            snprintf(what, sizeof what, "[%s] in [inner_hits]", key);
            return unsupported(d, x->off, what);
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, x->off, "[inner_hits] unknown field [%.*s]", (int)m->key_len, m->key);
        }
    }
    if (s->ih_from < 0) return tv_dsl_error(d, TROVE_EARG, v->off, "illegal from value, at least 0 or higher");
    if (s->ih_size < 0) return tv_dsl_error(d, TROVE_EARG, v->off, "illegal size value, at least 0 or higher");
    return TROVE_OK;
}

/* InnerHitContextBuilder's check of index.max_inner_result_window. */
static tv_status check_window(tv_dsl *d, const tv_nested_q *s) {
    int64_t max = d->max_inner_window > 0 ? d->max_inner_window : 100;
    if (s->ih_from + s->ih_size <= max) return TROVE_OK;
    tv_error_set(d->err, TROVE_EARG,
                 "Inner result window is too large, the inner hit definition's [%s]'s from + size must be less "
                 "than or equal to: [%lld] but was [%lld]. This limit can be set by changing the "
                 "[index.max_inner_result_window] index level setting.",
                 s->ih_name ? s->ih_name : s->path->path, (long long)max, (long long)(s->ih_from + s->ih_size));
    if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
    return TROVE_EARG;
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
    if (ih) {
        tv_status st = parse_inner_hits(d, ih, s);
        if (st) return st;
    }
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
    if (s->has_ih && d->nested_q && !d->nested_q->has_ih) s->has_ih = false;
    struct tv_nested_q *outer = d->nested_q;
    d->nested_scope = f;
    d->nested_q = s;
    tv_status st = tv_dsl_parse_query(d, query, &s->inner);
    d->nested_scope = s->scope;
    d->nested_q = outer;
    if (!st) st = tv_query_rewrite(&s->inner, d->arena);
    if (st) return st;
    s->inner_boost0 = s->inner->boost;
    if (s->has_ih) {
        if ((st = check_window(d, s))) return st;
        for (uint32_t k = 0; k < s->ih_sort.th_nsorts; k++) {
            const char *fname = s->ih_sort.th_sorts[k].field;
            if (!fname) continue;
            const tv_field *sf = tv_dsl_field(d, fname, strlen(fname));
            if (!sf || sf->type == TV_FT_OBJECT) {
                tv_error_set(d->err, TROVE_EQUERYSHARD, "No mapping found for [%s] in order to sort on", fname);
                if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
                return TROVE_EQUERYSHARD;
            }
            if (tv_field_type_is_text(sf->type) || sf->dv_kind == TV_DV_NONE) {
                if (tv_field_type_is_text(sf->type))
                    tv_error_set(d->err, TROVE_EARG,
                                 "Text fields are not optimised for operations that require per-document field data like "
                                 "aggregations and sorting, so these operations are disabled by default. Please use a "
                                 "keyword field instead. Alternatively, set fielddata=true on [%s] in order to load field "
                                 "data by uninverting the inverted index. Note that this can use significant memory.",
                                 fname);
                else
                    tv_error_set(d->err, TROVE_EUNSUPPORTED,
                                 "[inner_hits] sort on [%s], a field without doc values, is not supported by trove", fname);
                if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
                return d->err ? d->err->code : TROVE_EARG;
            }
            s->ih_sortf[k] = sf;
        }
        /* a nested query inside another one's inner query: its inner hits
         * nest inside the enclosing definition's hits */
        tv_nested_q ***list = d->nested_q ? &d->nested_q->kids : &d->nested_ih;
        uint32_t *count = d->nested_q ? &d->nested_q->nkids : &d->nnested_ih;
        const char *name = s->ih_name ? s->ih_name : f->path;
        for (uint32_t i = 0; i < *count; i++) {
            const tv_nested_q *o = (*list)[i];
            if (!strcmp(o->ih_name ? o->ih_name : o->path->path, name))
                return tv_dsl_error(d, TROVE_EARG, ih->off, "[inner_hits] already contains an entry for key [%s]", name);
        }
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

/* ----------------------------------------------------------- inner hits */

/* An inner hit is a top_hits hit: doc, score and sort keys. */
typedef agg_hit ih_hit;

/* One definition's matches in one parent's block, best first. */
typedef struct ih_res {
    ih_hit *hits;
    uint32_t n;
    float max_score; /* over every match */
    uint32_t seg;   /* the parent's segment */
    uint32_t slot0; /* kids: the slot of the first hit of the from/size window */
} ih_res;

/* The definition whose hits qsort orders (per thread: a search runs on
 * one thread). */
static _Thread_local const tv_agg *cmp_sort;

static int cmp_ih(const void *a, const void *b) { return tv_agg_hit_cmp(cmp_sort, a, b); }

/* A parent to collect under: its segment, doc and result slot. */
typedef struct ih_at {
    uint32_t seg, doc, page;
} ih_at;

static int cmp_at(const void *a, const void *b) {
    const ih_at *x = a, *y = b;
    if (x->seg != y->seg) return x->seg < y->seg ? -1 : 1;
    return (x->doc > y->doc) - (x->doc < y->doc);
}

/* The number of nested objects from the root down to f (1 for a nested
 * object at the root). */
static int nest_depth(const tv_field *f) {
    int d = 0;
    for (; f; f = f->nested_scope) d++;
    return d;
}

/* The field a doc's nest value names (NULL for roots or unknown ids). */
static const tv_field *nest_field(const tv_mapping *m, const tv_segment *seg, uint32_t doc) {
    uint32_t v = tv_segment_nest(seg, doc);
    return v ? tv_mapping_field_by_id(m, v - 1) : NULL;
}

/* The first doc of doc's block: after the previous root for a root, else
 * the first of its descendants (in post-order they come right before it,
 * each deeper than it). */
static uint32_t block_start(const tv_mapping *m, const tv_segment *seg, uint32_t doc) {
    const tv_field *f = nest_field(m, seg, doc);
    if (!f) {
        const uint64_t *roots = tv_segment_roots(seg, NULL);
        uint32_t p = roots ? prev_set(roots, doc, tv_segment_max_doc(seg)) : UINT32_MAX;
        return p == UINT32_MAX ? 0 : p + 1;
    }
    int depth = nest_depth(f);
    uint32_t start = doc;
    while (start > 0) {
        const tv_field *g = nest_field(m, seg, start - 1);
        if (!g || nest_depth(g) <= depth) break;
        start--;
    }
    return start;
}

/* One definition under parents at[0..m) (sorted by segment and doc), into
 * out[at[k].page]: one plan of the inner query per segment (a plan can
 * cost a pass over the segment, a range's points for one), each parent's
 * block read in doc order. */
static tv_status collect_one(tv_nested_q *s, const tv_snapshot *snap, const ih_at *at, uint32_t m, ih_res *out,
                             tv_arena *a) {
    if (!s->ih_prepared) { /* the inner hits' weight has boost 1 */
        s->inner->boost = s->inner_boost0;
        tv_status st = tv_query_prepare(s->inner, snap, a);
        if (st) return st;
        s->ih_prepared = true;
    }
    TV_VEC(ih_hit) hits = {0};
    tv_status st = TROVE_OK;
    for (uint32_t k = 0; k < m && !st;) {
        const tv_segview *sv = &snap->segs[at[k].seg];
        bool oom = false;
        const uint64_t *cb = tv_nested_path_bits(sv->seg, s->path, &oom);
        tv_iter *it = NULL;
        if (oom) st = TROVE_ENOMEM;
        if (!st && cb) {
            tv_segview all = *sv;
            all.live = NULL;
            tv_plan_ctx cx = {a, snap, true, false};
            st = tv_plan(s->inner, &all, &cx, &it);
        }
        for (; k < m && at[k].seg == (uint32_t)(sv - snap->segs) && !st; k++) {
            uint32_t doc = at[k].doc, start = block_start(snap->mapping, sv->seg, doc);
            ih_res *r = &out[at[k].page];
            r->seg = at[k].seg;
            if (!it) continue;
            hits.len = 0;
            r->max_score = -INFINITY;
            uint32_t c = it->doc;
            if (c == TV_ITER_UNSET || c < start) c = tv_iter_advance(it, start);
            for (; c < doc; c = tv_iter_next(it)) {
                if (!bit_at(cb, c)) continue;
                ih_hit h;
                memset(&h, 0, sizeof h);
                h.doc = c;
                h.seg = at[k].seg;
                h.score = tv_iter_score(it);
                if (h.score > r->max_score) r->max_score = h.score;
                if ((st = tv_agg_hit_keys(&s->ih_sort, s->ih_sortf, sv->seg, c, a, &h))) break;
                if (tv_vec_push(&hits, h)) {
                    st = TROVE_ENOMEM;
                    break;
                }
            }
            if (st || !hits.len) continue;
            cmp_sort = &s->ih_sort;
            if (hits.len > 1) qsort(hits.items, hits.len, sizeof *hits.items, cmp_ih);
            if (!(r->hits = (ih_hit *)(void *)tv_arena_memdup(a, hits.items, hits.len * sizeof *hits.items))) st = TROVE_ENOMEM;
            r->n = (uint32_t)hits.len;
        }
    }
    tv_vec_fini(&hits);
    return st;
}

/* A definition under nparents parents (at, m of them with a block), then
 * its kids under every hit of its from/size windows. */
static tv_status collect_tree(tv_nested_q *s, const tv_snapshot *snap, ih_at *at, uint32_t m, uint32_t nparents,
                              tv_arena *a) {
    if (!(s->res = tv_arena_calloc(a, nparents + 1, sizeof *s->res))) return TROVE_ENOMEM;
    s->nres = nparents;
    qsort(at, m, sizeof *at, cmp_at);
    tv_status st = collect_one(s, snap, at, m, s->res, a);
    if (st || !s->nkids) return st;
    uint32_t slots = 0;
    for (uint32_t p = 0; p < nparents; p++) {
        ih_res *r = &s->res[p];
        r->slot0 = slots;
        if ((int64_t)r->n > s->ih_from) slots += (uint32_t)TV_MIN((int64_t)r->n - s->ih_from, s->ih_size);
    }
    ih_at *kat = tv_arena_alloc(a, (slots + 1) * sizeof *kat);
    if (!kat) return TROVE_ENOMEM;
    uint32_t km = 0;
    for (uint32_t p = 0; p < nparents; p++) {
        const ih_res *r = &s->res[p];
        for (int64_t i = s->ih_from; i < r->n && i < s->ih_from + s->ih_size; i++, km++)
            kat[km] = (ih_at){r->seg, r->hits[i].doc, km};
    }
    for (uint32_t k = 0; k < s->nkids && !st; k++) {
        ih_at *copy = (ih_at *)(void *)tv_arena_memdup(a, kat, (km + 1) * sizeof *kat);
        st = copy ? collect_tree(s->kids[k], snap, copy, km, slots, a) : TROVE_ENOMEM;
    }
    return st;
}

tv_status tv_nested_inner_hits_bind(tv_dsl *d, const tv_search_target *t, tv_nested_q *const *defs, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        tv_status st = defs[i]->ih_hl ? tv_hl_bind(d, defs[i]->ih_hl, t, defs[i]->inner, &defs[i]->ih_hlt) : TROVE_OK;
        if (!st && defs[i]->nkids) st = tv_nested_inner_hits_bind(d, t, defs[i]->kids, defs[i]->nkids);
        if (st) return st;
    }
    return TROVE_OK;
}

tv_status tv_nested_inner_hits_collect(tv_nested_q *const *defs, uint32_t n, const tv_snapshot *snap, uint32_t npage,
                                       const uint32_t *page, const uint32_t *segs, const uint32_t *docs, uint32_t m,
                                       tv_arena *a, tv_error *err) {
    for (uint32_t i = 0; i < n; i++) {
        ih_at *at = tv_arena_alloc(a, (m + 1) * sizeof *at);
        if (!at) return tv_error_set(err, TROVE_ENOMEM, "out of memory");
        for (uint32_t k = 0; k < m; k++) at[k] = (ih_at){segs[k], docs[k], page[k]};
        tv_status st = collect_tree(defs[i], snap, at, m, npage, a);
        if (st) return tv_error_set(err, st, "out of memory");
    }
    return TROVE_OK;
}

/* The element `offset` of the root source's value at path (an object, or
 * the offset-th element of an array, nulls included as OpenSearch's list
 * index counts them). NULL when absent. */
static const tv_json *source_at(const tv_json *root, const char *path, size_t plen, uint32_t offset) {
    const tv_json *v = root;
    size_t i = 0;
    while (v && i <= plen) {
        size_t j = i;
        while (j < plen && path[j] != '.') j++;
        if (v->type != TV_JSON_OBJECT) return NULL;
        const tv_json *next = NULL;
        for (uint32_t k = 0; k < v->len && !next; k++)
            if (v->v.members[k].key_len == j - i && !memcmp(v->v.members[k].key, path + i, j - i))
                next = &v->v.members[k].val;
        v = next;
        i = j + 1;
    }
    if (!v) return NULL;
    if (v->type == TV_JSON_ARRAY) return offset < v->len ? &v->v.items[offset] : NULL;
    return offset == 0 ? v : NULL;
}

tv_status tv_nested_identity(const tv_mapping *m, const tv_segment *seg, uint32_t doc, tv_nested_ident *out) {
    memset(out, 0, sizeof *out);
    uint32_t md = tv_segment_max_doc(seg);
    const uint64_t *roots = tv_segment_roots(seg, NULL);
    const tv_field *f = nest_field(m, seg, doc);
    if (!roots || !f) return TROVE_EINTERNAL;
    /* innermost first: each level's doc, then its parent (the next doc of
     * the enclosing nested object, or the next root) */
    uint32_t docs[TV_NESTED_MAX_LEVELS];
    const tv_field *fs[TV_NESTED_MAX_LEVELS];
    uint32_t n = 0, x = doc;
    while (f) {
        if (n == TV_NESTED_MAX_LEVELS) return TROVE_EINTERNAL;
        docs[n] = x;
        fs[n++] = f;
        const tv_field *up = f->nested_scope;
        uint32_t p = x + 1;
        if (!up) p = next_set(roots, p, md);
        else
            while (p < md && tv_segment_nest(seg, p) != up->id + 1) p++;
        if (p >= md) return TROVE_EINTERNAL;
        x = p;
        f = up;
    }
    out->root = x;
    /* outermost first: the offset among same-path docs in the parent's block */
    out->n = n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t lv = n - 1 - i, d = docs[lv], parent = lv + 1 < n ? docs[lv + 1] : out->root;
        const tv_field *pf = lv + 1 < n ? fs[lv + 1] : NULL;
        uint32_t start = block_start(m, seg, parent);
        uint32_t want = fs[lv]->id + 1, off = 0;
        for (uint32_t k = start; k < d; k++) off += tv_segment_nest(seg, k) == want;
        out->level[i].rel = pf ? fs[lv]->path + pf->path_len + 1 : fs[lv]->path;
        out->level[i].offset = off;
    }
    return TROVE_OK;
}

void tv_nested_ident_write(tv_jw *w, const tv_nested_ident *id) {
    tv_jw_keyz(w, "_nested");
    for (uint32_t i = 0; i < id->n; i++) {
        if (i) tv_jw_keyz(w, "_nested");
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "field");
        tv_jw_strz(w, id->level[i].rel);
        tv_jw_keyz(w, "offset");
        tv_jw_uint(w, id->level[i].offset);
    }
    for (uint32_t i = 0; i < id->n; i++) tv_jw_obj_end(w);
}

const tv_json *tv_nested_ident_source(const tv_nested_ident *id, const tv_json *root_src) {
    const tv_json *v = root_src;
    for (uint32_t i = 0; v && i < id->n; i++)
        v = source_at(v, id->level[i].rel, strlen(id->level[i].rel), id->level[i].offset);
    return v;
}

/* The object wrapped in its paths ({"a": {"b": {...}}}): the source
 * FetchPhase gives a nested hit's highlighter and source filter. */
static void wrap_object(const tv_nested_ident *id, const tv_json *obj, tv_buf *out) {
    tv_jw w;
    tv_jw_init(&w, out, false);
    for (uint32_t lv = 0; lv < id->n; lv++) {
        tv_jw_obj_begin(&w);
        tv_jw_keyz(&w, id->level[lv].rel);
    }
    tv_jw_value(&w, obj);
    for (uint32_t lv = 0; lv < id->n; lv++) tv_jw_obj_end(&w);
}

tv_status tv_nested_write_source(tv_jw *w, tv_arena *a, const tv_nested_ident *id, const tv_json *obj, const char **inc,
                                 size_t ninc, const char **exc, size_t nexc) {
    if (!ninc && !nexc) {
        tv_jw_keyz(w, "_source");
        tv_jw_value(w, obj);
        return TROVE_OK;
    }
    /* FetchSourcePhase: the filter applies to the wrapped object, then
     * getNestedSource unwraps it */
    tv_buf wb, fb;
    tv_buf_init(&wb);
    tv_buf_init(&fb);
    wrap_object(id, obj, &wb);
    tv_jw fw;
    tv_jw_init(&fw, &fb, false);
    if (!wb.oom) tv_search_write_source(&fw, a, wb.data, wb.len, inc, ninc, exc, nexc);
    tv_json *f = NULL;
    tv_status st = wb.oom || fb.oom ? TROVE_ENOMEM : tv_json_parse(a, fb.data, fb.len, &f, NULL);
    tv_buf_fini(&wb);
    if (st) {
        tv_buf_fini(&fb);
        return st == TROVE_ENOMEM ? st : TROVE_EINTERNAL;
    }
    const tv_json *v = f;
    for (uint32_t lv = 0; v && lv < id->n; lv++) v = tv_json_get(v, id->level[lv].rel);
    tv_jw_keyz(w, "_source");
    if (v && v->type == TV_JSON_OBJECT) {
        tv_jw_value(w, v);
    } else { /* nothing left: FetchSourcePhase writes an empty object */
        tv_jw_obj_begin(w);
        tv_jw_obj_end(w);
    }
    tv_buf_fini(&fb);
    return TROVE_OK;
}

/* One definition's hits for the page's hit `pi` (root `doc` of segment
 * segi), collected by tv_nested_inner_hits_collect. */
static tv_status write_group(tv_nested_q *const *defs, uint32_t n, const tv_snapshot *snap, uint32_t seg, uint32_t slot,
                             const char *index, const tv_doc_meta *meta, const tv_json *root, tv_arena *a, tv_jw *out,
                             tv_error *err);

static tv_status write_one(tv_nested_q *s, const tv_snapshot *snap, uint32_t segi, uint32_t pi, const char *index,
                           const tv_doc_meta *meta, const tv_json *src, tv_arena *a, tv_jw *out, tv_error *err) {
    const tv_segment *seg = snap->segs[segi].seg;
    static const ih_res none;
    const ih_res *r = pi < s->nres ? &s->res[pi] : &none;
    const ih_hit *hits = r->hits;
    uint32_t nh = r->n;
    tv_jw_keyz(out, s->ih_name ? s->ih_name : s->path->path);
    tv_jw_obj_begin(out);
    tv_jw_keyz(out, "hits");
    tv_jw_obj_begin(out);
    tv_jw_keyz(out, "total");
    tv_jw_obj_begin(out);
    tv_jw_keyz(out, "value");
    tv_jw_uint(out, nh);
    tv_jw_keyz(out, "relation");
    tv_jw_strz(out, "eq");
    tv_jw_obj_end(out);
    /* sorted by a field, scores are tracked only with track_scores */
    bool by_field = false;
    for (uint32_t k = 0; k < s->ih_sort.th_nsorts; k++) by_field |= s->ih_sort.th_sorts[k].field != NULL;
    bool scores = !by_field || s->ih_track_scores;
    tv_jw_keyz(out, "max_score");
    if (nh && s->ih_size > 0 && scores) tv_jw_float(out, r->max_score);
    else tv_jw_null(out);
    tv_jw_keyz(out, "hits");
    tv_jw_arr_begin(out);
    for (size_t i = (size_t)s->ih_from; i < nh && (int64_t)i < s->ih_from + s->ih_size; i++) {
        tv_nested_ident id;
        if (tv_nested_identity(snap->mapping, seg, hits[i].doc, &id))
            return tv_error_set(err, TROVE_EINTERNAL, "a nested document outside its block");
        tv_jw_obj_begin(out);
        tv_jw_keyz(out, "_index");
        tv_jw_strz(out, index ? index : "");
        tv_jw_keyz(out, "_id");
        tv_jw_str(out, meta->id, meta->id_len);
        tv_nested_ident_write(out, &id);
        tv_hit_write_versions(out, meta, s->ih_version, s->ih_seq_no);
        tv_jw_keyz(out, "_score");
        if (scores) tv_jw_float(out, hits[i].score);
        else tv_jw_null(out);
        const tv_json *obj = src ? tv_nested_ident_source(&id, src) : NULL;
        if (obj && s->ih_source) {
            tv_status st = tv_nested_write_source(out, a, &id, obj, s->ih_inc, s->ih_ninc, s->ih_exc, s->ih_nexc);
            if (st) return tv_error_set(err, st, "%s", trove_status_message(st));
        }
        if (obj && s->ih_hlt) { /* the highlighter reads the object wrapped in its paths */
            tv_buf wb;
            tv_buf_init(&wb);
            wrap_object(&id, obj, &wb);
            tv_status st = wb.oom ? TROVE_ENOMEM
                                  : tv_hl_write(s->ih_hlt, a, wb.data, wb.len, hits[i].doc, meta->id, meta->id_len, out, err);
            tv_buf_fini(&wb);
            if (st) return st;
        }
        if (s->ih_sort.th_nsorts && (by_field || s->ih_sort.th_nsorts > 1 || !s->ih_sort.th_sorts[0].desc))
            tv_agg_hit_write_sort(out, &s->ih_sort, s->ih_sortf, &hits[i]);
        if (s->nkids) { /* the inner hits of the nested queries inside, under this hit */
            tv_jw_keyz(out, "inner_hits");
            tv_jw_obj_begin(out);
            tv_status st = write_group(s->kids, s->nkids, snap, segi, r->slot0 + (uint32_t)(i - (size_t)s->ih_from), index,
                                       meta, src, a, out, err);
            if (st) return st;
            tv_jw_obj_end(out);
        }
        tv_jw_obj_end(out);
    }
    tv_jw_arr_end(out);
    tv_jw_obj_end(out);
    tv_jw_obj_end(out);
    return TROVE_OK;
}

/* The definitions' members of an "inner_hits" object, for result slot
 * `slot` of each, in HashMap order (InnerHitsPhase fills a HashMap). */
static tv_status write_group(tv_nested_q *const *defs, uint32_t n, const tv_snapshot *snap, uint32_t seg, uint32_t slot,
                             const char *index, const tv_doc_meta *meta, const tv_json *root, tv_arena *a, tv_jw *out,
                             tv_error *err) {
    const char **names = tv_arena_alloc(a, (n + 1) * sizeof *names);
    uint32_t *ord = tv_arena_alloc(a, (n + 1) * sizeof *ord);
    if (!names || !ord) return tv_error_set(err, TROVE_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) names[i] = defs[i]->ih_name ? defs[i]->ih_name : defs[i]->path->path;
    tv_java_hashmap_order(names, n, ord);
    for (uint32_t i = 0; i < n; i++) {
        tv_status st = write_one(defs[ord[i]], snap, seg, slot, index, meta, root, a, out, err);
        if (st) return err->code == st ? st : tv_error_set(err, st, "%s", trove_status_message(st));
    }
    return TROVE_OK;
}

tv_status tv_nested_inner_hits_write(tv_nested_q *const *defs, uint32_t n, const tv_snapshot *snap, uint32_t seg,
                                     uint32_t doc, uint32_t page, const char *index, tv_arena *a, tv_jw *out,
                                     tv_error *err) {
    tv_doc_meta meta;
    const char *src = NULL;
    size_t src_len = 0;
    tv_status st = tv_segment_doc(snap->segs[seg].seg, doc, a, &meta, &src, &src_len);
    if (st) return tv_error_set(err, st, "%s", trove_status_message(st));
    tv_json *root = NULL;
    if (src && tv_json_parse(a, src, src_len, &root, NULL) != TROVE_OK) root = NULL;
    return write_group(defs, n, snap, seg, page, index, &meta, root, a, out, err);
}
