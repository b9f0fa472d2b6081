/*
 * fuzz_api_routing.c — the shard routing hash (tv_routing_hash, a
 * UTF-8 decoder feeding murmur3 over UTF-16 code units) and tv_shard_id
 * on arbitrary bytes.
 *
 * Properties: no crash or sanitizer report; for valid UTF-8 the streamed
 * hash equals a reference that first converts the whole string to UTF-16LE
 * bytes and hashes them byte-wise; every shard id is below the number of
 * shards, for plain, scaled and partitioned routings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

/* Strict UTF-8 -> UTF-16LE; false when the input is not valid UTF-8. */
static bool to_utf16le(const uint8_t *s, size_t n, uint8_t *out, size_t *on) {
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        uint32_t c = s[i], cp;
        size_t len;
        if (c < 0x80) {
            cp = c;
            len = 1;
        } else if ((c & 0xE0) == 0xC0) {
            cp = c & 0x1F;
            len = 2;
        } else if ((c & 0xF0) == 0xE0) {
            cp = c & 0x0F;
            len = 3;
        } else if ((c & 0xF8) == 0xF0) {
            cp = c & 0x07;
            len = 4;
        } else {
            return false;
        }
        if (i + len > n) return false;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        if (cp >= 0x10000) {
            uint32_t v = cp - 0x10000, hi = 0xD800 | (v >> 10), lo = 0xDC00 | (v & 0x3FF);
            out[o++] = (uint8_t)hi;
            out[o++] = (uint8_t)(hi >> 8);
            out[o++] = (uint8_t)lo;
            out[o++] = (uint8_t)(lo >> 8);
        } else {
            out[o++] = (uint8_t)cp;
            out[o++] = (uint8_t)(cp >> 8);
        }
        i += len;
    }
    *on = o;
    return true;
}

static uint32_t rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

static uint32_t ref_murmur3(const uint8_t *d, size_t n) {
    uint32_t h = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t k = (uint32_t)d[i] | (uint32_t)d[i + 1] << 8 | (uint32_t)d[i + 2] << 16 | (uint32_t)d[i + 3] << 24;
        k *= 0xcc9e2d51u;
        k = rotl(k, 15);
        k *= 0x1b873593u;
        h ^= k;
        h = rotl(h, 13);
        h = h * 5 + 0xe6546b64u;
    }
    uint32_t k = 0;
    for (size_t j = n - i; j-- > 0;) k = (k << 8) | d[i + j];
    if (n - i) {
        k *= 0xcc9e2d51u;
        k = rotl(k, 15);
        k *= 0x1b873593u;
        h ^= k;
    }
    h ^= (uint32_t)n;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *s = (const char *)data;
    int32_t h = tv_routing_hash(s, size);
    uint8_t *u16 = malloc(size * 2 + 4);
    if (!u16) return 0;
    size_t n = 0;
    if (to_utf16le(data, size, u16, &n) && (uint32_t)h != ref_murmur3(u16, n)) abort();
    free(u16);
    static const tv_shard_route routes[] = {{1, 1024, 1}, {5, 5, 1}, {5, 640, 1}, {3, 768, 2}, {7, 7, 3}};
    size_t half = size / 2;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (tv_shard_id(&routes[i], s, size, NULL, 0) >= routes[i].num_shards) abort();
        if (tv_shard_id(&routes[i], s, half, s + half, size - half) >= routes[i].num_shards) abort();
    }
    return 0;
}
