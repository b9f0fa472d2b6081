/* test_text_tokenizers.c — the ngram, edge_ngram, pattern, char_group and
 * path_hierarchy tokenizers, the pattern_replace char filter and custom
 * normalizers: tokens (terms, types, positions, UTF-16 offsets), bare-name
 * defaults and every settings error.
 *
 * Expected tokens of ngram, edge_ngram, pattern, path_hierarchy and
 * pattern_replace come from Lucene 4.10 (NGramTokenizer, EdgeNGramTokenizer,
 * PatternTokenizer, (Reverse)PathHierarchyTokenizer, PatternReplaceCharFilter
 * run through javac/java against Debian's jars); char_group's from
 * OpenSearch's CharGroupTokenizerFactory semantics (a CharTokenizer). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "text_test.h"

#define W "word"

/* A registry whose analyzer "a" is a custom analyzer over tokenizer "t"
 * defined by `tok` (a JSON object), with optional extra JSON members. */
static tv_analysis *with_tok(const char *tok, const char *extra) {
    char json[2048];
    snprintf(json, sizeof json,
             "{\"tokenizer\":{\"t\":%s},\"analyzer\":{\"a\":{\"tokenizer\":\"t\"}}%s%s}", tok,
             extra ? "," : "", extra ? extra : "");
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg(json, &err);
    if (!r) fprintf(stderr, "rejected: %s: %s\n", json, err.reason);
    assert_non_null(r);
    return r;
}

static void tok_check(const char *tok, const char *text, const exp_tok *exp) {
    tv_analysis *r = with_tok(tok, NULL);
    check(tv_analysis_get(r, "a", 1), text, exp);
    tv_analysis_free(r);
}

static void tok_error(const char *tok, int code, const char *reason) {
    char json[2048];
    snprintf(json, sizeof json, "{\"tokenizer\":{\"t\":%s}}", tok);
    expect_error(json, code, reason);
}

/* A one-off analyzer: tokenizer by name, no filters. */
static tv_analyzer *bare(const char *tokenizer) {
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = tv_analyzer_compose(NULL, NULL, 0, tokenizer, NULL, 0, NULL, 0, &err);
    if (!an) fprintf(stderr, "compose %s: %s\n", tokenizer, err.reason);
    assert_non_null(an);
    return an;
}

