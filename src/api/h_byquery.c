/*
 * h_byquery.c — POST /{index}/_delete_by_query and /{index}/_update_by_query.
 *
 * Both work as OpenSearch's reindex module does: take a
 * snapshot of every target index at the start, find the matching
 * documents in _doc order with their _seq_no/_primary_term as of that
 * snapshot, then delete (or re-index with the source the snapshot holds)
 * each one conditioned on if_seq_no/if_primary_term. A document changed
 * or deleted since the snapshot is a version conflict exactly where
 * OpenSearch's would be: conflicts=abort (the default) stops after the
 * batch (scroll_size, 1000) that saw it and answers 409 with the failures,
 * conflicts=proceed counts it and goes on.
 *
 * Finding the documents reuses the search layer as it is: one _search over
 * the held snapshots (query, URL q/df/..., size = the live documents or
 * max_docs, sort _doc, seq_no_primary_term, _source only for updates),
 * whose response is read back. A dedicated collector in the search layer
 * was rejected for now: the search layer is being changed by others, and
 * a test double's by-query sizes do not need it. The _source of a hit is
 * the stored bytes the search layer copied verbatim into its (compact)
 * response, so an update re-indexes the document's own bytes.
 *
 * _update_by_query's script (src/script) runs over each batch before the
 * batch is written (apply_script): op noop counts a noop, delete deletes.
 * Not supported, answered 400 unsupported_operation_exception:
 * wait_for_completion=false (no tasks API), an
 * ingest pipeline. slices is accepted (auto or N) and runs as one slice;
 * requests_per_second is accepted (no throttling: throttled_millis 0).
 * Response fields in OpenSearch's order (BulkByScrollResponse): took,
 * timed_out, total, updated (update only), deleted, batches,
 * version_conflicts, noops, retries {bulk, search}, throttled_millis,
 * requests_per_second -1.0, throttled_until_millis, failures.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

static const char *kind_name(const tv_json *v) {
    switch (v->type) {
    case TV_JSON_OBJECT: return "START_OBJECT";
    case TV_JSON_ARRAY: return "START_ARRAY";
    case TV_JSON_STRING: return "VALUE_STRING";
    case TV_JSON_NULL: return "VALUE_NULL";
    case TV_JSON_TRUE:
    case TV_JSON_FALSE: return "VALUE_BOOLEAN";
    default: return "VALUE_NUMBER";
    }
}

typedef struct failure {
    const char *index, *id;
    tv_api_err *cause;
    int status;
} failure;

/* The request's options once parsed and validated, in the order of
 * AbstractBulkByQueryRestHandler / AbstractBaseReindexRestHandler (the
 * body's by-query keys, the search parameters, scroll_size, conflicts,
 * search_timeout, then the common options and validate()), so the first
 * error OpenSearch would report is the one reported. */
typedef struct byq_opts {
    bool proceed;
    int64_t scroll_size;
    int64_t max_docs; /* -1: every match */
    int64_t slices;   /* 0: auto */
    tv_json *sbody;   /* the body less the by-query keys (NULL: none) */
    bool has_script;  /* _update_by_query's script */
    tv_api_script script;
} byq_opts;

/* setMaxDocsValidateIdentical, then setMaxDocs. */
static bool set_max_docs(tv_req *r, byq_opts *o, int64_t n) {
    if (o->max_docs != -1 && o->max_docs != n)
        return tv_req_fail(r, TROVE_EARG,
                           "[max_docs] set to two different values [%lld] and [%lld]", (long long)o->max_docs,
                           (long long)n);
    if (n < 0)
        return tv_req_fail(r, TROVE_EARG,
                           "[max_docs] parameter cannot be negative, found [%lld]", (long long)n);
    if (n < o->slices)
        return tv_req_fail(r, TROVE_EARG, "[max_docs] should be >= [slices]");
    o->max_docs = n;
    return true;
}

/* An int URL parameter into *out; *given says whether it was there. */
static bool int_param(tv_req *r, const char *key, int64_t *out, bool *given) {
    *given = tv_req_param(r, key) != NULL;
    return !*given || tv_req_param_i64(r, key, -1, out);
}

/* The body's by-query keys (conflicts, max_docs / size, script, slice);
 * the rest is the search source. */
