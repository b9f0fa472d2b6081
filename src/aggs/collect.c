/*
 * collect.c — aggregations over one target (one shard): binding the
 * request tree to the mapping, collecting matching docs from doc values,
 * and building the shard's results.
 *
 * A collector (col) per aggregation node. collect(g, doc, ord) is
 * OpenSearch's LeafBucketCollector.collect(doc, owningBucketOrd): metric
 * collectors keep one slot per ord in a heap array (grown by doubling);
 * bucket collectors map (ord, key) to their own dense ords (ordmap, an
 * open-addressing table; a top-level collector, whose parent ord is always
 * 0, skips the table for keywords: the target-wide term id is the ord)
 * and pass those on to their sub-collectors.
 *
 * Values are read from doc-values columns of the current segment; keyword
 * ordinals are segment-local, so each segment has a small table from its
 * ords to target-wide term ids (assigned on first sight, keyed by the term
 * bytes, which the held snapshot keeps alive). A doc's values are read into
 * a per-collector buffer that grows for many-valued docs: nothing is
 * allocated per document once buffers have grown.
 *
 * Multi-valued docs count once per bucket, as OpenSearch counts them: terms
 * skip repeated values (sorted numeric doc values keep duplicates),
 * histograms repeated keys, and a range counts a doc when any value falls
 * in it.
 *
 * Profiling ("profile": true, tv_agg_ctx.profile): each aggregator gets
 * an aprof whose timers wrap bind (initialize), seg_col
 * (build_leaf_collector), collect, the post-collection and build
 * (build_aggregation), a sub's time inside its parent's as OpenSearch's
 * ProfilingAggregator nests them; off, it costs one predictable branch
 * where a doc enters an aggregator. The profile's type names, breakdown
 * and debug are written at the end of this file.
 *
 * Date histograms may count a segment from its sorted values instead of
 * collecting it (the filter rewrite, above seg_col).
 *
 * Shard-side errors (OpenSearch raises them while creating the aggregator
 * on the shard) carry err->index: field types an aggregation does not
 * support, text fields without fielddata, bad date or number values.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "index/date.h"
#include "index/rounding.h"
#include "index/tz.h"
#include "aggs/aggs.h"
#include "query/automaton.h"
#include "query/parse.h"
#include "aggs/hll.h"
#include "aggs/tdigest.h"
#include "aggs/hdr.h"

/* ------------------------------------------------------------ ordmap */

typedef struct om_slot {
    uint64_t parent;
    int64_t key;
    uint32_t ord; /* +1; 0 empty */
} om_slot;

typedef struct ordmap {
    om_slot *slots;
    size_t cap, n;
} ordmap;

/* murmur3's 64-bit finalizer over key and parent: date keys are
 * multiples of large powers of two, so every bit must reach the low ones
 * the table indexes by. */
static uint64_t om_hash(uint64_t p, int64_t k) {
    uint64_t h = (uint64_t)k ^ (p * 0x9E3779B97F4A7C15ull);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

/* The ord of (parent, key), or UINT32_MAX when absent and !add; *added. */
static tv_status om_get(ordmap *m, uint64_t parent, int64_t key, uint32_t next, uint32_t *out, bool *added) {
    *added = false;
    if ((m->n + 1) * 4 > m->cap * 3) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        om_slot *ns = tv_calloc(nc, sizeof *ns);
        if (!ns) return TROVE_ENOMEM;
        for (size_t i = 0; i < m->cap; i++) {
            om_slot *s = &m->slots[i];
            if (!s->ord) continue;
            size_t j = om_hash(s->parent, s->key) & (nc - 1);
            while (ns[j].ord) j = (j + 1) & (nc - 1);
            ns[j] = *s;
        }
        tv_free(m->slots);
        m->slots = ns;
        m->cap = nc;
    }
    size_t j = om_hash(parent, key) & (m->cap - 1);
    for (;;) {
        om_slot *s = &m->slots[j];
        if (!s->ord) {
            s->parent = parent;
            s->key = key;
            s->ord = next + 1;
            m->n++;
            *out = next;
            *added = true;
            return TROVE_OK;
        }
        if (s->parent == parent && s->key == key) {
            *out = s->ord - 1;
            return TROVE_OK;
        }
        j = (j + 1) & (m->cap - 1);
    }
}

/* ---------------------------------------------------------- collectors */

typedef struct bkt {
    uint64_t parent;
    int64_t key;   /* term id, sortable number, double bits, rounded date */
    uint64_t count;
} bkt;

typedef struct mslot {
    uint64_t count;
    double sum, comp, min, max, sumsq, sqcomp, wsum, wcomp;
    void *sk;
} mslot;

typedef struct termref {
    const char *s;
    uint32_t len;
} termref;

/* Profiling ("profile": true): one per aggregator, NULL when off. */
typedef struct aprof {
    uint64_t ns[TV_AT_COUNT], n[TV_AT_COUNT];
    /* cardinality: the leaf collector each segment used */
    uint64_t empty, numeric, ordinals, ords_overhead, hashing;
} aprof;

typedef struct col col;
struct col {
    aprof *prof;
    /* filter rewrite (date histograms): eligibility (0 unknown, 1 yes, 2
     * no), the shard's bucket ranges, this segment counted already, and
     * the traversal's debug counts */
    int fr_state;
    bool root;                /* a top-level aggregation (no parent) */
    bool seg_done;
    int64_t *fr_lo, *fr_hi;   /* [lo, hi) per range, ascending */
    size_t fr_n;
    uint64_t fr_segments, fr_optimized, fr_leaf, fr_inner;
    const tv_agg *a;
    tv_agg_ctx *ctx;
    tv_dsl *d;
    const tv_search_target *t;
    const tv_field *f, *wf;
    col **subs;               /* per a->subs; NULL for pipelines */
    uint32_t nsubs;
    bool top;                 /* parent ord always 0 */
    /* auto_date_histogram (FromSingle): the rung, the distinct keys at it
     * (sorted), and the min and max of the keys as they were added */
    int adh_idx;
    int64_t adh_min, adh_max;
    TV_VEC(int64_t) adh_keys;
    tv_rounding adh_rnd;
    const tv_segview *sv;
    agg_fmt fmt;
    tv_key_kind kk;
    bool unmapped;
    /* missing */
    bool has_missing, wmissing_set;
    int64_t miss_i;           /* numeric missing (the field's encoding) */
    const char *miss_s;       /* keyword missing */
    uint32_t miss_len;
    double wmissing;
    /* buckets */
    ordmap om;
    TV_VEC(uint32_t) direct;  /* top-level keyword terms: term id -> ord + 1 */
    bool counting;            /* top-level keyword terms without sub-aggregations:
                                 counts per segment ord, folded per segment */
    uint32_t *segcnt;
    uint32_t segcnt_n;
    bool last_ok;
    uint64_t last_parent;
    int64_t last_key;
    uint32_t last_ord;
    TV_VEC(bkt) b;
    /* keyword terms: target-wide ids */
    tv_map terms;
    TV_VEC(termref) tids;
    uint32_t *segmap;         /* segment ord -> tid + 1 */
    uint32_t segmap_n;
    TV_VEC(int64_t) allkeys;  /* terms with min_doc_count 0: every numeric key */
    tv_automaton *inc_re, *exc_re;
    const char **inc_vals, **exc_vals;
    uint32_t ninc, nexc;
    int64_t part, nparts;     /* include partition */
    /* metrics */
    mslot *m;
    size_t mcap;
    /* a script values source (numeric metrics): its runs and the doc's values */
    tv_qscript_exec sx;
    bool sx_init;
    double *sdv;
    uint32_t sdcap;
    /* nested: the children of `npath` under each collected doc of the
     * parent scope; reverse_nested: the doc of `npath` (NULL: the root)
     * above each collected doc, once per bucket (the last parent per ord) */
    const tv_field *npath, *nscope;
    bool nunmapped;
    tv_bitset ncb, npb;      /* the current segment's child and parent docs */
    TV_VEC(uint32_t) rn_last;
    /* filter(s) */
    tv_query **qs;
    tv_iter **its;
    uint32_t *adj_hits;       /* adjacency_matrix: the filters a doc matched */
    uint32_t nq;
    /* date_histogram */
    tv_rounding rnd;
    const tv_tz *tz;
    /* ranges */
    double *from, *to;
    /* composite / multi_terms: one collector per source, emitting keys */
    col **tcols;
    uint32_t ntcols;
    bool emit;                /* a source: keys go to ekeys, not to buckets */
    TV_VEC(int64_t) ekeys;
    tv_buf tuple;             /* the encoded key being built */
    char *after_enc;          /* composite "after", encoded (NULL: none) */
    uint32_t after_len;
    /* top_hits: per ord, the best from+size hits, best first */
    const tv_field *thf[4];
    tv_hit **th;
    uint32_t *thn;
    size_t thcap;             /* ords with a list */
    tv_dv_reader dvr;         /* g->f's numeric doc values in the current segment */
    /* variable_width_histogram (vwh.c) */
    tv_vwh vwh;
    /* value buffers */
    int64_t *vals;
    uint32_t vcap;
    uint32_t *ords;
    uint32_t ocap;
    /* significant_terms / significant_text */
    TV_VEC(uint64_t) subset;  /* docs collected per parent ord (subsetSize) */
    bool ip_inc;              /* include/exclude values are IP texts */
    bool sig_sorted;          /* candidates ranked in term order (global ordinals) */
    bool bg_terms;            /* background from the term dictionary (docFreq) */
    tv_query *bgq;            /* background_filter, prepared */
    uint64_t **bg_bits;       /* per segment of the snapshot: the filter's docs */
    bool bg_ready;
    uint64_t superset;
    ordmap bg_om;             /* numeric keys -> index into bg_counts */
    TV_VEC(uint64_t) bg_counts;
    /* a text field's fielddata: the current segment uninverted (docs'
     * term ords in unv_ords[unv_start[d] .. unv_start[d + 1]), terms by ord) */
    uint32_t *unv_start, *unv_ords;
    termref *unv_terms;
    uint32_t unv_nterms;
    /* significant_text: _source re-analysed */
    tv_arena scratch;
    bool scratch_init;
    tv_stored_cache cache;
    tv_dup_spotter **spot;    /* per parent ord (filter_duplicate_text) */
    size_t nspot;
};

struct tv_agg_shard {
    tv_agg_ctx *ctx;
    tv_aggs aggs_copy;        /* the caller's tv_aggs may not outlive the shard */
    const tv_aggs *aggs;      /* &aggs_copy */
    col **cols;               /* per aggs item; NULL when not in this pass */
    const tv_segview *sv;
};

static tv_status c_oom(col *g) { return tv_error_oom(g->ctx->err); }

static tv_status shard_err(col *g) {
    tv_error *e = g->ctx->err;
    snprintf(e->index, sizeof e->index, "%s", g->t->index ? g->t->index : "");
    return e->code;
}

double tv_agg_value_double(const tv_field *f, int64_t v) {
    if (!f) return (double)v;
    if (tv_field_type_is_floating(f->type)) return tv_sortable_to_double(v);
    if (f->type == TV_FT_SCALED_FLOAT) return (double)v / f->scaling_factor;
    if (f->type == TV_FT_UNSIGNED_LONG) return (double)tv_sortable_to_unsigned(v);
    if (f->type == TV_FT_DATE_NANOS) return (double)(v / 1000000); /* aggregations are in millis */
    return (double)v;
}

/* The doc's numeric values (or the missing value) into g->vals. */
static uint32_t nums(col *g, const tv_field *f, uint32_t doc, const int64_t **out) {
    uint32_t n = 0;
    if (f && f->dv_kind == TV_DV_NUMERIC) {
        bool mine = f == g->f; /* the reader seg_col opened */
        n = mine ? tv_dv_read_numeric(&g->dvr, doc, g->vals, g->vcap) : tv_segment_dv_numeric(g->sv->seg, f->id, doc, g->vals, g->vcap);
        if (n > g->vcap) {
            int64_t *nv = tv_realloc(g->vals, (size_t)n * sizeof *nv);
            if (nv) {
                g->vals = nv;
                g->vcap = n;
                n = mine ? tv_dv_read_numeric(&g->dvr, doc, g->vals, g->vcap)
                         : tv_segment_dv_numeric(g->sv->seg, f->id, doc, g->vals, g->vcap);
            } else n = g->vcap;
        }
    }
    if (!n && g->has_missing && f == g->f) {
        g->vals[0] = g->miss_i;
        n = 1;
    }
    *out = g->vals;
    return n;
}

/* The doc's keyword ords into g->ords. */
static uint32_t ords_of(col *g, uint32_t doc) {
    if (g->unv_start) {
        uint32_t lo = g->unv_start[doc], n = g->unv_start[doc + 1] - lo;
        if (n > g->ocap) {
            uint32_t *no = tv_realloc(g->ords, (size_t)n * sizeof *no);
            if (!no) return 0;
            g->ords = no;
            g->ocap = n;
        }
        memcpy(g->ords, g->unv_ords + lo, (size_t)n * sizeof *g->ords);
        return n;
    }
    if (!g->f || g->f->dv_kind != TV_DV_SORTED_SET) return 0;
    uint32_t n = tv_segment_dv_ords(g->sv->seg, g->f->id, doc, g->ords, g->ocap);
    if (n > g->ocap) {
        uint32_t *no = tv_realloc(g->ords, (size_t)n * sizeof *no);
        if (!no) return g->ocap;
        g->ords = no;
        g->ocap = n;
        n = tv_segment_dv_ords(g->sv->seg, g->f->id, doc, g->ords, g->ocap);
    }
    return n;
}

/* The term of a segment ord (doc values, or the uninverted text field). */
static bool seg_term(col *g, uint32_t so, const char **t, size_t *tl) {
    if (g->unv_start) {
        if (so >= g->unv_nterms) return false;
        *t = g->unv_terms[so].s;
        *tl = g->unv_terms[so].len;
        return true;
    }
    return tv_segment_dv_term(g->sv->seg, g->f->id, so, t, tl);
}

static bool doc_has_value(col *g, uint32_t doc) {
    if (!g->f) return false;
    if (g->f->dv_kind == TV_DV_NUMERIC) return tv_segment_dv_numeric(g->sv->seg, g->f->id, doc, g->vals, 0) > 0;
    if (g->f->dv_kind == TV_DV_SORTED_SET) return tv_segment_dv_ords(g->sv->seg, g->f->id, doc, g->ords, 0) > 0;
    return false;
}

static tv_status collect(col *g, uint32_t doc, uint64_t ord);

/* collect, timed and counted when the aggregator is profiled (a sub's
 * time is inside its parent's, as ProfilingLeafBucketCollector nests) */
static tv_status collect_prof(col *g, uint32_t doc, uint64_t ord) {
    uint64_t t0 = tv_mono_ns();
    tv_status st = collect(g, doc, ord);
    g->prof->ns[TV_AT_COLLECT] += tv_mono_ns() - t0;
    g->prof->n[TV_AT_COLLECT]++;
    return st;
}

static inline tv_status collect_one(col *g, uint32_t doc, uint64_t ord) {
    if (TV_UNLIKELY(g->prof != NULL)) return collect_prof(g, doc, ord);
    return collect(g, doc, ord);
}

static tv_status collect_subs(col *g, uint32_t doc, uint64_t ord) {
    for (uint32_t i = 0; i < g->nsubs; i++) {
        if (!g->subs[i]) continue;
        tv_status st = collect_one(g->subs[i], doc, ord);
        if (st) return st;
    }
    return TROVE_OK;
}

/* Counts the doc in (parent, key)'s bucket and collects the subs there.
 * A top-level terms collector on a keyword (parent 0, dense term ids)
 * finds its ord in a plain array; others go through the ordmap, after a
 * one-entry cache (dates and sorted keys repeat). */
static tv_status bucket_hit(col *g, uint32_t doc, uint64_t parent, int64_t key) {
    uint32_t o;
    bool added = false;
    if (g->emit) return tv_vec_push(&g->ekeys, key) ? c_oom(g) : TROVE_OK;
    if (g->top && g->kk == TV_KEY_BYTES &&
        (g->a->kind == TV_AGG_TERMS || g->a->kind == TV_AGG_COMPOSITE || g->a->kind == TV_AGG_MULTI_TERMS)) {
        if ((size_t)key >= g->direct.len) {
            size_t need = (size_t)key + 1;
            if (tv_vec_reserve(&g->direct, need)) return c_oom(g);
            memset(g->direct.items + g->direct.len, 0, (need - g->direct.len) * sizeof *g->direct.items);
            g->direct.len = need;
        }
        uint32_t *slot = &g->direct.items[key];
        if (!*slot) {
            *slot = (uint32_t)g->b.len + 1;
            added = true;
        }
        o = *slot - 1;
    } else if (g->last_ok && g->last_parent == parent && g->last_key == key) {
        o = g->last_ord;
    } else {
        if (om_get(&g->om, parent, key, (uint32_t)g->b.len, &o, &added)) return c_oom(g);
        g->last_ok = true;
        g->last_parent = parent;
        g->last_key = key;
        g->last_ord = o;
    }
    if (added) {
        bkt x = {parent, key, 0};
        if (tv_vec_push(&g->b, x)) return c_oom(g);
    }
    g->b.items[o].count++;
    return collect_subs(g, doc, o);
}

/* -------------------------------------------------------------- metrics */

static tv_status mgrow(col *g, uint64_t ord) {
    if (ord < g->mcap) return TROVE_OK;
    size_t nc = g->mcap ? g->mcap : 8;
    while (nc <= ord) nc *= 2;
    mslot *nm = tv_realloc(g->m, nc * sizeof *nm);
    if (!nm) return c_oom(g);
    for (size_t i = g->mcap; i < nc; i++) {
        memset(&nm[i], 0, sizeof nm[i]);
        nm[i].min = INFINITY;
        nm[i].max = -INFINITY;
    }
    g->m = nm;
    g->mcap = nc;
    return TROVE_OK;
}

/* OpenSearch's CompensatedSum.add: Kahan summation that lets a non-finite
 * value turn the sum non-finite. */
static void kahan(double *sum, double *comp, double v) {
    if (!isfinite(v)) *sum = v + *sum;
    if (isfinite(*sum)) {
        double corrected = v + *comp;
        double updated = *sum + corrected;
        *comp = corrected - (updated - *sum);
        *sum = updated;
    }
}

/* ------------------------------------------------ script values sources */

static tv_status sdv_push(col *g, uint32_t *n, double x) {
    if (*n == g->sdcap) {
        uint32_t nc = g->sdcap ? g->sdcap * 2 : 8;
        double *nd = tv_realloc(g->sdv, (size_t)nc * sizeof *nd);
        if (!nd) return c_oom(g);
        g->sdv = nd;
        g->sdcap = nc;
    }
    g->sdv[(*n)++] = x;
    return TROVE_OK;
}

/* ScriptDoubleValues' toDoubleValue: a number, a boolean (1 or 0) or a
 * date (epoch millis); anything else is OpenSearch's
 * AggregationExecutionException. */
static tv_status script_double(col *g, const tv_sv *v, double *out) {
    const char *what;
    if (tv_qscript_number(v, out, &what)) return TROVE_OK;
    if (v->type == TV_SV_BOOL) return *out = v->v.b ? 1.0 : 0.0, TROVE_OK;
    if (v->type == TV_SV_OBJ && v->v.obj->kind != TV_SV_O_GEO && v->v.obj->kind != TV_SV_O_DOW)
        return *out = (double)tv_sv_date_millis(v->v.obj), TROVE_OK;
    tv_buf b;
    tv_buf_init(&b);
    tv_sv_to_string(&b, v);
    tv_error_set(g->ctx->err, TROVE_EAGGEXEC, "Unsupported script value [%.*s], expected a number, date, or boolean",
                 (int)TV_MIN(b.len, 300), b.data ? b.data : "");
    tv_buf_fini(&b);
    return shard_err(g);
}

static int dbl_qcmp(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b ? 1 : 0;
}

