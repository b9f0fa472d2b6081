/*
 * result.c — the targets' aggregation results reduced into one, the
 * pipeline aggregations, and the "aggregations" object as OpenSearch
 * writes it.
 *
 * Reduce (InternalAggregation.reduce): metric results add their counts,
 * Kahan-sum their shard sums afresh (a shard's compensation is not
 * carried, as it is not on the wire), and merge sketches into new ones;
 * bucket results merge buckets by key (terms, histograms) or by position
 * (range, filters, single-bucket) and reduce their sub-aggregations the
 * same way. Each target's terms buckets are first cut to shard_size the
 * way the shard cuts them (order, shard_min_doc_count), which is where
 * sum_other_doc_count and doc_count_error_upper_bound come from; with one
 * target the error is 0. The final reduce then applies min_doc_count, the
 * order (with _key ascending as the tie-break), size, histogram empty
 * buckets and extended_bounds, and counts buckets against
 * search.max_buckets (too_many_buckets_exception, 503).
 *
 * Response order: OpenSearch groups a level's results by name in a Java
 * HashMap before reducing them, so siblings come out in HashMap iteration
 * order, at every level, even from one shard (hash_order reproduces
 * String.hashCode, the spread and the table size). Sibling pipeline
 * results follow the regular ones; a parent pipeline's (derivative,
 * cumulative_sum) follows its bucket's sub-aggregations.
 *
 * Numbers print as Java prints doubles (tv_jw_double); a NaN or infinite
 * metric prints null where OpenSearch's writer checks for it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "index/date.h"
#include "index/rounding.h"
#include "index/tz.h"
#include "aggs/aggs.h"
#include "query/parse.h"
#include "aggs/hll.h"
#include "aggs/tdigest.h"
#include "aggs/hdr.h"

typedef struct red {
    tv_agg_ctx *c;
    int64_t buckets;  /* consumed (MultiBucketConsumer) */
} red;


/* Pipelines that run over their parent histogram's buckets. */
static bool parent_pipe(tv_agg_kind k) {
    return k == TV_AGG_DERIVATIVE || k == TV_AGG_CUMULATIVE_SUM || k == TV_AGG_MOVING_FN;
}

/* A percentile (percentiles) or percent rank (percentile_ranks) of a
 * reduced sketch: t-digest or HDR. */
static double pct_value(const tv_agg *a, void *sketch, double key) {
    if (a->hdr)
        return a->kind == TV_AGG_PERCENTILES ? tv_hdr_value_at(sketch, key) : tv_hdr_rank(sketch, key);
    return a->kind == TV_AGG_PERCENTILES ? tv_tdigest_quantile(sketch, key / 100.0) : tv_tdigest_cdf(sketch, key) * 100.0;
}

static tv_status r_oom(red *r) { return tv_error_oom(r->c->err); }

static tv_status consume(red *r, int64_t n) {
    r->buckets += n;
    if (r->c->max_buckets >= 0 && r->buckets > r->c->max_buckets) {
        tv_error_set(r->c->err, TROVE_ETOOMANYBUCKETS,
                     "Trying to create too many buckets. Must be less than or equal to: [%lld] but was [%lld]. This limit can be set by changing the [search.max_buckets] cluster level setting.",
                     (long long)r->c->max_buckets, (long long)r->buckets);
        return TROVE_ETOOMANYBUCKETS;
    }
    return TROVE_OK;
}

/* --------------------------------------------------------------- keys */

static int key_cmp(tv_key_kind kk, const agg_bucket *a, const agg_bucket *b) {
    switch (kk) {
    case TV_KEY_BYTES: return tv_memcmp2(a->ks, a->klen, b->ks, b->klen);
    case TV_KEY_ULONG: {
        uint64_t x = tv_sortable_to_unsigned(a->ki), y = tv_sortable_to_unsigned(b->ki);
        return x < y ? -1 : x > y;
    }
    case TV_KEY_DOUBLE: /* Double.compare: -0.0 and 0.0 are two keys */
        if (a->kd != b->kd) return a->kd < b->kd ? -1 : 1;
        return (signbit(b->kd) != 0) - (signbit(a->kd) != 0);
    default: return a->ki < b->ki ? -1 : a->ki > b->ki;
    }
}

/* ------------------------------------------------------ value formats */

/* DocValueFormat.format(double) into buf; false for RAW. */
static bool fmt_double(const agg_fmt *f, double v, char *buf, size_t cap) {
    switch (f->kind) {
    case TV_FMT_DATE:
    case TV_FMT_DATE_NANOS:
        tv_date_format_tz(tv_java_d2l(v), f->pattern, f->tz, buf, cap); /* DateTime.format((long) value) */
        return true;
    case TV_FMT_BOOL: snprintf(buf, cap, "%s", v != 0 ? "true" : "false"); return true;
    case TV_FMT_DECIMAL: tv_java_decimal_format(v, f->pattern, buf, cap); return true;
    default: return false;
    }
}

/* The key as a string (getKeyAsString). */
static void key_string(const agg_res *res, const agg_bucket *b, char *buf, size_t cap) {
    const agg_fmt *f = &res->fmt;
    switch (res->key_kind) {
    case TV_KEY_BYTES:
        if (f->kind == TV_FMT_IP && b->klen == 16) {
            char ip[TV_IP_TEXT_MAX];
            size_t l = tv_ip_format((const uint8_t *)b->ks, ip);
            snprintf(buf, cap, "%.*s", (int)l, ip);
        } else {
            snprintf(buf, cap, "%.*s", (int)b->klen, b->ks);
        }
        return;
    case TV_KEY_ULONG: snprintf(buf, cap, "%llu", (unsigned long long)tv_sortable_to_unsigned(b->ki)); return;
    case TV_KEY_DOUBLE:
        if (!fmt_double(f, b->kd, buf, cap)) tv_fmt_double(b->kd, buf);
        return;
    default:
        if (f->kind == TV_FMT_DATE) tv_date_format_tz(b->ki, f->pattern, f->tz, buf, cap);
        else if (f->kind == TV_FMT_BOOL) snprintf(buf, cap, "%s", b->ki ? "true" : "false");
        else if (f->kind == TV_FMT_DECIMAL) tv_java_decimal_format((double)b->ki, f->pattern, buf, cap);
        else snprintf(buf, cap, "%lld", (long long)b->ki);
        return;
    }
}

/* ------------------------------------------------------ metric values */

static double res_avg(const agg_res *r) { return r->count ? r->sum / (double)r->count : NAN; }

static double var_pop(const agg_res *r) {
    double v = (r->sumsq - (r->sum * r->sum) / (double)r->count) / (double)r->count;
    return v < 0 ? 0 : v;
}

static double var_samp(const agg_res *r) {
    double v = (r->sumsq - (r->sum * r->sum) / (double)r->count) / (double)(r->count - 1);
    return v < 0 ? 0 : v;
}

static tv_status hll_value(red *rd, const agg_res *r, int64_t *out) {
    if (!r->sketch) { *out = 0; return TROVE_OK; }
    int64_t v = tv_hll_cardinality(r->sketch);
    if (v < 0)
        return tv_error_set(rd->c->err, TROVE_EUNSUPPORTED,
                            "[cardinality] of [%s]: an estimate in this range needs HyperLogLog++ bias-correction data, which is not supported by trove; raise [precision_threshold] above the number of distinct values",
                            r->a->name);
    *out = v;
    return TROVE_OK;
}

/* The single value of a metric result (InternalNumericMetricsAggregation
 * .SingleValue.value()), or a named property of a multi-value one.
 * false: no such property. */
static bool metric_prop(const agg_res *r, const char *prop, double *out) {
    const tv_agg *a = r->a;
    switch (a->kind) {
    case TV_AGG_AVG: if (prop && strcmp(prop, "value")) return false; *out = res_avg(r); return true;
    case TV_AGG_SUM: if (prop && strcmp(prop, "value")) return false; *out = r->sum; return true;
    case TV_AGG_MIN: if (prop && strcmp(prop, "value")) return false; *out = r->min; return true;
    case TV_AGG_MAX: if (prop && strcmp(prop, "value")) return false; *out = r->max; return true;
    case TV_AGG_VALUE_COUNT: if (prop && strcmp(prop, "value")) return false; *out = (double)r->count; return true;
    case TV_AGG_WEIGHTED_AVG:
        if (prop && strcmp(prop, "value")) return false;
        *out = r->sum / r->wsum; /* no zero guard: 5/0 orders as +Infinity (printing checks the weight) */
        return true;
    case TV_AGG_CARDINALITY: {
        if (prop && strcmp(prop, "value")) return false;
        int64_t v = r->sketch ? tv_hll_cardinality(r->sketch) : 0;
        *out = v < 0 ? NAN : (double)v;
        return true;
    }
    case TV_AGG_STATS:
    case TV_AGG_EXTENDED_STATS:
    case TV_AGG_STATS_BUCKET:
        if (!prop) return false;
        if (!strcmp(prop, "count")) *out = (double)r->count;
        else if (!strcmp(prop, "min")) *out = r->count ? r->min : INFINITY;
        else if (!strcmp(prop, "max")) *out = r->count ? r->max : -INFINITY;
        else if (!strcmp(prop, "avg")) *out = res_avg(r);
        else if (!strcmp(prop, "sum")) *out = r->sum;
        else if (a->kind != TV_AGG_EXTENDED_STATS) return false;
        else if (!strcmp(prop, "sum_of_squares")) *out = r->count ? r->sumsq : NAN;
        else if (!strcmp(prop, "variance") || !strcmp(prop, "variance_population")) *out = r->count ? var_pop(r) : NAN;
        else if (!strcmp(prop, "variance_sampling")) *out = r->count ? var_samp(r) : NAN;
        else if (!strcmp(prop, "std_deviation") || !strcmp(prop, "std_deviation_population")) *out = r->count ? sqrt(var_pop(r)) : NAN;
        else if (!strcmp(prop, "std_deviation_sampling")) *out = r->count ? sqrt(var_samp(r)) : NAN;
        else return false;
        return true;
    case TV_AGG_MAD: if (prop && strcmp(prop, "value")) return false; *out = r->value; return true;
    case TV_AGG_PERCENTILES:
    case TV_AGG_PERCENTILE_RANKS: {
        if (!prop) return false;
        double p;
        if (!tv_java_parse_double(prop, strlen(prop), &p)) return false;
        if (!r->sketch) { *out = NAN; return true; }
        *out = pct_value(a, r->sketch, p);
        return true;
    }
    case TV_AGG_CUMULATIVE_SUM:
    case TV_AGG_DERIVATIVE:
    case TV_AGG_MOVING_FN:
    case TV_AGG_BUCKET_SCRIPT:
    case TV_AGG_AVG_BUCKET:
    case TV_AGG_SUM_BUCKET:
    case TV_AGG_MIN_BUCKET:
    case TV_AGG_MAX_BUCKET:
        if (prop && strcmp(prop, "value")) return false;
        *out = r->value;
        return true;
    default: return false;
    }
}

/* ----------------------------------------------------------- paths */

/* Finds the sub-result named name (len n) of a bucket. */
static const agg_res *sub_named(const tv_agg *parent, const agg_bucket *b, const char *name, size_t n) {
    if (!b->subs) return NULL;
    for (uint32_t i = 0; i < parent->nsubs; i++)
        if (b->subs[i] && tv_streq(name, n, parent->subs[i]->name)) return b->subs[i];
    return NULL;
}

typedef enum { PATH_OK, PATH_NONE, PATH_MULTI, PATH_NOT_NUMERIC, PATH_OBJECT, PATH_OBJARRAY } path_status;

/* The Java class OpenSearch names in BucketHelpers' resolution error for a
 * multi-bucket aggregation a path stops at. */
static const char *bucket_class(const agg_res *r) {
    switch (r->a->kind) {
    case TV_AGG_TERMS:
        if (!r->mapped) return "UnmappedTerms";
        return r->key_kind == TV_KEY_BYTES ? "StringTerms" : r->key_kind == TV_KEY_DOUBLE ? "DoubleTerms"
               : r->key_kind == TV_KEY_ULONG ? "UnsignedLongTerms" : "LongTerms";
    case TV_AGG_MULTI_TERMS: return "InternalMultiTerms";
    case TV_AGG_SIGNIFICANT_TERMS:
    case TV_AGG_SIGNIFICANT_TEXT:
        if (!r->mapped) return "UnmappedSignificantTerms";
        return r->key_kind == TV_KEY_BYTES ? "SignificantStringTerms" : "SignificantLongTerms";
    case TV_AGG_VARIABLE_WIDTH_HISTOGRAM: return "InternalVariableWidthHistogram";
    case TV_AGG_HISTOGRAM: return "InternalHistogram";
    case TV_AGG_DATE_HISTOGRAM: return "InternalDateHistogram";
    case TV_AGG_AUTO_DATE_HISTOGRAM: return "InternalAutoDateHistogram";
    case TV_AGG_RANGE: return r->a->geo ? "InternalGeoDistance" : "InternalRange";
    case TV_AGG_DATE_RANGE: return "InternalDateRange";
    case TV_AGG_FILTERS: return "InternalFilters";
    case TV_AGG_ADJACENCY_MATRIX: return "InternalAdjacencyMatrix";
    case TV_AGG_COMPOSITE: return "InternalComposite";
    default: return r->a->type_name;
    }
}

/* A bucket's value at path ("_count", "_key", "agg", "agg.prop", "agg[prop]",
 * "single_bucket>agg"), relative to bucket b of an aggregation `parent`. */
static path_status bucket_path_value(const tv_agg *parent, const agg_res *pres, const agg_bucket *b, const char *path,
                                     double *out, const agg_res **last) {
    if (!strcmp(path, "_count")) { *out = (double)b->doc_count; return PATH_OK; }
    if (!strcmp(path, "_key")) {
        if (pres->key_kind == TV_KEY_DOUBLE) *out = b->kd;
        else if (pres->key_kind == TV_KEY_BYTES) return PATH_NOT_NUMERIC;
        else *out = (double)b->ki;
        return PATH_OK;
    }
    const char *gt = strchr(path, '>');
    size_t seg = gt ? (size_t)(gt - path) : strlen(path);
    const char *dot = memchr(path, '.', seg), *br = memchr(path, '[', seg);
    size_t nl = dot ? (size_t)(dot - path) : br ? (size_t)(br - path) : seg;
    const agg_res *r = sub_named(parent, b, path, nl);
    if (!r) return PATH_NONE;
    if (last) *last = r;
    if (gt) {
        /* a multi-bucket aggregation inside the path answers an Object[]
         * of its buckets' values (InternalMultiBucketAggregation.getProperty) */
        if (tv_agg_is_bucket(r->a->kind) && !tv_agg_is_single_bucket(r->a->kind)) return PATH_OBJARRAY;
        if (!tv_agg_is_bucket(r->a->kind) || r->nb != 1 || !tv_agg_is_single_bucket(r->a->kind))
            return PATH_NONE;
        return bucket_path_value(r->a, r, &r->b[0], gt + 1, out, last);
    }
    char prop[128] = {0};
    if (dot) snprintf(prop, sizeof prop, "%.*s", (int)(seg - nl - 1), dot + 1);
    else if (br) snprintf(prop, sizeof prop, "%.*s", (int)(seg - nl - 2 > 0 ? seg - nl - 2 : 0), br + 1);
    if (tv_agg_is_bucket(r->a->kind)) {
        if (!tv_agg_is_single_bucket(r->a->kind) && !prop[0]) return PATH_OBJECT;
        if (r->nb == 1 && !prop[0]) { *out = (double)r->b[0].doc_count; return PATH_OK; }
        if (r->nb == 1 && !strcmp(prop, "_count")) { *out = (double)r->b[0].doc_count; return PATH_OK; }
        return PATH_NOT_NUMERIC;
    }
    if (!metric_prop(r, prop[0] ? prop : NULL, out)) return prop[0] ? PATH_NONE : PATH_MULTI;
    return PATH_OK;
}

