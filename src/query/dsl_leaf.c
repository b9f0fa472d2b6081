/*
 * dsl_leaf.c — the query parsers other than bool: full-text (match,
 * match_phrase, match_phrase_prefix, multi_match), term-level (term, terms,
 * prefix, range, exists, ids) and compound (constant_score, dis_max,
 * boosting), plus the per-field-type conversion of a query value
 * (OpenSearch's MappedFieldType.termQuery / rangeQuery):
 *
 *   text      term bytes as given (not analyzed), BM25
 *   keyword   value through the normalizer, constant score (3.x default)
 *   numbers   points: [v, v] in the sortable encoding; decimals on integer
 *             types match nothing; ranges round as OpenSearch's
 *             longRangeQuery / nextUp / nextDown
 *   date      epoch millis through index/date.h (formats, date math)
 *   date_nanos epoch nanos through the nanos parsers (date math in millis)
 *   unsigned_long  the value's exact integer part (BigDecimal-style text
 *             parse, not a double) in tv_unsigned_to_sortable; a term with
 *             a fraction matches nothing, range bounds round inwards,
 *             negative bounds clamp
 *   boolean   the indexed terms "T" / "F", BM25
 *   ip        the 16-byte tv_ip_parse term (constant score); "a/n" CIDR
 *             and ranges are inclusive term ranges over those bytes
 *             (exclusive bounds step by one address)
 *   binary    not searchable (query_shard_exception, as OpenSearch)
 *
 * exists on metadata fields: _id, _index, _seq_no, _version and
 * _primary_term match every live doc; _routing the docs stored with one
 * (each segment's stored metadata is read: trove indexes no _routing
 * postings, so this is linear in the segment — acceptable for a rare
 * query, rejected alternative: a reserved routing field in the index
 * layer, whose format is not ours); _source is not searchable.
 *
 * Text fields with hidden sub-fields (tv_dsl_index_prefix / _phrase /
 * _phrase_prefix): TextFieldType.prefixQuery, phraseQuery and
 * phrasePrefixQuery's rewrites onto "._index_prefix" and "._index_phrase"
 * (index_prefixes, index_phrases), and SearchAsYouTypeFieldType's onto its
 * shingle and prefix fields. Span queries these build in OpenSearch (a
 * phrase prefix of several terms on such a field) are refused.
 *
 * Error texts are OpenSearch's (ParsingException from each builder's
 * fromXContent; ObjectParser-based builders — match_all, match_none, ids —
 * give x_content_parse_exception "[l:c] [name] unknown field [x]").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "index/date.h"
#include "query/automaton.h"
#include "query/parse.h"

static tv_status oom(tv_dsl *d) { return tv_error_oom(d->err); }

static tv_status unknown_field_op(tv_dsl *d, const char *qname, const tv_json_member *m) {
    uint32_t l = 0, c = 0;
    if (d->src) tv_json_linecol(d->src, d->src_len, m->key_off, &l, &c);
    tv_status st = tv_dsl_error(d, TROVE_EXCONTENT, m->key_off, "[%u:%u] [%s] unknown field [%s]", l,
                                c, qname, m->key);
    return st;
}

static tv_query *none(tv_dsl *d) { return tv_q_new(d, TV_Q_MATCH_NONE); }

/* ------------------------------------------------------ value conversion */

static bool is_integer_type(tv_field_type t) {
    return t == TV_FT_LONG || t == TV_FT_INTEGER || t == TV_FT_SHORT || t == TV_FT_BYTE;
}

static void int_bounds(tv_field_type t, int64_t *lo, int64_t *hi) {
    switch (t) {
    case TV_FT_INTEGER: *lo = INT32_MIN; *hi = INT32_MAX; break;
    case TV_FT_SHORT: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case TV_FT_BYTE: *lo = INT8_MIN; *hi = INT8_MAX; break;
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
    }
}

static float to_half(float f) {
    /* round to the nearest half-precision value (ties to even) */
    if (f == 0 || isnan(f) || isinf(f)) return f;
    int e;
    float m = frexpf(fabsf(f), &e); /* f = m * 2^e, m in [0.5, 1) */
    int shift = e - 1 < -14 ? 24 + (e - 1) : 11; /* significant bits kept */
    if (shift < 0) return copysignf(0.0f, f);
    float scaled = ldexpf(m, shift);
    float r = nearbyintf(scaled);
    float v = ldexpf(r, e - shift);
    if (v > 65504.0f) v = INFINITY;
    return copysignf(v, f);
}

typedef struct numval {
    bool is_int;  /* exact integer */
    int64_t i;
    double d;
} numval;

static tv_status number_of(tv_dsl *d, const tv_json *v, numval *out) {
    memset(out, 0, sizeof *out);
    if (v->type == TV_JSON_INT) { out->is_int = true; out->i = v->v.i; out->d = (double)v->v.i; return TROVE_OK; }
    if (v->type == TV_JSON_UINT || v->type == TV_JSON_DOUBLE) { out->d = tv_json_as_double(v); return TROVE_OK; }
    if (v->type == TV_JSON_STRING) {
        int64_t i;
        if (tv_parse_i64(v->v.s, v->len, &i)) { out->is_int = true; out->i = i; out->d = (double)i; return TROVE_OK; }
        char *end = NULL;
        double x = v->len ? strtod(v->v.s, &end) : 0;
        if (v->len && end == v->v.s + v->len && !isnan(x)) { out->d = x; return TROVE_OK; }
    }
    const char *s = "";
    size_t n = 0;
    tv_dsl_scalar_text(v, &s, &n);
    tv_dsl_error(d, TROVE_EQUERYSHARD, v->off, "failed to create query: For input string: \"%.*s\"",
                 (int)TV_MIN(n, 200), s);
    tv_error_cause(d->err, TROVE_ENUMBERFORMAT, "For input string: \"%.*s\"", (int)TV_MIN(n, 200), s);
    return TROVE_EQUERYSHARD;
}

static tv_status date_of(tv_dsl *d, const tv_field *f, const tv_json *v, const char *format,
                         bool round_up, int32_t tz, int64_t *out);

tv_status tv_dsl_date_value(tv_dsl *d, const tv_field *f, const tv_json *v, bool round_up, int64_t *out) {
    return date_of(d, f, v, NULL, round_up, 0, out);
}

static double float_of_type(tv_field_type t, double x) {
    if (t == TV_FT_FLOAT) return (double)(float)x;
    if (t == TV_FT_HALF_FLOAT) return (double)to_half((float)x);
    return x;
}

static tv_status date_of(tv_dsl *d, const tv_field *f, const tv_json *v, const char *format,
                         bool round_up, int32_t tz, int64_t *out) {
    const char *s;
    size_t n;
    if (!tv_dsl_scalar_text(v, &s, &n))
        return tv_dsl_error(d, TROVE_EPARSE, v->off, "failed to parse date field");
    const char *fmt = format ? format : (f && f->format ? f->format : NULL);
    tv_status st;
    if (f && f->type == TV_FT_DATE_NANOS) {
        /* nanosecond resolution: plain dates through the nanos parser;
         * date math ("now-1d", "x||+1M") in millis, scaled */
        bool math = n >= 3 && memcmp(s, "now", 3) == 0;
        for (size_t k = 0; k + 1 < n && !math; k++) math = s[k] == '|' && s[k + 1] == '|';
        if (!fmt) fmt = TV_DATE_NANOS_DEFAULT_FORMAT;
        if (math) {
            int64_t ms = 0;
            st = tv_date_math_ex(fmt, s, n, tv_now_ms(), round_up, tz, &ms, d->err);
            if (!st) {
                if (ms < 0 || ms > INT64_MAX / 1000000 - 1)
                    st = tv_dsl_error(d, TROVE_EARG, v->off, "date[%.*s] cannot be stored in nanosecond resolution", (int)TV_MIN(n, 200), s);
                else *out = ms * 1000000 + (round_up ? 999999 : 0);
            }
        } else {
            st = tv_date_parse_ex_nanos(fmt, s, n, round_up, tz, out, d->err);
        }
    } else {
        st = tv_date_math_ex(fmt, s, n, tv_now_ms(), round_up, tz, out, d->err);
    }
    if (st && d->err) {
        d->err->pos = v->off;
        if (d->err->code == TROVE_OK) d->err->code = st;
        tv_error *e = d->err;
        if (e->code == TROVE_EARG && strncmp(e->reason, "failed to parse date field [", 28) == 0) {
            /* DateFieldType.parseToLong on the shard: JavaDateMathParser
             * wraps the formatter's IllegalArgumentException in an
             * OpenSearchParseException "...: [<its message>]", which
             * QueryShardContext.toQuery wraps in a query_shard_exception */
            tv_error in = *e;
            char inner[1100];
            snprintf(inner, sizeof inner, "%s", in.reason);
            const char *fe = strstr(inner, "] with format [");
            size_t vl = fe ? (size_t)(fe - (inner + 28)) : 0;
            const char *fmt_s = fe ? fe + 15 : "";
            size_t fl = strlen(fmt_s);
            if (fl && fmt_s[fl - 1] == ']') fl--;
            char pe[1100];
            snprintf(pe, sizeof pe, "failed to parse date field [%.*s] with format [%.*s]: [%s]", (int)vl, inner + 28,
                     (int)fl, fmt_s, inner);
            tv_error_wrap(e, TROVE_EQUERYSHARD, "failed to create query: %s", pe);
            tv_error_cause(e, TROVE_EPARSEEXC, "%s", pe);
            tv_error_cause_add(e, TROVE_EARG, TROVE_OK, "%s", inner);
            if (in.cause_code != TROVE_OK)
                tv_error_cause_add(e, in.cause_code, in.cause_type, "%s", in.cause_reason);
            e->pos = v->off;
            st = TROVE_EQUERYSHARD;
        }
    }
    return st;
}

static tv_query *num_range(tv_dsl *d, const tv_field *f, int64_t lo, int64_t hi) {
    if (lo > hi) return none(d);
    tv_query *q = tv_q_new(d, TV_Q_RANGE_NUM);
    if (!q) return NULL;
    q->field = f;
    q->field_id = f->id;
    q->u.nrange.lo = lo;
    q->u.nrange.hi = hi;
    return q;
}

/*
 * An unsigned_long query value as OpenSearch reads it (a BigDecimal's
 * integer part): the integer part in *u, whether it had a non-zero
 * fraction, whether it was negative. Values beyond 2^64-1 (and non-numbers)
 * fail: "Value [x] is out of range for an unsigned long" / number format.
 */
typedef struct unum {
    uint64_t u;
    bool neg, has_dec;
} unum;

static bool unsigned_text(const char *s, size_t n, unum *out, bool *overflow) {
    memset(out, 0, sizeof *out);
    *overflow = false;
    size_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) { out->neg = s[i] == '-'; i++; }
    size_t ds = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        unsigned dg = (unsigned)(s[i] - '0');
        if (out->u > (UINT64_MAX - dg) / 10) *overflow = true;
        else out->u = out->u * 10 + dg;
        i++;
    }
    size_t ni = i - ds;
    size_t nf = 0;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') { if (s[i] != '0') out->has_dec = true; i++; nf++; }
    }
    if (ni + nf == 0) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        /* exponent notation: exact enough through a double for the values
         * such a notation names */
        char *end = NULL;
        char tmp[64];
        if (n >= sizeof tmp) return false;
        memcpy(tmp, s, n);
        tmp[n] = 0;
        double x = strtod(tmp, &end);
        if (end != tmp + n || isnan(x)) return false;
        out->neg = x < 0;
        double ax = fabs(x);
        if (ax >= 18446744073709551616.0) { *overflow = true; return true; }
        out->u = (uint64_t)ax;
        out->has_dec = ax != floor(ax);
        *overflow = false;
        return true;
    }
    if (i != n) return false;
    if (out->neg && out->u == 0 && !out->has_dec) out->neg = false; /* -0 */
    return true;
}

static tv_status unsigned_of(tv_dsl *d, const tv_json *v, unum *out) {
    const char *s = "";
    size_t n = 0;
    char buf[32];
    memset(out, 0, sizeof *out);
    if (v->type == TV_JSON_INT) {
        out->neg = v->v.i < 0;
        out->u = v->v.i < 0 ? (uint64_t)0 - (uint64_t)v->v.i : (uint64_t)v->v.i;
    } else if (v->type == TV_JSON_UINT) {
        out->u = v->v.u;
    } else {
        if (v->type == TV_JSON_DOUBLE && v->raw) { s = v->raw; n = v->raw_len; }
        else if (v->type == TV_JSON_DOUBLE) { n = (size_t)snprintf(buf, sizeof buf, "%.17g", v->v.d); s = buf; }
        else tv_dsl_scalar_text(v, &s, &n);
        bool overflow = false;
        if (!(v->type == TV_JSON_STRING || v->type == TV_JSON_DOUBLE) || !unsigned_text(s, n, out, &overflow)) {
            tv_dsl_error(d, TROVE_EQUERYSHARD, v->off, "failed to create query: For input string: \"%.*s\"",
                         (int)TV_MIN(n, 200), s);
            tv_error_cause(d->err, TROVE_ENUMBERFORMAT, "For input string: \"%.*s\"", (int)TV_MIN(n, 200), s);
            return TROVE_EQUERYSHARD;
        }
        if (overflow)
            return tv_dsl_error(d, TROVE_EARG, v->off, "Value [%.*s] is out of range for an unsigned long",
                                (int)TV_MIN(n, 200), s);
    }
    return TROVE_OK;
}

