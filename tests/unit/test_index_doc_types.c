/* test_index_doc_types.c — documents with binary, ip, geo_point, date_nanos,
 * unsigned_long, match_only_text, constant_keyword, token_count fields;
 * copy_to; dynamic templates; unmap_fields_beyond_limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "index/index.h"

#include "index_test.h"

static char *update_of(const tv_mapping *m, const tv_doc_opts *o, const char *src) {
    tv_parsed_doc d;
    tv_json *upd = NULL;
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_doc_parse_ex(m, o, "1", 1, src, strlen(src), &A, &d, &upd, &err);
    if (st) fail_msg("doc: %s / %s", err.reason, err.cause_reason);
    return upd ? json_text(upd) : NULL;
}

/* Parses, merging dynamic updates until the mapping is stable (as the
 * engine does). *mp is replaced by the final mapping. */
static tv_parsed_doc parse_dyn(tv_mapping **mp, const tv_doc_opts *o, const char *src) {
    for (int round = 0; round < 4; round++) {
        tv_parsed_doc d;
        tv_json *upd = NULL;
        tv_error err = TV_ERROR_INIT;
        tv_status st = tv_doc_parse_ex(*mp, o, "1", 1, src, strlen(src), &A, &d, &upd, &err);
        if (st) fail_msg("doc: %s / %s", err.reason, err.cause_reason);
        if (!upd) return d;
        tv_error_clear(&err);
        tv_mapping *m2 = tv_mapping_merge(*mp, upd, NULL, &err);
        if (!m2) fail_msg("merge: %s", err.reason);
        tv_mapping_release(*mp);
        *mp = m2;
    }
    fail_msg("mapping did not converge");
    tv_parsed_doc none = {0};
    return none;
}

static char *mapping_text(const tv_mapping *m) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_mapping_write(m, &w);
    char *s = tv_arena_strndup(&A, b.data, b.len);
    tv_buf_fini(&b);
    return s;
}

/* ------------------------------------------------------------- binary */

static void test_binary(void **state) {
    (void)state;
    tv_mapping *m = M("{\"properties\":{\"b\":{\"type\":\"binary\"},\"bd\":{\"type\":\"binary\","
                      "\"doc_values\":true}}}");
    tv_parsed_doc d = parse(m, "{\"b\":\"YWJjZGUxMjM0\",\"bd\":[\"YWJj\",\"YQ==\",\" YWI= \"]}");
    const tv_doc_field *b = field(m, &d, "b");
    assert_non_null(b); /* presence for exists, no searchable value */
    assert_int_equal(b->ntokens, 1);
    assert_int_equal(b->tokens[0].term_len, 0);
    assert_int_equal(b->nkeys, 0);
    const tv_doc_field *bd = field(m, &d, "bd");
    assert_int_equal(bd->nkeys, 3);
    assert_int_equal(bd->ntokens, 0);
    assert_memory_equal(bd->keys[0], "abc", 3);
    assert_int_equal(bd->key_lens[0], 3);
    assert_int_equal(bd->key_lens[1], 1);
    assert_memory_equal(bd->keys[2], "ab", 2);
    parse_fails(m, "{\"b\":\"YWJj!\"}", TROVE_EMAPPER,
                "failed to parse field [b] of type [binary] in document with id 'x'. Preview of "
                "field's value: 'YWJj!'",
                TROVE_EJSON,
                "Failed to decode VALUE_STRING as base64 (MIME-NO-LINEFEEDS): Illegal character '!' "
                "(code 0x21) in base64 content");
    parse_fails(m, "{\"b\":\"YWI\"}", TROVE_EMAPPER,
                "failed to parse field [b] of type [binary] in document with id 'x'. Preview of "
                "field's value: 'YWI'",
                TROVE_EJSON,
                "Failed to decode VALUE_STRING as base64 (MIME-NO-LINEFEEDS): Unexpected end of "
                "base64-encoded String: base64 variant 'MIME-NO-LINEFEEDS' expects padding (one or "
                "more '=' characters) at the end. This Base64Variant might have been incorrectly "
                "configured");
    parse_fails(m, "{\"b\":12}", TROVE_EMAPPER,
                "failed to parse field [b] of type [binary] in document with id 'x'. Preview of "
                "field's value: '12'",
                TROVE_EJSON,
                "Current token (VALUE_NUMBER_INT) not VALUE_STRING or VALUE_EMBEDDED_OBJECT, can "
                "not access as binary");
    tv_mapping_release(m);
}

