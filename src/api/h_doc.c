/*
 * h_doc.c — single-document APIs and _mget: index (PUT|POST _doc, POST
 * _doc with an auto id, _create), get (GET|HEAD _doc, _source), delete,
 * _update, and _mget.
 *
 * Writes go through tv_index_put/tv_index_delete, which own versions,
 * sequence numbers and conflicts; this file turns URL parameters into
 * tv_write_opts with OpenSearch's validation (IndexRequest.validate's
 * messages, collected into one action_request_validation_exception), and
 * writes DocWriteResponse / GetResult bodies field by field.
 *
 * _update is read-merge-write with compare-and-set on the sequence number
 * of the version read: a concurrent write makes the CAS fail and the
 * update retries up to retry_on_conflict times, as OpenSearch's
 * TransportUpdateAction does. Scripts (inline or stored, and scripted
 * upserts) run as UpdateHelper runs them: see script_update.
 *
 * The write-option parsing, response writers and the update routine are
 * shared with h_bulk.c (declared in api.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"
#include "query/parse.h"

/* ------------------------------------------------------------- options */

bool tv_api_parse_refresh(const char *v, tv_refresh *out) {
    if (!v || strcmp(v, "false") == 0)
        *out = TV_REFRESH_FALSE;
    else if (!*v || strcmp(v, "true") == 0)
        *out = TV_REFRESH_TRUE;
    else if (strcmp(v, "wait_for") == 0)
        *out = TV_REFRESH_WAIT_FOR;
    else
        return false;
    return true;
}

bool tv_api_parse_version_type(const char *v, tv_version_type *out) {
    if (!v || strcmp(v, "internal") == 0)
        *out = TV_VT_INTERNAL;
    else if (strcmp(v, "external") == 0)
        *out = TV_VT_EXTERNAL;
    else if (strcmp(v, "external_gte") == 0)
        *out = TV_VT_EXTERNAL_GTE;
    else
        return false;
    return true;
}

static const char *vt_upper(tv_version_type t) {
    return t == TV_VT_EXTERNAL ? "EXTERNAL" : t == TV_VT_EXTERNAL_GTE ? "EXTERNAL_GTE" : "INTERNAL";
}

/* IndexRequest/DeleteRequest.validate: appends "N: msg;" items to v. */
void tv_api_validate_write(tv_buf *v, int *n, const char *id, const tv_write_opts *o, bool is_delete) {
    if (o->op_type == TV_OP_CREATE && !is_delete) {
        if (o->version_type != TV_VT_INTERNAL)
            tv_buf_printf(v, "%d: create operations only support internal versioning. use index instead;", ++*n);
        if (o->version != TV_VERSION_UNSET)
            tv_buf_printf(v, "%d: create operations do not support explicit versions. use index instead;", ++*n);
        if (o->if_seq_no != TV_SEQ_NO_UNSET)
            tv_buf_printf(v, "%d: create operations do not support compare and set. use index instead;", ++*n);
    }
    if (o->version_type != TV_VT_INTERNAL && (o->version == TV_VERSION_UNSET || o->version < 0))
        tv_buf_printf(v, "%d: illegal version value [%lld] for version type [%s];", ++*n, (long long)o->version,
                      vt_upper(o->version_type));
    if (o->version_type == TV_VT_INTERNAL && o->version != TV_VERSION_UNSET && o->version <= 0 &&
        !(o->op_type == TV_OP_CREATE && !is_delete))
        tv_buf_printf(v, "%d: illegal version value [%lld] for version type [INTERNAL];", ++*n,
                      (long long)o->version);
    if (o->if_seq_no != TV_SEQ_NO_UNSET && (o->version_type != TV_VT_INTERNAL || o->version != TV_VERSION_UNSET))
        tv_buf_printf(v, "%d: compare and write operations can not use versioning;", ++*n);
    if (o->if_primary_term == 0 && o->if_seq_no != TV_SEQ_NO_UNSET)
        tv_buf_printf(v, "%d: ifSeqNo is set, but primary term is [0];", ++*n);
    if (o->if_primary_term != 0 && o->if_seq_no == TV_SEQ_NO_UNSET)
        tv_buf_printf(v, "%d: ifSeqNo is unassigned, but primary term is [%lld];", ++*n,
                      (long long)o->if_primary_term);
    if (id && strlen(id) > 512)
        tv_buf_printf(v, "%d: id [%s] is too long, must be no longer than 512 bytes but was: %zu;", ++*n, id,
                      strlen(id));
}

/* URL parameters -> write options. Answers the error and returns false on
 * a bad value. */
static bool parse_write_params(tv_req *r, tv_write_opts *o, bool allow_version, bool *require_alias) {
    tv_write_opts_init(o);
    const char *v;
    if (!tv_api_parse_refresh(tv_req_param(r, "refresh"), &o->refresh))
        return tv_req_fail(r, TROVE_EARG, "Unknown value for refresh: [%s].",
                           tv_req_param(r, "refresh"));
    if ((v = tv_req_param(r, "routing")) && *v) {
        o->routing = v;
        o->routing_len = strlen(v);
    }
    bool req_alias;
    if (!tv_req_param_bool(r, "require_alias", false, &req_alias)) return false;
    if (require_alias) *require_alias = req_alias;
    if (allow_version) {
        if ((v = tv_req_param(r, "version"))) {
            if (!tv_parse_i64(v, strlen(v), &o->version))
                return tv_req_fail_number(r, "long", "version", v);
        }
        if (!tv_api_parse_version_type(tv_req_param(r, "version_type"), &o->version_type))
            return tv_req_fail(r, TROVE_EARG, "No version type match [%s]",
                               tv_req_param(r, "version_type"));
    }
    if ((v = tv_req_param(r, "if_seq_no"))) {
        if (!tv_parse_i64(v, strlen(v), &o->if_seq_no))
            return tv_req_fail_number(r, "long", "if_seq_no", v);
    }
    if ((v = tv_req_param(r, "if_primary_term"))) {
        if (!tv_parse_i64(v, strlen(v), &o->if_primary_term))
            return tv_req_fail_number(r, "long", "if_primary_term", v);
    }
    return true;
}

static bool answer_validation(tv_req *r, const char *id, const tv_write_opts *o, bool is_delete) {
    tv_buf v;
    tv_buf_init(&v);
    int n = 0;
    tv_api_validate_write(&v, &n, id, o, is_delete);
    if (v.oom) {
        tv_buf_fini(&v);
        r->oom = true;
        return false;
    }
    if (n) {
        tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: %s", v.data);
        tv_buf_fini(&v);
        return false;
    }
    tv_buf_fini(&v);
    return true;
}

/* ------------------------------------------------------------ responses */

int tv_api_write_status(const tv_write_result *res) {
    if (res->result == TV_RESULT_CREATED) return 201;
    if (res->result == TV_RESULT_NOT_FOUND) return 404;
    return 200;
}

void tv_api_write_result(tv_jw *w, const char *index, const char *id, size_t id_len, const tv_write_result *res,
                         int64_t shard_total) {
    tv_jw_keyz(w, "_index");
    tv_jw_strz(w, index);
    tv_jw_keyz(w, "_id");
    tv_jw_str(w, id, id_len);
    tv_jw_keyz(w, "_version");
    tv_jw_int(w, res->version);
    tv_jw_keyz(w, "result");
    tv_jw_strz(w, tv_write_result_name(res->result));
    if (res->forced_refresh) {
        tv_jw_keyz(w, "forced_refresh");
        tv_jw_bool(w, true);
    }
    tv_jw_keyz(w, "_shards");
    if (res->result == TV_RESULT_NOOP)
        tv_write_shards(w, 0, 0);
    else
        tv_write_shards(w, shard_total, 1);
    if (res->seq_no >= 0) {
        tv_jw_keyz(w, "_seq_no");
        tv_jw_int(w, res->seq_no);
        tv_jw_keyz(w, "_primary_term");
        tv_jw_int(w, res->primary_term);
    }
}

const char *tv_api_version_type_name(tv_version_type t) {
    return t == TV_VT_EXTERNAL ? "external" : t == TV_VT_EXTERNAL_GTE ? "external_gte" : "internal";
}

/* A document a drop processor ended: the UpdateResponse TransportBulkAction
 * answers for it (version Versions.MATCH_ANY, result noop, no shards). */
void tv_api_write_dropped(tv_jw *w, const char *index, const char *id) {
    tv_jw_keyz(w, "_index");
    tv_jw_strz(w, index);
    tv_jw_keyz(w, "_id");
    if (id)
        tv_jw_strz(w, id);
    else
        tv_jw_null(w);
    tv_jw_keyz(w, "_version");
    tv_jw_int(w, -3);
    tv_jw_keyz(w, "result");
    tv_jw_strz(w, "noop");
    tv_jw_keyz(w, "_shards");
    tv_write_shards(w, 0, 0);
}

/* Answers a write failure from the index layer. A bare JSON error from the
 * document parser is reported as OpenSearch's DocumentParser does. */
