/*
 * fuzz_query_regexp.c — libFuzzer target for the automata: the first byte
 * picks the constructor (regexp with flags, wildcard, Levenshtein) and
 * options, the rest is the pattern; every built automaton is run over a
 * few strings derived from the input, and its literal prefix is checked
 * against every accepted valid-UTF-8 one. Errors are fine; crashes, leaks, sanitizer
 * reports and a prefix that an accepted string lacks are not.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "query/automaton.h"
#include "text/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const tv_automaton *a, const char *s, size_t n) {
    if (!tv_automaton_run(a, s, n)) return;
    /* invalid bytes run as U+FFFD, which the prefix spells as EF BF BD;
     * indexed terms are valid UTF-8, so the seek invariant is for those */
    if (!tv_utf8_valid(s, n)) return;
    size_t pl;
    const char *p = tv_automaton_prefix(a, &pl);
    if (pl > n || memcmp(p, s, pl) != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > 4096) return 0;
    uint8_t mode = data[0];
    const char *pat = (const char *)data + 1;
    size_t n = size - 1;
    tv_arena arena;
    tv_arena_init(&arena);
    tv_automaton *a = NULL;
    tv_error err = TV_ERROR_INIT;
    tv_status st;
    switch (mode % 4) {
    case 0:
    case 1: {
        int flags = (mode & 0x80) ? TV_RE_ALL : (mode >> 2) & 0x3f;
        if (mode & 0x40) flags |= TV_RE_CASE_INSENSITIVE;
        tv_error_clear(&err);
        st = tv_regexp_compile(pat, n, flags, 1000, &arena, &a, &err);
        break;
    }
    case 2:
        tv_error_clear(&err);
        st = tv_wildcard_compile(pat, n, (mode >> 2) & 1, 1000, &arena, &a, &err);
        break;
    default:
        tv_error_clear(&err);
        st = tv_levenshtein_compile(pat, n > 64 ? 64 : n, (mode >> 2) % 3, (mode >> 4) % 3,
                                    (mode >> 6) & 1, &arena, &a, &err);
        break;
    }
    if (st == TROVE_OK) {
        check(a, pat, n);
        check(a, "", 0);
        for (size_t i = 0; i < n && i < 16; i++) check(a, pat + i, n - i);
        for (size_t i = 0; i < n && i < 16; i++) check(a, pat, i);
        if (mode % 4 == 3) {
            int d = tv_edit_distance(pat, n > 64 ? 64 : n, pat, n > 64 ? 63 : (n ? n - 1 : 0), 2, true);
            if (d < 0 || d > 3) abort();
        }
    }
    tv_arena_fini(&arena);
    return 0;
}
