/*
 * test_api_field_types.c — the field alias and range field types through
 * trove_request: mapping parse, validation and print, document parsing,
 * queries, fetch `fields`, field_caps, highlight and the histogram
 * aggregations on ranges.
 *
 * Expected bodies follow OpenSearch 3's FieldAliasMapper (validate,
 * TypeParser), DocumentParser (parseObjectOrField, parseCopy),
 * QueryParserHelper (alias deduplication), RangeFieldMapper
 * (parseCreateField, the value fetcher), RangeType.rangeQuery with
 * ShapeRelation, and RangeHistogramAggregator / DateRangeHistogramAggregator,
 * and the YAML tests search/61_*_field_alias.yml, 110_field_collapsing.yml
 * ("on a field alias"), 330_fetch_fields.yml and
 * search.aggregation/10_histogram.yml (ranges).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#define API_TEST_MASK_TOOK
#include "api_test.h"

static void ids_of(const char *path, const char *body, const char *want) {
    char *got;
    int st = req("GET", path, body, &got);
    char ids[512];
    hit_list(got, false, ids, sizeof ids);
    if (st != 200 || strcmp(ids, want) != 0) fail_msg("%s %s\n want ids %s\n got %d %s", path, body, want, st, got);
    free(got);
}

/* ---------------------------------------------------------------- alias */

static void test_alias_mapping(void **s) {
    (void)s;
    OK("PUT", "/a",
       "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"fields\":{\"k\":{\"type\":\"keyword\"}}},"
       "\"n\":{\"type\":\"integer\"},\"al\":{\"type\":\"alias\",\"path\":\"n\"},\"tk\":{\"type\":\"alias\","
       "\"path\":\"t.k\"}}}}");
    EXPECT("GET", "/a/_mapping", NULL, 200,
           "{\"a\":{\"mappings\":{\"properties\":{\"al\":{\"type\":\"alias\",\"path\":\"n\"},\"n\":{\"type\":"
           "\"integer\"},\"t\":{\"type\":\"text\",\"fields\":{\"k\":{\"type\":\"keyword\"}}},\"tk\":{\"type\":"
           "\"alias\",\"path\":\"t.k\"}}}}}");
    /* FieldAliasMapper.TypeParser */
    EXPECT("PUT", "/b", "{\"mappings\":{\"properties\":{\"al\":{\"type\":\"alias\"}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"mapper_parsing_exception\",\"reason\":\"The [path] property "
           "must be specified for field [al].\"}],\"type\":\"mapper_parsing_exception\",\"reason\":\"Failed to "
           "parse mapping [_doc]: The [path] property must be specified for field [al].\",\"caused_by\":{\"type\":"
           "\"mapper_parsing_exception\",\"reason\":\"The [path] property must be specified for field [al].\"}},"
           "\"status\":400}");
    EXPECT_HAS("PUT", "/b", "{\"mappings\":{\"properties\":{\"al\":{\"type\":\"alias\",\"path\":\"x\",\"foo\":1},"
               "\"x\":{\"type\":\"long\"}}}}",
               400, "Mapping definition for [al] has unsupported parameters:  [foo : 1]");
    EXPECT_HAS("PUT", "/b", "{\"mappings\":{\"properties\":{\"x\":{\"type\":\"text\",\"fields\":{\"a\":{\"type\":"
               "\"alias\",\"path\":\"x\"}}}}}}",
               400, "Type [alias] cannot be used in multi field");
    /* FieldAliasMapper.validate: not wrapped in "Failed to parse mapping" */
    EXPECT("PUT", "/b", "{\"mappings\":{\"properties\":{\"al\":{\"type\":\"alias\",\"path\":\"al\"}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"mapper_parsing_exception\",\"reason\":\"Invalid [path] value "
           "[al] for field alias [al]: an alias cannot refer to itself.\"}],\"type\":\"mapper_parsing_exception\","
           "\"reason\":\"Invalid [path] value [al] for field alias [al]: an alias cannot refer to itself.\"},"
           "\"status\":400}");
    EXPECT_HAS("PUT", "/b", "{\"mappings\":{\"properties\":{\"al\":{\"type\":\"alias\",\"path\":\"zz\"}}}}", 400,
               "\"reason\":\"Invalid [path] value [zz] for field alias [al]: an alias must refer to an existing "
               "field in the mappings.\"}");
    EXPECT_HAS("PUT", "/b", "{\"mappings\":{\"properties\":{\"al\":{\"type\":\"alias\",\"path\":\"o\"},\"o\":{"
               "\"properties\":{\"x\":{\"type\":\"keyword\"}}}}}}",
               400, "an alias must refer to an existing field in the mappings.");
    EXPECT_HAS("PUT", "/b", "{\"mappings\":{\"properties\":{\"al\":{\"type\":\"alias\",\"path\":\"a2\"},\"a2\":{"
               "\"type\":\"alias\",\"path\":\"x\"},\"x\":{\"type\":\"long\"}}}}",
               400, "Invalid [path] value [a2] for field alias [al]: an alias cannot refer to another alias.");
    EXPECT_HAS("PUT", "/b", "{\"mappings\":{\"properties\":{\"al\":{\"type\":\"alias\",\"path\":\"n.x\"},\"n\":{"
               "\"type\":\"nested\",\"properties\":{\"x\":{\"type\":\"long\"}}}}}}",
               400, "{\"type\":\"illegal_argument_exception\",\"reason\":\"Invalid [path] value [n.x] for field "
                    "alias [al]: an alias must have the same nested scope as its target. The alias is not nested, "
                    "but the target's nested scope is [n].\"}");
    /* merges: an alias may be repointed, not turned into a field, and back */
    OK("PUT", "/a/_mapping", "{\"properties\":{\"al\":{\"type\":\"alias\",\"path\":\"t.k\"}}}");
    EXPECT_HAS("GET", "/a/_mapping", NULL, 200, "\"al\":{\"type\":\"alias\",\"path\":\"t.k\"}");
    EXPECT_HAS("PUT", "/a/_mapping", "{\"properties\":{\"al\":{\"type\":\"long\"}}}", 400,
               "Cannot merge a field alias mapping [al] with a mapping that is not for a field alias.");
    EXPECT_HAS("PUT", "/a/_mapping", "{\"properties\":{\"n\":{\"type\":\"alias\",\"path\":\"t\"}}}", 400,
               "mapper [n] cannot be changed from type [integer] to [alias]");
    /* the target must exist in the merged mapping */
    EXPECT_HAS("PUT", "/a/_mapping", "{\"properties\":{\"z\":{\"type\":\"alias\",\"path\":\"nope\"}}}", 400,
               "Invalid [path] value [nope] for field alias [z]");
    OK("PUT", "/a/_mapping", "{\"properties\":{\"z\":{\"type\":\"alias\",\"path\":\"later\"},\"later\":{\"type\":"
       "\"keyword\"}}}");
}

