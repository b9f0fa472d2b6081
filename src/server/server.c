/*
 * server.c — listeners, event loops and signals of `trove serve`.
 *
 * Threads. N worker threads, each with its own epoll instance and its own
 * listening socket bound with SO_REUSEPORT to the same address, so the
 * kernel spreads incoming connections over the loops and no lock or
 * hand-off sits between accept and answer: a connection lives on the loop
 * that accepted it, and each request runs to completion on that thread
 * (trove_request is thread-safe on one node). A single acceptor handing
 * connections to workers was rejected: it adds a queue and a wake-up per
 * connection for nothing on a single host.
 *
 * Level-triggered epoll. A readable connection gets one read (64 KiB) per
 * wake-up, so a client streaming a large body cannot starve the others on
 * its loop (edge-triggered would oblige us to drain until EAGAIN or keep
 * our own ready list to stay fair). Interest changes only on state changes:
 * EPOLLOUT while answers are queued, no EPOLLIN while the queue is above
 * its high-water mark or the connection is closing; that is an epoll_ctl
 * per state change, not per request.
 *
 * Buffers. Each loop owns one 64 KiB read buffer; requests are parsed in
 * it and only an incomplete request is copied to the connection (see
 * http_conn.c), so an idle connection costs its struct and its socket.
 *
 * Timeouts. Connections sit on an intrusive list ordered by last activity
 * (moved to the tail on every read or write), so expiring idle connections
 * looks only at the head of the list: O(expired), not O(connections).
 * After an answer that closes the connection (an error, Connection: close)
 * the socket is half-closed and read until the client closes or 2 s pass
 * (a "lingering close"), so the client reads the answer instead of a reset.
 *
 * Limits. RLIMIT_NOFILE is raised to its hard limit at start. When accept
 * fails for lack of descriptors, the loop stops accepting for 100 ms
 * instead of spinning on a listener that stays readable.
 *
 * Returning memory. Indexing frees large blocks (a sealed write buffer,
 * the inputs of a merge, request arenas of big _bulk bodies) that glibc's
 * allocator keeps in its heaps: with 10,000 documents loaded, RSS was four
 * times what the data needed. Two measures, both transport policy: at
 * start, a fixed M_MMAP_THRESHOLD (256 KiB), so that big blocks are always
 * mmapped and go back to the kernel when freed (glibc's default raises the
 * threshold after the first such free, after which they stay in the heap);
 * and a loop that did any work and then sees no event for TRIM_AFTER_MS
 * (250 ms) calls malloc_trim(0), which returns the free pages of every
 * heap. Under load a loop never goes that long without events, so the trim
 * (about a millisecond on a heap of tens of MB) costs nothing while
 * requests flow. The server also trims once before the ready line, for
 * what loading the seeds freed (10,000 seeded documents: 10.6 MiB at the
 * ready line without it). Rejected: trimming
 * after every write request (a trim per _bulk under load) and an allocator
 * of our own (the allocator is glibc's business; this is only a hint).
 *
 * Clones (POST /_trove/clones). Each clone gets its own listening socket
 * on 127.0.0.1:0, added to EVERY loop's epoll set with EPOLLEXCLUSIVE (one
 * loop wakes per connection, no thread per clone); its epoll data is the
 * clone listener's address with the low bit set, which tells it from a
 * connection. A connection remembers its node and the loop points its
 * handler at that node before feeding it. Closing a clone removes the
 * socket from the loops and shuts it down (new connections are refused at
 * once); connections still open to it are closed at their next event. The
 * clone node is freed when the listener is closed and its last connection
 * is gone (an atomic count). Each clone gets the same transport, so a
 * clone can be cloned (POST /_trove/clones on its port); freeing a clone
 * closes the clones made from it. The listener record and its descriptor go
 * later: another loop may still hold an epoll event naming them, from a
 * wait that returned before the removal. Each loop counts its batches
 * (iter, bumped after a batch is handled); a closed record remembers every
 * loop's count when it was removed and is freed (by the next clone open or
 * close) once every loop has finished a later batch and its node is gone.
 * Loops wake at least once a second, so that takes at most about a second.
 *
 * TLS (--tls-cert/--tls-key, tls.c). A connection of an HTTPS server owns
 * an OpenSSL session over its socket, made at accept, clone listeners'
 * connections included. Reads and writes go through conn_read and
 * sock_writev, which keep read(2)'s and the engine's writev contracts, so
 * the loop, the engine and their limits are unchanged. Two things differ.
 * A TLS operation can wait for the other direction (a read that must
 * finish writing a handshake flight, a write that must read first), so a
 * connection remembers it and its epoll interest gains EPOLLOUT or EPOLLIN
 * until the operation is retried. And decrypted bytes that OpenSSL keeps
 * would not wake a level-triggered loop; tls.c never leaves any (it reads
 * whole records, about four per wake-up). A lingering close sends
 * close_notify before the half-close; the lingering reads discard
 * ciphertext without decrypting it.
 *
 * Authentication (--users, auth.c). Each loop has its own authenticator
 * (its cache of verified credentials, no lock) wired into the engine's two
 * hooks; the users table is shared read-only. A password hash is never
 * verified on the loop: the authenticator's verifier thread does it and
 * signals an eventfd in the loop's epoll set. Meanwhile the connection is
 * parked (on loop->parked, with no epoll interest but errors and hang-
 * ups, which close it); when verifications finish, every parked
 * connection of the loop is resumed and asks again.
 *
 * Waiting requests. A request that waits for a condition (a health check
 * with wait_for_status, or naming an index not created yet) never sleeps
 * on a loop: the loops call trove_request_nowait, which answers
 * TROVE_EWAIT with a retry time while the condition does not hold; the
 * engine holds the request unconsumed (req_wait), the connection goes on
 * loop->held with interest in its peer going away only, and the loop's
 * wait is shortened to the first retry, when the request is parsed and
 * asked again (the timeout counts from its first ask, sconn.wait_since).
 * One loop thus serves everyone else while thousands of such requests
 * wait, and nothing waits beyond the loop: shutdown just closes them.
 *
 * Shutdown. SIGINT and SIGTERM are blocked in every thread and taken with
 * sigwait() by the thread that called tv_server_run; it signals an eventfd
 * that every loop watches (never read, so it stays readable for all), joins
 * the loops, which close their connections and free everything.
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api/api.h" /* clone transport (trove_node_set_clone_transport) */
#include "server/server.h"

