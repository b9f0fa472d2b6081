/*
 * request.c — trove_request() and the node as the REST API meets it.
 *
 * trove_request() builds a tv_req (arena, decoded target, parameters),
 * hands it to the router, and turns the response buffer into the public
 * trove_response. HEAD responses keep status and headers and drop the body,
 * as an HTTP server must. A request that runs out of memory answers
 * TROVE_ENOMEM with no body.
 *
 * Also here, over the node layer (node/node.h): opening, cloning and
 * freeing nodes (the api's parts of a node: scroll contexts, the
 * management API, breaker settings), giving a writing request its own
 * state, index expressions resolved and their failures answered
 * (index_not_found_exception, index_closed_exception, an alias where none
 * may be), the single target of a document API, and auto-creating an
 * index on write.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>

#include "api.h"

static int attr_cmp(const void *a, const void *b) {
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t lx = strcspn(x, "="), ly = strcspn(y, "=");
    int c = memcmp(x, y, lx < ly ? lx : ly);
    return c ? c : (lx > ly) - (lx < ly);
}

/* The node's attributes (options "NAME=VALUE") as a compact JSON object
 * sorted by name into st->node_attrs. TROVE_EARG (message in err) for a
 * malformed or repeated one; TROVE_ENOMEM. */
static tv_status node_attrs_build(tv_node_state *st, const trove_options *opts, trove_error *err) {
    size_t n = opts ? opts->n_node_attrs : 0;
    const char **v = tv_calloc(n + 1, sizeof *v);
    if (!v) return TROVE_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *a = opts->node_attrs[i], *eq = a ? strchr(a, '=') : NULL;
        if (!eq || eq == a) {
            tv_free(v);
            err->code = TROVE_EARG;
            err->pos = SIZE_MAX;
            snprintf(err->message, sizeof err->message, "node attribute [%s] is not NAME=VALUE", a ? a : "");
            return TROVE_EARG;
        }
        v[i] = a;
    }
    qsort(v, n, sizeof *v, attr_cmp);
    for (size_t i = 1; i < n; i++) {
        if (attr_cmp(&v[i - 1], &v[i]) == 0) {
            int l = (int)strcspn(v[i], "=");
            err->code = TROVE_EARG;
            err->pos = SIZE_MAX;
            snprintf(err->message, sizeof err->message, "node attribute [node.attr.%.*s] is given twice", l, v[i]);
            tv_free(v);
            return TROVE_EARG;
        }
    }
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_obj_begin(&w);
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(v[i], '=');
        tv_jw_key(&w, v[i], (size_t)(eq - v[i]));
        tv_jw_strz(&w, eq + 1);
    }
    tv_jw_obj_end(&w);
    tv_free(v);
    st->node_attrs = tv_buf_detach(&b, NULL);
    return st->node_attrs ? TROVE_OK : TROVE_ENOMEM;
}

trove_node *trove_node_open(const trove_options *opts, trove_error *err) {
    tv_api_register_analysis_scripts();
    tv_node_state *st = tv_node_state_new();
    trove_node *n = NULL;
    if (!st) goto oom;
    trove_error aerr;
    tv_status as = node_attrs_build(st, opts, &aerr);
    if (as == TROVE_EARG) {
        tv_node_state_release(st);
        if (err) *err = aerr;
        return NULL;
    }
    if (as != TROVE_OK) goto oom;
    const char *nn = opts && opts->node_name ? opts->node_name : "trove";
    const char *cn = opts && opts->cluster_name ? opts->cluster_name : "trove";
    st->node_name = tv_strndup(nn, strlen(nn));
    st->cluster_name = tv_strndup(cn, strlen(cn));
    if (!st->node_name || !st->cluster_name) goto oom;
    tv_node_new_uuid(st->cluster_uuid);
    if (!(n = tv_node_new(st, NULL, NULL, opts ? opts->heap_bytes : 0))) goto oom;
    if (opts && opts->data_dir) {
        tv_error e;
        tv_error_clear(&e);
        if (tv_durable_open(n, opts->data_dir, &e) != TROVE_OK) {
            trove_node_free(n);
            tv_error_to_public(&e, err);
            return NULL;
        }
        tv_api_breakers_apply(n); /* the persisted cluster settings' limits */
    }
    return n;
oom:
    tv_node_state_release(st);
    if (err) {
        err->code = TROVE_ENOMEM;
        err->pos = SIZE_MAX;
        snprintf(err->message, sizeof err->message, "out of memory");
    }
    return NULL;
}

