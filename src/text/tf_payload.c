/*
 * tf_payload.c — `delimited_payload` (Lucene's DelimitedPayloadTokenFilter:
 * a term "word|1.5" becomes "word", the rest its payload, encoded as
 * `encoding` float (default), int or identity) and `delimited_termfreq`
 * (Lucene's DelimitedTermFrequencyTokenFilter: "word|3" becomes "word"
 * with term frequency 3). trove keeps neither payloads nor custom term
 * frequencies, and _analyze shows neither: the filters parse their
 * settings as OpenSearch does and strip what follows the first delimiter.
 */
#include "text/text_int.h"

typedef struct delim_cfg {
    char delim[5]; /* one code point, UTF-8 */
    uint32_t len;
} delim_cfg;

static void set_delim(delim_cfg *d, const char *s, size_t n) {
    if (!s || !n) {
        s = "|";
        n = 1;
    }
    uint32_t cp;
    size_t k = tv_utf8_decode((const uint8_t *)s, (const uint8_t *)s + n, &cp);
    memcpy(d->delim, s, k);
    d->len = (uint32_t)k;
}

static tv_status payload_build(tv_comp *c, const void **out, tv_error *err) {
    (void)err;
    delim_cfg *d = tv_comp_alloc(c, sizeof *d);
    if (!d) return TROVE_ENOMEM;
    size_t n;
    const char *s = tv_comp_str(c, "delimiter", &n);
    set_delim(d, s, s ? n : 0); /* its first char */
    /* encoding: float, int, identity; anything else is the default (float) */
    *out = d;
    return TROVE_OK;
}

static tv_status tf_build(tv_comp *c, const void **out, tv_error *err) {
    delim_cfg *d = tv_comp_alloc(c, sizeof *d);
    if (!d) return TROVE_ENOMEM;
    size_t n;
    const char *s = tv_comp_str(c, "delimiter", &n);
    if (s && tv_utf16_len(s, n) != 1)
        return tv_error_set(err, TROVE_EARG,
                            "Setting [delimiter] must be a single, non-null character. [%s] was provided.",
                            s);
    set_delim(d, s, s ? n : 0);
    *out = d;
    return TROVE_OK;
}

static tv_status strip_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    const delim_cfg *d = cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        for (uint32_t k = 0; k + d->len <= t->term_len; k++)
            if (memcmp(t->term + k, d->delim, d->len) == 0) {
                t->term_len = k;
                break;
            }
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_delimited_payload = {"delimited_payload", payload_build, strip_apply};
const tv_filter_type tv_tf_delimited_term_freq = {"delimited_termfreq", tf_build, strip_apply};