tv_api_err *tv_api_write_error(tv_req *r, const tv_error *err, tv_index *idx) {
    if (err->code == TROVE_EJSON) {
        tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
        tv_api_err *c = tv_arena_calloc(&r->arena, 1, sizeof *c);
        if (!e || !c) {
            r->oom = true;
            return NULL;
        }
        e->type = TROVE_EMAPPER;
        e->reason = "failed to parse";
        e->status = 400;
        c->type = TROVE_EJSON;
        if (err->line > 0)
            c->reason = tv_arena_sprintf(&r->arena,
                                         "%s\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` "
                                         "disabled); line: %u, column: %u]",
                                         err->reason, err->line, err->col);
        else
            c->reason = tv_arena_strndup(&r->arena, err->reason, strlen(err->reason));
        c->status = 400;
        e->cause = c;
        if (!c->reason) r->oom = true;
        return e;
    }
    return tv_api_err_from(r, err, idx);
}

/* ---------------------------------------------------------------- index */

/* TransportBulkAction / TransportUpdateAction: with require_alias the
 * target must be an alias (even when an index of that name exists);
 * otherwise 404 and nothing is auto-created. */
static bool require_alias_ok(tv_req *r) {
    const char *name = r->p_index_given ? r->p_index_given : r->p_index;
    if (tv_node_is_alias(r->node, name)) return true;
    tv_api_err *e = tv_api_err_require_alias(r, name);
    if (e) tv_req_error(r, e);
    return false;
}

static void do_index(tv_req *r, tv_op_type op) {
    tv_write_opts o;
    bool req_alias = false;
    if (!parse_write_params(r, &o, true, &req_alias)) return;
    const char *ot = tv_req_param(r, "op_type");
    if (ot) {
        if (strcmp(ot, "create") == 0)
            o.op_type = TV_OP_CREATE;
        else if (strcmp(ot, "index") == 0)
            o.op_type = TV_OP_INDEX;
        else
            return (void)tv_req_fail(r, TROVE_EARG,
                                     "opType must be 'create' or 'index', found: [%s]", ot);
    }
    if (op == TV_OP_CREATE) o.op_type = TV_OP_CREATE;
    char autoid[24];
    const char *id = r->p_id;
    if (!id) {
        tv_node_new_id(autoid);
        id = autoid;
        if (!ot) o.op_type = TV_OP_CREATE;
    }
    if (!r->body_len) {
        tv_req_fail(r, TROVE_EPARSEEXC, "request body is required");
        return;
    }
    if (!answer_validation(r, r->p_id, &o, false)) return;
    if (req_alias && !require_alias_ok(r)) return;
    const char *target = r->p_index, *body = r->body;
    size_t body_len = r->body_len;
    const char *pipeline = tv_req_param(r, "pipeline");
    /* the pipelines see the index as the request named it (an alias stays
     * an alias in ctx._index) */
    const char *named = r->p_index_given ? r->p_index_given : r->p_index;
    if (tv_ingest_has_pipelines(r, pipeline, named)) {
        /* TransportBulkAction: the pipelines run first, then the document
         * goes where they left it */
        tv_ingest *g = tv_ingest_new(r);
        if (!g) return;
        tv_ingest_doc d = {.index = named, .id = r->p_id, .routing = o.routing, .has_version = true,
                           .version = o.version, .version_type = tv_api_version_type_name(o.version_type),
                           .src = r->body, .src_len = r->body_len};
        tv_api_err *ie = NULL;
        bool ok = tv_ingest_write(g, pipeline, &d, &ie);
        tv_ingest_free(g);
        if (!ok) {
            if (ie) tv_req_error(r, ie);
            return;
        }
        if (d.dropped) {
            tv_jw *w = tv_req_json(r, 200);
            tv_jw_obj_begin(w);
            tv_api_write_dropped(w, named, r->p_id);
            tv_jw_obj_end(w);
            return;
        }
        if (d.id) id = d.id;
        o.routing = d.routing;
        o.routing_len = d.routing ? strlen(d.routing) : 0;
        body = d.src;
        body_len = d.src_len;
        if (strcmp(d.index, named) != 0) { /* rerouted by a pipeline */
            target = tv_node_single_target(r, d.index, true);
            if (!target) return;
        }
    }
    tv_index *idx = tv_node_index_for_write(r, target);
    if (!idx) return;
    if (!o.routing && tv_routing_required(idx)) {
        tv_api_err *e = tv_api_err_routing_missing(r, tv_index_name(idx), id);
        if (e) tv_req_error(r, e);
        tv_index_release(idx);
        return;
    }
    tv_write_result res;
    memset(&res, 0, sizeof res);
    tv_error err;
    tv_error_clear(&err);
    tv_status st = tv_index_put(idx, id, strlen(id), body, body_len, &o, &res, &err);
    if (st == TROVE_ENOMEM) {
        r->oom = true;
    } else if (st != TROVE_OK) {
        tv_api_err *e = tv_api_write_error(r, &err, idx);
        tv_api_err_fix_shard(r, e, idx, id, o.routing, o.routing_len);
        if (e) tv_req_error(r, e);
    } else {
        tv_jw *w = tv_req_json(r, tv_api_write_status(&res));
        tv_jw_obj_begin(w);
        tv_api_write_result(w, tv_index_name(idx), id, strlen(id), &res, tv_index_shard_total(idx));
        tv_jw_obj_end(w);
    }
    tv_index_release(idx);
}

void tv_h_doc_index(tv_req *r) { do_index(r, TV_OP_INDEX); }
void tv_h_doc_create(tv_req *r) { do_index(r, TV_OP_CREATE); }

/* --------------------------------------------------------------- delete */

void tv_h_doc_delete(tv_req *r) {
    tv_write_opts o;
    if (!parse_write_params(r, &o, true, NULL)) return;
    if (!answer_validation(r, r->p_id, &o, true)) return;
    tv_index *idx = tv_node_get_index(r->node, r->p_index);
    if (!idx) {
        tv_api_err *e = tv_api_err_no_index(r, r->p_index);
        if (e) tv_req_error(r, e);
        return;
    }
    if (!o.routing && tv_routing_required(idx)) {
        tv_api_err *e = tv_api_err_routing_missing(r, tv_index_name(idx), r->p_id);
        if (e) tv_req_error(r, e);
        tv_index_release(idx);
        return;
    }
    if (tv_api_doc_elsewhere(r, idx, r->p_id, strlen(r->p_id), o.routing, o.routing_len) || r->oom) {
        if (!r->oom) {
            tv_jw *w = tv_req_json(r, 404);
            tv_jw_obj_begin(w);
            tv_api_write_not_found(w, tv_index_name(idx), r->p_id, strlen(r->p_id), tv_index_shard_total(idx));
            tv_jw_obj_end(w);
        }
        tv_index_release(idx);
        return;
    }
    tv_write_result res;
    memset(&res, 0, sizeof res);
    tv_error err;
    tv_error_clear(&err);
    tv_status st = tv_index_delete(idx, r->p_id, strlen(r->p_id), &o, &res, &err);
    if (st == TROVE_ENOMEM) {
        r->oom = true;
    } else if (st != TROVE_OK) {
        tv_api_err *e = tv_api_err_from(r, &err, idx);
        tv_api_err_fix_shard(r, e, idx, r->p_id, o.routing, o.routing_len);
        if (e) tv_req_error(r, e);
    } else {
        tv_jw *w = tv_req_json(r, tv_api_write_status(&res));
        tv_jw_obj_begin(w);
        tv_api_write_result(w, tv_index_name(idx), r->p_id, strlen(r->p_id), &res, tv_index_shard_total(idx));
        tv_jw_obj_end(w);
    }
    tv_index_release(idx);
}

/* ------------------------------------------------------------------ get */

bool tv_api_source_ctx(tv_req *r, const char *source, const char *incl, const char *excl, tv_source_ctx *sc) {
    memset(sc, 0, sizeof *sc);
    sc->fetch = true;
    if (source) {
        if (strcmp(source, "true") == 0) {
            sc->fetch = true;
            sc->explicit_ = true;
        } else if (strcmp(source, "false") == 0) {
            sc->fetch = false;
            sc->explicit_ = true;
        } else {
            sc->nincl = tv_split_commas(&r->arena, source, &sc->incl);
            sc->explicit_ = true;
            if (!sc->incl) {
                r->oom = true;
                return false;
            }
        }
    }
    if (incl) {
        sc->nincl = tv_split_commas(&r->arena, incl, &sc->incl);
        sc->explicit_ = true;
        if (!sc->incl) {
            r->oom = true;
            return false;
        }
    }
    if (excl) {
        sc->nexcl = tv_split_commas(&r->arena, excl, &sc->excl);
        sc->explicit_ = true;
        if (!sc->excl) {
            r->oom = true;
            return false;
        }
    }
    return true;
}

/* A list of strings from a string (one entry, not split) or an array of
 * strings, appended to *out. */
