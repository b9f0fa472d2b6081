/*
 * h_script.c — scripts in requests, and the stored scripts API.
 *
 * A request's "script" is read as OpenSearch's Script.parse reads it (the
 * string short form, or an object with source or id, lang, params,
 * options), resolved (a stored script's source comes from the node's
 * state, as OpenSearch's ScriptService reads the cluster state) and
 * compiled through the script layer's cache once per request; handlers run
 * it per document. Failures are answered as OpenSearch does: a
 * ScriptException ("compile error" / "runtime error") carries
 * script_stack, script, lang and position after its reason, then the Java
 * exception that caused it.
 *
 * Stored scripts (PUT/POST/GET/DELETE _scripts/{id}, PUT/POST
 * _scripts/{id}/{context}) live in the node's state (node.h,
 * tv_stored_script, sorted by id), copied with it when a clone writes and
 * kept in the data directory's node.json. A script is compiled when it is
 * stored, as OpenSearch's putStoredScript does, so a broken one is refused
 * then ("failed to parse/compile stored script [id]"). Only lang painless
 * runs; mustache and expression (OpenSearch's other engines) answer
 * unsupported_operation_exception, any other lang the error OpenSearch
 * gives an unknown one.
 * Alternatives rejected: keeping stored scripts compiled in the state (the
 * script cache already keeps them, and the state copies stay plain text).
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"
#include "query/parse.h"

/* ---------------------------------------------------- errors */

typedef struct script_extra {
    const char *stack[2];
    int nstack;
    const char *script;
    bool has_pos;
    uint32_t off, start, end;
} script_extra;

static void write_script_extra(tv_jw *w, const tv_api_err *e) {
    const script_extra *x = e->extra_ctx;
    tv_jw_keyz(w, "script_stack");
    tv_jw_arr_begin(w);
    for (int i = 0; i < x->nstack; i++) tv_jw_strz(w, x->stack[i]);
    tv_jw_arr_end(w);
    tv_jw_keyz(w, "script");
    tv_jw_strz(w, x->script);
    tv_jw_keyz(w, "lang");
    tv_jw_strz(w, "painless");
    if (x->has_pos) {
        tv_jw_keyz(w, "position");
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "offset");
        tv_jw_int(w, x->off);
        tv_jw_keyz(w, "start");
        tv_jw_int(w, x->start);
        tv_jw_keyz(w, "end");
        tv_jw_int(w, x->end);
        tv_jw_obj_end(w);
    }
}

tv_api_err *tv_api_script_error(tv_req *r, const tv_api_script *s, const tv_script_error *err) {
    if (err->code == TROVE_ENOMEM) {
        r->oom = true;
        return NULL;
    }
    if (err->code != TROVE_ESCRIPT) return tv_api_err_new(r, err->code ? err->code : TROVE_EINTERNAL, "%s", err->cause_reason);
    tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
    tv_api_err *c = tv_arena_calloc(&r->arena, 1, sizeof *c);
    script_extra *x = tv_arena_calloc(&r->arena, 1, sizeof *x);
    if (!e || !c || !x) {
        r->oom = true;
        return NULL;
    }
    e->type = TROVE_ESCRIPT;
    e->status = 400;
    e->reason = err->compile ? "compile error" : "runtime error";
    e->extra = write_script_extra;
    e->extra_ctx = x;
    e->cause = c;
    for (int i = 0; i < 2; i++)
        if (err->stack[i][0]) {
            x->stack[x->nstack] = tv_arena_strndup(&r->arena, err->stack[i], strlen(err->stack[i]));
            if (!x->stack[x->nstack]) r->oom = true;
            x->nstack++;
        }
    x->script = tv_arena_strndup(&r->arena, s->source ? s->source : "", s->source ? s->len : 0);
    x->has_pos = err->has_pos;
    x->off = err->offset;
    x->start = err->start;
    x->end = err->end;
    c->type = err->cause ? err->cause : TROVE_EARG;
    c->status = trove_status_http(c->type);
    c->reason = err->cause_reason[0] ? tv_arena_strndup(&r->arena, err->cause_reason, strlen(err->cause_reason)) : NULL;
    if (!x->script || (err->cause_reason[0] && !c->reason)) r->oom = true;
    return r->oom ? NULL : e;
}

/* ------------------------------------------------------ Script.parse */

