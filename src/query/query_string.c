/*
 * query_string.c — the `query_string` query (Lucene's classic QueryParser
 * syntax as OpenSearch's QueryStringQueryBuilder / QueryStringQueryParser
 * run it), the per-field machinery it shares with simple_query_string.c
 * (query_string.h), URI search (?q=) and a debug printer of the AST in
 * Lucene's Query.toString style.
 *
 * Parsing is a hand-written copy of the JavaCC grammar's behaviour, not of
 * its code:
 *
 *   - The lexer pre-tokenizes the whole string with JavaCC's rules:
 *     longest match, ties to the token declared first, three lexical
 *     states (DEFAULT; Boost after `^`, which knows only <NUMBER> and no
 *     white space; Range after `[`/`{`). A lexical error becomes a token
 *     that raises Lucene's TokenMgrError text when the parser reaches it,
 *     so a syntax error earlier in the string wins, as in Lucene.
 *   - The parser is recursive descent over Query / Clause / Term /
 *     MultiTerm with the same lookaheads: consecutive bare <TERM>s not
 *     followed by `:`, `*`, `~`, `^`, AND, OR are joined with spaces and
 *     analyzed together (splitOnWhitespace=false); `field:` binds to one
 *     term or group. Clauses get MUST/SHOULD/MUST_NOT exactly as
 *     QueryParserBase.addClause decides from the conjunction before them
 *     and the default operator (no precedence: `a AND b OR c` makes a and
 *     b required only when the operator is OR, etc.).
 *   - Syntax errors are reported as OpenSearch does: query_shard_exception
 *     "Failed to parse query [q]" caused by parse_exception "Cannot parse
 *     'q': Encountered \" <KIND> \"img \"\" at line 1, column N.\nWas
 *     expecting one of: ...". The expected list is rebuilt the way the
 *     generated parser builds it: the token kinds of every choice point
 *     that fell through at the offending token, sorted by kind, then the
 *     repeated <TERM>/"*" entries its failed lookaheads add. Columns are
 *     0-based UTF-16 offsets (Lucene's FastCharStream).
 *
 * Building (OpenSearch's QueryStringQueryParser): every term goes through
 * the field list (default_field, fields with ^boost and wildcards, or
 * every mapped leaf field for `*`), per field: text is analyzed with the
 * field's search analyzer (quoted text with the search_quote_analyzer, or
 * the forced analyzer/quote_analyzer) into a term, a bool of terms with
 * the default operator, or a phrase with slop; keyword fields take the
 * whole text as one term through their normalizer; numbers, dates and
 * booleans parse the text (a date term is the [v, v] range with rounding,
 * as DateFieldType.termQuery). Several fields combine in a dis_max with
 * tie_breaker (best_fields 0, most_fields 1). `*`, prefix, wildcard,
 * regexp and fuzzy terms are normalized (keyword normalizer, lower case
 * for lower-casing analyzers) but not analyzed; ranges `[a TO b]`, `>=x`
 * reuse the range query of the DSL per field; `_exists_:f` the exists
 * query. `lenient` turns per-field failures (text on a number field) into
 * match_none. Term-level queries are built by calling the DSL's own
 * parsers (dsl_leaf.c, regexp.c) on small JSON objects built here, so a
 * number or a date means exactly what it means in a term/range query.
 *
 * Alternatives rejected: a precedence-climbing boolean parser (it gives
 * different, "more logical" answers than Lucene for mixed AND/OR, and the
 * point is to answer as OpenSearch does); reimplementing the value
 * conversion of numbers/dates (it would drift from the DSL's).
 *
 * Known approximations: Analyzer.normalize is rebuilt by probing the
 * analyzer (does "Q" come out as "q"?) since the text layer has no
 * normalize chain; synonyms over several positions (tokens stacked at some
 * of them) become SHOULD bools rather than per-position SynonymQuery
 * clauses (one position alone is a SynonymQuery; a token graph is
 * refused); custom index analyzers cannot be
 * named in `analyzer` (the search layer only sees built-ins); the bool's
 * clause order in the debug string is must, filter, should, must_not.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "index/date.h"
#include "query/automaton.h"
#include "query/query_string.h"
#include "text/text.h"

static tv_status oom(tv_dsl *d) {
    if (d->err) tv_error_oom(d->err);
    return TROVE_ENOMEM;
}

static tv_query *none(tv_dsl *d) { return tv_q_new(d, TV_Q_MATCH_NONE); }

void tv_qs_ctx_init(tv_qs_ctx *c, tv_dsl *d, const char *qname) {
    memset(c, 0, sizeof *c);
    c->d = d;
    c->qname = qname;
    c->fuzziness = "AUTO";
    c->fuzziness_len = 4;
    c->fuzzy_max_exp = 50;
    c->fuzzy_transpositions = true;
    c->allow_leading_wildcard = true;
    c->max_states = TV_AUTOMATON_DEFAULT_LIMIT;
}

/* ------------------------------------------------------- synthetic JSON */

/* The DSL parsers take JSON; these build small objects in the arena whose
 * values all carry the offset of the query text (errors point there). */

static tv_json *jstr(tv_dsl *d, const char *s, size_t n, uint32_t off) {
    tv_json *v = tv_arena_calloc(d->arena, 1, sizeof *v);
    char *cp = tv_arena_strndup(d->arena, s, n);
    if (!v || !cp) return NULL;
    v->type = TV_JSON_STRING;
    v->v.s = cp;
    v->len = (uint32_t)n;
    v->off = off;
    return v;
}

static tv_json *jint(tv_dsl *d, int64_t i, uint32_t off) {
    tv_json *v = tv_arena_calloc(d->arena, 1, sizeof *v);
    if (!v) return NULL;
    v->type = TV_JSON_INT;
    v->v.i = i;
    v->off = off;
    char *raw = tv_arena_sprintf(d->arena, "%lld", (long long)i);
    if (!raw) return NULL;
    v->raw = raw;
    v->raw_len = (uint32_t)strlen(raw);
    return v;
}

static tv_json *jbool(tv_dsl *d, bool b, uint32_t off) {
    tv_json *v = tv_arena_calloc(d->arena, 1, sizeof *v);
    if (!v) return NULL;
    v->type = b ? TV_JSON_TRUE : TV_JSON_FALSE;
    v->off = off;
    return v;
}

static tv_json *jobj(tv_dsl *d, uint32_t n, uint32_t off) {
    tv_json *v = tv_arena_calloc(d->arena, 1, sizeof *v);
    tv_json_member *m = tv_arena_calloc(d->arena, n ? n : 1, sizeof *m);
    if (!v || !m) return NULL;
    v->type = TV_JSON_OBJECT;
    v->v.members = m;
    v->len = 0;
    v->off = off;
    return v;
}

/* Appends a member (the object was sized by jobj). */
static void jput(tv_json *o, const char *key, size_t klen, const tv_json *val) {
    tv_json_member *m = &o->v.members[o->len++];
    m->key = key;
    m->key_len = (uint32_t)klen;
    m->key_off = o->off;
    m->val = *val;
}

/* {path: inner} */
static tv_json *jfield(tv_dsl *d, const tv_field *f, const tv_json *inner, uint32_t off) {
    tv_json *o = jobj(d, 1, off);
    if (!o || !inner) return NULL;
    jput(o, f->path, f->path_len, inner);
    return o;
}

/* ------------------------------------------------------------- errors */

tv_status tv_qs_wrap_error(tv_qs_ctx *c, tv_status st) {
    tv_error *e = c->d->err;
    if (!st || st == TROVE_ENOMEM || !e) return st;
    if (st == TROVE_EQUERYSHARD || st == TROVE_EPARSE) return st;
    char msg[sizeof e->reason];
    snprintf(msg, sizeof msg, "%s", e->reason);
    tv_status inner = e->code ? e->code : st;
    size_t pos = e->pos;
    uint32_t line = e->line, col = e->col;
    tv_error_set(e, TROVE_EQUERYSHARD, "failed to create query: %s", msg);
    tv_error_cause(e, inner, "%s", msg);
    e->pos = pos;
    e->line = line;
    e->col = col;
    return TROVE_EQUERYSHARD;
}

/* Leniency: a failed per-field query becomes match_none. */
static tv_status soften(tv_qs_ctx *c, tv_status st, tv_query **q) {
    if (st == TROVE_OK || st == TROVE_ENOMEM || !c->lenient) return st;
    tv_error_clear(c->d->err);
    *q = none(c->d);
    return *q ? TROVE_OK : oom(c->d);
}

/* A shard failure built here (not through a DSL parser). */
static tv_status shard_err(tv_qs_ctx *c, tv_status cause, const char *fmt, ...) TV_PRINTF(3, 4);
static tv_status shard_err(tv_qs_ctx *c, tv_status cause, const char *fmt, ...) {
    tv_error *e = c->d->err;
    if (!e) return TROVE_EQUERYSHARD;
    char msg[sizeof e->reason];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tv_dsl_error(c->d, TROVE_EQUERYSHARD, c->off, "%s", msg);
    if (cause != TROVE_OK) tv_error_cause(e, cause, "%s", msg);
    return TROVE_EQUERYSHARD;
}

/* ------------------------------------------------------------- fields */

static tv_status add_field(tv_qs_ctx *c, tv_qs_fields *out, const tv_field *f, float boost) {
    for (uint32_t i = 0; i < out->n; i++) {
        if (out->items[i].f == f) {
            out->items[i].boost *= boost;
            return TROVE_OK;
        }
    }
    if (out->n == out->cap) {
        uint32_t nc = out->cap ? out->cap * 2 : 8;
        tv_qs_field *ni = tv_arena_alloc(c->d->arena, nc * sizeof *ni);
        if (!ni) return oom(c->d);
        if (out->n) memcpy(ni, out->items, out->n * sizeof *ni);
        out->items = ni;
        out->cap = nc;
    }
    out->items[out->n].f = f;
    out->items[out->n].boost = boost;
    out->n++;
    return TROVE_OK;
}

static const tv_field *with_suffix(tv_qs_ctx *c, const tv_field *f, const char *suffix,
                                   size_t slen) {
    if (!suffix || !slen) return f;
    char buf[512];
    if (f->path_len + slen >= sizeof buf) return f;
    memcpy(buf, f->path, f->path_len);
    memcpy(buf + f->path_len, suffix, slen);
    const tv_field *g = tv_dsl_field(c->d, buf, f->path_len + slen);
    return g && g->type != TV_FT_OBJECT ? g : f;
}

tv_status tv_qs_add_fields(tv_qs_ctx *c, tv_qs_fields *out, const char *name, size_t len,
                           float boost, const char *suffix, size_t suffix_len) {
    if (!c->d->mapping) return TROVE_OK;
    if (memchr(name, '*', len)) {
        size_t cnt = tv_mapping_match_fields(c->d->mapping, name, len, NULL, 0);
        if (!cnt) return TROVE_OK;
        const tv_field **list = tv_arena_alloc(c->d->arena, cnt * sizeof *list);
        if (!list) return oom(c->d);
        tv_mapping_match_fields(c->d->mapping, name, len, list, cnt);
        for (size_t i = 0; i < cnt; i++) {
            if (!list[i] || list[i]->type == TV_FT_OBJECT) continue;
            if (list[i]->path_len && list[i]->path[0] == '_') continue; /* metadata */
            tv_status st = add_field(c, out, with_suffix(c, list[i], suffix, suffix_len), boost);
            if (st) return st;
        }
        return TROVE_OK;
    }
    const tv_field *f = tv_dsl_field(c->d, name, len);
    if (!f || f->type == TV_FT_OBJECT) return TROVE_OK;
    return add_field(c, out, with_suffix(c, f, suffix, suffix_len), boost);
}

/* Java's Float.parseFloat, near enough: optional spaces, a decimal or
 * exponent number, an optional f/F/d/D suffix. */
static bool java_float(const char *s, size_t n, float *out) {
    char buf[64];
    while (n && (unsigned char)*s <= ' ') { s++; n--; }
    while (n && (unsigned char)s[n - 1] <= ' ') n--;
    if (n && (s[n - 1] == 'f' || s[n - 1] == 'F' || s[n - 1] == 'd' || s[n - 1] == 'D')) n--;
    if (n == 0 || n >= sizeof buf) return false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= '0' && ch <= '9') || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' || ch == '-'))
            return false;
    }
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end;
    float f = strtof(buf, &end);
    if (*end || end == buf) return false;
    *out = f;
    return true;
}

tv_status tv_qs_fields_from_json(tv_qs_ctx *c, const tv_json *arr, tv_qs_fields *out, bool *all) {
    *all = false;
    for (uint32_t i = 0; i < arr->len; i++) {
        const tv_json *v = &arr->v.items[i];
        const char *s;
        size_t n;
        if (!tv_dsl_scalar_text(v, &s, &n))
            return tv_dsl_error(c->d, TROVE_EPARSE, v->off, "[%s] query does not support [fields]", c->qname);
        float boost = 1.0f;
        const char *caret = memchr(s, '^', n);
        size_t nl = n;
        if (caret) {
            nl = (size_t)(caret - s);
            const char *b = caret + 1;
            size_t bl = n - nl - 1;
            if (!java_float(b, bl, &boost)) {
                if (bl == 0) return tv_dsl_error(c->d, TROVE_ENUMBERFORMAT, v->off, "empty String");
                return tv_dsl_error(c->d, TROVE_ENUMBERFORMAT, v->off, "For input string: \"%.*s\"",
                                    (int)TV_MIN(bl, 200), b);
            }
        }
        if (nl == 1 && s[0] == '*') *all = true;
        tv_status st = tv_qs_add_fields(c, out, s, nl, boost, NULL, 0);
        if (st) return st;
    }
    return TROVE_OK;
}

