/*
 * search.c — _search and _count: the request body, collection, and the
 * response as OpenSearch writes it.
 *
 * Flow: parse the body's top-level keys (SearchSourceBuilder's names and
 * errors) -> for each target: parse the query against that target's mapping
 * (dsl.c), gather statistics (exec.c prepare) -> for each segment: plan an
 * iterator tree, walk it, skip deleted docs, apply post_filter and
 * min_score, count totals, and offer each hit to a bounded binary heap of
 * from+size entries ordered by the sort (score desc / fields / _doc), ties
 * by global doc order (target, segment, doc) -> fetch _source, metadata and
 * docvalue fields for the page -> write {"took",...,"hits":{...}}.
 *
 * Counting: with no post_filter/min_score, a bare term (or match_all) on
 * a segment without deletes is counted from doc_freq (max_doc) without
 * iterating, as OpenSearch's shortcutTotalHitCount does; _count and size 0
 * then touch no postings at all.
 *
 * Pruning: when hits are ordered by score alone, once the heap is full and
 * the total is no longer needed (more than track_total_hits docs counted,
 * at once for false, or the segment's count known as above), the root
 * iterator is told the worst hit's score and may skip docs that cannot beat
 * it (exec.c); a skipped doc would have lost anyway (ties go to the earlier
 * doc), and the total printed is then the threshold with "gte", or the
 * known count, exactly as without skipping. A constant-score iterator
 * (match_all, filters, constant_score terms) ends as soon as the worst hit
 * scores as much as it does.
 *
 * Errors follow OpenSearch's split: what SearchSourceBuilder.parseXContent
 * and the query builders' fromXContent reject fails the request as is;
 * what fails on the shard (building the query, the sort, search_after,
 * docvalue_fields limits, the fetch phase) carries err->index so the api
 * wraps it in search_phase_execution_exception.
 *
 * Field-typed values: unsigned_long sort values, search_after and doc
 * values are exact unsigned integers (tv_sortable_to_unsigned; the
 * missing value is 0 or 2^64-1); date_nanos sorts in epoch nanoseconds and
 * takes formatted search_after dates; ip sort values and doc values print
 * the address. docvalue_fields come from the body and the URL parameter
 * (added, as RestSearchAction does); an explicit "format" prints dates
 * with that date format and numbers with a java.text.DecimalFormat-style
 * pattern (decimal_format: the digit/grouping subset docvalue formats use).
 *
 * _source filtering re-serialises the stored JSON with includes/excludes
 * applied (OpenSearch's XContentMapValues.filter: a pattern matches a full
 * dotted path; "*" is a wildcard; an include of an object keeps all of it).
 *
 * Aggregations (agg.h): parsed with the body, bound per target after its
 * query, fed every match (after min_score, before post_filter; a request
 * with aggregations takes no counting shortcut and no pruning), global
 * ones fed every live doc; the results are reduced and written after the
 * hits.
 *
 * Highlighting: highlight.c (parsed with the body, bound per target after
 * its query, written per hit after _source and fields).
 *
 * Explanations (explain: true) are explain.c's: the hit writer asks it for
 * each page hit's "_shard"/"_node" and "_explanation".
 *
 * Named queries (MatchedQueriesPhase): the parser keeps each "_name"d query
 * of the query and post_filter as a tree of its own (dsl.c); per target
 * they are rewritten and prepared alone, and the hit writer plans each on
 * a page hit's segment to print "matched_queries" (names in Java HashMap
 * order, or {name: score} with ?include_named_queries_score=true).
 *
 * Suggestions (suggest.c): "suggest" is parsed with the body (or built
 * from the suggest_* URL parameters), run per target and reduced after
 * the hits; "suggest" is written after the aggregations.
 *
 * Statistics (params->stats, request.h): each target's query phase
 * (collection, rescoring, its aggregations) is timed on its own, the fetch
 * phase (the page's hits written) once, and the targets whose hits are on
 * the page noted, so the api layer counts a query and a fetch per target
 * as OpenSearch's shards count theirs.
 *
 * Profiling ("profile": true, profile.c writes the section): per target
 * the query trees are built after the rewrite (timed as rewrite_time) and
 * timed by the query layer (query/profile.c) through the plan context,
 * the aggregators by the aggregations layer, and the collectors here: the
 * collection's wall time less the query's own iterator time, split
 * between the hits collector and the aggregations' (their own measured
 * collect time). Requests whose collectors trove does not name as
 * OpenSearch would (field sorts, search_after, collapse, min_score,
 * terminate_after, rescore, several top-level aggregations) are refused
 * with profile; nothing is measured when it is off.
 *
 * script_fields (qscript.c's runs per page hit, after the other document
 * fields) compile per target after the query; with script_fields the
 * _source is left out unless asked for (FetchPhase).
 *
 * Not yet here (fail loudly, never approximated): slice,
 * point-in-time slices, the phrase and completion suggesters.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "aggs/aggs.h"
#include "fetch/fetch.h"
#include "fetch/highlight.h"
#include "index/date.h"
#include "query/parse.h"
#include "search/search_int.h"
#include "search/suggest.h"

void tv_search_dsl_init(tv_dsl *d, tv_arena *arena, tv_error *err, const tv_search_params *params) {
    tv_dsl_init(d, arena, err, params);
    d->inner_hits = &tv_fetch_inner_hits;
}

/* ------------------------------------------------------------- the body */

typedef struct src_filter {
    bool fetch;
    const char **inc;
    size_t ninc;
    const char **exc;
    size_t nexc;
} src_filter;

/* One rescorer (QueryRescorerBuilder): the window's combined score is
 * score_mode(first * query_weight, second * rescore_query_weight) where
 * the rescore query matches, first * query_weight elsewhere. */
typedef enum { RS_TOTAL, RS_MULTIPLY, RS_AVG, RS_MAX, RS_MIN } rescore_mode;
typedef struct rescorer {
    const tv_json *query;
    int64_t window;
    float qw, rw;
    rescore_mode mode;
} rescorer;

typedef struct index_boost {
    const char *index; /* a name or a pattern */
    float boost;
} index_boost;

typedef struct req {
    const tv_json *query, *post_filter, *search_after;
    int64_t from, size;
    int64_t track_limit; /* INT64_MAX exact; 0: no total; else threshold */
    bool track_false;
    bool track_scores;
    bool has_min_score;
    float min_score;
    tv_sort_spec *sorts;
    size_t nsorts;
    src_filter src;
    const char **dv_fields;
    const char **dv_formats; /* per entry: NULL or the "format" given */
    size_t ndv;
    bool stored_none;
    bool src_explicit;   /* _source given in the body or the URL */
    const char **stored; /* stored_fields names (not _none_) */
    size_t nstored;
    bool version, seq_no;
    int64_t terminate_after;
    int64_t timeout_ns; /* search timeout (<= 0: none) */
    tv_aggs aggs;        /* aggs.n 0: none */
    rescorer *rescores;  /* applied in order to each target's top hits */
    size_t nrescores;
    index_boost *boosts; /* indices_boost, in request order */
    size_t nboosts;
    const char *collapse; /* collapse.field */
    const tv_json **inner; /* collapse.inner_hits definitions */
    size_t ninner;
    tv_fetch_spec *fetch; /* "fields" */
    size_t nfetch;
    tv_hl *hl;           /* highlight: NULL when not asked for */
    bool explain;         /* explain: true (explain.c writes the explanations) */
    tv_suggest *suggest;  /* suggest.c; NULL: none */
    bool profile;         /* "profile": true (profile.c writes the section) */
    const tv_json *script_fields; /* the script_fields object (NULL: none) */
} req;

static tv_status perr(tv_dsl *d, uint32_t off, const char *fmt, ...) TV_PRINTF(3, 4);
static tv_status perr(tv_dsl *d, uint32_t off, const char *fmt, ...) {
    char buf[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return tv_dsl_error(d, TROVE_EPARSE, off, "%s", buf);
}

static const char *dupz(tv_arena *a, const char *s, size_t n) { return tv_arena_strndup(a, s, n); }

static tv_status parse_sort(tv_dsl *d, const tv_json *v, req *r) {
    size_t n = 0;
    tv_status st = tv_sort_parse(d, v, &r->sorts, &n);
    r->nsorts = n;
    return st;
}

static tv_status str_list(tv_dsl *d, const tv_json *v, const char ***out, size_t *n) {
    if (v->type == TV_JSON_STRING) {
        *out = tv_arena_alloc(d->arena, sizeof **out);
        if (!*out) return TROVE_ENOMEM;
        (*out)[0] = v->v.s;
        *n = 1;
        return TROVE_OK;
    }
    if (v->type != TV_JSON_ARRAY) return perr(d, v->off, "Unknown key for a %s in [_source].", tv_dsl_token_name(v));
    *out = tv_arena_alloc(d->arena, (v->len + 1) * sizeof **out);
    if (!*out) return TROVE_ENOMEM;
    *n = 0;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json *e = &v->v.items[i];
        if (e->type != TV_JSON_STRING) return perr(d, e->off, "Unknown key for a %s in [_source].", tv_dsl_token_name(e));
        (*out)[(*n)++] = e->v.s;
    }
    return TROVE_OK;
}

static tv_status parse_source(tv_dsl *d, const tv_json *v, src_filter *sf) {
    if (v->type == TV_JSON_TRUE) { sf->fetch = true; return TROVE_OK; }
    if (v->type == TV_JSON_FALSE) { sf->fetch = false; return TROVE_OK; }
    if (v->type == TV_JSON_STRING || v->type == TV_JSON_ARRAY) return str_list(d, v, &sf->inc, &sf->ninc);
    if (v->type == TV_JSON_OBJECT) {
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json_member *m = &v->v.members[i];
            tv_status st;
            if (tv_streq(m->key, m->key_len, "includes") || tv_streq(m->key, m->key_len, "include"))
                st = str_list(d, &m->val, &sf->inc, &sf->ninc);
            else if (tv_streq(m->key, m->key_len, "excludes") || tv_streq(m->key, m->key_len, "exclude"))
                st = str_list(d, &m->val, &sf->exc, &sf->nexc);
            else
                st = perr(d, m->val.off, "Unknown key for a %s in [%s].", tv_dsl_token_name(&m->val), m->key);
            if (st) return st;
        }
        return TROVE_OK;
    }
    return perr(d, v->off, "Unknown key for a %s in [_source].", tv_dsl_token_name(v));
}

/* track_total_hits: a boolean (or "true"/"false"), else intValue(); -1 is
 * TRACK_TOTAL_HITS_DISABLED. */
static tv_status parse_track(tv_dsl *d, const tv_json *v, req *r) {
    if (v->type == TV_JSON_TRUE || (v->type == TV_JSON_STRING && tv_streq(v->v.s, v->len, "true"))) {
        r->track_limit = INT64_MAX;
        r->track_false = false;
        return TROVE_OK;
    }
    if (v->type == TV_JSON_FALSE || (v->type == TV_JSON_STRING && tv_streq(v->v.s, v->len, "false"))) {
        r->track_limit = 0;
        r->track_false = true;
        return TROVE_OK;
    }
    int32_t n;
    tv_status st = tv_dsl_java_int(d, v, &n);
    if (st) return st;
    if (n < -1)
        return tv_dsl_error(d, TROVE_EVALIDATION, v->off, "Validation Failed: 1: [track_total_hits] parameter must be positive or equals to -1, got %d;", n);
    r->track_limit = n < 0 ? 0 : n;
    r->track_false = n < 0;
    return TROVE_OK;
}

/* TimeValue.parseTimeValue(text, "timeout"): "-1", "0", or a whole number
 * with a unit (nanos, micros, ms, s, m (case-sensitive), h, d). */
static tv_status parse_timeout(tv_dsl *d, const char *v, size_t n, int64_t *ns) {
    return tv_parse_time_value(v, n, "timeout", ns, d->err);
}

/* from / size: intValue(), then the setters' checks. */
static tv_status parse_from_size(tv_dsl *d, const char *name, const tv_json *v, int64_t *out) {
    int32_t n;
    tv_status st = tv_dsl_java_int(d, v, &n);
    if (st) return st;
    if (n < 0) return tv_error_set(d->err, TROVE_EARG, "[%s] parameter cannot be negative, found [%d]", name, n);
    *out = n;
    return TROVE_OK;
}

/* StoredFieldsContext.fromXContent: a string or an array of strings;
 * "_none_" alone disables stored fields (and _id, _source). */
static tv_status parse_stored(tv_dsl *d, const tv_json *v, req *r) {
    const tv_json *items = v->type == TV_JSON_ARRAY ? v->v.items : v;
    uint32_t n = v->type == TV_JSON_ARRAY ? v->len : 1;
    r->stored = tv_arena_alloc(d->arena, (n + 1) * sizeof *r->stored);
    if (!r->stored) return tv_error_oom(d->err);
    r->nstored = 0;
    for (uint32_t i = 0; i < n; i++) {
        const tv_json *e = &items[i];
        if (e->type != TV_JSON_STRING)
            return perr(d, e->off, "Expected [VALUE_STRING] in [stored_fields] but found [%s]", tv_dsl_token_name(e));
        r->stored[r->nstored++] = e->v.s;
    }
    r->stored_none = false;
    if (r->nstored == 1 && strcmp(r->stored[0], "_none_") == 0) {
        r->stored_none = true;
        r->nstored = 0;
    }
    return TROVE_OK;
}

/* One rescore object: {"window_size": N, "query": {...}} (RescorerBuilder
 * .parseFromXContent, QueryRescorerBuilder.fromXContent). */
static tv_status parse_rescorer(tv_dsl *d, const tv_json *v, rescorer *o) {
    o->window = 10;
    o->qw = 1;
    o->rw = 1;
    o->mode = RS_TOTAL;
    o->query = NULL;
    if (v->type != TV_JSON_OBJECT) return perr(d, v->off, "rescore doesn't support [%s]", tv_dsl_token_name(v));
    bool have = false;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        if (tv_streq(m->key, m->key_len, "window_size")) {
            int32_t w;
            tv_status st = tv_dsl_java_int(d, &m->val, &w);
            if (st) return st;
            o->window = w;
        } else if (m->val.type == TV_JSON_OBJECT && tv_streq(m->key, m->key_len, "query")) {
            have = true;
            for (uint32_t j = 0; j < m->val.len; j++) {
                const tv_json_member *q = &m->val.v.members[j];
                tv_status st = TROVE_OK;
                if (tv_streq(q->key, q->key_len, "rescore_query")) o->query = &q->val;
                else if (tv_streq(q->key, q->key_len, "query_weight")) st = tv_dsl_java_float(d, &q->val, &o->qw);
                else if (tv_streq(q->key, q->key_len, "rescore_query_weight")) st = tv_dsl_java_float(d, &q->val, &o->rw);
                else if (tv_streq(q->key, q->key_len, "score_mode")) {
                    const char *sm = q->val.type == TV_JSON_STRING ? q->val.v.s : "";
                    if (!strcmp(sm, "total")) o->mode = RS_TOTAL;
                    else if (!strcmp(sm, "multiply")) o->mode = RS_MULTIPLY;
                    else if (!strcmp(sm, "avg")) o->mode = RS_AVG;
                    else if (!strcmp(sm, "max")) o->mode = RS_MAX;
                    else if (!strcmp(sm, "min")) o->mode = RS_MIN;
                    else return tv_error_set(d->err, TROVE_EARG, "illegal score_mode [%s]", sm);
                } else {
                    uint32_t l = 0, c = 0;
                    if (d->src) tv_json_linecol(d->src, d->src_len, q->key_off, &l, &c);
                    return tv_dsl_error(d, TROVE_EXCONTENT, q->key_off, "[%u:%u] [query] unknown field [%s]", l, c, q->key);
                }
                if (st) return st;
            }
            if (!o->query) return tv_error_set(d->err, TROVE_EARG, "[query] requires [rescore_query]");
        } else if (m->val.type == TV_JSON_OBJECT) {
            return perr(d, m->key_off, "rescore doesn't support rescorer with name [%s]", m->key);
        } else {
            return perr(d, m->key_off, "rescore doesn't support [%s]", m->key);
        }
    }
    if (!have) return perr(d, v->off, "missing rescore type");
    return TROVE_OK;
}

static tv_status parse_rescore(tv_dsl *d, const tv_json *v, req *r) {
    size_t n = v->type == TV_JSON_ARRAY ? v->len : 1;
    r->rescores = tv_arena_calloc(d->arena, n + 1, sizeof *r->rescores);
    if (!r->rescores) return TROVE_ENOMEM;
    r->nrescores = n;
    for (size_t i = 0; i < n; i++) {
        tv_status st = parse_rescorer(d, v->type == TV_JSON_ARRAY ? &v->v.items[i] : v, &r->rescores[i]);
        if (st) return st;
    }
    return TROVE_OK;
}

/* indices_boost: [{"index": boost}, ...] (or the older {"index": boost}). */
static tv_status parse_indices_boost(tv_dsl *d, const tv_json *v, req *r) {
    size_t n = 0;
    if (v->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json *e = &v->v.items[i];
            if (e->type != TV_JSON_OBJECT) return perr(d, e->off, "Expected [START_OBJECT] in [indices_boost] but found [%s]", tv_dsl_token_name(e));
            if (e->len != 1) return perr(d, e->off, "Expected [END_OBJECT] in [indices_boost] but found [%s]", e->len ? "FIELD_NAME" : "END_OBJECT");
            n++;
        }
    } else if (v->type == TV_JSON_OBJECT) {
        n = v->len;
    } else {
        return perr(d, v->off, "Expected [START_ARRAY] in [indices_boost] but found [%s]", tv_dsl_token_name(v));
    }
    r->boosts = tv_arena_calloc(d->arena, n + 1, sizeof *r->boosts);
    if (!r->boosts) return TROVE_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const tv_json_member *m = v->type == TV_JSON_ARRAY ? &v->v.items[i].v.members[0] : &v->v.members[i];
        if (!tv_json_is_number(&m->val)) return perr(d, m->val.off, "Expected [VALUE_NUMBER] in [indices_boost] but found [%s]", tv_dsl_token_name(&m->val));
        r->boosts[i].index = m->key;
        r->boosts[i].boost = (float)tv_json_as_double(&m->val);
    }
    r->nboosts = n;
    return TROVE_OK;
}

