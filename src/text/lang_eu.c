/*
 * lang_eu.c — OpenSearch's analyzers for the Latin-script European
 * languages and the components they are made of, each also usable on its
 * own under its OpenSearch name:
 *   analyzers   french german spanish italian portuguese brazilian catalan
 *               galician dutch danish norwegian swedish finnish estonian
 *               hungarian irish basque romanian lithuanian latvian turkish,
 *               and `snowball` (SnowballAnalyzer, `language`)
 *   filters     elision (articles, articles_case), apostrophe,
 *               german_normalization, scandinavian_normalization,
 *               scandinavian_folding, french_stem, dutch_stem, german_stem,
 *               brazilian_stem; the `lowercase` filter's irish and turkish
 *               languages; the `stemmer` filter's table for these languages
 *   word sets   _french_, _german_, ... (Lucene's default stop sets)
 *
 * Each analyzer is the chain Lucene 10's <Lang>Analyzer.createComponents
 * builds (StandardTokenizer, then e.g. elision, lowercase, stop, a
 * SetKeywordMarkerFilter for `stem_exclusion`, the stemmer), configured as
 * OpenSearch's <Lang>AnalyzerProvider does: `stopwords` (list, comma
 * string, named set, `_none_`; `stopwords_case` ignores case),
 * `stem_exclusion` (a list; `_none_`). A language whose default stop list
 * Debian's Lucene 4.10 jar lacks (Estonian, Lithuanian) or whose stemmer
 * libstemmer 2.2 lacks (Estonian) answers 400 naming what is missing.
 *
 * The light/minimal stemmers (lang_romance.c, lang_germanic.c,
 * lang_nordic.c, lang_uralic.c, lang_baltic.c) run over UTF-16 code units
 * like Lucene's (tv_tf_stem16 below converts each term in and out); the
 * Snowball ones go through libstemmer (filters.c). Rejected: porting the
 * light stemmers to UTF-8 directly — their length conditions count UTF-16
 * units, and the conversion is cheap next to the suffix tests.
 */
#include <ctype.h>
#include <pthread.h>
#include <strings.h>
#include <stdio.h>

#include "text/lang_eu.h"

/* ------------------------------------------------------- UTF-16 helpers */

int tv_s16_delete(uint16_t *s, int pos, int len) {
    if (pos < len - 1) memmove(s + pos, s + pos + 1, (size_t)(len - pos - 1) * sizeof *s);
    return len - 1;
}

int tv_s16_insert(uint16_t *s, int pos, int len, uint16_t c) {
    if (pos < len) memmove(s + pos + 1, s + pos, (size_t)(len - pos) * sizeof *s);
    s[pos] = c;
    return len + 1;
}

/* UTF-8 -> UTF-16 into out (room for n units at least); returns units. */
static int to16(const char *t, size_t n, uint16_t *out) {
    const uint8_t *p = (const uint8_t *)t, *e = p + n;
    int k = 0;
    while (p < e) {
        uint32_t cp;
        p += tv_utf8_decode(p, e, &cp);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            out[k++] = (uint16_t)(0xD800 + (cp >> 10));
            out[k++] = (uint16_t)(0xDC00 + (cp & 0x3FF));
        } else {
            out[k++] = (uint16_t)cp;
        }
    }
    return k;
}

/* UTF-16 -> UTF-8 (out: room for 3 bytes a unit); returns bytes. */
static size_t to8(const uint16_t *s, int len, char *out) {
    size_t o = 0;
    for (int i = 0; i < len; i++) {
        uint32_t cp = s[i];
        if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < len && s[i + 1] >= 0xDC00 && s[i + 1] < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (s[i + 1] - 0xDC00);
            i++;
        } else if (cp >= 0xD800 && cp < 0xE000) {
            cp = 0xFFFD;
        }
        o += tv_utf8_encode(cp, (uint8_t *)out + o);
    }
    return o;
}

/* ------------------------------------------------ the UTF-16 stem filter */

static tv_status stem16_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const tv_stem16 *st = cfg;
    uint16_t stack[256];
    /* recent results, by stem function (filters.c's stem memo: a rule set is a pure function) */
    tv_stem_memo *memo = tv_stem_memo_for((const void *)(uintptr_t)st->stem);
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        if (!st->normalizer && (t->flags & TV_TOKF_KEYWORD)) continue;
        int memoized = tv_stem_memo_apply(memo, a, t);
        if (memoized < 0) return TROVE_ENOMEM;
        if (memoized) continue;
        size_t room = 2 * (size_t)t->term_len + TV_STEM16_SLACK;
        uint16_t *s = stack;
        if (room > TV_ARRAY_LEN(stack)) {
            s = tv_arena_alloc(a, room * sizeof *s);
            if (!s) return TROVE_ENOMEM;
        }
        int len = to16(t->term, t->term_len, s);
        uint16_t before[64];
        bool small = len <= (int)TV_ARRAY_LEN(before);
        if (small) memcpy(before, s, (size_t)len * sizeof *s);
        int n = st->stem(s, len);
        if (small && n == len && memcmp(before, s, (size_t)len * sizeof *s) == 0) {
            if (memo) tv_stem_memo_put(memo, t->term, t->term_len, NULL, 0, true);
            continue;
        }
        char *o = tv_arena_alloc(a, (size_t)n * 3 + 1);
        if (!o) return TROVE_ENOMEM;
        size_t bl = to8(s, n, o);
        o[bl] = 0;
        if (memo) tv_stem_memo_put(memo, t->term, t->term_len, o, (uint32_t)bl, false);
        t->term = o;
        t->term_len = (uint32_t)bl;
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_stem16 = {"stem16", NULL, stem16_apply};