/* --------------------------------------------------------- analyzers */

tv_status tv_qs_analyzer(tv_qs_ctx *c, const char *param, const tv_json *v, const tv_analyzer **out) {
    const char *s;
    size_t n;
    if (!tv_dsl_scalar_text(v, &s, &n))
        return tv_dsl_error(c->d, TROVE_EPARSE, v->off, "[%s] query does not support [%s]", c->qname, param);
    *out = tv_analyzer_builtin(s, n);
    if (!*out)
        return tv_dsl_error(c->d, TROVE_EQUERYSHARD, v->off, "[%s] %s [%.*s] not found", c->qname, param,
                            (int)TV_MIN(n, 200), s);
    return TROVE_OK;
}

/* The analyzer a text query on f uses. NULL for "the keyword analyzer"
 * (keyword fields without normalizer, and non-text fields). */
static const tv_analyzer *field_analyzer(const tv_qs_ctx *c, const tv_field *f, bool quoted) {
    if (quoted && c->quote_analyzer) return c->quote_analyzer;
    if (c->analyzer) return c->analyzer;
    if (f->type == TV_FT_TEXT) {
        if (quoted && f->search_quote_analyzer) return f->search_quote_analyzer;
        if (f->search_analyzer) return f->search_analyzer;
        if (f->analyzer) return f->analyzer;
        return tv_analyzer_builtin("standard", 8);
    }
    if (f->type == TV_FT_KEYWORD) return f->normalizer;
    return NULL;
}

/* Does the analyzer lower-case? (probe; see the design comment) */
static bool lowercases(tv_qs_ctx *c, const tv_analyzer *an) {
    tv_tokens t;
    if (tv_analyze(an, c->d->arena, "Q", 1, 0, &t) != TROVE_OK) return false;
    return t.len == 1 && t.items[0].term_len == 1 && t.items[0].term[0] == 'q';
}

tv_status tv_qs_normalize(tv_qs_ctx *c, const tv_field *f, const tv_analyzer *forced,
                          const char *s, size_t n, const char **out, size_t *out_len) {
    *out = s;
    *out_len = n;
    if (n == 0) return TROVE_OK;
    const tv_analyzer *an = forced;
    bool concat = false;
    if (!an) {
        if (f->type == TV_FT_KEYWORD) {
            an = f->normalizer;
            concat = true;
        } else if (f->type == TV_FT_TEXT) {
            an = field_analyzer(c, f, false);
        }
    }
    if (!an) return TROVE_OK;
    tv_buf b;
    tv_buf_init(&b);
    if (concat) {
        tv_tokens toks;
        if (tv_analyze(an, c->d->arena, s, n, 0, &toks) != TROVE_OK) return oom(c->d);
        for (size_t i = 0; i < toks.len; i++) tv_buf_append(&b, toks.items[i].term, toks.items[i].term_len);
    } else {
        if (!lowercases(c, an)) return TROVE_OK;
        tv_utf8_lower(s, n, &b);
    }
    char *r = tv_arena_memdup(c->d->arena, b.data ? b.data : "", b.len);
    size_t rl = b.len;
    bool bad = b.oom;
    tv_buf_fini(&b);
    if (bad || !r) return oom(c->d);
    *out = r;
    *out_len = rl;
    return TROVE_OK;
}

/* ---------------------------------------------------- labelled nodes */

/* MULTI_TERM and fuzzy nodes built here carry their Lucene-style text for
 * the debug printer: the matcher's state is a `labelled` whose accept
 * runs the automaton. */
typedef struct labelled {
    const tv_automaton *a;
    const char *label; /* "title:te?t*" */
} labelled;

static bool labelled_accept(const void *state, const char *term, size_t len) {
    const labelled *l = state;
    return tv_automaton_run(l->a, term, len);
}

static tv_query *automaton_node(tv_dsl *d, const tv_field *f, const tv_automaton *a, const char *label) {
    tv_query *q = tv_q_new(d, TV_Q_MULTI_TERM);
    labelled *l = tv_arena_alloc(d->arena, sizeof *l);
    if (!q || !l || !label) return NULL;
    l->a = a;
    l->label = label;
    q->field = f;
    q->field_id = f->id;
    size_t pl;
    const char *p = tv_automaton_prefix(a, &pl);
    q->u.multi.m.accept = labelled_accept;
    q->u.multi.m.state = l;
    q->u.multi.m.automaton = a;
    q->u.multi.m.prefix = pl ? p : NULL;
    q->u.multi.m.prefix_len = (uint32_t)pl;
    return q;
}

/* A fuzzy query from regexp.c wrapped so the printer knows its text. */
typedef struct fuzzy_wrap {
    tv_query *inner;
    const char *label;
} fuzzy_wrap;

static tv_status fw_prepare(tv_query *q, const tv_snapshot *snap, float boost, tv_arena *a) {
    fuzzy_wrap *w = q->u.ext.state;
    w->inner->score_boost = boost;
    if (w->inner->kind == TV_Q_EXT && w->inner->u.ext.prepare)
        return w->inner->u.ext.prepare(w->inner, snap, boost, a);
    return tv_query_prepare(w->inner, snap, a);
}

static tv_status fw_plan(tv_query *q, const tv_segview *sv, struct tv_plan_ctx *ctx, tv_iter **out) {
    fuzzy_wrap *w = q->u.ext.state;
    *out = NULL;
    if (w->inner->kind == TV_Q_EXT) {
        if (w->inner->u.ext.plan) return w->inner->u.ext.plan(w->inner, sv, ctx, out);
        return TROVE_OK;
    }
    return tv_plan(w->inner, sv, ctx, out);
}

/* ------------------------------------------------ per-field term level */

static bool is_textual(const tv_field *f) { return f->type == TV_FT_TEXT || f->type == TV_FT_KEYWORD; }

/* fieldType.termQuery(text) through the DSL's term query. */
static tv_status term_via_dsl(tv_qs_ctx *c, const tv_field *f, const char *s, size_t n, tv_query **out) {
    tv_dsl *d = c->d;
    tv_json *val = jstr(d, s, n, c->off);
    tv_json *in = jobj(d, 1, c->off);
    if (!val || !in) return oom(d);
    jput(in, "value", 5, val);
    tv_json *body = jfield(d, f, in, c->off);
    if (!body) return oom(d);
    return tv_dsl_parse_term(d, body, out);
}

/* fieldType.rangeQuery through the DSL's range query (NULL bound: open). */
static tv_status range_via_dsl(tv_qs_ctx *c, const tv_field *f, const char *lo, size_t lol,
                               const char *hi, size_t hil, bool incl_lo, bool incl_hi, tv_query **out) {
    tv_dsl *d = c->d;
    tv_json *in = jobj(d, 3, c->off);
    if (!in) return oom(d);
    if (lo) {
        tv_json *v = jstr(d, lo, lol, c->off);
        if (!v) return oom(d);
        jput(in, incl_lo ? "gte" : "gt", incl_lo ? 3 : 2, v);
    }
    if (hi) {
        tv_json *v = jstr(d, hi, hil, c->off);
        if (!v) return oom(d);
        jput(in, incl_hi ? "lte" : "lt", incl_hi ? 3 : 2, v);
    }
    if (c->time_zone && f->type == TV_FT_DATE) {
        tv_json *v = jstr(d, c->time_zone, c->time_zone_len, c->off);
        if (!v) return oom(d);
        jput(in, "time_zone", 9, v);
    }
    tv_json *body = jfield(d, f, in, c->off);
    if (!body) return oom(d);
    return tv_dsl_parse_range(d, body, out);
}

/* One range for one field (getRangeQuerySingle). */
static tv_status range_single(tv_qs_ctx *c, const tv_field *f, const char *lo, size_t lol,
                              const char *hi, size_t hil, bool incl_lo, bool incl_hi, tv_query **out) {
    tv_status st;
    if (is_textual(f)) {
        if (lo && (st = tv_qs_normalize(c, f, c->analyzer, lo, lol, &lo, &lol))) return st;
        if (hi && (st = tv_qs_normalize(c, f, c->analyzer, hi, hil, &hi, &hil))) return st;
    }
    st = range_via_dsl(c, f, lo, lol, hi, hil, incl_lo, incl_hi, out);
    return soften(c, st, out);
}

/* Exact value of a non-analyzed field (the keyword-analyzer path of
 * MatchQuery): numbers, booleans and keywords through termQuery, dates
 * as the rounded [v, v] range. */
static tv_status exact_single(tv_qs_ctx *c, const tv_field *f, const char *s, size_t n, tv_query **out) {
    tv_status st;
    if (f->type == TV_FT_DATE) st = range_via_dsl(c, f, s, n, s, n, true, true, out);
    else st = term_via_dsl(c, f, s, n, out);
    return soften(c, st, out);
}

static tv_query *phrase_node(tv_dsl *d, const tv_field *f, const tv_tokens *toks, tv_qkind kind,
                             uint32_t slop) {
    tv_query *q = tv_q_new(d, kind);
    tv_qterm *ts = tv_arena_calloc(d->arena, toks->len, sizeof *ts);
    if (!q || !ts) return NULL;
    uint32_t base = toks->items[0].position;
    for (size_t i = 0; i < toks->len; i++) {
        ts[i].term = toks->items[i].term;
        ts[i].len = toks->items[i].term_len;
        ts[i].pos = toks->items[i].position - base;
    }
    q->field = f;
    q->field_id = f->id;
    q->u.phrase.terms = ts;
    q->u.phrase.nterms = (uint32_t)toks->len;
    q->u.phrase.slop = slop;
    q->u.phrase.max_expansions = 50;
    return q;
}

/* A term of an analyzed field (keyword fields analyzed by a forced
 * analyzer keep the constant score of keyword terms). */
static tv_status analyzed_term(tv_qs_ctx *c, const tv_field *f, const tv_token *t, tv_query **out) {
    if (!is_textual(f)) return exact_single(c, f, t->term, t->term_len, out);
    *out = tv_q_term(c->d, f, t->term, t->term_len);
    return *out ? TROVE_OK : oom(c->d);
}

/* Lucene's QueryBuilder.createFieldQuery for one field. */
static tv_status match_field(tv_qs_ctx *c, const tv_field *f, const char *text, size_t len,
                             tv_qs_mtype mtype, uint32_t slop, tv_query **out) {
    tv_dsl *d = c->d;
    *out = NULL;
    bool quoted = mtype != TV_QS_M_BOOLEAN;
    const tv_analyzer *an = field_analyzer(c, f, quoted);
    if ((!an || (f->type == TV_FT_KEYWORD && !c->analyzer && !(quoted && c->quote_analyzer))) &&
        mtype != TV_QS_M_PHRASE_PREFIX)
        return exact_single(c, f, text, len, out);
    if (!an) an = tv_analyzer_builtin("keyword", 7);
    if (!an) return tv_error_set(d->err, TROVE_EINTERNAL, "no keyword analyzer");
    tv_tokens toks;
    tv_status st = tv_dsl_analyze(d, f, an, text, len, &toks);
    if (st) return st;
    if (toks.len == 0) return TROVE_OK;
    if (toks.len == 1 && mtype != TV_QS_M_PHRASE_PREFIX) return analyzed_term(c, f, &toks.items[0], out);
    bool stacked;
    if (tv_tokens_are_graph(&toks, &stacked)) /* a token graph (multi-word synonyms) */
        return tv_error_set(d->err, TROVE_EUNSUPPORTED,
                            "query_string and simple_query_string over a token graph (multi-word synonyms) on field [%s] are not supported by trove",
                            f->path);
    uint32_t npos = 1;
    for (size_t i = 1; i < toks.len; i++)
        if (toks.items[i].position != toks.items[i - 1].position) npos++;
    if (npos == 1 && f->type == TV_FT_TEXT && mtype != TV_QS_M_PHRASE_PREFIX) {
        /* analyzeBoolean: the terms of one position are a SynonymQuery */
        const tv_token **tp = tv_arena_calloc(d->arena, toks.len, sizeof *tp);
        if (!tp) return oom(d);
        for (size_t i = 0; i < toks.len; i++) tp[i] = &toks.items[i];
        *out = tv_q_synonym(d, f, tp, (uint32_t)toks.len);
        return *out ? TROVE_OK : oom(d);
    }
    if (quoted && npos > 1) {
        if (f->type != TV_FT_TEXT) {
            st = shard_err(c, TROVE_EARG, "Can only use phrase queries on text fields - not on [%s] which is of type [%s]",
                           f->path, tv_field_type_name(f->type));
            return soften(c, st, out);
        }
        if (mtype == TV_QS_M_PHRASE && (f->phrase_field || f->sayt == 1)) {
            if ((st = tv_dsl_index_phrase(d, f, &toks, slop, out)) || *out) return st;
        }
        if (mtype == TV_QS_M_PHRASE_PREFIX && f->prefix_field) {
            if ((st = tv_dsl_index_phrase_prefix(d, f, &toks, slop, 0, out)) || *out) return st;
        }
        *out = phrase_node(d, f, &toks, mtype == TV_QS_M_PHRASE ? TV_Q_PHRASE : TV_Q_PHRASE_PREFIX, slop);
        return *out ? TROVE_OK : oom(d);
    }
    tv_query **cl = tv_arena_calloc(d->arena, toks.len, sizeof *cl);
    if (!cl) return oom(d);
    for (size_t i = 0; i < toks.len; i++) {
        if ((st = analyzed_term(c, f, &toks.items[i], &cl[i]))) return st;
    }
    if (npos == 1) {
        /* synonyms at one position: a disjunction (SynonymQuery) */
        *out = tv_q_bool(d, NULL, 0, cl, (uint32_t)toks.len, 0);
    } else if (c->and_op) {
        *out = tv_q_bool(d, cl, (uint32_t)toks.len, NULL, 0, 0);
    } else {
        *out = tv_q_bool(d, NULL, 0, cl, (uint32_t)toks.len, 0);
    }
    return *out ? TROVE_OK : oom(d);
}

