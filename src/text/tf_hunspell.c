/*
 * tf_hunspell.c — the `hunspell` token filter (Lucene's HunspellStemFilter
 * over a Hunspell dictionary: a .aff affix file and a .dic word list).
 *
 * Dictionaries: OpenSearch loads config/hunspell/<locale>/; trove reads
 * <dir>/<locale>.aff and <dir>/<locale>.dic, <dir> being the environment
 * variable TROVE_HUNSPELL_DIR or else Debian's /usr/share/hunspell (the
 * hunspell-* packages). A dictionary is parsed once per process and kept
 * (as OpenSearch's HunspellService caches them). A locale whose files are
 * missing or unreadable answers what OpenSearch answers: 500
 * illegal_state_exception "failed to load hunspell dictionary for locale".
 * Settings: locale | language | lang (required), dedup (true: drop repeated
 * stems), longest_only (false: keep only the longest stem). The dictionary
 * is case-sensitive (OpenSearch's ignore_case is a node/locale setting,
 * not a filter one, and defaults to false).
 *
 * The .aff directives read: SET (encoding, through iconv), FLAG (char,
 * long, num, UTF-8), AF (flag aliases), PFX / SFX (strip, append with
 * continuation flags, condition), IGNORE, ICONV / OCONV, NEEDAFFIX (and
 * PSEUDOROOT), ONLYINCOMPOUND, KEEPCASE, CIRCUMFIX, COMPLEXPREFIXES,
 * FULLSTRIP. Others (REP, TRY, compounding, suggestions) do not change
 * stems and are skipped.
 *
 * Stemming, as Lucene's Stemmer does it: the input is cleaned (IGNORE
 * characters dropped, ICONV applied); a Title-case word is also tried in
 * lower case and an UPPER-case one also in Title and lower case. For each
 * variant: the word itself if the .dic has it (unless flagged NEEDAFFIX or
 * ONLYINCOMPOUND, or KEEPCASE for a case variant), then every affix that
 * can be removed: prefixes by growing length (keys word[0..i), the word
 * keeping at least one letter unless FULLSTRIP), then suffixes by growing
 * length; within one key in .aff order. Removing an affix and restoring its
 * strip gives a candidate that must satisfy the rule's condition (prefix:
 * the candidate starts with it; suffix: ends with it) and be a .dic word
 * carrying the affix's flag. Cross-product affixes recurse: after a prefix,
 * a suffix whose word carries both flags (or whose continuation allows the
 * prefix); after a suffix, a second suffix when affixes have continuation
 * flags (two-stage affixes; COMPLEXPREFIXES swaps the roles). The filter
 * emits the first stem in place of the token and the others at the same
 * position; an unknown word passes unchanged; keyword tokens are left.
 *
 * Rejected: Lucene's FSTs for the word and affix tables (hash maps keyed
 * by code point strings give the same lookups); stemming UTF-8 bytes
 * (affix positions are characters, so words are decoded to code points).
 */
#include <errno.h>
#include <iconv.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "text/text_int.h"
#include "text/unicode.h"

/* --------------------------------------------------------- small pieces */

typedef struct u32s {
    uint32_t *v;
    uint32_t n;
} u32s;

static uint32_t *u32dup(const uint32_t *s, size_t n) {
    uint32_t *d = tv_malloc((n ? n : 1) * sizeof *d);
    if (d && n) memcpy(d, s, n * sizeof *d);
    return d;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static bool has_flag(const u32s *set, uint32_t f) {
    size_t lo = 0, hi = set->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (set->v[mid] == f) return true;
        if (set->v[mid] < f) lo = mid + 1;
        else hi = mid;
    }
    return false;
}

/* A map from code point strings to lists of uint32 (open addressing). */
typedef struct hs_slot {
    uint32_t *key;
    uint32_t klen, hash;
    uint32_t *vals;
    uint32_t nvals, cap;
} hs_slot;

typedef struct hs_map {
    hs_slot *s;
    size_t cap, len;
} hs_map;

static uint32_t hash32(const uint32_t *k, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ k[i]) * 16777619u;
    return h;
}

static hs_slot *map_find(const hs_map *m, const uint32_t *k, size_t n) {
    if (!m->cap) return NULL;
    uint32_t h = hash32(k, n);
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        hs_slot *s = &m->s[i];
        if (!s->key) return NULL;
        if (s->hash == h && s->klen == n && memcmp(s->key, k, n * sizeof *k) == 0) return s;
    }
}

static bool map_grow(hs_map *m) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    hs_slot *ns = tv_calloc(cap, sizeof *ns);
    if (!ns) return false;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->s[i].key) continue;
        size_t j = m->s[i].hash & (cap - 1);
        while (ns[j].key) j = (j + 1) & (cap - 1);
        ns[j] = m->s[i];
    }
    tv_free(m->s);
    m->s = ns;
    m->cap = cap;
    return true;
}