#define READ_CHUNK 65536
#define LINGER_NS (2ull * 1000000000ull)
#define MAX_EVENTS 256
#define MMAP_THRESHOLD (256 * 1024)
#define TRIM_AFTER_MS 250 /* quiet time after work before malloc_trim */

typedef struct sconn sconn;
typedef struct loop loop;

/* A link of a list of connections waiting for something (parked, held). */
struct slink {
    sconn *prev, *next;
};

typedef struct clist {
    sconn *head, *tail;
} clist;

struct sconn {
    tv_http_conn h;
    int fd;
    uint32_t events; /* current epoll interest */
    bool lingering; /* half-closed, reading until EOF */
    uint64_t head_since; /* monotonic ns since a partial request head waits (0: none) */
    bool peer_eof;
    uint64_t last; /* monotonic ns of the last activity */
    sconn *prev, *next; /* in loop->active or loop->linger */
    loop *L;
    trove_node *node; /* the node this connection talks to */
    struct clone_l *cl; /* its clone listener (one reference), or NULL */
    tv_tls_conn *tls; /* HTTPS: the connection's TLS state, else NULL */
    bool tls_read_waits_out; /* a TLS read waits for the socket to be writable */
    bool tls_write_waits_in; /* a TLS write waits for the socket to be readable */
    bool parked; /* on loop->parked: its request waits for authentication */
    struct slink plink; /* in loop->parked */
    /* a request waiting for a condition (trove_request_nowait) */
    int64_t wait_since; /* its first ask (0: none) */
    int retry_ms; /* when the api asked to be asked again */
    bool held; /* on loop->held, asked again at retry_at */
    uint64_t retry_at; /* monotonic ns */
    struct slink hlink; /* in loop->held */
};

/* A clone's listener (see "Clones" above). */
typedef struct clone_l {
    int fd;
    trove_node *node; /* owned: freed when closed and refs reach 0 */
    atomic_int refs; /* 1 while open + one per connection */
    atomic_bool closed;
    atomic_bool node_gone; /* node freed: nothing touches the record any more */
    uint64_t *seen; /* each loop's iter when it was removed from the loops */
    struct clone_l *next; /* in srv->clones until reaped */
} clone_l;

typedef struct srv {
    loop *loops;
    int n;
    bool https; /* clone listeners speak TLS too */
    pthread_mutex_t mu; /* guards clones */
    clone_l *clones;
    atomic_int nconns; /* open connections on every loop */
    int max_conns;
} srv;

static void clone_reap_locked(srv *S);

