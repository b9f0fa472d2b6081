/*
 * bench_aggs.c — aggregation benchmarks through trove_request (the whole
 * REST path: body parsing, collection from doc values, reduce, JSON
 * writing). A benchmark, never a test: it prints figures.
 *
 * Corpus (generated, fixed seed): N docs (default 1,000,000) with
 *   tag   keyword, one of 10,000 values, skewed (a*b/10000 for a, b
 *         uniform below 10,000: small values are common)
 *   ts    date, uniformly over one year (2024), millisecond resolution
 *   price double in [0, 1000)
 *   status keyword, one of 5
 * indexed with _bulk in batches of 5,000 and refreshed every 100,000 docs,
 * then force-merged to one segment (as a read-mostly index would be).
 *
 * Requests (size 0 unless said), R rounds after one warm-up; median and
 * p90 latency in microseconds:
 *   terms         {"aggs":{"t":{"terms":{"field":"tag"}}}}           1M docs, 10k keys
 *   date_hist     {"aggs":{"h":{"date_histogram":{"field":"ts","calendar_interval":"day"}}}}
 *   terms+avg     terms on tag with an avg of price under each bucket
 *   stats         {"aggs":{"s":{"stats":{"field":"price"}}}}
 * and, on a 10,000-doc index built the same way (the test-double case,
 * osmem's published figure 4.5 ms):
 *   bool+sort+dh  {"query":{"bool":{"filter":[{"term":{"status":"s1"}},
 *                 {"range":{"price":{"gte":100}}}]}},"sort":[{"ts":"desc"}],
 *                 "size":10,"aggs":{"h":{"date_histogram":{"field":"ts",
 *                 "calendar_interval":"day"}}}}
 *
 * Usage: bench_aggs [N [R]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "in_process.h"


static void build(trove_node *n, const char *index, long docs) {
    char path[128], body[512];
    snprintf(path, sizeof path, "/%s", index);
    snprintf(body, sizeof body,
             "{\"settings\":{\"refresh_interval\":-1},\"mappings\":{\"properties\":{\"tag\":{\"type\":\"keyword\"},"
             "\"ts\":{\"type\":\"date\"},\"price\":{\"type\":\"double\"},\"status\":{\"type\":\"keyword\"}}}}");
    must(n, "PUT", path, body, strlen(body));
    size_t cap = 1 << 22, len = 0;
    char *bulk = malloc(cap);
    char bpath[128], rpath[128];
    snprintf(bpath, sizeof bpath, "/%s/_bulk", index);
    snprintf(rpath, sizeof rpath, "/%s/_refresh", index);
    const int64_t year0 = 1704067200000LL; /* 2024-01-01 */
    for (long i = 0; i < docs; i++) {
        /* skewed tag: the product of two uniform draws favours small values */
        long t = (long)((next_u64() % 10000) * (next_u64() % 10000) / 10000);
        int64_t ts = year0 + (int64_t)(next_u64() % 31622400000ULL);
        double price = (double)(next_u64() % 1000000) / 1000.0;
        len += (size_t)snprintf(bulk + len, cap - len,
                                "{\"index\":{}}\n{\"tag\":\"t%05ld\",\"ts\":%lld,\"price\":%.3f,\"status\":\"s%d\"}\n", t,
                                (long long)ts, price, (int)(next_u64() % 5));
        if ((i + 1) % 5000 == 0 || i + 1 == docs) {
            must(n, "POST", bpath, bulk, len);
            len = 0;
        }
        if ((i + 1) % 100000 == 0) must(n, "POST", rpath, NULL, 0);
    }
    must(n, "POST", rpath, NULL, 0);
    snprintf(path, sizeof path, "/%s/_forcemerge?max_num_segments=1", index);
    must(n, "POST", path, NULL, 0);
    free(bulk);
}


int main(int argc, char **argv) {
    long docs = argc > 1 ? atol(argv[1]) : 1000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    trove_node *n = trove_node_open(NULL, NULL);
    if (!n) return 1;
    double t0 = now_us();
    build(n, "big", docs);
    printf("indexed %ld docs in %.1f s\n", docs, (now_us() - t0) / 1e6);
    run(n, "terms", "/big/_search", "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"tag\"}}}}", rounds);
    run(n, "date_hist", "/big/_search",
        "{\"size\":0,\"aggs\":{\"h\":{\"date_histogram\":{\"field\":\"ts\",\"calendar_interval\":\"day\"}}}}", rounds);
    run(n, "terms+avg", "/big/_search",
        "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"tag\"},\"aggs\":{\"a\":{\"avg\":{\"field\":\"price\"}}}}}}", rounds);
    run(n, "stats", "/big/_search", "{\"size\":0,\"aggs\":{\"s\":{\"stats\":{\"field\":\"price\"}}}}", rounds);
    build(n, "small", 10000);
    run(n, "bool+sort+dh", "/small/_search",
        "{\"query\":{\"bool\":{\"filter\":[{\"term\":{\"status\":\"s1\"}},{\"range\":{\"price\":{\"gte\":100}}}]}},"
        "\"sort\":[{\"ts\":\"desc\"}],\"size\":10,\"aggs\":{\"h\":{\"date_histogram\":{\"field\":\"ts\",\"calendar_interval\":\"day\"}}}}",
        rounds * 10);
    trove_node_free(n);
    return 0;
}
