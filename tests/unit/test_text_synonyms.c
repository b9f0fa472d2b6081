/* test_text_synonyms.c — the `synonym` and `synonym_graph` token filters:
 * Solr and WordNet rules, rules analyzed with the chain of the analyzer
 * that uses the filter, their errors, and the tokens (terms, types,
 * positions, positionLength, UTF-16 offsets).
 *
 * Where the expected tokens come from:
 *  - `synonym` with explicit mappings ("a => b") and with expand false:
 *    Lucene 4.10's SolrSynonymParser + SynonymFilter run through jshell
 *    (whitespace tokenizer, lowercase); Lucene 10 parses these rules the
 *    same way.
 *  - `synonym` with expand true: Lucene 4.10's parser added every pair
 *    including (a, a) without keeping the original; Lucene 10's (what
 *    OpenSearch 3.x runs) adds the pairs a != b and keeps the original, so
 *    those expectations are derived from Lucene 10's SolrSynonymParser and
 *    SynonymFilter sources, not run.
 *  - `synonym_graph`: SynonymGraphFilter came in Lucene 6.4; every graph
 *    expectation is derived by hand from Lucene 10's SynonymGraphFilter
 *    (node numbering of bufferOutputTokens / releaseBufferedToken).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "text_test.h"

#define W "word"
#define S "SYNONYM"

/* A registry with one analyzer "a": whitespace, lowercase, then a filter
 * of `type` with `rules` (a JSON array) and `extra` settings. */
static tv_analysis *one(const char *type, const char *rules, const char *extra, tv_error *err) {
    char json[2048];
    snprintf(json, sizeof json,
             "{\"filter\":{\"syn\":{\"type\":\"%s\",\"synonyms\":%s%s}},"
             "\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"filter\":[\"lowercase\",\"syn\"]}}}",
             type, rules, extra ? extra : "");
    return reg(json, err);
}

static const tv_analyzer *get(const tv_analysis *r) { return tv_analysis_get(r, "a", 1); }

static void test_synonym_explicit_and_contract(void **state) {
    (void)state;
    tv_error err;
    /* Lucene 4.10 (jshell) */
    tv_analysis *r = one("synonym", "[\"quick, fast\"]", ",\"expand\":false", &err);
    assert_non_null(r);
    check(get(r), "the fast fox",
           (exp_tok[]){{"the", W, 0, 0, 3, 1}, {"quick", S, 1, 4, 8, 1}, {"fox", W, 2, 9, 12, 1}, END});
    /* the first of the list maps to itself, typed SYNONYM */
    check(get(r), "Quick", (exp_tok[]){{"quick", S, 0, 0, 5, 1}, END});
    tv_analysis_free(r);

    r = one("synonym", "[\"a b => x\"]", NULL, &err);
    check(get(r), "a b c", (exp_tok[]){{"x", S, 0, 0, 3, 1}, {"c", W, 1, 4, 5, 1}, END});
    /* a partial match is no match */
    check(get(r), "a c", (exp_tok[]){{"a", W, 0, 0, 1, 1}, {"c", W, 1, 2, 3, 1}, END});
    tv_analysis_free(r);

    /* a longer output stacks onto the following input tokens, and past the
     * input's end at the last token's offsets */
    r = one("synonym", "[\"a => x y z\"]", NULL, &err);
    check(get(r), "a b",
           (exp_tok[]){{"x", S, 0, 0, 1, 1}, {"b", W, 1, 2, 3, 1}, {"y", S, 1, 2, 3, 1},
                    {"z", S, 2, 2, 3, 1}, END});
    check(get(r), "q a",
           (exp_tok[]){{"q", W, 0, 0, 1, 1}, {"x", S, 1, 2, 3, 1}, {"y", S, 2, 2, 3, 1},
                    {"z", S, 3, 2, 3, 1}, END});
    tv_analysis_free(r);

    /* rules of one input merge, in order */
    r = one("synonym", "[\"foo => foo bar\", \"foo => baz\"]", NULL, &err);
    check(get(r), "foo",
           (exp_tok[]){{"foo", S, 0, 0, 3, 1}, {"baz", S, 0, 0, 3, 1}, {"bar", S, 1, 0, 3, 1}, END});
    tv_analysis_free(r);

    r = one("synonym", "[\"i-pod, i pod => ipod\"]", NULL, &err);
    check(get(r), "my i pod", (exp_tok[]){{"my", W, 0, 0, 2, 1}, {"ipod", S, 1, 3, 8, 1}, END});
    check(get(r), "i-pod", (exp_tok[]){{"ipod", S, 0, 0, 5, 1}, END});
    tv_analysis_free(r);
}