struct loop {
    pthread_t thread;
    int ep, lfd, stopfd;
    bool listening;
    uint64_t listen_resume; /* when paused after EMFILE */
    char *scratch;
    tv_http_ctx ctx;
    clist active, linger;
    uint64_t idle_ns;
    uint64_t head_ns; /* header timeout */
    size_t nconns;
    bool worked; /* handled an event since the last trim */
    atomic_uint_fast64_t iter; /* event batches handled (clone reaping) */
    trove_node *base;
    tv_tls *tls; /* HTTPS on every listener, or NULL (shared, read-only) */
    char *wscratch; /* TLS: coalesces a small answer into one record */
    tv_auth *auth; /* --users: this loop's authenticator, or NULL */
    sconn *parked; /* connections whose request waits for authentication */
    sconn *held; /* connections whose request waits for a condition */
    struct srv *S;  /* the server (loop 0 reaps closed clone listeners) */
    uint64_t reaped; /* loop 0: when it last did */
};

/* ------------------------------------------------------------ lists */

static void list_del(clist *l, sconn *c) {
    if (c->prev) c->prev->next = c->next;
    else l->head = c->next;
    if (c->next) c->next->prev = c->prev;
    else l->tail = c->prev;
    c->prev = c->next = NULL;
}

static void list_add(clist *l, sconn *c) {
    c->prev = l->tail;
    c->next = NULL;
    if (l->tail) l->tail->next = c;
    else l->head = c;
    l->tail = c;
}

static clist *list_of(sconn *c) { return c->lingering ? &c->L->linger : &c->L->active; }

static void touch(sconn *c) {
    c->last = tv_mono_ns();
    clist *l = list_of(c);
    if (l->tail != c) {
        list_del(l, c);
        list_add(l, c);
    }
}

/* ------------------------------------------------------------- io */

static ssize_t sock_writev(void *io, const struct iovec *iov, int n) {
    sconn *c = io;
    if (c->tls) {
        int want = 0;
        ssize_t w = tv_tls_writev(c->tls, iov, n, c->L->wscratch, &want);
        c->tls_write_waits_in = w == TV_TLS_AGAIN && want == TV_TLS_WANT_READ;
        if (w == TV_TLS_AGAIN) return 0;
        return w < 0 ? -1 : w;
    }
    for (;;) {
        ssize_t w = writev(c->fd, iov, n);
        if (w >= 0) return w;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        return -1;
    }
}

/* The engine's handler, ud = the connection: a request that waits for a
 * condition answers TROVE_EWAIT and is asked again (hold). */
static int handle_request(void *ud, const char *method, const char *target, const void *body, size_t len,
                          trove_response *out) {
    sconn *c = ud;
    int rc = trove_request_nowait(c->node, method, target, body, len, &c->wait_since, &c->retry_ms, out);
    if (rc != TROVE_EWAIT) c->wait_since = 0;
    return rc;
}

static void clone_unref(clone_l *cl) {
    if (atomic_fetch_sub(&cl->refs, 1) == 1) {
        trove_node_free(cl->node);
        cl->node = NULL;
        atomic_store(&cl->node_gone, true); /* the last touch */
    }
}

/* One read from the connection: read(2)'s contract (EAGAIN when nothing
 * can be read now, EIO for a broken TLS session). Over TLS it reads whole
 * records until less than a record's room is left (tls.c). */
static ssize_t conn_read(sconn *c, char *buf, size_t cap) {
    if (!c->tls) return read(c->fd, buf, cap);
    int want = 0;
    ssize_t n = tv_tls_read(c->tls, buf, cap, &want);
    c->tls_read_waits_out = n == TV_TLS_AGAIN && want == TV_TLS_WANT_WRITE;
    if (n == TV_TLS_AGAIN) errno = EAGAIN;
    else if (n == TV_TLS_BROKEN) errno = EIO;
    return n < 0 ? -1 : n;
}

/* The link at offset off of c. */
static struct slink *link_of(sconn *c, size_t off) { return (struct slink *)(void *)((char *)c + off); }

static void wlist_add(sconn **head, sconn *c, size_t off) {
    link_of(c, off)->prev = NULL;
    link_of(c, off)->next = *head;
    if (*head) link_of(*head, off)->prev = c;
    *head = c;
}

static void wlist_del(sconn **head, sconn *c, size_t off) {
    struct slink *l = link_of(c, off);
    if (l->prev) link_of(l->prev, off)->next = l->next;
    else *head = l->next;
    if (l->next) link_of(l->next, off)->prev = l->prev;
    l->prev = l->next = NULL;
}

static void park(sconn *c) {
    if (c->parked) return;
    c->parked = true;
    wlist_add(&c->L->parked, c, offsetof(sconn, plink));
}

static void unpark(sconn *c) {
    if (!c->parked) return;
    wlist_del(&c->L->parked, c, offsetof(sconn, plink));
    c->parked = false;
}

