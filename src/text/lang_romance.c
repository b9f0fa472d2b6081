/*
 * lang_romance.c — the Romance languages' light and minimal stemmers, as
 * Lucene's: FrenchLightStemmer, FrenchMinimalStemmer, SpanishLightStemmer,
 * ItalianLightStemmer, PortugueseLightStemmer, and the RSLP stemmers
 * (PortugueseStemmer = portuguese_rslp, PortugueseMinimalStemmer, and
 * GalicianStemmer / GalicianMinimalStemmer) driven by Lucene's rule files
 * pt/portuguese.rslp and gl/galician.rslp (embedded from Debian's jar,
 * resources.c), parsed on first use.
 *
 * The light stemmers are short suffix rules over UTF-16 units (lang_eu.h):
 * each is written from the algorithm (strip a plural, a feminine, a few
 * derivational endings; fold accents), with Lucene's length conditions.
 * RSLP (Orengo & Huyck): steps of rules "suffix, minimum stem length,
 * replacement, exceptions"; a step applies when the word is long enough
 * and ends with one of the step's suffixes; its first matching rule
 * rewrites the ending. Exceptions are whole words (step type 1) or word
 * endings (type 0). Rejected: generating C tables from the rule files at
 * build time — the parser is small, and the files stay Lucene's own.
 */
#include <pthread.h>
#include <stdlib.h>
#include <uchar.h>

#include "text/lang_eu.h"

#define ENDS(suf) tv_s16_ends(s, len, suf)

/* ------------------------------------------------------------- French */

static int fr_norm(uint16_t *s, int len) {
    if (len > 4) {
        for (int i = 0; i < len; i++) switch (s[i]) {
            case u'à': case u'á': case u'â': s[i] = 'a'; break;
            case u'ô': s[i] = 'o'; break;
            case u'è': case u'é': case u'ê': s[i] = 'e'; break;
            case u'ù': case u'û': s[i] = 'u'; break;
            case u'î': s[i] = 'i'; break;
            case u'ç': s[i] = 'c'; break;
            }
        uint16_t ch = s[0];
        for (int i = 1; i < len; i++) {
            if (s[i] == ch && (tv_uc_props(ch)->flags & TV_UCF_JLETTER)) len = tv_s16_delete(s, i--, len);
            else ch = s[i];
        }
    }
    if (len > 4 && ENDS("ie")) len -= 2;
    if (len > 4) {
        if (s[len - 1] == 'r') len--;
        if (s[len - 1] == 'e') len--;
        if (s[len - 1] == 'e') len--;
        if (s[len - 1] == s[len - 2] && (tv_uc_props(s[len - 1])->flags & TV_UCF_JLETTER)) len--;
    }
    return len;
}