static bool body_options(tv_req *r, const char *api, byq_opts *o, const char **conflicts, bool *from,
                         bool *stored) {
    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body && r->body_len) return false;
    if (!body) return true;
    if (body->type != TV_JSON_OBJECT)
        return tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
    tv_json *sbody = tv_arena_alloc(&r->arena, sizeof *sbody);
    tv_json_member *ms = tv_arena_calloc(&r->arena, body->len + 1, sizeof *ms);
    if (!sbody || !ms) return (r->oom = true), false;
    *sbody = *body;
    uint32_t k = 0;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        if (tv_streq(m->key, m->key_len, "conflicts")) {
            if (v->type != TV_JSON_STRING)
                return tv_req_fail(r, TROVE_EXCONTENT,
                                   "[%s] conflicts doesn't support values of type: %s", api + 1, kind_name(v));
            *conflicts = v->v.s;
        } else if (tv_streq(m->key, m->key_len, "max_docs") || tv_streq(m->key, m->key_len, "size")) {
            if (v->type != TV_JSON_INT)
                return tv_req_fail(r, TROVE_EXCONTENT, "[%s] failed to parse field [%s]",
                                   api + 1, m->key);
            if (!set_max_docs(r, o, v->v.i)) return false;
        } else if (tv_streq(m->key, m->key_len, "script") && api[1] == 'u') {
            tv_api_err *e = NULL;
            if (!tv_api_script_parse(r, v, &o->script, &e)) {
                if (e) tv_req_error(r, e);
                return false;
            }
            o->has_script = true;
        } else if (tv_streq(m->key, m->key_len, "script")) {
            return tv_req_fail(r, TROVE_EUNSUPPORTED,
                               "trove does not support scripts ([script] of %s)", api);
        } else if (tv_streq(m->key, m->key_len, "slice")) {
            return tv_req_fail(r, TROVE_EUNSUPPORTED,
                               "trove does not support manual slicing ([slice] of %s)", api);
        } else {
            *from |= tv_streq(m->key, m->key_len, "from");
            *stored |= tv_streq(m->key, m->key_len, "stored_fields");
            ms[k++] = *m;
        }
    }
    sbody->len = k;
    sbody->v.members = ms;
    o->sbody = sbody;
    return true;
}

/* AbstractBaseReindexRestHandler.parseRequestsPerSecond (Float.parseFloat,
 * -1 for unlimited, else > 0). */
static bool requests_per_second(tv_req *r) {
    const char *v = tv_req_param(r, "requests_per_second");
    if (!v) return true;
    bool num = tv_java_double_syntax(v, strlen(v));
    double d = num ? strtod(v, NULL) : 0;
    if (!num || (d != -1 && !(d > 0)))
        return tv_req_fail(r, TROVE_EARG,
                           "[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.");
    return true;
}

