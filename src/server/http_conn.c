/*
 * http_conn.c — the HTTP/1.1 protocol engine of one connection: bytes in,
 * answers out, no sockets.
 *
 * Flow. Received bytes are parsed where they lie (the loop's read buffer);
 * only an incomplete request is copied into the connection's own buffer, so
 * a keep-alive client sending whole requests costs no copy and no malloc.
 * Requests are answered strictly in order, each to completion before the
 * next is parsed, which makes pipelining ordered by construction. An answer
 * is written at once with writev(header, body) when nothing is queued
 * before it; what the socket does not take is copied to the connection's
 * output queue, and while that queue holds more than OUT_HIGH bytes no
 * further request is parsed (the server stops reading), so a client that
 * pipelines without reading cannot grow the queue without bound.
 *
 * Per request: the head (http_parse.c), then the body (Content-Length bytes
 * in place, or the chunked coding decoded into c->body), an interim
 * "100 Continue" when the client asked for it and the body is not there
 * yet, Content-Encoding gzip/deflate inflated into the loop's buffer (the
 * 100mb limit applies to the inflated size, as Netty's aggregator sits after
 * its decompressor), then OpenSearch's Content-Type rules, then the api
 * layer. Strings handed to the api layer and the response head live in the
 * loop's arena, reset after every request.
 *
 * OpenSearch's order is kept where it shows: a Content-Type header that is
 * not type/subtype fails the request before routing (400
 * content_type_header_exception); a body without a usable Content-Type is a
 * 406 only when a handler exists for the method and path (RestController
 * checks after routing), which is asked of the api layer with an OPTIONS
 * request (its Allow list); otherwise the api layer's own 405/400 stands.
 * Smile, YAML and CBOR bodies, which OpenSearch reads and trove does not,
 * fail loudly with a 400 rather than being misread as JSON.
 *
 * Transport-level refusals are Netty's: 413 and 417 with an empty body and
 * the connection closed; a malformed head gets OpenSearch's error envelope
 * with Netty's exception type (too_long_http_line_exception, ...) and the
 * connection closes after the answer.
 *
 * Authentication (trove serve --users) happens once a head is complete,
 * before the body is waited for, through ctx->authenticate: without a
 * caller the answer is OpenSearch security's 401 (WWW-Authenticate: Basic
 * realm="OpenSearch Security", body "Unauthorized"), the body is skipped
 * when it is already here and otherwise the connection closes after the
 * answer, so an anonymous client cannot make the server buffer a 100mb
 * body. The hook may also answer "pending" (a slow password hash runs on
 * another thread): the request is then left unconsumed, the connection
 * reads nothing more (auth_wait), and when the transport resumes it the
 * head is parsed again and the hook asked again, so a request is never
 * half-processed across the wait and pipelined requests keep their order.
 * The handler may answer TROVE_EWAIT (a request waiting for a condition,
 * trove_request_nowait): the request is held the same way (req_wait) and
 * the transport resumes it when the handler asked to be asked again.
 * Authorization needs the body (a _bulk's action lines name
 * indices), so ctx->authorize runs just before the api layer, after
 * inflation and the Content-Type rules (OpenSearch's order too: the REST
 * layer's checks, then the security plugin's action check), and its 403
 * body is answered as is. The Authorization header is kept as a span for
 * the hook only and never copied, echoed or logged.
 *
 * zlib: linked directly when built with TROVE_ZLIB_LINKED (and -lz);
 * otherwise loaded once at run time from libz.so.1, and without it gzip
 * request bodies are refused (400) and responses go uncompressed.
 * Responses are compressed at level 3 (OpenSearch's http.compression_level)
 * when the client accepts gzip or deflate, as Netty's HttpContentCompressor
 * chooses (http.compression is on by default).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/server.h"

#if defined(__has_include)
#if __has_include(<zlib.h>)
#include <zlib.h>
#define TV_HAVE_ZLIB 1
#endif
#endif

#define OUT_HIGH (1u << 20)

/* ------------------------------------------------------------------ zlib */

