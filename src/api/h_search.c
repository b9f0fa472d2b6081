/*
 * h_search.c — GET|POST /_search, /{index}/_search, /_count,
 * /{index}/_count.
 *
 * The handler resolves the index expression to retained indices, takes a
 * snapshot of each (tv_index_acquire: the engine's lazy periodic refresh),
 * turns URL parameters into tv_search_params (validating them as
 * RestSearchAction does), and calls the search layer, which writes the
 * whole response. URL parameters OpenSearch accepts but trove cannot honour
 * (stored_fields, search_pipeline, ...) are answered with
 * unsupported_operation_exception rather than ignored.
 *
 * URI search (?q=, df, default_operator, analyzer) is passed through in
 * tv_search_params: the search layer parses q as a query_string query that
 * replaces the body's query, as RestActions.urlParamsToQueryBuilder does.
 * A ?scroll search and a body naming a point in time ("pit") leave here
 * for h_scroll.c, which holds their snapshots; both come back through
 * tv_api_search_answer, which also serves _msearch items and scroll pages.
 *
 * Errors: the search layer reports request-level failures (body parsing,
 * validation) as they are, and shard-level failures (a query that fails to
 * build against a mapping) with err->index set; those are wrapped as
 * OpenSearch wraps them: search_phase_execution_exception "all shards
 * failed", phase "query", grouped, failed_shards [{shard, index, node,
 * reason}], root causes from the shard failure, and caused_by = the shard
 * failure's root cause (a non-OpenSearch exception is wrapped once more,
 * which is why OpenSearch prints it twice).
 *
 * Shards: each target searches the index's number_of_shards, or, with
 * `routing`, an alias's search_routing or a `_shards:` preference, only the
 * shards those reach (target_shards); the search layer then keeps the
 * documents living there (a filter on each document's stored routing) and
 * _shards counts the shards searched. A scroll keeps its targets' narrowing
 * for its later pages.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

typedef struct spe_ctx {
    const char *index; /* NULL: "index":null and no node (a lost scroll context) */
    const char *node_id;
    int shard;
    tv_api_err *shard_err;
} spe_ctx;

static void spe_extra(tv_jw *w, const tv_api_err *e) {
    const spe_ctx *c = e->extra_ctx;
    tv_jw_keyz(w, "phase");
    tv_jw_strz(w, "query");
    tv_jw_keyz(w, "grouped");
    tv_jw_bool(w, true);
    tv_jw_keyz(w, "failed_shards");
    tv_jw_arr_begin(w);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "shard");
    tv_jw_int(w, c->shard);
    tv_jw_keyz(w, "index");
    if (c->index) {
        tv_jw_strz(w, c->index);
        tv_jw_keyz(w, "node");
        tv_jw_strz(w, c->node_id);
    } else {
        tv_jw_null(w);
    }
    tv_jw_keyz(w, "reason");
    tv_jw_obj_begin(w);
    tv_api_err_write_inner(w, c->shard_err, false);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
    tv_jw_arr_end(w);
}

void tv_api_search_shard_failure(tv_req *r, tv_api_err *se, const char *index, int shard) {
    tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
    spe_ctx *c = tv_arena_calloc(&r->arena, 1, sizeof *c);
    tv_api_err **roots = tv_arena_calloc(&r->arena, 1, sizeof *roots);
    char *iname = index ? tv_arena_strndup(&r->arena, index, strlen(index)) : NULL;
    if (!e || !c || !roots || (index && !iname)) {
        r->oom = true;
        return;
    }
    c->index = iname;
    c->node_id = r->node->node_id;
    c->shard = shard;
    c->shard_err = se;
    roots[0] = se;
    e->type = TROVE_ESEARCHPHASE;
    e->reason = "all shards failed";
    e->status = se->status;
    e->extra = spe_extra;
    e->extra_ctx = c;
    e->root_causes = roots;
    e->nroot_causes = 1;
    /* caused_by: the root cause of the shard failure */
    const tv_api_err *rc = se;
    while (tv_api_err_os(rc) && rc->cause && tv_api_err_os(rc->cause)) rc = rc->cause;
    if (tv_api_err_os(rc)) {
        e->cause = (tv_api_err *)rc;
    } else {
        tv_api_err *wrap = tv_arena_calloc(&r->arena, 1, sizeof *wrap);
        if (!wrap) {
            r->oom = true;
            return;
        }
        wrap->type = rc->type;
        wrap->reason = rc->reason;
        wrap->status = rc->status;
        wrap->wrapper = true;
        wrap->cause = (tv_api_err *)rc;
        e->cause = wrap;
    }
    tv_req_error(r, e);
}

