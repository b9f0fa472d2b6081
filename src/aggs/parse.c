/*
 * parse.c — the "aggs" object of a search body into tv_agg trees.
 *
 * AggregatorFactories.parseAggregators' structure and errors: a level is an
 * object of named aggregations; each is an object holding exactly one type
 * key (the body of that type), optionally "meta" and "aggs"/"aggregations".
 * Names may not contain '[', ']' or '>'; sibling names are unique. Each
 * type's body is read as its builder's ObjectParser reads it: an unknown
 * key is x_content_parse_exception "[l:c] [type] unknown field [key]";
 * numbers accept numeric strings (XContentParser.intValue). Checks that
 * need a mapping (field types, date formats) happen per target, in
 * collect.c.
 *
 * Types trove does not implement are named in a 400
 * unsupported_operation_exception; unknown types get OpenSearch's
 * "Unknown aggregation type [x]".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "index/rounding.h"
#include "index/tz.h"
#include "aggs/aggs.h"
#include "query/parse.h"

typedef struct kind_name {
    const char *name;
    tv_agg_kind kind;
} kind_name;

static const kind_name k_kinds[] = {
    {"terms", TV_AGG_TERMS},
    {"histogram", TV_AGG_HISTOGRAM},
    {"date_histogram", TV_AGG_DATE_HISTOGRAM},
    {"auto_date_histogram", TV_AGG_AUTO_DATE_HISTOGRAM},
    {"range", TV_AGG_RANGE},
    {"date_range", TV_AGG_DATE_RANGE},
    {"geo_distance", TV_AGG_RANGE}, /* a->geo */
    {"filter", TV_AGG_FILTER},
    {"filters", TV_AGG_FILTERS},
    {"adjacency_matrix", TV_AGG_ADJACENCY_MATRIX},
    {"missing", TV_AGG_MISSING},
    {"global", TV_AGG_GLOBAL},
    {"sampler", TV_AGG_SAMPLER},
    {"nested", TV_AGG_NESTED},
    {"reverse_nested", TV_AGG_REVERSE_NESTED},
    {"composite", TV_AGG_COMPOSITE},
    {"multi_terms", TV_AGG_MULTI_TERMS},
    {"significant_terms", TV_AGG_SIGNIFICANT_TERMS},
    {"significant_text", TV_AGG_SIGNIFICANT_TEXT},
    {"variable_width_histogram", TV_AGG_VARIABLE_WIDTH_HISTOGRAM},
    {"avg", TV_AGG_AVG},
    {"sum", TV_AGG_SUM},
    {"min", TV_AGG_MIN},
    {"max", TV_AGG_MAX},
    {"value_count", TV_AGG_VALUE_COUNT},
    {"stats", TV_AGG_STATS},
    {"extended_stats", TV_AGG_EXTENDED_STATS},
    {"weighted_avg", TV_AGG_WEIGHTED_AVG},
    {"cardinality", TV_AGG_CARDINALITY},
    {"percentiles", TV_AGG_PERCENTILES},
    {"percentile_ranks", TV_AGG_PERCENTILE_RANKS},
    {"median_absolute_deviation", TV_AGG_MAD},
    {"top_hits", TV_AGG_TOP_HITS},
    {"cumulative_sum", TV_AGG_CUMULATIVE_SUM},
    {"derivative", TV_AGG_DERIVATIVE},
    {"moving_fn", TV_AGG_MOVING_FN},
    {"bucket_sort", TV_AGG_BUCKET_SORT},
    {"avg_bucket", TV_AGG_AVG_BUCKET},
    {"sum_bucket", TV_AGG_SUM_BUCKET},
    {"min_bucket", TV_AGG_MIN_BUCKET},
    {"max_bucket", TV_AGG_MAX_BUCKET},
    {"stats_bucket", TV_AGG_STATS_BUCKET},
    {"bucket_script", TV_AGG_BUCKET_SCRIPT},
    {"bucket_selector", TV_AGG_BUCKET_SELECTOR},
};

/* OpenSearch's other aggregation types: recognised, refused by name. */
static const char *const k_unsupported[] = {
    "diversified_sampler",
    "rare_terms", "ip_range",
    "geohash_grid", "geotile_grid", "geo_bounds", "geo_centroid", "scripted_metric",
    "moving_avg", "serial_diff", "percentiles_bucket",
    "extended_stats_bucket", "matrix_stats", "children", "parent", "string_stats", "boxplot", "t_test",
    "top_metrics", "rate", "multi_range", "weighted_sum", "ip_prefix",
};

bool tv_agg_is_bucket(tv_agg_kind k) { return k <= TV_AGG_VARIABLE_WIDTH_HISTOGRAM; }
bool tv_agg_is_pipeline(tv_agg_kind k) { return k >= TV_AGG_CUMULATIVE_SUM; }
bool tv_agg_is_single_bucket(tv_agg_kind k) {
    return k == TV_AGG_FILTER || k == TV_AGG_MISSING || k == TV_AGG_GLOBAL || k == TV_AGG_SAMPLER || k == TV_AGG_NESTED ||
           k == TV_AGG_REVERSE_NESTED;
}

static tv_status oom(tv_dsl *d) { return tv_error_oom(d->err); }

/* TimeValue.parseTimeValue for intervals and offsets: a whole number and
 * a unit (nanos, micros, ms, s, m, h, d). */
static bool tv_time_value_ms(const char *s, size_t n, int64_t *out) {
    static const struct {
        const char *u;
        int64_t mul, div;
    } units[] = {{"nanos", 1, 1000000}, {"micros", 1, 1000}, {"ms", 1, 1}, {"s", 1000, 1},
                 {"m", 60000, 1}, {"h", 3600000, 1}, {"d", 86400000, 1}};
    for (size_t u = 0; u < TV_ARRAY_LEN(units); u++) {
        size_t l = strlen(units[u].u);
        if (n <= l || memcmp(s + n - l, units[u].u, l)) continue;
        int64_t x;
        if (!tv_parse_i64(s, n - l, &x) || x < 0 || x > INT64_MAX / units[u].mul) return false;
        *out = x * units[u].mul / units[u].div;
        return true;
    }
    return false;
}

static tv_status unknown_field(tv_dsl *d, const char *type, const tv_json_member *m) {
    uint32_t l = 0, c = 0;
    if (d->src) tv_json_linecol(d->src, d->src_len, m->key_off, &l, &c);
    return tv_dsl_error(d, TROVE_EXCONTENT, m->key_off, "[%u:%u] [%s] unknown field [%s]", l, c, type, m->key);
}

/* ObjectParser's wrong-token error for a declared field. */
static tv_status bad_token(tv_dsl *d, const char *type, const tv_json_member *m) {
    uint32_t l = 0, c = 0;
    if (d->src) tv_json_linecol(d->src, d->src_len, m->key_off, &l, &c);
    return tv_dsl_error(d, TROVE_EXCONTENT, m->val.off, "[%u:%u] [%s] %s doesn't support values of type: %s", l, c,
                        type, m->key, tv_dsl_token_name(&m->val));
}

/* ObjectParser's wrapper around a setter's IllegalArgumentException:
 * x_content_parse_exception "[l:c] [type] failed to parse field [key]"
 * caused by the setter's message. */
static tv_status field_fail(tv_dsl *d, const char *type, const tv_json_member *m, const char *fmt, ...) TV_PRINTF(4, 5);
static tv_status field_fail(tv_dsl *d, const char *type, const tv_json_member *m, const char *fmt, ...) {
    char buf[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    uint32_t l = 0, c = 0;
    if (d->src) tv_json_linecol(d->src, d->src_len, m->val.off, &l, &c);
    tv_dsl_error(d, TROVE_EXCONTENT, m->val.off, "[%u:%u] [%s] failed to parse field [%s]", l, c, type, m->key);
    return tv_error_cause(d->err, TROVE_EARG, "%s", buf);
}

static bool scalar(const tv_json *v) { return v->type != TV_JSON_OBJECT && v->type != TV_JSON_ARRAY; }

static tv_status str_val(tv_dsl *d, const char *type, const tv_json_member *m, const char **out) {
    if (m->val.type != TV_JSON_STRING) return bad_token(d, type, m);
    *out = m->val.v.s;
    return TROVE_OK;
}

/* time_zone: ZoneId.of runs while the body is parsed, so a bad id is
 * ObjectParser's "failed to parse field [time_zone]" caused by java.time's
 * message. */
static tv_status zone_val(tv_dsl *d, const char *type, const tv_json_member *m, const char **out) {
    tv_status st = str_val(d, type, m, out);
    if (st) return st;
    const tv_tz *z;
    tv_error e;
    tv_error_clear(&e);
    if (tv_tz_get(m->val.v.s, m->val.len, &z, &e)) {
        field_fail(d, type, m, "%s", e.reason);
        if (e.type != TROVE_OK && d->err) d->err->cause_type = e.type;
        return d->err ? d->err->code : TROVE_EXCONTENT;
    }
    return TROVE_OK;
}

static tv_status int_val(tv_dsl *d, const char *type, const tv_json_member *m, int64_t *out) {
    if (!scalar(&m->val) || m->val.type == TV_JSON_NULL) return bad_token(d, type, m);
    int32_t x;
    tv_status st = tv_dsl_java_int(d, &m->val, &x);
    if (!st) *out = x;
    return st;
}

static tv_status long_val(tv_dsl *d, const char *type, const tv_json_member *m, int64_t *out) {
    const tv_json *v = &m->val;
    if (v->type == TV_JSON_INT) { *out = v->v.i; return TROVE_OK; }
    if (v->type == TV_JSON_DOUBLE && v->v.d >= -9.2e18 && v->v.d <= 9.2e18) { *out = (int64_t)v->v.d; return TROVE_OK; }
    if (v->type == TV_JSON_STRING) {
        double x;
        if (!tv_java_parse_double(v->v.s, v->len, &x)) return tv_dsl_nfe(d, v->v.s, v->len);
        *out = tv_java_d2l(x); /* Java's (long): saturated, NaN 0 */
        return TROVE_OK;
    }
    return bad_token(d, type, m);
}

static tv_status dbl_val(tv_dsl *d, const char *type, const tv_json_member *m, double *out) {
    const tv_json *v = &m->val;
    if (tv_json_is_number(v)) { *out = tv_json_as_double(v); return TROVE_OK; }
    if (v->type == TV_JSON_STRING) {
        if (!tv_java_parse_double(v->v.s, v->len, out)) return tv_dsl_nfe(d, v->v.s, v->len);
        return TROVE_OK;
    }
    return bad_token(d, type, m);
}

static tv_status bool_val(tv_dsl *d, const char *type, const tv_json_member *m, bool *out) {
    if (!scalar(&m->val)) return bad_token(d, type, m);
    return tv_dsl_bool(d, type, m->key, &m->val, out);
}

static bool key_is(const tv_json_member *m, const char *k) { return tv_streq(m->key, m->key_len, k); }

/* field, missing, format, script, value_type: ValuesSourceAggregationBuilder. */
static tv_status source_key(tv_dsl *d, const char *type, const tv_json_member *m, tv_agg_source *s, bool *done) {
    *done = true;
    if (key_is(m, "field")) return str_val(d, type, m, &s->field);
    if (key_is(m, "missing")) { s->missing = &m->val; return TROVE_OK; }
    if (key_is(m, "format")) return str_val(d, type, m, &s->format);
    if (key_is(m, "value_type")) return str_val(d, type, m, &s->value_type);
    if (key_is(m, "script")) {
        /* a script values source (AggregationScript: doc, params, _score,
         * and _value when a field feeds it): the numeric metrics only */
        static const char *const scripted[] = {"avg", "sum", "min", "max", "stats", "extended_stats", "value_count"};
        for (size_t i = 0; i < TV_ARRAY_LEN(scripted); i++)
            if (strcmp(type, scripted[i]) == 0) {
                /* compiled on the shard (collect.c), as ValuesSourceConfig does */
                if (m->val.type != TV_JSON_STRING && m->val.type != TV_JSON_OBJECT)
                    return tv_dsl_error(d, TROVE_EXCONTENT, m->val.off, "[script] Expected START_OBJECT but was: %s",
                                        tv_dsl_token_name(&m->val));
                s->script = &m->val;
                return TROVE_OK;
            }
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, m->val.off, "[script] in aggregation [%s] is not supported by trove", type);
    }
    *done = false;
    return TROVE_OK;
}