static void hold(sconn *c) {
    if (c->held) return;
    c->held = true;
    c->retry_at = tv_mono_ns() + (uint64_t)(c->retry_ms > 0 ? c->retry_ms : 1) * 1000000u;
    wlist_add(&c->L->held, c, offsetof(sconn, hlink));
}

static void unhold(sconn *c) {
    if (!c->held) return;
    wlist_del(&c->L->held, c, offsetof(sconn, hlink));
    c->held = false;
}

static void conn_close(sconn *c) {
    loop *L = c->L;
    unpark(c);
    unhold(c);
    trove_node_http_conn(c->node, -1); /* before the clone's node can go */
    if (c->cl) clone_unref(c->cl);
    list_del(list_of(c), c);
    epoll_ctl(L->ep, EPOLL_CTL_DEL, c->fd, NULL);
    tv_tls_conn_free(c->tls);
    close(c->fd);
    tv_http_conn_fini(&c->h);
    tv_free(c);
    L->nconns--;
    atomic_fetch_sub(&L->S->nconns, 1);
}

static void set_events(sconn *c, uint32_t ev) {
    /* TLS: a read that waits to write, or a write that waits to read (each
     * only while that operation is wanted) */
    if ((ev & EPOLLIN) && c->tls_read_waits_out) ev |= EPOLLOUT;
    if ((ev & EPOLLOUT) && c->tls_write_waits_in) ev |= EPOLLIN;
    if (c->events == ev) return;
    struct epoll_event e = {.events = ev, .data.ptr = c};
    if (epoll_ctl(c->L->ep, EPOLL_CTL_MOD, c->fd, &e) == 0) c->events = ev;
}

static void start_linger(sconn *c) {
    loop *L = c->L;
    list_del(&L->active, c);
    c->lingering = true;
    list_add(&L->linger, c);
    c->last = tv_mono_ns();
    if (c->tls) {
        tv_tls_close_notify(c->tls);
        c->tls_read_waits_out = c->tls_write_waits_in = false;
    }
    shutdown(c->fd, SHUT_WR);
    set_events(c, EPOLLIN);
}

/* Brings the connection to a stable state after input or output: writes
 * what is queued, answers requests that were held back, picks the epoll
 * interest, or closes. */
static void settle(sconn *c) {
    loop *L = c->L;
    for (;;) {
        int f = tv_http_conn_flush(&L->ctx, &c->h);
        if (f < 0 || c->h.dead) {
            conn_close(c);
            return;
        }
        if (f == 0) {
            if (c->h.auth_wait) park(c);
            if (c->h.req_wait) hold(c);
            set_events(c, tv_http_conn_wants_read(&c->h) ? EPOLLIN | EPOLLOUT : EPOLLOUT);
            return;
        }
        /* everything written: requests waiting in the buffer go next */
        if (c->h.in.len && !c->h.close_after && tv_http_conn_resume(&L->ctx, &c->h)) continue;
        break;
    }
    if (c->h.close_after || c->peer_eof) {
        if (c->peer_eof) conn_close(c);
        else start_linger(c);
        return;
    }
    if (c->h.auth_wait) {
        /* parked: no interest until the verifier answers (only an error or
         * a hang-up can wake it, and closes it) */
        park(c);
        set_events(c, 0);
        return;
    }
    if (c->h.req_wait) {
        /* held until its retry time; a client that goes away (its end
         * shut down, a hang-up or an error) closes it meanwhile */
        hold(c);
        set_events(c, EPOLLRDHUP);
        return;
    }
    set_events(c, EPOLLIN);
}

/* A parked or held connection's request is asked again (it has left its
 * list and its wait flag is cleared). */
static void resume_waiting(sconn *c) {
    loop *L = c->L;
    if (c->cl && atomic_load(&c->cl->closed)) {
        conn_close(c);
        return;
    }
    L->ctx.handle_ud = c;
    touch(c);
    tv_http_conn_resume(&L->ctx, &c->h);
    settle(c);
}

/* Asks again the held requests whose retry time has come. */
static void retry_held(loop *L) {
    uint64_t now = tv_mono_ns();
    for (sconn *c = L->held, *next; c; c = next) {
        next = c->hlink.next; /* settle may hold c again: at the head, not revisited */
        if (c->retry_at > now) continue;
        unhold(c);
        c->h.req_wait = false;
        resume_waiting(c);
    }
}

/* Milliseconds until the first held request's retry (at most cap). */
static int held_timeout(const loop *L, int cap) {
    uint64_t now = tv_mono_ns();
    for (const sconn *c = L->held; c; c = c->hlink.next) {
        int ms = c->retry_at <= now ? 0 : (int)TV_MIN((c->retry_at - now + 999999u) / 1000000u, (uint64_t)cap);
        if (ms < cap) cap = ms;
    }
    return cap;
}

