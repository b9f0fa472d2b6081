/*
 * jregex.c — java.util.regex over PCRE2 (Debian's libpcre2-8) in UTF mode:
 * the one regular-expression engine of analysis. The pattern tokenizer and
 * analyzer, the pattern_replace char filter and token filter,
 * pattern_capture and keyword_marker's keywords_pattern all compile here.
 *
 * Compiling: OpenSearch's Regex.flagsFromString names ("CASE_INSENSITIVE|
 * COMMENTS", case-insensitive, empty parts skipped; an unknown name is
 * "Unknown regex flag [X]") map onto PCRE2 options: CASE_INSENSITIVE ->
 * CASELESS, MULTILINE, DOTALL, COMMENTS -> EXTENDED_MORE (Java also ignores
 * blanks inside classes), LITERAL, UNICODE_CHAR(ACTER)_CLASS -> UCP (Java's
 * \w \d \s \b are ASCII without it, as PCRE2's are without UCP); lines end
 * at any of Java's line terminators (PCRE2_NEWLINE_ANY: "." also stops at
 * U+0085/U+2028/U+2029) unless UNIX_LINES (LF only). UNICODE_CASE is
 * accepted; CANON_EQ answers unsupported.
 *
 * Java-only syntax is rewritten before compiling (translate()): \uXXXX and
 * \x{h..h} (PCRE2's ALT_BSUX), the POSIX-style \p{Lower}, \p{Alpha}, ...
 * (ASCII, as in Java without UNICODE_CHARACTER_CLASS), \p{javaLowerCase}
 * and kin, and the Is/In prefixes of \p{IsLatin}; \Q...\E spans pass
 * untouched. Known gaps: character class intersection (&&) answers
 * unsupported; without UNICODE_CASE Java folds only ASCII case while PCRE2
 * folds all (e.g. "k" also matches U+212A). A pattern PCRE2 rejects answers
 * Java's PatternSyntaxException (pattern_syntax_exception, its message
 * shape "desc near index N\npattern\n   ^" with PCRE2's description).
 *
 * Matching follows Matcher.find(): after an empty match at p the next
 * search starts one code point on (PCRE2's usual loop would first retry for
 * a non-empty match at p). Replacement strings follow
 * Matcher.appendReplacement: $n (more digits taken while the number stays
 * a group), ${name}, \x for a literal x; they are parsed once when the
 * component is built, with Java's error texts.
 *
 * Ownership: compiled code is PCRE2's (JIT-compiled when the platform
 * allows), freed with the registry through tv_comp_on_free; match data
 * lives in the caller's arena. Rejected: POSIX <regex.h> (no lookaround,
 * no lazy quantifiers, no Unicode) and a hand-written backtracking engine.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

#include "text/text_int.h"

struct tv_jregex {
    pcre2_code *code;
    uint32_t ngroups;
};

/* ---------------------------------------------------------- compiling */

/* OpenSearch's Regex.flagsFromString. */
static tv_status parse_flags(const char *f, size_t n, uint32_t *opts, bool *unix_lines,
                             tv_error *err) {
    static const struct {
        const char *name;
        uint32_t opt;
    } m[] = {{"CASE_INSENSITIVE", PCRE2_CASELESS},   {"MULTILINE", PCRE2_MULTILINE},
             {"DOTALL", PCRE2_DOTALL},               {"UNICODE_CASE", 0},
             {"CANON_EQ", 0},                        {"UNIX_LINES", 0},
             {"LITERAL", PCRE2_LITERAL},             {"COMMENTS", PCRE2_EXTENDED_MORE},
             {"UNICODE_CHAR_CLASS", PCRE2_UCP},      {"UNICODE_CHARACTER_CLASS", PCRE2_UCP}};
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
        if (x == TV_ARRAY_LEN(m)) return tv_error_set(err, TROVE_EARG, "Unknown regex flag [%s]", up);
        if (tv_streq(up, k, "CANON_EQ"))
            return tv_error_set(err, TROVE_EUNSUPPORTED, "regex flag [CANON_EQ] is not supported");
        if (tv_streq(up, k, "UNIX_LINES")) *unix_lines = true;
        *opts |= m[x].opt;
    }
    if ((*opts & PCRE2_LITERAL) && (*opts & PCRE2_EXTENDED_MORE)) *opts &= ~PCRE2_EXTENDED_MORE;
    return TROVE_OK;
}