static bool map_add(hs_map *m, const uint32_t *k, size_t n, uint32_t val) {
    hs_slot *s = map_find(m, k, n);
    if (!s) {
        if ((m->len + 1) * 2 > m->cap && !map_grow(m)) return false;
        uint32_t h = hash32(k, n);
        size_t i = h & (m->cap - 1);
        while (m->s[i].key) i = (i + 1) & (m->cap - 1);
        s = &m->s[i];
        if (!(s->key = u32dup(k, n))) return false;
        s->klen = (uint32_t)n;
        s->hash = h;
        m->len++;
    }
    if (s->nvals == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 2;
        uint32_t *v = tv_realloc(s->vals, cap * sizeof *v);
        if (!v) return false;
        s->vals = v;
        s->cap = cap;
    }
    s->vals[s->nvals++] = val;
    return true;
}

static void map_free(hs_map *m) {
    for (size_t i = 0; i < m->cap; i++) {
        tv_free(m->s[i].key);
        tv_free(m->s[i].vals);
    }
    tv_free(m->s);
}

/* ------------------------------------------------------- the dictionary */

typedef struct hs_cls { /* one condition element: ".", "c" or "[...]" / "[^...]" */
    bool any, neg;
    uint32_t *chars;
    uint32_t n;
} hs_cls;

typedef struct hs_affix {
    uint32_t flag;
    bool cross;
    u32s strip, append, aflags;
    hs_cls *cond;
    uint32_t ncond;
} hs_affix;

typedef struct hs_conv {
    u32s from, to;
} hs_conv;

enum { FLAG_CHAR, FLAG_LONG, FLAG_NUM };

typedef struct hs_dict {
    char *locale;
    hs_map words; /* word -> indexes into fsets (one per .dic entry) */
    hs_map pfx;   /* append -> prefix affix ids, in .aff order */
    hs_map sfx;   /* append -> suffix affix ids */
    hs_affix *aff;
    size_t naff, aff_cap;
    u32s *fsets;
    size_t nfsets, fsets_cap;
    u32s *alias;
    size_t nalias;
    int flagmode;
    int64_t needaffix, onlyincompound, keepcase, circumfix;
    bool complexprefixes, fullstrip, twostage;
    u32s ignore;
    hs_conv *iconv, *oconv;
    size_t niconv, noconv;
    struct hs_dict *next;
} hs_dict;

/* the text of a file in UTF-8 (converted from enc), NUL-terminated */
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = tv_malloc(cap);
    while (b) {
        if (n + 1 >= cap) {
            char *nb = tv_realloc(b, cap *= 2);
            if (!nb) {
                tv_free(b);
                b = NULL;
                break;
            }
            b = nb;
        }
        size_t r = fread(b + n, 1, cap - n - 1, f);
        if (r == 0) break;
        n += r;
    }
    fclose(f);
    if (!b) return NULL;
    b[n] = 0;
    *len = n;
    return b;
}

static char *to_utf8(char *raw, size_t n, const char *enc, size_t *out_len) {
    if (!strcasecmp(enc, "UTF-8") || !strcasecmp(enc, "UTF8")) {
        *out_len = n;
        return raw;
    }
    iconv_t cd = iconv_open("UTF-8", enc);
    if (cd == (iconv_t)-1 && !strncasecmp(enc, "ISO8859-", 8)) {
        char alt[32];
        snprintf(alt, sizeof alt, "ISO-8859-%s", enc + 8);
        cd = iconv_open("UTF-8", alt);
    }
    if (cd == (iconv_t)-1) {
        tv_free(raw);
        return NULL;
    }
    size_t cap = n * 4 + 1;
    char *out = tv_malloc(cap);
    if (out) {
        char *in = raw, *o = out;
        size_t il = n, ol = cap - 1;
        if (iconv(cd, &in, &il, &o, &ol) == (size_t)-1) {
            tv_free(out);
            out = NULL;
        } else {
            *o = 0;
            *out_len = (size_t)(o - out);
        }
    }
    iconv_close(cd);
    tv_free(raw);
    return out;
}

/* decodes UTF-8 into code points (dst holds n entries); returns the count */
static size_t decode(const char *s, size_t n, uint32_t *dst) {
    const uint8_t *p = (const uint8_t *)s, *end = p + n;
    size_t k = 0;
    while (p < end) {
        uint32_t cp;
        p += tv_utf8_decode(p, end, &cp);
        dst[k++] = cp;
    }
    return k;
}

