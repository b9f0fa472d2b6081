/*
 * test_api_search_extras.c — collapse, rescore and indices_boost through
 * trove_request: which hits come back, their scores (float arithmetic as
 * OpenSearch's: rescore's score modes over query_weight-scaled scores, a
 * boost as (float) (score * boost)), the collapse value in "fields", and
 * the errors (shard failures and OpenSearch's SearchExceptions).
 */
#define API_TEST_MASK_TOOK
#include "api_test.h"

#define HEAD1 "{\"took\":0,\"timed_out\":false,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0},"
#define HEAD2 "{\"took\":0,\"timed_out\":false,\"_shards\":{\"total\":2,\"successful\":2,\"skipped\":0,\"failed\":0},"

static int load(void **s) {
    if (setup(s)) return -1;
    const char *m = "{\"mappings\":{\"properties\":{\"user\":{\"type\":\"keyword\"},\"t\":{\"type\":\"text\"},\"n\":{\"type\":\"long\"},"
                    "\"nodv\":{\"type\":\"keyword\",\"doc_values\":false}}}}";
    OK("PUT", "/c", m);
    OK("POST", "/c/_bulk?refresh=true",
       "{\"index\":{\"_id\":\"1\"}}\n{\"user\":\"a\",\"t\":\"quick fox\",\"n\":1}\n"
       "{\"index\":{\"_id\":\"2\"}}\n{\"user\":\"a\",\"t\":\"quick quick fox\",\"n\":2}\n"
       "{\"index\":{\"_id\":\"3\"}}\n{\"user\":\"b\",\"t\":\"fox\",\"n\":3}\n"
       "{\"index\":{\"_id\":\"4\"}}\n{\"t\":\"quick brown fox\",\"n\":4}\n");
    OK("PUT", "/d", m);
    OK("POST", "/d/_bulk?refresh=true", "{\"index\":{\"_id\":\"1\"}}\n{\"user\":[\"b\"],\"t\":\"fox fox\",\"n\":7}\n"
                                        "{\"index\":{\"_id\":\"2\"}}\n{\"user\":[\"x\",\"y\"],\"t\":\"dog\"}\n");
    return 0;
}

