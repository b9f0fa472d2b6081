/*
 * server.h — the transport of `trove serve`: HTTP/1.1 over epoll loops in
 * front of trove_request().
 *
 * Owns: the listeners and their worker threads (server.c), the per-
 * connection HTTP/1.1 protocol engine (http_conn.c: keep-alive, pipelining,
 * chunked and compressed request bodies, Expect: 100-continue, limits,
 * Content-Type checks, compressed responses) and the request parser
 * (http_parse.c, http_parse.h: request heads, chunked bodies, media types,
 * Accept-Encoding). Nothing here knows about indices or JSON beyond the
 * error envelope the transport itself answers.
 *
 * The engine is socket-free: a connection is fed bytes and writes its
 * answers through a callback, so the fuzz target drives exactly the code the
 * server runs.
 *
 * Opt-in security, linked into the trove executable only (libtrove does not
 * depend on OpenSSL or libargon2): TLS (tls.c, OpenSSL) between the socket
 * and the engine, and HTTP Basic authentication with per-role, per-index
 * authorization (auth.c, argon2id hashes), which the engine calls through
 * two hooks of its context so that it stays free of both libraries.
 */
#ifndef TROVE_SERVER_SERVER_H
#define TROVE_SERVER_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "server/http_parse.h"
#include "trove.h"
#include "util/util.h"

/* ------------------------------------------------------ protocol engine */

/*
 * Runs one request (trove_request's contract). Returns 0 with out filled,
 * or a trove_status when no response could be produced; TROVE_EWAIT (out
 * empty) holds the request until the transport resumes the connection
 * (trove_request_nowait's contract).
 */
typedef int (*tv_http_handler)(void *ud, const char *method, const char *target, const void *body,
                               size_t body_len, trove_response *out);
/*
 * Writes as much of iov[0..n) as the peer takes now. Returns the bytes
 * written (0 when it would block) or -1 when the connection is broken.
 */
typedef ssize_t (*tv_http_writev)(void *io, const struct iovec *iov, int n);

/*
 * Per-thread state shared by the connections of one event loop: the request
 * arena (reset after every request), zlib streams and their buffers. Not
 * thread-safe: one per loop. Initialise with tv_http_ctx_init, release with
 * tv_http_ctx_fini.
 */
typedef struct tv_http_ctx {
    tv_http_handler handle;
    void *handle_ud;
    tv_http_writev writev;
    size_t max_content; /* http.max_content_length (100mb) */
    tv_arena arena;
    tv_buf zin; /* a decompressed request body */
    tv_buf zout; /* a compressed response body */
    void *zdeflate[2]; /* z_stream for gzip and deflate responses, lazily */
    void *zinflate; /* z_stream for request bodies, lazily */
    /* Authentication and authorization (trove serve --users), set after
     * tv_http_ctx_init; NULL: every request runs. authenticate gets the
     * Authorization header's value (NULL when absent) when a request's head
     * is complete and returns the caller (opaque), NULL (401), or
     * TV_HTTP_AUTH_PENDING: the answer is being worked out elsewhere; the
     * connection then holds the request (auth_wait, reading nothing more)
     * until the transport clears auth_wait and resumes it, which asks
     * again. authorize runs before the api layer with the (inflated) body
     * and returns true to run the request, or false with a 403 body in
     * deny. */
    const void *(*authenticate)(void *ud, const char *value, size_t len);
    bool (*authorize)(void *ud, const void *user, const char *method, const char *target, const void *body,
                      size_t len, tv_buf *deny);
    void *auth_ud;
} tv_http_ctx;

void tv_http_ctx_init(tv_http_ctx *x, tv_http_handler handle, void *handle_ud, tv_http_writev writev);
void tv_http_ctx_fini(tv_http_ctx *x);

/*
 * One connection's protocol state. Zero-initialise, set io (passed to the
 * writev callback); release with tv_http_conn_fini. Buffers are heap-
 * allocated only while needed (a partial request, unsent output) and freed
 * when empty, so an idle connection holds none.
 */
