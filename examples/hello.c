/*
 * hello.c — the smallest complete libtrove program.
 *
 * Opens an in-memory node, creates an index with a mapping, bulk-loads three
 * documents (refresh=true so they are searchable at once), runs a match
 * query and prints the response body: exactly what OpenSearch would answer
 * over HTTP.
 *
 * Build:
 *   cc examples/hello.c $(pkg-config --cflags --libs --static build/trove.pc)
 */
#include <stdio.h>
#include <string.h>

#include "trove.h"

/* Sends one request; prints and fails on an unexpected status. */
static int call(trove_node *node, const char *method, const char *path, const char *body, int want,
                int print) {
    trove_response resp;
    int rc = trove_request(node, method, path, body, body ? strlen(body) : 0, &resp);
    if (rc != 0) {
        fprintf(stderr, "%s %s: %s\n", method, path, trove_status_message(rc));
        return -1;
    }
    if (resp.status != want || print) printf("%s\n", resp.body);
    int ok = resp.status == want ? 0 : -1;
    if (ok) fprintf(stderr, "%s %s: HTTP %d\n", method, path, resp.status);
    trove_response_fini(&resp);
    return ok;
}

int main(void) {
    trove_error err;
    trove_node *node = trove_node_open(NULL, &err);
    if (!node) {
        fprintf(stderr, "trove_node_open: %s\n", err.message);
        return 1;
    }
    int rc = 0;
    rc |= call(node, "PUT", "/books",
               "{\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"},"
               "\"year\":{\"type\":\"integer\"}}}}",
               200, 0);
    rc |= call(node, "POST", "/books/_bulk?refresh=true",
               "{\"index\":{\"_id\":\"1\"}}\n"
               "{\"title\":\"The Quick Brown Fox\",\"year\":1999}\n"
               "{\"index\":{\"_id\":\"2\"}}\n"
               "{\"title\":\"A Lazy Dog Sleeps\",\"year\":2005}\n"
               "{\"index\":{\"_id\":\"3\"}}\n"
               "{\"title\":\"Quick Thinking Foxes\",\"year\":2021}\n",
               200, 0);
    rc |= call(node, "POST", "/books/_search", "{\"query\":{\"match\":{\"title\":\"quick fox\"}}}", 200, 1);
    trove_node_free(node);
    return rc ? 1 : 0;
}
