/* test_api_queries_features.c — query features through trove_request:
 * match_bool_prefix and multi_match bool_prefix/fuzziness,
 * distance_feature, named queries (matched_queries, with scores),
 * search.allow_expensive_queries, terms lookups (by id and by query), the
 * terms query's bitmap value type (the portable RoaringBitmap decoder),
 * and the _shard_doc validation. Hits, scores and the OpenSearch error
 * bodies a client relies on. */
#define API_TEST_MASK_TOOK
#include "api_test.h"

/* The hits' ids (with scores) of a search on index. */
static void hits_(const char *index, const char *body, bool scores, const char *want, int line) {
    char path[128], *got, list[512];
    snprintf(path, sizeof path, "/%s/_search", index);
    int st = req("POST", path, body, &got);
    hit_list(got, scores, list, sizeof list);
    if (st != 200 || strcmp(list, want) != 0)
        fail_msg("line %d: %s\n want 200 [%s]\n got  %d [%s] %s", line, body, want, st, list, got);
    free(got);
}
#define HITS(index, body, want) hits_((index), (body), false, (want), __LINE__)
#define SCORED(index, body, want) hits_((index), (body), true, (want), __LINE__)

static int setup_text(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/t", "{\"mappings\":{\"properties\":{\"a\":{\"type\":\"text\"},\"b\":{\"type\":\"text\"},"
                    "\"k\":{\"type\":\"keyword\"},\"n\":{\"type\":\"long\"}}}}");
    OK("PUT", "/t/_doc/1", "{\"a\":\"brown fox jump\",\"b\":\"xylophone\",\"k\":\"alpha\",\"n\":1}");
    OK("PUT", "/t/_doc/2", "{\"a\":\"brown emu jump\",\"b\":\"xylophone\",\"k\":\"beta\",\"n\":2}");
    OK("PUT", "/t/_doc/3", "{\"a\":\"jumparound\",\"b\":\"emu\",\"k\":\"alphabet\",\"n\":3}");
    OK("PUT", "/t/_doc/4", "{\"a\":\"dog\",\"b\":\"brown fox jump lazy\",\"k\":\"gamma\",\"n\":4}");
    OK("POST", "/t/_refresh", NULL);
    return 0;
}

static void test_match_bool_prefix(void **s) {
    (void)s;
    HITS("t", "{\"query\":{\"match_bool_prefix\":{\"a\":\"brown fox ju\"}}}", "1,2,3");
    /* a trailing space: the last term is a whole term, not a prefix */
    HITS("t", "{\"query\":{\"match_bool_prefix\":{\"a\":\"jum \"}}}", "");
    HITS("t", "{\"query\":{\"match_bool_prefix\":{\"a\":\"jum\"}}}", "1,2,3");
    HITS("t", "{\"query\":{\"match_bool_prefix\":{\"a\":{\"query\":\"brown fox jump\",\"minimum_should_match\":3}}}}",
         "1");
    HITS("t", "{\"query\":{\"match_bool_prefix\":{\"a\":{\"query\":\"brown jum\",\"operator\":\"and\"}}}}", "1,2");
    /* fuzziness applies to the terms before the last */
    HITS("t", "{\"query\":{\"match_bool_prefix\":{\"b\":{\"query\":\"xylophoen zzz\",\"fuzziness\":1}}}}", "1,2");
    HITS("t", "{\"query\":{\"match_bool_prefix\":{\"b\":{\"query\":\"xylophoen zzz\"}}}}", "");
    /* a keyword field: the whole value is the prefix */
    HITS("t", "{\"query\":{\"match_bool_prefix\":{\"k\":\"alph\"}}}", "1,3");
    EXPECT_HAS("POST", "/t/_search", "{\"query\":{\"match_bool_prefix\":{\"a\":{\"query\":\"x\",\"slop\":1}}}}", 400,
               "\"type\":\"parsing_exception\",\"reason\":\"[match_bool_prefix] query does not support [slop]\"");
    EXPECT_HAS("POST", "/t/_search", "{\"query\":{\"match_bool_prefix\":{\"a\":{\"analyzer\":\"standard\"}}}}", 400,
               "\"reason\":\"[match_bool_prefix] requires query value\"");
    EXPECT_HAS("POST", "/t/_search",
               "{\"query\":{\"match_bool_prefix\":{\"a\":{\"query\":\"x\",\"prefix_length\":-1}}}}", 400,
               "\"reason\":\"[match_bool_prefix] requires prefix length to be non-negative.\"");
}

