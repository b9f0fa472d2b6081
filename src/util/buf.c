/*
 * buf.c — growable byte buffers with a sticky out-of-memory flag.
 *
 * Writers (JSON output, response bodies, segment builders) append many small
 * pieces; checking each append would bury the logic, so a failed growth sets
 * `oom`, later appends do nothing, and the writer checks once at the end
 * (SQLite fts5's sticky rc).
 */
#include <stdio.h>

#include "util.h"

void tv_buf_init(tv_buf *b) {
    b->data = NULL;
    b->len = b->cap = 0;
    b->oom = false;
}

void tv_buf_fini(tv_buf *b) {
    tv_free(b->data);
    tv_buf_init(b);
}

void tv_buf_clear(tv_buf *b) {
    b->len = 0;
    if (b->data) b->data[0] = '\0';
}

bool tv_buf_reserve(tv_buf *b, size_t extra) {
    if (b->oom) return false;
    if (extra > SIZE_MAX - b->len - 1) {
        b->oom = true;
        return false;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap) return true;
    size_t ncap = b->cap ? b->cap : 64;
    while (ncap < need) ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
    char *p = tv_realloc(b->data, ncap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->data = p;
    b->cap = ncap;
    return true;
}

void tv_buf_append_slow(tv_buf *b, const void *p, size_t n) {
    if (!tv_buf_reserve(b, n)) return;
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void tv_buf_puts(tv_buf *b, const char *s) { tv_buf_append(b, s, strlen(s)); }

void tv_buf_vprintf(tv_buf *b, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if ((size_t)n < sizeof tmp) {
        tv_buf_append(b, tmp, (size_t)n);
    } else if (tv_buf_reserve(b, (size_t)n)) {
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
}

void tv_buf_printf(tv_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tv_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *tv_buf_detach(tv_buf *b, size_t *len) {
    if (b->oom) {
        tv_buf_fini(b);
        if (len) *len = 0;
        return NULL;
    }
    if (!b->data && !tv_buf_reserve(b, 0)) {
        if (len) *len = 0;
        return NULL;
    }
    b->data[b->len] = '\0';
    char *d = b->data;
    if (len) *len = b->len;
    tv_buf_init(b);
    return d;
}
