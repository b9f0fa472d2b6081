/*
 * dsl_geo.c — the geo_shape query on a geo_point field, for the shape
 * trove reproduces exactly: an envelope (a rectangle); and the
 * geo_bounding_box query, the same box (GeoBoundingBoxQueryBuilder:
 * top_left/bottom_right, top_right/bottom_left or top/bottom/left/right,
 * setCorners' relation checks at parse, checkLatLon's ranges on the shard;
 * wkt, coerce and ignore_malformed answer unsupported).
 *
 * Parsing follows GeoShapeQueryBuilder (AbstractGeometryQueryBuilder
 * .fromXContent): one field with "shape" (GeoJSON {"type", "coordinates"})
 * or "indexed_shape", and "relation"; "ignore_unmapped", "boost" and
 * "_name" beside it. An envelope's coordinates are [[minLon, maxLat],
 * [maxLon, minLat]] (org.opensearch.geometry.Rectangle, which refuses a
 * max below a min latitude).
 *
 * Building follows GeoPointFieldType.geoShapeQuery: Lucene's
 * LatLonPoint.newGeometryQuery of one Rectangle, i.e. newBoxQuery: the
 * bounds encoded as LatLonPoint encodes (GeoEncodingUtils: the lower
 * bounds rounded up, the upper ones down, 90 and 180 nudged below), a box
 * crossing the dateline split in two longitude ranges, minLatitude 90
 * matching nothing. The relation is Lucene's per document over its points:
 * intersects (one point in the box), within (every point in it), disjoint
 * (none in it). A constant score (the boost), as Lucene's
 * ConstantScoreWeight.
 *
 * What trove does not reproduce answers unsupported_operation_exception
 * naming it: other shape types (point, polygon, lines, collections,
 * circle), indexed_shape, the contains relation, and geo_shape fields.
 *
 * It is a TV_Q_EXT node whose plan walks the segment's doc values (the
 * packed LatLonDocValuesField encoding, tv_geo_encode). tv_dsl_geo_node
 * builds it (or the match_none of an unmapped field or an empty box) for
 * every geo query, geo_distance's circle included.
 *
 * Alternatives rejected: a bitset from a points index (geo_point fields
 * keep doc values only), and decoding to degrees before comparing (the
 * encoded comparison is Lucene's, exact at the box's edges).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "query/parse.h"

#define LAT_DECODE (180.0 / 4294967296.0)
#define LON_DECODE (360.0 / 4294967296.0)

enum { REL_INTERSECTS, REL_WITHIN, REL_DISJOINT };

typedef struct geo_box {
    int32_t min_lat, max_lat;
    int32_t lon_lo[2], lon_hi[2]; /* one or two longitude ranges */
    int nlon;
    bool none;                    /* matches nothing */
    int relation;
} geo_box;

static int32_t enc_lat(double v, bool ceil_) {
    if (v == 90.0) v = nextafter(90.0, 0.0);
    double s = v / LAT_DECODE;
    return (int32_t)(ceil_ ? ceil(s) : floor(s));
}

static int32_t enc_lon(double v, bool ceil_) {
    if (v == 180.0) v = nextafter(180.0, 0.0);
    double s = v / LON_DECODE;
    return (int32_t)(ceil_ ? ceil(s) : floor(s));
}

/* LatLonPoint.newBoxQuery's bounds. */
static void box_init(geo_box *b, double min_lat, double max_lat, double min_lon, double max_lon) {
    memset(b, 0, sizeof *b);
    if (min_lat == 90.0) { b->none = true; return; }
    if (min_lon == 180.0) {
        if (max_lon == 180.0) { b->none = true; return; }
        if (max_lon < min_lon) min_lon = -180.0;
    }
    b->min_lat = enc_lat(min_lat, true);
    b->max_lat = enc_lat(max_lat, false);
    int32_t lo = enc_lon(min_lon, true), hi = enc_lon(max_lon, false);
    if (max_lon < min_lon) { /* across the dateline */
        b->lon_lo[0] = INT32_MIN;
        b->lon_hi[0] = hi;
        b->lon_lo[1] = lo;
        b->lon_hi[1] = INT32_MAX;
        b->nlon = 2;
    } else {
        b->lon_lo[0] = lo;
        b->lon_hi[0] = hi;
        b->nlon = 1;
    }
}

