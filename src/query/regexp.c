/*
 * regexp.c — the term-pattern queries of the DSL: `wildcard`, `regexp` and
 * `fuzzy`, on top of the automata of automaton.c.
 *
 * Parsing follows OpenSearch's builders (WildcardQueryBuilder,
 * RegexpQueryBuilder, FuzzyQueryBuilder): one field per query, either the
 * short form {"field": "value"} or an object of options, the same error
 * types and texts ("[wildcard] query does not support [x]", "[regexp]
 * query doesn't support multiple fields, found [a] and [b]", "value cannot
 * be null", ...). Building follows StringFieldType: the pattern is used
 * as is (text fields are not analyzed; keyword normalizers apply to the
 * literal parts of a wildcard and to regexp/fuzzy values), case_insensitive
 * builds a case-folding automaton, and fields that are neither text nor
 * keyword give query_shard_exception "Can only use ... queries on keyword
 * and text fields". Pattern errors (bad regexp syntax, too complex to
 * determinize) surface as OpenSearch reports them from the shard:
 * query_shard_exception "failed to create query: <message>" caused by the
 * Lucene exception.
 *
 * wildcard and regexp become TV_Q_MULTI_TERM nodes (constant-score union of
 * the accepted terms, OpenSearch's default CONSTANT_SCORE_BLENDED_REWRITE)
 * whose matcher seeks the automaton's literal prefix.
 *
 * fuzzy is scored: Lucene's FuzzyQuery rewrites by default with
 * TopTermsBlendedFreqScoringRewrite(max_expansions): over the whole
 * snapshot it keeps the max_expansions accepted terms with the highest
 * boost (1 - edits / min(term length, query length) in code points; ties
 * by smaller term bytes), then scores them as a BlendedTermQuery: a
 * disjunction of term queries, each boosted by its similarity, whose idf
 * uses the largest document frequency among the kept terms. That is a
 * TV_Q_EXT node: prepare() enumerates and ranks terms and builds a BOOL of
 * SHOULD TERM nodes with their BM25 scorers already filled; plan() plans
 * that BOOL per segment. A rewrite of constant_score* turns fuzzy into a
 * constant-score MULTI_TERM instead.
 *
 * Alternative rejected: rewriting fuzzy into plain TERM nodes at parse
 * time. The parser has no snapshot (terms differ per target) and Lucene's
 * blended document frequency needs every kept term's statistics first.
 */
#include <stdio.h>
#include <stdlib.h>

#include "query/automaton.h"
#include "query/parse.h"
#include "text/text.h"

#define MAX_REGEX_LENGTH 1000 /* index.max_regex_length */

static tv_status oom(tv_dsl *d) {
    if (d->err) tv_error_oom(d->err);
    return TROVE_ENOMEM;
}

/* A pattern error from automaton.c (already in d->err) as the shard
 * reports it: query_shard_exception wrapping the Lucene exception. */
static tv_status shard_failure(tv_dsl *d, tv_status st, uint32_t off) {
    if (st == TROVE_ENOMEM || !d->err) return st;
    char msg[sizeof d->err->reason];
    snprintf(msg, sizeof msg, "%s", d->err->reason);
    tv_dsl_error(d, TROVE_EQUERYSHARD, off, "failed to create query: %s", msg);
    tv_error_cause(d->err, st, "%s", msg);
    return TROVE_EQUERYSHARD;
}

typedef struct pat_opts {
    const tv_json_member *fm; /* the field member */
    const tv_json *value;
    float boost;
    bool ci;
    int flags;
    int64_t max_states;
    const tv_json *fuzziness;
    int64_t prefix_length;
    int64_t max_expansions;
    bool transpositions;
    const tv_json *rewrite;
} pat_opts;

enum { K_WILDCARD, K_REGEXP, K_FUZZY };

