/*
 * aggs.h — the aggregations layer: every aggregation, parsed, collected per
 * target, reduced and written. The search layer (search.c) drives it; the
 * sketches are hll.h, tdigest.h and hdr.h: hll.c is OpenSearch's
 * HyperLogLog++ (the `cardinality` aggregation), tdigest.c t-digest 3.3's
 * MergingDigest as OpenSearch's TDigestState uses it (percentiles), hdr.c
 * HdrHistogram's DoubleHistogram (percentiles with "hdr"). moving_fn.c
 * holds the moving_fn pipeline's script evaluation (MovingFunctions),
 * auto_date.c auto_date_histogram's rounding ladder, vwh.c
 * variable_width_histogram's clustering (shard and reduce). significant.c holds
 * what significant_terms and significant_text need beyond terms' code:
 * the significance heuristics, Lucene's priority queue they rank in, and
 * the duplicate-text filter.
 *
 * Aggregations run as OpenSearch runs them, in three stages:
 *
 *   1. Parse (parse.c): the request's "aggs" object becomes a tree of
 *      tv_agg nodes in the request arena, once per request, with
 *      AggregatorFactories' and each builder's parse errors. Nothing here
 *      looks at a mapping.
 *
 *   2. Collect (collect.c), once per target (one target is one shard:
 *      trove indices have one shard): tv_agg_shard_new binds every node to
 *      the target's mapping (field types, filter queries; the shard-side
 *      errors), then each matching doc of each segment is offered to the
 *      tree. Bucket aggregators give every (parent bucket, key) pair a
 *      dense ordinal, as OpenSearch's *BucketOrds do, and metric
 *      aggregators keep arrays indexed by that ordinal: no allocation per
 *      document, values read from doc-values columns only (never
 *      _source). Tuple keys (composite, multi_terms) are encoded so that
 *      memcmp orders them; top_hits keeps a bounded best-first list per
 *      ordinal; sampler keeps its best docs and replays them into its
 *      sub-aggregations at the end. tv_agg_shard_finish turns the state
 *      into a shard result (agg_res trees keyed by values, not ordinals:
 *      InternalAggregation); each target's terms buckets are cut to
 *      shard_size in the reduce, as a shard cuts them.
 *
 *   3. Reduce and write (result.c): the targets' results are merged by
 *      key (InternalAggregation.reduce), bucket orders, sizes and
 *      min_doc_count are applied, pipeline aggregations run over the
 *      reduced tree, and the "aggregations" object is written with
 *      OpenSearch's field order and number printing.
 *
 * Memory: collection state lives in heap vectors owned by the shard
 * (freed by tv_agg_shard_free); results live in the request arena, except
 * sketches (cardinality, percentiles), which the tv_agg_ctx owns and frees.
 */
#ifndef TROVE_AGGS_H
#define TROVE_AGGS_H

#include "index/index.h"
#include "index/rounding.h"
#include "json/json.h"
#include "fetch/fetch.h"
#include "query/query.h"
#include "util/util.h"

typedef enum tv_agg_kind {
    /* buckets */
    TV_AGG_TERMS,
    TV_AGG_HISTOGRAM,
    TV_AGG_DATE_HISTOGRAM,
    TV_AGG_AUTO_DATE_HISTOGRAM,
    TV_AGG_RANGE,
    TV_AGG_DATE_RANGE,
    TV_AGG_FILTER,
    TV_AGG_FILTERS,
    TV_AGG_ADJACENCY_MATRIX,
    TV_AGG_MISSING,
    TV_AGG_GLOBAL,
    TV_AGG_SAMPLER,
    TV_AGG_NESTED,
    TV_AGG_REVERSE_NESTED,
    TV_AGG_COMPOSITE,
    TV_AGG_MULTI_TERMS,
    TV_AGG_SIGNIFICANT_TERMS,
    TV_AGG_SIGNIFICANT_TEXT,
    TV_AGG_VARIABLE_WIDTH_HISTOGRAM,
    /* metrics */
    TV_AGG_AVG,
    TV_AGG_SUM,
    TV_AGG_MIN,
    TV_AGG_MAX,
    TV_AGG_VALUE_COUNT,
    TV_AGG_STATS,
    TV_AGG_EXTENDED_STATS,
    TV_AGG_WEIGHTED_AVG,
    TV_AGG_CARDINALITY,
    TV_AGG_PERCENTILES,
    TV_AGG_PERCENTILE_RANKS,
    TV_AGG_MAD,                /* median_absolute_deviation */
    TV_AGG_TOP_HITS,
    /* pipelines */
    TV_AGG_CUMULATIVE_SUM,
    TV_AGG_DERIVATIVE,
    TV_AGG_MOVING_FN,
    TV_AGG_BUCKET_SORT,
    TV_AGG_AVG_BUCKET,
    TV_AGG_SUM_BUCKET,
    TV_AGG_MIN_BUCKET,
    TV_AGG_MAX_BUCKET,
    TV_AGG_STATS_BUCKET,
    TV_AGG_BUCKET_SCRIPT,
    TV_AGG_BUCKET_SELECTOR,
} tv_agg_kind;

