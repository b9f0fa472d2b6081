/* test_api_geo.c — geo distances through trove_request: the geo_distance
 * query (units, distance strings, the field.lat/field.lon form, errors),
 * the _geo_distance sort (values in a unit, missing docs at +Infinity,
 * modes, several points, plane, search_after, shard errors) and the
 * geo_distance aggregation (generated keys, from 0, keyed, unit, an
 * unmapped field, parse errors). */
#define API_TEST_MASK_TOOK
#include "api_test.h"

static int setup_geo(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/g", "{\"mappings\":{\"properties\":{\"p\":{\"type\":\"geo_point\"},\"n\":{\"type\":\"long\"}}}}");
    OK("PUT", "/g/_doc/1", "{\"p\":{\"lat\":40.7128,\"lon\":-74.0060},\"n\":1}");    /* New York */
    OK("PUT", "/g/_doc/2", "{\"p\":{\"lat\":34.0522,\"lon\":-118.2437},\"n\":2}");   /* Los Angeles */
    OK("PUT", "/g/_doc/3", "{\"p\":[[-87.6298,41.8781],[2.3264,48.8331]],\"n\":3}"); /* Chicago, Paris */
    OK("PUT", "/g/_doc/4", "{\"n\":4}");
    OK("POST", "/g/_refresh", NULL);
    return 0;
}

#define F "?filter_path=hits.hits._id,hits.hits.sort,aggregations"

static void test_geo_distance_query(void **s) {
    (void)s;
    /* Raleigh: New York is 681 km away, Chicago 1032 km */
    EXPECT("POST", "/g/_search" F, "{\"query\":{\"geo_distance\":{\"distance\":\"1000km\",\"p\":\"35.7796,-78.6382\"}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"1\"}]}}");
    EXPECT("POST", "/g/_search" F,
           "{\"query\":{\"geo_distance\":{\"distance\":1100,\"unit\":\"km\",\"p\":[-78.6382,35.7796]}}}", 200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\"},{\"_id\":\"3\"}]}}");
    EXPECT("POST", "/g/_search" F,
           "{\"query\":{\"geo_distance\":{\"distance\":\"700km\",\"p.lat\":35.7796,\"p.lon\":-78.6382}}}", 200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\"}]}}");
    EXPECT("POST", "/g/_search" F,
           "{\"query\":{\"geo_distance\":{\"distance\":\"600km\",\"p\":{\"lat\":35.7796,\"lon\":-78.6382}}}}", 200,
           "{}");
    EXPECT("POST", "/g/_search" F,
           "{\"query\":{\"geo_distance\":{\"distance\":\"1km\",\"nope\":\"1,1\",\"ignore_unmapped\":true}}}", 200, "{}");
    EXPECT_HAS("POST", "/g/_search", "{\"query\":{\"geo_distance\":{\"p\":\"1,1\"}}}", 400,
               "\"type\":\"parsing_exception\",\"reason\":\"geo_distance requires 'distance' to be specified\"");
    EXPECT_HAS("POST", "/g/_search", "{\"query\":{\"geo_distance\":{\"distance\":\"12xkm\",\"p\":\"1,1\"}}}", 400,
               "\"type\":\"number_format_exception\",\"reason\":\"For input string: \\\"12x\\\"\"");
    EXPECT_HAS("POST", "/g/_search", "{\"query\":{\"geo_distance\":{\"distance\":0,\"p\":\"1,1\"}}}", 400,
               "distance must be greater than zero");
    EXPECT_HAS("POST", "/g/_search", "{\"query\":{\"geo_distance\":{\"distance\":1,\"unit\":\"ly\",\"p\":\"1,1\"}}}",
               400, "No distance unit match [ly]");
    EXPECT_HAS("POST", "/g/_search", "{\"query\":{\"geo_distance\":{\"distance\":1,\"nope\":\"1,1\"}}}", 400,
               "\"type\":\"query_shard_exception\",\"reason\":\"failed to find geo field [nope]\"");
}

