/*
 * h_msearch.c — GET|POST /_msearch, /{index}/_msearch.
 *
 * The body is NDJSON: a header line (index, search_type, preference,
 * routing, request_cache, indices options, ...; empty means defaults) and
 * a search body line, repeated; every line ends with '\n'. Lines are cut
 * as MultiSearchRequest.readMultiLineFormat cuts them: a newline at the
 * very start is skipped, a header without a following line is dropped, and
 * data after the last newline is "The msearch request must be terminated
 * by a newline [\n]". A header key OpenSearch does not know fails the whole
 * request ("key [x] is not supported in the metadata section").
 *
 * Each item runs as a sub-request through the _search handler (same
 * parameter handling, alias filters, errors, point in time), with the
 * header's values as URL parameters. Its answer becomes the item: a
 * response gets "status":200 appended, an error envelope already is
 * {"error":{..},"status":N}. Errors OpenSearch raises while parsing the
 * request (body syntax, the search source, rest_total_hits_as_int checks)
 * fail the whole _msearch in OpenSearch, since it parses every item before
 * running any; here an item whose error is not one that happens at
 * execution (a failed search, a missing index, a validation failure) makes
 * the whole request answer that error, the first in line order winning.
 * Items run one after the other (max_concurrent_searches is accepted and
 * validated; a test double gains nothing from running them in parallel).
 */
#include <stdio.h>

#include "api.h"

typedef struct item {
    const char *body;
    size_t body_len;
    tv_param *params;
    size_t nparams;
    const char *index;
} item;

static bool header_value(tv_req *r, const tv_json *v, const char **out) {
    switch (v->type) {
    case TV_JSON_STRING: *out = v->v.s; return true;
    case TV_JSON_TRUE: *out = "true"; return true;
    case TV_JSON_FALSE: *out = "false"; return true;
    case TV_JSON_NULL: *out = NULL; return true;
    case TV_JSON_INT: *out = tv_arena_sprintf(&r->arena, "%lld", (long long)v->v.i); break;
    case TV_JSON_ARRAY: {
        tv_buf b;
        tv_buf_init(&b);
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json *e = &v->v.items[i];
            if (i) tv_buf_puts(&b, ",");
            if (e->type == TV_JSON_STRING) tv_buf_puts(&b, e->v.s);
            else if (e->raw) tv_buf_append(&b, e->raw, e->raw_len);
        }
        *out = tv_arena_strndup(&r->arena, b.data ? b.data : "", b.len);
        tv_buf_fini(&b);
        break;
    }
    default: *out = v->raw ? tv_arena_strndup(&r->arena, v->raw, v->raw_len) : ""; break;
    }
    if (!*out) r->oom = true;
    return *out != NULL;
}

/* Header keys and the URL parameter each becomes (NULL: accepted, unused). */
static const char *const hkeys[][2] = {
    {"search_type", "search_type"},
    {"searchType", "search_type"},
    {"ccs_minimize_roundtrips", NULL},
    {"ccsMinimizeRoundtrips", NULL},
    {"request_cache", "request_cache"},
    {"requestCache", "request_cache"},
    {"preference", "preference"},
    {"routing", "routing"},
    {"allow_partial_search_results", NULL},
    {"expand_wildcards", "expand_wildcards"},
    {"expandWildcards", "expand_wildcards"},
    {"ignore_unavailable", "ignore_unavailable"},
    {"ignoreUnavailable", "ignore_unavailable"},
    {"allow_no_indices", "allow_no_indices"},
    {"allowNoIndices", "allow_no_indices"},
    {"ignore_throttled", NULL},
    {"ignoreThrottled", NULL},
    {"cancel_after_time_interval", NULL},
    {"cancelAfterTimeInterval", NULL},
    {"phase_took", "phase_took"},
};

