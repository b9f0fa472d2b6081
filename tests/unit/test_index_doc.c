/* test_index_doc.c — document parsing: values per type, errors, dynamic
 * mapping, _source filtering. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#include "index/index.h"

#include "index_test.h"

static void test_text_and_keyword(void **state) {
    (void)state;
    tv_mapping *m = M("{\"properties\":{\"t\":{\"type\":\"text\",\"fields\":{\"k\":{\"type\":\"keyword\","
                      "\"ignore_above\":5}}},\"n\":{\"type\":\"keyword\",\"normalizer\":\"lowercase\"}}}");
    tv_parsed_doc d = parse(m, "{\"t\":[\"Hello World\",\"the fox\"],\"n\":\"MiXeD\"}");
    assert_string_equal(d.id, "1");
    assert_int_equal(d.source_len, strlen("{\"t\":[\"Hello World\",\"the fox\"],\"n\":\"MiXeD\"}"));
    const tv_doc_field *t = field(m, &d, "t");
    assert_non_null(t);
    assert_int_equal(t->type, TV_FT_TEXT);
    assert_int_equal(t->ntokens, 4);
    assert_memory_equal(t->tokens[0].term, "hello", 5);
    assert_int_equal(t->tokens[0].position, 0);
    assert_int_equal(t->tokens[1].position, 1);
    /* the second value continues after a gap of 100 */
    assert_int_equal(t->tokens[2].position, 102);
    assert_int_equal(t->tokens[3].position, 103);
    assert_int_equal(t->field_length, 4);
    assert_true(t->norms);
    assert_int_equal(t->dv_kind, TV_DV_NONE);
    /* multi-field: both values, the long one above ignore_above dropped */
    const tv_doc_field *k = field(m, &d, "t.k");
    assert_non_null(k);
    assert_int_equal(k->ntokens, 0);
    assert_int_equal(k->nkeys, 0);
    const tv_doc_field *n = field(m, &d, "n");
    assert_int_equal(n->ntokens, 1);
    assert_memory_equal(n->tokens[0].term, "mixed", 5);
    assert_int_equal(n->nkeys, 1);
    assert_memory_equal(n->keys[0], "mixed", 5);
    /* fields sorted by id */
    for (uint32_t i = 1; i < d.nfields; i++) assert_true(d.fields[i - 1].field < d.fields[i].field);
    d = parse(m, "{\"t\":\"abc\"}");
    k = field(m, &d, "t.k");
    assert_int_equal(k->nkeys, 1);
    assert_int_equal(k->ntokens, 1);
    assert_int_equal(k->dv_kind, TV_DV_SORTED_SET);
    /* ignore_above counts characters, not bytes: 5 characters, 10 bytes */
    d = parse(m, "{\"t\":\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"}");
    assert_int_equal(field(m, &d, "t.k")->nkeys, 1);
    tv_mapping_release(m);
}

