/*
 * h_snapshot.c — snapshot repositories and snapshots: PUT/GET/DELETE
 * /_snapshot/{repository}, POST .../_verify and .../_cleanup, PUT/POST/
 * GET/DELETE /_snapshot/{repository}/{snapshot}, GET /_snapshot/_status,
 * and _cat/snapshots and _cat/repositories.
 *
 * What is kept. Repositories (type fs, settings.location required; url
 * refused as read-only repositories OpenSearch would need a URL for) and
 * each snapshot's SnapshotInfo (name, uuid, indices, shard counts, times,
 * state SUCCESS) live in the node state as compact JSON
 * (tv_node_state.repositories / .snapshots), in memory: they are copied
 * with clones and lost at restart, and no index data is written to the
 * location. What a snapshot would let a user do with its data — restore,
 * clone, status of a finished snapshot's files — keeps answering 400
 * unsupported (router.c), so nothing claims a copy that does not exist.
 * Creation is instantaneous: with or without wait_for_completion the
 * snapshot is complete when the answer leaves ({"accepted":true} without).
 *
 * Errors are OpenSearch's: repository_missing_exception "[r] missing",
 * snapshot_missing_exception "[r:s] is missing", invalid_snapshot_name_
 * exception (name rules of SnapshotsService.validate, and "snapshot with
 * the same name already exists"), repository_exception for a bad type or
 * a missing location, index_not_found_exception for a named missing index
 * unless ignore_unavailable.
 *
 * Rejected: writing real snapshot files to the location. The blob layout
 * of OpenSearch's BlobStoreRepository is large, and a half-compatible
 * layout would be a plausible wrong answer for any tool that reads it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "api.h"
#include "cat_int.h"

static void ack(tv_req *r) {
    tv_jw *o = tv_req_json(r, 200);
    tv_jw_obj_begin(o);
    tv_jw_keyz(o, "acknowledged");
    tv_jw_bool(o, true);
    tv_jw_obj_end(o);
}

/* A state JSON text parsed into the arena (an empty object for NULL). */
static tv_json *parse_state(tv_req *r, const char *text) {
    tv_json *j = NULL;
    if (!text) text = "{}";
    if (tv_json_parse(&r->arena, text, strlen(text), &j, NULL) != TROVE_OK) {
        r->oom = true;
        return NULL;
    }
    return j;
}

/* Replaces a state text with the writer's output (caller holds the lock). */
static bool store_text(tv_req *r, char **slot, tv_buf *b) {
    char *t = b->oom ? NULL : tv_strndup(b->data, b->len);
    if (!t) return !(r->oom = true);
    tv_free(*slot);
    *slot = t;
    return true;
}

static bool repo_exists_locked(tv_req *r, const char *name) {
    tv_json *j = parse_state(r, r->node->st->repositories);
    return j && tv_json_get(j, name) != NULL;
}

static void fail_repo_missing(tv_req *r, const char *name) {
    tv_req_fail(r, TROVE_ENOREPOSITORY, "[%s] missing", name);
}

/* ---------------------------------------------------------- repositories */

