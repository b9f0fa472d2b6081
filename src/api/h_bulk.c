/*
 * h_bulk.c — POST|PUT /_bulk and /{index}/_bulk.
 *
 * Two passes, as OpenSearch: first the whole body is parsed into a list of
 * operations (BulkRequestParser: lines split at '\n', an action line is
 * one object {"index"|"create"|"update"|"delete": {metadata}}, index and
 * create take the next line as the source without parsing it, update
 * parses its body line at once); any malformed action line, unknown
 * metadata key or update body error fails the whole request with
 * OpenSearch's message and line number; then BulkRequest.validate (index
 * missing, versioning rules, "no requests added") also fails the whole
 * request. Only then are the operations executed one by one, each failure
 * becoming an item error ({"index":{"_index","_id","status","error"}})
 * while later items proceed.
 *
 * Lines are split here rather than with tv_json_parse_line because source
 * lines must stay unparsed bytes (a malformed document is an item error,
 * not a request error) and line numbers must count every line, blank ones
 * included, as OpenSearch's messages do.
 *
 * ?refresh=true refreshes every touched index once after the last item
 * (items report forced_refresh), which is what one shard per index does.
 */
#include <stdio.h>

#include "api.h"

typedef enum op_kind { OP_INDEX, OP_CREATE, OP_UPDATE, OP_DELETE } op_kind;

typedef struct bulk_op {
    op_kind kind;
    const char *index;
    const char *id; /* NULL: auto */
    tv_write_opts opts;
    const char *src;
    size_t src_len;
    tv_update_req upd;
    bool require_alias;
    const char *pipeline; /* the action's, else the URL's; NULL: none */
} bulk_op;

static const char *kind_name(op_kind k) {
    return k == OP_INDEX ? "index" : k == OP_CREATE ? "create" : k == OP_UPDATE ? "update" : "delete";
}

