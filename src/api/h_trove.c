/*
 * h_trove.c — the management API under /_trove (and /_osmem, its alias):
 * a frozen base and copy-on-write clones reached on their own ports.
 *
 *   GET    /_trove                   {"version","frozen","clones":{"count","ids"}}
 *   POST   /_trove/base/freeze       {"frozen":true}
 *   POST   /_trove/base/unfreeze     {"frozen":false}
 *   POST   /_trove/clones            201 {"id","url"} (freezes the base)
 *   GET    /_trove/clones            {"clones":[{"id","url"},...]}
 *   GET    /_trove/clones/{id}       {"id","url"} or 404
 *   DELETE /_trove/clones/{id}       {"acknowledged":true} or 404
 *   DELETE /_trove/clones            {"acknowledged":true,"deleted":N}
 *
 * Frozen base. A flag on the node, checked by the router after a route
 * matched: a handler that changes the node (anything but the read handlers
 * listed in is_read_handler, whatever its method) answers 403
 * {"error":{"type":"trove_base_frozen",...},"status":403}. Classifying by
 * handler rather than by method keeps POST _search/_count/_mget/_msearch
 * and scroll/PIT bookkeeping working on a frozen base, as they must.
 * _refresh and _flush are allowed too: a frozen base has nothing pending,
 * so they change nothing a client can see.
 *
 * /_osmem. The same calls under /_osmem answer in the shapes of osmem (an
 * in-memory OpenSearch fake whose test helpers can drive trove): GET
 * /_osmem is {"clones":N,"frozen","version"}, GET /_osmem/base
 * {"clones":N,"frozen","indices":[...]}, clones list as
 * {"created","id","url"}, an unknown clone is 404 osmem_clone_not_found
 * ("no clone [ID]"), DELETE /_osmem/clones answers "closed":N (keys in
 * the sorted order osmem's encoder writes). A node set to osmem's flavour
 * (trove_node_set_osmem_flavor: `trove` started without a subcommand, as
 * osmem's helpers start it) refuses writes on a frozen base with osmem's
 * 403 osmem_base_frozen.
 *
 * Clones. POST /_trove/clones takes trove_node_clone(base) and hands it to
 * the transport the server registered (trove_node_set_clone_transport), which
 * listens on a new loopback port and owns the clone from then on; the
 * registry here keeps only (id, port, token) under a mutex. The api layer
 * never calls the server: the transport is a pair of callbacks (and the URL
 * scheme: https when the server set trove_node_set_clone_https because its
 * listeners, the clones' included, speak TLS). Without one
 * (in-process use) the request answers 400 illegal_argument_exception: an
 * embedded user has trove_node_clone() and needs no URL. Rejected: a clone
 * reachable as a path prefix of the base's port (clients take a base URL,
 * and a prefix would need every route duplicated).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "api.h"

typedef struct clone_ent {
    char id[24];
    int port;
    bool https; /* its listener speaks TLS */
    void *token;
    struct timespec created; /* CLOCK_REALTIME */
} clone_ent;

struct tv_mgmt {
    pthread_mutex_t mu;
    tv_clone_open_fn open;
    tv_clone_close_fn close;
    void *ud;
    clone_ent *v;
    size_t n, cap;
    bool https; /* the transport's listeners speak TLS */
};

void trove_node_set_frozen(trove_node *n, bool frozen) { atomic_store(&n->frozen, frozen ? 1 : 0); }

bool trove_node_is_frozen(trove_node *n) { return atomic_load(&n->frozen) != 0; }

void trove_node_set_osmem_flavor(trove_node *n, bool on) { atomic_store(&n->osmem, on ? 1 : 0); }

/* Is the request under /_osmem (answered in osmem's shapes)? */
static bool osmem_path(const tv_req *r) { return strncmp(r->path, "/_osmem", 7) == 0; }

/* Closes every registered clone (mgmt->mu held). */
static void close_all_locked(struct tv_mgmt *m) {
    for (size_t i = 0; i < m->n; i++)
        if (m->close) m->close(m->ud, m->v[i].token);
    m->n = 0;
}

