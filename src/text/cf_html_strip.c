/*
 * cf_html_strip.c — the `html_strip` char filter (Lucene's
 * HTMLStripCharFilter, as OpenSearch's HtmlStripCharFilterFactory builds
 * it; setting escaped_tags, a list of tag names left in the text).
 *
 * What Lucene's JFlex scanner does, construct by construct:
 *   &name;        one of HTML 4.01's named entities, "apos", or AMP COPY GT
 *                 LT QUOT REG (gen_entities.py): its character. The ';' may
 *                 be missing only at the end of the text.
 *   &#123; &#x7B; a numeric reference (at most 7 decimal digits or "x" and 5
 *                 hex digits, <= 0x10FFFF; a lone surrogate gives U+FFFD),
 *                 a high/low surrogate pair written as two references one
 *                 character
 *   <p ...>       a start or end tag: removed; a tag that is not an inline
 *                 element (b, i, span, a, img, ...) becomes "\n"; <br> is
 *                 "\n" too. Attribute values quoted after name= may hold
 *                 '<' and '>'. A tag not closed by '>' stays as text.
 *   <!-- -->      comments (with server-side includes <!--# ... --> and
 *                 their quoted strings inside): removed
 *   <![CDATA[ ]]> the markers removed, the content kept as it is
 *   <!...>, <?...?>  declarations and processing instructions: removed
 *   <script>...</script>, <style>...</style>: the whole element becomes
 *                 "\n" (comments and quoted strings inside are skipped)
 *   escaped_tags  tags so named (any case) stay as they are; "br", "script"
 *                 and "style" keep their tags (a script's or style's content
 *                 is still removed, as Lucene does)
 * Anything that starts like a construct but does not complete is copied
 * as text, except at the very end of the text, where an unclosed comment,
 * script, style, quoted string or tag is removed and an unclosed entity
 * decoded (Lucene's end-of-input rules). Offsets are corrected where
 * Lucene corrects them (BaseCharFilter): a removed construct maps the
 * output after it (or after its "\n") to the input after it.
 *
 * Algorithm: a hand-written scanner over the states of Lucene's grammar;
 * the regular parts that need longest-match semantics (tag names, a tag's
 * attributes and closing '>', the <br>, <script>, <style> start tags,
 * processing instructions) are PCRE2 patterns written from the grammar,
 * matched anchored with the DFA matcher (compiled once per process). A run
 * of text without '&' or '<' is copied at once. Rejected: a generated
 * scanner (we would ship a JFlex-made table we cannot regenerate) and an
 * HTML parser library (libxml2's recovery differs from Lucene's rules).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdlib.h>
#include <strings.h>

#include "text/text_int.h"

extern const struct {
    const char *name;
    uint32_t cp;
} tv_html_entities[];
extern const size_t tv_html_entity_count;

typedef struct hs_cfg {
    const char **esc; /* escaped tag names other than br, script, style */
    size_t *esc_len;
    size_t nesc;
    bool esc_br, esc_script, esc_style;
} hs_cfg;

/* ------------------------------------------------------------ patterns */

#define NAME "[:_\\p{L}\\p{Nl}][-.:_\\p{L}\\p{Nl}\\p{Mn}\\p{Mc}\\p{Nd}\\p{Pc}]*"
#define SQ "'(?:\\\\'|[^'])*'"
#define DQ "\"(?:\\\\\"|[^\"])*\""
#define SSI "<!--#(?:[^'\"]|" SQ "|" DQ ")*-->"
#define ATTR "\\s+" NAME "\\s*=\\s*(?:" SQ "|" DQ ")"
#define OTC "(?:[^<>]|" SSI "|" ATTR ")*"

enum { P_NAME, P_INLINE, P_TAGTAIL, P_BR, P_SCRIPT, P_STYLE, P_PI, P_ENDBR, P_ENDTAIL,
       P_SCRIPTEND, P_STYLEEND, P_COUNT };