/* ------------------------------------------------------------- orders */

typedef TV_VEC(tv_agg_order) order_vec;

static tv_status parse_order_one(tv_dsl *d, tv_agg *a, const tv_json *o, order_vec *out) {
    if (o->type != TV_JSON_OBJECT)
        return tv_dsl_error(d, TROVE_EPARSE, o->off, "Unexpected token %s for [order] in [%s].", tv_dsl_token_name(o), a->name);
    for (uint32_t i = 0; i < o->len; i++) {
        const tv_json_member *m = &o->v.members[i];
        tv_agg_order x = {0};
        if (m->val.type != TV_JSON_STRING)
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "Unexpected token %s for [order] in [%s].",
                                tv_dsl_token_name(&m->val), a->name);
        if (tv_streq(m->val.v.s, m->val.len, "asc")) x.desc = false;
        else if (tv_streq(m->val.v.s, m->val.len, "desc")) x.desc = true;
        else
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "Unknown order direction [%s] in terms aggregation [%s]",
                                m->val.v.s, a->name);
        if (key_is(m, "_count")) x.kind = TV_ORD_COUNT;
        else if (key_is(m, "_key") || key_is(m, "_term") || key_is(m, "_time")) x.kind = TV_ORD_KEY;
        else { x.kind = TV_ORD_PATH; x.path = m->key; }
        if (tv_vec_push(out, x)) return oom(d);
    }
    return TROVE_OK;
}

/* One order or an array of them (terms' order, bucket_sort's sort), each
 * parsed by one(), into an arena array *out of *n. */
typedef tv_status (*order_one_fn)(tv_dsl *d, tv_agg *a, const tv_json *o, order_vec *out);
static tv_status order_list(tv_dsl *d, tv_agg *a, const tv_json *v, order_one_fn one, tv_agg_order **out,
                            uint32_t *n) {
    order_vec ords = {0};
    tv_status st = TROVE_OK;
    if (v->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len && !st; i++) st = one(d, a, &v->v.items[i], &ords);
    } else {
        st = one(d, a, v, &ords);
    }
    if (!st && ords.len) {
        *out = tv_arena_alloc(d->arena, ords.len * sizeof **out);
        if (!*out) st = oom(d);
        else {
            memcpy(*out, ords.items, ords.len * sizeof **out);
            *n = (uint32_t)ords.len;
        }
    }
    tv_vec_fini(&ords);
    return st;
}

static tv_status parse_order(tv_dsl *d, tv_agg *a, const tv_json *v) {
    return order_list(d, a, v, parse_order_one, &a->order, &a->norder);
}

/* --------------------------------------------------------- type bodies */

static tv_status parse_bounds(tv_dsl *d, const char *type, const tv_json_member *m, const tv_json **lo,
                              const tv_json **hi) {
    if (m->val.type != TV_JSON_OBJECT) return bad_token(d, type, m);
    for (uint32_t i = 0; i < m->val.len; i++) {
        const tv_json_member *b = &m->val.v.members[i];
        if (key_is(b, "min")) *lo = &b->val;
        else if (key_is(b, "max")) *hi = &b->val;
        else return unknown_field(d, m->key, b);
    }
    return TROVE_OK;
}

static tv_status parse_terms(tv_dsl *d, tv_agg *a, const tv_json *body) {
    a->size = 10;
    a->shard_size = -1;
    a->min_doc_count = 1;
    a->shard_min_doc_count = 0;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        bool done;
        tv_status st = source_key(d, "terms", m, &a->src, &done);
        if (st) return st;
        if (done) continue;
        if (key_is(m, "size")) {
            if (!(st = int_val(d, "terms", m, &a->size)) && a->size <= 0)
                return field_fail(d, "terms", m, "[size] must be greater than 0. Found [%lld] in [%s]", (long long)a->size, a->name);
        } else if (key_is(m, "shard_size")) {
            a->shard_size_set = true;
            if (!(st = int_val(d, "terms", m, &a->shard_size)) && a->shard_size <= 0)
                return field_fail(d, "terms", m, "[shardSize] must be greater than 0. Found [%lld] in [%s]", (long long)a->shard_size, a->name);
        } else if (key_is(m, "min_doc_count")) {
            if (!(st = long_val(d, "terms", m, &a->min_doc_count)) && a->min_doc_count < 0)
                return field_fail(d, "terms", m, "[minDocCount] must be greater than or equal to 0. Found [%lld] in [%s]",
                                  (long long)a->min_doc_count, a->name);
        } else if (key_is(m, "shard_min_doc_count")) {
            if (!(st = long_val(d, "terms", m, &a->shard_min_doc_count)) && a->shard_min_doc_count < 0)
                return field_fail(d, "terms", m, "[shardMinDocCount] must be greater than or equal to 0. Found [%lld] in [%s]",
                                  (long long)a->shard_min_doc_count, a->name);
        }
        else if (key_is(m, "order")) st = parse_order(d, a, &m->val);
        else if (key_is(m, "include")) a->include = &m->val;
        else if (key_is(m, "exclude")) a->exclude = &m->val;
        else if (key_is(m, "show_term_doc_count_error")) st = bool_val(d, "terms", m, &a->show_err);
        else if (key_is(m, "execution_hint") || key_is(m, "collect_mode")) {
            if (m->val.type != TV_JSON_STRING) st = bad_token(d, "terms", m);
            else if (key_is(m, "collect_mode") && !tv_streq(m->val.v.s, m->val.len, "depth_first") &&
                     !tv_streq(m->val.v.s, m->val.len, "breadth_first"))
                st = tv_dsl_error(d, TROVE_EARG, m->val.off, "Unknown collect_mode [%s]", m->val.v.s);
        } else return unknown_field(d, "terms", m);
        if (st) return st;
    }
    return TROVE_OK;
}

/*
 * significant_terms / significant_text (SignificantTermsAggregationBuilder,
 * SignificantTextAggregationBuilder): terms' thresholds with their own
 * defaults (min_doc_count 3), background_filter, and the heuristic as a
 * named object; an unknown key is the ObjectParser's named-object error,
 * whose suggestion draws on the declared keys and the heuristics' names.
 */
static const char *const k_heuristics[] = {"chi_square", "gnd", "jlh", "mutual_information", "percentage",
                                           "script_heuristic"};

static tv_status parse_heuristic(tv_dsl *d, tv_agg *a, const tv_json_member *m) {
    const char *h = m->key;
    uint32_t l = 0, c = 0;
    if (m->val.type != TV_JSON_OBJECT) {
        if (d->src) tv_json_linecol(d->src, d->src_len, m->val.off, &l, &c);
        return tv_dsl_error(d, TROVE_EXCONTENT, m->val.off, "[%u:%u] [%s] Expected START_OBJECT but was: %s", l, c, h,
                            tv_dsl_token_name(&m->val));
    }
    if (key_is(m, "script_heuristic"))
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, m->key_off, "[script_heuristic] significance heuristic is not supported by trove");
    bool nxy = key_is(m, "mutual_information") || key_is(m, "chi_square"), gnd = key_is(m, "gnd");
    a->sig_heuristic = key_is(m, "jlh") ? TV_SIG_JLH : key_is(m, "percentage") ? TV_SIG_PERCENTAGE
                       : key_is(m, "mutual_information") ? TV_SIG_MUTUAL_INFORMATION
                       : key_is(m, "chi_square") ? TV_SIG_CHI_SQUARE : TV_SIG_GND;
    /* NXYSignificanceHeuristic: include_negatives false, background_is_superset true */
    a->sig_include_negatives = gnd;
    a->sig_bg_superset = true;
    for (uint32_t i = 0; i < m->val.len; i++) {
        const tv_json_member *x = &m->val.v.members[i];
        tv_status st;
        if ((nxy || gnd) && key_is(x, "background_is_superset")) st = bool_val(d, h, x, &a->sig_bg_superset);
        else if (nxy && key_is(x, "include_negatives")) st = bool_val(d, h, x, &a->sig_include_negatives);
        else return unknown_field(d, h, x);
        if (st) return st;
    }
    return TROVE_OK;
}

static tv_status parse_significant(tv_dsl *d, tv_agg *a, const tv_json *body) {
    bool text = a->kind == TV_AGG_SIGNIFICANT_TEXT;
    const char *type = text ? "significant_text" : "significant_terms";
    a->size = 10;
    a->shard_size = -1;
    a->min_doc_count = 3;
    a->shard_min_doc_count = 0;
    a->sig_heuristic = TV_SIG_JLH;
    a->sig_bg_superset = true;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        tv_status st = TROVE_OK;
        bool done = false;
        if (!text && (st = source_key(d, type, m, &a->src, &done))) return st;
        if (done) continue;
        if (text && key_is(m, "field")) st = str_val(d, type, m, &a->src.field);
        else if (key_is(m, "size")) {
            if (!(st = int_val(d, type, m, &a->size)) && a->size <= 0)
                return field_fail(d, type, m, "[size] must be greater than 0. Found [%lld] in [%s]", (long long)a->size, a->name);
        } else if (key_is(m, "shard_size")) {
            if (!(st = int_val(d, type, m, &a->shard_size)) && a->shard_size <= 0)
                return field_fail(d, type, m, "[shardSize] must be greater than  0. Found [%lld] in [%s]",
                                  (long long)a->shard_size, a->name);
            a->shard_size_set = a->shard_size != -1;
        } else if (key_is(m, "min_doc_count")) {
            if (!(st = long_val(d, type, m, &a->min_doc_count)) && a->min_doc_count < 0)
                return field_fail(d, type, m, "[minDocCount] must be greater than or equal to 0. Found [%lld] in [%s]",
                                  (long long)a->min_doc_count, a->name);
        } else if (key_is(m, "shard_min_doc_count")) {
            if (!(st = long_val(d, type, m, &a->shard_min_doc_count)) && a->shard_min_doc_count < 0)
                return field_fail(d, type, m, "[shardMinDocCount] must be greater than or equal to 0. Found [%lld] in [%s]",
                                  (long long)a->shard_min_doc_count, a->name);
        } else if (!text && key_is(m, "execution_hint")) {
            st = str_val(d, type, m, &a->execution_hint);
        } else if (key_is(m, "background_filter")) {
            if (m->val.type != TV_JSON_OBJECT) st = bad_token(d, type, m);
            else a->bg_filter = &m->val;
        } else if (key_is(m, "include")) a->include = &m->val;
        else if (key_is(m, "exclude")) a->exclude = &m->val;
        else if (text && key_is(m, "filter_duplicate_text")) st = bool_val(d, type, m, &a->filter_dup);
        else if (text && key_is(m, "source_fields")) {
            if (m->val.type != TV_JSON_ARRAY) return bad_token(d, type, m);
            a->source_fields = tv_arena_calloc(d->arena, m->val.len + 1, sizeof *a->source_fields);
            if (!a->source_fields) return oom(d);
            a->nsource_fields = 0;
            for (uint32_t k = 0; k < m->val.len; k++) {
                const tv_json *e = &m->val.v.items[k];
                const char *s;
                size_t n;
                if (!scalar(e) || !tv_dsl_scalar_text(e, &s, &n)) return bad_token(d, type, m);
                if (!(a->source_fields[a->nsource_fields++] = tv_arena_strndup(d->arena, s, n))) return oom(d);
            }
        } else {
            bool heur = false;
            for (size_t k = 0; k < TV_ARRAY_LEN(k_heuristics) && !heur; k++) heur = key_is(m, k_heuristics[k]);
            if (heur) st = parse_heuristic(d, a, m);
            else {
                /* ObjectParser's unknownIsNamedXContent */
                static const char *const terms_keys[] = {"field", "missing", "format", "value_type", "script", "size",
                                                         "shard_size", "min_doc_count", "shard_min_doc_count",
                                                         "execution_hint", "background_filter", "include", "exclude"};
                static const char *const text_keys[] = {"field", "source_fields", "filter_duplicate_text", "size",
                                                        "shard_size", "min_doc_count", "shard_min_doc_count",
                                                        "background_filter", "include", "exclude"};
                const char *cands[32];
                size_t nc = 0;
                const char *const *keys = text ? text_keys : terms_keys;
                size_t nk = text ? TV_ARRAY_LEN(text_keys) : TV_ARRAY_LEN(terms_keys);
                for (size_t k = 0; k < nk; k++) cands[nc++] = keys[k];
                for (size_t k = 0; k < TV_ARRAY_LEN(k_heuristics); k++) cands[nc++] = k_heuristics[k];
                char sug[256];
                tv_dsl_did_you_mean(m->key, m->key_len, cands, nc, sug, sizeof sug);
                uint32_t l = 0, c = 0, vl = 0, vc = 0;
                if (d->src) {
                    tv_json_linecol(d->src, d->src_len, m->key_off, &l, &c);
                    tv_json_linecol(d->src, d->src_len, m->val.off, &vl, &vc);
                }
                tv_dsl_error(d, TROVE_EXCONTENT, m->key_off, "[%u:%u] [%s] unknown field [%s]%s", l, c, type, m->key, sug);
                tv_error_cause(d->err, TROVE_EXCONTENT, "[%u:%u] unknown field [%s]", vl, vc, m->key);
                if (d->err) d->err->cause_type = TROVE_ENAMEDOBJECT;
                return TROVE_EXCONTENT;
            }
        }
        if (st) return st;
    }
    if (text && !a->src.field)
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, body->off, "[significant_text] without [field] is not supported by trove");
    return TROVE_OK;
}

