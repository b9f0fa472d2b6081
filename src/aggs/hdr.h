/*
 * hdr.h — the HDR histogram behind `percentiles` and `percentile_ranks`
 * with "hdr": {"number_of_significant_value_digits": d}, answering what
 * OpenSearch's org.HdrHistogram.DoubleHistogram(d) (auto-resizing, as
 * AbstractHDRPercentilesAggregator creates it) answers.
 *
 * Mapping to OpenSearch (server/.../aggregations/metrics):
 *   new DoubleHistogram(d); setAutoResize(true)  tv_hdr_new(d)
 *   state.recordValue(v)        (per doc value)  tv_hdr_add(h, v)
 *   merged.add(shardState)      (reduce)         tv_hdr_merge
 *   state.getTotalCount()                        tv_hdr_count
 *   percentile p   getValueAtPercentile(p)       tv_hdr_value_at(h, p)
 *   rank of v      getPercentileAtOrBelowValue   tv_hdr_rank(h, v), capped
 *                                                at 100
 * Both answer NaN when nothing was recorded (OpenSearch prints null).
 *
 * Unlike the t-digest, the answer depends only on the multiset of values
 * recorded (see hdr.c for why), so shards and reduce order do not matter.
 *
 * Errors: TROVE_EUNSUPPORTED for a value DoubleHistogram refuses with an
 * ArrayIndexOutOfBoundsException (negative, NaN, or a ratio between the
 * largest and smallest positive value beyond its 2^63 integer range):
 * OpenSearch fails the shard with a message trove does not reproduce.
 * TROVE_ENOMEM (the histogram is unchanged).
 *
 * Ownership: tv_hdr_new returns an owned histogram, tv_hdr_free frees it
 * (NULL is a no-op). Thread safety: none.
 */
#ifndef TROVE_AGGS_HDR_H
#define TROVE_AGGS_HDR_H

#include "util/util.h"

typedef struct tv_hdr tv_hdr;

/* digits: 0..5 (checked by the parser). NULL on out of memory. */
tv_hdr *tv_hdr_new(int digits);
void tv_hdr_free(tv_hdr *h);
tv_status tv_hdr_add(tv_hdr *h, double v);
tv_status tv_hdr_merge(tv_hdr *dst, const tv_hdr *src);
uint64_t tv_hdr_count(const tv_hdr *h);
int tv_hdr_digits(const tv_hdr *h);
/* p in [0, 100]. */
double tv_hdr_value_at(const tv_hdr *h, double p);
double tv_hdr_rank(const tv_hdr *h, double v);

#endif /* TROVE_AGGS_HDR_H */
