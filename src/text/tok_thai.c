/*
 * tok_thai.c — the `thai` tokenizer (Lucene's ThaiTokenizer) and the `thai`
 * analyzer (ThaiAnalyzer: thai tokenizer, lowercase, stop words from
 * th/stopwords.txt; OpenSearch passes only `stopwords`). NOT LISTED in
 * catalog.c, so `thai` answers 400: see the measurement below.
 *
 * Thai is written without spaces between words, so words come from a
 * dictionary: Lucene asks the JDK's word BreakIterator (locale th), trove
 * asks ICU's (Debian's libicu). Every segment between two word
 * boundaries whose first code point is a letter or a decimal digit (Java's
 * isLetterOrDigit; ICU's u_isalnum is the same test) is a token of type
 * "word", offsets in the input, one position each; spaces and punctuation
 * between them are skipped. The text is segmented as a whole; Lucene first
 * splits sentences, whose boundaries are word boundaries too.
 *
 * ICU's dictionary and rules are not the JDK's (OpenSearch runs on the
 * JDK's): they cut many words differently. Measured with tests/analysis
 * against Lucene 4.10 on JDK 17 (Debian's ICU 72): the `thai` tokenizer
 * agrees on 27 of 100 corpus sentences, the `thai` analyzer on 97 of 300
 * (ICU keeps ปาปัว, บัลแกเรีย whole where the JDK splits them, and splits
 * อาร์เมเนียยุค where the JDK does not). Rejected: a Thai dictionary of
 * our own (none is on Debian outside ICU's data).
 */
#ifdef TROVE_HAVE_ICU
#include <unicode/ubrk.h>
#include <unicode/uchar.h>

#include "text/lang_int.h"

static tv_status thai_run(tv_arena *a, const void *cfg, const char *text, size_t len,
                          tv_tokvec *out) {
    (void)cfg;
    if (!len) return TROVE_OK;
    /* UTF-16 copy with, per unit, its byte offset in the input */
    UChar *u;
    uint32_t *boff;
    int32_t n = tv_utf16_with_offsets(a, text, len, &u, &boff);
    if (n < 0) return TROVE_ENOMEM;
    UErrorCode ec = U_ZERO_ERROR;
    UBreakIterator *bi = ubrk_open(UBRK_WORD, "th", u, n, &ec);
    if (U_FAILURE(ec) || !bi) return TROVE_EINTERNAL;
    tv_status st = TROVE_OK;
    int32_t start = ubrk_first(bi);
    for (int32_t e = ubrk_next(bi); e != UBRK_DONE && !st; start = e, e = ubrk_next(bi)) {
        UChar32 c;
        U16_GET(u, 0, start, n, c);
        if (!u_isalnum(c)) continue;
        tv_token t = {.term = text + boff[start], .term_len = boff[e] - boff[start],
                      .position = 1, .start = boff[start], .end = boff[e],
                      .start16 = (uint32_t)start, .end16 = (uint32_t)e, .type = TV_TOK_WORD};
        st = tv_tokvec_push(a, out, &t);
    }
    ubrk_close(bi);
    return st;
}

const tv_tokenizer_type tv_tok_thai = {"thai", NULL, thai_run};

static tv_status thai_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    p->tok = (tv_tokenizer_def){.kind = TV_TK_EXT, .ext = &tv_tok_thai};
    tv_lang_add_core(p, TV_TF_LOWERCASE);
    return tv_lang_stop(c, p, tv_words_thai(), "th/stopwords.txt", err);
}

const tv_analyzer_type tv_an_thai = {"thai", thai_build};
#endif /* TROVE_HAVE_ICU */