/* splits a line into whitespace-separated fields (pointers into line) */
static size_t fields(char *line, char **f, size_t max) {
    size_t n = 0;
    char *p = line;
    while (*p && n < max) {
        while (*p == ' ' || *p == '\t' || *p == '\r') p++;
        if (!*p) break;
        f[n++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r') p++;
        if (*p) *p++ = 0;
    }
    return n;
}

/* flags as FLAG says; use_alias: the text may be an AF alias number (word
 * and continuation flags; not affix names or NEEDAFFIX & co.). False on
 * a bad alias or out of memory. */
static bool parse_flags(hs_dict *d, const char *s, u32s *out, bool use_alias) {
    size_t n = strlen(s);
    uint32_t *cp = tv_malloc((n + 1) * sizeof *cp);
    if (!cp) return false;
    size_t k = decode(s, n, cp), m = 0;
    if (d->nalias && use_alias) {
        /* an alias number (1-based); anything else fails the dictionary, as
         * Lucene's parseInt / "Bad flag alias number" do */
        char *e;
        long idx = strtol(s, &e, 10);
        tv_free(cp);
        if (e == s || *e || idx < 1 || (size_t)idx > d->nalias) return false;
        u32s *a = &d->alias[idx - 1];
        *out = (u32s){u32dup(a->v, a->n), a->n};
        return out->v != NULL;
    }
    if (d->flagmode == FLAG_LONG) {
        for (size_t i = 0; i + 1 < k; i += 2) cp[m++] = (cp[i] << 8) + cp[i + 1];
    } else if (d->flagmode == FLAG_NUM) {
        for (const char *p = s; *p;) {
            char *e;
            long v = strtol(p, &e, 10);
            if (e == p) break;
            cp[m++] = (uint32_t)v;
            p = *e == ',' ? e + 1 : e;
            if (*e != ',') break;
        }
    } else {
        m = k;
    }
    qsort(cp, m, sizeof *cp, cmp_u32);
    *out = (u32s){cp, (uint32_t)m};
    return true;
}

static bool to_u32s(const char *s, u32s *out) {
    size_t n = strlen(s);
    if (n == 1 && s[0] == '0') n = 0; /* "0": empty */
    uint32_t *cp = tv_malloc((n + 1) * sizeof *cp);
    if (!cp) return false;
    *out = (u32s){cp, (uint32_t)decode(s, n, cp)};
    return true;
}

static bool parse_cond(const char *s, hs_affix *a) {
    size_t n = strlen(s);
    uint32_t *cp = tv_malloc((n + 1) * sizeof *cp);
    if (!cp) return false;
    size_t k = decode(s, n, cp);
    a->cond = tv_calloc(k + 1, sizeof *a->cond);
    if (!a->cond) {
        tv_free(cp);
        return false;
    }
    a->ncond = 0;
    if (k == 1 && cp[0] == '.') { /* no condition */
        tv_free(cp);
        return true;
    }
    for (size_t i = 0; i < k;) {
        hs_cls *c = &a->cond[a->ncond++];
        if (cp[i] == '.') {
            c->any = true;
            i++;
        } else if (cp[i] == '[') {
            i++;
            if (i < k && cp[i] == '^') {
                c->neg = true;
                i++;
            }
            size_t b = i;
            while (i < k && cp[i] != ']') i++;
            c->chars = u32dup(cp + b, i - b);
            c->n = (uint32_t)(i - b);
            if (!c->chars) {
                tv_free(cp);
                return false;
            }
            if (i < k) i++; /* ']' (an unclosed class runs to the end, as Lucene reads it) */
        } else {
            c->chars = u32dup(cp + i, 1);
            c->n = 1;
            if (!c->chars) {
                tv_free(cp);
                return false;
            }
            i++;
        }
    }
    tv_free(cp);
    return true;
}

static bool cls_match(const hs_cls *c, uint32_t ch) {
    if (c->any) return true;
    bool in = false;
    for (uint32_t i = 0; i < c->n && !in; i++) in = c->chars[i] == ch;
    return in != c->neg;
}

/* Does the candidate stem satisfy the affix's condition? */
static bool cond_ok(const hs_affix *a, bool prefix, const uint32_t *w, size_t n) {
    if (a->ncond > n) return false;
    size_t off = prefix ? 0 : n - a->ncond;
    for (uint32_t i = 0; i < a->ncond; i++)
        if (!cls_match(&a->cond[i], w[off + i])) return false;
    return true;
}

static bool add_conv(hs_conv **arr, size_t *n, const char *from, const char *to) {
    hs_conv *na = tv_realloc(*arr, (*n + 1) * sizeof *na);
    if (!na) return false;
    *arr = na;
    hs_conv *c = &na[(*n)++];
    memset(c, 0, sizeof *c);
    return to_u32s(from, &c->from) && to_u32s(to, &c->to);
}

/* applies conversions, longest match first, left to right; dst must hold
 * enough (n * longest "to" + n) */
static size_t apply_conv(const hs_conv *cv, size_t ncv, const uint32_t *w, size_t n, uint32_t *dst) {
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        const hs_conv *best = NULL;
        for (size_t c = 0; c < ncv; c++) {
            const u32s *f = &cv[c].from;
            if (f->n && f->n <= n - i && memcmp(w + i, f->v, f->n * sizeof *w) == 0 &&
                (!best || f->n > best->from.n))
                best = &cv[c];
        }
        if (best) {
            memcpy(dst + o, best->to.v, best->to.n * sizeof *dst);
            o += best->to.n;
            i += best->from.n;
        } else {
            dst[o++] = w[i++];
        }
    }
    return o;
}

static size_t conv_growth(const hs_conv *cv, size_t ncv) {
    size_t g = 1;
    for (size_t c = 0; c < ncv; c++)
        if (cv[c].to.n > g) g = cv[c].to.n;
    return g;
}

/* cleans a word as Lucene's Dictionary.cleanInput: IGNORE, then ICONV */
static size_t clean(const hs_dict *d, const uint32_t *w, size_t n, uint32_t *dst, uint32_t *tmp) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!has_flag(&d->ignore, w[i])) tmp[k++] = w[i];
    if (!d->niconv) {
        memcpy(dst, tmp, k * sizeof *dst);
        return k;
    }
    return apply_conv(d->iconv, d->niconv, tmp, k, dst);
}

