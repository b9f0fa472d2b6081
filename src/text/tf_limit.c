/*
 * tf_limit.c — filters that cut: `truncate` (Lucene's TruncateTokenFilter:
 * terms longer than `length` UTF-16 units cut to it, keyword-marked tokens
 * left alone; OpenSearch requires length > 0) and `limit` (Lucene's
 * LimitTokenCountFilter: the first max_token_count tokens, 1 by default;
 * consume_all_tokens only changes how much of the input Lucene reads,
 * which the tokens do not show).
 *
 * A cut never splits a code point: when `length` falls between the two
 * halves of a surrogate pair, the whole pair goes (Lucene keeps a lone
 * high surrogate, which no UTF-8 output can carry). Rejected: cutting by
 * bytes or code points, which differ from Lucene as soon as a term is not
 * ASCII.
 */
#include "text/text_int.h"

typedef struct truncate_cfg {
    uint32_t length;
} truncate_cfg;

static tv_status truncate_build(tv_comp *c, const void **out, tv_error *err) {
    int64_t n;
    /* by bare name, the pre-configured truncate: 10 */
    tv_status st = tv_comp_int(c, "length", tv_comp_bare(c) ? 10 : -1, &n, err);
    if (st) return st;
    if (n <= 0) return tv_error_set(err, TROVE_EARG, "length parameter must be provided");
    truncate_cfg *t = tv_comp_alloc(c, sizeof *t);
    if (!t) return TROVE_ENOMEM;
    t->length = (uint32_t)n;
    *out = t;
    return TROVE_OK;
}

static tv_status truncate_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    uint32_t max = ((const truncate_cfg *)cfg)->length;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        if ((t->flags & TV_TOKF_KEYWORD) || t->term_len <= max) continue;
        const uint8_t *s = (const uint8_t *)t->term, *end = s + t->term_len, *q = s;
        uint32_t u16 = 0;
        while (q < end) {
            uint32_t cp;
            size_t k = tv_utf8_decode(q, end, &cp);
            uint32_t w = cp >= 0x10000 ? 2 : 1;
            if (u16 + w > max) break;
            u16 += w;
            q += k;
        }
        t->term_len = (uint32_t)(q - s);
    }
    return TROVE_OK;
}

typedef struct limit_cfg {
    int64_t max;
} limit_cfg;

static tv_status limit_build(tv_comp *c, const void **out, tv_error *err) {
    limit_cfg *l = tv_comp_alloc(c, sizeof *l);
    if (!l) return TROVE_ENOMEM;
    bool all;
    tv_status st = tv_comp_int(c, "max_token_count", 1, &l->max, err);
    if (!st) st = tv_comp_bool(c, "consume_all_tokens", false, &all, err);
    if (st) return st;
    if (l->max < 1) /* the Lucene filter's constructor */
        return tv_error_set(err, TROVE_EARG, "maxTokenCount must be greater than zero");
    *out = l;
    return TROVE_OK;
}

static tv_status limit_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    int64_t max = ((const limit_cfg *)cfg)->max;
    if ((uint64_t)max < v->len) v->len = (size_t)max;
    return TROVE_OK;
}

const tv_filter_type tv_tf_truncate = {"truncate", truncate_build, truncate_apply};
const tv_filter_type tv_tf_limit = {"limit", limit_build, limit_apply};
