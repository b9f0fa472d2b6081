/* test_api_rest.c — trove_request end to end: router, errors, index, document,
 * update, bulk, mget, search/count/refresh, clone. Bodies are compared exactly
 * after masking the values that change per run (took, uuids, dates, auto ids). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"

static trove_node *N;

/* Replaces the string or number value of every masked key with "X"/0. */
static char *mask(const char *in) {
    static const char *const skeys[] = {"index_uuid", "cluster_uuid", "uuid", "creation_date", "node", NULL};
    size_t n = strlen(in);
    char *out = malloc(n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        bool done = false;
        if (in[i] == '"') {
            for (int k = 0; skeys[k] && !done; k++) {
                size_t kl = strlen(skeys[k]);
                if (strncmp(in + i + 1, skeys[k], kl) == 0 && strncmp(in + i + 1 + kl, "\":\"", 3) == 0) {
                    memcpy(out + o, in + i, kl + 4);
                    o += kl + 4;
                    i += kl + 4;
                    while (i < n && in[i] != '"') i++;
                    out[o++] = 'X';
                    done = true;
                }
            }
            if (!done && strncmp(in + i, "\"took\":", 7) == 0) {
                memcpy(out + o, "\"took\":0", 8);
                o += 8;
                i += 7;
                while (i < n && in[i] >= '0' && in[i] <= '9') i++;
                done = true;
            }
        }
        if (!done) out[o++] = in[i++];
    }
    out[o] = '\0';
    return out;
}

static int req(const char *m, const char *path, const char *body, char **out, char **allow) {
    trove_response r;
    int rc = trove_request(N, m, path, body, body ? strlen(body) : 0, &r);
    assert_int_equal(rc, 0);
    assert_non_null(r.content_type);
    if (strcmp(m, "HEAD") != 0 && r.body_len) assert_string_equal(r.content_type, "application/json; charset=UTF-8");
    if (out) *out = mask(r.body);
    if (allow) *allow = r.allow ? strdup(r.allow) : NULL;
    int st = r.status;
    trove_response_fini(&r);
    return st;
}

#define EXPECT(m, p, b, st, want)                                               \
    do {                                                                        \
        char *got_;                                                             \
        int s_ = req((m), (p), (b), &got_, NULL);                               \
        if (s_ != (st) || strcmp(got_, (want)) != 0)                            \
            fail_msg("%s %s\n want %d %s\n got  %d %s", (m), (p), (st), (want), s_, got_); \
        free(got_);                                                             \
    } while (0)

static int setup(void **s) {
    (void)s;
    N = trove_node_open(NULL, NULL);
    return N ? 0 : -1;
}
static int teardown(void **s) {
    (void)s;
    trove_node_free(N);
    N = NULL;
    return 0;
}

static void test_root(void **s) {
    (void)s;
    EXPECT("GET", "/", NULL, 200,
           "{\"name\":\"trove\",\"cluster_name\":\"trove\",\"cluster_uuid\":\"X\",\"version\":{\"distribution\":"
           "\"opensearch\",\"number\":\"" TROVE_OPENSEARCH_VERSION "\",\"build_type\":\"tar\",\"build_hash\":\"trove-"
           TROVE_VERSION_STRING "\",\"build_date\":\"2025-06-19T00:00:00.000000000Z\",\"build_snapshot\":false,"
           "\"lucene_version\":\"" TROVE_LUCENE_VERSION "\",\"minimum_wire_compatibility_version\":\"2.19.0\","
           "\"minimum_index_compatibility_version\":\"2.0.0\"},\"tagline\":\"The OpenSearch Project: "
           "https://opensearch.org/\"}");
    EXPECT("HEAD", "/", NULL, 200, "");
    char *b;
    assert_int_equal(req("GET", "/?pretty", NULL, &b, NULL), 200);
    assert_non_null(strstr(b, "{\n  \"name\" : \"trove\",\n  \"cluster_name\" : \"trove\",\n"));
    free(b);
}

