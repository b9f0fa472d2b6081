/*
 * tok_uax_url_email.c — the `uax_url_email` tokenizer (Lucene's
 * UAX29URLEmailTokenizer as OpenSearch's UAX29URLEmailTokenizerFactory
 * builds it; setting max_token_length, 255): the standard tokenizer's
 * words plus <URL> and <EMAIL> tokens.
 *
 * Lucene's scanner is the standard grammar with these rules before it,
 * all competing by longest match at each position (ties to the earlier):
 *   1 URL            http(s)://, ftp://, file:// URLs (RFC 3986 syntax), and
 *                    scheme-less ones: a strict host (a domain ending in a
 *                    known top-level domain, an IPv4 address or [IPv6])
 *                    followed by a port, path, query or fragment
 *   2 host / [^-\w]  a strict host followed by a character that cannot
 *                    continue a word: <URL> (the character is not taken)
 *   3 host / [-\w]   (initial state only) a host glued to word characters,
 *                    "example.com-x": no token; the scanner switches to a
 *                    state without rules 3-4 and scans the same place again
 *   4 host           (initial state only) a host at the end of the text
 *   5 mailto / :EMAIL  "mailto" as <ALPHANUM> before an address
 *   6 EMAIL          RFC 5322 local part @ strict domain or [literal]
 * Rules with a trailing context compete with the context's length
 * included. Any token returns the scanner to its initial state. Matches
 * see at most max_token_length UTF-16 units (the scanner's buffer), as
 * the standard tokenizer's do.
 *
 * Implementation: the standard tokenizer (standard_tokenizer.c) runs with
 * a hook called at each scan position with its own longest match; the
 * hook matches rules 1-6 with PCRE2's DFA matcher (longest match, as
 * JFlex; anchored regular expressions written from the grammar, compiled
 * once per process) and decides. A cheap test skips the matching where no
 * URL or address can start (most positions). A domain's last label is
 * looked up in the top-level domains, which come from Debian's public
 * suffix list at build time (gen_tlds.py). Lucene splits its domain rules
 * in three families by TLD (LUCENE-8278), which only decides ties between
 * rules 3 and 4; uax_at() reproduces the outcome.
 * Rejected: copying the standard tokenizer (the two would drift), and
 * running the standard tokenizer first then merging URL spans (a URL's
 * longest match decides where the next word starts, so the two scans
 * cannot be separated).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdlib.h>
#include <strings.h>

#include "text/text_int.h"

extern const char *const tv_tlds[];
extern const size_t tv_tld_count;

typedef struct uax_cfg {
    uint32_t max_len;
} uax_cfg;

/* ------------------------------------------------------- the grammar */

#define LABEL "[A-Za-z0-9](?:[-A-Za-z0-9]*[A-Za-z0-9])?"
#define OCT "(?:0{0,2}[0-9]|0?[1-9][0-9]|1[0-9][0-9]|2(?:[0-4][0-9]|5[0-5]))"
#define IPV4 OCT "(?:\\." OCT "){3}"
#define H16 "[0-9A-Fa-f]{1,4}"
#define LS32 "(?:" IPV4 "|" H16 ":" H16 ")"
#define IPV6                                                                                     \
    "(?:(?:" H16 ":){6}" LS32 "|::(?:" H16 ":){5}" LS32 "|(?:" H16 ")?::(?:" H16 ":){4}" LS32     \
    "|(?:(?:" H16 ":){0,1}" H16 ")?::(?:" H16 ":){3}" LS32 "|(?:(?:" H16 ":){0,2}" H16            \
    ")?::(?:" H16 ":){2}" LS32 "|(?:(?:" H16 ":){0,3}" H16 ")?::" H16 ":" LS32 "|(?:(?:" H16      \
    ":){0,4}" H16 ")?::" LS32 "|(?:(?:" H16 ":){0,5}" H16 ")?::" H16 "|(?:(?:" H16 ":){0,6}" H16  \
    ")?::)"
