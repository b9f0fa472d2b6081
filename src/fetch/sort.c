/*
 * sort.c — the "sort" of a search body, of top_hits and of inner_hits:
 * SortBuilder.fromXContent's forms (a name, {name: order}, {name: {...}},
 * an array of those, or an object of several), _score, _doc and field
 * sorts with order, missing (_first/_last), mode, unmapped_type, nested
 * {path, filter}, numeric_type and format; _geo_distance
 * (GeoDistanceSortBuilder.fromXContent: points, unit, distance_type, mode,
 * validation_method, ignore_unmapped); OpenSearch's parse errors. The
 * search runs every option it parses; top_hits and inner_hits
 * (hit_sort.c) refuse by name the ones they do not run.
 *
 * Ownership: specs live in the parser's arena.
 */
#include <strings.h>

#include "fetch/fetch.h"
#include "query/parse.h"

typedef TV_VEC(tv_sort_spec) sort_vec;

/* A point of a _geo_distance sort into the points vector. */
typedef TV_VEC(double) dvec;

static tv_status add_point(tv_dsl *d, dvec *pts, double lat, double lon) {
    if (tv_vec_push(pts, lat) || tv_vec_push(pts, lon)) return tv_error_oom(d->err);
    return TROVE_OK;
}

/* The point of key k (an object or a string) of a _geo_distance sort:
 * the field name is set once (GeoDistanceSortBuilder refuses another). */
static tv_status field_point(tv_dsl *d, const tv_json *v, const char *k, size_t kl, const char **field, size_t *fl,
                             dvec *pts) {
    if (*field && !(*fl == kl && !memcmp(*field, k, kl)))
        return tv_dsl_error(d, TROVE_EPARSE, v->off, "Trying to reset fieldName to [%s], already set to [%.*s].", k,
                            (int)*fl, *field);
    *field = k;
    *fl = kl;
    double lat, lon;
    tv_status st = tv_dsl_geo_point(d, v, &lat, &lon);
    return st ? st : add_point(d, pts, lat, lon);
}

static bool text_is(const tv_json *o, const char *s, size_t n) {
    return o->len == n && strncasecmp(o->v.s, s, n) == 0;
}

/* GeoDistanceSortBuilder.fromXContent: the field's points (an array of
 * points or one [lon, lat], an object, a string), order, unit,
 * distance_type, mode, validation_method, ignore_unmapped; nested
 * answers unsupported. */