/* Verifications finished: their results go into the cache, and every
 * parked connection asks again (a hit now, or parked again). */
static void on_auth_done(loop *L) {
    tv_auth_done(L->auth);
    sconn *list = L->parked;
    L->parked = NULL;
    for (sconn *c = list; c; c = c->plink.next) c->parked = false; /* detached */
    for (sconn *c = list, *next; c; c = next) {
        next = c->plink.next;
        c->plink.prev = c->plink.next = NULL;
        c->h.auth_wait = false;
        resume_waiting(c);
    }
}

static void on_readable(sconn *c) {
    loop *L = c->L;
    if (c->cl && atomic_load(&c->cl->closed)) {
        conn_close(c);
        return;
    }
    L->ctx.handle_ud = c;
    if (c->lingering) {
        for (int i = 0; i < 16; i++) {
            ssize_t n = read(c->fd, L->scratch, READ_CHUNK);
            if (n > 0) continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
            conn_close(c);
            return;
        }
        return;
    }
    if (!tv_http_conn_wants_read(&c->h)) {
        settle(c);
        return;
    }
    ssize_t n;
    if (c->h.in.len) {
        /* a request is pending: read straight into the connection buffer */
        size_t want = READ_CHUNK;
        if (c->h.need > c->h.in.len && c->h.need - c->h.in.len > want) want = c->h.need - c->h.in.len;
        if (want > (8u << 20)) want = 8u << 20;
        if (!tv_buf_reserve(&c->h.in, want)) {
            conn_close(c);
            return;
        }
        n = conn_read(c, c->h.in.data + c->h.in.len, want);
        if (n > 0) {
            c->h.in.len += (size_t)n;
            c->h.in.data[c->h.in.len] = '\0';
            touch(c);
            tv_http_conn_resume(&L->ctx, &c->h);
        }
    } else {
        n = conn_read(c, L->scratch, READ_CHUNK);
        if (n > 0) {
            touch(c);
            tv_http_conn_feed(&L->ctx, &c->h, L->scratch, (size_t)n);
        }
    }
    if (n == 0) {
        c->peer_eof = true;
        c->h.close_after = true;
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        conn_close(c);
        return;
    }
    /* a head still incomplete (its size is not known yet) past the header
     * timeout: a slow client holding the connection a byte at a time */
    if (c->h.in.len && !c->h.need) {
        uint64_t now = tv_mono_ns();
        if (!c->head_since) c->head_since = now;
        else if (now - c->head_since > L->head_ns) {
            conn_close(c);
            return;
        }
    } else {
        c->head_since = 0;
    }
    settle(c);
}

/* Takes a reference on an open clone listener for a new connection; false
 * once it is closed (its count may already have reached 0). */
static bool clone_ref(clone_l *cl) {
    if (atomic_load(&cl->closed)) return false;
    int n = atomic_load(&cl->refs);
    while (n > 0)
        if (atomic_compare_exchange_weak(&cl->refs, &n, n + 1)) return true;
    return false;
}

static void on_accept(loop *L, clone_l *cl) {
    for (int k = 0; k < 64; k++) {
        /* the reference is taken before accept, so a concurrent close
         * cannot free the clone's node under the new connection */
        if (cl && !clone_ref(cl)) return;
        int fd = accept4(cl ? cl->fd : L->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (cl) clone_unref(cl);
            if (!cl && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)) {
                epoll_ctl(L->ep, EPOLL_CTL_DEL, L->lfd, NULL);
                L->listening = false;
                L->listen_resume = tv_mono_ns() + 100000000ull;
            }
            return;
        }
        /* the connection limit: over it, closed at once (the client sees
         * the connection reset, not a queue that never drains) */
        if (atomic_fetch_add(&L->S->nconns, 1) >= L->S->max_conns) {
            atomic_fetch_sub(&L->S->nconns, 1);
            close(fd);
            if (cl) clone_unref(cl);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        sconn *c = tv_calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            atomic_fetch_sub(&L->S->nconns, 1);
            if (cl) clone_unref(cl);
            continue;
        }
        c->fd = fd;
        c->L = L;
        c->h.io = c;
        if (L->tls && !(c->tls = tv_tls_conn_new(L->tls, fd))) {
            close(fd);
            tv_free(c);
            atomic_fetch_sub(&L->S->nconns, 1);
            if (cl) clone_unref(cl);
            continue;
        }
        c->node = cl ? cl->node : L->base;
        c->cl = cl; /* holds the reference taken above */
        c->events = EPOLLIN;
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(L->ep, EPOLL_CTL_ADD, fd, &e) != 0) {
            tv_tls_conn_free(c->tls);
            close(fd);
            tv_free(c);
            atomic_fetch_sub(&L->S->nconns, 1);
            if (cl) clone_unref(cl);
            continue;
        }
        c->last = tv_mono_ns();
        list_add(&L->active, c);
        L->nconns++;
        trove_node_http_conn(c->node, 1);
    }
}

