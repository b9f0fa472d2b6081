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

bool tv_simple_match(const char *pat, const char *s, size_t slen) {
    return tv_glob_match(pat, strlen(pat), s, slen);
}

size_t tv_split_commas(tv_arena *a, const char *s, const char ***out) {
    size_t n = 1;
    for (const char *p = s; *p; p++)
        if (*p == ',') n++;
    const char **v = tv_arena_calloc(a, n, sizeof *v);
    *out = v;
    if (!v) return 0;
    size_t k = 0;
    const char *p = s;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        /* trim spaces as Strings.splitStringByCommaToArray + trim do */
        while (len && *p == ' ') {
            p++;
            len--;
        }
        while (len && p[len - 1] == ' ') len--;
        if (len) {
            char *c = tv_arena_strndup(a, p, len);
            if (!c) {
                *out = NULL;
                return 0;
            }
            v[k++] = c;
        }
        if (!e) break;
        p = e + 1;
    }
    return k;
}
