/*
 * simple_query_string.c — the `simple_query_string` query: Lucene's
 * SimpleQueryParser as OpenSearch's SimpleQueryStringBuilder /
 * SimpleQueryStringQueryParser run it.
 *
 * The parser is Lucene's character state machine, rebuilt: it never fails
 * on syntax. Operators (each switchable by `flags`): `+` AND, `|` OR,
 * `-` NOT (an odd count negates the next term, phrase or group), `"..."`
 * phrase with optional `~N` slop (NEAR), `term*` prefix, `term~N` fuzzy
 * (`~` alone = 2 edits, 0 = a plain term), `( )` precedence, `\` escape,
 * white space. Unbalanced quotes or parentheses are ignored. The tree is
 * built left to right: when the operator changes, the query so far becomes
 * the first clause of a new bool (so `a | b + c` is `+(a b) +c`); an
 * operator before any term is ignored; a negated branch becomes
 * bool(-x, *:*) as Lucene builds it.
 *
 * Per-field work is OpenSearch's: plain text is a most_fields multi-match
 * over the field list (dis_max with tie 1.0 of per-field term / bool /
 * phrase, analyzed with each field's search analyzer), phrases use the
 * quote analyzer and quote_field_suffix, prefix and fuzzy terms are
 * normalized, not analyzed (analyze_wildcard analyzes prefixes). Failures
 * per field (a word on a number field) are errors unless `lenient`, which
 * defaults to true when the fields are `*` (the index default). The
 * shared machinery lives in query_string.c (query_string.h).
 *
 * Alternative rejected: reusing the query_string grammar with a different
 * token table — the two parsers disagree on nearly every edge (operators
 * inside words, unbalanced quotes, operator precedence), and users rely on
 * simple_query_string never failing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "query/query_string.h"

#define F_AND 1
#define F_NOT 2
#define F_OR 4
#define F_PREFIX 8
#define F_PHRASE 16
#define F_PRECEDENCE 32
#define F_ESCAPE 64
#define F_WHITESPACE 128
#define F_FUZZY 256
#define F_NEAR 512
#define F_ALL (-1)

enum { OCC_NONE = -1, OCC_MUST = 0, OCC_SHOULD = 1 };

static tv_status oom(tv_dsl *d) {
    if (d->err) tv_error_oom(d->err);
    return TROVE_ENOMEM;
}

typedef struct sqp {
    tv_qs_ctx *c;
    const tv_qs_fields *fields;
    const tv_qs_fields *phrase_fields;
    int flags;
    int default_occ;
    const char *data;
    char *buffer;
    int depth;
} sqp;

typedef struct sstate {
    size_t index, length;
    int current, previous; /* occurs (OCC_NONE unset) */
    int not;
    tv_query *top;
} sstate;

static bool flag(const sqp *p, int f) { return (p->flags & f) != 0; }