bool tv_agg_is_bucket(tv_agg_kind k);
bool tv_agg_is_pipeline(tv_agg_kind k);
/* The aggregations of one bucket, {"doc_count": n, subs...}: filter,
 * missing, global, sampler, nested, reverse_nested. */
bool tv_agg_is_single_bucket(tv_agg_kind k);

/* A terms order key: _count, _key, or a path into the bucket's
 * sub-aggregations ("price_stats.avg", "avg_price"). */
typedef struct tv_agg_order {
    enum { TV_ORD_COUNT, TV_ORD_KEY, TV_ORD_PATH } kind;
    bool desc;
    const char *path;
} tv_agg_order;

typedef struct tv_agg_range {
    const char *key;           /* "key" given, or NULL (generated) */
    const tv_json *from, *to;  /* NULL: unbounded */
    double from_d, to_d;       /* resolved per target for dates */
} tv_agg_range;

/* A field's values as an aggregation reads them (ValuesSourceConfig). */
typedef struct tv_agg_source {
    const char *field;         /* NULL: none given */
    const tv_json *missing;    /* "missing" */
    const char *format;        /* "format" */
    const char *value_type;    /* "value_type" (checked, informational) */
    const tv_json *script;     /* "script" (numeric metrics): the values, or
                                  with a field a value script over _value;
                                  compiled when the shard binds */
} tv_agg_source;

/* A moving_fn script (moving_fn.c): a MovingFunctions call evaluated
 * natively, or (fn 0) a Painless script. */
typedef struct tv_movfn {
    const char *src;
    int fn;
    struct tv_qscript *qs; /* fn 0: the Painless script (values, MovingFunctions) */
    bool avg_arg;      /* stdDev(values, MovingFunctions.unweightedAvg(values)) */
    double args[5];
} tv_movfn;

typedef struct tv_agg tv_agg;

/* A value source of a tuple aggregation (composite's sources, multi_terms'
 * terms): a synthetic terms / histogram / date_histogram node whose keys
 * become one component of the bucket key. */
typedef struct tv_agg_tsrc {
    const char *name;      /* composite: the source's name */
    tv_agg *node;          /* kind TERMS, HISTOGRAM or DATE_HISTOGRAM */
    bool desc;             /* composite "order": "desc" */
    bool missing_bucket;   /* composite: docs without a value get a null component */
} tv_agg_tsrc;

struct tv_agg {
    tv_agg_kind kind;
    const char *name;
    const char *type_name;     /* the request's key: "terms", "avg", ... */
    uint32_t off;              /* JSON offset of the body (errors) */
    const tv_json *meta;
    tv_agg **subs;             /* every sub-aggregation, in request order */
    uint32_t nsubs;
    uint32_t index;            /* position among the parent's subs */

    tv_agg_source src;
    tv_agg_source weight;      /* weighted_avg: "weight" */

    /* terms */
    int64_t size, shard_size, min_doc_count, shard_min_doc_count;
    bool shard_size_set;
    tv_agg_order *order;
    uint32_t norder;
    bool show_err;
    const tv_json *include, *exclude;
    void *incl;                /* compiled include/exclude (collect.c) */

    /* histogram / date_histogram */
    double interval, offset;
    int64_t offset_ms;
    bool keyed;
    bool has_ext, has_hard;
    const tv_json *ext_min, *ext_max, *hard_min, *hard_max;
    double ext_min_d, ext_max_d, hard_min_d, hard_max_d;
    int calendar_unit;         /* tv_date_unit + 1; 0: fixed */
    int adh_first;             /* auto_date_histogram: minimum_interval's rung (size: buckets) */
    int64_t fixed_ms;
    const char *time_zone;

    /* range / date_range / geo_distance (kind TV_AGG_RANGE with geo set:
     * the ranges are over the distances from the origin, in geo_unit_m
     * meters per unit, arc or plane) */
    tv_agg_range *ranges;
    uint32_t nranges;
    bool geo, geo_plane;
    double geo_lat, geo_lon, geo_unit_m;

