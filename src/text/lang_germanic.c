/*
 * lang_germanic.c — German's stemmers and normalizer, as Lucene's:
 *   light_german           GermanLightStemmer (Savoy): fold accents, strip
 *                          -ern/-em/-en/-er/-es/-e/-s, then -est/-er/-en/-st
 *   minimal_german         GermanMinimalStemmer: plural endings only
 *   german_normalization   GermanNormalizationFilter: ä/ö/ü -> a/o/u,
 *                          ß -> ss, and ae/oe/ue -> a/o/u where the e
 *                          follows a vowel-ish state (a small automaton)
 *   german_stem            GermanStemFilter / GermanStemmer (Caumanns):
 *                          lower-case; words with a non-letter stay as
 *                          they are; letter pairs and sch/ch/ei/ie/ig/st
 *                          masked, suffixes stripped, then unmasked
 * (The Snowball German stemmer is libstemmer's, in filters.c.)
 *
 * All over UTF-16 units (lang_eu.h). Rejected: reusing the ASCII folding
 * table for the accent folds — each stemmer folds its own short list, and
 * folding more would change stems.
 */
#include <uchar.h>

#include "text/lang_eu.h"

/* ----------------------------------------------------------- light_german */

static bool st_ending(uint16_t c) {
    switch (c) {
    case 'b': case 'd': case 'f': case 'g': case 'h': case 'k': case 'l': case 'm': case 'n':
    case 't': return true;
    default: return false;
    }
}

static int de_light(uint16_t *s, int len) {
    for (int i = 0; i < len; i++) switch (s[i]) {
        case u'ä': case u'à': case u'á': case u'â': s[i] = 'a'; break;
        case u'ö': case u'ò': case u'ó': case u'ô': s[i] = 'o'; break;
        case u'ï': case u'ì': case u'í': case u'î': s[i] = 'i'; break;
        case u'ü': case u'ù': case u'ú': case u'û': s[i] = 'u'; break;
        }
    /* step 1 */
    if (len > 5 && s[len - 3] == 'e' && s[len - 2] == 'r' && s[len - 1] == 'n') len -= 3;
    else if (len > 4 && s[len - 2] == 'e' &&
             (s[len - 1] == 'm' || s[len - 1] == 'n' || s[len - 1] == 'r' || s[len - 1] == 's'))
        len -= 2;
    else if (len > 3 && s[len - 1] == 'e') len -= 1;
    else if (len > 3 && s[len - 1] == 's' && st_ending(s[len - 2])) len -= 1;
    /* step 2 */
    if (len > 5 && s[len - 3] == 'e' && s[len - 2] == 's' && s[len - 1] == 't') return len - 3;
    if (len > 4 && s[len - 2] == 'e' && (s[len - 1] == 'r' || s[len - 1] == 'n')) return len - 2;
    if (len > 4 && s[len - 2] == 's' && s[len - 1] == 't' && st_ending(s[len - 3])) return len - 2;
    return len;
}

/* --------------------------------------------------------- minimal_german */

static int de_minimal(uint16_t *s, int len) {
    if (len < 5) return len;
    for (int i = 0; i < len; i++) switch (s[i]) {
        case u'ä': s[i] = 'a'; break;
        case u'ö': s[i] = 'o'; break;
        case u'ü': s[i] = 'u'; break;
        }
    if (len > 6 && s[len - 3] == 'n' && s[len - 2] == 'e' && s[len - 1] == 'n') return len - 3;
    if (len > 5) switch (s[len - 1]) {
        case 'n': case 's': case 'r':
            if (s[len - 2] == 'e') return len - 2;
            break;
        case 'e':
            if (s[len - 2] == 's') return len - 2;
            break;
        }
    switch (s[len - 1]) {
    case 'n': case 'e': case 's': case 'r': return len - 1;
    }
    return len;
}

/* --------------------------------------------------- german_normalization */

static int de_norm(uint16_t *s, int len) {
    enum { N, V, U } state = N;
    for (int i = 0; i < len; i++) {
        switch (s[i]) {
        case 'a': case 'o': state = U; break;
        case 'u': state = state == N ? U : V; break;
        case 'e':
            if (state == U) len = tv_s16_delete(s, i--, len);
            state = V;
            break;
        case 'i': case 'q': case 'y': state = V; break;
        case u'ä': s[i] = 'a'; state = V; break;
        case u'ö': s[i] = 'o'; state = V; break;
        case u'ü': s[i] = 'u'; state = V; break;
        case u'ß':
            s[i++] = 's';
            len = tv_s16_insert(s, i, len, 's');
            state = N;
            break;
        default: state = N;
        }
    }
    return len;
}

/* ------------------------------------------------------------ german_stem */