static void test_multi_match_types(void **s) {
    (void)s;
    HITS("t", "{\"query\":{\"multi_match\":{\"query\":\"brown fox jump laz\",\"type\":\"bool_prefix\","
              "\"fields\":[\"a\",\"b\"]}}}",
         "4,1,2");
    HITS("t", "{\"query\":{\"multi_match\":{\"query\":\"dob\",\"fields\":[\"a\",\"b\"],\"fuzziness\":1}}}", "4");
    HITS("t", "{\"query\":{\"match\":{\"a\":{\"query\":\"dob\",\"fuzziness\":\"AUTO\"}}}}", "4");
    EXPECT_HAS("POST", "/t/_search",
               "{\"query\":{\"multi_match\":{\"query\":\"x\",\"type\":\"bool_prefix\",\"fields\":[\"a\"],\"slop\":1}}}",
               400, "\"reason\":\"[slop] not allowed for type [bool_prefix]\"");
    EXPECT_HAS("POST", "/t/_search",
               "{\"query\":{\"multi_match\":{\"query\":\"x\",\"type\":\"bool_prefix\",\"fields\":[\"a\"],"
               "\"cutoff_frequency\":0.1}}}",
               400, "\"reason\":\"[cutoff_frequency] not allowed for type [bool_prefix]\"");
    EXPECT_HAS("POST", "/t/_search",
               "{\"query\":{\"multi_match\":{\"query\":\"x\",\"type\":\"phrase\",\"fields\":[\"a\"],\"fuzziness\":1}}}",
               400, "\"reason\":\"Fuzziness not allowed for type [phrase]\"");
    /* fuzziness on a numeric field is refused by its field type */
    EXPECT_HAS("POST", "/t/_search", "{\"query\":{\"match\":{\"n\":{\"query\":1,\"fuzziness\":1}}}}", 400,
               "Can only use fuzzy queries on keyword and text fields - not on [n] which is of type [long]");
}

static void test_named_queries(void **s) {
    (void)s;
    const char *body = "{\"query\":{\"bool\":{\"should\":[{\"match\":{\"n\":{\"query\":1,\"_name\":\"one\"}}},"
                       "{\"range\":{\"n\":{\"lte\":2,\"_name\":\"low\",\"boost\":4}}}]}}}";
    EXPECT_HAS("POST", "/t/_search", body, 200, "\"_id\":\"1\",\"_score\":5.0,\"_source\"");
    EXPECT_HAS("POST", "/t/_search", body, 200, "\"matched_queries\":[\"low\",\"one\"]");
    EXPECT_HAS("POST", "/t/_search?include_named_queries_score=true", body, 200,
               "\"matched_queries\":{\"low\":4.0,\"one\":1.0}");
    EXPECT_HAS("POST", "/t/_search?include_named_queries_score=true", body, 200,
               "\"_id\":\"2\",\"_score\":4.0,\"_source\":{\"a\":\"brown emu jump\",\"b\":\"xylophone\",\"k\":\"beta\","
               "\"n\":2},\"matched_queries\":{\"low\":4.0}}");
    /* a named query of the post_filter counts too; unnamed hits print none */
    EXPECT_HAS("POST", "/t/_search",
               "{\"query\":{\"term\":{\"n\":3}},\"post_filter\":{\"exists\":{\"field\":\"a\",\"_name\":\"has_a\"}}}", 200,
               "\"matched_queries\":[\"has_a\"]");
    EXPECT_HAS("POST", "/t/_search?include_named_queries_score=maybe", "{}", 400, "Failed to parse value [maybe]");
}