/* PUT|POST /_snapshot/{repository} */
void tv_h_repository_put(tv_req *r) {
    bool verify;
    if (!tv_req_param_bool(r, "verify", true, &verify)) return;
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
    const char *name = r->p_name;
    const tv_json *type = tv_json_get(body, "type"), *settings = tv_json_get(body, "settings");
    if (!type || type->type != TV_JSON_STRING) {
        tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: 1: type is missing;");
        return;
    }
    if (settings && settings->type != TV_JSON_OBJECT) {
        tv_req_fail(r, TROVE_EPARSE, "Malformed [settings] section, should include an inner object");
        return;
    }
    if (strcmp(type->v.s, "fs") != 0) {
        tv_req_fail(r, TROVE_EREPOSITORY, "[%s] repository type [%s] does not exist", name, type->v.s);
        return;
    }
    tv_kv *kv;
    size_t nkv;
    if (!tv_flatten_settings(&r->arena, settings, false, &kv, &nkv)) {
        r->oom = true;
        return;
    }
    const char *loc = NULL;
    for (size_t i = 0; i < nkv; i++)
        if (strcmp(kv[i].key, "location") == 0 && kv[i].val && kv[i].val->type == TV_JSON_STRING) loc = kv[i].val->v.s;
    if (!loc || !*loc) {
        tv_req_fail(r, TROVE_EREPOSITORY, "[%s] missing location", name);
        return;
    }
    tv_json *sj = tv_kv_to_json(&r->arena, kv, nkv, true);
    if (!sj) {
        r->oom = true;
        return;
    }
    pthread_rwlock_wrlock(&r->node->lock);
    tv_json *cur = parse_state(r, r->node->st->repositories);
    bool ok = cur != NULL;
    if (ok) {
        tv_buf b;
        tv_buf_init(&b);
        tv_jw w;
        tv_jw_init(&w, &b, false);
        tv_jw_obj_begin(&w);
        bool replaced = false;
        for (uint32_t i = 0; i < cur->len; i++) {
            const tv_json_member *m = &cur->v.members[i];
            tv_jw_keyz(&w, m->key);
            if (strcmp(m->key, name) == 0) {
                replaced = true;
                tv_jw_obj_begin(&w);
                tv_jw_keyz(&w, "type");
                tv_jw_strz(&w, "fs");
                tv_jw_keyz(&w, "settings");
                tv_jw_value(&w, sj);
                tv_jw_obj_end(&w);
            } else {
                tv_jw_value(&w, &m->val);
            }
        }
        if (!replaced) {
            tv_jw_keyz(&w, name);
            tv_jw_obj_begin(&w);
            tv_jw_keyz(&w, "type");
            tv_jw_strz(&w, "fs");
            tv_jw_keyz(&w, "settings");
            tv_jw_value(&w, sj);
            tv_jw_obj_end(&w);
        }
        tv_jw_obj_end(&w);
        ok = store_text(r, &r->node->st->repositories, &b);
        tv_buf_fini(&b);
    }
    pthread_rwlock_unlock(&r->node->lock);
    if (ok) ack(r);
}

static bool name_hits(const char *const *names, size_t nn, const char *name) {
    if (nn == 0) return true;
    for (size_t i = 0; i < nn; i++)
        if (strcmp(names[i], "_all") == 0 || tv_simple_match(names[i], name, strlen(name))) return true;
    return false;
}

/* GET /_snapshot[/{repository}] */
void tv_h_repository_get(tv_req *r) {
    bool local;
    if (!tv_req_param_bool(r, "local", false, &local)) return;
    const char **names = NULL;
    size_t nn = r->p_name ? tv_split_commas(&r->arena, r->p_name, &names) : 0;
    pthread_rwlock_rdlock(&r->node->lock);
    tv_json *cur = parse_state(r, r->node->st->repositories);
    pthread_rwlock_unlock(&r->node->lock);
    if (!cur) return;
    /* a concrete name that matches nothing: repository_missing_exception */
    for (size_t i = 0; i < nn; i++) {
        if (strchr(names[i], '*') || strcmp(names[i], "_all") == 0) continue;
        if (!tv_json_get(cur, names[i])) {
            fail_repo_missing(r, names[i]);
            return;
        }
    }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    for (uint32_t i = 0; i < cur->len; i++) {
        if (!name_hits(names, nn, cur->v.members[i].key)) continue;
        tv_jw_keyz(w, cur->v.members[i].key);
        tv_jw_value(w, &cur->v.members[i].val);
    }
    tv_jw_obj_end(w);
}

/* DELETE /_snapshot/{repository}: its snapshots go with it (they were
 * only ever in memory). */
