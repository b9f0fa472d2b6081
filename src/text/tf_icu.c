/*
 * tf_icu.c — the analysis-icu plugin's normalizers and transforms, through
 * Debian's ICU (libicu):
 *   icu_normalizer (token filter)  ICUNormalizer2Filter: a term that does
 *                  not pass the normalizer's quick check is normalized
 *   icu_normalizer (char filter)   ICUNormalizer2CharFilter: the text is
 *                  normalized segment by segment (a segment ends before a
 *                  code point with a normalization boundary before it);
 *                  a segment whose length changes records its offset
 *                  correction as recordOffsetDiff does (in UTF-16 units,
 *                  turned into byte corrections)
 *   icu_transform  ICUTransformFilter: each term through a transliterator
 *   icu_folding    ICUFoldingFilter: icu_normalizer's filter over
 *                  Lucene's UTR #30 folding data (utr30.nrm, rebuilt for
 *                  this ICU at build time by gen_utr30.py and registered
 *                  as the ICU package "trovefold")
 *   icu_analyzer   IcuAnalyzerProvider: the icu_normalizer char filter
 *                  (`method`, default nfkc_cf, `mode`, unicode_set_filter),
 *                  icu_tokenizer (tok_icu.c), icu_folding
 * Settings as OpenSearch's factories read them: `name` (nfc, nfkc,
 * nfkc_cf — the default — ...), the char filter's `mode` (compose, or
 * decompose; anything else is compose), `unicode_set_filter` (a
 * FilteredNormalizer2; the deprecated `unicodeSetFilter` wins when both
 * are set, as wrapWithUnicodeSetFilter reads them), the transform's `id`
 * (default "Null") and `dir` (forward, or reverse for anything else).
 *
 * Normalizer2 instances are ICU's immutable singletons, safe from any
 * thread; filtered ones and transliterators are owned by the registry
 * (tv_comp_on_free). A transliterator keeps state while it runs, so each
 * carries a mutex; rejected: a clone per term (an allocation per token on
 * the indexing path). Built without ICU, every name here answers 400
 * naming itself; so do icu_folding and icu_analyzer when the build had
 * no gennorm2/icupkg (icu-devtools) to rebuild the folding data.
 */
#include "text/text_int.h"

#ifdef TROVE_HAVE_ICU
#include <pthread.h>
#include <unicode/unorm2.h>
#include <unicode/uset.h>
#include <unicode/ustring.h>
#include <unicode/utrans.h>

typedef struct norm_cfg {
    const UNormalizer2 *norm;
} norm_cfg;

static void close_norm(void *p) { unorm2_close((UNormalizer2 *)p); }
static void close_set(void *p) { uset_close((USet *)p); }

/* UTF-8 -> UTF-16 in the arena (invalid bytes as U+FFFD). NULL on OOM. */
static UChar *to_u16(tv_arena *a, const char *s, size_t n, int32_t *outn) {
    UChar *u = tv_arena_alloc(a, (n + 1) * sizeof *u);
    if (!u) return NULL;
    int32_t k = 0;
    const uint8_t *p = (const uint8_t *)s, *end = p + n;
    while (p < end) {
        uint32_t cp;
        p += tv_utf8_decode(p, end, &cp);
        if (cp >= 0x10000) {
            u[k++] = (UChar)(0xD800 + ((cp - 0x10000) >> 10));
            u[k++] = (UChar)(0xDC00 + ((cp - 0x10000) & 0x3FF));
        } else {
            u[k++] = (UChar)cp;
        }
    }
    *outn = k;
    return u;
}

/* UTF-16 -> UTF-8 appended to b. */
static void from_u16(tv_buf *b, const UChar *u, int32_t n) {
    for (int32_t i = 0; i < n; i++) {
        uint32_t cp = u[i];
        if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < n && u[i + 1] >= 0xDC00 && u[i + 1] < 0xE000)
            cp = 0x10000 + ((cp - 0xD800) << 10) + (u[++i] - 0xDC00);
        else if (cp >= 0xD800 && cp < 0xE000)
            cp = 0xFFFD;
        uint8_t e[4];
        tv_buf_append(b, e, tv_utf8_encode(cp, e));
    }
}