static void test_collapse(void **s) {
    (void)s;
    /* the best hit of each user, groups merged across indices; a doc
     * without the field is the null group; the total counts every match */
    EXPECT("POST", "/c,d/_search", "{\"_source\":false,\"query\":{\"match\":{\"t\":\"fox\"}},\"collapse\":{\"field\":\"user\"}}", 200,
           HEAD2 "\"hits\":{\"total\":{\"value\":5,\"relation\":\"eq\"},\"max_score\":0.39608413,\"hits\":["
                 "{\"_index\":\"d\",\"_id\":\"1\",\"_score\":0.39608413,\"fields\":{\"user\":[\"b\"]}},"
                 "{\"_index\":\"c\",\"_id\":\"1\",\"_score\":0.050171673,\"fields\":{\"user\":[\"a\"]}},"
                 "{\"_index\":\"c\",\"_id\":\"4\",\"_score\":0.04214421,\"fields\":{\"user\":[null]}}]}}");
    /* a numeric field, with size */
    EXPECT("POST", "/c/_search", "{\"_source\":false,\"query\":{\"match\":{\"t\":\"fox\"}},\"collapse\":{\"field\":\"n\"},\"size\":2}", 200,
           HEAD1 "\"hits\":{\"total\":{\"value\":4,\"relation\":\"eq\"},\"max_score\":0.06197677,\"hits\":["
                 "{\"_index\":\"c\",\"_id\":\"3\",\"_score\":0.06197677,\"fields\":{\"n\":[3]}},"
                 "{\"_index\":\"c\",\"_id\":\"1\",\"_score\":0.050171673,\"fields\":{\"n\":[1]}}]}}");
    /* sorted: the group's hit is its best by the sort */
    EXPECT("POST", "/c/_search", "{\"_source\":false,\"sort\":[{\"n\":\"desc\"}],\"collapse\":{\"field\":\"user\"}}", 200,
           HEAD1 "\"hits\":{\"total\":{\"value\":4,\"relation\":\"eq\"},\"max_score\":null,\"hits\":["
                 "{\"_index\":\"c\",\"_id\":\"4\",\"_score\":null,\"fields\":{\"user\":[null]},\"sort\":[4]},"
                 "{\"_index\":\"c\",\"_id\":\"3\",\"_score\":null,\"fields\":{\"user\":[\"b\"]},\"sort\":[3]},"
                 "{\"_index\":\"c\",\"_id\":\"2\",\"_score\":null,\"fields\":{\"user\":[\"a\"]},\"sort\":[2]}]}}");
    EXPECT_HAS("POST", "/c/_search", "{\"collapse\":{\"field\":\"t\"}}", 400,
               "\"reason\":\"unknown type for collapse field `t`, only keywords and numbers are accepted\"");
    EXPECT_HAS("POST", "/c/_search", "{\"collapse\":{\"field\":\"nope\"}}", 400,
               "\"reason\":\"no mapping found for `nope` in order to collapse on\"");
    EXPECT_HAS("POST", "/c/_search", "{\"collapse\":{\"field\":\"nodv\"}}", 400,
               "\"reason\":\"cannot collapse on field `nodv` without `doc_values`\"");
    EXPECT_HAS("POST", "/d/_search", "{\"collapse\":{\"field\":\"user\"}}", 400,
               "\"type\":\"illegal_state_exception\",\"reason\":\"failed to collapse 1, the collapse field must be single valued\"");
    EXPECT_HAS("POST", "/c/_search?scroll=1m", "{\"collapse\":{\"field\":\"user\"}}", 500,
               "\"type\":\"search_exception\",\"reason\":\"cannot use `collapse` in a scroll context\"");
    EXPECT_HAS("POST", "/c/_search", "{\"collapse\":{\"field\":\"user\"},\"rescore\":{\"query\":{\"rescore_query\":{\"match_all\":{}}}}}", 500,
               "\"reason\":\"cannot use `collapse` in conjunction with `rescore`\"");
    /* inner_hits: each group's docs (the query filtered to the group's
     * value, or to docs without one), with the inner hit's own options */
    EXPECT("POST", "/c/_search",
           "{\"_source\":false,\"query\":{\"match\":{\"t\":\"fox\"}},\"collapse\":{\"field\":\"user\",\"inner_hits\":{\"name\":\"recent\","
           "\"sort\":[{\"n\":\"desc\"}],\"size\":2,\"_source\":false}}}", 200,
           HEAD1 "\"hits\":{\"total\":{\"value\":4,\"relation\":\"eq\"},\"max_score\":0.06197677,\"hits\":["
                 "{\"_index\":\"c\",\"_id\":\"3\",\"_score\":0.06197677,\"fields\":{\"user\":[\"b\"]},\"inner_hits\":{\"recent\":{\"hits\":"
                 "{\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[{\"_index\":\"c\",\"_id\":\"3\",\"_score\":null,\"sort\":[3]}]}}}},"
                 "{\"_index\":\"c\",\"_id\":\"1\",\"_score\":0.050171673,\"fields\":{\"user\":[\"a\"]},\"inner_hits\":{\"recent\":{\"hits\":"
                 "{\"total\":{\"value\":2,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[{\"_index\":\"c\",\"_id\":\"2\",\"_score\":null,\"sort\":[2]},"
                 "{\"_index\":\"c\",\"_id\":\"1\",\"_score\":null,\"sort\":[1]}]}}}},"
                 "{\"_index\":\"c\",\"_id\":\"4\",\"_score\":0.04214421,\"fields\":{\"user\":[null]},\"inner_hits\":{\"recent\":{\"hits\":"
                 "{\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[{\"_index\":\"c\",\"_id\":\"4\",\"_score\":null,\"sort\":[4]}]}}}}]}}");
}