static tv_status unsigned_out_of_range(tv_dsl *d, const tv_json *v) {
    const char *s = "";
    size_t n = 0;
    if (v->raw) { s = v->raw; n = v->raw_len; }
    else tv_dsl_scalar_text(v, &s, &n);
    return tv_dsl_error(d, TROVE_EARG, v->off, "Value [%.*s] is out of range for an unsigned long",
                        (int)TV_MIN(n, 200), s);
}

/* An ip query value: its 16-byte encoding (IllegalArgumentException's
 * "'x' is not an IP string literal." otherwise). */
static tv_status ip_of(tv_dsl *d, const tv_json *v, uint8_t out[16]) {
    const char *s = "";
    size_t n = 0;
    tv_dsl_scalar_text(v, &s, &n);
    if (v->type != TV_JSON_STRING || !tv_ip_parse(s, n, out))
        return tv_dsl_error(d, TROVE_EARG, v->off, "'%.*s' is not an IP string literal.", (int)TV_MIN(n, 200), s);
    return TROVE_OK;
}

static tv_query *term_range(tv_dsl *d, const tv_field *f, const uint8_t *lo, const uint8_t *hi, size_t len) {
    tv_query *q = tv_q_new(d, TV_Q_RANGE_TERM);
    if (!q) return NULL;
    q->field = f;
    q->field_id = f->id;
    q->u.trange.lo = tv_arena_memdup(d->arena, lo, len);
    q->u.trange.hi = tv_arena_memdup(d->arena, hi, len);
    if (!q->u.trange.lo || !q->u.trange.hi) return NULL;
    q->u.trange.lo_len = q->u.trange.hi_len = (uint32_t)len;
    q->u.trange.lo_incl = q->u.trange.hi_incl = true;
    return q;
}

/* Exact-value query of one value on a field (fieldType.termQuery). */
static tv_status term_query_for(tv_dsl *d, const tv_field *f, const tv_json *v, tv_query **out) {
    *out = NULL;
    if (!f || f->type == TV_FT_OBJECT) {
        *out = none(d);
        return *out ? TROVE_OK : oom(d);
    }
    if (v->type == TV_JSON_NULL || v->type == TV_JSON_ARRAY || v->type == TV_JSON_OBJECT)
        return tv_dsl_error(d, TROVE_EARG, v->off, "value cannot be null");
    const char *s;
    size_t n;
    if (f->type == TV_FT_UNSIGNED_LONG) {
        unum u;
        tv_status st = unsigned_of(d, v, &u);
        if (st) return st;
        if (u.has_dec) { *out = none(d); return *out ? TROVE_OK : oom(d); }
        if (u.neg) return unsigned_out_of_range(d, v);
        int64_t sv = tv_unsigned_to_sortable(u.u);
        *out = num_range(d, f, sv, sv);
        return *out ? TROVE_OK : oom(d);
    }
    if (f->type == TV_FT_BINARY)
        return tv_dsl_error(d, TROVE_EQUERYSHARD, v->off, "Binary fields do not support searching");
    if (f->type == TV_FT_RANGE) /* RangeFieldType.termQuery: intersects [v, v] */
        return tv_dsl_range_field_query(d, f, v, true, v, true, TV_RANGE_INTERSECTS, NULL, 0, out);
    if (f->type == TV_FT_IP) {
        uint8_t ip[16], hi[16];
        if (v->type == TV_JSON_STRING && memchr(v->v.s, '/', v->len)) {
            if (!tv_ip_parse_cidr(v->v.s, v->len, ip, hi))
                return tv_dsl_error(d, TROVE_EARG, v->off, "Expected [ip/prefix] but was [%.*s]",
                                    (int)TV_MIN(v->len, 200), v->v.s);
            *out = term_range(d, f, ip, hi, 16);
            return *out ? TROVE_OK : oom(d);
        }
        tv_status st = ip_of(d, v, ip);
        if (st) return st;
        *out = tv_q_term(d, f, (const char *)ip, 16);
        if (*out) (*out)->u.term.constant = true;
        return *out ? TROVE_OK : oom(d);
    }
    if (tv_field_type_is_numeric(f->type)) {
        numval nv;
        tv_status st = number_of(d, v, &nv);
        if (st) return st;
        if (is_integer_type(f->type)) {
            int64_t lo, hi;
            int_bounds(f->type, &lo, &hi);
            if (!nv.is_int) {
                if (nv.d != floor(nv.d)) { *out = none(d); return *out ? TROVE_OK : oom(d); }
                if (nv.d < -9.2233720368547758e18 || nv.d >= 9.2233720368547758e18)
                    return tv_dsl_error(d, TROVE_EARG, v->off, "Value [%.*s] is out of range for a long",
                                        v->raw ? (int)TV_MIN(v->raw_len, 200u) : 1, v->raw ? v->raw : "?");
                nv.i = (int64_t)nv.d;
            }
            if (nv.i < lo || nv.i > hi) {
                const char *tn = f->type == TV_FT_INTEGER ? "an integer" : f->type == TV_FT_SHORT ? "a short" : f->type == TV_FT_BYTE ? "a byte" : "a long";
                tv_dsl_scalar_text(v, &s, &n);
                return tv_dsl_error(d, TROVE_EARG, v->off, "Value [%.*s] is out of range for %s", (int)n, s, tn);
            }
            *out = num_range(d, f, nv.i, nv.i);
        } else if (f->type == TV_FT_SCALED_FLOAT) {
            double sc = nv.d * f->scaling_factor;
            int64_t l = (int64_t)llround(sc);
            *out = num_range(d, f, l, l);
        } else {
            int64_t sv = tv_double_to_sortable(float_of_type(f->type, nv.d));
            *out = num_range(d, f, sv, sv);
        }
        return *out ? TROVE_OK : oom(d);
    }
    if (f->type == TV_FT_DATE || f->type == TV_FT_DATE_NANOS) {
        int64_t ms;
        tv_status st = date_of(d, f, v, NULL, false, 0, &ms);
        if (st) return st;
        *out = num_range(d, f, ms, ms);
        return *out ? TROVE_OK : oom(d);
    }
    if (f->type == TV_FT_BOOLEAN) {
        bool b;
        if (v->type == TV_JSON_TRUE) b = true;
        else if (v->type == TV_JSON_FALSE) b = false;
        else if (v->type == TV_JSON_STRING && tv_streq(v->v.s, v->len, "true")) b = true;
        else if (v->type == TV_JSON_STRING && (tv_streq(v->v.s, v->len, "false") || v->len == 0)) b = false;
        else {
            tv_dsl_scalar_text(v, &s, &n);
            return tv_dsl_error(d, TROVE_EARG, v->off,
                                "Can't parse boolean value [%.*s], expected [true] or [false]", (int)n, s);
        }
        *out = tv_q_term(d, f, b ? "T" : "F", 1);
        return *out ? TROVE_OK : oom(d);
    }
    if (!tv_dsl_scalar_text(v, &s, &n)) return tv_dsl_error(d, TROVE_EARG, v->off, "value cannot be null");
    if (f->type == TV_FT_KEYWORD && f->normalizer) {
        tv_tokens toks;
        tv_status st = tv_dsl_analyze(d, f, NULL, s, n, &toks);
        if (st) return st;
        if (toks.len == 1) { s = toks.items[0].term; n = toks.items[0].term_len; }
    }
    *out = tv_q_term(d, f, s, n);
    return *out ? TROVE_OK : oom(d);
}

/* --------------------------------------------------- match_all / _none */

tv_status tv_dsl_parse_match_all(tv_dsl *d, const tv_json *body, tv_query **out) {
    float boost = 1.0f;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (tv_streq(m->key, m->key_len, "boost")) {
            tv_status st = tv_dsl_float(d, "match_all", "boost", &m->val, &boost);
            if (st) return st;
        } else if (!tv_streq(m->key, m->key_len, "_name")) {
            return unknown_field_op(d, "match_all", m);
        }
    }
    tv_query *q = tv_q_new(d, TV_Q_MATCH_ALL);
    if (!q) return oom(d);
    q->boost = boost;
    *out = q;
    return TROVE_OK;
}

tv_status tv_dsl_parse_match_none(tv_dsl *d, const tv_json *body, tv_query **out) {
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (!tv_streq(m->key, m->key_len, "boost") && !tv_streq(m->key, m->key_len, "_name"))
            return unknown_field_op(d, "match_none", m);
    }
    *out = none(d);
    return *out ? TROVE_OK : oom(d);
}

/* ------------------------------------------------------ single-field form */

static void apply_boost(tv_query *q, float boost) {
    if (q && boost != 1.0f) q->boost *= boost;
}

/* BoolQueryBuilder.isClauseIrrelevantToScoring: term, terms and match on
 * a NumberFieldType (not date, boolean or scaled_float, which are other
 * field type classes) move from MUST to FILTER. */
static void mark_numeric(tv_query *q, const tv_field *f) {
    if (q && f && tv_field_type_is_numeric(f->type) && f->type != TV_FT_SCALED_FLOAT)
        q->flags |= TV_QF_SCORE_IRRELEVANT;
}

/* ------------------------------------------------------------------ term */

static tv_status terms_to_set(tv_dsl *d, const tv_field *f, uint32_t field_id, const tv_json *arr,
                              tv_query **out);

tv_status tv_dsl_parse_term(tv_dsl *d, const tv_json *body, tv_query **out) {
    const tv_json_member *fm = NULL;
    float boost = 1.0f;
    bool ci = false;
    const tv_json *value = NULL;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (m->val.type == TV_JSON_ARRAY)
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "[term] query does not support array of values");
        if (fm)
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off,
                                "[term] query doesn't support multiple fields, found [%s] and [%s]", fm->key, m->key);
        fm = m;
        if (m->val.type == TV_JSON_OBJECT) {
            for (uint32_t j = 0; j < m->val.len; j++) {
                const tv_json_member *o = &m->val.v.members[j];
                const char *k = o->key;
                size_t kl = o->key_len;
                tv_status st = TROVE_OK;
                if (tv_streq(k, kl, "value") || tv_streq(k, kl, "term")) value = &o->val;
                else if (tv_streq(k, kl, "boost")) st = tv_dsl_float(d, "term", "boost", &o->val, &boost);
                else if (tv_streq(k, kl, "case_insensitive")) st = tv_dsl_bool(d, "term", "case_insensitive", &o->val, &ci);
                else if (tv_streq(k, kl, "_name")) ;
                else st = tv_dsl_error(d, TROVE_EPARSE, o->val.off, "[term] query does not support [%s]", k);
                if (st) return st;
            }
        } else {
            value = &m->val;
        }
    }
    if (!fm) return tv_dsl_error(d, TROVE_EARG, body->off, "field name is null or empty");
    if (!value || value->type == TV_JSON_NULL) return tv_dsl_error(d, TROVE_EARG, body->off, "value cannot be null");
    const tv_field *f = tv_dsl_field(d, fm->key, fm->key_len);
    tv_query *q;
    tv_status st;
    if (!f && tv_streq(fm->key, fm->key_len, "_id") && !ci) {
        /* IdFieldMapper.termQuery is termsQuery of one id: a constant-score
         * TermInSetQuery over the reserved _id terms of every segment */
        tv_json one = {0};
        one.type = TV_JSON_ARRAY;
        one.len = 1;
        one.v.items = (tv_json *)value;
        st = terms_to_set(d, NULL, TV_FIELD_ID, &one, &q);
        if (st) return st;
        apply_boost(q, boost);
        *out = q;
        return TROVE_OK;
    }
    if (ci && f && (f->type == TV_FT_KEYWORD || f->type == TV_FT_TEXT)) {
        const char *s;
        size_t n;
        if (!tv_dsl_scalar_text(value, &s, &n)) return tv_dsl_error(d, TROVE_EARG, value->off, "value cannot be null");
        q = tv_q_new(d, TV_Q_MULTI_TERM);
        if (!q) return oom(d);
        q->field = f;
        q->field_id = f->id;
        char *lower = tv_arena_memdup(d->arena, s, n);
        if (!lower && n) return oom(d);
        for (size_t i = 0; i < n; i++)
            if (lower[i] >= 'A' && lower[i] <= 'Z') lower[i] = (char)(lower[i] - 'A' + 'a');
        q->u.multi.m.prefix = lower;
        q->u.multi.m.prefix_len = (uint32_t)n;
        q->u.multi.m.exact = true;
        q->u.multi.m.case_insensitive = true;
        st = TROVE_OK;
    } else {
        st = term_query_for(d, f, value, &q);
        if (st) return st;
    }
    apply_boost(q, boost);
    mark_numeric(q, f);
    *out = q;
    return TROVE_OK;
}

/* ----------------------------------------------------------------- terms */

static int qterm_cmp(const void *a, const void *b) {
    const tv_qterm *x = a, *y = b;
    return tv_memcmp2(x->term, x->len, y->term, y->len);
}

