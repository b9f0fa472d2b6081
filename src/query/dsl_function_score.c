/*
 * dsl_function_score.c — OpenSearch's function_score query: a sub-query
 * whose score is combined with the scores of functions (weight,
 * field_value_factor, the gauss / exp / linear decays, random_score), each
 * optionally restricted to the docs of a filter.
 *
 * Parsing follows FunctionScoreQueryBuilder.fromXContent (request level:
 * parsing_exception with [line:col], illegal_argument_exception for bad
 * enum names, named_object_not_found_exception for an unknown function),
 * then what toQuery does on the shard (ScoreFunctionBuilder.toFunction:
 * field lookups, the decay parameters, TimeValue scales, date-math
 * origins), whose failures are shard failures: query_shard_exception
 * "failed to create query: ..." around the cause, or the ParsingException
 * itself. The node is a TV_Q_EXT (query.h): the sub-query and the filters
 * are ordinary ASTs, rewritten here (rewrite.c does not look inside an
 * extension) and prepared / planned through tv_query_prepare / tv_plan.
 *
 * Arithmetic is Lucene/OpenSearch's, in its order:
 *   - the function_score `boost` is a BoostQuery around the whole query:
 *     Lucene hands it to the sub-query's weight, so it scales the sub-query
 *     score only (prepare multiplies it into the sub-query's boost);
 *   - each function's leaf score is a double; a weight multiplies it
 *     (double * float); a `weight` alone is 1.0 * weight;
 *   - FunctionFactorScorer.computeScore combines the functions whose filter
 *     matches in double (multiply: product from 1; sum / avg: the sum, avg
 *     divided by the sum of the matching functions' weights; max / min;
 *     first), 1 when no function matches (and sum/avg when the weights sum
 *     to 0);
 *   - one function without a filter (or with a match_all filter) is the
 *     single-function query, whose mode is FIRST whatever score_mode says;
 *   - CombineFunction.combine(double query, double func, double maxBoost)
 *     casts its double result to float; no functions: the sub-query score
 *     unchanged (max_boost and boost_mode unused);
 *   - a final score < 0 or NaN fails the shard ("function score query
 *     returned an invalid score"); min_score keeps docs scoring >= it
 *     (MinScoreScorer).
 * field_value_factor reads the first (smallest) doc value as a double,
 * multiplies by the float factor, applies the modifier in double, and
 * fails on a missing value without `missing` (OpenSearchException, 500)
 * and on a negative result (illegal_argument_exception). Decays take the
 * distance max(0, |v - origin| - offset) of every value, sorted, reduced by
 * multi_value_mode (min by default); a doc without the field has distance
 * 0 (FieldData.replaceMissing), so it scores 1. random_score is
 * RandomScoreFunction: salt = (index name's String.hashCode << 10) | shard
 * 0, salted seed = BitMixer.mix(seed, salt); with a seed, murmur3_x86_32 of
 * the field's first value as bytes (a number as Long.toString /
 * Double.toString, _seq_no, _id), the salted seed when the doc has none;
 * without a seed, BitMixer.mix(docBase + doc, salted) with the seed taken
 * from the request's clock (so it differs per request, as in OpenSearch);
 * score = (hash & 0xFFFFFF) / 2^24.
 *
 * Execution: with scores needed (or a min_score), plan() walks the
 * segment's sub-query iterator once, scores every live doc and keeps the
 * (doc, score) pairs that pass min_score in the request arena; the
 * iterator replays them (tv_iter_replay, dsl_script.c). Materialising
 * costs 8 bytes per match but gives the scoring errors OpenSearch raises
 * a way out (plan returns a status, score() cannot), an exact max_score
 * and an exact count. The price: a function_score under a conjunction
 * scores docs the other clauses would have excluded, so a scoring error
 * can surface where OpenSearch, which only scores the conjunction's
 * matches, would not raise it. Without
 * scores (size 0, counts, filter context) and without min_score the
 * sub-query is used as is, as FunctionScoreQuery.createWeight does.
 * Rejected: a lazy iterator scoring in score() (faster for top-k under a
 * conjunction, but its errors could not reach the response without a
 * channel from the collector).
 *
 * script_score runs its Painless script (qscript.c) with _score the
 * sub-query's score; a negative result fails the shard as
 * ScriptScoreFunction does.
 *
 * Not supported (400 unsupported_operation_exception naming it):
 * decays on geo_point fields, random_score on field types
 * other than keyword, numbers, dates, _id and _seq_no.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "index/date.h"
#include "query/parse.h"

enum { FK_WEIGHT, FK_FVF, FK_DECAY, FK_RANDOM, FK_SCRIPT };
enum { MOD_NONE, MOD_LOG, MOD_LOG1P, MOD_LOG2P, MOD_LN, MOD_LN1P, MOD_LN2P, MOD_SQUARE, MOD_SQRT, MOD_RECIPROCAL };
enum { SM_FIRST, SM_AVG, SM_MAX, SM_SUM, SM_MIN, SM_MULTIPLY };
enum { BM_MULTIPLY, BM_REPLACE, BM_SUM, BM_AVG, BM_MIN, BM_MAX };
enum { MV_MIN, MV_MAX, MV_AVG, MV_SUM, MV_MEDIAN };
enum { DK_GAUSS, DK_EXP, DK_LINEAR };
enum { RS_DOC, RS_KEYWORD, RS_LONG, RS_DOUBLE, RS_SEQ_NO, RS_ID };

typedef struct fs_fn {
    int kind;
    const char *name;      /* the function's name as written */
    const tv_json *body;   /* its object */
    bool has_weight;
    float weight;
    tv_query *filter;      /* NULL: every doc */
    const tv_field *field; /* fvf / decay / random source (NULL: none) */
    const char *fname;
    /* field_value_factor */
    float factor;
    int modifier;
    bool has_missing;
    double missing;
    /* decay */
    int decay;
    int mvm;
    double origin, scale, offset;
    /* random_score */
    bool has_seed;
    int32_t seed;
    int32_t salted;
    int rsrc;
    /* script_score */
    tv_qscript *script;
} fs_fn;

typedef struct fs_state {
    tv_query *sub;
    float sub_boost0;
    fs_fn *fns;
    uint32_t nfns;
    int score_mode, boost_mode;
    float max_boost;
    bool has_min;
    float min_score;
    bool needs_sub;   /* the sub-query's score is used */
    tv_error *err;    /* the request's error, for failures while scoring */
    const char *index;
} fs_state;

static tv_status oom(tv_dsl *d) { return tv_error_oom(d->err); }

/* ------------------------------------------------------------- Java bits */

/* Math.max / Math.min on doubles: NaN wins; +0.0 is above -0.0. */
static double fmax_java(double a, double b) {
    if (a != a) return a;
    if (b != b) return b;
    if (a == 0.0 && b == 0.0) return signbit(a) ? b : a;
    return a >= b ? a : b;
}
static double fmin_java(double a, double b) {
    if (a != a) return a;
    if (b != b) return b;
    if (a == 0.0 && b == 0.0) return signbit(a) ? a : b;
    return a <= b ? a : b;
}

