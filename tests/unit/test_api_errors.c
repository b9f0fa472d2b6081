/* test_api_errors.c — the error answers of every endpoint, through
 * trove_request, compared byte for byte with what OpenSearch 3.x answers
 * (status, error.type, error.reason, root_cause, caused_by, line/col).
 * Values that change per run (index_uuid, took) are masked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trove.h"

static trove_node *N;

/* Replaces the values of "index_uuid" (unless "_na_"), "node" and "took" with X/0. */
static char *mask(const char *in) {
    size_t n = strlen(in);
    char *out = malloc(n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (strncmp(in + i, "\"index_uuid\":\"", 14) == 0 && strncmp(in + i + 14, "_na_\"", 5) != 0) {
            memcpy(out + o, in + i, 14);
            o += 14;
            i += 14;
            while (i < n && in[i] != '"') i++;
            out[o++] = 'X';
        } else if (strncmp(in + i, "\"node\":\"", 8) == 0) {
            memcpy(out + o, in + i, 8);
            o += 8;
            i += 8;
            while (i < n && in[i] != '"') i++;
            out[o++] = 'X';
        } else if (strncmp(in + i, "\"took\":", 7) == 0) {
            memcpy(out + o, "\"took\":0", 8);
            o += 8;
            i += 7;
            while (i < n && in[i] >= '0' && in[i] <= '9') i++;
        } else {
            out[o++] = in[i++];
        }
    }
    out[o] = '\0';
    return out;
}

static void expect_(const char *m, const char *path, const char *body, int st, const char *want, int line) {
    trove_response r;
    assert_int_equal(trove_request(N, m, path, body, body ? strlen(body) : 0, &r), 0);
    char *got = mask(r.body ? r.body : "");
    if (r.status != st || strcmp(got, want) != 0)
        fail_msg("line %d: %s %s\n want %d %s\n got  %d %s", line, m, path, st, want, r.status, got);
    free(got);
    trove_response_fini(&r);
}
#define EXPECT(m, p, b, st, want) expect_((m), (p), (b), (st), (want), __LINE__)

/* {"error":{"root_cause":[{T,R}],T,R},"status":S} */
#define ERR(st, type, reason)                                                                                  \
    "{\"error\":{\"root_cause\":[{\"type\":\"" type "\",\"reason\":\"" reason "\"}],\"type\":\"" type          \
    "\",\"reason\":\"" reason "\"},\"status\":" #st "}"
/* the same with a caused_by that is not an OpenSearch exception */
#define ERRC(st, type, reason, ctype, creason)                                                                 \
    "{\"error\":{\"root_cause\":[{\"type\":\"" type "\",\"reason\":\"" reason "\"}],\"type\":\"" type          \
    "\",\"reason\":\"" reason "\",\"caused_by\":{\"type\":\"" ctype "\",\"reason\":\"" creason "\"}},\"status\":" #st "}"
/* parsing_exception with line and column */
#define ERRLC(type, reason, l, c)                                                                              \
    "{\"error\":{\"root_cause\":[{\"type\":\"" type "\",\"reason\":\"" reason "\",\"line\":" #l ",\"col\":" #c \
    "}],\"type\":\"" type "\",\"reason\":\"" reason "\",\"line\":" #l ",\"col\":" #c "},\"status\":400}"
#define NOINDEX_INNER(name)                                                                                    \
    "\"type\":\"index_not_found_exception\",\"reason\":\"no such index [" name "]\",\"index\":\"" name         \
    "\",\"resource.id\":\"" name "\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"_na_\""
#define NOINDEX(name) "{\"error\":{\"root_cause\":[{" NOINDEX_INNER(name) "}]," NOINDEX_INNER(name) "},\"status\":404}"
#define CONFLICT_INNER(idx, reason)                                                                            \
    "\"type\":\"version_conflict_engine_exception\",\"reason\":\"" reason "\",\"index\":\"" idx                \
    "\",\"shard\":\"0\",\"index_uuid\":\"X\""
#define CONFLICT(idx, reason)                                                                                  \
    "{\"error\":{\"root_cause\":[{" CONFLICT_INNER(idx, reason) "}]," CONFLICT_INNER(idx, reason) "},\"status\":409}"
#define JACKSON_AT(l, c) "\\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: " #l ", column: " #c "]"
#define NOT_X_CONTENT "Compressor detection can only be called on some xcontent bytes or compressed xcontent bytes"
#define ACK_CREATE(name) "{\"acknowledged\":true,\"shards_acknowledged\":true,\"index\":\"" name "\"}"