void tv_h_repository_delete(tv_req *r) {
    const char **names = NULL;
    size_t nn = tv_split_commas(&r->arena, r->p_name ? r->p_name : "", &names);
    pthread_rwlock_wrlock(&r->node->lock);
    tv_json *cur = parse_state(r, r->node->st->repositories), *snaps = parse_state(r, r->node->st->snapshots);
    bool ok = cur && snaps;
    size_t removed = 0;
    if (ok) {
        tv_buf b, sb;
        tv_buf_init(&b);
        tv_buf_init(&sb);
        tv_jw w, sw;
        tv_jw_init(&w, &b, false);
        tv_jw_init(&sw, &sb, false);
        tv_jw_obj_begin(&w);
        for (uint32_t i = 0; i < cur->len; i++) {
            if (nn && name_hits(names, nn, cur->v.members[i].key)) {
                removed++;
                continue;
            }
            tv_jw_keyz(&w, cur->v.members[i].key);
            tv_jw_value(&w, &cur->v.members[i].val);
        }
        tv_jw_obj_end(&w);
        tv_jw_obj_begin(&sw);
        for (uint32_t i = 0; i < snaps->len; i++) {
            if (nn && name_hits(names, nn, snaps->v.members[i].key)) continue;
            tv_jw_keyz(&sw, snaps->v.members[i].key);
            tv_jw_value(&sw, &snaps->v.members[i].val);
        }
        tv_jw_obj_end(&sw);
        bool wildcard = nn && strchr(r->p_name, '*');
        if (!removed && !wildcard) {
            ok = false;
            fail_repo_missing(r, r->p_name ? r->p_name : "");
        } else {
            ok = store_text(r, &r->node->st->repositories, &b) && store_text(r, &r->node->st->snapshots, &sb);
        }
        tv_buf_fini(&b);
        tv_buf_fini(&sb);
    }
    pthread_rwlock_unlock(&r->node->lock);
    if (ok) ack(r);
}

/* POST /_snapshot/{repository}/_verify */
void tv_h_repository_verify(tv_req *r) {
    pthread_rwlock_rdlock(&r->node->lock);
    bool exists = repo_exists_locked(r, r->p_name);
    pthread_rwlock_unlock(&r->node->lock);
    if (r->oom) return;
    if (!exists) return fail_repo_missing(r, r->p_name);
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "nodes");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, r->node->node_id);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "name");
    tv_jw_strz(w, r->node->st->node_name);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

/* POST /_snapshot/{repository}/_cleanup: nothing is ever left over. */
void tv_h_repository_cleanup(tv_req *r) {
    pthread_rwlock_rdlock(&r->node->lock);
    bool exists = repo_exists_locked(r, r->p_name);
    pthread_rwlock_unlock(&r->node->lock);
    if (r->oom) return;
    if (!exists) return fail_repo_missing(r, r->p_name);
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "results");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "deleted_bytes");
    tv_jw_int(w, 0);
    tv_jw_keyz(w, "deleted_blobs");
    tv_jw_int(w, 0);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

/* ------------------------------------------------------------ snapshots */

/* SnapshotsService.validate's name rules; NULL when valid. */
static const char *bad_snapshot_name(const char *s) {
    if (!*s) return "cannot be empty";
    if (strchr(s, '#')) return "must not contain '#'";
    if (s[0] == '_') return "must not start with '_'";
    for (const char *p = s; *p; p++)
        if (*p >= 'A' && *p <= 'Z') return "must be lowercase";
    for (const char *p = s; *p; p++)
        if (strchr("\\/*?\"<>| ,", *p)) return "must not contain the following characters [ , \", *, \\, <, |, ,, >, /, ?]";
    return NULL;
}

static int64_t version_id(void) {
    int maj = 0, min = 0, pat = 0;
    sscanf(TROVE_OPENSEARCH_VERSION, "%d.%d.%d", &maj, &min, &pat);
    return (int64_t)maj * 1000000 + min * 10000 + pat * 100 + 99;
}

