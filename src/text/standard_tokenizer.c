/*
 * standard_tokenizer.c — the `standard` tokenizer: Lucene's
 * StandardTokenizer (UAX #29 word boundaries as a longest-match grammar),
 * plus the shared token-array and UTF-16 offset helpers.
 *
 * Lucene's tokenizer is a JFlex scanner with these rules, tried at each
 * position, the longest match winning and ties going to the earlier rule:
 *   1 EMOJI        emoji sequences (presentation, modifier, ZWJ, tag,
 *                  keycap, flag pairs)
 *   2 <NUM>        numbers (WB8, WB11, WB12, WB13a/b)
 *   3 <HANGUL>     runs of Hangul letters
 *   4 <KATAKANA>   runs of Katakana
 *   5 <ALPHANUM>   words (WB5-WB13b)
 *   6 <SOUTHEAST_ASIAN>  runs of Line_Break=Complex_Context characters
 *   7 <IDEOGRAPHIC> one Han character;  8 <HIRAGANA> one Hiragana character
 *   9 anything else: one code point, skipped (no token)
 * Every rule lets a base character absorb following Extend/Format/ZWJ
 * (WB4). Rules 2-4 match subsets of rule 5's language, so one scanner for
 * rule 5 (a hand-made DFA over "units" = base + absorbed marks) records,
 * for its longest match, whether the match is all-numeric, all-Hangul or
 * all-Katakana; the emoji rule is a 20-state NFA simulated as a bitmask
 * over code points. Matches are capped at max_token_length UTF-16 units,
 * which reproduces Lucene's split of longer tokens (its scanner buffer
 * does not grow, so a longer word comes out in pieces of that size).
 *
 * Fast path: a run of ASCII letters/digits followed by ASCII that cannot
 * continue a word (anything but _, or . : ' , ; before a letter or digit)
 * is the whole token, with no table lookups; ASCII that cannot start a token is skipped a byte at a
 * time. Everything else decodes into a small window of code-point
 * properties that the matchers share.
 *
 * tv_tokenize_standard_hooked lets another grammar built on this one
 * (uax_url_email) compete at each scan position with rules of its own.
 *
 * Rejected: running tv_wb_next() and classifying its segments. It is
 * exact for letters and digits but not for what Lucene does differently
 * from UAX #29 (SE-Asian runs, emoji sequences, ZWJ after a letter), and
 * generating Lucene's JFlex DFA would mean shipping generated code we
 * cannot regenerate without Java.
 */
#include "text/text_int.h"

/* ------------------------------------------------------------- helpers */

tv_status tv_tokvec_grow(tv_arena *a, tv_tokvec *v) {
    size_t ncap = v->cap ? v->cap * 2 : 16;
    tv_token *n = tv_arena_alloc(a, ncap * sizeof *n);
    if (!n) return TROVE_ENOMEM;
    if (v->len) memcpy(n, v->items, v->len * sizeof *n);
    v->items = n;
    v->cap = ncap;
    return TROVE_OK;
}

uint32_t tv_u16_at(tv_u16pos *p, size_t b) {
    const uint8_t *s = p->text;
    while (p->byte < b) {
        uint8_t c = s[p->byte];
        if (c < 0x80) {
            p->byte++;
            p->u16++;
            continue;
        }
        uint32_t cp;
        p->byte += tv_utf8_decode(s + p->byte, s + b, &cp);
        p->u16 += cp >= 0x10000 ? 2 : 1;
    }
    return p->u16;
}

