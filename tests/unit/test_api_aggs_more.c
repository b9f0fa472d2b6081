/*
 * test_api_aggs_more.c — the aggregations added after the first set,
 * through trove_request: percentiles and percentile_ranks with the HDR
 * method (DoubleHistogram's values: highest equivalent values whose unit
 * depends on the smallest value), median_absolute_deviation, the moving_fn
 * pipeline (its MovingFunctions, window and shift, the validation errors,
 * Painless scripts refused by name), bucket_sort, adjacency_matrix,
 * auto_date_histogram (the rounding ladder, empty buckets, merged
 * consecutive buckets, the interval), histogram formats with literal
 * text, and the buckets_path resolution
 * errors OpenSearch words with the Java class it found.
 */
#define API_TEST_MASK_TOOK
#include "api_test.h"

#define HEAD "{\"took\":0,\"timed_out\":false,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0},"
#define HITS(n) "\"hits\":{\"total\":{\"value\":" #n ",\"relation\":\"eq\"},\"max_score\":null,\"hits\":[]},"

static int load(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/h", "{\"mappings\":{\"properties\":{\"v\":{\"type\":\"double\"},\"k\":{\"type\":\"keyword\"},\"d\":{\"type\":\"date\"},\"n\":{\"type\":\"integer\"}}}}");
    OK("POST", "/h/_bulk?refresh=true",
       "{\"index\":{\"_id\":\"1\"}}\n{\"v\":1,\"k\":\"a\",\"d\":\"2020-01-01\",\"n\":[1,2]}\n"
       "{\"index\":{\"_id\":\"2\"}}\n{\"v\":51,\"k\":\"b\",\"d\":\"2020-01-02\",\"n\":[2,3]}\n"
       "{\"index\":{\"_id\":\"3\"}}\n{\"v\":1101,\"k\":\"b\",\"d\":\"2020-01-03\",\"n\":[3,4]}\n"
       "{\"index\":{\"_id\":\"4\"}}\n{\"v\":1425497558138880,\"k\":\"c\",\"d\":\"2020-01-05\"}\n");
    return 0;
}

static void test_hdr(void **s) {
    (void)s;
    /* the smallest value is 1: 51 answers 51 + 31/1024, the largest its bucket's top */
    EXPECT("POST", "/h/_search", "{\"size\":0,\"aggs\":{\"p\":{\"percentiles\":{\"field\":\"v\",\"percents\":[0,50,75,99],\"hdr\":{}}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"p\":{\"values\":{\"0.0\":1.0,\"50.0\":51.0302734375,\"75.0\":1101.9990234375,"
                        "\"99.0\":1.426066581225472E15}}}}");
    /* without the 1 (smallest 51: unit 1/4 at two digits), 1101 is 1096 + 8 - 1/4 */
    EXPECT("POST", "/h/_search",
           "{\"size\":0,\"query\":{\"range\":{\"v\":{\"gte\":50}}},\"aggs\":{\"p\":{\"percentiles\":{\"field\":\"v\",\"percents\":[50],\"keyed\":false,"
           "\"hdr\":{\"number_of_significant_value_digits\":2}}}}}", 200,
           HEAD HITS(3) "\"aggregations\":{\"p\":{\"values\":[{\"key\":50.0,\"value\":1103.75}]}}}");
    /* ranks: the share of values at or below the value's bucket */
    EXPECT("POST", "/h/_search", "{\"size\":0,\"aggs\":{\"r\":{\"percentile_ranks\":{\"field\":\"v\",\"values\":[0.5,51,2000],\"hdr\":{}}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"r\":{\"values\":{\"0.5\":0.0,\"51.0\":50.0,\"2000.0\":75.0}}}}");
    /* typed_keys names the HDR variants; nothing recorded prints null */
    EXPECT("POST", "/h/_search?typed_keys=true",
           "{\"size\":0,\"query\":{\"term\":{\"k\":\"zz\"}},\"aggs\":{\"p\":{\"percentiles\":{\"field\":\"v\",\"percents\":[50],\"hdr\":{}}}}}", 200,
           HEAD HITS(0) "\"aggregations\":{\"hdr_percentiles#p\":{\"values\":{\"50.0\":null}}}}");
    EXPECT_HAS("POST", "/h/_search", "{\"aggs\":{\"p\":{\"percentiles\":{\"field\":\"v\",\"hdr\":{\"number_of_significant_value_digits\":6}}}}}", 400,
               "[numberOfSignificantValueDigits] must be between 0 and 5");
    EXPECT_HAS("POST", "/h/_search", "{\"aggs\":{\"p\":{\"percentiles\":{\"field\":\"v\",\"hdr\":{},\"tdigest\":{}}}}}", 400,
               "Only one percentiles method should be declared.");
    EXPECT_HAS("POST", "/h/_search", "{\"aggs\":{\"p\":{\"percentiles\":{\"field\":\"v\",\"hdr\":{\"x\":1}}}}}", 400,
               "[hdr] unknown field [x]");
}