/* Filters named by OpenSearch that are one tv_stem16 with no settings. */
#define STEM16_TYPE(id, osname, stemmer)                                          \
    static tv_status build_##id(tv_comp *c, const void **cfg, tv_error *err) {    \
        (void)c;                                                                  \
        (void)err;                                                                \
        *cfg = &(stemmer);                                                        \
        return TROVE_OK;                                                          \
    }                                                                             \
    const tv_filter_type tv_tf_##id = {osname, build_##id, stem16_apply};

STEM16_TYPE(german_normalization, "german_normalization", tv_norm_german)
STEM16_TYPE(scandinavian_normalization, "scandinavian_normalization", tv_norm_scandinavian)
STEM16_TYPE(scandinavian_folding, "scandinavian_folding", tv_fold_scandinavian)
STEM16_TYPE(german_stem, "german_stem", tv_stem_german_old)
STEM16_TYPE(brazilian_stem, "brazilian_stem", tv_stem_brazilian)

/* A core filter definition (a libstemmer stemmer) behind a catalog name. */
static tv_status core_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    return tv_filter_apply(a, cfg, v);
}
static tv_status snowball_def(tv_comp *c, const char *algo, const void **cfg) {
    tv_filter_def *d = tv_comp_alloc(c, sizeof *d);
    if (!d) return TROVE_ENOMEM;
    memset(d, 0, sizeof *d);
    d->kind = TV_TF_SNOWBALL;
    d->algo = tv_stem_algo_find(algo, strlen(algo));
    if (d->algo < 0) return TROVE_EINTERNAL;
    *cfg = d;
    return TROVE_OK;
}
static tv_status build_french_stem(tv_comp *c, const void **cfg, tv_error *err) {
    (void)err;
    return snowball_def(c, "french", cfg);
}
static tv_status build_dutch_stem(tv_comp *c, const void **cfg, tv_error *err) {
    (void)err;
    return snowball_def(c, "dutch", cfg);
}
const tv_filter_type tv_tf_french_stem = {"french_stem", build_french_stem, core_apply};
const tv_filter_type tv_tf_dutch_stem = {"dutch_stem", build_dutch_stem, core_apply};

/* Romanian's Snowball stemmer as Lucene 10 has it: its newer Snowball
 * Romanian is written for the comma-below letters ș ț and reads the
 * cedilla ones ş ţ as those, so both spellings stem alike and the stem
 * comes out with comma-below letters (absenţa -> absenț). libstemmer
 * 2.2's rules use the cedilla letters: the comma-below ones are mapped to
 * them before stemming and every cedilla one to comma-below after
 * (stemmed tokens only; keywords are left as they are). */
static tv_status remap(tv_arena *a, tv_token *t, uint8_t from_lead, uint8_t to_lead, bool to_comma) {
    bool any = false;
    for (uint32_t k = 0; k + 1 < t->term_len && !any; k++) {
        uint8_t b = (uint8_t)t->term[k + 1];
        any = (uint8_t)t->term[k] == from_lead &&
              (to_comma ? (b == 0x9E || b == 0x9F || b == 0xA2 || b == 0xA3) : (b >= 0x98 && b <= 0x9B));
    }
    if (!any) return TROVE_OK;
    char *o = tv_arena_memdup(a, t->term, t->term_len);
    if (!o) return TROVE_ENOMEM;
    /* cedilla Ş ş Ţ ţ = C5 9E/9F/A2/A3; comma-below Ș ș Ț ț = C8 98/99/9A/9B */
    for (uint32_t k = 0; k + 1 < t->term_len; k++) {
        uint8_t b = (uint8_t)o[k + 1];
        if ((uint8_t)o[k] != from_lead) continue;
        int idx = -1;
        if (to_comma) idx = b == 0x9E ? 0 : b == 0x9F ? 1 : b == 0xA2 ? 2 : b == 0xA3 ? 3 : -1;
        else if (b >= 0x98 && b <= 0x9B) idx = b - 0x98;
        if (idx < 0) continue;
        static const uint8_t cedilla[] = {0x9E, 0x9F, 0xA2, 0xA3}, comma[] = {0x98, 0x99, 0x9A, 0x9B};
        o[k] = (char)to_lead;
        o[k + 1] = (char)(to_comma ? comma[idx] : cedilla[idx]);
    }
    t->term = o;
    return TROVE_OK;
}

