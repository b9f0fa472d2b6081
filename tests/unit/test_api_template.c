/* test_api_template.c — composable and legacy index templates (put, get,
 * exists, delete, application at index creation: priority, settings and
 * mappings merged with the request, aliases), and _analyze (named
 * analyzers, tokenizer + filters, field and index analyzers, several texts,
 * errors) through trove_request. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"

#include "api_test.h"

static void test_composable(void **s) {
    (void)s;
    EXPECT("PUT", "/_index_template/t1",
           "{\"index_patterns\":[\"logs-*\"],\"priority\":1,\"template\":{\"settings\":{\"number_of_replicas\":0,"
           "\"index.refresh_interval\":\"5s\"},\"mappings\":{\"properties\":{\"ts\":{\"type\":\"date\"},\"m\":{\"type\":"
           "\"keyword\"}}},\"aliases\":{\"all-logs\":{}}},\"version\":3,\"_meta\":{\"by\":\"me\"}}",
           200, "{\"acknowledged\":true}");
    OK("PUT", "/_index_template/t0", "{\"index_patterns\":[\"logs-*\"],\"priority\":0,\"template\":{\"settings\":"
                                     "{\"number_of_shards\":3}}}");
    EXPECT("GET", "/_index_template/t1", NULL, 200,
           "{\"index_templates\":[{\"name\":\"t1\",\"index_template\":{\"index_patterns\":[\"logs-*\"],\"template\":"
           "{\"settings\":{\"index\":{\"refresh_interval\":\"5s\",\"number_of_replicas\":\"0\"}},\"mappings\":"
           "{\"properties\":{\"ts\":{\"type\":\"date\"},\"m\":{\"type\":\"keyword\"}}},\"aliases\":{\"all-logs\":{}}},"
           "\"composed_of\":[],\"priority\":1,\"version\":3,\"_meta\":{\"by\":\"me\"}}}]}");
    EXPECT("GET", "/_index_template/t1?flat_settings&filter_path=**.settings", NULL, 200,
           "{\"index_templates\":[{\"index_template\":{\"template\":{\"settings\":{\"index.number_of_replicas\":\"0\","
           "\"index.refresh_interval\":\"5s\"}}}}]}");
    EXPECT("HEAD", "/_index_template/t1", NULL, 200, "");
    EXPECT("HEAD", "/_index_template/zz", NULL, 404, "");
    EXPECT("GET", "/_index_template/zz", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"resource_not_found_exception\",\"reason\":\"index template "
           "matching [zz] not found\"}],\"type\":\"resource_not_found_exception\",\"reason\":\"index template matching "
           "[zz] not found\"},\"status\":404}");
    EXPECT("GET", "/_index_template/t*?filter_path=index_templates.name", NULL, 200,
           "{\"index_templates\":[{\"name\":\"t0\"},{\"name\":\"t1\"}]}");
    /* applied on creation (explicit and automatic); the request wins */
    OK("PUT", "/logs-1", "{\"settings\":{\"index.refresh_interval\":\"1s\"},\"mappings\":{\"properties\":{\"x\":"
                         "{\"type\":\"long\"}}}}");
    EXPECT("GET", "/logs-1/_settings/index.number_of_*,index.refresh_interval?flat_settings", NULL, 200,
           "{\"logs-1\":{\"settings\":{\"index.number_of_replicas\":\"0\",\"index.number_of_shards\":\"1\","
           "\"index.refresh_interval\":\"1s\"}}}");
    EXPECT("GET", "/logs-1/_mapping", NULL, 200,
           "{\"logs-1\":{\"mappings\":{\"properties\":{\"m\":{\"type\":\"keyword\"},\"ts\":{\"type\":\"date\"},\"x\":"
           "{\"type\":\"long\"}}}}}");
    EXPECT("GET", "/_alias/all-logs", NULL, 200, "{\"logs-1\":{\"aliases\":{\"all-logs\":{}}}}");
    OK("PUT", "/logs-2/_doc/1", "{\"m\":\"v\"}");
    EXPECT("GET", "/logs-2/_mapping", NULL, 200,
           "{\"logs-2\":{\"mappings\":{\"properties\":{\"m\":{\"type\":\"keyword\"},\"ts\":{\"type\":\"date\"}}}}}");
    EXPECT("GET", "/_cluster/health/logs-2?filter_path=status", NULL, 200, "{\"status\":\"green\"}");
    /* not matching: no template */
    OK("PUT", "/other", NULL);
    EXPECT("GET", "/other/_mapping", NULL, 200, "{\"other\":{\"mappings\":{}}}");
    /* errors */
    EXPECT("PUT", "/_index_template/bad", "{\"template\":{}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: index patterns are missing;\"}],\"type\":\"action_request_validation_exception\",\"reason\":"
           "\"Validation Failed: 1: index patterns are missing;\"},\"status\":400}");
    EXPECT_HAS("PUT", "/_index_template/t1?create=true", "{\"index_patterns\":[\"x\"]}", 400,
               "index template [t1] already exists");
    EXPECT("DELETE", "/_index_template/t0", NULL, 200, "{\"acknowledged\":true}");
    EXPECT("DELETE", "/_index_template/t0", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"index_template_missing_exception\",\"reason\":\"index_template "
           "[t0] missing\"}],\"type\":\"index_template_missing_exception\",\"reason\":\"index_template [t0] "
           "missing\"},\"status\":404}");
    EXPECT("DELETE", "/_index_template/*", NULL, 200, "{\"acknowledged\":true}");
    EXPECT("GET", "/_index_template", NULL, 200, "{\"index_templates\":[]}");
}

