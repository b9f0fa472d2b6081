/*
 * dsl.c — the query DSL: JSON query objects -> tv_query AST (query.h).
 *
 * One recursive-descent pass over the parsed JSON DOM, with one parser per
 * query name found through a small table (k_query_parsers). The AST is
 * built against one target's mapping: fields are resolved and query text is
 * analyzed here, once, so execution never analyzes. Every rejected input
 * gets OpenSearch's exception type and reason text, with [line:col] taken
 * from the offending JSON value's byte offset (tv_json.off) — the position
 * OpenSearch's parser reports is the token it was looking at, which for
 * nearly all errors is the value after the key.
 *
 * The shapes mirror what OpenSearch's builders produce in toQuery():
 *   match            -> one TERM, or BOOL of SHOULD/MUST terms (+ msm)
 *   match_phrase     -> PHRASE (one term -> TERM)
 *   multi_match      -> DISMAX over per-field queries (best_fields/phrase),
 *                       BOOL should (most_fields)
 *   term on keyword  -> constant-score TERM (OpenSearch 3.x default)
 *   term on numbers  -> RANGE_NUM [v, v] (points, constant score)
 *   bool with no clauses -> MATCH_ALL; only must_not -> + MATCH_ALL filter
 * Unmapped fields parse to MATCH_NONE, as OpenSearch's builders do.
 *
 * Rejected alternative: a token-stream parser replaying Jackson's token
 * sequence. The DOM is already built by the api layer (duplicate keys are
 * rejected there), and member order is kept, so ordered checks ("multiple
 * fields", "expected [END_OBJECT]") can be reproduced on the DOM directly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "query/parse.h"

/* ------------------------------------------------------------ helpers */

tv_status tv_dsl_error(tv_dsl *d, tv_status code, uint32_t off, const char *fmt, ...) {
    if (!d->err) return code;
    va_list ap;
    va_start(ap, fmt);
    d->err->code = code;
    vsnprintf(d->err->reason, sizeof d->err->reason, fmt, ap);
    va_end(ap);
    d->err->pos = off;
    d->err->line = d->err->col = 0;
    if (d->src && off <= d->src_len) tv_json_linecol(d->src, d->src_len, off, &d->err->line, &d->err->col);
    return code;
}

static tv_status oom(tv_dsl *d) {
    if (d->err) tv_error_oom(d->err);
    return TROVE_ENOMEM;
}

const tv_field *tv_dsl_field(tv_dsl *d, const char *name, size_t len) {
    if (!d->mapping) return NULL;
    return tv_mapping_field(d->mapping, name, len);
}

tv_query *tv_q_new(tv_dsl *d, tv_qkind kind) {
    tv_query *q = tv_arena_calloc(d->arena, 1, sizeof *q);
    if (!q) return NULL;
    q->kind = (uint8_t)kind;
    q->boost = 1.0f;
    return q;
}

tv_query *tv_q_term(tv_dsl *d, const tv_field *f, const char *term, size_t len) {
    tv_query *q = tv_q_new(d, TV_Q_TERM);
    if (!q) return NULL;
    q->field = f;
    q->field_id = f ? f->id : TV_FIELD_ID;
    q->u.term.term = tv_arena_memdup(d->arena, term, len);
    if (!q->u.term.term && len) return NULL;
    q->u.term.len = (uint32_t)len;
    /* a doc-values-only field is queried through its doc values in
     * OpenSearch 3 (a constant-score slow query) */
    q->u.term.constant = f && (f->type == TV_FT_KEYWORD || (!f->index && f->doc_values));
    return q;
}

tv_status tv_dsl_analyze(tv_dsl *d, const tv_field *f, const tv_analyzer *an, const char *text,
                         size_t len, tv_tokens *out) {
    memset(out, 0, sizeof *out);
    if (!an) {
        if (f->type == TV_FT_KEYWORD) {
            an = f->normalizer;
            if (!an) {
                /* keyword analyzer: the whole value is one token */
                tv_token *t = tv_arena_calloc(d->arena, 1, sizeof *t);
                if (!t) return oom(d);
                t->term = tv_arena_memdup(d->arena, text, len);
                if (!t->term && len) return oom(d);
                t->term_len = (uint32_t)len;
                out->items = t;
                out->len = 1;
                out->end_position = 1;
                return TROVE_OK;
            }
        } else {
            an = f->search_analyzer ? f->search_analyzer : f->analyzer;
        }
    }
    if (!an) an = tv_analyzer_builtin("standard", 8);
    if (!an) return tv_error_set(d->err, TROVE_EINTERNAL, "no analyzer");
    tv_status st = tv_analyze(an, d->arena, text, len, 0, out);
    if (st != TROVE_OK) return oom(d);
    return TROVE_OK;
}

static const char *k_json_token_names[] = {
    [TV_JSON_NULL] = "VALUE_NULL",      [TV_JSON_FALSE] = "VALUE_BOOLEAN",
    [TV_JSON_TRUE] = "VALUE_BOOLEAN",   [TV_JSON_INT] = "VALUE_NUMBER",
    [TV_JSON_UINT] = "VALUE_NUMBER",    [TV_JSON_DOUBLE] = "VALUE_NUMBER",
    [TV_JSON_STRING] = "VALUE_STRING",  [TV_JSON_ARRAY] = "START_ARRAY",
    [TV_JSON_OBJECT] = "START_OBJECT",
};

