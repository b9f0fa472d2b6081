/*
 * vwh.c — the variable_width_histogram aggregation's clustering, as
 * OpenSearch's VariableWidthHistogramAggregator (on the shard) and
 * InternalVariableWidthHistogram (the reduce) do it.
 *
 * On the shard, values arrive in doc order (a doc's distinct values
 * ascending). The first initial_buffer values are only buffered. Then (or
 * at the end, if fewer came) the buffer is sorted (stably) and cut in
 * runs of ceil(n / (shard_size * 3 / 4)) values, each run a cluster with
 * its min, max, centroid (the running mean) and size, kept sorted by
 * centroid. Every later value goes to the cluster of the nearest centroid
 * (BinarySearcher.search over the centroids), unless it is farther than
 * twice the average distance between centroids ((last - first) / (n - 1))
 * and fewer than shard_size clusters exist: then it starts a cluster of
 * its own, inserted in centroid order. The average is recomputed when a
 * cluster is added or an end cluster's centroid moves. A bucket's doc
 * count is its cluster's size (every value counted, as collectBucket
 * counts them).
 *
 * The reduce merges buckets of equal centroids across shards, then merges
 * the two closest adjacent centroids until `buckets` remain (a plan of
 * ranges, executed as reduceBucket sums them: count-weighted centroids in
 * the plan's order); the final reduce merges buckets of equal min and
 * moves the boundary of overlapping neighbours to their midpoint.
 *
 * Sub-aggregations are refused (parse.c): OpenSearch defers them and
 * replays each doc into the bucket its merge maps give, which on the
 * buffered phase are not the clusters' own docs, an answer trove will not
 * imitate.
 *
 * Alternatives rejected: sorting all values and cutting them at the
 * widest gaps (simpler, but not OpenSearch's buckets).
 */
#include <math.h>
#include <stdlib.h>

#include "aggs/aggs.h"

void tv_vwh_init(tv_vwh *v, int64_t shard_size, int64_t buffer_limit) {
    memset(v, 0, sizeof *v);
    v->shard_size = shard_size;
    v->buffer_limit = buffer_limit;
}

void tv_vwh_fini(tv_vwh *v) {
    tv_free(v->buf);
    tv_free(v->cmin);
    tv_free(v->cmax);
    tv_free(v->cent);
    tv_free(v->csize);
    memset(v, 0, sizeof *v);
}

static int grow_clusters(tv_vwh *v) {
    if (v->n < v->cap) return 0;
    size_t cap = v->cap ? v->cap * 2 : 16;
    double *a = tv_realloc(v->cmin, cap * sizeof *a);
    if (!a) return -1;
    v->cmin = a;
    if (!(a = tv_realloc(v->cmax, cap * sizeof *a))) return -1;
    v->cmax = a;
    if (!(a = tv_realloc(v->cent, cap * sizeof *a))) return -1;
    v->cent = a;
    if (!(a = tv_realloc(v->csize, cap * sizeof *a))) return -1;
    v->csize = a;
    v->cap = cap;
    return 0;
}

static int append_cluster(tv_vwh *v, double val) {
    if (grow_clusters(v)) return -1;
    v->cmin[v->n] = v->cmax[v->n] = v->cent[v->n] = val;
    v->csize[v->n] = 1;
    v->n++;
    return 0;
}

static void add_to_cluster(tv_vwh *v, size_t i, double val) {
    v->cmax[i] = fmax(v->cmax[i], val);
    v->cmin[i] = fmin(v->cmin[i], val);
    v->cent[i] = ((v->cent[i] * v->csize[i]) + val) / (v->csize[i] + 1);
    v->csize[i] += 1;
}

static void update_avg(tv_vwh *v) { v->avg = (v->cent[v->n - 1] - v->cent[0]) / (double)(v->n - 1); }

/* Double.compare */
static int jcmp(double a, double b) {
    if (a < b) return -1;
    if (a > b) return 1;
    int64_t x, y;
    if (isnan(a)) a = NAN;
    if (isnan(b)) b = NAN;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y ? 0 : x < y ? -1 : 1;
}

