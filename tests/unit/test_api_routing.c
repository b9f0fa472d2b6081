/* test_api_routing.c — shard routing emulation and the write flags around
 * it, through trove_request and the routing helpers: OpenSearch's
 * Murmur3HashFunction values, default routing_num_shards, shard ids, a
 * document on another shard than the request's routing is not found
 * (get, HEAD, _source, delete, update, _mget, _bulk delete),
 * routing_missing_exception with _routing.required, require_alias on
 * index/_update/_bulk, an empty bulk _id, FetchSourceContext strings in
 * bulk update _source, GET version checks, _type in a bulk action, and
 * error_trace=true's stack_trace (Java toString lines, no frames). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"

static trove_node *N;

/* Masks the value of "index_uuid" (to "X") and "took" (to 0). */
static char *mask(const char *in) {
    size_t n = strlen(in);
    char *out = malloc(n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (strncmp(in + i, "\"index_uuid\":\"", 14) == 0) {
            memcpy(out + o, in + i, 14);
            o += 14;
            i += 14;
            while (i < n && in[i] != '"') i++;
            out[o++] = 'X';
        } else if (strncmp(in + i, "\"took\":", 7) == 0) {
            memcpy(out + o, in + i, 7);
            o += 7;
            i += 7;
            while (i < n && in[i] >= '0' && in[i] <= '9') i++;
            out[o++] = '0';
        } else {
            out[o++] = in[i++];
        }
    }
    out[o] = '\0';
    return out;
}

static int req(const char *m, const char *path, const char *body, char **out) {
    trove_response r;
    int rc = trove_request(N, m, path, body, body ? strlen(body) : 0, &r);
    assert_int_equal(rc, 0);
    if (out) *out = mask(r.body ? r.body : "");
    int st = r.status;
    trove_response_fini(&r);
    return st;
}

#define EXPECT(m, p, b, st, want)                                                          \
    do {                                                                                   \
        char *got_;                                                                        \
        int s_ = req((m), (p), (b), &got_);                                                \
        if (s_ != (st) || strcmp(got_, (want)) != 0)                                       \
            fail_msg("%s %s\n want %d %s\n got  %d %s", (m), (p), (st), (want), s_, got_); \
        free(got_);                                                                        \
    } while (0)