static void test_router(void **s) {
    (void)s;
    char *body, *allow;
    assert_int_equal(req("PATCH", "/idx/_refresh?x=1", NULL, &body, &allow), 405);
    assert_string_equal(body, "{\"error\":\"Incorrect HTTP method for uri [/idx/_refresh?x=1] and method [PATCH], "
                              "allowed: [POST, GET]\",\"status\":405}");
    assert_string_equal(allow, "POST,GET");
    free(body);
    free(allow);
    assert_int_equal(req("BREW", "/", NULL, &body, &allow), 405);
    assert_string_equal(body, "{\"error\":\"Unexpected HTTP method, allowed: [GET, HEAD]\",\"status\":405}");
    free(body);
    free(allow);
    assert_int_equal(req("OPTIONS", "/", NULL, &body, &allow), 200);
    assert_string_equal(allow, "GET,HEAD");
    free(body);
    free(allow);
    EXPECT("GET", "/x/y/z?a=b", NULL, 400, "{\"error\":\"no handler found for uri [/x/y/z] and method [GET]\",\"status\":400}");
    EXPECT("GET", "/x/y/%41", NULL, 400, "{\"error\":\"no handler found for uri [/x/y/A] and method [GET]\",\"status\":400}");
    EXPECT("GET", "/x/y/{z}", NULL, 400, "{\"error\":\"invalid uri has been requested\",\"status\":400}");
    EXPECT("GET", "/_search?foo=1&size=2", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"request [/_search] "
           "contains unrecognized parameter: [foo]\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"request "
           "[/_search] contains unrecognized parameter: [foo]\"},\"status\":400}");
    EXPECT("GET", "/i/_doc/1?zzz=1&sourse=2", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"request [/i/_doc/1] "
           "contains unrecognized parameters: [sourse] -> did you mean [_source]?, [zzz]\"}],\"type\":"
           "\"illegal_argument_exception\",\"reason\":\"request [/i/_doc/1] contains unrecognized parameters: "
           "[sourse] -> did you mean [_source]?, [zzz]\"},\"status\":400}");
    EXPECT("GET", "/?pretty=yes", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Failed to parse value "
           "[yes] as only [true] or [false] are allowed.\"}],\"type\":\"illegal_argument_exception\",\"reason\":"
           "\"Failed to parse value [yes] as only [true] or [false] are allowed.\"},\"status\":400}");
    EXPECT("GET", "/?x=%zz", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"invalid escape "
           "sequence `%zz' at index 0 of: %zz\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"invalid "
           "escape sequence `%zz' at index 0 of: %zz\"},\"status\":400}");
    EXPECT("GET", "/_nodes/hot_threads", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"unsupported_operation_exception\",\"reason\":\"trove does not "
           "support the API [GET /_nodes/hot_threads]\"}],\"type\":\"unsupported_operation_exception\",\"reason\":"
           "\"trove does not support the API [GET /_nodes/hot_threads]\"},\"status\":400}");
    /* the rest of OpenSearch's API answers unsupported by name: never read
     * as an index ("/_cat/tasks" is no index) nor "no handler found" */
    static const char *const apis[][2] = {{"GET", "/_cat/tasks"},      {"POST", "/_snapshot/r/s/_restore"},
                                          {"GET", "/_cat/segments"},   {"GET", "/_cat/fielddata"},
                                          {"GET", "/_search/pipeline"}, {"GET", "/i/_termvectors/1"},
                                          {"POST", "/_cluster/reroute"}};
    for (size_t i = 0; i < sizeof apis / sizeof *apis; i++) {
        char *got = NULL;
        assert_int_equal(req(apis[i][0], apis[i][1], NULL, &got, NULL), 400);
        char want[160];
        snprintf(want, sizeof want, "\"type\":\"unsupported_operation_exception\",\"reason\":\"trove does not support "
                 "the API [%s %s]\"", apis[i][0], apis[i][1]);
        if (!strstr(got, want)) fail_msg("%s %s: %s", apis[i][0], apis[i][1], got);
        free(got);
    }
    /* ... and what trove has answers on its plural paths too */
    char *got = NULL;
    assert_int_equal(req("GET", "/_mappings", NULL, &got, NULL), 200);
    free(got);
    /* "/_search" with DELETE falls through to DELETE /{index}, as in OpenSearch */
    EXPECT("DELETE", "/_search", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"index_not_found_exception\",\"reason\":\"no such index "
           "[_search]\",\"index\":\"_search\",\"resource.id\":\"_search\",\"resource.type\":\"index_or_alias\","
           "\"index_uuid\":\"X\"}],\"type\":\"index_not_found_exception\",\"reason\":\"no such index [_search]\","
           "\"index\":\"_search\",\"resource.id\":\"_search\",\"resource.type\":\"index_or_alias\",\"index_uuid\":"
           "\"X\"},\"status\":404}");
}

