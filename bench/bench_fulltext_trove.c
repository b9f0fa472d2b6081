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

#include "json/json.h"
#include "trove.h"
#include "util/util.h"

#define BATCH_BYTES (4u << 20)

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

/* Appends s as a JSON string (the library's own writer). */
static void put_json_string(tv_buf *b, const char *s, size_t n) {
    tv_jw w;
    tv_jw_init(&w, b, false);
    tv_jw_str(&w, s, n);
}

static int64_t load(trove_node *n, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open", path);
    tv_buf bulk;
    tv_buf_init(&bulk);
    tv_arena a;
    tv_arena_init(&a);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int64_t docs = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
        if (!len) continue;
        tv_arena_reset(&a);
        tv_json *doc;
        if (tv_json_parse(&a, line, (size_t)len, &doc, NULL) != TROVE_OK) die("bad document line", line);
        const tv_json *id = tv_json_get(doc, "id");
        if (!id || id->type != TV_JSON_STRING) die("a document without a string id", line);
        tv_buf_puts(&bulk, "{\"index\":{\"_id\":");
        put_json_string(&bulk, id->v.s, id->len);
        tv_buf_puts(&bulk, "}}\n");
        tv_buf_append(&bulk, line, (size_t)len);
        tv_buf_putc(&bulk, '\n');
        docs++;
        if (bulk.len >= BATCH_BYTES) {
            free(must(n, "POST", "/ft/_bulk", bulk.data, bulk.len));
            tv_buf_clear(&bulk);
        }
    }
    if (bulk.len) free(must(n, "POST", "/ft/_bulk", bulk.data, bulk.len));
    free(line);
    fclose(f);
    tv_buf_fini(&bulk);
    tv_arena_fini(&a);
    return docs;
}

/* The value of `"key":<digits>` after `from` in a response, or -1. */
static long long number_after(const char *body, const char *from, const char *key) {
    const char *p = from ? strstr(body, from) : body;
    if (!p) return -1;
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    p = strstr(p, pat);
    return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/* Hits in a search response: the objects of hits.hits (each has "_index"). */
static long long count_hits(const char *body) {
    const char *p = strstr(body, "\"hits\":{");
    p = p ? strstr(p + 8, "\"hits\":[") : NULL;
    if (!p) return -1;
    long long k = 0;
    for (p = strstr(p, "\"_index\":"); p; p = strstr(p + 9, "\"_index\":")) k++;
    return k;
}

int main(int argc, char **argv) {
    if (argc != 3) die("usage: bench_fulltext_trove INDEX_DIR DOCS.ndjson", NULL);
    int64_t t0 = ns(CLOCK_MONOTONIC);
    trove_error err;
    trove_node *n = trove_node_open(NULL, &err);
    if (!n) die("open", err.message);
    const char *mapping = "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0,\"refresh_interval\":\"-1\"},"
                          "\"mappings\":{\"dynamic\":false,\"_source\":{\"enabled\":false},"
                          "\"properties\":{\"body\":{\"type\":\"text\"}}}}";
    free(must(n, "PUT", "/ft", mapping, strlen(mapping)));
    int64_t docs = load(n, argv[2]);
    free(must(n, "POST", "/ft/_refresh", NULL, 0));
    free(must(n, "POST", "/ft/_forcemerge?max_num_segments=1", NULL, 0));
    double secs = (double)(ns(CLOCK_MONOTONIC) - t0) / 1e9;
    malloc_trim(0); /* what indexing freed goes back, as the server does before its ready line */
    char *stats = must(n, "GET", "/ft/_stats/store", NULL, 0);
    long long bytes = number_after(stats, "\"primaries\"", "size_in_bytes");
    free(stats);
    printf("READY\t{\"engine\":\"trove\",\"version\":\"%s\",\"docs\":%lld,\"index_seconds\":%.3f,\"index_bytes\":%lld}\n",
           trove_version(), (long long)docs, secs, bytes);
    fflush(stdout);

    tv_buf body;
    tv_buf_init(&body);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) > 0) {
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
        line[len] = 0;
        char *tab = strchr(line, '\t');
        if (!tab) {
            printf("ERROR\tno tab in the line\n");
            fflush(stdout);
            continue;
        }
        *tab = 0;
        const char *mode = line, *q = tab + 1;
        int size = strcmp(mode, "TOP_10") == 0 ? 10 : strcmp(mode, "TOP_100") == 0 ? 100 : 0;
        bool count = strcmp(mode, "COUNT") == 0;
        if (!size && !count) {
            printf("ERROR\tunknown mode [%s]\n", mode);
            fflush(stdout);
            continue;
        }
        tv_buf_clear(&body);
        if (size) tv_buf_printf(&body, "{\"size\":%d,\"track_total_hits\":false,\"stored_fields\":\"_none_\",", size);
        else tv_buf_putc(&body, '{');
        tv_buf_puts(&body, "\"query\":{\"query_string\":{\"default_field\":\"body\",\"query\":");
        put_json_string(&body, q, strlen(q));
        tv_buf_puts(&body, "}}}");
        trove_response r;
        int64_t c0 = ns(CLOCK_THREAD_CPUTIME_ID), w0 = ns(CLOCK_MONOTONIC);
        int rc = trove_request(n, "POST", count ? "/ft/_count" : "/ft/_search", body.data, body.len, &r);
        int64_t w1 = ns(CLOCK_MONOTONIC), c1 = ns(CLOCK_THREAD_CPUTIME_ID);
        if (rc != 0) {
            printf("ERROR\ttrove_request: %s\n", trove_status_message(rc));
        } else if (r.status == 200) {
            long long hits = count ? number_after(r.body, NULL, "count") : count_hits(r.body);
            printf("OK\t%lld\t%lld\t%lld\n", hits, (long long)(c1 - c0), (long long)(w1 - w0));
        } else if (r.status == 400 && strstr(r.body, "\"unsupported_operation_exception\"")) {
            const char *why = strstr(r.body, "\"reason\":\"");
            printf("UNSUPPORTED\t%.*s\n", why ? (int)strcspn(why + 10, "\"") : 7, why ? why + 10 : "unknown");
        } else {
            printf("ERROR\t%d %.300s\n", r.status, r.body);
        }
        trove_response_fini(&r);
        fflush(stdout);
    }
    free(line);
    tv_buf_fini(&body);
    trove_node_free(n);
    return 0;
}