#ifdef TV_HAVE_ZLIB
#ifdef TROVE_ZLIB_LINKED
static bool zlib_ok(void) { return true; }
#define ZF(name) name
#else
#include <dlfcn.h>
#include <pthread.h>
static struct {
    int (*deflateInit2_)(z_streamp, int, int, int, int, int, const char *, int);
    int (*deflate)(z_streamp, int);
    int (*deflateEnd)(z_streamp);
    int (*deflateReset)(z_streamp);
    uLong (*deflateBound)(z_streamp, uLong);
    int (*inflateInit2_)(z_streamp, int, const char *, int);
    int (*inflate)(z_streamp, int);
    int (*inflateEnd)(z_streamp);
    int (*inflateReset2)(z_streamp, int);
    bool ok;
} zf;
static pthread_once_t zonce = PTHREAD_ONCE_INIT;
static void zload(void) {
    void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
#define ZLOAD(n)                                       \
    do {                                               \
        *(void **)&zf.n = dlsym(h, #n);                \
        if (!zf.n) return;                             \
    } while (0)
    ZLOAD(deflateInit2_);
    ZLOAD(deflate);
    ZLOAD(deflateEnd);
    ZLOAD(deflateReset);
    ZLOAD(deflateBound);
    ZLOAD(inflateInit2_);
    ZLOAD(inflate);
    ZLOAD(inflateEnd);
    ZLOAD(inflateReset2);
#undef ZLOAD
    zf.ok = true;
}
static bool zlib_ok(void) {
    pthread_once(&zonce, zload);
    return zf.ok;
}
#define ZF(name) zf.name
#endif

static voidpf z_alloc(voidpf opaque, uInt items, uInt size) {
    (void)opaque;
    return tv_calloc(items, size);
}
static void z_free(voidpf opaque, voidpf p) {
    (void)opaque;
    tv_free(p);
}

/* Compresses body into x->zout. Returns NULL when it cannot (the caller
 * then answers uncompressed). */
static const char *deflate_body(tv_http_ctx *x, tv_http_encoding enc, const char *body, size_t n, size_t *out_n) {
    if (!zlib_ok() || n > UINT32_MAX / 2) return NULL;
    int i = enc == TV_ENC_GZIP ? 0 : 1;
    z_stream *z = x->zdeflate[i];
    if (!z) {
        z = tv_calloc(1, sizeof *z);
        if (!z) return NULL;
        z->zalloc = z_alloc;
        z->zfree = z_free;
        if (ZF(deflateInit2_)(z, 3, Z_DEFLATED, i == 0 ? 31 : 15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                              (int)sizeof(z_stream)) != Z_OK) {
            tv_free(z);
            return NULL;
        }
        x->zdeflate[i] = z;
    } else if (ZF(deflateReset)(z) != Z_OK) {
        return NULL;
    }
    size_t bound = ZF(deflateBound)(z, (uLong)n);
    tv_buf_clear(&x->zout);
    if (!tv_buf_reserve(&x->zout, bound)) return NULL;
    z->next_in = (Bytef *)(uintptr_t)body;
    z->avail_in = (uInt)n;
    z->next_out = (Bytef *)x->zout.data;
    z->avail_out = (uInt)bound;
    if (ZF(deflate)(z, Z_FINISH) != Z_STREAM_END) return NULL;
    *out_n = bound - z->avail_out;
    return x->zout.data;
}

/* Inflates a request body into x->zin: 0 done, -1 corrupt, -2 larger than
 * max, -3 out of memory. gzip accepts concatenated members; deflate accepts
 * a zlib stream or raw deflate (Netty's ZLIB_OR_NONE). */
static int inflate_body(tv_http_ctx *x, tv_http_encoding enc, const char *in, size_t n, size_t max) {
    if (!zlib_ok()) return -1;
    z_stream *z = x->zinflate;
    int wbits = 31;
    if (enc == TV_ENC_DEFLATE) {
        unsigned char b0 = n > 0 ? (unsigned char)in[0] : 0, b1 = n > 1 ? (unsigned char)in[1] : 0;
        wbits = ((b0 & 0x0f) == 8 && ((b0 << 8) | b1) % 31 == 0) ? 15 : -15;
    }
    if (!z) {
        z = tv_calloc(1, sizeof *z);
        if (!z) return -3;
        z->zalloc = z_alloc;
        z->zfree = z_free;
        if (ZF(inflateInit2_)(z, wbits, ZLIB_VERSION, (int)sizeof(z_stream)) != Z_OK) {
            tv_free(z);
            return -3;
        }
        x->zinflate = z;
    } else if (ZF(inflateReset2)(z, wbits) != Z_OK) {
        return -3;
    }
    tv_buf_clear(&x->zin);
    z->next_in = (Bytef *)(uintptr_t)in;
    size_t left = n;
    for (;;) {
        uInt chunk = left > (1u << 30) ? (1u << 30) : (uInt)left;
        z->avail_in = chunk;
        size_t room = TV_MAX((size_t)chunk * 2, (size_t)65536);
        if (x->zin.len + room > max + 1) room = max + 1 - x->zin.len;
        if (room == 0) return -2;
        if (!tv_buf_reserve(&x->zin, room)) return -3;
        z->next_out = (Bytef *)x->zin.data + x->zin.len;
        z->avail_out = (uInt)room;
        int rc = ZF(inflate)(z, Z_NO_FLUSH);
        size_t made = room - z->avail_out;
        x->zin.len += made;
        left -= chunk - z->avail_in;
        if (x->zin.len > max) return -2;
        if (rc == Z_STREAM_END) {
            if (left == 0) break;
            if (wbits != 31) return -1; /* trailing garbage after a zlib stream */
            if (ZF(inflateReset2)(z, wbits) != Z_OK) return -3; /* next gzip member */
            continue;
        }
        if (rc == Z_MEM_ERROR) return -3;
        if (rc != Z_OK && rc != Z_BUF_ERROR) return -1;
        if (left == 0 && z->avail_out != 0) return -1; /* truncated */
        if (rc == Z_BUF_ERROR && z->avail_out != 0) return -1;
    }
    if (x->zin.data) x->zin.data[x->zin.len] = '\0';
    return 0;
}

static void zstreams_free(tv_http_ctx *x) {
    for (int i = 0; i < 2; i++)
        if (x->zdeflate[i]) {
            ZF(deflateEnd)((z_stream *)x->zdeflate[i]);
            tv_free(x->zdeflate[i]);
        }
    if (x->zinflate) {
        ZF(inflateEnd)((z_stream *)x->zinflate);
        tv_free(x->zinflate);
    }
}
#else
static const char *deflate_body(tv_http_ctx *x, tv_http_encoding enc, const char *body, size_t n, size_t *out_n) {
    (void)x, (void)enc, (void)body, (void)n, (void)out_n;
    return NULL;
}
static int inflate_body(tv_http_ctx *x, tv_http_encoding enc, const char *in, size_t n, size_t max) {
    (void)x, (void)enc, (void)in, (void)n, (void)max;
    return -1;
}
static void zstreams_free(tv_http_ctx *x) { (void)x; }
#endif

/* ------------------------------------------------------------ context */

void tv_http_ctx_init(tv_http_ctx *x, tv_http_handler handle, void *handle_ud, tv_http_writev writev) {
    memset(x, 0, sizeof *x);
    x->handle = handle;
    x->handle_ud = handle_ud;
    x->writev = writev;
    x->max_content = TV_HTTP_MAX_CONTENT;
    tv_arena_init(&x->arena);
    tv_buf_init(&x->zin);
    tv_buf_init(&x->zout);
}

void tv_http_ctx_fini(tv_http_ctx *x) {
    zstreams_free(x);
    tv_arena_fini(&x->arena);
    tv_buf_fini(&x->zin);
    tv_buf_fini(&x->zout);
}

/* Called after each request: keeps the loop's buffers small between bursts. */
static void ctx_after_request(tv_http_ctx *x) {
    tv_arena_reset(&x->arena);
    if (x->zin.cap > (1u << 20)) tv_buf_fini(&x->zin);
    else tv_buf_clear(&x->zin);
    if (x->zout.cap > (1u << 20)) tv_buf_fini(&x->zout);
    else tv_buf_clear(&x->zout);
    x->zin.oom = x->zout.oom = false;
}

/* ------------------------------------------------------------- output */

static void emit(tv_http_ctx *x, tv_http_conn *c, const char *a, size_t an, const char *b, size_t bn) {
    if (c->dead) return;
    size_t skip = 0;
    if (tv_http_conn_pending(c) == 0) {
        if (c->out.len) tv_buf_clear(&c->out);
        c->out_off = 0;
        struct iovec iov[2] = {{(void *)(uintptr_t)a, an}, {(void *)(uintptr_t)b, bn}};
        ssize_t w = x->writev(c->io, iov, bn ? 2 : 1);
        if (w < 0) {
            c->dead = true;
            return;
        }
        skip = (size_t)w;
    }
    if (skip < an) {
        tv_buf_append(&c->out, a + skip, an - skip);
        skip = 0;
    } else {
        skip -= an;
    }
    if (skip < bn) tv_buf_append(&c->out, b + skip, bn - skip);
    if (c->out.oom) c->dead = true;
}

int tv_http_conn_flush(tv_http_ctx *x, tv_http_conn *c) {
    if (c->dead) return -1;
    while (tv_http_conn_pending(c)) {
        struct iovec iov = {c->out.data + c->out_off, tv_http_conn_pending(c)};
        ssize_t w = x->writev(c->io, &iov, 1);
        if (w < 0) {
            c->dead = true;
            return -1;
        }
        if (w == 0) return 0;
        c->out_off += (size_t)w;
    }
    tv_buf_fini(&c->out); /* an idle connection holds no buffer */
    c->out_off = 0;
    return 1;
}

bool tv_http_conn_wants_read(const tv_http_conn *c) {
    return !c->close_after && !c->dead && !c->auth_wait && !c->req_wait && tv_http_conn_pending(c) <= OUT_HIGH;
}

static void json_str(tv_buf *b, const char *s) {
    tv_buf_putc(b, '"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            tv_buf_putc(b, '\\');
            tv_buf_putc(b, (char)ch);
        } else if (ch < 0x20) {
            tv_buf_printf(b, "\\u%04x", ch);
        } else {
            tv_buf_putc(b, (char)ch);
        }
    }
    tv_buf_putc(b, '"');
}