static tv_status romanian_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    tv_status st;
    for (size_t i = 0; i < v->len; i++)
        if (!(v->items[i].flags & TV_TOKF_KEYWORD) && (st = remap(a, &v->items[i], 0xC8, 0xC5, false)))
            return st;
    if ((st = tv_filter_apply(a, cfg, v))) return st;
    for (size_t i = 0; i < v->len; i++)
        if (!(v->items[i].flags & TV_TOKF_KEYWORD) && (st = remap(a, &v->items[i], 0xC5, 0xC8, true)))
            return st;
    return TROVE_OK;
}
static const tv_filter_type romanian_stem = {"romanian", NULL, romanian_apply};
static tv_filter_def romanian_snowball = {.kind = TV_TF_SNOWBALL, .algo = -1};
static pthread_once_t romanian_once = PTHREAD_ONCE_INIT;
static void romanian_init(void) { romanian_snowball.algo = tv_stem_algo_find("romanian", 8); }
static tv_filter_def romanian_def(void) {
    pthread_once(&romanian_once, romanian_init);
    tv_filter_def d;
    memset(&d, 0, sizeof d);
    d.kind = TV_TF_EXT;
    d.ext = &romanian_stem;
    d.cfg = &romanian_snowball;
    return d;
}

tv_filter_def tv_lang_snowball_def(int algo) {
    if (algo == tv_stem_algo_find("romanian", 8)) return romanian_def();
    tv_filter_def d;
    memset(&d, 0, sizeof d);
    d.kind = TV_TF_SNOWBALL;
    d.algo = algo;
    return d;
}

/* ------------------------------------------------------ word-level filters */

/* ApostropheFilter: the term up to its first ' or U+2019. */
static tv_status apostrophe_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    (void)cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        for (uint32_t k = 0; k < t->term_len; k++) {
            if (t->term[k] == '\'' ||
                (k + 2 < t->term_len && memcmp(t->term + k, "\xE2\x80\x99", 3) == 0)) {
                t->term_len = k;
                break;
            }
        }
    }
    return TROVE_OK;
}
const tv_filter_type tv_tf_apostrophe = {"apostrophe", NULL, apostrophe_apply};

/* ElisionFilter: when the text before the first ' or U+2019 is one of the
 * articles, the term is what follows it. */
static tv_status elision_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    const tv_termset *articles = cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        for (uint32_t k = 0; k < t->term_len; k++) {
            uint32_t w = 0;
            if (t->term[k] == '\'') w = 1;
            else if (k + 2 < t->term_len && memcmp(t->term + k, "\xE2\x80\x99", 3) == 0) w = 3;
            if (!w) continue;
            if (tv_termset_has(articles, t->term, k)) {
                t->term += k + w;
                t->term_len -= k + w;
            }
            break;
        }
    }
    return TROVE_OK;
}

static const char *const fr_articles[] = {"l", "m", "t", "qu", "n", "s", "j", "d", "c",
                                          "jusqu", "quoiqu", "lorsqu", "puisqu"};
static const char *const it_articles[] = {"c", "l", "all", "dall", "dell", "nell", "sull",
                                          "coll", "pell", "gl", "agl", "dagl", "degl", "negl",
                                          "sugl", "un", "m", "t", "s", "v", "d"};
static const char *const ca_articles[] = {"d", "l", "m", "n", "s", "t"};
static const char *const ga_articles[] = {"d", "m", "b"};
static const char *const ga_hyphenations[] = {"h", "n", "t"};

/* A registry-owned set of static words. */
static tv_status words_set(tv_comp *c, const char *const *w, size_t n, bool ignore_case,
                           const tv_termset **out) {
    size_t lens[32];
    for (size_t i = 0; i < n; i++) lens[i] = strlen(w[i]);
    return tv_comp_termset(c, w, lens, n, ignore_case, out);
}
#define WORDS(c, arr, ic, out) words_set((c), (arr), TV_ARRAY_LEN(arr), (ic), (out))

static tv_status build_elision(tv_comp *c, const void **cfg, tv_error *err) {
    const tv_termset *set = NULL;
    tv_status st;
    if (!c->all) { /* by bare name: the pre-configured filter, French articles */
        if ((st = WORDS(c, fr_articles, true, &set))) return st;
        *cfg = set;
        return TROVE_OK;
    }
    bool articles_case;
    if ((st = tv_comp_bool(c, "articles_case", false, &articles_case, err))) return st;
    if ((st = tv_comp_words(c, "articles", NULL, articles_case, &set, err))) return st;
    if (!set)
        return tv_error_set(err, TROVE_EARG,
                            "elision filter requires [articles] or [articles_path] setting");
    *cfg = set;
    return TROVE_OK;
}
const tv_filter_type tv_tf_elision = {"elision", build_elision, elision_apply};