static tv_status path_error(red *rd, path_status ps, const agg_res *last, const char *path, const char *agg) {
    tv_error *e = rd->c->err;
    if (ps == PATH_MULTI && last)
        tv_error_set(e, TROVE_EARG,
                     "buckets_path must reference either a number value or a single value numeric metric aggregation, but [%s] contains multiple values. Please specify which to use.",
                     last->a->name);
    else if (ps == PATH_OBJECT || ps == PATH_OBJARRAY) {
        /* BucketHelpers.formatResolutionError: the value's class, at the
         * path's first aggregation */
        size_t fl = strcspn(path, ">.[");
        const char *cls = ps == PATH_OBJARRAY || !last ? "Object[]" : bucket_class(last);
        tv_error_set(e, TROVE_EARG,
                     "buckets_path must reference either a number value or a single value numeric metric aggregation, got: [%s] at aggregation [%.*s]",
                     cls, (int)fl, path);
    } else if (ps == PATH_NOT_NUMERIC)
        tv_error_set(e, TROVE_EARG,
                     "buckets_path must reference either a number value or a single value numeric metric aggregation, got: [%s] at aggregation [%s]",
                     last ? last->a->type_name : "key", agg);
    else
        tv_error_set(e, TROVE_EARG, "No aggregation found for path [%s]", path);
    tv_error_as(e, TROVE_EAGGEXEC);
    return TROVE_EARG;
}

static int bytes_key_qcmp(const void *x, const void *y) {
    const agg_bucket *a = x, *b = y;
    return tv_memcmp2(a->ks, a->klen, b->ks, b->klen);
}

/* ------------------------------------------------------ terms order */

typedef struct ord_ctx {
    const tv_agg *a;
    const agg_res *res;
    red *rd;
    tv_status st;
} ord_ctx;

static _Thread_local ord_ctx *g_ord; /* qsort's context, per thread */

/* Comparators.compareDiscardNaN: NaN last whatever the direction, else
 * Double.compare (-0.0 before 0.0). */
static int cmp_nan_last(double x, double y, bool desc) {
    bool xn = x != x, yn = y != y;
    if (xn || yn) return xn == yn ? 0 : xn ? 1 : -1;
    int c = x < y ? -1 : x > y;
    if (!c && x == 0) c = (signbit(y) != 0) - (signbit(x) != 0);
    return desc ? -c : c;
}

static int order_cmp(const agg_bucket *x, const agg_bucket *y) {
    const ord_ctx *oc = g_ord;
    const tv_agg *a = oc->a;
    bool key_seen = false;
    for (uint32_t i = 0; i < a->norder; i++) {
        const tv_agg_order *o = &a->order[i];
        int c = 0;
        if (o->kind == TV_ORD_COUNT) c = x->doc_count < y->doc_count ? -1 : x->doc_count > y->doc_count;
        else if (o->kind == TV_ORD_KEY) { c = key_cmp(oc->res->key_kind, x, y); key_seen = true; }
        else {
            double vx = NAN, vy = NAN;
            bucket_path_value(a, oc->res, x, o->path, &vx, NULL);
            bucket_path_value(a, oc->res, y, o->path, &vy, NULL);
            c = cmp_nan_last(vx, vy, o->desc);
            if (c) return c;
            continue;
        }
        if (o->desc) c = -c;
        if (c) return c;
        if (o->kind == TV_ORD_KEY) return 0;
    }
    if (!a->norder) {
        int c = x->doc_count > y->doc_count ? -1 : x->doc_count < y->doc_count;
        if (c) return c;
    }
    if (key_seen) return 0;
    return key_cmp(oc->res->key_kind, x, y);
}

static int order_qcmp(const void *x, const void *y) { return order_cmp(x, y); }

static bool order_is_key(const tv_agg *a) { return a->norder && a->order[0].kind == TV_ORD_KEY; }
static bool order_is_count_desc(const tv_agg *a) {
    return !a->norder || (a->order[0].kind == TV_ORD_COUNT && a->order[0].desc);
}

/* Checks the terms order paths against the first result with buckets. */
static tv_status check_order(red *rd, const tv_agg *a) {
    for (uint32_t i = 0; i < a->norder; i++) {
        const tv_agg_order *o = &a->order[i];
        if (o->kind != TV_ORD_PATH) continue;
        const char *p = o->path;
        size_t n = strcspn(p, ".>[");
        bool found = false;
        for (uint32_t k = 0; k < a->nsubs && !found; k++)
            found = tv_streq(p, n, a->subs[k]->name) && !tv_agg_is_pipeline(a->subs[k]->kind);
        if (!found) {
            tv_error_set(rd->c->err, TROVE_EARG,
                         "Invalid aggregator order path [%s]. The provided aggregation [%.*s] either does not exist, or is a pipeline aggregation and cannot be used to sort the buckets.",
                         p, (int)n, p);
            tv_error_as(rd->c->err, TROVE_EAGGEXEC);
            return TROVE_EARG;
        }
    }
    return TROVE_OK;
}

/* ------------------------------------------------------------ reduce */

static tv_status reduce(red *rd, const tv_agg *a, agg_res **list, size_t n, bool final, agg_res **out);

/* Reduces the sub-results of the buckets bs[0..n) (same key) into dst. */
static tv_status reduce_bucket_subs(red *rd, const tv_agg *a, agg_bucket **bs, size_t n, bool final, agg_bucket *dst) {
    if (!a->nsubs) return TROVE_OK;
    dst->subs = tv_arena_calloc(rd->c->arena, a->nsubs, sizeof *dst->subs);
    agg_res **tmp = tv_arena_alloc(rd->c->arena, (n + 1) * sizeof *tmp);
    if (!dst->subs || !tmp) return r_oom(rd);
    for (uint32_t i = 0; i < a->nsubs; i++) {
        if (tv_agg_is_pipeline(a->subs[i]->kind)) continue;
        size_t k = 0;
        for (size_t j = 0; j < n; j++)
            if (bs[j]->subs && bs[j]->subs[i]) tmp[k++] = bs[j]->subs[i];
        if (!k) continue;
        tv_status st = reduce(rd, a->subs[i], tmp, k, final, &dst->subs[i]);
        if (st) return st;
    }
    return TROVE_OK;
}

/* The shard's own cut of its terms buckets (shard_size, shard_min_doc_count). */
static tv_status shard_cut(red *rd, agg_res *r) {
    const tv_agg *a = r->a;
    int64_t shard_size = a->shard_size_set ? a->shard_size : order_is_key(a) ? a->size : (int64_t)(a->size * 1.5 + 10);
    if (shard_size < a->size) shard_size = a->size;
    ord_ctx oc = {a, r, rd, TROVE_OK};
    g_ord = &oc;
    if (r->nb > 1) qsort(r->b, r->nb, sizeof *r->b, order_qcmp);
    size_t keep = 0;
    uint64_t other = 0;
    for (size_t i = 0; i < r->nb; i++) {
        if ((int64_t)r->b[i].doc_count < a->shard_min_doc_count || (int64_t)keep >= shard_size) {
            other += r->b[i].doc_count;
            continue;
        }
        r->b[keep++] = r->b[i];
    }
    bool filled = (int64_t)keep >= shard_size; /* a full shard_size: a term may be missing */
    r->other += other;
    if (!filled || order_is_key(a)) r->err = 0;
    else if (order_is_count_desc(a)) r->err = keep ? (int64_t)r->b[keep - 1].doc_count : 0;
    else r->err = -1;
    r->nb = keep;
    return TROVE_OK;
}

static tv_status reduce_keyed(red *rd, const tv_agg *a, agg_res **list, size_t n, bool final, agg_res *o) {
    /* every bucket of every result, by key */
    size_t total = 0;
    tv_key_kind kk = TV_KEY_NONE;
    for (size_t i = 0; i < n; i++) {
        if (!list[i]->mapped) continue;
        if (kk == TV_KEY_NONE) kk = list[i]->key_kind;
        else if (kk != list[i]->key_kind) {
            bool num = (kk == TV_KEY_LONG || kk == TV_KEY_DOUBLE) &&
                       (list[i]->key_kind == TV_KEY_LONG || list[i]->key_kind == TV_KEY_DOUBLE);
            if (!num) {
                tv_error_set(rd->c->err, TROVE_EARG,
                             "Merging/Reducing the aggregations failed when computing the aggregation [%s] because the field you gave in the aggregation query existed as two different types in two different indices",
                             a->name);
                tv_error_as(rd->c->err, TROVE_EAGGEXEC);
                return TROVE_EARG;
            }
            kk = TV_KEY_DOUBLE; /* long and double terms reduce as doubles */
        }
        total += list[i]->nb;
    }
    if (kk == TV_KEY_NONE) kk = list[0]->key_kind;
    o->key_kind = kk;
    agg_bucket **all = tv_arena_alloc(rd->c->arena, (total + 1) * sizeof *all);
    uint32_t *from = tv_arena_alloc(rd->c->arena, (total + 1) * sizeof *from);
    if (!all || !from) return r_oom(rd);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!list[i]->mapped) continue;
        for (size_t j = 0; j < list[i]->nb; j++) {
            agg_bucket *b = &list[i]->b[j];
            if (kk == TV_KEY_DOUBLE && list[i]->key_kind == TV_KEY_LONG) b->kd = (double)b->ki;
            from[k] = (uint32_t)i;
            all[k++] = b;
        }
    }
    if (k > 1) {
        /* a stable merge sort by key: equal keys keep the targets' order */
        typedef struct { agg_bucket *b; uint32_t t; } kb;
        kb *v = tv_arena_alloc(rd->c->arena, k * sizeof *v);
        if (!v) return r_oom(rd);
        for (size_t i = 0; i < k; i++) { v[i].b = all[i]; v[i].t = from[i]; }
        /* merge sort by key then target */
        kb *tmp = tv_arena_alloc(rd->c->arena, k * sizeof *tmp);
        if (!tmp) return r_oom(rd);
        for (size_t w = 1; w < k; w *= 2) {
            for (size_t lo = 0; lo < k; lo += 2 * w) {
                size_t mid = TV_MIN(lo + w, k), hi = TV_MIN(lo + 2 * w, k), p = lo, q = mid, t = lo;
                while (p < mid && q < hi) tmp[t++] = key_cmp(kk, v[q].b, v[p].b) < 0 ? v[q++] : v[p++];
                while (p < mid) tmp[t++] = v[p++];
                while (q < hi) tmp[t++] = v[q++];
            }
            memcpy(v, tmp, k * sizeof *v);
        }
        for (size_t i = 0; i < k; i++) { all[i] = v[i].b; from[i] = v[i].t; }
    }
    o->b = tv_arena_calloc(rd->c->arena, k + 1, sizeof *o->b);
    agg_bucket **group = tv_arena_alloc(rd->c->arena, (n + 1) * sizeof *group);
    if (!o->b || !group) return r_oom(rd);
    size_t nb = 0;
    for (size_t i = 0; i < k;) {
        size_t j = i;
        while (j < k && key_cmp(kk, all[i], all[j]) == 0) j++;
        agg_bucket *d = &o->b[nb++];
        *d = *all[i];
        d->doc_count = 0;
        d->err = 0;
        d->subs = NULL;
        size_t gn = 0;
        for (size_t x = i; x < j; x++) {
            d->doc_count += all[x]->doc_count;
            group[gn++] = all[x];
        }
        if ((a->kind == TV_AGG_TERMS || a->kind == TV_AGG_MULTI_TERMS) && n > 1) {
            /* the error of the shards that did not return the term */
            int64_t e = 0;
            bool unbounded = false;
            for (size_t t = 0; t < n; t++) {
                bool has = false;
                for (size_t x = i; x < j && !has; x++) has = from[x] == t;
                if (has) continue;
                if (list[t]->err < 0) unbounded = true;
                e += list[t]->err;
            }
            d->err = unbounded ? -1 : e;
        }
        tv_status st = reduce_bucket_subs(rd, a, group, gn, final, d);
        if (st) return st;
        i = j;
    }
    o->nb = nb;
    return TROVE_OK;
}

/* The result an aggregation has over no documents, shaped like tmpl
 * (buildEmptyAggregation): metrics empty, fixed buckets (range, filters,
 * single-bucket) kept with no docs and empty sub-results, keyed buckets
 * none. NULL on OOM. */
static agg_res *empty_like(red *rd, const agg_res *tmpl) {
    agg_res *er = tv_arena_calloc(rd->c->arena, 1, sizeof *er);
    if (!er) return NULL;
    er->a = tmpl->a;
    er->key_kind = tmpl->key_kind;
    er->fmt = tmpl->fmt;
    er->mapped = tmpl->mapped;
    er->min = INFINITY;
    er->max = -INFINITY;
    const tv_agg *a = tmpl->a;
    bool fixed = tv_agg_is_single_bucket(a->kind) || a->kind == TV_AGG_RANGE || a->kind == TV_AGG_DATE_RANGE || a->kind == TV_AGG_FILTERS;
    if (!fixed || !tmpl->nb) return er;
    er->nb = tmpl->nb;
    er->b = tv_arena_calloc(rd->c->arena, er->nb, sizeof *er->b);
    if (!er->b) return NULL;
    for (size_t q = 0; q < er->nb; q++) {
        er->b[q] = tmpl->b[q];
        er->b[q].doc_count = 0;
        er->b[q].subs = NULL;
        if (!tmpl->b[q].subs) continue;
        er->b[q].subs = tv_arena_calloc(rd->c->arena, a->nsubs, sizeof *er->b[q].subs);
        if (!er->b[q].subs) return NULL;
        for (uint32_t s = 0; s < a->nsubs; s++)
            if (tmpl->b[q].subs[s] && !tv_agg_is_pipeline(a->subs[s]->kind) &&
                !(er->b[q].subs[s] = empty_like(rd, tmpl->b[q].subs[s])))
                return NULL;
    }
    return er;
}

/* The empty result of aggregation a from its definition alone (no
 * document reached it on any target): fixed buckets from the request,
 * sub-results below them likewise. NULL on OOM. */
