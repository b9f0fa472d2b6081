/*
 * http_rx.h — reading one HTTP/1.1 response, for the benchmarks' minimal
 * keep-alive clients (bench_http_clone, bench_fulltext_http; header-only:
 * CMake builds each bench/bench_*.c as its own program).
 *
 * A client that waits for each answer has nothing buffered between
 * responses, so a response is read into an empty buffer: the head up to
 * the first blank line, then exactly Content-Length bytes of body (trove
 * sends no chunked answers: one is refused, not misread). Bytes past the
 * response fail the run: they would be a second, unasked-for answer, a
 * framing error on one side or the other. "connection: close" (or
 * HTTP/1.0 without keep-alive) sets `closed`.
 *
 * The including program defines _GNU_SOURCE (for memmem) and `static void
 * die(const char *what, const char *detail)` (print and exit) before
 * including this file.
 */
#ifndef TROVE_BENCH_HTTP_RX_H
#define TROVE_BENCH_HTTP_RX_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

typedef struct http_rx {
    int fd;
    char *buf;   /* received bytes: [0, len), a spare byte for a NUL */
    size_t len, cap;
    bool closed; /* the server said connection: close */
} http_rx;

/* Receives more bytes into buf (grown as needed); dies on EOF or error. */
static inline void http_rx_fill(http_rx *c) {
    if (c->cap - c->len < 4096) {
        size_t cap = c->cap ? c->cap * 2 : 16384;
        char *b = realloc(c->buf, cap);
        if (!b) die("out of memory", NULL);
        c->buf = b;
        c->cap = cap;
    }
    ssize_t k;
    do k = recv(c->fd, c->buf + c->len, c->cap - c->len - 1, 0);
    while (k < 0 && errno == EINTR);
    if (k == 0) die("the server closed the connection", NULL);
    if (k < 0) die("recv", strerror(errno));
    c->len += (size_t)k;
}

/* The value of header `name` in the head lines [h, e), or NULL; *vlen is
 * its length without surrounding spaces. */
static inline const char *http_rx_header(const char *h, const char *e, const char *name, size_t *vlen) {
    size_t nl = strlen(name);
    while (h < e) {
        const char *eol = memchr(h, '\n', (size_t)(e - h));
        if (!eol) eol = e;
        if ((size_t)(eol - h) > nl && h[nl] == ':' && strncasecmp(h, name, nl) == 0) {
            const char *v = h + nl + 1, *ve = eol;
            while (v < ve && (*v == ' ' || *v == '\t')) v++;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t')) ve--;
            *vlen = (size_t)(ve - v);
            return v;
        }
        h = eol + 1;
    }
    return NULL;
}

/* Reads one response (the buffer's previous contents are dropped): its
 * status; *body (NUL-terminated, in buf until the next response) and
 * *body_len. what names the request in messages. */
static inline int http_rx_response(http_rx *c, const char **body, size_t *body_len, const char *what) {
    c->len = 0;
    char *end = NULL;
    size_t scanned = 0;
    while (!end) {
        http_rx_fill(c);
        size_t from = scanned > 3 ? scanned - 3 : 0;
        end = memmem(c->buf + from, c->len - from, "\r\n\r\n", 4);
        scanned = c->len;
        if (!end && c->len > (1u << 20)) die("response head too long", what);
    }
    size_t head_len = (size_t)(end - c->buf) + 4;
    c->buf[c->len] = 0;
    int minor, status;
    if (sscanf(c->buf, "HTTP/1.%d %d", &minor, &status) != 2) die("bad status line", what);
    const char *h = strchr(c->buf, '\n') + 1, *he = end + 2;
    size_t vl;
    if (http_rx_header(h, he, "transfer-encoding", &vl))
        die("unexpected transfer-encoding (only Content-Length is read)", what);
    const char *v = http_rx_header(h, he, "content-length", &vl);
    if (!v || !vl) die("response without Content-Length", what);
    char *ne;
    unsigned long long clen = strtoull(v, &ne, 10);
    if (ne != v + vl) die("bad Content-Length", what);
    v = http_rx_header(h, he, "connection", &vl);
    if ((v && vl == 5 && strncasecmp(v, "close", 5) == 0) || (minor == 0 && !v)) c->closed = true;
    while (c->len < head_len + clen) http_rx_fill(c);
    if (c->len > head_len + clen) die("bytes after the response (a second answer?)", what);
    c->buf[c->len] = 0; /* http_rx_fill keeps a spare byte */
    *body = c->buf + head_len;
    *body_len = (size_t)clen;
    return status;
}

#endif /* TROVE_BENCH_HTTP_RX_H */
