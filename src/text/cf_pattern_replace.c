/*
 * cf_pattern_replace.c — the `pattern_replace` char filter (Lucene's
 * PatternReplaceCharFilter with OpenSearch's
 * PatternReplaceCharFilterFactory settings: pattern (required), replacement
 * ($1 and ${name} groups, \ escapes; "" by default), flags).
 *
 * Every match of the whole input is replaced (Matcher.appendReplacement);
 * offsets are corrected as Lucene does: a shorter replacement records, at
 * its end, the cumulative shrink; a longer one maps each extra output unit
 * back one step at a time (here in bytes, which coincides with Lucene's
 * UTF-16 units for ASCII and maps to the same characters otherwise).
 * Rejected: Lucene's chunked reading (the input is already whole here).
 */
#include "text/text_int.h"

typedef struct prc_cfg {
    tv_jregex *re;
    tv_jrepl repl;
} prc_cfg;

static tv_status prc_build(tv_comp *c, const void **out, tv_error *err) {
    size_t pl = 0, rl = 0, fl = 0;
    const char *pat = tv_comp_str(c, "pattern", &pl);
    if (!pat || pl == 0)
        return tv_error_set(err, TROVE_EARG,
                            "pattern is missing for [%s] char filter of type 'pattern_replace'",
                            tv_comp_name(c));
    prc_cfg *p = tv_comp_alloc(c, sizeof *p);
    if (!p) return TROVE_ENOMEM;
    const char *flags = tv_comp_str(c, "flags", &fl);
    tv_status st = tv_jregex_compile(c, pat, pl, flags, fl, &p->re, err);
    if (st) return st;
    const char *rep = tv_comp_str(c, "replacement", &rl);
    if (!rep) {
        rep = "";
        rl = 0;
    }
    if ((st = tv_jrepl_parse(c, p->re, rep, rl, &p->repl, err))) return st;
    *out = p;
    return TROVE_OK;
}

static tv_status prc_run(tv_arena *a, const void *cfg, const char *in, size_t len, tv_cfout *out) {
    const prc_cfg *p = cfg;
    tv_jmatcher m;
    if (tv_jregex_start(&m, a, p->re)) return TROVE_ENOMEM;
    tv_jregex_reset(&m, in, len);
    tv_buf b;
    tv_buf_init(&b);
    tv_status st = TROVE_OK;
    int64_t cum = 0;
    size_t last = 0;
    while (!st && tv_jregex_find(&m)) {
        int64_t group_size = (int64_t)(m.end - m.start);
        tv_buf_append(&b, in + last, m.start - last);
        last = m.end;
        int64_t before = (int64_t)b.len;
        tv_jrepl_append(&p->repl, &m, &b);
        int64_t repl_size = (int64_t)b.len - before;
        if (repl_size < group_size) {
            cum += group_size - repl_size;
            st = tv_offmap_add(a, &out->map, (uint32_t)(before + repl_size), (int32_t)cum);
        } else {
            for (int64_t i = group_size; i < repl_size && !st; i++)
                st = tv_offmap_add(a, &out->map, (uint32_t)(before + i), (int32_t)--cum);
        }
    }
    tv_buf_append(&b, in + last, len - last);
    if (b.oom) st = TROVE_ENOMEM;
    if (!st) {
        char *t = tv_arena_memdup(a, b.data ? b.data : "", b.len);
        if (!t) st = TROVE_ENOMEM;
        out->text = t;
        out->len = b.len;
    }
    tv_buf_fini(&b);
    return st;
}

const tv_charfilter_type tv_cf_pattern_replace = {"pattern_replace", prc_build, prc_run};