static void test_expensive_queries(void **s) {
    (void)s;
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"search.allow_expensive_queries\":false}}");
    EXPECT_HAS("POST", "/t/_search", "{\"query\":{\"prefix\":{\"a\":\"bro\"}}}", 500,
               "\"type\":\"exception\",\"reason\":\"[prefix] queries cannot be executed when "
               "'search.allow_expensive_queries' is set to false. For optimised prefix queries on text fields please "
               "enable [index_prefixes].\"");
    EXPECT_HAS("POST", "/t/_search", "{\"query\":{\"wildcard\":{\"k\":\"a*\"}}}", 500,
               "\"reason\":\"[wildcard] queries cannot be executed when 'search.allow_expensive_queries' is set to "
               "false.\"");
    EXPECT_HAS("POST", "/t/_search", "{\"query\":{\"range\":{\"k\":{\"gte\":\"b\"}}}}", 500,
               "\"reason\":\"[range] queries on [text] or [keyword] fields cannot be executed");
    EXPECT_HAS("POST", "/t/_search", "{\"query\":{\"match\":{\"a\":{\"query\":\"dob\",\"fuzziness\":1}}}}", 500,
               "\"reason\":\"[fuzzy] queries cannot be executed");
    /* numbers and term queries are not expensive */
    HITS("t", "{\"query\":{\"range\":{\"n\":{\"gte\":4}}}}", "4");
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"search.allow_expensive_queries\":null}}");
    HITS("t", "{\"query\":{\"prefix\":{\"k\":\"gam\"}}}", "4");
}

static void test_shard_doc(void **s) {
    (void)s;
    EXPECT("POST", "/t/_search", "{\"sort\":[\"_shard_doc\",{\"_shard_doc\":{}}]}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: _shard_doc is only supported with point-in-time (PIT). Add a PIT or remove _shard_doc.;2: "
           "duplicate _shard_doc sort detected. Specify it at most once.;\"}],\"type\":\"action_request_validation_"
           "exception\",\"reason\":\"Validation Failed: 1: _shard_doc is only supported with point-in-time (PIT). Add a "
           "PIT or remove _shard_doc.;2: duplicate _shard_doc sort detected. Specify it at most once.;\"},\"status\":400}");
}

static int setup_geo(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/g", "{\"mappings\":{\"properties\":{\"d\":{\"type\":\"date\"},\"dn\":{\"type\":\"date_nanos\"},"
                    "\"p\":{\"type\":\"geo_point\"},\"n\":{\"type\":\"long\"}}}}");
    OK("PUT", "/g/_doc/1", "{\"d\":\"2018-02-01T10:00:00Z\",\"dn\":\"2018-02-01T00:00:00.223456789Z\",\"p\":[-71.34,41.13]}");
    OK("PUT", "/g/_doc/2", "{\"d\":\"2018-02-01T11:00:00Z\",\"dn\":\"2018-02-01T00:00:00.123456789Z\",\"p\":[-71.34,41.14]}");
    OK("PUT", "/g/_doc/3", "{\"d\":[\"2018-02-01T09:00:00Z\",\"2030-01-01\"],\"n\":5}");
    OK("PUT", "/g/_doc/4", "{\"p\":[[-71.34,41.135],{\"lat\":10,\"lon\":170}]}");
    OK("POST", "/g/_refresh", NULL);
    return 0;
}

static void test_distance_feature(void **s) {
    (void)s;
    /* boost * pivot / (pivot + distance), the closest of a doc's values;
     * the origin is parsed rounding up (08:00:30.999); docs without a
     * value do not match */
    SCORED("g", "{\"query\":{\"distance_feature\":{\"field\":\"d\",\"pivot\":\"1h\",\"origin\":\"2018-02-01T08:00:30Z\","
                "\"boost\":2}}}",
           "3:1.0043241,1:0.6685857,2:0.50107867");
    SCORED("g", "{\"query\":{\"distance_feature\":{\"field\":\"dn\",\"pivot\":\"100000000nanos\","
                "\"origin\":\"2018-02-01T00:00:00.323456789Z\"}}}",
           "1:0.5,2:0.33333334");
    HITS("g", "{\"query\":{\"distance_feature\":{\"field\":\"p\",\"pivot\":\"1km\",\"origin\":\"41.12,-71.35\"}}}",
         "1,4,2");
    HITS("g", "{\"query\":{\"distance_feature\":{\"field\":\"nope\",\"pivot\":\"1km\",\"origin\":\"1\"}}}", "");
    EXPECT_HAS("POST", "/g/_search", "{\"query\":{\"distance_feature\":{\"field\":\"n\",\"pivot\":\"1\",\"origin\":1}}}",
               400, "Illegal data type of [long]![distance_feature] query can only be run on a date, date_nanos or "
                    "geo_point field type!");
    EXPECT_HAS("POST", "/g/_search", "{\"query\":{\"distance_feature\":{\"field\":\"d\",\"origin\":1}}}", 400,
               "\"reason\":\"Required [pivot]\"");
    EXPECT_HAS("POST", "/g/_search",
               "{\"query\":{\"distance_feature\":{\"field\":\"d\",\"origin\":1,\"pivot\":\"1h\",\"x\":1}}}", 400,
               "[distance_feature] unknown field [x]");
    EXPECT_HAS("POST", "/g/_search",
               "{\"query\":{\"distance_feature\":{\"field\":\"p\",\"origin\":[1,2],\"pivot\":\"0km\"}}}", 400,
               "pivotDistanceMeters must be > 0, got 0.0");
}