static int setup(void **s) {
    (void)s;
    N = trove_node_open(NULL, NULL);
    if (!N) return -1;
    static const char *const mk[][3] = {
        {"PUT", "/m", "{\"settings\":{\"number_of_replicas\":0},\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\"},"
                      "\"k\":{\"type\":\"keyword\"},\"n\":{\"type\":\"long\"}}}}"},
        {"PUT", "/m/_doc/1?refresh=true", "{\"t\":\"quick fox\",\"k\":\"a\",\"n\":1}"},
    };
    for (size_t i = 0; i < sizeof mk / sizeof mk[0]; i++) {
        trove_response r;
        if (trove_request(N, mk[i][0], mk[i][1], mk[i][2], strlen(mk[i][2]), &r) || r.status >= 300) return -1;
        trove_response_fini(&r);
    }
    return 0;
}

static int teardown(void **s) {
    (void)s;
    trove_node_free(N);
    N = NULL;
    return 0;
}

/* GET / and URL parameters shared by every endpoint */
static void test_root_and_params(void **s) {
    (void)s;
    EXPECT("GET", "/?foo=1", NULL, 400,
           ERR(400, "illegal_argument_exception", "request [/] contains unrecognized parameter: [foo]"));
    EXPECT("GET", "/?human=maybe", NULL, 400,
           ERR(400, "illegal_argument_exception", "Failed to parse value [maybe] as only [true] or [false] are allowed."));
    EXPECT("PUT", "/t1?timeout=abc", NULL, 400,
           ERR(400, "illegal_argument_exception",
               "failed to parse setting [timeout] with value [abc] as a time value: unit is missing or unrecognized"));
    EXPECT("DELETE", "/m?master_timeout=5x", NULL, 400,
           ERR(400, "illegal_argument_exception",
               "failed to parse setting [master_timeout] with value [5x] as a time value: unit is missing or unrecognized"));
    EXPECT("GET", "/m/_search?timeout=-5s&size=0", NULL, 400,
           ERR(400, "illegal_argument_exception",
               "failed to parse setting [timeout] with value [-5s] as a time value: negative durations are not supported"));
    EXPECT("PUT", "/t1?timeout=30s&cluster_manager_timeout=1m", NULL, 200, ACK_CREATE("t1"));
    EXPECT("DELETE", "/t1?timeout=-1", NULL, 200, "{\"acknowledged\":true}");
}

static void test_index_create_errors(void **s) {
    (void)s;
    EXPECT("PUT", "/c1", "{\"settings\":{\"index.foo\":1}}", 400,
           ERR(400, "illegal_argument_exception",
               "unknown setting [index.foo] please check that any required plugins are installed, or check the "
               "breaking changes documentation for removed settings"));
    EXPECT("PUT", "/c1", "{\"settings\":{\"number_of_shards\":\"x\"}}", 400,
           ERR(400, "illegal_argument_exception", "Failed to parse value [x] for setting [index.number_of_shards]"));
    EXPECT("PUT", "/c1", "{\"settings\":{\"number_of_shards\":0}}", 400,
           ERR(400, "illegal_argument_exception",
               "Failed to parse value [0] for setting [index.number_of_shards] must be >= 1"));
    /* index.gc_deletes: a dynamic time setting the engine reads */
    EXPECT("PUT", "/c1", "{\"settings\":{\"index\":{\"gc_deletes\":\"abc\"}}}", 400,
           ERR(400, "illegal_argument_exception",
               "failed to parse setting [index.gc_deletes] with value [abc] as a time value: unit is missing or "
               "unrecognized"));
    EXPECT("PUT", "/c1", "{\"settings\":{\"index.gc_deletes\":\"30s\"}}", 200, ACK_CREATE("c1"));
    EXPECT("PUT", "/c2", "{\"mappings\":{\"properties\":{\"a\":{\"type\":\"nope\"}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"mapper_parsing_exception\",\"reason\":\"No handler for type [nope] "
           "declared on field [a]\"}],\"type\":\"mapper_parsing_exception\",\"reason\":\"Failed to parse mapping "
           "[_doc]: No handler for type [nope] declared on field [a]\",\"caused_by\":{\"type\":"
           "\"mapper_parsing_exception\",\"reason\":\"No handler for type [nope] declared on field [a]\"}},"
           "\"status\":400}");
    EXPECT("PUT", "/c2", "{\"mappings\":{\"properties\":{\"a\":{\"type\":\"text\",\"foo\":1}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"mapper_parsing_exception\",\"reason\":\"unknown parameter [foo] "
           "on mapper [a] of type [text]\"}],\"type\":\"mapper_parsing_exception\",\"reason\":\"Failed to parse "
           "mapping [_doc]: unknown parameter [foo] on mapper [a] of type [text]\",\"caused_by\":{\"type\":"
           "\"mapper_parsing_exception\",\"reason\":\"unknown parameter [foo] on mapper [a] of type [text]\"}},"
           "\"status\":400}");
    EXPECT("PUT", "/c2", "{bad", 400,
           ERRC(400, "parse_exception", "Failed to parse content to map", "json_parse_exception",
                "Unexpected character ('b' (code 98)): was expecting double-quote to start field name" JACKSON_AT(1, 2)));
}

