/*
 * test_api_aggs.c — aggregations through trove_request: the response
 * shapes (field order, key printing, typed_keys, meta), the bucket rules
 * (order, size, sum_other_doc_count, min_doc_count 0, empty histogram
 * buckets, filters sorted by name, ranges sorted by from), metrics on
 * numbers and dates, pipelines, time zones, two indices, and the errors
 * (parse-time wrappers, shard failures, unsupported types, bucket limit).
 *
 * Expected bodies follow OpenSearch 3.x's rules: sibling aggregations
 * come out in Java HashMap order of their names (single letters: by
 * their code modulo 16), pipelines after the regular ones.
 */
#define API_TEST_MASK_TOOK
#include "api_test.h"
#include "json/json.h"

#define HEAD "{\"took\":0,\"timed_out\":false,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0},"
#define HITS(n) "\"hits\":{\"total\":{\"value\":" #n ",\"relation\":\"eq\"},\"max_score\":null,\"hits\":[]},"

static int load(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/a",
       "{\"mappings\":{\"properties\":{\"tag\":{\"type\":\"keyword\"},\"n\":{\"type\":\"long\"},\"p\":{\"type\":\"double\"},"
       "\"d\":{\"type\":\"date\"},\"b\":{\"type\":\"boolean\"},\"t\":{\"type\":\"text\"},\"ip\":{\"type\":\"ip\"}}}}");
    OK("POST", "/a/_bulk?refresh=true",
       "{\"index\":{\"_id\":\"1\"}}\n{\"tag\":[\"x\",\"y\"],\"n\":1,\"p\":1.5,\"d\":\"2021-01-01T10:00:00Z\",\"b\":true,\"t\":\"hello\",\"ip\":\"10.0.0.1\"}\n"
       "{\"index\":{\"_id\":\"2\"}}\n{\"tag\":\"x\",\"n\":2,\"p\":2.5,\"d\":\"2021-01-02T10:00:00Z\",\"b\":false}\n"
       "{\"index\":{\"_id\":\"3\"}}\n{\"tag\":\"z\",\"n\":5,\"d\":\"2021-02-01T00:00:00Z\",\"ip\":\"10.0.0.1\"}\n"
       "{\"index\":{\"_id\":\"4\"}}\n{\"tag\":\"x\",\"p\":0.5}\n");
    OK("PUT", "/b", "{\"mappings\":{\"properties\":{\"tag\":{\"type\":\"keyword\"},\"n\":{\"type\":\"double\"}}}}");
    OK("POST", "/b/_bulk?refresh=true",
       "{\"index\":{\"_id\":\"1\"}}\n{\"tag\":\"x\",\"n\":1.5}\n{\"index\":{\"_id\":\"2\"}}\n{\"tag\":\"w\",\"n\":7}\n");
    OK("PUT", "/empty", "{\"mappings\":{\"properties\":{\"tag\":{\"type\":\"keyword\"},\"n\":{\"type\":\"long\"}}}}");
    return 0;
}