static agg_res *empty_of(red *rd, const tv_agg *a) {
    agg_res *u = tv_arena_calloc(rd->c->arena, 1, sizeof *u);
    if (!u) return NULL;
    u->a = a;
    u->min = INFINITY;
    u->max = -INFINITY;
    u->key_kind = a->kind == TV_AGG_HISTOGRAM ? TV_KEY_DOUBLE
                  : a->kind == TV_AGG_DATE_HISTOGRAM || a->kind == TV_AGG_AUTO_DATE_HISTOGRAM ? TV_KEY_LONG : TV_KEY_BYTES;
    if (a->kind == TV_AGG_DATE_HISTOGRAM || a->kind == TV_AGG_DATE_RANGE || a->kind == TV_AGG_AUTO_DATE_HISTOGRAM) {
        u->fmt.kind = TV_FMT_DATE;
        u->fmt.pattern = a->src.format ? a->src.format : "strict_date_optional_time||epoch_millis";
    } else if (a->src.format && !tv_agg_is_bucket(a->kind)) {
        u->fmt.kind = TV_FMT_DECIMAL;
        u->fmt.pattern = a->src.format;
    }
    if (!(a->kind == TV_AGG_RANGE || a->kind == TV_AGG_DATE_RANGE || a->kind == TV_AGG_FILTERS ||
          tv_agg_is_single_bucket(a->kind)))
        return u;
    size_t nb = a->kind == TV_AGG_RANGE || a->kind == TV_AGG_DATE_RANGE ? a->nranges
                : a->kind == TV_AGG_FILTERS ? a->nfilters + (a->other_bucket ? 1 : 0) : 1;
    u->b = tv_arena_calloc(rd->c->arena, nb + 1, sizeof *u->b);
    if (!u->b) return NULL;
    u->nb = nb;
    for (size_t q = 0; q < nb; q++) {
        if (a->kind == TV_AGG_RANGE || a->kind == TV_AGG_DATE_RANGE) {
            u->b[q].ki = (int64_t)q;
            u->b[q].kd = a->ranges[q].from ? a->ranges[q].from_d : -INFINITY;
            u->b[q].to = a->ranges[q].to ? a->ranges[q].to_d : INFINITY;
        } else if (a->kind == TV_AGG_FILTERS) {
            u->b[q].ks = q < a->nfilters ? a->filter_keys[q] : a->other_key;
            u->b[q].klen = (uint32_t)strlen(u->b[q].ks);
        }
        if (!a->nsubs) continue;
        u->b[q].subs = tv_arena_calloc(rd->c->arena, a->nsubs, sizeof *u->b[q].subs);
        if (!u->b[q].subs) return NULL;
        for (uint32_t s = 0; s < a->nsubs; s++)
            if (!tv_agg_is_pipeline(a->subs[s]->kind) && !(u->b[q].subs[s] = empty_of(rd, a->subs[s]))) return NULL;
    }
    return u;
}

/* Empty histogram buckets between (and, with extended_bounds, around)
 * the data buckets (InternalHistogram/InternalDateHistogram
 * .addEmptyBuckets); b is sorted by key ascending. */
static tv_status fill_histogram(red *rd, const tv_agg *a, agg_res *o, const agg_res *proto) {
    bool date = a->kind == TV_AGG_DATE_HISTOGRAM;
    tv_rounding rnd;
    const tv_tz *tz = proto ? proto->fmt.tz : NULL;
    if (date) {
        if (a->calendar_unit) tv_rounding_calendar(&rnd, (tv_date_unit)(a->calendar_unit - 1), tz, a->offset_ms);
        else tv_rounding_fixed(&rnd, a->fixed_ms, tz, a->offset_ms);
    }
    TV_VEC(agg_bucket) v = {0};
    double lo = -INFINITY, hi = -INFINITY;
    if (a->has_ext) {
        if (a->ext_min) lo = a->ext_min_d;
        if (a->ext_max) hi = a->ext_max_d;
    }
    if (a->has_hard) {
        if (a->hard_min && a->hard_min_d > lo) lo = a->hard_min_d;
        if (a->hard_max && a->hard_max_d < hi) hi = a->hard_max_d;
    }
    /* keys as doubles (histogram) or longs (dates) */
#define KEYD(b) (date ? (double)(b)->ki : (b)->kd)
    agg_bucket empty;
    memset(&empty, 0, sizeof empty);
    tv_status st = TROVE_OK;
    /* an empty bucket's sub-aggregations: each sub reduced from nothing */
    agg_res **esubs = NULL;
    if (a->nsubs && o->nb) esubs = o->b[0].subs;
    size_t i = 0;
    double key;
    bool have_first = false;
    if (isfinite(lo) && (a->has_ext && a->ext_min)) {
        key = date ? (double)tv_rounding_round(&rnd, (int64_t)lo) : floor((lo - a->offset) / a->interval) * a->interval + a->offset;
        if (o->nb && KEYD(&o->b[0]) < key) key = KEYD(&o->b[0]); /* data below the bounds: fill from there */
        have_first = true;
    } else if (o->nb) {
        key = KEYD(&o->b[0]);
        have_first = true;
    } else key = 0;
    double last = o->nb ? KEYD(&o->b[o->nb - 1]) : -INFINITY;
    double upto = isfinite(hi) && a->has_ext && a->ext_max ? TV_MAX(hi, last) : last;
    if (!have_first) goto done;
    while (key <= upto || i < o->nb) {
        if (i < o->nb && KEYD(&o->b[i]) <= key) {
            if (KEYD(&o->b[i]) < key) { if (tv_vec_push(&v, o->b[i])) { st = r_oom(rd); goto done; } i++; continue; }
            if (tv_vec_push(&v, o->b[i])) { st = r_oom(rd); goto done; }
            i++;
        } else {
            if (key > upto) break;
            agg_bucket e = empty;
            if (date) e.ki = (int64_t)key;
            else e.kd = key;
            e.subs = NULL;
            if (a->nsubs) {
                e.subs = tv_arena_calloc(rd->c->arena, a->nsubs, sizeof *e.subs);
                if (!e.subs) { st = r_oom(rd); goto done; }
                for (uint32_t s = 0; s < a->nsubs; s++) {
                    if (tv_agg_is_pipeline(a->subs[s]->kind)) continue;
                    agg_res *er = esubs && esubs[s] ? empty_like(rd, esubs[s]) : empty_of(rd, a->subs[s]);
                    if (!er) { st = r_oom(rd); goto done; }
                    /* reduced like any result: a histogram below fills its own bounds */
                    if ((st = reduce(rd, a->subs[s], &er, 1, true, &e.subs[s]))) goto done;
                }
            }
            if (tv_vec_push(&v, e)) { st = r_oom(rd); goto done; }
        }
        /* the next key */
        if (date) key = (double)tv_rounding_next(&rnd, (int64_t)key);
        else key = floor((key + a->interval + a->interval / 2 - a->offset) / a->interval) * a->interval + a->offset;
        if (rd->c->max_buckets >= 0 && (int64_t)v.len > rd->c->max_buckets) break; /* consume() fails next */
    }
done:
#undef KEYD
    if (st) { tv_vec_fini(&v); return st; }
    agg_bucket *nbk = tv_arena_alloc(rd->c->arena, (v.len + 1) * sizeof *nbk);
    if (!nbk) { tv_vec_fini(&v); return r_oom(rd); }
    if (v.len) memcpy(nbk, v.items, v.len * sizeof *nbk);
    o->b = nbk;
    o->nb = v.len;
    tv_vec_fini(&v);
    return TROVE_OK;
}

static tv_status run_pipelines(red *rd, const tv_agg *a, agg_res *o);

/* ---------------------------------------------- auto_date_histogram */

/* InternalAutoDateHistogram.mergeBuckets: buckets (in key order) whose
 * keys round to the same key at rnd become one (reduceBucket). */
static tv_status adh_merge(red *rd, const tv_agg *a, agg_res *o, const tv_rounding *rnd, bool final) {
    agg_bucket *out = tv_arena_calloc(rd->c->arena, o->nb + 1, sizeof *out);
    agg_bucket **group = tv_arena_alloc(rd->c->arena, (o->nb + 1) * sizeof *group);
    if (!out || !group) return r_oom(rd);
    size_t k = 0;
    for (size_t i = 0; i < o->nb;) {
        int64_t key = tv_rounding_round(rnd, o->b[i].ki);
        size_t j = i, gn = 0;
        agg_bucket *d = &out[k++];
        memset(d, 0, sizeof *d);
        d->ki = key;
        while (j < o->nb && tv_rounding_round(rnd, o->b[j].ki) == key) {
            d->doc_count += o->b[j].doc_count;
            group[gn++] = &o->b[j];
            j++;
        }
        tv_status st = reduce_bucket_subs(rd, a, group, gn, final, d);
        if (st) return st;
        i = j;
    }
    o->b = out;
    o->nb = k;
    return TROVE_OK;
}

/* mergeBucketsIfNeeded: climb while there are more than buckets * the
 * rung's largest inner interval. */
static tv_status adh_climb_merge(red *rd, const tv_agg *a, agg_res *o, int *idx, tv_rounding *rnd, bool final) {
    int levels = tv_adh_levels(a);
    while ((int64_t)o->nb > a->size * tv_adh_max_inner(a, *idx) && *idx < levels - 1) {
        (*idx)++;
        tv_adh_rounding(a, *idx, o->fmt.tz, rnd);
        tv_status st = adh_merge(rd, a, o, rnd, final);
        if (st) return st;
    }
    return TROVE_OK;
}

/* getAppropriateRounding: a rough estimate of the rung by duration, then
 * the first rung whose exact bucket count over [min, max] fits. */
static int adh_appropriate(const tv_agg *a, const tv_tz *tz, int64_t mn, int64_t mx, int idx) {
    int levels = tv_adh_levels(a);
    if (idx == levels - 1) return idx;
    int cur = idx;
    for (int i = cur + 1; i < levels; i++) {
        int64_t rough = (mx - mn) / tv_adh_rough_ms(a, i);
        if (rough < a->size * tv_adh_max_inner(a, i)) { cur = i - 1; break; }
    }
    int64_t required;
    do {
        tv_rounding r;
        tv_adh_rounding(a, cur, tz, &r);
        int64_t k = mn;
        required = 0;
        while (k < mx) {
            required++;
            int64_t nk = tv_rounding_next(&r, k);
            if (nk <= k) break;
            k = nk;
        }
        cur++;
    } while (required > a->size * tv_adh_max_inner(a, cur - 1) && cur < levels);
    return cur - 1;
}

/* InternalAutoDateHistogram.reduce. */
static tv_status reduce_auto_date(red *rd, const tv_agg *a, agg_res **list, size_t n, bool final, agg_res *o) {
    int idx = 0;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (list[i]->adh_idx > idx) idx = list[i]->adh_idx;
        if (list[i]->mapped) total += list[i]->nb;
    }
    /* every shard's buckets in key order (the shards' order for equal keys) */
    agg_bucket *all = tv_arena_calloc(rd->c->arena, total + 1, sizeof *all);
    if (!all) return r_oom(rd);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (list[i]->mapped)
            for (size_t j = 0; j < list[i]->nb; j++) {
                size_t p = k++;
                all[p] = list[i]->b[j];
                while (p > 0 && all[p - 1].ki > all[p].ki) {
                    agg_bucket t = all[p];
                    all[p] = all[p - 1];
                    all[p - 1] = t;
                    p--;
                }
            }
    o->key_kind = TV_KEY_LONG;
    o->b = all;
    o->nb = k;
    tv_rounding rnd;
    tv_adh_rounding(a, idx, o->fmt.tz, &rnd);
    tv_status st;
    if ((st = adh_merge(rd, a, o, &rnd, final))) return st;
    if ((st = adh_climb_merge(rd, a, o, &idx, &rnd, final))) return st;
    int inner = 1;
    if (final && o->nb) {
        /* addEmptyBuckets */
        int nidx = adh_appropriate(a, o->fmt.tz, o->b[0].ki, o->b[o->nb - 1].ki, idx);
        if (nidx != idx) {
            idx = nidx;
            tv_adh_rounding(a, idx, o->fmt.tz, &rnd);
        }
        if ((st = adh_merge(rd, a, o, &rnd, final))) return st;
        size_t need = o->nb;
        for (size_t i = 1; i < o->nb; i++)
            for (int64_t key = tv_rounding_next(&rnd, o->b[i - 1].ki); key < o->b[i].ki; key = tv_rounding_next(&rnd, key)) {
                need++;
                if ((st = consume(rd, 1))) return st;
            }
        if (need > o->nb) {
            agg_bucket *full = tv_arena_calloc(rd->c->arena, need + 1, sizeof *full);
            if (!full) return r_oom(rd);
            agg_res **esubs = a->nsubs ? o->b[0].subs : NULL;
            size_t q = 0;
            for (size_t i = 0; i < o->nb; i++) {
                if (i > 0)
                    for (int64_t key = tv_rounding_next(&rnd, o->b[i - 1].ki); key < o->b[i].ki; key = tv_rounding_next(&rnd, key)) {
                        agg_bucket *e = &full[q++];
                        e->ki = key;
                        if (!a->nsubs) continue;
                        if (!(e->subs = tv_arena_calloc(rd->c->arena, a->nsubs, sizeof *e->subs))) return r_oom(rd);
                        for (uint32_t s2 = 0; s2 < a->nsubs; s2++) {
                            if (tv_agg_is_pipeline(a->subs[s2]->kind)) continue;
                            agg_res *er = esubs && esubs[s2] ? empty_like(rd, esubs[s2]) : empty_of(rd, a->subs[s2]);
                            if (!er) return r_oom(rd);
                            if ((st = reduce(rd, a->subs[s2], &er, 1, true, &e->subs[s2]))) return st;
                        }
                    }
                full[q++] = o->b[i];
            }
            o->b = full;
            o->nb = q;
        }
        if ((st = adh_climb_merge(rd, a, o, &idx, &rnd, final))) return st;
        /* maybeMergeConsecutiveBuckets: the first inner interval that brings
         * the count to at most buckets */
        if ((int64_t)o->nb > a->size) {
            int ni;
            const int *in = tv_adh_inner(a, idx, &ni);
            for (int x = 0; x < ni; x++) {
                size_t res = o->nb / (size_t)in[x] + (o->nb % (size_t)in[x] != 0);
                if ((int64_t)res > a->size) continue;
                inner = in[x];
                agg_bucket *m = tv_arena_calloc(rd->c->arena, res + 1, sizeof *m);
                agg_bucket **group = tv_arena_alloc(rd->c->arena, ((size_t)inner + 1) * sizeof *group);
                if (!m || !group) return r_oom(rd);
                size_t mk = 0;
                for (size_t i = 0; i < o->nb; i += (size_t)inner) {
                    agg_bucket *d = &m[mk++];
                    d->ki = tv_rounding_round(&rnd, o->b[i].ki);
                    size_t gn = 0;
                    for (size_t j = i; j < o->nb && j < i + (size_t)inner; j++) {
                        d->doc_count += o->b[j].doc_count;
                        group[gn++] = &o->b[j];
                    }
                    if ((st = reduce_bucket_subs(rd, a, group, gn, final, d))) return st;
                }
                o->b = m;
                o->nb = mk;
                break;
            }
        }
    }
    if ((st = consume(rd, (int64_t)o->nb))) return st;
    o->adh_idx = idx;
    o->adh_inner = inner;
    return TROVE_OK;
}

/*
 * InternalSignificantTerms.reduce: the shards' subset and superset sizes
 * add up; buckets group by key as string in a HashMap (same-key buckets
 * add their doc counts and background counts and reduce their
 * sub-aggregations) and are rescored with the global sizes; the final
 * reduce keeps those scoring above 0 with min_doc_count docs, the best
 * `size` of them by Lucene's queue, fed in HashMap iteration order.
 */
