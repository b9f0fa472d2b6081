/*
 * h_index.c — node and index-level endpoints: GET|HEAD / (the banner),
 * PUT|GET|HEAD|DELETE /{index}, GET|PUT /{index}/_mapping,
 * GET /{index}/_settings, and _refresh.
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
    tv_jw_strz(w, r->node->node_name);
    tv_jw_keyz(w, "cluster_name");
    tv_jw_strz(w, r->node->cluster_name);
    tv_jw_keyz(w, "cluster_uuid");
    tv_jw_strz(w, r->node->cluster_uuid);
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
    e->type = "invalid_index_name_exception";
    e->reason = tv_arena_sprintf(&r->arena, "Invalid index name [%s], %s", name, why);
    e->os = true;
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

/* Options shared by the multi-index read APIs. */
static bool resolve_opts(tv_req *r, bool *ignore_unavailable, bool *allow_no_indices) {
    if (!tv_req_param_bool(r, "ignore_unavailable", false, ignore_unavailable)) return false;
    if (!tv_req_param_bool(r, "allow_no_indices", true, allow_no_indices)) return false;
    const char *ew = tv_req_param(r, "expand_wildcards");
    if (ew && strcmp(ew, "open") != 0 && strcmp(ew, "all") != 0 && strcmp(ew, "open,closed") != 0 &&
        strcmp(ew, "none") != 0)
        return tv_req_fail(r, 400, "unsupported_operation_exception", false,
                           "trove does not support expand_wildcards [%s]", ew);
    return true;
}

/* --------------------------------------------------------- PUT /{index} */