/* Combines per-field queries: none -> NULL, one -> it, else dis_max. */
static tv_status combine(tv_dsl *d, tv_query **qs, uint32_t n, float tie, tv_query **out) {
    if (n == 0) { *out = NULL; return TROVE_OK; }
    if (n == 1) { *out = qs[0]; return TROVE_OK; }
    tv_query *q = tv_q_new(d, TV_Q_DISMAX);
    if (!q) return oom(d);
    q->u.dismax.subs = qs;
    q->u.dismax.nsubs = n;
    q->u.dismax.tie_breaker = tie;
    *out = q;
    return TROVE_OK;
}

static void apply_field_boost(tv_query *q, float boost) {
    if (q && boost != 1.0f && q->kind != TV_Q_MATCH_NONE) q->boost *= boost;
}

tv_status tv_qs_text_query(tv_qs_ctx *c, const tv_qs_fields *fs, const char *text, size_t len,
                           tv_qs_mtype mtype, uint32_t slop, float tie, tv_query **out) {
    tv_dsl *d = c->d;
    *out = NULL;
    if (fs->n == 0) {
        *out = none(d);
        return *out ? TROVE_OK : oom(d);
    }
    tv_query **qs = tv_arena_calloc(d->arena, fs->n, sizeof *qs);
    if (!qs) return oom(d);
    uint32_t n = 0;
    for (uint32_t i = 0; i < fs->n; i++) {
        tv_query *q = NULL;
        tv_status st = match_field(c, fs->items[i].f, text, len, mtype, slop, &q);
        if (st) return st;
        if (!q) continue;
        apply_field_boost(q, fs->items[i].boost);
        qs[n++] = q;
    }
    return combine(d, qs, n, tie, out);
}

/* ------------------------------------------------ prefix / fuzzy / ... */

static tv_status prefix_single(tv_qs_ctx *c, const tv_field *f, const char *s, size_t n, tv_query **out) {
    tv_dsl *d = c->d;
    tv_status st;
    if (!is_textual(f)) {
        st = shard_err(c, TROVE_OK, "Can only use prefix queries on keyword and text fields - not on [%s] which is of type [%s]",
                       f->path, tv_field_type_name(f->type));
        return soften(c, st, out);
    }
    if (f->type == TV_FT_TEXT || c->analyzer) {
        if (c->analyze_wildcard && f->type == TV_FT_TEXT) {
            /* analyzed: terms, the last position as a prefix */
            tv_tokens toks;
            if ((st = tv_dsl_analyze(d, f, field_analyzer(c, f, false), s, n, &toks))) return st;
            if (toks.len == 0) { *out = NULL; return TROVE_OK; }
            if (toks.len > 1) {
                if ((st = tv_dsl_expensive(d, "[prefix] queries", " For optimised prefix queries on text fields please enable [index_prefixes]."))) return st;
                uint32_t lastpos = toks.items[toks.len - 1].position;
                tv_query **cl = tv_arena_calloc(d->arena, toks.len, sizeof *cl);
                if (!cl) return oom(d);
                for (size_t i = 0; i < toks.len; i++) {
                    const tv_token *t = &toks.items[i];
                    if (t->position == lastpos) {
                        cl[i] = tv_q_new(d, TV_Q_MULTI_TERM);
                        if (!cl[i]) return oom(d);
                        cl[i]->field = f;
                        cl[i]->field_id = f->id;
                        cl[i]->u.multi.m.prefix = t->term;
                        cl[i]->u.multi.m.prefix_len = t->term_len;
                    } else {
                        cl[i] = tv_q_term(d, f, t->term, t->term_len);
                        if (!cl[i]) return oom(d);
                    }
                }
                *out = c->and_op ? tv_q_bool(d, cl, (uint32_t)toks.len, NULL, 0, 0)
                                 : tv_q_bool(d, NULL, 0, cl, (uint32_t)toks.len, 0);
                return *out ? TROVE_OK : oom(d);
            }
            s = toks.items[0].term;
            n = toks.items[0].term_len;
        } else if ((st = tv_qs_normalize(c, f, c->analyzer, s, n, &s, &n))) {
            return st;
        }
    }
    /* TextFieldType.prefixQuery: the index_prefixes sub-field when it fits */
    if ((st = tv_dsl_index_prefix(d, f, s, n, out)) || *out) return st;
    if ((st = tv_dsl_expensive(d, "[prefix] queries", " For optimised prefix queries on text fields please enable [index_prefixes]."))) return st;
    tv_query *q = tv_q_new(d, TV_Q_MULTI_TERM);
    char *p = tv_arena_memdup(d->arena, s, n);
    if (!q || (!p && n)) return oom(d);
    q->field = f;
    q->field_id = f->id;
    q->u.multi.m.prefix = p;
    q->u.multi.m.prefix_len = (uint32_t)n;
    *out = q;
    return TROVE_OK;
}

tv_status tv_qs_prefix_query(tv_qs_ctx *c, const tv_qs_fields *fs, const char *text, size_t len,
                             float tie, tv_query **out) {
    tv_dsl *d = c->d;
    *out = NULL;
    if (fs->n == 0) { *out = none(d); return *out ? TROVE_OK : oom(d); }
    tv_query **qs = tv_arena_calloc(d->arena, fs->n, sizeof *qs);
    if (!qs) return oom(d);
    uint32_t n = 0;
    for (uint32_t i = 0; i < fs->n; i++) {
        tv_query *q = NULL;
        tv_status st = prefix_single(c, fs->items[i].f, text, len, &q);
        if (st) return st;
        if (!q) continue;
        apply_field_boost(q, fs->items[i].boost);
        qs[n++] = q;
    }
    return combine(d, qs, n, tie, out);
}

static tv_status fuzzy_single(tv_qs_ctx *c, const tv_field *f, const char *s, size_t n, int edits,
                              tv_query **out) {
    tv_dsl *d = c->d;
    tv_status st;
    if (is_textual(f) && (st = tv_qs_normalize(c, f, c->analyzer, s, n, &s, &n))) return st;
    char ed[4] = {(char)('0' + (edits < 0 ? 0 : edits > 2 ? 2 : edits)), 0};
    tv_json *in = jobj(d, 5, c->off);
    tv_json *v = jstr(d, s, n, c->off), *fz = jstr(d, ed, 1, c->off);
    tv_json *pl = jint(d, c->fuzzy_prefix, c->off), *me = jint(d, c->fuzzy_max_exp, c->off);
    tv_json *tr = jbool(d, c->fuzzy_transpositions, c->off);
    if (!in || !v || !fz || !pl || !me || !tr) return oom(d);
    jput(in, "value", 5, v);
    jput(in, "fuzziness", 9, fz);
    jput(in, "prefix_length", 13, pl);
    jput(in, "max_expansions", 14, me);
    jput(in, "transpositions", 14, tr);
    tv_json *body = jfield(d, f, in, c->off);
    if (!body) return oom(d);
    tv_query *inner = NULL;
    st = tv_dsl_parse_fuzzy(d, body, &inner);
    if (st) return soften(c, st, out);
    if (inner->kind == TV_Q_MATCH_NONE) { *out = inner; return TROVE_OK; }
    fuzzy_wrap *w = tv_arena_alloc(d->arena, sizeof *w);
    tv_query *q = tv_q_new(d, TV_Q_EXT);
    if (!w || !q) return oom(d);
    w->inner = inner;
    w->label = tv_arena_sprintf(d->arena, "%s:%.*s~%d", f->path, (int)n, s, ed[0] - '0');
    if (!w->label) return oom(d);
    q->field = f;
    q->field_id = f->id;
    q->u.ext.prepare = fw_prepare;
    q->u.ext.plan = fw_plan;
    q->u.ext.state = w;
    *out = q;
    return TROVE_OK;
}

tv_status tv_qs_fuzzy_query(tv_qs_ctx *c, const tv_qs_fields *fs, const char *text, size_t len,
                            int edits, float tie, tv_query **out) {
    tv_dsl *d = c->d;
    *out = NULL;
    if (fs->n == 0) { *out = none(d); return *out ? TROVE_OK : oom(d); }
    tv_query **qs = tv_arena_calloc(d->arena, fs->n, sizeof *qs);
    if (!qs) return oom(d);
    uint32_t n = 0;
    for (uint32_t i = 0; i < fs->n; i++) {
        tv_query *q = NULL;
        tv_status st = fuzzy_single(c, fs->items[i].f, text, len, edits, &q);
        if (st) return st;
        if (!q) continue;
        apply_field_boost(q, fs->items[i].boost);
        qs[n++] = q;
    }
    return combine(d, qs, n, tie, out);
}

/* Wildcard for one field: StringFieldType.normalizedWildcardQuery. */
static tv_status wildcard_single(tv_qs_ctx *c, const tv_field *f, const char *s, size_t n, tv_query **out) {
    tv_dsl *d = c->d;
    tv_status st;
    if (!c->allow_leading_wildcard && n && (s[0] == '*' || s[0] == '?'))
        return TROVE_EPARSEEXC; /* the caller reports Lucene's message */
    if (!is_textual(f)) {
        st = shard_err(c, TROVE_OK, "Can only use wildcard queries on keyword and text fields - not on [%s] which is of type [%s]",
                       f->path, tv_field_type_name(f->type));
        return soften(c, st, out);
    }
    if ((st = tv_dsl_expensive(d, "[wildcard] queries", ""))) return st;
    /* normalize the literal runs; escapes and wildcard runs stay */
    tv_buf b;
    tv_buf_init(&b);
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != '*' && s[j] != '?' && s[j] != '\\') j++;
        if (j > i) {
            const char *ns;
            size_t nl;
            if ((st = tv_qs_normalize(c, f, c->analyzer, s + i, j - i, &ns, &nl))) {
                tv_buf_fini(&b);
                return st;
            }
            tv_buf_append(&b, ns, nl);
        }
        if (j < n) {
            size_t k = 1;
            if (s[j] == '\\' && j + 1 < n) {
                k = 2;
                while (j + k < n && ((unsigned char)s[j + k] & 0xC0) == 0x80) k++;
            }
            tv_buf_append(&b, s + j, k);
            j += k;
        }
        i = j;
    }
    char *pat = tv_arena_memdup(d->arena, b.data ? b.data : "", b.len);
    size_t pl = b.len;
    bool bad = b.oom;
    tv_buf_fini(&b);
    if (bad || !pat) return oom(d);
    tv_automaton *a;
    st = tv_wildcard_compile(pat, pl, false, c->max_states, d->arena, &a, d->err);
    if (st == TROVE_ENOMEM) return st;
    if (st) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", d->err ? d->err->reason : "");
        st = shard_err(c, st, "failed to create query: %s", msg);
        return soften(c, st, out);
    }
    *out = automaton_node(d, f, a, tv_arena_sprintf(d->arena, "%s:%.*s", f->path, (int)pl, pat));
    return *out ? TROVE_OK : oom(d);
}

#define MAX_REGEX_LENGTH 1000

static tv_status regexp_single(tv_qs_ctx *c, const tv_field *f, const char *s, size_t n, tv_query **out) {
    tv_dsl *d = c->d;
    tv_status st;
    if (!is_textual(f)) { /* a RegexpQuery on a field without terms */
        *out = none(d);
        return *out ? TROVE_OK : oom(d);
    }
    if ((st = tv_dsl_expensive(d, "[regexp] queries", ""))) return st;
    if ((st = tv_qs_normalize(c, f, c->analyzer, s, n, &s, &n))) return st;
    tv_automaton *a;
    st = tv_regexp_compile(s, n, TV_RE_ALL, c->max_states, d->arena, &a, d->err);
    if (st == TROVE_ENOMEM) return st;
    if (st) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", d->err ? d->err->reason : "");
        st = shard_err(c, st, "failed to create query: %s", msg);
        return soften(c, st, out);
    }
    *out = automaton_node(d, f, a, tv_arena_sprintf(d->arena, "%s:/%.*s/", f->path, (int)n, s));
    return *out ? TROVE_OK : oom(d);
}

/* The exists query (ExistsQueryBuilder.newFilter) of a name or pattern. */
static tv_status exists_query(tv_qs_ctx *c, const char *name, size_t n, tv_query **out) {
    tv_dsl *d = c->d;
    tv_json *o = jobj(d, 1, c->off);
    tv_json *v = jstr(d, name, n, c->off);
    if (!o || !v) return oom(d);
    jput(o, "field", 5, v);
    return tv_dsl_parse_exists(d, o, out);
}

/* ------------------------------------------------------- bool helpers */

static tv_query **arena_copy(tv_dsl *d, tv_query **src, uint32_t n) {
    if (!n) return NULL;
    tv_query **a = tv_arena_alloc(d->arena, n * sizeof *a);
    if (a) memcpy(a, src, n * sizeof *a);
    return a;
}