static int fr_light(uint16_t *s, int len) {
    if (len > 5 && s[len - 1] == 'x') {
        if (s[len - 3] == 'a' && s[len - 2] == 'u' && s[len - 4] != 'e') s[len - 2] = 'l';
        len--;
    }
    if (len > 3 && s[len - 1] == 'x') len--;
    if (len > 3 && s[len - 1] == 's') len--;
    if (len > 9 && ENDS("issement")) {
        len -= 6;
        s[len - 1] = 'r';
        return fr_norm(s, len);
    }
    if (len > 8 && ENDS("issant")) {
        len -= 4;
        s[len - 1] = 'r';
        return fr_norm(s, len);
    }
    if (len > 6 && ENDS("ement")) {
        len -= 4;
        if (len > 3 && ENDS("ive")) {
            len--;
            s[len - 1] = 'f';
        }
        return fr_norm(s, len);
    }
    if (len > 11 && ENDS("ficatrice")) {
        len -= 5;
        s[len - 2] = 'e';
        s[len - 1] = 'r';
        return fr_norm(s, len);
    }
    if (len > 10 && ENDS("ficateur")) {
        len -= 4;
        s[len - 2] = 'e';
        s[len - 1] = 'r';
        return fr_norm(s, len);
    }
    if (len > 9 && ENDS("catrice")) {
        len -= 3;
        s[len - 4] = 'q';
        s[len - 3] = 'u';
        s[len - 2] = 'e';
        return fr_norm(s, len);
    }
    if (len > 8 && ENDS("cateur")) {
        len -= 2;
        s[len - 4] = 'q';
        s[len - 3] = 'u';
        s[len - 2] = 'e';
        s[len - 1] = 'r';
        return fr_norm(s, len);
    }
    if (len > 8 && ENDS("atrice")) {
        len -= 4;
        s[len - 2] = 'e';
        s[len - 1] = 'r';
        return fr_norm(s, len);
    }
    if (len > 7 && ENDS("ateur")) {
        len -= 3;
        s[len - 2] = 'e';
        s[len - 1] = 'r';
        return fr_norm(s, len);
    }
    if (len > 6 && ENDS("trice")) {
        len--;
        s[len - 3] = 'e';
        s[len - 2] = 'u';
        s[len - 1] = 'r';
    }
    if (len > 5 && ENDS("ième")) return fr_norm(s, len - 4);
    if (len > 7 && ENDS("teuse")) {
        len -= 2;
        s[len - 1] = 'r';
        return fr_norm(s, len);
    }
    if (len > 6 && ENDS("teur")) {
        len--;
        s[len - 1] = 'r';
        return fr_norm(s, len);
    }
    if (len > 5 && ENDS("euse")) return fr_norm(s, len - 2);
    if (len > 8 && ENDS("ère")) {
        len--;
        s[len - 2] = 'e';
        return fr_norm(s, len);
    }
    if (len > 7 && ENDS("ive")) {
        len--;
        s[len - 1] = 'f';
        return fr_norm(s, len);
    }
    if (len > 4 && (ENDS("folle") || ENDS("molle"))) {
        len -= 2;
        s[len - 1] = 'u';
        return fr_norm(s, len);
    }
    if (len > 9 && ENDS("nnelle")) return fr_norm(s, len - 5);
    if (len > 9 && ENDS("nnel")) return fr_norm(s, len - 3);
    if (len > 4 && ENDS("ète")) {
        len--;
        s[len - 2] = 'e';
    }
    if (len > 8 && ENDS("ique")) len -= 4;
    if (len > 8 && ENDS("esse")) return fr_norm(s, len - 3);
    if (len > 7 && ENDS("inage")) return fr_norm(s, len - 3);
    if (len > 9 && ENDS("isation")) {
        len -= 7;
        if (len > 5 && ENDS("ual")) s[len - 2] = 'e';
        return fr_norm(s, len);
    }
    if (len > 9 && ENDS("isateur")) return fr_norm(s, len - 7);
    if (len > 8 && ENDS("ation")) return fr_norm(s, len - 5);
    if (len > 8 && ENDS("ition")) return fr_norm(s, len - 5);
    return fr_norm(s, len);
}

static int fr_minimal(uint16_t *s, int len) {
    if (len < 6) return len;
    if (s[len - 1] == 'x') {
        if (s[len - 3] == 'a' && s[len - 2] == 'u') s[len - 2] = 'l';
        return len - 1;
    }
    if (s[len - 1] == 's') len--;
    if (s[len - 1] == 'r') len--;
    if (s[len - 1] == 'e') len--;
    if (s[len - 1] == u'é') len--;
    if (s[len - 1] == s[len - 2]) len--;
    return len;
}

/* ------------------------------------------------------ Spanish, Italian */

static void fold5(uint16_t *s, int len) {
    for (int i = 0; i < len; i++) switch (s[i]) {
        case u'à': case u'á': case u'â': case u'ä': s[i] = 'a'; break;
        case u'ò': case u'ó': case u'ô': case u'ö': s[i] = 'o'; break;
        case u'è': case u'é': case u'ê': case u'ë': s[i] = 'e'; break;
        case u'ù': case u'ú': case u'û': case u'ü': s[i] = 'u'; break;
        case u'ì': case u'í': case u'î': case u'ï': s[i] = 'i'; break;
        }
}

static int es_light(uint16_t *s, int len) {
    if (len < 5) return len;
    fold5(s, len);
    switch (s[len - 1]) {
    case 'o': case 'a': case 'e': return len - 1;
    case 's':
        if (s[len - 2] == 'e' && s[len - 3] == 's' && s[len - 4] == 'e') return len - 2;
        if (s[len - 2] == 'e' && s[len - 3] == 'c') {
            s[len - 3] = 'z';
            return len - 2;
        }
        if (s[len - 2] == 'o' || s[len - 2] == 'a' || s[len - 2] == 'e') return len - 2;
        return len;
    default: return len;
    }
}

static int it_light(uint16_t *s, int len) {
    if (len < 6) return len;
    fold5(s, len);
    switch (s[len - 1]) {
    case 'e': return s[len - 2] == 'i' || s[len - 2] == 'h' ? len - 2 : len - 1;
    case 'i': return s[len - 2] == 'h' || s[len - 2] == 'i' ? len - 2 : len - 1;
    case 'a': return s[len - 2] == 'i' ? len - 2 : len - 1;
    case 'o': return s[len - 2] == 'i' ? len - 2 : len - 1;
    }
    return len;
}

