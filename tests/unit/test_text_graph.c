/* test_text_graph.c — the graph token filters: `shingle`,
 * `word_delimiter`, `word_delimiter_graph` and `flatten_graph` (terms,
 * types, positions, positionLength, UTF-16 offsets, settings and their
 * errors).
 *
 * Where the expected tokens come from: Lucene 8.7's ShingleFilter,
 * WordDelimiterFilter, WordDelimiterGraphFilter and FlattenGraphFilter run
 * through CustomAnalyzer (same algorithms as Lucene 10 for these inputs;
 * trove also agrees with them on a wider corpus of tricky words, and with
 * Lucene 4.10 on tests/analysis's corpus except ShingleFilter's
 * positionLength without unigrams, which Lucene changed after 4.10). The
 * synonym_graph + flatten_graph expectations are OpenSearch's own
 * (analysis-common's 40_token_filters.yml); ignore_keywords (which Lucene
 * 8.7's factory lacks) is derived from Lucene 10's WordDelimiterGraphFilter
 * source: a keyword token is returned as it came.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "text_test.h"

#define A "<ALPHANUM>"
#define SH "shingle"
#define W "word"

/* A registry with analyzer "a": `tok` then the filters (a JSON array),
 * with the filter definitions `defs` (a JSON object body, may be ""). */
static tv_analysis *mk(const char *tok, const char *filters, const char *defs, tv_error *err) {
    char json[4096];
    snprintf(json, sizeof json,
             "{\"filter\":{%s},\"analyzer\":{\"a\":{\"tokenizer\":\"%s\",\"filter\":%s}}}", defs, tok,
             filters);
    return reg(json, err);
}
static const tv_analyzer *get(const tv_analysis *r) { return tv_analysis_get(r, "a", 1); }

static void test_shingle_defaults(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = mk("standard", "[\"shingle\"]", "", &err);
    assert_non_null(r);
    check(get(r), "please divide this sentence",
          (exp_tok[]){{"please", A, 0, 0, 6, 1},
                      {"please divide", SH, 0, 0, 13, 2},
                      {"divide", A, 1, 7, 13, 1},
                      {"divide this", SH, 1, 7, 18, 2},
                      {"this", A, 2, 14, 18, 1},
                      {"this sentence", SH, 2, 14, 27, 2},
                      {"sentence", A, 3, 19, 27, 1},
                      END});
    /* one token: no shingle */
    check(get(r), "alone", (exp_tok[]){{"alone", A, 0, 0, 5, 1}, END});
    tv_analysis_free(r);
}

static void test_shingle_options(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    /* no unigrams: positionLength counts the sizes below it (Lucene 10) */
    tv_analysis *r = mk("standard", "[\"lowercase\",\"sh\"]",
                        "\"sh\":{\"type\":\"shingle\",\"min_shingle_size\":2,\"max_shingle_size\":3,"
                        "\"output_unigrams\":false,\"token_separator\":\"_\"}",
                        &err);
    assert_non_null(r);
    check(get(r), "Please divide this",
          (exp_tok[]){{"please_divide", SH, 0, 0, 13, 1},
                      {"please_divide_this", SH, 0, 0, 18, 2},
                      {"divide_this", SH, 1, 7, 18, 1},
                      END});
    tv_analysis_free(r);

    /* holes left by stop words become fillers, also at the end */
    r = mk("standard", "[\"lowercase\",\"stop\",\"sh\"]", "\"sh\":{\"type\":\"shingle\",\"filler_token\":\"#\"}",
           &err);
    assert_non_null(r);
    check(get(r), "the quick fox of the",
          (exp_tok[]){{"# quick", SH, 0, 4, 9, 2},
                      {"quick", A, 1, 4, 9, 1},
                      {"quick fox", SH, 1, 4, 13, 2},
                      {"fox", A, 2, 10, 13, 1},
                      {"fox #", SH, 2, 10, 20, 2},
                      END});
    tv_analysis_free(r);

    /* empty filler and separator */
    r = mk("standard", "[\"lowercase\",\"stop\",\"sh\"]",
           "\"sh\":{\"type\":\"shingle\",\"filler_token\":\"\",\"token_separator\":\"\"}", &err);
    assert_non_null(r);
    check(get(r), "the quick of",
          (exp_tok[]){{"quick", SH, 0, 4, 9, 2}, {"quick", A, 1, 4, 9, 1}, {"quick", SH, 1, 4, 12, 2}, END});
    tv_analysis_free(r);

    /* too short for a shingle: the unigrams after all */
    r = mk("standard", "[\"sh\"]",
           "\"sh\":{\"type\":\"shingle\",\"min_shingle_size\":3,\"max_shingle_size\":3,"
           "\"output_unigrams\":false,\"output_unigrams_if_no_shingles\":true}",
           &err);
    assert_non_null(r);
    check(get(r), "one two", (exp_tok[]){{"one", A, 0, 0, 3, 1}, {"two", A, 1, 4, 7, 1}, END});
    check(get(r), "one two three", (exp_tok[]){{"one two three", SH, 0, 0, 13, 1}, END});
    tv_analysis_free(r);
}