static void test_synonym_expand(void **state) {
    (void)state;
    tv_error err;
    /* Lucene 10: pairs a != b, originals kept (derived, see the header) */
    tv_analysis *r = one("synonym", "[\"quick, fast\", \"ny, new york\"]", NULL, &err);
    assert_non_null(r);
    check(get(r), "the quick fox",
           (exp_tok[]){{"the", W, 0, 0, 3, 1}, {"quick", W, 1, 4, 9, 1}, {"fast", S, 1, 4, 9, 1},
                    {"fox", W, 2, 10, 13, 1}, END});
    check(get(r), "ny is big",
           (exp_tok[]){{"ny", W, 0, 0, 2, 1}, {"new", S, 0, 0, 2, 1}, {"is", W, 1, 3, 5, 1},
                    {"york", S, 1, 3, 5, 1}, {"big", W, 2, 6, 9, 1}, END});
    /* a one-word output over a two-token match spans it (positionLength 2) */
    check(get(r), "i love new york city",
           (exp_tok[]){{"i", W, 0, 0, 1, 1}, {"love", W, 1, 2, 6, 1}, {"new", W, 2, 7, 10, 1},
                    {"ny", S, 2, 7, 15, 2}, {"york", W, 3, 11, 15, 1}, {"city", W, 4, 16, 20, 1},
                    END});
    tv_analysis_free(r);
}

static void test_synonym_graph(void **state) {
    (void)state;
    tv_error err;
    tv_analysis *r = one("synonym_graph",
                         "[\"quick, fast\", \"ny, new york\", \"wtf => what the fudge\", \"a => x y z\"]",
                         NULL, &err);
    assert_non_null(r);
    /* outputs first, then the original; a multi-word output is a side path */
    check(get(r), "ny is big",
           (exp_tok[]){{"new", S, 0, 0, 2, 1}, {"ny", W, 0, 0, 2, 2}, {"york", S, 1, 0, 2, 1},
                    {"is", W, 2, 3, 5, 1}, {"big", W, 3, 6, 9, 1}, END});
    check(get(r), "i love new york city",
           (exp_tok[]){{"i", W, 0, 0, 1, 1}, {"love", W, 1, 2, 6, 1}, {"ny", S, 2, 7, 15, 2},
                    {"new", W, 2, 7, 10, 1}, {"york", W, 3, 11, 15, 1}, {"city", W, 4, 16, 20, 1},
                    END});
    check(get(r), "the quick fox",
           (exp_tok[]){{"the", W, 0, 0, 3, 1}, {"fast", S, 1, 4, 9, 1}, {"quick", W, 1, 4, 9, 1},
                    {"fox", W, 2, 10, 13, 1}, END});
    /* a replaced token: its output path alone, the graph shifts */
    check(get(r), "wtf happened",
           (exp_tok[]){{"what", S, 0, 0, 3, 1}, {"the", S, 1, 0, 3, 1}, {"fudge", S, 2, 0, 3, 1},
                    {"happened", W, 3, 4, 12, 1}, END});
    check(get(r), "q a b",
           (exp_tok[]){{"q", W, 0, 0, 1, 1}, {"x", S, 1, 2, 3, 1}, {"y", S, 2, 2, 3, 1},
                    {"z", S, 3, 2, 3, 1}, {"b", W, 4, 4, 5, 1}, END});
    tv_analysis_free(r);

    r = one("synonym_graph", "[\"foo => foo bar\", \"foo => baz\"]", NULL, &err);
    check(get(r), "foo",
           (exp_tok[]){{"foo", S, 0, 0, 3, 1}, {"baz", S, 0, 0, 3, 2}, {"bar", S, 1, 0, 3, 1}, END});
    tv_analysis_free(r);
}

