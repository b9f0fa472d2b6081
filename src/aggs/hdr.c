/*
 * hdr.c — HdrHistogram's DoubleHistogram arithmetic, as OpenSearch's HDR
 * percentiles use it (see hdr.h for the mapping to OpenSearch).
 *
 * What DoubleHistogram does. It keeps an integer HDR histogram of
 * subBucketCount = 2^(m+1) sub-buckets per power of two, where m =
 * ceil(log2(2 * 10^d)) - 1 ("subBucketHalfCountMagnitude"), and maps a
 * double v to the integer (long)(v / r), r = L / 2^m, where L (a power of
 * two) is the lowest value of its "auto range". Integer i >= 2^m lies in
 * the sub-bucket [lo, lo + s) with s = 2^(floor(log2 i) - m), lo = i
 * rounded down to a multiple of s. Recording a value below L shifts the
 * range down by powers of two (shiftCoveredRangeToTheRight) until L <= v;
 * a value above the range's top grows the integer histogram (the shift the
 * other way always fails once a value was recorded: it would push the
 * smallest value into the lossy lower half of bucket 0), so L stays. The
 * range starts at 2^800, so after any sequence of records and merges
 *   L = 2^floor(log2(smallest positive value recorded)),
 * whatever the order (merges record each bucket's lowest value, which
 * keeps the same bucket). Because r is a power of two and every positive
 * value is >= L (integer >= 2^m), a value's bucket in double space is
 *   width w = 2^(floor(log2 v) - m), lo = floor(v / w) * w,
 * independent of L. Only the answers depend on L: getValueAtPercentile(p)
 * walks the counts in value order to the first index where the running
 * count reaches max(1, ceil(nextDown(p) * total / 100)) and returns that
 * index's highestEquivalentValue, the long (lo + s - 1) of the integer
 * space, times r (lowestEquivalentValue for p = 0): e.g. 51 recorded with
 * 1 as the smallest value (d = 3) answers 51 + 31/1024 = 51.0302734375.
 * getPercentileAtOrBelowValue(v) sums the counts of indexes up to v's
 * index: the zeros, plus every bucket whose lo is <= v's lo when v >= L.
 *
 * So this keeps, per histogram, the count of zeros, the smallest and
 * largest positive values, and the positive buckets as (lo, count) pairs
 * in a sorted array (binary search, insertion by memmove: a histogram has
 * at most 2^m buckets per power of two actually used). The integer
 * histogram's range limit (its integers must stay below 2^63, i.e.
 * max / r < 2^63) is checked on every record: beyond it DoubleHistogram
 * throws, and so does this (TROVE_EUNSUPPORTED).
 *
 * Rejected: a literal port of the integer histogram with its shifts and
 * resizes (more code and memory for the same answers, and ours must not
 * be a copy); a hash map of buckets (answers need them in order anyway).
 */
#include <math.h>
#include <string.h>

#include "aggs/hdr.h"

typedef struct hdr_bucket {
    double lo;
    uint64_t count;
} hdr_bucket;

struct tv_hdr {
    int digits;
    int m;                 /* subBucketHalfCountMagnitude */
    uint64_t zeros;
    uint64_t total;
    double minpos, maxpos; /* INFINITY / 0 when none */
    hdr_bucket *b;
    size_t n, cap;
};

static int half_magnitude(int digits) {
    double largest = 2.0 * pow(10.0, digits);
    int mag = (int)ceil(log2(largest));
    return (mag > 1 ? mag : 1) - 1;
}

tv_hdr *tv_hdr_new(int digits) {
    tv_hdr *h = tv_malloc(sizeof *h);
    if (!h) return NULL;
    memset(h, 0, sizeof *h);
    h->digits = digits;
    h->m = half_magnitude(digits);
    h->minpos = INFINITY;
    return h;
}

void tv_hdr_free(tv_hdr *h) {
    if (!h) return;
    tv_free(h->b);
    tv_free(h);
}

uint64_t tv_hdr_count(const tv_hdr *h) { return h ? h->total : 0; }
int tv_hdr_digits(const tv_hdr *h) { return h->digits; }

/* floor(log2 v) of a positive finite double. */
static int ilog2(double v) {
    int e;
    frexp(v, &e);
    return e - 1;
}

