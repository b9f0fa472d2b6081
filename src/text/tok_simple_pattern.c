/*
 * tok_simple_pattern.c — the `simple_pattern` and `simple_pattern_split`
 * tokenizers (Lucene's SimplePatternTokenizer / SimplePatternSplitTokenizer:
 * a Lucene RegExp run as a DFA; `pattern`, "" by default).
 *
 * simple_pattern: at each position the longest non-empty match is a token
 * and scanning resumes after it; a position without one is skipped — except
 * that, as Lucene's scan does, when the text from there to its end is a
 * proper prefix of a match, tokenizing stops. simple_pattern_split: the
 * longest non-empty matches separate tokens (the text between them); when
 * the rest of the text is only a prefix of a separator it stays in the
 * token. Tokens are type "word", increment 1.
 *
 * The RegExp is translated to PCRE2 and run with pcre2_dfa_match, which
 * like Lucene's automaton reports the longest match at an anchored start
 * (and partial matches). Translated: literals, `\`-escaped chars, `.`,
 * `"strings"`, `[...]` classes with ranges and `^`, groups, `|`, `*`
 * `+` `?` `{n}` `{n,}` `{n,m}`, `#` (empty language), `@` (any string).
 * Answered unsupported: `&` (intersection), `~` (complement), `<...>`
 * (intervals, named automata) and `\d \s \w` (classes whose meaning
 * changed across Lucene versions) — PCRE2 has no exact equivalent.
 * Rejected: building Lucene's automaton ourselves (determinization and
 * minimization for a tokenizer rarely used).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

#include "text/text_int.h"

typedef struct sp_cfg {
    pcre2_code *code;
    bool split;
} sp_cfg;

typedef struct tr {
    const uint8_t *s, *e;
    tv_buf *out;
    const char *bad; /* what is unsupported, or a syntax problem */
} tr;

static void appz(tv_buf *b, const char *s) { tv_buf_append(b, s, strlen(s)); }

static void lit(tr *t, uint32_t cp) { tv_buf_printf(t->out, "\\x{%x}", cp); }

static uint32_t next_cp(tr *t) {
    uint32_t cp;
    t->s += tv_utf8_decode(t->s, t->e, &cp);
    return cp;
}

static bool peek(tr *t, char c) { return t->s < t->e && *t->s == (uint8_t)c; }

static void union_exp(tr *t);

static void simple_exp(tr *t) {
    if (t->s >= t->e) {
        t->bad = "unexpected end of pattern";
        return;
    }
    uint8_t c = *t->s;
    if (c == '.') {
        t->s++;
        appz(t->out, "(?s:.)");
    } else if (c == '#') {
        t->s++;
        appz(t->out, "(?!)");
    } else if (c == '@') {
        t->s++;
        appz(t->out, "(?s:.*)");
    } else if (c == '"') {
        t->s++;
        appz(t->out, "(?:");
        while (t->s < t->e && *t->s != '"') lit(t, next_cp(t));
        if (!peek(t, '"')) t->bad = "expected '\"'";
        else t->s++;
        appz(t->out, ")");
    } else if (c == '(') {
        t->s++;
        appz(t->out, "(?:");
        if (!peek(t, ')')) union_exp(t);
        if (!peek(t, ')')) {
            if (!t->bad) t->bad = "expected ')'";
        } else
            t->s++;
        appz(t->out, ")");
    } else if (c == '[') {
        t->s++;
        appz(t->out, "[");
        if (peek(t, '^')) {
            t->s++;
            appz(t->out, "^");
        }
        bool any = false;
        while (t->s < t->e && *t->s != ']') {
            if (*t->s == '\\') {
                t->s++;
                if (t->s < t->e && strchr("dDsSwW", *t->s)) {
                    t->bad = "character class escapes (\\d, \\s, \\w)";
                    return;
                }
            }
            if (t->s >= t->e) break;
            uint32_t a = next_cp(t);
            lit(t, a);
            any = true;
            if (peek(t, '-') && t->s + 1 < t->e && t->s[1] != ']') {
                t->s++;
                if (peek(t, '\\')) t->s++;
                uint32_t b = next_cp(t);
                if (b < a) {
                    t->bad = "invalid character class range";
                    return;
                }
                appz(t->out, "-");
                lit(t, b);
            }
        }
        if (!peek(t, ']') || !any) {
            t->bad = "expected ']'";
            return;
        }
        t->s++;
        appz(t->out, "]");
    } else if (c == '<' || c == '~' || c == '&') {
        t->bad = c == '<' ? "intervals and named automata (<...>)"
                 : c == '~' ? "complement (~)" : "intersection (&)";
    } else if (c == '\\') {
        t->s++;
        if (t->s >= t->e) {
            t->bad = "unexpected end of pattern";
            return;
        }
        if (strchr("dDsSwW", *t->s)) {
            t->bad = "character class escapes (\\d, \\s, \\w)";
            return;
        }
        lit(t, next_cp(t));
    } else {
        lit(t, next_cp(t));
    }
}