static void test_rule_syntax(void **state) {
    (void)state;
    tv_error err;
    /* '\' escapes a separator; '#' lines are comments; elements may hold
     * several lines */
    tv_analysis *r = one("synonym", "[\"# a comment, x\", \"a\\\\, b, c\", \"x\\\\=>y => z\\nk => l\"]",
                         ",\"expand\":false", &err);
    assert_non_null(r);
    /* "a, b" analyzes to the two words "a," and "b"; "c" maps to them */
    check(get(r), "c x=>y k",
           (exp_tok[]){{"a,", S, 0, 0, 1, 1}, {"b", S, 1, 2, 6, 1}, {"z", S, 1, 2, 6, 1},
                    {"l", S, 2, 7, 8, 1}, END});
    check(get(r), "# x", (exp_tok[]){{"#", W, 0, 0, 1, 1}, {"x", W, 1, 2, 3, 1}, END});
    tv_analysis_free(r);

    /* WordNet: one synset per id */
    r = one("synonym",
            "[\"s(100000001,1,'abstain',v,1,0).\", \"s(100000001,2,'refrain',v,1,0).\","
            " \"s(100000002,1,'o''clock',v,1,0).\", \"s(100000002,2,'hour',v,1,0).\"]",
            ",\"format\":\"WordNet\"", &err);
    assert_non_null(r);
    check(get(r), "refrain hour",
           (exp_tok[]){{"refrain", W, 0, 0, 7, 1}, {"abstain", S, 0, 0, 7, 1}, {"hour", W, 1, 8, 12, 1},
                    {"o'clock", S, 1, 8, 12, 1}, END});
    tv_analysis_free(r);
}

