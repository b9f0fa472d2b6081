/*
 * tf_common_grams.c — the `common_grams` token filter (Lucene's
 * CommonGramsFilter, and CommonGramsQueryFilter with query_mode;
 * OpenSearch's CommonGramsTokenFilterFactory: common_words required,
 * ignore_case).
 *
 * Index mode: every token is kept; when a token or the one before it is a
 * common word, the bigram "prev_cur" (type "gram", positionLength 2,
 * offsets prev.start..cur.end) is emitted before cur, stacked on prev's
 * position. Query mode then keeps the grams and drops each unigram that a
 * gram starting at it covers, and the last unigram when the token before
 * it was a gram; grams get increment 1.
 */
#include "text/text_int.h"

typedef struct cg_cfg {
    const tv_termset *words;
    bool query;
} cg_cfg;

static tv_status cg_build(tv_comp *c, const void **out, tv_error *err) {
    cg_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    bool ignore_case;
    tv_status st = tv_comp_bool(c, "ignore_case", false, &ignore_case, err);
    if (!st) st = tv_comp_bool(c, "query_mode", false, &g->query, err);
    if (!st) st = tv_comp_words(c, "common_words", NULL, ignore_case, &g->words, err);
    if (st) return st;
    if (!g->words && tv_comp_bare(c)) /* the pre-configured filter: no common words */
        st = tv_comp_termset(c, NULL, NULL, 0, false, &g->words);
    if (st) return st;
    if (!g->words)
        return tv_error_set(err, TROVE_EARG,
                            "missing or empty [common_words] or [common_words_path] configuration "
                            "for common_grams token filter");
    *out = g;
    return TROVE_OK;
}

static tv_status cg_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const cg_cfg *g = cfg;
    tv_tokvec out = {0};
    const tv_token *prev = NULL;
    bool prev_common = false;
    for (size_t i = 0; i < v->len; i++) {
        const tv_token *t = &v->items[i];
        bool common = tv_termset_has(g->words, t->term, t->term_len);
        if (prev && (prev_common || common)) {
            char *term = tv_arena_alloc(a, (size_t)prev->term_len + t->term_len + 2);
            if (!term) return TROVE_ENOMEM;
            memcpy(term, prev->term, prev->term_len);
            term[prev->term_len] = '_';
            memcpy(term + prev->term_len + 1, t->term, t->term_len);
            term[prev->term_len + 1 + t->term_len] = 0;
            tv_token gram = {0};
            gram.term = term;
            gram.term_len = prev->term_len + 1 + t->term_len;
            gram.position = 0;
            gram.pos_len = 2;
            gram.start = prev->start;
            gram.start16 = prev->start16;
            gram.end = t->end;
            gram.end16 = t->end16;
            gram.type = TV_TOK_GRAM;
            if (tv_tokvec_push(a, &out, &gram)) return TROVE_ENOMEM;
        }
        if (tv_tokvec_push(a, &out, t)) return TROVE_ENOMEM;
        prev = t;
        prev_common = common;
    }
    out.trailing = v->trailing;
    if (g->query) { /* CommonGramsQueryFilter over the output */
        tv_tokvec q = {0};
        const tv_token *pending = NULL;
        bool last_was_gram = false;
        for (size_t i = 0; i < out.len; i++) {
            const tv_token *cur = &out.items[i];
            if (pending && cur->type != TV_TOK_GRAM) {
                tv_token e = *pending;
                if (e.type == TV_TOK_GRAM) e.position = 1;
                last_was_gram = e.type == TV_TOK_GRAM;
                if (tv_tokvec_push(a, &q, &e)) return TROVE_ENOMEM;
            }
            pending = cur;
        }
        if (pending && !last_was_gram) {
            tv_token e = *pending;
            if (e.type == TV_TOK_GRAM) e.position = 1;
            if (tv_tokvec_push(a, &q, &e)) return TROVE_ENOMEM;
        }
        q.trailing = out.trailing;
        out = q;
    }
    *v = out;
    return TROVE_OK;
}

const tv_filter_type tv_tf_common_grams = {"common_grams", cg_build, cg_apply};