/* Normalizes u[0..n) into the arena; *outn its length. NULL on error. */
static UChar *normalize(tv_arena *a, const UNormalizer2 *nz, const UChar *u, int32_t n,
                        int32_t *outn) {
    int32_t cap = n * 3 + 16;
    for (int attempt = 0; attempt < 2; attempt++) {
        UChar *d = tv_arena_alloc(a, (size_t)cap * sizeof *d);
        if (!d) return NULL;
        UErrorCode e = U_ZERO_ERROR;
        int32_t k = unorm2_normalize(nz, u, n, d, cap, &e);
        if (U_SUCCESS(e)) {
            *outn = k;
            return d;
        }
        if (e != U_BUFFER_OVERFLOW_ERROR) return NULL;
        cap = k + 1;
    }
    return NULL;
}

/* IcuNormalizerTokenFilterFactory.wrapWithUnicodeSetFilter: nz filtered
 * by the component's unicode set, if it has one. */
static tv_status wrap_set(tv_comp *c, const UNormalizer2 **nzp, tv_error *err) {
    const UNormalizer2 *nz = *nzp;
    UErrorCode e = U_ZERO_ERROR;
    size_t sl = 0;
    const char *set = tv_comp_str(c, "unicodeSetFilter", &sl);
    if (!set) set = tv_comp_str(c, "unicode_set_filter", &sl);
    if (set) {
        int32_t un = 0;
        tv_arena a;
        tv_arena_init(&a);
        UChar *u = to_u16(&a, set, sl, &un);
        USet *us = u ? uset_openPattern(u, un, &e) : NULL;
        tv_arena_fini(&a);
        if (!u) return TROVE_ENOMEM;
        if (U_FAILURE(e) || !us) {
            if (us) uset_close(us);
            return tv_error_set(err, TROVE_EARG, "Error in unicode_set_filter [%.*s]: %s", (int)sl,
                                set, u_errorName(e));
        }
        uset_freeze(us);
        tv_status st = tv_comp_on_free(c, close_set, us);
        if (st) return st;
        const UNormalizer2 *f = unorm2_openFiltered(nz, us, &e);
        if (U_FAILURE(e) || !f) return tv_error_set(err, TROVE_EARG, "%s", u_errorName(e));
        if ((st = tv_comp_on_free(c, close_norm, (void *)f))) return st;
        *nzp = f;
    }
    return TROVE_OK;
}

/* A normalizer by ICU name ("nfkc_cf", ...); NULL name: nfkc_cf. */
static tv_status norm_instance(const char *name, size_t nl, bool decompose,
                               const UNormalizer2 **out, tv_error *err) {
    char namez[64] = "nfkc_cf";
    if (name) {
        if (nl >= sizeof namez)
            return tv_error_set(err, TROVE_EARG, "Invalid normalizer name [%.*s]", (int)nl, name);
        memcpy(namez, name, nl);
        namez[nl] = 0;
    }
    UErrorCode e = U_ZERO_ERROR;
    *out = unorm2_getInstance(NULL, namez, decompose ? UNORM2_DECOMPOSE : UNORM2_COMPOSE, &e);
    if (U_FAILURE(e) || !*out)
        return tv_error_set(err, TROVE_EARG, "Invalid normalizer name [%s]: %s", namez,
                            u_errorName(e));
    return TROVE_OK;
}

static tv_status norm_build(tv_comp *c, bool char_filter, const void **out, tv_error *err) {
    size_t nl = 0, ml = 0;
    const char *name = tv_comp_str(c, "name", &nl);
    const char *mode = char_filter ? tv_comp_str(c, "mode", &ml) : NULL;
    bool decompose = mode && tv_streq(mode, ml, "decompose");
    const UNormalizer2 *nz = NULL;
    tv_status st = norm_instance(name, nl, decompose, &nz, err);
    if (st || (st = wrap_set(c, &nz, err))) return st;
    norm_cfg *cfg = tv_comp_alloc(c, sizeof *cfg);
    if (!cfg) return TROVE_ENOMEM;
    cfg->norm = nz;
    *out = cfg;
    return TROVE_OK;
}