#define SHAPE(env, rel) \
    "{\"query\":{\"geo_shape\":{\"p\":{\"shape\":{\"type\":\"envelope\",\"coordinates\":" env "}" rel "}}}}"

static void test_geo_shape(void **s) {
    (void)s;
    /* doc 4 has one point in the box and one far away */
    HITS("g", SHAPE("[[-72,41.136],[-71,41.0]]", ""), "1,4");
    HITS("g", SHAPE("[[-72,41.136],[-71,41.0]]", ",\"relation\":\"within\""), "1");
    HITS("g", SHAPE("[[-72,41.136],[-71,41.0]]", ",\"relation\":\"disjoint\""), "2");
    /* across the dateline: minLon 169 > maxLon -179 */
    HITS("g", SHAPE("[[169,11],[-179,9]]", ""), "4");
    HITS("g", "{\"query\":{\"geo_shape\":{\"nope\":{\"shape\":{\"type\":\"envelope\",\"coordinates\":[[0,1],[1,0]]}},"
              "\"ignore_unmapped\":true}}}",
         "");
    EXPECT_HAS("POST", "/g/_search",
               "{\"query\":{\"geo_shape\":{\"nope\":{\"shape\":{\"type\":\"envelope\",\"coordinates\":[[0,1],[1,0]]}}}}}",
               400, "\"type\":\"query_shard_exception\",\"reason\":\"failed to find type for field [nope]\"");
    EXPECT_HAS("POST", "/g/_search", SHAPE("[[0,0],[1,1]]", ""), 400, "max y cannot be less than min y");
    EXPECT_HAS("POST", "/g/_search", SHAPE("[[0,1],[1,0]]", ",\"relation\":\"contains\""), 400,
               "\"type\":\"unsupported_operation_exception\",\"reason\":\"[geo_shape] relation [contains] is not "
               "supported by trove\"");
    EXPECT_HAS("POST", "/g/_search",
               "{\"query\":{\"geo_shape\":{\"p\":{\"shape\":{\"type\":\"polygon\",\"coordinates\":[]}}}}}", 400,
               "[geo_shape] shape type [polygon] is not supported by trove");
}

static void test_geo_bounding_box(void **s) {
    (void)s;
    HITS("g", "{\"query\":{\"geo_bounding_box\":{\"p\":{\"top_left\":{\"lat\":41.136,\"lon\":-72},"
              "\"bottom_right\":\"41.0,-71\"}}}}",
         "1,4");
    HITS("g", "{\"query\":{\"geo_bounding_box\":{\"p\":{\"top\":11,\"bottom\":9,\"left\":169,\"right\":-179}}}}", "4");
    HITS("g", "{\"query\":{\"geo_bounding_box\":{\"p\":{\"top_right\":[-71,41.136],\"bottom_left\":[-72,41.131]},"
              "\"boost\":3}}}",
         "4");
    HITS("g", "{\"query\":{\"geo_bounding_box\":{\"nope\":{\"top\":2,\"bottom\":1,\"left\":1,\"right\":2},"
              "\"ignore_unmapped\":true}}}",
         "");
    EXPECT_HAS("POST", "/g/_search",
               "{\"query\":{\"geo_bounding_box\":{\"p\":{\"top\":1,\"bottom\":2,\"left\":1,\"right\":2}}}}", 400,
               "\"type\":\"illegal_argument_exception\",\"reason\":\"top is below bottom corner: 1.0 vs. 2.0\"");
    EXPECT_HAS("POST", "/g/_search",
               "{\"query\":{\"geo_bounding_box\":{\"nope\":{\"top\":2,\"bottom\":1,\"left\":1,\"right\":2}}}}", 400,
               "\"type\":\"query_shard_exception\",\"reason\":\"failed to find geo field [nope]\"");
    EXPECT_HAS("POST", "/g/_search",
               "{\"query\":{\"geo_bounding_box\":{\"p\":{\"top\":2,\"bottom\":1,\"west\":1}}}}", 400,
               "failed to parse [geo_bounding_box] query. [failed to parse bounding box. unexpected field [west]]");
    EXPECT_HAS("POST", "/g/_search", "{\"query\":{\"geo_bounding_box\":{\"p\":{\"wkt\":\"BBOX (1, 2, 4, 3)\"}}}}", 400,
               "[geo_bounding_box] [wkt] is not supported by trove");
}