static tv_status reduce_significant(red *rd, const tv_agg *a, agg_res **list, size_t n, bool final, agg_res *o) {
    tv_arena *ar = rd->c->arena;
    uint64_t sub = 0, sup = 0;
    size_t total = 0;
    const agg_res *proto = NULL;
    for (size_t i = 0; i < n; i++) {
        sub += list[i]->subset_size;
        sup += list[i]->superset_size;
        total += list[i]->nb;
        if (!proto && list[i]->mapped) proto = list[i];
    }
    o->subset_size = sub;
    o->superset_size = sup;
    o->nb = 0;
    if (!proto) return TROVE_OK; /* UnmappedSignificantTerms.reduce */
    o->key_kind = proto->key_kind;
    o->fmt = proto->fmt;
    /* group by key as string, in first-seen order */
    const char **keys = tv_arena_calloc(ar, total + 1, sizeof *keys);
    agg_bucket *grp = tv_arena_calloc(ar, total + 1, sizeof *grp);
    agg_bucket ***members = tv_arena_calloc(ar, total + 1, sizeof *members);
    size_t *nmem = tv_arena_calloc(ar, total + 1, sizeof *nmem);
    if (!keys || !grp || !members || !nmem) return r_oom(rd);
    tv_map by_key;
    tv_map_init(&by_key);
    size_t ng = 0;
    tv_status st = TROVE_OK;
    for (size_t i = 0; i < n && !st; i++) {
        agg_res *x = list[i];
        for (size_t j = 0; j < x->nb; j++) {
            char buf[600];
            key_string(x, &x->b[j], buf, sizeof buf);
            size_t kl = strlen(buf);
            void *v = tv_map_get(&by_key, buf, kl);
            size_t gi;
            if (v) gi = (size_t)(uintptr_t)v - 1;
            else {
                gi = ng++;
                if (!(keys[gi] = tv_arena_strndup(ar, buf, kl)) || tv_map_put(&by_key, buf, kl, (void *)(uintptr_t)(gi + 1), NULL) ||
                    !(members[gi] = tv_arena_alloc(ar, (n + 1) * sizeof *members[gi]))) {
                    st = r_oom(rd);
                    break;
                }
                grp[gi] = x->b[j];
                grp[gi].doc_count = 0;
                grp[gi].bg = 0;
                grp[gi].subs = NULL;
            }
            grp[gi].doc_count += x->b[j].doc_count;
            grp[gi].bg += x->b[j].bg;
            if (nmem[gi] < n) members[gi][nmem[gi]++] = &x->b[j];
        }
    }
    tv_map_fini(&by_key);
    if (st) return st;
    agg_bucket **ptr = tv_arena_calloc(ar, ng + 1, sizeof *ptr);
    uint32_t *order = tv_arena_calloc(ar, ng + 1, sizeof *order);
    uint32_t *slot = tv_arena_calloc(ar, ng + 1, sizeof *slot);
    if (!ptr || !order || !slot) return r_oom(rd);
    /* HashMap<String, List<B>> iteration: by bucket, then insertion */
    for (size_t g = 0; g < ng; g++) {
        order[g] = (uint32_t)g;
        slot[g] = tv_java_hm_bucket(keys[g], strlen(keys[g]), ng);
    }
    for (size_t i = 1; i < ng; i++) { /* stable insertion sort, runs are short */
        uint32_t x = order[i];
        size_t j = i;
        while (j > 0 && slot[order[j - 1]] > slot[x]) { order[j] = order[j - 1]; j--; }
        order[j] = x;
    }
    size_t k = 0;
    for (size_t oi = 0; oi < ng; oi++) {
        size_t g = order[oi];
        agg_bucket *b = &grp[g];
        if ((st = reduce_bucket_subs(rd, a, members[g], nmem[g], final, b))) return st;
        char msg[300];
        if (tv_sig_score(a, (int64_t)b->doc_count, (int64_t)sub, (int64_t)b->bg, (int64_t)sup, &b->score, msg, sizeof msg)) {
            tv_error_set(rd->c->err, TROVE_EARG, "%s", msg);
            return TROVE_EARG;
        }
        if (!final || (b->score > 0 && (int64_t)b->doc_count >= a->min_doc_count)) ptr[k++] = b;
    }
    size_t max = final ? (size_t)TV_MIN((int64_t)ng, a->size) : ng;
    size_t kept = tv_sig_rank(ptr, k, max, ar);
    if (kept == SIZE_MAX) return r_oom(rd);
    o->b = tv_arena_calloc(ar, kept + 1, sizeof *o->b);
    if (!o->b) return r_oom(rd);
    for (size_t i = 0; i < kept; i++) o->b[i] = *ptr[i];
    o->nb = kept;
    if (final && (st = consume(rd, (int64_t)kept))) return st;
    return TROVE_OK;
}

static tv_status reduce(red *rd, const tv_agg *a, agg_res **list, size_t n, bool final, agg_res **out) {
    agg_res *o = tv_arena_calloc(rd->c->arena, 1, sizeof *o);
    if (!o) return r_oom(rd);
    /* the first mapped result gives the format */
    const agg_res *proto = list[0];
    /* a date_histogram reduces into the first shard's result, whose format
     * it keeps even when that shard has the field unmapped (millisecond
     * dates, whatever a later shard's date_nanos field prints) */
    if (a->kind != TV_AGG_DATE_HISTOGRAM)
        for (size_t i = 0; i < n; i++)
            if (list[i]->mapped) { proto = list[i]; break; }
    *o = *proto;
    o->b = NULL;
    o->nb = 0;
    o->sketch = NULL;
    o->other = 0;
    o->err = 0;
    o->mapped = false;
    for (size_t i = 0; i < n; i++) o->mapped |= list[i]->mapped;
    *out = o;
    tv_status st;
    switch (a->kind) {
    case TV_AGG_COMPOSITE: {
        /* each shard returns its first size keys after "after"; the
         * reduce keeps the first size of the merge */
        for (size_t i = 0; i < n; i++) {
            agg_res *x = list[i];
            if (x->nb > 1) qsort(x->b, x->nb, sizeof *x->b, bytes_key_qcmp);
            size_t k = 0;
            for (size_t j = 0; j < x->nb; j++) {
                if (x->after && tv_memcmp2(x->b[j].ks, x->b[j].klen, x->after, x->after_len) <= 0) continue;
                if ((int64_t)k < a->size) x->b[k++] = x->b[j];
            }
            x->nb = k;
        }
        if ((st = reduce_keyed(rd, a, list, n, final, o))) return st;
        if ((int64_t)o->nb > a->size) o->nb = (size_t)a->size;
        if (final && (st = consume(rd, (int64_t)o->nb))) return st;
        break;
    }
    case TV_AGG_SIGNIFICANT_TERMS:
    case TV_AGG_SIGNIFICANT_TEXT:
        if ((st = reduce_significant(rd, a, list, n, final, o))) return st;
        break;
    case TV_AGG_MULTI_TERMS:
    case TV_AGG_TERMS: {
        if (final && (st = check_order(rd, a))) return st;
        if (final) {
            for (size_t i = 0; i < n; i++)
                if ((st = shard_cut(rd, list[i]))) return st;
        }
        if ((st = reduce_keyed(rd, a, list, n, final, o))) return st;
        int64_t err = 0;
        uint64_t other = 0;
        bool unbounded = false;
        for (size_t i = 0; i < n; i++) {
            other += list[i]->other;
            if (list[i]->err < 0) unbounded = true;
            err += list[i]->err;
        }
        o->other = other;
        o->err = n == 1 ? 0 : unbounded ? -1 : err; /* one result reduced: 0 (InternalTerms.reduce) */
        if (!final) return TROVE_OK;
        /* min_doc_count, order, size */
        ord_ctx oc = {a, o, rd, TROVE_OK};
        g_ord = &oc;
        size_t k = 0;
        for (size_t i = 0; i < o->nb; i++)
            if ((int64_t)o->b[i].doc_count >= a->min_doc_count) o->b[k++] = o->b[i];
        o->nb = k;
        if (o->nb > 1) qsort(o->b, o->nb, sizeof *o->b, order_qcmp);
        if ((int64_t)o->nb > a->size) {
            for (size_t i = (size_t)a->size; i < o->nb; i++) o->other += o->b[i].doc_count;
            o->nb = (size_t)a->size;
        }
        if ((st = consume(rd, (int64_t)o->nb))) return st;
        break;
    }
    case TV_AGG_AUTO_DATE_HISTOGRAM:
        if ((st = reduce_auto_date(rd, a, list, n, final, o))) return st;
        break;
    case TV_AGG_VARIABLE_WIDTH_HISTOGRAM: {
        /* the shards' buckets merged by centroid (ties: the earlier
         * shard first), then clustered down (vwh.c) */
        size_t tot = 0;
        for (size_t i = 0; i < n; i++) tot += list[i]->nb;
        o->b = tv_arena_calloc(rd->c->arena, tot + 1, sizeof *o->b);
        size_t *pos = tv_arena_calloc(rd->c->arena, n + 1, sizeof *pos);
        size_t *work = tv_arena_calloc(rd->c->arena, 5 * tot + 5, sizeof *work);
        if (!o->b || !pos || !work) return r_oom(rd);
        for (size_t k = 0; k < tot; k++) {
            size_t best = n;
            for (size_t i = 0; i < n; i++)
                if (pos[i] < list[i]->nb && (best == n || list[i]->b[pos[i]].kd < list[best]->b[pos[best]].kd)) best = i;
            o->b[k] = list[best]->b[pos[best]++];
        }
        o->nb = tv_vwh_reduce(o->b, tot, a->size, final, work);
        if (final && (st = consume(rd, (int64_t)o->nb))) return st;
        break;
    }
    case TV_AGG_ADJACENCY_MATRIX:
        /* InternalAdjacencyMatrix.reduce: buckets merged by key, sorted by key */
        for (size_t i = 0; i < n; i++) list[i]->key_kind = TV_KEY_BYTES;
        if ((st = reduce_keyed(rd, a, list, n, final, o))) return st;
        if (final && (st = consume(rd, (int64_t)o->nb))) return st;
        break;
    case TV_AGG_HISTOGRAM:
    case TV_AGG_DATE_HISTOGRAM:
        if ((st = reduce_keyed(rd, a, list, n, final, o))) return st;
        if (!final) return TROVE_OK;
        if (a->min_doc_count == 0 && (st = fill_histogram(rd, a, o, proto))) return st;
        if (a->min_doc_count > 0) {
            size_t k = 0;
            for (size_t i = 0; i < o->nb; i++)
                if ((int64_t)o->b[i].doc_count >= a->min_doc_count) o->b[k++] = o->b[i];
            o->nb = k;
        }
        if (a->norder && !(a->order[0].kind == TV_ORD_KEY && !a->order[0].desc)) {
            ord_ctx oc = {a, o, rd, TROVE_OK};
            g_ord = &oc;
            if (a->order[0].kind == TV_ORD_KEY) {
                for (size_t i = 0; i < o->nb / 2; i++) {
                    agg_bucket t = o->b[i];
                    o->b[i] = o->b[o->nb - 1 - i];
                    o->b[o->nb - 1 - i] = t;
                }
            } else {
                if (o->nb > 1) qsort(o->b, o->nb, sizeof *o->b, order_qcmp);
            }
        }
        if ((st = consume(rd, (int64_t)o->nb))) return st;
        break;
    case TV_AGG_RANGE:
    case TV_AGG_DATE_RANGE:
    case TV_AGG_FILTERS:
    case TV_AGG_FILTER:
    case TV_AGG_MISSING:
    case TV_AGG_GLOBAL:
    case TV_AGG_NESTED:
    case TV_AGG_REVERSE_NESTED:
    case TV_AGG_SAMPLER: {
        o->nb = proto->nb;
        o->b = tv_arena_calloc(rd->c->arena, o->nb + 1, sizeof *o->b);
        agg_bucket **group = tv_arena_alloc(rd->c->arena, (n + 1) * sizeof *group);
        if (!o->b || !group) return r_oom(rd);
        for (size_t k = 0; k < o->nb; k++) {
            o->b[k] = proto->b[k];
            o->b[k].doc_count = 0;
            o->b[k].subs = NULL;
            size_t gn = 0;
            for (size_t i = 0; i < n; i++) {
                if (k >= list[i]->nb) continue;
                o->b[k].doc_count += list[i]->b[k].doc_count;
                group[gn++] = &list[i]->b[k];
            }
            if ((st = reduce_bucket_subs(rd, a, group, gn, final, &o->b[k]))) return st;
        }
        o->doc_count = o->nb ? o->b[0].doc_count : 0;
        if (final && (a->kind == TV_AGG_RANGE || a->kind == TV_AGG_DATE_RANGE || a->kind == TV_AGG_FILTERS) &&
            (st = consume(rd, (int64_t)o->nb)))
            return st;
        if (final && (a->kind == TV_AGG_RANGE || a->kind == TV_AGG_DATE_RANGE)) {
            /* RangeAggregator sorts the ranges by from, then to */
            for (size_t i = 1; i < o->nb; i++)
                for (size_t j = i; j > 0 && (o->b[j - 1].kd > o->b[j].kd ||
                                             (o->b[j - 1].kd == o->b[j].kd && o->b[j - 1].to > o->b[j].to)); j--) {
                    agg_bucket t = o->b[j];
                    o->b[j] = o->b[j - 1];
                    o->b[j - 1] = t;
                }
        }
        break;
    }
    case TV_AGG_CARDINALITY: {
        o->count = 0;
        for (size_t i = 0; i < n; i++) {
            if (!list[i]->sketch) continue;
            if (!o->sketch) {
                o->sketch = tv_hll_new(tv_hll_precision(a->precision_threshold));
                if (!o->sketch || tv_vec_push(&rd->c->hlls, o->sketch)) { tv_hll_free(o->sketch); o->sketch = NULL; return r_oom(rd); }
            }
            if (tv_hll_merge(o->sketch, list[i]->sketch)) return r_oom(rd);
        }
        return TROVE_OK;
    }
    case TV_AGG_MAD: {
        /* InternalMedianAbsoluteDeviation.reduce: a new state of the
         * compression, add(state) for each, the value computed anew; one
         * result is not reduced and keeps the shard's value */
        o->count = 0;
        for (size_t i = 0; i < n; i++) o->count += list[i]->count;
        if (n == 1) {
            o->sketch = list[0]->sketch;
            o->value = list[0]->value;
            return TROVE_OK;
        }
        o->sketch = tv_tdigest_new(a->compression);
        if (!o->sketch || tv_vec_push(&rd->c->digests, o->sketch)) { tv_tdigest_free(o->sketch); o->sketch = NULL; return r_oom(rd); }
        for (size_t i = 0; i < n; i++)
            if (list[i]->sketch && tv_tdigest_merge(o->sketch, list[i]->sketch)) return r_oom(rd);
        if (tv_tdigest_mad(o->sketch, &o->value)) return r_oom(rd);
        o->has_value = true;
        return TROVE_OK;
    }
    case TV_AGG_PERCENTILES:
    case TV_AGG_PERCENTILE_RANKS: {
        o->count = 0;
        if (a->hdr) {
            /* AbstractInternalHDRPercentiles.reduce: a new histogram of the
             * first one's settings, add(state) for each */
            for (size_t i = 0; i < n; i++) {
                o->count += list[i]->count;
                if (!list[i]->sketch) continue;
                if (!o->sketch) {
                    o->sketch = tv_hdr_new(a->hdr_digits);
                    if (!o->sketch || tv_vec_push(&rd->c->hdrs, o->sketch)) { tv_hdr_free(o->sketch); o->sketch = NULL; return r_oom(rd); }
                }
                tv_status hs = tv_hdr_merge(o->sketch, list[i]->sketch);
                if (hs == TROVE_ENOMEM) return r_oom(rd);
                if (hs)
                    return tv_error_set(rd->c->err, TROVE_EUNSUPPORTED,
                                        "[hdr] percentiles of values whose range exceeds the histogram's are not supported by trove");
            }
            return TROVE_OK;
        }
        if (n == 1) {
            /* one result is not reduced (mustReduceOnSingleInternalAgg is
             * false for metrics); the response's size estimate
             * (getSerializedSize) compresses it once more */
            o->count = list[0]->count;
            o->sketch = list[0]->sketch;
            if (final && o->sketch && tv_tdigest_compress(o->sketch)) return r_oom(rd);
            return TROVE_OK;
        }
        for (size_t i = 0; i < n; i++) {
            o->count += list[i]->count;
            if (!list[i]->sketch) continue;
            if (!o->sketch) {
                o->sketch = tv_tdigest_new(a->compression);
                if (!o->sketch || tv_vec_push(&rd->c->digests, o->sketch)) { tv_tdigest_free(o->sketch); o->sketch = NULL; return r_oom(rd); }
            }
            if (tv_tdigest_merge(o->sketch, list[i]->sketch)) return r_oom(rd);
        }
        if (final && o->sketch && tv_tdigest_compress(o->sketch)) return r_oom(rd);
        return TROVE_OK;
    }
    case TV_AGG_TOP_HITS: {
        size_t total = 0;
        o->count = 0;
        o->max_score = NAN;
        for (size_t i = 0; i < n; i++) {
            total += list[i]->nhits;
            o->count += list[i]->count;
            if (list[i]->count && !(list[i]->max_score <= o->max_score)) o->max_score = list[i]->max_score;
        }
        tv_hit *all = tv_arena_alloc(rd->c->arena, (total + 1) * sizeof *all);
        if (!all) return r_oom(rd);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < list[i]->nhits; j++) all[k++] = list[i]->hits[j];
        /* insertion sort: the lists are short (from + size per target) */
        for (size_t i = 1; i < k; i++)
            for (size_t j = i; j > 0 && tv_hit_cmp(&a->th_sort, &all[j], &all[j - 1]) < 0; j--) {
                tv_hit t = all[j];
                all[j] = all[j - 1];
                all[j - 1] = t;
            }
        size_t from = TV_MIN((size_t)a->th_from, k);
        o->hits = all + from;
        o->nhits = TV_MIN((size_t)a->th_size, k - from);
        return TROVE_OK;
    }
    default: {
        /* avg, sum, min, max, value_count, stats, extended_stats, weighted_avg */
        double sum = 0, comp = 0, sq = 0, sqc = 0, ws = 0, wc = 0;
        uint64_t count = 0;
        double mn = INFINITY, mx = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            const agg_res *x = list[i];
            count += x->count;
            /* CompensatedSum.add of each shard's value */
            {
                double v = x->sum;
                if (!isfinite(v)) sum = v + sum;
                if (isfinite(sum)) { double cor = v + comp, up = sum + cor; comp = cor - (up - sum); sum = up; }
            }
            {
                double v = x->sumsq;
                if (!isfinite(v)) sq = v + sq;
                if (isfinite(sq)) { double cor = v + sqc, up = sq + cor; sqc = cor - (up - sq); sq = up; }
            }
            {
                double v = x->wsum;
                if (!isfinite(v)) ws = v + ws;
                if (isfinite(ws)) { double cor = v + wc, up = ws + cor; wc = cor - (up - ws); ws = up; }
            }
            mn = fmin(mn, x->min);
            mx = fmax(mx, x->max);
        }
        o->count = count;
        o->sum = sum;
        o->sumsq = sq;
        o->wsum = ws;
        o->min = mn;
        o->max = mx;
        return TROVE_OK;
    }
    }
    if (final) return run_pipelines(rd, a, o);
    return TROVE_OK;
}

