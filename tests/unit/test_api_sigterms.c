/*
 * test_api_sigterms.c — significant_terms and significant_text through
 * trove_request, after OpenSearch's SignificantTermsAggregatorTests and
 * SignificantTextAggregatorTests: foreground (the query or the parent
 * bucket) against the index or a background_filter, doc_count and
 * bg_count, each heuristic's score (worked by hand where noted), keyword,
 * text with fielddata, numeric, boolean, date and ip keys, include /
 * exclude, shard_min_doc_count and size, sub-aggregations, several
 * targets, typed_keys, and the parse and shard errors with OpenSearch's
 * messages. Equal scores come out in the order Lucene's queue pops them
 * after the reduce's HashMap (see test_aggs_significant.c).
 */
#define API_TEST_MASK_TOOK
#include "api_test.h"

#define HEAD(n) "{\"took\":0,\"timed_out\":false,\"_shards\":{\"total\":" #n ",\"successful\":" #n ",\"skipped\":0,\"failed\":0},"
#define HITS(n) "\"hits\":{\"total\":{\"value\":" #n ",\"relation\":\"eq\"},\"max_score\":null,\"hits\":[]},"
#define BAD "{\"size\":0,\"query\":{\"term\":{\"class\":\"bad\"}},\"aggs\":"

static int load(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/g", "{\"mappings\":{\"properties\":{\"text\":{\"type\":\"text\",\"fielddata\":true},\"class\":{\"type\":\"keyword\"},"
                    "\"n\":{\"type\":\"integer\"},\"b\":{\"type\":\"boolean\"},\"d\":{\"type\":\"date\"},\"f\":{\"type\":\"double\"},"
                    "\"ip\":{\"type\":\"ip\"},\"plain\":{\"type\":\"text\"},\"r\":{\"type\":\"integer_range\"},"
                    "\"ni\":{\"type\":\"keyword\",\"index\":false},\"t_alias\":{\"type\":\"alias\",\"path\":\"text\"}}}}");
    OK("POST", "/g/_bulk?refresh=true",
       "{\"index\":{\"_id\":\"1\"}}\n{\"text\":\"good\",\"class\":\"good\",\"n\":1,\"b\":true,\"d\":\"2020-01-01\",\"ip\":\"10.0.0.1\"}\n"
       "{\"index\":{\"_id\":\"2\"}}\n{\"text\":\"good\",\"class\":\"good\",\"n\":1,\"b\":true,\"d\":\"2020-01-01\",\"ip\":\"10.0.0.1\"}\n"
       "{\"index\":{\"_id\":\"3\"}}\n{\"text\":\"bad\",\"class\":\"bad\",\"n\":2,\"b\":false,\"d\":\"2020-01-02\",\"ip\":\"::1\"}\n"
       "{\"index\":{\"_id\":\"4\"}}\n{\"text\":\"bad\",\"class\":\"bad\",\"n\":2,\"b\":false,\"d\":\"2020-01-02\",\"ip\":\"::1\"}\n"
       "{\"index\":{\"_id\":\"5\"}}\n{\"text\":\"good bad\",\"class\":\"good\",\"n\":1,\"b\":true,\"d\":\"2020-01-01\"}\n"
       "{\"index\":{\"_id\":\"6\"}}\n{\"text\":\"good bad\",\"class\":\"bad\",\"n\":2,\"b\":false,\"d\":\"2020-01-02\",\"ip\":\"::1\"}\n"
       "{\"index\":{\"_id\":\"7\"}}\n{\"text\":\"bad\",\"class\":\"bad\",\"n\":3,\"b\":false,\"d\":\"2020-01-03\"}\n");
    OK("PUT", "/g2", "{\"mappings\":{\"properties\":{\"text\":{\"type\":\"text\",\"fielddata\":true},\"class\":{\"type\":\"keyword\"}}}}");
    OK("POST", "/g2/_bulk?refresh=true",
       "{\"index\":{\"_id\":\"1\"}}\n{\"text\":\"bad ugly\",\"class\":\"bad\"}\n"
       "{\"index\":{\"_id\":\"2\"}}\n{\"text\":\"good\",\"class\":\"good\"}\n");
    OK("PUT", "/st", "{\"mappings\":{\"properties\":{\"body\":{\"type\":\"match_only_text\"},\"title\":{\"type\":\"text\"},"
                     "\"class\":{\"type\":\"keyword\"},\"n\":{\"type\":\"integer\"},"
                     "\"b_alias\":{\"type\":\"alias\",\"path\":\"body\"}}}}");
    OK("POST", "/st/_bulk?refresh=true",
       "{\"index\":{\"_id\":\"1\"}}\n{\"body\":\"good noisewords1 g1 g2 g3 g4 g5 g6\",\"title\":\"Good news\",\"class\":\"good\"}\n"
       "{\"index\":{\"_id\":\"2\"}}\n{\"body\":\"good  noisewords2 g1 g2 g3 g4 g5 g6\",\"title\":\"good\",\"class\":\"good\"}\n"
       "{\"index\":{\"_id\":\"3\"}}\n{\"body\":\"bad noisewords3 b1 b2 b3 b4 b5 b6\",\"title\":\"bad\",\"class\":\"bad\"}\n"
       "{\"index\":{\"_id\":\"4\"}}\n{\"body\":[\"bad noisewords4\",\"b1 b2 b3 b4 b5 b6\"],\"title\":\"bad\",\"class\":\"bad\"}\n"
       "{\"index\":{\"_id\":\"5\"}}\n{\"body\":\"good bad noisewords5 gb1 gb2 gb3 gb4 gb5 gb6\",\"title\":\"good bad\",\"class\":\"good\"}\n"
       "{\"index\":{\"_id\":\"6\"}}\n{\"body\":\"good bad noisewords6 gb1 gb2 gb3 gb4 gb5 gb6\",\"title\":\"good bad\",\"class\":\"bad\"}\n"
       "{\"index\":{\"_id\":\"7\"}}\n{\"body\":\"bad noisewords7 b1 b2 b3 b4 b5 b6\",\"title\":\"bad\",\"class\":\"bad\"}\n");
    return 0;
}

