/*
 * tok_icu.c — the analysis-icu plugin's `icu_tokenizer` (Lucene's
 * ICUTokenizer with DefaultICUTokenizerConfig(cjkAsWords=true,
 * myanmarAsWords=true), as OpenSearch's IcuTokenizerFactory builds it),
 * through Debian's ICU (libicu).
 *
 * Algorithm, step by step as Lucene's:
 *  1. The text (as UTF-16) is read in chunks of 4096 units; a chunk that
 *     is not the last ends after its last white space unit (Java's
 *     UCharacter.isWhitespace; none: the whole chunk), the rest starts the
 *     next chunk. Tokens never span chunks.
 *  2. A chunk is cut into script runs (ScriptIterator): a code point joins
 *     the run when its script is the run's, either is Common/Inherited, its
 *     Script_Extensions name the run's script, or it is a combining mark
 *     (Mn, Mc, Me); Common/Inherited runs take the first real script met.
 *     Han, Hiragana and Katakana count as one script, Japanese; fullwidth
 *     digits U+FF10..FF19 count as Latin.
 *  3. Each run goes through a UAX #29 word break iterator: ICU's root word
 *     rules, whose dictionaries split Thai, Lao, Khmer, Myanmar and
 *     Chinese/Japanese (Japanese runs) into words.
 *  4. A segment is a token when its rule status is not 0, or when it is an
 *     emoji sequence (BreakIteratorWrapper.isEmoji: it starts with an Emoji
 *     or Extended_Pictographic code point; one of # * 0-9 © ® ™ 〰 〽 only
 *     when U+FE0F or U+20E3 follows). Its type comes from the status:
 *     emoji <EMOJI>; 400 <IDEOGRAPHIC>; 300 <KATAKANA> (<HIRAGANA> in a
 *     Hiragana run, which combined CJ never has); 200 <HANGUL> in a Hangul
 *     run, else <ALPHANUM>; 100 <NUM>.
 *
 * Lucene breaks runs that are not Japanese with its own Default.brk: ICU's
 * root word rules without the CJK dictionary and with kana at status 300
 * instead of 400. Outside Japanese runs only Common-script kana marks
 * (U+30FC, U+3031..3035, halfwidth U+FF70, ...) can meet those rules, so
 * trove uses ICU's root rules everywhere and types a status-400 segment of
 * such a run without an Ideographic code point <KATAKANA>, as Default.brk
 * would. Rejected: compiling a rule source of our own (ubrk_openRules) —
 * ICU's rules are not installed on Debian and rewriting UAX #29 by hand
 * risks more than the two differences it would remove; loading Lucene's
 * .brk files — they are ICU 53 data (Lucene 4.10's jar) that ICU 72
 * refuses.
 *
 * Differences that come from ICU's data (libicu 72, Unicode 15.0; Lucene
 * 10 ships ICU4J 74, Unicode 15.1): dictionary splits of Thai, Lao, Khmer,
 * Myanmar and CJ text may differ where the dictionaries changed between
 * 72 and 74; characters new in Unicode 15.1 have no properties here.
 *
 * Setting `rule_files` (per-script RBBI rule files read from the node's
 * config directory) answers 400 unsupported: trove has no config
 * directory. A break iterator is cloned per call from one root template
 * (ubrk_clone; the template is immutable once opened and shared).
 */
#ifdef TROVE_HAVE_ICU
#include <pthread.h>
#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf16.h>

#include "text/text_int.h"

#define ICU_CHUNK 4096 /* ICUTokenizer.IOBUFFER */
#define EMOJI_STATUS 299 /* ICUTokenizerConfig.EMOJI_SEQUENCE_STATUS */

static UBreakIterator *root_word;
static pthread_once_t root_once = PTHREAD_ONCE_INIT;

static void open_root(void) {
    UErrorCode ec = U_ZERO_ERROR;
    UBreakIterator *bi = ubrk_open(UBRK_WORD, "", NULL, 0, &ec);
    if (U_SUCCESS(ec)) root_word = bi;
    else if (bi) ubrk_close(bi);
}

static tv_status icu_tok_build(tv_comp *c, const void **cfg, tv_error *err) {
    *cfg = NULL;
    const char *const *vals;
    const size_t *lens;
    size_t n = 0;
    tv_comp_list_csv(c, "rule_files", &vals, &lens, &n);
    if (n)
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "[rule_files] is not supported for [icu_tokenizer]");
    pthread_once(&root_once, open_root);
    if (!root_word) return tv_error_set(err, TROVE_EINTERNAL, "ICU word break iterator unavailable");
    return TROVE_OK;
}

/* ScriptIterator.getScript with combineCJ */
static int32_t script_of(UChar32 c) {
    UErrorCode ec = U_ZERO_ERROR;
    UScriptCode s = uscript_getScript(c, &ec);
    if (c < 128) return s;
    if (s == USCRIPT_HAN || s == USCRIPT_HIRAGANA || s == USCRIPT_KATAKANA) return USCRIPT_JAPANESE;
    if (c >= 0xFF10 && c <= 0xFF19) return USCRIPT_LATIN;
    return s;
}

static bool same_script(int32_t cur, int32_t sc, UChar32 c) {
    return cur == sc || cur <= USCRIPT_INHERITED || sc <= USCRIPT_INHERITED ||
           uscript_hasScript(c, (UScriptCode)cur);
}

static bool combining_mark(UChar32 c) {
    int8_t t = u_charType(c);
    return t == U_NON_SPACING_MARK || t == U_COMBINING_SPACING_MARK || t == U_ENCLOSING_MARK;
}