/*
 * Writes one answer. req is the request's first byte (NULL when the head
 * could not be parsed: no X-Opaque-Id, HTTP/1.1, no compression). head is
 * true for HEAD requests (body dropped, Content-Length kept). bare: a Netty-
 * level answer (no X-OpenSearch-Version). close: the connection closes
 * after it whatever the client asked.
 */
static void respond_ex(tv_http_ctx *x, tv_http_conn *c, const char *req, int status, const char *allow,
                       const char *ctype, const char *body, size_t blen, bool head, bool bare, bool close,
                       const char *extra) {
    const tv_http_head *h = req ? &c->head : NULL;
    if (!h || !h->keep_alive) close = true;
    int minor = h ? h->minor : 1;
    const char *enc = NULL;
    if (h && h->accept != TV_ENC_IDENTITY && blen && !head && status >= 200 && status != 204 && status != 304 &&
        minor == 1) {
        size_t zn;
        const char *z = deflate_body(x, h->accept, body, blen, &zn);
        if (z) {
            body = z;
            blen = zn;
            enc = h->accept == TV_ENC_GZIP ? "gzip" : "deflate";
        }
    }
    size_t cap = 256 + (allow ? strlen(allow) : 0) + (ctype ? strlen(ctype) : 0) + (h ? h->opaque_id.len : 0) +
                 (extra ? strlen(extra) : 0);
    char *hd = tv_arena_alloc(&x->arena, cap);
    if (!hd) {
        c->dead = true;
        return;
    }
    int n = snprintf(hd, cap, "HTTP/1.%d %d %s\r\n", minor, status, tv_http_reason(status));
    if (allow) n += snprintf(hd + n, cap - (size_t)n, "Allow: %s\r\n", allow);
    if (extra) n += snprintf(hd + n, cap - (size_t)n, "%s\r\n", extra);
    if (!bare) n += snprintf(hd + n, cap - (size_t)n, "X-OpenSearch-Version: OpenSearch/%s (opensearch)\r\n",
                             TROVE_OPENSEARCH_VERSION);
    if (h && h->opaque_id.len)
        n += snprintf(hd + n, cap - (size_t)n, "X-Opaque-Id: %.*s\r\n", (int)h->opaque_id.len, req + h->opaque_id.off);
    if (ctype) n += snprintf(hd + n, cap - (size_t)n, "content-type: %s\r\n", ctype);
    if (enc) n += snprintf(hd + n, cap - (size_t)n, "content-encoding: %s\r\n", enc);
    n += snprintf(hd + n, cap - (size_t)n, "content-length: %zu\r\n", blen);
    if (close) n += snprintf(hd + n, cap - (size_t)n, "connection: close\r\n");
    else if (minor == 0) n += snprintf(hd + n, cap - (size_t)n, "connection: keep-alive\r\n");
    n += snprintf(hd + n, cap - (size_t)n, "\r\n");
    emit(x, c, hd, (size_t)n, body, head ? 0 : blen);
    c->requests++;
    if (close) c->close_after = true;
}