int trove_node_set_clone_transport(trove_node *base, tv_clone_open_fn open, tv_clone_close_fn close, void *ud) {
    struct tv_mgmt *m = base->mgmt;
    if (!m) {
        if (!open) return TROVE_OK;
        m = tv_calloc(1, sizeof *m);
        if (!m) return TROVE_ENOMEM;
        if (pthread_mutex_init(&m->mu, NULL) != 0) {
            tv_free(m);
            return TROVE_ENOMEM;
        }
        base->mgmt = m;
    }
    pthread_mutex_lock(&m->mu);
    if (!open) close_all_locked(m);
    m->open = open;
    m->close = open ? close : NULL;
    m->ud = open ? ud : NULL;
    pthread_mutex_unlock(&m->mu);
    return TROVE_OK;
}

void trove_node_set_clone_https(trove_node *base, bool on) {
    struct tv_mgmt *m = base->mgmt;
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    m->https = on;
    pthread_mutex_unlock(&m->mu);
}

void tv_trove_mgmt_free(trove_node *n) {
    struct tv_mgmt *m = n->mgmt;
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    close_all_locked(m);
    pthread_mutex_unlock(&m->mu);
    pthread_mutex_destroy(&m->mu);
    tv_free(m->v);
    tv_free(m);
    n->mgmt = NULL;
}

/* ------------------------------------------------------------ frozen */

static bool is_read_handler(tv_handler h) {
    static const tv_handler reads[] = {
        tv_h_search_aliased, tv_h_count_aliased, tv_h_mget,        tv_h_msearch,   tv_h_scroll,
        tv_h_clear_scroll,   tv_h_pit_create,    tv_h_pit_delete,  tv_h_pit_delete_all,
        tv_h_analyze,        tv_h_refresh,       tv_h_flush,       tv_h_forcemerge,   tv_h_unsupported,
        tv_h_trove_info,     tv_h_trove_freeze,  tv_h_trove_unfreeze, tv_h_trove_clone_create,
        tv_h_trove_clone_list, tv_h_trove_clone_get, tv_h_trove_clone_delete, tv_h_trove_clone_delete_all,
        tv_h_cluster_allocation_explain,
        tv_h_tasks_cancel,   tv_h_rethrottle,    tv_h_ingest_simulate,
    };
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++)
        if (reads[i] == h) return true;
    return false;
}

static bool refused_when_frozen(const tv_req *r, tv_handler h) {
    return !(r->method == TV_GET || r->method == TV_HEAD || is_read_handler(h));
}

bool tv_handler_writes(const tv_req *r, tv_handler h) {
    if (refused_when_frozen(r, h) || h == tv_h_refresh || h == tv_h_flush || h == tv_h_forcemerge) return true;
    /* GET _doc/_source/_mget?refresh=true refresh the index first */
    const char *rf = tv_req_param(r, "refresh");
    return rf && strcmp(rf, "false") != 0;
}

bool tv_trove_refuse_frozen(tv_req *r, tv_handler h) {
    if (!trove_node_is_frozen(r->node)) return false;
    if (!refused_when_frozen(r, h)) return false;
    if (atomic_load(&r->node->osmem))
        tv_req_fail(r, TROVE_EOSMEMFROZEN,
                    "the base cluster is frozen; write to a clone created with POST /_osmem/clones");
    else
        tv_req_fail(r, TROVE_EFROZEN,
                    "the base is frozen: writes are refused (POST /_trove/clones for a writable clone, or POST "
                    "/_trove/base/unfreeze)");
    return true;
}

/* ---------------------------------------------------------- handlers */

/* Go's time.RFC3339Nano in UTC: fraction without trailing zeros. */
static void write_created(tv_jw *w, struct timespec t) {
    struct tm tm;
    time_t secs = t.tv_sec;
    gmtime_r(&secs, &tm);
    char b[64];
    size_t n = strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", &tm);
    if (t.tv_nsec) {
        n += (size_t)snprintf(b + n, sizeof b - n, ".%09ld", t.tv_nsec);
        while (b[n - 1] == '0') n--;
    }
    b[n++] = 'Z';
    tv_jw_str(w, b, n);
}