static bool source_list(tv_req *r, const tv_json *v, const char ***out, size_t *n) {
    size_t cap = v->type == TV_JSON_ARRAY ? v->len : 1;
    const char **l = tv_arena_calloc(&r->arena, *n + cap + 1, sizeof *l);
    if (!l) {
        r->oom = true;
        return false;
    }
    if (*n) memcpy(l, *out, *n * sizeof *l);
    if (v->type == TV_JSON_STRING) {
        l[(*n)++] = v->v.s;
    } else if (v->type == TV_JSON_ARRAY) {
        for (uint32_t k = 0; k < v->len; k++)
            if (v->v.items[k].type == TV_JSON_STRING) l[(*n)++] = v->v.items[k].v.s;
    }
    *out = l;
    return true;
}

bool tv_api_source_ctx_json(tv_req *r, const tv_json *v, tv_source_ctx *sc) {
    memset(sc, 0, sizeof *sc);
    sc->fetch = v->type != TV_JSON_FALSE;
    sc->explicit_ = true;
    if (v->type == TV_JSON_STRING || v->type == TV_JSON_ARRAY) return source_list(r, v, &sc->incl, &sc->nincl);
    if (v->type == TV_JSON_OBJECT) {
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json_member *m = &v->v.members[i];
            if (tv_streq(m->key, m->key_len, "includes") || tv_streq(m->key, m->key_len, "include")) {
                if (!source_list(r, &m->val, &sc->incl, &sc->nincl)) return false;
            } else if (tv_streq(m->key, m->key_len, "excludes") || tv_streq(m->key, m->key_len, "exclude")) {
                if (!source_list(r, &m->val, &sc->excl, &sc->nexcl)) return false;
            }
        }
    }
    return true;
}

/* Writes "_source": source filtered as asked (raw bytes when no filter). */
bool tv_api_write_source(tv_req *r, tv_jw *w, const char *src, size_t len, const tv_source_ctx *sc, bool key) {
    if (!src || !sc->fetch) return true;
    if (key) tv_jw_keyz(w, "_source");
    if (sc->nincl == 0 && sc->nexcl == 0) {
        tv_jw_raw(w, src, len);
        return true;
    }
    tv_json *doc = NULL;
    if (tv_json_parse(&r->arena, src, len, &doc, NULL) != TROVE_OK) {
        tv_jw_raw(w, src, len);
        return true;
    }
    tv_json *f = tv_json_filter(&r->arena, doc, sc->incl, sc->nincl, sc->excl, sc->nexcl, true);
    if (!f) {
        r->oom = true;
        return false;
    }
    tv_jw_value(w, f);
    return true;
}

/* Values of a path in a parsed source, for stored_fields (the stored
 * value equals the source value for the types trove stores). */
static void collect_path(const tv_json *v, const char *path, tv_jw *w, size_t *n) {
    if (v->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++) collect_path(&v->v.items[i], path, w, n);
        return;
    }
    if (!*path) {
        if (v->type != TV_JSON_OBJECT && v->type != TV_JSON_NULL) {
            tv_jw_value(w, v);
            (*n)++;
        }
        return;
    }
    if (v->type != TV_JSON_OBJECT) return;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        size_t kl = m->key_len;
        if (strncmp(path, m->key, kl) == 0 && (path[kl] == '\0' || path[kl] == '.'))
            collect_path(&m->val, path[kl] ? path + kl + 1 : "", w, n);
    }
}

/* Writes the GetResult body parts after _index/_id for a found doc. */
bool tv_api_write_get_found(tv_req *r, tv_jw *w, tv_index *idx, const tv_doc_meta *meta, const char *src,
                            size_t srclen, const tv_source_ctx *sc, const char *const *stored, size_t nstored,
                            bool with_version) {
    if (with_version) {
        tv_jw_keyz(w, "_version");
        tv_jw_int(w, meta->version);
    }
    tv_jw_keyz(w, "_seq_no");
    tv_jw_int(w, meta->seq_no);
    tv_jw_keyz(w, "_primary_term");
    tv_jw_int(w, meta->primary_term);
    if (meta->routing) {
        tv_jw_keyz(w, "_routing");
        tv_jw_str(w, meta->routing, meta->routing_len);
    }
    tv_jw_keyz(w, "found");
    tv_jw_bool(w, true);
    if (!tv_api_write_source(r, w, src, srclen, sc, true)) return false;
    if (nstored && src) {
        const tv_mapping *m = tv_index_mapping(idx);
        tv_json *doc = NULL;
        if (m && tv_json_parse(&r->arena, src, srclen, &doc, NULL) == TROVE_OK) {
            bool any = false;
            for (size_t i = 0; i < nstored; i++) {
                const tv_field *f = tv_mapping_field(m, stored[i], strlen(stored[i]));
                if (!f || !f->store) continue;
                tv_buf tmp;
                tv_buf_init(&tmp);
                tv_jw tw;
                tv_jw_init(&tw, &tmp, false);
                size_t n = 0;
                tv_jw_arr_begin(&tw);
                collect_path(doc, stored[i], &tw, &n);
                tv_jw_arr_end(&tw);
                if (n) {
                    if (!any) {
                        tv_jw_keyz(w, "fields");
                        tv_jw_obj_begin(w);
                        any = true;
                    }
                    tv_jw_keyz(w, stored[i]);
                    tv_jw_raw(w, tmp.data, tmp.len);
                }
                if (tmp.oom) w->out->oom = true;
                tv_buf_fini(&tmp);
            }
            if (any) tv_jw_obj_end(w);
        }
        tv_mapping_release(m);
    }
    return true;
}

/* The request's ?routing (an empty value counts as none, as OpenSearch's
 * Strings.hasLength treatment of the parameter). */
static bool routing_given(tv_req *r) {
    const char *v = tv_req_param(r, "routing");
    return v && *v;
}

/* Whether the request's routing reaches the shard the found document
 * lives on (routing.c); a document on another shard is not found. */
static bool shard_matches(tv_req *r, tv_index *idx, const char *id, const tv_doc_meta *meta) {
    const char *rv = tv_req_param(r, "routing");
    if (rv && !*rv) rv = NULL;
    return tv_same_shard(idx, id, strlen(id), rv, rv ? strlen(rv) : 0, meta->routing,
                             meta->routing ? meta->routing_len : 0);
}

/* Shared by GET _doc and GET _source. */
static bool get_common(tv_req *r, tv_index **idx_out, bool *found, tv_doc_meta *meta, const char **src,
                       size_t *srclen) {
    bool realtime, refresh;
    if (!tv_req_param_bool(r, "realtime", true, &realtime)) return false;
    if (!tv_req_param_bool(r, "refresh", false, &refresh)) return false;
    int64_t version = TV_VERSION_UNSET;
    const char *v = tv_req_param(r, "version");
    if (v && !tv_parse_i64(v, strlen(v), &version))
        return tv_req_fail_number(r, "long", "version", v);
    tv_version_type vt;
    if (!tv_api_parse_version_type(tv_req_param(r, "version_type"), &vt))
        return tv_req_fail(r, TROVE_EARG, "No version type match [%s]",
                           tv_req_param(r, "version_type"));
    tv_index *idx = tv_node_get_index(r->node, r->p_index);
    if (!idx) {
        if (r->method == TV_HEAD) {
            tv_req_empty(r, 404);
            return false;
        }
        tv_api_err *e = tv_api_err_no_index(r, r->p_index);
        if (e) tv_req_error(r, e);
        return false;
    }
    if (refresh && tv_index_refresh(idx) == TROVE_ENOMEM) {
        tv_index_release(idx);
        r->oom = true;
        return false;
    }
    if (!routing_given(r) && tv_routing_required(idx)) {
        tv_api_err *e = tv_api_err_routing_missing(r, tv_index_name(idx), r->p_id);
        if (e) tv_req_error(r, e);
        tv_index_release(idx);
        return false;
    }
    memset(meta, 0, sizeof *meta);
    uint64_t t0 = tv_mono_ns();
    tv_status st = tv_index_get(idx, r->p_id, strlen(r->p_id), realtime, &r->arena, found, meta, src, srclen);
    if (st == TROVE_OK) tv_api_count_get(idx, *found && shard_matches(r, idx, r->p_id, meta), t0);
    if (st != TROVE_OK) {
        tv_index_release(idx);
        r->oom = true;
        return false;
    }
    if (*found && !shard_matches(r, idx, r->p_id, meta)) *found = false;
    /* VersionType.isVersionConflictForReads: every version type compares
     * for equality on reads (external included) */
    (void)vt;
    if (*found && version != TV_VERSION_UNSET) {
        bool conflict = meta->version != version;
        if (conflict) {
            tv_error err = TV_ERROR_INIT;
            tv_error_set(&err, TROVE_ECONFLICT,
                         "[%s]: version conflict, current version [%lld] is different than the one provided [%lld]",
                         r->p_id, (long long)meta->version, (long long)version);
            tv_api_err *e = tv_api_err_from(r, &err, idx);
            const char *rv = tv_req_param(r, "routing");
            if (rv && !*rv) rv = NULL;
            tv_api_err_fix_shard(r, e, idx, r->p_id, rv, rv ? strlen(rv) : 0);
            if (e) tv_req_error(r, e);
            tv_index_release(idx);
            return false;
        }
    }
    *idx_out = idx;
    return true;
}

