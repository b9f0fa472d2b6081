/*
 * codec.c — bit-packing for segments: blocks of 128 uint32 values (postings
 * doc gaps and frequencies) and packed columns of 0..64-bit values (doc
 * values, points, stored-field metadata).
 *
 * Format (both kinds): a little-endian bit string; value i occupies bits
 * [i*bits, (i+1)*bits), bit 0 being the least significant bit of byte 0. A
 * block of 128 values of b bits is exactly 16*b bytes, and every run of 8
 * values starts on a byte boundary (8*b bits = b bytes).
 *
 * Decoding (the query hot path): one specialised function per bit width,
 * generated from one always-inline body with a constant width, so the
 * compiler unrolls each group of 8 values into constant-offset 64-bit loads,
 * shifts and masks (no loop-carried state, vectorisable). Each value is read
 * with one unaligned 64-bit load at byte (bit >> 3) and a shift of (bit & 7):
 * 7 + 32 bits always fit in 64, so no value needs two loads. The price is
 * that a reader may load up to 8 bytes past the packed area, which the
 * segment format guarantees are readable (TV_CODEC_PAD).
 *
 * Rejected: a SIMD layout (interleaved lanes as in Lemire's SIMD-BP128)
 * because it would fix the byte layout to one vector width; the compilers
 * already vectorise this scalar code to about 4 billion values per second
 * (bench: tv_bp128_unpack alone, any width), and a hand-written SIMD
 * decoder of this same layout can still be added behind this scalar twin.
 * Frame-of-reference with exceptions (PFOR) is also left out: Lucene's gains
 * from it are a few percent of space on skewed blocks.
 */
/* The unpackers are written to be fully unrolled and vectorised; gcc does
 * that at -O3 only (4x faster than its -O2 code for this file; clang's -O2
 * already does it), so this file asks gcc for -O3. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

#include "index/codec.h"

size_t tv_bitpack32(const uint32_t *in, size_t n, unsigned bits, uint8_t *out) {
    if (bits == 0) return 0;
    uint64_t mask = bits >= 32 ? 0xffffffffull : ((1ull << bits) - 1);
    uint64_t acc = 0;
    unsigned have = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= ((uint64_t)in[i] & mask) << have;
        have += bits;
        while (have >= 8) {
            out[o++] = (uint8_t)acc;
            acc >>= 8;
            have -= 8;
        }
    }
    if (have) out[o++] = (uint8_t)acc;
    return o;
}

void tv_bp128_unpack_ref(const uint8_t *in, unsigned bits, uint32_t *out) {
    for (int i = 0; i < TV_BLOCK; i++) {
        uint64_t v = 0;
        for (unsigned k = 0; k < bits; k++) {
            uint64_t bit = (uint64_t)i * bits + k;
            v |= (uint64_t)((in[bit >> 3] >> (bit & 7)) & 1) << k;
        }
        out[i] = (uint32_t)v;
    }
}

#if defined(__GNUC__)
#define TV_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define TV_ALWAYS_INLINE inline
#endif

static TV_ALWAYS_INLINE void unpack_body(const uint8_t *in, uint32_t *out, const unsigned b) {
    const uint64_t mask = b >= 32 ? 0xffffffffull : ((1ull << b) - 1);
    for (unsigned g = 0; g < 16; g++) {
        const uint8_t *q = in + g * b;
        uint32_t *o = out + g * 8;
        for (unsigned j = 0; j < 8; j++) {
            const unsigned bit = j * b;
            o[j] = (uint32_t)((tv_ld64(q + (bit >> 3)) >> (bit & 7)) & mask);
        }
    }
}

#define UNPACK_FN(B) \
    static void unpack_##B(const uint8_t *in, uint32_t *out) { unpack_body(in, out, B); }
UNPACK_FN(1) UNPACK_FN(2) UNPACK_FN(3) UNPACK_FN(4) UNPACK_FN(5) UNPACK_FN(6) UNPACK_FN(7)
UNPACK_FN(8) UNPACK_FN(9) UNPACK_FN(10) UNPACK_FN(11) UNPACK_FN(12) UNPACK_FN(13)
UNPACK_FN(14) UNPACK_FN(15) UNPACK_FN(16) UNPACK_FN(17) UNPACK_FN(18) UNPACK_FN(19)
UNPACK_FN(20) UNPACK_FN(21) UNPACK_FN(22) UNPACK_FN(23) UNPACK_FN(24) UNPACK_FN(25)
UNPACK_FN(26) UNPACK_FN(27) UNPACK_FN(28) UNPACK_FN(29) UNPACK_FN(30) UNPACK_FN(31)
UNPACK_FN(32)

static void unpack_0(const uint8_t *in, uint32_t *out) {
    (void)in;
    memset(out, 0, TV_BLOCK * sizeof *out);
}

void tv_bp128_unpack(const uint8_t *in, unsigned bits, uint32_t *out) {
    /* A switch (a jump table), not an array of function pointers called per
     * value: one indirect jump per 128 values. */
    switch (bits) {
#define CASE(B) case B: unpack_##B(in, out); return;
        CASE(0) CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8) CASE(9)
        CASE(10) CASE(11) CASE(12) CASE(13) CASE(14) CASE(15) CASE(16) CASE(17) CASE(18)
        CASE(19) CASE(20) CASE(21) CASE(22) CASE(23) CASE(24) CASE(25) CASE(26) CASE(27)
        CASE(28) CASE(29) CASE(30) CASE(31) CASE(32)
#undef CASE
    default: memset(out, 0, TV_BLOCK * sizeof *out); return;
    }
}

void tv_packed_append(tv_buf *b, const uint64_t *v, uint64_t n, unsigned bits) {
    static const uint8_t zero[TV_CODEC_PAD];
    uint64_t nbytes = tv_packed_bytes(n, bits);
    if (!tv_buf_reserve(b, (size_t)nbytes + TV_CODEC_PAD)) {
        b->oom = true;
        return;
    }
    uint8_t *out = (uint8_t *)b->data + b->len;
    size_t o = 0;
    uint64_t acc = 0;
    unsigned have = 0;
    /* values wider than 32 bits go in two pieces so the accumulator never
     * holds more than 7 + 32 bits */
    unsigned lo = bits > 32 ? 32 : bits, hi = bits > 32 ? bits - 32 : 0;
    uint64_t lomask = lo >= 32 ? 0xffffffffull : ((1ull << lo) - 1);
    uint64_t himask = hi >= 32 ? 0xffffffffull : ((1ull << hi) - 1);
    for (uint64_t i = 0; i < n && bits; i++) {
        acc |= (v[i] & lomask) << have;
        have += lo;
        while (have >= 8) {
            out[o++] = (uint8_t)acc;
            acc >>= 8;
            have -= 8;
        }
        if (hi) {
            acc |= ((v[i] >> 32) & himask) << have;
            have += hi;
            while (have >= 8) {
                out[o++] = (uint8_t)acc;
                acc >>= 8;
                have -= 8;
            }
        }
    }
    if (have) out[o++] = (uint8_t)acc;
    b->len += o;
    tv_buf_append(b, zero, TV_CODEC_PAD);
}