static void answer_search_error(tv_req *r, const tv_error *err_in, const tv_search_target *t,
                                tv_index *const *idxs, size_t n, const tv_script_failure *sf) {
    tv_error errc = *err_in;
    tv_error *err = &errc;
    if (err->code == TROVE_ESCRIPT && sf && sf->set) {
        /* a script's ScriptException, on the shard that ran it (or the
         * coordinator's reduce: no index) */
        tv_api_script as = {.source = sf->source, .len = sf->len};
        tv_api_err *se = tv_api_script_error(r, &as, &sf->err);
        if (!se) return;
        if (!err->index[0]) tv_req_error(r, se);
        else tv_api_search_shard_failure(r, se, err->index, 0);
        return;
    }
    /* query_shard_exception is raised on a shard by construction: it names
     * the index even when the search layer did not */
    if (err->code == TROVE_EQUERYSHARD && !err->index[0] && n)
        snprintf(err->index, sizeof err->index, "%s", t[0].index);
    tv_index *idx = NULL;
    for (size_t i = 0; idxs && i < n; i++)
        if (idxs[i] && strcmp(t[i].index, err->index) == 0) idx = idxs[i];
    tv_api_err *se = tv_api_err_from(r, err, idx);
    if (!se) return;
    if (!err->index[0]) {
        tv_req_error(r, se);
        return;
    }
    tv_api_search_shard_failure(r, se, err->index, 0);
}

/* explain's "_shard": the shard a hit's document routes to (routing.c) */
static uint32_t hit_shard(const void *ctx, size_t target, const char *id, size_t id_len, const char *routing,
                          size_t routing_len) {
    tv_index *const *idx = ctx;
    if (!idx || !idx[target]) return 0;
    tv_shard_route rt;
    tv_shard_route_of(idx[target], &rt);
    return tv_shard_id(&rt, id, id_len, routing, routing_len);
}

/* ------------------------------------------------------- terms lookups */

/* A terms lookup runs as OpenSearch's coordinator runs it: a GET of the
 * document (its _source filtered to the path), or a search of the lookup
 * index with the lookup's query, sent to the node through trove_request as
 * a client's would be (so it counts and fails as that request does). A
 * failing request's answer becomes the search's answer, verbatim. */
typedef struct lookup_done {
    tv_terms_lookup l;
    tv_json *values;
} lookup_done;
typedef struct lookup_ctx {
    tv_req *r;
    int status;    /* a failed lookup's answer (0: none) */
    char *body;
    size_t len;
    /* lookups fetched already: the coordinator rewrites a request once,
     * so each lookup reads once whatever the number of targets (and of
     * parses: a named query is parsed twice) */
    TV_VEC(lookup_done) done;
} lookup_ctx;

static bool same_str(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

static void pct(tv_buf *b, const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
            c == '.' || c == '~') {
            tv_buf_append(b, (const char *)&c, 1);
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            tv_buf_append(b, e, 3);
        }
    }
}

typedef TV_VEC(tv_json) jvals;

/* The values a leaf holds (an array's elements, nulls left out). */
static int add_values(const tv_json *v, jvals *out) {
    if (v->type == TV_JSON_NULL) return 0;
    if (v->type != TV_JSON_ARRAY) return tv_vec_push(out, *v);
    for (uint32_t i = 0; i < v->len; i++)
        if (add_values(&v->v.items[i], out)) return -1;
    return 0;
}

/* XContentMapValues.extractRawValues: the values at a dotted path, keys
 * that contain dots included, through arrays of objects. */
static int extract(const tv_json *o, const char *path, size_t plen, jvals *out) {
    if (o->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < o->len; i++)
            if (o->v.items[i].type == TV_JSON_OBJECT && extract(&o->v.items[i], path, plen, out)) return -1;
        return 0;
    }
    if (o->type != TV_JSON_OBJECT) return 0;
    for (uint32_t i = 0; i < o->len; i++) {
        const tv_json_member *m = &o->v.members[i];
        if (m->key_len > plen || memcmp(m->key, path, m->key_len) != 0) continue;
        if (m->key_len == plen) {
            if (add_values(&m->val, out)) return -1;
        } else if (path[m->key_len] == '.') {
            if (extract(&m->val, path + m->key_len + 1, plen - m->key_len - 1, out)) return -1;
        }
    }
    return 0;
}