static const char *const pat_src[P_COUNT] = {
    [P_NAME] = NAME,
    [P_INLINE] = "(?i:[abiqsu]|abbr|acronym|basefont|bdo|big|cite|code|dfn|em|font|img|input|kbd|"
                 "label|samp|select|small|span|strike|strong|sub|sup|textarea|tt|var)",
    [P_TAGTAIL] = "(?:=\\s*" OTC "|" OTC ")?\\s*/?>",
    [P_BR] = "\\s*[bB][rR](?:=\\s*" OTC "|" OTC ")?\\s*/?>",
    [P_SCRIPT] = "\\s*[sS][cC][rR][iI][pP][tT](?:" OTC ")?\\s*>",
    [P_STYLE] = "\\s*[sS][tT][yY][lL][eE](?:" OTC ")?\\s*>",
    [P_PI] = "\\?[^>]*[/?]>",
    [P_ENDBR] = "[bB][rR]\\s*>",
    [P_ENDTAIL] = "\\s*>",
    [P_SCRIPTEND] = "</\\s*[sS][cC][rR][iI][pP][tT]\\s*>",
    [P_STYLEEND] = "</\\s*[sS][tT][yY][lL][eE]\\s*>",
};

static pcre2_code *pats[P_COUNT];
static bool pats_ok;
static pthread_once_t pats_once = PTHREAD_ONCE_INIT;

static void compile_pats(void) {
    for (int k = 0; k < P_COUNT; k++) {
        int ec;
        PCRE2_SIZE eo;
        pats[k] = pcre2_compile((PCRE2_SPTR)pat_src[k], PCRE2_ZERO_TERMINATED,
                                PCRE2_ANCHORED | PCRE2_UTF | PCRE2_UCP | PCRE2_NO_AUTO_POSSESS, &ec,
                                &eo, NULL);
        if (!pats[k]) return;
    }
    pats_ok = true;
}

/* ------------------------------------------------------------- settings */

static tv_status hs_build(tv_comp *c, const void **out, tv_error *err) {
    (void)err;
    pthread_once(&pats_once, compile_pats);
    if (!pats_ok) return TROVE_ENOMEM;
    hs_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    memset(g, 0, sizeof *g);
    const char *const *tags;
    const size_t *lens;
    size_t n;
    tv_comp_list_csv(c, "escaped_tags", &tags, &lens, &n);
    g->esc = tv_comp_alloc(c, (n ? n : 1) * sizeof *g->esc);
    g->esc_len = tv_comp_alloc(c, (n ? n : 1) * sizeof *g->esc_len);
    if (!g->esc || !g->esc_len) return TROVE_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] == 2 && strncasecmp(tags[i], "br", 2) == 0) g->esc_br = true;
        else if (lens[i] == 6 && strncasecmp(tags[i], "script", 6) == 0) g->esc_script = true;
        else if (lens[i] == 5 && strncasecmp(tags[i], "style", 5) == 0) g->esc_style = true;
        else {
            char *t = tv_comp_strdup(c, tags[i], lens[i]);
            if (!t) return TROVE_ENOMEM;
            g->esc[g->nesc] = t;
            g->esc_len[g->nesc++] = lens[i];
        }
    }
    *out = g;
    return TROVE_OK;
}

/* -------------------------------------------------------------- scanner */

#define WS_INTS 4000

typedef struct hs {
    const hs_cfg *g;
    const char *in;
    size_t len;
    tv_arena *a;
    tv_buf out;
    tv_offmap *map;
    int64_t cum; /* input - output from the last correction on */
    tv_status st;
    pcre2_match_data *md;
    int *ws;
    uint32_t mopts;
} hs;

/* Whether pattern k matches at p; its longest match's end in *end. */
static bool lm(hs *h, int k, size_t p, size_t *end) {
    if (p >= h->len) {
        if (k != P_TAGTAIL && k != P_ENDTAIL) return false; /* all others need a character */
    }
    int rc = pcre2_dfa_match(pats[k], (PCRE2_SPTR)h->in, h->len, p, h->mopts, h->md, NULL, h->ws,
                             WS_INTS);
    if (rc < 0) return false;
    *end = pcre2_get_ovector_pointer(h->md)[1];
    return true;
}