/* HPPC's BitMixer.mix32 (murmur3's fmix32) and mix(key, seed). */
static uint32_t mix32(uint32_t k) {
    k = (k ^ (k >> 16)) * 0x85ebca6bu;
    k = (k ^ (k >> 13)) * 0xc2b2ae35u;
    return k ^ (k >> 16);
}
static int32_t bitmix(int32_t key, int32_t seed) { return (int32_t)mix32((uint32_t)key ^ (uint32_t)seed); }

/* Offset of the '}' closing the object that starts at off (Jackson's
 * location of END_OBJECT). */
static uint32_t obj_end(const tv_dsl *d, uint32_t off) {
    if (!d->src || off >= d->src_len) return off;
    int depth = 0;
    bool str = false;
    for (size_t i = off; i < d->src_len; i++) {
        char c = d->src[i];
        if (str) {
            if (c == '\\') i++;
            else if (c == '"') str = false;
            continue;
        }
        if (c == '"') str = true;
        else if (c == '{' || c == '[') depth++;
        else if (c == '}' || c == ']') {
            if (--depth == 0) return (uint32_t)i;
        }
    }
    return off;
}

/* A parse failure raised on the shard (toFunction): the error names the
 * index so the api wraps it as a shard failure. */
static tv_status on_shard(tv_dsl *d, tv_status st) {
    if (d->err && d->index && st != TROVE_ENOMEM) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
    return st;
}

/* A ParsingException of DecayFunctionBuilder.parseVariable: its parser
 * reads the function's re-serialised bytes, so its location is [1:1]. */
static tv_status fresh_parser(tv_dsl *d) {
    if (d->err) d->err->line = d->err->col = 1;
    return on_shard(d, TROVE_EPARSE);
}

/* QueryShardContext.toQuery: a failure that is neither a ParsingException
 * nor a QueryShardException becomes query_shard_exception "failed to
 * create query: <message>" caused by it. type: the cause's type when the
 * status's is not it (TROVE_OK: the status's). */
static tv_status shard_wrap(tv_dsl *d, tv_status code, tv_status type, const char *fmt, ...) TV_PRINTF(4, 5);
static tv_status shard_wrap(tv_dsl *d, tv_status code, tv_status type, const char *fmt, ...) {
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tv_error_set(d->err, TROVE_EQUERYSHARD, "failed to create query: %s", msg);
    tv_error_cause(d->err, code, "%s", msg);
    if (d->err) d->err->cause_type = type;
    return on_shard(d, TROVE_EQUERYSHARD);
}

/* Enum.valueOf(name.toUpperCase()) of one of names; -1 when none. */
static int enum_of(const tv_json *v, const char *const *names, int n, char *upper, size_t cap) {
    const char *s = "";
    size_t len = 0;
    if (!tv_dsl_scalar_text(v, &s, &len)) {
        s = "null";
        len = 4;
    }
    size_t k = 0;
    for (; k < len && k + 1 < cap; k++) upper[k] = (char)(s[k] >= 'a' && s[k] <= 'z' ? s[k] - 32 : s[k]);
    upper[k] = '\0';
    for (int i = 0; i < n; i++)
        if (strlen(names[i]) == k && memcmp(names[i], upper, k) == 0) return i;
    return -1;
}

/* XContentParser.doubleValue(). */
static tv_status dbl_value(tv_dsl *d, const tv_json *v, double *out) {
    if (tv_json_is_number(v)) {
        *out = tv_json_as_double(v);
        return TROVE_OK;
    }
    if (v->type == TV_JSON_STRING) {
        if (!tv_java_parse_double(v->v.s, v->len, out)) return tv_dsl_nfe(d, v->v.s, v->len);
        return TROVE_OK;
    }
    float f;
    return tv_dsl_java_float(d, v, &f); /* the same errors */
}

static bool is_number_type(tv_field_type t) {
    return t == TV_FT_LONG || t == TV_FT_INTEGER || t == TV_FT_SHORT || t == TV_FT_BYTE || t == TV_FT_DOUBLE ||
           t == TV_FT_FLOAT || t == TV_FT_HALF_FLOAT || t == TV_FT_UNSIGNED_LONG;
}

/* A doc value as getDoubleValues() gives it. */
static double dv_double(const tv_field *f, int64_t v) {
    if (tv_field_type_is_floating(f->type)) return tv_sortable_to_double(v);
    if (f->type == TV_FT_SCALED_FLOAT) return (double)v * (1.0 / f->scaling_factor);
    if (f->type == TV_FT_UNSIGNED_LONG) return (double)tv_sortable_to_unsigned(v);
    return (double)v;
}

/* ------------------------------------------------------- function parsers */

static const char *const k_modifiers[] = {"NONE", "LOG", "LOG1P", "LOG2P", "LN", "LN1P", "LN2P", "SQUARE", "SQRT", "RECIPROCAL"};
static const char *const k_score_modes[] = {"FIRST", "AVG", "MAX", "SUM", "MIN", "MULTIPLY"};
static const char *const k_boost_modes[] = {"MULTIPLY", "REPLACE", "SUM", "AVG", "MIN", "MAX"};
static const char *const k_mv_modes[] = {"MIN", "MAX", "AVG", "SUM", "MEDIAN"};

/* FieldValueFactorFunctionBuilder.fromXContent. */
static tv_status parse_fvf(tv_dsl *d, const tv_json *body, fs_fn *f) {
    f->factor = 1.0f;
    f->modifier = MOD_NONE;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        tv_status st = TROVE_OK;
        if (v->type == TV_JSON_OBJECT || v->type == TV_JSON_ARRAY) {
            if (tv_streq(m->key, m->key_len, "factor"))
                return tv_dsl_error(d, TROVE_EPARSE, v->off, "[field_value_factor] field 'factor' does not support lists or objects");
            continue;
        }
        if (tv_streq(m->key, m->key_len, "field")) {
            const char *s;
            size_t n;
            if (!tv_dsl_scalar_text(v, &s, &n)) { s = "null"; n = 4; }
            f->fname = tv_arena_strndup(d->arena, s, n);
            if (!f->fname) return oom(d);
        } else if (tv_streq(m->key, m->key_len, "factor")) {
            st = tv_dsl_java_float(d, v, &f->factor);
        } else if (tv_streq(m->key, m->key_len, "modifier")) {
            char up[64];
            f->modifier = enum_of(v, k_modifiers, (int)TV_ARRAY_LEN(k_modifiers), up, sizeof up);
            if (f->modifier < 0)
                return tv_error_set(d->err, TROVE_EARG,
                                    "No enum constant org.opensearch.common.lucene.search.function.FieldValueFactorFunction.Modifier.%s", up);
        } else if (tv_streq(m->key, m->key_len, "missing")) {
            st = dbl_value(d, v, &f->missing);
            f->has_missing = true;
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, v->off, "field_value_factor query does not support [%s]", m->key);
        }
        if (st) return st;
    }
    if (!f->fname)
        return tv_dsl_error(d, TROVE_EPARSE, obj_end(d, body->off), "[field_value_factor] required field 'field' missing");
    return TROVE_OK;
}