/* collapse: {"field": f} (CollapseBuilder); inner_hits is refused by name. */
static tv_status parse_collapse(tv_dsl *d, const tv_json *v, req *r) {
    if (v->type != TV_JSON_OBJECT) return perr(d, v->off, "Unknown key for a %s in [collapse].", tv_dsl_token_name(v));
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        if (tv_streq(m->key, m->key_len, "field") && m->val.type == TV_JSON_STRING) r->collapse = m->val.v.s;
        else if (tv_streq(m->key, m->key_len, "inner_hits")) {
            const tv_json *iv = &m->val;
            size_t n = iv->type == TV_JSON_ARRAY ? iv->len : 1;
            r->inner = tv_arena_calloc(d->arena, n + 1, sizeof *r->inner);
            if (!r->inner) return TROVE_ENOMEM;
            for (size_t k = 0; k < n; k++) {
                const tv_json *e = iv->type == TV_JSON_ARRAY ? &iv->v.items[k] : iv;
                if (e->type != TV_JSON_OBJECT) return perr(d, e->off, "[inner_hits] must be an object");
                r->inner[r->ninner++] = e;
            }
        }
        else if (tv_streq(m->key, m->key_len, "max_concurrent_group_searches")) {
            int32_t x;
            tv_status st = tv_dsl_java_int(d, &m->val, &x);
            if (st) return st;
            if (x < 1) return tv_error_set(d->err, TROVE_EARG, "maxConcurrentGroupRequests must be positive, got %d", x);
        } else {
            uint32_t l = 0, c = 0;
            if (d->src) tv_json_linecol(d->src, d->src_len, m->key_off, &l, &c);
            return tv_dsl_error(d, TROVE_EXCONTENT, m->key_off, "[%u:%u] [collapse] unknown field [%s]", l, c, m->key);
        }
    }
    if (!r->collapse) return tv_error_set(d->err, TROVE_EARG, "field name is null or empty");
    return TROVE_OK;
}

/* SearchSourceBuilder's script_fields: {name: {script, ignore_failure}}
 * (ScriptField's parser); the scripts compile per target (parse_target). */
static tv_status parse_script_fields(tv_dsl *d, const tv_json *v, req *r) {
    if (v->type != TV_JSON_OBJECT)
        return perr(d, v->off, "Unknown key for a %s in [script_fields].", tv_dsl_token_name(v));
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        if (m->val.type != TV_JSON_OBJECT)
            return perr(d, m->val.off, "Expected [START_OBJECT] in [script_fields] but found [%s]", tv_dsl_token_name(&m->val));
        bool has_script = false;
        for (uint32_t j = 0; j < m->val.len; j++) {
            const tv_json_member *f = &m->val.v.members[j];
            if (tv_streq(f->key, f->key_len, "script")) {
                has_script = true;
            } else if (tv_streq(f->key, f->key_len, "ignore_failure")) {
                if (f->val.type != TV_JSON_TRUE && f->val.type != TV_JSON_FALSE)
                    return perr(d, f->val.off, "Unknown key for a %s in [%s].", tv_dsl_token_name(&f->val), f->key);
            } else if (f->val.type == TV_JSON_OBJECT || f->val.type == TV_JSON_ARRAY) {
                return perr(d, f->val.off, "Unknown key for a %s in [%s].", tv_dsl_token_name(&f->val), f->key);
            } else {
                return perr(d, f->val.off, "Unknown key for a %s in [%s].", tv_dsl_token_name(&f->val), f->key);
            }
        }
        if (!has_script) return perr(d, m->val.off, "Expected [script] in [%s] but found none", m->key);
    }
    r->script_fields = v;
    return TROVE_OK;
}

static tv_status parse_body(tv_dsl *d, const tv_json *body, req *r) {
    if (!body) return TROVE_OK;
    if (body->type != TV_JSON_OBJECT) return perr(d, body->off, "Expected [START_OBJECT] but found [%s]", tv_dsl_token_name(body));
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const char *k = m->key;
        size_t kl = m->key_len;
        const tv_json *v = &m->val;
        tv_status st = TROVE_OK;
        bool obj = v->type == TV_JSON_OBJECT, arr = v->type == TV_JSON_ARRAY;
        if (obj && tv_streq(k, kl, "query")) r->query = v;
        else if (obj && tv_streq(k, kl, "post_filter")) r->post_filter = v;
        else if (tv_streq(k, kl, "from") && !obj && !arr) st = parse_from_size(d, "from", v, &r->from);
        else if (tv_streq(k, kl, "size") && !obj && !arr) st = parse_from_size(d, "size", v, &r->size);
        else if (tv_streq(k, kl, "sort")) st = parse_sort(d, v, r);
        else if (tv_streq(k, kl, "_source")) {
            r->src.fetch = true;
            r->src_explicit = true;
            st = parse_source(d, v, &r->src);
        } else if (tv_streq(k, kl, "track_total_hits") && !obj && !arr) st = parse_track(d, v, r);
        else if (tv_streq(k, kl, "track_scores") && !obj && !arr) st = tv_dsl_bool(d, "search", "track_scores", v, &r->track_scores);
        else if (tv_streq(k, kl, "min_score") && !obj && !arr) { st = tv_dsl_java_float(d, v, &r->min_score); r->has_min_score = true; }
        else if (arr && tv_streq(k, kl, "search_after")) r->search_after = v;
        else if (tv_streq(k, kl, "docvalue_fields") && arr) {
            st = tv_fetch_docvalues_parse(d, v, &r->dv_fields, &r->dv_formats, &r->ndv);
        } else if (tv_streq(k, kl, "stored_fields") && !obj) {
            st = parse_stored(d, v, r);
        } else if (tv_streq(k, kl, "explain") && !obj && !arr) {
            st = tv_dsl_bool(d, "search", "explain", v, &r->explain);
        } else if (tv_streq(k, kl, "version") && !obj && !arr) st = tv_dsl_bool(d, "search", "version", v, &r->version);
        else if (tv_streq(k, kl, "seq_no_primary_term") && !obj && !arr) st = tv_dsl_bool(d, "search", "seq_no_primary_term", v, &r->seq_no);
        else if (tv_streq(k, kl, "terminate_after") && !obj && !arr) {
            int32_t ta;
            st = tv_dsl_java_int(d, v, &ta);
            if (!st) r->terminate_after = ta;
        } else if (tv_streq(k, kl, "timeout") && !obj && !arr) {
            const char *ts;
            size_t tl;
            if (!tv_dsl_scalar_text(v, &ts, &tl)) { ts = "null"; tl = 4; }
            st = parse_timeout(d, ts, tl, &r->timeout_ns);
        } else if (tv_streq(k, kl, "profile") && !obj && !arr) {
            st = tv_dsl_bool(d, "search", "profile", v, &r->profile);
        } else if (tv_streq(k, kl, "_name") && !obj && !arr) ;
        else if ((tv_streq(k, kl, "aggs") || tv_streq(k, kl, "aggregations")) && obj) {
            if (r->aggs.n)
                st = perr(d, v->off, "Found two aggregation definitions in [%s]", k);
            else
                st = tv_aggs_parse(d, v, &r->aggs);
        } else if (tv_streq(k, kl, "aggs") || tv_streq(k, kl, "aggregations")) {
            st = perr(d, v->off, "Unknown key for a %s in [%s].", tv_dsl_token_name(v), k);
        } else if (tv_streq(k, kl, "rescore")) {
            st = parse_rescore(d, v, r);
        } else if (tv_streq(k, kl, "indices_boost")) {
            st = parse_indices_boost(d, v, r);
        } else if (tv_streq(k, kl, "collapse")) {
            st = parse_collapse(d, v, r);
        } else if (tv_streq(k, kl, "fields")) {
            st = tv_fetch_fields_parse(d, v, &r->fetch, &r->nfetch);
        } else if (tv_streq(k, kl, "highlight")) { /* highlight */
            st = tv_hl_parse(d, v, &r->hl);
        } else if (tv_streq(k, kl, "suggest") && obj) { /* suggest.c */
            st = tv_suggest_parse(d, v, &r->suggest);
        } else if (tv_streq(k, kl, "script_fields")) {
            st = parse_script_fields(d, v, r);
        } else if (tv_streq(k, kl, "slice") || tv_streq(k, kl, "pit") ||
                 tv_streq(k, kl, "stats") ||
                 tv_streq(k, kl, "ext") || tv_streq(k, kl, "knn") || tv_streq(k, kl, "search_pipeline")) {
            st = tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off, "[%s] is not supported by trove", k);
        } else {
            st = perr(d, v->off, "Unknown key for a %s in [%s].", tv_dsl_token_name(v), k);
        }
        if (st) return st;
    }
    return TROVE_OK;
}

/* URL parameters override the body. */
static tv_status apply_params(tv_dsl *d, const tv_search_params *p, req *r) {
    if (!p) return TROVE_OK;
    if (p->suggest_field) { /* suggest.c: RestSearchAction's term suggestion */
        tv_status sst = tv_suggest_from_params(d, p, &r->suggest);
        if (sst) return sst;
    }
    if (p->from >= 0 || p->from < -1) r->from = p->from;
    if (p->size >= 0 || p->size < -1) r->size = p->size;
    if (p->terminate_after >= 0) r->terminate_after = p->terminate_after;
    if (p->timeout) { /* RestSearchAction: ?timeout= overrides the body's */
        tv_status tst = parse_timeout(d, p->timeout, strlen(p->timeout), &r->timeout_ns);
        if (tst) return tst;
    }
    if (p->version) r->version = true;
    if (p->seq_no_primary_term) r->seq_no = true;
    if (p->explain) r->explain = true;
    if (p->docvalue_fields && *p->docvalue_fields) {
        /* RestSearchAction: each comma-separated name is added to the
         * body's docvalue_fields (without a format) */
        size_t extra = 1;
        for (const char *q = p->docvalue_fields; *q; q++) extra += *q == ',';
        const char **nf = tv_arena_alloc(d->arena, (r->ndv + extra + 1) * sizeof *nf);
        const char **nfmt = tv_arena_calloc(d->arena, r->ndv + extra + 1, sizeof *nfmt);
        if (!nf || !nfmt) return tv_error_oom(d->err);
        if (r->ndv) {
            memcpy(nf, r->dv_fields, r->ndv * sizeof *nf);
            if (r->dv_formats) memcpy(nfmt, r->dv_formats, r->ndv * sizeof *nfmt);
        }
        const char *q = p->docvalue_fields;
        while (*q) {
            const char *e = strchr(q, ',');
            size_t l = e ? (size_t)(e - q) : strlen(q);
            if (l) {
                nf[r->ndv] = dupz(d->arena, q, l);
                if (!nf[r->ndv]) return tv_error_oom(d->err);
                r->ndv++;
            }
            q += l + (e ? 1 : 0);
        }
        r->dv_fields = nf;
        r->dv_formats = nfmt;
    }
    if (p->q && tv_query_string_from_params(d->arena, p, &r->query)) return tv_error_oom(d->err);
    if (p->track_total_hits) {
        const char *t = p->track_total_hits;
        int64_t n;
        /* RestSearchAction: a boolean, else paramAsInt then
         * trackTotalHitsUpTo's check (-1 disables) */
        if (!strcmp(t, "true")) { r->track_limit = INT64_MAX; r->track_false = false; }
        else if (!strcmp(t, "false")) { r->track_limit = 0; r->track_false = true; }
        else if (strlen(t) < 12 && (tv_parse_i64(t, strlen(t), &n) || (t[0] == '+' && tv_parse_i64(t + 1, strlen(t + 1), &n))) &&
                 n >= INT32_MIN && n <= INT32_MAX) {
            if (n < -1)
                return tv_error_set(d->err, TROVE_EARG, "[track_total_hits] parameter must be positive or equals to -1, got %lld", (long long)n);
            r->track_limit = n < 0 ? 0 : n;
            r->track_false = n < 0;
        } else {
            /* (OpenSearch's paramAsInt also carries the NumberFormatException
             * as caused_by; the api tests pin the bare form for now) */
            return tv_error_set(d->err, TROVE_EARG, "Failed to parse int parameter [track_total_hits] with value [%s]", t);
        }
    }
    if (p->source || p->source_includes || p->source_excludes) r->src_explicit = true;
    if (p->source) {
        if (!strcmp(p->source, "false")) r->src.fetch = false;
        else if (!strcmp(p->source, "true")) r->src.fetch = true;
        else {
            /* a,b: includes */
            r->src.fetch = true;
            size_t cnt = 1;
            for (const char *c = p->source; *c; c++) cnt += *c == ',';
            r->src.inc = tv_arena_alloc(d->arena, cnt * sizeof *r->src.inc);
            if (!r->src.inc) return TROVE_ENOMEM;
            r->src.ninc = 0;
            const char *s = p->source;
            while (*s) {
                const char *e = strchr(s, ',');
                size_t l = e ? (size_t)(e - s) : strlen(s);
                r->src.inc[r->src.ninc++] = dupz(d->arena, s, l);
                s = e ? e + 1 : s + l;
            }
        }
    }
    const char *lists[2] = {p->source_includes, p->source_excludes};
    for (int w = 0; w < 2; w++) {
        if (!lists[w]) continue;
        size_t cnt = 1;
        for (const char *c = lists[w]; *c; c++) cnt += *c == ',';
        const char **arr = tv_arena_alloc(d->arena, cnt * sizeof *arr);
        if (!arr) return TROVE_ENOMEM;
        size_t n = 0;
        const char *s = lists[w];
        while (*s) {
            const char *e = strchr(s, ',');
            size_t l = e ? (size_t)(e - s) : strlen(s);
            arr[n++] = dupz(d->arena, s, l);
            s = e ? e + 1 : s + l;
        }
        if (w == 0) { r->src.inc = arr; r->src.ninc = n; }
        else { r->src.exc = arr; r->src.nexc = n; }
        r->src.fetch = true;
    }
    if (p->sort) {
        TV_VEC(tv_sort_spec) specs = {0};
        const char *s = p->sort;
        while (*s) {
            const char *e = strchr(s, ',');
            size_t l = e ? (size_t)(e - s) : strlen(s);
            const char *colon = memchr(s, ':', l);
            size_t nl = colon ? (size_t)(colon - s) : l;
            tv_json fake = {0};
            fake.type = TV_JSON_STRING;
            fake.v.s = dupz(d->arena, s, nl);
            fake.len = (uint32_t)nl;
            tv_sort_spec *one = NULL;
            size_t n1 = 0;
            tv_status st = fake.v.s ? tv_sort_parse(d, &fake, &one, &n1) : tv_error_oom(d->err);
            if (!st && n1 && tv_vec_push(&specs, one[0])) st = tv_error_oom(d->err);
            if (st) { tv_vec_fini(&specs); return st; }
            if (colon) {
                size_t ol = l - nl - 1;
                if (tv_streq(colon + 1, ol, "asc")) specs.items[specs.len - 1].desc = false;
                else if (tv_streq(colon + 1, ol, "desc")) specs.items[specs.len - 1].desc = true;
                else { tv_vec_fini(&specs); return tv_error_set(d->err, TROVE_EARG, "Unknown SortOrder [%.*s]", (int)ol, colon + 1); }
            }
            s = e ? e + 1 : s + l;
        }
        r->sorts = tv_arena_alloc(d->arena, (specs.len + 1) * sizeof *r->sorts);
        if (!r->sorts) { tv_vec_fini(&specs); return TROVE_ENOMEM; }
        if (specs.len) memcpy(r->sorts, specs.items, specs.len * sizeof *r->sorts);
        r->nsorts = specs.len;
        tv_vec_fini(&specs);
    }
    return TROVE_OK;
}

/* -------------------------------------------------------------- the hits */

typedef struct sval {
    uint8_t kind;    /* 0 missing, 1 int64, 2 bytes */
    int64_t i;
    const char *s;
    uint32_t len;
} sval;

typedef struct hit {
    float score;
    uint32_t target, seg, doc;
    sval *sv;
    sval cv; /* collapse: the group's value (kind 0: missing) */
} hit;

typedef struct tfield {
    const tv_field *f; /* per target: NULL when unmapped */
    /* a nested sort: the path, its filter, and the current segment's
     * docs of the path that pass it (NULL: none here) */
    const tv_field *npath;
    tv_query *nfilter;
    const uint64_t *nkids;
    tv_qscript *qs; /* a _script sort: its script, compiled for the target */
} tfield;

typedef struct coll {
    const req *r;
    hit *heap;
    size_t n, cap;
    sval *store;     /* cap * nsorts */
    sval *scratch;   /* nsorts */
    sval *after;     /* search_after values */
    uint64_t total;
    float max_score;
    bool need_scores;
    /* first_key_loses on a keyword: where the worst hit's first key falls
     * among the ords of segment bseg, for heap generation bgen */
    uint64_t gen; /* bumped whenever the heap changes */
    const tv_segview *bseg;
    uint64_t bgen;
    uint32_t bord;  /* the first ord whose term is >= the worst hit's */
    bool bexact;    /* ... and that term equals it */
    /* collapse: the best hit of each value, whatever the page size */
    bool collapsing;
    tv_map gmap;    /* encoded value -> group index + 1 */
    TV_VEC(hit) groups;
    tv_buf gkey;    /* the encoded value of the doc at hand, reused */
    tv_arena *arena;
    tv_error *err;
    bool terminated; /* terminate_after stopped a target's collection */
    uint64_t deadline; /* the search timeout's end (monotonic ns; 0: none) */
    bool timed_out;    /* it passed: collection stopped, results partial */
    tv_dv_reader *rd;        /* per sort key: numeric doc values of segment rd_seg */
    const tv_segview *rd_seg;
    /* a sort key on a field that is floating in some targets and integral
     * in others (mixed[k]) compares as doubles, as the coordinator widens
     * it; floating[t * nsorts + k] says how target t encodes key k */
    const bool *mixed;
    const bool *floating;
    /* _script sorts: the target's mapping and the doc's score while its
     * keys are read, and the first script failure (sort_value cannot
     * return it) */
    const tv_mapping *cur_mapping;
    float cur_score;
    tv_status sst;
    const char *cur_index;
} coll;

static int sval_cmp(const sval *a, const sval *b, bool missing_first) {
    if (a->kind == 0 || b->kind == 0) {
        if (a->kind == b->kind) return 0;
        return (a->kind == 0) == missing_first ? -1 : 1;
    }
    if (a->kind == 1) return a->i < b->i ? -1 : a->i > b->i;
    return tv_memcmp2(a->s, a->len, b->s, b->len);
}

/* <0: a ranks before b */
static int hit_cmp(const coll *c, float as, const sval *asv, uint32_t at, uint32_t aseg, uint32_t adoc,
                   const hit *b) {
    const req *r = c->r;
    if (r->nsorts == 0) {
        if (as != b->score) return as > b->score ? -1 : 1;
    }
    for (size_t i = 0; i < r->nsorts; i++) {
        const tv_sort_spec *s = &r->sorts[i];
        int x = 0;
        if (s->kind == TV_SORT_SCORE) {
            x = as < b->score ? -1 : as > b->score;
        } else if (s->kind == TV_SORT_DOC) {
            if (at != b->target) x = at < b->target ? -1 : 1;
            else if (aseg != b->seg) x = aseg < b->seg ? -1 : 1;
            else x = adoc < b->doc ? -1 : adoc > b->doc;
        } else {
            /* a missing value (keywords; numbers get Lucene's missing
             * value in sort_values) goes first or last whatever the order */
            if ((asv[i].kind == 0) != (b->sv[i].kind == 0)) return sval_cmp(&asv[i], &b->sv[i], s->missing_first);
            if (c->mixed && c->mixed[i] && asv[i].kind == 1 && b->sv[i].kind == 1) {
                size_t ns = r->nsorts;
                double da = c->floating[at * ns + i] ? tv_sortable_to_double(asv[i].i) : (double)asv[i].i;
                double db = c->floating[b->target * ns + i] ? tv_sortable_to_double(b->sv[i].i) : (double)b->sv[i].i;
                x = da < db ? -1 : da > db;
            } else {
                x = sval_cmp(&asv[i], &b->sv[i], s->missing_first);
            }
        }
        if (s->desc) x = -x;
        if (x) return x;
    }
    if (at != b->target) return at < b->target ? -1 : 1;
    if (aseg != b->seg) return aseg < b->seg ? -1 : 1;
    return adoc < b->doc ? -1 : adoc > b->doc;
}

