/*
 * http_parse.c — HTTP/1.1 request heads, chunked bodies, media types and
 * Accept-Encoding, for `trove serve`.
 *
 * Algorithm. The head parser is stateless: each call scans the bytes
 * received so far for the blank line (memchr for '\n', line by line) while
 * counting the request line and header bytes against Netty's limits, and
 * only when the blank line is there does it tokenize. A head is at most a
 * few KiB, so rescanning on every read costs less than keeping a resumable
 * tokenizer (and a slow client sending one byte at a time costs O(head^2)
 * memchr bytes, bounded by the limits). Results are offsets, not pointers,
 * so the connection may move its buffer between reads.
 *
 * Only the headers the transport acts on are kept (Content-Length,
 * Transfer-Encoding, Connection, Expect, Content-Type, Content-Encoding,
 * Accept-Encoding, X-Opaque-Id): the api layer takes no headers, so a table
 * of all headers would be built and never read.
 *
 * The chunked decoder is a byte-level state machine for the size lines and
 * trailers and a bulk copy for chunk data, resumable at any byte so that a
 * body split across reads decodes in one pass.
 *
 * Strictness: Netty (OpenSearch's HTTP codec) silently skips a request line
 * with fewer than three parts and folds obsolete line continuations; here
 * both are a 400 and the connection closes, so a confused client gets an
 * answer instead of a stalled connection. Transfer-Encoding with a final
 * coding other than chunked is a 400 (RFC 9112 6.3); chunked wins over
 * Content-Length, as in Netty.
 */
#include "server/http_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_tchar(unsigned char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static bool ieq(const char *a, size_t n, const char *lit) {
    size_t m = strlen(lit);
    if (n != m) return false;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)a[i]) != lit[i]) return false;
    return true;
}

static bool is_ows(char c) { return c == ' ' || c == '\t'; }

static void trim(const char **p, size_t *n) {
    while (*n && is_ows(**p)) (*p)++, (*n)--;
    while (*n && is_ows((*p)[*n - 1])) (*n)--;
}

static int fail(tv_http_error *e, tv_status code, const char *reason) {
    e->code = code;
    e->reason = reason;
    return -1;
}

static int fail_fmt(tv_http_error *e, tv_status code, const char *fmt, const char *arg, size_t n) {
    if (n > 64) n = 64;
    snprintf(e->buf, sizeof e->buf, fmt, (int)n, arg);
    /* keep the reason printable JSON-wise: control bytes become '?' */
    for (char *q = e->buf; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f) *q = '?';
    return fail(e, code, e->buf);
}

static const char line_too_long[] = "An HTTP line is larger than 4096 bytes.";
static const char header_too_long[] = "HTTP header is larger than 8192 bytes.";

/* Comma-separated list iteration over v[0..n): returns false when done. */
static bool next_item(const char **v, size_t *n, const char **item, size_t *ilen) {
    while (*n && (**v == ',' || is_ows(**v))) (*v)++, (*n)--;
    if (!*n) return false;
    const char *c = memchr(*v, ',', *n);
    size_t len = c ? (size_t)(c - *v) : *n;
    *item = *v;
    *ilen = len;
    trim(item, ilen);
    *v += len;
    *n -= len;
    return true;
}

enum { CONN_CLOSE = 1, CONN_KEEP = 2 };