    /* filter / filters */
    const tv_json *filter;
    const tv_json **filters;
    const char **filter_keys;
    uint32_t nfilters;
    bool filters_anon;         /* given as an array */
    bool other_bucket;
    const char *other_key;
    /* adjacency_matrix: filters (sorted by key) as filters/filter_keys;
     * bucket slots: the nfilters filters, then every pair i < j in order */
    const char *separator;
    bool only_intersecting;

    /* nested / reverse_nested: the nested object path (reverse_nested:
     * NULL for the root) */
    const char *nested_path;

    /* cardinality / percentiles / median_absolute_deviation (compression) */
    int64_t precision_threshold;
    double *percents;          /* percents or values (ranks) */
    uint32_t npercents;
    double compression;
    bool hdr;                  /* percentiles method hdr */
    int hdr_digits;            /* number_of_significant_value_digits */

    /* composite / multi_terms */
    tv_agg_tsrc *tsrc;
    uint32_t ntsrc;
    const tv_json *after;      /* composite "after" */

    /* variable_width_histogram: buckets in size, shard_size, and */
    int64_t initial_buffer;

    /* top_hits */
    int64_t th_from, th_size;
    tv_hit_sort th_sort;
    bool th_source;            /* _source fetched (default true) */
    const char **th_inc, **th_exc;
    uint32_t th_ninc, th_nexc;
    bool th_version, th_seq_no, th_track_scores;
    bool th_total_as_int; /* hits.total as a number (tv_dsl.total_as_int) */

    /* pipelines */
    const char *buckets_path;
    bool gap_insert_zeros;     /* gap_policy: insert_zeros (default skip) */
    const char *unit;          /* derivative "unit" */
    int64_t window, shift;     /* moving_fn */
    tv_agg_order *bs_sort;     /* bucket_sort: TV_ORD_KEY or TV_ORD_PATH */
    uint32_t bs_nsort;
    int64_t bs_from, bs_size;  /* bs_size -1: all */
    tv_movfn movfn;

    /* significant_terms / significant_text (terms' size, shard_size,
     * min_doc_count, include/exclude above) */
    int sig_heuristic;         /* tv_sig_heuristic */
    bool sig_include_negatives, sig_bg_superset;
    const tv_json *bg_filter;  /* background_filter (NULL: the whole index) */
    const char *execution_hint; /* significant_terms */
    bool filter_dup;           /* significant_text: filter_duplicate_text */
    const char **source_fields; /* significant_text (NULL: the field) */
    uint32_t nsource_fields;
    /* bucket_script / bucket_selector: buckets_path's variables and paths,
     * the script (compiled when the request parses) */
    const char **bp_vars, **bp_paths;
    uint32_t nbp;
    struct tv_qscript *script;
};

/* significant.c */
typedef enum tv_sig_heuristic {
    TV_SIG_JLH,
    TV_SIG_MUTUAL_INFORMATION,
    TV_SIG_CHI_SQUARE,
    TV_SIG_GND,
    TV_SIG_PERCENTAGE,
} tv_sig_heuristic;

void tv_movfn_compile(tv_movfn *m, const char *src, size_t len, const char *lang, const tv_json *params);
/* The script's value over a window; 400 unsupported for Painless. */
tv_status tv_movfn_eval(const tv_movfn *m, const double *values, size_t n, double *out, tv_error *err);
/* MovingFunctions */


/* auto_date_histogram's rounding ladder (auto_date.c), rungs counted
 * from a->adh_first. */
int tv_adh_first(const char *minimum_interval); /* -1: not a unit */
int tv_adh_levels(const tv_agg *a);
void tv_adh_rounding(const tv_agg *a, int idx, const tv_tz *tz, tv_rounding *out);
int64_t tv_adh_rough_ms(const tv_agg *a, int idx);
const int *tv_adh_inner(const tv_agg *a, int idx, int *n);
int tv_adh_max_inner(const tv_agg *a, int idx);
const char *tv_adh_abbrev(const tv_agg *a, int idx);

/* Every aggregation of one level, in request order. */
typedef struct tv_aggs {
    tv_agg **items;
    uint32_t n;
} tv_aggs;