static const char *token_name(const tv_json *v) {
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

static bool only_ws(const char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n') return false;
    return true;
}

static bool fail_iae(tv_req *r, const char *fmt, ...) TV_PRINTF(2, 3);
static bool fail_iae(tv_req *r, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    return tv_req_fail(r, TROVE_EARG, "%s", tmp);
}

static const char *value_text(tv_req *r, const tv_json *v) {
    if (v->type == TV_JSON_STRING) return v->v.s;
    if (tv_json_is_number(v)) return tv_arena_strndup(&r->arena, v->raw, v->raw_len);
    if (v->type == TV_JSON_TRUE) return "true";
    if (v->type == TV_JSON_FALSE) return "false";
    return NULL;
}

static bool value_long(const tv_json *v, int64_t *out) {
    if (v->type == TV_JSON_INT) {
        *out = v->v.i;
        return true;
    }
    if (v->type == TV_JSON_STRING) return tv_parse_i64(v->v.s, v->len, out);
    if (v->type == TV_JSON_DOUBLE) {
        *out = tv_java_d2l(v->v.d);
        return true;
    }
    return false;
}

/* Parses one action line's metadata into op. */
static bool parse_meta(tv_req *r, int line, const tv_json *meta, bulk_op *op, const tv_source_ctx *dsc) {
    for (uint32_t i = 0; i < meta->len; i++) {
        const tv_json_member *m = &meta->v.members[i];
        const tv_json *v = &m->val;
        const char *k = m->key;
        if (v->type == TV_JSON_ARRAY || (v->type == TV_JSON_OBJECT && strcmp(k, "_source") != 0))
            return fail_iae(r, "Malformed action/metadata line [%d], expected a simple value for field [%s] but found [%s]",
                            line, k, token_name(v));
        if (v->type == TV_JSON_NULL) continue;
        if (strcmp(k, "_index") == 0) {
            op->index = value_text(r, v);
        } else if (strcmp(k, "_id") == 0) {
            op->id = value_text(r, v);
        } else if (strcmp(k, "routing") == 0) {
            op->opts.routing = value_text(r, v);
            op->opts.routing_len = op->opts.routing ? strlen(op->opts.routing) : 0;
        } else if (strcmp(k, "op_type") == 0) {
            const char *t = value_text(r, v);
            if (t && strcmp(t, "create") == 0 && op->kind == OP_INDEX) op->kind = OP_CREATE;
        } else if (strcmp(k, "version") == 0) {
            if (!value_long(v, &op->opts.version))
                return fail_iae(r, "Malformed action/metadata line [%d], [version] must be a number", line);
        } else if (strcmp(k, "version_type") == 0) {
            const char *t = value_text(r, v);
            if (!t || !tv_api_parse_version_type(t, &op->opts.version_type))
                return fail_iae(r, "No version type match [%s]", t ? t : "");
        } else if (strcmp(k, "if_seq_no") == 0) {
            if (!value_long(v, &op->opts.if_seq_no))
                return fail_iae(r, "Malformed action/metadata line [%d], [if_seq_no] must be a number", line);
        } else if (strcmp(k, "if_primary_term") == 0) {
            if (!value_long(v, &op->opts.if_primary_term))
                return fail_iae(r, "Malformed action/metadata line [%d], [if_primary_term] must be a number", line);
        } else if (strcmp(k, "retry_on_conflict") == 0) {
            if (!value_long(v, &op->upd.retry_on_conflict))
                return fail_iae(r, "Malformed action/metadata line [%d], [retry_on_conflict] must be a number", line);
        } else if (strcmp(k, "pipeline") == 0) {
            op->pipeline = value_text(r, v);
        } else if (strcmp(k, "require_alias") == 0) {
            /* parser.booleanValue(): true/false, or their strings */
            const char *t = value_text(r, v);
            if (v->type == TV_JSON_TRUE || (t && strcmp(t, "true") == 0))
                op->require_alias = true;
            else if (v->type == TV_JSON_FALSE || (t && strcmp(t, "false") == 0))
                op->require_alias = false;
            else
                return fail_iae(r, "Failed to parse value [%s] as only [true] or [false] are allowed.", t ? t : "");
        } else if (strcmp(k, "_source") == 0) {
            if (!tv_api_source_ctx_json(r, v, &op->upd.sc)) return false;
            op->upd.want_source = op->upd.sc.fetch;
        } else {
            return fail_iae(r, "Action/metadata line [%d] contains an unknown parameter [%s]", line, k);
        }
    }
    (void)dsc;
    return true;
}

static bool touched_add(tv_index ***list, size_t *n, size_t *cap, tv_index *idx) {
    for (size_t i = 0; i < *n; i++)
        if ((*list)[i] == idx) return true;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        tv_index **nl = tv_realloc(*list, nc * sizeof *nl);
        if (!nl) return false;
        *list = nl;
        *cap = nc;
    }
    (*list)[(*n)++] = tv_index_retain(idx);
    return true;
}

/* Pass 1 of _bulk: the NDJSON body into ops (nops of them), each action
 * line with its document line; false with the response set. */
