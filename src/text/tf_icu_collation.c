/*
 * tf_icu_collation.c — the analysis-icu plugin's `icu_collation` token
 * filter (OpenSearch's IcuCollationTokenFilterFactory and
 * ICUCollationKeyFilter), through Debian's ICU (libicu).
 *
 * Each term is replaced by its ICU collation key (ucol_getSortKey: the
 * key's bytes with their terminating 0, as ICU4J's getRawCollationKey),
 * written as a string with IndexableBinaryStringTools' encoding: the bytes
 * as a bit string cut into 15-bit chars (each < 0x8000), then one char
 * telling how many bytes the last content char holds whole (0 or 1); the
 * chars are UTF-8 in the term. Terms so sort as their collation keys.
 *
 * The collator: `rules` (a file in the node's config directory, else the
 * setting itself as tailoring rules — trove has no config directory, so
 * always the latter; a parse error is "Failed to resolve collation rules
 * location"), else the locale of `language` [+ `country` [+ `variant`]],
 * else ICU's root; then `strength` (primary, secondary, tertiary,
 * quaternary, identical), `decomposition` (no, canonical), `alternate`
 * (shifted, non-ignorable), `caseLevel`, `caseFirst` (lower, upper),
 * `numeric`, `variableTop` and `hiraganaQuaternaryMode` (a no-op in ICU
 * since 50, read for its type only), case-insensitive as the factory
 * compares them. A UCollator is safe to share between threads for
 * ucol_getSortKey (a const operation).
 *
 * Keys come from ICU 72's collation data (CLDR 42); OpenSearch 3.x runs
 * ICU4J 74 (CLDR 44): keys of characters whose root order changed between
 * them differ.
 */
#ifdef TROVE_HAVE_ICU
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <unicode/ucol.h>
#include <unicode/ustring.h>

#include "text/text_int.h"

typedef struct coll_cfg {
    UCollator *coll;
} coll_cfg;

static void close_coll(void *p) { ucol_close((UCollator *)p); }

static bool ieq(const char *s, size_t n, const char *lit) {
    return strlen(lit) == n && strncasecmp(s, lit, n) == 0;
}

/* UTF-8 -> UTF-16 (malloc'd; *n its length). NULL on OOM. */
static UChar *u16dup(const char *s, size_t len, int32_t *n) {
    UChar *u = malloc((len + 1) * sizeof *u);
    if (!u) return NULL;
    UErrorCode e = U_ZERO_ERROR;
    u_strFromUTF8WithSub(u, (int32_t)len + 1, n, s, (int32_t)len, 0xFFFD, NULL, &e);
    if (U_FAILURE(e)) {
        free(u);
        return NULL;
    }
    return u;
}

static tv_status set_attr(UCollator *c, UColAttribute a, UColAttributeValue v, tv_error *err) {
    UErrorCode e = U_ZERO_ERROR;
    ucol_setAttribute(c, a, v, &e);
    if (U_FAILURE(e)) return tv_error_set(err, TROVE_EARG, "%s", u_errorName(e));
    return TROVE_OK;
}

static tv_status bool_attr(tv_comp *c, UCollator *coll, const char *key, UColAttribute a,
                           tv_error *err) {
    size_t n;
    if (!tv_comp_str(c, key, &n)) return TROVE_OK; /* Settings.getAsBoolean(key, null) */
    bool v;
    tv_status st = tv_comp_bool(c, key, false, &v, err);
    if (st) return st;
    return set_attr(coll, a, v ? UCOL_ON : UCOL_OFF, err);
}