void trove_node_free(trove_node *n) {
    if (!n) return;
    tv_routing_cache_drop(); /* this thread's remembered mapping (routing.c) */
    tv_tasks_free(n); /* cancels and joins running tasks first: they use the node */
    tv_search_ctxs_free(n);
    tv_trove_mgmt_free(n); /* closes live clones (h_trove.c) */
    tv_node_free(n);
}

bool tv_node_own_state(tv_req *r) { return tv_node_own(r->node, r->pinned); }

trove_node *trove_node_clone(trove_node *src, trove_error *err) { return tv_node_clone_from(src, false, err); }

tv_index *tv_node_index_for_write(tv_req *r, const char *name) {
    pthread_rwlock_rdlock(&r->node->lock);
    tv_index *idx = tv_map_get(&r->node->st->indices, name, strlen(name));
    if (idx) tv_index_retain(idx);
    bool alias = !idx && tv_node_alias_in_use_locked(r->node, name);
    pthread_rwlock_unlock(&r->node->lock);
    if (idx) return idx;
    if (alias) {
        const char *t = tv_node_single_target(r, name, true);
        if (!t) return NULL;
        idx = tv_node_get_index(r->node, t);
        if (idx) return idx;
    }
    /* auto-create (action.auto_create_index: true), but not over an index
     * that is on disk and was not recovered */
    tv_failed_index failed;
    if (tv_durable_failed(r->node, name, &failed)) {
        tv_api_err *e = tv_api_err_no_index(r, name);
        if (e) tv_req_error(r, e);
        return NULL;
    }
    const char *bad = tv_index_name_invalid(name, &r->arena);
    if (bad) {
        tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
        if (!e) {
            r->oom = true;
            return NULL;
        }
        e->type = TROVE_EINDEXNAME;
        e->reason = tv_arena_sprintf(&r->arena, "Invalid index name [%s], %s", name, bad);
        e->status = 400;
        tv_api_err_meta(e, "index", name);
        tv_api_err_meta(e, "index_uuid", "_na_");
        if (!e->reason) {
            r->oom = true;
            return NULL;
        }
        tv_req_error(r, e);
        return NULL;
    }
    pthread_rwlock_wrlock(&r->node->lock);
    idx = tv_map_get(&r->node->st->indices, name, strlen(name));
    if (idx) {
        tv_index_retain(idx);
        pthread_rwlock_unlock(&r->node->lock);
        return idx;
    }
    idx = tv_node_create_index_locked(r, name, NULL, NULL, NULL);
    if (idx) tv_index_retain(idx);
    pthread_rwlock_unlock(&r->node->lock);
    return idx;
}

void tv_req_fail_closed(tv_req *r, tv_index *idx) {
    tv_api_err *e = tv_api_err_new(r, TROVE_ECLOSED, "closed");
    const char *name = tv_arena_strndup(&r->arena, tv_index_name(idx), strlen(tv_index_name(idx)));
    const char *uuid = tv_arena_strndup(&r->arena, tv_index_uuid(idx), strlen(tv_index_uuid(idx)));
    if (!e || !name || !uuid) {
        r->oom = true;
        return;
    }
    tv_api_err_meta(e, "index", name);
    tv_api_err_meta(e, "index_uuid", uuid);
    tv_req_error(r, e);
}

bool tv_resolve_opts_parse(tv_req *r, tv_resolve_opts *o) {
    if (!tv_req_param_bool(r, "ignore_unavailable", o->ignore_unavailable, &o->ignore_unavailable)) return false;
    if (!tv_req_param_bool(r, "allow_no_indices", o->allow_no_indices, &o->allow_no_indices)) return false;
    const char *ew = tv_req_param(r, "expand_wildcards");
    if (!ew) return true;
    const char **parts = NULL;
    size_t n = tv_split_commas(&r->arena, ew, &parts);
    unsigned e = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = parts[i];
        if (strcmp(p, "open") == 0)
            e |= TV_EXPAND_OPEN;
        else if (strcmp(p, "closed") == 0)
            e |= TV_EXPAND_CLOSED;
        else if (strcmp(p, "hidden") == 0)
            e |= TV_EXPAND_HIDDEN;
        else if (strcmp(p, "all") == 0)
            e |= TV_EXPAND_OPEN | TV_EXPAND_CLOSED | TV_EXPAND_HIDDEN;
        else if (strcmp(p, "none") == 0)
            e = 0;
        else
            return tv_req_fail(r, TROVE_EARG, "No valid expand wildcard value [%s]",
                               p);
    }
    o->expand = e;
    return true;
}