static bool parse_ops(tv_req *r, const char *droute, tv_source_ctx *dsc, bool dsc_given, bool req_alias, bulk_op *ops,
                      size_t *nops_out) {
    const char *data = r->body ? r->body : "";
    size_t len = r->body_len;
    size_t nops = 0;
    size_t from = 0;
    int line = 0;
    for (;;) {
        const char *nl = from < len ? memchr(data + from, '\n', len - from) : NULL;
        if (!nl) {
            if (from != len)
                return fail_iae(r, "The bulk request must be terminated by a newline [\\n]");
            break;
        }
        size_t next = (size_t)(nl - data);
        line++;
        const char *lp = data + from;
        size_t ll = next - from;
        from = next + 1;
        if (only_ws(lp, ll)) continue;
        tv_json *act = NULL;
        tv_json_error je;
        memset(&je, 0, sizeof je);
        tv_status st = tv_json_parse(&r->arena, lp, ll, &act, &je);
        if (st == TROVE_ENOMEM) {
            r->oom = true;
            return false;
        }
        if (st != TROVE_OK) {
            tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
            if (!e) {
                r->oom = true;
                return false;
            }
            e->type = TROVE_EJSON;
            e->reason = tv_arena_sprintf(&r->arena,
                                         "%s\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` "
                                         "disabled); line: %u, column: %u]",
                                         je.msg, je.line, je.col);
            e->status = 400;
            if (!e->reason) {
                r->oom = true;
                return false;
            }
            tv_req_error(r, e);
            return false;
        }
        if (act->type != TV_JSON_OBJECT)
            return fail_iae(r, "Malformed action/metadata line [%d], expected START_OBJECT but found [%s]", line,
                                  token_name(act));
        if (act->len == 0)
            return fail_iae(r, "Malformed action/metadata line [%d], expected FIELD_NAME but found [END_OBJECT]",
                                  line);
        const tv_json_member *am = &act->v.members[0];
        bulk_op *op = &ops[nops];
        memset(op, 0, sizeof *op);
        tv_write_opts_init(&op->opts);
        op->upd.detect_noop = true;
        if (tv_streq(am->key, am->key_len, "index"))
            op->kind = OP_INDEX;
        else if (tv_streq(am->key, am->key_len, "create"))
            op->kind = OP_CREATE;
        else if (tv_streq(am->key, am->key_len, "update"))
            op->kind = OP_UPDATE;
        else if (tv_streq(am->key, am->key_len, "delete"))
            op->kind = OP_DELETE;
        else
            return fail_iae(r,
                                  "Malformed action/metadata line [%d], expected field [create], [delete], [index] or "
                                  "[update] but found [%s]",
                                  line, am->key);
        op->index = r->p_index;
        if (droute && *droute) {
            op->opts.routing = droute;
            op->opts.routing_len = strlen(droute);
        }
        op->require_alias = req_alias;
        op->upd.sc = *dsc;
        op->upd.want_source = dsc_given && dsc->fetch;
        if (am->val.type == TV_JSON_OBJECT) {
            if (!parse_meta(r, line, &am->val, op, dsc)) return false;
        } else if (am->val.type != TV_JSON_NULL) {
            return fail_iae(r,
                                  "Malformed action/metadata line [%d], expected START_OBJECT or END_OBJECT but found "
                                  "[%s]",
                                  line, token_name(&am->val));
        }
        if (act->len > 1)
            return fail_iae(r,
                                  "Malformed action/metadata line [%d], expected END_OBJECT but found [FIELD_NAME]",
                                  line);
        if (op->kind != OP_DELETE) {
            const char *nl2 = from < len ? memchr(data + from, '\n', len - from) : NULL;
            if (!nl2) {
                if (from != len)
                    return fail_iae(r, "The bulk request must be terminated by a newline [\\n]");
                break; /* an action without its source line is dropped */
            }
            size_t next2 = (size_t)(nl2 - data);
            line++;
            const char *sp = data + from;
            size_t sl = next2 - from;
            if (sl && sp[sl - 1] == '\r') sl--;
            from = next2 + 1;
            if (op->kind == OP_UPDATE) {
                if (op->opts.version != TV_VERSION_UNSET || op->opts.version_type != TV_VT_INTERNAL)
                    return fail_iae(r, "Update requests do not support versioning. Please use `if_seq_no` and "
                                             "`if_primary_term` instead");
                tv_json *ub = NULL;
                memset(&je, 0, sizeof je);
                st = tv_json_parse(&r->arena, sp, sl, &ub, &je);
                if (st == TROVE_ENOMEM) {
                    r->oom = true;
                    return false;
                }
                if (st != TROVE_OK) {
                    tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
                    if (!e) {
                        r->oom = true;
                        return false;
                    }
                    e->type = TROVE_EJSON;
                    e->reason = tv_arena_sprintf(
                        &r->arena,
                        "%s\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); "
                        "line: %u, column: %u]",
                        je.msg, je.line, je.col);
                    e->status = 400;
                    if (!e->reason) {
                        r->oom = true;
                        return false;
                    }
                    tv_req_error(r, e);
                    return false;
                }
                tv_update_req saved = op->upd;
                tv_api_err *e = NULL;
                tv_update_req u;
                memset(&u, 0, sizeof u);
                if (!tv_api_parse_update(r, ub, sp, sl, &u, &e)) {
                    /* a missing doc is a validation error of the item,
                     * reported with the whole request below */
                    if (e && e->type == TROVE_EVALIDATION) {
                        op->upd = saved;
                        op->upd.doc = NULL;
                    } else {
                        if (e) tv_req_error(r, e);
                        return false;
                    }
                } else {
                    u.opts = op->opts;
                    u.retry_on_conflict = saved.retry_on_conflict;
                    /* BulkRequestParser: a FetchSourceContext from the URL or
                     * the action line replaces the body's _source */
                    if (saved.sc.explicit_) {
                        u.want_source = saved.want_source;
                        u.sc = saved.sc;
                    } else if (u.want_source && u.sc.nincl == 0 && u.sc.nexcl == 0) {
                        u.sc.fetch = true;
                    }
                    if (u.want_source) u.sc.fetch = true;
                    op->upd = u;
                }
            } else {
                op->src = sp;
                op->src_len = sl;
            }
        }
        nops++;
    }
    *nops_out = nops;
    return true;
}

