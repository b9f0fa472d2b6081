/*
 * fuzz_api_request.c — trove_request on arbitrary input.
 *
 * Input: byte 0 picks the method (GET, PUT, POST, DELETE, HEAD, or a bogus
 * one), then the request target up to the first '\n', then the body. Every
 * input runs on a fresh clone of a node holding a small index (so inputs do
 * not accumulate state). Properties: no crash or sanitizer report; every
 * answer is TROVE_ENOMEM (never, here) or a status with a body that is one
 * well-formed JSON value (empty for HEAD, and for the plain-text HEAD-style
 * answers).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "trove.h"

static trove_node *base;

static void init(void) {
    base = trove_node_open(NULL, NULL);
    if (!base) abort();
    static const char *const reqs[][3] = {
        {"PUT", "/idx", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\"},\"n\":{\"type\":\"long\"},"
                        "\"k\":{\"type\":\"keyword\"}}}}"},
        {"POST", "/_bulk?refresh=true",
         "{\"index\":{\"_index\":\"idx\",\"_id\":\"1\"}}\n{\"t\":\"hello world\",\"n\":1,\"k\":\"a\"}\n"
         "{\"index\":{\"_index\":\"idx\",\"_id\":\"2\"}}\n{\"t\":\"quick fox\",\"n\":2,\"k\":\"b\"}\n"},
    };
    for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
        trove_response r;
        if (trove_request(base, reqs[i][0], reqs[i][1], reqs[i][2], strlen(reqs[i][2]), &r) != 0) abort();
        trove_response_fini(&r);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!base) init();
    if (size < 2) return 0;
    static const char *const methods[] = {"GET", "PUT", "POST", "DELETE", "HEAD", "PATCH", "OPTIONS", "BOGUS"};
    const char *method = methods[data[0] % 8];
    const uint8_t *p = data + 1, *end = data + size;
    const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
    size_t plen = nl ? (size_t)(nl - p) : (size_t)(end - p);
    char *path = malloc(plen + 2);
    if (!path) return 0;
    /* the target is a C string: stop at a NUL */
    size_t k = 0;
    for (size_t i = 0; i < plen && p[i]; i++) path[k++] = (char)p[i];
    path[k] = '\0';
    const uint8_t *body = nl ? nl + 1 : end;
    size_t blen = (size_t)(end - body);

    trove_node *n = trove_node_clone(base, NULL);
    if (!n) abort();
    trove_response r;
    int rc = trove_request(n, method, path, blen ? body : NULL, blen, &r);
    if (rc != 0) abort(); /* no allocation failures here: an answer is due */
    if (r.status < 100 || r.status > 599 || !r.body || !r.content_type) abort();
    /* JSON answers must be well-formed JSON; _cat answers text/plain */
    if (r.body_len && strncmp(r.content_type, "application/json", 16) == 0) {
        tv_arena a;
        tv_arena_init(&a);
        tv_json *root = NULL;
        if (tv_json_parse(&a, r.body, r.body_len, &root, NULL) != TROVE_OK) {
            /* GET _source returns the stored bytes as they were indexed */
            if (!strstr(path, "/_source/")) abort();
        }
        tv_arena_fini(&a);
    }
    trove_response_fini(&r);
    trove_node_free(n);
    free(path);
    return 0;
}
