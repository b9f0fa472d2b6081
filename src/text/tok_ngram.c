/*
 * tok_ngram.c — the `ngram` and `edge_ngram` tokenizers (Lucene's
 * NGramTokenizer / EdgeNGramTokenizer with OpenSearch's
 * NGramTokenizerFactory / EdgeNGramTokenizerFactory settings; also by
 * their old names nGram and edgeNGram).
 *
 * Settings: min_gram (1), max_gram (2), token_chars (letter, digit,
 * whitespace, punctuation, symbol, custom, or any of Java's general
 * category names such as uppercase_letter; none: every character is a
 * token character), custom_token_chars (the characters of `custom`, BMP
 * only since OpenSearch reads them as UTF-16 units). For ngram the
 * difference max_gram - min_gram may not exceed index.max_ngram_diff.
 *
 * Algorithm: the input is decoded once into code points; each maximal run
 * of token characters yields, for each start (edge_ngram: only the run's
 * first code point), the grams of min..max code points that fit in the
 * run, by increasing start then increasing length — the order Lucene's
 * tokenizer emits (since 4.4). Each gram has position increment 1 and
 * type "word". Rejected: Lucene's sliding char buffer (it exists to stream
 * a Reader; the whole text is at hand here).
 */
#include <stdlib.h>

#include "text/text_int.h"

enum {
    CL_LETTER = 1u << 0,
    CL_DIGIT = 1u << 1,
    CL_WHITE = 1u << 2,
    CL_PUNCT = 1u << 3,
    CL_SYMBOL = 1u << 4,
};

typedef struct ngram_cfg {
    uint32_t min, max;
    bool edge;
    bool all;         /* no token_chars: every character is a token char */
    uint32_t classes; /* CL_* */
    uint32_t gcs;     /* bit g: Java general category g */
    uint32_t *custom; /* sorted BMP code points */
    size_t ncustom;
} ngram_cfg;

/* The names OpenSearch lists in its "Unknown token type" error, in the
 * order its HashSet prints them. */
#define TOKEN_TYPES                                                                            \
    "[symbol, private_use, paragraph_separator, start_punctuation, unassigned, "              \
    "enclosing_mark, connector_punctuation, letter_number, other_number, math_symbol, "        \
    "lowercase_letter, space_separator, surrogate, initial_quote_punctuation, "               \
    "decimal_digit_number, digit, other_punctuation, dash_punctuation, currency_symbol, "     \
    "non_spacing_mark, custom, format, modifier_letter, control, uppercase_letter, "          \
    "other_symbol, end_punctuation, modifier_symbol, other_letter, line_separator, "          \
    "titlecase_letter, letter, punctuation, combining_spacing_mark, final_quote_punctuation, " \
    "whitespace]"