/* SetKeywordMarkerFilter: marks the terms of the set as keywords. */
static tv_status keyword_set_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    for (size_t i = 0; i < v->len; i++)
        if (tv_termset_has(cfg, v->items[i].term, v->items[i].term_len))
            v->items[i].flags |= TV_TOKF_KEYWORD;
    return TROVE_OK;
}
static const tv_filter_type keyword_set = {"keyword_marker", NULL, keyword_set_apply};
tv_filter_def tv_lang_keyword_def(const tv_termset *set) {
    tv_filter_def d;
    memset(&d, 0, sizeof d);
    d.kind = TV_TF_EXT;
    d.ext = &keyword_set;
    d.cfg = set;
    return d;
}

/* DutchAnalyzer's StemmerOverrideFilter over its default dictionary: a
 * term found there becomes its entry and a keyword. */
static tv_status dutch_override_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)a;
    (void)cfg;
    static const struct { const char *from, *to; } dict[] = {
        {"fiets", "fiets"}, {"bromfiets", "bromfiets"}, {"ei", "eier"}, {"kind", "kinder"}};
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        if (t->flags & TV_TOKF_KEYWORD) continue;
        for (size_t k = 0; k < TV_ARRAY_LEN(dict); k++)
            if (tv_streq(t->term, t->term_len, dict[k].from)) {
                t->term = dict[k].to;
                t->term_len = (uint32_t)strlen(dict[k].to);
                t->flags |= TV_TOKF_KEYWORD;
                break;
            }
    }
    return TROVE_OK;
}
static const tv_filter_type dutch_override = {"stemmer_override", NULL, dutch_override_apply};

/* IrishLowerCaseFilter: n/t before an upper-case vowel gets a hyphen
 * (nAthair -> n-athair), then every code point is lower-cased. */
static bool irish_upper_vowel(uint32_t c) {
    switch (c) {
    case 'A': case 'E': case 'I': case 'O': case 'U':
    case 0xC1: case 0xC9: case 0xCD: case 0xD3: case 0xDA: return true;
    default: return false;
    }
}

static tv_status lower_cps(tv_arena *a, tv_token *t, const uint32_t *cp, size_t n) {
    char *o = tv_arena_alloc(a, n * 4 + 1);
    if (!o) return TROVE_ENOMEM;
    size_t bl = 0;
    for (size_t i = 0; i < n; i++) bl += tv_utf8_encode(cp[i], (uint8_t *)o + bl);
    o[bl] = 0;
    t->term = o;
    t->term_len = (uint32_t)bl;
    return TROVE_OK;
}

static tv_status irish_lower_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        uint32_t *cp = tv_arena_alloc(a, ((size_t)t->term_len + 2) * sizeof *cp);
        if (!cp) return TROVE_ENOMEM;
        const uint8_t *p = (const uint8_t *)t->term, *e = p + t->term_len;
        size_t n = 0;
        while (p < e) p += tv_utf8_decode(p, e, &cp[n++]);
        size_t from = 0;
        if (n > 1 && (cp[0] == 'n' || cp[0] == 't') && irish_upper_vowel(cp[1])) {
            memmove(cp + 2, cp + 1, (n - 1) * sizeof *cp);
            cp[1] = '-';
            n++;
            from = 2;
        }
        for (size_t k = from; k < n; k++) cp[k] = tv_uc_lower(cp[k]);
        tv_status st = lower_cps(a, t, cp, n);
        if (st) return st;
    }
    return TROVE_OK;
}
const tv_filter_type tv_tf_irish_lowercase = {"irish_lowercase", NULL, irish_lower_apply};

/* TurkishLowerCaseFilter: I -> ı, I + combining dot above -> i (the dot
 * removed, also after other non-spacing marks), otherwise
 * Character.toLowerCase (İ -> i). */
static bool nsm(uint32_t c) { return c >= 0x300 && (tv_uc_props(c)->flags & TV_UCF_MARK); }

static tv_status turkish_lower_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    (void)cfg;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        uint32_t *cp = tv_arena_alloc(a, ((size_t)t->term_len + 1) * sizeof *cp);
        if (!cp) return TROVE_ENOMEM;
        const uint8_t *p = (const uint8_t *)t->term, *e = p + t->term_len;
        size_t n = 0;
        while (p < e) p += tv_utf8_decode(p, e, &cp[n++]);
        bool after_i = false;
        size_t o = 0;
        for (size_t k = 0; k < n; k++) {
            uint32_t c = cp[k];
            after_i = c == 'I' || (after_i && nsm(c));
            if (after_i) {
                if (c == 0x307) continue; /* removed: the i carries its dot */
                if (c == 'I') {
                    bool dot = false;
                    for (size_t j = k + 1; j < n && nsm(cp[j]); j++)
                        if (cp[j] == 0x307) {
                            dot = true;
                            break;
                        }
                    cp[o++] = dot ? 'i' : 0x131;
                    if (!dot) after_i = false;
                    continue;
                }
            }
            cp[o++] = tv_uc_lower(c);
        }
        tv_status st = lower_cps(a, t, cp, o);
        if (st) return st;
    }
    return TROVE_OK;
}
const tv_filter_type tv_tf_turkish_lowercase = {"turkish_lowercase", NULL, turkish_lower_apply};