/* The doc's values from the script (ScriptDoubleValues: null none, a
 * collection each of its items, sorted) or, with a field, the script over
 * each field value as _value (ValuesSource.Numeric.WithScript). value_count
 * (a bytes source) only counts: *count. */
static tv_status script_values(col *g, uint32_t doc, uint32_t *n, uint64_t *count) {
    tv_qscript_exec *x = &g->sx;
    tv_sv r;
    tv_status st;
    *n = 0;
    *count = 0;
    if (g->f) {
        const int64_t *v;
        uint32_t k = nums(g, g->f, doc, &v);
        for (uint32_t i = 0; i < k; i++)
            if ((st = sdv_push(g, n, tv_agg_value_double(g->f, v[i])))) return st;
        for (uint32_t i = 0; i < k; i++) {
            x->agg_value = tv_sv_double(g->sdv[i]);
            if ((st = tv_qscript_run(x, g->sv->seg, doc, g->ctx->score, NULL, &r))) return st;
            if (g->a->kind == TV_AGG_VALUE_COUNT) {
                (*count)++;
                continue;
            }
            if ((st = script_double(g, &r, &g->sdv[i]))) return st;
        }
        return TROVE_OK;
    }
    if ((st = tv_qscript_run(x, g->sv->seg, doc, g->ctx->score, NULL, &r))) return st;
    if (r.type == TV_SV_NULL) return TROVE_OK;
    if (g->a->kind == TV_AGG_VALUE_COUNT) { /* ScriptBytesValues: a collection's size, else one value */
        *count = r.type == TV_SV_LIST ? r.v.list->len : 1;
        return TROVE_OK;
    }
    if (r.type == TV_SV_LIST) {
        for (uint32_t i = 0; i < r.v.list->len; i++) {
            double d;
            if ((st = script_double(g, &r.v.list->items[i], &d)) || (st = sdv_push(g, n, d))) return st;
        }
        qsort(g->sdv, *n, sizeof *g->sdv, dbl_qcmp);
        return TROVE_OK;
    }
    double d;
    if ((st = script_double(g, &r, &d))) return st;
    return sdv_push(g, n, d);
}

static tv_status collect_metric(col *g, uint32_t doc, uint64_t ord) {
    const tv_agg *a = g->a;
    if (mgrow(g, ord)) return c_oom(g);
    mslot *s = &g->m[ord];
    if (g->sx_init) { /* a script values source: value_count, avg, sum, min, max, (extended_)stats */
        uint32_t n;
        uint64_t cnt;
        tv_status st = script_values(g, doc, &n, &cnt);
        if (st) return st;
        if (a->kind == TV_AGG_VALUE_COUNT) {
            s->count += cnt;
            return TROVE_OK;
        }
        for (uint32_t i = 0; i < n; i++) {
            double x = g->sdv[i];
            s->count++;
            kahan(&s->sum, &s->comp, x);
            if (x < s->min || (x != x)) s->min = x != x ? s->min : x;
            if (x > s->max) s->max = x;
            if (a->kind == TV_AGG_EXTENDED_STATS) kahan(&s->sumsq, &s->sqcomp, x * x);
        }
        return TROVE_OK;
    }

    if (a->kind == TV_AGG_VALUE_COUNT || a->kind == TV_AGG_CARDINALITY) {
        if (g->f && g->f->dv_kind == TV_DV_SORTED_SET) {
            uint32_t n = ords_of(g, doc);
            if (a->kind == TV_AGG_VALUE_COUNT) { s->count += n; return TROVE_OK; }
            if (!n && g->has_missing) {
                if (!s->sk && !(s->sk = tv_hll_new(tv_hll_precision(a->precision_threshold)))) return c_oom(g);
                return tv_hll_add(s->sk, tv_hash_bytes(g->miss_s, g->miss_len)) ? c_oom(g) : TROVE_OK;
            }
            for (uint32_t i = 0; i < n; i++) {
                const char *t;
                size_t tl;
                if (!tv_segment_dv_term(g->sv->seg, g->f->id, g->ords[i], &t, &tl)) continue;
                if (!s->sk && !(s->sk = tv_hll_new(tv_hll_precision(a->precision_threshold)))) return c_oom(g);
                if (tv_hll_add(s->sk, tv_hash_bytes(t, tl))) return c_oom(g);
            }
            return TROVE_OK;
        }
        if (g->f == NULL && g->has_missing && g->miss_s) {
            if (a->kind == TV_AGG_VALUE_COUNT) { s->count++; return TROVE_OK; }
            if (!s->sk && !(s->sk = tv_hll_new(tv_hll_precision(a->precision_threshold)))) return c_oom(g);
            return tv_hll_add(s->sk, tv_hash_bytes(g->miss_s, g->miss_len)) ? c_oom(g) : TROVE_OK;
        }
    }
    const int64_t *v;
    uint32_t n = g->f || g->has_missing ? nums(g, g->f, doc, &v) : 0;
    if (!n) return TROVE_OK;
    switch (a->kind) {
    case TV_AGG_VALUE_COUNT: s->count += n; return TROVE_OK;
    case TV_AGG_CARDINALITY: {
        if (!s->sk && !(s->sk = tv_hll_new(tv_hll_precision(a->precision_threshold)))) return c_oom(g);
        bool fl = g->f && (tv_field_type_is_floating(g->f->type) || g->f->type == TV_FT_SCALED_FLOAT);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t h = fl ? tv_hash_double(tv_agg_value_double(g->f, v[i])) : tv_hash_long(v[i]);
            if (tv_hll_add(s->sk, h)) return c_oom(g);
        }
        return TROVE_OK;
    }
    case TV_AGG_PERCENTILES:
    case TV_AGG_PERCENTILE_RANKS:
        if (a->hdr) {
            if (!s->sk && !(s->sk = tv_hdr_new(a->hdr_digits))) return c_oom(g);
            for (uint32_t i = 0; i < n; i++) {
                tv_status st = tv_hdr_add(s->sk, tv_agg_value_double(g->f, v[i]));
                if (st == TROVE_ENOMEM) return c_oom(g);
                if (st) {
                    tv_error_set(g->ctx->err, TROVE_EUNSUPPORTED,
                                 "[hdr] percentiles of negative values or of values whose range exceeds the histogram's are not supported by trove");
                    return shard_err(g);
                }
            }
            s->count += n;
            return TROVE_OK;
        }
        /* fall through */
    case TV_AGG_MAD:
        if (!s->sk && !(s->sk = tv_tdigest_new(a->compression))) return c_oom(g);
        for (uint32_t i = 0; i < n; i++)
            if (tv_tdigest_add(s->sk, tv_agg_value_double(g->f, v[i]))) return c_oom(g);
        s->count += n;
        return TROVE_OK;
    case TV_AGG_WEIGHTED_AVG: {
        double w;
        if (g->wf && g->wf->dv_kind == TV_DV_NUMERIC) {
            int64_t wv[2];
            uint32_t wn = tv_segment_dv_numeric(g->sv->seg, g->wf->id, doc, wv, 2);
            if (wn > 1) {
                tv_error_set(g->ctx->err, TROVE_EARG,
                             "Encountered more than one weight for a single document. Use a script to combine multiple weights-per-doc into a single value.");
                tv_error_as(g->ctx->err, TROVE_EAGGEXEC);
                return shard_err(g);
            }
            if (wn == 1) w = tv_agg_value_double(g->wf, wv[0]);
            else if (g->wmissing_set) w = g->wmissing;
            else return TROVE_OK;
        } else if (g->wmissing_set) {
            w = g->wmissing;
        } else return TROVE_OK;
        for (uint32_t i = 0; i < n; i++) {
            kahan(&s->sum, &s->comp, tv_agg_value_double(g->f, v[i]) * w);
            kahan(&s->wsum, &s->wcomp, w);
        }
        s->count += n;
        return TROVE_OK;
    }
    default:
        break;
    }
    for (uint32_t i = 0; i < n; i++) {
        double x = tv_agg_value_double(g->f, v[i]);
        s->count++;
        kahan(&s->sum, &s->comp, x);
        if (x < s->min || (x != x)) s->min = x != x ? s->min : x;
        if (x > s->max) s->max = x;
        if (a->kind == TV_AGG_EXTENDED_STATS) kahan(&s->sumsq, &s->sqcomp, x * x);
    }
    return TROVE_OK;
}

/* ------------------------------------------------------------- top_hits */

/* Keeps the doc among ord's best cap hits (top_hits: from + size; a
 * sampler: shard_size, by score, as its node has no sort keys). */
static tv_status collect_top_hits(col *g, uint32_t doc, uint64_t ord, size_t cap) {
    const tv_agg *a = g->a;
    if (mgrow(g, ord)) return c_oom(g);
    mslot *s = &g->m[ord];
    s->count++;
    float score = g->ctx->score;
    if ((double)score > s->max) s->max = score;
    if (!cap) return TROVE_OK;
    if (ord >= g->thcap) {
        size_t nc = g->thcap ? g->thcap : 8;
        while (nc <= ord) nc *= 2;
        tv_hit **nt = tv_realloc(g->th, nc * sizeof *nt);
        if (!nt) return c_oom(g);
        g->th = nt;
        uint32_t *nn = tv_realloc(g->thn, nc * sizeof *nn);
        if (!nn) return c_oom(g);
        g->thn = nn;
        for (size_t i = g->thcap; i < nc; i++) { g->th[i] = NULL; g->thn[i] = 0; }
        g->thcap = nc;
    }
    tv_hit h;
    memset(&h, 0, sizeof h);
    h.score = score;
    h.t = g->t;
    h.seg = (uint32_t)(g->sv - g->t->snap->segs);
    h.doc = doc;
    if (tv_hit_sort_keys(&a->th_sort, g->thf, g->sv->seg, doc, g->ctx->arena, &h)) return c_oom(g);
    if (!g->th[ord]) {
        g->th[ord] = tv_malloc(cap * sizeof *g->th[ord]);
        if (!g->th[ord]) return c_oom(g);
    }
    tv_hit *l = g->th[ord];
    uint32_t n = g->thn[ord];
    if (n == cap && tv_hit_cmp(&a->th_sort, &h, &l[n - 1]) >= 0) return TROVE_OK;
    uint32_t i = n == cap ? n - 1 : n;
    while (i > 0 && tv_hit_cmp(&a->th_sort, &h, &l[i - 1]) < 0) {
        l[i] = l[i - 1];
        i--;
    }
    l[i] = h;
    if (n < cap) g->thn[ord] = n + 1;
    return TROVE_OK;
}

/* ---------------------------------------------------------------- terms */

static bool include_term(col *g, const char *t, size_t tl) {
    if (g->nparts) {
        uint32_t h = tv_murmur3_x86_32(t, tl, 31);
        int64_t p = (int64_t)((int32_t)h % (int32_t)g->nparts);
        if (p < 0) p += g->nparts;
        if (p != g->part) return false;
    }
    if (g->inc_re && !tv_automaton_run(g->inc_re, t, tl)) return false;
    if (g->exc_re && tv_automaton_run(g->exc_re, t, tl)) return false;
    char ipt[TV_IP_TEXT_MAX + 1];
    if (g->ip_inc && (g->ninc || g->nexc) && tl == 16) {
        /* IP values compare as the format prints them (DocValueFormat.IP) */
        tl = tv_ip_format((const uint8_t *)t, ipt);
        ipt[tl] = 0;
        t = ipt;
    }
    if (g->ninc) {
        bool in = false;
        for (uint32_t i = 0; i < g->ninc && !in; i++) in = tv_streq(t, tl, g->inc_vals[i]);
        if (!in) return false;
    }
    for (uint32_t i = 0; i < g->nexc; i++)
        if (tv_streq(t, tl, g->exc_vals[i])) return false;
    return true;
}

/* The target-wide id of a term (UINT32_MAX: excluded). */
static tv_status term_id(col *g, const char *t, size_t tl, uint32_t *out) {
    void *v = tv_map_get(&g->terms, t, tl);
    if (v) { *out = (uint32_t)((uintptr_t)v - 1); return TROVE_OK; }
    uint32_t id = include_term(g, t, tl) ? (uint32_t)g->tids.len : UINT32_MAX;
    if (id != UINT32_MAX) {
        termref r = {t, (uint32_t)tl};
        if (tv_vec_push(&g->tids, r)) return c_oom(g);
    }
    if (tv_map_put(&g->terms, t, tl, (void *)(uintptr_t)((uintptr_t)id + 1), NULL)) return c_oom(g);
    *out = id;
    return TROVE_OK;
}

static bool num_included(col *g, int64_t v) {
    if (!g->ninc && !g->nexc) return true;
    char buf[64];
    size_t l;
    if (g->kk == TV_KEY_DOUBLE) l = tv_fmt_double(tv_agg_value_double(g->f, v), buf);
    else if (g->kk == TV_KEY_ULONG) l = (size_t)snprintf(buf, sizeof buf, "%llu", (unsigned long long)tv_sortable_to_unsigned(v));
    else l = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)v);
    return include_term(g, buf, l);
}

/* The segment's counts into the buckets (term ids as collect_terms finds
 * them), then zero: each ord costs one term lookup per segment instead of
 * one per doc, as Lucene's low-cardinality ordinal collector does. */
static tv_status fold_counts(col *g) {
    for (uint32_t so = 0; so < g->segcnt_n; so++) {
        uint32_t c = g->segcnt[so], id;
        if (!c) continue;
        g->segcnt[so] = 0;
        if (so < g->segmap_n && g->segmap[so]) id = g->segmap[so] - 1;
        else {
            const char *t;
            size_t tl;
            if (!tv_segment_dv_term(g->sv->seg, g->f->id, so, &t, &tl)) continue;
            if (term_id(g, t, tl, &id)) return c_oom(g);
            if (so < g->segmap_n) g->segmap[so] = id + 1;
        }
        if (id == UINT32_MAX) continue;
        if ((size_t)id >= g->direct.len) {
            size_t need = (size_t)id + 1;
            if (tv_vec_reserve(&g->direct, need)) return c_oom(g);
            memset(g->direct.items + g->direct.len, 0, (need - g->direct.len) * sizeof *g->direct.items);
            g->direct.len = need;
        }
        uint32_t *slot = &g->direct.items[id];
        if (!*slot) {
            bkt x = {0, id, 0};
            if (tv_vec_push(&g->b, x)) return c_oom(g);
            *slot = (uint32_t)g->b.len;
        }
        g->b.items[*slot - 1].count += c;
    }
    return TROVE_OK;
}

static tv_status collect_terms(col *g, uint32_t doc, uint64_t ord) {
    if (g->kk == TV_KEY_BYTES) {
        uint32_t n = ords_of(g, doc);
        if (g->counting && n) {
            for (uint32_t i = 0; i < n; i++)
                if (g->ords[i] < g->segcnt_n) g->segcnt[g->ords[i]]++;
            return TROVE_OK;
        }
        if (!n) {
            if (!g->has_missing) return TROVE_OK;
            uint32_t id;
            if (term_id(g, g->miss_s, g->miss_len, &id)) return c_oom(g);
            return id == UINT32_MAX ? TROVE_OK : bucket_hit(g, doc, ord, id);
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t so = g->ords[i], id;
            if (so < g->segmap_n && g->segmap[so]) id = g->segmap[so] - 1;
            else {
                const char *t;
                size_t tl;
                if (!seg_term(g, so, &t, &tl)) continue;
                if (term_id(g, t, tl, &id)) return c_oom(g);
                if (so < g->segmap_n) g->segmap[so] = id + 1;
            }
            if (id == UINT32_MAX) continue;
            tv_status st = bucket_hit(g, doc, ord, id);
            if (st) return st;
        }
        return TROVE_OK;
    }
    const int64_t *v;
    uint32_t n = nums(g, g->f, doc, &v);
    for (uint32_t i = 0; i < n; i++) {
        if (i && v[i] == v[i - 1]) continue;
        int64_t key = v[i];
        if (g->kk == TV_KEY_DOUBLE) key = tv_double_to_sortable(tv_agg_value_double(g->f, v[i]));
        if (!num_included(g, v[i])) continue;
        tv_status st = bucket_hit(g, doc, ord, key);
        if (st) return st;
    }
    return TROVE_OK;
}

/* ----------------------------------------------------------- histograms */

/*
 * histogram and date_histogram on a range field (RangeHistogramAggregator,
 * DateRangeHistogramAggregator): each of a doc's ranges, in stored order
 * (by lower bound), counts the doc once in every bucket from its lower
 * bound's key to its upper bound's, clipped to hard_bounds; keys an
 * earlier range of the doc reached are not counted again. A range that
 * would span more than search.max_buckets keys is refused (OpenSearch
 * would try to collect them all).
 */
static tv_status collect_range_histogram(col *g, uint32_t doc, uint64_t ord) {
    const tv_agg *a = g->a;
    uint32_t n = ords_of(g, doc);
    bool date = a->kind == TV_AGG_DATE_HISTOGRAM;
    bool have_prev = false;
    double prevd = 0;
    int64_t prevk = 0;
    int64_t limit = g->ctx->max_buckets >= 0 ? g->ctx->max_buckets : 65535;
    tv_field_type rt = g->f->range_type;
    for (uint32_t i = 0; i < n; i++) {
        const char *t;
        size_t tl;
        if (!tv_segment_dv_term(g->sv->seg, g->f->id, g->ords[i], &t, &tl) || tl != 16) continue;
        int64_t lo = tv_range_decode_bound((const uint8_t *)t), hi = tv_range_decode_bound((const uint8_t *)t + 8);
        if (date) {
            if (a->has_hard && a->hard_min && (double)lo < a->hard_min_d) lo = (int64_t)a->hard_min_d;
            if (a->has_hard && a->hard_max && (double)hi > a->hard_max_d) hi = (int64_t)a->hard_max_d;
            if (lo > hi) continue;
            int64_t start = tv_rounding_round(&g->rnd, lo), end = tv_rounding_round(&g->rnd, hi);
            int64_t steps = 0;
            for (int64_t key = have_prev && prevk > start ? prevk : start; key <= end;
                 key = tv_rounding_next(&g->rnd, key)) {
                if (have_prev && key == prevk) continue;
                if (++steps > limit) goto too_many;
                tv_status st = bucket_hit(g, doc, ord, key);
                if (st) return st;
            }
            if (!have_prev || end > prevk) prevk = end;
            have_prev = true;
        } else {
            bool fl = rt == TV_FT_FLOAT || rt == TV_FT_DOUBLE;
            double from = fl ? tv_sortable_to_double(lo) : (double)lo;
            double to = fl ? tv_sortable_to_double(hi) : (double)hi;
            if (a->has_hard && a->hard_min && from < a->hard_min_d) from = a->hard_min_d;
            if (a->has_hard && a->hard_max && to > a->hard_max_d) to = a->hard_max_d;
            double start = floor((from - a->offset) / a->interval), end = floor((to - a->offset) / a->interval);
            if (!(end - start < (double)limit)) goto too_many;
            for (double key = have_prev && prevd > start ? prevd : start; key <= end; key++) {
                if (have_prev && key == prevd) continue;
                tv_status st = bucket_hit(g, doc, ord, tv_double_to_sortable(key * a->interval + a->offset));
                if (st) return st;
            }
            if (!have_prev || end > prevd) prevd = end;
            have_prev = true;
        }
    }
    return TROVE_OK;
too_many:
    tv_error_set(g->ctx->err, TROVE_EUNSUPPORTED,
                 "a [%s] over a range of field [%s] that spans more than [%lld] buckets is not supported by trove",
                 a->type_name, g->f->path, (long long)limit);
    return shard_err(g);
}

