/*
 * qscript.c — Painless in searches: what every search-side script context
 * (the script and script_score queries, function_score's script_score,
 * script_fields, script sorts, bucket_script / bucket_selector, moving_fn)
 * shares.
 *
 * Script.parse: the string short form or {source|id, lang, params,
 * options} with OpenSearch's messages; stored scripts come from the api
 * layer through tv_search_params.stored_script. Compilation goes through
 * the script layer's process-wide cache (tv_script_get) once per script of
 * the request, and the request holds a reference (tv_qscripts) until it
 * ends, so the cache may evict a script while a search runs it.
 *
 * A run per document (tv_qscript_run) evaluates the tree in a scratch
 * arena reset before each run: a search over a million documents costs
 * one arena's worth of memory, not a million runs'. `doc['f']` is
 * ScriptDocValues over the segment's doc values, typed as OpenSearch's
 * field data types them: Longs (long, integer, short, byte, _seq_no),
 * Doubles (double, float, half_float, scaled_float), Strings (keyword, ip
 * as its text), Booleans, Dates (JodaCompatibleZonedDateTime at UTC, to
 * the nanosecond for date_nanos), GeoPoints (the quantized degrees).
 * Unsigned longs (BigInteger), binary and range fields have no value type
 * here: reading one is a runtime error naming what trove lacks. A field
 * the mapping lacks is "No field found for [f] in mapping"; text without
 * field data and fields without doc values give OpenSearch's
 * IllegalArgumentException texts. params._source (SourceLookup: a HashMap
 * of the stored _source) is parsed for a run only when the script's text
 * names _source, so scripts that do not read it never decompress a
 * source. Alternatives rejected: building the doc values of every field
 * up front (most scripts read one or two fields), caching
 * ScriptDocValues per segment (a run asks each field once).
 *
 * The score context's functions that need this layer (ScoreScriptUtils:
 * the geo and date decays, randomScore; GeoPoints' distances) are the
 * script layer's host callback here: origins parsed as GeoUtils and the
 * default date parser do (date math, UTC, no "now"), scales as
 * DistanceUnit and TimeValue, distances by SloppyMath.haversinMeters,
 * the random score as murmur3 of the doc's base id (or the field's first
 * value as text) with the salted seed. A class binding's first arguments
 * are kept per segment (tv_qscript_exec.binds), as Painless keeps the
 * bound instance of a script instance (OpenSearch makes one per leaf).
 *
 * Failures: a compile error is raised on the shard (toQuery / the fetch
 * phase parse), a runtime error while the shard runs; both become the
 * script_exception of a shard failure (err->index), the ScriptException's
 * details kept in tv_qscripts.fail for the api layer, which answers
 * search_phase_execution_exception around it as OpenSearch does. A
 * result of the wrong type for its context is the ClassCastException
 * runtime error every context raises alike (tv_qscript_cast_fail).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "index/date.h"
#include "query/parse.h"

void tv_qscripts_init(tv_qscripts *c, const tv_search_params *params) {
    memset(c, 0, sizeof *c);
    if (params) {
        c->stored = params->stored_script;
        c->stored_ctx = params->stored_script_ctx;
    }
}

void tv_qscripts_fini(tv_qscripts *c) {
    for (uint32_t i = 0; i < c->nheld; i++) tv_script_release(c->held[i]);
    tv_free(c->held);
    c->held = NULL;
    c->nheld = c->cheld = 0;
}

static bool hold(tv_qscripts *c, tv_script *s) {
    if (c->nheld == c->cheld) {
        uint32_t nc = c->cheld ? c->cheld * 2 : 8;
        tv_script **h = tv_realloc(c->held, nc * sizeof *h);
        if (!h) return false;
        c->held = h;
        c->cheld = nc;
    }
    c->held[c->nheld++] = s;
    return true;
}

tv_status tv_qscript_fail(const tv_qscript *qs, const char *src, size_t len, tv_qscripts *c,
                          const tv_script_error *se, tv_error *err, const char *index) {
    if (se->code == TROVE_ENOMEM) return tv_error_oom(err);
    if (qs) {
        src = qs->src;
        len = qs->len;
        if (!c) c = qs->owner;
    }
    if (err && err->code) return err->code; /* the first error wins */
    tv_status st;
    if (se->code != TROVE_ESCRIPT) {
        st = tv_error_set(err, se->code ? se->code : TROVE_EINTERNAL, "%s", se->cause_reason);
    } else {
        if (c && !c->fail.set) {
            c->fail.set = true;
            c->fail.err = *se;
            c->fail.source = src;
            c->fail.len = len;
        }
        st = tv_error_set(err, TROVE_ESCRIPT, "%s", se->compile ? "compile error" : "runtime error");
    }
    if (err && index) snprintf(err->index, sizeof err->index, "%s", index);
    return st;
}