static const struct {
    const char *name;
    uint8_t gc;
} categories[] = {
    {"unassigned", TV_GC_CN}, {"uppercase_letter", TV_GC_LU}, {"lowercase_letter", TV_GC_LL},
    {"titlecase_letter", TV_GC_LT}, {"modifier_letter", TV_GC_LM}, {"other_letter", TV_GC_LO},
    {"non_spacing_mark", TV_GC_MN}, {"enclosing_mark", TV_GC_ME},
    {"combining_spacing_mark", TV_GC_MC}, {"decimal_digit_number", TV_GC_ND},
    {"letter_number", TV_GC_NL}, {"other_number", TV_GC_NO}, {"space_separator", TV_GC_ZS},
    {"line_separator", TV_GC_ZL}, {"paragraph_separator", TV_GC_ZP}, {"control", TV_GC_CC},
    {"format", TV_GC_CF}, {"private_use", TV_GC_CO}, {"surrogate", TV_GC_CS},
    {"dash_punctuation", TV_GC_PD}, {"start_punctuation", TV_GC_PS},
    {"end_punctuation", TV_GC_PE}, {"connector_punctuation", TV_GC_PC},
    {"other_punctuation", TV_GC_PO}, {"math_symbol", TV_GC_SM}, {"currency_symbol", TV_GC_SC},
    {"modifier_symbol", TV_GC_SK}, {"other_symbol", TV_GC_SO},
    {"initial_quote_punctuation", TV_GC_PI}, {"final_quote_punctuation", TV_GC_PF},
};

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* token_chars as NGramTokenizerFactory.parseTokenChars reads them. */
static tv_status parse_token_chars(tv_comp *c, ngram_cfg *g, tv_error *err) {
    const char *const *vals;
    const size_t *lens;
    size_t n;
    tv_comp_list_csv(c, "token_chars", &vals, &lens, &n);
    g->all = n == 0;
    for (size_t i = 0; i < n; i++) {
        /* lower-cased (ASCII is all a name can match) and trimmed */
        size_t a = 0, b = lens[i];
        while (a < b && (unsigned char)vals[i][a] <= ' ') a++;
        while (b > a && (unsigned char)vals[i][b - 1] <= ' ') b--;
        char low[64];
        size_t ln = b - a < sizeof low - 1 ? b - a : sizeof low - 1;
        for (size_t k = 0; k < ln; k++) {
            char ch = vals[i][a + k];
            low[k] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
        }
        low[ln] = 0;
        bool known = b - a < sizeof low - 1;
        if (!known) {
        } else if (!strcmp(low, "letter")) g->classes |= CL_LETTER;
        else if (!strcmp(low, "digit")) g->classes |= CL_DIGIT;
        else if (!strcmp(low, "whitespace")) g->classes |= CL_WHITE;
        else if (!strcmp(low, "punctuation")) g->classes |= CL_PUNCT;
        else if (!strcmp(low, "symbol")) g->classes |= CL_SYMBOL;
        else if (!strcmp(low, "custom")) {
            size_t cl;
            const char *cs = tv_comp_str(c, "custom_token_chars", &cl);
            if (!cs)
                return tv_error_set(err, TROVE_EARG,
                                    "Token type: 'custom' requires setting `custom_token_chars`");
            uint32_t *set = tv_comp_alloc(c, (cl + 1) * sizeof *set);
            if (!set) return TROVE_ENOMEM;
            size_t m = 0;
            const uint8_t *p = (const uint8_t *)cs, *e = p + cl;
            while (p < e) {
                uint32_t cp;
                p += tv_utf8_decode(p, e, &cp);
                if (cp < 0x10000) set[m++] = cp; /* UTF-16 units: a pair never matches */
            }
            qsort(set, m, sizeof *set, cmp_u32);
            g->custom = set;
            g->ncustom = m;
        } else {
            known = false;
            for (size_t k = 0; k < TV_ARRAY_LEN(categories) && !known; k++)
                if (!strcmp(low, categories[k].name)) {
                    g->gcs |= 1u << categories[k].gc;
                    known = true;
                }
        }
        if (!known)
            return tv_error_set(err, TROVE_EARG, "Unknown token type: '%.*s', must be one of %s",
                                (int)(b - a), vals[i] + a, TOKEN_TYPES);
    }
    return TROVE_OK;
}

static tv_status build(tv_comp *c, const void **out, bool edge, tv_error *err) {
    ngram_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    memset(g, 0, sizeof *g);
    g->edge = edge;
    int64_t mn, mx;
    tv_status st;
    if ((st = tv_comp_int(c, "min_gram", 1, &mn, err))) return st;
    if ((st = tv_comp_int(c, "max_gram", 2, &mx, err))) return st;
    if (!edge) {
        int64_t diff = mx - mn, allowed = tv_comp_limits(c)->max_ngram_diff;
        if (diff > allowed)
            return tv_error_set(err, TROVE_EARG,
                                "The difference between max_gram and min_gram in NGram Tokenizer "
                                "must be less than or equal to: [%lld] but was [%lld]. This limit "
                                "can be set by changing the [index.max_ngram_diff] index level "
                                "setting.",
                                (long long)allowed, (long long)diff);
    }
    if ((st = parse_token_chars(c, g, err))) return st;
    /* Lucene's constructor checks (raised when the tokenizer is made) */
    if (mn < 1) return tv_error_set(err, TROVE_EARG, "minGram must be greater than zero");
    if (mn > mx) return tv_error_set(err, TROVE_EARG, "minGram must not be greater than maxGram");
    g->min = (uint32_t)mn;
    g->max = (uint32_t)mx;
    *out = g;
    return TROVE_OK;
}