static void test_numbers(void **state) {
    (void)state;
    tv_mapping *m = M("{\"properties\":{\"b\":{\"type\":\"byte\"},\"i\":{\"type\":\"integer\"},\"l\":{"
                      "\"type\":\"long\"},\"f\":{\"type\":\"float\"},\"h\":{\"type\":\"half_float\"},\"d\":"
                      "{\"type\":\"double\"},\"s\":{\"type\":\"scaled_float\",\"scaling_factor\":100},"
                      "\"nc\":{\"type\":\"integer\",\"coerce\":false},\"nv\":{\"type\":\"long\","
                      "\"null_value\":7}}}");
    tv_parsed_doc d = parse(m, "{\"b\":[-128,127],\"i\":\"5\",\"l\":5.9,\"f\":0.1,\"h\":0.1,\"d\":0.1,"
                               "\"s\":1.005,\"nv\":null}");
    const tv_doc_field *b = field(m, &d, "b");
    assert_int_equal(b->nnums, 2);
    assert_int_equal(b->nums[0], -128);
    assert_int_equal(b->nums[1], 127);
    assert_int_equal(field(m, &d, "i")->nums[0], 5);
    assert_int_equal(field(m, &d, "l")->nums[0], 5); /* coerced, truncated */
    assert_true(tv_sortable_to_double(field(m, &d, "f")->nums[0]) == (double)0.1f);
    assert_true(tv_sortable_to_double(field(m, &d, "h")->nums[0]) == 0.0999755859375);
    assert_true(tv_sortable_to_double(field(m, &d, "d")->nums[0]) == 0.1);
    assert_int_equal(field(m, &d, "s")->nums[0], 100); /* Math.round(100.49999999999999) */
    assert_int_equal(field(m, &d, "nv")->nums[0], 7);
    assert_int_equal(field(m, &d, "b")->dv_kind, TV_DV_NUMERIC);
    d = parse(m, "{\"s\":2.5,\"i\":\"\",\"l\":\"9223372036854775807\"}");
    assert_int_equal(field(m, &d, "s")->nums[0], 250);
    assert_null(field(m, &d, "i")); /* "" is null for numbers */
    assert_true(field(m, &d, "l")->nums[0] == INT64_MAX);
    parse_fails(m, "{\"b\":300}", TROVE_EMAPPER,
                "failed to parse field [b] of type [byte] in document with id 'x'. Preview of field's "
                "value: '300'",
                TROVE_EARG, "Value [300] is out of range for a byte");
    parse_fails(m, "{\"i\":3000000000}", TROVE_EMAPPER,
                "failed to parse field [i] of type [integer] in document with id 'x'. Preview of "
                "field's value: '3000000000'",
                TROVE_EARG, "Value [3000000000] is out of range for an integer");
    parse_fails(m, "{\"l\":\"abc\"}", TROVE_EMAPPER,
                "failed to parse field [l] of type [long] in document with id 'x'. Preview of field's "
                "value: 'abc'",
                TROVE_EARG, "For input string: \"abc\"");
    parse_fails(m, "{\"f\":\"N/A\"}", TROVE_EMAPPER,
                "failed to parse field [f] of type [float] in document with id 'x'. Preview of field's "
                "value: 'N/A'",
                TROVE_ENUMBERFORMAT, "For input string: \"N/A\"");
    parse_fails(m, "{\"h\":70000}", TROVE_EMAPPER,
                "failed to parse field [h] of type [half_float] in document with id 'x'. Preview of "
                "field's value: '70000'",
                TROVE_EARG, "[half_float] supports only finite values, but got [Infinity]");
    parse_fails(m, "{\"nc\":5.5}", TROVE_EMAPPER,
                "failed to parse field [nc] of type [integer] in document with id 'x'. Preview of "
                "field's value: '5.5'",
                TROVE_EARG, "Value [5.5] has a decimal part");
    parse_fails(m, "{\"nc\":\"5\"}", TROVE_EMAPPER,
                "failed to parse field [nc] of type [integer] in document with id 'x'. Preview of "
                "field's value: '5'",
                TROVE_EARG, "Integer value passed as String");
    parse_fails(m, "{\"i\":{\"a\":1}}", TROVE_EMAPPER,
                "failed to parse field [i] of type [integer] in document with id 'x'. Preview of "
                "field's value: '{a=1}'",
                TROVE_EJSON, NULL);
    tv_mapping_release(m);
}

static void test_dates_booleans(void **state) {
    (void)state;
    tv_mapping *m = M("{\"properties\":{\"d\":{\"type\":\"date\"},\"c\":{\"type\":\"date\",\"format\":"
                      "\"yyyy/MM/dd\"},\"b\":{\"type\":\"boolean\"},\"bn\":{\"type\":\"boolean\","
                      "\"null_value\":false}}}");
    tv_parsed_doc d = parse(m, "{\"d\":[\"2020-01-02T03:04:05.678Z\",1577836800000],\"c\":\"2020/01/02\","
                               "\"b\":[true,\"false\",\"\"],\"bn\":null}");
    const tv_doc_field *df = field(m, &d, "d");
    assert_int_equal(df->nnums, 2);
    assert_true(df->nums[0] == 1577934245678LL);
    assert_true(df->nums[1] == 1577836800000LL);
    assert_true(field(m, &d, "c")->nums[0] == 1577923200000LL);
    const tv_doc_field *b = field(m, &d, "b");
    assert_int_equal(b->nnums, 3);
    assert_int_equal(b->nums[0], 1);
    assert_int_equal(b->nums[1], 0);
    assert_int_equal(b->nums[2], 0);
    assert_int_equal(b->ntokens, 3);
    assert_memory_equal(b->tokens[0].term, "T", 1);
    assert_memory_equal(b->tokens[1].term, "F", 1);
    assert_int_equal(field(m, &d, "bn")->nums[0], 0);
    parse_fails(m, "{\"d\":\"yesterday\"}", TROVE_EMAPPER,
                "failed to parse field [d] of type [date] in document with id 'x'. Preview of field's "
                "value: 'yesterday'",
                TROVE_EARG,
                "failed to parse date field [yesterday] with format "
                "[strict_date_optional_time||epoch_millis]");
    parse_fails(m, "{\"b\":\"yes\"}", TROVE_EMAPPER,
                "failed to parse field [b] of type [boolean] in document with id 'x'. Preview of "
                "field's value: 'yes'",
                TROVE_EARG, "Failed to parse value [yes] as only [true] or [false] are allowed.");
    tv_mapping_release(m);
}