/* DecayFunctionParser.fromXContent: {"<field>": {...}, "multi_value_mode": m}. */
static tv_status parse_decay(tv_dsl *d, const tv_json *body, fs_fn *f) {
    const tv_json_member *fm = NULL;
    f->mvm = MV_MIN;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (m->val.type == TV_JSON_OBJECT) {
            fm = m;
        } else if (tv_streq(m->key, m->key_len, "multi_value_mode") || tv_streq(m->key, m->key_len, "multiValueMode")) {
            char up[64];
            f->mvm = enum_of(&m->val, k_mv_modes, (int)TV_ARRAY_LEN(k_mv_modes), up, sizeof up);
            if (f->mvm < 0) {
                const char *s = up;
                size_t n = strlen(up);
                tv_dsl_scalar_text(&m->val, &s, &n);
                return tv_error_set(d->err, TROVE_EARG, "Illegal sort mode: %.*s", (int)TV_MIN(n, 200), s);
            }
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "malformed score function score parameters.");
        }
    }
    if (!fm) return tv_dsl_error(d, TROVE_EPARSE, obj_end(d, body->off), "malformed score function score parameters.");
    f->fname = tv_arena_strndup(d->arena, fm->key, fm->key_len);
    if (!f->fname) return oom(d);
    f->body = &fm->val;
    return TROVE_OK;
}

/* RandomScoreFunctionBuilder.fromXContent. */
static tv_status parse_random(tv_dsl *d, const tv_json *body, fs_fn *f) {
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        if (v->type == TV_JSON_OBJECT || v->type == TV_JSON_ARRAY) continue;
        if (tv_streq(m->key, m->key_len, "seed")) {
            if (v->type == TV_JSON_INT) {
                int64_t x = v->v.i;
                f->seed = x >= INT32_MIN && x <= INT32_MAX ? (int32_t)x : (int32_t)(uint32_t)((uint64_t)x ^ ((uint64_t)x >> 32));
            } else if (v->type == TV_JSON_STRING) {
                f->seed = tv_java_string_hash(v->v.s, v->len);
            } else if (v->type == TV_JSON_UINT || v->type == TV_JSON_DOUBLE) {
                return tv_dsl_error(d, TROVE_EPARSE, v->off, "random_score seed must be an int, long or string, not 'VALUE_NUMBER'");
            } else {
                const char *tok = v->type == TV_JSON_NULL ? "VALUE_NULL" : "VALUE_BOOLEAN";
                return tv_dsl_error(d, TROVE_EPARSE, v->off, "random_score seed must be an int/long or string, not '%s'", tok);
            }
            f->has_seed = true;
        } else if (tv_streq(m->key, m->key_len, "field")) {
            const char *s;
            size_t n;
            if (!tv_dsl_scalar_text(v, &s, &n)) { s = "null"; n = 4; }
            f->fname = tv_arena_strndup(d->arena, s, n);
            if (!f->fname) return oom(d);
        } else if (tv_streq(m->key, m->key_len, "_name")) {
            ;
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, v->off, "random_score query does not support [%s]", m->key);
        }
    }
    return TROVE_OK;
}

/* ScriptScoreFunctionBuilder.fromXContent (the script compiles in
 * toFunction, on the shard: build_script). */
static tv_status parse_script_fn(tv_dsl *d, const tv_json *body, fs_fn *f) {
    const tv_json *script = NULL;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (tv_streq(m->key, m->key_len, "script")) script = &m->val;
        else return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "script_score query does not support [%s]", m->key);
    }
    if (!script) return tv_dsl_error(d, TROVE_EPARSE, obj_end(d, body->off), "script_score function requires 'script' field");
    f->body = script;
    return TROVE_OK;
}

/* parser.namedObject(ScoreFunctionBuilder.class, name, ...). */
static tv_status parse_function(tv_dsl *d, const tv_json_member *m, fs_fn *f) {
    const tv_json *body = &m->val;
    f->name = m->key;
    f->body = body;
    if (tv_streq(m->key, m->key_len, "field_value_factor")) {
        f->kind = FK_FVF;
        return parse_fvf(d, body, f);
    }
    if (tv_streq(m->key, m->key_len, "gauss") || tv_streq(m->key, m->key_len, "exp") ||
        tv_streq(m->key, m->key_len, "linear")) {
        f->kind = FK_DECAY;
        f->decay = m->key[0] == 'g' ? DK_GAUSS : m->key[0] == 'e' ? DK_EXP : DK_LINEAR;
        return parse_decay(d, body, f);
    }
    if (tv_streq(m->key, m->key_len, "random_score")) {
        f->kind = FK_RANDOM;
        return parse_random(d, body, f);
    }
    if (tv_streq(m->key, m->key_len, "script_score")) {
        f->kind = FK_SCRIPT;
        return parse_script_fn(d, body, f);
    }
    /* NamedObjectNotFoundException: an XContentParseException "[l:c] ..." */
    uint32_t line = 0, col = 0;
    if (d->src) tv_json_linecol(d->src, d->src_len, body->off, &line, &col);
    tv_error_set(d->err, TROVE_EXCONTENT, "[%u:%u] unknown field [%s]", line, col, m->key);
    tv_error_as(d->err, TROVE_ENAMEDOBJECT);
    return TROVE_EXCONTENT;
}

static tv_status set_weight(tv_dsl *d, fs_fn *f, float w) {
    /* ScoreFunctionBuilder.checkWeight: Float.compare(weight, 0) < 0 */
    if (w < 0 || (w == 0 && signbit(w)))
        return tv_error_set(d->err, TROVE_EARG, "[weight] cannot be negative for a filtering function");
    f->has_weight = true;
    f->weight = w;
    return TROVE_OK;
}

typedef TV_VEC(fs_fn) fn_vec;

/* parseFiltersAndFunctions: the entries of "functions". */
static tv_status parse_functions(tv_dsl *d, const tv_json *arr, fn_vec *fns) {
    for (uint32_t i = 0; i < arr->len; i++) {
        const tv_json *e = &arr->v.items[i];
        if (e->type != TV_JSON_OBJECT)
            return tv_dsl_error(d, TROVE_EPARSE, e->off,
                                "failed to parse [START_OBJECT]. malformed query, expected a [%s] while parsing functions but got a [function_score] instead",
                                tv_dsl_token_name(e));
        fs_fn f;
        memset(&f, 0, sizeof f);
        bool has_fn = false, has_w = false, filter_all = true;
        float w = 0;
        const tv_json *filter = NULL;
        for (uint32_t k = 0; k < e->len; k++) {
            const tv_json_member *m = &e->v.members[k];
            const tv_json *v = &m->val;
            if (v->type == TV_JSON_OBJECT) {
                if (tv_streq(m->key, m->key_len, "filter")) {
                    filter = v;
                } else {
                    if (has_fn)
                        return tv_dsl_error(d, TROVE_EPARSE, v->off,
                                            "failed to parse function_score functions. already found [%s], now encountering [%s].",
                                            f.name, m->key);
                    tv_status st = parse_function(d, m, &f);
                    if (st) return st;
                    has_fn = true;
                }
            } else if (v->type == TV_JSON_ARRAY) {
                continue;
            } else if (tv_streq(m->key, m->key_len, "weight")) {
                tv_status st = tv_dsl_java_float(d, v, &w);
                if (st) return st;
                has_w = true;
            } else if (tv_streq(m->key, m->key_len, "_name")) {
                ;
            } else {
                return tv_dsl_error(d, TROVE_EPARSE, v->off, "failed to parse [function_score] query. field [%s] is not supported",
                                    m->key);
            }
        }
        if (has_w) {
            if (!has_fn) {
                f.kind = FK_WEIGHT;
                f.name = "weight";
                has_fn = true;
            }
            tv_status st = set_weight(d, &f, w);
            if (st) return st;
        }
        if (!has_fn)
            return tv_dsl_error(d, TROVE_EPARSE, obj_end(d, e->off),
                                "failed to parse [function_score] query. an entry in functions list is missing a function.");
        if (filter) {
            filter_all = filter->len >= 1 && tv_streq(filter->v.members[0].key, filter->v.members[0].key_len, "match_all");
            tv_status st = tv_dsl_parse_filter(d, filter, &f.filter);
            if (st) return st;
            if (filter_all) f.filter = NULL;
        }
        if (tv_vec_push(fns, f)) return oom(d);
    }
    return TROVE_OK;
}

