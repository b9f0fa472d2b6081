/*
 * fuzz_search_dsl.c — random bytes as a _search body against a small fixed
 * mapping (every query-relevant field type, unsigned_long, date_nanos, ip
 * and binary included) and a small index: parse (JSON, then the query DSL and
 * every top-level search key), plan and execute. Must never crash, leak or
 * trip a sanitizer; errors are fine.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "index/index.h"
#include "json/json.h"
#include "search/search.h"

static tv_index *g_idx;

static void setup(void) {
    static const char mapping[] =
        "{\"properties\":{\"title\":{\"type\":\"text\"},\"tag\":{\"type\":\"keyword\"},"
        "\"n\":{\"type\":\"long\"},\"d\":{\"type\":\"double\"},\"ok\":{\"type\":\"boolean\"},"
        "\"when\":{\"type\":\"date\"},\"obj\":{\"properties\":{\"x\":{\"type\":\"keyword\"}}},"
        "\"u\":{\"type\":\"unsigned_long\"},\"dn\":{\"type\":\"date_nanos\"},\"ip\":{\"type\":\"ip\"},"
        "\"bin\":{\"type\":\"binary\"},\"nest\":{\"type\":\"nested\",\"properties\":{\"k\":{\"type\":\"keyword\"},"
        "\"v\":{\"type\":\"long\"},\"deep\":{\"type\":\"nested\",\"properties\":{\"w\":{\"type\":\"long\"}}}}}}}";
    tv_arena a;
    tv_arena_init(&a);
    tv_json *m = NULL;
    tv_error err = TV_ERROR_INIT;
    if (tv_json_parse(&a, mapping, sizeof mapping - 1, &m, NULL) == TROVE_OK)
        g_idx = tv_index_new("fuzz", NULL, m, &err);
    tv_arena_fini(&a);
    if (!g_idx) return;
    static const char *docs[] = {
        ("{\"title\":\"quick brown fox\",\"tag\":\"a\",\"n\":5,\"d\":1.5,\"ok\":true,\"when\":\"2020-01-01\",\"obj\":{\"x\":\"y\"},"
        "\"u\":18446744073709551615,\"dn\":\"2020-01-01T00:00:00.123456789Z\",\"ip\":\"10.1.2.3\",\"bin\":\"aGk=\"}"),
        ("{\"title\":\"lazy fox jumps over the quick dog\",\"tag\":[\"b\",\"c\"],\"n\":-3,\"u\":7,\"ip\":\"::1\","
         "\"nest\":[{\"k\":\"a\",\"v\":1,\"deep\":[{\"w\":2},{\"w\":3}]},null,{\"k\":\"b\",\"v\":4}]}"),
        "{\"title\":\"\"}",
    };
    for (size_t i = 0; i < 3; i++) {
        char id[4] = {(char)('1' + i), 0};
        tv_write_opts o;
        tv_write_opts_init(&o);
        tv_write_result res;
        tv_error_clear(&err);
        tv_index_put(g_idx, id, 1, docs[i], strlen(docs[i]), &o, &res, &err);
        if (i == 1) tv_index_refresh(g_idx);
    }
    tv_index_refresh(g_idx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_idx) setup();
    if (!g_idx) return 0;
    tv_arena a;
    tv_arena_init(&a);
    tv_json *body = NULL;
    if (tv_json_parse(&a, data, size, &body, NULL) == TROVE_OK) {
        const tv_snapshot *snap = tv_index_acquire(g_idx);
        if (snap) {
            tv_search_target t = {"fuzz", snap, 10000};
            tv_search_params p;
            tv_search_params_init(&p);
            p.body_text = (const char *)data;
            p.body_text_len = size;
            tv_buf out;
            tv_buf_init(&out);
            tv_jw w;
            tv_jw_init(&w, &out, false);
            tv_error err = TV_ERROR_INIT;
            tv_search_run(&t, 1, body, &p, &a, &w, &err);
            tv_buf_clear(&out);
            tv_error_clear(&err);
            tv_search_count(&t, 1, body, &p, &a, &w, &err);
            tv_buf_fini(&out);
            tv_snapshot_release(snap);
        }
    }
    tv_arena_fini(&a);
    return 0;
}