tv_query *tv_qs_bool(tv_dsl *d, tv_query **must, uint32_t nmust, tv_query **should,
                     uint32_t nshould, tv_query **must_not, uint32_t nmust_not) {
    tv_query *q = tv_q_new(d, TV_Q_BOOL);
    if (!q) return NULL;
    q->u.boolq.must = arena_copy(d, must, nmust);
    q->u.boolq.should = arena_copy(d, should, nshould);
    q->u.boolq.must_not = arena_copy(d, must_not, nmust_not);
    if ((nmust && !q->u.boolq.must) || (nshould && !q->u.boolq.should) ||
        (nmust_not && !q->u.boolq.must_not))
        return NULL;
    q->u.boolq.nmust = nmust;
    q->u.boolq.nshould = nshould;
    q->u.boolq.nmust_not = nmust_not;
    return q;
}

/* Queries.fixNegativeQueryIfNeeded: a bool of only MUST_NOT clauses gets
 * a match_all FILTER. */
static tv_status fix_negative(tv_dsl *d, tv_query *q) {
    if (!q || q->kind != TV_Q_BOOL) return TROVE_OK;
    if (!q->u.boolq.nmust_not || q->u.boolq.nmust || q->u.boolq.nshould || q->u.boolq.nfilter)
        return TROVE_OK;
    tv_query *all = tv_q_new(d, TV_Q_MATCH_ALL);
    tv_query **fa = tv_arena_alloc(d->arena, sizeof *fa);
    if (!all || !fa) return oom(d);
    fa[0] = all;
    q->u.boolq.filter = fa;
    q->u.boolq.nfilter = 1;
    return TROVE_OK;
}

tv_status tv_qs_apply_msm(tv_qs_ctx *c, tv_query *q, const tv_json *spec) {
    if (!spec || spec->type == TV_JSON_NULL || !q || q->kind != TV_Q_BOOL) return TROVE_OK;
    int32_t n = 0;
    tv_status st = tv_dsl_msm(c->d, spec, (int32_t)q->u.boolq.nshould, &n);
    if (st) return st;
    if (n > 0) q->u.boolq.msm = n;
    return TROVE_OK;
}

/* ================================================================ lexer */

/* Token kinds: Lucene's QueryParserConstants numbers (they order the
 * "expected" lists of parse errors). */
enum {
    K_EOF = 0, K_AND = 8, K_OR, K_NOT, K_PLUS, K_MINUS, K_BAREOPER, K_LPAREN, K_RPAREN, K_COLON,
    K_STAR, K_CARAT, K_QUOTED, K_TERM, K_FUZZY_SLOP, K_PREFIXTERM, K_WILDTERM, K_REGEXPTERM,
    K_RANGEIN_START, K_RANGEEX_START, K_NUMBER, K_RANGE_TO, K_RANGEIN_END, K_RANGEEX_END,
    K_RANGE_QUOTED, K_RANGE_GOOP, K_LEXERR = 40
};

static const char *const k_token_image[33] = {
    "<EOF>", "", "", "", "", "", "", "", "<AND>", "<OR>", "<NOT>", "\"+\"", "\"-\"",
    "<BAREOPER>", "\"(\"", "\")\"", "\":\"", "\"*\"", "\"^\"", "<QUOTED>", "<TERM>",
    "<FUZZY_SLOP>", "<PREFIXTERM>", "<WILDTERM>", "<REGEXPTERM>", "\"[\"", "\"{\"", "<NUMBER>",
    "\"TO\"", "\"]\"", "\"}\"", "<RANGE_QUOTED>", "<RANGE_GOOP>",
};

typedef struct qtok {
    uint8_t kind;
    uint32_t start, len; /* bytes of the image */
    uint32_t col;        /* 0-based UTF-16 column of the start */
} qtok;

typedef struct lexerr {
    uint32_t col;  /* Lucene's error column */
    bool eof;
    uint32_t ch;   /* the offending UTF-16 unit */
    uint32_t pstart, plen; /* "after prefix" bytes */
    int state;     /* 0 Boost, 1 Range, 2 DEFAULT */
} lexerr;

enum { ST_BOOST = 0, ST_RANGE = 1, ST_DEFAULT = 2 };

static size_t u8len(const char *s, size_t n, size_t i) {
    unsigned char b = (unsigned char)s[i];
    size_t l = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    return i + l > n ? n - i : l;
}

/* White space of the grammar: ' ', \t, \n, \r, U+3000. */
static size_t ws_len(const char *s, size_t n, size_t i) {
    char ch = s[i];
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') return 1;
    if ((unsigned char)ch == 0xE3 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
        (unsigned char)s[i + 2] == 0x80)
        return 3;
    return 0;
}

static size_t term_start(const char *s, size_t n, size_t i) {
    if (i >= n) return 0;
    if (s[i] == '\\') return i + 1 < n ? 1 + u8len(s, n, i + 1) : 0;
    if (ws_len(s, n, i)) return 0;
    if (strchr("+-!():^[]\"{}~*?/", s[i]) && s[i] != 0) return 0;
    return u8len(s, n, i);
}

static size_t term_char(const char *s, size_t n, size_t i) {
    if (i < n && (s[i] == '-' || s[i] == '+')) return 1;
    return term_start(s, n, i);
}

/* Longest valid end of a quoted run whose content may hold `q` only when
 * escaped (REGEXPTERM with '/', RANGE_QUOTED with '"'); 0 if none. */
static size_t escaped_run(const char *s, size_t n, size_t p, char q, bool nonempty) {
    size_t best = 0;
    for (size_t j = p + 1; j < n; j++) {
        if (s[j] != q) continue;
        bool esc = j - 1 > p && s[j - 1] == '\\';
        if (!nonempty || j > p + 1) best = j + 1 - p;
        if (!esc) break;
    }
    return best;
}

static size_t utf16_at(const char *s, size_t off) { return tv_utf16_len(s, off); }

typedef struct lexer {
    const char *s;
    size_t n;
    size_t pos;
    int state;
} lexer;

/* The next token; false with *le filled on a lexical error. */
static bool lex_next(lexer *lx, qtok *t, lexerr *le) {
    const char *s = lx->s;
    size_t n = lx->n;
    size_t p = lx->pos;
    if (lx->state == ST_DEFAULT) {
        size_t w;
        while (p < n && (w = ws_len(s, n, p))) p += w;
    } else if (lx->state == ST_RANGE) {
        while (p < n) {
            if (s[p] == ' ') { p++; continue; }
            size_t w = ws_len(s, n, p);
            if (!w) break;
            /* a goop longer than the white space char wins over SKIP */
            size_t q = p + w;
            if (q < n && s[q] != ' ' && s[q] != ']' && s[q] != '}') break;
            p += w;
        }
    }
    t->start = (uint32_t)p;
    t->col = (uint32_t)utf16_at(s, p);
    if (p >= n) {
        t->kind = K_EOF;
        t->len = 0;
        lx->pos = p;
        return true;
    }
    size_t best = 0;
    int kind = -1;
#define CAND(k, l)                  \
    do {                            \
        size_t l_ = (l);            \
        if (l_ > best) {            \
            best = l_;              \
            kind = (k);             \
        }                           \
    } while (0)
    if (lx->state == ST_BOOST) {
        size_t j = p;
        while (j < n && s[j] >= '0' && s[j] <= '9') j++;
        if (j > p && j + 1 < n && s[j] == '.' && s[j + 1] >= '0' && s[j + 1] <= '9') {
            j++;
            while (j < n && s[j] >= '0' && s[j] <= '9') j++;
        }
        if (j > p) CAND(K_NUMBER, j - p);
    } else if (lx->state == ST_RANGE) {
        if (p + 1 < n && s[p] == 'T' && s[p + 1] == 'O') CAND(K_RANGE_TO, 2);
        if (s[p] == ']') CAND(K_RANGEIN_END, 1);
        if (s[p] == '}') CAND(K_RANGEEX_END, 1);
        if (s[p] == '"') CAND(K_RANGE_QUOTED, escaped_run(s, n, p, '"', true));
        size_t j = p;
        while (j < n && s[j] != ' ' && s[j] != ']' && s[j] != '}') j++;
        CAND(K_RANGE_GOOP, j - p);
    } else {
        char ch = s[p];
        if (n - p >= 3 && memcmp(s + p, "AND", 3) == 0) CAND(K_AND, 3);
        if (n - p >= 2 && memcmp(s + p, "&&", 2) == 0) CAND(K_AND, 2);
        if (n - p >= 2 && memcmp(s + p, "OR", 2) == 0) CAND(K_OR, 2);
        if (n - p >= 2 && memcmp(s + p, "||", 2) == 0) CAND(K_OR, 2);
        if (n - p >= 3 && memcmp(s + p, "NOT", 3) == 0) CAND(K_NOT, 3);
        if (ch == '!') CAND(K_NOT, 1);
        if (ch == '+') CAND(K_PLUS, 1);
        if (ch == '-') CAND(K_MINUS, 1);
        if ((ch == '+' || ch == '-' || ch == '!') && p + 1 < n && ws_len(s, n, p + 1))
            CAND(K_BAREOPER, 1 + ws_len(s, n, p + 1));
        if (ch == '(') CAND(K_LPAREN, 1);
        if (ch == ')') CAND(K_RPAREN, 1);
        if (ch == ':') CAND(K_COLON, 1);
        if (ch == '*') CAND(K_STAR, 1);
        if (ch == '^') CAND(K_CARAT, 1);
        if (ch == '"') {
            size_t j = p + 1;
            while (j < n && s[j] != '"') {
                if (s[j] == '\\') {
                    if (j + 1 >= n) { j = n; break; }
                    j += 1 + u8len(s, n, j + 1);
                } else {
                    j += u8len(s, n, j);
                }
            }
            if (j < n) CAND(K_QUOTED, j + 1 - p);
        }
        size_t tl = 0, k;
        if ((k = term_start(s, n, p))) {
            size_t j = p + k;
            while ((k = term_char(s, n, j))) j += k;
            tl = j - p;
            CAND(K_TERM, tl);
        }
        if (ch == '~') {
            size_t j = p + 1;
            while ((k = term_char(s, n, j))) j += k;
            CAND(K_FUZZY_SLOP, j - p);
        }
        if (ch == '*') CAND(K_PREFIXTERM, 1);
        if (tl && p + tl < n && s[p + tl] == '*') CAND(K_PREFIXTERM, tl + 1);
        if ((k = term_start(s, n, p)) || ch == '*' || ch == '?') {
            size_t j = p + (k ? k : 1);
            for (;;) {
                if ((k = term_char(s, n, j))) j += k;
                else if (j < n && (s[j] == '*' || s[j] == '?')) j++;
                else break;
            }
            CAND(K_WILDTERM, j - p);
        }
        if (ch == '/') CAND(K_REGEXPTERM, escaped_run(s, n, p, '/', false));
        if (ch == '[') CAND(K_RANGEIN_START, 1);
        if (ch == '{') CAND(K_RANGEEX_START, 1);
    }
#undef CAND
    if (kind < 0) {
        memset(le, 0, sizeof *le);
        le->state = lx->state;
        /* how far the token automaton read before giving up */
        size_t read = p + u8len(s, n, p);
        if (lx->state == ST_DEFAULT && (s[p] == '"' || s[p] == '/' || s[p] == '\\')) read = n + 1;
        if (read > n) {
            le->eof = true;
            le->col = (uint32_t)utf16_at(s, n) + 1;
            if (tv_utf16_len(s + p, n - p) > 1) {
                le->pstart = (uint32_t)p;
                le->plen = (uint32_t)(n - p);
            }
        } else {
            uint32_t cp;
            tv_utf8_decode((const uint8_t *)s + p, (const uint8_t *)s + n, &cp);
            le->ch = cp > 0xFFFF ? 0xD800 + ((cp - 0x10000) >> 10) : cp;
            le->col = (uint32_t)utf16_at(s, p) + 1;
        }
        return false;
    }
    t->kind = (uint8_t)kind;
    t->len = (uint32_t)best;
    lx->pos = p + best;
    if (kind == K_CARAT) lx->state = ST_BOOST;
    else if (kind == K_NUMBER) lx->state = ST_DEFAULT;
    else if (kind == K_RANGEIN_START || kind == K_RANGEEX_START) lx->state = ST_RANGE;
    else if (kind == K_RANGEIN_END || kind == K_RANGEEX_END) lx->state = ST_DEFAULT;
    return true;
}

/* Java's addEscapes over UTF-8 text (per UTF-16 unit). */
static void add_escapes(tv_buf *b, const char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t k = tv_utf8_decode((const uint8_t *)s + i, (const uint8_t *)s + n, &cp);
        i += k;
        switch (cp) {
        case '\b': tv_buf_puts(b, "\\b"); continue;
        case '\t': tv_buf_puts(b, "\\t"); continue;
        case '\n': tv_buf_puts(b, "\\n"); continue;
        case '\f': tv_buf_puts(b, "\\f"); continue;
        case '\r': tv_buf_puts(b, "\\r"); continue;
        case '"': tv_buf_puts(b, "\\\""); continue;
        case '\'': tv_buf_puts(b, "\\'"); continue;
        case '\\': tv_buf_puts(b, "\\\\"); continue;
        default: break;
        }
        if (cp < 0x20 || cp > 0x7e) {
            if (cp > 0xFFFF) {
                tv_buf_printf(b, "\\u%04x\\u%04x", 0xD800 + ((cp - 0x10000) >> 10),
                              0xDC00 + ((cp - 0x10000) & 0x3FF));
            } else {
                tv_buf_printf(b, "\\u%04x", cp);
            }
        } else {
            tv_buf_putc(b, (char)cp);
        }
    }
}