/* Request-wide state: sketches to free, the bucket budget. */
typedef struct tv_agg_ctx {
    tv_arena *arena;
    tv_error *err;
    int64_t max_buckets;       /* search.max_buckets */
    int64_t now_ms;
    float score;               /* the score of the doc being collected */
    TV_VEC(void *) hlls;
    TV_VEC(void *) digests;
    TV_VEC(void *) hdrs;
    TV_VEC(struct tv_agg_shard *) shards; /* freed by tv_agg_ctx_fini */
    bool profile;              /* "profile": true — shards made from now on time
                                  every aggregator (collect.c) */
    bool match_all;            /* the target's query matches every live doc and
                                  nothing else drops docs before the
                                  aggregations (search.c sets it per target):
                                  date histograms may count from the values
                                  (collect.c's filter rewrite) */
    /* the inner hits of the query's nested queries, per target (set by
     * the search once bound): top_hits' root hits carry them too, as
     * OpenSearch's top_hits fetch runs InnerHitsPhase */
    const struct tv_search_target *ih_targets;
    tv_nested_q ***ih_defs;
    const uint32_t *ih_n;
    size_t ih_ntargets;
} tv_agg_ctx;

void tv_agg_ctx_init(tv_agg_ctx *c, tv_arena *a, tv_error *err, int64_t max_buckets);
void tv_agg_ctx_fini(tv_agg_ctx *c);

/* Parses the body's "aggs"/"aggregations" value (n 0: none). */
tv_status tv_aggs_parse(tv_dsl *d, const tv_json *v, tv_aggs *out);

/* ----------------------------------------------------------- collection */

typedef struct tv_agg_shard tv_agg_shard;
typedef struct agg_res agg_res;

/* AggregationTimingType, in its declaration order. */
typedef enum tv_atiming {
    TV_AT_INITIALIZE,
    TV_AT_BUILD_LEAF_COLLECTOR,
    TV_AT_COLLECT,
    TV_AT_POST_COLLECTION,
    TV_AT_BUILD_AGGREGATION,
    TV_AT_REDUCE,
    TV_AT_COUNT
} tv_atiming;

/* Binds aggs to target t (d->mapping is t's): shard-side errors carry
 * err->index. global: build only the global aggregations (collected over
 * every live doc), else every other one. *out NULL when there is none. */
tv_status tv_agg_shard_new(tv_agg_ctx *c, tv_dsl *d, const tv_aggs *aggs, const tv_search_target *t,
                           bool global, tv_agg_shard **out);
/* Before the docs of a segment. */
tv_status tv_agg_shard_segment(tv_agg_shard *s, const tv_segview *sv);
/* A matching doc of the current segment (ascending), with its score (0
 * when scores are not computed: see tv_aggs_need_scores). */
tv_status tv_agg_collect(tv_agg_shard *s, uint32_t doc, float score);
/* Do the aggregations read scores (top_hits)? */
bool tv_aggs_need_scores(const tv_aggs *aggs);
/* The shard's results, one per aggregation of the level, into out (an
 * arena array of aggs->n, entries of the other pass left alone). */
tv_status tv_agg_shard_finish(tv_agg_shard *s, agg_res **out);
void tv_agg_shard_free(tv_agg_shard *s); /* tv_agg_ctx_fini calls it */
/* Profiling (a shard made while ctx->profile was set, after
 * tv_agg_shard_finish): writes one AggregationProfiler result object per
 * top-level aggregator of the shard into the array the caller opened
 * ({"type": the aggregator's class as OpenSearch names it, "description":
 * the name, "time_in_nanos", "breakdown", "debug" when OpenSearch reports
 * one, "children"}). s may be NULL (nothing written). */
void tv_agg_profile_write(const tv_agg_shard *s, tv_jw *w);
/* The nanoseconds a profiled shard's top-level aggregators spent as a
 * collector (collect and build_leaf_collector). */
uint64_t tv_agg_profile_collect_ns(const tv_agg_shard *s);
/* A shard's top-level aggregators' names ("[a, b]") for the collector
 * tree's name; NULL when s is NULL. */
const char *tv_agg_profile_names(const tv_agg_shard *s, tv_arena *a, size_t *count);

/* Reduces results[t][i] (ntargets arrays of aggs->n) and writes the
 * "aggregations" key and object. */
tv_status tv_aggs_reduce_write(tv_agg_ctx *c, const tv_aggs *aggs, agg_res ***results, size_t ntargets,
                               bool typed_keys, tv_jw *w);

/* ------------------------------------------------- results (InternalAggregation) */

typedef enum { TV_KEY_NONE, TV_KEY_BYTES, TV_KEY_LONG, TV_KEY_ULONG, TV_KEY_DOUBLE } tv_key_kind;

/* How values print (DocValueFormat). */
typedef struct agg_fmt {
    enum { TV_FMT_RAW, TV_FMT_DATE, TV_FMT_BOOL, TV_FMT_IP, TV_FMT_DECIMAL, TV_FMT_DATE_NANOS } kind;
    const char *pattern;       /* date format or decimal pattern */
    const void *tz;            /* const tv_tz * (dates), NULL: UTC */
} agg_fmt;

