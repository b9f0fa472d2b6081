/*
 * lang_indic.c — Indian languages: the `indic_normalization`,
 * `hindi_normalization` and `bengali_normalization` filters, the Hindi and
 * Bengali light stemmers (`stemmer` languages "hindi", "bengali"), and the
 * `hindi` and `bengali` analyzers as Lucene 10 builds them: standard,
 * lowercase, decimal_digit, stem_exclusion, indic_normalization, the
 * language's normalization, stop words, the stemmer.
 *
 * indic_normalization (IndicNormalizer) composes the visual decompositions
 * of nine scripts (Devanagari .. Malayalam, one 128-code-point block each)
 * into their single code points: a table of (first, second, optional third
 * char or ZWJ, result, scripts) offsets within a block, as Unicode 5.2's
 * South Asian chapter lists them. hindi_normalization and
 * bengali_normalization fold spelling variants (nukta forms, chandrabindu,
 * long/short vowels; Bengali phala forms and sibilants) and, like the
 * stemmers, leave keyword-marked tokens alone. The stemmers strip the
 * longest listed suffix that leaves enough of the word (lengths in UTF-16
 * units, as Lucene counts them).
 *
 * Lucene 4.10 has no Bengali analyzer, normalizer or stemmer (added in
 * Lucene 7) and its jar carries no bn/stopwords.txt: the list comes from
 * Debian's Lucene 8 jar (gen_resources.py), the one Lucene 10 ships; built
 * without it, the `bengali` analyzer needs `stopwords` set explicitly
 * (else 400 naming the missing list) and `_bengali_` answers so too.
 */
#include "text/lang_int.h"

/* ---------------------------------------------------- indic_normalization */

enum { DEV = 1, BEN = 2, GUR = 4, GUJ = 8, ORI = 16, TAM = 32, TEL = 64, KAN = 128, MAL = 256 };