const char *tv_dsl_token_name(const tv_json *v) {
    return v->type < TV_ARRAY_LEN(k_json_token_names) ? k_json_token_names[v->type] : "?";
}

/* Text of a scalar value as OpenSearch's parser.text() / objectBytes()
 * gives it: strings as is, numbers as written, booleans as true/false. */
bool tv_dsl_scalar_text(const tv_json *v, const char **s, size_t *len) {
    switch (v->type) {
    case TV_JSON_STRING: *s = v->v.s; *len = v->len; return true;
    case TV_JSON_INT:
    case TV_JSON_UINT:
    case TV_JSON_DOUBLE:
        if (v->raw) { *s = v->raw; *len = v->raw_len; return true; }
        return false;
    case TV_JSON_TRUE: *s = "true"; *len = 4; return true;
    case TV_JSON_FALSE: *s = "false"; *len = 5; return true;
    default: return false;
    }
}

/* ------------------------------------------- numbers as Java reads them
 *
 * OpenSearch's hand-written builders read numbers with XContentParser's
 * intValue() / floatValue(): a JSON number converts as Jackson does (a
 * fraction truncates toward zero; an int out of range is Jackson's
 * input_coercion_exception), a string goes through Java's
 * Double.parseDouble / Float.parseFloat (failure: number_format_exception
 * "For input string: \"x\"", or "empty String"), and a boolean or null is
 * Jackson's "Current token (...) not numeric" json_parse_exception. */

#define JACKSON_AT "\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: %u, column: %u]"

/* Jackson's current location after a scalar token at off (len bytes). */
static void after_token(const tv_dsl *d, uint32_t off, size_t len, uint32_t *line, uint32_t *col) {
    *line = 1;
    *col = (uint32_t)(off + len + 1);
    if (d->src && off + len <= d->src_len) tv_json_linecol(d->src, d->src_len, off + len, line, col);
}

static size_t token_len(const tv_json *v) {
    switch (v->type) {
    case TV_JSON_TRUE: return 4;
    case TV_JSON_FALSE: return 5;
    case TV_JSON_NULL: return 4;
    default: return v->raw ? v->raw_len : 0;
    }
}

static tv_status not_numeric(tv_dsl *d, const tv_json *v) {
    const char *tok = v->type == TV_JSON_TRUE ? "VALUE_TRUE" : v->type == TV_JSON_FALSE ? "VALUE_FALSE"
                      : v->type == TV_JSON_NULL ? "VALUE_NULL" : tv_dsl_token_name(v);
    uint32_t line, col;
    after_token(d, v->off, token_len(v), &line, &col);
    tv_error_set(d->err, TROVE_EJSON, "Current token (%s) not numeric, can not use numeric value accessors" JACKSON_AT,
                 tok, line, col);
    return TROVE_EJSON;
}

static tv_status int_overflow(tv_dsl *d, const tv_json *v) {
    const char *s = v->raw ? v->raw : "?";
    size_t n = v->raw ? v->raw_len : 1;
    uint32_t line, col;
    after_token(d, v->off, token_len(v), &line, &col);
    tv_error_set(d->err, TROVE_EARG, "Numeric value (%.*s) out of range of int (-2147483648 - 2147483647)" JACKSON_AT,
                 (int)TV_MIN(n, 200), s, line, col);
    tv_error_as(d->err, TROVE_EINPUTCOERCION);
    return TROVE_EARG;
}

static bool jtrim(const char **s, size_t *n) {
    while (*n && (unsigned char)(*s)[0] <= ' ') { (*s)++; (*n)--; }
    while (*n && (unsigned char)(*s)[*n - 1] <= ' ') (*n)--;
    return *n > 0;
}

static bool java_num(const char *s, size_t n, bool as_float, double *out) {
    if (!jtrim(&s, &n) || n > 380) return false;
    size_t i = 0;
    if (s[i] == '+' || s[i] == '-') i++;
    bool neg = s[0] == '-';
    if (n - i == 3 && memcmp(s + i, "NaN", 3) == 0) { *out = NAN; return true; }
    if (n - i == 8 && memcmp(s + i, "Infinity", 8) == 0) { *out = neg ? -INFINITY : INFINITY; return true; }
    size_t digits = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') { i++; digits++; }
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') { i++; digits++; }
    }
    if (!digits) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        size_t ed = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') { i++; ed++; }
        if (!ed) return false;
    }
    size_t num_end = i;
    if (i < n && (s[i] == 'f' || s[i] == 'F' || s[i] == 'd' || s[i] == 'D')) i++;
    if (i != n) return false;
    char buf[400];
    memcpy(buf, s, num_end);
    buf[num_end] = '\0';
    /* Float.parseFloat rounds the decimal once, straight to float */
    *out = as_float ? (double)strtof(buf, NULL) : strtod(buf, NULL);
    return true;
}

bool tv_java_parse_double(const char *s, size_t n, double *out) { return java_num(s, n, false, out); }