static tv_status parse_opts(tv_dsl *d, const char *qname, int kind, const tv_json *body,
                            pat_opts *o) {
    memset(o, 0, sizeof *o);
    o->boost = 1.0f;
    o->flags = TV_RE_ALL;
    o->max_states = TV_AUTOMATON_DEFAULT_LIMIT;
    o->max_expansions = 50;
    o->transpositions = true;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (o->fm)
            return tv_dsl_error(d, TROVE_EPARSE, m->val.off,
                                "[%s] query doesn't support multiple fields, found [%s] and [%s]",
                                qname, o->fm->key, m->key);
        o->fm = m;
        if (m->val.type != TV_JSON_OBJECT) {
            o->value = &m->val;
            continue;
        }
        for (uint32_t j = 0; j < m->val.len; j++) {
            const tv_json_member *x = &m->val.v.members[j];
            const char *k = x->key;
            size_t kl = x->key_len;
            const tv_json *v = &x->val;
            tv_status st = TROVE_OK;
            if (tv_streq(k, kl, "value") || (kind == K_WILDCARD && tv_streq(k, kl, "wildcard"))) {
                o->value = v;
            } else if (tv_streq(k, kl, "boost")) {
                st = tv_dsl_float(d, qname, "boost", v, &o->boost);
            } else if (tv_streq(k, kl, "_name")) {
            } else if (tv_streq(k, kl, "rewrite")) {
                o->rewrite = v;
            } else if (kind != K_FUZZY && tv_streq(k, kl, "case_insensitive")) {
                st = tv_dsl_bool(d, qname, "case_insensitive", v, &o->ci);
            } else if (kind == K_REGEXP && tv_streq(k, kl, "flags")) {
                const char *s;
                size_t n;
                if (!tv_dsl_scalar_text(v, &s, &n))
                    return tv_dsl_error(d, TROVE_EPARSE, v->off, "[regexp] failed to parse field [flags]");
                tv_error e = TV_ERROR_INIT;
                if (!tv_regexp_parse_flags(s, n, &o->flags, &e))
                    return tv_dsl_error(d, TROVE_EARG, v->off, "%s", e.reason);
            } else if (kind == K_REGEXP && tv_streq(k, kl, "flags_value")) {
                int64_t fv;
                st = tv_dsl_int(d, qname, "flags_value", v, &fv);
                if (!st) o->flags = (int)(fv & TV_RE_ALL);
            } else if (kind == K_REGEXP && tv_streq(k, kl, "max_determinized_states")) {
                st = tv_dsl_int(d, qname, "max_determinized_states", v, &o->max_states);
            } else if (kind == K_FUZZY && tv_streq(k, kl, "fuzziness")) {
                o->fuzziness = v;
            } else if (kind == K_FUZZY && tv_streq(k, kl, "prefix_length")) {
                st = tv_dsl_int(d, qname, "prefix_length", v, &o->prefix_length);
            } else if (kind == K_FUZZY && tv_streq(k, kl, "max_expansions")) {
                st = tv_dsl_int(d, qname, "max_expansions", v, &o->max_expansions);
            } else if (kind == K_FUZZY && tv_streq(k, kl, "transpositions")) {
                st = tv_dsl_bool(d, qname, "transpositions", v, &o->transpositions);
            } else {
                st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] query does not support [%s]", qname, k);
            }
            if (st) return st;
        }
    }
    if (!o->fm || o->fm->key_len == 0)
        return tv_dsl_error(d, TROVE_EARG, body->off, "field name is null or empty");
    if (!o->value || o->value->type == TV_JSON_NULL)
        return tv_dsl_error(d, TROVE_EARG, body->off, "value cannot be null");
    return TROVE_OK;
}

/* The field, or NULL with *none set for unmapped fields; errors for
 * fields that cannot answer term patterns. */