static bool parse_options(tv_req *r, const char *api, byq_opts *o) {
    memset(o, 0, sizeof *o);
    o->max_docs = -1;
    o->slices = 1;
    o->scroll_size = 1000;
    const char *conflicts = NULL;
    bool body_from = false, body_stored = false, given;
    if (!body_options(r, api, o, &conflicts, &body_from, &body_stored)) return false;
    /* RestSearchAction.parseSearchRequest: from, size (max_docs here),
     * terminate_after, scroll */
    int64_t from = -1, size, ta;
    if (!int_param(r, "from", &from, &given)) return false;
    if (given && from < 0)
        return tv_req_fail(r, TROVE_EARG,
                           "[from] parameter cannot be negative, found [%lld]", (long long)from);
    if (!int_param(r, "size", &size, &given)) return false;
    if (given && size != -1 && !set_max_docs(r, o, size)) return false;
    if (!int_param(r, "terminate_after", &ta, &given)) return false;
    if (given && ta < 0) return tv_req_fail(r, TROVE_EARG, "terminateAfter must be > 0");
    int64_t ms;
    const char *sc = tv_req_param(r, "scroll");
    if (sc && !tv_api_parse_time_ms(r, "scroll", sc, &ms)) return false;
    /* scroll_size is the search's size */
    if (!int_param(r, "scroll_size", &o->scroll_size, &given)) return false;
    if (given && o->scroll_size < 0)
        return tv_req_fail(r, TROVE_EARG,
                           "[size] parameter cannot be negative, found [%lld]", (long long)o->scroll_size);
    if (tv_req_param(r, "conflicts")) conflicts = tv_req_param(r, "conflicts");
    if (conflicts) {
        if (strcmp(conflicts, "proceed") == 0)
            o->proceed = true;
        else if (strcmp(conflicts, "abort") != 0)
            return tv_req_fail(r, TROVE_EARG,
                               "conflicts may only be \"proceed\" or \"abort\" but was [%s]", conflicts);
    }
    const char *st = tv_req_param(r, "search_timeout");
    if (st && !tv_api_parse_time_ms(r, "search_timeout", st, &ms)) return false;
    /* setCommonOptions: refresh and timeout are read by the caller and the
     * router; then slices, requests_per_second, max_docs */
    const char *sl = tv_req_param(r, "slices");
    if (sl && strcmp(sl, "auto") == 0) {
        o->slices = 0;
    } else if (sl) {
        int64_t v;
        if (!tv_parse_i64(sl, strlen(sl), &v) || v < INT32_MIN || v > INT32_MAX || v < 1)
            return tv_req_fail(r, TROVE_EARG,
                               "[slices] must be a positive integer or the string \"auto\", but was [%s]", sl);
        o->slices = v;
    }
    if (!requests_per_second(r)) return false;
    int64_t md;
    if (!int_param(r, "max_docs", &md, &given)) return false;
    if (given && !set_max_docs(r, o, md)) return false;
    /* AbstractBulkByScrollRequest.validate (with the search request's) */
    tv_buf m;
    tv_buf_init(&m);
    int nerr = 0;
    if (o->scroll_size == 0) tv_buf_printf(&m, "%d: [size] cannot be [0] in a scroll context;", ++nerr);
    if (from != -1 || body_from) tv_buf_printf(&m, "%d: from is not supported in this context;", ++nerr);
    if (body_stored) tv_buf_printf(&m, "%d: stored_fields is not supported in this context;", ++nerr);
    if (o->max_docs == 0)
        tv_buf_printf(&m, "%d: maxDocs should be greater than 0 if the request is limited to some number of "
                          "documents or -1 if it isn't but it was [0];", ++nerr);
    bool ok = nerr == 0;
    if (!ok) tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: %s", m.data);
    if (m.oom) r->oom = true;
    tv_buf_fini(&m);
    return ok;
}

/* ---- the script of _update_by_query (AbstractAsyncBulkByScrollAction's
 * ScriptApplier): ctx is {_index, _id, _version, _routing, _source, op:
 * "index"} with _source read into HashMaps (as IndexRequest.sourceAsMap
 * reads it, so a re-indexed document's keys come out in HashMap order);
 * afterwards op and _source must still be there, _index, _id, _version
 * and _routing unchanged, op one of noop, index, delete, and nothing else
 * added to ctx. */

typedef enum { ACT_INDEX, ACT_DELETE, ACT_NOOP } act_kind;
typedef struct script_action {
    act_kind kind;
    const char *src; /* ACT_INDEX: the new source (arena) */
    size_t len;
} script_action;

static bool ctx_str(tv_req *r, tv_sv *ctx, const char *k, const tv_json *v) {
    tv_sv s = tv_sv_null();
    if (v && v->type == TV_JSON_STRING && !tv_sv_string(&r->arena, v->v.s, v->len, &s)) return (r->oom = true), false;
    if (!tv_sv_map_put_str(&r->arena, ctx->v.map, k, strlen(k), s)) return (r->oom = true), false;
    return true;
}