static void dict_free(hs_dict *d) {
    if (!d) return;
    map_free(&d->words);
    map_free(&d->pfx);
    map_free(&d->sfx);
    for (size_t i = 0; i < d->naff; i++) {
        hs_affix *a = &d->aff[i];
        tv_free(a->strip.v);
        tv_free(a->append.v);
        tv_free(a->aflags.v);
        for (uint32_t c = 0; c < a->ncond; c++) tv_free(a->cond[c].chars);
        tv_free(a->cond);
    }
    tv_free(d->aff);
    for (size_t i = 0; i < d->nfsets; i++) tv_free(d->fsets[i].v);
    tv_free(d->fsets);
    for (size_t i = 0; i < d->nalias; i++) tv_free(d->alias[i].v);
    tv_free(d->alias);
    for (size_t i = 0; i < d->niconv; i++) {
        tv_free(d->iconv[i].from.v);
        tv_free(d->iconv[i].to.v);
    }
    for (size_t i = 0; i < d->noconv; i++) {
        tv_free(d->oconv[i].from.v);
        tv_free(d->oconv[i].to.v);
    }
    tv_free(d->iconv);
    tv_free(d->oconv);
    tv_free(d->ignore.v);
    tv_free(d->locale);
    tv_free(d);
}

/* the encoding an .aff declares with SET (ISO8859-1 without one) */
static void aff_encoding(const char *raw, char *enc, size_t cap) {
    snprintf(enc, cap, "ISO8859-1");
    for (const char *p = raw; *p;) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l > 4 && !strncmp(p, "SET", 3) && (p[3] == ' ' || p[3] == '\t')) {
            const char *v = p + 4;
            while (*v == ' ' || *v == '\t') v++;
            size_t k = 0;
            while (v + k < p + l && v[k] != ' ' && v[k] != '\t' && v[k] != '\r' && k + 1 < cap) k++;
            memcpy(enc, v, k);
            enc[k] = 0;
            return;
        }
        if (!e) break;
        p = e + 1;
    }
}

static int64_t one_flag(hs_dict *d, const char *s) {
    u32s f;
    if (!parse_flags(d, s, &f, false)) return -1;
    int64_t v = f.n ? (int64_t)f.v[0] : -1;
    tv_free(f.v);
    return v;
}

static bool add_affix(hs_dict *d, bool prefix, char **f, size_t nf, uint32_t flag, bool cross) {
    if (d->naff == d->aff_cap) {
        size_t cap = d->aff_cap ? d->aff_cap * 2 : 64;
        hs_affix *na = tv_realloc(d->aff, cap * sizeof *na);
        if (!na) return false;
        d->aff = na;
        d->aff_cap = cap;
    }
    hs_affix *a = &d->aff[d->naff];
    memset(a, 0, sizeof *a);
    a->flag = flag;
    a->cross = cross;
    char *app = f[3], *slash = strrchr(app, '/');
    if (slash) {
        *slash = 0;
        if (!parse_flags(d, slash + 1, &a->aflags, true)) return false;
        d->twostage = true;
    } else if (!(a->aflags.v = u32dup(NULL, 0))) {
        return false;
    }
    if (!to_u32s(f[2], &a->strip) || !to_u32s(app, &a->append) || !parse_cond(nf > 4 ? f[4] : ".", a))
        return false;
    uint32_t id = (uint32_t)d->naff++;
    return map_add(prefix ? &d->pfx : &d->sfx, a->append.v, a->append.n, id);
}

