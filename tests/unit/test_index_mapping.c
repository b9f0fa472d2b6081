/* test_index_mapping.c — field helpers, mapping parse/merge/write/lookups. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
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

static tv_mapping *parse_ok(const char *s) {
    tv_error err = TV_ERROR_INIT;
    tv_mapping *m = tv_mapping_parse(s ? J(s) : NULL, NULL, &err);
    if (!m) fail_msg("parse failed: %s", err.reason);
    return m;
}

static void parse_fails(const char *s, tv_status code, const char *reason, tv_status cause,
                        const char *cause_reason) {
    tv_error err = TV_ERROR_INIT;
    tv_mapping *m = tv_mapping_parse(J(s), NULL, &err);
    assert_null(m);
    assert_int_equal(err.code, code);
    assert_string_equal(err.reason, reason);
    if (cause_reason) {
        assert_int_equal(err.cause_code, cause);
        assert_string_equal(err.cause_reason, cause_reason);
    }
}

static char *written(const tv_mapping *m) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_mapping_write(m, &w);
    char *s = tv_arena_strndup(&A, b.data, b.len);
    tv_buf_fini(&b);
    return s;
}

static void roundtrip(const char *in, const char *expect) {
    tv_mapping *m = parse_ok(in);
    assert_string_equal(written(m), expect);
    tv_mapping_release(m);
}

/* ------------------------------------------------------------- fields */

static void test_type_names(void **state) {
    (void)state;
    assert_string_equal(tv_field_type_name(TV_FT_SCALED_FLOAT), "scaled_float");
    assert_string_equal(tv_field_type_name(TV_FT_HALF_FLOAT), "half_float");
    assert_string_equal(tv_field_type_name(TV_FT_OBJECT), "object");
    assert_true(tv_field_type_is_numeric(TV_FT_BYTE));
    assert_true(tv_field_type_is_numeric(TV_FT_SCALED_FLOAT));
    assert_false(tv_field_type_is_numeric(TV_FT_DATE));
    assert_false(tv_field_type_is_numeric(TV_FT_KEYWORD));
    assert_true(tv_field_type_is_floating(TV_FT_HALF_FLOAT));
    assert_false(tv_field_type_is_floating(TV_FT_SCALED_FLOAT));
}

static void test_sortable_double(void **state) {
    (void)state;
    double vals[] = {-INFINITY, -1e300, -2.5, -1, -1e-300, -0.0, 0.0, 1e-300, 1, 2.5, 1e300, INFINITY};
    for (size_t i = 0; i + 1 < TV_ARRAY_LEN(vals); i++)
        assert_true(tv_double_to_sortable(vals[i]) < tv_double_to_sortable(vals[i + 1]));
    for (size_t i = 0; i < TV_ARRAY_LEN(vals); i++) {
        double back = tv_sortable_to_double(tv_double_to_sortable(vals[i]));
        assert_memory_equal(&back, &vals[i], sizeof back);
    }
    /* Lucene: doubleToSortableLong(1.0) == 0x3ff0000000000000 */
    assert_true(tv_double_to_sortable(1.0) == 0x3ff0000000000000LL);
    assert_true(tv_double_to_sortable(-1.0) == (int64_t)0xc00fffffffffffffULL);
    assert_true(tv_double_to_sortable(NAN) > tv_double_to_sortable(INFINITY));
}

static void test_norms(void **state) {
    (void)state;
    for (uint32_t i = 0; i <= 40; i++) {
        assert_int_equal(tv_norm_encode(i), i);
        assert_int_equal(tv_norm_decode(tv_norm_encode(i)), i);
    }
    /* SmallFloat.intToByte4: 4-bit mantissa buckets above 40 */
    assert_int_equal(tv_norm_encode(41), 40);
    assert_int_equal(tv_norm_encode(42), 41);
    assert_int_equal(tv_norm_decode(41), 42);
    assert_int_equal(tv_norm_encode(100), 57);
    assert_int_equal(tv_norm_decode(57), 96);
    assert_int_equal(tv_norm_encode(1000), 87);
    assert_int_equal(tv_norm_decode(87), 984);
    assert_int_equal(tv_norm_decode(255), 2013265944u);
    assert_int_equal(tv_norm_encode(UINT32_MAX), 255);
    uint8_t prev = 0;
    for (uint32_t i = 0; i < 2000000; i += 7) {
        uint8_t e = tv_norm_encode(i);
        assert_true(e >= prev);
        assert_true(tv_norm_decode(e) <= i);
        prev = e;
    }
}