/* -------------------------------------------------- toFunction (on shard) */

/* TimeValue.parseTimeValue(s, ..., "DecayFunctionParser.<what>") in ms. */
static tv_status time_value_ms(tv_dsl *d, const tv_json *v, const char *what, double *out) {
    const char *s;
    size_t n;
    if (!tv_dsl_scalar_text(v, &s, &n)) { s = "null"; n = 4; }
    char low[128];
    size_t k = 0;
    size_t a = 0, b = n;
    while (a < b && (unsigned char)s[a] <= ' ') a++;
    while (b > a && (unsigned char)s[b - 1] <= ' ') b--;
    for (size_t i = a; i < b && k + 1 < sizeof low; i++) low[k++] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    low[k] = '\0';
    static const struct { const char *suf; double ms; } units[] = {
        {"nanos", 1e-6}, {"micros", 1e-3}, {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}, {"d", 86400000},
    };
    if (strcmp(low, "-1") == 0) { *out = -1; return TROVE_OK; }
    if (strcmp(low, "0") == 0) { *out = 0; return TROVE_OK; }
    for (size_t u = 0; u < TV_ARRAY_LEN(units); u++) {
        size_t sl = strlen(units[u].suf);
        if (k < sl || memcmp(low + k - sl, units[u].suf, sl) != 0) continue;
        size_t nl = k - sl;
        while (nl && (unsigned char)low[nl - 1] <= ' ') nl--;
        size_t st0 = 0;
        while (st0 < nl && (unsigned char)low[st0] <= ' ') st0++;
        int64_t x;
        if (nl > st0 && tv_parse_i64(low + st0, nl - st0, &x)) {
            if (x < -1)
                return shard_wrap(d, TROVE_EARG, TROVE_OK,
                                  "failed to parse setting [DecayFunctionParser.%s] with value [%.*s] as a time value: negative durations are not supported",
                                  what, (int)TV_MIN(n, 200), s);
            /* TimeUnit.toMillis truncates */
            if (units[u].ms >= 1) *out = (double)(x * (int64_t)units[u].ms);
            else if (units[u].ms == 1e-3) *out = (double)(x / 1000);
            else *out = (double)(x / 1000000);
            return TROVE_OK;
        }
        double dd;
        if (nl > st0 && tv_java_parse_double(low + st0, nl - st0, &dd))
            return shard_wrap(d, TROVE_EPARSEEXC, TROVE_OK, "failed to parse [%.*s], fractional time values are not supported",
                              (int)TV_MIN(n, 200), s);
        return shard_wrap(d, TROVE_EPARSEEXC, TROVE_OK, "failed to parse [%.*s]", (int)TV_MIN(n, 200), s);
    }
    return shard_wrap(d, TROVE_EPARSEEXC, TROVE_OK,
                      "failed to parse setting [DecayFunctionParser.%s] with value [%.*s] as a time value: unit is missing or unrecognized",
                      what, (int)TV_MIN(n, 200), s);
}

/* DecayFunctionBuilder.parseVariable. */
static tv_status build_decay(tv_dsl *d, fs_fn *f) {
    const tv_field *fld = tv_dsl_field(d, f->fname, strlen(f->fname));
    if (!fld) {
        tv_dsl_error(d, TROVE_EPARSE, f->body->off, "unknown field [%s]", f->fname);
        return fresh_parser(d);
    }
    f->field = fld;
    bool date = fld->type == TV_FT_DATE || fld->type == TV_FT_DATE_NANOS;
    if (fld->type == TV_FT_GEO_POINT)
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, f->body->off, "[%s] decay on geo_point fields is not supported by trove", f->name);
    if (!date && !is_number_type(fld->type)) {
        tv_dsl_error(d, TROVE_EPARSE, f->body->off, "field [%s] is of type [%s], but only numeric types are supported.", f->fname,
                     tv_field_type_name(fld->type));
        return fresh_parser(d);
    }
    const tv_json *body = f->body;
    double decay = 0.5, origin = 0, scale = 0, offset = 0;
    const tv_json *origin_v = NULL, *scale_v = NULL, *offset_v = NULL;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        tv_status st = TROVE_OK;
        if (tv_streq(m->key, m->key_len, "scale")) {
            scale_v = v;
            if (!date) st = dbl_value(d, v, &scale);
        } else if (tv_streq(m->key, m->key_len, "decay")) {
            st = dbl_value(d, v, &decay);
        } else if (tv_streq(m->key, m->key_len, "origin")) {
            origin_v = v;
            if (!date) st = dbl_value(d, v, &origin);
        } else if (tv_streq(m->key, m->key_len, "offset")) {
            offset_v = v;
            if (!date) st = dbl_value(d, v, &offset);
        } else {
            return shard_wrap(d, TROVE_EPARSEEXC, TROVE_OK, "parameter [%s] not supported!", m->key);
        }
        if (st) {
            if (st == TROVE_ENOMEM || !d->err) return st;
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", d->err->reason);
            tv_status code = d->err->code;
            return shard_wrap(d, code, d->err->type, "%s", msg);
        }
    }
    if (date) {
        int64_t o;
        if (!origin_v) {
            o = tv_now_ms();
            if (fld->type == TV_FT_DATE_NANOS) o *= 1000000;
        } else {
            const char *s;
            size_t n;
            if (!tv_dsl_scalar_text(origin_v, &s, &n)) { s = "null"; n = 4; }
            const char *fmt = fld->format;
            tv_status st;
            if (fld->type == TV_FT_DATE_NANOS) {
                bool math = n >= 3 && memcmp(s, "now", 3) == 0;
                for (size_t k = 0; k + 1 < n && !math; k++) math = s[k] == '|' && s[k + 1] == '|';
                if (!fmt) fmt = TV_DATE_NANOS_DEFAULT_FORMAT;
                if (math) {
                    st = tv_date_math_ex(fmt, s, n, tv_now_ms(), false, 0, &o, d->err);
                    o *= 1000000;
                } else {
                    st = tv_date_parse_ex_nanos(fmt, s, n, false, 0, &o, d->err);
                }
            } else {
                st = tv_date_math_ex(fmt, s, n, tv_now_ms(), false, 0, &o, d->err);
            }
            if (st) {
                if (st == TROVE_ENOMEM || !d->err) return st;
                char msg[1024];
                snprintf(msg, sizeof msg, "%s", d->err->reason);
                return shard_wrap(d, TROVE_EPARSEEXC, TROVE_OK, "%s", msg);
            }
        }
        origin = (double)o;
        if (!scale_v) return shard_wrap(d, TROVE_EPARSEEXC, TROVE_OK, "[scale] must be set for date fields.");
        tv_status st = time_value_ms(d, scale_v, "scale", &scale);
        if (!st && offset_v) st = time_value_ms(d, offset_v, "offset", &offset);
        if (st) return st;
    } else if (!scale_v || !origin_v) {
        return shard_wrap(d, TROVE_EPARSEEXC, TROVE_OK, "both [scale] and [origin] must be set for numeric fields.");
    }
    /* AbstractDistanceScoreFunction's checks, then processScale */
    if (scale <= 0.0) return shard_wrap(d, TROVE_EARG, TROVE_OK, "function_score : scale must be > 0.0.");
    if (decay <= 0.0 || decay >= 1.0) return shard_wrap(d, TROVE_EARG, TROVE_OK, "function_score : decay must be in the range [0..1].");
    if (offset < 0.0) return shard_wrap(d, TROVE_EARG, TROVE_OK, "function_score : offset must be > 0.0");
    switch (f->decay) {
    case DK_GAUSS: f->scale = 0.5 * pow(scale, 2.0) / log(decay); break;
    case DK_EXP: f->scale = log(decay) / scale; break;
    default: f->scale = scale / (1.0 - decay); break;
    }
    f->origin = origin;
    f->offset = offset;
    return TROVE_OK;
}