/* The snapshots of one repository (a JSON array, or NULL). */
static const tv_json *repo_snaps(const tv_json *snaps, const char *repo) {
    const tv_json *a = snaps ? tv_json_get(snaps, repo) : NULL;
    return a && a->type == TV_JSON_ARRAY ? a : NULL;
}

static const char *snap_name(const tv_json *info) {
    const tv_json *n = tv_json_get(info, "snapshot");
    return n && n->type == TV_JSON_STRING ? n->v.s : "";
}

/* PUT|POST /_snapshot/{repository}/{snapshot} */
void tv_h_snapshot_create(tv_req *r) {
    bool wait;
    if (!tv_req_param_bool(r, "wait_for_completion", false, &wait)) return;
    const char *repo = r->p_name, *snap = r->p_name2;
    const tv_json *body = NULL;
    if (r->body_len) {
        body = tv_req_parse_body(r, TV_BODY_MAP);
        if (!body) return;
        if (body->type != TV_JSON_OBJECT) {
            tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
            return;
        }
        for (uint32_t i = 0; i < body->len; i++) {
            const char *k = body->v.members[i].key;
            if (strcmp(k, "indices") && strcmp(k, "ignore_unavailable") && strcmp(k, "include_global_state") &&
                strcmp(k, "partial") && strcmp(k, "metadata") && strcmp(k, "expand_wildcards") &&
                strcmp(k, "allow_no_indices") && strcmp(k, "feature_states")) {
                tv_req_fail(r, TROVE_EARG, "Unknown key for a VALUE_STRING in [%s].", k);
                return;
            }
        }
    }
    const char *why = bad_snapshot_name(snap);
    if (why) {
        tv_req_fail(r, TROVE_ESNAPSHOTNAME, "[%s:%s] Invalid snapshot name [%s], %s", repo, snap, snap, why);
        return;
    }
    const tv_json *ij = body ? tv_json_get(body, "indices") : NULL, *iu = body ? tv_json_get(body, "ignore_unavailable") : NULL,
                  *gs = body ? tv_json_get(body, "include_global_state") : NULL,
                  *md = body ? tv_json_get(body, "metadata") : NULL;
    bool ignore = iu && (iu->type == TV_JSON_TRUE || (iu->type == TV_JSON_STRING && strcmp(iu->v.s, "true") == 0));
    bool global = !(gs && (gs->type == TV_JSON_FALSE || (gs->type == TV_JSON_STRING && strcmp(gs->v.s, "false") == 0)));
    /* the index expression: a string or an array of names */
    const char *expr = NULL;
    if (ij && ij->type == TV_JSON_STRING) {
        expr = ij->v.s;
    } else if (ij && ij->type == TV_JSON_ARRAY) {
        tv_buf e;
        tv_buf_init(&e);
        for (uint32_t i = 0; i < ij->len; i++)
            if (ij->v.items[i].type == TV_JSON_STRING) tv_buf_printf(&e, "%s%s", e.len ? "," : "", ij->v.items[i].v.s);
        expr = e.oom ? NULL : tv_arena_strndup(&r->arena, e.data ? e.data : "", e.len);
        tv_buf_fini(&e);
        if (!expr) {
            r->oom = true;
            return;
        }
    }
    pthread_rwlock_rdlock(&r->node->lock);
    bool exists = repo_exists_locked(r, repo);
    pthread_rwlock_unlock(&r->node->lock);
    if (r->oom) return;
    if (!exists) return fail_repo_missing(r, repo);
    tv_resolve_opts o = {.ignore_unavailable = ignore,
                         .allow_no_indices = true,
                         .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED | TV_EXPAND_HIDDEN};
    tv_index_list l;
    if (!tv_node_resolve_ex(r, expr && *expr ? expr : NULL, &o, &l)) return;
    int64_t shards = 0;
    for (size_t i = 0; i < l.len; i++) shards += tv_api_index_shards(l.items[i], NULL);
    int64_t start = tv_now_ms(), end = tv_now_ms();
    char uuid[24];
    tv_node_new_uuid(uuid);
    char st[40], et[40];
    tv_api_format_date(start, st);
    tv_api_format_date(end, et);
    tv_buf ib;
    tv_buf_init(&ib);
    tv_jw iw;
    tv_jw_init(&iw, &ib, false);
    tv_jw_obj_begin(&iw);
    tv_jw_keyz(&iw, "snapshot");
    tv_jw_strz(&iw, snap);
    tv_jw_keyz(&iw, "uuid");
    tv_jw_strz(&iw, uuid);
    tv_jw_keyz(&iw, "version_id");
    tv_jw_int(&iw, version_id());
    tv_jw_keyz(&iw, "version");
    tv_jw_strz(&iw, TROVE_OPENSEARCH_VERSION);
    tv_jw_keyz(&iw, "remote_store_index_shallow_copy");
    tv_jw_bool(&iw, false);
    tv_jw_keyz(&iw, "indices");
    tv_jw_arr_begin(&iw);
    for (size_t i = 0; i < l.len; i++) tv_jw_strz(&iw, tv_index_name(l.items[i]));
    tv_jw_arr_end(&iw);
    tv_jw_keyz(&iw, "data_streams");
    tv_jw_arr_begin(&iw);
    tv_jw_arr_end(&iw);
    tv_jw_keyz(&iw, "include_global_state");
    tv_jw_bool(&iw, global);
    if (md && md->type == TV_JSON_OBJECT) {
        tv_jw_keyz(&iw, "metadata");
        tv_jw_value(&iw, md);
    }
    tv_jw_keyz(&iw, "state");
    tv_jw_strz(&iw, "SUCCESS");
    tv_jw_keyz(&iw, "start_time");
    tv_jw_strz(&iw, st);
    tv_jw_keyz(&iw, "start_time_in_millis");
    tv_jw_int(&iw, start);
    tv_jw_keyz(&iw, "end_time");
    tv_jw_strz(&iw, et);
    tv_jw_keyz(&iw, "end_time_in_millis");
    tv_jw_int(&iw, end);
    tv_jw_keyz(&iw, "duration_in_millis");
    tv_jw_int(&iw, end - start);
    tv_jw_keyz(&iw, "failures");
    tv_jw_arr_begin(&iw);
    tv_jw_arr_end(&iw);
    tv_jw_keyz(&iw, "shards");
    tv_jw_obj_begin(&iw);
    tv_jw_keyz(&iw, "total");
    tv_jw_int(&iw, shards);
    tv_jw_keyz(&iw, "failed");
    tv_jw_int(&iw, 0);
    tv_jw_keyz(&iw, "successful");
    tv_jw_int(&iw, shards);
    tv_jw_obj_end(&iw);
    tv_jw_obj_end(&iw);
    tv_index_list_release(&l);
    if (ib.oom) {
        tv_buf_fini(&ib);
        r->oom = true;
        return;
    }
    bool ok = true;
    pthread_rwlock_wrlock(&r->node->lock);
    tv_json *snaps = parse_state(r, r->node->st->snapshots);
    if (!snaps) ok = false;
    const tv_json *mine = ok ? repo_snaps(snaps, repo) : NULL;
    for (uint32_t i = 0; ok && mine && i < mine->len; i++)
        if (strcmp(snap_name(&mine->v.items[i]), snap) == 0) {
            ok = false;
            tv_req_fail(r, TROVE_ESNAPSHOTNAME,
                        "[%s:%s] Invalid snapshot name [%s], snapshot with the same name already exists", repo, snap,
                        snap);
        }
    if (ok) {
        tv_buf b;
        tv_buf_init(&b);
        tv_jw w;
        tv_jw_init(&w, &b, false);
        tv_jw_obj_begin(&w);
        bool added = false;
        for (uint32_t i = 0; i < snaps->len; i++) {
            const tv_json_member *m = &snaps->v.members[i];
            tv_jw_keyz(&w, m->key);
            if (strcmp(m->key, repo) == 0 && m->val.type == TV_JSON_ARRAY) {
                tv_jw_arr_begin(&w);
                for (uint32_t k = 0; k < m->val.len; k++) tv_jw_value(&w, &m->val.v.items[k]);
                tv_jw_raw(&w, ib.data, ib.len);
                tv_jw_arr_end(&w);
                added = true;
            } else {
                tv_jw_value(&w, &m->val);
            }
        }
        if (!added) {
            tv_jw_keyz(&w, repo);
            tv_jw_arr_begin(&w);
            tv_jw_raw(&w, ib.data, ib.len);
            tv_jw_arr_end(&w);
        }
        tv_jw_obj_end(&w);
        ok = store_text(r, &r->node->st->snapshots, &b);
        tv_buf_fini(&b);
    }
    pthread_rwlock_unlock(&r->node->lock);
    if (ok) {
        tv_jw *out = tv_req_json(r, 200);
        tv_jw_obj_begin(out);
        if (wait) {
            tv_jw_keyz(out, "snapshot");
            tv_jw_raw(out, ib.data, ib.len);
        } else {
            tv_jw_keyz(out, "accepted");
            tv_jw_bool(out, true);
        }
        tv_jw_obj_end(out);
    }
    tv_buf_fini(&ib);
}