/* BinarySearcher.search over the centroids: the index of the closest. */
static size_t nearest(const tv_vwh *v, double val) {
    int64_t from = 0, to = (int64_t)v->n - 1;
    while (from < to) {
        int64_t mid = (int64_t)((uint64_t)(from + to) >> 1);
        int c = jcmp(v->cent[mid], val);
        if (c == 0) return (size_t)mid;
        if (c < 0) {
            if (mid < to) {
                if (jcmp(v->cent[mid + 1], val) > 0)
                    return fabs(v->cent[mid] - val) < fabs(v->cent[mid + 1] - val) ? (size_t)mid : (size_t)mid + 1;
            } else if (mid == to) {
                return (size_t)mid;
            }
            from = mid + 1;
        } else {
            if (mid > from) {
                if (jcmp(v->cent[mid - 1], val) < 0)
                    return fabs(v->cent[mid] - val) < fabs(v->cent[mid - 1] - val) ? (size_t)mid : (size_t)mid - 1;
            } else if (mid == 0) {
                return (size_t)mid;
            }
            to = mid - 1;
        }
    }
    return (size_t)from;
}

typedef struct vi {
    double v;
    size_t i;
} vi;

static int vi_cmp(const void *a, const void *b) {
    const vi *x = a, *y = b;
    int c = jcmp(x->v, y->v);
    return c ? c : x->i < y->i ? -1 : x->i > y->i; /* stable, as InPlaceMergeSorter */
}

/* MergeBucketsPhase's constructor: the buffer cut into runs. */
static int start_merging(tv_vwh *v) {
    v->merging = true;
    size_t n = v->nbuf;
    if (!n) return 0;
    vi *idx = tv_malloc(n * sizeof *idx);
    if (!idx) return -1;
    for (size_t i = 0; i < n; i++) {
        idx[i].v = v->buf[i];
        idx[i].i = i;
    }
    qsort(idx, n, sizeof *idx, vi_cmp);
    int64_t nb = (int64_t)((uint64_t)v->shard_size * 3 / 4);
    if ((int32_t)nb <= 0) nb = 1; /* ceil(n / 0) would be infinite: one run */
    size_t per = (size_t)ceil((double)n / (double)(int32_t)nb);
    if (per == 0) per = 1;
    size_t ord = 0;
    for (size_t i = 0; i < n; i++) {
        double val = idx[i].v;
        if (ord == v->n) {
            if (append_cluster(v, val)) { tv_free(idx); return -1; }
        } else {
            add_to_cluster(v, ord, val);
        }
        if ((i + 1) % per == 0) ord++;
    }
    tv_free(idx);
    if (n > 1) update_avg(v);
    tv_free(v->buf);
    v->buf = NULL;
    v->nbuf = v->bufcap = 0;
    return 0;
}

int tv_vwh_add(tv_vwh *v, double val) {
    if (!v->merging) {
        if (v->nbuf < (size_t)v->buffer_limit) {
            if (v->nbuf == v->bufcap) {
                size_t cap = v->bufcap ? v->bufcap * 2 : 64;
                double *b = tv_realloc(v->buf, cap * sizeof *b);
                if (!b) return -1;
                v->buf = b;
                v->bufcap = cap;
            }
            v->buf[v->nbuf++] = val;
        }
        if (v->nbuf == (size_t)v->buffer_limit) return start_merging(v);
        return 0;
    }
    size_t o = nearest(v, val);
    double dist = fabs(v->cent[o] - val);
    if (dist > 2 * v->avg && (int64_t)v->n < v->shard_size) {
        if (append_cluster(v, val)) return -1;
        if (val > v->cent[o]) o++;
        size_t last = v->n - 1;
        if (o != last) { /* moveLastCluster */
            double mx = v->cmax[last], mn = v->cmin[last], ce = v->cent[last], sz = v->csize[last];
            for (size_t i = last; i > o; i--) {
                v->cmax[i] = v->cmax[i - 1];
                v->cmin[i] = v->cmin[i - 1];
                v->cent[i] = v->cent[i - 1];
                v->csize[i] = v->csize[i - 1];
            }
            v->cmax[o] = mx;
            v->cmin[o] = mn;
            v->cent[o] = ce;
            v->csize[o] = sz;
        }
        update_avg(v);
    } else {
        add_to_cluster(v, o, val);
        if (o == 0 || o == v->n - 1) update_avg(v);
    }
    return 0;
}

int tv_vwh_finish(tv_vwh *v) { return v->merging ? 0 : start_merging(v); }

/* ------------------------------------------------------------ the reduce */

