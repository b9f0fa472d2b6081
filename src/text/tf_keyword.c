/*
 * tf_keyword.c — the filters around Lucene's KeywordAttribute
 * (TV_TOKF_KEYWORD, which stemmers honour):
 *   keyword_marker    SetKeywordMarkerFilter over `keywords` (ignore_case),
 *                     or PatternKeywordMarkerFilter over `keywords_pattern`
 *                     (the whole term must match, Java regex syntax)
 *   keyword_repeat    KeywordRepeatFilter: each token twice at one position,
 *                     first marked keyword, then unmarked
 *   stemmer_override  StemmerOverrideFilter: `rules` "a, b => c" replace an
 *                     unmarked term that equals a key and mark it keyword
 *                     (the first rule for a key wins, as the builder keeps it)
 *
 * Override rules are kept sorted for a binary search per token; rejected:
 * Lucene's FST (the rule sets are small).
 */
#include <stdlib.h>

#include "text/text_int.h"

/* ------------------------------------------------------- keyword_marker */

typedef struct marker_cfg {
    const tv_termset *words;
    const tv_jregex *pattern;
} marker_cfg;

static tv_status marker_build(tv_comp *c, const void **out, tv_error *err) {
    if (tv_comp_bare(c)) return tv_comp_requires_settings(err);
    marker_cfg *m = tv_comp_alloc(c, sizeof *m);
    if (!m) return TROVE_ENOMEM;
    memset(m, 0, sizeof *m);
    bool ignore_case;
    tv_status st = tv_comp_bool(c, "ignore_case", false, &ignore_case, err);
    if (st) return st;
    size_t pl;
    const char *pat = tv_comp_str(c, "keywords_pattern", &pl);
    if (pat) {
        if (tv_comp_has(c, "keywords") || tv_comp_has(c, "keywords_path"))
            return tv_error_set(err, TROVE_EARG,
                                "cannot specify both `keywords_pattern` and `keywords` or `keywords_path`");
        tv_jregex *re;
        if ((st = tv_jregex_compile(c, pat, pl, NULL, 0, &re, err))) return st;
        m->pattern = re;
    } else {
        if (!tv_comp_has(c, "keywords") && !tv_comp_has(c, "keywords_path"))
            return tv_error_set(err, TROVE_EARG,
                                "keyword filter requires either `keywords`, `keywords_path`, or "
                                "`keywords_pattern` to be configured");
        if ((st = tv_comp_words(c, "keywords", NULL, ignore_case, &m->words, err))) return st;
        if (!m->words && (st = tv_comp_termset(c, NULL, NULL, 0, ignore_case, &m->words)))
            return st;
    }
    *out = m;
    return TROVE_OK;
}

static tv_status marker_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const marker_cfg *m = cfg;
    tv_jmatcher jm;
    if (m->pattern && tv_jregex_start(&jm, a, m->pattern)) return TROVE_ENOMEM;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        if (t->flags & TV_TOKF_KEYWORD) continue;
        bool hit = m->pattern ? tv_jregex_matches(&jm, t->term, t->term_len)
                              : tv_termset_has(m->words, t->term, t->term_len);
        if (hit) t->flags |= TV_TOKF_KEYWORD;
    }
    return TROVE_OK;
}

/* ------------------------------------------------------- keyword_repeat */

static tv_status repeat_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)cfg;
    tv_tokvec out = {0};
    for (size_t i = 0; i < v->len; i++) {
        tv_token t = v->items[i];
        t.flags |= TV_TOKF_KEYWORD;
        if (tv_tokvec_push(a, &out, &t)) return TROVE_ENOMEM;
        t.flags &= (uint8_t)~TV_TOKF_KEYWORD;
        t.position = 0;
        if (tv_tokvec_push(a, &out, &t)) return TROVE_ENOMEM;
    }
    out.trailing = v->trailing;
    *v = out;
    return TROVE_OK;
}

/* ----------------------------------------------------- stemmer_override */

typedef struct override_rule {
    const char *key, *val;
    uint32_t klen, vlen;
    uint32_t order; /* rule order: the first for a key wins */
} override_rule;

typedef struct override_cfg {
    override_rule *rules;
    size_t n;
} override_cfg;

