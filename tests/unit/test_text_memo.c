/*
 * test_text_memo.c — the analysis speedups keep output byte-identical:
 * the stem memo (filters.c: each thread's cache of recent stems, for
 * libstemmer and for the language files' UTF-16 rule sets) gives the
 * stemmer's own result on a cold memo, a warm one and after evictions, and
 * hashed term sets (stop words, keyword markers) find exactly their words.
 * References: libstemmer called directly; for the rule sets, a fresh thread
 * (its memo empty) that sees each word once.
 */
#include <libstemmer.h>
#include <pthread.h>

#include "text_test.h"
#include "text/text_int.h"

#define NWORDS 6000 /* more than the memo holds (2 x 1024 entries) */

static const char *const en_suffix[] = {"ing", "ed", "ations", "ness", "ies", "s", "fulness", "ly",
                                        "izer", "ement", "", "ational"};
static const char *const cs_suffix[] = {"ech", "ích", "ové", "ami", "ou", "ětem", "atech", "čt",
                                        "ův", "ům", "e", ""};
static const char *const de_suffix[] = {"ungen", "en", "ern", "äen", "ßes", "lich", "e", "s",
                                        "nen", "chen", "", "ü"};

/* The i-th test word: a letter stem from i, then a suffix of the list. */
static void word(size_t i, const char *const *suffix, char *out) {
    static const char cons[] = "bcdfgklmnprstvz", vow[] = "aeiou";
    size_t k = i / 12, n = 0;
    for (int syl = 0; syl < 3; syl++) {
        out[n++] = cons[k % 15];
        k /= 15;
        out[n++] = vow[k % 5];
        k /= 5;
        if (!k && syl) break;
    }
    strcpy(out + n, suffix[i % 12]);
}

static const tv_analyzer *compose(const char *inline_json, const char *filter, tv_analyzer **own) {
    tv_error err = TV_ERROR_INIT;
    const char *filters[] = {"lowercase", filter};
    *own = tv_analyzer_compose(NULL, inline_json, inline_json ? strlen(inline_json) : 0, "whitespace",
                               filters, 2, NULL, 0, &err);
    if (!*own) fprintf(stderr, "compose: %s\n", err.reason);
    assert_non_null(*own);
    return *own;
}

/* The single term `an` makes of w (into out, NUL-terminated). */
static void term_of(const tv_analyzer *an, const char *w, char *out, size_t cap) {
    tv_arena a;
    tv_arena_init(&a);
    tv_tokens t;
    assert_int_equal(tv_analyze(an, &a, w, strlen(w), 0, &t), TROVE_OK);
    assert_int_equal(t.len, 1);
    assert_true(t.items[0].term_len < cap);
    memcpy(out, t.items[0].term, t.items[0].term_len);
    out[t.items[0].term_len] = 0;
    tv_arena_fini(&a);
}

/* Porter through the memo, in three rounds (cold, warm with evictions,
 * reverse order), against libstemmer's porter called directly. */
static void test_snowball_memo_matches_libstemmer(void **state) {
    (void)state;
    tv_analyzer *own;
    const tv_analyzer *an = compose(NULL, "porter_stem", &own);
    struct sb_stemmer *ref = sb_stemmer_new("porter", "UTF_8");
    assert_non_null(ref);
    char w[64], got[64];
    for (int round = 0; round < 3; round++) {
        for (size_t j = 0; j < NWORDS; j++) {
            size_t i = round == 2 ? NWORDS - 1 - j : j;
            word(i, en_suffix, w);
            term_of(an, w, got, sizeof got);
            const sb_symbol *r = sb_stemmer_stem(ref, (const sb_symbol *)w, (int)strlen(w));
            int n = sb_stemmer_length(ref);
            if ((int)strlen(got) != n || memcmp(got, r, (size_t)n) != 0)
                fprintf(stderr, "round %d [%s]: got [%s], libstemmer [%.*s]\n", round, w, got, n, r);
            assert_int_equal((int)strlen(got), n);
            assert_memory_equal(got, r, (size_t)n);
        }
    }
    /* the stem of a word and of a longer word sharing its first 30 bytes
     * (memoized terms are at most 30 bytes; longer ones bypass the memo) */
    const char *longw = "internationalizationsrelationships";
    term_of(an, longw, got, sizeof got);
    const sb_symbol *r = sb_stemmer_stem(ref, (const sb_symbol *)longw, (int)strlen(longw));
    assert_string_equal(got, (const char *)r);
    sb_stemmer_delete(ref);
    tv_analyzer_free(own);
}

typedef struct ref_job {
    const tv_analyzer *an;
    const char *const *suffix;
    char (*out)[64];
} ref_job;

/* In a fresh thread (an empty memo), each word once: the rule set's own result. */
static void *ref_thread(void *p) {
    ref_job *j = p;
    char w[64];
    for (size_t i = 0; i < NWORDS; i++) {
        word(i, j->suffix, w);
        term_of(j->an, w, j->out[i], 64);
    }
    return NULL;
}

