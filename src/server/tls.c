/*
 * tls.c — HTTPS for `trove serve --tls-cert FILE --tls-key FILE`: OpenSSL
 * (Debian's libssl) under the same epoll loops as plain HTTP.
 *
 * The context. One SSL_CTX for the process, made at start from a PEM
 * certificate chain and a PEM private key (checked against each other), so
 * a bad file fails `trove serve` before anything listens. TLS 1.2 is the
 * minimum (SSL_CTX_set_min_proto_version), renegotiation is off (a client
 * could otherwise make any SSL_write wait for a read), and a peer that
 * closes TCP without close_notify is an ordinary end of stream
 * (SSL_OP_IGNORE_UNEXPECTED_EOF), as it is for HTTP/1.1 over TLS. Cipher
 * choice is the system's (Debian's openssl.cnf, security level 2).
 *
 * Connections. An SSL object in accept state on the non-blocking socket;
 * the handshake runs inside the first SSL_read/SSL_write calls, so the
 * loop needs no handshake state of its own. An operation that cannot
 * proceed reports which readiness it waits for (WANT_READ or WANT_WRITE,
 * which is not always the operation's own direction: a read can wait to
 * write the handshake's flight), and server.c adds that interest to the
 * connection's epoll set.
 *
 * Level-triggered epoll and OpenSSL's buffer. epoll only knows about the
 * socket: plaintext that OpenSSL decrypted and still holds would never
 * wake the loop. tv_tls_read therefore never leaves any: it reads whole
 * records only (each SSL_read gets room for a full 16 KiB record, so a
 * record is always drained by the call that decrypts it; read-ahead is off
 * so OpenSSL takes no more from the socket than the record it works on).
 * Bytes still in the socket keep it readable. A wake-up reads until the
 * buffer has less than a record's room (64 KiB: four records), the
 * counterpart of the plain path's one 64 KiB read.
 *
 * Writes. SSL_MODE_ENABLE_PARTIAL_WRITE lets SSL_write report each record
 * written, so the HTTP engine's "bytes accepted" contract holds; after
 * WANT_WRITE OpenSSL requires the retry to present the same bytes again,
 * which the engine does (it resends from its first unaccepted byte, from
 * its own queue: SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER allows the new
 * address, and the length only grows). A header and a small body are
 * copied into one buffer so that a small answer is one record and one
 * send instead of two.
 *
 * Rejected: a BIO pair with our own socket I/O (a second copy of every
 * byte for nothing the socket BIO does not already do); kTLS (kernel
 * support and OpenSSL's build options vary; the copy it saves is not
 * what costs here); a handshake thread (handshakes are a few hundred
 * microseconds of CPU and never block).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "server/server.h"

#define TLS_RECORD 16384 /* most plaintext bytes in one TLS record */
#define COALESCE 16384   /* a header and body up to this size go as one write */

struct tv_tls {
    SSL_CTX *ctx;
};

/* "WHAT FILE: reason; reason" from OpenSSL's error queue (emptied), or
 * errno's message when the queue is empty. */
static void last_error(char *err, size_t errlen, const char *what, const char *file) {
    int n = snprintf(err, errlen, "%s %s: ", what, file);
    bool any = false;
    unsigned long e;
    while ((e = ERR_get_error()) != 0) {
        const char *r = ERR_reason_error_string(e);
        if (n < 0 || (size_t)n >= errlen) continue;
        n += snprintf(err + n, errlen - (size_t)n, "%s%s", any ? "; " : "", r ? r : "unknown error");
        any = true;
    }
    if (!any && n >= 0 && (size_t)n < errlen) snprintf(err + n, errlen - (size_t)n, "%s", strerror(errno ? errno : EINVAL));
}

/* Whether path can be opened for reading (else a message naming it). */
static bool readable(const char *what, const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read the %s %s: %s", what, path, strerror(errno));
        return false;
    }
    fclose(f);
    return true;
}