static tv_status parse_histogram(tv_dsl *d, tv_agg *a, const tv_json *body, bool date) {
    const char *type = date ? "date_histogram" : "histogram";
    bool has_interval = false, legacy = false;
    a->min_doc_count = 0;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        bool done;
        tv_status st = source_key(d, type, m, &a->src, &done);
        if (st) return st;
        if (done) continue;
        if (key_is(m, "min_doc_count")) {
            if (!(st = long_val(d, type, m, &a->min_doc_count)) && a->min_doc_count < 0)
                return field_fail(d, type, m, "[minDocCount] must be greater than or equal to 0. Found [%lld] in [%s]",
                                  (long long)a->min_doc_count, a->name);
        } else if (key_is(m, "keyed")) st = bool_val(d, type, m, &a->keyed);
        else if (key_is(m, "order")) st = parse_order(d, a, &m->val);
        else if (key_is(m, "extended_bounds")) { a->has_ext = true; st = parse_bounds(d, "extended_bounds", m, &a->ext_min, &a->ext_max); }
        else if (key_is(m, "hard_bounds")) { a->has_hard = true; st = parse_bounds(d, "hard_bounds", m, &a->hard_min, &a->hard_max); }
        else if (!date && key_is(m, "interval")) {
            has_interval = true;
            if (!(st = dbl_val(d, type, m, &a->interval)) && !(a->interval > 0))
                return field_fail(d, type, m, "[interval] must be >0 for histogram aggregation [%s]", a->name);
        }
        else if (!date && key_is(m, "offset")) st = dbl_val(d, type, m, &a->offset);
        else if (date && key_is(m, "time_zone")) st = zone_val(d, type, m, &a->time_zone);
        else if (date && key_is(m, "offset")) {
            if (m->val.type == TV_JSON_INT) a->offset_ms = m->val.v.i;
            else if (m->val.type == TV_JSON_STRING) {
                /* "+1h", "-6h", "1d": DateHistogramAggregationBuilder.parseStringOffset */
                const char *s = m->val.v.s;
                size_t n = m->val.len;
                bool neg = n && s[0] == '-';
                if (n && (s[0] == '-' || s[0] == '+')) { s++; n--; }
                int64_t ms;
                if (!tv_time_value_ms(s, n, &ms))
                    return tv_error_set(d->err, TROVE_EARG,
                                        "failed to parse setting [%s.offset] with value [%s] as a time value: unit is missing or unrecognized",
                                        type, m->val.v.s);
                a->offset_ms = neg ? -ms : ms;
            } else st = bad_token(d, type, m);
        } else if (date && (key_is(m, "calendar_interval") || key_is(m, "fixed_interval") || key_is(m, "interval"))) {
            if (m->val.type != TV_JSON_STRING && !(key_is(m, "interval") && m->val.type == TV_JSON_INT)) { st = bad_token(d, type, m); }
            else if (has_interval) {
                if (key_is(m, "interval"))
                    return field_fail(d, type, m, "Cannot use [interval] with [fixed_interval] or [calendar_interval] configuration options.");
                return field_fail(d, type, m, "Cannot use [%s] with [%s] configuration option.", m->key,
                                  legacy ? "interval" : a->calendar_unit ? "calendar_interval" : "fixed_interval");
            } else {
                legacy = key_is(m, "interval");
                has_interval = true;
                tv_date_unit u;
                const char *s = m->val.type == TV_JSON_STRING ? m->val.v.s : NULL;
                size_t n = m->val.len;
                bool cal = key_is(m, "calendar_interval"), fixed = key_is(m, "fixed_interval");
                if (!cal && !fixed) { /* legacy "interval": a unit is calendar, else fixed */
                    if (s && tv_date_unit_parse(s, n, &u)) cal = true;
                    else fixed = true;
                }
                if (cal) {
                    if (!s || !tv_date_unit_parse(s, n, &u))
                        return field_fail(d, type, m, "The supplied interval [%s] could not be parsed as a calendar interval.", s ? s : "");
                    a->calendar_unit = (int)u + 1;
                } else {
                    int64_t ms = 0;
                    if (!s) ms = m->val.v.i;
                    else if (!tv_time_value_ms(s, n, &ms))
                        return field_fail(d, type, m,
                                          "failed to parse setting [date_histogram.fixedInterval] with value [%s] as a time value: unit is missing or unrecognized",
                                          s);
                    if (legacy && ms < 1)
                        return field_fail(d, type, m, "[interval] must be 1 or greater for aggregation [date_histogram]");
                    if (ms <= 0) return field_fail(d, type, m, "Zero or negative time interval not supported");
                    a->fixed_ms = ms;
                }
            }
        } else return unknown_field(d, type, m);
        if (st) return st;
    }
    /* no interval at all fails on the shard (collect.c) */
    return TROVE_OK;
}

/* auto_date_histogram: AutoDateHistogramAggregationBuilder (the values
 * source keys with time_zone, buckets, minimum_interval). */
static tv_status parse_auto_date(tv_dsl *d, tv_agg *a, const tv_json *body) {
    const char *type = "auto_date_histogram";
    a->size = 10;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        bool done;
        tv_status st = source_key(d, type, m, &a->src, &done);
        if (st) return st;
        if (done) continue;
        if (key_is(m, "buckets")) {
            if (!(st = int_val(d, type, m, &a->size)) && a->size <= 0)
                return field_fail(d, type, m, "buckets must be greater than 0 for [%s]", a->name);
        } else if (key_is(m, "minimum_interval")) {
            const char *mi = NULL;
            if ((st = str_val(d, type, m, &mi))) return st;
            if ((a->adh_first = tv_adh_first(mi)) < 0)
                return field_fail(d, type, m, "minimum_interval must be one of [year, month, day, hour, minute, second]");
        } else if (key_is(m, "time_zone")) st = zone_val(d, type, m, &a->time_zone);
        else return unknown_field(d, type, m);
        if (st) return st;
    }
    return TROVE_OK;
}

/* The [ranges] member of range, date_range and geo_distance: an array,
 * for whose items a->ranges gets room (the caller parses them). */
static tv_status ranges_array(tv_dsl *d, const char *type, const tv_json_member *m, tv_agg *a) {
    if (m->val.type != TV_JSON_ARRAY) return bad_token(d, type, m);
    a->ranges = tv_arena_calloc(d->arena, m->val.len + 1, sizeof *a->ranges);
    if (!a->ranges) return oom(d);
    return TROVE_OK;
}

static tv_status parse_range(tv_dsl *d, tv_agg *a, const tv_json *body, bool date) {
    const char *type = date ? "date_range" : "range";
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        bool done;
        tv_status st = source_key(d, type, m, &a->src, &done);
        if (st) return st;
        if (done) continue;
        if (key_is(m, "keyed")) st = bool_val(d, type, m, &a->keyed);
        else if (date && key_is(m, "time_zone")) st = zone_val(d, type, m, &a->time_zone);
        else if (key_is(m, "ranges")) {
            if ((st = ranges_array(d, type, m, a))) return st;
            for (uint32_t j = 0; j < m->val.len; j++) {
                const tv_json *r = &m->val.v.items[j];
                tv_agg_range *o = &a->ranges[a->nranges++];
                if (r->type != TV_JSON_OBJECT) return tv_dsl_error(d, TROVE_EPARSE, r->off, "[ranges] failed to parse field [ranges]");
                for (uint32_t k = 0; k < r->len; k++) {
                    const tv_json_member *rm = &r->v.members[k];
                    if (key_is(rm, "key")) { if ((st = str_val(d, "range", rm, &o->key))) return st; }
                    else if (key_is(rm, "from")) o->from = rm->val.type == TV_JSON_NULL ? NULL : &rm->val;
                    else if (key_is(rm, "to")) o->to = rm->val.type == TV_JSON_NULL ? NULL : &rm->val;
                    else return tv_dsl_error(d, TROVE_EPARSE, rm->key_off, "Unknown key [%s] in [%s] range", rm->key, type);
                    if ((key_is(rm, "from") || key_is(rm, "to")) && !scalar(&rm->val))
                        return tv_dsl_error(d, TROVE_EPARSE, rm->val.off, "Unexpected token %s in [%s] range", tv_dsl_token_name(&rm->val), type);
                }
            }
        } else return unknown_field(d, type, m);
        if (st) return st;
    }
    if (!a->nranges) return tv_error_set(d->err, TROVE_EARG, "No [ranges] specified for the [%s] aggregation", a->name);
    return TROVE_OK;
}

/* GeoDistanceAggregationBuilder.parseGeoPoint: "lat,lon" or a geohash,
 * [lon, lat], or {lat, lon} (numbers). */
