/*
 * tdigest.c — t-digest 3.3's MergingDigest arithmetic, as OpenSearch's
 * TDigestState uses it (see tdigest.h for the mapping to OpenSearch).
 *
 * State. Centroids (mean[], weight[], n_cent of them, sorted by mean) and an
 * incoming buffer (tmean[], tweight[], n_temp entries, unsorted). Weights
 * are doubles holding integers, as in Java. min and max are the extremes
 * seen (Java's Math.min/Math.max semantics, signed zeros included).
 *
 * Sizes. For a requested compression c (c < 10 acts as 10):
 *   fudge      = 10, plus 20 when c < 30
 *   size       = (int)(2c + fudge)
 *   buffer_cap = 5 * size                      incoming buffer length
 *   work       = sqrt(max(1, buffer_cap / size - 1)) * c = 2c
 * Only buffer_cap and work change results; the C arrays are allocated
 * lazily and doubled up to what is needed, so a small digest stays small.
 *
 * add(x): when n_temp >= buffer_cap - n_cent - 1, the buffer is merged
 * first (at compression `work`); then x goes to the buffer with weight 1.
 *
 * A merge pass (merge_pass) over n incoming entries, given the
 * compression k to use:
 *   1. the current centroids are appended after the incoming entries;
 *   2. the entries are sorted by mean, ties by position (a stable sort);
 *      every other buffer merge (merge_count odd) walks them backwards;
 *   3. total += incoming weight; normalizer = k / (4 log(total / k) + 24)
 *      (K_2's normalizer);
 *   4. the first entry starts centroid 0; for entry i >= 1, with wsofar
 *      the weight of the finished centroids and w' = weight(current) +
 *      weight(entry), it joins the current centroid when
 *        w' <= total * min(q0 (1 - q0), q2 (1 - q2)) / normalizer,
 *        q0 = wsofar / total, q2 = (wsofar + w') / total,
 *      except that entries 1 and n - 1 never join; joining updates
 *      mean += (x - mean) * w / weight;
 *   5. a backwards walk reverses the output; min = min(min, mean[0]),
 *      max = max(max, mean[last]).
 * merge(dst, src) adds src's compressed centroids to dst's buffer the way
 * AbstractTDigest.add(TDigest) does, through Centroid objects, whose mean
 * is recomputed as 0 + w (x - 0) / w.
 * compress() is a pass at c (forced even when nothing is pending); buffer
 * merges use `work`. The sort's pivots are random in Java, but the order it
 * produces is fully determined (mean, then position), so nothing here is
 * random.
 *
 * quantile() and cdf() are transcriptions of MergingDigest's: at least two
 * centroids; index = q * total; below 1 (above total - 1) the answer is min
 * (max); a first/last centroid heavier than 1 interpolates towards min/max;
 * otherwise interpolation between neighbouring centroids, where a weight-1
 * centroid owns half a unit around its mean and is not interpolated into.
 * cdf() mirrors it, with ties at a centroid mean counting half.
 *
 * Floating point: every expression keeps Java's operation order; FP
 * contraction (fused multiply-add) is disabled for this file. The one
 * transcendental call, log in K_2's normalizer, is computed correctly
 * rounded (cr_log), which is what Java's Math.log gave on every argument
 * compared.
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "aggs/tdigest.h"

#include <math.h>
#include <stdlib.h>

struct tv_tdigest {
    double public_compression; /* what compress() uses */
    double compression;        /* what buffer merges use (2x) */
    double total_weight;       /* merged weight */
    double unmerged_weight;    /* weight in the buffer */
    double min, max;
    double *mean, *weight;   /* n_cent centroids, cap_cent allocated */
    double *tmean, *tweight; /* n_temp buffered values, cap_temp allocated */
    uint32_t n_cent, cap_cent;
    uint32_t n_temp, cap_temp;
    uint32_t buffer_cap; /* Java's tempWeight.length */
    uint32_t merge_count;
};