/* ---------------------------------------------------------- pipelines */

/* BucketHelpers.resolveBucketValue: NaN for a gap under skip. */
static tv_status resolve_value(red *rd, const tv_agg *host, const agg_res *hres, const agg_bucket *b, const char *path,
                               bool insert_zeros, const char *pname, double *out) {
    const agg_res *last = NULL;
    double v = NAN;
    path_status ps = bucket_path_value(host, hres, b, path, &v, &last);
    if (ps != PATH_OK) return path_error(rd, ps, last, path, pname);
    bool is_count = !strcmp(path, "_count");
    if (!isfinite(v) || (b->doc_count == 0 && !is_count)) v = insert_zeros ? 0.0 : NAN;
    *out = v;
    return TROVE_OK;
}

static agg_res *new_res(red *rd, const tv_agg *p) {
    agg_res *r = tv_arena_calloc(rd->c->arena, 1, sizeof *r);
    if (!r) return NULL;
    r->a = p;
    r->mapped = true;
    r->min = INFINITY;
    r->max = -INFINITY;
    if (p->src.format) {
        r->fmt.kind = TV_FMT_DECIMAL;
        r->fmt.pattern = p->src.format;
    }
    return r;
}

/* MovFnPipelineAggregator.reduce: the non-NaN bucket values in order;
 * bucket i with a value gets the script over values[index - window + shift,
 * index + shift) (clamped), index counting the buckets with a value. */
static tv_status moving_fn(red *rd, const tv_agg *a, agg_res *o, uint32_t si) {
    const tv_agg *p = a->subs[si];
    double *vals = tv_arena_alloc(rd->c->arena, (o->nb + 1) * sizeof *vals);
    double *own = tv_arena_alloc(rd->c->arena, (o->nb + 1) * sizeof *own);
    if (!vals || !own) return r_oom(rd);
    size_t nv = 0;
    for (size_t i = 0; i < o->nb; i++) {
        double v;
        tv_status st = resolve_value(rd, a, o, &o->b[i], p->buckets_path, p->gap_insert_zeros, p->name, &v);
        if (st) return st;
        own[i] = v;
        if (v == v) vals[nv++] = v;
    }
    int64_t index = 0;
    for (size_t i = 0; i < o->nb; i++) {
        agg_bucket *b = &o->b[i];
        if (own[i] != own[i]) continue;
        if (!b->subs) {
            b->subs = tv_arena_calloc(rd->c->arena, a->nsubs, sizeof *b->subs);
            if (!b->subs) return r_oom(rd);
        }
        int64_t from = index - p->window + p->shift, to = index + p->shift;
        if (from < 0) from = 0;
        if (from > (int64_t)nv) from = (int64_t)nv;
        if (to < 0) to = 0;
        if (to > (int64_t)nv) to = (int64_t)nv;
        double r = NAN;
        size_t len = to > from ? (size_t)(to - from) : 0;
        tv_status st = tv_movfn_eval(&p->movfn, vals + from, len, &r, rd->c->err);
        if (st) return st;
        agg_res *res = new_res(rd, p);
        if (!res) return r_oom(rd);
        res->value = r;
        b->subs[si] = res;
        index++;
    }
    return TROVE_OK;
}

/* bucket_sort (BucketSortPipelineAggregator.reduce): the parent's buckets
 * sorted by the sort keys (a bucket whose every sort value is a skipped
 * gap is dropped; a missing value sorts last), then from and size. */
typedef struct bs_item {
    agg_bucket b;
    double *v;         /* per sort key (TV_ORD_PATH) */
    uint8_t *has;
    size_t pos;
} bs_item;

static _Thread_local struct { const tv_agg *p; const agg_res *o; } g_bs;

static int bs_key_cmp(const agg_res *o, const agg_bucket *x, const agg_bucket *y) {
    const tv_agg *a = o->a;
    if (o->key_kind == TV_KEY_BYTES || a->kind == TV_AGG_RANGE || a->kind == TV_AGG_DATE_RANGE || a->kind == TV_AGG_FILTERS)
        return tv_memcmp2(x->ks, x->klen, y->ks, y->klen);
    if (o->key_kind == TV_KEY_DOUBLE) return x->kd < y->kd ? -1 : x->kd > y->kd;
    if (o->key_kind == TV_KEY_ULONG) return (uint64_t)x->ki < (uint64_t)y->ki ? -1 : (uint64_t)x->ki > (uint64_t)y->ki;
    return x->ki < y->ki ? -1 : x->ki > y->ki;
}