static tv_status norm_filter_build(tv_comp *c, const void **out, tv_error *err) {
    return norm_build(c, false, out, err);
}
static tv_status norm_cf_build(tv_comp *c, const void **out, tv_error *err) {
    return norm_build(c, true, out, err);
}

static tv_status norm_apply(tv_arena *a, const void *cfg_, tv_tokvec *v) {
    const norm_cfg *cfg = cfg_;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        int32_t n, k;
        UChar *u = to_u16(a, t->term, t->term_len, &n);
        if (!u) return TROVE_ENOMEM;
        UErrorCode e = U_ZERO_ERROR;
        if (unorm2_quickCheck(cfg->norm, u, n, &e) == UNORM_YES && U_SUCCESS(e)) continue;
        UChar *d = normalize(a, cfg->norm, u, n, &k);
        if (!d) return TROVE_ENOMEM;
        tv_buf b;
        tv_buf_init(&b);
        from_u16(&b, d, k);
        char *o = b.oom ? NULL : tv_arena_memdup(a, b.data ? b.data : "", b.len);
        size_t ol = b.len;
        tv_buf_fini(&b);
        if (!o) return TROVE_ENOMEM;
        t->term = o;
        t->term_len = (uint32_t)ol;
    }
    return TROVE_OK;
}

static tv_status norm_cf_run(tv_arena *a, const void *cfg_, const char *in, size_t len,
                             tv_cfout *out) {
    const norm_cfg *cfg = cfg_;
    int32_t n;
    UChar *u = to_u16(a, in, len, &n);
    if (!u) return TROVE_ENOMEM;
    /* the byte offset of each UTF-16 index */
    uint32_t *boff = tv_arena_alloc(a, ((size_t)n + 1) * sizeof *boff);
    if (!boff) return TROVE_ENOMEM;
    {
        size_t b = 0;
        const uint8_t *p = (const uint8_t *)in;
        for (int32_t i = 0; i < n;) {
            uint32_t cp;
            size_t k = tv_utf8_decode(p + b, p + len, &cp);
            boff[i++] = (uint32_t)b;
            if (cp >= 0x10000 && i < n) boff[i++] = (uint32_t)b;
            b += k;
        }
        boff[n] = (uint32_t)len;
    }
    tv_buf b;
    tv_buf_init(&b);
    tv_status st = TROVE_OK;
    int64_t cur = 0; /* the byte diff (input - output) recorded last */
    for (int32_t s = 0; s < n && !st;) {
        /* one segment: up to the next code point with a boundary before it */
        int32_t e = s;
        UChar32 cp;
        U16_NEXT(u, e, n, cp);
        while (e < n) {
            int32_t x = e;
            U16_NEXT(u, x, n, cp);
            if (unorm2_hasBoundaryBefore(cfg->norm, cp)) break;
            e = x;
        }
        UErrorCode ec = U_ZERO_ERROR;
        size_t in_bytes = boff[e] - boff[s];
        if (unorm2_quickCheck(cfg->norm, u + s, e - s, &ec) == UNORM_YES && U_SUCCESS(ec)) {
            tv_buf_append(&b, in + boff[s], in_bytes);
        } else {
            int32_t k;
            UChar *d = normalize(a, cfg->norm, u + s, e - s, &k);
            if (!d) {
                st = TROVE_ENOMEM;
                break;
            }
            /* recordOffsetDiff counts UTF-16 units: output unit j of the
             * segment maps to input unit s + rel(j) — the segment's start
             * for the first k - n units of a longer output, its end at
             * the end of a shorter one, else j. Each output code point
             * boundary records the byte diff that reaches that input
             * unit, so that byte offsets land where Lucene's char offsets
             * do (the byte lengths alone can hide the change: "⑴" and
             * "(1)" are both 3 bytes). */
            int32_t n16 = e - s;
            for (int32_t j = 0; j <= k && !st;) {
                int32_t rel = k > n16 ? (j <= k - n16 ? 0 : j - (k - n16))
                            : k < n16 ? (j < k ? j : n16)
                                      : j;
                int64_t bd = (int64_t)boff[s + rel] - (int64_t)b.len;
                if (bd != cur) {
                    st = tv_offmap_add(a, &out->map, (uint32_t)b.len, (int32_t)bd);
                    cur = bd;
                }
                if (j == k) break;
                int32_t j0 = j;
                UChar32 c;
                U16_NEXT(d, j, k, c);
                (void)c;
                from_u16(&b, d + j0, j - j0);
            }
        }
        s = e;
    }
    if (b.oom) st = TROVE_ENOMEM;
    if (!st) {
        out->text = tv_arena_memdup(a, b.data ? b.data : "", b.len);
        out->len = b.len;
        if (!out->text) st = TROVE_ENOMEM;
    }
    tv_buf_fini(&b);
    return st;
}

