/*
 * h_index.c — node and index-level endpoints: GET|HEAD / (the banner),
 * PUT|GET|HEAD|DELETE /{index}, GET|PUT /{index}/_mapping,
 * GET|PUT /{index}/_settings[/{name}], _open/_close, and _refresh.
 *
 * Index expressions go through tv_node_resolve_ex with each API's
 * IndicesOptions defaults (GET index: open and closed; mapping and refresh:
 * open, closed names rejected; delete: aliases rejected). Closed is a mark
 * the node keeps (the index layer has no state for it): a closed index
 * keeps its data, is skipped by wildcards unless expand_wildcards has
 * `closed`, and data APIs reject it with index_closed_exception.
 *
 * Each handler follows the order in which OpenSearch checks things: the
 * REST layer parses the body first (parse_exception "Failed to parse
 * content to map"), then the transport action validates names and looks
 * indices up, then the index layer parses settings and mappings. Responses
 * are written field by field in OpenSearch's order.
 *
 * Index creation holds the node's write lock across the existence check
 * and the insert so that two concurrent PUTs of one name give one
 * "acknowledged" and one resource_already_exists_exception.
 */
#include <stdio.h>

#include "api.h"

/* ----------------------------------------------------------------- GET / */

void tv_h_root(tv_req *r) {
    if (r->method == TV_HEAD) {
        tv_req_empty(r, 200);
        return;
    }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "name");
    tv_jw_strz(w, r->node->st->node_name);
    tv_jw_keyz(w, "cluster_name");
    tv_jw_strz(w, r->node->st->cluster_name);
    tv_jw_keyz(w, "cluster_uuid");
    tv_jw_strz(w, r->node->st->cluster_uuid);
    tv_jw_keyz(w, "version");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "distribution");
    tv_jw_strz(w, "opensearch");
    tv_jw_keyz(w, "number");
    tv_jw_strz(w, TROVE_OPENSEARCH_VERSION);
    tv_jw_keyz(w, "build_type");
    tv_jw_strz(w, "tar");
    tv_jw_keyz(w, "build_hash");
    tv_jw_strz(w, "trove-" TROVE_VERSION_STRING);
    tv_jw_keyz(w, "build_date");
    tv_jw_strz(w, "2025-06-19T00:00:00.000000000Z");
    tv_jw_keyz(w, "build_snapshot");
    tv_jw_bool(w, false);
    tv_jw_keyz(w, "lucene_version");
    tv_jw_strz(w, TROVE_LUCENE_VERSION);
    tv_jw_keyz(w, "minimum_wire_compatibility_version");
    tv_jw_strz(w, "2.19.0");
    tv_jw_keyz(w, "minimum_index_compatibility_version");
    tv_jw_strz(w, "2.0.0");
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "tagline");
    tv_jw_strz(w, "The OpenSearch Project: https://opensearch.org/");
    tv_jw_obj_end(w);
}

/* ----------------------------------------------------------- helpers */

static void write_ack(tv_req *r) {
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "acknowledged");
    tv_jw_bool(w, true);
    tv_jw_obj_end(w);
}

static bool fail_invalid_name(tv_req *r, const char *name, const char *why) {
    tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
    if (!e) {
        r->oom = true;
        return false;
    }
    e->type = TROVE_EINDEXNAME;
    e->reason = tv_arena_sprintf(&r->arena, "Invalid index name [%s], %s", name, why);
    e->status = 400;
    tv_api_err_meta(e, "index", name);
    tv_api_err_meta(e, "index_uuid", "_na_");
    if (!e->reason) {
        r->oom = true;
        return false;
    }
    tv_req_error(r, e);
    return false;
}

/* Options shared by the multi-index APIs: IndicesOptions defaults of the
 * API (expand, forbid_closed) overridden by the URL. */
static bool opts_for(tv_req *r, tv_resolve_opts *o, bool ignore_unavailable, bool allow_no_indices, unsigned expand,
                     bool forbid_closed) {
    o->ignore_unavailable = ignore_unavailable;
    o->allow_no_indices = allow_no_indices;
    o->expand = expand;
    o->forbid_closed = forbid_closed;
    o->ignore_aliases = false;
    return tv_resolve_opts_parse(r, o);
}

/* --------------------------------------------------------- PUT /{index} */

