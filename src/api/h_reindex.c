/*
 * h_reindex.c — POST /_reindex within the node.
 *
 * As OpenSearch's modules/reindex: the body (ReindexRequest.fromXContent)
 * names a source (index: a name, a comma list or an array; query, _source
 * and the rest of a search body; size: the scroll batch) and a dest
 * (index, op_type, version_type, routing keep|discard|=value, pipeline),
 * with conflicts and max_docs (or size) at the top. The documents are
 * found by the same held-snapshot search the by-query APIs use
 * (h_byquery.c's tv_bbs_search, with _version when the dest writes
 * external versions) and written by the shared by-scroll worker: one
 * index request per document into dest with the source's id, stored
 * source bytes (filtered when source._source asks) and routing; a version
 * conflict (op_type create on an existing id, an external version not
 * above the dest's) counts in version_conflicts and, with conflicts=abort,
 * ends the request with the failure, as Reindexer does. throttle, slices,
 * max_docs, wait_for_completion=false, rethrottle and cancel are the
 * worker's and the task registry's (h_tasks.c).
 *
 * The dest index is looked up (an alias gives its write index) or created
 * by the first write, with templates, as a bulk's auto-create does (no
 * document, no index). Writing into an index that is also read is
 * refused (ReindexValidator), as are the body's errors in OpenSearch's
 * order and words.
 *
 * A remote source (source.remote) is parsed and checked as
 * buildRemoteInfo does and then refused as a default OpenSearch refuses
 * it: "[host:port] not allowlisted in reindex.remote.allowlist" (trove has
 * no reindex.remote.allowlist setting and makes no outbound connections).
 *
 * The body's script (src/script) runs on each document before it is
 * written (h_byquery.c's tv_bbs_script, as Reindexer's
 * ReindexScriptApplier): ctx._source, ctx.op (noop counts a noop, delete
 * deletes the id from the dest), and ctx._index, _id and _routing, which
 * change the dest request; then the pipelines run. A script that clears
 * _id (an auto-generated id) or sets _version is refused.
 *
 * Not supported, answered 400 unsupported_operation_exception: manual
 * slicing (source.slice). dest.pipeline and the destination's default and final
 * pipelines run as for a bulk's index request (ingest.c): a dropped
 * document counts as a noop.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "api.h"
#include "query/parse.h"

typedef struct rx {
    const char *src_expr; /* the source indices as a comma list */
    const char **src;
    size_t nsrc;
    const char *dest;
    tv_op_type op_type;
    tv_version_type vt;
    int routing; /* 0 keep, 1 discard, 2 set */
    const char *routing_val;
    bool routing_bad;
    bool proceed;
    int64_t max_docs, scroll_size;
    bool source_false, from, stored;
    tv_json *sbody; /* source less index/remote/size */
    tv_index *dest_idx;
    bool require_alias;
    const char *remote; /* "host:port" of source.remote, or NULL */
    const char *pipeline; /* dest.pipeline, or NULL */
    tv_ingest *ing;       /* the pipelines read, once the first runs */
    bool has_script;      /* the body's script */
    tv_api_script script;
    tv_script *sc;        /* ... compiled at the first document (one reference) */
} rx;

/* XContentParseException "[line:col] [ctx] unknown field [k]". */
static bool unknown_field(tv_req *r, const char *ctx, const tv_json_member *m) {
    uint32_t line = 1, col = 1;
    tv_json_linecol(r->body, r->body_len, m->key_off, &line, &col);
    return tv_req_fail(r, TROVE_EXCONTENT, "[%u:%u] [%s] unknown field [%s]", line, col, ctx, m->key);
}

static bool fail_field(tv_req *r, const char *ctx, const tv_json_member *m, const tv_json *v) {
    uint32_t line = 1, col = 1;
    tv_json_linecol(r->body, r->body_len, v->off, &line, &col);
    (void)m;
    return tv_req_fail(r, TROVE_EXCONTENT, "[%u:%u] [%s] failed to parse field [%s]", line, col, ctx, m->key);
}