static int parse_header(const char *base, const char *line, size_t len, tv_http_head *h, tv_http_error *e,
                        int *flags) {
    if (is_ows(line[0])) return fail(e, TROVE_EARG, "obsolete header line folding is not supported");
    const char *colon = memchr(line, ':', len);
    if (!colon || colon == line) return fail_fmt(e, TROVE_EARG, "invalid header line [%.*s]", line, len);
    size_t nlen = (size_t)(colon - line);
    for (size_t i = 0; i < nlen; i++)
        if (!is_tchar((unsigned char)line[i]))
            return fail_fmt(e, TROVE_EARG, "invalid header name [%.*s]", line, nlen);
    const char *v = colon + 1;
    size_t vn = len - nlen - 1;
    trim(&v, &vn);
    for (size_t i = 0; i < vn; i++) {
        unsigned char c = (unsigned char)v[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return fail_fmt(e, TROVE_EARG, "invalid value for header [%.*s]", line, nlen);
    }
    tv_http_span span = {(uint32_t)(v - base), (uint32_t)vn};
    switch (lower((unsigned char)line[0])) {
    case 'a':
        if (ieq(line, nlen, "accept-encoding")) h->accept = tv_http_accept_encoding(v, vn);
        else if (ieq(line, nlen, "authorization") && h->authorization_count++ == 0) h->authorization = span;
        break;
    case 'c':
        if (ieq(line, nlen, "content-length")) {
            if (vn == 0 || vn > 18) goto bad_length;
            uint64_t x = 0;
            for (size_t i = 0; i < vn; i++) {
                if (v[i] < '0' || v[i] > '9') goto bad_length;
                x = x * 10 + (uint64_t)(v[i] - '0');
            }
            if (h->has_length && h->content_length != x)
                return fail(e, TROVE_EARG, "Multiple Content-Length values found");
            h->has_length = true;
            h->content_length = x;
        } else if (ieq(line, nlen, "content-type")) {
            if (h->content_type_count++ == 0) h->content_type = span;
        } else if (ieq(line, nlen, "content-encoding")) {
            if (vn == 0 || ieq(v, vn, "identity")) h->content_encoding = TV_ENC_IDENTITY;
            else if (ieq(v, vn, "gzip") || ieq(v, vn, "x-gzip")) h->content_encoding = TV_ENC_GZIP;
            else if (ieq(v, vn, "deflate") || ieq(v, vn, "x-deflate")) h->content_encoding = TV_ENC_DEFLATE;
            else h->content_encoding = TV_ENC_OTHER;
        } else if (ieq(line, nlen, "connection")) {
            const char *it;
            size_t il;
            while (next_item(&v, &vn, &it, &il)) {
                if (ieq(it, il, "close")) *flags |= CONN_CLOSE;
                else if (ieq(it, il, "keep-alive")) *flags |= CONN_KEEP;
            }
        }
        break;
    case 'e':
        if (ieq(line, nlen, "expect")) {
            if (ieq(v, vn, "100-continue")) h->expect_continue = true;
            else h->expect_other = true;
        }
        break;
    case 't':
        if (ieq(line, nlen, "transfer-encoding")) {
            const char *it, *last = NULL;
            size_t il, lastn = 0;
            while (next_item(&v, &vn, &it, &il)) last = it, lastn = il;
            h->chunked = last && ieq(last, lastn, "chunked");
            if (!h->chunked)
                return fail(e, TROVE_EARG, "unsupported Transfer-Encoding: the final coding must be chunked");
        }
        break;
    case 'x':
        if (ieq(line, nlen, "x-opaque-id")) h->opaque_id = span;
        break;
    default:
        break;
    }
    return 0;
bad_length:
    return fail_fmt(e, TROVE_EARG, "Content-Length value is not a number: %.*s", v, vn);
}

int tv_http_parse_head(const char *p, size_t n, tv_http_head *h, tv_http_error *e) {
    size_t i = 0;
    while (i < n && (p[i] == '\r' || p[i] == '\n')) i++;
    if (i > TV_HTTP_MAX_HEAD) return fail(e, TROVE_ELONGLINE, line_too_long);
    /* the request line */
    const char *nl = memchr(p + i, '\n', n - i);
    if (!nl) {
        if (n - i > TV_HTTP_MAX_LINE + 1) return fail(e, TROVE_ELONGLINE, line_too_long);
        return 0;
    }
    size_t line_len = (size_t)(nl - (p + i));
    if (line_len && p[i + line_len - 1] == '\r') line_len--;
    if (line_len > TV_HTTP_MAX_LINE) return fail(e, TROVE_ELONGLINE, line_too_long);
    /* the headers, up to the blank line */
    size_t pos = (size_t)(nl - p) + 1, total = 0, end = 0;
    for (;;) {
        const char *q = memchr(p + pos, '\n', n - pos);
        if (!q) {
            if (total + (n - pos) > TV_HTTP_MAX_HEADERS + 1)
                return fail(e, TROVE_ELONGHEADER, header_too_long);
            return 0;
        }
        size_t ln = (size_t)(q - (p + pos));
        if (ln && p[pos + ln - 1] == '\r') ln--;
        if (ln == 0) {
            end = (size_t)(q - p) + 1;
            break;
        }
        total += ln;
        if (total > TV_HTTP_MAX_HEADERS) return fail(e, TROVE_ELONGHEADER, header_too_long);
        pos = (size_t)(q - p) + 1;
    }

    memset(h, 0, sizeof *h);
    h->head_len = (uint32_t)end;
    h->keep_alive = true;
    /* request line: METHOD SP target SP HTTP/1.x */
    const char *l = p + i, *le = l + line_len;
    const char *sp = memchr(l, ' ', line_len);
    if (!sp || sp == l) return fail_fmt(e, TROVE_EARG, "invalid HTTP request line [%.*s]", l, line_len);
    for (const char *c = l; c < sp; c++)
        if (!is_tchar((unsigned char)*c)) return fail(e, TROVE_EARG, "invalid character in name");
    h->method = (tv_http_span){(uint32_t)i, (uint32_t)(sp - l)};
    const char *t = sp;
    while (t < le && *t == ' ') t++;
    const char *te = t;
    while (te < le && *te != ' ') te++;
    if (te == t || te == le)
        return fail_fmt(e, TROVE_EARG, "invalid HTTP request line [%.*s]", l, line_len);
    for (const char *c = t; c < te; c++) {
        unsigned char ch = (unsigned char)*c;
        if (ch <= 0x20 || ch == 0x7f)
            return fail_fmt(e, TROVE_EARG, "invalid HTTP request line [%.*s]", l, line_len);
    }
    h->target = (tv_http_span){(uint32_t)(t - p), (uint32_t)(te - t)};
    const char *v = te;
    while (v < le && *v == ' ') v++;
    size_t vn = (size_t)(le - v);
    if (vn == 8 && memcmp(v, "HTTP/1.1", 8) == 0) h->minor = 1;
    else if (vn == 8 && memcmp(v, "HTTP/1.0", 8) == 0) h->minor = 0;
    else return fail_fmt(e, TROVE_EARG, "invalid version format: %.*s", v, vn);

    /* headers */
    int flags = 0;
    pos = (size_t)(nl - p) + 1;
    while (pos < end) {
        const char *q = memchr(p + pos, '\n', end - pos);
        size_t ln = (size_t)(q - (p + pos));
        if (ln && p[pos + ln - 1] == '\r') ln--;
        if (ln == 0) break;
        if (parse_header(p, p + pos, ln, h, e, &flags) < 0) return -1;
        pos = (size_t)(q - p) + 1;
    }
    if (h->chunked) h->has_length = false, h->content_length = 0;
    h->skipped = (uint32_t)i;
    h->keep_alive = !(flags & CONN_CLOSE) && (h->minor == 1 || (flags & CONN_KEEP));
    if (h->minor == 0) h->expect_continue = h->expect_other = false;
    return 1;
}

/* ------------------------------------------------------------ chunked */

enum { CH_SIZE, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF, CH_TRAILER, CH_TRAILER_LINE, CH_TRAILER_LF, CH_DONE };

static int hexv(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = lower(c);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

int tv_http_chunked_feed(tv_http_chunked *c, const char *in, size_t n, tv_buf *out, size_t max, size_t *used,
                         tv_http_error *e) {
    size_t i = 0;
    int rc = 0;
    while (i < n && c->state != CH_DONE) {
        char ch = in[i];
        switch (c->state) {
        case CH_SIZE: {
            int d = hexv((unsigned char)ch);
            if (d >= 0) {
                if (c->remaining >> 60) {
                    rc = -2;
                    goto out;
                }
                c->remaining = c->remaining * 16 + (uint64_t)d;
                c->digits = true;
            } else if (ch == ';' || ch == ' ' || ch == '\t') {
                c->state = CH_EXT;
            } else if (ch == '\r') {
                c->state = CH_SIZE_LF;
            } else if (ch == '\n') {
                goto size_done;
            } else {
                rc = fail(e, TROVE_EARG, "invalid chunk size");
                goto out;
            }
            if (++c->line_len > TV_HTTP_MAX_LINE) {
                rc = fail(e, TROVE_ELONGLINE, line_too_long);
                goto out;
            }
            i++;
            break;
        }
        case CH_EXT:
            if (ch == '\n') goto size_done;
            if (ch == '\r') c->state = CH_SIZE_LF;
            if (++c->line_len > TV_HTTP_MAX_LINE) {
                rc = fail(e, TROVE_ELONGLINE, line_too_long);
                goto out;
            }
            i++;
            break;
        case CH_SIZE_LF:
            if (ch != '\n') {
                rc = fail(e, TROVE_EARG, "invalid chunk size line");
                goto out;
            }
        size_done:
            i++;
            if (!c->digits) {
                rc = fail(e, TROVE_EARG, "invalid chunk size");
                goto out;
            }
            c->line_len = 0;
            c->digits = false;
            if (c->remaining == 0) {
                c->state = CH_TRAILER;
            } else {
                if (c->remaining > max || out->len > max - c->remaining) {
                    rc = -2;
                    goto out;
                }
                c->state = CH_DATA;
                if (!tv_buf_reserve(out, (size_t)c->remaining)) {
                    rc = -3;
                    goto out;
                }
            }
            break;
        case CH_DATA: {
            size_t k = n - i;
            if (k > c->remaining) k = (size_t)c->remaining;
            tv_buf_append(out, in + i, k);
            if (out->oom) {
                rc = -3;
                goto out;
            }
            i += k;
            c->remaining -= k;
            if (c->remaining == 0) c->state = CH_DATA_CR;
            break;
        }
        case CH_DATA_CR:
            if (ch == '\r') {
                c->state = CH_DATA_LF;
                i++;
                break;
            }
            c->state = CH_DATA_LF; /* a bare LF is accepted */
            break;
        case CH_DATA_LF:
            if (ch != '\n') {
                rc = fail(e, TROVE_EARG, "missing CRLF after chunk data");
                goto out;
            }
            i++;
            c->state = CH_SIZE;
            break;
        case CH_TRAILER:
            i++;
            if (ch == '\n') c->state = CH_DONE;
            else if (ch == '\r') c->state = CH_TRAILER_LF;
            else c->state = CH_TRAILER_LINE, c->line_len++;
            break;
        case CH_TRAILER_LF:
            if (ch != '\n') {
                rc = fail(e, TROVE_EARG, "invalid chunked trailer");
                goto out;
            }
            i++;
            c->state = CH_DONE;
            break;
        case CH_TRAILER_LINE:
            i++;
            if (ch == '\n') c->state = CH_TRAILER;
            else if (++c->line_len > TV_HTTP_MAX_HEADERS) {
                rc = fail(e, TROVE_ELONGHEADER, header_too_long);
                goto out;
            }
            break;
        default:
            break;
        }
    }
    rc = c->state == CH_DONE ? 1 : 0;
out:
    *used = i;
    return rc;
}

/* -------------------------------------------------------- media types */

tv_http_media tv_http_media_type(const char *v, size_t n) {
    /* elements[0]: up to the first ';' with the blanks before it dropped */
    const char *semi = memchr(v, ';', n);
    size_t m = semi ? (size_t)(semi - v) : n;
    while (m && is_ows(v[m - 1])) m--;
    const char *slash = memchr(v, '/', m);
    if (!slash) return TV_MEDIA_INVALID;
    size_t tl = (size_t)(slash - v);
    const char *s = slash + 1;
    size_t sl = m - tl - 1;
    if (memchr(s, '/', sl)) {
        /* "a/b/" splits into two parts in Java (trailing empties dropped) */
        const char *s2 = memchr(s, '/', sl);
        for (const char *c = s2; c < s + sl; c++)
            if (*c != '/') return TV_MEDIA_INVALID;
        sl = (size_t)(s2 - s);
    }
    const char *st = s;
    size_t stl = sl;
    trim(&st, &stl);
    if (tl == 0 || stl == 0) return TV_MEDIA_INVALID;
    for (size_t i = 0; i < tl; i++)
        if (!is_tchar((unsigned char)v[i])) return TV_MEDIA_INVALID;
    for (size_t i = 0; i < stl; i++)
        if (!is_tchar((unsigned char)st[i])) return TV_MEDIA_INVALID;
    if (sl != stl) return TV_MEDIA_UNKNOWN; /* blanks inside elements[0] never match a known type */
    if (ieq(v, m, "application/json") || ieq(v, m, "application/x-ndjson")) return TV_MEDIA_JSON;
    if (ieq(v, m, "application/smile") || ieq(v, m, "application/yaml") || ieq(v, m, "application/cbor"))
        return TV_MEDIA_OTHER_XCONTENT;
    return TV_MEDIA_UNKNOWN;
}

/* ------------------------------------------------------ accept-encoding */

static bool contains(const char *s, size_t n, const char *lit) {
    size_t m = strlen(lit);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(s + i, lit, m) == 0) return true;
    return false;
}

tv_http_encoding tv_http_accept_encoding(const char *v, size_t n) {
    float star = -1.0f, gz = -1.0f, df = -1.0f;
    const char *it;
    size_t il;
    while (next_item(&v, &n, &it, &il)) {
        float q = 1.0f;
        const char *eq = memchr(it, '=', il);
        if (eq) {
            char tmp[32];
            size_t k = (size_t)(it + il - eq - 1);
            if (k >= sizeof tmp) k = sizeof tmp - 1;
            memcpy(tmp, eq + 1, k);
            tmp[k] = '\0';
            char *endp;
            q = strtof(tmp, &endp);
            if (endp == tmp || *endp) q = 0.0f;
        }
        if (contains(it, il, "*")) star = q;
        else if (contains(it, il, "br") || contains(it, il, "zstd") || contains(it, il, "snappy")) continue;
        else if (contains(it, il, "gzip") && q > gz) gz = q;
        else if (contains(it, il, "deflate") && q > df) df = q;
    }
    if (gz > 0.0f || df > 0.0f) {
        if (gz != -1.0f && gz >= df) return TV_ENC_GZIP;
        if (df != -1.0f) return TV_ENC_DEFLATE;
    }
    if (star > 0.0f) {
        if (gz == -1.0f) return TV_ENC_GZIP;
        if (df == -1.0f) return TV_ENC_DEFLATE;
    }
    return TV_ENC_IDENTITY;
}

const char *tv_http_reason(int s) {
    switch (s) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 412: return "Precondition Failed";
    case 413: return "Request Entity Too Large";
    case 417: return "Expectation Failed";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: break;
    }
    if (s < 200) return "Informational";
    if (s < 300) return "Success";
    if (s < 400) return "Redirection";
    if (s < 500) return "Client Error";
    return "Server Error";
}