static bool box_has(const geo_box *b, int64_t packed) {
    int32_t la = (int32_t)(uint32_t)((uint64_t)packed >> 32);
    int32_t lo = (int32_t)(uint32_t)(uint64_t)packed;
    if (la < b->min_lat || la > b->max_lat) return false;
    for (int i = 0; i < b->nlon; i++)
        if (lo >= b->lon_lo[i] && lo <= b->lon_hi[i]) return true;
    return false;
}

static bool doc_matches(const geo_box *b, const int64_t *v, uint32_t n) {
    uint32_t in = 0;
    for (uint32_t i = 0; i < n; i++) in += box_has(b, v[i]);
    if (b->relation == REL_INTERSECTS) return in > 0;
    if (b->relation == REL_WITHIN) return in == n;
    return in == 0;
}

static bool geo_test(const void *st, const int64_t *v, uint32_t n, float *score) {
    (void)score;
    return doc_matches(st, v, n);
}

static tv_status geo_plan(tv_query *q, const tv_segview *sv, struct tv_plan_ctx *ctx, tv_iter **out) {
    return tv_iter_dv_scan(sv, q->field_id, geo_test, q->u.ext.state, q->score_boost, q->score_boost, ctx->arena, out);
}

static bool num(const tv_json *v, double *out) {
    if (!tv_json_is_number(v)) return false;
    *out = tv_json_as_double(v);
    return true;
}

static tv_status unsupported(tv_dsl *d, uint32_t off, const char *what) {
    return tv_dsl_error(d, TROVE_EUNSUPPORTED, off, "[geo_shape] %s is not supported by trove", what);
}

tv_status tv_dsl_geo_node(tv_dsl *d, const tv_field *f,
                          tv_status (*plan)(tv_query *q, const tv_segview *sv, struct tv_plan_ctx *ctx, tv_iter **out),
                          void *state, float boost, tv_query **out) {
    tv_query *q = tv_q_new(d, state ? TV_Q_EXT : TV_Q_MATCH_NONE);
    if (!q) return tv_error_oom(d->err);
    if (state) {
        q->field = f;
        q->field_id = f->id;
        q->u.ext.plan = plan;
        q->u.ext.state = state;
    }
    q->boost *= boost;
    *out = q;
    return TROVE_OK;
}

/* An envelope's corners: [[minLon, maxLat], [maxLon, minLat]]. */
static tv_status envelope(tv_dsl *d, const tv_json *co, double c[4]) {
    /* GeoJSON's parse errors are not reproduced: a malformed envelope is
     * refused by name */
    if (!co || co->type != TV_JSON_ARRAY || co->len != 2) return unsupported(d, co ? co->off : 0, "a malformed envelope");
    for (int i = 0; i < 2; i++) {
        const tv_json *p = &co->v.items[i];
        if (p->type != TV_JSON_ARRAY || p->len != 2 || !num(&p->v.items[0], &c[2 * i]) || !num(&p->v.items[1], &c[2 * i + 1]))
            return unsupported(d, p->off, "a malformed envelope");
    }
    return TROVE_OK;
}

