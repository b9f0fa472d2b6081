/*
 * lang_arabic.c — the Arabic-script languages: the `arabic_normalization`,
 * `arabic_stem`, `persian_normalization`, `persian_stem` and
 * `sorani_normalization` filters, the Sorani stemmer (`stemmer` language
 * "sorani"), and the `arabic`, `persian` and `sorani` analyzers, each as
 * Lucene 10 builds them:
 *   arabic   standard, lowercase, decimal_digit, stop (ar/stopwords.txt,
 *            before normalization: the list is not normalized),
 *            arabic_normalization, stem_exclusion, arabic_stem
 *   persian  (ZWNJ read as a space) standard, lowercase, decimal_digit,
 *            arabic_normalization, persian_normalization, stop
 *            (fa/stopwords.txt), persian_stem; OpenSearch passes only
 *            `stopwords` (no stem_exclusion)
 *   sorani   standard, sorani_normalization, lowercase, decimal_digit,
 *            stop (ckb/stopwords.txt), stem_exclusion, sorani stemmer
 *
 * The rules (Lucene's ArabicNormalizer/ArabicStemmer, PersianNormalizer/
 * PersianStemmer, SoraniNormalizer/SoraniStemmer) are small: character
 * substitutions and deletions, then prefix/suffix stripping that keeps at
 * least two (or three) letters. They run over UTF-16 units
 * (tv_lang_u16_apply) so their length tests read as Lucene's. Lucene 4.10
 * has no decimal_digit in these analyzers and no Persian stemmer (added in
 * Lucene 9); trove follows Lucene 10 (OpenSearch 3.x).
 */
#include "text/lang_int.h"

/* --------------------------------------------------------------- Arabic */

static bool arabic_harakat(char16_t c) {
    return c == 0x0640 /* tatweel */ || (c >= 0x064B && c <= 0x0652); /* tanween .. sukun */
}

static int arabic_norm_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    for (int i = 0; i < len; i++) {
        switch (s[i]) {
        case 0x0622: case 0x0623: case 0x0625: s[i] = 0x0627; break; /* alef forms -> alef */
        case 0x0649: s[i] = 0x064A; break;                           /* dotless yeh -> yeh */
        case 0x0629: s[i] = 0x0647; break;                           /* teh marbuta -> heh */
        default:
            if (arabic_harakat(s[i])) len = tv_u16_del(s, i--, len);
        }
    }
    return len;
}

static const char16_t *const ar_prefixes[] = {u"ال", u"وال", u"بال", u"كال", u"فال", u"لل", u"و"};
static const char16_t *const ar_suffixes[] = {u"ها", u"ان", u"ات", u"ون", u"ين",
                                              u"يه", u"ية", u"ه",  u"ة",  u"ي"};

static int u16len(const char16_t *x) {
    int n = 0;
    while (x[n]) n++;
    return n;
}

static int arabic_stem_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    for (size_t i = 0; i < TV_ARRAY_LEN(ar_prefixes); i++) {
        int n = u16len(ar_prefixes[i]);
        if (n == 1 ? len < 4 : len < n + 2) continue; /* wa- leaves 3 letters, others 2 */
        if (tv_u16_starts(s, len, ar_prefixes[i])) {
            len = tv_u16_deln(s, 0, len, n);
            break;
        }
    }
    for (size_t i = 0; i < TV_ARRAY_LEN(ar_suffixes); i++) {
        int n = u16len(ar_suffixes[i]);
        if (len >= n + 2 && tv_u16_ends(s, len, ar_suffixes[i])) len -= n;
    }
    return len;
}

static tv_status arabic_norm_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, false, arabic_norm_rule, cfg);
}
static tv_status arabic_stem_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, true, arabic_stem_rule, cfg);
}

const tv_filter_type tv_tf_arabic_normalization = {"arabic_normalization", NULL, arabic_norm_apply};
const tv_filter_type tv_tf_arabic_stem = {"arabic_stem", NULL, arabic_stem_apply};

/* -------------------------------------------------------------- Persian */

static int persian_norm_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    for (int i = 0; i < len; i++) {
        switch (s[i]) {
        case 0x06CC: case 0x06D2: s[i] = 0x064A; break; /* farsi yeh, yeh barree -> yeh */
        case 0x06A9: s[i] = 0x0643; break;              /* keheh -> kaf */
        case 0x06C0: case 0x06C1: s[i] = 0x0647; break; /* heh yeh, heh goal -> heh */
        case 0x0654: len = tv_u16_del(s, i--, len); break; /* hamza above */
        default: break;
        }
    }
    return len;
}

