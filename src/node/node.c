/*
 * node.c — the node: its state (indices by name, aliases, templates,
 * closed marks, cluster settings) and that state's copy-on-write between
 * a node and its clones, lookups and index expression resolution, and the
 * node's identifiers.
 *
 * A node's state (tv_node_state: a tv_map from index name to a retained
 * tv_index, plus aliases, templates, closed marks, cluster settings, the
 * cluster state version, and the api layer's snapshot repositories,
 * snapshot records and voting exclusions as JSON texts) is
 * guarded by the node's pthread rwlock: lookups take it shared and retain
 * the index before letting go, so a request keeps working on an index that
 * a concurrent DELETE removes (the index dies with its last reference).
 * Creation and deletion take it exclusive.
 *
 * Clones are copy-on-write on the whole state. tv_node_clone_from makes a
 * node around a new reference to the source's state: O(1), no allocation
 * but the node. The state's reference count is the number of nodes using
 * it plus the requests pinned on it; trove_request pins the state for its
 * duration when it is shared as the request begins. Before a request that
 * changes state, tv_node_own gives the node a copy (every index cloned by
 * tv_index_clone, which shares segments; the metadata copied) unless the
 * count shows only this node and this request's pin, so nobody can observe
 * a write into a state another node or another node's request still
 * reads. Invariant that makes this enough: a state becomes shared only
 * while no request runs on its node (the clone takes the node's lock
 * exclusively and checks `inflight`; with requests in flight, which might
 * be writing, the clone copies at once). Rejected: copying at clone time
 * (5,000 instructions per index, paid by every test's clone even when it
 * only reads) and per-index sharing (the table entry would need its own
 * owner count; left for when fixtures with many indices make the first
 * write's O(indices) show).
 *
 * Index expressions (a,b / wildcards / -exclusions / _all / aliases) are
 * resolved against the table, sorted by name as OpenSearch's cluster
 * metadata is; a failure is described (tv_resolve_fail), not answered.
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

#include "node/node.h"

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

void tv_node_new_uuid(char out[24]) {
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

void tv_node_new_id(char out[24]) {
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

tv_node_state *tv_node_state_new(void) {
    tv_node_state *st = tv_calloc(1, sizeof *st);
    if (!st) return NULL;
    atomic_init(&st->rc, 1);
    st->version = 1;
    tv_map_init(&st->indices);
    tv_map_init(&st->closed);
    return st;
}

void tv_node_state_release(tv_node_state *st) {
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
    for (size_t i = 0; i < st->nscripts; i++) {
        tv_free(st->scripts[i].id);
        tv_free(st->scripts[i].lang);
        tv_free(st->scripts[i].source);
    }
    tv_free(st->scripts);
    tv_free(st->cluster_persistent);
    tv_free(st->cluster_transient);
    tv_free(st->repositories);
    tv_free(st->snapshots);
    tv_free(st->voting_exclusions);
    tv_free(st->pipelines);
    tv_free(st->node_name);
    tv_free(st->cluster_name);
    tv_free(st->node_attrs);
    tv_free(st);
}

trove_node *tv_node_new(tv_node_state *st, const char *src_id, tv_node_breakers *brk, int64_t heap) {
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
    else tv_node_new_uuid(n->node_id);
    return n;
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

/* Copies names, aliases, closed marks, templates, stored scripts and cluster settings
 * (a copied state's metadata). */
static bool copy_meta(tv_node_state *n, const tv_node_state *src) {
    bool ok = true;
    n->node_name = dup_or_null(src->node_name, &ok);
    n->cluster_name = dup_or_null(src->cluster_name, &ok);
    n->node_attrs = dup_or_null(src->node_attrs, &ok);
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
            t->component = src->templates[i].component;
        }
    }
    if (ok && src->nscripts) {
        n->scripts = tv_calloc(src->nscripts, sizeof *n->scripts);
        if (!n->scripts) return false;
        for (size_t i = 0; i < src->nscripts; i++) {
            tv_stored_script *t = &n->scripts[n->nscripts++];
            t->id = dup_or_null(src->scripts[i].id, &ok);
            t->lang = dup_or_null(src->scripts[i].lang, &ok);
            t->source = dup_or_null(src->scripts[i].source, &ok);
        }
    }
    n->cluster_persistent = dup_or_null(src->cluster_persistent, &ok);
    n->cluster_transient = dup_or_null(src->cluster_transient, &ok);
    n->version = src->version;
    n->repositories = dup_or_null(src->repositories, &ok);
    n->snapshots = dup_or_null(src->snapshots, &ok);
    n->voting_exclusions = dup_or_null(src->voting_exclusions, &ok);
    n->pipelines = dup_or_null(src->pipelines, &ok);
    return ok;
}

/* A private copy of a state: every index cloned (tv_index_clone shares
 * segments) and the metadata copied. O(indices). The caller holds the lock
 * of a node that uses src. NULL with err set on failure. */
