/* test_text_hunspell.c — the `hunspell` token filter (tf_hunspell.c):
 * stems from a small dictionary the test writes (ISO-8859-1, FLAG long,
 * AF aliases, IGNORE, ICONV, OCONV, cross-product prefix + suffix, a
 * two-stage suffix) and from Debian's en_US (hunspell-en-us, skipped when
 * absent); dedup, longest_only, keyword tokens, case variants, and the
 * errors. Expected tokens came from Lucene 4.10's HunspellStemFilter over
 * the same files (Debian's liblucene4.10-java), after StandardTokenizer and
 * LowerCaseFilter unless the analyzer here says otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "text_test.h"

#define A "<ALPHANUM>"
#define W "word"

static char dir[64];

/* FLAG long with aliases: 1 = Aa Bb, 2 = Bb, 3 = Cc Aa, 4 = Dd (Latin-1) */
static const char AFF[] = "SET ISO8859-1\nFLAG long\nAF 4\nAF AaBb\nAF Bb\nAF CcAa\nAF Dd\n"
                          "IGNORE x\nICONV 1\nICONV ph f\nOCONV 1\nOCONV ee \xe9\n\n"
                          "PFX Cc Y 1\nPFX Cc 0 re .\n\n"
                          "SFX Aa Y 2\nSFX Aa 0 s [^s]\nSFX Aa y ies [^aeiou]y\n\n"
                          "SFX Bb Y 2\nSFX Bb 0 ed/4 [^e]\nSFX Bb e ed e\n\n"
                          "SFX Dd Y 1\nSFX Dd 0 ly .\n";
static const char DIC[] = "5\nfly/1\nwalk/3\ncaf\xe9/2\nfotograf/1\nglee/1\n";

static void put(const char *name, const char *text) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/trove-hunspell-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    put("tt.aff", AFF);
    put("tt.dic", DIC);
    /* an alias number past the AF table: the dictionary does not load */
    put("bad.aff", "FLAG long\nAF 1\nAF Aa\nSFX Aa Y 1\nSFX Aa 0 s .\n");
    put("bad.dic", "1\nword/7\n");
    if (access("/usr/share/hunspell/en_US.aff", R_OK) == 0) {
        /* the test dictionaries beside Debian's en_US */
        char cmd[256];
        snprintf(cmd, sizeof cmd, "cp /usr/share/hunspell/en_US.aff /usr/share/hunspell/en_US.dic %s/", dir);
        if (system(cmd) != 0) return -1;
    }
    setenv("TROVE_HUNSPELL_DIR", dir, 1);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_small_dictionary(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"filter\":{\"h\":{\"type\":\"hunspell\",\"locale\":\"tt\"},"
                         "\"k\":{\"type\":\"keyword_marker\",\"keywords\":[\"flies\"]}},"
                         "\"analyzer\":{\"a\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"h\"]},"
                         "\"b\":{\"tokenizer\":\"whitespace\",\"filter\":[\"h\"]},"
                         "\"c\":{\"tokenizer\":\"whitespace\",\"filter\":[\"k\",\"h\"]}}}",
                         &err);
    assert_non_null(r);
    /* reflies: "re" needs a word with both flags; walkedly: Dd continues
     * only Bb, which walk lacks; caf\xc3\xa9ed: the two-stage -ed/-ly
     * chain; phxotografs: IGNORE x, ICONV ph -> f; glees: OCONV ee -> \xc3\xa9 */
    check(tv_analysis_get(r, "a", 1), "Flies FLIES reflies walkedly caf\xc3\xa9" "ed phxotografs glees",
          (exp_tok[]){{"fly", A, 0, 0, 5},
                      {"fly", A, 1, 6, 11},
                      {"reflies", A, 2, 12, 19},
                      {"walkedly", A, 3, 20, 28},
                      {"caf\xc3\xa9", A, 4, 29, 35},
                      {"fotograf", A, 5, 36, 47},
                      {"gl\xc3\xa9", A, 6, 48, 53},
                      END});
    /* case variants without a lowercase filter: Title and UPPER words are
     * also tried in lower case; rewalks: prefix then suffix */
    check(tv_analysis_get(r, "b", 1), "Flies FLIES rewalks WALKS Zebra",
          (exp_tok[]){{"fly", W, 0, 0, 5},
                      {"fly", W, 1, 6, 11},
                      {"walk", W, 2, 12, 19},
                      {"walk", W, 3, 20, 25},
                      {"Zebra", W, 4, 26, 31},
                      END});
    /* keyword tokens are not stemmed */
    check(tv_analysis_get(r, "c", 1), "flies walks",
          (exp_tok[]){{"flies", W, 0, 0, 5}, {"walk", W, 1, 6, 11}, END});
    tv_analysis_free(r);
}