static void test_ngram(void **state) {
    (void)state;
    /* bare name: min 1, max 2, every char a token char */
    tv_analyzer *an = bare("ngram");
    check(an, "foo", (exp_tok[]){{"f", W, 0, 0, 1}, {"fo", W, 1, 0, 2}, {"o", W, 2, 1, 2},
                                 {"oo", W, 3, 1, 3}, {"o", W, 4, 2, 3}, END});
    check(an, "", (exp_tok[]){END});
    tv_analyzer_free(an);
    an = bare("nGram");
    check(an, "ab", (exp_tok[]){{"a", W, 0, 0, 1}, {"ab", W, 1, 0, 2}, {"b", W, 2, 1, 2}, END});
    tv_analyzer_free(an);
    tok_check("{\"type\":\"ngram\",\"min_gram\":3,\"max_gram\":3}", "foobar",
              (exp_tok[]){{"foo", W, 0, 0, 3}, {"oob", W, 1, 1, 4}, {"oba", W, 2, 2, 5},
                          {"bar", W, 3, 3, 6}, END});
    /* no token_chars: grams cross spaces */
    tok_check("{\"type\":\"ngram\",\"min_gram\":2,\"max_gram\":3}", "ab cd",
              (exp_tok[]){{"ab", W, 0, 0, 2}, {"ab ", W, 1, 0, 3}, {"b ", W, 2, 1, 3},
                          {"b c", W, 3, 1, 4}, {" c", W, 4, 2, 4}, {" cd", W, 5, 2, 5},
                          {"cd", W, 6, 3, 5}, END});
    /* token_chars letter: runs of letters only; a supplementary char counts
     * as one code point and two UTF-16 units */
    tok_check("{\"type\":\"ngram\",\"token_chars\":[\"letter\"]}", "ab1 \xc3\xa9\xf0\x9f\x98\x80" "b",
              (exp_tok[]){{"a", W, 0, 0, 1}, {"ab", W, 1, 0, 2}, {"b", W, 2, 1, 2},
                          {"\xc3\xa9", W, 3, 4, 5}, {"b", W, 4, 7, 8}, END});
    tok_check("{\"type\":\"ngram\",\"min_gram\":1,\"max_gram\":1}", "x\xf0\x9f\x98\x80y",
              (exp_tok[]){{"x", W, 0, 0, 1}, {"\xf0\x9f\x98\x80", W, 1, 1, 3}, {"y", W, 2, 3, 4}, END});
    /* classes, categories and custom chars */
    tok_check("{\"type\":\"ngram\",\"min_gram\":1,\"max_gram\":1,\"token_chars\":\"digit\"}", "a1b22",
              (exp_tok[]){{"1", W, 0, 1, 2}, {"2", W, 1, 3, 4}, {"2", W, 2, 4, 5}, END});
    tok_check("{\"type\":\"ngram\",\"min_gram\":1,\"max_gram\":1,\"token_chars\":\"letter, digit\"}", "a1.",
              (exp_tok[]){{"a", W, 0, 0, 1}, {"1", W, 1, 1, 2}, END});
    tok_check("{\"type\":\"ngram\",\"min_gram\":2,\"max_gram\":2,\"token_chars\":[\"uppercase_letter\"]}",
              "ABcDE", (exp_tok[]){{"AB", W, 0, 0, 2}, {"DE", W, 1, 3, 5}, END});
    tok_check("{\"type\":\"ngram\",\"min_gram\":2,\"max_gram\":2,\"token_chars\":[\"letter\",\"custom\"],"
              "\"custom_token_chars\":\"+-\"}",
              "a+b c", (exp_tok[]){{"a+", W, 0, 0, 2}, {"+b", W, 1, 1, 3}, END});
    tok_check("{\"type\":\"ngram\",\"min_gram\":1,\"max_gram\":1,\"token_chars\":[\" Punctuation \",\"symbol\"]}",
              "a.b$c", (exp_tok[]){{".", W, 0, 1, 2}, {"$", W, 1, 3, 4}, END});
    tok_check("{\"type\":\"ngram\",\"min_gram\":1,\"max_gram\":1,\"token_chars\":[\"whitespace\"]}",
              "a b\tc", (exp_tok[]){{" ", W, 0, 1, 2}, {"\t", W, 1, 3, 4}, END});
}

static void test_ngram_errors(void **state) {
    (void)state;
    tok_error("{\"type\":\"ngram\",\"min_gram\":2,\"max_gram\":4}", TROVE_EARG,
              "The difference between max_gram and min_gram in NGram Tokenizer must be less than or "
              "equal to: [1] but was [2]. This limit can be set by changing the "
              "[index.max_ngram_diff] index level setting.");
    tok_error("{\"type\":\"ngram\",\"min_gram\":0,\"max_gram\":1}", TROVE_EARG,
              "minGram must be greater than zero");
    tok_error("{\"type\":\"ngram\",\"min_gram\":3,\"max_gram\":2}", TROVE_EARG,
              "minGram must not be greater than maxGram");
    tok_error("{\"type\":\"edge_ngram\",\"min_gram\":3,\"max_gram\":2}", TROVE_EARG,
              "minGram must not be greater than maxGram");
    tok_error("{\"type\":\"ngram\",\"min_gram\":\"x\"}", TROVE_EARG,
              "Failed to parse value [x] for setting [min_gram]");
    tok_error("{\"type\":\"ngram\",\"token_chars\":[\"custom\"]}", TROVE_EARG,
              "Token type: 'custom' requires setting `custom_token_chars`");
    tok_error("{\"type\":\"ngram\",\"token_chars\":[\"letters\"]}", TROVE_EARG,
              "Unknown token type: 'letters', must be one of [symbol, private_use, "
              "paragraph_separator, start_punctuation, unassigned, enclosing_mark, "
              "connector_punctuation, letter_number, other_number, math_symbol, lowercase_letter, "
              "space_separator, surrogate, initial_quote_punctuation, decimal_digit_number, digit, "
              "other_punctuation, dash_punctuation, currency_symbol, non_spacing_mark, custom, "
              "format, modifier_letter, control, uppercase_letter, other_symbol, end_punctuation, "
              "modifier_symbol, other_letter, line_separator, titlecase_letter, letter, "
              "punctuation, combining_spacing_mark, final_quote_punctuation, whitespace]");
    /* index.max_ngram_diff raises the limit; edge_ngram has none */
    const char *json = "{\"tokenizer\":{\"t\":{\"type\":\"ngram\",\"min_gram\":1,\"max_gram\":3}}}";
    tv_error err = TV_ERROR_INIT;
    tv_analysis_limits lim = {.max_ngram_diff = 2, .max_shingle_diff = 3};
    tv_analysis *r = tv_analysis_new_limits(json, strlen(json), &lim, &err);
    assert_non_null(r);
    tv_analysis_free(r);
    tv_analysis_free(with_tok("{\"type\":\"edge_ngram\",\"min_gram\":1,\"max_gram\":10}", NULL));
}