/* ------------------------------------------------------------ word sets */

#define STOPSET(id, res, snow)                                                     \
    const tv_termset *tv_stop_##id(void) { return tv_resource_words(res, snow); }
STOPSET(french, "snowball/french_stop.txt", true)
STOPSET(german, "snowball/german_stop.txt", true)
STOPSET(spanish, "snowball/spanish_stop.txt", true)
STOPSET(italian, "snowball/italian_stop.txt", true)
STOPSET(portuguese, "snowball/portuguese_stop.txt", true)
STOPSET(dutch, "snowball/dutch_stop.txt", true)
STOPSET(danish, "snowball/danish_stop.txt", true)
STOPSET(norwegian, "snowball/norwegian_stop.txt", true)
STOPSET(swedish, "snowball/swedish_stop.txt", true)
STOPSET(finnish, "snowball/finnish_stop.txt", true)
STOPSET(hungarian, "snowball/hungarian_stop.txt", true)
STOPSET(brazilian, "br/stopwords.txt", false)
STOPSET(catalan, "ca/stopwords.txt", false)
STOPSET(galician, "gl/stopwords.txt", false)
STOPSET(basque, "eu/stopwords.txt", false)
STOPSET(irish, "ga/stopwords.txt", false)
STOPSET(romanian, "ro/stopwords.txt", false)
STOPSET(latvian, "lv/stopwords.txt", false)
STOPSET(turkish, "tr/stopwords.txt", false)
/* Lucene 10 has et/stopwords.txt and lt/stopwords.txt; Debian's 4.10 jar
 * does not: these answer NULL (the named sets are then unsupported). */
STOPSET(estonian, "et/stopwords.txt", false)
STOPSET(lithuanian, "lt/stopwords.txt", false)

/* ------------------------------------------------------------- analyzers */

enum { PRE_NONE, PRE_ELISION, PRE_IRISH, PRE_TURKISH };
enum { STEM_SNOWBALL, STEM_16, STEM_DUTCH, STEM_NONE };

typedef struct lang_desc {
    const char *name;
    const tv_termset *(*stop)(void);
    const char *stop_file; /* for the error when the list is missing */
    uint8_t pre;
    const char *const *articles;
    size_t narticles;
    uint8_t stem;
    const char *snowball;         /* STEM_SNOWBALL, STEM_DUTCH */
    const tv_stem16 *stem16;      /* STEM_16 */
    const tv_stem16 *norm;        /* a normalizer before the stemmer (German) */
} lang_desc;

static tv_filter_def plain(uint8_t kind) {
    tv_filter_def d;
    memset(&d, 0, sizeof d);
    d.kind = kind;
    return d;
}
static tv_filter_def ext(const tv_filter_type *t, const void *cfg) {
    tv_filter_def d = plain(TV_TF_EXT);
    d.ext = t;
    d.cfg = cfg;
    return d;
}

/* `stem_exclusion`: a list (or comma string) of terms; `_none_`: none. */
static tv_status stem_exclusion(tv_comp *c, const tv_termset **out, tv_error *err) {
    *out = NULL;
    if (!tv_comp_has(c, "stem_exclusion")) return TROVE_OK;
    const tv_termset *s = NULL;
    tv_status st = tv_comp_words(c, "stem_exclusion", NULL, false, &s, err);
    if (st) return st;
    *out = s && s->n ? s : NULL;
    return TROVE_OK;
}

/* `stopwords` (and `stopwords_case`) over the language's default set. */
static tv_status stopwords(tv_comp *c, const lang_desc *d, const tv_termset **out,
                           tv_error *err) {
    bool ignore_case;
    tv_status st = tv_comp_bool(c, "stopwords_case", false, &ignore_case, err);
    if (st) return st;
    const tv_termset *def = d->stop ? d->stop() : NULL;
    if (!def && !tv_comp_has(c, "stopwords"))
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "analyzer [%s]: its default stop words (Lucene's %s) are not "
                            "available",
                            d->name, d->stop_file);
    return tv_comp_words(c, "stopwords", def, ignore_case, out, err);
}

static tv_status push(tv_analyzer_parts *p, tv_filter_def d) {
    if (p->nfilters == TV_PARTS_MAX_FILTERS) return TROVE_ELIMIT;
    p->filters[p->nfilters++] = d;
    return TROVE_OK;
}

