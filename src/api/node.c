/*
 * node.c — the node (indices by name) and trove_request().
 *
 * A node is a tv_map from index name to a retained tv_index, guarded by a
 * pthread rwlock: lookups take it shared and retain the index before
 * letting go, so a request keeps working on an index that a concurrent
 * DELETE removes (the index dies with its last reference). Creation and
 * deletion take it exclusive. A clone copies the table and clones each
 * index (tv_index_clone shares segments), so it costs O(indices).
 *
 * trove_request() builds a tv_req (arena, decoded target, parameters),
 * hands it to the router, and turns the response buffer into the public
 * trove_response. HEAD responses keep status and headers and drop the body,
 * as an HTTP server must. A request that runs out of memory answers
 * TROVE_ENOMEM with no body.
 *
 * Index expressions (a,b / wildcards / _all) are resolved here against the
 * table, sorted by name as OpenSearch's cluster metadata is.
 *
 * Identifiers: index and cluster uuids are 16 random bytes in URL-safe
 * base64 without padding (22 chars, OpenSearch's RandomBasedUUIDGenerator
 * shape); auto-generated document ids are 15 bytes of sequence + time +
 * node bytes in the same encoding (20 chars, the TimeBasedUUIDGenerator
 * shape), so ids sort roughly by creation time as OpenSearch's do.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>

#include "api.h"

/* -------------------------------------------------------------- ids */

static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static size_t b64_encode(const uint8_t *in, size_t n, char *out) {
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = b64url[v >> 18 & 63];
        out[o++] = b64url[v >> 12 & 63];
        out[o++] = b64url[v >> 6 & 63];
        out[o++] = b64url[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        out[o++] = b64url[v >> 18 & 63];
        out[o++] = b64url[v >> 12 & 63];
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        out[o++] = b64url[v >> 18 & 63];
        out[o++] = b64url[v >> 12 & 63];
        out[o++] = b64url[v >> 6 & 63];
    }
    out[o] = '\0';
    return o;
}

static void random_bytes(uint8_t *p, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = getrandom(p + got, n - got, GRND_NONBLOCK);
        if (k <= 0) break;
        got += (size_t)k;
    }
    if (got < n) { /* fall back to a clock-seeded xorshift */
        static _Atomic uint64_t state;
        uint64_t s = atomic_fetch_add(&state, 0x9E3779B97F4A7C15ull) ^ tv_mono_ns();
        for (; got < n; got++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            p[got] = (uint8_t)s;
        }
    }
}

void tv_api_new_uuid(char out[24]) {
    uint8_t b[16];
    random_bytes(b, sizeof b);
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    b64_encode(b, 16, out);
}