/* extractStringArray: a string or an array of strings. */
static bool string_array(tv_req *r, const tv_json *v, const char ***out, size_t *n) {
    if (v->type == TV_JSON_STRING) {
        *n = tv_split_commas(&r->arena, v->v.s, out);
        return true;
    }
    if (v->type == TV_JSON_ARRAY) {
        const char **a = tv_arena_calloc(&r->arena, v->len + 1, sizeof *a);
        if (!a) return (r->oom = true), false;
        for (uint32_t i = 0; i < v->len; i++) {
            if (v->v.items[i].type != TV_JSON_STRING)
                return tv_req_fail(r, TROVE_EARG, "Expected [index] to be a list of a string but was [%s]",
                                   tv_dsl_token_name(&v->v.items[i]));
            a[i] = v->v.items[i].v.s;
        }
        *out = a;
        *n = v->len;
        return true;
    }
    return tv_req_fail(r, TROVE_EARG, "Expected [index] to be a list of a string but was [%s]",
                       v->type == TV_JSON_INT ? "number" : tv_dsl_token_name(v));
}

/* ReindexRequest.buildRemoteInfo: username, password, host (required,
 * scheme://host:port[/path]), headers, socket_timeout, connect_timeout;
 * anything else is refused (listed in the HashMap's order). */
static bool parse_remote(tv_req *r, const tv_json *v, rx *x) {
    if (v->type != TV_JSON_OBJECT) return tv_req_fail(r, TROVE_EARG, "Expected [remote] to be a map");
    const char *host = NULL;
    const char **names = tv_arena_calloc(&r->arena, v->len + 1, sizeof *names);
    uint32_t *order = tv_arena_calloc(&r->arena, v->len + 1, sizeof *order);
    bool *left = tv_arena_calloc(&r->arena, v->len + 1, sizeof *left);
    if (!names || !order || !left) return (r->oom = true), false;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        names[i] = m->key;
        if (tv_streq(m->key, m->key_len, "username") || tv_streq(m->key, m->key_len, "password") ||
            tv_streq(m->key, m->key_len, "host")) {
            if (m->val.type != TV_JSON_STRING && m->val.type != TV_JSON_NULL)
                return tv_req_fail(r, TROVE_EARG, "Expected [%s] to be a string but was [%s]", m->key,
                                   tv_dsl_token_name(&m->val));
            if (tv_streq(m->key, m->key_len, "host") && m->val.type == TV_JSON_STRING) host = m->val.v.s;
        } else if (tv_streq(m->key, m->key_len, "headers")) {
            if (m->val.type != TV_JSON_OBJECT && m->val.type != TV_JSON_NULL)
                return tv_req_fail(r, TROVE_EARG, "Expected [headers] to be a map but was [%s]", tv_dsl_token_name(&m->val));
        } else if (!tv_streq(m->key, m->key_len, "socket_timeout") &&
                   !tv_streq(m->key, m->key_len, "connect_timeout")) {
            left[i] = true;
        }
    }
    if (!host) return tv_req_fail(r, TROVE_ENULLPOINTER, "[host] must be specified to reindex from a remote cluster");
    /* new URI(host) with a port */
    const char *sep = strstr(host, "://");
    const char *h = sep ? sep + 3 : NULL;
    const char *colon = h ? strchr(h, ':') : NULL;
    const char *slash = h ? strchr(h, '/') : NULL;
    bool good = sep && sep > host && colon && colon > h && (!slash || slash > colon);
    size_t pl = 0;
    if (good) {
        const char *pe = slash ? slash : colon + strlen(colon);
        pl = (size_t)(pe - colon - 1);
        for (const char *q = colon + 1; q < pe; q++) good &= *q >= '0' && *q <= '9';
        good &= pl > 0 && pl <= 5;
    }
    if (!good)
        return tv_req_fail(r, TROVE_EARG, "[host] must be of the form [scheme]://[host]:[port](/[pathPrefix])? but was [%s]",
                           host);
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        if (!tv_streq(m->key, m->key_len, "socket_timeout") && !tv_streq(m->key, m->key_len, "connect_timeout"))
            continue;
        if (m->val.type == TV_JSON_NULL) continue;
        const char *tv = m->val.type == TV_JSON_STRING ? m->val.v.s : NULL;
        int64_t ns;
        tv_error err;
        tv_error_clear(&err);
        if (!tv || tv_parse_time_value(tv, strlen(tv), m->key, &ns, &err) != TROVE_OK) {
            if (!tv) return tv_req_fail(r, TROVE_EARG, "Expected [%s] to be a string but was [%s]", m->key,
                                        tv_dsl_token_name(&m->val));
            tv_api_err *e = tv_api_err_from(r, &err, NULL);
            if (e) tv_req_error(r, e);
            return false;
        }
    }
    tv_buf b;
    tv_buf_init(&b);
    tv_java_hashmap_order(names, v->len, order);
    int n = 0;
    for (uint32_t i = 0; i < v->len; i++)
        if (left[order[i]]) tv_buf_printf(&b, "%s%s", n++ ? "," : "", names[order[i]]);
    if (n) {
        tv_req_fail(r, TROVE_EARG, "Unsupported fields in [remote]: [%s]", b.data);
        tv_buf_fini(&b);
        return false;
    }
    tv_buf_fini(&b);
    x->remote = tv_arena_sprintf(&r->arena, "%.*s:%.*s", (int)(colon - h), h, (int)pl, colon + 1);
    if (!x->remote) return (r->oom = true), false;
    return true;
}