static void test_index_missing_everywhere(void **s) {
    (void)s;
    EXPECT("GET", "/nope", NULL, 404, NOINDEX("nope"));
    EXPECT("HEAD", "/nope", NULL, 404, "");
    EXPECT("DELETE", "/nope", NULL, 404, NOINDEX("nope"));
    EXPECT("GET", "/nope/_mapping", NULL, 404, NOINDEX("nope"));
    EXPECT("PUT", "/nope/_mapping", "{\"properties\":{}}", 404, NOINDEX("nope"));
    EXPECT("GET", "/nope/_doc/1", NULL, 404, NOINDEX("nope"));
    EXPECT("HEAD", "/nope/_doc/1", NULL, 404, "");
    EXPECT("GET", "/nope/_source/1", NULL, 404, NOINDEX("nope"));
    EXPECT("DELETE", "/nope/_doc/1", NULL, 404, NOINDEX("nope"));
    EXPECT("GET", "/nope/_search", NULL, 404, NOINDEX("nope"));
    EXPECT("GET", "/nope/_count", NULL, 404, NOINDEX("nope"));
    EXPECT("POST", "/nope/_refresh", NULL, 404, NOINDEX("nope"));
    EXPECT("POST", "/m,nope/_refresh", NULL, 404, NOINDEX("nope"));
    EXPECT("GET", "/m,nope/_search", NULL, 404, NOINDEX("nope"));
    EXPECT("GET", "/nope*/_search?allow_no_indices=false", NULL, 404, NOINDEX("nope*"));
    EXPECT("GET", "/nope*/_count", NULL, 200,
           "{\"count\":0,\"_shards\":{\"total\":0,\"successful\":0,\"skipped\":0,\"failed\":0}}");
    EXPECT("GET", "/m,nope/_count?ignore_unavailable=true", NULL, 200,
           "{\"count\":1,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0}}");
    /* a write to an invalid name fails on the name, a read on the lookup */
    EXPECT("PUT", "/BAD/_doc/1", "{}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"invalid_index_name_exception\",\"reason\":\"Invalid index name "
           "[BAD], must be lowercase\",\"index\":\"BAD\",\"index_uuid\":\"_na_\"}],\"type\":"
           "\"invalid_index_name_exception\",\"reason\":\"Invalid index name [BAD], must be lowercase\",\"index\":"
           "\"BAD\",\"index_uuid\":\"_na_\"},\"status\":400}");
    EXPECT("GET", "/BAD/_doc/1", NULL, 404, NOINDEX("BAD"));
    /* _update auto-creates the index, then misses the document */
    EXPECT("POST", "/upd/_update/1", "{\"doc\":{}}", 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"document_missing_exception\",\"reason\":\"[1]: document "
           "missing\",\"index\":\"upd\",\"shard\":\"0\",\"index_uuid\":\"X\"}],\"type\":\"document_missing_exception\","
           "\"reason\":\"[1]: document missing\",\"index\":\"upd\",\"shard\":\"0\",\"index_uuid\":\"X\"},\"status\":404}");
    EXPECT("HEAD", "/upd", NULL, 200, "");
}