static void check_rule_memo(const char *inline_json, const char *filter, const char *const *suffix) {
    tv_analyzer *own;
    const tv_analyzer *an = compose(inline_json, filter, &own);
    char(*ref)[64] = malloc(NWORDS * sizeof *ref);
    assert_non_null(ref);
    ref_job job = {an, suffix, ref};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, ref_thread, &job), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    char w[64], got[64];
    size_t changed = 0;
    for (int round = 0; round < 3; round++) {
        for (size_t j = 0; j < NWORDS; j++) {
            size_t i = round == 2 ? NWORDS - 1 - j : (j * 7) % NWORDS;
            word(i, suffix, w);
            term_of(an, w, got, sizeof got);
            if (strcmp(got, ref[i]) != 0)
                fprintf(stderr, "%s round %d [%s]: got [%s], want [%s]\n", filter, round, w, got, ref[i]);
            assert_string_equal(got, ref[i]);
            changed += strcmp(got, w) != 0;
        }
    }
    assert_true(changed >= NWORDS / 2); /* the words do exercise the rules */
    free(ref);
    tv_analyzer_free(own);
}

/* czech_stem: a UTF-16 rule set through tv_lang_u16_apply. */
static void test_u16_rule_memo(void **state) {
    (void)state;
    check_rule_memo(NULL, "czech_stem", cs_suffix);
}

/* light_german (a tv_stem16 through lang_eu.c) and german_normalization. */
static void test_stem16_memo(void **state) {
    (void)state;
    check_rule_memo("{\"filter\":{\"lg\":{\"type\":\"stemmer\",\"language\":\"light_german\"}}}", "lg",
                    de_suffix);
    check_rule_memo(NULL, "german_normalization", de_suffix);
}

/* Keyword-marked tokens are never stemmed, memo or not: "running" is
 * stemmed first (memoized), then excluded. Expected tokens: Lucene 4.10's
 * EnglishAnalyzer with a stem exclusion set (the oracle). */
static void test_memo_keeps_keywords(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"analyzer\":{\"x\":{\"type\":\"english\",\"stem_exclusion\":[\"running\"]}}}", &err);
    assert_non_null(r);
    check(B("english"), "running dogs", (exp_tok[]){{"run", NULL, 0, 0, 7}, {"dog", NULL, 1, 8, 12}, END});
    check(tv_analysis_get(r, "x", 1), "running dogs",
          (exp_tok[]){{"running", NULL, 0, 0, 7}, {"dog", NULL, 1, 8, 12}, END});
    check(B("english"), "running", (exp_tok[]){{"run", NULL, 0, 0, 7}, END});
    tv_analysis_free(r);
}

/* Hashed term sets: every word is found (case-folded when ignore_case), and
 * nothing else, including prefixes, extensions and the empty term. */
static void test_termset_hash(void **state) {
    (void)state;
    enum { N = 700 };
    static char words[N][16];
    const char *wp[N];
    size_t lens[N];
    for (size_t i = 0; i < N; i++) {
        snprintf(words[i], sizeof words[i], "W%zuÄ%zu", i * 31, i % 7);
        wp[i] = words[i];
        lens[i] = strlen(words[i]);
    }
    tv_termset *exact = tv_termset_new(wp, lens, N, false), *folded = tv_termset_new(wp, lens, N, true);
    assert_non_null(exact);
    assert_non_null(folded);
    assert_int_equal(exact->n, N);
    char buf[32];
    for (size_t i = 0; i < N; i++) {
        assert_true(tv_termset_has(exact, words[i], lens[i]));
        assert_false(tv_termset_has(exact, words[i], lens[i] - 1));
        snprintf(buf, sizeof buf, "%sx", words[i]);
        assert_false(tv_termset_has(exact, buf, strlen(buf)));
        snprintf(buf, sizeof buf, "w%zuä%zu", i * 31, i % 7); /* lower case */
        assert_false(tv_termset_has(exact, buf, strlen(buf)));
        assert_true(tv_termset_has(folded, buf, strlen(buf)));
        assert_true(tv_termset_has(folded, words[i], lens[i]));
        snprintf(buf, sizeof buf, "W%zuÄ%zu", i * 31 + 1, i % 7);
        assert_false(tv_termset_has(exact, buf, strlen(buf))); /* no word is 31k+1 */
    }
    assert_false(tv_termset_has(exact, "", 0));
    tv_termset_free(exact);
    tv_termset_free(folded);
    /* duplicates collapse; an empty set has nothing */
    const char *dup[] = {"a", "b", "a"};
    size_t dl[] = {1, 1, 1};
    tv_termset *d = tv_termset_new(dup, dl, 3, false);
    assert_int_equal(d->n, 2);
    assert_true(tv_termset_has(d, "a", 1));
    assert_false(tv_termset_has(d, "c", 1));
    tv_termset_free(d);
    tv_termset *e = tv_termset_new(NULL, NULL, 0, false);
    assert_non_null(e);
    assert_false(tv_termset_has(e, "a", 1));
    tv_termset_free(e);
    /* Lucene's English stop set: its 33 words, not their neighbours */
    const tv_termset *en = tv_stop_english();
    const char *stops[] = {"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in",
                           "into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the",
                           "their", "then", "there", "these", "they", "this", "to", "was", "will", "with"};
    for (size_t i = 0; i < TV_ARRAY_LEN(stops); i++) assert_true(tv_termset_has(en, stops[i], strlen(stops[i])));
    const char *non[] = {"", "th", "them", "The", "ands", "i", "wit", "willing"};
    for (size_t i = 0; i < TV_ARRAY_LEN(non); i++) assert_false(tv_termset_has(en, non[i], strlen(non[i])));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snowball_memo_matches_libstemmer),
        cmocka_unit_test(test_u16_rule_memo),
        cmocka_unit_test(test_stem16_memo),
        cmocka_unit_test(test_memo_keeps_keywords),
        cmocka_unit_test(test_termset_hash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
