/*
 * inner_hits.c — the inner_hits of nested queries (OpenSearch's
 * InnerHitBuilder and NestedInnerHitSubContext), and the nested identity
 * of a nested hit, which top_hits of nested docs print too.
 *
 * The nested query (query/dsl_nested.c) calls tv_fetch_inner_hits through
 * tv_dsl.inner_hits to parse the options and check them against the
 * target; the search's fetch phase binds, collects and writes them.
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
 * one has none, as extractInnerHitBuilders does. docvalue_fields read
 * the nested doc's doc values (and its metadata as a nested doc holds
 * them). Not reproduced (400 naming it): the inner_hits options explain,
 * fields, stored_fields and script_fields. A _source filter
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

#include "fetch/fetch.h"
#include "fetch/highlight.h"
#include "query/parse.h"

/* The options of one definition, and what the fetch phase keeps for it. */
struct tv_inner_hits {
    int64_t from, size;
    bool source, version, seq_no, track_scores;
    bool total_as_int;        /* hits.total as a number (tv_dsl.total_as_int) */
    const char **inc, **exc; /* _source includes / excludes */
    size_t ninc, nexc;
    const char **dv, **dv_formats; /* "docvalue_fields" */
    size_t ndv;
    tv_hl *hl;                /* "highlight" (NULL: none) */
    tv_hl_target *hlt;        /* ... bound to the target (tv_inner_hits_bind) */
    tv_hit_sort sort;         /* "sort" (top_hits' machinery) */
    const tv_field *sortf[TV_HIT_SORT_MAX]; /* the sort keys' fields (NULL: _score) */
    struct ih_res *res;       /* per parent: the page's hits, or (for kids) the
                                 window hits of the enclosing definition */
    uint32_t nres;
};

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
static tv_status parse_inner_hits(tv_dsl *d, const tv_json *v, tv_inner_hits **out, const char **name) {
    tv_inner_hits *s = tv_arena_calloc(d->arena, 1, sizeof *s);
    if (!s) return TROVE_ENOMEM;
    *out = s;
    s->size = 3;
    s->source = true;
    s->total_as_int = d->total_as_int;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        const tv_json *x = &m->val;
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)TV_MIN(m->key_len, 60u), m->key);
        if (!strcmp(key, "name")) {
            if (x->type != TV_JSON_STRING)
                return tv_dsl_error(d, TROVE_EPARSE, x->off, "[inner_hits] name doesn't support values of type: %s",
                                    tv_dsl_token_name(x));
            *name = tv_arena_strndup(d->arena, x->v.s, x->len);
            if (!*name) return TROVE_ENOMEM;
        } else if (!strcmp(key, "from") || !strcmp(key, "size")) {
            int64_t n;
            tv_status st = tv_dsl_int(d, "inner_hits", key, x, &n);
            if (st) return st;
            *(key[0] == 'f' ? &s->from : &s->size) = n;
        } else if (!strcmp(key, "version") || !strcmp(key, "seq_no_primary_term") || !strcmp(key, "ignore_unmapped") ||
                   !strcmp(key, "track_scores")) {
            bool b;
            tv_status st = tv_dsl_bool(d, "inner_hits", key, x, &b);
            if (st) return st;
            if (key[0] == 'v') s->version = b;
            else if (key[0] == 's') s->seq_no = b;
            else if (key[0] == 't') s->track_scores = b;
        } else if (!strcmp(key, "_source")) {
            /* FetchSourceContext: a boolean, a pattern or patterns, or
             * {includes, excludes} */
            tv_status st = TROVE_OK;
            if (x->type == TV_JSON_TRUE || x->type == TV_JSON_FALSE) s->source = x->type == TV_JSON_TRUE;
            else if (x->type == TV_JSON_STRING || x->type == TV_JSON_ARRAY) st = str_list(d, x, &s->inc, &s->ninc);
            else if (x->type == TV_JSON_OBJECT) {
                for (uint32_t k = 0; k < x->len && !st; k++) {
                    const tv_json_member *sm = &x->v.members[k];
                    if (tv_streq(sm->key, sm->key_len, "includes") || tv_streq(sm->key, sm->key_len, "include"))
                        st = str_list(d, &sm->val, &s->inc, &s->ninc);
                    else if (tv_streq(sm->key, sm->key_len, "excludes") || tv_streq(sm->key, sm->key_len, "exclude"))
                        st = str_list(d, &sm->val, &s->exc, &s->nexc);
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
            tv_status st = tv_hl_parse(d, x, &s->hl);
            if (st) return st;
        } else if (!strcmp(key, "sort")) {
            tv_status st = tv_hit_sort_parse(d, x, "inner_hits", &s->sort);
            if (st) return st;
        } else if (!strcmp(key, "docvalue_fields") && x->type == TV_JSON_ARRAY) {
            tv_status st = tv_fetch_docvalues_parse(d, x, &s->dv, &s->dv_formats, &s->ndv);
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
    if (s->from < 0) return tv_dsl_error(d, TROVE_EARG, v->off, "illegal from value, at least 0 or higher");
    if (s->size < 0) return tv_dsl_error(d, TROVE_EARG, v->off, "illegal size value, at least 0 or higher");
    return TROVE_OK;
}

/* InnerHitContextBuilder's check of index.max_inner_result_window. */
static tv_status check_window(tv_dsl *d, const tv_nested_q *nq) {
    const tv_inner_hits *s = nq->ih;
    int64_t max = d->max_inner_window > 0 ? d->max_inner_window : 100;
    if (s->from + s->size <= max) return TROVE_OK;
    tv_error_set(d->err, TROVE_EARG,
                 "Inner result window is too large, the inner hit definition's [%s]'s from + size must be less "
                 "than or equal to: [%lld] but was [%lld]. This limit can be set by changing the "
                 "[index.max_inner_result_window] index level setting.",
                 nq->ih_key, (long long)max, (long long)(s->from + s->size));
    if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
    return TROVE_EARG;
}

/* tv_inner_hits_ops.check: InnerHitContextBuilder's window check, then
 * the sort's fields as the target maps them. */
static tv_status check_inner_hits(tv_dsl *d, tv_nested_q *nq) {
    tv_inner_hits *s = nq->ih;
    tv_status st = check_window(d, nq);
    if (st) return st;
    for (uint32_t k = 0; k < s->sort.n; k++) {
        const char *fname = s->sort.keys[k].field;
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
        s->sortf[k] = sf;
    }
    return TROVE_OK;
}

const tv_inner_hits_ops tv_fetch_inner_hits = {parse_inner_hits, check_inner_hits};

/* ----------------------------------------------------------- inner hits */

/* An inner hit is a top_hits hit: doc, score and sort keys. */
typedef tv_hit ih_hit;

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
static _Thread_local const tv_hit_sort *cmp_sort;

static int cmp_ih(const void *a, const void *b) { return tv_hit_cmp(cmp_sort, a, b); }

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
        uint32_t p = roots ? tv_bits_prev(roots, doc, tv_segment_max_doc(seg)) : UINT32_MAX;
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
                if (!tv_bits_get(cb, c)) continue;
                ih_hit h;
                memset(&h, 0, sizeof h);
                h.doc = c;
                h.seg = at[k].seg;
                h.score = tv_iter_score(it);
                if (h.score > r->max_score) r->max_score = h.score;
                if ((st = tv_hit_sort_keys(&s->ih->sort, s->ih->sortf, sv->seg, c, a, &h))) break;
                if (tv_vec_push(&hits, h)) {
                    st = TROVE_ENOMEM;
                    break;
                }
            }
            if (st || !hits.len) continue;
            cmp_sort = &s->ih->sort;
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
    if (!(s->ih->res = tv_arena_calloc(a, nparents + 1, sizeof *s->ih->res))) return TROVE_ENOMEM;
    s->ih->nres = nparents;
    qsort(at, m, sizeof *at, cmp_at);
    tv_status st = collect_one(s, snap, at, m, s->ih->res, a);
    if (st || !s->nkids) return st;
    uint32_t slots = 0;
    for (uint32_t p = 0; p < nparents; p++) {
        ih_res *r = &s->ih->res[p];
        r->slot0 = slots;
        if ((int64_t)r->n > s->ih->from) slots += (uint32_t)TV_MIN((int64_t)r->n - s->ih->from, s->ih->size);
    }
    ih_at *kat = tv_arena_alloc(a, (slots + 1) * sizeof *kat);
    if (!kat) return TROVE_ENOMEM;
    uint32_t km = 0;
    for (uint32_t p = 0; p < nparents; p++) {
        const ih_res *r = &s->ih->res[p];
        for (int64_t i = s->ih->from; i < r->n && i < s->ih->from + s->ih->size; i++, km++)
            kat[km] = (ih_at){r->seg, r->hits[i].doc, km};
    }
    for (uint32_t k = 0; k < s->nkids && !st; k++) {
        ih_at *copy = (ih_at *)(void *)tv_arena_memdup(a, kat, (km + 1) * sizeof *kat);
        st = copy ? collect_tree(s->kids[k], snap, copy, km, slots, a) : TROVE_ENOMEM;
    }
    return st;
}