#define PCT "%[0-9A-Fa-f]{2}"
#define LOGINSEG "(?:[-._~A-Za-z0-9!$&'()*+,;=]|" PCT ")*"
#define LOGIN LOGINSEG "(?::" LOGINSEG ")?@"
#define QCHARS "(?:[-._~A-Za-z0-9!$&'()*+,;=:@/?]|" PCT ")*"
#define QUERY "\\?" QCHARS
#define FRAG "#" QCHARS
#define PORT ":[0-9]{1,5}"
#define DOMLOOSE LABEL "(?:\\." LABEL ")*"
#define HOSTLOOSE "(?:\\[" IPV6 "\\]|" IPV4 "|" DOMLOOSE ")"
#define HTTPPATH "(?:/(?:[-._~A-Za-z0-9;:@&=]|" PCT ")*)+"
#define FTPSEG "(?:[-._~A-Za-z0-9?:@&=]|" PCT ")*"
#define FTPPATH "/" FTPSEG "(?:/" FTPSEG ")*"
#define ATOM "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~]"
#define QSTR "\"(?:[\\x01-\\x08\\x0B\\x0C\\x0E-\\x21\\x23-\\x5B\\x5D-\\x7E]|\\\\[\\x00-\\x7F])*\""
#define ELABEL "(?:" ATOM "+|" QSTR ")"
#define DLT "(?:[\\x01-\\x08\\x0B\\x0C\\x0E-\\x5A\\x5E-\\x7F]|\\\\[\\x00-\\x7F])"
#define BRHOST "\\[(?:" DLT "*|" IPV4 "|[iI][pP][vV]6:" IPV6 ")\\]"

/* The rules as anchored patterns. The strict domain (labels, a dot, a
 * top-level domain) is one pattern of its own, P_DOM, whose last label is
 * checked against the TLD list in C (domains()): ~1500 domains written
 * into the patterns exceed PCRE2's compiled size and make every dot cost
 * 1500 states; so scheme-less URLs and addresses are matched in pieces
 * (a host, then what follows it). */
enum { P_SCHEME_URL, P_DOM, P_IPHOST, P_TAIL, P_LOCAL, P_BRHOST, P_COUNT };
static const char *const pat_src[P_COUNT] = {
    [P_SCHEME_URL] = "(?:[hH][tT][tT][pP][sS]?://(?:" LOGIN ")?" HOSTLOOSE "(?:" PORT ")?(?:"
                     HTTPPATH ")?(?:" QUERY ")?(?:" FRAG ")?"
                     "|[fF][tT][pP]://(?:" LOGIN ")?" HOSTLOOSE "(?:" PORT ")?" FTPPATH
                     "(?:;[tT][yY][pP][eE]=[aAiIdD])?(?:" FRAG ")?"
                     "|[fF][iI][lL][eE]://(?:" HOSTLOOSE ")?" FTPPATH "(?:" FRAG ")?)",
    [P_DOM] = NULL, /* built from the TLD list */
    [P_IPHOST] = "(?:\\[" IPV6 "\\]|" IPV4 ")",
    /* what makes a strict host a scheme-less URL: a port, path, query or fragment */
    [P_TAIL] = "(?:" PORT "(?:" HTTPPATH ")?(?:" QUERY ")?(?:" FRAG ")?|(?:" PORT ")?" HTTPPATH
               "(?:" QUERY ")?(?:" FRAG ")?|(?:" PORT ")?(?:" HTTPPATH ")?" QUERY "(?:" FRAG
               ")?|(?:" PORT ")?(?:" HTTPPATH ")?(?:" QUERY ")?" FRAG ")",
    [P_LOCAL] = ELABEL "(?:\\." ELABEL ")*@",
    [P_BRHOST] = BRHOST,
};

static pcre2_code *pats[P_COUNT];
static bool pats_ok;
static int pats_err, pats_errk;
static size_t pats_erroff;
static pthread_once_t pats_once = PTHREAD_ONCE_INIT;

static void compile_pats(void) {
    tv_buf dom;
    tv_buf_init(&dom);
    /* any last label: domains() keeps the ends whose last label is a TLD;
     * a trailing root (empty) label is accepted */
    tv_buf_puts(&dom, LABEL "(?:\\." LABEL ")*\\." LABEL "\\.?");
    bool ok = !dom.oom;
    for (int k = 0; k < P_COUNT && ok; k++) {
        const char *src = k == P_DOM ? dom.data : pat_src[k];
        size_t n = k == P_DOM ? dom.len : strlen(src);
        int ec;
        PCRE2_SIZE eo;
        pats[k] = pcre2_compile((PCRE2_SPTR)src, n, PCRE2_ANCHORED | PCRE2_NO_AUTO_POSSESS, &ec,
                                &eo, NULL);
        if (!pats[k]) {
            ok = false;
            pats_err = ec;
            pats_errk = k;
            pats_erroff = eo;
        }
    }
    tv_buf_fini(&dom);
    pats_ok = ok;
}

/* ------------------------------------------------------------ the hook */

#define WS_INTS 20000
#define MAX_MATCHES 320 /* a 255-unit buffer holds fewer domain ends */