static bool geo_origin(tv_dsl *d, const tv_json *v, double *lat, double *lon) {
    if (v->type == TV_JSON_STRING) {
        bool ok = !tv_dsl_geo_point(d, v, lat, lon);
        tv_error_clear(d->err);
        return ok;
    }
    if (v->type == TV_JSON_ARRAY) {
        if (v->len != 2 || !tv_json_is_number(&v->v.items[0]) || !tv_json_is_number(&v->v.items[1])) return false;
        *lon = tv_json_as_double(&v->v.items[0]);
        *lat = tv_json_as_double(&v->v.items[1]);
        return true;
    }
    if (v->type == TV_JSON_OBJECT) {
        *lat = *lon = NAN;
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json_member *m = &v->v.members[i];
            if (!tv_json_is_number(&m->val)) continue;
            if (key_is(m, "lat")) *lat = tv_json_as_double(&m->val);
            else if (key_is(m, "lon")) *lon = tv_json_as_double(&m->val);
        }
        return !isnan(*lat) && !isnan(*lon);
    }
    return false;
}

/* GeoDistanceAggregationBuilder's parser: the values source (no format),
 * keyed, ranges (GeoDistanceAggregationBuilder.parseRange: from defaults
 * to 0, the key generated from the bounds as Range.key writes it), unit,
 * distance_type, origin (or center, point, por). */
static tv_status parse_geo_distance(tv_dsl *d, tv_agg *a, const tv_json *body) {
    const char *type = "geo_distance";
    bool has_origin = false;
    a->geo = true;
    a->geo_unit_m = 1.0;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        bool done;
        if (key_is(m, "format")) return unknown_field(d, type, m);
        if (key_is(m, "missing"))
            return tv_dsl_error(d, TROVE_EUNSUPPORTED, m->val.off, "[missing] in aggregation [geo_distance] is not supported by trove");
        tv_status st = source_key(d, type, m, &a->src, &done);
        if (st) return st;
        if (done) continue;
        if (key_is(m, "keyed")) st = bool_val(d, type, m, &a->keyed);
        else if (key_is(m, "unit")) {
            if (!scalar(&m->val) || m->val.type == TV_JSON_NULL) return bad_token(d, type, m);
            const char *t = "";
            size_t n = 0;
            tv_dsl_scalar_text(&m->val, &t, &n);
            if (!(a->geo_unit_m = tv_geo_unit(t, n)))
                return field_fail(d, type, m, "No distance unit match [%.*s]", (int)TV_MIN(n, 200), t);
        } else if (key_is(m, "distance_type")) {
            if (!scalar(&m->val) || m->val.type == TV_JSON_NULL) return bad_token(d, type, m);
            const char *t = "";
            size_t n = 0;
            tv_dsl_scalar_text(&m->val, &t, &n);
            if (n == 5 && !strncasecmp(t, "plane", 5)) a->geo_plane = true;
            else if (n == 3 && !strncasecmp(t, "arc", 3)) a->geo_plane = false;
            else return field_fail(d, type, m, "No geo distance for [%.*s]", (int)TV_MIN(n, 200), t);
        } else if (key_is(m, "origin") || key_is(m, "center") || key_is(m, "point") || key_is(m, "por")) {
            if (m->val.type != TV_JSON_STRING && m->val.type != TV_JSON_ARRAY && m->val.type != TV_JSON_OBJECT)
                return bad_token(d, type, m);
            if (!geo_origin(d, &m->val, &a->geo_lat, &a->geo_lon))
                return field_fail(d, type, m, "malformed [origin]");
            has_origin = true;
        } else if (key_is(m, "ranges")) {
            if ((st = ranges_array(d, type, m, a))) return st;
            for (uint32_t j = 0; j < m->val.len; j++) {
                const tv_json *r = &m->val.v.items[j];
                tv_agg_range *o = &a->ranges[a->nranges++];
                if (r->type != TV_JSON_OBJECT) return bad_token(d, type, m);
                double from = 0.0, to = INFINITY;
                const tv_json *fs = NULL, *ts = NULL;
                const char *key = NULL;
                for (uint32_t k = 0; k < r->len; k++) {
                    const tv_json_member *rm = &r->v.members[k];
                    bool isf = key_is(rm, "from"), ist = key_is(rm, "to"), isk = key_is(rm, "key");
                    if (rm->val.type == TV_JSON_NULL && (isf || ist || isk)) continue;
                    if (tv_json_is_number(&rm->val) && (isf || ist)) {
                        if (isf) from = tv_json_as_double(&rm->val);
                        else to = tv_json_as_double(&rm->val);
                    } else if (rm->val.type == TV_JSON_STRING && (isf || ist || isk)) {
                        if (isk) key = tv_arena_strndup(d->arena, rm->val.v.s, rm->val.len);
                        else if (isf) fs = &rm->val;
                        else ts = &rm->val;
                    } else if (rm->val.type == TV_JSON_OBJECT || rm->val.type == TV_JSON_ARRAY || rm->val.type == TV_JSON_TRUE || rm->val.type == TV_JSON_FALSE) {
                        return field_fail(d, type, m, "Failed to parse object: unexpected token [%s] found",
                                          tv_dsl_token_name(&rm->val));
                    } else {
                        return field_fail(d, type, m, "Failed to parse object: unknown field [%s] found", rm->key);
                    }
                }
                if (fs || ts) {
                    /* Double.parseDouble of both texts (of null: a
                     * NullPointerException) */
                    if (!fs || !ts || !tv_java_parse_double(fs->v.s, fs->len, &from) ||
                        !tv_java_parse_double(ts->v.s, ts->len, &to))
                        return field_fail(d, type, m, "Failed to parse range bounds");
                }
                if (!key) {
                    char fb[40], tb[40], kb[100];
                    if (from == 0) snprintf(fb, sizeof fb, "*");
                    else tv_fmt_double(from, fb);
                    if (isinf(to)) snprintf(tb, sizeof tb, "*");
                    else tv_fmt_double(to, tb);
                    snprintf(kb, sizeof kb, "%s-%s", fb, tb);
                    key = tv_arena_strndup(d->arena, kb, strlen(kb));
                }
                if (!key) return oom(d);
                o->key = key;
                o->from = r; /* bounded: from_d is the bound */
                o->to = isinf(to) && to > 0 ? NULL : r;
                o->from_d = from;
                o->to_d = to;
            }
        } else return unknown_field(d, type, m);
        if (st) return st;
    }
    if (!has_origin) return tv_error_set(d->err, TROVE_EARG, "Aggregation [%s] must define an [origin].", a->name);
    if (!a->nranges) return tv_error_set(d->err, TROVE_EARG, "No [ranges] specified for the [%s] aggregation", a->name);
    return TROVE_OK;
}

/* VariableWidthHistogramAggregationBuilder's parser: the values source,
 * buckets (> 0), shard_size (> 1), initial_buffer (> 0), each an int the
 * setter checks (ObjectParser wraps its message). */
static tv_status parse_vwh(tv_dsl *d, tv_agg *a, const tv_json *body) {
    const char *type = "variable_width_histogram";
    a->size = 10;
    a->shard_size = -1;
    a->initial_buffer = -1;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        bool done;
        if (key_is(m, "format"))
            return tv_dsl_error(d, TROVE_EUNSUPPORTED, m->val.off,
                                "[format] in aggregation [variable_width_histogram] is not supported by trove");
        tv_status st = source_key(d, type, m, &a->src, &done);
        if (st) return st;
        if (done) continue;
        int64_t x = 0;
        if (key_is(m, "buckets")) {
            if ((st = int_val(d, type, m, &x))) return st;
            if (x <= 0) return field_fail(d, type, m, "buckets must be greater than [0] for [%s]", a->name);
            a->size = x;
        } else if (key_is(m, "shard_size")) {
            if ((st = int_val(d, type, m, &x))) return st;
            if (x <= 1) return field_fail(d, type, m, "shard_size must be greater than [1] for [%s]", a->name);
            a->shard_size = x;
        } else if (key_is(m, "initial_buffer")) {
            if ((st = int_val(d, type, m, &x))) return st;
            if (x <= 0) return field_fail(d, type, m, "initial_buffer must be greater than [0] for [%s]", a->name);
            a->initial_buffer = x;
        } else return unknown_field(d, type, m);
    }
    if (a->shard_size < 0) a->shard_size = a->size * 50;
    if (a->initial_buffer < 0) a->initial_buffer = TV_MIN(10 * a->shard_size, 50000);
    return TROVE_OK;
}

static tv_status parse_filters(tv_dsl *d, tv_agg *a, const tv_json *body) {
    const tv_json *fs = NULL;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        tv_status st = TROVE_OK;
        if (key_is(m, "filters")) {
            if (m->val.type != TV_JSON_OBJECT && m->val.type != TV_JSON_ARRAY) return bad_token(d, "filters", m);
            fs = &m->val;
        } else if (key_is(m, "other_bucket")) st = bool_val(d, "filters", m, &a->other_bucket);
        else if (key_is(m, "other_bucket_key")) { st = str_val(d, "filters", m, &a->other_key); a->other_bucket = true; }
        else return tv_dsl_error(d, TROVE_EPARSE, m->key_off, "Unknown key for a %s in [%s]: [%s].", tv_dsl_token_name(&m->val),
                                 a->name, m->key);
        if (st) return st;
    }
    if (!fs || !fs->len) return tv_error_set(d->err, TROVE_EARG, "[filters] cannot be empty.");
    a->filters_anon = fs->type == TV_JSON_ARRAY;
    a->filters = tv_arena_calloc(d->arena, fs->len + 1, sizeof *a->filters);
    a->filter_keys = tv_arena_calloc(d->arena, fs->len + 1, sizeof *a->filter_keys);
    if (!a->filters || !a->filter_keys) return oom(d);
    for (uint32_t i = 0; i < fs->len; i++) {
        const tv_json *q = a->filters_anon ? &fs->v.items[i] : &fs->v.members[i].val;
        if (q->type != TV_JSON_OBJECT)
            return tv_dsl_error(d, TROVE_EPARSE, q->off, "[filters] filter [%u] must be an object", i);
        a->filters[i] = q;
        a->filter_keys[i] = a->filters_anon ? tv_arena_sprintf(d->arena, "%u", i) : fs->v.members[i].key;
        if (!a->filter_keys[i]) return oom(d);
    }
    a->nfilters = fs->len;
    if (!a->filters_anon && a->nfilters > 1) {
        /* FiltersAggregationBuilder sorts keyed filters by key */
        for (uint32_t i = 1; i < a->nfilters; i++)
            for (uint32_t j = i; j > 0 && strcmp(a->filter_keys[j - 1], a->filter_keys[j]) > 0; j--) {
                const char *tk = a->filter_keys[j];
                a->filter_keys[j] = a->filter_keys[j - 1];
                a->filter_keys[j - 1] = tk;
                const tv_json *tq = a->filters[j];
                a->filters[j] = a->filters[j - 1];
                a->filters[j - 1] = tq;
            }
    }
    if (a->other_bucket && !a->other_key) a->other_key = "_other_";
    a->keyed = !a->filters_anon;
    return TROVE_OK;
}

/* adjacency_matrix: AdjacencyMatrixAggregationBuilder (filters, separator,
 * show_only_intersecting); filters sorted by key as setFiltersAsList does. */
