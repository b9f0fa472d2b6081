/* test_search_automaton.c — regexp / wildcard / prefix / Levenshtein
 * automata against brute-force matchers written here, Lucene's error
 * messages, the determinization limit, and UTF-8 boundaries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "index/index.h"
#include "json/json.h"
#include "query/automaton.h"
#include "query/query.h"
#include "search/search.h"
#include "text/text.h"

/* ------------------------------------------------------------ helpers */

static tv_automaton *re_ok(tv_arena *a, const char *re, int flags) {
    tv_automaton *m = NULL;
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_regexp_compile(re, strlen(re), flags, 0, a, &m, &err);
    if (st != TROVE_OK) fprintf(stderr, "regexp [%s]: %s\n", re, err.reason);
    assert_int_equal(st, TROVE_OK);
    assert_non_null(m);
    return m;
}

static bool run(const tv_automaton *m, const char *s) { return tv_automaton_run(m, s, strlen(s)); }

static void re_err(const char *re, int flags, tv_status code, const char *reason) {
    tv_arena a;
    tv_arena_init(&a);
    tv_automaton *m = NULL;
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_regexp_compile(re, strlen(re), flags, 0, &a, &m, &err);
    if (st != code || strcmp(err.reason, reason) != 0)
        fprintf(stderr, "regexp [%s]: got %d [%s], want [%s]\n", re, st, err.reason, reason);
    assert_int_equal(st, code);
    assert_string_equal(err.reason, reason);
    tv_arena_fini(&a);
}

/* ------------------------------------------------- brute-force regexps */

/* A random regexp AST over a small alphabet, rendered to Lucene syntax
 * and matched by a set-of-end-positions interpreter. */
enum { N_CHAR, N_ANY, N_CLASS, N_NCLASS, N_CAT, N_ALT, N_STAR, N_PLUS, N_OPT, N_REP, N_AND, N_NOT,
       N_ANYSTR, N_EMPTY, N_INTERVAL };

typedef struct node {
    int kind;
    uint32_t c, lo, hi; /* char; class range lo..hi */
    int min, max;
    struct node *x, *y;
} node;

static const uint32_t k_alpha[] = {'a', 'b', 'c', '1', 0xE9 /* é */, 0x4E2D /* 中 */,
                                   0x1F600 /* emoji */};
#define NALPHA (sizeof(k_alpha) / sizeof(k_alpha[0]))

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static node pool[4096];
static int npool;

static node *gen(int depth) {
    node *n = &pool[npool++];
    memset(n, 0, sizeof(*n));
    int k = depth <= 0 ? (int)rnd(5) : (int)rnd(15);
    switch (k) {
    case 0: case 1: n->kind = N_CHAR; n->c = k_alpha[rnd(NALPHA)]; break;
    case 2: n->kind = N_ANY; break;
    case 3: n->kind = N_CLASS; n->lo = 'a'; n->hi = 'a' + rnd(3); break;
    case 4: n->kind = N_NCLASS; n->lo = 'a' + rnd(2); n->hi = 'b' + rnd(2); break;
    case 5: case 6: n->kind = N_CAT; n->x = gen(depth - 1); n->y = gen(depth - 1); break;
    case 7: n->kind = N_ALT; n->x = gen(depth - 1); n->y = gen(depth - 1); break;
    case 8: n->kind = N_STAR; n->x = gen(depth - 1); break;
    case 9: n->kind = N_PLUS; n->x = gen(depth - 1); break;
    case 10: n->kind = N_OPT; n->x = gen(depth - 1); break;
    case 11: n->kind = N_REP; n->min = (int)rnd(3); n->max = n->min + (int)rnd(3); n->x = gen(depth - 1); break;
    case 12: n->kind = N_AND; n->x = gen(depth - 1); n->y = gen(depth - 1); break;
    case 13: n->kind = N_NOT; n->x = gen(depth - 1); break;
    default:
        n->kind = rnd(3) == 0 ? N_ANYSTR : rnd(2) ? N_INTERVAL : N_EMPTY;
        n->min = (int)rnd(15);
        n->max = n->min + (int)rnd(120);
        break;
    }
    return n;
}

static void put_cp(tv_buf *b, uint32_t c) {
    uint8_t enc[4];
    tv_buf_append(b, enc, tv_utf8_encode(c, enc));
}

static void render(const node *n, tv_buf *b) {
    switch (n->kind) {
    case N_CHAR:
        if (n->c == '1') tv_buf_puts(b, "\\1"); /* an escaped digit is itself */
        else put_cp(b, n->c);
        break;
    case N_ANY: tv_buf_putc(b, '.'); break;
    case N_CLASS: tv_buf_printf(b, "[%c-%c]", (char)n->lo, (char)n->hi); break;
    case N_NCLASS: tv_buf_printf(b, "[^%c-%c]", (char)n->lo, (char)n->hi); break;
    case N_CAT: tv_buf_putc(b, '('); render(n->x, b); render(n->y, b); tv_buf_putc(b, ')'); break;
    case N_ALT: tv_buf_putc(b, '('); render(n->x, b); tv_buf_putc(b, '|'); render(n->y, b); tv_buf_putc(b, ')'); break;
    case N_STAR: tv_buf_putc(b, '('); render(n->x, b); tv_buf_puts(b, ")*"); break;
    case N_PLUS: tv_buf_putc(b, '('); render(n->x, b); tv_buf_puts(b, ")+"); break;
    case N_OPT: tv_buf_putc(b, '('); render(n->x, b); tv_buf_puts(b, ")?"); break;
    case N_REP: tv_buf_putc(b, '('); render(n->x, b); tv_buf_printf(b, "){%d,%d}", n->min, n->max); break;
    case N_AND: tv_buf_putc(b, '('); render(n->x, b); tv_buf_putc(b, '&'); render(n->y, b); tv_buf_putc(b, ')'); break;
    case N_NOT: tv_buf_puts(b, "~("); render(n->x, b); tv_buf_putc(b, ')'); break;
    case N_ANYSTR: tv_buf_putc(b, '@'); break;
    case N_EMPTY: tv_buf_putc(b, '#'); break;
    case N_INTERVAL: tv_buf_printf(b, "<%d-%d>", n->min, n->max); break;
    }
}

