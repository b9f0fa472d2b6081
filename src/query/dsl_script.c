/*
 * dsl_script.c — the script query (ScriptQueryBuilder: a filter whose
 * Painless FilterScript says per document whether it matches, scoring the
 * constant boost) and the script_score query (ScriptScoreQueryBuilder: a
 * sub-query whose score is replaced by a ScoreScript's value, with _score
 * the sub-query's score, times boost; min_score drops documents below it).
 *
 * Both are TV_Q_EXT nodes. plan() runs the script over the segment's
 * candidate documents (every live doc for the script query, the
 * sub-query's matches for script_score) and keeps the (doc, score) pairs
 * in the request arena; the iterator replays them. Materialising costs 8
 * bytes per match but lets the errors a script raises (a runtime error, a
 * negative score: "script_score script returned an invalid score [s] for
 * doc [d]. Must be a non-negative score!") fail the shard through plan's
 * status, as OpenSearch's scorer throws. Without scores and min_score,
 * script_score is its sub-query, as ScriptScoreQuery.createWeight does.
 * Rejected: a lazy two-phase iterator (its errors could not reach the
 * response without a channel from the collector). The replaying iterator
 * (tv_iter_replay) lives here and serves function_score's plan too.
 *
 * Both are expensive queries: search.allow_expensive_queries false refuses
 * them with OpenSearch's message.
 */
#include <math.h>
#include <stdio.h>

#include "query/parse.h"

typedef TV_VEC(uint32_t) u32v;
typedef TV_VEC(float) f32v;

typedef struct sq_state {
    tv_qscript *qs;
    tv_query *sub;       /* script_score: the sub-query */
    bool scored;         /* script_score */
    bool has_min;
    float min_score;
    float boost;         /* set by prepare */
    tv_error *err;
    const char *index;
} sq_state;

/* The replay of a plan's materialised (doc, score) pairs (tv_iter_replay). */
typedef struct replay_it {
    tv_iter it;
    const uint32_t *docs;
    const float *scores;
    uint32_t n, i;
} replay_it;

static uint32_t replay_next(tv_iter *it) {
    replay_it *f = (replay_it *)it;
    f->i = it->doc == TV_ITER_UNSET ? 0 : f->i + 1;
    if (f->i >= f->n) {
        f->i = f->n;
        return it->doc = TV_NO_MORE_DOCS;
    }
    return it->doc = f->docs[f->i];
}

static uint32_t replay_advance(tv_iter *it, uint32_t target) {
    replay_it *f = (replay_it *)it;
    uint32_t lo = it->doc == TV_ITER_UNSET ? 0 : f->i, hi = f->n;
    while (lo < hi) { /* first docs[k] >= target */
        uint32_t mid = lo + (hi - lo) / 2;
        if (f->docs[mid] < target) lo = mid + 1;
        else hi = mid;
    }
    f->i = lo;
    return it->doc = lo < f->n ? f->docs[lo] : TV_NO_MORE_DOCS;
}

static float replay_score(tv_iter *it) {
    replay_it *f = (replay_it *)it;
    return f->i < f->n ? f->scores[f->i] : 0.0f;
}

static bool replay_count(tv_iter *it, const tv_count_ctx *cx, uint64_t *out) {
    (void)cx;
    *out = ((replay_it *)it)->n;
    return true;
}

static const tv_iter_vt replay_vt = {replay_next, replay_advance, replay_score, NULL, NULL, NULL, replay_count, NULL};

tv_status tv_iter_replay(const uint32_t *docs, const float *scores, uint32_t n, float max_score, tv_arena *a,
                         tv_iter **out) {
    *out = NULL;
    if (!n) return TROVE_OK;
    replay_it *it = tv_arena_alloc(a, sizeof *it);
    uint32_t *dd = tv_arena_alloc(a, n * sizeof *dd);
    float *ss = tv_arena_alloc(a, n * sizeof *ss);
    if (!it || !dd || !ss) return TROVE_ENOMEM;
    memcpy(dd, docs, n * sizeof *dd);
    memcpy(ss, scores, n * sizeof *ss);
    it->it.vt = &replay_vt;
    it->it.doc = TV_ITER_UNSET;
    it->it.cost = n;
    it->it.max_score = max_score;
    it->docs = dd;
    it->scores = ss;
    it->n = n;
    it->i = 0;
    *out = &it->it;
    return TROVE_OK;
}

