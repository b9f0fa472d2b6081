/*
 * dsl_range_field.c — term and range queries on range fields
 * (integer_range ... ip_range), RangeFieldMapper.RangeFieldType's
 * termQuery and rangeQuery with the range query's `relation`.
 *
 * The query's bounds are parsed in the field's bound type (RangeType's
 * rangeQuery: dates with date math, never rounded up, in the query's time
 * zone and format; an exclusive bound moves to the next value inside), and
 * the query becomes a TV_Q_MULTI_TERM whose matcher decodes each term of
 * the field (one per stored range, index/range.c) and keeps it when it
 * stands in the relation to the query's range: intersects (the default,
 * and what a term query asks with [v, v]), contains or within. The
 * planner unions the postings of the accepted terms as a constant-score
 * query, as Lucene's RangeFieldQuery scores (boost). A document with
 * several ranges matches when any one does.
 *
 * Rejected: planning a doc-values scan (a new iterator in exec.c for one
 * field family) — enumerating the field's terms visits each distinct
 * range once per segment, which is the cost of Lucene's points visit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "index/date.h"
#include "query/parse.h"
#include "query/query.h"

typedef struct rf_state {
    uint8_t q[32]; /* the query range: lower then upper, w bytes each */
    size_t w;
    tv_range_rel rel;
} rf_state;

static bool rf_accept(const void *state, const char *term, size_t len) {
    const rf_state *s = state;
    return len == 2 * s->w && tv_range_relation((const uint8_t *)term, s->q, s->w, s->rel);
}

/* One bound of the query in the field's bound type; *bound gets its
 * encoding. */
static tv_status rf_bound(tv_dsl *d, const tv_field *f, const tv_json *v, const char *fmt, int32_t tz,
                          uint8_t *bound) {
    tv_field_type rt = f->range_type;
    const char *s;
    size_t n;
    if (!tv_dsl_scalar_text(v, &s, &n)) return tv_dsl_error(d, TROVE_EARG, v->off, "value cannot be null");
    if (rt == TV_FT_IP) {
        uint8_t ip[16];
        if (!tv_ip_parse(s, n, ip))
            return tv_dsl_error(d, TROVE_EARG, v->off, "'%.*s' is not an IP string literal.", (int)TV_MIN(n, 200), s);
        tv_range_encode_bound(rt, 0, ip, bound);
        return TROVE_OK;
    }
    int64_t x;
    if (rt == TV_FT_DATE) {
        tv_status st = tv_date_math_ex(fmt ? fmt : f->format, s, n, tv_now_ms(), false, tz, &x, d->err);
        if (st) {
            if (d->err) d->err->pos = v->off;
            return st;
        }
    } else {
        char tmp[64], *end;
        if (n == 0 || n >= sizeof tmp)
            return tv_dsl_error(d, TROVE_ENUMBERFORMAT, v->off, "For input string: \"%.*s\"", (int)TV_MIN(n, 200), s);
        memcpy(tmp, s, n);
        tmp[n] = 0;
        double dv = strtod(tmp, &end);
        if (*end || isnan(dv))
            return tv_dsl_error(d, TROVE_ENUMBERFORMAT, v->off, "For input string: \"%s\"", tmp);
        if (rt == TV_FT_INTEGER || rt == TV_FT_LONG) {
            /* NumberType.parse(value, coerce=false) */
            if (dv != floor(dv))
                return tv_dsl_error(d, TROVE_EARG, v->off, "Value [%s] has a decimal part", tmp);
            double lo = rt == TV_FT_INTEGER ? -2147483648.0 : -9223372036854775808.0;
            double hi = rt == TV_FT_INTEGER ? 2147483647.0 : 9223372036854775807.0;
            if (dv < lo || dv > hi)
                return tv_dsl_error(d, TROVE_EARG, v->off, "Value [%s] is out of range for %s", tmp,
                                    rt == TV_FT_INTEGER ? "an integer" : "a long");
            int64_t iv;
            x = v->type == TV_JSON_INT ? v->v.i : tv_parse_i64(tmp, n, &iv) ? iv : (int64_t)dv;
        } else if (rt == TV_FT_FLOAT) {
            x = tv_double_to_sortable((double)(float)dv);
        } else {
            x = tv_double_to_sortable(dv);
        }
    }
    tv_range_encode_bound(rt, x, NULL, bound);
    return TROVE_OK;
}

/* IP addresses one up or down (InetAddressPoint.nextUp/nextDown). */
static void ip_step(uint8_t *ip, bool up) {
    for (int i = 15; i >= 0; i--) {
        if (up ? ip[i] != 0xFF : ip[i] != 0) {
            ip[i] = (uint8_t)(up ? ip[i] + 1 : ip[i] - 1);
            for (int j = i + 1; j < 16; j++) ip[j] = up ? 0 : 0xFF;
            return;
        }
    }
}

tv_status tv_dsl_range_field_query(tv_dsl *d, const tv_field *f, const tv_json *from, bool incl_lo,
                                   const tv_json *to, bool incl_hi, tv_range_rel rel, const char *fmt, int32_t tz,
                                   tv_query **out) {
    *out = NULL;
    if (!f->index)
        return tv_dsl_error(d, TROVE_EARG, from ? from->off : to ? to->off : 0,
                            "Cannot search on field [%s] since it is not indexed.", f->path);
    rf_state *s = tv_arena_calloc(d->arena, 1, sizeof *s);
    if (!s) return tv_error_oom(d->err);
    tv_field_type rt = f->range_type;
    size_t w = tv_range_width(rt);
    s->w = w;
    s->rel = rel;
    int64_t mn, mx;
    tv_range_limits(rt, &mn, &mx);
    uint8_t ipmin[16], ipmax[16];
    memset(ipmin, 0, 16);
    memset(ipmax, 0xFF, 16);
    tv_range_encode_bound(rt, mn, ipmin, s->q);
    tv_range_encode_bound(rt, mx, ipmax, s->q + w);
    tv_status st;
    for (int k = 0; k < 2; k++) {
        const tv_json *v = k ? to : from;
        bool incl = k ? incl_hi : incl_lo;
        uint8_t *b = s->q + (k ? w : 0);
        if (!v) continue;
        if ((st = rf_bound(d, f, v, fmt, tz, b))) return st;
        if (incl) continue;
        if (rt == TV_FT_IP) ip_step(b, k == 0);
        else tv_range_encode_bound(rt, tv_range_next(rt, tv_range_decode_bound(b), k == 0), NULL, b);
    }
    tv_query *q;
    if (memcmp(s->q, s->q + w, w) > 0) {
        q = tv_q_new(d, TV_Q_MATCH_NONE);
    } else {
        q = tv_q_new(d, TV_Q_MULTI_TERM);
        if (q) {
            q->field = f;
            q->field_id = f->id;
            q->u.multi.m.accept = rf_accept;
            q->u.multi.m.state = s;
        }
    }
    if (!q) return tv_error_oom(d->err);
    *out = q;
    return TROVE_OK;
}