static void write_clone(tv_jw *w, const clone_ent *c, bool osmem) {
    char url[40];
    snprintf(url, sizeof url, "%s://127.0.0.1:%d", c->https ? "https" : "http", c->port);
    tv_jw_obj_begin(w);
    if (osmem) {
        tv_jw_keyz(w, "created");
        write_created(w, c->created);
    }
    tv_jw_keyz(w, "id");
    tv_jw_strz(w, c->id);
    tv_jw_keyz(w, "url");
    tv_jw_strz(w, url);
    tv_jw_obj_end(w);
}

static size_t clone_count(struct tv_mgmt *m) {
    if (!m) return 0;
    pthread_mutex_lock(&m->mu);
    size_t n = m->n;
    pthread_mutex_unlock(&m->mu);
    return n;
}

void trove_node_set_sync_status(trove_node *n, void (*fn)(void *ud, tv_jw *w), void *ud) {
    n->sync_status = fn;
    n->sync_status_ud = fn ? ud : NULL;
}

void tv_h_trove_sync(tv_req *r) {
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "feeds");
    tv_jw_arr_begin(w);
    if (r->node->sync_status) r->node->sync_status(r->node->sync_status_ud, w);
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
}

void tv_h_trove_info(tv_req *r) {
    struct tv_mgmt *m = r->node->mgmt;
    if (osmem_path(r)) {
        tv_jw *w = tv_req_json(r, 200);
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "clones");
        tv_jw_uint(w, clone_count(m));
        tv_jw_keyz(w, "frozen");
        tv_jw_bool(w, trove_node_is_frozen(r->node));
        tv_jw_keyz(w, "version");
        tv_jw_strz(w, trove_version());
        tv_jw_obj_end(w);
        return;
    }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "version");
    tv_jw_strz(w, trove_version());
    tv_jw_keyz(w, "frozen");
    tv_jw_bool(w, trove_node_is_frozen(r->node));
    tv_jw_keyz(w, "clones");
    tv_jw_obj_begin(w);
    if (m) pthread_mutex_lock(&m->mu);
    tv_jw_keyz(w, "count");
    tv_jw_uint(w, m ? m->n : 0);
    tv_jw_keyz(w, "ids");
    tv_jw_arr_begin(w);
    for (size_t i = 0; m && i < m->n; i++) tv_jw_strz(w, m->v[i].id);
    tv_jw_arr_end(w);
    if (m) pthread_mutex_unlock(&m->mu);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

/* GET /_osmem/base: {"clones":N,"frozen":bool,"indices":[sorted names]} */
void tv_h_osmem_base(tv_req *r) {
    tv_index_list l = {0};
    tv_resolve_opts o = {.ignore_unavailable = true, .allow_no_indices = true,
                         .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED | TV_EXPAND_HIDDEN};
    if (!tv_node_resolve_ex(r, "_all", &o, &l)) return;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "clones");
    tv_jw_uint(w, clone_count(r->node->mgmt));
    tv_jw_keyz(w, "frozen");
    tv_jw_bool(w, trove_node_is_frozen(r->node));
    tv_jw_keyz(w, "indices");
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < l.len; i++) tv_jw_strz(w, tv_index_name(l.items[i]));
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
    tv_index_list_release(&l);
}

static void answer_frozen(tv_req *r) {
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "acknowledged");
    tv_jw_bool(w, true);
    tv_jw_keyz(w, "frozen");
    tv_jw_bool(w, trove_node_is_frozen(r->node));
    tv_jw_obj_end(w);
}

void tv_h_trove_freeze(tv_req *r) {
    trove_node_set_frozen(r->node, true);
    answer_frozen(r);
}

void tv_h_trove_unfreeze(tv_req *r) {
    trove_node_set_frozen(r->node, false);
    answer_frozen(r);
}