tv_status tv_dsl_nfe(tv_dsl *d, const char *s, size_t n) {
    if (!jtrim(&s, &n)) return tv_error_set(d->err, TROVE_ENUMBERFORMAT, "empty String");
    return tv_error_set(d->err, TROVE_ENUMBERFORMAT, "For input string: \"%.*s\"", (int)TV_MIN(n, 300), s);
}

tv_status tv_dsl_java_int(tv_dsl *d, const tv_json *v, int32_t *out) {
    switch (v->type) {
    case TV_JSON_INT:
        if (v->v.i < INT32_MIN || v->v.i > INT32_MAX) return int_overflow(d, v);
        *out = (int32_t)v->v.i;
        return TROVE_OK;
    case TV_JSON_UINT:
        return int_overflow(d, v);
    case TV_JSON_DOUBLE:
        if (!(v->v.d >= (double)INT32_MIN && v->v.d <= (double)INT32_MAX)) return int_overflow(d, v);
        *out = (int32_t)v->v.d;
        return TROVE_OK;
    case TV_JSON_STRING: {
        double x;
        if (!tv_java_parse_double(v->v.s, v->len, &x)) return tv_dsl_nfe(d, v->v.s, v->len);
        if (x < (double)INT32_MIN || x > (double)INT32_MAX)
            return tv_error_set(d->err, TROVE_EARG, "Value [%.*s] is out of range for an integer", (int)TV_MIN(v->len, 300u), v->v.s);
        *out = x != x ? 0 : (int32_t)x;
        return TROVE_OK;
    }
    case TV_JSON_TRUE:
    case TV_JSON_FALSE:
    case TV_JSON_NULL:
        return not_numeric(d, v);
    default:
        return tv_dsl_error(d, TROVE_EPARSE, v->off, "Unexpected token [%s]", tv_dsl_token_name(v));
    }
}

tv_status tv_dsl_java_float(tv_dsl *d, const tv_json *v, float *out) {
    if (tv_json_is_number(v)) { *out = (float)tv_json_as_double(v); return TROVE_OK; }
    if (v->type == TV_JSON_STRING) {
        double x;
        if (!java_num(v->v.s, v->len, true, &x)) return tv_dsl_nfe(d, v->v.s, v->len);
        *out = (float)x;
        return TROVE_OK;
    }
    if (v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE || v->type == TV_JSON_NULL) return not_numeric(d, v);
    return tv_dsl_error(d, TROVE_EPARSE, v->off, "Unexpected token [%s]", tv_dsl_token_name(v));
}

/* A float parameter of a hand-written builder (boost, tie_breaker, ...). */
tv_status tv_dsl_float(tv_dsl *d, const char *qname, const char *key, const tv_json *v,
                       float *out) {
    (void)qname;
    (void)key;
    return tv_dsl_java_float(d, v, out);
}

/* An int parameter of a hand-written builder (slop, max_expansions, ...). */
tv_status tv_dsl_int(tv_dsl *d, const char *qname, const char *key, const tv_json *v,
                     int64_t *out) {
    (void)qname;
    (void)key;
    int32_t x = 0;
    tv_status st = tv_dsl_java_int(d, v, &x);
    if (!st) *out = x;
    return st;
}

tv_status tv_dsl_bool(tv_dsl *d, const char *qname, const char *key, const tv_json *v, bool *out) {
    if (v->type == TV_JSON_TRUE) { *out = true; return TROVE_OK; }
    if (v->type == TV_JSON_FALSE) { *out = false; return TROVE_OK; }
    if (v->type == TV_JSON_STRING) {
        if (tv_streq(v->v.s, v->len, "true")) { *out = true; return TROVE_OK; }
        if (tv_streq(v->v.s, v->len, "false")) { *out = false; return TROVE_OK; }
    }
    return tv_dsl_error(d, TROVE_EPARSE, v->off, "[%s] failed to parse field [%s]", qname, key);
}

/* ------------------------------------------------- minimum_should_match */

static bool parse_int_str(const char *s, size_t n, int32_t *out) {
    /* Java Integer.parseInt: optional sign, digits, no spaces */
    int64_t v;
    if (n == 0 || n > 11) return false;
    if (s[0] == '+' && n > 1) { s++; n--; }
    if (!tv_parse_i64(s, n, &v) || v < INT32_MIN || v > INT32_MAX) return false;
    *out = (int32_t)v;
    return true;
}

static bool msm_simple(int32_t n, const char *s, size_t len, int32_t *out) {
    int32_t result = n;
    if (len > 0 && memchr(s, '%', len)) {
        /* the % is assumed last; Integer.parseInt of the rest */
        int32_t pct;
        if (!parse_int_str(s, len - 1, &pct) || s[len - 1] != '%') return false;
        float calc = (float)(result * pct) * (1 / 100.0f);
        result = calc < 0 ? result + (int32_t)calc : (int32_t)calc;
    } else {
        int32_t calc;
        if (!parse_int_str(s, len, &calc)) return false;
        result = calc < 0 ? result + calc : calc;
    }
    *out = result < 0 ? 0 : result;
    return true;
}