typedef struct trans_cfg {
    UTransliterator *tr;
    pthread_mutex_t mu;
} trans_cfg;

static void close_trans(void *p) {
    trans_cfg *t = p;
    utrans_close(t->tr);
    pthread_mutex_destroy(&t->mu);
}

static tv_status trans_build(tv_comp *c, const void **out, tv_error *err) {
    size_t il = 0, dl = 0;
    const char *id = tv_comp_str(c, "id", &il);
    if (!id) {
        id = "Null";
        il = 4;
    }
    const char *dir = tv_comp_str(c, "dir", &dl);
    bool reverse = dir && !tv_streq(dir, dl, "forward");
    tv_arena a;
    tv_arena_init(&a);
    int32_t un = 0;
    UChar *u = to_u16(&a, id, il, &un);
    UErrorCode e = U_ZERO_ERROR;
    UParseError pe;
    UTransliterator *tr = u ? utrans_openU(u, un, reverse ? UTRANS_REVERSE : UTRANS_FORWARD, NULL,
                                           -1, &pe, &e)
                            : NULL;
    tv_arena_fini(&a);
    if (!u) return TROVE_ENOMEM;
    if (U_FAILURE(e) || !tr) {
        if (tr) utrans_close(tr);
        return tv_error_set(err, TROVE_EARG, "Invalid transliterator ID [%.*s]: %s", (int)il, id,
                            u_errorName(e));
    }
    trans_cfg *cfg = tv_comp_alloc(c, sizeof *cfg);
    if (!cfg) {
        utrans_close(tr);
        return TROVE_ENOMEM;
    }
    cfg->tr = tr;
    pthread_mutex_init(&cfg->mu, NULL);
    tv_status st = tv_comp_on_free(c, close_trans, cfg);
    if (st) return st;
    *out = cfg;
    return TROVE_OK;
}

static tv_status trans_apply(tv_arena *a, const void *cfg_, tv_tokvec *v) {
    trans_cfg *cfg = (trans_cfg *)cfg_;
    tv_status st = TROVE_OK;
    for (size_t i = 0; i < v->len && !st; i++) {
        tv_token *t = &v->items[i];
        int32_t n;
        UChar *u = to_u16(a, t->term, t->term_len, &n);
        if (!u) return TROVE_ENOMEM;
        int32_t cap = n * 4 + 16, len = n, limit = n;
        UChar *w = tv_arena_alloc(a, (size_t)cap * sizeof *w);
        if (!w) return TROVE_ENOMEM;
        memcpy(w, u, (size_t)n * sizeof *w);
        UErrorCode e = U_ZERO_ERROR;
        pthread_mutex_lock(&cfg->mu);
        utrans_transUChars(cfg->tr, w, &len, cap, 0, &limit, &e);
        if (e == U_BUFFER_OVERFLOW_ERROR) {
            cap = len + 16;
            UChar *w2 = tv_arena_alloc(a, (size_t)cap * sizeof *w2);
            if (w2) {
                memcpy(w2, u, (size_t)n * sizeof *w2);
                len = n;
                limit = n;
                e = U_ZERO_ERROR;
                utrans_transUChars(cfg->tr, w2, &len, cap, 0, &limit, &e);
                w = w2;
            }
        }
        pthread_mutex_unlock(&cfg->mu);
        if (U_FAILURE(e)) return TROVE_ENOMEM;
        tv_buf b;
        tv_buf_init(&b);
        from_u16(&b, w, len);
        char *o = b.oom ? NULL : tv_arena_memdup(a, b.data ? b.data : "", b.len);
        t->term_len = (uint32_t)b.len;
        tv_buf_fini(&b);
        if (!o) return TROVE_ENOMEM;
        t->term = o;
    }
    return st;
}

