/*
 * dsl_geo_distance.c — geo distances as OpenSearch computes them, and the
 * geo_distance query on a geo_point field.
 *
 * Distances: GeoDistance.ARC is Lucene's SloppyMath.haversinMeters (the
 * haversine "sort key" with its low three bits cleared, then Earth's mean
 * radius * 2 * asin(sqrt(key / 2))), whose cos and asin are Lucene's
 * table-driven approximations, not libm's: the tables (2049 sin/cos
 * entries over [0, 2pi], 8193 asin entries with four derivatives over
 * [0, sin(73 deg)]) are built once here from libm's correctly rounded
 * sin/cos/asin as Lucene builds them from StrictMath, and evaluated by the
 * same Taylor steps, so a distance prints as OpenSearch prints it to the
 * last digit. GeoDistance.PLANE is GeoUtils.planeDistance (an
 * equirectangular projection at the mean latitude). Units are
 * DistanceUnit's (names, meters per unit, convert = d * from / to, and
 * Distance.parseDistance's suffix matching in the enum's order).
 *
 * The query follows GeoDistanceQueryBuilder: fromXContent's forms (the
 * point as an array, an object {lat, lon | geohash}, a string, or
 * "field.lat"/"field.lon" keys), distance (a number or a string with a
 * unit suffix, in "unit", meters by default, > 0), distance_type,
 * validation_method (checkLatLon unless ignore_malformed or coerce;
 * coerce normalizes the center), ignore_unmapped. OpenSearch 2 builds it
 * as a Circle shape query (GeoPointFieldType.geoShapeQuery), which ignores
 * distance_type: Lucene's Circle2D with a HaversinDistance keeps a point
 * when haversinSortKey(point, center) <= GeoUtils.distanceQuerySortKey
 * (radius), the smallest sort key whose distance is not below the radius
 * (a binary search over the doubles' bits). Points are the doc values'
 * quantized degrees, as Lucene compares them. A constant score (boost).
 *
 * Left out, named in the design: Circle2D also tests the circle's
 * bounding rectangle (Rectangle.fromPointDistance) before the sort key;
 * the rectangle contains the circle, so only a point on the boundary
 * within floating-point noise could differ.
 *
 * Alternatives rejected: libm's cos/asin (they differ from Lucene's in the
 * last digits of a printed distance), and a points index (geo_point
 * fields keep doc values only).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "query/parse.h"

/* ---------------------------------------------------------- SloppyMath */

#define SC_TABS 2049  /* (1 << 11) + 1 */
#define AS_TABS 8193  /* (1 << 13) + 1 */

static double sin_tab[SC_TABS], cos_tab[SC_TABS];
static double as_tab[AS_TABS], as_d1[AS_TABS], as_d2[AS_TABS], as_d3[AS_TABS], as_d4[AS_TABS];
static double sc_delta_hi, sc_delta_lo, sc_indexer, sc_max_mod;
static double as_max, as_delta, as_indexer;
static pthread_once_t g_tabs_once = PTHREAD_ONCE_INIT;