static void test_alias_documents(void **s) {
    (void)s;
    OK("PUT", "/a", "{\"mappings\":{\"properties\":{\"n\":{\"type\":\"integer\"},\"al\":{\"type\":\"alias\","
                    "\"path\":\"n\"},\"src\":{\"type\":\"keyword\",\"copy_to\":\"al\"}}}}");
    EXPECT("PUT", "/a/_doc/1", "{\"al\":5}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"mapper_parsing_exception\",\"reason\":\"failed to parse\"}],"
           "\"type\":\"mapper_parsing_exception\",\"reason\":\"failed to parse\",\"caused_by\":{\"type\":"
           "\"illegal_argument_exception\",\"reason\":\"Cannot write to a field alias [al].\"}},\"status\":400}");
    EXPECT_HAS("PUT", "/a/_doc/1", "{\"al\":null}", 400, "Cannot write to a field alias [al].");
    EXPECT_HAS("PUT", "/a/_doc/1", "{\"al\":{\"x\":1}}", 400, "Cannot write to a field alias [al].");
    EXPECT_HAS("PUT", "/a/_doc/1", "{\"src\":\"v\"}", 400, "Cannot copy to a field alias [al].");
    OK("PUT", "/a/_doc/1", "{\"al\":[]}"); /* an empty array writes nothing */
}

