/* test_text_classic_url_html.c — the `classic` and `uax_url_email`
 * tokenizers and the `html_strip` char filter: tokens (terms, types,
 * positions, UTF-16 offsets), filtered text, settings and their errors,
 * bare-name defaults.
 *
 * Expected tokens come from Lucene 4.10 (ClassicTokenizer,
 * UAX29URLEmailTokenizer, HTMLStripCharFilter run through
 * tests/analysis/LuceneOracle.java on Debian's jars), except where a
 * comment names a Lucene 10 behaviour 4.10 lacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "text_test.h"

/* A registry with analyzer "a": tokenizer `tok` (a name or a JSON object),
 * char filter `cf` (a name, a JSON object, or NULL), filters `tf` (a JSON
 * array or NULL). */
static tv_analysis *chain(const char *tok, const char *cf, const char *tf) {
    char json[4096];
    bool obj = tok[0] == '{', cobj = cf && cf[0] == '{';
    snprintf(json, sizeof json,
             "{%s%s%s%s%s%s\"analyzer\":{\"a\":{\"tokenizer\":\"%s\"%s%s%s%s%s}}}",
             obj ? "\"tokenizer\":{\"t\":" : "", obj ? tok : "", obj ? "}," : "",
             cobj ? "\"char_filter\":{\"c\":" : "", cobj ? cf : "", cobj ? "}," : "",
             obj ? "t" : tok, cf ? ",\"char_filter\":[\"" : "", cf ? (cobj ? "c" : cf) : "",
             cf ? "\"]" : "", tf ? ",\"filter\":" : "", tf ? tf : "");
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg(json, &err);
    if (!r) fprintf(stderr, "rejected: %s: %s\n", json, err.reason);
    assert_non_null(r);
    return r;
}

static void run(const char *tok, const char *cf, const char *tf, const char *text, const exp_tok *exp) {
    tv_analysis *r = chain(tok, cf, tf);
    check(tv_analysis_get(r, "a", 1), text, exp);
    tv_analysis_free(r);
}

/* The text html_strip makes of `in` (the keyword tokenizer's one token). */
static void strip(const char *cf, const char *in, const char *want, int end16) {
    exp_tok exp[] = {{want, "word", 0, 0, end16}, END};
    run("keyword", cf, NULL, in, want[0] ? exp : exp + 1);
}

static void test_classic(void **state) {
    (void)state;
    const char *text = "O'Reilly's U.S.A. AT&T joe.bloggs@example.co.uk www.abc.com. x-1 21.35 "
                       "\xe4\xb8\xad\xe6\x96\x87 \xed\x95\x9c\xea\xb5\xad \xc8\xa1";
    exp_tok exp[] = {
        {"O'Reilly's", "<APOSTROPHE>", 0, 0, 10},
        {"U.S.A.", "<ACRONYM>", 1, 11, 17},
        {"AT&T", "<COMPANY>", 2, 18, 22},
        {"joe.bloggs@example.co.uk", "<EMAIL>", 3, 23, 47},
        /* ACRONYM_DEP: typed <HOST>, the last dot dropped from the term only */
        {"www.abc.com", "<HOST>", 4, 48, 60},
        {"x-1", "<NUM>", 5, 61, 64},
        {"21.35", "<HOST>", 6, 65, 70},
        {"\xe4\xb8\xad", "<CJ>", 7, 71, 72},
        {"\xe6\x96\x87", "<CJ>", 8, 72, 73},
        /* Hangul is a letter; U+0221 (Unicode 4.0) is not one in Lucene's Unicode 3.0 grammar */
        {"\xed\x95\x9c\xea\xb5\xad", "<ALPHANUM>", 9, 74, 76},
        END};
    run("classic", NULL, NULL, text, exp);
    /* the YAML test's sentence, and the classic filter on the types */
    exp_tok yaml[] = {{"Brown", "<ALPHANUM>", 0, 0, 5}, {"Foxes", "<ALPHANUM>", 1, 6, 11},
                      {"don't", "<APOSTROPHE>", 2, 12, 17}, {"jump", "<ALPHANUM>", 3, 18, 22}, END};
    run("{\"type\":\"classic\"}", NULL, NULL, "Brown-Foxes don't jump.", yaml);
    exp_tok filt[] = {{"O'Reilly", "<APOSTROPHE>", 0, 0, 10}, {"USA", "<ACRONYM>", 1, 11, 17},
                      {"R2D2", "<ALPHANUM>", 2, 18, 22}, END};
    run("classic", NULL, "[\"classic\"]", "O'Reilly's U.S.A. R2D2", filt);
    /* a token longer than max_token_length is skipped, its position kept */
    exp_tok longer[] = {{"short", "<ALPHANUM>", 0, 0, 5}, {"ok", "<ALPHANUM>", 2, 14, 16}, END};
    run("{\"type\":\"classic\",\"max_token_length\":5}", NULL, NULL, "short toolong ok abcdefgh", longer);
    expect_error("{\"tokenizer\":{\"t\":{\"type\":\"classic\",\"max_token_length\":0}}}", TROVE_EARG,
                 "maxTokenLength must be greater than zero");
}