static tv_api_err *at_err(tv_req *r, uint32_t off, const char *fmt, const char *a, const char *b) {
    uint32_t line = 1, col = 1;
    if (r->body) tv_json_linecol(r->body, r->body_len, off, &line, &col);
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a, b);
    return tv_api_err_new(r, TROVE_EXCONTENT, "[%u:%u] %s", line, col, msg);
}

bool tv_api_script_parse(tv_req *r, const tv_json *v, tv_api_script *s, tv_api_err **e) {
    memset(s, 0, sizeof *s);
    *e = NULL;
    if (v->type == TV_JSON_STRING) {
        s->source = v->v.s;
        s->len = v->len;
        return true;
    }
    if (v->type != TV_JSON_OBJECT) {
        *e = at_err(r, v->off, "[script] Expected START_OBJECT but was: %s%s", tv_dsl_token_name(v), "");
        return false;
    }
    const tv_json *lang = NULL, *src = NULL, *id = NULL;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        const tv_json *x = &m->val;
        if (tv_streq(m->key, m->key_len, "source") || tv_streq(m->key, m->key_len, "id")) {
            if ((src || id)) {
                *e = tv_api_err_new(r, TROVE_EARG, "must only use one of [source, id] when specifying a script");
                return false;
            }
            if (m->key[0] == 's') {
                if (x->type == TV_JSON_OBJECT) {
                    *e = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support script templates ([source] as an object)");
                    return false;
                }
                if (x->type != TV_JSON_STRING) {
                    *e = at_err(r, x->off, "[script] source doesn't support values of type: %s%s", tv_dsl_token_name(x), "");
                    return false;
                }
                src = x;
            } else {
                if (x->type != TV_JSON_STRING) {
                    *e = at_err(r, x->off, "[script] id doesn't support values of type: %s%s", tv_dsl_token_name(x), "");
                    return false;
                }
                id = x;
            }
        } else if (tv_streq(m->key, m->key_len, "lang")) {
            if (x->type != TV_JSON_STRING) {
                *e = at_err(r, x->off, "[script] lang doesn't support values of type: %s%s", tv_dsl_token_name(x), "");
                return false;
            }
            lang = x;
        } else if (tv_streq(m->key, m->key_len, "params")) {
            if (x->type != TV_JSON_OBJECT) {
                *e = at_err(r, x->off, "[script] params doesn't support values of type: %s%s", tv_dsl_token_name(x), "");
                return false;
            }
            s->params = x;
        } else if (tv_streq(m->key, m->key_len, "options")) {
            if (x->type != TV_JSON_OBJECT) {
                *e = at_err(r, x->off, "[script] options doesn't support values of type: %s%s", tv_dsl_token_name(x), "");
                return false;
            }
        } else {
            *e = at_err(r, m->key_off, "[script] unknown field [%s]%s", m->key, "");
            return false;
        }
    }
    if (!src && !id) {
        *e = tv_api_err_new(r, TROVE_EARG, "must specify either [source] for an inline script or [id] for a stored script");
        return false;
    }
    if (id && lang) {
        *e = tv_api_err_new(r, TROVE_EARG, "lang cannot be specified for stored scripts");
        return false;
    }
    if (lang && !tv_streq(lang->v.s, lang->len, "painless")) {
        if (tv_streq(lang->v.s, lang->len, "mustache") || tv_streq(lang->v.s, lang->len, "expression"))
            *e = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support script lang [%s]", lang->v.s);
        else
            *e = tv_api_err_new(r, TROVE_EARG, "script_lang not supported [%s]", lang->v.s);
        return false;
    }
    if (src) {
        s->source = src->v.s;
        s->len = src->len;
    } else {
        s->id = id->v.s;
    }
    return true;
}

bool tv_api_script_params(tv_req *r, const tv_api_script *s, tv_sv *out) {
    if (!s->params) {
        if (!tv_sv_map_new(&r->arena, false, out)) return (r->oom = true), false;
        return true;
    }
    tv_status st = tv_sv_from_json(&r->arena, s->params, false, out);
    if (st == TROVE_ENOMEM) r->oom = true;
    return st == TROVE_OK;
}

