/* test_api_function_score.c — the function_score query through
 * trove_request: exact scores (as printed floats) for every function kind,
 * score_mode and boost_mode, filters and weights, max_boost, min_score and
 * boost, date decays, random_score with a seed, function_score inside bool;
 * and the errors OpenSearch gives (unknown function, malformed decay,
 * script_score unsupported, field_value_factor on a missing value or a
 * negative result).
 *
 * Expected scores: no OpenSearch was at hand, so they were computed by a
 * throwaway Java 17 program (kept outside the repository) that reproduces
 * the arithmetic of OpenSearch 3.1's FunctionScoreQuery.computeScore,
 * CombineFunction.combine, WeightFactorFunction, FieldValueFactorFunction
 * (with its Modifier), DecayFunctionBuilder's NumericFieldDataScoreFunction
 * with the Gauss / Exponential / Linear DecayFunction (processScale then
 * evaluate), MultiValueMode over sorted distances, RandomScoreFunction
 * (HPPC BitMixer, Lucene StringHelper.murmurhash3_x86_32,
 * String.hashCode salt) and MinScoreScorer, printing Float.toString of the
 * results. Sub-query scores were constant (match_all, constant_score with
 * a boost) or, for match, the BM25 score trove prints for the bare match
 * query (BM25 itself is checked bit-exactly by test_api_queries). */

/* errors: the index's uuid and the failed shard's node vary */
#define API_TEST_MASK_KEYS "index_uuid", "node"
#include "api_test.h"

static void scores_(const char *path, const char *body, const char *want, int line) {
    char *got;
    int st = req("POST", path, body, &got);
    char hs[2048];
    hit_list(got, true, hs, sizeof hs);
    if (st != 200 || strcmp(hs, want) != 0)
        fail_msg("line %d: %s\n want 200 [%s]\n got  %d [%s] %s", line, body, want, st, hs, got);
    free(got);
}
#define SCORES(body, want) scores_("/fs/_search", (body), (want), __LINE__)

/* An exact error body; index_uuid and node are masked to X. */
static void err_(const char *body, int status, const char *want, int line) {
    char *got;
    int st = req("POST", "/fs/_search", body, &got);
    if (st != status || strcmp(got, want) != 0)
        fail_msg("line %d: %s\n want %d %s\n got  %d %s", line, body, status, want, st, got);
    free(got);
}
#define ERR(body, st, want) err_((body), (st), (want), __LINE__)

static int load(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/fs",
       "{\"settings\":{\"number_of_replicas\":0},\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\"},"
       "\"k\":{\"type\":\"keyword\"},\"n\":{\"type\":\"long\"},\"p\":{\"type\":\"double\"},"
       "\"f\":{\"type\":\"float\"},\"m\":{\"type\":\"long\"},\"d\":{\"type\":\"date\"}}}}");
    OK("POST", "/_bulk?refresh=true",
       "{\"index\":{\"_index\":\"fs\",\"_id\":\"1\"}}\n{\"t\":\"quick brown fox\",\"k\":\"a\",\"n\":1,\"p\":10.5,"
       "\"f\":1.1,\"m\":[1,7],\"d\":\"2020-01-01\"}\n"
       "{\"index\":{\"_index\":\"fs\",\"_id\":\"2\"}}\n{\"t\":\"quick dog\",\"k\":\"b\",\"n\":5,\"p\":3.25,"
       "\"f\":0.3,\"m\":[4],\"d\":\"2020-01-11T12:00:00Z\"}\n"
       "{\"index\":{\"_index\":\"fs\",\"_id\":\"3\"}}\n{\"t\":\"lazy dog\",\"k\":\"c\",\"n\":10,"
       "\"d\":\"2019-12-25\"}\n"
       "{\"index\":{\"_index\":\"fs\",\"_id\":\"4\"}}\n{\"t\":\"quick quick fox\",\"n\":0,\"p\":0.0,"
       "\"m\":[2,3,30]}\n");
    return 0;
}

