/*
 * fuzz_api_filter_path.c — the filter_path rewriter (tv_filter_path_apply)
 * on arbitrary filters and bodies.
 *
 * Input: the filter expression up to the first '\n', then a JSON body.
 * Properties: no crash or sanitizer report; when the rewrite succeeds its
 * output is one well-formed JSON value, in compact and in pretty mode.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

static void check(const char *filter, const char *body, size_t blen, bool pretty) {
    tv_arena a;
    tv_arena_init(&a);
    tv_buf out;
    tv_buf_init(&out);
    if (tv_filter_path_apply(&a, filter, body, blen, pretty, &out)) {
        tv_json *root = NULL;
        if (tv_json_parse(&a, out.data, out.len, &root, NULL) != TROVE_OK) abort();
    }
    tv_buf_fini(&out);
    tv_arena_fini(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *nl = memchr(data, '\n', size);
    size_t flen = nl ? (size_t)(nl - data) : size;
    char *filter = malloc(flen + 1);
    if (!filter) return 0;
    size_t k = 0;
    for (size_t i = 0; i < flen && data[i]; i++) filter[k++] = (char)data[i];
    filter[k] = '\0';
    const char *body = nl ? (const char *)nl + 1 : "";
    size_t blen = nl ? size - flen - 1 : 0;
    check(filter, body, blen, false);
    check(filter, body, blen, true);
    free(filter);
    return 0;
}