static void respond(tv_http_ctx *x, tv_http_conn *c, const char *req, int status, const char *allow,
                    const char *ctype, const char *body, size_t blen, bool head, bool bare, bool close) {
    respond_ex(x, c, req, status, allow, ctype, body, blen, head, bare, close, NULL);
}

static const char json_ct[] = "application/json; charset=UTF-8";

/* OpenSearch's error envelope for an exception without a cause. */
static void respond_exception(tv_http_ctx *x, tv_http_conn *c, const char *req, tv_status code, const char *reason,
                              tv_status cause, const char *cause_reason, bool close) {
    int status = trove_status_http(code);
    const char *type = trove_status_type(code);
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_puts(&b, "{\"error\":{\"root_cause\":[{\"type\":");
    json_str(&b, type);
    tv_buf_puts(&b, ",\"reason\":");
    json_str(&b, reason);
    tv_buf_puts(&b, "}],\"type\":");
    json_str(&b, type);
    tv_buf_puts(&b, ",\"reason\":");
    json_str(&b, reason);
    if (cause != TROVE_OK) {
        tv_buf_puts(&b, ",\"caused_by\":{\"type\":");
        json_str(&b, trove_status_type(cause));
        tv_buf_puts(&b, ",\"reason\":");
        json_str(&b, cause_reason);
        tv_buf_putc(&b, '}');
    }
    tv_buf_printf(&b, "},\"status\":%d}", status);
    if (b.oom) c->dead = true;
    else respond(x, c, req, status, NULL, json_ct, b.data, b.len, req && c->head_done && c->head.method.len == 4 &&
                 memcmp(req + c->head.method.off, "HEAD", 4) == 0, false, close);
    tv_buf_fini(&b);
}