static void test_rules_analyzed_by_the_chain(void **state) {
    (void)state;
    tv_error err;
    /* the same filter in two analyzers: each analyzes the rules with what
     * precedes the filter there */
    tv_analysis *r = reg("{\"filter\":{\"syn\":{\"type\":\"synonym\",\"synonyms\":[\"Foo => bar\"]}},"
                         "\"analyzer\":{\"low\":{\"tokenizer\":\"whitespace\",\"filter\":[\"lowercase\",\"syn\"]},"
                         "\"raw\":{\"tokenizer\":\"whitespace\",\"filter\":[\"syn\"]},"
                         "\"stem\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"porter_stem\",\"syn\"]}}}",
                         &err);
    assert_non_null(r);
    check(tv_analysis_get(r, "low", 3), "FOO", (exp_tok[]){{"bar", S, 0, 0, 3, 1}, END});
    check(tv_analysis_get(r, "raw", 3), "foo", (exp_tok[]){{"foo", W, 0, 0, 3, 1}, END});
    check(tv_analysis_get(r, "raw", 3), "Foo", (exp_tok[]){{"bar", S, 0, 0, 3, 1}, END});
    tv_analysis_free(r);

    /* a stemmer before the filter stems the rules too */
    r = reg("{\"filter\":{\"syn\":{\"type\":\"synonym_graph\",\"synonyms\":[\"running => jog\"]}},"
            "\"analyzer\":{\"a\":{\"tokenizer\":\"standard\",\"filter\":[\"lowercase\",\"porter_stem\",\"syn\"]}}}",
            &err);
    assert_non_null(r);
    check(get(r), "Runs", (exp_tok[]){{"jog", S, 0, 0, 4, 1}, END});
    tv_analysis_free(r);

    /* a stop word inside a rule: a gap, so the build fails... */
    const char *stop = "{\"filter\":{\"syn\":{\"type\":\"synonym\",\"synonyms\":[\"the fox, x\", \"y, z\"]%s}},"
                       "\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"filter\":[\"stop\",\"syn\"]}}}";
    char json[512];
    snprintf(json, sizeof json, stop, "");
    assert_null(reg(json, &err));
    assert_int_equal(err.code, TROVE_EARG);
    assert_string_equal(err.reason, "Failed to build synonyms");
    /* ... unless lenient, which drops the pairs it takes part in */
    snprintf(json, sizeof json, stop, ",\"lenient\":true");
    r = reg(json, &err);
    assert_non_null(r);
    check(get(r), "x y", (exp_tok[]){{"x", W, 0, 0, 1, 1}, {"y", W, 1, 2, 3, 1}, {"z", S, 1, 2, 3, 1}, END});
    tv_analysis_free(r);

    /* a rule that analyzes to nothing */
    r = one("synonym", "[\"the, x\"]", NULL, &err);
    assert_non_null(r); /* whitespace + lowercase keep "the" */
    tv_analysis_free(r);
    assert_null(reg("{\"filter\":{\"syn\":{\"type\":\"synonym\",\"synonyms\":[\"the => x\"]}},"
                    "\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"filter\":[\"stop\",\"syn\"]}}}",
                    &err));
    assert_string_equal(err.reason, "Failed to build synonyms");
}

static void test_chained_synonym_filters(void **state) {
    (void)state;
    tv_error err;
    /* a synonym filter before another takes no part in its rules
     * (IDENTITY_FILTER): "b => c" is parsed as is, and applies to the
     * first filter's output (a dropped input's slot starts a position) */
    tv_analysis *r = reg("{\"filter\":{\"s1\":{\"type\":\"synonym\",\"synonyms\":[\"a, b\"]},"
                         "\"s2\":{\"type\":\"synonym\",\"synonyms\":[\"b => c\"]}},"
                         "\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"filter\":[\"s1\",\"s2\"]}}}",
                         &err);
    assert_non_null(r);
    check(get(r), "a", (exp_tok[]){{"a", W, 0, 0, 1, 1}, {"c", S, 1, 0, 1, 1}, END});
    tv_analysis_free(r);
    /* synonym_graph keeps itself in a later filter's rule analysis: "b"
     * comes out stacked with "a", which fails the parse */
    assert_null(reg("{\"filter\":{\"s1\":{\"type\":\"synonym_graph\",\"synonyms\":[\"a, b\"]},"
                    "\"s2\":{\"type\":\"synonym\",\"synonyms\":[\"b => c\"]}},"
                    "\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"filter\":[\"s1\",\"s2\"]}}}",
                    &err));
    assert_string_equal(err.reason, "Failed to build synonyms");
}

