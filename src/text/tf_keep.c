/*
 * tf_keep.c — `keep` (Lucene's KeepWordFilter: only terms of `keep_words`,
 * case-insensitively when keep_words_case is true) and `keep_types`
 * (Lucene's TypeTokenFilter: only tokens whose type is in `types`, or only
 * those that are not with mode exclude). Both are FilteringTokenFilters: a
 * removed token's position increment moves to the next kept one.
 *
 * Types are compared by their names ("<ALPHANUM>", "word"), a linear scan
 * of the few configured; rejected: mapping names to tv_token_type values
 * once, which would drop names trove has no value for yet (they can still
 * never match, and the scan costs nothing measurable).
 */
#include "text/text_int.h"

/* Keeps the tokens keep() accepts, moving increments of removed ones. */
static void filter_tokens(tv_tokvec *v, bool (*keep)(const void *, const tv_token *),
                          const void *cfg) {
    size_t o = 0;
    uint32_t carry = 0;
    for (size_t i = 0; i < v->len; i++) {
        tv_token t = v->items[i];
        if (!keep(cfg, &t)) {
            carry += t.position;
            continue;
        }
        t.position += carry;
        carry = 0;
        v->items[o++] = t;
    }
    v->len = o;
    v->trailing += carry;
}

typedef struct keep_cfg {
    const tv_termset *words;
} keep_cfg;

static tv_status keep_build(tv_comp *c, const void **out, tv_error *err) {
    if (tv_comp_bare(c)) return tv_comp_requires_settings(err);
    bool has = tv_comp_has(c, "keep_words"), has_path = tv_comp_has(c, "keep_words_path");
    if (has == has_path)
        return tv_error_set(err, TROVE_EARG,
                            "keep requires either `keep_words` or `keep_words_path` to be configured");
    if (tv_comp_has(c, "enable_position_increments"))
        return tv_error_set(err, TROVE_EARG,
                            "enable_position_increments is not supported anymore. Please fix your "
                            "analysis chain");
    bool ignore_case;
    tv_status st = tv_comp_bool(c, "keep_words_case", false, &ignore_case, err);
    if (st) return st;
    keep_cfg *k = tv_comp_alloc(c, sizeof *k);
    if (!k) return TROVE_ENOMEM;
    if ((st = tv_comp_words(c, "keep_words", NULL, ignore_case, &k->words, err))) return st;
    if (!k->words && (st = tv_comp_termset(c, NULL, NULL, 0, ignore_case, &k->words))) return st;
    *out = k;
    return TROVE_OK;
}

static bool keep_word(const void *cfg, const tv_token *t) {
    return tv_termset_has(((const keep_cfg *)cfg)->words, t->term, t->term_len);
}

static tv_status keep_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    filter_tokens(v, keep_word, cfg);
    return TROVE_OK;
}

/* Whether [s, s+n) lower-cased (ASCII) is lit. */
static bool eq_lower(const char *s, size_t n, const char *lit) {
    if (strlen(lit) != n) return false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
        if (ch != lit[i]) return false;
    }
    return true;
}

typedef struct types_cfg {
    const char **types;
    size_t n;
    bool include;
} types_cfg;

static tv_status types_build(tv_comp *c, const void **out, tv_error *err) {
    if (tv_comp_bare(c)) return tv_comp_requires_settings(err);
    if (!tv_comp_has(c, "types"))
        return tv_error_set(err, TROVE_EARG, "keep_types requires `types` to be configured");
    types_cfg *k = tv_comp_alloc(c, sizeof *k);
    if (!k) return TROVE_ENOMEM;
    size_t ml;
    const char *mode = tv_comp_str(c, "mode", &ml);
    if (!mode || eq_lower(mode, ml, "include")) k->include = true;
    else if (eq_lower(mode, ml, "exclude")) k->include = false;
    else
        return tv_error_set(err, TROVE_EARG,
                            "`keep_types` tokenfilter mode can only be [include] or [exclude] but "
                            "was [%s].",
                            mode);
    const char *const *vals;
    const size_t *lens;
    tv_comp_list(c, "types", &vals, &lens, &k->n);
    k->types = tv_comp_alloc(c, (k->n ? k->n : 1) * sizeof *k->types);
    if (!k->types) return TROVE_ENOMEM;
    for (size_t i = 0; i < k->n; i++)
        if (!(k->types[i] = tv_comp_strdup(c, vals[i], lens[i]))) return TROVE_ENOMEM;
    *out = k;
    return TROVE_OK;
}

static bool keep_type(const void *cfg, const tv_token *t) {
    const types_cfg *k = cfg;
    const char *name = tv_token_type_name(t->type);
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->types[i], name) == 0) return k->include;
    return !k->include;
}

static tv_status types_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    filter_tokens(v, keep_type, cfg);
    return TROVE_OK;
}

const tv_filter_type tv_tf_keep = {"keep", keep_build, keep_apply};
const tv_filter_type tv_tf_keep_types = {"keep_types", types_build, types_apply};