tv_node_state *tv_node_state_copy(const tv_node_state *src, tv_error *err) {
    tv_node_state *n = tv_node_state_new();
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
        tv_node_state_release(n);
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
        st = tv_node_state_copy(src->st, &e);
    }
    pthread_rwlock_unlock(&src->lock);
    trove_node *n = st ? tv_node_new(st, src->node_id, src->brk, 0) : NULL;
    if (!n) {
        if (st) tv_node_state_release(st);
        if (e.code == TROVE_OK) tv_error_oom(&e);
        tv_error_to_public(&e, err);
        return NULL;
    }
    return n;
}

bool tv_node_own(trove_node *n, const tv_node_state *pinned) {
    bool ok = true;
    pthread_rwlock_wrlock(&n->lock);
    /* ours alone: one reference for this node, plus the caller's pin */
    unsigned mine = 1u + (pinned == n->st);
    if (atomic_load_explicit(&n->st->rc, memory_order_acquire) > mine) {
        tv_error e = TV_ERROR_INIT;
        tv_node_state *c = tv_node_state_copy(n->st, &e);
        if (c) {
            tv_node_state_release(n->st); /* the caller's pin, if any, keeps it */
            n->st = c;
        } else {
            ok = false;
        }
    }
    pthread_rwlock_unlock(&n->lock);
    return ok;
}

void tv_node_free(trove_node *n) {
    if (!n) return;
    tv_durable_stop(n->durable);
    tv_node_state_release(n->st); /* closes (and syncs) the translogs */
    tv_durable_free(n->durable);
    pthread_rwlock_destroy(&n->lock);
    if (atomic_fetch_sub(&n->brk->rc, 1) == 1) tv_free(n->brk);
    tv_free(n);
}


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

/* ------------------------------------------------------- resolution */

bool tv_node_alias_in_use_locked(trove_node *n, const char *name) {
    for (size_t i = 0; i < n->st->naliases; i++)
        if (strcmp(n->st->aliases[i].alias, name) == 0) return true;
    return false;
}

bool tv_node_is_alias(trove_node *n, const char *name) {
    pthread_rwlock_rdlock(&n->lock);
    bool a = tv_node_alias_in_use_locked(n, name);
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
    tv_arena *a;
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
            rslot *ns = tv_arena_calloc(st->a, nc, sizeof *ns);
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
    const char **nf = tv_arena_calloc(st->a, s->nfilters + 1, sizeof *nf);
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

tv_status tv_node_resolve_names(trove_node *n, tv_arena *arena, const char *expr, const tv_resolve_opts *o,
                                tv_index_list *out, tv_resolve_fail *fail) {
    memset(fail, 0, sizeof *fail);
    out->items = NULL;
    out->len = 0;
    out->filters = NULL;
    const char **parts = NULL;
    size_t nparts = 0;
    if (expr && *expr) nparts = tv_split_commas(arena, expr, &parts);
    if (expr && *expr && !parts) return TROVE_ENOMEM;
    rstate st = {.a = arena};
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
            if (tv_node_alias_in_use_locked(n, p)) {
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
        return TROVE_ENOMEM;
    }
    if (err_missing || err_alias || err_nomatch || err_closed) {
        tv_index_list_release(out);
        if (err_missing) {
            fail->kind = TV_RESOLVE_MISSING;
            fail->name = err_missing;
        } else if (err_alias) {
            fail->kind = TV_RESOLVE_ALIAS;
            fail->name = err_alias;
        } else if (err_closed) {
            fail->kind = TV_RESOLVE_CLOSED;
            fail->closed = err_closed; /* the reference taken above */
            return TROVE_ECLOSED;
        } else {
            fail->kind = TV_RESOLVE_MISSING;
            fail->name = err_nomatch;
        }
        return fail->kind == TV_RESOLVE_ALIAS ? TROVE_EARG : TROVE_ENOINDEX;
    }
    if (out->len == 0 && !o->allow_no_indices) {
        fail->kind = TV_RESOLVE_MISSING;
        fail->name = expr && *expr ? expr : "_all";
        return TROVE_ENOINDEX;
    }
    if (out->len > 1) qsort(out->items, out->len, sizeof *out->items, cmp_index_name);
    /* alias filters: an index reached directly has none; else the filters
     * of its aliases, OR-ed when several (IndicesService.buildAliasFilter) */
    for (size_t i = 0; i < out->len; i++) {
        rslot *s = rs_find(&st, out->items[i]);
        if (!s || s->direct || !s->nfilters) continue;
        if (!out->filters) {
            out->filters = tv_arena_calloc(arena, out->len, sizeof *out->filters);
            if (!out->filters) {
                tv_index_list_release(out);
                return TROVE_ENOMEM;
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
            out->filters[i] = b.oom ? NULL : tv_arena_strndup(arena, b.data, b.len);
            tv_buf_fini(&b);
            if (!out->filters[i]) {
                tv_index_list_release(out);
                return TROVE_ENOMEM;
            }
        }
    }
    return TROVE_OK;
}

int64_t tv_index_shard_total(tv_index *idx) {
    tv_index_lock(idx);
    tv_settings *s = tv_index_settings(idx);
    int64_t total = s ? (int64_t)s->number_of_replicas + 1 : 2;
    tv_index_unlock(idx);
    return total;
}

