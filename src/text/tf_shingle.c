/*
 * tf_shingle.c — the `shingle` token filter: Lucene 10's ShingleFilter
 * with OpenSearch's ShingleTokenFilterFactory settings (min_shingle_size
 * 2, max_shingle_size 2, output_unigrams true,
 * output_unigrams_if_no_shingles false, token_separator " ", filler_token
 * "_"; max - min (+1 with unigrams) above index.max_shingle_diff refused
 * with OpenSearch's message, then ShingleFilter's own checks).
 *
 * Algorithm: ShingleFilter's state machine, step for step. A window holds
 * up to max_shingle_size input tokens; a position increment n > 1 puts
 * min(n-1, max-1) filler tokens (the filler text, empty offsets at the
 * next token's start) before the token, and the stream's trailing
 * increment puts fillers at the final offset after the last one. At each
 * window position a "gram size" walks the circular sequence
 * [1,] min..max: a gram made only of fillers is skipped, every other is
 * emitted with the first window token's attributes, position increment 1
 * for the first at the position and 0 after, type "shingle" when it
 * joins several tokens, and positionLength = the gram size (with
 * unigrams) or max(1, size - min + 1) (without). When unigrams are off
 * and output_unigrams_if_no_shingles is on, a stream too short for any
 * shingle emits its unigrams. Stacked tokens (increment 0) are treated as
 * the next token, as ShingleFilter does.
 *
 * OpenSearch marks the stream with DisableGraphAttribute when unigrams are
 * output or min != max (shingles of several sizes do not align as a
 * graph): the tokvec's graph_off, which match queries read so they build
 * no graph query. Rejected: a direct "all n-grams" loop (shorter, but
 * the fillers, the all-filler skips and the circular sequence's quirks
 * would differ from Lucene at the edges).
 */
#include "text/text_int.h"

typedef struct shingle_cfg {
    uint32_t min, max;
    bool unigrams, unigrams_if_none;
    const char *sep, *fill;
    uint32_t sep_len, fill_len;
    bool graph_off;
} shingle_cfg;

static tv_status shingle_build(tv_comp *c, const void **out, tv_error *err) {
    int64_t mx, mn;
    bool uni, uni_if;
    tv_status st;
    if ((st = tv_comp_int(c, "max_shingle_size", 2, &mx, err))) return st;
    if ((st = tv_comp_int(c, "min_shingle_size", 2, &mn, err))) return st;
    if ((st = tv_comp_bool(c, "output_unigrams", true, &uni, err))) return st;
    int64_t diff = mx - mn + (uni ? 1 : 0), allowed = tv_comp_limits(c)->max_shingle_diff;
    if (diff > allowed)
        return tv_error_set(err, TROVE_EARG,
                            "In Shingle TokenFilter the difference between max_shingle_size and "
                            "min_shingle_size (and +1 if outputting unigrams) must be less than or "
                            "equal to: [%lld] but was [%lld]. This limit can be set by changing the "
                            "[index.max_shingle_diff] index level setting.",
                            (long long)allowed, (long long)diff);
    if ((st = tv_comp_bool(c, "output_unigrams_if_no_shingles", false, &uni_if, err))) return st;
    /* ShingleFilter's constructor */
    if (mx < 2) return tv_error_set(err, TROVE_EARG, "Max shingle size must be >= 2");
    if (mn < 2) return tv_error_set(err, TROVE_EARG, "Min shingle size must be >= 2");
    if (mn > mx) return tv_error_set(err, TROVE_EARG, "Min shingle size must be <= max shingle size");
    shingle_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    memset(g, 0, sizeof *g);
    g->min = (uint32_t)mn;
    g->max = (uint32_t)mx;
    g->unigrams = uni;
    g->unigrams_if_none = uni_if;
    size_t l;
    const char *s = tv_comp_str(c, "token_separator", &l);
    if (!s) s = " ", l = 1;
    if (!(g->sep = tv_comp_strdup(c, s, l))) return TROVE_ENOMEM;
    g->sep_len = (uint32_t)l;
    s = tv_comp_str(c, "filler_token", &l);
    if (!s) s = "_", l = 1;
    if (!(g->fill = tv_comp_strdup(c, s, l))) return TROVE_ENOMEM;
    g->fill_len = (uint32_t)l;
    g->graph_off = uni || mn != mx;
    *out = g;
    return TROVE_OK;
}

/* One window entry: a real token, or a filler standing on `base`'s
 * attributes with empty offsets at (at, at16). */
typedef struct wtok {
    tv_token tok; /* attributes; for a filler, term = the filler text */
    bool filler;
} wtok;

typedef struct shingler {
    const shingle_cfg *g;
    tv_arena *a;
    const tv_tokvec *in;
    size_t next;           /* the next input token */
    uint32_t nfill;        /* fillers still to insert */
    tv_token pending;      /* the token waiting behind fillers (or the end base) */
    bool has_pending, exhausted;
    wtok *win;
    uint32_t wlen;
    /* the circular gram size */
    uint32_t value, prev, minv;
    bool output_here, no_shingle;
    char *gram;
    size_t gram_len, gram_cap;
} shingler;

static void seq_reset(shingler *s) { s->prev = s->value = s->minv; }
static void seq_advance(shingler *s) {
    s->prev = s->value;
    if (s->value == 1) s->value = s->g->min;
    else if (s->value == s->g->max) seq_reset(s);
    else s->value++;
}

static void make_filler(shingler *s, const tv_token *base, uint32_t at, uint32_t at16, wtok *w) {
    w->tok = *base;
    w->tok.term = s->g->fill;
    w->tok.term_len = s->g->fill_len;
    w->tok.start = w->tok.end = at;
    w->tok.start16 = w->tok.end16 = at16;
    w->filler = true;
}