static tv_status lookup_fetch(const void *ctx_in, const tv_terms_lookup *l, tv_arena *a, tv_json **values,
                              tv_error *err) {
    lookup_ctx *c = (lookup_ctx *)ctx_in;
    tv_req *r = c->r;
    for (size_t i = 0; i < c->done.len; i++) {
        const tv_terms_lookup *o = &c->done.items[i].l;
        if (same_str(o->index, l->index) && same_str(o->id, l->id) && same_str(o->routing, l->routing) &&
            same_str(o->path, l->path) && o->query == l->query && o->store == l->store) {
            *values = c->done.items[i].values;
            return TROVE_OK;
        }
    }
    tv_buf path, body;
    tv_buf_init(&path);
    tv_buf_init(&body);
    const char *et = tv_req_param(r, "error_trace");
    /* TermsQueryBuilder.fetch: min(max_terms_count, max_result_window,
     * 1024) hits of the query (the defaults) */
    const int64_t fetch_size = 1024;
    tv_buf_puts(&path, "/");
    pct(&path, l->index);
    if (l->id) {
        tv_buf_puts(&path, "/_doc/");
        pct(&path, l->id);
        tv_buf_puts(&path, "?_source_includes=");
        pct(&path, l->path);
        if (l->routing) {
            tv_buf_puts(&path, "&routing=");
            pct(&path, l->routing);
        }
    } else {
        tv_buf_puts(&path, "/_search?");
        tv_jw w;
        tv_jw_init(&w, &body, false);
        tv_jw_obj_begin(&w);
        tv_jw_keyz(&w, "size");
        tv_jw_int(&w, fetch_size);
        tv_jw_keyz(&w, "query");
        tv_jw_value(&w, l->query);
        tv_jw_keyz(&w, "_source");
        tv_jw_arr_begin(&w);
        tv_jw_strz(&w, l->path);
        tv_jw_arr_end(&w);
        tv_jw_obj_end(&w);
    }
    if (et) {
        tv_buf_puts(&path, l->id ? "&error_trace=" : "error_trace=");
        pct(&path, et);
    }
    tv_buf_append(&path, "", 1); /* NUL */
    tv_status st = TROVE_OK;
    trove_response resp = {0};
    if (path.oom || body.oom) {
        st = tv_error_oom(err);
        goto out;
    }
    trove_request(r->node, l->id ? "GET" : "POST", path.data, body.data, body.len, &resp);
    const tv_json *j = NULL;
    tv_json *pj = NULL;
    if (resp.body && tv_json_parse(a, resp.body, resp.body_len, &pj, NULL) == TROVE_OK) j = pj;
    if (resp.status >= 400 && (!j || j->type != TV_JSON_OBJECT || tv_json_get(j, "error"))) {
        c->status = resp.status;
        c->body = tv_arena_memdup(&r->arena, resp.body ? resp.body : "", resp.body_len);
        c->len = resp.body_len;
        st = tv_error_set(err, TROVE_EARG, "terms lookup failed");
        goto out;
    }
    jvals vals = {0};
    const char *pth = l->path;
    if (j && l->id) {
        const tv_json *src = tv_json_get(j, "_source");
        if (src && extract(src, pth, strlen(pth), &vals)) st = tv_error_oom(err);
    } else if (j) {
        const tv_json *hits = tv_json_get(j, "hits");
        const tv_json *total = hits ? tv_json_get(hits, "total") : NULL;
        const tv_json *tv = total && total->type == TV_JSON_OBJECT ? tv_json_get(total, "value") : total;
        int64_t th = tv && tv->type == TV_JSON_INT ? tv->v.i : 0;
        if (th > fetch_size) {
            st = tv_error_set(err, TROVE_EARG,
                              "Terms lookup subquery total hits [%lld] exceed fetch limit [%lld]; filter may be "
                              "incomplete.",
                              (long long)th, (long long)fetch_size);
            goto out;
        }
        const tv_json *hh = hits ? tv_json_get(hits, "hits") : NULL;
        for (uint32_t i = 0; hh && hh->type == TV_JSON_ARRAY && i < hh->len && !st; i++) {
            const tv_json *src = tv_json_get(&hh->v.items[i], "_source");
            if (src && extract(src, pth, strlen(pth), &vals)) st = tv_error_oom(err);
        }
    }
    if (!st) {
        tv_json *arr = tv_arena_calloc(a, 1, sizeof *arr);
        tv_json *items = vals.len ? tv_arena_alloc(a, vals.len * sizeof *items) : NULL;
        if (!arr || (vals.len && !items)) {
            st = tv_error_oom(err);
        } else {
            if (vals.len) memcpy(items, vals.items, vals.len * sizeof *items);
            arr->type = TV_JSON_ARRAY;
            arr->len = (uint32_t)vals.len;
            arr->v.items = items;
            *values = arr;
            lookup_done dn = {*l, arr};
            if (tv_vec_push(&c->done, dn)) st = tv_error_oom(err);
        }
    }
    tv_vec_fini(&vals);
out:
    trove_response_fini(&resp);
    tv_buf_fini(&path);
    tv_buf_fini(&body);
    return st;
}

/* SearchStats of a search that answered: per target (one index is one
 * shard's worth of work here) a query, or a suggestion when the search
 * was only a suggest (ShardSearchStats.onQueryPhase), and a fetch when the
 * page held its hits, or always when the search had one shard in all
 * (SearchService's query-and-fetch shortcut); the fetch phase's time is
 * shared among the targets it fetched from. */
