/*
 * tokenizers.c — the character-class tokenizers (`whitespace`, `letter`,
 * `lowercase`), `keyword`, and the dispatch over tokenizer kinds.
 *
 * whitespace/letter/lowercase behave as Lucene's CharTokenizer: a token is
 * a maximal run of code points for which the predicate holds
 * (!Character.isWhitespace, Character.isLetter); a run reaching
 * max_token_length UTF-16 units (255 by default) is emitted and the next
 * token starts right after it. `lowercase` is `letter` with each code point
 * lower-cased (Character.toLowerCase), as OpenSearch's lowercase tokenizer.
 * `keyword` emits the whole input as one token, even when it is empty (as
 * Lucene's KeywordTokenizer does).
 */
#include "text/text_int.h"

static tv_status emit(tv_arena *a, const tv_tokenizer_def *def, const char *text, size_t b0,
                      size_t b1, uint32_t s16, uint32_t e16, tv_tokvec *out) {
    tv_token t = {.term = text + b0, .term_len = (uint32_t)(b1 - b0), .position = 1,
                  .start = (uint32_t)b0, .end = (uint32_t)b1, .start16 = s16, .end16 = e16,
                  .type = TV_TOK_WORD};
    if (def->kind == TV_TK_LOWERCASE) {
        tv_buf b;
        tv_buf_init(&b);
        tv_utf8_lower(text + b0, b1 - b0, &b);
        if (b.oom) {
            tv_buf_fini(&b);
            return TROVE_ENOMEM;
        }
        char *term = tv_arena_memdup(a, b.data ? b.data : "", b.len);
        t.term_len = (uint32_t)b.len;
        tv_buf_fini(&b);
        if (!term) return TROVE_ENOMEM;
        t.term = term;
    }
    return tv_tokvec_push(a, out, &t);
}

tv_status tv_tokenize_chars(tv_arena *a, const tv_tokenizer_def *def, const char *text,
                            size_t len, tv_tokvec *out) {
    const uint8_t *s = (const uint8_t *)text, *end = s + len;
    uint32_t max = def->max_token_length ? def->max_token_length : 255;
    bool white = def->kind == TV_TK_WHITESPACE;
    size_t p = 0, tstart = 0;
    uint32_t u16 = 0, t16 = 0, tlen = 0; /* tlen: UTF-16 units in the current token */
    while (p < len) {
        uint32_t cp;
        size_t k;
        if (s[p] < 0x80) {
            cp = s[p];
            k = 1;
        } else {
            k = tv_utf8_decode(s + p, end, &cp);
        }
        uint32_t units = cp >= 0x10000 ? 2 : 1;
        bool tokch;
        if (cp < 0x80) {
            tokch = white ? !((cp >= 9 && cp <= 13) || (cp >= 0x1C && cp <= 0x20))
                          : (uint8_t)((cp | 0x20) - 'a') < 26;
        } else {
            uint16_t fl = tv_uc_props(cp)->flags;
            tokch = white ? !(fl & TV_UCF_JWHITE) : (fl & TV_UCF_JLETTER) != 0;
        }
        if (tokch) {
            if (tlen == 0) {
                tstart = p;
                t16 = u16;
            }
            tlen += units;
            p += k;
            u16 += units;
            if (tlen >= max) {
                if (emit(a, def, text, tstart, p, t16, u16, out)) return TROVE_ENOMEM;
                tlen = 0;
            }
        } else {
            if (tlen > 0) {
                if (emit(a, def, text, tstart, p, t16, u16, out)) return TROVE_ENOMEM;
                tlen = 0;
            }
            p += k;
            u16 += units;
        }
    }
    if (tlen > 0 && emit(a, def, text, tstart, p, t16, u16, out)) return TROVE_ENOMEM;
    return TROVE_OK;
}

tv_status tv_tokenize(tv_arena *a, const tv_tokenizer_def *def, const char *text, size_t len,
                      tv_tokvec *out) {
    switch (def->kind) {
    case TV_TK_STANDARD:
        return tv_tokenize_standard(a, text, len, def->max_token_length, out);
    case TV_TK_KEYWORD: {
        uint32_t n16 = (uint32_t)tv_utf16_len(text, len);
        tv_token t = {.term = text, .term_len = (uint32_t)len, .position = 1, .start = 0,
                      .end = (uint32_t)len, .start16 = 0, .end16 = n16, .type = TV_TOK_WORD};
        return tv_tokvec_push(a, out, &t);
    }
    case TV_TK_EXT:
        return def->ext->run(a, def->cfg, text, len, out);
    default:
        return tv_tokenize_chars(a, def, text, len, out);
    }
}
