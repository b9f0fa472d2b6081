/*
 * dsl_distance.c — the distance_feature query: a score that falls with the
 * distance of a document's value from an origin, on date, date_nanos and
 * geo_point fields.
 *
 * Parsing follows DistanceFeatureQueryBuilder (a ConstructingObjectParser:
 * "field", "origin", "pivot" required, plus boost and _name; unknown keys
 * and wrong value types as ObjectParser words them). Building follows
 * fieldType.distanceFeatureQuery on the shard: a date origin is a date
 * (math) parsed with the field's format rounding up, the pivot a TimeValue
 * (milliseconds for date, nanoseconds for date_nanos); a geo_point origin
 * is a point ([lon, lat], {lat, lon}, "lat,lon" or a geohash) and the pivot
 * a distance with an optional unit (DistanceUnit.parse, meters by
 * default); any other field type is refused with OpenSearch's message, an
 * unmapped field matches nothing.
 *
 * Scoring is Lucene's LongDistanceFeatureQuery / LatLonPointDistance-
 * FeatureQuery: every doc with a value matches, with
 * (float) (boost * (pivot / (pivot + distance))) in double arithmetic,
 * distance the smallest over the doc's values: |value - origin| (a long,
 * Long.MAX_VALUE when it overflows), or the haversine distance in meters
 * from the origin to the doc's quantized point (SloppyMath.haversinMeters'
 * formula and its truncation of the sort key; libm's cos and asin stand
 * for SloppyMath's tables, whose error is far below a float score's).
 *
 * It is a TV_Q_EXT node: prepare keeps the accumulated boost, plan walks
 * the segment's doc values.
 *
 * Alternatives rejected: scoring through function_score's decay code (a
 * different curve and parameters), and a bitset of docs with values
 * first (one pass over the doc values does both).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "index/date.h"
#include "query/parse.h"

#define EARTH_MEAN_RADIUS_METERS 6371008.7714

typedef struct df_state {
    bool geo;
    int64_t origin;          /* date: ms or ns */
    int64_t pivot;           /* date: ms or ns */
    double olat, olon;       /* geo origin */
    double pivot_m;          /* geo pivot, meters */
    float boost;             /* accumulated boost (prepare) */
} df_state;

static tv_status oom(tv_dsl *d) {
    if (d->err) tv_error_oom(d->err);
    return TROVE_ENOMEM;
}

/* A failure raised while the shard builds the query. */
static tv_status shard_arg(tv_dsl *d, uint32_t off, const char *fmt, const char *a) {
    tv_dsl_error(d, TROVE_EARG, off, fmt, a);
    if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
    return TROVE_EARG;
}

/* ------------------------------------------------------------- geo input */

static bool geohash_point(const char *s, size_t n, double *lat, double *lon) {
    static const char b32[] = "0123456789bcdefghjkmnpqrstuvwxyz";
    if (n == 0 || n > 12) return false;
    double la0 = -90, la1 = 90, lo0 = -180, lo1 = 180;
    bool even = true;
    for (size_t i = 0; i < n; i++) {
        const char *p = s[i] ? memchr(b32, s[i], 32) : NULL;
        if (!p) return false;
        int cd = (int)(p - b32);
        for (int b = 4; b >= 0; b--) {
            double *lo = even ? &lo0 : &la0, *hi = even ? &lo1 : &la1;
            double mid = (*lo + *hi) / 2;
            if ((cd >> b) & 1) *lo = mid;
            else *hi = mid;
            even = !even;
        }
    }
    *lat = (la0 + la1) / 2;
    *lon = (lo0 + lo1) / 2;
    return true;
}

bool tv_geo_parse_string(const char *s, size_t n, double *lat, double *lon, char *msg, size_t cap) {
    const char *comma = memchr(s, ',', n);
    if (comma) {
        if (!tv_java_parse_double(s, (size_t)(comma - s), lat) || !tv_java_parse_double(comma + 1, n - (size_t)(comma + 1 - s), lon)) {
            snprintf(msg, cap, "latitude must be a number");
            return false;
        }
    } else if (!geohash_point(s, n, lat, lon)) {
        snprintf(msg, cap, "unsupported symbol [%c] in geohash [%.*s]", n ? s[0] : ' ', (int)TV_MIN(n, 100), s);
        return false;
    }
    return true;
}

