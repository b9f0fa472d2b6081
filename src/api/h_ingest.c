/*
 * h_ingest.c — the ingest API: PUT, GET and DELETE _ingest/pipeline/{id}
 * and _simulate.
 *
 * Pipelines are cluster state (OpenSearch's IngestMetadata): the node's
 * state keeps them as one compact JSON object {"id": configuration, ...}
 * (node.h, tv_node_state.pipelines), copied with the state when a clone
 * writes and kept in node.json. A PUT reads the whole configuration into
 * processors first (ingest.c), so an unknown processor type, a missing
 * required property or a script that does not compile is refused then,
 * with ConfigurationUtils' parse_exception and its processor_type,
 * processor_tag and property_name; only a valid configuration is stored,
 * as given. GET prints configurations as stored (ids and wildcards, in
 * the HashMap order of their ids when all are listed, 404 {} when none
 * matched); DELETE takes a wildcard.
 *
 * Alternatives rejected: a sorted array of (id, configuration) like the
 * stored scripts (the node's state would need a type and copy code for
 * what is only ever read whole, per request, as JSON).
 */
#include <stdio.h>

#include "api.h"
#include "query/parse.h"

static void ack(tv_req *r) {
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "acknowledged");
    tv_jw_bool(w, true);
    tv_jw_obj_end(w);
}

/* The stored pipelines, parsed in the arena (an empty object when none);
 * NULL out of memory. */
static const tv_json *all_pipelines(tv_req *r) {
    pthread_rwlock_rdlock(&r->node->lock);
    const char *all = r->node->st->pipelines;
    char *copy = tv_arena_strndup(&r->arena, all ? all : "{}", strlen(all ? all : "{}"));
    pthread_rwlock_unlock(&r->node->lock);
    if (!copy) return r->oom = true, NULL;
    tv_json *j;
    if (tv_json_parse(&r->arena, copy, strlen(copy), &j, NULL) != TROVE_OK || j->type != TV_JSON_OBJECT) {
        r->oom = true;
        return NULL;
    }
    return j;
}

/* Replaces the stored set: members of `all` except `drop` (matching it as
 * a pattern when wildcard), plus (id, conf) when id is given. */
static bool store(tv_req *r, const char *drop, bool wildcard, const char *id, const tv_json *conf, size_t *ndropped) {
    *ndropped = 0;
    /* read, change and write under the write lock: two PUTs at once must
     * not lose one */
    pthread_rwlock_wrlock(&r->node->lock);
    const char *cur = r->node->st->pipelines;
    tv_arena a;
    tv_arena_init(&a);
    tv_json *j = NULL;
    bool ok = true;
    if (cur && tv_json_parse(&a, cur, strlen(cur), &j, NULL) != TROVE_OK) ok = false;
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_obj_begin(&w);
    bool replaced = false;
    size_t n = 0;
    for (uint32_t i = 0; ok && j && i < j->len; i++) {
        const tv_json_member *m = &j->v.members[i];
        bool gone = drop && (wildcard ? tv_simple_match(drop, m->key, m->key_len) : strcmp(drop, m->key) == 0);
        if (gone) {
            (*ndropped)++;
            continue;
        }
        tv_jw_key(&w, m->key, m->key_len);
        if (id && strcmp(id, m->key) == 0) {
            tv_jw_value(&w, conf);
            replaced = true;
        } else {
            tv_jw_value(&w, &m->val);
        }
        n++;
    }
    if (id && !replaced) {
        tv_jw_keyz(&w, id);
        tv_jw_value(&w, conf);
        n++;
    }
    tv_jw_obj_end(&w);
    char *next = NULL;
    if (ok && !b.oom && n) {
        next = tv_strndup(b.data, b.len);
        if (!next) ok = false;
    }
    if (b.oom) ok = false;
    if (ok) {
        tv_free(r->node->st->pipelines);
        r->node->st->pipelines = next;
    }
    pthread_rwlock_unlock(&r->node->lock);
    tv_buf_fini(&b);
    tv_arena_fini(&a);
    if (!ok) r->oom = true;
    return ok;
}