static tv_status parse_adjacency(tv_dsl *d, tv_agg *a, const tv_json *body) {
    const char *type = "adjacency_matrix";
    const tv_json *fs = NULL;
    a->separator = "&";
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        tv_status st = TROVE_OK;
        if (key_is(m, "filters")) {
            if (m->val.type != TV_JSON_OBJECT) return bad_token(d, type, m);
            fs = &m->val;
        } else if (key_is(m, "separator")) st = str_val(d, type, m, &a->separator);
        else if (key_is(m, "show_only_intersecting")) st = bool_val(d, type, m, &a->only_intersecting);
        else return unknown_field(d, type, m);
        if (st) return st;
    }
    if (!fs || !fs->len) {
        tv_error_set(d->err, TROVE_EILLEGALSTATE, "[%s] is missing : filters parameter", a->name);
        return TROVE_EILLEGALSTATE;
    }
    uint32_t n = fs->len;
    a->filters = tv_arena_calloc(d->arena, n + 1, sizeof *a->filters);
    a->filter_keys = tv_arena_calloc(d->arena, n + 1, sizeof *a->filter_keys);
    if (!a->filters || !a->filter_keys) return oom(d);
    for (uint32_t i = 0; i < n; i++) {
        const tv_json_member *m = &fs->v.members[i];
        if (m->val.type != TV_JSON_OBJECT)
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "[%s] failed to parse field [filters]", type);
        a->filters[i] = &m->val;
        a->filter_keys[i] = m->key;
    }
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && strcmp(a->filter_keys[j - 1], a->filter_keys[j]) > 0; j--) {
            const char *tk = a->filter_keys[j];
            a->filter_keys[j] = a->filter_keys[j - 1];
            a->filter_keys[j - 1] = tk;
            const tv_json *tq = a->filters[j];
            a->filters[j] = a->filters[j - 1];
            a->filters[j - 1] = tq;
        }
    a->nfilters = n;
    return TROVE_OK;
}

static tv_status parse_metric(tv_dsl *d, tv_agg *a, const tv_json *body) {
    const char *type = a->type_name;
    a->precision_threshold = 3000;
    a->compression = a->kind == TV_AGG_MAD ? 1000.0 : 100.0;
    a->keyed = true;
    bool has_values = false, has_tdigest = false;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        tv_status st = TROVE_OK;
        bool done = false;
        if (a->kind == TV_AGG_WEIGHTED_AVG) {
            if (key_is(m, "value") || key_is(m, "weight")) {
                if (m->val.type != TV_JSON_OBJECT) return bad_token(d, type, m);
                tv_agg_source *s = key_is(m, "value") ? &a->src : &a->weight;
                for (uint32_t k = 0; k < m->val.len; k++) {
                    const tv_json_member *vm = &m->val.v.members[k];
                    if (key_is(vm, "field")) st = str_val(d, m->key, vm, &s->field);
                    else if (key_is(vm, "missing")) s->missing = &vm->val;
                    else if (key_is(vm, "script"))
                        st = tv_dsl_error(d, TROVE_EUNSUPPORTED, vm->val.off, "[script] in aggregation [%s] is not supported by trove", type);
                    else return unknown_field(d, m->key, vm);
                    if (st) return st;
                }
                continue;
            }
            if (key_is(m, "format")) { st = str_val(d, type, m, &a->src.format); if (st) return st; continue; }
            if (key_is(m, "value_type")) { st = str_val(d, type, m, &a->src.value_type); if (st) return st; continue; }
            return unknown_field(d, type, m);
        }
        st = source_key(d, type, m, &a->src, &done);
        if (st) return st;
        if (done) continue;
        if (a->kind == TV_AGG_EXTENDED_STATS && key_is(m, "sigma")) {
            st = dbl_val(d, type, m, &a->interval); /* sigma */
            if (!st && a->interval < 0) {
                char num[40];
                tv_fmt_double(a->interval, num);
                return field_fail(d, type, m, "[sigma] must be greater than or equal to 0. Found [%s] in [%s]", num, a->name);
            }
        } else if (a->kind == TV_AGG_CARDINALITY && key_is(m, "precision_threshold")) {
            st = long_val(d, type, m, &a->precision_threshold);
            if (!st && a->precision_threshold < 0)
                return tv_error_set(d->err, TROVE_EARG, "[precisionThreshold] must be greater than or equal to 0. Found [%lld] in [%s]",
                                    (long long)a->precision_threshold, a->name);
        } else if (a->kind == TV_AGG_MAD && key_is(m, "compression")) {
            st = dbl_val(d, type, m, &a->compression);
            if (!st && !(a->compression > 0)) {
                char num[40];
                tv_fmt_double(a->compression, num);
                return field_fail(d, type, m, "[compression] must be greater than 0. Found [%s] in [%s]", num, a->name);
            }
        } else if (a->kind == TV_AGG_CARDINALITY && key_is(m, "execution_hint")) {
            if (m->val.type != TV_JSON_STRING) st = bad_token(d, type, m);
        } else if ((a->kind == TV_AGG_PERCENTILES && key_is(m, "percents")) ||
                   (a->kind == TV_AGG_PERCENTILE_RANKS && key_is(m, "values"))) {
            if (m->val.type != TV_JSON_ARRAY) return bad_token(d, type, m);
            a->percents = tv_arena_alloc(d->arena, (m->val.len + 1) * sizeof *a->percents);
            if (!a->percents) return oom(d);
            a->npercents = 0;
            for (uint32_t k = 0; k < m->val.len; k++) {
                const tv_json *e = &m->val.v.items[k];
                if (!tv_json_is_number(e)) return tv_dsl_error(d, TROVE_EPARSE, e->off, "[%s] failed to parse field [%s]", type, m->key);
                a->percents[a->npercents++] = tv_json_as_double(e);
            }
            has_values = true;
        } else if ((a->kind == TV_AGG_PERCENTILES || a->kind == TV_AGG_PERCENTILE_RANKS) && key_is(m, "keyed")) {
            st = bool_val(d, type, m, &a->keyed);
        } else if ((a->kind == TV_AGG_PERCENTILES || a->kind == TV_AGG_PERCENTILE_RANKS) && key_is(m, "tdigest")) {
            if (m->val.type != TV_JSON_OBJECT) return bad_token(d, type, m);
            has_tdigest = true;
            for (uint32_t k = 0; k < m->val.len; k++) {
                const tv_json_member *tm = &m->val.v.members[k];
                if (key_is(tm, "compression")) st = dbl_val(d, "tdigest", tm, &a->compression);
                else return unknown_field(d, "tdigest", tm);
                if (st) return st;
            }
        } else if ((a->kind == TV_AGG_PERCENTILES || a->kind == TV_AGG_PERCENTILE_RANKS) && key_is(m, "hdr")) {
            /* PercentilesMethod.HDR_PARSER: PercentilesConfig.Hdr */
            if (m->val.type != TV_JSON_OBJECT) return bad_token(d, type, m);
            a->hdr = true;
            a->hdr_digits = 3;
            for (uint32_t k = 0; k < m->val.len; k++) {
                const tv_json_member *tm = &m->val.v.members[k];
                if (key_is(tm, "number_of_significant_value_digits")) {
                    int64_t dg = 0;
                    if ((st = int_val(d, "hdr", tm, &dg))) return st;
                    if (dg < 0 || dg > 5)
                        return field_fail(d, "hdr", tm, "[numberOfSignificantValueDigits] must be between 0 and 5");
                    a->hdr_digits = (int)dg;
                } else return unknown_field(d, "hdr", tm);
            }
        } else return unknown_field(d, type, m);
        if (st) return st;
    }
    if (a->hdr && has_tdigest) {
        /* the ConstructingObjectParser's builder refuses both methods */
        uint32_t l = 0, c = 0;
        if (d->src) tv_json_linecol(d->src, d->src_len, body->off, &l, &c);
        tv_dsl_error(d, TROVE_EXCONTENT, body->off, "[%u:%u] Failed to build [%s] after last required field arrived", l, c, type);
        return tv_error_cause(d->err, TROVE_EARG, "Only one percentiles method should be declared.");
    }
    if (a->kind == TV_AGG_PERCENTILES) {
        if (!has_values) {
            static const double dflt[] = {1, 5, 25, 50, 75, 95, 99};
            a->percents = tv_arena_alloc(d->arena, sizeof dflt);
            if (!a->percents) return oom(d);
            memcpy(a->percents, dflt, sizeof dflt);
            a->npercents = 7;
        } else if (!a->npercents) {
            return tv_error_set(d->err, TROVE_EARG, "[percents] must not be empty: [%s]", a->name);
        }
        for (uint32_t k = 0; k < a->npercents; k++) {
            if (a->percents[k] >= 0 && a->percents[k] <= 100) continue;
            char num[40];
            tv_fmt_double(a->percents[k], num);
            return tv_error_set(d->err, TROVE_EARG, "percent must be in [0,100], got [%s]: [%s]", num, a->name);
        }
    }
    if (a->kind == TV_AGG_PERCENTILE_RANKS && (!has_values || !a->npercents))
        return tv_error_set(d->err, TROVE_EARG, "[values] must not be null: [%s]", a->name);
    if (a->kind == TV_AGG_PERCENTILE_RANKS && a->hdr)
        for (uint32_t k = 0; k < a->npercents; k++)
            if (a->percents[k] < 0)
                /* HdrHistogram throws ArrayIndexOutOfBoundsException for a negative value's index */
                return tv_dsl_error(d, TROVE_EUNSUPPORTED, a->off, "[hdr] percentile_ranks of a negative value are not supported by trove");
    if (a->kind == TV_AGG_PERCENTILES || a->kind == TV_AGG_PERCENTILE_RANKS) {
        /* PercentilesAggregationBuilder sorts the requested keys */
        for (uint32_t i = 1; i < a->npercents; i++)
            for (uint32_t j = i; j > 0 && a->percents[j - 1] > a->percents[j]; j--) {
                double t = a->percents[j];
                a->percents[j] = a->percents[j - 1];
                a->percents[j - 1] = t;
            }
    }
    if (a->kind == TV_AGG_EXTENDED_STATS && !a->interval) {
        bool given = false;
        for (uint32_t i = 0; i < body->len; i++) given |= key_is(&body->v.members[i], "sigma");
        if (!given) a->interval = 2.0;
    }
    if (a->kind == TV_AGG_WEIGHTED_AVG && (!a->src.field || !a->weight.field))
        return tv_error_set(d->err, TROVE_EARG, "Required one of fields [field, script], but none were specified. ");
    return TROVE_OK;
}

/* moving_fn: MovFnPipelineAggregationBuilder's ConstructingObjectParser
 * (buckets_path, script and window required; format, gap_policy, shift).
 * The builder is made when the last required field arrives: a window < 1
 * fails there. */