static void test_shingle_errors(void **state) {
    (void)state;
    expect_error("{\"filter\":{\"s\":{\"type\":\"shingle\",\"max_shingle_size\":5}}}", TROVE_EARG,
                 "In Shingle TokenFilter the difference between max_shingle_size and min_shingle_size "
                 "(and +1 if outputting unigrams) must be less than or equal to: [3] but was [4]. This "
                 "limit can be set by changing the [index.max_shingle_diff] index level setting.");
    expect_error("{\"filter\":{\"s\":{\"type\":\"shingle\",\"max_shingle_size\":1,\"min_shingle_size\":1}}}",
                 TROVE_EARG, "Max shingle size must be >= 2");
    expect_error("{\"filter\":{\"s\":{\"type\":\"shingle\",\"min_shingle_size\":1}}}", TROVE_EARG,
                 "Min shingle size must be >= 2");
    expect_error("{\"filter\":{\"s\":{\"type\":\"shingle\",\"min_shingle_size\":3}}}", TROVE_EARG,
                 "Min shingle size must be <= max shingle size");
    /* no unigrams: the diff is one less */
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"filter\":{\"s\":{\"type\":\"shingle\",\"max_shingle_size\":5,"
                         "\"output_unigrams\":false}}}",
                         &err);
    assert_non_null(r);
    tv_analysis_free(r);
    /* shingle cannot parse synonym rules */
    expect_error("{\"filter\":{\"syn\":{\"type\":\"synonym\",\"synonyms\":[\"a, b\"]}},"
                 "\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"filter\":[\"shingle\",\"syn\"]}}}",
                 TROVE_EARG, "Token filter [shingle] cannot be used to parse synonyms");
}

static void test_shingle_disables_graph(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = mk("whitespace", "[\"shingle\"]", "", &err);
    tv_arena a;
    tv_arena_init(&a);
    tv_tokens toks;
    assert_int_equal(tv_analyze(get(r), &a, "a b c", 5, 0, &toks), TROVE_OK);
    assert_true(toks.graph_off);
    tv_arena_fini(&a);
    tv_analysis_free(r);
    /* one size and no unigrams: a graph OpenSearch keeps */
    r = mk("whitespace", "[\"s\"]", "\"s\":{\"type\":\"shingle\",\"output_unigrams\":false}", &err);
    tv_arena_init(&a);
    assert_int_equal(tv_analyze(get(r), &a, "a b c", 5, 0, &toks), TROVE_OK);
    assert_false(toks.graph_off);
    tv_arena_fini(&a);
    tv_analysis_free(r);
}