typedef struct agg_bucket {
    int64_t ki;                /* LONG/ULONG (sortable) keys, date keys */
    double kd;                 /* DOUBLE keys, range from */
    const char *ks;            /* BYTES keys, range and filters keys */
    uint32_t klen;
    double to;                 /* range to; variable_width_histogram max */
    double lo;                 /* variable_width_histogram min (kd: centroid) */
    uint64_t doc_count;
    int64_t err;               /* terms: doc_count_error_upper_bound */
    agg_res **subs;            /* one per sub-aggregation (a->nsubs) */
    uint64_t bg;               /* significant terms: the background frequency */
    double score;              /* significant terms: the heuristic's score */
} agg_bucket;

struct agg_res {
    const tv_agg *a;
    tv_key_kind key_kind;
    agg_fmt fmt;
    bool mapped;
    /* buckets */
    agg_bucket *b;
    size_t nb;
    uint64_t other;            /* terms: sum_other_doc_count */
    int64_t err;               /* terms: doc_count_error_upper_bound */
    uint64_t doc_count;        /* single-bucket aggs use b[0]; kept for paths */
    uint64_t subset_size, superset_size; /* significant terms: doc_count, bg_count */
    /* metrics */
    uint64_t count;
    double sum, comp, min, max, sumsq, sqcomp, wsum, wcomp;
    void *sketch;              /* tv_hll *, tv_tdigest * or (a->hdr) tv_hdr * */
    /* composite / multi_terms: how each component prints (from the first
     * mapped target) */
    const agg_fmt *tfmt;
    const tv_key_kind *tkk;
    const char *after;         /* composite: "after", encoded as keys are */
    int adh_idx;               /* auto_date_histogram: the rung of the keys */
    int adh_inner;             /* auto_date_histogram: the inner interval (reduced) */
    uint32_t after_len;
    /* top_hits */
    tv_hit *hits;
    size_t nhits;
    float max_score;           /* NaN: not tracked */
    const struct tv_field *const *th_fields; /* per sort key (NULL: _score or unmapped) */
    /* pipeline outputs */
    double value;
    bool has_value;
    const char **keys;         /* min_bucket / max_bucket */
    size_t nkeys;
};

/* variable_width_histogram (vwh.c): a shard's clusters. */
typedef struct tv_vwh {
    int64_t shard_size, buffer_limit;
    bool merging;              /* past the buffer */
    double *buf;
    size_t nbuf, bufcap;
    double *cmin, *cmax, *cent, *csize; /* clusters, by centroid */
    size_t n, cap;
    double avg;                /* average distance between centroids */
} tv_vwh;
void tv_vwh_init(tv_vwh *v, int64_t shard_size, int64_t buffer_limit);
int tv_vwh_add(tv_vwh *v, double val);    /* -1: out of memory */
int tv_vwh_finish(tv_vwh *v);             /* -1: out of memory */
void tv_vwh_fini(tv_vwh *v);
/* InternalVariableWidthHistogram.reduce of buckets sorted by centroid (kd,
 * lo min, to max) down to target; work holds 5 * nb words. Returns the
 * count left in b. */
size_t tv_vwh_reduce(agg_bucket *b, size_t nb, int64_t target, bool final, size_t *work);

/* The double a numeric doc value stands for (field types' encodings). */
double tv_agg_value_double(const tv_field *f, int64_t v);

/* significant.c: the heuristic's score (SignificanceHeuristic.getScore);
 * TROVE_EARG with its IllegalArgumentException message in msg. */
tv_status tv_sig_score(const tv_agg *a, int64_t sub_df, int64_t sub_size, int64_t sup_df, int64_t sup_size,
                       double *out, char *msg, size_t cap);
/* Lucene's PriorityQueue by score, of at most max: items[0..n) inserted
 * in order (insertWithOverflow), then popped; the queue's content comes
 * back in items[0..k), best first. SIZE_MAX: out of memory. */
size_t tv_sig_rank(agg_bucket **items, size_t n, size_t max, tv_arena *arena);
/* DuplicateByteSequenceSpotter (per parent bucket) and
 * DeDuplicatingTokenFilter: keep[i] false for the tokens of one value
 * that repeat a run of 6 already seen. */
typedef struct tv_dup_spotter tv_dup_spotter;
tv_dup_spotter *tv_dup_spotter_new(void);
void tv_dup_spotter_free(tv_dup_spotter *s);
void tv_dup_spotter_new_sequence(tv_dup_spotter *s);
tv_status tv_dup_filter(tv_dup_spotter *s, const tv_tokens *toks, bool *keep);

#endif /* TROVE_AGGS_H */