void tv_h_index_create(tv_req *r) {
    const char *name = r->p_index;
    const tv_json *body = tv_req_parse_body(r, TV_BODY_MAP);
    if (!body && r->body_len) return;
    const tv_json *settings = NULL, *mappings = NULL, *aliases = NULL;
    if (body) {
        if (body->type != TV_JSON_OBJECT) {
            tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
            return;
        }
        for (uint32_t i = 0; i < body->len; i++) {
            const tv_json_member *m = &body->v.members[i];
            if (tv_streq(m->key, m->key_len, "settings")) {
                settings = &m->val;
            } else if (tv_streq(m->key, m->key_len, "mappings")) {
                mappings = &m->val;
            } else if (tv_streq(m->key, m->key_len, "aliases")) {
                aliases = &m->val;
            } else {
                tv_req_fail(r, TROVE_EPARSEEXC, "unknown key [%s] for create index", m->key);
                return;
            }
        }
        if (mappings && mappings->type == TV_JSON_OBJECT && mappings->len == 1 &&
            tv_streq(mappings->v.members[0].key, mappings->v.members[0].key_len, "_doc")) {
            tv_req_fail(r, TROVE_EARG,
                        "The mapping definition cannot be nested under a type [_doc] unless "
                        "include_type_name is set to true.");
            return;
        }
    }
    const char *bad = tv_index_name_invalid(name, &r->arena);
    if (bad) {
        fail_invalid_name(r, name, bad);
        return;
    }
    pthread_rwlock_wrlock(&r->node->lock);
    tv_index *old = tv_map_get(&r->node->st->indices, name, strlen(name));
    tv_failed_index failed;
    if (!old && tv_durable_failed(r->node, name, &failed)) { /* exists on disk, red */
        pthread_rwlock_unlock(&r->node->lock);
        tv_req_fail(r, TROVE_EEXISTS,
                    "index [%s/%s] already exists (not recovered: DELETE it to start over)", name, failed.uuid);
        return;
    }
    bool clash = false;
    for (size_t i = 0; !old && i < r->node->st->naliases; i++)
        if (strcmp(r->node->st->aliases[i].alias, name) == 0) clash = true;
    if (clash) {
        pthread_rwlock_unlock(&r->node->lock);
        tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
        if (!e) {
            r->oom = true;
            return;
        }
        e->type = TROVE_EINDEXNAME;
        e->reason = tv_arena_sprintf(&r->arena, "Invalid index name [%s], already exists as alias", name);
        e->status = 400;
        tv_api_err_meta(e, "index", name);
        tv_api_err_meta(e, "index_uuid", "_na_");
        if (!e->reason) {
            r->oom = true;
            return;
        }
        tv_req_error(r, e);
        return;
    }
    if (old) {
        tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
        if (e) {
            e->type = TROVE_EEXISTS;
            e->reason = tv_arena_sprintf(&r->arena, "index [%s/%s] already exists", name, tv_index_uuid(old));
            e->status = 400;
            tv_api_err_meta(e, "index", name);
            char *u = tv_arena_strndup(&r->arena, tv_index_uuid(old), strlen(tv_index_uuid(old)));
            tv_api_err_meta(e, "index_uuid", u ? u : "_na_");
        }
        pthread_rwlock_unlock(&r->node->lock);
        if (!e || !e->reason)
            r->oom = true;
        else
            tv_req_error(r, e);
        return;
    }
    tv_index *idx = tv_node_create_index_locked(r, name, settings, mappings, aliases);
    pthread_rwlock_unlock(&r->node->lock);
    if (!idx) return;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "acknowledged");
    tv_jw_bool(w, true);
    tv_jw_keyz(w, "shards_acknowledged");
    tv_jw_bool(w, true);
    tv_jw_keyz(w, "index");
    tv_jw_strz(w, name);
    tv_jw_obj_end(w);
}

/* ------------------------------------------------- GET|HEAD /{index} */

static void write_mapping_of(tv_jw *w, tv_index *idx) {
    const tv_mapping *m = tv_index_mapping(idx);
    if (m) {
        tv_mapping_write(m, w);
        tv_mapping_release(m);
    } else {
        tv_jw_obj_begin(w);
        tv_jw_obj_end(w);
        w->out->oom = true;
    }
}

static void write_settings_of(tv_jw *w, tv_index *idx, bool flat) {
    tv_index_lock(idx);
    tv_settings_write(tv_index_settings(idx), w, flat);
    tv_index_unlock(idx);
}

