/*
 * fuzz_api_request.c — the whole REST API (trove_request) on arbitrary
 * requests and request sequences.
 *
 * Input: one or more requests separated by a 0x1E byte (record separator).
 * Each request is: one byte for the method (GET, PUT, POST, DELETE, HEAD,
 * PATCH, OPTIONS, or a bogus one), the request target up to the first
 * '\n', then the body. A sequence lets a seed replay a whole YAML test
 * (create an index with its mapping, index documents, search them) so
 * mutations land in a realistic state; at most MAX_STEPS run.
 *
 * State. Every input runs on a fresh copy-on-write clone of one base node
 * (so inputs never accumulate state and a clone costs nothing), which
 * holds indices of every field type trove maps (text and its kinds,
 * keyword and its kinds, every number type, dates, booleans, ip, geo_point,
 * binary, objects, flat_object and nested objects), with documents in
 * several segments, deletes, an alias and templates: "test", "test_1" and
 * "idx" are the names the YAML suites use most, so their seeds reach the
 * data. (fuzz/seeds/yaml_requests.py writes the seeds and the dictionary.)
 *
 * Properties checked for every request: no crash or sanitizer report (the
 * fuzz build has ASan and UBSan); trove_request answers (never an
 * allocation failure here); a status in 100..599 with a content type and a
 * body; a JSON answer is one JSON value (duplicate keys allowed: OpenSearch
 * writes them for repeated percentile keys), except GET _source, which
 * returns the stored bytes as indexed. A server-side 500 is not a failure
 * here (OpenSearch has some); tests/hostile/sweep.py judges those.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "trove.h"

#define MAX_STEPS 24

static trove_node *base;

static const char *const mapping =
    "{\"settings\":{\"number_of_shards\":2,\"refresh_interval\":-1,\"analysis\":{\"analyzer\":{\"my\":{"
    "\"type\":\"custom\",\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"stop\"]}},\"normalizer\":{\"lc\":{"
    "\"type\":\"custom\",\"filter\":[\"lowercase\"]}}}},"
    "\"mappings\":{\"properties\":{"
    "\"t\":{\"type\":\"text\",\"fields\":{\"raw\":{\"type\":\"keyword\"}},\"analyzer\":\"my\"},"
    "\"text\":{\"type\":\"text\"},\"title\":{\"type\":\"text\",\"index_options\":\"offsets\"},"
    "\"mot\":{\"type\":\"match_only_text\"},"
    "\"k\":{\"type\":\"keyword\",\"normalizer\":\"lc\"},\"tag\":{\"type\":\"keyword\"},"
    "\"ck\":{\"type\":\"constant_keyword\",\"value\":\"c\"},\"wc\":{\"type\":\"wildcard\"},"
    "\"n\":{\"type\":\"long\"},\"i\":{\"type\":\"integer\"},\"s\":{\"type\":\"short\"},\"b\":{\"type\":\"byte\"},"
    "\"d\":{\"type\":\"double\"},\"f\":{\"type\":\"float\"},\"hf\":{\"type\":\"half_float\"},"
    "\"sf\":{\"type\":\"scaled_float\",\"scaling_factor\":100},\"ul\":{\"type\":\"unsigned_long\"},"
    "\"date\":{\"type\":\"date\"},\"dn\":{\"type\":\"date_nanos\"},"
    "\"df\":{\"type\":\"date\",\"format\":\"yyyy/MM/dd||epoch_millis\"},"
    "\"bool\":{\"type\":\"boolean\"},\"ip\":{\"type\":\"ip\"},\"geo\":{\"type\":\"geo_point\"},"
    "\"bin\":{\"type\":\"binary\"},\"tc\":{\"type\":\"token_count\",\"analyzer\":\"standard\"},"
    "\"obj\":{\"properties\":{\"a\":{\"type\":\"keyword\"},\"b\":{\"type\":\"long\"}}},"
    "\"fo\":{\"type\":\"flat_object\"},"
    "\"nest\":{\"type\":\"nested\",\"properties\":{\"x\":{\"type\":\"keyword\"},\"y\":{\"type\":\"long\"},"
    "\"inner\":{\"type\":\"nested\",\"properties\":{\"z\":{\"type\":\"keyword\"}}}}}}}}";

static const char *const docs =
    "{\"index\":{\"_id\":\"1\"}}\n"
    "{\"t\":\"The quick brown fox\",\"text\":\"foo bar\",\"title\":\"big fox\",\"mot\":\"quick fox\",\"k\":\"A\","
    "\"tag\":[\"x\",\"y\"],\"wc\":\"abc-def\",\"n\":1,\"i\":-5,\"s\":3,\"b\":1,\"d\":1.5,\"f\":2.25,\"hf\":0.5,\"sf\":1.23,"
    "\"ul\":18446744073709551615,\"date\":\"2020-01-01T00:00:00Z\",\"dn\":\"2020-01-01T00:00:00.123456789Z\","
    "\"df\":\"2020/01/02\",\"bool\":true,\"ip\":\"192.168.0.1\",\"geo\":{\"lat\":41.1,\"lon\":-71.3},"
    "\"bin\":\"U29tZSBiaW5hcnk=\",\"tc\":\"one two three\",\"obj\":{\"a\":\"p\",\"b\":7},"
    "\"fo\":{\"k1\":\"v1\",\"k2\":{\"k3\":\"v3\"}},"
    "\"nest\":[{\"x\":\"a\",\"y\":1,\"inner\":[{\"z\":\"q\"}]},{\"x\":\"b\",\"y\":2}]}\n"
    "{\"index\":{\"_id\":\"2\"}}\n"
    "{\"t\":\"lazy dog jumps\",\"text\":\"bar baz\",\"k\":\"b\",\"tag\":\"y\",\"n\":2,\"i\":7,\"d\":-0.5,\"f\":1e10,"
    "\"date\":\"2021-06-15\",\"bool\":false,\"ip\":\"::1\",\"geo\":\"40.7,-74.0\",\"nest\":{\"x\":\"c\",\"y\":3}}\n"
    "{\"index\":{\"_id\":\"3\",\"routing\":\"r\"}}\n"
    "{\"t\":\"fox and dog\",\"n\":3,\"d\":3.0,\"date\":1600000000000,\"tag\":[],\"obj\":{\"a\":[\"q\",\"r\"]}}\n";

static void must(const char *method, const char *path, const char *body) {
    trove_response r;
    if (trove_request(base, method, path, body, body ? strlen(body) : 0, &r) != 0) abort();
    trove_response_fini(&r);
}

static void init(void) {
    base = trove_node_open(NULL, NULL);
    if (!base) abort();
    static const char *const names[] = {"test", "test_1", "idx"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char p[64];
        snprintf(p, sizeof p, "/%s", names[i]);
        must("PUT", p, mapping);
        snprintf(p, sizeof p, "/%s/_bulk?refresh=true", names[i]);
        must("POST", p, docs);
        /* a second segment, an update and a delete */
        snprintf(p, sizeof p, "/%s/_doc/4?refresh=true", names[i]);
        must("PUT", p, "{\"t\":\"quick quick fox\",\"n\":4,\"k\":\"a\",\"date\":\"2022-02-02\",\"nest\":[{\"x\":\"a\",\"y\":9}]}");
        snprintf(p, sizeof p, "/%s/_doc/2?refresh=true", names[i]);
        must("POST", p, "{\"t\":\"lazy dog\",\"n\":20,\"k\":\"c\"}");
        snprintf(p, sizeof p, "/%s/_doc/3?routing=r&refresh=true", names[i]);
        must("DELETE", p, NULL);
    }
    must("POST", "/_aliases", "{\"actions\":[{\"add\":{\"index\":\"test\",\"alias\":\"alias1\"}},"
                              "{\"add\":{\"index\":\"test_1\",\"alias\":\"alias2\",\"filter\":{\"term\":{\"k\":\"a\"}}}}]}");
    must("PUT", "/_template/tmpl", "{\"index_patterns\":[\"tmpl-*\"],\"mappings\":{\"properties\":{\"n\":{\"type\":\"long\"}}}}");
    must("PUT", "/_index_template/itmpl", "{\"index_patterns\":[\"it-*\"],\"template\":{\"settings\":{\"number_of_shards\":1}}}");
}