#ifdef TROVE_HAVE_UTR30
#include <unicode/udata.h>

#include "text/lang_int.h"

/* gen_utr30.py's ICU package holding trovefold/utr30.nrm */
extern const unsigned char tv_utr30_pkg[];
static const UNormalizer2 *utr30;
static pthread_once_t utr30_once = PTHREAD_ONCE_INIT;

static void open_utr30(void) {
    UErrorCode e = U_ZERO_ERROR;
    udata_setAppData("trovefold", tv_utr30_pkg, &e);
    if (U_FAILURE(e)) return;
    const UNormalizer2 *n = unorm2_getInstance("trovefold", "utr30", UNORM2_COMPOSE, &e);
    if (U_SUCCESS(e)) utr30 = n;
}

static tv_status utr30_get(const UNormalizer2 **out, tv_error *err) {
    pthread_once(&utr30_once, open_utr30);
    if (!utr30) return tv_error_set(err, TROVE_EINTERNAL, "UTR #30 folding data unavailable");
    *out = utr30;
    return TROVE_OK;
}

static tv_status fold_build(tv_comp *c, const void **out, tv_error *err) {
    const UNormalizer2 *nz = NULL;
    tv_status st = utr30_get(&nz, err);
    if (st || (st = wrap_set(c, &nz, err))) return st;
    norm_cfg *cfg = tv_comp_alloc(c, sizeof *cfg);
    if (!cfg) return TROVE_ENOMEM;
    cfg->norm = nz;
    *out = cfg;
    return TROVE_OK;
}

const tv_filter_type tv_tf_icu_folding = {"icu_folding", fold_build, norm_apply};
extern const tv_charfilter_type tv_cf_icu_normalizer;
extern const tv_tokenizer_type tv_tok_icu;

/* IcuAnalyzerProvider: ICUNormalizer2CharFilter(method, mode, set filter),
 * ICUTokenizer, ICUFoldingFilter (unfiltered). */
static tv_status icu_analyzer_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    size_t ml = 0, dl = 0;
    const char *method = tv_comp_str(c, "method", &ml);
    const char *mode = tv_comp_str(c, "mode", &dl);
    if (mode && !tv_streq(mode, dl, "compose") && !tv_streq(mode, dl, "decompose"))
        return tv_error_set(err, TROVE_EARG,
                            "Unknown mode [%.*s] in analyzer [%s], expected one of [compose, "
                            "decompose]",
                            (int)dl, mode, tv_comp_name(c));
    const UNormalizer2 *nz = NULL, *fold = NULL;
    tv_status st = norm_instance(method, ml, mode && tv_streq(mode, dl, "decompose"), &nz, err);
    if (st || (st = wrap_set(c, &nz, err)) || (st = utr30_get(&fold, err))) return st;
    norm_cfg *ncfg = tv_comp_alloc(c, sizeof *ncfg), *fcfg = tv_comp_alloc(c, sizeof *fcfg);
    if (!ncfg || !fcfg) return TROVE_ENOMEM;
    ncfg->norm = nz;
    fcfg->norm = fold;
    p->charfilters[p->ncharfilters++] =
        (tv_charfilter_def){.ext = &tv_cf_icu_normalizer, .cfg = ncfg};
    p->tok = (tv_tokenizer_def){.kind = TV_TK_EXT, .ext = &tv_tok_icu};
    tv_lang_add_ext(p, &tv_tf_icu_folding, fcfg);
    return TROVE_OK;
}

const tv_analyzer_type tv_an_icu = {"icu_analyzer", icu_analyzer_build};
#endif /* TROVE_HAVE_UTR30 */

const tv_filter_type tv_tf_icu_normalizer = {"icu_normalizer", norm_filter_build, norm_apply};
const tv_filter_type tv_tf_icu_transform = {"icu_transform", trans_build, trans_apply};
const tv_charfilter_type tv_cf_icu_normalizer = {"icu_normalizer", norm_cf_build, norm_cf_run};
#endif /* TROVE_HAVE_ICU */
