/*
 * misc.c — small shared helpers: bitsets, LEB128 varints, clocks, byte
 * comparison, simple wildcard matching and strict integer parsing.
 */
#include <time.h>

#include "util.h"

bool tv_bitset_init(tv_bitset *b, size_t nbits) {
    b->nbits = nbits;
    b->words = tv_calloc((nbits + 63) / 64 + 1, sizeof(uint64_t));
    return b->words != NULL;
}

void tv_bitset_fini(tv_bitset *b) {
    tv_free(b->words);
    b->words = NULL;
    b->nbits = 0;
}

size_t tv_bitset_count(const tv_bitset *b) {
    size_t n = 0, nw = (b->nbits + 63) / 64;
    for (size_t i = 0; i < nw; i++) n += (size_t)__builtin_popcountll(b->words[i]);
    return n;
}

size_t tv_bitset_next(const tv_bitset *b, size_t from) {
    if (from >= b->nbits) return SIZE_MAX;
    size_t w = from >> 6, nw = (b->nbits + 63) / 64;
    uint64_t word = b->words[w] & (~0ull << (from & 63));
    for (;;) {
        if (word) {
            size_t i = (w << 6) + (size_t)__builtin_ctzll(word);
            return i < b->nbits ? i : SIZE_MAX;
        }
        if (++w >= nw) return SIZE_MAX;
        word = b->words[w];
    }
}

size_t tv_bitset_prev(const tv_bitset *b, size_t before) {
    if (before > b->nbits) before = b->nbits;
    if (before == 0) return SIZE_MAX;
    size_t d = before - 1, w = d >> 6;
    uint64_t word = b->words[w] & (~0ull >> (63 - (d & 63)));
    while (!word) {
        if (w == 0) return SIZE_MAX;
        word = b->words[--w];
    }
    return (w << 6) + 63 - (size_t)__builtin_clzll(word);
}

size_t tv_varint_put(uint8_t *out, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

size_t tv_varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v) {
    uint64_t r = 0;
    for (size_t i = 0; i < 10 && p + i < end; i++) {
        uint64_t byte = p[i];
        if (i == 9 && byte > 1) return 0; /* overlong: more than 64 bits */
        r |= (byte & 0x7f) << (7 * i);
        if (!(byte & 0x80)) {
            *v = r;
            return i + 1;
        }
    }
    return 0;
}

int64_t tv_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t tv_mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int tv_memcmp2(const void *a, size_t alen, const void *b, size_t blen) {
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c;
    return alen < blen ? -1 : alen > blen;
}

bool tv_parse_i64(const char *s, size_t n, int64_t *out) {
    if (!n) return false;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        if (++i == n) return false;
    }
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (lim - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

bool tv_glob_match(const char *pat, size_t plen, const char *s, size_t slen) {
    size_t pi = 0, si = 0, star = SIZE_MAX, mark = 0;
    while (si < slen) {
        if (pi < plen && pat[pi] == '*') {
            star = pi++;
            mark = si;
        } else if (pi < plen && pat[pi] == s[si]) {
            pi++;
            si++;
        } else if (star != SIZE_MAX) {
            pi = star + 1;
            si = ++mark;
        } else {
            return false;
        }
    }
    while (pi < plen && pat[pi] == '*') pi++;
    return pi == plen;
}

/* java.lang.String.hashCode over the UTF-16 code units of UTF-8 s. */
int32_t tv_java_string_hash(const char *s, size_t n) {
    uint32_t h = 0;
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        uint32_t cp;
        size_t k = 1;
        size_t left = (size_t)(end - p);
        if (*p < 0x80) cp = *p;
        else if ((*p & 0xe0) == 0xc0 && left >= 2) { cp = ((uint32_t)(*p & 0x1f) << 6) | (p[1] & 0x3f); k = 2; }
        else if ((*p & 0xf0) == 0xe0 && left >= 3) { cp = ((uint32_t)(*p & 0x0f) << 12) | ((uint32_t)(p[1] & 0x3f) << 6) | (p[2] & 0x3f); k = 3; }
        else if ((*p & 0xf8) == 0xf0 && left >= 4) {
            cp = ((uint32_t)(*p & 0x07) << 18) | ((uint32_t)(p[1] & 0x3f) << 12) | ((uint32_t)(p[2] & 0x3f) << 6) | (p[3] & 0x3f);
            k = 4;
        } else cp = 0xfffd;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            h = h * 31 + (0xd800 + (cp >> 10));
            h = h * 31 + (0xdc00 + (cp & 0x3ff));
        } else {
            h = h * 31 + cp;
        }
        p += k;
    }
    return (int32_t)h;
}

/* The order a java.util.HashMap<String,...> iterates names[0..n) inserted
 * in that order: by bucket (spread hash & (capacity - 1)), then insertion. */
void tv_java_hashmap_order(const char *const *names, uint32_t n, uint32_t *order) {
    uint32_t cap = 16;
    while ((double)n > 0.75 * cap) cap *= 2;
    uint32_t *slot = tv_malloc((n + 1) * sizeof *slot);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t h = (uint32_t)tv_java_string_hash(names[i], strlen(names[i]));
        if (slot) slot[i] = (h ^ (h >> 16)) & (cap - 1);
        order[i] = i;
    }
    if (!slot) return;
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && slot[order[j - 1]] > slot[order[j]]; j--) {
            uint32_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    tv_free(slot);
}

uint32_t tv_murmur3_x86_32(const void *data, size_t len, uint32_t seed) {
    const uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
    uint32_t h = seed;
    const unsigned char *p = (const unsigned char *)data;
    size_t nblocks = len / 4;
    for (size_t i = 0; i < nblocks; i++) {
        uint32_t k = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
        k *= c1;
        k = (k << 15) | (k >> 17);
        k *= c2;
        h ^= k;
        h = (h << 13) | (h >> 19);
        h = h * 5 + 0xe6546b64;
    }
    uint32_t k = 0;
    const unsigned char *t = p + nblocks * 4;
    switch (len & 3) {
    case 3: k ^= (uint32_t)t[2] << 16; /* fall through */
    case 2: k ^= (uint32_t)t[1] << 8; /* fall through */
    case 1:
        k ^= t[0];
        k *= c1;
        k = (k << 15) | (k >> 17);
        k *= c2;
        h ^= k;
    }
    h ^= (uint32_t)len;
    h ^= h >> 16;
    h *= 0x85ebca6b;
    h ^= h >> 13;
    h *= 0xc2b2ae35;
    h ^= h >> 16;
    return h;
}