void tv_h_index_get(tv_req *r) {
    bool flat, defaults;
    tv_resolve_opts o;
    if (!opts_for(r, &o, false, false, TV_EXPAND_OPEN | TV_EXPAND_CLOSED, false)) return;
    if (!tv_req_param_bool(r, "flat_settings", false, &flat)) return;
    if (!tv_req_param_bool(r, "include_defaults", false, &defaults)) return;
    if (defaults)
        return (void)tv_req_fail(r, TROVE_EUNSUPPORTED,
                                 "trove does not support include_defaults");
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    for (size_t i = 0; i < l.len; i++) {
        tv_jw_keyz(w, tv_index_name(l.items[i]));
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "aliases");
        pthread_rwlock_rdlock(&r->node->lock);
        tv_alias_write_index_aliases_locked(r->node, w, tv_index_name(l.items[i]));
        pthread_rwlock_unlock(&r->node->lock);
        tv_jw_keyz(w, "mappings");
        write_mapping_of(w, l.items[i]);
        tv_jw_keyz(w, "settings");
        write_settings_of(w, l.items[i], flat);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_index_list_release(&l);
}

void tv_h_index_exists(tv_req *r) {
    tv_resolve_opts o;
    if (!opts_for(r, &o, false, false, TV_EXPAND_OPEN | TV_EXPAND_CLOSED, false)) return;
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) {
        if (!r->oom) tv_req_empty(r, 404);
        return;
    }
    tv_index_list_release(&l);
    tv_req_empty(r, 200);
}

/* ------------------------------------------------------ DELETE /{index} */

void tv_h_index_delete(tv_req *r) {
    tv_resolve_opts o;
    if (!opts_for(r, &o, false, true, TV_EXPAND_OPEN | TV_EXPAND_CLOSED, false)) return;
    tv_error ferr;
    tv_error_clear(&ferr);
    tv_status fst = tv_durable_drop_failed(r->node, r->p_index, &ferr); /* an index not recovered */
    if (fst != TROVE_ENOTFOUND) {
        if (fst) tv_req_fail_tv(r, &ferr, NULL);
        else write_ack(r);
        return;
    }
    o.ignore_aliases = true;
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    pthread_rwlock_wrlock(&r->node->lock);
    tv_error derr;
    tv_error_clear(&derr);
    for (size_t i = 0; i < l.len && derr.code == TROVE_OK; i++) {
        const char *name = tv_index_name(l.items[i]);
        tv_index *cur = tv_map_get(&r->node->st->indices, name, strlen(name));
        /* off the disk first: an index that cannot be removed stays */
        if (cur == l.items[i] && tv_durable_drop_index(r->node, cur, &derr) == TROVE_OK) {
            tv_node_forget_index_locked(r->node, name);
            tv_map_del(&r->node->st->indices, name, strlen(name));
            tv_index_release(cur);
        }
    }
    pthread_rwlock_unlock(&r->node->lock);
    tv_index_list_release(&l);
    if (derr.code != TROVE_OK) tv_req_fail_tv(r, &derr, NULL);
    else write_ack(r);
}

/* ------------------------------------------------------------- mappings */

void tv_h_mapping_get(tv_req *r) {
    tv_resolve_opts o;
    if (!opts_for(r, &o, false, true, TV_EXPAND_OPEN, false)) return;
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    for (size_t i = 0; i < l.len; i++) {
        tv_jw_keyz(w, tv_index_name(l.items[i]));
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "mappings");
        write_mapping_of(w, l.items[i]);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_index_list_release(&l);
}

void tv_h_mapping_put(tv_req *r) {
    tv_resolve_opts o;
    if (!opts_for(r, &o, false, false, TV_EXPAND_OPEN, true)) return;
    if (!r->body_len) {
        tv_req_fail(r, TROVE_EPARSEEXC, "request body is required");
        return;
    }
    const tv_json *body = tv_req_parse_body(r, TV_BODY_MAP);
    if (!body) return;
    if (body->type != TV_JSON_OBJECT) {
        tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
        return;
    }
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    for (size_t i = 0; i < l.len; i++) {
        tv_error err;
        tv_error_clear(&err);
        tv_status st = tv_index_put_mapping(l.items[i], body, &err);
        if (st != TROVE_OK) {
            if (st == TROVE_ENOMEM)
                r->oom = true;
            else
                tv_req_fail_tv(r, &err, l.items[i]);
            tv_index_list_release(&l);
            return;
        }
    }
    tv_index_list_release(&l);
    write_ack(r);
}

