/*
 * tf_kuromoji.c — the analysis-kuromoji token filters, over the per-token
 * morphology kuromoji_tokenizer leaves in the token array (tv_ja_morph):
 *
 *   kuromoji_baseform        JapaneseBaseFormFilter: the base form of
 *                            inflected words (keywords left alone)
 *   kuromoji_part_of_speech  JapanesePartOfSpeechStopFilter: drops tokens
 *                            whose part of speech is in `stoptags`
 *                            (default: kuromoji's stoptags.txt)
 *   kuromoji_readingform     JapaneseReadingFormFilter: the katakana
 *                            reading, or with use_romaji its Hepburn
 *                            romanization (ToStringUtil's rules)
 *   kuromoji_number          JapaneseNumberFilter: kanji numerals to
 *                            plain numbers (see its section below)
 *   kuromoji_stemmer         JapaneseKatakanaStemFilter: drops a final
 *                            prolonged sound mark (U+30FC) from all-katakana
 *                            terms of at least minimum_length (4) chars
 *   ja_stop                  StopFilter with `stopwords` (default and
 *                            `_japanese_`: kuromoji's stopwords.txt)
 *
 * Tokens of other tokenizers carry no morphology: the morphology filters
 * leave them as Lucene does when the attributes are null. Removing a token
 * adds its position increment to the next (FilteringTokenFilter).
 * Rejected: copying the morphology into each token (tv_token stays small
 * for every other analyzer; one 32-bit index fills its padding).
 */
#include <string.h>

#include "text/text_int.h"

/* Keeps the tokens pred accepts; a removed token's increment moves on. */
static void filter_tokens(tv_tokvec *v, bool (*keep)(const void *, const tv_tokvec *, const tv_token *),
                          const void *cfg) {
    size_t o = 0;
    uint32_t carry = 0;
    for (size_t i = 0; i < v->len; i++) {
        tv_token t = v->items[i];
        if (!keep(cfg, v, &t)) {
            carry += t.position;
            continue;
        }
        t.position += carry;
        carry = 0;
        v->items[o++] = t;
    }
    v->len = o;
    v->trailing += carry;
}

/* ------------------------------------------------------------ baseform */

static tv_status baseform_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a, (void)cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        const tv_ja_morph *m = tv_ja_morph_of(v, t);
        if (!m || !m->base || (t->flags & TV_TOKF_KEYWORD)) continue;
        t->term = m->base;
        t->term_len = (uint32_t)strlen(m->base);
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_kuromoji_baseform = {"kuromoji_baseform", NULL, baseform_apply};

/* ------------------------------------------------------- part of speech */

/* kuromoji's stoptags.txt: a tag per line, '#' comments, trimmed. */
static const tv_termset *default_stoptags(void) { return tv_resource_words("ja/stoptags.txt", false); }

static tv_status pos_build(tv_comp *c, const void **cfg, tv_error *err) {
    if (tv_comp_has(c, "stoptags_path"))
        return tv_error_set(err, TROVE_EUNSUPPORTED, "[stoptags_path] is not supported");
    const char *const *vals;
    const size_t *lens;
    size_t n;
    tv_comp_list(c, "stoptags", &vals, &lens, &n);
    if (!tv_comp_has(c, "stoptags")) {
        *cfg = default_stoptags();
        return *cfg ? TROVE_OK : TROVE_ENOMEM;
    }
    const tv_termset *ts;
    tv_status st = tv_comp_termset(c, vals, lens, n, false, &ts);
    if (st) return st;
    *cfg = ts;
    return TROVE_OK;
}

static bool pos_keep(const void *cfg, const tv_tokvec *v, const tv_token *t) {
    const tv_ja_morph *m = tv_ja_morph_of(v, t);
    return !m || !m->pos || !tv_termset_has(cfg, m->pos, strlen(m->pos));
}

static tv_status pos_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    filter_tokens(v, pos_keep, cfg ? cfg : default_stoptags());
    return TROVE_OK;
}

const tv_filter_type tv_tf_kuromoji_pos = {"kuromoji_part_of_speech", pos_build, pos_apply};

/* ------------------------------------------------------------ reading */

/*
 * use_romaji: the reading (or, for a token without one, the term) in
 * modified Hepburn, as Lucene's ToStringUtil.getRomanization writes it:
 * each katakana with up to two following small kana or marks it combines
 * with (キョウ kyō, シャ sha, フィ fi, ラ゜ la), long o and u written ō ū
 * only for オウ-type pairs (ー is dropped), ッ doubling the next consonant
 * of the k, s, t and p rows only, ン written m before b, p and m rows, n'
 * before vowels and y, else n; anything else is kept as it is.
 *
 * The table below is ours, written from those rules: for each katakana,
 * its rules in the order they are tried, the one with no lookahead last.
 */
typedef struct romaji_rule {
    uint16_t c1, c2, c3; /* c2, c3: the following chars required (0: none) */
    const char *out;
} romaji_rule;