#define IIN(name, why)                                                                                       \
    "{\"error\":{\"root_cause\":[{\"type\":\"invalid_index_name_exception\",\"reason\":\"Invalid index name [" \
    name "], " why "\",\"index\":\"" name "\",\"index_uuid\":\"X\"}],\"type\":\"invalid_index_name_exception\"," \
    "\"reason\":\"Invalid index name [" name "], " why "\",\"index\":\"" name "\",\"index_uuid\":\"X\"},"       \
    "\"status\":400}"

static void test_index_lifecycle(void **s) {
    (void)s;
    EXPECT("PUT", "/books", "{\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"}}}}", 200,
           "{\"acknowledged\":true,\"shards_acknowledged\":true,\"index\":\"books\"}");
    EXPECT("HEAD", "/books", NULL, 200, "");
    EXPECT("HEAD", "/nope", NULL, 404, "");
    EXPECT("GET", "/books/_mapping", NULL, 200, "{\"books\":{\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"}}}}}");
    char *b;
    assert_int_equal(req("PUT", "/books", NULL, &b, NULL), 400);
    assert_non_null(strstr(b, "\"type\":\"resource_already_exists_exception\""));
    assert_non_null(strstr(b, "\"index\":\"books\",\"index_uuid\":\"X\"}"));
    free(b);
    EXPECT("PUT", "/Books", NULL, 400, IIN("Books", "must be lowercase"));
    EXPECT("PUT", "/_b", NULL, 400, IIN("_b", "must not start with '_', '-', or '+'"));
    EXPECT("PUT", "/a%23b", NULL, 400, IIN("a#b", "must not contain '#'"));
    EXPECT("PUT", "/a:b", NULL, 400, IIN("a:b", "must not contain ':'"));
    EXPECT("PUT", "/..", NULL, 400, IIN("..", "must not be '.' or '..'"));
    EXPECT("PUT", "/a%3Fb", NULL, 400,
           IIN("a?b", "must not contain the following characters [ , \\\", *, \\\\, <, |, ,, >, /, ?]"));
    EXPECT("PUT", "/x", "{\"foo\":{}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parse_exception\",\"reason\":\"unknown key [foo] for create "
           "index\"}],\"type\":\"parse_exception\",\"reason\":\"unknown key [foo] for create index\"},\"status\":400}");
    EXPECT("PUT", "/x", "{\"mappings\":{\"_doc\":{\"properties\":{}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"The mapping definition "
           "cannot be nested under a type [_doc] unless include_type_name is set to true.\"}],\"type\":"
           "\"illegal_argument_exception\",\"reason\":\"The mapping definition cannot be nested under a type [_doc] "
           "unless include_type_name is set to true.\"},\"status\":400}");
    EXPECT("PUT", "/xa", "{\"aliases\":{\"a\":{}}}", 200,
           "{\"acknowledged\":true,\"shards_acknowledged\":true,\"index\":\"xa\"}");
    EXPECT("GET", "/xa/_alias", NULL, 200, "{\"xa\":{\"aliases\":{\"a\":{}}}}");
    EXPECT("DELETE", "/xa", NULL, 200, "{\"acknowledged\":true}");
    assert_int_equal(req("PUT", "/x", "{bad", &b, NULL), 400);
    assert_non_null(strstr(b, "\"type\":\"parse_exception\",\"reason\":\"Failed to parse content to map\",\"caused_by\":"
                              "{\"type\":\"json_parse_exception\""));
    free(b);
    assert_int_equal(req("GET", "/books", NULL, &b, NULL), 200);
    assert_non_null(strstr(b, "{\"books\":{\"aliases\":{},\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"}}},"
                              "\"settings\":{\"index\":{"));
    free(b);
    EXPECT("PUT", "/books/_mapping", "{\"properties\":{\"year\":{\"type\":\"integer\"}}}", 200, "{\"acknowledged\":true}");
    EXPECT("GET", "/books/_mapping", NULL, 200,
           "{\"books\":{\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"},\"year\":{\"type\":\"integer\"}}}}}");
    EXPECT("PUT", "/books/_mapping", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parse_exception\",\"reason\":\"request body is required\"}],"
           "\"type\":\"parse_exception\",\"reason\":\"request body is required\"},\"status\":400}");
    EXPECT("DELETE", "/books", NULL, 200, "{\"acknowledged\":true}");
    EXPECT("DELETE", "/books", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"index_not_found_exception\",\"reason\":\"no such index [books]\","
           "\"index\":\"books\",\"resource.id\":\"books\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\"}],"
           "\"type\":\"index_not_found_exception\",\"reason\":\"no such index [books]\",\"index\":\"books\","
           "\"resource.id\":\"books\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\"},\"status\":404}");
}