static bool num_of(const tv_json *v, double *out) {
    if (tv_json_is_number(v)) {
        *out = tv_json_as_double(v);
        return true;
    }
    if (v->type == TV_JSON_STRING) return tv_java_parse_double(v->v.s, v->len, out);
    return false;
}

/* GeoUtils.parseGeoPoint / parseFromString: [lon, lat], {lat, lon},
 * "lat,lon" or a geohash. */
tv_status tv_dsl_geo_point(tv_dsl *d, const tv_json *v, double *lat, double *lon) {
    if (v->type == TV_JSON_ARRAY) {
        if (v->len < 2 || v->len > 3 || !num_of(&v->v.items[0], lon) || !num_of(&v->v.items[1], lat))
            return tv_dsl_error(d, TROVE_EPARSEEXC, v->off, "[geo_point] field type should not have more than 2 numeric values");
    } else if (v->type == TV_JSON_OBJECT) {
        const tv_json *la = tv_json_get(v, "lat"), *lo = tv_json_get(v, "lon");
        if (!la || !num_of(la, lat)) return tv_dsl_error(d, TROVE_EPARSEEXC, v->off, "field [lat] missing");
        if (!lo || !num_of(lo, lon)) return tv_dsl_error(d, TROVE_EPARSEEXC, v->off, "field [lon] missing");
    } else if (v->type == TV_JSON_STRING) {
        char msg[256];
        if (!tv_geo_parse_string(v->v.s, v->len, lat, lon, msg, sizeof msg))
            return tv_dsl_error(d, TROVE_EPARSEEXC, v->off, "%s", msg);
    } else {
        return tv_dsl_error(d, TROVE_EPARSEEXC, v->off, "geo_point expected");
    }
    return TROVE_OK;
}

static tv_status geo_origin(tv_dsl *d, const tv_json *v, double *lat, double *lon) {
    if (tv_json_is_number(v)) /* Origin(Long), refused by GeoPointFieldType */
        return shard_arg(d, v->off, "Illegal type [class java.lang.Long] for [origin]! Must be of type [geo_point] or "
                                    "[string] for geo_point fields!%s", "");
    return tv_dsl_geo_point(d, v, lat, lon);
}

/* DistanceUnit.parse(pivot, METERS): a number with an optional unit
 * suffix, matched in the enum's order. */
static bool distance_meters(const char *s, size_t n, double *out) {
    static const struct { const char *name; double meters; } units[] = {
        {"in", 0.0254}, {"inch", 0.0254}, {"yd", 0.9144}, {"yards", 0.9144}, {"ft", 0.3048},
        {"feet", 0.3048}, {"km", 1000.0}, {"kilometers", 1000.0}, {"NM", 1852.0}, {"nmi", 1852.0},
        {"nauticalmiles", 1852.0}, {"mm", 0.001}, {"millimeters", 0.001}, {"cm", 0.01},
        {"centimeters", 0.01}, {"mi", 1609.344}, {"miles", 1609.344}, {"m", 1.0}, {"meters", 1.0},
    };
    for (size_t i = 0; i < TV_ARRAY_LEN(units); i++) {
        size_t ul = strlen(units[i].name);
        if (n >= ul && memcmp(s + n - ul, units[i].name, ul) == 0) {
            double v;
            if (!tv_java_parse_double(s, n - ul, &v)) return false;
            *out = v * units[i].meters;
            return true;
        }
    }
    return tv_java_parse_double(s, n, out);
}

/* --------------------------------------------------------------- scoring */

