/* test_index_settings_more.c — settings users put in index templates:
 * accepted and echoed as given, OpenSearch's value checks, the typed
 * getters, and derived_source (translog reads derived only). */
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

static char *flat_text(const tv_settings *s) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_settings_write(s, &w, true);
    char *r = tv_arena_strndup(&A, b.data, b.len);
    tv_buf_fini(&b);
    return r;
}

static void fails(const char *body, tv_status code, const char *reason) {
    tv_settings s;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_settings_parse(J(body), "x", &s, &err), code);
    assert_string_equal(err.reason, reason);
}

static void test_template_settings_echoed(void **state) {
    (void)state;
    tv_settings s;
    tv_error err = TV_ERROR_INIT;
    const char *body =
        "{\"index\":{\"codec\":\"best_compression\",\"hidden\":true,\"soft_deletes\":{\"enabled\":"
        "false},\"mapping\":{\"nested_objects\":{\"limit\":2},\"total_fields\":{\"limit\":100,"
        "\"unmap_fields_beyond_limit\":true},\"depth\":{\"limit\":5},\"field_name_length\":{"
        "\"limit\":50}},\"derived_source\":{\"enabled\":false},\"query\":{\"default_field\":["
        "\"a\",\"b*\"]},\"max_docvalue_fields_search\":50,\"number_of_routing_shards\":4,"
        "\"blocks\":{\"write\":true},\"routing\":{\"allocation\":{\"include\":{\"_tier\":\"hot\"}}},"
        "\"search\":{\"idle\":{\"after\":\"30s\"}},\"translog\":{\"durability\":\"async\","
        "\"flush_threshold_size\":\"512mb\",\"sync_interval\":\"5s\"},\"merge\":{\"policy\":{"
        "\"max_merged_segment\":\"5gb\"}},\"search.slowlog.threshold.query.warn\":\"10s\"}}";
    tv_error_clear(&err);
    assert_int_equal(tv_settings_parse(J(body), "t", &s, &err), TROVE_OK);
    const char *flat = flat_text(&s);
    const char *want[] = {
        "\"index.codec\":\"best_compression\"", "\"index.hidden\":\"true\"",
        "\"index.soft_deletes.enabled\":\"false\"", "\"index.mapping.nested_objects.limit\":\"2\"",
        "\"index.mapping.total_fields.unmap_fields_beyond_limit\":\"true\"",
        "\"index.derived_source.enabled\":\"false\"", "\"index.query.default_field\":[\"a\",\"b*\"]",
        "\"index.max_docvalue_fields_search\":\"50\"", "\"index.number_of_routing_shards\":\"4\"",
        "\"index.blocks.write\":\"true\"", "\"index.routing.allocation.include._tier\":\"hot\"",
        "\"index.search.idle.after\":\"30s\"", "\"index.translog.durability\":\"async\"",
        "\"index.translog.flush_threshold_size\":\"512mb\"",
        "\"index.merge.policy.max_merged_segment\":\"5gb\"",
        "\"index.search.slowlog.threshold.query.warn\":\"10s\"",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(flat, want[i])) fail_msg("missing %s in %s", want[i], flat);
    assert_int_equal(tv_settings_int(&s, "index.mapping.total_fields.limit", 1000), 100);
    assert_int_equal(tv_settings_int(&s, "index.mapping.depth.limit", 20), 5);
    assert_int_equal(tv_settings_int(&s, "index.max_docvalue_fields_search", 100), 50);
    assert_int_equal(tv_settings_int(&s, "index.unset", 7), 7);
    assert_true(tv_settings_bool(&s, "index.hidden", false));
    assert_false(tv_settings_bool(&s, "index.soft_deletes.enabled", true));
    assert_true(tv_settings_bool(&s, "index.unset", true));
    /* dynamic ones update, static ones do not */
    tv_error_clear(&err);
    assert_int_equal(tv_settings_update(&s, J("{\"index.mapping.total_fields.limit\":200}"), &err),
                     TROVE_OK);
    assert_int_equal(tv_settings_int(&s, "index.mapping.total_fields.limit", 1000), 200);
    tv_error_clear(&err);
    assert_int_equal(tv_settings_update(&s, J("{\"index.soft_deletes.enabled\":true}"), &err),
                     TROVE_EARG);
    assert_non_null(strstr(err.reason, "Can't update non dynamic settings [[index.soft_deletes.enabled]]"));
    tv_settings_fini(&s);
}

static void test_value_errors(void **state) {
    (void)state;
    fails("{\"index.derived_source.translog.enabled\":false}", TROVE_EUNSUPPORTED,
          "index setting [index.derived_source.translog.enabled] [false] is not supported by trove "
          "(translog reads show the derived source too)");
    /* the pipeline settings are accepted and read back as given */
    {
        tv_settings ps;
        tv_error perr = TV_ERROR_INIT;
        assert_int_equal(tv_settings_parse(J("{\"index.default_pipeline\":\"p\",\"index\":{\"final_pipeline\":\"q\"}}"),
                                           "x", &ps, &perr),
                         TROVE_OK);
        size_t n = 0;
        const char *v = tv_settings_str(&ps, "index.default_pipeline", &n);
        assert_non_null(v);
        assert_true(n == 1 && v[0] == 'p');
        v = tv_settings_str(&ps, "index.final_pipeline", &n);
        assert_non_null(v);
        assert_true(n == 1 && v[0] == 'q');
        assert_null(tv_settings_str(&ps, "index.nope", &n));
        tv_settings_fini(&ps);
    }
    fails("{\"index.codec\":\"snappy\"}", TROVE_EARG,
          "unknown value for [index.codec] must be one of [default, lz4, best_compression, zlib] "
          "but was: snappy");
    fails("{\"index.translog.durability\":\"sometimes\"}", TROVE_EARG,
          "No enum constant org.opensearch.index.translog.Translog.Durability.SOMETIMES");
    fails("{\"index.translog.flush_threshold_size\":\"12 parsecs\"}", TROVE_EPARSEEXC,
          "failed to parse setting [index.translog.flush_threshold_size] with value [12 parsecs] "
          "as a size in bytes: unit is missing or unrecognized");
    fails("{\"index.soft_deletes.enabled\":\"maybe\"}", TROVE_EARG,
          "Failed to parse value [maybe] as only [true] or [false] are allowed.");
    fails("{\"index.mapping.nested_objects.limit\":-1}", TROVE_EARG,
          "Failed to parse value [-1] for setting [index.mapping.nested_objects.limit] must be >= 0");
    fails("{\"index.sort.field\":\"a\"}", TROVE_EARG,
          "unknown setting [index.sort.field] please check that any required plugins are "
          "installed, or check the breaking changes documentation for removed settings");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_template_settings_echoed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_value_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