int32_t tv_utf16_with_offsets(tv_arena *a, const char *text, size_t len, uint16_t **u,
                              uint32_t **boff) {
    uint16_t *w = tv_arena_alloc(a, (len + 1) * sizeof *w);
    uint32_t *o = tv_arena_alloc(a, (len + 1) * sizeof *o);
    if (!w || !o) return -1;
    const uint8_t *p = (const uint8_t *)text, *end = p + len;
    int32_t n = 0;
    while (p < end) {
        uint32_t off = (uint32_t)(p - (const uint8_t *)text), cp;
        p += tv_utf8_decode(p, end, &cp);
        o[n] = off;
        if (cp >= 0x10000) {
            w[n++] = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10));
            o[n] = off;
            w[n++] = (uint16_t)(0xDC00 + ((cp - 0x10000) & 0x3FF));
        } else {
            w[n++] = (uint16_t)cp;
        }
    }
    o[n] = (uint32_t)len;
    *u = w;
    *boff = o;
    return n;
}

/* -------------------------------------------------------------- window */

typedef struct win {
    const uint8_t *s, *end;
    size_t start;    /* byte offset of entry 0 */
    uint32_t max16;  /* UTF-16 units allowed in one match */
    uint32_t n, u16;
    bool done;
    uint32_t *cp;
    uint32_t *off; /* off[i]: byte offset of entry i relative to start; off[n]: its end */
    uint16_t *flags;
    uint8_t *wb;
} win;

static bool win_get(win *w, uint32_t i) {
    while (i >= w->n) {
        if (w->done) return false;
        size_t at = w->start + w->off[w->n];
        if (w->s + at >= w->end) {
            w->done = true;
            return false;
        }
        uint32_t cp;
        size_t k = tv_utf8_decode(w->s + at, w->end, &cp);
        uint32_t units = cp >= 0x10000 ? 2 : 1;
        if (w->u16 + units > w->max16) {
            w->done = true;
            return false;
        }
        const tv_uc_record *r = tv_uc_props(cp);
        w->cp[w->n] = cp;
        w->flags[w->n] = r->flags;
        w->wb[w->n] = r->wb;
        w->u16 += units;
        w->off[w->n + 1] = w->off[w->n] + (uint32_t)k;
        w->n++;
    }
    return true;
}

static inline bool wb_efz(uint8_t wb) {
    return wb == TV_WB_EXTEND || wb == TV_WB_FORMAT || wb == TV_WB_ZWJ;
}

/* Index after the unit starting at i (base + Extend/Format/ZWJ). */
static uint32_t unit_end(win *w, uint32_t i) {
    i++;
    while (win_get(w, i) && wb_efz(w->wb[i])) i++;
    return i;
}

/* ---------------------------------------------------------------- emoji */

enum {
    E_FP0, E_FP0Z, E_FA1, E_FA2, E_FB1, E_FB2,
    E_LP0, E_LP0Z, E_LA1, E_LA2, E_LB1, E_LB2,
    E_T1, E_TEND, E_K0, E_K1, E_K2, E_K3, E_R0, E_R1, E_R2
};
#define EB(x) (1u << (x))
#define E_ACCEPT (EB(E_FA1) | EB(E_FA2) | EB(E_FB2) | EB(E_LA1) | EB(E_LA2) | EB(E_LB2) | \
                  EB(E_TEND) | EB(E_K3) | EB(E_R2))

