/*
 * hit_sort.c — the sort of top_hits and of nested inner_hits: up to
 * TV_HIT_SORT_MAX keys, each _score or a field's doc value (the smallest
 * of a doc's values ascending, the largest descending, missing values
 * last), ties by target, segment and doc; and the hit's "sort" array as
 * SearchHit prints it.
 *
 * The search's own sort (search/search.c) is richer (missing, mode,
 * nested, unmapped_type, search_after); these two share this one.
 *
 * Ownership: a parsed sort lives in the request arena; key values point
 * into the segment's doc values (or the arena) and live while the
 * snapshot is held.
 */
#include "fetch/fetch.h"
#include "query/parse.h"

/* TopHitsAggregationBuilder's and InnerHitBuilder's "sort", parsed as the
 * search's (sort.c); the options these do not run answer 400 by name
 * (what names the option in errors). */
tv_status tv_hit_sort_parse(tv_dsl *d, const tv_json *sort, const char *what, tv_hit_sort *a) {
    tv_sort_spec *specs = NULL;
    size_t n = 0;
    tv_status st = tv_sort_parse(d, sort, &specs, &n);
    if (st) return st;
    if (n > TV_HIT_SORT_MAX)
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, sort->off, "more than %d [%s] sort keys are not supported by trove",
                            TV_HIT_SORT_MAX, what);
    a->keys = tv_arena_calloc(d->arena, n + 1, sizeof *a->keys);
    if (!a->keys) return tv_error_oom(d->err);
    for (size_t k = 0; k < n; k++) {
        const tv_sort_spec *sp = &specs[k];
        const char *opt = sp->kind == TV_SORT_DOC           ? (sp->shard_doc ? "_shard_doc" : "_doc")
                          : sp->kind == TV_SORT_GEO          ? "_geo_distance"
                          : sp->kind == TV_SORT_SCRIPT      ? "_script"
                          : sp->missing_first               ? "missing"
                          : sp->mode != TV_SORT_MODE_DEFAULT ? "mode"
                          : sp->unmapped_type                ? "unmapped_type"
                          : sp->nested_path                  ? "nested"
                          : sp->numeric_type                 ? "numeric_type"
                          : sp->format                       ? "format"
                                                             : NULL;
        if (opt)
            return tv_dsl_error(d, TROVE_EUNSUPPORTED, sort->off, "[%s] in a [%s] sort is not supported by trove", opt,
                                what);
        a->keys[k].field = sp->kind == TV_SORT_SCORE ? NULL : sp->field;
        a->keys[k].desc = sp->desc;
    }
    a->n = (uint32_t)n;
    return TROVE_OK;
}

int tv_hit_cmp(const tv_hit_sort *a, const tv_hit *x, const tv_hit *y) {
    for (uint32_t k = 0; k < a->n; k++) {
        const tv_hit_sort_key *so = &a->keys[k];
        int c;
        if (!so->field) {
            c = x->score < y->score ? -1 : x->score > y->score;
        } else {
            if ((x->sk[k] == 0) != (y->sk[k] == 0)) return x->sk[k] == 0 ? 1 : -1; /* missing last */
            if (x->sk[k] == 0) c = 0;
            else if (x->sk[k] == 1) c = x->sv[k] < y->sv[k] ? -1 : x->sv[k] > y->sv[k];
            else c = tv_memcmp2(x->ss[k], x->sl[k], y->ss[k], y->sl[k]);
        }
        if (so->desc) c = -c;
        if (c) return c;
    }
    if (!a->n && x->score != y->score) return x->score > y->score ? -1 : 1;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    if (x->seg != y->seg) return x->seg < y->seg ? -1 : 1;
    return x->doc < y->doc ? -1 : x->doc > y->doc;
}

tv_status tv_hit_sort_keys(const tv_hit_sort *a, const tv_field *const *f, const tv_segment *seg, uint32_t doc,
                           tv_arena *arena, tv_hit *h) {
    for (uint32_t k = 0; k < a->n; k++) {
        if (!f[k]) continue;
        bool max = a->keys[k].desc;
        if (f[k]->dv_kind == TV_DV_NUMERIC) {
            int64_t buf[16], *v = buf;
            uint32_t n = tv_segment_dv_numeric(seg, f[k]->id, doc, buf, 16);
            if (n > 16) { /* the max is the last value: read them all */
                if (!(v = tv_arena_alloc(arena, (size_t)n * sizeof *v))) return TROVE_ENOMEM;
                n = tv_segment_dv_numeric(seg, f[k]->id, doc, v, n);
            }
            if (n) {
                h->sk[k] = 1;
                h->sv[k] = max ? v[n - 1] : v[0];
            }
        } else if (f[k]->dv_kind == TV_DV_SORTED_SET) {
            uint32_t buf[16], *o = buf;
            uint32_t n = tv_segment_dv_ords(seg, f[k]->id, doc, buf, 16);
            if (n > 16) {
                if (!(o = tv_arena_alloc(arena, (size_t)n * sizeof *o))) return TROVE_ENOMEM;
                n = tv_segment_dv_ords(seg, f[k]->id, doc, o, n);
            }
            const char *t;
            size_t tl;
            if (n && tv_segment_dv_term(seg, f[k]->id, max ? o[n - 1] : o[0], &t, &tl)) {
                h->sk[k] = 2;
                h->ss[k] = t;
                h->sl[k] = (uint32_t)tl;
            }
        }
    }
    return TROVE_OK;
}

void tv_hit_write_sort(tv_jw *w, const tv_hit_sort *a, const tv_field *const *fields, const tv_hit *h) {
    tv_jw_keyz(w, "sort");
    tv_jw_arr_begin(w);
    for (uint32_t k = 0; k < a->n; k++) {
        const tv_field *sf = fields ? fields[k] : NULL;
        if (!a->keys[k].field) tv_jw_float(w, h->score);
        else if (h->sk[k] == 2) {
            if (sf && sf->type == TV_FT_IP && h->sl[k] == 16) {
                char ipt[TV_IP_TEXT_MAX];
                tv_jw_str(w, ipt, tv_ip_format((const uint8_t *)h->ss[k], ipt));
            } else tv_jw_str(w, h->ss[k], h->sl[k]);
        } else if (h->sk[k] == 0) {
            /* Lucene's missing value: null for strings, the
             * extreme that sorts last for numbers */
            if (!sf || sf->dv_kind != TV_DV_NUMERIC) tv_jw_null(w);
            else if (tv_field_type_is_floating(sf->type)) tv_jw_strz(w, a->keys[k].desc ? "-Infinity" : "Infinity");
            else tv_jw_int(w, a->keys[k].desc ? INT64_MIN : INT64_MAX);
        } else if (sf && tv_field_type_is_floating(sf->type)) {
            double dv = tv_sortable_to_double(h->sv[k]);
            if (sf->type == TV_FT_DOUBLE) tv_jw_double(w, dv);
            else tv_jw_float(w, (float)dv);
        } else if (sf && sf->type == TV_FT_SCALED_FLOAT) tv_jw_double(w, (double)h->sv[k] / sf->scaling_factor);
        else if (sf && sf->type == TV_FT_UNSIGNED_LONG) tv_jw_uint(w, tv_sortable_to_unsigned(h->sv[k]));
        else tv_jw_int(w, h->sv[k]);
    }
    tv_jw_arr_end(w);
}