static tv_status parse_moving_fn(tv_dsl *d, tv_agg *a, const tv_json *body) {
    const char *type = "moving_fn";
    bool has_window = false;
    const char *src = NULL, *lang = NULL;
    size_t src_len = 0;
    const tv_json *params = NULL, *script = NULL;
    uint32_t last_req = body->off;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        tv_status st = TROVE_OK;
        if (key_is(m, "buckets_path")) {
            if (m->val.type == TV_JSON_STRING) a->buckets_path = m->val.v.s;
            else if (m->val.type == TV_JSON_ARRAY && m->val.len == 1 && m->val.v.items[0].type == TV_JSON_STRING)
                a->buckets_path = m->val.v.items[0].v.s;
            else return bad_token(d, type, m);
            last_req = m->val.off;
        } else if (key_is(m, "window")) {
            if ((st = int_val(d, type, m, &a->window))) return st;
            has_window = true;
            last_req = m->val.off;
        } else if (key_is(m, "shift")) {
            st = int_val(d, type, m, &a->shift);
        } else if (key_is(m, "gap_policy")) {
            if (m->val.type != TV_JSON_STRING) return bad_token(d, type, m);
            if (tv_streq(m->val.v.s, m->val.len, "insert_zeros")) a->gap_insert_zeros = true;
            else if (tv_streq(m->val.v.s, m->val.len, "skip")) a->gap_insert_zeros = false;
            else
                return field_fail(d, type, m, "Invalid gap policy: [%s], accepted values: [skip, insert_zeros]", m->val.v.s);
        } else if (key_is(m, "format")) {
            st = str_val(d, type, m, &a->src.format);
        } else if (key_is(m, "script")) {
            const tv_json *v = &m->val;
            script = v;
            if (v->type == TV_JSON_STRING) { src = v->v.s; src_len = v->len; }
            else if (v->type == TV_JSON_OBJECT) {
                for (uint32_t k = 0; k < v->len; k++) {
                    const tv_json_member *sm = &v->v.members[k];
                    if (key_is(sm, "source") || key_is(sm, "inline")) {
                        if (sm->val.type != TV_JSON_STRING) return bad_token(d, "script", sm);
                        src = sm->val.v.s;
                        src_len = sm->val.len;
                    } else if (key_is(sm, "lang")) {
                        if ((st = str_val(d, "script", sm, &lang))) return st;
                    } else if (key_is(sm, "params")) {
                        if (sm->val.type != TV_JSON_OBJECT) return bad_token(d, "script", sm);
                        params = &sm->val;
                    } else if (key_is(sm, "options")) {
                        if (sm->val.type != TV_JSON_OBJECT) return bad_token(d, "script", sm);
                    } else if (key_is(sm, "id")) {
                        return tv_dsl_error(d, TROVE_EUNSUPPORTED, sm->key_off, "stored scripts are not supported by trove");
                    } else return unknown_field(d, "script", sm);
                }
                if (!src) return tv_error_set(d->err, TROVE_EARG, "must specify either [source] for an inline script or [id] for a stored script");
            } else return bad_token(d, type, m);
            last_req = m->val.off;
        } else return unknown_field(d, type, m);
        if (st) return st;
    }
    char miss[64] = "";
    if (!a->buckets_path) strcat(miss, ", buckets_path");
    if (!src) strcat(miss, ", script");
    if (!has_window) strcat(miss, ", window");
    if (miss[0]) return tv_error_set(d->err, TROVE_EARG, "Required [%s]", miss + 2);
    if (a->window <= 0) {
        uint32_t l = 0, c = 0;
        if (d->src) tv_json_linecol(d->src, d->src_len, last_req, &l, &c);
        tv_dsl_error(d, TROVE_EXCONTENT, last_req, "[%u:%u] Failed to build [%s] after last required field arrived", l, c, type);
        return tv_error_cause(d->err, TROVE_EARG, "[window] must be a positive, non-zero integer.");
    }
    tv_movfn_compile(&a->movfn, src, src_len, lang, params);
    /* anything but one MovingFunctions call: Painless, compiled now */
    if (!a->movfn.fn) return tv_dsl_script(d, script, TV_SCRIPT_G_VALUES, &a->movfn.qs);
    return TROVE_OK;
}

/* One sort of bucket_sort: SortBuilder.fromXContent's forms ("field",
 * {"field": "desc"}, {"field": {"order": "desc", ...}}); only field sorts. */
static tv_status bucket_sort_one(tv_dsl *d, tv_agg *a, const tv_json *e, order_vec *out) {
    tv_agg_order o = {0};
    const char *field;
    if (e->type == TV_JSON_STRING) field = e->v.s;
    else if (e->type == TV_JSON_OBJECT && e->len == 1) {
        const tv_json_member *m = &e->v.members[0];
        field = m->key;
        const tv_json *ord = NULL;
        if (m->val.type == TV_JSON_STRING) ord = &m->val;
        else if (m->val.type == TV_JSON_OBJECT) {
            for (uint32_t k = 0; k < m->val.len; k++) {
                const tv_json_member *om = &m->val.v.members[k];
                if (key_is(om, "order")) ord = &om->val;
                else if (!key_is(om, "missing") && !key_is(om, "unmapped_type") && !key_is(om, "mode") &&
                         !key_is(om, "numeric_type") && !key_is(om, "format"))
                    return tv_dsl_error(d, TROVE_EPARSE, om->key_off, "[field_sort] unknown field [%s]", om->key);
            }
        } else return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "[bucket_sort] failed to parse field [sort]");
        if (ord) {
            if (ord->type == TV_JSON_STRING && tv_streq(ord->v.s, ord->len, "desc")) o.desc = true;
            else if (!(ord->type == TV_JSON_STRING && tv_streq(ord->v.s, ord->len, "asc")))
                return tv_error_set(d->err, TROVE_EARG, "No enum constant org.opensearch.search.sort.SortOrder.%s",
                                    ord->type == TV_JSON_STRING ? ord->v.s : "");
        }
    } else return tv_dsl_error(d, TROVE_EPARSE, e->off, "[bucket_sort] failed to parse field [sort]");
    if (!strcmp(field, "_score") || !strcmp(field, "_script") || !strcmp(field, "_geo_distance"))
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, e->off, "[bucket_sort] sorting by [%s] is not supported by trove", field);
    o.kind = !strcmp(field, "_key") ? TV_ORD_KEY : TV_ORD_PATH;
    o.path = field;
    if (tv_vec_push(out, o)) return oom(d);
    return TROVE_OK;
}

/* bucket_sort: BucketSortPipelineAggregationBuilder (sort, from, size,
 * gap_policy). */
static tv_status parse_bucket_sort(tv_dsl *d, tv_agg *a, const tv_json *body) {
    const char *type = "bucket_sort";
    a->bs_size = -1;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        tv_status st = TROVE_OK;
        if (key_is(m, "sort")) {
            st = order_list(d, a, &m->val, bucket_sort_one, &a->bs_sort, &a->bs_nsort);
        } else if (key_is(m, "from")) {
            if (!(st = int_val(d, type, m, &a->bs_from)) && a->bs_from < 0)
                return field_fail(d, type, m, "[from] must be a non-negative integer: [%lld]", (long long)a->bs_from);
        } else if (key_is(m, "size")) {
            if (!(st = int_val(d, type, m, &a->bs_size)) && a->bs_size <= 0)
                return field_fail(d, type, m, "[size] must be a positive integer: [%lld]", (long long)a->bs_size);
        } else if (key_is(m, "gap_policy")) {
            if (m->val.type != TV_JSON_STRING) return bad_token(d, type, m);
            if (tv_streq(m->val.v.s, m->val.len, "insert_zeros")) a->gap_insert_zeros = true;
            else if (tv_streq(m->val.v.s, m->val.len, "skip")) a->gap_insert_zeros = false;
            else
                return field_fail(d, type, m, "Invalid gap policy: [%s], accepted values: [skip, insert_zeros]", m->val.v.s);
        } else return unknown_field(d, type, m);
        if (st) return st;
    }
    return TROVE_OK;
}

/* BucketScriptPipelineAggregationBuilder.parse and
 * BucketSelectorPipelineAggregationBuilder.parse: buckets_path a map of
 * script variables to paths (a string is {"_value": path}, an array
 * "_value0".. ), script, gap_policy, format (bucket_script). The script
 * compiles now (params only: the variables join params). */
static tv_status parse_bucket_script(tv_dsl *d, tv_agg *a, const tv_json *body) {
    const char *type = a->type_name;
    bool selector = a->kind == TV_AGG_BUCKET_SELECTOR;
    const tv_json *script = NULL, *bp = NULL;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        tv_status st = TROVE_OK;
        if (key_is(m, "buckets_path")) {
            if (m->val.type != TV_JSON_STRING && m->val.type != TV_JSON_OBJECT && m->val.type != TV_JSON_ARRAY)
                return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "Unknown key for a %s in [%s]: [%s].",
                                    tv_dsl_token_name(&m->val), a->name, m->key);
            bp = &m->val;
        } else if (key_is(m, "script")) {
            script = &m->val;
        } else if (key_is(m, "gap_policy")) {
            if (m->val.type != TV_JSON_STRING) return bad_token(d, type, m);
            if (tv_streq(m->val.v.s, m->val.len, "insert_zeros")) a->gap_insert_zeros = true;
            else if (tv_streq(m->val.v.s, m->val.len, "skip")) a->gap_insert_zeros = false;
            else return field_fail(d, type, m, "Invalid gap policy: [%s], accepted values: [skip, insert_zeros]", m->val.v.s);
        } else if (key_is(m, "format") && !selector) {
            st = str_val(d, type, m, &a->src.format);
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "Unknown key for a %s in [%s]: [%s].",
                                tv_dsl_token_name(&m->val), a->name, m->key);
        }
        if (st) return st;
    }
    if (!bp)
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "Missing required field [buckets_path] for %s aggregation [%s]",
                            type, a->name);
    if (!script)
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "Missing required field [script] for %s aggregation [%s]", type,
                            a->name);
    uint32_t n = bp->type == TV_JSON_STRING ? 1 : bp->len;
    a->bp_vars = tv_arena_calloc(d->arena, n + 1, sizeof *a->bp_vars);
    a->bp_paths = tv_arena_calloc(d->arena, n + 1, sizeof *a->bp_paths);
    if (!a->bp_vars || !a->bp_paths) return oom(d);
    for (uint32_t i = 0; i < n; i++) {
        const tv_json *pv = bp->type == TV_JSON_STRING ? bp : bp->type == TV_JSON_OBJECT ? &bp->v.members[i].val : &bp->v.items[i];
        if (pv->type != TV_JSON_STRING) return tv_dsl_error(d, TROVE_EPARSE, pv->off, "[%s] buckets_path must be strings", type);
        a->bp_paths[i] = pv->v.s;
        if (bp->type == TV_JSON_OBJECT) a->bp_vars[i] = bp->v.members[i].key;
        else if (bp->type == TV_JSON_STRING) a->bp_vars[i] = "_value";
        else if (!(a->bp_vars[i] = tv_arena_sprintf(d->arena, "_value%u", i))) return oom(d);
    }
    a->nbp = n;
    a->buckets_path = n ? a->bp_paths[0] : "";
    return tv_dsl_script(d, script, 0, &a->script);
}

static tv_status parse_pipeline(tv_dsl *d, tv_agg *a, const tv_json *body) {
    const char *type = a->type_name;
    if (a->kind == TV_AGG_BUCKET_SCRIPT || a->kind == TV_AGG_BUCKET_SELECTOR) return parse_bucket_script(d, a, body);
    if (a->kind == TV_AGG_MOVING_FN) return parse_moving_fn(d, a, body);
    if (a->kind == TV_AGG_BUCKET_SORT) return parse_bucket_sort(d, a, body);
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        tv_status st = TROVE_OK;
        if (key_is(m, "buckets_path")) {
            if (m->val.type == TV_JSON_STRING) a->buckets_path = m->val.v.s;
            else if (m->val.type == TV_JSON_ARRAY && m->val.len == 1 && m->val.v.items[0].type == TV_JSON_STRING)
                a->buckets_path = m->val.v.items[0].v.s;
            else if (m->val.type == TV_JSON_ARRAY)
                return tv_error_set(d->err, TROVE_EPARSE, "[%s] requires exactly one buckets_path, got [%u]", type, m->val.len);
            else return bad_token(d, type, m);
        } else if (key_is(m, "gap_policy")) {
            if (m->val.type != TV_JSON_STRING) return bad_token(d, type, m);
            if (tv_streq(m->val.v.s, m->val.len, "insert_zeros")) a->gap_insert_zeros = true;
            else if (tv_streq(m->val.v.s, m->val.len, "skip")) a->gap_insert_zeros = false;
            else
                return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "Invalid gap policy: [%s], accepted values: [skip, insert_zeros]", m->val.v.s);
        } else if (key_is(m, "format")) st = str_val(d, type, m, &a->src.format);
        else if (a->kind == TV_AGG_DERIVATIVE && key_is(m, "unit")) st = str_val(d, type, m, &a->unit);
        else return tv_error_set(d->err, TROVE_EPARSE, "Unknown key for a %s in [%s]: [%s].", tv_dsl_token_name(&m->val), a->name, m->key);
        if (st) return st;
    }
    if (!a->buckets_path)
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "Missing required field [buckets_path] for aggregation [%s]", a->name);
    return TROVE_OK;
}