/* Longest emoji match at entry 0, in entries (0 if none). */
static uint32_t match_emoji(win *w) {
    uint32_t set = EB(E_FP0) | EB(E_K0) | EB(E_R0), best = 0;
    for (uint32_t i = 0; set && win_get(w, i); i++) {
        uint32_t cp = w->cp[i];
        uint8_t wb = w->wb[i];
        uint16_t fl = w->flags[i];
        bool efz = wb_efz(wb), efzs = efz && cp != 0xFE0E && cp != 0xFE0F;
        bool zwj = wb == TV_WB_ZWJ, ec = fl & TV_UCF_EMOJICHAR, emb = fl & TV_UCF_EMB,
             em = fl & TV_UCF_EM, tagspec = cp >= 0xE0020 && cp <= 0xE007E;
        uint32_t nx = 0;
        for (int copy = 0; copy < 2; copy++) {
            int o = copy ? E_LP0 - E_FP0 : 0;
            if (set & EB(E_FP0 + o)) {
                if (zwj) nx |= EB(E_FP0Z + o);
                if (ec) nx |= EB(E_FA1 + o);
                if (emb) nx |= EB(E_FB1 + o);
                if (em) nx |= EB(E_FB2 + o);
            }
            if (set & EB(E_FP0Z + o)) {
                if (zwj) nx |= EB(E_FP0Z + o);
                if (ec) nx |= EB(E_FA1 + o);
                if (emb) nx |= EB(E_FB1 + o);
            }
            if (set & EB(E_FA1 + o)) {
                if (efzs) nx |= EB(E_FA1 + o);
                if (cp == 0xFE0F) nx |= EB(E_FA2 + o);
            }
            if ((set & EB(E_FB1 + o))) {
                if (efzs) nx |= EB(E_FB1 + o);
                if (em) nx |= EB(E_FB2 + o);
            }
            if ((set & EB(E_FB2 + o)) && efzs) nx |= EB(E_FB2 + o);
            if (set & (EB(E_FA1 + o) | EB(E_FA2 + o) | EB(E_FB2 + o))) {
                if (zwj) nx |= EB(E_LP0);
                if (!copy && tagspec) nx |= EB(E_T1);
            }
        }
        if (set & EB(E_T1)) {
            if (tagspec) nx |= EB(E_T1);
            if (cp == 0xE007F) nx |= EB(E_TEND);
        }
        if ((set & EB(E_K0)) && cp < 0x80 && ((cp >= '0' && cp <= '9') || cp == '#' || cp == '*'))
            nx |= EB(E_K1);
        if (set & EB(E_K1)) {
            if (efzs) nx |= EB(E_K1);
            if (cp == 0xFE0F) nx |= EB(E_K2);
            if (cp == 0x20E3) nx |= EB(E_K3);
        }
        if ((set & EB(E_K2)) && cp == 0x20E3) nx |= EB(E_K3);
        if ((set & EB(E_K3)) && efzs) nx |= EB(E_K3);
        if ((set & EB(E_R0)) && wb == TV_WB_RI) nx |= EB(E_R1);
        if (set & EB(E_R1)) {
            if (efz) nx |= EB(E_R1);
            if (wb == TV_WB_RI) nx |= EB(E_R2);
        }
        if ((set & EB(E_R2)) && efz) nx |= EB(E_R2);
        set = nx;
        if (set & E_ACCEPT) best = i + 1;
    }
    return best;
}

/* ----------------------------------------------------------------- words */

enum { W_S0, W_A, W_H, W_N, W_K, W_E, W_AM, W_HSQ, W_HDQ, W_NM, W_FAIL };
enum { C_AH, C_HL, C_NU, C_KA, C_EX, C_ML, C_MN, C_MNL, C_SQ, C_DQ, C_OTHER };

static int unit_class(uint8_t wb, uint16_t fl) {
    if (fl & TV_UCF_NUMERIC) return C_NU;
    switch (wb) {
    case TV_WB_ALETTER: return C_AH;
    case TV_WB_HEBREW_LETTER: return C_HL;
    case TV_WB_KATAKANA: return C_KA;
    case TV_WB_EXTENDNUMLET: return C_EX;
    case TV_WB_MIDLETTER: return C_ML;
    case TV_WB_MIDNUM: return C_MN;
    case TV_WB_MIDNUMLET: return C_MNL;
    case TV_WB_SINGLE_QUOTE: return C_SQ;
    case TV_WB_DOUBLE_QUOTE: return C_DQ;
    default: return C_OTHER;
    }
}