typedef struct uax_hook {
    tv_std_hook base;
    bool avoid;             /* Lucene's AVOID_BAD_URL state */
    pcre2_match_data *md;
    int *ws;
    size_t next_at;         /* the first '@' at or after the last position asked */
    size_t local_from;      /* no address starts before this (non-atom characters) */
    size_t len;             /* the text's length and ... */
    uint32_t max16;         /* ... max_token_length, for lookahead() */
    tv_status st;           /* a matching failure (workspace), reported after the run */
} uax_hook;

/* JFlex's \w (UTS #18 word characters): letters, marks, decimal digits,
 * connector punctuation, ZWNJ/ZWJ. */
static bool word_char(uint32_t cp) {
    if (cp < 0x80) return (cp | 0x20) - 'a' < 26 || cp - '0' < 10 || cp == '_';
    if (cp == 0x200C || cp == 0x200D) return true;
    const tv_uc_record *r = tv_uc_props(cp);
    return (r->flags & (TV_UCF_JLETTER | TV_UCF_MARK)) || r->gc == TV_GC_ND || r->gc == TV_GC_NL ||
           r->gc == TV_GC_PC;
}

/* Matches pattern k anchored at p in text[0, lim): the number of match
 * ends written to ends[] (longest first), 0 if none. */
static int run(uax_hook *h, int k, const char *text, size_t lim, size_t p, size_t *ends) {
    int rc = pcre2_dfa_match(pats[k], (PCRE2_SPTR)text, lim, p, PCRE2_NO_UTF_CHECK, h->md, NULL,
                             h->ws, WS_INTS);
    if (rc == PCRE2_ERROR_NOMATCH) return 0;
    if (rc < 0) {
        h->st = TROVE_ENOMEM; /* workspace or match limits: should not happen */
        return 0;
    }
    if (rc == 0) rc = MAX_MATCHES; /* the ovector was too small: the longest ones are there */
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(h->md);
    for (int i = 0; i < rc; i++) ends[i] = ov[2 * i + 1];
    return rc;
}

static int cmp_tld(const void *key, const void *el) {
    const char *k = key, *t = *(const char *const *)el;
    size_t n = strlen(t);
    for (size_t i = 0; i < n; i++) {
        int c = (k[i] | 0x20) - t[i];
        if (c || k[i] == 0) return c;
    }
    return k[n] ? 1 : 0;
}

/* Whether [s, s+n) is a top-level domain (ASCII case ignored). */
static bool is_tld(const char *s, size_t n) {
    char buf[80];
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    return bsearch(buf, tv_tlds, tv_tld_count, sizeof *tv_tlds, cmp_tld) != NULL;
}

/* The strict domains at p (Lucene's DomainNameStrict): the ends of P_DOM
 * whose last label (before an optional root dot) is a TLD, longest first. */
static int domains(uax_hook *h, const char *text, size_t lim, size_t p, size_t *ends) {
    int n = run(h, P_DOM, text, lim, p, ends), k = 0;
    for (int i = 0; i < n; i++) {
        size_t e = ends[i], f = text[e - 1] == '.' ? e - 1 : e, b = f;
        while (b > p && text[b - 1] != '.') b--;
        if (is_tld(text + b, f - b)) ends[k++] = e;
    }
    return k;
}

static bool alnum(uint8_t c) { return (uint8_t)((c | 0x20) - 'a') < 26 || (uint8_t)(c - '0') < 10; }

static bool atom_or_dot(uint8_t c) {
    return alnum(c) || (c < 0x80 && strchr("!#$%&'*+-/=?^_`{|}~.", c) && c);
}

/* Whether a URL or address may start at p (a cheap necessary test). */
static bool may_start(uax_hook *h, const uint8_t *s, size_t len, size_t p) {
    uint8_t c = s[p];
    if (c >= 0x80) return false;
    if (h->next_at < p) { /* the next '@', and where the local parts before it may start */
        const void *at = memchr(s + p, '@', len - p);
        h->next_at = at ? (size_t)((const uint8_t *)at - s) : SIZE_MAX;
        h->local_from = h->next_at;
        if (at) {
            size_t q = h->next_at;
            while (q > p && atom_or_dot(s[q - 1])) q--;
            /* a quoted local part may hold anything: do not narrow then */
            h->local_from = q > p && memchr(s + p, '"', h->next_at - p) ? p : q;
        }
    }
    /* an address, or "mailto:" before one */
    if (h->next_at != SIZE_MAX && p + 7 >= h->local_from) return true;
    if (c == '[') return true;
    if (!alnum(c)) return false;
    /* a host needs a dot (or "::" / ':' after a scheme) within its first run */
    for (size_t q = p; q < len; q++) {
        uint8_t d = s[q];
        if (d == '.' || d == ':') return true;
        if (!alnum(d) && d != '-') return false;
    }
    return false;
}

