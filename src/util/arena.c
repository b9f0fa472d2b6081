/*
 * arena.c — bump allocation for memory that dies together.
 *
 * A request, a JSON parse or a query plan allocates from an arena and frees
 * it all at once (h2o's mem pool, PostgreSQL's memory contexts). Blocks
 * double in size from 4 KiB up to 1 MiB; an allocation larger than half the
 * current block size gets a block of its own so that a big body does not
 * waste the tail of a small block. Rejected: a free list per size (arenas
 * never free individual objects, so it would only add cost).
 */
#include <stdio.h>

#include "util.h"

struct tv_arena_block {
    tv_arena_block *next;
    size_t size;
    /* payload follows, 16-aligned */
};

#define BLOCK_HDR ((sizeof(tv_arena_block) + 15) & ~(size_t)15)
#define FIRST_BLOCK 4096
#define MAX_BLOCK (1u << 20)

void tv_arena_init(tv_arena *a) { memset(a, 0, sizeof *a); }

void tv_arena_charge(tv_arena *a, struct tv_breakers *s, struct tv_breaker_trip *trip) {
    a->breakers = s;
    a->trip = trip;
}

/* Reserves a block's bytes on the request breaker before it is allocated. */
static bool charge(tv_arena *a, size_t bytes) {
    if (!a->breakers || a->charge_off) return true;
    if (!tv_breaker_add(a->breakers, TV_BREAKER_REQUEST, (int64_t)bytes, "<reused_arrays>", a->trip)) {
        a->tripped = true;
        return false;
    }
    a->charged += (int64_t)bytes;
    return true;
}

void tv_arena_fini(tv_arena *a) {
    tv_arena_block *b = a->head;
    while (b) {
        tv_arena_block *n = b->next;
        tv_free(b);
        b = n;
    }
    tv_breaker_release(a->breakers, TV_BREAKER_REQUEST, a->charged);
    tv_arena_init(a);
}

void tv_arena_reset(tv_arena *a) {
    if (!a->head) return;
    /* keep the oldest block: it is the last in the list */
    tv_arena_block *b = a->head, *keep = NULL;
    while (b) {
        tv_arena_block *n = b->next;
        if (!n) keep = b;
        else tv_free(b);
        b = n;
    }
    keep->next = NULL;
    a->head = keep;
    a->ptr = (char *)keep + BLOCK_HDR;
    a->end = (char *)keep + BLOCK_HDR + keep->size;
    a->total = keep->size + BLOCK_HDR;
    if (a->charged > (int64_t)a->total) {
        tv_breaker_release(a->breakers, TV_BREAKER_REQUEST, a->charged - (int64_t)a->total);
        a->charged = (int64_t)a->total;
    }
}

static void *arena_grow(tv_arena *a, size_t n) {
    size_t last = a->head ? a->head->size : 0;
    size_t size = last ? last * 2 : FIRST_BLOCK;
    if (size > MAX_BLOCK) size = MAX_BLOCK;
    if (n > size / 2) {
        /* a dedicated block, linked behind the current one so the current
         * block's free tail stays usable */
        if (n > SIZE_MAX - BLOCK_HDR - 16 || !charge(a, BLOCK_HDR + n)) return NULL;
        tv_arena_block *b = tv_malloc(BLOCK_HDR + n);
        if (!b) return NULL;
        b->size = n;
        a->total += BLOCK_HDR + n;
        if (a->head) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = NULL;
            a->head = b;
            a->ptr = a->end = (char *)b + BLOCK_HDR + n;
        }
        return (char *)b + BLOCK_HDR;
    }
    if (!charge(a, BLOCK_HDR + size)) return NULL;
    tv_arena_block *b = tv_malloc(BLOCK_HDR + size);
    if (!b) return NULL;
    b->size = size;
    b->next = a->head;
    a->head = b;
    a->total += BLOCK_HDR + size;
    a->ptr = (char *)b + BLOCK_HDR + n;
    a->end = (char *)b + BLOCK_HDR + size;
    return (char *)b + BLOCK_HDR;
}

void *tv_arena_alloc(tv_arena *a, size_t n) {
    size_t align = n >= 16 ? 16 : 8;
    uintptr_t p = ((uintptr_t)a->ptr + (align - 1)) & ~(uintptr_t)(align - 1);
    if (a->ptr && n <= (size_t)((uintptr_t)a->end - p) && p <= (uintptr_t)a->end) {
        a->ptr = (char *)(p + n);
        return (void *)p;
    }
    return arena_grow(a, n ? (n + 15) & ~(size_t)15 : 16);
}

void *tv_arena_calloc(tv_arena *a, size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) return NULL;
    void *p = tv_arena_alloc(a, count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

char *tv_arena_memdup(tv_arena *a, const void *p, size_t n) {
    char *d = tv_arena_alloc(a, n + 1);
    if (!d) return NULL;
    if (n) memcpy(d, p, n);
    d[n] = '\0';
    return d;
}

char *tv_arena_strndup(tv_arena *a, const char *s, size_t n) { return tv_arena_memdup(a, s, n); }

char *tv_arena_sprintf(tv_arena *a, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *d = n >= 0 ? tv_arena_alloc(a, (size_t)n + 1) : NULL;
    if (d) vsnprintf(d, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return d;
}