static const char16_t *const fa_suffixes[] = {u"ات", u"ان", u"ترين", u"تر",
                                              u"يي", u"ي",  u"ها",   u"\u200C"};

static int persian_stem_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    for (size_t i = 0; i < TV_ARRAY_LEN(fa_suffixes); i++) {
        int n = u16len(fa_suffixes[i]);
        if (len >= n + 2 && tv_u16_ends(s, len, fa_suffixes[i])) len -= n;
    }
    return len;
}

static tv_status persian_norm_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, false, persian_norm_rule, cfg);
}
static tv_status persian_stem_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, true, persian_stem_rule, cfg);
}

const tv_filter_type tv_tf_persian_normalization = {"persian_normalization", NULL,
                                                    persian_norm_apply};
const tv_filter_type tv_tf_persian_stem = {"persian_stem", NULL, persian_stem_apply};

/* PersianCharFilter: ZERO WIDTH NON-JOINER (3 bytes) becomes a space. */
static tv_status zwnj_run(tv_arena *a, const void *cfg, const char *in, size_t len,
                          tv_cfout *out) {
    (void)cfg;
    char *o = tv_arena_alloc(a, len + 1);
    if (!o) return TROVE_ENOMEM;
    size_t w = 0;
    int32_t cum = 0;
    for (size_t i = 0; i < len;) {
        if (i + 2 < len && (uint8_t)in[i] == 0xE2 && (uint8_t)in[i + 1] == 0x80 &&
            (uint8_t)in[i + 2] == 0x8C) {
            o[w++] = ' ';
            i += 3;
            cum += 2;
            if (tv_offmap_add(a, &out->map, (uint32_t)w, cum)) return TROVE_ENOMEM;
            continue;
        }
        o[w++] = in[i++];
    }
    o[w] = 0;
    out->text = o;
    out->len = w;
    return TROVE_OK;
}

static const tv_charfilter_type persian_zwnj = {"(persian)", NULL, zwnj_run};

/* --------------------------------------------------------------- Sorani */

static const uint16_t format_ranges[][2] = {
    {0xAD, 0xAD},     {0x600, 0x605},   {0x61C, 0x61C},   {0x6DD, 0x6DD},   {0x70F, 0x70F},
    {0x890, 0x891},   {0x8E2, 0x8E2},   {0x180E, 0x180E}, {0x200B, 0x200F}, {0x202A, 0x202E},
    {0x2060, 0x2064}, {0x2066, 0x206F}, {0xFEFF, 0xFEFF}, {0xFFF9, 0xFFFB}};

/* Java's Character.getType(char) == FORMAT (Cf) for a UTF-16 unit. */
static bool is_format(char16_t c) {
    for (size_t i = 0; i < TV_ARRAY_LEN(format_ranges); i++)
        if (c >= format_ranges[i][0] && c <= format_ranges[i][1]) return true;
    return false;
}

static int sorani_norm_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    for (int i = 0; i < len; i++) {
        switch (s[i]) {
        case 0x064A: case 0x0649: s[i] = 0x06CC; break; /* yeh, dotless yeh -> farsi yeh */
        case 0x0643: s[i] = 0x06A9; break;              /* kaf -> keheh */
        case 0x200C:                                    /* heh + ZWNJ -> ae */
            if (i > 0 && s[i - 1] == 0x0647) s[i - 1] = 0x06D5;
            len = tv_u16_del(s, i--, len);
            break;
        case 0x0647:
            if (i == len - 1) s[i] = 0x06D5; /* word-final heh -> ae */
            break;
        case 0x0629: s[i] = 0x06D5; break; /* teh marbuta -> ae */
        case 0x06BE: s[i] = 0x0647; break; /* heh doachashmee -> heh */
        case 0x0631:
            if (i == 0) s[i] = 0x0695; /* word-initial reh -> rreh */
            break;
        case 0x0692: s[i] = 0x0695; break;
        default:
            if (arabic_harakat(s[i]) || is_format(s[i])) len = tv_u16_del(s, i--, len);
        }
    }
    return len;
}

