/*
 * fuzz_text_analyze.c — random bytes through every built-in analyzer and a
 * few composed ones. Checks: byte and UTF-16 offsets inside the input and
 * non-decreasing, UTF-16 offsets equal to the UTF-16 length of the byte
 * prefix, positions non-decreasing, standard/whitespace/letter tokens at
 * most 255 UTF-16 units (a surrogate pair may make a character-tokenizer
 * token 256), end_position past the last position.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_text_check.h"

static void run(const tv_analyzer *an, const char *text, size_t len, bool check_len) {
    tv_arena a;
    tv_arena_init(&a);
    tv_tokens t = fuzz_text_check(an, &a, text, len, 5, check_len ? 256 : 0);
    if (t.len && t.end_position <= t.items[t.len - 1].position) abort();
    tv_arena_fini(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const names[] = {"standard", "simple", "whitespace", "keyword", "stop", "english"};
    const char *text = (const char *)data;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        run(tv_analyzer_builtin(names[i], strlen(names[i])), text, size, i != 3);
    static const char *const f1[] = {"asciifolding", "uppercase", "snowball"};
    static const char *const f2[] = {"trim", "length", "stop", "porter_stem"};
    tv_analyzer *a1 = tv_analyzer_compose(NULL, NULL, 0, "lowercase", f1, 3, NULL, 0, NULL);
    tv_analyzer *a2 = tv_analyzer_compose(NULL, NULL, 0, "whitespace", f2, 4, NULL, 0, NULL);
    if (!a1 || !a2) abort();
    run(a1, text, size, false);
    run(a2, text, size, false);
    tv_analyzer_free(a1);
    tv_analyzer_free(a2);
    return 0;
}