bool tv_min_should_match(int32_t n, const char *spec, size_t len, int32_t *out) {
    /* trim (Java String.trim: chars <= ' ') */
    while (len && (unsigned char)spec[0] <= ' ') { spec++; len--; }
    while (len && (unsigned char)spec[len - 1] <= ' ') len--;
    if (!memchr(spec, '<', len)) return msm_simple(n, spec, len, out);
    /* conditional: "a<b c<d": spaces around '<' are removed first */
    char buf[256];
    size_t bl = 0;
    for (size_t i = 0; i < len && bl < sizeof buf - 1; i++) {
        if (spec[i] == '<') {
            while (bl && (unsigned char)buf[bl - 1] <= ' ') bl--;
            buf[bl++] = '<';
            while (i + 1 < len && (unsigned char)spec[i + 1] <= ' ') i++;
        } else {
            buf[bl++] = spec[i];
        }
    }
    int32_t result = n;
    size_t i = 0;
    while (i < bl) {
        while (i < bl && (unsigned char)buf[i] <= ' ') i++;
        if (i >= bl) break;
        size_t j = i;
        while (j < bl && (unsigned char)buf[j] > ' ') j++;
        const char *lt = memchr(buf + i, '<', j - i);
        if (!lt) return false;
        int32_t upper;
        if (!parse_int_str(buf + i, (size_t)(lt - (buf + i)), &upper)) return false;
        if (n <= upper) { *out = result; return true; }
        if (!msm_simple(n, lt + 1, (size_t)(buf + j - (lt + 1)), &result)) return false;
        i = j;
    }
    *out = result;
    return true;
}

/* Resolves an msm JSON value (int or string) for n optional clauses. */
tv_status tv_dsl_msm(tv_dsl *d, const tv_json *v, int32_t n, int32_t *out) {
    const char *s;
    size_t len;
    if (!v) { *out = 0; return TROVE_OK; }
    if (!tv_dsl_scalar_text(v, &s, &len) || v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE)
        return tv_dsl_error(d, TROVE_EPARSE, v->off, "[minimum_should_match] must be a string or number");
    if (!tv_min_should_match(n, s, len, out)) {
        /* Queries.calculateMinShouldMatch runs in toQuery on the shard:
         * QueryShardContext wraps its NumberFormatException. Integer.parseInt
         * names what it parsed: the trimmed spec, without a trailing '%'. */
        const char *b = s;
        size_t bl = len;
        while (bl && (unsigned char)b[0] <= ' ') { b++; bl--; }
        while (bl && (unsigned char)b[bl - 1] <= ' ') bl--;
        if (!memchr(b, '<', bl) && bl && b[bl - 1] == '%') bl--;
        tv_error_set(d->err, TROVE_EQUERYSHARD, "failed to create query: For input string: \"%.*s\"",
                     (int)TV_MIN(bl, 200), b);
        return tv_error_cause(d->err, TROVE_ENUMBERFORMAT, "For input string: \"%.*s\"", (int)TV_MIN(bl, 200), b);
    }
    return TROVE_OK;
}

/* ------------------------------------------------------- the dispatcher */

static tv_status parse_bool(tv_dsl *d, const tv_json *body, tv_query **out);

typedef struct {
    const char *name;
    tv_status (*fn)(tv_dsl *d, const tv_json *body, tv_query **out);
} parser_entry;

/* Query names OpenSearch knows (core, modules and bundled plugins), for
 * "did you mean" suggestions and for "known but unsupported" errors. */
static const char *const k_known_queries[] = {
    "bool", "boosting", "combined_fields", "constant_score", "dis_max", "distance_feature",
    "exists", "function_score", "fuzzy", "geo_bounding_box", "geo_distance", "geo_polygon",
    "geo_shape", "has_child", "has_parent", "ids", "intervals", "match", "match_all",
    "match_bool_prefix", "match_none", "match_phrase", "match_phrase_prefix", "more_like_this",
    "multi_match", "nested", "parent_id", "percolate", "prefix", "query_string", "range",
    "rank_feature", "regexp", "script", "script_score", "simple_query_string", "span_containing",
    "field_masking_span", "span_first", "span_multi", "span_near", "span_not", "span_or",
    "span_term", "span_within", "term", "terms", "terms_set", "wildcard", "wrapper",
    "template", "knn", "neural", "hybrid", "xy_shape",
};

static int levenshtein(const char *a, size_t la, const char *b, size_t lb) {
    int prev[64], cur[64];
    if (la >= 63 || lb >= 63) return 1000;
    for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int c = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = TV_MIN(c, TV_MIN(del, ins));
        }
        memcpy(prev, cur, sizeof(int) * (lb + 1));
    }
    return prev[lb];
}

/* SuggestingErrorOnUnknown: candidates whose Lucene LevenshteinDistance
 * similarity (1 - d / max(len)) is above 0.5, best first, ties by name,
 * as " did you mean [x]?" or " did you mean any of [x, y]?" (empty when
 * none). At most 128 candidates are considered. */
