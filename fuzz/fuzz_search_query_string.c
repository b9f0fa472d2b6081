/*
 * fuzz_search_query_string.c — random text as a query_string and as a
 * simple_query_string query against a small fixed mapping and a
 * three-document index: parse (lexer, grammar, per-field building),
 * plan and execute through tv_search_run. The first byte picks the field
 * setup and options (default_field, fields with boosts, AND operator,
 * lenient, analyze_wildcard, allow_leading_wildcard, quote_field_suffix);
 * the rest is the query text. Must never crash, leak or trip a sanitizer;
 * errors are fine.
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
        "{\"properties\":{\"title\":{\"type\":\"text\",\"fields\":{\"raw\":{\"type\":\"keyword\"}}},"
        "\"tag\":{\"type\":\"keyword\",\"normalizer\":\"lowercase\"},\"n\":{\"type\":\"long\"},"
        "\"d\":{\"type\":\"double\"},\"ok\":{\"type\":\"boolean\"},\"when\":{\"type\":\"date\"},"
        "\"en\":{\"type\":\"text\",\"analyzer\":\"english\"}}}";
    tv_arena a;
    tv_arena_init(&a);
    tv_json *m = NULL;
    tv_error err = TV_ERROR_INIT;
    if (tv_json_parse(&a, mapping, sizeof mapping - 1, &m, NULL) == TROVE_OK)
        g_idx = tv_index_new("fuzz", NULL, m, &err);
    tv_arena_fini(&a);
    if (!g_idx) return;
    static const char *docs[] = {
        "{\"title\":\"quick brown fox\",\"tag\":\"A\",\"n\":5,\"d\":1.5,\"ok\":true,\"when\":\"2020-01-01\",\"en\":\"running dogs\"}",
        "{\"title\":\"lazy fox jumps over the quick dog\",\"tag\":[\"b\",\"c\"],\"n\":-3}",
        "{\"title\":\"\"}",
    };
    for (size_t i = 0; i < 3; i++) {
        char id[4] = {(char)('1' + i), 0};
        tv_write_opts o;
        tv_write_opts_init(&o);
        tv_write_result res;
        tv_error_clear(&err);
        tv_index_put(g_idx, id, 1, docs[i], strlen(docs[i]), &o, &res, &err);
    }
    tv_index_refresh(g_idx);
}

static void run_one(const tv_snapshot *snap, const char *qname, uint8_t opt, const uint8_t *text, size_t n) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "query");
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, qname);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "query");
    tv_jw_str(&w, (const char *)text, n);
    bool qs = qname[0] == 'q';
    switch (opt & 3) {
    case 0: break;
    case 1:
        if (qs) {
            tv_jw_keyz(&w, "default_field");
            tv_jw_strz(&w, "title");
            break;
        }
        /* fall through */
    case 2:
        tv_jw_keyz(&w, "fields");
        tv_jw_arr_begin(&w);
        tv_jw_strz(&w, "title^2");
        tv_jw_strz(&w, "tag");
        tv_jw_strz(&w, "n");
        tv_jw_arr_end(&w);
        break;
    case 3:
        tv_jw_keyz(&w, "fields");
        tv_jw_arr_begin(&w);
        tv_jw_strz(&w, "t*");
        tv_jw_strz(&w, "en^0.5");
        tv_jw_arr_end(&w);
        break;
    }
    if (opt & 4) { tv_jw_keyz(&w, "default_operator"); tv_jw_strz(&w, "AND"); }
    if (opt & 8) { tv_jw_keyz(&w, "lenient"); tv_jw_bool(&w, true); }
    if (opt & 16) { tv_jw_keyz(&w, "analyze_wildcard"); tv_jw_bool(&w, true); }
    if (opt & 32) { tv_jw_keyz(&w, "quote_field_suffix"); tv_jw_strz(&w, ".raw"); }
    if (qs && (opt & 64)) { tv_jw_keyz(&w, "allow_leading_wildcard"); tv_jw_bool(&w, false); }
    if (opt & 128) { tv_jw_keyz(&w, "minimum_should_match"); tv_jw_strz(&w, "2<-1"); }
    tv_jw_obj_end(&w);
    tv_jw_obj_end(&w);
    tv_jw_obj_end(&w);
    if (!b.oom) {
        tv_arena a;
        tv_arena_init(&a);
        tv_json *body = NULL;
        if (tv_json_parse(&a, b.data, b.len, &body, NULL) == TROVE_OK) {
            tv_search_target t = {"fuzz", snap, 10000};
            tv_search_params p;
            tv_search_params_init(&p);
            p.body_text = b.data;
            p.body_text_len = b.len;
            tv_buf out;
            tv_buf_init(&out);
            tv_jw ow;
            tv_jw_init(&ow, &out, false);
            tv_error err = TV_ERROR_INIT;
            tv_search_run(&t, 1, body, &p, &a, &ow, &err);
            tv_buf_fini(&out);
        }
        tv_arena_fini(&a);
    }
    tv_buf_fini(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_idx) setup();
    if (!g_idx || size == 0 || size > 4096) return 0;
    const tv_snapshot *snap = tv_index_acquire(g_idx);
    if (!snap) return 0;
    run_one(snap, "query_string", data[0], data + 1, size - 1);
    run_one(snap, "simple_query_string", data[0], data + 1, size - 1);
    tv_snapshot_release(snap);
    return 0;
}