/* FieldValueFactorFunctionBuilder.doToFunction. */
static tv_status build_fvf(tv_dsl *d, fs_fn *f) {
    const tv_field *fld = tv_dsl_field(d, f->fname, strlen(f->fname));
    if (!fld) {
        if (!f->has_missing)
            return shard_wrap(d, TROVE_EINTERNAL, TROVE_EEXCEPTION, "Unable to find a field mapper for field [%s]. No 'missing' value defined.",
                              f->fname);
        return TROVE_OK;
    }
    if (!is_number_type(fld->type) && fld->type != TV_FT_SCALED_FLOAT && fld->type != TV_FT_DATE &&
        fld->type != TV_FT_DATE_NANOS && fld->type != TV_FT_BOOLEAN)
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, f->body->off,
                            "[field_value_factor] on a field of type [%s] is not supported by trove", tv_field_type_name(fld->type));
    if (!fld->doc_values || fld->dv_kind != TV_DV_NUMERIC)
        return shard_wrap(d, TROVE_EARG, TROVE_OK, "Can't load fielddata on [%s] because fielddata is unsupported on fields of type [%s]. Use doc values instead.",
                          f->fname, tv_field_type_name(fld->type));
    f->field = fld;
    return TROVE_OK;
}

/* RandomScoreFunctionBuilder.doToFunction. */
static tv_status build_random(tv_dsl *d, fs_fn *f) {
    const char *iname = d->index ? d->index : "";
    int32_t salt = (int32_t)((uint32_t)tv_java_string_hash(iname, strlen(iname)) << 10) | 0;
    int64_t now = tv_now_ms();
    int32_t now_seed = (int32_t)(uint32_t)((uint64_t)now ^ ((uint64_t)now >> 32));
    if (!f->has_seed) {
        f->rsrc = RS_DOC;
        f->salted = bitmix(now_seed, salt);
        return TROVE_OK;
    }
    f->salted = bitmix(f->seed, salt);
    const char *name = f->fname ? f->fname : "_id";
    if (strcmp(name, "_id") == 0) { f->rsrc = RS_ID; return TROVE_OK; }
    if (strcmp(name, "_seq_no") == 0) { f->rsrc = RS_SEQ_NO; return TROVE_OK; }
    const tv_field *fld = tv_dsl_field(d, name, strlen(name));
    if (!fld) {
        if (!d->mapping || tv_mapping_field_count(d->mapping) == 0) {
            f->rsrc = RS_DOC;
            f->salted = bitmix(now_seed, salt);
            return TROVE_OK;
        }
        return shard_wrap(d, TROVE_EARG, TROVE_OK,
                          "Field [%s] is not mapped on [%s] and cannot be used as a source of random numbers.", name, iname);
    }
    f->field = fld;
    if (fld->type == TV_FT_KEYWORD && fld->dv_kind == TV_DV_SORTED_SET) f->rsrc = RS_KEYWORD;
    else if ((fld->type == TV_FT_LONG || fld->type == TV_FT_INTEGER || fld->type == TV_FT_SHORT || fld->type == TV_FT_BYTE ||
              fld->type == TV_FT_DATE) && fld->dv_kind == TV_DV_NUMERIC)
        f->rsrc = RS_LONG;
    else if ((tv_field_type_is_floating(fld->type) || fld->type == TV_FT_SCALED_FLOAT) && fld->dv_kind == TV_DV_NUMERIC)
        f->rsrc = RS_DOUBLE;
    else
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, f->body->off,
                            "[random_score] on a field of type [%s] is not supported by trove", tv_field_type_name(fld->type));
    return TROVE_OK;
}

/* ================================================================ scoring */

typedef struct fs_scratch {
    tv_arena *arena;
    int64_t *vals;
    double *dist;
    uint32_t cap;
    tv_iter **fits; /* per function: the filter's iterator (NULL: none or no match) */
    bool *has_filter;
    tv_qscript_exec *execs; /* per function: script_score's runs (NULL: no script) */
    float sub;              /* the doc's sub-query score (_score) */
} fs_scratch;

static tv_status fail_doc(fs_state *s, tv_status code, tv_status type, const char *fmt, ...) TV_PRINTF(4, 5);
static tv_status fail_doc(fs_state *s, tv_status code, tv_status type, const char *fmt, ...) {
    if (!s->err) return code;
    tv_error_clear(s->err);
    s->err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err->reason, sizeof s->err->reason, fmt, ap);
    va_end(ap);
    s->err->type = type;
    snprintf(s->err->index, sizeof s->err->index, "%s", s->index ? s->index : "");
    return code;
}

/* The doc's values of f (count; vals holds min(count, cap) grown to fit). */
static tv_status read_vals(fs_scratch *x, const tv_segview *sv, uint32_t field, uint32_t doc, uint32_t *count) {
    uint32_t n = tv_segment_dv_numeric(sv->seg, field, doc, x->vals, x->cap);
    if (n > x->cap) {
        uint32_t cap = n + 16;
        int64_t *nv = tv_arena_alloc(x->arena, cap * sizeof *nv);
        double *nd = tv_arena_alloc(x->arena, cap * sizeof *nd);
        if (!nv || !nd) return TROVE_ENOMEM;
        x->vals = nv;
        x->dist = nd;
        x->cap = cap;
        n = tv_segment_dv_numeric(sv->seg, field, doc, x->vals, x->cap);
    }
    *count = n;
    return TROVE_OK;
}