/* BytesRestResponse.createSimpleErrorResponse: {"error":"...","status":N}. */
static void respond_simple(tv_http_ctx *x, tv_http_conn *c, const char *req, int status, const char *msg, bool head) {
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_puts(&b, "{\"error\":");
    json_str(&b, msg);
    tv_buf_printf(&b, ",\"status\":%d}", status);
    if (b.oom) c->dead = true;
    else respond(x, c, req, status, NULL, json_ct, b.data, b.len, head, false, false);
    tv_buf_fini(&b);
}

/* Netty's bare refusals (413, 417): empty body, connection closed. */
static void respond_bare(tv_http_ctx *x, tv_http_conn *c, int status) {
    respond(x, c, NULL, status, NULL, NULL, "", 0, false, true, true);
}

/* ------------------------------------------------------------ requests */

/* Whether the api layer has a handler for method on target: OPTIONS answers
 * with the Allow list of the path (RestController's valid method set). */
static bool route_exists(tv_http_ctx *x, const char *method, const char *target) {
    if (strcmp(method, "OPTIONS") == 0) return false;
    trove_response r;
    memset(&r, 0, sizeof r);
    if (x->handle(x->handle_ud, "OPTIONS", target, NULL, 0, &r) != 0) return false;
    bool found = false;
    if (r.allow) {
        size_t ml = strlen(method);
        for (const char *p = r.allow; *p;) {
            const char *e = strchr(p, ',');
            size_t l = e ? (size_t)(e - p) : strlen(p);
            if (l == ml && memcmp(p, method, l) == 0) found = true;
            p += l + (e ? 1 : 0);
        }
    }
    trove_response_fini(&r);
    return found;
}