static tv_status ngram_build(tv_comp *c, const void **out, tv_error *err) {
    return build(c, out, false, err);
}
static tv_status edge_build(tv_comp *c, const void **out, tv_error *err) {
    return build(c, out, true, err);
}

static bool token_char(const ngram_cfg *g, uint32_t cp) {
    if (g->all) return true;
    if ((g->classes & CL_LETTER) && tv_java_letter(cp)) return true;
    if ((g->classes & CL_DIGIT) && tv_java_digit(cp)) return true;
    if ((g->classes & CL_WHITE) && tv_java_white(cp)) return true;
    if ((g->classes & CL_PUNCT) && tv_java_punct(cp)) return true;
    if ((g->classes & CL_SYMBOL) && tv_java_symbol(cp)) return true;
    if (g->gcs && (g->gcs >> tv_uc_props(cp)->gc & 1)) return true;
    if (g->ncustom && bsearch(&cp, g->custom, g->ncustom, sizeof cp, cmp_u32)) return true;
    return false;
}

static tv_status ngram_run(tv_arena *a, const void *cfg, const char *text, size_t len,
                           tv_tokvec *out) {
    const ngram_cfg *g = cfg;
    const uint8_t *s = (const uint8_t *)text, *end = s + len;
    /* per code point: byte offset and UTF-16 offset (one extra at the end) */
    size_t n = 0;
    uint32_t *boff = tv_arena_alloc(a, (len + 1) * sizeof *boff);
    uint32_t *u16 = tv_arena_alloc(a, (len + 1) * sizeof *u16);
    uint8_t *tok = tv_arena_alloc(a, len + 1);
    if (!boff || !u16 || !tok) return TROVE_ENOMEM;
    uint32_t p = 0, q = 0;
    while (p < len) {
        uint32_t cp;
        size_t k = tv_utf8_decode(s + p, end, &cp);
        boff[n] = p;
        u16[n] = q;
        tok[n++] = token_char(g, cp);
        p += (uint32_t)k;
        q += cp >= 0x10000 ? 2 : 1;
    }
    boff[n] = p;
    u16[n] = q;
    for (size_t i = 0; i < n;) {
        if (!tok[i]) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && tok[j]) j++;
        size_t last_start = g->edge ? i : j - 1;
        for (size_t st = i; st <= last_start; st++) {
            for (uint32_t sz = g->min; sz <= g->max && st + sz <= j; sz++) {
                tv_token t = {.term = text + boff[st], .term_len = boff[st + sz] - boff[st],
                              .position = 1, .start = boff[st], .end = boff[st + sz],
                              .start16 = u16[st], .end16 = u16[st + sz], .type = TV_TOK_WORD};
                if (tv_tokvec_push(a, out, &t)) return TROVE_ENOMEM;
            }
        }
        i = j;
    }
    return TROVE_OK;
}

const tv_tokenizer_type tv_tok_ngram = {"ngram", ngram_build, ngram_run};
const tv_tokenizer_type tv_tok_ngram_old = {"nGram", ngram_build, ngram_run};
const tv_tokenizer_type tv_tok_edge_ngram = {"edge_ngram", edge_build, ngram_run};
const tv_tokenizer_type tv_tok_edge_ngram_old = {"edgeNGram", edge_build, ngram_run};