static tv_status collect_histogram(col *g, uint32_t doc, uint64_t ord) {
    if (g->f && g->f->type == TV_FT_RANGE) return collect_range_histogram(g, doc, ord);
    const int64_t *v;
    uint32_t n = nums(g, g->f, doc, &v);
    bool have_prev = false;
    int64_t prev = 0;
    const tv_agg *a = g->a;
    for (uint32_t i = 0; i < n; i++) {
        int64_t key;
        if (a->kind == TV_AGG_DATE_HISTOGRAM) {
            int64_t ms = g->f && g->f->type == TV_FT_DATE_NANOS ? v[i] / 1000000 - (v[i] % 1000000 < 0) : v[i];
            if (g->f && g->f->dv_kind == TV_DV_NUMERIC && g->f->type != TV_FT_DATE && g->f->type != TV_FT_DATE_NANOS)
                ms = (int64_t)tv_agg_value_double(g->f, v[i]);
            key = tv_rounding_round(&g->rnd, ms);
            if (a->has_hard && ((a->hard_min && (double)key < a->hard_min_d) || (a->hard_max && (double)key > a->hard_max_d))) continue;
        } else {
            double x = tv_agg_value_double(g->f, v[i]);
            /* Math.floor((value - offset) / interval) * interval + offset */
            double k = floor((x - a->offset) / a->interval) * a->interval + a->offset;
            if (a->has_hard && ((a->hard_min && k < a->hard_min_d) || (a->hard_max && k > a->hard_max_d))) continue;
            key = tv_double_to_sortable(k);
        }
        if (have_prev && key == prev) continue;
        have_prev = true;
        prev = key;
        tv_status st = bucket_hit(g, doc, ord, key);
        if (st) return st;
    }
    return TROVE_OK;
}

/* Is the key new at the current rung? Inserted in order if so. */
static int adh_add_key(col *g, int64_t key, bool *added) {
    size_t lo = 0, hi = g->adh_keys.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->adh_keys.items[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    *added = false;
    if (lo < g->adh_keys.len && g->adh_keys.items[lo] == key) return 0;
    if (tv_vec_push(&g->adh_keys, key)) return -1;
    memmove(&g->adh_keys.items[lo + 1], &g->adh_keys.items[lo], (g->adh_keys.len - 1 - lo) * sizeof *g->adh_keys.items);
    g->adh_keys.items[lo] = key;
    *added = true;
    return 0;
}

/* AutoDateHistogramAggregator.FromSingle.increaseRoundingIfNeeded: past
 * buckets * the rung's largest inner interval keys, or a key span past
 * buckets * that many rough durations, climb; the keys collected so far
 * stay at their rung (their buckets merge in the reduce, as OpenSearch's
 * merge of bucket ordinals sums them). */
static tv_status adh_climb(col *g, int64_t rounded) {
    const tv_agg *a = g->a;
    int levels = tv_adh_levels(a);
    if (g->adh_idx >= levels - 1) return TROVE_OK;
    if (rounded < g->adh_min) g->adh_min = rounded;
    if (rounded > g->adh_max) g->adh_max = rounded;
#define ADH_OVER(i) ((int64_t)g->adh_keys.len > a->size * tv_adh_max_inner(a, (i)) || \
                     (double)g->adh_max - (double)g->adh_min > (double)a->size * (double)tv_adh_max_inner(a, (i)) * (double)tv_adh_rough_ms(a, (i)))
    if (!ADH_OVER(g->adh_idx)) return TROVE_OK;
    do {
        g->adh_idx++;
        tv_adh_rounding(a, g->adh_idx, g->tz, &g->adh_rnd);
        size_t k = 0;
        for (size_t i = 0; i < g->adh_keys.len; i++) {
            int64_t nk = tv_rounding_round(&g->adh_rnd, g->adh_keys.items[i]);
            if (k && g->adh_keys.items[k - 1] == nk) continue;
            g->adh_keys.items[k++] = nk;
        }
        g->adh_keys.len = k;
    } while (g->adh_idx < levels - 1 && ADH_OVER(g->adh_idx));
#undef ADH_OVER
    return TROVE_OK;
}

static tv_status collect_auto_date(col *g, uint32_t doc, uint64_t ord) {
    const int64_t *v;
    uint32_t n = nums(g, g->f, doc, &v);
    int64_t prev = INT64_MIN;
    for (uint32_t i = 0; i < n; i++) {
        int64_t ms = g->f && g->f->type == TV_FT_DATE_NANOS ? v[i] / 1000000 - (v[i] % 1000000 < 0) : v[i];
        if (g->f && g->f->dv_kind == TV_DV_NUMERIC && g->f->type != TV_FT_DATE && g->f->type != TV_FT_DATE_NANOS)
            ms = (int64_t)tv_agg_value_double(g->f, v[i]);
        int64_t key = tv_rounding_round(&g->adh_rnd, ms);
        if (i && key == prev) continue;
        prev = key;
        bool added;
        if (adh_add_key(g, key, &added)) return c_oom(g);
        tv_status st = bucket_hit(g, doc, ord, key);
        if (st) return st;
        if (added && (st = adh_climb(g, key))) return st;
    }
    return TROVE_OK;
}

/* geo_distance: a point's distance from the origin, in the unit
 * (GeoDistance.calculate(origin, point, unit)). */
static double geo_dist(const tv_agg *a, int64_t packed) {
    double lat, lon;
    tv_geo_decode(packed, &lat, &lon);
    double m = a->geo_plane ? tv_geo_plane_meters(a->geo_lat, a->geo_lon, lat, lon)
                            : tv_geo_arc_meters(a->geo_lat, a->geo_lon, lat, lon);
    return tv_geo_from_meters(m, a->geo_unit_m);
}

static tv_status collect_range(col *g, uint32_t doc, uint64_t ord) {
    const int64_t *v;
    uint32_t n = nums(g, g->f, doc, &v);
    if (!n) return TROVE_OK;
    for (uint32_t r = 0; r < g->a->nranges; r++) {
        bool hit = false;
        for (uint32_t i = 0; i < n && !hit; i++) {
            double x = g->a->geo ? geo_dist(g->a, v[i]) : tv_agg_value_double(g->f, v[i]);
            hit = x >= g->from[r] && x < g->to[r];
        }
        if (!hit) continue;
        tv_status st = bucket_hit(g, doc, ord, r);
        if (st) return st;
    }
    return TROVE_OK;
}

static bool iter_matches(tv_iter *it, uint32_t doc) {
    if (!it) return false;
    if (it->doc == TV_ITER_UNSET || it->doc < doc) tv_iter_advance(it, doc);
    return it->doc == doc;
}

/*
 * Tuple keys (composite, multi_terms). Each component is encoded so that
 * memcmp of the concatenation orders tuples as the aggregation orders
 * them: a presence byte (0 missing, 1 value), then a long or a double's
 * sortable bits as 8 big-endian bytes with the sign bit flipped, or bytes
 * with 0x00 escaped as 00 FF and ended by 00 00; a descending component
 * has every byte inverted. Decoding (result.c) reverses it.
 */
static void enc_u64(tv_buf *b, uint64_t u) {
    for (int i = 7; i >= 0; i--) tv_buf_putc(b, (char)(unsigned char)(u >> (i * 8)));
}

static void enc_component(const col *sc, bool has, int64_t key, bool desc, tv_buf *b) {
    size_t start = b->len;
    tv_buf_putc(b, has ? 1 : 0);
    if (has) {
        if (sc->kk == TV_KEY_BYTES) {
            const termref *t = &sc->tids.items[key];
            for (uint32_t i = 0; i < t->len; i++) {
                tv_buf_putc(b, t->s[i]);
                if (!t->s[i]) tv_buf_putc(b, (char)0xff);
            }
            tv_buf_putc(b, 0);
            tv_buf_putc(b, 0);
        } else {
            enc_u64(b, (uint64_t)key ^ 0x8000000000000000ull);
        }
    }
    if (desc)
        for (size_t i = start; i < b->len; i++) b->data[i] = (char)~(unsigned char)b->data[i];
}

/* The tuples of a doc: the product of each source's keys. */
static tv_status collect_tuple(col *g, uint32_t doc, uint64_t ord) {
    const tv_agg *a = g->a;
    uint32_t idx[16] = {0};
    if (g->ntcols > 16) return TROVE_OK;
    for (uint32_t i = 0; i < g->ntcols; i++) {
        col *sc = g->tcols[i];
        sc->ekeys.len = 0;
        tv_status st = sc->unmapped && !sc->has_missing ? TROVE_OK : collect(sc, doc, 0);
        if (st) return st;
        if (!sc->ekeys.len && !a->tsrc[i].missing_bucket) return TROVE_OK; /* no value: no bucket */
    }
    for (;;) {
        tv_buf_clear(&g->tuple);
        for (uint32_t i = 0; i < g->ntcols; i++) {
            col *sc = g->tcols[i];
            bool has = sc->ekeys.len > 0;
            enc_component(sc, has, has ? sc->ekeys.items[idx[i]] : 0, a->tsrc[i].desc, &g->tuple);
        }
        if (g->tuple.oom) return c_oom(g);
        const char *tk = g->tuple.data;
        size_t tl = g->tuple.len;
        uint32_t id;
        if (!tv_map_get(&g->terms, tk, tl)) {
            tk = tv_arena_memdup(g->ctx->arena, tk, tl); /* the map borrows its keys */
            if (!tk) return c_oom(g);
        }
        if (term_id(g, tk, tl, &id)) return c_oom(g);
        tv_status st = bucket_hit(g, doc, ord, id);
        if (st) return st;
        /* next combination */
        uint32_t i = 0;
        for (; i < g->ntcols; i++) {
            size_t n = g->tcols[i]->ekeys.len;
            if (n && ++idx[i] < n) break;
            idx[i] = 0;
        }
        if (i == g->ntcols) return TROVE_OK;
    }
}

/* NestedAggregator: doc is a parent-scope doc; its children of npath are
 * the npath docs after the previous parent-scope doc. */
static tv_status collect_nested(col *g, uint32_t doc, uint64_t ord) {
    if (!g->ncb.words || !g->npb.words) return TROVE_OK;
    size_t prev = tv_bitset_prev(&g->npb, doc);
    for (size_t c = tv_bitset_next(&g->ncb, prev == SIZE_MAX ? 0 : prev + 1); c < doc; c = tv_bitset_next(&g->ncb, c + 1)) {
        tv_status st = bucket_hit(g, (uint32_t)c, ord, 0);
        if (st) return st;
    }
    return TROVE_OK;
}

/* ReverseNestedAggregator: the parent above doc, counted once per bucket
 * (docs arrive ascending, so a parent's children are consecutive). */
static tv_status collect_reverse_nested(col *g, uint32_t doc, uint64_t ord) {
    if (!g->npb.words) return TROVE_OK;
    size_t p = tv_bitset_next(&g->npb, doc);
    if (p == SIZE_MAX) return TROVE_OK;
    while (g->rn_last.len <= ord)
        if (tv_vec_push(&g->rn_last, UINT32_MAX)) return c_oom(g);
    if (g->rn_last.items[ord] == (uint32_t)p) return TROVE_OK;
    g->rn_last.items[ord] = (uint32_t)p;
    return bucket_hit(g, (uint32_t)p, ord, 0);
}

/* ------------------------------------------------------ significant terms */

/*
 * significant_text (SignificantTextAggregatorFactory's collector): the
 * values at each source field of the doc's _source (extractRawValues:
 * dotted keys or objects, arrays flattened) are analysed with the field's
 * index analyzer; each term counts once per doc, after the duplicate
 * filter (filter_duplicate_text) and include/exclude.
 */
static void raw_values(const tv_json *part, const char *path, tv_json const ***vals, size_t *n, size_t *cap,
                       tv_arena *ar);

static void raw_push(const tv_json *v, tv_json const ***vals, size_t *n, size_t *cap, tv_arena *ar) {
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        const tv_json **nv = tv_arena_alloc(ar, nc * sizeof *nv);
        if (!nv) return;
        if (*n) memcpy(nv, *vals, *n * sizeof *nv);
        *vals = nv;
        *cap = nc;
    }
    (*vals)[(*n)++] = v;
}

static void raw_list(const tv_json *list, const char *path, tv_json const ***vals, size_t *n, size_t *cap,
                     tv_arena *ar) {
    for (uint32_t i = 0; i < list->len; i++) {
        const tv_json *e = &list->v.items[i];
        if (e->type == TV_JSON_NULL) continue;
        if (e->type == TV_JSON_OBJECT) raw_values(e, path, vals, n, cap, ar);
        else if (e->type == TV_JSON_ARRAY) raw_list(e, path, vals, n, cap, ar);
        else raw_push(e, vals, n, cap, ar);
    }
}

/* XContentMapValues.extractRawValues over the rest of the path: the
 * longest run of path elements joined by dots that names a key (last
 * duplicate wins, as in a map), shortest first. */
static void raw_values(const tv_json *part, const char *path, tv_json const ***vals, size_t *n, size_t *cap,
                       tv_arena *ar) {
    if (!*path) return;
    size_t plen = strlen(path);
    for (size_t end = 0; end <= plen; end++) {
        if (end < plen && path[end] != '.') continue;
        const tv_json *cur = NULL;
        for (uint32_t i = 0; i < part->len; i++) {
            const tv_json_member *m = &part->v.members[i];
            if (m->key_len == end && !memcmp(m->key, path, end)) cur = &m->val;
        }
        if (!cur || cur->type == TV_JSON_NULL) continue;
        const char *rest = end < plen ? path + end + 1 : "";
        if (cur->type == TV_JSON_OBJECT) raw_values(cur, rest, vals, n, cap, ar);
        else if (cur->type == TV_JSON_ARRAY) raw_list(cur, rest, vals, n, cap, ar);
        else raw_push(cur, vals, n, cap, ar);
        return;
    }
}

static tv_status sig_text_term(col *g, uint32_t doc, uint64_t ord, const char *t, size_t tl, tv_map *seen) {
    if (tv_map_get(seen, t, tl)) return TROVE_OK;
    if (tv_map_put(seen, t, tl, (void *)1, NULL)) return c_oom(g);
    uint32_t id;
    if (!tv_map_get(&g->terms, t, tl)) {
        /* the term outlives the doc: copied into the request's arena */
        char *c = tv_arena_memdup(g->ctx->arena, t, tl);
        if (!c) return c_oom(g);
        t = c;
    }
    if (term_id(g, t, tl, &id)) return c_oom(g);
    if (id == UINT32_MAX) return TROVE_OK;
    return bucket_hit(g, doc, ord, id);
}

static tv_status collect_sig_text(col *g, uint32_t doc, uint64_t ord) {
    tv_arena *ar = &g->scratch;
    tv_arena_reset(ar);
    const char *src;
    size_t slen;
    tv_doc_meta meta;
    tv_stored_cache_init(&g->cache);
    if (tv_segment_doc(g->sv->seg, doc, ar, &meta, &src, &slen)) return c_oom(g);
    tv_dup_spotter *sp = NULL;
    if (g->a->filter_dup) {
        if (ord >= g->nspot) {
            size_t nc = TV_MAX((size_t)ord + 1, g->nspot * 2);
            tv_dup_spotter **ns = tv_realloc(g->spot, nc * sizeof *ns);
            if (!ns) return c_oom(g);
            memset(ns + g->nspot, 0, (nc - g->nspot) * sizeof *ns);
            g->spot = ns;
            g->nspot = nc;
        }
        if (!g->spot[ord] && !(g->spot[ord] = tv_dup_spotter_new())) return c_oom(g);
        sp = g->spot[ord];
    }
    tv_json *root = NULL;
    if (src && slen && tv_json_parse(ar, src, slen, &root, NULL) != TROVE_OK) root = NULL;
    tv_map seen;
    tv_map_init_borrowed(&seen);
    tv_status st = TROVE_OK;
    uint32_t nf = g->a->source_fields ? g->a->nsource_fields : 1;
    for (uint32_t fi = 0; fi < nf && !st && root && root->type == TV_JSON_OBJECT; fi++) {
        /* (an alias reads its target's source, as its MappedFieldType is the target's) */
        const char *path = g->a->source_fields ? g->a->source_fields[fi] : g->f ? tv_field_resolve(g->f)->path : g->a->src.field;
        const tv_json **vals = NULL;
        size_t n = 0, cap = 0;
        raw_values(root, path, &vals, &n, &cap, ar);
        if (n && !g->f) {
            /* an unmapped field has no analyzer (OpenSearch fails on the
             * first value it finds) */
            tv_error_set(g->ctx->err, TROVE_EUNSUPPORTED,
                         "[significant_text] on the unmapped field [%s] is not supported by trove", g->a->src.field);
            st = shard_err(g);
            break;
        }
        for (size_t i = 0; i < n && !st; i++) {
            const tv_json *v = vals[i];
            const char *text;
            size_t tl;
            char nb[40];
            if (v->type == TV_JSON_STRING) { text = v->v.s; tl = v->len; }
            else if (v->type == TV_JSON_DOUBLE) { tl = tv_fmt_double(v->v.d, nb); text = nb; }
            else if (!tv_dsl_scalar_text(v, &text, &tl)) continue;
            tv_tokens toks;
            /* the index analyzer: a keyword field's is its normalizer or the keyword analyzer */
            const tv_analyzer *an = g->f->analyzer;
            if (!tv_field_type_is_text(g->f->type)) an = g->f->normalizer ? g->f->normalizer : tv_analyzer_builtin("keyword", 7);
            if (!an || tv_analyze(an, ar, text, tl, 0, &toks)) { st = c_oom(g); break; }
            bool *keep = NULL;
            if (sp) {
                keep = tv_arena_alloc(ar, toks.len + 1);
                if (!keep || tv_dup_filter(sp, &toks, keep)) { st = c_oom(g); break; }
            }
            for (size_t k = 0; k < toks.len && !st; k++) {
                if (keep && !keep[k]) continue;
                st = sig_text_term(g, doc, ord, toks.items[k].term, toks.items[k].term_len, &seen);
            }
        }
    }
    tv_map_fini(&seen);
    if (sp) tv_dup_spotter_new_sequence(sp);
    return st;
}

static tv_status collect_significant(col *g, uint32_t doc, uint64_t ord) {
    if (ord >= g->subset.len) {
        size_t need = (size_t)ord + 1;
        if (tv_vec_reserve(&g->subset, need)) return c_oom(g);
        memset(g->subset.items + g->subset.len, 0, (need - g->subset.len) * sizeof *g->subset.items);
        g->subset.len = need;
    }
    g->subset.items[ord]++;
    if (g->a->kind == TV_AGG_SIGNIFICANT_TEXT) return collect_sig_text(g, doc, ord);
    if (g->unmapped && !g->has_missing) return TROVE_OK;
    return collect_terms(g, doc, ord);
}

/* A doc's distinct values, ascending (doc values are sorted, and every
 * numeric encoding keeps the order), into the clustering. */
static tv_status collect_vwh(col *g, uint32_t doc) {
    const int64_t *v;
    uint32_t n = nums(g, g->f, doc, &v);
    double prev = -INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        double x = tv_agg_value_double(g->f, v[i]);
        if (x == prev) continue;
        prev = x;
        if (tv_vwh_add(&g->vwh, x)) return c_oom(g);
    }
    return TROVE_OK;
}