static int sorani_stem_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
#define E(x) tv_u16_ends(s, len, x)
    /* postposition */
    if (len > 5 && E(u"دا")) len -= 2;
    else if (len > 4 && E(u"نا")) len--;
    else if (len > 6 && E(u"ەوە")) len -= 3;
    /* possessive pronoun */
    if (len > 6 && (E(u"مان") || E(u"یان") || E(u"تان"))) len -= 3;
    /* indefinite singular ezafe */
    if (len > 6 && E(u"ێکی")) return len - 3;
    if (len > 7 && E(u"یەکی")) return len - 4;
    if (len > 5 && E(u"ێک")) return len - 2;          /* indefinite singular */
    if (len > 6 && E(u"یەک")) return len - 3;
    if (len > 6 && E(u"ەکە")) return len - 3;         /* definite singular */
    if (len > 5 && E(u"کە")) return len - 2;
    if (len > 7 && E(u"ەکان")) return len - 4;        /* definite plural */
    if (len > 6 && E(u"کان")) return len - 3;
    if (len > 7 && E(u"یانی")) return len - 4;        /* indefinite plural ezafe */
    if (len > 6 && E(u"انی")) return len - 3;
    if (len > 6 && E(u"یان")) return len - 3;         /* indefinite plural */
    if (len > 5 && E(u"ان")) return len - 2;
    if (len > 7 && E(u"یانە")) return len - 4;        /* demonstrative plural */
    if (len > 6 && E(u"انە")) return len - 3;
    if (len > 5 && (E(u"ایە") || E(u"ەیە"))) return len - 2; /* demonstrative singular */
    if (len > 4 && E(u"ە")) return len - 1;
    if (len > 4 && E(u"ی")) return len - 1;           /* absolute singular ezafe */
#undef E
    return len;
}

static tv_status sorani_norm_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, false, sorani_norm_rule, cfg);
}
static tv_status sorani_stem_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, true, sorani_stem_rule, cfg);
}

const tv_filter_type tv_tf_sorani_normalization = {"sorani_normalization", NULL,
                                                   sorani_norm_apply};
/* Not an OpenSearch filter name: reached as `stemmer` language "sorani". */
const tv_filter_type tv_tf_sorani_stem = {"(sorani_stem)", NULL, sorani_stem_apply};

/* ------------------------------------------------------------ analyzers */

static tv_status arabic_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    tv_status st;
    tv_lang_standard(p);
    tv_lang_add_core(p, TV_TF_LOWERCASE);
    tv_lang_add_ext(p, &tv_tf_decimal_digit, NULL);
    if ((st = tv_lang_stop(c, p, tv_words_arabic(), "ar/stopwords.txt", err))) return st;
    tv_lang_add_ext(p, &tv_tf_arabic_normalization, NULL);
    if ((st = tv_lang_exclusion(c, p, err))) return st;
    tv_lang_add_ext(p, &tv_tf_arabic_stem, NULL);
    return TROVE_OK;
}

static tv_status persian_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    tv_status st;
    tv_lang_standard(p);
    p->charfilters[p->ncharfilters++] = (tv_charfilter_def){.ext = &persian_zwnj};
    tv_lang_add_core(p, TV_TF_LOWERCASE);
    tv_lang_add_ext(p, &tv_tf_decimal_digit, NULL);
    tv_lang_add_ext(p, &tv_tf_arabic_normalization, NULL);
    tv_lang_add_ext(p, &tv_tf_persian_normalization, NULL);
    if ((st = tv_lang_stop(c, p, tv_words_persian(), "fa/stopwords.txt", err))) return st;
    tv_lang_add_ext(p, &tv_tf_persian_stem, NULL);
    return TROVE_OK;
}

static tv_status sorani_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    tv_status st;
    tv_lang_standard(p);
    tv_lang_add_ext(p, &tv_tf_sorani_normalization, NULL);
    tv_lang_add_core(p, TV_TF_LOWERCASE);
    tv_lang_add_ext(p, &tv_tf_decimal_digit, NULL);
    if ((st = tv_lang_stop(c, p, tv_words_sorani(), "ckb/stopwords.txt", err))) return st;
    if ((st = tv_lang_exclusion(c, p, err))) return st;
    tv_lang_add_ext(p, &tv_tf_sorani_stem, NULL);
    return TROVE_OK;
}

const tv_analyzer_type tv_an_arabic = {"arabic", arabic_build};
const tv_analyzer_type tv_an_persian = {"persian", persian_build};
const tv_analyzer_type tv_an_sorani = {"sorani", sorani_build};
