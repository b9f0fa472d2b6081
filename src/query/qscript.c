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
 * field data types them: Longs (long, integer, short, byte), Doubles
 * (double, float, half_float, scaled_float), Strings (keyword, ip as its
 * text), Booleans. Dates (JodaCompatibleZonedDateTime), geo points,
 * unsigned longs (BigInteger), binary and range fields have no value type
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
 * Failures: a compile error is raised on the shard (toQuery / the fetch
 * phase parse), a runtime error while the shard runs; both become the
 * script_exception of a shard failure (err->index), the ScriptException's
 * details kept in tv_qscripts.fail for the api layer, which answers
 * search_phase_execution_exception around it as OpenSearch does. A
 * result of the wrong type for its context is the ClassCastException
 * runtime error every context raises alike (tv_qscript_cast_fail).
 */
#include <stdio.h>
#include <string.h>

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
    if (f->type == TV_FT_DATE || f->type == TV_FT_DATE_NANOS)
        return doc_fail(e, TROVE_EUNSUPPORTED,
                        "trove does not support the doc values of date field [%s] in scripts (JodaCompatibleZonedDateTime)%s",
                        fname, "");
    if (f->type == TV_FT_GEO_POINT || f->type == TV_FT_UNSIGNED_LONG || f->type == TV_FT_BINARY || f->type == TV_FT_RANGE)
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
        for (uint32_t i = 0; i < n; i++) {
            tv_sv s;
            if (tv_field_type_is_floating(f->type)) s = tv_sv_double(tv_sortable_to_double(v[i]));
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

/* ------------------------------------------------------------------ runs */

void tv_qscript_exec_init(tv_qscript_exec *x, const tv_qscript *qs, const tv_mapping *m, const char *index,
                          tv_error *err) {
    memset(x, 0, sizeof *x);
    x->qs = qs;
    x->mapping = m;
    x->index = index;
    x->err = err;
    tv_arena_init(&x->scratch);
}

void tv_qscript_exec_fini(tv_qscript_exec *x) { tv_arena_fini(&x->scratch); }

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
    env.doc = doc_values;
    env.doc_ud = x;
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
    default: *what = "java.lang.Object"; return false;
    }
}
