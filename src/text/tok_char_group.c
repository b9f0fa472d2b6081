/*
 * tok_char_group.c — the `char_group` tokenizer (OpenSearch's
 * CharGroupTokenizerFactory: a Lucene CharTokenizer splitting on the given
 * characters).
 *
 * Settings: tokenize_on_chars, a list of single characters, escapes (\n \t
 * \r \b \f \\ \uXXXX) and classes (whitespace, letter, digit, punctuation,
 * symbol, as Java's Character and OpenSearch's CharMatcher define them);
 * max_token_length (255). A token is a maximal run of other characters;
 * a run reaching max_token_length UTF-16 units is cut there (CharTokenizer).
 * Characters are compared as Java chars, so a supplementary character
 * given in the list never splits (OpenSearch keeps only one-char entries).
 * The sorted split set is binary-searched; rejected: a 64K bitmap per
 * tokenizer (8 KiB for a list of a few characters).
 */
#include <stdlib.h>

#include "text/text_int.h"

typedef struct cg_cfg {
    uint32_t *chars;
    size_t n;
    bool space, letter, digit, punct, symbol;
    uint32_t max_len;
} cg_cfg;

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* UTF-16 length of a UTF-8 string, and its first unit. */
static size_t u16len(const char *s, size_t n, uint32_t *first) {
    const uint8_t *p = (const uint8_t *)s, *e = p + n;
    size_t units = 0;
    *first = 0;
    while (p < e) {
        uint32_t cp;
        p += tv_utf8_decode(p, e, &cp);
        if (units == 0) *first = cp;
        units += cp >= 0x10000 ? 2 : 1;
    }
    return units;
}

/* OpenSearch's parseEscapedChar (s starts with a backslash). */
static tv_status escaped(const char *s, size_t n, uint32_t *out, tv_error *err) {
    size_t units = tv_utf16_len(s, n);
    if (units <= 1) return tv_error_set(err, TROVE_ERUNTIME, "Invalid escaped char in [%.*s]", (int)n, s);
    switch (s[1]) {
    case '\\': *out = '\\'; return TROVE_OK;
    case 'n': *out = '\n'; return TROVE_OK;
    case 't': *out = '\t'; return TROVE_OK;
    case 'r': *out = '\r'; return TROVE_OK;
    case 'b': *out = '\b'; return TROVE_OK;
    case 'f': *out = '\f'; return TROVE_OK;
    case 'u': {
        if (units > 6) return tv_error_set(err, TROVE_ERUNTIME, "Invalid escaped char in [%.*s]", (int)n, s);
        /* Integer.parseInt(s.substring(2), 16): an optional sign, hex digits */
        const char *h = s + 2;
        size_t hl = n - 2, i = 0;
        bool neg = false;
        if (hl > 0 && (h[0] == '+' || h[0] == '-')) {
            neg = h[0] == '-';
            i = 1;
        }
        if (i >= hl)
            return tv_error_set(err, TROVE_ENUMBERFORMAT, "For input string: \"%.*s\" under radix 16",
                                (int)hl, h);
        int64_t v = 0;
        for (; i < hl; i++) {
            char c = h[i];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0)
                return tv_error_set(err, TROVE_ENUMBERFORMAT,
                                    "For input string: \"%.*s\" under radix 16", (int)hl, h);
            v = v * 16 + d;
        }
        *out = (uint32_t)((neg ? -v : v) & 0xFFFF); /* (char) cast */
        return TROVE_OK;
    }
    default: {
        uint32_t cp;
        tv_utf8_decode((const uint8_t *)s + 1, (const uint8_t *)s + n, &cp);
        char enc[4];
        size_t el = tv_utf8_encode(cp, (uint8_t *)enc);
        return tv_error_set(err, TROVE_ERUNTIME, "Invalid escaped char %.*s in [%.*s]", (int)el, enc,
                            (int)n, s);
    }
    }
}