static void test_mapping_errors(void **s) {
    (void)s;
    EXPECT("PUT", "/m/_mapping", "{\"properties\":{\"t\":{\"type\":\"keyword\"}}}", 400,
           ERR(400, "illegal_argument_exception", "mapper [t] cannot be changed from type [text] to [keyword]"));
    EXPECT("PUT", "/m/_mapping", "{\"properties\":{\"n\":{\"type\":\"integer\"}}}", 400,
           ERR(400, "illegal_argument_exception", "mapper [n] cannot be changed from type [long] to [integer]"));
    EXPECT("PUT", "/m/_mapping", "{\"foo\":1}", 400,
           ERR(400, "mapper_parsing_exception", "Root mapping definition has unsupported parameters:  [foo : 1]"));
    EXPECT("PUT", "/m/_mapping", "{\"properties\":{\"x\":{\"type\":\"nope\"}}}", 400,
           ERR(400, "mapper_parsing_exception", "No handler for type [nope] declared on field [x]"));
    EXPECT("PUT", "/m/_mapping", "{bad", 400,
           ERRC(400, "parse_exception", "Failed to parse content to map", "json_parse_exception",
                "Unexpected character ('b' (code 98)): was expecting double-quote to start field name" JACKSON_AT(1, 2)));
    EXPECT("PUT", "/m/_mapping", NULL, 400, ERR(400, "parse_exception", "request body is required"));
    EXPECT("GET", "/m/_mapping?foo=1", NULL, 400,
           ERR(400, "illegal_argument_exception", "request [/m/_mapping] contains unrecognized parameter: [foo]"));
}

static void test_doc_errors(void **s) {
    (void)s;
    EXPECT("PUT", "/m/_doc/2", "{\"n\":\"abc\"}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"mapper_parsing_exception\",\"reason\":\"failed to parse field [n] "
           "of type [long] in document with id '2'. Preview of field's value: 'abc'\"}],\"type\":"
           "\"mapper_parsing_exception\",\"reason\":\"failed to parse field [n] of type [long] in document with id "
           "'2'. Preview of field's value: 'abc'\",\"caused_by\":{\"type\":\"illegal_argument_exception\",\"reason\":"
           "\"For input string: \\\"abc\\\"\"}},\"status\":400}");
    /* content-type detection: a source must start with '{' */
    EXPECT("PUT", "/m/_doc/2", "[1]", 400,
           ERRC(400, "mapper_parsing_exception", "failed to parse", "not_x_content_exception", NOT_X_CONTENT));
    EXPECT("PUT", "/m/_doc/2", "\"x\"", 400,
           ERRC(400, "mapper_parsing_exception", "failed to parse", "not_x_content_exception", NOT_X_CONTENT));
    EXPECT("PUT", "/m/_doc/2", "{\"k\":\"x\"}{\"k\":\"y\"}", 400,
           ERRC(400, "mapper_parsing_exception", "failed to parse", "illegal_argument_exception",
                "Malformed content, found extra data after parsing: START_OBJECT"));
    EXPECT("PUT", "/m/_doc/2", "{\"k\":", 400,
           ERRC(400, "mapper_parsing_exception", "failed to parse", "json_e_o_f_exception",
                "Unexpected end-of-input within/between Object entries" JACKSON_AT(1, 6)));
    EXPECT("PUT", "/m/_doc/2?op_type=foo", "{}", 400,
           ERR(400, "illegal_argument_exception", "opType must be 'create' or 'index', found: [foo]"));
    EXPECT("PUT", "/m/_doc/2?version_type=foo", "{}", 400,
           ERR(400, "illegal_argument_exception", "No version type match [foo]"));
    EXPECT("PUT", "/m/_doc/2?if_seq_no=x&if_primary_term=1", "{}", 400,
           ERRC(400, "illegal_argument_exception", "Failed to parse long parameter [if_seq_no] with value [x]",
                "number_format_exception", "For input string: \\\"x\\\""));
    EXPECT("PUT", "/m/_doc/1?op_type=create", "{}", 409,
           CONFLICT("m", "[1]: version conflict, document already exists (current version [1])"));
    EXPECT("PUT", "/m/_doc/1?if_seq_no=99&if_primary_term=1", "{}", 409,
           CONFLICT("m", "[1]: version conflict, required seqNo [99], primary term [1]. current document has seqNo "
                         "[0] and primary term [1]"));
    EXPECT("DELETE", "/m/_doc/1?if_seq_no=99&if_primary_term=1", NULL, 409,
           CONFLICT("m", "[1]: version conflict, required seqNo [99], primary term [1]. current document has seqNo "
                         "[0] and primary term [1]"));
    EXPECT("PUT", "/m/_doc/9?version=2&version_type=external", "{}", 201,
           "{\"_index\":\"m\",\"_id\":\"9\",\"_version\":2,\"result\":\"created\",\"_shards\":{\"total\":1,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":1,\"_primary_term\":1}");
    EXPECT("PUT", "/m/_doc/9?version=2&version_type=external", "{}", 409,
           CONFLICT("m", "[9]: version conflict, current version [2] is higher or equal to the one provided [2]"));
    EXPECT("GET", "/m/_doc/1?version=abc", NULL, 400,
           ERRC(400, "illegal_argument_exception", "Failed to parse long parameter [version] with value [abc]",
                "number_format_exception", "For input string: \\\"abc\\\""));
    EXPECT("GET", "/m/_doc/1?realtime=x", NULL, 400,
           ERR(400, "illegal_argument_exception", "Failed to parse value [x] as only [true] or [false] are allowed."));
    EXPECT("GET", "/m/_doc/7", NULL, 404, "{\"_index\":\"m\",\"_id\":\"7\",\"found\":false}");
    EXPECT("GET", "/m/_source/7", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"resource_not_found_exception\",\"reason\":\"Document not found "
           "[m]/[7]\"}],\"type\":\"resource_not_found_exception\",\"reason\":\"Document not found [m]/[7]\"},"
           "\"status\":404}");
    EXPECT("PUT", "/m/_doc/", "{}", 405,
           "{\"error\":\"Incorrect HTTP method for uri [/m/_doc/] and method [PUT], allowed: [POST]\",\"status\":405}");
    /* strict mapping */
    EXPECT("PUT", "/st", "{\"mappings\":{\"dynamic\":\"strict\",\"properties\":{\"a\":{\"type\":\"keyword\"}}}}", 200,
           ACK_CREATE("st"));
    EXPECT("PUT", "/st/_doc/1", "{\"zz\":1}", 400,
           ERR(400, "strict_dynamic_mapping_exception",
               "mapping set to strict, dynamic introduction of [zz] within [_doc] is not allowed"));
}