static void repeat_exp(tr *t) {
    size_t mark = t->out->len;
    simple_exp(t);
    while (!t->bad && t->s < t->e && strchr("*+?{", *t->s)) {
        /* wrap what came before so quantifiers can stack, as Lucene's do */
        size_t n = t->out->len - mark;
        char *prev = tv_malloc(n + 1);
        if (!prev) {
            t->bad = "out of memory";
            return;
        }
        memcpy(prev, t->out->data + mark, n);
        t->out->len = mark;
        appz(t->out, "(?:");
        tv_buf_append(t->out, prev, n);
        appz(t->out, ")");
        tv_free(prev);
        uint8_t q = *t->s++;
        if (q != '{') {
            tv_buf_putc(t->out, (char)q);
            continue;
        }
        const uint8_t *b = t->s;
        while (t->s < t->e && ((*t->s >= '0' && *t->s <= '9') || *t->s == ',')) t->s++;
        if (!peek(t, '}') || t->s == b || *b == ',') {
            t->bad = "invalid repeat";
            return;
        }
        t->s++;
        tv_buf_putc(t->out, '{');
        tv_buf_append(t->out, (const char *)b, (size_t)(t->s - b));
    }
}

static void concat_exp(tr *t) {
    while (!t->bad && t->s < t->e && *t->s != '|' && *t->s != ')') repeat_exp(t);
}

static void union_exp(tr *t) {
    concat_exp(t);
    while (!t->bad && peek(t, '|')) {
        t->s++;
        tv_buf_putc(t->out, '|');
        concat_exp(t);
    }
}

static void free_code(void *p) { pcre2_code_free(p); }

static tv_status build(tv_comp *c, const void **out, bool split, tv_error *err) {
    size_t pl = 0;
    const char *pat = tv_comp_str(c, "pattern", &pl);
    if (!pat) {
        pat = "";
        pl = 0;
    }
    tv_buf b;
    tv_buf_init(&b);
    tr t = {(const uint8_t *)pat, (const uint8_t *)pat + pl, &b, NULL};
    if (!tv_utf8_valid(pat, pl)) t.bad = "invalid UTF-8";
    if (!t.bad && pl) union_exp(&t);
    if (!t.bad && t.s < t.e) t.bad = "unbalanced ')'";
    if (t.bad) {
        tv_buf_fini(&b);
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "pattern [%.*s] of tokenizer [%s] is not supported: %s", (int)pl, pat,
                            tv_comp_name(c), t.bad);
    }
    if (b.oom) {
        tv_buf_fini(&b);
        return TROVE_ENOMEM;
    }
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)(b.data ? b.data : ""), b.len,
                                     PCRE2_UTF | PCRE2_NO_UTF_CHECK | PCRE2_ANCHORED, &ec, &eo, NULL);
    tv_buf_fini(&b);
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof msg);
        return tv_error_set(err, TROVE_EUNSUPPORTED, "pattern [%.*s] of tokenizer [%s] is not supported: %s",
                            (int)pl, pat, tv_comp_name(c), (const char *)msg);
    }
    sp_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g || tv_comp_on_free(c, free_code, code)) {
        pcre2_code_free(code);
        return TROVE_ENOMEM;
    }
    g->code = code;
    g->split = split;
    *out = g;
    return TROVE_OK;
}