/* Writes the settings of idx keeping the keys that match names. */
static bool write_settings_filtered(tv_req *r, tv_jw *w, tv_index *idx, const char *const *names, size_t nn,
                                    bool flat) {
    tv_index_lock(idx);
    const tv_json *f = tv_index_settings(idx)->flat;
    size_t cnt = 0;
    tv_kv *kv = f && f->len ? tv_arena_calloc(&r->arena, f->len, sizeof *kv) : NULL;
    for (uint32_t i = 0; kv && i < f->len; i++) {
        const tv_json_member *m = &f->v.members[i];
        bool hit = false;
        for (size_t j = 0; j < nn && !hit; j++)
            hit = strcmp(names[j], "_all") == 0 || tv_simple_match(names[j], m->key, m->key_len);
        if (!hit) continue;
        kv[cnt].key = tv_arena_strndup(&r->arena, m->key, m->key_len);
        tv_json *v = tv_arena_alloc(&r->arena, sizeof *v);
        if (!kv[cnt].key || !v) {
            kv = NULL;
            break;
        }
        *v = m->val; /* shallow: scalar strings are copied below */
        if (v->type == TV_JSON_STRING) v->v.s = tv_arena_strndup(&r->arena, m->val.v.s, m->val.len);
        kv[cnt++].val = v;
    }
    tv_index_unlock(idx);
    if (f && f->len && !kv) return !(r->oom = true);
    if (!cnt) return true;
    tv_json *j = tv_kv_to_json(&r->arena, kv, cnt, flat);
    if (!j) return !(r->oom = true);
    tv_jw_keyz(w, tv_index_name(idx));
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "settings");
    tv_jw_value(w, j);
    tv_jw_obj_end(w);
    return true;
}

void tv_h_settings_get(tv_req *r) {
    bool flat, defaults;
    tv_resolve_opts o;
    if (!opts_for(r, &o, false, true, TV_EXPAND_OPEN | TV_EXPAND_CLOSED, false)) return;
    if (!tv_req_param_bool(r, "flat_settings", false, &flat)) return;
    if (!tv_req_param_bool(r, "include_defaults", false, &defaults)) return;
    if (defaults)
        return (void)tv_req_fail(r, TROVE_EUNSUPPORTED,
                                 "trove does not support include_defaults");
    const char **names = NULL;
    size_t nn = r->p_name ? tv_split_commas(&r->arena, r->p_name, &names) : 0;
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    for (size_t i = 0; i < l.len; i++) {
        if (nn) {
            if (!write_settings_filtered(r, w, l.items[i], names, nn, flat)) break;
            continue;
        }
        tv_jw_keyz(w, tv_index_name(l.items[i]));
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "settings");
        write_settings_of(w, l.items[i], flat);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_index_list_release(&l);
}

/* PUT /{index}/_settings: dynamic settings through the index layer. */
void tv_h_settings_put(tv_req *r) {
    tv_resolve_opts o;
    if (!opts_for(r, &o, false, false, TV_EXPAND_OPEN, false)) return;
    bool preserve;
    if (!tv_req_param_bool(r, "preserve_existing", false, &preserve)) return;
    if (!r->body_len) {
        tv_req_fail(r, TROVE_EVALIDATION,
                    "Validation Failed: 1: no settings to update;");
        return;
    }
    const tv_json *body = tv_req_parse_body(r, TV_BODY_MAP);
    if (!body) return;
    if (body->type != TV_JSON_OBJECT) {
        tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
        return;
    }
    const tv_json *upd = tv_json_get(body, "settings");
    if (!upd || upd->type != TV_JSON_OBJECT) upd = body;
    if (upd->len == 0) {
        tv_req_fail(r, TROVE_EVALIDATION,
                    "Validation Failed: 1: no settings to update;");
        return;
    }
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    for (size_t i = 0; i < l.len; i++) {
        const tv_json *u = upd;
        if (preserve) { /* keep keys the index already has */
            tv_kv *kv;
            size_t n;
            if (!tv_flatten_settings(&r->arena, upd, true, &kv, &n)) {
                r->oom = true;
                break;
            }
            size_t k = 0;
            tv_index_lock(l.items[i]);
            const tv_json *f = tv_index_settings(l.items[i])->flat;
            for (size_t j = 0; j < n; j++)
                if (!f || !tv_json_get(f, kv[j].key)) kv[k++] = kv[j];
            tv_index_unlock(l.items[i]);
            if (!k) continue;
            u = tv_kv_to_json(&r->arena, kv, k, true);
            if (!u) {
                r->oom = true;
                break;
            }
        }
        tv_error err;
        tv_error_clear(&err);
        tv_status st = TROVE_OK;
        if (tv_index_durable(l.items[i])) { /* logged first: a failed update fails again in replay */
            char *ub = tv_json_compact(u);
            st = !ub ? tv_error_oom(&err)
                     : tv_index_log_settings(l.items[i], ub, strlen(ub), &err);
            tv_free(ub);
        }
        if (st == TROVE_OK) {
            tv_index_lock(l.items[i]);
            st = tv_settings_update(tv_index_settings(l.items[i]), u, &err);
            tv_index_unlock(l.items[i]);
        }
        if (st != TROVE_OK) {
            if (st == TROVE_ENOMEM)
                r->oom = true;
            else
                tv_req_fail_tv(r, &err, l.items[i]);
            tv_index_list_release(&l);
            return;
        }
    }
    tv_index_list_release(&l);
    if (!r->oom) write_ack(r);
}