/* ------------------------------------------------------------ helpers */

/* java.lang.Math.min / max, including NaN and signed zeros */
static double jmin(double a, double b) {
    if (a != a) return a;
    if (a == 0.0 && b == 0.0 && signbit(b)) return b;
    return a <= b ? a : b;
}

static double jmax(double a, double b) {
    if (a != a) return a;
    if (a == 0.0 && b == 0.0 && signbit(a)) return b;
    return a >= b ? a : b;
}

/* Java's (int) cast of a double: saturating, NaN -> 0 */
static int64_t jint(double d) {
    if (d != d) return 0;
    if (d >= 2147483647.0) return 2147483647;
    if (d <= -2147483648.0) return -2147483647 - 1;
    return (int64_t)d;
}

/* Grows two parallel arrays to hold `need` entries, doubling, but not past
 * `limit` unless need is larger. */
static int grow2(double **a, double **b, uint32_t *cap, size_t need, size_t limit) {
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 8;
    while (n < need) n *= 2;
    if (n > limit && limit >= need) n = limit;
    if (n > UINT32_MAX) return -1;
    double *na = tv_realloc(*a, n * sizeof(double));
    if (!na) return -1;
    *a = na;
    double *nb = tv_realloc(*b, n * sizeof(double));
    if (!nb) return -1; /* *a grew, harmless; cap stays */
    *b = nb;
    *cap = (uint32_t)n;
    return 0;
}

/*
 * Natural logarithm, correctly rounded. Java's Math.log (HotSpot's
 * intrinsic) returned the correctly rounded value on every argument
 * compared, and the C library's log() does not always (glibc 2.36 is one
 * ulp off on about 1 in 25,000 arguments of the form n / 200), which can
 * move a merge threshold. So: x = 2^k m with m in [sqrt(1/2), sqrt(2)),
 * log x = k ln 2 + 2 atanh(s), s = (m - 1) / (m + 1), summed in
 * double-double arithmetic (about 100 bits), then rounded once.
 */
typedef struct {
    double hi, lo;
} dd;

static dd dd_two_sum(double a, double b) {
    double s = a + b, bb = s - a;
    return (dd){s, (a - (s - bb)) + (b - bb)};
}

static dd dd_fast_two_sum(double a, double b) {
    double s = a + b;
    return (dd){s, b - (s - a)};
}

