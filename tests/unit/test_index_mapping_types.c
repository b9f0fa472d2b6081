/* test_index_mapping_types.c — the second round of field types (binary, ip,
 * match_only_text, geo_point, date_nanos, unsigned_long, constant_keyword,
 * wildcard, token_count), copy_to, dynamic_templates, mapping limits and
 * the ip/geo/unsigned encodings. */
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

static tv_mapping *parse_ok(const char *s) {
    tv_error err = TV_ERROR_INIT;
    tv_mapping *m = tv_mapping_parse(J(s), NULL, &err);
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

static const tv_field *F(const tv_mapping *m, const char *path) {
    const tv_field *f = tv_mapping_field(m, path, strlen(path));
    assert_non_null(f);
    return f;
}

/* ------------------------------------------------------------- types */

static void test_new_types_parse_and_print(void **state) {
    (void)state;
    roundtrip("{\"properties\":{\"b\":{\"type\":\"binary\"}}}",
              "{\"properties\":{\"b\":{\"type\":\"binary\"}}}");
    roundtrip("{\"properties\":{\"b\":{\"type\":\"binary\",\"doc_values\":true,\"store\":true}}}",
              "{\"properties\":{\"b\":{\"type\":\"binary\",\"store\":true,\"doc_values\":true}}}");
    roundtrip("{\"properties\":{\"i\":{\"type\":\"ip\",\"null_value\":\"::1\","
              "\"ignore_malformed\":true}}}",
              "{\"properties\":{\"i\":{\"type\":\"ip\",\"ignore_malformed\":true,\"null_value\":"
              "\"::1\"}}}");
    roundtrip("{\"properties\":{\"m\":{\"type\":\"match_only_text\"}}}",
              "{\"properties\":{\"m\":{\"type\":\"match_only_text\"}}}");
    roundtrip("{\"properties\":{\"m\":{\"type\":\"match_only_text\",\"analyzer\":\"english\"}}}",
              "{\"properties\":{\"m\":{\"type\":\"match_only_text\",\"analyzer\":\"english\"}}}");
    roundtrip("{\"properties\":{\"g\":{\"type\":\"geo_point\"}}}",
              "{\"properties\":{\"g\":{\"type\":\"geo_point\"}}}");
    roundtrip("{\"properties\":{\"d\":{\"type\":\"date_nanos\"}}}",
              "{\"properties\":{\"d\":{\"type\":\"date_nanos\"}}}");
    roundtrip("{\"properties\":{\"u\":{\"type\":\"unsigned_long\"}}}",
              "{\"properties\":{\"u\":{\"type\":\"unsigned_long\"}}}");
    roundtrip("{\"properties\":{\"c\":{\"type\":\"constant_keyword\",\"value\":\"1\"}}}",
              "{\"properties\":{\"c\":{\"type\":\"constant_keyword\",\"value\":\"1\"}}}");
    roundtrip("{\"properties\":{\"w\":{\"type\":\"wildcard\"}}}",
              "{\"properties\":{\"w\":{\"type\":\"wildcard\",\"doc_values\":true}}}");
    roundtrip("{\"properties\":{\"t\":{\"type\":\"token_count\",\"analyzer\":\"standard\"}}}",
              "{\"properties\":{\"t\":{\"type\":\"token_count\",\"analyzer\":\"standard\"}}}");
    /* typed view */
    tv_mapping *m = parse_ok(
        "{\"properties\":{\"b\":{\"type\":\"binary\"},\"bd\":{\"type\":\"binary\",\"doc_values\":"
        "true},\"i\":{\"type\":\"ip\"},\"m\":{\"type\":\"match_only_text\"},\"g\":{\"type\":"
        "\"geo_point\"},\"d\":{\"type\":\"date_nanos\"},\"u\":{\"type\":\"unsigned_long\"},\"c\":"
        "{\"type\":\"constant_keyword\",\"value\":\"x\"},\"w\":{\"type\":\"wildcard\"},\"t\":{"
        "\"type\":\"token_count\",\"analyzer\":\"standard\"}}}");
    assert_int_equal(F(m, "b")->type, TV_FT_BINARY);
    assert_false(F(m, "b")->index);
    assert_false(F(m, "b")->doc_values);
    assert_int_equal(F(m, "bd")->dv_kind, TV_DV_SORTED_SET);
    assert_int_equal(F(m, "i")->type, TV_FT_IP);
    assert_int_equal(F(m, "i")->dv_kind, TV_DV_SORTED_SET);
    assert_int_equal(F(m, "m")->type, TV_FT_MATCH_ONLY_TEXT);
    assert_int_equal(F(m, "m")->index_options, TV_IO_DOCS);
    assert_false(F(m, "m")->norms);
    assert_non_null(F(m, "m")->analyzer);
    assert_true(tv_field_type_is_text(F(m, "m")->type));
    assert_int_equal(F(m, "g")->dv_kind, TV_DV_NUMERIC);
    assert_string_equal(F(m, "d")->format, "strict_date_optional_time_nanos||epoch_millis");
    assert_true(tv_field_type_is_numeric(F(m, "u")->type));
    assert_int_equal(F(m, "c")->type, TV_FT_KEYWORD);
    assert_string_equal(tv_field_declared_type(F(m, "c")), "constant_keyword");
    assert_int_equal(F(m, "w")->type, TV_FT_KEYWORD);
    assert_true(F(m, "w")->doc_values); /* WildcardFieldMapper: doc_values defaults to true */
    assert_string_equal(tv_field_declared_type(F(m, "w")), "wildcard");
    assert_int_equal(F(m, "t")->type, TV_FT_INTEGER);
    assert_string_equal(tv_field_declared_type(F(m, "t")), "token_count");
    assert_string_equal(tv_field_declared_type(F(m, "i")), "ip");
    assert_string_equal(tv_field_type_name(TV_FT_DATE_NANOS), "date_nanos");
    tv_mapping_release(m);
}

static void test_new_types_errors(void **state) {
    (void)state;
    parse_fails("{\"properties\":{\"c\":{\"type\":\"constant_keyword\"}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Field [c] is missing required parameter [value]",
                TROVE_EPARSEEXC, "Field [c] is missing required parameter [value]");
    parse_fails("{\"properties\":{\"c\":{\"type\":\"constant_keyword\",\"value\":1}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Field [c] is expected to be a string value",
                TROVE_EPARSEEXC, NULL);
    parse_fails("{\"properties\":{\"m\":{\"type\":\"match_only_text\",\"norms\":true}}}",
                TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Norms cannot be enabled on for match_only_text "
                "field",
                TROVE_EMAPPER, NULL);
    parse_fails("{\"properties\":{\"m\":{\"type\":\"match_only_text\",\"index_options\":"
                "\"positions\"}}}",
                TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Unknown value [positions] for field "
                "[index_options] - accepted values are [docs]",
                TROVE_EMAPPER, NULL);
    parse_fails("{\"properties\":{\"t\":{\"type\":\"token_count\"}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Analyzer must be set for field [t] but wasn't.",
                TROVE_EMAPPER, NULL);
    parse_fails("{\"properties\":{\"i\":{\"type\":\"ip\",\"null_value\":\"foo\"}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Error parsing [null_value] on field [i]: 'foo' is "
                "not an IP string literal.",
                TROVE_EMAPPER, NULL);
    parse_fails("{\"properties\":{\"b\":{\"type\":\"binary\",\"analyzer\":\"x\"}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: unknown parameter [analyzer] on mapper [b] of type "
                "[binary]",
                TROVE_EMAPPER, NULL);
    parse_fails("{\"properties\":{\"n\":{\"type\":\"geo_shape\"}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: No handler for type [geo_shape] declared on field "
                "[n]: field type [geo_shape] is not supported by trove",
                TROVE_EMAPPER, NULL);
    /* merging an alias onto its base type is a type change */
    tv_error err = TV_ERROR_INIT;
    tv_mapping *m = parse_ok("{\"properties\":{\"c\":{\"type\":\"constant_keyword\",\"value\":\"a\"}}}");
    tv_error_clear(&err);
    assert_null(tv_mapping_merge(m, J("{\"properties\":{\"c\":{\"type\":\"keyword\"}}}"), NULL, &err));
    assert_string_equal(err.reason, "mapper [c] cannot be changed from type [constant_keyword] to "
                                    "[keyword]");
    tv_error_clear(&err);
    assert_null(tv_mapping_merge(
        m, J("{\"properties\":{\"c\":{\"type\":\"constant_keyword\",\"value\":\"b\"}}}"), NULL, &err));
    assert_string_equal(err.reason, "Mapper for [c] conflicts with existing mapper:\n\tCannot "
                                    "update parameter [value] from [a] to [b]");
    tv_mapping_release(m);
}

/* ------------------------------------------------------------- copy_to */

static void test_copy_to_mapping(void **state) {
    (void)state;
    roundtrip("{\"properties\":{\"a\":{\"type\":\"text\",\"copy_to\":\"all\"},\"all\":{\"type\":"
              "\"text\"}}}",
              "{\"properties\":{\"a\":{\"type\":\"text\",\"copy_to\":[\"all\"]},\"all\":{\"type\":"
              "\"text\"}}}");
    roundtrip("{\"properties\":{\"a\":{\"type\":\"keyword\",\"copy_to\":[\"x\",\"y\"],\"fields\":"
              "{\"r\":{\"type\":\"keyword\"}}}}}",
              "{\"properties\":{\"a\":{\"type\":\"keyword\",\"fields\":{\"r\":{\"type\":\"keyword\"}}"
              ",\"copy_to\":[\"x\",\"y\"]}}}");
    parse_fails("{\"properties\":{\"a\":{\"type\":\"text\",\"fields\":{\"k\":{\"type\":\"keyword\","
                "\"copy_to\":\"z\"}}}}}",
                TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: copy_to in multi fields is not allowed. Found the "
                "copy_to in field [k] which is within a multi field.",
                TROVE_EMAPPER, NULL);
    /* an update replaces copy_to */
    tv_error err = TV_ERROR_INIT;
    tv_mapping *m = parse_ok("{\"properties\":{\"a\":{\"type\":\"keyword\",\"copy_to\":\"x\"}}}");
    tv_error_clear(&err);
    tv_mapping *m2 = tv_mapping_merge(m, J("{\"properties\":{\"a\":{\"type\":\"keyword\",\"copy_to\":"
                                           "[\"y\"]}}}"),
                                      NULL, &err);
    assert_non_null(m2);
    assert_string_equal(written(m2), "{\"properties\":{\"a\":{\"type\":\"keyword\",\"copy_to\":[\"y\"]"
                                     "}}}");
    tv_mapping_release(m2);
    tv_mapping_release(m);
}

/* ------------------------------------------------------------- dynamic templates */

static void test_dynamic_templates_mapping(void **state) {
    (void)state;
    const char *t = "{\"dynamic_templates\":[{\"strings\":{\"match_mapping_type\":\"string\","
                    "\"mapping\":{\"type\":\"keyword\"}}}]}";
    roundtrip(t, t);
    parse_fails("{\"dynamic_templates\":[{\"x\":{\"match\":\"a\"}}]}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: template [x] must have a mapping set", TROVE_EMAPPER,
                NULL);
    parse_fails("{\"dynamic_templates\":[{\"x\":{\"foo\":\"a\",\"mapping\":{}}}]}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Illegal dynamic template parameter: [foo]",
                TROVE_EMAPPER, NULL);
    parse_fails("{\"dynamic_templates\":[{\"x\":{\"match_mapping_type\":\"text\",\"mapping\":{}}}]}",
                TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: No field type matched on [text], possible values "
                "are [object, string, long, double, boolean, date, binary]",
                TROVE_EARG, NULL);
    parse_fails("{\"dynamic_templates\":{\"x\":{}}}", TROVE_EMAPPER,
                "Failed to parse mapping [_doc]: Dynamic template syntax error. An array of named "
                "objects is expected.",
                TROVE_EMAPPER, NULL);
    /* merge: same name replaces in place, new names are appended */
    tv_error err = TV_ERROR_INIT;
    tv_mapping *m = parse_ok("{\"dynamic_templates\":[{\"a\":{\"match\":\"a*\",\"mapping\":{\"type\":"
                             "\"keyword\"}}},{\"b\":{\"match\":\"b*\",\"mapping\":{\"type\":\"long\"}}}]}");
    tv_error_clear(&err);
    tv_mapping *m2 = tv_mapping_merge(
        m, J("{\"dynamic_templates\":[{\"c\":{\"match\":\"c*\",\"mapping\":{\"type\":\"text\"}}},{\"a\":"
             "{\"match\":\"x*\",\"mapping\":{\"type\":\"text\"}}}]}"),
        NULL, &err);
    assert_non_null(m2);
    assert_string_equal(written(m2),
                        "{\"dynamic_templates\":[{\"a\":{\"match\":\"x*\",\"mapping\":{\"type\":"
                        "\"text\"}}},{\"b\":{\"match\":\"b*\",\"mapping\":{\"type\":\"long\"}}},{\"c\":"
                        "{\"match\":\"c*\",\"mapping\":{\"type\":\"text\"}}}]}");
    tv_mapping_release(m2);
    tv_mapping_release(m);
}

/* ------------------------------------------------------------- limits */

static void test_limits(void **state) {
    (void)state;
    tv_settings s;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_settings_parse(J("{\"index.mapping.total_fields.limit\":3,"
                                         "\"index.mapping.depth.limit\":2,"
                                         "\"index.mapping.field_name_length.limit\":5}"),
                                       "idx", &s, &err),
                     TROVE_OK);
    tv_mapping *m = parse_ok("{\"properties\":{\"a\":{\"type\":\"text\",\"fields\":{\"k\":{\"type\":"
                             "\"keyword\"}}},\"b\":{\"type\":\"long\"}}}");
    assert_int_equal(tv_mapping_total_fields(m), 3);
    tv_error_clear(&err);
    assert_int_equal(tv_mapping_check_limits(m, &s, &err), TROVE_OK);
    tv_mapping_release(m);
    m = parse_ok("{\"properties\":{\"a\":{\"type\":\"text\"},\"b\":{\"type\":\"long\"},\"c\":{"
                 "\"type\":\"long\"},\"d\":{\"type\":\"long\"}}}");
    tv_error_clear(&err);
    assert_int_equal(tv_mapping_check_limits(m, &s, &err), TROVE_EARG);
    assert_string_equal(err.reason, "Limit of total fields [3] has been exceeded");
    tv_error_clear(&err);
    assert_int_equal(tv_mapping_check_limits(m, NULL, &err), TROVE_OK);
    tv_mapping_release(m);
    m = parse_ok("{\"properties\":{\"o\":{\"properties\":{\"p\":{\"properties\":{}}}}}}");
    tv_error_clear(&err);
    assert_int_equal(tv_mapping_check_limits(m, &s, &err), TROVE_EARG);
    assert_string_equal(err.reason, "Limit of mapping depth [2] in index [idx] has been exceeded "
                                    "due to object field [o.p]");
    tv_mapping_release(m);
    m = parse_ok("{\"properties\":{\"abcdef\":{\"type\":\"long\"}}}");
    tv_error_clear(&err);
    assert_int_equal(tv_mapping_check_limits(m, &s, &err), TROVE_EARG);
    assert_string_equal(err.reason, "Field name [abcdef] in index [idx] is too long. The limit is "
                                    "set to [5] characters but was [6] characters");
    tv_mapping_release(m);
    tv_settings_fini(&s);
}