void tv_h_doc_get(tv_req *r) {
    tv_source_ctx sc;
    if (!tv_api_source_ctx(r, tv_req_param(r, "_source"), tv_req_param(r, "_source_includes"),
                           tv_req_param(r, "_source_excludes"), &sc))
        return;
    const char **stored = NULL;
    size_t nstored = 0;
    const char *sf = tv_req_param(r, "stored_fields");
    if (sf) {
        nstored = tv_split_commas(&r->arena, sf, &stored);
        if (!stored) {
            r->oom = true;
            return;
        }
        if (!sc.explicit_) {
            sc.fetch = false;
            for (size_t i = 0; i < nstored; i++)
                if (strcmp(stored[i], "_source") == 0) sc.fetch = true;
        }
    }
    tv_index *idx;
    bool found;
    tv_doc_meta meta;
    const char *src = NULL;
    size_t srclen = 0;
    if (!get_common(r, &idx, &found, &meta, &src, &srclen)) return;
    if (r->method == TV_HEAD) {
        tv_req_empty(r, found ? 200 : 404);
        tv_index_release(idx);
        return;
    }
    tv_jw *w = tv_req_json(r, found ? 200 : 404);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "_index");
    tv_jw_strz(w, tv_index_name(idx));
    tv_jw_keyz(w, "_id");
    tv_jw_strz(w, r->p_id);
    if (found) {
        tv_api_write_get_found(r, w, idx, &meta, src, srclen, &sc, stored, nstored, true);
    } else {
        tv_jw_keyz(w, "found");
        tv_jw_bool(w, false);
    }
    tv_jw_obj_end(w);
    tv_index_release(idx);
}

void tv_h_source_get(tv_req *r) {
    tv_source_ctx sc;
    if (!tv_api_source_ctx(r, tv_req_param(r, "_source"), tv_req_param(r, "_source_includes"),
                           tv_req_param(r, "_source_excludes"), &sc))
        return;
    tv_index *idx;
    bool found;
    tv_doc_meta meta;
    const char *src = NULL;
    size_t srclen = 0;
    if (!get_common(r, &idx, &found, &meta, &src, &srclen)) return;
    if (!found || !src) {
        if (r->method == TV_HEAD)
            tv_req_empty(r, 404);
        else
            tv_req_fail(r, TROVE_ENOTFOUND, "%s not found [%s]/[%s]",
                        found ? "Source" : "Document", tv_index_name(idx), r->p_id);
        tv_index_release(idx);
        return;
    }
    if (r->method == TV_HEAD) {
        tv_req_empty(r, 200);
    } else {
        tv_jw *w = tv_req_json(r, 200);
        sc.fetch = true;
        tv_api_write_source(r, w, src, srclen, &sc, false);
    }
    tv_index_release(idx);
}

/* --------------------------------------------------------------- update */

/* ---- _update with a script (UpdateHelper.prepareUpdateScriptRequest and
 * prepareUpsert): ctx is {op, _index, _id, _version, _routing, _source,
 * _now} for a document that exists (op "index" by default; "delete"
 * deletes it, "none"/"noop" and anything else is a noop, as
 * UpdateOpType.lenientFromString reads it), {op: "create", _source, _now}
 * for a scripted upsert ("create" indexes the upsert, anything else is a
 * noop). The script is compiled once per request; a failure to compile or
 * run is OpenSearch's "failed to execute script" with the
 * ScriptException as its cause. */

static tv_api_err *script_failed(tv_req *r, tv_api_err *cause) {
    if (!cause) return NULL;
    tv_api_err *x = tv_api_err_new(r, TROVE_EARG, "failed to execute script");
    if (x) x->cause = cause;
    return x;
}

static bool ctx_put(tv_req *r, tv_sv *ctx, const char *k, tv_sv v) {
    if (!tv_sv_map_put_str(&r->arena, ctx->v.map, k, strlen(k), v)) return (r->oom = true), false;
    return true;
}

static bool ctx_put_str(tv_req *r, tv_sv *ctx, const char *k, const char *v, size_t len) {
    tv_sv s;
    if (!v) return ctx_put(r, ctx, k, tv_sv_null());
    if (!tv_sv_string(&r->arena, v, len, &s)) return (r->oom = true), false;
    return ctx_put(r, ctx, k, s);
}

/* Runs the update script over ctx; false with *e (or r->oom). */
static bool run_update_script(tv_req *r, tv_update_req *u, tv_script **sc, tv_sv *ctx, tv_api_err **e) {
    if (!*sc) {
        tv_api_err *ce = NULL;
        *sc = tv_api_script_compile(r, &u->script, TV_SCRIPT_G_CTX, &ce);
        if (!*sc) {
            if (ce) *e = script_failed(r, ce);
            return false;
        }
    }
    tv_script_env env;
    memset(&env, 0, sizeof env);
    env.arena = &r->arena;
    env.ctx = *ctx;
    if (!tv_api_script_params(r, &u->script, &env.params)) {
        if (!r->oom) *e = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support integers above Long.MAX_VALUE in script params");
        return false;
    }
    tv_script_error err;
    tv_sv res;
    if (tv_script_run(*sc, &env, &res, &err) != TROVE_OK) {
        *e = script_failed(r, tv_api_script_error(r, &u->script, &err));
        return false;
    }
    return true;
}

/* ctx.op as a string ("" when it is not one) */
static const char *ctx_op(const tv_sv *ctx) {
    const tv_sv *op = tv_sv_map_get_str(ctx->v.map, "op", 2);
    return op && op->type == TV_SV_STRING ? op->v.s->s : "";
}

/* ctx._source as JSON text into b; false with *e (or r->oom) */
static bool ctx_source(tv_req *r, const tv_sv *ctx, tv_buf *b, tv_api_err **e) {
    const tv_sv *src = tv_sv_map_get_str(ctx->v.map, "_source", 7);
    if (!src || src->type == TV_SV_NULL) {
        *e = tv_api_err_new(r, TROVE_ENULLPOINTER, "Cannot invoke \"java.util.Map.size()\" because \"source\" is null");
        return false;
    }
    if (src->type != TV_SV_MAP) {
        *e = tv_api_err_new(r, TROVE_ECLASSCAST, "class %s cannot be cast to class java.util.Map",
                            src->type == TV_SV_STRING ? "java.lang.String" : "java.lang.Object");
        return false;
    }
    tv_jw jw;
    tv_jw_init(&jw, b, false);
    tv_sv_write_json(&jw, src);
    if (b->oom) return (r->oom = true), false;
    return true;
}