static dd dd_two_prod(double a, double b) {
    /* Dekker: split each factor in two 26-bit halves */
    double p = a * b;
    double ta = 134217729.0 * a, ah = ta - (ta - a), al = a - ah;
    double tb = 134217729.0 * b, bh = tb - (tb - b), bl = b - bh;
    return (dd){p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
}

static dd dd_add(dd x, dd y) {
    dd s = dd_two_sum(x.hi, y.hi), t = dd_two_sum(x.lo, y.lo);
    s.lo += t.hi;
    s = dd_fast_two_sum(s.hi, s.lo);
    s.lo += t.lo;
    return dd_fast_two_sum(s.hi, s.lo);
}

static dd dd_mul(dd x, dd y) {
    dd p = dd_two_prod(x.hi, y.hi);
    p.lo += x.hi * y.lo + x.lo * y.hi;
    return dd_fast_two_sum(p.hi, p.lo);
}

static dd dd_div(dd x, dd y) {
    double q1 = x.hi / y.hi;
    dd r = dd_add(x, dd_mul((dd){-q1, 0}, y));
    double q2 = r.hi / y.hi;
    r = dd_add(r, dd_mul((dd){-q2, 0}, y));
    double q3 = r.hi / y.hi;
    return dd_add(dd_fast_two_sum(q1, q2), (dd){q3, 0});
}

static double cr_log(double x) {
    if (!(x > 0) || isinf(x)) return log(x);
    int k;
    double m = frexp(x, &k); /* x = m 2^k, m in [0.5, 1) */
    if (m < 0.70710678118654752440) {
        m *= 2;
        k--;
    }
    dd s = dd_div((dd){m - 1, 0}, dd_two_sum(m, 1)); /* m - 1 is exact */
    dd s2 = dd_mul(s, s), term = s, sum = s;
    for (int i = 3; i < 200; i += 2) {
        term = dd_mul(term, s2);
        if (term.hi == 0) break;
        dd t = dd_div(term, (dd){(double)i, 0});
        sum = dd_add(sum, t);
        if (fabs(t.hi) < 0x1p-110 * fabs(sum.hi)) break;
    }
    sum = dd_add(sum, sum);
    /* ln 2 as a double-double */
    const dd ln2 = {0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56};
    dd kl = dd_mul(ln2, (dd){(double)k, 0});
    dd r = dd_add(kl, sum);
    return r.hi + r.lo;
}

/* K_2 */
static double k2_normalizer(double compression, double n) {
    return compression / (4 * cr_log(n / compression) + 24);
}

static double k2_max(double q, double normalizer) { return q * (1 - q) / normalizer; }

/* AbstractTDigest.weightedAverage */
static double weighted_average(double x1, double w1, double x2, double w2) {
    if (!(x1 <= x2)) {
        double tx = x1, tw = w1;
        x1 = x2;
        w1 = w2;
        x2 = tx;
        w2 = tw;
    }
    double x = (x1 * w1 + x2 * w2) / (w1 + w2);
    return jmax(x1, jmin(x, x2));
}

/* ------------------------------------------------------------ sorting */

/* Stable sort of the index array `order` by values[order[i]]: a merge
 * sort, so ties keep their positions (Java sorts by (value, index)). */
static void sort_order(uint32_t *order, uint32_t *tmp, const double *values, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) order[i] = i;
    /* insertion sort runs of 16, then bottom-up merges */
    const uint32_t run = 16;
    for (uint32_t lo = 0; lo < n; lo += run) {
        uint32_t hi = lo + run < n ? lo + run : n;
        for (uint32_t i = lo + 1; i < hi; i++) {
            uint32_t t = order[i];
            double v = values[t];
            uint32_t j = i;
            while (j > lo && values[order[j - 1]] > v) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = t;
        }
    }
    uint32_t *src = order, *dst = tmp;
    for (uint32_t width = run; width < n; width *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * width) {
            uint32_t mid = lo + width < n ? lo + width : n;
            uint32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = values[src[j]] < values[src[i]] ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        uint32_t *s = src;
        src = dst;
        dst = s;
    }
    if (src != order) memcpy(order, src, n * sizeof(uint32_t));
}

/* ------------------------------------------------------------ merging */

/*
 * MergingDigest.merge: in_mean/in_weight hold n_in entries and room for
 * n_cent more (the current centroids are appended there; the incoming
 * entries themselves are not modified). On TROVE_ENOMEM nothing changed.
 */