static tv_status pattern_field(tv_dsl *d, const char *qname, const pat_opts *o,
                               const tv_field **out) {
    const tv_field *f = tv_dsl_field(d, o->fm->key, o->fm->key_len);
    *out = NULL;
    if (!f || f->type == TV_FT_OBJECT) return TROVE_OK;
    if (!tv_field_type_is_text(f->type) && f->type != TV_FT_KEYWORD)
        return tv_dsl_error(d, TROVE_EQUERYSHARD, o->value->off,
                            "Can only use %s queries on keyword and text fields - not on [%s] which "
                            "is of type [%s]",
                            qname, f->path, tv_field_type_name(f->type));
    char what[32];
    snprintf(what, sizeof what, "[%s] queries", qname);
    tv_status st = tv_dsl_expensive(d, what, "");
    if (st) return st;
    if (!f->index && !f->doc_values)
        return tv_dsl_error(d, TROVE_EARG, o->value->off,
                            "Cannot search on field [%s] since it is not indexed.", f->path);
    *out = f;
    return TROVE_OK;
}

/* Keyword normalizer over a value (a single token), or the value itself. */
static tv_status normalize(tv_dsl *d, const tv_field *f, const char *s, size_t n, const char **out,
                           size_t *out_len) {
    *out = s;
    *out_len = n;
    if (f->type != TV_FT_KEYWORD || !f->normalizer || n == 0) return TROVE_OK;
    tv_tokens toks;
    if (tv_analyze(f->normalizer, d->arena, s, n, 0, &toks) != TROVE_OK) return oom(d);
    tv_buf b;
    tv_buf_init(&b);
    for (size_t i = 0; i < toks.len; i++) tv_buf_append(&b, toks.items[i].term, toks.items[i].term_len);
    char *r = tv_arena_memdup(d->arena, b.data ? b.data : "", b.len);
    size_t rl = b.len;
    bool bad = b.oom;
    tv_buf_fini(&b);
    if (bad || !r) return oom(d);
    *out = r;
    *out_len = rl;
    return TROVE_OK;
}

static tv_query *multi_node(tv_dsl *d, const tv_field *f, const tv_automaton *a) {
    tv_query *q = tv_q_new(d, TV_Q_MULTI_TERM);
    if (!q) return NULL;
    q->field = f;
    q->field_id = f->id;
    size_t pl;
    const char *p = tv_automaton_prefix(a, &pl);
    q->u.multi.m.accept = tv_automaton_accept;
    q->u.multi.m.state = a;
    q->u.multi.m.automaton = a;
    q->u.multi.m.prefix = pl ? p : NULL;
    q->u.multi.m.prefix_len = (uint32_t)pl;
    return q;
}

static tv_query *none_node(tv_dsl *d) { return tv_q_new(d, TV_Q_MATCH_NONE); }

/* -------------------------------------------------------------- wildcard */

tv_status tv_dsl_parse_wildcard(tv_dsl *d, const tv_json *body, tv_query **out) {
    pat_opts o;
    tv_status st = parse_opts(d, "wildcard", K_WILDCARD, body, &o);
    if (st) return st;
    const char *s;
    size_t n;
    if (!tv_dsl_scalar_text(o.value, &s, &n))
        return tv_dsl_error(d, TROVE_EPARSE, o.value->off, "[wildcard] failed to parse field [value]");
    const tv_field *f;
    if ((st = pattern_field(d, "wildcard", &o, &f))) return st;
    tv_query *q;
    if (!f) {
        q = none_node(d);
    } else {
        /* keyword normalizers apply to the literal runs between wildcards */
        if (f->type == TV_FT_KEYWORD && f->normalizer) {
            tv_buf b;
            tv_buf_init(&b);
            size_t i = 0;
            while (i < n) {
                size_t j = i;
                while (j < n && s[j] != '*' && s[j] != '?' && s[j] != '\\') j++;
                if (j > i) {
                    const char *ns;
                    size_t nl;
                    if ((st = normalize(d, f, s + i, j - i, &ns, &nl))) {
                        tv_buf_fini(&b);
                        return st;
                    }
                    tv_buf_append(&b, ns, nl);
                }
                if (j < n) {
                    size_t k = (s[j] == '\\' && j + 1 < n) ? 2 : 1;
                    tv_buf_append(&b, s + j, k);
                    j += k;
                }
                i = j;
            }
            char *r = tv_arena_memdup(d->arena, b.data ? b.data : "", b.len);
            n = b.len;
            bool bad = b.oom;
            tv_buf_fini(&b);
            if (bad || !r) return oom(d);
            s = r;
        }
        tv_automaton *a;
        st = tv_wildcard_compile(s, n, o.ci, TV_AUTOMATON_DEFAULT_LIMIT, d->arena, &a, d->err);
        if (st) return shard_failure(d, st, o.value->off);
        q = multi_node(d, f, a);
    }
    if (!q) return oom(d);
    q->boost *= o.boost;
    *out = q;
    return TROVE_OK;
}

