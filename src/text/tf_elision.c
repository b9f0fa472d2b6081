/*
 * tf_elision.c — `elision` (Lucene's ElisionFilter) and `apostrophe`
 * (Lucene's ApostropheFilter).
 *
 * elision: when the part of a term before its first apostrophe (' or
 * U+2019) is one of `articles` (required; articles_case: compared
 * ignoring case), the term becomes what follows the apostrophe.
 * apostrophe: a term is cut at its first apostrophe, which goes too.
 * Language analyzers that need French or Italian defaults give their own
 * article set to the same code path through tv_comp_words' sets.
 */
#include "text/text_int.h"

/* Byte offset of the first ' or ’ in [s, s+n), n if none. */
static size_t apostrophe_at(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'') return i;
        if ((uint8_t)s[i] == 0xE2 && i + 2 < n && (uint8_t)s[i + 1] == 0x80 &&
            (uint8_t)s[i + 2] == 0x99)
            return i;
    }
    return n;
}

/* The pre-configured `elision` (by bare name): FrenchAnalyzer's default
 * articles, ignoring case. */
static const char *const french_articles[] = {"l", "m", "t", "qu", "n", "s", "j", "d", "c",
                                              "jusqu", "quoiqu", "lorsqu", "puisqu"};

typedef struct elision_cfg {
    const tv_termset *articles;
} elision_cfg;

static tv_status elision_build(tv_comp *c, const void **out, tv_error *err) {
    bool ignore_case;
    tv_status st = tv_comp_bool(c, "articles_case", false, &ignore_case, err);
    if (st) return st;
    elision_cfg *e = tv_comp_alloc(c, sizeof *e);
    if (!e) return TROVE_ENOMEM;
    if (tv_comp_bare(c)) {
        size_t lens[TV_ARRAY_LEN(french_articles)];
        for (size_t i = 0; i < TV_ARRAY_LEN(french_articles); i++) lens[i] = strlen(french_articles[i]);
        if ((st = tv_comp_termset(c, french_articles, lens, TV_ARRAY_LEN(french_articles), true,
                                  &e->articles)))
            return st;
        *out = e;
        return TROVE_OK;
    }
    if ((st = tv_comp_words(c, "articles", NULL, ignore_case, &e->articles, err))) return st;
    if (!e->articles)
        return tv_error_set(err, TROVE_EARG, "elision filter requires [articles] or [articles_path] setting");
    *out = e;
    return TROVE_OK;
}

static tv_status elision_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    const elision_cfg *e = cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        size_t k = apostrophe_at(t->term, t->term_len);
        if (k == t->term_len || !tv_termset_has(e->articles, t->term, k)) continue;
        size_t skip = t->term[k] == '\'' ? 1 : 3;
        t->term += k + skip;
        t->term_len -= (uint32_t)(k + skip);
    }
    return TROVE_OK;
}

static tv_status apostrophe_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    (void)cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        t->term_len = (uint32_t)apostrophe_at(t->term, t->term_len);
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_elision = {"elision", elision_build, elision_apply};
const tv_filter_type tv_tf_apostrophe = {"apostrophe", NULL, apostrophe_apply};