/* ------------------------------------------------------------- encodings */

static char *ipfmt(const char *in) {
    uint8_t ip[16];
    if (!tv_ip_parse(in, strlen(in), ip)) return NULL;
    char *out = tv_arena_alloc(&A, TV_IP_TEXT_MAX);
    tv_ip_format(ip, out);
    return out;
}

static void test_ip(void **state) {
    (void)state;
    assert_string_equal(ipfmt("192.168.0.1"), "192.168.0.1");
    assert_string_equal(ipfmt("::1"), "::1");
    assert_string_equal(ipfmt("::"), "::");
    assert_string_equal(ipfmt("2001:DB8:0:0:0:0:0:1"), "2001:db8::1");
    assert_string_equal(ipfmt("::ffff:1.2.3.4"), "1.2.3.4");
    assert_string_equal(ipfmt("::2d34:5305:703a:7ca7"), "::2d34:5305:703a:7ca7");
    assert_string_equal(ipfmt("1:0:0:2:0:0:0:3"), "1:0:0:2::3");
    assert_string_equal(ipfmt("1:0:0:2:0:0:3:4"), "1::2:0:0:3:4");
    assert_string_equal(ipfmt("9dc6:4ca1:f032:7300:8875:6a56:cbe:99a2"),
                        "9dc6:4ca1:f032:7300:8875:6a56:cbe:99a2");
    assert_null(ipfmt("192.168.0.256"));
    assert_null(ipfmt("192.168.01.1"));
    assert_null(ipfmt("1.2.3"));
    assert_null(ipfmt("1::2::3"));
    assert_null(ipfmt("1:2:3:4:5:6:7:8:9"));
    assert_null(ipfmt("1:2:3:4:5:6:7::8"));
    assert_null(ipfmt("foo"));
    assert_null(ipfmt(":1"));
    /* byte order is address order, IPv4 below IPv6 globals */
    uint8_t a[16], b[16], c[16];
    assert_true(tv_ip_parse("10.0.0.1", 8, a));
    assert_true(tv_ip_parse("10.0.0.2", 8, b));
    assert_true(tv_ip_parse("2001::1", 7, c));
    assert_true(memcmp(a, b, 16) < 0 && memcmp(b, c, 16) < 0);
    uint8_t lo[16], hi[16];
    assert_true(tv_ip_parse_cidr("192.168.0.0/16", 14, lo, hi));
    char t[TV_IP_TEXT_MAX];
    tv_ip_format(lo, t);
    assert_string_equal(t, "192.168.0.0");
    tv_ip_format(hi, t);
    assert_string_equal(t, "192.168.255.255");
    assert_true(tv_ip_parse_cidr("2001:db8::/32", 13, lo, hi));
    tv_ip_format(hi, t);
    assert_string_equal(t, "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff");
    assert_false(tv_ip_parse_cidr("1.2.3.4/33", 10, lo, hi));
}