/* ch1, ch2, ch3 (-1: none, 0xFF: ZWJ), result, scripts */
static const int16_t decomp[][5] = {
    {0x05, 0x3E, 0x45, 0x11, DEV | GUJ}, {0x05, 0x3E, 0x46, 0x12, DEV},
    {0x05, 0x3E, 0x47, 0x13, DEV | GUJ}, {0x05, 0x3E, 0x48, 0x14, DEV | GUJ},
    {0x05, 0x3E, -1, 0x06, DEV | BEN | GUR | GUJ | ORI}, {0x05, 0x45, -1, 0x72, DEV},
    {0x05, 0x45, -1, 0x0D, GUJ}, {0x05, 0x46, -1, 0x04, DEV}, {0x05, 0x47, -1, 0x0F, GUJ},
    {0x05, 0x48, -1, 0x10, GUR | GUJ}, {0x05, 0x49, -1, 0x11, DEV | GUJ},
    {0x05, 0x4A, -1, 0x12, DEV}, {0x05, 0x4B, -1, 0x13, DEV | GUJ},
    {0x05, 0x4C, -1, 0x14, DEV | GUR | GUJ}, {0x06, 0x45, -1, 0x11, DEV | GUJ},
    {0x06, 0x46, -1, 0x12, DEV}, {0x06, 0x47, -1, 0x13, DEV | GUJ},
    {0x06, 0x48, -1, 0x14, DEV | GUJ}, {0x07, 0x57, -1, 0x08, MAL}, {0x09, 0x41, -1, 0x0A, DEV},
    {0x09, 0x57, -1, 0x0A, TAM | MAL}, {0x0E, 0x46, -1, 0x10, MAL}, {0x0F, 0x45, -1, 0x0D, DEV},
    {0x0F, 0x46, -1, 0x0E, DEV}, {0x0F, 0x47, -1, 0x10, DEV}, {0x0F, 0x57, -1, 0x10, ORI},
    {0x12, 0x3E, -1, 0x13, MAL}, {0x12, 0x4C, -1, 0x14, TEL | KAN}, {0x12, 0x55, -1, 0x13, TEL},
    {0x12, 0x57, -1, 0x14, TAM | MAL}, {0x13, 0x57, -1, 0x14, ORI}, {0x15, 0x3C, -1, 0x58, DEV},
    {0x16, 0x3C, -1, 0x59, DEV | GUR}, {0x17, 0x3C, -1, 0x5A, DEV | GUR},
    {0x1C, 0x3C, -1, 0x5B, DEV | GUR}, {0x21, 0x3C, -1, 0x5C, DEV | BEN | ORI},
    {0x22, 0x3C, -1, 0x5D, DEV | BEN | ORI}, {0x23, 0x4D, 0xFF, 0x7A, MAL},
    {0x24, 0x4D, 0xFF, 0x4E, BEN}, {0x28, 0x3C, -1, 0x29, DEV}, {0x28, 0x4D, 0xFF, 0x7B, MAL},
    {0x2B, 0x3C, -1, 0x5E, DEV | GUR}, {0x2F, 0x3C, -1, 0x5F, DEV | BEN},
    {0x2C, 0x41, 0x41, 0x0B, TEL}, {0x30, 0x3C, -1, 0x31, DEV}, {0x30, 0x4D, 0xFF, 0x7C, MAL},
    {0x32, 0x4D, 0xFF, 0x7D, MAL}, {0x33, 0x3C, -1, 0x34, DEV}, {0x33, 0x4D, 0xFF, 0x7E, MAL},
    {0x35, 0x41, -1, 0x2E, TEL}, {0x3E, 0x45, -1, 0x49, DEV | GUJ}, {0x3E, 0x46, -1, 0x4A, DEV},
    {0x3E, 0x47, -1, 0x4B, DEV | GUJ}, {0x3E, 0x48, -1, 0x4C, DEV | GUJ},
    {0x3F, 0x55, -1, 0x40, KAN}, {0x41, 0x41, -1, 0x42, GUR}, {0x46, 0x3E, -1, 0x4A, TAM | MAL},
    {0x46, 0x42, 0x55, 0x4B, KAN}, {0x46, 0x42, -1, 0x4A, KAN}, {0x46, 0x46, -1, 0x48, MAL},
    {0x46, 0x55, -1, 0x47, TEL | KAN}, {0x46, 0x56, -1, 0x48, TEL | KAN},
    {0x46, 0x57, -1, 0x4C, TAM | MAL}, {0x47, 0x3E, -1, 0x4B, BEN | ORI | TAM | MAL},
    {0x47, 0x57, -1, 0x4C, BEN | ORI}, {0x4A, 0x55, -1, 0x4B, KAN}, {0x72, 0x3F, -1, 0x07, GUR},
    {0x72, 0x40, -1, 0x08, GUR}, {0x72, 0x47, -1, 0x0F, GUR}, {0x73, 0x41, -1, 0x09, GUR},
    {0x73, 0x42, -1, 0x0A, GUR}, {0x73, 0x4B, -1, 0x13, GUR}};

/* The script block (0..8) of a UTF-16 unit, or -1. */
static int indic_block(char16_t c) { return c >= 0x0900 && c < 0x0D80 ? (c - 0x0900) >> 7 : -1; }

static int compose(int ch0, int blk, char16_t *t, int pos, int len) {
    if (pos + 1 >= len) return len;
    int base = 0x0900 + (blk << 7), flag = 1 << blk;
    if (indic_block(t[pos + 1]) != blk) return len;
    int ch1 = t[pos + 1] - base, ch2 = -1;
    if (pos + 2 < len) {
        if (t[pos + 2] == 0x200D) ch2 = 0xFF;
        else if (indic_block(t[pos + 2]) == blk) ch2 = t[pos + 2] - base;
    }
    for (size_t i = 0; i < TV_ARRAY_LEN(decomp); i++) {
        if (decomp[i][0] != ch0 || !(decomp[i][4] & flag)) continue;
        if (decomp[i][1] == ch1 && (decomp[i][2] < 0 || decomp[i][2] == ch2)) {
            t[pos] = (char16_t)(base + decomp[i][3]);
            len = tv_u16_del(t, pos + 1, len);
            if (decomp[i][2] >= 0) len = tv_u16_del(t, pos + 1, len);
            return len;
        }
    }
    return len;
}