static tv_status sp_build(tv_comp *c, const void **out, tv_error *err) { return build(c, out, false, err); }
static tv_status sps_build(tv_comp *c, const void **out, tv_error *err) { return build(c, out, true, err); }

enum { M_NONE, M_MATCH, M_PARTIAL };

/* The longest non-empty match at p (its end in *end), or whether the rest
 * of the text is a proper prefix of one. */
static int longest(const sp_cfg *g, pcre2_match_data *md, int *ws, size_t wsn, const char *text,
                   size_t len, size_t p, size_t *end) {
    int rc = pcre2_dfa_match(g->code, (PCRE2_SPTR)text, len, p,
                             PCRE2_NO_UTF_CHECK | PCRE2_NOTEMPTY_ATSTART | PCRE2_NOTEMPTY, md, NULL,
                             ws, wsn);
    if (rc >= 0) {
        *end = pcre2_get_ovector_pointer(md)[1];
        return M_MATCH;
    }
    if (rc != PCRE2_ERROR_NOMATCH) return M_NONE;
    rc = pcre2_dfa_match(g->code, (PCRE2_SPTR)text, len, p,
                         PCRE2_NO_UTF_CHECK | PCRE2_PARTIAL_HARD, md, NULL, ws, wsn);
    if (rc == PCRE2_ERROR_PARTIAL && pcre2_get_ovector_pointer(md)[1] > p) return M_PARTIAL;
    return M_NONE;
}

static tv_status push(tv_arena *a, const char *text, size_t s, size_t e, tv_u16pos *u, tv_tokvec *out) {
    uint32_t s16 = tv_u16_at(u, s), e16 = tv_u16_at(u, e);
    tv_token t = {.term = text + s, .term_len = (uint32_t)(e - s), .position = 1, .start = (uint32_t)s,
                  .end = (uint32_t)e, .start16 = s16, .end16 = e16, .type = TV_TOK_WORD};
    return tv_tokvec_push(a, out, &t);
}

static size_t next_char(const char *text, size_t len, size_t p) {
    p++;
    while (p < len && ((unsigned char)text[p] & 0xC0) == 0x80) p++;
    return p;
}

static tv_status sp_run(tv_arena *a, const void *cfg, const char *text, size_t len, tv_tokvec *out) {
    const sp_cfg *g = cfg;
    if (len == 0 || !tv_utf8_valid(text, len)) return TROVE_OK;
    pcre2_match_data *md = pcre2_match_data_create(4, NULL);
    if (!md) return TROVE_ENOMEM;
    int ws[512];
    tv_u16pos u = {(const uint8_t *)text, 0, 0};
    tv_status st = TROVE_OK;
    size_t p = 0, tok = 0;
    while (!st && p < len) {
        size_t e = 0;
        int m = longest(g, md, ws, TV_ARRAY_LEN(ws), text, len, p, &e);
        if (m == M_PARTIAL) {
            if (g->split) p = len;
            break;
        }
        if (m == M_MATCH) {
            if (!g->split) st = push(a, text, p, e, &u, out);
            else if (p > tok) st = push(a, text, tok, p, &u, out);
            p = tok = e;
            continue;
        }
        p = next_char(text, len, p);
    }
    if (!st && g->split && len > tok) st = push(a, text, tok, len, &u, out);
    pcre2_match_data_free(md);
    return st;
}

const tv_tokenizer_type tv_tok_simple_pattern = {"simple_pattern", sp_build, sp_run};
const tv_tokenizer_type tv_tok_simple_pattern_split = {"simple_pattern_split", sps_build, sp_run};