static void heap_swap(coll *c, size_t i, size_t j) {
    hit t = c->heap[i];
    c->heap[i] = c->heap[j];
    c->heap[j] = t;
}

/* the heap keeps the worst hit at the root */
static inline bool worse(const coll *c, const hit *a, const hit *b) {
    if (c->r->nsorts == 0) { /* by score, then global doc order: inline, the common case */
        if (a->score != b->score) return a->score < b->score;
        if (a->target != b->target) return a->target > b->target;
        if (a->seg != b->seg) return a->seg > b->seg;
        return a->doc > b->doc;
    }
    return hit_cmp(c, a->score, a->sv, a->target, a->seg, a->doc, b) > 0;
}

/* Both sifts move a hole instead of swapping: one copy per level. */
static void sift_down(coll *c, size_t i) {
    hit *h = c->heap, x = h[i];
    size_t n = c->n;
    for (;;) {
        size_t l = 2 * i + 1, w = l;
        if (l >= n) break;
        if (l + 1 < n && worse(c, &h[l + 1], &h[l])) w = l + 1;
        if (!worse(c, &h[w], &x)) break;
        h[i] = h[w];
        i = w;
    }
    h[i] = x;
}

static void sift_up(coll *c, size_t i) {
    hit *h = c->heap, x = h[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!worse(c, &x, &h[p])) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = x;
}

static void offer(coll *c, float score, uint32_t t, uint32_t seg, uint32_t doc) {
    size_t ns = c->r->nsorts;
    if (c->cap == 0) return;
    c->gen++;
    if (c->n < c->cap) {
        hit *h = &c->heap[c->n];
        h->score = score;
        h->target = t;
        h->seg = seg;
        h->doc = doc;
        h->sv = c->store + c->n * ns;
        if (ns) memcpy(h->sv, c->scratch, ns * sizeof *h->sv);
        c->n++;
        sift_up(c, c->n - 1);
        return;
    }
    /* by score alone, a full page rejects at once what does not beat the
     * worst hit: docs arrive in the tie-break order, so a tie loses too */
    if (ns == 0 ? score <= c->heap[0].score : hit_cmp(c, score, c->scratch, t, seg, doc, &c->heap[0]) >= 0) return;
    hit *h = &c->heap[0];
    h->score = score;
    h->target = t;
    h->seg = seg;
    h->doc = doc;
    if (ns) memcpy(h->sv, c->scratch, ns * sizeof *h->sv);
    sift_down(c, 0);
}

/* collapse: keeps the best hit (in scratch's sort values) of each value
 * of the collapse field, as Lucene's grouping collector does; groups
 * merge across targets by value, as the coordinator merges them. */
static tv_status collapse_offer(coll *c, const tv_field *f, const tv_segview *sv, float score, uint32_t t,
                                uint32_t seg, uint32_t doc) {
    sval cv = {0};
    uint32_t n;
    if (f->dv_kind == TV_DV_SORTED_SET) {
        uint32_t ords[2];
        n = tv_segment_dv_ords(sv->seg, f->id, doc, ords, 2);
        const char *ts;
        size_t tl;
        if (n == 1 && tv_segment_dv_term(sv->seg, f->id, ords[0], &ts, &tl)) {
            cv.kind = 2;
            cv.s = ts;
            cv.len = (uint32_t)tl;
        }
    } else {
        int64_t v[2];
        n = tv_segment_dv_numeric(sv->seg, f->id, doc, v, 2);
        if (n == 1) {
            cv.kind = 1;
            cv.i = v[0];
        }
    }
    if (n > 1) {
        tv_error_set(c->err, TROVE_EILLEGALSTATE, "failed to collapse %u, the collapse field must be single valued",
                     sv->doc_base + doc);
        return TROVE_EILLEGALSTATE;
    }
    tv_buf *k = &c->gkey; /* 'k' + term, 'n' + 8 bytes of long, or 'm' (missing) */
    tv_buf_clear(k);
    if (cv.kind == 2) {
        tv_buf_putc(k, 'k');
        tv_buf_append(k, cv.s, cv.len);
    } else if (cv.kind == 1) {
        tv_buf_putc(k, 'n');
        tv_buf_append(k, &cv.i, 8);
    } else {
        tv_buf_putc(k, 'm');
    }
    if (k->oom) return TROVE_ENOMEM;
    const char *key = k->data;
    size_t kl = k->len;
    size_t ns = c->r->nsorts;
    void *gv = tv_map_get(&c->gmap, key, kl);
    tv_status st = TROVE_OK;
    if (!gv) {
        hit h = {score, t, seg, doc, NULL, cv};
        if (ns) {
            h.sv = tv_arena_alloc(c->arena, ns * sizeof *h.sv);
            if (!h.sv) st = TROVE_ENOMEM;
            else memcpy(h.sv, c->scratch, ns * sizeof *h.sv);
        }
        if (!st && (tv_vec_push(&c->groups, h) ||
                    tv_map_put(&c->gmap, key, kl, (void *)(uintptr_t)c->groups.len, NULL)))
            st = TROVE_ENOMEM;
    } else {
        hit *g = &c->groups.items[(uintptr_t)gv - 1];
        if (hit_cmp(c, score, c->scratch, t, seg, doc, g) < 0) {
            g->score = score;
            g->target = t;
            g->seg = seg;
            g->doc = doc;
            g->cv = cv;
            if (ns) memcpy(g->sv, c->scratch, ns * sizeof *g->sv);
        }
    }
    return st;
}

/* Frees the groups, their index and the key buffer. */
static void collapse_fini(coll *c) {
    tv_map_fini(&c->gmap);
    tv_vec_fini(&c->groups);
    tv_buf_fini(&c->gkey);
}

static _Thread_local const coll *g_rank_coll;
static int group_qcmp(const void *a, const void *b) {
    const hit *x = a;
    return hit_cmp(g_rank_coll, x->score, x->sv, x->target, x->seg, x->doc, b);
}

/* The page's groups: the best from+size of them into the heap array. */
static void collapse_finish(coll *c) {
    g_rank_coll = c;
    if (c->groups.len > 1) qsort(c->groups.items, c->groups.len, sizeof *c->groups.items, group_qcmp);
    size_t k = TV_MIN(c->cap, c->groups.len);
    if (k) memcpy(c->heap, c->groups.items, k * sizeof *c->heap);
    c->n = k;
}

/* Java's Math.round(double): half up, saturating at the long range. */
static int64_t java_round(double x) {
    if (x != x) return 0;
    if (x >= 9223372036854775807.0) return INT64_MAX;
    if (x <= -9223372036854775808.0) return INT64_MIN;
    if (fabs(x) >= 4503599627370496.0) return (int64_t)x; /* already whole */
    return (int64_t)floor(x + 0.5);
}

/* MultiValueMode.pick over a doc's ascending values (sortable encoding):
 * longs sum in long (wrapping), average and the median of an even count
 * are Math.round of a double mean; floating types compute in double. */
static int64_t pick_numeric(const tv_field *f, const tv_sort_spec *s, const int64_t *v, uint32_t n) {
    tv_sort_mode m = s->mode;
    if (m == TV_SORT_MODE_DEFAULT) m = s->desc ? TV_SORT_MODE_MAX : TV_SORT_MODE_MIN;
    if (m == TV_SORT_MODE_MIN || n == 1) return m == TV_SORT_MODE_MAX ? v[n - 1] : v[0];
    if (m == TV_SORT_MODE_MAX) return v[n - 1];
    if (tv_field_type_is_floating(f->type)) {
        double r;
        if (m == TV_SORT_MODE_MEDIAN) {
            r = n % 2 ? tv_sortable_to_double(v[n / 2])
                      : (tv_sortable_to_double(v[n / 2 - 1]) + tv_sortable_to_double(v[n / 2])) / 2;
        } else {
            double total = 0;
            for (uint32_t i = 0; i < n; i++) total += tv_sortable_to_double(v[i]);
            r = m == TV_SORT_MODE_SUM ? total : total / n;
        }
        /* FloatValuesComparatorSource compares (float) of the pick */
        if (f->type != TV_FT_DOUBLE) r = (double)(float)r;
        return tv_double_to_sortable(r);
    }
    if (m == TV_SORT_MODE_MEDIAN) {
        if (n % 2) return v[n / 2];
        return java_round(((double)v[n / 2 - 1] + (double)v[n / 2]) / 2);
    }
    uint64_t total = 0; /* Java long arithmetic wraps */
    for (uint32_t i = 0; i < n; i++) total += (uint64_t)v[i];
    if (m == TV_SORT_MODE_SUM) return (int64_t)total;
    return java_round((double)(int64_t)total / (double)n);
}

/* A nested sort's value of root `doc` (MultiValueMode.select over the
 * root's children of the path that pass the filter): the values of every
 * such child, in doc order, picked as one doc's values are; median is
 * refused at parse time. Missing when no child has a value. */
static void nested_sort_value(const tv_sort_spec *s, const tfield *t, const tv_dv_reader *rd, const tv_segview *sv,
                              uint32_t doc, sval *o) {
    const tv_field *f = t->f;
    if (!t->nkids) return;
    const uint64_t *roots = tv_segment_roots(sv->seg, NULL);
    tv_bitset rb = {(uint64_t *)roots, sv->max_doc}, kb = {(uint64_t *)t->nkids, sv->max_doc};
    size_t prev = roots ? tv_bitset_prev(&rb, doc) : SIZE_MAX;
    tv_sort_mode m = s->mode == TV_SORT_MODE_DEFAULT ? (s->desc ? TV_SORT_MODE_MAX : TV_SORT_MODE_MIN) : s->mode;
    bool floating = tv_field_type_is_floating(f->type), any = false;
    int64_t best = 0;
    uint64_t lsum = 0, count = 0;
    double dsum = 0;
    uint32_t bord = 0;
    for (size_t c = tv_bitset_next(&kb, prev == SIZE_MAX ? 0 : prev + 1); c < doc; c = tv_bitset_next(&kb, c + 1)) {
        if (f->dv_kind == TV_DV_NUMERIC) {
            int64_t vals[64];
            uint32_t n = TV_MIN(rd ? tv_dv_read_numeric(rd, (uint32_t)c, vals, 64)
                                   : tv_segment_dv_numeric(sv->seg, f->id, (uint32_t)c, vals, 64),
                                64u);
            for (uint32_t k = 0; k < n; k++) {
                if (!any || (m == TV_SORT_MODE_MIN ? vals[k] < best : vals[k] > best)) best = vals[k];
                lsum += (uint64_t)vals[k];
                if (floating) dsum += tv_sortable_to_double(vals[k]);
                count++;
                any = true;
            }
        } else if (f->dv_kind == TV_DV_SORTED_SET) {
            uint32_t ords[64];
            uint32_t n = TV_MIN(tv_segment_dv_ords(sv->seg, f->id, (uint32_t)c, ords, 64), 64u);
            if (!n) continue;
            uint32_t pick = m == TV_SORT_MODE_MAX ? ords[n - 1] : ords[0];
            if (!any || (m == TV_SORT_MODE_MAX ? pick > bord : pick < bord)) bord = pick;
            any = true;
        }
    }
    if (!any) return;
    if (f->dv_kind == TV_DV_SORTED_SET) {
        const char *term;
        size_t tl;
        if (tv_segment_dv_term(sv->seg, f->id, bord, &term, &tl)) {
            o->kind = 2;
            o->s = term;
            o->len = (uint32_t)tl;
        }
        return;
    }
    o->kind = 1;
    if (m == TV_SORT_MODE_MIN || m == TV_SORT_MODE_MAX) {
        o->i = best;
    } else if (floating) {
        double r = m == TV_SORT_MODE_SUM ? dsum : dsum / (double)count;
        if (f->type != TV_FT_DOUBLE) r = (double)(float)r; /* FloatValuesComparatorSource */
        o->i = tv_double_to_sortable(r);
    } else {
        o->i = m == TV_SORT_MODE_SUM ? (int64_t)lsum : java_round((double)(int64_t)lsum / (double)count);
    }
}

static int dcmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The doc's distances to the sort's points (every value against every
 * point, GeoUtils.distanceValues), picked by the mode (MultiValueMode,
 * min by default); no value: +Infinity, whatever the order. */
static double geo_sort_distance(const tv_sort_spec *s, const tv_field *f, const tv_segview *sv, uint32_t doc) {
    if (!f) return INFINITY;
    int64_t sbuf[64], *vals = sbuf;
    uint32_t n = tv_segment_dv_numeric(sv->seg, f->id, doc, vals, 64);
    if (!n) return INFINITY;
    if (n > 64) { /* a doc with many points: read them all */
        if (!(vals = tv_malloc((size_t)n * sizeof *vals))) return INFINITY;
        n = TV_MIN(tv_segment_dv_numeric(sv->seg, f->id, doc, vals, n), n);
    }
    size_t m = (size_t)n * s->geo_npoints;
    double dbuf[256], *ds = m <= 256 ? dbuf : tv_malloc(m * sizeof *ds);
    double out = INFINITY;
    if (ds) {
        size_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            double lat, lon;
            tv_geo_decode(vals[i], &lat, &lon);
            for (uint32_t p = 0; p < s->geo_npoints; p++) {
                double olat = s->geo_points[2 * p], olon = s->geo_points[2 * p + 1];
                double meters = s->geo_plane ? tv_geo_plane_meters(olat, olon, lat, lon) : tv_geo_arc_meters(olat, olon, lat, lon);
                ds[k++] = tv_geo_from_meters(meters, s->geo_unit_m);
            }
        }
        qsort(ds, m, sizeof *ds, dcmp); /* sorted, as SortingNumericDoubleValues */
        switch (s->mode) {
        case TV_SORT_MODE_MAX: out = ds[m - 1]; break;
        case TV_SORT_MODE_AVG: {
            double sum = 0;
            for (size_t i = 0; i < m; i++) sum += ds[i];
            out = sum / (double)m;
            break;
        }
        case TV_SORT_MODE_MEDIAN: out = m % 2 ? ds[m / 2] : (ds[m / 2 - 1] + ds[m / 2]) / 2; break;
        default: out = ds[0]; break;
        }
        if (ds != dbuf) tv_free(ds);
    }
    if (vals != sbuf) tv_free(vals);
    return out;
}

/* A _script sort's value (ScriptSortBuilder: NumberSortScript's double,
 * StringSortScript's String, copied into the request arena). */
static void script_sort_value(coll *c, const tfield *tf, const tv_segview *sv, uint32_t doc, size_t i, sval *o) {
    const tv_sort_spec *s = &c->r->sorts[i];
    if (c->sst || !tf[i].qs) return;
    tv_qscript_exec x;
    tv_qscript_exec_init(&x, tf[i].qs, c->cur_mapping, c->cur_index, c->err);
    tv_sv v;
    tv_status st = tv_qscript_run(&x, sv->seg, doc, c->cur_score, NULL, &v);
    double dv;
    const char *what = NULL;
    if (st) {
        c->sst = st;
    } else if (s->script_string) {
        if (v.type == TV_SV_STRING) {
            char *cp = tv_arena_memdup(c->arena, v.v.s->s, v.v.s->len);
            if (!cp) c->sst = tv_error_oom(c->err);
            o->kind = 2;
            o->s = cp;
            o->len = v.v.s->len;
        } else if (v.type != TV_SV_NULL) {
            c->sst = tv_qscript_cast_fail(tf[i].qs, tv_qscript_number(&v, &dv, &what) ? "java.lang.Number" : what,
                                          "java.lang.String", c->err, c->cur_index);
        }
    } else if (tv_qscript_number(&v, &dv, &what)) {
        o->kind = 1;
        o->i = tv_double_to_sortable(dv);
    } else {
        c->sst = tv_qscript_cast_fail(tf[i].qs, what, "double", c->err, c->cur_index);
    }
    tv_qscript_exec_fini(&x);
}

/* Sort value i of a doc into *o. */
static void sort_value(const coll *c, const tfield *tf, const tv_segview *sv, uint32_t doc, size_t i, sval *o) {
    o->kind = 0;
    const tv_sort_spec *s = &c->r->sorts[i];
    if (s->kind == TV_SORT_GEO) {
        o->kind = 1;
        o->i = tv_double_to_sortable(geo_sort_distance(s, tf[i].f, sv, doc));
        return;
    }
    if (s->kind == TV_SORT_SCRIPT) {
        script_sort_value((coll *)c, tf, sv, doc, i, o);
        return;
    }
    if (s->kind != TV_SORT_FIELD || !tf[i].f) return;
    const tv_field *f = tf[i].f;
    if (tf[i].npath) {
        nested_sort_value(s, &tf[i], c->rd && c->rd_seg == sv && f->dv_kind == TV_DV_NUMERIC ? &c->rd[i] : NULL, sv, doc,
                          o);
        if (o->kind == 0 && f->dv_kind == TV_DV_NUMERIC) {
            bool hi = s->desc ? s->missing_first : !s->missing_first;
            o->kind = 1;
            if (tv_field_type_is_floating(f->type)) o->i = tv_double_to_sortable(hi ? INFINITY : -INFINITY);
            else o->i = hi ? INT64_MAX : INT64_MIN;
        }
        return;
    }
    if (f->dv_kind == TV_DV_NUMERIC) {
        int64_t vals[64];
        /* the segment's reader when run_target opened one for this key */
        uint32_t n = c->rd && c->rd_seg == sv ? tv_dv_read_numeric(&c->rd[i], doc, vals, 64)
                                             : tv_segment_dv_numeric(sv->seg, f->id, doc, vals, 64);
        o->kind = 1;
        if (!n) {
            /* Lucene's numeric comparators substitute the missing value
             * (Long.MAX/MIN, +-Infinity) and compare it like any other:
             * _last is the largest value ascending, the smallest
             * descending */
            bool hi = s->desc ? s->missing_first : !s->missing_first;
            if (tv_field_type_is_floating(f->type)) o->i = tv_double_to_sortable(hi ? INFINITY : -INFINITY);
            else o->i = hi ? INT64_MAX : INT64_MIN;
            return;
        }
        o->i = pick_numeric(f, s, vals, TV_MIN(n, 64u));
    } else if (f->dv_kind == TV_DV_SORTED_SET) {
        uint32_t ords[64];
        uint32_t n = tv_segment_dv_ords(sv->seg, f->id, doc, ords, 64);
        if (!n) return;
        const char *t;
        size_t tl;
        bool max = s->mode == TV_SORT_MODE_MAX || (s->mode == TV_SORT_MODE_DEFAULT && s->desc);
        if (tv_segment_dv_term(sv->seg, f->id, max ? ords[TV_MIN(n, 64u) - 1] : ords[0], &t, &tl)) {
            o->kind = 2;
            o->s = t;
            o->len = (uint32_t)tl;
        }
    }
}

