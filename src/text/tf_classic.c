/*
 * tf_classic.c — `classic` (Lucene's ClassicFilter, for the classic
 * tokenizer's tokens: an <APOSTROPHE> token loses a trailing 's or 'S, an
 * <ACRONYM> token its dots) and `decimal_digit` (Lucene's
 * DecimalDigitFilter: every Unicode decimal digit, general category Nd,
 * becomes its ASCII digit).
 *
 * Digits are found with the generated table of each Nd run's zero
 * (unicode.h), by binary search; rejected: a per-code-point property bit,
 * which would need a value too.
 */
#include "text/text_int.h"

static tv_status classic_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        uint32_t n = t->term_len;
        if (t->type == TV_TOK_APOSTROPHE) {
            if (n >= 2 && t->term[n - 2] == '\'' && (t->term[n - 1] == 's' || t->term[n - 1] == 'S'))
                t->term_len = n - 2;
        } else if (t->type == TV_TOK_ACRONYM) {
            if (!memchr(t->term, '.', n)) continue;
            char *o = tv_arena_alloc(a, n + 1);
            if (!o) return TROVE_ENOMEM;
            uint32_t w = 0;
            for (uint32_t k = 0; k < n; k++)
                if (t->term[k] != '.') o[w++] = t->term[k];
            o[w] = 0;
            t->term = o;
            t->term_len = w;
        }
    }
    return TROVE_OK;
}

/* The value of decimal digit cp, -1 if it is none. */
static int digit_value(uint32_t cp) {
    size_t lo = 0, hi = tv_uc_digit_zero_count;
    while (lo < hi) { /* the last zero <= cp */
        size_t mid = (lo + hi) / 2;
        if (tv_uc_digit_zero[mid] <= cp) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return -1;
    uint32_t z = tv_uc_digit_zero[lo - 1];
    return cp - z < 10 ? (int)(cp - z) : -1;
}

static tv_status decimal_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        const uint8_t *s = (const uint8_t *)t->term, *end = s + t->term_len;
        bool any = false;
        for (const uint8_t *q = s; q < end;) {
            if (*q < 0x80) {
                q++;
                continue;
            }
            uint32_t cp;
            q += tv_utf8_decode(q, end, &cp);
            if (digit_value(cp) >= 0) {
                any = true;
                break;
            }
        }
        if (!any) continue;
        char *o = tv_arena_alloc(a, t->term_len + 1);
        if (!o) return TROVE_ENOMEM;
        size_t w = 0;
        for (const uint8_t *q = s; q < end;) {
            uint32_t cp;
            size_t k = tv_utf8_decode(q, end, &cp);
            int d = *q < 0x80 ? -1 : digit_value(cp);
            if (d >= 0) o[w++] = (char)('0' + d);
            else {
                memcpy(o + w, q, k);
                w += k;
            }
            q += k;
        }
        o[w] = 0;
        t->term = o;
        t->term_len = (uint32_t)w;
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_classic = {"classic", NULL, classic_apply};
const tv_filter_type tv_tf_decimal_digit = {"decimal_digit", NULL, decimal_apply};
