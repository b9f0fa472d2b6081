/*
 * lang_baltic.c — Latvian's stemmer, as Lucene's LatvianStemmer (Kreslins'
 * light stemmer): the first of a list of noun and adjective endings that
 * the word ends with is removed when the word keeps at least three units
 * and has more vowels than the ending requires; some endings then undo
 * the palatalization of the stem's last consonant (kš -> kst, ņņ -> nn
 * after -u, šņ -> sn, č -> c, labial + j -> labial...). Lithuanian's
 * stemmer is libstemmer's. Over UTF-16 units (lang_eu.h). Rejected: a
 * suffix trie — the list is 38 endings, scanned once per token.
 */
#include <uchar.h>

#include "text/lang_eu.h"

#define ENDS(suf) tv_s16_ends(s, len, suf)

static const struct {
    const char *affix;
    int vc;           /* vowels the word must have more than */
    bool palatalizes; /* undo the stem's palatalization after removing it */
} affixes[] = {
    {"ajiem", 3, false}, {"ajai", 3, false}, {"ajam", 2, false}, {"ajām", 2, false},
    {"ajos", 2, false},  {"ajās", 2, false}, {"iem", 2, true},   {"ajā", 2, false},
    {"ais", 2, false},   {"ai", 2, false},   {"ei", 2, false},   {"ām", 1, false},
    {"am", 1, false},    {"ēm", 1, false},   {"īm", 1, false},   {"im", 1, false},
    {"um", 1, false},    {"us", 1, true},    {"as", 1, false},   {"ās", 1, false},
    {"es", 1, false},    {"os", 1, true},    {"ij", 1, false},   {"īs", 1, false},
    {"ēs", 1, false},    {"is", 1, false},   {"ie", 1, false},   {"u", 1, true},
    {"a", 1, true},      {"i", 1, true},     {"e", 1, false},    {"ā", 1, false},
    {"ē", 1, false},     {"ī", 1, false},    {"ū", 1, false},    {"o", 1, false},
    {"s", 0, false},     {"š", 0, false},
};

static int unpalatalize(uint16_t *s, int len) {
    if (s[len] == 'u') { /* the removed ending was -u: genitive plural */
        if (ENDS("kš")) {
            len++;
            s[len - 2] = 's';
            s[len - 1] = 't';
            return len;
        }
        if (ENDS("ņņ")) {
            s[len - 2] = 'n';
            s[len - 1] = 'n';
            return len;
        }
    }
    if (ENDS("pj") || ENDS("bj") || ENDS("mj") || ENDS("vj")) return len - 1;
    static const struct { const char *from; uint16_t a, b; } pairs[] = {
        {"šņ", 's', 'n'}, {"žņ", 'z', 'n'}, {"šļ", 's', 'l'},
        {"žļ", 'z', 'l'}, {"ļņ", 'l', 'n'}, {"ļļ", 'l', 'l'}};
    for (size_t i = 0; i < TV_ARRAY_LEN(pairs); i++)
        if (ENDS(pairs[i].from)) {
            s[len - 2] = pairs[i].a;
            s[len - 1] = pairs[i].b;
            return len;
        }
    if (s[len - 1] == u'č') s[len - 1] = 'c';
    else if (s[len - 1] == u'ļ') s[len - 1] = 'l';
    else if (s[len - 1] == u'ņ') s[len - 1] = 'n';
    return len;
}

static int lv_stem(uint16_t *s, int len) {
    int vowels = 0;
    for (int i = 0; i < len; i++) switch (s[i]) {
        case 'a': case 'e': case 'i': case 'o': case 'u':
        case u'ā': case u'ī': case u'ē': case u'ū': vowels++;
        }
    for (size_t i = 0; i < TV_ARRAY_LEN(affixes); i++) {
        /* affix lengths in units: every character here is in the BMP */
        int alen = 0;
        for (const uint8_t *p = (const uint8_t *)affixes[i].affix; *p; p++) alen += (*p & 0xC0) != 0x80;
        if (vowels > affixes[i].vc && len >= alen + 3 && ENDS(affixes[i].affix)) {
            len -= alen;
            return affixes[i].palatalizes ? unpalatalize(s, len) : len;
        }
    }
    return len;
}

const tv_stem16 tv_stem_latvian = {"latvian", lv_stem, false};
