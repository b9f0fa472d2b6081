/*
 * fuzz_index_translog.c — arbitrary bytes as a translog file: the store
 * layer's scan (header, frames, checksums, torn-tail rules) hands each
 * record to the engine's replay (record decoding, then the write, mapping
 * or settings update it describes) into a fresh index. Inputs whose first
 * byte is odd get a valid header and the checksums of every frame they
 * hold recomputed first, so mutations reach the record decoder instead of
 * stopping at a checksum. Nothing may crash, leak or trip a sanitizer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"
#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tv_status replay(void *ctx, const uint8_t *rec, size_t len) {
    tv_error err = TV_ERROR_INIT;
    (void)tv_index_replay(ctx, rec, len, &err);
    return TROVE_OK; /* keep going: later records exercise more */
}

/* Header and frame checksums made valid (frames as the lengths say). */
static void fix(uint8_t *b, size_t n) {
    if (n < 16) return;
    memcpy(b, "TROVETLG", 8);
    uint32_t v = 1;
    memcpy(b + 8, &v, 4);
    v = tv_checksum32(b, 12);
    memcpy(b + 12, &v, 4);
    for (size_t at = 16; at + 12 <= n;) {
        uint32_t len;
        memcpy(&len, b + at, 4);
        if (len == 0 || len > n - at - 12) break;
        v = tv_checksum32(b + at, 4);
        memcpy(b + at + 4, &v, 4);
        v = tv_checksum32(b + at + 12, len);
        memcpy(b + at + 8, &v, 4);
        at += 12 + (size_t)len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *b = malloc(size ? size : 1);
    if (!b) return 0;
    if (size) memcpy(b, data, size);
    if (size && (data[0] & 1)) fix(b, size);
    tv_error err = TV_ERROR_INIT;
    tv_index *idx = tv_index_new("fuzz", NULL, NULL, &err);
    if (idx) {
        size_t valid;
        tv_error_clear(&err);
        (void)tv_translog_scan("fuzz", b, size, replay, idx, &valid, &err);
        (void)tv_index_refresh(idx);
        tv_index_release(idx);
    }
    free(b);
    return 0;
}