static tv_status lang_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err, const lang_desc *d) {
    tv_status st;
    p->tok = (tv_tokenizer_def){.kind = TV_TK_STANDARD, .max_token_length = 255};
    const tv_termset *stop = NULL, *excl = NULL, *arts = NULL;
    if (d->stem == STEM_SNOWBALL && tv_stem_algo_find(d->snowball, strlen(d->snowball)) < 0)
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "analyzer [%s]: the %s Snowball stemmer is not available", d->name,
                            d->snowball);
    if ((st = stopwords(c, d, &stop, err))) return st;
    if ((st = stem_exclusion(c, &excl, err))) return st;
    if (d->narticles && (st = words_set(c, d->articles, d->narticles, true, &arts))) return st;
    if (d->pre == PRE_IRISH) {
        const tv_termset *hy;
        if ((st = WORDS(c, ga_hyphenations, true, &hy))) return st;
        tv_filter_def f = plain(TV_TF_STOP);
        f.stop = hy;
        push(p, f);
    }
    if (arts) push(p, ext(&tv_tf_elision, arts));
    if (d->pre == PRE_TURKISH) {
        push(p, ext(&tv_tf_apostrophe, NULL));
        push(p, ext(&tv_tf_turkish_lowercase, NULL));
    } else if (d->pre == PRE_IRISH) {
        push(p, ext(&tv_tf_irish_lowercase, NULL));
    } else {
        push(p, plain(TV_TF_LOWERCASE));
    }
    if (stop && stop->n) {
        tv_filter_def f = plain(TV_TF_STOP);
        f.stop = stop;
        push(p, f);
    }
    if (excl) push(p, ext(&keyword_set, excl));
    if (d->norm) push(p, tv_stem16_def(d->norm));
    if (d->stem == STEM_DUTCH) push(p, ext(&dutch_override, NULL));
    if (d->stem == STEM_16) {
        push(p, tv_stem16_def(d->stem16));
    } else if (d->stem == STEM_SNOWBALL && strcmp(d->snowball, "romanian") == 0) {
        push(p, romanian_def());
    } else if (d->stem == STEM_SNOWBALL || d->stem == STEM_DUTCH) {
        tv_filter_def f = plain(TV_TF_SNOWBALL);
        f.algo = tv_stem_algo_find(d->snowball, strlen(d->snowball));
        push(p, f);
    }
    return TROVE_OK;
}

#define LANG(id, stopfn, stopfile, pre, arts, narts, stem, sb, s16, norm)                          \
    static const lang_desc desc_##id = {#id, stopfn, stopfile, pre, arts, narts, stem, sb, s16, norm}; \
    static tv_status build_##id(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {         \
        return lang_build(c, p, err, &desc_##id);                                          \
    }                                                                                      \
    const tv_analyzer_type tv_an_##id = {#id, build_##id};

LANG(french, tv_stop_french, "snowball/french_stop.txt", PRE_ELISION, fr_articles, TV_ARRAY_LEN(fr_articles), STEM_16, NULL, &tv_stem_light_french, NULL)
LANG(german, tv_stop_german, "snowball/german_stop.txt", PRE_NONE, NULL, 0, STEM_16, NULL, &tv_stem_light_german, &tv_norm_german)
LANG(spanish, tv_stop_spanish, "snowball/spanish_stop.txt", PRE_NONE, NULL, 0, STEM_16, NULL, &tv_stem_light_spanish, NULL)
LANG(italian, tv_stop_italian, "snowball/italian_stop.txt", PRE_ELISION, it_articles, TV_ARRAY_LEN(it_articles), STEM_16, NULL, &tv_stem_light_italian, NULL)
LANG(portuguese, tv_stop_portuguese, "snowball/portuguese_stop.txt", PRE_NONE, NULL, 0, STEM_16, NULL, &tv_stem_light_portuguese, NULL)
LANG(brazilian, tv_stop_brazilian, "br/stopwords.txt", PRE_NONE, NULL, 0, STEM_16, NULL, &tv_stem_brazilian, NULL)
LANG(galician, tv_stop_galician, "gl/stopwords.txt", PRE_NONE, NULL, 0, STEM_16, NULL, &tv_stem_galician, NULL)
LANG(catalan, tv_stop_catalan, "ca/stopwords.txt", PRE_ELISION, ca_articles, TV_ARRAY_LEN(ca_articles), STEM_SNOWBALL, "catalan", NULL, NULL)
LANG(dutch, tv_stop_dutch, "snowball/dutch_stop.txt", PRE_NONE, NULL, 0, STEM_DUTCH, "dutch", NULL, NULL)
LANG(danish, tv_stop_danish, "snowball/danish_stop.txt", PRE_NONE, NULL, 0, STEM_SNOWBALL, "danish", NULL, NULL)
LANG(norwegian, tv_stop_norwegian, "snowball/norwegian_stop.txt", PRE_NONE, NULL, 0, STEM_SNOWBALL, "norwegian", NULL, NULL)
LANG(swedish, tv_stop_swedish, "snowball/swedish_stop.txt", PRE_NONE, NULL, 0, STEM_SNOWBALL, "swedish", NULL, NULL)
LANG(finnish, tv_stop_finnish, "snowball/finnish_stop.txt", PRE_NONE, NULL, 0, STEM_SNOWBALL, "finnish", NULL, NULL)
LANG(hungarian, tv_stop_hungarian, "snowball/hungarian_stop.txt", PRE_NONE, NULL, 0, STEM_SNOWBALL, "hungarian", NULL, NULL)
LANG(estonian, tv_stop_estonian, "et/stopwords.txt", PRE_NONE, NULL, 0, STEM_SNOWBALL, "estonian", NULL, NULL)
LANG(irish, tv_stop_irish, "ga/stopwords.txt", PRE_IRISH, ga_articles, TV_ARRAY_LEN(ga_articles), STEM_SNOWBALL, "irish", NULL, NULL)
LANG(basque, tv_stop_basque, "eu/stopwords.txt", PRE_NONE, NULL, 0, STEM_SNOWBALL, "basque", NULL, NULL)
LANG(romanian, tv_stop_romanian, "ro/stopwords.txt", PRE_NONE, NULL, 0, STEM_SNOWBALL, "romanian", NULL, NULL)
LANG(lithuanian, tv_stop_lithuanian, "lt/stopwords.txt", PRE_NONE, NULL, 0, STEM_SNOWBALL, "lithuanian", NULL, NULL)
LANG(latvian, tv_stop_latvian, "lv/stopwords.txt", PRE_NONE, NULL, 0, STEM_16, NULL, &tv_stem_latvian, NULL)
LANG(turkish, tv_stop_turkish, "tr/stopwords.txt", PRE_TURKISH, NULL, 0, STEM_SNOWBALL, "turkish", NULL, NULL)