static void test_alias_search(void **s) {
    (void)s;
    OK("PUT", "/a",
       "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\"},\"ta\":{\"type\":\"alias\",\"path\":\"t\"},"
       "\"n\":{\"type\":\"integer\"},\"na\":{\"type\":\"alias\",\"path\":\"n\"}}}}");
    OK("PUT", "/a/_doc/1", "{\"t\":\"hello world\",\"n\":5}");
    OK("PUT", "/a/_doc/2?refresh=true", "{\"t\":\"other words\",\"n\":7}");
    ids_of("/a/_search", "{\"query\":{\"term\":{\"na\":5}}}", "1");
    ids_of("/a/_search", "{\"query\":{\"match\":{\"ta\":\"words\"}}}", "2");
    ids_of("/a/_search", "{\"query\":{\"query_string\":{\"query\":\"ta:/h[a-z].*/\"}}}", "1");
    ids_of("/a/_search", "{\"query\":{\"exists\":{\"field\":\"na\"}},\"sort\":[{\"na\":\"desc\"}]}", "2,1");
    /* t* names t and ta: one field, as QueryParserHelper deduplicates */
    char *one, *two;
    assert_int_equal(req("GET", "/a/_search", "{\"query\":{\"query_string\":{\"query\":\"hello\",\"fields\":[\"t\"]}}}", &one), 200);
    assert_int_equal(req("GET", "/a/_search", "{\"query\":{\"query_string\":{\"query\":\"hello\",\"fields\":[\"t*\"]}}}", &two), 200);
    assert_string_equal(one, two);
    free(one);
    free(two);
    EXPECT_HAS("GET", "/a/_search", "{\"size\":0,\"aggs\":{\"x\":{\"terms\":{\"field\":\"na\"}}}}", 200,
               "\"buckets\":[{\"key\":5,\"doc_count\":1},{\"key\":7,\"doc_count\":1}]");
    /* answers keyed by the name asked for */
    EXPECT_HAS("GET", "/a/_search",
               "{\"query\":{\"match\":{\"ta\":\"hello\"}},\"_source\":false,\"fields\":[\"na\",\"ta\"],"
               "\"docvalue_fields\":[\"na\"],\"highlight\":{\"fields\":{\"ta\":{}}}}",
               200, "\"fields\":{\"na\":[5],\"ta\":[\"hello world\"]},\"highlight\":{\"ta\":[\"<em>hello</em> world\"]}");
    EXPECT_HAS("GET", "/a/_search", "{\"collapse\":{\"field\":\"na\"},\"sort\":[\"n\"],\"_source\":false}", 200,
               "\"fields\":{\"na\":[5]}");
    EXPECT_HAS("GET", "/a/_field_caps?fields=na", NULL, 200,
               "\"fields\":{\"na\":{\"integer\":{\"type\":\"integer\",\"searchable\":true,\"aggregatable\":true}}}");
}

/* ---------------------------------------------------------------- ranges */

static void test_range_mapping_and_docs(void **s) {
    (void)s;
    OK("PUT", "/r",
       "{\"mappings\":{\"properties\":{\"i\":{\"type\":\"integer_range\"},\"d\":{\"type\":\"date_range\","
       "\"format\":\"yyyy-MM-dd\"},\"ip\":{\"type\":\"ip_range\"},\"f\":{\"type\":\"float_range\",\"coerce\":"
       "false}}}}");
    EXPECT("GET", "/r/_mapping", NULL, 200,
           "{\"r\":{\"mappings\":{\"properties\":{\"d\":{\"type\":\"date_range\",\"format\":\"yyyy-MM-dd\"},\"f\":{"
           "\"type\":\"float_range\",\"coerce\":false},\"i\":{\"type\":\"integer_range\"},\"ip\":{\"type\":"
           "\"ip_range\"}}}}}");
    EXPECT_HAS("PUT", "/r2", "{\"mappings\":{\"properties\":{\"i\":{\"type\":\"integer_range\",\"format\":\"yyyy\"}}}}",
               400, "field [i] of type [range] should not define a dateTimeFormatter unless it is a DATE type");
    EXPECT_HAS("PUT", "/r/_doc/3", "{\"i\":{\"gte\":5,\"lte\":1}}", 400,
               "\"caused_by\":{\"type\":\"illegal_argument_exception\",\"reason\":\"min value (5) is greater than "
               "max value (1)\"}");
    EXPECT_HAS("PUT", "/r/_doc/3", "{\"i\":{\"gte\":5,\"foo\":1}}", 400,
               "\"caused_by\":{\"type\":\"mapper_parsing_exception\",\"reason\":\"error parsing field [i], with "
               "unknown parameter [foo]\"}");
    EXPECT_HAS("PUT", "/r/_doc/3", "{\"i\":5}", 400, "error parsing field [i], expected an object but got i");
    EXPECT_HAS("PUT", "/r/_doc/3", "{\"i\":{\"gte\":\"x\"}}", 400,
               "\"caused_by\":{\"type\":\"number_format_exception\",\"reason\":\"For input string: \\\"x\\\"\"}");
    EXPECT_HAS("PUT", "/r/_doc/3", "{\"ip\":\"10.0.0.0/99\"}", 400, "Expected [ip/prefix] but was [10.0.0.0/99]");
    OK("PUT", "/r/_doc/1", "{\"i\":{\"gte\":0,\"lte\":42},\"d\":{\"gte\":\"2016-01-01\",\"lt\":\"2016-01-05\"},"
                           "\"ip\":\"192.168.0.0/16\",\"f\":{\"gt\":1.5}}");
    OK("PUT", "/r/_doc/2?refresh=true", "{\"i\":[{\"gt\":50},{\"lt\":-3}],\"ip\":{\"gte\":\"10.0.0.1\",\"lte\":\"10.0.0.9\"}}");
    /* the value fetcher: keys as the source has them, HashMap order */
    EXPECT_HAS("GET", "/r/_search", "{\"fields\":[\"*\"],\"_source\":false,\"sort\":[\"_doc\"]}", 200,
               "\"fields\":{\"d\":[{\"lt\":\"2016-01-05\",\"gte\":\"2016-01-01\"}],\"f\":[{\"gt\":1.5}],\"ip\":["
               "\"192.168.0.0/16\"],\"i\":[{\"gte\":0,\"lte\":42}]}");
    EXPECT_HAS("GET", "/r/_search", "{\"fields\":[\"i\"],\"_source\":false,\"sort\":[\"_doc\"]}", 200,
               "\"fields\":{\"i\":[{\"gt\":50},{\"lt\":-3}]}");
}