static void test_update_errors(void **s) {
    (void)s;
    EXPECT("POST", "/m/_update/1", "{\"doc\":{\"k\":\"z\"}, \"doc_as_upsert\":\"x\"}", 400,
           ERRC(400, "x_content_parse_exception", "[1:35] [UpdateRequest] failed to parse field [doc_as_upsert]",
                "illegal_argument_exception", "Failed to parse value [x] as only [true] or [false] are allowed."));
    EXPECT("POST", "/m/_update/1", "{\"doc\":{\"k\":\"z\"},\n \"detect_noop\":1}", 400,
           ERR(400, "x_content_parse_exception",
               "[2:16] [UpdateRequest] detect_noop doesn't support values of type: VALUE_NUMBER"));
    EXPECT("POST", "/m/_update/1", "{\"dok\":{}}", 400,
           ERR(400, "x_content_parse_exception", "[1:2] [UpdateRequest] unknown field [dok] did you mean [doc]?"));
    EXPECT("POST", "/m/_update/1", "{\"upsert\":{\"a\":1}}", 400,
           ERR(400, "action_request_validation_exception", "Validation Failed: 1: script or doc is missing;"));
    EXPECT("POST", "/m/_update/1", "{\"doc\":{\"n\":\"abc\"}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"mapper_parsing_exception\",\"reason\":\"failed to parse field [n] "
           "of type [long] in document with id '1'. Preview of field's value: 'abc'\"}],\"type\":"
           "\"mapper_parsing_exception\",\"reason\":\"failed to parse field [n] of type [long] in document with id "
           "'1'. Preview of field's value: 'abc'\",\"caused_by\":{\"type\":\"illegal_argument_exception\",\"reason\":"
           "\"For input string: \\\"abc\\\"\"}},\"status\":400}");
    EXPECT("POST", "/m/_update/1?if_seq_no=99&if_primary_term=1", "{\"doc\":{\"k\":\"z\"}}", 409,
           CONFLICT("m", "[1]: version conflict, required seqNo [99], primary term [1]. current document has seqNo "
                         "[0] and primary term [1]"));
    EXPECT("POST", "/m/_update/1?retry_on_conflict=x", "{\"doc\":{}}", 400,
           ERRC(400, "illegal_argument_exception", "Failed to parse int parameter [retry_on_conflict] with value [x]",
                "number_format_exception", "For input string: \\\"x\\\""));
    EXPECT("POST", "/m/_update/1", "{bad", 400,
           ERR(400, "json_parse_exception",
               "Unexpected character ('b' (code 98)): was expecting double-quote to start field name" JACKSON_AT(1, 2)));
    EXPECT("POST", "/m/_update/1", "{\"doc\":", 400,
           ERR(400, "json_e_o_f_exception", "Unexpected end-of-input within/between Object entries" JACKSON_AT(1, 8)));
    EXPECT("POST", "/m/_update/2", "{\"doc\":{\"k\":\"b\"}}", 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"document_missing_exception\",\"reason\":\"[2]: document "
           "missing\",\"index\":\"m\",\"shard\":\"0\",\"index_uuid\":\"X\"}],\"type\":\"document_missing_exception\","
           "\"reason\":\"[2]: document missing\",\"index\":\"m\",\"shard\":\"0\",\"index_uuid\":\"X\"},\"status\":404}");
}