/* ------------------------------------------------------------- ip, geo */

static void test_ip_and_geo(void **state) {
    (void)state;
    tv_mapping *m = M("{\"properties\":{\"i\":{\"type\":\"ip\"},\"im\":{\"type\":\"ip\","
                      "\"ignore_malformed\":true},\"g\":{\"type\":\"geo_point\"}}}");
    tv_parsed_doc d = parse(m, "{\"i\":[\"192.168.0.1\",\"::1\"],\"im\":\"nope\",\"g\":[0.0,20.0]}");
    const tv_doc_field *i = field(m, &d, "i");
    assert_int_equal(i->ntokens, 2);
    assert_int_equal(i->tokens[0].term_len, 16);
    uint8_t want[16];
    assert_true(tv_ip_parse("192.168.0.1", 11, want));
    assert_memory_equal(i->tokens[0].term, want, 16);
    assert_int_equal(i->nkeys, 2);
    assert_null(field(m, &d, "im"));
    const tv_doc_field *g = field(m, &d, "g");
    assert_int_equal(g->nnums, 1);
    assert_true(g->nums[0] == tv_geo_encode(20.0, 0.0));
    /* other point spellings, several points */
    d = parse(m, "{\"g\":[\"41.12,-71.34\",{\"lat\":41.12,\"lon\":-71.34},\"POINT (-71.34 41.12)\","
                 "{\"type\":\"Point\",\"coordinates\":[-71.34,41.12]}]}");
    g = field(m, &d, "g");
    assert_int_equal(g->nnums, 4);
    for (int k = 1; k < 4; k++) assert_true(g->nums[k] == g->nums[0]);
    d = parse(m, "{\"g\":\"drm3btev3e86\"}");
    double lat, lon;
    tv_geo_decode(field(m, &d, "g")->nums[0], &lat, &lon);
    assert_true(lat > 41.1199 && lat < 41.1201 && lon > -71.3401 && lon < -71.3399);
    parse_fails(m, "{\"i\":\"1.2.3\"}", TROVE_EMAPPER,
                "failed to parse field [i] of type [ip] in document with id 'x'. Preview of "
                "field's value: '1.2.3'",
                TROVE_EARG, "'1.2.3' is not an IP string literal.");
    parse_fails(m, "{\"g\":[0,100]}", TROVE_EMAPPER,
                "failed to parse field [g] of type [geo_point] in document with id 'x'. Preview of "
                "field's value: '[0, 100]'",
                TROVE_EARG, "illegal latitude value [100.0] for g");
    tv_mapping_release(m);
}

/* ------------------------------------------------------------- numbers, dates */

static void test_unsigned_and_nanos(void **state) {
    (void)state;
    tv_mapping *m = M("{\"properties\":{\"u\":{\"type\":\"unsigned_long\"},\"d\":{\"type\":"
                      "\"date_nanos\"}}}");
    tv_parsed_doc d = parse(m, "{\"u\":[\"10223372036854775807.23\",18446744073709551615,0,"
                               "\"1e3\"],\"d\":\"2018-10-29T12:12:12.123456789Z\"}");
    const tv_doc_field *u = field(m, &d, "u");
    assert_int_equal(u->nnums, 4);
    assert_true(tv_sortable_to_unsigned(u->nums[0]) == 10223372036854775807ull);
    assert_true(tv_sortable_to_unsigned(u->nums[1]) == 18446744073709551615ull);
    assert_true(tv_sortable_to_unsigned(u->nums[2]) == 0);
    assert_true(tv_sortable_to_unsigned(u->nums[3]) == 1000);
    const tv_doc_field *dn = field(m, &d, "d");
    assert_true(dn->nums[0] == 1540815132123456789LL);
    d = parse(m, "{\"d\":1540815132123}");
    assert_true(field(m, &d, "d")->nums[0] == 1540815132123000000LL);
    parse_fails(m, "{\"u\":-1}", TROVE_EMAPPER,
                "failed to parse field [u] of type [unsigned_long] in document with id 'x'. Preview "
                "of field's value: '-1'",
                TROVE_EARG, "Value [-1] is out of range for an unsigned long");
    parse_fails(m, "{\"u\":18446744073709551616}", TROVE_EMAPPER,
                "failed to parse field [u] of type [unsigned_long] in document with id 'x'. Preview "
                "of field's value: '18446744073709551616'",
                TROVE_EARG, "Value [18446744073709551616] is out of range for an unsigned long");
    parse_fails(m, "{\"u\":\"abc\"}", TROVE_EMAPPER,
                "failed to parse field [u] of type [unsigned_long] in document with id 'x'. Preview "
                "of field's value: 'abc'",
                TROVE_ENUMBERFORMAT, "For input string: \"abc\"");
    parse_fails(m, "{\"d\":\"1969-12-31T23:59:59Z\"}", TROVE_EMAPPER,
                "failed to parse field [d] of type [date_nanos] in document with id 'x'. Preview of "
                "field's value: '1969-12-31T23:59:59Z'",
                TROVE_EARG,
                "date[1969-12-31T23:59:59Z] is before the epoch in 1970 and cannot be stored in "
                "nanosecond resolution");
    tv_mapping_release(m);
}