void tv_dsl_did_you_mean(const char *name, size_t len, const char *const *cands, size_t ncands, char *out, size_t cap) {
    struct { float s; const char *n; } c[128];
    size_t nc = 0;
    out[0] = 0;
    for (size_t i = 0; i < ncands && i < 128; i++) {
        const char *k = cands[i];
        size_t kl = strlen(k);
        size_t mx = TV_MAX(len, kl);
        if (mx == 0) continue;
        float sim = 1.0f - (float)levenshtein(name, len, k, kl) / (float)mx;
        if (sim > 0.5f) { c[nc].s = sim; c[nc].n = k; nc++; }
    }
    if (!nc) return;
    for (size_t i = 1; i < nc; i++) {
        for (size_t j = i; j > 0; j--) {
            bool swap = c[j].s > c[j - 1].s || (c[j].s == c[j - 1].s && strcmp(c[j].n, c[j - 1].n) < 0);
            if (!swap) break;
            float ts = c[j].s; const char *tn = c[j].n;
            c[j] = c[j - 1]; c[j - 1].s = ts; c[j - 1].n = tn;
        }
    }
    size_t o = 0;
    if (nc == 1) {
        snprintf(out, cap, " did you mean [%s]?", c[0].n);
        return;
    }
    o += (size_t)snprintf(out + o, cap - o, " did you mean any of [");
    for (size_t i = 0; i < nc && o < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s%s", i ? ", " : "", c[i].n);
    if (o < cap) snprintf(out + o, cap - o, "]?");
}

static const parser_entry k_query_parsers[] = {
    {"match_all", tv_dsl_parse_match_all},
    {"match_none", tv_dsl_parse_match_none},
    {"term", tv_dsl_parse_term},
    {"terms", tv_dsl_parse_terms},
    {"match", tv_dsl_parse_match},
    {"match_phrase", tv_dsl_parse_match_phrase},
    {"match_phrase_prefix", tv_dsl_parse_match_phrase_prefix},
    {"match_bool_prefix", tv_dsl_parse_match_bool_prefix},
    {"distance_feature", tv_dsl_parse_distance_feature},
    {"geo_shape", tv_dsl_parse_geo_shape},
    {"geo_bounding_box", tv_dsl_parse_geo_bounding_box},
    {"geo_distance", tv_dsl_parse_geo_distance},
    {"multi_match", tv_dsl_parse_multi_match},
    {"bool", parse_bool},
    {"prefix", tv_dsl_parse_prefix},
    {"range", tv_dsl_parse_range},
    {"exists", tv_dsl_parse_exists},
    {"ids", tv_dsl_parse_ids},
    {"constant_score", tv_dsl_parse_constant_score},
    {"dis_max", tv_dsl_parse_dis_max},
    {"boosting", tv_dsl_parse_boosting},
    /* extension parsers (their own files) go here, e.g.
     * {"query_string", tv_dsl_parse_query_string}, */
    {"wildcard", tv_dsl_parse_wildcard},
    {"regexp", tv_dsl_parse_regexp},
    {"fuzzy", tv_dsl_parse_fuzzy},
    {"query_string", tv_dsl_parse_query_string},
    {"simple_query_string", tv_dsl_parse_simple_query_string},
    {"function_score", tv_dsl_parse_function_score},
    {"script", tv_dsl_parse_script},
    {"script_score", tv_dsl_parse_script_score},
    {"nested", tv_dsl_parse_nested},
};

#define TV_DSL_MAX_DEPTH 100

void tv_search_params_init(tv_search_params *p) {
    memset(p, 0, sizeof *p);
    p->from = -1;
    p->size = -1;
    p->terminate_after = -1;
    p->suggest_size = -1;
}

void tv_dsl_init(tv_dsl *d, tv_arena *arena, tv_error *err, const tv_search_params *params) {
    memset(d, 0, sizeof *d);
    d->arena = arena;
    d->err = err;
    if (params) {
        d->src = params->body_text;
        d->src_len = params->body_text_len;
        d->max_clauses = params->max_clause_count;
        d->total_as_int = params->rest_total_hits_as_int;
        d->disallow_expensive = params->disallow_expensive;
        d->lookup = params->lookup;
        d->lookup_ctx = params->lookup_ctx;
        d->scripts = params->scripts;
    }
}

tv_status tv_dsl_expensive(tv_dsl *d, const char *what, const char *tail) {
    if (!d->disallow_expensive) return TROVE_OK;
    tv_error_set(d->err, TROVE_EEXCEPTION,
                 "%s cannot be executed when 'search.allow_expensive_queries' is set to false.%s", what, tail);
    if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
    return TROVE_EEXCEPTION;
}

/* The "_name" of a query body: at its top level (bool, terms, ids, ...)
 * or in a field's object (match, term, range, ...). */
static bool query_name(const tv_json *body, const char **s, size_t *n) {
    const tv_json *v = tv_json_get(body, "_name");
    for (uint32_t i = 0; !v && i < body->len; i++) {
        const tv_json *o = &body->v.members[i].val;
        if (o->type == TV_JSON_OBJECT) v = tv_json_get(o, "_name");
    }
    if (!v || v->type != TV_JSON_STRING) return false;
    *s = v->v.s;
    *n = v->len;
    return true;
}

/* Records a named query: q's JSON parsed once more, alone. */
static tv_status add_named(tv_dsl *d, const tv_json *q, const char *name, size_t nl) {
    uint32_t nih = d->nnested_ih;
    uint32_t nkids = d->nested_q ? d->nested_q->nkids : 0;
    bool bbs = d->bad_boost_seen;
    float bb = d->bad_boost;
    tv_query *copy = NULL;
    d->named_off = true;
    tv_status st = tv_dsl_parse_query(d, q, &copy);
    d->named_off = false;
    d->nnested_ih = nih; /* inner hits belong to the query, not its copy */
    if (d->nested_q) d->nested_q->nkids = nkids;
    d->bad_boost_seen = bbs;
    d->bad_boost = bb;
    if (st) return st;
    for (uint32_t i = 0; i < d->nnamed; i++) {
        if (strlen(d->named[i].name) == nl && memcmp(d->named[i].name, name, nl) == 0) {
            d->named[i].q = copy;
            return TROVE_OK;
        }
    }
    if (d->nnamed == d->cnamed) {
        uint32_t nc = d->cnamed ? 2 * d->cnamed : 4;
        tv_named_q *nn = tv_arena_alloc(d->arena, nc * sizeof *nn);
        if (!nn) return tv_error_oom(d->err);
        if (d->nnamed) memcpy(nn, d->named, d->nnamed * sizeof *nn);
        d->named = nn;
        d->cnamed = nc;
    }
    d->named[d->nnamed].name = tv_arena_strndup(d->arena, name, nl);
    if (!d->named[d->nnamed].name) return tv_error_oom(d->err);
    d->named[d->nnamed++].q = copy;
    return TROVE_OK;
}

tv_status tv_dsl_parse_query(tv_dsl *d, const tv_json *q, tv_query **out) {
    *out = NULL;
    if (d->depth == 0) d->bad_boost_seen = false;
    if (q->type != TV_JSON_OBJECT)
        return tv_dsl_error(d, TROVE_EPARSE, q->off, "[_na] query malformed, must start with start_object");
    if (q->len == 0) {
        /* OpenSearch: illegal_argument_exception with the location of the
         * closing brace; we report the opening one's end */
        uint32_t l = 0, c = 0;
        uint32_t off = q->off + 1;
        if (d->src) {
            /* find the '}' after the '{' */
            size_t i = q->off + 1;
            while (i < d->src_len && d->src[i] != '}') i++;
            off = (uint32_t)i;
            tv_json_linecol(d->src, d->src_len, off, &l, &c);
        }
        tv_dsl_error(d, TROVE_EARG, off, "query malformed, empty clause found at [%u:%u]", l, c);
        if (d->err) d->err->line = d->err->col = 0;
        return TROVE_EARG;
    }
    if (d->depth >= TV_DSL_MAX_DEPTH)
        return tv_dsl_error(d, TROVE_EPARSE, q->off, "query is too deeply nested");
    const tv_json_member *m = &q->v.members[0];
    const tv_json *body = &m->val;
    if (body->type != TV_JSON_OBJECT)
        return tv_dsl_error(d, TROVE_EPARSE, body->off,
                            "[%s] query malformed, no start_object after query name", m->key);
    const parser_entry *pe = NULL;
    for (size_t i = 0; i < TV_ARRAY_LEN(k_query_parsers); i++) {
        if (tv_streq(m->key, m->key_len, k_query_parsers[i].name)) { pe = &k_query_parsers[i]; break; }
    }
    if (!pe) {
        for (size_t i = 0; i < TV_ARRAY_LEN(k_known_queries); i++) {
            if (tv_streq(m->key, m->key_len, k_known_queries[i]))
                return tv_dsl_error(d, TROVE_EUNSUPPORTED, body->off,
                                    "[%s] query is not supported by trove", m->key);
        }
        char sug[512];
        tv_dsl_did_you_mean(m->key, m->key_len, k_known_queries, TV_ARRAY_LEN(k_known_queries), sug, sizeof sug);
        return tv_dsl_error(d, TROVE_EPARSE, body->off, "unknown query [%s]%s", m->key, sug);
    }
    d->depth++;
    tv_status st = pe->fn(d, body, out);
    d->depth--;
    if (st != TROVE_OK) return st;
    if (*out && !(*out)->origin) {
        (*out)->origin = pe->name;
        (*out)->origin_src = body;
    }
    if (q->len > 1) {
        const tv_json_member *m2 = &q->v.members[1];
        return tv_dsl_error(d, TROVE_EPARSE, m2->key_off,
                            "[%s] malformed query, expected [END_OBJECT] but found [FIELD_NAME]", m->key);
    }
    const char *qn;
    size_t qnl;
    if (*out && !d->named_off && query_name(body, &qn, &qnl) && (st = add_named(d, q, qn, qnl))) return st;
    /* AbstractQueryBuilder.toQuery wraps a query whose boost is not 1 in a
     * BoostQuery (not a MatchNoDocsQuery), whose constructor refuses a
     * boost that is not a finite float >= +0.0. */
    float b = *out ? (*out)->boost : 1.0f;
    if (*out && (*out)->kind != TV_Q_MATCH_NONE && b != 1.0f && (!isfinite(b) || signbit(b)) && !d->bad_boost_seen) {
        d->bad_boost_seen = true;
        d->bad_boost = b;
    }
    if (d->depth == 0 && d->bad_boost_seen) {
        d->bad_boost_seen = false;
        char f[40];
        tv_fmt_float(d->bad_boost, f);
        tv_error_set(d->err, TROVE_EQUERYSHARD, "failed to create query: boost must be a positive float, got %s", f);
        tv_error_cause(d->err, TROVE_EARG, "boost must be a positive float, got %s", f);
        if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
        return TROVE_EQUERYSHARD;
    }
    if (d->depth == 0 && tv_query_check_bool_clauses(*out, d->max_clauses, d->err)) {
        if (d->err && d->index) snprintf(d->err->index, sizeof d->err->index, "%s", d->index);
        return TROVE_EQUERYSHARD;
    }
    return TROVE_OK;
}

/* A query in a filter context (bool filter/must_not, constant_score). */
tv_status tv_dsl_parse_filter(tv_dsl *d, const tv_json *q, tv_query **out) {
    bool saved = d->filter_ctx;
    d->filter_ctx = true;
    tv_status st = tv_dsl_parse_query(d, q, out);
    d->filter_ctx = saved;
    return st;
}

/* ------------------------------------------------------------------ bool */

typedef TV_VEC(tv_query *) qvec;

static tv_status bool_clause(tv_dsl *d, const tv_json *v, bool filter, qvec *into) {
    if (v->type == TV_JSON_OBJECT) {
        tv_query *q;
        tv_status st = filter ? tv_dsl_parse_filter(d, v, &q) : tv_dsl_parse_query(d, v, &q);
        if (st) return st;
        if (tv_vec_push(into, q)) return oom(d);
        return TROVE_OK;
    }
    if (v->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json *e = &v->v.items[i];
            if (e->type != TV_JSON_OBJECT)
                return tv_dsl_error(d, TROVE_EPARSE, e->off, "[_na] query malformed, must start with start_object");
            tv_status st = bool_clause(d, e, filter, into);
            if (st) return st;
        }
        return TROVE_OK;
    }
    return tv_dsl_error(d, TROVE_EPARSE, v->off, "[bool] query does not support [%s]", "");
}