static int find_script_locked(const tv_node_state *st, const char *id) {
    size_t lo = 0, hi = st->nscripts;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(st->scripts[mid].id, id);
        if (c == 0) return (int)mid;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

const char *tv_api_stored_script(const void *ctx, const char *id, size_t *len) {
    tv_req *r = (tv_req *)ctx;
    char *src = NULL;
    pthread_rwlock_rdlock(&r->node->lock);
    int at = find_script_locked(r->node->st, id);
    if (at >= 0 && strcmp(r->node->st->scripts[at].lang, "painless") == 0) {
        const tv_stored_script *ss = &r->node->st->scripts[at];
        src = tv_arena_strndup(&r->arena, ss->source, strlen(ss->source));
        if (!src) r->oom = true;
    }
    pthread_rwlock_unlock(&r->node->lock);
    if (src) *len = strlen(src);
    return src;
}

tv_script *tv_api_script_compile(tv_req *r, tv_api_script *s, unsigned globals, tv_api_err **e) {
    *e = NULL;
    if (s->id && !s->source) {
        pthread_rwlock_rdlock(&r->node->lock);
        int at = find_script_locked(r->node->st, s->id);
        char *src = NULL;
        const char *lang = NULL;
        if (at >= 0) {
            const tv_stored_script *ss = &r->node->st->scripts[at];
            src = tv_arena_strndup(&r->arena, ss->source, strlen(ss->source));
            lang = strcmp(ss->lang, "painless") == 0 ? "painless" : NULL;
            if (!src) r->oom = true;
        }
        pthread_rwlock_unlock(&r->node->lock);
        if (r->oom) return NULL;
        if (at < 0) {
            *e = tv_api_err_new(r, TROVE_ENOTFOUND, "unable to find script [%s] in cluster state", s->id);
            return NULL;
        }
        if (!lang) {
            *e = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support the lang of stored script [%s]", s->id);
            return NULL;
        }
        s->source = src;
        s->len = strlen(src);
    }
    tv_script_error err;
    tv_script *sc = tv_script_get(s->source, s->len, globals, &err);
    if (sc) return sc;
    if (err.code == TROVE_ENOMEM) {
        r->oom = true;
        return NULL;
    }
    *e = tv_api_script_error(r, s, &err);
    return NULL;
}

/* ---------------------------------------------------- stored scripts */

static int cmp_script(const void *a, const void *b) {
    return strcmp(((const tv_stored_script *)a)->id, ((const tv_stored_script *)b)->id);
}

void tv_h_script_put(tv_req *r) {
    const char *id = r->p_id;
    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body && r->body_len) return;
    if (!body) return (void)tv_req_fail(r, TROVE_EPARSEEXC, "request body is required");
    if (body->type != TV_JSON_OBJECT)
        return (void)tv_req_fail(r, TROVE_EPARSE, "unexpected token [%s], expected [{]", tv_dsl_token_name(body));
    const tv_json *script = NULL;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (!tv_streq(m->key, m->key_len, "script"))
            return (void)tv_req_fail(r, TROVE_EPARSE, "unexpected field [%s], expected [script]", m->key);
        script = &m->val;
    }
    if (!script) return (void)tv_req_fail(r, TROVE_EARG, "must specify lang for stored script");
    const tv_json *lang = NULL, *src = NULL;
    if (script->type == TV_JSON_OBJECT) {
        for (uint32_t i = 0; i < script->len; i++) {
            const tv_json_member *m = &script->v.members[i];
            if (tv_streq(m->key, m->key_len, "lang")) {
                lang = &m->val;
            } else if (tv_streq(m->key, m->key_len, "source") || tv_streq(m->key, m->key_len, "code")) {
                src = &m->val;
            } else if (!tv_streq(m->key, m->key_len, "options")) {
                tv_api_err *e = at_err(r, m->key_off, "[stored script source] unknown field [%s]%s", m->key, "");
                if (e) tv_req_error(r, e);
                return;
            }
        }
    } else if (script->type != TV_JSON_STRING) {
        return (void)tv_req_fail(r, TROVE_EPARSE, "unexpected token [%s], expected [{, <source>]", tv_dsl_token_name(script));
    } else {
        return (void)tv_req_fail(r, TROVE_EARG, "must specify lang for stored script");
    }
    if (!lang || lang->type != TV_JSON_STRING) return (void)tv_req_fail(r, TROVE_EARG, "must specify lang for stored script");
    if (lang->len == 0) return (void)tv_req_fail(r, TROVE_EARG, "lang cannot be empty");
    if (!src) return (void)tv_req_fail(r, TROVE_EARG, "must specify source for stored script");
    if (!tv_streq(lang->v.s, lang->len, "painless")) {
        if (tv_streq(lang->v.s, lang->len, "mustache") || tv_streq(lang->v.s, lang->len, "expression"))
            return (void)tv_req_fail(r, TROVE_EUNSUPPORTED, "trove does not support script lang [%s]", lang->v.s);
        return (void)tv_req_fail(r, TROVE_EARG, "unable to put stored script with unsupported lang [%s]", lang->v.s);
    }
    if (src->type != TV_JSON_STRING)
        return (void)tv_req_fail(r, TROVE_EUNSUPPORTED, "trove does not support script templates ([source] as an object)");
    if (src->len == 0) return (void)tv_req_fail(r, TROVE_EARG, "source cannot be empty");
    /* compiled when stored: any context's globals */
    tv_api_script as = {.source = src->v.s, .len = src->len};
    tv_script_error err;
    tv_script *sc = tv_script_get(src->v.s, src->len, TV_SCRIPT_G_CTX | TV_SCRIPT_G_DOC | TV_SCRIPT_G_SCORE | TV_SCRIPT_G_SCOREFN, &err);
    if (!sc) {
        if (err.code == TROVE_ENOMEM) return (void)(r->oom = true);
        tv_api_err *c = tv_api_script_error(r, &as, &err);
        tv_api_err *e = tv_api_err_new(r, TROVE_EARG, "failed to parse/compile stored script [%s]", id);
        if (!c || !e) return;
        e->cause = c;
        tv_req_error(r, e);
        return;
    }
    tv_script_release(sc);
    tv_stored_script ns = {tv_strndup(id, strlen(id)), tv_strndup("painless", 8), tv_strndup(src->v.s, src->len)};
    if (!ns.id || !ns.lang || !ns.source) {
        tv_free(ns.id);
        tv_free(ns.lang);
        tv_free(ns.source);
        r->oom = true;
        return;
    }
    pthread_rwlock_wrlock(&r->node->lock);
    tv_node_state *st = r->node->st;
    int at = find_script_locked(st, id);
    bool ok = true;
    if (at >= 0) {
        tv_free(st->scripts[at].id);
        tv_free(st->scripts[at].lang);
        tv_free(st->scripts[at].source);
        st->scripts[at] = ns;
    } else {
        tv_stored_script *v = tv_realloc(st->scripts, (st->nscripts + 1) * sizeof *v);
        if (!v) {
            ok = false;
        } else {
            st->scripts = v;
            v[st->nscripts++] = ns;
            qsort(v, st->nscripts, sizeof *v, cmp_script);
        }
    }
    pthread_rwlock_unlock(&r->node->lock);
    if (!ok) {
        tv_free(ns.id);
        tv_free(ns.lang);
        tv_free(ns.source);
        r->oom = true;
        return;
    }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "acknowledged");
    tv_jw_bool(w, true);
    tv_jw_obj_end(w);
}