static void fail_alias_expr(tv_req *r, const char *name) {
    tv_req_fail(r, TROVE_EARG,
                "The provided expression [%s] matches an alias, specify the corresponding concrete indices instead.",
                name);
}

bool tv_node_resolve_ex(tv_req *r, const char *expr, const tv_resolve_opts *o, tv_index_list *out) {
    tv_resolve_fail fail;
    tv_status st = tv_node_resolve_names(r->node, &r->arena, expr, o, out, &fail);
    if (st == TROVE_OK) return true;
    if (st == TROVE_ENOMEM) {
        r->oom = true;
        return false;
    }
    if (fail.kind == TV_RESOLVE_ALIAS) {
        fail_alias_expr(r, fail.name);
    } else if (fail.kind == TV_RESOLVE_CLOSED) {
        tv_req_fail_closed(r, fail.closed);
        tv_index_release(fail.closed);
    } else {
        tv_api_err *e = tv_api_err_no_index(r, fail.name);
        if (e) tv_req_error(r, e);
    }
    return false;
}

bool tv_node_resolve(tv_req *r, const char *expr, bool ignore_unavailable, bool allow_no_indices,
                     tv_index_list *out) {
    tv_resolve_opts o = {.ignore_unavailable = ignore_unavailable,
                         .allow_no_indices = allow_no_indices,
                         .expand = TV_EXPAND_OPEN,
                         .forbid_closed = true};
    out->items = NULL;
    out->len = 0;
    out->filters = NULL;
    if (!tv_resolve_opts_parse(r, &o)) return false;
    o.ignore_unavailable = ignore_unavailable;
    o.allow_no_indices = allow_no_indices;
    return tv_node_resolve_ex(r, expr, &o, out);
}

/* The concrete index of a single-index request, or NULL with *err (not
 * answered) or r->oom. */
static const char *single_target_err(tv_req *r, const char *name, bool write, tv_api_err **err) {
    *err = NULL;
    trove_node *n = r->node;
    pthread_rwlock_rdlock(&n->lock);
    tv_index *idx = tv_map_get(&n->st->indices, name, strlen(name));
    const char *target = name;
    const char *why = NULL;
    tv_buf names;
    tv_buf_init(&names);
    if (!idx && tv_node_alias_in_use_locked(n, name)) {
        const tv_alias *w = NULL, *only = NULL;
        size_t cnt = 0;
        for (size_t i = 0; i < n->st->naliases; i++) {
            const tv_alias *a = &n->st->aliases[i];
            if (strcmp(a->alias, name) != 0) continue;
            tv_buf_printf(&names, "%s%s", cnt ? ", " : "", a->index);
            cnt++;
            only = a;
            if (a->is_write_index == 1) w = a;
        }
        if (write) {
            if (w)
                target = w->index;
            else if (cnt == 1 && only->is_write_index != 0)
                target = only->index;
            else
                why = "write";
        } else if (cnt == 1) {
            target = only->index;
        } else {
            why = "multi";
        }
        if (!why) idx = tv_map_get(&n->st->indices, target, strlen(target));
    }
    char *t = why ? NULL : tv_arena_strndup(&r->arena, target, strlen(target));
    bool closed = idx && tv_node_is_closed_locked(n, target);
    const char *cname = NULL, *cuuid = NULL;
    if (closed) {
        cname = tv_arena_strndup(&r->arena, tv_index_name(idx), strlen(tv_index_name(idx)));
        cuuid = tv_arena_strndup(&r->arena, tv_index_uuid(idx), strlen(tv_index_uuid(idx)));
    }
    pthread_rwlock_unlock(&n->lock);
    tv_api_err *e = NULL;
    if (why || closed) {
        e = tv_arena_calloc(&r->arena, 1, sizeof *e);
        if (!e) {
            tv_buf_fini(&names);
            r->oom = true;
            return NULL;
        }
        e->status = 400;
    }
    if (why) {
        e->type = TROVE_EARG;
        if (strcmp(why, "write") == 0)
            e->reason = tv_arena_sprintf(&r->arena,
                                         "no write index is defined for alias [%s]. The write index may be explicitly "
                                         "disabled using is_write_index=false or the alias points to multiple "
                                         "indices without one being designated as a write index",
                                         name);
        else
            e->reason = tv_arena_sprintf(&r->arena,
                                         "alias [%s] has more than one index associated with it [%s], can't execute "
                                         "a single index op",
                                         name, names.data ? names.data : "");
        tv_buf_fini(&names);
        if (!e->reason) r->oom = true;
        *err = e;
        return NULL;
    }
    tv_buf_fini(&names);
    if (closed) {
        if (!cname || !cuuid) {
            r->oom = true;
            return NULL;
        }
        e->type = TROVE_ECLOSED;
        e->reason = "closed";
        tv_api_err_meta(e, "index", cname);
        tv_api_err_meta(e, "index_uuid", cuuid);
        *err = e;
        return NULL;
    }
    if (!t) r->oom = true;
    return t;
}