static tv_status parse_histogram(tv_dsl *d, tv_agg *a, const tv_json *body, bool date);

/* composite: {"size", "sources": [{name: {terms|histogram|date_histogram: {...}}}], "after"}
 * (CompositeAggregationBuilder, CompositeValuesSourceParserHelper). */
static tv_status parse_composite(tv_dsl *d, tv_agg *a, const tv_json *body) {
    a->size = 10;
    const tv_json *srcs = NULL;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        tv_status st = TROVE_OK;
        if (key_is(m, "size")) {
            if (!(st = int_val(d, "composite", m, &a->size)) && a->size <= 0)
                return field_fail(d, "composite", m, "[size] must be greater than 0. Found [%lld] in [%s]", (long long)a->size, a->name);
        } else if (key_is(m, "sources")) {
            if (m->val.type != TV_JSON_ARRAY) return bad_token(d, "composite", m);
            srcs = &m->val;
        } else if (key_is(m, "after")) {
            if (m->val.type != TV_JSON_OBJECT) return bad_token(d, "composite", m);
            a->after = &m->val;
        } else return unknown_field(d, "composite", m);
        if (st) return st;
    }
    if (!srcs || !srcs->len) return tv_error_set(d->err, TROVE_EARG, "Composite [sources] cannot be null or empty");
    a->tsrc = tv_arena_calloc(d->arena, srcs->len, sizeof *a->tsrc);
    if (!a->tsrc) return oom(d);
    for (uint32_t i = 0; i < srcs->len; i++) {
        const tv_json *e = &srcs->v.items[i];
        if (e->type != TV_JSON_OBJECT || e->len != 1 || e->v.members[0].val.type != TV_JSON_OBJECT ||
            e->v.members[0].val.len != 1 || e->v.members[0].val.v.members[0].val.type != TV_JSON_OBJECT)
            return tv_dsl_error(d, TROVE_EPARSE, e->off, "Expected [START_OBJECT] for a composite source, got [%s]", tv_dsl_token_name(e));
        const tv_json_member *nm = &e->v.members[0];
        const tv_json_member *tm = &nm->val.v.members[0];
        for (uint32_t j = 0; j < a->ntsrc; j++)
            if (!strcmp(a->tsrc[j].name, nm->key))
                return tv_error_set(d->err, TROVE_EARG, "Composite source names must be unique, found duplicates: [%s]", nm->key);
        tv_agg_tsrc *ts = &a->tsrc[a->ntsrc++];
        ts->name = nm->key;
        tv_agg *n = tv_arena_calloc(d->arena, 1, sizeof *n);
        if (!n) return oom(d);
        n->name = nm->key;
        n->type_name = tm->key;
        ts->node = n;
        /* the source's own keys: order, missing_bucket; the rest as the bucket type reads them */
        const tv_json *sb = &tm->val;
        tv_json_member *rest = tv_arena_calloc(d->arena, sb->len + 1, sizeof *rest);
        if (!rest) return oom(d);
        uint32_t nr = 0;
        for (uint32_t k = 0; k < sb->len; k++) {
            const tv_json_member *sm = &sb->v.members[k];
            if (key_is(sm, "order")) {
                if (sm->val.type != TV_JSON_STRING || (!tv_streq(sm->val.v.s, sm->val.len, "asc") && !tv_streq(sm->val.v.s, sm->val.len, "desc")))
                    return tv_error_set(d->err, TROVE_EARG, "Unknown order [%s]", sm->val.type == TV_JSON_STRING ? sm->val.v.s : "");
                ts->desc = tv_streq(sm->val.v.s, sm->val.len, "desc");
            } else if (key_is(sm, "missing_bucket")) {
                tv_status st = bool_val(d, tm->key, sm, &ts->missing_bucket);
                if (st) return st;
            } else if (key_is(sm, "missing") || key_is(sm, "missing_order")) {
                return tv_dsl_error(d, TROVE_EUNSUPPORTED, sm->key_off, "[%s] in a composite source is not supported by trove", sm->key);
            } else rest[nr++] = *sm;
        }
        tv_json sub = *sb;
        sub.v.members = rest;
        sub.len = nr;
        tv_status st;
        if (!strcmp(tm->key, "terms")) {
            n->kind = TV_AGG_TERMS;
            for (uint32_t k = 0; k < nr; k++) {
                bool done;
                if ((st = source_key(d, "terms", &rest[k], &n->src, &done))) return st;
                if (!done) return unknown_field(d, "terms", &rest[k]);
            }
            if (!n->src.field) return tv_error_set(d->err, TROVE_EARG, "Required one of fields [field, script], but none were specified. ");
        } else if (!strcmp(tm->key, "histogram") || !strcmp(tm->key, "date_histogram")) {
            bool date = tm->key[0] == 'd';
            n->kind = date ? TV_AGG_DATE_HISTOGRAM : TV_AGG_HISTOGRAM;
            if ((st = parse_histogram(d, n, &sub, date))) return st;
            if (!n->src.field) return tv_error_set(d->err, TROVE_EARG, "Required one of fields [field, script], but none were specified. ");
        } else if (!strcmp(tm->key, "geotile_grid")) {
            return tv_dsl_error(d, TROVE_EUNSUPPORTED, tm->key_off, "the [geotile_grid] composite source is not supported by trove");
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, tm->key_off, "Invalid source type: %s", tm->key);
        }
    }
    if (a->after && a->after->len != a->ntsrc)
        return tv_error_set(d->err, TROVE_EARG, "[after] has %u value(s) but [sources] has %u", a->after->len, a->ntsrc);
    return TROVE_OK;
}

/* multi_terms: {"terms": [{"field", "missing"}...], size, order, ...}
 * (MultiTermsAggregationBuilder); the rest reads as terms reads it. */
static tv_status parse_multi_terms(tv_dsl *d, tv_agg *a, const tv_json *body) {
    tv_json_member *rest = tv_arena_calloc(d->arena, body->len + 1, sizeof *rest);
    if (!rest) return oom(d);
    uint32_t nr = 0;
    const tv_json *terms = NULL;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (key_is(m, "terms")) {
            if (m->val.type != TV_JSON_ARRAY) return bad_token(d, "multi_terms", m);
            terms = &m->val;
        } else if (key_is(m, "field") || key_is(m, "missing") || key_is(m, "script") || key_is(m, "include") ||
                   key_is(m, "exclude") || key_is(m, "value_type")) {
            return unknown_field(d, "multi_terms", m);
        } else rest[nr++] = *m;
    }
    tv_json sub = *body;
    sub.v.members = rest;
    sub.len = nr;
    tv_status st = parse_terms(d, a, &sub);
    if (st) return st;
    if (!terms || terms->len < 2)
        return tv_error_set(d->err, TROVE_EARG, "The [terms] parameter in the aggregation [%s] must be present and have at least 2 fields.", a->name);
    a->tsrc = tv_arena_calloc(d->arena, terms->len, sizeof *a->tsrc);
    if (!a->tsrc) return oom(d);
    for (uint32_t i = 0; i < terms->len; i++) {
        const tv_json *e = &terms->v.items[i];
        if (e->type != TV_JSON_OBJECT) return tv_dsl_error(d, TROVE_EPARSE, e->off, "[multi_terms] terms must be objects");
        tv_agg *n = tv_arena_calloc(d->arena, 1, sizeof *n);
        if (!n) return oom(d);
        n->kind = TV_AGG_TERMS;
        n->name = a->name;
        n->type_name = "multi_terms";
        for (uint32_t k = 0; k < e->len; k++) {
            bool done;
            if ((st = source_key(d, "terms", &e->v.members[k], &n->src, &done))) return st;
            if (!done) return unknown_field(d, "terms", &e->v.members[k]);
        }
        if (!n->src.field) return tv_error_set(d->err, TROVE_EARG, "Required one of fields [field, script], but none were specified. ");
        a->tsrc[a->ntsrc].node = n;
        a->tsrc[a->ntsrc].name = n->src.field;
        a->ntsrc++;
    }
    return TROVE_OK;
}

/* A list of strings (a string alone is a one-item list). */
static tv_status str_list(tv_dsl *d, const char *type, const tv_json_member *m, const char ***out, uint32_t *n) {
    const tv_json *v = &m->val;
    uint32_t cnt = v->type == TV_JSON_ARRAY ? v->len : 1;
    const char **l = tv_arena_calloc(d->arena, cnt + 1, sizeof *l);
    if (!l) return oom(d);
    for (uint32_t i = 0; i < cnt; i++) {
        const tv_json *e = v->type == TV_JSON_ARRAY ? &v->v.items[i] : v;
        if (e->type != TV_JSON_STRING) return bad_token(d, type, m);
        l[i] = e->v.s;
    }
    *out = l;
    *n = cnt;
    return TROVE_OK;
}

/* top_hits (TopHitsAggregationBuilder): from, size, sort, _source,
 * version, seq_no_primary_term, track_scores; the fetch options trove does
 * not have answer 400 by name. */
static tv_status parse_top_hits(tv_dsl *d, tv_agg *a, const tv_json *body) {
    a->th_size = 3;
    a->th_source = true;
    a->th_total_as_int = d->total_as_int;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        tv_status st = TROVE_OK;
        if (key_is(m, "from")) {
            if (!(st = int_val(d, "top_hits", m, &a->th_from)) && a->th_from < 0)
                return field_fail(d, "top_hits", m, "[from] must be greater than or equal to 0. Found [%lld] in [%s]", (long long)a->th_from, a->name);
        } else if (key_is(m, "size")) {
            if (!(st = int_val(d, "top_hits", m, &a->th_size)) && a->th_size < 0)
                return field_fail(d, "top_hits", m, "[size] must be greater than or equal to 0. Found [%lld] in [%s]", (long long)a->th_size, a->name);
        } else if (key_is(m, "version")) st = bool_val(d, "top_hits", m, &a->th_version);
        else if (key_is(m, "seq_no_primary_term")) st = bool_val(d, "top_hits", m, &a->th_seq_no);
        else if (key_is(m, "track_scores")) st = bool_val(d, "top_hits", m, &a->th_track_scores);
        else if (key_is(m, "_source")) {
            const tv_json *v = &m->val;
            if (v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE) a->th_source = v->type == TV_JSON_TRUE;
            else if (v->type == TV_JSON_STRING || v->type == TV_JSON_ARRAY) st = str_list(d, "top_hits", m, &a->th_inc, &a->th_ninc);
            else if (v->type == TV_JSON_OBJECT) {
                for (uint32_t k = 0; k < v->len && !st; k++) {
                    const tv_json_member *sm = &v->v.members[k];
                    if (key_is(sm, "includes") || key_is(sm, "include")) st = str_list(d, "_source", sm, &a->th_inc, &a->th_ninc);
                    else if (key_is(sm, "excludes") || key_is(sm, "exclude")) st = str_list(d, "_source", sm, &a->th_exc, &a->th_nexc);
                    else return unknown_field(d, "_source", sm);
                }
            } else return bad_token(d, "top_hits", m);
        } else if (key_is(m, "sort")) {
            if ((st = tv_hit_sort_parse(d, &m->val, "top_hits", &a->th_sort))) return st;
        } else if (key_is(m, "explain") || key_is(m, "highlight") || key_is(m, "script_fields") ||
                   key_is(m, "docvalue_fields") || key_is(m, "stored_fields") || key_is(m, "fields")) {
            return tv_dsl_error(d, TROVE_EUNSUPPORTED, m->key_off, "[%s] in [top_hits] is not supported by trove", m->key);
        } else return unknown_field(d, "top_hits", m);
        if (st) return st;
    }
    return TROVE_OK;
}

