/*
 * tok_pattern.c — the `pattern` tokenizer (Lucene's PatternTokenizer with
 * OpenSearch's PatternTokenizerFactory settings).
 *
 * Settings: pattern (Java regex, default \W+), flags (Regex.flagsFromString
 * names), group (-1 by default). With group -1 the text between matches
 * becomes the tokens (String.split: empty pieces dropped, the tail after
 * the last match kept); with group >= 0 each match's group is a token
 * (empty or non-participating groups skipped). Tokens are type "word",
 * increment 1. A group beyond the pattern's groups is Lucene's error.
 * Regular expressions run through jregex.c (PCRE2, Java find() semantics);
 * rejected: a hand-written regex engine (PCRE2 is on every Debian system).
 */
#include "text/text_int.h"

typedef struct pattern_cfg {
    tv_jregex *re;
    int group;
} pattern_cfg;

tv_status tv_tok_pattern_config(tv_comp *c, const char *pat, size_t plen, int64_t group,
                                const void **out, tv_error *err);

tv_status tv_tok_pattern_config(tv_comp *c, const char *pat, size_t plen, int64_t group,
                                const void **out, tv_error *err) {
    pattern_cfg *p = tv_comp_alloc(c, sizeof *p);
    if (!p) return TROVE_ENOMEM;
    size_t fl = 0;
    const char *flags = tv_comp_str(c, "flags", &fl);
    tv_status st = tv_jregex_compile(c, pat, plen, flags, fl, &p->re, err);
    if (st) return st;
    if (group >= 0 && group > tv_jregex_groups(p->re))
        return tv_error_set(err, TROVE_EARG,
                            "invalid group specified: pattern only has: %u capturing groups",
                            tv_jregex_groups(p->re));
    p->group = (int)group;
    *out = p;
    return TROVE_OK;
}

static tv_status pattern_build(tv_comp *c, const void **out, tv_error *err) {
    size_t pl = 0;
    const char *pat = tv_comp_str(c, "pattern", &pl);
    if (!pat) {
        if (tv_comp_has(c, "pattern"))
            return tv_error_set(err, TROVE_EARG,
                                "pattern is missing for [%s] tokenizer of type 'pattern'",
                                tv_comp_name(c));
        pat = "\\W+";
        pl = 3;
    }
    int64_t group;
    tv_status st = tv_comp_int(c, "group", -1, &group, err);
    if (st) return st;
    return tv_tok_pattern_config(c, pat, pl, group, out, err);
}

static tv_status emit(tv_arena *a, const char *text, size_t s, size_t e, tv_u16pos *u,
                      tv_tokvec *out) {
    uint32_t s16 = tv_u16_at(u, s), e16 = tv_u16_at(u, e);
    tv_token t = {.term = text + s, .term_len = (uint32_t)(e - s), .position = 1,
                  .start = (uint32_t)s, .end = (uint32_t)e, .start16 = s16, .end16 = e16,
                  .type = TV_TOK_WORD};
    return tv_tokvec_push(a, out, &t);
}

tv_status tv_tok_pattern_run(tv_arena *a, const void *cfg, const char *text, size_t len,
                             tv_tokvec *out);

tv_status tv_tok_pattern_run(tv_arena *a, const void *cfg, const char *text, size_t len,
                             tv_tokvec *out) {
    const pattern_cfg *p = cfg;
    if (len == 0) return TROVE_OK;
    tv_jmatcher m;
    if (tv_jregex_start(&m, a, p->re)) return TROVE_ENOMEM;
    tv_jregex_reset(&m, text, len);
    tv_u16pos u = {(const uint8_t *)text, 0, 0};
    tv_status st = TROVE_OK;
    if (p->group >= 0) {
        while (!st && tv_jregex_find(&m)) {
            size_t s, e;
            if (!tv_jregex_group(&m, (uint32_t)p->group, &s, &e) || s == e) continue;
            /* groups of later matches may start before an earlier one ended
             * (lookarounds): keep the UTF-16 walker monotonic */
            if (s < u.byte) u = (tv_u16pos){(const uint8_t *)text, 0, 0};
            st = emit(a, text, s, e, &u, out);
        }
    } else {
        size_t index = 0;
        while (!st && tv_jregex_find(&m)) {
            if (m.start > index) st = emit(a, text, index, m.start, &u, out);
            index = m.end;
        }
        if (!st && index < len) st = emit(a, text, index, len, &u, out);
    }
    return st;
}

const tv_tokenizer_type tv_tok_pattern = {"pattern", pattern_build, tv_tok_pattern_run};