static int script_update(tv_req *r, tv_index *idx, const char *id, const tv_update_req *uc, tv_jw *w, tv_api_err **e) {
    tv_update_req u = *uc;
    tv_script *sc = NULL;
    tv_error err = TV_ERROR_INIT;
    int status = 0;
    size_t idlen = strlen(id);
    for (int64_t attempt = 0;; attempt++) {
        bool found = false;
        tv_doc_meta meta;
        memset(&meta, 0, sizeof meta);
        const char *src = NULL;
        size_t srclen = 0;
        if (tv_index_get(idx, id, idlen, true, &r->arena, &found, &meta, &src, &srclen) != TROVE_OK) {
            r->oom = true;
            goto out;
        }
        if (found && !tv_same_shard(idx, id, idlen, u.opts.routing, u.opts.routing_len, meta.routing,
                                        meta.routing ? meta.routing_len : 0)) {
            if (u.upsert) {
                *e = tv_api_err_new(r, TROVE_EUNSUPPORTED,
                                    "trove keeps one document per _id: [%s] exists on another shard than this "
                                    "routing reaches, an upsert would duplicate it",
                                    id);
                goto out;
            }
            found = false;
        }
        tv_write_opts o = u.opts;
        tv_write_result res;
        memset(&res, 0, sizeof res);
        tv_error_clear(&err);
        tv_buf nb;
        tv_buf_init(&nb);
        bool del = false;
        tv_sv ctx;
        if (!tv_sv_map_new(&r->arena, false, &ctx)) {
            r->oom = true;
            goto out;
        }
        if (!found) {
            if (u.opts.if_seq_no != TV_SEQ_NO_UNSET) {
                tv_error_set(&err, TROVE_ECONFLICT,
                             "[%s]: version conflict, required seqNo [%lld], primary term [%lld]. but no document "
                             "was found",
                             id, (long long)u.opts.if_seq_no, (long long)u.opts.if_primary_term);
                *e = tv_api_err_from(r, &err, idx);
                goto out;
            }
            if (!u.upsert) {
                tv_error_set(&err, TROVE_ENODOC, "[%s]: document missing", id);
                *e = tv_api_err_from(r, &err, idx);
                goto out;
            }
            if (u.scripted_upsert) {
                tv_sv us;
                tv_status cs = tv_sv_from_json(&r->arena, u.upsert, true, &us);
                if (cs != TROVE_OK) {
                    if (cs == TROVE_ENOMEM) r->oom = true;
                    else *e = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support integers above Long.MAX_VALUE in scripts");
                    goto out;
                }
                if (!ctx_put_str(r, &ctx, "op", "create", 6) || !ctx_put(r, &ctx, "_source", us) ||
                    !ctx_put(r, &ctx, "_now", tv_sv_long(tv_now_ms())))
                    goto out;
                if (!run_update_script(r, &u, &sc, &ctx, e)) goto out;
                if (strcmp(ctx_op(&ctx), "create") != 0) { /* none, noop, or anything else: nothing */
                    res.result = TV_RESULT_NOOP;
                    res.version = -1;
                    res.seq_no = -2;
                    if (w) tv_api_write_result(w, tv_index_name(idx), id, idlen, &res, 0);
                    status = 200;
                    goto out;
                }
                if (!ctx_source(r, &ctx, &nb, e)) {
                    tv_buf_fini(&nb);
                    goto out;
                }
            } else {
                tv_buf_append(&nb, u.upsert_raw, u.upsert_len);
            }
            o.op_type = TV_OP_CREATE;
            o.if_seq_no = TV_SEQ_NO_UNSET;
            o.if_primary_term = 0;
        } else {
            if (u.opts.if_seq_no != TV_SEQ_NO_UNSET &&
                (meta.seq_no != u.opts.if_seq_no || meta.primary_term != u.opts.if_primary_term)) {
                tv_error_set(&err, TROVE_ECONFLICT,
                             "[%s]: version conflict, required seqNo [%lld], primary term [%lld]. current document "
                             "has seqNo [%lld] and primary term [%lld]",
                             id, (long long)u.opts.if_seq_no, (long long)u.opts.if_primary_term,
                             (long long)meta.seq_no, (long long)meta.primary_term);
                *e = tv_api_err_from(r, &err, idx);
                goto out;
            }
            if (!src) {
                *e = tv_api_err_new(r, TROVE_ENOSOURCE, "[%s]: document source missing", id);
                if (*e) {
                    tv_api_err_meta(*e, "index", tv_index_name(idx));
                    tv_api_err_meta(*e, "index_uuid", tv_index_uuid(idx));
                    tv_api_err_meta(*e, "shard", "0");
                }
                goto out;
            }
            tv_json *base = NULL;
            tv_sv bs;
            if (tv_json_parse(&r->arena, src, srclen, &base, NULL) != TROVE_OK) {
                r->oom = true;
                goto out;
            }
            tv_status cs = tv_sv_from_json(&r->arena, base, true, &bs);
            if (cs != TROVE_OK) {
                if (cs == TROVE_ENOMEM) r->oom = true;
                else *e = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support integers above Long.MAX_VALUE in scripts");
                goto out;
            }
            if (!ctx_put_str(r, &ctx, "op", "index", 5) ||
                !ctx_put_str(r, &ctx, "_index", tv_index_name(idx), strlen(tv_index_name(idx))) ||
                !ctx_put_str(r, &ctx, "_id", id, idlen) || !ctx_put(r, &ctx, "_version", tv_sv_long(meta.version)) ||
                !ctx_put_str(r, &ctx, "_routing", meta.routing, meta.routing_len) ||
                !ctx_put(r, &ctx, "_source", bs) || !ctx_put(r, &ctx, "_now", tv_sv_long(tv_now_ms())))
                goto out;
            if (!run_update_script(r, &u, &sc, &ctx, e)) goto out;
            const char *op = ctx_op(&ctx);
            if (strcmp(op, "index") == 0) {
                if (!ctx_source(r, &ctx, &nb, e)) {
                    tv_buf_fini(&nb);
                    goto out;
                }
            } else if (strcmp(op, "delete") == 0) {
                del = true;
                const tv_sv *ns = tv_sv_map_get_str(ctx.v.map, "_source", 7);
                if (ns && ns->type == TV_SV_MAP) {
                    tv_jw jw;
                    tv_jw_init(&jw, &nb, false);
                    tv_sv_write_json(&jw, ns);
                }
            } else { /* create, none, noop, anything else: a noop */
                res.result = TV_RESULT_NOOP;
                res.version = meta.version;
                res.seq_no = meta.seq_no;
                res.primary_term = meta.primary_term;
                if (w) {
                    tv_api_write_result(w, tv_index_name(idx), id, idlen, &res, 0);
                    const tv_sv *ns = tv_sv_map_get_str(ctx.v.map, "_source", 7);
                    if (u.want_source && ns && ns->type == TV_SV_MAP) {
                        tv_jw jw;
                        tv_jw_init(&jw, &nb, false);
                        tv_sv_write_json(&jw, ns);
                        tv_jw_keyz(w, "get");
                        tv_jw_obj_begin(w);
                        tv_api_write_get_found(r, w, idx, &meta, nb.data, nb.len, &u.sc, NULL, 0, false);
                        tv_jw_obj_end(w);
                    }
                }
                tv_buf_fini(&nb);
                status = 200;
                goto out;
            }
            o.op_type = TV_OP_INDEX;
            o.if_seq_no = meta.seq_no;
            o.if_primary_term = meta.primary_term;
        }
        if (nb.oom) {
            tv_buf_fini(&nb);
            r->oom = true;
            goto out;
        }
        tv_status st = del ? tv_index_delete(idx, id, idlen, &o, &res, &err)
                           : tv_index_put(idx, id, idlen, nb.data, nb.len, &o, &res, &err);
        if (st == TROVE_ECONFLICT && attempt < u.retry_on_conflict && u.opts.if_seq_no == TV_SEQ_NO_UNSET) {
            tv_buf_fini(&nb);
            continue;
        }
        if (st == TROVE_ENOMEM) {
            tv_buf_fini(&nb);
            r->oom = true;
            goto out;
        }
        if (st != TROVE_OK) {
            tv_buf_fini(&nb);
            *e = tv_api_write_error(r, &err, idx);
            goto out;
        }
        if (w) {
            tv_api_write_result(w, tv_index_name(idx), id, idlen, &res, tv_index_shard_total(idx));
            if (u.want_source && nb.len) {
                tv_doc_meta nm = {0};
                nm.version = res.version;
                nm.seq_no = res.seq_no;
                nm.primary_term = res.primary_term;
                nm.routing = o.routing;
                nm.routing_len = (uint32_t)o.routing_len;
                tv_jw_keyz(w, "get");
                tv_jw_obj_begin(w);
                tv_api_write_get_found(r, w, idx, &nm, nb.data, nb.len, &u.sc, NULL, 0, false);
                tv_jw_obj_end(w);
            }
        }
        tv_buf_fini(&nb);
        status = del ? 200 : tv_api_write_status(&res);
        goto out;
    }
out:
    tv_script_release(sc);
    return status;
}

/*
 * One _update: body already parsed into u. Writes the response (item
 * fields only when `item` is set — bulk writes its own wrapper) into w and
 * returns the HTTP status, or 0 with *e set on failure.
 */