static void test_edge_ngram(void **state) {
    (void)state;
    tv_analyzer *an = bare("edge_ngram");
    check(an, "foo", (exp_tok[]){{"f", W, 0, 0, 1}, {"fo", W, 1, 0, 2}, END});
    tv_analyzer_free(an);
    an = bare("edgeNGram");
    check(an, "foo bar", (exp_tok[]){{"f", W, 0, 0, 1}, {"fo", W, 1, 0, 2}, END});
    tv_analyzer_free(an);
    tok_check("{\"type\":\"edge_ngram\",\"min_gram\":1,\"max_gram\":3}", "foo bar",
              (exp_tok[]){{"f", W, 0, 0, 1}, {"fo", W, 1, 0, 2}, {"foo", W, 2, 0, 3}, END});
    tok_check("{\"type\":\"edge_ngram\",\"min_gram\":1,\"max_gram\":3,\"token_chars\":[\"letter\"]}",
              "foo bar",
              (exp_tok[]){{"f", W, 0, 0, 1}, {"fo", W, 1, 0, 2}, {"foo", W, 2, 0, 3},
                          {"b", W, 3, 4, 5}, {"ba", W, 4, 4, 6}, {"bar", W, 5, 4, 7}, END});
    /* runs shorter than min_gram give nothing */
    tok_check("{\"type\":\"edge_ngram\",\"min_gram\":2,\"max_gram\":3,\"token_chars\":[\"letter\"]}",
              "a bcd ef",
              (exp_tok[]){{"bc", W, 0, 2, 4}, {"bcd", W, 1, 2, 5}, {"ef", W, 2, 6, 8}, END});
}