/* ================================================================ parser */

enum { CONJ_NONE = 0, CONJ_AND = 1, CONJ_OR = 2 };
enum { MOD_NONE = 0, MOD_NOT = 10, MOD_REQ = 11 };
enum { OCC_MUST = 0, OCC_SHOULD, OCC_MUST_NOT };

#define BIT(k) (1ull << (k))
#define SET_TERM_FIRST                                                                           \
    (BIT(K_BAREOPER) | BIT(K_STAR) | BIT(K_QUOTED) | BIT(K_TERM) | BIT(K_PREFIXTERM) |           \
     BIT(K_WILDTERM) | BIT(K_REGEXPTERM) | BIT(K_RANGEIN_START) | BIT(K_RANGEEX_START) |         \
     BIT(K_NUMBER))
#define SET_MODS (BIT(K_NOT) | BIT(K_PLUS) | BIT(K_MINUS))
#define SET_CLAUSE (SET_TERM_FIRST | BIT(K_LPAREN))
#define SET_MODCLAUSE (SET_MODS | SET_CLAUSE)
#define SET_LOOP (SET_MODCLAUSE | BIT(K_AND) | BIT(K_OR))

typedef struct clause {
    tv_query *q;
    int occur;
} clause;
typedef TV_VEC(clause) clause_vec;

typedef struct qp {
    tv_qs_ctx *c;
    const char *s; /* the text parsed (escaped when escape:true) */
    size_t n;
    qtok *toks;
    size_t ntoks, i;
    lexerr lerr;
    bool lex_hit;
    /* expected-token bookkeeping for the token at exp_at */
    size_t exp_at;
    uint64_t exp;
    int extra_idx[16];
    int nextra;
    /* the default field: NULL = the field list; else a name/pattern */
    const char *dfield;
    size_t dfield_len;
    const tv_qs_fields *fields;
    int depth;
    char pmsg[1024]; /* ParseException message */
} qp;

static void exp_reset(qp *p) {
    if (p->exp_at != p->i) {
        p->exp_at = p->i;
        p->exp = 0;
        p->nextra = 0;
    }
}
static void note(qp *p, uint64_t set) {
    exp_reset(p);
    p->exp |= set;
}
/* A failed LOOKAHEAD at the current token: jj index 1..3 MultiTerm, 4 Clause. */
static void note_la(qp *p, int idx) {
    exp_reset(p);
    if (p->nextra < 16) p->extra_idx[p->nextra++] = idx;
}

static int kind_at(qp *p, size_t k) {
    size_t j = p->i + k;
    if (j >= p->ntoks) j = p->ntoks - 1;
    int kd = p->toks[j].kind;
    if (kd == K_LEXERR) p->lex_hit = true;
    return kd;
}
static int cur(qp *p) { return kind_at(p, 0); }
static qtok *tok(qp *p) { return &p->toks[p->i < p->ntoks ? p->i : p->ntoks - 1]; }
static void consume(qp *p) {
    if (p->i + 1 < p->ntoks) p->i++;
}

static tv_status parse_msg(qp *p, const char *fmt, ...) TV_PRINTF(2, 3);
static tv_status parse_msg(qp *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->pmsg, sizeof p->pmsg, fmt, ap);
    va_end(ap);
    return TROVE_EPARSEEXC;
}

static tv_status lex_error(qp *p) {
    const lexerr *le = &p->lerr;
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_printf(&b, "Lexical error at line 1, column %u.  Encountered: ", le->col);
    if (le->eof) {
        tv_buf_puts(&b, "<EOF>");
    } else {
        tv_buf_putc(&b, '\'');
        if (le->ch >= 0xD800 && le->ch < 0xE000) tv_buf_printf(&b, "\\u%04x", le->ch);
        else {
            uint8_t enc[4];
            add_escapes(&b, (const char *)enc, tv_utf8_encode(le->ch, enc));
        }
        tv_buf_printf(&b, "' (%u),", le->ch);
    }
    if (le->plen) {
        tv_buf_puts(&b, " after prefix \"");
        add_escapes(&b, p->s + le->pstart, le->plen);
        tv_buf_putc(&b, '"');
    }
    if (le->state != ST_BOOST) tv_buf_printf(&b, " (in lexical state %d)", le->state);
    snprintf(p->pmsg, sizeof p->pmsg, "%s", b.data ? b.data : "");
    bool bad = b.oom;
    tv_buf_fini(&b);
    return bad ? oom(p->c->d) : TROVE_EPARSEEXC;
}

/* JavaCC's generateParseException for the current token. */
static tv_status syntax_error(qp *p, int expected_kind) {
    if (p->lex_hit || tok(p)->kind == K_LEXERR) return lex_error(p);
    exp_reset(p);
    uint64_t set = p->exp;
    if (expected_kind >= 0) set |= BIT(expected_kind);
    int entries[64 + 32];
    int ne = 0;
    for (int k = 0; k < 33; k++)
        if (set & BIT(k)) entries[ne++] = k;
    /* failed lookaheads, by their index in the grammar: each adds its
     * expected kinds again when they are already listed (JavaCC quirk) */
    for (int idx = 1; idx <= 4; idx++) {
        for (int j = 0; j < p->nextra; j++) {
            if (p->extra_idx[j] != idx) continue;
            if (set & BIT(K_TERM)) entries[ne++] = K_TERM;
            if (idx == 4 && (set & BIT(K_STAR)) && ne < 96) entries[ne++] = K_STAR;
            if (ne >= 90) break;
        }
    }
    const qtok *t = tok(p);
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_puts(&b, "Encountered \"");
    if (ne > 0) {
        if (t->kind == K_EOF) {
            tv_buf_puts(&b, k_token_image[0]);
        } else {
            tv_buf_printf(&b, " %s \"", k_token_image[t->kind]);
            add_escapes(&b, p->s + t->start, t->len);
            tv_buf_puts(&b, " \"");
        }
    }
    tv_buf_printf(&b, "\" at line 1, column %u.\n", t->col);
    if (ne == 1) tv_buf_puts(&b, "Was expecting:\n    ");
    else if (ne > 1) tv_buf_puts(&b, "Was expecting one of:\n    ");
    for (int j = 0; j < ne; j++) {
        tv_buf_printf(&b, "%s %s\n    ", k_token_image[entries[j]], entries[j] ? "..." : "");
    }
    snprintf(p->pmsg, sizeof p->pmsg, "%s", b.data ? b.data : "");
    bool bad = b.oom;
    tv_buf_fini(&b);
    return bad ? oom(p->c->d) : TROVE_EPARSEEXC;
}

static tv_status expect(qp *p, int kind, qtok **out) {
    if (cur(p) != kind) return syntax_error(p, kind);
    if (out) *out = tok(p);
    consume(p);
    return TROVE_OK;
}

/* QueryParserBase.discardEscapeChar into the arena. */
static tv_status discard_escapes(qp *p, const char *s, size_t n, const char **out, size_t *out_len) {
    char *o = tv_arena_alloc(p->c->d->arena, n + 1);
    if (!o) return oom(p->c->d);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\') {
            o[w++] = s[i];
            continue;
        }
        if (i + 1 >= n) return parse_msg(p, "Term can not end with escape character.");
        i++;
        if (s[i] != 'u') {
            o[w++] = s[i];
            continue;
        }
        uint32_t cp = 0;
        for (int k = 0; k < 4; k++) {
            i++;
            if (i >= n) return parse_msg(p, "Truncated unicode escape sequence.");
            char h = s[i];
            int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
            if (v < 0) {
                size_t cl = u8len(s, n, i);
                return parse_msg(p, "Non-hex character in Unicode escape sequence: %.*s", (int)cl, s + i);
            }
            cp = cp * 16 + (uint32_t)v;
        }
        /* a surrogate pair written as two escapes */
        if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < n + 0 && s[i + 1] == '\\' && s[i + 2] == 'u') {
            uint32_t lo = 0;
            bool ok = true;
            for (int k = 0; k < 4; k++) {
                char h = s[i + 3 + (size_t)k];
                int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                if (v < 0) ok = false;
                lo = lo * 16 + (uint32_t)(v < 0 ? 0 : v);
            }
            if (ok && lo >= 0xDC00 && lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            }
        }
        if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;
        w += tv_utf8_encode(cp, (uint8_t *)o + w);
    }
    o[w] = 0;
    *out = o;
    *out_len = w;
    return TROVE_OK;
}

/* ------------------------------------------------- field resolution */

static bool is_all(const char *f, size_t n) { return n == 1 && f[0] == '*'; }

/* extractMultiFields(field, quoted): field NULL = the field list. */
static tv_status extract_fields(qp *p, const char *field, size_t flen, bool quoted, tv_qs_fields *out) {
    tv_qs_ctx *c = p->c;
    memset(out, 0, sizeof *out);
    const char *suf = quoted ? c->quote_suffix : NULL;
    size_t sl = quoted ? c->quote_suffix_len : 0;
    if (field) return tv_qs_add_fields(c, out, field, flen, 1.0f, suf, sl);
    if (!suf) {
        *out = *p->fields;
        return TROVE_OK;
    }
    for (uint32_t i = 0; i < p->fields->n; i++) {
        const tv_qs_field *f = &p->fields->items[i];
        tv_status st = tv_qs_add_fields(c, out, f->f->path, f->f->path_len, f->boost, suf, sl);
        if (st) return st;
    }
    return TROVE_OK;
}

/* Runs a per-field builder over the extracted fields, dis_max'ed. */
typedef tv_status (*single_fn)(tv_qs_ctx *c, const tv_field *f, const char *s, size_t n, tv_query **out);

static tv_status per_field(qp *p, const char *field, size_t flen, const char *s, size_t n, single_fn fn,
                           tv_query **out) {
    tv_qs_fields fs;
    tv_status st = extract_fields(p, field, flen, false, &fs);
    if (st) return st;
    tv_dsl *d = p->c->d;
    if (fs.n == 0) {
        *out = none(d);
        return *out ? TROVE_OK : oom(d);
    }
    tv_query **qs = tv_arena_calloc(d->arena, fs.n, sizeof *qs);
    if (!qs) return oom(d);
    uint32_t k = 0;
    for (uint32_t i = 0; i < fs.n; i++) {
        tv_query *q = NULL;
        if ((st = fn(p->c, fs.items[i].f, s, n, &q))) return st;
        if (!q) continue;
        apply_field_boost(q, fs.items[i].boost);
        qs[k++] = q;
    }
    return combine(d, qs, k, p->c->tie, out);
}

/* ------------------------------------------------- the parser's hooks */

static tv_status get_range(qp *p, const char *field, size_t flen, const char *lo, size_t lol,
                           const char *hi, size_t hil, bool incl_lo, bool incl_hi, tv_query **out) {
    if (lo && is_all(lo, lol)) lo = NULL;
    if (hi && is_all(hi, hil)) hi = NULL;
    tv_qs_fields fs;
    tv_status st = extract_fields(p, field, flen, false, &fs);
    if (st) return st;
    tv_dsl *d = p->c->d;
    if (fs.n == 0) {
        *out = none(d);
        return *out ? TROVE_OK : oom(d);
    }
    tv_query **qs = tv_arena_calloc(d->arena, fs.n, sizeof *qs);
    if (!qs) return oom(d);
    for (uint32_t i = 0; i < fs.n; i++) {
        if ((st = range_single(p->c, fs.items[i].f, lo, lol, hi, hil, incl_lo, incl_hi, &qs[i]))) return st;
        apply_field_boost(qs[i], fs.items[i].boost);
    }
    return combine(d, qs, fs.n, p->c->tie, out);
}

/* getFieldQuery(field, text, quoted=false). */
static tv_status get_field_query(qp *p, const char *field, size_t flen, const char *text, size_t n,
                                 tv_query **out) {
    tv_qs_ctx *c = p->c;
    *out = NULL;
    if (field && tv_streq(field, flen, "_exists_")) return exists_query(c, text, n, out);
    if (field && tv_utf16_len(text, n) > 1) {
        if (text[0] == '>') {
            if (n > 2 && text[1] == '=') return get_range(p, field, flen, text + 2, n - 2, NULL, 0, true, true, out);
            return get_range(p, field, flen, text + 1, n - 1, NULL, 0, false, true, out);
        }
        if (text[0] == '<') {
            if (n > 2 && text[1] == '=') return get_range(p, field, flen, NULL, 0, text + 2, n - 2, true, true, out);
            return get_range(p, field, flen, NULL, 0, text + 1, n - 1, true, false, out);
        }
        const tv_field *f = tv_dsl_field(c->d, field, flen);
        if (f && f->type == TV_FT_DATE && c->time_zone)
            return get_range(p, field, flen, text, n, text, n, true, true, out);
    }
    tv_qs_fields fs;
    tv_status st = extract_fields(p, field, flen, false, &fs);
    if (st) return st;
    tv_qs_mtype mt = c->type == TV_QS_PHRASE ? TV_QS_M_PHRASE
                     : c->type == TV_QS_PHRASE_PREFIX ? TV_QS_M_PHRASE_PREFIX : TV_QS_M_BOOLEAN;
    return tv_qs_text_query(c, &fs, text, n, mt, c->phrase_slop, c->tie, out);
}

