/*
 * tf_pattern.c — Java regular expressions through PCRE2 (tv_comp_regex,
 * shared with keyword_marker's keywords_pattern) and the two pattern
 * token filters:
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
 * Java's syntax is mostly PCRE2's. What differs is bridged before
 * compiling: \uXXXX (PCRE2_ALT_BSUX), Java's POSIX-style \p{Lower},
 * \p{Alpha}, ... (ASCII unless UNICODE_CHAR_CLASS, as in Java) and the
 * Is/In prefixes of \p{IsLatin}; line terminators are Java's (any Unicode
 * newline) unless UNIX_LINES. Known gaps: character class intersection
 * (&&) is refused, CASE_INSENSITIVE also folds non-ASCII letters, and the
 * reason of a syntax error is PCRE2's wording in Java's "near index"
 * shape. Matching walks find() as Java does: after an empty match the next
 * search starts one code point further.
 *
 * Compiled patterns are allocated in the registry's arena through a PCRE2
 * general context (freed with the registry); match data in the request's
 * arena. Rejected: POSIX <regex.h> (no lookaround, no lazy quantifiers,
 * no Unicode) and a hand-written backtracking engine.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

#include "text/text_int.h"

struct tv_regex {
    pcre2_code *code;
    uint32_t ngroups;
};

static void *reg_malloc(size_t n, void *data) { return tv_analysis_alloc(data, n); }
static void *arena_malloc(size_t n, void *data) { return tv_arena_alloc(data, n); }
static void no_free(void *p, void *data) {
    (void)p;
    (void)data;
}

/* OpenSearch's Regex.flagsFromString. */
static tv_status parse_flags(const char *f, size_t n, uint32_t *opts, bool *unix_lines,
                             tv_error *err) {
    static const struct { const char *name; uint32_t opt; } m[] = {
        {"CASE_INSENSITIVE", PCRE2_CASELESS}, {"MULTILINE", PCRE2_MULTILINE},
        {"DOTALL", PCRE2_DOTALL}, {"UNICODE_CASE", 0}, {"CANON_EQ", 0}, {"UNIX_LINES", 0},
        {"LITERAL", PCRE2_LITERAL}, {"COMMENTS", PCRE2_EXTENDED},
        {"UNICODE_CHAR_CLASS", PCRE2_UCP}};
    size_t b = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && f[i] != '|') continue;
        char up[64];
        size_t k = 0;
        for (size_t j = b; j < i && k < sizeof up - 1; j++)
            up[k++] = (char)(f[j] >= 'a' && f[j] <= 'z' ? f[j] - 32 : f[j]);
        up[k] = 0;
        b = i + 1;
        if (k == 0) continue;
        size_t x = 0;
        while (x < TV_ARRAY_LEN(m) && strcmp(m[x].name, up) != 0) x++;
        if (x == TV_ARRAY_LEN(m))
            return tv_error_set(err, TROVE_EARG, "Unknown regex flag [%s]", up);
        if (tv_streq(up, k, "CANON_EQ"))
            return tv_error_set(err, TROVE_EUNSUPPORTED, "regex flag [CANON_EQ] is not supported");
        if (tv_streq(up, k, "UNIX_LINES")) *unix_lines = true;
        *opts |= m[x].opt;
    }
    return TROVE_OK;
}

/* Java's POSIX-style property classes, as PCRE2 POSIX class names. */
static const char *posix_name(const char *n, size_t len) {
    static const struct { const char *java, *posix; } m[] = {
        {"Lower", "lower"}, {"Upper", "upper"}, {"ASCII", "ascii"}, {"Alpha", "alpha"},
        {"Digit", "digit"}, {"Alnum", "alnum"}, {"Punct", "punct"}, {"Graph", "graph"},
        {"Print", "print"}, {"Blank", "blank"}, {"Cntrl", "cntrl"}, {"XDigit", "xdigit"},
        {"Space", "space"}};
    for (size_t i = 0; i < TV_ARRAY_LEN(m); i++)
        if (tv_streq(n, len, m[i].java)) return m[i].posix;
    return NULL;
}