/* ------------------------------------------------------ snowball analyzer */

int tv_lang_snowball(const char *lang, size_t n, tv_error *err) {
    /* Lucene's class names: first letter upper-case, the rest as libstemmer's */
    char low[32];
    if (n == 0 || n >= sizeof low || !(lang[0] >= 'A' && lang[0] <= 'Z')) goto invalid;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && !(lang[i] >= 'a' && lang[i] <= 'z') && !(lang[i] >= '0' && lang[i] <= '9'))
            goto invalid;
        low[i] = (char)tolower((unsigned char)lang[i]);
    }
    low[n] = 0;
    /* Lucene 10 removed Kp and Lovins: its reflection fails on them */
    if (strcmp(low, "kp") == 0 || strcmp(low, "lovins") == 0) goto invalid;
    static const char *const missing[] = {"estonian"};
    for (size_t i = 0; i < TV_ARRAY_LEN(missing); i++)
        if (strcmp(low, missing[i]) == 0) {
            tv_error_set(err, TROVE_EUNSUPPORTED, "snowball language [%.*s] is not supported",
                         (int)n, lang);
            return -1;
        }
    int algo = tv_stem_algo_find(low, n);
    if (algo >= 0) return algo;
invalid:
    tv_error_set(err, TROVE_EARG, "Invalid stemmer class specified: %.*s", (int)n, lang);
    return -1;
}

extern const tv_filter_type tv_tf_german2; /* tf_snowball_compat.c */

static tv_status build_snowball(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    size_t ln;
    const char *lang = tv_comp_str(c, "language", &ln);
    if (!lang) lang = tv_comp_str(c, "name", &ln);
    if (!lang) {
        lang = "English";
        ln = 7;
    }
    /* Lucene 10's German is Snowball's German2 (tf_snowball_compat.c) */
    bool german2 = tv_streq(lang, ln, "German2") || tv_streq(lang, ln, "German");
    int algo = german2 ? 0 : tv_lang_snowball(lang, ln, err);
    if (algo < 0) return err->code;
    const tv_termset *def = NULL;
    if (tv_streq(lang, ln, "English")) def = tv_stop_english();
    else if (tv_streq(lang, ln, "Dutch")) def = tv_stop_dutch();
    else if (german2) def = tv_stop_german();
    bool ignore_case;
    tv_status st = tv_comp_bool(c, "stopwords_case", false, &ignore_case, err);
    if (st) return st;
    const tv_termset *stop = NULL;
    if ((st = tv_comp_words(c, "stopwords", def, ignore_case, &stop, err))) return st;
    p->tok = (tv_tokenizer_def){.kind = TV_TK_STANDARD, .max_token_length = 255};
    if (tv_streq(lang, ln, "Turkish")) push(p, ext(&tv_tf_turkish_lowercase, NULL));
    else push(p, plain(TV_TF_LOWERCASE));
    if (stop && stop->n) {
        tv_filter_def f = plain(TV_TF_STOP);
        f.stop = stop;
        push(p, f);
    }
    if (german2) return push(p, ext(&tv_tf_german2, NULL));
    return push(p, tv_lang_snowball_def(algo));
}
const tv_analyzer_type tv_an_snowball = {"snowball", build_snowball};