/* getFieldQuery(field, text, slop) for quoted text. */
static tv_status get_phrase_query(qp *p, const char *field, size_t flen, const char *text, size_t n,
                                  uint32_t slop, tv_query **out) {
    tv_qs_ctx *c = p->c;
    *out = NULL;
    if (field && tv_streq(field, flen, "_exists_")) return exists_query(c, text, n, out);
    tv_qs_fields fs;
    tv_status st = extract_fields(p, field, flen, true, &fs);
    if (st) return st;
    return tv_qs_text_query(c, &fs, text, n, TV_QS_M_PHRASE, slop, c->tie, out);
}

static tv_status get_wildcard(qp *p, const char *field, size_t flen, const char *s, size_t n, tv_query **out) {
    tv_dsl *d = p->c->d;
    const char *af = field ? field : p->dfield;
    size_t afl = field ? flen : p->dfield_len;
    if (is_all(s, n) && af) {
        if (is_all(af, afl)) {
            *out = tv_q_new(d, TV_Q_MATCH_ALL);
            return *out ? TROVE_OK : oom(d);
        }
        return exists_query(p->c, af, afl, out);
    }
    tv_qs_fields fs;
    tv_status st = extract_fields(p, field, flen, false, &fs);
    if (st) return st;
    if (fs.n == 0) {
        *out = none(d);
        return *out ? TROVE_OK : oom(d);
    }
    tv_query **qs = tv_arena_calloc(d->arena, fs.n, sizeof *qs);
    if (!qs) return oom(d);
    for (uint32_t i = 0; i < fs.n; i++) {
        const tv_field *f = fs.items[i].f;
        if (is_all(s, n)) st = exists_query(p->c, f->path, f->path_len, &qs[i]);
        else st = wildcard_single(p->c, f, s, n, &qs[i]);
        if (st == TROVE_EPARSEEXC)
            return parse_msg(p, "'*' or '?' not allowed as first character in WildcardQuery");
        if (st) return st;
        apply_field_boost(qs[i], fs.items[i].boost);
    }
    return combine(d, qs, fs.n, p->c->tie, out);
}

static tv_status get_regexp(qp *p, const char *field, size_t flen, const char *s, size_t n, tv_query **out) {
    size_t u16 = tv_utf16_len(s, n);
    if (u16 > MAX_REGEX_LENGTH) {
        return shard_err(p->c, TROVE_EARG,
                         "failed to create query: The length of regex [%zu] used in the [query_string] has "
                         "exceeded the allowed maximum of [%d]. This maximum can be set by changing the "
                         "[index.max_regex_length] index level setting.",
                         u16, MAX_REGEX_LENGTH);
    }
    return per_field(p, field, flen, s, n, regexp_single, out);
}

static tv_status get_fuzzy(qp *p, const char *field, size_t flen, const qtok *slop, const char *s, size_t n,
                           tv_query **out) {
    tv_qs_ctx *c = p->c;
    int edits;
    if (slop->len == 1) {
        edits = tv_fuzziness_distance(c->fuzziness, c->fuzziness_len, s, n);
    } else {
        const char *spec = p->s + slop->start + 1;
        size_t sl = slop->len - 1;
        edits = tv_fuzziness_distance(spec, sl, s, n);
        if (edits < 0) {
            char up[128];
            size_t k = 0;
            for (; k < sl && k < sizeof up - 1; k++)
                up[k] = (char)(spec[k] >= 'a' && spec[k] <= 'z' ? spec[k] - 32 : spec[k]);
            up[k] = 0;
            return shard_err(c, TROVE_ENUMBERFORMAT, "failed to create query: For input string: \"%s\"", up);
        }
    }
    if (edits < 0) edits = 1;
    tv_qs_fields fs;
    tv_status st = extract_fields(p, field, flen, false, &fs);
    if (st) return st;
    return tv_qs_fuzzy_query(c, &fs, s, n, edits, c->tie, out);
}

static void handle_boost(qp *p, tv_query *q, const qtok *boost) {
    if (!q || !boost) return;
    float f = 1.0f;
    if (!java_float(p->s + boost->start, boost->len, &f)) f = 1.0f;
    q->boost *= f;
}

/* addClause: Lucene's conjunction rules. */
static tv_status add_clause(qp *p, clause_vec *cl, int conj, int mods, tv_query *q) {
    bool and_op = p->c->and_op;
    if (cl->len > 0 && conj == CONJ_AND) {
        clause *c = &cl->items[cl->len - 1];
        if (c->occur != OCC_MUST_NOT) c->occur = OCC_MUST;
    }
    if (cl->len > 0 && and_op && conj == CONJ_OR) {
        clause *c = &cl->items[cl->len - 1];
        if (c->occur != OCC_MUST_NOT) c->occur = OCC_SHOULD;
    }
    if (!q) return TROVE_OK;
    bool required, prohibited;
    if (!and_op) {
        prohibited = mods == MOD_NOT;
        required = mods == MOD_REQ;
        if (conj == CONJ_AND && !prohibited) required = true;
    } else {
        prohibited = mods == MOD_NOT;
        required = !prohibited && conj != CONJ_OR;
    }
    clause c = {q, prohibited ? OCC_MUST_NOT : required ? OCC_MUST : OCC_SHOULD};
    if (tv_vec_push(cl, c)) return oom(p->c->d);
    return TROVE_OK;
}

static bool plain_bool(const tv_query *q) {
    return q->kind == TV_Q_BOOL && q->boost == 1.0f && q->u.boolq.msm == 0 && q->u.boolq.nfilter == 0;
}

/* addMultiTermClauses. */
static tv_status add_multi_clauses(qp *p, clause_vec *cl, tv_query *q) {
    if (!q) return TROVE_OK;
    bool all_terms = false;
    if (plain_bool(q)) {
        all_terms = true;
        for (uint32_t i = 0; i < q->u.boolq.nmust; i++)
            if (q->u.boolq.must[i]->kind != TV_Q_TERM || q->u.boolq.must[i]->boost != 1.0f) all_terms = false;
        for (uint32_t i = 0; i < q->u.boolq.nshould; i++)
            if (q->u.boolq.should[i]->kind != TV_Q_TERM || q->u.boolq.should[i]->boost != 1.0f) all_terms = false;
        if (q->u.boolq.nmust_not) all_terms = false;
    }
    int occ = p->c->and_op ? OCC_MUST : OCC_SHOULD;
    if (plain_bool(q)) {
        for (uint32_t i = 0; i < q->u.boolq.nmust; i++) {
            clause c = {q->u.boolq.must[i], all_terms ? OCC_MUST : occ};
            if (tv_vec_push(cl, c)) return oom(p->c->d);
        }
        for (uint32_t i = 0; i < q->u.boolq.nshould; i++) {
            clause c = {q->u.boolq.should[i], all_terms ? OCC_SHOULD : occ};
            if (tv_vec_push(cl, c)) return oom(p->c->d);
        }
        for (uint32_t i = 0; i < q->u.boolq.nmust_not; i++) {
            clause c = {q->u.boolq.must_not[i], occ};
            if (tv_vec_push(cl, c)) return oom(p->c->d);
        }
        return TROVE_OK;
    }
    clause c = {q, occ};
    if (tv_vec_push(cl, c)) return oom(p->c->d);
    return TROVE_OK;
}

/* getBooleanQuery + fixNegativeQueryIfNeeded; NULL for no clauses. */
static tv_status boolean_of(qp *p, const clause_vec *cl, tv_query **out) {
    tv_dsl *d = p->c->d;
    *out = NULL;
    if (cl->len == 0) return TROVE_OK;
    tv_query **tmp = tv_arena_alloc(d->arena, cl->len * 3 * sizeof *tmp);
    if (!tmp) return oom(d);
    tv_query **must = tmp, **should = tmp + cl->len, **mnot = tmp + 2 * cl->len;
    uint32_t nm = 0, ns = 0, nn = 0;
    for (size_t i = 0; i < cl->len; i++) {
        if (cl->items[i].occur == OCC_MUST) must[nm++] = cl->items[i].q;
        else if (cl->items[i].occur == OCC_SHOULD) should[ns++] = cl->items[i].q;
        else mnot[nn++] = cl->items[i].q;
    }
    tv_query *q = tv_qs_bool(d, must, nm, should, ns, mnot, nn);
    if (!q) return oom(d);
    tv_status st = fix_negative(d, q);
    if (st) return st;
    *out = q;
    return TROVE_OK;
}

static bool post_multi_ok(int kind) {
    return kind != K_COLON && kind != K_STAR && kind != K_FUZZY_SLOP && kind != K_CARAT &&
           kind != K_AND && kind != K_OR;
}

/* LOOKAHEAD(2) MultiTerm: <TERM> followed by a <TERM> that is not
 * followed by a disallowed token. */
static bool multiterm_ahead(qp *p, int la_idx) {
    if (cur(p) == K_TERM && kind_at(p, 1) == K_TERM && post_multi_ok(kind_at(p, 2))) return true;
    if (cur(p) != K_TERM) note_la(p, la_idx);
    return false;
}

static tv_status parse_query(qp *p, const char *field, size_t flen, tv_query **out);

/* MultiTerm(field, clauses). */
static tv_status parse_multiterm(qp *p, const char *field, size_t flen, clause_vec *cl, tv_query **first) {
    tv_dsl *d = p->c->d;
    tv_buf b;
    tv_buf_init(&b);
    const qtok *t = tok(p);
    tv_buf_append(&b, p->s + t->start, t->len);
    consume(p);
    while (cur(p) == K_TERM && post_multi_ok(kind_at(p, 1))) {
        t = tok(p);
        tv_buf_putc(&b, ' ');
        tv_buf_append(&b, p->s + t->start, t->len);
        consume(p);
    }
    if (b.oom) {
        tv_buf_fini(&b);
        return oom(d);
    }
    if (p->lex_hit) {
        tv_buf_fini(&b);
        return lex_error(p);
    }
    const char *text;
    size_t tl;
    tv_status st = discard_escapes(p, b.data, b.len, &text, &tl);
    tv_buf_fini(&b);
    if (st) return st;
    tv_query *q = NULL;
    if ((st = get_field_query(p, field, flen, text, tl, &q))) return st;
    if (first) *first = q;
    return add_multi_clauses(p, cl, q);
}

/* Term(field). */
static tv_status parse_term(qp *p, const char *field, size_t flen, tv_query **out) {
    tv_dsl *d = p->c->d;
    *out = NULL;
    int k = cur(p);
    const qtok *boost = NULL, *fslop = NULL;
    tv_status st;
    if (k == K_RANGEIN_START || k == K_RANGEEX_START) {
        bool start_incl = k == K_RANGEIN_START;
        consume(p);
        const qtok *g1, *g2;
        k = cur(p);
        if (k != K_RANGE_GOOP && k != K_RANGE_QUOTED && k != K_RANGE_TO) {
            note(p, BIT(K_RANGE_GOOP) | BIT(K_RANGE_QUOTED) | BIT(K_RANGE_TO));
            return syntax_error(p, -1);
        }
        g1 = tok(p);
        consume(p);
        qtok *tt;
        if ((st = expect(p, K_RANGE_TO, &tt))) return st;
        k = cur(p);
        if (k != K_RANGE_GOOP && k != K_RANGE_QUOTED && k != K_RANGE_TO) {
            note(p, BIT(K_RANGE_GOOP) | BIT(K_RANGE_QUOTED) | BIT(K_RANGE_TO));
            return syntax_error(p, -1);
        }
        g2 = tok(p);
        consume(p);
        k = cur(p);
        if (k != K_RANGEIN_END && k != K_RANGEEX_END) {
            note(p, BIT(K_RANGEIN_END) | BIT(K_RANGEEX_END));
            return syntax_error(p, -1);
        }
        bool end_incl = k == K_RANGEIN_END;
        consume(p);
        if (cur(p) == K_CARAT) {
            consume(p);
            qtok *bt = NULL;
            if ((st = expect(p, K_NUMBER, &bt))) return st;
            boost = bt;
        } else {
            note(p, BIT(K_CARAT));
        }
        if (p->lex_hit) return lex_error(p);
        const char *a = p->s + g1->start, *bb = p->s + g2->start;
        size_t al = g1->len, bl = g2->len;
        bool open1 = false, open2 = false;
        if (g1->kind == K_RANGE_QUOTED) { a++; al -= 2; }
        else if (is_all(a, al)) open1 = true;
        if (g2->kind == K_RANGE_QUOTED) { bb++; bl -= 2; }
        else if (is_all(bb, bl)) open2 = true;
        const char *lo = NULL, *hi = NULL;
        size_t lol = 0, hil = 0;
        if (!open1 && (st = discard_escapes(p, a, al, &lo, &lol))) return st;
        if (!open2 && (st = discard_escapes(p, bb, bl, &hi, &hil))) return st;
        tv_query *q = NULL;
        if ((st = get_range(p, field, flen, lo, lol, hi, hil, start_incl, end_incl, &q))) return st;
        handle_boost(p, q, boost);
        *out = q;
        return TROVE_OK;
    }
    const qtok *term = tok(p);
    bool quoted = k == K_QUOTED;
    consume(p);
    if (cur(p) == K_CARAT) {
        consume(p);
        qtok *bt = NULL;
        if ((st = expect(p, K_NUMBER, &bt))) return st;
        boost = bt;
        if (cur(p) == K_FUZZY_SLOP) {
            fslop = tok(p);
            consume(p);
        } else {
            note(p, BIT(K_FUZZY_SLOP));
        }
    } else if (cur(p) == K_FUZZY_SLOP) {
        fslop = tok(p);
        consume(p);
        if (cur(p) == K_CARAT) {
            consume(p);
            qtok *bt = NULL;
            if ((st = expect(p, K_NUMBER, &bt))) return st;
            boost = bt;
        } else {
            note(p, BIT(K_CARAT));
        }
    } else {
        note(p, BIT(K_CARAT) | BIT(K_FUZZY_SLOP));
    }
    if (p->lex_hit) return lex_error(p);
    const char *img = p->s + term->start;
    size_t il = term->len;
    tv_query *q = NULL;
    if (quoted) {
        uint32_t slop = p->c->phrase_slop;
        if (fslop) {
            float f;
            if (java_float(p->s + fslop->start + 1, fslop->len - 1, &f) && !isnan(f))
                slop = f <= 0 ? 0 : f >= 2147483647.0f ? 2147483647u : (uint32_t)f;
        }
        const char *text;
        size_t tl;
        if ((st = discard_escapes(p, img + 1, il - 2, &text, &tl))) return st;
        if ((st = get_phrase_query(p, field, flen, text, tl, slop, &q))) return st;
    } else {
        if (k == K_BAREOPER) il = 1;
        const char *text;
        size_t tl;
        if ((st = discard_escapes(p, img, il, &text, &tl))) return st;
        if (k == K_STAR || k == K_WILDTERM) {
            st = get_wildcard(p, field, flen, img, il, &q);
        } else if (k == K_PREFIXTERM) {
            const char *pt;
            size_t pl;
            if ((st = discard_escapes(p, img, il - 1, &pt, &pl))) return st;
            tv_qs_fields fs;
            if ((st = extract_fields(p, field, flen, false, &fs))) return st;
            st = tv_qs_prefix_query(p->c, &fs, pt, pl, p->c->tie, &q);
        } else if (k == K_REGEXPTERM) {
            st = get_regexp(p, field, flen, img + 1, il - 2, &q);
        } else if (fslop) {
            st = get_fuzzy(p, field, flen, fslop, text, tl, &q);
        } else {
            st = get_field_query(p, field, flen, text, tl, &q);
        }
        if (st) return st;
    }
    (void)d;
    handle_boost(p, q, boost);
    *out = q;
    return TROVE_OK;
}

