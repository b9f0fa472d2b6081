/*
 * tf_reverse.c — the `reverse` token filter (Lucene's ReverseStringFilter):
 * each term's code points in reverse order (Lucene reverses UTF-16 units
 * but keeps surrogate pairs together, which is the same thing).
 */
#include "text/text_int.h"

static tv_status reverse_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        if (t->term_len < 2) continue;
        char *o = tv_arena_alloc(a, t->term_len + 1);
        if (!o) return TROVE_ENOMEM;
        const uint8_t *s = (const uint8_t *)t->term;
        size_t n = t->term_len, w = n;
        for (size_t r = 0; r < n;) {
            size_t k = 1; /* the length of the UTF-8 sequence at r */
            if (s[r] >= 0xF0) k = 4;
            else if (s[r] >= 0xE0) k = 3;
            else if (s[r] >= 0xC0) k = 2;
            if (k > n - r) k = n - r;
            w -= k;
            memcpy(o + w, s + r, k);
            r += k;
        }
        o[n] = 0;
        t->term = o;
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_reverse = {"reverse", NULL, reverse_apply};