static void count_search(tv_index *const *idx, size_t n, const tv_search_stats *ss) {
    if (!idx || !ss->done) return;
    int64_t shards = 0;
    size_t nfetched = 0;
    for (size_t i = 0; i < n; i++) {
        if (!idx[i]) continue;
        tv_index_lock(idx[i]);
        shards += TV_MAX(tv_index_settings(idx[i])->number_of_shards, 1);
        tv_index_unlock(idx[i]);
    }
    for (size_t i = 0; i < n; i++) nfetched += idx[i] && (ss->fetched[i] || shards == 1);
    for (size_t i = 0; i < n; i++) {
        if (!idx[i]) continue;
        if (ss->suggest_only) {
            tv_index_stat_add(idx[i], TV_STAT_SUGGEST_TOTAL, 1);
            tv_index_stat_add(idx[i], TV_STAT_SUGGEST_NS, ss->query_ns[i] + ss->suggest_ns / (int64_t)n);
        } else {
            tv_index_stat_add(idx[i], TV_STAT_QUERY_TOTAL, 1);
            tv_index_stat_add(idx[i], TV_STAT_QUERY_NS, ss->query_ns[i]);
        }
        if (ss->fetched[i] || shards == 1) {
            tv_index_stat_add(idx[i], TV_STAT_FETCH_TOTAL, 1);
            tv_index_stat_add(idx[i], TV_STAT_FETCH_NS, ss->fetch_ns / (int64_t)nfetched);
        }
    }
}

bool tv_api_search_answer(tv_req *r, const tv_search_target *targets, tv_index *const *idx, size_t n,
                          const tv_json *body, const tv_search_params *p_in, const char *id_key,
                          const char *id, bool count) {
    tv_search_params pe = *p_in, *p = &pe;
    lookup_ctx lc = {r, 0, NULL, 0, {0}};
    pe.lookup = lookup_fetch;
    pe.lookup_ctx = &lc;
    pe.node_id = r->node->node_id;
    pe.shard_of = hit_shard;
    pe.shard_ctx = idx;
    tv_script_failure sf = {0};
    pe.script_failure = &sf;
    pe.stored_script = tv_api_stored_script;
    pe.stored_script_ctx = r;
    tv_search_stats ss = {0};
    ss.query_ns = tv_arena_calloc(&r->arena, n ? n : 1, sizeof *ss.query_ns);
    ss.fetched = tv_arena_calloc(&r->arena, n ? n : 1, sizeof *ss.fetched);
    if (!ss.query_ns || !ss.fetched) {
        r->oom = true;
        return false;
    }
    pe.stats = &ss;
    tv_error err;
    tv_error_clear(&err);
    tv_buf out;
    tv_buf_init(&out);
    tv_jw w;
    /* with an id to put first, the body is written compact and re-indented
     * by tv_jw_raw when the request asked for pretty output */
    tv_jw_init(&w, &out, id_key ? false : r->pretty);
    tv_status st = count ? tv_search_count(targets, n, body, p, &r->arena, &w, &err)
                         : tv_search_run(targets, n, body, p, &r->arena, &w, &err);
    if (st == TROVE_OK) count_search(idx, n, &ss);
    bool ok = false;
    if (st == TROVE_ENOMEM || out.oom) {
        r->oom = true;
    } else if (st != TROVE_OK && lc.status) {
        /* a terms lookup's failed request answers for the search */
        tv_jw *rw = tv_req_json(r, lc.status);
        tv_jw_raw(rw, lc.body ? lc.body : "{}", lc.body ? lc.len : 2);
    } else if (st != TROVE_OK) {
        answer_search_error(r, &err, targets, idx, n, &sf);
    } else if (!id_key) {
        tv_req_json(r, 200);
        tv_buf_append(&r->out, out.data, out.len);
        ok = true;
    } else {
        /* {"<id_key>":"<id>", + the rest of the search response */
        tv_buf b;
        tv_buf_init(&b);
        tv_jw iw;
        tv_jw_init(&iw, &b, false);
        tv_jw_obj_begin(&iw);
        tv_jw_keyz(&iw, id_key);
        tv_jw_strz(&iw, id);
        tv_jw_obj_end(&iw);
        if (b.len >= 1 && out.len >= 2) {
            b.len--; /* drop '}' */
            tv_buf_puts(&b, ",");
            tv_buf_append(&b, out.data + 1, out.len - 1);
        }
        if (b.oom) {
            r->oom = true;
        } else {
            tv_jw *rw = tv_req_json(r, 200);
            tv_jw_raw(rw, b.data, b.len);
            ok = true;
        }
        tv_buf_fini(&b);
    }
    tv_buf_fini(&out);
    tv_vec_fini(&lc.done);
    return ok;
}

