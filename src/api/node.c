/*
 * node.c — the node (indices by name) and trove_request().
 *
 * A node's state (tv_node_state: a tv_map from index name to a retained
 * tv_index, plus aliases, templates, closed marks, cluster settings) is
 * guarded by the node's pthread rwlock: lookups take it shared and retain
 * the index before letting go, so a request keeps working on an index that
 * a concurrent DELETE removes (the index dies with its last reference).
 * Creation and deletion take it exclusive.
 *
 * Clones are copy-on-write on the whole state. trove_node_clone makes a
 * node around a new reference to the source's state: O(1), no allocation
 * but the node. The state's reference count is the number of nodes using
 * it plus the requests pinned on it; trove_request pins the state for its
 * duration when it is shared as the request begins. Before a handler that
 * changes state (tv_handler_writes), tv_node_own_state gives the node a
 * copy (every index cloned by tv_index_clone, which shares segments; the
 * metadata copied) unless the count shows only this node and this
 * request's pin, so nobody can observe a write into a state another node
 * or another node's request still reads. Invariant that makes this enough:
 * a state becomes shared only while no request runs on its node (the
 * clone takes the node's lock exclusively and checks `inflight`; with
 * requests in flight, which might be writing, the clone copies at once).
 * Rejected: copying at clone time (5,000 instructions per index, paid by
 * every test's clone even when it only reads) and per-index sharing (the
 * table entry would need its own owner count; left for when fixtures with
 * many indices make the first write's O(indices) show).
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

/* A clone's node id without a system call: 16 bytes mixed (splitmix64)
 * from the source's id and a process-wide counter, in the uuid shape.
 * Node ids only need to differ between the nodes of a process. */