/* Sort values from key `from` on of a doc into c->scratch. */
static void sort_values(coll *c, const tfield *tf, const tv_segview *sv, uint32_t doc, size_t from) {
    for (size_t i = from; i < c->r->nsorts; i++) sort_value(c, tf, sv, doc, i, &c->scratch[i]);
}

/* With the heap full and hits sorted by a field first: reads only that
 * first key of the doc (into scratch[0]) and says whether it already
 * ranks the doc after the worst hit, so that its other keys are never
 * read. Docs arrive in the global tie-break order (target, segment, doc),
 * so an equal first key loses too when it is the only key; with more keys
 * an equal first key is left to the full comparison. This is what makes a
 * sorted page of 10 over 100k documents cost one doc-values read per doc
 * (Lucene's comparators test the bottom the same way). */
static bool first_key_loses(coll *c, const tfield *tf, const tv_segview *sv, uint32_t doc) {
    const tv_sort_spec *s = &c->r->sorts[0];
    if (s->kind != TV_SORT_FIELD) return false;
    const sval *b = &c->heap[0].sv[0];
    const tv_field *f = tf[0].f;
    int x;
    if (f && f->dv_kind == TV_DV_SORTED_SET && b->kind == 2 && !tf[0].npath) {
        /* keywords compare as ords within the segment: the worst hit's
         * term is placed among this segment's ords once per heap change,
         * then a doc costs its ord, not its term bytes (Lucene's
         * TermOrdValComparator) */
        uint32_t ords[64];
        uint32_t n = tv_segment_dv_ords(sv->seg, f->id, doc, ords, 64);
        if (!n) {
            c->scratch[0].kind = 0; /* missing: the generic comparison */
            x = sval_cmp(&c->scratch[0], b, s->missing_first);
            return x > 0 || (x == 0 && c->r->nsorts == 1);
        }
        bool max = s->mode == TV_SORT_MODE_MAX || (s->mode == TV_SORT_MODE_DEFAULT && s->desc);
        uint32_t ord = max ? ords[TV_MIN(n, 64u) - 1] : ords[0];
        if (c->bseg != sv || c->bgen != c->gen) {
            uint32_t lo = 0, hi = tv_segment_dv_ord_count(sv->seg, f->id);
            const char *t;
            size_t tl;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (tv_segment_dv_term(sv->seg, f->id, mid, &t, &tl) && tv_memcmp2(t, tl, b->s, b->len) < 0) lo = mid + 1;
                else hi = mid;
            }
            c->bord = lo;
            c->bexact = tv_segment_dv_term(sv->seg, f->id, lo, &t, &tl) && tv_memcmp2(t, tl, b->s, b->len) == 0;
            c->bseg = sv;
            c->bgen = c->gen;
        }
        x = ord < c->bord ? -1 : ord > c->bord || !c->bexact ? 1 : 0;
        if (s->desc) x = -x;
        if (x > 0 || (x == 0 && c->r->nsorts == 1)) return true;
        sort_value(c, tf, sv, doc, 0, &c->scratch[0]);
        return false;
    }
    sort_value(c, tf, sv, doc, 0, &c->scratch[0]);
    const sval *a = &c->scratch[0];
    if ((a->kind == 0) != (b->kind == 0)) {
        x = sval_cmp(a, b, s->missing_first); /* missing goes first or last whatever the order */
    } else {
        x = sval_cmp(a, b, s->missing_first);
        if (s->desc) x = -x;
    }
    return x > 0 || (x == 0 && c->r->nsorts == 1);
}

/* Is the candidate (in scratch) after the search_after values? */
static bool after_ok(const coll *c, float score, uint32_t gdoc, uint32_t target) {
    for (size_t i = 0; i < c->r->nsorts; i++) {
        const tv_sort_spec *s = &c->r->sorts[i];
        int x;
        if (s->kind == TV_SORT_SCORE) {
            float a = (float)c->after[i].i; /* stored as bits below */
            memcpy(&a, &c->after[i].i, sizeof a);
            x = score < a ? -1 : score > a;
        } else if (s->kind == TV_SORT_DOC) {
            int64_t a = c->after[i].i;
            int64_t v = s->shard_doc ? (int64_t)(((uint64_t)target << 32) | gdoc) : (int64_t)gdoc;
            x = v < a ? -1 : v > a;
        } else {
            if ((c->scratch[i].kind == 0) != (c->after[i].kind == 0))
                return sval_cmp(&c->scratch[i], &c->after[i], s->missing_first) > 0;
            x = sval_cmp(&c->scratch[i], &c->after[i], s->missing_first);
        }
        if (s->desc) x = -x;
        if (x) return x > 0;
    }
    return false;
}


/* ------------------------------------------------------------ execution */

typedef struct target_ctx {
    tv_query *q, *post;
    tfield *tf; /* per sort */
    tv_query **rq;          /* per rescorer */
    float boost;            /* indices_boost (1: none) */
    const tv_field *cf;     /* collapse field (NULL: unmapped or none) */
    tv_agg_shard *aggs, *global_aggs;
    agg_res **agg_results; /* per r->aggs item */
    tv_hl_target *hl;      /* highlight: bound to this target */
    tv_nested_q **nih;     /* nested queries with inner_hits (dsl_nested.c) */
    uint32_t nnih;
    tv_named_q *named;     /* named queries of the query and post_filter,
                              each rewritten and prepared alone */
    uint32_t nnamed;
    tv_shard_prof *prof;   /* "profile": true (NULL: off) */
    tv_qscript **sf;       /* script_fields, compiled for this target */
    bool *sf_ignore;       /* their ignore_failure */
} target_ctx;

/* The field sort keys whose field is numeric with different encodings
 * across targets: floating in some, integral in others (compared as
 * doubles, c->mixed); unsigned_long beside another type is refused, as
 * OpenSearch's coordinator refuses it. */
static tv_status mixed_numeric_sorts(const req *r, coll *c, const target_ctx *tcs, const tv_search_target *targets,
                                     size_t ntargets, tv_error *err) {
    size_t ns = r->nsorts;
    bool *mixed = tv_arena_calloc(c->arena, ns, sizeof *mixed);
    bool *fl = tv_arena_calloc(c->arena, ntargets * ns, sizeof *fl);
    if (!mixed || !fl) return tv_error_oom(err);
    bool any = false;
    for (size_t k = 0; k < ns; k++) {
        if (r->sorts[k].kind != TV_SORT_FIELD) continue;
        bool seen_fl = false, seen_int = false, seen_ul = false, seen_other = false;
        for (size_t t = 0; t < ntargets; t++) {
            const tv_field *f = tcs[t].tf ? tcs[t].tf[k].f : NULL;
            if (!f) continue;
            if (f->type == TV_FT_UNSIGNED_LONG) seen_ul = true;
            else if (tv_field_type_is_floating(f->type)) seen_fl = fl[t * ns + k] = true;
            else if (tv_field_type_is_numeric(f->type)) seen_int = true;
            else seen_other = true;
        }
        if (seen_ul && (seen_fl || seen_int || seen_other)) {
            tv_error_set(err, TROVE_EARG,
                         "Can't do sort across indices, as a field has [unsigned_long] type in one index, and "
                         "different type in another index!");
            snprintf(err->index, sizeof err->index, "%s", targets[0].index ? targets[0].index : "");
            return TROVE_EARG;
        }
        mixed[k] = seen_fl && seen_int;
        any |= mixed[k];
    }
    if (any) {
        c->mixed = mixed;
        c->floating = fl;
    }
    return TROVE_OK;
}

static tv_status text_fielddata_error(tv_error *err, const char *field) {
    return tv_error_set(err, TROVE_EARG,
                        "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [%s] in order to load field data by uninverting the inverted index. Note that this can use significant memory.",
                        field);
}

/* Marks err as raised on t's shard. */
static tv_status shard_failure(tv_error *err, const tv_search_target *t) {
    if (!err) return TROVE_EARG;
    snprintf(err->index, sizeof err->index, "%s", t->index ? t->index : "");
    return err->code;
}

/* A routed search reaches some shards only: the query keeps the documents
 * that live on them (a filter clause beside it, so scores are unchanged). */
static tv_status pick_shards(tv_dsl *d, const tv_search_target *t, tv_query **q) {
    tv_query *b = tv_q_new(d, TV_Q_BOOL), *f = tv_q_shard_pick(d, t->pick);
    tv_query **must = tv_arena_alloc(d->arena, sizeof *must), **filter = tv_arena_alloc(d->arena, sizeof *filter);
    if (!b || !f || !must || !filter) return TROVE_ENOMEM;
    must[0] = *q;
    filter[0] = f;
    b->u.boolq.must = must;
    b->u.boolq.nmust = 1;
    b->u.boolq.filter = filter;
    b->u.boolq.nfilter = 1;
    *q = b;
    return TROVE_OK;
}

/* GeoDistanceSortBuilder.build on the shard: the points' validation
 * (strict unless ignore_malformed or coerce; coerce normalizes them), the
 * field (ignore_unmapped: every doc missing). */
static tv_status bind_geo_sort(tv_dsl *d, const tv_sort_spec *s, const tv_search_target *t, tfield *tf) {
    if (s->geo_validation != 0 && s->geo_validation != 1) {
        for (uint32_t p = 0; p < s->geo_npoints; p++) {
            double lat = s->geo_points[2 * p], lon = s->geo_points[2 * p + 1];
            char b[40];
            if (!(lat >= -90 && lat <= 90)) {
                tv_fmt_double(lat, b);
                tv_error_set(d->err, TROVE_EPARSEEXC, "illegal latitude value [%s] for [_geo_distance]", b);
                return shard_failure(d->err, t);
            }
            if (!(lon >= -180 && lon <= 180)) {
                tv_fmt_double(lon, b);
                tv_error_set(d->err, TROVE_EPARSEEXC, "illegal longitude value [%s] for [_geo_distance]", b);
                return shard_failure(d->err, t);
            }
        }
    }
    if (s->geo_validation == 0)
        for (uint32_t p = 0; p < s->geo_npoints; p++) tv_geo_normalize(&s->geo_points[2 * p], &s->geo_points[2 * p + 1]);
    const tv_field *f = tv_dsl_field(d, s->field, s->field_len);
    if (f && f->type == TV_FT_OBJECT) f = NULL;
    if (!f) {
        if (s->geo_ignore_unmapped) return TROVE_OK;
        tv_error_set(d->err, TROVE_EARG, "failed to find mapper for [%s] for geo distance based sort", s->field);
        return shard_failure(d->err, t);
    }
    if (f->type != TV_FT_GEO_POINT)
        return tv_error_set(d->err, TROVE_EUNSUPPORTED,
                            "[_geo_distance] sort on field [%s] of type [%s] is not supported by trove", f->path,
                            tv_field_declared_type(f));
    tf->f = f;
    return TROVE_OK;
}

static tv_status parse_target(tv_dsl *d, const req *r, const tv_search_target *t, target_ctx *tc) {
    d->mapping = t->snap ? t->snap->mapping : NULL;
    d->snap = t->snap;
    d->index = t->index;
    d->max_inner_window = t->max_inner_result_window;
    d->max_terms = t->max_terms_count;
    tv_status st;
    d->nested_ih = NULL; /* inner_hits come from the query only */
    d->nnested_ih = 0;
    d->named = NULL; /* named queries come from the query and post_filter only */
    d->nnamed = d->cnamed = 0;
    if (r->query) {
        st = tv_dsl_parse_query(d, r->query, &tc->q);
        tc->nih = d->nested_ih;
        tc->nnih = d->nnested_ih;
        d->nested_ih = NULL;
        d->nnested_ih = 0;
    } else {
        tc->q = tv_q_new(d, TV_Q_MATCH_ALL);
        st = tc->q ? TROVE_OK : TROVE_ENOMEM;
    }
    uint64_t trw = tc->prof ? tv_mono_ns() : 0;
    if (!st) st = tv_query_rewrite(&tc->q, d->arena);
    if (tc->prof) tc->prof->searches[0].rewrite_ns += tv_mono_ns() - trw;
    if (!st && t->pick) st = pick_shards(d, t, &tc->q);
    if (st) return st == TROVE_ENOMEM ? tv_error_oom(d->err) : st;
    if (tv_query_check_nested_clauses(tc->q, d->max_clauses, d->err)) return shard_failure(d->err, t);
    if (r->post_filter) {
        st = tv_dsl_parse_filter(d, r->post_filter, &tc->post);
        trw = tc->prof ? tv_mono_ns() : 0;
        if (!st) st = tv_query_rewrite(&tc->post, d->arena);
        if (tc->prof) tc->prof->searches[0].rewrite_ns += tv_mono_ns() - trw;
        if (st) return st == TROVE_ENOMEM ? tv_error_oom(d->err) : st;
        if (tv_query_check_nested_clauses(tc->post, d->max_clauses, d->err)) return shard_failure(d->err, t);
    }
    /* MatchedQueriesPhase: each named query weighed alone (boost 1) */
    tc->named = d->named;
    tc->nnamed = d->nnamed;
    d->named = NULL;
    d->nnamed = d->cnamed = 0;
    for (uint32_t i = 0; i < tc->nnamed; i++) {
        st = tv_query_rewrite(&tc->named[i].q, d->arena);
        if (!st) st = tv_query_prepare(tc->named[i].q, t->snap, d->arena);
        if (st) return st == TROVE_ENOMEM ? tv_error_oom(d->err) : st;
    }
    tc->tf = tv_arena_calloc(d->arena, r->nsorts + 1, sizeof *tc->tf);
    if (!tc->tf) return TROVE_ENOMEM;
    for (size_t i = 0; i < r->nsorts; i++) {
        const tv_sort_spec *s = &r->sorts[i];
        if (s->kind == TV_SORT_GEO) {
            if ((st = bind_geo_sort(d, s, t, &tc->tf[i]))) return st;
            continue;
        }
        if (s->kind == TV_SORT_SCRIPT) { /* ScriptSortBuilder.build, on the shard */
            if ((st = tv_dsl_script(d, s->script, TV_SCRIPT_G_DOC | TV_SCRIPT_G_SCORE, &tc->tf[i].qs))) return st;
            continue;
        }
        if (s->kind != TV_SORT_FIELD) continue;
        const tv_field *f = tv_dsl_field(d, s->field, s->field_len);
        if (!f && !s->unmapped_type)
            return tv_error_set(d->err, TROVE_EQUERYSHARD, "No mapping found for [%s] in order to sort on", s->field);
        /* SortBuilder.buildSort on the shard: its failures are shard
         * failures (err->index: the api wraps them) */
        if (f && f->type == TV_FT_TEXT) {
            text_fielddata_error(d->err, s->field);
            return shard_failure(d->err, t);
        }
        if (f && f->type == TV_FT_RANGE) /* OpenSearch sorts its own binary encoding of the ranges */
            return tv_error_set(d->err, TROVE_EUNSUPPORTED, "sorting on field [%s] of type [%s] is not supported by trove",
                                f->path, tv_field_declared_type(f));
        if (s->mode >= TV_SORT_MODE_SUM && (!f || f->dv_kind != TV_DV_NUMERIC))
            return tv_error_set(d->err, TROVE_EQUERYSHARD, "we only support AVG, MEDIAN and SUM on number based fields");
        tc->tf[i].f = f;
        if (s->nested_path) {
            /* FieldSortBuilder.resolveNested */
            const tv_field *np = tv_dsl_field(d, s->nested_path, strlen(s->nested_path));
            if (!np) {
                tv_error_set(d->err, TROVE_EQUERYSHARD, "[nested] failed to find nested object under path [%s]", s->nested_path);
                return shard_failure(d->err, t);
            }
            if (np->type != TV_FT_OBJECT || !np->nested) {
                tv_error_set(d->err, TROVE_EQUERYSHARD, "[nested] nested object under path [%s] is not of nested type",
                             s->nested_path);
                return shard_failure(d->err, t);
            }
            if (s->mode == TV_SORT_MODE_MEDIAN)
                return tv_error_set(d->err, TROVE_EUNSUPPORTED, "[sort] mode [median] with [nested] is not supported by trove");
            tc->tf[i].npath = np;
            if (s->nested_filter) {
                d->nested_scope = np;
                st = tv_dsl_parse_filter(d, s->nested_filter, &tc->tf[i].nfilter);
                d->nested_scope = NULL;
                if (!st) st = tv_query_rewrite(&tc->tf[i].nfilter, d->arena);
                if (!st) st = tv_query_prepare(tc->tf[i].nfilter, t->snap, d->arena);
                if (st) return st == TROVE_ENOMEM ? tv_error_oom(d->err) : st;
            }
        } else if (f && f->nested_scope && !f->nested_scope->include_in_root) {
            /* FieldSortBuilder.validateMissingNestedPath */
            tv_error_set(d->err, TROVE_EQUERYSHARD,
                         "it is mandatory to set the [nested] context on the nested sort field: [%s].", f->path);
            return shard_failure(d->err, t);
        }
    }
    if (r->script_fields) {
        /* SearchService.parseSource: the limit, then each script compiled */
        int64_t max = t->max_script_fields > 0 ? t->max_script_fields : 32;
        uint32_t n = r->script_fields->len;
        if ((int64_t)n > max) {
            tv_error_set(d->err, TROVE_EARG,
                         "Trying to retrieve too many script_fields. Must be less than or equal to: [%lld] but was [%u]. "
                         "This limit can be set by changing the [index.max_script_fields] index level setting.",
                         (long long)max, n);
            return shard_failure(d->err, t);
        }
        tc->sf = tv_arena_calloc(d->arena, n + 1, sizeof *tc->sf);
        tc->sf_ignore = tv_arena_calloc(d->arena, n + 1, sizeof *tc->sf_ignore);
        if (!tc->sf || !tc->sf_ignore) return tv_error_oom(d->err);
        for (uint32_t i = 0; i < n; i++) {
            const tv_json *o = &r->script_fields->v.members[i].val;
            const tv_json *ig = tv_json_get(o, "ignore_failure");
            tc->sf_ignore[i] = ig && ig->type == TV_JSON_TRUE;
            if ((st = tv_dsl_script(d, tv_json_get(o, "script"), TV_SCRIPT_G_DOC, &tc->sf[i]))) return st;
        }
    }
    tc->boost = 1;
    for (size_t i = 0; i < r->nboosts; i++)
        if (t->index && tv_glob_match(r->boosts[i].index, strlen(r->boosts[i].index), t->index, strlen(t->index))) {
            tc->boost = r->boosts[i].boost; /* the first entry naming the index wins */
            break;
        }
    if (r->nrescores) {
        tc->rq = tv_arena_calloc(d->arena, r->nrescores, sizeof *tc->rq);
        if (!tc->rq) return TROVE_ENOMEM;
        for (size_t i = 0; i < r->nrescores; i++) {
            st = tv_dsl_parse_query(d, r->rescores[i].query, &tc->rq[i]);
            if (!st) st = tv_query_rewrite(&tc->rq[i], d->arena);
            if (!st && tv_query_check_nested_clauses(tc->rq[i], d->max_clauses, d->err)) return shard_failure(d->err, t);
            if (!st) st = tv_query_prepare(tc->rq[i], t->snap, d->arena);
            if (st) return st == TROVE_ENOMEM ? tv_error_oom(d->err) : st;
        }
    }
    if (r->collapse) {
        /* CollapseBuilder.build, on the shard */
        const tv_field *f = tv_dsl_field(d, r->collapse, strlen(r->collapse));
        if (!f) {
            tv_error_set(d->err, TROVE_EARG, "no mapping found for `%s` in order to collapse on", r->collapse);
            return shard_failure(d->err, t);
        }
        if (f->type != TV_FT_KEYWORD && !tv_field_type_is_numeric(f->type)) {
            tv_error_set(d->err, TROVE_EARG, "unknown type for collapse field `%s`, only keywords and numbers are accepted", r->collapse);
            return shard_failure(d->err, t);
        }
        if (!f->doc_values || f->dv_kind == TV_DV_NONE) {
            tv_error_set(d->err, TROVE_EARG, "cannot collapse on field `%s` without `doc_values`", r->collapse);
            return shard_failure(d->err, t);
        }
        tc->cf = f;
    }
    /* explain: only the kinds explain.c reproduces (before prepare
     * resolves phrase_prefix into other kinds) */
    if (r->explain && (st = tv_explain_check(tc->q, d->err))) return st;
    if (tc->prof) {
        /* the profile's query trees, before prepare times their weights */
        tv_qprof *qp = &tc->prof->searches[0].q;
        if ((st = tv_qprof_build(tc->q, r->query != NULL, d->mapping, d->arena, qp, d->err))) return st;
        if (tc->post && (st = tv_qprof_build(tc->post, true, d->mapping, d->arena, qp, d->err))) return st;
        st = tv_query_prepare_profiled(tc->q, t->snap, d->arena, qp);
        if (!st && tc->post) st = tv_query_prepare_profiled(tc->post, t->snap, d->arena, qp);
    } else {
        st = tv_query_prepare(tc->q, t->snap, d->arena);
        if (!st && tc->post) st = tv_query_prepare(tc->post, t->snap, d->arena);
    }
    if (st) return tv_error_set(d->err, st, "out of memory");
    return TROVE_OK;
}