static bool parse_aff(hs_dict *d, char *text) {
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[8];
        size_t nf = fields(line, f, 8);
        if (nf == 0) continue;
        if ((!strcmp(f[0], "PFX") || !strcmp(f[0], "SFX")) && nf >= 4) {
            bool prefix = f[0][0] == 'P';
            int64_t flag = one_flag(d, f[1]);
            bool cross = f[2][0] == 'Y';
            long count = strtol(f[3], NULL, 10);
            for (long i = 0; i < count; i++) {
                char *rl = strtok_r(NULL, "\n", &save);
                if (!rl) break;
                char *rf[8];
                size_t rn = fields(rl, rf, 8);
                if (rn < 4) continue;
                if (flag >= 0 && !add_affix(d, prefix, rf, rn, (uint32_t)flag, cross)) return false;
            }
        } else if (!strcmp(f[0], "FLAG") && nf >= 2) {
            if (!strcasecmp(f[1], "long")) d->flagmode = FLAG_LONG;
            else if (!strcasecmp(f[1], "num")) d->flagmode = FLAG_NUM;
            else d->flagmode = FLAG_CHAR; /* UTF-8: one character per flag */
        } else if (!strcmp(f[0], "AF") && nf >= 2 && !d->nalias && !d->alias) {
            long count = strtol(f[1], NULL, 10);
            if (count <= 0) continue;
            d->alias = tv_calloc((size_t)count, sizeof *d->alias);
            if (!d->alias) return false;
            for (long i = 0; i < count; i++) {
                char *rl = strtok_r(NULL, "\n", &save);
                if (!rl) break;
                char *rf[4];
                size_t rn = fields(rl, rf, 4);
                if (!parse_flags(d, rn >= 2 ? rf[1] : "", &d->alias[i], false)) return false;
                d->nalias++;
            }
        } else if ((!strcmp(f[0], "NEEDAFFIX") || !strcmp(f[0], "PSEUDOROOT")) && nf >= 2) {
            d->needaffix = one_flag(d, f[1]);
        } else if (!strcmp(f[0], "ONLYINCOMPOUND") && nf >= 2) {
            d->onlyincompound = one_flag(d, f[1]);
        } else if (!strcmp(f[0], "KEEPCASE") && nf >= 2) {
            d->keepcase = one_flag(d, f[1]);
        } else if (!strcmp(f[0], "CIRCUMFIX") && nf >= 2) {
            d->circumfix = one_flag(d, f[1]);
        } else if (!strcmp(f[0], "COMPLEXPREFIXES")) {
            d->complexprefixes = true;
        } else if (!strcmp(f[0], "FULLSTRIP")) {
            d->fullstrip = true;
        } else if (!strcmp(f[0], "IGNORE") && nf >= 2) {
            tv_free(d->ignore.v);
            if (!to_u32s(f[1], &d->ignore)) return false;
            qsort(d->ignore.v, d->ignore.n, sizeof *d->ignore.v, cmp_u32);
        } else if ((!strcmp(f[0], "ICONV") || !strcmp(f[0], "OCONV")) && nf >= 2) {
            bool in = f[0][0] == 'I';
            long count = strtol(f[1], NULL, 10);
            for (long i = 0; i < count; i++) {
                char *rl = strtok_r(NULL, "\n", &save);
                if (!rl) break;
                char *rf[4];
                if (fields(rl, rf, 4) < 3) continue;
                if (!add_conv(in ? &d->iconv : &d->oconv, in ? &d->niconv : &d->noconv, rf[1], rf[2]))
                    return false;
            }
        }
    }
    if (!d->ignore.v && !(d->ignore.v = u32dup(NULL, 0))) return false;
    return true;
}

static bool parse_dic(hs_dict *d, char *text) {
    char *save = NULL;
    bool first = true;
    uint32_t *w = NULL, *tmp = NULL, *cw = NULL;
    size_t wcap = 0;
    bool ok = true;
    for (char *line = strtok_r(text, "\n", &save); line && ok; line = strtok_r(NULL, "\n", &save)) {
        if (first) { /* the word count */
            first = false;
            continue;
        }
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\r' || line[l - 1] == ' ' || line[l - 1] == '\t')) line[--l] = 0;
        /* morphological fields follow a tab (or a space) */
        char *ws = strpbrk(line, "\t ");
        if (ws) *ws = 0;
        if (!*line) continue;
        char *slash = strchr(line, '/');
        while (slash && slash > line && slash[-1] == '\\') slash = strchr(slash + 1, '/');
        if (slash) *slash = 0;
        size_t n = strlen(line);
        size_t need = (n + 1) * (conv_growth(d->iconv, d->niconv) + 1);
        if (need > wcap) {
            tv_free(w);
            tv_free(tmp);
            tv_free(cw);
            wcap = need * 2;
            w = tv_malloc(wcap * sizeof *w);
            tmp = tv_malloc(wcap * sizeof *tmp);
            cw = tv_malloc(wcap * sizeof *cw);
            if (!w || !tmp || !cw) {
                ok = false;
                break;
            }
        }
        size_t k = decode(line, n, w);
        k = clean(d, w, k, cw, tmp);
        if (d->nfsets == d->fsets_cap) {
            size_t cap = d->fsets_cap ? d->fsets_cap * 2 : 1024;
            u32s *nf = tv_realloc(d->fsets, cap * sizeof *nf);
            if (!nf) {
                ok = false;
                break;
            }
            d->fsets = nf;
            d->fsets_cap = cap;
        }
        u32s *fs = &d->fsets[d->nfsets];
        if (slash) ok = parse_flags(d, slash + 1, fs, true);
        else ok = (fs->v = u32dup(NULL, 0)) != NULL, fs->n = 0;
        if (!ok) break;
        ok = map_add(&d->words, cw, k, (uint32_t)d->nfsets++);
    }
    tv_free(w);
    tv_free(tmp);
    tv_free(cw);
    return ok;
}

static hs_dict *dict_load(const char *locale) {
    const char *dir = getenv("TROVE_HUNSPELL_DIR");
    if (!dir || !*dir) dir = "/usr/share/hunspell";
    char path[4096];
    size_t an, dn;
    snprintf(path, sizeof path, "%s/%s.aff", dir, locale);
    char *aff = read_file(path, &an);
    snprintf(path, sizeof path, "%s/%s.dic", dir, locale);
    char *dic = aff ? read_file(path, &dn) : NULL;
    hs_dict *d = NULL;
    if (aff && dic) {
        char enc[64];
        aff_encoding(aff, enc, sizeof enc);
        aff = to_utf8(aff, an, enc, &an);
        dic = aff ? to_utf8(dic, dn, enc, &dn) : dic;
        d = aff && dic ? tv_calloc(1, sizeof *d) : NULL;
        if (d) {
            d->needaffix = d->onlyincompound = d->keepcase = d->circumfix = -1;
            if (!(d->locale = tv_malloc(strlen(locale) + 1)) || !parse_aff(d, aff) || !parse_dic(d, dic)) {
                dict_free(d);
                d = NULL;
            } else {
                strcpy(d->locale, locale);
            }
        }
    }
    tv_free(aff);
    tv_free(dic);
    return d;
}

