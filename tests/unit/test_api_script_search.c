/* test_api_script_search.c — Painless in searches through trove_request:
 * the doc accessor's types and errors (painless 50_script_doc_values),
 * script_fields with params, params._source and ignore_failure, the
 * index.max_script_fields limit (search/30_limits), the script and
 * script_score queries (painless 30_search, 80_script_score), function
 * score's script_score function, bucket_script and bucket_selector, and
 * the search_phase_execution_exception around a script's
 * ScriptException. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#define API_TEST_MASK_TOOK
#include "api_test.h"

#define FP "?filter_path=hits.hits._id,hits.hits._score,hits.hits.fields,hits.hits._source"

static void load(void) {
    OK("PUT", "/s",
       "{\"mappings\":{\"properties\":{\"n\":{\"type\":\"long\"},\"i\":{\"type\":\"integer\"},\"d\":{\"type\":\"double\"},"
       "\"f\":{\"type\":\"float\"},\"k\":{\"type\":\"keyword\"},\"t\":{\"type\":\"text\"},\"b\":{\"type\":\"boolean\"},"
       "\"ip\":{\"type\":\"ip\"},\"dt\":{\"type\":\"date\"},\"nodv\":{\"type\":\"keyword\",\"doc_values\":false}}}}");
    OK("PUT", "/s/_doc/1",
       "{\"n\":1,\"i\":2,\"d\":1.5,\"f\":0.5,\"k\":\"a\",\"t\":\"hello world\",\"b\":true,\"ip\":\"10.0.0.1\","
       "\"dt\":\"2020-01-01\"}");
    OK("PUT", "/s/_doc/2", "{\"n\":5,\"k\":[\"c\",\"b\"],\"t\":\"hello\",\"b\":false}");
    OK("PUT", "/s/_doc/3?refresh=true", "{\"k\":\"z\"}");
}

static void test_doc_values(void **s) {
    (void)s;
    load();
    /* Longs, Doubles (float widened), Strings sorted, Booleans, ip text */
    EXPECT("POST", "/s/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"1\"]}},\"script_fields\":{"
           "\"n\":{\"script\":\"doc['n'].value + 1\"},\"i\":{\"script\":\"doc['i'].value\"},"
           "\"d\":{\"script\":\"doc['d'].value * 2\"},\"f\":{\"script\":\"doc['f'].value\"},"
           "\"b\":{\"script\":\"doc['b'].value\"},\"ip\":{\"script\":\"doc['ip'].value\"},"
           "\"sz\":{\"script\":\"doc['k'].size() + ':' + doc['k'].empty + ':' + doc['k'][0] + doc['k'].get(0)\"}}}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"_score\":1.0,\"fields\":{\"b\":[true],\"d\":[3.0],\"f\":[0.5],"
           "\"ip\":[\"10.0.0.1\"],\"sz\":[\"1:false:aa\"],\"i\":[2],\"n\":[2]}}]}}");
    /* a multi-valued keyword is a sorted list; a list result is the values */
    EXPECT("POST", "/s/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"2\"]}},\"script_fields\":{\"k\":{\"script\":\"doc['k']\"},"
           "\"v\":{\"script\":\"doc['k'].values\"},\"none\":{\"script\":\"doc['i'].size() == 0 ? null : 1\"}}}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":1.0,\"fields\":{\"v\":[\"b\",\"c\"],\"k\":[\"b\",\"c\"],"
           "\"none\":[null]}}]}}");
    /* .value of a missing value */
    EXPECT_HAS("POST", "/s/_search", "{\"query\":{\"ids\":{\"values\":[\"3\"]}},\"script_fields\":{\"x\":{\"script\":\"doc['n'].value\"}}}",
               400,
               "\"caused_by\":{\"type\":\"illegal_state_exception\",\"reason\":\"A document doesn't have a value for a "
               "field! Use doc[<field>].size()==0 to check if a document is missing a field!\"}");
    /* a field the mapping lacks, text without field data, no doc values */
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"x\":{\"script\":\"doc['nope'].value\"}}}", 400,
               "\"caused_by\":{\"type\":\"illegal_argument_exception\",\"reason\":\"No field found for [nope] in mapping\"}");
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"x\":{\"script\":\"doc['t'].value\"}}}", 400,
               "\"reason\":\"Text fields are not optimised for operations that require per-document field data");
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"x\":{\"script\":\"doc['nodv'].value\"}}}", 400,
               "\"reason\":\"Can't load fielddata on [nodv] because fielddata is unsupported on fields of type [keyword]. "
               "Use doc values instead.\"");
    /* dates have no JodaCompatibleZonedDateTime here: said, not guessed */
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"x\":{\"script\":\"doc['dt'].value\"}}}", 400,
               "\"type\":\"unsupported_operation_exception\",\"reason\":\"trove does not support the doc values of date "
               "field [dt] in scripts (JodaCompatibleZonedDateTime)\"");
}