int tv_api_update(tv_req *r, tv_index *idx, const char *id, const tv_update_req *u, tv_jw *w, tv_api_err **e) {
    *e = NULL;
    tv_error err = TV_ERROR_INIT;
    if (!u->opts.routing && tv_routing_required(idx)) {
        *e = tv_api_err_routing_missing(r, tv_index_name(idx), id);
        return 0;
    }
    tv_update_req pu;
    if ((u->upsert || (u->doc_as_upsert && u->doc)) && tv_ingest_has_pipelines(r, NULL, tv_index_name(idx))) {
        /* TransportBulkAction: an update's upsert request goes through the
         * index's default and final pipelines before the update runs */
        tv_ingest *g = tv_ingest_new(r);
        if (!g) return 0;
        char *rt = u->opts.routing ? tv_arena_strndup(&r->arena, u->opts.routing, u->opts.routing_len) : NULL;
        tv_ingest_doc d = {.index = tv_index_name(idx), .id = id, .routing = rt, .has_version = true,
                           .version = u->opts.version, .version_type = tv_api_version_type_name(u->opts.version_type),
                           .src = u->upsert ? u->upsert_raw : u->doc_raw,
                           .src_len = u->upsert ? u->upsert_len : u->doc_len};
        bool ok = (!u->opts.routing || rt) && tv_ingest_write(g, NULL, &d, e);
        tv_ingest_free(g);
        if (!ok) {
            if (!*e) r->oom = true;
            return 0;
        }
        if (d.dropped) {
            tv_api_write_dropped(w, tv_index_name(idx), id);
            return 200;
        }
        if (strcmp(d.index, tv_index_name(idx)) != 0 || !d.id || strcmp(d.id, id) != 0 ||
            (d.routing ? !rt || strcmp(d.routing, rt) != 0 : rt != NULL)) {
            *e = tv_api_err_new(r, TROVE_EUNSUPPORTED,
                                "trove does not support an ingest pipeline that changes _index, _id or _routing of an "
                                "update's upsert");
            return 0;
        }
        pu = *u;
        tv_json *pj;
        if (tv_json_parse(&r->arena, d.src, d.src_len, &pj, NULL) != TROVE_OK) {
            r->oom = true;
            return 0;
        }
        pu.upsert = pj;
        pu.upsert_raw = d.src;
        pu.upsert_len = d.src_len;
        u = &pu;
    }
    if (u->has_script) return script_update(r, idx, id, u, w, e);
    for (int64_t attempt = 0;; attempt++) {
        bool found = false;
        tv_doc_meta meta;
        memset(&meta, 0, sizeof meta);
        const char *src = NULL;
        size_t srclen = 0;
        uint64_t t0 = tv_mono_ns();
        if (tv_index_get(idx, id, strlen(id), true, &r->arena, &found, &meta, &src, &srclen) != TROVE_OK) {
            r->oom = true;
            return 0;
        }
        /* the update's read is a get (ShardGetService.getForUpdate) */
        tv_api_count_get(idx, found, t0);
        if (found && !tv_same_shard(idx, id, strlen(id), u->opts.routing, u->opts.routing_len, meta.routing,
                                        meta.routing ? meta.routing_len : 0)) {
            /* the document lives on another shard than this routing reaches:
             * OpenSearch does not see it. An upsert there would create a
             * second document with the same _id, which one store cannot hold. */
            if (u->upsert || u->doc_as_upsert) {
                tv_api_err *x = tv_arena_calloc(&r->arena, 1, sizeof *x);
                if (!x) {
                    r->oom = true;
                    return 0;
                }
                x->type = TROVE_EUNSUPPORTED;
                x->reason = tv_arena_sprintf(&r->arena,
                                             "trove keeps one document per _id: [%s] exists on another shard than "
                                             "this routing reaches, an upsert would duplicate it",
                                             id);
                x->status = 400;
                if (!x->reason) r->oom = true;
                *e = x;
                return 0;
            }
            found = false;
        }
        tv_write_opts o = u->opts;
        tv_write_result res;
        memset(&res, 0, sizeof res);
        tv_error_clear(&err);
        const char *newsrc;
        size_t newlen;
        tv_buf nb;
        tv_buf_init(&nb);
        if (!found) {
            /* UpdateHelper: no document and nothing to upsert is
             * document_missing; an upsert then meets if_seq_no in the engine */
            if (u->opts.if_seq_no != TV_SEQ_NO_UNSET && (u->upsert || (u->doc_as_upsert && u->doc))) {
                tv_error_set(&err, TROVE_ECONFLICT,
                             "[%s]: version conflict, required seqNo [%lld], primary term [%lld]. but no document "
                             "was found",
                             id, (long long)u->opts.if_seq_no, (long long)u->opts.if_primary_term);
                *e = tv_api_err_from(r, &err, idx);
                return 0;
            }
            if (u->upsert) {
                newsrc = u->upsert_raw;
                newlen = u->upsert_len;
            } else if (u->doc_as_upsert && u->doc) {
                newsrc = u->doc_raw;
                newlen = u->doc_len;
            } else {
                tv_error_set(&err, TROVE_ENODOC, "[%s]: document missing", id);
                *e = tv_api_err_from(r, &err, idx);
                return 0;
            }
            o.op_type = TV_OP_CREATE;
            o.if_seq_no = TV_SEQ_NO_UNSET;
            o.if_primary_term = 0;
        } else {
            if (u->opts.if_seq_no != TV_SEQ_NO_UNSET &&
                (meta.seq_no != u->opts.if_seq_no || meta.primary_term != u->opts.if_primary_term)) {
                tv_error_set(&err, TROVE_ECONFLICT,
                             "[%s]: version conflict, required seqNo [%lld], primary term [%lld]. current document "
                             "has seqNo [%lld] and primary term [%lld]",
                             id, (long long)u->opts.if_seq_no, (long long)u->opts.if_primary_term,
                             (long long)meta.seq_no, (long long)meta.primary_term);
                *e = tv_api_err_from(r, &err, idx);
                return 0;
            }
            if (!src) {
                tv_api_err *x = tv_arena_calloc(&r->arena, 1, sizeof *x);
                if (!x) {
                    r->oom = true;
                    return 0;
                }
                x->type = TROVE_ENOSOURCE;
                x->reason = tv_arena_sprintf(&r->arena, "[%s]: document source missing", id);
                x->status = 400;
                tv_api_err_meta(x, "index", tv_index_name(idx));
                tv_api_err_meta(x, "index_uuid", tv_index_uuid(idx));
                tv_api_err_meta(x, "shard", "0");
                *e = x;
                return 0;
            }
            tv_json *base = NULL;
            if (tv_json_parse(&r->arena, src, srclen, &base, NULL) != TROVE_OK) {
                r->oom = true;
                return 0;
            }
            bool changed = true;
            tv_json *merged = tv_json_merge(&r->arena, base, u->doc, u->detect_noop, &changed);
            if (!merged) {
                r->oom = true;
                return 0;
            }
            if (u->detect_noop && !changed) {
                tv_index_stat_add(idx, TV_STAT_NOOP_UPDATE, 1); /* IndexShard.noopUpdate */
                res.result = TV_RESULT_NOOP;
                res.version = meta.version;
                res.seq_no = meta.seq_no;
                res.primary_term = meta.primary_term;
                if (w) {
                    tv_api_write_result(w, tv_index_name(idx), id, strlen(id), &res, 0);
                    if (u->want_source) {
                        tv_jw_keyz(w, "get");
                        tv_jw_obj_begin(w);
                        tv_api_write_get_found(r, w, idx, &meta, src, srclen, &u->sc, NULL, 0, false);
                        tv_jw_obj_end(w);
                    }
                }
                return 200;
            }
            tv_jw jw;
            tv_jw_init(&jw, &nb, false);
            tv_jw_value(&jw, merged);
            if (nb.oom) {
                tv_buf_fini(&nb);
                r->oom = true;
                return 0;
            }
            newsrc = nb.data;
            newlen = nb.len;
            o.op_type = TV_OP_INDEX;
            o.if_seq_no = meta.seq_no;
            o.if_primary_term = meta.primary_term;
        }
        tv_status st = tv_index_put(idx, id, strlen(id), newsrc, newlen, &o, &res, &err);
        if (st == TROVE_ECONFLICT && attempt < u->retry_on_conflict && u->opts.if_seq_no == TV_SEQ_NO_UNSET) {
            tv_buf_fini(&nb);
            continue;
        }
        if (st == TROVE_ENOMEM) {
            tv_buf_fini(&nb);
            r->oom = true;
            return 0;
        }
        if (st != TROVE_OK) {
            tv_buf_fini(&nb);
            *e = tv_api_write_error(r, &err, idx);
            return 0;
        }
        if (w) {
            tv_api_write_result(w, tv_index_name(idx), id, strlen(id), &res, tv_index_shard_total(idx));
            if (u->want_source) {
                tv_doc_meta nm = {0};
                nm.version = res.version;
                nm.seq_no = res.seq_no;
                nm.primary_term = res.primary_term;
                nm.routing = o.routing;
                nm.routing_len = (uint32_t)o.routing_len;
                tv_jw_keyz(w, "get");
                tv_jw_obj_begin(w);
                tv_api_write_get_found(r, w, idx, &nm, newsrc, newlen, &u->sc, NULL, 0, false);
                tv_jw_obj_end(w);
            }
        }
        tv_buf_fini(&nb);
        return tv_api_write_status(&res);
    }
}

/* Parses an update body ({"doc":..,"upsert":..,...}). Returns false with *e
 * set (or r->oom) on error. `src` is the body text (for raw slices). */
/* A boolean field of UpdateRequest's ObjectParser: true/false or the
 * strings "true"/"false"; other strings fail inside the field parser
 * (wrapped as "failed to parse field"), other tokens are refused by type. */
static bool update_bool(tv_req *r, const char *text, size_t text_len, const tv_json_member *m, bool *out,
                        tv_api_err **e) {
    const tv_json *v = &m->val;
    if (v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE) {
        *out = v->type == TV_JSON_TRUE;
        return true;
    }
    if (v->type == TV_JSON_STRING && (strcmp(v->v.s, "true") == 0 || strcmp(v->v.s, "false") == 0)) {
        *out = v->v.s[0] == 't';
        return true;
    }
    uint32_t line = 1, col = 1;
    tv_json_linecol(text, text_len, v->off, &line, &col);
    tv_api_err *x = tv_arena_calloc(&r->arena, 1, sizeof *x);
    if (!x) {
        r->oom = true;
        return false;
    }
    x->type = TROVE_EXCONTENT;
    x->status = 400;
    if (v->type == TV_JSON_STRING) {
        tv_api_err *c = tv_arena_calloc(&r->arena, 1, sizeof *c);
        if (!c) {
            r->oom = true;
            return false;
        }
        x->reason = tv_arena_sprintf(&r->arena, "[%u:%u] [UpdateRequest] failed to parse field [%s]", line, col,
                                     m->key);
        c->type = TROVE_EARG;
        c->status = 400;
        c->reason = tv_arena_sprintf(&r->arena, "Failed to parse value [%s] as only [true] or [false] are allowed.",
                                     v->v.s);
        if (!c->reason) r->oom = true;
        x->cause = c;
    } else {
        x->reason = tv_arena_sprintf(&r->arena, "[%u:%u] [UpdateRequest] %s doesn't support values of type: %s",
                                     line, col, m->key,
                                     v->type == TV_JSON_OBJECT  ? "START_OBJECT"
                                     : v->type == TV_JSON_ARRAY ? "START_ARRAY"
                                     : v->type == TV_JSON_NULL  ? "VALUE_NULL"
                                                                : "VALUE_NUMBER");
    }
    if (!x->reason) r->oom = true;
    *e = x;
    return false;
}