static void test_mad(void **s) {
    (void)s;
    /* values 1, 2, 3 (n, per doc) -> |x - 2.5|... median of deviations */
    EXPECT("POST", "/h/_search", "{\"size\":0,\"aggs\":{\"m\":{\"median_absolute_deviation\":{\"field\":\"n\"}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"m\":{\"value\":1.0}}}");
    EXPECT("POST", "/h/_search",
           "{\"size\":0,\"query\":{\"term\":{\"k\":\"zz\"}},\"aggs\":{\"m\":{\"median_absolute_deviation\":{\"field\":\"n\",\"compression\":50}}}}", 200,
           HEAD HITS(0) "\"aggregations\":{\"m\":{\"value\":null}}}");
    EXPECT_HAS("POST", "/h/_search", "{\"aggs\":{\"m\":{\"median_absolute_deviation\":{\"field\":\"n\",\"compression\":0}}}}", 400,
               "[compression] must be greater than 0. Found [0.0] in [m]");
}

#define DH "{\"size\":0,\"aggs\":{\"h\":{\"date_histogram\":{\"field\":\"d\",\"calendar_interval\":\"1d\"},\"aggs\":{\"a\":{\"max\":{\"field\":\"v\"}},"

static void test_moving_fn(void **s) {
    (void)s;
    /* window 2: the two previous buckets with a value; the empty 01-04 is skipped */
    EXPECT("POST", "/h/_search", DH "\"m\":{\"moving_fn\":{\"buckets_path\":\"a\",\"window\":2,\"script\":\"MovingFunctions.sum(values)\"}}}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"h\":{\"buckets\":["
                        "{\"key_as_string\":\"2020-01-01T00:00:00.000Z\",\"key\":1577836800000,\"doc_count\":1,\"a\":{\"value\":1.0},\"m\":{\"value\":0.0}},"
                        "{\"key_as_string\":\"2020-01-02T00:00:00.000Z\",\"key\":1577923200000,\"doc_count\":1,\"a\":{\"value\":51.0},\"m\":{\"value\":1.0}},"
                        "{\"key_as_string\":\"2020-01-03T00:00:00.000Z\",\"key\":1578009600000,\"doc_count\":1,\"a\":{\"value\":1101.0},\"m\":{\"value\":52.0}},"
                        "{\"key_as_string\":\"2020-01-04T00:00:00.000Z\",\"key\":1578096000000,\"doc_count\":0,\"a\":{\"value\":null}},"
                        "{\"key_as_string\":\"2020-01-05T00:00:00.000Z\",\"key\":1578182400000,\"doc_count\":1,\"a\":{\"value\":1.42549755813888E15},\"m\":{\"value\":1152.0}}]}}}");
    /* shift 1 takes the bucket itself; max of nothing is null; params feed arguments */
    EXPECT_HAS("POST", "/h/_search", DH "\"m\":{\"moving_fn\":{\"buckets_path\":\"a\",\"window\":1,\"shift\":1,\"script\":\"MovingFunctions.max(values)\"}}}}}}", 200,
               "\"a\":{\"value\":51.0},\"m\":{\"value\":51.0}");
    EXPECT_HAS("POST", "/h/_search", DH "\"m\":{\"moving_fn\":{\"buckets_path\":\"a\",\"window\":1,\"script\":\"MovingFunctions.max(values)\"}}}}}}", 200,
               "\"a\":{\"value\":1.0},\"m\":{\"value\":null}");
    EXPECT_HAS("POST", "/h/_search",
               DH "\"m\":{\"moving_fn\":{\"buckets_path\":\"a\",\"window\":2,\"script\":{\"source\":\"return MovingFunctions.ewma(values, params.al);\",\"params\":{\"al\":0.5}}}}}}}}", 200,
               "\"a\":{\"value\":1101.0},\"m\":{\"value\":26.0}");
    /* errors: window at parse, the parent at validation, Painless's compile error at parse */
    EXPECT_HAS("POST", "/h/_search", DH "\"m\":{\"moving_fn\":{\"buckets_path\":\"a\",\"window\":0,\"script\":\"MovingFunctions.max(values)\"}}}}}}", 400,
               "[window] must be a positive, non-zero integer.");
    EXPECT_HAS("POST", "/h/_search", "{\"aggs\":{\"m\":{\"moving_fn\":{\"buckets_path\":\"a\",\"script\":\"x\"}}}}", 400, "Required [window]");
    EXPECT_HAS("POST", "/h/_search",
               "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"a\":{\"max\":{\"field\":\"v\"}},\"m\":{\"moving_fn\":{\"buckets_path\":\"a\",\"window\":2,\"script\":\"MovingFunctions.max(values)\"}}}}}}",
               400, "moving_fn aggregation [m] must have a histogram, date_histogram or auto_date_histogram as parent");
    EXPECT_HAS("POST", "/h/_search", DH "\"m\":{\"moving_fn\":{\"buckets_path\":\"a\",\"window\":2,\"script\":\"values +\"}}}}}}", 400,
               "\"type\":\"script_exception\",\"reason\":\"compile error\"");
}

