/*
 * lang_misc.c — Czech, Armenian and Indonesian: the `czech_stem` filter (Lucene's
 * CzechStemmer, a light stemmer: case endings, possessives, then a
 * normalization of the stem's last letters: čt→ck, št→sk, c/č→k, z/ž→h,
 * a dropped e before the last letter, ů→o), and the `czech` and
 * `armenian` and `indonesian` analyzers as Lucene builds them: standard,
 * lowercase, stop words (cz/, hy/, id/stopwords.txt), stem_exclusion, then
 * the Czech stemmer, the Armenian Snowball stemmer (libstemmer) or the
 * Indonesian stemmer (below; also the `stemmer` language "indonesian").
 */
#include "text/lang_int.h"

/* ---------------------------------------------------------------- Czech */

static int cz_case(const char16_t *s, int len) {
#define E(x) tv_u16_ends(s, len, x)
    if (len > 7 && E(u"atech")) return len - 5;
    if (len > 6 && (E(u"ětem") || E(u"etem") || E(u"atům"))) return len - 4;
    static const char16_t *const three[] = {
        u"ech", u"ich", u"ích", u"ého", u"ěmi", u"emi", u"ému", u"ěte", u"ete", u"ěti", u"eti",
        u"ího", u"iho", u"ími", u"ímu", u"imu", u"ách", u"ata", u"aty", u"ých", u"ama", u"ami",
        u"ové", u"ovi", u"ými"};
    if (len > 5)
        for (size_t i = 0; i < TV_ARRAY_LEN(three); i++)
            if (E(three[i])) return len - 3;
    static const char16_t *const two[] = {u"em", u"es", u"ém", u"ím", u"ům", u"at",
                                          u"ám", u"os", u"us", u"ým", u"mi", u"ou"};
    if (len > 4)
        for (size_t i = 0; i < TV_ARRAY_LEN(two); i++)
            if (E(two[i])) return len - 2;
    if (len > 3) {
        switch (s[len - 1]) {
        case u'a': case u'e': case u'i': case u'o': case u'u': case u'ů': case u'y':
        case u'á': case u'é': case u'í': case u'ý': case u'ě': return len - 1;
        default: break;
        }
    }
#undef E
    return len;
}

static int czech_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    len = cz_case(s, len);
    if (len > 5 && (tv_u16_ends(s, len, u"ov") || tv_u16_ends(s, len, u"in") ||
                    tv_u16_ends(s, len, u"ův")))
        len -= 2;
    if (len <= 0) return len;
    if (tv_u16_ends(s, len, u"čt")) {
        s[len - 2] = u'c';
        s[len - 1] = u'k';
        return len;
    }
    if (tv_u16_ends(s, len, u"št")) {
        s[len - 2] = u's';
        s[len - 1] = u'k';
        return len;
    }
    switch (s[len - 1]) {
    case u'c': case u'č': s[len - 1] = u'k'; return len;
    case u'z': case u'ž': s[len - 1] = u'h'; return len;
    default: break;
    }
    if (len > 1 && s[len - 2] == u'e') {
        s[len - 2] = s[len - 1];
        return len - 1;
    }
    if (len > 2 && s[len - 2] == u'ů') s[len - 2] = u'o';
    return len;
}

static tv_status czech_stem_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, true, czech_rule, cfg);
}

const tv_filter_type tv_tf_czech_stem = {"czech_stem", NULL, czech_stem_apply};

static tv_status czech_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    tv_status st;
    tv_lang_standard(p);
    tv_lang_add_core(p, TV_TF_LOWERCASE);
    if ((st = tv_lang_stop(c, p, tv_words_czech(), "cz/stopwords.txt", err))) return st;
    if ((st = tv_lang_exclusion(c, p, err))) return st;
    tv_lang_add_ext(p, &tv_tf_czech_stem, NULL);
    return TROVE_OK;
}

const tv_analyzer_type tv_an_czech = {"czech", czech_build};

/* ------------------------------------------------------------- Armenian */

static tv_status armenian_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    tv_status st;
    tv_lang_standard(p);
    tv_lang_add_core(p, TV_TF_LOWERCASE);
    if ((st = tv_lang_stop(c, p, tv_words_armenian(), "hy/stopwords.txt", err))) return st;
    if ((st = tv_lang_exclusion(c, p, err))) return st;
    tv_lang_add_snowball(p, "armenian");
    return TROVE_OK;
}

const tv_analyzer_type tv_an_armenian = {"armenian", armenian_build};

/* ----------------------------------------------------------- Indonesian */

/*
 * IndonesianStemmer (Tala's algorithm) with derivational stemming, as the
 * `indonesian` analyzer and `stemmer` language use it: particles (-kah,
 * -lah, -pun) and possessives (-ku, -mu, -nya), then first-order prefixes
 * (meng-, peng-, di-, ter-, ke- and their assimilated forms), suffixes
 * (-kan, -an, -i, each barred after some prefixes) and second-order
 * prefixes (ber-, per-, pe-), stripping only while the word keeps more than
 * two syllables (vowels).
 */
enum { ID_KE = 1, ID_PENG = 2, ID_DI = 4, ID_MENG = 8, ID_TER = 16, ID_BER = 32, ID_PE = 64 };