static tv_status collect(col *g, uint32_t doc, uint64_t ord) {
    switch (g->a->kind) {
    case TV_AGG_SIGNIFICANT_TERMS:
    case TV_AGG_SIGNIFICANT_TEXT: return collect_significant(g, doc, ord);
    case TV_AGG_VARIABLE_WIDTH_HISTOGRAM: return g->unmapped && !g->has_missing ? TROVE_OK : collect_vwh(g, doc);
    case TV_AGG_COMPOSITE:
    case TV_AGG_MULTI_TERMS: return collect_tuple(g, doc, ord);
    case TV_AGG_TERMS: return g->unmapped && !g->has_missing ? TROVE_OK : collect_terms(g, doc, ord);
    case TV_AGG_HISTOGRAM:
    case TV_AGG_DATE_HISTOGRAM: return g->unmapped && !g->has_missing ? TROVE_OK : collect_histogram(g, doc, ord);
    case TV_AGG_AUTO_DATE_HISTOGRAM: return g->unmapped && !g->has_missing ? TROVE_OK : collect_auto_date(g, doc, ord);
    case TV_AGG_RANGE:
    case TV_AGG_DATE_RANGE: return g->unmapped && !g->has_missing ? TROVE_OK : collect_range(g, doc, ord);
    case TV_AGG_FILTER:
        if (!iter_matches(g->its[0], doc)) return TROVE_OK;
        return bucket_hit(g, doc, ord, 0);
    case TV_AGG_FILTERS: {
        bool any = false;
        for (uint32_t i = 0; i < g->nq; i++) {
            if (!iter_matches(g->its[i], doc)) continue;
            any = true;
            tv_status st = bucket_hit(g, doc, ord, i);
            if (st) return st;
        }
        if (!any && g->a->other_bucket) return bucket_hit(g, doc, ord, g->nq);
        return TROVE_OK;
    }
    case TV_AGG_ADJACENCY_MATRIX: {
        /* AdjacencyMatrixAggregator: a bucket per matching filter, then
         * one per matching pair i < j (slot n + the pair's rank) */
        uint32_t n = g->nq, nh = 0, *hits = g->adj_hits;
        for (uint32_t i = 0; i < n; i++) {
            if (!iter_matches(g->its[i], doc)) continue;
            hits[nh++] = i;
            tv_status st = bucket_hit(g, doc, ord, i);
            if (st) return st;
        }
        for (uint32_t x = 0; x < nh; x++)
            for (uint32_t y = x + 1; y < nh; y++) {
                uint64_t i = hits[x], j = hits[y];
                uint64_t pos = n + i * n - i * (i + 1) / 2 + (j - i - 1);
                tv_status st = bucket_hit(g, doc, ord, (int64_t)pos);
                if (st) return st;
            }
        return TROVE_OK;
    }
    case TV_AGG_MISSING:
        if (doc_has_value(g, doc)) return TROVE_OK;
        return bucket_hit(g, doc, ord, 0);
    case TV_AGG_GLOBAL: return bucket_hit(g, doc, ord, 0);
    case TV_AGG_NESTED: return collect_nested(g, doc, ord);
    case TV_AGG_REVERSE_NESTED: return collect_reverse_nested(g, doc, ord);
    /* a sampler's doc joins its parent's sample (the best shard_size by
     * score, a top_hits list); the sub-aggregations see the samples when
     * the shard finishes (replay_samples) */
    case TV_AGG_SAMPLER: return collect_top_hits(g, doc, ord, (size_t)g->a->shard_size);
    case TV_AGG_TOP_HITS: return collect_top_hits(g, doc, ord, (size_t)(g->a->th_from + g->a->th_size));
    default: return collect_metric(g, doc, ord);
    }
}

/* -------------------------------------------------------------- binding */

static tv_status field_error(col *g, const char *fmt, ...) TV_PRINTF(2, 3);
static tv_status field_error(col *g, const char *fmt, ...) {
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tv_error_set(g->ctx->err, TROVE_EARG, "%s", buf);
    return shard_err(g);
}

static tv_status unsupported_type(col *g) {
    return field_error(g, "Field [%s] of type [%s] is not supported for aggregation [%s]", g->f->path,
                       tv_field_type_name(g->f->type), g->a->type_name);
}

static bool is_numeric_like(const tv_field *f) {
    return tv_field_type_is_numeric(f->type) || f->type == TV_FT_DATE || f->type == TV_FT_DATE_NANOS ||
           f->type == TV_FT_BOOLEAN;
}

/* The format values print with (ValuesSourceConfig's DocValueFormat). */
static void bind_format(col *g, const char *format) {
    const tv_field *f = g->f;
    g->fmt.kind = TV_FMT_RAW;
    if (f && (f->type == TV_FT_DATE || f->type == TV_FT_DATE_NANOS)) {
        g->fmt.kind = TV_FMT_DATE;
        g->fmt.pattern = format ? format : f->format ? f->format : TV_DATE_DEFAULT_FORMAT;
        if (!format && f->type == TV_FT_DATE_NANOS && !f->format) g->fmt.pattern = TV_DATE_NANOS_DEFAULT_FORMAT;
        g->fmt.tz = g->tz;
    } else if (f && f->type == TV_FT_BOOLEAN) {
        g->fmt.kind = TV_FMT_BOOL;
    } else if (f && f->type == TV_FT_IP) {
        g->fmt.kind = TV_FMT_IP;
    } else if (format && (!f || is_numeric_like(f))) {
        g->fmt.kind = TV_FMT_DECIMAL;
        g->fmt.pattern = format;
    }
}

/* The missing value in the field's doc-value encoding. */
static tv_status bind_missing(col *g, const tv_json *m) {
    if (!m || m->type == TV_JSON_NULL) return TROVE_OK;
    const tv_field *f = g->f;
    g->has_missing = true;
    const char *s;
    size_t l;
    if (!tv_dsl_scalar_text(m, &s, &l)) return field_error(g, "[missing] must be a scalar value");
    if (!f || f->dv_kind == TV_DV_SORTED_SET) {
        if (f && f->type == TV_FT_IP) {
            uint8_t *ip = tv_arena_alloc(g->ctx->arena, 16);
            if (!ip) return c_oom(g);
            if (!tv_ip_parse(s, l, ip)) return field_error(g, "'%.*s' is not an IP string literal.", (int)TV_MIN(l, 200), s);
            g->miss_s = (const char *)ip;
            g->miss_len = 16;
        } else {
            g->miss_s = s;
            g->miss_len = (uint32_t)l;
        }
        if (!f && tv_json_is_number(m)) g->miss_i = m->type == TV_JSON_INT ? m->v.i : tv_java_d2l(tv_json_as_double(m));
        return TROVE_OK;
    }
    if (f->type == TV_FT_DATE || f->type == TV_FT_DATE_NANOS) {
        int64_t ms;
        if (m->type == TV_JSON_INT) ms = m->v.i;
        else if (tv_date_math_tz(f->format, s, l, g->ctx->now_ms, false, g->tz, &ms, g->ctx->err)) return shard_err(g);
        g->miss_i = f->type == TV_FT_DATE_NANOS ? ms * 1000000 : ms;
        return TROVE_OK;
    }
    if (f->type == TV_FT_BOOLEAN) {
        if (m->type == TV_JSON_TRUE || tv_streq(s, l, "true")) g->miss_i = 1;
        else if (m->type == TV_JSON_FALSE || tv_streq(s, l, "false")) g->miss_i = 0;
        else return field_error(g, "Can't parse boolean value [%.*s], expected [true] or [false]", (int)TV_MIN(l, 200), s);
        return TROVE_OK;
    }
    double x;
    if (tv_json_is_number(m)) x = tv_json_as_double(m);
    else if (!tv_java_parse_double(s, l, &x)) {
        tv_dsl_nfe(g->d, s, l);
        return shard_err(g);
    }
    if (tv_field_type_is_floating(f->type)) g->miss_i = tv_double_to_sortable(x);
    else if (f->type == TV_FT_SCALED_FLOAT) g->miss_i = (int64_t)llround(x * f->scaling_factor);
    else if (f->type == TV_FT_UNSIGNED_LONG) {
        /* exact when the JSON number is an integer; else saturated, as a
         * double outside the range has no unsigned value */
        uint64_t u = m->type == TV_JSON_UINT                   ? m->v.u
                     : m->type == TV_JSON_INT && m->v.i >= 0   ? (uint64_t)m->v.i
                     : !(x > 0)                                ? 0
                     : x >= 18446744073709551615.0             ? UINT64_MAX
                                                               : (uint64_t)x;
        g->miss_i = tv_unsigned_to_sortable(u);
    } else if (m->type == TV_JSON_INT) {
        g->miss_i = m->v.i;
    } else {
        g->miss_i = tv_java_d2l(x); /* Java's (long): saturated, NaN 0 */
    }
    return TROVE_OK;
}

static tv_status compile_inc(col *g, const tv_json *v, bool inc) {
    if (!v) return TROVE_OK;
    tv_arena *ar = g->ctx->arena;
    if (v->type == TV_JSON_STRING) {
        tv_automaton *au;
        tv_status st = tv_regexp_compile(v->v.s, v->len, TV_RE_ALL, 10000, ar, &au, g->ctx->err);
        if (st) return shard_err(g);
        if (inc) g->inc_re = au;
        else g->exc_re = au;
        return TROVE_OK;
    }
    if (v->type == TV_JSON_ARRAY) {
        const char **vals = tv_arena_calloc(ar, v->len + 1, sizeof *vals);
        if (!vals) return c_oom(g);
        uint32_t n = 0;
        for (uint32_t i = 0; i < v->len; i++) {
            const char *s;
            size_t l;
            if (!tv_dsl_scalar_text(&v->v.items[i], &s, &l)) return field_error(g, "Unexpected token in [%s]", inc ? "include" : "exclude");
            vals[n++] = tv_arena_strndup(ar, s, l);
        }
        if (inc) { g->inc_vals = vals; g->ninc = n; }
        else { g->exc_vals = vals; g->nexc = n; }
        return TROVE_OK;
    }
    if (inc && v->type == TV_JSON_OBJECT) {
        const tv_json *p = tv_json_get(v, "partition"), *np = tv_json_get(v, "num_partitions");
        if (!p || !np || !tv_json_is_number(p) || !tv_json_is_number(np))
            return field_error(g, "Missing [partition] parameter for partition-based include");
        g->part = tv_java_d2l(tv_json_as_double(p));
        g->nparts = tv_java_d2l(tv_json_as_double(np));
        if (g->nparts <= 0 || g->part < 0 || g->part >= g->nparts)
            return field_error(g, "Invalid partition [%lld] for [%lld] partitions", (long long)g->part, (long long)g->nparts);
        return TROVE_OK;
    }
    return field_error(g, "Unrecognized token for an %s [%s]", inc ? "include" : "exclude", tv_dsl_token_name(v));
}

/* A date bound of a range / extended_bounds / hard_bounds: a number (ms)
 * or date math in the field's format and the aggregation's zone. */
static tv_status date_bound(col *g, const tv_json *v, double *out) {
    if (tv_json_is_number(v)) { *out = tv_json_as_double(v); return TROVE_OK; }
    const char *s;
    size_t l;
    if (!tv_dsl_scalar_text(v, &s, &l)) return field_error(g, "bad date bound");
    int64_t ms;
    const char *fmt = g->a->src.format ? g->a->src.format : g->f ? g->f->format : NULL;
    if (tv_date_math_tz(fmt, s, l, g->ctx->now_ms, false, g->tz, &ms, g->ctx->err)) return shard_err(g);
    *out = (double)ms;
    return TROVE_OK;
}

static tv_status num_bound(col *g, const tv_json *v, double *out) {
    if (tv_json_is_number(v)) { *out = tv_json_as_double(v); return TROVE_OK; }
    const char *s;
    size_t l;
    if (v->type == TV_JSON_STRING && tv_java_parse_double(s = v->v.s, l = v->len, out)) return TROVE_OK;
    if (v->type == TV_JSON_STRING) { tv_dsl_nfe(g->d, v->v.s, v->len); return shard_err(g); }
    return field_error(g, "bad numeric bound");
}

static tv_status bind(tv_agg_ctx *c, tv_dsl *d, const tv_agg *a, const tv_search_target *t, bool top, col **out);

/* composite "after": each source's value in its key encoding (a keyword's
 * bytes, a number in the field's encoding, a date by the source's format,
 * a histogram key as a double), null for a missing bucket. */
static tv_status encode_after(col *g) {
    const tv_agg *a = g->a;
    tv_buf b;
    tv_buf_init(&b);
    for (uint32_t i = 0; i < g->ntcols; i++) {
        col *sc = g->tcols[i];
        const tv_json *v = tv_json_get(a->after, a->tsrc[i].name);
        if (!v) {
            tv_buf_fini(&b);
            return field_error(g, "[after] has no value for source [%s]", a->tsrc[i].name);
        }
        size_t start = b.len;
        if (v->type == TV_JSON_NULL) {
            tv_buf_putc(&b, 0);
        } else if (sc->kk == TV_KEY_BYTES) {
            const char *s;
            size_t l;
            uint8_t ip[16];
            if (!tv_dsl_scalar_text(v, &s, &l)) { tv_buf_fini(&b); return field_error(g, "[after] values must be scalars"); }
            if (sc->f && sc->f->type == TV_FT_IP) {
                if (!tv_ip_parse(s, l, ip)) { tv_buf_fini(&b); return field_error(g, "'%.*s' is not an IP string literal.", (int)TV_MIN(l, 200), s); }
                s = (const char *)ip;
                l = 16;
            }
            tv_buf_putc(&b, 1);
            for (size_t k = 0; k < l; k++) {
                tv_buf_putc(&b, s[k]);
                if (!s[k]) tv_buf_putc(&b, (char)0xff);
            }
            tv_buf_putc(&b, 0);
            tv_buf_putc(&b, 0);
        } else {
            int64_t key;
            const tv_agg *n = a->tsrc[i].node;
            if (n->kind == TV_AGG_HISTOGRAM || sc->kk == TV_KEY_DOUBLE) {
                double x;
                if (tv_json_is_number(v)) x = tv_json_as_double(v);
                else if (!(v->type == TV_JSON_STRING && tv_java_parse_double(v->v.s, v->len, &x))) {
                    tv_buf_fini(&b);
                    return field_error(g, "[after] value for [%s] is not a number", a->tsrc[i].name);
                }
                key = tv_double_to_sortable(x);
            } else if (v->type == TV_JSON_INT) {
                key = v->v.i;
            } else if (v->type == TV_JSON_STRING && sc->f && (sc->f->type == TV_FT_DATE || sc->f->type == TV_FT_DATE_NANOS)) {
                const char *fmt = n->src.format ? n->src.format : sc->f->format;
                if (tv_date_parse_ex_tz(fmt, v->v.s, v->len, false, sc->tz, &key, g->ctx->err)) { tv_buf_fini(&b); return shard_err(g); }
            } else if (v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE) {
                key = v->type == TV_JSON_TRUE;
            } else if (tv_json_is_number(v)) {
                key = tv_java_d2l(tv_json_as_double(v));
            } else {
                tv_buf_fini(&b);
                return field_error(g, "[after] value for [%s] is not a number", a->tsrc[i].name);
            }
            tv_buf_putc(&b, 1);
            enc_u64(&b, (uint64_t)key ^ 0x8000000000000000ull);
        }
        if (a->tsrc[i].desc)
            for (size_t k = start; k < b.len; k++) b.data[k] = (char)~(unsigned char)b.data[k];
    }
    if (b.oom) { tv_buf_fini(&b); return c_oom(g); }
    g->after_enc = tv_arena_memdup(g->ctx->arena, b.data, b.len);
    g->after_len = (uint32_t)b.len;
    tv_buf_fini(&b);
    return g->after_enc ? TROVE_OK : c_oom(g);
}

/* nested / reverse_nested on the shard (NestedAggregationBuilder.doBuild,
 * ReverseNestedAggregationBuilder.doBuild): the path's mapper, the nested
 * scope the sub-aggregations bind in. */
static tv_status bind_nested(col *g, tv_dsl *d) {
    const tv_agg *a = g->a;
    bool rev = a->kind == TV_AGG_REVERSE_NESTED;
    if (rev && d->nested_aggs == 0) {
        tv_error_set(g->ctx->err, TROVE_EARG,
                     "Reverse nested aggregation [%s] can only be used inside a [nested] aggregation", a->name);
        return shard_err(g);
    }
    const tv_field *p = a->nested_path ? tv_dsl_field(d, a->nested_path, strlen(a->nested_path)) : NULL;
    if (a->nested_path && !p) {
        g->nunmapped = true; /* an unmapped path: no docs */
        return TROVE_OK;
    }
    if (p && (p->type != TV_FT_OBJECT || !p->nested)) {
        tv_error_set(g->ctx->err, TROVE_EINTERNAL, "[%s] nested path [%s] is not nested", rev ? "reverse_nested" : "nested",
                     a->nested_path);
        tv_error_as(g->ctx->err, TROVE_EAGGEXEC);
        return shard_err(g);
    }
    g->npath = p;
    /* NestedAggregator's parent filter: the enclosing scope's docs when
     * that object is above the path (isParent), else the roots */
    g->nscope = NULL;
    for (const tv_field *x = p ? p->nested_scope : NULL; x; x = x->nested_scope)
        if (x == d->nested_scope) g->nscope = x;
    return TROVE_OK;
}

static tv_status bind_subs(col *g) {
    const tv_agg *a = g->a;
    if (!a->nsubs) return TROVE_OK;
    g->subs = tv_arena_calloc(g->ctx->arena, a->nsubs, sizeof *g->subs);
    if (!g->subs) return c_oom(g);
    g->nsubs = a->nsubs;
    /* below nested / reverse_nested, fields and filters are read in the
     * path's docs */
    bool nest = a->kind == TV_AGG_NESTED || a->kind == TV_AGG_REVERSE_NESTED;
    const tv_field *scope = g->d->nested_scope;
    if (nest) {
        g->d->nested_scope = g->npath;
        g->d->nested_aggs += a->kind == TV_AGG_NESTED;
    }
    tv_status st = TROVE_OK;
    /* below a top-level single-bucket aggregation the parent ord is
     * always 0 too (its one bucket), so its subs keep top's fast paths */
    bool sub_top = g->top && tv_agg_is_single_bucket(a->kind);
    for (uint32_t i = 0; i < a->nsubs && !st; i++) {
        if (tv_agg_is_pipeline(a->subs[i]->kind)) continue;
        st = bind(g->ctx, g->d, a->subs[i], g->t, sub_top, &g->subs[i]);
    }
    if (nest) {
        g->d->nested_scope = scope;
        g->d->nested_aggs -= a->kind == TV_AGG_NESTED;
    }
    return st;
}

/*
 * significant_terms / significant_text on a target, checks in
 * SignificantTermsAggregatorFactory's order: text fields need fielddata
 * (then their terms are uninverted per segment); the field must be
 * searchable; keyword, ip and text give string keys, integers, dates and
 * booleans long keys, floating point numbers are refused; execution_hint;
 * regular-expression include/exclude only on plain strings.
 * significant_text re-analyses _source with the field's index analyzer.
 */
