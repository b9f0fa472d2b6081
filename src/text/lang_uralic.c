/*
 * lang_uralic.c — Finnish's and Hungarian's light stemmers, as Lucene's
 * FinnishLightStemmer and HungarianLightStemmer (Savoy): fold a few
 * accented vowels, then strip case endings, possessives and plurals in
 * fixed steps with minimum-length guards. (Their Snowball stemmers are
 * libstemmer's.) Over UTF-16 units (lang_eu.h). Rejected: sharing code
 * with the Germanic light stemmers — nothing but the shape is common.
 */
#include <uchar.h>

#include "text/lang_eu.h"

#define ENDS(suf) tv_s16_ends(s, len, suf)

/* --------------------------------------------------------------- Finnish */

static bool fi_vowel(uint16_t c) {
    return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y';
}

static int fi_step1(uint16_t *s, int len) {
    if (len > 8) {
        if (ENDS("kin")) return fi_step1(s, len - 3);
        if (ENDS("ko")) return fi_step1(s, len - 2);
    }
    if (len > 11) {
        if (ENDS("dellinen")) return len - 8;
        if (ENDS("dellisuus")) return len - 9;
    }
    return len;
}

static int fi_step2(uint16_t *s, int len) {
    if (len > 5) {
        if (ENDS("lla") || ENDS("tse") || ENDS("sti")) return len - 3;
        if (ENDS("ni")) return len - 2;
        if (ENDS("aa")) return len - 1;
    }
    return len;
}

static int fi_step3(uint16_t *s, int len) {
    if (len > 8) {
        if (ENDS("nnen")) {
            s[len - 4] = 's';
            return len - 3;
        }
        if (ENDS("ntena")) {
            s[len - 5] = 's';
            return len - 4;
        }
        if (ENDS("tten")) return len - 4;
        if (ENDS("eiden")) return len - 5;
    }
    if (len > 6) {
        if (ENDS("neen") || ENDS("niin") || ENDS("seen") || ENDS("teen") || ENDS("inen"))
            return len - 4;
        if (s[len - 3] == 'h' && fi_vowel(s[len - 2]) && s[len - 1] == 'n') return len - 3;
        if (ENDS("den")) {
            s[len - 3] = 's';
            return len - 2;
        }
        if (ENDS("ksen")) {
            s[len - 4] = 's';
            return len - 3;
        }
        if (ENDS("ssa") || ENDS("sta") || ENDS("lla") || ENDS("lta") || ENDS("tta") || ENDS("ksi") ||
            ENDS("lle"))
            return len - 3;
    }
    if (len > 5) {
        if (ENDS("na") || ENDS("ne")) return len - 2;
        if (ENDS("nei")) return len - 3;
    }
    if (len > 4) {
        if (ENDS("ja") || ENDS("ta")) return len - 2;
        if (s[len - 1] == 'a') return len - 1;
        if (s[len - 1] == 'n' && fi_vowel(s[len - 2])) return len - 2;
        if (s[len - 1] == 'n') return len - 1;
    }
    return len;
}

static int fi_norm1(uint16_t *s, int len) {
    if (len > 5 && ENDS("hde")) {
        s[len - 3] = 'k';
        s[len - 2] = 's';
        s[len - 1] = 'i';
    }
    if (len > 4 && (ENDS("ei") || ENDS("at"))) return len - 2;
    if (len > 3) switch (s[len - 1]) {
        case 't': case 's': case 'j': case 'e': case 'a': case 'i': return len - 1;
        }
    return len;
}

static int fi_norm2(uint16_t *s, int len) {
    if (len > 8 && (s[len - 1] == 'e' || s[len - 1] == 'o' || s[len - 1] == 'u')) len--;
    if (len > 4) {
        if (s[len - 1] == 'i') len--;
        if (len > 4) {
            uint16_t ch = s[0];
            for (int i = 1; i < len; i++) {
                if (s[i] == ch && (ch == 'k' || ch == 'p' || ch == 't')) len = tv_s16_delete(s, i--, len);
                else ch = s[i];
            }
        }
    }
    return len;
}

static int fi_light(uint16_t *s, int len) {
    if (len < 4) return len;
    for (int i = 0; i < len; i++) switch (s[i]) {
        case u'ä': case u'å': s[i] = 'a'; break;
        case u'ö': s[i] = 'o'; break;
        }
    len = fi_step1(s, len);
    len = fi_step2(s, len);
    len = fi_step3(s, len);
    len = fi_norm1(s, len);
    return fi_norm2(s, len);
}