static void test_range_queries(void **s) {
    (void)s;
    OK("PUT", "/r", "{\"mappings\":{\"properties\":{\"i\":{\"type\":\"integer_range\"},\"d\":{\"type\":"
                    "\"date_range\"},\"ip\":{\"type\":\"ip_range\"},\"x\":{\"type\":\"double_range\"}}}}");
    OK("PUT", "/r/_doc/1", "{\"i\":{\"gte\":0,\"lte\":42},\"d\":{\"gte\":\"2016-01-01\",\"lt\":\"2016-01-05\"},"
                           "\"ip\":\"192.168.0.0/16\",\"x\":{\"gt\":1.0,\"lt\":2.0}}");
    OK("PUT", "/r/_doc/2?refresh=true", "{\"i\":[{\"gt\":50},{\"lt\":-3}],\"ip\":{\"gte\":\"10.0.0.1\",\"lte\":\"10.0.0.9\"}}");
    ids_of("/r/_search", "{\"query\":{\"term\":{\"i\":10}}}", "1");
    ids_of("/r/_search", "{\"query\":{\"term\":{\"i\":-10}}}", "2");
    ids_of("/r/_search", "{\"query\":{\"term\":{\"i\":-3}}}", "");     /* lt -3 excludes -3 */
    ids_of("/r/_search", "{\"query\":{\"terms\":{\"i\":[51,1]}},\"sort\":[\"_doc\"]}", "1,2");
    ids_of("/r/_search", "{\"query\":{\"range\":{\"i\":{\"gte\":5,\"lte\":10}}}}", "1");
    ids_of("/r/_search", "{\"query\":{\"range\":{\"i\":{\"gte\":5,\"lte\":10,\"relation\":\"within\"}}}}", "");
    ids_of("/r/_search", "{\"query\":{\"range\":{\"i\":{\"gte\":5,\"lte\":10,\"relation\":\"contains\"}}}}", "1");
    ids_of("/r/_search", "{\"query\":{\"range\":{\"i\":{\"gte\":-100,\"lte\":100,\"relation\":\"WITHIN\"}}}}", "1");
    ids_of("/r/_search", "{\"query\":{\"range\":{\"i\":{\"gt\":42}}}}", "2");
    ids_of("/r/_search", "{\"query\":{\"term\":{\"ip\":\"192.168.3.4\"}}}", "1");
    ids_of("/r/_search", "{\"query\":{\"range\":{\"ip\":{\"gte\":\"10.0.0.9\",\"lte\":\"10.0.0.20\"}}}}", "2");
    ids_of("/r/_search", "{\"query\":{\"range\":{\"d\":{\"gte\":\"2016-01-04\"}}}}", "1");
    ids_of("/r/_search", "{\"query\":{\"range\":{\"d\":{\"gt\":\"2016-01-04T23:59:59.999Z\"}}}}", "");
    ids_of("/r/_search", "{\"query\":{\"term\":{\"x\":2.0}}}", "");
    ids_of("/r/_search", "{\"query\":{\"term\":{\"x\":1.5}}}", "1");
    ids_of("/r/_search", "{\"query\":{\"exists\":{\"field\":\"d\"}}}", "1");
    EXPECT("GET", "/r/_search", "{\"query\":{\"range\":{\"i\":{\"gte\":5,\"relation\":\"disjoint\"}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"[range] query does not "
           "support relation [disjoint]\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"[range] query does "
           "not support relation [disjoint]\"},\"status\":400}");
    EXPECT_HAS("GET", "/r/_search", "{\"query\":{\"range\":{\"i\":{\"gte\":5,\"relation\":\"near\"}}}}", 400,
               "near is not a valid relation");
    /* what trove does not reproduce answers 400 */
    EXPECT_HAS("GET", "/r/_search", "{\"sort\":[\"i\"]}", 400, "unsupported_operation_exception");
    EXPECT_HAS("GET", "/r/_search", "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"i\"}}}}", 400,
               "aggregation [terms] on field [i] of type [integer_range] is not supported by trove");
    EXPECT_HAS("GET", "/r/_search", "{\"docvalue_fields\":[\"i\"]}", 400, "unsupported_operation_exception");
}