/* Ends reachable from pos (bit e set: s[pos..e) matches). len <= 62. */
static uint64_t ends(const node *n, const uint32_t *s, int len, int pos) {
    uint64_t r = 0;
    switch (n->kind) {
    case N_CHAR: if (pos < len && s[pos] == n->c) r = 1ull << (pos + 1); break;
    case N_ANY: if (pos < len) r = 1ull << (pos + 1); break;
    case N_CLASS: if (pos < len && s[pos] >= n->lo && s[pos] <= n->hi) r = 1ull << (pos + 1); break;
    case N_NCLASS: if (pos < len && !(s[pos] >= n->lo && s[pos] <= n->hi)) r = 1ull << (pos + 1); break;
    case N_CAT: {
        uint64_t m = ends(n->x, s, len, pos);
        for (int e = pos; e <= len; e++)
            if (m >> e & 1) r |= ends(n->y, s, len, e);
        break;
    }
    case N_ALT: r = ends(n->x, s, len, pos) | ends(n->y, s, len, pos); break;
    case N_STAR: case N_PLUS: {
        uint64_t reach = 1ull << pos, done = 0;
        /* closure of repeated application */
        uint64_t frontier = reach;
        uint64_t acc = n->kind == N_STAR ? reach : 0;
        while (frontier) {
            int e = __builtin_ctzll(frontier);
            frontier &= frontier - 1;
            if (done >> e & 1) continue;
            done |= 1ull << e;
            uint64_t m = ends(n->x, s, len, e);
            acc |= m;
            frontier |= m & ~done;
        }
        r = acc;
        break;
    }
    case N_OPT: r = (1ull << pos) | ends(n->x, s, len, pos); break;
    case N_REP: {
        uint64_t cur = 1ull << pos;
        for (int i = 0; i <= n->max; i++) {
            if (i >= n->min) r |= cur;
            if (i == n->max) break;
            uint64_t nx = 0;
            for (int e = pos; e <= len; e++)
                if (cur >> e & 1) nx |= ends(n->x, s, len, e);
            cur = nx;
        }
        break;
    }
    case N_AND: r = ends(n->x, s, len, pos) & ends(n->y, s, len, pos); break;
    case N_NOT: {
        uint64_t m = ends(n->x, s, len, pos);
        for (int e = pos; e <= len; e++)
            if (!(m >> e & 1)) r |= 1ull << e;
        break;
    }
    case N_ANYSTR: for (int e = pos; e <= len; e++) r |= 1ull << e; break;
    case N_EMPTY: break;
    case N_INTERVAL: {
        char t1[16], t2[16];
        int d1 = snprintf(t1, sizeof(t1), "%d", n->min), d2 = snprintf(t2, sizeof(t2), "%d", n->max);
        int width = d1 == d2 ? d1 : 0;
        for (int e = pos + 1; e <= len; e++) {
            if (width && e - pos != width) continue;
            long v = 0;
            bool digits = true;
            for (int i = pos; i < e; i++) {
                if (s[i] < '0' || s[i] > '9') { digits = false; break; }
                v = v * 10 + (long)(s[i] - '0');
                if (v > 100000) v = 100000;
            }
            if (digits && v >= n->min && v <= n->max) r |= 1ull << e;
        }
        break;
    }
    }
    return r;
}

static void encode(const uint32_t *s, int len, tv_buf *b) {
    tv_buf_clear(b);
    for (int i = 0; i < len; i++) put_cp(b, s[i]);
    if (!b->data) tv_buf_reserve(b, 1);
}

/* A random regexp (rendered into re) compiled into arena a; returns the
 * automaton's status (TROVE_ETOOCOMPLEX for some), the tree in *tree. */
static tv_status random_regexp(tv_buf *re, tv_arena *a, tv_automaton **m, node **tree) {
    npool = 0;
    *tree = gen(1 + (int)rnd(4));
    tv_buf_clear(re);
    render(*tree, re);
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_regexp_compile(re->data, re->len, TV_RE_ALL, 0, a, m, &err);
    if (st != TROVE_OK && st != TROVE_ETOOCOMPLEX) fprintf(stderr, "[%s] %s\n", re->data, err.reason);
    return st;
}

static void test_regexp_random(void **state) {
    (void)state;
    static const uint32_t sa[] = {'a', 'b', 'c', '1', '0', 0xE9, 0x4E2D, 0x1F600};
    tv_buf re, str;
    tv_buf_init(&re);
    tv_buf_init(&str);
    int compiled = 0;
    for (int iter = 0; iter < 400; iter++) {
        tv_arena a;
        tv_arena_init(&a);
        tv_automaton *m = NULL;
        node *n;
        tv_status st = random_regexp(&re, &a, &m, &n);
        if (st == TROVE_ETOOCOMPLEX) {
            tv_arena_fini(&a);
            continue;
        }
        assert_int_equal(st, TROVE_OK);
        compiled++;
        for (int k = 0; k < 200; k++) {
            uint32_t s[8];
            int len = (int)rnd(7);
            for (int i = 0; i < len; i++) s[i] = sa[rnd(sizeof(sa) / sizeof(sa[0]))];
            bool want = (ends(n, s, len, 0) >> len) & 1;
            encode(s, len, &str);
            bool got = tv_automaton_run(m, str.data, str.len);
            if (want != got) fprintf(stderr, "[%s] on [%s]: want %d got %d\n", re.data, str.data, want, got);
            assert_int_equal(want, got);
            /* the literal prefix holds for every accepted string */
            size_t pl;
            const char *p = tv_automaton_prefix(m, &pl);
            if (got) assert_true(str.len >= pl && memcmp(str.data, p, pl) == 0);
        }
        tv_arena_fini(&a);
    }
    assert_true(compiled > 300);
    tv_buf_fini(&re);
    tv_buf_fini(&str);
}

/* Enumerating sorted terms with tv_automaton_next, seeking where it says,
 * finds exactly the terms a plain scan accepts: the seek target never
 * jumps over an accepted term and always moves forward. Random regexps
 * over a mixed alphabet (ASCII, two- three- and four-byte UTF-8) against
 * sorted sets of random strings. */