static double modify(int m, double n) {
    switch (m) {
    case MOD_LOG: return log10(n);
    case MOD_LOG1P: return log10(n + 1);
    case MOD_LOG2P: return log10(n + 2);
    case MOD_LN: return log(n);
    case MOD_LN1P: return log1p(n);
    case MOD_LN2P: return log1p(n + 1);
    case MOD_SQUARE: return pow(n, 2);
    case MOD_SQRT: return sqrt(n);
    case MOD_RECIPROCAL: return 1.0 / n;
    default: return n;
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One function's leaf score (LeafScoreFunction.score, weight applied). */
static tv_status fn_score(fs_state *s, fs_fn *f, fs_scratch *x, const tv_segview *sv, uint32_t doc, double *out) {
    double r = 1.0;
    switch (f->kind) {
    case FK_WEIGHT:
        r = 1.0;
        break;
    case FK_FVF: {
        double value;
        uint32_t n = 0;
        if (f->field) {
            tv_status st = read_vals(x, sv, f->field->id, doc, &n);
            if (st) return st;
        }
        if (n) {
            value = dv_double(f->field, x->vals[0]);
        } else if (f->has_missing) {
            value = f->missing;
        } else {
            return fail_doc(s, TROVE_EINTERNAL, TROVE_EEXCEPTION, "Missing value for field [%s]", f->fname);
        }
        double val = value * (double)f->factor;
        r = modify(f->modifier, val);
        if (r < 0) {
            char rb[40], vb[40];
            tv_fmt_double(r, rb);
            tv_fmt_double(value, vb);
            const char *hint = f->modifier == MOD_LN ? "; consider using ln1p or ln2p instead of ln to avoid negative scores"
                               : f->modifier == MOD_LOG ? "; consider using log1p or log2p instead of log to avoid negative scores"
                                                        : "";
            return fail_doc(s, TROVE_EARG, TROVE_OK,
                            "field value function must not produce negative scores, but got: [%s] for field value: [%s]%s", rb, vb, hint);
        }
        break;
    }
    case FK_DECAY: {
        uint32_t n = 0;
        tv_status st = read_vals(x, sv, f->field->id, doc, &n);
        if (st) return st;
        double dist = 0; /* FieldData.replaceMissing(..., 0) */
        if (n) {
            for (uint32_t i = 0; i < n; i++) {
                double v = dv_double(f->field, x->vals[i]);
                double dd = fabs(v - f->origin) - f->offset;
                x->dist[i] = dd > 0.0 ? dd : 0.0; /* Math.max(0.0d, ...) */
                if (x->dist[i] != x->dist[i]) x->dist[i] = dd;
            }
            if (n > 1) qsort(x->dist, n, sizeof *x->dist, cmp_double);
            switch (f->mvm) {
            case MV_MIN: dist = x->dist[0]; break;
            case MV_MAX: dist = x->dist[n - 1]; break;
            case MV_MEDIAN:
                dist = n % 2 == 0 ? (x->dist[(n - 1) / 2] + x->dist[(n - 1) / 2 + 1]) / 2 : x->dist[(n - 1) / 2];
                break;
            default: {
                double total = 0;
                for (uint32_t i = 0; i < n; i++) total += x->dist[i];
                dist = f->mvm == MV_AVG ? total / n : total;
                break;
            }
            }
        }
        switch (f->decay) {
        case DK_GAUSS: r = exp(0.5 * pow(dist, 2.0) / f->scale); break;
        case DK_EXP: r = exp(f->scale * dist); break;
        default: {
            double l = (f->scale - dist) / f->scale;
            r = l > 0.0 ? l : (l != l ? l : 0.0); /* Math.max(0.0, l) */
            break;
        }
        }
        break;
    }
    case FK_RANDOM: {
        int32_t hash;
        if (f->rsrc == RS_DOC) {
            hash = bitmix((int32_t)(sv->doc_base + doc), f->salted);
        } else {
            char buf[64];
            const char *b = NULL;
            size_t bl = 0;
            bool have = false;
            if (f->rsrc == RS_KEYWORD) {
                uint32_t ord;
                if (tv_segment_dv_ords(sv->seg, f->field->id, doc, &ord, 1) > 0 &&
                    tv_segment_dv_term(sv->seg, f->field->id, ord, &b, &bl))
                    have = true;
            } else if (f->rsrc == RS_LONG || f->rsrc == RS_DOUBLE) {
                uint32_t n = 0;
                tv_status st = read_vals(x, sv, f->field->id, doc, &n);
                if (st) return st;
                if (n) {
                    if (f->rsrc == RS_LONG) bl = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)x->vals[0]);
                    else bl = tv_fmt_double(dv_double(f->field, x->vals[0]), buf);
                    b = buf;
                    have = true;
                }
            } else {
                tv_doc_meta meta;
                memset(&meta, 0, sizeof meta);
                tv_status st = tv_segment_doc(sv->seg, doc, x->arena, &meta, NULL, NULL);
                if (st) return st;
                if (f->rsrc == RS_SEQ_NO) {
                    bl = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)meta.seq_no);
                    b = buf;
                    have = true;
                } else if (meta.id) {
                    b = meta.id;
                    bl = meta.id_len;
                    have = true;
                }
            }
            hash = have ? (int32_t)tv_murmur3_x86_32(b, bl, (uint32_t)f->salted) : f->salted;
        }
        r = (double)((float)(hash & 0x00FFFFFF) / (float)(1 << 24));
        break;
    }
    case FK_SCRIPT: {
        /* ScriptScoreFunction.score: the script's double, never negative */
        tv_qscript_exec *ex = &x->execs[f - s->fns];
        tv_sv v;
        tv_status st = tv_qscript_run(ex, sv->seg, doc, x->sub, NULL, &v);
        if (st) return st;
        const char *what = NULL;
        if (!tv_qscript_number(&v, &r, &what)) return tv_qscript_cast_fail(f->script, what, "double", s->err, s->index);
        if (r < 0) {
            char rb[40];
            tv_fmt_double(r, rb);
            return fail_doc(s, TROVE_EARG, TROVE_OK, "script score function must not produce negative scores, but got: [%s]", rb);
        }
        break;
    }
    default: break;
    }
    if (f->has_weight) r = r * (double)f->weight;
    *out = r;
    return TROVE_OK;
}

static bool filter_match(fs_scratch *x, uint32_t i, uint32_t doc) {
    if (!x->has_filter[i]) return true;
    tv_iter *it = x->fits[i];
    if (!it) return false;
    if (it->doc == TV_ITER_UNSET || (it->doc < doc && it->doc != TV_NO_MORE_DOCS)) tv_iter_advance(it, doc);
    return it->doc == doc;
}