static int strip(uint16_t *s, int len, int subst) {
    bool more = true;
    while (more && len > 3) {
        if (len + subst > 5 && s[len - 2] == 'n' && s[len - 1] == 'd') len -= 2;
        else if (len + subst > 4 && s[len - 2] == 'e' && s[len - 1] == 'm') len -= 2;
        else if (len + subst > 4 && s[len - 2] == 'e' && s[len - 1] == 'r') len -= 2;
        else if (s[len - 1] == 'e' || s[len - 1] == 's' || s[len - 1] == 'n' || s[len - 1] == 't')
            len--;
        else more = false;
    }
    return len;
}

static int de_stem(uint16_t *s, int len) {
    for (int i = 0; i < len; i++) {
        uint32_t c = s[i];
        if (c >= 0xD800 && c < 0xE000) { /* a surrogate is not a letter: lower-case only */
            for (int k = 0; k < len; k++)
                if (s[k] < 0xD800 || s[k] >= 0xE000) s[k] = (uint16_t)tv_uc_lower(s[k]);
            return len;
        }
        s[i] = (uint16_t)tv_uc_lower(c);
    }
    for (int i = 0; i < len; i++)
        if (!(tv_uc_props(s[i])->flags & TV_UCF_JLETTER)) return len;
    /* substitute */
    int subst = 0;
    for (int c = 0; c < len; c++) {
        if (c > 0 && s[c] == s[c - 1]) s[c] = '*';
        else if (s[c] == u'ä') s[c] = 'a';
        else if (s[c] == u'ö') s[c] = 'o';
        else if (s[c] == u'ü') s[c] = 'u';
        else if (s[c] == u'ß') {
            s[c] = 's';
            len = tv_s16_insert(s, c + 1, len, 's');
            subst++;
        }
        if (c < len - 1) {
            if (c < len - 2 && s[c] == 's' && s[c + 1] == 'c' && s[c + 2] == 'h') {
                s[c] = '$';
                len = tv_s16_delete(s, c + 1, len);
                len = tv_s16_delete(s, c + 1, len);
                subst += 2;
            } else if (s[c] == 'c' && s[c + 1] == 'h') {
                s[c] = u'§';
                len = tv_s16_delete(s, c + 1, len);
                subst++;
            } else if (s[c] == 'e' && s[c + 1] == 'i') {
                s[c] = '%';
                len = tv_s16_delete(s, c + 1, len);
                subst++;
            } else if (s[c] == 'i' && s[c + 1] == 'e') {
                s[c] = '&';
                len = tv_s16_delete(s, c + 1, len);
                subst++;
            } else if (s[c] == 'i' && s[c + 1] == 'g') {
                s[c] = '#';
                len = tv_s16_delete(s, c + 1, len);
                subst++;
            } else if (s[c] == 's' && s[c + 1] == 't') {
                s[c] = '!';
                len = tv_s16_delete(s, c + 1, len);
                subst++;
            }
        }
    }
    len = strip(s, len, subst);
    /* optimize */
    if (len > 5 && s[len - 5] == 'e' && s[len - 4] == 'r' && s[len - 3] == 'i' &&
        s[len - 2] == 'n' && s[len - 1] == '*') {
        len--;
        len = strip(s, len, subst);
    }
    if (len > 0 && s[len - 1] == 'z') s[len - 1] = 'x';
    /* resubstitute */
    for (int c = 0; c < len; c++) {
        switch (s[c]) {
        case '*': s[c] = s[c - 1]; break;
        case '$':
            s[c] = 's';
            len = tv_s16_insert(s, c + 1, len, 'h');
            len = tv_s16_insert(s, c + 1, len, 'c');
            break;
        case u'§': s[c] = 'c'; len = tv_s16_insert(s, c + 1, len, 'h'); break;
        case '%': s[c] = 'e'; len = tv_s16_insert(s, c + 1, len, 'i'); break;
        case '&': s[c] = 'i'; len = tv_s16_insert(s, c + 1, len, 'e'); break;
        case '#': s[c] = 'i'; len = tv_s16_insert(s, c + 1, len, 'g'); break;
        case '!': s[c] = 's'; len = tv_s16_insert(s, c + 1, len, 't'); break;
        }
    }
    /* removeParticleDenotion */
    if (len > 4)
        for (int c = 0; c < len - 3; c++)
            if (s[c] == 'g' && s[c + 1] == 'e' && s[c + 2] == 'g' && s[c + 3] == 'e') {
                len = tv_s16_delete(s, c, len);
                len = tv_s16_delete(s, c, len);
                break;
            }
    return len;
}

const tv_stem16 tv_stem_light_german = {"light_german", de_light, false};
const tv_stem16 tv_stem_minimal_german = {"minimal_german", de_minimal, false};
const tv_stem16 tv_stem_german_old = {"german_stem", de_stem, false};
const tv_stem16 tv_norm_german = {"german_normalization", de_norm, true};