static void test_bucket_sort(void **s) {
    (void)s;
    EXPECT("POST", "/h/_search",
           "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"s\":{\"sum\":{\"field\":\"v\"}},\"b\":{\"bucket_sort\":{\"sort\":[{\"s\":\"desc\"}],\"size\":2}}}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"t\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":["
                        "{\"key\":\"c\",\"doc_count\":1,\"s\":{\"value\":1.42549755813888E15}},{\"key\":\"b\",\"doc_count\":2,\"s\":{\"value\":1152.0}}]}}}");
    EXPECT("POST", "/h/_search", "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"b\":{\"bucket_sort\":{\"sort\":\"_key\",\"from\":1}}}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"t\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":["
                        "{\"key\":\"b\",\"doc_count\":2},{\"key\":\"c\",\"doc_count\":1}]}}}");
    EXPECT_HAS("POST", "/h/_search", "{\"aggs\":{\"b\":{\"bucket_sort\":{\"size\":1}}}}", 400,
               "bucket_sort aggregation [b] must be declared inside of another aggregation");
    EXPECT_HAS("POST", "/h/_search", "{\"aggs\":{\"t\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"b\":{\"bucket_sort\":{}}}}}}", 400,
               "[b] is configured to perform nothing. Please set either of [sort, size, from] to use bucket_sort");
    EXPECT_HAS("POST", "/h/_search", "{\"aggs\":{\"t\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"b\":{\"bucket_sort\":{\"size\":0}}}}}}", 400,
               "[size] must be a positive integer: [0]");
}

static void test_adjacency_matrix(void **s) {
    (void)s;
    /* filters sorted by key, intersections keyed with the separator, empty buckets left out */
    EXPECT("POST", "/h/_search",
           "{\"size\":0,\"aggs\":{\"m\":{\"adjacency_matrix\":{\"separator\":\"+\",\"filters\":{\"z\":{\"term\":{\"n\":4}},\"a\":{\"term\":{\"n\":2}},\"m\":{\"term\":{\"n\":3}}}}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"m\":{\"buckets\":[{\"key\":\"a\",\"doc_count\":2},{\"key\":\"a+m\",\"doc_count\":1},"
                        "{\"key\":\"m\",\"doc_count\":2},{\"key\":\"m+z\",\"doc_count\":1},{\"key\":\"z\",\"doc_count\":1}]}}}");
    EXPECT("POST", "/h/_search",
           "{\"size\":0,\"aggs\":{\"m\":{\"adjacency_matrix\":{\"show_only_intersecting\":true,\"filters\":{\"a\":{\"term\":{\"n\":2}},\"b\":{\"term\":{\"n\":3}}}},"
           "\"aggs\":{\"x\":{\"max\":{\"field\":\"v\"}}}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"m\":{\"buckets\":[{\"key\":\"a&b\",\"doc_count\":1,\"x\":{\"value\":51.0}}]}}}");
    EXPECT_HAS("POST", "/h/_search", "{\"aggs\":{\"m\":{\"adjacency_matrix\":{}}}}", 400, "[m] is missing : filters parameter");
}