/* ------------------------------------------------------------- aliases */

static void test_constant_keyword_and_token_count(void **state) {
    (void)state;
    tv_mapping *m = M("{\"properties\":{\"c\":{\"type\":\"constant_keyword\",\"value\":\"1\"},"
                      "\"t\":{\"type\":\"token_count\",\"analyzer\":\"standard\"},"
                      "\"mo\":{\"type\":\"match_only_text\"}}}");
    tv_parsed_doc d = parse(m, "{\"c\":1,\"t\":\"the quick brown fox\",\"mo\":\"Foo bar foo\"}");
    const tv_doc_field *c = field(m, &d, "c");
    assert_int_equal(c->nkeys, 1);
    assert_memory_equal(c->keys[0], "1", 1);
    assert_int_equal(field(m, &d, "t")->nums[0], 4);
    const tv_doc_field *mo = field(m, &d, "mo");
    assert_int_equal(mo->ntokens, 3);
    assert_int_equal(mo->index_options, TV_IO_DOCS);
    assert_false(mo->norms);
    /* documents without the field hold the constant too */
    d = parse(m, "{}");
    c = field(m, &d, "c");
    assert_non_null(c);
    assert_int_equal(c->ntokens, 1);
    assert_memory_equal(c->tokens[0].term, "1", 1);
    parse_fails(m, "{\"c\":\"2\"}", TROVE_EMAPPER,
                "failed to parse field [c] of type [constant_keyword] in document with id 'x'. "
                "Preview of field's value: '2'",
                TROVE_EARG, "constant keyword field [c] must have a value of [1]");
    parse_fails(m, "{\"c\":null}", TROVE_EMAPPER,
                "failed to parse field [c] of type [constant_keyword] in document with id 'x'. "
                "Preview of field's value: 'null'",
                TROVE_EARG, "constant keyword field [c] must have a value");
    tv_mapping_release(m);
}

/* ------------------------------------------------------------- copy_to */

static void test_copy_to(void **state) {
    (void)state;
    tv_mapping *m = M("{\"properties\":{\"first\":{\"type\":\"text\",\"copy_to\":\"full\"},"
                      "\"last\":{\"type\":\"text\",\"copy_to\":[\"full\",\"k\"]},"
                      "\"full\":{\"type\":\"text\"},\"k\":{\"type\":\"keyword\"}}}");
    tv_parsed_doc d = parse(m, "{\"first\":\"John\",\"last\":\"Smith\"}");
    const tv_doc_field *full = field(m, &d, "full");
    assert_int_equal(full->ntokens, 2);
    assert_memory_equal(full->tokens[0].term, "john", 4);
    assert_memory_equal(full->tokens[1].term, "smith", 5);
    assert_true(full->tokens[1].position > full->tokens[0].position + 1); /* value gap */
    assert_int_equal(field(m, &d, "k")->nkeys, 1);
    /* unmapped target: dynamic mapping at the target's path */
    tv_mapping *m2 = M("{\"properties\":{\"a\":{\"type\":\"keyword\",\"copy_to\":\"o.t\"}}}");
    assert_string_equal(update_of(m2, NULL, "{\"a\":\"x\"}"),
                        "{\"properties\":{\"o\":{\"properties\":{\"t\":{\"type\":\"text\",\"fields\":"
                        "{\"keyword\":{\"type\":\"keyword\",\"ignore_above\":256}}}}}}}");
    d = parse_dyn(&m2, NULL, "{\"a\":\"x\"}");
    assert_non_null(field(m2, &d, "o.t"));
    tv_mapping_release(m2);
    m2 = M("{\"properties\":{\"a\":{\"type\":\"keyword\",\"copy_to\":\"o\"},\"o\":{\"properties\":"
           "{}}}}");
    parse_fails(m2, "{\"a\":\"x\"}", TROVE_EMAPPER,
                "Cannot copy to field [o] since it is mapped as an object", 0, NULL);
    tv_mapping_release(m2);
    tv_mapping_release(m);
}