/* Java's POSIX-style property classes, as PCRE2 POSIX class names. */
static const char *posix_name(const char *n, size_t len) {
    static const struct {
        const char *java, *posix;
    } m[] = {{"Lower", "lower"}, {"Upper", "upper"}, {"ASCII", "ascii"},   {"Alpha", "alpha"},
             {"Digit", "digit"}, {"Alnum", "alnum"}, {"Punct", "punct"},   {"Graph", "graph"},
             {"Print", "print"}, {"Blank", "blank"}, {"Cntrl", "cntrl"},   {"XDigit", "xdigit"},
             {"Space", "space"}};
    for (size_t i = 0; i < TV_ARRAY_LEN(m); i++)
        if (tv_streq(n, len, m[i].java)) return m[i].posix;
    return NULL;
}

/* \p{NAME} / \P{NAME} at p[i] (d is 'p' or 'P', close the '}'), rewritten. */
static tv_status property(const char *nm, size_t nl, char d, int depth, tv_buf *o,
                          const char *whole, size_t wlen, tv_error *err) {
    const char *px = posix_name(nm, nl);
    if (px) {
        tv_buf_printf(o, depth ? "[:%s%s:]" : "[[:%s%s:]]", d == 'P' ? "^" : "", px);
    } else if (nl > 4 && memcmp(nm, "java", 4) == 0) { /* Character.isXxx */
        const char *prop = tv_streq(nm, nl, "javaLowerCase")   ? "Ll"
                           : tv_streq(nm, nl, "javaUpperCase") ? "Lu"
                           : tv_streq(nm, nl, "javaLetter")    ? "L"
                           : tv_streq(nm, nl, "javaDigit")     ? "Nd"
                                                               : NULL;
        if (!prop)
            return tv_error_set(err, TROVE_EUNSUPPORTED, "regex property [%.*s] is not supported",
                                (int)nl, nm);
        tv_buf_printf(o, "\\%c{%s}", d, prop);
    } else if (nl > 2 && (memcmp(nm, "Is", 2) == 0 || memcmp(nm, "In", 2) == 0)) {
        tv_buf_printf(o, "\\%c{%.*s}", d, (int)(nl - 2), nm + 2);
    } else {
        tv_buf_append(o, whole, wlen);
    }
    return TROVE_OK;
}

/* Rewrites Java-only syntax into PCRE2's (see the file comment). */
static tv_status translate(const char *p, size_t n, tv_buf *o, tv_error *err) {
    int depth = 0; /* inside [...] */
    tv_status st;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '\\' && i + 1 < n) {
            char d = p[i + 1];
            if (d == 'Q') { /* a quoted span goes through untouched */
                size_t stop = n;
                for (size_t k = i + 2; k + 1 < n; k++)
                    if (p[k] == '\\' && p[k + 1] == 'E') {
                        stop = k + 2;
                        break;
                    }
                tv_buf_append(o, p + i, stop - i);
                i = stop - 1;
                continue;
            }
            const char *close = (d == 'p' || d == 'P') && i + 2 < n && p[i + 2] == '{'
                                    ? memchr(p + i + 3, '}', n - i - 3)
                                    : NULL;
            if (close) {
                size_t end = (size_t)(close - p) + 1;
                if ((st = property(p + i + 3, (size_t)(close - p) - i - 3, d, depth, o, p + i,
                                   end - i, err)))
                    return st;
                i = end - 1;
                continue;
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

static void free_code(void *p) { pcre2_code_free(p); }

static pcre2_code *compile(const char *pat, size_t plen, uint32_t opts, bool unix_lines,
                           tv_error *err) {
    tv_buf b;
    tv_buf_init(&b);
    tv_status st = TROVE_OK;
    if (opts & PCRE2_LITERAL) tv_buf_append(&b, pat, plen);
    else st = translate(pat, plen, &b, err);
    pcre2_compile_context *cc = st || b.oom ? NULL : pcre2_compile_context_create(NULL);
    if (!cc) {
        tv_buf_fini(&b);
        if (!st) tv_error_set(err, TROVE_ENOMEM, "out of memory");
        return NULL;
    }
    pcre2_set_newline(cc, unix_lines ? PCRE2_NEWLINE_LF : PCRE2_NEWLINE_ANY);
    pcre2_set_compile_extra_options(cc, PCRE2_EXTRA_ALT_BSUX);
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)(b.data ? b.data : ""), b.len, opts, &ec, &eo, cc);
    pcre2_compile_context_free(cc);
    tv_buf_fini(&b);
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof msg);
        if (eo > plen) eo = plen; /* an offset into the rewritten text */
        /* PatternSyntaxException.getMessage(): description, index, pattern, caret */
        tv_error_set(err, TROVE_EPATTERN, "%s near index %zu\n%.*s\n%*s^", (const char *)msg,
                     (size_t)eo, (int)plen, pat, (int)eo, "");
    }
    return code;
}