static double bits_double(uint64_t b) {
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static double to_radians(double deg) { return deg * 0.017453292519943295; }

static void tabs_init(void) {
    double pio2_hi = bits_double(0x3FF921FB54400000ULL), pio2_lo = bits_double(0x3DD0B4611A626331ULL);
    double twopi_hi = 4 * pio2_hi, twopi_lo = 4 * pio2_lo;
    sc_delta_hi = twopi_hi / (SC_TABS - 1);
    sc_delta_lo = twopi_lo / (SC_TABS - 1);
    sc_indexer = 1 / (sc_delta_hi + sc_delta_lo);
    sc_max_mod = ((double)(INT32_MAX >> 9) / sc_indexer) * 0.99;
    int pi_i = (SC_TABS - 1) / 2, pi2_i = 2 * pi_i, pi05_i = pi_i / 2, pi15_i = 3 * pi_i / 2;
    for (int i = 0; i < SC_TABS; i++) {
        double angle = i * sc_delta_hi + i * sc_delta_lo;
        double s = sin(angle), c = cos(angle);
        if (i == pi_i || i == pi2_i) s = 0.0;
        else if (i == pi05_i || i == pi15_i) c = 0.0;
        sin_tab[i] = s;
        cos_tab[i] = c;
    }
    as_max = sin(to_radians(73.0));
    as_delta = as_max / (AS_TABS - 1);
    as_indexer = 1 / as_delta;
    for (int i = 0; i < AS_TABS; i++) {
        double x = i * as_delta;
        as_tab[i] = asin(x);
        double inv = 1.0 / (1 - x * x);
        double inv05 = sqrt(inv), inv15 = inv05 * inv, inv25 = inv15 * inv, inv35 = inv25 * inv;
        as_d1[i] = inv05;
        as_d2[i] = (x * inv15) * (1 / 2.0);
        as_d3[i] = ((1 + 2 * x * x) * inv25) * (1 / 6.0);
        as_d4[i] = ((5 + 2 * x * (2 + x * (5 - 2 * x))) * inv35) * (1 / 24.0);
    }
}

static double sloppy_cos(double a) {
    if (a < 0.0) a = -a;
    if (a > sc_max_mod) return cos(a);
    int idx = (int)(a * sc_indexer + 0.5);
    double delta = (a - idx * sc_delta_hi) - idx * sc_delta_lo;
    idx &= SC_TABS - 2;
    double ic = cos_tab[idx], is = sin_tab[idx];
    return ic + delta * (-is + delta * (-ic * (1 / 2.0) + delta * (is * (1 / 6.0) + delta * ic * (1 / 24.0))));
}

static double sloppy_asin(double a) {
    bool neg = a < 0.0;
    if (neg) a = -a;
    double r;
    if (a <= as_max) {
        int idx = (int)(a * as_indexer + 0.5);
        double delta = a - idx * as_delta;
        r = as_tab[idx] + delta * (as_d1[idx] + delta * (as_d2[idx] + delta * (as_d3[idx] + delta * as_d4[idx])));
    } else if (a < 1.0) {
        /* fdlibm's asin near 1 */
        const double ps0 = bits_double(0x3fc5555555555555ULL), ps1 = bits_double(0xbfd4d61203eb6f7dULL),
                     ps2 = bits_double(0x3fc9c1550e884455ULL), ps3 = bits_double(0xbfa48228b5688f3bULL),
                     ps4 = bits_double(0x3f49efe07501b288ULL), ps5 = bits_double(0x3f023de10dfdf709ULL),
                     qs1 = bits_double(0xc0033a271c8a2d4bULL), qs2 = bits_double(0x40002ae59c598ac8ULL),
                     qs3 = bits_double(0xbfe6066c1b8d0159ULL), qs4 = bits_double(0x3fb3b8c5b12e9282ULL),
                     pio2_hi = bits_double(0x3FF921FB54442D18ULL), pio2_lo = bits_double(0x3C91A62633145C07ULL);
        double t = (1.0 - a) * 0.5;
        double p = t * (ps0 + t * (ps1 + t * (ps2 + t * (ps3 + t * (ps4 + t * ps5)))));
        double q = 1.0 + t * (qs1 + t * (qs2 + t * (qs3 + t * qs4)));
        double s = sqrt(t);
        double z = s + s * (p / q);
        r = pio2_hi - ((z + z) - pio2_lo);
    } else if (a == 1.0) {
        r = M_PI / 2;
    } else {
        return NAN;
    }
    return neg ? -r : r;
}

#define TO_METERS 6371008.7714

double tv_geo_haversin_sort_key(double lat1, double lon1, double lat2, double lon2) {
    pthread_once(&g_tabs_once, tabs_init);
    double x1 = to_radians(lat1), x2 = to_radians(lat2);
    double h1 = 1 - sloppy_cos(x1 - x2);
    double h2 = 1 - sloppy_cos(to_radians(lon1 - lon2));
    double h = h1 + sloppy_cos(x1) * sloppy_cos(x2) * h2;
    uint64_t b;
    memcpy(&b, &h, sizeof b);
    return bits_double(b & 0xFFFFFFFFFFFFFFF8ULL);
}

double tv_geo_key_meters(double key) {
    pthread_once(&g_tabs_once, tabs_init);
    double s = sqrt(key * 0.5);
    return TO_METERS * 2 * sloppy_asin(s < 1 ? s : 1);
}

double tv_geo_arc_meters(double lat1, double lon1, double lat2, double lon2) {
    return tv_geo_key_meters(tv_geo_haversin_sort_key(lat1, lon1, lat2, lon2));
}

double tv_geo_plane_meters(double lat1, double lon1, double lat2, double lon2) {
    double x = to_radians(lon2 - lon1) * cos(to_radians((lat2 + lat1) / 2.0));
    double y = to_radians(lat2 - lat1);
    return sqrt(x * x + y * y) * TO_METERS;
}

/* GeoUtils.distanceQuerySortKey */
static double distance_query_sort_key(double radius) {
    double inf = tv_geo_key_meters(1.7976931348623157e308);
    if (radius >= inf) return inf;
    int64_t lo = 0, hi = 0x7FEFFFFFFFFFFFFFLL;
    while (lo <= hi) {
        int64_t mid = (int64_t)((uint64_t)(lo + hi) >> 1);
        double key = bits_double((uint64_t)mid), r = tv_geo_key_meters(key);
        if (r == radius) return key;
        if (r > radius) hi = mid - 1;
        else lo = mid + 1;
    }
    return bits_double((uint64_t)lo);
}

/* --------------------------------------------------------- DistanceUnit */

static const struct {
    double meters;
    const char *names[3];
} k_units[] = {
    {0.0254, {"in", "inch"}},
    {0.9144, {"yd", "yards"}},
    {0.3048, {"ft", "feet"}},
    {1000.0, {"km", "kilometers"}},
    {1852.0, {"NM", "nmi", "nauticalmiles"}},
    {0.001, {"mm", "millimeters"}},
    {0.01, {"cm", "centimeters"}},
    {1609.344, {"mi", "miles"}},
    {1.0, {"m", "meters"}},
};

double tv_geo_unit(const char *s, size_t n) {
    for (size_t u = 0; u < TV_ARRAY_LEN(k_units); u++)
        for (int k = 0; k < 3 && k_units[u].names[k]; k++)
            if (tv_streq(s, n, k_units[u].names[k])) return k_units[u].meters;
    return 0;
}

double tv_geo_from_meters(double d, double unit_m) { return unit_m == 1.0 ? d : d * 1.0 / unit_m; }

/* DistanceUnit.parse(s, unit, METERS): a number with an optional unit
 * suffix (else `unit`), in meters. false: Double.parseDouble refused it. */
static bool parse_distance(const char *s, size_t n, double unit_m, double *out, size_t *num_len) {
    *num_len = n;
    for (size_t u = 0; u < TV_ARRAY_LEN(k_units); u++)
        for (int k = 0; k < 3 && k_units[u].names[k]; k++) {
            size_t l = strlen(k_units[u].names[k]);
            if (n >= l && !memcmp(s + n - l, k_units[u].names[k], l)) {
                double v;
                *num_len = n - l;
                if (!tv_java_parse_double(s, n - l, &v)) return false;
                *out = k_units[u].meters == 1.0 ? v : v * k_units[u].meters / 1.0;
                return true;
            }
        }
    double v;
    if (!tv_java_parse_double(s, n, &v)) return false;
    *out = unit_m == 1.0 ? v : v * unit_m / 1.0;
    return true;
}

bool tv_geo_parse_meters(const char *s, size_t n, double *out) {
    size_t nl;
    return parse_distance(s, n, 1.0, out, &nl);
}

/* GeoUtils.centeredModulus */
static double centered_mod(double x, double m) {
    double r = fmod(x, m);
    if (r <= 0) r += m;
    if (r > m / 2) r -= m;
    return r;
}

/* GeoUtils.normalizePoint(point, true, true): what validation_method
 * coerce does to a center. */
void tv_geo_normalize(double *lat, double *lon) {
    double la = *lat, lo = *lon;
    bool nlat = la > 90 || la < -90;
    bool nlon = lo > 180 || lo < -180 || nlat;
    if (nlat) {
        la = centered_mod(la, 360);
        bool shift = true;
        if (la < -90) la = -180 - la;
        else if (la > 90) la = 180 - la;
        else shift = false;
        if (shift) lo += 180; /* nlon holds whenever nlat does */
    }
    if (nlon) lo = centered_mod(lo, 360);
    *lat = la;
    *lon = lo;
}

/* ---------------------------------------------------------- the query */

typedef struct geo_circle {
    double lat, lon;  /* center */
    double key;       /* distanceQuerySortKey(radius) */
} geo_circle;

static bool circle_test(const void *st, const int64_t *v, uint32_t n, float *score) {
    (void)score;
    const geo_circle *c = st;
    for (uint32_t i = 0; i < n; i++) {
        double lat, lon;
        tv_geo_decode(v[i], &lat, &lon);
        if (tv_geo_haversin_sort_key(lat, lon, c->lat, c->lon) <= c->key) return true;
    }
    return false;
}

static tv_status circle_plan(tv_query *q, const tv_segview *sv, struct tv_plan_ctx *ctx, tv_iter **out) {
    return tv_iter_dv_scan(sv, q->field_id, circle_test, q->u.ext.state, q->score_boost, q->score_boost, ctx->arena, out);
}

static bool ends_with(const char *s, size_t n, const char *suf, size_t *base) {
    size_t l = strlen(suf);
    if (n < l || memcmp(s + n - l, suf, l)) return false;
    *base = n - l;
    return true;
}

static bool text_of(const tv_json *v, const char **s, size_t *n) {
    *s = "";
    *n = 0;
    return tv_dsl_scalar_text(v, s, n);
}

tv_status tv_dsl_parse_geo_distance(tv_dsl *d, const tv_json *body, tv_query **out) {
    float boost = 1.0f;
    bool ignore_unmapped = false;
    int vmethod = -1; /* 0 coerce, 1 ignore_malformed, 2 strict */
    double unit_m = 1.0;
    double lat = NAN, lon = NAN;
    const char *field = NULL;
    size_t field_len = 0;
    const tv_json *vdist = NULL;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        const char *k = m->key;
        size_t kl = m->key_len, base;
        tv_status st = TROVE_OK;
        if (v->type == TV_JSON_ARRAY) {
            field = k;
            field_len = kl;
            st = tv_dsl_geo_point(d, v, &lat, &lon);
        } else if (v->type == TV_JSON_OBJECT) {
            if (field)
                return tv_dsl_error(d, TROVE_EPARSE, v->off,
                                    "[geo_distance] query doesn't support multiple fields, found [%.*s] and [%s]",
                                    (int)field_len, field, k);
            field = k;
            field_len = kl;
            for (uint32_t j = 0; j < v->len; j++) {
                const tv_json_member *pm = &v->v.members[j];
                const tv_json *pv = &pm->val;
                if (pv->type == TV_JSON_OBJECT || pv->type == TV_JSON_ARRAY) continue; /* skipped as in the parser */
                double x;
                if (tv_streq(pm->key, pm->key_len, "lat") || tv_streq(pm->key, pm->key_len, "lon")) {
                    if (!tv_json_is_number(pv) && !(pv->type == TV_JSON_STRING && tv_java_parse_double(pv->v.s, pv->len, &x)))
                        return tv_dsl_error(d, TROVE_EUNSUPPORTED, pv->off,
                                            "[geo_distance] a [%s] that is not a number is not supported by trove", pm->key);
                    if (tv_json_is_number(pv)) x = tv_json_as_double(pv);
                    if (pm->key[1] == 'a') lat = x;
                    else lon = x;
                } else if (tv_streq(pm->key, pm->key_len, "geohash")) {
                    tv_json one = *pv;
                    if (one.type != TV_JSON_STRING)
                        return tv_dsl_error(d, TROVE_EUNSUPPORTED, pv->off,
                                            "[geo_distance] a [geohash] that is not a string is not supported by trove");
                    if ((st = tv_dsl_geo_point(d, &one, &lat, &lon))) return st;
                } else {
                    return tv_dsl_error(d, TROVE_EPARSE, pv->off, "[geo_distance] query does not support [%s]", k);
                }
            }
        } else if (tv_streq(k, kl, "distance")) {
            vdist = v;
        } else if (tv_streq(k, kl, "unit")) {
            const char *s;
            size_t n;
            text_of(v, &s, &n);
            if (!(unit_m = tv_geo_unit(s, n)))
                return tv_dsl_error(d, TROVE_EARG, v->off, "No distance unit match [%.*s]", (int)TV_MIN(n, 200), s);
        } else if (tv_streq(k, kl, "distance_type")) {
            const char *s;
            size_t n;
            text_of(v, &s, &n);
            if (!(n == 3 && !strncasecmp(s, "arc", 3)) && !(n == 5 && !strncasecmp(s, "plane", 5)))
                return tv_dsl_error(d, TROVE_EARG, v->off, "No geo distance for [%.*s]", (int)TV_MIN(n, 200), s);
        } else if (ends_with(k, kl, ".lat", &base) || ends_with(k, kl, ".lon", &base)) {
            double x;
            if (tv_json_is_number(v)) x = tv_json_as_double(v);
            else if (!(v->type == TV_JSON_STRING && tv_java_parse_double(v->v.s, v->len, &x)))
                return tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off,
                                    "[geo_distance] a [%s] that is not a number is not supported by trove", k);
            if (k[kl - 2] == 'a') lat = x;
            else lon = x;
            field = k;
            field_len = base;
        } else if (tv_streq(k, kl, "_name")) {
        } else if (tv_streq(k, kl, "boost")) {
            st = tv_dsl_float(d, "geo_distance", "boost", v, &boost);
        } else if (tv_streq(k, kl, "ignore_unmapped")) {
            st = tv_dsl_bool(d, "geo_distance", "ignore_unmapped", v, &ignore_unmapped);
        } else if (tv_streq(k, kl, "validation_method")) {
            const char *s;
            size_t n;
            text_of(v, &s, &n);
            if (n == 6 && !strncasecmp(s, "coerce", 6)) vmethod = 0;
            else if (n == 16 && !strncasecmp(s, "ignore_malformed", 16)) vmethod = 1;
            else if (n == 6 && !strncasecmp(s, "strict", 6)) vmethod = 2;
            else return tv_dsl_error(d, TROVE_EARG, v->off, "operation type [%.*s] not supported.", (int)TV_MIN(n, 200), s);
        } else if (!field) {
            /* the point as a string: "lat,lon" or a geohash */
            if (v->type != TV_JSON_STRING)
                return tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off,
                                    "[geo_distance] a point that is not a string, array or object is not supported by trove");
            field = k;
            field_len = kl;
            st = tv_dsl_geo_point(d, v, &lat, &lon);
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, v->off, "failed to parse [geo_distance] query. unexpected field [%s]", k);
        }
        if (st) return st;
    }
    if (!vdist) return tv_dsl_error(d, TROVE_EPARSE, body->off, "geo_distance requires 'distance' to be specified");
    if (!field || !field_len) return tv_dsl_error(d, TROVE_EARG, body->off, "fieldName must not be null or empty");
    /* distance(String|double, unit): a number goes through Double.toString */
    double dist;
    if (tv_json_is_number(vdist)) {
        char nb[40];
        tv_fmt_double(tv_json_as_double(vdist), nb);
        size_t nl;
        if (!parse_distance(nb, strlen(nb), unit_m, &dist, &nl))
            return tv_dsl_error(d, TROVE_ENUMBERFORMAT, vdist->off, "For input string: \"%s\"", nb);
    } else {
        const char *s;
        size_t n;
        if (!text_of(vdist, &s, &n) || vdist->type == TV_JSON_NULL || n == 0)
            return tv_dsl_error(d, TROVE_EARG, vdist->off, "distance must not be null or empty");
        size_t nl;
        if (!parse_distance(s, n, unit_m, &dist, &nl)) {
            /* Double.parseDouble's message, on the text before a unit */
            return tv_dsl_error(d, TROVE_ENUMBERFORMAT, vdist->off, "For input string: \"%.*s\"", (int)TV_MIN(nl, 200), s);
        }
    }
    if (!(dist > 0.0)) return tv_dsl_error(d, TROVE_EARG, vdist->off, "distance must be greater than zero");
    char *fname = tv_arena_strndup(d->arena, field, field_len);
    if (!fname) return tv_error_oom(d->err);
    const tv_field *f = tv_dsl_field(d, fname, field_len);
    if (!f || f->type == TV_FT_OBJECT) {
        if (ignore_unmapped) return tv_dsl_geo_node(d, NULL, NULL, NULL, boost, out);
        tv_dsl_error(d, TROVE_EQUERYSHARD, body->off, "failed to find geo field [%s]", fname);
        if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
        return TROVE_EQUERYSHARD;
    }
    if (f->type != TV_FT_GEO_POINT)
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, body->off,
                            "[geo_distance] query on a field of type [%s] is not supported by trove",
                            tv_field_declared_type(f));
    if (vmethod != 0 && vmethod != 1 && !(lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180))
        /* checkLatLon: a query_shard_exception caused by a
         * query_validation_exception, a type trove's error table lacks */
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, body->off,
                            "[geo_distance] a center outside [-90, 90] x [-180, 180] (a validation failure) is not "
                            "supported by trove");
    if (vmethod == 0) tv_geo_normalize(&lat, &lon);
    if (!(lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180))
        /* ignore_malformed: Lucene's Circle refuses the center */
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, body->off,
                            "[geo_distance] an invalid center with validation_method [ignore_malformed] is not "
                            "supported by trove");
    geo_circle *c = tv_arena_alloc(d->arena, sizeof *c);
    if (!c) return tv_error_oom(d->err);
    c->lat = lat;
    c->lon = lon;
    c->key = distance_query_sort_key(dist);
    return tv_dsl_geo_node(d, f, circle_plan, c, boost, out);
}
