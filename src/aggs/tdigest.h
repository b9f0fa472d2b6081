/*
 * tdigest.h — the t-digest sketch behind the `percentiles` and
 * `percentile_ranks` aggregations (method tdigest, the default), computing
 * what OpenSearch 3.1+ computes, bit for bit.
 *
 * OpenSearch's TDigestState extends com.tdunning:t-digest 3.3's MergingDigest
 * (since OpenSearch 3.1; AVLTreeDigest before). This is a re-implementation
 * of that class's arithmetic: scale function K_2, weight-limit merging,
 * alternating merge direction, two-level compression (values are merged at
 * twice the requested compression; compress() brings the digest down to the
 * requested one), an incoming buffer of 5 * (int)(2 * compression + 10)
 * entries (compression >= 30), unit weights per value, singleton-aware
 * interpolation in quantile() and cdf(). See tdigest.c for the details.
 *
 * Mapping to OpenSearch (server/.../aggregations/metrics):
 *   new TDigestState(compression)            tv_tdigest_new(compression)
 *   state.add(value)        (per doc value)  tv_tdigest_add
 *   merged.add(shardState)  (reduce)         tv_tdigest_merge
 *   state.compress()                         tv_tdigest_compress
 *   percentile p            quantile(p/100)  tv_tdigest_quantile(t, p / 100)
 *   percentile rank of v    cdf(v)*100       tv_tdigest_cdf(t, v), clamped to
 *                                            [0,1] then * 100 (NaN stays NaN)
 *   state.size()                             tv_tdigest_count
 * An empty digest answers NaN; OpenSearch prints `null` for every key when
 * size() == 0.
 *
 * The result depends on the sequence of operations, not only on the values
 * added (order of adds, when merges happen, how often compress() ran), so
 * the aggregation must replay OpenSearch's sequence. In OpenSearch 3.x:
 *   - reduce() runs only when there are two or more shard (or concurrent
 *     search slice) results, or when a multi-bucket parent forces it;
 *     with one result the shard's state is the final state. A reduce builds
 *     a new state of the first result's compression and calls add(state)
 *     for each result in order (tv_tdigest_merge).
 *   - serializing a state mutates it: TDigestState.write calls byteSize()
 *     and asBytes(), each a compress() (OpenSearch >= 3.4), or
 *     centroidCount() and centroids(), one compress() (3.1 - 3.3). The
 *     coordinating node serializes every local shard result once to measure
 *     it (QueryPhaseResultConsumer), and serializes the reduced result once
 *     more (getSerializedSize) before the response is rendered; the shard
 *     request cache (size:0 requests) serializes the shard result too.
 *   - a state read from bytes (>= 3.4: another node, or the request cache)
 *     is tv_tdigest_readback() of the written state.
 *
 * Ownership: tv_tdigest_new returns an owned digest; free it with
 * tv_tdigest_free. Memory grows with use: an empty digest is one small
 * struct, and buffers are allocated and doubled as values arrive, up to
 * the library's sizes (about 20 KB per digest at compression 100, most of it
 * the 1050-entry incoming buffer).
 *
 * Errors: TROVE_ENOMEM (the digest is unchanged), TROVE_EARG for a NaN value
 * (OpenSearch: "Cannot add NaN to t-digest").
 *
 * Thread safety: none; a digest belongs to one thread at a time. quantile()
 * and cdf() modify the digest (they merge pending values first).
 */
#ifndef TROVE_AGGS_TDIGEST_H
#define TROVE_AGGS_TDIGEST_H

#include "util/util.h"

typedef struct tv_tdigest tv_tdigest;

/* OpenSearch's default `tdigest.compression`. */
#define TV_TDIGEST_DEFAULT_COMPRESSION 100.0

/* A new empty digest. Compressions below 10 (and NaN) act as 10, as in
 * MergingDigest. NULL on OOM; caller frees. */
tv_tdigest *tv_tdigest_new(double compression);
void tv_tdigest_free(tv_tdigest *t);

/* Adds one value with weight 1. TROVE_EARG for NaN, TROVE_ENOMEM. */
tv_status tv_tdigest_add(tv_tdigest *t, double x);

/* dst.add(src) as OpenSearch's reduce does it (AbstractTDigest.add(TDigest)):
 * the centroids of src after src.compress(), each added to dst's buffer with
 * its weight. src itself is left as it was (Java compresses it in place: if
 * src is used again afterwards, call tv_tdigest_compress(src) too). */
tv_status tv_tdigest_merge(tv_tdigest *dst, const tv_tdigest *src);

/* MergingDigest.add(List.of(src)): src compressed, its centroids merged
 * with dst's centroids in one pass at dst's working compression (dst's
 * pending buffer stays pending). src is left as it was. */
tv_status tv_tdigest_merge_centroids(tv_tdigest *dst, const tv_tdigest *src);

/* MergingDigest.compress(): merges pending values and re-merges every
 * centroid at the requested (public) compression. Each call is a merge pass,
 * even when nothing is pending. */
tv_status tv_tdigest_compress(tv_tdigest *t);

/* Merges pending values at the working compression (what quantile() and
 * cdf() do first). Call it to learn of TROVE_ENOMEM before quantile/cdf. */
tv_status tv_tdigest_flush(tv_tdigest *t);

/* TDigestState.read (OpenSearch >= 3.4) of the bytes TDigestState.write
 * produced for `written` (whose write-side compress() calls the caller has
 * already made): a new digest. NULL on OOM; caller frees. */
tv_tdigest *tv_tdigest_readback(const tv_tdigest *written);

/* quantile(q) for q in [0,1]; NaN when empty, when q is outside [0,1] or
 * NaN (Java throws "q should be in [0,1], got q"), or on OOM while merging
 * pending values. */
double tv_tdigest_quantile(tv_tdigest *t, double q);

/* cdf(x); NaN when empty, when x is NaN or infinite (Java throws
 * "Invalid value: Infinity"), or on OOM while merging pending values. */
double tv_tdigest_cdf(tv_tdigest *t, double x);

/* InternalMedianAbsoluteDeviation.computeMedianAbsoluteDeviation: the
 * median m = quantile(0.5), then (centroids() compresses t) a new digest of
 * t's compression fed |m - mean| with each centroid's count, and its
 * quantile(0.5). NaN when t is empty. Modifies t as Java does. */
tv_status tv_tdigest_mad(tv_tdigest *t, double *out);

/* size(): total weight, merged and pending. */
uint64_t tv_tdigest_count(const tv_tdigest *t);

/* Number of centroids after merging pending values (centroidCount()). */
size_t tv_tdigest_centroid_count(tv_tdigest *t);

/* The requested compression (after the clamp to >= 10). */
double tv_tdigest_compression(const tv_tdigest *t);

/* Bytes of heap the digest holds (struct and buffers), for breakers. */
size_t tv_tdigest_memory(const tv_tdigest *t);

#endif /* TROVE_AGGS_TDIGEST_H */
