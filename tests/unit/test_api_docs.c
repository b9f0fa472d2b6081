/* test_api_docs.c — details of the document APIs through trove_request:
 * mget's per-document FetchSourceContext and the keys MultiGetRequest
 * refuses, an update of a missing document under if_seq_no, and the
 * UpdateRequest parser's "did you mean". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"

#include "api_test.h"

static void test_mget_source_and_keys(void **s) {
    (void)s;
    OK("PUT", "/t/_doc/1?refresh=true", "{\"inc\":{\"a\":1,\"b\":2},\"n\":1}");
    /* {include, exclude} are FetchSourceContext's singular spellings */
    EXPECT("GET", "/_mget?filter_path=docs._source",
           "{\"docs\":[{\"_index\":\"t\",\"_id\":\"1\",\"_source\":{\"include\":\"inc.a\"}},"
           "{\"_index\":\"t\",\"_id\":\"1\",\"_source\":{\"include\":[\"inc\"],\"exclude\":[\"*.b\"]}},"
           "{\"_index\":\"t\",\"_id\":\"1\",\"_source\":{\"includes\":[\"n\"]}}]}",
           200,
           "{\"docs\":[{\"_source\":{\"inc\":{\"a\":1}}},{\"_source\":{\"inc\":{\"a\":1}}},{\"_source\":{\"n\":1}}]}");
    /* _routing and _version were removed from MultiGetRequest's parser */
    EXPECT_HAS("GET", "/_mget", "{\"docs\":[{\"_index\":\"t\",\"_id\":\"1\",\"_routing\":\"r\"}]}", 400,
               "Unknown key for a VALUE_STRING in [_routing].");
    EXPECT_HAS("GET", "/_mget", "{\"docs\":[{\"_index\":\"t\",\"_id\":\"1\",\"_version\":1}]}", 400,
               "Unknown key for a VALUE_NUMBER in [_version].");
    EXPECT_HAS("GET", "/_mget?filter_path=docs.found", "{\"docs\":[{\"_index\":\"t\",\"_id\":\"1\",\"routing\":\"r\"}]}",
               200, "{\"docs\":[{\"found\":");
}

static void test_update_details(void **s) {
    (void)s;
    OK("PUT", "/t", NULL);
    /* nothing to update and nothing to upsert: document missing, whatever if_seq_no says */
    EXPECT_HAS("POST", "/t/_update/1?if_seq_no=1&if_primary_term=1", "{\"doc\":{\"a\":1}}", 404,
               "\"type\":\"document_missing_exception\"");
    /* an upsert meets the condition and fails it */
    EXPECT_HAS("POST", "/t/_update/1?if_seq_no=1&if_primary_term=1", "{\"doc\":{\"a\":1},\"upsert\":{\"a\":0}}", 409,
               "but no document was found");
    EXPECT_HAS("POST", "/t/_update/1", "{\"dac\":{\"a\":1},\"upsert\":{\"a\":0}}", 400,
               "\"reason\":\"[1:2] [UpdateRequest] unknown field [dac] did you mean [doc]?\"");
    EXPECT_HAS("POST", "/t/_update/1", "{\"zzzz\":1}", 400, "\"reason\":\"[1:2] [UpdateRequest] unknown field [zzzz]\"");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_mget_source_and_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_details, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
