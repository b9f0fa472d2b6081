/* test_api_aggs_vwh.c — the variable_width_histogram aggregation through
 * trove_request: the buffered phase alone (every value its own cluster,
 * then the reduce's closest-centroid merges), the merge phase (values
 * after initial_buffer joining the nearest centroid or opening a cluster
 * while fewer than shard_size exist), overlapping bounds moved to their
 * midpoint, an unmapped field, and the builder's and shard's errors. */
#define API_TEST_MASK_TOOK
#include "api_test.h"

static int setup_vwh(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/w", "{\"mappings\":{\"properties\":{\"n\":{\"type\":\"integer\"},\"k\":{\"type\":\"keyword\"}}}}");
    static const int vals[] = {1, 2, 3, 10, 11, 12, 30, 31, 100, 101, 102, 103, 7, 50, 2};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        char path[32], body[32];
        snprintf(path, sizeof path, "/w/_doc/%zu", i);
        snprintf(body, sizeof body, "{\"n\":%d,\"k\":\"a\"}", vals[i]);
        OK("PUT", path, body);
    }
    OK("POST", "/w/_refresh", NULL);
    return 0;
}

#define F "/w/_search?filter_path=aggregations"

static void test_vwh_buckets(void **s) {
    (void)s;
    /* everything buffered: a cluster per value, the two 2s merged by
     * their equal centroids, then the closest centroids merged down to 3
     * (count-weighted: 48 / 8) */
    EXPECT("POST", F, "{\"size\":0,\"aggs\":{\"h\":{\"variable_width_histogram\":{\"field\":\"n\",\"buckets\":3}}}}", 200,
           "{\"aggregations\":{\"h\":{\"buckets\":[{\"min\":1.0,\"key\":6.0,\"max\":12.0,\"doc_count\":8},"
           "{\"min\":30.0,\"key\":37.0,\"max\":50.0,\"doc_count\":3},"
           "{\"min\":100.0,\"key\":101.5,\"max\":103.0,\"doc_count\":4}]}}}");
    /* the merge phase after 5 values: 7 and 2 join existing clusters,
     * 30 opens the fourth, 100..103 and 50 join it (shard_size 4) */
    EXPECT("POST", F,
           "{\"size\":0,\"aggs\":{\"h\":{\"variable_width_histogram\":{\"field\":\"n\",\"buckets\":3,\"shard_size\":4,"
           "\"initial_buffer\":5}}}}",
           200,
           "{\"aggregations\":{\"h\":{\"buckets\":[{\"min\":1.0,\"key\":1.6666666666666667,\"max\":2.0,\"doc_count\":3},"
           "{\"min\":3.0,\"key\":8.6,\"max\":12.0,\"doc_count\":5},"
           "{\"min\":30.0,\"key\":73.85714285714286,\"max\":103.0,\"doc_count\":7}]}}}");
    EXPECT("POST", F, "{\"size\":0,\"aggs\":{\"h\":{\"variable_width_histogram\":{\"field\":\"nope\"}}}}", 200,
           "{\"aggregations\":{\"h\":{\"buckets\":[]}}}");
    EXPECT("POST", F "&typed_keys=true",
           "{\"size\":0,\"query\":{\"term\":{\"n\":50}},\"aggs\":{\"h\":{\"variable_width_histogram\":{\"field\":\"n\"}}}}",
           200,
           "{\"aggregations\":{\"variable_width_histogram#h\":{\"buckets\":[{\"min\":50.0,\"key\":50.0,\"max\":50.0,"
           "\"doc_count\":1}]}}}");
}

static void test_vwh_errors(void **s) {
    (void)s;
    EXPECT_HAS("POST", F, "{\"aggs\":{\"h\":{\"variable_width_histogram\":{\"field\":\"n\",\"buckets\":0}}}}", 400,
               "buckets must be greater than [0] for [h]");
    EXPECT_HAS("POST", F, "{\"aggs\":{\"h\":{\"variable_width_histogram\":{\"field\":\"n\",\"shard_size\":1}}}}", 400,
               "shard_size must be greater than [1] for [h]");
    EXPECT_HAS("POST", F, "{\"aggs\":{\"h\":{\"variable_width_histogram\":{\"field\":\"n\",\"initial_buffer\":5}}}}", 400,
               "initial_buffer must be at least buckets but was [5<10] for [h]");
    EXPECT_HAS("POST", F, "{\"aggs\":{\"h\":{\"variable_width_histogram\":{\"field\":\"n\",\"shard_size\":12}}}}", 400,
               "3/4 of shard_size must be at least buckets but was [9<10] for [h]");
    EXPECT_HAS("POST", F, "{\"aggs\":{\"h\":{\"variable_width_histogram\":{\"field\":\"k\"}}}}", 400,
               "Field [k] of type [keyword] is not supported for aggregation [variable_width_histogram]");
    EXPECT_HAS("POST", F, "{\"aggs\":{\"h\":{\"variable_width_histogram\":{\"field\":\"n\",\"x\":1}}}}", 400,
               "[variable_width_histogram] unknown field [x]");
    EXPECT_HAS("POST", F,
               "{\"aggs\":{\"h\":{\"variable_width_histogram\":{\"field\":\"n\"},\"aggs\":{\"m\":{\"max\":{\"field\":\"n\"}}}}}}",
               400, "[variable_width_histogram] with sub-aggregations is not supported by trove");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_vwh_buckets, setup_vwh, teardown),
        cmocka_unit_test_setup_teardown(test_vwh_errors, setup_vwh, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