/* ------------------------------------------------------------- parse/write */

static void test_parse_and_write(void **state) {
    (void)state;
    roundtrip(NULL, "{}");
    roundtrip("{}", "{}");
    roundtrip("{\"properties\":{}}", "{}");
    roundtrip("{\"properties\":{\"b\":{\"type\":\"long\"},\"a\":{\"type\":\"text\"}}}",
              "{\"properties\":{\"a\":{\"type\":\"text\"},\"b\":{\"type\":\"long\"}}}");
    /* explicit defaults are not printed, others in declaration order */
    roundtrip("{\"properties\":{\"k\":{\"ignore_above\":10,\"type\":\"keyword\",\"index\":true,"
              "\"doc_values\":false}}}",
              "{\"properties\":{\"k\":{\"type\":\"keyword\",\"doc_values\":false,\"ignore_above\":10}}}");
    roundtrip("{\"properties\":{\"t\":{\"type\":\"text\",\"fields\":{\"raw\":{\"type\":\"keyword\","
              "\"ignore_above\":256}}}}}",
              "{\"properties\":{\"t\":{\"type\":\"text\",\"fields\":{\"raw\":{\"type\":\"keyword\","
              "\"ignore_above\":256}}}}}");
    roundtrip("{\"properties\":{\"t\":{\"type\":\"text\",\"analyzer\":\"english\"}}}",
              "{\"properties\":{\"t\":{\"type\":\"text\",\"analyzer\":\"english\"}}}");
    roundtrip("{\"properties\":{\"t\":{\"type\":\"text\",\"search_analyzer\":\"simple\"}}}",
              "{\"properties\":{\"t\":{\"type\":\"text\",\"analyzer\":\"default\",\"search_analyzer\":"
              "\"simple\"}}}");
    roundtrip("{\"properties\":{\"p\":{\"type\":\"scaled_float\",\"scaling_factor\":100}}}",
              "{\"properties\":{\"p\":{\"type\":\"scaled_float\",\"scaling_factor\":100.0}}}");
    roundtrip("{\"properties\":{\"d\":{\"type\":\"date\",\"format\":\"yyyy-MM-dd\"}}}",
              "{\"properties\":{\"d\":{\"type\":\"date\",\"format\":\"yyyy-MM-dd\"}}}");
    roundtrip("{\"dynamic\":false,\"properties\":{\"o\":{\"type\":\"object\"}}}",
              "{\"dynamic\":\"false\",\"properties\":{\"o\":{\"type\":\"object\"}}}");
    roundtrip("{\"dynamic\":\"strict\"}", "{\"dynamic\":\"strict\"}");
    roundtrip("{\"properties\":{\"fo\":{\"type\":\"flat_object\"}}}",
              "{\"properties\":{\"fo\":{\"type\":\"flat_object\"}}}");
    roundtrip("{\"properties\":{\"fo\":{\"type\":\"flat_object\",\"depth_limit\":3,"
              "\"ignore_above\":3,\"normalizer\":\"lowercase\",\"doc_values\":false}}}",
              "{\"properties\":{\"fo\":{\"type\":\"flat_object\",\"depth_limit\":3,"
              "\"doc_values\":false,\"ignore_above\":3,\"normalizer\":\"lowercase\"}}}");
    roundtrip("{\"dynamic\":\"strict_allow_templates\"}", "{\"dynamic\":\"strict_allow_templates\"}");
    roundtrip("{\"properties\":{\"o\":{\"dynamic\":\"strict_allow_templates\",\"properties\":{}}}}",
              "{\"properties\":{\"o\":{\"type\":\"object\",\"dynamic\":\"strict_allow_templates\"}}}");
    roundtrip("{\"dynamic\":\"true\"}", "{\"dynamic\":\"true\"}");
    roundtrip("{\"properties\":{\"u\":{\"dynamic\":\"strict\",\"properties\":{\"n\":{\"type\":"
              "\"keyword\"}}},\"e\":{\"enabled\":false}}}",
              "{\"properties\":{\"e\":{\"type\":\"object\",\"enabled\":false},\"u\":{\"dynamic\":"
              "\"strict\",\"properties\":{\"n\":{\"type\":\"keyword\"}}}}}");
    /* dotted names expand into objects */
    roundtrip("{\"properties\":{\"a.b\":{\"type\":\"integer\"},\"a.c\":{\"type\":\"boolean\"}}}",
              "{\"properties\":{\"a\":{\"properties\":{\"b\":{\"type\":\"integer\"},\"c\":{\"type\":"
              "\"boolean\"}}}}}");
    roundtrip("{\"_source\":{\"enabled\":false},\"_routing\":{\"required\":true},\"_meta\":{\"v\":1}}",
              "{\"_meta\":{\"v\":1},\"_routing\":{\"required\":true},\"_source\":{\"enabled\":false}}");
    roundtrip("{\"_source\":{\"excludes\":[\"secret*\"]},\"date_detection\":false,"
              "\"numeric_detection\":true}",
              "{\"_source\":{\"excludes\":[\"secret*\"]},\"date_detection\":false,"
              "\"numeric_detection\":true}");
    roundtrip("{\"_doc\":{\"properties\":{\"x\":{\"type\":\"short\"}}}}",
              "{\"properties\":{\"x\":{\"type\":\"short\"}}}");
    roundtrip("{\"properties\":{\"b\":{\"type\":\"boolean\",\"null_value\":true,\"boost\":2}}}",
              "{\"properties\":{\"b\":{\"type\":\"boolean\",\"boost\":2.0,\"null_value\":true}}}");
}

