/*
 * bench_fixture.c — the cost of an embedded test fixture: trove_node_open
 * plus trove_node_load_seed of a seed, then trove_node_free (timed apart).
 * A benchmark, never a test: it prints figures.
 *
 *   ./build-rel/bench_fixture [SEED] [RUNS]
 *
 * SEED defaults to tests/fixtures/seed/items3 (an items index with title
 * text + keyword, category keyword, price double, created date, and three
 * documents loaded with one _bulk?refresh=true), RUNS to 2000. After 50
 * warm-up runs, each run opens a fresh node, loads the seed, checks that
 * _count answers (untimed) and frees the node. Reported: median, p90, min
 * and mean of open + seed, and the median of the free, in µs.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trove.h"

#ifndef TROVE_SOURCE_DIR
#define TROVE_SOURCE_DIR "."
#endif

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const char *seed = argc > 1 ? argv[1] : "tests/fixtures/seed/items3";
    int runs = argc > 2 ? atoi(argv[2]) : 2000;
    if (runs < 1) runs = 1;
    double *t = malloc(sizeof *t * (size_t)runs), *tf = malloc(sizeof *tf * (size_t)runs);
    if (!t || !tf) return 1;
    double sum = 0;
    for (int i = -50; i < runs; i++) {
        trove_error err;
        double t0 = now_us();
        trove_node *n = trove_node_open(NULL, &err);
        if (!n) {
            fprintf(stderr, "open: %s\n", err.message);
            return 1;
        }
        if (trove_node_load_seed(n, seed, &err) != 0) {
            fprintf(stderr, "seed: %s\n", err.message);
            return 1;
        }
        double t1 = now_us();
        if (i == -50) {
            trove_response r;
            if (trove_request(n, "GET", "/_count", NULL, 0, &r) != 0 || r.status != 200) return 1;
            fprintf(stderr, "seed %s: %s\n", seed, r.body);
            trove_response_fini(&r);
        }
        double t2 = now_us();
        trove_node_free(n);
        double t3 = now_us();
        if (i >= 0) {
            t[i] = t1 - t0;
            tf[i] = t3 - t2;
            sum += t1 - t0;
        }
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_d);
    qsort(tf, (size_t)runs, sizeof *tf, cmp_d);
    printf("open + seed: median %.1f us, p90 %.1f us, min %.1f us, mean %.1f us; free: median %.1f us "
           "(%d runs)\n",
           t[runs / 2], t[(int)(runs * 0.9)], t[0], sum / runs, tf[runs / 2], runs);
    free(t);
    free(tf);
    return 0;
}