static bool apply_script(tv_req *r, tv_api_script *as, tv_script **sc, const tv_json *h, script_action *act,
                         tv_api_err **e) {
    *e = NULL;
    if (!*sc) {
        *sc = tv_api_script_compile(r, as, TV_SCRIPT_G_CTX, e);
        if (!*sc) return false;
    }
    const tv_json *src = tv_json_get(h, "_source"), *ver = tv_json_get(h, "_version");
    const tv_json *jx = tv_json_get(h, "_index"), *jid = tv_json_get(h, "_id"), *jr = tv_json_get(h, "_routing");
    tv_sv ctx, source = tv_sv_null();
    if (!src) {
        *e = tv_api_err_new(r, TROVE_EARG, "[%s][%s] didn't store _source", jx ? jx->v.s : "", jid ? jid->v.s : "");
        return false;
    }
    if (!tv_sv_map_new(&r->arena, false, &ctx)) return (r->oom = true), false;
    {
        tv_status st = tv_sv_from_json(&r->arena, src, false, &source);
        if (st == TROVE_ENOMEM) return (r->oom = true), false;
        if (st != TROVE_OK) {
            *e = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support integers above Long.MAX_VALUE in scripts");
            return false;
        }
    }
    tv_sv version = ver && ver->type == TV_JSON_INT ? tv_sv_long(ver->v.i) : tv_sv_null();
    if (!ctx_str(r, &ctx, "_index", jx) || !ctx_str(r, &ctx, "_id", jid) ||
        !tv_sv_map_put_str(&r->arena, ctx.v.map, "_version", 8, version) || !ctx_str(r, &ctx, "_routing", jr) ||
        !tv_sv_map_put_str(&r->arena, ctx.v.map, "_source", 7, source))
        return (r->oom = true), false;
    tv_sv op;
    if (!tv_sv_string(&r->arena, "index", 5, &op) || !tv_sv_map_put_str(&r->arena, ctx.v.map, "op", 2, op))
        return (r->oom = true), false;
    tv_sv oldx = *tv_sv_map_get_str(ctx.v.map, "_index", 6), oldid = *tv_sv_map_get_str(ctx.v.map, "_id", 3);
    tv_sv oldr = *tv_sv_map_get_str(ctx.v.map, "_routing", 8);
    tv_script_env env;
    memset(&env, 0, sizeof env);
    env.arena = &r->arena;
    env.ctx = ctx;
    if (!tv_api_script_params(r, as, &env.params)) {
        if (!r->oom)
            *e = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support integers above Long.MAX_VALUE in script params");
        return false;
    }
    tv_script_error err;
    tv_sv res;
    if (tv_script_run(*sc, &env, &res, &err) != TROVE_OK) {
        *e = tv_api_script_error(r, as, &err);
        return false;
    }
    tv_sv v;
    if (!tv_sv_map_remove_str(ctx.v.map, "op", 2, &v) || v.type == TV_SV_NULL) {
        *e = tv_api_err_new(r, TROVE_EARG, "Script cleared operation type");
        return false;
    }
    if (v.type != TV_SV_STRING) {
        *e = tv_api_err_new(r, TROVE_ECLASSCAST, "class %s cannot be cast to class java.lang.String", "java.lang.Object");
        return false;
    }
    const tv_sv_str *nop = v.v.s;
    tv_sv nsrc;
    if (!tv_sv_map_remove_str(ctx.v.map, "_source", 7, &nsrc) || nsrc.type == TV_SV_NULL) {
        *e = tv_api_err_new(r, TROVE_EARG, "Script cleared source");
        return false;
    }
    static const char *const fields[] = {"_index", "_id", "_version", "_routing"};
    const tv_sv olds[] = {oldx, oldid, version, oldr};
    for (int k = 0; k < 4; k++) {
        tv_sv nv = tv_sv_null();
        tv_sv_map_remove_str(ctx.v.map, fields[k], strlen(fields[k]), &nv);
        if (!tv_sv_key_equals(&olds[k], &nv)) {
            *e = tv_api_err_new(r, TROVE_EARG, "Modifying [%s] not allowed", fields[k]);
            return false;
        }
    }
    char lower[64];
    size_t nl = nop->len < sizeof lower - 1 ? nop->len : sizeof lower - 1;
    for (size_t k = 0; k < nl; k++) lower[k] = (char)(nop->s[k] >= 'A' && nop->s[k] <= 'Z' ? nop->s[k] + 32 : nop->s[k]);
    lower[nl] = 0;
    if (strcmp(lower, "noop") == 0) {
        act->kind = ACT_NOOP;
        return true;
    }
    if (strcmp(lower, "delete") == 0) {
        act->kind = ACT_DELETE;
        return true;
    }
    if (strcmp(lower, "index") != 0 || nop->len >= sizeof lower) {
        *e = tv_api_err_new(r, TROVE_EARG, "Operation type [%.*s] not allowed, only [noop, index, delete] are allowed",
                            (int)nop->len, nop->s);
        return false;
    }
    if (tv_sv_map_size(ctx.v.map)) {
        tv_buf b;
        tv_buf_init(&b);
        uint32_t it = 0, cnt = 0, n = tv_sv_map_size(ctx.v.map);
        const tv_sv *k, *x;
        const char **names = tv_arena_alloc(&r->arena, (n + 1) * sizeof *names);
        uint32_t *ord = tv_arena_alloc(&r->arena, (n + 1) * sizeof *ord);
        if (!names || !ord) return (r->oom = true), false;
        while (tv_sv_map_next(ctx.v.map, &it, &k, &x)) /* ctx's keys are strings */
            names[cnt++] = k->type == TV_SV_STRING ? k->v.s->s : "";
        tv_java_hashmap_order(names, cnt, ord);
        for (uint32_t q = 0; q < cnt; q++) {
            if (q) tv_buf_putc(&b, ',');
            tv_buf_puts(&b, names[ord[q]]);
        }
        *e = tv_api_err_new(r, TROVE_EARG, "Invalid fields added to context [%s]", b.data ? b.data : "");
        tv_buf_fini(&b);
        return false;
    }
    if (nsrc.type != TV_SV_MAP) {
        *e = tv_api_err_new(r, TROVE_ECLASSCAST, "class %s cannot be cast to class java.util.Map", "java.lang.Object");
        return false;
    }
    tv_buf b;
    tv_buf_init(&b);
    tv_jw jw;
    tv_jw_init(&jw, &b, false);
    tv_sv_write_json(&jw, &nsrc);
    char *c = b.oom ? NULL : tv_arena_memdup(&r->arena, b.data ? b.data : "", b.len);
    act->len = b.len;
    tv_buf_fini(&b);
    if (!c) return (r->oom = true), false;
    act->kind = ACT_INDEX;
    act->src = c;
    return true;
}