/* FunctionFactorScorer.score. */
static tv_status doc_score(fs_state *s, fs_scratch *x, const tv_segview *sv, uint32_t doc, float sub, float *out) {
    x->sub = sub;
    if (s->nfns == 0) {
        *out = sub;
        return TROVE_OK;
    }
    double factor = 1.0, v;
    tv_status st;
    switch (s->score_mode) {
    case SM_FIRST:
        for (uint32_t i = 0; i < s->nfns; i++) {
            if (!filter_match(x, i, doc)) continue;
            if ((st = fn_score(s, &s->fns[i], x, sv, doc, &factor))) return st;
            break;
        }
        break;
    case SM_MAX: {
        double mx = -INFINITY;
        for (uint32_t i = 0; i < s->nfns; i++) {
            if (!filter_match(x, i, doc)) continue;
            if ((st = fn_score(s, &s->fns[i], x, sv, doc, &v))) return st;
            mx = fmax_java(v, mx);
        }
        if (mx != -INFINITY) factor = mx;
        break;
    }
    case SM_MIN: {
        double mn = INFINITY;
        for (uint32_t i = 0; i < s->nfns; i++) {
            if (!filter_match(x, i, doc)) continue;
            if ((st = fn_score(s, &s->fns[i], x, sv, doc, &v))) return st;
            mn = fmin_java(v, mn);
        }
        if (mn != INFINITY) factor = mn;
        break;
    }
    case SM_MULTIPLY:
        for (uint32_t i = 0; i < s->nfns; i++) {
            if (!filter_match(x, i, doc)) continue;
            if ((st = fn_score(s, &s->fns[i], x, sv, doc, &v))) return st;
            factor *= v;
        }
        break;
    default: { /* avg, sum */
        double total = 0.0, wsum = 0;
        for (uint32_t i = 0; i < s->nfns; i++) {
            if (!filter_match(x, i, doc)) continue;
            if ((st = fn_score(s, &s->fns[i], x, sv, doc, &v))) return st;
            total += v;
            wsum += (double)(s->fns[i].has_weight ? s->fns[i].weight : 1.0f);
        }
        if (wsum != 0) {
            factor = total;
            if (s->score_mode == SM_AVG) factor /= wsum;
        }
        break;
    }
    }
    double q = sub, mb = s->max_boost;
    double fm = fmin_java(factor, mb);
    float fin;
    switch (s->boost_mode) {
    case BM_REPLACE: fin = (float)fm; break;
    case BM_SUM: fin = (float)(q + fm); break;
    case BM_AVG: fin = (float)((fm + q) / 2.0); break;
    case BM_MIN: fin = (float)fmin_java(q, fm); break;
    case BM_MAX: fin = (float)fmax_java(q, fm); break;
    default: fin = (float)(q * fm); break;
    }
    if (fin < 0.0f || fin != fin) {
        char fb[40];
        tv_fmt_float(fin, fb);
        return fail_doc(s, TROVE_EINTERNAL, TROVE_EEXCEPTION, "function score query returned an invalid score: %s for doc: %u", fb, doc);
    }
    *out = fin;
    return TROVE_OK;
}

/* ================================================================= hooks */

static tv_status fs_prepare(tv_query *q, const tv_snapshot *snap, float boost, tv_arena *arena) {
    fs_state *s = q->u.ext.state;
    /* the BoostQuery around function_score reaches the sub-query's weight */
    s->sub->boost = s->sub_boost0 * boost;
    tv_status st = tv_query_prepare(s->sub, snap, arena);
    for (uint32_t i = 0; i < s->nfns && !st; i++)
        if (s->fns[i].filter) st = tv_query_prepare(s->fns[i].filter, snap, arena);
    return st;
}

typedef TV_VEC(uint32_t) u32_vec;
typedef TV_VEC(float) f32_vec;

static tv_status fs_plan(tv_query *q, const tv_segview *sv, struct tv_plan_ctx *ctx, tv_iter **out) {
    fs_state *s = q->u.ext.state;
    *out = NULL;
    /* FunctionScoreQuery.createWeight: no scores and no min_score: the
     * sub-query's own weight */
    if (!ctx->scores && !s->has_min) return tv_plan(s->sub, sv, ctx, out);
    tv_arena *a = ctx->arena;
    tv_plan_ctx sc = {a, ctx->snap, s->needs_sub, false};
    tv_iter *sub = NULL;
    tv_status st = tv_plan(s->sub, sv, &sc, &sub);
    if (st || !sub) return st;
    fs_scratch x;
    memset(&x, 0, sizeof x);
    x.arena = a;
    x.cap = 16;
    x.vals = tv_arena_alloc(a, x.cap * sizeof *x.vals);
    x.dist = tv_arena_alloc(a, x.cap * sizeof *x.dist);
    x.fits = tv_arena_calloc(a, s->nfns + 1, sizeof *x.fits);
    x.has_filter = tv_arena_calloc(a, s->nfns + 1, sizeof *x.has_filter);
    if (!x.vals || !x.dist || !x.fits || !x.has_filter) return TROVE_ENOMEM;
    tv_plan_ctx fc = {a, ctx->snap, false, false};
    bool scripts = false;
    for (uint32_t i = 0; i < s->nfns; i++) scripts |= s->fns[i].kind == FK_SCRIPT;
    if (scripts) {
        x.execs = tv_arena_calloc(a, s->nfns, sizeof *x.execs);
        if (!x.execs) return TROVE_ENOMEM;
        for (uint32_t i = 0; i < s->nfns; i++) {
            tv_qscript_exec_init(&x.execs[i], s->fns[i].script, ctx->snap ? ctx->snap->mapping : NULL, s->index, s->err);
            x.execs[i].doc_base = sv->doc_base;
        }
    }
    for (uint32_t i = 0; i < s->nfns && !st; i++) {
        if (!s->fns[i].filter) continue;
        x.has_filter[i] = true;
        if ((st = tv_plan(s->fns[i].filter, sv, &fc, &x.fits[i]))) return st;
    }
    u32_vec docs = {0};
    f32_vec scores = {0};
    float mx = 0;
    for (uint32_t doc = tv_iter_next(sub); doc != TV_NO_MORE_DOCS; doc = tv_iter_next(sub)) {
        if (!tv_segview_live(sv, doc)) continue;
        float subs = s->needs_sub ? tv_iter_score(sub) : 0.0f;
        float fin = 0;
        if ((st = doc_score(s, &x, sv, doc, subs, &fin))) break;
        if (s->has_min && !(fin >= s->min_score)) continue; /* MinScoreScorer */
        if (tv_vec_push(&docs, doc) || tv_vec_push(&scores, fin)) { st = TROVE_ENOMEM; break; }
        if (fin > mx) mx = fin;
    }
    if (!st) st = tv_iter_replay(docs.items, scores.items, (uint32_t)docs.len, mx, a, out);
    tv_vec_fini(&docs);
    tv_vec_fini(&scores);
    if (x.execs)
        for (uint32_t i = 0; i < s->nfns; i++) tv_qscript_exec_fini(&x.execs[i]);
    return st;
}

/* ================================================================ parser */

static tv_status misplaced(tv_dsl *d, uint32_t off, const char *what) {
    return tv_dsl_error(d, TROVE_EPARSE, off,
                        "failed to parse [function_score] query. [you can either define [functions] array or a single function, not both. %s]",
                        what);
}

/* A single function named key when one was already found, or after a
 * [functions] array: FunctionScoreQueryBuilder's errors (TROVE_OK when
 * neither). */