#define FS(inner) "{\"query\":{\"function_score\":{" inner "}}}"
#define QUICK "\"query\":{\"match\":{\"t\":\"quick\"}},"
/* match quick alone: 4:0.21105027, 2:0.17657174, 1:0.14986342 */

static void test_weight_and_boost(void **s) {
    (void)s;
    SCORES(FS("\"query\":{\"match\":{\"t\":\"quick\"}}"), "4:0.21105027,2:0.17657174,1:0.14986342");
    SCORES(FS("\"weight\":3"), "1:3.0,2:3.0,3:3.0,4:3.0");
    /* boost reaches the sub-query's weight (BM25 with boost 2), then * 3 */
    SCORES(FS(QUICK "\"weight\":3,\"boost\":2"), "4:1.2663016,2:1.0594305,1:0.89918053");
    /* replace ignores the sub-query, and so the boost */
    SCORES(FS(QUICK "\"functions\":[{\"field_value_factor\":{\"field\":\"n\",\"factor\":0.7,\"missing\":2}}],"
              "\"boost_mode\":\"replace\",\"boost\":3"),
           "2:3.5,1:0.7,4:0.0");
}

static void test_field_value_factor(void **s) {
    (void)s;
    SCORES(FS(QUICK "\"field_value_factor\":{\"field\":\"p\",\"factor\":1.2,\"modifier\":\"log1p\",\"missing\":1}"),
           "1:0.16987602,2:0.121869124,4:0.0");
    /* a float field reads as the widened double; docs 3 and 4 use missing */
    SCORES(FS("\"field_value_factor\":{\"field\":\"f\",\"modifier\":\"sqrt\",\"missing\":0.5}"),
           "1:1.0488088,3:0.70710677,4:0.70710677,2:0.5477226");
    SCORES(FS("\"field_value_factor\":{\"field\":\"n\",\"modifier\":\"ln2p\"}"),
           "3:2.4849067,2:1.9459101,1:1.0986123,4:0.6931472");
    SCORES(FS(QUICK "\"field_value_factor\":{\"field\":\"n\",\"modifier\":\"square\"},\"max_boost\":20"),
           "2:3.5314348,1:0.14986342,4:0.0");
    /* an unmapped field with missing: every doc gets it */
    SCORES(FS("\"field_value_factor\":{\"field\":\"zz\",\"missing\":2,\"factor\":1.5}"), "1:3.0,2:3.0,3:3.0,4:3.0");
}

static void test_decay(void **s) {
    (void)s;
    SCORES(FS("\"gauss\":{\"n\":{\"origin\":2,\"scale\":4,\"offset\":1,\"decay\":0.3}}"),
           "1:1.0,4:0.9275132,2:0.7400828,3:0.025042856");
    /* doc 3 has no p: distance 0, score 1 */
    SCORES(FS("\"exp\":{\"p\":{\"origin\":5,\"scale\":2}}"), "3:1.0,2:0.5452539,4:0.17677669,1:0.14865088");
    SCORES(FS("\"linear\":{\"n\":{\"origin\":\"0\",\"scale\":\"8\"}}"), "4:1.0,1:0.9375,2:0.6875,3:0.375");
    /* multi-valued m: 1:[1,7] 2:[4] 4:[2,3,30] */
    SCORES(FS("\"gauss\":{\"m\":{\"origin\":5,\"scale\":3}}"), "3:1.0,2:0.9258747,1:0.7348673,4:0.7348673");
    SCORES(FS("\"gauss\":{\"m\":{\"origin\":5,\"scale\":3},\"multi_value_mode\":\"avg\"}"),
           "3:1.0,2:0.9258747,1:0.5,4:4.5208726E-4");
    SCORES(FS("\"gauss\":{\"m\":{\"origin\":5,\"scale\":3},\"multi_value_mode\":\"max\"}"),
           "3:1.0,2:0.9258747,1:0.29163226,4:1.2449136E-21");
    SCORES(FS("\"gauss\":{\"m\":{\"origin\":5,\"scale\":3},\"multi_value_mode\":\"sum\"}"),
           "3:1.0,2:0.9258747,1:0.0625,4:7.888609E-31");
}