static int cmp_bytes(const void *x, const void *y) {
    const tv_buf *a = x, *b = y;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->data, b->data, n);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* n random strings of 0-6 code points over a mixed alphabet (ASCII, two-
 * three- and four-byte UTF-8), sorted as a term dictionary is; the caller
 * frees them. */
static void random_sorted_terms(tv_buf *terms, int n) {
    static const uint32_t sa[] = {'a', 'b', 'c', '1', '0', 0xE9, 0x4E2D, 0x1F600};
    for (int k = 0; k < n; k++) {
        uint32_t cps[8];
        int len = (int)rnd(7);
        for (int i = 0; i < len; i++) cps[i] = sa[rnd(sizeof(sa) / sizeof(sa[0]))];
        tv_buf_init(&terms[k]);
        encode(cps, len, &terms[k]);
    }
    qsort(terms, (size_t)n, sizeof *terms, cmp_bytes);
}

static void test_regexp_seek_enumeration(void **state) {
    (void)state;
    enum { NT = 300 };
    tv_buf terms[NT], re;
    tv_buf_init(&re);
    long seeks = 0;
    for (int iter = 0; iter < 300; iter++) {
        int nt = NT;
        random_sorted_terms(terms, NT);
        tv_arena a;
        tv_arena_init(&a);
        tv_automaton *m = NULL;
        node *tree;
        if (random_regexp(&re, &a, &m, &tree) == TROVE_OK) {
            int i = 0;
            char out[64];
            while (i < nt) {
                size_t on;
                bool acc = tv_automaton_next(m, terms[i].data, terms[i].len, out, &on);
                assert_int_equal(acc, tv_automaton_run(m, terms[i].data, terms[i].len));
                if (acc || on == SIZE_MAX) {
                    i++;
                    continue;
                }
                /* everything skipped is rejected, and the target is after the term */
                int j = i + 1;
                if (on == 0) {
                    j = nt;
                } else {
                    tv_buf tgt = {out, on, on + 1, false};
                    assert_true(cmp_bytes(&tgt, &terms[i]) > 0);
                    while (j < nt && cmp_bytes(&terms[j], &tgt) < 0) j++;
                }
                for (int k = i; k < j; k++) {
                    if (tv_automaton_run(m, terms[k].data, terms[k].len))
                        fail_msg("[%s] skipped the accepted term [%s]", re.data, terms[k].data);
                }
                seeks++;
                i = j;
            }
        }
        tv_arena_fini(&a);
        for (int k = 0; k < nt; k++) tv_buf_fini(&terms[k]);
    }
    assert_true(seeks > 1000);
    tv_buf_fini(&re);
}

/* The enumeration the planner runs (exec.c plan_multi): seek to the
 * literal prefix, stop past it, skip terms without the tail suffix, feed
 * the rest to a cursor with the bytes each shares with the term fed
 * before, seek where the cursor says. It must accept exactly what a plain
 * scan accepts. */
static size_t common_prefix(const tv_buf *x, const tv_buf *y) {
    size_t n = 0;
    while (n < x->len && n < y->len && x->data[n] == y->data[n]) n++;
    return n;
}

static void test_regexp_cursor_enumeration(void **state) {
    (void)state;
    enum { NT = 300 };
    tv_buf terms[NT], re;
    tv_buf_init(&re);
    long fed = 0, filtered = 0, tails = 0;
    for (int iter = 0; iter < 400; iter++) {
        random_sorted_terms(terms, NT);
        tv_arena a;
        tv_arena_init(&a);
        tv_automaton *m = NULL;
        node *tree;
        tv_status cst = random_regexp(&re, &a, &m, &tree);
        if (cst == TROVE_OK && iter % 2) {
            /* half of them behind "b.*" or ".*" (tails that never die) */
            tv_buf w;
            tv_buf_init(&w);
            tv_buf_printf(&w, "%s.*(%s)", iter % 4 == 1 ? "b" : "", re.data);
            tv_buf_clear(&re);
            tv_buf_append(&re, w.data, w.len);
            tv_buf_putc(&re, 0);
            re.len--;
            tv_buf_fini(&w);
            tv_error err = TV_ERROR_INIT;
            cst = tv_regexp_compile(re.data, re.len, TV_RE_ALL, 0, &a, &m, &err);
        }
        if (cst == TROVE_OK) {
            size_t pl, sl;
            const char *p = tv_automaton_prefix(m, &pl);
            const char *suf = tv_automaton_tail_suffix(m, &sl);
            if (suf) tails++;
            tv_automaton_cursor cur;
            assert_true(tv_automaton_cursor_init(&cur, m, 6 * 4, &a));
            bool got[NT] = {false};
            tv_buf pre = {(char *)p, pl, pl + 1, false};
            int i = 0, last = -1; /* last: the term fed before, -1 after a seek */
            while (i < NT && cmp_bytes(&terms[i], &pre) < 0) i++;
            char out[64];
            while (i < NT) {
                const tv_buf *t = &terms[i];
                if (t->len < pl || memcmp(t->data, p, pl) != 0) break;
                if (suf && (t->len < sl || memcmp(t->data + t->len - sl, suf, sl) != 0)) {
                    filtered++;
                    i++;
                    continue;
                }
                size_t on, shared = last < 0 ? 0 : common_prefix(&terms[last], t);
                got[i] = tv_automaton_cursor_next(&cur, t->data, t->len, shared, out, &on);
                fed++;
                if (got[i] || on == SIZE_MAX) {
                    last = i++;
                    continue;
                }
                if (on == 0) break;
                tv_buf tgt = {out, on, on + 1, false};
                assert_true(cmp_bytes(&tgt, t) > 0);
                while (i < NT && cmp_bytes(&terms[i], &tgt) < 0) i++;
                last = -1;
            }
            for (int k = 0; k < NT; k++) {
                bool want = tv_automaton_run(m, terms[k].data, terms[k].len);
                if (want != got[k])
                    fail_msg("[%s] on [%s]: want %d got %d", re.data, terms[k].data, want, got[k]);
                /* every accepted string ends with the tail suffix */
                if (want && suf)
                    assert_true(terms[k].len >= sl && memcmp(terms[k].data + terms[k].len - sl, suf, sl) == 0);
            }
        }
        tv_arena_fini(&a);
        for (int k = 0; k < NT; k++) tv_buf_fini(&terms[k]);
    }
    assert_true(fed > 10000);
    assert_true(filtered > 1000);
    assert_true(tails > 20);
    tv_buf_fini(&re);
}