static void test_objects_and_errors(void **state) {
    (void)state;
    tv_mapping *m = M("{\"properties\":{\"u\":{\"properties\":{\"n\":{\"type\":\"keyword\"}}},"
                      "\"off\":{\"enabled\":false},\"a\":{\"properties\":{\"b\":{\"type\":\"long\"}}}}}");
    tv_parsed_doc d = parse(m, "{\"u\":[{\"n\":\"x\"},{\"n\":\"y\"}],\"off\":{\"anything\":[1,{\"z\":2}]},"
                               "\"a.b\":3}");
    assert_int_equal(field(m, &d, "u.n")->nkeys, 2);
    assert_int_equal(field(m, &d, "a.b")->nums[0], 3);
    assert_int_equal(d.nfields, 2);
    parse_fails(m, "{\"_id\":\"5\"}", TROVE_EMAPPER,
                "Field [_id] is a metadata field and cannot be added inside a document. Use the index "
                "API request parameters.",
                TROVE_OK, NULL);
    parse_fails(m, "{\"u\":\"flat\"}", TROVE_EMAPPER,
                "object mapping for [u] tried to parse field [u] as object, but found a concrete value",
                TROVE_OK, NULL);
    parse_fails(m, "{\"u\":", TROVE_EMAPPER, "failed to parse", TROVE_EJSON, NULL);
    parse_fails(m, "[1]", TROVE_EMAPPER, "failed to parse", TROVE_ENOTXCONTENT,
                "Compressor detection can only be called on some xcontent bytes or compressed xcontent bytes");
    parse_fails(m, " {} {\"u\":2}", TROVE_EMAPPER, "failed to parse", TROVE_EARG,
                "Malformed content, found extra data after parsing: START_OBJECT");
    tv_mapping_release(m);
}