static const romaji_rule romaji[] = {
    {0x30A1, 0, 0, "a"},
    {0x30A2, 0, 0, "a"},
    {0x30A3, 0, 0, "i"},
    {0x30A4, 0x30A3, 0, "yi"},
    {0x30A4, 0x30A7, 0, "ye"},
    {0x30A4, 0, 0, "i"},
    {0x30A5, 0, 0, "u"},
    {0x30A6, 0x30A1, 0, "wa"},
    {0x30A6, 0x30A3, 0, "wi"},
    {0x30A6, 0x30A5, 0, "wu"},
    {0x30A6, 0x30A7, 0, "we"},
    {0x30A6, 0x30A9, 0, "wo"},
    {0x30A6, 0x30E5, 0, "wyu"},
    {0x30A6, 0, 0, "u"},
    {0x30A7, 0, 0, "e"},
    {0x30A8, 0, 0, "e"},
    {0x30A9, 0, 0, "o"},
    {0x30AA, 0x30A6, 0, "\xc5\x8d"},
    {0x30AA, 0, 0, "o"},
    {0x30AB, 0, 0, "ka"},
    {0x30AC, 0, 0, "ga"},
    {0x30AD, 0x30E7, 0x30A6, "ky\xc5\x8d"},
    {0x30AD, 0x30E5, 0x30A6, "ky\xc5\xab"},
    {0x30AD, 0x30E3, 0, "kya"},
    {0x30AD, 0x30E7, 0, "kyo"},
    {0x30AD, 0x30E5, 0, "kyu"},
    {0x30AD, 0x30A7, 0, "kye"},
    {0x30AD, 0, 0, "ki"},
    {0x30AE, 0x30E7, 0x30A6, "gy\xc5\x8d"},
    {0x30AE, 0x30E5, 0x30A6, "gy\xc5\xab"},
    {0x30AE, 0x30E3, 0, "gya"},
    {0x30AE, 0x30E7, 0, "gyo"},
    {0x30AE, 0x30E5, 0, "gyu"},
    {0x30AE, 0x30A7, 0, "gye"},
    {0x30AE, 0, 0, "gi"},
    {0x30AF, 0x30A1, 0, "kwa"},
    {0x30AF, 0x30A3, 0, "kwi"},
    {0x30AF, 0x30A7, 0, "kwe"},
    {0x30AF, 0x30A9, 0, "kwo"},
    {0x30AF, 0x30EE, 0, "kwa"},
    {0x30AF, 0, 0, "ku"},
    {0x30B0, 0x30A1, 0, "gwa"},
    {0x30B0, 0x30A3, 0, "gwi"},
    {0x30B0, 0x30A7, 0, "gwe"},
    {0x30B0, 0x30A9, 0, "gwo"},
    {0x30B0, 0x30EE, 0, "gwa"},
    {0x30B0, 0, 0, "gu"},
    {0x30B1, 0, 0, "ke"},
    {0x30B2, 0, 0, "ge"},
    {0x30B3, 0x30A6, 0, "k\xc5\x8d"},
    {0x30B3, 0, 0, "ko"},
    {0x30B4, 0x30A6, 0, "g\xc5\x8d"},
    {0x30B4, 0, 0, "go"},
    {0x30B5, 0, 0, "sa"},
    {0x30B6, 0, 0, "za"},
    {0x30B7, 0x30E7, 0x30A6, "sh\xc5\x8d"},
    {0x30B7, 0x30E5, 0x30A6, "sh\xc5\xab"},
    {0x30B7, 0x30E3, 0, "sha"},
    {0x30B7, 0x30E7, 0, "sho"},
    {0x30B7, 0x30E5, 0, "shu"},
    {0x30B7, 0x30A7, 0, "she"},
    {0x30B7, 0, 0, "shi"},
    {0x30B8, 0x30E7, 0x30A6, "j\xc5\x8d"},
    {0x30B8, 0x30E5, 0x30A6, "j\xc5\xab"},
    {0x30B8, 0x30E3, 0, "ja"},
    {0x30B8, 0x30E7, 0, "jo"},
    {0x30B8, 0x30E5, 0, "ju"},
    {0x30B8, 0x30A7, 0, "je"},
    {0x30B8, 0, 0, "ji"},
    {0x30B9, 0x30A3, 0, "si"},
    {0x30B9, 0, 0, "su"},
    {0x30BA, 0x30A3, 0, "zi"},
    {0x30BA, 0, 0, "zu"},
    {0x30BB, 0, 0, "se"},
    {0x30BC, 0, 0, "ze"},
    {0x30BD, 0x30A6, 0, "s\xc5\x8d"},
    {0x30BD, 0, 0, "so"},
    {0x30BE, 0x30A6, 0, "z\xc5\x8d"},
    {0x30BE, 0, 0, "zo"},
    {0x30BF, 0, 0, "ta"},
    {0x30C0, 0, 0, "da"},
    {0x30C1, 0x30E7, 0x30A6, "ch\xc5\x8d"},
    {0x30C1, 0x30E5, 0x30A6, "ch\xc5\xab"},
    {0x30C1, 0x30E3, 0, "cha"},
    {0x30C1, 0x30E7, 0, "cho"},
    {0x30C1, 0x30E5, 0, "chu"},
    {0x30C1, 0x30A7, 0, "che"},
    {0x30C1, 0, 0, "chi"},
    {0x30C2, 0x30E7, 0x30A6, "j\xc5\x8d"},
    {0x30C2, 0x30E5, 0x30A6, "j\xc5\xab"},
    {0x30C2, 0x30E3, 0, "ja"},
    {0x30C2, 0x30E7, 0, "jo"},
    {0x30C2, 0x30E5, 0, "ju"},
    {0x30C2, 0x30A7, 0, "je"},
    {0x30C2, 0, 0, "ji"},
    {0x30C4, 0x30A1, 0, "tsa"},
    {0x30C4, 0x30A3, 0, "tsi"},
    {0x30C4, 0x30A7, 0, "tse"},
    {0x30C4, 0x30A9, 0, "tso"},
    {0x30C4, 0x30E5, 0, "tsyu"},
    {0x30C4, 0, 0, "tsu"},
    {0x30C5, 0, 0, "zu"},
    {0x30C6, 0x30A3, 0, "ti"},
    {0x30C6, 0x30A5, 0, "tu"},
    {0x30C6, 0x30E5, 0, "tyu"},
    {0x30C6, 0, 0, "te"},
    {0x30C7, 0x30A3, 0, "di"},
    {0x30C7, 0x30E5, 0, "dyu"},
    {0x30C7, 0, 0, "de"},
    {0x30C8, 0x30A6, 0, "t\xc5\x8d"},
    {0x30C8, 0x30A5, 0, "tu"},
    {0x30C8, 0, 0, "to"},
    {0x30C9, 0x30A6, 0, "d\xc5\x8d"},
    {0x30C9, 0x30A5, 0, "du"},
    {0x30C9, 0, 0, "do"},
    {0x30CA, 0, 0, "na"},
    {0x30CB, 0x30E7, 0x30A6, "ny\xc5\x8d"},
    {0x30CB, 0x30E5, 0x30A6, "ny\xc5\xab"},
    {0x30CB, 0x30E3, 0, "nya"},
    {0x30CB, 0x30E7, 0, "nyo"},
    {0x30CB, 0x30E5, 0, "nyu"},
    {0x30CB, 0x30A7, 0, "nye"},
    {0x30CB, 0, 0, "ni"},
    {0x30CC, 0, 0, "nu"},
    {0x30CD, 0, 0, "ne"},
    {0x30CE, 0x30A6, 0, "n\xc5\x8d"},
    {0x30CE, 0, 0, "no"},
    {0x30CF, 0, 0, "ha"},
    {0x30D0, 0, 0, "ba"},
    {0x30D1, 0, 0, "pa"},
    {0x30D2, 0x30E7, 0x30A6, "hy\xc5\x8d"},
    {0x30D2, 0x30E5, 0x30A6, "hy\xc5\xab"},
    {0x30D2, 0x30E3, 0, "hya"},
    {0x30D2, 0x30E7, 0, "hyo"},
    {0x30D2, 0x30E5, 0, "hyu"},
    {0x30D2, 0x30A7, 0, "hye"},
    {0x30D2, 0, 0, "hi"},
    {0x30D3, 0x30E7, 0x30A6, "by\xc5\x8d"},
    {0x30D3, 0x30E5, 0x30A6, "by\xc5\xab"},
    {0x30D3, 0x30E3, 0, "bya"},
    {0x30D3, 0x30E7, 0, "byo"},
    {0x30D3, 0x30E5, 0, "byu"},
    {0x30D3, 0x30A7, 0, "bye"},
    {0x30D3, 0, 0, "bi"},
    {0x30D4, 0x30E7, 0x30A6, "py\xc5\x8d"},
    {0x30D4, 0x30E5, 0x30A6, "py\xc5\xab"},
    {0x30D4, 0x30E3, 0, "pya"},
    {0x30D4, 0x30E7, 0, "pyo"},
    {0x30D4, 0x30E5, 0, "pyu"},
    {0x30D4, 0x30A7, 0, "pye"},
    {0x30D4, 0, 0, "pi"},
    {0x30D5, 0x30E3, 0, "fya"},
    {0x30D5, 0x30E5, 0, "fyu"},
    {0x30D5, 0x30A3, 0x30A7, "fye"},
    {0x30D5, 0x30E7, 0, "fyo"},
    {0x30D5, 0x30A1, 0, "fa"},
    {0x30D5, 0x30A3, 0, "fi"},
    {0x30D5, 0x30A7, 0, "fe"},
    {0x30D5, 0x30A9, 0, "fo"},
    {0x30D5, 0, 0, "fu"},
    {0x30D6, 0, 0, "bu"},
    {0x30D7, 0, 0, "pu"},
    {0x30D8, 0, 0, "he"},
    {0x30D9, 0, 0, "be"},
    {0x30DA, 0, 0, "pe"},
    {0x30DB, 0x30A6, 0, "h\xc5\x8d"},
    {0x30DB, 0x30A5, 0, "hu"},
    {0x30DB, 0, 0, "ho"},
    {0x30DC, 0x30A6, 0, "b\xc5\x8d"},
    {0x30DC, 0, 0, "bo"},
    {0x30DD, 0x30A6, 0, "p\xc5\x8d"},
    {0x30DD, 0, 0, "po"},
    {0x30DE, 0, 0, "ma"},
    {0x30DF, 0x30E7, 0x30A6, "my\xc5\x8d"},
    {0x30DF, 0x30E5, 0x30A6, "my\xc5\xab"},
    {0x30DF, 0x30E3, 0, "mya"},
    {0x30DF, 0x30E7, 0, "myo"},
    {0x30DF, 0x30E5, 0, "myu"},
    {0x30DF, 0x30A7, 0, "mye"},
    {0x30DF, 0, 0, "mi"},
    {0x30E0, 0, 0, "mu"},
    {0x30E1, 0, 0, "me"},
    {0x30E2, 0x30A6, 0, "m\xc5\x8d"},
    {0x30E2, 0, 0, "mo"},
    {0x30E3, 0, 0, "ya"},
    {0x30E4, 0, 0, "ya"},
    {0x30E5, 0, 0, "yu"},
    {0x30E6, 0, 0, "yu"},
    {0x30E7, 0, 0, "yo"},
    {0x30E8, 0x30A6, 0, "y\xc5\x8d"},
    {0x30E8, 0, 0, "yo"},
    {0x30E9, 0x309C, 0, "la"},
    {0x30E9, 0, 0, "ra"},
    {0x30EA, 0x30E7, 0x30A6, "ry\xc5\x8d"},
    {0x30EA, 0x30E5, 0x30A6, "ry\xc5\xab"},
    {0x30EA, 0x30E3, 0, "rya"},
    {0x30EA, 0x30E7, 0, "ryo"},
    {0x30EA, 0x30E5, 0, "ryu"},
    {0x30EA, 0x30A7, 0, "rye"},
    {0x30EA, 0x309C, 0, "li"},
    {0x30EA, 0, 0, "ri"},
    {0x30EB, 0x309C, 0, "lu"},
    {0x30EB, 0, 0, "ru"},
    {0x30EC, 0x309C, 0, "le"},
    {0x30EC, 0, 0, "re"},
    {0x30ED, 0x30A6, 0, "r\xc5\x8d"},
    {0x30ED, 0x309C, 0, "lo"},
    {0x30ED, 0, 0, "ro"},
    {0x30EE, 0, 0, "wa"},
    {0x30EF, 0, 0, "wa"},
    {0x30F0, 0, 0, "i"},
    {0x30F1, 0, 0, "e"},
    {0x30F2, 0, 0, "o"},
    {0x30F4, 0x30A3, 0x30A7, "vye"},
    {0x30F4, 0, 0, "v"},
    {0x30F7, 0, 0, "va"},
    {0x30F8, 0, 0, "vi"},
    {0x30F9, 0, 0, "ve"},
    {0x30FA, 0, 0, "vo"},
};

