/*
 * wordbreak.c — UAX #29 word boundaries (the default rules, exactly as the
 * annex states them), over UTF-8.
 *
 * Algorithm: walk code points left to right and decide each boundary
 * between the previous code point and the current one by the rules in
 * order. WB4 ("X (Extend | Format | ZWJ)* -> X") is applied by tracking the
 * last two *effective* Word_Break values (code points not absorbed by WB4)
 * and the count of consecutive effective Regional_Indicators (WB15/WB16);
 * rules with right context (WB6, WB7b, WB12) peek at the next effective
 * code point. Rules that come before WB4 (WB3, WB3a-d) look at the raw
 * previous code point.
 *
 * This segmenter is what WordBreakTest.txt checks. The standard tokenizer
 * (standard_tokenizer.c) does not call it: Lucene's StandardTokenizer is a
 * longest-match grammar that agrees with these rules for letters and
 * numbers but differs for emoji, South-East Asian runs and leading
 * Extend characters, so it has its own matcher over the same tables.
 * Rejected: a generated DFA over all rule contexts (as ICU does) — more
 * code to generate for a function that is not on the indexing hot path.
 */
#include "text/text.h"
#include "text/unicode.h"

static inline bool is_ah(int wb) { return wb == TV_WB_ALETTER || wb == TV_WB_HEBREW_LETTER; }
static inline bool is_midletq(int wb) {
    return wb == TV_WB_MIDLETTER || wb == TV_WB_MIDNUMLET || wb == TV_WB_SINGLE_QUOTE;
}
static inline bool is_midnumq(int wb) {
    return wb == TV_WB_MIDNUM || wb == TV_WB_MIDNUMLET || wb == TV_WB_SINGLE_QUOTE;
}
static inline bool is_efz(int wb) {
    return wb == TV_WB_EXTEND || wb == TV_WB_FORMAT || wb == TV_WB_ZWJ;
}

/* Word_Break of the next code point at or after p that WB4 does not absorb
 * (-1 at the end of text). */
static int next_effective(const uint8_t *p, const uint8_t *end) {
    while (p < end) {
        uint32_t cp;
        p += tv_utf8_decode(p, end, &cp);
        int wb = tv_uc_props(cp)->wb;
        if (!is_efz(wb)) return wb;
    }
    return -1;
}

size_t tv_wb_next(const char *text, size_t len, size_t pos) {
    const uint8_t *s = (const uint8_t *)text, *end = s + len, *p = s + pos;
    if (pos >= len) return len;
    uint32_t cp;
    p += tv_utf8_decode(p, end, &cp);
    const tv_uc_record *r = tv_uc_props(cp);
    int raw_prev = r->wb;
    int prev = raw_prev, prev2 = -1; /* effective */
    unsigned ri = raw_prev == TV_WB_RI ? 1 : 0;
    while (p < end) {
        const uint8_t *here = p;
        p += tv_utf8_decode(p, end, &cp);
        r = tv_uc_props(cp);
        int cur = r->wb;
        bool brk;
        if (raw_prev == TV_WB_CR && cur == TV_WB_LF) brk = false;                 /* WB3 */
        else if (raw_prev == TV_WB_CR || raw_prev == TV_WB_LF || raw_prev == TV_WB_NEWLINE)
            brk = true;                                                            /* WB3a */
        else if (cur == TV_WB_CR || cur == TV_WB_LF || cur == TV_WB_NEWLINE) brk = true; /* WB3b */
        else if (raw_prev == TV_WB_ZWJ && (r->flags & TV_UCF_EXTPICT)) brk = false; /* WB3c */
        else if (raw_prev == TV_WB_WSEGSPACE && cur == TV_WB_WSEGSPACE) brk = false; /* WB3d */
        else if (is_efz(cur)) {                                                    /* WB4 */
            raw_prev = cur;
            continue;
        } else if (is_ah(prev) && is_ah(cur)) brk = false;                         /* WB5 */
        else if (is_ah(prev) && is_midletq(cur) && is_ah(next_effective(p, end))) brk = false; /* WB6 */
        else if (is_ah(prev2) && is_midletq(prev) && is_ah(cur)) brk = false;      /* WB7 */
        else if (prev == TV_WB_HEBREW_LETTER && cur == TV_WB_SINGLE_QUOTE) brk = false; /* WB7a */
        else if (prev == TV_WB_HEBREW_LETTER && cur == TV_WB_DOUBLE_QUOTE &&
                 next_effective(p, end) == TV_WB_HEBREW_LETTER)
            brk = false;                                                           /* WB7b */
        else if (prev2 == TV_WB_HEBREW_LETTER && prev == TV_WB_DOUBLE_QUOTE &&
                 cur == TV_WB_HEBREW_LETTER)
            brk = false;                                                           /* WB7c */
        else if (prev == TV_WB_NUMERIC && cur == TV_WB_NUMERIC) brk = false;       /* WB8 */
        else if (is_ah(prev) && cur == TV_WB_NUMERIC) brk = false;                 /* WB9 */
        else if (prev == TV_WB_NUMERIC && is_ah(cur)) brk = false;                 /* WB10 */
        else if (prev2 == TV_WB_NUMERIC && is_midnumq(prev) && cur == TV_WB_NUMERIC)
            brk = false;                                                           /* WB11 */
        else if (prev == TV_WB_NUMERIC && is_midnumq(cur) &&
                 next_effective(p, end) == TV_WB_NUMERIC)
            brk = false;                                                           /* WB12 */
        else if (prev == TV_WB_KATAKANA && cur == TV_WB_KATAKANA) brk = false;     /* WB13 */
        else if ((is_ah(prev) || prev == TV_WB_NUMERIC || prev == TV_WB_KATAKANA ||
                  prev == TV_WB_EXTENDNUMLET) &&
                 cur == TV_WB_EXTENDNUMLET)
            brk = false;                                                           /* WB13a */
        else if (prev == TV_WB_EXTENDNUMLET &&
                 (is_ah(cur) || cur == TV_WB_NUMERIC || cur == TV_WB_KATAKANA))
            brk = false;                                                           /* WB13b */
        else if (prev == TV_WB_RI && cur == TV_WB_RI && (ri & 1)) brk = false;     /* WB15/16 */
        else brk = true;                                                           /* WB999 */
        if (brk) return (size_t)(here - s);
        ri = cur == TV_WB_RI ? ri + 1 : 0;
        prev2 = prev;
        prev = cur;
        raw_prev = cur;
    }
    return len;
}