static void test_uax_url_email(void **state) {
    (void)state;
    const char *text = "Visit https://www.example.org/a?b=c#d or mail Joe.Bloggs@example.co.uk, "
                       "mailto:x@y.org [::1]:8080/p 10.0.0.1 ftp://u@h/f;type=a example.com-foo";
    exp_tok exp[] = {
        {"Visit", "<ALPHANUM>", 0, 0, 5},
        {"https://www.example.org/a?b=c#d", "<URL>", 1, 6, 37},
        {"or", "<ALPHANUM>", 2, 38, 40},
        {"mail", "<ALPHANUM>", 3, 41, 45},
        {"Joe.Bloggs@example.co.uk", "<EMAIL>", 4, 46, 70},
        {"mailto", "<ALPHANUM>", 5, 72, 78},
        {"x@y.org", "<EMAIL>", 6, 79, 86},
        {"[::1]:8080/p", "<URL>", 7, 87, 99},
        {"10.0.0.1", "<URL>", 8, 100, 108},
        {"ftp://u@h/f;type=a", "<URL>", 9, 109, 127},
        /* a host glued to a word character is no URL */
        {"example.com", "<ALPHANUM>", 10, 128, 139},
        {"foo", "<ALPHANUM>", 11, 140, 143},
        END};
    run("uax_url_email", NULL, NULL, text, exp);
    exp_tok yaml[] = {{"Email", "<ALPHANUM>", 0, 0, 5}, {"me", "<ALPHANUM>", 1, 6, 8},
                      {"at", "<ALPHANUM>", 2, 9, 11},
                      {"john.smith@global-international.com", "<EMAIL>", 3, 12, 47}, END};
    run("{\"type\":\"uax_url_email\"}", NULL, NULL, "Email me at john.smith@global-international.com", yaml);
    /* the standard tokenizer's words in between, and its cut at max_token_length */
    exp_tok cut[] = {{"see", "<ALPHANUM>", 0, 0, 3},     {"http://exa", "<URL>", 1, 4, 14},
                     {"mple.org/p", "<URL>", 2, 14, 24}, {"ath", "<ALPHANUM>", 3, 24, 27},
                     {"ok", "<ALPHANUM>", 4, 28, 30},    END};
    run("{\"type\":\"uax_url_email\",\"max_token_length\":10}", NULL, NULL, "see http://example.org/path ok",
        cut);
    /* Lucene 10 (LUCENE-8278; 4.10 differs): a TLD one letter longer than another at the end */
    exp_tok end[] = {{"see", "<ALPHANUM>", 0, 0, 3}, {"x.com", "<URL>", 1, 4, 9}, END};
    run("uax_url_email", NULL, NULL, "see x.com", end);
    /* an IP address glued to a digit is a number */
    exp_tok ip[] = {{"1.2.3.43", "<NUM>", 0, 0, 8}, END};
    run("uax_url_email", NULL, NULL, "1.2.3.43", ip);
    expect_error("{\"tokenizer\":{\"t\":{\"type\":\"uax_url_email\",\"max_token_length\":-1}}}",
                 TROVE_EARG, "maxTokenLength must be greater than zero");
    expect_error("{\"tokenizer\":{\"t\":{\"type\":\"uax_url_email\",\"max_token_length\":2000000}}}",
                 TROVE_EARG, "maxTokenLength may not exceed 1048576");
}

static void test_html_strip(void **state) {
    (void)state;
    strip("html_strip",
          "<p class=\"x\">Hello &amp; <b>caf&eacute;</b><!-- c --> &#x41;&#66;<br/>x</p>",
          "\nHello & caf\xc3\xa9 AB\nx\n", 75);
    strip("html_strip",
          "a <script>var a = \"<b>\";</script> b <style>p{}</style> c <![CDATA[<d>]]> &lt;e&gt; "
          "&notin; &nbsp;f",
          "a \n b \n c <d> <e> \xe2\x88\x89  f", 98);
    /* the end of the text: an open tag is removed, an entity without ';' decoded */
    strip("html_strip", "end <b", "end ", 6);
    strip("html_strip", "end &amp", "end &", 8);
    /* not constructs: kept as text */
    strip("html_strip", "a < b &notit; &#x; <p", "a < b &notit; &#x; ", 21);
    /* the YAML test: escaped tags stay */
    strip("{\"type\":\"html_strip\",\"escaped_tags\":[\"xxx\",\"yyy\"],\"read_ahead\":1024}",
          "<html>test<yyy>foo</yyy></html>", "\ntest<yyy>foo</yyy>\n", 31);
    /* a comma-separated list; an escaped script keeps its tags, not its content */
    strip("{\"type\":\"html_strip\",\"escaped_tags\":\"b, script\"}",
          "<b>bold</b> <script>x</script> <i>it</i>", "<b>bold</b> <script></script> it", 40);
    /* offsets point into the HTML */
    exp_tok exp[] = {{"Hello", "<ALPHANUM>", 0, 13, 18}, {"caf\xc3\xa9", "<ALPHANUM>", 1, 28, 53},
                     {"AB", "<ALPHANUM>", 2, 54, 65},    {"x", "<ALPHANUM>", 3, 70, 71}, END};
    run("standard", "html_strip", NULL,
        "<p class=\"x\">Hello &amp; <b>caf&eacute;</b><!-- c --> &#x41;&#66;<br/>x</p>", exp);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classic),
        cmocka_unit_test(test_uax_url_email),
        cmocka_unit_test(test_html_strip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