/* Writes SnapshotInfo without the per-index details (verbose=false:
 * snapshot, uuid, indices, data_streams, state). */
static void write_info(tv_jw *w, const tv_json *info, bool verbose) {
    if (verbose) {
        tv_jw_value(w, info);
        return;
    }
    tv_jw_obj_begin(w);
    static const char *const keys[] = {"snapshot", "uuid", "indices", "data_streams", "state"};
    for (size_t i = 0; i < TV_ARRAY_LEN(keys); i++) {
        const tv_json *v = tv_json_get(info, keys[i]);
        if (!v) continue;
        tv_jw_keyz(w, keys[i]);
        tv_jw_value(w, v);
    }
    tv_jw_obj_end(w);
}

/* GET /_snapshot/{repository}/{snapshot} (names, wildcards, _all,
 * _current) */
void tv_h_snapshot_get(tv_req *r) {
    bool ignore, verbose;
    if (!tv_req_param_bool(r, "ignore_unavailable", false, &ignore)) return;
    if (!tv_req_param_bool(r, "verbose", true, &verbose)) return;
    const char *repo = r->p_name;
    const char **names = NULL;
    size_t nn = tv_split_commas(&r->arena, r->p_name2 ? r->p_name2 : "", &names);
    pthread_rwlock_rdlock(&r->node->lock);
    bool exists = repo_exists_locked(r, repo);
    tv_json *snaps = parse_state(r, r->node->st->snapshots);
    pthread_rwlock_unlock(&r->node->lock);
    if (r->oom || !snaps) return;
    if (!exists) return fail_repo_missing(r, repo);
    const tv_json *mine = repo_snaps(snaps, repo);
    if (!ignore)
        for (size_t i = 0; i < nn; i++) {
            if (strchr(names[i], '*') || strcmp(names[i], "_all") == 0 || strcmp(names[i], "_current") == 0)
                continue;
            bool found = false;
            for (uint32_t k = 0; mine && k < mine->len && !found; k++)
                found = strcmp(snap_name(&mine->v.items[k]), names[i]) == 0;
            if (!found) {
                tv_req_fail(r, TROVE_ENOSNAPSHOT, "[%s:%s] is missing", repo, names[i]);
                return;
            }
        }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "snapshots");
    tv_jw_arr_begin(w);
    for (uint32_t k = 0; mine && k < mine->len; k++) {
        const char *sn = snap_name(&mine->v.items[k]);
        bool hit = false;
        for (size_t i = 0; i < nn && !hit; i++)
            hit = strcmp(names[i], "_all") == 0 || tv_simple_match(names[i], sn, strlen(sn));
        if (hit) write_info(w, &mine->v.items[k], verbose);
    }
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
}