void tv_h_trove_clone_create(tv_req *r) {
    struct tv_mgmt *m = r->node->mgmt;
    if (!m || !m->open) {
        tv_req_fail(r, TROVE_EARG,
                    "clones need a transport: this node is not served over HTTP (use trove_node_clone() in "
                    "process)");
        return;
    }
    trove_node_set_frozen(r->node, true);
    trove_error err = {0};
    trove_node *c = tv_node_clone_from(r->node, true, &err);
    if (!c) {
        r->oom = true;
        return;
    }
    pthread_mutex_lock(&m->mu);
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        clone_ent *v = tv_realloc(m->v, cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&m->mu);
            trove_node_free(c);
            r->oom = true;
            return;
        }
        m->v = v;
        m->cap = cap;
    }
    clone_ent e = {0};
    e.https = m->https;
    tv_node_new_id(e.id);
    clock_gettime(CLOCK_REALTIME, &e.created);
    e.port = m->open(m->ud, c, &e.token);
    if (e.port <= 0) {
        pthread_mutex_unlock(&m->mu);
        trove_node_free(c);
        tv_req_fail(r, TROVE_EEXCEPTION, "cannot open a listener for the clone");
        return;
    }
    m->v[m->n++] = e;
    pthread_mutex_unlock(&m->mu);
    tv_jw *w = tv_req_json(r, 201);
    write_clone(w, &e, false); /* {"id","url"} in both shapes */
}

void tv_h_trove_clone_list(tv_req *r) {
    struct tv_mgmt *m = r->node->mgmt;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "clones");
    tv_jw_arr_begin(w);
    if (m) {
        pthread_mutex_lock(&m->mu);
        for (size_t i = 0; i < m->n; i++) write_clone(w, &m->v[i], osmem_path(r));
        pthread_mutex_unlock(&m->mu);
    }
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
}

static void not_found(tv_req *r) {
    if (osmem_path(r)) tv_req_fail(r, TROVE_EOSMEMNOCLONE, "no clone [%s]", r->p_id);
    else tv_req_fail(r, TROVE_ENOTFOUND, "clone [%s] not found", r->p_id);
}

void tv_h_trove_clone_get(tv_req *r) {
    struct tv_mgmt *m = r->node->mgmt;
    clone_ent e;
    bool found = false;
    if (m) {
        pthread_mutex_lock(&m->mu);
        for (size_t i = 0; i < m->n && !found; i++)
            if (strcmp(m->v[i].id, r->p_id) == 0) {
                e = m->v[i];
                found = true;
            }
        pthread_mutex_unlock(&m->mu);
    }
    if (!found) {
        not_found(r);
        return;
    }
    write_clone(tv_req_json(r, 200), &e, osmem_path(r));
}

void tv_h_trove_clone_delete(tv_req *r) {
    struct tv_mgmt *m = r->node->mgmt;
    bool found = false;
    if (m) {
        pthread_mutex_lock(&m->mu);
        for (size_t i = 0; i < m->n && !found; i++)
            if (strcmp(m->v[i].id, r->p_id) == 0) {
                if (m->close) m->close(m->ud, m->v[i].token);
                m->v[i] = m->v[--m->n];
                found = true;
            }
        pthread_mutex_unlock(&m->mu);
    }
    if (!found) {
        not_found(r);
        return;
    }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "acknowledged");
    tv_jw_bool(w, true);
    tv_jw_obj_end(w);
}

void tv_h_trove_clone_delete_all(tv_req *r) {
    struct tv_mgmt *m = r->node->mgmt;
    size_t n = 0;
    if (m) {
        pthread_mutex_lock(&m->mu);
        n = m->n;
        close_all_locked(m);
        pthread_mutex_unlock(&m->mu);
    }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "acknowledged");
    tv_jw_bool(w, true);
    tv_jw_keyz(w, osmem_path(r) ? "closed" : "deleted");
    tv_jw_uint(w, n);
    tv_jw_obj_end(w);
}