static bool row_of(uint32_t c, const uint32_t *row) {
    for (int i = 0; i < 5; i++)
        if (row[i] == c) return true;
    return false;
}

/* Appends the romanization of [s, s+n) to b. */
static void romanize(tv_buf *b, const char *s, size_t n) {
    uint32_t cps[3] = {0, 0, 0};
    const uint8_t *p = (const uint8_t *)s, *e = p + n;
    /* a window of three code points: ch, ch2, ch3 (0 past the end) */
    size_t have = 0;
    const uint8_t *q = p;
    while (have < 3 && q < e) q += tv_utf8_decode(q, e, &cps[have++]);
    static const uint32_t krow[5] = {0x30AB, 0x30AD, 0x30AF, 0x30B1, 0x30B3},
                          srow[5] = {0x30B5, 0x30B7, 0x30B9, 0x30BB, 0x30BD},
                          trow[5] = {0x30BF, 0x30C1, 0x30C4, 0x30C6, 0x30C8},
                          prow[5] = {0x30D1, 0x30D4, 0x30D7, 0x30DA, 0x30DD},
                          brow[5] = {0x30D0, 0x30D3, 0x30D6, 0x30D9, 0x30DC},
                          mrow[5] = {0x30DE, 0x30DF, 0x30E0, 0x30E1, 0x30E2},
                          vrow[8] = {0x30E4, 0x30E6, 0x30E8, 0x30A2, 0x30A4, 0x30A6, 0x30A8, 0x30AA};
    while (have > 0) {
        uint32_t ch = cps[0], ch2 = have > 1 ? cps[1] : 0, ch3 = have > 2 ? cps[2] : 0;
        size_t used = 1;
        if (ch == 0x30C3) { /* ッ */
            if (row_of(ch2, krow)) tv_buf_putc(b, 'k');
            else if (row_of(ch2, srow)) tv_buf_putc(b, 's');
            else if (row_of(ch2, trow)) tv_buf_putc(b, 't');
            else if (row_of(ch2, prow)) tv_buf_putc(b, 'p');
        } else if (ch == 0x30F3) { /* ン */
            if (row_of(ch2, brow) || row_of(ch2, prow) || row_of(ch2, mrow)) tv_buf_putc(b, 'm');
            else if (row_of(ch2, vrow) || row_of(ch2, vrow + 3)) tv_buf_puts(b, "n'");
            else tv_buf_putc(b, 'n');
        } else if (ch != 0x30FC) { /* ー: dropped */
            const romaji_rule *hit = NULL;
            if (ch >= 0x30A1 && ch <= 0x30FA) {
                size_t lo = 0, hi = TV_ARRAY_LEN(romaji);
                while (lo < hi) { /* the first rule of ch */
                    size_t mid = (lo + hi) / 2;
                    if (romaji[mid].c1 < ch) lo = mid + 1;
                    else hi = mid;
                }
                for (size_t k = lo; k < TV_ARRAY_LEN(romaji) && romaji[k].c1 == ch && !hit; k++) {
                    const romaji_rule *r = &romaji[k];
                    if ((!r->c2 || r->c2 == ch2) && (!r->c3 || r->c3 == ch3)) hit = r;
                }
            }
            if (hit) {
                tv_buf_puts(b, hit->out);
                used += (hit->c2 != 0) + (hit->c3 != 0);
            } else {
                uint8_t u[4];
                tv_buf_append(b, u, tv_utf8_encode(ch, u));
            }
        }
        /* slide the window */
        for (size_t k = 0; k < used; k++) {
            cps[0] = cps[1], cps[1] = cps[2];
            have--;
            if (q < e) {
                q += tv_utf8_decode(q, e, &cps[2]);
                have++;
            }
        }
    }
}