const char *tv_node_single_target(tv_req *r, const char *name, bool write) {
    tv_api_err *e;
    const char *t = single_target_err(r, name, write, &e);
    if (!t && e) tv_req_error(r, e);
    return t;
}

tv_index *tv_node_index_for_write_err(tv_req *r, const char *name, tv_api_err **err) {
    *err = NULL;
    if (tv_node_is_alias(r->node, name) || tv_node_is_closed(r->node, name)) {
        const char *t = single_target_err(r, name, true, err);
        if (!t) return NULL;
        name = t;
    }
    tv_index *idx = tv_node_get_index(r->node, name);
    if (idx) return idx;
    /* auto-create: the response carries any error; hand it over as an err */
    idx = tv_node_index_for_write(r, name);
    return idx;
}

void tv_write_shards(tv_jw *w, int64_t total, int64_t successful) {
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "total");
    tv_jw_int(w, total);
    tv_jw_keyz(w, "successful");
    tv_jw_int(w, successful);
    tv_jw_keyz(w, "failed");
    tv_jw_int(w, 0);
    tv_jw_obj_end(w);
}

/* ---------------------------------------------------------- request */

static const char *const method_names[TV_METHOD_COUNT] = {
    "GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "TRACE", "CONNECT",
};

const char *tv_method_name(tv_method m) {
    return (unsigned)m < TV_METHOD_COUNT ? method_names[m] : "UNKNOWN";
}

tv_jw *tv_req_json(tv_req *r, int status) {
    tv_buf_clear(&r->out);
    r->status = status;
    r->content_type = "application/json; charset=UTF-8";
    tv_jw_init(&r->w, &r->out, r->pretty);
    return &r->w;
}

void tv_req_empty(tv_req *r, int status) {
    tv_buf_clear(&r->out);
    r->status = status;
    r->content_type = "text/plain; charset=UTF-8";
}

/* trove_request and trove_request_nowait: since NULL waits on this thread. */
static int request(trove_node *node, const char *method, const char *path_and_query, const void *body,
                   size_t body_len, int64_t *since, int *retry_ms, trove_response *out) {
    if (!out) return TROVE_EARG;
    memset(out, 0, sizeof *out);
    if (!node || !method || !path_and_query || (!body && body_len) || (since && !retry_ms)) return TROVE_EARG;
    tv_req r;
    memset(&r, 0, sizeof r);
    r.node = node;
    if (since) { /* 0 on a first ask: a waiting handler reads the clock */
        r.since_ms = *since;
        r.nowait = true;
    }
    tv_arena_init(&r.arena);
    tv_buf_init(&r.out);
    r.method = TV_METHOD_COUNT;
    for (int i = 0; i < TV_METHOD_COUNT; i++)
        if (strcmp(method, method_names[i]) == 0) r.method = (tv_method)i;
    r.uri = path_and_query;
    r.body = body_len ? body : NULL;
    r.body_len = body_len;
    /* a shared state is pinned for the request, so that no node writes it
     * in place while this request may still read it (tv_node_own_state) */
    pthread_rwlock_rdlock(&node->lock);
    atomic_fetch_add_explicit(&node->inflight, 1, memory_order_relaxed);
    if (atomic_load_explicit(&node->st->rc, memory_order_acquire) > 1) {
        r.pinned = node->st;
        atomic_fetch_add_explicit(&r.pinned->rc, 1, memory_order_relaxed);
    }
    pthread_rwlock_unlock(&node->lock);
    /* the breakers: the body on in_flight_requests (its length, estimated
     * twice over), then every block of the request's arena on request */
    tv_breakers *brk = &node->brk->b;
    tv_breaker_trip trip;
    memset(&trip, 0, sizeof trip);
    r.trip = &trip;
    tv_api_dispatch(&r); /* the router reserves the body and charges the arena (charge_in_flight) */
    tv_breaker_release(brk, TV_BREAKER_IN_FLIGHT, r.in_flight);
    if (r.arena.tripped) { /* whatever the handler made of the refusal */
        r.arena.charge_off = true;
        r.oom = false;
        r.waits = false;
        tv_buf_clear(&r.out);
        r.out.oom = false;
        tv_free(r.allow);
        r.allow = NULL;
        tv_req_breaker_error(&r, &trip);
    }
    atomic_fetch_sub_explicit(&node->inflight, 1, memory_order_release);
    tv_node_state_release(r.pinned);
    /* filter_path applies to answers, not to error envelopes (OpenSearch
     * builds those with an unfiltered builder) */
    const char *fp = r.oom ? NULL : tv_req_param(&r, "filter_path");
    if (fp && *fp && r.out.len && (r.status < 400 || r.status == 408) && r.content_type &&
        strncmp(r.content_type, "application/json", 16) == 0) {
        tv_buf nb;
        tv_buf_init(&nb);
        if (tv_filter_path_apply(&r.arena, fp, r.out.data, r.out.len, r.pretty, &nb)) {
            tv_buf t = r.out;
            r.out = nb;
            nb = t;
        } else if (nb.oom) {
            r.oom = true;
        }
        tv_buf_fini(&nb);
    }
    int rc = TROVE_OK;
    if (r.oom || r.out.oom) {
        rc = TROVE_ENOMEM;
    } else if (r.waits) {
        rc = TROVE_EWAIT;
        *since = r.since_ms;
        *retry_ms = r.retry_ms;
    } else {
        if (r.method == TV_HEAD) tv_buf_clear(&r.out);
        size_t n = 0;
        char *b = tv_buf_detach(&r.out, &n);
        if (!b) {
            rc = TROVE_ENOMEM;
        } else {
            out->status = r.status;
            out->content_type = r.content_type ? r.content_type : "application/json; charset=UTF-8";
            out->body = b;
            out->body_len = n;
            out->allow = r.allow;
            r.allow = NULL;
        }
    }
    tv_free(r.allow);
    tv_buf_fini(&r.out);
    tv_arena_fini(&r.arena);
    if (rc != TROVE_OK) memset(out, 0, sizeof *out);
    return rc;
}