static void test_word_delimiter(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = mk("whitespace", "[\"word_delimiter\"]", "", &err);
    assert_non_null(r);
    /* a token of delimiters only disappears */
    check(get(r), "Wi-Fi PowerShot500 O'Neil's --",
          (exp_tok[]){{"Wi", W, 0, 0, 2, 1},
                      {"Fi", W, 1, 3, 5, 1},
                      {"Power", W, 2, 6, 11, 1},
                      {"Shot", W, 3, 11, 15, 1},
                      {"500", W, 4, 15, 18, 1},
                      {"O", W, 5, 19, 20, 1},
                      {"Neil", W, 6, 21, 25, 1},
                      END});
    tv_analysis_free(r);

    r = mk("whitespace", "[\"wd\"]",
           "\"wd\":{\"type\":\"word_delimiter\",\"catenate_all\":true,\"preserve_original\":true,"
           "\"catenate_numbers\":true}",
           &err);
    assert_non_null(r);
    check(get(r), "Wi-Fi 500-42 x",
          (exp_tok[]){{"Wi-Fi", W, 0, 0, 5, 1},
                      {"Wi", W, 0, 0, 2, 1},
                      {"WiFi", W, 0, 0, 5, 1},
                      {"Fi", W, 1, 3, 5, 1},
                      {"500-42", W, 2, 6, 12, 1},
                      {"500", W, 2, 6, 9, 1},
                      {"50042", W, 2, 6, 12, 1},
                      {"42", W, 3, 10, 12, 1},
                      {"x", W, 4, 13, 14, 1},
                      END});
    tv_analysis_free(r);

    r = mk("whitespace", "[\"wd\"]",
           "\"wd\":{\"type\":\"word_delimiter\",\"split_on_case_change\":false,"
           "\"split_on_numerics\":false,\"stem_english_possessive\":false}",
           &err);
    assert_non_null(r);
    check(get(r), "PowerShot j2se O'Neil's",
          (exp_tok[]){{"PowerShot", W, 0, 0, 9, 1},
                      {"j2se", W, 1, 10, 14, 1},
                      {"O", W, 2, 15, 16, 1},
                      {"Neil", W, 3, 17, 21, 1},
                      {"s", W, 4, 22, 23, 1},
                      END});
    tv_analysis_free(r);

    /* protected words and a type table */
    r = mk("whitespace", "[\"wd\"]",
           "\"wd\":{\"type\":\"word_delimiter\",\"protected_words\":\"wi_fi, x_y\","
           "\"type_table\":[\"$ => DIGIT\",\". => DIGIT\",\"\\\\u002D => ALPHA\"]}",
           &err);
    assert_non_null(r);
    check(get(r), "$3.50 a-b wi_fi Wi_Fi",
          (exp_tok[]){{"$3.50", W, 0, 0, 5, 1},
                      {"a-b", W, 1, 6, 9, 1},
                      {"wi_fi", W, 2, 10, 15, 1},
                      {"Wi", W, 3, 16, 18, 1},
                      {"Fi", W, 4, 19, 21, 1},
                      END});
    tv_analysis_free(r);
    r = mk("whitespace", "[\"wd\"]",
           "\"wd\":{\"type\":\"word_delimiter\",\"protected_words\":[\"wi-fi\"],\"protected_words_case\":true}",
           &err);
    assert_non_null(r);
    check(get(r), "Wi-Fi", (exp_tok[]){{"Wi-Fi", W, 0, 0, 5, 1}, END});
    tv_analysis_free(r);
}

static void test_word_delimiter_errors(void **state) {
    (void)state;
    expect_error("{\"filter\":{\"w\":{\"type\":\"word_delimiter\",\"type_table\":[\"$ DIGIT\"]}}}", TROVE_ERUNTIME,
                 "Invalid Mapping Rule : [$ DIGIT]");
    expect_error("{\"filter\":{\"w\":{\"type\":\"word_delimiter\",\"type_table\":[\"ab => DIGIT\"]}}}",
                 TROVE_ERUNTIME, "Invalid Mapping Rule : [ab => DIGIT]. Only a single character is allowed.");
    expect_error("{\"filter\":{\"w\":{\"type\":\"word_delimiter_graph\",\"type_table\":[\"a => DIGITS\"]}}}",
                 TROVE_ERUNTIME, "Invalid Mapping Rule : [a => DIGITS]. Illegal type.");
    expect_error("{\"filter\":{\"w\":{\"type\":\"word_delimiter\",\"type_table\":[\"\\\\u00 => DIGIT\"]}}}",
                 TROVE_ERUNTIME, "Invalid escaped char in [\\u00]");
    expect_error("{\"filter\":{\"w\":{\"type\":\"word_delimiter\",\"catenate_all\":\"maybe\"}}}", TROVE_EARG,
                 "Failed to parse value [maybe] as only [true] or [false] are allowed.");
    expect_error("{\"filter\":{\"syn\":{\"type\":\"synonym\",\"synonyms\":[\"a, b\"]}},"
                 "\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"filter\":[\"word_delimiter_graph\",\"syn\"]}}}",
                 TROVE_EARG, "Token filter [word_delimiter_graph] cannot be used to parse synonyms");
}

