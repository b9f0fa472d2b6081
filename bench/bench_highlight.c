/*
 * bench_highlight.c — the cost of the `highlight` option: a match query
 * with size 10 on the body field, with and without
 * "highlight":{"fields":{"body":{}}} (unified highlighter, defaults),
 * through trove_request. A benchmark, never a test: it prints figures.
 *
 * Corpus: N (default 10,000) English-like documents from bench/corpus.h
 * (bodies of 50-500 words in sentences), one _bulk per 1,000, refreshed.
 * The query text is two words of the medium document-frequency band (so
 * the hits have a handful of matches each, as a user's search would),
 * drawn from the generator's statistics. R rounds (default 101, at least
 * 50) alternate the two requests after a warm-up; the medians and the
 * difference are printed in microseconds.
 *
 * Usage: bench_highlight [N [R]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "timing.h"
#include "trove.h"

static void die(const char *m) {
    fprintf(stderr, "bench_highlight: %s\n", m);
    exit(1);
}

static double run(trove_node *node, const char *body) {
    trove_response r;
    double t0 = now_us();
    int rc = trove_request(node, "POST", "/bench/_search", body, strlen(body), &r);
    double dt = now_us() - t0;
    if (rc != 0 || r.status != 200) {
        fprintf(stderr, "%d %.400s\n", r.status, r.body ? r.body : "");
        die("search failed");
    }
    trove_response_fini(&r);
    return dt;
}

int main(int argc, char **argv) {
    uint32_t ndocs = argc > 1 ? (uint32_t)atoi(argv[1]) : 10000;
    int rounds = argc > 2 ? atoi(argv[2]) : 101;
    if (rounds < 50) rounds = 50;
    trove_node *node = trove_node_open(NULL, NULL);
    if (!node) die("cannot open a node");
    trove_response r;
    const char *mapping = "{\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"},\"body\":{\"type\":\"text\"},"
                          "\"tag\":{\"type\":\"keyword\"},\"views\":{\"type\":\"long\"},\"date\":{\"type\":\"date\"}}}}";
    trove_request(node, "PUT", "/bench", mapping, strlen(mapping), &r);
    trove_response_fini(&r);
    bc_corpus c;
    if (!bc_corpus_init(&c, 42)) die("out of memory");
    bc_corpus_reset(&c);
    tv_buf b;
    tv_buf_init(&b);
    for (uint32_t i = 0; i < ndocs;) {
        tv_buf_clear(&b);
        for (uint32_t k = 0; k < 1000 && i < ndocs; k++, i++) {
            tv_buf_printf(&b, "{\"index\":{\"_id\":\"%u\"}}\n", i);
            bc_doc(&c, &b);
            tv_buf_putc(&b, '\n');
        }
        if (b.oom) die("out of memory");
        if (trove_request(node, "POST", "/bench/_bulk", b.data, b.len, &r) != 0 || r.status != 200) die("bulk failed");
        trove_response_fini(&r);
    }
    trove_request(node, "POST", "/bench/_refresh", NULL, 0, &r);
    trove_response_fini(&r);
    /* two medium-frequency words (5%..20% of the documents) */
    const char *w[2] = {NULL, NULL};
    size_t wl[2] = {0, 0};
    uint32_t found = 0;
    for (uint32_t rank = 0; rank < BC_NWORDS && found < 2; rank++) {
        if (c.df[rank] < ndocs / 20 || c.df[rank] > ndocs / 5) continue;
        w[found] = bc_word(&c, rank, &wl[found]);
        found++;
    }
    if (found < 2) die("no medium-frequency words");
    char plain[512], hl[640];
    snprintf(plain, sizeof plain, "{\"size\":10,\"query\":{\"match\":{\"body\":\"%.*s %.*s\"}}}", (int)wl[0], w[0], (int)wl[1], w[1]);
    snprintf(hl, sizeof hl, "{\"size\":10,\"query\":{\"match\":{\"body\":\"%.*s %.*s\"}},\"highlight\":{\"fields\":{\"body\":{}}}}",
             (int)wl[0], w[0], (int)wl[1], w[1]);
    for (int i = 0; i < 5; i++) run(node, plain), run(node, hl);
    double *a = malloc((size_t)rounds * sizeof *a), *h = malloc((size_t)rounds * sizeof *h);
    if (!a || !h) die("out of memory");
    for (int i = 0; i < rounds; i++) {
        a[i] = run(node, plain);
        h[i] = run(node, hl);
    }
    qsort(a, (size_t)rounds, sizeof *a, cmp_d);
    qsort(h, (size_t)rounds, sizeof *h, cmp_d);
    double ma = a[rounds / 2], mh = h[rounds / 2];
    printf("bench_highlight: %u docs, %d rounds, query body:\"%.*s %.*s\" size 10\n", ndocs, rounds, (int)wl[0], w[0],
           (int)wl[1], w[1]);
    printf("  without highlight  median %9.1f us\n", ma);
    printf("  with highlight     median %9.1f us\n", mh);
    printf("  difference                %9.1f us (%.2fx)\n", mh - ma, ma > 0 ? mh / ma : 0.0);
    free(a);
    free(h);
    tv_buf_fini(&b);
    bc_corpus_fini(&c);
    trove_node_free(node);
    return 0;
}