static tv_status parse_geo(tv_dsl *d, const tv_json *o, tv_sort_spec *s) {
    dvec pts = {0};
    tv_status st = TROVE_OK;
    s->kind = TV_SORT_GEO;
    s->desc = false;
    s->geo_unit_m = 1.0;
    s->geo_validation = -1;
    const char *field = NULL;
    size_t fl = 0;
    for (uint32_t i = 0; i < o->len && !st; i++) {
        const tv_json_member *m = &o->v.members[i];
        const tv_json *v = &m->val;
        const char *k = m->key;
        size_t kl = m->key_len;
        double lat, lon;
        if (v->type == TV_JSON_ARRAY) {
            /* parseGeoPoints: numbers pair up as [lon, lat], else points */
            for (uint32_t j = 0; j < v->len && !st; j++) {
                const tv_json *p = &v->v.items[j];
                if (tv_json_is_number(p)) {
                    if (j + 1 >= v->len || !tv_json_is_number(&v->v.items[j + 1])) {
                        st = tv_dsl_error(d, TROVE_EPARSEEXC, p->off,
                                          "geo point parsing: expected second number but got [%s] instead",
                                          j + 1 >= v->len ? "END_ARRAY" : tv_dsl_token_name(&v->v.items[j + 1]));
                        break;
                    }
                    lon = tv_json_as_double(p);
                    lat = tv_json_as_double(&v->v.items[++j]);
                    st = add_point(d, &pts, lat, lon);
                } else if (!(st = tv_dsl_geo_point(d, p, &lat, &lon))) {
                    st = add_point(d, &pts, lat, lon);
                }
            }
            field = k;
            fl = kl;
        } else if (v->type == TV_JSON_OBJECT) {
            if (tv_streq(k, kl, "nested") || tv_streq(k, kl, "nested_filter")) {
                st = tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off, "[_geo_distance] sort option [%s] is not supported by trove", k);
            } else {
                st = field_point(d, v, k, kl, &field, &fl, &pts);
            }
        } else if (tv_streq(k, kl, "order")) {
            if (v->type == TV_JSON_STRING && text_is(v, "asc", 3)) s->desc = false;
            else if (v->type == TV_JSON_STRING && text_is(v, "desc", 4)) s->desc = true;
            else st = tv_dsl_error(d, TROVE_EARG, v->off, "Unknown SortOrder [%s]", v->type == TV_JSON_STRING ? v->v.s : "");
        } else if (tv_streq(k, kl, "unit")) {
            const char *t = "";
            size_t n = 0;
            tv_dsl_scalar_text(v, &t, &n);
            if (!(s->geo_unit_m = tv_geo_unit(t, n)))
                st = tv_dsl_error(d, TROVE_EARG, v->off, "No distance unit match [%.*s]", (int)TV_MIN(n, 200), t);
        } else if (tv_streq(k, kl, "distance_type")) {
            const char *t = "";
            size_t n = 0;
            tv_dsl_scalar_text(v, &t, &n);
            if (n == 5 && !strncasecmp(t, "plane", 5)) s->geo_plane = true;
            else if (n == 3 && !strncasecmp(t, "arc", 3)) s->geo_plane = false;
            else st = tv_dsl_error(d, TROVE_EARG, v->off, "No geo distance for [%.*s]", (int)TV_MIN(n, 200), t);
        } else if (tv_streq(k, kl, "validation_method")) {
            const char *t = "";
            size_t n = 0;
            tv_dsl_scalar_text(v, &t, &n);
            if (n == 6 && !strncasecmp(t, "coerce", 6)) s->geo_validation = 0;
            else if (n == 16 && !strncasecmp(t, "ignore_malformed", 16)) s->geo_validation = 1;
            else if (n == 6 && !strncasecmp(t, "strict", 6)) s->geo_validation = 2;
            else st = tv_dsl_error(d, TROVE_EARG, v->off, "operation type [%.*s] not supported.", (int)TV_MIN(n, 200), t);
        } else if (tv_streq(k, kl, "mode")) {
            static const char *const modes[] = {"min", "max", "sum", "avg", "median"};
            const char *t = "";
            size_t n = 0;
            tv_dsl_scalar_text(v, &t, &n);
            s->mode = TV_SORT_MODE_DEFAULT;
            for (int q = 0; q < 5; q++)
                if (n == strlen(modes[q]) && strncasecmp(t, modes[q], n) == 0) s->mode = (tv_sort_mode)(q + 1);
            if (s->mode == TV_SORT_MODE_DEFAULT)
                st = tv_dsl_error(d, TROVE_EARG, v->off, "Unknown SortMode [%.*s]", (int)TV_MIN(n, 200), t);
            else if (s->mode == TV_SORT_MODE_SUM)
                st = tv_dsl_error(d, TROVE_EARG, v->off, "sort_mode [sum] isn't supported for sorting by geo distance");
        } else if (tv_streq(k, kl, "ignore_unmapped")) {
            st = tv_dsl_bool(d, "_geo_distance", "ignore_unmapped", v, &s->geo_ignore_unmapped);
        } else if (tv_streq(k, kl, "nested_path")) {
            st = tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off, "[_geo_distance] sort option [nested_path] is not supported by trove");
        } else if (v->type == TV_JSON_STRING) {
            st = field_point(d, v, k, kl, &field, &fl, &pts);
        } else if (field && fl == kl && !memcmp(field, k, kl)) {
            st = tv_dsl_error(d, TROVE_EPARSE, v->off, "Only geohashes of type string supported for field [%s]", k);
        } else {
            st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[_geo_distance] does not support [%s]", k);
        }
    }
    if (!st && !field) st = tv_dsl_error(d, TROVE_EARG, o->off, "fieldName must not be null");
    if (!st && !pts.len) st = tv_dsl_error(d, TROVE_EARG, o->off, "Geo distance sorting needs at least one point.");
    if (!st) {
        s->field = tv_arena_strndup(d->arena, field, fl);
        s->field_len = fl;
        s->geo_npoints = (uint32_t)(pts.len / 2);
        s->geo_points = tv_arena_alloc(d->arena, pts.len * sizeof(double));
        if (!s->field || !s->geo_points) st = tv_error_oom(d->err);
        else memcpy(s->geo_points, pts.items, pts.len * sizeof(double));
    }
    tv_vec_fini(&pts);
    return st;
}