static int cmp_rule(const void *x, const void *y) {
    const override_rule *a = x, *b = y;
    int c = tv_memcmp2(a->key, a->klen, b->key, b->klen);
    if (c) return c;
    return a->order < b->order ? -1 : a->order > b->order;
}

static bool java_trim_char(char ch) { return (unsigned char)ch <= ' '; }

static void trim(const char **s, size_t *n) {
    while (*n && java_trim_char(**s)) (*s)++, (*n)--;
    while (*n && java_trim_char((*s)[*n - 1])) (*n)--;
}

static tv_status override_build(tv_comp *c, const void **out, tv_error *err) {
    if (tv_comp_bare(c)) return tv_comp_requires_settings(err);
    if (tv_comp_has(c, "rules_path"))
        return tv_error_set(err, TROVE_EUNSUPPORTED, "[rules_path] is not supported for [%s]",
                            tv_comp_name(c));
    if (!tv_comp_has(c, "rules"))
        return tv_error_set(err, TROVE_EARG,
                            "stemmer override filter requires either `rules` or `rules_path` to be configured");
    const char *const *rules;
    const size_t *lens;
    size_t n;
    tv_comp_list(c, "rules", &rules, &lens, &n);
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        cap++;
        for (size_t k = 0; k < lens[i]; k++) cap += rules[i][k] == ',';
    }
    override_cfg *o = tv_comp_alloc(c, sizeof *o);
    override_rule *rs = tv_comp_alloc(c, (cap ? cap : 1) * sizeof *rs);
    if (!o || !rs) return TROVE_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const char *r = rules[i];
        size_t rl = lens[i], arrow = SIZE_MAX, arrows = 0;
        for (size_t k = 0; k + 1 < rl; k++)
            if (r[k] == '=' && r[k + 1] == '>') {
                if (arrow == SIZE_MAX) arrow = k;
                arrows++;
                k++;
            }
        if (arrows != 1) goto bad;
        const char *val = r + arrow + 2;
        size_t vl = rl - arrow - 2;
        trim(&val, &vl);
        if (vl == 0 || memchr(val, ',', vl)) goto bad;
        char *v = tv_comp_strdup(c, val, vl);
        if (!v) return TROVE_ENOMEM;
        size_t b = 0;
        for (size_t k = 0; k <= arrow; k++) {
            if (k < arrow && r[k] != ',') continue;
            const char *key = r + b;
            size_t kl = k - b;
            trim(&key, &kl);
            if (kl == 0) goto bad;
            char *kk = tv_comp_strdup(c, key, kl);
            if (!kk) return TROVE_ENOMEM;
            rs[m] = (override_rule){kk, v, (uint32_t)kl, (uint32_t)vl, (uint32_t)m};
            m++;
            b = k + 1;
        }
        continue;
    bad:
        return tv_error_set(err, TROVE_ERUNTIME, "Invalid Keyword override Rule:%.*s", (int)rl, r);
    }
    qsort(rs, m, sizeof *rs, cmp_rule);
    size_t u = 0; /* keep the first rule of each key */
    for (size_t i = 0; i < m; i++) {
        if (u && rs[u - 1].klen == rs[i].klen && memcmp(rs[u - 1].key, rs[i].key, rs[i].klen) == 0)
            continue;
        rs[u++] = rs[i];
    }
    o->rules = rs;
    o->n = u;
    *out = o;
    return TROVE_OK;
}

static tv_status override_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    const override_cfg *o = cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        if (t->flags & TV_TOKF_KEYWORD) continue;
        size_t lo = 0, hi = o->n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            int c = tv_memcmp2(o->rules[mid].key, o->rules[mid].klen, t->term, t->term_len);
            if (c == 0) {
                t->term = o->rules[mid].val;
                t->term_len = o->rules[mid].vlen;
                t->flags |= TV_TOKF_KEYWORD;
                break;
            }
            if (c < 0) lo = mid + 1;
            else hi = mid;
        }
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_keyword_marker = {"keyword_marker", marker_build, marker_apply};
const tv_filter_type tv_tf_keyword_repeat = {"keyword_repeat", NULL, repeat_apply};
const tv_filter_type tv_tf_stemmer_override = {"stemmer_override", override_build, override_apply};