/* ---------------------------------------------------------------- regexp */

tv_status tv_dsl_parse_regexp(tv_dsl *d, const tv_json *body, tv_query **out) {
    pat_opts o;
    tv_status st = parse_opts(d, "regexp", K_REGEXP, body, &o);
    if (st) return st;
    const char *s;
    size_t n;
    if (!tv_dsl_scalar_text(o.value, &s, &n))
        return tv_dsl_error(d, TROVE_EPARSE, o.value->off, "[regexp] failed to parse field [value]");
    const tv_field *f;
    if ((st = pattern_field(d, "regexp", &o, &f))) return st;
    tv_query *q;
    if (!f) {
        q = none_node(d);
    } else {
        size_t u16 = tv_utf16_len(s, n);
        if (u16 > MAX_REGEX_LENGTH) {
            tv_dsl_error(d, TROVE_EARG, o.value->off,
                         "The length of regex [%zu] used in the Regexp Query request has exceeded "
                         "the allowed maximum of [%d]. This maximum can be set by changing the "
                         "[index.max_regex_length] index level setting.",
                         u16, MAX_REGEX_LENGTH);
            return shard_failure(d, TROVE_EARG, o.value->off);
        }
        if ((st = normalize(d, f, s, n, &s, &n))) return st;
        int flags = o.flags | (o.ci ? TV_RE_CASE_INSENSITIVE : 0);
        int limit = o.max_states > INT32_MAX ? INT32_MAX : (int)o.max_states;
        if (limit <= 0) limit = 1;
        tv_automaton *a;
        st = tv_regexp_compile(s, n, flags, limit, d->arena, &a, d->err);
        if (st) return shard_failure(d, st, o.value->off);
        q = multi_node(d, f, a);
    }
    if (!q) return oom(d);
    q->boost *= o.boost;
    *out = q;
    return TROVE_OK;
}

/* ----------------------------------------------------------------- fuzzy */

typedef struct fuzzy_state {
    const tv_automaton *a;
    const char *text; /* the query term */
    size_t text_len;
    size_t text_cps;  /* its code points */
    int max_edits;
    bool transpositions;
    uint32_t max_expansions;
    tv_query *rewritten; /* BOOL of SHOULD TERMs, built by prepare */
} fuzzy_state;

typedef struct cand {
    const char *term;
    uint32_t len;
    float boost;
    uint64_t df;
} cand;

static int cmp_cand(const void *x, const void *y) {
    const cand *a = x, *b = y;
    if (a->boost != b->boost) return a->boost > b->boost ? -1 : 1;
    return tv_memcmp2(a->term, a->len, b->term, b->len);
}

static float fuzzy_boost(const fuzzy_state *fs, const char *t, size_t tl) {
    int ed = tv_edit_distance(fs->text, fs->text_len, t, tl, fs->max_edits, fs->transpositions);
    if (ed == 0) return 1.0f;
    size_t cps = tv_cp_count(t, tl);
    size_t mn = cps < fs->text_cps ? cps : fs->text_cps;
    if (mn == 0) return 0.0f;
    return 1.0f - (float)ed / (float)mn;
}