static void test_dynamic(void **state) {
    (void)state;
    tv_mapping *m = M("{\"properties\":{\"u\":{\"properties\":{\"n\":{\"type\":\"keyword\"}}}}}");
    tv_parsed_doc d;
    tv_json *upd = NULL;
    tv_error err = TV_ERROR_INIT;
    const char *src = "{\"s\":\"hi\",\"i\":1,\"f\":1.5,\"b\":true,\"z\":null,\"e\":[],\"d\":\"2020-01-02\","
                      "\"d2\":\"2020/01/02 10:00:00\",\"arr\":[null,7],\"o\":{\"x\":{\"y\":\"q\"}},"
                      "\"u\":{\"age\":3},\"p.q\":1,\"nums\":\"12\"}";
    tv_error_clear(&err);
    assert_int_equal(tv_doc_parse(m, "1", 1, src, strlen(src), &A, &d, &upd, &err), TROVE_OK);
    assert_non_null(upd);
    assert_string_equal(
        json_text(upd),
        "{\"properties\":{\"s\":{\"type\":\"text\",\"fields\":{\"keyword\":{\"type\":\"keyword\","
        "\"ignore_above\":256}}},\"i\":{\"type\":\"long\"},\"f\":{\"type\":\"float\"},\"b\":{\"type\":"
        "\"boolean\"},\"d\":{\"type\":\"date\"},\"d2\":{\"type\":\"date\",\"format\":\"yyyy/MM/dd "
        "HH:mm:ss||yyyy/MM/dd||epoch_millis\"},\"arr\":{\"type\":\"long\"},\"o\":{\"properties\":{\"x\":{"
        "\"properties\":{\"y\":{\"type\":\"text\",\"fields\":{\"keyword\":{\"type\":\"keyword\","
        "\"ignore_above\":256}}}}}}},\"u\":{\"properties\":{\"age\":{\"type\":\"long\"}}},\"p\":{"
        "\"properties\":{\"q\":{\"type\":\"long\"}}},\"nums\":{\"type\":\"text\",\"fields\":{\"keyword\":"
        "{\"type\":\"keyword\",\"ignore_above\":256}}}}}");
    /* merge and parse again: now everything is mapped */
    tv_error_clear(&err);
    tv_mapping *m2 = tv_mapping_merge(m, upd, NULL, &err);
    assert_non_null(m2);
    d = parse(m2, src);
    assert_int_equal(field(m2, &d, "u.age")->nums[0], 3);
    assert_int_equal(field(m2, &d, "arr")->nums[0], 7);
    assert_int_equal(field(m2, &d, "s.keyword")->nkeys, 1);
    assert_true(field(m2, &d, "d")->nums[0] == 1577923200000LL);
    assert_null(tv_mapping_field(m2, "z", 1));
    assert_null(tv_mapping_field(m2, "e", 1));
    tv_mapping_release(m2);
    tv_mapping_release(m);

    /* one new field as an object and then as a value: the update cannot merge */
    m = M("{}");
    parse_fails(m, "{\"p.q\":1,\"p\":2}", TROVE_EARG, "can't merge a non object mapping [p] with an object mapping",
                TROVE_OK, NULL);
    tv_mapping_release(m);

    /* dynamic false: unmapped fields only in _source */
    m = M("{\"dynamic\":false,\"properties\":{\"k\":{\"type\":\"keyword\"}}}");
    d = parse(m, "{\"k\":\"a\",\"other\":{\"x\":1}}");
    assert_int_equal(d.nfields, 1);
    assert_non_null(strstr(d.source, "other"));
    tv_mapping_release(m);

    /* strict, at the root and inside an object; an object may relax it */
    m = M("{\"dynamic\":\"strict\",\"properties\":{\"a\":{\"properties\":{\"b\":{\"type\":\"long\"}}},"
          "\"free\":{\"dynamic\":true,\"properties\":{}}}}");
    parse_fails(m, "{\"c\":1}", TROVE_ESTRICT,
                "mapping set to strict, dynamic introduction of [c] within [_doc] is not allowed",
                TROVE_OK, NULL);
    parse_fails(m, "{\"a\":{\"c\":1}}", TROVE_ESTRICT,
                "mapping set to strict, dynamic introduction of [c] within [a] is not allowed", TROVE_OK,
                NULL);
    upd = NULL;
    const char *src2 = "{\"free\":{\"x\":true}}";
    tv_error_clear(&err);
    assert_int_equal(tv_doc_parse(m, "1", 1, src2, strlen(src2), &A, &d, &upd, &err), TROVE_OK);
    assert_string_equal(json_text(upd),
                        "{\"properties\":{\"free\":{\"properties\":{\"x\":{\"type\":\"boolean\"}}}}}");
    tv_mapping_release(m);

    /* strict_allow_templates: only fields matching a dynamic template are
     * added; a template object's own properties count as mapped */
    m = M("{\"dynamic\":\"strict_allow_templates\",\"dynamic_templates\":[{\"s\":{\"match\":"
          "\"str*\",\"match_mapping_type\":\"string\",\"mapping\":{\"type\":\"keyword\"}}},"
          "{\"o\":{\"match\":\"obj*\",\"match_mapping_type\":\"object\",\"mapping\":{\"type\":"
          "\"object\",\"properties\":{\"b1\":{\"type\":\"keyword\"}}}}}],"
          "\"properties\":{\"t\":{\"type\":\"text\"}}}");
    parse_fails(m, "{\"str1\":\"x\",\"t\":\"a\",\"other\":\"b\"}", TROVE_ESTRICT,
                "mapping set to strict_allow_templates, dynamic introduction of [other] within [_doc] "
                "is not allowed",
                TROVE_OK, NULL);
    parse_fails(m, "{\"obj1\":{\"b1\":\"x\",\"b2\":\"y\"}}", TROVE_ESTRICT,
                "mapping set to strict_allow_templates, dynamic introduction of [b2] within [obj1] "
                "is not allowed",
                TROVE_OK, NULL);
    upd = NULL;
    const char *src4 = "{\"str1\":\"x\",\"obj1\":{\"b1\":\"y\"},\"t\":\"a\"}";
    tv_error_clear(&err);
    assert_int_equal(tv_doc_parse(m, "1", 1, src4, strlen(src4), &A, &d, &upd, &err), TROVE_OK);
    assert_string_equal(json_text(upd),
                        "{\"properties\":{\"str1\":{\"type\":\"keyword\"},\"obj1\":{\"type\":"
                        "\"object\",\"properties\":{\"b1\":{\"type\":\"keyword\"}}}}}");
    tv_error_clear(&err);
    m2 = tv_mapping_merge(m, upd, NULL, &err);
    assert_non_null(m2);
    d = parse(m2, src4);
    assert_int_equal(field(m2, &d, "obj1.b1")->nkeys, 1);
    assert_int_equal(field(m2, &d, "str1")->nkeys, 1);
    tv_mapping_release(m2);
    tv_mapping_release(m);
    /* false_allow_templates (3.3) is refused as OpenSearch 3.1 does */
    tv_error perr = TV_ERROR_INIT;
    assert_null(tv_mapping_parse(J("{\"dynamic\":\"false_allow_templates\"}"), NULL, &perr));
    assert_int_equal(perr.code, TROVE_EMAPPER);
    /* a new object inherits strict_allow_templates */
    m = M("{\"dynamic\":\"strict_allow_templates\",\"dynamic_templates\":[{\"o\":{\"match\":"
          "\"o*\",\"match_mapping_type\":\"object\",\"mapping\":{\"type\":\"object\"}}}]}");
    parse_fails(m, "{\"o1\":{\"x\":1}}", TROVE_ESTRICT,
                "mapping set to strict_allow_templates, dynamic introduction of [x] within [o1] is not "
                "allowed",
                TROVE_OK, NULL);
    tv_mapping_release(m);

    /* field names made only of dots */
    m = M("{}");
    parse_fails(m, "{\".\":1}", TROVE_EARG, "field name cannot contain only the character [.]",
                TROVE_OK, NULL);
    parse_fails(m, "{\"o\":{\"..\":1}}", TROVE_EARG,
                "field name cannot contain only the character [.]", TROVE_OK, NULL);
    tv_mapping_release(m);

    /* numeric detection and date detection off */
    m = M("{\"numeric_detection\":true,\"date_detection\":false}");
    upd = NULL;
    const char *src3 = "{\"a\":\"12\",\"b\":\"1.5\",\"c\":\"2020-01-01\"}";
    tv_error_clear(&err);
    assert_int_equal(tv_doc_parse(m, "1", 1, src3, strlen(src3), &A, &d, &upd, &err), TROVE_OK);
    assert_string_equal(json_text(upd),
                        "{\"properties\":{\"a\":{\"type\":\"long\"},\"b\":{\"type\":\"float\"},\"c\":{"
                        "\"type\":\"text\",\"fields\":{\"keyword\":{\"type\":\"keyword\","
                        "\"ignore_above\":256}}}}}");
    tv_mapping_release(m);
}