/* ScriptSortBuilder.fromXContent: {"_script": {script, type, order, mode}};
 * the script compiles per target in the search. */
static tv_status parse_script_sort(tv_dsl *d, const tv_json *v, const tv_json *opts, sort_vec *out) {
    tv_sort_spec s = {0};
    s.kind = TV_SORT_SCRIPT;
    const tv_json *type = NULL;
    if (!opts || opts->type != TV_JSON_OBJECT)
        return tv_dsl_error(d, TROVE_EPARSE, v->off, "[_script] unexpected token [%s]", opts ? tv_dsl_token_name(opts) : "VALUE_STRING");
    for (uint32_t i = 0; i < opts->len; i++) {
        const tv_json_member *m = &opts->v.members[i];
        const tv_json *o = &m->val;
        if (tv_streq(m->key, m->key_len, "script")) {
            s.script = o;
        } else if (tv_streq(m->key, m->key_len, "type")) {
            if (o->type != TV_JSON_STRING)
                return tv_dsl_error(d, TROVE_EXCONTENT, o->off, "[_script] type doesn't support values of type: %s", tv_dsl_token_name(o));
            type = o;
        } else if (tv_streq(m->key, m->key_len, "order")) {
            if (o->type == TV_JSON_STRING && tv_streq(o->v.s, o->len, "asc")) s.desc = false;
            else if (o->type == TV_JSON_STRING && tv_streq(o->v.s, o->len, "desc")) s.desc = true;
            else return tv_dsl_error(d, TROVE_EARG, o->off, "Unknown SortOrder [%s]", o->type == TV_JSON_STRING ? o->v.s : "");
        } else if (tv_streq(m->key, m->key_len, "mode")) {
            /* one value per document: every mode picks it */
            static const char *const modes[] = {"min", "max", "sum", "avg", "median"};
            bool ok = false;
            for (int k = 0; k < 5 && o->type == TV_JSON_STRING; k++)
                ok |= o->len == strlen(modes[k]) && strncasecmp(o->v.s, modes[k], o->len) == 0;
            if (!ok) return tv_dsl_error(d, TROVE_EARG, o->off, "Unknown SortMode [%s]", o->type == TV_JSON_STRING ? o->v.s : "");
        } else if (tv_streq(m->key, m->key_len, "nested")) {
            return tv_dsl_error(d, TROVE_EUNSUPPORTED, o->off, "[_script] sort option [nested] is not supported by trove");
        } else {
            return tv_dsl_error(d, TROVE_EXCONTENT, m->key_off, "[_script] unknown field [%s]", m->key);
        }
    }
    if (!s.script || !type) {
        const char *miss = !s.script && !type ? "script, type" : !s.script ? "script" : "type";
        return tv_dsl_error(d, TROVE_EXCONTENT, opts->off, "Required [%s]", miss);
    }
    if (tv_streq(type->v.s, type->len, "string")) s.script_string = true;
    else if (!tv_streq(type->v.s, type->len, "number"))
        return tv_error_set(d->err, TROVE_EARG, "Unknown ScriptSortType [%s]", type->v.s);
    if (tv_vec_push(out, s)) return tv_error_oom(d->err);
    return TROVE_OK;
}