void tv_h_bulk(tv_req *r) {
    uint64_t t0 = tv_mono_ns();
    tv_refresh refresh;
    if (!tv_api_parse_refresh(tv_req_param(r, "refresh"), &refresh))
        return (void)tv_req_fail(r, TROVE_EARG, "Unknown value for refresh: [%s].",
                                 tv_req_param(r, "refresh"));
    if (tv_req_param(r, "type"))
        return (void)tv_req_fail(r, TROVE_EUNSUPPORTED,
                                 "trove does not support mapping types ([type] in bulk)");
    bool req_alias;
    if (!tv_req_param_bool(r, "require_alias", false, &req_alias)) return;
    const char *droute = tv_req_param(r, "routing");
    tv_source_ctx dsc;
    if (!tv_api_source_ctx(r, tv_req_param(r, "_source"), tv_req_param(r, "_source_includes"),
                           tv_req_param(r, "_source_excludes"), &dsc))
        return;
    bool dsc_given = dsc.explicit_;

    /* pass 1: parse */
    const char *data = r->body ? r->body : "";
    size_t len = r->body_len;
    size_t nlines = 0;
    for (size_t i = 0; i < len; i++)
        if (data[i] == '\n') nlines++;
    bulk_op *ops = tv_arena_calloc(&r->arena, nlines + 1, sizeof *ops);
    if (!ops) {
        r->oom = true;
        return;
    }
    size_t nops = 0;
    if (!parse_ops(r, droute, &dsc, dsc_given, req_alias, ops, &nops)) return;

    /* pass 2: validate (BulkRequest.validate) */
    tv_buf vb;
    tv_buf_init(&vb);
    int nv = 0;
    if (nops == 0) tv_buf_printf(&vb, "%d: no requests added;", ++nv);
    for (size_t i = 0; i < nops; i++) {
        bulk_op *op = &ops[i];
        if (!op->index) tv_buf_printf(&vb, "%d: index is missing;", ++nv);
        if (op->kind == OP_DELETE || op->kind == OP_UPDATE) {
            if (!op->id) tv_buf_printf(&vb, "%d: id is missing;", ++nv);
        }
        if (op->kind == OP_UPDATE && !op->upd.doc && !op->upd.has_script) tv_buf_printf(&vb, "%d: script or doc is missing;", ++nv);
        if (op->kind != OP_UPDATE) {
            tv_write_opts o = op->opts;
            if (op->kind == OP_CREATE) o.op_type = TV_OP_CREATE;
            tv_api_validate_write(&vb, &nv, op->id, &o, op->kind == OP_DELETE);
        }
    }
    if (vb.oom) {
        tv_buf_fini(&vb);
        r->oom = true;
        return;
    }
    if (nv) {
        tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: %s", vb.data);
        tv_buf_fini(&vb);
        return;
    }
    tv_buf_fini(&vb);

    /* pass 3: execute */
    tv_buf items;
    tv_buf_init(&items);
    tv_jw iw;
    tv_jw_init(&iw, &items, r->pretty);
    tv_jw_arr_begin(&iw);
    bool errors = false;
    tv_index **touched = NULL;
    size_t ntouched = 0, ctouched = 0;
    const char *url_pipeline = tv_req_param(r, "pipeline");
    tv_ingest *ing = NULL;
    for (size_t i = 0; i < nops && !r->oom; i++) {
        bulk_op *op = &ops[i];
        char autoid[24];
        const char *id = op->id;
        if (!id && (op->kind == OP_INDEX || op->kind == OP_CREATE)) {
            tv_node_new_id(autoid);
            id = autoid;
        }
        tv_jw_obj_begin(&iw);
        tv_jw_keyz(&iw, kind_name(op->kind));
        tv_jw_obj_begin(&iw);
        tv_api_err *err = NULL;
        tv_index *idx = NULL;
        if ((op->kind == OP_INDEX || op->kind == OP_CREATE) && op->index &&
            !(op->require_alias && !tv_node_is_alias(r->node, op->index))) {
            const char *pl = op->pipeline ? op->pipeline : url_pipeline;
            if (tv_ingest_has_pipelines(r, pl, op->index)) {
                if (!ing) ing = tv_ingest_new(r);
                if (!ing) break;
                tv_ingest_doc d = {.index = op->index, .id = op->id, .routing = op->opts.routing, .has_version = true,
                                   .version = op->opts.version,
                                   .version_type = tv_api_version_type_name(op->opts.version_type),
                                   .src = op->src, .src_len = op->src_len};
                if (!tv_ingest_write(ing, pl, &d, &err)) {
                    if (r->oom) break;
                    id = op->id; /* the request's: an auto id is made after the pipelines */
                } else if (d.dropped) {
                    tv_api_write_dropped(&iw, op->index, op->id);
                    tv_jw_keyz(&iw, "status");
                    tv_jw_int(&iw, 200);
                    tv_jw_obj_end(&iw);
                    tv_jw_obj_end(&iw);
                    continue;
                } else {
                    op->index = d.index;
                    if (d.id) id = d.id;
                    op->opts.routing = d.routing;
                    op->opts.routing_len = d.routing ? strlen(d.routing) : 0;
                    op->src = d.src;
                    op->src_len = d.src_len;
                }
            }
        }
        if (err) {
            /* the pipeline failed this item */
        } else if (op->kind == OP_DELETE) {
            idx = tv_node_get_index(r->node, op->index);
            if (!idx) err = tv_api_err_no_index(r, op->index);
        } else if (op->require_alias && !tv_node_is_alias(r->node, op->index)) {
            /* BulkOperation: a require_alias write to a name that is not an
             * alias fails before any index is resolved or auto-created */
            err = tv_api_err_require_alias(r, op->index);
        } else {
            const char *bad = tv_node_get_index_peek(r->node, op->index) ? NULL
                                                                         : tv_index_name_invalid(op->index, &r->arena);
            if (bad) {
                tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
                if (!e) {
                    r->oom = true;
                } else {
                    e->type = TROVE_EINDEXNAME;
                    e->reason = tv_arena_sprintf(&r->arena, "Invalid index name [%s], %s", op->index, bad);
                    e->status = 400;
                    tv_api_err_meta(e, "index", op->index);
                    tv_api_err_meta(e, "index_uuid", "_na_");
                    err = e;
                }
            } else {
                /* an alias without a write index, or a closed index, fails this
                 * item only (as OpenSearch reports it per item) */
                idx = tv_node_index_for_write_err(r, op->index, &err);
            }
        }
        if (r->oom || (!idx && !err)) {
            r->oom = true;
            tv_index_release(idx);
            break;
        }
        if (idx && !touched_add(&touched, &ntouched, &ctouched, idx)) r->oom = true;
        if (idx && !err && !r->oom && strcmp(op->index, tv_index_name(idx)) != 0 &&
            tv_node_is_alias(r->node, op->index)) {
            /* through an alias: its index_routing becomes the item's routing */
            const char *rt = NULL;
            if (tv_node_alias_routing(r, op->index, tv_index_name(idx), op->opts.routing, &rt, &err)) {
                op->opts.routing = rt;
                op->opts.routing_len = rt ? strlen(rt) : 0;
            }
        }
        if (idx && !err) {
            tv_write_result res;
            memset(&res, 0, sizeof res);
            tv_error terr;
            tv_error_clear(&terr);
            tv_write_opts o = op->opts;
            o.refresh = TV_REFRESH_FALSE;
            int status = 0;
            if (r->oom) {
                /* reported below */
            } else if ((op->kind == OP_INDEX || op->kind == OP_CREATE) && !*id) {
                /* IndexRequest.process: an explicit empty _id fails the item */
                tv_api_err *x = tv_arena_calloc(&r->arena, 1, sizeof *x);
                if (!x) {
                    r->oom = true;
                } else {
                    x->type = TROVE_EARG;
                    x->reason = "if _id is specified it must not be empty";
                    x->status = 400;
                    err = x;
                }
            } else if ((op->kind == OP_INDEX || op->kind == OP_CREATE) && !o.routing &&
                       tv_routing_required(idx)) {
                err = tv_api_err_routing_missing(r, tv_index_name(idx), id);
            } else if (op->kind == OP_INDEX || op->kind == OP_CREATE) {
                o.op_type = op->kind == OP_CREATE ? TV_OP_CREATE : TV_OP_INDEX;
                tv_status st = tv_index_put(idx, id, strlen(id), op->src, op->src_len, &o, &res, &terr);
                if (st == TROVE_ENOMEM)
                    r->oom = true;
                else if (st != TROVE_OK)
                    err = tv_api_write_error(r, &terr, idx);
                else {
                    res.forced_refresh = refresh == TV_REFRESH_TRUE;
                    tv_api_write_result(&iw, tv_index_name(idx), id, strlen(id), &res, tv_index_shard_total(idx));
                    status = tv_api_write_status(&res);
                }
            } else if (op->kind == OP_DELETE && !o.routing && tv_routing_required(idx)) {
                err = tv_api_err_routing_missing(r, tv_index_name(idx), id);
            } else if (op->kind == OP_DELETE && tv_api_doc_elsewhere(r, idx, id, strlen(id), o.routing, o.routing_len)) {
                /* on another shard than this routing reaches: not found there */
                tv_api_write_not_found(&iw, tv_index_name(idx), id, strlen(id), tv_index_shard_total(idx));
                status = 404;
            } else if (op->kind == OP_DELETE) {
                tv_status st = tv_index_delete(idx, id, strlen(id), &o, &res, &terr);
                if (st == TROVE_ENOMEM)
                    r->oom = true;
                else if (st != TROVE_OK)
                    err = tv_api_err_from(r, &terr, idx);
                else {
                    res.forced_refresh = refresh == TV_REFRESH_TRUE;
                    tv_api_write_result(&iw, tv_index_name(idx), id, strlen(id), &res, tv_index_shard_total(idx));
                    status = tv_api_write_status(&res);
                }
            } else {
                tv_update_req u = op->upd;
                u.opts = o;
                status = tv_api_update(r, idx, id, &u, &iw, &err);
            }
            if (status) {
                tv_jw_keyz(&iw, "status");
                tv_jw_int(&iw, status);
            }
        }
        if (r->oom) {
            tv_index_release(idx);
            break;
        }
        if (err) {
            if (idx && id) tv_api_err_fix_shard(r, err, idx, id, op->opts.routing, op->opts.routing_len);
            errors = true;
            tv_jw_keyz(&iw, "_index");
            tv_jw_strz(&iw, idx ? tv_index_name(idx) : op->index);
            tv_jw_keyz(&iw, "_id");
            if (id)
                tv_jw_strz(&iw, id);
            else
                tv_jw_null(&iw);
            tv_jw_keyz(&iw, "status");
            tv_jw_int(&iw, err->status);
            tv_jw_keyz(&iw, "error");
            tv_jw_obj_begin(&iw);
            tv_api_err_write_inner(&iw, err, false);
            tv_jw_obj_end(&iw);
        }
        tv_index_release(idx);
        tv_jw_obj_end(&iw);
        tv_jw_obj_end(&iw);
    }
    tv_jw_arr_end(&iw);
    tv_ingest_free(ing);
    if (!r->oom && refresh == TV_REFRESH_TRUE)
        for (size_t i = 0; i < ntouched; i++)
            if (tv_index_refresh(touched[i]) == TROVE_ENOMEM) r->oom = true;
    for (size_t i = 0; i < ntouched; i++) tv_index_release(touched[i]);
    tv_free(touched);
    if (items.oom) r->oom = true;
    if (!r->oom) {
        uint64_t took = (tv_mono_ns() - t0) / 1000000u;
        tv_jw *w = tv_req_json(r, 200);
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "took");
        tv_jw_int(w, (int64_t)took);
        tv_jw_keyz(w, "errors");
        tv_jw_bool(w, errors);
        tv_jw_keyz(w, "items");
        tv_jw_raw(w, items.data, items.len);
        tv_jw_obj_end(w);
    }
    tv_buf_fini(&items);
}
