/*
 * alloc.c — the library's allocator hooks.
 *
 * Every heap allocation of libtrove passes through tv_malloc/tv_realloc so
 * that tests can make the N-th allocation fail (tv_alloc_fail_after) and
 * prove that every out-of-memory path returns TROVE_ENOMEM instead of
 * crashing. The countdown is a plain global: it exists for single-threaded
 * unit tests, and costs one predictable branch in production.
 */
#include <stdlib.h>

#include "util.h"

static long fail_countdown = -1;

void tv_alloc_fail_after(long n) { fail_countdown = n; }

static bool should_fail(void) {
    if (TV_LIKELY(fail_countdown < 0)) return false;
    if (fail_countdown == 0) return true;
    fail_countdown--;
    return false;
}

void *tv_malloc(size_t n) {
    if (should_fail()) return NULL;
    return malloc(n ? n : 1);
}

void *tv_calloc(size_t count, size_t size) {
    if (should_fail()) return NULL;
    return calloc(count ? count : 1, size ? size : 1);
}

void *tv_realloc(void *p, size_t n) {
    if (should_fail()) return NULL;
    return realloc(p, n ? n : 1);
}

void tv_free(void *p) { free(p); }

char *tv_strndup(const char *s, size_t n) {
    char *d = tv_malloc(n + 1);
    if (!d) return NULL;
    if (n) memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

int tv_vec_reserve_(void **items, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap * 2 : 8;
    while (ncap < need) ncap *= 2;
    if (ncap > SIZE_MAX / elem) return -1;
    void *p = tv_realloc(*items, ncap * elem);
    if (!p) return -1;
    *items = p;
    *cap = ncap;
    return 0;
}