typedef struct tv_http_conn {
    void *io;
    tv_buf in; /* received bytes not yet consumed (starts at a request) */
    tv_buf out; /* answers not yet written, from out_off */
    size_t out_off;
    tv_buf body; /* a chunked body, decoded */
    tv_http_head head; /* valid when head_done */
    bool head_done;
    bool continue_sent;
    tv_http_chunked ch;
    size_t ch_used; /* raw body bytes the chunked decoder consumed */
    size_t need; /* bytes the current request needs in `in`, when known */
    bool close_after; /* no more requests: close once out is written */
    bool dead; /* writing failed: close now */
    uint64_t requests; /* answered on this connection */
    const void *user; /* the current request's caller (ctx->authenticate) */
    bool auth_wait; /* the request at `in` waits for its authentication */
    bool req_wait; /* the request at `in` waits for a condition: its handler
                      answered TROVE_EWAIT; nothing of it was consumed, and
                      the transport clears this and resumes it later */
} tv_http_conn;

/* ctx->authenticate's "ask again later" (never a caller's address). */
#define TV_HTTP_AUTH_PENDING ((const void *)(uintptr_t)1)

/* Consumes freshly received bytes (not in c->in). */
void tv_http_conn_feed(tv_http_ctx *x, tv_http_conn *c, const char *data, size_t n);
/* Processes c->in (after bytes were read into it, or output drained).
 * Returns true when it consumed anything. */
bool tv_http_conn_resume(tv_http_ctx *x, tv_http_conn *c);
/* Writes pending output: 1 all written, 0 some left (wait for writable),
 * -1 broken connection. */
int tv_http_conn_flush(tv_http_ctx *x, tv_http_conn *c);
/* Whether the connection should read more now (no backlog of answers, not
 * closing, not waiting for an authentication). */
bool tv_http_conn_wants_read(const tv_http_conn *c);
static inline size_t tv_http_conn_pending(const tv_http_conn *c) { return c->out.len - c->out_off; }
void tv_http_conn_fini(tv_http_conn *c);

/* ------------------------------------------------------------------ TLS */

/* The server's TLS context (tls.c): certificate, key, protocol floor. */
typedef struct tv_tls tv_tls;
/* One connection's TLS state. */
typedef struct tv_tls_conn tv_tls_conn;

/*
 * Loads a PEM certificate chain and its PEM private key; TLS 1.2 minimum.
 * Returns owned (tv_tls_free), or NULL with a sentence naming the file and
 * OpenSSL's reason in err. Shared by every loop (read-only after start).
 */
tv_tls *tv_tls_new(const char *cert_file, const char *key_file, char *err, size_t errlen);
void tv_tls_free(tv_tls *t); /* NULL is a no-op */

#define TV_TLS_AGAIN (-1)  /* would block: wait for *want */
#define TV_TLS_BROKEN (-2) /* protocol or socket error: close */
#define TV_TLS_EOF 0
#define TV_TLS_WANT_READ 1
#define TV_TLS_WANT_WRITE 2

/* A server-side TLS connection over the non-blocking socket fd (not owned).
 * NULL when out of memory. */
tv_tls_conn *tv_tls_conn_new(tv_tls *t, int fd);
void tv_tls_conn_free(tv_tls_conn *c); /* NULL is a no-op */
/* Reads plaintext into buf (cap >= 16 KiB): bytes read (> 0), TV_TLS_EOF,
 * TV_TLS_AGAIN (*want: the readiness to wait for) or TV_TLS_BROKEN.
 * Leaves no decrypted byte inside OpenSSL (see tls.c). */
ssize_t tv_tls_read(tv_tls_conn *c, char *buf, size_t cap, int *want);
/* tv_http_writev's contract over TLS: bytes accepted (0 or more), or
 * TV_TLS_AGAIN / TV_TLS_BROKEN. scratch (16 KiB, or NULL) coalesces small
 * writes. */
ssize_t tv_tls_writev(tv_tls_conn *c, const struct iovec *iov, int n, char *scratch, int *want);
/* Sends close_notify, best effort (before a lingering close). */
void tv_tls_close_notify(tv_tls_conn *c);