static void test_geo_distance_sort(void **s) {
    (void)s;
    EXPECT("POST", "/g/_search" F, "{\"sort\":[{\"_geo_distance\":{\"p\":\"35.7796,-78.6382\",\"unit\":\"km\"}}]}", 200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"sort\":[681.3350456554737]},{\"_id\":\"3\",\"sort\":[1031.6653103809588]},"
           "{\"_id\":\"2\",\"sort\":[3591.7149247155503]},{\"_id\":\"4\",\"sort\":[\"Infinity\"]}]}}");
    /* a doc without a point sorts as +Infinity whatever the order; max
     * over every (value, point) pair; plane distances in meters */
    EXPECT("POST", "/g/_search" F,
           "{\"sort\":[{\"_geo_distance\":{\"p\":[[-78.6382,35.7796],{\"lat\":0,\"lon\":0}],\"mode\":\"max\","
           "\"order\":\"desc\",\"distance_type\":\"plane\"}}]}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"4\",\"sort\":[\"Infinity\"]},{\"_id\":\"2\",\"sort\":[1.3129685620875828E7]},"
           "{\"_id\":\"3\",\"sort\":[1.022270711536029E7]},{\"_id\":\"1\",\"sort\":[8945286.907152371]}]}}");
    EXPECT("POST", "/g/_search" F,
           "{\"sort\":[{\"_geo_distance\":{\"p\":\"35.7796,-78.6382\",\"unit\":\"km\"}}],"
           "\"search_after\":[1031.6653103809588]}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"sort\":[3591.7149247155503]},{\"_id\":\"4\",\"sort\":[\"Infinity\"]}]}}");
    EXPECT("POST", "/g/_search" F, "{\"sort\":[{\"_geo_distance\":{\"nope\":[0,0],\"ignore_unmapped\":true}},\"n\"]}", 200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"sort\":[\"Infinity\",1]},{\"_id\":\"2\",\"sort\":[\"Infinity\",2]},"
           "{\"_id\":\"3\",\"sort\":[\"Infinity\",3]},{\"_id\":\"4\",\"sort\":[\"Infinity\",4]}]}}");
    EXPECT_HAS("POST", "/g/_search", "{\"sort\":[{\"_geo_distance\":{\"p\":[0,0],\"mode\":\"sum\"}}]}", 400,
               "sort_mode [sum] isn't supported for sorting by geo distance");
    EXPECT_HAS("POST", "/g/_search", "{\"sort\":[{\"_geo_distance\":{\"nope\":[0,0]}}]}", 400,
               "failed to find mapper for [nope] for geo distance based sort");
    EXPECT_HAS("POST", "/g/_search", "{\"sort\":[{\"_geo_distance\":{\"p\":[0,100]}}]}", 400,
               "\"type\":\"parse_exception\",\"reason\":\"illegal latitude value [100.0] for [_geo_distance]\"");
    EXPECT_HAS("POST", "/g/_search", "{\"sort\":[{\"_geo_distance\":{\"p\":[0,0],\"x\":1}}]}", 400,
               "[_geo_distance] does not support [x]");
}

static void test_geo_distance_agg(void **s) {
    (void)s;
    EXPECT("POST", "/g/_search" F,
           "{\"size\":0,\"aggs\":{\"d\":{\"geo_distance\":{\"field\":\"p\",\"origin\":\"35.7796, -78.6382\","
           "\"ranges\":[{\"from\":1000000,\"to\":5000000},{\"to\":1000000},{\"from\":5000000}]}}}}",
           200,
           "{\"aggregations\":{\"d\":{\"buckets\":[{\"key\":\"*-1000000.0\",\"from\":0.0,\"to\":1000000.0,\"doc_count\":1},"
           "{\"key\":\"1000000.0-5000000.0\",\"from\":1000000.0,\"to\":5000000.0,\"doc_count\":2},"
           "{\"key\":\"5000000.0-*\",\"from\":5000000.0,\"doc_count\":1}]}}}");
    EXPECT("POST", "/g/_search" F "&typed_keys=true",
           "{\"size\":0,\"aggs\":{\"d\":{\"geo_distance\":{\"field\":\"p\",\"origin\":[-78.6382,35.7796],\"unit\":\"km\","
           "\"keyed\":true,\"ranges\":[{\"from\":1000,\"key\":\"far\"},{\"to\":1000}]}}}}",
           200,
           "{\"aggregations\":{\"geo_distance#d\":{\"buckets\":{\"*-1000.0\":{\"from\":0.0,\"to\":1000.0,\"doc_count\":1},"
           "\"far\":{\"from\":1000.0,\"doc_count\":2}}}}}");
    EXPECT("POST", "/g/_search" F,
           "{\"size\":0,\"aggs\":{\"d\":{\"geo_distance\":{\"field\":\"nope\",\"origin\":\"0,0\",\"ranges\":[{\"to\":1}]}}}}",
           200, "{\"aggregations\":{\"d\":{\"buckets\":[{\"key\":\"*-1.0\",\"from\":0.0,\"to\":1.0,\"doc_count\":0}]}}}");
    EXPECT_HAS("POST", "/g/_search",
               "{\"size\":0,\"aggs\":{\"d\":{\"geo_distance\":{\"field\":\"p\",\"ranges\":[{\"to\":1}]}}}}", 400,
               "Aggregation [d] must define an [origin].");
    EXPECT_HAS("POST", "/g/_search",
               "{\"size\":0,\"aggs\":{\"d\":{\"geo_distance\":{\"field\":\"n\",\"origin\":\"0,0\",\"ranges\":[{\"to\":1}]}}}}",
               400, "Field [n] of type [long] is not supported for aggregation [geo_distance]");
    EXPECT_HAS("POST", "/g/_search",
               "{\"size\":0,\"aggs\":{\"d\":{\"geo_distance\":{\"field\":\"p\",\"origin\":\"0,0\",\"unit\":\"ly\","
               "\"ranges\":[{\"to\":1}]}}}}",
               400, "[geo_distance] failed to parse field [unit]");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_geo_distance_query, setup_geo, teardown),
        cmocka_unit_test_setup_teardown(test_geo_distance_sort, setup_geo, teardown),
        cmocka_unit_test_setup_teardown(test_geo_distance_agg, setup_geo, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