tv_status tv_dsl_parse_geo_shape(tv_dsl *d, const tv_json *body, tv_query **out) {
    const tv_json_member *fm = NULL;
    float boost = 1.0f;
    bool ignore_unmapped = false;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        tv_status st = TROVE_OK;
        if (m->val.type == TV_JSON_OBJECT) {
            if (fm) return unsupported(d, m->val.off, "a query on two fields");
            fm = m;
        } else if (tv_streq(m->key, m->key_len, "boost")) {
            st = tv_dsl_float(d, "geo_shape", "boost", &m->val, &boost);
        } else if (tv_streq(m->key, m->key_len, "ignore_unmapped")) {
            st = tv_dsl_bool(d, "geo_shape", "ignore_unmapped", &m->val, &ignore_unmapped);
        } else if (tv_streq(m->key, m->key_len, "_name")) {
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "[geo_shape] query does not support [%s]", m->key);
        }
        if (st) return st;
    }
    if (!fm) return tv_dsl_error(d, TROVE_EARG, body->off, "fieldName is required");
    const tv_json *shape = NULL;
    int relation = REL_INTERSECTS;
    for (uint32_t i = 0; i < fm->val.len; i++) {
        const tv_json_member *m = &fm->val.v.members[i];
        if (tv_streq(m->key, m->key_len, "shape")) {
            shape = &m->val;
        } else if (tv_streq(m->key, m->key_len, "indexed_shape")) {
            return unsupported(d, m->val.off, "[indexed_shape]");
        } else if (tv_streq(m->key, m->key_len, "relation")) {
            const char *s = "";
            size_t n = 0;
            tv_dsl_scalar_text(&m->val, &s, &n);
            if (n == 10 && strncasecmp(s, "intersects", 10) == 0) relation = REL_INTERSECTS;
            else if (n == 6 && strncasecmp(s, "within", 6) == 0) relation = REL_WITHIN;
            else if (n == 8 && strncasecmp(s, "disjoint", 8) == 0) relation = REL_DISJOINT;
            else if (n == 8 && strncasecmp(s, "contains", 8) == 0) return unsupported(d, m->val.off, "relation [contains]");
            else return unsupported(d, m->val.off, "an unknown relation");
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off, "[geo_shape] query does not support [%s]", m->key);
        }
    }
    if (!shape) return unsupported(d, fm->val.off, "a query without [shape]");
    if (shape->type != TV_JSON_OBJECT) return unsupported(d, shape->off, "a shape that is not a GeoJSON object");
    const tv_json *ty = tv_json_get(shape, "type");
    const char *t = "";
    size_t tl = 0;
    if (ty) tv_dsl_scalar_text(ty, &t, &tl);
    if (!(tl == 8 && strncasecmp(t, "envelope", 8) == 0)) {
        char what[96];
        snprintf(what, sizeof what, "shape type [%.*s]", (int)TV_MIN(tl, 40), t);
        return unsupported(d, shape->off, what);
    }
    double c[4];
    tv_status st = envelope(d, tv_json_get(shape, "coordinates"), c);
    if (st) return st;
    double min_lon = c[0], max_lat = c[1], max_lon = c[2], min_lat = c[3];
    if (max_lat < min_lat) return tv_dsl_error(d, TROVE_EARG, shape->off, "max y cannot be less than min y");
    const tv_field *f = tv_dsl_field(d, fm->key, fm->key_len);
    if (!f || f->type == TV_FT_OBJECT) {
        if (!ignore_unmapped) {
            tv_dsl_error(d, TROVE_EQUERYSHARD, fm->val.off, "failed to find type for field [%s]", fm->key);
            if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
            return TROVE_EQUERYSHARD;
        }
        return tv_dsl_geo_node(d, NULL, NULL, NULL, boost, out);
    }
    if (f->type != TV_FT_GEO_POINT)
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, fm->val.off,
                            "[geo_shape] query on a field of type [%s] is not supported by trove",
                            tv_field_declared_type(f));
    if (!(min_lat >= -90 && min_lat <= 90 && max_lat >= -90 && max_lat <= 90 && min_lon >= -180 && min_lon <= 180 &&
          max_lon >= -180 && max_lon <= 180))
        return unsupported(d, shape->off, "an envelope outside [-90, 90] x [-180, 180]");
    geo_box *b = tv_arena_alloc(d->arena, sizeof *b);
    if (!b) return tv_error_oom(d->err);
    box_init(b, min_lat, max_lat, min_lon, max_lon);
    b->relation = relation;
    if (b->none && relation != REL_DISJOINT) return tv_dsl_geo_node(d, NULL, NULL, NULL, boost, out);
    if (b->none) b->nlon = 0; /* disjoint from an empty box: every doc with a point */
    return tv_dsl_geo_node(d, f, geo_plan, b, boost, out);
}

