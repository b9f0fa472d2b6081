/*
 * jregex.c — java.util.regex as the pattern tokenizer, pattern_replace
 * char filter and pattern analyzer use it, over PCRE2 (Debian's
 * libpcre2-8) in UTF mode.
 *
 * Compiling: OpenSearch's Regex.flagsFromString names ("CASE_INSENSITIVE|
 * COMMENTS", case-insensitive, empty parts skipped) map onto PCRE2 options:
 * CASE_INSENSITIVE -> CASELESS, MULTILINE, DOTALL, COMMENTS ->
 * EXTENDED_MORE (Java also ignores blanks inside classes), LITERAL,
 * UNICODE_CHARACTER_CLASS -> UCP (Java's \w \d \s \b are ASCII without it,
 * as PCRE2's are without UCP), UNIX_LINES -> newline LF; otherwise lines end
 * at CR, LF or CRLF. UNICODE_CASE is accepted (PCRE2 folds Unicode case in
 * UTF mode anyway) and CANON_EQ answers unsupported. Java-vs-PCRE2
 * differences met and not bridged: without UNICODE_CASE Java folds only
 * ASCII case while PCRE2 folds all (e.g. "k" also matches U+212A); Java's
 * "." also stops at U+0085/U+2028/U+2029; Java-only syntax (\p{Alpha},
 * \p{javaLowerCase}, \p{InGreek}) does not compile, and patterns PCRE2
 * rejects answer unsupported_operation_exception (Java's
 * PatternSyntaxException text cannot be reproduced).
 *
 * Matching follows Matcher.find(): after an empty match at p the next
 * search starts at p + 1 character (PCRE2's usual loop would first retry
 * for a non-empty match at p). Replacement strings follow
 * Matcher.appendReplacement: $n (more digits taken while the number stays
 * a group), ${name}, \x for a literal x; they are parsed once when the
 * component is built, with Java's error texts.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

#include "text/text_int.h"

struct tv_jregex {
    pcre2_code *code;
    uint32_t ngroups;
};

static bool ieq(const char *s, size_t n, const char *lit) {
    size_t m = strlen(lit);
    if (n != m) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'a' && c <= 'z') c = (char)(c - 32);
        if (c != lit[i]) return false;
    }
    return true;
}

static void free_code(void *p) { pcre2_code_free(p); }

tv_status tv_jregex_compile(tv_comp *c, const char *pat, size_t plen, const char *flags,
                            size_t flen, tv_jregex **out, tv_error *err) {
    uint32_t opts = PCRE2_UTF | PCRE2_NO_UTF_CHECK;
    uint32_t nl = PCRE2_NEWLINE_ANYCRLF;
    for (size_t i = 0; flags && i <= flen;) {
        size_t j = i;
        while (j < flen && flags[j] != '|') j++;
        const char *f = flags + i;
        size_t fl = j - i;
        i = j + 1;
        if (fl == 0) continue;
        if (ieq(f, fl, "CASE_INSENSITIVE")) opts |= PCRE2_CASELESS;
        else if (ieq(f, fl, "MULTILINE")) opts |= PCRE2_MULTILINE;
        else if (ieq(f, fl, "DOTALL")) opts |= PCRE2_DOTALL;
        else if (ieq(f, fl, "UNICODE_CASE")) {
        } else if (ieq(f, fl, "CANON_EQ"))
            return tv_error_set(err, TROVE_EUNSUPPORTED, "regex flag [CANON_EQ] is not supported");
        else if (ieq(f, fl, "UNIX_LINES")) nl = PCRE2_NEWLINE_LF;
        else if (ieq(f, fl, "LITERAL")) opts |= PCRE2_LITERAL;
        else if (ieq(f, fl, "COMMENTS")) opts |= PCRE2_EXTENDED_MORE;
        else if (ieq(f, fl, "UNICODE_CHAR_CLASS") || ieq(f, fl, "UNICODE_CHARACTER_CLASS"))
            opts |= PCRE2_UCP;
        else {
            char up[128];
            size_t k = 0;
            for (; k < fl && k < sizeof up - 1; k++)
                up[k] = (char)(f[k] >= 'a' && f[k] <= 'z' ? f[k] - 32 : f[k]);
            up[k] = 0;
            return tv_error_set(err, TROVE_EARG, "Unknown regex flag [%s]", up);
        }
    }
    if ((opts & PCRE2_LITERAL) && (opts & PCRE2_EXTENDED_MORE)) opts &= ~PCRE2_EXTENDED_MORE;
    if (!tv_utf8_valid(pat, plen))
        return tv_error_set(err, TROVE_EARG, "pattern [%.*s] is not valid UTF-8", (int)plen, pat);
    pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
    if (!cc) return TROVE_ENOMEM;
    pcre2_set_newline(cc, nl);
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)pat, plen, opts, &ec, &eo, cc);
    pcre2_compile_context_free(cc);
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof msg);
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "regular expression [%.*s] is not supported: %s at offset %zu",
                            (int)plen, pat, (const char *)msg, (size_t)eo);
    }
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

static int tv_jregex_group_index(const tv_jregex *r, const char *name, size_t n) {
    char buf[256];
    if (n >= sizeof buf) return -1;
    memcpy(buf, name, n);
    buf[n] = 0;
    int rc = pcre2_substring_number_from_name(r->code, (PCRE2_SPTR)buf);
    return rc > 0 ? rc : -1;
}

tv_status tv_jregex_start(tv_jmatcher *m, const tv_jregex *r, const char *text, size_t len) {
    memset(m, 0, sizeof *m);
    m->re = r;
    m->text = text;
    m->len = len;
    m->md = pcre2_match_data_create_from_pattern(r->code, NULL);
    if (!m->md) return TROVE_ENOMEM;
    m->valid = tv_utf8_valid(text, len);
    return TROVE_OK;
}

void tv_jmatcher_end(tv_jmatcher *m) {
    if (m->md) pcre2_match_data_free(m->md);
    m->md = NULL;
}

bool tv_jregex_find(tv_jmatcher *m) {
    if (m->done || !m->valid) return false;
    size_t from = m->next;
    if (from > m->len) {
        m->done = true;
        return false;
    }
    int rc = pcre2_match(m->re->code, (PCRE2_SPTR)m->text, m->len, from, PCRE2_NO_UTF_CHECK,
                         m->md, NULL);
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
    if (e == s) {
        /* Java: the next search starts one char after an empty match */
        size_t nx = e;
        if (nx >= m->len) m->done = true;
        else {
            nx++;
            while (nx < m->len && ((unsigned char)m->text[nx] & 0xC0) == 0x80) nx++;
        }
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
                g = tv_jregex_group_index(r, s + b, i - b);
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