/* The lowest value of v's bucket (v > 0). */
static double bucket_lo(const tv_hdr *h, double v) {
    int sh = ilog2(v) - h->m;
    return ldexp(floor(ldexp(v, -sh)), sh);
}

/* Index of the first bucket with lo >= x. */
static size_t lower_bound(const tv_hdr *h, double x) {
    size_t a = 0, z = h->n;
    while (a < z) {
        size_t mid = a + (z - a) / 2;
        if (h->b[mid].lo < x) a = mid + 1;
        else z = mid;
    }
    return a;
}

static tv_status record(tv_hdr *h, double v, uint64_t count) {
    if (!(v >= 0) || isinf(v)) return TROVE_EUNSUPPORTED;
    if (!count) return TROVE_OK;
    if (v == 0) {
        h->zeros += count;
        h->total += count;
        return TROVE_OK;
    }
    double mn = v < h->minpos ? v : h->minpos, mx = v > h->maxpos ? v : h->maxpos;
    /* the integer of the largest value, max / r with r = 2^(floor(log2 min) - m), must stay below 2^63 */
    if (ilog2(mx) - (ilog2(mn) - h->m) >= 63) return TROVE_EUNSUPPORTED;
    double lo = bucket_lo(h, v);
    size_t at = lower_bound(h, lo);
    if (at < h->n && h->b[at].lo == lo) {
        h->b[at].count += count;
    } else {
        if (h->n == h->cap) {
            size_t nc = h->cap ? h->cap * 2 : 16;
            hdr_bucket *nb = tv_realloc(h->b, nc * sizeof *nb);
            if (!nb) return TROVE_ENOMEM;
            h->b = nb;
            h->cap = nc;
        }
        memmove(&h->b[at + 1], &h->b[at], (h->n - at) * sizeof *h->b);
        h->b[at].lo = lo;
        h->b[at].count = count;
        h->n++;
    }
    h->minpos = mn;
    h->maxpos = mx;
    h->total += count;
    return TROVE_OK;
}

tv_status tv_hdr_add(tv_hdr *h, double v) { return record(h, v, 1); }

tv_status tv_hdr_merge(tv_hdr *dst, const tv_hdr *src) {
    if (!src) return TROVE_OK;
    tv_status st = record(dst, 0, src->zeros);
    for (size_t i = 0; i < src->n && !st; i++) st = record(dst, src->b[i].lo, src->b[i].count);
    return st;
}

/* highestEquivalentValue of the bucket starting at lo, in double space:
 * the integer (lo / r + s - 1) rounded to a double, times r. */
static double highest_equivalent(const tv_hdr *h, double lo) {
    int er = ilog2(h->minpos) - h->m; /* r = 2^er */
    double ilo = ldexp(lo, -er);      /* exact integer < 2^63 */
    int sh = ilog2(ilo) - h->m;       /* s = 2^sh, sh >= 0 */
    int64_t hi = (int64_t)ilo + ((int64_t)1 << sh) - 1;
    return ldexp((double)hi, er);
}

double tv_hdr_value_at(const tv_hdr *h, double p) {
    if (!h || !h->total) return NAN;
    double req = nextafter(p, -INFINITY);
    if (req < 0) req = 0;
    if (req > 100) req = 100;
    double fp = (req * (double)h->total) / 100.0;
    uint64_t want = (uint64_t)ceil(fp);
    if (want < 1) want = 1;
    uint64_t run = h->zeros;
    if (run >= want) return 0.0;
    for (size_t i = 0; i < h->n; i++) {
        run += h->b[i].count;
        if (run >= want) return p == 0.0 ? h->b[i].lo : highest_equivalent(h, h->b[i].lo);
    }
    return 0.0;
}

double tv_hdr_rank(const tv_hdr *h, double v) {
    if (!h || !h->total) return NAN;
    uint64_t run = h->zeros;
    if (v >= h->minpos) {
        if (isinf(v)) run = h->total;
        else {
            size_t at = lower_bound(h, nextafter(bucket_lo(h, v), INFINITY));
            for (size_t i = 0; i < at; i++) run += h->b[i].count;
        }
    }
    double r = (100.0 * (double)run) / (double)h->total;
    return r > 100 ? 100 : r;
}