/* ------------------------------------------------------------- auth */

/* The users of `--users FILE` (auth.c): read-only once loaded. */
typedef struct tv_users tv_users;
/* One loop's authentication state (its cache of verified credentials). */
typedef struct tv_auth tv_auth;

/*
 * Reads a users file (lines "name:argon2id-hash:roles", blank lines and
 * '#' comments). Returns owned (tv_users_free), or NULL with "FILE:LINE:
 * reason" (or "FILE: reason") in err.
 */
tv_users *tv_users_load(const char *path, char *err, size_t errlen);
void tv_users_free(tv_users *u); /* NULL is a no-op */
size_t tv_users_count(const tv_users *u);

/* A loop's authenticator over users (borrowed, outliving it), with its own
 * verifier thread. NULL when out of memory or no thread can start. Not
 * thread-safe: one per loop. Freeing joins the thread. */
tv_auth *tv_auth_new(const tv_users *u);
void tv_auth_free(tv_auth *a); /* NULL is a no-op */
/* An eventfd that becomes readable when verifications have finished: the
 * loop then calls tv_auth_done and resumes its waiting connections. */
int tv_auth_fd(const tv_auth *a);
/* Takes finished verifications into the cache. */
void tv_auth_done(tv_auth *a);
/* tv_http_ctx's hooks, with ud = a tv_auth (authenticate answers
 * TV_HTTP_AUTH_PENDING while the verifier thread works). */
const void *tv_auth_authenticate(void *ud, const char *value, size_t len);
bool tv_auth_authorize(void *ud, const void *user, const char *method, const char *target, const void *body,
                       size_t len, tv_buf *deny);

/*
 * For `trove passwd`: checks a roles field ("read,write:logs-*"); false
 * with the reason in err. */
bool tv_auth_roles_check(const char *roles, char *err, size_t errlen);
/* Checks a user name (letters, digits and . _ @ + -); false with the
 * reason in err. */
bool tv_auth_name_check(const char *name, char *err, size_t errlen);
/*
 * Hashes a password with argon2id (t=3, m=64 MiB, p=1, a 16-byte salt from
 * getrandom) into out as the encoded string ($argon2id$v=19$...). Returns
 * true, or false with the reason in err.
 */
bool tv_auth_hash_password(const char *pw, size_t n, char *out, size_t cap, char *err, size_t errlen);

/* --------------------------------------------------------------- server */

typedef struct tv_server_options {
    const char *host; /* NULL: "127.0.0.1" */
    int port; /* 0: a free port */
    int threads; /* <= 0: the number of online CPUs */
    int idle_timeout_s; /* <= 0: 300 */
    /* A request head (line and headers) not complete this long after its
     * first byte closes the connection (a slow client holding it open a
     * byte at a time). <= 0: 30. */
    int header_timeout_s;
    /* Connections open at once on all listeners; past it a new one is
     * closed as soon as it is accepted. <= 0: 65536. */
    int max_connections;
    /* Called once on the calling thread when every listener is bound and
     * the loops run, with the bound port (the free one picked for port 0),
     * before waiting for a signal. NULL: none. */
    void (*on_ready)(void *ud, int port);
    void *on_ready_ud;
    tv_tls *tls; /* NULL: plain HTTP; else HTTPS on every listener (borrowed) */
    const tv_users *users; /* NULL: no authentication; else HTTP Basic (borrowed) */
} tv_server_options;

/*
 * Serves node until SIGINT or SIGTERM, then closes every connection, joins
 * the loops and returns 0. Logs "trove: listening on http://HOST:PORT" to
 * stderr once every listener is bound. Returns non-zero (after a message on
 * stderr) when it cannot start. Blocks SIGINT/SIGTERM and ignores SIGPIPE in
 * the calling process; another thread of the process may stop the server by
 * sending the process SIGTERM (kill(getpid(), SIGTERM)) once it has blocked
 * SIGINT/SIGTERM itself.
 */
int tv_server_run(trove_node *node, const tv_server_options *opts);

#endif /* TROVE_SERVER_SERVER_H */