/* DELETE /_snapshot/{repository}/{snapshot} (comma list, wildcards) */
void tv_h_snapshot_delete(tv_req *r) {
    const char *repo = r->p_name;
    const char **names = NULL;
    size_t nn = tv_split_commas(&r->arena, r->p_name2 ? r->p_name2 : "", &names);
    bool ok = true;
    pthread_rwlock_wrlock(&r->node->lock);
    bool exists = repo_exists_locked(r, repo);
    tv_json *snaps = parse_state(r, r->node->st->snapshots);
    if (r->oom || !snaps) {
        ok = false;
    } else if (!exists) {
        ok = false;
        fail_repo_missing(r, repo);
    }
    const tv_json *mine = ok ? repo_snaps(snaps, repo) : NULL;
    for (size_t i = 0; ok && i < nn; i++) {
        if (strchr(names[i], '*') || strcmp(names[i], "_all") == 0) continue;
        bool found = false;
        for (uint32_t k = 0; mine && k < mine->len && !found; k++)
            found = strcmp(snap_name(&mine->v.items[k]), names[i]) == 0;
        if (!found) {
            ok = false;
            tv_req_fail(r, TROVE_ENOSNAPSHOT, "[%s:%s] is missing", repo, names[i]);
        }
    }
    if (ok) {
        tv_buf b;
        tv_buf_init(&b);
        tv_jw w;
        tv_jw_init(&w, &b, false);
        tv_jw_obj_begin(&w);
        for (uint32_t i = 0; i < snaps->len; i++) {
            const tv_json_member *m = &snaps->v.members[i];
            tv_jw_keyz(&w, m->key);
            if (strcmp(m->key, repo) != 0 || m->val.type != TV_JSON_ARRAY) {
                tv_jw_value(&w, &m->val);
                continue;
            }
            tv_jw_arr_begin(&w);
            for (uint32_t k = 0; k < m->val.len; k++) {
                const char *sn = snap_name(&m->val.v.items[k]);
                bool hit = false;
                for (size_t j = 0; j < nn && !hit; j++)
                    hit = strcmp(names[j], "_all") == 0 || tv_simple_match(names[j], sn, strlen(sn));
                if (!hit) tv_jw_value(&w, &m->val.v.items[k]);
            }
            tv_jw_arr_end(&w);
        }
        tv_jw_obj_end(&w);
        ok = store_text(r, &r->node->st->snapshots, &b);
        tv_buf_fini(&b);
    }
    pthread_rwlock_unlock(&r->node->lock);
    if (ok) ack(r);
}