static void copy(hs *h, size_t s, size_t e) { tv_buf_append(&h->out, h->in + s, e - s); }

/* Input [s, e) becomes repl (rlen bytes): the output after repl maps to e. */
static void subst(hs *h, size_t s, size_t e, const char *repl, size_t rlen) {
    tv_buf_append(&h->out, repl, rlen);
    int64_t d = (int64_t)(e - s) - (int64_t)rlen;
    if (d == 0 || h->st) return;
    h->cum += d;
    h->st = tv_offmap_add(h->a, h->map, (uint32_t)h->out.len, (int32_t)h->cum);
}

static void subst_cp(hs *h, size_t s, size_t e, uint32_t cp) {
    uint8_t u[4];
    size_t n = tv_utf8_encode(cp, u);
    subst(h, s, e, (const char *)u, n);
}

static bool at(const hs *h, size_t p, const char *lit) {
    size_t n = strlen(lit);
    return p + n <= h->len && memcmp(h->in + p, lit, n) == 0;
}

static bool is_hex(char c) {
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alnum(char c) { return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'); }

static uint32_t parse(const char *s, size_t n, int base) {
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        uint32_t d = c <= '9' ? (uint32_t)(c - '0') : (uint32_t)((c | 0x20) - 'a' + 10);
        v = v * (uint32_t)base + d;
    }
    return v;
}

static int cmp_ent(const char *s, size_t n, const char *name) {
    size_t m = strlen(name);
    int c = memcmp(s, name, n < m ? n : m);
    return c ? c : (n < m ? -1 : n > m);
}

/* The longest entity name at p, its length (0: none) and character. */
static size_t entity_at(const hs *h, size_t p, uint32_t *cp) {
    size_t run = 0;
    while (p + run < h->len && run < 8 && is_alnum(h->in[p + run])) run++;
    for (size_t n = run; n > 0; n--) {
        size_t lo = 0, hi = tv_html_entity_count;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            int c = cmp_ent(h->in + p, n, tv_html_entities[mid].name);
            if (c == 0) {
                *cp = tv_html_entities[mid].cp;
                return n;
            }
            if (c < 0) hi = mid;
            else lo = mid + 1;
        }
    }
    return 0;
}

/* One half of a surrogate pair reference at p ("xD83D" or "55357" after
 * "&#"), its end in *e; false if p does not start one of the forms. */
static bool surrogate_half(const hs *h, size_t p, bool high, uint32_t *v, size_t *e) {
    const char *s = h->in + p;
    size_t rest = h->len - p;
    if (rest >= 5 && (s[0] | 0x20) == 'x' && (s[1] | 0x20) == 'd' && is_hex(s[3]) && is_hex(s[4])) {
        char c = (char)(s[2] | 0x20);
        if (high ? (c == '8' || c == '9' || c == 'a' || c == 'b') : (c >= 'c' && c <= 'f')) {
            *v = parse(s + 1, 4, 16);
            *e = p + 5;
            return true;
        }
    }
    if (rest >= 5 && s[0] == '5' && (high ? (s[1] == '5' || s[1] == '6') : (s[1] == '6' || s[1] == '7')) &&
        is_digit(s[2]) && is_digit(s[3]) && is_digit(s[4])) {
        *v = parse(s, 5, 10);
        *e = p + 5;
        return true;
    }
    return false;
}