tv_status tv_qscript_cast_fail(const tv_qscript *qs, const char *what, const char *to, tv_error *err,
                               const char *index) {
    tv_script_error se;
    memset(&se, 0, sizeof se);
    se.code = TROVE_ESCRIPT;
    se.cause = TROVE_ECLASSCAST;
    snprintf(se.cause_reason, sizeof se.cause_reason, "Cannot cast %s to %s", what, to);
    return tv_qscript_fail(qs, NULL, 0, NULL, &se, err, index);
}

/* ------------------------------------------------------------ Script.parse */

tv_status tv_dsl_script(tv_dsl *d, const tv_json *v, unsigned globals, tv_qscript **out) {
    const char *src = NULL, *id = NULL;
    size_t len = 0;
    const tv_json *params = NULL, *lang = NULL;
    if (v->type == TV_JSON_STRING) {
        src = v->v.s;
        len = v->len;
    } else if (v->type != TV_JSON_OBJECT) {
        return tv_dsl_error(d, TROVE_EXCONTENT, v->off, "[script] Expected START_OBJECT but was: %s",
                            tv_dsl_token_name(v));
    } else {
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json_member *m = &v->v.members[i];
            const tv_json *x = &m->val;
            if (tv_streq(m->key, m->key_len, "source") || tv_streq(m->key, m->key_len, "id")) {
                if (src || id)
                    return tv_error_set(d->err, TROVE_EARG, "must only use one of [source, id] when specifying a script");
                if (m->key[0] == 's') {
                    if (x->type == TV_JSON_OBJECT)
                        return tv_error_set(d->err, TROVE_EUNSUPPORTED,
                                            "trove does not support script templates ([source] as an object)");
                    if (x->type != TV_JSON_STRING)
                        return tv_dsl_error(d, TROVE_EXCONTENT, x->off, "[script] source doesn't support values of type: %s",
                                            tv_dsl_token_name(x));
                    src = x->v.s;
                    len = x->len;
                } else {
                    if (x->type != TV_JSON_STRING)
                        return tv_dsl_error(d, TROVE_EXCONTENT, x->off, "[script] id doesn't support values of type: %s",
                                            tv_dsl_token_name(x));
                    id = x->v.s;
                }
            } else if (tv_streq(m->key, m->key_len, "lang")) {
                if (x->type != TV_JSON_STRING)
                    return tv_dsl_error(d, TROVE_EXCONTENT, x->off, "[script] lang doesn't support values of type: %s",
                                        tv_dsl_token_name(x));
                lang = x;
            } else if (tv_streq(m->key, m->key_len, "params")) {
                if (x->type != TV_JSON_OBJECT)
                    return tv_dsl_error(d, TROVE_EXCONTENT, x->off, "[script] params doesn't support values of type: %s",
                                        tv_dsl_token_name(x));
                params = x;
            } else if (tv_streq(m->key, m->key_len, "options")) {
                if (x->type != TV_JSON_OBJECT)
                    return tv_dsl_error(d, TROVE_EXCONTENT, x->off, "[script] options doesn't support values of type: %s",
                                        tv_dsl_token_name(x));
            } else {
                return tv_dsl_error(d, TROVE_EXCONTENT, m->key_off, "[script] unknown field [%s]", m->key);
            }
        }
        if (!src && !id)
            return tv_error_set(d->err, TROVE_EARG, "must specify either [source] for an inline script or [id] for a stored script");
        if (id && lang) return tv_error_set(d->err, TROVE_EARG, "lang cannot be specified for stored scripts");
        if (lang && !tv_streq(lang->v.s, lang->len, "painless")) {
            if (tv_streq(lang->v.s, lang->len, "mustache") || tv_streq(lang->v.s, lang->len, "expression"))
                return tv_error_set(d->err, TROVE_EUNSUPPORTED, "trove does not support script lang [%s]", lang->v.s);
            return tv_error_set(d->err, TROVE_EARG, "script_lang not supported [%s]", lang->v.s);
        }
    }
    if (!d->scripts) return tv_error_set(d->err, TROVE_EUNSUPPORTED, "trove does not support scripts in this request");
    if (id) {
        const char *s = d->scripts->stored ? d->scripts->stored(d->scripts->stored_ctx, id, &len) : NULL;
        if (!d->scripts->stored)
            return tv_error_set(d->err, TROVE_EUNSUPPORTED, "trove does not support stored scripts in this request");
        if (!s) return tv_error_set(d->err, TROVE_ENOTFOUND, "unable to find script [%s] in cluster state", id);
        src = s;
    }
    tv_qscript *qs = tv_arena_calloc(d->arena, 1, sizeof *qs);
    char *copy = qs ? tv_arena_strndup(d->arena, src, len) : NULL;
    if (!copy) return tv_error_oom(d->err);
    qs->src = copy;
    qs->len = len;
    qs->owner = d->scripts;
    qs->wants_source = (globals & TV_SCRIPT_G_DOC) && strstr(copy, "_source") != NULL;
    tv_status st = params ? tv_sv_from_json(d->arena, params, false, &qs->params)
                          : (tv_sv_map_new(d->arena, false, &qs->params) ? TROVE_OK : TROVE_ENOMEM);
    if (st == TROVE_ENOMEM) return tv_error_oom(d->err);
    if (st) return tv_error_set(d->err, st, "script params hold a number trove cannot represent");
    tv_script_error se;
    memset(&se, 0, sizeof se);
    qs->s = tv_script_get(copy, len, globals, &se);
    if (!qs->s) return tv_qscript_fail(qs, NULL, 0, d->scripts, &se, d->err, d->index);
    if (!hold(d->scripts, qs->s)) {
        tv_script_release(qs->s);
        return tv_error_oom(d->err);
    }
    *out = qs;
    return TROVE_OK;
}