static tv_status reading_build(tv_comp *c, const void **cfg, tv_error *err) {
    bool romaji_on;
    tv_status st = tv_comp_bool(c, "use_romaji", false, &romaji_on, err);
    if (st) return st;
    static const bool yes = true;
    *cfg = romaji_on ? &yes : NULL;
    return TROVE_OK;
}

static tv_status reading_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    bool romaji_on = cfg && *(const bool *)cfg;
    tv_buf b;
    tv_buf_init(&b);
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        const tv_ja_morph *m = tv_ja_morph_of(v, t);
        const char *reading = m ? m->reading : NULL;
        if (!romaji_on) {
            if (!reading) continue;
            t->term = reading;
            t->term_len = (uint32_t)strlen(reading);
            continue;
        }
        /* romaji: the reading, or the term itself when there is none */
        tv_buf_clear(&b);
        if (reading) romanize(&b, reading, strlen(reading));
        else romanize(&b, t->term, t->term_len);
        char *out = b.oom ? NULL : tv_arena_alloc(a, b.len + 1);
        if (!out) {
            tv_buf_fini(&b);
            return TROVE_ENOMEM;
        }
        if (b.len) memcpy(out, b.data, b.len);
        out[b.len] = 0;
        t->term = out;
        t->term_len = (uint32_t)b.len;
    }
    tv_buf_fini(&b);
    return TROVE_OK;
}