static bool is_single_term(const tv_query *q) {
    return q->kind == TV_Q_TERM || q->kind == TV_Q_MATCH_ALL;
}

/* The segment's number of matches when it is known without iterating
 * (OpenSearch's QueryPhase.shortcutTotalHitCount): a bare term or match_all
 * with nothing else filtering (post_filter, min_score) on a segment without
 * deletes is its doc_freq or max_doc. */
static bool known_count(const req *r, const target_ctx *tc, const tv_snapshot *snap, const tv_segview *sv,
                        uint64_t *out) {
    if (sv->live || tc->post || r->has_min_score || !is_single_term(tc->q)) return false;
    if (tc->q->kind == TV_Q_MATCH_ALL) {
        *out = sv->max_doc;
        return true;
    }
    tv_term_state st;
    *out = tv_query_term_state(tc->q, snap, sv, &st) ? st.doc_freq : 0;
    return true;
}

/* May the collection skip documents that cannot enter the top hits? Only
 * when hits are ordered by score alone (ties by doc order, so a later doc
 * equal to the worst hit loses), nothing else looks at every doc, and the
 * total is not needed beyond track_limit (checked as hits arrive) or is
 * already known (`counted`). */
static bool can_prune(const req *r, const coll *c, bool counted) {
    if (!c->cap || c->after || r->terminate_after >= 0) return false;
    if (r->nsorts > 1 || (r->nsorts == 1 && !(r->sorts[0].kind == TV_SORT_SCORE && r->sorts[0].desc))) return false;
    return counted || r->track_false || r->track_limit != INT64_MAX;
}

/* A nested sort key's children in segment sv: the docs of its path that
 * pass its filter (planned over every doc: nested docs are never live). */
static tv_status nested_sort_segment(tfield *t, const tv_segview *sv, const tv_snapshot *snap, tv_arena *a) {
    bool oom = false;
    const uint64_t *all_kids = tv_nested_path_bits(sv->seg, t->npath, &oom);
    if (oom) return TROVE_ENOMEM;
    t->nkids = all_kids;
    if (!all_kids || !t->nfilter) return TROVE_OK;
    /* a copy: the segment's bitset is shared */
    size_t nw = ((size_t)sv->max_doc + 63) / 64;
    uint64_t *kids = tv_arena_alloc(a, nw * sizeof *kids);
    if (!kids) return TROVE_ENOMEM;
    memcpy(kids, all_kids, nw * sizeof *kids);
    t->nkids = kids;
    tv_segview all = *sv;
    all.live = NULL;
    tv_plan_ctx pc = {a, snap, false, false};
    tv_iter *it = NULL;
    tv_status st = tv_plan(t->nfilter, &all, &pc, &it);
    if (st) return st;
    tv_bitset kb = {kids, sv->max_doc};
    uint32_t d = it ? tv_iter_next(it) : TV_NO_MORE_DOCS;
    for (size_t c = tv_bitset_next(&kb, 0); c != SIZE_MAX; c = tv_bitset_next(&kb, c + 1)) {
        if (d < c) d = tv_iter_advance(it, (uint32_t)c);
        if (d != c) kids[c >> 6] &= ~(1ull << (c & 63));
    }
    return TROVE_OK;
}

/* Counts or collects one target. */
static tv_status run_target(const req *r, coll *c, uint32_t ti, const tv_search_target *t, target_ctx *tc,
                            tv_arena *a, bool count_only) {
    const tv_snapshot *snap = t->snap;
    if (!snap) return TROVE_OK;
    bool scores = c->need_scores;
    tv_agg_shard *ag = tc->aggs; /* every match goes to the aggregations: no shortcuts */
    /* terminate_after: the target stops when a doc arrives after that
     * many were collected (EarlyTerminatingCollector) */
    int64_t left = r->terminate_after > 0 ? r->terminate_after : -1;
    bool stop = false;
    c->cur_mapping = snap->mapping;
    c->cur_index = t->index;
    /* the search timeout (QueryPhase's cancellation check): looked at
     * before each segment and every 1024 docs */
    uint32_t tick = 0;
    if (c->deadline && tv_mono_ns() > c->deadline) c->timed_out = true;
    stop = c->timed_out;
    for (uint32_t si = 0; si < snap->nsegs && !stop; si++) {
        const tv_segview *sv = &snap->segs[si];
        if (c->deadline && si && tv_mono_ns() > c->deadline) {
            c->timed_out = true;
            break;
        }
        uint64_t known;
        bool counted = !ag && left < 0 && known_count(r, tc, snap, sv, &known);
        if (counted) {
            c->total += known;
            if (count_only || !c->cap || !known) continue;
        }
        bool prunable = !count_only && !ag && !c->collapsing && tc->boost == 1 && scores && can_prune(r, c, counted);
        tv_plan_ctx pc = {a, snap, scores && !count_only, prunable};
        pc.prof = tc->prof ? &tc->prof->searches[0].q : NULL;
        tv_iter *it = NULL, *pf = NULL;
        tv_status st = tv_plan(tc->q, sv, &pc, &it);
        if (st) return st;
        /* every segment reaches the aggregations: terms with
         * min_doc_count 0 list the keys of segments with no match too */
        if (ag && (st = tv_agg_shard_segment(ag, sv))) return st;
        if (!it) continue;
        if (c->rd) {
            for (size_t k = 0; k < r->nsorts; k++)
                if (tc->tf[k].f && tc->tf[k].f->dv_kind == TV_DV_NUMERIC) tv_segment_dv_reader(sv->seg, tc->tf[k].f->id, &c->rd[k]);
                else memset(&c->rd[k], 0, sizeof c->rd[k]);
            c->rd_seg = sv;
        }
        for (size_t k = 0; k < r->nsorts; k++)
            if (tc->tf[k].npath && (st = nested_sort_segment(&tc->tf[k], sv, snap, a))) return st;
        /* the threshold carried over from earlier segments and targets */
        bool total_done = counted || c->total > (uint64_t)r->track_limit;
        bool pruning = prunable && c->n == c->cap && total_done && tv_iter_set_min_score(it, c->heap[0].score);
        if (tc->post) {
            tv_plan_ctx pc2 = {a, snap, false, false};
            pc2.prof = pc.prof;
            st = tv_plan(tc->post, sv, &pc2, &pf);
            if (st) return st;
            if (!pf && !ag) continue; /* no hit here; aggregations still see the matches */
        }
        bool no_hits = tc->post && !pf;
        uint64_t n;
        tv_count_ctx cx = {a, sv->max_doc};
        if (count_only && left < 0 && !sv->live && !pf && !r->has_min_score && tv_iter_count(it, &cx, &n)) {
            c->total += n; /* by bitset words, not doc by doc */
            continue;
        }
        for (uint32_t doc = tv_iter_next(it); doc != TV_NO_MORE_DOCS; doc = tv_iter_next(it)) {
            if (c->deadline && ++tick % 1024 == 0 && tv_mono_ns() > c->deadline) {
                c->timed_out = true;
                stop = true;
                break;
            }
            if (!tv_segview_live(sv, doc)) continue;
            float score = 0;
            if (pc.scores) score = tv_iter_score(it);
            /* indices_boost wraps the query in a weight factor function:
             * (float) (score * boost) */
            if (tc->boost != 1 && pc.scores) score = (float)((double)score * (double)tc->boost);
            if (r->has_min_score && score < r->min_score) continue;
            if (left == 0) { /* one more doc after terminate_after were collected */
                c->terminated = true;
                stop = true;
                break;
            }
            if (ag && (st = tv_agg_collect(ag, doc, score))) return st; /* before post_filter, as OpenSearch */
            if (no_hits) continue;
            if (pf) {
                if (pf->doc == TV_ITER_UNSET || pf->doc < doc) tv_iter_advance(pf, doc);
                if (pf->doc != doc) continue;
            }
            if (left > 0) left--;
            if (!counted) c->total++;
            if (count_only) continue;
            if (pc.scores && !(score <= c->max_score)) c->max_score = score;
            if (r->nsorts) {
                bool full = c->cap && c->n == c->cap;
                if (full && first_key_loses(c, tc->tf, sv, doc)) continue;
                c->cur_score = score;
                sort_values(c, tc->tf, sv, doc, full && r->sorts[0].kind == TV_SORT_FIELD ? 1 : 0);
                if (c->sst) return c->sst;
            }
            if (c->after && !after_ok(c, score, sv->doc_base + doc, ti)) continue;
            if (c->collapsing) {
                if ((st = collapse_offer(c, tc->cf, sv, score, ti, si, doc))) return st;
                continue;
            }
            offer(c, score, ti, si, doc);
            if (prunable && c->n == c->cap && (pruning || counted || c->total > (uint64_t)r->track_limit))
                pruning = tv_iter_set_min_score(it, c->heap[0].score);
        }
    }
    return TROVE_OK;
}

/* ------------------------------------------------------------- rescore */

static _Thread_local const tv_search_target *g_rs_target;
/* Lucene's rescorer order: score descending, then shard doc id. */
static int rescored_qcmp(const void *a, const void *b) {
    const hit *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    uint32_t dx = g_rs_target->snap->segs[x->seg].doc_base + x->doc, dy = g_rs_target->snap->segs[y->seg].doc_base + y->doc;
    return dx < dy ? -1 : dx > dy;
}
static int segdoc_qcmp(const void *a, const void *b) {
    const hit *x = *(const hit *const *)a, *y = *(const hit *const *)b;
    if (x->seg != y->seg) return x->seg < y->seg ? -1 : 1;
    return x->doc < y->doc ? -1 : x->doc > y->doc;
}

static float rescore_combine(const rescorer *rs, float first, bool matches, float second) {
    float p = first * rs->qw;
    if (!matches) return p;
    float q = second * rs->rw;
    switch (rs->mode) {
    case RS_MULTIPLY: return p * q;
    case RS_AVG: return (p + q) / 2;
    case RS_MAX: return p > q ? p : q; /* Math.max */
    case RS_MIN: return p < q ? p : q;
    default: return p + q;
    }
}

/* OpenSearch's QueryRescorer over one target's hits (best first in h[0..n)):
 * each rescorer re-scores the top window_size with its query, re-sorts
 * them; hits past the window are scaled by query_weight and everything is
 * sorted again (RescorePhase's combine). */
static tv_status rescore_target(const req *r, hit *h, size_t n, const tv_search_target *t, const target_ctx *tc,
                                tv_arena *a) {
    g_rs_target = t;
    for (size_t k = 0; k < r->nrescores; k++) {
        const rescorer *rs = &r->rescores[k];
        size_t w = TV_MIN((size_t)rs->window, n);
        hit **by = tv_arena_alloc(a, (w + 1) * sizeof *by);
        if (!by) return TROVE_ENOMEM;
        for (size_t i = 0; i < w; i++) by[i] = &h[i];
        if (w > 1) qsort(by, w, sizeof *by, segdoc_qcmp);
        tv_iter *it = NULL;
        uint32_t cur = UINT32_MAX;
        for (size_t i = 0; i < w; i++) {
            hit *x = by[i];
            if (x->seg != cur) {
                cur = x->seg;
                tv_plan_ctx pc = {a, t->snap, true, false};
                it = NULL;
                tv_status st = tv_plan(tc->rq[k], &t->snap->segs[cur], &pc, &it);
                if (st) return st;
            }
            bool m = false;
            float second = 0;
            if (it) {
                if (it->doc == TV_ITER_UNSET || it->doc < x->doc) tv_iter_advance(it, x->doc);
                if (it->doc == x->doc && tv_segview_live(&t->snap->segs[cur], x->doc)) {
                    m = true;
                    second = tv_iter_score(it);
                }
            }
            x->score = rescore_combine(rs, x->score, m, second);
        }
        if (w > 1) qsort(h, w, sizeof *h, rescored_qcmp);
        if (n > w) {
            for (size_t i = w; i < n; i++) h[i].score *= rs->qw;
            qsort(h, n, sizeof *h, rescored_qcmp);
        }
    }
    return TROVE_OK;
}

/* The global aggregations of a target: every live doc, whatever the query. */
static tv_status run_global(const tv_search_target *t, tv_agg_shard *g, tv_arena *arena) {
    const tv_snapshot *snap = t->snap;
    if (!snap || !g) return TROVE_OK;
    for (uint32_t si = 0; si < snap->nsegs; si++) {
        const tv_segview *sv = &snap->segs[si];
        tv_status st = tv_agg_shard_segment(g, sv);
        if (st) return st;
        for (uint32_t doc = 0; doc < sv->max_doc; doc++) {
            if (!tv_segview_live(sv, doc)) continue;
            if (t->pick) { /* only the searched shards' documents */
                tv_doc_meta meta;
                memset(&meta, 0, sizeof meta);
                if ((st = tv_segment_doc(sv->seg, doc, arena, &meta, NULL, NULL))) return st;
                if (!t->pick->keep(t->pick->ud, meta.id, meta.id_len, meta.routing, meta.routing_len)) continue;
            }
            if ((st = tv_agg_collect(g, doc, 1.0f))) return st; /* global: a constant score */
        }
    }
    return TROVE_OK;
}

/* The global aggregations' search when profiled: the match-all
 * OpenSearch runs for them (ConstantScoreQuery over MatchAllDocsQuery, a
 * constant-score iterator over every doc, measured through a profiling
 * wrapper per query), and their collector. */
static tv_status run_global_profiled(const tv_search_target *t, tv_agg_shard *g, tv_search_prof *sp, tv_arena *a,
                                     tv_error *err) {
    const tv_snapshot *snap = t->snap;
    if (!snap || !g) return TROVE_OK;
    uint64_t tw = tv_mono_ns();
    tv_qprof_node *root = tv_arena_calloc(a, 1, sizeof *root), *all = tv_arena_calloc(a, 1, sizeof *all);
    tv_qprof_node **kids = tv_arena_alloc(a, sizeof *kids), **roots = tv_arena_alloc(a, sizeof *roots);
    size_t nnames = 0;
    const char *names = tv_agg_profile_names(g, a, &nnames);
    if (!root || !all || !kids || !roots || !names) return tv_error_oom(err);
    root->type = "ConstantScoreQuery";
    root->description = "ConstantScore(*:*)";
    all->type = "MatchAllDocsQuery";
    all->description = "*:*";
    kids[0] = all;
    root->kids = kids;
    root->nkids = 1;
    root->inner = all;
    roots[0] = root;
    sp->q.roots = roots;
    sp->q.nroots = 1;
    uint64_t dw = tv_mono_ns() - tw;
    root->ns[TV_QT_CREATE_WEIGHT] = all->ns[TV_QT_CREATE_WEIGHT] = dw;
    root->count[TV_QT_CREATE_WEIGHT] = all->count[TV_QT_CREATE_WEIGHT] = 1;
    uint64_t tcoll = 0;
    tv_status st;
    for (uint32_t si = 0; si < snap->nsegs; si++) {
        const tv_segview *sv = &snap->segs[si];
        uint64_t tb = tv_mono_ns();
        tv_iter *it = tv_iter_all(a, sv->max_doc, 1.0f);
        uint64_t db = tv_mono_ns() - tb;
        if (!it || !(it = tv_qprof_wrap(all, it, a)) || !(it = tv_qprof_wrap(root, it, a))) return tv_error_oom(err);
        for (tv_qprof_node *n = root; n; n = n->inner) {
            n->ns[TV_QT_BUILD_SCORER] += db;
            n->count[TV_QT_BUILD_SCORER]++;
        }
        uint64_t tc = tv_mono_ns();
        if ((st = tv_agg_shard_segment(g, sv))) return st;
        tcoll += tv_mono_ns() - tc;
        for (uint32_t doc = tv_iter_next(it); doc != TV_NO_MORE_DOCS; doc = tv_iter_next(it)) {
            if (!tv_segview_live(sv, doc)) continue;
            tc = tv_mono_ns();
            st = tv_agg_collect(g, doc, 1.0f);
            tcoll += tv_mono_ns() - tc;
            if (st) return st;
        }
    }
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_printf(&b, "ProfilingAggregator: [%s]", names);
    sp->coll.name = b.oom ? NULL : tv_arena_strndup(a, b.data ? b.data : "", b.len);
    tv_buf_fini(&b);
    if (!sp->coll.name) return tv_error_oom(err);
    sp->coll.reason = "aggregation_global";
    sp->coll.ns = tcoll;
    return TROVE_OK;
}

/* The collector tree of a profiled target's search (QueryPhase's, as
 * InternalProfileCollector names them): `total` is the collection's wall
 * time; the query's own iterator time (its root's timings but
 * create_weight, measured by query/profile.c) is not the collectors'. */