static void by_query(tv_req *r, bool update) {
    uint64_t t0 = tv_mono_ns();
    const char *api = update ? "_update_by_query" : "_delete_by_query";
    bool wfc, refresh = false, iu, ani;
    const char *rv = tv_req_param(r, "refresh");
    if (rv && !tv_req_param_bool(r, "refresh", false, &refresh)) return;
    byq_opts bo;
    if (!parse_options(r, api, &bo)) return;
    if (!tv_req_param_bool(r, "wait_for_completion", true, &wfc)) return;
    if (!wfc)
        return (void)tv_req_fail(r, TROVE_EUNSUPPORTED,
                                 "trove does not support [wait_for_completion=false] of %s (no tasks API)", api);
    if (!tv_req_param_bool(r, "ignore_unavailable", false, &iu)) return;
    if (!tv_req_param_bool(r, "allow_no_indices", true, &ani)) return;
    if (tv_req_param(r, "pipeline"))
        return (void)tv_req_fail(r, TROVE_EUNSUPPORTED,
                                 "trove does not support ingest pipelines");
    tv_json *sbody = bo.sbody;
    bool proceed = bo.proceed;
    int64_t scroll_size = bo.scroll_size, max_docs = bo.max_docs;

    /* search parameters as _search takes them */
    tv_search_params p;
    tv_search_params_init(&p);
    tv_api_search_limits(r, &p);
    p.q = tv_req_param(r, "q");
    p.df = tv_req_param(r, "df");
    p.default_operator = tv_req_param(r, "default_operator");
    p.analyzer = tv_req_param(r, "analyzer");
    if (tv_req_param(r, "lenient") || tv_req_param(r, "analyze_wildcard"))
        return (void)tv_req_fail(r, TROVE_EUNSUPPORTED,
                                 "trove does not support the [%s] parameter of %s",
                                 tv_req_param(r, "lenient") ? "lenient" : "analyze_wildcard", api);
    p.sort = "_doc";
    p.seq_no_primary_term = true;
    p.version = update;
    p.source = update ? "true" : "false";
    p.track_total_hits = "true";
    p.body_text = r->body;
    p.body_text_len = r->body_len;

    /* the snapshot every decision is made against */
    tv_index_list l;
    if (!tv_node_resolve(r, r->p_index, iu, ani, &l)) return;
    size_t nt = 0;
    uint64_t docs = 0;
    tv_search_target *t = tv_api_targets(r, &l, &nt);
    for (size_t i = 0; i < nt; i++) {
        t[i].max_result_window = INT64_MAX;
        docs += t[i].snap->num_docs;
    }
    failure *fails = NULL;
    size_t nfails = 0;
    if (r->oom) goto done;
    p.size = max_docs >= 0 && (uint64_t)max_docs < docs ? max_docs : (int64_t)docs;
    if (p.size > INT32_MAX) p.size = INT32_MAX;
    tv_error err;
    tv_error_clear(&err);
    tv_buf out;
    tv_buf_init(&out);
    tv_jw w;
    tv_jw_init(&w, &out, false);
    tv_status st = tv_search_run(t, nt, sbody, &p, &r->arena, &w, &err);
    if (st == TROVE_ENOMEM || out.oom) {
        r->oom = true;
        tv_buf_fini(&out);
        goto done;
    }
    if (st != TROVE_OK) { /* answered as _search answers it */
        tv_buf_fini(&out);
        tv_api_search_answer(r, t, l.items, nt, sbody, &p, NULL, NULL, false);
        goto done;
    }
    tv_json *res = NULL;
    if (tv_json_parse(&r->arena, out.data, out.len, &res, NULL) != TROVE_OK) {
        tv_buf_fini(&out);
        r->oom = true;
        goto done;
    }
    const tv_json *hits = tv_json_get(tv_json_get(res, "hits"), "hits");
    size_t nh = hits && hits->type == TV_JSON_ARRAY ? hits->len : 0;
    fails = tv_arena_calloc(&r->arena, nh + 1, sizeof *fails);
    if (!fails) {
        tv_buf_fini(&out);
        r->oom = true;
        goto done;
    }
    int64_t done_n = 0, deleted_n = 0, noops_n = 0, conflicts_n = 0, batches = 0;
    bool stop = false;
    int status = 200;
    tv_script *sc = NULL;
    script_action *acts = NULL;
    if (bo.has_script) {
        acts = tv_arena_calloc(&r->arena, (size_t)(scroll_size < (int64_t)nh ? scroll_size : (int64_t)nh) + 1,
                               sizeof *acts);
        if (!acts) {
            tv_buf_fini(&out);
            r->oom = true;
            goto done;
        }
    }
    for (size_t b0 = 0; b0 < nh && !stop; b0 += (size_t)scroll_size) {
        batches++;
        size_t b1 = b0 + (size_t)scroll_size < nh ? b0 + (size_t)scroll_size : nh;
        /* the script runs over the whole batch before it is written, as
         * the bulk request OpenSearch builds from it */
        if (bo.has_script) {
            tv_api_err *se = NULL;
            for (size_t i = b0; i < b1; i++) {
                if (!apply_script(r, &bo.script, &sc, &hits->v.items[i], &acts[i - b0], &se)) {
                    tv_script_release(sc);
                    tv_buf_fini(&out);
                    if (se) tv_req_error(r, se);
                    goto done;
                }
            }
        }
        for (size_t i = b0; i < b1; i++) {
            const tv_json *h = &hits->v.items[i];
            script_action *act = bo.has_script ? &acts[i - b0] : NULL;
            if (act && act->kind == ACT_NOOP) {
                noops_n++;
                continue;
            }
            const tv_json *jx = tv_json_get(h, "_index"), *jid = tv_json_get(h, "_id");
            const tv_json *jsq = tv_json_get(h, "_seq_no"), *jpt = tv_json_get(h, "_primary_term");
            if (!jx || !jid || !jsq || !jpt) continue;
            tv_index *idx = NULL;
            for (size_t k = 0; k < nt; k++)
                if (strcmp(t[k].index, jx->v.s) == 0) idx = l.items[k];
            if (!idx) continue;
            tv_write_opts o;
            tv_write_opts_init(&o);
            o.if_seq_no = jsq->v.i;
            o.if_primary_term = jpt->v.i;
            tv_write_result wr;
            tv_error we;
            tv_error_clear(&we);
            tv_status ws;
            if (act && act->kind == ACT_DELETE) {
                ws = tv_index_delete(idx, jid->v.s, jid->len, &o, &wr, &we);
            } else if (act) {
                ws = tv_index_put(idx, jid->v.s, jid->len, act->src, act->len, &o, &wr, &we);
            } else if (update) {
                /* the stored bytes: from the _source value to the next member */
                const tv_json *src = NULL;
                size_t end = out.len;
                for (uint32_t k = 0; k < h->len; k++) {
                    if (tv_streq(h->v.members[k].key, h->v.members[k].key_len, "_source")) {
                        src = &h->v.members[k].val;
                        end = k + 1 < h->len ? h->v.members[k + 1].key_off - 1 : out.len;
                    }
                }
                if (!src) continue; /* _source disabled: nothing to re-index */
                if (src->off > end) continue;
                while (end > src->off && (out.data[end - 1] == ' ' || out.data[end - 1] == '\n' ||
                                          (src->type == TV_JSON_OBJECT && out.data[end - 1] != '}')))
                    end--;
                ws = tv_index_put(idx, jid->v.s, jid->len, out.data + src->off, end - src->off, &o, &wr, &we);
            } else {
                ws = tv_index_delete(idx, jid->v.s, jid->len, &o, &wr, &we);
            }
            if (ws == TROVE_OK) {
                if (act && act->kind == ACT_DELETE)
                    deleted_n++;
                else
                    done_n++;
                continue;
            }
            if (ws == TROVE_ENOMEM) {
                r->oom = true;
                tv_buf_fini(&out);
                goto done;
            }
            bool conflict = ws == TROVE_ECONFLICT;
            if (conflict) conflicts_n++;
            if (conflict && proceed) continue;
            tv_api_err *e = tv_api_write_error(r, &we, idx);
            if (!e) {
                tv_buf_fini(&out);
                goto done;
            }
            fails[nfails].index = jx->v.s;
            fails[nfails].id = jid->v.s;
            fails[nfails].cause = e;
            fails[nfails].status = e->status ? e->status : 500;
            if (fails[nfails].status > status) status = fails[nfails].status;
            nfails++;
            stop = true; /* after this batch */
        }
    }
    tv_buf_fini(&out);
    tv_script_release(sc);
    if (refresh)
        for (size_t k = 0; k < nt; k++) tv_index_refresh(l.items[k]);
    tv_jw *rw = tv_req_json(r, status);
    tv_jw_obj_begin(rw);
    tv_jw_keyz(rw, "took");
    tv_jw_uint(rw, (tv_mono_ns() - t0) / 1000000);
    tv_jw_keyz(rw, "timed_out");
    tv_jw_bool(rw, false);
    tv_jw_keyz(rw, "total");
    tv_jw_int(rw, (int64_t)nh);
    if (update) {
        tv_jw_keyz(rw, "updated");
        tv_jw_int(rw, done_n);
    }
    tv_jw_keyz(rw, "deleted");
    tv_jw_int(rw, update ? deleted_n : done_n);
    tv_jw_keyz(rw, "batches");
    tv_jw_int(rw, batches);
    tv_jw_keyz(rw, "version_conflicts");
    tv_jw_int(rw, conflicts_n);
    tv_jw_keyz(rw, "noops");
    tv_jw_int(rw, noops_n);
    tv_jw_keyz(rw, "retries");
    tv_jw_obj_begin(rw);
    tv_jw_keyz(rw, "bulk");
    tv_jw_int(rw, 0);
    tv_jw_keyz(rw, "search");
    tv_jw_int(rw, 0);
    tv_jw_obj_end(rw);
    tv_jw_keyz(rw, "throttled_millis");
    tv_jw_int(rw, 0);
    tv_jw_keyz(rw, "requests_per_second");
    tv_jw_float(rw, -1.0f);
    tv_jw_keyz(rw, "throttled_until_millis");
    tv_jw_int(rw, 0);
    tv_jw_keyz(rw, "failures");
    tv_jw_arr_begin(rw);
    for (size_t i = 0; i < nfails; i++) {
        tv_jw_obj_begin(rw);
        tv_jw_keyz(rw, "index");
        tv_jw_strz(rw, fails[i].index);
        tv_jw_keyz(rw, "id");
        tv_jw_strz(rw, fails[i].id);
        tv_jw_keyz(rw, "cause");
        tv_jw_obj_begin(rw);
        tv_api_err_write_inner(rw, fails[i].cause, false);
        tv_jw_obj_end(rw);
        tv_jw_keyz(rw, "status");
        tv_jw_int(rw, fails[i].status);
        tv_jw_obj_end(rw);
    }
    tv_jw_arr_end(rw);
    tv_jw_obj_end(rw);
done:
    for (size_t i = 0; i < nt; i++) tv_snapshot_release(t[i].snap);
    tv_index_list_release(&l);
}

void tv_h_delete_by_query(tv_req *r) { by_query(r, false); }
void tv_h_update_by_query(tv_req *r) { by_query(r, true); }
