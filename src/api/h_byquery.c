/*
 * h_byquery.c — POST /{index}/_delete_by_query and /{index}/_update_by_query.
 *
 * Both work as OpenSearch's reindex module does, minus scripts: take a
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
 * Not supported, answered 400 unsupported_operation_exception: script
 * (no scripting engine), wait_for_completion=false (no tasks API), an
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

static void by_query(tv_req *r, bool update) {
    uint64_t t0 = tv_mono_ns();
    const char *api = update ? "_update_by_query" : "_delete_by_query";
    /* URL parameters */
    const char *conflicts = tv_req_param(r, "conflicts");
    bool wfc, refresh = false, iu, ani;
    if (!tv_req_param_bool(r, "wait_for_completion", true, &wfc)) return;
    if (!wfc)
        return (void)tv_req_fail(r, 400, "unsupported_operation_exception", false,
                                 "trove does not support [wait_for_completion=false] of %s (no tasks API)", api);
    const char *rv = tv_req_param(r, "refresh");
    if (rv && !tv_req_param_bool(r, "refresh", false, &refresh)) return;
    if (!tv_req_param_bool(r, "ignore_unavailable", false, &iu)) return;
    if (!tv_req_param_bool(r, "allow_no_indices", true, &ani)) return;
    if (tv_req_param(r, "pipeline"))
        return (void)tv_req_fail(r, 400, "unsupported_operation_exception", false,
                                 "trove does not support ingest pipelines");
    const char *sl = tv_req_param(r, "slices");
    if (sl && strcmp(sl, "auto") != 0) {
        int64_t v;
        if (!tv_parse_i64(sl, strlen(sl), &v) || v < INT32_MIN || v > INT32_MAX)
            return (void)tv_req_fail_number(r, "int", "slices", sl);
        if (v < 1)
            return (void)tv_req_fail(r, 400, "illegal_argument_exception", false,
                                     "[slices] must be at least 1, was [%lld]", (long long)v);
    }
    int64_t scroll_size, max_docs = -1;
    if (!tv_req_param_i64(r, "scroll_size", 1000, &scroll_size)) return;
    if (scroll_size < 1) scroll_size = 1000;
    const char *md = tv_req_param(r, "max_docs");
    if (md && !tv_req_param_i64(r, "max_docs", -1, &max_docs)) return;

    /* the body: by-query keys, the rest is a search source */
    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body && r->body_len) return;
    tv_json *sbody = NULL;
    if (body) {
        if (body->type != TV_JSON_OBJECT)
            return (void)tv_req_fail(r, 400, "parse_exception", true, "Failed to parse content to map");
        sbody = tv_arena_alloc(&r->arena, sizeof *sbody);
        tv_json_member *ms = tv_arena_calloc(&r->arena, body->len + 1, sizeof *ms);
        if (!sbody || !ms) return (void)(r->oom = true);
        *sbody = *body;
        uint32_t k = 0;
        for (uint32_t i = 0; i < body->len; i++) {
            const tv_json_member *m = &body->v.members[i];
            const tv_json *v = &m->val;
            if (tv_streq(m->key, m->key_len, "conflicts")) {
                if (v->type != TV_JSON_STRING)
                    return (void)tv_req_fail(r, 400, "x_content_parse_exception", false,
                                             "[%s] conflicts doesn't support values of type: %s", api + 1,
                                             kind_name(v));
                conflicts = v->v.s;
            } else if (tv_streq(m->key, m->key_len, "max_docs") || tv_streq(m->key, m->key_len, "size")) {
                if (v->type != TV_JSON_INT)
                    return (void)tv_req_fail(r, 400, "x_content_parse_exception", false,
                                             "[%s] failed to parse field [%s]", api + 1, m->key);
                if (md && max_docs != v->v.i)
                    return (void)tv_req_fail(r, 400, "illegal_argument_exception", false,
                                             "[max_docs] set to two different values [%lld] and [%lld]",
                                             (long long)max_docs, (long long)v->v.i);
                max_docs = v->v.i;
            } else if (tv_streq(m->key, m->key_len, "script")) {
                return (void)tv_req_fail(r, 400, "unsupported_operation_exception", false,
                                         "trove does not support scripts ([script] of %s)", api);
            } else if (tv_streq(m->key, m->key_len, "slice")) {
                return (void)tv_req_fail(r, 400, "unsupported_operation_exception", false,
                                         "trove does not support manual slicing ([slice] of %s)", api);
            } else {
                ms[k++] = *m;
            }
        }
        sbody->len = k;
        sbody->v.members = ms;
    }
    bool proceed = false;
    if (conflicts) {
        if (strcmp(conflicts, "proceed") == 0)
            proceed = true;
        else if (strcmp(conflicts, "abort") != 0)
            return (void)tv_req_fail(r, 400, "illegal_argument_exception", false,
                                     "conflicts may only be \"proceed\" or \"abort\" but was [%s]", conflicts);
    }
    if (max_docs < -1 || (md && max_docs < 0) || max_docs == 0)
        return (void)tv_req_fail(r, 400, "action_request_validation_exception", true,
                                 "Validation Failed: 1: maxDocs should be greater than 0 if the request is limited "
                                 "to some number of documents or -1 if it isn't but it was [%lld];",
                                 (long long)max_docs);

    /* search parameters as _search takes them */
    tv_search_params p;
    tv_search_params_init(&p);
    p.q = tv_req_param(r, "q");
    p.df = tv_req_param(r, "df");
    p.default_operator = tv_req_param(r, "default_operator");
    p.analyzer = tv_req_param(r, "analyzer");
    if (tv_req_param(r, "lenient") || tv_req_param(r, "analyze_wildcard"))
        return (void)tv_req_fail(r, 400, "unsupported_operation_exception", false,
                                 "trove does not support the [%s] parameter of %s",
                                 tv_req_param(r, "lenient") ? "lenient" : "analyze_wildcard", api);
    p.sort = "_doc";
    p.seq_no_primary_term = true;
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
    int64_t done_n = 0, conflicts_n = 0, batches = 0;
    bool stop = false;
    int status = 200;
    for (size_t b0 = 0; b0 < nh && !stop; b0 += (size_t)scroll_size) {
        batches++;
        size_t b1 = b0 + (size_t)scroll_size < nh ? b0 + (size_t)scroll_size : nh;
        for (size_t i = b0; i < b1; i++) {
            const tv_json *h = &hits->v.items[i];
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
            if (update) {
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
    tv_jw_int(rw, update ? 0 : done_n);
    tv_jw_keyz(rw, "batches");
    tv_jw_int(rw, batches);
    tv_jw_keyz(rw, "version_conflicts");
    tv_jw_int(rw, conflicts_n);
    tv_jw_keyz(rw, "noops");
    tv_jw_int(rw, 0);
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