static void test_documents(void **s) {
    (void)s;
    EXPECT("PUT", "/d", "{\"settings\":{\"number_of_replicas\":0}}", 200,
           "{\"acknowledged\":true,\"shards_acknowledged\":true,\"index\":\"d\"}");
    EXPECT("PUT", "/d/_doc/1", "{\"a\":1,\"b\":\"x\"}", 201,
           "{\"_index\":\"d\",\"_id\":\"1\",\"_version\":1,\"result\":\"created\",\"_shards\":{\"total\":1,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":0,\"_primary_term\":1}");
    EXPECT("PUT", "/d/_doc/1?refresh=true", "{\"a\":2,\"b\":\"y\"}", 200,
           "{\"_index\":\"d\",\"_id\":\"1\",\"_version\":2,\"result\":\"updated\",\"forced_refresh\":true,"
           "\"_shards\":{\"total\":1,\"successful\":1,\"failed\":0},\"_seq_no\":1,\"_primary_term\":1}");
    EXPECT("PUT", "/d/_create/1", "{}", 409,
           "{\"error\":{\"root_cause\":[{\"type\":\"version_conflict_engine_exception\",\"reason\":\"[1]: version "
           "conflict, document already exists (current version [2])\",\"index\":\"d\",\"shard\":\"0\","
           "\"index_uuid\":\"X\"}],\"type\":\"version_conflict_engine_exception\",\"reason\":\"[1]: version "
           "conflict, document already exists (current version [2])\",\"index\":\"d\",\"shard\":\"0\","
           "\"index_uuid\":\"X\"},\"status\":409}");
    EXPECT("GET", "/d/_doc/1", NULL, 200,
           "{\"_index\":\"d\",\"_id\":\"1\",\"_version\":2,\"_seq_no\":1,\"_primary_term\":1,\"found\":true,"
           "\"_source\":{\"a\":2,\"b\":\"y\"}}");
    EXPECT("GET", "/d/_doc/1?_source=false", NULL, 200,
           "{\"_index\":\"d\",\"_id\":\"1\",\"_version\":2,\"_seq_no\":1,\"_primary_term\":1,\"found\":true}");
    EXPECT("GET", "/d/_doc/1?_source_excludes=a", NULL, 200,
           "{\"_index\":\"d\",\"_id\":\"1\",\"_version\":2,\"_seq_no\":1,\"_primary_term\":1,\"found\":true,"
           "\"_source\":{\"b\":\"y\"}}");
    EXPECT("GET", "/d/_doc/1?version=1", NULL, 409,
           "{\"error\":{\"root_cause\":[{\"type\":\"version_conflict_engine_exception\",\"reason\":\"[1]: version "
           "conflict, current version [2] is different than the one provided [1]\",\"index\":\"d\",\"shard\":\"0\","
           "\"index_uuid\":\"X\"}],\"type\":\"version_conflict_engine_exception\",\"reason\":\"[1]: version "
           "conflict, current version [2] is different than the one provided [1]\",\"index\":\"d\",\"shard\":\"0\","
           "\"index_uuid\":\"X\"},\"status\":409}");
    EXPECT("GET", "/d/_doc/2", NULL, 404, "{\"_index\":\"d\",\"_id\":\"2\",\"found\":false}");
    EXPECT("HEAD", "/d/_doc/1", NULL, 200, "");
    EXPECT("HEAD", "/d/_doc/2", NULL, 404, "");
    EXPECT("GET", "/d/_source/1", NULL, 200, "{\"a\":2,\"b\":\"y\"}");
    EXPECT("GET", "/d/_source/2", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"resource_not_found_exception\",\"reason\":\"Document not found "
           "[d]/[2]\"}],\"type\":\"resource_not_found_exception\",\"reason\":\"Document not found [d]/[2]\"},"
           "\"status\":404}");
    EXPECT("GET", "/nope/_doc/1", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope]\","
           "\"index\":\"nope\",\"resource.id\":\"nope\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\"}],"
           "\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope]\",\"index\":\"nope\","
           "\"resource.id\":\"nope\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\"},\"status\":404}");
    EXPECT("PUT", "/d/_doc/3", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parse_exception\",\"reason\":\"request body is required\"}],"
           "\"type\":\"parse_exception\",\"reason\":\"request body is required\"},\"status\":400}");
    EXPECT("PUT", "/d/_doc/3?refresh=maybe", "{}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Unknown value for "
           "refresh: [maybe].\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"Unknown value for refresh: "
           "[maybe].\"},\"status\":400}");
    EXPECT("PUT", "/d/_create/3?version=3", "{}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: create operations do not support explicit versions. use index instead;\"}],\"type\":"
           "\"action_request_validation_exception\",\"reason\":\"Validation Failed: 1: create operations do not "
           "support explicit versions. use index instead;\"},\"status\":400}");
    EXPECT("PUT", "/d/_doc/3?if_seq_no=1", "{}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: ifSeqNo is set, but primary term is [0];\"}],\"type\":\"action_request_validation_exception\","
           "\"reason\":\"Validation Failed: 1: ifSeqNo is set, but primary term is [0];\"},\"status\":400}");
    EXPECT("PUT", "/d/_doc/3?pipeline=p", "{}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"pipeline with id [p] "
           "does not exist\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"pipeline with id [p] does not "
           "exist\"},\"status\":400}");
    char *b;
    assert_int_equal(req("PUT", "/d/_doc/4", "{\"a\":", &b, NULL), 400);
    assert_non_null(strstr(b, "{\"type\":\"mapper_parsing_exception\",\"reason\":\"failed to parse\"}]"));
    assert_non_null(strstr(b, "\"caused_by\":{\"type\":\"json_e_o_f_exception\""));
    free(b);
    /* auto ids: 20 URL-safe base64 characters */
    assert_int_equal(req("POST", "/d/_doc", "{\"a\":3}", &b, NULL), 201);
    const char *id = strstr(b, "\"_id\":\"");
    assert_non_null(id);
    id += 7;
    size_t n = strcspn(id, "\"");
    assert_int_equal(n, 20);
    for (size_t i = 0; i < n; i++)
        assert_true((id[i] >= 'A' && id[i] <= 'Z') || (id[i] >= 'a' && id[i] <= 'z') ||
                    (id[i] >= '0' && id[i] <= '9') || id[i] == '-' || id[i] == '_');
    free(b);
    /* auto-create on write, with the default replica count */
    EXPECT("PUT", "/auto/_doc/1", "{\"x\":1}", 201,
           "{\"_index\":\"auto\",\"_id\":\"1\",\"_version\":1,\"result\":\"created\",\"_shards\":{\"total\":2,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":0,\"_primary_term\":1}");
    EXPECT("DELETE", "/d/_doc/1", NULL, 200,
           "{\"_index\":\"d\",\"_id\":\"1\",\"_version\":3,\"result\":\"deleted\",\"_shards\":{\"total\":1,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":3,\"_primary_term\":1}");
    EXPECT("DELETE", "/d/_doc/1", NULL, 404,
           "{\"_index\":\"d\",\"_id\":\"1\",\"_version\":4,\"result\":\"not_found\",\"_shards\":{\"total\":1,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":4,\"_primary_term\":1}");
}

