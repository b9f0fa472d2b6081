/* test_text_wrap.c — the analyzers of text's hidden sub-fields
 * (tv_analyzer_wrap): edge n-grams (index_prefixes, Lucene's
 * EdgeNGramTokenFilter), 2-shingles (index_phrases, FixedShingleFilter(2))
 * and search_as_you_type's n-shingles and shingle prefixes: terms,
 * positions and offsets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "text/text.h"

/* "term@pos[start16-end16]" of each token, space separated */
static void expect(const tv_analyzer *base, tv_analyzer_wrap_kind k, uint32_t mn, uint32_t mx, const char *text,
                   const char *want) {
    tv_analyzer *an = tv_analyzer_wrap(base, k, mn, mx);
    assert_non_null(an);
    assert_string_equal(tv_analyzer_name(an), tv_analyzer_name(base));
    tv_arena a;
    tv_arena_init(&a);
    tv_tokens toks;
    assert_int_equal(tv_analyze(an, &a, text, strlen(text), 0, &toks), TROVE_OK);
    char got[2048];
    size_t o = 0;
    got[0] = 0;
    for (size_t i = 0; i < toks.len && o < sizeof got - 64; i++)
        o += (size_t)snprintf(got + o, sizeof got - o, "%s%.*s@%u[%u-%u]", i ? " " : "", (int)toks.items[i].term_len,
                              toks.items[i].term, toks.items[i].position, toks.items[i].start16, toks.items[i].end16);
    if (strcmp(got, want) != 0) fail_msg("[%s]\n want %s\n got  %s", text, want, got);
    tv_arena_fini(&a);
    tv_analyzer_free(an);
}

static void t_edge_ngram(void **s) {
    (void)s;
    const tv_analyzer *std = tv_analyzer_builtin("standard", 8);
    expect(std, TV_WRAP_EDGE_NGRAM, 2, 4, "Quick a über",
           "qu@0[0-5] qui@0[0-5] quic@0[0-5] üb@2[8-12] übe@2[8-12] über@2[8-12]");
    expect(std, TV_WRAP_EDGE_NGRAM, 1, 1, "ab", "a@0[0-2]");
}

static void t_shingle2(void **s) {
    (void)s;
    const tv_analyzer *std = tv_analyzer_builtin("standard", 8);
    expect(std, TV_WRAP_SHINGLE2, 0, 0, "peter piper picked", "peter piper@0[0-11] piper picked@1[6-18]");
    expect(std, TV_WRAP_SHINGLE2, 0, 0, "alone", "");
    /* a stop word's gap: no shingle across it */
    const tv_analyzer *stop = tv_analyzer_builtin("stop", 4);
    expect(stop, TV_WRAP_SHINGLE2, 0, 0, "quick and dirty trick", "dirty trick@2[10-21]");
}

static void t_search_as_you_type(void **s) {
    (void)s;
    const tv_analyzer *std = tv_analyzer_builtin("standard", 8);
    expect(std, TV_WRAP_SHINGLE_N, 3, 0, "a b c d", "a b c@0[0-5] b c d@1[2-7]");
    expect(std, TV_WRAP_SHINGLE_N, 3, 0, "a b", "");
    /* the prefix field: trailing fillers, then edge n-grams 1..20 */
    expect(std, TV_WRAP_SAYT_PREFIX, 2, 0, "ab cd",
           "a@0[0-5] ab@0[0-5] ab @0[0-5] ab c@0[0-5] ab cd@0[0-5] c@1[3-5] cd@1[3-5] cd @1[3-5]");
    /* longer than 20 code points: the grams, then the original */
    expect(std, TV_WRAP_SAYT_PREFIX, 2, 0, "abcdefghijklmnopqrstu",
           "a@0[0-21] ab@0[0-21] abc@0[0-21] abcd@0[0-21] abcde@0[0-21] abcdef@0[0-21] abcdefg@0[0-21] "
           "abcdefgh@0[0-21] abcdefghi@0[0-21] abcdefghij@0[0-21] abcdefghijk@0[0-21] abcdefghijkl@0[0-21] "
           "abcdefghijklm@0[0-21] abcdefghijklmn@0[0-21] abcdefghijklmno@0[0-21] abcdefghijklmnop@0[0-21] "
           "abcdefghijklmnopq@0[0-21] abcdefghijklmnopqr@0[0-21] abcdefghijklmnopqrs@0[0-21] "
           "abcdefghijklmnopqrst@0[0-21] abcdefghijklmnopqrstu @0[0-21]");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_edge_ngram),
        cmocka_unit_test(t_shingle2),
        cmocka_unit_test(t_search_as_you_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