static void expire(loop *L) {
    uint64_t now = tv_mono_ns();
    while (L->active.head && now - L->active.head->last >= L->idle_ns) conn_close(L->active.head);
    while (L->linger.head && now - L->linger.head->last >= LINGER_NS) conn_close(L->linger.head);
    if (!L->listening && now >= L->listen_resume) {
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = &L->lfd};
        if (epoll_ctl(L->ep, EPOLL_CTL_ADD, L->lfd, &e) == 0) L->listening = true;
    }
}

static void *loop_main(void *arg) {
    loop *L = arg;
    struct epoll_event evs[MAX_EVENTS];
    for (;;) {
        int timeout = L->listening ? 1000 : 100;
        if (L->linger.head || L->worked) timeout = TV_MIN(timeout, TRIM_AFTER_MS);
        if (L->held) timeout = held_timeout(L, timeout);
        int n = epoll_wait(L->ep, evs, MAX_EVENTS, timeout);
        if (n < 0 && errno != EINTR) break;
        if (n > 0) {
            L->worked = true;
        } else if (n == 0 && L->worked) {
            /* quiet for TRIM_AFTER_MS after work: give freed memory back */
            L->worked = false;
#ifdef __GLIBC__
            malloc_trim(0);
#endif
        }
        bool stop = false;
        for (int i = 0; i < n; i++) {
            void *p = evs[i].data.ptr;
            if (p == &L->stopfd) {
                stop = true;
            } else if (p == &L->auth) {
                on_auth_done(L);
            } else if (p == &L->lfd) {
                on_accept(L, NULL);
            } else if ((uintptr_t)p & 1) {
                on_accept(L, (clone_l *)((uintptr_t)p & ~(uintptr_t)1));
            } else {
                sconn *c = p;
                if ((c->parked || c->held) && (evs[i].events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP)))
                    conn_close(c); /* gone while it waits */
                else if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(c);
                else if ((evs[i].events & EPOLLOUT) && c->tls_read_waits_out) on_readable(c);
                else if (evs[i].events & EPOLLOUT) {
                    L->ctx.handle_ud = c;
                    touch(c);
                    settle(c);
                }
            }
            /* a connection closed above may be named again later in evs: it
             * is not, because each fd appears at most once per epoll_wait */
        }
        atomic_fetch_add_explicit(&L->iter, 1, memory_order_release);
        if (stop) break;
        expire(L);
        if (L->held) retry_held(L);
        /* closed clones' listeners wait for every loop to pass a batch and
         * for their last connection; without this they would wait for the
         * next clone to be opened or closed (loops wake at least once a
         * second) */
        uint64_t now = tv_mono_ns();
        if (L == &L->S->loops[0] && now - L->reaped > 1000000000ull &&
            pthread_mutex_trylock(&L->S->mu) == 0) {
            clone_reap_locked(L->S);
            pthread_mutex_unlock(&L->S->mu);
            L->reaped = now;
        }
    }
    while (L->active.head) conn_close(L->active.head);
    while (L->linger.head) conn_close(L->linger.head);
    return NULL;
}

/* ------------------------------------------------------------ clones */

static int bound_port(int fd);

/* Removes a listener from every loop and remembers their counts (out of
 * memory: none are kept and the record stays until the server stops). */
static void clone_detach(srv *S, clone_l *cl) {
    for (int i = 0; i < S->n; i++) epoll_ctl(S->loops[i].ep, EPOLL_CTL_DEL, cl->fd, NULL);
    uint64_t *seen = tv_malloc((size_t)S->n * sizeof *seen);
    for (int i = 0; seen && i < S->n; i++) seen[i] = atomic_load_explicit(&S->loops[i].iter, memory_order_acquire);
    pthread_mutex_lock(&S->mu);
    cl->seen = seen;
    pthread_mutex_unlock(&S->mu);
}

/* Frees closed records no loop can still name (S->mu held). */
static void clone_reap_locked(srv *S) {
    for (clone_l **pp = &S->clones; *pp;) {
        clone_l *cl = *pp;
        bool done = cl->seen && atomic_load(&cl->node_gone);
        for (int i = 0; done && i < S->n; i++)
            if (atomic_load_explicit(&S->loops[i].iter, memory_order_acquire) <= cl->seen[i]) done = false;
        if (!done) {
            pp = &cl->next;
            continue;
        }
        *pp = cl->next;
        close(cl->fd);
        tv_free(cl->seen);
        tv_free(cl);
    }
}