/* GET /_snapshot/_status and /_snapshot/{repository}/_status: the
 * snapshots in progress, of which there are never any. */
void tv_h_snapshot_status(tv_req *r) {
    bool ignore;
    if (!tv_req_param_bool(r, "ignore_unavailable", false, &ignore)) return;
    if (r->p_name) {
        pthread_rwlock_rdlock(&r->node->lock);
        bool exists = repo_exists_locked(r, r->p_name);
        pthread_rwlock_unlock(&r->node->lock);
        if (r->oom) return;
        if (!exists) return fail_repo_missing(r, r->p_name);
    }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "snapshots");
    tv_jw_arr_begin(w);
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
}

/* ------------------------------------------------------------------ _cat */

static const tv_cat_col snapshot_cols[] = {
    {"id", "snapshot", "unique snapshot", false, true},
    {"status", "s", "snapshot name", false, true},
    {"start_epoch", "ste,startEpoch", "start time in seconds since 1970-01-01 00:00:00", false, true},
    {"start_time", "sti,startTime", "start time in HH:MM:SS", false, true},
    {"end_epoch", "ete,endEpoch", "end time in seconds since 1970-01-01 00:00:00", false, true},
    {"end_time", "eti,endTime", "end time in HH:MM:SS", false, true},
    {"duration", "dur", "duration", true, true},
    {"indices", "i", "number of indices", true, true},
    {"successful_shards", "ss", "number of successful shards", true, true},
    {"failed_shards", "fs", "number of failed shards", true, true},
    {"total_shards", "ts", "number of total shards", true, true},
    {"reason", "r", "reason for failures", false, true},
};