static void test_date_decay(void **s) {
    (void)s;
    SCORES(FS("\"gauss\":{\"d\":{\"origin\":\"2020-01-05\",\"scale\":\"3d\",\"offset\":\"12h\"}}"),
           "4:1.0,1:0.38928238,2:0.0625,3:2.0529698E-4");
    /* date math in the origin, an hour scale, a decay */
    SCORES(FS("\"exp\":{\"d\":{\"origin\":\"2020-01-01||+2d\",\"scale\":\"36h\",\"decay\":0.25}}"),
           "4:1.0,1:0.15749013,2:3.8754908E-4,3:2.4414062E-4");
    /* origin now (default): every dated doc is years away, so only the
     * undated doc 4 keeps 1.0 */
    SCORES(FS("\"linear\":{\"d\":{\"scale\":\"1d\"}}"), "4:1.0,1:0.0,2:0.0,3:0.0");
    SCORES(FS("\"linear\":{\"d\":{\"origin\":\"now-1000d/d\",\"scale\":\"1d\"}}"), "4:1.0,1:0.0,2:0.0,3:0.0");
}

#define THREE_FNS                                                                                              \
    "\"functions\":[{\"filter\":{\"term\":{\"k\":\"a\"}},\"weight\":4},{\"filter\":{\"range\":{\"n\":{\"gte\":5}}}," \
    "\"field_value_factor\":{\"field\":\"n\"},\"weight\":0.5},{\"weight\":1.5}]"

static void test_score_modes(void **s) {
    (void)s;
    /* doc 1: k=a (4) and 1.5; docs 2, 3: n*0.5 and 1.5; doc 4: 1.5 */
    SCORES(FS(THREE_FNS), "3:7.5,1:6.0,2:3.75,4:1.5");
    SCORES(FS(THREE_FNS ",\"score_mode\":\"multiply\""), "3:7.5,1:6.0,2:3.75,4:1.5");
    SCORES(FS(THREE_FNS ",\"score_mode\":\"sum\""), "3:6.5,1:5.5,2:4.0,4:1.5");
    /* avg divides by the matching functions' weights */
    SCORES(FS(THREE_FNS ",\"score_mode\":\"avg\""), "3:3.25,2:2.0,1:1.0,4:1.0");
    SCORES(FS(THREE_FNS ",\"score_mode\":\"max\""), "3:5.0,1:4.0,2:2.5,4:1.5");
    SCORES(FS(THREE_FNS ",\"score_mode\":\"min\""), "1:1.5,2:1.5,3:1.5,4:1.5");
    SCORES(FS(THREE_FNS ",\"score_mode\":\"first\""), "3:5.0,1:4.0,2:2.5,4:1.5");
    /* no function matches doc 4: factor 1 */
    SCORES(FS("\"functions\":[{\"filter\":{\"term\":{\"k\":\"a\"}},\"weight\":4},{\"filter\":{\"range\":{\"n\":{\"gte\":5}}},"
              "\"field_value_factor\":{\"field\":\"n\"},\"weight\":0.5}]"),
           "3:5.0,1:4.0,2:2.5,4:1.0");
    /* one function in the array with a match_all filter is the single-function
     * query: FIRST, so avg does not divide by its weight */
    SCORES(FS("\"functions\":[{\"filter\":{\"match_all\":{}},\"field_value_factor\":{\"field\":\"n\"},\"weight\":2}],"
              "\"score_mode\":\"avg\""),
           "3:20.0,2:10.0,1:2.0,4:0.0");
}

static void test_boost_modes(void **s) {
    (void)s;
    SCORES(FS("\"query\":{\"constant_score\":{\"filter\":{\"match_all\":{}},\"boost\":2}}," THREE_FNS
              ",\"score_mode\":\"sum\",\"boost_mode\":\"sum\""),
           "3:8.5,1:7.5,2:6.0,4:3.5");
#define FVF07 "\"functions\":[{\"field_value_factor\":{\"field\":\"n\",\"factor\":0.7,\"missing\":2}}]"
    SCORES(FS(QUICK FVF07 ",\"boost_mode\":\"avg\""), "2:1.8382858,1:0.4249317,4:0.105525136");
    SCORES(FS(QUICK FVF07 ",\"boost_mode\":\"max\""), "2:3.5,1:0.7,4:0.21105027");
    SCORES(FS(QUICK FVF07 ",\"boost_mode\":\"min\""), "2:0.17657174,1:0.14986342,4:0.0");
    SCORES(FS(QUICK FVF07 ",\"boost_mode\":\"multiply\",\"max_boost\":1"), "2:0.17657174,1:0.10490439,4:0.0");
}

