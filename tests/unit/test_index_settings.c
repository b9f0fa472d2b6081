/* test_index_settings.c — index settings: parse, validation, updates, output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "index/index.h"

static tv_arena A;

static int setup(void **state) {
    (void)state;
    tv_arena_init(&A);
    return 0;
}
static int teardown(void **state) {
    (void)state;
    tv_arena_fini(&A);
    return 0;
}

static tv_json *J(const char *s) {
    tv_json *out = NULL;
    tv_json_error je;
    assert_int_equal(tv_json_parse(&A, s, strlen(s), &out, &je), TROVE_OK);
    return out;
}

static char *out_text(const tv_settings *s, bool flat) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_settings_write(s, &w, flat);
    char *r = tv_arena_strndup(&A, b.data, b.len);
    tv_buf_fini(&b);
    return r;
}

static void fails(const char *body, const char *reason) {
    tv_settings s;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_settings_parse(J(body), "x", &s, &err), TROVE_EARG);
    assert_string_equal(err.reason, reason);
}

static void test_defaults(void **state) {
    (void)state;
    tv_settings s;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_settings_parse(NULL, "books", &s, &err), TROVE_OK);
    assert_int_equal(s.number_of_shards, 1);
    assert_int_equal(s.number_of_replicas, 1);
    assert_int_equal(s.refresh_interval_ms, 1000);
    assert_int_equal(s.max_result_window, 10000);
    assert_int_equal(strlen(s.uuid), 22);
    for (const char *p = s.uuid; *p; p++)
        assert_true((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                    *p == '-' || *p == '_');
    assert_string_equal(s.provided_name, "books");
    assert_true(s.creation_date_ms > 1600000000000LL);
    assert_non_null(s.analysis);
    /* OpenSearch 3's key order (java.util.HashMap) and string values */
    char want[512];
    snprintf(want, sizeof want,
             "{\"index\":{\"replication\":{\"type\":\"DOCUMENT\"},\"number_of_shards\":\"1\","
             "\"provided_name\":\"books\",\"creation_date\":\"%lld\",\"number_of_replicas\":\"1\","
             "\"uuid\":\"%s\",\"version\":{\"created\":\"137227827\"}}}",
             (long long)s.creation_date_ms, s.uuid);
    assert_string_equal(out_text(&s, false), want);
    snprintf(want, sizeof want,
             "{\"index.creation_date\":\"%lld\",\"index.number_of_replicas\":\"1\","
             "\"index.number_of_shards\":\"1\",\"index.provided_name\":\"books\","
             "\"index.replication.type\":\"DOCUMENT\",\"index.uuid\":\"%s\","
             "\"index.version.created\":\"137227827\"}",
             (long long)s.creation_date_ms, s.uuid);
    assert_string_equal(out_text(&s, true), want);
    tv_settings t;
    tv_error_clear(&err);
    assert_int_equal(tv_settings_parse(NULL, "books", &t, &err), TROVE_OK);
    assert_string_not_equal(s.uuid, t.uuid);
    tv_settings_fini(&t);
    tv_settings_fini(&s);
}

static void test_spellings(void **state) {
    (void)state;
    const char *bodies[] = {
        "{\"index\":{\"number_of_shards\":3,\"number_of_replicas\":0,\"refresh_interval\":\"500ms\"}}",
        "{\"number_of_shards\":\"3\",\"number_of_replicas\":0,\"refresh_interval\":\"500ms\"}",
        ("{\"index.number_of_shards\":3,\"index\":{\"number_of_replicas\":\"0\"},"
         "\"refresh_interval\":\"500ms\"}"),
    };
    for (size_t i = 0; i < TV_ARRAY_LEN(bodies); i++) {
        tv_settings s;
        tv_error err = TV_ERROR_INIT;
        assert_int_equal(tv_settings_parse(J(bodies[i]), "x", &s, &err), TROVE_OK);
        assert_int_equal(s.number_of_shards, 3);
        assert_int_equal(s.number_of_replicas, 0);
        assert_int_equal(s.refresh_interval_ms, 500);
        tv_settings_fini(&s);
    }
    tv_settings s;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_settings_parse(J("{\"refresh_interval\":-1,\"max_result_window\":50}"), "x", &s,
                                       &err),
                     TROVE_OK);
    assert_int_equal(s.refresh_interval_ms, -1);
    assert_int_equal(s.max_result_window, 50);
    assert_non_null(strstr(out_text(&s, false), "\"refresh_interval\":\"-1\""));
    tv_settings_fini(&s);
}

