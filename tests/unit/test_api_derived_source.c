/* test_api_derived_source.c — index.derived_source.enabled through
 * trove_request: the _source every reader sees is the one OpenSearch
 * rebuilds from doc values and stored fields (sorted numbers with
 * duplicates, sorted unique keywords and ips, dates in the field's first
 * format, floats at their precision, text as stored), and the mappings it
 * refuses with OpenSearch's reasons. */
#define API_TEST_MASK_TOOK
#include "api_test.h"

#define DS "{\"settings\":{\"index.derived_source.enabled\":true},\"mappings\":"

static void test_values_rebuilt(void **s) {
    (void)s;
    OK("PUT", "/d", DS "{\"properties\":{\"k\":{\"type\":\"keyword\"},\"n\":{\"type\":\"integer\"},"
                       "\"f\":{\"type\":\"float\"},\"b\":{\"type\":\"boolean\"},\"t\":{\"type\":\"text\"},"
                       "\"g\":{\"type\":\"geo_point\"},\"s\":{\"type\":\"scaled_float\",\"scaling_factor\":10},"
                       "\"ks\":{\"type\":\"keyword\",\"doc_values\":false,\"store\":true},"
                       "\"o\":{\"properties\":{\"x\":{\"type\":\"long\"},\"e\":{\"type\":\"long\"}}}}}}");
    OK("PUT", "/d/_doc/1", "{\"k\":[\"b\",\"a\",\"b\"],\"n\":[3,\"1\",3,2.9],\"f\":0.1,\"b\":[true,false],"
                           "\"t\":[\"z y\",\"a b\",\"z y\"],\"g\":\"1.5,2.5\",\"s\":1.26,\"ks\":[\"q\",\"p\",\"q\"],"
                           "\"o\":{\"x\":7,\"e\":null},\"extra\":{\"deep\":{}}}");
    /* mapping order; doc values sorted (numbers keep duplicates, keywords
     * do not); stored values as given; the empty object is gone */
    EXPECT("GET", "/d/_source/1", NULL, 200,
           "{\"b\":[false,true],\"f\":0.1,\"g\":{\"lat\":1.4999999944120646,\"lon\":2.4999999348074198},"
           "\"k\":[\"a\",\"b\"],\"ks\":[\"q\",\"p\",\"q\"],\"n\":[1,2,3,3],\"o\":{\"x\":7},\"s\":1.3,"
           "\"t\":[\"z y\",\"a b\",\"z y\"]}");
    /* searches and updates read the same source */
    EXPECT_HAS("POST", "/d/_search", "{\"query\":{\"match\":{\"t\":\"a\"}}}", 200,
               "\"_source\":{\"b\":[false,true]");
    OK("POST", "/d/_update/1", "{\"doc\":{\"k\":\"c\"}}");
    EXPECT_HAS("GET", "/d/_doc/1", NULL, 200, "\"k\":\"c\",\"ks\":[\"q\",\"p\",\"q\"]");
    /* dynamic fields are mapped, so they derive too; dates print in
     * their format */
    OK("PUT", "/d/_doc/2", "{\"when\":\"2024-01-03T12:00:00Z\",\"word\":\"Hi\",\"num\":5}");
    EXPECT("GET", "/d/_source/2", NULL, 200, "{\"num\":5,\"when\":\"2024-01-03T12:00:00.000Z\",\"word\":\"Hi\"}");
    /* dynamic:false keeps unmapped fields out of the index: they are lost */
    OK("PUT", "/strict", DS "{\"dynamic\":false,\"properties\":{\"a\":{\"type\":\"long\"}}}}");
    OK("PUT", "/strict/_doc/1", "{\"a\":1,\"b\":2}");
    EXPECT("GET", "/strict/_source/1", NULL, 200, "{\"a\":1}");
}

static void test_refusals(void **s) {
    (void)s;
    EXPECT_HAS("PUT", "/r1", DS "{\"properties\":{\"k\":{\"type\":\"keyword\",\"ignore_above\":5}}}}", 400,
               "\"type\":\"mapper_parsing_exception\",\"reason\":\"Unable to derive source for [k] with "
               "ignore_above and/or normalizer set\"");
    EXPECT_HAS("PUT", "/r2", DS "{\"properties\":{\"a\":{\"type\":\"text\",\"copy_to\":\"b\"},\"b\":{\"type\":\"text\"}}}}",
               400, "Unable to derive source for fields with copy_to parameter set");
    EXPECT_HAS("PUT", "/r3", DS "{\"properties\":{\"tags\":{\"type\":\"nested\"}}}}", 400,
               "Derived source is not supported for tags field as it is disabled/nested");
    EXPECT_HAS("PUT", "/r4", DS "{\"properties\":{\"o\":{\"type\":\"object\",\"enabled\":false}}}}", 400,
               "Derived source is not supported for o field as it is disabled/nested");
    EXPECT_HAS("PUT", "/r5", DS "{\"properties\":{\"n\":{\"type\":\"long\",\"doc_values\":false}}}}", 400,
               "Unable to derive source for [n] with stored and docValues disabled");
    EXPECT_HAS("PUT", "/r6", DS "{\"properties\":{\"r\":{\"type\":\"integer_range\"}}}}", 400,
               "Derive source is not supported for field [r] with field type [integer_range]");
    EXPECT_HAS("PUT", "/r7", DS "{\"properties\":{\"b\":{\"type\":\"binary\"}}}}", 400,
               "Unable to derive source for [b] with store disabled");
    /* put mapping and dynamic templates are checked too */
    OK("PUT", "/r8", DS "{\"dynamic_templates\":[{\"s\":{\"match\":\"s_*\",\"mapping\":{\"type\":\"keyword\","
                         "\"ignore_above\":3}}}],\"properties\":{}}}");
    EXPECT_HAS("PUT", "/r8/_mapping", "{\"properties\":{\"c\":{\"type\":\"keyword\",\"normalizer\":\"lowercase\"}}}",
               400, "Unable to derive source for [c] with ignore_above and/or normalizer set");
    EXPECT_HAS("PUT", "/r8/_doc/1", "{\"s_x\":\"abc\"}", 400,
               "Unable to derive source for [s_x] with ignore_above and/or normalizer set");
    EXPECT_STATUS("GET", "/r8/_doc/1", NULL, 404);
    /* translog reads always show the derived source here */
    EXPECT_HAS("PUT", "/r9", "{\"settings\":{\"index.derived_source.enabled\":true,"
                             "\"index.derived_source.translog.enabled\":false}}",
               400, "[index.derived_source.translog.enabled] [false] is not supported by trove");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_values_rebuilt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