static tv_status merge_pass(tv_tdigest *t, double *in_mean, double *in_weight, uint32_t n_in,
                            double unmerged, bool backwards, double compression) {
    uint32_t n = n_in + t->n_cent;
    if (n == 0) return TROVE_OK;
    uint32_t *order = tv_malloc((size_t)n * 2 * sizeof(uint32_t));
    double *om = tv_malloc((size_t)n * sizeof(double));
    double *ow = tv_malloc((size_t)n * sizeof(double));
    if (!order || !om || !ow) {
        tv_free(order);
        tv_free(om);
        tv_free(ow);
        return TROVE_ENOMEM;
    }
    if (t->n_cent) {
        memcpy(in_mean + n_in, t->mean, t->n_cent * sizeof(double));
        memcpy(in_weight + n_in, t->weight, t->n_cent * sizeof(double));
    }
    sort_order(order, order + n, in_mean, n);
    if (backwards) {
        for (uint32_t i = 0; i < n / 2; i++) {
            uint32_t s = order[i];
            order[i] = order[n - 1 - i];
            order[n - 1 - i] = s;
        }
    }

    double total = t->total_weight + unmerged;
    uint32_t last = 0;
    om[0] = in_mean[order[0]];
    ow[0] = in_weight[order[0]];
    double wsofar = 0;
    double normalizer = k2_normalizer(compression, total);
    for (uint32_t i = 1; i < n; i++) {
        uint32_t ix = order[i];
        double proposed = ow[last] + in_weight[ix];
        double q0 = wsofar / total;
        double q2 = (wsofar + proposed) / total;
        bool add_this = proposed <= total * jmin(k2_max(q0, normalizer), k2_max(q2, normalizer));
        if (i == 1 || i == n - 1) add_this = false;
        if (add_this) {
            ow[last] += in_weight[ix];
            om[last] = om[last] + (in_mean[ix] - om[last]) * in_weight[ix] / ow[last];
        } else {
            wsofar += ow[last];
            last++;
            om[last] = in_mean[ix];
            ow[last] = in_weight[ix];
        }
    }
    last++;
    if (backwards) {
        for (uint32_t i = 0; i < last / 2; i++) {
            double s = om[i];
            om[i] = om[last - 1 - i];
            om[last - 1 - i] = s;
            s = ow[i];
            ow[i] = ow[last - 1 - i];
            ow[last - 1 - i] = s;
        }
    }
    tv_free(order);
    /* keep the output, trimmed to its length (a failed shrink keeps more) */
    double *m2 = tv_realloc(om, last * sizeof(double));
    if (m2) om = m2;
    double *w2 = tv_realloc(ow, last * sizeof(double));
    if (w2) ow = w2;
    tv_free(t->mean);
    tv_free(t->weight);
    t->mean = om;
    t->weight = ow;
    t->n_cent = t->cap_cent = last;
    t->total_weight = total;
    if (total > 0) {
        t->min = jmin(t->min, om[0]);
        t->max = jmax(t->max, om[last - 1]);
    }
    return TROVE_OK;
}

/* MergingDigest.mergeNewValues(force, compression) */
static tv_status merge_new_values(tv_tdigest *t, bool force, double compression) {
    if (t->total_weight == 0 && t->unmerged_weight == 0) return TROVE_OK;
    if (!(force || t->unmerged_weight > 0)) return TROVE_OK;
    if (grow2(&t->tmean, &t->tweight, &t->cap_temp, (size_t)t->n_temp + t->n_cent, t->buffer_cap) != 0)
        return TROVE_ENOMEM;
    tv_status st = merge_pass(t, t->tmean, t->tweight, t->n_temp, t->unmerged_weight,
                              (t->merge_count % 2) == 1, compression);
    if (st != TROVE_OK) return st;
    t->merge_count++;
    t->n_temp = 0;
    t->unmerged_weight = 0;
    return TROVE_OK;
}

/* MergingDigest.add(x, w) */
static tv_status add_weighted(tv_tdigest *t, double x, double w) {
    if (x != x) return TROVE_EARG;
    if ((int64_t)t->n_temp >= (int64_t)t->buffer_cap - (int64_t)t->n_cent - 1) {
        tv_status st = merge_new_values(t, false, t->compression);
        if (st != TROVE_OK) return st;
    }
    if (grow2(&t->tmean, &t->tweight, &t->cap_temp, (size_t)t->n_temp + 1, t->buffer_cap) != 0) return TROVE_ENOMEM;
    t->tweight[t->n_temp] = w;
    t->tmean[t->n_temp] = x;
    t->n_temp++;
    t->unmerged_weight += w;
    if (x < t->min) t->min = x;
    if (x > t->max) t->max = x;
    return TROVE_OK;
}