/* flat_object: leaf values are keywords of the field and of the sub-field
 * of their dotted path, which the mapping resolves without mapping it */
static void test_flat_object(void **state) {
    (void)state;
    tv_mapping *m = M("{\"properties\":{\"cat\":{\"type\":\"flat_object\"},\"k\":{\"type\":"
                      "\"keyword\"}}}");
    const tv_field *cat = tv_mapping_field(m, "cat", 3);
    assert_non_null(cat);
    assert_int_equal(cat->type, TV_FT_KEYWORD);
    assert_string_equal(tv_field_declared_type(cat), "flat_object");
    tv_parsed_doc d = parse(m, "{\"cat\":{\"title\":\"Lucene in Action\",\"author\":{\"given\":"
                               "\"Mike\",\"n\":[null,3]},\"none\":null},\"k\":\"x\"}");
    const tv_doc_field *df = field(m, &d, "cat");
    assert_non_null(df);
    assert_int_equal(df->ntokens, 3); /* Lucene in Action, Mike, 3 */
    const tv_field *given = tv_mapping_field(m, "cat.author.given", 16);
    assert_non_null(given);
    assert_ptr_equal(given, tv_mapping_field(m, "cat.author.given", 16)); /* cached */
    assert_string_equal(given->path, "cat.author.given");
    assert_int_equal(given->type, TV_FT_KEYWORD);
    assert_true(given->id >= tv_mapping_field_count(m));
    df = field(m, &d, "cat.author.given");
    assert_non_null(df);
    assert_int_equal(df->ntokens, 1);
    assert_memory_equal(df->tokens[0].term, "Mike", 4);
    df = field(m, &d, "cat.author.n");
    assert_int_equal(df->ntokens, 1);
    assert_memory_equal(df->tokens[0].term, "3", 1);
    /* an object path and a key alone are marked for exists, without terms */
    df = field(m, &d, "cat.author");
    assert_non_null(df);
    assert_int_equal(df->ntokens, 0);
    assert_int_equal(df->nnums, 1);
    df = field(m, &d, "cat.given");
    assert_non_null(df);
    assert_int_equal(df->ntokens, 0);
    /* a key holding only null is nothing */
    assert_null(field(m, &d, "cat.none"));
    /* paths that do not go through a flat_object are not invented */
    assert_null(tv_mapping_field(m, "k.x", 3));
    assert_null(tv_mapping_field(m, "cat.", 4));
    assert_null(tv_mapping_field(m, "other.x", 7));
    /* depth_limit */
    tv_mapping_release(m);
    m = M("{\"properties\":{\"f\":{\"type\":\"flat_object\",\"depth_limit\":2}}}");
    d = parse(m, "{\"f\":{\"a\":{\"b\":1}}}");
    assert_non_null(field(m, &d, "f.a.b"));
    tv_parsed_doc d2;
    tv_json *upd = NULL;
    tv_error err = TV_ERROR_INIT;
    const char *deep = "{\"f\":{\"a\":{\"b\":{\"c\":1}}}}";
    tv_error_clear(&err);
    assert_int_equal(tv_doc_parse(m, "1", 1, deep, strlen(deep), &A, &d2, &upd, &err), TROVE_EMAPPER);
    tv_mapping_release(m);
}