static tv_status terms_to_set(tv_dsl *d, const tv_field *f, uint32_t field_id, const tv_json *arr,
                              tv_query **out) {
    tv_qterm *ts = tv_arena_calloc(d->arena, arr->len ? arr->len : 1, sizeof *ts);
    if (!ts) return oom(d);
    uint32_t n = 0;
    for (uint32_t i = 0; i < arr->len; i++) {
        const tv_json *v = &arr->v.items[i];
        const char *s;
        size_t l;
        if (!tv_dsl_scalar_text(v, &s, &l)) {
            if (v->type == TV_JSON_NULL)
                return tv_dsl_error(d, TROVE_EPARSE, v->off, "No value specified for terms query");
            return tv_dsl_error(d, TROVE_EARG, v->off, "Unsupported value type");
        }
        if (f && f->type == TV_FT_KEYWORD && f->normalizer) {
            tv_tokens toks;
            tv_status st = tv_dsl_analyze(d, f, NULL, s, l, &toks);
            if (st) return st;
            if (toks.len == 1) { s = toks.items[0].term; l = toks.items[0].term_len; }
        }
        ts[n].term = s;
        ts[n].len = (uint32_t)l;
        n++;
    }
    qsort(ts, n, sizeof *ts, qterm_cmp);
    uint32_t w = 0;
    for (uint32_t i = 0; i < n; i++)
        if (w == 0 || qterm_cmp(&ts[w - 1], &ts[i]) != 0) ts[w++] = ts[i];
    if (w == 0) { *out = none(d); return *out ? TROVE_OK : oom(d); }
    tv_query *q = tv_q_new(d, TV_Q_TERM_SET);
    if (!q) return oom(d);
    q->field = f;
    q->field_id = field_id;
    q->u.set.terms = ts;
    q->u.set.nterms = w;
    *out = q;
    return TROVE_OK;
}

/* TermsLookup.parseTermsLookup (a ConstructingObjectParser): index and
 * path required, one of id and query. */
static tv_status parse_lookup(tv_dsl *d, const tv_json *o, tv_terms_lookup *l) {
    memset(l, 0, sizeof *l);
    bool has_index = false, has_path = false;
    for (uint32_t i = 0; i < o->len; i++) {
        const tv_json_member *m = &o->v.members[i];
        const tv_json *v = &m->val;
        const char **slot = tv_streq(m->key, m->key_len, "index")     ? &l->index
                            : tv_streq(m->key, m->key_len, "id")      ? &l->id
                            : tv_streq(m->key, m->key_len, "path")    ? &l->path
                            : tv_streq(m->key, m->key_len, "routing") ? &l->routing
                                                                      : NULL;
        if (slot) {
            const char *s;
            size_t n;
            if (v->type == TV_JSON_OBJECT || v->type == TV_JSON_ARRAY || v->type == TV_JSON_NULL ||
                !tv_dsl_scalar_text(v, &s, &n))
                return tv_dsl_error(d, TROVE_EXCONTENT, v->off, "[terms_lookup] %s doesn't support values of type: %s",
                                    m->key, tv_dsl_token_name(v));
            *slot = tv_arena_strndup(d->arena, s, n);
            if (!*slot) return oom(d);
            if (slot == &l->index) has_index = true;
            if (slot == &l->path) has_path = true;
        } else if (tv_streq(m->key, m->key_len, "store")) {
            tv_status st = tv_dsl_bool(d, "terms_lookup", "store", v, &l->store);
            if (st) return st;
        } else if (tv_streq(m->key, m->key_len, "query")) {
            if (v->type != TV_JSON_OBJECT)
                return tv_dsl_error(d, TROVE_EXCONTENT, v->off, "[terms_lookup] query doesn't support values of type: %s",
                                    tv_dsl_token_name(v));
            l->query = v;
        } else {
            return tv_dsl_error(d, TROVE_EXCONTENT, v->off, "[terms_lookup] unknown field [%s]", m->key);
        }
    }
    if (!has_index || !has_path)
        return tv_dsl_error(d, TROVE_EARG, o->off, "Required [%s%s%s]", has_index ? "" : "index",
                            !has_index && !has_path ? ", " : "", has_path ? "" : "path");
    if (!l->id && !l->query)
        return tv_dsl_error(d, TROVE_EARG, o->off,
                            "[terms] query lookup element requires specifying either the id or the query.");
    if (l->id && l->query)
        return tv_dsl_error(d, TROVE_EARG, o->off, "[terms] query lookup element cannot specify both id and query.");
    return TROVE_OK;
}

tv_status tv_dsl_parse_terms(tv_dsl *d, const tv_json *body, tv_query **out) {
    const tv_json_member *fm = NULL;
    const tv_json *lookup_obj = NULL, *value_type = NULL;
    float boost = 1.0f;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (m->val.type == TV_JSON_ARRAY) {
            if (fm) return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "[terms] query does not support multiple fields");
            fm = m;
        } else if (m->val.type == TV_JSON_OBJECT) {
            if (fm)
                return tv_dsl_error(d, TROVE_EPARSE, m->val.off,
                                    "[terms] query does not support more than one field. Already got: [%s] but also found [%s]",
                                    fm->key, m->key);
            fm = m;
            lookup_obj = &m->val;
        } else if (tv_streq(m->key, m->key_len, "boost")) {
            tv_status st = tv_dsl_float(d, "terms", "boost", &m->val, &boost);
            if (st) return st;
        } else if (tv_streq(m->key, m->key_len, "value_type")) {
            value_type = &m->val;
        } else if (tv_streq(m->key, m->key_len, "_name")) {
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "[terms] query does not support [%s]", m->key);
        }
    }
    if (!fm)
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "[terms] query requires a field name, followed by array of terms or a document lookup specification");
    tv_status st;
    tv_terms_lookup lk;
    if (lookup_obj && (st = parse_lookup(d, lookup_obj, &lk))) return st;
    /* ValueType.fromString (case-insensitive) */
    bool bitmap = false;
    if (value_type) {
        const char *s = "";
        size_t n = 0;
        tv_dsl_scalar_text(value_type, &s, &n);
        if (n == 6 && strncasecmp(s, "bitmap", 6) == 0) bitmap = true;
        else if (!(n == 7 && strncasecmp(s, "default", 7) == 0))
            return tv_dsl_error(d, TROVE_EARG, value_type->off, "%.*s is not valid value_type", (int)TV_MIN(n, 200), s);
    }
    if (bitmap && !lookup_obj && (fm->val.len != 1 || fm->val.v.items[0].type != TV_JSON_STRING))
        return tv_dsl_error(d, TROVE_EARG, fm->val.off,
                            "Invalid value for bitmap type: Expected a single-element array with a base64 encoded "
                            "serialized bitmap.");
    const tv_json *values = lookup_obj ? NULL : &fm->val;
    if (lookup_obj) {
        /* TermsQueryBuilder.doRewrite: the values fetched before the
         * query is built (the api layer reads the other index) */
        if (!d->lookup)
            return tv_dsl_error(d, TROVE_EUNSUPPORTED, lookup_obj->off, "[terms] lookup is not supported by trove");
        tv_json *vals = NULL;
        if ((st = d->lookup(d->lookup_ctx, &lk, d->arena, &vals, d->err))) return st;
        if (bitmap && lk.store && vals->len != 1)
            return tv_dsl_error(d, TROVE_EARG, lookup_obj->off,
                                "Invalid value for bitmap type: Expected a single base64 encoded serialized bitmap.");
        values = vals;
    }
    const tv_field *f = tv_dsl_field(d, fm->key, fm->key_len);
    tv_query *q = NULL;
    if (values->len == 0 || !f || f->type == TV_FT_OBJECT) {
        /* doRewrite: no values, or an unmapped field: match_none */
        if (values->len == 0 || !tv_streq(fm->key, fm->key_len, "_id")) {
            q = none(d);
            if (!q) return oom(d);
            q->boost *= boost;
            *out = q;
            return TROVE_OK;
        }
    }
    /* the bitmap's bytes: the inline value decoded by fromXContent, or a
     * stored (binary) field's bytes; a lookup of _source gives the base64
     * text itself, which the field then parses as a term */
    bool as_bitmap = bitmap && (!lookup_obj || lk.store);
    if (as_bitmap && f && !tv_field_type_is_numeric(f->type))
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, fm->val.off,
                            "[terms] query with [value_type] [bitmap] on a field of type [%s] is not supported by trove",
                            tv_field_declared_type(f));
    if (as_bitmap && values->len == 1 && values->v.items[0].type == TV_JSON_STRING && f) {
        /* NumberFieldType.bitmapQuery of the decoded bytes */
        const tv_json *b = &values->v.items[0];
        if ((st = tv_q_bitmap_base64(d, f, b->v.s, b->len, b->off, &q))) return st;
        apply_boost(q, boost);
        *out = q;
        return TROVE_OK;
    }
    if (values != &fm->val) {
        /* the fetched values stand where the array would */
        tv_json_member *nm = tv_arena_alloc(d->arena, sizeof *nm);
        if (!nm) return oom(d);
        *nm = *fm;
        nm->val = *values;
        fm = nm;
    }
    /* TermsQueryBuilder.doToQuery (an unmapped field was rewritten to
     * match_none first) */
    int64_t max_terms = d->max_terms > 0 ? d->max_terms : 65536;
    bool mapped = (f && f->type != TV_FT_OBJECT) || tv_streq(fm->key, fm->key_len, "_id");
    if (mapped && fm->val.len > max_terms) {
        tv_error_set(d->err, TROVE_EQUERYSHARD,
                     "failed to create query: The number of terms [%u] used in the Terms Query request has exceeded "
                     "the allowed maximum of [%lld]. This maximum can be set by changing the [index.max_terms_count] "
                     "index level setting.",
                     fm->val.len, (long long)max_terms);
        tv_error_cause(d->err, TROVE_EARG,
                       "The number of terms [%u] used in the Terms Query request has exceeded the allowed maximum of "
                       "[%lld]. This maximum can be set by changing the [index.max_terms_count] index level setting.",
                       fm->val.len, (long long)max_terms);
        if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
        return TROVE_EQUERYSHARD;
    }
    if (!f && tv_streq(fm->key, fm->key_len, "_id")) {
        st = terms_to_set(d, NULL, TV_FIELD_ID, &fm->val, &q);
        if (st) return st;
    } else if (!f || f->type == TV_FT_OBJECT) {
        q = none(d);
        if (!q) return oom(d);
    } else if (f->type == TV_FT_KEYWORD || f->type == TV_FT_TEXT) {
        st = terms_to_set(d, f, f->id, &fm->val, &q);
        if (st) return st;
    } else {
        /* numbers, dates, booleans: a constant-score union of exact values */
        const tv_json *arr = &fm->val;
        tv_query **subs = tv_arena_calloc(d->arena, arr->len ? arr->len : 1, sizeof *subs);
        if (!subs) return oom(d);
        for (uint32_t i = 0; i < arr->len; i++) {
            st = term_query_for(d, f, &arr->v.items[i], &subs[i]);
            if (st) return st;
        }
        tv_query *b = tv_q_bool(d, NULL, 0, subs, arr->len, 1);
        q = tv_q_new(d, TV_Q_CONST);
        if (!b || !q) return oom(d);
        q->u.cnst.inner = b;
    }
    apply_boost(q, boost);
    mark_numeric(q, f);
    *out = q;
    return TROVE_OK;
}

/* ----------------------------------------------------------------- match */

typedef enum { MT_BOOLEAN, MT_PHRASE, MT_PHRASE_PREFIX, MT_BOOL_PREFIX } match_type;

typedef struct match_opts {
    const tv_json *query;
    const tv_analyzer *analyzer;
    bool and_op;
    const tv_json *msm;
    bool zero_all;
    bool lenient;
    uint32_t slop;
    uint32_t max_expansions;
    float boost;
    /* fuzziness (MatchQuery.setFuzziness): the spec's text, NULL = none */
    const char *fuzziness;
    size_t fuzziness_len;
    int64_t prefix_length;
    bool transpositions;
    bool fuzzy_constant; /* fuzzy_rewrite constant_score* */
    bool auto_phrase;    /* auto_generate_synonyms_phrase_query (true) */
} match_opts;

static void match_opts_init(match_opts *o) {
    memset(o, 0, sizeof *o);
    o->max_expansions = 50;
    o->boost = 1.0f;
    o->transpositions = true;
    o->auto_phrase = true;
}

/* fuzziness: Fuzziness.parse accepts a number or a string ("AUTO",
 * "AUTO:3,6", "1"); a malformed one fails when the query is built. */
static tv_status match_fuzziness(tv_dsl *d, const char *qname, const tv_json *v, match_opts *o) {
    const char *fz;
    size_t fl;
    if (!tv_dsl_scalar_text(v, &fz, &fl) || v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE)
        return tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] failed to parse field [fuzziness]", qname);
    if (tv_fuzziness_distance(fz, fl, "abc", 3) < 0)
        return tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] failed to parse field [fuzziness]", qname);
    o->fuzziness = fz;
    o->fuzziness_len = fl;
    return TROVE_OK;
}

/* fuzzy_rewrite (QueryParsers.parseRewriteMethod): the default (null) and
 * top_terms_blended_freqs_N are FuzzyQuery's scoring rewrite (N terms),
 * constant_score* a constant-score union; the other methods score terms
 * in ways trove does not reproduce. */
static tv_status match_fuzzy_rewrite(tv_dsl *d, const char *qname, const tv_json *v, match_opts *o) {
    const char *r;
    size_t rl;
    if (v->type == TV_JSON_NULL) return TROVE_OK;
    tv_dsl_scalar_text(v, &r, &rl);
    if (rl >= 14 && memcmp(r, "constant_score", 14) == 0 &&
        (rl == 14 || tv_streq(r, rl, "constant_score_boolean") || tv_streq(r, rl, "constant_score_blended"))) {
        o->fuzzy_constant = true;
        return TROVE_OK;
    }
    if (rl > 24 && memcmp(r, "top_terms_blended_freqs_", 24) == 0) {
        int64_t nterms;
        if (tv_parse_i64(r + 24, rl - 24, &nterms) && nterms > 0 && nterms <= INT32_MAX) {
            o->max_expansions = (uint32_t)nterms;
            return TROVE_OK;
        }
    }
    return tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off, "[%s] fuzzy_rewrite [%.*s] is not supported by trove", qname,
                        (int)TV_MIN(rl, 200), r);
}