/* ----------------------------------------------------- Portuguese light */

static int pt_remove_suffix(uint16_t *s, int len) {
    if (len > 4 && ENDS("es")) switch (s[len - 3]) {
        case 'r': case 's': case 'l': case 'z': return len - 2;
        }
    if (len > 3 && ENDS("ns")) {
        s[len - 2] = 'm';
        return len - 1;
    }
    if (len > 4 && (ENDS("eis") || ENDS("éis"))) {
        s[len - 3] = 'e';
        s[len - 2] = 'l';
        return len - 1;
    }
    if (len > 4 && ENDS("ais")) {
        s[len - 2] = 'l';
        return len - 1;
    }
    if (len > 4 && ENDS("óis")) {
        s[len - 3] = 'o';
        s[len - 2] = 'l';
        return len - 1;
    }
    if (len > 4 && ENDS("is")) {
        s[len - 1] = 'l';
        return len;
    }
    if (len > 3 && (ENDS("ões") || ENDS("ães"))) {
        len--;
        s[len - 2] = u'ã';
        s[len - 1] = 'o';
        return len;
    }
    if (len > 6 && ENDS("mente")) return len - 5;
    if (len > 3 && s[len - 1] == 's') return len - 1;
    return len;
}

static int pt_norm_feminine(uint16_t *s, int len) {
    if (len > 7 && (ENDS("inha") || ENDS("iaca") || ENDS("eira"))) {
        s[len - 1] = 'o';
        return len;
    }
    if (len > 6) {
        if (ENDS("osa") || ENDS("ica") || ENDS("ida") || ENDS("ada") || ENDS("iva") || ENDS("ama")) {
            s[len - 1] = 'o';
            return len;
        }
        if (ENDS("ona")) {
            s[len - 3] = u'ã';
            s[len - 2] = 'o';
            return len - 1;
        }
        if (ENDS("ora")) return len - 1;
        if (ENDS("esa")) {
            s[len - 3] = u'ê';
            return len - 1;
        }
        if (ENDS("na")) {
            s[len - 1] = 'o';
            return len;
        }
    }
    return len;
}

static int pt_light(uint16_t *s, int len) {
    if (len < 4) return len;
    len = pt_remove_suffix(s, len);
    if (len > 3 && s[len - 1] == 'a') len = pt_norm_feminine(s, len);
    if (len > 4) switch (s[len - 1]) {
        case 'e': case 'a': case 'o': len--; break;
        }
    for (int i = 0; i < len; i++) switch (s[i]) {
        case u'à': case u'á': case u'â': case u'ä': case u'ã': s[i] = 'a'; break;
        case u'ò': case u'ó': case u'ô': case u'ö': case u'õ': s[i] = 'o'; break;
        case u'è': case u'é': case u'ê': case u'ë': s[i] = 'e'; break;
        case u'ù': case u'ú': case u'û': case u'ü': s[i] = 'u'; break;
        case u'ì': case u'í': case u'î': case u'ï': s[i] = 'i'; break;
        case u'ç': s[i] = 'c'; break;
        }
    return len;
}

/* ------------------------------------------------------------------ RSLP */

typedef struct rslp_str {
    uint16_t *u;
    int n;
} rslp_str;

typedef struct rslp_rule {
    rslp_str suffix, repl;
    int min;
    rslp_str *exc;
    size_t nexc;
} rslp_rule;

typedef struct rslp_step {
    char name[32];
    int min;
    bool word_exceptions; /* type 1: exceptions are whole words */
    rslp_str *suffixes;
    size_t nsuffixes;
    rslp_rule *rules;
    size_t nrules;
} rslp_step;

typedef struct rslp {
    rslp_step steps[16];
    size_t nsteps;
    bool ok;
} rslp;

static bool s16_ends(const uint16_t *s, int len, const rslp_str *x) {
    return x->n <= len && memcmp(s + len - x->n, x->u, (size_t)x->n * sizeof *s) == 0;
}