static void test_mget_errors(void **s) {
    (void)s;
    EXPECT("POST", "/m/_mget", "{}", 400,
           ERR(400, "action_request_validation_exception", "Validation Failed: 1: no documents to get;"));
    EXPECT("POST", "/m/_mget", "{\"ids\":[]}", 400,
           ERR(400, "action_request_validation_exception", "Validation Failed: 1: no documents to get;"));
    EXPECT("POST", "/_mget", "{\"ids\":[\"1\"]}", 400,
           ERR(400, "action_request_validation_exception", "Validation Failed: 1: index is missing for doc 0;"));
    EXPECT("POST", "/m/_mget", "{\"docs\":[{}]}", 400,
           ERR(400, "action_request_validation_exception", "Validation Failed: 1: id is missing for doc 0;"));
    EXPECT("POST", "/m/_mget", "{\"foo\":1}", 400,
           ERRLC("parsing_exception", "unknown key [foo] for a VALUE_NUMBER, expected [docs] or [ids]", 1, 8));
    EXPECT("POST", "/m/_mget", "{\"docs\":[{\"_id\":\"1\",\"foo\":1}]}", 400,
           ERRLC("parsing_exception", "Unknown key for a VALUE_NUMBER in [foo].", 1, 27));
    EXPECT("POST", "/m/_mget", "{\"docs\":[{\"_id\":\"1\"},{\"_index\":\"nope\",\"_id\":\"1\"},{\"_id\":\"5\"}]}", 200,
           "{\"docs\":[{\"_index\":\"m\",\"_id\":\"1\",\"_version\":1,\"_seq_no\":0,\"_primary_term\":1,\"found\":true,"
           "\"_source\":{\"t\":\"quick fox\",\"k\":\"a\",\"n\":1}},{\"_index\":\"nope\",\"_id\":\"1\",\"error\":{"
           "\"root_cause\":[{" NOINDEX_INNER("nope") "}]," NOINDEX_INNER("nope") "}},{\"_index\":\"m\",\"_id\":\"5\","
           "\"found\":false}]}");
}

