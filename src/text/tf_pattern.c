/*
 * tf_pattern.c — the two pattern token filters, over jregex.c's Java
 * regular expressions:
 *   pattern_replace  Lucene's PatternReplaceFilter: when `pattern` is found
 *                    in a term, every match (`all`, the default) or the
 *                    first is replaced by `replacement` with Java's
 *                    Matcher syntax ($1, ${name}, \ escapes); `flags` as
 *                    OpenSearch's Regex.flagsFromString reads them
 *   pattern_capture  Lucene's PatternCaptureGroupTokenFilter: each
 *                    non-empty capture group of every match of every
 *                    pattern becomes a token stacked on the original
 *                    (kept first when preserve_original, the default),
 *                    emitted in order of start offset across patterns;
 *                    without preserve_original a term nothing captures
 *                    stays as it is
 *
 * Matchers (their match data) live in the request's arena, one per pattern
 * and apply, reset onto each term.
 */
#include "text/text_int.h"

/* ------------------------------------------------------ pattern_replace */

typedef struct replace_cfg {
    tv_jregex *re;
    tv_jrepl repl;
    bool all;
} replace_cfg;

static tv_status replace_build(tv_comp *c, const void **out, tv_error *err) {
    if (tv_comp_bare(c)) return tv_comp_requires_settings(err);
    size_t pl, fl = 0, rl = 0;
    const char *pat = tv_comp_str(c, "pattern", &pl);
    if (!pat)
        return tv_error_set(err, TROVE_EARG,
                            "pattern is missing for [%s] token filter of type 'pattern_replace'",
                            tv_comp_name(c));
    const char *flags = tv_comp_str(c, "flags", &fl);
    const char *repl = tv_comp_str(c, "replacement", &rl);
    replace_cfg *r = tv_comp_alloc(c, sizeof *r);
    if (!r) return TROVE_ENOMEM;
    memset(r, 0, sizeof *r);
    tv_status st = tv_jregex_compile(c, pat, pl, flags, fl, &r->re, err);
    if (!st) st = tv_comp_bool(c, "all", true, &r->all, err);
    if (!st) st = tv_jrepl_parse(c, r->re, repl ? repl : "", repl ? rl : 0, &r->repl, err);
    if (st) return st;
    *out = r;
    return TROVE_OK;
}

static tv_status replace_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const replace_cfg *r = cfg;
    tv_jmatcher m;
    if (tv_jregex_start(&m, a, r->re)) return TROVE_ENOMEM;
    tv_buf b;
    tv_buf_init(&b);
    tv_status st = TROVE_OK;
    for (size_t i = 0; i < v->len && !st; i++) {
        tv_token *t = &v->items[i];
        const char *s = t->term;
        size_t n = t->term_len, last = 0;
        tv_jregex_reset(&m, s, n);
        if (!tv_jregex_find(&m)) continue;
        b.len = 0;
        do {
            tv_buf_append(&b, s + last, m.start - last);
            tv_jrepl_append(&r->repl, &m, &b);
            last = m.end;
        } while (r->all && tv_jregex_find(&m));
        tv_buf_append(&b, s + last, n - last);
        if (b.oom) {
            st = TROVE_ENOMEM;
            break;
        }
        char *o = tv_arena_memdup(a, b.data ? b.data : "", b.len);
        if (!o) st = TROVE_ENOMEM;
        t->term = o;
        t->term_len = (uint32_t)b.len;
    }
    tv_buf_fini(&b);
    return st;
}

/* ------------------------------------------------------ pattern_capture */

typedef struct capture_cfg {
    tv_jregex **res;
    size_t n;
    bool preserve;
} capture_cfg;

static tv_status capture_build(tv_comp *c, const void **out, tv_error *err) {
    if (tv_comp_bare(c)) return tv_comp_requires_settings(err);
    if (!tv_comp_has(c, "patterns"))
        return tv_error_set(err, TROVE_EARG,
                            "required setting 'patterns' is missing for token filter [%s]",
                            tv_comp_name(c));
    const char *const *pats;
    const size_t *lens;
    size_t n;
    tv_comp_list(c, "patterns", &pats, &lens, &n);
    capture_cfg *cc = tv_comp_alloc(c, sizeof *cc);
    if (!cc) return TROVE_ENOMEM;
    cc->res = tv_comp_alloc(c, (n ? n : 1) * sizeof *cc->res);
    if (!cc->res) return TROVE_ENOMEM;
    cc->n = n;
    tv_status st;
    for (size_t i = 0; i < n; i++)
        if ((st = tv_jregex_compile(c, pats[i], lens[i], NULL, 0, &cc->res[i], err))) return st;
    if ((st = tv_comp_bool(c, "preserve_original", true, &cc->preserve, err))) return st;
    *out = cc;
    return TROVE_OK;
}

/* One pattern's walk over a term: its matcher and next group. */
typedef struct cap_state {
    tv_jmatcher m;
    int64_t group; /* -1: find the next match; 0: no more */
} cap_state;

static tv_status capture_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const capture_cfg *cc = cfg;
    cap_state *ms = tv_arena_alloc(a, (cc->n ? cc->n : 1) * sizeof *ms);
    if (!ms) return TROVE_ENOMEM;
    for (size_t i = 0; i < cc->n; i++)
        if (tv_jregex_start(&ms[i].m, a, cc->res[i])) return TROVE_ENOMEM;
    tv_tokvec out = {0};
    for (size_t ti = 0; ti < v->len; ti++) {
        const tv_token *t = &v->items[ti];
        const char *s = t->term;
        size_t n = t->term_len;
        for (size_t i = 0; i < cc->n; i++) {
            tv_jregex_reset(&ms[i].m, s, n);
            ms[i].group = -1;
        }
        bool first = true;
        if (cc->preserve) {
            if (tv_tokvec_push(a, &out, t)) return TROVE_ENOMEM;
            first = false;
        }
        for (;;) { /* nextCapture(): the capture with the lowest start */
            int best = -1;
            size_t best_start = SIZE_MAX, best_end = 0;
            for (size_t i = 0; i < cc->n; i++) {
                cap_state *m = &ms[i];
                uint32_t ng = tv_jregex_groups(cc->res[i]);
                if (m->group == -1) m->group = tv_jregex_find(&m->m) ? 1 : 0;
                if (m->group == 0) continue;
                while (m->group < (int64_t)ng + 1) {
                    size_t gs, ge;
                    if (!tv_jregex_group(&m->m, (uint32_t)m->group, &gs, &ge) || gs == ge ||
                        (cc->preserve && gs == 0 && ge == n)) {
                        m->group++;
                        continue;
                    }
                    if (gs < best_start) {
                        best_start = gs;
                        best_end = ge;
                        best = (int)i;
                    }
                    break;
                }
                if (m->group == (int64_t)ng + 1) {
                    m->group = -1;
                    i--; /* this pattern's next match */
                }
            }
            if (best < 0) break;
            tv_token o = *t;
            o.term = s + best_start;
            o.term_len = (uint32_t)(best_end - best_start);
            if (!first) o.position = 0;
            first = false;
            ms[best].group++;
            if (tv_tokvec_push(a, &out, &o)) return TROVE_ENOMEM;
        }
        if (first && tv_tokvec_push(a, &out, t)) return TROVE_ENOMEM; /* nothing captured */
    }
    out.trailing = v->trailing;
    *v = out;
    return TROVE_OK;
}

const tv_filter_type tv_tf_pattern_replace = {"pattern_replace", replace_build, replace_apply};
const tv_filter_type tv_tf_pattern_capture = {"pattern_capture", capture_build, capture_apply};