static _Atomic uint32_t id_seq;
static _Atomic int64_t id_last_ts;
static uint8_t id_node[6];
static pthread_once_t id_once = PTHREAD_ONCE_INIT;
static void id_init(void) {
    uint8_t s[4];
    random_bytes(id_node, sizeof id_node);
    random_bytes(s, sizeof s);
    atomic_store(&id_seq, (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16);
}

void tv_api_new_id(char out[24]) {
    pthread_once(&id_once, id_init);
    uint32_t seq = atomic_fetch_add(&id_seq, 1) + 1;
    seq &= 0xffffff;
    int64_t now = tv_now_ms(), last = atomic_load(&id_last_ts), ts;
    for (;;) { /* never go back in time, as OpenSearch's generator */
        ts = now > last ? now : last;
        if (seq == 0) ts = last + 1;
        if (atomic_compare_exchange_weak(&id_last_ts, &last, ts)) break;
    }
    uint8_t b[15];
    int i = 0;
    b[i++] = (uint8_t)seq;
    b[i++] = (uint8_t)(seq >> 16);
    b[i++] = (uint8_t)(ts >> 16);
    b[i++] = (uint8_t)(ts >> 24);
    b[i++] = (uint8_t)(ts >> 32);
    b[i++] = (uint8_t)(ts >> 40);
    memcpy(b + i, id_node, 6);
    i += 6;
    b[i++] = (uint8_t)(ts >> 8);
    b[i++] = (uint8_t)(seq >> 8);
    b[i++] = (uint8_t)ts;
    b64_encode(b, 15, out);
}

/* ------------------------------------------------------------- node */

trove_node *trove_node_open(const trove_options *opts, trove_error *err) {
    if (opts && opts->data_dir) {
        if (err) {
            err->code = TROVE_EUNSUPPORTED;
            err->pos = SIZE_MAX;
            snprintf(err->message, sizeof err->message, "data_dir is not supported yet");
        }
        return NULL;
    }
    trove_node *n = tv_calloc(1, sizeof *n);
    if (!n) goto oom;
    tv_map_init(&n->indices);
    const char *nn = opts && opts->node_name ? opts->node_name : "trove";
    const char *cn = opts && opts->cluster_name ? opts->cluster_name : "trove";
    n->node_name = tv_strndup(nn, strlen(nn));
    n->cluster_name = tv_strndup(cn, strlen(cn));
    if (!n->node_name || !n->cluster_name) goto oom;
    if (pthread_rwlock_init(&n->lock, NULL) != 0) goto oom;
    tv_api_new_uuid(n->cluster_uuid);
    tv_api_new_uuid(n->node_id);
    return n;
oom:
    if (n) {
        tv_free(n->node_name);
        tv_free(n->cluster_name);
        tv_map_fini(&n->indices);
        tv_free(n);
    }
    if (err) {
        err->code = TROVE_ENOMEM;
        err->pos = SIZE_MAX;
        snprintf(err->message, sizeof err->message, "out of memory");
    }
    return NULL;
}

void trove_node_free(trove_node *n) {
    if (!n) return;
    size_t it = 0;
    const char *k;
    size_t kl;
    void *v;
    while (tv_map_next(&n->indices, &it, &k, &kl, &v)) tv_index_release(v);
    tv_map_fini(&n->indices);
    pthread_rwlock_destroy(&n->lock);
    tv_free(n->node_name);
    tv_free(n->cluster_name);
    tv_free(n);
}

trove_node *trove_node_clone(trove_node *src, trove_error *err) {
    if (!src) return NULL;
    trove_options o = {0};
    o.node_name = src->node_name;
    o.cluster_name = src->cluster_name;
    trove_node *n = trove_node_open(&o, err);
    if (!n) return NULL;
    memcpy(n->cluster_uuid, src->cluster_uuid, sizeof n->cluster_uuid);
    tv_error e;
    tv_error_clear(&e);
    pthread_rwlock_rdlock(&src->lock);
    size_t it = 0;
    const char *k;
    size_t kl;
    void *v;
    bool ok = true;
    while (ok && tv_map_next(&src->indices, &it, &k, &kl, &v)) {
        tv_index *c = tv_index_clone(v, &e);
        if (!c) {
            ok = false;
            break;
        }
        if (tv_map_put(&n->indices, k, kl, c, NULL) != TROVE_OK) {
            tv_index_release(c);
            tv_error_set(&e, TROVE_ENOMEM, "out of memory");
            ok = false;
        }
    }
    pthread_rwlock_unlock(&src->lock);
    if (!ok) {
        if (e.code == TROVE_OK) tv_error_set(&e, TROVE_ENOMEM, "out of memory");
        tv_error_to_public(&e, err);
        trove_node_free(n);
        return NULL;
    }
    return n;
}

tv_index *tv_node_get_index(trove_node *n, const char *name) {
    pthread_rwlock_rdlock(&n->lock);
    tv_index *idx = tv_map_get(&n->indices, name, strlen(name));
    if (idx) tv_index_retain(idx);
    pthread_rwlock_unlock(&n->lock);
    return idx;
}

bool tv_node_get_index_peek(trove_node *n, const char *name) {
    pthread_rwlock_rdlock(&n->lock);
    bool has = tv_map_has(&n->indices, name, strlen(name));
    pthread_rwlock_unlock(&n->lock);
    return has;
}

const char *tv_index_name_invalid(const char *name, tv_arena *a) {
    size_t len = strlen(name);
    for (const char *p = name; *p; p++)
        if (strchr("\\/*?\"<>| ,", *p))
            return "must not contain the following characters [ , \", *, \\, <, |, ,, >, /, ?]";
    if (len == 0) return "must not be empty";
    if (strchr(name, '#')) return "must not contain '#'";
    if (strchr(name, ':')) return "must not contain ':'";
    if (name[0] == '_' || name[0] == '-' || name[0] == '+') return "must not start with '_', '-', or '+'";
    if (len > 255) {
        const char *m = tv_arena_sprintf(a, "index name is too long, (%zu > 255)", len);
        return m ? m : "index name is too long";
    }
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) return "must not be '.' or '..'";
    /* Java's toLowerCase(Locale.ROOT): ASCII upper case is what we check;
     * non-ASCII upper case letters would need Unicode tables */
    for (const char *p = name; *p; p++)
        if (*p >= 'A' && *p <= 'Z') return "must be lowercase";
    return NULL;
}