static tv_status second_function(tv_dsl *d, uint32_t off, const char *key, const char *single_name, bool array_found) {
    if (single_name)
        return tv_dsl_error(d, TROVE_EPARSE, off,
                            "failed to parse [function_score] query. already found function [%s], now encountering [%s]. use [functions] array if you want to define several functions.",
                            single_name, key);
    if (array_found) {
        char wbuf[300];
        snprintf(wbuf, sizeof wbuf, "already found [functions] array, now encountering [%s].", key);
        return misplaced(d, off, wbuf);
    }
    return TROVE_OK;
}

tv_status tv_dsl_parse_function_score(tv_dsl *d, const tv_json *body, tv_query **out) {
    fn_vec fns = {0};
    tv_query *sub = NULL;
    float boost = 1.0f, max_boost = FLT_MAX, min_score = 0;
    bool has_min = false, array_found = false, single_found = false;
    const char *single_name = NULL;
    int score_mode = SM_MULTIPLY, boost_mode = BM_MULTIPLY;
    tv_status st = TROVE_OK;
    for (uint32_t i = 0; i < body->len && !st; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        char wbuf[300];
        if (v->type == TV_JSON_OBJECT) {
            if (tv_streq(m->key, m->key_len, "query")) {
                bool saved = d->filter_ctx;
                d->filter_ctx = false;
                st = tv_dsl_parse_query(d, v, &sub);
                d->filter_ctx = saved;
                continue;
            }
            if ((st = second_function(d, v->off, m->key, single_found ? single_name : NULL, array_found))) break;
            single_found = true;
            single_name = m->key;
            fs_fn f;
            memset(&f, 0, sizeof f);
            st = parse_function(d, m, &f);
            if (!st && tv_vec_push(&fns, f)) st = oom(d);
        } else if (v->type == TV_JSON_ARRAY) {
            if (!tv_streq(m->key, m->key_len, "functions")) {
                st = tv_dsl_error(d, TROVE_EPARSE, v->off, "failed to parse [function_score] query. array [%s] is not supported", m->key);
                break;
            }
            if (single_found) {
                snprintf(wbuf, sizeof wbuf, "already found [%s], now encountering [functions].", single_name);
                st = misplaced(d, v->off, wbuf);
                break;
            }
            array_found = true;
            st = parse_functions(d, v, &fns);
        } else if (tv_streq(m->key, m->key_len, "score_mode")) {
            char up[64];
            score_mode = enum_of(v, k_score_modes, (int)TV_ARRAY_LEN(k_score_modes), up, sizeof up);
            if (score_mode < 0)
                st = tv_error_set(d->err, TROVE_EARG,
                                  "No enum constant org.opensearch.common.lucene.search.function.FunctionScoreQuery.ScoreMode.%s", up);
        } else if (tv_streq(m->key, m->key_len, "boost_mode")) {
            char up[64];
            boost_mode = enum_of(v, k_boost_modes, (int)TV_ARRAY_LEN(k_boost_modes), up, sizeof up);
            if (boost_mode < 0)
                st = tv_error_set(d->err, TROVE_EARG, "No enum constant org.opensearch.common.lucene.search.function.CombineFunction.%s", up);
        } else if (tv_streq(m->key, m->key_len, "max_boost")) {
            st = tv_dsl_java_float(d, v, &max_boost);
        } else if (tv_streq(m->key, m->key_len, "boost")) {
            st = tv_dsl_java_float(d, v, &boost);
        } else if (tv_streq(m->key, m->key_len, "_name")) {
            ;
        } else if (tv_streq(m->key, m->key_len, "min_score")) {
            st = tv_dsl_java_float(d, v, &min_score);
            has_min = true;
        } else {
            if ((st = second_function(d, v->off, m->key, single_found ? single_name : NULL, array_found))) break;
            if (!tv_streq(m->key, m->key_len, "weight")) {
                st = tv_dsl_error(d, TROVE_EPARSE, v->off, "failed to parse [function_score] query. field [%s] is not supported", m->key);
                break;
            }
            fs_fn f;
            memset(&f, 0, sizeof f);
            f.kind = FK_WEIGHT;
            f.name = "weight";
            float w;
            st = tv_dsl_java_float(d, v, &w);
            if (!st) st = set_weight(d, &f, w);
            if (!st && tv_vec_push(&fns, f)) st = oom(d);
            single_found = true;
            single_name = m->key;
        }
    }
    /* doToQuery on the shard: every function's toFunction, then the query */
    for (size_t i = 0; i < fns.len && !st; i++) {
        fs_fn *f = &fns.items[i];
        if (f->kind == FK_FVF) st = build_fvf(d, f);
        else if (f->kind == FK_DECAY) st = build_decay(d, f);
        else if (f->kind == FK_RANDOM) st = build_random(d, f);
        else if (f->kind == FK_SCRIPT)
            st = tv_dsl_script(d, f->body, TV_SCRIPT_G_DOC | TV_SCRIPT_G_SCORE | TV_SCRIPT_G_SCOREFN, &f->script);
    }
    fs_state *s = NULL;
    tv_query *q = NULL;
    if (!st) {
        if (!sub) sub = tv_q_new(d, TV_Q_MATCH_ALL);
        s = tv_arena_calloc(d->arena, 1, sizeof *s);
        q = tv_q_new(d, TV_Q_EXT);
        if (!sub || !s || !q) st = oom(d);
    }
    if (!st && fns.len) {
        s->fns = tv_arena_alloc(d->arena, fns.len * sizeof *s->fns);
        if (!s->fns) st = oom(d);
        else memcpy(s->fns, fns.items, fns.len * sizeof *s->fns);
    }
    if (!st) st = tv_query_rewrite(&sub, d->arena);
    for (size_t i = 0; i < fns.len && !st; i++)
        if (s->fns[i].filter) st = tv_query_rewrite(&s->fns[i].filter, d->arena);
    if (st) {
        tv_vec_fini(&fns);
        return st == TROVE_ENOMEM ? oom(d) : st;
    }
    s->nfns = (uint32_t)fns.len;
    tv_vec_fini(&fns);
    s->sub = sub;
    s->sub_boost0 = sub->boost;
    /* one function without a filter: the single-function query (FIRST) */
    s->score_mode = s->nfns == 1 && !s->fns[0].filter ? SM_FIRST : score_mode;
    s->boost_mode = s->nfns == 0 ? BM_MULTIPLY : boost_mode;
    s->max_boost = max_boost;
    s->has_min = has_min;
    s->min_score = min_score;
    s->needs_sub = s->boost_mode != BM_REPLACE;
    for (uint32_t i = 0; i < s->nfns; i++)
        if (s->fns[i].kind == FK_SCRIPT) s->needs_sub = true; /* _score */
    s->err = d->err;
    s->index = d->index;
    /* a filter context with no min_score never asks for scores: the
     * sub-query alone (FunctionScoreQuery.createWeight) */
    if (d->filter_ctx && !has_min) {
        sub->boost = s->sub_boost0 * boost;
        /* it is still a function_score to BoolQueryBuilder's rewrites (a
         * must_not range inside is no must_not range) */
        sub->flags = 0;
        *out = sub;
        return TROVE_OK;
    }
    q->boost = boost;
    q->u.ext.prepare = fs_prepare;
    q->u.ext.plan = fs_plan;
    q->u.ext.state = s;
    *out = q;
    return TROVE_OK;
}