static void test_en_us(void **state) {
    (void)state;
    if (access("/usr/share/hunspell/en_US.aff", R_OK) != 0) skip();
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"filter\":{\"h\":{\"type\":\"hunspell\",\"locale\":\"en_US\"},"
                         "\"n\":{\"type\":\"hunspell\",\"language\":\"en_US\",\"dedup\":false},"
                         "\"l\":{\"type\":\"hunspell\",\"lang\":\"en_US\",\"longest_only\":true}},"
                         "\"analyzer\":{\"a\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"h\"]},"
                         "\"b\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"n\"]},"
                         "\"c\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"l\"]}}}",
                         &err);
    assert_non_null(r);
    static const char *const T = "The reopened doors, undoing flies unkindly; xyzzy walked Don\xe2\x80\x99t";
    /* several stems share a position; ICONV maps \xe2\x80\x99 to ' */
    const exp_tok all[] = {{"the", A, 0, 0, 3},       {"reopen", A, 1, 4, 12},    {"door", A, 2, 13, 18},
                           {"doing", A, 3, 20, 27},   {"fly", A, 4, 28, 33},      {"unkindly", A, 5, 34, 42},
                           {"kindly", A, 5, 34, 42},  {"kind", A, 5, 34, 42},     {"xyzzy", A, 6, 44, 49},
                           {"walk", A, 7, 50, 56},    {"don't", A, 8, 57, 62},    END};
    check(tv_analysis_get(r, "a", 1), T, all);
    check(tv_analysis_get(r, "b", 1), T, all);
    check(tv_analysis_get(r, "c", 1), T,
          (exp_tok[]){{"the", A, 0, 0, 3}, {"reopen", A, 1, 4, 12}, {"door", A, 2, 13, 18},
                      {"doing", A, 3, 20, 27}, {"fly", A, 4, 28, 33}, {"unkindly", A, 5, 34, 42},
                      {"xyzzy", A, 6, 44, 49}, {"walk", A, 7, 50, 56}, {"don't", A, 8, 57, 62}, END});
    tv_analysis_free(r);
}

static void test_errors(void **state) {
    (void)state;
    expect_error("{\"filter\":{\"h\":{\"type\":\"hunspell\",\"dedup\":true}}}", TROVE_EARG,
                 "missing [locale | language | lang] configuration for hunspell token filter");
    expect_error("{\"filter\":{\"h\":{\"type\":\"hunspell\",\"locale\":\"xx_XX\"}}}", TROVE_EINTERNAL,
                 "failed to load hunspell dictionary for locale: xx_XX");
    expect_error("{\"filter\":{\"h\":{\"type\":\"hunspell\",\"locale\":\"../tt\"}}}", TROVE_EINTERNAL,
                 "failed to load hunspell dictionary for locale: ../tt");
    expect_error("{\"filter\":{\"h\":{\"type\":\"hunspell\",\"locale\":\"bad\"}}}", TROVE_EINTERNAL,
                 "failed to load hunspell dictionary for locale: bad");
    expect_error("{\"filter\":{\"h\":{\"type\":\"hunspell\",\"locale\":\"tt\",\"dedup\":\"maybe\"}}}", TROVE_EARG,
                 "Failed to parse value [maybe] as only [true] or [false] are allowed.");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_dictionary),
        cmocka_unit_test(test_en_us),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