/* A tiny cursor over one trimmed line. */
typedef struct cur {
    const char *p, *e;
} cur;
static void skip_ws(cur *c) {
    while (c->p < c->e && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r')) c->p++;
}
static bool lit(cur *c, char ch) {
    skip_ws(c);
    if (c->p < c->e && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}
static bool qstr(cur *c, rslp_str *out) {
    skip_ws(c);
    if (c->p >= c->e || *c->p != '"') return false;
    const char *b = ++c->p;
    while (c->p < c->e && *c->p != '"') c->p++;
    if (c->p >= c->e) return false;
    size_t n = (size_t)(c->p - b);
    c->p++;
    out->u = malloc((n + 1) * sizeof *out->u);
    if (!out->u) return false;
    const uint8_t *q = (const uint8_t *)b, *qe = q + n;
    int k = 0;
    while (q < qe) {
        uint32_t cp;
        q += tv_utf8_decode(q, qe, &cp);
        out->u[k++] = (uint16_t)cp;
    }
    out->n = k;
    return true;
}
static bool num(cur *c, int *out) {
    skip_ws(c);
    if (c->p >= c->e || *c->p < '0' || *c->p > '9') return false;
    int v = 0;
    while (c->p < c->e && *c->p >= '0' && *c->p <= '9') v = v * 10 + (*c->p++ - '0');
    *out = v;
    return true;
}
/* {"a","b",...} or {} */
static bool qlist(cur *c, rslp_str **out, size_t *n) {
    *out = NULL;
    *n = 0;
    if (!lit(c, '{')) return false;
    if (lit(c, '}')) return true;
    size_t cap = 0;
    for (;;) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            rslp_str *g = realloc(*out, cap * sizeof *g);
            if (!g) return false;
            *out = g;
        }
        if (!qstr(c, &(*out)[*n])) return false;
        (*n)++;
        if (lit(c, '}')) return true;
        if (!lit(c, ',')) return false;
    }
}

/* The next line that is neither empty nor a comment, trimmed. */
static bool next_line(const char **p, const char *end, cur *line) {
    while (*p < end) {
        const char *b = *p, *e = memchr(b, '\n', (size_t)(end - b));
        if (!e) e = end;
        *p = e < end ? e + 1 : end;
        while (b < e && (*b == ' ' || *b == '\t')) b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
        if (e > b && *b != '#') {
            line->p = b;
            line->e = e;
            return true;
        }
    }
    return false;
}

static bool rslp_parse(rslp *r, const char *data, size_t n) {
    const char *p = data, *end = data + n;
    cur line;
    while (next_line(&p, end, &line)) {
        if (r->nsteps == TV_ARRAY_LEN(r->steps)) return false;
        rslp_step *st = &r->steps[r->nsteps++];
        rslp_str name;
        int type;
        if (!lit(&line, '{') || !qstr(&line, &name) || !lit(&line, ',') || !num(&line, &st->min) ||
            !lit(&line, ',') || !num(&line, &type) || !lit(&line, ',') ||
            !qlist(&line, &st->suffixes, &st->nsuffixes) || !lit(&line, ','))
            return false;
        int k = 0;
        for (; k < name.n && k < (int)sizeof st->name - 1; k++) st->name[k] = (char)name.u[k];
        st->name[k] = 0;
        free(name.u);
        st->word_exceptions = type == 1;
        size_t cap = 0;
        for (;;) {
            if (!next_line(&p, end, &line)) return false;
            bool last = line.e[-1] == ';';
            if (st->nrules == cap) {
                cap = cap ? cap * 2 : 16;
                rslp_rule *g = realloc(st->rules, cap * sizeof *g);
                if (!g) return false;
                st->rules = g;
            }
            rslp_rule *ru = &st->rules[st->nrules++];
            memset(ru, 0, sizeof *ru);
            if (!lit(&line, '{') || !qstr(&line, &ru->suffix) || !lit(&line, ',') ||
                !num(&line, &ru->min))
                return false;
            if (lit(&line, ',')) {
                if (!qstr(&line, &ru->repl)) return false;
                if (lit(&line, ',') && !qlist(&line, &ru->exc, &ru->nexc)) return false;
            }
            if (!lit(&line, '}')) return false;
            if (last) break;
        }
        if (st->min == 0) {
            st->min = INT32_MAX;
            for (size_t i = 0; i < st->nrules; i++)
                if (st->rules[i].min + st->rules[i].suffix.n < st->min)
                    st->min = st->rules[i].min + st->rules[i].suffix.n;
        }
    }
    return true;
}

static const rslp_step *rslp_step_get(const rslp *r, const char *name) {
    for (size_t i = 0; r->ok && i < r->nsteps; i++)
        if (strcmp(r->steps[i].name, name) == 0) return &r->steps[i];
    return NULL;
}