static void test_terms(void **s) {
    (void)s;
    /* size cut: the rest goes to sum_other_doc_count; _key order */
    EXPECT("POST", "/a/_search", "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"tag\",\"order\":{\"_key\":\"desc\"},\"size\":2}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"t\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":3,\"buckets\":["
                        "{\"key\":\"z\",\"doc_count\":1},{\"key\":\"y\",\"doc_count\":1}]}}}");
    /* count desc, then key asc; min_doc_count 0 lists unmatched terms */
    EXPECT("POST", "/a/_search", "{\"size\":0,\"query\":{\"term\":{\"tag\":\"z\"}},\"aggs\":{\"t\":{\"terms\":{\"field\":\"tag\",\"min_doc_count\":0}}}}", 200,
           HEAD HITS(1) "\"aggregations\":{\"t\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":["
                        "{\"key\":\"z\",\"doc_count\":1},{\"key\":\"x\",\"doc_count\":0},{\"key\":\"y\",\"doc_count\":0}]}}}");
    /* booleans: key 0/1 with key_as_string; ip keys print the address */
    EXPECT("POST", "/a/_search", "{\"size\":0,\"aggs\":{\"b\":{\"terms\":{\"field\":\"b\"}},\"i\":{\"terms\":{\"field\":\"ip\"}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"b\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":["
                        "{\"key\":0,\"key_as_string\":\"false\",\"doc_count\":1},{\"key\":1,\"key_as_string\":\"true\",\"doc_count\":1}]},"
                        "\"i\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":[{\"key\":\"10.0.0.1\",\"doc_count\":2}]}}}");
    /* order by a sub-aggregation; include/exclude */
    EXPECT("POST", "/a/_search",
           "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"tag\",\"exclude\":[\"y\"],\"order\":{\"m\":\"desc\"}},\"aggs\":{\"m\":{\"max\":{\"field\":\"n\"}}}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"t\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":["
                        "{\"key\":\"z\",\"doc_count\":1,\"m\":{\"value\":5.0}},{\"key\":\"x\",\"doc_count\":3,\"m\":{\"value\":2.0}}]}}}");
    EXPECT("POST", "/a/_search", "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"tag\",\"include\":\"[xz]\"}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"t\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":["
                        "{\"key\":\"x\",\"doc_count\":3},{\"key\":\"z\",\"doc_count\":1}]}}}");
    /* unmapped and empty */
    EXPECT("POST", "/empty/_search", "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"nope\"}}}}", 200,
           HEAD "\"hits\":{\"total\":{\"value\":0,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[]},"
                "\"aggregations\":{\"t\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":[]}}}");
}

static void test_typed_keys_and_single_buckets(void **s) {
    (void)s;
    /* post_filter does not reach the aggregations; siblings in HashMap order (t, f, g, h, m) */
    EXPECT("POST", "/a/_search?typed_keys=true",
           "{\"size\":0,\"query\":{\"term\":{\"tag\":\"x\"}},\"post_filter\":{\"term\":{\"n\":1}},\"aggs\":{"
           "\"t\":{\"terms\":{\"field\":\"n\"},\"aggs\":{\"m\":{\"max\":{\"field\":\"p\"}}}},"
           "\"h\":{\"histogram\":{\"field\":\"p\",\"interval\":1,\"extended_bounds\":{\"min\":-1,\"max\":4}}},"
           "\"f\":{\"filter\":{\"term\":{\"tag\":\"x\"}},\"aggs\":{\"s\":{\"sum\":{\"field\":\"n\"}}}},"
           "\"m\":{\"missing\":{\"field\":\"n\"},\"meta\":{\"k\":[1]}},\"g\":{\"global\":{},\"aggs\":{\"c\":{\"value_count\":{\"field\":\"tag\"}}}}}}", 200,
           HEAD "\"hits\":{\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[]},\"aggregations\":{"
                "\"lterms#t\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":[{\"key\":1,\"doc_count\":1,\"max#m\":{\"value\":1.5}},"
                "{\"key\":2,\"doc_count\":1,\"max#m\":{\"value\":2.5}}]},"
                "\"filter#f\":{\"doc_count\":3,\"sum#s\":{\"value\":3.0}},\"global#g\":{\"doc_count\":4,\"value_count#c\":{\"value\":5}},"
                "\"histogram#h\":{\"buckets\":[{\"key\":-1.0,\"doc_count\":0},{\"key\":0.0,\"doc_count\":1},{\"key\":1.0,\"doc_count\":1},"
                "{\"key\":2.0,\"doc_count\":1},{\"key\":3.0,\"doc_count\":0},{\"key\":4.0,\"doc_count\":0}]},"
                "\"missing#m\":{\"meta\":{\"k\":[1]},\"doc_count\":1}}}");
}

static void test_ranges_filters_stats(void **s) {
    (void)s;
    EXPECT("POST", "/a/_search",
           "{\"size\":0,\"aggs\":{\"fs\":{\"filters\":{\"filters\":{\"xs\":{\"term\":{\"tag\":\"x\"}},\"big\":{\"range\":{\"n\":{\"gte\":2}}}},\"other_bucket\":true}},"
           "\"fa\":{\"filters\":{\"filters\":[{\"term\":{\"tag\":\"z\"}}]}},"
           "\"dr\":{\"date_range\":{\"field\":\"d\",\"ranges\":[{\"from\":\"2021-01-02\"},{\"to\":\"2021-01-02\"}]}},\"st\":{\"stats\":{\"field\":\"d\"}},"
           "\"r\":{\"range\":{\"field\":\"n\",\"keyed\":true,\"ranges\":[{\"to\":2},{\"key\":\"two+\",\"from\":2}]}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"st\":{\"count\":3,\"min\":1.6094952E12,\"max\":1.6121376E12,\"avg\":1.6104048E12,\"sum\":4.8312144E12,"
                        "\"min_as_string\":\"2021-01-01T10:00:00.000Z\",\"max_as_string\":\"2021-02-01T00:00:00.000Z\","
                        "\"avg_as_string\":\"2021-01-11T22:40:00.000Z\",\"sum_as_string\":\"2123-02-04T20:00:00.000Z\"},"
                        "\"r\":{\"buckets\":{\"*-2.0\":{\"to\":2.0,\"doc_count\":1},\"two+\":{\"from\":2.0,\"doc_count\":2}}},"
                        "\"fa\":{\"buckets\":[{\"doc_count\":1}]},\"fs\":{\"buckets\":{\"big\":{\"doc_count\":2},\"xs\":{\"doc_count\":3},\"_other_\":{\"doc_count\":0}}},"
                        "\"dr\":{\"buckets\":[{\"key\":\"*-2021-01-02T00:00:00.000Z\",\"to\":1.6095456E12,\"to_as_string\":\"2021-01-02T00:00:00.000Z\",\"doc_count\":1},"
                        "{\"key\":\"2021-01-02T00:00:00.000Z-*\",\"from\":1.6095456E12,\"from_as_string\":\"2021-01-02T00:00:00.000Z\",\"doc_count\":2}]}}}");
    /* empty metrics */
    EXPECT("POST", "/empty/_search",
           "{\"size\":0,\"aggs\":{\"a\":{\"avg\":{\"field\":\"n\"}},\"s\":{\"sum\":{\"field\":\"n\"}},\"m\":{\"min\":{\"field\":\"n\"}},"
           "\"v\":{\"value_count\":{\"field\":\"n\"}},\"st\":{\"stats\":{\"field\":\"n\"}},\"c\":{\"cardinality\":{\"field\":\"tag\"}}}}", 200,
           HEAD "\"hits\":{\"total\":{\"value\":0,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[]},\"aggregations\":{"
                "\"a\":{\"value\":null},\"st\":{\"count\":0,\"min\":null,\"max\":null,\"avg\":null,\"sum\":0.0},\"s\":{\"value\":0.0},"
                "\"c\":{\"value\":0},\"v\":{\"value\":0},\"m\":{\"value\":null}}}");
    EXPECT("POST", "/a/_search",
           "{\"size\":0,\"aggs\":{\"e\":{\"extended_stats\":{\"field\":\"n\"}},\"w\":{\"weighted_avg\":{\"value\":{\"field\":\"p\"},\"weight\":{\"field\":\"n\"}}},"
           "\"c\":{\"cardinality\":{\"field\":\"tag\"}},\"q\":{\"percentiles\":{\"field\":\"n\",\"percents\":[50,100]}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"q\":{\"values\":{\"50.0\":2.0,\"100.0\":5.0}},\"c\":{\"value\":3},"
                        "\"e\":{\"count\":3,\"min\":1.0,\"max\":5.0,\"avg\":2.6666666666666665,\"sum\":8.0,\"sum_of_squares\":30.0,"
                        "\"variance\":2.8888888888888893,\"variance_population\":2.8888888888888893,\"variance_sampling\":4.333333333333334,"
                        "\"std_deviation\":1.699673171197595,\"std_deviation_population\":1.699673171197595,\"std_deviation_sampling\":2.081665999466133,"
                        "\"std_deviation_bounds\":{\"upper\":6.066013009061857,\"lower\":-0.7326796757285234,\"upper_population\":6.066013009061857,"
                        "\"lower_population\":-0.7326796757285234,\"upper_sampling\":6.829998665598932,\"lower_sampling\":-1.4966653322655996}},"
                        "\"w\":{\"value\":2.1666666666666665}}}");
}

static void test_dates_and_pipelines(void **s) {
    (void)s;
    EXPECT("POST", "/a/_search",
           "{\"size\":0,\"aggs\":{\"h\":{\"date_histogram\":{\"field\":\"d\",\"calendar_interval\":\"day\",\"time_zone\":\"America/New_York\",\"min_doc_count\":1}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"h\":{\"buckets\":[{\"key_as_string\":\"2021-01-01T00:00:00.000-05:00\",\"key\":1609477200000,\"doc_count\":1},"
                        "{\"key_as_string\":\"2021-01-02T00:00:00.000-05:00\",\"key\":1609563600000,\"doc_count\":1},"
                        "{\"key_as_string\":\"2021-01-31T00:00:00.000-05:00\",\"key\":1612069200000,\"doc_count\":1}]}}}");
    EXPECT("POST", "/a/_search",
           "{\"size\":0,\"aggs\":{\"h\":{\"date_histogram\":{\"field\":\"d\",\"calendar_interval\":\"month\"},\"aggs\":{\"c\":{\"cumulative_sum\":{\"buckets_path\":\"_count\"}},"
           "\"dv\":{\"derivative\":{\"buckets_path\":\"_count\"}}}},\"mb\":{\"max_bucket\":{\"buckets_path\":\"h>_count\"}},\"sb\":{\"sum_bucket\":{\"buckets_path\":\"h>_count\"}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"h\":{\"buckets\":[{\"key_as_string\":\"2021-01-01T00:00:00.000Z\",\"key\":1609459200000,\"doc_count\":2,\"c\":{\"value\":2.0}},"
                        "{\"key_as_string\":\"2021-02-01T00:00:00.000Z\",\"key\":1612137600000,\"doc_count\":1,\"c\":{\"value\":3.0},\"dv\":{\"value\":-1.0}}]},"
                        "\"mb\":{\"value\":2.0,\"keys\":[\"2021-01-01T00:00:00.000Z\"]},\"sb\":{\"value\":3.0}}}");
}

static void test_two_indices(void **s) {
    (void)s;
    /* long and double terms reduce as doubles; the shards' results merge by key */
    EXPECT("POST", "/a,b/_search", "{\"size\":0,\"aggs\":{\"n\":{\"terms\":{\"field\":\"n\"}},\"s\":{\"sum\":{\"field\":\"n\"}}}}", 200,
           "{\"took\":0,\"timed_out\":false,\"_shards\":{\"total\":2,\"successful\":2,\"skipped\":0,\"failed\":0},"
           "\"hits\":{\"total\":{\"value\":6,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[]},\"aggregations\":{\"s\":{\"value\":16.5},"
           "\"n\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":[{\"key\":1.0,\"doc_count\":1},{\"key\":1.5,\"doc_count\":1},"
           "{\"key\":2.0,\"doc_count\":1},{\"key\":5.0,\"doc_count\":1},{\"key\":7.0,\"doc_count\":1}]}}}");
}

/* composite (paging with after, desc and missing_bucket) and multi_terms */
static void test_composite_multi_terms(void **s) {
    (void)s;
    EXPECT("POST", "/a/_search",
           "{\"size\":0,\"aggs\":{\"c\":{\"composite\":{\"sources\":[{\"t\":{\"terms\":{\"field\":\"tag\"}}},"
           "{\"h\":{\"histogram\":{\"field\":\"p\",\"interval\":1,\"missing_bucket\":true,\"order\":\"desc\"}}}]}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"c\":{\"after_key\":{\"t\":\"z\",\"h\":null},\"buckets\":["
                        "{\"key\":{\"t\":\"x\",\"h\":2.0},\"doc_count\":1},{\"key\":{\"t\":\"x\",\"h\":1.0},\"doc_count\":1},"
                        "{\"key\":{\"t\":\"x\",\"h\":0.0},\"doc_count\":1},{\"key\":{\"t\":\"y\",\"h\":1.0},\"doc_count\":1},"
                        "{\"key\":{\"t\":\"z\",\"h\":null},\"doc_count\":1}]}}}");
    EXPECT("POST", "/a/_search",
           "{\"size\":0,\"aggs\":{\"c\":{\"composite\":{\"size\":2,\"sources\":[{\"t\":{\"terms\":{\"field\":\"tag\"}}},"
           "{\"d\":{\"date_histogram\":{\"field\":\"d\",\"calendar_interval\":\"month\"}}}],\"after\":{\"t\":\"x\",\"d\":1609459200000}},"
           "\"aggs\":{\"m\":{\"max\":{\"field\":\"n\"}}}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"c\":{\"after_key\":{\"t\":\"z\",\"d\":1612137600000},\"buckets\":["
                        "{\"key\":{\"t\":\"y\",\"d\":1609459200000},\"doc_count\":1,\"m\":{\"value\":1.0}},"
                        "{\"key\":{\"t\":\"z\",\"d\":1612137600000},\"doc_count\":1,\"m\":{\"value\":5.0}}]}}}");
    EXPECT("POST", "/a/_search?typed_keys=true",
           "{\"size\":0,\"aggs\":{\"m\":{\"multi_terms\":{\"terms\":[{\"field\":\"tag\"},{\"field\":\"b\"}],\"size\":2}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"multi_terms#m\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":1,\"buckets\":["
                        "{\"key\":[\"x\",false],\"key_as_string\":\"x|false\",\"doc_count\":1},"
                        "{\"key\":[\"x\",true],\"key_as_string\":\"x|true\",\"doc_count\":1}]}}}");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"c\":{\"composite\":{\"sources\":[]}}}}", 400,
               "\"reason\":\"Composite [sources] cannot be null or empty\"");
    EXPECT_HAS("POST", "/a/_search",
               "{\"aggs\":{\"t\":{\"terms\":{\"field\":\"tag\"},\"aggs\":{\"c\":{\"composite\":{\"sources\":[{\"x\":{\"terms\":{\"field\":\"n\"}}}]}}}}}}", 400,
               "\"reason\":\"[composite] aggregation cannot be used with a parent aggregation of type: [terms]\"");
}

/* top_hits: best by score per bucket (source filtering), or by a field
 * with version; _score null and max_score null under a field sort */
static void test_top_hits(void **s) {
    (void)s;
    EXPECT("POST", "/a/_search",
           "{\"size\":0,\"query\":{\"match\":{\"t\":\"hello\"}},\"aggs\":{\"t\":{\"terms\":{\"field\":\"tag\"},"
           "\"aggs\":{\"top\":{\"top_hits\":{\"size\":1,\"_source\":[\"n\"]}}}}}}", 200,
           HEAD HITS(1) "\"aggregations\":{\"t\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":["
                        "{\"key\":\"x\",\"doc_count\":1,\"top\":{\"hits\":{\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":0.13076457,"
                        "\"hits\":[{\"_index\":\"a\",\"_id\":\"1\",\"_score\":0.13076457,\"_source\":{\"n\":1}}]}}},"
                        "{\"key\":\"y\",\"doc_count\":1,\"top\":{\"hits\":{\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":0.13076457,"
                        "\"hits\":[{\"_index\":\"a\",\"_id\":\"1\",\"_score\":0.13076457,\"_source\":{\"n\":1}}]}}}]}}}");
    EXPECT("POST", "/a/_search", "{\"size\":0,\"aggs\":{\"top\":{\"top_hits\":{\"sort\":[{\"n\":\"desc\"}],\"size\":2,\"from\":1,\"version\":true,\"_source\":false}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"top\":{\"hits\":{\"total\":{\"value\":4,\"relation\":\"eq\"},\"max_score\":null,\"hits\":["
                        "{\"_index\":\"a\",\"_id\":\"2\",\"_version\":1,\"_score\":null,\"sort\":[2]},"
                        "{\"_index\":\"a\",\"_id\":\"1\",\"_version\":1,\"_score\":null,\"sort\":[1]}]}}}}");
    /* rest_total_hits_as_int: top_hits' total is a number too (SearchHits) */
    EXPECT("POST", "/a/_search?rest_total_hits_as_int=true&filter_path=aggregations.top.hits.total",
           "{\"size\":0,\"aggs\":{\"top\":{\"top_hits\":{\"size\":1}}}}", 200,
           "{\"aggregations\":{\"top\":{\"hits\":{\"total\":4}}}}");
    /* the object form of a sort key ({"order": ...}) reads the same */
    EXPECT("POST", "/a/_search", "{\"size\":0,\"aggs\":{\"top\":{\"top_hits\":{\"sort\":[{\"n\":{\"order\":\"desc\"}}],\"size\":2,\"from\":1,\"version\":true,\"_source\":false}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"top\":{\"hits\":{\"total\":{\"value\":4,\"relation\":\"eq\"},\"max_score\":null,\"hits\":["
                        "{\"_index\":\"a\",\"_id\":\"2\",\"_version\":1,\"_score\":null,\"sort\":[2]},"
                        "{\"_index\":\"a\",\"_id\":\"1\",\"_version\":1,\"_score\":null,\"sort\":[1]}]}}}}");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"top\":{\"top_hits\":{\"highlight\":{}}}}}", 400,
               "\"reason\":\"[highlight] in [top_hits] is not supported by trove\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"top\":{\"top_hits\":{\"sort\":[\"nope\"]}}}}", 400,
               "\"reason\":\"No mapping found for [nope] in order to sort on\"");
    /* the sort parses as the search's: options top_hits does not run are
     * refused by name, unknown ones as OpenSearch refuses them */
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"top\":{\"top_hits\":{\"sort\":[{\"n\":{\"mode\":\"max\"}}]}}}}", 400,
               "\"reason\":\"[mode] in a [top_hits] sort is not supported by trove\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"top\":{\"top_hits\":{\"sort\":[\"_doc\"]}}}}", 400,
               "\"reason\":\"[_doc] in a [top_hits] sort is not supported by trove\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"top\":{\"top_hits\":{\"sort\":[{\"n\":{\"bogus\":1}}]}}}}", 400,
               "\"reason\":\"[field_sort] unknown field [bogus]\"");
}

/* sampler: the sub-aggregations see the shard's best shard_size docs by
 * score (doc 1 scores highest for "hello"; the rest score 0 here) */
static void test_sampler(void **s) {
    (void)s;
    EXPECT("POST", "/a/_search?typed_keys=true",
           "{\"size\":0,\"query\":{\"bool\":{\"should\":[{\"match\":{\"t\":\"hello\"}},{\"match_all\":{\"boost\":0.01}}]}},"
           "\"aggs\":{\"s\":{\"sampler\":{\"shard_size\":1},\"aggs\":{\"t\":{\"terms\":{\"field\":\"tag\"}}}}}}", 200,
           HEAD HITS(4) "\"aggregations\":{\"sampler#s\":{\"doc_count\":1,\"sterms#t\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,"
                        "\"buckets\":[{\"key\":\"x\",\"doc_count\":1},{\"key\":\"y\",\"doc_count\":1}]}}}}");
}

/* Two implementations checked against each other on random data: every
 * composite page (after_key walked to the end, a random page size) must
 * list exactly the (k, n bucket) pairs, in order, with the doc counts that
 * a terms > histogram tree gives; multi_terms (k, b) must give the counts
 * of terms > terms. */
static tv_json *search_json(tv_arena *a, const char *path, const char *body) {
    trove_response r;
    assert_int_equal(trove_request(N, "POST", path, body, strlen(body), &r), 0);
    if (r.status != 200) fail_msg("%s: %d %s", body, r.status, r.body);
    tv_json *j = NULL;
    assert_int_equal(tv_json_parse(a, r.body, r.body_len, &j, NULL), TROVE_OK);
    trove_response_fini(&r);
    return j;
}

static void test_composite_against_nested(void **s) {
    (void)s;
    OK("PUT", "/cx", "{\"settings\":{\"refresh_interval\":-1},\"mappings\":{\"properties\":{\"k\":{\"type\":\"keyword\"},"
                     "\"n\":{\"type\":\"long\"},\"b\":{\"type\":\"boolean\"}}}}");
    uint64_t x = 20261201;
    char body[256], path[64];
    for (int i = 0; i < 300; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        snprintf(body, sizeof body, "{\"k\":\"k%02d\",\"n\":%d,\"b\":%s}", (int)(x % 17), (int)(x >> 20) % 50,
                 (x >> 40) & 1 ? "true" : "false");
        snprintf(path, sizeof path, "/cx/_doc/%d", i);
        OK("PUT", path, body);
        if (i % 97 == 96) OK("POST", "/cx/_refresh", NULL);
    }
    OK("POST", "/cx/_refresh", NULL);
    tv_arena a;
    tv_arena_init(&a);
    /* the reference: terms(k) > histogram(n, 10), every bucket */
    tv_json *ref = search_json(&a, "/cx/_search",
                               "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"k\",\"size\":100,\"order\":{\"_key\":\"asc\"}},"
                               "\"aggs\":{\"h\":{\"histogram\":{\"field\":\"n\",\"interval\":10,\"min_doc_count\":1}}}}}}");
    const tv_json *tb = tv_json_get(tv_json_get(tv_json_get(ref, "aggregations"), "t"), "buckets");
    char want[8192];
    size_t wl = 0;
    for (uint32_t i = 0; i < tb->len; i++) {
        const tv_json *hb = tv_json_get(tv_json_get(&tb->v.items[i], "h"), "buckets");
        for (uint32_t j = 0; j < hb->len; j++)
            wl += (size_t)snprintf(want + wl, sizeof want - wl, "%s/%g=%lld;", tv_json_get(&tb->v.items[i], "key")->v.s,
                                   tv_json_as_double(tv_json_get(&hb->v.items[j], "key")),
                                   (long long)tv_json_get(&hb->v.items[j], "doc_count")->v.i);
    }
    assert_true(wl > 200); /* 17 keys with several buckets each */
    for (int round = 0; round < 5; round++) {
        int size = 1 + round * 3;
        char got[8192], after[256] = "";
        size_t gl = 0;
        for (int page = 0; page < 1000; page++) {
            char q[768];
            snprintf(q, sizeof q,
                     "{\"size\":0,\"aggs\":{\"c\":{\"composite\":{\"size\":%d,\"sources\":[{\"k\":{\"terms\":{\"field\":\"k\"}}},"
                     "{\"h\":{\"histogram\":{\"field\":\"n\",\"interval\":10}}}]%s%s}}}}",
                     size, after[0] ? ",\"after\":" : "", after);
            tv_json *res = search_json(&a, "/cx/_search", q);
            const tv_json *c = tv_json_get(tv_json_get(res, "aggregations"), "c");
            const tv_json *bs = tv_json_get(c, "buckets");
            for (uint32_t i = 0; i < bs->len; i++) {
                const tv_json *key = tv_json_get(&bs->v.items[i], "key");
                gl += (size_t)snprintf(got + gl, sizeof got - gl, "%s/%g=%lld;", tv_json_get(key, "k")->v.s,
                                       tv_json_as_double(tv_json_get(key, "h")),
                                       (long long)tv_json_get(&bs->v.items[i], "doc_count")->v.i);
            }
            const tv_json *ak = tv_json_get(c, "after_key");
            if (!bs->len) break;
            assert_non_null(ak);
            assert_true(bs->len <= (uint32_t)size);
            snprintf(after, sizeof after, "{\"k\":\"%s\",\"h\":%g}", tv_json_get(ak, "k")->v.s, tv_json_as_double(tv_json_get(ak, "h")));
        }
        if (strcmp(got, want)) fail_msg("composite pages of %d\n want %s\n got  %s", size, want, got);
    }
    /* multi_terms (k, b) against terms(k) > terms(b) */
    tv_json *mt = search_json(&a, "/cx/_search", "{\"size\":0,\"aggs\":{\"m\":{\"multi_terms\":{\"terms\":[{\"field\":\"k\"},{\"field\":\"b\"}],\"size\":100}}}}");
    tv_json *nt = search_json(&a, "/cx/_search",
                              "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"k\",\"size\":100},\"aggs\":{\"b\":{\"terms\":{\"field\":\"b\"}}}}}}");
    const tv_json *mb = tv_json_get(tv_json_get(tv_json_get(mt, "aggregations"), "m"), "buckets");
    const tv_json *nb = tv_json_get(tv_json_get(tv_json_get(nt, "aggregations"), "t"), "buckets");
    size_t pairs = 0;
    for (uint32_t i = 0; i < nb->len; i++) {
        const tv_json *bb = tv_json_get(tv_json_get(&nb->v.items[i], "b"), "buckets");
        for (uint32_t j = 0; j < bb->len; j++) {
            pairs++;
            char ks[64];
            snprintf(ks, sizeof ks, "%s|%s", tv_json_get(&nb->v.items[i], "key")->v.s,
                     tv_json_get(&bb->v.items[j], "key_as_string")->v.s);
            bool found = false;
            for (uint32_t q = 0; q < mb->len && !found; q++) {
                const tv_json *e = &mb->v.items[q];
                if (strcmp(tv_json_get(e, "key_as_string")->v.s, ks)) continue;
                found = true;
                assert_int_equal(tv_json_get(e, "doc_count")->v.i, tv_json_get(&bb->v.items[j], "doc_count")->v.i);
            }
            if (!found) fail_msg("multi_terms lacks %s", ks);
        }
    }
    assert_int_equal(mb->len, pairs);
    assert_true(pairs > 20);
    /* and in count-desc, key-asc order */
    for (uint32_t q = 1; q < mb->len; q++) {
        int64_t c0 = tv_json_get(&mb->v.items[q - 1], "doc_count")->v.i, c1 = tv_json_get(&mb->v.items[q], "doc_count")->v.i;
        assert_true(c0 > c1 || (c0 == c1 && strcmp(tv_json_get(&mb->v.items[q - 1], "key_as_string")->v.s,
                                                   tv_json_get(&mb->v.items[q], "key_as_string")->v.s) < 0));
    }
    tv_arena_fini(&a);
}

/* _msearch passes typed_keys to each search */
static void test_msearch_typed_keys(void **s) {
    (void)s;
    EXPECT_HAS("POST", "/_msearch?typed_keys=true", "{\"index\":\"a\"}\n{\"size\":0,\"aggs\":{\"m\":{\"max\":{\"field\":\"n\"}}}}\n", 200,
               "\"aggregations\":{\"max#m\":{\"value\":5.0}},\"status\":200}");
}

/* Only a scroll's first response carries the aggregations. */
static void test_scroll(void **s) {
    (void)s;
    char *first, *next;
    assert_int_equal(req("POST", "/a/_search?scroll=1m", "{\"size\":1,\"aggs\":{\"m\":{\"max\":{\"field\":\"n\"}}}}", &first), 200);
    assert_non_null(strstr(first, "\"aggregations\":{\"m\":{\"value\":5.0}}"));
    char *sid = field(first, "_scroll_id");
    assert_non_null(sid);
    char body[600];
    snprintf(body, sizeof body, "{\"scroll\":\"1m\",\"scroll_id\":\"%s\"}", sid);
    assert_int_equal(req("POST", "/_search/scroll", body, &next), 200);
    assert_non_null(strstr(next, "\"hits\":[{"));
    assert_null(strstr(next, "aggregations"));
    free(sid);
    free(first);
    free(next);
}

static void test_errors(void **s) {
    (void)s;
    EXPECT("POST", "/a/_search", "{\"aggs\":{\"t\":{\"terms\":{\"field\":\"tag\",\"size\":0}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"x_content_parse_exception\",\"reason\":\"[1:45] [terms] failed to parse field [size]\"}],"
           "\"type\":\"x_content_parse_exception\",\"reason\":\"[1:45] [terms] failed to parse field [size]\","
           "\"caused_by\":{\"type\":\"illegal_argument_exception\",\"reason\":\"[size] must be greater than 0. Found [0] in [t]\"}},\"status\":400}");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"t\":{\"foo\":{}}}}", 400, "\"type\":\"parsing_exception\",\"reason\":\"Unknown aggregation type [foo]\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"t\":{\"term\":{}}}}", 400,
               "\"reason\":\"Unknown aggregation type [term] did you mean [terms]?\",\"line\":1,\"col\":15,"
               "\"caused_by\":{\"type\":\"named_object_not_found_exception\",\"reason\":\"[1:15] unknown field [term]\"}");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"t\":{\"diversified_sampler\":{}}}}", 400,
               "\"type\":\"unsupported_operation_exception\",\"reason\":\"the [diversified_sampler] aggregation is not supported by trove\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"t\":\"x\"}}", 400,
               "\"reason\":\"Aggregation definition for [t starts with a [VALUE_STRING], expected a [START_OBJECT].\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"t\":{\"avg\":{}}}}", 400,
               "\"reason\":\"Required one of fields [field, script], but none were specified. \"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"t\":{\"avg\":{\"field\":\"n\"},\"aggs\":{\"x\":{\"max\":{\"field\":\"n\"}}}}}}", 400,
               "\"type\":\"aggregation_initialization_exception\",\"reason\":\"Aggregator [t] of type [avg] cannot accept sub-aggregations\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"t\":{\"terms\":{\"field\":\"tag\",\"bogus\":1}}}}", 400,
               "\"type\":\"x_content_parse_exception\",\"reason\":\"[1:38] [terms] unknown field [bogus]\"");
    /* shard failures */
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"t\":{\"terms\":{\"field\":\"t\"}}}}", 400,
               "\"type\":\"search_phase_execution_exception\",\"reason\":\"all shards failed\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"t\":{\"avg\":{\"field\":\"tag\"}}}}", 400,
               "\"reason\":\"Field [tag] of type [keyword] is not supported for aggregation [avg]\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"t\":{\"histogram\":{\"field\":\"n\"}}}}", 400, "\"reason\":\"interval must be positive, got: 0.0\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"t\":{\"date_histogram\":{\"field\":\"d\",\"calendar_interval\":\"2d\"}}}}", 400,
               "\"reason\":\"The supplied interval [2d] could not be parsed as a calendar interval.\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"t\":{\"date_histogram\":{\"field\":\"d\",\"time_zone\":\"Mars/Olympus\",\"calendar_interval\":\"day\"}}}}", 400,
               "Mars/Olympus");
    EXPECT_HAS("POST", "/a/_search", "{\"size\":0,\"aggs\":{\"h\":{\"histogram\":{\"field\":\"n\",\"interval\":0.00001}}}}", 503,
               "\"type\":\"too_many_buckets_exception\",\"reason\":\"Trying to create too many buckets. Must be less than or equal to: [65535] but was [65536]. "
               "This limit can be set by changing the [search.max_buckets] cluster level setting.\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"e\":{\"extended_stats\":{\"field\":\"n\",\"sigma\":-1.5}}}}", 400,
               "\"reason\":\"[sigma] must be greater than or equal to 0. Found [-1.5] in [e]\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"p\":{\"percentiles\":{\"field\":\"n\",\"percents\":[50,101]}}}}", 400,
               "\"reason\":\"percent must be in [0,100], got [101.0]: [p]\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"h\":{\"histogram\":{\"field\":\"n\",\"interval\":1,\"extended_bounds\":{\"min\":5,\"max\":2}}}}}", 400,
               "\"reason\":\"[extended_bounds.min][5.0] cannot be greater than [extended_bounds.max][2.0] for histogram aggregation [h]\"");
    EXPECT_HAS("POST", "/a/_search", "{\"aggs\":{\"m\":{\"max_bucket\":{\"buckets_path\":\"nope>_count\"}}}}", 400,
               "\"reason\":\"Validation Failed: 1: No aggregation found for path [nope>_count];\"");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terms),
        cmocka_unit_test(test_typed_keys_and_single_buckets),
        cmocka_unit_test(test_ranges_filters_stats),
        cmocka_unit_test(test_dates_and_pipelines),
        cmocka_unit_test(test_two_indices),
        cmocka_unit_test(test_composite_multi_terms),
        cmocka_unit_test(test_top_hits),
        cmocka_unit_test(test_sampler),
        cmocka_unit_test(test_composite_against_nested),
        cmocka_unit_test(test_msearch_typed_keys),
        cmocka_unit_test(test_scroll),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, load, teardown);
}