/* Clause(field). */
static tv_status parse_clause(qp *p, const char *field, size_t flen, tv_query **out) {
    tv_status st;
    *out = NULL;
    int k = cur(p);
    if ((k == K_TERM || k == K_STAR) && kind_at(p, 1) == K_COLON) {
        if (k == K_TERM) {
            const qtok *t = tok(p);
            if ((st = discard_escapes(p, p->s + t->start, t->len, &field, &flen))) return st;
        } else {
            field = "*";
            flen = 1;
        }
        consume(p);
        consume(p);
    } else {
        note_la(p, 4);
    }
    if (p->lex_hit) return lex_error(p);
    k = cur(p);
    if (p->lex_hit) return lex_error(p);
    if (SET_TERM_FIRST & BIT(k)) return parse_term(p, field, flen, out);
    if (k == K_LPAREN) {
        consume(p);
        tv_query *q = NULL;
        if ((st = parse_query(p, field, flen, &q))) return st;
        if ((st = expect(p, K_RPAREN, NULL))) return st;
        const qtok *boost = NULL;
        if (cur(p) == K_CARAT) {
            consume(p);
            qtok *bt = NULL;
            if ((st = expect(p, K_NUMBER, &bt))) return st;
            boost = bt;
        } else {
            note(p, BIT(K_CARAT));
        }
        if (p->lex_hit) return lex_error(p);
        handle_boost(p, q, boost);
        *out = q;
        return TROVE_OK;
    }
    note(p, SET_CLAUSE);
    return syntax_error(p, -1);
}

static int conjunction(qp *p) {
    int k = cur(p);
    if (k == K_AND) { consume(p); return CONJ_AND; }
    if (k == K_OR) { consume(p); return CONJ_OR; }
    note(p, BIT(K_AND) | BIT(K_OR));
    return CONJ_NONE;
}

static int modifiers(qp *p) {
    int k = cur(p);
    if (k == K_PLUS) { consume(p); return MOD_REQ; }
    if (k == K_MINUS || k == K_NOT) { consume(p); return MOD_NOT; }
    note(p, SET_MODS);
    return MOD_NONE;
}

/* Query(field). */
static tv_status parse_query(qp *p, const char *field, size_t flen, tv_query **out) {
    *out = NULL;
    if (++p->depth > 200) {
        return parse_msg(p, "query is too deeply nested");
    }
    clause_vec cl = {0};
    tv_query *first = NULL, *q;
    tv_status st = TROVE_OK;
    if (multiterm_ahead(p, 1)) {
        st = parse_multiterm(p, field, flen, &cl, &first);
    } else if (p->lex_hit) {
        st = lex_error(p);
    } else if (SET_MODCLAUSE & BIT(cur(p))) {
        int mods = modifiers(p);
        st = parse_clause(p, field, flen, &q);
        if (!st) st = add_clause(p, &cl, CONJ_NONE, mods, q);
        if (!st && mods == MOD_NONE) first = q;
    } else {
        note(p, SET_MODCLAUSE);
        st = syntax_error(p, -1);
    }
    while (!st) {
        if (multiterm_ahead(p, 2)) {
            st = parse_multiterm(p, field, flen, &cl, NULL);
            continue;
        }
        if (p->lex_hit) { st = lex_error(p); break; }
        if (!(SET_LOOP & BIT(cur(p)))) {
            note(p, SET_LOOP);
            break;
        }
        note_la(p, 3); /* LOOKAHEAD(2) MultiTerm of the loop body failed here */
        int conj = conjunction(p);
        int mods = modifiers(p);
        st = parse_clause(p, field, flen, &q);
        if (!st) st = add_clause(p, &cl, conj, mods, q);
    }
    if (!st) {
        if (cl.len == 1 && first) *out = first;
        else st = boolean_of(p, &cl, out);
    }
    tv_vec_fini(&cl);
    p->depth--;
    return st;
}

/* Lucene's QueryParser.escape. */
static tv_status escape_query(tv_dsl *d, const char *s, size_t n, const char **out, size_t *out_len) {
    char *o = tv_arena_alloc(d->arena, 2 * n + 1);
    if (!o) return oom(d);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (strchr("\\+-!():^[]\"{}~*?|&/", s[i]) && s[i]) o[w++] = '\\';
        o[w++] = s[i];
    }
    o[w] = 0;
    *out = o;
    *out_len = w;
    return TROVE_OK;
}

/* Tokenizes and parses the text; the result may be NULL (nothing left). */
static tv_status run_parser(qp *p, tv_query **out) {
    tv_dsl *d = p->c->d;
    size_t cap = 16;
    p->toks = tv_arena_alloc(d->arena, cap * sizeof *p->toks);
    if (!p->toks) return oom(d);
    lexer lx = {p->s, p->n, 0, ST_DEFAULT};
    for (;;) {
        if (p->ntoks == cap) {
            qtok *nt = tv_arena_alloc(d->arena, 2 * cap * sizeof *nt);
            if (!nt) return oom(d);
            memcpy(nt, p->toks, cap * sizeof *nt);
            p->toks = nt;
            cap *= 2;
        }
        qtok *t = &p->toks[p->ntoks];
        if (!lex_next(&lx, t, &p->lerr)) {
            t->kind = K_LEXERR;
            t->start = (uint32_t)lx.pos;
            t->len = 0;
            t->col = 0;
            p->ntoks++;
            break;
        }
        p->ntoks++;
        if (t->kind == K_EOF) break;
    }
    p->exp_at = SIZE_MAX;
    tv_query *q = NULL;
    tv_status st = parse_query(p, p->dfield, p->dfield_len, &q);
    if (st) return st;
    if (cur(p) != K_EOF) return syntax_error(p, K_EOF);
    *out = q;
    return TROVE_OK;
}

/* Turns a ParseException message into OpenSearch's error. */
static tv_status parse_failure(tv_qs_ctx *c, const char *q, size_t qn, const char *parsed, size_t pn,
                               const char *msg) {
    tv_dsl *d = c->d;
    if (!d->err) return TROVE_EQUERYSHARD;
    tv_dsl_error(d, TROVE_EQUERYSHARD, c->off, "Failed to parse query [%.*s]", (int)TV_MIN(qn, 900), q);
    tv_error_cause(d->err, TROVE_EPARSEEXC, "Cannot parse '%.*s': %s", (int)TV_MIN(pn, 400), parsed, msg);
    return TROVE_EQUERYSHARD;
}

static tv_status operator_of(tv_dsl *d, const tv_json *v, bool *and_op) {
    const char *s;
    size_t n;
    if (!tv_dsl_scalar_text(v, &s, &n)) s = "", n = 0;
    if (n == 3 && strncasecmp(s, "and", 3) == 0) *and_op = true;
    else if (n == 2 && strncasecmp(s, "or", 2) == 0) *and_op = false;
    else
        return tv_dsl_error(d, TROVE_EARG, v->off, "operator needs to be either [AND, OR], but not [%.*s]",
                            (int)TV_MIN(n, 200), s);
    return TROVE_OK;
}

static tv_status int_param(tv_dsl *d, const char *qn, const char *key, const tv_json *v, int64_t *out) {
    tv_status st = tv_dsl_int(d, qn, key, v, out);
    if (st) return st;
    if (*out < INT32_MIN || *out > INT32_MAX)
        return tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] failed to parse field [%s]", qn, key);
    return TROVE_OK;
}