static pthread_mutex_t dict_mu = PTHREAD_MUTEX_INITIALIZER;
static hs_dict *dicts; /* loaded once, kept for the process (as HunspellService) */

static const hs_dict *dict_get(const char *locale) {
    pthread_mutex_lock(&dict_mu);
    hs_dict *d = dicts;
    while (d && strcmp(d->locale, locale) != 0) d = d->next;
    if (!d && (d = dict_load(locale))) {
        d->next = dicts;
        dicts = d;
    }
    pthread_mutex_unlock(&dict_mu);
    return d;
}

/* ---------------------------------------------------------- the stemmer */

typedef struct hs_out {
    tv_arena *a;
    u32s *v;
    size_t n, cap;
    bool oom;
} hs_out;

static void out_add(const hs_dict *d, hs_out *o, const uint32_t *w, size_t n) {
    if (o->oom) return;
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 8;
        u32s *nv = tv_arena_alloc(o->a, cap * sizeof *nv);
        if (!nv) {
            o->oom = true;
            return;
        }
        if (o->n) memcpy(nv, o->v, o->n * sizeof *nv);
        o->v = nv;
        o->cap = cap;
    }
    size_t g = d->noconv ? conv_growth(d->oconv, d->noconv) : 1;
    uint32_t *s = tv_arena_alloc(o->a, (n * g + 1) * sizeof *s);
    if (!s) {
        o->oom = true;
        return;
    }
    size_t k = d->noconv ? apply_conv(d->oconv, d->noconv, w, n, s) : (memcpy(s, w, n * sizeof *s), n);
    o->v[o->n++] = (u32s){s, (uint32_t)k};
}

static bool cross_checked(uint32_t flag, const u32s *flags, bool match_empty) {
    return (flags->n == 0 && match_empty) || has_flag(flags, flag);
}

static void strip_affixes(const hs_dict *d, hs_out *o, const uint32_t *w, size_t n, int64_t previous,
                          int64_t prev_flag, int64_t prefix_flag, int depth, bool do_prefix,
                          bool do_suffix, bool prev_was_prefix, bool circumfix, bool case_variant);

/* the candidate stem s (affix id removed): .dic forms carrying its flag,
 * then the recursion cross-product affixes allow */
static void apply_affix(const hs_dict *d, hs_out *o, const uint32_t *s, size_t n, uint32_t id,
                        int64_t prefix_flag, int depth, bool prefix, bool circumfix, bool case_variant) {
    const hs_affix *a = &d->aff[id];
    const hs_slot *forms = map_find(&d->words, s, n);
    for (uint32_t i = 0; forms && i < forms->nvals; i++) {
        const u32s *wf = &d->fsets[forms->vals[i]];
        if (!has_flag(wf, a->flag)) continue;
        bool chained_prefix = d->complexprefixes && depth == 1 && prefix;
        if (!chained_prefix && prefix_flag >= 0 && !has_flag(wf, (uint32_t)prefix_flag) &&
            !cross_checked((uint32_t)prefix_flag, &a->aflags, false))
            continue;
        if (d->circumfix >= 0 && circumfix != has_flag(&a->aflags, (uint32_t)d->circumfix)) continue;
        if (case_variant && d->keepcase >= 0 && has_flag(wf, (uint32_t)d->keepcase)) continue;
        if (d->onlyincompound >= 0 && has_flag(wf, (uint32_t)d->onlyincompound)) continue;
        out_add(d, o, s, n);
    }
    if (d->circumfix >= 0 && !circumfix && prefix) circumfix = has_flag(&a->aflags, (uint32_t)d->circumfix);
    if (!a->cross) return;
    if (depth == 0) {
        if (prefix)
            strip_affixes(d, o, s, n, id, a->flag, a->flag, 1, d->complexprefixes && d->twostage, true, true,
                          circumfix, case_variant);
        else if (!d->complexprefixes && d->twostage)
            strip_affixes(d, o, s, n, id, a->flag, prefix_flag, 1, false, true, false, circumfix, case_variant);
    } else if (depth == 1) {
        if (prefix && d->complexprefixes)
            strip_affixes(d, o, s, n, id, a->flag, a->flag, 2, false, true, true, circumfix, case_variant);
        else if (!prefix && !d->complexprefixes && d->twostage)
            strip_affixes(d, o, s, n, id, a->flag, prefix_flag, 2, false, true, false, circumfix, case_variant);
    }
}

/* may affix a be removed at this depth? */
static bool compatible(const hs_dict *d, const hs_affix *a, int depth, int64_t prev_flag, bool match_empty) {
    bool allowed = d->onlyincompound < 0 || !has_flag(&a->aflags, (uint32_t)d->onlyincompound);
    if (depth == 0) return allowed;
    if (!a->cross) return false;
    return allowed && cross_checked((uint32_t)prev_flag, &a->aflags, match_empty);
}