static tv_query **vec_to_arena(tv_dsl *d, qvec *v) {
    if (!v->len) return NULL;
    tv_query **a = tv_arena_alloc(d->arena, v->len * sizeof *a);
    if (a) memcpy(a, v->items, v->len * sizeof *a);
    return a;
}

/* True when every document of every segment (deleted ones included) has
 * exactly one value of f: BoolQueryBuilder.checkAllDocsHaveOneValue asks
 * the points of each leaf for docCount == maxDoc == size. index.h exposes
 * no points statistics, so the doc values (which hold the same values as
 * the points, one per value, not deduplicated) are counted per doc. A field
 * without doc values cannot be checked: no rewrite (OpenSearch would). No
 * segments: no rewrite (OpenSearch: empty leaves). */
static bool all_docs_one_value(const tv_snapshot *snap, const tv_field *f) {
    if (!snap || !f || !f->index || !f->doc_values || snap->nsegs == 0) return false;
    for (uint32_t i = 0; i < snap->nsegs; i++) {
        const tv_segment *seg = snap->segs[i].seg;
        uint32_t max = tv_segment_max_doc(seg);
        for (uint32_t doc = 0; doc < max; doc++) {
            int64_t v;
            if (tv_segment_dv_numeric(seg, f->id, doc, &v, 1) != 1) return false;
        }
    }
    return true;
}