static bool parse_source(tv_req *r, const tv_json *v, rx *x) {
    if (v->type != TV_JSON_OBJECT)
        return tv_req_fail(r, TROVE_EXCONTENT, "[reindex] source doesn't support values of type: %s", tv_dsl_token_name(v));
    tv_json *sb = tv_arena_alloc(&r->arena, sizeof *sb);
    tv_json_member *ms = tv_arena_calloc(&r->arena, v->len + 1, sizeof *ms);
    if (!sb || !ms) return (r->oom = true), false;
    *sb = *v;
    uint32_t k = 0;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        const tv_json *mv = &m->val;
        if (tv_streq(m->key, m->key_len, "index")) {
            if (!string_array(r, mv, &x->src, &x->nsrc)) return false;
        } else if (tv_streq(m->key, m->key_len, "remote")) {
            if (!parse_remote(r, mv, x)) return false;
        } else if (tv_streq(m->key, m->key_len, "size")) {
            /* SearchSourceBuilder: parser.intValue() (a numeric string too) */
            if (mv->type == TV_JSON_STRING) {
                int64_t n;
                if (!tv_parse_i64(mv->v.s, mv->len, &n) || n < INT32_MIN || n > INT32_MAX)
                    return tv_req_fail(r, TROVE_ENUMBERFORMAT, "For input string: \"%s\"", mv->v.s);
                x->scroll_size = n;
            } else if (mv->type == TV_JSON_INT) {
                x->scroll_size = mv->v.i;
            } else {
                return fail_field(r, "search_source", m, mv);
            }
        } else if (tv_streq(m->key, m->key_len, "query") && tv_json_get(v, "remote")) {
            /* queryForRemote: the remote cluster's query, not this search's */
        } else if (tv_streq(m->key, m->key_len, "slice")) {
            return tv_req_fail(r, TROVE_EUNSUPPORTED, "trove does not support manual slicing ([slice] of _reindex)");
        } else {
            if (tv_streq(m->key, m->key_len, "_source") && mv->type == TV_JSON_FALSE) x->source_false = true;
            x->from |= tv_streq(m->key, m->key_len, "from");
            x->stored |= tv_streq(m->key, m->key_len, "stored_fields");
            ms[k++] = *m;
        }
    }
    sb->len = k;
    sb->v.members = ms;
    x->sbody = sb;
    return tv_bbs_check_source(r, sb);
}

