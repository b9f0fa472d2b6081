/*
 * tok_classic.c — the `classic` tokenizer (Lucene's ClassicTokenizer, the
 * StandardTokenizer of Lucene before 3.1, as OpenSearch's
 * ClassicTokenizerFactory builds it; setting max_token_length, 255).
 *
 * Lucene's tokenizer is a JFlex scanner over Unicode 3.0 character
 * classes: at each position the longest match of its rules wins, ties
 * going to the earlier rule, and a character no rule starts with is
 * skipped. With LETTER = a Unicode 3.0 letter that is not CJ, AN = LETTER
 * or digit or a Thai character (U+0E00-U+0E59), P = _ - / . , and
 * HAS_DIGIT = (LETTER|digit)* digit (LETTER|digit)*, the rules are:
 *   <ALPHANUM>    AN+
 *   <APOSTROPHE>  LETTER+ ('LETTER+)+           O'Reilly, you're
 *   <ACRONYM>     LETTER . (LETTER .)+          U.S.A.
 *   <COMPANY>     LETTER+ [&@] LETTER+          AT&T
 *   <EMAIL>       AN+ ([._-] AN+)* @ AN+ ([.-] AN+)+
 *   <HOST>        AN+ (. AN+)+
 *   <NUM>         AN+ and HAS_DIGIT runs alternating, joined by P, two at least
 *   <CJ>          one Chinese/Japanese character (not Korean)
 *   ACRONYM_DEP   AN+ . (AN+ .)+ : typed <HOST>, the term without its last
 *                 dot (the offsets keep it)
 * A token longer than max_token_length UTF-16 units is skipped, its
 * position left as a gap (ClassicTokenizer does not cut as the standard
 * tokenizer does).
 *
 * Algorithm: the text is mapped to one class byte per code point (letter,
 * digit, Thai, CJ, each punctuation the rules name, other), and the rules
 * become regular expressions over those bytes, matched anchored with
 * PCRE2's DFA matcher, which gives the longest match as JFlex does. A run
 * of AN not followed by punctuation a rule could continue with is the
 * whole <ALPHANUM> token, with no matching at all (most words). Letters
 * and digits of Unicode 3.0 come from gen_classic.py (DerivedAge.txt).
 * Rejected: a hand-written DFA for the union of the rules (the NUM rule's
 * alternation makes it large and hard to check against the grammar), and
 * the current Unicode letters (Lucene's grammar is pinned to 3.0).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>

#include "text/text_int.h"

/* gen_classic.py: {first, last, kind} (1 letter, 2 digit), BMP, sorted */
extern const uint16_t tv_classic_ranges[][3];
extern const size_t tv_classic_range_count;

typedef struct classic_cfg {
    uint32_t max_len;
} classic_cfg;

enum { R_ALPHANUM, R_APOSTROPHE, R_ACRONYM, R_COMPANY, R_EMAIL, R_HOST, R_NUM, R_CJ, R_ACRONYM_DEP,
       R_COUNT };

#define AN "[a0t]+"
#define HD "[a0]*0[a0]*"
#define P "[-_/.,]"
static const char *const rule_src[R_COUNT] = {
    [R_ALPHANUM] = AN,
    [R_APOSTROPHE] = "a+(?:'a+)+",
    [R_ACRONYM] = "a\\.(?:a\\.)+",
    [R_COMPANY] = "a+[&@]a+",
    [R_EMAIL] = AN "(?:[._-]" AN ")*@" AN "(?:[.-]" AN ")+",
    [R_HOST] = AN "(?:\\." AN ")+",
    [R_NUM] = "(?:" AN P HD "|" HD P AN "|" AN "(?:" P HD P AN ")+|" HD "(?:" P AN P HD ")+|" AN P HD
              "(?:" P AN P HD ")+|" HD P AN "(?:" P HD P AN ")+)",
    [R_CJ] = "c",
    [R_ACRONYM_DEP] = AN "\\.(?:" AN "\\.)+",
};
#undef AN
#undef HD
#undef P
static const uint8_t rule_type[R_COUNT] = {
    TV_TOK_ALPHANUM, TV_TOK_APOSTROPHE, TV_TOK_ACRONYM, TV_TOK_COMPANY, TV_TOK_EMAIL,
    TV_TOK_HOST,     TV_TOK_NUM,        TV_TOK_CJ,      TV_TOK_HOST};

/* Compiled once per process; immutable afterwards, shared by all threads. */
static pcre2_code *rules[R_COUNT];
static bool rules_ok;
static pthread_once_t rules_once = PTHREAD_ONCE_INIT;

static void compile_rules(void) {
    for (int i = 0; i < R_COUNT; i++) {
        int ec;
        PCRE2_SIZE eo;
        rules[i] = pcre2_compile((PCRE2_SPTR)rule_src[i], PCRE2_ZERO_TERMINATED, PCRE2_ANCHORED,
                                 &ec, &eo, NULL);
        if (!rules[i]) return;
    }
    rules_ok = true;
}