static void test_pattern(void **state) {
    (void)state;
    /* bare name: \W+ (ASCII word chars, as Java without UNICODE_CHARACTER_CLASS) */
    tv_analyzer *an = bare("pattern");
    check(an, "split by-whitespace, \xc3\xbc" "n\xc3\xaf" "code",
          (exp_tok[]){{"split", W, 0, 0, 5}, {"by", W, 1, 6, 8}, {"whitespace", W, 2, 9, 19},
                      {"n", W, 3, 22, 23}, {"code", W, 4, 24, 28}, END});
    check(an, "", (exp_tok[]){END});
    tv_analyzer_free(an);
    tok_check("{\"type\":\"pattern\",\"pattern\":\",\"}", ",,a,,b,",
              (exp_tok[]){{"a", W, 0, 2, 3}, {"b", W, 1, 5, 6}, END});
    tok_check("{\"type\":\"pattern\",\"pattern\":\"'([^']*)'\",\"group\":1}", "'sgh' 'dfg' ''",
              (exp_tok[]){{"sgh", W, 0, 1, 4}, {"dfg", W, 1, 7, 10}, END});
    tok_check("{\"type\":\"pattern\",\"pattern\":\"[0-9]+\",\"group\":0}", "abc123def45",
              (exp_tok[]){{"123", W, 0, 3, 6}, {"45", W, 1, 9, 11}, END});
    /* empty matches: Java's find() moves one char on */
    tok_check("{\"type\":\"pattern\",\"pattern\":\"x*\"}", "abc",
              (exp_tok[]){{"a", W, 0, 0, 1}, {"b", W, 1, 1, 2}, {"c", W, 2, 2, 3}, END});
    /* flags */
    tok_check("{\"type\":\"pattern\",\"pattern\":\"x\",\"flags\":\"CASE_INSENSITIVE|COMMENTS\"}", "aXbxc",
              (exp_tok[]){{"a", W, 0, 0, 1}, {"b", W, 1, 2, 3}, {"c", W, 2, 4, 5}, END});
    /* Java-only syntax: \p{Punct} (ASCII POSIX class) and \u002C */
    tok_check("{\"type\":\"pattern\",\"pattern\":\"\\\\p{Punct}|\\\\u0020\"}", "a;b c",
              (exp_tok[]){{"a", W, 0, 0, 1}, {"b", W, 1, 2, 3}, {"c", W, 2, 4, 5}, END});
    /* "." stops at every Java line terminator, U+2028 included */
    tok_check("{\"type\":\"pattern\",\"pattern\":\".+\",\"group\":0}", "ab\xe2\x80\xa8" "cd",
              (exp_tok[]){{"ab", W, 0, 0, 2}, {"cd", W, 1, 3, 5}, END});
    tok_check("{\"type\":\"pattern\",\"pattern\":\"\\\\W+\",\"flags\":\"UNICODE_CHARACTER_CLASS\"}",
              "\xc3\xbc" "ber alles", (exp_tok[]){{"\xc3\xbc" "ber", W, 0, 0, 4}, {"alles", W, 1, 5, 10}, END});
    tok_error("{\"type\":\"pattern\",\"pattern\":\"a\",\"flags\":\"CASE_INSENSITIVE|bogus\"}", TROVE_EARG,
              "Unknown regex flag [BOGUS]");
    tok_error("{\"type\":\"pattern\",\"pattern\":\"(a)\",\"group\":2}", TROVE_EARG,
              "invalid group specified: pattern only has: 1 capturing groups");
    tok_error("{\"type\":\"pattern\",\"pattern\":\"a\",\"flags\":\"CANON_EQ\"}", TROVE_EUNSUPPORTED,
              "regex flag [CANON_EQ] is not supported");
    tv_error err = TV_ERROR_INIT;
    assert_null(reg("{\"tokenizer\":{\"t\":{\"type\":\"pattern\",\"pattern\":\"(\"}}}", &err));
    /* Java's PatternSyntaxException: description, index, the pattern, a caret */
    assert_int_equal(err.code, TROVE_EPATTERN);
    assert_non_null(strstr(err.reason, " near index 1\n(\n ^"));
}