static bool parse_dest(tv_req *r, const tv_json *v, rx *x) {
    if (v->type != TV_JSON_OBJECT)
        return tv_req_fail(r, TROVE_EXCONTENT, "[reindex] dest doesn't support values of type: %s", tv_dsl_token_name(v));
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        const tv_json *mv = &m->val;
        bool str = mv->type == TV_JSON_STRING;
        if (tv_streq(m->key, m->key_len, "index")) {
            if (!str) return fail_field(r, "dest", m, mv);
            x->dest = mv->v.s;
        } else if (tv_streq(m->key, m->key_len, "op_type")) {
            if (!str) return fail_field(r, "dest", m, mv);
            if (strcmp(mv->v.s, "create") == 0)
                x->op_type = TV_OP_CREATE;
            else if (strcmp(mv->v.s, "index") == 0)
                x->op_type = TV_OP_INDEX;
            else
                return tv_req_fail(r, TROVE_EARG, "opType must be 'create' or 'index', found: [%s]", mv->v.s);
        } else if (tv_streq(m->key, m->key_len, "version_type")) {
            if (!str) return fail_field(r, "dest", m, mv);
            if (!tv_api_parse_version_type(mv->v.s, &x->vt))
                return tv_req_fail(r, TROVE_EARG, "No version type match [%s]", mv->v.s);
        } else if (tv_streq(m->key, m->key_len, "routing")) {
            if (!str && mv->type != TV_JSON_NULL) return fail_field(r, "dest", m, mv);
            const char *s = str ? mv->v.s : NULL;
            if (!s || strcmp(s, "keep") == 0)
                x->routing = 0;
            else if (strcmp(s, "discard") == 0)
                x->routing = 1;
            else if (s[0] == '=') {
                x->routing = 2;
                x->routing_val = s + 1;
            } else
                x->routing_bad = true;
        } else if (tv_streq(m->key, m->key_len, "pipeline")) {
            if (!str) return fail_field(r, "dest", m, mv);
            x->pipeline = mv->v.s;
        } else {
            return unknown_field(r, "dest", m);
        }
    }
    return true;
}

static bool set_max(tv_req *r, rx *x, int64_t n) {
    if (x->max_docs != -1 && x->max_docs != n)
        return tv_req_fail(r, TROVE_EARG, "[max_docs] set to two different values [%lld] and [%lld]",
                           (long long)x->max_docs, (long long)n);
    if (n < 0)
        return tv_req_fail(r, TROVE_EARG, "[max_docs] parameter cannot be negative, found [%lld]", (long long)n);
    x->max_docs = n;
    return true;
}

static bool parse_body(tv_req *r, rx *x) {
    if (!r->body_len) return tv_req_fail(r, TROVE_EPARSEEXC, "request body is required");
    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body) return false;
    if (body->type != TV_JSON_OBJECT)
        return tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        if (tv_streq(m->key, m->key_len, "source")) {
            if (!parse_source(r, v, x)) return false;
        } else if (tv_streq(m->key, m->key_len, "dest")) {
            if (!parse_dest(r, v, x)) return false;
        } else if (tv_streq(m->key, m->key_len, "conflicts")) {
            if (v->type != TV_JSON_STRING)
                return tv_req_fail(r, TROVE_EXCONTENT, "[reindex] conflicts doesn't support values of type: %s",
                                   tv_dsl_token_name(v));
            if (strcmp(v->v.s, "proceed") == 0)
                x->proceed = true;
            else if (strcmp(v->v.s, "abort") != 0)
                return tv_req_fail(r, TROVE_EARG, "conflicts may only be \"proceed\" or \"abort\" but was [%s]",
                                   v->v.s);
        } else if (tv_streq(m->key, m->key_len, "max_docs") || tv_streq(m->key, m->key_len, "size")) {
            if (v->type != TV_JSON_INT) return fail_field(r, "reindex", m, v);
            if (!set_max(r, x, v->v.i)) return false;
        } else if (tv_streq(m->key, m->key_len, "script")) {
            tv_api_err *e = NULL;
            if (!tv_api_script_parse(r, v, &x->script, &e)) {
                if (e) tv_req_error(r, e);
                return false;
            }
            x->has_script = true;
        } else {
            return unknown_field(r, "reindex", m);
        }
    }
    return true;
}

typedef struct rx_ctx {
    rx *x;
} rx_ctx;