/* ------------------------------------------------------ geo_bounding_box */

/* A box node over field f (INTERSECTS, GeoPointFieldType.geoShapeQuery of
 * the Rectangle). */
static tv_status box_query(tv_dsl *d, const tv_field *f, double top, double left, double bottom, double right,
                           float boost, tv_query **out) {
    geo_box *b = tv_arena_alloc(d->arena, sizeof *b);
    if (!b) return tv_error_oom(d->err);
    box_init(b, bottom, top, left, right);
    b->relation = REL_INTERSECTS;
    return tv_dsl_geo_node(d, f, geo_plan, b->none ? NULL : b, boost, out);
}

static tv_status bbox_parse_error(tv_dsl *d, uint32_t off, const char *inner) {
    return tv_dsl_error(d, TROVE_EPARSEEXC, off, "failed to parse [geo_bounding_box] query. [%s]", inner);
}

/* GeoBoundingBoxQueryBuilder: fromXContent (GeoBoundingBox.parseBoundingBox
 * for the corners), setCorners' checks, then doToQuery's. */
tv_status tv_dsl_parse_geo_bounding_box(tv_dsl *d, const tv_json *body, tv_query **out) {
    const tv_json_member *fm = NULL;
    float boost = 1.0f;
    bool ignore_unmapped = false;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        tv_status st = TROVE_OK;
        if (v->type == TV_JSON_OBJECT) {
            fm = m;
        } else if (tv_streq(m->key, m->key_len, "boost")) {
            st = tv_dsl_float(d, "geo_bounding_box", "boost", v, &boost);
        } else if (tv_streq(m->key, m->key_len, "ignore_unmapped")) {
            st = tv_dsl_bool(d, "geo_bounding_box", "ignore_unmapped", v, &ignore_unmapped);
        } else if (tv_streq(m->key, m->key_len, "_name")) {
        } else if (tv_streq(m->key, m->key_len, "validation_method")) {
            const char *s = "";
            size_t n = 0;
            tv_dsl_scalar_text(v, &s, &n);
            if (!(n == 6 && strncasecmp(s, "strict", 6) == 0))
                return tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off,
                                    "[geo_bounding_box] validation_method [%.*s] is not supported by trove",
                                    (int)TV_MIN(n, 100), s);
        } else if (tv_streq(m->key, m->key_len, "type")) {
            const char *s = "";
            size_t n = 0;
            tv_dsl_scalar_text(v, &s, &n);
            if (!(n == 6 && strncasecmp(s, "memory", 6) == 0) && !(n == 7 && strncasecmp(s, "indexed", 7) == 0))
                return tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off, "[geo_bounding_box] type [%.*s] is not supported by trove",
                                    (int)TV_MIN(n, 100), s);
        } else if (v->type != TV_JSON_ARRAY) {
            return tv_dsl_error(d, TROVE_EPARSE, v->off, "failed to parse [geo_bounding_box] query. unexpected field [%s]",
                                m->key);
        }
        if (st) return st;
    }
    if (!fm) return tv_dsl_error(d, TROVE_EPARSEEXC, body->off, "failed to parse [geo_bounding_box] query. bounding box not provided");
    double top = NAN, bottom = NAN, left = NAN, right = NAN;
    for (uint32_t i = 0; i < fm->val.len; i++) {
        const tv_json_member *m = &fm->val.v.members[i];
        const tv_json *v = &m->val;
        const char *k = m->key;
        size_t kl = m->key_len;
        double *lat = NULL, *lon = NULL, *one = NULL;
        if (tv_streq(k, kl, "top_left") || tv_streq(k, kl, "topLeft")) lat = &top, lon = &left;
        else if (tv_streq(k, kl, "bottom_right") || tv_streq(k, kl, "bottomRight")) lat = &bottom, lon = &right;
        else if (tv_streq(k, kl, "top_right") || tv_streq(k, kl, "topRight")) lat = &top, lon = &right;
        else if (tv_streq(k, kl, "bottom_left") || tv_streq(k, kl, "bottomLeft")) lat = &bottom, lon = &left;
        else if (tv_streq(k, kl, "top")) one = &top;
        else if (tv_streq(k, kl, "bottom")) one = &bottom;
        else if (tv_streq(k, kl, "left")) one = &left;
        else if (tv_streq(k, kl, "right")) one = &right;
        else if (tv_streq(k, kl, "wkt"))
            return tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off, "[geo_bounding_box] [wkt] is not supported by trove");
        else {
            char inner[200];
            snprintf(inner, sizeof inner, "failed to parse bounding box. unexpected field [%s]", k);
            return bbox_parse_error(d, v->off, inner);
        }
        if (one) {
            if (!num(v, one) && !(v->type == TV_JSON_STRING && tv_java_parse_double(v->v.s, v->len, one)))
                return tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off,
                                    "[geo_bounding_box] a [%s] that is not a number is not supported by trove", k);
        } else {
            tv_status st = tv_dsl_geo_point(d, v, lat, lon);
            if (st) {
                char inner[300];
                snprintf(inner, sizeof inner, "%s", d->err ? d->err->reason : "");
                tv_error_clear(d->err);
                return bbox_parse_error(d, v->off, inner);
            }
        }
    }
    if (isnan(top) || isnan(bottom) || isnan(left) || isnan(right))
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, fm->val.off,
                            "[geo_bounding_box] a bounding box without all four sides is not supported by trove");
    /* setCorners (STRICT: every builder starts strict) */
    char a[40], b[40];
    if (top < bottom) {
        tv_fmt_double(top, a);
        tv_fmt_double(bottom, b);
        return tv_dsl_error(d, TROVE_EARG, fm->val.off, "top is below bottom corner: %s vs. %s", a, b);
    }
    if (top == bottom) {
        tv_fmt_double(top, a);
        tv_fmt_double(bottom, b);
        return tv_dsl_error(d, TROVE_EARG, fm->val.off, "top cannot be the same as bottom: %s == %s", a, b);
    }
    if (left == right) {
        tv_fmt_double(left, a);
        tv_fmt_double(right, b);
        return tv_dsl_error(d, TROVE_EARG, fm->val.off, "left cannot be the same as right: %s == %s", a, b);
    }
    const tv_field *f = tv_dsl_field(d, fm->key, fm->key_len);
    if (!f || f->type == TV_FT_OBJECT) {
        if (ignore_unmapped) return tv_dsl_geo_node(d, NULL, NULL, NULL, boost, out);
        tv_dsl_error(d, TROVE_EQUERYSHARD, fm->val.off, "failed to find geo field [%s]", fm->key);
        if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
        return TROVE_EQUERYSHARD;
    }
    if (f->type != TV_FT_GEO_POINT)
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, fm->val.off,
                            "[geo_bounding_box] query on a field of type [%s] is not supported by trove",
                            tv_field_declared_type(f));
    /* checkLatLon, on the shard: a query_shard_exception caused by a
     * query_validation_exception, a type trove's error table lacks */
    if (!(top >= -90 && top <= 90 && bottom >= -90 && bottom <= 90 && left >= -180 && left <= 180 && right >= -180 &&
          right <= 180))
        return tv_dsl_error(d, TROVE_EUNSUPPORTED, fm->val.off,
                            "[geo_bounding_box] corners outside [-90, 90] x [-180, 180] (a validation failure) are not "
                            "supported by trove");
    return box_query(d, f, top, left, bottom, right, boost, out);
}