static const uint8_t word_dfa[W_FAIL][C_OTHER] = {
    /*           AH    HL    NU    KA    EX    ML     MN     MNL    SQ     DQ */
    [W_S0] = {W_A, W_H, W_N, W_K, W_S0, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL},
    [W_A] = {W_A, W_H, W_N, W_FAIL, W_E, W_AM, W_FAIL, W_AM, W_AM, W_FAIL},
    [W_H] = {W_A, W_H, W_N, W_FAIL, W_E, W_AM, W_FAIL, W_AM, W_HSQ, W_HDQ},
    [W_N] = {W_A, W_H, W_N, W_FAIL, W_E, W_FAIL, W_NM, W_NM, W_NM, W_FAIL},
    [W_K] = {W_FAIL, W_FAIL, W_FAIL, W_K, W_E, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL},
    [W_E] = {W_A, W_H, W_N, W_K, W_E, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL},
    [W_AM] = {W_A, W_H, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL},
    [W_HSQ] = {W_A, W_H, W_N, W_FAIL, W_E, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL},
    [W_HDQ] = {W_FAIL, W_H, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL},
    [W_NM] = {W_FAIL, W_FAIL, W_N, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL, W_FAIL},
};
static const bool word_accept[W_FAIL] = {[W_A] = true, [W_H] = true, [W_N] = true,
                                         [W_K] = true, [W_E] = true, [W_HSQ] = true};

/* Longest word match at entry 0 (entries), and its type. */
static uint32_t match_word(win *w, uint8_t *type) {
    int st = W_S0;
    uint32_t i = 0, best = 0;
    bool num = true, hangul = true, kata = true;
    while (win_get(w, i)) {
        int c = unit_class(w->wb[i], w->flags[i]);
        if (c == C_OTHER) break;
        int nx = word_dfa[st][c];
        if (nx == W_FAIL) break;
        if (c != C_NU && c != C_EX && c != C_MN && c != C_MNL && c != C_SQ) num = false;
        if (!((c == C_AH || c == C_HL) && (w->flags[i] & TV_UCF_HANGUL))) hangul = false;
        if (c != C_KA) kata = false;
        st = nx;
        i = unit_end(w, i);
        if (word_accept[st]) {
            best = i;
            *type = num ? TV_TOK_NUM : hangul ? TV_TOK_HANGUL : kata ? TV_TOK_KATAKANA
                                                                      : TV_TOK_ALPHANUM;
        }
    }
    return best;
}

/* ------------------------------------------------------------ tokenizer */

static inline bool ascii_alnum(uint8_t c) {
    return (uint8_t)((c | 0x20) - 'a') < 26 || (uint8_t)(c - '0') < 10;
}
/* ASCII that may continue a word or number after a letter/digit run. */
static inline bool ascii_joiner(uint8_t c) {
    return c == '.' || c == ':' || c == '\'' || c == ',' || c == ';' || c == '_';
}

tv_status tv_tokenize_standard(tv_arena *a, const char *text, size_t len, uint32_t max_len,
                               tv_tokvec *out) {
    return tv_tokenize_standard_hooked(a, text, len, max_len, NULL, out);
}