/* A deep copy (for operations that compress a const source). */
static tv_tdigest *clone(const tv_tdigest *s) {
    tv_tdigest *c = tv_malloc(sizeof(*c));
    if (!c) return NULL;
    *c = *s;
    c->mean = c->weight = c->tmean = c->tweight = NULL;
    c->cap_cent = c->cap_temp = 0;
    if (grow2(&c->mean, &c->weight, &c->cap_cent, s->n_cent, s->n_cent) != 0 ||
        grow2(&c->tmean, &c->tweight, &c->cap_temp, s->n_temp, s->buffer_cap) != 0) {
        tv_tdigest_free(c);
        return NULL;
    }
    if (s->n_cent) {
        memcpy(c->mean, s->mean, s->n_cent * sizeof(double));
        memcpy(c->weight, s->weight, s->n_cent * sizeof(double));
    }
    if (s->n_temp) {
        memcpy(c->tmean, s->tmean, s->n_temp * sizeof(double));
        memcpy(c->tweight, s->tweight, s->n_temp * sizeof(double));
    }
    return c;
}

/* ------------------------------------------------------------ API */

tv_tdigest *tv_tdigest_new(double compression) {
    if (!(compression >= 10)) compression = 10;
    double fudge = 10;
    if (compression < 30) fudge += 20;
    int64_t size = jint(2 * compression + fudge);
    if (size < 1) size = 1;
    int64_t buffer = 5 * size;
    if (buffer <= 2 * size) buffer = 2 * size;
    int64_t scale = buffer / size - 1;
    if (scale < 1) scale = 1;
    if (buffer > UINT32_MAX / 2) buffer = UINT32_MAX / 2;

    tv_tdigest *t = tv_calloc(1, sizeof(*t));
    if (!t) return NULL;
    t->public_compression = compression;
    t->compression = sqrt((double)scale) * compression;
    t->min = INFINITY;
    t->max = -INFINITY;
    t->buffer_cap = (uint32_t)buffer;
    return t;
}

void tv_tdigest_free(tv_tdigest *t) {
    if (!t) return;
    tv_free(t->mean);
    tv_free(t->weight);
    tv_free(t->tmean);
    tv_free(t->tweight);
    tv_free(t);
}

tv_status tv_tdigest_add(tv_tdigest *t, double x) { return add_weighted(t, x, 1); }

tv_status tv_tdigest_compress(tv_tdigest *t) {
    return merge_new_values(t, true, t->public_compression);
}

tv_status tv_tdigest_flush(tv_tdigest *t) { return merge_new_values(t, false, t->compression); }

tv_status tv_tdigest_merge(tv_tdigest *dst, const tv_tdigest *src) {
    if (src->total_weight == 0 && src->unmerged_weight == 0) return TROVE_OK;
    tv_tdigest *c = clone(src);
    if (!c) return TROVE_ENOMEM;
    tv_status st = tv_tdigest_compress(c);
    /* Java hands the centroids over as Centroid objects: count is
     * (int) weight, and the constructor computes the mean as
     * 0 + w * (x - 0) / w, which can round (and turns -0.0 into 0.0). */
    for (uint32_t i = 0; st == TROVE_OK && i < c->n_cent; i++) {
        double w = (double)jint(c->weight[i]);
        double x = 0.0 + w * (c->mean[i] - 0.0) / w;
        st = add_weighted(dst, x, w);
    }
    tv_tdigest_free(c);
    return st;
}

tv_status tv_tdigest_merge_centroids(tv_tdigest *dst, const tv_tdigest *src) {
    tv_tdigest *c = clone(src);
    if (!c) return TROVE_ENOMEM;
    tv_status st = tv_tdigest_compress(c);
    /* an empty src still makes a pass over dst's own centroids, as in Java
     * (where both being empty throws; here it is a no-op) */
    if (st == TROVE_OK && (c->n_cent > 0 || dst->n_cent > 0)) {
        uint32_t n = c->n_cent;
        double *m = tv_malloc(((size_t)n + dst->n_cent) * sizeof(double));
        double *w = tv_malloc(((size_t)n + dst->n_cent) * sizeof(double));
        if (!m || !w) {
            st = TROVE_ENOMEM;
        } else {
            if (n) {
                memcpy(m, c->mean, n * sizeof(double));
                memcpy(w, c->weight, n * sizeof(double));
            }
            double total = 0;
            for (uint32_t i = 0; i < n; i++) total += w[i];
            st = merge_pass(dst, m, w, n, total, false, dst->compression);
        }
        tv_free(m);
        tv_free(w);
    }
    tv_tdigest_free(c);
    return st;
}