static void test_rescore(void **s) {
    (void)s;
    /* window 2 of match:fox (docs 3, 1) rescored with a query neither
     * matches: score * 0.5; docs past the window are scaled too, and all
     * re-sorted (score desc, doc asc): doc 4 stays below despite "brown" */
    EXPECT("POST", "/c/_search",
           "{\"_source\":false,\"query\":{\"match\":{\"t\":\"fox\"}},\"rescore\":{\"window_size\":2,\"query\":{\"rescore_query\":{\"match\":{\"t\":\"brown\"}},"
           "\"query_weight\":0.5,\"rescore_query_weight\":2}}}", 200,
           HEAD1 "\"hits\":{\"total\":{\"value\":4,\"relation\":\"eq\"},\"max_score\":0.030988386,\"hits\":["
                 "{\"_index\":\"c\",\"_id\":\"3\",\"_score\":0.030988386},{\"_index\":\"c\",\"_id\":\"1\",\"_score\":0.025085837},"
                 "{\"_index\":\"c\",\"_id\":\"2\",\"_score\":0.021072105},{\"_index\":\"c\",\"_id\":\"4\",\"_score\":0.021072105}]}}");
    /* two rescorers in turn; max of (first * 2, second) */
    EXPECT("POST", "/c/_search",
           "{\"_source\":false,\"query\":{\"match\":{\"t\":\"quick\"}},\"rescore\":[{\"window_size\":1,\"query\":{\"rescore_query\":{\"match\":{\"t\":\"brown\"}},"
           "\"score_mode\":\"multiply\"}},{\"query\":{\"rescore_query\":{\"term\":{\"user\":\"a\"}},\"query_weight\":2,\"score_mode\":\"max\"}}]}", 200,
           HEAD1 "\"hits\":{\"total\":{\"value\":3,\"relation\":\"eq\"},\"max_score\":1.0,\"hits\":["
                 "{\"_index\":\"c\",\"_id\":\"1\",\"_score\":1.0},{\"_index\":\"c\",\"_id\":\"2\",\"_score\":1.0},{\"_index\":\"c\",\"_id\":\"4\",\"_score\":0.28533998}]}}");
    /* an explicit sort on _score is allowed, with a window larger than the page */
    EXPECT_HAS("POST", "/c/_search",
               "{\"_source\":false,\"size\":1,\"sort\":[\"_score\"],\"query\":{\"match\":{\"t\":\"fox\"}},"
               "\"rescore\":{\"window_size\":3,\"query\":{\"rescore_query\":{\"match\":{\"t\":\"brown\"}},\"rescore_query_weight\":10}}}", 200,
               "\"hits\":[{\"_index\":\"c\",\"_id\":\"3\",");
    EXPECT_HAS("POST", "/c/_search", "{\"sort\":[\"n\"],\"rescore\":{\"query\":{\"rescore_query\":{\"match_all\":{}}}}}", 400,
               "\"reason\":\"Cannot use [sort] option in conjunction with [rescore].\"");
    EXPECT_HAS("POST", "/c/_search", "{\"rescore\":{\"window_size\":10001,\"query\":{\"rescore_query\":{\"match_all\":{}}}}}", 400,
               "\"reason\":\"Rescore window [10001] is too large. It must be less than [10000].");
    EXPECT_HAS("POST", "/c/_search", "{\"rescore\":{\"query\":{\"rescore_query\":{\"match_all\":{}},\"score_mode\":\"nope\"}}}", 400,
               "\"reason\":\"illegal score_mode [nope]\"");
    EXPECT_HAS("POST", "/c/_search", "{\"rescore\":{\"learning_to_rank\":{}}}", 400,
               "\"reason\":\"rescore doesn't support rescorer with name [learning_to_rank]\"");
}

static void test_indices_boost(void **s) {
    (void)s;
    /* the first entry naming the index wins; patterns match names:
     * d's doc 0.39608413 * 0.5, c's 0.06197677 * 3 */
    EXPECT("POST", "/c,d/_search", "{\"_source\":false,\"size\":2,\"query\":{\"match\":{\"t\":\"fox\"}},\"indices_boost\":[{\"d*\":0.5},{\"c\":3}]}", 200,
           HEAD2 "\"hits\":{\"total\":{\"value\":5,\"relation\":\"eq\"},\"max_score\":0.19804206,\"hits\":["
                 "{\"_index\":\"d\",\"_id\":\"1\",\"_score\":0.19804206},{\"_index\":\"c\",\"_id\":\"3\",\"_score\":0.18593031}]}}");
    EXPECT_HAS("POST", "/c/_search", "{\"indices_boost\":\"c\"}", 400, "\"type\":\"parsing_exception\"");
}

/* "fields": values from _source as the mappers read them (normalized and
 * ignore_above keywords, coerced numbers, formatted dates, booleans,
 * multi-fields from the parent's value, object leaves by wildcard),
 * printed in Java HashMap order together with docvalue_fields */