/* _bulk, _msearch and _msearch/template read a stream of objects. */
static bool streaming_path(const char *target) {
    size_t n = strcspn(target, "?");
    while (n && target[n - 1] == '/') n--;
    static const char *const ends[] = {"/_bulk", "/_msearch", "/_msearch/template"};
    for (size_t i = 0; i < TV_ARRAY_LEN(ends); i++) {
        size_t m = strlen(ends[i]);
        if (n >= m - 1 && memcmp(target + n - (m - 1), ends[i] + 1, m - 1) == 0 &&
            (n == m - 1 || target[n - m] == '/'))
            return true;
    }
    return false;
}

static void run_request(tv_http_ctx *x, tv_http_conn *c, const char *req, const char *body, size_t blen) {
    const tv_http_head *h = &c->head;
    tv_arena *A = &x->arena;
    char *method = tv_arena_strndup(A, req + h->method.off, h->method.len);
    char *target = tv_arena_strndup(A, req + h->target.off, h->target.len);
    if (!method || !target) {
        c->dead = true;
        return;
    }
    bool head = strcmp(method, "HEAD") == 0;
    /* absolute-form target: keep path and query */
    if (target[0] != '/' && (strncmp(target, "http://", 7) == 0 || strncmp(target, "https://", 8) == 0)) {
        char *p = strchr(target + (target[4] == 's' ? 8 : 7), '/');
        target = p ? p : (char *)"/";
    }
    if (blen && (h->content_encoding == TV_ENC_GZIP || h->content_encoding == TV_ENC_DEFLATE)) {
        int rc = inflate_body(x, h->content_encoding, body, blen, x->max_content);
        if (rc == -2) {
            respond_bare(x, c, 413);
            return;
        }
        if (rc < 0) {
            respond_exception(x, c, req, rc == -3 ? TROVE_ENOMEM : TROVE_EDECOMPRESS,
                              rc == -3 ? "out of memory" : "failed to decompress the request body", TROVE_OK, NULL, true);
            return;
        }
        body = x->zin.data;
        blen = x->zin.len;
    }
    /* Content-Type, as RestRequest and RestController check it */
    const char *ct = req + h->content_type.off;
    tv_http_media mt = h->content_type_count ? tv_http_media_type(ct, h->content_type.len) : TV_MEDIA_NONE;
    if (h->content_type_count > 1 || mt == TV_MEDIA_INVALID) {
        const char *why = h->content_type_count > 1
                              ? "only one Content-Type header should be provided"
                              : tv_arena_sprintf(A, "invalid Content-Type header [%.*s]", (int)h->content_type.len, ct);
        const char *full = why ? tv_arena_sprintf(A, "java.lang.IllegalArgumentException: %s", why) : NULL;
        if (!full) {
            c->dead = true;
            return;
        }
        respond_exception(x, c, req, TROVE_ECONTENTTYPE, full, TROVE_EARG, why, false);
        return;
    }
    if (blen && mt != TV_MEDIA_JSON && route_exists(x, method, target)) {
        const char *msg;
        if (mt == TV_MEDIA_NONE) {
            msg = "Content-Type header is missing";
        } else if (mt == TV_MEDIA_UNKNOWN) {
            msg = tv_arena_sprintf(A, "Content-Type header [%.*s] is not supported", (int)h->content_type.len, ct);
        } else {
            const char *name = "SMILE";
            /* "application/" is 12 bytes: the subtype's first letter tells
             * smile, yaml and cbor apart (the span is not NUL-terminated) */
            if (h->content_type.len > 12) {
                if (ct[12] == 'y' || ct[12] == 'Y') name = "YAML";
                else if (ct[12] == 'c' || ct[12] == 'C') name = "CBOR";
            }
            if (strcmp(name, "SMILE") != 0 && streaming_path(target)) {
                msg = tv_arena_sprintf(A, "Content-Type [%s] does not support stream parsing. Use JSON or SMILE instead",
                                       name);
            } else {
                const char *r = tv_arena_sprintf(A,
                                                 "trove reads JSON request bodies only: Content-Type [%.*s] is not "
                                                 "supported",
                                                 (int)h->content_type.len, ct);
                if (!r) c->dead = true;
                else respond_exception(x, c, req, TROVE_EARG, r, TROVE_OK, NULL, false);
                return;
            }
        }
        if (!msg) c->dead = true;
        else respond_simple(x, c, req, 406, msg, head);
        return;
    }
    if (x->authorize) {
        if (!c->user) { /* authenticate lets no request through without a caller */
            c->dead = true;
            return;
        }
        tv_buf deny;
        tv_buf_init(&deny);
        bool ok = x->authorize(x->auth_ud, c->user, method, target, blen ? body : NULL, blen, &deny);
        if (!ok) {
            if (deny.oom) c->dead = true;
            else respond(x, c, req, 403, NULL, json_ct, deny.data ? deny.data : "", deny.len, head, false, false);
        }
        tv_buf_fini(&deny);
        if (!ok) return;
    }
    trove_response r;
    memset(&r, 0, sizeof r);
    int rc = x->handle(x->handle_ud, method, target, blen ? body : NULL, blen, &r);
    if (rc == TROVE_EWAIT) { /* nothing answered: the request is held (process) */
        c->req_wait = true;
        return;
    }
    if (rc != 0) {
        respond_exception(x, c, req, (tv_status)rc, trove_status_message(rc), TROVE_OK, NULL, false);
        return;
    }
    respond(x, c, req, r.status, r.allow, r.content_type ? r.content_type : json_ct, r.body ? r.body : "", r.body_len,
            head, false, false);
    trove_response_fini(&r);
}