static void test_geo_and_unsigned(void **state) {
    (void)state;
    double lat, lon;
    tv_geo_decode(tv_geo_encode(20.0, 0.0), &lat, &lon);
    assert_true(lat > 19.9999999 && lat <= 20.0);
    assert_true(lon == 0.0);
    tv_geo_decode(tv_geo_encode(-90.0, -180.0), &lat, &lon);
    assert_true(lat == -90.0 && lon == -180.0);
    tv_geo_decode(tv_geo_encode(90.0, 180.0), &lat, &lon);
    assert_true(lat > 89.999999 && lon > 179.999999);
    /* unsigned order survives the signed encoding */
    assert_true(tv_unsigned_to_sortable(0) < tv_unsigned_to_sortable(1));
    assert_true(tv_unsigned_to_sortable(9223372036854775807ull) <
                tv_unsigned_to_sortable(9223372036854775808ull));
    assert_true(tv_unsigned_to_sortable(18446744073709551614ull) <
                tv_unsigned_to_sortable(18446744073709551615ull));
    assert_true(tv_sortable_to_unsigned(tv_unsigned_to_sortable(10223372036854775807ull)) ==
                10223372036854775807ull);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_new_types_parse_and_print, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_types_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_to_mapping, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dynamic_templates_mapping, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_geo_and_unsigned, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