static int rslp_apply(const rslp_step *st, uint16_t *s, int len) {
    if (!st || len < st->min) return len;
    if (st->nsuffixes) {
        bool found = false;
        for (size_t i = 0; i < st->nsuffixes && !found; i++) found = s16_ends(s, len, &st->suffixes[i]);
        if (!found) return len;
    }
    for (size_t i = 0; i < st->nrules; i++) {
        const rslp_rule *ru = &st->rules[i];
        bool match;
        if (st->word_exceptions) {
            match = true;
            for (size_t k = 0; k < ru->nexc && match; k++)
                if (ru->exc[k].n == len && memcmp(ru->exc[k].u, s, (size_t)len * sizeof *s) == 0)
                    match = false;
            match = match && len - ru->suffix.n >= ru->min && s16_ends(s, len, &ru->suffix);
        } else {
            match = len - ru->suffix.n >= ru->min && s16_ends(s, len, &ru->suffix);
            for (size_t k = 0; k < ru->nexc && match; k++)
                if (s16_ends(s, len, &ru->exc[k])) match = false;
        }
        if (match) {
            if (ru->repl.n) memcpy(s + len - ru->suffix.n, ru->repl.u, (size_t)ru->repl.n * sizeof *s);
            return len - ru->suffix.n + ru->repl.n;
        }
    }
    return len;
}

/* The two rule files, parsed once for the life of the process. */
static rslp rslp_pt, rslp_gl;
static pthread_once_t once_pt = PTHREAD_ONCE_INIT, once_gl = PTHREAD_ONCE_INIT;
static void load(rslp *r, const char *res) {
    size_t n;
    const char *d = tv_resource(res, &n);
    r->ok = d && rslp_parse(r, d, n);
}
static void load_pt(void) { load(&rslp_pt, "pt/portuguese.rslp"); }
static void load_gl(void) { load(&rslp_gl, "gl/galician.rslp"); }
static const rslp *pt(void) {
    pthread_once(&once_pt, load_pt);
    return &rslp_pt;
}
static const rslp *gl(void) {
    pthread_once(&once_gl, load_gl);
    return &rslp_gl;
}

static int pt_rslp(uint16_t *s, int len) {
    const rslp *r = pt();
    len = rslp_apply(rslp_step_get(r, "Plural"), s, len);
    len = rslp_apply(rslp_step_get(r, "Adverb"), s, len);
    len = rslp_apply(rslp_step_get(r, "Feminine"), s, len);
    len = rslp_apply(rslp_step_get(r, "Augmentative"), s, len);
    int old = len;
    len = rslp_apply(rslp_step_get(r, "Noun"), s, len);
    if (len == old) {
        old = len;
        len = rslp_apply(rslp_step_get(r, "Verb"), s, len);
        if (len == old) len = rslp_apply(rslp_step_get(r, "Vowel"), s, len);
    }
    for (int i = 0; i < len; i++) switch (s[i]) {
        case u'à': case u'á': case u'â': case u'ã': case u'ä': case u'å': s[i] = 'a'; break;
        case u'ç': s[i] = 'c'; break;
        case u'è': case u'é': case u'ê': case u'ë': s[i] = 'e'; break;
        case u'ì': case u'í': case u'î': case u'ï': s[i] = 'i'; break;
        case u'ñ': s[i] = 'n'; break;
        case u'ò': case u'ó': case u'ô': case u'õ': case u'ö': s[i] = 'o'; break;
        case u'ù': case u'ú': case u'û': case u'ü': s[i] = 'u'; break;
        case u'ý': case u'ÿ': s[i] = 'y'; break;
        }
    return len;
}

static int pt_minimal(uint16_t *s, int len) { return rslp_apply(rslp_step_get(pt(), "Plural"), s, len); }

static int gl_rslp(uint16_t *s, int len) {
    const rslp *r = gl();
    len = rslp_apply(rslp_step_get(r, "Plural"), s, len);
    len = rslp_apply(rslp_step_get(r, "Unification"), s, len);
    len = rslp_apply(rslp_step_get(r, "Adverb"), s, len);
    int old;
    do {
        old = len;
        len = rslp_apply(rslp_step_get(r, "Augmentative"), s, len);
    } while (len != old);
    old = len;
    len = rslp_apply(rslp_step_get(r, "Noun"), s, len);
    if (len == old) len = rslp_apply(rslp_step_get(r, "Verb"), s, len);
    len = rslp_apply(rslp_step_get(r, "Vowel"), s, len);
    for (int i = 0; i < len; i++) switch (s[i]) {
        case u'á': s[i] = 'a'; break;
        case u'é': case u'ê': s[i] = 'e'; break;
        case u'í': s[i] = 'i'; break;
        case u'ó': s[i] = 'o'; break;
        case u'ú': s[i] = 'u'; break;
        }
    return len;
}