#define OK(m, p, b)                                                                              \
    do {                                                                                         \
        char *got_;                                                                              \
        int s_ = req((m), (p), (b), &got_);                                                      \
        if (s_ < 200 || s_ > 299) fail_msg("%s %s\n want 2xx\n got  %d %s", (m), (p), s_, got_); \
        free(got_);                                                                              \
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

static uint32_t H(const char *s) { return (uint32_t)tv_routing_hash(s, strlen(s)); }

/* Murmur3HashFunction.hash(String): murmur3_x86_32 of the UTF-16LE code
 * units, seed 0 — OpenSearch's known values. */
static void test_murmur3_known_values(void **s) {
    (void)s;
    assert_int_equal(H(""), 0x00000000u);
    assert_int_equal(H("k"), 0x288418e4u);
    assert_int_equal(H("hell"), 0x5a0cb7c3u);
    assert_int_equal(H("hello"), 0xd7c31989u);
    assert_int_equal(H("hello w"), 0x22ab2984u);
    assert_int_equal(H("hello wo"), 0xdf0ca123u);
    assert_int_equal(H("hello wor"), 0xe7744d61u);
    assert_int_equal(H("http://www.google.com/"), 0x73564d8cu);
    assert_int_equal(H("The quick brown fox jumps over the lazy dog"), 0xe07db09cu);
    assert_int_equal(H("The quick brown fox jumps over the lazy cog"), 0x4e63d2adu);
    /* non-ASCII: UTF-8 input hashed as its UTF-16 code units */
    assert_int_equal(H("ABCDefGHI\xde\x99"), 0xfefa3e76u); /* U+0799 */
    assert_int_equal(H("\xe6\xaf\x8e\xe6\x9c\x88\xef\xbc\x91\xe6\x97\xa5,\xe6\xaf\x8e\xe9\x80\xb1\xe6\x9c\x88"
                       "\xe6\x9b\x9c\xe6\x97\xa5"),
                     0x6a7be132u); /* 毎月１日,毎週月曜日 */
}

static void test_shard_ids(void **s) {
    (void)s;
    /* MetadataCreateIndexService's default: numShards * 2^max(1, 10 - ceil(log2 n)) */
    assert_int_equal(tv_routing_default_shards(1), 1024);
    assert_int_equal(tv_routing_default_shards(2), 1024);
    assert_int_equal(tv_routing_default_shards(3), 768);
    assert_int_equal(tv_routing_default_shards(5), 640);
    assert_int_equal(tv_routing_default_shards(1024), 2048);
    /* one shard: always 0 */
    tv_shard_route one = {1, 1024, 1};
    assert_int_equal(tv_shard_id(&one, "abc", 3, NULL, 0), 0);
    /* 5 shards, 5 routing shards: floorMod(hash, 5). OpenSearch's own
     * delete/50_refresh test needs ids 1 and 3 on different shards. */
    tv_shard_route five = {5, 5, 1};
    uint32_t s1 = tv_shard_id(&five, "1", 1, NULL, 0);
    assert_int_equal(s1, 3);
    assert_int_equal(tv_shard_id(&five, "2", 1, NULL, 0), 2);
    assert_int_equal(tv_shard_id(&five, "3", 1, NULL, 0), 4);
    assert_int_equal(tv_shard_id(&five, "1", 1, "5", 1), 1);
    int64_t h = (int32_t)H("5");
    assert_int_equal(tv_shard_id(&five, "1", 1, "5", 1), (uint32_t)(((h % 5) + 5) % 5));
    /* a routing overrides the _id */
    assert_int_equal(tv_shard_id(&five, "x", 1, "1", 1), s1);
    /* routing factor: 5 shards over 640 routing shards */
    tv_shard_route f = {5, 640, 1};
    int64_t hh = (int32_t)H("hello");
    assert_int_equal(tv_shard_id(&f, "hello", 5, NULL, 0), (uint32_t)((((hh % 640) + 640) % 640) / 128));
    /* partitioned: hash(routing) + floorMod(hash(id), partition_size) */
    tv_shard_route p = {5, 5, 2};
    int64_t off = (((int64_t)(int32_t)H("doc") % 2) + 2) % 2;
    int32_t sum = (int32_t)((uint32_t)H("r") + (uint32_t)off);
    assert_int_equal(tv_shard_id(&p, "doc", 3, "r", 1), (uint32_t)((((int64_t)sum % 5) + 5) % 5));
}

/* OpenSearch's get/40_routing, delete/30_routing, exists/40_routing,
 * get_source/40_routing: a request whose routing reaches another shard
 * does not find the document. */
static void test_routed_reads_and_writes(void **s) {
    (void)s;
    OK("PUT", "/r5", "{\"settings\":{\"number_of_shards\":5,\"number_of_routing_shards\":5}}");
    OK("PUT", "/r5/_doc/1?routing=5", "{\"foo\":\"bar\"}");
    EXPECT("GET", "/r5/_doc/1", NULL, 404, "{\"_index\":\"r5\",\"_id\":\"1\",\"found\":false}");
    EXPECT("GET", "/r5/_doc/1?routing=5", NULL, 200,
           "{\"_index\":\"r5\",\"_id\":\"1\",\"_version\":1,\"_seq_no\":0,\"_primary_term\":1,\"_routing\":\"5\","
           "\"found\":true,\"_source\":{\"foo\":\"bar\"}}");
    EXPECT("HEAD", "/r5/_doc/1", NULL, 404, "");
    EXPECT("HEAD", "/r5/_doc/1?routing=5", NULL, 200, "");
    EXPECT("GET", "/r5/_source/1", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"resource_not_found_exception\",\"reason\":\"Document not found "
           "[r5]/[1]\"}],\"type\":\"resource_not_found_exception\",\"reason\":\"Document not found [r5]/[1]\"},"
           "\"status\":404}");
    EXPECT("GET", "/r5/_source/1?routing=5", NULL, 200, "{\"foo\":\"bar\"}");
    /* _mget: per item routing, or the URL's */
    EXPECT("POST", "/r5/_mget", "{\"docs\":[{\"_id\":\"1\"},{\"_id\":\"1\",\"routing\":\"5\"}]}", 200,
           "{\"docs\":[{\"_index\":\"r5\",\"_id\":\"1\",\"found\":false},{\"_index\":\"r5\",\"_id\":\"1\","
           "\"_version\":1,\"_seq_no\":0,\"_primary_term\":1,\"_routing\":\"5\",\"found\":true,\"_source\":{"
           "\"foo\":\"bar\"}}]}");
    EXPECT("POST", "/r5/_mget?routing=5", "{\"ids\":[\"1\"]}", 200,
           "{\"docs\":[{\"_index\":\"r5\",\"_id\":\"1\",\"_version\":1,\"_seq_no\":0,\"_primary_term\":1,"
           "\"_routing\":\"5\",\"found\":true,\"_source\":{\"foo\":\"bar\"}}]}");
    /* update without the routing: document missing on the _id's shard (3) */
    EXPECT("POST", "/r5/_update/1", "{\"doc\":{\"a\":1}}", 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"document_missing_exception\",\"reason\":\"[1]: document "
           "missing\",\"index\":\"r5\",\"shard\":\"3\",\"index_uuid\":\"X\"}],\"type\":\"document_missing_exception\","
           "\"reason\":\"[1]: document missing\",\"index\":\"r5\",\"shard\":\"3\",\"index_uuid\":\"X\"},"
           "\"status\":404}");
    EXPECT("POST", "/r5/_update/1?routing=5", "{\"doc\":{\"a\":1}}", 200,
           "{\"_index\":\"r5\",\"_id\":\"1\",\"_version\":2,\"result\":\"updated\",\"_shards\":{\"total\":2,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":1,\"_primary_term\":1}");
    /* delete with another routing: not found there, the document stays */
    EXPECT("DELETE", "/r5/_doc/1?routing=4", NULL, 404,
           "{\"_index\":\"r5\",\"_id\":\"1\",\"_version\":1,\"result\":\"not_found\",\"_shards\":{\"total\":2,"
           "\"successful\":1,\"failed\":0}}");
    EXPECT("POST", "/_bulk", "{\"delete\":{\"_index\":\"r5\",\"_id\":\"1\"}}\n", 200,
           "{\"took\":0,\"errors\":false,\"items\":[{\"delete\":{\"_index\":\"r5\",\"_id\":\"1\",\"_version\":1,"
           "\"result\":\"not_found\",\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},\"status\":404}}]}");
    EXPECT("HEAD", "/r5/_doc/1?routing=5", NULL, 200, "");
    EXPECT("DELETE", "/r5/_doc/1?routing=5", NULL, 200,
           "{\"_index\":\"r5\",\"_id\":\"1\",\"_version\":3,\"result\":\"deleted\",\"_shards\":{\"total\":2,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":2,\"_primary_term\":1}");
    /* one shard: any routing reaches the document */
    OK("PUT", "/one/_doc/1?routing=abc", "{\"foo\":\"bar\"}");
    EXPECT("HEAD", "/one/_doc/1", NULL, 200, "");
    EXPECT("HEAD", "/one/_doc/1?routing=zzz", NULL, 200, "");
}

#define RMISS(i, d)                                                                                          \
    "{\"error\":{\"root_cause\":[{\"type\":\"routing_missing_exception\",\"reason\":\"routing is required for " \
    "[" i "]/[" d "]\",\"index\":\"" i "\",\"index_uuid\":\"X\"}],\"type\":\"routing_missing_exception\","      \
    "\"reason\":\"routing is required for [" i "]/[" d "]\",\"index\":\"" i "\",\"index_uuid\":\"X\"},"          \
    "\"status\":400}"

static void test_routing_required(void **s) {
    (void)s;
    OK("PUT", "/rq", "{\"mappings\":{\"_routing\":{\"required\":true}}}");
    EXPECT("PUT", "/rq/_doc/1", "{\"foo\":\"bar\"}", 400, RMISS("rq", "1"));
    OK("PUT", "/rq/_doc/1?routing=a", "{\"foo\":\"bar\"}");
    EXPECT("GET", "/rq/_doc/1", NULL, 400, RMISS("rq", "1"));
    EXPECT("DELETE", "/rq/_doc/1", NULL, 400, RMISS("rq", "1"));
    EXPECT("POST", "/rq/_update/1", "{\"doc\":{\"x\":1}}", 400, RMISS("rq", "1"));
    EXPECT("POST", "/_bulk", "{\"index\":{\"_index\":\"rq\",\"_id\":\"2\"}}\n{\"a\":1}\n", 200,
           "{\"took\":0,\"errors\":true,\"items\":[{\"index\":{\"_index\":\"rq\",\"_id\":\"2\",\"status\":400,"
           "\"error\":{\"type\":\"routing_missing_exception\",\"reason\":\"routing is required for [rq]/[2]\","
           "\"index\":\"rq\",\"index_uuid\":\"X\"}}}]}");
    EXPECT("POST", "/rq/_mget", "{\"ids\":[\"1\"]}", 200,
           "{\"docs\":[{\"_index\":\"rq\",\"_id\":\"1\",\"error\":{\"root_cause\":[{\"type\":"
           "\"routing_missing_exception\",\"reason\":\"routing is required for [rq]/[1]\",\"index\":\"rq\","
           "\"index_uuid\":\"X\"}],\"type\":\"routing_missing_exception\",\"reason\":\"routing is required for "
           "[rq]/[1]\",\"index\":\"rq\",\"index_uuid\":\"X\"}}]}");
    /* the per-thread memo of the last mapping read follows index switches and
     * mapping updates */
    OK("PUT", "/free/_doc/1", "{\"foo\":\"bar\"}");
    EXPECT("GET", "/rq/_doc/1", NULL, 400, RMISS("rq", "1"));
    OK("PUT", "/free/_doc/2", "{\"other\":1}");
    OK("GET", "/free/_doc/2", NULL);
    OK("PUT", "/rq/_mapping", "{\"properties\":{\"n\":{\"type\":\"long\"}}}");
    EXPECT("PUT", "/rq/_doc/3", "{\"n\":1}", 400, RMISS("rq", "3"));
    EXPECT("GET", "/rq/_doc/1?routing=a&_source=false", NULL, 200,
           "{\"_index\":\"rq\",\"_id\":\"1\",\"_version\":1,\"_seq_no\":0,\"_primary_term\":1,\"_routing\":\"a\","
           "\"found\":true}");
}

#define NOALIAS(n)                                                                                            \
    "{\"error\":{\"root_cause\":[{\"type\":\"index_not_found_exception\",\"reason\":\"no such index [" n "] and " \
    "[require_alias] request flag is [true] and [" n "] is not an alias\",\"index\":\"" n "\",\"index_uuid\":"  \
    "\"X\"}],\"type\":\"index_not_found_exception\",\"reason\":\"no such index [" n "] and [require_alias] "      \
    "request flag is [true] and [" n "] is not an alias\",\"index\":\"" n "\",\"index_uuid\":\"X\"},"            \
    "\"status\":404}"

/* Metadata.resolveIndexRouting: an alias's index_routing routes the
 * single-document APIs and bulk items reached through it. */
static void test_alias_routing(void **s) {
    (void)s;
    OK("PUT", "/s5",
       "{\"settings\":{\"number_of_shards\":5,\"number_of_routing_shards\":5},\"aliases\":{\"ar\":{"
       "\"index_routing\":\"5\",\"search_routing\":\"5\"}}}");
    OK("PUT", "/ar/_doc/1", "{\"a\":1}");
    EXPECT("GET", "/s5/_doc/1", NULL, 404, "{\"_index\":\"s5\",\"_id\":\"1\",\"found\":false}");
    EXPECT("GET", "/ar/_doc/1", NULL, 200,
           "{\"_index\":\"s5\",\"_id\":\"1\",\"_version\":1,\"_seq_no\":0,\"_primary_term\":1,\"_routing\":\"5\","
           "\"found\":true,\"_source\":{\"a\":1}}");
    OK("GET", "/ar/_doc/1?routing=5", NULL);
    EXPECT("GET", "/ar/_doc/1?routing=4", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Alias [ar] has "
           "index routing associated with it [5], and was provided with routing value [4], rejecting operation\"}],"
           "\"type\":\"illegal_argument_exception\",\"reason\":\"Alias [ar] has index routing associated with it "
           "[5], and was provided with routing value [4], rejecting operation\"},\"status\":400}");
    EXPECT("POST", "/_bulk",
           "{\"index\":{\"_index\":\"ar\",\"_id\":\"7\"}}\n{\"a\":1}\n{\"delete\":{\"_index\":\"ar\",\"_id\":"
           "\"7\",\"routing\":\"3\"}}\n",
           200,
           "{\"took\":0,\"errors\":true,\"items\":[{\"index\":{\"_index\":\"s5\",\"_id\":\"7\",\"_version\":1,"
           "\"result\":\"created\",\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},\"_seq_no\":1,"
           "\"_primary_term\":1,\"status\":201}},{\"delete\":{\"_index\":\"s5\",\"_id\":\"7\",\"status\":400,"
           "\"error\":{\"type\":\"illegal_argument_exception\",\"reason\":\"Alias [ar] has index routing "
           "associated with it [5], and was provided with routing value [3], rejecting operation\"}}}]}");
    EXPECT("GET", "/s5/_doc/7?routing=5&_source=false", NULL, 200,
           "{\"_index\":\"s5\",\"_id\":\"7\",\"_version\":1,\"_seq_no\":1,\"_primary_term\":1,\"_routing\":\"5\","
           "\"found\":true}");
    /* AliasValidator: one index routing value only */
    EXPECT("PUT", "/s5/_alias/am", "{\"routing\":\"1,2\"}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"alias [am] has "
           "several index routing values associated with it\"}],\"type\":\"illegal_argument_exception\",\"reason\":"
           "\"alias [am] has several index routing values associated with it\"},\"status\":400}");
    OK("PUT", "/s5/_alias/sm", "{\"search_routing\":\"1,2\"}");
}

/* OpenSearch's index/70_require_alias and bulk/10_basic require_alias. */
static void test_require_alias(void **s) {
    (void)s;
    EXPECT("POST", "/ra/_doc?require_alias=true", "{\"foo\":\"bar\"}", 404, NOALIAS("ra"));
    EXPECT("HEAD", "/ra", NULL, 404, ""); /* nothing auto-created */
    OK("PUT", "/backing", "{\"aliases\":{\"ra\":{}}}");
    /* a concrete index is not an alias */
    EXPECT("PUT", "/backing/_doc/1?require_alias=true", "{\"foo\":\"bar\"}", 404, NOALIAS("backing"));
    EXPECT("POST", "/backing/_update/1?require_alias=true", "{\"doc\":{},\"doc_as_upsert\":true}", 404,
           NOALIAS("backing"));
    EXPECT("PUT", "/ra/_doc/1?require_alias=true", "{\"foo\":\"bar\"}", 201,
           "{\"_index\":\"backing\",\"_id\":\"1\",\"_version\":1,\"result\":\"created\",\"_shards\":{\"total\":2,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":0,\"_primary_term\":1}");
    EXPECT("POST", "/ra/_update/1?require_alias=true", "{\"doc\":{\"foo\":\"baz\"}}", 200,
           "{\"_index\":\"backing\",\"_id\":\"1\",\"_version\":2,\"result\":\"updated\",\"_shards\":{\"total\":2,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":1,\"_primary_term\":1}");
    /* bulk: the URL flag is every item's default, an item's own flag wins */
    EXPECT("POST", "/_bulk?require_alias=true",
           "{\"index\":{\"_index\":\"nx\",\"_id\":\"1\"}}\n{\"f\":1}\n"
           "{\"index\":{\"_index\":\"made\",\"_id\":\"1\",\"require_alias\":false}}\n{\"f\":2}\n"
           "{\"create\":{\"_index\":\"ra\",\"_id\":\"2\"}}\n{\"f\":3}\n"
           "{\"delete\":{\"_index\":\"ra\",\"_id\":\"2\"}}\n",
           200,
           "{\"took\":0,\"errors\":true,\"items\":[{\"index\":{\"_index\":\"nx\",\"_id\":\"1\",\"status\":404,"
           "\"error\":{\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nx] and [require_alias] "
           "request flag is [true] and [nx] is not an alias\",\"index\":\"nx\",\"index_uuid\":\"X\"}}},{\"index\":{"
           "\"_index\":\"made\",\"_id\":\"1\",\"_version\":1,\"result\":\"created\",\"_shards\":{\"total\":2,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":0,\"_primary_term\":1,\"status\":201}},{\"create\":{"
           "\"_index\":\"backing\",\"_id\":\"2\",\"_version\":1,\"result\":\"created\",\"_shards\":{\"total\":2,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":2,\"_primary_term\":1,\"status\":201}},{\"delete\":{"
           "\"_index\":\"backing\",\"_id\":\"2\",\"_version\":2,\"result\":\"deleted\",\"_shards\":{\"total\":2,"
           "\"successful\":1,\"failed\":0},\"_seq_no\":3,\"_primary_term\":1,\"status\":200}}]}");
    EXPECT("HEAD", "/nx", NULL, 404, "");
}

/* bulk/10_basic "Empty _id", bulk/40_source, bulk/60_deprecated's _type. */
static void test_bulk_items(void **s) {
    (void)s;
    EXPECT("POST", "/_bulk?refresh=true",
           "{\"index\":{\"_index\":\"t\",\"_id\":\"\"}}\n{\"f\":1}\n"
           "{\"create\":{\"_index\":\"t\",\"_id\":\"\"}}\n{\"f\":1}\n"
           "{\"index\":{\"_index\":\"t\",\"_id\":\"id\"}}\n{\"f\":2}\n",
           200,
           "{\"took\":0,\"errors\":true,\"items\":[{\"index\":{\"_index\":\"t\",\"_id\":\"\",\"status\":400,"
           "\"error\":{\"type\":\"illegal_argument_exception\",\"reason\":\"if _id is specified it must not be "
           "empty\"}}},{\"create\":{\"_index\":\"t\",\"_id\":\"\",\"status\":400,\"error\":{\"type\":"
           "\"illegal_argument_exception\",\"reason\":\"if _id is specified it must not be empty\"}}},{\"index\":{"
           "\"_index\":\"t\",\"_id\":\"id\",\"_version\":1,\"result\":\"created\",\"forced_refresh\":true,"
           "\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},\"_seq_no\":0,\"_primary_term\":1,\"status\":"
           "201}}]}");
    EXPECT("GET", "/t/_count", NULL, 200,
           "{\"count\":1,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0}}");
    /* _source includes given as one string, in the action line and in the body */
    OK("PUT", "/t/_doc/a", "{\"foo\":\"bar\",\"bar\":\"foo\"}");
    EXPECT("POST", "/_bulk",
           "{\"update\":{\"_index\":\"t\",\"_id\":\"a\",\"_source\":{\"includes\":\"bar\"}}}\n{\"doc\":{\"foo\":"
           "\"baz\"}}\n"
           "{\"update\":{\"_index\":\"t\",\"_id\":\"a\"}}\n{\"_source\":{\"includes\":\"foo\"},\"doc\":{\"foo\":"
           "\"q\"}}\n",
           200,
           "{\"took\":0,\"errors\":false,\"items\":[{\"update\":{\"_index\":\"t\",\"_id\":\"a\",\"_version\":2,"
           "\"result\":\"updated\",\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},\"_seq_no\":2,"
           "\"_primary_term\":1,\"get\":{\"_seq_no\":2,\"_primary_term\":1,\"found\":true,\"_source\":{\"bar\":"
           "\"foo\"}},\"status\":200}},{\"update\":{\"_index\":\"t\",\"_id\":\"a\",\"_version\":3,\"result\":"
           "\"updated\",\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},\"_seq_no\":3,\"_primary_term\":1,"
           "\"get\":{\"_seq_no\":3,\"_primary_term\":1,\"found\":true,\"_source\":{\"foo\":\"q\"}},\"status\":200}}"
           "]}");
    /* the action line's _source replaces the body's */
    EXPECT("POST", "/_bulk",
           "{\"update\":{\"_index\":\"t\",\"_id\":\"a\",\"_source\":false}}\n{\"_source\":true,\"doc\":{\"foo\":"
           "\"r\"}}\n",
           200,
           "{\"took\":0,\"errors\":false,\"items\":[{\"update\":{\"_index\":\"t\",\"_id\":\"a\",\"_version\":4,"
           "\"result\":\"updated\",\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},\"_seq_no\":4,"
           "\"_primary_term\":1,\"status\":200}}]}");
    EXPECT("POST", "/t/_bulk?_source_includes=bar",
           "{\"update\":{\"_id\":\"a\"}}\n{\"_source\":[\"foo\"],\"doc\":{\"foo\":\"s\"}}\n", 200,
           "{\"took\":0,\"errors\":false,\"items\":[{\"update\":{\"_index\":\"t\",\"_id\":\"a\",\"_version\":5,"
           "\"result\":\"updated\",\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},\"_seq_no\":5,"
           "\"_primary_term\":1,\"get\":{\"_seq_no\":5,\"_primary_term\":1,\"found\":true,\"_source\":{\"bar\":"
           "\"foo\"}},\"status\":200}}]}");
    /* OpenSearch 3 knows no [_type]: an unknown action/metadata parameter */
    EXPECT("POST", "/_bulk", "{\"update\":{\"_index\":\"t\",\"_type\":\"x\",\"_id\":\"a\"}}\n{\"doc\":{}}\n", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Action/metadata line "
           "[1] contains an unknown parameter [_type]\"}],\"type\":\"illegal_argument_exception\",\"reason\":"
           "\"Action/metadata line [1] contains an unknown parameter [_type]\"},\"status\":400}");
}

#define VCONF(cur, want)                                                                                       \
    "{\"error\":{\"root_cause\":[{\"type\":\"version_conflict_engine_exception\",\"reason\":\"[1]: version "     \
    "conflict, current version [" cur "] is different than the one provided [" want "]\",\"index\":\"v\","      \
    "\"shard\":\"0\",\"index_uuid\":\"X\"}],\"type\":\"version_conflict_engine_exception\",\"reason\":\"[1]: "  \
    "version conflict, current version [" cur "] is different than the one provided [" want "]\",\"index\":"    \
    "\"v\",\"shard\":\"0\",\"index_uuid\":\"X\"},\"status\":409}"

/* get/90_versions: reads compare versions for equality whatever the type. */
static void test_get_versions(void **s) {
    (void)s;
    OK("PUT", "/v/_doc/1", "{\"foo\":\"bar\"}");
    OK("PUT", "/v/_doc/1", "{\"foo\":\"bar\"}");
    OK("GET", "/v/_doc/1?version=2", NULL);
    OK("GET", "/v/_doc/1?version=2&version_type=external", NULL);
    OK("GET", "/v/_doc/1?version=2&version_type=external_gte", NULL);
    EXPECT("GET", "/v/_doc/1?version=1", NULL, 409, VCONF("2", "1"));
    EXPECT("GET", "/v/_doc/1?version=10&version_type=external", NULL, 409, VCONF("2", "10"));
    EXPECT("GET", "/v/_doc/1?version=1&version_type=external", NULL, 409, VCONF("2", "1"));
    EXPECT("GET", "/v/_doc/1?version=10&version_type=external_gte", NULL, 409, VCONF("2", "10"));
    EXPECT("GET", "/v/_source/1?version=1&version_type=external_gte", NULL, 409, VCONF("2", "1"));
    /* a missing document is simply not found */
    EXPECT("GET", "/v/_doc/2?version=1", NULL, 404, "{\"_index\":\"v\",\"_id\":\"2\",\"found\":false}");
}

/* bulk/100_error_traces: error_trace=true adds stack_trace to every error
 * object (root causes, caused_by, bulk items); without it there is none. */
static void test_error_trace(void **s) {
    (void)s;
    OK("PUT", "/ix", "{\"mappings\":{\"properties\":{\"a\":{\"type\":\"long\"}}}}");
    char *got = NULL;
    int st = req("POST", "/_bulk?error_trace=true", "{\"update\":{\"_index\":\"ix\",\"_id\":\"123\"}}\n{\"doc\":{}}\n",
                 &got);
    assert_int_equal(st, 200);
    assert_non_null(strstr(got, "\"type\":\"document_missing_exception\",\"reason\":\"[123]: document missing\""));
    assert_non_null(strstr(got, "\"stack_trace\":\"[ix/"));
    assert_non_null(strstr(got, "][[ix][0]] DocumentMissingException[[123]: document missing]\"}}}]}"));
    free(got);
    EXPECT("GET", "/nope/_doc/1?error_trace=true", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"index_not_found_exception\",\"reason\":\"no such index "
           "[nope]\",\"index\":\"nope\",\"resource.id\":\"nope\",\"resource.type\":\"index_or_alias\","
           "\"index_uuid\":\"X\",\"stack_trace\":\"[nope] IndexNotFoundException[no such index [nope]]\"}],"
           "\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope]\",\"index\":\"nope\","
           "\"resource.id\":\"nope\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\",\"stack_trace\":"
           "\"[nope] IndexNotFoundException[no such index [nope]]\"},\"status\":404}");
    /* a JDK exception with a cause: qualified names, "Caused by:" lines */
    EXPECT("GET", "/ix/_doc/1?version=x&error_trace", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"Failed to parse "
           "long parameter [version] with value [x]\",\"stack_trace\":\"java.lang.IllegalArgumentException: Failed "
           "to parse long parameter [version] with value [x]\\nCaused by: java.lang.NumberFormatException: For "
           "input string: \\\"x\\\"\"}],\"type\":\"illegal_argument_exception\",\"reason\":\"Failed to parse long "
           "parameter [version] with value [x]\",\"caused_by\":{\"type\":\"number_format_exception\",\"reason\":"
           "\"For input string: \\\"x\\\"\",\"stack_trace\":\"java.lang.NumberFormatException: For input string: "
           "\\\"x\\\"\"},\"stack_trace\":\"java.lang.IllegalArgumentException: Failed to parse long parameter "
           "[version] with value [x]\\nCaused by: java.lang.NumberFormatException: For input string: "
           "\\\"x\\\"\"},\"status\":400}");
    /* an OpenSearchException with a cause: detailedMessage's "; nested:" */
    got = NULL;
    st = req("PUT", "/ix/_doc/2?error_trace=true", "{\"a\":\"x\"}", &got);
    assert_int_equal(st, 400);
    assert_non_null(strstr(got, "\"stack_trace\":\"MapperParsingException[failed to parse field [a] of type [long] "
                                "in document with id '2'. Preview of field's value: 'x']; nested: "
                                "IllegalArgumentException[For input string: \\\"x\\\"];\\nCaused by: "
                                "java.lang.IllegalArgumentException: For input string: \\\"x\\\"\""));
    free(got);
    /* without the flag, and after it (the flag is per request) */
    EXPECT("GET", "/nope/_doc/1", NULL, 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"index_not_found_exception\",\"reason\":\"no such index "
           "[nope]\",\"index\":\"nope\",\"resource.id\":\"nope\",\"resource.type\":\"index_or_alias\","
           "\"index_uuid\":\"X\"}],\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope]\","
           "\"index\":\"nope\",\"resource.id\":\"nope\",\"resource.type\":\"index_or_alias\",\"index_uuid\":"
           "\"X\"},\"status\":404}");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_murmur3_known_values),
        cmocka_unit_test(test_shard_ids),
        cmocka_unit_test_setup_teardown(test_routed_reads_and_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_routing_required, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alias_routing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_require_alias, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_items, setup, teardown),
        cmocka_unit_test_setup_teardown(test_get_versions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_trace, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
