/* test_index_codec.c — bit-packing of 128-value blocks and packed columns:
 * round trips for every bit width, boundary values and tail sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "index/codec.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_bp128_every_width(void **state) {
    (void)state;
    uint32_t in[TV_BLOCK], out[TV_BLOCK], ref[TV_BLOCK];
    uint8_t packed[16 * 32 + TV_CODEC_PAD];
    for (unsigned bits = 0; bits <= 32; bits++) {
        uint64_t mask = bits == 32 ? 0xffffffffull : ((1ull << bits) - 1);
        for (int pattern = 0; pattern < 4; pattern++) {
            for (int i = 0; i < TV_BLOCK; i++) {
                uint64_t v = pattern == 0 ? rnd() : pattern == 1 ? mask : pattern == 2 ? (i & 1 ? mask : 0) : (uint64_t)i;
                in[i] = (uint32_t)(v & mask);
            }
            memset(packed, 0xEE, sizeof packed); /* padding is never read as data */
            tv_bp128_pack(in, bits, packed);
            tv_bp128_unpack(packed, bits, out);
            tv_bp128_unpack_ref(packed, bits, ref);
            assert_memory_equal(out, in, sizeof in);
            assert_memory_equal(ref, in, sizeof in);
            /* exactly 16*bits bytes are written */
            assert_int_equal(packed[16 * bits], 0xEE);
        }
        /* bits above the width are ignored by pack */
        for (int i = 0; i < TV_BLOCK; i++) in[i] = 0xffffffffu;
        tv_bp128_pack(in, bits, packed);
        tv_bp128_unpack(packed, bits, out);
        for (int i = 0; i < TV_BLOCK; i++) assert_int_equal(out[i], (uint32_t)mask);
    }
}

/* Short runs (the last chunk of a position group): tv_bitpack32 writes
 * exactly ceil(n*bits/8) bytes, the last one's unused high bits zero, and
 * tv_packed_get reads each value back. */
static void test_bitpack_short_runs(void **state) {
    (void)state;
    uint32_t in[TV_BLOCK];
    uint8_t packed[16 * 32 + TV_CODEC_PAD];
    for (unsigned bits = 0; bits <= 32; bits++) {
        uint64_t mask = bits == 32 ? 0xffffffffull : ((1ull << bits) - 1);
        for (size_t n = 0; n <= TV_BLOCK; n += 1 + n / 4) {
            for (size_t i = 0; i < n; i++) in[i] = (uint32_t)(rnd() | 0x80000001u); /* high bits dropped */
            memset(packed, 0xEE, sizeof packed);
            size_t len = tv_bitpack32(in, n, bits, packed);
            assert_int_equal(len, tv_packed_bytes(n, bits));
            assert_int_equal(packed[len], 0xEE);
            if ((n * bits) % 8) assert_int_equal(packed[len - 1] >> ((n * bits) % 8), 0);
            memset(packed + len, 0, TV_CODEC_PAD);
            for (size_t i = 0; i < n; i++) assert_int_equal(tv_packed_get(packed, bits, i), in[i] & mask);
        }
    }
}

static void test_bits_needed(void **state) {
    (void)state;
    assert_int_equal(tv_bits_needed32(0), 0);
    assert_int_equal(tv_bits_needed32(1), 1);
    assert_int_equal(tv_bits_needed32(255), 8);
    assert_int_equal(tv_bits_needed32(256), 9);
    assert_int_equal(tv_bits_needed32(UINT32_MAX), 32);
    assert_int_equal(tv_bits_needed64(UINT64_MAX), 64);
    assert_int_equal(tv_packed_bytes(3, 3), 2);
    assert_int_equal(tv_packed_bytes(0, 64), 0);
}

static void test_packed_columns(void **state) {
    (void)state;
    uint64_t v[300];
    for (unsigned bits = 0; bits <= 64; bits++) {
        uint64_t mask = bits == 64 ? UINT64_MAX : ((1ull << bits) - 1);
        for (uint64_t n = 0; n < 140; n += (n < 20 ? 1 : 13)) { /* tail sizes */
            for (uint64_t i = 0; i < n; i++) v[i] = (i % 5 == 0 ? mask : rnd()) & mask;
            tv_buf b;
            tv_buf_init(&b);
            tv_buf_putc(&b, 'x'); /* unaligned start */
            tv_packed_append(&b, v, n, bits);
            assert_false(b.oom);
            assert_int_equal(b.len, 1 + tv_packed_bytes(n, bits) + TV_CODEC_PAD);
            for (uint64_t i = 0; i < n; i++)
                assert_true(tv_packed_get((const uint8_t *)b.data + 1, bits, i) == v[i]);
            tv_buf_fini(&b);
        }
    }
}

static void test_varint_helpers(void **state) {
    (void)state;
    tv_buf b;
    tv_buf_init(&b);
    uint64_t vals[] = {0, 1, 127, 128, 16383, 16384, UINT32_MAX, UINT64_MAX};
    for (size_t i = 0; i < TV_ARRAY_LEN(vals); i++) tv_buf_varint(&b, vals[i]);
    const uint8_t *p = (const uint8_t *)b.data, *end = p + b.len;
    for (size_t i = 0; i < TV_ARRAY_LEN(vals); i++) {
        uint64_t v;
        p = tv_vget(p, end, &v);
        assert_non_null(p);
        assert_true(v == vals[i]);
    }
    assert_ptr_equal(p, end);
    uint64_t v;
    assert_null(tv_vget(p, end, &v)); /* at the end */
    const uint8_t trunc[] = {0x80, 0x80};
    assert_null(tv_vget(trunc, trunc + 2, &v));
    tv_buf_align8(&b);
    assert_int_equal(b.len % 8, 0);
    tv_buf_fini(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bp128_every_width),
        cmocka_unit_test(test_bitpack_short_runs),
        cmocka_unit_test(test_bits_needed),
        cmocka_unit_test(test_packed_columns),
        cmocka_unit_test(test_varint_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