static void test_errors(void **state) {
    (void)state;
    fails("{\"index\":{\"foo\":1}}",
          "unknown setting [index.foo] please check that any required plugins are installed, or "
          "check the breaking changes documentation for removed settings");
    fails("{\"number_of_shards\":0}",
          "Failed to parse value [0] for setting [index.number_of_shards] must be >= 1");
    fails("{\"number_of_shards\":2000}",
          "Failed to parse value [2000] for setting [index.number_of_shards] must be <= 1024");
    fails("{\"number_of_shards\":\"abc\"}",
          "Failed to parse value [abc] for setting [index.number_of_shards]");
    fails("{\"number_of_replicas\":-1}",
          "Failed to parse value [-1] for setting [index.number_of_replicas] must be >= 0");
    fails("{\"refresh_interval\":\"abc\"}",
          "failed to parse setting [index.refresh_interval] with value [abc] as a time value: unit "
          "is missing or unrecognized");
    /* TimeValue refuses a negative duration before the setting's minimum
     * is looked at; -1 of a unit passes the parse and fails the minimum */
    fails("{\"refresh_interval\":\"-5s\"}",
          "failed to parse setting [index.refresh_interval] with value [-5s] as a time value: negative durations are "
          "not supported");
    fails("{\"refresh_interval\":\"-1s\"}",
          "failed to parse value [-1s] for setting [index.refresh_interval], must be >= [-1]");
    fails("{\"refresh_interval\":\"0.5s\"}", "failed to parse [0.5s], fractional time values are not supported");
    fails("{\"uuid\":\"abc\"}", "private index setting [index.uuid] can not be set explicitly");
}

static void test_analysis(void **state) {
    (void)state;
    tv_settings s;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(
        tv_settings_parse(J("{\"analysis\":{\"analyzer\":{\"my\":{\"type\":\"custom\",\"tokenizer\":"
                            "\"whitespace\",\"filter\":[\"lowercase\"]}}}}"),
                          "x", &s, &err),
        TROVE_OK);
    const tv_analyzer *an = tv_analysis_get(s.analysis, "my", 2);
    assert_non_null(an);
    tv_tokens toks;
    assert_int_equal(tv_analyze(an, &A, "Foo-Bar Baz", 11, 0, &toks), TROVE_OK);
    assert_int_equal(toks.len, 2);
    assert_memory_equal(toks.items[0].term, "foo-bar", 7);
    assert_non_null(strstr(out_text(&s, true),
                           "\"index.analysis.analyzer.my.filter\":[\"lowercase\"]"));
    /* mapping resolves names through the registry */
    tv_error_clear(&err);
    tv_mapping *m = tv_mapping_parse(J("{\"properties\":{\"t\":{\"type\":\"text\",\"analyzer\":\"my\"}}}"),
                                     s.analysis, &err);
    assert_non_null(m);
    assert_ptr_equal(tv_mapping_field(m, "t", 1)->analyzer, an);
    tv_mapping_release(m);
    tv_settings_fini(&s);
}

static void test_update(void **state) {
    (void)state;
    tv_settings s;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_settings_parse(NULL, "books", &s, &err), TROVE_OK);
    char uuid[32];
    strcpy(uuid, s.uuid);
    tv_error_clear(&err);
    assert_int_equal(tv_settings_update(&s, J("{\"index\":{\"number_of_replicas\":2,"
                                              "\"refresh_interval\":\"30s\"}}"),
                                        &err),
                     TROVE_OK);
    assert_int_equal(s.number_of_replicas, 2);
    assert_int_equal(s.refresh_interval_ms, 30000);
    assert_string_equal(s.uuid, uuid);
    assert_non_null(strstr(out_text(&s, true), "\"index.refresh_interval\":\"30s\""));
    /* null resets to the default */
    tv_error_clear(&err);
    assert_int_equal(tv_settings_update(&s, J("{\"refresh_interval\":null}"), &err), TROVE_OK);
    assert_int_equal(s.refresh_interval_ms, 1000);
    assert_null(strstr(out_text(&s, true), "refresh_interval"));
    char want[256];
    snprintf(want, sizeof want,
             "Can't update non dynamic settings [[index.number_of_shards]] for open indices "
             "[[books/%s]]",
             uuid);
    tv_error_clear(&err);
    assert_int_equal(tv_settings_update(&s, J("{\"number_of_shards\":2}"), &err), TROVE_EARG);
    assert_string_equal(err.reason, want);
    tv_error_clear(&err);
    assert_int_equal(tv_settings_update(&s, J("{\"number_of_replicas\":-3}"), &err), TROVE_EARG);
    tv_error_clear(&err);
    assert_int_equal(tv_settings_update(&s, J("{\"bogus\":1}"), &err), TROVE_EARG);
    assert_int_equal(s.number_of_replicas, 2);
    tv_settings_fini(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spellings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_analysis, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