const tv_filter_type tv_tf_kuromoji_reading = {"kuromoji_readingform", reading_build,
                                               reading_apply};

/* ------------------------------------------------------------ stemmer */

typedef struct stem_cfg {
    uint32_t min;
} stem_cfg;

static const stem_cfg stem_default = {4};

static tv_status stem_build(tv_comp *c, const void **cfg, tv_error *err) {
    int64_t m;
    tv_status st = tv_comp_int(c, "minimum_length", 4, &m, err);
    if (st) return st;
    if (m < 1) return tv_error_set(err, TROVE_EARG, "minimumLength must be >=1");
    stem_cfg *s = tv_comp_alloc(c, sizeof *s);
    if (!s) return TROVE_ENOMEM;
    s->min = (uint32_t)(m > UINT32_MAX ? UINT32_MAX : m);
    *cfg = s;
    return TROVE_OK;
}

static tv_status stem_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    const stem_cfg *s = cfg ? cfg : &stem_default;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        if (t->flags & TV_TOKF_KEYWORD) continue;
        /* every char in the Katakana block (all 3-byte UTF-8: E3 82 A0 .. E3 83 BF) */
        const uint8_t *p = (const uint8_t *)t->term;
        size_t n = t->term_len;
        if (n % 3 || n / 3 < s->min) continue;
        bool kata = true;
        for (size_t j = 0; j < n && kata; j += 3) {
            uint32_t cp = ((uint32_t)(p[j] & 0x0F) << 12) | ((uint32_t)(p[j + 1] & 0x3F) << 6) |
                          (p[j + 2] & 0x3F);
            kata = (p[j] & 0xF0) == 0xE0 && tv_ja_katakana_block(cp);
        }
        /* U+30FC KATAKANA-HIRAGANA PROLONGED SOUND MARK = E3 83 BC */
        if (kata && p[n - 3] == 0xE3 && p[n - 2] == 0x83 && p[n - 1] == 0xBC) t->term_len -= 3;
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_kuromoji_stemmer = {"kuromoji_stemmer", stem_build, stem_apply};