static int indic_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    for (int i = 0; i < len; i++) {
        int blk = indic_block(s[i]);
        if (blk < 0) continue;
        int ch = s[i] - (0x0900 + (blk << 7));
        bool first = false; /* is ch the first char of a decomposition of this script? */
        for (size_t k = 0; k < TV_ARRAY_LEN(decomp) && !first; k++)
            first = decomp[k][0] == ch && (decomp[k][4] & (1 << blk));
        if (first) len = compose(ch, blk, s, i, len);
    }
    return len;
}

static tv_status indic_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, false, indic_rule, cfg);
}

const tv_filter_type tv_tf_indic_normalization = {"indic_normalization", NULL, indic_apply};

/* ---------------------------------------------------------------- Hindi */

static int hindi_norm_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    for (int i = 0; i < len; i++) {
        switch (s[i]) {
        case 0x0928: /* dead n -> anusvara */
            if (i + 1 < len && s[i + 1] == 0x094D) {
                s[i] = 0x0902;
                len = tv_u16_del(s, i + 1, len);
            }
            break;
        case 0x0901: s[i] = 0x0902; break; /* candrabindu -> anusvara */
        case 0x093C: len = tv_u16_del(s, i--, len); break; /* nukta */
        case 0x0929: s[i] = 0x0928; break;
        case 0x0931: s[i] = 0x0930; break;
        case 0x0934: s[i] = 0x0933; break;
        case 0x0958: s[i] = 0x0915; break;
        case 0x0959: s[i] = 0x0916; break;
        case 0x095A: s[i] = 0x0917; break;
        case 0x095B: s[i] = 0x091C; break;
        case 0x095C: s[i] = 0x0921; break;
        case 0x095D: s[i] = 0x0922; break;
        case 0x095E: s[i] = 0x092B; break;
        case 0x095F: s[i] = 0x092F; break;
        case 0x200D: case 0x200C: case 0x094D: /* zwj, zwnj, virama */
            len = tv_u16_del(s, i--, len);
            break;
        case 0x0945: case 0x0946: case 0x0948: s[i] = 0x0947; break;
        case 0x0949: case 0x094A: case 0x094C: s[i] = 0x094B; break;
        case 0x090D: case 0x090E: case 0x0910: s[i] = 0x090F; break;
        case 0x0911: case 0x0912: case 0x0914: s[i] = 0x0913; break;
        case 0x0972: case 0x0906: s[i] = 0x0905; break;
        case 0x0908: s[i] = 0x0907; break;
        case 0x090A: s[i] = 0x0909; break;
        case 0x0960: s[i] = 0x090B; break;
        case 0x0961: s[i] = 0x090C; break;
        case 0x0940: s[i] = 0x093F; break;
        case 0x0942: s[i] = 0x0941; break;
        case 0x0944: s[i] = 0x0943; break;
        case 0x0963: s[i] = 0x0962; break;
        default: break;
        }
    }
    return len;
}

/* Suffix groups: strip `strip` units when len > min and a suffix matches. */
typedef struct suffix_group {
    int min, strip;
    const char16_t *const *list;
} suffix_group;

static int strip_groups(const suffix_group *g, char16_t *s, int len) {
    for (; g->list; g++) {
        if (len <= g->min) continue;
        for (const char16_t *const *x = g->list; *x; x++)
            if (tv_u16_ends(s, len, *x)) return len - g->strip;
    }
    return len;
}

static const char16_t *const hi5[] = {u"ाएंगी", u"ाएंगे", u"ाऊंगी", u"ाऊंगा", u"ाइयाँ", u"ाइयों", u"ाइयां", NULL};
static const char16_t *const hi4[] = {u"ाएगी", u"ाएगा", u"ाओगी", u"ाओगे", u"एंगी", u"ेंगी",
                                      u"एंगे", u"ेंगे", u"ूंगी", u"ूंगा", u"ातीं", u"नाओं",
                                      u"नाएं", u"ताओं", u"ताएं", u"ियाँ", u"ियों", u"ियां", NULL};
static const char16_t *const hi3[] = {u"ाकर", u"ाइए", u"ाईं", u"ाया", u"ेगी", u"ेगा", u"ोगी",
                                      u"ोगे", u"ाने", u"ाना", u"ाते", u"ाती", u"ाता", u"तीं",
                                      u"ाओं", u"ाएं", u"ुओं", u"ुएं", u"ुआं", NULL};