static void test_min_score(void **s) {
    (void)s;
    /* reciprocal: 4 -> 1/0 = Infinity, capped at Float.MAX_VALUE; 2 -> 1/5, 1 -> 1/1 */
    SCORES(FS(QUICK "\"field_value_factor\":{\"field\":\"n\",\"modifier\":\"reciprocal\",\"missing\":4},\"min_score\":0.3"),
           "4:7.181668E37");
    /* no functions: the sub-query's score, filtered */
    SCORES(FS(QUICK "\"min_score\":0.16"), "4:0.21105027,2:0.17657174");
    int st;
    char *got;
    st = req("POST", "/fs/_count", FS(QUICK "\"min_score\":0.16"), &got);
    assert_int_equal(st, 200);
    assert_non_null(strstr(got, "\"count\":2"));
    free(got);
    st = req("POST", "/fs/_search", "{\"size\":0,\"query\":{\"function_score\":{" QUICK "\"min_score\":0.16}}}", &got);
    assert_int_equal(st, 200);
    assert_non_null(strstr(got, "\"total\":{\"value\":2,"));
    free(got);
}

static void test_random_score(void **s) {
    (void)s;
    SCORES(FS("\"random_score\":{\"seed\":42,\"field\":\"_seq_no\"}"), "2:0.8451841,4:0.704084,1:0.6418518,3:0.48970777");
    /* a string seed (String.hashCode); doc 4 has no k: the salted seed */
    SCORES(FS("\"random_score\":{\"seed\":\"abc\",\"field\":\"k\"}"), "1:0.7215945,4:0.66298395,3:0.63928646,2:0.5370186");
    /* a long seed (Long.hashCode); numbers hash as Long.toString */
    SCORES(FS("\"random_score\":{\"seed\":12345678901,\"field\":\"n\"}"), "4:0.71021,1:0.51689845,3:0.47290212,2:0.22548205");
    /* a seed without a field hashes _id */
    SCORES(FS(QUICK "\"random_score\":{\"seed\":7},\"boost_mode\":\"sum\""), "2:0.65426195,4:0.59882134,1:0.5850581");
    /* without a seed: a per-request seed, scores in [0, 1) */
    int st;
    char *got;
    st = req("POST", "/fs/_search", FS("\"random_score\":{}"), &got);
    assert_int_equal(st, 200);
    char hs[2048];
    hit_list(got, true, hs, sizeof hs);
    free(got);
    int n = 0;
    for (const char *p = hs; (p = strchr(p, ':')) != NULL; p++, n++) {
        double v = strtod(p + 1, NULL);
        assert_true(v >= 0 && v < 1);
    }
    assert_int_equal(n, 4);
}

static void test_nested(void **s) {
    (void)s;
    /* must: 2 * BM25; should: the keyword term's constant 1.0 */
    SCORES("{\"query\":{\"bool\":{\"must\":[{\"function_score\":{" QUICK "\"weight\":2}}],\"should\":[{\"term\":{\"k\":\"a\"}}]}}}",
           "1:1.2997268,4:0.42210054,2:0.35314348");
    /* filter context: matching only, no function is evaluated (p is
     * missing on doc 3, which would fail when scored) */
    SCORES("{\"query\":{\"bool\":{\"filter\":[{\"function_score\":{\"query\":{\"match\":{\"t\":\"dog\"}},"
           "\"field_value_factor\":{\"field\":\"p\"}}}]}}}",
           "2:0.0,3:0.0");
    /* a must_not function_score over a range stays a function_score:
     * BoolQueryBuilder does not turn it into scoring complement ranges
     * (every doc has one n, so it would for a bare range) */
    SCORES("{\"query\":{\"bool\":{\"must\":[{\"match_all\":{}}],\"must_not\":[{\"function_score\":{\"query\":"
           "{\"range\":{\"n\":{\"gte\":5}}}}}]}}}",
           "1:1.0,4:1.0");
    /* a function_score inside a function's filter */
    SCORES(FS("\"functions\":[{\"filter\":{\"function_score\":{\"query\":{\"term\":{\"k\":\"b\"}},\"weight\":9}},\"weight\":3}]"),
           "2:3.0,1:1.0,3:1.0,4:1.0");
}