static void test_source_filtering(void **state) {
    (void)state;
    tv_mapping *m = M("{\"_source\":{\"excludes\":[\"secret\",\"meta.*\"]},\"dynamic\":false}");
    tv_parsed_doc d = parse(m, "{\"a\":1,\"secret\":\"x\",\"meta\":{\"k\":1},\"b\":[1,2]}");
    assert_string_equal(d.source, "{\"a\":1,\"meta\":{},\"b\":[1,2]}");
    tv_mapping_release(m);
    m = M("{\"_source\":{\"includes\":[\"a\",\"o.x\"]},\"dynamic\":false}");
    d = parse(m, "{\"a\":{\"deep\":1},\"o\":{\"x\":1,\"y\":2},\"z\":3}");
    assert_string_equal(d.source, "{\"a\":{\"deep\":1},\"o\":{\"x\":1}}");
    tv_mapping_release(m);
    m = M("{\"_source\":{\"enabled\":false},\"dynamic\":false}");
    d = parse(m, "{\"a\":1}");
    assert_null(d.source);
    assert_int_equal(d.source_len, 0);
    tv_mapping_release(m);
}

static void test_field_length(void **state) {
    (void)state;
    tv_mapping *m = M("{\"properties\":{\"t\":{\"type\":\"text\",\"analyzer\":\"english\"},\"d\":{"
                      "\"type\":\"text\",\"index_options\":\"docs\"},\"s\":{\"type\":\"text\","
                      "\"position_increment_gap\":0}}}");
    tv_parsed_doc d = parse(m, "{\"t\":\"the quick foxes\",\"d\":\"a a b\",\"s\":[\"a\",\"b\"]}");
    const tv_doc_field *t = field(m, &d, "t");
    assert_int_equal(t->ntokens, 2);     /* "the" is a stop word */
    assert_int_equal(t->tokens[0].position, 1);
    assert_int_equal(t->field_length, 2);
    assert_int_equal(field(m, &d, "d")->field_length, 2); /* unique terms for docs-only */
    assert_int_equal(field(m, &d, "d")->index_options, TV_IO_DOCS);
    const tv_doc_field *s = field(m, &d, "s");
    assert_int_equal(s->tokens[1].position, 1);
    tv_mapping_release(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_text_and_keyword, setup, teardown),
        cmocka_unit_test_setup_teardown(test_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dates_booleans, setup, teardown),
        cmocka_unit_test_setup_teardown(test_objects_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dynamic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flat_object, setup, teardown),
        cmocka_unit_test_setup_teardown(test_source_filtering, setup, teardown),
        cmocka_unit_test_setup_teardown(test_field_length, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