static void derive_node_id(const char *src_id, char out[24]) {
    static _Atomic uint64_t counter;
    uint64_t h = 0x9E3779B97F4A7C15ull * (atomic_fetch_add(&counter, 1) + 1);
    for (const char *p = src_id; *p; p++) h = (h ^ (uint8_t)*p) * 0x100000001B3ull;
    uint8_t b[16];
    for (int half = 0; half < 2; half++) {
        uint64_t z = (h += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        memcpy(b + 8 * half, &z, 8);
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    b64_encode(b, 16, out);
}

static tv_node_state *state_new(void) {
    tv_node_state *st = tv_calloc(1, sizeof *st);
    if (!st) return NULL;
    atomic_init(&st->rc, 1);
    tv_map_init(&st->indices);
    tv_map_init(&st->closed);
    return st;
}

static void state_release(tv_node_state *st) {
    if (!st || atomic_fetch_sub_explicit(&st->rc, 1, memory_order_acq_rel) != 1) return;
    size_t it = 0;
    const char *k;
    size_t kl;
    void *v;
    while (tv_map_next(&st->indices, &it, &k, &kl, &v)) tv_index_release(v);
    tv_map_fini(&st->indices);
    tv_map_fini(&st->closed);
    for (size_t i = 0; i < st->naliases; i++) tv_alias_fini(&st->aliases[i]);
    tv_free(st->aliases);
    for (size_t i = 0; i < st->ntemplates; i++) {
        tv_free(st->templates[i].name);
        tv_free(st->templates[i].body);
    }
    tv_free(st->templates);
    tv_free(st->cluster_persistent);
    tv_free(st->cluster_transient);
    tv_free(st->node_name);
    tv_free(st->cluster_name);
    tv_free(st);
}

/* A node around a state (one reference taken over), with its own id. */
/* A node around st; brk: the breakers to share (a clone's base's), or
 * NULL for new ones over heap bytes. */
static trove_node *node_new(tv_node_state *st, const char *src_id, tv_node_breakers *brk, int64_t heap) {
    trove_node *n = tv_calloc(1, sizeof *n);
    if (!n) return NULL;
    if (brk) {
        atomic_fetch_add(&brk->rc, 1);
    } else if ((brk = tv_calloc(1, sizeof *brk)) != NULL) {
        atomic_init(&brk->rc, 1);
        tv_breakers_init(&brk->b, heap);
    }
    n->brk = brk;
    if (!brk || pthread_rwlock_init(&n->lock, NULL) != 0) {
        if (brk && atomic_fetch_sub(&brk->rc, 1) == 1) tv_free(brk);
        tv_free(n);
        return NULL;
    }
    n->st = st;
    atomic_init(&n->inflight, 0);
    if (src_id) derive_node_id(src_id, n->node_id);
    else tv_api_new_uuid(n->node_id);
    return n;
}

trove_node *trove_node_open(const trove_options *opts, trove_error *err) {
    tv_node_state *st = state_new();
    trove_node *n = NULL;
    if (!st) goto oom;
    const char *nn = opts && opts->node_name ? opts->node_name : "trove";
    const char *cn = opts && opts->cluster_name ? opts->cluster_name : "trove";
    st->node_name = tv_strndup(nn, strlen(nn));
    st->cluster_name = tv_strndup(cn, strlen(cn));
    if (!st->node_name || !st->cluster_name) goto oom;
    tv_api_new_uuid(st->cluster_uuid);
    if (!(n = node_new(st, NULL, NULL, opts ? opts->heap_bytes : 0))) goto oom;
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
    state_release(st);
    if (err) {
        err->code = TROVE_ENOMEM;
        err->pos = SIZE_MAX;
        snprintf(err->message, sizeof err->message, "out of memory");
    }
    return NULL;
}

void trove_node_free(trove_node *n) {
    if (!n) return;
    tv_api_routing_cache_drop(); /* this thread's remembered mapping (routing.c) */
    tv_search_ctxs_free(n);
    tv_trove_mgmt_free(n); /* closes live clones (h_trove.c) */
    tv_durable_stop(n->durable);
    state_release(n->st); /* closes (and syncs) the translogs */
    tv_durable_free(n->durable);
    pthread_rwlock_destroy(&n->lock);
    if (atomic_fetch_sub(&n->brk->rc, 1) == 1) tv_free(n->brk);
    tv_free(n);
}

static char *dup_or_null(const char *s, bool *ok) {
    if (!s) return NULL;
    char *d = tv_strndup(s, strlen(s));
    if (!d) *ok = false;
    return d;
}

void tv_alias_fini(tv_alias *a) {
    tv_free(a->alias);
    tv_free(a->index);
    tv_free(a->filter);
    tv_free(a->index_routing);
    tv_free(a->search_routing);
    memset(a, 0, sizeof *a);
}

/* Copies names, aliases, closed marks, templates and cluster settings
 * (a copied state's metadata). */
static bool copy_meta(tv_node_state *n, const tv_node_state *src) {
    bool ok = true;
    n->node_name = dup_or_null(src->node_name, &ok);
    n->cluster_name = dup_or_null(src->cluster_name, &ok);
    memcpy(n->cluster_uuid, src->cluster_uuid, sizeof n->cluster_uuid);
    if (src->naliases) {
        n->aliases = tv_calloc(src->naliases, sizeof *n->aliases);
        if (!n->aliases) return false;
        for (size_t i = 0; i < src->naliases; i++) {
            const tv_alias *a = &src->aliases[i];
            tv_alias *b = &n->aliases[n->naliases++];
            b->alias = dup_or_null(a->alias, &ok);
            b->index = dup_or_null(a->index, &ok);
            b->filter = dup_or_null(a->filter, &ok);
            b->index_routing = dup_or_null(a->index_routing, &ok);
            b->search_routing = dup_or_null(a->search_routing, &ok);
            b->is_write_index = a->is_write_index;
            b->is_hidden = a->is_hidden;
        }
    }
    if (ok && tv_map_copy(&n->closed, &src->closed) != TROVE_OK) ok = false;
    if (ok && src->ntemplates) {
        n->templates = tv_calloc(src->ntemplates, sizeof *n->templates);
        if (!n->templates) return false;
        for (size_t i = 0; i < src->ntemplates; i++) {
            tv_template *t = &n->templates[n->ntemplates++];
            t->name = dup_or_null(src->templates[i].name, &ok);
            t->body = dup_or_null(src->templates[i].body, &ok);
            t->legacy = src->templates[i].legacy;
        }
    }
    n->cluster_persistent = dup_or_null(src->cluster_persistent, &ok);
    n->cluster_transient = dup_or_null(src->cluster_transient, &ok);
    return ok;
}

/* A private copy of a state: every index cloned (tv_index_clone shares
 * segments) and the metadata copied. O(indices). The caller holds the lock
 * of a node that uses src. NULL with err set on failure. */
static tv_node_state *state_copy(const tv_node_state *src, tv_error *err) {
    tv_node_state *n = state_new();
    if (!n) {
        tv_error_oom(err);
        return NULL;
    }
    size_t it = 0;
    const char *k;
    size_t kl;
    void *v;
    bool ok = true;
    while (ok && tv_map_next(&src->indices, &it, &k, &kl, &v)) {
        tv_index *c = tv_index_clone(v, err);
        if (!c) {
            ok = false;
            break;
        }
        if (tv_map_put(&n->indices, k, kl, c, NULL) != TROVE_OK) {
            tv_index_release(c);
            ok = false;
        }
    }
    if (ok) ok = copy_meta(n, src);
    if (!ok) {
        if (err->code == TROVE_OK) tv_error_oom(err);
        state_release(n);
        return NULL;
    }
    return n;
}

trove_node *tv_node_clone_from(trove_node *src, bool in_request, trove_error *err) {
    if (!src) return NULL;
    tv_error e;
    tv_error_clear(&e);
    /* exclusive: no request starts on src while we decide, so "none in
     * flight" stays true until the state is shared */
    pthread_rwlock_wrlock(&src->lock);
    tv_node_state *st;
    if (atomic_load(&src->inflight) <= (in_request ? 1u : 0u) && !src->durable) {
        st = src->st; /* lazy: shared until either side writes */
        atomic_fetch_add_explicit(&st->rc, 1, memory_order_relaxed);
    } else {
        /* requests in flight might write; a durable node's indices keep
         * their translogs only while its state is its own */
        st = state_copy(src->st, &e);
    }
    pthread_rwlock_unlock(&src->lock);
    trove_node *n = st ? node_new(st, src->node_id, src->brk, 0) : NULL;
    if (!n) {
        if (st) state_release(st);
        if (e.code == TROVE_OK) tv_error_oom(&e);
        tv_error_to_public(&e, err);
        return NULL;
    }
    return n;
}

trove_node *trove_node_clone(trove_node *src, trove_error *err) { return tv_node_clone_from(src, false, err); }

bool tv_node_own_state(tv_req *r) {
    trove_node *n = r->node;
    bool ok = true;
    pthread_rwlock_wrlock(&n->lock);
    /* ours alone: one reference for this node, plus this request's pin */
    unsigned mine = 1u + (r->pinned == n->st);
    if (atomic_load_explicit(&n->st->rc, memory_order_acquire) > mine) {
        tv_error e;
        tv_error_clear(&e);
        tv_node_state *c = state_copy(n->st, &e);
        if (c) {
            state_release(n->st); /* the request's pin, if any, keeps it */
            n->st = c;
        } else {
            ok = false;
        }
    }
    pthread_rwlock_unlock(&n->lock);
    return ok;
}

static bool alias_in_use_locked(trove_node *n, const char *name);

/* The one index an alias points to, or NULL (caller holds the lock). */
static tv_index *alias_single_locked(trove_node *n, const char *name) {
    tv_index *found = NULL;
    for (size_t i = 0; i < n->st->naliases; i++) {
        if (strcmp(n->st->aliases[i].alias, name) != 0) continue;
        if (found) return NULL;
        found = tv_map_get(&n->st->indices, n->st->aliases[i].index, strlen(n->st->aliases[i].index));
    }
    return found;
}

tv_index *tv_node_get_index(trove_node *n, const char *name) {
    pthread_rwlock_rdlock(&n->lock);
    tv_index *idx = tv_map_get(&n->st->indices, name, strlen(name));
    if (!idx) idx = alias_single_locked(n, name);
    if (idx) tv_index_retain(idx);
    pthread_rwlock_unlock(&n->lock);
    return idx;
}

bool tv_node_get_index_peek(trove_node *n, const char *name) {
    pthread_rwlock_rdlock(&n->lock);
    bool has = tv_map_has(&n->st->indices, name, strlen(name));
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
    pthread_rwlock_rdlock(&r->node->lock);
    tv_index *idx = tv_map_get(&r->node->st->indices, name, strlen(name));
    if (idx) tv_index_retain(idx);
    bool alias = !idx && alias_in_use_locked(r->node, name);
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

/* ------------------------------------------------------- resolution */

static bool alias_in_use_locked(trove_node *n, const char *name) {
    for (size_t i = 0; i < n->st->naliases; i++)
        if (strcmp(n->st->aliases[i].alias, name) == 0) return true;
    return false;
}

bool tv_node_is_alias(trove_node *n, const char *name) {
    pthread_rwlock_rdlock(&n->lock);
    bool a = alias_in_use_locked(n, name);
    pthread_rwlock_unlock(&n->lock);
    return a;
}

bool tv_node_is_closed_locked(trove_node *n, const char *name) {
    return tv_map_has(&n->st->closed, name, strlen(name));
}

bool tv_node_is_closed(trove_node *n, const char *name) {
    pthread_rwlock_rdlock(&n->lock);
    bool c = tv_node_is_closed_locked(n, name);
    pthread_rwlock_unlock(&n->lock);
    return c;
}

bool tv_index_is_hidden(tv_index *idx) {
    tv_index_lock(idx);
    tv_settings *s = tv_index_settings(idx);
    const tv_json *v = s && s->flat ? tv_json_get(s->flat, "index.hidden") : NULL;
    bool h = v && ((v->type == TV_JSON_STRING && strcmp(v->v.s, "true") == 0) || v->type == TV_JSON_TRUE);
    tv_index_unlock(idx);
    return h;
}

void tv_node_forget_index_locked(trove_node *n, const char *name) {
    size_t k = 0;
    for (size_t i = 0; i < n->st->naliases; i++) {
        if (strcmp(n->st->aliases[i].index, name) == 0)
            tv_alias_fini(&n->st->aliases[i]);
        else
            n->st->aliases[k++] = n->st->aliases[i];
    }
    n->st->naliases = k;
    tv_map_del(&n->st->closed, name, strlen(name));
}

void tv_req_fail_closed(tv_req *r, tv_index *idx) {
    tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
    if (!e) {
        r->oom = true;
        return;
    }
    e->type = TROVE_ECLOSED;
    e->reason = "closed";
    e->status = 400;
    const char *name = tv_arena_strndup(&r->arena, tv_index_name(idx), strlen(tv_index_name(idx)));
    const char *uuid = tv_arena_strndup(&r->arena, tv_index_uuid(idx), strlen(tv_index_uuid(idx)));
    if (!name || !uuid) {
        r->oom = true;
        return;
    }
    tv_api_err_meta(e, "index", name);
    tv_api_err_meta(e, "index_uuid", uuid);
    tv_req_error(r, e);
}

static int cmp_index_name(const void *a, const void *b) {
    return strcmp(tv_index_name(*(tv_index *const *)a), tv_index_name(*(tv_index *const *)b));
}

void tv_index_list_release(tv_index_list *l) {
    for (size_t i = 0; i < l->len; i++) tv_index_release(l->items[i]);
    tv_free(l->items);
    l->items = NULL;
    l->len = 0;
    l->filters = NULL;
}

/* Resolution state: candidate indices with, per index, whether it was
 * named directly (no alias filter) and the filters of the aliases that
 * reached it. */
typedef struct rslot {
    tv_index *idx;
    bool direct;      /* named, or reached through an alias without filter */
    const char **filters;
    size_t nfilters;
} rslot;

typedef struct rstate {
    tv_req *r;
    rslot *s;
    size_t n, cap;
    bool oom;
} rstate;

static rslot *rs_find(rstate *st, const tv_index *idx) {
    for (size_t i = 0; i < st->n; i++)
        if (st->s[i].idx == idx) return &st->s[i];
    return NULL;
}

static void rs_add(rstate *st, tv_index *idx, const char *filter) {
    rslot *s = rs_find(st, idx);
    if (!s) {
        if (st->n == st->cap) {
            size_t nc = st->cap ? st->cap * 2 : 8;
            rslot *ns = tv_arena_calloc(&st->r->arena, nc, sizeof *ns);
            if (!ns) {
                st->oom = true;
                return;
            }
            if (st->n) memcpy(ns, st->s, st->n * sizeof *ns);
            st->s = ns;
            st->cap = nc;
        }
        s = &st->s[st->n++];
        memset(s, 0, sizeof *s);
        s->idx = idx;
    }
    if (!filter) {
        s->direct = true;
        return;
    }
    const char **nf = tv_arena_calloc(&st->r->arena, s->nfilters + 1, sizeof *nf);
    if (!nf) {
        st->oom = true;
        return;
    }
    if (s->nfilters) memcpy(nf, s->filters, s->nfilters * sizeof *nf);
    nf[s->nfilters++] = filter;
    s->filters = nf;
}

static void rs_remove(rstate *st, const tv_index *idx) {
    for (size_t i = 0; i < st->n; i++)
        if (st->s[i].idx == idx) {
            st->s[i] = st->s[--st->n];
            return;
        }
}

static bool state_ok(trove_node *n, const char *name, unsigned expand) {
    bool closed = tv_node_is_closed_locked(n, name);
    return closed ? (expand & TV_EXPAND_CLOSED) != 0 : (expand & TV_EXPAND_OPEN) != 0;
}

/* Is a (possibly hidden) name visible to a wildcard pattern? */
static bool hidden_ok(const char *pat, const char *name, bool hidden, unsigned expand) {
    if (!hidden || (expand & TV_EXPAND_HIDDEN)) return true;
    return pat[0] == '.' && name[0] == '.';
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

/* Adds every index matching pattern (wildcard) to st, or removes them. */
static void match_wildcard(trove_node *n, rstate *st, const char *p, const tv_resolve_opts *o, bool add,
                           size_t *matched) {
    size_t it = 0;
    const char *k;
    size_t kl;
    void *v;
    while (tv_map_next(&n->st->indices, &it, &k, &kl, &v)) {
        if (!tv_simple_match(p, k, kl)) continue;
        if (!state_ok(n, k, o->expand) || !hidden_ok(p, k, tv_index_is_hidden(v), o->expand)) continue;
        (*matched)++;
        if (add)
            rs_add(st, v, NULL);
        else
            rs_remove(st, v);
    }
    if (o->ignore_aliases) return;
    for (size_t i = 0; i < n->st->naliases; i++) {
        const tv_alias *a = &n->st->aliases[i];
        if (!tv_simple_match(p, a->alias, strlen(a->alias))) continue;
        if (!hidden_ok(p, a->alias, a->is_hidden == 1, o->expand)) continue;
        tv_index *idx = tv_map_get(&n->st->indices, a->index, strlen(a->index));
        if (!idx || !state_ok(n, a->index, o->expand)) continue;
        (*matched)++;
        if (add)
            rs_add(st, idx, a->filter);
        else
            rs_remove(st, idx);
    }
}

bool tv_node_resolve_ex(tv_req *r, const char *expr, const tv_resolve_opts *o, tv_index_list *out) {
    out->items = NULL;
    out->len = 0;
    out->filters = NULL;
    const char **parts = NULL;
    size_t nparts = 0;
    if (expr && *expr) nparts = tv_split_commas(&r->arena, expr, &parts);
    if (expr && *expr && !parts) {
        r->oom = true;
        return false;
    }
    trove_node *n = r->node;
    rstate st = {.r = r};
    bool all = nparts == 0 || (nparts == 1 && strcmp(parts[0], "_all") == 0);
    const char *err_missing = NULL, *err_alias = NULL, *err_nomatch = NULL;
    tv_index *err_closed = NULL;
    pthread_rwlock_rdlock(&n->lock);
    if (all) {
        size_t it = 0, matched = 0;
        const char *k;
        size_t kl;
        void *v;
        while (tv_map_next(&n->st->indices, &it, &k, &kl, &v)) {
            if (!state_ok(n, k, o->expand)) continue;
            if (!(o->expand & TV_EXPAND_HIDDEN) && tv_index_is_hidden(v)) continue;
            rs_add(&st, v, NULL);
            matched++;
        }
    } else {
        bool wildcard_seen = false;
        for (size_t i = 0; i < nparts && !st.oom; i++) {
            const char *p = parts[i];
            bool add = true;
            if (p[0] == '-' && wildcard_seen) {
                add = false;
                p++;
            }
            if (strchr(p, '*')) {
                wildcard_seen = true;
                size_t matched = 0;
                match_wildcard(n, &st, p, o, add, &matched);
                if (add && !matched && !o->allow_no_indices && !err_nomatch) err_nomatch = p;
                continue;
            }
            tv_index *idx = tv_map_get(&n->st->indices, p, strlen(p));
            if (idx) {
                if (!add) {
                    rs_remove(&st, idx);
                } else if (o->forbid_closed && tv_node_is_closed_locked(n, p)) {
                    if (!o->ignore_unavailable && !err_closed) err_closed = idx;
                } else {
                    rs_add(&st, idx, NULL);
                }
                continue;
            }
            if (alias_in_use_locked(n, p)) {
                if (o->ignore_aliases) {
                    if (!o->ignore_unavailable && !err_alias) err_alias = p;
                    continue;
                }
                for (size_t j = 0; j < n->st->naliases; j++) {
                    const tv_alias *a = &n->st->aliases[j];
                    if (strcmp(a->alias, p) != 0) continue;
                    tv_index *ai = tv_map_get(&n->st->indices, a->index, strlen(a->index));
                    if (!ai) continue;
                    if (!add) {
                        rs_remove(&st, ai);
                    } else if (o->forbid_closed && tv_node_is_closed_locked(n, a->index)) {
                        if (!o->ignore_unavailable && !err_closed) err_closed = ai;
                    } else {
                        rs_add(&st, ai, a->filter);
                    }
                }
                continue;
            }
            if (add && !o->ignore_unavailable && !err_missing) err_missing = p;
        }
    }
    if (err_closed) tv_index_retain(err_closed);
    /* retain what we keep before letting go of the lock */
    bool ok = !st.oom;
    if (ok && st.n) {
        out->items = tv_malloc(st.n * sizeof *out->items);
        if (!out->items) ok = false;
    }
    if (ok) {
        for (size_t i = 0; i < st.n; i++) out->items[out->len++] = tv_index_retain(st.s[i].idx);
    }
    pthread_rwlock_unlock(&n->lock);
    if (!ok) {
        if (err_closed) tv_index_release(err_closed);
        tv_index_list_release(out);
        r->oom = true;
        return false;
    }
    if (err_missing || err_alias || err_nomatch || err_closed) {
        tv_index_list_release(out);
        if (err_missing) {
            tv_api_err *e = tv_api_err_no_index(r, err_missing);
            if (e) tv_req_error(r, e);
        } else if (err_alias) {
            fail_alias_expr(r, err_alias);
        } else if (err_closed) {
            tv_req_fail_closed(r, err_closed);
        } else {
            tv_api_err *e = tv_api_err_no_index(r, err_nomatch);
            if (e) tv_req_error(r, e);
        }
        if (err_closed) tv_index_release(err_closed);
        return false;
    }
    if (out->len == 0 && !o->allow_no_indices) {
        const char *name = expr && *expr ? expr : "_all";
        tv_api_err *e = tv_api_err_no_index(r, name);
        if (e) tv_req_error(r, e);
        return false;
    }
    if (out->len > 1) qsort(out->items, out->len, sizeof *out->items, cmp_index_name);
    /* alias filters: an index reached directly has none; else the filters
     * of its aliases, OR-ed when several (IndicesService.buildAliasFilter) */
    for (size_t i = 0; i < out->len; i++) {
        rslot *s = rs_find(&st, out->items[i]);
        if (!s || s->direct || !s->nfilters) continue;
        if (!out->filters) {
            out->filters = tv_arena_calloc(&r->arena, out->len, sizeof *out->filters);
            if (!out->filters) {
                r->oom = true;
                tv_index_list_release(out);
                return false;
            }
        }
        if (s->nfilters == 1) {
            out->filters[i] = s->filters[0];
        } else {
            tv_buf b;
            tv_buf_init(&b);
            tv_buf_puts(&b, "{\"bool\":{\"should\":[");
            for (size_t j = 0; j < s->nfilters; j++) tv_buf_printf(&b, "%s%s", j ? "," : "", s->filters[j]);
            tv_buf_puts(&b, "]}}");
            out->filters[i] = b.oom ? NULL : tv_arena_strndup(&r->arena, b.data, b.len);
            tv_buf_fini(&b);
            if (!out->filters[i]) {
                r->oom = true;
                tv_index_list_release(out);
                return false;
            }
        }
    }
    return true;
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
    if (!idx && alias_in_use_locked(n, name)) {
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
    state_release(r.pinned);
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