static void test_script_fields(void **s) {
    (void)s;
    load();
    /* params, params._source; _source is left out unless asked for */
    EXPECT("POST", "/s/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"2\"]}},\"script_fields\":{\"x\":{\"script\":{\"source\":"
           "\"params._source.n * params.m\",\"params\":{\"m\":3}}}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":1.0,\"fields\":{\"x\":[15]}}]}}");
    EXPECT("POST", "/s/_search" FP,
           "{\"_source\":[\"b\"],\"query\":{\"ids\":{\"values\":[\"2\"]}},\"script_fields\":{\"x\":{\"script\":\"'v'\"}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":1.0,\"_source\":{\"b\":false},\"fields\":{\"x\":[\"v\"]}}]}}");
    /* ignore_failure: the failing field is left out */
    EXPECT("POST", "/s/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"3\"]}},\"script_fields\":{\"x\":{\"script\":\"doc['n'].value\","
           "\"ignore_failure\":true},\"y\":{\"script\":\"1\"}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"3\",\"_score\":1.0,\"fields\":{\"y\":[1]}}]}}");
    /* index.max_script_fields */
    OK("PUT", "/lim", "{\"settings\":{\"index.max_script_fields\":2}}");
    EXPECT_HAS("POST", "/lim/_search",
               "{\"script_fields\":{\"a\":{\"script\":\"1\"},\"b\":{\"script\":\"1\"},\"c\":{\"script\":\"1\"}}}", 400,
               "\"reason\":\"Trying to retrieve too many script_fields. Must be less than or equal to: [2] but was [3]. "
               "This limit can be set by changing the [index.max_script_fields] index level setting.\"");
    /* a compile error is the shard's ScriptException */
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"a\":{\"script\":\"1 +\"}}}", 400,
               "{\"error\":{\"root_cause\":[{\"type\":\"script_exception\",\"reason\":\"compile error\",\"script_stack\":"
               "[\"1 +\",\"   ^---- HERE\"],\"script\":\"1 +\",\"lang\":\"painless\",\"position\":{\"offset\":3,\"start\":0,"
               "\"end\":3}}],\"type\":\"search_phase_execution_exception\",\"reason\":\"all shards failed\",\"phase\":\"query\","
               "\"grouped\":true,\"failed_shards\":[{\"shard\":0,\"index\":\"s\",");
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"a\":{\"script\":\"1 +\"}}}", 400,
               "\"reason\":{\"type\":\"script_exception\",\"reason\":\"compile error\",\"script_stack\":[\"1 +\",\"   ^---- HERE\"],"
               "\"script\":\"1 +\",\"lang\":\"painless\",\"position\":{\"offset\":3,\"start\":0,\"end\":3},\"caused_by\":{\"type\":"
               "\"illegal_argument_exception\",\"reason\":\"unexpected end of script.\"}}}],\"caused_by\":{\"type\":"
               "\"script_exception\",\"reason\":\"compile error\"");
    /* the script's lang and the Script.parse errors */
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"a\":{\"script\":{\"source\":\"1\",\"lang\":\"foo\"}}}}", 400,
               "\"reason\":\"script_lang not supported [foo]\"");
    EXPECT_HAS("POST", "/s/_search", "{\"script_fields\":{\"a\":{\"script\":{\"lang\":\"painless\"}}}}", 400,
               "\"reason\":\"must specify either [source] for an inline script or [id] for a stored script\"");
    /* a stored script */
    OK("PUT", "/_scripts/twice", "{\"script\":{\"lang\":\"painless\",\"source\":\"doc['n'].value * 2\"}}");
    EXPECT("POST", "/s/_search" FP,
           "{\"query\":{\"ids\":{\"values\":[\"2\"]}},\"script_fields\":{\"x\":{\"script\":{\"id\":\"twice\"}}}}", 200,
           "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":1.0,\"fields\":{\"x\":[10]}}]}}");
}