/* ------------------------------------------------------------ ja_stop */

typedef struct jstop_cfg {
    const tv_termset *set;
} jstop_cfg;

const tv_termset *tv_ja_stopwords(void) { return tv_resource_words("ja/stopwords.txt", false); }

static tv_status jstop_build(tv_comp *c, const void **cfg, tv_error *err) {
    bool ic, trailing;
    tv_status st = tv_comp_bool(c, "ignore_case", false, &ic, err);
    if (st) return st;
    st = tv_comp_bool(c, "remove_trailing", true, &trailing, err);
    if (st) return st;
    if (!trailing)
        return tv_error_set(err, TROVE_EUNSUPPORTED, "ja_stop [remove_trailing: false] is not supported");
    jstop_cfg *j = tv_comp_alloc(c, sizeof *j);
    if (!j) return TROVE_ENOMEM;
    st = tv_comp_words(c, "stopwords", tv_ja_stopwords(), ic, &j->set, err);
    if (st) return st;
    *cfg = j;
    return TROVE_OK;
}

static bool jstop_keep(const void *cfg, const tv_tokvec *v, const tv_token *t) {
    (void)v;
    const tv_termset *s = cfg;
    return !s || !tv_termset_has(s, t->term, t->term_len);
}

static tv_status jstop_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    const jstop_cfg *j = cfg;
    filter_tokens(v, jstop_keep, j ? j->set : tv_ja_stopwords());
    return TROVE_OK;
}

const tv_filter_type tv_tf_ja_stop = {"ja_stop", jstop_build, jstop_apply};

/* ------------------------------------------------------------ number */

/*
 * kuromoji_number (JapaneseNumberFilter): runs of numeral tokens (kanji
 * numerals 〇..九, exponents 十 百 千 万 億 兆 京 垓, half- and full-width
 * digits), with decimal points (. ．) and thousand separators (, ，) after
 * the first, become one token holding the number in plain half-width
 * digits ("３．２千" 3200, "１．２万３４５．６７" 12345.67, "4,647.100"
 * 4647.1). The composed token keeps the attributes of the token read past
 * it (or of its last numeral at the end), as Lucene's filter does, with the
 * run's offsets. Keyword tokens, stacked tokens (increment 0) and the
 * tokens under them pass untouched. A run that is not a number
 * (BigDecimal refuses "1.2.3") keeps its concatenated text.
 *
 * The value is a decimal of any size: digits and a scale (value = digits
 * × 10^-scale). The grammar only ever multiplies by powers of ten and
 * adds, so those are the two operations. Rejected: double (loses digits
 * past 2^53: 兆 and up) and a fixed 128-bit integer (垓 × a long number).
 */

typedef struct jdec {
    char *d;       /* ASCII digits, most significant first (leading zeros allowed) */
    size_t n;
    size_t scale;  /* digits after the decimal point */
} jdec;

static bool is_kanji_numeral(uint32_t c, int *v) {
    static const uint32_t k[10] = {0x3007, 0x4E00, 0x4E8C, 0x4E09, 0x56DB,
                                   0x4E94, 0x516D, 0x4E03, 0x516B, 0x4E5D};
    for (int i = 0; i < 10; i++)
        if (k[i] == c) {
            if (v) *v = i;
            return true;
        }
    return false;
}
static int exponent_of(uint32_t c) {
    switch (c) {
    case 0x5341: return 1;  /* 十 */
    case 0x767E: return 2;  /* 百 */
    case 0x5343: return 3;  /* 千 */
    case 0x4E07: return 4;  /* 万 */
    case 0x5104: return 8;  /* 億 */
    case 0x5146: return 12; /* 兆 */
    case 0x4EAC: return 16; /* 京 */
    case 0x5793: return 20; /* 垓 */
    default: return 0;
    }
}
static bool is_arabic(uint32_t c, int *v) {
    if (c >= '0' && c <= '9') {
        if (v) *v = (int)(c - '0');
        return true;
    }
    if (c >= 0xFF10 && c <= 0xFF19) {
        if (v) *v = (int)(c - 0xFF10);
        return true;
    }
    return false;
}
static bool is_decimal_point(uint32_t c) { return c == '.' || c == 0xFF0E; }
static bool is_thousand_sep(uint32_t c) { return c == ',' || c == 0xFF0C; }
static bool is_numeral_cp(uint32_t c) {
    return is_arabic(c, NULL) || is_kanji_numeral(c, NULL) || exponent_of(c) > 0;
}