static tv_status fuzzy_prepare(tv_query *q, const tv_snapshot *snap, float boost, tv_arena *arena) {
    fuzzy_state *fs = q->u.ext.state;
    tv_map seen;
    tv_map_init(&seen);
    TV_VEC(cand) cands = {0};
    tv_status st = TROVE_OK;
    uint64_t doc_count = 0, sum_ttf = 0;
    size_t pl;
    const char *prefix = tv_automaton_prefix(fs->a, &pl);
    for (uint32_t s = 0; s < snap->nsegs; s++) {
        const tv_segment *seg = snap->segs[s].seg;
        tv_field_stats fst;
        if (tv_segment_field_stats(seg, q->field_id, &fst)) {
            doc_count += fst.doc_count;
            sum_ttf += fst.sum_total_term_freq;
        }
        tv_terms_iter *ti = tv_terms_iter_new(seg, q->field_id, arena);
        if (!ti) continue;
        if (pl) tv_terms_iter_seek(ti, prefix, pl);
        const char *t;
        size_t tl;
        tv_term_state ts;
        while (tv_terms_iter_next(ti, &t, &tl, &ts)) {
            if (pl && (tl < pl || memcmp(t, prefix, pl) != 0)) break;
            if (!tv_automaton_run(fs->a, t, tl)) continue;
            void *v = tv_map_get(&seen, t, tl);
            if (v) {
                cands.items[(uintptr_t)v - 1].df += ts.doc_freq;
                continue;
            }
            char *copy = tv_arena_memdup(arena, t, tl);
            cand c = {copy, (uint32_t)tl, fuzzy_boost(fs, t, tl), ts.doc_freq};
            if ((!copy && tl) || tv_vec_push(&cands, c) ||
                tv_map_put(&seen, t, tl, (void *)(uintptr_t)cands.len, NULL)) {
                st = TROVE_ENOMEM;
                goto out;
            }
        }
    }
    if (cands.len > 1) qsort(cands.items, cands.len, sizeof(cand), cmp_cand);
    size_t keep = cands.len < fs->max_expansions ? cands.len : fs->max_expansions;
    uint64_t max_df = 0;
    for (size_t i = 0; i < keep; i++)
        if (cands.items[i].df > max_df) max_df = cands.items[i].df;
    tv_query *b = tv_arena_calloc(arena, 1, sizeof *b);
    tv_query **should = tv_arena_calloc(arena, keep ? keep : 1, sizeof *should);
    if (!b || !should) {
        st = TROVE_ENOMEM;
        goto out;
    }
    b->kind = TV_Q_BOOL;
    b->boost = 1.0f;
    b->score_boost = boost;
    float idf = tv_bm25_idf(max_df, doc_count);
    for (size_t i = 0; i < keep; i++) {
        tv_query *t = tv_arena_calloc(arena, 1, sizeof *t);
        tv_bm25 *sim = tv_arena_alloc(arena, sizeof *sim);
        if (!t || !sim) {
            st = TROVE_ENOMEM;
            goto out;
        }
        t->kind = TV_Q_TERM;
        t->boost = cands.items[i].boost;
        t->score_boost = boost * cands.items[i].boost;
        t->field = q->field;
        t->field_id = q->field_id;
        t->u.term.term = cands.items[i].term;
        t->u.term.len = cands.items[i].len;
        tv_bm25_init(sim, boost * cands.items[i].boost, idf, sum_ttf, doc_count);
        t->u.term.sim = sim;
        should[i] = t;
    }
    b->u.boolq.should = should;
    b->u.boolq.nshould = (uint32_t)keep;
    fs->rewritten = b;
out:
    tv_map_fini(&seen);
    tv_vec_fini(&cands);
    return st;
}

static tv_status fuzzy_plan(tv_query *q, const tv_segview *sv, struct tv_plan_ctx *ctx,
                            tv_iter **out) {
    fuzzy_state *fs = q->u.ext.state;
    *out = NULL;
    if (!fs->rewritten || fs->rewritten->u.boolq.nshould == 0) return TROVE_OK;
    return tv_plan(fs->rewritten, sv, ctx, out);
}

/* A fuzzy query of one term on a text or keyword field, the term used as
 * given (already normalized or analyzed): Lucene's FuzzyQuery with its
 * default scoring rewrite, or a constant-score union when constant. */