static int bs_cmp(const void *xa, const void *ya) {
    const bs_item *x = xa, *y = ya;
    const tv_agg *p = g_bs.p;
    for (uint32_t k = 0; k < p->bs_nsort; k++) {
        const tv_agg_order *so = &p->bs_sort[k];
        int c;
        if (so->kind == TV_ORD_KEY) c = bs_key_cmp(g_bs.o, &x->b, &y->b);
        else {
            if (!x->has[k] && !y->has[k]) continue;
            if (!x->has[k]) return 1;
            if (!y->has[k]) return -1;
            c = x->v[k] < y->v[k] ? -1 : x->v[k] > y->v[k];
            if (!c && x->v[k] == 0) c = (signbit(y->v[k]) != 0) - (signbit(x->v[k]) != 0);
        }
        if (so->desc) c = -c;
        if (c) return c;
    }
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static tv_status bucket_sort(red *rd, const tv_agg *a, agg_res *o, uint32_t si) {
    const tv_agg *p = a->subs[si];
    if (!p->bs_nsort && p->bs_size < 0 && p->bs_from == 0) {
        tv_error_set(rd->c->err, TROVE_EVALIDATION,
                     "Validation Failed: 1: [%s] is configured to perform nothing. Please set either of [sort, size, from] to use bucket_sort;",
                     p->name);
        return TROVE_EVALIDATION;
    }
    if (tv_agg_is_single_bucket(a->kind) || a->kind == TV_AGG_COMPOSITE || a->kind == TV_AGG_MULTI_TERMS)
        return tv_error_set(rd->c->err, TROVE_EUNSUPPORTED, "[bucket_sort] under a [%s] aggregation is not supported by trove",
                            a->type_name);
    size_t nb = o->nb;
    size_t cur = p->bs_size < 0 ? nb : (size_t)p->bs_size;
    size_t from = (size_t)p->bs_from;
    if (from >= nb) { o->nb = 0; return TROVE_OK; }
    if (!p->bs_nsort) {
        size_t end = from + cur < nb ? from + cur : nb;
        memmove(o->b, o->b + from, (end - from) * sizeof *o->b);
        o->nb = end - from;
        return TROVE_OK;
    }
    bs_item *it = tv_arena_calloc(rd->c->arena, nb + 1, sizeof *it);
    if (!it) return r_oom(rd);
    size_t kept = 0;
    for (size_t i = 0; i < nb; i++) {
        bs_item *x = &it[kept];
        x->b = o->b[i];
        x->pos = i;
        x->v = tv_arena_calloc(rd->c->arena, p->bs_nsort, sizeof *x->v);
        x->has = tv_arena_calloc(rd->c->arena, p->bs_nsort, 1);
        if (!x->v || !x->has) return r_oom(rd);
        bool any = false;
        for (uint32_t k = 0; k < p->bs_nsort; k++) {
            if (p->bs_sort[k].kind == TV_ORD_KEY) { any = true; x->has[k] = 1; continue; }
            double v;
            tv_status st = resolve_value(rd, a, o, &o->b[i], p->bs_sort[k].path, p->gap_insert_zeros, p->name, &v);
            if (st) return st;
            if (!p->gap_insert_zeros && v != v) continue;
            x->v[k] = v;
            x->has[k] = 1;
            any = true;
        }
        if (any) kept++;
    }
    g_bs.p = p;
    g_bs.o = o;
    if (kept > 1) qsort(it, kept, sizeof *it, bs_cmp);
    size_t q = from + cur < nb ? from + cur : nb; /* the priority queue's size */
    if (kept > q) kept = q;
    size_t n = kept > from ? kept - from : 0;
    for (size_t i = 0; i < n; i++) o->b[i] = it[from + i].b;
    o->nb = n;
    return TROVE_OK;
}

/* Parent pipelines of a histogram: one result per bucket. */
static tv_status parent_pipeline(red *rd, const tv_agg *a, agg_res *o, uint32_t si) {
    const tv_agg *p = a->subs[si];
    if (a->kind != TV_AGG_HISTOGRAM && a->kind != TV_AGG_DATE_HISTOGRAM && a->kind != TV_AGG_AUTO_DATE_HISTOGRAM) {
        tv_error_set(rd->c->err, TROVE_EVALIDATION, "Validation Failed: 1: %s aggregation [%s] must have a histogram, date_histogram or auto_date_histogram as parent;",
                     p->type_name, p->name);
        return TROVE_EVALIDATION;
    }
    /* ValidationContext.validateParentAggSequentiallyOrdered */
    if (a->min_doc_count != 0) {
        tv_error_set(rd->c->err, TROVE_EVALIDATION, "Validation Failed: 1: parent histogram of %s aggregation [%s] must have min_doc_count of 0;",
                     p->type_name, p->name);
        return TROVE_EVALIDATION;
    }
    if (p->kind == TV_AGG_MOVING_FN) return moving_fn(rd, a, o, si);
    double run = 0, lastv = NAN, lastk = 0;
    bool have_last = false;
    double unit_ms = 0;
    if (p->unit) {
        tv_date_unit u;
        int64_t ms = 0;
        if (tv_date_unit_parse(p->unit, strlen(p->unit), &u)) {
            static const int64_t k_ms[] = {1000, 60000, 3600000, 86400000, 604800000, 2592000000LL, 7776000000LL, 31536000000LL};
            ms = k_ms[u];
        }
        unit_ms = (double)ms;
    }
    for (size_t i = 0; i < o->nb; i++) {
        agg_bucket *b = &o->b[i];
        if (!b->subs) {
            b->subs = tv_arena_calloc(rd->c->arena, a->nsubs, sizeof *b->subs);
            if (!b->subs) return r_oom(rd);
        }
        double v;
        bool zeros = p->kind == TV_AGG_CUMULATIVE_SUM ? true : p->gap_insert_zeros;
        tv_status st = resolve_value(rd, a, o, b, p->buckets_path, zeros, p->name, &v);
        if (st) return st;
        double key = a->kind == TV_AGG_DATE_HISTOGRAM || a->kind == TV_AGG_AUTO_DATE_HISTOGRAM ? (double)b->ki : b->kd;
        if (p->kind == TV_AGG_CUMULATIVE_SUM) {
            run += v;
            agg_res *r = new_res(rd, p);
            if (!r) return r_oom(rd);
            r->value = run;
            b->subs[si] = r;
            continue;
        }
        if (have_last) {
            agg_res *r = new_res(rd, p);
            if (!r) return r_oom(rd);
            r->value = v - lastv;
            if (unit_ms > 0) {
                r->has_value = true; /* normalized_value is printed */
                r->sum = r->value / ((key - lastk) / unit_ms);
            }
            b->subs[si] = r;
        }
        lastv = v;
        lastk = key;
        have_last = true;
    }
    return TROVE_OK;
}

/* A sibling pipeline over the buckets of one aggregation of its level. */
static tv_status sibling_pipeline(red *rd, const tv_agg *p, agg_res **level, const tv_agg *const *aggs, uint32_t n,
                                  agg_res **out) {
    const char *path = p->buckets_path;
    size_t nl = strcspn(path, ">.[");
    const agg_res *host = NULL;
    for (uint32_t i = 0; i < n; i++)
        if (level[i] && tv_streq(path, nl, aggs[i]->name) && !tv_agg_is_pipeline(aggs[i]->kind)) host = level[i];
    if (!host) {
        tv_error_set(rd->c->err, TROVE_EVALIDATION, "Validation Failed: 1: No aggregation found for path [%s];", path);
        return TROVE_EVALIDATION;
    }
    agg_res *r = new_res(rd, p);
    if (!r) return r_oom(rd);
    *out = r;
    const char *rest = path[nl] == '>' ? path + nl + 1 : path[nl] ? path + nl : "_count";
    bool multi = host->a->kind == TV_AGG_TERMS || host->a->kind == TV_AGG_HISTOGRAM || host->a->kind == TV_AGG_COMPOSITE ||
                 host->a->kind == TV_AGG_MULTI_TERMS ||
                 host->a->kind == TV_AGG_DATE_HISTOGRAM || host->a->kind == TV_AGG_RANGE ||
                 host->a->kind == TV_AGG_DATE_RANGE || host->a->kind == TV_AGG_FILTERS ||
                 host->a->kind == TV_AGG_ADJACENCY_MATRIX || host->a->kind == TV_AGG_AUTO_DATE_HISTOGRAM ||
                 host->a->kind == TV_AGG_SIGNIFICANT_TERMS || host->a->kind == TV_AGG_SIGNIFICANT_TEXT;
    if (!multi) {
        tv_error_set(rd->c->err, TROVE_EVALIDATION,
                     "Validation Failed: 1: The first aggregation in buckets_path must be a multi-bucket aggregation for aggregation [%s] found :%s for buckets path: %s;",
                     p->name, host->a->type_name, path);
        return TROVE_EVALIDATION;
    }
    if (rest[0] == '.') rest++;
    TV_VEC(const char *) keys = {0};
    double sum = 0, mn = INFINITY, mx = -INFINITY;
    uint64_t count = 0;
    for (size_t i = 0; i < host->nb; i++) {
        const agg_bucket *b = &host->b[i];
        double v;
        tv_status st = resolve_value(rd, host->a, host, b, rest, p->gap_insert_zeros, p->name, &v);
        if (st) { tv_vec_fini(&keys); return st; }
        if (v != v) continue;
        count++;
        sum += v;
        if (p->kind == TV_AGG_STATS_BUCKET) { mn = fmin(mn, v); mx = fmax(mx, v); continue; }
        bool better = p->kind == TV_AGG_MIN_BUCKET ? v < mn : v > mx;
        bool tie = p->kind == TV_AGG_MIN_BUCKET ? v == mn : v == mx;
        if (p->kind == TV_AGG_MIN_BUCKET || p->kind == TV_AGG_MAX_BUCKET) {
            char kb[512];
            if (host->a->kind == TV_AGG_FILTERS || host->a->kind == TV_AGG_RANGE || host->a->kind == TV_AGG_DATE_RANGE)
                snprintf(kb, sizeof kb, "%.*s", (int)b->klen, b->ks ? b->ks : "");
            else key_string(host, b, kb, sizeof kb);
            if (better) {
                keys.len = 0;
                if (p->kind == TV_AGG_MIN_BUCKET) mn = v;
                else mx = v;
            }
            if (better || tie) {
                const char *ks = tv_arena_strndup(rd->c->arena, kb, strlen(kb));
                if (!ks || tv_vec_push(&keys, ks)) { tv_vec_fini(&keys); return r_oom(rd); }
            }
        }
    }
    switch (p->kind) {
    case TV_AGG_AVG_BUCKET: r->value = count ? sum / (double)count : NAN; break;
    case TV_AGG_SUM_BUCKET: r->value = sum; break;
    case TV_AGG_MIN_BUCKET: r->value = mn; break;
    case TV_AGG_MAX_BUCKET: r->value = mx; break;
    default:
        r->count = count;
        r->sum = sum;
        r->min = mn;
        r->max = mx;
        break;
    }
    if (keys.len) {
        r->keys = tv_arena_alloc(rd->c->arena, keys.len * sizeof *r->keys);
        if (!r->keys) { tv_vec_fini(&keys); return r_oom(rd); }
        memcpy(r->keys, keys.items, keys.len * sizeof *r->keys);
        r->nkeys = keys.len;
    }
    tv_vec_fini(&keys);
    return TROVE_OK;
}

/* bucket_script / bucket_selector (BucketScriptPipelineAggregator,
 * BucketSelectorPipelineAggregator): per bucket of the parent, the
 * buckets_path values become script params (Doubles, beside the script's
 * own params). bucket_script's Number is the bucket's simple value (a
 * skipped gap or a null result leaves the bucket without it);
 * bucket_selector keeps the buckets its boolean says true of. */
static tv_status bucket_script(red *rd, const tv_agg *a, agg_res *o, uint32_t si) {
    const tv_agg *p = a->subs[si];
    bool selector = p->kind == TV_AGG_BUCKET_SELECTOR;
    tv_qscript_exec x;
    tv_qscript_exec_init(&x, p->script, NULL, NULL, rd->c->err);
    tv_arena vars_arena;
    tv_arena_init(&vars_arena);
    tv_status st = TROVE_OK;
    size_t kept = 0;
    for (size_t i = 0; i < o->nb && !st; i++) {
        agg_bucket *b = &o->b[i];
        tv_arena_reset(&vars_arena);
        tv_sv vars;
        if (!tv_sv_map_new(&vars_arena, false, &vars)) { st = r_oom(rd); break; }
        bool skip = false;
        for (uint32_t k = 0; k < p->nbp && !st; k++) {
            double v;
            st = resolve_value(rd, a, o, b, p->bp_paths[k], p->gap_insert_zeros, p->name, &v);
            if (st) break;
            if (!selector && !p->gap_insert_zeros && v != v) { skip = true; break; }
            if (!tv_sv_map_put_str(&vars_arena, vars.v.map, p->bp_vars[k], strlen(p->bp_vars[k]), tv_sv_double(v)))
                st = r_oom(rd);
        }
        if (st) break;
        if (skip) { o->b[kept++] = *b; continue; }
        tv_sv r;
        if ((st = tv_qscript_run(&x, NULL, 0, 0.0, &vars, &r))) break;
        if (selector) {
            if (r.type != TV_SV_BOOL) {
                st = tv_qscript_cast_fail(p->script, r.type == TV_SV_NULL ? "null" : "java.lang.Object", "boolean",
                                          rd->c->err, NULL);
                break;
            }
            if (r.v.b) o->b[kept++] = *b;
            continue;
        }
        if (r.type != TV_SV_NULL) {
            double dv;
            const char *what = NULL;
            if (!tv_qscript_number(&r, &dv, &what)) {
                st = tv_qscript_cast_fail(p->script, what, "java.lang.Number", rd->c->err, NULL);
                break;
            }
            if (!b->subs) {
                b->subs = tv_arena_calloc(rd->c->arena, a->nsubs, sizeof *b->subs);
                if (!b->subs) { st = r_oom(rd); break; }
            }
            agg_res *res = new_res(rd, p);
            if (!res) { st = r_oom(rd); break; }
            res->value = dv;
            b->subs[si] = res;
        }
        o->b[kept++] = *b;
    }
    if (!st) o->nb = kept;
    tv_arena_fini(&vars_arena);
    tv_qscript_exec_fini(&x);
    return st;
}

/* Sibling pipelines of the sub-level of every bucket, then parent ones. */
static tv_status run_pipelines(red *rd, const tv_agg *a, agg_res *o) {
    for (uint32_t si = 0; si < a->nsubs; si++) {
        const tv_agg *p = a->subs[si];
        if (!tv_agg_is_pipeline(p->kind)) continue;
        if (p->kind == TV_AGG_BUCKET_SORT) {
            tv_status st = bucket_sort(rd, a, o, si);
            if (st) return st;
            continue;
        }
        if (p->kind == TV_AGG_BUCKET_SCRIPT || p->kind == TV_AGG_BUCKET_SELECTOR) {
            tv_status st = bucket_script(rd, a, o, si);
            if (st) return st;
            continue;
        }
        bool parent = parent_pipe(p->kind);
        if (parent) {
            tv_status st = parent_pipeline(rd, a, o, si);
            if (st) return st;
            continue;
        }
        for (size_t i = 0; i < o->nb; i++) {
            agg_bucket *b = &o->b[i];
            if (!b->subs) {
                b->subs = tv_arena_calloc(rd->c->arena, a->nsubs, sizeof *b->subs);
                if (!b->subs) return r_oom(rd);
            }
            tv_status st = sibling_pipeline(rd, p, b->subs, (const tv_agg *const *)a->subs, a->nsubs, &b->subs[si]);
            if (st) return st;
        }
    }
    return TROVE_OK;
}

/* ------------------------------------------------------------ writing */

static const char *typed_name(const agg_res *r) {
    switch (r->a->kind) {
    case TV_AGG_MULTI_TERMS: return "multi_terms";
    case TV_AGG_COMPOSITE: return "composite";
    case TV_AGG_SIGNIFICANT_TERMS:
    case TV_AGG_SIGNIFICANT_TEXT:
        if (!r->mapped) return "umsigterms";
        return r->key_kind == TV_KEY_BYTES ? "sigsterms" : "siglterms";
    case TV_AGG_TERMS:
        if (!r->mapped) return "sterms";
        return r->key_kind == TV_KEY_BYTES ? "sterms" : r->key_kind == TV_KEY_DOUBLE ? "dterms"
               : r->key_kind == TV_KEY_ULONG ? "ulterms" : "lterms";
    case TV_AGG_PERCENTILES: return r->a->hdr ? "hdr_percentiles" : "tdigest_percentiles";
    case TV_AGG_PERCENTILE_RANKS: return r->a->hdr ? "hdr_percentile_ranks" : "tdigest_percentile_ranks";
    case TV_AGG_CUMULATIVE_SUM:
    case TV_AGG_MOVING_FN:
    case TV_AGG_BUCKET_SCRIPT:
    case TV_AGG_AVG_BUCKET:
    case TV_AGG_SUM_BUCKET: return "simple_value";
    case TV_AGG_MIN_BUCKET:
    case TV_AGG_MAX_BUCKET: return "bucket_metric_value";
    default: return r->a->type_name;
    }
}

static void write_opt_double(tv_jw *w, double v, bool ok) {
    if (ok) tv_jw_double(w, v);
    else tv_jw_null(w);
}

static void write_as_string(tv_jw *w, const agg_fmt *f, const char *key, double v) {
    char buf[512];
    if (!fmt_double(f, v, buf, sizeof buf)) return;
    tv_jw_keyz(w, key);
    tv_jw_strz(w, buf);
}

static tv_status write_res(red *rd, tv_jw *w, const agg_res *r, bool typed);

/* One component of an encoded tuple key (see collect.c) at *p: written
 * as a JSON value to w (when not NULL) and as its string form to sb (when
 * not NULL); *p moves past it. */
static void tuple_component(const agg_res *r, uint32_t i, const unsigned char **p, const unsigned char *end, tv_jw *w,
                            tv_buf *sb) {
    bool desc = r->a->kind == TV_AGG_COMPOSITE && r->a->tsrc[i].desc;
    unsigned char inv = desc ? 0xff : 0;
    const unsigned char *q = *p;
    if (q >= end) return;
    unsigned char h = *q++ ^ inv;
    const agg_fmt *f = &r->tfmt[i];
    char buf[512];
    if (!h) {
        if (w) tv_jw_null(w);
        if (sb) tv_buf_append(sb, "null", 4);
        *p = q;
        return;
    }
    if (r->tkk[i] == TV_KEY_BYTES) {
        tv_buf t;
        tv_buf_init(&t);
        while (q < end) {
            unsigned char c = *q++ ^ inv;
            if (c == 0) {
                unsigned char c2 = q < end ? (unsigned char)(*q++ ^ inv) : 0;
                if (c2 == 0) break;
                tv_buf_putc(&t, 0);
                continue;
            }
            tv_buf_putc(&t, (char)c);
        }
        const char *ks = t.data ? t.data : "";
        size_t kl = t.len;
        if (f->kind == TV_FMT_IP && kl == 16) {
            kl = tv_ip_format((const uint8_t *)ks, buf);
            ks = buf;
        }
        if (w) tv_jw_str(w, ks, kl);
        if (sb) tv_buf_append(sb, ks, kl);
        tv_buf_fini(&t);
        *p = q;
        return;
    }
    uint64_t u = 0;
    for (int k = 0; k < 8 && q < end; k++) u = u << 8 | (unsigned char)(*q++ ^ inv);
    int64_t v = (int64_t)(u ^ 0x8000000000000000ull);
    *p = q;
    if (r->tkk[i] == TV_KEY_DOUBLE) {
        double x = tv_sortable_to_double(v);
        if (f->kind == TV_FMT_RAW) {
            if (w) tv_jw_double(w, x);
            tv_fmt_double(x, buf);
        } else {
            fmt_double(f, x, buf, sizeof buf);
            if (w) tv_jw_strz(w, buf);
        }
    } else if (r->tkk[i] == TV_KEY_ULONG) {
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)tv_sortable_to_unsigned(v));
        if (w) tv_jw_uint(w, tv_sortable_to_unsigned(v));
    } else if (f->kind == TV_FMT_BOOL) {
        snprintf(buf, sizeof buf, "%s", v ? "true" : "false"); /* DocValueFormat.BOOLEAN gives a Boolean */
        if (w) tv_jw_bool(w, v != 0);
    } else if (f->kind == TV_FMT_RAW) {
        snprintf(buf, sizeof buf, "%lld", (long long)v);
        if (w) tv_jw_int(w, v);
    } else {
        fmt_double(f, (double)v, buf, sizeof buf);
        if (f->kind == TV_FMT_DATE) tv_date_format_tz(v, f->pattern, f->tz, buf, sizeof buf);
        if (w) tv_jw_strz(w, buf);
    }
    if (sb) tv_buf_append(sb, buf, strlen(buf));
}

/* A composite bucket's key object. */
static void write_composite_key(const agg_res *r, const agg_bucket *b, tv_jw *w) {
    const unsigned char *p = (const unsigned char *)b->ks, *end = p + b->klen;
    tv_jw_obj_begin(w);
    for (uint32_t i = 0; i < r->a->ntsrc; i++) {
        tv_jw_keyz(w, r->a->tsrc[i].name);
        tuple_component(r, i, &p, end, w, NULL);
    }
    tv_jw_obj_end(w);
}