static void strip_affixes(const hs_dict *d, hs_out *o, const uint32_t *w, size_t n, int64_t previous,
                          int64_t prev_flag, int64_t prefix_flag, int depth, bool do_prefix,
                          bool do_suffix, bool prev_was_prefix, bool circumfix, bool case_variant) {
    if (o->oom || depth > 2) return;
    uint32_t *s = tv_arena_alloc(o->a, (n + 64) * sizeof *s);
    if (!s) {
        o->oom = true;
        return;
    }
    if (do_prefix) {
        size_t limit = d->fullstrip ? n : (n ? n - 1 : 0);
        for (size_t i = 0; i < limit; i++) {
            const hs_slot *ids = map_find(&d->pfx, w, i);
            for (uint32_t j = 0; ids && j < ids->nvals; j++) {
                uint32_t id = ids->vals[j];
                if ((int64_t)id == previous) continue;
                const hs_affix *a = &d->aff[id];
                if (!compatible(d, a, depth, prev_flag, false)) continue;
                size_t rest = n - i, sn = a->strip.n + rest;
                if (sn > n + 63) continue;
                memcpy(s, a->strip.v, a->strip.n * sizeof *s);
                memcpy(s + a->strip.n, w + i, rest * sizeof *s);
                if (!cond_ok(a, true, s, sn)) continue;
                uint32_t *c = tv_arena_alloc(o->a, (sn + 1) * sizeof *c);
                if (!c) {
                    o->oom = true;
                    return;
                }
                memcpy(c, s, sn * sizeof *c);
                apply_affix(d, o, c, sn, id, -1, depth, true, circumfix, case_variant);
            }
        }
    }
    if (do_suffix) {
        size_t limit = d->fullstrip ? 0 : 1;
        for (size_t i = n + 1; i-- > limit;) {
            const hs_slot *ids = map_find(&d->sfx, w + i, n - i);
            for (uint32_t j = 0; ids && j < ids->nvals; j++) {
                uint32_t id = ids->vals[j];
                if ((int64_t)id == previous) continue;
                const hs_affix *a = &d->aff[id];
                if (!compatible(d, a, depth, prev_flag, prev_was_prefix)) continue;
                size_t sn = i + a->strip.n;
                if (sn > n + 63) continue;
                memcpy(s, w, i * sizeof *s);
                memcpy(s + i, a->strip.v, a->strip.n * sizeof *s);
                if (!cond_ok(a, false, s, sn)) continue;
                uint32_t *c = tv_arena_alloc(o->a, (sn + 1) * sizeof *c);
                if (!c) {
                    o->oom = true;
                    return;
                }
                memcpy(c, s, sn * sizeof *c);
                apply_affix(d, o, c, sn, id, prefix_flag, depth, false, circumfix, case_variant);
            }
        }
    }
}

static void do_stem(const hs_dict *d, hs_out *o, const uint32_t *w, size_t n, bool case_variant) {
    const hs_slot *forms = map_find(&d->words, w, n);
    for (uint32_t i = 0; forms && i < forms->nvals; i++) {
        const u32s *wf = &d->fsets[forms->vals[i]];
        if (case_variant && d->keepcase >= 0 && has_flag(wf, (uint32_t)d->keepcase)) continue;
        if (d->needaffix >= 0 && has_flag(wf, (uint32_t)d->needaffix)) continue;
        if (d->onlyincompound >= 0 && has_flag(wf, (uint32_t)d->onlyincompound)) continue;
        out_add(d, o, w, n);
    }
    strip_affixes(d, o, w, n, -1, -1, -1, 0, true, true, false, false, case_variant);
}

static bool is_upper(uint32_t cp) { return tv_uc_props(cp)->gc == TV_GC_LU; }

/* all stems of w (code points), case variants included */
static void stem(const hs_dict *d, hs_out *o, uint32_t *w, size_t n) {
    int kind = 0; /* 0 exact, 1 Title, 2 UPPER */
    if (n && is_upper(w[0])) {
        bool up = false, low = false;
        for (size_t i = 1; i < n; i++) {
            bool u = is_upper(w[i]);
            up |= u;
            low |= !u;
        }
        kind = !low ? 2 : !up ? 1 : 0;
    }
    do_stem(d, o, w, n, false);
    if (kind == 0) return;
    uint32_t *v = tv_arena_alloc(o->a, (n + 1) * sizeof *v);
    if (!v) {
        o->oom = true;
        return;
    }
    memcpy(v, w, n * sizeof *v);
    if (kind == 2) { /* Title: all but the first lower-cased */
        for (size_t i = 1; i < n; i++) v[i] = tv_uc_lower(v[i]);
        do_stem(d, o, v, n, true);
    }
    uint32_t *l = tv_arena_alloc(o->a, (n + 1) * sizeof *l);
    if (!l) {
        o->oom = true;
        return;
    }
    memcpy(l, kind == 2 ? v : w, n * sizeof *l);
    l[0] = tv_uc_lower(l[0]);
    do_stem(d, o, l, n, true);
}

/* ----------------------------------------------------------- the filter */

typedef struct hs_cfg {
    const hs_dict *d;
    bool dedup, longest_only;
} hs_cfg;

