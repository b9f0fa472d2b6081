/*
 * server.h — the transport of `trove serve`: HTTP/1.1 over epoll loops in
 * front of trove_request().
 *
 * Owns: the listeners and their worker threads (server.c), the per-
 * connection HTTP/1.1 protocol engine (http_conn.c: keep-alive, pipelining,
 * chunked and compressed request bodies, Expect: 100-continue, limits,
 * Content-Type checks, compressed responses) and the request parser
 * (http_parse.h). Nothing here knows about indices or JSON beyond the error
 * envelope the transport itself answers.
 *
 * The engine is socket-free: a connection is fed bytes and writes its
 * answers through a callback, so the fuzz target drives exactly the code the
 * server runs.
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
 * or a trove_status when no response could be produced.
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
} tv_http_conn;

/* Consumes freshly received bytes (not in c->in). */
void tv_http_conn_feed(tv_http_ctx *x, tv_http_conn *c, const char *data, size_t n);
/* Processes c->in (after bytes were read into it, or output drained).
 * Returns true when it consumed anything. */
bool tv_http_conn_resume(tv_http_ctx *x, tv_http_conn *c);
/* Writes pending output: 1 all written, 0 some left (wait for writable),
 * -1 broken connection. */
int tv_http_conn_flush(tv_http_ctx *x, tv_http_conn *c);
/* Whether the connection should read more now (no backlog of answers, not
 * closing). */
bool tv_http_conn_wants_read(const tv_http_conn *c);
static inline size_t tv_http_conn_pending(const tv_http_conn *c) { return c->out.len - c->out_off; }
void tv_http_conn_fini(tv_http_conn *c);

/* --------------------------------------------------------------- server */

typedef struct tv_server_options {
    const char *host; /* NULL: "127.0.0.1" */
    int port; /* 0: a free port */
    int threads; /* <= 0: the number of online CPUs */
    int idle_timeout_s; /* <= 0: 300 */
    /* Called once on the calling thread when every listener is bound and
     * the loops run, with the bound port (the free one picked for port 0),
     * before waiting for a signal. NULL: none. */
    void (*on_ready)(void *ud, int port);
    void *on_ready_ud;
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