static void test_pattern_replace(void **state) {
    (void)state;
    const char *json =
        "{\"char_filter\":{\"c\":{\"type\":\"pattern_replace\",\"pattern\":\"sample(.*)\","
        "\"replacement\":\"replacedSample $1\"},"
        "\"d\":{\"type\":\"pattern_replace\",\"pattern\":\"(aa)\\\\s+(bb)\",\"replacement\":\"$1#$2\"},"
        "\"e\":{\"type\":\"pattern_replace\",\"pattern\":\"a\",\"replacement\":\"xyz\"},"
        "\"f\":{\"type\":\"pattern_replace\",\"pattern\":\"(?<w>[a-z]+)-\",\"replacement\":\"${w}\\\\$\"},"
        "\"g\":{\"type\":\"pattern_replace\",\"pattern\":\"-\"}},"
        "\"analyzer\":{\"kc\":{\"tokenizer\":\"keyword\",\"char_filter\":[\"c\"]},"
        "\"wd\":{\"tokenizer\":\"whitespace\",\"char_filter\":[\"d\"]},"
        "\"we\":{\"tokenizer\":\"whitespace\",\"char_filter\":[\"e\"]},"
        "\"wf\":{\"tokenizer\":\"whitespace\",\"char_filter\":[\"f\"]},"
        "\"wg\":{\"tokenizer\":\"whitespace\",\"char_filter\":[\"g\"]}}}";
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg(json, &err);
    if (!r) fprintf(stderr, "%s\n", err.reason);
    assert_non_null(r);
    check(tv_analysis_get(r, "kc", 2), "sample6 sample1",
          (exp_tok[]){{"replacedSample 6 sample1", W, 0, 0, 15}, END});
    check(tv_analysis_get(r, "wd", 2), "aa  bb cc",
          (exp_tok[]){{"aa#bb", W, 0, 0, 6}, {"cc", W, 1, 7, 9}, END});
    check(tv_analysis_get(r, "we", 2), "bab c",
          (exp_tok[]){{"bxyzb", W, 0, 0, 3}, {"c", W, 1, 4, 5}, END});
    check(tv_analysis_get(r, "wf", 2), "ab- cd", (exp_tok[]){{"ab$", W, 0, 0, 3}, {"cd", W, 1, 4, 6}, END});
    check(tv_analysis_get(r, "wg", 2), "a-b c", (exp_tok[]){{"ab", W, 0, 0, 3}, {"c", W, 1, 4, 5}, END});
    tv_analysis_free(r);
    expect_error("{\"char_filter\":{\"c\":{\"type\":\"pattern_replace\"}}}", TROVE_EARG,
                 "pattern is missing for [c] char filter of type 'pattern_replace'");
    expect_error("{\"char_filter\":{\"c\":{\"type\":\"pattern_replace\",\"pattern\":\"(a)\",\"replacement\":\"$2\"}}}",
                 TROVE_EINDEXBOUNDS, "No group 2");
    expect_error("{\"char_filter\":{\"c\":{\"type\":\"pattern_replace\",\"pattern\":\"a\",\"replacement\":\"$x\"}}}",
                 TROVE_EARG, "Illegal group reference");
    expect_error("{\"char_filter\":{\"c\":{\"type\":\"pattern_replace\",\"pattern\":\"a\",\"replacement\":\"x\\\\\"}}}",
                 TROVE_EARG, "character to be escaped is missing");
    expect_error("{\"char_filter\":{\"c\":{\"type\":\"pattern_replace\",\"pattern\":\"a\",\"replacement\":\"${n}\"}}}",
                 TROVE_EARG, "No group with name {n}");
}