static bool token_finished(const sqp *p, const sstate *s) {
    char ch = p->data[s->index];
    return (ch == '"' && flag(p, F_PHRASE)) || (ch == '|' && flag(p, F_OR)) || (ch == '+' && flag(p, F_AND)) ||
           (ch == '(' && flag(p, F_PRECEDENCE)) || (ch == ')' && flag(p, F_PRECEDENCE)) ||
           ((ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') && flag(p, F_WHITESPACE));
}

/* Appends a clause to a (fresh copy of a) bool. */
static tv_query *add_clause(tv_dsl *d, tv_query *bq, tv_query *q, int occ) {
    tv_query **must = bq->u.boolq.must, **should = bq->u.boolq.should;
    uint32_t nm = bq->u.boolq.nmust, ns = bq->u.boolq.nshould;
    tv_query **tmp = tv_arena_alloc(d->arena, (nm + ns + 1) * sizeof *tmp);
    if (!tmp) return NULL;
    if (nm) memcpy(tmp, must, nm * sizeof *tmp);
    if (ns) memcpy(tmp + nm, should, ns * sizeof *tmp);
    if (occ == OCC_MUST) {
        tmp[nm++] = q;
    } else {
        tmp[nm + ns] = q;
        ns++;
    }
    tv_query *r = tv_qs_bool(d, tmp, nm, tmp + nm, ns, bq->u.boolq.must_not, bq->u.boolq.nmust_not);
    if (r) r->u.boolq.msm = bq->u.boolq.msm;
    return r;
}

static tv_status build_tree(sqp *p, sstate *s, tv_query *branch) {
    tv_dsl *d = p->c->d;
    if (!branch) return TROVE_OK;
    if (s->not % 2 == 1) {
        tv_query *all = tv_q_new(d, TV_Q_MATCH_ALL);
        if (!all) return oom(d);
        tv_query *nb = tv_qs_bool(d, NULL, 0, &all, 1, &branch, 1);
        if (!nb) return oom(d);
        branch = nb;
    }
    if (!s->top) {
        s->top = branch;
    } else {
        if (s->current == OCC_NONE) s->current = p->default_occ;
        if (s->previous != s->current) {
            tv_query *t = s->top;
            tv_query *nb = s->current == OCC_MUST ? tv_qs_bool(d, &t, 1, NULL, 0, NULL, 0)
                                                  : tv_qs_bool(d, NULL, 0, &t, 1, NULL, 0);
            if (!nb) return oom(d);
            s->top = nb;
        }
        s->top = add_clause(d, s->top, branch, s->current);
        if (!s->top) return oom(d);
        s->previous = s->current;
    }
    s->current = OCC_NONE;
    return TROVE_OK;
}

/* ~N after a term or phrase (0 when it does not parse). */
static int parse_fuzziness(sqp *p, sstate *s) {
    if (p->data[s->index] != '~') return 0;
    char txt[32];
    size_t tl = 0;
    bool overflow = false;
    while (s->index < s->length) {
        s->index++;
        if (s->index < s->length) {
            if (token_finished(p, s)) break;
            if (tl < sizeof txt - 1) txt[tl++] = p->data[s->index];
            else overflow = true;
        }
    }
    if (tl == 0) return 2;
    if (overflow) return 0;
    txt[tl] = 0;
    int64_t v;
    /* Integer.parseInt: optional sign, digits */
    const char *t = txt;
    size_t n = tl;
    if (t[0] == '+' && n > 1) { t++; n--; }
    if (!tv_parse_i64(t, n, &v) || v > INT32_MAX || v < INT32_MIN) return 0;
    return v < 0 ? 0 : (int)v;
}

static tv_status parse_sub(sqp *p, sstate *s);

static tv_status consume_subquery(sqp *p, sstate *s) {
    size_t start = ++s->index;
    int prec = 1;
    bool escaped = false;
    while (s->index < s->length) {
        char ch = p->data[s->index];
        if (!escaped) {
            if (ch == '\\' && flag(p, F_ESCAPE)) {
                escaped = true;
                s->index++;
                continue;
            } else if (ch == '(') {
                prec++;
            } else if (ch == ')') {
                if (--prec == 0) break;
            }
        }
        escaped = false;
        s->index++;
    }
    if (s->index == s->length) {
        s->index = start;
    } else if (s->index == start) {
        s->current = OCC_NONE;
        s->index++;
    } else {
        if (++p->depth > 200) {
            s->index++;
            p->depth--;
            return TROVE_OK; /* deeper groups are dropped rather than recursed into */
        }
        sstate sub = {start, s->index, OCC_NONE, OCC_NONE, 0, NULL};
        tv_status st = parse_sub(p, &sub);
        p->depth--;
        if (st) return st;
        if ((st = build_tree(p, s, sub.top))) return st;
        s->index++;
    }
    return TROVE_OK;
}

static tv_status consume_phrase(sqp *p, sstate *s) {
    size_t start = ++s->index;
    size_t copied = 0;
    bool escaped = false, has_slop = false;
    while (s->index < s->length) {
        char ch = p->data[s->index];
        if (!escaped) {
            if (ch == '\\' && flag(p, F_ESCAPE)) {
                escaped = true;
                s->index++;
                continue;
            } else if (ch == '"') {
                if (s->length > s->index + 1 && p->data[s->index + 1] == '~' && flag(p, F_NEAR)) {
                    s->index++;
                    if (s->length > s->index + 1) has_slop = true;
                }
                break;
            }
        }
        escaped = false;
        p->buffer[copied++] = p->data[s->index++];
    }
    if (s->index == s->length) {
        s->index = start;
    } else if (s->index == start) {
        s->current = OCC_NONE;
        s->index++;
    } else {
        int slop = has_slop ? parse_fuzziness(p, s) : 0;
        tv_query *q = NULL;
        tv_status st = tv_qs_text_query(p->c, p->phrase_fields, p->buffer, copied, TV_QS_M_PHRASE,
                                        (uint32_t)slop, 1.0f, &q);
        if (st) return st;
        if ((st = build_tree(p, s, q))) return st;
        s->index++;
    }
    return TROVE_OK;
}

static tv_status consume_token(sqp *p, sstate *s) {
    size_t copied = 0;
    bool escaped = false, prefix = false, fuzzy = false;
    while (s->index < s->length) {
        char ch = p->data[s->index];
        if (!escaped) {
            if (ch == '\\' && flag(p, F_ESCAPE)) {
                escaped = true;
                prefix = false;
                s->index++;
                continue;
            } else if (token_finished(p, s)) {
                break;
            } else if (copied > 0 && ch == '~' && flag(p, F_FUZZY)) {
                fuzzy = true;
                break;
            }
            prefix = copied > 0 && ch == '*' && flag(p, F_PREFIX);
        }
        escaped = false;
        p->buffer[copied++] = p->data[s->index++];
    }
    if (copied == 0) return TROVE_OK;
    tv_query *q = NULL;
    tv_status st;
    if (fuzzy && flag(p, F_FUZZY)) {
        int fz = parse_fuzziness(p, s);
        if (fz > 2) fz = 2;
        if (fz == 0)
            st = tv_qs_text_query(p->c, p->fields, p->buffer, copied, TV_QS_M_BOOLEAN, 0, 1.0f, &q);
        else
            st = tv_qs_fuzzy_query(p->c, p->fields, p->buffer, copied, fz, 1.0f, &q);
    } else if (prefix) {
        st = tv_qs_prefix_query(p->c, p->fields, p->buffer, copied - 1, 1.0f, &q);
    } else {
        st = tv_qs_text_query(p->c, p->fields, p->buffer, copied, TV_QS_M_BOOLEAN, 0, 1.0f, &q);
    }
    if (st) return st;
    return build_tree(p, s, q);
}

static tv_status parse_sub(sqp *p, sstate *s) {
    tv_status st = TROVE_OK;
    while (s->index < s->length && !st) {
        char ch = p->data[s->index];
        if (ch == '(' && flag(p, F_PRECEDENCE)) {
            st = consume_subquery(p, s);
        } else if (ch == ')' && flag(p, F_PRECEDENCE)) {
            s->index++;
        } else if (ch == '"' && flag(p, F_PHRASE)) {
            st = consume_phrase(p, s);
        } else if (ch == '+' && flag(p, F_AND)) {
            if (s->current == OCC_NONE && s->top) s->current = OCC_MUST;
            s->index++;
        } else if (ch == '|' && flag(p, F_OR)) {
            if (s->current == OCC_NONE && s->top) s->current = OCC_SHOULD;
            s->index++;
        } else if (ch == '-' && flag(p, F_NOT)) {
            s->not++;
            s->index++;
            continue;
        } else if ((ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') && flag(p, F_WHITESPACE)) {
            s->index++;
        } else {
            st = consume_token(p, s);
        }
        s->not = 0;
    }
    return st;
}

/* SimpleQueryStringFlag.resolveFlags. */
static tv_status parse_flags(tv_dsl *d, const tv_json *v, int *out) {
    if (v->type == TV_JSON_INT) {
        *out = v->v.i < 0 ? F_ALL : (int)(v->v.i & 0x3FF);
        return TROVE_OK;
    }
    const char *s;
    size_t n;
    if (!tv_dsl_scalar_text(v, &s, &n))
        return tv_dsl_error(d, TROVE_EPARSE, v->off, "[simple_query_string] failed to parse field [flags]");
    if (n == 0) {
        *out = F_ALL;
        return TROVE_OK;
    }
    static const struct { const char *name; int v; } k_flags[] = {
        {"ALL", F_ALL},        {"NONE", 0},           {"AND", F_AND},
        {"NOT", F_NOT},        {"OR", F_OR},          {"PREFIX", F_PREFIX},
        {"PHRASE", F_PHRASE},  {"PRECEDENCE", F_PRECEDENCE}, {"ESCAPE", F_ESCAPE},
        {"WHITESPACE", F_WHITESPACE}, {"FUZZY", F_FUZZY}, {"NEAR", F_NEAR},
        {"SLOP", F_NEAR},
    };
    int magic = 0;
    size_t i = 0;
    while (i <= n) {
        size_t j = i;
        while (j < n && s[j] != '|') j++;
        if (j > i) {
            int found = -2;
            for (size_t k = 0; k < TV_ARRAY_LEN(k_flags); k++) {
                if (strlen(k_flags[k].name) == j - i && strncasecmp(k_flags[k].name, s + i, j - i) == 0) {
                    found = k_flags[k].v;
                    break;
                }
            }
            if (found == -2)
                return tv_dsl_error(d, TROVE_EARG, v->off, "Unknown simple_query_string flag [%.*s]",
                                    (int)TV_MIN(j - i, 200), s + i);
            if (found == 0) { *out = 0; return TROVE_OK; }
            if (found == F_ALL) { *out = F_ALL; return TROVE_OK; }
            magic |= found;
        }
        i = j + 1;
    }
    *out = magic;
    return TROVE_OK;
}

tv_status tv_dsl_parse_simple_query_string(tv_dsl *d, const tv_json *body, tv_query **out) {
    static const char QN[] = "simple_query_string";
    tv_qs_ctx c;
    tv_qs_ctx_init(&c, d, QN);
    const tv_json *query = NULL, *fields = NULL, *msm = NULL;
    float boost = 1.0f;
    int flags = F_ALL;
    bool lenient_set = false;
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
        if (!tv_dsl_scalar_text(v, &s, &n)) s = NULL, n = 0;
        if (tv_streq(k, kl, "query")) query = v;
        else if (tv_streq(k, kl, "boost")) st = tv_dsl_float(d, QN, k, v, &boost);
        else if (tv_streq(k, kl, "analyzer")) st = tv_qs_analyzer(&c, "analyzer", v, &c.analyzer);
        else if (tv_streq(k, kl, "default_operator")) {
            if (n == 3 && strncasecmp(s, "and", 3) == 0) c.and_op = true;
            else if (n == 2 && strncasecmp(s, "or", 2) == 0) c.and_op = false;
            else st = tv_dsl_error(d, TROVE_EARG, v->off, "operator needs to be either [AND, OR], but not [%.*s]",
                                   (int)TV_MIN(n, 200), s ? s : "");
        } else if (tv_streq(k, kl, "flags")) st = parse_flags(d, v, &flags);
        else if (tv_streq(k, kl, "lenient")) {
            st = tv_dsl_bool(d, QN, k, v, &c.lenient);
            lenient_set = true;
        } else if (tv_streq(k, kl, "analyze_wildcard")) st = tv_dsl_bool(d, QN, k, v, &c.analyze_wildcard);
        else if (tv_streq(k, kl, "_name")) ;
        else if (tv_streq(k, kl, "minimum_should_match")) msm = v;
        else if (tv_streq(k, kl, "quote_field_suffix")) {
            c.quote_suffix = s;
            c.quote_suffix_len = n;
        } else if (tv_streq(k, kl, "auto_generate_synonyms_phrase_query")) {
            bool b;
            st = tv_dsl_bool(d, QN, k, v, &b);
        } else if (tv_streq(k, kl, "fuzzy_prefix_length")) st = tv_dsl_int(d, QN, k, v, &c.fuzzy_prefix);
        else if (tv_streq(k, kl, "fuzzy_max_expansions")) st = tv_dsl_int(d, QN, k, v, &c.fuzzy_max_exp);
        else if (tv_streq(k, kl, "fuzzy_transpositions")) st = tv_dsl_bool(d, QN, k, v, &c.fuzzy_transpositions);
        else st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] unsupported field [%s]", QN, k);
    }
    if (st) return st;
    const char *qs;
    size_t qn;
    if (!query || !tv_dsl_scalar_text(query, &qs, &qn))
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "[%s] query text missing", QN);
    c.off = query->off;
    c.tie = 1.0f;
    tv_qs_fields fs = {0}, pfs = {0};
    bool all = false;
    if (fields && fields->len > 0) {
        st = tv_qs_fields_from_json(&c, fields, &fs, &all);
    } else {
        all = true;
        st = tv_qs_add_fields(&c, &fs, "*", 1, 1.0f, NULL, 0);
    }
    if (st) return st;
    if (all && !lenient_set) c.lenient = true;
    if (c.quote_suffix) {
        for (uint32_t i = 0; i < fs.n && !st; i++)
            st = tv_qs_add_fields(&c, &pfs, fs.items[i].f->path, fs.items[i].f->path_len, fs.items[i].boost,
                                  c.quote_suffix, c.quote_suffix_len);
        if (st) return st;
    } else {
        pfs = fs;
    }
    tv_query *q = NULL;
    /* "*" alone (trimmed) matches everything */
    size_t a = 0, b = qn;
    while (a < b && (unsigned char)qs[a] <= ' ') a++;
    while (b > a && (unsigned char)qs[b - 1] <= ' ') b--;
    if (b - a == 1 && qs[a] == '*') {
        q = tv_q_new(d, TV_Q_MATCH_ALL);
        if (!q) return oom(d);
    } else {
        sqp p = {&c, &fs, &pfs, flags, c.and_op ? OCC_MUST : OCC_SHOULD, qs, NULL, 0};
        p.buffer = tv_arena_alloc(d->arena, qn + 1);
        if (!p.buffer) return oom(d);
        sstate s = {0, qn, OCC_NONE, OCC_NONE, 0, NULL};
        st = parse_sub(&p, &s);
        if (st) return tv_qs_wrap_error(&c, st);
        q = s.top;
        if (!q) {
            q = tv_q_new(d, TV_Q_MATCH_NONE);
            if (!q) return oom(d);
        }
    }
    if ((st = tv_qs_apply_msm(&c, q, msm))) return st;
    if (boost != 1.0f) q->boost *= boost;
    *out = q;
    return TROVE_OK;
}