/* An int parameter (RestRequest.paramAsInt) into *out, left -1 when absent. */
static bool param_int(tv_req *r, const char *key, int64_t *out) {
    *out = -1;
    return !tv_req_param(r, key) || tv_req_param_i64(r, key, -1, out);
}

/* A parameter that must be at least min when given (SearchRequest's
 * setters): "<name> must be >= <min>". */
static bool param_at_least(tv_req *r, const char *key, int64_t min, const char *name) {
    int64_t v;
    if (!param_int(r, key, &v)) return false;
    if (!tv_req_param(r, key) || v >= min) return true;
    return tv_req_fail(r, TROVE_EARG, "%s must be >= %lld", name, (long long)min);
}

bool tv_api_search_request_params(tv_req *r, bool batched) {
    /* RestSearchAction.parseSearchRequest's order; RestMultiSearchAction
     * sets the last two on each search */
    return (!batched || param_at_least(r, "batched_reduce_size", 2, "batchedReduceSize")) &&
           param_at_least(r, "pre_filter_shard_size", 1, "preFilterShardSize") &&
           param_at_least(r, "max_concurrent_shard_requests", 1, "maxConcurrentShardRequests");
}

/* terminate_after (RestSearchAction, RestCountAction): a negative value
 * fails, 0 leaves the body's. */
static bool param_terminate_after(tv_req *r, int64_t *out) {
    if (!param_int(r, "terminate_after", out)) return false;
    if (tv_req_param(r, "terminate_after") && *out < 0)
        return tv_req_fail(r, TROVE_EARG, "terminateAfter must be > 0");
    if (*out == 0) *out = -1;
    return true;
}

static bool reject_if(tv_req *r, const char *key) {
    if (!tv_req_param(r, key)) return true;
    return tv_req_fail(r, TROVE_EUNSUPPORTED,
                       "trove does not support the [%s] parameter of _search", key);
}

static bool reject_if_true(tv_req *r, const char *key) {
    bool v;
    if (!tv_req_param_bool(r, key, false, &v)) return false;
    if (!v) return true;
    return tv_req_fail(r, TROVE_EUNSUPPORTED,
                       "trove does not support the [%s] parameter of _search", key);
}

/* A positive int setting of one parsed kind, 0 when unset. */
static int64_t kind_int(const tv_json *j, const char *key) {
    const tv_json *v = j ? tv_json_get(j, key) : NULL;
    int64_t n;
    if (v && v->type == TV_JSON_INT && v->v.i > 0) return v->v.i;
    if (v && v->type == TV_JSON_STRING && tv_parse_i64(v->v.s, v->len, &n) && n > 0) return n;
    return 0;
}

void tv_api_search_limits(tv_req *r, tv_search_params *p) {
    /* each kind parsed once per request (transient over persistent) */
    const char *kinds[2] = {r->node->st->cluster_transient, r->node->st->cluster_persistent};
    p->max_buckets = p->max_clause_count = 0;
    p->disallow_expensive = false;
    bool ae_seen = false;
    for (int k = 0; k < 2; k++) {
        tv_json *j = NULL;
        if (!kinds[k] || tv_json_parse(&r->arena, kinds[k], strlen(kinds[k]), &j, NULL) != TROVE_OK) continue;
        if (!p->max_buckets) p->max_buckets = kind_int(j, "search.max_buckets");
        if (!p->max_clause_count) p->max_clause_count = kind_int(j, "indices.query.bool.max_clause_count");
        /* search.allow_expensive_queries: transient wins when set */
        const tv_json *ae = tv_json_get(j, "search.allow_expensive_queries");
        if (ae && !ae_seen) {
            ae_seen = true;
            p->disallow_expensive = ae->type == TV_JSON_FALSE ||
                                    (ae->type == TV_JSON_STRING && tv_streq(ae->v.s, ae->len, "false"));
        }
    }
}

static bool names_shard_doc(const tv_json *s) {
    if (s->type == TV_JSON_STRING) return tv_streq(s->v.s, s->len, "_shard_doc");
    if (s->type == TV_JSON_OBJECT)
        for (uint32_t i = 0; i < s->len; i++)
            if (tv_streq(s->v.members[i].key, s->v.members[i].key_len, "_shard_doc")) return true;
    return false;
}

