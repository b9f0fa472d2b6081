/*
 * lang_common.c — what the language files share (lang_int.h): running a
 * Lucene-style stemmer or normalizer over a term's UTF-16 code units, the
 * keyword marker that stem_exclusion adds (SetKeywordMarkerFilter), the
 * pieces every language
 * analyzer assembles (standard tokenizer, stop words, stem exclusions),
 * the languages' named stop sets, and the `stemmer` filter's language
 * names that are rule sets of these files rather than Snowball.
 *
 * Lucene's stemmers count and index UTF-16 units (a rule "len > 5" means
 * six units), so they run here over a UTF-16 copy of the term, exactly as
 * written against char[]; terms are re-encoded only when a rule changed
 * them. Rejected: rewriting each rule over UTF-8 bytes (every length test
 * and index would need translating, and a slip changes which words stem).
 */
#include <stdio.h>

#include "text/lang_int.h"

/* --------------------------------------------------------- UTF-16 runs */

int tv_u16_del(char16_t *s, int pos, int len) {
    if (pos < len - 1) memmove(s + pos, s + pos + 1, (size_t)(len - pos - 1) * sizeof *s);
    return len - 1;
}

int tv_u16_deln(char16_t *s, int pos, int len, int n) {
    if (pos + n < len) memmove(s + pos, s + pos + n, (size_t)(len - pos - n) * sizeof *s);
    return len - n;
}

tv_status tv_lang_u16_apply(tv_arena *a, tv_tokvec *v, bool skip_keyword, tv_u16_rule fn,
                            const void *cfg) {
    char16_t stackbuf[128], orig_stack[128];
    /* recent results, by rule (filters.c's stem memo); only a rule without
     * configuration is a function of the term alone */
    tv_stem_memo *memo = cfg ? NULL : tv_stem_memo_for((const void *)(uintptr_t)fn);
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        if (skip_keyword && (t->flags & TV_TOKF_KEYWORD)) continue;
        int memoized = tv_stem_memo_apply(memo, a, t);
        if (memoized < 0) return TROVE_ENOMEM;
        if (memoized) continue;
        int cap = (int)t->term_len + 16; /* UTF-16 units never exceed UTF-8 bytes; room to grow */
        char16_t *s = stackbuf, *orig = orig_stack;
        if (cap > (int)TV_ARRAY_LEN(stackbuf)) {
            s = tv_arena_alloc(a, (size_t)cap * 2 * sizeof *s);
            if (!s) return TROVE_ENOMEM;
            orig = s + cap;
        }
        const uint8_t *p = (const uint8_t *)t->term, *end = p + t->term_len;
        int len = 0;
        while (p < end) {
            uint32_t cp;
            p += tv_utf8_decode(p, end, &cp);
            if (cp >= 0x10000) {
                cp -= 0x10000;
                s[len++] = (char16_t)(0xD800 + (cp >> 10));
                s[len++] = (char16_t)(0xDC00 + (cp & 0x3FF));
            } else {
                s[len++] = (char16_t)cp;
            }
        }
        memcpy(orig, s, (size_t)len * sizeof *s);
        int n = fn(cfg, s, len, cap);
        if (n == len && memcmp(orig, s, (size_t)len * sizeof *s) == 0) {
            if (memo) tv_stem_memo_put(memo, t->term, t->term_len, NULL, 0, true);
            continue;
        }
        char *o = tv_arena_alloc(a, (size_t)n * 3 + 1);
        if (!o) return TROVE_ENOMEM;
        size_t w = 0;
        for (int k = 0; k < n; k++) {
            uint32_t cp = s[k];
            if (cp >= 0xD800 && cp < 0xDC00 && k + 1 < n && s[k + 1] >= 0xDC00 && s[k + 1] < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (s[k + 1] - 0xDC00);
                k++;
            } else if (cp >= 0xD800 && cp < 0xE000) {
                cp = 0xFFFD; /* a lone surrogate: not representable in UTF-8 */
            }
            w += tv_utf8_encode(cp, (uint8_t *)o + w);
        }
        o[w] = 0;
        if (memo) tv_stem_memo_put(memo, t->term, t->term_len, o, (uint32_t)w, false);
        t->term = o;
        t->term_len = (uint32_t)w;
    }
    return TROVE_OK;
}

/* ------------------------------------------------------ keyword marker */

static tv_status marker_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    const tv_termset *set = cfg;
    for (size_t i = 0; i < v->len; i++)
        if (tv_termset_has(set, v->items[i].term, v->items[i].term_len))
            v->items[i].flags |= TV_TOKF_KEYWORD;
    return TROVE_OK;
}

const tv_filter_type tv_lang_keyword_marker = {"(stem_exclusion)", NULL, marker_apply};


/* ------------------------------------------------------ analyzer parts */

void tv_lang_add(tv_analyzer_parts *p, const tv_filter_def *d) {
    if (p->nfilters < TV_PARTS_MAX_FILTERS) p->filters[p->nfilters++] = *d;
}

void tv_lang_add_core(tv_analyzer_parts *p, uint8_t kind) {
    tv_filter_def d = {.kind = kind};
    tv_lang_add(p, &d);
}

void tv_lang_add_ext(tv_analyzer_parts *p, const tv_filter_type *t, const void *cfg) {
    tv_filter_def d = {.kind = TV_TF_EXT, .ext = t, .cfg = cfg};
    tv_lang_add(p, &d);
}