static int rx_apply(tv_req *r, void *ud, const tv_bbs_doc *d, tv_bbs_outcome *oc, tv_api_err **err) {
    rx *x = ((rx_ctx *)ud)->x;
    if (x->require_alias) {
        *err = tv_api_err_require_alias(r, x->dest);
        return *err ? TV_BBS_FAILED : TV_BBS_OOM;
    }
    tv_write_opts o;
    tv_write_opts_init(&o);
    o.op_type = x->op_type;
    o.version_type = x->vt;
    if (x->vt != TV_VT_INTERNAL) o.version = d->version;
    if (x->routing == 0) {
        o.routing = d->routing;
        o.routing_len = d->routing_len;
    } else if (x->routing == 2) {
        o.routing = x->routing_val;
        o.routing_len = strlen(x->routing_val);
    }
    if (!d->src) { /* Reindexer: a document without _source cannot be copied */
        tv_req_fail(r, TROVE_EARG, "[%s][%s] didn't store _source", d->index, d->id);
        return TV_BBS_FATAL;
    }
    const char *id = d->id, *src = d->src, *dest_name = x->dest;
    size_t id_len = d->id_len, src_len = d->src_len;
    tv_index *dest = x->dest_idx, *other = NULL;
    bool del = false;
    if (x->has_script) { /* the script first, then the pipelines (as the bulk it builds) */
        tv_bbs_act act;
        tv_api_err *se = NULL;
        if (!tv_bbs_script(r, &x->script, &x->sc, d, true, &act, &se)) {
            if (r->oom) return TV_BBS_OOM;
            if (se) tv_req_error(r, se);
            return TV_BBS_FATAL;
        }
        if (act.kind == TV_BBS_ACT_NOOP) {
            *oc = TV_BBS_NOOP;
            return TV_BBS_OK;
        }
        del = act.kind == TV_BBS_ACT_DELETE;
        if (!del) {
            src = act.src;
            src_len = act.len;
        }
        if (act.id) {
            id = act.id;
            id_len = strlen(act.id);
        }
        if (act.routing_set) {
            o.routing = act.routing;
            o.routing_len = act.routing ? strlen(act.routing) : 0;
        }
        if (act.version_cleared) {
            o.version_type = TV_VT_INTERNAL;
            o.version = 0;
        }
        if (act.index) dest_name = act.index;
    }
    if (!del && tv_ingest_has_pipelines(r, x->pipeline, dest_name)) {
        if (!x->ing && !(x->ing = tv_ingest_new(r))) return TV_BBS_OOM;
        char *idz = tv_arena_strndup(&r->arena, id, id_len);
        char *rtz = o.routing ? tv_arena_strndup(&r->arena, o.routing, o.routing_len) : NULL;
        if (!idz || (o.routing && !rtz)) return TV_BBS_OOM;
        tv_ingest_doc in = {.index = dest_name, .id = idz, .routing = rtz, .has_version = true, .version = o.version,
                            .version_type = tv_api_version_type_name(o.version_type), .src = src,
                            .src_len = src_len};
        if (!tv_ingest_write(x->ing, x->pipeline, &in, err)) return r->oom ? TV_BBS_OOM : TV_BBS_FAILED;
        if (in.dropped) {
            *oc = TV_BBS_NOOP;
            return TV_BBS_OK;
        }
        if (in.id) {
            id = in.id;
            id_len = strlen(in.id);
        }
        o.routing = in.routing;
        o.routing_len = in.routing ? strlen(in.routing) : 0;
        src = in.src;
        src_len = in.src_len;
        dest_name = in.index; /* rerouted by the pipeline when it differs */
    }
    if (strcmp(dest_name, x->dest) != 0) { /* rerouted by the script or a pipeline */
        tv_api_err *e = NULL;
        other = tv_node_index_for_write_err(r, dest_name, &e);
        if (!other) {
            if (e) {
                *err = e;
                return TV_BBS_FAILED;
            }
            return r->oom ? TV_BBS_OOM : TV_BBS_FATAL;
        }
        dest = other;
    } else if (!dest) { /* the first write creates it, as a bulk's auto-create */
        tv_api_err *e = NULL;
        x->dest_idx = dest = tv_node_index_for_write_err(r, x->dest, &e);
        if (!dest) {
            if (e) {
                *err = e;
                return TV_BBS_FAILED;
            }
            return r->oom ? TV_BBS_OOM : TV_BBS_FATAL;
        }
    }
    tv_write_result wr;
    tv_error we;
    tv_error_clear(&we);
    tv_status ws = del ? tv_index_delete(dest, id, id_len, &o, &wr, &we)
                       : tv_index_put(dest, id, id_len, src, src_len, &o, &wr, &we);
    if (del && (ws == TROVE_OK || ws == TROVE_ENOTFOUND)) { /* counted by its op type, found or not */
        if (other) tv_index_release(other);
        *oc = TV_BBS_DELETED;
        return TV_BBS_OK;
    }
    if (other) {
        if (ws != TROVE_OK && ws != TROVE_ENOMEM) *err = tv_api_write_error(r, &we, other);
        tv_index_release(other);
        if (ws == TROVE_OK) {
            *oc = wr.result == TV_RESULT_CREATED ? TV_BBS_CREATED : TV_BBS_UPDATED;
            return TV_BBS_OK;
        }
        if (ws == TROVE_ENOMEM || !*err) return TV_BBS_OOM;
        return ws == TROVE_ECONFLICT ? TV_BBS_CONFLICT : TV_BBS_FAILED;
    }
    if (ws == TROVE_OK) {
        *oc = wr.result == TV_RESULT_CREATED ? TV_BBS_CREATED : TV_BBS_UPDATED;
        return TV_BBS_OK;
    }
    if (ws == TROVE_ENOMEM) return TV_BBS_OOM;
    *err = tv_api_write_error(r, &we, x->dest_idx);
    if (!*err) return TV_BBS_OOM;
    return ws == TROVE_ECONFLICT ? TV_BBS_CONFLICT : TV_BBS_FAILED;
}