int tv_api_shard_doc_errors(const tv_json *body, bool scroll, bool pit, tv_buf *v, int nv) {
    const tv_json *sort = body && body->type == TV_JSON_OBJECT ? tv_json_get(body, "sort") : NULL;
    int n = 0;
    if (sort && sort->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < sort->len; i++) n += names_shard_doc(&sort->v.items[i]);
    } else if (sort) {
        n = names_shard_doc(sort);
    }
    if (n > 0 && scroll)
        tv_buf_printf(v, "%d: _shard_doc cannot be used with scroll. Use PIT + search_after instead.;", ++nv);
    if (n > 0 && !pit)
        tv_buf_printf(v, "%d: _shard_doc is only supported with point-in-time (PIT). Add a PIT or remove _shard_doc.;",
                      ++nv);
    if (n > 1) tv_buf_printf(v, "%d: duplicate _shard_doc sort detected. Specify it at most once.;", ++nv);
    return nv;
}

static void run(tv_req *r, bool count) {
    tv_search_params p;
    tv_search_params_init(&p);
    bool iu, ani;
    if (!tv_req_param_bool(r, "ignore_unavailable", false, &iu)) return;
    if (!tv_req_param_bool(r, "allow_no_indices", true, &ani)) return;
    const char *ew = tv_req_param(r, "expand_wildcards");
    if (ew && strcmp(ew, "open") != 0 && strcmp(ew, "all") != 0 && strcmp(ew, "open,closed") != 0)
        return (void)tv_req_fail(r, TROVE_EUNSUPPORTED,
                                 "trove does not support expand_wildcards [%s]", ew);
    if (!count && !tv_api_search_request_params(r, true)) return;
    tv_api_search_limits(r, &p);
    if (!param_terminate_after(r, &p.terminate_after)) return;
    p.q = tv_req_param(r, "q");
    p.df = tv_req_param(r, "df");
    p.default_operator = tv_req_param(r, "default_operator");
    p.analyzer = tv_req_param(r, "analyzer");
    if (p.default_operator && strcmp(p.default_operator, "AND") != 0 && strcmp(p.default_operator, "OR") != 0 &&
        strcmp(p.default_operator, "and") != 0 && strcmp(p.default_operator, "or") != 0)
        return (void)tv_req_fail(r, TROVE_EARG,
                                 "No enum constant org.opensearch.index.query.Operator.%s", p.default_operator);
    if (!reject_if(r, "lenient") || !reject_if(r, "analyze_wildcard")) return;
    if (count) {
        if (!reject_if(r, "min_score")) return;
    } else {
        if (!param_int(r, "from", &p.from) || !param_int(r, "size", &p.size)) return;
        if (tv_req_param(r, "size") && p.size < 0)
            return (void)tv_req_fail(r, TROVE_EARG,
                                     "[size] parameter cannot be negative, found [%lld]", (long long)p.size);
        if (tv_req_param(r, "from") && p.from < 0)
            return (void)tv_req_fail(r, TROVE_EARG,
                                     "[from] parameter cannot be negative, found [%lld]", (long long)p.from);
        p.track_total_hits = tv_req_param(r, "track_total_hits");
        p.timeout = tv_req_param(r, "timeout");
        if (!tv_req_param_bool(r, "rest_total_hits_as_int", false, &p.rest_total_hits_as_int)) return;
        p.source = tv_req_param(r, "_source");
        p.source_includes = tv_req_param(r, "_source_includes");
        p.source_excludes = tv_req_param(r, "_source_excludes");
        p.sort = tv_req_param(r, "sort");
        if (!tv_req_param_bool(r, "seq_no_primary_term", false, &p.seq_no_primary_term)) return;
        if (!tv_req_param_bool(r, "version", false, &p.version)) return;
        if (!tv_req_param_bool(r, "explain", false, &p.explain)) return;
        const char *st = tv_req_param(r, "search_type");
        if (st && strcmp(st, "query_then_fetch") != 0 && strcmp(st, "dfs_query_then_fetch") != 0)
            return (void)tv_req_fail(r, TROVE_EARG, "No search type for [%s]", st);
        p.docvalue_fields = tv_req_param(r, "docvalue_fields");
        if (!tv_req_param_bool(r, "typed_keys", false, &p.typed_keys)) return;
        p.suggest_field = tv_req_param(r, "suggest_field");
        static const char *const suggest_rest[] = {"suggest_mode", "suggest_size", "suggest_text", NULL};
        if (!p.suggest_field && !tv_req_fail_unread(r, suggest_rest)) return;
        if (p.suggest_field) { /* RestSearchAction reads the others only with a suggest_field */
            p.suggest_text = tv_req_param(r, "suggest_text");
            p.suggest_mode = tv_req_param(r, "suggest_mode");
            if (!param_int(r, "suggest_size", &p.suggest_size)) return;
            /* SuggestionBuilder.size */
            if (tv_req_param(r, "suggest_size") && p.suggest_size <= 0)
                return (void)tv_req_fail(r, TROVE_EARG, "size must be positive");
        }
        if (!reject_if(r, "stored_fields") || !reject_if(r, "search_pipeline") ||
            !reject_if_true(r, "track_scores") ||
            !reject_if_true(r, "phase_took"))
            return;
        if (!tv_req_param_bool(r, "include_named_queries_score", false, &p.named_scores)) return;
    }
    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body && r->body_len) return;
    p.body_text = r->body;
    p.body_text_len = r->body_len;
    int64_t keep_alive = -1;
    if (!count) {
        const tv_json *pit = body && body->type == TV_JSON_OBJECT ? tv_json_get(body, "pit") : NULL;
        if (pit) {
            if (tv_req_param(r, "scroll"))
                return (void)tv_req_fail(r, TROVE_EVALIDATION,
                                         "Validation Failed: 1: using [point in time] is not allowed in a "
                                         "scroll context;");
            return tv_api_pit_search(r, body, &p);
        }
        const char *sc = tv_req_param(r, "scroll");
        if (sc && !tv_api_parse_time_ms(r, "scroll", sc, &keep_alive)) return;
        if (!sc) { /* SearchRequest.validate (a scroll's: tv_api_scroll_start) */
            tv_buf v;
            tv_buf_init(&v);
            int nv = tv_api_shard_doc_errors(body, false, false, &v, 0);
            if (v.oom) r->oom = true;
            else if (nv) tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: %.*s", (int)v.len, v.data);
            tv_buf_fini(&v);
            if (nv || r->oom) return;
        }
    }

    tv_index_list l;
    if (!tv_node_resolve(r, r->p_index, iu, ani, &l)) return;
    size_t nt = 0;
    tv_search_target *targets = tv_api_targets(r, &l, &nt);
    if (!r->oom) {
        if (keep_alive >= 0)
            tv_api_scroll_start(r, targets, l.items, nt, body, &p, keep_alive);
        else
            tv_api_search_answer(r, targets, l.items, nt, body, &p, NULL, NULL, count);
    }
    for (size_t i = 0; i < nt; i++) tv_snapshot_release(targets[i].snap);
    tv_index_list_release(&l);
}

