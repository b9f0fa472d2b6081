/*
 * sink.c — REST calls to a node in process or to a server over HTTP (see
 * tv_sink in sync.h). A minimal HTTP/1.1 client: one keep-alive
 * connection, one request at a time, answers framed by Content-Length or
 * chunked encoding (what OpenSearch and trove send). A connection that
 * breaks is closed and opened again on the next request, so a feed rides
 * over a restart of the server it writes to; the request that saw the
 * break reports it (the caller decides whether to send it again: every
 * request a feed sends is idempotent).
 */
#define _GNU_SOURCE /* memmem, strcasestr */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sync/sync.h"

void tv_sink_init_node(tv_sink *s, trove_node *node) {
    memset(s, 0, sizeof *s);
    s->node = node;
    s->fd = -1;
    tv_arena_init(&s->arena);
}

bool tv_sink_init_url(tv_sink *s, const char *url) {
    memset(s, 0, sizeof *s);
    s->fd = -1;
    tv_arena_init(&s->arena);
    if (strncmp(url, "http://", 7) != 0 || !url[7]) {
        fprintf(stderr, "trove: a URL is http://HOST[:PORT] (no TLS), not [%s]\n", url);
        return false;
    }
    snprintf(s->url, sizeof s->url, "%s", url);
    snprintf(s->host, sizeof s->host, "%s", url + 7);
    char *slash = strchr(s->host, '/');
    if (slash) *slash = '\0';
    return true;
}

void tv_sink_fini(tv_sink *s) {
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    trove_response_fini(&s->last);
    tv_arena_fini(&s->arena);
}

/* Opens s->fd to s->host; false (reason on stderr once per outage) when it
 * cannot. */
static bool connect_host(tv_sink *s) {
    char name[256], port[16] = "9200";
    const char *colon = strrchr(s->host, ':');
    snprintf(name, sizeof name, "%.*s", (int)(colon ? (size_t)(colon - s->host) : strlen(s->host)), s->host);
    if (colon) snprintf(port, sizeof port, "%s", colon + 1);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(name, port, &hints, &res) != 0 || !res) {
        fprintf(stderr, "trove: cannot resolve [%s]\n", s->host);
        return false;
    }
    int fd = -1, e = 0;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            e = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        fprintf(stderr, "trove: cannot connect to [%s]: %s\n", s->host, strerror(e));
        return false;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    s->fd = fd;
    return true;
}

/* Reads into b until it holds at least `want` bytes; false at EOF/error. */
static bool fill(int fd, tv_buf *b, size_t want) {
    char chunk[65536];
    while (b->len < want) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        tv_buf_append(b, chunk, (size_t)n);
        if (b->oom) return false;
    }
    return true;
}

static bool write_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* One exchange on s->fd; the answer's body into r (owned). */
static bool http_call(tv_sink *s, const char *method, const char *path, const char *body, size_t len,
                      trove_response *r) {
    memset(r, 0, sizeof *r);
    char head[1024];
    int hl = snprintf(head, sizeof head,
                      "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                      method, path, s->host, len);
    if (hl < 0 || (size_t)hl >= sizeof head) return false;
    bool ok = write_all(s->fd, head, (size_t)hl) && (!len || write_all(s->fd, body, len));
    tv_buf in, out;
    tv_buf_init(&in);
    tv_buf_init(&out);
    char *hend = NULL;
    while (ok && !(hend = in.len ? memmem(in.data, in.len, "\r\n\r\n", 4) : NULL)) ok = fill(s->fd, &in, in.len + 1);
    if (ok) {
        *hend = '\0';
        size_t hsize = (size_t)(hend - in.data) + 4;
        r->status = in.len > 12 ? atoi(in.data + 9) : 0; /* "HTTP/1.1 200" */
        const char *cl = strcasestr(in.data, "\r\ncontent-length:");
        bool chunked = strcasestr(in.data, "\r\ntransfer-encoding: chunked") != NULL;
        bool is_head = strcmp(method, "HEAD") == 0;
        if (is_head) {
            /* no body whatever Content-Length says */
        } else if (cl && !chunked) {
            size_t n = (size_t)strtoull(cl + 17, NULL, 10);
            ok = fill(s->fd, &in, hsize + n);
            if (ok) tv_buf_append(&out, in.data + hsize, n);
        } else if (chunked) {
            size_t at = hsize;
            for (;;) {
                char *crlf = NULL;
                while (ok && !(crlf = memmem(in.data + at, in.len - at, "\r\n", 2))) ok = fill(s->fd, &in, in.len + 1);
                if (!ok) break;
                size_t n = (size_t)strtoull(in.data + at, NULL, 16);
                at = (size_t)(crlf - in.data) + 2;
                ok = fill(s->fd, &in, at + n + 2);
                if (!ok || n == 0) break;
                tv_buf_append(&out, in.data + at, n);
                at += n + 2;
            }
        } else {
            ok = false; /* no framing: not a keep-alive answer we can read */
        }
    }
    tv_buf_fini(&in);
    size_t n = 0;
    tv_buf_putc(&out, '\0');
    r->body = ok && !out.oom ? tv_buf_detach(&out, &n) : NULL;
    r->body_len = r->body ? n - 1 : 0;
    r->content_type = "application/json";
    tv_buf_fini(&out);
    return r->body != NULL;
}

bool tv_sink_request(tv_sink *s, const char *method, const char *path, const char *body, size_t len) {
    trove_response_fini(&s->last);
    memset(&s->last, 0, sizeof s->last);
    tv_arena_reset(&s->arena);
    if (s->node) return trove_request(s->node, method, path, body, len, &s->last) == 0;
    if (s->fd < 0 && !connect_host(s)) return false;
    if (http_call(s, method, path, body, len, &s->last)) return true;
    trove_response_fini(&s->last);
    close(s->fd); /* broken: the next request connects again */
    s->fd = -1;
    return false;
}

tv_json *tv_sink_call(tv_sink *s, const char *method, const char *path, const char *body, size_t len,
                      int want_status, bool quiet) {
    if (!tv_sink_request(s, method, path, body, len)) {
        if (!quiet) fprintf(stderr, "trove: %s %s: %s\n", method, path, s->node ? "out of memory" : "no answer");
        return NULL;
    }
    trove_response *r = &s->last;
    tv_json *j = NULL;
    tv_json_error je;
    if (r->status != want_status || tv_json_parse(&s->arena, r->body, r->body_len, &j, &je) != TROVE_OK) {
        if (!quiet)
            fprintf(stderr, "trove: %s %s: %d %.*s\n", method, path, r->status, (int)TV_MIN(r->body_len, (size_t)2000),
                    r->body ? r->body : "");
        j = NULL;
    }
    return j;
}