static tv_status bind_significant(col *g, tv_dsl *d) {
    const tv_agg *a = g->a;
    const tv_field *f = g->f;
    tv_agg_ctx *c = g->ctx;
    tv_status st;
    bool text = a->kind == TV_AGG_SIGNIFICANT_TEXT;
    g->kk = TV_KEY_BYTES;
    if (text) {
        if (f && !tv_field_type_is_text(f->type) && f->type != TV_FT_KEYWORD)
            return field_error(g, "Field [%s] has no analyzer, but SignificantText requires an analyzed field", f->path);
        if (!g->scratch_init) {
            tv_arena_init(&g->scratch);
            g->scratch_init = true;
        }
    } else if (f) {
        bool is_text = tv_field_type_is_text(f->type);
        if (is_text && !tv_field_fielddata(f)) {
            tv_error_set(c->err, TROVE_EARG,
                         "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [%s] in order to load field data by uninverting the inverted index. Note that this can use significant memory.",
                         f->path);
            return shard_err(g);
        }
        if (!is_text && f->dv_kind == TV_DV_NONE)
            return field_error(g, "Can't load fielddata on [%s] because fielddata is unsupported on fields of type [%s]. Use doc values instead.",
                               f->path, tv_field_type_name(f->type));
    }
    if (f && !f->index)
        return field_error(g, "SignificantText aggregation requires fields to be searchable, but [%s] is not", f->path);
    bool numeric = false;
    if (f && !text) {
        bool ints = f->type == TV_FT_LONG || f->type == TV_FT_INTEGER || f->type == TV_FT_SHORT || f->type == TV_FT_BYTE ||
                    f->type == TV_FT_DATE || f->type == TV_FT_DATE_NANOS || f->type == TV_FT_BOOLEAN;
        if (tv_field_type_is_text(f->type) || f->type == TV_FT_KEYWORD || f->type == TV_FT_IP) g->kk = TV_KEY_BYTES;
        else if (ints) { g->kk = TV_KEY_LONG; numeric = true; }
        else if (tv_field_type_is_floating(f->type) || f->type == TV_FT_SCALED_FLOAT) numeric = true;
        else if (f->type == TV_FT_UNSIGNED_LONG) {
            tv_error_set(c->err, TROVE_EUNSUPPORTED, "[significant_terms] on the unsigned_long field [%s] is not supported by trove",
                         f->path);
            return shard_err(g);
        } else
            return field_error(g, "Field [%s] of type [%s] is not supported for aggregation [%s]", f->path,
                               tv_field_declared_type(f), a->type_name);
    }
    bool regex = (a->include && a->include->type == TV_JSON_STRING) || (a->exclude && a->exclude->type == TV_JSON_STRING);
    if (f && !text && !numeric) {
        const char *h = a->execution_hint;
        if (h && strcmp(h, "map") && strcmp(h, "global_ordinals") && strcmp(h, "global_ordinals_hash"))
            return field_error(g, "Unknown `execution_hint`: [%s], expected any of [map, global_ordinals]", h);
        if (regex && f->type == TV_FT_IP)
            return field_error(g, "Aggregation [%s] cannot support regular expression style include/exclude settings as they can only be applied to string fields. Use an array of values for include/exclude clauses",
                               a->name);
    }
    if (numeric) {
        if (regex)
            return field_error(g, "Aggregation [%s] cannot support regular expression style include/exclude settings as they can only be applied to string fields. Use an array of numeric values for include/exclude clauses used to filter numeric fields",
                               a->name);
        if (g->kk != TV_KEY_LONG) {
            tv_error_set(c->err, TROVE_EUNSUPPORTED, "No support for examining floating point numerics");
            return shard_err(g);
        }
    }
    bind_format(g, text ? NULL : a->src.format);
    if (text) g->fmt.kind = TV_FMT_RAW;
    if (!text && (st = bind_missing(g, a->src.missing))) return st;
    if ((st = compile_inc(g, a->include, true)) || (st = compile_inc(g, a->exclude, false))) return st;
    if (f && f->type == TV_FT_IP && !text) {
        /* the values parse as IPs (DocValueFormat.IP.parseBytesRef) and
         * compare as printed */
        g->ip_inc = true;
        for (int pass = 0; pass < 2; pass++) {
            const char **vals = pass ? g->exc_vals : g->inc_vals;
            uint32_t n = pass ? g->nexc : g->ninc;
            for (uint32_t i = 0; i < n; i++) {
                uint8_t ip[16];
                char txt[TV_IP_TEXT_MAX + 1];
                if (!tv_ip_parse(vals[i], strlen(vals[i]), ip))
                    return field_error(g, "'%s' is not an IP string literal.", vals[i]);
                size_t l = tv_ip_format(ip, txt);
                if (!(vals[i] = tv_arena_strndup(c->arena, txt, l))) return c_oom(g);
            }
        }
    }
    g->bg_terms = f && (g->kk == TV_KEY_BYTES || f->type == TV_FT_BOOLEAN);
    bool ordinals = f && !text && g->kk == TV_KEY_BYTES && !(a->execution_hint && !strcmp(a->execution_hint, "map"));
    g->sig_sorted = ordinals && g->top && !a->nsubs && !a->include && !a->exclude;
    if (a->bg_filter) {
        if ((st = tv_dsl_parse_filter(d, a->bg_filter, &g->bgq))) return st;
        if ((st = tv_query_rewrite(&g->bgq, c->arena)) || (st = tv_query_prepare(g->bgq, g->t->snap, c->arena)))
            return tv_error_set(c->err, st, "out of memory");
    }
    return bind_subs(g);
}

static tv_status bind_node(tv_agg_ctx *c, tv_dsl *d, const tv_agg *a, const tv_search_target *t, bool top,
                           col **out);

/* Creating the aggregator and its preCollection: initialize, when profiled. */
static tv_status bind(tv_agg_ctx *c, tv_dsl *d, const tv_agg *a, const tv_search_target *t, bool top, col **out) {
    if (TV_LIKELY(!c->profile)) return bind_node(c, d, a, t, top, out);
    aprof *p = tv_arena_calloc(c->arena, 1, sizeof *p);
    if (!p) return tv_error_oom(c->err);
    uint64_t t0 = tv_mono_ns();
    tv_status st = bind_node(c, d, a, t, top, out);
    p->ns[TV_AT_INITIALIZE] = tv_mono_ns() - t0;
    p->n[TV_AT_INITIALIZE] = 1;
    if (*out) (*out)->prof = p;
    return st;
}

static tv_status bind_node(tv_agg_ctx *c, tv_dsl *d, const tv_agg *a, const tv_search_target *t, bool top,
                           col **out) {
    col *g = tv_arena_calloc(c->arena, 1, sizeof *g);
    if (!g) return tv_error_oom(c->err);
    g->a = a;
    g->ctx = c;
    g->d = d;
    g->t = t;
    g->top = top;
    g->vcap = 16;
    g->ocap = 16;
    g->vals = tv_malloc(g->vcap * sizeof *g->vals);
    g->ords = tv_malloc(g->ocap * sizeof *g->ords);
    tv_map_init_borrowed(&g->terms);
    *out = g;
    if (!g->vals || !g->ords) return c_oom(g);
    tv_status st;
    if (a->time_zone && tv_tz_get(a->time_zone, strlen(a->time_zone), &g->tz, c->err)) return c->err->code;
    if (a->src.field) {
        g->f = tv_dsl_field(d, a->src.field, strlen(a->src.field));
        if (g->f && (g->f->type == TV_FT_OBJECT)) g->f = NULL;
    }
    g->unmapped = a->src.field && !g->f;
    const tv_field *f = g->f;
    if (a->src.script) {
        /* what trove does not reproduce of a script values source answers 400 */
        if (a->src.missing) {
            tv_error_set(c->err, TROVE_EUNSUPPORTED, "[missing] with a [script] in aggregation [%s] is not supported by trove",
                         a->type_name);
            return shard_err(g);
        }
        if (f && f->dv_kind != TV_DV_NUMERIC) {
            tv_error_set(c->err, TROVE_EUNSUPPORTED,
                         "a value [script] over field [%s] of type [%s] in aggregation [%s] is not supported by trove",
                         f->path, tv_field_type_name(f->type), a->type_name);
            return shard_err(g);
        }
        if (!g->unmapped) {
            tv_qscript *qs;
            st = tv_dsl_script(d, a->src.script, TV_SCRIPT_G_DOC | TV_SCRIPT_G_SCORE | TV_SCRIPT_G_AGGVALUE, &qs);
            if (st) return st;
            tv_qscript_exec_init(&g->sx, qs, d->mapping, t->index, c->err);
            g->sx_init = true;
        }
    }
    if (a->kind == TV_AGG_SIGNIFICANT_TERMS || a->kind == TV_AGG_SIGNIFICANT_TEXT) return bind_significant(g, d);
    /* (a field is required at parse time, AggregatorFactories-side) */
    if (a->kind == TV_AGG_HISTOGRAM && !(a->interval > 0))
        return field_error(g, "interval must be positive, got: %s", "0.0");
    if (a->kind == TV_AGG_DATE_HISTOGRAM && !a->calendar_unit && !a->fixed_ms)
        return field_error(g, "Invalid interval specified, must be non-null and non-empty");
    /* TopHitsAggregationBuilder.doBuild */
    int64_t miw = t->max_inner_result_window > 0 ? t->max_inner_result_window : 100;
    if (a->kind == TV_AGG_TOP_HITS && a->th_from + a->th_size > miw) {
        tv_error_set(c->err, TROVE_EARG,
                     "Top hits result window is too large, the top hits aggregator [%s]'s from + size must be less "
                     "than or equal to: [%lld] but was [%lld]. This limit can be set by changing the "
                     "[index.max_inner_result_window] index level setting.",
                     a->name, (long long)miw, (long long)(a->th_from + a->th_size));
        return shard_err(g);
    }
    /* CardinalityAggregatorFactory.precision(), mapped field or not */
    if (a->kind == TV_AGG_CARDINALITY && tv_hll_precision(a->precision_threshold) < 0) {
        tv_error_set(c->err, TROVE_EARG, "maxValue must be non-negative (got: %lld)",
                     (long long)tv_hll_table_bytes(a->precision_threshold));
        return shard_err(g);
    }
    if (f && tv_field_type_is_text(f->type)) {
        tv_error_set(c->err, TROVE_EARG,
                     "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [%s] in order to load field data by uninverting the inverted index. Note that this can use significant memory.",
                     f->path);
        return shard_err(g);
    }
    if (f && f->dv_kind == TV_DV_NONE)
        return field_error(g, "Can't load fielddata on [%s] because fielddata is unsupported on fields of type [%s]. Use doc values instead.",
                           f->path, tv_field_type_name(f->type));
    if (f && f->type == TV_FT_RANGE) {
        /* CoreValuesSourceType.RANGE: histograms (numeric range types for
         * histogram, date_range for date_histogram) and missing; what the
         * other aggregations do with ranges trove does not reproduce */
        bool ok = a->kind == TV_AGG_MISSING ||
                  (a->kind == TV_AGG_HISTOGRAM && f->range_type != TV_FT_IP) ||
                  (a->kind == TV_AGG_DATE_HISTOGRAM && f->range_type == TV_FT_DATE);
        if (!ok) {
            tv_error_set(c->err, TROVE_EUNSUPPORTED, "aggregation [%s] on field [%s] of type [%s] is not supported by trove",
                         a->type_name, f->path, tv_field_declared_type(f));
            return shard_err(g);
        }
    } else if (f) {
        switch (a->kind) {
        case TV_AGG_TERMS:
            g->kk = f->dv_kind == TV_DV_SORTED_SET ? TV_KEY_BYTES
                    : f->type == TV_FT_UNSIGNED_LONG ? TV_KEY_ULONG
                    : tv_field_type_is_floating(f->type) || f->type == TV_FT_SCALED_FLOAT ? TV_KEY_DOUBLE
                    : TV_KEY_LONG;
            if (f->type == TV_FT_GEO_POINT) return unsupported_type(g);
            break;
        case TV_AGG_HISTOGRAM:
        case TV_AGG_RANGE:
            if (a->geo ? f->type != TV_FT_GEO_POINT : !is_numeric_like(f)) return unsupported_type(g);
            break;
        case TV_AGG_VARIABLE_WIDTH_HISTOGRAM: /* CoreValuesSourceType.NUMERIC only */
            if (!tv_field_type_is_numeric(f->type)) return unsupported_type(g);
            break;
        case TV_AGG_DATE_HISTOGRAM:
        case TV_AGG_AUTO_DATE_HISTOGRAM:
        case TV_AGG_DATE_RANGE:
            if (!is_numeric_like(f) || f->type == TV_FT_BOOLEAN) return unsupported_type(g);
            break;
        case TV_AGG_VALUE_COUNT:
        case TV_AGG_CARDINALITY:
        case TV_AGG_MISSING:
            if (f->type == TV_FT_GEO_POINT && a->kind == TV_AGG_CARDINALITY) return unsupported_type(g);
            break;
        default:
            if (!is_numeric_like(f)) return unsupported_type(g);
            break;
        }
    } else if (a->kind == TV_AGG_TERMS) {
        g->kk = a->src.missing && tv_json_is_number(a->src.missing) ? TV_KEY_LONG : TV_KEY_BYTES;
    }
    if (a->kind == TV_AGG_HISTOGRAM) g->kk = TV_KEY_DOUBLE;
    if (a->kind == TV_AGG_DATE_HISTOGRAM || a->kind == TV_AGG_AUTO_DATE_HISTOGRAM) g->kk = TV_KEY_LONG;
    bind_format(g, a->src.format);
    if (a->kind == TV_AGG_DATE_HISTOGRAM || a->kind == TV_AGG_DATE_RANGE || a->kind == TV_AGG_AUTO_DATE_HISTOGRAM) {
        if (g->fmt.kind != TV_FMT_DATE) {
            /* a numeric field read as epoch millis */
            g->fmt.kind = TV_FMT_DATE;
            g->fmt.pattern = a->src.format                             ? a->src.format
                             : f && f->type == TV_FT_RANGE && f->format ? f->format
                                                                        : TV_DATE_DEFAULT_FORMAT;
        }
        g->fmt.tz = g->tz;
        if (a->src.format && tv_date_format_check(a->src.format, c->err)) return shard_err(g);
    }
    if (a->kind != TV_AGG_MISSING && (st = bind_missing(g, a->src.missing))) return st;
    if (a->kind == TV_AGG_WEIGHTED_AVG) {
        g->wf = tv_dsl_field(d, a->weight.field, strlen(a->weight.field));
        if (g->wf && !is_numeric_like(g->wf))
            return field_error(g, "Field [%s] of type [%s] is not supported for aggregation [weighted_avg]", g->wf->path,
                               tv_field_type_name(g->wf->type));
        if (a->weight.missing && tv_json_is_number(a->weight.missing)) {
            g->wmissing_set = true;
            g->wmissing = tv_json_as_double(a->weight.missing);
        }
    }
    if (a->kind == TV_AGG_TERMS) {
        if ((st = compile_inc(g, a->include, true)) || (st = compile_inc(g, a->exclude, false))) return st;
    }
    if (a->kind == TV_AGG_VARIABLE_WIDTH_HISTOGRAM) {
        /* VariableWidthHistogramAggregationBuilder.innerBuild */
        if (c->max_buckets >= 0 && a->size > c->max_buckets)
            return field_error(g, "buckets must be less than %lld", (long long)c->max_buckets);
        if (a->initial_buffer < a->size)
            return field_error(g, "initial_buffer must be at least buckets but was [%lld<%lld] for [%s]",
                               (long long)a->initial_buffer, (long long)a->size, a->name);
        int64_t init = (int64_t)(int32_t)((uint64_t)a->shard_size * 3 / 4);
        if (init < a->size)
            return field_error(g, "3/4 of shard_size must be at least buckets but was [%lld<%lld] for [%s]",
                               (long long)init, (long long)a->size, a->name);
        /* the aggregator asserts one owning bucket: OpenSearch runs it
         * at the top level or under single-bucket parents only */
        if (!g->top) {
            tv_error_set(c->err, TROVE_EUNSUPPORTED,
                         "[variable_width_histogram] under a multi-bucket aggregation is not supported by trove");
            return shard_err(g);
        }
        tv_vwh_init(&g->vwh, a->shard_size, a->initial_buffer);
        g->kk = TV_KEY_DOUBLE;
    }
    if (a->kind == TV_AGG_AUTO_DATE_HISTOGRAM) {
        /* AutoDateHistogramAggregationBuilder.doBuild: the largest inner
         * interval of the ladder is 100 (years) */
        int64_t ceiling = (c->max_buckets > 0 ? c->max_buckets : 65535) / 100;
        if (a->size > ceiling) {
            tv_error_set(c->err, TROVE_EARG, "buckets must be less than %lld", (long long)ceiling);
            return shard_err(g);
        }
        /* under a multi-bucket parent OpenSearch runs FromMany, whose
         * rebucketing trove does not reproduce */
        if (!g->top) {
            tv_error_set(c->err, TROVE_EUNSUPPORTED,
                         "[auto_date_histogram] under a multi-bucket aggregation is not supported by trove");
            return shard_err(g);
        }
        g->adh_idx = 0;
        g->adh_min = INT64_MAX;
        g->adh_max = INT64_MIN;
        tv_adh_rounding(a, 0, g->tz, &g->adh_rnd);
    }
    if (a->kind == TV_AGG_DATE_HISTOGRAM) {
        if (a->calendar_unit) tv_rounding_calendar(&g->rnd, (tv_date_unit)(a->calendar_unit - 1), g->tz, a->offset_ms);
        else tv_rounding_fixed(&g->rnd, a->fixed_ms, g->tz, a->offset_ms);
    }
    if (a->kind == TV_AGG_HISTOGRAM || a->kind == TV_AGG_DATE_HISTOGRAM) {
        tv_agg *ma = (tv_agg *)a; /* bounds resolve the same on every target: stored on the node */
        bool date = a->kind == TV_AGG_DATE_HISTOGRAM;
        double x;
        if (a->ext_min) { if ((st = date ? date_bound(g, a->ext_min, &x) : num_bound(g, a->ext_min, &x))) return st; ma->ext_min_d = x; }
        if (a->ext_max) { if ((st = date ? date_bound(g, a->ext_max, &x) : num_bound(g, a->ext_max, &x))) return st; ma->ext_max_d = x; }
        if (a->hard_min) { if ((st = date ? date_bound(g, a->hard_min, &x) : num_bound(g, a->hard_min, &x))) return st; ma->hard_min_d = x; }
        if (a->hard_max) { if ((st = date ? date_bound(g, a->hard_max, &x) : num_bound(g, a->hard_max, &x))) return st; ma->hard_max_d = x; }
        if (a->ext_min && a->ext_max && ma->ext_min_d > ma->ext_max_d) {
            /* the bounds as Java prints them: longs for dates, doubles otherwise */
            char lo[40], hi[40];
            if (date) {
                snprintf(lo, sizeof lo, "%lld", (long long)ma->ext_min_d);
                snprintf(hi, sizeof hi, "%lld", (long long)ma->ext_max_d);
            } else {
                tv_fmt_double(ma->ext_min_d, lo);
                tv_fmt_double(ma->ext_max_d, hi);
            }
            return field_error(g, "[extended_bounds.min][%s] cannot be greater than [extended_bounds.max][%s] for histogram aggregation [%s]",
                               lo, hi, a->name);
        }
    }
    if (a->kind == TV_AGG_RANGE || a->kind == TV_AGG_DATE_RANGE) {
        g->from = tv_arena_alloc(c->arena, a->nranges * sizeof *g->from);
        g->to = tv_arena_alloc(c->arena, a->nranges * sizeof *g->to);
        if (!g->from || !g->to) return c_oom(g);
        for (uint32_t r = 0; r < a->nranges; r++) {
            tv_agg_range *rg = &a->ranges[r];
            g->from[r] = -INFINITY;
            g->to[r] = INFINITY;
            if (a->geo) { /* bounds parsed as doubles */
                g->from[r] = rg->from_d;
                g->to[r] = rg->to_d;
                continue;
            }
            bool date = a->kind == TV_AGG_DATE_RANGE || (f && (f->type == TV_FT_DATE || f->type == TV_FT_DATE_NANOS));
            if (rg->from && (st = date ? date_bound(g, rg->from, &g->from[r]) : num_bound(g, rg->from, &g->from[r]))) return st;
            if (rg->to && (st = date ? date_bound(g, rg->to, &g->to[r]) : num_bound(g, rg->to, &g->to[r]))) return st;
            rg->from_d = g->from[r];
            rg->to_d = g->to[r];
        }
    }
    for (uint32_t k = 0; a->kind == TV_AGG_TOP_HITS && k < a->th_sort.n; k++) {
        const char *sf = a->th_sort.keys[k].field;
        if (!sf) continue;
        const tv_field *tf = tv_dsl_field(d, sf, strlen(sf));
        if (!tf) {
            tv_error_set(c->err, TROVE_EQUERYSHARD, "No mapping found for [%s] in order to sort on", sf);
            return shard_err(g);
        }
        if (tv_field_type_is_text(tf->type)) {
            tv_error_set(c->err, TROVE_EARG,
                         "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [%s] in order to load field data by uninverting the inverted index. Note that this can use significant memory.",
                         sf);
            return shard_err(g);
        }
        g->thf[k] = tf;
    }
    if (a->kind == TV_AGG_COMPOSITE || a->kind == TV_AGG_MULTI_TERMS) {
        g->kk = TV_KEY_BYTES;
        tv_buf_init(&g->tuple);
        g->tcols = tv_arena_calloc(c->arena, a->ntsrc + 1, sizeof *g->tcols);
        if (!g->tcols) return c_oom(g);
        g->ntcols = a->ntsrc;
        for (uint32_t i = 0; i < a->ntsrc; i++) {
            if ((st = bind(c, d, a->tsrc[i].node, t, false, &g->tcols[i]))) return st;
            g->tcols[i]->emit = true;
        }
        if (a->after && (st = encode_after(g))) return st;
    }
    if (a->kind == TV_AGG_ADJACENCY_MATRIX) {
        /* AdjacencyMatrixAggregationBuilder.doBuild */
        int64_t maxf = d->max_clauses > 0 ? d->max_clauses : 1024;
        if ((int64_t)a->nfilters > maxf) {
            tv_error_set(c->err, TROVE_EARG,
                         "Number of filters is too large, must be less than or equal to: [%lld] but was [%u].This limit can be set by changing the [indices.query.bool.max_clause_count] setting.",
                         (long long)maxf, a->nfilters);
            return shard_err(g);
        }
    }
    if (a->kind == TV_AGG_FILTER || a->kind == TV_AGG_FILTERS || a->kind == TV_AGG_ADJACENCY_MATRIX) {
        g->nq = a->kind == TV_AGG_FILTER ? 1 : a->nfilters;
        g->qs = tv_arena_calloc(c->arena, g->nq + 1, sizeof *g->qs);
        g->its = tv_arena_calloc(c->arena, g->nq + 1, sizeof *g->its);
        g->adj_hits = tv_arena_calloc(c->arena, g->nq + 1, sizeof *g->adj_hits);
        if (!g->qs || !g->its || !g->adj_hits) return c_oom(g);
        for (uint32_t i = 0; i < g->nq; i++) {
            const tv_json *q = a->kind == TV_AGG_FILTER ? a->filter : a->filters[i];
            if ((st = tv_dsl_parse_filter(d, q, &g->qs[i]))) return st;
            if ((st = tv_query_rewrite(&g->qs[i], c->arena)) || (st = tv_query_prepare(g->qs[i], t->snap, c->arena)))
                return tv_error_set(c->err, st, "out of memory");
        }
    }
    g->counting = top && a->kind == TV_AGG_TERMS && g->kk == TV_KEY_BYTES && g->f && g->f->dv_kind == TV_DV_SORTED_SET &&
                  !a->nsubs;
    if ((a->kind == TV_AGG_NESTED || a->kind == TV_AGG_REVERSE_NESTED) && (st = bind_nested(g, d))) return st;
    return bind_subs(g);
}

