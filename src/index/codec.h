/*
 * codec.h — private to src/index/segment*.c: the integer codecs segments are
 * made of. Not part of the index layer's contract (index.h).
 *
 *   bit-packing of 128 values      tv_bp128_pack / tv_bp128_unpack: 128
 *                                  uint32 values of `bits` bits each (0..32)
 *                                  in exactly 16*bits bytes, little-endian
 *                                  bit order (value i occupies bits
 *                                  [i*bits, (i+1)*bits) of the byte string).
 *   packed columns                 any count of uint64 values of 0..64 bits,
 *                                  same bit order, random access by index.
 *   little-endian loads / stores   unaligned-safe (memcpy).
 *
 * Readers of packed data load 8 bytes at a time, so every packed area that a
 * reader touches must be followed by at least TV_CODEC_PAD readable bytes
 * (writers pad; readers check the padding is inside the section).
 */
#ifndef TROVE_INDEX_CODEC_H
#define TROVE_INDEX_CODEC_H

#include <stdint.h>
#include <string.h>

#include "util/util.h"

#define TV_BLOCK 128   /* postings block size (docs) */
#define TV_CODEC_PAD 8 /* readable bytes required after packed data */

static inline uint16_t tv_ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t tv_ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t tv_ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void tv_st32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void tv_st64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* Bits needed to represent v (0 for 0). */
static inline unsigned tv_bits_needed32(uint32_t v) { return v ? 32u - (unsigned)__builtin_clz(v) : 0u; }
static inline unsigned tv_bits_needed64(uint64_t v) { return v ? 64u - (unsigned)__builtin_clzll(v) : 0u; }

/* Bytes of n packed values of `bits` bits (without the reader padding). */
static inline uint64_t tv_packed_bytes(uint64_t n, unsigned bits) { return (n * bits + 7) / 8; }

/* Packs in[0..n) (each < 2^bits, bits <= 32) into out[0..tv_packed_bytes(n,
 * bits)), value i in bits [i*bits, (i+1)*bits); returns that byte count.
 * Bits of values above `bits` are ignored. */
size_t tv_bitpack32(const uint32_t *in, size_t n, unsigned bits, uint8_t *out);
/* tv_bitpack32 of exactly 128 values: out[0..16*bits). */
static inline void tv_bp128_pack(const uint32_t *in, unsigned bits, uint8_t *out) { tv_bitpack32(in, TV_BLOCK, bits, out); }
/* Unpacks 128 values from in (16*bits bytes followed by TV_CODEC_PAD
 * readable bytes). bits must be <= 32. */
void tv_bp128_unpack(const uint8_t *in, unsigned bits, uint32_t *out);
/* The scalar reference implementation (kept for tests; the same results). */
void tv_bp128_unpack_ref(const uint8_t *in, unsigned bits, uint32_t *out);

/* Value i of a packed area of `bits` bits (0..64). The area must be followed
 * by TV_CODEC_PAD readable bytes. */
static inline uint64_t tv_packed_get(const uint8_t *d, unsigned bits, uint64_t i) {
    if (bits == 0) return 0;
    uint64_t bit = i * bits;
    const uint8_t *p = d + (bit >> 3);
    unsigned s = (unsigned)(bit & 7);
    uint64_t w = tv_ld64(p) >> s;
    if (bits + s > 64) w |= (uint64_t)p[8] << (64 - s);
    return bits == 64 ? w : (w & ((1ull << bits) - 1));
}

/* Appends n values packed with `bits` bits, plus TV_CODEC_PAD zero bytes,
 * to b (sticky oom in b). */
void tv_packed_append(tv_buf *b, const uint64_t *v, uint64_t n, unsigned bits);

/* Varint append to a tv_buf (sticky oom). */
static inline void tv_buf_varint(tv_buf *b, uint64_t v) {
    uint8_t tmp[10];
    tv_buf_append(b, tmp, tv_varint_put(tmp, v));
}
static inline void tv_buf_u8(tv_buf *b, uint8_t v) { tv_buf_append(b, &v, 1); }
static inline void tv_buf_u32(tv_buf *b, uint32_t v) { tv_buf_append(b, &v, 4); }
static inline void tv_buf_u64(tv_buf *b, uint64_t v) { tv_buf_append(b, &v, 8); }
/* Zero bytes up to the next multiple of 8. */
static inline void tv_buf_align8(tv_buf *b) {
    static const uint8_t z[8];
    if (b->len & 7) tv_buf_append(b, z, 8 - (b->len & 7));
}

/* Fast varint read for trusted-bounded loops: reads from [p, end); returns
 * the new p, or NULL on truncated/overlong input. */
static inline const uint8_t *tv_vget(const uint8_t *p, const uint8_t *end, uint64_t *v) {
    if (TV_LIKELY(p < end && *p < 0x80)) {
        *v = *p;
        return p + 1;
    }
    size_t n = tv_varint_get(p, end, v);
    return n ? p + n : NULL;
}

#endif /* TROVE_INDEX_CODEC_H */
