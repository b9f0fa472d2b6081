/*
 * fuzz_server_http.c — the HTTP/1.1 request parser and connection engine of
 * `trove serve` on arbitrary bytes.
 *
 * The server's parser and engine are compiled into the trove executable
 * only, so they are included here as source. Input: byte 0 sets how the
 * bytes arrive and leave (bits 0-2: read split size class, bits 3-4: how
 * much the fake socket accepts per write, bit 5: the stub handler answers
 * 405 with an Allow header), the rest is the byte stream a client sends on
 * one connection (any number of pipelined requests). The stub handler
 * stands in for trove_request so that runs are fast and deterministic.
 *
 * Properties: no crash or sanitizer report; every body handed to the
 * handler is readable over its whole length and the method and target are
 * NUL-terminated; every answer written starts with "HTTP/1."; the head
 * parser, media-type and Accept-Encoding classifiers also run on the raw
 * input directly.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/http_conn.c"
#include "server/http_parse.c"

static unsigned write_mode, write_seed;
static tv_buf written;
static bool allow_mode;

static ssize_t fake_writev(void *io, const struct iovec *iov, int n) {
    (void)io;
    size_t total = 0;
    for (int i = 0; i < n; i++) total += iov[i].iov_len;
    size_t take = total;
    write_seed = write_seed * 1103515245u + 12345u;
    switch (write_mode) {
    case 1: take = total ? (write_seed >> 8) % (total + 1) : 0; break; /* partial */
    case 2: take = total > 7 ? 7 : total; break; /* tiny socket buffer */
    case 3: if ((write_seed >> 16) % 4 == 0) return -1; break; /* peer gone */
    default: break;
    }
    size_t left = take;
    for (int i = 0; i < n && left; i++) {
        size_t k = iov[i].iov_len < left ? iov[i].iov_len : left;
        tv_buf_append(&written, iov[i].iov_base, k);
        left -= k;
    }
    return (ssize_t)take;
}

static int stub_handler(void *ud, const char *method, const char *target, const void *body, size_t len,
                        trove_response *out) {
    (void)ud;
    memset(out, 0, sizeof *out);
    volatile unsigned char sink = 0;
    for (size_t i = 0; i < len; i++) sink ^= ((const unsigned char *)body)[i];
    (void)sink;
    size_t ml = strlen(method), tl = strlen(target);
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_printf(&b, "{\"m\":%zu,\"t\":%zu,\"len\":%zu}", ml, tl, len);
    size_t n;
    out->body = tv_buf_detach(&b, &n);
    if (!out->body) return TROVE_ENOMEM;
    out->body_len = n;
    out->content_type = "application/json; charset=UTF-8";
    out->status = 200;
    if (strcmp(method, "OPTIONS") == 0 || allow_mode) {
        out->allow = tv_strndup("GET,PUT,POST", 12);
        out->status = allow_mode && strcmp(method, "OPTIONS") != 0 ? 405 : 200;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    unsigned mode = data[0];
    const char *p = (const char *)data + 1;
    size_t n = size - 1;

    /* the pure functions on the raw bytes */
    tv_http_head h;
    tv_http_error e;
    if (tv_http_parse_head(p, n, &h, &e) == 1) {
        if (h.head_len > n || h.method.off + h.method.len > n || h.target.off + h.target.len > n) abort();
    }
    tv_http_media_type(p, n < 256 ? n : 256);
    tv_http_accept_encoding(p, n < 256 ? n : 256);

    /* the connection engine */
    write_mode = (mode >> 3) & 3;
    write_seed = mode;
    allow_mode = (mode >> 5) & 1;
    tv_buf_init(&written);
    tv_http_ctx x;
    tv_http_ctx_init(&x, stub_handler, NULL, fake_writev);
    x.max_content = 1 << 16; /* small, so the 413 paths are reachable */
    tv_http_conn c;
    memset(&c, 0, sizeof c);
    static const size_t splits[8] = {1, 2, 3, 7, 16, 64, 1024, 1 << 20};
    size_t step = splits[mode & 7], off = 0;
    while (off < n && !c.dead) {
        size_t k = n - off < step ? n - off : step;
        if (c.in.len) {
            tv_buf_append(&c.in, p + off, k);
            if (c.in.oom) break;
            tv_http_conn_resume(&x, &c);
        } else {
            tv_http_conn_feed(&x, &c, p + off, k);
        }
        off += k;
        /* the server drains output before reading more when it is backed up */
        for (int i = 0; i < 64 && tv_http_conn_pending(&c) && !c.dead; i++)
            if (tv_http_conn_flush(&x, &c) == 1 && c.in.len) tv_http_conn_resume(&x, &c);
        if (c.close_after) break;
    }
    write_mode = 0;
    while (!c.dead && tv_http_conn_flush(&x, &c) == 1 && c.in.len && !c.close_after && tv_http_conn_resume(&x, &c)) {
    }
    if (written.len && (written.len < 7 || memcmp(written.data, "HTTP/1.", 7) != 0)) abort();
    tv_http_conn_fini(&c);
    tv_http_ctx_fini(&x);
    tv_buf_fini(&written);
    return 0;
}
