/*
 * http_parse.h — the HTTP/1.1 request parser of `trove serve`: socket-free,
 * allocation-free (except the chunked decoder's output buffer), fuzzed by
 * fuzz/fuzz_server_http.c.
 *
 * A request on a connection is parsed in two steps:
 *   1. tv_http_parse_head() over the bytes received so far: the request line
 *      and headers, up to and including the blank line. Results are offsets
 *      relative to the start of the request, so the caller may move the bytes
 *      (a pipelined leftover copied to the connection buffer) and keep the
 *      parse.
 *   2. The body: Content-Length bytes, or chunked transfer coding decoded
 *      incrementally by tv_http_chunked_feed() into a tv_buf.
 *
 * Limits are Netty's as OpenSearch configures it: request line at most
 * 4096 bytes (http.max_initial_line_length), header lines at most 8192 bytes
 * in total (http.max_header_size), both counted without line terminators.
 */
#ifndef TROVE_SERVER_HTTP_PARSE_H
#define TROVE_SERVER_HTTP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#define TV_HTTP_MAX_LINE 4096
#define TV_HTTP_MAX_HEADERS 8192
/* Most bytes a head can take with both limits reached (every header line
 * contributing at least 1 counted byte and 2 terminator bytes). */
#define TV_HTTP_MAX_HEAD (TV_HTTP_MAX_LINE + 2 + 3 * TV_HTTP_MAX_HEADERS + 2 + 64)
/* http.max_content_length default: 100mb. */
#define TV_HTTP_MAX_CONTENT (100u * 1024u * 1024u)

/* A byte range relative to the start of the request. len 0: absent. */
typedef struct tv_http_span {
    uint32_t off, len;
} tv_http_span;

typedef enum tv_http_encoding {
    TV_ENC_IDENTITY = 0,
    TV_ENC_GZIP,
    TV_ENC_DEFLATE,
    TV_ENC_OTHER, /* passed through undecoded, as Netty's decompressor does */
} tv_http_encoding;

/* A parsed request head. All spans index the request's first byte. */
typedef struct tv_http_head {
    uint32_t head_len; /* bytes up to and including the blank line */
    uint32_t skipped; /* leading CR/LF bytes skipped before the request line */
    tv_http_span method, target;
    int minor; /* HTTP/1.<minor>: 0 or 1 */
    bool keep_alive; /* after Connection and version defaults */
    bool chunked; /* Transfer-Encoding: chunked (wins over Content-Length) */
    bool has_length;
    uint64_t content_length;
    bool expect_continue; /* Expect: 100-continue */
    bool expect_other; /* any other expectation: 417 */
    int content_type_count;
    tv_http_span content_type; /* the first Content-Type value */
    tv_http_encoding content_encoding;
    tv_http_encoding accept; /* best response encoding the client accepts */
    tv_http_span opaque_id; /* X-Opaque-Id, echoed back */
    int authorization_count;
    tv_http_span authorization; /* the first Authorization value (never echoed) */
} tv_http_head;

/* A parse failure: the error to answer (its type and HTTP status from the
 * status table) and its reason (static or in `buf`). */
typedef struct tv_http_error {
    tv_status code;
    const char *reason;
    char buf[160];
} tv_http_error;

/*
 * Parses the head at p[0..n). Returns 1 when the head is complete (fills h),
 * 0 when more bytes are needed (nothing filled; the limits were checked on
 * what is there), -1 on a malformed or oversized head (fills e; the caller
 * answers e->status and closes the connection).
 */
int tv_http_parse_head(const char *p, size_t n, tv_http_head *h, tv_http_error *e);

/*
 * Chunked transfer coding, decoded incrementally: zero-initialise, then feed
 * the raw bytes that follow the head, each call with the bytes not yet
 * consumed. Decoded data is appended to out. Chunk extensions are ignored,
 * trailers skipped.
 */
typedef struct tv_http_chunked {
    int state;
    uint64_t remaining; /* data bytes left in the current chunk */
    uint32_t line_len; /* bytes of the current size/trailer line */
    bool digits;
} tv_http_chunked;

/*
 * Consumes from in[0..n) and appends decoded data to out (which must not
 * exceed max bytes). Sets *used to the bytes consumed. Returns 1 when the
 * last chunk and the trailers have been read, 0 when more bytes are needed,
 * -1 on malformed coding (e filled, 400), -2 when the body would exceed max
 * (413), -3 when out ran out of memory.
 */
int tv_http_chunked_feed(tv_http_chunked *c, const char *in, size_t n, tv_buf *out, size_t max, size_t *used,
                         tv_http_error *e);

/* Media types a body may carry. */
typedef enum tv_http_media {
    TV_MEDIA_NONE = 0, /* no Content-Type header */
    TV_MEDIA_JSON, /* application/json, application/x-ndjson */
    TV_MEDIA_OTHER_XCONTENT, /* smile, yaml, cbor: OpenSearch reads them, trove does not */
    TV_MEDIA_UNKNOWN, /* well-formed, unsupported: 406 */
    TV_MEDIA_INVALID, /* not type/subtype: 400 content_type_header_exception */
} tv_http_media;

/* Classifies a Content-Type value as OpenSearch's RestRequest does. */
tv_http_media tv_http_media_type(const char *v, size_t n);

/* Picks the response encoding for an Accept-Encoding value, as Netty's
 * HttpContentCompressor: the highest q among gzip and deflate, gzip on a
 * tie, identity when neither is acceptable. */
tv_http_encoding tv_http_accept_encoding(const char *v, size_t n);

/* Netty's reason phrase for a status ("Not Found"). */
const char *tv_http_reason(int status);

#endif /* TROVE_SERVER_HTTP_PARSE_H */