static int setup_lookup(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/users", "{\"mappings\":{\"properties\":{\"user\":{\"type\":\"keyword\"},\"sid\":{\"type\":\"integer\"}}}}");
    OK("PUT", "/users/_doc/u1", "{\"user\":\"foo\",\"sid\":111}");
    OK("PUT", "/users/_doc/u2", "{\"user\":\"bar\",\"sid\":222}");
    OK("PUT", "/users/_doc/u3", "{\"user\":\"baz\",\"sid\":-5}");
    OK("PUT", "/groups", "{\"mappings\":{\"properties\":{\"g\":{\"type\":\"keyword\"},"
                         "\"bm\":{\"type\":\"binary\",\"store\":true}}}}");
    OK("PUT", "/groups/_doc/1?routing=r1", "{\"g\":\"a\",\"members\":{\"ids\":[\"foo\",null,\"baz\"]}}");
    OK("PUT", "/groups/_doc/2", "{\"g\":\"b\",\"members\":[{\"ids\":\"bar\"},{\"ids\":[\"foo\"]}],"
                                "\"bm\":\"OjAAAAEAAAAAAAEAEAAAAG8A3gA=\"}");
    OK("POST", "/users,groups/_refresh", NULL);
    return 0;
}

static void test_terms_lookup(void **s) {
    (void)s;
    HITS("users", "{\"query\":{\"terms\":{\"user\":{\"index\":\"groups\",\"id\":\"1\",\"routing\":\"r1\","
                  "\"path\":\"members.ids\"}}}}",
         "u1,u3");
    /* through an array of objects */
    HITS("users", "{\"query\":{\"terms\":{\"user\":{\"index\":\"groups\",\"id\":\"2\",\"path\":\"members.ids\"}}}}",
         "u1,u2");
    HITS("users", "{\"query\":{\"terms\":{\"user\":{\"index\":\"groups\",\"id\":\"9\",\"path\":\"members.ids\"}}}}", "");
    HITS("users", "{\"query\":{\"terms\":{\"user\":{\"index\":\"groups\",\"path\":\"members.ids\","
                  "\"query\":{\"match_all\":{}}}}}}",
         "u1,u2,u3");
    EXPECT_HAS("POST", "/users/_search",
               "{\"query\":{\"terms\":{\"user\":{\"index\":\"nothere\",\"id\":\"1\",\"path\":\"p\"}}}}", 404,
               "\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nothere]\"");
    EXPECT_HAS("POST", "/users/_search", "{\"query\":{\"terms\":{\"user\":{\"index\":\"groups\",\"path\":\"p\"}}}}", 400,
               "[terms] query lookup element requires specifying either the id or the query.");
    EXPECT_HAS("POST", "/users/_search",
               "{\"query\":{\"terms\":{\"user\":{\"index\":\"groups\",\"id\":\"1\",\"path\":\"p\",\"bad\":1}}}}", 400,
               "[terms_lookup] unknown field [bad]");
    /* bitmaps: inline and from a binary field */
    HITS("users", "{\"query\":{\"terms\":{\"sid\":[\"OjAAAAEAAAAAAAEAEAAAAG8A3gA=\"],\"value_type\":\"bitmap\"}}}",
         "u1,u2");
    HITS("users", "{\"query\":{\"terms\":{\"sid\":{\"index\":\"groups\",\"id\":\"2\",\"path\":\"bm\",\"store\":true},"
                  "\"value_type\":\"bitmap\"}}}",
         "u1,u2");
    EXPECT_HAS("POST", "/users/_search",
               "{\"query\":{\"terms\":{\"sid\":[\"OjAAAAEAAAAAAAEA\"],\"value_type\":\"bitmap\"}}}", 400,
               "\"reason\":\"Failed to deserialize the bitmap.\"");
    EXPECT_HAS("POST", "/users/_search", "{\"query\":{\"terms\":{\"sid\":[1,2],\"value_type\":\"bitmap\"}}}", 400,
               "Invalid value for bitmap type: Expected a single-element array with a base64 encoded serialized "
               "bitmap.");
    EXPECT_HAS("POST", "/users/_search", "{\"query\":{\"terms\":{\"sid\":[1],\"value_type\":\"bits\"}}}", 400,
               "bits is not valid value_type");
    EXPECT_HAS("POST", "/users/_search",
               "{\"query\":{\"terms\":{\"user\":[\"OjAAAAEAAAAAAAEAEAAAAG8A3gA=\"],\"value_type\":\"bitmap\"}}}", 400,
               "[terms] query with [value_type] [bitmap] on a field of type [keyword] is not supported by trove");
    /* without store the lookup reads _source: the base64 text is a term the
     * integer field cannot parse */
    EXPECT_HAS("POST", "/users/_search",
               "{\"query\":{\"terms\":{\"sid\":{\"index\":\"groups\",\"id\":\"2\",\"path\":\"bm\"},"
               "\"value_type\":\"bitmap\"}}}",
               400, "For input string");
}