static bool parse_header(tv_req *r, const char *p, size_t n, item *it) {
    const char *saved = r->body;
    size_t saved_len = r->body_len;
    r->body = p;
    r->body_len = n;
    const tv_json *h = tv_req_parse_body(r, TV_BODY_PARSER);
    r->body = saved;
    r->body_len = saved_len;
    if (!h) return false;
    if (h->type != TV_JSON_OBJECT)
        return tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
    it->params = tv_arena_calloc(&r->arena, h->len + 2, sizeof *it->params);
    if (!it->params) return r->oom = true, false;
    for (uint32_t i = 0; i < h->len; i++) {
        const tv_json_member *m = &h->v.members[i];
        const char *val;
        if (tv_streq(m->key, m->key_len, "index") || tv_streq(m->key, m->key_len, "indices")) {
            if (!header_value(r, &m->val, &val)) {
                if (r->oom) return false;
                val = "";
            }
            it->index = val;
            continue;
        }
        size_t k = 0;
        while (k < TV_ARRAY_LEN(hkeys) && !tv_streq(m->key, m->key_len, hkeys[k][0])) k++;
        if (k == TV_ARRAY_LEN(hkeys))
            return tv_req_fail(r, TROVE_EARG,
                               "key [%s] is not supported in the metadata section", m->key);
        if (!hkeys[k][1]) continue;
        if (!header_value(r, &m->val, &val)) {
            if (r->oom) return false;
            continue;
        }
        it->params[it->nparams].key = hkeys[k][1];
        it->params[it->nparams].val = val;
        it->nparams++;
    }
    return true;
}

/* Errors that OpenSearch reports per item (raised while executing). */
static bool per_item_error(const char *body, size_t len) {
    static const tv_status codes[] = {TROVE_ESEARCHPHASE, TROVE_ENOINDEX, TROVE_EVALIDATION, TROVE_ECLOSED};
    const char *k = "\"type\":\"";
    /* the envelope's own type follows its root_cause list */
    const char *p = NULL;
    for (const char *q = body; (q = strstr(q, "],\"type\":\"")) != NULL; q++) {
        p = q + 2;
        break;
    }
    if (!p) return false;
    p += strlen(k);
    for (size_t i = 0; i < TV_ARRAY_LEN(codes); i++) {
        const char *type = trove_status_type(codes[i]);
        size_t tl = strlen(type);
        if ((size_t)(body + len - p) > tl && strncmp(p, type, tl) == 0 && p[tl] == '"') return true;
    }
    return false;
}