static void test_bulk_errors(void **s) {
    (void)s;
    /* per-item failures: mapping, missing document, missing index, bad source, conflicts */
    EXPECT("POST", "/_bulk",
           "{\"index\":{\"_index\":\"m\",\"_id\":\"2\"}}\n{\"n\":\"abc\"}\n"
           "{\"update\":{\"_index\":\"m\",\"_id\":\"99\"}}\n{\"doc\":{\"a\":1}}\n"
           "{\"delete\":{\"_index\":\"BAD\",\"_id\":\"1\"}}\n"
           "{\"index\":{\"_index\":\"m\",\"_id\":\"3\"}}\n{\"k\":\n"
           "{\"index\":{\"_index\":\"m\",\"_id\":\"4\"}}\n[1]\n"
           "{\"create\":{\"_index\":\"m\",\"_id\":\"1\"}}\n{}\n",
           200,
           "{\"took\":0,\"errors\":true,\"items\":[{\"index\":{\"_index\":\"m\",\"_id\":\"2\",\"status\":400,\"error\":"
           "{\"type\":\"mapper_parsing_exception\",\"reason\":\"failed to parse field [n] of type [long] in document "
           "with id '2'. Preview of field's value: 'abc'\",\"caused_by\":{\"type\":\"illegal_argument_exception\","
           "\"reason\":\"For input string: \\\"abc\\\"\"}}}},{\"update\":{\"_index\":\"m\",\"_id\":\"99\",\"status\":"
           "404,\"error\":{\"type\":\"document_missing_exception\",\"reason\":\"[99]: document missing\",\"index\":"
           "\"m\",\"shard\":\"0\",\"index_uuid\":\"X\"}}},{\"delete\":{\"_index\":\"BAD\",\"_id\":\"1\",\"status\":404,"
           "\"error\":{" NOINDEX_INNER("BAD") "}}},{\"index\":{\"_index\":\"m\",\"_id\":\"3\",\"status\":400,\"error\":"
           "{\"type\":\"mapper_parsing_exception\",\"reason\":\"failed to parse\",\"caused_by\":{\"type\":"
           "\"json_e_o_f_exception\",\"reason\":\"Unexpected end-of-input within/between Object entries" JACKSON_AT(1, 6)
           "\"}}}},{\"index\":{\"_index\":\"m\",\"_id\":\"4\",\"status\":400,\"error\":{\"type\":"
           "\"mapper_parsing_exception\",\"reason\":\"failed to parse\",\"caused_by\":{\"type\":"
           "\"not_x_content_exception\",\"reason\":\"" NOT_X_CONTENT "\"}}}},{\"create\":{\"_index\":\"m\",\"_id\":"
           "\"1\",\"status\":409,\"error\":{" CONFLICT_INNER("m", "[1]: version conflict, document already exists "
                                                                 "(current version [1])") "}}}]}");
    /* request-level failures */
    EXPECT("POST", "/_bulk", "{\"update\":{\"_index\":\"m\",\"_id\":\"2\"}}\n{\"dok\":{}}\n", 400,
           ERR(400, "x_content_parse_exception", "[1:2] [UpdateRequest] unknown field [dok] did you mean [doc]?"));
    EXPECT("POST", "/_bulk", "{\"delete\":{\"_index\":\"m\"}}\n", 400,
           ERR(400, "action_request_validation_exception", "Validation Failed: 1: id is missing;"));
    EXPECT("POST", "/_bulk", "{\"index\":\"x\"}\n{}\n", 400,
           ERR(400, "illegal_argument_exception",
               "Malformed action/metadata line [1], expected START_OBJECT or END_OBJECT but found [VALUE_STRING]"));
    EXPECT("POST", "/_bulk", "{\"index\":{\"_index\":\"m\",\"_id\":\"7\"},\"x\":1}\n{}\n", 400,
           ERR(400, "illegal_argument_exception",
               "Malformed action/metadata line [1], expected END_OBJECT but found [FIELD_NAME]"));
    EXPECT("POST", "/_bulk?refresh=x", "{\"index\":{\"_index\":\"m\",\"_id\":\"7\"}}\n{}\n", 400,
           ERR(400, "illegal_argument_exception", "Unknown value for refresh: [x]."));
    EXPECT("POST", "/_bulk?foo=x", "{\"index\":{\"_index\":\"m\",\"_id\":\"7\"}}\n{}\n", 400,
           ERR(400, "illegal_argument_exception", "request [/_bulk] contains unrecognized parameter: [foo]"));
    EXPECT("POST", "/_bulk", "{\"index\":{\"_index\":\"m\",\"_id\":\"6\"}}\n", 400,
           ERR(400, "action_request_validation_exception", "Validation Failed: 1: no requests added;"));
}