static void test_legacy(void **s) {
    (void)s;
    OK("PUT", "/_template/low", "{\"index_patterns\":[\"l*\"],\"order\":0,\"settings\":{\"number_of_replicas\":0,"
                                "\"number_of_shards\":2}}");
    OK("PUT", "/_template/high", "{\"index_patterns\":[\"lo*\"],\"order\":5,\"settings\":{\"number_of_shards\":4},"
                                 "\"aliases\":{\"la\":{}}}");
    EXPECT("GET", "/_template/high", NULL, 200,
           "{\"high\":{\"order\":5,\"index_patterns\":[\"lo*\"],\"settings\":{\"index\":{\"number_of_shards\":\"4\"}},"
           "\"mappings\":{},\"aliases\":{\"la\":{}}}}");
    OK("PUT", "/logs", NULL);
    EXPECT("GET", "/logs/_settings/index.number_of_*?flat_settings", NULL, 200,
           "{\"logs\":{\"settings\":{\"index.number_of_replicas\":\"0\",\"index.number_of_shards\":\"4\"}}}");
    EXPECT("GET", "/_alias/la", NULL, 200, "{\"logs\":{\"aliases\":{\"la\":{}}}}");
    EXPECT("GET", "/_template/nope", NULL, 404, "{}");
    OK("DELETE", "/_template/*", NULL);
    EXPECT("GET", "/_template", NULL, 200, "{}");
}