/* terms with min_doc_count 0 list every term of the shard, matched or not
 * (GlobalOrdinalsStringTermsAggregator / NumericTermsAggregator): the
 * segment's keys are registered here, with no count. */
static tv_status register_all_keys(col *g, const tv_segview *sv) {
    if (!g->f) return TROVE_OK;
    if (g->kk == TV_KEY_BYTES) {
        uint32_t n = tv_segment_dv_ord_count(sv->seg, g->f->id);
        for (uint32_t o = 0; o < n; o++) {
            const char *t;
            size_t tl;
            uint32_t id;
            if (!tv_segment_dv_term(sv->seg, g->f->id, o, &t, &tl)) continue;
            if (term_id(g, t, tl, &id)) return c_oom(g);
            if (o < g->segmap_n) g->segmap[o] = id + 1;
        }
        return TROVE_OK;
    }
    /* every doc of the segment, deleted ones too: NumericTermsAggregator
     * walks maxDoc without looking at live docs */
    for (uint32_t doc = 0; doc < sv->max_doc; doc++) {
        const int64_t *v;
        uint32_t n = nums(g, g->f, doc, &v);
        for (uint32_t i = 0; i < n; i++) {
            int64_t key = g->kk == TV_KEY_DOUBLE ? tv_double_to_sortable(tv_agg_value_double(g->f, v[i])) : v[i];
            if (!num_included(g, v[i])) continue;
            uint32_t o;
            bool added;
            if (om_get(&g->om, UINT64_MAX, key, 0, &o, &added)) return c_oom(g);
            if (added && tv_vec_push(&g->allkeys, key)) return c_oom(g);
        }
    }
    return TROVE_OK;
}

/* A text field's fielddata in this segment (PagedBytesIndexFieldData:
 * the inverted index uninverted): every doc's term ords, terms in byte
 * order. Deleted docs keep theirs; the collector only offers live ones. */
static tv_status uninvert(col *g, const tv_segview *sv) {
    tv_free(g->unv_start);
    tv_free(g->unv_ords);
    g->unv_start = g->unv_ords = NULL;
    g->unv_nterms = 0;
    uint32_t nd = sv->max_doc;
    uint32_t *cnt = tv_calloc((size_t)nd + 2, sizeof *cnt);
    if (!cnt) return c_oom(g);
    TV_VEC(termref) terms = {0};
    TV_VEC(tv_term_state) states = {0};
    tv_status st = TROVE_OK;
    tv_terms_iter *it = tv_terms_iter_new(sv->seg, g->f->id, g->ctx->arena);
    const char *t;
    size_t tl;
    tv_term_state ts;
    size_t total = 0;
    while (it && tv_terms_iter_next(it, &t, &tl, &ts)) {
        char *c = tv_arena_memdup(g->ctx->arena, t, tl);
        termref r = {c, (uint32_t)tl};
        if (!c || tv_vec_push(&terms, r) || tv_vec_push(&states, ts)) { st = c_oom(g); goto out; }
        tv_postings *p = tv_postings_open(sv->seg, g->f->id, &ts, 0, g->ctx->arena);
        if (!p) { st = c_oom(g); goto out; }
        for (uint32_t d = tv_postings_next(p); d != TV_NO_MORE_DOCS; d = tv_postings_next(p))
            if (d < nd) { cnt[d + 1]++; total++; }
    }
    for (uint32_t d = 0; d < nd; d++) cnt[d + 1] += cnt[d];
    g->unv_start = tv_malloc(((size_t)nd + 1) * sizeof *g->unv_start);
    g->unv_ords = tv_malloc((total + 1) * sizeof *g->unv_ords);
    if (!g->unv_start || !g->unv_ords) { st = c_oom(g); goto out; }
    memcpy(g->unv_start, cnt, ((size_t)nd + 1) * sizeof *cnt);
    for (size_t o = 0; o < terms.len; o++) {
        tv_postings *p = tv_postings_open(sv->seg, g->f->id, &states.items[o], 0, g->ctx->arena);
        if (!p) { st = c_oom(g); goto out; }
        for (uint32_t d = tv_postings_next(p); d != TV_NO_MORE_DOCS; d = tv_postings_next(p))
            if (d < nd) g->unv_ords[cnt[d]++] = (uint32_t)o;
    }
    g->unv_terms = tv_arena_calloc(g->ctx->arena, terms.len + 1, sizeof *g->unv_terms);
    if (!g->unv_terms) { st = c_oom(g); goto out; }
    if (terms.len) memcpy(g->unv_terms, terms.items, terms.len * sizeof *g->unv_terms);
    g->unv_nterms = (uint32_t)terms.len;
out:
    tv_free(cnt);
    tv_vec_fini(&terms);
    tv_vec_fini(&states);
    return st;
}


static tv_status seg_col_node(col *g, const tv_segview *sv);

/* CardinalityAggregator.getLeafCollector's choice for this segment:
 * empty (unmapped), numeric (hashes of the values), ordinals (a bitset
 * of the segment's ords while it is small next to the sketch), else
 * string hashing. */
static void card_leaf_choice(col *g, const tv_segview *sv) {
    aprof *p = g->prof;
    if (g->unmapped || !g->f) { p->empty++; return; }
    if (g->f->dv_kind == TV_DV_NUMERIC) { p->numeric++; return; }
    if (g->f->dv_kind == TV_DV_SORTED_SET) {
        /* OrdinalsCollector.memoryOverhead(maxOrd) against a quarter of
         * HyperLogLogPlusPlus.memoryUsage(precision) */
        int64_t max_ord = tv_segment_dv_ord_count(sv->seg, g->f->id);
        int64_t ords = 8 + (max_ord + 7) / 8;
        int prec = tv_hll_precision(g->a->precision_threshold);
        int64_t counts = prec > 0 ? (int64_t)1 << prec : 0;
        if (ords < counts / 4) { p->ordinals++; return; }
        p->ords_overhead++;
    }
    p->hashing++;
}

/* Per segment (getLeafCollector): timed as build_leaf_collector when profiled. */
static tv_status seg_col(col *g, const tv_segview *sv) {
    if (TV_LIKELY(!g->prof)) return seg_col_node(g, sv);
    uint64_t t0 = tv_mono_ns();
    if (g->a->kind == TV_AGG_CARDINALITY) card_leaf_choice(g, sv);
    tv_status st = seg_col_node(g, sv);
    g->prof->ns[TV_AT_BUILD_LEAF_COLLECTOR] += tv_mono_ns() - t0;
    g->prof->n[TV_AT_BUILD_LEAF_COLLECTOR]++;
    return st;
}

/*
 * Filter rewrite (OpenSearch's FilterRewriteOptimizationContext for
 * date_histogram and auto_date_histogram): a top-level date histogram
 * without sub-aggregations, missing or hard_bounds, on an indexed date
 * field, under a query that matches every live doc, counts each segment
 * without deletions whose docs hold at most one value from the segment's
 * points (sorted by value already) instead of collecting doc by doc. The buckets become
 * ranges between the shard's rounded min and max (at most
 * search.max_aggregation_rewrite_filters = 3000 of them, else no rewrite);
 * the points are cut into Lucene's BKD leaves of 512 points under
 * its 1-D index tree (getNumLeftLeafNodes' split, each node bounded by
 * its split values), and the tree is walked as TreeTraversal.
 * multiRangesTraverse walks it: a node inside one range is counted whole
 * (inner_visited), a crossing leaf point by point (leaf_visited). The
 * counts are the ones collection would give; the profile's debug reports
 * the walk. auto_date_histogram picks its rung from the shard's bounds
 * first (its bridge's getRounding).
 */
typedef struct fr_walk {
    const tv_points_view *v; /* the segment's points, ascending */
    size_t n;
    const int64_t *lo, *hi;
    size_t nr, active;
    uint64_t counter;
    bool stop;
    col *g;
    tv_status st;
} fr_walk;

static void fr_add(fr_walk *w) {
    if (!w->counter || w->st) { w->counter = 0; return; }
    col *g = w->g;
    bool adh = g->a->kind == TV_AGG_AUTO_DATE_HISTOGRAM;
    int64_t key = tv_rounding_round(adh ? &g->adh_rnd : &g->rnd, w->lo[w->active]);
    uint32_t o;
    bool added = false;
    if (adh) {
        if (adh_add_key(g, key, &added)) { w->st = c_oom(g); return; }
        if (key < g->adh_min) g->adh_min = key; /* as collect_auto_date's climb keeps them */
        if (key > g->adh_max) g->adh_max = key;
    }
    if (om_get(&g->om, 0, key, (uint32_t)g->b.len, &o, &added)) { w->st = c_oom(g); return; }
    if (added) {
        bkt x = {0, key, 0};
        if (tv_vec_push(&g->b, x)) { w->st = c_oom(g); return; }
    }
    g->b.items[o].count += w->counter;
    w->counter = 0;
}

/* iterateRangeEnd: true when no range is left */
static bool fr_range_end(fr_walk *w, int64_t value) {
    while (!(value < w->hi[w->active]))
        if (++w->active >= w->nr) return true;
    return false;
}

static void fr_point(fr_walk *w, int64_t value) {
    if (w->stop) return;
    if (!(value < w->hi[w->active])) {
        fr_add(w);
        if (fr_range_end(w, value)) { w->stop = true; return; }
    }
    if (value >= w->lo[w->active]) w->counter++;
}

enum { FR_OUTSIDE, FR_INSIDE, FR_CROSSES };

static int fr_compare(fr_walk *w, int64_t mn, int64_t mx) {
    if (!(mn < w->hi[w->active])) {
        fr_add(w);
        if (fr_range_end(w, mn)) { w->stop = true; return FR_OUTSIDE; }
    }
    int64_t lo = w->lo[w->active], hi = w->hi[w->active];
    if (!(mx >= lo)) return FR_OUTSIDE;
    if (mn >= lo && mn < hi && mx >= lo && mx < hi) return FR_INSIDE;
    return FR_CROSSES;
}

#define FR_LEAF 512

/* BKDWriter.getNumLeftLeafNodes */
static size_t fr_left_leaves(size_t leaves) {
    int last_full = 63 - __builtin_clzll((unsigned long long)leaves);
    size_t full = (size_t)1 << last_full, left = full / 2, unbalanced = leaves - full;
    return left + (unbalanced < left ? unbalanced : left);
}

static void fr_node(fr_walk *w, size_t leaf0, size_t nleaves, int64_t mn, int64_t mx) {
    if (w->stop) return;
    int r = fr_compare(w, mn, mx);
    if (w->stop || r == FR_OUTSIDE) return;
    size_t first = leaf0 * FR_LEAF, end = (leaf0 + nleaves) * FR_LEAF;
    if (end > w->n) end = w->n;
    if (r == FR_INSIDE) {
        w->counter += end - first;
        w->g->fr_inner++;
        return;
    }
    if (nleaves > 1) {
        size_t left = fr_left_leaves(nleaves);
        int64_t split = tv_points_value(w->v, (leaf0 + left) * FR_LEAF);
        fr_node(w, leaf0, left, mn, split);
        fr_node(w, leaf0 + left, nleaves - left, split, mx);
        return;
    }
    for (size_t i = first; i < end && !w->stop; i++) fr_point(w, tv_points_value(w->v, i));
    w->g->fr_leaf++;
}

/* The shard-level part (first segment): eligibility, bounds, ranges. */
static tv_status fr_prepare(col *g) {
    const tv_agg *a = g->a;
    g->fr_state = 2;
    const tv_field *f = g->f;
    if (!f || f->type != TV_FT_DATE || !f->index || f->dv_kind != TV_DV_NUMERIC || g->has_missing || a->has_hard)
        return TROVE_OK;
    for (uint32_t i = 0; i < g->nsubs; i++)
        if (g->subs[i]) return TROVE_OK;
    /* Helper.getShardBounds: every segment's points, deleted docs' too */
    const tv_snapshot *snap = g->t->snap;
    bool any = false;
    int64_t low = 0, high = 0;
    for (uint32_t si = 0; snap && si < snap->nsegs; si++) {
        tv_points_view pv;
        tv_segment_points(snap->segs[si].seg, f->id, &pv);
        if (!pv.n) continue;
        int64_t a0 = tv_points_value(&pv, 0), z = tv_points_value(&pv, pv.n - 1);
        if (!any || a0 < low) low = a0;
        if (!any || z > high) high = z;
        any = true;
    }
    if (!any) return TROVE_OK;
    const tv_rounding *rnd = &g->rnd;
    if (a->kind == TV_AGG_AUTO_DATE_HISTOGRAM) {
        /* AutoDateHistogramAggregatorBridge.getRounding: the first rung
         * whose largest inner interval covers (high - low) / buckets */
        int64_t best = (high - low) / (a->size > 0 ? a->size : 1);
        int levels = tv_adh_levels(a), idx = 0;
        while (idx < levels - 1 && !((double)best <= (double)tv_adh_max_inner(a, idx) * (double)tv_adh_rough_ms(a, idx)))
            idx++;
        if (idx != g->adh_idx) {
            g->adh_idx = idx;
            tv_adh_rounding(a, idx, g->tz, &g->adh_rnd);
        }
        rnd = &g->adh_rnd;
    }
    /* Helper.createRangesFromAgg */
    size_t count = 0;
    int64_t k = tv_rounding_round(rnd, low);
    for (;;) {
        if (k > high) break;
        if (++count > 3000) return TROVE_OK;
        int64_t nk = tv_rounding_next(rnd, k);
        if (nk <= k) break;
        k = nk;
    }
    if (!count) return TROVE_OK;
    g->fr_lo = tv_arena_alloc(g->ctx->arena, count * sizeof *g->fr_lo);
    g->fr_hi = tv_arena_alloc(g->ctx->arena, count * sizeof *g->fr_hi);
    if (!g->fr_lo || !g->fr_hi) return c_oom(g);
    k = tv_rounding_round(rnd, low);
    for (size_t i = 0; i < count; i++) {
        int64_t nk = tv_rounding_next(rnd, k);
        g->fr_lo[i] = i == 0 ? low : k;
        g->fr_hi[i] = i + 1 == count ? high + 1 : nk;
        k = nk;
    }
    g->fr_n = count;
    g->fr_state = 1;
    return TROVE_OK;
}

/* OptimizationContext.tryOptimize for one segment: sets g->seg_done when
 * the segment was counted from its values. */
static tv_status fr_segment(col *g, const tv_segview *sv) {
    if (g->fr_state == 0) {
        tv_status st = fr_prepare(g);
        if (st) return st;
    }
    if (g->fr_state != 1) return TROVE_OK;
    g->fr_segments++;
    if (sv->live) return TROVE_OK; /* deletions */
    tv_points_view pv;
    tv_segment_points(sv->seg, g->f->id, &pv);
    if (!pv.n) return TROVE_OK; /* no points here */
    /* every doc with points has exactly one (getDocCount() == size()) */
    if (pv.n > sv->max_doc) return TROVE_OK;
    size_t nw = ((size_t)sv->max_doc + 63) / 64;
    uint64_t *seen = tv_calloc(nw ? nw : 1, sizeof *seen);
    if (!seen) return c_oom(g);
    for (uint64_t i = 0; i < pv.n; i++) {
        uint32_t d = tv_points_doc(&pv, i);
        if (d >= sv->max_doc || (seen[d >> 6] >> (d & 63) & 1)) { tv_free(seen); return TROVE_OK; }
        seen[d >> 6] |= 1ull << (d & 63);
    }
    tv_free(seen);
    fr_walk w = {&pv, (size_t)pv.n, g->fr_lo, g->fr_hi, g->fr_n, 0, 0, false, g, TROVE_OK};
    int64_t mn = tv_points_value(&pv, 0), mx = tv_points_value(&pv, pv.n - 1);
    /* Ranges.firstRangeIndex */
    bool none = g->fr_lo[0] > mx;
    while (!none && g->fr_hi[w.active] <= mn)
        if (++w.active >= w.nr) none = true;
    if (!none) {
        fr_node(&w, 0, (w.n + FR_LEAF - 1) / FR_LEAF, mn, mx);
        fr_add(&w);
    }
    if (w.st) return w.st;
    g->fr_optimized++;
    g->seg_done = true;
    return TROVE_OK;
}