static double haversin_meters(double lat1, double lon1, double lat2, double lon2) {
    const double rad = M_PI / 180.0;
    double x1 = lat1 * rad, x2 = lat2 * rad;
    double h1 = 1 - cos(x1 - x2);
    double h2 = 1 - cos((lon1 - lon2) * rad);
    double h = h1 + cos(x1) * cos(x2) * h2;
    uint64_t bits;
    memcpy(&bits, &h, sizeof bits);
    bits &= 0xFFFFFFFFFFFFFFF8ull; /* haversinSortKey's truncation */
    memcpy(&h, &bits, sizeof h);
    double a = sqrt(h * 0.5);
    return EARTH_MEAN_RADIUS_METERS * 2 * asin(a < 1 ? a : 1);
}

static bool df_test(const void *st, const int64_t *v, uint32_t n, float *score) {
    const df_state *s = st;
    double dist = INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        double di;
        if (s->geo) {
            double lat, lon;
            tv_geo_decode(v[i], &lat, &lon);
            di = haversin_meters(s->olat, s->olon, lat, lon);
        } else {
            /* Math.max(v - origin, origin - v), Long.MAX_VALUE on overflow */
            __int128 dd = (__int128)v[i] - s->origin;
            if (dd < 0) dd = -dd;
            di = dd > INT64_MAX ? (double)INT64_MAX : (double)(int64_t)dd;
        }
        if (di < dist) dist = di;
    }
    double pivot = s->geo ? s->pivot_m : (double)s->pivot;
    *score = (float)((double)s->boost * (pivot / (pivot + dist)));
    return true;
}

static tv_status df_prepare(tv_query *q, const tv_snapshot *snap, float boost, tv_arena *arena) {
    ((df_state *)q->u.ext.state)->boost = boost;
    return TROVE_OK;
}

static tv_status df_plan(tv_query *q, const tv_segview *sv, struct tv_plan_ctx *ctx, tv_iter **out) {
    const df_state *st = q->u.ext.state;
    return tv_iter_dv_scan(sv, q->field_id, df_test, st, st->boost, st->boost, ctx->arena, out);
}

/* ----------------------------------------------------------------- parse */