/* newTermQuery: a term query, or a fuzzy one when fuzziness is set. */
static tv_status match_term(tv_dsl *d, const tv_field *f, const match_opts *o, const char *t, size_t tl,
                            bool constant, tv_query **out) {
    if (o->fuzziness) {
        int edits = tv_fuzziness_distance(o->fuzziness, o->fuzziness_len, t, tl);
        if (edits < 0) edits = 0;
        tv_status st = tv_q_fuzzy_build(d, f, t, tl, edits, o->prefix_length, o->max_expansions, o->transpositions,
                                        o->fuzzy_constant, out);
        return st;
    }
    *out = tv_q_term(d, f, t, tl);
    if (!*out) return oom(d);
    (*out)->u.term.constant = constant;
    return TROVE_OK;
}

/* The prefix field's terms that extend the prefix by exactly `state`
 * code points (Automata.makeAnyChar per missing char). */
static bool prefix_pad_accept(const void *state, const char *term, size_t len) {
    size_t want = (size_t)(uintptr_t)state, ncp = 0;
    for (size_t i = 0; i < len; i++) ncp += ((unsigned char)term[i] & 0xC0) != 0x80;
    return ncp == want;
}

tv_status tv_dsl_index_prefix(tv_dsl *d, const tv_field *f, const char *p, size_t n, tv_query **out) {
    *out = NULL;
    const tv_field *pf = f ? f->prefix_field : NULL;
    if (!pf) return TROVE_OK;
    size_t len16 = tv_utf16_len(p, n);
    if (len16 + 1 < f->prefix_min || len16 > f->prefix_max) return TROVE_OK;
    char *copy = tv_arena_memdup(d->arena, p, n);
    if (!copy && n) return oom(d);
    tv_query *inner;
    if (len16 >= f->prefix_min) {
        inner = tv_q_term(d, pf, copy, n);
        if (!inner) return oom(d);
    } else {
        tv_query *a = tv_q_new(d, TV_Q_MULTI_TERM), *b = tv_q_term(d, f, copy, n);
        tv_query **sh = tv_arena_alloc(d->arena, 2 * sizeof *sh);
        if (!a || !b || !sh) return oom(d);
        a->field = pf;
        a->field_id = pf->id;
        a->u.multi.m.prefix = copy;
        a->u.multi.m.prefix_len = (uint32_t)n;
        size_t ncp = 0;
        for (size_t i = 0; i < n; i++) ncp += ((unsigned char)p[i] & 0xC0) != 0x80;
        a->u.multi.m.accept = prefix_pad_accept;
        a->u.multi.m.state = (const void *)(uintptr_t)(ncp + (f->prefix_min - len16));
        sh[0] = a;
        sh[1] = b;
        inner = tv_q_bool(d, NULL, 0, sh, 2, 0);
        if (!inner) return oom(d);
    }
    tv_query *c = tv_q_new(d, TV_Q_CONST);
    if (!c) return oom(d);
    c->u.cnst.inner = inner;
    *out = c;
    return TROVE_OK;
}

tv_status tv_dsl_index_phrase(tv_dsl *d, const tv_field *f, const tv_tokens *toks, uint32_t slop,
                              tv_query **out) {
    *out = NULL;
    if (!f || slop != 0 || toks->len < 2) return TROVE_OK;
    for (size_t i = 1; i < toks->len; i++) /* hasGaps (and no stacked tokens) */
        if (toks->items[i].position != toks->items[i - 1].position + 1) return TROVE_OK;
    /* index_phrases: 2-shingles on "._index_phrase"; search_as_you_type
     * (SearchAsYouTypeFieldType.phraseQuery): shingles on the sub-field of
     * shingleFieldForPositions(number of positions) */
    const tv_field *pf = f->phrase_field;
    uint32_t size = 2;
    if (f->sayt == 1 && f->nshingles) {
        uint32_t idx = (uint32_t)toks->len - 2;
        if (idx > (uint32_t)f->nshingles - 1) idx = f->nshingles - 1;
        pf = f->shingles[idx];
        size = idx + 2;
    }
    if (!pf) return TROVE_OK;
    uint32_t ns = (uint32_t)toks->len - size + 1;
    tv_qterm *ts = tv_arena_calloc(d->arena, ns, sizeof *ts);
    if (!ts) return oom(d);
    for (uint32_t i = 0; i < ns; i++) {
        size_t len = size - 1;
        for (uint32_t k = 0; k < size; k++) len += toks->items[i + k].term_len;
        char *t = tv_arena_alloc(d->arena, len + 1);
        if (!t) return oom(d);
        size_t o = 0;
        for (uint32_t k = 0; k < size; k++) {
            if (k) t[o++] = ' ';
            memcpy(t + o, toks->items[i + k].term, toks->items[i + k].term_len);
            o += toks->items[i + k].term_len;
        }
        t[o] = 0;
        ts[i].term = t;
        ts[i].len = (uint32_t)o;
        ts[i].pos = i;
    }
    if (ns == 1) { /* PhraseQuery.rewrite of one term */
        *out = tv_q_term(d, pf, ts[0].term, ts[0].len);
        return *out ? TROVE_OK : oom(d);
    }
    tv_query *q = tv_q_new(d, TV_Q_PHRASE);
    if (!q) return oom(d);
    q->field = pf;
    q->field_id = pf->id;
    q->u.phrase.terms = ts;
    q->u.phrase.nterms = ns;
    q->u.phrase.max_expansions = 50;
    *out = q;
    return TROVE_OK;
}

tv_status tv_dsl_index_phrase_prefix(tv_dsl *d, const tv_field *f, const tv_tokens *toks, uint32_t slop,
                                     uint32_t off, tv_query **out) {
    *out = NULL;
    const tv_field *pf = f ? f->prefix_field : NULL;
    if (!pf || slop != 0 || !toks->len) return TROVE_OK;
    if (f->sayt == 1) {
        /* SearchAsYouTypeFieldType.phrasePrefixQuery: one position is the
         * ordinary phrase prefix on the root; more go to a shingle
         * field's span query, not reproduced */
        if (toks->items[toks->len - 1].position == toks->items[0].position) return TROVE_OK;
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, off,
                            "[match_phrase_prefix] of several terms on [search_as_you_type] field [%s] is not supported by trove",
                            f->path);
    }
    uint32_t lastpos = toks->items[toks->len - 1].position;
    size_t first_last = toks->len - 1, nlast = 0;
    for (size_t i = toks->len; i-- > 0 && toks->items[i].position == lastpos;) {
        size_t l16 = tv_utf16_len(toks->items[i].term, toks->items[i].term_len);
        if (l16 < f->prefix_min || l16 > f->prefix_max) return TROVE_OK;
        first_last = i;
        nlast++;
    }
    if (first_last == 0 && nlast == 1) {
        *out = tv_q_term(d, pf, toks->items[0].term, toks->items[0].term_len);
        return *out ? TROVE_OK : oom(d);
    }
    return tv_dsl_error(d, TROVE_EUNSUPPORTED, off,
                        "[match_phrase_prefix] on field [%s] with [index_prefixes] is not supported by trove", f->path);
}

/* newPrefixQuery: fieldType.prefixQuery of an analyzed term (constant
 * score, the default rewrite). */
static tv_status match_prefix(tv_dsl *d, const tv_field *f, const char *t, size_t tl, tv_query **out) {
    tv_status ip = tv_dsl_index_prefix(d, f, t, tl, out);
    if (ip || *out) return ip;
    tv_status st = tv_dsl_expensive(d, "[prefix] queries", " For optimised prefix queries on text fields please enable [index_prefixes].");
    if (st) return st;
    tv_query *q = tv_q_new(d, TV_Q_MULTI_TERM);
    char *p = tv_arena_memdup(d->arena, t, tl);
    if (!q || (!p && tl)) return oom(d);
    q->field = f;
    q->field_id = f->id;
    q->u.multi.m.prefix = p;
    q->u.multi.m.prefix_len = (uint32_t)tl;
    *out = q;
    return TROVE_OK;
}

static tv_status zero_terms(tv_dsl *d, const match_opts *o, tv_query **out) {
    *out = tv_q_new(d, o->zero_all ? TV_Q_MATCH_ALL : TV_Q_MATCH_NONE);
    return *out ? TROVE_OK : oom(d);
}

/* MatchQuery.parse for one field: analysis -> TERM / BOOL / PHRASE. */
static tv_status build_match(tv_dsl *d, const tv_field *f, match_type type, const match_opts *o,
                             tv_query **out) {
    *out = NULL;
    if (!f || f->type == TV_FT_OBJECT) { *out = none(d); return *out ? TROVE_OK : oom(d); }
    const tv_json *v = o->query;
    bool textual = tv_field_type_is_text(f->type) || f->type == TV_FT_KEYWORD;
    if (!textual && o->fuzziness && (type == MT_BOOLEAN || type == MT_BOOL_PREFIX)) {
        /* MappedFieldType.fuzzyQuery on a field without terms */
        if (o->lenient) { *out = none(d); return *out ? TROVE_OK : oom(d); }
        return tv_dsl_error(d, TROVE_EQUERYSHARD, v->off,
                            "Can only use fuzzy queries on keyword and text fields - not on [%s] which is of type [%s]",
                            f->path, tv_field_declared_type(f));
    }
    if (f->type == TV_FT_MATCH_ONLY_TEXT && (type == MT_PHRASE || type == MT_PHRASE_PREFIX)) {
        /* SourceFieldMatchQuery: phrases verified against _source */
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off,
                            "[%s] queries on a [match_only_text] field are not supported by trove",
                            type == MT_PHRASE ? "match_phrase" : "match_phrase_prefix");
    }
    if (!textual) {
        /* numbers, dates, booleans: an exact-value query, not analyzed */
        if (type == MT_PHRASE_PREFIX && tv_field_type_is_numeric(f->type) == false && f->type != TV_FT_BOOLEAN && f->type != TV_FT_DATE) {
            *out = none(d);
            return *out ? TROVE_OK : oom(d);
        }
        tv_status st = term_query_for(d, f, v, out);
        if (st && o->lenient) {
            tv_error_clear(d->err);
            *out = none(d);
            return *out ? TROVE_OK : oom(d);
        }
        return st;
    }
    const char *s;
    size_t n;
    if (!tv_dsl_scalar_text(v, &s, &n)) return tv_dsl_error(d, TROVE_EPARSE, v->off, "No text specified for text query");
    if (f->type == TV_FT_KEYWORD && !o->analyzer && type != MT_PHRASE_PREFIX && type != MT_BOOL_PREFIX &&
        !o->fuzziness) {
        /* the keyword analyzer: fieldType.termQuery of the whole value */
        return term_query_for(d, f, v, out);
    }
    tv_tokens toks;
    tv_status st = tv_dsl_analyze(d, f, o->analyzer, s, n, &toks);
    if (st) return st;
    if (toks.len == 0) return zero_terms(d, o, out);
    bool constant = f->type == TV_FT_KEYWORD;
    bool stacked = false, graph = toks.len > 1 && tv_tokens_are_graph(&toks, &stacked);
    if (toks.len > 1 && (graph || stacked) && !constant) {
        /* synonyms: QueryBuilder's analyzeMultiBoolean / analyzeGraphBoolean
         * / analyzeGraphPhrase (dsl_synonym.c) */
        if (type == MT_BOOL_PREFIX || (type == MT_BOOLEAN && o->fuzziness))
            return tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off,
                                "[%s] over synonyms (several terms at one position) is not supported by trove",
                                type == MT_BOOL_PREFIX ? "match_bool_prefix" : "fuzzy match");
        if (type == MT_BOOLEAN) {
            tv_query **cl;
            uint32_t nc;
            if ((st = tv_dsl_token_clauses(d, f, &toks, o->auto_phrase, &cl, &nc))) return st;
            if (nc == 1 && !graph) { *out = cl[0]; return TROVE_OK; }
            int32_t msm = 0;
            if (o->and_op) {
                *out = tv_q_bool(d, cl, nc, NULL, 0, 0);
            } else {
                if ((st = tv_dsl_msm(d, o->msm, (int32_t)nc, &msm))) return st;
                *out = tv_q_bool(d, NULL, 0, cl, nc, msm);
            }
            return *out ? TROVE_OK : oom(d);
        }
        if (graph && type == MT_PHRASE) return tv_dsl_graph_phrase(d, f, &toks, o->slop, out);
        if (graph)
            return tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off,
                                "[match_phrase_prefix] over a token graph (multi-word synonyms) is not supported by trove");
        /* stacked phrases: the phrase below takes alternatives per position
         * (MultiPhraseQuery) */
    }
    if (type == MT_BOOL_PREFIX || (type == MT_BOOLEAN && o->fuzziness)) {
        /* analyzeTerm / analyzeMultiBoolean: every term a term (or fuzzy)
         * query, the last a prefix query when the text ends with it (its
         * end offset is the stream's final offset) */
        bool last_prefix = type == MT_BOOL_PREFIX && (f->type == TV_FT_KEYWORD || toks.items[toks.len - 1].end == n);
        tv_query **cl = tv_arena_calloc(d->arena, toks.len, sizeof *cl);
        if (!cl) return oom(d);
        for (size_t i = 0; i < toks.len; i++) {
            const tv_token *t = &toks.items[i];
            if (i == toks.len - 1 && last_prefix) st = match_prefix(d, f, t->term, t->term_len, &cl[i]);
            else st = match_term(d, f, o, t->term, t->term_len, constant, &cl[i]);
            if (st) return st;
        }
        if (toks.len == 1) { *out = cl[0]; return TROVE_OK; }
        tv_query *b;
        if (o->and_op) {
            b = tv_q_bool(d, cl, (uint32_t)toks.len, NULL, 0, 0);
        } else {
            int32_t msm = 0;
            if ((st = tv_dsl_msm(d, o->msm, (int32_t)toks.len, &msm))) return st;
            b = tv_q_bool(d, NULL, 0, cl, (uint32_t)toks.len, msm);
        }
        *out = b;
        return b ? TROVE_OK : oom(d);
    }
    if (type == MT_BOOLEAN) {
        if (toks.len == 1) {
            *out = tv_q_term(d, f, toks.items[0].term, toks.items[0].term_len);
            if (*out) (*out)->u.term.constant = constant;
            return *out ? TROVE_OK : oom(d);
        }
        tv_query **cl = tv_arena_calloc(d->arena, toks.len, sizeof *cl);
        if (!cl) return oom(d);
        for (size_t i = 0; i < toks.len; i++) {
            cl[i] = tv_q_term(d, f, toks.items[i].term, toks.items[i].term_len);
            if (!cl[i]) return oom(d);
            cl[i]->u.term.constant = constant;
        }
        int32_t msm = 0;
        tv_query *b;
        if (o->and_op) {
            b = tv_q_bool(d, cl, (uint32_t)toks.len, NULL, 0, 0);
        } else {
            st = tv_dsl_msm(d, o->msm, (int32_t)toks.len, &msm);
            if (st) return st;
            b = tv_q_bool(d, NULL, 0, cl, (uint32_t)toks.len, msm);
        }
        if (!b) return oom(d);
        *out = b;
        return TROVE_OK;
    }
    /* phrase / phrase_prefix */
    if (toks.len == 1 && type == MT_PHRASE) {
        *out = tv_q_term(d, f, toks.items[0].term, toks.items[0].term_len);
        if (*out) (*out)->u.term.constant = constant;
        return *out ? TROVE_OK : oom(d);
    }
    if (type == MT_PHRASE && (f->phrase_field || f->sayt == 1)) {
        if ((st = tv_dsl_index_phrase(d, f, &toks, o->slop, out)) || *out) return st;
    }
    if (type == MT_PHRASE_PREFIX && f->prefix_field) {
        if ((st = tv_dsl_index_phrase_prefix(d, f, &toks, o->slop, v->off, out)) || *out) return st;
    }
    tv_query *q = tv_q_new(d, type == MT_PHRASE ? TV_Q_PHRASE : TV_Q_PHRASE_PREFIX);
    tv_qterm *ts = tv_arena_calloc(d->arena, toks.len, sizeof *ts);
    if (!q || !ts) return oom(d);
    uint32_t base = toks.items[0].position;
    for (size_t i = 0; i < toks.len; i++) {
        ts[i].term = toks.items[i].term;
        ts[i].len = toks.items[i].term_len;
        ts[i].pos = toks.items[i].position - base;
    }
    q->field = f;
    q->field_id = f->id;
    q->u.phrase.terms = ts;
    q->u.phrase.nterms = (uint32_t)toks.len;
    q->u.phrase.slop = o->slop;
    q->u.phrase.max_expansions = o->max_expansions;
    *out = q;
    return TROVE_OK;
}