static tv_status coll_build(tv_comp *c, const void **out, tv_error *err) {
    UErrorCode e = U_ZERO_ERROR;
    UCollator *coll = NULL;
    size_t rl = 0;
    const char *rules = tv_comp_str(c, "rules", &rl);
    if (rules) {
        int32_t n;
        UChar *u = u16dup(rules, rl, &n);
        if (!u) return TROVE_ENOMEM;
        UParseError pe;
        coll = ucol_openRules(u, n, UCOL_DEFAULT, UCOL_DEFAULT, &pe, &e);
        free(u);
        if (U_FAILURE(e)) {
            if (coll) ucol_close(coll);
            return tv_error_set(err, TROVE_EARG, "Failed to resolve collation rules location");
        }
    } else {
        size_t ll = 0, cl = 0, vl = 0;
        const char *lang = tv_comp_str(c, "language", &ll);
        char loc[256] = "";
        if (lang) {
            const char *country = tv_comp_str(c, "country", &cl);
            const char *variant = country ? tv_comp_str(c, "variant", &vl) : NULL;
            if (country && variant)
                snprintf(loc, sizeof loc, "%.*s_%.*s_%.*s", (int)ll, lang, (int)cl, country, (int)vl,
                         variant);
            else if (country)
                snprintf(loc, sizeof loc, "%.*s_%.*s", (int)ll, lang, (int)cl, country);
            else
                snprintf(loc, sizeof loc, "%.*s", (int)ll, lang);
        }
        coll = ucol_open(loc, &e);
        if (U_FAILURE(e) || !coll) {
            if (coll) ucol_close(coll);
            return tv_error_set(err, TROVE_EARG, "Invalid collation locale [%s]: %s", loc,
                                u_errorName(e));
        }
    }
    tv_status st = tv_comp_on_free(c, close_coll, coll);
    if (st) return st;

    size_t n = 0;
    const char *v = tv_comp_str(c, "strength", &n);
    if (v) {
        UColAttributeValue s = ieq(v, n, "primary")      ? UCOL_PRIMARY
                               : ieq(v, n, "secondary")  ? UCOL_SECONDARY
                               : ieq(v, n, "tertiary")   ? UCOL_TERTIARY
                               : ieq(v, n, "quaternary") ? UCOL_QUATERNARY
                               : ieq(v, n, "identical")  ? UCOL_IDENTICAL
                                                         : UCOL_DEFAULT;
        if (s == UCOL_DEFAULT)
            return tv_error_set(err, TROVE_EARG, "Invalid strength: %.*s", (int)n, v);
        if ((st = set_attr(coll, UCOL_STRENGTH, s, err))) return st;
    }
    if ((v = tv_comp_str(c, "decomposition", &n))) {
        if (!ieq(v, n, "no") && !ieq(v, n, "canonical"))
            return tv_error_set(err, TROVE_EARG, "Invalid decomposition: %.*s", (int)n, v);
        if ((st = set_attr(coll, UCOL_NORMALIZATION_MODE, ieq(v, n, "no") ? UCOL_OFF : UCOL_ON, err)))
            return st;
    }
    if ((v = tv_comp_str(c, "alternate", &n))) {
        if (!ieq(v, n, "shifted") && !ieq(v, n, "non-ignorable"))
            return tv_error_set(err, TROVE_EARG, "Invalid alternate: %.*s", (int)n, v);
        if ((st = set_attr(coll, UCOL_ALTERNATE_HANDLING,
                           ieq(v, n, "shifted") ? UCOL_SHIFTED : UCOL_NON_IGNORABLE, err)))
            return st;
    }
    if ((st = bool_attr(c, coll, "caseLevel", UCOL_CASE_LEVEL, err))) return st;
    if ((v = tv_comp_str(c, "caseFirst", &n))) {
        if (!ieq(v, n, "lower") && !ieq(v, n, "upper"))
            return tv_error_set(err, TROVE_EARG, "Invalid caseFirst: %.*s", (int)n, v);
        if ((st = set_attr(coll, UCOL_CASE_FIRST,
                           ieq(v, n, "lower") ? UCOL_LOWER_FIRST : UCOL_UPPER_FIRST, err)))
            return st;
    }
    if ((st = bool_attr(c, coll, "numeric", UCOL_NUMERIC_COLLATION, err))) return st;
    if ((v = tv_comp_str(c, "variableTop", &n))) {
        int32_t un;
        UChar *u = u16dup(v, n, &un);
        if (!u) return TROVE_ENOMEM;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        ucol_setVariableTop(coll, u, un, &e);
#pragma GCC diagnostic pop
        free(u);
        if (U_FAILURE(e)) return tv_error_set(err, TROVE_EARG, "%s", u_errorName(e));
    }
    if (tv_comp_str(c, "hiraganaQuaternaryMode", &n)) {
        bool ignored;
        if ((st = tv_comp_bool(c, "hiraganaQuaternaryMode", false, &ignored, err))) return st;
    }
    coll_cfg *cfg = tv_comp_alloc(c, sizeof *cfg);
    if (!cfg) return TROVE_ENOMEM;
    cfg->coll = coll;
    *out = cfg;
    return TROVE_OK;
}