#define SPE_HEAD "{\"error\":{\"root_cause\":["
#define FAILED(reason) "\"failed_shards\":[{\"shard\":0,\"index\":\"fs\",\"node\":\"X\",\"reason\":" reason "}]"
#define PE(reason, l, c)                                                                                     \
    "{\"error\":{\"root_cause\":[{\"type\":\"parsing_exception\",\"reason\":\"" reason "\",\"line\":" #l     \
    ",\"col\":" #c "}],\"type\":\"parsing_exception\",\"reason\":\"" reason "\",\"line\":" #l ",\"col\":" #c \
    "},\"status\":400}"
#define SIMPLE(type, reason)                                                                                   \
    "{\"error\":{\"root_cause\":[{\"type\":\"" type "\",\"reason\":\"" reason "\"}],\"type\":\"" type          \
    "\",\"reason\":\"" reason "\"},\"status\":400}"
/* A non-OpenSearch exception raised while scoring. */
#define SPE_IAE(reason)                                                                                         \
    "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"" reason "\"}],\"type\":"     \
    "\"search_phase_execution_exception\",\"reason\":\"all shards failed\",\"phase\":\"query\",\"grouped\":true,"    \
    FAILED("{\"type\":\"illegal_argument_exception\",\"reason\":\"" reason "\"}") ",\"caused_by\":{\"type\":"        \
    "\"illegal_argument_exception\",\"reason\":\"" reason "\",\"caused_by\":{\"type\":"                            \
    "\"illegal_argument_exception\",\"reason\":\"" reason "\"}}},\"status\":400}"