static tv_status parse_body(tv_dsl *d, tv_agg *a, const tv_json *body) {
    switch (a->kind) {
    case TV_AGG_TOP_HITS: return parse_top_hits(d, a, body);
    case TV_AGG_COMPOSITE: return parse_composite(d, a, body);
    case TV_AGG_MULTI_TERMS: return parse_multi_terms(d, a, body);
    case TV_AGG_TERMS: return parse_terms(d, a, body);
    case TV_AGG_SIGNIFICANT_TERMS:
    case TV_AGG_SIGNIFICANT_TEXT: return parse_significant(d, a, body);
    case TV_AGG_HISTOGRAM: return parse_histogram(d, a, body, false);
    case TV_AGG_VARIABLE_WIDTH_HISTOGRAM: return parse_vwh(d, a, body);
    case TV_AGG_DATE_HISTOGRAM: return parse_histogram(d, a, body, true);
    case TV_AGG_AUTO_DATE_HISTOGRAM: return parse_auto_date(d, a, body);
    case TV_AGG_RANGE: return !strcmp(a->type_name, "geo_distance") ? parse_geo_distance(d, a, body) : parse_range(d, a, body, false);
    case TV_AGG_DATE_RANGE: return parse_range(d, a, body, true);
    case TV_AGG_FILTER: a->filter = body; return TROVE_OK;
    case TV_AGG_FILTERS: return parse_filters(d, a, body);
    case TV_AGG_ADJACENCY_MATRIX: return parse_adjacency(d, a, body);
    case TV_AGG_MISSING:
        for (uint32_t i = 0; i < body->len; i++) {
            const tv_json_member *m = &body->v.members[i];
            bool done;
            tv_status st = source_key(d, "missing", m, &a->src, &done);
            if (st) return st;
            if (!done) return unknown_field(d, "missing", m);
        }
        return TROVE_OK;
    case TV_AGG_GLOBAL:
        if (body->len) return unknown_field(d, "global", &body->v.members[0]);
        return TROVE_OK;
    case TV_AGG_NESTED:
    case TV_AGG_REVERSE_NESTED:
        /* NestedAggregationBuilder.parse / ReverseNestedAggregationBuilder.parse */
        for (uint32_t i = 0; i < body->len; i++) {
            const tv_json_member *m = &body->v.members[i];
            if (m->val.type != TV_JSON_STRING)
                return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "Unexpected token %s in [%s].", tv_dsl_token_name(&m->val),
                                    a->name);
            if (!key_is(m, "path"))
                return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "Unknown key for a VALUE_STRING in [%s]: [%s].", a->name,
                                    m->key);
            if (!(a->nested_path = tv_arena_strndup(d->arena, m->val.v.s, m->val.len))) return oom(d);
        }
        if (a->kind == TV_AGG_NESTED && !a->nested_path)
            return tv_dsl_error(d, TROVE_EPARSE, body->off, "Missing [path] field for nested aggregation [%s]", a->name);
        return TROVE_OK;
    case TV_AGG_SAMPLER:
        a->shard_size = 100;
        for (uint32_t i = 0; i < body->len; i++) {
            const tv_json_member *m = &body->v.members[i];
            if (!key_is(m, "shard_size")) return unknown_field(d, "sampler", m);
            tv_status st = int_val(d, "sampler", m, &a->shard_size);
            if (st) return st;
        }
        return TROVE_OK;
    default:
        if (tv_agg_is_pipeline(a->kind)) return parse_pipeline(d, a, body);
        return parse_metric(d, a, body);
    }
}

/* ------------------------------------------------------------- levels */

static tv_status parse_level(tv_dsl *d, const tv_json *v, int depth, tv_aggs *out);

static tv_status parse_one(tv_dsl *d, const tv_json_member *nm, int depth, tv_agg **out) {
    const char *name = nm->key;
    const tv_json *def = &nm->val;
    for (const char *p = name; *p; p++)
        if (*p == '[' || *p == ']' || *p == '>')
            return tv_dsl_error(d, TROVE_EPARSE, nm->key_off,
                                "Invalid aggregation name [%s]. Aggregation names can contain any character except '[', ']', and '>'",
                                name);
    if (def->type != TV_JSON_OBJECT)
        return tv_dsl_error(d, TROVE_EPARSE, def->off, "Aggregation definition for [%s starts with a [%s], expected a [START_OBJECT].",
                            name, tv_dsl_token_name(def));
    tv_agg *a = tv_arena_calloc(d->arena, 1, sizeof *a);
    if (!a) return oom(d);
    a->name = name;
    const tv_json *body = NULL, *subs = NULL;
    for (uint32_t i = 0; i < def->len; i++) {
        const tv_json_member *m = &def->v.members[i];
        if (m->val.type != TV_JSON_OBJECT)
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "Expected [START_OBJECT] under [%s], but got a [%s] in [%s]",
                                m->key, tv_dsl_token_name(&m->val), name);
        if (key_is(m, "meta")) { a->meta = &m->val; continue; }
        if (key_is(m, "aggs") || key_is(m, "aggregations")) {
            if (subs) return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "Found two sub aggregation definitions under [%s]", name);
            subs = &m->val;
            continue;
        }
        if (a->type_name)
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "Found two aggregation type definitions in [%s]: [%s] and [%s]", name,
                                a->type_name, m->key);
        bool known = false;
        for (size_t k = 0; k < TV_ARRAY_LEN(k_kinds); k++)
            if (key_is(m, k_kinds[k].name)) { a->kind = k_kinds[k].kind; known = true; break; }
        if (!known) {
            for (size_t k = 0; k < TV_ARRAY_LEN(k_unsupported); k++)
                if (key_is(m, k_unsupported[k]))
                    return tv_dsl_error(d, TROVE_EUNSUPPORTED, m->key_off, "the [%s] aggregation is not supported by trove", m->key);
            /* AggregatorFactories: the NamedObjectNotFoundException as the
             * cause, a suggestion among the registered names */
            const char *names[TV_ARRAY_LEN(k_kinds) + TV_ARRAY_LEN(k_unsupported)];
            size_t nn = 0;
            for (size_t k = 0; k < TV_ARRAY_LEN(k_kinds); k++) names[nn++] = k_kinds[k].name;
            for (size_t k = 0; k < TV_ARRAY_LEN(k_unsupported); k++) names[nn++] = k_unsupported[k];
            char sug[512];
            tv_dsl_did_you_mean(m->key, m->key_len, names, nn, sug, sizeof sug);
            uint32_t l = 0, c = 0;
            if (d->src) tv_json_linecol(d->src, d->src_len, m->key_off, &l, &c);
            tv_dsl_error(d, TROVE_EPARSE, m->key_off, "Unknown aggregation type [%s]%s", m->key, sug);
            tv_error_cause(d->err, TROVE_EPARSE, "[%u:%u] unknown field [%s]", l, c, m->key);
            if (d->err) d->err->cause_type = TROVE_ENAMEDOBJECT;
            return TROVE_EPARSE;
        }
        a->type_name = m->key;
        a->off = m->val.off;
        body = &m->val;
        tv_status st = parse_body(d, a, body);
        if (st) return st;
    }
    if (!a->type_name) return tv_dsl_error(d, TROVE_EPARSE, def->off, "Missing definition for aggregation [%s]", name);
    bool sourced = !tv_agg_is_pipeline(a->kind) && a->kind != TV_AGG_FILTER && a->kind != TV_AGG_FILTERS &&
                   a->kind != TV_AGG_ADJACENCY_MATRIX && a->kind != TV_AGG_TOP_HITS &&
                   a->kind != TV_AGG_SAMPLER && a->kind != TV_AGG_NESTED && a->kind != TV_AGG_REVERSE_NESTED &&
                   a->kind != TV_AGG_GLOBAL && a->kind != TV_AGG_WEIGHTED_AVG && a->kind != TV_AGG_COMPOSITE &&
                   a->kind != TV_AGG_MULTI_TERMS && a->kind != TV_AGG_SIGNIFICANT_TEXT;
    if (sourced && !a->src.field && !a->src.script)
        return tv_error_set(d->err, TROVE_EARG, "Required one of fields [field, script], but none were specified. ");
    if (subs) {
        /* (SignificantTextAggregationBuilder refuses them too) */
        if (!tv_agg_is_bucket(a->kind) || a->kind == TV_AGG_SIGNIFICANT_TEXT) {
            tv_error_set(d->err, TROVE_EARG, "Aggregator [%s] of type [%s] cannot accept sub-aggregations", name, a->type_name);
            tv_error_as(d->err, TROVE_EAGGINIT);
            return TROVE_EARG;
        }
        tv_aggs sub = {0};
        tv_status st = parse_level(d, subs, depth + 1, &sub);
        if (st) return st;
        a->subs = sub.items;
        a->nsubs = sub.n;
        if (a->kind == TV_AGG_VARIABLE_WIDTH_HISTOGRAM && a->nsubs)
            return tv_error_set(d->err, TROVE_EUNSUPPORTED,
                                "[variable_width_histogram] with sub-aggregations is not supported by trove");
    }
    if (a->kind == TV_AGG_GLOBAL && depth > 0)
        return tv_error_set(d->err, TROVE_EARG, "Aggregation [%s] must be a top level aggregation", name);
    if (subs)
        for (uint32_t i = 0; i < a->nsubs; i++)
            if (a->subs[i]->kind == TV_AGG_COMPOSITE) {
                tv_error_set(d->err, TROVE_EARG, "[composite] aggregation cannot be used with a parent aggregation of type: [%s]",
                             a->type_name);
                tv_error_as(d->err, TROVE_EAGGINIT);
                return TROVE_EARG;
            }
    *out = a;
    return TROVE_OK;
}

static tv_status parse_level(tv_dsl *d, const tv_json *v, int depth, tv_aggs *out) {
    if (depth > 64) return tv_dsl_error(d, TROVE_EPARSE, v->off, "aggregations nested too deeply");
    out->items = tv_arena_calloc(d->arena, v->len + 1, sizeof *out->items);
    if (!out->items) return oom(d);
    out->n = 0;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        for (uint32_t j = 0; j < out->n; j++)
            if (!strcmp(out->items[j]->name, m->key))
                return tv_error_set(d->err, TROVE_EARG, "Two sibling aggregations cannot have the same name: [%s]", m->key);
        tv_agg *a = NULL;
        tv_status st = parse_one(d, m, depth, &a);
        if (st) return st;
        a->index = out->n;
        out->items[out->n++] = a;
    }
    return TROVE_OK;
}

tv_status tv_aggs_parse(tv_dsl *d, const tv_json *v, tv_aggs *out) {
    memset(out, 0, sizeof *out);
    if (v->type != TV_JSON_OBJECT)
        return tv_dsl_error(d, TROVE_EPARSE, v->off, "Unexpected token %s in [aggs]: aggregations definitions must start with the name of the aggregation.",
                            tv_dsl_token_name(v));
    return parse_level(d, v, 0, out);
}

bool tv_aggs_need_scores(const tv_aggs *aggs) {
    for (uint32_t i = 0; i < aggs->n; i++) {
        const tv_agg *a = aggs->items[i];
        if (a->kind == TV_AGG_SAMPLER) return true;
        if (a->kind == TV_AGG_TOP_HITS) {
            if (!a->th_sort.n || a->th_track_scores) return true;
            for (uint32_t k = 0; k < a->th_sort.n; k++)
                if (!a->th_sort.keys[k].field) return true;
        }
        tv_aggs sub = {a->subs, a->nsubs};
        if (tv_aggs_need_scores(&sub)) return true;
    }
    return false;
}
