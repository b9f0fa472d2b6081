/*
 * lex.c — Painless's lexer.
 *
 * One pass over the source into an array of tokens, each with its byte
 * offset (errors point at it). Literals follow Painless's lexer grammar:
 * integers (decimal, 0x hex, 0 octal, suffix l/L, f/F, d/D), decimals
 * (1.5, .5, 1e3, suffixes f/F d/D), strings in single or double quotes
 * whose only escapes are the quote and the backslash (Painless has no
 * \n), // and / * comments. Operators are matched longest first.
 * A `/` is always division: regex literals are not in the subset (the
 * parser refuses =~ and ==~ by name).
 * Alternatives rejected: a lexer on demand inside the parser (the
 * parser's lookahead for casts and declarations wants random access).
 */
#include <stdio.h>

#include "script_int.h"

static const char *const puncts[] = {
    ">>>=", "===", "!==", "<<=", ">>=", ">>>", "==~", "?.", "?:", "::", "->", "==", "!=", "<=", ">=", "&&", "||", "++", "--",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>", "=~", "{", "}", "[", "]", "(", ")", ".", ",", ";",
    ":", "?", "=", "<", ">", "!", "~", "+", "-", "*", "/", "%", "&", "|", "^",
};

static bool is_id0(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_id(int c) { return is_id0(c) || (c >= '0' && c <= '9'); }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }

bool tv_script_lex(tv_arena *a, const char *src, size_t len, tok **toks, size_t *ntoks, uint32_t *err_off,
                   char *msg, size_t msgcap) {
    size_t cap = 64, n = 0;
    tok *t = tv_arena_alloc(a, cap * sizeof *t);
    msg[0] = 0;
    if (!t) return false;
    size_t i = 0;
    for (;;) {
        /* white space and comments */
        for (;;) {
            while (i < len && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r' || src[i] == '\f'))
                i++;
            if (i + 1 < len && src[i] == '/' && src[i + 1] == '/') {
                while (i < len && src[i] != '\n' && src[i] != '\r') i++;
                continue;
            }
            if (i + 1 < len && src[i] == '/' && src[i + 1] == '*') {
                size_t j = i + 2;
                while (j + 1 < len && !(src[j] == '*' && src[j + 1] == '/')) j++;
                if (j + 1 >= len) {
                    *err_off = (uint32_t)i;
                    snprintf(msg, msgcap, "unexpected character [/].");
                    return false;
                }
                i = j + 2;
                continue;
            }
            break;
        }
        if (n + 1 >= cap) {
            tok *nt = tv_arena_alloc(a, cap * 2 * sizeof *t);
            if (!nt) return false;
            memcpy(nt, t, n * sizeof *t);
            t = nt;
            cap *= 2;
        }
        tok *k = &t[n];
        memset(k, 0, sizeof *k);
        k->off = (uint32_t)i;
        if (i >= len) {
            k->kind = T_EOF;
            n++;
            break;
        }
        unsigned char c = (unsigned char)src[i];
        if (is_id0(c)) {
            size_t j = i;
            while (j < len && is_id((unsigned char)src[j])) j++;
            k->kind = T_ID;
            k->val = src + i;
            k->vlen = (uint32_t)(j - i);
            k->len = (uint32_t)(j - i);
            i = j;
        } else if (is_digit(c) || (c == '.' && i + 1 < len && is_digit((unsigned char)src[i + 1]))) {
            size_t j = i;
            bool dec = false;
            if (c == '0' && j + 1 < len && (src[j + 1] == 'x' || src[j + 1] == 'X')) {
                j += 2;
                while (j < len && (is_digit((unsigned char)src[j]) || (src[j] >= 'a' && src[j] <= 'f') ||
                                   (src[j] >= 'A' && src[j] <= 'F')))
                    j++;
                if (j < len && (src[j] == 'l' || src[j] == 'L')) j++;
            } else {
                while (j < len && is_digit((unsigned char)src[j])) j++;
                if (j + 1 < len && src[j] == '.' && is_digit((unsigned char)src[j + 1])) {
                    dec = true;
                    j++;
                    while (j < len && is_digit((unsigned char)src[j])) j++;
                }
                if (j < len && (src[j] == 'e' || src[j] == 'E')) {
                    size_t e = j + 1;
                    if (e < len && (src[e] == '+' || src[e] == '-')) e++;
                    if (e < len && is_digit((unsigned char)src[e])) {
                        dec = true;
                        j = e;
                        while (j < len && is_digit((unsigned char)src[j])) j++;
                    }
                }
                if (j < len && (src[j] == 'l' || src[j] == 'L') && !dec)
                    j++;
                else if (j < len && (src[j] == 'f' || src[j] == 'F' || src[j] == 'd' || src[j] == 'D')) {
                    dec = true;
                    j++;
                }
            }
            if (j < len && is_id((unsigned char)src[j])) {
                *err_off = (uint32_t)j;
                snprintf(msg, msgcap, "unexpected character [%c].", src[j]);
                return false;
            }
            k->kind = dec ? T_DECLIT : T_INTLIT;
            k->val = src + i;
            k->vlen = (uint32_t)(j - i);
            k->len = k->vlen;
            i = j;
        } else if (c == '"' || c == '\'') {
            size_t j = i + 1;
            tv_buf b;
            tv_buf_init(&b);
            while (j < len && (unsigned char)src[j] != c) {
                if (src[j] == '\\') {
                    if (j + 1 < len && ((unsigned char)src[j + 1] == c || src[j + 1] == '\\')) {
                        tv_buf_putc(&b, src[j + 1]);
                        j += 2;
                        continue;
                    }
                    tv_buf_fini(&b);
                    *err_off = (uint32_t)j;
                    snprintf(msg, msgcap, "unexpected character [\\].");
                    return false;
                }
                tv_buf_putc(&b, src[j]);
                j++;
            }
            if (j >= len) {
                tv_buf_fini(&b);
                *err_off = (uint32_t)i;
                snprintf(msg, msgcap, "unexpected character [%c].", c);
                return false;
            }
            if (b.oom) {
                tv_buf_fini(&b);
                return false;
            }
            k->kind = T_STR;
            k->val = tv_arena_strndup(a, b.data ? b.data : "", b.len);
            k->vlen = (uint32_t)b.len;
            tv_buf_fini(&b);
            if (!k->val) return false;
            k->len = (uint32_t)(j + 1 - i);
            i = j + 1;
        } else {
            const char *m = NULL;
            for (size_t p = 0; p < TV_ARRAY_LEN(puncts); p++) {
                size_t pl = strlen(puncts[p]);
                if (i + pl <= len && memcmp(src + i, puncts[p], pl) == 0) {
                    m = puncts[p];
                    break;
                }
            }
            if (!m) {
                *err_off = (uint32_t)i;
                if (c >= 0x20 && c < 0x7f)
                    snprintf(msg, msgcap, "unexpected character [%c].", c);
                else {
                    uint32_t cp;
                    size_t cl = tv_utf8_decode((const uint8_t *)src + i, (const uint8_t *)src + len, &cp);
                    snprintf(msg, msgcap, "unexpected character [%.*s].", (int)cl, src + i);
                }
                return false;
            }
            k->kind = T_PUNCT;
            memcpy(k->p, m, strlen(m) + 1);
            k->len = (uint32_t)strlen(m);
            i += k->len;
        }
        n++;
    }
    *toks = t;
    *ntoks = n;
    return true;
}