/* IndexableBinaryStringTools' coding cases: per output char, how many
 * input bytes it reads (2 or 3), their shifts, and how far it advances. */
static const struct {
    uint8_t nbytes, init, mid, fin, adv;
} cases[] = {{2, 7, 0, 1, 1}, {3, 14, 6, 2, 2}, {3, 13, 5, 3, 2}, {3, 12, 4, 4, 2},
             {3, 11, 3, 5, 2}, {3, 10, 2, 6, 2}, {3, 9, 1, 7, 2}, {2, 8, 0, 0, 2}};

static void put_char(tv_buf *b, uint32_t c) {
    uint8_t e[4];
    tv_buf_append(b, e, tv_utf8_encode(c, e));
}

/* IndexableBinaryStringTools.encode, the chars written as UTF-8 to b. */
static void encode_key(tv_buf *b, const uint8_t *in, size_t len) {
    if (!len) return;
    size_t i = 0;
    unsigned k = 0;
    for (; i + cases[k].nbytes <= len;) {
        uint32_t fmask = 0xFFu >> cases[k].fin, c;
        if (cases[k].nbytes == 2)
            c = ((uint32_t)in[i] << cases[k].init) + ((in[i + 1] >> cases[k].fin) & fmask);
        else
            c = ((uint32_t)in[i] << cases[k].init) + ((uint32_t)in[i + 1] << cases[k].mid) +
                ((in[i + 2] >> cases[k].fin) & fmask);
        put_char(b, c & 0x7FFF);
        i += cases[k].adv;
        if (++k == TV_ARRAY_LEN(cases)) k = 0;
    }
    if (i + 1 < len) {
        put_char(b, (((uint32_t)in[i] << cases[k].init) + ((uint32_t)in[i + 1] << cases[k].mid)) & 0x7FFF);
        put_char(b, 1);
    } else if (i < len) {
        put_char(b, ((uint32_t)in[i] << cases[k].init) & 0x7FFF);
        put_char(b, k == 0 ? 1 : 0);
    } else {
        put_char(b, 1);
    }
}

static tv_status coll_apply(tv_arena *a, const void *cfg_, tv_tokvec *v) {
    const coll_cfg *cfg = cfg_;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        UChar *u = tv_arena_alloc(a, ((size_t)t->term_len + 1) * sizeof *u);
        if (!u) return TROVE_ENOMEM;
        int32_t n = 0;
        UErrorCode e = U_ZERO_ERROR;
        u_strFromUTF8WithSub(u, (int32_t)t->term_len + 1, &n, t->term, (int32_t)t->term_len, 0xFFFD,
                             NULL, &e);
        if (U_FAILURE(e)) return TROVE_EINTERNAL;
        int32_t cap = n * 4 + 32;
        uint8_t *key = tv_arena_alloc(a, (size_t)cap);
        if (!key) return TROVE_ENOMEM;
        int32_t kl = ucol_getSortKey(cfg->coll, u, n, key, cap);
        if (kl > cap) {
            cap = kl;
            if (!(key = tv_arena_alloc(a, (size_t)cap))) return TROVE_ENOMEM;
            kl = ucol_getSortKey(cfg->coll, u, n, key, cap);
        }
        tv_buf b;
        tv_buf_init(&b);
        encode_key(&b, key, (size_t)kl);
        char *o = b.oom ? NULL : tv_arena_memdup(a, b.data ? b.data : "", b.len);
        t->term_len = (uint32_t)b.len;
        tv_buf_fini(&b);
        if (!o) return TROVE_ENOMEM;
        t->term = o;
    }
    return TROVE_OK;
}

const tv_filter_type tv_tf_icu_collation = {"icu_collation", coll_build, coll_apply};
#endif /* TROVE_HAVE_ICU */