static void test_fields_and_ids(void **state) {
    (void)state;
    tv_mapping *m = parse_ok("{\"properties\":{\"title\":{\"type\":\"text\",\"fields\":{\"keyword\":"
                             "{\"type\":\"keyword\"}}},\"user\":{\"properties\":{\"name\":{\"type\":"
                             "\"keyword\",\"ignore_above\":5,\"normalizer\":\"lowercase\"},\"age\":{"
                             "\"type\":\"byte\"}}},\"when\":{\"type\":\"date\"},\"price\":{\"type\":"
                             "\"scaled_float\",\"scaling_factor\":10}}}");
    assert_int_equal(tv_mapping_field_count(m), 7);
    const tv_field *t = tv_mapping_field(m, "title", 5);
    assert_non_null(t);
    assert_int_equal(t->type, TV_FT_TEXT);
    assert_true(t->norms);
    assert_false(t->doc_values);
    assert_int_equal(t->index_options, TV_IO_POSITIONS);
    assert_int_equal(t->position_increment_gap, 100);
    assert_non_null(t->analyzer);
    assert_string_equal(tv_analyzer_name(t->analyzer), "standard");
    assert_ptr_equal(t->search_analyzer, t->analyzer);
    const tv_field *tk = tv_mapping_field(m, "title.keyword", 13);
    assert_non_null(tk);
    assert_ptr_equal(tk->multi_parent, t);
    assert_int_equal(tk->dv_kind, TV_DV_SORTED_SET);
    assert_false(tk->norms);
    assert_int_equal(tk->ignore_above, -1);
    const tv_field *n = tv_mapping_field(m, "user.name", 9);
    assert_int_equal(n->ignore_above, 5);
    assert_non_null(n->normalizer);
    const tv_field *u = tv_mapping_field(m, "user", 4);
    assert_int_equal(u->type, TV_FT_OBJECT);
    const tv_field *w = tv_mapping_field(m, "when", 4);
    assert_string_equal(w->format, "strict_date_optional_time||epoch_millis");
    assert_int_equal(w->dv_kind, TV_DV_NUMERIC);
    const tv_field *p = tv_mapping_field(m, "price", 5);
    assert_true(p->scaling_factor == 10.0);
    assert_null(tv_mapping_field(m, "nope", 4));
    assert_null(tv_mapping_field(m, "titl", 4));
    /* ids are dense and each id maps back */
    for (uint32_t i = 0; i < tv_mapping_field_count(m); i++) {
        const tv_field *f = tv_mapping_field_by_id(m, i);
        assert_non_null(f);
        assert_int_equal(f->id, i);
        assert_ptr_equal(tv_mapping_field(m, f->path, f->path_len), f);
    }
    assert_null(tv_mapping_field_by_id(m, 7));
    const tv_field *out[8];
    assert_int_equal(tv_mapping_match_fields(m, "*", 1, out, 8), 6); /* leaves only */
    assert_int_equal(tv_mapping_match_fields(m, "user.*", 6, out, 8), 2);
    assert_string_equal(out[0]->path, "user.age");
    assert_string_equal(out[1]->path, "user.name");
    assert_int_equal(tv_mapping_match_fields(m, "*name", 5, out, 1), 1);
    assert_int_equal(tv_mapping_match_fields(m, "ti*", 3, out, 8), 2);
    assert_true(tv_mapping_source_enabled(m));
    tv_mapping *r = tv_mapping_retain(m);
    tv_mapping_release(r);
    tv_mapping_release(m);
    tv_mapping_release(NULL);
}

