/*
 * fuzz_api_seed.c — trove_node_load_seed on an arbitrary single-file seed.
 *
 * Input: the bytes of an .ndjson seed file, written to a temporary file and
 * loaded into a fresh clone of a node holding an index `idx` (n: long, k:
 * keyword), so that bulk items can fail on mapping errors as well as on
 * syntax. Properties: no crash or sanitizer report; on failure the message
 * starts with the file's path; a line it names exists in the input (the
 * action line of the first failed item, or the first line that is not
 * JSON) and err.pos is the byte offset where that line starts.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trove.h"

static trove_node *base;
static char path[64];

static void init(void) {
    base = trove_node_open(NULL, NULL);
    if (!base) abort();
    static const char mapping[] = "{\"mappings\":{\"properties\":{\"n\":{\"type\":\"long\"},\"k\":{\"type\":\"keyword\"}}}}";
    trove_response r;
    if (trove_request(base, "PUT", "/idx", mapping, strlen(mapping), &r) != 0 || r.status != 200) abort();
    trove_response_fini(&r);
    snprintf(path, sizeof path, "/tmp/trove_fuzz_seed.%ld.ndjson", (long)getpid());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!base) init();
    if (size > 65536) return 0;
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    trove_node *n = trove_node_clone(base, NULL);
    if (!n) abort();
    trove_error err;
    int rc = trove_node_load_seed(n, path, &err);
    if (rc != 0) {
        size_t pl = strlen(path);
        if (strncmp(err.message, path, pl) != 0) abort();
        if (err.message[pl] == ':' && err.message[pl + 1] >= '1' && err.message[pl + 1] <= '9') {
            unsigned long line = strtoul(err.message + pl + 1, NULL, 10);
            unsigned long lines = 1;
            size_t start = 0;
            for (size_t i = 0; i < size; i++)
                if (data[i] == '\n') {
                    lines++;
                    if (lines == line) start = i + 1;
                }
            if (line > lines) abort();
            if (line == 1) start = 0;
            if (err.pos != start) abort();
        }
    }
    trove_node_free(n);
    unlink(path);
    return 0;
}