typedef struct id_state {
    int syl;
    unsigned flags;
} id_state;

static bool id_vowel(char16_t c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

static int id_cut(id_state *st, unsigned flag, char16_t *s, int len, int n) {
    st->flags |= flag;
    st->syl--;
    return tv_u16_deln(s, 0, len, n);
}

static int id_first(id_state *st, char16_t *s, int len) {
#define S(x) tv_u16_starts(s, len, x)
    if (S(u"meng")) return id_cut(st, ID_MENG, s, len, 4);
    if (S(u"meny") && len > 4 && id_vowel(s[4])) {
        s[3] = 's';
        return id_cut(st, ID_MENG, s, len, 3);
    }
    if (S(u"men") || S(u"mem")) return id_cut(st, ID_MENG, s, len, 3);
    if (S(u"me")) return id_cut(st, ID_MENG, s, len, 2);
    if (S(u"peng")) return id_cut(st, ID_PENG, s, len, 4);
    if (S(u"peny") && len > 4 && id_vowel(s[4])) {
        s[3] = 's';
        return id_cut(st, ID_PENG, s, len, 3);
    }
    if (S(u"peny")) return id_cut(st, ID_PENG, s, len, 4);
    if (S(u"pen") && len > 3 && id_vowel(s[3])) {
        s[2] = 't';
        return id_cut(st, ID_PENG, s, len, 2);
    }
    if (S(u"pen") || S(u"pem")) return id_cut(st, ID_PENG, s, len, 3);
    if (S(u"di")) return id_cut(st, ID_DI, s, len, 2);
    if (S(u"ter")) return id_cut(st, ID_TER, s, len, 3);
    if (S(u"ke")) return id_cut(st, ID_KE, s, len, 2);
    return len;
}

static int id_second(id_state *st, char16_t *s, int len) {
    if (S(u"ber")) return id_cut(st, ID_BER, s, len, 3);
    if (len == 7 && S(u"belajar")) return id_cut(st, ID_BER, s, len, 3);
    if (S(u"be") && len > 4 && !id_vowel(s[2]) && s[3] == 'e' && s[4] == 'r')
        return id_cut(st, ID_BER, s, len, 2);
    if (S(u"per")) return id_cut(st, 0, s, len, 3);
    if (len == 7 && S(u"pelajar")) return id_cut(st, 0, s, len, 3);
    if (S(u"pe")) return id_cut(st, ID_PE, s, len, 2);
#undef S
    return len;
}

static int id_suffix(id_state *st, char16_t *s, int len) {
    unsigned f = st->flags;
    if (tv_u16_ends(s, len, u"kan") && !(f & (ID_KE | ID_PENG | ID_PE))) {
        st->syl--;
        return len - 3;
    }
    if (tv_u16_ends(s, len, u"an") && !(f & (ID_DI | ID_MENG | ID_TER))) {
        st->syl--;
        return len - 2;
    }
    if (tv_u16_ends(s, len, u"i") && !tv_u16_ends(s, len, u"si") && !(f & (ID_BER | ID_KE | ID_PENG))) {
        st->syl--;
        return len - 1;
    }
    return len;
}

static int indonesian_rule(const void *cfg, char16_t *s, int len, int cap) {
    (void)cfg;
    (void)cap;
    id_state st = {0, 0};
    for (int i = 0; i < len; i++) st.syl += id_vowel(s[i]);
    if (st.syl > 2) {
        if (tv_u16_ends(s, len, u"kah") || tv_u16_ends(s, len, u"lah") || tv_u16_ends(s, len, u"pun")) {
            st.syl--;
            len -= 3;
        }
    }
    if (st.syl > 2) {
        if (tv_u16_ends(s, len, u"ku") || tv_u16_ends(s, len, u"mu")) {
            st.syl--;
            len -= 2;
        } else if (tv_u16_ends(s, len, u"nya")) {
            st.syl--;
            len -= 3;
        }
    }
    int old = len;
    if (st.syl > 2) len = id_first(&st, s, len);
    if (old != len) {
        old = len;
        if (st.syl > 2) len = id_suffix(&st, s, len);
        if (old != len && st.syl > 2) len = id_second(&st, s, len);
    } else {
        if (st.syl > 2) len = id_second(&st, s, len);
        if (st.syl > 2) len = id_suffix(&st, s, len);
    }
    return len;
}

static tv_status indonesian_stem_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_lang_u16_apply(a, v, true, indonesian_rule, cfg);
}

const tv_filter_type tv_tf_indonesian_stem = {"(indonesian_stem)", NULL, indonesian_stem_apply};

static tv_status indonesian_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    tv_status st;
    tv_lang_standard(p);
    tv_lang_add_core(p, TV_TF_LOWERCASE);
    if ((st = tv_lang_stop(c, p, tv_words_indonesian(), "id/stopwords.txt", err))) return st;
    if ((st = tv_lang_exclusion(c, p, err))) return st;
    tv_lang_add_ext(p, &tv_tf_indonesian_stem, NULL);
    return TROVE_OK;
}

const tv_analyzer_type tv_an_indonesian = {"indonesian", indonesian_build};