static void test_parse_errors(void **state) {
    (void)state;
    parse_fails("{\"properties\":{\"bar\":{\"type\":\"foo\"}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: No handler for type [foo] declared on field [bar]",
                TROVE_EMAPPER, "No handler for type [foo] declared on field [bar]");
    parse_fails("{\"properties\":{\"loc\":{\"type\":\"geo_shape\"}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: No handler for type [geo_shape] declared on field "
                "[loc]: field type [geo_shape] is not supported by trove",
                TROVE_EMAPPER, NULL);
    parse_fails("{\"properties\":{\"f\":{\"type\":\"keyword\",\"analyzer\":\"x\"}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: unknown parameter [analyzer] on mapper [f] of type "
                "[keyword]",
                TROVE_EMAPPER, "unknown parameter [analyzer] on mapper [f] of type [keyword]");
    parse_fails("{\"properties\":{\"o\":{\"properties\":{\"f\":{\"type\":\"long\",\"foo\":1}}}}}",
                TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: unknown parameter [foo] on mapper [f] of type [long]",
                TROVE_EMAPPER, NULL);
    parse_fails("{\"properties\":{\"p\":{\"type\":\"scaled_float\"}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Field [scaling_factor] is required", TROVE_EARG,
                "Field [scaling_factor] is required");
    parse_fails("{\"properties\":{\"t\":{\"type\":\"text\",\"analyzer\":\"nope\"}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: analyzer [nope] has not been configured in mappings",
                TROVE_EARG, "analyzer [nope] has not been configured in mappings");
    parse_fails("{\"foo\":\"bar\"}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Root mapping definition has unsupported parameters: "
                " [foo : bar]",
                TROVE_EMAPPER, NULL);
    parse_fails("{\"properties\":{\"x\":{\"foo\":1}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: No type specified for field [x]", TROVE_EMAPPER, NULL);
    parse_fails("{\"dynamic\":\"yes\"}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Could not convert [_doc.dynamic] to boolean",
                TROVE_EARG, NULL);
    parse_fails("{\"properties\":{\"k\":{\"type\":\"keyword\",\"index_options\":\"positions\"}}}",
                TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Unknown value [positions] for field [index_options] - "
                "accepted values are [docs, freqs]",
                TROVE_EMAPPER, NULL);
    parse_fails("{\"properties\":{\"t\":{\"type\":\"text\",\"fields\":{\"a.b\":{\"type\":\"keyword\"}}}}}",
                TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Field name [a.b] which is a multi field of [t] cannot "
                "contain '.'",
                TROVE_EMAPPER, NULL);
    parse_fails("{\"properties\":{\"d\":{\"type\":\"date\",\"format\":\"yyyy-tt\"}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Error parsing [format] on field [d]: Invalid format: "
                "[yyyy-tt]: Unknown pattern letter: t",
                TROVE_EMAPPER, NULL);
    parse_fails("{\"properties\":{\"i\":{\"type\":\"integer\",\"null_value\":\"abc\"}}}",
                TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Failed to parse mapping: [null_value] [abc] is not a "
                "valid value for field [i] of type [integer]",
                TROVE_EMAPPER, NULL);
    parse_fails("{\"properties\":{\"o\":{\"type\":\"object\",\"foo\":true}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Mapping definition for [o] has unsupported "
                "parameters:  [foo : true]",
                TROVE_EMAPPER, NULL);
    /* a normalizer the index does not define */
    parse_fails("{\"properties\":{\"k\":{\"type\":\"keyword\",\"normalizer\":\"mine\"}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: normalizer [mine] not found for field [k]", TROVE_EMAPPER,
                "normalizer [mine] not found for field [k]");
    /* deprecated no-op parameters are ignored where undeclared */
    tv_mapping *m = parse_ok("{\"properties\":{\"p\":{\"type\":\"scaled_float\",\"scaling_factor\":"
                             "2,\"boost\":2}}}");
    tv_mapping_release(m);
}