/* Per segment: plan filters, reset keyword maps. */
static tv_status seg_col_node(col *g, const tv_segview *sv) {
    g->seg_done = false;
    if (g->root && g->fr_state != 2 &&
        (g->a->kind == TV_AGG_DATE_HISTOGRAM || g->a->kind == TV_AGG_AUTO_DATE_HISTOGRAM)) {
        g->sv = sv;
        tv_status st = fr_segment(g, sv);
        if (st) return st;
        if (g->seg_done) return TROVE_OK;
    }
    if (g->counting && g->sv) {
        tv_status st = fold_counts(g); /* the previous segment's counts, with its ords */
        if (st) return st;
    }
    g->sv = sv;
    if (g->f && g->f->dv_kind == TV_DV_NUMERIC) tv_segment_dv_reader(sv->seg, g->f->id, &g->dvr);
    bool sig_terms = g->a->kind == TV_AGG_SIGNIFICANT_TERMS && g->kk == TV_KEY_BYTES && g->f;
    if (sig_terms && tv_field_type_is_text(g->f->type)) {
        tv_status st = uninvert(g, sv);
        if (st) return st;
    }
    if (g->kk == TV_KEY_BYTES && g->f && ((g->f->dv_kind == TV_DV_SORTED_SET && g->a->kind == TV_AGG_TERMS) || sig_terms)) {
        uint32_t n = g->unv_start ? g->unv_nterms : tv_segment_dv_ord_count(sv->seg, g->f->id);
        if (g->counting && n > g->segcnt_n) {
            tv_free(g->segcnt);
            g->segcnt_n = 0;
            g->segcnt = tv_calloc(n, sizeof *g->segcnt);
            if (!g->segcnt) return c_oom(g);
            g->segcnt_n = n;
        }
        if (n > g->segmap_n) {
            tv_free(g->segmap);
            g->segmap = NULL;
            g->segmap_n = 0;
            g->segmap = tv_malloc((size_t)n * sizeof *g->segmap);
            if (!g->segmap) return c_oom(g);
            g->segmap_n = n;
        }
        if (g->segmap) memset(g->segmap, 0, (size_t)g->segmap_n * sizeof *g->segmap);
    }
    if (g->a->kind == TV_AGG_TERMS && g->a->min_doc_count == 0 && !g->emit) {
        tv_status st = register_all_keys(g, sv);
        if (st) return st;
    }
    for (uint32_t i = 0; i < g->ntcols; i++) {
        tv_status st = seg_col(g->tcols[i], sv);
        if (st) return st;
    }
    /* filters see every doc offered (the collector checked the live
     * bits; nested docs are never live themselves) */
    tv_segview all = *sv;
    all.live = NULL;
    for (uint32_t i = 0; i < g->nq; i++) {
        tv_plan_ctx pc = {g->ctx->arena, g->t->snap, false, false};
        g->its[i] = NULL;
        tv_status st = tv_plan(g->qs[i], &all, &pc, &g->its[i]);
        if (st) return tv_error_set(g->ctx->err, st, "out of memory");
    }
    if ((g->a->kind == TV_AGG_NESTED || g->a->kind == TV_AGG_REVERSE_NESTED) && !g->nunmapped) {
        bool oom = false;
        const uint64_t *cb = NULL, *pb;
        if (g->a->kind == TV_AGG_NESTED) {
            cb = tv_nested_path_bits(sv->seg, g->npath, &oom);
            pb = tv_nested_parent_bits(sv->seg, g->nscope, &oom);
        } else {
            pb = tv_nested_parent_bits(sv->seg, g->npath, &oom);
        }
        if (oom) return c_oom(g);
        g->ncb = (tv_bitset){(uint64_t *)cb, sv->max_doc};
        g->npb = (tv_bitset){(uint64_t *)pb, sv->max_doc};
        g->rn_last.len = 0; /* doc ids are the segment's */
    }
    for (uint32_t i = 0; i < g->nsubs; i++) {
        if (!g->subs[i]) continue;
        tv_status st = seg_col(g->subs[i], sv);
        if (st) return st;
    }
    return TROVE_OK;
}

static void free_col(col *g) {
    if (!g) return;
    for (uint32_t i = 0; i < g->nsubs; i++) free_col(g->subs[i]);
    for (uint32_t i = 0; i < g->ntcols; i++) free_col(g->tcols[i]);
    tv_vec_fini(&g->ekeys);
    tv_vec_fini(&g->rn_last);
    tv_buf_fini(&g->tuple);
    for (size_t i = 0; i < g->thcap; i++) tv_free(g->th[i]);
    tv_free(g->th);
    tv_free(g->thn);
    tv_free(g->om.slots);
    tv_vec_fini(&g->direct);
    tv_free(g->segcnt);
    tv_vec_fini(&g->b);
    tv_map_fini(&g->terms);
    tv_vec_fini(&g->tids);
    tv_vec_fini(&g->allkeys);
    tv_vec_fini(&g->adh_keys);
    tv_free(g->segmap);
    if (g->m) {
        for (size_t i = 0; i < g->mcap; i++) {
            if (!g->m[i].sk) continue;
            if (g->a->kind == TV_AGG_CARDINALITY) tv_hll_free(g->m[i].sk);
            else if (g->a->hdr) tv_hdr_free(g->m[i].sk);
            else tv_tdigest_free(g->m[i].sk);
        }
        tv_free(g->m);
    }
    tv_vwh_fini(&g->vwh);
    if (g->sx_init) tv_qscript_exec_fini(&g->sx);
    tv_free(g->sdv);
    tv_free(g->vals);
    tv_free(g->ords);
    tv_vec_fini(&g->subset);
    tv_free(g->bg_om.slots);
    tv_vec_fini(&g->bg_counts);
    tv_free(g->bg_bits);
    tv_free(g->unv_start);
    tv_free(g->unv_ords);
    if (g->scratch_init) tv_arena_fini(&g->scratch);
    for (size_t i = 0; i < g->nspot; i++) tv_dup_spotter_free(g->spot[i]);
    tv_free(g->spot);
}

/* ------------------------------------------------------------- results */

static tv_status build(col *g, uint64_t ord, agg_res **out);

/* Sub-results of bucket ord b of g. */
static tv_status build_subs(col *g, uint64_t ord, agg_res ***out) {
    *out = NULL;
    if (!g->a->nsubs) return TROVE_OK;
    agg_res **subs = tv_arena_calloc(g->ctx->arena, g->a->nsubs, sizeof *subs);
    if (!subs) return c_oom(g);
    for (uint32_t i = 0; i < g->a->nsubs; i++) {
        if (!g->subs[i]) continue;
        tv_status st = build(g->subs[i], ord, &subs[i]);
        if (st) return st;
    }
    *out = subs;
    return TROVE_OK;
}

/*
 * The background (SignificanceLookup): supersetSize is the target's maxDoc
 * (deleted and nested docs included), or the background filter's count;
 * a term's frequency is the term dictionary's docFreq (keyword, ip, text,
 * boolean: TermQuery types), or the filter's docs among its postings;
 * numbers and dates count the live (or filtered) docs holding the value,
 * in one pass over the doc values.
 */
static tv_status sig_background(col *g) {
    if (g->bg_ready) return TROVE_OK;
    g->bg_ready = true;
    const tv_snapshot *snap = g->t->snap;
    tv_arena *ar = g->ctx->arena;
    g->superset = snap->max_doc;
    if (g->bgq) {
        g->superset = 0;
        g->bg_bits = tv_calloc(snap->nsegs + 1, sizeof *g->bg_bits);
        if (!g->bg_bits) return c_oom(g);
        for (uint32_t i = 0; i < snap->nsegs; i++) {
            const tv_segview *sv = &snap->segs[i];
            uint64_t *bits = tv_arena_calloc(ar, ((size_t)sv->max_doc + 63) / 64 + 1, sizeof *bits);
            if (!bits) return c_oom(g);
            g->bg_bits[i] = bits;
            tv_plan_ctx pc = {ar, snap, false, false};
            tv_iter *it = NULL;
            tv_status st = tv_plan(g->bgq, sv, &pc, &it);
            if (st) return tv_error_set(g->ctx->err, st, "out of memory");
            if (!it) continue;
            for (uint32_t doc = tv_iter_next(it); doc < sv->max_doc; doc = tv_iter_next(it)) {
                bits[doc >> 6] |= 1ull << (doc & 63);
                g->superset++;
            }
        }
    }
    if (g->bg_terms || !g->f) return TROVE_OK;
    int64_t buf[16];
    for (uint32_t i = 0; i < snap->nsegs; i++) {
        const tv_segview *sv = &snap->segs[i];
        for (uint32_t doc = 0; doc < sv->max_doc; doc++) {
            if (g->bgq ? !((g->bg_bits[i][doc >> 6] >> (doc & 63)) & 1) : !tv_segview_live(sv, doc)) continue;
            uint32_t n = tv_segment_dv_numeric(sv->seg, g->f->id, doc, buf, 16);
            const int64_t *v = buf;
            int64_t *big = NULL;
            if (n > 16) {
                big = tv_malloc((size_t)n * sizeof *big);
                if (!big) return c_oom(g);
                n = tv_segment_dv_numeric(sv->seg, g->f->id, doc, big, n);
                v = big;
            }
            for (uint32_t k = 0; k < n; k++) {
                if (k && v[k] == v[k - 1]) continue;
                uint32_t o;
                bool added;
                if (om_get(&g->bg_om, 0, v[k], (uint32_t)g->bg_counts.len, &o, &added) ||
                    (added && tv_vec_push(&g->bg_counts, 0))) {
                    tv_free(big);
                    return c_oom(g);
                }
                g->bg_counts.items[o]++;
            }
            tv_free(big);
        }
    }
    return TROVE_OK;
}

static tv_status sig_bg_freq(col *g, const agg_bucket *b, uint64_t *out) {
    *out = 0;
    const tv_snapshot *snap = g->t->snap;
    if (!g->bg_terms) {
        uint32_t o;
        bool added;
        if (om_get(&g->bg_om, 0, b->ki, (uint32_t)g->bg_counts.len, &o, &added) || (added && tv_vec_push(&g->bg_counts, 0)))
            return c_oom(g);
        *out = g->bg_counts.items[o];
        return TROVE_OK;
    }
    const char *t = b->ks;
    size_t tl = b->klen;
    if (g->kk != TV_KEY_BYTES) { /* boolean: indexed as T / F */
        t = b->ki ? "T" : "F";
        tl = 1;
    }
    for (uint32_t i = 0; i < snap->nsegs; i++) {
        const tv_segview *sv = &snap->segs[i];
        tv_term_state ts;
        if (!tv_segment_term(sv->seg, g->f->id, t, tl, &ts)) continue;
        if (!g->bgq) {
            *out += ts.doc_freq;
            continue;
        }
        tv_postings *p = tv_postings_open(sv->seg, g->f->id, &ts, 0, g->ctx->arena);
        if (!p) return c_oom(g);
        for (uint32_t d = tv_postings_next(p); d != TV_NO_MORE_DOCS && d < sv->max_doc; d = tv_postings_next(p))
            *out += (g->bg_bits[i][d >> 6] >> (d & 63)) & 1;
    }
    return TROVE_OK;
}

static _Thread_local const col *g_sig_col; /* qsort's context */

static int sig_term_qcmp(const void *x, const void *y) {
    const termref *a = &g_sig_col->tids.items[g_sig_col->b.items[*(const uint32_t *)x].key];
    const termref *b = &g_sig_col->tids.items[g_sig_col->b.items[*(const uint32_t *)y].key];
    return tv_memcmp2(a->s, a->len, b->s, b->len);
}

static tv_status build_subs(col *g, uint64_t ord, agg_res ***out);

/* The shard's significant buckets of parent ord: scored with the shard's
 * own sizes, cut to shard_size (default 2 * (size * 1.5 + 10)) by Lucene's
 * queue after shard_min_doc_count; candidates enter it in bucket-ord order
 * (term order for global ordinals, else first seen). */
static tv_status build_significant(col *g, uint64_t ord, agg_res *r, uint32_t *sel, size_t nb) {
    const tv_agg *a = g->a;
    tv_agg_ctx *c = g->ctx;
    r->subset_size = ord < g->subset.len ? g->subset.items[ord] : 0;
    r->nb = 0;
    /* significant_text has no unmapped result: the name stands in */
    if (a->kind == TV_AGG_SIGNIFICANT_TEXT) r->mapped = true;
    if (!r->mapped) { /* UnmappedSignificantTerms: no sizes */
        r->subset_size = 0;
        return TROVE_OK;
    }
    tv_status st = sig_background(g);
    if (st) return st;
    r->superset_size = g->superset;
    if (g->sig_sorted && g->kk == TV_KEY_BYTES && nb > 1) {
        g_sig_col = g;
        qsort(sel, nb, sizeof *sel, sig_term_qcmp);
    }
    int64_t shard_size = a->shard_size_set ? a->shard_size : 2 * (int64_t)((double)a->size * 1.5 + 10);
    size_t maxq = (size_t)TV_MIN((int64_t)g->b.len, shard_size);
    agg_bucket *cand = tv_arena_calloc(c->arena, nb + 1, sizeof *cand);
    agg_bucket **ptr = tv_arena_calloc(c->arena, nb + 1, sizeof *ptr);
    if (!cand || !ptr) return c_oom(g);
    size_t k = 0;
    for (size_t i = 0; i < nb; i++) {
        const bkt *x = &g->b.items[sel[i]];
        if ((int64_t)x->count < a->shard_min_doc_count) continue;
        agg_bucket *bk = &cand[k];
        bk->doc_count = x->count;
        if (g->kk == TV_KEY_BYTES) {
            bk->ks = g->tids.items[x->key].s;
            bk->klen = g->tids.items[x->key].len;
        } else {
            bk->ki = x->key;
        }
        bk->err = (int64_t)sel[i]; /* the bucket ord, until its subs are built */
        if ((st = sig_bg_freq(g, bk, &bk->bg))) return st;
        char msg[300];
        if (tv_sig_score(a, (int64_t)bk->doc_count, (int64_t)r->subset_size, (int64_t)bk->bg, (int64_t)r->superset_size,
                         &bk->score, msg, sizeof msg))
            return field_error(g, "%s", msg);
        ptr[k++] = bk;
    }
    size_t kept = tv_sig_rank(ptr, k, maxq, c->arena);
    if (kept == SIZE_MAX) return c_oom(g);
    r->b = tv_arena_calloc(c->arena, kept + 1, sizeof *r->b);
    if (!r->b) return c_oom(g);
    for (size_t i = 0; i < kept; i++) {
        r->b[i] = *ptr[i];
        uint64_t bo = (uint64_t)r->b[i].err;
        r->b[i].err = 0;
        if ((st = build_subs(g, bo, &r->b[i].subs))) return st;
    }
    r->nb = kept;
    return TROVE_OK;
}


static tv_status build_node(col *g, uint64_t ord, agg_res **out);

/* buildAggregation, timed when profiled */
static tv_status build(col *g, uint64_t ord, agg_res **out) {
    if (TV_LIKELY(!g->prof)) return build_node(g, ord, out);
    uint64_t t0 = tv_mono_ns();
    tv_status st = build_node(g, ord, out);
    g->prof->ns[TV_AT_BUILD_AGGREGATION] += tv_mono_ns() - t0;
    g->prof->n[TV_AT_BUILD_AGGREGATION]++;
    return st;
}

/* The shard result of g for parent ord `ord`. */
static tv_status build_node(col *g, uint64_t ord, agg_res **out) {
    tv_agg_ctx *c = g->ctx;
    if (g->counting && g->sv) {
        tv_status st = fold_counts(g);
        if (st) return st;
    }
    const tv_agg *a = g->a;
    agg_res *r = tv_arena_calloc(c->arena, 1, sizeof *r);
    if (!r) return c_oom(g);
    r->a = a;
    r->fmt = g->fmt;
    r->key_kind = g->kk;
    r->mapped = !g->unmapped || g->has_missing;
    r->min = INFINITY;
    r->max = -INFINITY;
    *out = r;
    if (!tv_agg_is_bucket(a->kind)) {
        if (ord < g->mcap) {
            mslot *s = &g->m[ord];
            r->count = s->count;
            r->sum = s->sum;
            r->comp = s->comp;
            r->min = s->min;
            r->max = s->max;
            r->sumsq = s->sumsq;
            r->sqcomp = s->sqcomp;
            r->wsum = s->wsum;
            r->wcomp = s->wcomp;
            r->sketch = s->sk;
            if (a->kind == TV_AGG_TOP_HITS) {
                r->max_score = (float)s->max;
                r->th_fields = g->thf;
                if (ord < g->thcap && g->thn[ord]) {
                    r->hits = (tv_hit *)tv_arena_memdup(c->arena, g->th[ord], g->thn[ord] * sizeof *g->th[ord]);
                    if (!r->hits) return c_oom(g);
                    r->nhits = g->thn[ord];
                }
            }
            /* InternalMedianAbsoluteDeviation's constructor computes the
             * value from the shard's sketch */
            if (a->kind == TV_AGG_MAD) {
                r->value = NAN;
                if (s->sk && tv_tdigest_mad(s->sk, &r->value)) return c_oom(g);
                r->has_value = true;
            }
            /* the coordinator serializes each shard result once to size
             * it (QueryPhaseResultConsumer): TDigestState.write compresses */
            if (s->sk && (a->kind == TV_AGG_PERCENTILES || a->kind == TV_AGG_PERCENTILE_RANKS || a->kind == TV_AGG_MAD) && !a->hdr &&
                tv_tdigest_compress(s->sk))
                return c_oom(g);
            if (s->sk) {
                /* the result owns the sketch now */
                int pushed = a->kind == TV_AGG_CARDINALITY ? tv_vec_push(&c->hlls, s->sk)
                             : a->hdr                      ? tv_vec_push(&c->hdrs, s->sk)
                                                           : tv_vec_push(&c->digests, s->sk);
                if (pushed) return c_oom(g);
                s->sk = NULL;
            }
        }
        return TROVE_OK;
    }
    if (a->kind == TV_AGG_VARIABLE_WIDTH_HISTOGRAM) {
        if (tv_vwh_finish(&g->vwh)) return c_oom(g);
        const tv_vwh *v = &g->vwh;
        r->b = tv_arena_calloc(c->arena, v->n + 1, sizeof *r->b);
        if (!r->b) return c_oom(g);
        r->nb = v->n;
        for (size_t k = 0; k < v->n; k++) {
            r->b[k].kd = v->cent[k];
            r->b[k].lo = v->cmin[k];
            r->b[k].to = v->cmax[k];
            r->b[k].doc_count = (uint64_t)v->csize[k];
        }
        return TROVE_OK;
    }
    /* the buckets of this parent ord */
    size_t nb = 0;
    for (size_t i = 0; i < g->b.len; i++) nb += g->b.items[i].parent == ord;
    uint32_t *sel = tv_arena_alloc(c->arena, (nb + 1) * sizeof *sel);
    if (!sel) return c_oom(g);
    nb = 0;
    for (size_t i = 0; i < g->b.len; i++)
        if (g->b.items[i].parent == ord) sel[nb++] = (uint32_t)i;
    if (a->kind == TV_AGG_SIGNIFICANT_TERMS || a->kind == TV_AGG_SIGNIFICANT_TEXT)
        return build_significant(g, ord, r, sel, nb);
    bool single = tv_agg_is_single_bucket(a->kind);
    size_t slots = single ? 1 : a->kind == TV_AGG_FILTERS ? g->nq + (a->other_bucket ? 1 : 0)
                                : a->kind == TV_AGG_RANGE || a->kind == TV_AGG_DATE_RANGE ? a->nranges : nb;
    r->b = tv_arena_calloc(c->arena, slots + 1, sizeof *r->b);
    if (!r->b) return c_oom(g);
    if (single || a->kind == TV_AGG_FILTERS || a->kind == TV_AGG_RANGE || a->kind == TV_AGG_DATE_RANGE) {
        /* fixed buckets, present even when empty */
        r->nb = slots;
        for (size_t k = 0; k < slots; k++) {
            agg_bucket *bk = &r->b[k];
            if (a->kind == TV_AGG_FILTERS) {
                bk->ks = k < g->nq ? a->filter_keys[k] : a->other_key;
                bk->klen = (uint32_t)strlen(bk->ks);
            } else if (a->kind == TV_AGG_RANGE || a->kind == TV_AGG_DATE_RANGE) {
                bk->kd = g->from[k];
                bk->to = g->to[k];
                bk->ki = (int64_t)k;
            }
        }
        for (size_t i = 0; i < nb; i++) {
            const bkt *x = &g->b.items[sel[i]];
            size_t k = single ? 0 : (size_t)x->key;
            r->b[k].doc_count = x->count;
            tv_status st = build_subs(g, sel[i], &r->b[k].subs);
            if (st) return st;
        }
        for (size_t k = 0; k < slots; k++) {
            if (r->b[k].subs || !a->nsubs) continue;
            /* an empty bucket's sub-aggregations: built from an ord no doc reached */
            tv_status st = build_subs(g, UINT64_MAX >> 1, &r->b[k].subs);
            if (st) return st;
        }
        if (single) r->doc_count = r->b[0].doc_count;
        return TROVE_OK;
    }
    /* terms / histograms: one bucket per key seen */
    size_t zeros = 0;
    if (a->kind == TV_AGG_TERMS && a->min_doc_count == 0) {
        /* every other key of the shard, with no docs */
        size_t nkeys = g->kk == TV_KEY_BYTES ? g->tids.len : g->allkeys.len;
        bool *seen = tv_arena_calloc(c->arena, nkeys + 1, 1);
        if (!seen) return c_oom(g);
        size_t fresh = nkeys;
        for (size_t i = 0; i < nb; i++) {
            int64_t k = g->b.items[sel[i]].key;
            if (g->kk == TV_KEY_BYTES) { if ((size_t)k < nkeys && !seen[k]) { seen[k] = true; fresh--; } }
            else
                for (size_t j = 0; j < nkeys; j++)
                    if (g->allkeys.items[j] == k && !seen[j]) { seen[j] = true; fresh--; break; }
        }
        agg_bucket *nbk = tv_arena_calloc(c->arena, nb + fresh + 1, sizeof *nbk);
        if (!nbk) return c_oom(g);
        r->b = nbk;
        for (size_t j = 0; j < nkeys; j++) {
            if (seen[j]) continue;
            agg_bucket *bk = &r->b[nb + zeros++];
            if (g->kk == TV_KEY_BYTES) { bk->ks = g->tids.items[j].s; bk->klen = g->tids.items[j].len; }
            else if (g->kk == TV_KEY_DOUBLE) bk->kd = tv_sortable_to_double(g->allkeys.items[j]);
            else bk->ki = g->allkeys.items[j];
            tv_status st = build_subs(g, UINT64_MAX >> 1, &bk->subs);
            if (st) return st;
        }
    }
    if (a->kind == TV_AGG_ADJACENCY_MATRIX) {
        /* AdjacencyMatrixAggregator.buildAggregations: non-empty buckets
         * only, the filters' (unless show_only_intersecting) then the
         * intersections', keyed "a" and "a<separator>b" */
        size_t k = 0;
        uint64_t n = g->nq;
        for (size_t i = 0; i < nb; i++) {
            const bkt *x = &g->b.items[sel[i]];
            if (!x->count) continue;
            uint64_t slot = (uint64_t)x->key;
            const char *key;
            if (slot < n) {
                if (a->only_intersecting) continue;
                key = a->filter_keys[slot];
            } else {
                uint64_t rest = slot - n, fi = 0;
                while (rest >= n - fi - 1) { rest -= n - fi - 1; fi++; }
                key = tv_arena_sprintf(c->arena, "%s%s%s", a->filter_keys[fi], a->separator, a->filter_keys[fi + 1 + rest]);
                if (!key) return c_oom(g);
            }
            agg_bucket *bk = &r->b[k++];
            bk->doc_count = x->count;
            bk->ks = key;
            bk->klen = (uint32_t)strlen(key);
            tv_status st = build_subs(g, sel[i], &bk->subs);
            if (st) return st;
        }
        r->nb = k;
        r->key_kind = TV_KEY_BYTES;
        r->mapped = true;
        return TROVE_OK;
    }
    for (size_t i = 0; i < nb; i++) {
        const bkt *x = &g->b.items[sel[i]];
        agg_bucket *bk = &r->b[i];
        bk->doc_count = x->count;
        if ((a->kind == TV_AGG_TERMS || a->kind == TV_AGG_COMPOSITE || a->kind == TV_AGG_MULTI_TERMS) && g->kk == TV_KEY_BYTES) {
            const termref *t = &g->tids.items[x->key];
            bk->ks = t->s;
            bk->klen = t->len;
        } else if (g->kk == TV_KEY_DOUBLE) {
            bk->kd = tv_sortable_to_double(x->key);
        } else {
            bk->ki = x->key;
        }
        tv_status st = build_subs(g, sel[i], &bk->subs);
        if (st) return st;
    }
    r->nb = nb + zeros;
    r->adh_idx = g->adh_idx;
    if (g->ntcols) {
        agg_fmt *tf = tv_arena_calloc(c->arena, g->ntcols, sizeof *tf);
        tv_key_kind *tk = tv_arena_calloc(c->arena, g->ntcols, sizeof *tk);
        if (!tf || !tk) return c_oom(g);
        for (uint32_t i = 0; i < g->ntcols; i++) {
            tf[i] = g->tcols[i]->fmt;
            tk[i] = g->tcols[i]->kk;
            /* composite date_histogram and histogram keys print raw unless
             * the source has a format (DateHistogramValuesSourceBuilder) */
            const tv_agg *n = a->tsrc[i].node;
            if (a->kind == TV_AGG_COMPOSITE && n->kind != TV_AGG_TERMS && !n->src.format) tf[i].kind = TV_FMT_RAW;
        }
        r->tfmt = tf;
        r->tkk = tk;
        r->mapped = true;
        for (uint32_t i = 0; i < g->ntcols; i++) r->mapped &= !g->tcols[i]->unmapped || a->tsrc[i].missing_bucket;
        r->after = g->after_enc;
        r->after_len = g->after_len;
    }
    return TROVE_OK;
}

