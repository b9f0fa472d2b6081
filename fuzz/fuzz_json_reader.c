/*
 * fuzz_json_reader.c — the JSON reader and writer against arbitrary bytes.
 *
 * Parses the input as one value and as NDJSON lines. When a value parses,
 * it is written back (compact, and pretty through tv_jw_raw) and re-parsed:
 * the DOMs must be equal, and the compact text of the re-parsed DOM must be
 * byte-identical to the first rendering (writing is a fixed point). Errors
 * must carry a position inside the input and a 1-based line and column.
 * Any mismatch aborts.
 */
#include <stdio.h>
#include <stdlib.h>

#include "json/json.h"

static void check(bool ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_json_reader: %s\n", what);
        abort();
    }
}

static void round_trip(const uint8_t *data, size_t size, const tv_json *v) {
    tv_arena a;
    tv_arena_init(&a);
    tv_buf b1, b2, bp;
    tv_buf_init(&b1);
    tv_buf_init(&b2);
    tv_buf_init(&bp);
    tv_jw w;
    tv_jw_init(&w, &b1, false);
    tv_jw_value(&w, v);
    check(!b1.oom, "oom writing");
    tv_json *v2;
    tv_json_error e;
    tv_status st = tv_json_parse(&a, b1.data, b1.len, &v2, &e);
    if (st != TROVE_OK) fprintf(stderr, "re-parse failed: %s\n%.*s\n", e.msg, (int)b1.len, b1.data);
    check(st == TROVE_OK, "compact output does not parse");
    check(tv_json_equal(v, v2), "compact round trip changed the value");
    tv_jw_init(&w, &b2, false);
    tv_jw_value(&w, v2);
    check(b1.len == b2.len && memcmp(b1.data, b2.data, b1.len) == 0, "writing is not a fixed point");
    /* pretty: re-indented from the raw input */
    tv_jw_init(&w, &bp, true);
    tv_jw_raw(&w, (const char *)data, size);
    tv_json *vp;
    st = tv_json_parse(&a, bp.data, bp.len, &vp, &e);
    check(st == TROVE_OK, "pretty output does not parse");
    /* pretty canonicalises numbers (1.50 -> 1.5, -0 -> 0), so compare the
     * shape and the strings through a second pretty rendering */
    tv_buf bq;
    tv_buf_init(&bq);
    tv_jw_init(&w, &bq, true);
    tv_jw_raw(&w, bp.data, bp.len);
    check(bp.len == bq.len && memcmp(bp.data, bq.data, bp.len) == 0, "pretty is not a fixed point");
    tv_buf_fini(&bq);
    tv_buf_fini(&b1);
    tv_buf_fini(&b2);
    tv_buf_fini(&bp);
    tv_arena_fini(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tv_arena a;
    tv_arena_init(&a);
    tv_json *v = NULL;
    tv_json_error e;
    tv_status st = tv_json_parse(&a, data, size, &v, &e);
    if (st == TROVE_OK) {
        check(v != NULL, "no value");
        round_trip(data, size, v);
    } else {
        check(st == TROVE_EJSON || st == TROVE_ELIMIT, "unexpected status");
        check(v == NULL, "value on error");
        check(e.pos <= size, "error position outside the input");
        check(e.line >= 1 && e.col >= 1, "bad line:col");
        check(e.msg[0] != 0, "empty message");
    }
    /* NDJSON: every line on its own */
    size_t off = 0;
    for (int guard = 0; guard < 100000; guard++) {
        size_t before = off;
        st = tv_json_parse_line(&a, data, size, &off, &v, &e);
        if (st != TROVE_OK || !v) break;
        check(off > before, "no progress");
    }
    tv_arena_fini(&a);
    return 0;
}