tv_status tv_q_fuzzy_build(tv_dsl *d, const tv_field *f, const char *s, size_t n, int edits,
                           int64_t prefix_length, uint32_t max_expansions, bool transpositions,
                           bool constant, tv_query **out) {
    tv_query *q;
    tv_automaton *a;
    tv_status est = tv_dsl_expensive(d, "[fuzzy] queries", "");
    if (est) return est;
    int pl = prefix_length > INT32_MAX ? INT32_MAX : (int)prefix_length;
    /* Lucene: a prefix covering the whole term (counted in UTF-16 units)
     * leaves only the exact term */
    if ((size_t)pl >= tv_utf16_len(s, n)) edits = 0;
    tv_status st = tv_levenshtein_compile(s, n, edits, pl, transpositions, d->arena, &a, d->err);
    if (st) return st;
    if (constant) {
        q = multi_node(d, f, a);
        if (!q) return oom(d);
    } else {
        fuzzy_state *fs = tv_arena_calloc(d->arena, 1, sizeof *fs);
        q = tv_q_new(d, TV_Q_EXT);
        if (!fs || !q) return oom(d);
        fs->a = a;
        fs->text = tv_arena_memdup(d->arena, s, n);
        if (!fs->text && n) return oom(d);
        fs->text_len = n;
        fs->text_cps = tv_cp_count(s, n);
        fs->max_edits = edits;
        fs->transpositions = transpositions;
        fs->max_expansions = max_expansions;
        q->field = f;
        q->field_id = f->id;
        q->u.ext.prepare = fuzzy_prepare;
        q->u.ext.plan = fuzzy_plan;
        q->u.ext.state = fs;
    }
    *out = q;
    return TROVE_OK;
}

tv_status tv_dsl_parse_fuzzy(tv_dsl *d, const tv_json *body, tv_query **out) {
    pat_opts o;
    tv_status st = parse_opts(d, "fuzzy", K_FUZZY, body, &o);
    if (st) return st;
    const char *s;
    size_t n;
    if (!tv_dsl_scalar_text(o.value, &s, &n))
        return tv_dsl_error(d, TROVE_EPARSE, o.value->off, "[fuzzy] failed to parse field [value]");
    const tv_field *f;
    if ((st = pattern_field(d, "fuzzy", &o, &f))) return st;
    tv_query *q;
    if (!f) {
        q = none_node(d);
        if (!q) return oom(d);
        q->boost *= o.boost;
        *out = q;
        return TROVE_OK;
    }
    if ((st = normalize(d, f, s, n, &s, &n))) return st;
    int edits = 1; /* Fuzziness.AUTO */
    if (o.fuzziness) {
        const char *fz;
        size_t fl;
        if (!tv_dsl_scalar_text(o.fuzziness, &fz, &fl))
            return tv_dsl_error(d, TROVE_EPARSE, o.fuzziness->off, "[fuzzy] failed to parse field [fuzziness]");
        edits = tv_fuzziness_distance(fz, fl, s, n);
        if (edits < 0)
            return tv_dsl_error(d, TROVE_EPARSE, o.fuzziness->off, "[fuzzy] failed to parse field [fuzziness]");
    } else {
        edits = tv_fuzziness_distance("AUTO", 4, s, n);
    }
    if (o.max_expansions <= 0) {
        tv_dsl_error(d, TROVE_EARG, o.value->off, "maxExpansions must be positive.");
        return shard_failure(d, TROVE_EARG, o.value->off);
    }
    if (o.prefix_length < 0) {
        tv_dsl_error(d, TROVE_EARG, o.value->off, "prefixLength cannot be negative.");
        return shard_failure(d, TROVE_EARG, o.value->off);
    }
    bool constant = false;
    if (o.rewrite && o.rewrite->type == TV_JSON_STRING && o.rewrite->len >= 14 &&
        memcmp(o.rewrite->v.s, "constant_score", 14) == 0)
        constant = true;
    st = tv_q_fuzzy_build(d, f, s, n, edits, o.prefix_length, (uint32_t)TV_MIN(o.max_expansions, (int64_t)UINT32_MAX),
                          o.transpositions, constant, &q);
    if (st) return shard_failure(d, st, o.value->off);
    q->boost *= o.boost;
    *out = q;
    return TROVE_OK;
}