/* The tail suffix of patterns the full-text benchmark runs, and of ones
 * whose runs can die past the prefix (no suffix then, so seeks are kept). */
static void expect_tail(const char *re, bool wildcard, const char *want) {
    tv_arena a;
    tv_arena_init(&a);
    tv_automaton *m = NULL;
    tv_error err = TV_ERROR_INIT;
    tv_status st = wildcard ? tv_wildcard_compile(re, strlen(re), false, 0, &a, &m, &err)
                            : tv_regexp_compile(re, strlen(re), TV_RE_ALL, 0, &a, &m, &err);
    assert_int_equal(st, TROVE_OK);
    size_t sl;
    const char *s = tv_automaton_tail_suffix(m, &sl);
    if (!want) {
        if (s) fail_msg("%s: want no tail suffix, got [%.*s]", re, (int)sl, s);
    } else {
        if (!s || sl != strlen(want) || memcmp(s, want, sl) != 0)
            fail_msg("%s: want tail suffix [%s], got [%.*s]", re, want, s ? (int)sl : 4, s ? s : "NULL");
    }
    tv_arena_fini(&a);
}

static void test_tail_suffix(void **state) {
    (void)state;
    expect_tail("*ances", true, "ances");
    expect_tail("h*band", true, "band");
    expect_tail("th*e", true, "e");
    expect_tail("a*b?c", true, "c"); /* any character before the c */
    expect_tail(".*(tion|sion)", false, "ion");
    expect_tail(".*été", false, "été");
    expect_tail("(.*ab|.*cb)", false, "b");
    expect_tail("ph[a-z]*ics", false, NULL);  /* [a-z] dies on other characters */
    expect_tail("colou?r", false, NULL);
    expect_tail("mos.*", false, NULL);        /* accepts "mos" and more: no common suffix */
    expect_tail(".*", false, NULL);
    expect_tail("abc", false, NULL);          /* a single string: an exact lookup */
    expect_tail(".*0th", false, "0th");
}

/* ------------------------------------------------------- fixed regexps */

static void test_regexp_syntax(void **state) {
    (void)state;
    tv_arena a;
    tv_arena_init(&a);
    tv_automaton *m = re_ok(&a, "ab.*", TV_RE_ALL);
    assert_true(run(m, "ab"));
    assert_true(run(m, "abzzz"));
    assert_false(run(m, "a"));
    size_t pl;
    const char *p = tv_automaton_prefix(m, &pl);
    assert_int_equal(pl, 2);
    assert_memory_equal(p, "ab", 2);

    m = re_ok(&a, "[a-c]+x{2,3}", TV_RE_ALL);
    assert_true(run(m, "abcxx"));
    assert_true(run(m, "axxx"));
    assert_false(run(m, "axxxx"));
    assert_false(run(m, "dxx"));

    m = re_ok(&a, "\"a.b\"", TV_RE_ALL); /* quoted string is literal */
    assert_true(run(m, "a.b"));
    assert_false(run(m, "axb"));

    m = re_ok(&a, "@&~(foo.*)", TV_RE_ALL);
    assert_true(run(m, "bar"));
    assert_false(run(m, "food"));
    assert_true(run(m, ""));

    m = re_ok(&a, "<1-100>", TV_RE_ALL);
    assert_true(run(m, "1"));
    assert_true(run(m, "100"));
    assert_true(run(m, "007"));
    assert_false(run(m, "101"));
    assert_false(run(m, "0"));
    m = re_ok(&a, "<01-10>", TV_RE_ALL); /* fixed width */
    assert_true(run(m, "05"));
    assert_false(run(m, "5"));
    assert_true(run(m, "10"));

    m = re_ok(&a, "a#", TV_RE_ALL);
    assert_true(tv_automaton_is_empty(m));
    assert_false(run(m, "a"));
    m = re_ok(&a, "a#", TV_RE_NONE); /* '#' is a literal without EMPTY */
    assert_true(run(m, "a#"));
    m = re_ok(&a, "a@", TV_RE_NONE);
    assert_true(run(m, "a@"));
    m = re_ok(&a, "a&b", TV_RE_NONE);
    assert_true(run(m, "a&b"));

    m = re_ok(&a, ".*", TV_RE_ALL);
    assert_true(tv_automaton_is_total(m));
    m = re_ok(&a, "abc", TV_RE_ALL);
    const char *s;
    size_t sl;
    assert_true(tv_automaton_single(m, &s, &sl));
    assert_int_equal(sl, 3);

    m = re_ok(&a, "\\d+\\.\\w", TV_RE_ALL);
    assert_true(run(m, "12.x"));
    assert_false(run(m, "12x"));
    m = re_ok(&a, "[^a-c]", TV_RE_ALL);
    assert_true(run(m, "\xF0\x9F\x98\x80")); /* one code point, four bytes */
    assert_false(run(m, "b"));
    assert_false(run(m, "dd"));

    m = re_ok(&a, "héllo.", TV_RE_ALL);
    assert_true(run(m, "héllo中"));
    assert_false(run(m, "hello中"));
    assert_false(run(m, "h\xC3"));        /* truncated UTF-8 */

    /* case_insensitive: ASCII letters only, in literals and classes */
    m = re_ok(&a, "ab[c]É", TV_RE_ALL | TV_RE_CASE_INSENSITIVE);
    assert_true(run(m, "ABCÉ"));
    assert_true(run(m, "aBcÉ"));
    assert_false(run(m, "abcé"));
    tv_arena_fini(&a);
}