tv_status tv_jregex_compile(tv_comp *c, const char *pat, size_t plen, const char *flags,
                            size_t flen, tv_jregex **out, tv_error *err) {
    uint32_t opts = PCRE2_UTF | PCRE2_ALT_BSUX;
    bool unix_lines = false;
    tv_status st;
    if (flags && (st = parse_flags(flags, flen, &opts, &unix_lines, err))) return st;
    if (!tv_utf8_valid(pat, plen))
        return tv_error_set(err, TROVE_EARG, "pattern [%.*s] is not valid UTF-8", (int)plen, pat);
    pcre2_code *code = compile(pat, plen, opts, unix_lines, err);
    if (!code) return err->code;
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); /* best effort: the interpreter otherwise */
    tv_jregex *r = tv_comp_alloc(c, sizeof *r);
    if (!r || tv_comp_on_free(c, free_code, code)) {
        pcre2_code_free(code);
        return TROVE_ENOMEM;
    }
    r->code = code;
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &r->ngroups);
    *out = r;
    return TROVE_OK;
}

uint32_t tv_jregex_groups(const tv_jregex *r) { return r->ngroups; }

static int group_index(const tv_jregex *r, const char *name, size_t n) {
    char buf[256];
    if (n >= sizeof buf) return -1;
    memcpy(buf, name, n);
    buf[n] = 0;
    int rc = pcre2_substring_number_from_name(r->code, (PCRE2_SPTR)buf);
    return rc > 0 ? rc : -1;
}

/* ----------------------------------------------------------- matching */

static void *arena_malloc(size_t n, void *data) { return tv_arena_alloc(data, n); }
static void no_free(void *p, void *data) {
    (void)p;
    (void)data;
}

static pcre2_match_data *match_data(tv_arena *a, const tv_jregex *r) {
    pcre2_general_context *g = pcre2_general_context_create(arena_malloc, no_free, a);
    return g ? pcre2_match_data_create_from_pattern(r->code, g) : NULL;
}

tv_status tv_jregex_start(tv_jmatcher *m, tv_arena *a, const tv_jregex *r) {
    memset(m, 0, sizeof *m);
    m->re = r;
    m->md = match_data(a, r);
    m->done = true;
    return m->md ? TROVE_OK : TROVE_ENOMEM;
}

void tv_jregex_reset(tv_jmatcher *m, const char *text, size_t len) {
    m->text = text;
    m->len = len;
    m->next = 0;
    m->start = m->end = 0;
    m->ov = NULL;
    m->nov = 0;
    m->done = !tv_utf8_valid(text, len);
}

bool tv_jregex_find(tv_jmatcher *m) {
    if (m->done) return false;
    size_t from = m->next;
    int rc = from > m->len ? -1
                           : pcre2_match(m->re->code, (PCRE2_SPTR)m->text, m->len, from,
                                         PCRE2_NO_UTF_CHECK, m->md, NULL);
    if (rc < 0) {
        m->done = true;
        return false;
    }
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
    m->ov = ov;
    m->nov = pcre2_get_ovector_count(m->md);
    size_t s = ov[0], e = ov[1];
    if (e < s) e = s; /* \K oddities: treat as empty */
    m->start = s;
    m->end = e;
    if (e == s) { /* Java: the next search starts one code point after an empty match */
        size_t nx = e + 1;
        while (nx < m->len && ((unsigned char)m->text[nx] & 0xC0) == 0x80) nx++;
        m->next = nx;
    } else {
        m->next = e;
    }
    return true;
}