static tv_status sq_prepare(tv_query *q, const tv_snapshot *snap, float boost, tv_arena *arena) {
    sq_state *s = q->u.ext.state;
    s->boost = boost;
    if (s->sub) return tv_query_prepare(s->sub, snap, arena);
    return TROVE_OK;
}

/* A FilterScript's boolean (def to boolean: anything else is a
 * ClassCastException). */
static tv_status filter_result(const sq_state *s, const tv_sv *v, bool *out) {
    if (v->type == TV_SV_BOOL) {
        *out = v->v.b;
        return TROVE_OK;
    }
    double d;
    const char *what = "java.lang.Object";
    if (tv_qscript_number(v, &d, &what)) what = v->type == TV_SV_INT ? "java.lang.Integer" : v->type == TV_SV_LONG ? "java.lang.Long" : "java.lang.Double";
    return tv_qscript_cast_fail(s->qs, what, "boolean", s->err, s->index);
}

static tv_status sq_plan(tv_query *q, const tv_segview *sv, struct tv_plan_ctx *ctx, tv_iter **out) {
    sq_state *s = q->u.ext.state;
    *out = NULL;
    if (s->scored && !ctx->scores && !s->has_min) return tv_plan(s->sub, sv, ctx, out);
    tv_arena *a = ctx->arena;
    tv_iter *sub = NULL;
    tv_status st = TROVE_OK;
    if (s->sub) {
        tv_plan_ctx sc = {a, ctx->snap, true, false};
        if ((st = tv_plan(s->sub, sv, &sc, &sub)) || !sub) return st;
    }
    tv_qscript_exec x;
    tv_qscript_exec_init(&x, s->qs, ctx->snap ? ctx->snap->mapping : NULL, s->index, s->err);
    x.doc_base = sv->doc_base;
    u32v docs = {0};
    f32v scores = {0};
    float mx = 0;
    uint32_t doc = sub ? tv_iter_next(sub) : 0;
    for (; doc != TV_NO_MORE_DOCS && (sub || doc < sv->max_doc); doc = sub ? tv_iter_next(sub) : doc + 1) {
        if (!tv_segview_live(sv, doc)) continue;
        float sc = s->boost;
        tv_sv r;
        if (s->scored) {
            float subs = tv_iter_score(sub);
            if ((st = tv_qscript_run(&x, sv->seg, doc, subs, NULL, &r))) break;
            double dv;
            const char *what = NULL;
            if (!tv_qscript_number(&r, &dv, &what)) {
                st = tv_qscript_cast_fail(s->qs, what, "double", s->err, s->index);
                break;
            }
            float f = (float)dv;
            if (f < 0.0f || isnan(f)) {
                char num[40];
                tv_fmt_float(f, num);
                st = tv_error_set(s->err, TROVE_EARG,
                                  "script_score script returned an invalid score [%s] for doc [%u]. Must be a non-negative score!",
                                  num, doc);
                if (s->err && s->index) snprintf(s->err->index, sizeof s->err->index, "%s", s->index);
                break;
            }
            sc = f * s->boost;
            if (s->has_min && sc < s->min_score) continue;
        } else {
            if ((st = tv_qscript_run(&x, sv->seg, doc, 0.0, NULL, &r))) break;
            bool keep = false;
            if ((st = filter_result(s, &r, &keep))) break;
            if (!keep) continue;
        }
        if (tv_vec_push(&docs, doc) || tv_vec_push(&scores, sc)) {
            st = tv_error_oom(s->err);
            break;
        }
        if (sc > mx) mx = sc;
    }
    tv_qscript_exec_fini(&x);
    if (!st) st = tv_iter_replay(docs.items, scores.items, (uint32_t)docs.len, mx, a, out);
    tv_vec_fini(&docs);
    tv_vec_fini(&scores);
    return st;
}