/* ------------------------------------------------------------ the doc accessor */

static tv_status doc_fail(tv_script_error *e, tv_status cause, const char *fmt, const char *a, const char *b) {
    e->cause = cause;
    snprintf(e->cause_reason, sizeof e->cause_reason, fmt, a, b);
    return TROVE_ESCRIPT;
}

static tv_status doc_values(void *ud, const char *name, size_t len, tv_arena *a, tv_sv *out, tv_script_error *e) {
    tv_qscript_exec *x = ud;
    char fname[256];
    snprintf(fname, sizeof fname, "%.*s", (int)TV_MIN(len, sizeof fname - 1), name);
    if (tv_streq(name, len, "_seq_no")) { /* SeqNoFieldMapper's doc values: Longs */
        if (!tv_sv_list_new(a, TV_SV_DOCVALUES, out)) return TROVE_ENOMEM;
        out->v.list->field = "_seq_no";
        if (!x->seg) return TROVE_OK;
        tv_doc_meta meta;
        memset(&meta, 0, sizeof meta);
        tv_status st = tv_segment_doc(x->seg, x->doc, a, &meta, NULL, NULL);
        if (st == TROVE_ENOMEM) return st;
        if (st == TROVE_OK && !tv_sv_list_add(a, out->v.list, tv_sv_long(meta.seq_no))) return TROVE_ENOMEM;
        return TROVE_OK;
    }
    const tv_field *f = x->mapping ? tv_mapping_field(x->mapping, name, len) : NULL;
    if (!f || f->type == TV_FT_OBJECT) return doc_fail(e, TROVE_EARG, "No field found for [%s] in mapping%s", fname, "");
    if (f->type == TV_FT_TEXT || f->type == TV_FT_MATCH_ONLY_TEXT)
        return doc_fail(e, TROVE_EARG,
                        "Text fields are not optimised for operations that require per-document field data like "
                        "aggregations and sorting, so these operations are disabled by default. Please use a keyword "
                        "field instead. Alternatively, set fielddata=true on [%s] in order to load field data by "
                        "uninverting the inverted index. Note that this can use significant memory.%s",
                        fname, "");
    const char *tn = tv_field_type_name(f->type);
    if (f->type == TV_FT_UNSIGNED_LONG || f->type == TV_FT_BINARY || f->type == TV_FT_RANGE)
        return doc_fail(e, TROVE_EUNSUPPORTED, "trove does not support the doc values of [%s] fields in scripts (field [%s])",
                        tn, fname);
    if (f->dv_kind == TV_DV_NONE || !f->doc_values)
        return doc_fail(e, TROVE_EARG,
                        "Can't load fielddata on [%s] because fielddata is unsupported on fields of type [%s]. Use doc values instead.",
                        fname, tn);
    if (!tv_sv_list_new(a, TV_SV_DOCVALUES, out)) return TROVE_ENOMEM;
    tv_sv_list *l = out->v.list;
    l->field = tv_arena_strndup(a, name, len);
    if (!l->field) return TROVE_ENOMEM;
    if (!x->seg) return TROVE_OK;
    if (f->dv_kind == TV_DV_NUMERIC) {
        int64_t buf[64], *v = buf;
        uint32_t n = tv_segment_dv_numeric(x->seg, f->id, x->doc, buf, 64);
        if (n > 64) {
            v = tv_arena_alloc(a, n * sizeof *v);
            if (!v) return TROVE_ENOMEM;
            n = tv_segment_dv_numeric(x->seg, f->id, x->doc, v, n);
        }
        if (f->type == TV_FT_DATE || f->type == TV_FT_DATE_NANOS) l->dv = TV_SV_DV_DATES;
        else if (f->type == TV_FT_GEO_POINT) l->dv = TV_SV_DV_GEO;
        for (uint32_t i = 0; i < n; i++) {
            tv_sv s;
            if (l->dv == TV_SV_DV_DATES) { /* Dates: JodaCompatibleZonedDateTime at UTC */
                int64_t per = f->type == TV_FT_DATE_NANOS ? 1000000000LL : 1000LL;
                int64_t sec = v[i] / per - (v[i] % per < 0), rem = v[i] - sec * per;
                if (!tv_sv_date(a, TV_SV_O_DATE, sec, (int32_t)(f->type == TV_FT_DATE_NANOS ? rem : rem * 1000000), &s))
                    return TROVE_ENOMEM;
            } else if (l->dv == TV_SV_DV_GEO) {
                double lat, lon;
                tv_geo_decode(v[i], &lat, &lon);
                if (!tv_sv_geo(a, lat, lon, &s)) return TROVE_ENOMEM;
            } else if (tv_field_type_is_floating(f->type)) s = tv_sv_double(tv_sortable_to_double(v[i]));
            else if (f->type == TV_FT_SCALED_FLOAT) s = tv_sv_double((double)v[i] / f->scaling_factor);
            else if (f->type == TV_FT_BOOLEAN) s = tv_sv_bool(v[i] != 0);
            else s = tv_sv_long(v[i]);
            if (!tv_sv_list_add(a, l, s)) return TROVE_ENOMEM;
        }
        return TROVE_OK;
    }
    uint32_t buf[64], *o = buf;
    uint32_t n = tv_segment_dv_ords(x->seg, f->id, x->doc, buf, 64);
    if (n > 64) {
        o = tv_arena_alloc(a, n * sizeof *o);
        if (!o) return TROVE_ENOMEM;
        n = tv_segment_dv_ords(x->seg, f->id, x->doc, o, n);
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *ts;
        size_t tl;
        if (!tv_segment_dv_term(x->seg, f->id, o[i], &ts, &tl)) continue;
        char ipt[TV_IP_TEXT_MAX];
        if (f->type == TV_FT_IP && tl == 16) {
            tl = tv_ip_format((const uint8_t *)ts, ipt);
            ts = ipt;
        }
        tv_sv s;
        if (!tv_sv_string(a, ts, tl, &s) || !tv_sv_list_add(a, l, s)) return TROVE_ENOMEM;
    }
    return TROVE_OK;
}