/* Rewrites Java-only syntax into PCRE2's (see the file comment). */
static tv_status translate(const char *p, size_t n, tv_buf *o, tv_error *err) {
    int depth = 0; /* inside [...] */
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '\\' && i + 1 < n) {
            char d = p[i + 1];
            if (d == 'Q') { /* a quoted span goes through untouched */
                const char *e = NULL;
                for (size_t k = i + 2; k + 1 < n; k++)
                    if (p[k] == '\\' && p[k + 1] == 'E') {
                        e = p + k;
                        break;
                    }
                size_t stop = e ? (size_t)(e - p) + 2 : n;
                tv_buf_append(o, p + i, stop - i);
                i = stop - 1;
                continue;
            }
            if ((d == 'p' || d == 'P') && i + 2 < n && p[i + 2] == '{') {
                const char *close = memchr(p + i + 3, '}', n - i - 3);
                if (close) {
                    const char *nm = p + i + 3;
                    size_t nl = (size_t)(close - nm);
                    const char *px = posix_name(nm, nl);
                    if (!px && nl > 4 && memcmp(nm, "java", 4) == 0) {
                        /* \p{javaLowerCase} & co.: Character.isXxx */
                        const char *prop = tv_streq(nm, nl, "javaLowerCase") ? "Ll"
                                           : tv_streq(nm, nl, "javaUpperCase") ? "Lu"
                                           : tv_streq(nm, nl, "javaLetter") ? "L"
                                           : tv_streq(nm, nl, "javaDigit") ? "Nd" : NULL;
                        if (!prop)
                            return tv_error_set(err, TROVE_EUNSUPPORTED,
                                                "regex property [%.*s] is not supported", (int)nl, nm);
                        tv_buf_printf(o, "\\%c{%s}", d, prop);
                    } else if (px) {
                        if (depth) tv_buf_printf(o, "[:%s%s:]", d == 'P' ? "^" : "", px);
                        else tv_buf_printf(o, "[[:%s%s:]]", d == 'P' ? "^" : "", px);
                    } else if (nl > 2 && (memcmp(nm, "Is", 2) == 0 || memcmp(nm, "In", 2) == 0)) {
                        tv_buf_printf(o, "\\%c{%.*s}", d, (int)(nl - 2), nm + 2);
                    } else {
                        tv_buf_append(o, p + i, (size_t)(close - p) + 1 - i);
                    }
                    i = (size_t)(close - p);
                    continue;
                }
            }
            tv_buf_putc(o, c);
            tv_buf_putc(o, d);
            i++;
            continue;
        }
        if (c == '[') depth++;
        else if (c == ']' && depth) depth--;
        else if (c == '&' && depth && i + 1 < n && p[i + 1] == '&')
            return tv_error_set(err, TROVE_EUNSUPPORTED,
                                "regex character class intersection (&&) is not supported");
        tv_buf_putc(o, c);
    }
    return o->oom ? TROVE_ENOMEM : TROVE_OK;
}

tv_status tv_comp_regex(tv_comp *c, const char *pattern, size_t len, const char *flags,
                        size_t flags_len, struct tv_regex **out, tv_error *err) {
    uint32_t opts = PCRE2_UTF | PCRE2_ALT_BSUX;
    bool unix_lines = false;
    tv_status st;
    if (flags && (st = parse_flags(flags, flags_len, &opts, &unix_lines, err))) return st;
    tv_buf b;
    tv_buf_init(&b);
    if (opts & PCRE2_LITERAL) tv_buf_append(&b, pattern, len);
    else if ((st = translate(pattern, len, &b, err))) {
        tv_buf_fini(&b);
        return st;
    }
    if (b.oom) {
        tv_buf_fini(&b);
        return TROVE_ENOMEM;
    }
    pcre2_general_context *g = pcre2_general_context_create(reg_malloc, no_free, c->reg);
    pcre2_compile_context *cc = g ? pcre2_compile_context_create(g) : NULL;
    struct tv_regex *re = tv_comp_alloc(c, sizeof *re);
    if (!cc || !re) {
        tv_buf_fini(&b);
        return TROVE_ENOMEM;
    }
    pcre2_set_newline(cc, unix_lines ? PCRE2_NEWLINE_LF : PCRE2_NEWLINE_ANY);
    pcre2_set_compile_extra_options(cc, PCRE2_EXTRA_ALT_BSUX);
    int ec;
    PCRE2_SIZE eo;
    re->code = pcre2_compile((PCRE2_SPTR)(b.data ? b.data : ""), b.len, opts, &ec, &eo, cc);
    tv_buf_fini(&b);
    if (!re->code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof msg);
        if (eo > len) eo = len;
        /* PatternSyntaxException's shape: description, index, pattern, caret */
        return tv_error_set(err, TROVE_EARG, "%s near index %zu\n%.*s\n%*s^", (const char *)msg,
                            (size_t)eo, (int)len, pattern, (int)eo, "");
    }
    pcre2_pattern_info(re->code, PCRE2_INFO_CAPTURECOUNT, &re->ngroups);
    *out = re;
    return TROVE_OK;
}