static tv_status finish(tv_dsl *d, sq_state *s, float boost, tv_query **out) {
    s->err = d->err;
    s->index = d->index;
    tv_query *q = tv_q_new(d, TV_Q_EXT);
    if (!q) return tv_error_oom(d->err);
    q->u.ext.prepare = sq_prepare;
    q->u.ext.plan = sq_plan;
    q->u.ext.state = s;
    q->boost *= boost;
    *out = q;
    return TROVE_OK;
}

/* ScriptQueryBuilder.fromXContent. */
tv_status tv_dsl_parse_script(tv_dsl *d, const tv_json *body, tv_query **out) {
    const tv_json *script = NULL;
    float boost = 1.0f;
    tv_status st;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        if (tv_streq(m->key, m->key_len, "script")) {
            script = v;
        } else if (v->type == TV_JSON_OBJECT || v->type == TV_JSON_ARRAY) {
            return tv_dsl_error(d, TROVE_EPARSE, v->off, "[script] query does not support [%s]", m->key);
        } else if (tv_streq(m->key, m->key_len, "boost")) {
            if ((st = tv_dsl_java_float(d, v, &boost))) return st;
        } else if (tv_streq(m->key, m->key_len, "_name")) {
            /* dsl.c keeps named queries */
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, v->off, "[script] query does not support [%s]", m->key);
        }
    }
    if (!script) return tv_dsl_error(d, TROVE_EPARSE, body->off, "script must be provided with a [script] query");
    if ((st = tv_dsl_expensive(d, "[script] queries", ""))) return st;
    sq_state *s = tv_arena_calloc(d->arena, 1, sizeof *s);
    if (!s) return tv_error_oom(d->err);
    if ((st = tv_dsl_script(d, script, TV_SCRIPT_G_DOC, &s->qs))) return st;
    return finish(d, s, boost, out);
}

/* ScriptScoreQueryBuilder.fromXContent. */
tv_status tv_dsl_parse_script_score(tv_dsl *d, const tv_json *body, tv_query **out) {
    const tv_json *script = NULL, *query = NULL;
    float boost = 1.0f;
    sq_state *s = tv_arena_calloc(d->arena, 1, sizeof *s);
    if (!s) return tv_error_oom(d->err);
    tv_status st;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        if (tv_streq(m->key, m->key_len, "script")) {
            script = v;
        } else if (tv_streq(m->key, m->key_len, "query")) {
            if (v->type != TV_JSON_OBJECT)
                return tv_dsl_error(d, TROVE_EXCONTENT, v->off, "[script_score] query doesn't support values of type: %s",
                                    tv_dsl_token_name(v));
            query = v;
        } else if (tv_streq(m->key, m->key_len, "boost")) {
            if ((st = tv_dsl_java_float(d, v, &boost))) return st;
        } else if (tv_streq(m->key, m->key_len, "min_score")) {
            if ((st = tv_dsl_java_float(d, v, &s->min_score))) return st;
            s->has_min = true;
        } else if (tv_streq(m->key, m->key_len, "_name")) {
        } else {
            return tv_dsl_error(d, TROVE_EXCONTENT, m->key_off, "[script_score] unknown field [%s]", m->key);
        }
    }
    if (!query) return tv_dsl_error(d, TROVE_EXCONTENT, body->off, "Required [query]");
    if (!script) return tv_dsl_error(d, TROVE_EXCONTENT, body->off, "Required [script]");
    if ((st = tv_dsl_parse_query(d, query, &s->sub))) return st;
    if ((st = tv_query_rewrite(&s->sub, d->arena))) return tv_error_set(d->err, st, "rewrite failed");
    if ((st = tv_dsl_expensive(d, "[script score] queries", ""))) return st;
    if ((st = tv_dsl_script(d, script, TV_SCRIPT_G_DOC | TV_SCRIPT_G_SCORE | TV_SCRIPT_G_SCOREFN, &s->qs))) return st;
    s->scored = true;
    return finish(d, s, boost, out);
}