static tv_status cg_build(tv_comp *c, const void **out, tv_error *err) {
    cg_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    memset(g, 0, sizeof *g);
    int64_t m;
    tv_status st = tv_comp_int(c, "max_token_length", 255, &m, err);
    if (st) return st;
    if (m <= 0 || m > 1024 * 1024)
        return tv_error_set(err, TROVE_EARG,
                            "maxTokenLen must be greater than 0 and less than %d passed: %lld",
                            1024 * 1024, (long long)m);
    g->max_len = (uint32_t)m;
    const char *const *vals;
    const size_t *lens;
    size_t n;
    tv_comp_list_csv(c, "tokenize_on_chars", &vals, &lens, &n);
    g->chars = tv_comp_alloc(c, (n + 1) * sizeof *g->chars);
    if (!g->chars) return TROVE_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *s = vals[i];
        size_t sl = lens[i];
        uint32_t first;
        size_t units = u16len(s, sl, &first);
        if (units == 0)
            return tv_error_set(err, TROVE_ERUNTIME, "[tokenize_on_chars] cannot contain empty characters");
        if (units == 1) {
            g->chars[g->n++] = first;
        } else if (s[0] == '\\') {
            uint32_t ch = 0;
            if ((st = escaped(s, sl, &ch, err))) return st;
            g->chars[g->n++] = ch;
        } else if (tv_streq(s, sl, "letter")) g->letter = true;
        else if (tv_streq(s, sl, "digit")) g->digit = true;
        else if (tv_streq(s, sl, "whitespace")) g->space = true;
        else if (tv_streq(s, sl, "punctuation")) g->punct = true;
        else if (tv_streq(s, sl, "symbol")) g->symbol = true;
        else
            return tv_error_set(err, TROVE_ERUNTIME, "Invalid escaped char in [%.*s]", (int)sl, s);
    }
    qsort(g->chars, g->n, sizeof *g->chars, cmp_u32);
    *out = g;
    return TROVE_OK;
}

static bool token_char(const cg_cfg *g, uint32_t cp) {
    if (g->space && tv_java_white(cp)) return false;
    if (g->letter && tv_java_letter(cp)) return false;
    if (g->digit && tv_java_digit(cp)) return false;
    if (g->punct && tv_java_punct(cp)) return false;
    if (g->symbol && tv_java_symbol(cp)) return false;
    return !(g->n && bsearch(&cp, g->chars, g->n, sizeof cp, cmp_u32));
}

static tv_status cg_run(tv_arena *a, const void *cfg, const char *text, size_t len, tv_tokvec *out) {
    const cg_cfg *g = cfg;
    const uint8_t *s = (const uint8_t *)text, *end = s + len;
    size_t p = 0, tstart = 0;
    uint32_t u16 = 0, t16 = 0, tlen = 0;
    while (p < len) {
        uint32_t cp;
        size_t k = tv_utf8_decode(s + p, end, &cp);
        uint32_t units = cp >= 0x10000 ? 2 : 1;
        if (token_char(g, cp)) {
            if (tlen == 0) {
                tstart = p;
                t16 = u16;
            }
            tlen += units;
            p += k;
            u16 += units;
            if (tlen < g->max_len) continue;
        } else {
            p += k;
            u16 += units;
            if (tlen == 0) continue;
        }
        /* the token ends before this char (a splitter) or after it (full) */
        size_t tend = tlen >= g->max_len && token_char(g, cp) ? p : p - k;
        uint32_t e16 = tend == p ? u16 : u16 - units;
        tv_token t = {.term = text + tstart, .term_len = (uint32_t)(tend - tstart), .position = 1,
                      .start = (uint32_t)tstart, .end = (uint32_t)tend, .start16 = t16,
                      .end16 = e16, .type = TV_TOK_WORD};
        if (tv_tokvec_push(a, out, &t)) return TROVE_ENOMEM;
        tlen = 0;
    }
    if (tlen > 0) {
        tv_token t = {.term = text + tstart, .term_len = (uint32_t)(p - tstart), .position = 1,
                      .start = (uint32_t)tstart, .end = (uint32_t)p, .start16 = t16, .end16 = u16,
                      .type = TV_TOK_WORD};
        if (tv_tokvec_push(a, out, &t)) return TROVE_ENOMEM;
    }
    return TROVE_OK;
}

const tv_tokenizer_type tv_tok_char_group = {"char_group", cg_build, cg_run};