static tv_mapping *merge(const tv_mapping *base, const char *upd, tv_error *err) {
    return tv_mapping_merge(base, J(upd), NULL, err);
}

static void test_merge(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_mapping *m1 = parse_ok("{\"properties\":{\"b\":{\"type\":\"long\"},\"t\":{\"type\":\"text\","
                              "\"analyzer\":\"english\"},\"k\":{\"type\":\"keyword\",\"ignore_above\":"
                              "10}}}");
    uint32_t idb = tv_mapping_field(m1, "b", 1)->id, idt = tv_mapping_field(m1, "t", 1)->id,
             idk = tv_mapping_field(m1, "k", 1)->id;
    /* adding fields keeps existing ids, new ones appended */
    tv_error_clear(&err);
    tv_mapping *m2 = merge(m1, "{\"properties\":{\"a\":{\"type\":\"keyword\"},\"o\":{\"properties\":"
                               "{\"x\":{\"type\":\"float\"}}}}}",
                           &err);
    assert_non_null(m2);
    assert_int_equal(tv_mapping_field_count(m2), 6);
    assert_int_equal(tv_mapping_field(m2, "b", 1)->id, idb);
    assert_int_equal(tv_mapping_field(m2, "t", 1)->id, idt);
    assert_int_equal(tv_mapping_field(m2, "k", 1)->id, idk);
    assert_true(tv_mapping_field(m2, "a", 1)->id >= 3);
    assert_true(tv_mapping_field(m2, "o.x", 3)->id >= 3);
    assert_string_equal(tv_analyzer_name(tv_mapping_field(m2, "t", 1)->analyzer), "english");
    /* the base is untouched */
    assert_null(tv_mapping_field(m1, "a", 1));
    assert_string_equal(written(m2),
                        "{\"properties\":{\"a\":{\"type\":\"keyword\"},\"b\":{\"type\":\"long\"},"
                        "\"k\":{\"type\":\"keyword\",\"ignore_above\":10},\"o\":{\"properties\":{\"x\":"
                        "{\"type\":\"float\"}}},\"t\":{\"type\":\"text\",\"analyzer\":\"english\"}}}");
    /* a put-mapping body wrapped in the type name is refused (typeless API) */
    tv_error_clear(&err);
    assert_null(merge(m2, "{\"_doc\":{\"properties\":{\"z\":{\"type\":\"keyword\"}}}}", &err));
    assert_int_equal(err.code, TROVE_EARG);
    assert_string_equal(err.reason, "Types cannot be provided in put mapping requests");
    /* type change */
    tv_error_clear(&err);
    assert_null(merge(m2, "{\"properties\":{\"b\":{\"type\":\"text\"}}}", &err));
    assert_int_equal(err.code, TROVE_EARG);
    assert_string_equal(err.reason, "mapper [b] cannot be changed from type [long] to [text]");
    /* non-updatable parameter */
    tv_error_clear(&err);
    assert_null(merge(m2, "{\"properties\":{\"t\":{\"type\":\"text\",\"analyzer\":\"standard\"}}}", &err));
    assert_string_equal(err.reason, "Mapper for [t] conflicts with existing mapper:\n\tCannot update "
                                    "parameter [analyzer] from [english] to [standard]");
    tv_error_clear(&err);
    assert_null(merge(m2, "{\"properties\":{\"t\":{\"type\":\"text\"}}}", &err));
    assert_string_equal(err.reason, "Mapper for [t] conflicts with existing mapper:\n\tCannot update "
                                    "parameter [analyzer] from [english] to [default]");
    tv_error_clear(&err);
    assert_null(merge(m2, "{\"properties\":{\"b\":{\"type\":\"long\",\"index\":false,\"store\":true}}}",
                      &err));
    assert_string_equal(err.reason, "Mapper for [b] conflicts with existing mapper:\n\tCannot update "
                                    "parameter [index] from [true] to [false]\n\tCannot update "
                                    "parameter [store] from [false] to [true]");
    /* updatable parameter */
    tv_error_clear(&err);
    tv_mapping *m3 = merge(m2, "{\"properties\":{\"k\":{\"type\":\"keyword\",\"ignore_above\":20,"
                               "\"fields\":{\"raw\":{\"type\":\"keyword\"}}}}}",
                           &err);
    assert_non_null(m3);
    assert_int_equal(tv_mapping_field(m3, "k", 1)->ignore_above, 20);
    assert_non_null(tv_mapping_field(m3, "k.raw", 5));
    assert_int_equal(tv_mapping_field(m3, "k", 1)->id, idk);
    /* object vs leaf */
    tv_error_clear(&err);
    assert_null(merge(m3, "{\"properties\":{\"o\":{\"type\":\"keyword\"}}}", &err));
    assert_string_equal(err.reason, "can't merge a non object mapping [o] with an object mapping");
    tv_error_clear(&err);
    assert_null(merge(m3, "{\"properties\":{\"b\":{\"properties\":{\"c\":{\"type\":\"long\"}}}}}", &err));
    assert_string_equal(err.reason, "mapper [b] cannot be changed from type [long] to [ObjectMapper]");
    /* root options */
    tv_error_clear(&err);
    tv_mapping *m4 = merge(m3, "{\"dynamic\":\"strict\",\"_meta\":{\"a\":1}}", &err);
    assert_non_null(m4);
    assert_string_equal(written(m4) + 0, written(m4));
    assert_non_null(strstr(written(m4), "\"dynamic\":\"strict\""));
    tv_error_clear(&err);
    assert_null(merge(m4, "{\"_source\":{\"enabled\":false}}", &err));
    assert_string_equal(err.reason, "Mapper for [_source] conflicts with existing mapper:\n\tCannot "
                                    "update parameter [enabled] from [true] to [false]");
    /* an update's own parse errors are reported unwrapped */
    tv_error_clear(&err);
    assert_null(merge(m4, "{\"properties\":{\"z\":{\"type\":\"foo\"}}}", &err));
    assert_string_equal(err.reason, "No handler for type [foo] declared on field [z]");
    tv_mapping_release(m1);
    tv_mapping_release(m2);
    tv_mapping_release(m3);
    tv_mapping_release(m4);
}

static void test_oom(void **state) {
    (void)state;
    const char *body = "{\"properties\":{\"t\":{\"type\":\"text\",\"fields\":{\"k\":{\"type\":"
                       "\"keyword\"}}},\"o\":{\"properties\":{\"x\":{\"type\":\"long\"}}}}}";
    tv_json *j = J(body);
    for (long n = 0; n < 200; n++) {
        tv_error err = TV_ERROR_INIT;
        tv_alloc_fail_after(n);
        tv_error_clear(&err);
        tv_mapping *m = tv_mapping_parse(j, NULL, &err);
        tv_alloc_fail_after(-1);
        if (m) {
            tv_mapping_release(m);
            break;
        }
        assert_int_equal(err.code, TROVE_ENOMEM);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_type_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sortable_double, setup, teardown),
        cmocka_unit_test_setup_teardown(test_norms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_and_write, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fields_and_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oom, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