static void test_char_group(void **state) {
    (void)state;
    tok_check("{\"type\":\"char_group\",\"tokenize_on_chars\":[\"whitespace\",\"-\",\"\\\\n\"]}",
              "The QUICK brown-fox\nend",
              (exp_tok[]){{"The", W, 0, 0, 3}, {"QUICK", W, 1, 4, 9}, {"brown", W, 2, 10, 15},
                          {"fox", W, 3, 16, 19}, {"end", W, 4, 20, 23}, END});
    tok_check("{\"type\":\"char_group\",\"tokenize_on_chars\":[\"digit\",\"punctuation\",\"symbol\",\"\\\\u0078\"]}",
              "ab1cd.ef$gh+ixj",
              (exp_tok[]){{"ab", W, 0, 0, 2}, {"cd", W, 1, 3, 5}, {"ef", W, 2, 6, 8},
                          {"gh", W, 3, 9, 11}, {"i", W, 4, 12, 13}, {"j", W, 5, 14, 15}, END});
    /* one string is a comma-separated list (Settings.getAsList) */
    tok_check("{\"type\":\"char_group\",\"tokenize_on_chars\":\"-, _,\"}", "a-b_c d",
              (exp_tok[]){{"a", W, 0, 0, 1}, {"b", W, 1, 2, 3}, {"c d", W, 2, 4, 7}, END});
    tok_check("{\"type\":\"char_group\",\"tokenize_on_chars\":[\"letter\"]}", "ab12c3",
              (exp_tok[]){{"12", W, 0, 2, 4}, {"3", W, 1, 5, 6}, END});
    /* max_token_length cuts long runs (in UTF-16 units) */
    tok_check("{\"type\":\"char_group\",\"tokenize_on_chars\":[\" \"],\"max_token_length\":2}", "abcde f",
              (exp_tok[]){{"ab", W, 0, 0, 2}, {"cd", W, 1, 2, 4}, {"e", W, 2, 4, 5}, {"f", W, 3, 6, 7}, END});
    /* no split chars: one token */
    tv_analyzer *an = bare("char_group");
    check(an, "a b", (exp_tok[]){{"a b", W, 0, 0, 3}, END});
    tv_analyzer_free(an);
    tok_error("{\"type\":\"char_group\",\"tokenize_on_chars\":[\"\"]}", TROVE_ERUNTIME,
              "[tokenize_on_chars] cannot contain empty characters");
    tok_error("{\"type\":\"char_group\",\"tokenize_on_chars\":[\"ab\"]}", TROVE_ERUNTIME,
              "Invalid escaped char in [ab]");
    tok_error("{\"type\":\"char_group\",\"tokenize_on_chars\":[\"\\\\q\"]}", TROVE_ERUNTIME,
              "Invalid escaped char q in [\\q]");
    tok_error("{\"type\":\"char_group\",\"tokenize_on_chars\":[\"\\\\u00zz\"]}", TROVE_ENUMBERFORMAT,
              "For input string: \"00zz\" under radix 16");
    tok_error("{\"type\":\"char_group\",\"max_token_length\":0}", TROVE_EARG,
              "maxTokenLen must be greater than 0 and less than 1048576 passed: 0");
}

static void test_path_hierarchy(void **state) {
    (void)state;
    tv_analyzer *an = bare("path_hierarchy");
    check(an, "/a/b/c", (exp_tok[]){{"/a", W, 0, 0, 2}, {"/a/b", W, 0, 0, 4}, {"/a/b/c", W, 0, 0, 6}, END});
    check(an, "a//b/", (exp_tok[]){{"a", W, 0, 0, 1}, {"a/", W, 0, 0, 2}, {"a//b", W, 0, 0, 4},
                                    {"a//b/", W, 0, 0, 5}, END});
    check(an, "", (exp_tok[]){END});
    tv_analyzer_free(an);
    an = bare("PathHierarchy");
    check(an, "a/b/c", (exp_tok[]){{"a", W, 0, 0, 1}, {"a/b", W, 0, 0, 3}, {"a/b/c", W, 0, 0, 5}, END});
    tv_analyzer_free(an);
    tok_check("{\"type\":\"path_hierarchy\",\"skip\":1}", "/a/b/c",
              (exp_tok[]){{"/b", W, 0, 2, 4}, {"/b/c", W, 0, 2, 6}, END});
    tok_check("{\"type\":\"path_hierarchy\",\"replacement\":\"|\"}", "a/b/c",
              (exp_tok[]){{"a", W, 0, 0, 1}, {"a|b", W, 0, 0, 3}, {"a|b|c", W, 0, 0, 5}, END});
    tok_check("{\"type\":\"path_hierarchy\",\"delimiter\":\"-\",\"replacement\":\"\xc3\xa9\"}", "x-y",
              (exp_tok[]){{"x", W, 0, 0, 1}, {"x\xc3\xa9y", W, 0, 0, 3}, END});
    tok_check("{\"type\":\"path_hierarchy\",\"reverse\":true}", "/a/b/c",
              (exp_tok[]){{"/a/b/c", W, 0, 0, 6}, {"a/b/c", W, 0, 1, 6}, {"b/c", W, 0, 3, 6},
                          {"c", W, 0, 5, 6}, END});
    tok_check("{\"type\":\"path_hierarchy\",\"reverse\":true,\"delimiter\":\".\",\"skip\":1}", "www.site.co.uk",
              (exp_tok[]){{"www.site.co.", W, 0, 0, 12}, {"site.co.", W, 0, 4, 12},
                          {"co.", W, 0, 9, 12}, END});
    tok_check("{\"type\":\"path_hierarchy\",\"reverse\":true}", "a/b/",
              (exp_tok[]){{"a/b/", W, 0, 0, 4}, {"b/", W, 0, 2, 4}, END});
    tok_error("{\"type\":\"path_hierarchy\",\"delimiter\":\"ab\"}", TROVE_EARG, "delimiter must be a one char value");
    tok_error("{\"type\":\"path_hierarchy\",\"replacement\":\"\"}", TROVE_EARG, "replacement must be a one char value");
    tok_error("{\"type\":\"path_hierarchy\",\"skip\":-1}", TROVE_EARG, "skip cannot be negative");
    tok_error("{\"type\":\"path_hierarchy\",\"buffer_size\":-1}", TROVE_EARG, "bufferSize cannot be negative");
}