static pcre2_match_data *match_data(tv_arena *a, const struct tv_regex *re) {
    pcre2_general_context *g = pcre2_general_context_create(arena_malloc, no_free, a);
    return g ? pcre2_match_data_create_from_pattern(re->code, g) : NULL;
}

bool tv_regex_matches(const struct tv_regex *re, const char *s, size_t n) {
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re->code, NULL);
    if (!md) return false;
    int rc = pcre2_match(re->code, (PCRE2_SPTR)s, n, 0, PCRE2_ANCHORED | PCRE2_ENDANCHORED, md,
                         NULL);
    pcre2_match_data_free(md);
    return rc >= 0;
}

/* Java's Matcher.find() from `from`: the match's ovector, or NULL. */
static PCRE2_SIZE *find(const struct tv_regex *re, pcre2_match_data *md, const char *s, size_t n,
                        size_t from) {
    if (from > n) return NULL;
    int rc = pcre2_match(re->code, (PCRE2_SPTR)s, n, from, 0, md, NULL);
    return rc >= 0 ? pcre2_get_ovector_pointer(md) : NULL;
}

/* Where the search after match [ms, me) starts (one code point on after an empty one). */
static size_t next_from(const char *s, size_t n, size_t ms, size_t me) {
    if (me != ms) return me;
    if (me >= n) return n + 1;
    size_t k = me + 1;
    while (k < n && ((uint8_t)s[k] & 0xC0) == 0x80) k++;
    return k;
}

/* ------------------------------------------------------ pattern_replace */

typedef struct repl_part {
    const char *lit; /* NULL: group `group` */
    uint32_t len, group;
} repl_part;

typedef struct replace_cfg {
    struct tv_regex *re;
    repl_part *parts;
    size_t nparts;
    bool all;
} replace_cfg;

/* Java's appendReplacement syntax, checked against the pattern's groups. */
static tv_status parse_replacement(tv_comp *c, replace_cfg *r, const char *s, size_t n,
                                   tv_error *err) {
    r->parts = tv_comp_alloc(c, (n + 1) * sizeof *r->parts);
    char *lit = tv_comp_alloc(c, n + 1);
    if (!r->parts || !lit) return TROVE_ENOMEM;
    size_t np = 0, lo = 0, lstart = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] == '\\') {
            if (i + 1 >= n)
                return tv_error_set(err, TROVE_EARG, "character to be escaped is missing");
            lit[lo++] = s[i + 1];
            i += 2;
            continue;
        }
        if (s[i] != '$') {
            lit[lo++] = s[i++];
            continue;
        }
        if (lo > lstart) r->parts[np++] = (repl_part){lit + lstart, (uint32_t)(lo - lstart), 0};
        lstart = lo;
        i++;
        if (i >= n) return tv_error_set(err, TROVE_EARG, "Illegal group reference: group index is missing");
        uint32_t g;
        if (s[i] == '{') {
            size_t b = ++i;
            while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                             (i > b && s[i] >= '0' && s[i] <= '9')))
                i++;
            if (i == b) return tv_error_set(err, TROVE_EARG, "named capturing group has 0 length name");
            if (i >= n || s[i] != '}')
                return tv_error_set(err, TROVE_EARG, "named capturing group is missing trailing '}'");
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(i - b), s + b);
            int num = pcre2_substring_number_from_name(r->re->code, (PCRE2_SPTR)name);
            if (num < 0)
                return tv_error_set(err, TROVE_EARG, "No group with name {%s}", name);
            g = (uint32_t)num;
            i++;
        } else {
            if (s[i] < '0' || s[i] > '9')
                return tv_error_set(err, TROVE_EARG, "Illegal group reference");
            g = (uint32_t)(s[i++] - '0');
            while (i < n && s[i] >= '0' && s[i] <= '9') {
                uint32_t ng = g * 10 + (uint32_t)(s[i] - '0');
                if (ng > r->re->ngroups) break;
                g = ng;
                i++;
            }
            if (g > r->re->ngroups) return tv_error_set(err, TROVE_EARG, "No group %u", g);
        }
        r->parts[np++] = (repl_part){NULL, 0, g};
    }
    if (lo > lstart) r->parts[np++] = (repl_part){lit + lstart, (uint32_t)(lo - lstart), 0};
    r->nparts = np;
    return TROVE_OK;
}

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
    tv_status st = tv_comp_regex(c, pat, pl, flags, fl, &r->re, err);
    if (!st) st = tv_comp_bool(c, "all", true, &r->all, err);
    if (!st) st = parse_replacement(c, r, repl ? repl : "", repl ? rl : 0, err);
    if (st) return st;
    *out = r;
    return TROVE_OK;
}