void tv_h_ingest_put(tv_req *r) {
    const char *id = r->p_id;
    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body && r->body_len) return;
    if (!body) return (void)tv_req_fail(r, TROVE_EPARSEEXC, "request body is required");
    if (body->type != TV_JSON_OBJECT)
        return (void)tv_req_fail(r, TROVE_EPARSE, "unexpected token [%s], expected [{]", tv_dsl_token_name(body));
    tv_ingest *g = tv_ingest_new(r);
    if (!g) return;
    tv_api_err *err = NULL;
    bool ok = tv_ingest_validate(g, id, body, &err);
    tv_ingest_free(g);
    if (r->oom) return;
    if (!ok) {
        if (err) tv_req_error(r, err);
        return;
    }
    size_t nd;
    if (!store(r, NULL, false, id, body, &nd)) return;
    ack(r);
}

void tv_h_ingest_get(tv_req *r) {
    const tv_json *all = all_pipelines(r);
    if (!all) return;
    const char *ids = r->p_id;
    /* no id, or "*" and "_all" patterns: every pipeline, in the HashMap
     * order of the ids (IngestMetadata's map) */
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, r->pretty);
    tv_jw_obj_begin(&w);
    size_t found = 0;
    const char **names = tv_arena_calloc(&r->arena, all->len + 1, sizeof *names);
    uint32_t *order = tv_arena_calloc(&r->arena, all->len + 1, sizeof *order);
    if (!names || !order) {
        tv_buf_fini(&b);
        r->oom = true;
        return;
    }
    for (uint32_t i = 0; i < all->len; i++) names[i] = all->v.members[i].key;
    tv_java_hashmap_order(names, all->len, order);
    if (!ids || !*ids) {
        for (uint32_t i = 0; i < all->len; i++) {
            const tv_json_member *m = &all->v.members[order[i]];
            tv_jw_key(&w, m->key, m->key_len);
            tv_jw_value(&w, &m->val);
            found++;
        }
    } else {
        const char *p = ids;
        while (*p) {
            const char *c = strchr(p, ',');
            size_t n = c ? (size_t)(c - p) : strlen(p);
            char *one = tv_arena_strndup(&r->arena, p, n);
            if (!one) {
                r->oom = true;
                break;
            }
            if (strchr(one, '*')) {
                for (uint32_t i = 0; i < all->len; i++) {
                    const tv_json_member *m = &all->v.members[order[i]];
                    if (!tv_simple_match(one, m->key, m->key_len)) continue;
                    tv_jw_key(&w, m->key, m->key_len);
                    tv_jw_value(&w, &m->val);
                    found++;
                }
            } else {
                const tv_json *v = tv_json_get(all, one);
                if (v) {
                    tv_jw_keyz(&w, one);
                    tv_jw_value(&w, v);
                    found++;
                }
            }
            if (!c) break;
            p = c + 1;
        }
    }
    tv_jw_obj_end(&w);
    if (b.oom) r->oom = true;
    if (!r->oom) {
        tv_jw *rw = tv_req_json(r, found || !ids ? 200 : 404);
        if (found || !ids)
            tv_jw_raw(rw, b.data, b.len);
        else {
            tv_jw_obj_begin(rw);
            tv_jw_obj_end(rw);
        }
    }
    tv_buf_fini(&b);
}

void tv_h_ingest_delete(tv_req *r) {
    const char *id = r->p_id;
    bool wildcard = strchr(id, '*') != NULL;
    size_t nd;
    if (!store(r, id, wildcard, NULL, NULL, &nd)) return;
    /* IngestService.innerDelete: nothing matched is an error, but for a
     * match-all pattern */
    if (nd == 0 && strcmp(id, "*") != 0)
        return (void)tv_req_fail(r, TROVE_ENOTFOUND, "pipeline [%s] is missing", id);
    ack(r);
}

void tv_h_ingest_simulate(tv_req *r) {
    bool verbose;
    if (!tv_req_param_bool(r, "verbose", false, &verbose)) return;
    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body && r->body_len) return;
    tv_ingest *g = tv_ingest_new(r);
    if (!g) return;
    tv_ingest_simulate(g, r->p_id, body, verbose);
    tv_ingest_free(g);
}