static void test_fetch_fields(void **s) {
    (void)s;
    OK("PUT", "/f",
       "{\"mappings\":{\"properties\":{\"tag\":{\"type\":\"keyword\",\"normalizer\":\"lowercase\",\"ignore_above\":5},"
       "\"n\":{\"type\":\"long\"},\"f\":{\"type\":\"float\"},\"t\":{\"type\":\"text\",\"fields\":{\"kw\":{\"type\":\"keyword\"}}},"
       "\"d\":{\"type\":\"date\"},\"b\":{\"type\":\"boolean\"},\"g\":{\"type\":\"geo_point\"},"
       "\"user\":{\"properties\":{\"name\":{\"type\":\"keyword\"}}}}}}");
    OK("PUT", "/f/_doc/1?refresh=true",
       "{\"tag\":[\"X\",\"toolongvalue\"],\"n\":\"7\",\"f\":1.1,\"t\":\"Fox Jumps\",\"d\":\"2021-01-01\",\"b\":\"true\","
       "\"user\":[{\"name\":\"a\"},{\"name\":\"b\"}],\"g\":[1,2]}");
    EXPECT("POST", "/f/_search",
           "{\"_source\":false,\"fields\":[\"tag\",\"n\",\"f\",\"t\",\"t.kw\",\"b\",{\"field\":\"d\",\"format\":\"epoch_millis\"},\"user.*\",\"nope\"],"
           "\"docvalue_fields\":[\"n\"]}", 200,
           HEAD1 "\"hits\":{\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":1.0,\"hits\":[{\"_index\":\"f\",\"_id\":\"1\",\"_score\":1.0,"
                 "\"fields\":{\"b\":[true],\"t.kw\":[\"Fox Jumps\"],\"t\":[\"Fox Jumps\"],\"d\":[\"1609459200000\"],\"f\":[1.1],"
                 "\"user.name\":[\"a\",\"b\"],\"tag\":[\"x\"],\"n\":[7]}}]}}");
    EXPECT_HAS("POST", "/f/_search", "{\"fields\":[\"g\"]}", 400, "\"reason\":\"[fields] of a [geo_point] field is not supported by trove\"");
    EXPECT_HAS("POST", "/f/_search", "{\"fields\":[{\"field\":\"n\",\"bogus\":1}]}", 400, "[fields] unknown field [bogus]");
}

/* terminate_after: a target stops when a doc arrives after that many were
 * collected; "terminated_early" whenever the option is given; the
 * aggregations see the collected docs only */
static void test_terminate_after(void **s) {
    (void)s;
    EXPECT("POST", "/c/_search?terminate_after=2", "{\"_source\":false,\"sort\":[\"_doc\"],\"aggs\":{\"m\":{\"max\":{\"field\":\"n\"}}}}", 200,
           "{\"took\":0,\"timed_out\":false,\"terminated_early\":true,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0},"
           "\"hits\":{\"total\":{\"value\":2,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[{\"_index\":\"c\",\"_id\":\"1\",\"_score\":null,\"sort\":[0]},"
           "{\"_index\":\"c\",\"_id\":\"2\",\"_score\":null,\"sort\":[1]}]},\"aggregations\":{\"m\":{\"value\":2.0}}}");
    EXPECT_HAS("POST", "/c/_search", "{\"size\":0,\"terminate_after\":4}", 200,
               "\"timed_out\":false,\"terminated_early\":false,");
    EXPECT("POST", "/c/_count?terminate_after=1", NULL, 200,
           "{\"count\":1,\"terminated_early\":true,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0}}");
}

/* The search timeout: past it collection stops and the partial results
 * come back with timed_out true (a deadline of one nanosecond has passed
 * at the first check, so nothing is collected); the URL's overrides the
 * body's; 0 and -1 mean none. */
static void test_timeout(void **s) {
    (void)s;
    const char *q = "{\"timeout\":\"1nanos\",\"aggs\":{\"m\":{\"max\":{\"field\":\"n\"}}}}";
    EXPECT_HAS("POST", "/c/_search", q, 200,
               "{\"took\":0,\"timed_out\":true,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0},"
               "\"hits\":{\"total\":{\"value\":0,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[]},\"aggregations\":{\"m\":"
               "{\"value\":null}}}");
    EXPECT_HAS("POST", "/c,d/_search?timeout=1nanos", "{\"size\":0}", 200, "\"timed_out\":true,");
    EXPECT_HAS("POST", "/c/_search?timeout=1m", q, 200, "\"timed_out\":false,");
    EXPECT_HAS("POST", "/c/_search", "{\"timeout\":\"0\"}", 200, "\"timed_out\":false,\"_shards\":{\"total\":1,"
                                                                  "\"successful\":1,\"skipped\":0,\"failed\":0},\"hits\":{\"total\":{\"value\":4,");
    EXPECT_HAS("POST", "/c/_search?timeout=-1", NULL, 200, "\"timed_out\":false,");
    EXPECT_HAS("POST", "/c/_search?timeout=1x", NULL, 400, "failed to parse setting [timeout] with value [1x] as a time value");
}

/* keyword, ip and boolean fields with index:false and doc values are
 * searchable (OpenSearch 3 queries their doc values), constant-scored */