/* ------------------------------------------------ the score context's functions */

/* BitMixer.mix32 (murmur3's fmix32) */
static uint32_t mix32(uint32_t k) {
    k = (k ^ (k >> 16)) * 0x85ebca6bu;
    k = (k ^ (k >> 13)) * 0xc2b2ae35u;
    return k ^ (k >> 16);
}

static tv_status host_fail(tv_script_error *e, tv_status cause, const char *fmt, const char *a) {
    e->cause = cause;
    snprintf(e->cause_reason, sizeof e->cause_reason, fmt, a);
    return TROVE_ESCRIPT;
}

/* Double.parseDouble's NumberFormatException for a distance's number */
static tv_status nfe(tv_script_error *e, const tv_sv_str *s) {
    size_t n = s->len;
    for (size_t k = 0; k < n; k++) /* the unit suffix DistanceUnit cut off */
        if (tv_geo_unit(s->s + k, n - k) > 0 && k > 0) {
            n = k;
            break;
        }
    if (n == 0) return host_fail(e, TROVE_ENUMBERFORMAT, "empty String%s", "");
    e->cause = TROVE_ENUMBERFORMAT;
    snprintf(e->cause_reason, sizeof e->cause_reason, "For input string: \"%.*s\"", (int)TV_MIN(n, 200), s->s);
    return TROVE_ESCRIPT;
}

