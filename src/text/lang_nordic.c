/*
 * lang_nordic.c — the Scandinavian languages' light and minimal stemmers
 * and normalizers, as Lucene's:
 *   light_swedish                  SwedishLightStemmer
 *   light_norwegian, light_nynorsk NorwegianLightStemmer (Bokmål, Nynorsk)
 *   minimal_norwegian, _nynorsk    NorwegianMinimalStemmer
 *   scandinavian_normalization     ScandinavianNormalizationFilter: the
 *                                  interchangeable letters to æ/ø/å
 *                                  (ä ö, aa ao ae oe oo)
 *   scandinavian_folding           ScandinavianFoldingFilter: the same
 *                                  letters folded to a/o
 * (Danish, Norwegian and Swedish Snowball stemmers are libstemmer's.)
 * Over UTF-16 units (lang_eu.h). Rejected: one table-driven suffix
 * stripper for all of them — the rules differ in their length conditions
 * and order, and spelling each out keeps them checkable against Lucene's.
 */
#include <uchar.h>

#include "text/lang_eu.h"

#define ENDS(suf) tv_s16_ends(s, len, suf)

static int sv_light(uint16_t *s, int len) {
    if (len > 4 && s[len - 1] == 's') len--;
    if (len > 7 && (ENDS("elser") || ENDS("heten"))) return len - 5;
    if (len > 6 && (ENDS("arne") || ENDS("erna") || ENDS("ande") || ENDS("else") || ENDS("aste") ||
                    ENDS("orna") || ENDS("aren")))
        return len - 4;
    if (len > 5 && (ENDS("are") || ENDS("ast") || ENDS("het"))) return len - 3;
    if (len > 4 && (ENDS("ar") || ENDS("er") || ENDS("or") || ENDS("en") || ENDS("at") ||
                    ENDS("te") || ENDS("et")))
        return len - 2;
    if (len > 3) switch (s[len - 1]) {
        case 't': case 'a': case 'e': case 'n': return len - 1;
        }
    return len;
}

static int no_light(uint16_t *s, int len, bool bm, bool nn) {
    if (len > 4 && s[len - 1] == 's') len--;
    if (len > 7 && ((ENDS("heter") && bm) || (ENDS("heten") && bm) || (ENDS("heita") && nn)))
        return len - 5;
    if (len > 8 && nn && (ENDS("heiter") || ENDS("leiken") || ENDS("leikar"))) return len - 6;
    if (len > 5 && (ENDS("dom") || (ENDS("het") && bm))) return len - 3;
    if (len > 6 && nn && (ENDS("heit") || ENDS("semd") || ENDS("leik"))) return len - 4;
    if (len > 7 && (ENDS("elser") || ENDS("elsen"))) return len - 5;
    if (len > 6 && ((ENDS("ende") && bm) || (ENDS("ande") && nn) || ENDS("else") ||
                    (ENDS("este") && bm) || (ENDS("aste") && nn) || (ENDS("eren") && bm) ||
                    (ENDS("aren") && nn)))
        return len - 4;
    if (len > 5 && ((ENDS("ere") && bm) || (ENDS("are") && nn) || (ENDS("est") && bm) ||
                    (ENDS("ast") && nn) || ENDS("ene") || (ENDS("ane") && nn)))
        return len - 3;
    if (len > 4 && (ENDS("er") || ENDS("en") || ENDS("et") || (ENDS("ar") && nn) ||
                    (ENDS("st") && bm) || ENDS("te")))
        return len - 2;
    if (len > 3) switch (s[len - 1]) {
        case 'a': case 'e': case 'n': return len - 1;
        }
    return len;
}

static int no_minimal(uint16_t *s, int len, bool nn) {
    if (len > 4 && s[len - 1] == 's') len--;
    if (len > 5 && (ENDS("ene") || (ENDS("ane") && nn))) return len - 3;
    if (len > 4 && (ENDS("er") || ENDS("en") || ENDS("et") || (ENDS("ar") && nn))) return len - 2;
    if (len > 3) switch (s[len - 1]) {
        case 'a': case 'e': return len - 1;
        }
    return len;
}

static int nb_light(uint16_t *s, int len) { return no_light(s, len, true, false); }
static int nn_light(uint16_t *s, int len) { return no_light(s, len, false, true); }
static int nb_minimal(uint16_t *s, int len) { return no_minimal(s, len, false); }
static int nn_minimal(uint16_t *s, int len) { return no_minimal(s, len, true); }

static bool is_ao(uint16_t c) { return c == 'a' || c == 'A' || c == 'o' || c == 'O'; }
static bool is_e(uint16_t c) { return c == 'e' || c == 'E'; }
static bool is_o(uint16_t c) { return c == 'o' || c == 'O'; }

static int sc_norm(uint16_t *s, int len) {
    for (int i = 0; i < len; i++) {
        uint16_t c = s[i];
        if (c == u'ä') s[i] = u'æ';
        else if (c == u'Ä') s[i] = u'Æ';
        else if (c == u'ö') s[i] = u'ø';
        else if (c == u'Ö') s[i] = u'Ø';
        else if (len - 1 > i) {
            uint16_t n = s[i + 1];
            if (c == 'a' && is_ao(n)) {
                len = tv_s16_delete(s, i + 1, len);
                s[i] = u'å';
            } else if (c == 'A' && is_ao(n)) {
                len = tv_s16_delete(s, i + 1, len);
                s[i] = u'Å';
            } else if (c == 'a' && is_e(n)) {
                len = tv_s16_delete(s, i + 1, len);
                s[i] = u'æ';
            } else if (c == 'A' && is_e(n)) {
                len = tv_s16_delete(s, i + 1, len);
                s[i] = u'Æ';
            } else if (c == 'o' && (is_e(n) || is_o(n))) {
                len = tv_s16_delete(s, i + 1, len);
                s[i] = u'ø';
            } else if (c == 'O' && (is_e(n) || is_o(n))) {
                len = tv_s16_delete(s, i + 1, len);
                s[i] = u'Ø';
            }
        }
    }
    return len;
}

static int sc_fold(uint16_t *s, int len) {
    for (int i = 0; i < len; i++) {
        uint16_t c = s[i];
        if (c == u'å' || c == u'ä' || c == u'æ') s[i] = 'a';
        else if (c == u'Å' || c == u'Ä' || c == u'Æ') s[i] = 'A';
        else if (c == u'ø' || c == u'ö') s[i] = 'o';
        else if (c == u'Ø' || c == u'Ö') s[i] = 'O';
        else if (len - 1 > i) {
            uint16_t n = s[i + 1];
            if ((c == 'a' || c == 'A') && (is_ao(n) || is_e(n))) len = tv_s16_delete(s, i + 1, len);
            else if ((c == 'o' || c == 'O') && (is_e(n) || is_o(n)))
                len = tv_s16_delete(s, i + 1, len);
        }
    }
    return len;
}

const tv_stem16 tv_stem_light_swedish = {"light_swedish", sv_light, false};
const tv_stem16 tv_stem_light_norwegian = {"light_norwegian", nb_light, false};
const tv_stem16 tv_stem_light_nynorsk = {"light_nynorsk", nn_light, false};
const tv_stem16 tv_stem_minimal_norwegian = {"minimal_norwegian", nb_minimal, false};
const tv_stem16 tv_stem_minimal_nynorsk = {"minimal_nynorsk", nn_minimal, false};
const tv_stem16 tv_norm_scandinavian = {"scandinavian_normalization", sc_norm, true};
const tv_stem16 tv_fold_scandinavian = {"scandinavian_folding", sc_fold, true};