/* ------------------------------------------------------------- Hungarian */

static bool hu_vowel(uint16_t c) {
    return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y';
}

static int hu_case(uint16_t *s, int len) {
    if (len > 6 && ENDS("kent")) return len - 4;
    if (len > 5) {
        if (ENDS("nak") || ENDS("nek") || ENDS("val") || ENDS("vel") || ENDS("ert") || ENDS("rol") ||
            ENDS("ban") || ENDS("ben") || ENDS("bol") || ENDS("nal") || ENDS("nel") || ENDS("hoz") ||
            ENDS("hez") || ENDS("tol"))
            return len - 3;
        if ((ENDS("al") || ENDS("el")) && !hu_vowel(s[len - 3]) && s[len - 3] == s[len - 4])
            return len - 3;
    }
    if (len > 4) {
        if (ENDS("at") || ENDS("et") || ENDS("ot") || ENDS("va") || ENDS("ve") || ENDS("ra") ||
            ENDS("re") || ENDS("ba") || ENDS("be") || ENDS("ul") || ENDS("ig"))
            return len - 2;
        if ((ENDS("on") || ENDS("en")) && !hu_vowel(s[len - 3])) return len - 2;
        switch (s[len - 1]) {
        case 't': case 'n': return len - 1;
        case 'a': case 'e':
            if (s[len - 2] == s[len - 3] && !hu_vowel(s[len - 2])) return len - 2;
        }
    }
    return len;
}

static int hu_possessive(uint16_t *s, int len) {
    if (len > 6) {
        if (!hu_vowel(s[len - 5]) && (ENDS("atok") || ENDS("otok") || ENDS("etek"))) return len - 4;
        if (ENDS("itek") || ENDS("itok")) return len - 4;
    }
    if (len > 5) {
        if (!hu_vowel(s[len - 4]) && (ENDS("unk") || ENDS("tok") || ENDS("tek"))) return len - 3;
        if (hu_vowel(s[len - 4]) && ENDS("juk")) return len - 3;
        if (ENDS("ink")) return len - 3;
    }
    if (len > 4) {
        if (!hu_vowel(s[len - 3]) && (ENDS("am") || ENDS("em") || ENDS("om") || ENDS("ad") ||
                                       ENDS("ed") || ENDS("od") || ENDS("uk")))
            return len - 2;
        if (hu_vowel(s[len - 3]) && (ENDS("nk") || ENDS("ja") || ENDS("je"))) return len - 2;
        if (ENDS("im") || ENDS("id") || ENDS("ik")) return len - 2;
    }
    if (len > 3) switch (s[len - 1]) {
        case 'a': case 'e':
            if (!hu_vowel(s[len - 2])) return len - 1;
            break;
        case 'm': case 'd':
            if (hu_vowel(s[len - 2])) return len - 1;
            break;
        case 'i': return len - 1;
        }
    return len;
}

static int hu_plural(uint16_t *s, int len) {
    if (len > 3 && s[len - 1] == 'k') switch (s[len - 2]) {
        case 'a': case 'o': case 'e':
            if (len > 4) return len - 2;
            /* fall through */
        default: return len - 1;
        }
    return len;
}

static int hu_normalize(uint16_t *s, int len) {
    if (len > 3) switch (s[len - 1]) {
        case 'a': case 'e': case 'i': case 'o': return len - 1;
        }
    return len;
}

static int hu_light(uint16_t *s, int len) {
    for (int i = 0; i < len; i++) switch (s[i]) {
        case u'á': s[i] = 'a'; break;
        case u'ë': case u'é': s[i] = 'e'; break;
        case u'í': s[i] = 'i'; break;
        case u'ó': case u'ő': case u'õ': case u'ö': s[i] = 'o'; break;
        case u'ú': case u'ű': case u'ũ': case u'û': case u'ü': s[i] = 'u'; break;
        }
    len = hu_case(s, len);
    len = hu_possessive(s, len);
    len = hu_plural(s, len);
    return hu_normalize(s, len);
}

const tv_stem16 tv_stem_light_finnish = {"light_finnish", fi_light, false};
const tv_stem16 tv_stem_light_hungarian = {"light_hungarian", hu_light, false};