/*
 * OpenSearch 3's BoolQueryBuilder.rewriteMustNotRangeClausesToShould: a
 * must_not range (the only one on its field in this bool) on a field where
 * every doc has exactly one value becomes a MUST clause
 * bool{should:[complement ranges], minimum_should_match:1}. That clause
 * scores (1.0 per matching complement range), as OpenSearch's does. When
 * the bool had should clauses but no must/filter and no msm, msm becomes 1
 * (what Lucene's default would have been). Returns true if it changed.
 */
static tv_status rewrite_must_not_ranges(tv_dsl *d, qvec *must, qvec *should, qvec *must_not,
                                         qvec *filter, bool *msm_one) {
    *msm_one = false;
    if (!d->snap) return TROVE_OK;
    size_t orig_must = must->len, orig_filter = filter->len, orig_should = should->len;
    bool changed = false;
    for (size_t i = 0; i < must_not->len;) {
        tv_query *rq = must_not->items[i];
        if (!(rq->flags & TV_QF_RANGE) || !rq->field || rq->ncomplement == 0) { i++; continue; }
        size_t same = 0;
        for (size_t j = 0; j < must_not->len; j++) {
            tv_query *o = must_not->items[j];
            if ((o->flags & TV_QF_RANGE) && o->field == rq->field) same++;
        }
        if (same != 1 || !all_docs_one_value(d->snap, rq->field)) { i++; continue; }
        tv_query **sh = tv_arena_alloc(d->arena, rq->ncomplement * sizeof *sh);
        if (!sh) return oom(d);
        for (uint32_t k = 0; k < rq->ncomplement; k++) sh[k] = rq->complement[k];
        tv_query *nb = tv_q_bool(d, NULL, 0, sh, rq->ncomplement, 1);
        if (!nb) return oom(d);
        if (rq->ncomplement == 1) nb->u.boolq.msm = 1;
        if (tv_vec_push(must, nb)) return oom(d);
        memmove(must_not->items + i, must_not->items + i + 1, (must_not->len - i - 1) * sizeof *must_not->items);
        must_not->len--;
        changed = true;
    }
    if (changed && orig_should > 0 && orig_must == 0 && orig_filter == 0) *msm_one = true;
    return TROVE_OK;
}