/* ------------------------------------------------- the shards searched */

/* The documents of the shards in set (the target's tv_shard_pick). */
typedef struct shard_set {
    tv_shard_route rt;
    uint64_t bits[16]; /* index.number_of_shards <= 1024 */
} shard_set;

static bool shard_keep(const void *ud, const char *id, size_t id_len, const char *routing, size_t routing_len) {
    const shard_set *ss = ud;
    uint32_t sh = tv_shard_id(&ss->rt, id, id_len, routing, routing_len);
    return sh < 1024 && (ss->bits[sh / 64] >> (sh % 64) & 1);
}

/* Adds each comma-separated value of list (trimmed, empty ones skipped,
 * as Strings.splitStringByCommaToSet) to set. */
static void add_routings(const tv_shard_route *rt, const char *list, uint64_t *set) {
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *a = p, *z = p + n;
        while (a < z && (*a == ' ' || *a == '\t')) a++;
        while (z > a && (z[-1] == ' ' || z[-1] == '\t')) z--;
        if (z > a) tv_routing_search_shards(rt, a, (size_t)(z - a), set);
        p = e ? e + 1 : p + n;
    }
}

/* The search routing the request's aliases give index (the union of their
 * search_routing values) when the index expression is only aliases and
 * each of those reaching index has one; NULL otherwise (IndexNameExpression
 * Resolver.resolveSearchRouting, without wildcard expressions). */
static const char *alias_search_routing(tv_req *r, const char *index) {
    const char *expr = r->p_index;
    if (!expr || strchr(expr, '*')) return NULL;
    tv_buf b;
    tv_buf_init(&b);
    bool ok = true, any = false;
    trove_node *n = r->node;
    pthread_rwlock_rdlock(&n->lock);
    for (const char *p = expr; *p && ok;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        bool is_alias = false;
        for (size_t i = 0; i < n->st->naliases; i++) {
            const tv_alias *a = &n->st->aliases[i];
            if (strlen(a->alias) != len || memcmp(a->alias, p, len) != 0) continue;
            is_alias = true;
            if (strcmp(a->index, index) != 0) continue;
            if (!a->search_routing) ok = false; /* reaches every shard */
            else {
                if (b.len) tv_buf_putc(&b, ',');
                tv_buf_puts(&b, a->search_routing);
                any = true;
            }
        }
        if (!is_alias) ok = false; /* an index name: every shard */
        p = e ? e + 1 : p + len;
    }
    pthread_rwlock_unlock(&n->lock);
    const char *out = ok && any && !b.oom ? tv_arena_strndup(&r->arena, b.data, b.len) : NULL;
    if (b.oom) r->oom = true;
    tv_buf_fini(&b);
    return out;
}