tv_status tv_tokenize_standard_hooked(tv_arena *a, const char *text, size_t len, uint32_t max_len,
                                      tv_std_hook *hook, tv_tokvec *out) {
    const uint8_t *s = (const uint8_t *)text;
    if (max_len == 0) max_len = 255;
    win w = {.s = s, .end = s + len, .max16 = max_len};
    size_t cap = (size_t)max_len + 2;
    w.cp = tv_arena_alloc(a, cap * sizeof *w.cp);
    w.off = tv_arena_alloc(a, (cap + 1) * sizeof *w.off);
    w.flags = tv_arena_alloc(a, cap * sizeof *w.flags);
    w.wb = tv_arena_alloc(a, cap);
    if (!w.cp || !w.off || !w.flags || !w.wb) return TROVE_ENOMEM;
    size_t p = 0;
    uint32_t u16 = 0; /* UTF-16 offset of p */
    while (p < len) {
        uint8_t c = s[p];
        size_t blen = 0;     /* the match: bytes (0: none) ... */
        uint32_t b16 = 0;    /* ... UTF-16 units ... */
        uint8_t type = TV_TOK_ALPHANUM; /* ... and type */
        size_t skipb = 1;    /* without a match: the code point skipped */
        uint32_t skip16 = 1;
        bool general = true;
        if (c < 0x80) {
            if (ascii_alnum(c)) {
                size_t q = p + 1;
                bool digits = (uint8_t)(c - '0') < 10;
                while (q < len && ascii_alnum(s[q])) {
                    digits &= (uint8_t)(s[q] - '0') < 10;
                    q++;
                }
                /* the run is the whole token unless what follows can extend it:
                 * '_' always may; . : ' , ; only before a letter, digit or non-ASCII */
                bool ends = q == len || (s[q] < 0x80 && !ascii_joiner(s[q])) ||
                            (s[q] != '_' && ascii_joiner(s[q]) &&
                             (q + 1 == len || (s[q + 1] < 0x80 && !ascii_alnum(s[q + 1]))));
                if (q - p <= max_len && ends) {
                    blen = q - p;
                    b16 = (uint32_t)blen;
                    type = digits ? TV_TOK_NUM : TV_TOK_ALPHANUM;
                    general = false;
                }
            } else if (c != '_' && !((c == '#' || c == '*') && p + 1 < len && s[p + 1] >= 0x80)) {
                general = false; /* cannot start a token: skipped */
            }
        }
        if (general) {
            w.start = p;
            w.n = 0;
            w.u16 = 0;
            w.done = false;
            w.off[0] = 0;
            if (win_get(&w, 0)) { /* fails only with max_len < 2 */
                uint32_t best = 0;
                uint16_t f0 = w.flags[0];
                uint8_t wb0 = w.wb[0];
                if (f0 & (TV_UCF_EMOJICHAR | TV_UCF_EMB | TV_UCF_EM) || wb0 == TV_WB_ZWJ ||
                    wb0 == TV_WB_RI || w.cp[0] == '#' || w.cp[0] == '*' ||
                    (w.cp[0] >= '0' && w.cp[0] <= '9')) {
                    best = match_emoji(&w);
                    if (best) type = TV_TOK_EMOJI;
                }
                uint8_t wt = TV_TOK_ALPHANUM;
                uint32_t wl = match_word(&w, &wt);
                if (wl > best) {
                    best = wl;
                    type = wt;
                }
                if (f0 & TV_UCF_SA) {
                    uint32_t i = 0;
                    while (win_get(&w, i) && (w.flags[i] & TV_UCF_SA)) i = unit_end(&w, i);
                    if (i > best) {
                        best = i;
                        type = TV_TOK_SOUTHEAST_ASIAN;
                    }
                }
                if (f0 & (TV_UCF_HAN | TV_UCF_HIRAGANA)) {
                    uint32_t i = unit_end(&w, 0);
                    if (i > best) {
                        best = i;
                        type = (f0 & TV_UCF_HAN) ? TV_TOK_IDEOGRAPHIC : TV_TOK_HIRAGANA;
                    }
                }
                if (best == 0) {
                    skipb = w.off[1];
                    skip16 = w.cp[0] >= 0x10000 ? 2 : 1;
                } else {
                    blen = w.off[best];
                    for (uint32_t i = 0; i < best; i++) b16 += w.cp[i] >= 0x10000 ? 2 : 1;
                }
            }
        }
        if (hook) {
            size_t hb;
            uint32_t h16;
            uint8_t ht;
            int r = hook->at(hook, text, len, p, max_len, b16, &hb, &h16, &ht);
            if (r == TV_STD_RESCAN) continue;
            if (r == TV_STD_TAKE) {
                blen = hb;
                b16 = h16;
                type = ht;
            }
        }
        if (blen == 0) { /* skip one code point */
            p += skipb;
            u16 += skip16;
            continue;
        }
        tv_token t = {.term = text + p, .term_len = (uint32_t)blen, .position = 1,
                      .start = (uint32_t)p, .end = (uint32_t)(p + blen), .start16 = u16,
                      .end16 = u16 + b16, .type = type};
        if (tv_tokvec_push(a, out, &t)) return TROVE_ENOMEM;
        p += blen;
        u16 += b16;
    }
    return TROVE_OK;
}