/* '&' at i: returns where scanning goes on. */
static size_t amp(hs *h, size_t i) {
    size_t j = i + 1;
    uint32_t cp = 0;
    size_t n = entity_at(h, j, &cp);
    if (n) {
        size_t k = j + n;
        if (k < h->len && h->in[k] == ';') {
            subst_cp(h, i, k + 1, cp);
            return k + 1;
        }
        if (k == h->len) { /* at the end, the ';' may be missing */
            subst_cp(h, i, k, cp);
            return k;
        }
        copy(h, i, k);
        return k;
    }
    if (j >= h->len || h->in[j] != '#') {
        copy(h, i, j);
        return j;
    }
    /* "&#high;&#low;": one supplementary character */
    uint32_t hi, lo;
    size_t e1, e2;
    if (surrogate_half(h, j + 1, true, &hi, &e1) && at(h, e1, ";&#") &&
        surrogate_half(h, e1 + 3, false, &lo, &e2) && e2 < h->len && h->in[e2] == ';' &&
        hi >= 0xD800 && hi <= 0xDBFF && lo >= 0xDC00 && lo <= 0xDFFF) {
        subst_cp(h, i, e2 + 1, 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
        return e2 + 1;
    }
    size_t p = j + 1, m = p;
    bool hex = p < h->len && (h->in[p] | 0x20) == 'x' && p + 1 < h->len && is_hex(h->in[p + 1]);
    if (hex) {
        m = p + 1;
        while (m < h->len && is_hex(h->in[m])) m++;
        if (m - p > 6) { /* "x" and at most 5 hex digits */
            copy(h, i, m);
            return m;
        }
        cp = parse(h->in + p + 1, m - p - 1, 16);
    } else if (p < h->len && is_digit(h->in[p])) {
        while (m < h->len && is_digit(h->in[m])) m++;
        if (m - p > 7) {
            copy(h, i, m);
            return m;
        }
        cp = parse(h->in + p, m - p, 10);
    } else {
        copy(h, i, p); /* "&#" */
        return p;
    }
    if (cp > 0x10FFFF) {
        copy(h, i, m);
        return m;
    }
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
    if (m < h->len && h->in[m] == ';') {
        subst_cp(h, i, m + 1, cp);
        return m + 1;
    }
    if (m == h->len) {
        subst_cp(h, i, m, cp);
        return m;
    }
    copy(h, i, m);
    return m;
}

/* Skips a quoted string whose opening quote is at p (backslash escapes
 * the next character); the position after it, or len when unclosed. */
static size_t quoted(const hs *h, size_t p) {
    char q = h->in[p];
    for (size_t k = p + 1; k < h->len; k++) {
        if (h->in[k] == '\\') k++;
        else if (h->in[k] == q) return k + 1;
    }
    return h->len;
}

/* A server-side include "<!--#" at p: the position after its "-->", or len. */
static size_t ssi(const hs *h, size_t p) {
    for (size_t k = p + 5; k < h->len;) {
        if (at(h, k, "-->")) return k + 3;
        if (h->in[k] == '\'' || h->in[k] == '"') k = quoted(h, k);
        else k++;
    }
    return h->len;
}

static bool escaped(const hs *h, size_t s, size_t e) {
    for (size_t i = 0; i < h->g->nesc; i++)
        if (h->g->esc_len[i] == e - s && strncasecmp(h->g->esc[i], h->in + s, e - s) == 0) return true;
    return false;
}

/* The rest of a start tag whose name is [ns, ne) ("<" at i). */
static size_t start_tag(hs *h, size_t i, size_t ns, size_t ne, bool inl) {
    bool esc = escaped(h, ns, ne);
    size_t e;
    if (ne == h->len) { /* the text ends inside the tag */
        if (esc) copy(h, i, ne);
        else subst(h, i, ne, "", 0);
        return ne;
    }
    if (!lm(h, P_TAGTAIL, ne, &e)) {
        copy(h, i, ne);
        return ne;
    }
    if (esc) copy(h, i, e);
    else subst(h, i, e, "\n", inl ? 0 : 1);
    return e;
}

/* <script> or <style> whose start tag is [i, te): the element. */
static size_t element(hs *h, size_t i, size_t te, bool script) {
    bool esc = script ? h->g->esc_script : h->g->esc_style;
    int endp = script ? P_SCRIPTEND : P_STYLEEND;
    if (esc) copy(h, i, te);
    size_t from = esc ? te : i;
    for (size_t k = te; k < h->len;) {
        if (at(h, k, "<!--")) { /* a comment inside: quoted strings and includes skipped */
            k += 4;
            while (k < h->len && !at(h, k, "-->")) {
                if (at(h, k, "<!--#")) k = ssi(h, k);
                else if (h->in[k] == '\'' || h->in[k] == '"') k = quoted(h, k);
                else k++;
            }
            if (k < h->len) k += 3;
            continue;
        }
        size_t e;
        if (h->in[k] == '<' && lm(h, endp, k, &e)) {
            if (esc) {
                subst(h, from, k, "", 0);
                copy(h, k, e);
            } else {
                subst(h, i, e, "\n", 1);
            }
            return e;
        }
        k++;
    }
    subst(h, from, h->len, "", 0);
    return h->len;
}

/* "<!" at i. */
static size_t bang(hs *h, size_t i) {
    size_t j = i + 2;
    if (at(h, j, "--")) { /* a comment */
        for (size_t k = j + 2; k < h->len;) {
            if (at(h, k, "-->")) {
                subst(h, i, k + 3, "", 0);
                return k + 3;
            }
            if (at(h, k, "<!--#")) k = ssi(h, k);
            else k++;
        }
        subst(h, i, h->len, "", 0);
        return h->len;
    }
    if (at(h, j, "[CDATA[")) {
        subst(h, i, j + 7, "", 0);
        for (size_t k = j + 7; k < h->len; k++) {
            if (at(h, k, "]]>")) {
                subst(h, k, k + 3, "", 0);
                return k + 3;
            }
            tv_buf_putc(&h->out, h->in[k]);
        }
        return h->len;
    }
    const char *gt = memchr(h->in + j, '>', h->len - j);
    if (!gt) { /* never closed: stays as text */
        copy(h, i, h->len);
        return h->len;
    }
    size_t e = (size_t)(gt - h->in) + 1;
    subst(h, i, e, "", 0);
    return e;
}

/* Unicode whitespace as the patterns' \s (PCRE2 with UCP): its length at p. */
static size_t ws_at(const hs *h, size_t p) {
    const uint8_t *s = (const uint8_t *)h->in;
    size_t q = p;
    while (q < h->len) {
        uint32_t cp = s[q];
        size_t k = 1;
        if (cp >= 0x80) k = tv_utf8_decode(s + q, s + h->len, &cp);
        bool w = cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 ||
                 cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
                 cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0x180E;
        if (!w) break;
        q += k;
    }
    return q - p;
}

/* A tag name at p: its end in *e and whether it is an inline element. */
static bool tag_name(hs *h, size_t p, size_t *e, bool *inl) {
    size_t ne = 0, ie = 0;
    bool n = lm(h, P_NAME, p, &ne), i = lm(h, P_INLINE, p, &ie);
    if (!n && !i) return false;
    *inl = i && (!n || ie >= ne); /* a tie goes to the inline rule */
    *e = *inl ? ie : ne;
    return true;
}

/* "</" at i. */
static size_t end_tag(hs *h, size_t i) {
    size_t k = i + 2, e, ne;
    k += ws_at(h, k);
    if (k >= h->len) {
        copy(h, i, h->len);
        return h->len;
    }
    bool inl;
    size_t be = 0;
    bool br = lm(h, P_ENDBR, k, &be);
    bool nm = tag_name(h, k, &ne, &inl);
    if (br && (!nm || be > ne)) {
        if (h->g->esc_br) copy(h, i, be);
        else subst(h, i, be, "\n", 1);
        return be;
    }
    if (!nm) {
        copy(h, i, k);
        return k;
    }
    bool esc = escaped(h, k, ne);
    if (ne == h->len) {
        if (esc) copy(h, i, ne);
        else subst(h, i, ne, "", 0);
        return ne;
    }
    if (!lm(h, P_ENDTAIL, ne, &e)) {
        copy(h, i, ne);
        return ne;
    }
    if (esc) copy(h, i, e);
    else subst(h, i, e, "\n", inl ? 0 : 1);
    return e;
}

/* '<' at i. */
static size_t lab(hs *h, size_t i) {
    size_t j = i + 1;
    if (j >= h->len) {
        copy(h, i, j);
        return j;
    }
    if (h->in[j] == '!') return bang(h, i);
    if (h->in[j] == '/') return end_tag(h, i);
    /* the longest of: whitespace, <?...>, <br>, <script>, <style>, a name */
    enum { C_WS, C_PI, C_BR, C_SCRIPT, C_STYLE, C_NAME };
    size_t best = 0, e = 0;
    int rule = -1;
    size_t w = ws_at(h, j);
    if (w) {
        best = w;
        rule = C_WS;
    }
    static const int pk[] = {P_PI, P_BR, P_SCRIPT, P_STYLE};
    /* each of those patterns starts (after white space, which ws_at covers
     * for ASCII) with one letter: skip the DFA runs that cannot match */
    unsigned char c0 = (unsigned char)h->in[j];
    unsigned char c1 = j + w < h->len ? (unsigned char)h->in[j + w] | 0x20 : 0;
    bool ascii = j + w >= h->len || c1 < 0x80;
    const bool may[] = {c0 == '?', !ascii || c1 == 'b', !ascii || c1 == 's', !ascii || c1 == 's'};
    for (int r = C_PI; r <= C_STYLE; r++)
        if (may[r - C_PI] && lm(h, pk[r - C_PI], j, &e) && e - j > best) {
            best = e - j;
            rule = r;
        }
    bool inl = false;
    size_t ne;
    if (tag_name(h, j, &ne, &inl) && ne - j > best) {
        best = ne - j;
        rule = C_NAME;
    }
    size_t end = j + best;
    switch (rule) {
    case C_WS: /* "< " then a name, or text */
        if (!tag_name(h, end, &ne, &inl)) {
            copy(h, i, end);
            return end;
        }
        return start_tag(h, i, end, ne, inl);
    case C_PI: subst(h, i, end, "", 0); return end;
    case C_BR:
        if (h->g->esc_br) copy(h, i, end);
        else subst(h, i, end, "\n", 1);
        return end;
    case C_SCRIPT: return element(h, i, end, true);
    case C_STYLE: return element(h, i, end, false);
    case C_NAME: return start_tag(h, i, j, end, inl);
    default: copy(h, i, j); return j;
    }
}

static tv_status hs_run(tv_arena *a, const void *cfg, const char *in, size_t len, tv_cfout *out) {
    hs h = {.g = cfg, .in = in, .len = len, .a = a, .map = &out->map};
    tv_buf_init(&h.out);
    h.md = pcre2_match_data_create(1, NULL);
    h.ws = tv_arena_alloc(a, WS_INTS * sizeof *h.ws);
    if (!h.md || !h.ws) {
        if (h.md) pcre2_match_data_free(h.md);
        return TROVE_ENOMEM;
    }
    h.mopts = tv_utf8_valid(in, len) ? PCRE2_NO_UTF_CHECK : 0;
    size_t i = 0;
    while (i < len && !h.st) {
        char c = in[i];
        if (c == '&') {
            i = amp(&h, i);
        } else if (c == '<') {
            i = lab(&h, i);
        } else {
            size_t k = i + 1;
            while (k < len && in[k] != '&' && in[k] != '<') k++;
            copy(&h, i, k);
            i = k;
        }
    }
    pcre2_match_data_free(h.md);
    tv_status st = h.st;
    if (!st && h.out.oom) st = TROVE_ENOMEM;
    if (!st) {
        char *t = tv_arena_memdup(a, h.out.data ? h.out.data : "", h.out.len);
        if (!t) st = TROVE_ENOMEM;
        out->text = t;
        out->len = h.out.len;
    }
    tv_buf_fini(&h.out);
    return st;
}

const tv_charfilter_type tv_cf_html_strip = {"html_strip", hs_build, hs_run};