static tv_status hunspell_build(tv_comp *c, const void **out, tv_error *err) {
    if (tv_comp_bare(c)) return tv_comp_requires_settings(err);
    size_t n;
    const char *locale = tv_comp_str(c, "locale", &n);
    if (!locale) locale = tv_comp_str(c, "language", &n);
    if (!locale) locale = tv_comp_str(c, "lang", &n);
    if (!locale)
        return tv_error_set(err, TROVE_EARG, "missing [locale | language | lang] configuration for hunspell token filter");
    hs_cfg *cfg = tv_comp_alloc(c, sizeof *cfg);
    if (!cfg) return TROVE_ENOMEM;
    tv_status st = tv_comp_bool(c, "dedup", true, &cfg->dedup, err);
    if (!st) st = tv_comp_bool(c, "longest_only", false, &cfg->longest_only, err);
    if (st) return st;
    char name[256];
    bool safe = n > 0 && n < sizeof name && !memchr(locale, '/', n) && !(n >= 2 && locale[0] == '.');
    if (safe) {
        memcpy(name, locale, n);
        name[n] = 0;
    }
    cfg->d = safe ? dict_get(name) : NULL;
    if (!cfg->d)
        return tv_error_set(err, TROVE_EINTERNAL, "failed to load hunspell dictionary for locale: %.*s", (int)n,
                            locale);
    *out = cfg;
    return TROVE_OK;
}

static size_t utf16_units(const u32s *s) {
    size_t u = 0;
    for (uint32_t i = 0; i < s->n; i++) u += s->v[i] >= 0x10000 ? 2 : 1;
    return u;
}

/* HunspellStemFilter's order for longest_only: longer first, then the
 * greater text first */
static int longer_first(const void *x, const void *y) {
    const u32s *a = x, *b = y;
    size_t la = utf16_units(a), lb = utf16_units(b);
    if (la != lb) return la > lb ? -1 : 1;
    for (uint32_t i = 0; i < a->n && i < b->n; i++)
        if (a->v[i] != b->v[i]) return a->v[i] > b->v[i] ? -1 : 1;
    return a->n == b->n ? 0 : a->n > b->n ? -1 : 1;
}

static char *encode(tv_arena *a, const u32s *s, uint32_t *len) {
    char *o = tv_arena_alloc(a, s->n * 4 + 1);
    if (!o) return NULL;
    size_t k = 0;
    for (uint32_t i = 0; i < s->n; i++) k += tv_utf8_encode(s->v[i], (uint8_t *)o + k);
    o[k] = 0;
    *len = (uint32_t)k;
    return o;
}

static tv_status hunspell_apply(tv_arena *a, const void *cfgp, tv_tokvec *v) {
    const hs_cfg *cfg = cfgp;
    const hs_dict *d = cfg->d;
    tv_tokvec out = *v;
    out.items = NULL;
    out.len = out.cap = 0;
    size_t g = conv_growth(d->iconv, d->niconv) + 1;
    for (size_t i = 0; i < v->len; i++) {
        tv_token t = v->items[i];
        if (t.flags & TV_TOKF_KEYWORD) {
            if (tv_tokvec_push(a, &out, &t)) return TROVE_ENOMEM;
            continue;
        }
        uint32_t *w = tv_arena_alloc(a, (t.term_len + 1) * g * sizeof *w);
        uint32_t *tmp = tv_arena_alloc(a, (t.term_len + 1) * g * sizeof *tmp);
        uint32_t *cw = tv_arena_alloc(a, (t.term_len + 1) * g * sizeof *cw);
        if (!w || !tmp || !cw) return TROVE_ENOMEM;
        size_t n = decode(t.term, t.term_len, w);
        n = clean(d, w, n, cw, tmp);
        hs_out o = {.a = a};
        stem(d, &o, cw, n);
        if (o.oom) return TROVE_ENOMEM;
        if (cfg->dedup && o.n > 1) {
            size_t k = 0;
            for (size_t x = 0; x < o.n; x++) {
                bool seen = false;
                for (size_t y = 0; y < k && !seen; y++)
                    seen = o.v[y].n == o.v[x].n && !memcmp(o.v[y].v, o.v[x].v, o.v[x].n * sizeof *o.v[x].v);
                if (!seen) o.v[k++] = o.v[x];
            }
            o.n = k;
        }
        if (o.n == 0) { /* an unknown word passes unchanged */
            if (tv_tokvec_push(a, &out, &t)) return TROVE_ENOMEM;
            continue;
        }
        if (cfg->longest_only && o.n > 1) {
            qsort(o.v, o.n, sizeof *o.v, longer_first);
            o.n = 1;
        }
        for (size_t x = 0; x < o.n; x++) {
            tv_token s = t;
            if (!(s.term = encode(a, &o.v[x], &s.term_len))) return TROVE_ENOMEM;
            if (x > 0) s.position = 0; /* the other stems share the position */
            if (tv_tokvec_push(a, &out, &s)) return TROVE_ENOMEM;
        }
    }
    *v = out;
    return TROVE_OK;
}

const tv_filter_type tv_tf_hunspell = {"hunspell", hunspell_build, hunspell_apply};