static void test_jlh_under_terms(void **s) {
    (void)s;
    /* bad: 4 of 4 docs against 5 of 7 (maxDoc): (1 - 5/7) * 7/5; good:
     * 3 of 3 against 4 of 7 = 0.75; the other term is rarer in the
     * bucket than overall (score 0) or under min_doc_count 3 */
    EXPECT("POST", "/g/_search",
           "{\"size\":0,\"aggs\":{\"c\":{\"terms\":{\"field\":\"class\"},\"aggs\":{\"s\":{\"significant_terms\":{\"field\":\"text\"}}}}}}", 200,
           HEAD(1) HITS(7) "\"aggregations\":{\"c\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":["
                           "{\"key\":\"bad\",\"doc_count\":4,\"s\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":\"bad\",\"doc_count\":4,"
                           "\"score\":0.39999999999999997,\"bg_count\":5}]}},"
                           "{\"key\":\"good\",\"doc_count\":3,\"s\":{\"doc_count\":3,\"bg_count\":7,\"buckets\":[{\"key\":\"good\",\"doc_count\":3,"
                           "\"score\":0.75,\"bg_count\":4}]}}]}}}");
    /* the whole index as foreground: percentage 1.0 for both (a tie, in
     * the queue's order); a sibling pipeline reads the buckets */
    EXPECT("POST", "/g/_search",
           "{\"size\":0,\"aggs\":{\"s\":{\"significant_terms\":{\"field\":\"text\",\"percentage\":{}}},\"m\":{\"max_bucket\":{\"buckets_path\":\"s>_count\"}}}}", 200,
           HEAD(1) HITS(7) "\"aggregations\":{\"s\":{\"doc_count\":7,\"bg_count\":7,\"buckets\":[{\"key\":\"good\",\"doc_count\":4,\"score\":1.0,"
                           "\"bg_count\":4},{\"key\":\"bad\",\"doc_count\":5,\"score\":1.0,\"bg_count\":5}]},\"m\":{\"value\":5.0,\"keys\":[\"bad\"]}}}");
    /* a field alias reads its target; sub-aggregations of the kept bucket */
    EXPECT("POST", "/g/_search",
           "{\"size\":0,\"query\":{\"term\":{\"class\":\"good\"}},\"aggs\":{\"s\":{\"significant_terms\":{\"field\":\"t_alias\",\"size\":1},"
           "\"aggs\":{\"m\":{\"max\":{\"field\":\"n\"}}}}}}", 200,
           HEAD(1) HITS(3) "\"aggregations\":{\"s\":{\"doc_count\":3,\"bg_count\":7,\"buckets\":[{\"key\":\"good\",\"doc_count\":3,"
                           "\"score\":0.75,\"bg_count\":4,\"m\":{\"value\":1.0}}]}}}");
}

static void test_heuristics(void **s) {
    (void)s;
    /* percentage: 4/5 and 1/4; chi_square: 7 * 8^2 / (4 * 5 * 2 * 3), good
     * is a negative; mutual_information with include_negatives keeps good */
    EXPECT("POST", "/g/_search",
           BAD "{\"v\":{\"significant_terms\":{\"field\":\"text\",\"min_doc_count\":1,\"percentage\":{}}}}}", 200,
           HEAD(1) HITS(4) "\"aggregations\":{\"v\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":\"bad\",\"doc_count\":4,\"score\":0.8,"
                           "\"bg_count\":5},{\"key\":\"good\",\"doc_count\":1,\"score\":0.25,\"bg_count\":4}]}}}");
    EXPECT("POST", "/g/_search",
           BAD "{\"t\":{\"significant_terms\":{\"field\":\"text\",\"min_doc_count\":1,\"chi_square\":{}}}}}", 200,
           HEAD(1) HITS(4) "\"aggregations\":{\"t\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":\"bad\",\"doc_count\":4,"
                           "\"score\":3.7333333333333334,\"bg_count\":5}]}}}");
    EXPECT("POST", "/g/_search",
           BAD "{\"m\":{\"significant_terms\":{\"field\":\"text\",\"min_doc_count\":1,\"mutual_information\":{\"include_negatives\":true}}}}}", 200,
           HEAD(1) HITS(4) "\"aggregations\":{\"m\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":\"good\",\"doc_count\":1,"
                           "\"score\":0.5216406363433184,\"bg_count\":4},{\"key\":\"bad\",\"doc_count\":4,\"score\":0.46956521111470695,"
                           "\"bg_count\":5}]}}}");
    EXPECT("POST", "/g/_search",
           BAD "{\"u\":{\"significant_terms\":{\"field\":\"text\",\"min_doc_count\":1,\"gnd\":{\"background_is_superset\":true}}}}}", 200,
           HEAD(1) HITS(4) "\"aggregations\":{\"u\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":\"bad\",\"doc_count\":4,"
                           "\"score\":0.6711623607546782,\"bg_count\":5},{\"key\":\"good\",\"doc_count\":1,\"score\":0.08397591464308383,"
                           "\"bg_count\":4}]}}}");
}

static void test_value_types(void **s) {
    (void)s;
    /* integers, booleans and dates: long keys, key_as_string when the
     * format is not raw; ip keys print as addresses; the background of
     * n=2 is 3 docs */
    EXPECT("POST", "/g/_search?typed_keys",
           BAD "{\"n\":{\"significant_terms\":{\"field\":\"n\",\"min_doc_count\":1}},\"b\":{\"significant_terms\":{\"field\":\"b\",\"min_doc_count\":1}},"
               "\"d\":{\"significant_terms\":{\"field\":\"d\",\"size\":1}},\"i\":{\"significant_terms\":{\"field\":\"ip\"}}}}", 200,
           HEAD(1) HITS(4) "\"aggregations\":{\"siglterms#b\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":0,\"key_as_string\":\"false\","
                           "\"doc_count\":4,\"score\":0.75,\"bg_count\":4}]},"
                           "\"siglterms#d\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":1577923200000,\"key_as_string\":\"2020-01-02T00:00:00.000Z\","
                           "\"doc_count\":3,\"score\":0.5625,\"bg_count\":3}]},"
                           "\"sigsterms#i\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":\"::1\",\"doc_count\":3,\"score\":0.5625,\"bg_count\":3}]},"
                           "\"siglterms#n\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":2,\"doc_count\":3,\"score\":0.5625,\"bg_count\":3},"
                           "{\"key\":3,\"doc_count\":1,\"score\":0.1875,\"bg_count\":1}]}}}");
    /* ip include / exclude take addresses */
    EXPECT("POST", "/g/_search",
           BAD "{\"i\":{\"significant_terms\":{\"field\":\"ip\",\"include\":[\"0:0::1\"]}},\"x\":{\"significant_terms\":{\"field\":\"ip\",\"exclude\":[\"::1\"]}}}}", 200,
           HEAD(1) HITS(4) "\"aggregations\":{\"x\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[]},"
                           "\"i\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":\"::1\",\"doc_count\":3,\"score\":0.5625,\"bg_count\":3}]}}}");
    EXPECT_HAS("POST", "/g/_search", BAD "{\"i\":{\"significant_terms\":{\"field\":\"ip\",\"exclude\":\"127.*\"}}}}", 400,
               "Aggregation [i] cannot support regular expression style include/exclude settings as they can only be applied to "
               "string fields. Use an array of values for include/exclude clauses");
    EXPECT_HAS("POST", "/g/_search", BAD "{\"i\":{\"significant_terms\":{\"field\":\"n\",\"include\":\"1.*\"}}}}", 400,
               "Use an array of numeric values for include/exclude clauses used to filter numeric fields");
    EXPECT_HAS("POST", "/g/_search", BAD "{\"i\":{\"significant_terms\":{\"field\":\"ip\",\"include\":[\"nope\"]}}}}", 400,
               "'nope' is not an IP string literal.");
    /* numeric include lists */
    EXPECT("POST", "/g/_search", BAD "{\"n\":{\"significant_terms\":{\"field\":\"n\",\"min_doc_count\":1,\"exclude\":[2]}}}}", 200,
           HEAD(1) HITS(4) "\"aggregations\":{\"n\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":3,\"doc_count\":1,\"score\":0.1875,"
                           "\"bg_count\":1}]}}}");
}

static void test_background_and_thresholds(void **s) {
    (void)s;
    /* background n:2 (docs 3, 4, 6): bad is as common there as in the
     * bucket (score 0); the heuristic's superset checks fail when the
     * background is not a superset of the bucket */
    EXPECT("POST", "/g/_search", BAD "{\"s\":{\"significant_terms\":{\"field\":\"class\",\"background_filter\":{\"term\":{\"n\":2}}}}}}", 200,
           HEAD(1) HITS(4) "\"aggregations\":{\"s\":{\"doc_count\":4,\"bg_count\":3,\"buckets\":[]}}}");
    EXPECT_HAS("POST", "/g/_search",
               BAD "{\"s\":{\"significant_terms\":{\"field\":\"class\",\"background_filter\":{\"term\":{\"n\":2}},\"chi_square\":{}}}}}", 400,
               "subsetFreq > supersetFreq, does your background filter not include all documents in the bucket? If so and it is "
               "intentional, set \\\"background_is_superset\\\": false");
    /* background: the good docs (1, 2, 5); foreground bad docs: bad
     * appears in 1 of 3 background docs */
    EXPECT("POST", "/g/_search",
           BAD "{\"s\":{\"significant_terms\":{\"field\":\"text\",\"background_filter\":{\"term\":{\"class\":\"good\"}},"
               "\"percentage\":{},\"min_doc_count\":1}}}}", 200,
           HEAD(1) HITS(4) "\"aggregations\":{\"s\":{\"doc_count\":4,\"bg_count\":3,\"buckets\":[{\"key\":\"bad\",\"doc_count\":4,\"score\":4.0,"
                           "\"bg_count\":1},{\"key\":\"good\",\"doc_count\":1,\"score\":0.3333333333333333,\"bg_count\":3}]}}}");
    /* shard_min_doc_count drops good (1 doc) on the shard */
    EXPECT("POST", "/g/_search",
           BAD "{\"s\":{\"significant_terms\":{\"field\":\"text\",\"percentage\":{},\"min_doc_count\":1,\"shard_min_doc_count\":2}}}}", 200,
           HEAD(1) HITS(4) "\"aggregations\":{\"s\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":\"bad\",\"doc_count\":4,\"score\":0.8,"
                           "\"bg_count\":5}]}}}");
    /* two targets: sizes and counts add up before scoring; an unmapped
     * field has no sizes */
    EXPECT("POST", "/g,g2/_search",
           BAD "{\"s\":{\"significant_terms\":{\"field\":\"text\",\"min_doc_count\":1}},\"u\":{\"significant_terms\":{\"field\":\"nope\"}},"
               "\"b\":{\"significant_terms\":{\"field\":\"b\",\"min_doc_count\":1}}}}", 200,
           HEAD(2) HITS(5) "\"aggregations\":{\"b\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":0,\"key_as_string\":\"false\","
                           "\"doc_count\":4,\"score\":0.75,\"bg_count\":4}]},"
                           "\"s\":{\"doc_count\":5,\"bg_count\":9,\"buckets\":[{\"key\":\"bad\",\"doc_count\":5,\"score\":0.5,\"bg_count\":6},"
                           "{\"key\":\"ugly\",\"doc_count\":1,\"score\":0.16000000000000006,\"bg_count\":1}]},\"u\":{\"buckets\":[]}}}");
    /* a parent bucket without docs: empty sizes against the index */
    EXPECT("POST", "/g/_search",
           "{\"size\":0,\"aggs\":{\"f\":{\"filter\":{\"term\":{\"class\":\"zzz\"}},\"aggs\":{\"s\":{\"significant_terms\":{\"field\":\"class\"}}}}}}", 200,
           HEAD(1) HITS(7) "\"aggregations\":{\"f\":{\"doc_count\":0,\"s\":{\"doc_count\":0,\"bg_count\":7,\"buckets\":[]}}}}");
}

static void test_significant_text(void **s) {
    (void)s;
    /* the b1..b6 run repeats (docs 3, 4 and 7, doc 4 across two values):
     * with filter_duplicate_text only bad stays */
    EXPECT("POST", "/st/_search", BAD "{\"s\":{\"significant_text\":{\"field\":\"b_alias\",\"filter_duplicate_text\":true}}}}", 200,
           HEAD(1) HITS(4) "\"aggregations\":{\"s\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":\"bad\",\"doc_count\":4,"
                           "\"score\":0.39999999999999997,\"bg_count\":5}]}}}");
    EXPECT("POST", "/st/_search", BAD "{\"s\":{\"significant_text\":{\"field\":\"body\",\"include\":\"b[0-9]\"}}}}", 200,
           HEAD(1) HITS(4) "\"aggregations\":{\"s\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":["
                           "{\"key\":\"b3\",\"doc_count\":3,\"score\":0.5625,\"bg_count\":3},{\"key\":\"b4\",\"doc_count\":3,\"score\":0.5625,\"bg_count\":3},"
                           "{\"key\":\"b5\",\"doc_count\":3,\"score\":0.5625,\"bg_count\":3},{\"key\":\"b6\",\"doc_count\":3,\"score\":0.5625,\"bg_count\":3},"
                           "{\"key\":\"b1\",\"doc_count\":3,\"score\":0.5625,\"bg_count\":3},{\"key\":\"b2\",\"doc_count\":3,\"score\":0.5625,\"bg_count\":3}]}}}");
    /* source_fields: title's text analysed as body, counted against body */
    EXPECT("POST", "/st/_search",
           "{\"size\":0,\"query\":{\"term\":{\"class\":\"good\"}},\"aggs\":{\"s\":{\"significant_text\":{\"field\":\"body\",\"source_fields\":[\"title\"],"
           "\"min_doc_count\":1,\"size\":1}}}}", 200,
           HEAD(1) HITS(3) "\"aggregations\":{\"s\":{\"doc_count\":3,\"bg_count\":7,\"buckets\":[{\"key\":\"good\",\"doc_count\":3,\"score\":0.75,"
                           "\"bg_count\":4}]}}}");
    /* a keyword field re-analysed with the keyword analyzer; an unmapped
     * name (in no _source) gives the sizes and no buckets */
    EXPECT("POST", "/st/_search", BAD "{\"k\":{\"significant_text\":{\"field\":\"class\"}},\"u\":{\"significant_text\":{\"field\":\"nope\"}}}}", 200,
           HEAD(1) HITS(4) "\"aggregations\":{\"u\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[]},"
                           "\"k\":{\"doc_count\":4,\"bg_count\":7,\"buckets\":[{\"key\":\"bad\",\"doc_count\":4,\"score\":0.75,\"bg_count\":4}]}}}");
    EXPECT_HAS("POST", "/st/_search", "{\"aggs\":{\"s\":{\"significant_text\":{\"field\":\"n\"}}}}", 400,
               "Field [n] has no analyzer, but SignificantText requires an analyzed field");
    EXPECT_HAS("POST", "/st/_search", "{\"aggs\":{\"s\":{\"significant_text\":{\"field\":\"body\"},\"aggs\":{\"m\":{\"max\":{\"field\":\"n\"}}}}}}", 400,
               "\"type\":\"aggregation_initialization_exception\",\"reason\":\"Aggregator [s] of type [significant_text] cannot accept sub-aggregations\"");
    EXPECT_HAS("POST", "/st/_search", "{\"aggs\":{\"s\":{\"significant_text\":{\"field\":\"body\",\"missing\":\"x\"}}}}", 400,
               "[significant_text] unknown field [missing]");
}

static void test_errors(void **s) {
    (void)s;
    EXPECT_HAS("POST", "/g/_search", "{\"aggs\":{\"foo\":{\"significant_terms\":{\"field\":\"foo\",\"jlp\":{}}}}}", 400,
               "\"type\":\"x_content_parse_exception\",\"reason\":\"[1:52] [significant_terms] unknown field [jlp] did you mean [jlh]?\"");
    EXPECT_HAS("POST", "/g/_search", "{\"aggs\":{\"s\":{\"significant_terms\":{\"field\":\"class\",\"mutual_information\":{\"x\":true}}}}}", 400,
               "[mutual_information] unknown field [x]");
    EXPECT_HAS("POST", "/g/_search", "{\"aggs\":{\"s\":{\"significant_terms\":{\"field\":\"class\",\"gnd\":{\"include_negatives\":true}}}}}", 400,
               "[gnd] unknown field [include_negatives]");
    EXPECT_HAS("POST", "/g/_search", "{\"aggs\":{\"s\":{\"significant_terms\":{\"field\":\"class\",\"script_heuristic\":{\"script\":\"1\"}}}}}", 400,
               "[script_heuristic] significance heuristic is not supported by trove");
    EXPECT_HAS("POST", "/g/_search", "{\"aggs\":{\"s\":{\"significant_terms\":{\"field\":\"class\",\"size\":0}}}}", 400,
               "[size] must be greater than 0. Found [0] in [s]");
    EXPECT_HAS("POST", "/g/_search", "{\"aggs\":{\"s\":{\"significant_terms\":{\"field\":\"class\",\"execution_hint\":\"foo\"}}}}", 400,
               "Unknown `execution_hint`: [foo], expected any of [map, global_ordinals]");
    EXPECT_HAS("POST", "/g/_search", "{\"aggs\":{\"s\":{\"significant_terms\":{\"field\":\"f\"}}}}", 400,
               "No support for examining floating point numerics");
    EXPECT_HAS("POST", "/g/_search", "{\"aggs\":{\"s\":{\"significant_terms\":{\"field\":\"plain\"}}}}", 400,
               "set fielddata=true on [plain] in order to load field data");
    EXPECT_HAS("POST", "/g/_search", "{\"aggs\":{\"s\":{\"significant_terms\":{\"field\":\"ni\"}}}}", 400,
               "SignificantText aggregation requires fields to be searchable, but [ni] is not");
    EXPECT_HAS("POST", "/g/_search", "{\"aggs\":{\"s\":{\"significant_terms\":{\"field\":\"r\"}}}}", 400,
               "Field [r] of type [integer_range] is not supported for aggregation [significant_terms]");
    EXPECT_HAS("POST", "/g/_search", "{\"aggs\":{\"s\":{\"significant_terms\":{}}}}", 400,
               "Required one of fields [field, script], but none were specified.");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jlh_under_terms),
        cmocka_unit_test(test_heuristics),
        cmocka_unit_test(test_value_types),
        cmocka_unit_test(test_background_and_thresholds),
        cmocka_unit_test(test_significant_text),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, load, teardown);
}