/* A level's results: regular ones in HashMap order, then pipelines. */
static tv_status write_level(red *rd, tv_jw *w, const tv_agg *const *aggs, agg_res *const *res, uint32_t n, bool typed) {
    const char **names = tv_arena_alloc(rd->c->arena, (n + 1) * sizeof *names);
    uint32_t *idx = tv_arena_alloc(rd->c->arena, (n + 1) * sizeof *idx);
    uint32_t *order = tv_arena_alloc(rd->c->arena, (n + 1) * sizeof *order);
    if (!names || !idx || !order) return r_oom(rd);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!res[i] || tv_agg_is_pipeline(aggs[i]->kind)) continue;
        idx[m] = i;
        names[m++] = aggs[i]->name;
    }
    tv_java_hashmap_order(names, m, order);
    for (uint32_t k = 0; k < m; k++) {
        tv_status st = write_res(rd, w, res[idx[order[k]]], typed);
        if (st) return st;
    }
    /* sibling pipelines, then parent pipelines */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < n; i++) {
            if (!res[i] || !tv_agg_is_pipeline(aggs[i]->kind)) continue;
            bool parent = parent_pipe(aggs[i]->kind);
            if (parent != (pass == 1)) continue;
            tv_status st = write_res(rd, w, res[i], typed);
            if (st) return st;
        }
    return TROVE_OK;
}

static tv_status write_bucket_body(red *rd, tv_jw *w, const agg_res *r, const agg_bucket *b, bool typed) {
    const tv_agg *a = r->a;
    tv_jw_keyz(w, "doc_count");
    tv_jw_uint(w, b->doc_count);
    if ((a->kind == TV_AGG_TERMS || a->kind == TV_AGG_MULTI_TERMS) && a->show_err) {
        tv_jw_keyz(w, "doc_count_error_upper_bound");
        tv_jw_int(w, b->err);
    }
    if (b->subs) return write_level(rd, w, (const tv_agg *const *)a->subs, b->subs, a->nsubs, typed);
    return TROVE_OK;
}

/* Top_hits: the bucket's best hits, fetched as search hits are (write_res). */
/* A root top_hits hit's "inner_hits": the query's nested inner hits of
 * its target, run for this one hit (after the page's, which the search
 * wrote before the aggregations). */
static tv_status write_th_inner_hits(red *rd, tv_jw *w, const tv_hit *h) {
    const tv_agg_ctx *c = rd->c;
    size_t k = 0;
    while (k < c->ih_ntargets && &c->ih_targets[k] != h->t) k++;
    if (k == c->ih_ntargets || !c->ih_n[k]) return TROVE_OK;
    uint32_t page = 0, seg = h->seg, doc = h->doc;
    tv_status st = tv_inner_hits_collect(c->ih_defs[k], c->ih_n[k], h->t->snap, 1, &page, &seg, &doc, 1, c->arena, c->err);
    if (st) return st;
    tv_jw_keyz(w, "inner_hits");
    tv_jw_obj_begin(w);
    st = tv_inner_hits_write(c->ih_defs[k], c->ih_n[k], h->t->snap, seg, doc, 0, h->t->index, c->arena, w, c->err);
    tv_jw_obj_end(w);
    return st;
}

static tv_status write_top_hits(red *rd, tv_jw *w, const agg_res *r, bool typed) {
    const tv_agg *a = r->a;
    tv_status st = TROVE_OK;
    bool by_field = false;
    for (uint32_t k = 0; k < a->th_sort.n; k++) by_field |= a->th_sort.keys[k].field != NULL;
    bool sorted = by_field || (a->th_sort.n && !(a->th_sort.n == 1 && a->th_sort.keys[0].desc));
    bool scores = !by_field || a->th_track_scores;
    tv_jw_keyz(w, "hits");
    tv_jw_obj_begin(w);
    tv_fetch_write_total(w, r->count, a->th_total_as_int);
    tv_jw_keyz(w, "max_score");
    if (scores && r->count && r->max_score == r->max_score) tv_jw_float(w, r->max_score);
    else tv_jw_null(w);
    tv_jw_keyz(w, "hits");
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < r->nhits && !st; i++) {
        const tv_hit *h = &r->hits[i];
        const tv_segview *sv = &h->t->snap->segs[h->seg];
        tv_doc_meta meta;
        const char *src = NULL;
        size_t srclen = 0;
        memset(&meta, 0, sizeof meta);
        /* a nested doc (top_hits under nested): the root's id and
         * source, its nested identity, its object of the source */
        tv_nested_ident nid;
        bool nested = tv_segment_nest(sv->seg, h->doc) != 0;
        if (nested && (st = tv_nested_identity(h->t->snap->mapping, sv->seg, h->doc, &nid))) {
            tv_error_set(rd->c->err, st, "a nested document outside its block");
            break;
        }
        if (tv_segment_doc(sv->seg, nested ? nid.root : h->doc, rd->c->arena, &meta, &src, &srclen)) {
            st = tv_error_set(rd->c->err, TROVE_EIO, "failed to load document");
            break;
        }
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "_index");
        tv_jw_strz(w, h->t->index ? h->t->index : "");
        tv_jw_keyz(w, "_id");
        tv_jw_str(w, meta.id, meta.id_len);
        if (nested) tv_nested_ident_write(w, &nid);
        tv_hit_write_versions(w, &meta, a->th_version, a->th_seq_no);
        tv_jw_keyz(w, "_score");
        if (scores) tv_jw_float(w, h->score);
        else tv_jw_null(w);
        if (meta.routing) { tv_jw_keyz(w, "_routing"); tv_jw_str(w, meta.routing, meta.routing_len); }
        if (a->th_source && src && nested) {
            tv_json *root = NULL;
            const tv_json *part = tv_json_parse(rd->c->arena, src, srclen, &root, NULL) == TROVE_OK
                                      ? tv_nested_ident_source(&nid, root)
                                      : NULL;
            if (part && (st = tv_nested_write_source(w, rd->c->arena, &nid, part, a->th_inc, a->th_ninc, a->th_exc,
                                                     a->th_nexc))) {
                tv_error_set(rd->c->err, st, "%s", trove_status_message(st));
                break;
            }
        } else if (a->th_source && src) {
            tv_jw_keyz(w, "_source");
            tv_fetch_write_source(w, rd->c->arena, src, srclen, a->th_inc, a->th_ninc, a->th_exc, a->th_nexc);
        }
        if (sorted) tv_hit_write_sort(w, &a->th_sort, r->th_fields, h);
        if (!nested && (st = write_th_inner_hits(rd, w, h))) break;
        tv_jw_obj_end(w);
    }
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
    return st;
}

/* Stats, extended_stats and stats_bucket (write_res). */
static tv_status write_stats(red *rd, tv_jw *w, const agg_res *r, bool typed) {
    const tv_agg *a = r->a;
    const agg_fmt *f = &r->fmt;
    bool raw = f->kind == TV_FMT_RAW || f->kind == TV_FMT_IP;
    tv_status st = TROVE_OK;
    bool any = r->count != 0;
    double avg = res_avg(r);
    tv_jw_keyz(w, "count");
    tv_jw_uint(w, r->count);
    tv_jw_keyz(w, "min");
    write_opt_double(w, r->min, any);
    tv_jw_keyz(w, "max");
    write_opt_double(w, r->max, any);
    tv_jw_keyz(w, "avg");
    write_opt_double(w, avg, any);
    tv_jw_keyz(w, "sum");
    tv_jw_double(w, any ? r->sum : 0.0);
    if (any && !raw) {
        write_as_string(w, f, "min_as_string", r->min);
        write_as_string(w, f, "max_as_string", r->max);
        write_as_string(w, f, "avg_as_string", avg);
        write_as_string(w, f, "sum_as_string", r->sum);
    }
    if (a->kind != TV_AGG_EXTENDED_STATS) return st;
    double vp = any ? var_pop(r) : NAN, vs = any ? var_samp(r) : NAN;
    double sp = sqrt(vp), ss = sqrt(vs), sigma = a->interval;
    const char *names[] = {"sum_of_squares", "variance", "variance_population", "variance_sampling",
                           "std_deviation", "std_deviation_population", "std_deviation_sampling"};
    double vals[] = {r->sumsq, vp, vp, vs, sp, sp, ss};
    for (int k = 0; k < 7; k++) {
        tv_jw_keyz(w, names[k]);
        if (!any) tv_jw_null(w);
        else if (vals[k] != vals[k]) tv_jw_strz(w, "NaN");
        else tv_jw_double(w, vals[k]);
    }
    const char *bn[] = {"upper", "lower", "upper_population", "lower_population", "upper_sampling", "lower_sampling"};
    double bv[] = {avg + sp * sigma, avg - sp * sigma, avg + sp * sigma, avg - sp * sigma, avg + ss * sigma, avg - ss * sigma};
    tv_jw_keyz(w, "std_deviation_bounds");
    tv_jw_obj_begin(w);
    for (int k = 0; k < 6; k++) {
        tv_jw_keyz(w, bn[k]);
        if (!any) tv_jw_null(w);
        else if (bv[k] != bv[k]) tv_jw_strz(w, "NaN");
        else tv_jw_double(w, bv[k]);
    }
    tv_jw_obj_end(w);
    if (any && !raw) {
        char key[64];
        for (int k = 0; k < 7; k++) {
            snprintf(key, sizeof key, "%s_as_string", names[k]);
            write_as_string(w, f, key, vals[k]);
        }
        tv_jw_keyz(w, "std_deviation_bounds_as_string");
        tv_jw_obj_begin(w);
        for (int k = 0; k < 6; k++) write_as_string(w, f, bn[k], bv[k]);
        tv_jw_obj_end(w);
    }
    return st;
}

/* Percentiles and percentile_ranks (write_res). */
static tv_status write_percentiles(red *rd, tv_jw *w, const agg_res *r, bool typed) {
    const tv_agg *a = r->a;
    const agg_fmt *f = &r->fmt;
    bool raw = f->kind == TV_FMT_RAW || f->kind == TV_FMT_IP;
    tv_status st = TROVE_OK;
    tv_jw_keyz(w, "values");
    if (a->keyed) tv_jw_obj_begin(w);
    else tv_jw_arr_begin(w);
    for (uint32_t k = 0; k < a->npercents; k++) {
        double key = a->percents[k], v = NAN;
        if (r->sketch)
            v = pct_value(a, r->sketch, key);
        bool ok = r->sketch && v == v;
        char kb[64];
        tv_fmt_double(key, kb);
        if (a->keyed) {
            tv_jw_keyz(w, kb);
            write_opt_double(w, v, ok);
            if (ok && !raw) {
                char k2[96];
                snprintf(k2, sizeof k2, "%s_as_string", kb);
                write_as_string(w, f, k2, v);
            }
        } else {
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "key");
            tv_jw_double(w, key);
            tv_jw_keyz(w, "value");
            write_opt_double(w, v, ok);
            if (ok && !raw) write_as_string(w, f, "value_as_string", v);
            tv_jw_obj_end(w);
        }
    }
    if (a->keyed) tv_jw_obj_end(w);
    else tv_jw_arr_end(w);
    return st;
}

/* Range and date_range buckets (write_res). */
static tv_status write_ranges(red *rd, tv_jw *w, const agg_res *r, bool typed) {
    const tv_agg *a = r->a;
    const agg_fmt *f = &r->fmt;
    bool raw = f->kind == TV_FMT_RAW || f->kind == TV_FMT_IP;
    tv_status st = TROVE_OK;
    tv_jw_keyz(w, "buckets");
    if (a->keyed) tv_jw_obj_begin(w);
    else tv_jw_arr_begin(w);
    for (size_t i = 0; i < r->nb && !st; i++) {
        const agg_bucket *b = &r->b[i];
        const tv_agg_range *rg = &a->ranges[b->ki];
        char kb[1100];
        if (rg->key) snprintf(kb, sizeof kb, "%s", rg->key);
        else {
            char fa[512], ta[512];
            if (isinf(b->kd)) snprintf(fa, sizeof fa, "*");
            else if (!fmt_double(f, b->kd, fa, sizeof fa)) tv_fmt_double(b->kd, fa);
            if (isinf(b->to)) snprintf(ta, sizeof ta, "*");
            else if (!fmt_double(f, b->to, ta, sizeof ta)) tv_fmt_double(b->to, ta);
            snprintf(kb, sizeof kb, "%s-%s", fa, ta);
        }
        if (a->keyed) tv_jw_keyz(w, kb);
        tv_jw_obj_begin(w);
        if (!a->keyed) { tv_jw_keyz(w, "key"); tv_jw_strz(w, kb); }
        if (!isinf(b->kd)) {
            tv_jw_keyz(w, "from");
            tv_jw_double(w, b->kd);
            if (!raw) write_as_string(w, f, "from_as_string", b->kd);
        }
        if (!isinf(b->to)) {
            tv_jw_keyz(w, "to");
            tv_jw_double(w, b->to);
            if (!raw) write_as_string(w, f, "to_as_string", b->to);
        }
        st = write_bucket_body(rd, w, r, b, typed);
        tv_jw_obj_end(w);
    }
    if (a->keyed) tv_jw_obj_end(w);
    else tv_jw_arr_end(w);
    return st;
}

/* Terms and multi_terms buckets (write_res). */
static tv_status write_terms(red *rd, tv_jw *w, const agg_res *r, bool typed) {
    const tv_agg *a = r->a;
    const agg_fmt *f = &r->fmt;
    bool raw = f->kind == TV_FMT_RAW || f->kind == TV_FMT_IP;
    tv_status st = TROVE_OK;
    char buf[512];
    tv_jw_keyz(w, "doc_count_error_upper_bound");
    tv_jw_int(w, r->err);
    tv_jw_keyz(w, "sum_other_doc_count");
    tv_jw_uint(w, r->other);
    tv_jw_keyz(w, "buckets");
    tv_jw_arr_begin(w);
    tv_buf ks; /* multi_terms: the key_as_string, "a|b|..." */
    tv_buf_init(&ks);
    for (size_t i = 0; i < r->nb && !st; i++) {
        const agg_bucket *b = &r->b[i];
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "key");
        if (a->kind == TV_AGG_MULTI_TERMS) {
            const unsigned char *p = (const unsigned char *)b->ks, *end = p + b->klen;
            tv_buf_clear(&ks);
            tv_jw_arr_begin(w);
            for (uint32_t k = 0; k < a->ntsrc; k++) {
                if (k) tv_buf_putc(&ks, '|');
                tuple_component(r, k, &p, end, w, &ks);
            }
            tv_jw_arr_end(w);
            tv_jw_keyz(w, "key_as_string");
            tv_jw_str(w, ks.data ? ks.data : "", ks.len);
        } else if (r->key_kind == TV_KEY_BYTES) {
            key_string(r, b, buf, sizeof buf);
            if (f->kind == TV_FMT_IP) tv_jw_strz(w, buf);
            else tv_jw_str(w, b->ks, b->klen);
        } else if (r->key_kind == TV_KEY_ULONG) {
            tv_jw_uint(w, tv_sortable_to_unsigned(b->ki));
        } else if (r->key_kind == TV_KEY_DOUBLE) {
            tv_jw_double(w, b->kd);
            if (!raw && fmt_double(f, b->kd, buf, sizeof buf)) { tv_jw_keyz(w, "key_as_string"); tv_jw_strz(w, buf); }
        } else {
            tv_jw_int(w, b->ki);
            if (!raw) { key_string(r, b, buf, sizeof buf); tv_jw_keyz(w, "key_as_string"); tv_jw_strz(w, buf); }
        }
        st = write_bucket_body(rd, w, r, b, typed);
        tv_jw_obj_end(w);
    }
    tv_buf_fini(&ks);
    tv_jw_arr_end(w);
    return st;
}