/* The class byte of code point cp. */
static char cp_class(uint32_t cp) {
    if (cp < 0x80) {
        if ((cp | 0x20) - 'a' < 26) return 'a';
        if (cp - '0' < 10) return '0';
        switch (cp) {
        case '.': case '-': case '_': case '/': case ',': case '\'': case '&': case '@':
            return (char)cp;
        default: return ' ';
        }
    }
    if (cp > 0xFFFF) return ' ';
    if ((cp >= 0x3040 && cp <= 0x312F) || (cp >= 0x31F0 && cp <= 0x31FF) ||
        (cp >= 0x3300 && cp <= 0x337F) || (cp >= 0x3400 && cp <= 0x4DBF) ||
        (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xF900 && cp <= 0xFAFF) ||
        (cp >= 0xFF65 && cp <= 0xFF9F))
        return 'c';
    size_t lo = 0, hi = tv_classic_range_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tv_classic_ranges[mid][1] < cp) lo = mid + 1;
        else hi = mid;
    }
    if (lo < tv_classic_range_count && tv_classic_ranges[lo][0] <= cp)
        return tv_classic_ranges[lo][2] == 1 ? 'a' : '0';
    return cp >= 0x0E00 && cp <= 0x0E59 ? 't' : ' ';
}

static tv_status classic_build(tv_comp *c, const void **out, tv_error *err) {
    int64_t m;
    tv_status st = tv_comp_int(c, "max_token_length", 255, &m, err);
    if (st) return st;
    if (m < 1) return tv_error_set(err, TROVE_EARG, "maxTokenLength must be greater than zero");
    pthread_once(&rules_once, compile_rules);
    if (!rules_ok) return TROVE_ENOMEM;
    classic_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    g->max_len = m > UINT32_MAX ? UINT32_MAX : (uint32_t)m;
    *out = g;
    return TROVE_OK;
}

static bool is_an(char k) { return k == 'a' || k == '0' || k == 't'; }
static bool is_joiner(char k) {
    return k == '.' || k == '-' || k == '_' || k == '/' || k == ',' || k == '\'' || k == '&' ||
           k == '@';
}

static tv_status classic_run(tv_arena *a, const void *cfg, const char *text, size_t len,
                             tv_tokvec *out) {
    const classic_cfg *g = cfg;
    if (len == 0) return TROVE_OK;
    /* one class byte per code point, with its byte and UTF-16 offsets */
    char *cls = tv_arena_alloc(a, len + 1);
    uint32_t *boff = tv_arena_alloc(a, (len + 1) * sizeof *boff);
    uint32_t *uoff = tv_arena_alloc(a, (len + 1) * sizeof *uoff);
    if (!cls || !boff || !uoff) return TROVE_ENOMEM;
    const uint8_t *s = (const uint8_t *)text, *end = s + len;
    size_t n = 0, b = 0;
    uint32_t u = 0;
    while (b < len) {
        uint32_t cp;
        size_t k = s[b] < 0x80 ? (cp = s[b], 1) : tv_utf8_decode(s + b, end, &cp);
        cls[n] = cp_class(cp);
        boff[n] = (uint32_t)b;
        uoff[n] = u;
        n++;
        b += k;
        u += cp >= 0x10000 ? 2 : 1;
    }
    cls[n] = 0;
    boff[n] = (uint32_t)len;
    uoff[n] = u;

    pcre2_match_data *md = pcre2_match_data_create(8, NULL);
    if (!md) return TROVE_ENOMEM;
    int ws[2048];
    tv_status st = TROVE_OK;
    uint32_t skipped = 0;
    size_t p = 0;
    while (p < n && !st) {
        char k = cls[p];
        size_t best = 0;
        int rule = -1;
        if (k == 'c') {
            best = 1;
            rule = R_CJ;
        } else if (is_an(k)) {
            size_t r = p + 1;
            while (r < n && is_an(cls[r])) r++;
            best = r - p;
            rule = R_ALPHANUM;
            if (r < n && is_joiner(cls[r])) {
                for (int i = R_APOSTROPHE; i < R_COUNT; i++) {
                    if (i == R_CJ) continue;
                    int rc = pcre2_dfa_match(rules[i], (PCRE2_SPTR)cls, n, p, PCRE2_ANCHORED, md,
                                             NULL, ws, TV_ARRAY_LEN(ws));
                    if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) {
                        st = TROVE_ENOMEM; /* workspace exhausted: cannot happen on these rules */
                        break;
                    }
                    if (rc < 0) continue;
                    size_t e = pcre2_get_ovector_pointer(md)[1];
                    if (e - p > best) {
                        best = e - p;
                        rule = i;
                    }
                }
            }
        }
        if (rule < 0) {
            p++;
            continue;
        }
        size_t e = p + best;
        if (uoff[e] - uoff[p] > g->max_len) {
            skipped++; /* too long: skipped, its position kept as a gap */
            p = e;
            continue;
        }
        uint32_t tb = boff[p], te = boff[e];
        tv_token t = {.term = text + tb, .term_len = te - tb - (rule == R_ACRONYM_DEP ? 1 : 0),
                      .position = 1 + skipped, .start = tb, .end = te, .start16 = uoff[p],
                      .end16 = uoff[e], .type = rule_type[rule]};
        st = tv_tokvec_push(a, out, &t);
        skipped = 0;
        p = e;
    }
    out->trailing += skipped;
    pcre2_match_data_free(md);
    return st;
}

const tv_tokenizer_type tv_tok_classic = {"classic", classic_build, classic_run};