tv_status tv_dsl_parse_query_string(tv_dsl *d, const tv_json *body, tv_query **out) {
    static const char QN[] = "query_string";
    tv_qs_ctx c;
    tv_qs_ctx_init(&c, d, QN);
    const tv_json *query = NULL, *fields = NULL, *dfield = NULL, *msm = NULL;
    float boost = 1.0f;
    bool tie_set = false, lenient_set = false, escape = false;
    tv_status st = TROVE_OK;
    for (uint32_t i = 0; i < body->len && !st; i++) {
        const tv_json_member *m = &body->v.members[i];
        const char *k = m->key;
        size_t kl = m->key_len;
        const tv_json *v = &m->val;
        if (v->type == TV_JSON_ARRAY) {
            if (tv_streq(k, kl, "fields")) fields = v;
            else st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] query does not support [%s]", QN, k);
            continue;
        }
        if (v->type == TV_JSON_OBJECT) {
            st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] unknown token [START_OBJECT] after [%s]", QN, k);
            continue;
        }
        const char *s;
        size_t n;
        bool txt = tv_dsl_scalar_text(v, &s, &n);
        if (!txt) s = NULL, n = 0;
        if (tv_streq(k, kl, "query")) query = v;
        else if (tv_streq(k, kl, "default_field")) dfield = v;
        else if (tv_streq(k, kl, "default_operator")) st = operator_of(d, v, &c.and_op);
        else if (tv_streq(k, kl, "analyzer")) st = tv_qs_analyzer(&c, "analyzer", v, &c.analyzer);
        else if (tv_streq(k, kl, "quote_analyzer")) st = tv_qs_analyzer(&c, "quote_analyzer", v, &c.quote_analyzer);
        else if (tv_streq(k, kl, "allow_leading_wildcard")) st = tv_dsl_bool(d, QN, k, v, &c.allow_leading_wildcard);
        else if (tv_streq(k, kl, "max_determinized_states")) {
            int64_t x;
            st = int_param(d, QN, k, v, &x);
            c.max_states = (int)(x <= 0 ? 1 : x);
        } else if (tv_streq(k, kl, "enable_position_increments")) {
            bool b;
            st = tv_dsl_bool(d, QN, k, v, &b);
        } else if (tv_streq(k, kl, "escape")) st = tv_dsl_bool(d, QN, k, v, &escape);
        else if (tv_streq(k, kl, "fuzzy_prefix_length")) st = int_param(d, QN, k, v, &c.fuzzy_prefix);
        else if (tv_streq(k, kl, "fuzzy_max_expansions")) st = int_param(d, QN, k, v, &c.fuzzy_max_exp);
        else if (tv_streq(k, kl, "fuzzy_rewrite") || tv_streq(k, kl, "rewrite") || tv_streq(k, kl, "_name")) ;
        else if (tv_streq(k, kl, "phrase_slop")) {
            int64_t x;
            st = int_param(d, QN, k, v, &x);
            if (!st && x < 0) st = tv_dsl_error(d, TROVE_EARG, v->off, "No negative slop allowed.");
            c.phrase_slop = (uint32_t)(x < 0 ? 0 : x);
        } else if (tv_streq(k, kl, "fuzziness")) {
            if (!txt) st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] failed to parse field [fuzziness]", QN);
            else if (tv_fuzziness_distance(s, n, "abc", 3) < 0)
                st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] failed to parse field [fuzziness]", QN);
            c.fuzziness = s;
            c.fuzziness_len = n;
        } else if (tv_streq(k, kl, "boost")) st = tv_dsl_float(d, QN, k, v, &boost);
        else if (tv_streq(k, kl, "type")) {
            if (tv_streq(s, n, "best_fields") || tv_streq(s, n, "boolean")) c.type = TV_QS_BEST_FIELDS;
            else if (tv_streq(s, n, "most_fields")) c.type = TV_QS_MOST_FIELDS;
            else if (tv_streq(s, n, "phrase")) c.type = TV_QS_PHRASE;
            else if (tv_streq(s, n, "phrase_prefix")) c.type = TV_QS_PHRASE_PREFIX;
            else if (tv_streq(s, n, "cross_fields") || tv_streq(s, n, "bool_prefix"))
                st = tv_dsl_error(d, TROVE_EUNSUPPORTED, v->off, "[%s] type [%.*s] is not supported by trove", QN, (int)n, s);
            else
                st = tv_dsl_error(d, TROVE_EPARSEEXC, v->off, "failed to parse [multi_match] query type [%.*s]. unknown type.",
                                  (int)TV_MIN(n, 200), s ? s : "");
        } else if (tv_streq(k, kl, "tie_breaker")) {
            st = tv_dsl_float(d, QN, k, v, &c.tie);
            tie_set = true;
        } else if (tv_streq(k, kl, "analyze_wildcard")) st = tv_dsl_bool(d, QN, k, v, &c.analyze_wildcard);
        else if (tv_streq(k, kl, "minimum_should_match")) msm = v;
        else if (tv_streq(k, kl, "quote_field_suffix")) {
            c.quote_suffix = s;
            c.quote_suffix_len = n;
        } else if (tv_streq(k, kl, "lenient")) {
            st = tv_dsl_bool(d, QN, k, v, &c.lenient);
            lenient_set = true;
        } else if (tv_streq(k, kl, "time_zone")) {
            int32_t tz;
            tv_error e = TV_ERROR_INIT;
            if (!txt || tv_date_parse_tz(s, n, &tz, &e))
                st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] time_zone [%.*s] is unknown", QN, (int)n, s ? s : "");
            c.time_zone = s;
            c.time_zone_len = n;
        } else if (tv_streq(k, kl, "auto_generate_synonyms_phrase_query")) {
            bool b;
            st = tv_dsl_bool(d, QN, k, v, &b);
        } else if (tv_streq(k, kl, "fuzzy_transpositions")) st = tv_dsl_bool(d, QN, k, v, &c.fuzzy_transpositions);
        else st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] query does not support [%s]", QN, k);
    }
    if (st) return st;
    const char *qs;
    size_t qn;
    if (!query || !tv_dsl_scalar_text(query, &qs, &qn))
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "[%s] must be provided with a [query]", QN);
    c.off = query->off;
    if (!tie_set) c.tie = c.type == TV_QS_MOST_FIELDS ? 1.0f : 0.0f;
    if (fields && fields->len > 0 && dfield)
        return tv_dsl_error(d, TROVE_EVALIDATION, body->off,
                            "Validation Failed: 1: cannot use [fields] parameter in conjunction with [default_field];");
    /* the fields, and leniency (true by default with the all-fields `*`) */
    tv_qs_fields fs = {0};
    const char *dfn = NULL;
    size_t dfl = 0;
    bool all = false;
    if (dfield && tv_dsl_scalar_text(dfield, &dfn, &dfl)) {
        all = is_all(dfn, dfl);
        st = tv_qs_add_fields(&c, &fs, dfn, dfl, 1.0f, NULL, 0);
    } else if (fields && fields->len > 0) {
        st = tv_qs_fields_from_json(&c, fields, &fs, &all);
    } else {
        /* index.query.default_field: "*" */
        dfn = "*";
        dfl = 1;
        all = true;
        st = tv_qs_add_fields(&c, &fs, "*", 1, 1.0f, NULL, 0);
    }
    if (st) return st;
    if (all && !lenient_set) c.lenient = true;
    tv_query *q = NULL;
    /* QueryStringQueryParser.parse: blank text matches nothing */
    bool blank = true;
    for (size_t i = 0; i < qn; i++)
        if ((unsigned char)qs[i] > ' ') blank = false;
    if (!blank) {
        const char *ps = qs;
        size_t pn = qn;
        if (escape && (st = escape_query(d, qs, qn, &ps, &pn))) return st;
        qp *p = tv_arena_calloc(d->arena, 1, sizeof *p);
        if (!p) return oom(d);
        p->c = &c;
        p->s = ps;
        p->n = pn;
        p->dfield = dfn;
        p->dfield_len = dfl;
        p->fields = &fs;
        st = run_parser(p, &q);
        if (st == TROVE_EPARSEEXC) return parse_failure(&c, qs, qn, ps, pn, p->pmsg);
        if (st) return tv_qs_wrap_error(&c, st);
    }
    if (!q) {
        q = none(d);
        if (!q) return oom(d);
    }
    if ((st = fix_negative(d, q))) return st;
    if ((st = tv_qs_apply_msm(&c, q, msm))) return st;
    if (boost != 1.0f) q->boost *= boost;
    *out = q;
    return TROVE_OK;
}

/* ------------------------------------------------------------ URI search */

tv_status tv_query_string_from_params(tv_arena *arena, const tv_search_params *p, const tv_json **out) {
    tv_dsl d = {0};
    d.arena = arena;
    *out = NULL;
    if (!p || !p->q) return TROVE_OK;
    uint32_t n = 1 + (p->df ? 1 : 0) + (p->default_operator ? 1 : 0) + (p->analyzer ? 1 : 0);
    tv_json *in = jobj(&d, n, 0);
    tv_json *v = jstr(&d, p->q, strlen(p->q), 0);
    if (!in || !v) return TROVE_ENOMEM;
    jput(in, "query", 5, v);
    if (p->df) {
        if (!(v = jstr(&d, p->df, strlen(p->df), 0))) return TROVE_ENOMEM;
        jput(in, "default_field", 13, v);
    }
    if (p->default_operator) {
        if (!(v = jstr(&d, p->default_operator, strlen(p->default_operator), 0))) return TROVE_ENOMEM;
        jput(in, "default_operator", 16, v);
    }
    if (p->analyzer) {
        if (!(v = jstr(&d, p->analyzer, strlen(p->analyzer), 0))) return TROVE_ENOMEM;
        jput(in, "analyzer", 8, v);
    }
    tv_json *o = jobj(&d, 1, 0);
    if (!o) return TROVE_ENOMEM;
    jput(o, "query_string", 12, in);
    *out = o;
    return TROVE_OK;
}

/* --------------------------------------------------------- debug printer */

static void print_float(tv_buf *b, float f) {
    char tmp[48];
    tv_fmt_float(f, tmp);
    tv_buf_puts(b, tmp);
}

static void print_num(tv_buf *b, const tv_query *q, int64_t v) {
    if (q->field && tv_field_type_is_floating(q->field->type)) {
        char tmp[48];
        tv_fmt_double(tv_sortable_to_double(v), tmp);
        tv_buf_puts(b, tmp);
    } else {
        tv_buf_printf(b, "%lld", (long long)v);
    }
}

static const char *fname(const tv_query *q) {
    if (q->field_id == TV_FIELD_ID) return "_id";
    return q->field ? q->field->path : "?";
}

static void print_q(tv_buf *b, const tv_query *q);

static void print_clause(tv_buf *b, const char *occ, const tv_query *c, bool *first) {
    if (!*first) tv_buf_putc(b, ' ');
    *first = false;
    tv_buf_puts(b, occ);
    bool paren = c->kind == TV_Q_BOOL && c->boost == 1.0f;
    if (paren) tv_buf_putc(b, '(');
    print_q(b, c);
    if (paren) tv_buf_putc(b, ')');
}

static void print_inner(tv_buf *b, const tv_query *q) {
    switch ((tv_qkind)q->kind) {
    case TV_Q_MATCH_ALL: tv_buf_puts(b, "*:*"); break;
    case TV_Q_MATCH_NONE: tv_buf_puts(b, "MatchNoDocsQuery(\"\")"); break;
    case TV_Q_TERM:
        tv_buf_printf(b, "%s:", fname(q));
        tv_buf_append(b, q->u.term.term, q->u.term.len);
        break;
    case TV_Q_PHRASE:
    case TV_Q_PHRASE_PREFIX: {
        tv_buf_printf(b, "%s:\"", fname(q));
        uint32_t pos = 0;
        for (uint32_t i = 0; i < q->u.phrase.nterms; i++) {
            const tv_qterm *t = &q->u.phrase.terms[i];
            if (i) tv_buf_putc(b, t->pos == pos ? '|' : ' ');
            while (pos + 1 < t->pos) { tv_buf_puts(b, "? "); pos++; }
            pos = t->pos;
            tv_buf_append(b, t->term, t->len);
        }
        if (q->kind == TV_Q_PHRASE_PREFIX) tv_buf_putc(b, '*');
        tv_buf_putc(b, '"');
        if (q->u.phrase.slop) tv_buf_printf(b, "~%u", q->u.phrase.slop);
        break;
    }
    case TV_Q_BOOL: {
        bool msm = q->u.boolq.msm > 0;
        if (msm) tv_buf_putc(b, '(');
        bool first = true;
        for (uint32_t i = 0; i < q->u.boolq.nmust; i++) print_clause(b, "+", q->u.boolq.must[i], &first);
        for (uint32_t i = 0; i < q->u.boolq.nfilter; i++) print_clause(b, "#", q->u.boolq.filter[i], &first);
        for (uint32_t i = 0; i < q->u.boolq.nshould; i++) print_clause(b, "", q->u.boolq.should[i], &first);
        for (uint32_t i = 0; i < q->u.boolq.nmust_not; i++) print_clause(b, "-", q->u.boolq.must_not[i], &first);
        if (msm) tv_buf_printf(b, ")~%d", q->u.boolq.msm);
        break;
    }
    case TV_Q_DISMAX:
        tv_buf_putc(b, '(');
        for (uint32_t i = 0; i < q->u.dismax.nsubs; i++) {
            if (i) tv_buf_puts(b, " | ");
            print_q(b, q->u.dismax.subs[i]);
        }
        tv_buf_putc(b, ')');
        if (q->u.dismax.tie_breaker != 0.0f) {
            tv_buf_putc(b, '~');
            print_float(b, q->u.dismax.tie_breaker);
        }
        break;
    case TV_Q_CONST:
        tv_buf_puts(b, "ConstantScore(");
        print_q(b, q->u.cnst.inner);
        tv_buf_putc(b, ')');
        break;
    case TV_Q_BOOSTING:
        tv_buf_puts(b, "Boosting(");
        print_q(b, q->u.boosting.positive);
        tv_buf_puts(b, ", ");
        print_q(b, q->u.boosting.negative);
        tv_buf_putc(b, ')');
        break;
    case TV_Q_TERM_SET:
        tv_buf_printf(b, "%s:(", fname(q));
        for (uint32_t i = 0; i < q->u.set.nterms; i++) {
            if (i) tv_buf_putc(b, ' ');
            tv_buf_append(b, q->u.set.terms[i].term, q->u.set.terms[i].len);
        }
        tv_buf_putc(b, ')');
        break;
    case TV_Q_MULTI_TERM: {
        const tv_term_matcher *m = &q->u.multi.m;
        if (m->accept == labelled_accept) {
            tv_buf_puts(b, ((const labelled *)m->state)->label);
        } else if (!m->accept && m->prefix) {
            tv_buf_printf(b, "%s:", fname(q));
            tv_buf_append(b, m->prefix, m->prefix_len);
            if (!m->exact) tv_buf_putc(b, '*');
        } else {
            tv_buf_printf(b, "%s:/<automaton>/", fname(q));
        }
        break;
    }
    case TV_Q_RANGE_NUM:
        tv_buf_printf(b, "%s:[", fname(q));
        print_num(b, q, q->u.nrange.lo);
        tv_buf_puts(b, " TO ");
        print_num(b, q, q->u.nrange.hi);
        tv_buf_putc(b, ']');
        break;
    case TV_Q_RANGE_TERM:
        tv_buf_printf(b, "%s:%c", fname(q), q->u.trange.lo_incl ? '[' : '{');
        if (q->u.trange.lo) tv_buf_append(b, q->u.trange.lo, q->u.trange.lo_len);
        else tv_buf_putc(b, '*');
        tv_buf_puts(b, " TO ");
        if (q->u.trange.hi) tv_buf_append(b, q->u.trange.hi, q->u.trange.hi_len);
        else tv_buf_putc(b, '*');
        tv_buf_putc(b, q->u.trange.hi_incl ? ']' : '}');
        break;
    case TV_Q_EXISTS:
        tv_buf_printf(b, "FieldExistsQuery [field=%s]", fname(q));
        break;
    case TV_Q_EXT:
        if (q->u.ext.prepare == fw_prepare) tv_buf_puts(b, ((const fuzzy_wrap *)q->u.ext.state)->label);
        else tv_buf_printf(b, "%s:<ext>", fname(q));
        break;
    }
}

static void print_q(tv_buf *b, const tv_query *q) {
    if (q->boost != 1.0f) {
        tv_buf_putc(b, '(');
        print_inner(b, q);
        tv_buf_puts(b, ")^");
        print_float(b, q->boost);
    } else {
        print_inner(b, q);
    }
}

char *tv_query_debug_string(const tv_query *q, tv_arena *arena) {
    tv_buf b;
    tv_buf_init(&b);
    if (q) print_q(&b, q);
    else tv_buf_puts(&b, "null");
    char *r = b.oom ? NULL : tv_arena_strndup(arena, b.data ? b.data : "", b.len);
    tv_buf_fini(&b);
    return r;
}