static void test_word_delimiter_graph(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = mk("whitespace", "[\"wd\"]",
                        "\"wd\":{\"type\":\"word_delimiter_graph\",\"catenate_all\":true,"
                        "\"preserve_original\":true,\"catenate_numbers\":true}",
                        &err);
    assert_non_null(r);
    /* the original and the catenations span the parts they cover */
    check(get(r), "Wi-Fi 500-42 x",
          (exp_tok[]){{"Wi-Fi", W, 0, 0, 5, 2},
                      {"WiFi", W, 0, 0, 5, 2},
                      {"Wi", W, 0, 0, 2, 1},
                      {"Fi", W, 1, 3, 5, 1},
                      {"500-42", W, 2, 6, 12, 2},
                      {"50042", W, 2, 6, 12, 2},
                      {"500", W, 2, 6, 9, 1},
                      {"42", W, 3, 10, 12, 1},
                      {"x", W, 4, 13, 14, 1},
                      END});
    tv_analysis_free(r);

    /* adjust_offsets false: every part keeps the token's offsets */
    r = mk("whitespace", "[\"wd\"]", "\"wd\":{\"type\":\"word_delimiter_graph\",\"adjust_offsets\":false}", &err);
    assert_non_null(r);
    check(get(r), "the qu1ck",
          (exp_tok[]){{"the", W, 0, 0, 3, 1}, {"qu", W, 1, 4, 9, 1}, {"1", W, 2, 4, 9, 1}, {"ck", W, 3, 4, 9, 1}, END});
    tv_analysis_free(r);

    /* ignore_keywords: a keyword-marked token passes untouched */
    r = mk("whitespace", "[\"km\",\"wd\"]",
           "\"km\":{\"type\":\"keyword_marker\",\"keywords\":[\"Wi-Fi\"]},"
           "\"wd\":{\"type\":\"word_delimiter_graph\",\"ignore_keywords\":true}",
           &err);
    assert_non_null(r);
    check(get(r), "Wi-Fi Hi-Fi",
          (exp_tok[]){{"Wi-Fi", W, 0, 0, 5, 1}, {"Hi", W, 1, 6, 8, 1}, {"Fi", W, 2, 9, 11, 1}, END});
    tv_analysis_free(r);

    /* by bare name: OpenSearch's defaults (offsets adjusted) */
    r = mk("standard", "[\"word_delimiter_graph\"]", "", &err);
    assert_non_null(r);
    check(get(r), "the qu1ck",
          (exp_tok[]){{"the", A, 0, 0, 3, 1}, {"qu", A, 1, 4, 6, 1}, {"1", A, 2, 6, 7, 1}, {"ck", A, 3, 7, 9, 1}, END});
    tv_analysis_free(r);
}

static void test_flatten_graph(void **state) {
    (void)state;
    tv_error err = TV_ERROR_INIT;
    /* OpenSearch's 40_token_filters.yml "synonym_graph and flatten_graph" */
    tv_analysis *r = reg("{\"filter\":{\"sg\":{\"type\":\"synonym_graph\",\"synonyms\":"
                         "[\"automatic teller machine,atm,cash point\"]}},"
                         "\"analyzer\":{\"a\":{\"tokenizer\":\"whitespace\",\"filter\":[\"sg\",\"flatten_graph\"]}}}",
                         &err);
    assert_non_null(r);
    check(get(r), "this automatic teller machine is down",
          (exp_tok[]){{"this", W, 0, -1, -1, 1},
                      {"atm", "SYNONYM", 1, -1, -1, 3},
                      {"cash", "SYNONYM", 1, -1, -1, 1},
                      {"automatic", W, 1, -1, -1, 1},
                      {"point", "SYNONYM", 2, -1, -1, 2},
                      {"teller", W, 2, -1, -1, 1},
                      {"machine", W, 3, -1, -1, 1},
                      {"is", W, 4, -1, -1, 1},
                      {"down", W, 5, -1, -1, 1},
                      END});
    tv_analysis_free(r);
    /* an already flat graph passes unchanged (Lucene 8.7) */
    r = mk("whitespace", "[\"wd\",\"flatten_graph\"]",
           "\"wd\":{\"type\":\"word_delimiter_graph\",\"catenate_all\":true,\"preserve_original\":true}", &err);
    assert_non_null(r);
    check(get(r), "Wi-Fi x",
          (exp_tok[]){{"Wi-Fi", W, 0, 0, 5, 2},
                      {"WiFi", W, 0, 0, 5, 2},
                      {"Wi", W, 0, 0, 2, 1},
                      {"Fi", W, 1, 3, 5, 1},
                      {"x", W, 2, 6, 7, 1},
                      END});
    tv_analysis_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shingle_defaults),
        cmocka_unit_test(test_shingle_options),
        cmocka_unit_test(test_shingle_errors),
        cmocka_unit_test(test_shingle_disables_graph),
        cmocka_unit_test(test_word_delimiter),
        cmocka_unit_test(test_word_delimiter_errors),
        cmocka_unit_test(test_word_delimiter_graph),
        cmocka_unit_test(test_flatten_graph),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