bool tv_api_parse_update(tv_req *r, const tv_json *body, const char *text, size_t text_len, tv_update_req *u,
                         tv_api_err **e) {
    *e = NULL;
    u->detect_noop = true;
    if (!body || body->type != TV_JSON_OBJECT) {
        if (!body) {
            tv_api_err *x = tv_arena_calloc(&r->arena, 1, sizeof *x);
            if (!x) {
                r->oom = true;
                return false;
            }
            x->type = TROVE_EVALIDATION;
            x->reason = "Validation Failed: 1: script or doc is missing;";
            x->status = 400;
            *e = x;
            return false;
        }
    }
    const tv_json *script = NULL;
    for (uint32_t i = 0; body && i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        if (tv_streq(m->key, m->key_len, "doc")) {
            u->doc = v;
        } else if (tv_streq(m->key, m->key_len, "upsert")) {
            u->upsert = v;
        } else if (tv_streq(m->key, m->key_len, "doc_as_upsert") || tv_streq(m->key, m->key_len, "detect_noop") ||
                   tv_streq(m->key, m->key_len, "scripted_upsert")) {
            bool b;
            if (!update_bool(r, text, text_len, m, &b, e)) return false;
            if (m->key[1] == 'o') u->doc_as_upsert = b;
            else if (m->key[1] == 'e') u->detect_noop = b;
            else u->scripted_upsert = b;
        } else if (tv_streq(m->key, m->key_len, "script")) {
            if (!tv_api_script_parse(r, v, &u->script, e)) return false;
            script = v;
        } else if (tv_streq(m->key, m->key_len, "_source")) {
            if (!tv_api_source_ctx_json(r, v, &u->sc)) return false;
            u->want_source = u->sc.fetch;
        } else if (tv_streq(m->key, m->key_len, "if_seq_no") || tv_streq(m->key, m->key_len, "if_primary_term") ||
                   tv_streq(m->key, m->key_len, "lang")) {
            /* accepted by OpenSearch's parser; ignored here */
        } else {
            uint32_t line = 1, col = 1;
            tv_json_linecol(text, text_len, m->key_off, &line, &col);
            tv_api_err *x = tv_arena_calloc(&r->arena, 1, sizeof *x);
            if (!x) {
                r->oom = true;
                return false;
            }
            x->type = TROVE_EXCONTENT;
            static const char *const fields[] = {"script", "scripted_upsert", "upsert", "doc", "doc_as_upsert",
                                                 "detect_noop", "_source", "if_seq_no", "if_primary_term"};
            char dym[256];
            tv_dsl_did_you_mean(m->key, m->key_len, fields, TV_ARRAY_LEN(fields), dym, sizeof dym);
            x->reason = tv_arena_sprintf(&r->arena, "[%u:%u] [UpdateRequest] unknown field [%s]%s", line, col, m->key,
                                         dym);
            x->status = 400;
            if (!x->reason) r->oom = true;
            *e = x;
            return false;
        }
    }
    if (script) {
        u->has_script = true;
        /* UpdateRequest.validate */
        tv_buf v;
        tv_buf_init(&v);
        int n = 0;
        if (u->doc) tv_buf_printf(&v, "%d: can't provide both script and doc;", ++n);
        if (!u->doc && u->doc_as_upsert) tv_buf_printf(&v, "%d: doc must be specified if doc_as_upsert is enabled;", ++n);
        if (n) {
            *e = tv_api_err_new(r, TROVE_EVALIDATION, "Validation Failed: %s", v.data ? v.data : "");
            tv_buf_fini(&v);
            return false;
        }
        tv_buf_fini(&v);
        if (u->upsert && u->upsert->type != TV_JSON_OBJECT) {
            *e = tv_api_err_new(r, TROVE_EXCONTENT, "[1:%u] [UpdateRequest] failed to parse field [upsert]",
                                u->upsert->off + 1);
            return false;
        }
        if (u->upsert) {
            tv_buf b;
            tv_buf_init(&b);
            tv_jw jw;
            tv_jw_init(&jw, &b, false);
            tv_jw_value(&jw, u->upsert);
            char *c = b.oom ? NULL : tv_arena_memdup(&r->arena, b.data, b.len);
            u->upsert_len = b.len;
            tv_buf_fini(&b);
            if (!c) return (r->oom = true), false;
            u->upsert_raw = c;
        }
        return true;
    }
    if (!u->doc) {
        tv_api_err *x = tv_arena_calloc(&r->arena, 1, sizeof *x);
        if (!x) {
            r->oom = true;
            return false;
        }
        x->type = TROVE_EVALIDATION;
        x->reason = "Validation Failed: 1: script or doc is missing;";
        x->status = 400;
        *e = x;
        return false;
    }
    if (u->doc->type != TV_JSON_OBJECT || (u->upsert && u->upsert->type != TV_JSON_OBJECT)) {
        tv_api_err *x = tv_arena_calloc(&r->arena, 1, sizeof *x);
        if (!x) {
            r->oom = true;
            return false;
        }
        x->type = TROVE_EXCONTENT;
        x->reason = tv_arena_sprintf(&r->arena, "[1:%u] [UpdateRequest] failed to parse field [%s]",
                                     (u->doc->type != TV_JSON_OBJECT ? u->doc->off : u->upsert->off) + 1,
                                     u->doc->type != TV_JSON_OBJECT ? "doc" : "upsert");
        x->status = 400;
        *e = x;
        return false;
    }
    /* raw slices of doc and upsert, re-serialised compactly */
    const tv_json *parts[2] = {u->doc, u->upsert};
    for (int k = 0; k < 2; k++) {
        if (!parts[k]) continue;
        tv_buf b;
        tv_buf_init(&b);
        tv_jw jw;
        tv_jw_init(&jw, &b, false);
        tv_jw_value(&jw, parts[k]);
        char *c = b.oom ? NULL : tv_arena_memdup(&r->arena, b.data, b.len);
        size_t n = b.len;
        tv_buf_fini(&b);
        if (!c) {
            r->oom = true;
            return false;
        }
        if (k == 0) {
            u->doc_raw = c;
            u->doc_len = n;
        } else {
            u->upsert_raw = c;
            u->upsert_len = n;
        }
    }
    return true;
}

void tv_h_doc_update(tv_req *r) {
    tv_update_req u;
    memset(&u, 0, sizeof u);
    bool req_alias = false;
    if (!parse_write_params(r, &u.opts, false, &req_alias)) return;
    int64_t roc;
    if (!tv_req_param_i64(r, "retry_on_conflict", 0, &roc)) return;
    u.retry_on_conflict = roc;
    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body && r->body_len) return;
    tv_api_err *e = NULL;
    if (!tv_api_parse_update(r, body, r->body, r->body_len, &u, &e)) {
        if (e) tv_req_error(r, e);
        return;
    }
    const char *sp = tv_req_param(r, "_source"), *si = tv_req_param(r, "_source_includes"),
               *se = tv_req_param(r, "_source_excludes");
    if (sp || si || se) {
        if (!tv_api_source_ctx(r, sp, si, se, &u.sc)) return;
        u.want_source = u.sc.fetch;
    }
    tv_buf v;
    tv_buf_init(&v);
    int n = 0;
    if (u.opts.if_primary_term == 0 && u.opts.if_seq_no != TV_SEQ_NO_UNSET)
        tv_buf_printf(&v, "%d: ifSeqNo is set, but primary term is [0];", ++n);
    if (u.opts.if_primary_term != 0 && u.opts.if_seq_no == TV_SEQ_NO_UNSET)
        tv_buf_printf(&v, "%d: ifSeqNo is unassigned, but primary term is [%lld];", ++n,
                      (long long)u.opts.if_primary_term);
    if (u.retry_on_conflict > 0 && u.opts.if_seq_no != TV_SEQ_NO_UNSET)
        tv_buf_printf(&v, "%d: compare and write operations can not be retried;", ++n);
    if (n) {
        tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: %s",
                    v.data ? v.data : "");
        tv_buf_fini(&v);
        return;
    }
    tv_buf_fini(&v);
    if (req_alias && !require_alias_ok(r)) return;
    tv_index *idx = tv_node_index_for_write(r, r->p_index);
    if (!idx) return;
    tv_buf tmp;
    tv_buf_init(&tmp);
    tv_jw tw;
    tv_jw_init(&tw, &tmp, r->pretty);
    tv_jw_obj_begin(&tw);
    int status = tv_api_update(r, idx, r->p_id, &u, &tw, &e);
    tv_jw_obj_end(&tw);
    if (status) {
        tv_req_json(r, status);
        tv_buf_append(&r->out, tmp.data, tmp.len);
        if (tmp.oom) r->oom = true;
    } else if (e) {
        tv_api_err_fix_shard(r, e, idx, r->p_id, u.opts.routing, u.opts.routing_len);
        tv_req_error(r, e);
    }
    tv_buf_fini(&tmp);
    tv_index_release(idx);
}