int trove_request(trove_node *node, const char *method, const char *path_and_query, const void *body,
                  size_t body_len, trove_response *out) {
    return request(node, method, path_and_query, body, body_len, NULL, NULL, out);
}

int trove_request_nowait(trove_node *node, const char *method, const char *path_and_query, const void *body,
                         size_t body_len, int64_t *since, int *retry_ms, trove_response *out) {
    if (!since) return TROVE_EARG;
    return request(node, method, path_and_query, body, body_len, since, retry_ms, out);
}

void trove_response_fini(trove_response *r) {
    if (!r) return;
    tv_free(r->body);
    tv_free(r->allow);
    r->body = NULL;
    r->allow = NULL;
    r->body_len = 0;
}

/* Metadata.resolveIndexRouting / resolveWriteIndexRouting for an alias that
 * resolved to `index`: the alias's index_routing replaces the request's
 * routing; a different request routing, or an index_routing with several
 * values, is an illegal_argument_exception. */
bool tv_node_alias_routing(tv_req *r, const char *alias, const char *index, const char *routing,
                           const char **out, tv_api_err **err) {
    *out = routing;
    *err = NULL;
    trove_node *n = r->node;
    char *ir = NULL;
    bool found = false;
    pthread_rwlock_rdlock(&n->lock);
    for (size_t i = 0; i < n->st->naliases; i++) {
        const tv_alias *a = &n->st->aliases[i];
        if (strcmp(a->alias, alias) != 0 || strcmp(a->index, index) != 0) continue;
        found = true;
        if (a->index_routing) ir = tv_arena_strndup(&r->arena, a->index_routing, strlen(a->index_routing));
        if (a->index_routing && !ir) r->oom = true;
        break;
    }
    pthread_rwlock_unlock(&n->lock);
    if (!found || !ir) return !r->oom;
    const char *why = NULL;
    if (strchr(ir, ','))
        why = tv_arena_sprintf(&r->arena,
                               "index/alias [%s] provided with routing value [%s] that resolved to several routing "
                               "values, rejecting operation",
                               alias, ir);
    else if (routing && strcmp(routing, ir) != 0)
        why = tv_arena_sprintf(&r->arena,
                               "Alias [%s] has index routing associated with it [%s], and was provided with routing "
                               "value [%s], rejecting operation",
                               alias, ir, routing);
    else {
        *out = ir;
        return true;
    }
    tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
    if (!e || !why) {
        r->oom = true;
        return false;
    }
    e->type = TROVE_EARG;
    e->reason = why;
    e->status = 400;
    *err = e;
    return false;
}