/* The shards of idx a search reaches (OperationRouting.searchShards): the
 * routing values' shards (the request's `routing`, and its aliases'
 * search_routing: both when both are given, as their intersection), then a
 * `_shards:` preference; every shard when neither narrows them. */
static void target_shards(tv_req *r, tv_index *idx, tv_search_target *x) {
    shard_set *ss = tv_arena_calloc(&r->arena, 1, sizeof *ss);
    if (!ss) {
        r->oom = true;
        return;
    }
    tv_shard_route_of(idx, &ss->rt);
    uint32_t ns = ss->rt.num_shards > 1024 ? 1024 : ss->rt.num_shards;
    x->nshards = ns;
    const char *req = tv_req_param(r, "routing"), *als = alias_search_routing(r, tv_index_name(idx));
    const char *pref = tv_req_param(r, "preference");
    bool narrowed = false;
    if ((req && *req) || als) {
        uint64_t a[16] = {0}, b[16] = {0};
        if (req && *req) add_routings(&ss->rt, req, a);
        if (als) add_routings(&ss->rt, als, b);
        for (int i = 0; i < 16; i++) ss->bits[i] = req && *req && als ? a[i] & b[i] : a[i] | b[i];
        narrowed = true;
    } else {
        for (uint32_t i = 0; i < ns; i++) ss->bits[i / 64] |= 1ull << (i % 64);
    }
    if (pref && strncmp(pref, "_shards:", 8) == 0) { /* "_shards:0,2" or "_shards:0,2|_local" */
        uint64_t want[16] = {0};
        for (const char *p = pref + 8; *p && *p != '|';) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p) break;
            if (v >= 0 && v < (long)ns) want[v / 64] |= 1ull << (v % 64);
            p = *end == ',' ? end + 1 : end;
        }
        for (int i = 0; i < 16; i++) ss->bits[i] &= want[i];
        narrowed = true;
    }
    if (!narrowed) return;
    uint32_t c = 0;
    for (int i = 0; i < 16; i++) c += (uint32_t)__builtin_popcountll(ss->bits[i]);
    x->nshards = c;
    tv_shard_pick *pk = tv_arena_calloc(&r->arena, 1, sizeof *pk);
    if (!pk) {
        r->oom = true;
        return;
    }
    pk->keep = shard_keep;
    pk->ud = ss;
    x->pick = pk;
}

void *tv_api_target_pick_save(const tv_search_target *t) {
    if (!t->pick) return NULL;
    shard_set *c = tv_malloc(sizeof *c);
    if (c) memcpy(c, t->pick->ud, sizeof *c);
    return c;
}

bool tv_api_target_pick_restore(tv_req *r, tv_search_target *t, const void *saved, uint32_t nshards) {
    t->nshards = nshards;
    t->pick = NULL;
    if (!saved) return true;
    shard_set *ss = (shard_set *)tv_arena_memdup(&r->arena, saved, sizeof *ss);
    tv_shard_pick *pk = tv_arena_calloc(&r->arena, 1, sizeof *pk);
    if (!ss || !pk) return !(r->oom = true);
    pk->keep = shard_keep;
    pk->ud = ss;
    t->pick = pk;
    return true;
}

tv_search_target *tv_api_targets(tv_req *r, const tv_index_list *l, size_t *nt) {
    *nt = 0;
    tv_search_target *t = tv_arena_calloc(&r->arena, l->len + 1, sizeof *t);
    if (!t) {
        r->oom = true;
        return NULL;
    }
    for (size_t i = 0; i < l->len; i++) {
        const tv_snapshot *s = tv_index_acquire(l->items[i]);
        if (!s) {
            r->oom = true;
            break;
        }
        tv_search_target *x = &t[(*nt)++];
        x->index = tv_index_name(l->items[i]);
        x->snap = s;
        tv_index_lock(l->items[i]);
        tv_settings *st = tv_index_settings(l->items[i]);
        x->max_result_window = st ? st->max_result_window : 10000;
        x->max_docvalue_fields = st ? tv_settings_int(st, "index.max_docvalue_fields_search", 100) : 100;
        x->max_rescore_window = st ? tv_settings_int(st, "index.max_rescore_window", x->max_result_window) : 0;
        x->max_analyzed_offset = st ? tv_settings_int(st, "index.highlight.max_analyzed_offset", 1000000) : 1000000;
        x->max_inner_result_window = st ? tv_settings_int(st, "index.max_inner_result_window", 100) : 100;
        x->max_terms_count = st ? tv_settings_int(st, "index.max_terms_count", 65536) : 65536;
        x->max_script_fields = st ? tv_settings_int(st, "index.max_script_fields", 32) : 32;
        tv_index_unlock(l->items[i]);
        target_shards(r, l->items[i], x);
    }
    return t;
}

void tv_h_search(tv_req *r) { run(r, false); }
void tv_h_count(tv_req *r) { run(r, true); }