static void test_regexp_errors(void **state) {
    (void)state;
    re_err("ab(c", TV_RE_ALL, TROVE_EARG, "expected ')' at position 4");
    re_err("[abc", TV_RE_ALL, TROVE_EARG, "expected ']' at position 4");
    re_err("a)", TV_RE_ALL, TROVE_EARG, "end-of-string expected at position 1");
    re_err("a\\", TV_RE_ALL, TROVE_EARG, "unexpected end-of-string");
    re_err("[z-a]", TV_RE_ALL, TROVE_EARG, "invalid range: from (122) cannot be > to (97)");
    re_err("a{x}", TV_RE_ALL, TROVE_EARG, "integer expected at position 2");
    re_err("a{2", TV_RE_ALL, TROVE_EARG, "expected '}' at position 3");
    re_err("\"abc", TV_RE_ALL, TROVE_EARG, "expected '\"' at position 4");
    re_err("<1-", TV_RE_ALL, TROVE_EARG, "expected '>' at position 3");
    re_err("<a-b>", TV_RE_ALL, TROVE_EARG, "interval syntax error at position 4");
    re_err("<foo>", TV_RE_ALL, TROVE_EARG, "'foo' not found");
    re_err("\\q", TV_RE_ALL, TROVE_EARG, "invalid character class \\q");
    /* positions count UTF-16 units as Java does */
    re_err("\xF0\x9F\x98\x80(a", TV_RE_ALL, TROVE_EARG, "expected ')' at position 4");
    re_err("(", TV_RE_ALL, TROVE_EARG, "unexpected end-of-string");
}

static void test_regexp_limit(void **state) {
    (void)state;
    /* the classic exponential case: the n-th last character is an 'a' */
    tv_arena a;
    tv_arena_init(&a);
    tv_automaton *m = NULL;
    tv_error err = TV_ERROR_INIT;
    const char *re = "(a|b)*a(a|b){20}";
    tv_error_clear(&err);
    tv_status st = tv_regexp_compile(re, strlen(re), TV_RE_ALL, 10000, &a, &m, &err);
    assert_int_equal(st, TROVE_ETOOCOMPLEX);
    assert_non_null(strstr(err.reason, "would require more than 10000 effort."));
    assert_memory_equal(err.reason, "Determinizing automaton with ", 29);
    /* a larger limit lets a smaller instance through */
    re = "(a|b)*a(a|b){8}";
    tv_error_clear(&err);
    st = tv_regexp_compile(re, strlen(re), TV_RE_ALL, 100000, &a, &m, &err);
    assert_int_equal(st, TROVE_OK);
    assert_true(run(m, "abbbbbbbb"));
    assert_false(run(m, "bbbbbbbbb"));
    /* huge repeats are refused before building */
    re = "a{100000}";
    tv_error_clear(&err);
    st = tv_regexp_compile(re, strlen(re), TV_RE_ALL, 10000, &a, &m, &err);
    assert_int_equal(st, TROVE_ETOOCOMPLEX);
    assert_string_equal(err.reason, "Determinizing a{100000} would require more than 100000 effort.");
    /* deep nesting is an error, not a stack overflow */
    char deep[3000];
    memset(deep, '(', 1000);
    deep[1000] = 'a';
    memset(deep + 1001, ')', 1000);
    deep[2001] = 0;
    tv_error_clear(&err);
    st = tv_regexp_compile(deep, strlen(deep), TV_RE_ALL, 0, &a, &m, &err);
    assert_int_equal(st, TROVE_EARG);
    /* a long flat regexp is fine */
    char flat[20001];
    memset(flat, 'a', 20000);
    flat[20000] = 0;
    tv_error_clear(&err);
    st = tv_regexp_compile(flat, 20000, TV_RE_ALL, 0, &a, &m, &err);
    assert_int_equal(st, TROVE_OK);
    assert_true(tv_automaton_run(m, flat, 20000));
    tv_arena_fini(&a);
}

static void test_regexp_flags(void **state) {
    (void)state;
    int f;
    tv_error err = TV_ERROR_INIT;
    assert_true(tv_regexp_parse_flags("", 0, &f, &err));
    assert_int_equal(f, TV_RE_ALL);
    tv_error_clear(&err);
    assert_true(tv_regexp_parse_flags("INTERSECTION|complement", 23, &f, &err));
    assert_int_equal(f, TV_RE_INTERSECTION | TV_RE_COMPLEMENT);
    tv_error_clear(&err);
    assert_true(tv_regexp_parse_flags("NONE", 4, &f, &err));
    assert_int_equal(f, 0);
    tv_error_clear(&err);
    assert_true(tv_regexp_parse_flags("EMPTY|ALL", 9, &f, &err));
    assert_int_equal(f, TV_RE_ALL);
    tv_error_clear(&err);
    assert_false(tv_regexp_parse_flags("EMPTY|BOGUS", 11, &f, &err));
    assert_string_equal(err.reason, "Unknown regexp flag [BOGUS]");
}

/* ------------------------------------------------------------ wildcard */

static bool wild_brute(const uint32_t *p, int pn, const uint32_t *s, int sn) {
    if (pn == 0) return sn == 0;
    if (p[0] == '*') {
        for (int i = 0; i <= sn; i++)
            if (wild_brute(p + 1, pn - 1, s + i, sn - i)) return true;
        return false;
    }
    if (sn == 0) return false;
    if (p[0] == '?') return wild_brute(p + 1, pn - 1, s + 1, sn - 1);
    if (p[0] == '\\' && pn > 1) return s[0] == p[1] && wild_brute(p + 2, pn - 2, s + 1, sn - 1);
    return s[0] == p[0] && wild_brute(p + 1, pn - 1, s + 1, sn - 1);
}

static void test_wildcard_random(void **state) {
    (void)state;
    static const uint32_t pa[] = {'a', 'b', '*', '?', '\\', 0xE9, 0x1F600};
    static const uint32_t sa[] = {'a', 'b', '*', '?', '\\', 0xE9, 0x1F600};
    tv_buf pb, sb;
    tv_buf_init(&pb);
    tv_buf_init(&sb);
    for (int iter = 0; iter < 500; iter++) {
        uint32_t p[8];
        int pn = (int)rnd(7);
        for (int i = 0; i < pn; i++) p[i] = pa[rnd(7)];
        encode(p, pn, &pb);
        tv_arena a;
        tv_arena_init(&a);
        tv_automaton *m = NULL;
        tv_error err = TV_ERROR_INIT;
        assert_int_equal(tv_wildcard_compile(pb.data, pb.len, false, 0, &a, &m, &err), TROVE_OK);
        for (int k = 0; k < 100; k++) {
            uint32_t s[8];
            int sn = (int)rnd(7);
            for (int i = 0; i < sn; i++) s[i] = sa[rnd(7)];
            encode(s, sn, &sb);
            assert_int_equal(wild_brute(p, pn, s, sn), tv_automaton_run(m, sb.data, sb.len));
        }
        tv_arena_fini(&a);
    }
    tv_buf_fini(&pb);
    tv_buf_fini(&sb);
}