/* BreakIteratorWrapper.isEmoji over [b, e) */
static bool is_emoji(const UChar *u, int32_t b, int32_t e) {
    UChar32 c;
    int32_t i = b;
    U16_NEXT(u, i, e, c);
    if (!u_hasBinaryProperty(c, UCHAR_EMOJI) && !u_hasBinaryProperty(c, UCHAR_EXTENDED_PICTOGRAPHIC))
        return false;
    bool rk = c == '*' || c == '#' || (c >= '0' && c <= '9') || c == 0xA9 || c == 0xAE ||
              c == 0x2122 || c == 0x3030 || c == 0x303D;
    if (!rk) return true;
    return i < e && (u[i] == 0xFE0F || u[i] == 0x20E3);
}

static bool has_ideographic(const UChar *u, int32_t b, int32_t e) {
    for (int32_t i = b; i < e;) {
        UChar32 c;
        U16_NEXT(u, i, e, c);
        if (u_hasBinaryProperty(c, UCHAR_IDEOGRAPHIC)) return true;
    }
    return false;
}

typedef struct run_ctx {
    tv_arena *a;
    const char *text;
    const UChar *u;
    const uint32_t *boff;
    tv_tokvec *out;
    UBreakIterator *bi;
} run_ctx;

/* Breaks one script run [rs, re) and emits its tokens. */
static tv_status break_run(run_ctx *x, int32_t rs, int32_t re, int32_t script) {
    UErrorCode ec = U_ZERO_ERROR;
    ubrk_setText(x->bi, x->u + rs, re - rs, &ec);
    if (U_FAILURE(ec)) return TROVE_EINTERNAL;
    int32_t prev = ubrk_first(x->bi);
    for (int32_t next = ubrk_next(x->bi); next != UBRK_DONE; prev = next, next = ubrk_next(x->bi)) {
        int32_t b = rs + prev, e = rs + next;
        int32_t status = is_emoji(x->u, b, e) ? EMOJI_STATUS : ubrk_getRuleStatus(x->bi);
        if (status == 0) continue;
        uint8_t type;
        if (status == EMOJI_STATUS) type = TV_TOK_EMOJI;
        else if (status == UBRK_WORD_IDEO)
            type = script != USCRIPT_JAPANESE && !has_ideographic(x->u, b, e) ? TV_TOK_KATAKANA
                                                                             : TV_TOK_IDEOGRAPHIC;
        else if (status == UBRK_WORD_KANA)
            type = script == USCRIPT_HIRAGANA ? TV_TOK_HIRAGANA : TV_TOK_KATAKANA;
        else if (status == UBRK_WORD_LETTER)
            type = script == USCRIPT_HANGUL ? TV_TOK_HANGUL : TV_TOK_ALPHANUM;
        else if (status == UBRK_WORD_NUMBER) type = TV_TOK_NUM;
        else type = TV_TOK_ALPHANUM; /* root rules have no other status */
        tv_token t = {.term = x->text + x->boff[b], .term_len = x->boff[e] - x->boff[b],
                      .position = 1, .start = x->boff[b], .end = x->boff[e],
                      .start16 = (uint32_t)b, .end16 = (uint32_t)e, .type = type};
        tv_status st = tv_tokvec_push(x->a, x->out, &t);
        if (st) return st;
    }
    return TROVE_OK;
}

/* ScriptIterator over one chunk [s, e) */
static tv_status break_chunk(run_ctx *x, int32_t s, int32_t e) {
    int32_t pos = s;
    while (pos < e) {
        int32_t rs = pos, code = USCRIPT_COMMON;
        while (pos < e) {
            int32_t q = pos;
            UChar32 c;
            U16_NEXT(x->u, q, e, c);
            int32_t sc = script_of(c);
            if (!same_script(code, sc, c) && !combining_mark(c)) break;
            pos = q;
            if (code <= USCRIPT_INHERITED && sc > USCRIPT_INHERITED) code = sc;
        }
        tv_status st = break_run(x, rs, pos, code);
        if (st) return st;
    }
    return TROVE_OK;
}

static tv_status icu_tok_run(tv_arena *a, const void *cfg, const char *text, size_t len,
                             tv_tokvec *out) {
    (void)cfg;
    if (!len) return TROVE_OK;
    pthread_once(&root_once, open_root);
    if (!root_word) return TROVE_EINTERNAL;
    /* UTF-16 copy with, per unit, its byte offset in the input */
    UChar *u;
    uint32_t *boff;
    int32_t n = tv_utf16_with_offsets(a, text, len, &u, &boff);
    if (n < 0) return TROVE_ENOMEM;
    UErrorCode ec = U_ZERO_ERROR;
    run_ctx x = {a, text, u, boff, out, ubrk_clone(root_word, &ec)};
    if (U_FAILURE(ec) || !x.bi) return TROVE_EINTERNAL;
    /* ICUTokenizer.refill: chunks of ICU_CHUNK units, cut after white space */
    tv_status st = TROVE_OK;
    int32_t off = 0, length = 0, usable = 0;
    for (;;) {
        off += usable;
        int32_t leftover = length - usable, requested = ICU_CHUNK - leftover;
        int32_t avail = n - off - leftover;
        int32_t returned = avail < requested ? avail : requested;
        length = returned + leftover;
        if (length <= 0) break;
        if (returned < requested) {
            usable = length;
        } else {
            usable = -1;
            for (int32_t i = length - 1; i >= 0; i--)
                if (u_isWhitespace(u[off + i])) {
                    usable = i + 1;
                    break;
                }
            if (usable < 0) usable = length;
        }
        if ((st = break_chunk(&x, off, off + usable))) break;
    }
    ubrk_close(x.bi);
    return st;
}

const tv_tokenizer_type tv_tok_icu = {"icu_tokenizer", icu_tok_build, icu_tok_run};
#endif /* TROVE_HAVE_ICU */