/* ------------------------------------------------------- open / close */

static void open_close(tv_req *r, bool close) {
    tv_resolve_opts o;
    if (!opts_for(r, &o, false, true, close ? TV_EXPAND_OPEN : TV_EXPAND_CLOSED, false)) return;
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    /* which indices change state (closing a closed index, or opening an
     * open one, does nothing to it) */
    bool *changed = tv_arena_calloc(&r->arena, l.len ? l.len : 1, sizeof *changed);
    if (!changed) r->oom = true;
    pthread_rwlock_wrlock(&r->node->lock);
    for (size_t i = 0; i < l.len && !r->oom; i++) {
        const char *name = tv_index_name(l.items[i]);
        bool was_closed = tv_map_has(&r->node->st->closed, name, strlen(name));
        changed[i] = was_closed != close;
        if (close) {
            if (!was_closed && tv_map_put(&r->node->st->closed, name, strlen(name), (void *)1, NULL) != TROVE_OK)
                r->oom = true;
        } else {
            tv_map_del(&r->node->st->closed, name, strlen(name));
        }
    }
    pthread_rwlock_unlock(&r->node->lock);
    if (r->oom) {
        tv_index_list_release(&l);
        return;
    }
    /* a close flushes (TransportVerifyShardBeforeCloseAction), and a close
     * or an open recreates the shards, whose statistics start afresh */
    for (size_t i = 0; i < l.len; i++) {
        if (close && changed[i]) {
            tv_error ferr = TV_ERROR_INIT;
            if (tv_api_flush_index(r, l.items[i], &ferr) != TROVE_OK && ferr.code == TROVE_ENOMEM) r->oom = true;
        }
        if (changed[i]) tv_index_stats_restart(l.items[i]);
    }
    if (r->oom) {
        tv_index_list_release(&l);
        return;
    }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "acknowledged");
    tv_jw_bool(w, true);
    tv_jw_keyz(w, "shards_acknowledged");
    tv_jw_bool(w, true);
    if (close) {
        tv_jw_keyz(w, "indices");
        tv_jw_obj_begin(w);
        for (size_t i = 0; i < l.len; i++) {
            tv_jw_keyz(w, tv_index_name(l.items[i]));
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "closed");
            tv_jw_bool(w, true);
            tv_jw_obj_end(w);
        }
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_index_list_release(&l);
}

void tv_h_index_open(tv_req *r) { open_close(r, false); }
void tv_h_index_close(tv_req *r) { open_close(r, true); }

/* -------------------------------------------------------------- refresh */

void tv_h_refresh(tv_req *r) {
    tv_resolve_opts o;
    if (!opts_for(r, &o, false, true, TV_EXPAND_OPEN, true)) return;
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    int64_t total = 0, ok = 0;
    for (size_t i = 0; i < l.len; i++) {
        if (tv_index_refresh(l.items[i]) == TROVE_ENOMEM) {
            r->oom = true;
            tv_index_list_release(&l);
            return;
        }
        /* every shard copy counts; the started primaries succeed */
        tv_index_lock(l.items[i]);
        int64_t shards = tv_index_settings(l.items[i])->number_of_shards;
        tv_index_unlock(l.items[i]);
        if (shards < 1) shards = 1;
        total += shards * tv_index_shard_total(l.items[i]);
        ok += shards;
    }
    tv_index_list_release(&l);
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "_shards");
    tv_write_shards(w, total, ok);
    tv_jw_obj_end(w);
}