static void test_errors_and_defaults(void **state) {
    (void)state;
    tv_error err;
    const char *const cases[][2] = {
        {"{\"filter\":{\"syn\":{\"type\":\"synonym\"}},\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"filter\":[\"syn\"]}}}",
         "synonym requires either `synonyms` or `synonyms_path` to be configured"},
        {"{\"filter\":{\"syn\":{\"type\":\"synonym_graph\",\"synonyms\":[\"a => b => c\"]}},\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"filter\":[\"syn\"]}}}",
         "Failed to build synonyms"},
        {"{\"filter\":{\"syn\":{\"type\":\"synonym\",\"format\":\"wordnet\",\"synonyms\":[\"s(1)\"]}},\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"filter\":[\"syn\"]}}}",
         "Failed to build synonyms"},
        {"{\"filter\":{\"syn\":{\"type\":\"synonym\",\"synonyms\":[\"a\"],\"expand\":\"maybe\"}}}",
         "Failed to parse value [maybe] as only [true] or [false] are allowed."},
    };
    for (size_t i = 0; i < TV_ARRAY_LEN(cases); i++) {
        tv_analysis *r = reg(cases[i][0], &err);
        if (r) fail_msg("built: %s", cases[i][0]);
        assert_int_equal(err.code, TROVE_EARG);
        assert_string_equal(err.reason, cases[i][1]);
    }
    /* synonyms_path: trove has no config directory */
    assert_null(reg("{\"filter\":{\"syn\":{\"type\":\"synonym\",\"synonyms_path\":\"s.txt\"}}}", &err));
    assert_int_equal(err.code, TROVE_EUNSUPPORTED);
    /* unused, a filter without rules is no error (the rules are read per
     * analyzer); by bare name it has none */
    tv_analysis *r = reg("{\"filter\":{\"syn\":{\"type\":\"synonym\"}}}", &err);
    assert_non_null(r);
    tv_analysis_free(r);
    assert_null(reg("{\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"filter\":[\"synonym_graph\"]}}}", &err));
    assert_string_equal(err.reason, "synonym requires either `synonyms` or `synonyms_path` to be configured");
    /* no rules at all: the stream is left alone */
    r = one("synonym_graph", "[]", NULL, &err);
    assert_non_null(r);
    check(get(r), "a b", (exp_tok[]){{"a", W, 0, 0, 1, 1}, {"b", W, 1, 2, 3, 1}, END});
    tv_analysis_free(r);
    /* an updateable filter cannot be in the default analyzer */
    assert_null(reg("{\"filter\":{\"syn\":{\"type\":\"synonym\",\"synonyms\":[\"a, b\"],\"updateable\":true}},"
                    "\"analyzer\":{\"default\":{\"tokenizer\":\"whitespace\",\"filter\":[\"syn\"]}}}",
                    &err));
    assert_int_equal(err.code, TROVE_EMAPPEREXC);
    assert_string_equal(err.reason,
                        "analyzer [default] contains filters [syn] that are not allowed to run in all mode.");
    r = reg("{\"filter\":{\"syn\":{\"type\":\"synonym\",\"synonyms\":[\"a, b\"],\"updateable\":true}},"
            "\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"filter\":[\"syn\"]}}}",
            &err);
    assert_non_null(r);
    char names[64];
    assert_false(tv_analyzer_time_check(get(r), "index time", names, sizeof names));
    assert_string_equal(names, "syn");
    assert_true(tv_analyzer_time_check(get(r), "search time", names, sizeof names));
    tv_analysis_free(r);
}

static void test_compose(void **state) {
    (void)state;
    tv_error err;
    /* _analyze's inline filters are chained as well */
    const char *inl = "{\"filter\":{\"f1\":{\"type\":\"synonym_graph\",\"synonyms\":[\"Wi Fi, wifi\"]}}}";
    const char *filters[] = {"lowercase", "f1"};
    tv_analyzer *an = tv_analyzer_compose(NULL, inl, strlen(inl), "whitespace", filters, 2, NULL, 0, &err);
    assert_non_null(an);
    check(an, "WI FI",
           (exp_tok[]){{"wifi", S, 0, 0, 5, 2}, {"wi", W, 0, 0, 2, 1}, {"fi", W, 1, 3, 5, 1}, END});
    tv_analyzer_free(an);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_synonym_explicit_and_contract),
        cmocka_unit_test(test_synonym_expand),
        cmocka_unit_test(test_synonym_graph),
        cmocka_unit_test(test_rule_syntax),
        cmocka_unit_test(test_rules_analyzed_by_the_chain),
        cmocka_unit_test(test_chained_synonym_filters),
        cmocka_unit_test(test_errors_and_defaults),
        cmocka_unit_test(test_compose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
