/*
 * bm25.c — Lucene 10's BM25Similarity (k1 = 1.2, b = 0.75), bit for bit.
 *
 * Every operation is done in the type and order Lucene uses, because
 * OpenSearch users compare _score values exactly:
 *   idf    = (float) Math.log(1 + (docCount - docFreq + 0.5D) / (docFreq + 0.5D))   [double]
 *   avgdl  = (float) (sumTotalTermFreq / (double) docCount)
 *   cache[i] = 1f / (k1 * ((1 - b) + b * LENGTH_TABLE[i] / avgdl))                   [float]
 *   weight = boost * idf                                                              [float]
 *   score  = weight - weight / (1f + freq * cache[norm])                              [float]
 * LENGTH_TABLE[i] is SmallFloat.byte4ToInt(i) as a float (tv_norm_decode).
 * C evaluates float expressions in float here (FLT_EVAL_METHOD 0 on x86-64
 * SSE and aarch64), so the same expressions give the same bits.
 */
#include <math.h>
#include <pthread.h>

#include "query/query.h"

/* b * LENGTH_TABLE[i], the query-independent half of every cache: computed
 * once per process, so that a query's cache is a vectorizable loop of two
 * divisions (decoding 256 norms per term was half of a small query's
 * preparation). */
static float b_len[256];
static pthread_once_t b_len_once = PTHREAD_ONCE_INIT;

static void b_len_init(void) {
    for (int i = 0; i < 256; i++) b_len[i] = TV_BM25_B * (float)tv_norm_decode((uint8_t)i);
}

float tv_bm25_idf(uint64_t doc_freq, uint64_t doc_count) {
    double df = (double)doc_freq, dc = (double)doc_count;
    return (float)log(1.0 + (dc - df + 0.5) / (df + 0.5));
}

float tv_bm25_avgdl(uint64_t sum_total_term_freq, uint64_t doc_count) {
    if (doc_count == 0) return 1.0f;
    return (float)((double)sum_total_term_freq / (double)doc_count);
}

void tv_bm25_init(tv_bm25 *s, float boost, float idf, uint64_t sum_total_term_freq,
                  uint64_t doc_count) {
    const float k1 = TV_BM25_K1, b = TV_BM25_B;
    float avgdl = tv_bm25_avgdl(sum_total_term_freq, doc_count);
    s->idf = idf;
    s->avgdl = avgdl;
    s->weight = boost * idf;
    pthread_once(&b_len_once, b_len_init);
    for (int i = 0; i < 256; i++) s->cache[i] = 1.0f / (k1 * ((1 - b) + b_len[i] / avgdl)); /* (b * L) / avgdl, as Lucene */
}