static void test_script_queries(void **s) {
    (void)s;
    load();
    /* a filter: constant score (the boost) */
    EXPECT("POST", "/s/_search" FP,
           "{\"_source\":false,\"query\":{\"script\":{\"boost\":2,\"script\":{\"source\":\"doc['n'].size() > 0 && "
           "doc['n'].value > params.x\",\"params\":{\"x\":2}}}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":2.0}]}}");
    /* script_score: _score, params, min_score, boost */
    EXPECT("POST", "/s/_search" FP,
           "{\"_source\":false,\"query\":{\"script_score\":{\"query\":{\"match_all\":{}},\"boost\":2,\"min_score\":3,"
           "\"script\":{\"source\":\"doc['n'].size() == 0 ? 0 : doc['n'].value * params.f + _score\",\"params\":{\"f\":2}}}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":22.0},{\"_id\":\"1\",\"_score\":6.0}]}}");
    EXPECT_HAS("POST", "/s/_search", "{\"query\":{\"script_score\":{\"query\":{\"match_all\":{}},\"script\":\"-1\"}}}", 400,
               "\"reason\":\"script_score script returned an invalid score [-1.0] for doc [0]. Must be a non-negative score!\"");
    /* function_score's script_score function */
    EXPECT("POST", "/s/_search" FP,
           "{\"_source\":false,\"query\":{\"function_score\":{\"query\":{\"exists\":{\"field\":\"n\"}},\"functions\":["
           "{\"script_score\":{\"script\":\"doc['n'].value\"}},{\"filter\":{\"term\":{\"k\":\"a\"}},\"weight\":10}],"
           "\"score_mode\":\"sum\",\"boost_mode\":\"replace\"}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"_score\":11.0},{\"_id\":\"2\",\"_score\":5.0}]}}");
    EXPECT_HAS("POST", "/s/_search", "{\"query\":{\"function_score\":{\"script_score\":{\"script\":\"-2\"}}}}", 400,
               "\"reason\":\"script score function must not produce negative scores, but got: [-2.0]\"");
    /* a runtime error in a query fails the shard */
    EXPECT_HAS("POST", "/s/_search", "{\"query\":{\"script\":{\"script\":\"doc['n'].value > 1\"}}}", 400,
               "\"failed_shards\":[{\"shard\":0,\"index\":\"s\",");
    EXPECT_HAS("POST", "/s/_search", "{\"query\":{\"script\":{\"script\":\"doc['n'].value > 1\"}}}", 400,
               "\"reason\":{\"type\":\"script_exception\",\"reason\":\"runtime error\",\"script_stack\":[\"doc['n'].value > 1\",");
    /* doc is not there without a search context's globals: _score in a filter */
    EXPECT_HAS("POST", "/s/_search", "{\"query\":{\"script\":{\"script\":\"_score > 1\"}}}", 400,
               "\"reason\":\"compile error\"");
    EXPECT_HAS("POST", "/s/_search", "{\"query\":{\"script\":{}}}", 400, "script must be provided with a [script] query");
}

static void test_script_sort(void **s) {
    (void)s;
    load();
    /* number: a double sort value; _score is the query's; scores not shown */
    EXPECT("POST", "/s/_search?filter_path=hits.hits._id,hits.hits._score,hits.hits.sort",
           "{\"sort\":[{\"_script\":{\"type\":\"number\",\"order\":\"desc\",\"script\":{\"source\":"
           "\"(doc['n'].size() == 0 ? 0 : doc['n'].value * params.f) + _score\",\"params\":{\"f\":2}}}}]}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"_score\":null,\"sort\":[11.0]},{\"_id\":\"1\",\"_score\":null,"
           "\"sort\":[3.0]},{\"_id\":\"3\",\"_score\":null,\"sort\":[1.0]}]}}");
    /* string, then _doc */
    EXPECT("POST", "/s/_search?filter_path=hits.hits._id,hits.hits.sort",
           "{\"sort\":[{\"_script\":{\"type\":\"string\",\"script\":\"doc['k'][0] + 'x'\"}},\"_doc\"]}", 200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"sort\":[\"ax\",0]},{\"_id\":\"2\",\"sort\":[\"bx\",1]},"
           "{\"_id\":\"3\",\"sort\":[\"zx\",2]}]}}");
    EXPECT_HAS("POST", "/s/_search", "{\"sort\":[{\"_script\":{\"type\":\"nope\",\"script\":\"1\"}}]}", 400,
               "\"reason\":\"Unknown ScriptSortType [nope]\"");
    EXPECT_HAS("POST", "/s/_search", "{\"sort\":[{\"_script\":{\"type\":\"number\",\"script\":\"'a'\"}}]}", 400,
               "\"caused_by\":{\"type\":\"class_cast_exception\",\"reason\":\"Cannot cast java.lang.String to double\"}");
    EXPECT_HAS("POST", "/s/_search", "{\"sort\":[{\"_script\":{\"script\":\"1\"}}]}", 400, "Required [type]");
}

