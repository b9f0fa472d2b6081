/*
 * in_process.h — what the in-process request benchmarks (bench_aggs,
 * bench_nested) share: the corpus generator, a request that must
 * succeed, and the timing of one request over R rounds after a warm-up,
 * printed as median and p90 (header-only: CMake builds each
 * bench/bench_*.c as its own program).
 */
#ifndef TROVE_BENCH_IN_PROCESS_H
#define TROVE_BENCH_IN_PROCESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"
#include "trove.h"

/* The corpus generator (xorshift64, a fixed seed: the same corpus every run). */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The request, or exit(1) with the response. len 0 with a body: strlen. */
static void must(trove_node *n, const char *m, const char *path, const char *body, size_t len) {
    trove_response r;
    if (body && !len) len = strlen(body);
    if (trove_request(n, m, path, body, len, &r) != 0 || r.status >= 300) {
        fprintf(stderr, "%s %s: %d %.300s\n", m, path, r.status, r.body ? r.body : "");
        exit(1);
    }
    trove_response_fini(&r);
}

/* POSTs body to path rounds times after one warm-up; prints and returns
 * the median latency in microseconds. */
static double run(trove_node *n, const char *label, const char *path, const char *body, int rounds) {
    double *t = malloc((size_t)rounds * sizeof *t);
    trove_response r;
    if (trove_request(n, "POST", path, body, strlen(body), &r) != 0 || r.status != 200) {
        fprintf(stderr, "%s: %d %.300s\n", label, r.status, r.body ? r.body : "");
        exit(1);
    }
    size_t out = r.body_len;
    trove_response_fini(&r);
    for (int i = 0; i < rounds; i++) {
        double t0 = now_us();
        trove_request(n, "POST", path, body, strlen(body), &r);
        t[i] = now_us() - t0;
        trove_response_fini(&r);
    }
    qsort(t, (size_t)rounds, sizeof *t, cmp_d);
    double med = t[rounds / 2];
    printf("%-14s median %10.1f us   p90 %10.1f us   (response %zu bytes)\n", label, med, t[(rounds * 9) / 10], out);
    free(t);
    return med;
}

#endif