tv_tdigest *tv_tdigest_readback(const tv_tdigest *written) {
    /* MergingDigest.fromBytes: the centroids, min and max, a fresh merge
     * count and an empty buffer. */
    tv_tdigest *r = tv_tdigest_new(written->public_compression);
    if (!r) return NULL;
    tv_tdigest *state = NULL;
    if (grow2(&r->mean, &r->weight, &r->cap_cent, written->n_cent, written->n_cent) != 0) goto oom;
    if (written->n_cent) {
        memcpy(r->mean, written->mean, written->n_cent * sizeof(double));
        memcpy(r->weight, written->weight, written->n_cent * sizeof(double));
    }
    r->n_cent = written->n_cent;
    r->min = written->min;
    r->max = written->max;
    for (uint32_t i = 0; i < r->n_cent; i++) r->total_weight += r->weight[i];
    /* TDigestState.read: centroids().isEmpty() compresses once, then
     * new TDigestState(compression, r) is add(List.of(r)) */
    if (tv_tdigest_compress(r) != TROVE_OK) goto oom;
    state = tv_tdigest_new(r->public_compression);
    if (!state) goto oom;
    if (r->n_cent > 0 && tv_tdigest_merge_centroids(state, r) != TROVE_OK) goto oom;
    tv_tdigest_free(r);
    return state;
oom:
    tv_tdigest_free(state);
    tv_tdigest_free(r);
    return NULL;
}

double tv_tdigest_quantile(tv_tdigest *t, double q) {
    if (!(q >= 0 && q <= 1)) return NAN;
    if (merge_new_values(t, false, t->compression) != TROVE_OK) return NAN;
    uint32_t n = t->n_cent;
    if (n == 0) return NAN;
    const double *mean = t->mean, *weight = t->weight;
    if (n == 1) return mean[0];
    double total = t->total_weight;
    double index = q * total;
    if (index < 1) return t->min;
    if (weight[0] > 1 && index < weight[0] / 2)
        return t->min + (index - 1) / (weight[0] / 2 - 1) * (mean[0] - t->min);
    if (index > total - 1) return t->max;
    if (weight[n - 1] > 1 && total - index <= weight[n - 1] / 2)
        return t->max - (total - index - 1) / (weight[n - 1] / 2 - 1) * (t->max - mean[n - 1]);
    double wsofar = weight[0] / 2;
    for (uint32_t i = 0; i < n - 1; i++) {
        double dw = (weight[i] + weight[i + 1]) / 2;
        if (wsofar + dw > index) {
            double left_unit = 0;
            if (weight[i] == 1) {
                if (index - wsofar < 0.5) return mean[i];
                left_unit = 0.5;
            }
            double right_unit = 0;
            if (weight[i + 1] == 1) {
                if (wsofar + dw - index <= 0.5) return mean[i + 1];
                right_unit = 0.5;
            }
            double z1 = index - wsofar - left_unit;
            double z2 = wsofar + dw - index - right_unit;
            return weighted_average(mean[i], z2, mean[i + 1], z1);
        }
        wsofar += dw;
    }
    double z1 = index - total - weight[n - 1] / 2.0;
    double z2 = weight[n - 1] / 2 - z1;
    return weighted_average(mean[n - 1], z1, t->max, z2);
}