static tv_status parse_bool(tv_dsl *d, const tv_json *body, tv_query **out) {
    qvec must = {0}, should = {0}, must_not = {0}, filter = {0};
    const tv_json *msm = NULL;
    float boost = 1.0f;
    tv_status st = TROVE_OK;
    for (uint32_t i = 0; i < body->len && !st; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        const char *k = m->key;
        size_t kl = m->key_len;
        bool isq = v->type == TV_JSON_OBJECT || v->type == TV_JSON_ARRAY;
        if (isq && tv_streq(k, kl, "must")) st = bool_clause(d, v, false, &must);
        else if (isq && tv_streq(k, kl, "should")) st = bool_clause(d, v, false, &should);
        else if (isq && tv_streq(k, kl, "must_not")) st = bool_clause(d, v, true, &must_not);
        else if (isq && tv_streq(k, kl, "filter")) st = bool_clause(d, v, true, &filter);
        else if (!isq && tv_streq(k, kl, "minimum_should_match")) msm = v;
        else if (!isq && tv_streq(k, kl, "boost")) st = tv_dsl_float(d, "bool", "boost", v, &boost);
        else if (!isq && (tv_streq(k, kl, "_name") || tv_streq(k, kl, "adjust_pure_negative"))) ;
        else if (isq) st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[bool] query does not support [%s]", k);
        else st = tv_dsl_error(d, TROVE_EPARSE, v->off, "[bool] query does not support [%s]", k);
    }
    tv_query *q = NULL;
    /* OpenSearch 3's BoolQueryBuilder.doRewrite, in its order: an empty
     * bool is match_all; must_not ranges may become scoring MUST clauses;
     * then MUST clauses that score the same for every doc (range; term,
     * terms, match on numeric fields: rewriteMustClausesToFilter) move to
     * FILTER, so they add 0 to the score. There is no filter-context
     * minimum_should_match of 1 any more (doToQuery has none). */
    bool msm_one = false;
    size_t total0 = must.len + should.len + must_not.len + filter.len;
    if (!st && total0) st = rewrite_must_not_ranges(d, &must, &should, &must_not, &filter, &msm_one);
    if (!st) {
        size_t keep = 0;
        for (size_t i = 0; i < must.len && !st; i++) {
            tv_query *c = must.items[i];
            if (!(c->flags & TV_QF_SCORE_IRRELEVANT)) must.items[keep++] = c;
            else if (tv_vec_push(&filter, c)) st = oom(d);
        }
        must.len = keep;
    }
    if (!st) {
        int32_t n = 0;
        if (msm) st = tv_dsl_msm(d, msm, (int32_t)should.len, &n);
        else if (msm_one) n = 1;
        if (!st) {
            size_t total = total0;
            if (total == 0) {
                q = tv_q_new(d, TV_Q_MATCH_ALL);
                if (!q) st = oom(d);
            } else {
                q = tv_q_new(d, TV_Q_BOOL);
                if (!q) st = oom(d);
            }
            if (q && total) {
                q->u.boolq.must = vec_to_arena(d, &must);
                q->u.boolq.nmust = (uint32_t)must.len;
                q->u.boolq.should = vec_to_arena(d, &should);
                q->u.boolq.nshould = (uint32_t)should.len;
                q->u.boolq.must_not = vec_to_arena(d, &must_not);
                q->u.boolq.nmust_not = (uint32_t)must_not.len;
                q->u.boolq.filter = vec_to_arena(d, &filter);
                q->u.boolq.nfilter = (uint32_t)filter.len;
                q->u.boolq.msm = n > 0 ? n : 0;
                if ((must.len && !q->u.boolq.must) || (should.len && !q->u.boolq.should) ||
                    (must_not.len && !q->u.boolq.must_not) || (filter.len && !q->u.boolq.filter))
                    st = oom(d);
                /* pure negative: OpenSearch adds a match_all filter */
                if (!st && !must.len && !should.len && !filter.len) {
                    tv_query *all = tv_q_new(d, TV_Q_MATCH_ALL);
                    tv_query **fa = tv_arena_alloc(d->arena, sizeof *fa);
                    if (!all || !fa) st = oom(d);
                    else {
                        fa[0] = all;
                        q->u.boolq.filter = fa;
                        q->u.boolq.nfilter = 1;
                    }
                }
            }
            if (q) q->boost = boost;
        }
    }
    tv_vec_fini(&must);
    tv_vec_fini(&should);
    tv_vec_fini(&must_not);
    tv_vec_fini(&filter);
    if (!st) *out = q;
    return st;
}

/* Builds a BOOL node from arrays (used by match/multi_match). */
tv_query *tv_q_bool(tv_dsl *d, tv_query **must, uint32_t nmust, tv_query **should,
                    uint32_t nshould, int32_t msm) {
    tv_query *q = tv_q_new(d, TV_Q_BOOL);
    if (!q) return NULL;
    q->u.boolq.must = must;
    q->u.boolq.nmust = nmust;
    q->u.boolq.should = should;
    q->u.boolq.nshould = nshould;
    q->u.boolq.msm = msm;
    return q;
}