static void test_update(void **s) {
    (void)s;
    EXPECT("PUT", "/u/_doc/1", "{\"n\":1,\"o\":{\"a\":1}}", 201,
           "{\"_index\":\"u\",\"_id\":\"1\",\"_version\":1,\"result\":\"created\",\"_shards\":{\"total\":2,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":0,\"_primary_term\":1}");
    EXPECT("POST", "/u/_update/1?_source=true", "{\"doc\":{\"o\":{\"b\":2},\"m\":3}}", 200,
           "{\"_index\":\"u\",\"_id\":\"1\",\"_version\":2,\"result\":\"updated\",\"_shards\":{\"total\":2,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":1,\"_primary_term\":1,\"get\":{\"_seq_no\":1,"
           "\"_primary_term\":1,\"found\":true,\"_source\":{\"n\":1,\"o\":{\"a\":1,\"b\":2},\"m\":3}}}");
    EXPECT("POST", "/u/_update/1", "{\"doc\":{\"n\":1}}", 200,
           "{\"_index\":\"u\",\"_id\":\"1\",\"_version\":2,\"result\":\"noop\",\"_shards\":{\"total\":0,"
           "\"successful\":0,\"failed\":0},\"_seq_no\":1,\"_primary_term\":1}");
    EXPECT("POST", "/u/_update/1", "{\"doc\":{\"n\":1},\"detect_noop\":false}", 200,
           "{\"_index\":\"u\",\"_id\":\"1\",\"_version\":3,\"result\":\"updated\",\"_shards\":{\"total\":2,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":2,\"_primary_term\":1}");
    EXPECT("POST", "/u/_update/2", "{\"doc\":{\"n\":1}}", 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"document_missing_exception\",\"reason\":\"[2]: document "
           "missing\",\"index\":\"u\",\"shard\":\"0\",\"index_uuid\":\"X\"}],\"type\":\"document_missing_exception\","
           "\"reason\":\"[2]: document missing\",\"index\":\"u\",\"shard\":\"0\",\"index_uuid\":\"X\"},\"status\":404}");
    EXPECT("POST", "/u/_update/2", "{\"doc\":{\"n\":1},\"upsert\":{\"n\":0}}", 201,
           "{\"_index\":\"u\",\"_id\":\"2\",\"_version\":1,\"result\":\"created\",\"_shards\":{\"total\":2,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":3,\"_primary_term\":1}");
    EXPECT("GET", "/u/_source/2", NULL, 200, "{\"n\":0}");
    EXPECT("POST", "/u/_update/3", "{\"doc\":{\"n\":5},\"doc_as_upsert\":true}", 201,
           "{\"_index\":\"u\",\"_id\":\"3\",\"_version\":1,\"result\":\"created\",\"_shards\":{\"total\":2,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":4,\"_primary_term\":1}");
    /* a script and a doc together: UpdateRequest.validate */
    EXPECT("POST", "/u/_update/1", "{\"script\":{\"source\":\"ctx._source.n++\"},\"doc\":{}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: can't provide both script and doc;\"}],\"type\":\"action_request_validation_exception\","
           "\"reason\":\"Validation Failed: 1: can't provide both script and doc;\"},\"status\":400}");
    EXPECT("POST", "/u/_update/1", "{\"dok\":{}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"x_content_parse_exception\",\"reason\":\"[1:2] [UpdateRequest] "
           "unknown field [dok] did you mean [doc]?\"}],\"type\":\"x_content_parse_exception\",\"reason\":\"[1:2] [UpdateRequest] "
           "unknown field [dok] did you mean [doc]?\"},\"status\":400}");
    EXPECT("POST", "/u/_update/1", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: script or doc is missing;\"}],\"type\":\"action_request_validation_exception\",\"reason\":"
           "\"Validation Failed: 1: script or doc is missing;\"},\"status\":400}");
}