/* The decays of ScoreScriptUtils over a distance, scaling computed from
 * scale and decay as the bound class's constructor does. */
static double decay_of(int kind, double scale, double decay, double dist) {
    switch (kind) {
    case 0: { /* linear: Math.max(0.0, (scaling - distance) / scaling), scaling = scale / (1 - decay) */
        double scaling = scale / (1.0 - decay), x = (scaling - dist) / scaling;
        return x != x ? x : x > 0.0 ? x : 0.0;
    }
    case 1: return exp(log(decay) / scale * dist); /* exp: scaling = ln(decay) / scale */
    default: return exp(0.5 * pow(dist, 2.0) / (0.5 * pow(scale, 2.0) / log(decay))); /* gauss */
    }
}

static tv_status host(void *ud, tv_script_fn fn, const tv_sv *args, uint32_t nargs, tv_arena *a, tv_sv *out,
                      tv_script_error *e) {
    tv_qscript_exec *x = ud;
    (void)nargs;
    switch (fn) {
    case TV_SCRIPT_FN_ARC_DISTANCE:
        *out = tv_sv_double(tv_geo_arc_meters(args[0].v.d, args[1].v.d, args[2].v.d, args[3].v.d));
        return TROVE_OK;
    case TV_SCRIPT_FN_PLANE_DISTANCE:
        *out = tv_sv_double(tv_geo_plane_meters(args[0].v.d, args[1].v.d, args[2].v.d, args[3].v.d));
        return TROVE_OK;
    case TV_SCRIPT_FN_RANDOM_DOC:
    case TV_SCRIPT_FN_RANDOM_FIELD: {
        /* RandomScoreDoc / RandomScoreField: salt = (index.hashCode() << 10) | shard id (0),
         * murmur3_x86_32 of the seed value's text with mix32(salt ^ seed) */
        const char *iname = x->index ? x->index : "";
        uint32_t salt = (uint32_t)tv_java_string_hash(iname, strlen(iname)) << 10;
        uint32_t salted = mix32(salt ^ (uint32_t)args[0].v.i);
        char buf[32];
        const char *b = buf;
        size_t bl;
        tv_buf sb;
        tv_buf_init(&sb);
        if (fn == TV_SCRIPT_FN_RANDOM_DOC) {
            bl = (size_t)snprintf(buf, sizeof buf, "%d", (int32_t)(x->doc_base + x->doc));
        } else {
            tv_sv dv;
            tv_status st = doc_values(x, args[1].v.s->s, args[1].v.s->len, a, &dv, e);
            if (st) return st;
            if (!dv.v.list->len)
                return host_fail(e, TROVE_EILLEGALSTATE,
                                 "A document doesn't have a value for a field! Use doc[<field>].size()==0 to check if a "
                                 "document is missing a field!%s", "");
            tv_sv_to_string(&sb, &dv.v.list->items[0]); /* String.valueOf(docValues.get(0)) */
            if (sb.oom) {
                tv_buf_fini(&sb);
                return TROVE_ENOMEM;
            }
            b = sb.data ? sb.data : "";
            bl = sb.len;
        }
        uint32_t h = tv_murmur3_x86_32(b, bl, salted);
        tv_buf_fini(&sb);
        *out = tv_sv_double((double)((float)(h & 0x00FFFFFFu) / (float)(1 << 24)));
        return TROVE_OK;
    }
    case TV_SCRIPT_FN_DECAY_GEO_LINEAR:
    case TV_SCRIPT_FN_DECAY_GEO_EXP:
    case TV_SCRIPT_FN_DECAY_GEO_GAUSS: {
        /* origin by GeoUtils.parseGeoPoint, scale and offset by DistanceUnit.DEFAULT (meters),
         * distance GeoDistance.ARC (SloppyMath.haversinMeters) less the offset, at least 0 */
        double olat, olon, scale, offset;
        char msg[256];
        if (!tv_geo_parse_string(args[0].v.s->s, args[0].v.s->len, &olat, &olon, msg, sizeof msg))
            return host_fail(e, TROVE_EPARSEEXC, "%s", msg);
        if (!tv_geo_parse_meters(args[1].v.s->s, args[1].v.s->len, &scale)) return nfe(e, args[1].v.s);
        if (!tv_geo_parse_meters(args[2].v.s->s, args[2].v.s->len, &offset)) return nfe(e, args[2].v.s);
        const tv_sv_obj *p = args[4].v.obj;
        double dist = tv_geo_arc_meters(olat, olon, p->lat, p->lon) - offset;
        if (!(dist > 0.0)) dist = dist != dist ? dist : 0.0;
        *out = tv_sv_double(decay_of(fn - TV_SCRIPT_FN_DECAY_GEO_LINEAR, scale, args[3].v.d, dist));
        return TROVE_OK;
    }
    case TV_SCRIPT_FN_DECAY_DATE_LINEAR:
    case TV_SCRIPT_FN_DECAY_DATE_EXP:
    case TV_SCRIPT_FN_DECAY_DATE_GAUSS: {
        /* origin by the default date parser (strict_date_optional_time||epoch_millis, date math,
         * UTC, no "now"); scale and offset TimeValues (millis); distances in whole millis */
        static const char *const names[] = {"DecayDateLinear", "DecayDateExp", "DecayDateGauss"};
        int k = fn - TV_SCRIPT_FN_DECAY_DATE_LINEAR;
        const tv_sv_str *os = args[0].v.s;
        if (os->len >= 3 && memcmp(os->s, "now", 3) == 0)
            return host_fail(e, TROVE_EPARSEEXC, "could not read the current timestamp%s", "");
        tv_error err;
        memset(&err, 0, sizeof err);
        int64_t origin;
        tv_status st = tv_date_math_ex(TV_DATE_DEFAULT_FORMAT, os->s, os->len, 0, false, 0, &origin, &err);
        if (st == TROVE_ENOMEM) return st;
        if (st) return host_fail(e, err.code ? err.code : TROVE_EPARSEEXC, "%s", err.reason);
        int64_t scale_ns, offset_ns;
        char setting[64];
        snprintf(setting, sizeof setting, "%s.scale", names[k]);
        if ((st = tv_parse_time_value(args[1].v.s->s, args[1].v.s->len, setting, &scale_ns, &err)))
            return st == TROVE_ENOMEM ? st : host_fail(e, err.code ? err.code : TROVE_EPARSEEXC, "%s", err.reason);
        snprintf(setting, sizeof setting, "%s.offset", names[k]);
        if ((st = tv_parse_time_value(args[2].v.s->s, args[2].v.s->len, setting, &offset_ns, &err)))
            return st == TROVE_ENOMEM ? st : host_fail(e, err.code ? err.code : TROVE_EPARSEEXC, "%s", err.reason);
        /* TimeValue.getMillis ("-1" is -1 ms) */
        int64_t scale = scale_ns == -1 ? -1 : scale_ns / 1000000, offset = offset_ns == -1 ? -1 : offset_ns / 1000000;
        const tv_sv_obj *d = args[4].v.obj;
        /* toInstant().toEpochMilli() */
        int64_t doc = tv_sv_date_millis(d);
        int64_t diff = doc >= origin ? (int64_t)((uint64_t)doc - (uint64_t)origin) : (int64_t)((uint64_t)origin - (uint64_t)doc);
        int64_t dist = (int64_t)((uint64_t)diff - (uint64_t)offset); /* Java's wrapping long arithmetic */
        if (dist < 0) dist = 0;
        *out = tv_sv_double(decay_of(k, (double)scale, args[3].v.d, (double)dist));
        return TROVE_OK;
    }
    default: return host_fail(e, TROVE_EUNSUPPORTED, "trove does not support this function%s", "");
    }
}