/* One answer's properties (see the top of the file). */
static void check(const char *path, const trove_response *r) {
    if (r->status < 100 || r->status > 599 || !r->body || !r->content_type) abort();
    if (!r->body_len || strncmp(r->content_type, "application/json", 16) != 0) return;
    tv_arena a;
    tv_arena_init(&a);
    tv_json *root = NULL;
    tv_json_error e;
    memset(&e, 0, sizeof e);
    if (tv_json_parse(&a, r->body, r->body_len, &root, &e) != TROVE_OK && !strstr(e.msg, "Duplicate field") &&
        !strstr(path, "/_source/"))
        abort();
    tv_arena_fini(&a);
}

static void run_one(trove_node *n, const uint8_t *p, size_t len) {
    static const char *const methods[] = {"GET", "PUT", "POST", "DELETE", "HEAD", "PATCH", "OPTIONS", "BOGUS"};
    if (len < 2) return;
    const char *method = methods[p[0] % 8];
    const uint8_t *s = p + 1, *end = p + len;
    const uint8_t *nl = memchr(s, '\n', (size_t)(end - s));
    size_t plen = nl ? (size_t)(nl - s) : (size_t)(end - s);
    char *path = malloc(plen + 2);
    if (!path) return;
    size_t k = 0; /* the target is a C string: stop at a NUL */
    for (size_t i = 0; i < plen && s[i]; i++) path[k++] = (char)s[i];
    path[k] = '\0';
    /* _cluster/health waits (up to its timeout, 30 s by default) for a
     * status or an index the node may never have: time, not a hang;
     * skipped here (test_api_cluster covers it) */
    if (strstr(path, "health")) {
        free(path);
        return;
    }
    const uint8_t *body = nl ? nl + 1 : end;
    size_t blen = (size_t)(end - body);
    trove_response r;
    if (trove_request(n, method, path, blen ? body : NULL, blen, &r) != 0) abort(); /* no OOM here */
    check(path, &r);
    trove_response_fini(&r);
    free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!base) init();
    trove_node *n = trove_node_clone(base, NULL);
    if (!n) abort();
    const uint8_t *p = data, *end = data + size;
    for (int step = 0; step < MAX_STEPS && p < end; step++) {
        const uint8_t *rs = memchr(p, 0x1e, (size_t)(end - p));
        const uint8_t *e = rs ? rs : end;
        run_one(n, p, (size_t)(e - p));
        p = rs ? rs + 1 : end;
    }
    trove_node_free(n);
    return 0;
}