void tv_lang_add_snowball(tv_analyzer_parts *p, const char *algo) {
    tv_filter_def d = {.kind = TV_TF_SNOWBALL, .algo = tv_stem_algo_find(algo, strlen(algo))};
    tv_lang_add(p, &d);
}

void tv_lang_standard(tv_analyzer_parts *p) {
    p->tok = (tv_tokenizer_def){.kind = TV_TK_STANDARD, .max_token_length = 255};
}

tv_status tv_lang_stop(tv_comp *c, tv_analyzer_parts *p, const tv_termset *def,
                       const char *missing, tv_error *err) {
    bool ignore_case;
    tv_status st = tv_comp_bool(c, "stopwords_case", false, &ignore_case, err);
    if (st) return st;
    if (!def && !tv_comp_has(c, "stopwords"))
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "analyzer [%s] needs the stop word list [%s], which this build lacks: "
                            "set [stopwords]",
                            c->name, missing);
    const tv_termset *ts = NULL;
    if ((st = tv_comp_words(c, "stopwords", def, ignore_case, &ts, err))) return st;
    if (ts && ts->n) {
        tv_filter_def d = {.kind = TV_TF_STOP, .stop = ts};
        tv_lang_add(p, &d);
    }
    return TROVE_OK;
}

tv_status tv_lang_exclusion(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    const tv_termset *ts = NULL;
    tv_status st = tv_comp_words(c, "stem_exclusion", NULL, false, &ts, err);
    if (st) return st;
    if (ts && ts->n) tv_lang_add_ext(p, &tv_lang_keyword_marker, ts);
    return TROVE_OK;
}

/* -------------------------------------------------------- named sets */

#define WORDS(fn, file, snowball) \
    const tv_termset *fn(void) { return tv_resource_words(file, snowball); }
WORDS(tv_words_arabic, "ar/stopwords.txt", false)
WORDS(tv_words_armenian, "hy/stopwords.txt", false)
WORDS(tv_words_bengali, "bn/stopwords.txt", false) /* Lucene 8+ (gen_resources.py) */
WORDS(tv_words_bulgarian, "bg/stopwords.txt", false)
WORDS(tv_words_cjk, "cjk/stopwords.txt", false)
WORDS(tv_words_czech, "cz/stopwords.txt", false)
WORDS(tv_words_greek, "el/stopwords.txt", false)
WORDS(tv_words_hindi, "hi/stopwords.txt", false)
WORDS(tv_words_indonesian, "id/stopwords.txt", false)
WORDS(tv_words_persian, "fa/stopwords.txt", false)
WORDS(tv_words_russian, "snowball/russian_stop.txt", true)
WORDS(tv_words_sorani, "ckb/stopwords.txt", false)
WORDS(tv_words_thai, "th/stopwords.txt", false)

/* --------------------------------------------- `stemmer` language names */

extern const tv_filter_type tv_tf_arabic_stem, tv_tf_bengali_stem, tv_tf_bulgarian_stem,
    tv_tf_czech_stem, tv_tf_greek_stem, tv_tf_hindi_stem, tv_tf_indonesian_stem,
    tv_tf_sorani_stem, tv_tf_light_russian, tv_tf_kstem, tv_tf_german2, tv_tf_stemmer_removed;

const tv_filter_type *tv_lang_stemmer(const char *lang, size_t len) {
    static const struct {
        const char *name;
        const tv_filter_type *type;
    } m[] = {{"arabic", &tv_tf_arabic_stem},       {"bengali", &tv_tf_bengali_stem},
             {"bulgarian", &tv_tf_bulgarian_stem}, {"czech", &tv_tf_czech_stem},
             {"greek", &tv_tf_greek_stem},         {"hindi", &tv_tf_hindi_stem},
             {"indonesian", &tv_tf_indonesian_stem}, {"sorani", &tv_tf_sorani_stem},
             {"light_russian", &tv_tf_light_russian}, {"lightrussian", &tv_tf_light_russian},
             /* tf_kstem.c, tf_snowball_compat.c */
             {"light_english", &tv_tf_kstem}, {"lightenglish", &tv_tf_kstem}, {"kstem", &tv_tf_kstem},
             /* Lucene 10's German is German2 (tf_snowball_compat.c) */
             {"german", &tv_tf_german2}, {"german2", &tv_tf_german2},
             {"dutch_kp", &tv_tf_stemmer_removed},
             {"dutchkp", &tv_tf_stemmer_removed}, {"kp", &tv_tf_stemmer_removed},
             {"lovins", &tv_tf_stemmer_removed}};
    for (size_t i = 0; i < TV_ARRAY_LEN(m); i++) {
        size_t n = strlen(m[i].name);
        if (n != len) continue;
        size_t k = 0; /* equalsIgnoreCase, over ASCII names */
        while (k < n && (lang[k] >= 'A' && lang[k] <= 'Z' ? lang[k] + 32 : lang[k]) == m[i].name[k])
            k++;
        if (k == n) return m[i].type;
    }
    return NULL;
}

extern const tv_filter_type tv_tf_greek_lowercase;

const tv_filter_type *tv_lang_lowercase(const char *lang, size_t len) {
    return tv_streq(lang, len, "greek") ? &tv_tf_greek_lowercase : NULL;
}