/* ------------------------------------------------------------------ runs */

void tv_qscript_exec_init(tv_qscript_exec *x, const tv_qscript *qs, const tv_mapping *m, const char *index,
                          tv_error *err) {
    memset(x, 0, sizeof *x);
    x->qs = qs;
    x->mapping = m;
    x->index = index;
    x->err = err;
    tv_arena_init(&x->scratch);
    tv_arena_init(&x->keep);
}

void tv_qscript_exec_fini(tv_qscript_exec *x) {
    tv_arena_fini(&x->scratch);
    tv_arena_fini(&x->keep);
}

static bool copy_entries(tv_arena *a, tv_sv_map *to, const tv_sv *from) {
    if (!from || from->type != TV_SV_MAP) return true;
    uint32_t it = 0;
    const tv_sv *k, *v;
    while (tv_sv_map_next(from->v.map, &it, &k, &v))
        if (k->type == TV_SV_STRING && !tv_sv_map_put_str(a, to, k->v.s->s, k->v.s->len, *v)) return false;
    return true;
}

tv_status tv_qscript_run(tv_qscript_exec *x, const tv_segment *seg, uint32_t doc, double score,
                         const tv_sv *vars, tv_sv *out) {
    const tv_qscript *qs = x->qs;
    tv_arena_reset(&x->scratch);
    x->seg = seg;
    x->doc = doc;
    tv_script_env env;
    memset(&env, 0, sizeof env);
    env.arena = &x->scratch;
    env.params = qs->params;
    env.score = score;
    env.values = x->values;
    env.agg_value = x->agg_value;
    env.doc = doc_values;
    env.doc_ud = x;
    env.host = host;
    env.host_ud = x;
    uint32_t nb = tv_script_nbinds(qs->s);
    if (nb) { /* a new segment is a new script instance: its bindings are made anew */
        if (!x->binds || seg != x->bind_seg) {
            tv_arena_reset(&x->keep);
            x->binds = tv_arena_calloc(&x->keep, nb, sizeof *x->binds);
            if (!x->binds) return tv_error_oom(x->err);
            x->bind_seg = seg;
        }
        env.binds = x->binds;
        env.bind_arena = &x->keep;
    }
    if (vars || (qs->wants_source && seg)) {
        /* a map of its own for the run: params' entries, then the extra ones */
        tv_sv p;
        if (!tv_sv_map_new(&x->scratch, false, &p) || !copy_entries(&x->scratch, p.v.map, &qs->params) ||
            !copy_entries(&x->scratch, p.v.map, vars))
            return tv_error_oom(x->err);
        if (qs->wants_source && seg) {
            tv_doc_meta meta;
            const char *src = NULL;
            size_t slen = 0;
            tv_status st = tv_segment_doc(seg, doc, &x->scratch, &meta, &src, &slen);
            if (st == TROVE_ENOMEM) return tv_error_oom(x->err);
            tv_sv sv = tv_sv_null();
            tv_json *j;
            if (st == TROVE_OK && src && tv_json_parse(&x->scratch, src, slen, &j, NULL) == TROVE_OK) {
                st = tv_sv_from_json(&x->scratch, j, false, &sv);
                if (st == TROVE_ENOMEM) return tv_error_oom(x->err);
            }
            if (!tv_sv_map_put_str(&x->scratch, p.v.map, "_source", 7, sv)) return tv_error_oom(x->err);
        }
        env.params = p;
    }
    tv_script_error se;
    memset(&se, 0, sizeof se);
    tv_status st = tv_script_run(qs->s, &env, out, &se);
    if (st && x->quiet) return se.code == TROVE_ENOMEM ? tv_error_oom(x->err) : tv_error_set(x->err, TROVE_ESCRIPT, "runtime error");
    if (st) return tv_qscript_fail(qs, NULL, 0, NULL, &se, x->err, x->index);
    return TROVE_OK;
}

bool tv_qscript_number(const tv_sv *v, double *out, const char **what) {
    switch (v->type) {
    case TV_SV_INT: *out = v->v.i; return true;
    case TV_SV_LONG: *out = (double)v->v.l; return true;
    case TV_SV_FLOAT: *out = v->v.f; return true;
    case TV_SV_DOUBLE: *out = v->v.d; return true;
    case TV_SV_NULL: *what = "null"; return false;
    case TV_SV_BOOL: *what = "java.lang.Boolean"; return false;
    case TV_SV_CHAR: *what = "java.lang.Character"; return false;
    case TV_SV_STRING: *what = "java.lang.String"; return false;
    case TV_SV_LIST: *what = "java.util.ArrayList"; return false;
    case TV_SV_MAP: *what = "java.util.HashMap"; return false;
    case TV_SV_OBJ: *what = tv_sv_class(v); return false;
    default: *what = "java.lang.Object"; return false;
    }
}