void tv_h_msearch(tv_req *r) {
    uint64_t t0 = tv_mono_ns();
    const char *mcs = tv_req_param(r, "max_concurrent_searches");
    if (mcs) {
        int64_t v;
        if (!tv_req_param_i64(r, "max_concurrent_searches", 0, &v)) return;
        if (v < 1)
            return (void)tv_req_fail(r, TROVE_EARG,
                                     "maxConcurrentSearchRequests must be positive");
    }
    if (!tv_api_search_request_params(r, false)) return;
    bool b;
    if (!tv_req_param_bool(r, "rest_total_hits_as_int", false, &b)) return;
    if (!tv_req_param_bool(r, "typed_keys", false, &b)) return;
    const char *typed = b ? "true" : NULL; /* passed to each search */
    if (!r->body_len)
        return (void)tv_req_fail(r, TROVE_EPARSEEXC, "request body or source parameter is required");

    /* cut the lines (readMultiLineFormat) */
    const char *d = r->body;
    size_t len = r->body_len, from = 0;
    size_t cap = 1;
    for (size_t i = 0; i < len; i++) cap += d[i] == '\n';
    item *items = tv_arena_calloc(&r->arena, cap / 2 + 1, sizeof *items);
    if (!items) return (void)(r->oom = true);
    size_t nitems = 0;
    for (;;) {
        const char *nl = from < len ? memchr(d + from, '\n', len - from) : NULL;
        if (!nl) {
            if (from != len)
                return (void)tv_req_fail(r, TROVE_EARG,
                                         "The msearch request must be terminated by a newline [\n]");
            break;
        }
        size_t mk = (size_t)(nl - d);
        if (mk == 0) {
            from = 1;
            continue;
        }
        item *it = &items[nitems];
        memset(it, 0, sizeof *it);
        if (mk > from && !parse_header(r, d + from, mk - from, it)) return;
        from = mk + 1;
        nl = from < len ? memchr(d + from, '\n', len - from) : NULL;
        if (!nl) {
            if (from != len)
                return (void)tv_req_fail(r, TROVE_EARG,
                                         "The msearch request must be terminated by a newline [\n]");
            break;
        }
        mk = (size_t)(nl - d);
        it->body = d + from;
        it->body_len = mk - from;
        from = mk + 1;
        nitems++;
    }

    /* run every item */
    tv_buf out;
    tv_buf_init(&out);
    const char *rthi = tv_req_param(r, "rest_total_hits_as_int");
    const char *st = tv_req_param(r, "search_type");
    const char *routing = tv_req_param(r, "routing");
    const char *iopts[] = {"expand_wildcards", "ignore_unavailable", "allow_no_indices"};
    tv_buf_puts(&out, "[");
    for (size_t i = 0; i < nitems; i++) {
        item *it = &items[i];
        tv_req s;
        memset(&s, 0, sizeof s);
        s.node = r->node;
        tv_arena_init(&s.arena);
        tv_buf_init(&s.out);
        s.method = TV_POST;
        s.uri = "/_search";
        s.raw_path = "/_search";
        s.path = "/_search";
        s.body = it->body_len ? it->body : NULL;
        s.body_len = it->body_len;
        s.p_index = it->index ? it->index : r->p_index;
        /* URL-level defaults, then the header's values */
        tv_param *ps = tv_arena_calloc(&r->arena, it->nparams + 8, sizeof *ps);
        if (!ps) {
            r->oom = true;
            tv_arena_fini(&s.arena);
            break;
        }
        size_t np = 0;
        if (rthi) ps[np++] = (tv_param){"rest_total_hits_as_int", rthi};
        if (typed) ps[np++] = (tv_param){"typed_keys", typed};
        if (st) ps[np++] = (tv_param){"search_type", st};
        if (routing) ps[np++] = (tv_param){"routing", routing};
        for (size_t k = 0; k < TV_ARRAY_LEN(iopts); k++) {
            const char *v = tv_req_param(r, iopts[k]);
            if (v) ps[np++] = (tv_param){iopts[k], v};
        }
        for (size_t k = 0; k < it->nparams; k++) ps[np++] = it->params[k];
        s.params = ps;
        s.nparams = np;
        if (s.body_len == 0) {
            /* SearchSourceBuilder.fromXContent on an empty line */
            tv_req_fail(&s, TROVE_EPARSE, "Expected [START_OBJECT] but found [null]");
        } else {
            tv_h_search_aliased(&s);
        }
        bool failed = s.oom || s.out.oom;
        if (failed) {
            r->oom = true;
        } else if (s.status != 200 && !per_item_error(s.out.data, s.out.len)) {
            /* a request-level failure: the whole _msearch answers it */
            r->status = s.status;
            r->content_type = s.content_type;
            tv_buf_clear(&r->out);
            if (r->pretty) {
                tv_jw *w = tv_req_json(r, s.status);
                tv_jw_raw(w, s.out.data, s.out.len);
            } else {
                tv_req_json(r, s.status);
                tv_buf_append(&r->out, s.out.data, s.out.len);
            }
            tv_buf_fini(&s.out);
            tv_free(s.allow);
            tv_arena_fini(&s.arena);
            tv_buf_fini(&out);
            return;
        } else {
            if (i) tv_buf_puts(&out, ",");
            if (s.status == 200 && s.out.len >= 2) {
                tv_buf_append(&out, s.out.data, s.out.len - 1);
                tv_buf_puts(&out, ",\"status\":200}");
            } else {
                tv_buf_append(&out, s.out.data, s.out.len);
            }
        }
        tv_buf_fini(&s.out);
        tv_free(s.allow);
        tv_arena_fini(&s.arena);
        if (r->oom) break;
    }
    tv_buf_puts(&out, "]");
    if (r->oom || out.oom) {
        r->oom = true;
        tv_buf_fini(&out);
        return;
    }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "took");
    tv_jw_uint(w, (tv_mono_ns() - t0) / 1000000);
    tv_jw_keyz(w, "responses");
    tv_jw_raw(w, out.data, out.len);
    tv_jw_obj_end(w);
    tv_buf_fini(&out);
}