static void test_bucket_scripts(void **s) {
    (void)s;
    load();
    OK("PUT", "/s/_doc/4?refresh=true", "{\"n\":7,\"k\":\"b\"}");
    EXPECT("POST", "/s/_search?filter_path=aggregations",
           "{\"size\":0,\"aggs\":{\"by\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"s\":{\"sum\":{\"field\":\"n\"}},"
           "\"r\":{\"bucket_script\":{\"buckets_path\":{\"x\":\"s\",\"c\":\"_count\"},\"script\":{\"source\":"
           "\"params.x / params.c * params.f\",\"params\":{\"f\":2}},\"format\":\"0.0\"}},"
           "\"sel\":{\"bucket_selector\":{\"buckets_path\":{\"x\":\"s\"},\"script\":\"params.x > 6\"}}}}}}",
           200,
           "{\"aggregations\":{\"by\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":[{\"key\":"
           "\"b\",\"doc_count\":2,\"s\":{\"value\":12.0},\"r\":{\"value\":12.0,\"value_as_string\":\"12.0\"}}]}}}");
    EXPECT_HAS("POST", "/s/_search",
               "{\"size\":0,\"aggs\":{\"by\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"r\":{\"bucket_script\":{"
               "\"buckets_path\":{\"c\":\"_count\"},\"script\":\"params.c +\"}}}}}}",
               400, "{\"error\":{\"root_cause\":[{\"type\":\"script_exception\",\"reason\":\"compile error\"");
    EXPECT_HAS("POST", "/s/_search",
               "{\"size\":0,\"aggs\":{\"by\":{\"terms\":{\"field\":\"k\"},\"aggs\":{\"r\":{\"bucket_script\":{"
               "\"script\":\"1\"}}}}}}",
               400, "Missing required field [buckets_path] for bucket_script aggregation [r]");
    EXPECT_HAS("POST", "/s/_search",
               "{\"size\":0,\"aggs\":{\"by\":{\"terms\":{\"field\":\"k\"}},\"r\":{\"bucket_selector\":{"
               "\"buckets_path\":{\"c\":\"by._count\"},\"script\":\"true\"}}}}",
               400, "\"reason\":\"Validation Failed: 1: bucket_selector aggregation [r] must be declared inside of another aggregation;\"");
}

/* moving_fn scripts beyond one MovingFunctions call run in Painless with
 * `values` (the window) and the MovingFunctions class, which other
 * contexts do not know. */
static void test_moving_fn_scripts(void **s) {
    (void)s;
    for (int i = 1; i <= 4; i++) {
        char path[32], body[64];
        snprintf(path, sizeof path, "/mf/_doc/%d", i);
        snprintf(body, sizeof body, "{\"t\":%d,\"v\":%d}", i, i * i);
        OK("PUT", path, body);
    }
    OK("POST", "/mf/_refresh", NULL);
    /* windows of 2 before each bucket: [], [1], [1,4], [4,9] */
    const char *q = "{\"size\":0,\"aggs\":{\"h\":{\"histogram\":{\"field\":\"t\",\"interval\":1},\"aggs\":{"
                    "\"s\":{\"sum\":{\"field\":\"v\"}},\"mf\":{\"moving_fn\":{\"buckets_path\":\"s\",\"window\":2,"
                    "\"script\":{\"source\":\"double t = 0; for (double x : values) { t += x } "
                    "return MovingFunctions.max(values) - MovingFunctions.min(values) + t * params.f\","
                    "\"params\":{\"f\":10}}}}}}}}";
    EXPECT_HAS("POST", "/mf/_search", q, 200, "\"key\":1.0,\"doc_count\":1,\"s\":{\"value\":1.0},\"mf\":{\"value\":null}");
    EXPECT_HAS("POST", "/mf/_search", q, 200, "\"key\":2.0,\"doc_count\":1,\"s\":{\"value\":4.0},\"mf\":{\"value\":10.0}");
    EXPECT_HAS("POST", "/mf/_search", q, 200, "\"key\":3.0,\"doc_count\":1,\"s\":{\"value\":9.0},\"mf\":{\"value\":53.0}");
    EXPECT_HAS("POST", "/mf/_search", q, 200, "\"key\":4.0,\"doc_count\":1,\"s\":{\"value\":16.0},\"mf\":{\"value\":135.0}");
    /* a result that is no number */
    EXPECT_HAS("POST", "/mf/_search",
               "{\"size\":0,\"aggs\":{\"h\":{\"histogram\":{\"field\":\"t\",\"interval\":1},\"aggs\":{"
               "\"s\":{\"sum\":{\"field\":\"v\"}},\"mf\":{\"moving_fn\":{\"buckets_path\":\"s\",\"window\":2,"
               "\"script\":\"return 'x'\"}}}}}}",
               400, "\"caused_by\":{\"type\":\"class_cast_exception\",\"reason\":\"Cannot cast java.lang.String to double\"}");
    /* MovingFunctions is the moving-function context's class only */
    EXPECT_HAS("POST", "/mf/_search", "{\"query\":{\"script\":{\"script\":\"MovingFunctions.max([1.0]) > 0\"}}}", 400,
               "\"reason\":\"compile error\"");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_doc_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_script_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_script_queries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_script_sort, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bucket_scripts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_moving_fn_scripts, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