/* reduceBucket of b[idx[0..n)], in that order. */
static agg_bucket merge_list(const agg_bucket *b, const size_t *idx, size_t n) {
    agg_bucket o = b[idx[n - 1]];
    uint64_t dc = 0;
    double mn = INFINITY, mx = -INFINITY, sum = 0;
    for (size_t i = 0; i < n; i++) {
        const agg_bucket *x = &b[idx[i]];
        dc += x->doc_count;
        mn = fmin(mn, x->lo);
        mx = fmax(mx, x->to);
        sum += (double)x->doc_count * x->kd;
    }
    o.doc_count = dc;
    o.lo = mn;
    o.to = mx;
    o.kd = sum / (double)dc;
    return o;
}

/* mergeBucketsWithPlan: each range [start[i], end[i]] becomes one bucket,
 * summed from its end down to its start. Returns the new count. */
static size_t apply_plan(agg_bucket *b, size_t nb, const size_t *start, const size_t *end, size_t nr, size_t *scratch) {
    (void)nb;
    size_t k = 0;
    for (size_t r = 0; r < nr; r++) {
        size_t m = 0;
        for (size_t i = end[r]; i > start[r]; i--) scratch[m++] = i;
        scratch[m++] = start[r];
        b[k++] = m == 1 ? b[start[r]] : merge_list(b, scratch, m);
    }
    return k;
}

size_t tv_vwh_reduce(agg_bucket *b, size_t nb, int64_t target, bool final, size_t *work) {
    /* buckets come sorted by centroid; equal centroids merge (in order) */
    size_t *start = work, *end = work + nb, *scratch = work + 2 * nb;
    double *cent = (double *)(work + 3 * nb);
    uint64_t *dcs = (uint64_t *)(work + 4 * nb);
    size_t nr = 0;
    for (size_t i = 0; i < nb; i++) {
        if (nr && jcmp(b[i].kd, b[start[nr - 1]].kd) == 0) {
            end[nr - 1] = i;
            continue;
        }
        start[nr] = end[nr] = i;
        nr++;
    }
    /* reduceBuckets sums each group first to last */
    size_t k = 0;
    for (size_t r = 0; r < nr; r++) {
        size_t m = 0;
        for (size_t i = start[r]; i <= end[r]; i++) scratch[m++] = i;
        b[k++] = m == 1 ? b[start[r]] : merge_list(b, scratch, m);
    }
    nb = k;
    /* mergeBucketsIfNeeded */
    nr = nb;
    for (size_t i = 0; i < nb; i++) {
        start[i] = end[i] = i;
        cent[i] = b[i].kd;
        dcs[i] = b[i].doc_count;
    }
    while ((int64_t)nr > target && nr > 1) {
        size_t ci = 0;
        double best = INFINITY;
        for (size_t i = 0; i + 1 < nr; i++) {
            double dist = cent[i + 1] - cent[i];
            if (dist < best) {
                ci = i;
                best = dist;
            }
        }
        uint64_t tot = dcs[ci] + dcs[ci + 1];
        if (tot > 0) {
            cent[ci] = ((cent[ci] * (double)dcs[ci]) + (cent[ci + 1] * (double)dcs[ci + 1])) / (double)tot;
            dcs[ci] = tot;
        }
        end[ci] = end[ci + 1];
        memmove(&start[ci + 1], &start[ci + 2], (nr - ci - 2) * sizeof *start);
        memmove(&end[ci + 1], &end[ci + 2], (nr - ci - 2) * sizeof *end);
        memmove(&cent[ci + 1], &cent[ci + 2], (nr - ci - 2) * sizeof *cent);
        memmove(&dcs[ci + 1], &dcs[ci + 2], (nr - ci - 2) * sizeof *dcs);
        nr--;
    }
    nb = apply_plan(b, nb, start, end, nr, scratch);
    if (!final) return nb;
    /* mergeBucketsWithSameMin */
    nr = 0;
    for (size_t i = 0; i < nb; i++) {
        if (nr && b[start[nr - 1]].lo == b[i].lo) {
            end[nr - 1] = i;
            continue;
        }
        start[nr] = end[nr] = i;
        nr++;
    }
    nb = apply_plan(b, nb, start, end, nr, scratch);
    /* adjustBoundsForOverlappingBuckets */
    for (size_t i = 1; i < nb; i++)
        if (b[i].lo < b[i - 1].to) {
            b[i].lo = (b[i - 1].to + b[i].lo) / 2;
            b[i - 1].to = b[i].lo;
        }
    return nb;
}
