/*
 * breaker.c — memory circuit breakers, as OpenSearch's
 * HierarchyCircuitBreakerService: a request that would pass a budget is
 * refused before it allocates, instead of the process running out of
 * memory.
 *
 * Children. Each child breaker (request, fielddata, in_flight_requests,
 * accounting) keeps the bytes reserved on it (used) and a limit; a
 * reservation adds bytes * overhead to used, and fails when that passes
 * the limit (ChildMemoryCircuitBreaker.addEstimateBytesAndMaybeBreak: the
 * message names the breaker, the label of what wanted the bytes, the new
 * total and the limit). Reservations are lock-free: an atomic add, then a
 * subtraction if it broke, as OpenSearch's loop does with compare-and-set.
 *
 * Parent. Every successful child reservation then asks the parent: with
 * real memory tracking (the default) its usage is the process's resident
 * set (the JVM heap's analogue here) plus the new bytes, else the sum of
 * the children's estimates; past its limit the child's reservation is
 * undone and the parent trips with OpenSearch's message (real usage, new
 * bytes reserved and every child's usage). The resident set is read from
 * /proc/self/statm at most every 10 ms (a few microseconds a read).
 *
 * Percentages. OpenSearch's limits are shares of the JVM heap; trove's are
 * shares of a budget the embedder gives (trove_options.heap_bytes, `trove
 * serve --heap`), by default half of the machine's memory.
 *
 * Trips are counted per breaker (the stats' "tripped"). A trip fills a
 * tv_breaker_trip the caller turns into OpenSearch's 429
 * circuit_breaking_exception.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static const char *const names[TV_BREAKER_COUNT] = {"request", "fielddata", "in_flight_requests", "accounting", "parent"};
static const double overheads[TV_BREAKER_COUNT] = {1.0, 1.03, 2.0, 1.0, 1.0};

const char *tv_breaker_name(tv_breaker_kind k) { return k < TV_BREAKER_COUNT ? names[k] : ""; }

void tv_breakers_init(tv_breakers *s, int64_t heap) {
    memset(s, 0, sizeof *s);
    if (heap <= 0) {
        long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
        heap = pages > 0 && psz > 0 ? (int64_t)pages * psz / 2 : (int64_t)1 << 30;
    }
    s->heap = heap;
    atomic_store(&s->real_memory, true);
    for (int k = 0; k < TV_BREAKER_COUNT; k++) {
        s->b[k].overhead = overheads[k];
        atomic_store(&s->b[k].limit, -1);
    }
    /* OpenSearch's defaults: request 60%, fielddata 40%, in-flight 100%,
     * accounting 100%, parent 95% (real memory) */
    static const int pct[TV_BREAKER_COUNT] = {60, 40, 100, 100, 95};
    for (int k = 0; k < TV_BREAKER_COUNT; k++)
        atomic_store(&s->b[k].limit, tv_java_d2l((double)heap * pct[k] / 100.0)); /* MemorySizeValue's ratio */
}

/* The resident set in bytes, read at most every 10 ms. */
static int64_t rss_bytes(tv_breakers *s) {
    uint64_t now = tv_mono_ns();
    uint64_t at = atomic_load_explicit(&s->rss_at, memory_order_relaxed);
    if (at && now - at < 10000000ull) return atomic_load_explicit(&s->rss, memory_order_relaxed);
    int64_t rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        long long size = 0, res = 0;
        if (fscanf(f, "%lld %lld", &size, &res) == 2) rss = (int64_t)res * sysconf(_SC_PAGESIZE);
        fclose(f);
    }
    atomic_store_explicit(&s->rss, rss, memory_order_relaxed);
    atomic_store_explicit(&s->rss_at, now, memory_order_relaxed);
    return rss;
}

static void fill_trip(tv_breaker_trip *t, tv_breakers *s, tv_breaker_kind k, const char *label, int64_t wanted,
                      int64_t limit, int64_t real, int64_t newbytes) {
    if (!t) return;
    t->kind = k;
    snprintf(t->label, sizeof t->label, "%s", label ? label : "");
    t->wanted = wanted;
    t->limit = limit;
    t->real_usage = real;
    t->new_bytes = newbytes;
    for (int i = 0; i < TV_BREAKER_PARENT; i++)
        t->usages[i] = (int64_t)((double)atomic_load(&s->b[i].used) * s->b[i].overhead);
}