static int gl_minimal(uint16_t *s, int len) { return rslp_apply(rslp_step_get(gl(), "Plural"), s, len); }

/* ------------------------------------------------------------ Brazilian */

/*
 * BrazilianStemmer (Lucene's brazilian_stem and BrazilianAnalyzer): the
 * term lower-cased with accents folded (ã/õ to a/o, ç to c...), one
 * leading and one trailing punctuation mark dropped; terms shorter than 3
 * or longer than 29 units stay as they were, terms with a non-letter come
 * out folded but unstemmed. Then Snowball-like steps over the regions R1,
 * R2 and RV, which are computed once from the folded term and never
 * recomputed while the steps shorten it (as Lucene's are): step 1 noun
 * suffixes in R2 (R1 for -amente), else step 2 verb suffixes in RV; step 3
 * (-ci) after a change, step 4 residual -os/-a/-i/-o otherwise; step 5 a
 * final -e (with -gu/-ci). Two quirks of Lucene's are kept: -logias
 * answers "changed" without changing the term, and RV ending in -ira in
 * step 2 removes nothing (it asks to remove -ava).
 */
typedef struct br {
    uint16_t ct0[48]; /* the folded term the regions are suffixes of */
    int n0;
    uint16_t ct[48];
    int n;
    int r1, r2, rv; /* start offsets in ct0, -1: no region */
} br;