double tv_tdigest_cdf(tv_tdigest *t, double x) {
    if (x != x || isinf(x)) return NAN;
    if (merge_new_values(t, false, t->compression) != TROVE_OK) return NAN;
    uint32_t n = t->n_cent;
    if (n == 0) return NAN;
    const double *mean = t->mean, *weight = t->weight;
    double min = t->min, max = t->max, total = t->total_weight;
    if (n == 1) {
        double width = max - min;
        if (x < min) return 0;
        if (x > max) return 1;
        if (x - min <= width) return 0.5;
        return (x - min) / (max - min);
    }
    if (x < min) return 0;
    if (x > max) return 1;
    if (x < mean[0]) {
        if (mean[0] - min > 0) {
            if (x == min) return 0.5 / total;
            return (1 + (x - min) / (mean[0] - min) * (weight[0] / 2 - 1)) / total;
        }
        return 0;
    }
    if (x > mean[n - 1]) {
        if (max - mean[n - 1] > 0) {
            if (x == max) return 1 - 0.5 / total;
            double dq = (1 + (max - x) / (max - mean[n - 1]) * (weight[n - 1] / 2 - 1)) / total;
            return 1 - dq;
        }
        return 1;
    }
    double wsofar = 0;
    for (uint32_t it = 0; it < n - 1; it++) {
        if (mean[it] == x) {
            double dw = 0;
            while (it < n && mean[it] == x) {
                dw += weight[it];
                it++;
            }
            return (wsofar + dw / 2) / total;
        } else if (mean[it] <= x && x < mean[it + 1]) {
            if (mean[it + 1] - mean[it] > 0) {
                double left_excl = 0, right_excl = 0;
                if (weight[it] == 1) {
                    if (weight[it + 1] == 1) return (wsofar + 1) / total;
                    left_excl = 0.5;
                } else if (weight[it + 1] == 1) {
                    right_excl = 0.5;
                }
                double dw = (weight[it] + weight[it + 1]) / 2;
                double left = mean[it], right = mean[it + 1];
                double dw_no_singleton = dw - left_excl - right_excl;
                double base = wsofar + weight[it] / 2 + left_excl;
                return (base + dw_no_singleton * (x - left) / (right - left)) / total;
            }
            double dw = (weight[it] + weight[it + 1]) / 2;
            return (wsofar + dw) / total;
        } else {
            wsofar += weight[it];
        }
    }
    /* x == mean[n - 1] (Java throws "Can't happen" otherwise) */
    return 1 - 0.5 / total;
}

uint64_t tv_tdigest_count(const tv_tdigest *t) {
    double s = t->total_weight + t->unmerged_weight;
    return s > 0 ? (uint64_t)s : 0;
}

size_t tv_tdigest_centroid_count(tv_tdigest *t) {
    (void)merge_new_values(t, false, t->compression);
    return t->n_cent;
}

double tv_tdigest_compression(const tv_tdigest *t) { return t->public_compression; }

size_t tv_tdigest_memory(const tv_tdigest *t) {
    return sizeof(*t) + 2 * sizeof(double) * ((size_t)t->cap_cent + t->cap_temp);
}

tv_status tv_tdigest_mad(tv_tdigest *t, double *out) {
    *out = NAN;
    if (tv_tdigest_count(t) == 0) return TROVE_OK;
    tv_status st = tv_tdigest_flush(t);
    if (st) return st;
    double med = tv_tdigest_quantile(t, 0.5);
    if ((st = tv_tdigest_compress(t))) return st;
    tv_tdigest *dev = tv_tdigest_new(t->public_compression);
    if (!dev) return TROVE_ENOMEM;
    /* centroids() hands out Centroid objects: (int) weight, and a mean
     * recomputed as 0 + w (x - 0) / w */
    for (uint32_t i = 0; st == TROVE_OK && i < t->n_cent; i++) {
        double w = (double)jint(t->weight[i]);
        double x = 0.0 + w * (t->mean[i] - 0.0) / w;
        st = add_weighted(dev, fabs(med - x), w);
    }
    if (st == TROVE_OK) *out = tv_tdigest_quantile(dev, 0.5);
    tv_tdigest_free(dev);
    return st;
}
