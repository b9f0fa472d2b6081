/*
 * bench_fulltext_trove.c — trove in process as a peer of the full-text
 * benchmark (bench/fulltext/README.md has the protocol; bench/fulltext/run
 * drives it). A benchmark, never a test.
 *
 *   bench_fulltext_trove INDEX_DIR DOCS.ndjson
 *
 * Indexing: one node in memory (INDEX_DIR stays empty), index "ft" with
 * `body` a text field (the standard analyzer: UAX #29 words, lowercase, no
 * stop words, as Lucene's StandardAnalyzer without stop words), `_source`
 * disabled (the Lucene peer stores no body either) and dynamic mapping off
 * (the `id` field of each line becomes the _id only). Documents go in
 * through POST /ft/_bulk in batches of about 4 MB with refresh_interval -1,
 * then one refresh and POST /ft/_forcemerge?max_num_segments=1.
 * index_bytes is the store size GET /ft/_stats reports.
 * (bench/fulltext_trove.h has the mapping, the _bulk lines, the query
 * requests and the reading of answers, shared with bench_fulltext_http,
 * trove over HTTP.)
 *
 * With TROVE_PEER_DATA=DIR (an empty or missing directory) the node keeps
 * the index on that data directory: the force merge commits it, the node is
 * closed and opened again, and the queries read the mapped segment file
 * (the durable store's cost against memory; not one of the harness's
 * engines, run by hand with the same query lines).
 *
 * Queries: each line's query becomes a query_string query on `body` (the
 * default operator is OR, leading wildcards allowed, as the README's syntax
 * means), sent through trove_request exactly as a client's request would
 * be: TOP_N is POST /ft/_search {"size":N,"track_total_hits":false,
 * "stored_fields":"_none_","query":...} (hits without _id or _source: the
 * Lucene peer reads no stored field either), HITS the number of hits
 * returned; COUNT is POST /ft/_count {"query":...}. The time measured is trove_request alone
 * (parsing the request, searching, writing the response JSON); reading the
 * count back out of the response is protocol work and left out. A 400
 * unsupported_operation_exception answers UNSUPPORTED with its reason.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fulltext_trove.h"
#include "trove.h"
#include "util/util.h"

static void die(const char *what, const char *detail) {
    fprintf(stderr, "bench_fulltext_trove: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static int64_t ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A request whose status must be 200; returns the body (owned). */
static char *must(trove_node *n, const char *method, const char *path, const char *body, size_t len) {
    trove_response r;
    if (trove_request(n, method, path, body, len, &r) != 0) die("request failed", path);
    if (r.status != 200) {
        fprintf(stderr, "%s %s -> %d %s\n", method, path, r.status, r.body);
        die("unexpected status", path);
    }
    char *b = r.body;
    r.body = NULL;
    trove_response_fini(&r);
    return b;
}

static void send_bulk(void *node, const tv_buf *bulk) {
    free(must(node, "POST", "/ft/_bulk", bulk->data, bulk->len));
}

int main(int argc, char **argv) {
    if (argc != 3) die("usage: bench_fulltext_trove INDEX_DIR DOCS.ndjson", NULL);
    int64_t t0 = ns(CLOCK_MONOTONIC);
    trove_error err;
    /* TROVE_PEER_DATA=DIR: the index on a data directory, committed by the
     * force merge and opened again, so queries read mapped segment files */
    trove_options o = {.data_dir = getenv("TROVE_PEER_DATA")};
    trove_node *n = trove_node_open(&o, &err);
    if (!n) die("open", err.message);
    free(must(n, "PUT", "/ft", FT_MAPPING, strlen(FT_MAPPING)));
    int64_t docs = ft_load(argv[2], send_bulk, n);
    if (docs < 0) die("cannot load the documents", argv[2]);
    free(must(n, "POST", "/ft/_refresh", NULL, 0));
    free(must(n, "POST", "/ft/_forcemerge?max_num_segments=1", NULL, 0));
    if (o.data_dir) {
        trove_node_free(n);
        if (!(n = trove_node_open(&o, &err))) die("reopen", err.message);
    }
    double secs = (double)(ns(CLOCK_MONOTONIC) - t0) / 1e9;
    malloc_trim(0); /* what indexing freed goes back, as the server does before its ready line */
    char *stats = must(n, "GET", "/ft/_stats/store", NULL, 0);
    long long bytes = ft_number_after(stats, "\"primaries\"", "size_in_bytes");
    free(stats);
    printf("READY\t{\"engine\":\"trove\",\"version\":\"%s\",\"docs\":%lld,\"index_seconds\":%.3f,\"index_bytes\":%lld}\n",
           trove_version(), (long long)docs, secs, bytes);
    fflush(stdout);

    tv_buf body;
    tv_buf_init(&body);
    char *line = NULL;
    size_t cap = 0;
    int size;
    const char *path;
    while ((path = ft_next_query(&line, &cap, &body, &size))) {
        trove_response r;
        int64_t c0 = ns(CLOCK_THREAD_CPUTIME_ID), w0 = ns(CLOCK_MONOTONIC);
        int rc = trove_request(n, "POST", path, body.data, body.len, &r);
        int64_t w1 = ns(CLOCK_MONOTONIC), c1 = ns(CLOCK_THREAD_CPUTIME_ID);
        if (rc != 0) {
            printf("ERROR\ttrove_request: %s\n", trove_status_message(rc));
            fflush(stdout);
        } else if (r.status == 200) {
            printf("OK\t%lld\t%lld\t%lld\n", ft_hits(r.body, size), (long long)(c1 - c0), (long long)(w1 - w0));
            fflush(stdout);
        } else {
            ft_print_refusal(r.status, r.body);
        }
        trove_response_fini(&r);
    }
    free(line);
    tv_buf_fini(&body);
    trove_node_free(n);
    return 0;
}