static tv_status parse_match_common(tv_dsl *d, const char *qname, match_type type,
                                    const tv_json *body, tv_query **out) {
    const tv_json_member *fm = NULL;
    match_opts o;
    match_opts_init(&o);
    const tv_json *max_exp = NULL, *prefix_len = NULL;
    bool boolish = type == MT_BOOLEAN || type == MT_BOOL_PREFIX;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (fm)
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off,
                                "[%s] query doesn't support multiple fields, found [%s] and [%s]", qname,
                                fm->key, m->key);
        fm = m;
        if (m->val.type == TV_JSON_ARRAY)
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "[%s] unknown token [START_ARRAY] after [%s]", qname, m->key);
        if (m->val.type != TV_JSON_OBJECT) { o.query = &m->val; continue; }
        for (uint32_t j = 0; j < m->val.len; j++) {
            const tv_json_member *p = &m->val.v.members[j];
            const char *k = p->key;
            size_t kl = p->key_len;
            const tv_json *v = &p->val;
            tv_status st = TROVE_OK;
            if (v->type == TV_JSON_OBJECT || v->type == TV_JSON_ARRAY) {
                if (tv_streq(k, kl, "query") && v->type == TV_JSON_ARRAY) o.query = v;
                else return tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] unknown token [%s] after [%s]", qname, tv_dsl_token_name(v), k);
                continue;
            }
            if (tv_streq(k, kl, "query")) o.query = v;
            else if (tv_streq(k, kl, "analyzer")) {
                const char *an;
                size_t al;
                if (!tv_dsl_scalar_text(v, &an, &al)) return tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] failed to parse field [analyzer]", qname);
                /* the index's analyzers, then the built-ins */
                const tv_analyzer *a = tv_mapping_analyzer(d->mapping, an, al);
                if (!a) /* checked by doToQuery on the shard */
                    return tv_error_set(d->err, TROVE_EQUERYSHARD, "[%s] analyzer [%.*s] not found", qname, (int)al, an);
                o.analyzer = a;
            } else if (tv_streq(k, kl, "boost")) st = tv_dsl_float(d, qname, "boost", v, &o.boost);
            else if (tv_streq(k, kl, "_name")) ;
            else if (boolish && tv_streq(k, kl, "operator")) {
                const char *op;
                size_t ol;
                tv_dsl_scalar_text(v, &op, &ol);
                if (ol == 3 && strncasecmp(op, "and", 3) == 0) o.and_op = true;
                else if (ol == 2 && strncasecmp(op, "or", 2) == 0) o.and_op = false;
                else return tv_dsl_error(d, TROVE_EARG, v->off, "operator needs to be either [AND, OR], but not [%.*s]", (int)ol, op);
            } else if (boolish && tv_streq(k, kl, "minimum_should_match")) o.msm = v;
            else if (type != MT_BOOL_PREFIX && tv_streq(k, kl, "zero_terms_query")) {
                const char *z;
                size_t zl;
                tv_dsl_scalar_text(v, &z, &zl);
                if (zl == 4 && strncasecmp(z, "none", 4) == 0) o.zero_all = false;
                else if (zl == 3 && strncasecmp(z, "all", 3) == 0) o.zero_all = true;
                else return tv_dsl_error(d, TROVE_EPARSE, v->off, "Unsupported zero_terms_query value [%.*s]", (int)zl, z);
            } else if (type == MT_BOOLEAN && tv_streq(k, kl, "lenient")) st = tv_dsl_bool(d, qname, "lenient", v, &o.lenient);
            else if (!boolish && tv_streq(k, kl, "slop")) {
                int64_t sl;
                st = tv_dsl_int(d, qname, "slop", v, &sl);
                if (!st && sl < 0) return tv_dsl_error(d, TROVE_EARG, v->off, "No negative slop allowed.");
                o.slop = (uint32_t)TV_MIN(sl, (int64_t)INT32_MAX);
            } else if ((type == MT_PHRASE_PREFIX || boolish) && tv_streq(k, kl, "max_expansions")) {
                int64_t me;
                st = tv_dsl_int(d, qname, "max_expansions", v, &me);
                o.max_expansions = (uint32_t)TV_MAX(0, TV_MIN(me, (int64_t)INT32_MAX));
                max_exp = v;
            } else if (boolish && tv_streq(k, kl, "fuzziness")) {
                st = match_fuzziness(d, qname, v, &o);
            } else if (boolish && tv_streq(k, kl, "prefix_length")) {
                st = tv_dsl_int(d, qname, "prefix_length", v, &o.prefix_length);
                prefix_len = v;
            } else if (boolish && tv_streq(k, kl, "fuzzy_transpositions")) {
                st = tv_dsl_bool(d, qname, "fuzzy_transpositions", v, &o.transpositions);
            } else if (boolish && tv_streq(k, kl, "fuzzy_rewrite")) {
                st = match_fuzzy_rewrite(d, qname, v, &o);
            } else if (type == MT_BOOLEAN && tv_streq(k, kl, "auto_generate_synonyms_phrase_query")) {
                st = tv_dsl_bool(d, qname, "auto_generate_synonyms_phrase_query", v, &o.auto_phrase);
            }
            else return tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] query does not support [%s]", qname, k);
            if (st) return st;
        }
    }
    if (!fm) return tv_dsl_error(d, TROVE_EARG, body->off, "[%s] requires fieldName", qname);
    if (type == MT_BOOL_PREFIX && (!o.query || o.query->type == TV_JSON_NULL))
        return tv_dsl_error(d, TROVE_EARG, body->off, "[%s] requires query value", qname);
    if (!o.query || o.query->type == TV_JSON_NULL)
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "No text specified for text query");
    /* the builders' setters */
    if (boolish && prefix_len && o.prefix_length < 0)
        return tv_dsl_error(d, TROVE_EARG, prefix_len->off, "[%s] requires prefix length to be non-negative.", qname);
    if (boolish && max_exp && o.max_expansions == 0)
        return tv_dsl_error(d, TROVE_EARG, max_exp->off, "[%s] requires maxExpansions to be positive.", qname);
    if (o.query->type == TV_JSON_ARRAY)
        return tv_dsl_error(d, TROVE_EPARSE, o.query->off, "[%s] unknown token [START_ARRAY] after [query]", qname);
    const tv_field *f = tv_dsl_field(d, fm->key, fm->key_len);
    tv_query *q;
    tv_status st = build_match(d, f, type, &o, &q);
    if (st) return st;
    apply_boost(q, o.boost);
    if (type == MT_BOOLEAN) mark_numeric(q, f);
    *out = q;
    return TROVE_OK;
}

tv_status tv_dsl_parse_match_bool_prefix(tv_dsl *d, const tv_json *body, tv_query **out) {
    return parse_match_common(d, "match_bool_prefix", MT_BOOL_PREFIX, body, out);
}

tv_status tv_dsl_parse_match(tv_dsl *d, const tv_json *body, tv_query **out) {
    return parse_match_common(d, "match", MT_BOOLEAN, body, out);
}
tv_status tv_dsl_parse_match_phrase(tv_dsl *d, const tv_json *body, tv_query **out) {
    return parse_match_common(d, "match_phrase", MT_PHRASE, body, out);
}
tv_status tv_dsl_parse_match_phrase_prefix(tv_dsl *d, const tv_json *body, tv_query **out) {
    return parse_match_common(d, "match_phrase_prefix", MT_PHRASE_PREFIX, body, out);
}

/* ----------------------------------------------------------- multi_match */

typedef struct fboost {
    const tv_field *f;
    float boost;
} fboost;

static tv_status add_field_spec(tv_dsl *d, const tv_json *v, fboost **fs, uint32_t *n, uint32_t *cap,
                                bool *any_wild) {
    if (v->type != TV_JSON_STRING)
        return tv_dsl_error(d, TROVE_EPARSE, v->off, "[multi_match] query does not support [fields]");
    const char *s = v->v.s;
    size_t len = v->len;
    float boost = 1.0f;
    const char *caret = memchr(s, '^', len);
    if (caret) {
        char tmp[64];
        size_t bl = len - (size_t)(caret - s) - 1;
        if (bl == 0 || bl >= sizeof tmp) return tv_dsl_error(d, TROVE_ENUMBERFORMAT, v->off, "empty String");
        memcpy(tmp, caret + 1, bl);
        tmp[bl] = 0;
        char *end;
        boost = strtof(tmp, &end);
        if (*end) return tv_dsl_error(d, TROVE_ENUMBERFORMAT, v->off, "For input string: \"%s\"", tmp);
        len = (size_t)(caret - s);
    }
    const tv_field *one[1];
    const tv_field **list = one;
    size_t cnt = 0;
    if (memchr(s, '*', len)) {
        *any_wild = true;
        if (!d->mapping) return TROVE_OK;
        cnt = tv_mapping_match_fields(d->mapping, s, len, NULL, 0);
        if (cnt) {
            list = tv_arena_alloc(d->arena, cnt * sizeof *list);
            if (!list) return oom(d);
            tv_mapping_match_fields(d->mapping, s, len, list, cnt);
        }
    } else {
        one[0] = tv_dsl_field(d, s, len);
        cnt = one[0] ? 1 : 0;
    }
    for (size_t i = 0; i < cnt; i++) {
        const tv_field *f = list[i];
        if (!f || f->type == TV_FT_OBJECT) continue;
        if (*any_wild && !tv_field_type_is_text(f->type) && f->type != TV_FT_KEYWORD && memchr(s, '*', len)) continue;
        /* OpenSearch merges duplicate fields, multiplying boosts */
        bool dup = false;
        for (uint32_t j = 0; j < *n; j++)
            if ((*fs)[j].f == f) { (*fs)[j].boost *= boost; dup = true; }
        if (dup) continue;
        if (*n == *cap) {
            uint32_t nc = *cap ? *cap * 2 : 8;
            fboost *nf = tv_arena_alloc(d->arena, nc * sizeof *nf);
            if (!nf) return oom(d);
            if (*n) memcpy(nf, *fs, *n * sizeof *nf);
            *fs = nf;
            *cap = nc;
        }
        (*fs)[*n].f = f;
        (*fs)[*n].boost = boost;
        (*n)++;
    }
    return TROVE_OK;
}