static tv_status profile_collectors(const req *r, const coll *c, target_ctx *tc, uint64_t total, tv_arena *a,
                                    tv_error *err) {
    tv_search_prof *sp = &tc->prof->searches[0];
    uint64_t q = 0, post = 0;
    if (sp->q.nroots) q = tv_qprof_node_time(sp->q.roots[0]) - sp->q.roots[0]->ns[TV_QT_CREATE_WEIGHT];
    if (sp->q.nroots > 1) post = tv_qprof_node_time(sp->q.roots[1]) - sp->q.roots[1]->ns[TV_QT_CREATE_WEIGHT];
    uint64_t colls = total > q ? total - q : 0;
    uint64_t aggs = tc->aggs ? tv_agg_profile_collect_ns(tc->aggs) : 0;
    uint64_t top = colls > aggs ? colls - aggs : 0;
    tv_coll_prof t = {0};
    if (c->cap == 0) {
        /* EmptyTopDocsCollectorContext: a TotalHitCountCollector, behind
         * an EarlyTerminatingCollector unless every hit is counted */
        t.name = r->track_limit == INT64_MAX && !r->track_false ? "TotalHitCountCollector" : "EarlyTerminatingCollector";
        t.reason = "search_count";
    } else {
        t.name = "TopScoreDocCollector";
        t.reason = "search_top_hits";
    }
    t.ns = top;
    if (tc->post) {
        tv_coll_prof *k = tv_arena_alloc(a, sizeof *k);
        if (!k) return tv_error_oom(err);
        *k = t;
        k->ns = top > post ? top - post : 0;
        t = (tv_coll_prof){"FilteredCollector", "search_post_filter", top, k, 1};
    }
    if (!tc->aggs) {
        sp->coll = t;
        return TROVE_OK;
    }
    tv_coll_prof *k = tv_arena_calloc(a, 2, sizeof *k);
    size_t nnames = 0;
    const char *names = tv_agg_profile_names(tc->aggs, a, &nnames);
    if (!k || !names) return tv_error_oom(err);
    k[0] = t;
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_printf(&b, "ProfilingAggregator: [%s]", names);
    k[1].name = b.oom ? NULL : tv_arena_strndup(a, b.data ? b.data : "", b.len);
    tv_buf_fini(&b);
    if (!k[1].name) return tv_error_oom(err);
    k[1].reason = "aggregation";
    k[1].ns = aggs;
    sp->coll = (tv_coll_prof){"MultiCollector", "search_multi", colls, k, 2};
    return TROVE_OK;
}

/* What "profile": true cannot describe as OpenSearch would (NULL: all
 * fine): collectors whose names trove does not reproduce. */
static const char *profile_refusal(const req *r) {
    for (size_t i = 0; i < r->nsorts; i++)
        if (r->sorts[i].kind != TV_SORT_SCORE || !r->sorts[i].desc) return "sort";
    if (r->search_after) return "search_after";
    if (r->collapse) return "collapse";
    if (r->has_min_score) return "min_score";
    if (r->terminate_after >= 0) return "terminate_after";
    if (r->nrescores) return "rescore";
    uint32_t nglobal = 0, nother = 0;
    for (uint32_t i = 0; i < r->aggs.n; i++) {
        if (tv_agg_is_pipeline(r->aggs.items[i]->kind)) continue;
        if (r->aggs.items[i]->kind == TV_AGG_GLOBAL) nglobal++;
        else nother++;
    }
    if (nglobal > 1 || nother > 1) return "several top-level aggregations";
    return NULL;
}

static void write_shards(tv_jw *w, const tv_search_target *t, size_t nt) {
    size_t n = 0;
    for (size_t i = 0; i < nt; i++) n += t[i].nshards ? t[i].nshards : 1;
    tv_jw_keyz(w, "_shards");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "total");
    tv_jw_int(w, (int64_t)n);
    tv_jw_keyz(w, "successful");
    tv_jw_int(w, (int64_t)n);
    tv_jw_keyz(w, "skipped");
    tv_jw_int(w, 0);
    tv_jw_keyz(w, "failed");
    tv_jw_int(w, 0);
    tv_jw_obj_end(w);
}

/* Best hit first: heapsort in place. The collector's heap keeps the worst
 * hit at the root, so moving the root behind the shrinking heap leaves
 * the array best-first (n log n: an insertion sort of the heap order was
 * 2,500 comparisons for a page of 100, quadratic for big windows). The
 * heap is rebuilt first, so any order of heap[] is fine. */
static void sort_hits(coll *c) {
    size_t n = c->n;
    for (size_t i = n / 2; i-- > 0;) sift_down(c, i);
    while (c->n > 1) {
        heap_swap(c, 0, c->n - 1);
        c->n--;
        sift_down(c, 0);
    }
    c->n = n;
}

static void write_sort_value(tv_jw *w, const tv_sort_spec *s, const tv_field *f, const sval *v, const hit *h,
                             uint32_t gdoc) {
    if (s->kind == TV_SORT_SCORE) { tv_jw_float(w, h->score); return; }
    /* Lucene's FieldDoc for _doc holds docBase + doc: the shard-wide id */
    if (s->kind == TV_SORT_DOC) {
        /* _shard_doc: ShardDocSortField's (shard index << 32) | doc */
        tv_jw_int(w, s->shard_doc ? (int64_t)(((uint64_t)h->target << 32) | gdoc) : (int64_t)gdoc);
        return;
    }
    if (s->kind == TV_SORT_GEO) { tv_jw_double(w, tv_sortable_to_double(v->i)); return; }
    if (s->kind == TV_SORT_SCRIPT) {
        if (v->kind == 1) tv_jw_double(w, tv_sortable_to_double(v->i));
        else if (v->kind == 2) tv_jw_str(w, v->s, v->len);
        else tv_jw_null(w);
        return;
    }
    if (v->kind == 0) {
        /* Lucene's missing value: Long.MAX/MIN for numbers, null for strings */
        if (!f || f->dv_kind == TV_DV_SORTED_SET || (f && f->type == TV_FT_KEYWORD)) { tv_jw_null(w); return; }
        bool hi = s->desc ? s->missing_first : !s->missing_first;
        if (tv_field_type_is_floating(f->type)) tv_jw_strz(w, hi ? "Infinity" : "-Infinity");
        else if (f->type == TV_FT_UNSIGNED_LONG) tv_jw_uint(w, hi ? UINT64_MAX : 0);
        else tv_jw_int(w, hi ? INT64_MAX : INT64_MIN);
        return;
    }
    if (v->kind == 2) {
        /* ip: DocValueFormat.IP prints the address */
        if (f && f->type == TV_FT_IP && v->len == 16) {
            char ipt[TV_IP_TEXT_MAX];
            tv_jw_str(w, ipt, tv_ip_format((const uint8_t *)v->s, ipt));
            return;
        }
        tv_jw_str(w, v->s, v->len);
        return;
    }
    if (f && tv_field_type_is_floating(f->type)) {
        /* float and half_float sort on Lucene's FLOAT type: the sort value
         * is a java.lang.Float (printed as a float); double on DOUBLE.
         * Jackson writes non-finite numbers as strings ("Infinity"). */
        double dv = tv_sortable_to_double(v->i);
        if (!isfinite(dv)) tv_jw_strz(w, isnan(dv) ? "NaN" : dv > 0 ? "Infinity" : "-Infinity");
        else if (f->type == TV_FT_DOUBLE) tv_jw_double(w, dv);
        else tv_jw_float(w, (float)dv);
        return;
    }
    if (f && f->type == TV_FT_SCALED_FLOAT) { tv_jw_double(w, (double)v->i / f->scaling_factor); return; }
    /* unsigned_long: the exact unsigned value (a BigInteger in OpenSearch) */
    if (f && f->type == TV_FT_UNSIGNED_LONG) { tv_jw_uint(w, tv_sortable_to_unsigned(v->i)); return; }
    tv_jw_int(w, v->i);
}

/* Number of fields a docvalue_fields entry names (wildcards expand over
 * the mapping; a plain name counts once, mapped or not). */
static size_t dv_field_count(const tv_search_target *t, const char *name) {
    size_t len = strlen(name);
    if (!memchr(name, '*', len)) return 1;
    if (!t->snap || !t->snap->mapping) return 0;
    return tv_mapping_match_fields(t->snap->mapping, name, len, NULL, 0);
}

/* The shard-side checks of SearchService.parseSource after the query and
 * the sort were built, and DefaultSearchContext.preProcess's window. */
static tv_status shard_checks(tv_dsl *d, const req *r, const tv_search_target *t, int64_t from, int64_t size,
                              const tv_search_params *p) {
    tv_error *err = d->err;
    /* SearchService.parseSource's SearchExceptions (status 500) */
    const char *cx = NULL;
    if (r->collapse && p && (p->scroll || p->skip_aggs)) cx = "cannot use `collapse` in a scroll context";
    else if (r->collapse && r->search_after &&
             (r->nsorts != 1 || r->sorts[0].kind != TV_SORT_FIELD || strcmp(r->sorts[0].field, r->collapse) != 0))
        cx = "collapse field and sort field must be the same when use `collapse` in conjunction with `search_after`";
    else if (r->collapse && r->nrescores) cx = "cannot use `collapse` in conjunction with `rescore`";
    if (cx) {
        tv_error_set(err, TROVE_EINTERNAL, "%s", cx);
        tv_error_as(err, TROVE_ESEARCH);
        return shard_failure(err, t);
    }
    if (r->ndv) {
        size_t n = 0;
        for (size_t k = 0; k < r->ndv; k++) n += dv_field_count(t, r->dv_fields[k]);
        int64_t mx = t->max_docvalue_fields > 0 ? t->max_docvalue_fields : 100;
        if ((int64_t)n > mx) {
            tv_error_set(err, TROVE_EARG,
                         "Trying to retrieve too many docvalue_fields. Must be less than or equal to: [%lld] but was [%zu]. This limit can be set by changing the [index.max_docvalue_fields_search] index level setting.",
                         (long long)mx, n);
            return shard_failure(err, t);
        }
    }
    const tv_json *sa = r->search_after;
    if (sa && sa->len > 0) {
        if (from > 0) /* (request validation: not a shard failure) */
            return tv_error_set(err, TROVE_EARG, "[from] parameter must be set to 0 when [search_after] is used");
        /* SortBuilder.buildSort drops a lone _score descending sort */
        bool nosort = r->nsorts == 0 || (r->nsorts == 1 && r->sorts[0].kind == TV_SORT_SCORE && r->sorts[0].desc);
        if (nosort) {
            tv_error_set(err, TROVE_EARG, "Sort must contain at least one field.");
            return shard_failure(err, t);
        }
        if (sa->len != r->nsorts) {
            tv_error_set(err, TROVE_EARG, "search_after has %u value(s) but sort has %zu.", sa->len, r->nsorts);
            return shard_failure(err, t);
        }
    }
    if (r->nrescores) {
        /* DefaultSearchContext.preProcess and SearchService.parseSource */
        bool nosort = r->nsorts == 0 || (r->nsorts == 1 && r->sorts[0].kind == TV_SORT_SCORE && r->sorts[0].desc);
        if (!nosort) {
            tv_error_set(err, TROVE_EARG, "Cannot use [sort] option in conjunction with [rescore].");
            return shard_failure(err, t);
        }
        int64_t mw = t->max_rescore_window > 0 ? t->max_rescore_window : t->max_result_window > 0 ? t->max_result_window : 10000;
        for (size_t i = 0; i < r->nrescores; i++) {
            /* OpenSearch takes a negative window and fails inside the
             * rescorer (a NegativeArraySizeException, 500); trove refuses it
             * here, as the request error it is. */
            if (r->rescores[i].window < 0) {
                tv_error_set(err, TROVE_EARG, "Rescore window [%lld] must be greater than or equal to 0",
                             (long long)r->rescores[i].window);
                return shard_failure(err, t);
            }
            if (r->rescores[i].window > mw) {
                tv_error_set(err, TROVE_EARG,
                             "Rescore window [%lld] is too large. It must be less than [%lld]. This prevents allocating massive heaps for storing the results to be rescored. This limit can be set by changing the [index.max_rescore_window] index level setting.",
                             (long long)r->rescores[i].window, (long long)mw);
                return shard_failure(err, t);
            }
        }
    }
    int64_t mrw = t->max_result_window > 0 ? t->max_result_window : 10000;
    if (from + size > mrw) {
        tv_error_set(err, TROVE_EARG,
                     "Result window is too large, from + size must be less than or equal to: [%lld] but was [%lld]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.",
                     (long long)mrw, (long long)(from + size));
        return shard_failure(err, t);
    }
    return TROVE_OK;
}

static tv_status search_after_values(tv_dsl *d, const req *r, coll *c, tv_arena *a,
                                     const tv_search_target *targets, size_t ntargets) {
    const tv_json *sa = r->search_after;
    if (!sa->len) return TROVE_OK;
    if (!r->nsorts) return tv_error_set(d->err, TROVE_EARG, "Sort must contain at least one field.");
    if (sa->len != r->nsorts)
        return tv_error_set(d->err, TROVE_EARG, "search_after has %u value(s) but sort has %zu.", sa->len, r->nsorts);
    c->after = tv_arena_calloc(a, r->nsorts, sizeof *c->after);
    if (!c->after) return TROVE_ENOMEM;
    for (size_t i = 0; i < r->nsorts; i++) {
        const tv_json *v = &sa->v.items[i];
        const tv_sort_spec *s = &r->sorts[i];
        sval *o = &c->after[i];
        if (s->kind == TV_SORT_SCORE) {
            float f = (float)tv_json_as_double(v);
            memcpy(&o->i, &f, sizeof f);
            o->kind = 1;
            continue;
        }
        if (s->kind == TV_SORT_SCRIPT)
            return tv_error_set(d->err, TROVE_EUNSUPPORTED, "[search_after] with a [_script] sort is not supported by trove");
        if (s->kind == TV_SORT_DOC) {
            /* the shard-wide doc id (docBase + doc), as written in "sort" */
            o->kind = 1;
            o->i = v->type == TV_JSON_INT ? v->v.i : tv_java_d2l(tv_json_as_double(v));
            continue;
        }
        if (s->kind == TV_SORT_GEO) {
            double x;
            if (tv_json_is_number(v)) x = tv_json_as_double(v);
            else if (!(v->type == TV_JSON_STRING && tv_java_parse_double(v->v.s, v->len, &x)))
                return tv_error_set(d->err, TROVE_EUNSUPPORTED,
                                    "a [search_after] value for [_geo_distance] that is not a number is not supported by trove");
            o->kind = 1;
            o->i = tv_double_to_sortable(x);
            continue;
        }
        const tv_field *f = NULL;
        for (size_t t = 0; t < ntargets && !f; t++)
            if (targets[t].snap && targets[t].snap->mapping) f = tv_mapping_field(targets[t].snap->mapping, s->field, s->field_len);
        if (v->type == TV_JSON_NULL) { o->kind = 0; continue; }
        if (f && f->dv_kind == TV_DV_NUMERIC) {
            o->kind = 1;
            if (tv_field_type_is_floating(f->type)) o->i = tv_double_to_sortable(tv_json_as_double(v));
            else if (f->type == TV_FT_UNSIGNED_LONG) {
                /* an exact unsigned integer (its text when a string);
                 * negatives clamp to 0, beyond 2^64-1 to the maximum */
                uint64_t u = 0;
                if (v->type == TV_JSON_UINT) u = v->v.u;
                else if (v->type == TV_JSON_INT) u = v->v.i < 0 ? 0 : (uint64_t)v->v.i;
                else if (v->type == TV_JSON_STRING) {
                    char *end = NULL;
                    char tmp[32];
                    size_t l = TV_MIN((size_t)v->len, sizeof tmp - 1);
                    memcpy(tmp, v->v.s, l);
                    tmp[l] = 0;
                    if (tmp[0] == '-') u = 0;
                    else {
                        errno = 0;
                        unsigned long long x = strtoull(tmp, &end, 10);
                        if (end == tmp || *end) {
                            double dx = strtod(tmp, NULL);
                            u = dx <= 0 ? 0 : dx >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)dx;
                        } else u = errno == ERANGE ? UINT64_MAX : (uint64_t)x;
                    }
                } else {
                    double dx = tv_json_as_double(v);
                    u = dx <= 0 ? 0 : dx >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)dx;
                }
                o->i = tv_unsigned_to_sortable(u);
            } else if (v->type == TV_JSON_STRING && f->type == TV_FT_DATE_NANOS) {
                const char *fmt = f->format ? f->format : TV_DATE_NANOS_DEFAULT_FORMAT;
                if (tv_date_parse_nanos(fmt, v->v.s, v->len, &o->i, d->err)) return d->err ? d->err->code : TROVE_EARG;
            } else if (v->type == TV_JSON_INT) o->i = v->v.i;
            else if (v->type == TV_JSON_STRING && f->type == TV_FT_DATE) {
                if (tv_date_parse(f->format, v->v.s, v->len, &o->i, d->err)) return d->err ? d->err->code : TROVE_EARG;
            } else if (v->type == TV_JSON_STRING && tv_parse_i64(v->v.s, v->len, &o->i)) ;
            else if (v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE) o->i = v->type == TV_JSON_TRUE;
            else o->i = tv_java_d2l(tv_json_as_double(v)); /* Number.longValue() of a double */
        } else {
            const char *s2;
            size_t l;
            if (!tv_dsl_scalar_text(v, &s2, &l)) return tv_error_set(d->err, TROVE_EARG, "search_after value cannot be an object");
            if (f && f->type == TV_FT_IP) {
                /* the printed address back to its 16-byte encoding */
                uint8_t *ip = tv_arena_alloc(a, 16);
                if (!ip) return TROVE_ENOMEM;
                if (!tv_ip_parse(s2, l, ip))
                    return tv_error_set(d->err, TROVE_EARG, "'%.*s' is not an IP string literal.", (int)TV_MIN(l, 200), s2);
                s2 = (const char *)ip;
                l = 16;
            }
            o->kind = 2;
            o->s = s2;
            o->len = (uint32_t)l;
        }
    }
    return TROVE_OK;
}

/* The fetch phase (run only when the page has hits): docvalue_fields on a
 * text field fails while FetchPhase builds its sub-phases. */
static tv_status fetch_checks(const req *r, const coll *c, size_t from, const tv_search_target *targets,
                              tv_error *err) {
    for (size_t i = from; i < c->n; i++) {
        const tv_search_target *t = &targets[c->heap[i].target];
        if (!t->snap || !t->snap->mapping) continue;
        for (size_t k = 0; k < r->ndv; k++) {
            const tv_field *f = tv_mapping_field(t->snap->mapping, r->dv_fields[k], strlen(r->dv_fields[k]));
            if (f && f->type == TV_FT_RANGE) /* OpenSearch prints its own binary encoding */
                return tv_error_set(err, TROVE_EUNSUPPORTED,
                                    "[docvalue_fields] of field [%s] of type [%s] is not supported by trove", f->path,
                                    tv_field_declared_type(f));
            if (!f || f->type != TV_FT_TEXT) continue;
            tv_error_set(err, TROVE_EARG, "Error building fetch sub-phases");
            tv_error_as(err, TROVE_EFETCHPHASE);
            tv_error_cause(err, TROVE_EARG,
                           "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [%s] in order to load field data by uninverting the inverted index. Note that this can use significant memory.",
                           r->dv_fields[k]);
            return shard_failure(err, t);
        }
    }
    return TROVE_OK;
}