void tv_h_script_get(tv_req *r) {
    const char *id = r->p_id;
    pthread_rwlock_rdlock(&r->node->lock);
    int at = find_script_locked(r->node->st, id);
    tv_jw *w = tv_req_json(r, at >= 0 ? 200 : 404);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "_id");
    tv_jw_strz(w, id);
    tv_jw_keyz(w, "found");
    tv_jw_bool(w, at >= 0);
    if (at >= 0) {
        const tv_stored_script *s = &r->node->st->scripts[at];
        tv_jw_keyz(w, "script");
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "lang");
        tv_jw_strz(w, s->lang);
        tv_jw_keyz(w, "source");
        tv_jw_strz(w, s->source);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    pthread_rwlock_unlock(&r->node->lock);
}

void tv_h_script_delete(tv_req *r) {
    const char *id = r->p_id;
    pthread_rwlock_wrlock(&r->node->lock);
    tv_node_state *st = r->node->st;
    int at = find_script_locked(st, id);
    if (at >= 0) {
        tv_free(st->scripts[at].id);
        tv_free(st->scripts[at].lang);
        tv_free(st->scripts[at].source);
        memmove(&st->scripts[at], &st->scripts[at + 1], (st->nscripts - (size_t)at - 1) * sizeof *st->scripts);
        st->nscripts--;
    }
    pthread_rwlock_unlock(&r->node->lock);
    if (at < 0) return (void)tv_req_fail(r, TROVE_ENOTFOUND, "stored script [%s] does not exist", id);
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "acknowledged");
    tv_jw_bool(w, true);
    tv_jw_obj_end(w);
}