static void send_continue(tv_http_ctx *x, tv_http_conn *c) {
    if (c->head.expect_continue && !c->continue_sent) {
        static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
        emit(x, c, cont, sizeof cont - 1, NULL, 0);
        c->continue_sent = true;
    }
}

static void request_done(tv_http_ctx *x, tv_http_conn *c) {
    c->head_done = false;
    c->user = NULL;
    c->continue_sent = false;
    memset(&c->ch, 0, sizeof c->ch);
    c->ch_used = 0;
    c->need = 0;
    tv_buf_fini(&c->body);
    ctx_after_request(x);
}

/* Answers every complete request in d[0..n); returns the bytes consumed. */
static size_t process(tv_http_ctx *x, tv_http_conn *c, const char *d, size_t n) {
    size_t pos = 0;
    while (pos < n && !c->close_after && !c->dead && !c->auth_wait && !c->req_wait &&
           tv_http_conn_pending(c) <= OUT_HIGH) {
        const char *r = d + pos;
        size_t avail = n - pos;
        tv_http_error err;
        if (!c->head_done) {
            int rc = tv_http_parse_head(r, avail, &c->head, &err);
            if (rc == 0) break;
            if (rc < 0) {
                respond_exception(x, c, NULL, err.code, err.reason, TROVE_OK, NULL, true);
                request_done(x, c);
                break;
            }
            c->head_done = true;
            const tv_http_head *h = &c->head;
            if (h->expect_other) {
                respond_bare(x, c, 417);
                request_done(x, c);
                break;
            }
            if (h->has_length && h->content_length > x->max_content) {
                respond_bare(x, c, 413);
                request_done(x, c);
                break;
            }
            if (x->authenticate) {
                c->user = x->authenticate(x->auth_ud, h->authorization.len ? r + h->authorization.off : NULL,
                                          h->authorization_count == 1 ? h->authorization.len : 0);
                if (c->user == TV_HTTP_AUTH_PENDING) {
                    /* nothing consumed: the head is parsed again on resume */
                    c->user = NULL;
                    c->head_done = false;
                    c->auth_wait = true;
                    break;
                }
                if (!c->user) {
                    /* the body is skipped when it is all here; otherwise the
                     * connection closes after the answer (lingering) */
                    uint64_t cl = h->has_length ? h->content_length : 0;
                    bool whole = !h->chunked && avail - h->head_len >= cl;
                    bool head = h->method.len == 4 && memcmp(r + h->method.off, "HEAD", 4) == 0;
                    size_t skip = whole ? h->head_len + (size_t)cl : 0;
                    respond_ex(x, c, r, 401, NULL, "text/plain; charset=UTF-8", "Unauthorized", 12, head, false,
                               !whole, "WWW-Authenticate: Basic realm=\"OpenSearch Security\"");
                    request_done(x, c);
                    if (!whole) break;
                    pos += skip;
                    continue;
                }
            }
        }
        const tv_http_head *h = &c->head;
        const char *body;
        size_t blen, total;
        if (h->chunked) {
            size_t used = 0, off = h->head_len + c->ch_used;
            int rc = tv_http_chunked_feed(&c->ch, r + off, avail - off, &c->body, x->max_content, &used, &err);
            c->ch_used += used;
            if (rc == 0) {
                send_continue(x, c);
                break;
            }
            if (rc < 0) {
                if (rc == -2) respond_bare(x, c, 413);
                else if (rc == -1) respond_exception(x, c, r, err.code, err.reason, TROVE_OK, NULL, true);
                else c->dead = true;
                request_done(x, c);
                break;
            }
            body = c->body.data;
            blen = c->body.len;
            total = h->head_len + c->ch_used;
        } else {
            uint64_t cl = h->has_length ? h->content_length : 0;
            if (avail - h->head_len < cl) {
                c->need = h->head_len + (size_t)cl;
                send_continue(x, c);
                break;
            }
            body = r + h->head_len;
            blen = (size_t)cl;
            total = h->head_len + (size_t)cl;
        }
        run_request(x, c, r, body, blen);
        request_done(x, c);
        if (c->req_wait) break; /* held unconsumed: parsed again on resume */
        pos += total;
    }
    return pos;
}