static tv_status run(const tv_search_target *targets, size_t ntargets, const tv_json *body,
                     const tv_search_params *params, tv_arena *arena, tv_jw *out, tv_error *err,
                     bool count_only, tv_agg_ctx *actx);

/* collapse.inner_hits (ExpandSearchPhase): for a group's hit, a search
 * over the same targets for the original query filtered to the group's
 * value (or to docs without one), with the inner_hits options as its body;
 * its "hits" object is written under the inner hit's name. */
static tv_status collapse_inner_hits(const req *r, const tv_search_target *targets, size_t ntargets, const hit *h,
                                     const tv_field *cf, const tv_search_params *params, tv_arena *arena, tv_jw *out,
                                     tv_error *err) {
    if (cf && cf->type != TV_FT_KEYWORD && cf->type != TV_FT_LONG && cf->type != TV_FT_INTEGER &&
        cf->type != TV_FT_SHORT && cf->type != TV_FT_BYTE)
        return tv_error_set(err, TROVE_EUNSUPPORTED, "[inner_hits] in [collapse] on a [%s] field is not supported by trove",
                            tv_field_type_name(cf->type));
    tv_jw_keyz(out, "inner_hits");
    tv_jw_obj_begin(out);
    for (size_t k = 0; k < r->ninner; k++) {
        const tv_json *ih = r->inner[k];
        const tv_json *nm = tv_json_get(ih, "name");
        tv_buf b;
        tv_buf_init(&b);
        tv_jw w;
        tv_jw_init(&w, &b, false);
        tv_jw_obj_begin(&w);
        tv_jw_keyz(&w, "query");
        tv_jw_obj_begin(&w);
        tv_jw_keyz(&w, "bool");
        tv_jw_obj_begin(&w);
        if (r->query) {
            tv_jw_keyz(&w, "must");
            tv_jw_value(&w, r->query);
        }
        tv_jw_keyz(&w, h->cv.kind ? "filter" : "must_not");
        tv_jw_obj_begin(&w);
        if (h->cv.kind) {
            tv_jw_keyz(&w, "term");
            tv_jw_obj_begin(&w);
            tv_jw_keyz(&w, r->collapse);
            if (h->cv.kind == 2) tv_jw_str(&w, h->cv.s, h->cv.len);
            else tv_jw_int(&w, h->cv.i);
            tv_jw_obj_end(&w);
        } else {
            tv_jw_keyz(&w, "exists");
            tv_jw_obj_begin(&w);
            tv_jw_keyz(&w, "field");
            tv_jw_strz(&w, r->collapse);
            tv_jw_obj_end(&w);
        }
        tv_jw_obj_end(&w);
        tv_jw_obj_end(&w);
        tv_jw_obj_end(&w);
        bool sized = false;
        for (uint32_t i = 0; i < ih->len; i++) {
            const tv_json_member *m = &ih->v.members[i];
            if (tv_streq(m->key, m->key_len, "name")) continue;
            sized |= tv_streq(m->key, m->key_len, "size");
            tv_jw_key(&w, m->key, m->key_len);
            tv_jw_value(&w, &m->val);
        }
        if (!sized) { tv_jw_keyz(&w, "size"); tv_jw_int(&w, 3); } /* InnerHitBuilder's default */
        tv_jw_obj_end(&w);
        tv_json *body = NULL;
        tv_status st = b.oom ? TROVE_ENOMEM : tv_json_parse(arena, b.data, b.len, &body, NULL);
        tv_buf_fini(&b);
        if (st) return tv_error_oom(err);
        tv_search_params p;
        tv_search_params_init(&p);
        p.rest_total_hits_as_int = params && params->rest_total_hits_as_int;
        tv_agg_ctx ictx;
        tv_agg_ctx_init(&ictx, arena, err, 65535);
        tv_buf rb;
        tv_buf_init(&rb);
        tv_jw rw;
        tv_jw_init(&rw, &rb, false);
        st = run(targets, ntargets, body, &p, arena, &rw, err, false, &ictx);
        tv_agg_ctx_fini(&ictx);
        tv_json *res = NULL;
        if (!st) st = rb.oom ? tv_error_oom(err) : tv_json_parse(arena, rb.data, rb.len, &res, NULL);
        if (st) { tv_buf_fini(&rb); return st; }
        if (nm && nm->type == TV_JSON_STRING) tv_jw_key(out, nm->v.s, nm->len);
        else tv_jw_keyz(out, r->collapse);
        tv_jw_obj_begin(out);
        tv_jw_keyz(out, "hits");
        const tv_json *hv = tv_json_get(res, "hits");
        if (hv) tv_jw_value(out, hv); /* (numbers print from the response's text: rb lives until here) */
        else tv_jw_null(out);
        tv_jw_obj_end(out);
        tv_buf_fini(&rb);
    }
    tv_jw_obj_end(out);
    return TROVE_OK;
}

/* "matched_queries" of a hit (MatchedQueriesPhase): the named queries that
 * match segment seg's doc, in Java HashMap order of their names, as a
 * list, or as {name: score} with include_named_queries_score. */
static tv_status write_matched(tv_jw *out, const target_ctx *tc, const tv_snapshot *snap, uint32_t seg,
                               uint32_t doc, bool scores, tv_arena *arena, tv_error *err) {
    const char **names = tv_arena_alloc(arena, tc->nnamed * sizeof *names);
    float *sc = tv_arena_alloc(arena, tc->nnamed * sizeof *sc);
    uint32_t *ord = tv_arena_alloc(arena, tc->nnamed * sizeof *ord);
    if (!names || !sc || !ord) return tv_error_oom(err);
    uint32_t m = 0;
    for (uint32_t i = 0; i < tc->nnamed; i++) {
        tv_plan_ctx pc = {arena, snap, true, false};
        tv_iter *it = NULL;
        tv_status st = tv_plan(tc->named[i].q, &snap->segs[seg], &pc, &it);
        if (st) return tv_error_set(err, st, "%s", trove_status_message(st));
        if (!it || tv_iter_advance(it, doc) != doc) continue;
        names[m] = tc->named[i].name;
        sc[m++] = tv_iter_score(it);
    }
    if (!m) return TROVE_OK;
    tv_java_hashmap_order(names, m, ord);
    tv_jw_keyz(out, "matched_queries");
    if (scores) {
        tv_jw_obj_begin(out);
        for (uint32_t i = 0; i < m; i++) {
            tv_jw_keyz(out, names[ord[i]]);
            tv_jw_float(out, sc[ord[i]]);
        }
        tv_jw_obj_end(out);
    } else {
        tv_jw_arr_begin(out);
        for (uint32_t i = 0; i < m; i++) tv_jw_strz(out, names[ord[i]]);
        tv_jw_arr_end(out);
    }
    return TROVE_OK;
}

/* The page's hits (from on), as the fetch phase writes them: stored
 * documents read once per chunk, nested inner hits collected per target,
 * then each hit's members in SearchHit's order. */
/* stored_fields naming fields mapped with "store": true: trove keeps no
 * separate stored fields, so their values are read from the _source, as
 * the stored field holds them (typed and formatted as "fields" renders
 * them); added to the hit's document fields unless already there. */
static tv_status stored_fields(const req *r, const tv_mapping *m, const tv_doc_meta *meta, const char *src,
                               size_t src_len, tv_fetched **df, size_t *ndf, tv_arena *arena, tv_error *err) {
    tv_fetch_spec *specs = tv_arena_calloc(arena, r->nstored + 1, sizeof *specs);
    if (!specs) return tv_error_oom(err);
    size_t n = 0;
    for (size_t k = 0; k < r->nstored; k++) {
        const char *name = r->stored[k];
        const tv_field *f = m && name[0] != '_' ? tv_mapping_field(m, name, strlen(name)) : NULL;
        if (f && f->store) specs[n++].pattern = name;
    }
    if (!n) return TROVE_OK;
    tv_fetched *ff;
    size_t nff;
    tv_status st = tv_fetch_fields(arena, m, specs, n, meta->id, meta->id_len, src, src_len, &ff, &nff, err);
    if (st || !nff) return st;
    tv_fetched *all = tv_arena_alloc(arena, (*ndf + nff + 2) * sizeof *all);
    if (!all) return tv_error_oom(err);
    if (*ndf) memcpy(all, *df, *ndf * sizeof *all);
    size_t o = *ndf;
    for (size_t q = 0; q < nff; q++) {
        bool dup = false;
        for (size_t z = 0; z < o && !dup; z++) dup = !strcmp(all[z].name, ff[q].name);
        if (!dup) all[o++] = ff[q];
    }
    *df = all;
    *ndf = o;
    return TROVE_OK;
}

/* ScriptFieldsPhase: each script field's value as the hit's document
 * field (a Collection's elements, else the one value, null included); a
 * failing script fails the shard unless its ignore_failure is true. */
static tv_status script_fields(const req *r, const target_ctx *tc, const tv_search_target *t, const tv_segview *sv,
                               uint32_t doc, tv_arena *arena, tv_fetched **df, size_t *ndf, tv_error *err) {
    uint32_t n = r->script_fields->len;
    tv_fetched *all = tv_arena_alloc(arena, (*ndf + n + 1) * sizeof *all);
    if (!all) return tv_error_oom(err);
    if (*ndf) memcpy(all, *df, *ndf * sizeof *all);
    size_t na = *ndf;
    tv_status st = TROVE_OK;
    tv_buf b;
    tv_buf_init(&b);
    for (uint32_t i = 0; i < n && !st; i++) {
        const char *name = r->script_fields->v.members[i].key;
        tv_qscript_exec x;
        tv_qscript_exec_init(&x, tc->sf[i], t->snap->mapping, t->index, err);
        tv_sv v;
        tv_error e2 = TV_ERROR_INIT;
        if (tc->sf_ignore[i]) {
            x.err = &e2;
            x.quiet = true;
        }
        st = tv_qscript_run(&x, sv->seg, doc, 0.0, NULL, &v);
        if (st == TROVE_ENOMEM) {
            st = tv_error_oom(err);
        } else if (st && tc->sf_ignore[i]) {
            st = TROVE_OK;
        } else if (!st) {
            tv_buf_clear(&b);
            tv_jw w;
            tv_jw_init(&w, &b, false);
            if (v.type == TV_SV_LIST) {
                tv_jw_arr_begin(&w);
                for (uint32_t k = 0; k < v.v.list->len; k++) tv_sv_write_json(&w, &v.v.list->items[k]);
                tv_jw_arr_end(&w);
            } else {
                tv_jw_arr_begin(&w);
                tv_sv_write_json(&w, &v);
                tv_jw_arr_end(&w);
            }
            size_t at = na;
            for (size_t q = 0; q < na; q++)
                if (!strcmp(all[q].name, name)) at = q; /* a script field replaces a field of its name */
            all[at].name = name;
            all[at].json = tv_arena_memdup(arena, b.data ? b.data : "[]", b.len);
            all[at].len = b.len;
            if (!all[at].json || b.oom) st = tv_error_oom(err);
            if (at == na) na++;
        }
        tv_qscript_exec_fini(&x);
    }
    tv_buf_fini(&b);
    if (st) return st;
    *df = all;
    *ndf = na;
    return TROVE_OK;
}

static tv_status write_page(const req *r, coll *c, const tv_search_target *targets, size_t ntargets,
                            target_ctx *tcs, int64_t from, bool scores_shown, const tv_search_params *params,
                            tv_arena *arena, tv_jw *out, tv_error *err) {
    tv_status st = TROVE_OK;
    /* per target and segment, the highest doc of the page, so that one
     * decompression of a stored chunk serves every hit in it */
    uint32_t **upto = tv_arena_calloc(arena, ntargets ? ntargets : 1, sizeof *upto);
    if (!upto) return tv_error_oom(err);
    for (size_t i = (size_t)from; i < c->n; i++) {
        const hit *h = &c->heap[i];
        if (!upto[h->target]) {
            upto[h->target] = tv_arena_calloc(arena, targets[h->target].snap->nsegs, sizeof **upto);
            if (!upto[h->target]) return tv_error_oom(err);
        }
        if (h->doc > upto[h->target][h->seg]) upto[h->target][h->seg] = h->doc;
    }
    /* nested inner hits: each target's hits of the page at once */
    for (size_t ti = 0; ti < ntargets && from < (int64_t)c->n; ti++) {
        if (!tcs[ti].nnih) continue;
        uint32_t npage = (uint32_t)(c->n - (size_t)from), m = 0;
        uint32_t *pg = tv_arena_alloc(arena, 3 * (size_t)npage * sizeof *pg);
        if (!pg) return tv_error_oom(err);
        for (size_t i = (size_t)from; i < c->n; i++) {
            if (c->heap[i].target != ti) continue;
            pg[m] = (uint32_t)(i - (size_t)from);
            pg[npage + m] = c->heap[i].seg;
            pg[2 * npage + m++] = c->heap[i].doc;
        }
        if ((st = tv_inner_hits_collect(tcs[ti].nih, tcs[ti].nnih, targets[ti].snap, npage, pg, pg + npage,
                                        pg + 2 * npage, m, arena, err)))
            return st;
    }
    tv_stored_cache chunks;
    tv_stored_cache_init(&chunks);
    for (size_t i = (size_t)from; i < c->n; i++) {
        const hit *h = &c->heap[i];
        const tv_search_target *t = &targets[h->target];
        const tv_segview *sv = &t->snap->segs[h->seg];
        tv_doc_meta meta;
        const char *src = NULL;
        size_t src_len = 0;
        memset(&meta, 0, sizeof meta);
        /* stored_fields _none_ prints neither _id nor _source: nothing to read
         * unless _version or _seq_no are asked for */
        if (!r->stored_none || r->version || r->seq_no) {
            st = tv_segment_doc_cached(sv->seg, h->doc, upto[h->target][h->seg], &chunks, arena, &meta,
                                       r->stored_none ? NULL : &src, &src_len);
            if (st) return tv_error_set(err, st, "failed to load document");
        }
        tv_jw_obj_begin(out);
        if (r->explain) tv_explain_hit_head(out, params, h->target, t->index, &meta);
        tv_jw_keyz(out, "_index");
        tv_jw_strz(out, t->index ? t->index : "");
        if (!r->stored_none) {
            tv_jw_keyz(out, "_id");
            tv_jw_str(out, meta.id, meta.id_len);
        }
        tv_hit_write_versions(out, &meta, r->version, r->seq_no);
        tv_jw_keyz(out, "_score");
        if (scores_shown) tv_jw_float(out, h->score);
        else tv_jw_null(out);
        if (meta.routing && !r->stored_none) {
            tv_jw_keyz(out, "_routing");
            tv_jw_str(out, meta.routing, meta.routing_len);
        }
        /* stored_fields: _source only when listed or asked for with _source */
        bool want_src = r->src.fetch && !r->stored_none;
        if (r->stored && !r->stored_none && !r->src_explicit) {
            want_src = false;
            for (size_t k = 0; k < r->nstored; k++)
                if (strcmp(r->stored[k], "_source") == 0) want_src = true;
        }
        /* FetchPhase: with script_fields, _source only when asked for */
        if (r->script_fields && !r->src_explicit) want_src = false;
        if (want_src && src) {
            tv_jw_keyz(out, "_source");
            if (!r->src.ninc && !r->src.nexc) {
                tv_jw_raw(out, src, src_len);
            } else {
                tv_fetch_write_source(out, arena, src, src_len, r->src.inc, r->src.ninc, r->src.exc, r->src.nexc);
            }
        }
        /* the hit's document fields: docvalue_fields, then "fields", then
         * the collapse value, printed in Java HashMap order as SearchHit's
         * field map prints them */
        tv_fetched *df = NULL;
        size_t ndf = 0, cdf = r->ndv + 2;
        df = tv_arena_alloc(arena, cdf * sizeof *df);
        if (!df) return tv_error_oom(err);
        tv_buf fb;
        tv_buf_init(&fb);
        tv_fetch_docvalues(arena, t->snap->mapping, sv->seg, h->doc, r->dv_fields, r->dv_formats, r->ndv,
                           meta.id ? &meta : NULL, false, df, &ndf, &fb);
        if (r->nfetch && !tv_mapping_source_enabled(t->snap->mapping)) {
            tv_buf_fini(&fb);
            tv_error_set(err, TROVE_EARG,
                         "Unable to retrieve the requested [fields] since _source is disabled in the mappings for "
                         "index [%s]",
                         t->index ? t->index : "");
            return shard_failure(err, t);
        }
        if (r->nfetch) {
            tv_fetched *ff;
            size_t nff;
            const char *fsrc = src;
            size_t fsrc_len = src_len;
            if (!fsrc && r->stored_none) fsrc = NULL; /* no _source read: nothing to fetch */
            st = tv_fetch_fields(arena, t->snap->mapping, r->fetch, r->nfetch, meta.id, meta.id_len, fsrc, fsrc_len, &ff, &nff, err);
            if (st) { tv_buf_fini(&fb); return shard_failure(err, t); }
            if (nff) {
                tv_fetched *all = tv_arena_alloc(arena, (ndf + nff + 2) * sizeof *all);
                if (!all) { tv_buf_fini(&fb); return tv_error_oom(err); }
                memcpy(all, df, ndf * sizeof *df);
                for (size_t q = 0; q < nff; q++) {
                    bool dup = false;
                    for (size_t z = 0; z < ndf && !dup; z++) dup = !strcmp(all[z].name, ff[q].name);
                    if (!dup) all[ndf++] = ff[q];
                }
                df = all;
            }
        }
        if (r->stored && !r->stored_none && src && (st = stored_fields(r, t->snap->mapping, &meta, src, src_len, &df,
                                                                         &ndf, arena, err))) {
            tv_buf_fini(&fb);
            return shard_failure(err, t);
        }
        if (r->collapse) {
            /* the group's value (FetchSearchPhase sets it as a document
             * field): a keyword's term, a number's doc value as a long */
            tv_buf_clear(&fb);
            tv_jw fw;
            tv_jw_init(&fw, &fb, false);
            tv_jw_arr_begin(&fw);
            const tv_field *cf = tcs[h->target].cf;
            if (h->cv.kind == 2 && cf && cf->type == TV_FT_KEYWORD) tv_jw_str(&fw, h->cv.s, h->cv.len);
            else if (h->cv.kind == 1) tv_jw_int(&fw, h->cv.i);
            else tv_jw_null(&fw);
            tv_jw_arr_end(&fw);
            bool dup = false;
            for (size_t q = 0; q < ndf && !dup; q++) dup = !strcmp(df[q].name, r->collapse);
            if (!dup) {
                tv_fetched *all = tv_arena_alloc(arena, (ndf + 1) * sizeof *all);
                if (all) {
                    if (ndf) memcpy(all, df, ndf * sizeof *df);
                    all[ndf].name = r->collapse;
                    all[ndf].json = tv_arena_memdup(arena, fb.data ? fb.data : "", fb.len);
                    all[ndf++].len = fb.len;
                    df = all;
                }
            }
        }
        if (r->script_fields && (st = script_fields(r, &tcs[h->target], t, sv, h->doc, arena, &df, &ndf, err))) {
            tv_buf_fini(&fb);
            return st;
        }
        if (fb.oom) { tv_buf_fini(&fb); return tv_error_oom(err); }
        tv_buf_fini(&fb);
        if (tv_fetch_write_fields(out, df, ndf, arena)) return tv_error_oom(err);
        if (tcs[h->target].hl && (st = tv_hl_write(tcs[h->target].hl, arena, src, src_len, h->doc, meta.id, meta.id_len, out, err))) {
            return st; /* highlight: after _source and fields, before sort (SearchHit) */
        }
        if (r->nsorts) {
            tv_jw_keyz(out, "sort");
            tv_jw_arr_begin(out);
            for (size_t k = 0; k < r->nsorts; k++)
                write_sort_value(out, &r->sorts[k], tcs[h->target].tf[k].f, &h->sv[k], h,
                                 targets[h->target].snap->segs[h->seg].doc_base + h->doc);
            tv_jw_arr_end(out);
        }
        if (tcs[h->target].nnamed &&
            (st = write_matched(out, &tcs[h->target], t->snap, h->seg, h->doc, params && params->named_scores, arena,
                                err)))
            return st;
        if (r->explain && (st = tv_explain_hit(out, tcs[h->target].q, t->snap, h->seg, h->doc, arena)))
            return tv_error_set(err, st, "%s", trove_status_message(st));
        if (r->ninner && tcs[h->target].nnih)
            return tv_error_set(err, TROVE_EUNSUPPORTED,
                                "[inner_hits] of both [collapse] and a [nested] query are not supported by trove");
        if (r->ninner && (st = collapse_inner_hits(r, targets, ntargets, h, tcs[h->target].cf, params, arena, out, err)))
            return st;
        if (tcs[h->target].nnih) {
            tv_jw_keyz(out, "inner_hits");
            tv_jw_obj_begin(out);
            st = tv_inner_hits_write(tcs[h->target].nih, tcs[h->target].nnih, t->snap, h->seg, h->doc,
                                     (uint32_t)(i - (size_t)from), t->index, arena, out, err);
            tv_jw_obj_end(out);
            if (st) {
                    return st;
            }
        }
        tv_jw_obj_end(out);
    }
    return TROVE_OK;
}