static void test_bulk_mget(void **s) {
    (void)s;
    EXPECT("POST", "/_bulk?refresh=true",
           "{\"index\":{\"_index\":\"b\",\"_id\":\"1\"}}\n{\"t\":\"quick fox\"}\n"
           "{\"delete\":{\"_index\":\"b\",\"_id\":\"9\"}}\n"
           "{\"create\":{\"_index\":\"b\",\"_id\":\"1\"}}\n{\"t\":\"x\"}\n"
           "{\"update\":{\"_index\":\"b\",\"_id\":\"1\"}}\n{\"doc\":{\"n\":2}}\n"
           "{\"index\":{\"_index\":\"b\",\"_id\":\"2\"}}\n{\"t\":\"lazy dog\"}\n",
           200,
           "{\"took\":0,\"errors\":true,\"items\":[{\"index\":{\"_index\":\"b\",\"_id\":\"1\",\"_version\":1,"
           "\"result\":\"created\",\"forced_refresh\":true,\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},"
           "\"_seq_no\":0,\"_primary_term\":1,\"status\":201}},{\"delete\":{\"_index\":\"b\",\"_id\":\"9\","
           "\"_version\":1,\"result\":\"not_found\",\"forced_refresh\":true,\"_shards\":{\"total\":2,\"successful\":1,"
           "\"failed\":0},\"_seq_no\":1,\"_primary_term\":1,\"status\":404}},{\"create\":{\"_index\":\"b\",\"_id\":"
           "\"1\",\"status\":409,\"error\":{\"type\":\"version_conflict_engine_exception\",\"reason\":\"[1]: version "
           "conflict, document already exists (current version [1])\",\"index\":\"b\",\"shard\":\"0\","
           "\"index_uuid\":\"X\"}}},{\"update\":{\"_index\":\"b\",\"_id\":\"1\",\"_version\":2,\"result\":\"updated\","
           "\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},\"_seq_no\":2,\"_primary_term\":1,\"status\":200}},"
           "{\"index\":{\"_index\":\"b\",\"_id\":\"2\",\"_version\":1,\"result\":\"created\",\"forced_refresh\":true,"
           "\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},\"_seq_no\":3,\"_primary_term\":1,\"status\":201}}]}");
    EXPECT("POST", "/_bulk", "{\"index\":{\"_index\":\"b\"}}\n{}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"The bulk request must be "
           "terminated by a newline [\\\\n]\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"The bulk request "
           "must be terminated by a newline [\\\\n]\"},\"status\":400}");
    EXPECT("POST", "/_bulk", "\n{\"indx\":{}}\n{}\n", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Malformed "
           "action/metadata line [2], expected field [create], [delete], [index] or [update] but found [indx]\"}],"
           "\"type\":\"illegal_argument_exception\",\"reason\":\"Malformed action/metadata line [2], expected field "
           "[create], [delete], [index] or [update] but found [indx]\"},\"status\":400}");
    EXPECT("POST", "/b/_bulk", "[1]\n", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Malformed "
           "action/metadata line [1], expected START_OBJECT but found [START_ARRAY]\"}],\"type\":"
           "\"illegal_argument_exception\",\"reason\":\"Malformed action/metadata line [1], expected START_OBJECT but "
           "found [START_ARRAY]\"},\"status\":400}");
    EXPECT("POST", "/b/_bulk", "{\"index\":{\"_iid\":1}}\n{}\n", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Action/metadata line "
           "[1] contains an unknown parameter [_iid]\"}],\"type\":\"illegal_argument_exception\",\"reason\":"
           "\"Action/metadata line [1] contains an unknown parameter [_iid]\"},\"status\":400}");
    EXPECT("POST", "/_bulk", "{\"index\":{}}\n{}\n", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: index is missing;\"}],\"type\":\"action_request_validation_exception\",\"reason\":"
           "\"Validation Failed: 1: index is missing;\"},\"status\":400}");
    EXPECT("POST", "/_bulk", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: no requests added;\"}],\"type\":\"action_request_validation_exception\",\"reason\":"
           "\"Validation Failed: 1: no requests added;\"},\"status\":400}");
    EXPECT("POST", "/_mget", "{\"docs\":[{\"_index\":\"b\",\"_id\":\"2\"},{\"_index\":\"zz\",\"_id\":\"1\"},"
                             "{\"_index\":\"b\",\"_id\":\"7\"}]}",
           200,
           "{\"docs\":[{\"_index\":\"b\",\"_id\":\"2\",\"_version\":1,\"_seq_no\":3,\"_primary_term\":1,\"found\":true,"
           "\"_source\":{\"t\":\"lazy dog\"}},{\"_index\":\"zz\",\"_id\":\"1\",\"error\":{\"root_cause\":[{\"type\":"
           "\"index_not_found_exception\",\"reason\":\"no such index [zz]\",\"index\":\"zz\",\"resource.id\":\"zz\","
           "\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\"}],\"type\":\"index_not_found_exception\","
           "\"reason\":\"no such index [zz]\",\"index\":\"zz\",\"resource.id\":\"zz\",\"resource.type\":"
           "\"index_or_alias\",\"index_uuid\":\"X\"}},{\"_index\":\"b\",\"_id\":\"7\",\"found\":false}]}");
    EXPECT("GET", "/b/_mget", "{\"ids\":[\"2\"]}", 200,
           "{\"docs\":[{\"_index\":\"b\",\"_id\":\"2\",\"_version\":1,\"_seq_no\":3,\"_primary_term\":1,\"found\":true,"
           "\"_source\":{\"t\":\"lazy dog\"}}]}");
    EXPECT("GET", "/_mget", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: no documents to get;\"}],\"type\":\"action_request_validation_exception\",\"reason\":"
           "\"Validation Failed: 1: no documents to get;\"},\"status\":400}");

    /* search, count, refresh on what bulk wrote */
    EXPECT("POST", "/b/_count", "{\"query\":{\"match\":{\"t\":\"fox\"}}}", 200,
           "{\"count\":1,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0}}");
    /* URI search on _count: q replaces the (absent) body query */
    EXPECT("GET", "/b/_count?q=t:fox", NULL, 200,
           "{\"count\":1,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0}}");
    char *b;
    assert_int_equal(req("GET", "/b/_search", "{\"query\":{\"match\":{\"t\":\"dog\"}}}", &b, NULL), 200);
    assert_non_null(strstr(b, "\"hits\":{\"total\":{\"value\":1,\"relation\":\"eq\"}"));
    assert_non_null(strstr(b, "\"_id\":\"2\""));
    free(b);
    EXPECT("POST", "/b/_refresh", NULL, 200, "{\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0}}");
    EXPECT("POST", "/b/_search", "{\"query\":{\"foo\":{}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parsing_exception\",\"reason\":\"unknown query [foo]\",\"line\":1,"
           "\"col\":17}],\"type\":\"parsing_exception\",\"reason\":\"unknown query [foo]\",\"line\":1,\"col\":17},"
           "\"status\":400}");
    EXPECT("GET", "/b/_search?size=-1", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"[size] parameter cannot "
           "be negative, found [-1]\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"[size] parameter cannot "
           "be negative, found [-1]\"},\"status\":400}");
    EXPECT("GET", "/b/_search?scroll=1m&size=0", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: [size] cannot be [0] in a scroll context;\"}],\"type\":\"action_request_validation_exception\","
           "\"reason\":\"Validation Failed: 1: [size] cannot be [0] in a scroll context;\"},\"status\":400}");
    EXPECT("PUT", "/num", "{\"mappings\":{\"properties\":{\"n\":{\"type\":\"long\"}}}}", 200,
           "{\"acknowledged\":true,\"shards_acknowledged\":true,\"index\":\"num\"}");
    EXPECT("POST", "/num/_search", "{\"query\":{\"term\":{\"n\":\"abc\"}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"query_shard_exception\",\"reason\":\"failed to create query: For "
           "input string: \\\"abc\\\"\",\"index\":\"num\",\"index_uuid\":\"X\"}],\"type\":"
           "\"search_phase_execution_exception\",\"reason\":\"all shards failed\",\"phase\":\"query\",\"grouped\":true,"
           "\"failed_shards\":[{\"shard\":0,\"index\":\"num\",\"node\":\"X\",\"reason\":{\"type\":"
           "\"query_shard_exception\",\"reason\":\"failed to create query: For input string: \\\"abc\\\"\",\"index\":"
           "\"num\",\"index_uuid\":\"X\",\"caused_by\":{\"type\":\"number_format_exception\",\"reason\":\"For input "
           "string: \\\"abc\\\"\"}}}],\"caused_by\":{\"type\":\"query_shard_exception\",\"reason\":\"failed to create "
           "query: For input string: \\\"abc\\\"\",\"index\":\"num\",\"index_uuid\":\"X\",\"caused_by\":{\"type\":"
           "\"number_format_exception\",\"reason\":\"For input string: \\\"abc\\\"\"}}},\"status\":400}");
}