static const char16_t *const hi2[] = {u"कर", u"ाओ", u"िए", u"ाई", u"ाए", u"ने", u"नी", u"ना",
                                      u"ते", u"ीं", u"ती", u"ता", u"ाँ", u"ां", u"ों", u"ें", NULL};
static const char16_t *const hi1[] = {u"ो", u"े", u"ू", u"ु", u"ी", u"ि", u"ा", NULL};
static const suffix_group hindi_groups[] = {
    {6, 5, hi5}, {5, 4, hi4}, {4, 3, hi3}, {3, 2, hi2}, {2, 1, hi1}, {0, 0, NULL}};

static int hindi_stem_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    return strip_groups(hindi_groups, s, len);
}

static tv_status hindi_norm_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, true, hindi_norm_rule, cfg);
}
static tv_status hindi_stem_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, true, hindi_stem_rule, cfg);
}

const tv_filter_type tv_tf_hindi_normalization = {"hindi_normalization", NULL, hindi_norm_apply};
const tv_filter_type tv_tf_hindi_stem = {"(hindi_stem)", NULL, hindi_stem_apply};

/* -------------------------------------------------------------- Bengali */

static int bengali_norm_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    for (int i = 0; i < len; i++) {
        switch (s[i]) {
        case 0x0981: len = tv_u16_del(s, i--, len); break; /* chandrabindu */
        case 0x09C0: s[i] = 0x09BF; break;                  /* dirgho i kar */
        case 0x09C2: s[i] = 0x09C1; break;                  /* dirgho u kar */
        case 0x0995: /* khio: ka + hoshonto + murdhonno sh */
            if (i + 2 < len && s[i + 1] == 0x09CD && s[i + 2] == 0x09BF) {
                if (i == 0) {
                    s[i] = 0x0996;
                    len = tv_u16_del(s, i + 2, len);
                    len = tv_u16_del(s, i + 1, len);
                } else {
                    s[i + 1] = 0x0996;
                    len = tv_u16_del(s, i + 2, len);
                }
            }
            break;
        case 0x0999: s[i] = 0x0982; break; /* nga -> anusvara */
        case 0x09AF:                       /* ja phala */
            if (i - 2 == 0 && s[i - 1] == 0x09CD) {
                s[i - 1] = 0x09C7;
                if (i + 1 < len && s[i + 1] == 0x09BE) len = tv_u16_del(s, i + 1, len);
                len = tv_u16_del(s, i--, len);
            } else if (i - 1 >= 0 && s[i - 1] == 0x09CD) {
                len = tv_u16_del(s, i, len);
                len = tv_u16_del(s, i - 1, len);
                i -= 2;
            }
            break;
        case 0x09AC: /* ba phala */
            if ((i >= 1 && s[i - 1] != 0x09CD) || i == 0) break;
            if (i - 2 == 0) {
                len = tv_u16_del(s, i, len);
                len = tv_u16_del(s, i - 1, len);
                i -= 2;
            } else if (i - 5 >= 0 && s[i - 3] == 0x09CD) {
                len = tv_u16_del(s, i, len);
                len = tv_u16_del(s, i - 1, len);
                i -= 2;
            } else if (i - 2 >= 0) {
                s[i - 1] = s[i - 2];
                len = tv_u16_del(s, i--, len);
            }
            break;
        case 0x0983: /* visarga */
            if (i == len - 1) {
                if (len <= 3) s[i] = 0x09B9;
                else len = tv_u16_del(s, i, len);
            } else {
                s[i] = s[i + 1];
            }
            break;
        case 0x09B6: case 0x09B7: s[i] = 0x09B8; break; /* all sh */
        case 0x09A3: s[i] = 0x09A8; break;              /* na */
        case 0x09DC: case 0x09DD: s[i] = 0x09B0; break; /* ra */
        case 0x09CE: s[i] = 0x09A4; break;              /* khanda ta */
        default: break;
        }
    }
    return len;
}