/* ----------------------------------------------------------------- mget */

static bool mget_fail_parse(tv_req *r, const tv_json *at, const char *fmt, const char *key, const char *tok) {
    uint32_t line = 1, col = 1;
    tv_json_linecol(r->body, r->body_len, at->off, &line, &col);
    tv_api_err *x = tv_arena_calloc(&r->arena, 1, sizeof *x);
    if (!x) {
        r->oom = true;
        return false;
    }
    x->type = TROVE_EPARSE;
    x->reason = tv_arena_sprintf(&r->arena, fmt, key, tok);
    x->status = 400;
    x->line = line;
    x->col = col;
    tv_req_error(r, x);
    return false;
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

typedef struct mget_item {
    const char *index;
    const char *id;
    const char *routing;
    tv_source_ctx sc;
    const char **stored;
    size_t nstored;
} mget_item;

void tv_h_mget(tv_req *r) {
    bool realtime, refresh;
    if (!tv_req_param_bool(r, "realtime", true, &realtime)) return;
    if (!tv_req_param_bool(r, "refresh", false, &refresh)) return;
    tv_source_ctx dsc;
    if (!tv_api_source_ctx(r, tv_req_param(r, "_source"), tv_req_param(r, "_source_includes"),
                           tv_req_param(r, "_source_excludes"), &dsc))
        return;
    const char **dstored = NULL;
    size_t ndstored = 0;
    if (tv_req_param(r, "stored_fields")) {
        ndstored = tv_split_commas(&r->arena, tv_req_param(r, "stored_fields"), &dstored);
        if (!dstored) {
            r->oom = true;
            return;
        }
    }
    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body && r->body_len) return;
    mget_item *items = NULL;
    size_t nitems = 0;
    if (body) {
        if (body->type != TV_JSON_OBJECT)
            return (void)tv_req_fail(r, TROVE_EPARSE, "Failed to derive xcontent");
        size_t cap = 0;
        for (uint32_t i = 0; i < body->len; i++) cap += body->v.members[i].val.len + 1;
        items = tv_arena_calloc(&r->arena, cap + 1, sizeof *items);
        if (!items) {
            r->oom = true;
            return;
        }
        for (uint32_t i = 0; i < body->len; i++) {
            const tv_json_member *m = &body->v.members[i];
            const tv_json *v = &m->val;
            if (tv_streq(m->key, m->key_len, "docs") && v->type == TV_JSON_ARRAY) {
                for (uint32_t k = 0; k < v->len; k++) {
                    const tv_json *d = &v->v.items[k];
                    mget_item *it = &items[nitems++];
                    it->index = r->p_index;
                    it->routing = tv_req_param(r, "routing");
                    it->sc = dsc;
                    it->stored = dstored;
                    it->nstored = ndstored;
                    if (d->type != TV_JSON_OBJECT)
                        return (void)mget_fail_parse(r, d, "%sunexpected token [%s], expected an object", "",
                                                     token_name(d));
                    for (uint32_t j = 0; j < d->len; j++) {
                        const tv_json_member *f = &d->v.members[j];
                        const tv_json *fv = &f->val;
                        if (tv_streq(f->key, f->key_len, "_index") && fv->type == TV_JSON_STRING)
                            it->index = fv->v.s;
                        else if (tv_streq(f->key, f->key_len, "_id") &&
                                 (fv->type == TV_JSON_STRING || tv_json_is_number(fv)))
                            it->id = fv->type == TV_JSON_STRING
                                         ? fv->v.s
                                         : tv_arena_strndup(&r->arena, fv->raw, fv->raw_len);
                        else if (tv_streq(f->key, f->key_len, "routing") && fv->type == TV_JSON_STRING)
                            it->routing = fv->v.s;
                        else if (tv_streq(f->key, f->key_len, "_source")) {
                            /* FetchSourceContext: a boolean, a list, or {includes|include, excludes|exclude} */
                            if (!tv_api_source_ctx_json(r, fv, &it->sc)) return;
                        } else if (tv_streq(f->key, f->key_len, "stored_fields")) {
                            if (fv->type == TV_JSON_STRING) {
                                it->nstored = tv_split_commas(&r->arena, fv->v.s, &it->stored);
                            } else if (fv->type == TV_JSON_ARRAY) {
                                it->stored = tv_arena_calloc(&r->arena, fv->len + 1, sizeof(char *));
                                if (!it->stored) {
                                    r->oom = true;
                                    return;
                                }
                                it->nstored = 0;
                                for (uint32_t q = 0; q < fv->len; q++)
                                    if (fv->v.items[q].type == TV_JSON_STRING)
                                        it->stored[it->nstored++] = fv->v.items[q].v.s;
                            }
                        } else {
                            return (void)mget_fail_parse(r, fv, "Unknown key for a %s in [%s].",
                                                         token_name(fv), f->key);
                        }
                    }
                }
            } else if (tv_streq(m->key, m->key_len, "ids") && v->type == TV_JSON_ARRAY) {
                for (uint32_t k = 0; k < v->len; k++) {
                    const tv_json *d = &v->v.items[k];
                    if (d->type != TV_JSON_STRING && !tv_json_is_number(d))
                        return (void)tv_req_fail(r, TROVE_EARG,
                                                 "ids array element should only contain ids");
                    mget_item *it = &items[nitems++];
                    it->index = r->p_index;
                    it->routing = tv_req_param(r, "routing");
                    it->id = d->type == TV_JSON_STRING ? d->v.s : tv_arena_strndup(&r->arena, d->raw, d->raw_len);
                    it->sc = dsc;
                    it->stored = dstored;
                    it->nstored = ndstored;
                }
            } else {
                return (void)mget_fail_parse(r, v, "unknown key [%s] for a %s, expected [docs] or [ids]", m->key,
                                             token_name(v));
            }
        }
    }
    /* validation */
    tv_buf vb;
    tv_buf_init(&vb);
    int nv = 0;
    if (nitems == 0) tv_buf_printf(&vb, "%d: no documents to get;", ++nv);
    for (size_t i = 0; i < nitems; i++) {
        if (!items[i].index) tv_buf_printf(&vb, "%d: index is missing for doc %zu;", ++nv, i);
        if (!items[i].id) tv_buf_printf(&vb, "%d: id is missing for doc %zu;", ++nv, i);
    }
    if (nv) {
        tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: %s",
                    vb.data ? vb.data : "");
        tv_buf_fini(&vb);
        return;
    }
    tv_buf_fini(&vb);
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "docs");
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < nitems && !r->oom; i++) {
        mget_item *it = &items[i];
        mget_item local = *it;
        if (local.nstored && !local.sc.explicit_) {
            local.sc.fetch = false;
            for (size_t q = 0; q < local.nstored; q++)
                if (strcmp(local.stored[q], "_source") == 0) local.sc.fetch = true;
        }
        tv_jw_obj_begin(w);
        tv_index *idx = tv_node_get_index(r->node, it->index);
        tv_jw_keyz(w, "_index");
        tv_jw_strz(w, it->index);
        tv_jw_keyz(w, "_id");
        tv_jw_strz(w, it->id);
        if (!idx) {
            tv_api_err *e = tv_api_err_no_index(r, it->index);
            if (e) tv_api_err_write_failure(w, e);
            tv_jw_obj_end(w);
            continue;
        }
        if (refresh && tv_index_refresh(idx) == TROVE_ENOMEM) r->oom = true;
        if ((!it->routing || !*it->routing) && tv_routing_required(idx)) {
            tv_api_err *e = tv_api_err_routing_missing(r, tv_index_name(idx), it->id);
            if (e) tv_api_err_write_failure(w, e);
            tv_jw_obj_end(w);
            tv_index_release(idx);
            continue;
        }
        bool found = false;
        tv_doc_meta meta;
        memset(&meta, 0, sizeof meta);
        const char *src = NULL;
        size_t srclen = 0;
        uint64_t t0 = tv_mono_ns();
        if (tv_index_get(idx, it->id, strlen(it->id), realtime, &r->arena, &found, &meta, &src, &srclen) !=
            TROVE_OK)
            r->oom = true;
        if (found && !tv_same_shard(idx, it->id, strlen(it->id), it->routing && *it->routing ? it->routing : NULL,
                                        it->routing ? strlen(it->routing) : 0, meta.routing,
                                        meta.routing ? meta.routing_len : 0))
            found = false; /* on another shard than the item's routing reaches */
        if (!r->oom) tv_api_count_get(idx, found, t0);
        if (found) {
            tv_api_write_get_found(r, w, idx, &meta, src, srclen, &local.sc, local.stored, local.nstored, true);
        } else {
            tv_jw_keyz(w, "found");
            tv_jw_bool(w, false);
        }
        tv_jw_obj_end(w);
        tv_index_release(idx);
    }
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
}