static void test_clone(void **s) {
    (void)s;
    EXPECT("PUT", "/c/_doc/1?refresh=true", "{\"v\":1}", 201,
           "{\"_index\":\"c\",\"_id\":\"1\",\"_version\":1,\"result\":\"created\",\"forced_refresh\":true,"
           "\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},\"_seq_no\":0,\"_primary_term\":1}");
    trove_node *orig = N;
    trove_node *cl = trove_node_clone(orig, NULL);
    assert_non_null(cl);
    N = cl;
    EXPECT("PUT", "/c/_doc/2?refresh=true", "{\"v\":2}", 201,
           "{\"_index\":\"c\",\"_id\":\"2\",\"_version\":1,\"result\":\"created\",\"forced_refresh\":true,"
           "\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},\"_seq_no\":1,\"_primary_term\":1}");
    EXPECT("GET", "/c/_count", NULL, 200, "{\"count\":2,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0}}");
    EXPECT("DELETE", "/c", NULL, 200, "{\"acknowledged\":true}");
    N = orig;
    EXPECT("GET", "/c/_count", NULL, 200, "{\"count\":1,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0}}");
    EXPECT("GET", "/c/_doc/2", NULL, 404, "{\"_index\":\"c\",\"_id\":\"2\",\"found\":false}");
    trove_node_free(cl);
    EXPECT("GET", "/c/_doc/1", NULL, 200,
           "{\"_index\":\"c\",\"_id\":\"1\",\"_version\":1,\"_seq_no\":0,\"_primary_term\":1,\"found\":true,"
           "\"_source\":{\"v\":1}}");
}

static void test_public_edges(void **s) {
    (void)s;
    trove_response r;
    assert_int_equal(trove_request(NULL, "GET", "/", NULL, 0, &r), TROVE_EARG);
    assert_null(r.body);
    trove_response_fini(&r);
    trove_response_fini(&r);
    trove_response_fini(NULL);
    trove_node_free(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_root, setup, teardown),
        cmocka_unit_test_setup_teardown(test_router, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_lifecycle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_documents, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_mget, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clone, setup, teardown),
        cmocka_unit_test(test_public_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