static void test_wildcard_prefix_ci(void **state) {
    (void)state;
    tv_arena a;
    tv_arena_init(&a);
    tv_automaton *m = NULL;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_wildcard_compile("Qu?ck*", 6, true, 0, &a, &m, &err), TROVE_OK);
    assert_true(run(m, "quick"));
    assert_true(run(m, "QUACKERY"));
    assert_false(run(m, "quck"));
    tv_error_clear(&err);
    assert_int_equal(tv_wildcard_compile("ÉT*", 4, true, 0, &a, &m, &err), TROVE_OK);
    assert_true(run(m, "étude")); /* non-ASCII letters fold too (Java case mapping) */
    tv_error_clear(&err);
    assert_int_equal(tv_wildcard_compile("te\\*t", 5, false, 0, &a, &m, &err), TROVE_OK);
    assert_true(run(m, "te*t"));
    assert_false(run(m, "test"));
    size_t pl;
    tv_automaton_prefix(m, &pl);
    assert_int_equal(pl, 4);
    tv_error_clear(&err);
    assert_int_equal(tv_wildcard_compile("*", 1, false, 0, &a, &m, &err), TROVE_OK);
    assert_true(tv_automaton_is_total(m));

    tv_error_clear(&err);
    assert_int_equal(tv_prefix_compile("ki", 2, false, &a, &m, &err), TROVE_OK);
    assert_true(run(m, "ki"));
    assert_true(run(m, "kimchy"));
    assert_false(run(m, "Kimchy"));
    tv_error_clear(&err);
    assert_int_equal(tv_prefix_compile("ki", 2, true, &a, &m, &err), TROVE_OK);
    assert_true(run(m, "KImchy"));
    tv_arena_fini(&a);
}

/* --------------------------------------------------------- Levenshtein */