tv_tls *tv_tls_new(const char *cert_file, const char *key_file, char *err, size_t errlen) {
    if (!readable("TLS certificate", cert_file, err, errlen) || !readable("TLS private key", key_file, err, errlen))
        return NULL;
    tv_tls *t = tv_calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ERR_clear_error();
    t->ctx = SSL_CTX_new(TLS_server_method());
    if (!t->ctx) {
        last_error(err, errlen, "cannot create a TLS context", "");
        tv_free(t);
        return NULL;
    }
    SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(t->ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_COMPRESSION |
                                    SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                                 SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_read_ahead(t->ctx, 0);
    errno = 0;
    if (SSL_CTX_use_certificate_chain_file(t->ctx, cert_file) != 1) {
        last_error(err, errlen, "cannot load the TLS certificate (PEM) from", cert_file);
        tv_tls_free(t);
        return NULL;
    }
    errno = 0;
    if (SSL_CTX_use_PrivateKey_file(t->ctx, key_file, SSL_FILETYPE_PEM) != 1) {
        last_error(err, errlen, "cannot load the TLS private key (PEM) from", key_file);
        tv_tls_free(t);
        return NULL;
    }
    if (SSL_CTX_check_private_key(t->ctx) != 1) {
        last_error(err, errlen, "the TLS private key does not match the certificate in", cert_file);
        tv_tls_free(t);
        return NULL;
    }
    return t;
}

void tv_tls_free(tv_tls *t) {
    if (!t) return;
    SSL_CTX_free(t->ctx);
    tv_free(t);
}

tv_tls_conn *tv_tls_conn_new(tv_tls *t, int fd) {
    ERR_clear_error();
    SSL *s = SSL_new(t->ctx);
    if (!s) return NULL;
    if (SSL_set_fd(s, fd) != 1) {
        SSL_free(s);
        ERR_clear_error();
        return NULL;
    }
    SSL_set_accept_state(s);
    return (tv_tls_conn *)s;
}

void tv_tls_conn_free(tv_tls_conn *c) {
    if (c) SSL_free((SSL *)c);
}

/* Maps a failed SSL call: TV_TLS_AGAIN with *want set, or TV_TLS_EOF /
 * TV_TLS_BROKEN. The thread's error queue is left empty. */
static int failure(SSL *s, int rc, int *want) {
    int e = SSL_get_error(s, rc);
    ERR_clear_error();
    switch (e) {
    case SSL_ERROR_WANT_READ: *want = TV_TLS_WANT_READ; return TV_TLS_AGAIN;
    case SSL_ERROR_WANT_WRITE: *want = TV_TLS_WANT_WRITE; return TV_TLS_AGAIN;
    case SSL_ERROR_ZERO_RETURN: return TV_TLS_EOF;
    case SSL_ERROR_SYSCALL:
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            *want = TV_TLS_WANT_READ;
            return TV_TLS_AGAIN;
        }
        return TV_TLS_BROKEN;
    default: return TV_TLS_BROKEN; /* a protocol error: plain HTTP, an old version, a bad record */
    }
}

ssize_t tv_tls_read(tv_tls_conn *c, char *buf, size_t cap, int *want) {
    SSL *s = (SSL *)c;
    size_t got = 0;
    *want = 0;
    /* cap is at least a record's room (the loop's buffers are 64 KiB) */
    while (cap - got >= TLS_RECORD || (got == 0 && cap > 0)) {
        size_t room = cap - got > INT_MAX ? INT_MAX : cap - got;
        ERR_clear_error();
        int n = SSL_read(s, buf + got, (int)room);
        if (n > 0) {
            got += (size_t)n;
            continue;
        }
        int f = failure(s, n, want);
        if (got) {
            /* deliver what was read; an end or error shows again next time
             * (a socket at EOF stays readable) */
            if (f != TV_TLS_AGAIN) *want = 0;
            break;
        }
        return f;
    }
    return (ssize_t)got;
}

/* One SSL_write of as much of p[0..n) as the socket takes: bytes written,
 * or TV_TLS_AGAIN / TV_TLS_BROKEN. */
static ssize_t write_some(SSL *s, const char *p, size_t n, int *want) {
    size_t done = 0;
    while (done < n) {
        size_t k = n - done > INT_MAX ? INT_MAX : n - done;
        ERR_clear_error();
        int w = SSL_write(s, p + done, (int)k);
        if (w > 0) {
            done += (size_t)w;
            continue;
        }
        int f = failure(s, w, want);
        if (done) return (ssize_t)done;
        return f == TV_TLS_EOF ? TV_TLS_BROKEN : f;
    }
    return (ssize_t)done;
}

ssize_t tv_tls_writev(tv_tls_conn *c, const struct iovec *iov, int n, char *scratch, int *want) {
    SSL *s = (SSL *)c;
    *want = 0;
    size_t total = 0;
    for (int i = 0; i < n; i++) total += iov[i].iov_len;
    if (n > 1 && total <= COALESCE && scratch) {
        size_t off = 0;
        for (int i = 0; i < n; i++) {
            memcpy(scratch + off, iov[i].iov_base, iov[i].iov_len);
            off += iov[i].iov_len;
        }
        return write_some(s, scratch, total, want);
    }
    size_t done = 0;
    for (int i = 0; i < n; i++) {
        if (!iov[i].iov_len) continue;
        ssize_t w = write_some(s, iov[i].iov_base, iov[i].iov_len, want);
        if (w < 0) return done ? (ssize_t)done : w;
        done += (size_t)w;
        if ((size_t)w < iov[i].iov_len) break;
    }
    return (ssize_t)done;
}

void tv_tls_close_notify(tv_tls_conn *c) {
    ERR_clear_error();
    SSL_shutdown((SSL *)c); /* best effort: the socket is half-closed next */
    ERR_clear_error();
}