static tv_status replace_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const replace_cfg *r = cfg;
    pcre2_match_data *md = match_data(a, r->re);
    if (!md) return TROVE_ENOMEM;
    tv_buf b;
    tv_buf_init(&b);
    tv_status st = TROVE_OK;
    for (size_t i = 0; i < v->len && !st; i++) {
        tv_token *t = &v->items[i];
        const char *s = t->term;
        size_t n = t->term_len, from = 0, last = 0;
        PCRE2_SIZE *ov = find(r->re, md, s, n, 0);
        if (!ov) continue;
        b.len = 0;
        while (ov) {
            size_t ms = ov[0], me = ov[1];
            tv_buf_append(&b, s + last, ms - last);
            for (size_t k = 0; k < r->nparts; k++) {
                const repl_part *p = &r->parts[k];
                if (p->lit) tv_buf_append(&b, p->lit, p->len);
                else if (ov[2 * p->group] != PCRE2_UNSET)
                    tv_buf_append(&b, s + ov[2 * p->group], ov[2 * p->group + 1] - ov[2 * p->group]);
            }
            last = me;
            if (!r->all) break;
            from = next_from(s, n, ms, me);
            ov = find(r->re, md, s, n, from);
        }
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
    struct tv_regex **res;
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
        if ((st = tv_comp_regex(c, pats[i], lens[i], NULL, 0, &cc->res[i], err))) return st;
    if ((st = tv_comp_bool(c, "preserve_original", true, &cc->preserve, err))) return st;
    *out = cc;
    return TROVE_OK;
}

/* One pattern's walk over a term: its current match and next group. */
typedef struct cap_state {
    pcre2_match_data *md;
    PCRE2_SIZE *ov;
    size_t from;
    int64_t group; /* -1: find the next match; 0: no more */
} cap_state;

static tv_status capture_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const capture_cfg *cc = cfg;
    cap_state *ms = tv_arena_alloc(a, (cc->n ? cc->n : 1) * sizeof *ms);
    if (!ms) return TROVE_ENOMEM;
    for (size_t i = 0; i < cc->n; i++) {
        ms[i].md = match_data(a, cc->res[i]);
        if (!ms[i].md) return TROVE_ENOMEM;
    }
    tv_tokvec out = {0};
    for (size_t ti = 0; ti < v->len; ti++) {
        const tv_token *t = &v->items[ti];
        const char *s = t->term;
        size_t n = t->term_len;
        for (size_t i = 0; i < cc->n; i++) {
            ms[i].ov = NULL;
            ms[i].from = 0;
            ms[i].group = -1;
        }
        bool first = true;
        if (cc->preserve) {
            if (tv_tokvec_push(a, &out, t)) return TROVE_ENOMEM;
            first = false;
        }
        for (;;) { /* nextCapture(): the capture with the lowest start */
            int best = -1;
            size_t best_start = SIZE_MAX;
            for (size_t i = 0; i < cc->n; i++) {
                cap_state *m = &ms[i];
                uint32_t ng = cc->res[i]->ngroups;
                if (m->group == -1) {
                    m->ov = find(cc->res[i], m->md, s, n, m->from);
                    if (m->ov) m->from = next_from(s, n, m->ov[0], m->ov[1]);
                    m->group = m->ov ? 1 : 0;
                }
                if (m->group == 0) continue;
                while (m->group < (int64_t)ng + 1) {
                    PCRE2_SIZE gs = m->ov[2 * m->group], ge = m->ov[2 * m->group + 1];
                    if (gs == PCRE2_UNSET || gs == ge || (cc->preserve && gs == 0 && ge == n)) {
                        m->group++;
                        continue;
                    }
                    if (gs < best_start) {
                        best_start = gs;
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
            cap_state *m = &ms[best];
            tv_token o = *t;
            o.term = s + m->ov[2 * m->group];
            o.term_len = (uint32_t)(m->ov[2 * m->group + 1] - m->ov[2 * m->group]);
            if (!first) o.position = 0;
            first = false;
            m->group++;
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