/* Every char of the term passes pred (an empty term does, as in Lucene). */
static bool all_chars(const char *s, size_t n, bool (*pred)(uint32_t)) {
    const uint8_t *p = (const uint8_t *)s, *e = p + n;
    while (p < e) {
        uint32_t c;
        p += tv_utf8_decode(p, e, &c);
        if (!pred(c)) return false;
    }
    return true;
}
static bool is_numeral_punct(uint32_t c) { return is_decimal_point(c) || is_thousand_sep(c); }

typedef struct jparse {
    tv_arena *a;
    const uint32_t *s;
    size_t n, pos;
    bool bad;   /* NumberFormatException: keep the text */
    bool oom;
} jparse;

/* x × 10^p */
static jdec jdec_shift(jparse *ps, jdec x, int p) {
    if (x.scale >= (size_t)p) {
        x.scale -= (size_t)p;
        return x;
    }
    size_t add = (size_t)p - x.scale;
    char *d = tv_arena_alloc(ps->a, x.n + add + 1);
    if (!d) {
        ps->oom = true;
        return x;
    }
    memcpy(d, x.d, x.n);
    memset(d + x.n, '0', add);
    return (jdec){d, x.n + add, 0};
}

static jdec jdec_add(jparse *ps, jdec x, jdec y) {
    size_t sc = x.scale > y.scale ? x.scale : y.scale;
    size_t xi = x.n - x.scale, yi = y.n - y.scale; /* integer digits */
    size_t in = (xi > yi ? xi : yi) + 1, n = in + sc;
    char *d = tv_arena_alloc(ps->a, n + 1);
    if (!d) {
        ps->oom = true;
        return x;
    }
    int carry = 0;
    for (size_t k = 0; k < n; k++) { /* k-th digit from the right */
        long xk = (long)k - (long)(sc - x.scale), yk = (long)k - (long)(sc - y.scale);
        int dx = xk >= 0 && (size_t)xk < x.n ? x.d[x.n - 1 - (size_t)xk] - '0' : 0;
        int dy = yk >= 0 && (size_t)yk < y.n ? y.d[y.n - 1 - (size_t)yk] - '0' : 0;
        int s = dx + dy + carry;
        d[n - 1 - k] = (char)('0' + s % 10);
        carry = s / 10;
    }
    return (jdec){d, n, sc};
}

/* A run of digits, kanji digits, decimal points and separators; false: none. */
static bool parse_basic(jparse *ps, jdec *out) {
    char *d = tv_arena_alloc(ps->a, ps->n - ps->pos + 1);
    if (!d) {
        ps->oom = true;
        return false;
    }
    size_t n = 0, dots = 0, dot_at = 0, chars = 0;
    while (ps->pos < ps->n) {
        uint32_t c = ps->s[ps->pos];
        int v;
        if (is_arabic(c, &v) || is_kanji_numeral(c, &v)) {
            d[n++] = (char)('0' + v);
        } else if (is_decimal_point(c)) {
            dots++;
            dot_at = n;
        } else if (!is_thousand_sep(c)) {
            break;
        }
        chars += !is_thousand_sep(c);
        ps->pos++;
    }
    if (chars == 0) return false;
    /* new BigDecimal(s): one point at most, at least one digit */
    if (dots > 1 || n == 0) {
        ps->bad = true;
        return false;
    }
    *out = (jdec){d, n, dots ? n - dot_at : 0};
    return true;
}

static bool parse_kanji_exp(jparse *ps, bool large, int *p) {
    if (ps->pos >= ps->n) return false;
    int e = exponent_of(ps->s[ps->pos]);
    if (large ? e > 3 : (e >= 1 && e <= 3)) {
        ps->pos++;
        *p = e;
        return true;
    }
    return false;
}

static const jdec jdec_one = {"1", 1, 0};

static bool parse_medium_pair(jparse *ps, jdec *out) {
    jdec first;
    int p;
    bool hf = parse_basic(ps, &first);
    if (ps->bad || ps->oom) return false;
    bool hs = parse_kanji_exp(ps, false, &p);
    if (!hf && !hs) return false;
    *out = hs ? jdec_shift(ps, hf ? first : jdec_one, p) : first;
    return !ps->oom;
}

static bool parse_medium_number(jparse *ps, jdec *out) {
    jdec r;
    if (!parse_medium_pair(ps, &r)) return false;
    jdec sum = r;
    while (parse_medium_pair(ps, &r)) sum = jdec_add(ps, sum, r);
    if (ps->bad || ps->oom) return false;
    *out = sum;
    return true;
}

static bool parse_large_pair(jparse *ps, jdec *out) {
    jdec first;
    int p;
    bool hf = parse_medium_number(ps, &first);
    if (ps->bad || ps->oom) return false;
    bool hs = parse_kanji_exp(ps, true, &p);
    if (!hf && !hs) return false;
    *out = hs ? jdec_shift(ps, hf ? first : jdec_one, p) : first;
    return !ps->oom;
}