tv_status tv_dsl_parse_multi_match(tv_dsl *d, const tv_json *body, tv_query **out) {
    match_opts o;
    match_opts_init(&o);
    const tv_json *fields = NULL, *typev = NULL;
    float tie = 0.0f;
    bool tie_set = false, slop_set = false;
    const tv_json *cutoff = NULL, *fuzz = NULL, *max_exp = NULL, *prefix_len = NULL, *frewrite = NULL;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *p = &body->v.members[i];
        const char *k = p->key;
        size_t kl = p->key_len;
        const tv_json *v = &p->val;
        tv_status st = TROVE_OK;
        if (tv_streq(k, kl, "query")) o.query = v;
        else if (tv_streq(k, kl, "fields")) fields = v;
        else if (v->type == TV_JSON_OBJECT || v->type == TV_JSON_ARRAY)
            return tv_dsl_error(d, TROVE_EPARSE, v->off, "[multi_match] query does not support [%s]", k);
        else if (tv_streq(k, kl, "type")) typev = v;
        else if (tv_streq(k, kl, "analyzer")) {
            const char *an;
            size_t al;
            tv_dsl_scalar_text(v, &an, &al);
            o.analyzer = tv_mapping_analyzer(d->mapping, an, al);
            if (!o.analyzer)
                return tv_error_set(d->err, TROVE_EQUERYSHARD, "[multi_match] analyzer [%.*s] not found", (int)al, an);
        } else if (tv_streq(k, kl, "boost")) st = tv_dsl_float(d, "multi_match", "boost", v, &o.boost);
        else if (tv_streq(k, kl, "operator")) {
            const char *op;
            size_t ol;
            tv_dsl_scalar_text(v, &op, &ol);
            if (ol == 3 && strncasecmp(op, "and", 3) == 0) o.and_op = true;
            else if (ol == 2 && strncasecmp(op, "or", 2) == 0) o.and_op = false;
            else return tv_dsl_error(d, TROVE_EARG, v->off, "operator needs to be either [AND, OR], but not [%.*s]", (int)ol, op);
        } else if (tv_streq(k, kl, "minimum_should_match")) o.msm = v;
        else if (tv_streq(k, kl, "tie_breaker")) { st = tv_dsl_float(d, "multi_match", "tie_breaker", v, &tie); tie_set = true; }
        else if (tv_streq(k, kl, "lenient")) st = tv_dsl_bool(d, "multi_match", "lenient", v, &o.lenient);
        else if (tv_streq(k, kl, "slop")) {
            int64_t sl;
            st = tv_dsl_int(d, "multi_match", "slop", v, &sl);
            o.slop = (uint32_t)TV_MAX(0, TV_MIN(sl, (int64_t)INT32_MAX));
            slop_set = sl != 0; /* DEFAULT_PHRASE_SLOP */
        } else if (tv_streq(k, kl, "max_expansions")) {
            int64_t me;
            st = tv_dsl_int(d, "multi_match", "max_expansions", v, &me);
            o.max_expansions = (uint32_t)TV_MAX(0, TV_MIN(me, (int64_t)INT32_MAX));
            max_exp = v;
        } else if (tv_streq(k, kl, "cutoff_frequency")) {
            float cf;
            st = tv_dsl_float(d, "multi_match", "cutoff_frequency", v, &cf);
            cutoff = v;
        } else if (tv_streq(k, kl, "zero_terms_query")) {
            const char *z;
            size_t zl;
            tv_dsl_scalar_text(v, &z, &zl);
            if (zl == 3 && strncasecmp(z, "all", 3) == 0) o.zero_all = true;
            else if (!(zl == 4 && strncasecmp(z, "none", 4) == 0))
                return tv_dsl_error(d, TROVE_EPARSE, v->off, "Unsupported zero_terms_query value [%.*s]", (int)zl, z);
        } else if (tv_streq(k, kl, "fuzziness")) {
            st = match_fuzziness(d, "multi_match", v, &o);
            fuzz = v;
        } else if (tv_streq(k, kl, "prefix_length")) {
            st = tv_dsl_int(d, "multi_match", "prefix_length", v, &o.prefix_length);
            prefix_len = v;
        } else if (tv_streq(k, kl, "fuzzy_transpositions")) {
            st = tv_dsl_bool(d, "multi_match", "fuzzy_transpositions", v, &o.transpositions);
        } else if (tv_streq(k, kl, "fuzzy_rewrite")) {
            frewrite = v;
        } else if (tv_streq(k, kl, "auto_generate_synonyms_phrase_query")) {
            st = tv_dsl_bool(d, "multi_match", "auto_generate_synonyms_phrase_query", v, &o.auto_phrase);
        } else if (tv_streq(k, kl, "_name") || tv_streq(k, kl, "rewrite")) ;
        else return tv_dsl_error(d, TROVE_EPARSE, v->off, "[multi_match] query does not support [%s]", k);
        if (st) return st;
    }
    if (!o.query || o.query->type == TV_JSON_NULL)
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "No text specified for multi_match query");
    if (o.query->type == TV_JSON_OBJECT || o.query->type == TV_JSON_ARRAY)
        return tv_dsl_error(d, TROVE_EPARSE, o.query->off, "[multi_match] unknown token [%s] after [query]", tv_dsl_token_name(o.query));
    match_type mt = MT_BOOLEAN;
    bool most = false;
    if (typev) {
        const char *t;
        size_t tl;
        tv_dsl_scalar_text(typev, &t, &tl);
        if (tv_streq(t, tl, "best_fields") || tv_streq(t, tl, "boolean")) mt = MT_BOOLEAN;
        else if (tv_streq(t, tl, "most_fields")) most = true;
        else if (tv_streq(t, tl, "phrase")) mt = MT_PHRASE;
        else if (tv_streq(t, tl, "phrase_prefix")) mt = MT_PHRASE_PREFIX;
        else if (tv_streq(t, tl, "bool_prefix")) mt = MT_BOOL_PREFIX;
        else if (tv_streq(t, tl, "cross_fields"))
            return tv_dsl_error(d, TROVE_EUNSUPPORTED, typev->off, "[multi_match] type [%.*s] is not supported by trove", (int)tl, t);
        else /* MultiMatchQueryBuilder.Type.parse: OpenSearchParseException */
            return tv_error_set(d->err, TROVE_EPARSEEXC, "failed to parse [multi_match] query type [%.*s]. unknown type.",
                                (int)tl, t);
    }
    /* fromXContent's checks after the object, then the setters' */
    if (fuzz && (mt == MT_PHRASE || mt == MT_PHRASE_PREFIX))
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "Fuzziness not allowed for type [%s]",
                            mt == MT_PHRASE ? "phrase" : "phrase_prefix");
    if (slop_set && mt == MT_BOOL_PREFIX)
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "[slop] not allowed for type [bool_prefix]");
    if (cutoff && mt == MT_BOOL_PREFIX)
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "[cutoff_frequency] not allowed for type [bool_prefix]");
    if (cutoff) /* ExtendedCommonTermsQuery */
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, cutoff->off, "[multi_match] cutoff_frequency is not supported by trove");
    if (prefix_len && o.prefix_length < 0)
        return tv_dsl_error(d, TROVE_EARG, prefix_len->off, "[multi_match] requires prefix length to be non-negative.");
    if (max_exp && o.max_expansions == 0)
        return tv_dsl_error(d, TROVE_EARG, max_exp->off, "[multi_match] requires maxExpansions to be positive.");
    if (frewrite) {
        tv_status fst = match_fuzzy_rewrite(d, "multi_match", frewrite, &o);
        if (fst) return fst;
    }
    fboost *fs = NULL;
    uint32_t nf = 0, cap = 0;
    bool wild = false;
    tv_status st = TROVE_OK;
    if (!fields) {
        /* index.query.default_field "*": every text/keyword field, leniently */
        tv_json star = {0};
        star.type = TV_JSON_STRING;
        star.v.s = "*";
        star.len = 1;
        st = add_field_spec(d, &star, &fs, &nf, &cap, &wild);
        o.lenient = true;
    } else if (fields->type == TV_JSON_STRING) {
        st = add_field_spec(d, fields, &fs, &nf, &cap, &wild);
    } else if (fields->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < fields->len && !st; i++) st = add_field_spec(d, &fields->v.items[i], &fs, &nf, &cap, &wild);
    } else {
        return tv_dsl_error(d, TROVE_EPARSE, fields->off, "[multi_match] query does not support [fields]");
    }
    if (st) return st;
    if (nf == 0) { *out = none(d); return *out ? TROVE_OK : oom(d); }
    tv_query **subs = tv_arena_calloc(d->arena, nf, sizeof *subs);
    if (!subs) return oom(d);
    for (uint32_t i = 0; i < nf; i++) {
        st = build_match(d, fs[i].f, mt, &o, &subs[i]);
        if (st) return st;
        apply_boost(subs[i], fs[i].boost);
    }
    tv_query *q;
    if (nf == 1) q = subs[0];
    else if (most) {
        q = tv_q_bool(d, NULL, 0, subs, nf, 0);
        if (!q) return oom(d);
    } else {
        q = tv_q_new(d, TV_Q_DISMAX);
        if (!q) return oom(d);
        q->u.dismax.subs = subs;
        q->u.dismax.nsubs = nf;
        q->u.dismax.tie_breaker = tie_set ? tie : 0.0f;
    }
    apply_boost(q, o.boost);
    *out = q;
    return TROVE_OK;
}

/* ---------------------------------------------------------------- prefix */

tv_status tv_dsl_parse_prefix(tv_dsl *d, const tv_json *body, tv_query **out) {
    const tv_json_member *fm = NULL;
    const tv_json *value = NULL;
    float boost = 1.0f;
    bool ci = false;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (fm)
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off,
                                "[prefix] query doesn't support multiple fields, found [%s] and [%s]", fm->key, m->key);
        fm = m;
        if (m->val.type == TV_JSON_OBJECT) {
            for (uint32_t j = 0; j < m->val.len; j++) {
                const tv_json_member *o = &m->val.v.members[j];
                tv_status st = TROVE_OK;
                if (tv_streq(o->key, o->key_len, "value") || tv_streq(o->key, o->key_len, "prefix")) value = &o->val;
                else if (tv_streq(o->key, o->key_len, "boost")) st = tv_dsl_float(d, "prefix", "boost", &o->val, &boost);
                else if (tv_streq(o->key, o->key_len, "case_insensitive")) st = tv_dsl_bool(d, "prefix", "case_insensitive", &o->val, &ci);
                else if (tv_streq(o->key, o->key_len, "_name") || tv_streq(o->key, o->key_len, "rewrite")) ;
                else st = tv_dsl_error(d, TROVE_EPARSE, o->val.off, "[prefix] query does not support [%s]", o->key);
                if (st) return st;
            }
        } else {
            value = &m->val;
        }
    }
    if (!fm) return tv_dsl_error(d, TROVE_EARG, body->off, "field name is null or empty");
    const char *s;
    size_t n;
    if (!value || !tv_dsl_scalar_text(value, &s, &n))
        return tv_dsl_error(d, TROVE_EARG, body->off, "value cannot be null");
    if (ci) return tv_dsl_error(d, TROVE_EUNSUPPORTED, value->off, "[prefix] case_insensitive is not supported by trove");
    const tv_field *f = tv_dsl_field(d, fm->key, fm->key_len);
    tv_query *q;
    if (!f || (!tv_field_type_is_text(f->type) && f->type != TV_FT_KEYWORD)) {
        if (f && f->type != TV_FT_OBJECT)
            return tv_dsl_error(d, TROVE_EQUERYSHARD, value->off,
                                "Can only use prefix queries on keyword and text fields - not on [%s] which is of type [%s]",
                                f->path, tv_field_type_name(f->type));
        q = none(d);
        if (!q) return oom(d);
    } else {
        tv_status ist = tv_dsl_index_prefix(d, f, s, n, &q);
        if (ist) return ist;
    }
    if (!q) {
        tv_status est = tv_dsl_expensive(d, "[prefix] queries", " For optimised prefix queries on text fields please enable [index_prefixes].");
        if (est) return est;
        q = tv_q_new(d, TV_Q_MULTI_TERM);
        char *p = tv_arena_memdup(d->arena, s, n);
        if (!q || (!p && n)) return oom(d);
        q->field = f;
        q->field_id = f->id;
        q->u.multi.m.prefix = p;
        q->u.multi.m.prefix_len = (uint32_t)n;
    }
    apply_boost(q, boost);
    *out = q;
    return TROVE_OK;
}

/* ----------------------------------------------------------------- range */