static void clone_close(void *ud, void *token);

static int clone_open(void *ud, trove_node *clone, void **token) {
    srv *S = ud;
    pthread_mutex_lock(&S->mu);
    clone_reap_locked(S);
    pthread_mutex_unlock(&S->mu);
    clone_l *cl = tv_calloc(1, sizeof *cl);
    if (!cl) return -1;
    cl->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (cl->fd < 0 || bind(cl->fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(cl->fd, 4096) != 0) {
        if (cl->fd >= 0) close(cl->fd);
        tv_free(cl);
        return -1;
    }
    cl->node = clone;
    atomic_init(&cl->refs, 1);
    atomic_init(&cl->closed, false);
    atomic_init(&cl->node_gone, false);
    pthread_mutex_lock(&S->mu);
    cl->next = S->clones;
    S->clones = cl;
    pthread_mutex_unlock(&S->mu);
    struct epoll_event e = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.u64 = (uint64_t)(uintptr_t)cl | 1u};
    int port = bound_port(cl->fd);
    for (int i = 0; i < S->n && port > 0; i++)
        if (epoll_ctl(S->loops[i].ep, EPOLL_CTL_ADD, cl->fd, &e) != 0) port = -1;
    if (port <= 0) {
        /* a loop may already have seen it: retire it like a closed one; the
         * caller keeps the node */
        atomic_store(&cl->closed, true);
        shutdown(cl->fd, SHUT_RDWR);
        clone_detach(S, cl);
        cl->node = NULL;
        atomic_store(&cl->node_gone, true);
        return -1;
    }
    /* a clone serves the management API too: its own clones get their
     * own ports the same way, and close when it is freed */
    trove_node_set_clone_transport(clone, clone_open, clone_close, S);
    trove_node_set_clone_https(clone, S->https);
    *token = cl;
    return port;
}

static void clone_close(void *ud, void *token) {
    srv *S = ud;
    clone_l *cl = token;
    if (atomic_exchange(&cl->closed, true)) return;
    clone_detach(S, cl);
    shutdown(cl->fd, SHUT_RDWR); /* refuses new connections now */
    clone_unref(cl);
    pthread_mutex_lock(&S->mu);
    clone_reap_locked(S);
    pthread_mutex_unlock(&S->mu);
}

/* ----------------------------------------------------------- startup */