static int64_t json_int(const tv_json *o, const char *k) {
    const tv_json *v = o ? tv_json_get(o, k) : NULL;
    return v && v->type == TV_JSON_INT ? v->v.i : 0;
}

/* GET /_cat/snapshots[/{repository}] */
void tv_h_cat_snapshots(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    bool ignore;
    if (!tv_req_param_bool(r, "ignore_unavailable", false, &ignore)) return;
    const char *repo = r->p_name ? r->p_name : tv_req_param(r, "repository");
    pthread_rwlock_rdlock(&r->node->lock);
    bool exists = !repo || repo_exists_locked(r, repo);
    tv_json *snaps = parse_state(r, r->node->st->snapshots);
    pthread_rwlock_unlock(&r->node->lock);
    if (r->oom || !snaps) return;
    if (!exists) return fail_repo_missing(r, repo);
    tv_cat_table t = {.cols = snapshot_cols, .ncols = TV_ARRAY_LEN(snapshot_cols)};
    for (uint32_t i = 0; i < snaps->len && !r->oom; i++) {
        const tv_json_member *m = &snaps->v.members[i];
        if (repo && strcmp(m->key, repo) != 0) continue;
        for (uint32_t k = 0; m->val.type == TV_JSON_ARRAY && k < m->val.len && !r->oom; k++) {
            const tv_json *info = &m->val.v.items[k];
            if (!tv_cat_add_row(r, &t)) break;
            tv_cat_set_str(&t, 0, snap_name(info));
            const tv_json *state = tv_json_get(info, "state"), *ix = tv_json_get(info, "indices"),
                          *sh = tv_json_get(info, "shards");
            tv_cat_set_str(&t, 1, state && state->type == TV_JSON_STRING ? state->v.s : "");
            int64_t s = json_int(info, "start_time_in_millis"), e = json_int(info, "end_time_in_millis");
            tv_cat_set_epoch(r, &t, 2, 3, s);
            tv_cat_set_epoch(r, &t, 4, 5, e);
            tv_cat_set_time(r, &t, 6, e - s);
            tv_cat_set_num(r, &t, 7, ix && ix->type == TV_JSON_ARRAY ? ix->len : 0);
            tv_cat_set_num(r, &t, 8, json_int(sh, "successful"));
            tv_cat_set_num(r, &t, 9, json_int(sh, "failed"));
            tv_cat_set_num(r, &t, 10, json_int(sh, "total"));
        }
    }
    tv_cat_respond(r, &t);
}

static const tv_cat_col repository_cols[] = {
    {"id", "id,repoId", "unique repository id", false, true},
    {"type", "t,type", "repository type", false, true},
};

/* GET /_cat/repositories */
void tv_h_cat_repositories(tv_req *r) {
    if (!tv_cat_check_format(r)) return;
    pthread_rwlock_rdlock(&r->node->lock);
    tv_json *cur = parse_state(r, r->node->st->repositories);
    pthread_rwlock_unlock(&r->node->lock);
    if (!cur) return;
    tv_cat_table t = {.cols = repository_cols, .ncols = TV_ARRAY_LEN(repository_cols)};
    for (uint32_t i = 0; i < cur->len && !r->oom; i++) {
        if (!tv_cat_add_row(r, &t)) break;
        tv_cat_set_str(&t, 0, cur->v.members[i].key);
        const tv_json *ty = tv_json_get(&cur->v.members[i].val, "type");
        tv_cat_set_str(&t, 1, ty && ty->type == TV_JSON_STRING ? ty->v.s : "");
    }
    tv_cat_respond(r, &t);
}