/* ----------------------------------------------------------------- API */

void tv_agg_ctx_init(tv_agg_ctx *c, tv_arena *a, tv_error *err, int64_t max_buckets) {
    memset(c, 0, sizeof *c);
    c->arena = a;
    c->err = err;
    c->max_buckets = max_buckets;
    c->now_ms = tv_now_ms();
}

void tv_agg_ctx_fini(tv_agg_ctx *c) {
    for (size_t i = 0; i < c->shards.len; i++) tv_agg_shard_free(c->shards.items[i]);
    tv_vec_fini(&c->shards);
    for (size_t i = 0; i < c->hlls.len; i++) tv_hll_free(c->hlls.items[i]);
    for (size_t i = 0; i < c->digests.len; i++) tv_tdigest_free(c->digests.items[i]);
    for (size_t i = 0; i < c->hdrs.len; i++) tv_hdr_free(c->hdrs.items[i]);
    tv_vec_fini(&c->hdrs);
    tv_vec_fini(&c->hlls);
    tv_vec_fini(&c->digests);
}

tv_status tv_agg_shard_new(tv_agg_ctx *c, tv_dsl *d, const tv_aggs *aggs, const tv_search_target *t, bool global,
                           tv_agg_shard **out) {
    *out = NULL;
    bool any = false;
    for (uint32_t i = 0; i < aggs->n; i++)
        any |= !tv_agg_is_pipeline(aggs->items[i]->kind) && (aggs->items[i]->kind == TV_AGG_GLOBAL) == global;
    if (!any) return TROVE_OK;
    tv_agg_shard *s = tv_arena_calloc(c->arena, 1, sizeof *s);
    if (!s) return tv_error_oom(c->err);
    s->ctx = c;
    s->aggs_copy = *aggs;
    s->aggs = &s->aggs_copy;
    s->cols = tv_arena_calloc(c->arena, aggs->n + 1, sizeof *s->cols);
    if (!s->cols || tv_vec_push(&c->shards, s)) return tv_error_oom(c->err);
    *out = s;
    for (uint32_t i = 0; i < aggs->n; i++) {
        const tv_agg *a = aggs->items[i];
        if (tv_agg_is_pipeline(a->kind) || (a->kind == TV_AGG_GLOBAL) != global) continue;
        tv_status st = bind(c, d, a, t, true, &s->cols[i]);
        if (st) return st;
        s->cols[i]->root = true;
        /* the filter rewrite looks at the request only now */
        s->cols[i]->fr_state = c->match_all ? 0 : 2;
    }
    return TROVE_OK;
}

tv_status tv_agg_shard_segment(tv_agg_shard *s, const tv_segview *sv) {
    s->sv = sv;
    for (uint32_t i = 0; i < s->aggs->n; i++) {
        if (!s->cols[i]) continue;
        tv_status st = seg_col(s->cols[i], sv);
        if (st) return st;
    }
    return TROVE_OK;
}

tv_status tv_agg_collect(tv_agg_shard *s, uint32_t doc, float score) {
    s->ctx->score = score;
    for (uint32_t i = 0; i < s->aggs->n; i++) {
        if (!s->cols[i] || s->cols[i]->seg_done) continue;
        tv_status st = collect_one(s->cols[i], doc, 0);
        if (st) return st;
    }
    return TROVE_OK;
}

static int hit_segdoc_qcmp(const void *a, const void *b) {
    const tv_hit *x = a, *y = b;
    if (x->seg != y->seg) return x->seg < y->seg ? -1 : 1;
    return x->doc < y->doc ? -1 : x->doc > y->doc;
}

/* Each sampler's samples go to its sub-aggregations, in doc order, parents
 * before children (a sampler below a sampler samples the replay). */
static tv_status replay_samples(col *g) {
    if (g->a->kind == TV_AGG_SAMPLER) {
        const tv_snapshot *snap = g->t->snap;
        for (size_t ord = 0; ord < g->thcap; ord++) {
            tv_hit *l = g->th[ord];
            uint32_t n = g->thn[ord];
            if (!n) continue;
            qsort(l, n, sizeof *l, hit_segdoc_qcmp);
            uint32_t cur = UINT32_MAX;
            for (uint32_t i = 0; i < n; i++) {
                if (l[i].seg != cur) {
                    cur = l[i].seg;
                    g->sv = &snap->segs[cur];
                    for (uint32_t k = 0; k < g->nsubs; k++) {
                        if (!g->subs[k]) continue;
                        tv_status st = seg_col(g->subs[k], g->sv);
                        if (st) return st;
                    }
                }
                g->ctx->score = l[i].score;
                tv_status st = bucket_hit(g, l[i].doc, ord, 0);
                if (st) return st;
            }
        }
    }
    for (uint32_t k = 0; k < g->nsubs; k++) {
        if (!g->subs[k]) continue;
        tv_status st = replay_samples(g->subs[k]);
        if (st) return st;
    }
    return TROVE_OK;
}

/* postCollection, when profiled: the last segment's counts folded, then
 * the subs' (a sampler's replay, done before, is the top's). */
static tv_status post_prof(col *g, uint64_t t0) {
    tv_status st = TROVE_OK;
    if (g->counting && g->sv) st = fold_counts(g);
    for (uint32_t i = 0; !st && i < g->nsubs; i++)
        if (g->subs[i] && g->subs[i]->prof) st = post_prof(g->subs[i], tv_mono_ns());
    g->prof->ns[TV_AT_POST_COLLECTION] += tv_mono_ns() - t0;
    g->prof->n[TV_AT_POST_COLLECTION]++;
    return st;
}

tv_status tv_agg_shard_finish(tv_agg_shard *s, agg_res **out) {
    for (uint32_t i = 0; i < s->aggs->n; i++) {
        if (!s->cols[i]) continue;
        uint64_t t0 = s->cols[i]->prof ? tv_mono_ns() : 0;
        tv_status st = replay_samples(s->cols[i]);
        if (!st && s->cols[i]->prof) st = post_prof(s->cols[i], t0);
        if (st) return st;
    }
    for (uint32_t i = 0; i < s->aggs->n; i++) {
        if (!s->cols[i]) continue;
        tv_status st = build(s->cols[i], 0, &out[i]);
        if (st) return st;
    }
    return TROVE_OK;
}

void tv_agg_shard_free(tv_agg_shard *s) {
    if (!s) return;
    for (uint32_t i = 0; i < s->aggs->n; i++) free_col(s->cols[i]);
}

/* ------------------------------------------------------------ profiling */

/* InternalAggregationProfileTree.getTypeFromElement of the aggregator
 * OpenSearch's factory builds for the node (nested classes print as
 * Enclosing.Inner). */
static const char *agg_class(const col *g) {
    const tv_agg *a = g->a;
    bool range = g->f && g->f->type == TV_FT_RANGE;
    switch (a->kind) {
    case TV_AGG_TERMS:
        return g->kk == TV_KEY_BYTES ? "GlobalOrdinalsStringTermsAggregator" : "NumericTermsAggregator";
    case TV_AGG_HISTOGRAM: return range ? "RangeHistogramAggregator" : "NumericHistogramAggregator";
    case TV_AGG_DATE_HISTOGRAM: return range ? "DateRangeHistogramAggregator" : "DateHistogramAggregator";
    case TV_AGG_AUTO_DATE_HISTOGRAM:
        return g->top ? "AutoDateHistogramAggregator.FromSingle" : "AutoDateHistogramAggregator.FromMany";
    case TV_AGG_RANGE:
    case TV_AGG_DATE_RANGE: return "RangeAggregator";
    case TV_AGG_FILTER: return "FilterAggregator";
    case TV_AGG_FILTERS: return "FiltersAggregator";
    case TV_AGG_ADJACENCY_MATRIX: return "AdjacencyMatrixAggregator";
    case TV_AGG_MISSING: return "MissingAggregator";
    case TV_AGG_GLOBAL: return "GlobalAggregator";
    case TV_AGG_SAMPLER: return "SamplerAggregator";
    case TV_AGG_NESTED: return "NestedAggregator";
    case TV_AGG_REVERSE_NESTED: return "ReverseNestedAggregator";
    case TV_AGG_COMPOSITE: return "CompositeAggregator";
    case TV_AGG_MULTI_TERMS: return "MultiTermsAggregator";
    case TV_AGG_AVG: return "AvgAggregator";
    case TV_AGG_SUM: return "SumAggregator";
    case TV_AGG_MIN: return "MinAggregator";
    case TV_AGG_MAX: return "MaxAggregator";
    case TV_AGG_VALUE_COUNT: return "ValueCountAggregator";
    case TV_AGG_STATS: return "StatsAggregator";
    case TV_AGG_EXTENDED_STATS: return "ExtendedStatsAggregator";
    case TV_AGG_WEIGHTED_AVG: return "WeightedAvgAggregator";
    case TV_AGG_CARDINALITY: return "CardinalityAggregator";
    case TV_AGG_PERCENTILES: return a->hdr ? "HDRPercentilesAggregator" : "TDigestPercentilesAggregator";
    case TV_AGG_PERCENTILE_RANKS: return a->hdr ? "HDRPercentileRanksAggregator" : "TDigestPercentileRanksAggregator";
    case TV_AGG_MAD: return "MedianAbsoluteDeviationAggregator";
    case TV_AGG_TOP_HITS: return "TopHitsAggregator";
    default: return "Aggregator";
    }
}

/* The breakdown in the order OpenSearch's HashMap of twelve timing keys
 * iterates (as its responses print it). */
static const struct {
    tv_atiming t;
    bool count;
    const char *name;
} k_agg_breakdown[] = {
    {TV_AT_REDUCE, false, "reduce"},
    {TV_AT_POST_COLLECTION, true, "post_collection_count"},
    {TV_AT_BUILD_LEAF_COLLECTOR, false, "build_leaf_collector"},
    {TV_AT_BUILD_AGGREGATION, false, "build_aggregation"},
    {TV_AT_BUILD_AGGREGATION, true, "build_aggregation_count"},
    {TV_AT_BUILD_LEAF_COLLECTOR, true, "build_leaf_collector_count"},
    {TV_AT_POST_COLLECTION, false, "post_collection"},
    {TV_AT_INITIALIZE, false, "initialize"},
    {TV_AT_INITIALIZE, true, "initialize_count"},
    {TV_AT_REDUCE, true, "reduce_count"},
    {TV_AT_COLLECT, false, "collect"},
    {TV_AT_COLLECT, true, "collect_count"},
};

typedef struct dbg_map {
    const char *names[8];
    uint64_t vals[8];
    uint32_t n;
} dbg_map;

static void dbg_add(dbg_map *m, const char *name, uint64_t v) {
    m->names[m->n] = name;
    m->vals[m->n++] = v;
}

static void agg_debug(const col *g, tv_jw *w) {
    const aprof *p = g->prof;
    dbg_map dbg = {{0}, {0}, 0};
    switch (g->a->kind) {
    case TV_AGG_HISTOGRAM:
    case TV_AGG_DATE_HISTOGRAM:
    case TV_AGG_AUTO_DATE_HISTOGRAM:
        /* AbstractHistogramAggregator: the bucket ords created
         * (auto_date_histogram: those that survived the rebucketing) */
        dbg_add(&dbg, g->a->kind == TV_AGG_AUTO_DATE_HISTOGRAM ? "surviving_buckets" : "total_buckets", g->b.len);
        if (g->fr_optimized) { /* OptimizationContext.populateDebugInfo */
            dbg_add(&dbg, "optimized_segments", g->fr_optimized);
            dbg_add(&dbg, "unoptimized_segments", g->fr_segments - g->fr_optimized);
            dbg_add(&dbg, "leaf_visited", g->fr_leaf);
            dbg_add(&dbg, "inner_visited", g->fr_inner);
        }
        break;
    case TV_AGG_CARDINALITY:
        dbg_add(&dbg, "empty_collectors_used", p->empty);
        dbg_add(&dbg, "numeric_collectors_used", p->numeric);
        dbg_add(&dbg, "ordinals_collectors_used", p->ordinals);
        dbg_add(&dbg, "ordinals_collectors_overhead_too_high", p->ords_overhead);
        dbg_add(&dbg, "string_hashing_collectors_used", p->hashing);
        break;
    default: return;
    }
    /* the breakdown's debug map is a HashMap: printed in its order */
    uint32_t order[8];
    tv_java_hashmap_order(dbg.names, dbg.n, order);
    tv_jw_keyz(w, "debug");
    tv_jw_obj_begin(w);
    for (uint32_t i = 0; i < dbg.n; i++) {
        tv_jw_keyz(w, dbg.names[order[i]]);
        tv_jw_uint(w, dbg.vals[order[i]]);
    }
    tv_jw_obj_end(w);
}

static void agg_prof_write(const col *g, tv_jw *w) {
    const aprof *p = g->prof;
    uint64_t total = 0;
    for (int i = 0; i < TV_AT_COUNT; i++) total += p->ns[i];
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "type");
    tv_jw_strz(w, agg_class(g));
    tv_jw_keyz(w, "description");
    tv_jw_strz(w, g->a->name);
    tv_jw_keyz(w, "time_in_nanos");
    tv_jw_uint(w, total);
    tv_jw_keyz(w, "breakdown");
    tv_jw_obj_begin(w);
    for (size_t i = 0; i < TV_ARRAY_LEN(k_agg_breakdown); i++) {
        tv_jw_keyz(w, k_agg_breakdown[i].name);
        tv_jw_uint(w, k_agg_breakdown[i].count ? p->n[k_agg_breakdown[i].t] : p->ns[k_agg_breakdown[i].t]);
    }
    tv_jw_obj_end(w);
    agg_debug(g, w);
    bool any = false;
    for (uint32_t i = 0; i < g->nsubs; i++) any |= g->subs[i] && g->subs[i]->prof;
    if (any) {
        tv_jw_keyz(w, "children");
        tv_jw_arr_begin(w);
        for (uint32_t i = 0; i < g->nsubs; i++)
            if (g->subs[i] && g->subs[i]->prof) agg_prof_write(g->subs[i], w);
        tv_jw_arr_end(w);
    }
    tv_jw_obj_end(w);
}

void tv_agg_profile_write(const tv_agg_shard *s, tv_jw *w) {
    if (!s) return;
    for (uint32_t i = 0; i < s->aggs->n; i++)
        if (s->cols[i] && s->cols[i]->prof) agg_prof_write(s->cols[i], w);
}

const char *tv_agg_profile_names(const tv_agg_shard *s, tv_arena *a, size_t *count) {
    *count = 0;
    if (!s) return NULL;
    tv_buf b;
    tv_buf_init(&b);
    for (uint32_t i = 0; i < s->aggs->n; i++) {
        if (!s->cols[i]) continue;
        tv_buf_puts(&b, *count ? ", " : "");
        tv_buf_puts(&b, s->cols[i]->a->name);
        (*count)++;
    }
    const char *out = b.oom ? NULL : tv_arena_strndup(a, b.data ? b.data : "", b.len);
    tv_buf_fini(&b);
    return out;
}

uint64_t tv_agg_profile_collect_ns(const tv_agg_shard *s) {
    uint64_t ns = 0;
    for (uint32_t i = 0; s && i < s->aggs->n; i++)
        if (s->cols[i] && s->cols[i]->prof)
            ns += s->cols[i]->prof->ns[TV_AT_COLLECT] + s->cols[i]->prof->ns[TV_AT_BUILD_LEAF_COLLECTOR];
    return ns;
}