static void test_range_histograms(void **s) {
    (void)s;
    OK("PUT", "/h", "{\"mappings\":{\"properties\":{\"l\":{\"type\":\"long_range\"},\"d\":{\"type\":\"date_range\"}}}}");
    OK("PUT", "/h/_doc/1", "{\"l\":{\"lte\":10},\"d\":{\"gte\":\"2016-01-01\",\"lt\":\"2016-01-02\"}}");
    OK("PUT", "/h/_doc/2", "{\"l\":{\"gte\":15},\"d\":{\"gte\":\"2016-01-02\",\"lt\":\"2016-01-03\"}}");
    OK("PUT", "/h/_doc/3?refresh=true", "{\"l\":[{\"gte\":2,\"lte\":3},{\"gte\":3,\"lte\":6}],\"d\":{\"gte\":\"2016-02-01\",\"lt\":\"2016-03-02\"}}");
    /* a doc counts once per bucket, however many of its ranges reach it */
    EXPECT_HAS("GET", "/h/_search",
               "{\"size\":0,\"aggs\":{\"x\":{\"histogram\":{\"field\":\"l\",\"interval\":5,\"hard_bounds\":{\"min\":0,"
               "\"max\":20}}}}}",
               200, "\"buckets\":[{\"key\":0.0,\"doc_count\":2},{\"key\":5.0,\"doc_count\":2},{\"key\":10.0,\"doc_count\":"
                    "1},{\"key\":15.0,\"doc_count\":1},{\"key\":20.0,\"doc_count\":1}]");
    EXPECT_HAS("GET", "/h/_search",
               "{\"size\":0,\"aggs\":{\"x\":{\"date_histogram\":{\"field\":\"d\",\"calendar_interval\":\"month\"}}}}", 200,
               "\"buckets\":[{\"key_as_string\":\"2016-01-01T00:00:00.000Z\",\"key\":1451606400000,\"doc_count\":2},{"
               "\"key_as_string\":\"2016-02-01T00:00:00.000Z\",\"key\":1454284800000,\"doc_count\":1},{\"key_as_string\":"
               "\"2016-03-01T00:00:00.000Z\",\"key\":1456790400000,\"doc_count\":1}]");
    /* an open-ended range without hard_bounds would reach every long */
    EXPECT_HAS("GET", "/h/_search", "{\"size\":0,\"aggs\":{\"x\":{\"histogram\":{\"field\":\"l\",\"interval\":5}}}}", 400,
               "unsupported_operation_exception");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_alias_mapping, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alias_documents, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alias_search, setup, teardown),
        cmocka_unit_test_setup_teardown(test_range_mapping_and_docs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_range_queries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_range_histograms, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