static void test_errors(void **s) {
    (void)s;
    ERR(FS("\"foo\":{\"n\":1}"), 400, SIMPLE("named_object_not_found_exception", "[1:35] unknown field [foo]"));
    /* script_score runs Painless (test_api_script_search.c): its own parse errors */
    EXPECT_HAS("POST", "/fs/_search", FS("\"script_score\":{\"foo\":1}"), 400,
               "\"type\":\"parsing_exception\",\"reason\":\"script_score query does not support [foo]\"");
    EXPECT_HAS("POST", "/fs/_search", FS("\"script_score\":{}"), 400,
               "\"reason\":\"script_score function requires 'script' field\"");
    ERR(FS("\"gauss\":{\"n\":5}"), 400, PE("malformed score function score parameters.", 1, 42));
    ERR(FS("\"gauss\":{}"), 400, PE("malformed score function score parameters.", 1, 38));
    ERR(FS("\"gauss\":{\"n\":{\"origin\":1}}"), 400,
        SPE_HEAD "{\"type\":\"parse_exception\",\"reason\":\"both [scale] and [origin] must be set for numeric fields.\"}],"
        "\"type\":\"search_phase_execution_exception\",\"reason\":\"all shards failed\",\"phase\":\"query\",\"grouped\":true,"
        FAILED("{\"type\":\"query_shard_exception\",\"reason\":\"failed to create query: both [scale] and [origin] must be set "
               "for numeric fields.\",\"index\":\"fs\",\"index_uuid\":\"X\",\"caused_by\":{\"type\":\"parse_exception\","
               "\"reason\":\"both [scale] and [origin] must be set for numeric fields.\"}}")
        ",\"caused_by\":{\"type\":\"parse_exception\",\"reason\":\"both [scale] and [origin] must be set for numeric "
        "fields.\"}},\"status\":400}");
    ERR(FS("\"gauss\":{\"zz\":{\"origin\":1,\"scale\":2}}"), 400,
        SPE_HEAD "{\"type\":\"parsing_exception\",\"reason\":\"unknown field [zz]\",\"index\":\"fs\",\"index_uuid\":\"X\","
        "\"line\":1,\"col\":1}],\"type\":\"search_phase_execution_exception\",\"reason\":\"all shards failed\","
        "\"phase\":\"query\",\"grouped\":true,"
        FAILED("{\"type\":\"parsing_exception\",\"reason\":\"unknown field [zz]\",\"index\":\"fs\",\"index_uuid\":\"X\","
               "\"line\":1,\"col\":1}")
        ",\"caused_by\":{\"type\":\"parsing_exception\",\"reason\":\"unknown field [zz]\",\"index\":\"fs\","
        "\"index_uuid\":\"X\",\"line\":1,\"col\":1}},\"status\":400}");
    ERR(FS("\"gauss\":{\"n\":{\"origin\":1,\"scale\":-2}}"), 400,
        SPE_HEAD "{\"type\":\"query_shard_exception\",\"reason\":\"failed to create query: function_score : scale must be > 0.0.\","
        "\"index\":\"fs\",\"index_uuid\":\"X\"}],\"type\":\"search_phase_execution_exception\",\"reason\":\"all shards failed\","
        "\"phase\":\"query\",\"grouped\":true,"
        FAILED("{\"type\":\"query_shard_exception\",\"reason\":\"failed to create query: function_score : scale must be > 0.0.\","
               "\"index\":\"fs\",\"index_uuid\":\"X\",\"caused_by\":{\"type\":\"illegal_argument_exception\",\"reason\":"
               "\"function_score : scale must be > 0.0.\"}}")
        ",\"caused_by\":{\"type\":\"query_shard_exception\",\"reason\":\"failed to create query: function_score : scale must be "
        "> 0.0.\",\"index\":\"fs\",\"index_uuid\":\"X\",\"caused_by\":{\"type\":\"illegal_argument_exception\",\"reason\":"
        "\"function_score : scale must be > 0.0.\"}}},\"status\":400}");
    ERR(FS("\"gauss\":{\"d\":{\"origin\":\"2020-01-01\",\"scale\":\"3\"}}"), 400,
        SPE_HEAD "{\"type\":\"parse_exception\",\"reason\":\"failed to parse setting [DecayFunctionParser.scale] with value [3] "
        "as a time value: unit is missing or unrecognized\"}],\"type\":\"search_phase_execution_exception\",\"reason\":"
        "\"all shards failed\",\"phase\":\"query\",\"grouped\":true,"
        FAILED("{\"type\":\"query_shard_exception\",\"reason\":\"failed to create query: failed to parse setting "
               "[DecayFunctionParser.scale] with value [3] as a time value: unit is missing or unrecognized\",\"index\":\"fs\","
               "\"index_uuid\":\"X\",\"caused_by\":{\"type\":\"parse_exception\",\"reason\":\"failed to parse setting "
               "[DecayFunctionParser.scale] with value [3] as a time value: unit is missing or unrecognized\"}}")
        ",\"caused_by\":{\"type\":\"parse_exception\",\"reason\":\"failed to parse setting [DecayFunctionParser.scale] with "
        "value [3] as a time value: unit is missing or unrecognized\"}},\"status\":400}");
    /* field_value_factor: a missing value without `missing` fails the
     * shard with an OpenSearchException (500) */
    int st;
    char *got;
    st = req("POST", "/fs/_search", FS("\"field_value_factor\":{\"field\":\"p\"}"), &got);
    assert_int_equal(st, 500);
    assert_non_null(strstr(got, "\"root_cause\":[{\"type\":\"exception\",\"reason\":\"Missing value for field [p]\""));
    assert_non_null(strstr(got, "\"type\":\"search_phase_execution_exception\""));
    free(got);
    /* log of 0: -Infinity, a negative score */
    ERR(FS("\"field_value_factor\":{\"field\":\"n\",\"modifier\":\"log\"}"), 400,
        SPE_IAE("field value function must not produce negative scores, but got: [-Infinity] for field value: [0.0]; "
                "consider using log1p or log2p instead of log to avoid negative scores"));
    ERR(FS("\"field_value_factor\":{\"field\":\"n\",\"factor\":-1}"), 400,
        SPE_IAE("field value function must not produce negative scores, but got: [-1.0] for field value: [1.0]"));
    ERR(FS("\"field_value_factor\":{\"field\":\"n\",\"modifier\":\"bogus\"}"), 400,
        SIMPLE("illegal_argument_exception",
               "No enum constant org.opensearch.common.lucene.search.function.FieldValueFactorFunction.Modifier.BOGUS"));
    ERR(FS("\"field_value_factor\":{\"missing\":1}"), 400, PE("[field_value_factor] required field 'field' missing", 1, 62));
    ERR(FS("\"functions\":[{\"weight\":-1}]"), 400,
        SIMPLE("illegal_argument_exception", "[weight] cannot be negative for a filtering function"));
    ERR(FS("\"score_mode\":\"foo\""), 400,
        SIMPLE("illegal_argument_exception",
               "No enum constant org.opensearch.common.lucene.search.function.FunctionScoreQuery.ScoreMode.FOO"));
    ERR(FS("\"gauss\":{\"n\":{\"origin\":1,\"scale\":2}},\"weight\":2"), 400,
        PE("failed to parse [function_score] query. already found function [gauss], now encountering [weight]. use "
           "[functions] array if you want to define several functions.",
           1, 75));
    ERR(FS("\"functions\":[{\"weight\":2}],\"gauss\":{\"n\":{}}"), 400,
        PE("failed to parse [function_score] query. [you can either define [functions] array or a single function, not "
           "both. already found [functions] array, now encountering [gauss].]",
           1, 64));
    ERR(FS("\"functions\":[{\"filter\":{\"term\":{\"k\":\"a\"}}}]"), 400,
        PE("failed to parse [function_score] query. an entry in functions list is missing a function.", 1, 70));
    ERR(FS("\"functions\":[5]"), 400,
        PE("failed to parse [START_OBJECT]. malformed query, expected a [VALUE_NUMBER] while parsing functions but got a "
           "[function_score] instead",
           1, 42));
    ERR(FS("\"random_score\":{\"seed\":1.5}"), 400,
        PE("random_score seed must be an int, long or string, not 'VALUE_NUMBER'", 1, 52));
}