/* --------------------------------------------------- the stemmer table */

/* OpenSearch's StemmerTokenFilterFactory names for these languages
 * (compared ignoring case, as it does) and what each runs. */
static const struct {
    const char *names; /* '|'-separated aliases */
    const char *snowball;
    const tv_stem16 *s16;
    const char *missing; /* not available: why */
} stemmers[] = {
    {"basque", "basque", NULL, NULL},
    {"brazilian", NULL, &tv_stem_brazilian, NULL},
    {"catalan", "catalan", NULL, NULL},
    {"danish", "danish", NULL, NULL},
    {"dutch", "dutch", NULL, NULL},
    {"estonian", NULL, NULL, "the Estonian Snowball stemmer is not in libstemmer 2.2"},
    {"finnish", "finnish", NULL, NULL},
    {"light_finish|lightFinish|light_finnish|lightFinnish", NULL, &tv_stem_light_finnish, NULL},
    {"french", "french", NULL, NULL},
    {"light_french|lightFrench", NULL, &tv_stem_light_french, NULL},
    {"minimal_french|minimalFrench", NULL, &tv_stem_minimal_french, NULL},
    {"galician", NULL, &tv_stem_galician, NULL},
    {"minimal_galician", NULL, &tv_stem_minimal_galician, NULL},
    {"german", "german", NULL, NULL},
    {"light_german|lightGerman", NULL, &tv_stem_light_german, NULL},
    {"minimal_german|minimalGerman", NULL, &tv_stem_minimal_german, NULL},
    {"hungarian", "hungarian", NULL, NULL},
    {"light_hungarian|lightHungarian", NULL, &tv_stem_light_hungarian, NULL},
    {"irish", "irish", NULL, NULL},
    {"italian", "italian", NULL, NULL},
    {"light_italian|lightItalian", NULL, &tv_stem_light_italian, NULL},
    {"latvian", NULL, &tv_stem_latvian, NULL},
    {"lithuanian", "lithuanian", NULL, NULL},
    {"norwegian", "norwegian", NULL, NULL},
    {"light_norwegian|lightNorwegian", NULL, &tv_stem_light_norwegian, NULL},
    {"minimal_norwegian", NULL, &tv_stem_minimal_norwegian, NULL},
    {"light_nynorsk|lightNynorsk", NULL, &tv_stem_light_nynorsk, NULL},
    {"minimal_nynorsk|minimalNynorsk", NULL, &tv_stem_minimal_nynorsk, NULL},
    {"portuguese", "portuguese", NULL, NULL},
    {"light_portuguese|lightPortuguese", NULL, &tv_stem_light_portuguese, NULL},
    {"minimal_portuguese|minimalPortuguese", NULL, &tv_stem_minimal_portuguese, NULL},
    {"portuguese_rslp", NULL, &tv_stem_portuguese_rslp, NULL},
    {"romanian", "romanian", NULL, NULL},
    {"spanish", "spanish", NULL, NULL},
    {"light_spanish|lightSpanish", NULL, &tv_stem_light_spanish, NULL},
    {"swedish", "swedish", NULL, NULL},
    {"light_swedish|lightSwedish", NULL, &tv_stem_light_swedish, NULL},
    {"turkish", "turkish", NULL, NULL},
};

static bool alias_match(const char *names, const char *lang, size_t n) {
    for (const char *p = names; *p;) {
        const char *e = strchr(p, '|');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && strncasecmp(p, lang, n) == 0) return true;
        if (!e) break;
        p = e + 1;
    }
    return false;
}

tv_status tv_lang_eu_stemmer(const char *lang, size_t n, tv_filter_def *d, tv_error *err) {
    for (size_t i = 0; i < TV_ARRAY_LEN(stemmers); i++) {
        if (!alias_match(stemmers[i].names, lang, n)) continue;
        memset(d, 0, sizeof *d);
        if (stemmers[i].missing)
            return tv_error_set(err, TROVE_EUNSUPPORTED, "stemmer language [%.*s] is not supported: %s",
                                (int)n, lang, stemmers[i].missing);
        if (stemmers[i].s16) {
            *d = tv_stem16_def(stemmers[i].s16);
            return TROVE_OK;
        }
        if (strcmp(stemmers[i].snowball, "romanian") == 0) {
            *d = romanian_def();
            return TROVE_OK;
        }
        d->kind = TV_TF_SNOWBALL;
        d->algo = tv_stem_algo_find(stemmers[i].snowball, strlen(stemmers[i].snowball));
        return d->algo < 0 ? TROVE_EINTERNAL : TROVE_OK;
    }
    return TROVE_ENOTFOUND;
}