static int listen_on(const struct addrinfo *ai, int port) {
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
        close(fd);
        return -1;
    }
    struct sockaddr_storage ss;
    memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
    if (ss.ss_family == AF_INET) ((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
    else ((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
    if (bind(fd, (struct sockaddr *)&ss, ai->ai_addrlen) != 0 || listen(fd, 4096) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int bound_port(int fd) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) return -1;
    if (ss.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&ss)->sin_port);
    return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

static void raise_nofile(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static void loop_free(loop *L) {
    if (L->ep >= 0) close(L->ep);
    if (L->lfd >= 0) close(L->lfd);
    tv_free(L->scratch);
    tv_free(L->wscratch);
    tv_auth_free(L->auth);
    tv_http_ctx_fini(&L->ctx);
}

int tv_server_run(trove_node *node, const tv_server_options *opts) {
    const char *host = opts && opts->host ? opts->host : "127.0.0.1";
    int port = opts ? opts->port : 9200;
    int nthreads = opts && opts->threads > 0 ? opts->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (nthreads < 1) nthreads = 1;
    if (nthreads > 256) nthreads = 256;
    int idle = opts && opts->idle_timeout_s > 0 ? opts->idle_timeout_s : 300;
    int head = opts && opts->header_timeout_s > 0 ? opts->header_timeout_s : 30;
    if (port < 0 || port > 65535) {
        fprintf(stderr, "trove: invalid port %d\n", port);
        return 1;
    }

    raise_nofile();
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
#endif
    signal(SIGPIPE, SIG_IGN);
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);

    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *ai = NULL;
    int gai = getaddrinfo(host, "0", &hints, &ai);
    if (gai != 0 || !ai) {
        fprintf(stderr, "trove: cannot resolve host [%s]: %s\n", host, gai_strerror(gai));
        return 1;
    }

    loop *loops = tv_calloc((size_t)nthreads, sizeof *loops);
    srv S = {.loops = loops, .n = 0, .https = opts && opts->tls,
             .max_conns = opts && opts->max_connections > 0 ? opts->max_connections : 65536};
    pthread_mutex_init(&S.mu, NULL);
    int stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    int rc = 1, started = 0, made = 0;
    if (!loops || stopfd < 0) {
        fprintf(stderr, "trove: out of memory\n");
        goto done;
    }
    for (int i = 0; i < nthreads; i++, made++) {
        loop *L = &loops[i];
        L->S = &S;
        L->ep = L->lfd = -1;
        L->stopfd = stopfd;
        L->base = node;
        L->idle_ns = (uint64_t)idle * 1000000000ull;
        L->head_ns = (uint64_t)head * 1000000000ull;
        tv_http_ctx_init(&L->ctx, handle_request, NULL, sock_writev); /* ud: each connection */
        L->scratch = tv_malloc(READ_CHUNK);
        if (opts && opts->tls) {
            L->tls = opts->tls;
            L->wscratch = tv_malloc(16384);
        }
        if (opts && opts->users) {
            L->auth = tv_auth_new(opts->users);
            L->ctx.authenticate = tv_auth_authenticate;
            L->ctx.authorize = tv_auth_authorize;
            L->ctx.auth_ud = L->auth;
        }
        if (!L->scratch || (L->tls && !L->wscratch) || (opts && opts->users && !L->auth)) {
            fprintf(stderr, "trove: out of memory\n");
            made++;
            goto done;
        }
        L->lfd = listen_on(ai, port);
        if (L->lfd < 0) {
            fprintf(stderr, "trove: cannot listen on %s:%d: %s\n", host, port, strerror(errno));
            made++;
            goto done;
        }
        if (port == 0) port = bound_port(L->lfd);
        L->ep = epoll_create1(EPOLL_CLOEXEC);
        if (L->ep < 0 || !L->scratch) {
            fprintf(stderr, "trove: cannot create an event loop: %s\n", strerror(errno));
            made++;
            goto done;
        }
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = &L->lfd};
        struct epoll_event s = {.events = EPOLLIN, .data.ptr = &L->stopfd};
        struct epoll_event a = {.events = EPOLLIN, .data.ptr = &L->auth};
        if (epoll_ctl(L->ep, EPOLL_CTL_ADD, L->lfd, &e) != 0 || epoll_ctl(L->ep, EPOLL_CTL_ADD, stopfd, &s) != 0 ||
            (L->auth && epoll_ctl(L->ep, EPOLL_CTL_ADD, tv_auth_fd(L->auth), &a) != 0)) {
            fprintf(stderr, "trove: epoll: %s\n", strerror(errno));
            made++;
            goto done;
        }
        L->listening = true;
    }
    S.n = nthreads;
    if (trove_node_set_clone_transport(node, clone_open, clone_close, &S) != TROVE_OK) {
        fprintf(stderr, "trove: out of memory\n");
        goto done;
    }
    trove_node_set_clone_https(node, S.https);
    for (int i = 0; i < nthreads; i++) {
        if (pthread_create(&loops[i].thread, NULL, loop_main, &loops[i]) != 0) {
            fprintf(stderr, "trove: cannot start a thread\n");
            goto done;
        }
        started++;
    }
    bool v6 = strchr(host, ':') != NULL;
    fprintf(stderr, "trove: listening on %s://%s%s%s:%d\n", S.https ? "https" : "http", v6 ? "[" : "", host,
            v6 ? "]" : "", port);
    fflush(stderr);
#ifdef __GLIBC__
    /* whatever loading the seeds freed goes back before anyone measures:
     * loops that have not worked yet do not trim */
    malloc_trim(0);
#endif
    if (opts && opts->on_ready) opts->on_ready(opts->on_ready_ud, port); /* ready hook (--ready-json) */

    for (;;) {
        int sig = 0;
        if (sigwait(&sigs, &sig) == 0 && (sig == SIGINT || sig == SIGTERM)) break;
    }
    rc = 0;
done:
    if (stopfd >= 0) {
        uint64_t one = 1;
        if (write(stopfd, &one, sizeof one) < 0) rc = 1;
    }
    for (int i = 0; i < started; i++) pthread_join(loops[i].thread, NULL);
    trove_node_set_clone_transport(node, NULL, NULL, NULL); /* closes live clones */
    for (clone_l *cl = S.clones, *nx; cl; cl = nx) {
        nx = cl->next;
        close(cl->fd);
        tv_free(cl->seen);
        tv_free(cl);
    }
    pthread_mutex_destroy(&S.mu);
    for (int i = 0; i < made && loops; i++) loop_free(&loops[i]);
    if (stopfd >= 0) close(stopfd);
    tv_free(loops);
    freeaddrinfo(ai);
    if (rc == 0) {
        fprintf(stderr, "trove: stopped\n");
        fflush(stderr);
    }
    return rc;
}
