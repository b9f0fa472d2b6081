/*
 * hll.h — the sketch behind the `cardinality` aggregation: OpenSearch's
 * HyperLogLog++ (linear counting of encoded hashes, then 2^p one-byte
 * registers), with the hashes OpenSearch feeds it, so that trove's counts
 * equal OpenSearch's bit for bit. Private to the search layer.
 *
 * Use: hash each value with the function for its field type, add the hash
 * to the sketch of its bucket, merge sketches as a reduce would, read the
 * count. Which hash goes with which field type (from OpenSearch's
 * CardinalityAggregator and its ValuesSource types):
 *   tv_hash_bytes   keyword (the term's UTF-8 bytes), ip (the 16-byte
 *                   InetAddressPoint encoding, IPv4 mapped into IPv6),
 *                   binary, and any other bytes-valued source;
 *   tv_hash_long    long, integer, short, byte, date (epoch millis),
 *                   date_nanos (epoch nanos), boolean (0/1);
 *   tv_hash_double  double, float and half_float (the stored value widened
 *                   to double), scaled_float (the long divided by the
 *                   scaling factor), unsigned_long (converted to double).
 * The hash does not depend on the execution_hint: OpenSearch's ordinals
 * and hybrid collectors hash the ordinal's bytes with the same function as
 * the direct collector, and the sketch's final state does not depend on the
 * order of the hashes.
 *
 * Ownership: tv_hll_new returns an owned sketch; free it with tv_hll_free.
 * Thread safety: none; a sketch is used by one thread at a time (reading
 * the count of a sketch nobody modifies is safe from several threads).
 * Errors: TROVE_ENOMEM (the sketch is left valid: see each function),
 * TROVE_EARG for a precision mismatch in tv_hll_merge.
 */
#ifndef TROVE_AGGS_HLL_H
#define TROVE_AGGS_HLL_H

#include "util/util.h"

/* OpenSearch's AbstractCardinalityAlgorithm.MIN_PRECISION / MAX_PRECISION
 * and HyperLogLogPlusPlus.DEFAULT_PRECISION (used when the request has no
 * precision_threshold; equal to tv_hll_precision(3000)). */
#define TV_HLL_MIN_PRECISION 4
#define TV_HLL_MAX_PRECISION 18
#define TV_HLL_DEFAULT_PRECISION 14

/* What tv_hll_cardinality returns when OpenSearch's answer would subtract
 * an empirical bias estimate (see tv_hll_cardinality). */
#define TV_HLL_NEEDS_BIAS (-1)

/* ------------------------------------------------------------- hashes */

/* MurmurHash3 x64_128 of n bytes with a seed; out[0] is h1, out[1] h2
 * (OpenSearch's MurmurHash3.hash128 Hash128.h1/.h2). p may be NULL when
 * n == 0. */
void tv_murmur3_x64_128(const void *p, size_t n, uint64_t seed, uint64_t out[2]);
/* The hash of a bytes value: h1 of MurmurHash3 x64_128 with seed 0. */
uint64_t tv_hash_bytes(const void *p, size_t n);
/* The hash of a long-typed value: hppc's BitMixer.mix64 (David Stafford's
 * variant 9 finalizer) of the two's-complement bits. */
uint64_t tv_hash_long(int64_t v);
/* The hash of a floating value: BitMixer.mix64 of Java's
 * Double.doubleToLongBits (every NaN becomes 0x7ff8000000000000; 0.0 and
 * -0.0 differ). */
uint64_t tv_hash_double(double v);

/* -------------------------------------------------------------- sketch */

/*
 * OpenSearch's HyperLogLogPlusPlus.precisionFromThreshold: the precision a
 * precision_threshold asks for, in [4, 18] (0..2 give 4, 3000 gives 14,
 * 40000 and above give 18). Returns -1 where OpenSearch fails: a negative
 * threshold (the request parser rejects it: "[precisionThreshold] must be
 * greater than or equal to 0. Found [N] in [NAME]") and the huge
 * thresholds (from about 1.7e18) whose table size overflows a Java long,
 * where Lucene's PackedInts.bitsRequired throws "maxValue must be
 * non-negative (got: N)".
 */
int tv_hll_precision(int64_t precision_threshold);
/* The hash table's size in bytes that precisionFromThreshold computes
 * (wrapped as a Java long): the N of that error when it is negative. */
int64_t tv_hll_table_bytes(int64_t precision_threshold);

typedef struct tv_hll tv_hll;

/* A new empty sketch of the given precision (4..18), a few dozen bytes.
 * Returns owned (free with tv_hll_free), or NULL on out of memory or a
 * precision out of range. */
tv_hll *tv_hll_new(int precision);
/* Frees; NULL is a no-op. */
void tv_hll_free(tv_hll *h);

/* Adds a hash (one of tv_hash_*). Adding a hash twice changes nothing.
 * TROVE_ENOMEM when the linear-counting set cannot grow or the registers
 * cannot be allocated; the sketch is then unchanged. */
tv_status tv_hll_add(tv_hll *h, uint64_t hash);

/* Merges src into dst as InternalCardinality.reduce does (src unchanged):
 * afterwards dst is exactly the sketch that would hold every hash added
 * to either. Same precision required (TROVE_EARG otherwise, dst
 * unchanged). On TROVE_ENOMEM dst holds part of src's hashes: still a
 * valid sketch, but not the merge; discard it. */
tv_status tv_hll_merge(tv_hll *dst, const tv_hll *src);

/*
 * The count OpenSearch reports for the sketch (`"value"` of the
 * aggregation; 0 for an empty sketch).
 *
 * Returns TV_HLL_NEEDS_BIAS (-1) when OpenSearch's answer subtracts an
 * interpolated bias from the empirical tables of the HLL++ paper
 * (AbstractHyperLogLog.estimateBias), which trove does not carry: in the
 * register phase, when the raw estimate is at most 5 * 2^p and linear
 * counting over the empty registers gives more than the paper's threshold
 * for p (11500 for p = 14) or no register is empty. For p = 14 that is
 * roughly 11,500 to 80,000 distinct values. Every other count is exact to
 * OpenSearch's.
 */
int64_t tv_hll_cardinality(const tv_hll *h);

/* The precision the sketch was made with. */
int tv_hll_get_precision(const tv_hll *h);
/* true once the sketch has switched to its 2^p registers (OpenSearch's
 * HYPERLOGLOG algorithm), false while it is linear counting. */
bool tv_hll_is_dense(const tv_hll *h);
/* true when a and b are the same sketch: same precision, same phase, same
 * set of codes or same registers (AbstractHyperLogLogPlusPlus.equals). */
bool tv_hll_equal(const tv_hll *a, const tv_hll *b);
/* Heap bytes the sketch holds (struct included). */
size_t tv_hll_memory(const tv_hll *h);

#endif /* TROVE_AGGS_HLL_H */
