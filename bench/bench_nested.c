/*
 * bench_nested.c — nested objects through trove_request, each request
 * beside its flat peer: the same objects indexed as top-level documents of
 * another index, so the ratio is the price of the doc blocks (the join to
 * the root, the child filter, inner hits) over the same postings and doc
 * values. A benchmark, never a test: it prints figures.
 *
 * Corpus (generated, fixed seed): N orders (default 100,000), each with 0
 * to 7 nested "lines" (3.5 on average): sku, a keyword of 1,000 values
 * (skewed: small numbers are common), qty an integer 1..20, price a double
 * below 100. Index "flat" holds every line as a document. Both are built
 * with _bulk in batches of 5,000 and force-merged to one segment.
 *
 * Requests, R rounds after one warm-up (median and p90 in microseconds):
 *   term       nested term on lines.sku (score avg), size 10 / term on sku
 *   bool+ih    nested bool (sku term + qty range) with inner_hits / bool on
 *              the flat lines
 *   aggs       nested terms on lines.sku / terms on sku
 *   aggs+rev   the same with a reverse_nested count of orders per bucket /
 *              a cardinality of order per bucket
 *   sort       nested sort by the lowest line price, size 10 / sort by price
 *
 * Usage: bench_nested [N [R]]   (BENCH_ONLY=<label> runs one pair)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "in_process.h"


typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void put(buf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void flush(trove_node *n, buf *b, const char *path) {
    if (!b->len) return;
    must(n, "POST", path, b->p, b->len);
    b->len = 0;
}

static void build(trove_node *n, long orders) {
    must(n, "PUT", "/orders",
         "{\"settings\":{\"refresh_interval\":-1},\"mappings\":{\"properties\":{\"customer\":{\"type\":\"keyword\"},"
         "\"lines\":{\"type\":\"nested\",\"properties\":{\"sku\":{\"type\":\"keyword\"},\"qty\":{\"type\":\"integer\"},"
         "\"price\":{\"type\":\"double\"}}}}}}",
         0);
    must(n, "PUT", "/flat",
         "{\"settings\":{\"refresh_interval\":-1},\"mappings\":{\"properties\":{\"order\":{\"type\":\"keyword\"},"
         "\"sku\":{\"type\":\"keyword\"},\"qty\":{\"type\":\"integer\"},\"price\":{\"type\":\"double\"}}}}",
         0);
    buf ob = {0}, fb = {0};
    char line[256], one[160];
    for (long i = 0; i < orders; i++) {
        int nl = (int)(next_u64() % 8);
        int k = snprintf(line, sizeof line, "{\"index\":{}}\n{\"customer\":\"c%ld\",\"lines\":[", i % 5000);
        put(&ob, line, (size_t)k);
        for (int l = 0; l < nl; l++) {
            long sku = (long)((next_u64() % 1000) * (next_u64() % 1000) / 1000);
            int qty = 1 + (int)(next_u64() % 20);
            double price = (double)(next_u64() % 100000) / 1000.0;
            int m = snprintf(one, sizeof one, "{\"sku\":\"s%04ld\",\"qty\":%d,\"price\":%.3f}", sku, qty, price);
            if (l) put(&ob, ",", 1);
            put(&ob, one, (size_t)m);
            k = snprintf(line, sizeof line, "{\"index\":{}}\n{\"order\":\"o%ld\",%s\n", i, one + 1);
            put(&fb, line, (size_t)k);
        }
        put(&ob, "]}\n", 3);
        if ((i + 1) % 5000 == 0) {
            flush(n, &ob, "/orders/_bulk");
            flush(n, &fb, "/flat/_bulk");
        }
    }
    flush(n, &ob, "/orders/_bulk");
    flush(n, &fb, "/flat/_bulk");
    must(n, "POST", "/orders,flat/_refresh", NULL, 0);
    must(n, "POST", "/orders,flat/_forcemerge?max_num_segments=1", NULL, 0);
    free(ob.p);
    free(fb.p);
}


static void pair(trove_node *n, const char *label, const char *nested, const char *flat, int rounds) {
    const char *only = getenv("BENCH_ONLY"); /* one request, e.g. for a profile */
    if (only && strcmp(only, label) != 0) return;
    char l1[64], l2[64];
    snprintf(l1, sizeof l1, "%s nested", label);
    snprintf(l2, sizeof l2, "%s flat", label);
    double a = run(n, l1, "/orders/_search", nested, rounds);
    double b = run(n, l2, "/flat/_search", flat, rounds);
    printf("%-14s ratio nested/flat %.2f\n", label, a / b);
}

int main(int argc, char **argv) {
    long orders = argc > 1 ? atol(argv[1]) : 100000;
    int rounds = argc > 2 ? atoi(argv[2]) : 21;
    trove_node *n = trove_node_open(NULL, NULL);
    if (!n) return 1;
    double t0 = now_us();
    build(n, orders);
    printf("indexed %ld orders in %.1f s\n", orders, (now_us() - t0) / 1e6);
    pair(n, "term",
         "{\"query\":{\"nested\":{\"path\":\"lines\",\"query\":{\"term\":{\"lines.sku\":\"s0007\"}}}}}",
         "{\"query\":{\"term\":{\"sku\":\"s0007\"}}}", rounds);
    pair(n, "bool+ih",
         "{\"query\":{\"nested\":{\"path\":\"lines\",\"query\":{\"bool\":{\"filter\":[{\"term\":{\"lines.sku\":"
         "\"s0007\"}},{\"range\":{\"lines.qty\":{\"gte\":10}}}]}},\"inner_hits\":{}}}}",
         "{\"query\":{\"bool\":{\"filter\":[{\"term\":{\"sku\":\"s0007\"}},{\"range\":{\"qty\":{\"gte\":10}}}]}}}", rounds);
    pair(n, "aggs",
         "{\"size\":0,\"aggs\":{\"l\":{\"nested\":{\"path\":\"lines\"},\"aggs\":{\"s\":{\"terms\":{\"field\":"
         "\"lines.sku\"}}}}}}",
         "{\"size\":0,\"aggs\":{\"s\":{\"terms\":{\"field\":\"sku\"}}}}", rounds);
    pair(n, "aggs+rev",
         "{\"size\":0,\"aggs\":{\"l\":{\"nested\":{\"path\":\"lines\"},\"aggs\":{\"s\":{\"terms\":{\"field\":"
         "\"lines.sku\"},\"aggs\":{\"o\":{\"reverse_nested\":{}}}}}}}}",
         "{\"size\":0,\"aggs\":{\"s\":{\"terms\":{\"field\":\"sku\"},\"aggs\":{\"o\":{\"cardinality\":{\"field\":"
         "\"order\"}}}}}}",
         rounds);
    pair(n, "sort",
         "{\"sort\":[{\"lines.price\":{\"order\":\"asc\",\"nested\":{\"path\":\"lines\"}}}]}",
         "{\"sort\":[{\"price\":\"asc\"}]}", rounds);
    trove_node_free(n);
    return 0;
}