/* ------------------------------------------------------------- dynamic templates */

static void test_dynamic_templates(void **state) {
    (void)state;
    tv_mapping *m = M(
        "{\"dynamic_templates\":["
        "{\"ints\":{\"match_mapping_type\":\"long\",\"mapping\":{\"type\":\"integer\"}}},"
        "{\"strs\":{\"match_mapping_type\":\"string\",\"unmatch\":\"*_text\",\"mapping\":{"
        "\"type\":\"keyword\",\"meta\":{\"n\":\"{name}\"}}}},"
        "{\"tpath\":{\"path_match\":\"obj.*\",\"mapping\":{\"type\":\"{dynamic_type}\","
        "\"index\":false}}},"
        "{\"re\":{\"match_pattern\":\"regex\",\"match\":\"^num_\\\\d+$\",\"mapping\":{\"type\":"
        "\"double\"}}}]}");
    assert_string_equal(update_of(m, NULL, "{\"a\":5}"),
                        "{\"properties\":{\"a\":{\"type\":\"integer\"}}}");
    assert_string_equal(update_of(m, NULL, "{\"s\":\"hello\"}"),
                        "{\"properties\":{\"s\":{\"type\":\"keyword\",\"meta\":{\"n\":\"s\"}}}}");
    assert_string_equal(update_of(m, NULL, "{\"x_text\":\"hello\"}"),
                        "{\"properties\":{\"x_text\":{\"type\":\"text\",\"fields\":{\"keyword\":{"
                        "\"type\":\"keyword\",\"ignore_above\":256}}}}}");
    assert_string_equal(update_of(m, NULL, "{\"obj\":{\"f\":true}}"),
                        "{\"properties\":{\"obj\":{\"properties\":{\"f\":{\"type\":\"boolean\","
                        "\"index\":false}}}}}");
    assert_string_equal(update_of(m, NULL, "{\"num_12\":1.5}"),
                        "{\"properties\":{\"num_12\":{\"type\":\"double\"}}}");
    assert_string_equal(update_of(m, NULL, "{\"num_x\":1.5}"),
                        "{\"properties\":{\"num_x\":{\"type\":\"float\"}}}");
    /* the update merges and the document then indexes under it */
    tv_parsed_doc d = parse_dyn(&m, NULL, "{\"s\":\"hello\",\"a\":7}");
    assert_int_equal(field(m, &d, "s")->nkeys, 1);
    assert_int_equal(tv_mapping_field(m, "a", 1)->type, TV_FT_INTEGER);
    tv_mapping_release(m);
}

/* ------------------------------------------------------------- limits */

static void test_unmap_beyond_limit(void **state) {
    (void)state;
    tv_settings s;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_settings_parse(J("{\"index.mapping.total_fields.limit\":3,"
                                         "\"index.mapping.total_fields.unmap_fields_beyond_limit\":"
                                         "true}"),
                                       "t", &s, &err),
                     TROVE_OK);
    tv_doc_opts o;
    tv_doc_opts_from_settings(&s, &o);
    assert_int_equal(o.total_fields_limit, 3);
    assert_true(o.unmap_fields_beyond_limit);
    tv_mapping *m = M("{}");
    const char *src = "{\"field1\":\"field1\",\"field2\":[1,2,3],\"unmapField\":\"foo\"}";
    tv_parsed_doc d = parse_dyn(&m, &o, src);
    assert_string_equal(mapping_text(m),
                        "{\"properties\":{\"field1\":{\"type\":\"text\",\"fields\":{\"keyword\":{"
                        "\"type\":\"keyword\",\"ignore_above\":256}}},\"field2\":{\"type\":\"long\"}}}");
    assert_memory_equal(d.source, src, strlen(src)); /* kept in _source */
    d = parse_dyn(&m, &o, "{\"field3\":{\"field4\":\"field4\"},\"field5\":100}");
    assert_null(tv_mapping_field(m, "field3", 6));
    assert_null(tv_mapping_field(m, "field5", 6));
    tv_mapping_release(m);
    tv_settings_fini(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_binary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ip_and_geo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unsigned_and_nanos, setup, teardown),
        cmocka_unit_test_setup_teardown(test_constant_keyword_and_token_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_to, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dynamic_templates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unmap_beyond_limit, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