static const char16_t *const bn8[] = {u"িয়াছিলাম", u"িতেছিলাম", u"িতেছিলেন", u"ইতেছিলেন", u"িয়াছিলেন", u"ইয়াছিলেন", NULL};
static const char16_t *const bn7[] = {u"িতেছিলি", u"িতেছিলে", u"িয়াছিলা", u"িয়াছিলে", u"িতেছিলা", u"িয়াছিলি", u"য়েদেরকে", NULL};
static const char16_t *const bn6[] = {u"িতেছিস", u"িতেছেন", u"িয়াছিস", u"িয়াছেন", u"েছিলাম", u"েছিলেন", u"েদেরকে", NULL};
static const char16_t *const bn5[] = {u"িতেছি", u"িতেছা", u"িতেছে", u"ছিলাম", u"ছিলেন", u"িয়াছি", u"িয়াছা", u"িয়াছে",
                                      u"েছিলে", u"েছিলা", u"য়েদের", u"দেরকে", NULL};
static const char16_t *const bn4[] = {u"িলাম", u"িলেন", u"িতাম", u"িতেন", u"িবেন", u"ছিলি", u"ছিলে", u"ছিলা",
                                      u"তেছে", u"িতেছ", u"খানা", u"খানি", u"গুলো", u"গুলি", u"য়েরা", u"েদের", NULL};
static const char16_t *const bn3[] = {u"লাম", u"িলি", u"ইলি", u"িলে", u"ইলে", u"লেন", u"িলা", u"ইলা", u"তাম",
                                      u"িতি", u"ইতি", u"িতে", u"ইতে", u"তেন", u"িতা", u"িবা", u"ইবা", u"িবি",
                                      u"ইবি", u"বেন", u"িবে", u"ইবে", u"ছেন", u"য়োন", u"য়ের", u"েরা", u"দের", NULL};
static const char16_t *const bn2[] = {u"িস", u"েন", u"লি", u"লে", u"লা", u"তি", u"তে", u"তা", u"বি", u"বে",
                                      u"বা", u"ছি", u"ছা", u"ছে", u"ুন", u"ুক", u"টা", u"টি", u"নি", u"ের",
                                      u"তে", u"রা", u"কে", NULL};
static const char16_t *const bn1[] = {u"ি", u"ী", u"া", u"ো", u"ে", u"ব", u"ত", NULL};
static const suffix_group bengali_groups[] = {{9, 8, bn8}, {8, 7, bn7}, {7, 6, bn6}, {6, 5, bn5},
                                              {5, 4, bn4}, {4, 3, bn3}, {3, 2, bn2}, {2, 1, bn1},
                                              {0, 0, NULL}};

static int bengali_stem_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    return strip_groups(bengali_groups, s, len);
}

static tv_status bengali_norm_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, true, bengali_norm_rule, cfg);
}
static tv_status bengali_stem_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, true, bengali_stem_rule, cfg);
}

const tv_filter_type tv_tf_bengali_normalization = {"bengali_normalization", NULL,
                                                    bengali_norm_apply};
const tv_filter_type tv_tf_bengali_stem = {"(bengali_stem)", NULL, bengali_stem_apply};

/* ------------------------------------------------------------ analyzers */

static tv_status indic_build(tv_comp *c, tv_analyzer_parts *p, const tv_filter_type *norm,
                             const tv_filter_type *stem, const tv_termset *stop,
                             const char *stop_file, tv_error *err) {
    tv_status st;
    tv_lang_standard(p);
    tv_lang_add_core(p, TV_TF_LOWERCASE);
    tv_lang_add_ext(p, &tv_tf_decimal_digit, NULL);
    if ((st = tv_lang_exclusion(c, p, err))) return st;
    tv_lang_add_ext(p, &tv_tf_indic_normalization, NULL);
    tv_lang_add_ext(p, norm, NULL);
    if ((st = tv_lang_stop(c, p, stop, stop_file, err))) return st;
    tv_lang_add_ext(p, stem, NULL);
    return TROVE_OK;
}

static tv_status hindi_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    return indic_build(c, p, &tv_tf_hindi_normalization, &tv_tf_hindi_stem, tv_words_hindi(),
                       "hi/stopwords.txt", err);
}
static tv_status bengali_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    return indic_build(c, p, &tv_tf_bengali_normalization, &tv_tf_bengali_stem, tv_words_bengali(),
                       "bn/stopwords.txt", err);
}

const tv_analyzer_type tv_an_hindi = {"hindi", hindi_build};
const tv_analyzer_type tv_an_bengali = {"bengali", bengali_build};