/* The decoder directly: the three container kinds and malformed input. */
#include "query/query.h"
static void test_roaring_decoder(void **s) {
    (void)s;
    tv_arena a;
    tv_arena_init(&a);
    tv_roaring *r;
    /* one run container [65541, 65550] under key 1 */
    const uint8_t runs[] = {0x3B, 0x30, 0, 0, 0x01, 1, 0, 9, 0, 1, 0, 5, 0, 9, 0};
    assert_int_equal(tv_roaring_decode(runs, sizeof runs, &a, &r), TROVE_OK);
    assert_true(tv_roaring_contains(r, 65541));
    assert_true(tv_roaring_contains(r, 65550));
    assert_false(tv_roaring_contains(r, 65551));
    assert_false(tv_roaring_contains(r, 5));
    /* a bitmap container (5000 values) */
    size_t len = 8 + 4 + 4 + 8192;
    uint8_t *bm = calloc(1, len);
    bm[0] = 0x3A;
    bm[1] = 0x30;
    bm[4] = 1;
    bm[10] = (5000 - 1) & 0xff;
    bm[11] = (5000 - 1) >> 8;
    for (int v = 0; v < 10000; v += 2) bm[16 + v / 8] |= (uint8_t)(1 << (v % 8));
    assert_int_equal(tv_roaring_decode(bm, len, &a, &r), TROVE_OK);
    assert_true(tv_roaring_contains(r, 9998));
    assert_false(tv_roaring_contains(r, 9999));
    /* truncated bitmap, bad cookie, too many containers */
    assert_int_equal(tv_roaring_decode(bm, len - 1, &a, &r), TROVE_ECORRUPT);
    free(bm);
    const uint8_t bad[] = {1, 2, 3, 4, 0, 0, 0, 0};
    assert_int_equal(tv_roaring_decode(bad, sizeof bad, &a, &r), TROVE_ECORRUPT);
    const uint8_t many[] = {0x3A, 0x30, 0, 0, 0x01, 0x00, 0x01, 0x00};
    assert_int_equal(tv_roaring_decode(many, sizeof many, &a, &r), TROVE_ECORRUPT);
    tv_arena_fini(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_match_bool_prefix, setup_text, teardown),
        cmocka_unit_test_setup_teardown(test_multi_match_types, setup_text, teardown),
        cmocka_unit_test_setup_teardown(test_named_queries, setup_text, teardown),
        cmocka_unit_test_setup_teardown(test_expensive_queries, setup_text, teardown),
        cmocka_unit_test_setup_teardown(test_shard_doc, setup_text, teardown),
        cmocka_unit_test_setup_teardown(test_distance_feature, setup_geo, teardown),
        cmocka_unit_test_setup_teardown(test_geo_shape, setup_geo, teardown),
        cmocka_unit_test_setup_teardown(test_geo_bounding_box, setup_geo, teardown),
        cmocka_unit_test_setup_teardown(test_terms_lookup, setup_lookup, teardown),
        cmocka_unit_test(test_roaring_decoder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