static tv_status run(const tv_search_target *targets, size_t ntargets, const tv_json *body,
                     const tv_search_params *params, tv_arena *arena, tv_jw *out, tv_error *err,
                     bool count_only, tv_agg_ctx *actx) {
    uint64_t t0 = tv_mono_ns();
    tv_error_clear(err);
    tv_dsl d;
    tv_search_dsl_init(&d, arena, err, params);
    req r;
    memset(&r, 0, sizeof r);
    r.from = -1;
    r.size = -1;
    r.track_limit = 10000;
    r.src.fetch = true;
    r.terminate_after = -1;
    tv_status st;
    if (count_only) {
        if (body && body->type == TV_JSON_OBJECT) {
            for (uint32_t i = 0; i < body->len; i++) {
                const tv_json_member *m = &body->v.members[i];
                if (tv_streq(m->key, m->key_len, "query") && m->val.type == TV_JSON_OBJECT) r.query = &m->val;
                else return tv_dsl_error(&d, TROVE_EPARSE, m->key_off, "request does not support [%s]", m->key);
            }
        }
        if (params && params->terminate_after > 0) r.terminate_after = params->terminate_after;
        /* _count?q= replaces the body's query, as on _search */
        if (params && params->q && tv_query_string_from_params(arena, params, &r.query))
            return tv_error_oom(err);
    } else {
        if ((st = parse_body(&d, body, &r))) return st;
        if ((st = apply_params(&d, params, &r))) return st;
        if (params && params->skip_aggs) r.aggs.n = 0;
    }
    int64_t from = r.from < 0 && r.from == -1 ? 0 : r.from;
    int64_t size = r.size == -1 ? 10 : r.size;
    if (!count_only) {
        if (from < 0) return tv_error_set(err, TROVE_EARG, "[from] parameter cannot be negative, found [%lld]", (long long)from);
        if (size < 0) return tv_error_set(err, TROVE_EARG, "[size] parameter cannot be negative, found [%lld]", (long long)size);
        if (params && params->rest_total_hits_as_int && r.track_limit != INT64_MAX && !r.track_false && r.track_limit != 10000)
            return tv_error_set(err, TROVE_EARG, "[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got %lld", (long long)r.track_limit);
        if (params && params->rest_total_hits_as_int && !r.track_false) r.track_limit = INT64_MAX;
    }
    target_ctx *tcs = tv_arena_calloc(arena, ntargets ? ntargets : 1, sizeof *tcs);
    if (!tcs) return tv_error_oom(err);
    tv_shard_prof *profs = NULL;
    if (r.profile && !count_only) {
        const char *why = profile_refusal(&r);
        if (why) return tv_error_set(err, TROVE_EUNSUPPORTED, "[profile] with [%s] is not supported by trove", why);
        profs = tv_arena_calloc(arena, ntargets ? ntargets : 1, sizeof *profs);
        if (!profs) return tv_error_oom(err);
        for (size_t i = 0; i < ntargets; i++) {
            profs[i].index = targets[i].index;
            profs[i].nsearches = 1;
            tcs[i].prof = &profs[i];
        }
        actx->profile = true;
    }
    for (size_t i = 0; i < ntargets; i++) {
        /* in SearchService.parseSource's order: query, post_filter, sort,
         * docvalue_fields, search_after; then the result window */
        if ((st = parse_target(&d, &r, &targets[i], &tcs[i]))) return st;
        if (r.hl && !count_only && (st = tv_hl_bind(&d, r.hl, &targets[i], tcs[i].q, &tcs[i].hl))) return st; /* highlight */
        if (tcs[i].nnih && !count_only && (st = tv_inner_hits_bind(&d, &targets[i], tcs[i].nih, tcs[i].nnih)))
            return st;
        /* explain: the query kinds explain.c reproduces; no rescore or
         * index boost (their explanations are not reproduced) */
        if (r.explain && !count_only && (r.nrescores || tcs[i].boost != 1))
            return tv_error_set(err, TROVE_EUNSUPPORTED, "[explain] with [%s] is not supported by trove",
                                r.nrescores ? "rescore" : "indices_boost");
        if (!count_only && (st = shard_checks(&d, &r, &targets[i], from, size, params))) return st;
        if (r.aggs.n) {
            /* collect.c's filter rewrite: every live doc reaches the aggregations */
            actx->match_all = tcs[i].q->kind == TV_Q_MATCH_ALL && !r.has_min_score && r.terminate_after < 0;
            if ((st = tv_agg_shard_new(actx, &d, &r.aggs, &targets[i], false, &tcs[i].aggs)) ||
                (st = tv_agg_shard_new(actx, &d, &r.aggs, &targets[i], true, &tcs[i].global_aggs)))
                return st;
        }
    }
    coll c;
    memset(&c, 0, sizeof c);
    c.r = &r;
    c.max_score = -INFINITY;
    c.arena = arena;
    c.err = err;
    c.deadline = r.timeout_ns > 0 ? t0 + (uint64_t)r.timeout_ns : 0;
    c.collapsing = r.collapse != NULL && !count_only;
    tv_map_init(&c.gmap);
    tv_buf_init(&c.gkey);
    bool sort_by_score_first = r.nsorts == 0 || r.sorts[0].kind == TV_SORT_SCORE;
    bool any_score_sort = r.nsorts == 0;
    bool script_sort = false; /* _score in a sort script */
    for (size_t i = 0; i < r.nsorts; i++) {
        any_score_sort |= r.sorts[i].kind == TV_SORT_SCORE;
        script_sort |= r.sorts[i].kind == TV_SORT_SCRIPT;
    }
    c.need_scores = any_score_sort || script_sort || r.track_scores || r.has_min_score || (r.aggs.n && tv_aggs_need_scores(&r.aggs));
    c.cap = count_only ? 0 : (size_t)(from + size);
    if (c.cap) {
        c.heap = tv_arena_alloc(arena, c.cap * sizeof *c.heap);
        c.store = tv_arena_calloc(arena, c.cap * (r.nsorts + 1), sizeof *c.store);
        if (!c.heap || !c.store) return tv_error_oom(err);
    }
    c.scratch = tv_arena_calloc(arena, r.nsorts + 1, sizeof *c.scratch);
    if (r.nsorts && !(c.rd = tv_arena_calloc(arena, r.nsorts, sizeof *c.rd))) return tv_error_oom(err);
    if (!c.scratch) return tv_error_oom(err);
    if (r.nsorts && ntargets > 1 && !count_only && (st = mixed_numeric_sorts(&r, &c, tcs, targets, ntargets, err)))
        return st;
    if (r.search_after && (st = search_after_values(&d, &r, &c, arena, targets, ntargets))) return st;
    size_t window = 0;
    for (size_t k = 0; k < r.nrescores; k++) window = TV_MAX(window, (size_t)r.rescores[k].window);
    tv_search_stats *ss = params ? params->stats : NULL;
    if (ss) ss->suggest_only = r.suggest && !r.query && !r.aggs.n;
    for (size_t i = 0; i < ntargets; i++) {
        uint64_t tq = tv_mono_ns();
        if (r.nrescores && !count_only) {
            /* each target's own top hits (what a shard returns) are rescored,
             * then merged into the page */
            coll ct = c;
            ct.cap = TV_MAX(c.cap, window);
            ct.n = 0;
            ct.total = 0;
            ct.max_score = -INFINITY;
            ct.heap = tv_arena_alloc(arena, (ct.cap + 1) * sizeof *ct.heap);
            ct.store = tv_arena_calloc(arena, (ct.cap + 1) * (r.nsorts + 1), sizeof *ct.store); /* sort: [_score] */
            if (!ct.heap || !ct.store) { st = TROVE_ENOMEM; goto fail; }
            st = run_target(&r, &ct, (uint32_t)i, &targets[i], &tcs[i], arena, false);
            if (!st) {
                sort_hits(&ct);
                st = rescore_target(&r, ct.heap, ct.n, &targets[i], &tcs[i], arena);
            }
            if (st) goto fail;
            c.total += ct.total;
            c.terminated |= ct.terminated;
            c.timed_out |= ct.timed_out;
            if (ct.n && !(ct.heap[0].score <= c.max_score)) c.max_score = ct.heap[0].score;
            for (size_t k = 0; k < ct.n; k++) offer(&c, ct.heap[k].score, ct.heap[k].target, ct.heap[k].seg, ct.heap[k].doc);
        } else {
            uint64_t tp = tv_mono_ns();
            st = run_target(&r, &c, (uint32_t)i, &targets[i], &tcs[i], arena, count_only);
            if (!st && tcs[i].prof) st = profile_collectors(&r, &c, &tcs[i], tv_mono_ns() - tp, arena, err);
        }
    fail:
        if (st) collapse_fini(&c);
        if (st && err->code == st) return st; /* an error with its reason */
        if (st) return tv_error_set(err, st, "%s", trove_status_message(st));
        if (r.aggs.n) {
            tcs[i].agg_results = tv_arena_calloc(arena, r.aggs.n, sizeof *tcs[i].agg_results);
            if (!tcs[i].agg_results) st = tv_error_oom(err);
            if (!st && tcs[i].prof && tcs[i].global_aggs) {
                tcs[i].prof->nsearches = 2;
                st = run_global_profiled(&targets[i], tcs[i].global_aggs, &tcs[i].prof->searches[1], arena, err);
            } else if (!st) {
                st = run_global(&targets[i], tcs[i].global_aggs, arena);
            }
            if (!st && tcs[i].aggs) st = tv_agg_shard_finish(tcs[i].aggs, tcs[i].agg_results);
            if (!st && tcs[i].global_aggs) st = tv_agg_shard_finish(tcs[i].global_aggs, tcs[i].agg_results);
            if (st) { collapse_fini(&c); return st; }
            if (tcs[i].prof) {
                tcs[i].prof->aggs = tcs[i].aggs;
                tcs[i].prof->global_aggs = tcs[i].global_aggs;
            }
        }
        if (ss && ss->query_ns) ss->query_ns[i] = (int64_t)(tv_mono_ns() - tq);
    }
    if (ss) ss->done = true;
    if (count_only) {
        tv_jw_obj_begin(out);
        tv_jw_keyz(out, "count");
        tv_jw_uint(out, c.total);
        if (r.terminate_after > 0) { /* RestCountAction */
            tv_jw_keyz(out, "terminated_early");
            tv_jw_bool(out, c.terminated);
        }
        write_shards(out, targets, ntargets);
        tv_jw_obj_end(out);
        return TROVE_OK;
    }
    if (c.collapsing) collapse_finish(&c);
    collapse_fini(&c); /* the page's hits were copied into the heap array */
    sort_hits(&c);
    if ((size_t)from < c.n && r.ndv && (st = fetch_checks(&r, &c, (size_t)from, targets, err))) return st;
    uint64_t took = (tv_mono_ns() - t0) / 1000000;
    tv_jw_obj_begin(out);
    tv_jw_keyz(out, "took");
    tv_jw_uint(out, took);
    tv_jw_keyz(out, "timed_out");
    tv_jw_bool(out, c.timed_out);
    if (r.terminate_after > 0) { /* QueryPhase sets it whenever terminate_after is given */
        tv_jw_keyz(out, "terminated_early");
        tv_jw_bool(out, c.terminated);
    }
    write_shards(out, targets, ntargets);
    tv_jw_keyz(out, "hits");
    tv_jw_obj_begin(out);
    if (r.track_false && params && params->rest_total_hits_as_int) {
        /* SearchHits: a disabled total prints as -1 in the int form */
        tv_jw_keyz(out, "total");
        tv_jw_int(out, -1);
    } else if (!r.track_false) {
        tv_jw_keyz(out, "total");
        uint64_t total = c.total;
        bool gte = false;
        if (r.track_limit != INT64_MAX && total > (uint64_t)r.track_limit) { total = (uint64_t)r.track_limit; gte = true; }
        if (params && params->rest_total_hits_as_int) tv_jw_uint(out, total);
        else {
            tv_jw_obj_begin(out);
            tv_jw_keyz(out, "value");
            tv_jw_uint(out, total);
            tv_jw_keyz(out, "relation");
            tv_jw_strz(out, gte ? "gte" : "eq");
            tv_jw_obj_end(out);
        }
    }
    tv_jw_keyz(out, "max_score");
    bool max_ok = c.need_scores && c.total > 0 && size > 0 && isfinite(c.max_score) &&
                  (sort_by_score_first ? (r.nsorts == 0 || r.sorts[0].desc) : r.track_scores);
    if (max_ok) tv_jw_float(out, c.max_score);
    else tv_jw_null(out);
    tv_jw_keyz(out, "hits");
    tv_jw_arr_begin(out);
    bool scores_shown = any_score_sort || r.track_scores;
    uint64_t tf = tv_mono_ns();
    if ((st = write_page(&r, &c, targets, ntargets, tcs, from, scores_shown, params, arena, out, err))) return st;
    if (ss) {
        ss->fetch_ns = (int64_t)(tv_mono_ns() - tf);
        for (size_t i = (size_t)from; ss->fetched && i < c.n; i++) ss->fetched[c.heap[i].target] = true;
    }
    tv_jw_arr_end(out);
    tv_jw_obj_end(out);
    if (r.aggs.n) {
        agg_res ***res = tv_arena_alloc(arena, (ntargets + 1) * sizeof *res);
        if (!res) return tv_error_oom(err);
        /* top_hits fetch the query's nested inner hits too */
        tv_nested_q ***ihd = tv_arena_alloc(arena, (ntargets + 1) * sizeof *ihd);
        uint32_t *ihn = tv_arena_alloc(arena, (ntargets + 1) * sizeof *ihn);
        if (!ihd || !ihn) return tv_error_oom(err);
        for (size_t i = 0; i < ntargets; i++) {
            ihd[i] = tcs[i].nih;
            ihn[i] = tcs[i].nnih;
        }
        actx->ih_targets = targets;
        actx->ih_defs = ihd;
        actx->ih_n = ihn;
        actx->ih_ntargets = ntargets;
        for (size_t i = 0; i < ntargets; i++) res[i] = tcs[i].agg_results;
        if ((st = tv_aggs_reduce_write(actx, &r.aggs, res, ntargets, params && params->typed_keys, out))) return st;
    }
    /* suggest.c: after hits and aggregations (SearchResponseSections) */
    uint64_t tsg = tv_mono_ns();
    if (r.suggest && !(params && params->skip_aggs) &&
        (st = tv_suggest_write(r.suggest, targets, ntargets, params && params->typed_keys, arena, out, err)))
        return st;
    if (ss && r.suggest) ss->suggest_ns = (int64_t)(tv_mono_ns() - tsg);
    /* profile.c: last (SearchResponse writes it after suggest) */
    if (profs) tv_search_profile_write(out, profs, ntargets, params ? params->node_id : NULL, arena);
    tv_jw_obj_end(out);
    return TROVE_OK;
}

/* tv_search_run and tv_search_count: run() into a scratch buffer, so that
 * errors leave `out` untouched, with the request's scripts held until the
 * run ends (their first failure copied to params->script_failure). */
static tv_status run_buffered(const tv_search_target *targets, size_t ntargets, const tv_json *body,
                              const tv_search_params *params, tv_arena *arena, tv_jw *out, tv_error *err,
                              bool count, int64_t max_buckets) {
    tv_buf buf;
    tv_buf_init(&buf);
    tv_jw w;
    tv_jw_init(&w, &buf, out->pretty);
    tv_agg_ctx actx;
    tv_agg_ctx_init(&actx, arena, err, max_buckets);
    tv_search_params p2;
    if (params) p2 = *params;
    else tv_search_params_init(&p2);
    tv_qscripts scripts;
    tv_qscripts_init(&scripts, params);
    p2.scripts = &scripts;
    tv_status st = run(targets, ntargets, body, &p2, arena, &w, err, count, &actx);
    if (params && params->script_failure && scripts.fail.set) *params->script_failure = scripts.fail;
    tv_qscripts_fini(&scripts);
    tv_agg_ctx_fini(&actx);
    if (st == TROVE_OK) {
        if (buf.oom) st = tv_error_oom(err);
        else tv_jw_raw(out, buf.data, buf.len);
    }
    tv_buf_fini(&buf);
    return st;
}

tv_status tv_search_run(const tv_search_target *targets, size_t ntargets, const tv_json *body,
                        const tv_search_params *params, tv_arena *arena, tv_jw *out,
                        tv_error *err) {
    return run_buffered(targets, ntargets, body, params, arena, out, err, false,
                        params && params->max_buckets > 0 ? params->max_buckets : 65535);
}

tv_status tv_search_count(const tv_search_target *targets, size_t ntargets, const tv_json *body,
                          const tv_search_params *params, tv_arena *arena, tv_jw *out,
                          tv_error *err) {
    return run_buffered(targets, ntargets, body, params, arena, out, err, true, 65535);
}