static bool br_vowel(uint16_t c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

/* Lucene's getR1 over the suffix of ct0 starting at off. */
static int br_r1(const br *b, int off) {
    if (off < 0) return -1;
    const uint16_t *v = b->ct0 + off;
    int i = b->n0 - off - 1, j;
    for (j = 0; j < i; j++)
        if (br_vowel(v[j])) break;
    if (!(j < i)) return -1;
    for (; j < i; j++)
        if (!br_vowel(v[j])) break;
    if (!(j < i)) return -1;
    return off + j + 1;
}

static int br_rv(const br *b) {
    const uint16_t *v = b->ct0;
    int i = b->n0 - 1, j;
    if (i > 0 && !br_vowel(v[1])) {
        for (j = 2; j < i; j++)
            if (br_vowel(v[j])) break;
        if (j < i) return j + 1;
    }
    if (i > 1 && br_vowel(v[0]) && br_vowel(v[1])) {
        for (j = 2; j < i; j++)
            if (!br_vowel(v[j])) break;
        if (j < i) return j + 1;
    }
    if (i > 2) return 3;
    return -1;
}

/* Whether region `r` (a suffix of ct0) ends with the ASCII suffix x. */
static bool br_in(const br *b, int r, const char *x) {
    if (r < 0) return false;
    int xl = (int)strlen(x);
    if (xl > b->n0 - r) return false;
    for (int k = 0; k < xl; k++)
        if (b->ct0[b->n0 - xl + k] != (uint8_t)x[k]) return false;
    return true;
}
static bool br_ct_ends(const br *b, const char *x) {
    int xl = (int)strlen(x);
    if (xl > b->n) return false;
    for (int k = 0; k < xl; k++)
        if (b->ct[b->n - xl + k] != (uint8_t)x[k]) return false;
    return true;
}
static void br_remove(br *b, const char *x) {
    if (br_ct_ends(b, x)) b->n -= (int)strlen(x);
}
static void br_replace(br *b, const char *x, const char *to) {
    if (!br_ct_ends(b, x)) return;
    b->n -= (int)strlen(x);
    for (const char *p = to; *p; p++) b->ct[b->n++] = (uint8_t)*p;
}
/* Region r ends with x and what precedes x there ends with pre. */
static bool br_preceded(const br *b, int r, const char *x, const char *pre) {
    if (!br_in(b, r, x)) return false;
    int xl = (int)strlen(x), pl = (int)strlen(pre), end = b->n0 - xl;
    if (pl > end - r) return false;
    for (int k = 0; k < pl; k++)
        if (b->ct0[end - pl + k] != (uint8_t)pre[k]) return false;
    return true;
}
static bool br_ct_preceded(const br *b, const char *x, const char *pre) {
    int xl = (int)strlen(x), pl = (int)strlen(pre);
    if (!br_ct_ends(b, x) || pl > b->n - xl) return false;
    for (int k = 0; k < pl; k++)
        if (b->ct[b->n - xl - pl + k] != (uint8_t)pre[k]) return false;
    return true;
}

static bool br_step1(br *b) {
    static const struct { const char *suf, *to; int minlen; char region; } rules[] = {
        {"uciones", "u", 0, '2'},
        {"imentos", NULL, 6, '2'}, {"amentos", NULL, 6, '2'}, {"adores", NULL, 6, '2'},
        {"adoras", NULL, 6, '2'}, {"logias", "=", 6, '2'}, {"encias", "ente", 6, '2'},
        {"amente", NULL, 6, '1'}, {"idades", NULL, 6, '2'},
        {"acoes", NULL, 5, '2'}, {"imento", NULL, 5, '2'}, {"amento", NULL, 5, '2'},
        {"adora", NULL, 5, '2'}, {"ismos", NULL, 5, '2'}, {"istas", NULL, 5, '2'},
        {"logia", "log", 5, '2'}, {"ucion", "u", 5, '2'}, {"encia", "ente", 5, '2'},
        {"mente", NULL, 5, '2'}, {"idade", NULL, 5, '2'},
        {"acao", NULL, 4, '2'}, {"ezas", NULL, 4, '2'}, {"icos", NULL, 4, '2'},
        {"icas", NULL, 4, '2'}, {"ismo", NULL, 4, '2'}, {"avel", NULL, 4, '2'},
        {"ivel", NULL, 4, '2'}, {"ista", NULL, 4, '2'}, {"osos", NULL, 4, '2'},
        {"osas", NULL, 4, '2'}, {"ador", NULL, 4, '2'}, {"ivas", NULL, 4, '2'},
        {"ivos", NULL, 4, '2'}, {"iras", "ir", 4, 'V'},
        {"eza", NULL, 3, '2'}, {"ico", NULL, 3, '2'}, {"ica", NULL, 3, '2'},
        {"oso", NULL, 3, '2'}, {"osa", NULL, 3, '2'}, {"iva", NULL, 3, '2'},
        {"ivo", NULL, 3, '2'}, {"ira", "ir", 3, 'V'},
    };
    for (size_t i = 0; i < TV_ARRAY_LEN(rules); i++) {
        if (b->n < rules[i].minlen || !br_ct_ends(b, rules[i].suf)) continue;
        int r = rules[i].region == '1' ? b->r1 : rules[i].region == '2' ? b->r2 : b->rv;
        if (!br_in(b, r, rules[i].suf)) continue;
        if (rules[i].region == 'V' && !br_ct_preceded(b, rules[i].suf, "e")) continue;
        if (!rules[i].to) br_remove(b, rules[i].suf);
        else if (strcmp(rules[i].to, "=") != 0) br_replace(b, rules[i].suf, rules[i].to);
        return true;
    }
    return false;
}

static bool br_step2(br *b) {
    if (b->rv < 0) return false;
    /* in Lucene's order (longest first; a few repeat, "ira" removes "ava") */
    static const char *const sufs[] = {
        "issemos", "essemos", "assemos", "ariamos", "eriamos", "iriamos",
        "iremos", "eremos", "aremos", "avamos", "iramos", "eramos", "aramos", "asseis",
        "esseis", "isseis", "arieis", "erieis", "irieis",
        "irmos", "iamos", "armos", "ermos", "areis", "ereis", "ireis", "asses", "esses", "isses",
        "astes", "assem", "essem", "issem", "ardes", "erdes", "irdes", "ariam", "eriam", "iriam",
        "arias", "erias", "irias", "estes", "istes", "areis", "aveis",
        "aria", "eria", "iria", "asse", "esse", "isse", "aste", "este", "iste", "arei", "erei",
        "irei", "aram", "eram", "iram", "avam", "arem", "erem", "irem", "ando", "endo", "indo",
        "arao", "erao", "irao", "adas", "idas", "aras", "eras", "iras", "avas", "ares", "eres",
        "ires", "ados", "idos", "amos", "emos", "imos", "iras", "ieis",
        "ada", "ida", "ara", "era", "ira>ava", "iam", "ado", "ido", "ias", "ais", "eis", "ira",
        "ear",
        "ia", "ei", "am", "em", "ar", "er", "ir", "as", "es", "is", "eu", "iu", "iu", "ou"};
    for (size_t i = 0; i < TV_ARRAY_LEN(sufs); i++) {
        char suf[8];
        const char *gt = strchr(sufs[i], '>');
        size_t sl = gt ? (size_t)(gt - sufs[i]) : strlen(sufs[i]);
        memcpy(suf, sufs[i], sl);
        suf[sl] = 0;
        if (!br_in(b, b->rv, suf)) continue;
        br_remove(b, gt ? gt + 1 : suf);
        return true;
    }
    return false;
}

static int br_stem(uint16_t *s, int len) {
    br b;
    if (len >= 40) return len; /* folded it stays >= 30 units (at most 2 dropped) */
    int n = 0;
    for (int i = 0; i < len; i++) {
        uint16_t c = s[i] >= 0xD800 && s[i] < 0xE000 ? s[i] : (uint16_t)tv_uc_lower(s[i]);
        switch (c) {
        case u'á': case u'â': case u'ã': c = 'a'; break;
        case u'é': case u'ê': c = 'e'; break;
        case u'í': c = 'i'; break;
        case u'ó': case u'ô': case u'õ': c = 'o'; break;
        case u'ú': case u'ü': c = 'u'; break;
        case u'ç': c = 'c'; break;
        case u'ñ': c = 'n'; break;
        }
        b.ct[n++] = c;
    }
    uint16_t *ct = b.ct;
    if (n >= 2 && (ct[0] == '"' || ct[0] == '\'' || ct[0] == '-' || ct[0] == ',' || ct[0] == ';' ||
                   ct[0] == '.' || ct[0] == '?' || ct[0] == '!')) {
        memmove(ct, ct + 1, (size_t)(n - 1) * sizeof *ct);
        n--;
    }
    if (n >= 2) {
        uint16_t l = ct[n - 1];
        if (l == '-' || l == ',' || l == ';' || l == '.' || l == '?' || l == '!' || l == '\'' || l == '"')
            n--;
    }
    if (!(n < 30 && n > 2)) return len; /* not indexable: unchanged */
    b.n = n;
    bool letters = true;
    for (int i = 0; i < n && letters; i++)
        letters = ct[i] < 0xD800 ? (tv_uc_props(ct[i])->flags & TV_UCF_JLETTER) != 0 : ct[i] >= 0xE000 && (tv_uc_props(ct[i])->flags & TV_UCF_JLETTER);
    if (letters) {
        memcpy(b.ct0, ct, (size_t)n * sizeof *ct);
        b.n0 = n;
        b.r1 = br_r1(&b, 0);
        b.r2 = br_r1(&b, b.r1);
        b.rv = br_rv(&b);
        bool altered = br_step1(&b);
        if (!altered) altered = br_step2(&b);
        if (altered) {
            if (br_preceded(&b, b.rv, "i", "c")) br_remove(&b, "i");
        } else if (b.rv >= 0) {
            if (br_in(&b, b.rv, "os")) br_remove(&b, "os");
            else if (br_in(&b, b.rv, "a")) br_remove(&b, "a");
            else if (br_in(&b, b.rv, "i")) br_remove(&b, "i");
            else if (br_in(&b, b.rv, "o")) br_remove(&b, "o");
        }
        if (b.rv >= 0 && br_in(&b, b.rv, "e")) {
            if (br_preceded(&b, b.rv, "e", "gu")) {
                br_remove(&b, "e");
                br_remove(&b, "u");
            } else if (br_preceded(&b, b.rv, "e", "ci")) {
                br_remove(&b, "e");
                br_remove(&b, "i");
            } else {
                br_remove(&b, "e");
            }
        }
    }
    memcpy(s, b.ct, (size_t)b.n * sizeof *s);
    return b.n;
}

const tv_stem16 tv_stem_brazilian = {"brazilian", br_stem, false};

const tv_stem16 tv_stem_light_french = {"light_french", fr_light, false};
const tv_stem16 tv_stem_minimal_french = {"minimal_french", fr_minimal, false};
const tv_stem16 tv_stem_light_spanish = {"light_spanish", es_light, false};
const tv_stem16 tv_stem_light_italian = {"light_italian", it_light, false};
const tv_stem16 tv_stem_light_portuguese = {"light_portuguese", pt_light, false};
const tv_stem16 tv_stem_minimal_portuguese = {"minimal_portuguese", pt_minimal, false};
const tv_stem16 tv_stem_portuguese_rslp = {"portuguese_rslp", pt_rslp, false};
const tv_stem16 tv_stem_galician = {"galician", gl_rslp, false};
const tv_stem16 tv_stem_minimal_galician = {"minimal_galician", gl_minimal, false};