/* The end of the longest address at q (0: none): a local part and '@',
 * then a strict domain or a bracketed literal. */
static size_t email(uax_hook *h, const char *text, size_t lim, size_t q) {
    size_t locals[MAX_MATCHES], ends[MAX_MATCHES], best = 0;
    int n = run(h, P_LOCAL, text, lim, q, locals);
    for (int i = 0; i < n; i++) {
        if (locals[i] >= lim) continue;
        if (domains(h, text, lim, locals[i], ends) && ends[0] > best) best = ends[0];
        if (text[locals[i]] == '[' && run(h, P_BRHOST, text, lim, locals[i], ends) &&
            ends[0] > best)
            best = ends[0];
    }
    return best;
}

/* The character after a host ending at e, if the buffer holds it (the
 * buffer: max16 UTF-16 units from p): its code point and units. */
static bool lookahead(const uax_hook *h, const uint8_t *s, size_t p, size_t e, uint32_t *cp,
                      uint32_t *cu) {
    if (e >= h->len) return false;
    *cp = s[e];
    if (s[e] >= 0x80) tv_utf8_decode(s + e, s + h->len, cp);
    *cu = *cp >= 0x10000 ? 2 : 1;
    return (e - p) + *cu <= h->max16;
}

/* Rule 3 for the host ending at e: "host / [-\w]", the avoiding state. */
static void avoid_offer(uax_hook *h, const uint8_t *s, size_t p, size_t e, uint32_t *best,
                        int *act, size_t *tok) {
    uint32_t cp, cu;
    if (!lookahead(h, s, p, e, &cp, &cu) || !(cp == '-' || word_char(cp))) return;
    uint32_t cmp = (uint32_t)(e - p) + cu;
    if (cmp > *best || (cmp == *best && *act == 0)) {
        *best = cmp;
        *act = 2;
        *tok = 0;
    }
}

static int uax_at(tv_std_hook *base, const char *text, size_t len, size_t p, uint32_t max16,
                  uint32_t std16, size_t *bytes, uint32_t *units, uint8_t *type) {
    uax_hook *h = (uax_hook *)base;
    const uint8_t *s = (const uint8_t *)text;
    int keep = TV_STD_KEEP;
    if (!may_start(h, s, len, p)) {
        if (std16 > 0) h->avoid = false; /* a token: back to the initial state */
        return keep;
    }
    /* the scanner's buffer: max16 UTF-16 units from p */
    /* The scanner's buffer holds max16 UTF-16 units from p. The patterns
     * match ASCII only (one unit a byte), so bounding their subject at
     * max16 bytes bounds them; a lookahead character is checked apart. */
    size_t lim = len - p > max16 ? p + max16 : len;
    h->len = len;
    h->max16 = max16;
    {
        /* candidates: (compared length, order, action) */
        uint32_t best = std16; /* the standard rules come last */
        int act = 0;           /* 0 standard, 1 token, 2 avoid */
        size_t tok = 0;
        uint8_t ttype = 0;
        size_t hosts[2 * MAX_MATCHES], ends[MAX_MATCHES];
#define OFFER(cmp, a, tlen, ty)                                                                 \
        do {                                                                                    \
            if ((cmp) > best || ((cmp) == best && (cmp) > 0 && act == 0)) {                     \
                best = (uint32_t)(cmp);                                                         \
                act = (a);                                                                      \
                tok = (tlen);                                                                   \
                ttype = (ty);                                                                   \
            }                                                                                   \
        } while (0)
        /* candidates are offered in rule order, so a tie keeps the earlier
         * one; only the standard match (act 0) is replaced on a tie */
        int nh = 0, ndom = 0; /* hosts[0, ndom): domains; [ndom, nh): IP addresses */
        if (alnum(s[p]) || s[p] == '[') {
            nh = ndom = domains(h, text, lim, p, hosts);
            nh += run(h, P_IPHOST, text, lim, p, hosts + nh);
        }
        /* rule 1: URLs with a scheme, then strict hosts with a tail */
        int n = alnum(s[p]) ? run(h, P_SCHEME_URL, text, lim, p, ends) : 0;
        if (n) OFFER(ends[0] - p, 1, ends[0] - p, TV_TOK_URL);
        for (int i = 0; i < nh; i++)
            if (hosts[i] < lim && run(h, P_TAIL, text, lim, hosts[i], ends))
                OFFER(ends[0] - p, 1, ends[0] - p, TV_TOK_URL);
        for (int i = 0; i < nh; i++) { /* rule 2: host / [^-\w] */
            uint32_t cp, cu;
            size_t e = hosts[i];
            if (!lookahead(h, s, p, e, &cp, &cu) || cp == '-' || word_char(cp)) continue;
            OFFER(e - p + cu, 1, e - p, TV_TOK_URL);
        }
        if (!h->avoid) {
            /* Lucene lists rules 3 and 4 in three families by top-level
             * domain (LUCENE-8278), "host / [-\w]" before "host" in each;
             * IP addresses are in the first family and a domain whose TLD
             * extends another's by one character sits in an earlier family
             * than the shorter one. So on a tie, "1.2.3.4" / "3" (avoid)
             * beats "1.2.3.43", but "a.com" beats "a.co" / "m". */
            for (int i = ndom; i < nh; i++) avoid_offer(h, s, p, hosts[i], &best, &act, &tok);
            for (int i = 0; i < nh; i++) OFFER(hosts[i] - p, 1, hosts[i] - p, TV_TOK_URL);
            for (int i = 0; i < ndom; i++) avoid_offer(h, s, p, hosts[i], &best, &act, &tok);
        }
        if (h->next_at < lim) {
            /* rule 5: "mailto" before ":" and an address */
            if (lim - p > 7 && p + 7 >= h->local_from && strncasecmp(text + p, "mailto:", 7) == 0) {
                size_t e = email(h, text, lim, p + 7);
                if (e) OFFER(e - p, 1, 6, TV_TOK_ALPHANUM);
            }
            if (p >= h->local_from) { /* rule 6 */
                size_t e = email(h, text, lim, p);
                if (e) OFFER(e - p, 1, e - p, TV_TOK_EMAIL);
            }
        }
#undef OFFER
        if (act == 2) {
            h->avoid = true;
            return TV_STD_RESCAN;
        }
        if (act == 1) {
            *bytes = tok;
            *units = (uint32_t)tok; /* URLs and addresses are ASCII */
            *type = ttype;
            keep = TV_STD_TAKE;
        }
    }
    if (keep == TV_STD_TAKE || std16 > 0) h->avoid = false; /* a token: back to the initial state */
    return keep;
}