tv_status tv_inner_hits_bind(tv_dsl *d, const tv_search_target *t, tv_nested_q *const *defs, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        tv_status st = defs[i]->ih->hl ? tv_hl_bind(d, defs[i]->ih->hl, t, defs[i]->inner, &defs[i]->ih->hlt) : TROVE_OK;
        if (!st && defs[i]->nkids) st = tv_inner_hits_bind(d, t, defs[i]->kids, defs[i]->nkids);
        if (st) return st;
    }
    return TROVE_OK;
}

tv_status tv_inner_hits_collect(tv_nested_q *const *defs, uint32_t n, const tv_snapshot *snap, uint32_t npage,
                                       const uint32_t *page, const uint32_t *segs, const uint32_t *docs, uint32_t m,
                                       tv_arena *a, tv_error *err) {
    for (uint32_t i = 0; i < n; i++) {
        ih_at *at = tv_arena_alloc(a, (m + 1) * sizeof *at);
        if (!at) return tv_error_oom(err);
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
        if (!up) p = tv_bits_next(roots, p, md);
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
    if (!wb.oom) tv_fetch_write_source(&fw, a, wb.data, wb.len, inc, ninc, exc, nexc);
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
 * segi), collected by tv_inner_hits_collect. */
static tv_status write_group(tv_nested_q *const *defs, uint32_t n, const tv_snapshot *snap, uint32_t seg, uint32_t slot,
                             const char *index, const tv_doc_meta *meta, const tv_json *root, tv_arena *a, tv_jw *out,
                             tv_error *err);

static tv_status write_one(tv_nested_q *s, const tv_snapshot *snap, uint32_t segi, uint32_t pi, const char *index,
                           const tv_doc_meta *meta, const tv_json *src, tv_arena *a, tv_jw *out, tv_error *err) {
    const tv_segment *seg = snap->segs[segi].seg;
    static const ih_res none;
    const ih_res *r = pi < s->ih->nres ? &s->ih->res[pi] : &none;
    const ih_hit *hits = r->hits;
    uint32_t nh = r->n;
    tv_jw_keyz(out, s->ih_key);
    tv_jw_obj_begin(out);
    tv_jw_keyz(out, "hits");
    tv_jw_obj_begin(out);
    tv_fetch_write_total(out, nh, s->ih->total_as_int);
    /* sorted by a field, scores are tracked only with track_scores */
    bool by_field = false;
    for (uint32_t k = 0; k < s->ih->sort.n; k++) by_field |= s->ih->sort.keys[k].field != NULL;
    bool scores = !by_field || s->ih->track_scores;
    tv_jw_keyz(out, "max_score");
    if (nh && s->ih->size > 0 && scores) tv_jw_float(out, r->max_score);
    else tv_jw_null(out);
    tv_jw_keyz(out, "hits");
    tv_jw_arr_begin(out);
    for (size_t i = (size_t)s->ih->from; i < nh && (int64_t)i < s->ih->from + s->ih->size; i++) {
        tv_nested_ident id;
        if (tv_nested_identity(snap->mapping, seg, hits[i].doc, &id))
            return tv_error_set(err, TROVE_EINTERNAL, "a nested document outside its block");
        tv_jw_obj_begin(out);
        tv_jw_keyz(out, "_index");
        tv_jw_strz(out, index ? index : "");
        tv_jw_keyz(out, "_id");
        tv_jw_str(out, meta->id, meta->id_len);
        tv_nested_ident_write(out, &id);
        tv_hit_write_versions(out, meta, s->ih->version, s->ih->seq_no);
        tv_jw_keyz(out, "_score");
        if (scores) tv_jw_float(out, hits[i].score);
        else tv_jw_null(out);
        const tv_json *obj = src ? tv_nested_ident_source(&id, src) : NULL;
        if (obj && s->ih->source) {
            tv_status st = tv_nested_write_source(out, a, &id, obj, s->ih->inc, s->ih->ninc, s->ih->exc, s->ih->nexc);
            if (st) return tv_error_set(err, st, "%s", trove_status_message(st));
        }
        if (s->ih->ndv) { /* document fields: after _source, before highlight (SearchHit) */
            tv_fetched *df = tv_arena_alloc(a, (s->ih->ndv + 1) * sizeof *df);
            if (!df) return tv_error_oom(err);
            size_t ndf = 0;
            tv_buf fb;
            tv_buf_init(&fb);
            tv_fetch_docvalues(a, snap->mapping, seg, hits[i].doc, s->ih->dv, s->ih->dv_formats, s->ih->ndv, meta, true,
                               df, &ndf, &fb);
            bool oom = fb.oom;
            tv_buf_fini(&fb);
            if (oom || tv_fetch_write_fields(out, df, ndf, a)) return tv_error_oom(err);
        }
        if (obj && s->ih->hlt) { /* the highlighter reads the object wrapped in its paths */
            tv_buf wb;
            tv_buf_init(&wb);
            wrap_object(&id, obj, &wb);
            tv_status st = wb.oom ? TROVE_ENOMEM
                                  : tv_hl_write(s->ih->hlt, a, wb.data, wb.len, hits[i].doc, meta->id, meta->id_len, out, err);
            tv_buf_fini(&wb);
            if (st) return st;
        }
        if (s->ih->sort.n && (by_field || s->ih->sort.n > 1 || !s->ih->sort.keys[0].desc))
            tv_hit_write_sort(out, &s->ih->sort, s->ih->sortf, &hits[i]);
        if (s->nkids) { /* the inner hits of the nested queries inside, under this hit */
            tv_jw_keyz(out, "inner_hits");
            tv_jw_obj_begin(out);
            tv_status st = write_group(s->kids, s->nkids, snap, segi, r->slot0 + (uint32_t)(i - (size_t)s->ih->from), index,
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
    if (!names || !ord) return tv_error_oom(err);
    for (uint32_t i = 0; i < n; i++) names[i] = defs[i]->ih_key;
    tv_java_hashmap_order(names, n, ord);
    for (uint32_t i = 0; i < n; i++) {
        tv_status st = write_one(defs[ord[i]], snap, seg, slot, index, meta, root, a, out, err);
        if (st) return err->code == st ? st : tv_error_set(err, st, "%s", trove_status_message(st));
    }
    return TROVE_OK;
}

tv_status tv_inner_hits_write(tv_nested_q *const *defs, uint32_t n, const tv_snapshot *snap, uint32_t seg,
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