void tv_http_conn_feed(tv_http_ctx *x, tv_http_conn *c, const char *data, size_t n) {
    if (c->close_after || c->dead || n == 0) return;
    if (c->in.len) {
        tv_buf_append(&c->in, data, n);
        if (c->in.oom) c->dead = true;
        else tv_http_conn_resume(x, c);
        return;
    }
    size_t used = process(x, c, data, n);
    if (used < n && !c->close_after && !c->dead) {
        if (c->need > n - used) tv_buf_reserve(&c->in, c->need);
        tv_buf_append(&c->in, data + used, n - used);
        if (c->in.oom) c->dead = true;
    }
}

bool tv_http_conn_resume(tv_http_ctx *x, tv_http_conn *c) {
    if (!c->in.len) return false;
    size_t used = 0;
    if (!c->close_after && !c->dead) used = process(x, c, c->in.data, c->in.len);
    if (c->close_after || c->dead || used == c->in.len) {
        tv_buf_fini(&c->in);
    } else if (used) {
        memmove(c->in.data, c->in.data + used, c->in.len - used);
        c->in.len -= used;
        c->in.data[c->in.len] = '\0';
    }
    return used > 0;
}

void tv_http_conn_fini(tv_http_conn *c) {
    tv_buf_fini(&c->in);
    tv_buf_fini(&c->out);
    tv_buf_fini(&c->body);
    c->out_off = 0;
}