static void test_search_request_errors(void **s) {
    (void)s;
    EXPECT("GET", "/m/_search?size=abc", NULL, 400,
           ERRC(400, "illegal_argument_exception", "Failed to parse int parameter [size] with value [abc]",
                "number_format_exception", "For input string: \\\"abc\\\""));
    EXPECT("GET", "/m/_search?from=-2", NULL, 400,
           ERR(400, "illegal_argument_exception", "[from] parameter cannot be negative, found [-2]"));
    EXPECT("GET", "/m/_search?size=-1", NULL, 400,
           ERR(400, "illegal_argument_exception", "[size] parameter cannot be negative, found [-1]"));
#define RW "Result window is too large, from + size must be less than or equal to: [10000] but was [10010]. See the " \
           "scroll api for a more efficient way to request large data sets. This limit can be set by changing the " \
           "[index.max_result_window] index level setting."
    EXPECT("GET", "/m/_search?from=10000", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"" RW "\"}],\"type\":"
           "\"search_phase_execution_exception\",\"reason\":\"all shards failed\",\"phase\":\"query\",\"grouped\":"
           "true,\"failed_shards\":[{\"shard\":0,\"index\":\"m\",\"node\":\"X\",\"reason\":{\"type\":"
           "\"illegal_argument_exception\",\"reason\":\"" RW "\"}}],\"caused_by\":{\"type\":\"illegal_argument_exception\","
           "\"reason\":\"" RW "\",\"caused_by\":{\"type\":\"illegal_argument_exception\",\"reason\":\"" RW "\"}}},"
           "\"status\":400}");
#undef RW
    EXPECT("GET", "/m/_search?search_type=foo", NULL, 400,
           ERR(400, "illegal_argument_exception", "No search type for [foo]"));
    EXPECT("GET", "/m/_search?track_total_hits=x", NULL, 400,
           ERR(400, "illegal_argument_exception", "Failed to parse int parameter [track_total_hits] with value [x]"));
    EXPECT("POST", "/m/_search", "{bad", 400,
           ERR(400, "json_parse_exception",
               "Unexpected character ('b' (code 98)): was expecting double-quote to start field name" JACKSON_AT(1, 2)));
    EXPECT("POST", "/m/_search", "{\"query\":", 400,
           ERR(400, "json_e_o_f_exception", "Unexpected end-of-input within/between Object entries" JACKSON_AT(1, 10)));
    EXPECT("POST", "/m/_search", "[1]", 400, ERRLC("parsing_exception", "Expected [START_OBJECT] but found [START_ARRAY]", 1, 1));
    EXPECT("POST", "/m/_search", "{\"query\":{\"match_all\":{}},\"foo\":1}", 400,
           ERRLC("parsing_exception", "Unknown key for a VALUE_NUMBER in [foo].", 1, 33));
    EXPECT("POST", "/m/_search", "{\"query\":{\"nope\":{}}}", 400, ERRLC("parsing_exception", "unknown query [nope]", 1, 18));
    EXPECT("POST", "/m/_search", "{\"post_filter\":{\"nope\":{}}}", 400,
           ERRLC("parsing_exception", "unknown query [nope]", 1, 24));
    EXPECT("POST", "/m/_search", "{\"track_total_hits\":-5}", 400,
           ERR(400, "action_request_validation_exception",
               "Validation Failed: 1: [track_total_hits] parameter must be positive or equals to -1, got -5;"));
    EXPECT("POST", "/m/_search", "{\"sort\":[{\"n\":{\"order\":\"up\"}}]}", 400,
           ERR(400, "illegal_argument_exception", "Unknown SortOrder [up]"));
    EXPECT("POST", "/m/_search", "{\"sort\":[{\"n\":{\"foo\":1}}]}", 400,
           ERRLC("parsing_exception", "[field_sort] unknown field [foo]", 1, 22));
    EXPECT("POST", "/m/_search", "{\"sort\":[\"n\"],\"search_after\":[1],\"from\":1}", 400,
           ERR(400, "illegal_argument_exception", "[from] parameter must be set to 0 when [search_after] is used"));
    EXPECT("GET", "/m/_search?scroll=abc", NULL, 400,
           ERR(400, "illegal_argument_exception",
               "failed to parse setting [scroll] with value [abc] as a time value: unit is missing or unrecognized"));
    EXPECT("POST", "/m/_search", "{\"slice\":{\"id\":0,\"max\":2}}", 400,
           ERR(400, "unsupported_operation_exception", "[slice] is not supported by trove"));
    /* _count */
    EXPECT("GET", "/m/_count?foo=1", NULL, 400,
           ERR(400, "illegal_argument_exception", "request [/m/_count] contains unrecognized parameter: [foo]"));
    EXPECT("POST", "/m/_count", "{\"query\":{\"match_all\":{}},\"size\":1}", 400,
           ERRLC("parsing_exception", "request does not support [size]", 1, 27));
    EXPECT("POST", "/m/_count", "{\"query\":{\"nope\":{}}}", 400, ERRLC("parsing_exception", "unknown query [nope]", 1, 18));
    EXPECT("GET", "/m/_count?min_score=1", NULL, 400,
           ERR(400, "unsupported_operation_exception", "trove does not support the [min_score] parameter of _search"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_root_and_params, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_create_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_missing_everywhere, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mapping_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_doc_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mget_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_search_request_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