static void test_normalizers(void **state) {
    (void)state;
    const char *json =
        "{\"char_filter\":{\"q\":{\"type\":\"mapping\",\"mappings\":[\"qu => q\"]}},"
        "\"normalizer\":{\"n\":{\"type\":\"custom\",\"char_filter\":[\"q\"],\"filter\":[\"lowercase\",\"asciifolding\"]}}}";
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg(json, &err);
    assert_non_null(r);
    const tv_analyzer *n = tv_analysis_normalizer(r, "n", 1);
    check(n, "quit Caf\xc3\xa9", (exp_tok[]){{"qit cafe", W, 0, 0, 9}, END});
    assert_null(tv_analysis_get(r, "n", 1)); /* not an analyzer */
    check(tv_analysis_normalizer(r, "lowercase", 9), "AbC D", (exp_tok[]){{"abc d", W, 0, 0, 5}, END});
    assert_null(tv_analysis_normalizer(r, "nope", 4));
    tv_analysis_free(r);
    check(tv_analysis_normalizer(NULL, "lowercase", 9), "X", (exp_tok[]){{"x", W, 0, 0, 1}, END});
    expect_error("{\"normalizer\":{\"n\":{\"filter\":[\"stop\"]}}}", TROVE_EARG,
                 "Custom normalizer [n] may not use filter [stop]");
    expect_error("{\"normalizer\":{\"n\":{\"filter\":[\"nope\"]}}}", TROVE_EARG,
                 "Custom normalizer [n] failed to find filter under name [nope]");
    expect_error("{\"normalizer\":{\"n\":{\"char_filter\":[\"nope\"]}}}", TROVE_EARG,
                 "Custom normalizer [n] failed to find char_filter under name [nope]");
    expect_error("{\"normalizer\":{\"n\":{\"tokenizer\":\"standard\"}}}", TROVE_EARG,
                 "Custom normalizer [n] cannot configure a tokenizer");
    expect_error("{\"normalizer\":{\"n\":{\"type\":\"other\"}}}", TROVE_EARG,
                 "Unknown normalizer type [other] for [n]");
}

/* simple_pattern(_split): Lucene RegExp, longest match (from the upstream
 * YAML tests and Lucene's SimplePattern*Tokenizer scan). */
