/*
 * fuzz_text_settings.c — random bytes as an "analysis" settings object:
 * tv_analysis_new must either build a registry or fail with a reason,
 * never crash or leak; every analyzer it builds must analyze a fixed text.
 */
#include <stdlib.h>

#include "text/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = tv_analysis_new((const char *)data, size, &err);
    if (!r) {
        if (err.code == TROVE_OK || !err.reason[0]) abort();
        return 0;
    }
    static const char *const names[] = {"a", "my", "x", "standard"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const tv_analyzer *an = tv_analysis_get(r, names[i], strlen(names[i]));
        if (!an) continue;
        tv_arena a;
        tv_arena_init(&a);
        tv_tokens t;
        const char *text = "The QUICK brown fox's caf\xC3\xA9 1,000 \xF0\x9F\x92\xA9";
        if (tv_analyze(an, &a, text, strlen(text), 0, &t) != TROVE_OK) abort();
        tv_arena_fini(&a);
    }
    tv_analysis_free(r);
    return 0;
}