/* The normalized number of [s, s+n) in the arena; the text itself when it
 * is not a number; NULL out of memory. */
static const char *normalize_number(tv_arena *a, const char *s, size_t n, size_t *out_len) {
    uint32_t *cps = tv_arena_alloc(a, (n + 1) * sizeof *cps);
    if (!cps) return NULL;
    size_t k = 0;
    for (const uint8_t *p = (const uint8_t *)s, *e = p + n; p < e;) {
        uint32_t c;
        p += tv_utf8_decode(p, e, &c);
        cps[k++] = c;
    }
    jparse ps = {a, cps, k, 0, false, false};
    jdec r, sum;
    bool any = parse_large_pair(&ps, &r);
    if (any) {
        sum = r;
        while (parse_large_pair(&ps, &r)) sum = jdec_add(&ps, sum, r);
    }
    if (ps.oom) return NULL;
    if (!any || ps.bad) {
        *out_len = n;
        return s;
    }
    /* stripTrailingZeros().toPlainString() */
    size_t ni = sum.n - sum.scale, fe = sum.n;
    while (fe > ni && sum.d[fe - 1] == '0') fe--;
    size_t is = 0;
    while (is < ni && sum.d[is] == '0') is++;
    char *o = tv_arena_alloc(a, sum.n + 3);
    if (!o) return NULL;
    size_t ol = 0;
    if (is == ni) o[ol++] = '0';
    else {
        memcpy(o, sum.d + is, ni - is);
        ol = ni - is;
    }
    if (fe > ni) {
        o[ol++] = '.';
        memcpy(o + ol, sum.d + ni, fe - ni);
        ol += fe - ni;
    }
    o[ol] = 0;
    *out_len = ol;
    return o;
}

static bool term_numeral(const tv_token *t) {
    return all_chars(t->term, t->term_len, is_numeral_cp);
}

static tv_status number_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)cfg;
    tv_tokvec out = {0};
    out.trailing = v->trailing;
    out.final_text = v->final_text;
    out.final_off = v->final_off;
    out.morph = v->morph;
    tv_buf num;
    tv_buf_init(&num);
    tv_status st = TROVE_OK;
    size_t in = 0, n = v->len;
    uint32_t fall = 0;
    bool exhausted = false;
    tv_token cur = {0};
    /* one pass of the loop is one incrementToken() of Lucene's filter */
    for (;;) {
        if (exhausted || in >= n) break;
        cur = v->items[in++];
        if ((cur.flags & TV_TOKF_KEYWORD)) goto emit_cur;
        if (fall > 0) {
            fall--;
            goto emit_cur;
        }
        if (cur.position == 0) {
            fall = cur.pos_len > 1 ? cur.pos_len - 1u : 0;
            goto emit_cur;
        }
        {
            bool more = true, composed = false;
            uint32_t start = 0, start16 = 0, end = 0, end16 = 0;
            tv_token pre = cur, term = cur;
            bool numeral = term_numeral(&term);
            while (more && numeral) {
                if (!composed) {
                    start = cur.start;
                    start16 = cur.start16;
                    composed = true;
                }
                end = cur.end;
                end16 = cur.end16;
                if (in < n) cur = v->items[in++];
                else more = false, exhausted = true;
                if (more && cur.position == 0) {
                    /* a stacked token: emit the first numeral as it was,
                     * then this one; Lucene keeps what it appended so far */
                    fall = cur.pos_len > 1 ? cur.pos_len - 1u : 0;
                    if (tv_tokvec_push(a, &out, &pre) || tv_tokvec_push(a, &out, &cur)) goto oom;
                    goto next;
                }
                tv_buf_append(&num, term.term, term.term_len);
                if (num.oom) goto oom;
                if (more) {
                    term = cur;
                    numeral = term_numeral(&term) || all_chars(term.term, term.term_len, is_numeral_punct);
                }
            }
            if (composed) {
                size_t nl;
                char *copy = tv_arena_alloc(a, num.len + 1);
                if (!copy) goto oom;
                if (num.len) memcpy(copy, num.data, num.len);
                copy[num.len] = 0;
                const char *norm = normalize_number(a, copy, num.len, &nl);
                if (!norm) goto oom;
                tv_token t = cur;
                t.term = norm;
                t.term_len = (uint32_t)nl;
                t.start = start, t.start16 = start16, t.end = end, t.end16 = end16;
                if (tv_tokvec_push(a, &out, &t)) goto oom;
                if (more && tv_tokvec_push(a, &out, &cur)) goto oom;
                tv_buf_clear(&num);
                continue;
            }
            if (!more) break;
        }
    emit_cur:
        if (tv_tokvec_push(a, &out, &cur)) goto oom;
    next:;
    }
    tv_buf_fini(&num);
    *v = out;
    return st;
oom:
    tv_buf_fini(&num);
    return TROVE_ENOMEM;
}

const tv_filter_type tv_tf_kuromoji_number = {"kuromoji_number", NULL, number_apply};