void tv_h_index_create(tv_req *r) {
    const char *name = r->p_index;
    const tv_json *body = tv_req_parse_body(r, TV_BODY_MAP);
    if (!body && r->body_len) return;
    const tv_json *settings = NULL, *mappings = NULL;
    if (body) {
        if (body->type != TV_JSON_OBJECT) {
            tv_req_fail(r, 400, "parse_exception", true, "Failed to parse content to map");
            return;
        }
        for (uint32_t i = 0; i < body->len; i++) {
            const tv_json_member *m = &body->v.members[i];
            if (tv_streq(m->key, m->key_len, "settings")) {
                settings = &m->val;
            } else if (tv_streq(m->key, m->key_len, "mappings")) {
                mappings = &m->val;
            } else if (tv_streq(m->key, m->key_len, "aliases")) {
                if (m->val.type == TV_JSON_OBJECT && m->val.len > 0) {
                    tv_req_fail(r, 400, "unsupported_operation_exception", false,
                                "trove does not support index aliases yet");
                    return;
                }
            } else {
                tv_req_fail(r, 400, "parse_exception", true, "unknown key [%s] for create index", m->key);
                return;
            }
        }
        if (mappings && mappings->type == TV_JSON_OBJECT && mappings->len == 1 &&
            tv_streq(mappings->v.members[0].key, mappings->v.members[0].key_len, "_doc")) {
            tv_req_fail(r, 400, "illegal_argument_exception", false,
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
    tv_index *old = tv_map_get(&r->node->indices, name, strlen(name));
    if (old) {
        tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
        if (e) {
            e->type = "resource_already_exists_exception";
            e->reason = tv_arena_sprintf(&r->arena, "index [%s/%s] already exists", name, tv_index_uuid(old));
            e->os = true;
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
    tv_error err;
    tv_error_clear(&err);
    tv_index *idx = tv_index_new(name, settings, mappings, &err);
    if (!idx) {
        pthread_rwlock_unlock(&r->node->lock);
        if (err.code == TROVE_ENOMEM || err.code == TROVE_OK)
            r->oom = true;
        else
            tv_req_fail_tv(r, &err, NULL);
        return;
    }
    if (tv_map_put(&r->node->indices, name, strlen(name), idx, NULL) != TROVE_OK) {
        pthread_rwlock_unlock(&r->node->lock);
        tv_index_release(idx);
        r->oom = true;
        return;
    }
    pthread_rwlock_unlock(&r->node->lock);
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
    bool iu, ani, flat, defaults;
    if (!resolve_opts(r, &iu, &ani)) return;
    if (!tv_req_param_bool(r, "flat_settings", false, &flat)) return;
    if (!tv_req_param_bool(r, "include_defaults", false, &defaults)) return;
    if (defaults)
        return (void)tv_req_fail(r, 400, "unsupported_operation_exception", false,
                                 "trove does not support include_defaults");
    tv_index_list l;
    if (!tv_node_resolve(r, r->p_index, iu, ani, &l)) return;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    for (size_t i = 0; i < l.len; i++) {
        tv_jw_keyz(w, tv_index_name(l.items[i]));
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "aliases");
        tv_jw_obj_begin(w);
        tv_jw_obj_end(w);
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
    bool iu, ani;
    if (!resolve_opts(r, &iu, &ani)) return;
    tv_index_list l;
    if (!tv_node_resolve(r, r->p_index, iu, false, &l)) {
        if (!r->oom) tv_req_empty(r, 404);
        return;
    }
    tv_index_list_release(&l);
    tv_req_empty(r, 200);
}

/* ------------------------------------------------------ DELETE /{index} */

void tv_h_index_delete(tv_req *r) {
    bool iu, ani;
    if (!resolve_opts(r, &iu, &ani)) return;
    tv_index_list l;
    if (!tv_node_resolve(r, r->p_index, iu, true, &l)) return;
    pthread_rwlock_wrlock(&r->node->lock);
    for (size_t i = 0; i < l.len; i++) {
        const char *name = tv_index_name(l.items[i]);
        tv_index *cur = tv_map_get(&r->node->indices, name, strlen(name));
        if (cur == l.items[i]) {
            tv_map_del(&r->node->indices, name, strlen(name));
            tv_index_release(cur);
        }
    }
    pthread_rwlock_unlock(&r->node->lock);
    tv_index_list_release(&l);
    write_ack(r);
}

/* ------------------------------------------------------------- mappings */

void tv_h_mapping_get(tv_req *r) {
    bool iu, ani;
    if (!resolve_opts(r, &iu, &ani)) return;
    tv_index_list l;
    if (!tv_node_resolve(r, r->p_index, iu, true, &l)) return;
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
    bool iu, ani;
    if (!resolve_opts(r, &iu, &ani)) return;
    if (!r->body_len) {
        tv_req_fail(r, 400, "parse_exception", true, "request body is required");
        return;
    }
    const tv_json *body = tv_req_parse_body(r, TV_BODY_MAP);
    if (!body) return;
    if (body->type != TV_JSON_OBJECT) {
        tv_req_fail(r, 400, "parse_exception", true, "Failed to parse content to map");
        return;
    }
    tv_index_list l;
    if (!tv_node_resolve(r, r->p_index, iu, ani, &l)) return;
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

void tv_h_settings_get(tv_req *r) {
    bool iu, ani, flat, defaults;
    if (!resolve_opts(r, &iu, &ani)) return;
    if (!tv_req_param_bool(r, "flat_settings", false, &flat)) return;
    if (!tv_req_param_bool(r, "include_defaults", false, &defaults)) return;
    if (defaults)
        return (void)tv_req_fail(r, 400, "unsupported_operation_exception", false,
                                 "trove does not support include_defaults");
    tv_index_list l;
    if (!tv_node_resolve(r, r->p_index, iu, true, &l)) return;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    for (size_t i = 0; i < l.len; i++) {
        tv_jw_keyz(w, tv_index_name(l.items[i]));
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "settings");
        write_settings_of(w, l.items[i], flat);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_index_list_release(&l);
}

/* -------------------------------------------------------------- refresh */

void tv_h_refresh(tv_req *r) {
    bool iu, ani;
    if (!resolve_opts(r, &iu, &ani)) return;
    tv_index_list l;
    if (!tv_node_resolve(r, r->p_index, iu, true, &l)) return;
    int64_t total = 0, ok = 0;
    for (size_t i = 0; i < l.len; i++) {
        if (tv_index_refresh(l.items[i]) == TROVE_ENOMEM) {
            r->oom = true;
            tv_index_list_release(&l);
            return;
        }
        total += tv_index_shard_total(l.items[i]);
        ok++;
    }
    tv_index_list_release(&l);
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "_shards");
    tv_write_shards(w, total, ok);
    tv_jw_obj_end(w);
}
