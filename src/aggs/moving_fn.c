/*
 * moving_fn.c — the moving_fn pipeline's script: OpenSearch's
 * MovingFunctions (the functions a moving_fn script calls) and the one
 * entry point that evaluates a script over a window of bucket values.
 *
 * What. MovFnPipelineAggregator hands its script the window `values` (the
 * non-NaN bucket values from index - window + shift to index + shift,
 * clamped) and prints what it returns. A script that is exactly one call
 * `MovingFunctions.f(values[, args])` (optionally `return ...;`), with
 * number or boolean literals or `params.x` as arguments, is evaluated here
 * natively (no interpreter run per bucket): max, min, sum, unweightedAvg,
 * linearWeightedAvg, ewma, holt, holtWinters, stdDev. Any other script
 * runs in Painless (the moving-function context: `values` and the
 * MovingFunctions class, src/script/movfn.c, which also holds the
 * functions' arithmetic both paths share), compiled when the request
 * parses.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggs/aggs.h"

/* ------------------------------------------------------- the script */

enum { F_NONE, F_MAX, F_MIN, F_SUM, F_UAVG, F_LWAVG, F_EWMA, F_HOLT, F_HW, F_STDDEV };

static const struct {
    const char *name;
    int fn;
    uint32_t nargs; /* after `values` */
} k_fns[] = {
    {"max", F_MAX, 0},         {"min", F_MIN, 0},     {"sum", F_SUM, 0},
    {"unweightedAvg", F_UAVG, 0}, {"linearWeightedAvg", F_LWAVG, 0}, {"ewma", F_EWMA, 1},
    {"holt", F_HOLT, 2},       {"holtWinters", F_HW, 5}, {"stdDev", F_STDDEV, 1},
};

static const char *skip_ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