static tv_status parse_entry(tv_dsl *d, const tv_json *v, sort_vec *out) {
    tv_sort_spec s = {0};
    const char *name;
    size_t nl;
    const tv_json *opts = NULL;
    if (v->type == TV_JSON_STRING) {
        name = v->v.s;
        nl = v->len;
    } else if (v->type == TV_JSON_OBJECT && v->len == 1) {
        name = v->v.members[0].key;
        nl = v->v.members[0].key_len;
        opts = &v->v.members[0].val;
    } else {
        return tv_dsl_error(d, TROVE_EPARSE, v->off, "[sort] unexpected token [%s]", tv_dsl_token_name(v));
    }
    if (tv_streq(name, nl, "_score")) { s.kind = TV_SORT_SCORE; s.desc = true; }
    else if (tv_streq(name, nl, "_doc")) { s.kind = TV_SORT_DOC; s.desc = false; }
    else if (tv_streq(name, nl, "_shard_doc")) {
        /* ShardDocSortBuilder (the api checks the point in time): an
         * ObjectParser of "order" alone */
        s.kind = TV_SORT_DOC;
        s.shard_doc = true;
        s.desc = false;
        if (opts && opts->type == TV_JSON_OBJECT) {
            for (uint32_t i = 0; i < opts->len; i++) {
                const tv_json_member *m = &opts->v.members[i];
                const tv_json *o = &m->val;
                if (!tv_streq(m->key, m->key_len, "order")) {
                    uint32_t l = 0, c = 0;
                    if (d->src) tv_json_linecol(d->src, d->src_len, m->key_off, &l, &c);
                    return tv_dsl_error(d, TROVE_EXCONTENT, m->key_off, "[%u:%u] [_shard_doc] unknown field [%s]", l, c,
                                        m->key);
                }
                if (o->type == TV_JSON_STRING && tv_streq(o->v.s, o->len, "asc")) s.desc = false;
                else if (o->type == TV_JSON_STRING && tv_streq(o->v.s, o->len, "desc")) s.desc = true;
                else return tv_dsl_error(d, TROVE_EARG, o->off, "Unknown SortOrder [%s]", o->type == TV_JSON_STRING ? o->v.s : "");
            }
            if (tv_vec_push(out, s)) return tv_error_oom(d->err);
            return TROVE_OK;
        }
    }
    else if (tv_streq(name, nl, "_geo_distance") || tv_streq(name, nl, "_geoDistance")) {
        if (!opts || opts->type != TV_JSON_OBJECT)
            return tv_dsl_error(d, TROVE_EPARSE, v->off, "[_geo_distance] sort expects an object");
        tv_status st = parse_geo(d, opts, &s);
        if (st) return st;
        if (tv_vec_push(out, s)) return tv_error_oom(d->err);
        return TROVE_OK;
    }
    else if (tv_streq(name, nl, "_script"))
        return parse_script_sort(d, v, opts, out);
    else { s.kind = TV_SORT_FIELD; s.desc = false; s.field = tv_arena_strndup(d->arena, name, nl); s.field_len = nl; }
    if (opts && opts->type == TV_JSON_STRING) {
        if (tv_streq(opts->v.s, opts->len, "asc")) s.desc = false;
        else if (tv_streq(opts->v.s, opts->len, "desc")) s.desc = true;
        else return tv_dsl_error(d, TROVE_EARG, opts->off, "Unknown SortOrder [%s]", opts->v.s);
    } else if (opts && opts->type == TV_JSON_OBJECT) {
        for (uint32_t i = 0; i < opts->len; i++) {
            const tv_json_member *m = &opts->v.members[i];
            const tv_json *o = &m->val;
            if (tv_streq(m->key, m->key_len, "order") && o->type == TV_JSON_STRING) {
                if (tv_streq(o->v.s, o->len, "asc")) s.desc = false;
                else if (tv_streq(o->v.s, o->len, "desc")) s.desc = true;
                else return tv_dsl_error(d, TROVE_EARG, o->off, "Unknown SortOrder [%s]", o->v.s);
            } else if (tv_streq(m->key, m->key_len, "missing")) {
                if (o->type == TV_JSON_STRING && tv_streq(o->v.s, o->len, "_first")) s.missing_first = true;
                else if (o->type == TV_JSON_STRING && tv_streq(o->v.s, o->len, "_last")) s.missing_first = false;
                else return tv_dsl_error(d, TROVE_EUNSUPPORTED, o->off, "[sort] missing values other than _first/_last are not supported by trove");
            } else if (tv_streq(m->key, m->key_len, "unmapped_type") && o->type == TV_JSON_STRING) {
                s.unmapped_type = o->v.s;
            } else if (tv_streq(m->key, m->key_len, "mode") && o->type == TV_JSON_STRING) {
                /* SortMode.fromString: case-insensitive */
                static const char *const modes[] = {"min", "max", "sum", "avg", "median"};
                s.mode = TV_SORT_MODE_DEFAULT;
                for (int k = 0; k < 5; k++)
                    if (o->len == strlen(modes[k]) && strncasecmp(o->v.s, modes[k], o->len) == 0) s.mode = (tv_sort_mode)(k + 1);
                if (s.mode == TV_SORT_MODE_DEFAULT)
                    return tv_dsl_error(d, TROVE_EARG, o->off, "Unknown SortMode [%s]", o->v.s);
            } else if (tv_streq(m->key, m->key_len, "numeric_type")) {
                s.numeric_type = o;
            } else if (tv_streq(m->key, m->key_len, "format")) {
                s.format = o;
            } else if (tv_streq(m->key, m->key_len, "nested") && o->type == TV_JSON_OBJECT && s.kind == TV_SORT_FIELD) {
                for (uint32_t k = 0; k < o->len; k++) {
                    const tv_json_member *nm = &o->v.members[k];
                    if (tv_streq(nm->key, nm->key_len, "path") && nm->val.type == TV_JSON_STRING) {
                        s.nested_path = nm->val.v.s;
                    } else if (tv_streq(nm->key, nm->key_len, "filter") && nm->val.type == TV_JSON_OBJECT) {
                        s.nested_filter = &nm->val;
                    } else if (tv_streq(nm->key, nm->key_len, "nested") || tv_streq(nm->key, nm->key_len, "max_children")) {
                        return tv_dsl_error(d, TROVE_EUNSUPPORTED, nm->val.off,
                                            "[sort] option [nested.%s] is not supported by trove", nm->key);
                    } else {
                        return tv_dsl_error(d, TROVE_EPARSE, nm->val.off, "[nested] unknown field [%s]", nm->key);
                    }
                }
                if (!s.nested_path) return tv_dsl_error(d, TROVE_EPARSE, o->off, "[nested] requires 'path' field");
            } else {
                return tv_dsl_error(d, TROVE_EPARSE, o->off, "[%s] unknown field [%s]", s.kind == TV_SORT_FIELD ? "field_sort" : "sort", m->key);
            }
        }
    } else if (opts) {
        return tv_dsl_error(d, TROVE_EPARSE, opts->off, "[sort] unexpected token [%s]", tv_dsl_token_name(opts));
    }
    if (tv_vec_push(out, s)) return tv_error_oom(d->err);
    return TROVE_OK;
}

tv_status tv_sort_parse(tv_dsl *d, const tv_json *v, tv_sort_spec **out, size_t *n) {
    sort_vec specs = {0};
    tv_status st = TROVE_OK;
    *out = NULL;
    *n = 0;
    if (v->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len && !st; i++) st = parse_entry(d, &v->v.items[i], &specs);
    } else if (v->type == TV_JSON_OBJECT) {
        for (uint32_t i = 0; i < v->len && !st; i++) {
            tv_json one = {0};
            one.type = TV_JSON_OBJECT;
            one.len = 1;
            one.off = v->v.members[i].key_off;
            one.v.members = &v->v.members[i];
            st = parse_entry(d, &one, &specs);
        }
    } else {
        st = parse_entry(d, v, &specs);
    }
    if (!st && specs.len) {
        *out = tv_arena_alloc(d->arena, specs.len * sizeof **out);
        if (!*out) st = tv_error_oom(d->err);
        else {
            memcpy(*out, specs.items, specs.len * sizeof **out);
            *n = specs.len;
        }
    }
    tv_vec_fini(&specs);
    return st;
}