/* ShingleFilter.getNextToken: false at the end of the stream. */
static bool next_token(shingler *s, wtok *w) {
    if (s->nfill > 0) {
        make_filler(s, &s->pending, s->pending.start, s->pending.start16, w);
        s->nfill--;
        return true;
    }
    if (s->has_pending) {
        w->tok = s->pending;
        w->filler = false;
        s->has_pending = false;
        return true;
    }
    if (s->exhausted) return false;
    if (s->next < s->in->len) {
        const tv_token *t = &s->in->items[s->next++];
        if (t->position > 1) {
            uint32_t n = t->position - 1;
            s->nfill = n < s->g->max - 1 ? n : s->g->max - 1;
            s->pending = *t;
            s->has_pending = true;
            make_filler(s, t, t->start, t->start16, w);
            s->nfill--;
            return true;
        }
        w->tok = *t;
        w->filler = false;
        return true;
    }
    s->exhausted = true;
    uint32_t n = s->in->trailing;
    s->nfill = n < s->g->max - 1 ? n : s->g->max - 1;
    if (!s->nfill) return false;
    /* fillers at the final offset, on the last token's attributes */
    tv_token base = s->in->len ? s->in->items[s->in->len - 1] : (tv_token){0};
    base.start = base.end = s->in->final_off;
    base.start16 = base.end16 = (uint32_t)tv_utf16_len(s->in->final_text ? s->in->final_text : "",
                                                       s->in->final_off);
    s->pending = base;
    make_filler(s, &base, base.start, base.start16, w);
    s->nfill--;
    return true;
}

static void shift_window(shingler *s) {
    if (s->wlen) {
        memmove(s->win, s->win + 1, (s->wlen - 1) * sizeof *s->win);
        s->wlen--;
    }
    while (s->wlen < s->g->max) {
        if (!next_token(s, &s->win[s->wlen])) break;
        s->wlen++;
    }
    if (s->g->unigrams_if_none && s->no_shingle && s->minv > 1 && s->wlen < s->g->min) s->minv = 1;
    seq_reset(s);
    s->output_here = false;
}

static tv_status gram_append(shingler *s, const char *p, size_t n) {
    if (!n) return TROVE_OK;
    if (s->gram_len + n > s->gram_cap) {
        size_t cap = (s->gram_len + n) * 2 + 32;
        char *g = tv_arena_alloc(s->a, cap);
        if (!g) return TROVE_ENOMEM;
        if (s->gram_len) memcpy(g, s->gram, s->gram_len);
        s->gram = g;
        s->gram_cap = cap;
    }
    memcpy(s->gram + s->gram_len, p, n);
    s->gram_len += n;
    return TROVE_OK;
}

/* ShingleFilter.incrementToken: *got false at the end. */
static tv_status increment(shingler *s, tv_token *o, bool *got) {
    *got = false;
    uint32_t built = 0;
    if (s->value == s->minv || s->wlen < s->value) {
        shift_window(s);
        s->gram_len = 0;
    } else {
        built = s->prev;
    }
    if (s->wlen < s->value) return TROVE_OK;
    bool all_filler = true;
    const wtok *last = NULL;
    for (uint32_t num = 1; num <= s->wlen && built < s->value; num++) {
        last = &s->win[num - 1];
        if (built < num) {
            if (built > 0 && gram_append(s, s->g->sep, s->g->sep_len)) return TROVE_ENOMEM;
            if (gram_append(s, last->tok.term, last->tok.term_len)) return TROVE_ENOMEM;
            built++;
        }
        if (all_filler && last->filler) {
            if (num == s->value) seq_advance(s);
        } else {
            all_filler = false;
        }
    }
    if (all_filler || built != s->value) return TROVE_OK;
    *o = s->win[0].tok;
    o->position = s->output_here ? 0 : 1;
    char *t = tv_arena_alloc(s->a, s->gram_len + 1);
    if (!t) return TROVE_ENOMEM;
    if (s->gram_len) memcpy(t, s->gram, s->gram_len);
    t[s->gram_len] = 0;
    o->term = t;
    o->term_len = (uint32_t)s->gram_len;
    if (s->value > 1) {
        o->type = TV_TOK_SHINGLE;
        s->no_shingle = false;
    }
    o->end = last->tok.end;
    o->end16 = last->tok.end16;
    if (s->g->unigrams) o->pos_len = (uint16_t)built;
    else o->pos_len = (uint16_t)(built >= s->g->min ? built - s->g->min + 1 : 1);
    s->output_here = true;
    seq_advance(s);
    *got = true;
    return TROVE_OK;
}

static tv_status shingle_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const shingle_cfg *g = cfg;
    shingler s = {.g = g, .a = a, .in = v, .no_shingle = true};
    s.win = tv_arena_alloc(a, g->max * sizeof *s.win);
    if (!s.win) return TROVE_ENOMEM;
    s.minv = g->unigrams ? 1 : g->min;
    seq_reset(&s);
    tv_tokvec out = {0};
    for (;;) {
        tv_token o;
        bool got;
        tv_status st = increment(&s, &o, &got);
        if (st) return st;
        if (!got) break;
        if (tv_tokvec_push(a, &out, &o)) return TROVE_ENOMEM;
    }
    out.trailing = v->trailing;
    out.graph_off = v->graph_off || g->graph_off;
    *v = out;
    return TROVE_OK;
}

const tv_filter_type tv_tf_shingle = {
    .name = "shingle",
    .build = shingle_build,
    .apply = shingle_apply,
    .in_synonyms = TV_SYN_REJECT,
};