/* ------------------------------------------------------------ the type */

static tv_status uax_build(tv_comp *c, const void **out, tv_error *err) {
    int64_t m;
    tv_status st = tv_comp_int(c, "max_token_length", 255, &m, err);
    if (st) return st;
    if (m < 1) return tv_error_set(err, TROVE_EARG, "maxTokenLength must be greater than zero");
    if (m > 1024 * 1024)
        return tv_error_set(err, TROVE_EARG, "maxTokenLength may not exceed %d", 1024 * 1024);
    pthread_once(&pats_once, compile_pats);
    if (!pats_ok) {
        PCRE2_UCHAR msg[120] = "out of memory";
        if (pats_err) pcre2_get_error_message(pats_err, msg, sizeof msg);
        return tv_error_set(err, TROVE_ERUNTIME,
                            "uax_url_email: cannot compile its grammar (rule %d at %zu: %s)",
                            pats_errk, pats_erroff, (const char *)msg);
    }
    uax_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    g->max_len = (uint32_t)m;
    *out = g;
    return TROVE_OK;
}

static tv_status uax_run(tv_arena *a, const void *cfg, const char *text, size_t len,
                         tv_tokvec *out) {
    const uax_cfg *g = cfg;
    uax_hook h = {.base = {uax_at}, .next_at = 0};
    h.md = pcre2_match_data_create(MAX_MATCHES, NULL);
    h.ws = tv_arena_alloc(a, WS_INTS * sizeof *h.ws);
    if (!h.md || !h.ws) {
        if (h.md) pcre2_match_data_free(h.md);
        return TROVE_ENOMEM;
    }
    h.next_at = len ? 0 : SIZE_MAX; /* computed at the first position asked */
    h.local_from = 0;
    if (len) {
        const void *at = memchr(text, '@', len);
        h.next_at = at ? (size_t)((const char *)at - text) : SIZE_MAX;
        h.local_from = h.next_at;
        if (at) {
            size_t q = h.next_at;
            while (q > 0 && atom_or_dot((uint8_t)text[q - 1])) q--;
            h.local_from = q > 0 && memchr(text, '"', h.next_at) ? 0 : q;
        }
    }
    tv_status st = tv_tokenize_standard_hooked(a, text, len, g->max_len, &h.base, out);
    pcre2_match_data_free(h.md);
    return st ? st : h.st;
}

const tv_tokenizer_type tv_tok_uax_url_email = {"uax_url_email", uax_build, uax_run};