bool tv_breaker_add(tv_breakers *s, tv_breaker_kind k, int64_t bytes, const char *label, tv_breaker_trip *trip) {
    if (!s || bytes <= 0) return true;
    tv_breaker *b = &s->b[k];
    int64_t est = (int64_t)((double)bytes * b->overhead);
    int64_t limit = atomic_load(&b->limit);
    int64_t now = atomic_fetch_add(&b->used, bytes) + bytes;
    int64_t now_est = (int64_t)((double)now * b->overhead);
    if (limit >= 0 && now_est > limit) {
        atomic_fetch_sub(&b->used, bytes);
        atomic_fetch_add(&b->tripped, 1);
        fill_trip(trip, s, k, label, now_est, limit, 0, 0);
        return false;
    }
    /* HierarchyCircuitBreakerService.checkParentLimit(newBytesReserved) */
    tv_breaker *p = &s->b[TV_BREAKER_PARENT];
    int64_t plimit = atomic_load(&p->limit);
    int64_t real = 0, total = 0;
    if (atomic_load(&s->real_memory)) {
        real = rss_bytes(s);
        total = real + est;
    } else {
        for (int i = 0; i < TV_BREAKER_PARENT; i++)
            total += (int64_t)((double)atomic_load(&s->b[i].used) * s->b[i].overhead);
    }
    if (plimit >= 0 && total > plimit) {
        atomic_fetch_sub(&b->used, bytes);
        atomic_fetch_add(&p->tripped, 1);
        fill_trip(trip, s, TV_BREAKER_PARENT, label, total, plimit, real, est);
        return false;
    }
    return true;
}

void tv_breaker_release(tv_breakers *s, tv_breaker_kind k, int64_t bytes) {
    if (s && bytes > 0) atomic_fetch_sub(&s->b[k].used, bytes);
}

int64_t tv_breaker_estimate(tv_breakers *s, tv_breaker_kind k) {
    if (k == TV_BREAKER_PARENT) {
        if (atomic_load(&s->real_memory)) return rss_bytes(s);
        int64_t t = 0;
        for (int i = 0; i < TV_BREAKER_PARENT; i++) t += tv_breaker_estimate(s, (tv_breaker_kind)i);
        return t;
    }
    return (int64_t)((double)atomic_load(&s->b[k].used) * s->b[k].overhead);
}

void tv_breaker_trip_message(const tv_breaker_trip *t, char *out, size_t cap) {
    char w[32], l[32];
    tv_java_byte_size(t->wanted, w, sizeof w);
    tv_java_byte_size(t->limit, l, sizeof l);
    size_t o = (size_t)snprintf(out, cap,
                                "[%s] Data too large, data for [%s] would be [%lld/%s], which is larger than the limit "
                                "of [%lld/%s]",
                                names[t->kind], t->label, (long long)t->wanted, w, (long long)t->limit, l);
    if (t->kind != TV_BREAKER_PARENT || o >= cap) return;
    if (t->real_usage) {
        char ru[32], nb[32];
        tv_java_byte_size(t->real_usage, ru, sizeof ru);
        tv_java_byte_size(t->new_bytes, nb, sizeof nb);
        o += (size_t)snprintf(out + o, cap - o, ", real usage: [%lld/%s], new bytes reserved: [%lld/%s]",
                              (long long)t->real_usage, ru, (long long)t->new_bytes, nb);
    }
    /* the children in the order OpenSearch's HashMap of them prints */
    static const int order[] = {TV_BREAKER_REQUEST, TV_BREAKER_FIELDDATA, TV_BREAKER_IN_FLIGHT, TV_BREAKER_ACCOUNTING};
    for (size_t i = 0; i < TV_ARRAY_LEN(order) && o < cap; i++) {
        char u[32];
        tv_java_byte_size(t->usages[order[i]], u, sizeof u);
        o += (size_t)snprintf(out + o, cap - o, "%s%s=%lld/%s", i ? ", " : ", usages [", names[order[i]],
                              (long long)t->usages[order[i]], u);
    }
    if (o < cap) snprintf(out + o, cap - o, "]");
}