static void test_doc_values_only_fields(void **s) {
    (void)s;
    OK("PUT", "/dv", "{\"mappings\":{\"properties\":{\"k\":{\"type\":\"keyword\",\"index\":false},"
                     "\"ip\":{\"type\":\"ip\",\"index\":false},\"b\":{\"type\":\"boolean\",\"index\":false}}}}");
    OK("PUT", "/dv/_doc/1?refresh=true", "{\"k\":\"xyz\",\"ip\":\"10.1.2.3\",\"b\":true}");
    OK("PUT", "/dv/_doc/2?refresh=true", "{\"k\":\"abc\",\"ip\":\"10.9.9.9\",\"b\":false}");
    const char *qs[] = {"{\"term\":{\"k\":\"xyz\"}}",      "{\"prefix\":{\"k\":\"xy\"}}",
                        "{\"regexp\":{\"k\":\"x.z\"}}",      "{\"term\":{\"ip\":\"10.1.0.0/16\"}}",
                        "{\"term\":{\"ip\":\"10.1.2.3\"}}",  "{\"term\":{\"b\":true}}"};
    for (size_t i = 0; i < sizeof qs / sizeof *qs; i++) {
        char body[256];
        snprintf(body, sizeof body, "{\"query\":%s}", qs[i]);
        EXPECT("POST", "/dv/_search?filter_path=hits.max_score,hits.hits._id", body, 200,
               "{\"hits\":{\"max_score\":1.0,\"hits\":[{\"_id\":\"1\"}]}}");
    }
}

/* docvalue_fields naming a field twice (two formats) list both renderings */
static void test_docvalue_fields_repeated(void **s) {
    (void)s;
    OK("PUT", "/dvf", "{\"mappings\":{\"properties\":{\"d\":{\"type\":\"date\"}}}}");
    OK("PUT", "/dvf/_doc/1?refresh=true", "{\"d\":\"2018-10-29T12:12:12.987Z\"}");
    EXPECT("POST", "/dvf/_search?filter_path=hits.hits.fields",
           "{\"docvalue_fields\":[{\"field\":\"d\",\"format\":\"strict_date_optional_time\"},"
           "{\"field\":\"d\",\"format\":\"epoch_millis\"},\"d\"]}",
           200, "{\"hits\":{\"hits\":[{\"fields\":{\"d\":[\"2018-10-29T12:12:12.987Z\",\"1540815132987\","
                "\"2018-10-29T12:12:12.987Z\"]}}]}}");
}

/* "fields" checks: a format only for dates, none with _source disabled;
 * stored_fields of "store": true fields give their values */
static void test_fetch_fields_checks(void **s) {
    (void)s;
    OK("PUT", "/ff", "{\"mappings\":{\"properties\":{\"k\":{\"type\":\"keyword\"},\"i\":{\"type\":\"integer\","
                     "\"store\":true},\"d\":{\"type\":\"date\",\"store\":true}}}}");
    OK("PUT", "/ff/_doc/1?refresh=true", "{\"k\":\"a\",\"i\":\"42\",\"d\":\"2020-01-02\"}");
    EXPECT_HAS("POST", "/ff/_search", "{\"fields\":[{\"field\":\"k\",\"format\":\"yyyy\"}]}", 400,
               "\"reason\":\"Field [k] of type [keyword] doesn't support formats.\"");
    EXPECT("POST", "/ff/_search?filter_path=hits.hits.fields",
           "{\"fields\":[{\"field\":\"d\",\"format\":\"yyyy\"}],\"_source\":false}", 200,
           "{\"hits\":{\"hits\":[{\"fields\":{\"d\":[\"2020\"]}}]}}");
    EXPECT("POST", "/ff/_search?filter_path=hits.hits", "{\"stored_fields\":[\"i\",\"k\"],\"_source\":false}", 200,
           "{\"hits\":{\"hits\":[{\"_index\":\"ff\",\"_id\":\"1\",\"_score\":1.0,\"fields\":{\"i\":[42]}}]}}");
    OK("PUT", "/nosrc", "{\"mappings\":{\"_source\":{\"enabled\":false},\"properties\":{\"k\":{\"type\":\"keyword\"}}}}");
    OK("PUT", "/nosrc/_doc/1?refresh=true", "{\"k\":\"a\"}");
    EXPECT_HAS("POST", "/nosrc/_search", "{\"fields\":[\"k\"]}", 400,
               "Unable to retrieve the requested [fields] since _source is disabled in the mappings for index "
               "[nosrc]");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collapse),
        cmocka_unit_test(test_rescore),
        cmocka_unit_test(test_indices_boost),
        cmocka_unit_test(test_fetch_fields),
        cmocka_unit_test(test_terminate_after),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_doc_values_only_fields),
        cmocka_unit_test(test_docvalue_fields_repeated),
        cmocka_unit_test(test_fetch_fields_checks),
    };
    return cmocka_run_group_tests(tests, load, teardown);
}