static void test_analyze(void **s) {
    (void)s;
    EXPECT("POST", "/_analyze", "{\"analyzer\":\"standard\",\"text\":\"Hello, World 42\"}", 200,
           "{\"tokens\":[{\"token\":\"hello\",\"start_offset\":0,\"end_offset\":5,\"type\":\"<ALPHANUM>\","
           "\"position\":0},{\"token\":\"world\",\"start_offset\":7,\"end_offset\":12,\"type\":\"<ALPHANUM>\","
           "\"position\":1},{\"token\":\"42\",\"start_offset\":13,\"end_offset\":15,\"type\":\"<NUM>\","
           "\"position\":2}]}");
    /* several texts continue positions (gap 0 for built-ins) and offsets (+1) */
    EXPECT("GET", "/_analyze", "{\"text\":[\"a b\",\"c\"],\"analyzer\":\"whitespace\"}", 200,
           "{\"tokens\":[{\"token\":\"a\",\"start_offset\":0,\"end_offset\":1,\"type\":\"word\",\"position\":0},"
           "{\"token\":\"b\",\"start_offset\":2,\"end_offset\":3,\"type\":\"word\",\"position\":1},"
           "{\"token\":\"c\",\"start_offset\":4,\"end_offset\":5,\"type\":\"word\",\"position\":2}]}");
    EXPECT("POST", "/_analyze", "{\"tokenizer\":\"whitespace\",\"filter\":[\"lowercase\"],\"text\":\"AB Cd\"}", 200,
           "{\"tokens\":[{\"token\":\"ab\",\"start_offset\":0,\"end_offset\":2,\"type\":\"word\",\"position\":0},"
           "{\"token\":\"cd\",\"start_offset\":3,\"end_offset\":5,\"type\":\"word\",\"position\":1}]}");
    /* UTF-16 offsets */
    EXPECT("POST", "/_analyze", "{\"analyzer\":\"whitespace\",\"text\":\"\xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80x\"}", 200,
           "{\"tokens\":[{\"token\":\"\xc3\xa9t\xc3\xa9\",\"start_offset\":0,\"end_offset\":3,\"type\":\"word\","
           "\"position\":0},{\"token\":\"\\uD83D\\uDE00x\",\"start_offset\":4,\"end_offset\":7,\"type\":\"word\","
           "\"position\":1}]}");
    /* index analyzers and field analyzers */
    OK("PUT", "/an", "{\"settings\":{\"analysis\":{\"analyzer\":{\"my\":{\"type\":\"custom\",\"tokenizer\":"
                     "\"whitespace\",\"filter\":[\"uppercase\"]}}}},\"mappings\":{\"properties\":{\"t\":{\"type\":"
                     "\"text\",\"analyzer\":\"my\"},\"k\":{\"type\":\"keyword\"}}}}");
    EXPECT("POST", "/an/_analyze", "{\"field\":\"t\",\"text\":\"a b\"}", 200,
           "{\"tokens\":[{\"token\":\"A\",\"start_offset\":0,\"end_offset\":1,\"type\":\"word\",\"position\":0},"
           "{\"token\":\"B\",\"start_offset\":2,\"end_offset\":3,\"type\":\"word\",\"position\":1}]}");
    EXPECT("POST", "/an/_analyze", "{\"analyzer\":\"my\",\"text\":[\"a\",\"b\"]}", 200,
           "{\"tokens\":[{\"token\":\"A\",\"start_offset\":0,\"end_offset\":1,\"type\":\"word\",\"position\":0},"
           "{\"token\":\"B\",\"start_offset\":2,\"end_offset\":3,\"type\":\"word\",\"position\":101}]}");
    EXPECT("POST", "/an/_analyze", "{\"field\":\"k\",\"text\":\"A b\"}", 200,
           "{\"tokens\":[{\"token\":\"A b\",\"start_offset\":0,\"end_offset\":3,\"type\":\"word\",\"position\":0}]}");
    /* errors */
    EXPECT("POST", "/_analyze", "{\"analyzer\":\"nope\",\"text\":\"x\"}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"failed to find global "
           "analyzer [nope]\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"failed to find global analyzer "
           "[nope]\"},\"status\":400}");
    EXPECT_HAS("POST", "/an/_analyze", "{\"analyzer\":\"nope\",\"text\":\"x\"}", 400, "failed to find analyzer [nope]");
    EXPECT("POST", "/_analyze", "{\"analyzer\":\"standard\"}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: text is missing;\"}],\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: text is missing;\"},\"status\":400}");
    EXPECT_HAS("POST", "/_analyze", "{\"analyzer\":\"standard\",\"tokenizer\":\"whitespace\",\"text\":\"x\"}", 400,
               "custom tokenizer or filters cannot be specified when a named analyzer is used");
    EXPECT_STATUS("POST", "/missing/_analyze", "{\"text\":\"x\"}", 404);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_composable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_legacy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_analyze, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
