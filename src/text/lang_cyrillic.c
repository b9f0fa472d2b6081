/*
 * lang_cyrillic.c — Russian and Bulgarian: the `russian_stem` filter
 * (Lucene's SnowballFilter with the Russian Snowball stemmer, libstemmer
 * here), the light Russian stemmer (`stemmer` language "light_russian"),
 * the Bulgarian light stemmer (BulgarianStemmer; `stemmer`
 * language "bulgarian"), and the `russian` and `bulgarian` analyzers as
 * Lucene builds them: standard, lowercase, stop words
 * (snowball/russian_stop.txt, bg/stopwords.txt), stem_exclusion, stemmer.
 * (Serbian's normalization filter is in lang_serbian.c.)
 *
 * The Bulgarian stemmer (Savoy's light stemmer) strips the definite
 * article and plural endings with a few letter rewrites (ци→к, зи→г,
 * си→х, еве→й, е..и→я..), then a final vowel; it counts UTF-16 units as
 * Lucene does (all of Cyrillic is one unit a letter). The Russian Snowball
 * stemmer of libstemmer (Snowball 2.x) folds ё to е as Lucene 10's copy
 * does; Lucene 4.10's older copy does not.
 */
#include "text/lang_int.h"

/* -------------------------------------------------------------- Russian */

static tv_status russian_stem_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)cfg;
    tv_filter_def d = {.kind = TV_TF_SNOWBALL, .algo = tv_stem_algo_find("russian", 7)};
    return tv_filter_apply(a, &d, v);
}

const tv_filter_type tv_tf_russian_stem = {"russian_stem", NULL, russian_stem_apply};

static tv_status russian_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    tv_status st;
    tv_lang_standard(p);
    tv_lang_add_core(p, TV_TF_LOWERCASE);
    if ((st = tv_lang_stop(c, p, tv_words_russian(), "snowball/russian_stop.txt", err))) return st;
    if ((st = tv_lang_exclusion(c, p, err))) return st;
    tv_lang_add_snowball(p, "russian");
    return TROVE_OK;
}

const tv_analyzer_type tv_an_russian = {"russian", russian_build};

/* RussianLightStemmer (Dolamic and Savoy), the `stemmer` language
 * "light_russian": a case ending, then a final ь/и or a doubled н. */
static int ru_light_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    static const char16_t *const three[] = {u"иям", u"иях", u"оях", u"ями", u"оям",
                                            u"оьв", u"ами", u"его", u"ему", u"ери",
                                            u"ими", u"ого", u"ому", u"ыми", u"оев"};
    static const char16_t *const two[] = {
        u"ая", u"яя", u"ях", u"юю", u"ах", u"ею", u"их", u"ия", u"ию", u"ьв",
        u"ою", u"ую", u"ям", u"ых", u"ея", u"ам", u"ем", u"ей", u"ём", u"ев",
        u"ий", u"им", u"ое", u"ой", u"ом", u"ов", u"ые", u"ый", u"ым", u"ми"};
    bool done = false;
    if (len > 6 && (tv_u16_ends(s, len, u"иями") || tv_u16_ends(s, len, u"оями"))) {
        len -= 4;
        done = true;
    }
    for (size_t i = 0; !done && len > 5 && i < TV_ARRAY_LEN(three); i++)
        if (tv_u16_ends(s, len, three[i])) {
            len -= 3;
            done = true;
        }
    for (size_t i = 0; !done && len > 4 && i < TV_ARRAY_LEN(two); i++)
        if (tv_u16_ends(s, len, two[i])) {
            len -= 2;
            done = true;
        }
    if (!done && len > 3) {
        switch (s[len - 1]) {
        case u'а': case u'е': case u'и': case u'о': case u'у': case u'й': case u'ы': case u'я':
        case u'ь': len--; break;
        default: break;
        }
    }
    if (len > 3) {
        if (s[len - 1] == u'ь' || s[len - 1] == u'и') return len - 1;
        if (s[len - 1] == u'н' && s[len - 2] == u'н') return len - 1;
    }
    return len;
}

static tv_status ru_light_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, true, ru_light_rule, cfg);
}

const tv_filter_type tv_tf_light_russian = {"(light_russian)", NULL, ru_light_apply};

/* ------------------------------------------------------------ Bulgarian */

static int bg_article(char16_t *s, int len) {
    if (len > 6 && tv_u16_ends(s, len, u"ият")) return len - 3;
    if (len > 5 && (tv_u16_ends(s, len, u"ът") || tv_u16_ends(s, len, u"то") ||
                    tv_u16_ends(s, len, u"те") || tv_u16_ends(s, len, u"та") ||
                    tv_u16_ends(s, len, u"ия")))
        return len - 2;
    if (len > 4 && tv_u16_ends(s, len, u"ят")) return len - 2;
    return len;
}

static int bg_plural(char16_t *s, int len) {
    if (len > 6) {
        if (tv_u16_ends(s, len, u"овци")) return len - 3; /* -> о */
        if (tv_u16_ends(s, len, u"ове")) return len - 3;
        if (tv_u16_ends(s, len, u"еве")) {
            s[len - 3] = u'й';
            return len - 2;
        }
    }
    if (len > 5) {
        if (tv_u16_ends(s, len, u"ища")) return len - 3;
        if (tv_u16_ends(s, len, u"та")) return len - 2;
        if (tv_u16_ends(s, len, u"ци")) {
            s[len - 2] = u'к';
            return len - 1;
        }
        if (tv_u16_ends(s, len, u"зи")) {
            s[len - 2] = u'г';
            return len - 1;
        }
        if (s[len - 3] == u'е' && s[len - 1] == u'и') {
            s[len - 3] = u'я';
            return len - 1;
        }
    }
    if (len > 4) {
        if (tv_u16_ends(s, len, u"си")) {
            s[len - 2] = u'х';
            return len - 1;
        }
        if (tv_u16_ends(s, len, u"и")) return len - 1;
    }
    return len;
}

static int bulgarian_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    if (len < 4) return len;
    if (len > 5 && tv_u16_ends(s, len, u"ища")) return len - 3;
    len = bg_article(s, len);
    len = bg_plural(s, len);
    if (len > 3) {
        if (tv_u16_ends(s, len, u"я")) len--;
        if (tv_u16_ends(s, len, u"а") || tv_u16_ends(s, len, u"о") || tv_u16_ends(s, len, u"е"))
            len--;
    }
    if (len > 4 && tv_u16_ends(s, len, u"ен")) { /* ен -> н */
        s[len - 2] = u'н';
        len--;
    }
    if (len > 5 && s[len - 2] == u'ъ') { /* ъN -> N */
        s[len - 2] = s[len - 1];
        len--;
    }
    return len;
}

static tv_status bulgarian_stem_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, true, bulgarian_rule, cfg);
}

const tv_filter_type tv_tf_bulgarian_stem = {"(bulgarian_stem)", NULL, bulgarian_stem_apply};

static tv_status bulgarian_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    tv_status st;
    tv_lang_standard(p);
    tv_lang_add_core(p, TV_TF_LOWERCASE);
    if ((st = tv_lang_stop(c, p, tv_words_bulgarian(), "bg/stopwords.txt", err))) return st;
    if ((st = tv_lang_exclusion(c, p, err))) return st;
    tv_lang_add_ext(p, &tv_tf_bulgarian_stem, NULL);
    return TROVE_OK;
}

const tv_analyzer_type tv_an_bulgarian = {"bulgarian", bulgarian_build};