/* Deleted docs are never scored: doc 3 (no p) deleted, field_value_factor
 * on p without missing succeeds over the others. */
static void test_deleted(void **s) {
    (void)s;
    int st;
    char *got;
    st = req("DELETE", "/fs/_doc/3?refresh=true", NULL, &got);
    assert_int_equal(st, 200);
    free(got);
    SCORES(FS("\"field_value_factor\":{\"field\":\"p\"}"), "1:10.5,2:3.25,4:0.0");
    st = req("POST", "/fs/_count", FS("\"field_value_factor\":{\"field\":\"p\"},\"min_score\":1"), &got);
    assert_int_equal(st, 200);
    assert_non_null(strstr(got, "\"count\":2"));
    free(got);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_weight_and_boost, load, teardown),
        cmocka_unit_test_setup_teardown(test_field_value_factor, load, teardown),
        cmocka_unit_test_setup_teardown(test_decay, load, teardown),
        cmocka_unit_test_setup_teardown(test_date_decay, load, teardown),
        cmocka_unit_test_setup_teardown(test_score_modes, load, teardown),
        cmocka_unit_test_setup_teardown(test_boost_modes, load, teardown),
        cmocka_unit_test_setup_teardown(test_min_score, load, teardown),
        cmocka_unit_test_setup_teardown(test_random_score, load, teardown),
        cmocka_unit_test_setup_teardown(test_nested, load, teardown),
        cmocka_unit_test_setup_teardown(test_errors, load, teardown),
        cmocka_unit_test_setup_teardown(test_deleted, load, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