/* SignificantStringTerms / SignificantLongTerms.doXContentBody (the
 * unmapped result prints its empty buckets only); a bucket below
 * min_doc_count is not printed. */
static tv_status write_significant(red *rd, tv_jw *w, const agg_res *r, bool typed) {
    const tv_agg *a = r->a;
    const agg_fmt *f = &r->fmt;
    tv_status st = TROVE_OK;
    char buf[600];
    if (r->mapped) {
        tv_jw_keyz(w, "doc_count");
        tv_jw_uint(w, r->subset_size);
        tv_jw_keyz(w, "bg_count");
        tv_jw_uint(w, r->superset_size);
    }
    tv_jw_keyz(w, "buckets");
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < r->nb && !st; i++) {
        const agg_bucket *b = &r->b[i];
        if ((int64_t)b->doc_count < a->min_doc_count) continue;
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "key");
        if (r->key_kind == TV_KEY_BYTES) {
            key_string(r, b, buf, sizeof buf);
            if (f->kind == TV_FMT_IP) tv_jw_strz(w, buf);
            else tv_jw_str(w, b->ks, b->klen);
        } else {
            tv_jw_int(w, b->ki);
            if (f->kind != TV_FMT_RAW) {
                key_string(r, b, buf, sizeof buf);
                tv_jw_keyz(w, "key_as_string");
                tv_jw_strz(w, buf);
            }
        }
        tv_jw_keyz(w, "doc_count");
        tv_jw_uint(w, b->doc_count);
        tv_jw_keyz(w, "score");
        tv_jw_double(w, b->score);
        tv_jw_keyz(w, "bg_count");
        tv_jw_uint(w, b->bg);
        if (b->subs) st = write_level(rd, w, (const tv_agg *const *)a->subs, b->subs, a->nsubs, typed);
        tv_jw_obj_end(w);
    }
    tv_jw_arr_end(w);
    return st;
}

static tv_status write_res(red *rd, tv_jw *w, const agg_res *r, bool typed) {
    const tv_agg *a = r->a;
    char keybuf[600];
    if (typed) {
        snprintf(keybuf, sizeof keybuf, "%s#%s", typed_name(r), a->name);
        tv_jw_keyz(w, keybuf);
    } else {
        tv_jw_keyz(w, a->name);
    }
    tv_jw_obj_begin(w);
    if (a->meta) {
        tv_jw_keyz(w, "meta");
        tv_jw_value(w, a->meta);
    }
    const agg_fmt *f = &r->fmt;
    bool raw = f->kind == TV_FMT_RAW || f->kind == TV_FMT_IP;
    tv_status st = TROVE_OK;
    char buf[512];
    switch (a->kind) {
    case TV_AGG_COMPOSITE:
        if (r->nb) {
            tv_jw_keyz(w, "after_key");
            write_composite_key(r, &r->b[r->nb - 1], w);
        }
        tv_jw_keyz(w, "buckets");
        tv_jw_arr_begin(w);
        for (size_t i = 0; i < r->nb && !st; i++) {
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "key");
            write_composite_key(r, &r->b[i], w);
            st = write_bucket_body(rd, w, r, &r->b[i], typed);
            tv_jw_obj_end(w);
        }
        tv_jw_arr_end(w);
        break;
    case TV_AGG_MULTI_TERMS:
    case TV_AGG_TERMS:
        st = write_terms(rd, w, r, typed);
        break;
    case TV_AGG_SIGNIFICANT_TERMS:
    case TV_AGG_SIGNIFICANT_TEXT:
        st = write_significant(rd, w, r, typed);
        break;
    case TV_AGG_AUTO_DATE_HISTOGRAM: {
        /* InternalAutoDateHistogram.doXContentBody: the buckets, then the interval */
        tv_jw_keyz(w, "buckets");
        tv_jw_arr_begin(w);
        for (size_t i = 0; i < r->nb && !st; i++) {
            const agg_bucket *b = &r->b[i];
            key_string(r, b, buf, sizeof buf);
            tv_jw_obj_begin(w);
            if (!raw) { tv_jw_keyz(w, "key_as_string"); tv_jw_strz(w, buf); }
            tv_jw_keyz(w, "key");
            tv_jw_int(w, b->ki);
            st = write_bucket_body(rd, w, r, b, typed);
            tv_jw_obj_end(w);
        }
        tv_jw_arr_end(w);
        char iv[32];
        snprintf(iv, sizeof iv, "%d%s", r->adh_inner ? r->adh_inner : 1, tv_adh_abbrev(a, r->adh_idx));
        tv_jw_keyz(w, "interval");
        tv_jw_strz(w, iv);
        break;
    }
    case TV_AGG_ADJACENCY_MATRIX:
        tv_jw_keyz(w, "buckets");
        tv_jw_arr_begin(w);
        for (size_t i = 0; i < r->nb && !st; i++) {
            const agg_bucket *b = &r->b[i];
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "key");
            tv_jw_str(w, b->ks, b->klen);
            st = write_bucket_body(rd, w, r, b, typed);
            tv_jw_obj_end(w);
        }
        tv_jw_arr_end(w);
        break;
    case TV_AGG_HISTOGRAM:
    case TV_AGG_DATE_HISTOGRAM:
        tv_jw_keyz(w, "buckets");
        if (a->keyed) tv_jw_obj_begin(w);
        else tv_jw_arr_begin(w);
        for (size_t i = 0; i < r->nb && !st; i++) {
            const agg_bucket *b = &r->b[i];
            key_string(r, b, buf, sizeof buf);
            if (a->keyed) tv_jw_keyz(w, buf);
            tv_jw_obj_begin(w);
            if (!raw) { tv_jw_keyz(w, "key_as_string"); tv_jw_strz(w, buf); }
            tv_jw_keyz(w, "key");
            if (a->kind == TV_AGG_DATE_HISTOGRAM) tv_jw_int(w, b->ki);
            else tv_jw_double(w, b->kd);
            st = write_bucket_body(rd, w, r, b, typed);
            tv_jw_obj_end(w);
        }
        if (a->keyed) tv_jw_obj_end(w);
        else tv_jw_arr_end(w);
        break;
    case TV_AGG_RANGE:
    case TV_AGG_DATE_RANGE:
        st = write_ranges(rd, w, r, typed);
        break;
    case TV_AGG_VARIABLE_WIDTH_HISTOGRAM:
        tv_jw_keyz(w, "buckets");
        tv_jw_arr_begin(w);
        for (size_t i = 0; i < r->nb && !st; i++) {
            const agg_bucket *b = &r->b[i];
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "min");
            tv_jw_double(w, b->lo);
            tv_jw_keyz(w, "key");
            tv_jw_double(w, b->kd);
            tv_jw_keyz(w, "max");
            tv_jw_double(w, b->to);
            st = write_bucket_body(rd, w, r, b, typed);
            tv_jw_obj_end(w);
        }
        tv_jw_arr_end(w);
        break;
    case TV_AGG_FILTERS:
        tv_jw_keyz(w, "buckets");
        if (a->keyed) tv_jw_obj_begin(w);
        else tv_jw_arr_begin(w);
        for (size_t i = 0; i < r->nb && !st; i++) {
            const agg_bucket *b = &r->b[i];
            if (a->keyed) tv_jw_key(w, b->ks, b->klen);
            tv_jw_obj_begin(w);
            st = write_bucket_body(rd, w, r, b, typed);
            tv_jw_obj_end(w);
        }
        if (a->keyed) tv_jw_obj_end(w);
        else tv_jw_arr_end(w);
        break;
    case TV_AGG_FILTER:
    case TV_AGG_MISSING:
    case TV_AGG_GLOBAL:
    case TV_AGG_NESTED:
    case TV_AGG_REVERSE_NESTED:
    case TV_AGG_SAMPLER:
        if (r->nb) st = write_bucket_body(rd, w, r, &r->b[0], typed);
        else { tv_jw_keyz(w, "doc_count"); tv_jw_uint(w, 0); }
        break;
    case TV_AGG_AVG:
    case TV_AGG_WEIGHTED_AVG: {
        double v = NAN;
        metric_prop(r, NULL, &v);
        bool ok = a->kind == TV_AGG_AVG ? r->count != 0 : r->wsum != 0;
        tv_jw_keyz(w, "value");
        write_opt_double(w, v, ok);
        if (ok && !raw) write_as_string(w, f, "value_as_string", v);
        break;
    }
    case TV_AGG_SUM:
        tv_jw_keyz(w, "value");
        tv_jw_double(w, r->sum);
        if (!raw) write_as_string(w, f, "value_as_string", r->sum);
        break;
    case TV_AGG_MIN:
    case TV_AGG_MAX: {
        double v = a->kind == TV_AGG_MIN ? r->min : r->max;
        bool ok = !isinf(v);
        tv_jw_keyz(w, "value");
        write_opt_double(w, v, ok);
        if (ok && !raw) write_as_string(w, f, "value_as_string", v);
        break;
    }
    case TV_AGG_VALUE_COUNT:
        tv_jw_keyz(w, "value");
        tv_jw_uint(w, r->count);
        break;
    case TV_AGG_CARDINALITY: {
        int64_t v = 0;
        if ((st = hll_value(rd, r, &v))) break;
        tv_jw_keyz(w, "value");
        tv_jw_int(w, v);
        break;
    }
    case TV_AGG_STATS:
    case TV_AGG_EXTENDED_STATS:
    case TV_AGG_STATS_BUCKET:
        st = write_stats(rd, w, r, typed);
        break;
    case TV_AGG_PERCENTILES:
    case TV_AGG_PERCENTILE_RANKS:
        st = write_percentiles(rd, w, r, typed);
        break;
    case TV_AGG_MAD: {
        /* InternalMedianAbsoluteDeviation.doXContentBody: null without values */
        bool ok = r->count != 0;
        tv_jw_keyz(w, "value");
        write_opt_double(w, r->value, ok);
        if (ok && !raw) write_as_string(w, f, "value_as_string", r->value);
        break;
    }
    case TV_AGG_TOP_HITS:
        st = write_top_hits(rd, w, r, typed);
        break;
    case TV_AGG_MIN_BUCKET:
    case TV_AGG_MAX_BUCKET: {
        bool ok = !isinf(r->value);
        tv_jw_keyz(w, "value");
        write_opt_double(w, r->value, ok);
        if (ok && !raw) write_as_string(w, f, "value_as_string", r->value);
        tv_jw_keyz(w, "keys");
        tv_jw_arr_begin(w);
        for (size_t k = 0; k < r->nkeys; k++) tv_jw_strz(w, r->keys[k]);
        tv_jw_arr_end(w);
        break;
    }
    default: { /* simple values: cumulative_sum, derivative, avg_bucket, sum_bucket */
        bool ok = isfinite(r->value);
        tv_jw_keyz(w, "value");
        write_opt_double(w, r->value, ok);
        if (ok && !raw) write_as_string(w, f, "value_as_string", r->value);
        if (a->kind == TV_AGG_DERIVATIVE && r->has_value) {
            bool nok = isfinite(r->sum);
            tv_jw_keyz(w, "normalized_value");
            write_opt_double(w, r->sum, nok);
            if (nok && !raw) write_as_string(w, f, "normalized_value_as_string", r->sum);
        }
        break;
    }
    }
    tv_jw_obj_end(w);
    return st;
}

/* ------------------------------------------------------------- entry */

tv_status tv_aggs_reduce_write(tv_agg_ctx *c, const tv_aggs *aggs, agg_res ***results, size_t ntargets,
                               bool typed_keys, tv_jw *w) {
    red rd = {c, 0};
    agg_res **level = tv_arena_calloc(c->arena, aggs->n + 1, sizeof *level);
    agg_res **tmp = tv_arena_alloc(c->arena, (ntargets + 1) * sizeof *tmp);
    if (!level || !tmp) return r_oom(&rd);
    for (uint32_t i = 0; i < aggs->n; i++) {
        const tv_agg *a = aggs->items[i];
        if (tv_agg_is_pipeline(a->kind)) continue;
        size_t k = 0;
        for (size_t t = 0; t < ntargets; t++)
            if (results[t] && results[t][i]) tmp[k++] = results[t][i];
        if (!k) {
            /* no target: the empty result */
            agg_res *u = empty_of(&rd, a);
            if (!u) return r_oom(&rd);
            tmp[k++] = u;
        }
        tv_status st = reduce(&rd, a, tmp, k, true, &level[i]);
        if (st) return st;
    }
    /* top-level sibling pipelines */
    for (uint32_t i = 0; i < aggs->n; i++) {
        const tv_agg *p = aggs->items[i];
        if (!tv_agg_is_pipeline(p->kind)) continue;
        if (p->kind == TV_AGG_BUCKET_SORT) {
            /* ValidationContext.ForTreeRoot.validateHasParent, then the builder's own check */
            if (!p->bs_nsort && p->bs_size < 0 && p->bs_from == 0)
                tv_error_set(c->err, TROVE_EVALIDATION,
                             "Validation Failed: 1: bucket_sort aggregation [%s] must be declared inside of another aggregation;2: [%s] is configured to perform nothing. Please set either of [sort, size, from] to use bucket_sort;",
                             p->name, p->name);
            else
                tv_error_set(c->err, TROVE_EVALIDATION,
                             "Validation Failed: 1: bucket_sort aggregation [%s] must be declared inside of another aggregation;", p->name);
            return TROVE_EVALIDATION;
        }
        if (p->kind == TV_AGG_BUCKET_SCRIPT || p->kind == TV_AGG_BUCKET_SELECTOR) {
            /* ValidationContext.ForTreeRoot.validateHasParent */
            tv_error_set(c->err, TROVE_EVALIDATION,
                         "Validation Failed: 1: %s aggregation [%s] must be declared inside of another aggregation;",
                         p->type_name, p->name);
            return TROVE_EVALIDATION;
        }
        if (parent_pipe(p->kind)) {
            tv_error_set(c->err, TROVE_EVALIDATION,
                         "Validation Failed: 1: %s aggregation [%s] must have a histogram, date_histogram or auto_date_histogram as parent but doesn't have a parent;",
                         p->type_name, p->name);
            return TROVE_EVALIDATION;
        }
        tv_status st = sibling_pipeline(&rd, p, level, (const tv_agg *const *)aggs->items, aggs->n, &level[i]);
        if (st) return st;
    }
    tv_jw_keyz(w, "aggregations");
    tv_jw_obj_begin(w);
    tv_status st = write_level(&rd, w, (const tv_agg *const *)aggs->items, level, aggs->n, typed_keys);
    tv_jw_obj_end(w);
    return st;
}