static void test_formats_and_paths(void **s) {
    (void)s;
    EXPECT_HAS("POST", "/h/_search", "{\"size\":0,\"aggs\":{\"h\":{\"histogram\":{\"field\":\"n\",\"interval\":2,\"format\":\"'#'0.0 units\"}}}}", 200,
               "{\"key_as_string\":\"#0.0 units\",\"key\":0.0,\"doc_count\":1}");
    EXPECT_HAS("POST", "/h/_search", "{\"size\":0,\"aggs\":{\"h\":{\"histogram\":{\"field\":\"n\",\"interval\":2,\"format\":\"Value is ##0.0\"}}}}", 200,
               "{\"key_as_string\":\"Value is 2.0\",\"key\":2.0,\"doc_count\":3}");
    EXPECT_HAS("POST", "/h/_search",
               "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"u\":{\"terms\":{\"field\":\"k\"}}}},\"x\":{\"max_bucket\":{\"buckets_path\":\"t>u\"}}}}", 400,
               "got: [StringTerms] at aggregation [u]");
    EXPECT_HAS("POST", "/h/_search",
               "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"u\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"m\":{\"max\":{\"field\":\"v\"}}}}}},"
               "\"x\":{\"max_bucket\":{\"buckets_path\":\"t>u>m\"}}}}", 400,
               "got: [Object[]] at aggregation [u]");
}

static void test_auto_date_histogram(void **s) {
    (void)s;
    /* 01-01 .. 01-05 in days is 5 buckets: two fit with 7 days per bucket */
    EXPECT("POST", "/h/_search", "{\"size\":0,\"aggs\":{\"a\":{\"auto_date_histogram\":{\"field\":\"d\",\"buckets\":2},\"aggs\":{\"s\":{\"sum\":{\"field\":\"n\"}}}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"a\":{\"buckets\":[{\"key_as_string\":\"2020-01-01T00:00:00.000Z\",\"key\":1577836800000,\"doc_count\":4,"
                        "\"s\":{\"value\":15.0}}],\"interval\":\"7d\"}}}");
    /* ten buckets: the shard climbed to hours (two days apart is past
     * 10 * 30 minutes), 97 hours with the empty ones fit in nine 12-hour
     * buckets */
    EXPECT_HAS("POST", "/h/_search", "{\"size\":0,\"aggs\":{\"a\":{\"auto_date_histogram\":{\"field\":\"d\"}}}}", 200,
               "{\"key_as_string\":\"2020-01-04T12:00:00.000Z\",\"key\":1578139200000,\"doc_count\":0},"
               "{\"key_as_string\":\"2020-01-05T00:00:00.000Z\",\"key\":1578182400000,\"doc_count\":1}],\"interval\":\"12h\"}");
    /* minimum_interval starts the ladder at months */
    EXPECT_HAS("POST", "/h/_search", "{\"size\":0,\"aggs\":{\"a\":{\"auto_date_histogram\":{\"field\":\"d\",\"minimum_interval\":\"month\"}}}}", 200,
               "\"buckets\":[{\"key_as_string\":\"2020-01-01T00:00:00.000Z\",\"key\":1577836800000,\"doc_count\":4}],\"interval\":\"1M\"");
    /* nothing matched: no buckets, the first rung */
    EXPECT_HAS("POST", "/h/_search", "{\"size\":0,\"query\":{\"term\":{\"k\":\"zz\"}},\"aggs\":{\"a\":{\"auto_date_histogram\":{\"field\":\"d\"}}}}", 200,
               "\"a\":{\"buckets\":[],\"interval\":\"1s\"}");
    EXPECT_HAS("POST", "/h/_search", "{\"aggs\":{\"a\":{\"auto_date_histogram\":{\"field\":\"d\",\"buckets\":0}}}}", 400,
               "buckets must be greater than 0 for [a]");
    EXPECT_HAS("POST", "/h/_search", "{\"aggs\":{\"a\":{\"auto_date_histogram\":{\"field\":\"d\",\"minimum_interval\":\"week\"}}}}", 400,
               "minimum_interval must be one of");
    EXPECT_HAS("POST", "/h/_search", "{\"aggs\":{\"a\":{\"auto_date_histogram\":{\"field\":\"d\",\"buckets\":656}}}}", 400,
               "buckets must be less than 655");
    EXPECT_HAS("POST", "/h/_search",
               "{\"aggs\":{\"t\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"a\":{\"auto_date_histogram\":{\"field\":\"d\"}}}}}}", 400,
               "[auto_date_histogram] under a multi-bucket aggregation is not supported by trove");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hdr),
        cmocka_unit_test(test_mad),
        cmocka_unit_test(test_moving_fn),
        cmocka_unit_test(test_bucket_sort),
        cmocka_unit_test(test_adjacency_matrix),
        cmocka_unit_test(test_formats_and_paths),
        cmocka_unit_test(test_auto_date_histogram),
    };
    return cmocka_run_group_tests(tests, load, teardown);
}