bool tv_jregex_group(const tv_jmatcher *m, uint32_t g, size_t *s, size_t *e) {
    if (g >= m->nov || m->ov[2 * g] == PCRE2_UNSET) return false;
    *s = m->ov[2 * g];
    *e = m->ov[2 * g + 1];
    if (*e < *s) *e = *s;
    return true;
}

bool tv_jregex_matches(tv_jmatcher *m, const char *s, size_t n) {
    if (!tv_utf8_valid(s, n)) return false;
    return pcre2_match(m->re->code, (PCRE2_SPTR)s, n, 0,
                       PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_NO_UTF_CHECK, m->md, NULL) >= 0;
}
/* ------------------------------------------------------ replacements */

tv_status tv_jrepl_parse(tv_comp *c, const tv_jregex *r, const char *s, size_t n,
                         tv_jrepl *out, tv_error *err) {
    /* at most one part per input byte */
    tv_jrepl_part *parts = tv_comp_alloc(c, (n + 1) * sizeof *parts);
    if (!parts) return TROVE_ENOMEM;
    size_t np = 0;
    for (size_t i = 0; i < n;) {
        char ch = s[i];
        if (ch == '\\') {
            i++;
            if (i >= n)
                return tv_error_set(err, TROVE_EARG, "character to be escaped is missing");
            size_t k = 1;
            while (i + k < n && ((unsigned char)s[i + k] & 0xC0) == 0x80) k++;
            parts[np++] = (tv_jrepl_part){.lit = s + i, .len = (uint32_t)k, .group = -1};
            i += k;
        } else if (ch == '$') {
            i++;
            if (i >= n)
                return tv_error_set(err, TROVE_EARG, "Illegal group reference: group index is missing");
            int g;
            if (s[i] == '{') {
                size_t b = ++i;
                while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                                 (s[i] >= '0' && s[i] <= '9')))
                    i++;
                if (i == b)
                    return tv_error_set(err, TROVE_EARG, "named capturing group has 0 length name");
                if (i >= n || s[i] != '}')
                    return tv_error_set(err, TROVE_EARG,
                                        "named capturing group is missing trailing '}'");
                if (s[b] >= '0' && s[b] <= '9')
                    return tv_error_set(err, TROVE_EARG,
                                        "capturing group name {%.*s} starts with digit character",
                                        (int)(i - b), s + b);
                g = group_index(r, s + b, i - b);
                if (g < 0)
                    return tv_error_set(err, TROVE_EARG, "No group with name {%.*s}", (int)(i - b),
                                        s + b);
                i++;
            } else {
                if (s[i] < '0' || s[i] > '9')
                    return tv_error_set(err, TROVE_EARG, "Illegal group reference");
                g = s[i++] - '0';
                if ((uint32_t)g > r->ngroups)
                    return tv_error_set(err, TROVE_EINDEXBOUNDS, "No group %d", g);
                while (i < n && s[i] >= '0' && s[i] <= '9') {
                    int ng = g * 10 + (s[i] - '0');
                    if ((uint32_t)ng > r->ngroups) break;
                    g = ng;
                    i++;
                }
            }
            parts[np++] = (tv_jrepl_part){.group = g};
        } else {
            size_t b = i;
            while (i < n && s[i] != '\\' && s[i] != '$') i++;
            parts[np++] = (tv_jrepl_part){.lit = s + b, .len = (uint32_t)(i - b), .group = -1};
        }
    }
    /* literals point into the settings: copy them into the registry */
    for (size_t i = 0; i < np; i++)
        if (parts[i].group < 0) {
            char *d = tv_comp_strdup(c, parts[i].lit, parts[i].len);
            if (!d) return TROVE_ENOMEM;
            parts[i].lit = d;
        }
    out->parts = parts;
    out->n = np;
    return TROVE_OK;
}

void tv_jrepl_append(const tv_jrepl *rp, const tv_jmatcher *m, tv_buf *b) {
    for (size_t i = 0; i < rp->n; i++) {
        const tv_jrepl_part *p = &rp->parts[i];
        size_t s, e;
        if (p->group < 0) tv_buf_append(b, p->lit, p->len);
        else if (tv_jregex_group(m, (uint32_t)p->group, &s, &e))
            tv_buf_append(b, m->text + s, e - s);
    }
}