tv_status tv_dsl_parse_distance_feature(tv_dsl *d, const tv_json *body, tv_query **out) {
    const tv_json *field = NULL, *origin = NULL, *pivot = NULL;
    float boost = 1.0f;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        tv_status st = TROVE_OK;
        if (tv_streq(m->key, m->key_len, "field") || tv_streq(m->key, m->key_len, "pivot")) {
            if (v->type != TV_JSON_STRING)
                return tv_dsl_error(d, TROVE_EXCONTENT, v->off, "[distance_feature] %s doesn't support values of type: %s",
                                    m->key, tv_dsl_token_name(v));
            if (m->key[0] == 'f') field = v;
            else pivot = v;
        } else if (tv_streq(m->key, m->key_len, "origin")) {
            if (v->type != TV_JSON_STRING && v->type != TV_JSON_ARRAY && v->type != TV_JSON_OBJECT &&
                !tv_json_is_number(v))
                return tv_dsl_error(d, TROVE_EPARSE, v->off,
                                    "Illegal type while parsing [origin]! Must be [number] or [string] for date and "
                                    "date_nanos fields; or [string], [array], [object] for geo_point fields!");
            origin = v;
        } else if (tv_streq(m->key, m->key_len, "boost")) {
            st = tv_dsl_float(d, "distance_feature", "boost", v, &boost);
        } else if (tv_streq(m->key, m->key_len, "_name")) {
            if (v->type != TV_JSON_STRING)
                return tv_dsl_error(d, TROVE_EXCONTENT, v->off, "[distance_feature] _name doesn't support values of type: %s",
                                    tv_dsl_token_name(v));
        } else {
            return tv_dsl_error(d, TROVE_EXCONTENT, v->off, "[distance_feature] unknown field [%s]", m->key);
        }
        if (st) return st;
    }
    if (!field || !origin || !pivot) {
        char miss[64] = "";
        size_t o = 0;
        if (!field) o += (size_t)snprintf(miss + o, sizeof miss - o, "%sfield", o ? ", " : "");
        if (!origin) o += (size_t)snprintf(miss + o, sizeof miss - o, "%sorigin", o ? ", " : "");
        if (!pivot) snprintf(miss + o, sizeof miss - o, "%spivot", o ? ", " : "");
        return tv_dsl_error(d, TROVE_EARG, body->off, "Required [%s]", miss);
    }
    /* geo origins given as array or object are parsed with the request */
    df_state *s = tv_arena_calloc(d->arena, 1, sizeof *s);
    if (!s) return oom(d);
    tv_status st;
    if ((origin->type == TV_JSON_ARRAY || origin->type == TV_JSON_OBJECT) &&
        (st = geo_origin(d, origin, &s->olat, &s->olon)))
        return st;
    const tv_field *f = tv_dsl_field(d, field->v.s, field->len);
    tv_query *q;
    if (!f || f->type == TV_FT_OBJECT) {
        q = tv_q_new(d, TV_Q_MATCH_NONE);
        if (!q) return oom(d);
        q->boost *= boost;
        *out = q;
        return TROVE_OK;
    }
    char num[64];
    if (f->type == TV_FT_DATE || f->type == TV_FT_DATE_NANOS) {
        if (origin->type == TV_JSON_ARRAY || origin->type == TV_JSON_OBJECT)
            return shard_arg(d, origin->off, "Illegal type [class org.opensearch.common.geo.GeoPoint] for [origin]!%s", "");
        if ((st = tv_dsl_date_value(d, f, origin, true, &s->origin))) {
            if (d->err && d->index && !d->err->index[0]) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
            return st;
        }
        int64_t ns;
        if ((st = tv_parse_time_value(pivot->v.s, pivot->len, "distance_feature.pivot", &ns, d->err))) {
            if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
            return st;
        }
        s->pivot = ns == -1 ? -1 : f->type == TV_FT_DATE ? ns / 1000000 : ns;
        if (s->pivot <= 0) {
            snprintf(num, sizeof num, "%lld", (long long)s->pivot);
            return shard_arg(d, pivot->off, "pivotDistance must be > 0, got %s", num);
        }
    } else if (f->type == TV_FT_GEO_POINT) {
        s->geo = true;
        if (origin->type != TV_JSON_ARRAY && origin->type != TV_JSON_OBJECT &&
            (st = geo_origin(d, origin, &s->olat, &s->olon)))
            return st;
        if (!distance_meters(pivot->v.s, pivot->len, &s->pivot_m)) {
            tv_dsl_nfe(d, pivot->v.s, pivot->len);
            if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
            return d->err ? d->err->code : TROVE_ENUMBERFORMAT;
        }
        if (isnan(s->olat) || s->olat < -90 || s->olat > 90) {
            tv_fmt_double(s->olat, num);
            return shard_arg(d, origin->off, "invalid latitude %s; must be between -90.0 and 90.0", num);
        }
        if (isnan(s->olon) || s->olon < -180 || s->olon > 180) {
            tv_fmt_double(s->olon, num);
            return shard_arg(d, origin->off, "invalid longitude %s; must be between -180.0 and 180.0", num);
        }
        if (!(s->pivot_m > 0) || isinf(s->pivot_m)) {
            tv_fmt_double(s->pivot_m, num);
            return shard_arg(d, pivot->off, "pivotDistanceMeters must be > 0, got %s", num);
        }
    } else {
        char msg[200];
        snprintf(msg, sizeof msg, "Illegal data type of [%s]![distance_feature] query can only be run on a date, "
                                  "date_nanos or geo_point field type!", tv_field_declared_type(f));
        return shard_arg(d, field->off, "%s", msg);
    }
    q = tv_q_new(d, TV_Q_EXT);
    if (!q) return oom(d);
    q->field = f;
    q->field_id = f->id;
    q->u.ext.prepare = df_prepare;
    q->u.ext.plan = df_plan;
    q->u.ext.state = s;
    q->boost *= boost;
    *out = q;
    return TROVE_OK;
}