void tv_h_reindex(tv_req *r) {
    if (tv_task_resume(r)) return;
    uint64_t t0 = tv_mono_ns();
    rx x;
    memset(&x, 0, sizeof x);
    x.max_docs = -1;
    x.scroll_size = 1000;
    if (!parse_body(r, &x)) return;
    /* AbstractBaseReindexRestHandler.setCommonOptions */
    bool refresh = false, wfc;
    if (tv_req_param(r, "refresh") && !tv_req_param_bool(r, "refresh", false, &refresh)) return;
    int64_t ms;
    const char *sc = tv_req_param(r, "scroll");
    if (sc && !tv_api_parse_time_ms(r, "scroll", sc, &ms)) return;
    int64_t slices = 1;
    const char *sl = tv_req_param(r, "slices");
    if (sl && strcmp(sl, "auto") == 0) {
        slices = 0;
    } else if (sl) {
        if (!tv_parse_i64(sl, strlen(sl), &slices) || slices < 1 || slices > INT32_MAX)
            return (void)tv_req_fail(r, TROVE_EARG,
                                     "[slices] must be a positive integer or the string \"auto\", but was [%s]", sl);
    }
    float rps;
    if (!tv_bbs_parse_rps(r, &rps)) return;
    const char *md = tv_req_param(r, "max_docs");
    if (md) {
        int64_t n;
        if (!tv_req_param_i64(r, "max_docs", -1, &n)) return;
        if (!set_max(r, &x, n)) return;
    }
    if (x.max_docs != -1 && slices > 0 && x.max_docs < slices)
        return (void)tv_req_fail(r, TROVE_EARG, "[max_docs] should be >= [slices]");
    if (!tv_req_param_bool(r, "wait_for_completion", true, &wfc)) return;
    if (!tv_req_param_bool(r, "require_alias", false, &x.require_alias)) return;
    tv_bbs_job j;
    memset(&j, 0, sizeof j);
    if (!tv_bbs_parse_wfas(r, &j)) return;
    /* ReindexRequest.validate */
    tv_buf m;
    tv_buf_init(&m);
    int nerr = 0;
    if (x.scroll_size == 0) tv_buf_printf(&m, "%d: [size] cannot be [0] in a scroll context;", ++nerr);
    if (x.from) tv_buf_printf(&m, "%d: from is not supported in this context;", ++nerr);
    if (x.stored) tv_buf_printf(&m, "%d: stored_fields is not supported in this context;", ++nerr);
    if (x.max_docs == 0)
        tv_buf_printf(&m, "%d: maxDocs should be greater than 0 if the request is limited to some number of "
                          "documents or -1 if it isn't but it was [0];", ++nerr);
    if (!x.nsrc) tv_buf_printf(&m, "%d: use _all if you really want to copy from all existing indexes;", ++nerr);
    if (x.source_false) tv_buf_printf(&m, "%d: _source:false is not supported in this context;", ++nerr);
    if (!x.dest) tv_buf_printf(&m, "%d: index must be specified;", ++nerr);
    if (x.routing_bad)
        tv_buf_printf(&m, "%d: routing must be unset, [keep], [discard] or [=<some new value>];", ++nerr);
    if (x.remote && slices != 1)
        tv_buf_printf(&m, "%d: reindex from remote sources doesn't support slices > 1 but was [%lld];", ++nerr,
                      (long long)slices);
    bool ok = nerr == 0;
    if (!ok) tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: %s", m.data);
    if (m.oom) r->oom = true;
    tv_buf_fini(&m);
    if (!ok || r->oom) return;
    if (x.scroll_size < 0)
        return (void)tv_req_fail(r, TROVE_EARG, "[size] parameter cannot be negative, found [%lld]",
                                 (long long)x.scroll_size);
    /* the source indices as one expression */
    tv_buf e;
    tv_buf_init(&e);
    for (size_t i = 0; i < x.nsrc; i++) tv_buf_printf(&e, "%s%s", i ? "," : "", x.src[i]);
    x.src_expr = e.oom ? NULL : tv_arena_strndup(&r->arena, e.data ? e.data : "", e.len);
    tv_buf_fini(&e);
    if (!x.src_expr) return (void)(r->oom = true);

    tv_task *task = tv_task_current();
    bool mine = false;
    if (!task) {
        const char *desc = tv_arena_sprintf(&r->arena, "reindex from %s to [%s]",
                                            tv_bbs_indices_desc(r, x.src_expr), x.dest);
        if (!desc) return (void)(r->oom = true);
        if (!wfc || (r->nowait && !isinf(rps))) {
            tv_task_spawn(r, "indices:data/write/reindex", desc, !wfc);
            return;
        }
        if (!(task = tv_task_begin(r, "indices:data/write/reindex", desc))) return;
        mine = true;
    }
    tv_index_list l;
    memset(&l, 0, sizeof l);
    size_t nt = 0;
    tv_search_target *t = NULL;
    tv_buf out;
    tv_buf_init(&out);
    tv_bbs_doc *dv;
    size_t nd;
    if (x.remote) { /* ReindexValidator.checkRemoteAllowlist: the allowlist is empty */
        tv_req_fail(r, TROVE_EARG, "[%s] not allowlisted in reindex.remote.allowlist", x.remote);
        goto out;
    }
    if (!tv_node_resolve(r, x.src_expr, false, true, &l)) goto out;
    /* ReindexValidator: the dest (an alias: its write index) is not a source */
    const char *dname = tv_node_single_target(r, x.dest, true);
    if (!dname) goto out;
    for (size_t i = 0; i < l.len; i++)
        if (strcmp(tv_index_name(l.items[i]), dname) == 0) {
            tv_req_fail(r, TROVE_EVALIDATION,
                        "Validation Failed: 1: reindex cannot write into an index its reading from [%s];", dname);
            goto out;
        }
    x.dest = dname;
    if (!tv_bbs_search(r, &l, &t, &nt, x.sbody, false, true, x.vt != TV_VT_INTERNAL, &out, &dv, &nd)) goto done;
    x.dest_idx = tv_node_get_index(r->node, x.dest);
    rx_ctx c = {&x};
    j.proceed = x.proceed;
    j.scroll_size = x.scroll_size;
    j.max_docs = x.max_docs;
    j.slices = slices ? slices : tv_bbs_auto_slices(&l);
    j.rps = rps;
    j.refresh = refresh;
    j.apply = rx_apply;
    j.ud = &c;
    j.upd_field = j.cre_field = true;
    j.dest = x.dest_idx;
    j.dest_name = x.dest;
    if (j.wfas < 0) j.wfas = x.dest_idx ? tv_index_shard_total(x.dest_idx) : 1;
    j.refresh = false; /* the dest, which the first write may create */
    tv_bbs_run(r, task, &j, dv, nd, t0, NULL, 0);
    if (refresh && x.dest_idx) tv_index_refresh(x.dest_idx);
done:
    for (size_t i = 0; i < nt; i++) tv_snapshot_release(t[i].snap);
out:
    tv_buf_fini(&out);
    tv_index_list_release(&l);
    if (x.dest_idx) tv_index_release(x.dest_idx);
    tv_ingest_free(x.ing);
    tv_script_release(x.sc);
    if (mine) tv_task_end(r, task);
}