tv_index *tv_node_index_for_write(tv_req *r, const char *name) {
    tv_index *idx = tv_node_get_index(r->node, name);
    if (idx) return idx;
    /* auto-create (action.auto_create_index: true) */
    const char *bad = tv_index_name_invalid(name, &r->arena);
    if (bad) {
        tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
        if (!e) {
            r->oom = true;
            return NULL;
        }
        e->type = "invalid_index_name_exception";
        e->reason = tv_arena_sprintf(&r->arena, "Invalid index name [%s], %s", name, bad);
        e->os = true;
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
    idx = tv_map_get(&r->node->indices, name, strlen(name));
    if (idx) {
        tv_index_retain(idx);
        pthread_rwlock_unlock(&r->node->lock);
        return idx;
    }
    tv_error err;
    tv_error_clear(&err);
    idx = tv_index_new(name, NULL, NULL, &err);
    if (!idx) {
        pthread_rwlock_unlock(&r->node->lock);
        if (err.code == TROVE_ENOMEM || err.code == TROVE_OK)
            r->oom = true;
        else
            tv_req_fail_tv(r, &err, NULL);
        return NULL;
    }
    if (tv_map_put(&r->node->indices, name, strlen(name), idx, NULL) != TROVE_OK) {
        pthread_rwlock_unlock(&r->node->lock);
        tv_index_release(idx);
        r->oom = true;
        return NULL;
    }
    tv_index_retain(idx);
    pthread_rwlock_unlock(&r->node->lock);
    return idx;
}

/* ------------------------------------------------------- resolution */

static int cmp_index_name(const void *a, const void *b) {
    return strcmp(tv_index_name(*(tv_index *const *)a), tv_index_name(*(tv_index *const *)b));
}

void tv_index_list_release(tv_index_list *l) {
    for (size_t i = 0; i < l->len; i++) tv_index_release(l->items[i]);
    tv_free(l->items);
    l->items = NULL;
    l->len = 0;
}

static bool list_has(const tv_index_list *l, const tv_index *idx) {
    for (size_t i = 0; i < l->len; i++)
        if (l->items[i] == idx) return true;
    return false;
}

static bool list_add(tv_index_list *l, size_t *cap, tv_index *idx) {
    if (list_has(l, idx)) return true;
    if (l->len == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        tv_index **ni = tv_realloc(l->items, nc * sizeof *ni);
        if (!ni) return false;
        l->items = ni;
        *cap = nc;
    }
    l->items[l->len++] = tv_index_retain(idx);
    return true;
}

bool tv_node_resolve(tv_req *r, const char *expr, bool ignore_unavailable, bool allow_no_indices,
                     tv_index_list *out) {
    out->items = NULL;
    out->len = 0;
    size_t cap = 0;
    const char **parts = NULL;
    size_t nparts = 0;
    if (expr && *expr) nparts = tv_split_commas(&r->arena, expr, &parts);
    if (expr && *expr && !parts) {
        r->oom = true;
        return false;
    }
    bool all = nparts == 0 || (nparts == 1 && (strcmp(parts[0], "_all") == 0 || strcmp(parts[0], "*") == 0));
    pthread_rwlock_rdlock(&r->node->lock);
    size_t it;
    const char *k;
    size_t kl;
    void *v;
    bool ok = true;
    const char *missing = NULL;
    if (all) {
        it = 0;
        while (ok && tv_map_next(&r->node->indices, &it, &k, &kl, &v)) ok = list_add(out, &cap, v);
    } else {
        for (size_t i = 0; ok && i < nparts; i++) {
            const char *p = parts[i];
            if (strchr(p, '*')) {
                it = 0;
                while (ok && tv_map_next(&r->node->indices, &it, &k, &kl, &v))
                    if (tv_simple_match(p, k, kl)) ok = list_add(out, &cap, v);
            } else {
                tv_index *idx = tv_map_get(&r->node->indices, p, strlen(p));
                if (idx)
                    ok = list_add(out, &cap, idx);
                else if (!ignore_unavailable && !missing)
                    missing = p;
            }
        }
    }
    pthread_rwlock_unlock(&r->node->lock);
    if (!ok) {
        tv_index_list_release(out);
        r->oom = true;
        return false;
    }
    if (missing) {
        tv_index_list_release(out);
        tv_api_err *e = tv_api_err_no_index(r, missing);
        if (e) tv_req_error(r, e);
        return false;
    }
    if (out->len == 0 && !allow_no_indices) {
        const char *name = expr && *expr ? expr : "_all";
        tv_api_err *e = tv_api_err_no_index(r, name);
        if (e) tv_req_error(r, e);
        return false;
    }
    if (out->len > 1) qsort(out->items, out->len, sizeof *out->items, cmp_index_name);
    return true;
}

int64_t tv_index_shard_total(tv_index *idx) {
    tv_index_lock(idx);
    tv_settings *s = tv_index_settings(idx);
    int64_t total = s ? (int64_t)s->number_of_replicas + 1 : 2;
    tv_index_unlock(idx);
    return total;
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

int trove_request(trove_node *node, const char *method, const char *path_and_query, const void *body,
                  size_t body_len, trove_response *out) {
    if (!out) return TROVE_EARG;
    memset(out, 0, sizeof *out);
    if (!node || !method || !path_and_query || (!body && body_len)) return TROVE_EARG;
    tv_req r;
    memset(&r, 0, sizeof r);
    r.node = node;
    tv_arena_init(&r.arena);
    tv_buf_init(&r.out);
    r.method = TV_METHOD_COUNT;
    for (int i = 0; i < TV_METHOD_COUNT; i++)
        if (strcmp(method, method_names[i]) == 0) r.method = (tv_method)i;
    r.uri = path_and_query;
    r.body = body_len ? body : NULL;
    r.body_len = body_len;
    tv_api_dispatch(&r);
    int rc = TROVE_OK;
    if (r.oom || r.out.oom) {
        rc = TROVE_ENOMEM;
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

void trove_response_fini(trove_response *r) {
    if (!r) return;
    tv_free(r->body);
    tv_free(r->allow);
    r->body = NULL;
    r->allow = NULL;
    r->body_len = 0;
}
