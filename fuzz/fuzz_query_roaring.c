/*
 * fuzz_query_roaring.c — libFuzzer target for the portable RoaringBitmap
 * decoder (query/roaring.c). The first byte picks the mode:
 *   even: the rest is a serialized bitmap, decoded as a terms query's
 *         value would be; a decoded one answers membership for values
 *         taken from the input (no crash, no read past the copy);
 *   odd:  the rest is a list of little-endian u32 values; this target
 *         serializes them itself (no run containers, array containers up
 *         to 4096 values, bitmap containers above, optionally with run
 *         containers when the mode's second bit is set) and checks that
 *         the decoder finds every value and no value absent from the list.
 * Crashes, leaks, sanitizer reports and a wrong membership are failures.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "query/query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v); put16(p + 2, v >> 16); }

/* Serializes sorted unique values; runs: every container as runs. */
static size_t encode(const uint32_t *v, size_t n, bool runs, uint8_t *out) {
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || (v[i] >> 16) != (v[i - 1] >> 16)) nc++;
    size_t o = 0;
    if (runs && nc) {
        put32(out, 12347u | (uint32_t)(nc - 1) << 16);
        o = 4;
        memset(out + o, 0xff, (nc + 7) / 8);
        o += (nc + 7) / 8;
    } else {
        put32(out, 12346u);
        put32(out + 4, (uint32_t)nc);
        o = 8;
    }
    size_t hdr = o, i = 0;
    o += nc * 4;
    if (!runs || nc >= 4) o += nc * 4; /* offsets (zero: the decoder skips them) */
    for (size_t c = 0; c < nc; c++) {
        size_t j = i;
        while (j < n && (v[j] >> 16) == (v[i] >> 16)) j++;
        size_t card = j - i;
        put16(out + hdr + 4 * c, v[i] >> 16);
        put16(out + hdr + 4 * c + 2, (uint32_t)(card - 1));
        if (runs) {
            size_t nr = 0, at = o + 2;
            for (size_t k = i; k < j;) {
                size_t e = k;
                while (e + 1 < j && (v[e + 1] & 0xffff) == (v[e] & 0xffff) + 1) e++;
                put16(out + at, v[k] & 0xffff);
                put16(out + at + 2, (uint32_t)(e - k));
                at += 4;
                nr++;
                k = e + 1;
            }
            put16(out + o, (uint32_t)nr);
            o = at;
        } else if (card <= 4096) {
            for (size_t k = i; k < j; k++, o += 2) put16(out + o, v[k] & 0xffff);
        } else {
            memset(out + o, 0, 8192);
            for (size_t k = i; k < j; k++) out[o + ((v[k] & 0xffff) >> 3)] |= (uint8_t)(1u << (v[k] & 7));
            o += 8192;
        }
        i = j;
    }
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > 65536) return 0;
    uint8_t mode = data[0];
    tv_arena arena;
    tv_arena_init(&arena);
    tv_roaring *r = NULL;
    if (!(mode & 1)) {
        if (tv_roaring_decode(data + 1, size - 1, &arena, &r) == TROVE_OK) {
            for (size_t i = 1; i + 4 <= size && i < 256; i++) {
                uint32_t v;
                memcpy(&v, data + i, 4);
                (void)tv_roaring_contains(r, v);
                (void)tv_roaring_contains(r, v & 0xffff);
            }
            (void)tv_roaring_contains(r, 0);
            (void)tv_roaring_contains(r, UINT32_MAX);
        }
        tv_arena_fini(&arena);
        return 0;
    }
    size_t n = (size - 1) / 4;
    uint32_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) abort();
    for (size_t i = 0; i < n; i++) {
        memcpy(&v[i], data + 1 + 4 * i, 4);
        if (mode & 4) v[i] &= 0x3ffff; /* a few containers, often dense */
    }
    qsort(v, n, sizeof *v, cmp_u32);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || v[u - 1] != v[i]) v[u++] = v[i];
    uint8_t *buf = malloc(16 + u * 16 + (u / 4096 + 2) * 8192 + (u + 1) * 8);
    if (!buf) abort();
    size_t len = encode(v, u, (mode & 2) != 0, buf);
    if (tv_roaring_decode(buf, len, &arena, &r) != TROVE_OK) abort();
    for (size_t i = 0; i < u; i++) {
        if (!tv_roaring_contains(r, v[i])) abort();
        uint32_t w = v[i] + 1;
        bool present = i + 1 < u && v[i + 1] == w;
        if (w != 0 && tv_roaring_contains(r, w) != present) abort();
    }
    if (u && v[0] > 0 && tv_roaring_contains(r, v[0] - 1)) abort();
    free(buf);
    free(v);
    tv_arena_fini(&arena);
    return 0;
}