static bool ident_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* One argument: a number literal, true/false, or params.x (a number or
 * boolean of the script's params). */
static bool parse_arg(const char *s, size_t n, const tv_json *params, double *out) {
    if (tv_streq(s, n, "true")) { *out = 1; return true; }
    if (tv_streq(s, n, "false")) { *out = 0; return true; }
    if (n > 7 && !memcmp(s, "params.", 7)) {
        if (!params || params->type != TV_JSON_OBJECT) return false;
        for (uint32_t i = 0; i < params->len; i++) {
            const tv_json_member *m = &params->v.members[i];
            if (!tv_streq(m->key, m->key_len, "") && m->key_len == n - 7 && !memcmp(m->key, s + 7, n - 7)) {
                if (tv_json_is_number(&m->val)) { *out = tv_json_as_double(&m->val); return true; }
                if (m->val.type == TV_JSON_TRUE || m->val.type == TV_JSON_FALSE) { *out = m->val.type == TV_JSON_TRUE; return true; }
                return false;
            }
        }
        return false;
    }
    /* a Painless number literal: digits, '.', exponent, a d/f/D/F suffix, a sign */
    char buf[64];
    if (!n || n >= sizeof buf) return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (buf[n - 1] == 'd' || buf[n - 1] == 'D' || buf[n - 1] == 'f' || buf[n - 1] == 'F') buf[--n] = 0;
    for (size_t i = 0; i < n; i++)
        if (!((buf[i] >= '0' && buf[i] <= '9') || buf[i] == '.' || buf[i] == 'e' || buf[i] == 'E' ||
              ((buf[i] == '-' || buf[i] == '+') && (i == 0 || buf[i - 1] == 'e' || buf[i - 1] == 'E'))))
            return false;
    char *end;
    *out = strtod(buf, &end);
    return end == buf + n && n > 0;
}

void tv_movfn_compile(tv_movfn *m, const char *src, size_t len, const char *lang, const tv_json *params) {
    memset(m, 0, sizeof *m);
    m->src = src;
    if (lang && strcmp(lang, "painless")) return;
    const char *p = skip_ws(src, src + len), *e = src + len;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r')) e--;
    if (e > p && e[-1] == ';') e--;
    if ((size_t)(e - p) > 7 && !memcmp(p, "return", 6) && !ident_char(p[6])) p = skip_ws(p + 6, e);
    static const char k_cls[] = "MovingFunctions";
    if ((size_t)(e - p) < sizeof k_cls || memcmp(p, k_cls, sizeof k_cls - 1)) return;
    p = skip_ws(p + sizeof k_cls - 1, e);
    if (p >= e || *p != '.') return;
    p = skip_ws(p + 1, e);
    const char *nm = p;
    while (p < e && ident_char(*p)) p++;
    size_t nml = (size_t)(p - nm);
    p = skip_ws(p, e);
    if (p >= e || *p != '(' || e[-1] != ')') return;
    const char *a = p + 1, *ae = e - 1;
    /* split the arguments at commas (no nesting is accepted) */
    const char *args[8];
    size_t alen[8];
    uint32_t na = 0;
    while (a <= ae) {
        const char *c = memchr(a, ',', (size_t)(ae - a));
        const char *end = c ? c : ae;
        const char *s0 = skip_ws(a, end), *s1 = end;
        while (s1 > s0 && (s1[-1] == ' ' || s1[-1] == '\t' || s1[-1] == '\n' || s1[-1] == '\r')) s1--;
        if (na == 8 || s1 == s0) return;
        bool nested_avg = false;
        if (na == 1) { /* stdDev(values, MovingFunctions.unweightedAvg(values)) */
            char flat[64];
            size_t fl = 0;
            for (const char *q = s0; q < s1 && fl < sizeof flat - 1; q++)
                if (*q != ' ' && *q != '\t' && *q != '\n' && *q != '\r') flat[fl++] = *q;
            flat[fl] = 0;
            nested_avg = !strcmp(flat, "MovingFunctions.unweightedAvg(values)");
        }
        if (nested_avg) {
            m->avg_arg = true;
        } else {
            for (const char *q = s0; q < s1; q++)
                if (*q == '(' || *q == ')') return;
        }
        args[na] = s0;
        alen[na++] = (size_t)(s1 - s0);
        if (!c) break;
        a = c + 1;
    }
    if (na < 1 || !tv_streq(args[0], alen[0], "values")) return;
    for (size_t f = 0; f < TV_ARRAY_LEN(k_fns); f++) {
        if (strlen(k_fns[f].name) != nml || memcmp(k_fns[f].name, nm, nml)) continue;
        if (na - 1 != k_fns[f].nargs) return;
        if (m->avg_arg && k_fns[f].fn != F_STDDEV) return;
        for (uint32_t i = m->avg_arg ? 2 : 1; i < na; i++)
            if (!parse_arg(args[i], alen[i], params, &m->args[i - 1])) return;
        /* holtWinters(values, alpha, beta, gamma, int period, boolean multiplicative) */
        if (k_fns[f].fn == F_HW && (m->args[3] != floor(m->args[3]) || fabs(m->args[3]) > 2147483647.0)) return;
        m->fn = k_fns[f].fn;
        return;
    }
}

tv_status tv_movfn_eval(const tv_movfn *m, const double *v, size_t n, double *out, tv_error *err) {
    switch (m->fn) {
    case F_MAX: *out = tv_movfn_max(v, n); return TROVE_OK;
    case F_MIN: *out = tv_movfn_min(v, n); return TROVE_OK;
    case F_SUM: *out = tv_movfn_sum(v, n); return TROVE_OK;
    case F_UAVG: *out = tv_movfn_unweighted_avg(v, n); return TROVE_OK;
    case F_LWAVG: *out = tv_movfn_linear_weighted_avg(v, n); return TROVE_OK;
    case F_EWMA: *out = tv_movfn_ewma(v, n, m->args[0]); return TROVE_OK;
    case F_HOLT: *out = tv_movfn_holt(v, n, m->args[0], m->args[1]); return TROVE_OK;
    case F_STDDEV: *out = tv_movfn_std_dev(v, n, m->avg_arg ? tv_movfn_unweighted_avg(v, n) : m->args[0]); return TROVE_OK;
    case F_HW:
        return tv_movfn_holt_winters(v, n, m->args[0], m->args[1], m->args[2], (int)m->args[3], m->args[4] != 0, out, err);
    default:
        break;
    }
    /* Painless: the window as a list of Doubles, the result a double */
    if (!m->qs) return tv_error_set(err, TROVE_EUNSUPPORTED, "[moving_fn] script is not compiled");
    tv_arena wa;
    tv_arena_init(&wa);
    tv_qscript_exec x;
    tv_qscript_exec_init(&x, m->qs, NULL, NULL, err);
    tv_status st = TROVE_OK;
    if (!tv_sv_list_new(&wa, TV_SV_ARRAY, &x.values)) st = tv_error_oom(err);
    for (size_t i = 0; !st && i < n; i++)
        if (!tv_sv_list_add(&wa, x.values.v.list, tv_sv_double(v[i]))) st = tv_error_oom(err);
    tv_sv r;
    const char *what = NULL;
    if (!st) st = tv_qscript_run(&x, NULL, 0, 0.0, NULL, &r);
    if (!st && !tv_qscript_number(&r, out, &what)) /* MovingFunctionScript.execute returns a double */
        st = tv_qscript_cast_fail(m->qs, what, "double", err, NULL);
    tv_qscript_exec_fini(&x);
    tv_arena_fini(&wa);
    return st;
}