static tv_status num_bound(tv_dsl *d, const tv_field *f, const tv_json *v, bool is_lower, bool incl,
                           int64_t *out, bool *empty) {
    numval nv;
    tv_status st = number_of(d, v, &nv);
    if (st) return st;
    tv_field_type t = f->type;
    if (t == TV_FT_UNSIGNED_LONG) {
        /* UNSIGNED_LONG.rangeQuery: a positive fraction rounds a lower bound
         * up and an exclusive integer bound steps; negative bounds clamp */
        unum u;
        if ((st = unsigned_of(d, v, &u))) return st;
        if (is_lower) {
            if (u.neg) { *out = INT64_MIN; return TROVE_OK; }
            if ((!u.has_dec && !incl) || u.has_dec) {
                if (u.u == UINT64_MAX) { *empty = true; return TROVE_OK; }
                u.u++;
            }
        } else {
            if (u.neg) { *empty = true; return TROVE_OK; }
            if (!u.has_dec && !incl) {
                if (u.u == 0) { *empty = true; return TROVE_OK; }
                u.u--;
            }
        }
        *out = tv_unsigned_to_sortable(u.u);
        return TROVE_OK;
    }
    if (is_integer_type(t) || t == TV_FT_SCALED_FLOAT) {
        double x = nv.d;
        if (t == TV_FT_SCALED_FLOAT) {
            /* OpenSearch: scaled = value * factor, then the long-range
             * rounding below (ceil/floor by inclusivity) */
            x = nv.d * f->scaling_factor;
            nv.is_int = false;
        }
        int64_t lo, hi;
        int_bounds(t, &lo, &hi);
        int64_t l;
        bool has_dec;
        if (nv.is_int) { l = nv.i; has_dec = false; }
        else {
            if (x >= 9.2233720368547758e18) { l = INT64_MAX; has_dec = false; }
            else if (x < -9.2233720368547758e18) { l = INT64_MIN; has_dec = false; }
            else { l = (int64_t)x; has_dec = x != (double)l; }
        }
        if (is_lower) {
            if ((!has_dec && !incl) || (has_dec && x > 0)) {
                if (l == INT64_MAX) { *empty = true; return TROVE_OK; }
                l++;
            }
        } else {
            if ((!has_dec && !incl) || (has_dec && x < 0)) {
                if (l == INT64_MIN) { *empty = true; return TROVE_OK; }
                l--;
            }
        }
        if (t != TV_FT_SCALED_FLOAT) {
            if (l < lo) l = is_lower ? lo : lo - 1;
            if (l > hi) l = is_lower ? hi + 1 : hi;
        }
        *out = l;
        return TROVE_OK;
    }
    /* floating types: nextUp / nextDown in the field's precision */
    double x = float_of_type(t, nv.d);
    if (!incl) {
        if (t == TV_FT_DOUBLE) x = is_lower ? nextafter(x, INFINITY) : nextafter(x, -INFINITY);
        else if (t == TV_FT_FLOAT) x = (double)(is_lower ? nextafterf((float)x, INFINITY) : nextafterf((float)x, -INFINITY));
        else {
            /* half_float: step by one half-precision ulp */
            float fx = (float)x;
            float up = fx, step = fx;
            for (int k = 0; k < 2048; k++) {
                step = is_lower ? nextafterf(step, INFINITY) : nextafterf(step, -INFINITY);
                up = to_half(step);
                if (up != fx) break;
            }
            x = (double)up;
        }
    }
    *out = tv_double_to_sortable(x);
    return TROVE_OK;
}

/* A range over a points field (numbers, dates): RANGE_NUM, or MATCH_NONE
 * when empty. from/to NULL: open. */
static tv_status points_range(tv_dsl *d, const tv_field *f, const tv_json *from, bool incl_lo,
                              const tv_json *to, bool incl_hi, const char *fmt, int32_t tz,
                              tv_query **out) {
    tv_status st;
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    *out = NULL;
    if (f->type == TV_FT_DATE || f->type == TV_FT_DATE_NANOS) {
        if (from) {
            if ((st = date_of(d, f, from, fmt, !incl_lo, tz, &lo))) return st;
            if (!incl_lo) { if (lo == INT64_MAX) goto empty; lo++; }
        }
        if (to) {
            if ((st = date_of(d, f, to, fmt, incl_hi, tz, &hi))) return st;
            if (!incl_hi) { if (hi == INT64_MIN) goto empty; hi--; }
        }
    } else {
        bool is_empty = false;
        if (tv_field_type_is_floating(f->type)) {
            lo = tv_double_to_sortable(-INFINITY);
            hi = tv_double_to_sortable(INFINITY);
        }
        if (from && (st = num_bound(d, f, from, true, incl_lo, &lo, &is_empty))) return st;
        if (to && (st = num_bound(d, f, to, false, incl_hi, &hi, &is_empty))) return st;
        if (is_empty) goto empty;
    }
    *out = num_range(d, f, lo, hi);
    if (*out) (*out)->flags |= TV_QF_RANGE | TV_QF_SCORE_IRRELEVANT;
    return *out ? TROVE_OK : oom(d);
empty:
    *out = none(d);
    if (*out) (*out)->flags |= TV_QF_RANGE | TV_QF_SCORE_IRRELEVANT;
    return *out ? TROVE_OK : oom(d);
}

tv_status tv_dsl_parse_range(tv_dsl *d, const tv_json *body, tv_query **out) {
    const tv_json_member *fm = NULL;
    float boost = 1.0f;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (m->val.type != TV_JSON_OBJECT) {
            if (tv_streq(m->key, m->key_len, "boost")) {
                tv_status st = tv_dsl_float(d, "range", "boost", &m->val, &boost);
                if (st) return st;
                continue;
            }
            if (tv_streq(m->key, m->key_len, "_name")) continue;
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "[range] query does not support [%s]", m->key);
        }
        if (fm)
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off,
                                "[range] query doesn't support multiple fields, found [%s] and [%s]", fm->key, m->key);
        fm = m;
    }
    if (!fm) return tv_dsl_error(d, TROVE_EARG, body->off, "field name is null or empty");
    const tv_json *from = NULL, *to = NULL, *format = NULL;
    bool incl_lo = true, incl_hi = true;
    int32_t tz = 0;
    tv_range_rel rel = TV_RANGE_INTERSECTS;
    for (uint32_t j = 0; j < fm->val.len; j++) {
        const tv_json_member *o = &fm->val.v.members[j];
        const char *k = o->key;
        size_t kl = o->key_len;
        const tv_json *v = &o->val;
        tv_status st = TROVE_OK;
        if (v->type == TV_JSON_OBJECT || v->type == TV_JSON_ARRAY)
            return tv_dsl_error(d, TROVE_EPARSE, v->off, "[range] query does not support [%s]", k);
        if (tv_streq(k, kl, "from")) from = v;
        else if (tv_streq(k, kl, "to")) to = v;
        else if (tv_streq(k, kl, "include_lower")) st = tv_dsl_bool(d, "range", k, v, &incl_lo);
        else if (tv_streq(k, kl, "include_upper")) st = tv_dsl_bool(d, "range", k, v, &incl_hi);
        else if (tv_streq(k, kl, "gt")) { from = v; incl_lo = false; }
        else if (tv_streq(k, kl, "gte")) { from = v; incl_lo = true; }
        else if (tv_streq(k, kl, "lt")) { to = v; incl_hi = false; }
        else if (tv_streq(k, kl, "lte")) { to = v; incl_hi = true; }
        else if (tv_streq(k, kl, "boost")) st = tv_dsl_float(d, "range", "boost", v, &boost);
        else if (tv_streq(k, kl, "format")) format = v;
        else if (tv_streq(k, kl, "time_zone")) {
            const char *z;
            size_t zl;
            tv_dsl_scalar_text(v, &z, &zl);
            st = tv_date_parse_tz(z, zl, &tz, d->err);
            if (st && d->err) d->err->pos = v->off;
        } else if (tv_streq(k, kl, "relation")) {
            /* RangeQueryBuilder.relation (ShapeRelation.getRelationByName) */
            const char *r;
            size_t rl;
            tv_dsl_scalar_text(v, &r, &rl);
            char low[16];
            size_t i = 0;
            for (; i < rl && i < sizeof low - 1; i++) low[i] = (char)(r[i] >= 'A' && r[i] <= 'Z' ? r[i] + 32 : r[i]);
            low[i] = 0;
            if (rl < sizeof low && !strcmp(low, "intersects")) rel = TV_RANGE_INTERSECTS;
            else if (rl < sizeof low && !strcmp(low, "contains")) rel = TV_RANGE_CONTAINS;
            else if (rl < sizeof low && !strcmp(low, "within")) rel = TV_RANGE_WITHIN;
            else if (rl < sizeof low && !strcmp(low, "disjoint"))
                return tv_dsl_error(d, TROVE_EARG, v->off, "[range] query does not support relation [disjoint]");
            else return tv_dsl_error(d, TROVE_EARG, v->off, "%.*s is not a valid relation", (int)TV_MIN(rl, 200), r);
        } else if (tv_streq(k, kl, "_name")) ;
        else return tv_dsl_error(d, TROVE_EPARSE, v->off, "[range] query does not support [%s]", k);
        if (st) return st;
    }
    if (from && from->type == TV_JSON_NULL) from = NULL;
    if (to && to->type == TV_JSON_NULL) to = NULL;
    const tv_field *f = tv_dsl_field(d, fm->key, fm->key_len);
    tv_query *q = NULL;
    tv_status st;
    const char *fmt = NULL;
    if (format) {
        const char *s;
        size_t n;
        tv_dsl_scalar_text(format, &s, &n);
        fmt = tv_arena_strndup(d->arena, s, n);
    }
    if (!f || f->type == TV_FT_OBJECT) {
        q = none(d);
    } else if (f->type == TV_FT_RANGE) {
        if ((st = tv_dsl_range_field_query(d, f, from, incl_lo, to, incl_hi, rel, fmt, tz, &q))) return st;
    } else if (f->type == TV_FT_BINARY) {
        return tv_dsl_error(d, TROVE_EARG, body->off, "Field [%s] of type [binary] does not support range queries", f->path);
    } else if (f->type == TV_FT_IP) {
        /* IpFieldMapper.rangeQuery: exclusive bounds step to the next
         * address; lower > upper matches nothing */
        uint8_t lo[16], hi[16];
        memset(lo, 0, 16);
        memset(hi, 0xff, 16);
        bool empty = false;
        if (from) {
            if ((st = ip_of(d, from, lo))) return st;
            if (!incl_lo) {
                int k = 15;
                while (k >= 0 && lo[k] == 0xff) lo[k--] = 0;
                if (k < 0) empty = true; else lo[k]++;
            }
        }
        if (to) {
            if ((st = ip_of(d, to, hi))) return st;
            if (!incl_hi) {
                int k = 15;
                while (k >= 0 && hi[k] == 0) hi[k--] = 0xff;
                if (k < 0) empty = true; else hi[k]--;
            }
        }
        if (empty || memcmp(lo, hi, 16) > 0) q = none(d);
        else q = term_range(d, f, lo, hi, 16);
    } else if (tv_field_type_is_numeric(f->type) || f->type == TV_FT_DATE || f->type == TV_FT_DATE_NANOS) {
        if ((st = points_range(d, f, from, incl_lo, to, incl_hi, fmt, tz, &q))) return st;
        /* RangeQueryBuilder.getComplement, for a must_not rewrite (dsl.c):
         * below = (.., from] with the opposite inclusivity, above likewise */
        tv_query *c = NULL;
        if (from) {
            if ((st = points_range(d, f, NULL, true, from, !incl_lo, fmt, tz, &c))) return st;
            q->complement[q->ncomplement++] = c;
        }
        if (to) {
            if ((st = points_range(d, f, to, !incl_hi, NULL, true, fmt, tz, &c))) return st;
            q->complement[q->ncomplement++] = c;
        }
        if (q->kind == TV_Q_MATCH_NONE) q->field = f; /* keeps the field for that rewrite */
    } else if (f->type == TV_FT_BOOLEAN) {
        /* false < true: a range over 0/1 on the terms F/T */
        int lo = 0, hi = 1;
        bool b;
        if (from) {
            if (term_query_for(d, f, from, &q)) return d->err ? d->err->code : TROVE_EARG;
            b = q->u.term.term[0] == 'T';
            lo = incl_lo ? b : b + 1;
        }
        if (to) {
            if (term_query_for(d, f, to, &q)) return d->err ? d->err->code : TROVE_EARG;
            b = q->u.term.term[0] == 'T';
            hi = incl_hi ? b : b - 1;
        }
        if (lo > hi) q = none(d);
        else if (lo == hi) q = tv_q_term(d, f, lo ? "T" : "F", 1);
        else {
            q = tv_q_new(d, TV_Q_RANGE_TERM);
            if (q) { q->field = f; q->field_id = f->id; q->u.trange.lo_incl = q->u.trange.hi_incl = true; }
        }
        if (q && q->kind == TV_Q_TERM) {
            tv_query *c = tv_q_new(d, TV_Q_CONST);
            if (c) c->u.cnst.inner = q;
            q = c;
        }
    } else {
        if (tv_field_type_is_text(f->type) || f->type == TV_FT_KEYWORD) {
            /* StringFieldType.rangeQuery (not ip, not constant_keyword) */
            if ((st = tv_dsl_expensive(d, "[range] queries on [text] or [keyword] fields", ""))) return st;
        }
        q = tv_q_new(d, TV_Q_RANGE_TERM);
        if (!q) return oom(d);
        q->field = f;
        q->field_id = f->id;
        const char *s;
        size_t n;
        if (from) {
            if (!tv_dsl_scalar_text(from, &s, &n)) return tv_dsl_error(d, TROVE_EPARSE, from->off, "[range] query does not support [from]");
            q->u.trange.lo = s;
            q->u.trange.lo_len = (uint32_t)n;
        }
        if (to) {
            if (!tv_dsl_scalar_text(to, &s, &n)) return tv_dsl_error(d, TROVE_EPARSE, to->off, "[range] query does not support [to]");
            q->u.trange.hi = s;
            q->u.trange.hi_len = (uint32_t)n;
        }
        q->u.trange.lo_incl = incl_lo;
        q->u.trange.hi_incl = incl_hi;
    }
    if (!q) return oom(d);
    apply_boost(q, boost);
    /* BoolQueryBuilder.isClauseIrrelevantToScoring: any range */
    q->flags |= TV_QF_RANGE | TV_QF_SCORE_IRRELEVANT;
    *out = q;
    return TROVE_OK;
}

