/*
 * timing.h — the clock and the sample ordering the fixture benchmarks share
 * (header-only: CMake builds each bench/bench_*.c as its own program).
 */
#ifndef TROVE_BENCH_TIMING_H
#define TROVE_BENCH_TIMING_H

#include <time.h>

/* Monotonic time in microseconds. */
static inline double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* qsort comparator for doubles, ascending. */
static inline int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