static int brute_ed(const uint32_t *a, int n, const uint32_t *b, int m, bool tr) {
    int d[10][10];
    for (int i = 0; i <= n; i++) d[i][0] = i;
    for (int j = 0; j <= m; j++) d[0][j] = j;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= m; j++) {
            int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (tr && i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

static void test_levenshtein_random(void **state) {
    (void)state;
    static const uint32_t al[] = {'a', 'b', 'c', 0xE9, 0x1F600};
    tv_buf tb, sb;
    tv_buf_init(&tb);
    tv_buf_init(&sb);
    for (int iter = 0; iter < 300; iter++) {
        uint32_t t[8];
        int tn = 1 + (int)rnd(6);
        for (int i = 0; i < tn; i++) t[i] = al[rnd(5)];
        encode(t, tn, &tb);
        int k = (int)rnd(3), pl = (int)rnd(3);
        bool tr = rnd(2);
        tv_arena a;
        tv_arena_init(&a);
        tv_automaton *m = NULL;
        tv_error err = TV_ERROR_INIT;
        assert_int_equal(tv_levenshtein_compile(tb.data, tb.len, k, pl, tr, &a, &m, &err), TROVE_OK);
        for (int q = 0; q < 200; q++) {
            uint32_t s[9];
            int sn;
            if (rnd(2)) { /* mutate the term: more hits */
                sn = tn;
                memcpy(s, t, sizeof(uint32_t) * (size_t)tn);
                int edits = (int)rnd(4);
                for (int e = 0; e < edits; e++) {
                    int op = (int)rnd(3), at = sn ? (int)rnd((uint32_t)sn) : 0;
                    if (op == 0 && sn < 8) { memmove(s + at + 1, s + at, sizeof(uint32_t) * (size_t)(sn - at)); s[at] = al[rnd(5)]; sn++; }
                    else if (op == 1 && sn > 0) { memmove(s + at, s + at + 1, sizeof(uint32_t) * (size_t)(sn - at - 1)); sn--; }
                    else if (sn > 1 && at + 1 < sn) { uint32_t x = s[at]; s[at] = s[at + 1]; s[at + 1] = x; }
                }
            } else {
                sn = (int)rnd(8);
                for (int i = 0; i < sn; i++) s[i] = al[rnd(5)];
            }
            int ppl = pl < tn ? pl : tn;
            bool prefix_ok = sn >= ppl && memcmp(s, t, sizeof(uint32_t) * (size_t)ppl) == 0;
            int d = brute_ed(t + ppl, tn - ppl, prefix_ok ? s + ppl : s, prefix_ok ? sn - ppl : sn, tr);
            bool want = prefix_ok && d <= k;
            if (ppl >= tn) /* Lucene: the prefix covers the term, exact match only */
                want = sn == tn && memcmp(s, t, sizeof(uint32_t) * (size_t)tn) == 0;
            encode(s, sn, &sb);
            bool got = tv_automaton_run(m, sb.data, sb.len);
            if (want != got)
                fprintf(stderr, "lev [%s] k=%d pl=%d tr=%d on [%s]: want %d\n", tb.data, k, pl, tr, sb.data, want);
            assert_int_equal(want, got);
            int full = brute_ed(t, tn, s, sn, tr);
            int ed = tv_edit_distance(tb.data, tb.len, sb.data, sb.len, 2, tr);
            assert_int_equal(ed, full > 2 ? 3 : full);
        }
        tv_arena_fini(&a);
    }
    tv_buf_fini(&tb);
    tv_buf_fini(&sb);
}

static void test_fuzziness(void **state) {
    (void)state;
    assert_int_equal(tv_fuzziness_distance("AUTO", 4, "ab", 2), 0);
    assert_int_equal(tv_fuzziness_distance("AUTO", 4, "abc", 3), 1);
    assert_int_equal(tv_fuzziness_distance("auto", 4, "abcde", 5), 1);
    assert_int_equal(tv_fuzziness_distance("AUTO", 4, "abcdef", 6), 2);
    assert_int_equal(tv_fuzziness_distance("AUTO", 4, "ééé", 6), 1); /* code points */
    assert_int_equal(tv_fuzziness_distance("AUTO:2,4", 8, "ab", 2), 1);
    assert_int_equal(tv_fuzziness_distance("AUTO:2,4", 8, "abcd", 4), 2);
    assert_int_equal(tv_fuzziness_distance("1", 1, "abcd", 4), 1);
    assert_int_equal(tv_fuzziness_distance("5", 1, "abcd", 4), 2);
    assert_int_equal(tv_fuzziness_distance("1.5", 3, "abcd", 4), 1);
    assert_int_equal(tv_fuzziness_distance("x", 1, "abcd", 4), -1);
    assert_int_equal(tv_fuzziness_distance("AUTO:x", 6, "abcd", 4), -1);
}

static void test_oom(void **state) {
    (void)state;
    /* every allocation failure surfaces as TROVE_ENOMEM, never a crash */
    for (long n = 0; n < 400; n++) {
        tv_arena a;
        tv_arena_init(&a);
        tv_automaton *m = NULL;
        tv_error err = TV_ERROR_INIT;
        tv_alloc_fail_after(n);
        tv_error_clear(&err);
        tv_status st = tv_regexp_compile("(ab|c[d-f])*~(x.*)&@", 20, TV_RE_ALL, 0, &a, &m, &err);
        tv_alloc_fail_after(-1);
        assert_true(st == TROVE_OK || st == TROVE_ENOMEM);
        if (st == TROVE_OK) {
            assert_true(run(m, "abcd"));
            tv_arena_fini(&a);
            break;
        }
        tv_arena_fini(&a);
    }
}

/* ------------------------------------------------- end to end (DSL) */

static tv_index *mkindex(void) {
    const char *mappings = "{\"properties\":{\"title\":{\"type\":\"text\"},\"tag\":{\"type\":\"keyword\"},"
                           "\"low\":{\"type\":\"keyword\",\"normalizer\":\"lowercase\"},\"n\":{\"type\":\"long\"}}}";
    tv_arena a;
    tv_arena_init(&a);
    tv_json *m = NULL;
    assert_int_equal(tv_json_parse(&a, mappings, strlen(mappings), &m, NULL), TROVE_OK);
    tv_error err = TV_ERROR_INIT;
    tv_index *idx = tv_index_new("test", NULL, m, &err);
    if (!idx) fprintf(stderr, "tv_index_new: %s\n", err.reason);
    assert_non_null(idx);
    tv_arena_fini(&a);
    static const char *docs[] = {
        "{\"title\":\"quick brown fox\",\"tag\":\"Alpha-1\",\"low\":\"MiXed\",\"n\":1}",
        "{\"title\":\"lazy fox\",\"tag\":\"alpha-22\",\"low\":\"other\",\"n\":2}",
        "{\"title\":\"quack\",\"tag\":\"beta\",\"low\":\"mixer\",\"n\":3}",
    };
    for (int i = 0; i < 3; i++) {
        char id[4];
        snprintf(id, sizeof id, "%d", i + 1);
        tv_write_opts o;
        tv_write_opts_init(&o);
        tv_write_result res;
        tv_error_clear(&err);
        tv_status st = tv_index_put(idx, id, strlen(id), docs[i], strlen(docs[i]), &o, &res, &err);
        if (st) fprintf(stderr, "put: %s\n", err.reason);
        assert_int_equal(st, TROVE_OK);
    }
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    return idx;
}

/* Runs a search; returns the response (owned) or NULL with err. */
static char *do_search(tv_index *idx, const char *body, tv_error *err) {
    tv_arena a;
    tv_arena_init(&a);
    tv_json *b = NULL;
    assert_int_equal(tv_json_parse(&a, body, strlen(body), &b, NULL), TROVE_OK);
    const tv_snapshot *snap = tv_index_acquire(idx);
    tv_search_target t = {"test", snap, 10000};
    tv_search_params p;
    tv_search_params_init(&p);
    p.body_text = body;
    p.body_text_len = strlen(body);
    tv_buf out;
    tv_buf_init(&out);
    tv_jw w;
    tv_jw_init(&w, &out, false);
    tv_error_clear(err);
    tv_status st = tv_search_run(&t, 1, b, &p, &a, &w, err);
    tv_snapshot_release(snap);
    tv_arena_fini(&a);
    if (st) {
        tv_buf_fini(&out);
        return NULL;
    }
    return tv_buf_detach(&out, NULL);
}

/* The ids of the hits, in order, as "1,3". */
static void hit_ids(const char *r, char *out, size_t cap) {
    out[0] = 0;
    const char *p = r;
    size_t n = 0;
    while ((p = strstr(p, "\"_id\":\"")) != NULL) {
        p += 7;
        const char *e = strchr(p, '"');
        if (n && n + 1 < cap) out[n++] = ',';
        while (p < e && n + 1 < cap) out[n++] = *p++;
        out[n] = 0;
    }
}

static void expect_ids(tv_index *idx, const char *body, const char *ids) {
    tv_error err = TV_ERROR_INIT;
    char *r = do_search(idx, body, &err);
    if (!r) fprintf(stderr, "%s: %s\n", body, err.reason);
    assert_non_null(r);
    char got[256];
    hit_ids(r, got, sizeof got);
    if (strcmp(got, ids) != 0) fprintf(stderr, "%s\n  want [%s] got [%s]\n  %s\n", body, ids, got, r);
    assert_string_equal(got, ids);
    tv_free(r);
}

static void expect_err(tv_index *idx, const char *body, tv_status code, const char *reason) {
    tv_error err = TV_ERROR_INIT;
    char *r = do_search(idx, body, &err);
    if (r || err.code != code || !strstr(err.reason, reason))
        fprintf(stderr, "%s\n  want %s [%s] got %s [%s]\n", body, trove_status_name(code), reason,
                trove_status_name(err.code), err.reason);
    assert_null(r);
    assert_int_equal(err.code, code);
    assert_non_null(strstr(err.reason, reason));
}

static void test_dsl_wildcard_regexp(void **state) {
    (void)state;
    tv_index *idx = mkindex();
    expect_ids(idx, "{\"query\":{\"wildcard\":{\"title\":\"qu?ck\"}}}", "1,3");
    expect_ids(idx, "{\"query\":{\"wildcard\":{\"title\":{\"value\":\"f*\"}}}}", "1,2");
    /* the pattern is not analyzed: upper case does not match lowercased terms */
    expect_ids(idx, "{\"query\":{\"wildcard\":{\"title\":\"F*\"}}}", "");
    expect_ids(idx, "{\"query\":{\"wildcard\":{\"title\":{\"value\":\"F*\",\"case_insensitive\":true}}}}", "1,2");
    expect_ids(idx, "{\"query\":{\"wildcard\":{\"tag\":\"alpha*\"}}}", "2");
    expect_ids(idx, "{\"query\":{\"wildcard\":{\"low\":\"MIX*\"}}}", "1,3"); /* normalizer */
    expect_ids(idx, "{\"query\":{\"regexp\":{\"tag\":\"[aA]lpha-[0-9]\"}}}", "1");
    expect_ids(idx, "{\"query\":{\"regexp\":{\"tag\":{\"value\":\"alpha.*\",\"case_insensitive\":true}}}}", "1,2");
    expect_ids(idx, "{\"query\":{\"regexp\":{\"tag\":{\"value\":\"alpha-<1-30>\",\"flags\":\"INTERVAL\"}}}}", "2");
    expect_ids(idx, "{\"query\":{\"regexp\":{\"title\":\"qu(i|a)ck\"}}}", "1,3");
    expect_ids(idx, "{\"query\":{\"regexp\":{\"missing\":\"x.*\"}}}", "");
    /* errors */
    expect_err(idx, "{\"query\":{\"regexp\":{\"tag\":\"a(b\"}}}", TROVE_EQUERYSHARD,
               "failed to create query: expected ')' at position 3");
    expect_err(idx, "{\"query\":{\"regexp\":{\"tag\":{\"value\":\"(a|b)*a(a|b){20}\"}}}}", TROVE_EQUERYSHARD,
               "would require more than 10000 effort.");
    expect_err(idx, "{\"query\":{\"regexp\":{\"tag\":{\"value\":\"a\",\"flags\":\"FOO\"}}}}", TROVE_EARG,
               "Unknown regexp flag [FOO]");
    expect_err(idx, "{\"query\":{\"wildcard\":{\"tag\":{\"value\":\"a\",\"foo\":1}}}}", TROVE_EPARSE,
               "[wildcard] query does not support [foo]");
    expect_err(idx, "{\"query\":{\"wildcard\":{\"tag\":\"a\",\"low\":\"b\"}}}", TROVE_EPARSE,
               "[wildcard] query doesn't support multiple fields, found [tag] and [low]");
    expect_err(idx, "{\"query\":{\"wildcard\":{\"n\":\"1*\"}}}", TROVE_EQUERYSHARD,
               "Can only use wildcard queries on keyword and text fields - not on [n] which is of type [long]");
    tv_index_release(idx);
}

static void test_dsl_fuzzy(void **state) {
    (void)state;
    tv_index *idx = mkindex();
    /* quack is one edit away from quick (boost 0.8) but a shorter field */
    expect_ids(idx, "{\"query\":{\"fuzzy\":{\"title\":\"quick\"}}}", "3,1");
    expect_ids(idx, "{\"query\":{\"fuzzy\":{\"title\":{\"value\":\"quick\",\"fuzziness\":0}}}}", "1");
    expect_ids(idx, "{\"query\":{\"fuzzy\":{\"title\":{\"value\":\"quick\",\"prefix_length\":3}}}}", "1");
    expect_ids(idx, "{\"query\":{\"fuzzy\":{\"title\":{\"value\":\"quick\",\"max_expansions\":1}}}}", "1");
    expect_ids(idx, "{\"query\":{\"fuzzy\":{\"title\":{\"value\":\"fxo\"}}}}", "2,1"); /* transposition; shorter field first */
    expect_ids(idx, "{\"query\":{\"fuzzy\":{\"title\":{\"value\":\"fxo\",\"transpositions\":false}}}}", "");
    /* scores: BlendedTermQuery idf from the largest df, times the edit boost */
    tv_error err = TV_ERROR_INIT;
    char *r = do_search(idx, "{\"query\":{\"fuzzy\":{\"title\":\"quick\"}}}", &err);
    assert_non_null(r);
    tv_bm25 sim;
    tv_bm25_init(&sim, 0.8f, tv_bm25_idf(1, 3), 6, 3);
    char want[64], fmt[32];
    tv_fmt_float(tv_bm25_score(&sim, 1.0f, tv_norm_encode(1)), fmt);
    snprintf(want, sizeof want, "\"_id\":\"3\",\"_score\":%s", fmt);
    if (!strstr(r, want)) fprintf(stderr, "want %s in %s\n", want, r);
    assert_non_null(strstr(r, want));
    tv_free(r);
    expect_err(idx, "{\"query\":{\"fuzzy\":{\"title\":{\"value\":\"a\",\"max_expansions\":0}}}}",
               TROVE_EQUERYSHARD, "maxExpansions must be positive.");
    tv_index_release(idx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regexp_random),      cmocka_unit_test(test_regexp_seek_enumeration),
        cmocka_unit_test(test_regexp_cursor_enumeration), cmocka_unit_test(test_tail_suffix),
        cmocka_unit_test(test_regexp_syntax),
        cmocka_unit_test(test_regexp_errors),      cmocka_unit_test(test_regexp_limit),
        cmocka_unit_test(test_regexp_flags),       cmocka_unit_test(test_wildcard_random),
        cmocka_unit_test(test_wildcard_prefix_ci), cmocka_unit_test(test_levenshtein_random),
        cmocka_unit_test(test_fuzziness),          cmocka_unit_test(test_oom),
        cmocka_unit_test(test_dsl_wildcard_regexp), cmocka_unit_test(test_dsl_fuzzy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