/* ---------------------------------------------------------------- exists */

/*
 * exists on a metadata field (OpenSearch's metadata mappers): every document
 * has an _id, _index, _seq_no, _version and _primary_term, so those match
 * all (live) documents; _routing matches the documents indexed with a
 * routing (read from each doc's stored metadata: trove keeps no _routing
 * postings); _source is not searchable. *out stays NULL for other names.
 * The same per-document read of the metadata makes the shard filter of a
 * routed search (tv_q_shard_pick; ext.state is its tv_shard_pick).
 */
static tv_status meta_plan(tv_query *q, const tv_segview *sv, struct tv_plan_ctx *ctx, tv_iter **out) {
    *out = NULL;
    const tv_shard_pick *pick = q->u.ext.state;
    tv_bitset bs;
    uint32_t nbits = sv->max_doc ? sv->max_doc : 1;
    bs.nbits = nbits;
    bs.words = tv_arena_calloc(ctx->arena, (nbits + 63) / 64, sizeof *bs.words);
    if (!bs.words) return TROVE_ENOMEM;
    bool any = false;
    for (uint32_t doc = 0; doc < sv->max_doc; doc++) {
        if (!tv_segview_live(sv, doc)) continue;
        tv_doc_meta meta;
        memset(&meta, 0, sizeof meta);
        tv_status st = tv_segment_doc(sv->seg, doc, ctx->arena, &meta, NULL, NULL);
        if (st) return st;
        bool in = pick ? pick->keep(pick->ud, meta.id, meta.id_len, meta.routing, meta.routing_len)
                       : meta.routing != NULL;
        if (in) { tv_bitset_set(&bs, doc); any = true; }
    }
    if (!any) return TROVE_OK;
    *out = tv_iter_bitset(ctx->arena, &bs, sv->max_doc, ctx->scores ? q->score_boost : 0.0f);
    return *out ? TROVE_OK : TROVE_ENOMEM;
}

tv_query *tv_q_shard_pick(tv_dsl *d, const tv_shard_pick *pick) {
    tv_query *q = tv_q_new(d, TV_Q_EXT);
    if (!q) return NULL;
    q->u.ext.plan = meta_plan;
    q->u.ext.state = (void *)pick;
    return q;
}

static tv_status exists_metadata(tv_dsl *d, const char *s, size_t n, const tv_json *fv, tv_query **out) {
    *out = NULL;
    if (tv_streq(s, n, "_source"))
        return tv_dsl_error(d, TROVE_EQUERYSHARD, fv->off, "The _source field is not searchable");
    if (tv_streq(s, n, "_id") || tv_streq(s, n, "_index") || tv_streq(s, n, "_seq_no") ||
        tv_streq(s, n, "_version") || tv_streq(s, n, "_primary_term")) {
        tv_query *all = tv_q_new(d, TV_Q_MATCH_ALL);
        if (!all) return oom(d);
        *out = all;
        return TROVE_OK;
    }
    if (tv_streq(s, n, "_routing")) {
        tv_query *q = tv_q_new(d, TV_Q_EXT);
        if (!q) return oom(d);
        q->u.ext.plan = meta_plan;
        *out = q;
    }
    return TROVE_OK;
}

tv_status tv_dsl_parse_exists(tv_dsl *d, const tv_json *body, tv_query **out) {
    const tv_json *fv = NULL;
    float boost = 1.0f;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        tv_status st = TROVE_OK;
        if (m->val.type == TV_JSON_OBJECT || m->val.type == TV_JSON_ARRAY)
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "[exists] unknown token [%s] after [%s]", tv_dsl_token_name(&m->val), m->key);
        if (tv_streq(m->key, m->key_len, "field")) fv = &m->val;
        else if (tv_streq(m->key, m->key_len, "boost")) st = tv_dsl_float(d, "exists", "boost", &m->val, &boost);
        else if (tv_streq(m->key, m->key_len, "_name")) ;
        else st = tv_dsl_error(d, TROVE_EPARSE, m->val.off, "[exists] query does not support [%s]", m->key);
        if (st) return st;
    }
    const char *s;
    size_t n;
    if (!fv || !tv_dsl_scalar_text(fv, &s, &n))
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "[exists] must be provided with a [field]");
    const tv_field *f = tv_dsl_field(d, s, n);
    tv_query *q = NULL;
    if (!f && n > 1 && s[0] == '_') {
        tv_status st = exists_metadata(d, s, n, fv, &q);
        if (st) return st;
    }
    if (q) {
        /* a metadata field (above) */
    } else if (f && f->type != TV_FT_OBJECT) {
        q = tv_q_new(d, TV_Q_EXISTS);
        if (q) { q->field = f; q->field_id = f->id; }
    } else if (d->mapping) {
        /* an object (or a wildcard): any of the leaf fields under it */
        char *pat = tv_arena_sprintf(d->arena, "%.*s%s", (int)n, s, memchr(s, '*', n) ? "" : ".*");
        if (!pat) return oom(d);
        size_t cnt = tv_mapping_match_fields(d->mapping, pat, strlen(pat), NULL, 0);
        const tv_field **fl = cnt ? tv_arena_alloc(d->arena, cnt * sizeof *fl) : NULL;
        if (cnt && !fl) return oom(d);
        if (cnt) tv_mapping_match_fields(d->mapping, pat, strlen(pat), fl, cnt);
        tv_query **subs = cnt ? tv_arena_calloc(d->arena, cnt, sizeof *subs) : NULL;
        uint32_t ns = 0;
        for (size_t i = 0; i < cnt; i++) {
            if (!fl[i] || fl[i]->type == TV_FT_OBJECT) continue;
            tv_query *e = tv_q_new(d, TV_Q_EXISTS);
            if (!e || !subs) return oom(d);
            e->field = fl[i];
            e->field_id = fl[i]->id;
            subs[ns++] = e;
        }
        if (ns == 0) q = none(d);
        else if (ns == 1) q = subs[0];
        else {
            tv_query *b = tv_q_bool(d, NULL, 0, subs, ns, 1);
            q = tv_q_new(d, TV_Q_CONST);
            if (q) q->u.cnst.inner = b;
        }
    } else {
        q = none(d);
    }
    if (!q) return oom(d);
    apply_boost(q, boost);
    *out = q;
    return TROVE_OK;
}

/* ------------------------------------------------------------------- ids */

tv_status tv_dsl_parse_ids(tv_dsl *d, const tv_json *body, tv_query **out) {
    const tv_json *vals = NULL;
    float boost = 1.0f;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        tv_status st = TROVE_OK;
        if (tv_streq(m->key, m->key_len, "values")) {
            if (m->val.type != TV_JSON_ARRAY) {
                uint32_t l = 0, c = 0;
                if (d->src) tv_json_linecol(d->src, d->src_len, m->val.off, &l, &c);
                return tv_dsl_error(d, TROVE_EXCONTENT, m->val.off, "[%u:%u] [ids] values doesn't support values of type: %s", l, c, tv_dsl_token_name(&m->val));
            }
            vals = &m->val;
        } else if (tv_streq(m->key, m->key_len, "boost")) st = tv_dsl_float(d, "ids", "boost", &m->val, &boost);
        else if (tv_streq(m->key, m->key_len, "_name")) ;
        else return unknown_field_op(d, "ids", m);
        if (st) return st;
    }
    tv_query *q;
    if (!vals || vals->len == 0) {
        q = none(d);
        if (!q) return oom(d);
    } else {
        tv_status st = terms_to_set(d, NULL, TV_FIELD_ID, vals, &q);
        if (st) return st;
    }
    apply_boost(q, boost);
    *out = q;
    return TROVE_OK;
}

/* ---------------------------------------------------------- compound ones */

tv_status tv_dsl_parse_constant_score(tv_dsl *d, const tv_json *body, tv_query **out) {
    const tv_json *filter = NULL;
    float boost = 1.0f;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        tv_status st = TROVE_OK;
        if (m->val.type == TV_JSON_OBJECT) {
            if (tv_streq(m->key, m->key_len, "filter")) filter = &m->val;
            else return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "[constant_score] query does not support [%s]", m->key);
        } else if (m->val.type == TV_JSON_ARRAY) {
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "unexpected token [START_ARRAY]");
        } else if (tv_streq(m->key, m->key_len, "boost")) st = tv_dsl_float(d, "constant_score", "boost", &m->val, &boost);
        else if (tv_streq(m->key, m->key_len, "_name")) ;
        else return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "[constant_score] query does not support [%s]", m->key);
        if (st) return st;
    }
    if (!filter) return tv_dsl_error(d, TROVE_EPARSE, body->off, "[constant_score] requires a 'filter' element");
    tv_query *inner;
    tv_status st = tv_dsl_parse_filter(d, filter, &inner);
    if (st) return st;
    tv_query *q = tv_q_new(d, TV_Q_CONST);
    if (!q) return oom(d);
    q->u.cnst.inner = inner;
    q->boost = boost;
    *out = q;
    return TROVE_OK;
}

tv_status tv_dsl_parse_dis_max(tv_dsl *d, const tv_json *body, tv_query **out) {
    float boost = 1.0f, tie = 0.0f;
    TV_VEC(tv_query *) subs = {0};
    bool found = false;
    tv_status st = TROVE_OK;
    for (uint32_t i = 0; i < body->len && !st; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        if (tv_streq(m->key, m->key_len, "queries") && (v->type == TV_JSON_OBJECT || v->type == TV_JSON_ARRAY)) {
            found = true;
            uint32_t n = v->type == TV_JSON_OBJECT ? 1 : v->len;
            for (uint32_t j = 0; j < n && !st; j++) {
                const tv_json *e = v->type == TV_JSON_OBJECT ? v : &v->v.items[j];
                tv_query *q;
                st = tv_dsl_parse_query(d, e, &q);
                if (!st && tv_vec_push(&subs, q)) st = oom(d);
            }
        } else if (v->type == TV_JSON_OBJECT || v->type == TV_JSON_ARRAY) {
            st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[dis_max] query does not support [%s]", m->key);
        } else if (tv_streq(m->key, m->key_len, "boost")) st = tv_dsl_float(d, "dis_max", "boost", v, &boost);
        else if (tv_streq(m->key, m->key_len, "tie_breaker")) st = tv_dsl_float(d, "dis_max", "tie_breaker", v, &tie);
        else if (tv_streq(m->key, m->key_len, "_name")) ;
        else st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[dis_max] query does not support [%s]", m->key);
    }
    if (!st && !found) st = tv_dsl_error(d, TROVE_EPARSE, body->off, "[dis_max] requires 'queries' field with at least one clause");
    tv_query *q = NULL;
    if (!st) {
        if (subs.len == 0) q = none(d);
        else {
            q = tv_q_new(d, TV_Q_DISMAX);
            tv_query **a = tv_arena_alloc(d->arena, subs.len * sizeof *a);
            if (q && a) {
                memcpy(a, subs.items, subs.len * sizeof *a);
                q->u.dismax.subs = a;
                q->u.dismax.nsubs = (uint32_t)subs.len;
                q->u.dismax.tie_breaker = tie;
            } else q = NULL;
        }
        if (!q) st = oom(d);
        else q->boost *= boost;
    }
    tv_vec_fini(&subs);
    if (!st) *out = q;
    return st;
}

tv_status tv_dsl_parse_boosting(tv_dsl *d, const tv_json *body, tv_query **out) {
    tv_query *pos = NULL, *neg = NULL;
    float nb = -1.0f, boost = 1.0f;
    bool nb_set = false;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        tv_status st = TROVE_OK;
        if (v->type == TV_JSON_OBJECT) {
            if (tv_streq(m->key, m->key_len, "positive")) st = tv_dsl_parse_query(d, v, &pos);
            else if (tv_streq(m->key, m->key_len, "negative")) st = tv_dsl_parse_query(d, v, &neg);
            else st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[boosting] query does not support [%s]", m->key);
        } else if (tv_streq(m->key, m->key_len, "negative_boost")) { st = tv_dsl_float(d, "boosting", "negative_boost", v, &nb); nb_set = true; }
        else if (tv_streq(m->key, m->key_len, "boost")) st = tv_dsl_float(d, "boosting", "boost", v, &boost);
        else if (tv_streq(m->key, m->key_len, "_name")) ;
        else st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[boosting] query does not support [%s]", m->key);
        if (st) return st;
    }
    if (!pos) return tv_dsl_error(d, TROVE_EPARSE, body->off, "[boosting] query requires 'positive' query");
    if (!neg) return tv_dsl_error(d, TROVE_EPARSE, body->off, "[boosting] query requires 'negative' query");
    if (!nb_set || nb < 0)
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "[boosting] query requires 'negative_boost' to be set to be a positive value'");
    tv_query *q = tv_q_new(d, TV_Q_BOOSTING);
    if (!q) return oom(d);
    q->u.boosting.positive = pos;
    q->u.boosting.negative = neg;
    q->u.boosting.negative_boost = nb;
    q->boost = boost;
    *out = q;
    return TROVE_OK;
}