static void test_simple_pattern(void **state) {
    (void)state;
    tok_check("{\"type\":\"simple_pattern\",\"pattern\":\"[abcdef0123456789]{4}\"}", "a6bf fooo ff61",
              (exp_tok[]){{"a6bf", W, 0, 0, 4}, {"ff61", W, 1, 10, 14}, END});
    /* longest, not first, alternative; quoted strings and escapes are literal */
    tok_check("{\"type\":\"simple_pattern\",\"pattern\":\"a|ab|\\\"x.y\\\"|\\\\$\"}", "abc a x.y $ xzy",
              (exp_tok[]){{"ab", W, 0, 0, 2}, {"a", W, 1, 4, 5}, {"x.y", W, 2, 6, 9}, {"$", W, 3, 10, 11}, END});
    /* the rest of the text only a prefix of a match: Lucene's scan stops */
    tok_check("{\"type\":\"simple_pattern\",\"pattern\":\"abc|b\"}", "b ab",
              (exp_tok[]){{"b", W, 0, 0, 1}, END});
    tok_check("{\"type\":\"simple_pattern_split\",\"pattern\":\"==\"}", "foo==bar",
              (exp_tok[]){{"foo", W, 0, 0, 3}, {"bar", W, 1, 5, 8}, END});
    tok_check("{\"type\":\"simple_pattern_split\",\"pattern\":\"-+\"}", "--a--b-",
              (exp_tok[]){{"a", W, 0, 2, 3}, {"b", W, 1, 5, 6}, END});
    tv_analyzer *an = bare("simple_pattern");
    check(an, "abc", (exp_tok[]){END});
    tv_analyzer_free(an);
    an = bare("simple_pattern_split");
    check(an, "a b", (exp_tok[]){{"a b", W, 0, 0, 3}, END});
    tv_analyzer_free(an);
    tok_error("{\"type\":\"simple_pattern\",\"pattern\":\"a&b\"}", TROVE_EUNSUPPORTED,
              "pattern [a&b] of tokenizer [t] is not supported: intersection (&)");
}

/* The pattern and fingerprint analyzers (OpenSearch's documented examples). */
static void test_analyzers(void **state) {
    (void)state;
    check(B("pattern"), "The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.",
          (exp_tok[]){{"the", W, 0, 0, 3}, {"2", W, 1, 4, 5}, {"quick", W, 2, 6, 11},
                      {"brown", W, 3, 12, 17}, {"foxes", W, 4, 18, 23}, {"jumped", W, 5, 24, 30},
                      {"over", W, 6, 31, 35}, {"the", W, 7, 36, 39}, {"lazy", W, 8, 40, 44},
                      {"dog", W, 9, 45, 48}, {"s", W, 10, 49, 50}, {"bone", W, 11, 51, 55}, END});
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg("{\"analyzer\":{\"p\":{\"type\":\"pattern\",\"pattern\":\",\",\"lowercase\":false,"
                         "\"stopwords\":[\"b\"]},\"f\":{\"type\":\"fingerprint\",\"separator\":\"+\","
                         "\"stopwords\":\"_english_\"},\"f5\":{\"type\":\"fingerprint\",\"max_output_size\":5}}}",
                         &err);
    if (!r) fprintf(stderr, "%s\n", err.reason);
    assert_non_null(r);
    check(tv_analysis_get(r, "p", 1), "A,b,C", (exp_tok[]){{"A", W, 0, 0, 1}, {"C", W, 2, 4, 5}, END});
    check(B("fingerprint"), "Yes yes, G\xc3\xb6" "del said this sentence is consistent and.",
          (exp_tok[]){{"and consistent godel is said sentence this yes", "fingerprint", 0, 0, 52}, END});
    check(B("fingerprint"), "", (exp_tok[]){END});
    check(tv_analysis_get(r, "f", 1), "the Cat and a cat",
          (exp_tok[]){{"cat", "fingerprint", 0, 0, 17}, END});
    check(tv_analysis_get(r, "f", 1), "b x c", (exp_tok[]){{"b+c+x", "fingerprint", 0, 0, 5}, END});
    check(tv_analysis_get(r, "f5", 2), "ab cd", (exp_tok[]){{"ab cd", "fingerprint", 0, 0, 5}, END});
    check(tv_analysis_get(r, "f5", 2), "ab cde", (exp_tok[]){END});
    tv_analysis_free(r);
    expect_error("{\"analyzer\":{\"f\":{\"type\":\"fingerprint\",\"separator\":\"ab\"}}}", TROVE_EARG,
                 "Setting [separator] must be a single, non-null character. [ab] was provided.");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ngram),         cmocka_unit_test(test_ngram_errors),
        cmocka_unit_test(test_edge_ngram),    cmocka_unit_test(test_pattern),
        cmocka_unit_test(test_pattern_replace), cmocka_unit_test(test_char_group),
        cmocka_unit_test(test_path_hierarchy), cmocka_unit_test(test_normalizers),
        cmocka_unit_test(test_analyzers),     cmocka_unit_test(test_simple_pattern),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
