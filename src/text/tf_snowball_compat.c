/*
 * tf_snowball_compat.c — the Snowball stemmer names libstemmer 2.2 lacks:
 *
 *   german2   the `snowball` languages "German" and "German2" and the
 *             `stemmer` languages "german" and "german2". Snowball's German2
 *             is German with a different prelude: first u and y between
 *             vowels are marked (U, Y) as German does, then, left to right,
 *             "ae" "oe" "ue" become ä ö ü (but "qu" and the two characters
 *             after it are stepped over) and ß becomes "ss". Lucene 10
 *             upgraded Snowball to the version that folded German2 into
 *             German, so OpenSearch 3.x stems "Buecher" as "Bücher" under
 *             both names; Lucene 4.10 (the oracle) still has the two apart,
 *             and libstemmer 2.2 has only the old German. Here the German2
 *             prelude runs on the term and libstemmer's German runs on the
 *             result: German's own prelude then finds nothing left to mark
 *             (a u or y it could mark was marked already, and the
 *             replacements keep every neighbour a vowel or not), its postlude turns U, Y, ä, ö, ü back. Rejected:
 *             a hand-written German stemmer (libstemmer's is the reference
 *             the `german` names already use).
 *   removed   the `stemmer` languages "dutch_kp" / "dutchKp" / "kp" and
 *             "lovins": Lucene 10 removed KpStemmer and LovinsStemmer, and
 *             OpenSearch 3.x answers them (with a deprecation warning) with a
 *             filter that ends the stream: no tokens at all. The `snowball`
 *             languages "Kp" and "Lovins" fail in Lucene 10's reflection
 *             ("Invalid stemmer class specified"), see tv_lang_snowball.
 *             Rejected: writing Kp and Lovins from their descriptions — no
 *             OpenSearch 3.x request can reach them.
 */
#include "text/text_int.h"

/* ------------------------------------------------------------- german2 */

static bool g2_vowel(const unsigned char *s, size_t n, size_t i) {
    if (i >= n) return false;
    unsigned char c = s[i];
    if (c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y') return true;
    /* ä ö ü: C3 A4, C3 B6, C3 BC (i may point at either byte) */
    if (c == 0xC3 && i + 1 < n) return s[i + 1] == 0xA4 || s[i + 1] == 0xB6 || s[i + 1] == 0xBC;
    if (i > 0 && s[i - 1] == 0xC3) return c == 0xA4 || c == 0xB6 || c == 0xBC;
    return false;
}

/* HOLD (U+E000) stands for a ß that German2 leaves (it follows "qu")
 * while libstemmer's German runs: German's prelude would make it "ss";
 * to German it is a consonant like ß. Used only when the term has no
 * U+E000 of its own. */
static const char HOLD[] = "\xEE\x80\x80";

/* The German2 prelude over term (n bytes) into out (at most n + n/2 + 1
 * bytes: only a held ß grows, two bytes into three). Returns the new
 * length; *held: some ß was held. */
static size_t g2_prelude(const char *term, size_t n, char *out, bool *held) {
    unsigned char *m = (unsigned char *)out;
    bool hold = true;
    for (size_t i = 0; i + 3 <= n && hold; i++) hold = memcmp(term + i, HOLD, 3) != 0;
    *held = false;
    memcpy(m, term, n);
    /* mark u / y between vowels, left to right over the marked text */
    for (size_t i = 1; i + 1 < n; i++)
        if ((m[i] == 'u' || m[i] == 'y') && g2_vowel(m, n, i - 1) && g2_vowel(m, n, i + 1))
            m[i] = m[i] == 'u' ? 'U' : 'Y';
    /* replace ß, ae, oe, ue (reading the copy at the end of the buffer) */
    size_t w = 0, cap = n + n / 2 + 1;
    memmove(m + cap - n, m, n);
    m += cap - n;
    unsigned char *o = (unsigned char *)out;
    for (size_t r = 0; r < n;) {
        if (r + 1 < n && m[r] == 'q' && m[r + 1] == 'u') {
            /* "qu" and the two characters after it stay as they are */
            o[w++] = m[r++];
            o[w++] = m[r++];
            for (int c = 0; c < 2 && r < n; c++) {
                if (r + 1 < n && m[r] == 0xC3 && m[r + 1] == 0x9F && hold) {
                    /* a ß German2 keeps: German would turn it into "ss" */
                    o[w++] = 0xEE;
                    o[w++] = 0x80;
                    o[w++] = 0x80;
                    r += 2;
                    *held = true;
                    continue;
                }
                o[w++] = m[r++];
                while (r < n && (m[r] & 0xC0) == 0x80) o[w++] = m[r++];
            }
        } else if (r + 1 < n && m[r] == 0xC3 && m[r + 1] == 0x9F) { /* ß */
            o[w++] = 's';
            o[w++] = 's';
            r += 2;
        } else if (r + 1 < n && m[r + 1] == 'e' && (m[r] == 'a' || m[r] == 'o' || m[r] == 'u')) {
            unsigned char c = m[r];
            o[w++] = 0xC3;
            o[w++] = c == 'a' ? 0xA4 : c == 'o' ? 0xB6 : 0xBC;
            r += 2;
        } else {
            o[w++] = m[r++];
        }
    }
    return w;
}

static tv_status german2_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)cfg;
    int algo = tv_stem_algo_find("german", 6);
    if (algo < 0) return TROVE_EINTERNAL;
    uint8_t *held = NULL; /* tokens with a held ß */
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        if (t->flags & TV_TOKF_KEYWORD) continue;
        char *o = tv_arena_alloc(a, t->term_len + t->term_len / 2 + 2);
        if (!o) return TROVE_ENOMEM;
        bool h;
        size_t n = g2_prelude(t->term, t->term_len, o, &h);
        o[n] = 0;
        t->term = o;
        t->term_len = (uint32_t)n;
        if (h && !held) {
            held = tv_arena_alloc(a, v->len);
            if (!held) return TROVE_ENOMEM;
            memset(held, 0, v->len);
        }
        if (h) held[i] = 1;
    }
    tv_filter_def d;
    memset(&d, 0, sizeof d);
    d.kind = TV_TF_SNOWBALL;
    d.algo = algo;
    tv_status st = tv_filter_apply(a, &d, v);
    if (st || !held) return st;
    for (size_t i = 0; i < v->len; i++) { /* give the held ß back */
        if (!held[i]) continue;
        tv_token *t = &v->items[i];
        char *o = tv_arena_alloc(a, t->term_len + 1);
        if (!o) return TROVE_ENOMEM;
        size_t w = 0;
        for (size_t r = 0; r < t->term_len;) {
            if (r + 3 <= t->term_len && memcmp(t->term + r, HOLD, 3) == 0) {
                o[w++] = (char)0xC3;
                o[w++] = (char)0x9F;
                r += 3;
            } else {
                o[w++] = t->term[r++];
            }
        }
        o[w] = 0;
        t->term = o;
        t->term_len = (uint32_t)w;
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_german2 = {"german2", NULL, german2_apply};

/* ------------------------------------------- stemmers Lucene 10 removed */

static tv_status removed_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    (void)cfg;
    v->len = 0; /* incrementToken() answers false at once */
    v->trailing = 0;
    return TROVE_OK;
}

const tv_filter_type tv_tf_stemmer_removed = {"stemmer", NULL, removed_apply};
