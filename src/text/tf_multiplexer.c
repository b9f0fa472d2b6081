/*
 * tf_multiplexer.c — the `multiplexer` token filter (OpenSearch's
 * MultiplexerTokenFilterFactory), and `condition` / `predicate_token_filter`,
 * which need a Painless predicate script that analysis cannot run here.
 *
 * multiplexer: `filters` is a list of branches, each a filter name or a
 * comma-separated chain of them; each token is emitted once per branch
 * (first unchanged when preserve_original, the default), every branch's
 * output stacked at the token's position, then duplicates at one position
 * removed (RemoveDuplicatesTokenFilter). OpenSearch runs the branches as
 * ConditionalTokenFilters that each see one copy of every token, so a
 * branch is applied here to one token at a time: filters that look across
 * tokens (shingles, common grams, ...) see a single token, as a
 * ConditionalTokenFilter's delegate mostly does. Branch filters are
 * resolved when the multiplexer is built (OpenSearch: when an analyzer
 * using it is), with OpenSearch's message for an unknown name.
 */
#include "text/text_int.h"

typedef struct branch {
    tv_filter_def *filters;
    size_t n;
} branch;

typedef struct mux_cfg {
    branch *branches;
    size_t n;
} mux_cfg;

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static tv_status mux_build(tv_comp *c, const void **out, tv_error *err) {
    bool preserve;
    tv_status st = tv_comp_bool(c, "preserve_original", true, &preserve, err);
    if (st) return st;
    const char *const *vals;
    const size_t *lens;
    size_t n;
    tv_comp_list(c, "filters", &vals, &lens, &n);
    mux_cfg *m = tv_comp_alloc(c, sizeof *m);
    if (!m) return TROVE_ENOMEM;
    m->branches = tv_comp_alloc(c, (n + 1) * sizeof *m->branches);
    if (!m->branches) return TROVE_ENOMEM;
    m->n = 0;
    if (preserve) m->branches[m->n++] = (branch){NULL, 0}; /* the identity */
    for (size_t i = 0; i < n; i++) {
        const char *s = vals[i];
        size_t sl = lens[i], cnt = 1;
        for (size_t k = 0; k < sl; k++) cnt += s[k] == ',';
        branch *b = &m->branches[m->n++];
        b->filters = tv_comp_alloc(c, cnt * sizeof *b->filters);
        b->n = 0;
        if (!b->filters) return TROVE_ENOMEM;
        size_t from = 0;
        for (size_t k = 0; k <= sl; k++) { /* tokenizeToStringArray: trimmed, empties skipped */
            if (k < sl && s[k] != ',') continue;
            size_t x = from, y = k;
            from = k + 1;
            while (x < y && is_space(s[x])) x++;
            while (y > x && is_space(s[y - 1])) y--;
            if (x == y) continue;
            st = tv_comp_filter_ref(c, s + x, y - x, &b->filters[b->n], err);
            if (st == TROVE_ENOTFOUND)
                return tv_error_set(err, TROVE_EARG,
                                    "Multiplexing filter [%s] refers to undefined tokenfilter [%.*s]",
                                    tv_comp_name(c), (int)(y - x), s + x);
            if (st) return st;
            b->n++;
        }
    }
    *out = m;
    return TROVE_OK;
}

static tv_status mux_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const mux_cfg *m = cfg;
    tv_tokvec out = {0};
    uint32_t carry = 0; /* increments of tokens every branch dropped */
    for (size_t i = 0; i < v->len; i++) {
        size_t first_out = out.len;
        uint32_t inc = v->items[i].position + carry;
        for (size_t b = 0; b < m->n; b++) {
            tv_tokvec one = {0};
            if (tv_tokvec_push(a, &one, &v->items[i])) return TROVE_ENOMEM;
            one.items[0].position = 1;
            one.final_off = v->final_off;
            one.final_text = v->final_text;
            tv_status st = tv_filters_apply(a, m->branches[b].filters, m->branches[b].n, &one);
            if (st) return st;
            for (size_t k = 0; k < one.len; k++) {
                tv_token t = one.items[k];
                /* the first token out takes the input's increment; the rest stack */
                if (out.len == first_out) t.position = inc;
                else if (k == 0 || t.position > 0) t.position = 0;
                bool dup = false; /* RemoveDuplicatesTokenFilter, at this position */
                for (size_t j = first_out; j < out.len && !dup; j++)
                    dup = out.items[j].term_len == t.term_len &&
                          memcmp(out.items[j].term, t.term, t.term_len) == 0;
                if (dup) continue;
                if (tv_tokvec_push(a, &out, &t)) return TROVE_ENOMEM;
            }
        }
        carry = out.len == first_out ? inc : 0;
    }
    out.trailing = v->trailing + carry;
    *v = out;
    return TROVE_OK;
}

static tv_status condition_build(tv_comp *c, const void **out, tv_error *err) {
    (void)out;
    if (tv_comp_bare(c)) return tv_comp_requires_settings(err);
    size_t tn;
    const char *type = tv_comp_str(c, "type", &tn);
    return tv_error_set(err, TROVE_EUNSUPPORTED,
                        "filter [%s] is not supported: it needs a Painless predicate script, "
                        "which trove does not run in analysis",
                        type ? type : tv_comp_name(c));
}

const tv_filter_type tv_tf_multiplexer = {"multiplexer", mux_build, mux_apply};
const tv_filter_type tv_tf_condition = {"condition", condition_build, NULL};
const tv_filter_type tv_tf_predicate = {"predicate_token_filter", condition_build, NULL};
