/*
 * test_text_filters_more.c — the generic token filters of the catalog
 * (tf_*.c): ngram/edge_ngram, truncate, limit, unique, remove_duplicates,
 * keyword_marker/keyword_repeat/stemmer_override, pattern_replace/
 * pattern_capture, keep/keep_types, elision, apostrophe, decimal_digit,
 * fingerprint, common_grams, min_hash, multiplexer, delimited payloads,
 * and the refusals (condition, predicate_token_filter), each with OpenSearch's
 * error texts.
 *
 * Expected tokens marked "Lucene 4.10" came from Debian's Lucene 4.10 jars
 * through tests/analysis' LuceneOracle (the same spec and text), or through
 * jshell for common_grams and keep, which the oracle lacks; those
 * marked "Lucene 10" are for filters or options 4.10 lacks
 * (preserve_original, FingerprintFilter, MinHashFilter, CommonGrams
 * positionLength) and were derived by reading Lucene 10's filter source.
 */
#include "text_test.h"

#define W "word"
#define A "<ALPHANUM>"

/* A one-filter analyzer over `tokenizer` from an inline filter definition. */
static tv_analyzer *an1(const char *tokenizer, const char *filter_json, tv_error *err) {
    char json[2048];
    snprintf(json, sizeof json, "{\"filter\":{\"f\":%s}}", filter_json);
    tv_error_clear(err);
    return tv_analyzer_compose(NULL, json, strlen(json), tokenizer, (const char *[]){"f"}, 1, NULL,
                               0, err);
}

static void run1(const char *tokenizer, const char *filter_json, const char *text,
                 const exp_tok *exp) {
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = an1(tokenizer, filter_json, &err);
    if (!an) fprintf(stderr, "%s: %s\n", filter_json, err.reason);
    assert_non_null(an);
    check(an, text, exp);
    tv_analyzer_free(an);
}

/* A chain of filters by name, with inline definitions. */
static void runn(const char *inline_json, const char *tokenizer, const char *const *filters,
                 size_t n, const char *text, const exp_tok *exp) {
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = tv_analyzer_compose(NULL, inline_json, inline_json ? strlen(inline_json) : 0,
                                          tokenizer, filters, n, NULL, 0, &err);
    if (!an) fprintf(stderr, "%s\n", err.reason);
    assert_non_null(an);
    check(an, text, exp);
    tv_analyzer_free(an);
}

static void bad1(const char *filter_json, int code, const char *reason) {
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = an1("whitespace", filter_json, &err);
    if (an) fprintf(stderr, "accepted: %s\n", filter_json);
    assert_null(an);
    if (strcmp(err.reason, reason) != 0) fprintf(stderr, "reason: %s\n", err.reason);
    assert_int_equal(err.code, code);
    assert_string_equal(err.reason, reason);
}

static void t_ngram(void **s) {
    (void)s;
    /* Lucene 4.10 */
    run1("whitespace", "{\"type\":\"ngram\",\"min_gram\":1,\"max_gram\":2}", "abcd e",
         (exp_tok[]){{"a", W, 0, 0, 4}, {"ab", W, 0, 0, 4}, {"b", W, 0, 0, 4}, {"bc", W, 0, 0, 4},
                     {"c", W, 0, 0, 4}, {"cd", W, 0, 0, 4}, {"d", W, 0, 0, 4}, {"e", W, 1, 5, 6}, END});
    run1("whitespace", "{\"type\":\"ngram\",\"min_gram\":2,\"max_gram\":3}",
         "a quick f\xc3\xa9\xf0\x9d\x84\x9ex",
         (exp_tok[]){{"qu", W, 1, 2, 7}, {"qui", W, 1, 2, 7}, {"ui", W, 1, 2, 7}, {"uic", W, 1, 2, 7},
                     {"ic", W, 1, 2, 7}, {"ick", W, 1, 2, 7}, {"ck", W, 1, 2, 7},
                     {"f\xc3\xa9", W, 2, 8, 13}, {"f\xc3\xa9\xf0\x9d\x84\x9e", W, 2, 8, 13},
                     {"\xc3\xa9\xf0\x9d\x84\x9e", W, 2, 8, 13}, {"\xc3\xa9\xf0\x9d\x84\x9ex", W, 2, 8, 13},
                     {"\xf0\x9d\x84\x9ex", W, 2, 8, 13}, END});
    /* bare name: min 1, max 2 (Lucene 4.10) */
    runn(NULL, "whitespace", (const char *[]){"ngram"}, 1, "hey",
         (exp_tok[]){{"h", W, 0, 0, 3}, {"he", W, 0, 0, 3}, {"e", W, 0, 0, 3}, {"ey", W, 0, 0, 3},
                     {"y", W, 0, 0, 3}, END});
    /* preserve_original (Lucene 10): short kept, long after its grams */
    run1("whitespace", "{\"type\":\"ngram\",\"min_gram\":2,\"max_gram\":3,\"preserve_original\":true}",
         "a abcd",
         (exp_tok[]){{"a", W, 0, 0, 1}, {"ab", W, 1, 2, 6}, {"abc", W, 1, 2, 6}, {"bc", W, 1, 2, 6},
                     {"bcd", W, 1, 2, 6}, {"cd", W, 1, 2, 6}, {"abcd", W, 1, 2, 6}, END});
    /* a dropped short token's increment goes to the next (Lucene 10) */
    run1("whitespace", "{\"type\":\"ngram\",\"min_gram\":2,\"max_gram\":2}", "a bc",
         (exp_tok[]){{"bc", W, 1, 2, 4}, END});
    bad1("{\"type\":\"ngram\",\"min_gram\":1,\"max_gram\":5}", TROVE_EARG,
         "The difference between max_gram and min_gram in NGram Tokenizer must be less than or "
         "equal to: [1] but was [4]. This limit can be set by changing the [index.max_ngram_diff] "
         "index level setting.");
    bad1("{\"type\":\"ngram\",\"min_gram\":0,\"max_gram\":1}", TROVE_EARG, "minGram must be greater than zero");
    bad1("{\"type\":\"ngram\",\"min_gram\":3,\"max_gram\":2}", TROVE_EARG,
         "minGram must not be greater than maxGram");
    bad1("{\"type\":\"nGram\"}", TROVE_EARG,
         "The [nGram] token filter name was deprecated in 6.4 and cannot be used in new indices. "
         "Please change the filter name to [ngram] instead.");
    /* index.max_ngram_diff raises the limit */
    tv_error err = TV_ERROR_INIT;
    const char *json = "{\"filter\":{\"g\":{\"type\":\"ngram\",\"min_gram\":1,\"max_gram\":5}},"
                       "\"analyzer\":{\"a\":{\"tokenizer\":\"keyword\",\"filter\":[\"g\"]}}}";
    tv_analysis_limits lim = {.max_ngram_diff = 4, .max_shingle_diff = 3};
    tv_analysis *r = tv_analysis_new_limits(json, strlen(json), &lim, &err);
    assert_non_null(r);
    check(tv_analysis_get(r, "a", 1), "ab",
          (exp_tok[]){{"a", W, 0, 0, 2}, {"ab", W, 0, 0, 2}, {"b", W, 0, 0, 2}, END});
    /* an _analyze composed over the index reads its settings too */
    const char *inl = "{\"filter\":{\"h\":{\"type\":\"ngram\",\"min_gram\":1,\"max_gram\":4}}}";
    tv_analyzer *an = tv_analyzer_compose(r, inl, strlen(inl), "keyword", (const char *[]){"h"}, 1,
                                          NULL, 0, &err);
    assert_non_null(an);
    tv_analyzer_free(an);
    tv_analysis_free(r);
    assert_null(reg(json, &err));
}

static void t_edge_ngram(void **s) {
    (void)s;
    /* Lucene 4.10 */
    run1("whitespace", "{\"type\":\"edge_ngram\",\"min_gram\":1,\"max_gram\":3}",
         "quick b\xf0\x9d\x84\x9erown f",
         (exp_tok[]){{"q", W, 0, 0, 5}, {"qu", W, 0, 0, 5}, {"qui", W, 0, 0, 5}, {"b", W, 1, 6, 13},
                     {"b\xf0\x9d\x84\x9e", W, 1, 6, 13}, {"b\xf0\x9d\x84\x9er", W, 1, 6, 13},
                     {"f", W, 2, 14, 15}, END});
    run1("whitespace", "{\"type\":\"edge_ngram\",\"min_gram\":2,\"max_gram\":4,\"side\":\"back\"}",
         "quick brown",
         (exp_tok[]){{"ck", W, 0, 0, 5}, {"ick", W, 0, 0, 5}, {"uick", W, 0, 0, 5}, {"wn", W, 1, 6, 11},
                     {"own", W, 1, 6, 11}, {"rown", W, 1, 6, 11}, END});
    /* bare name: OpenSearch's pre-configured edge_ngram, grams of 1 (Lucene
     * 4.10's factory default, 1..2, differs) */
    runn(NULL, "whitespace", (const char *[]){"edge_ngram"}, 1, "quick brown",
         (exp_tok[]){{"q", W, 0, 0, 5}, {"b", W, 1, 6, 11}, END});
    /* Lucene 10: preserve_original; no max_ngram_diff limit for edge grams */
    run1("whitespace",
         "{\"type\":\"edge_ngram\",\"min_gram\":2,\"max_gram\":9,\"preserve_original\":true}",
         "a abc", (exp_tok[]){{"a", W, 0, 0, 1}, {"ab", W, 1, 2, 5}, {"abc", W, 1, 2, 5}, END});
    bad1("{\"type\":\"edge_ngram\",\"side\":\"middle\"}", TROVE_EARG, "invalid side: middle");
    bad1("{\"type\":\"edgeNGram\"}", TROVE_EARG,
         "The [edgeNGram] token filter name was deprecated in 6.4 and cannot be used in new "
         "indices. Please change the filter name to [edge_ngram] instead.");
}

static void t_truncate_limit(void **s) {
    (void)s;
    /* Lucene 4.10: length counts UTF-16 units */
    run1("whitespace", "{\"type\":\"truncate\",\"length\":3}", "quick brown fox a\xf0\x9d\x84\x9e" "bc",
         (exp_tok[]){{"qui", W, 0, 0, 5}, {"bro", W, 1, 6, 11}, {"fox", W, 2, 12, 15},
                     {"a\xf0\x9d\x84\x9e", W, 3, 16, 21}, END});
    bad1("{\"type\":\"truncate\"}", TROVE_EARG, "length parameter must be provided");
    runn(NULL, "keyword", (const char *[]){"truncate"}, 1, "abcdefghijkl", /* pre-configured: 10 */
         (exp_tok[]){{"abcdefghij", W, 0, 0, 12}, END});
    bad1("{\"type\":\"truncate\",\"length\":0}", TROVE_EARG, "length parameter must be provided");
    /* keyword-marked tokens are not cut */
    runn("{\"filter\":{\"k\":{\"type\":\"keyword_marker\",\"keywords\":[\"quick\"]},"
         "\"t\":{\"type\":\"truncate\",\"length\":2}}}",
         "whitespace", (const char *[]){"k", "t"}, 2, "quick brown",
         (exp_tok[]){{"quick", W, 0, 0, 5}, {"br", W, 1, 6, 11}, END});
    /* Lucene 4.10 */
    run1("whitespace", "{\"type\":\"limit\",\"max_token_count\":2,\"consume_all_tokens\":true}", "a b c d",
         (exp_tok[]){{"a", W, 0, 0, 1}, {"b", W, 1, 2, 3}, END});
    runn(NULL, "whitespace", (const char *[]){"limit"}, 1, "a b c d", (exp_tok[]){{"a", W, 0, 0, 1}, END});
    bad1("{\"type\":\"limit\",\"max_token_count\":0}", TROVE_EARG, "maxTokenCount must be greater than zero");
    bad1("{\"type\":\"limit\",\"consume_all_tokens\":\"yes\"}", TROVE_EARG,
         "Failed to parse value [yes] as only [true] or [false] are allowed.");
}

static void t_unique(void **s) {
    (void)s;
    /* Lucene 4.10 oracle (OpenSearch's UniqueTokenFilter) */
    runn(NULL, "whitespace", (const char *[]){"unique"}, 1, "a b a c b d",
         (exp_tok[]){{"a", W, 0, 0, 1}, {"b", W, 1, 2, 3}, {"c", W, 2, 6, 7}, {"d", W, 3, 10, 11}, END});
    run1("whitespace", "{\"type\":\"unique\",\"only_on_same_position\":true}", "a b a c b d",
         (exp_tok[]){{"a", W, 0, 0, 1}, {"b", W, 1, 2, 3}, {"a", W, 2, 4, 5}, {"c", W, 3, 6, 7},
                     {"b", W, 4, 8, 9}, {"d", W, 5, 10, 11}, END});
    /* Lucene 4.10: keyword_repeat, a stemmer, remove_duplicates */
    runn(NULL, "whitespace", (const char *[]){"keyword_repeat", "porter_stem", "remove_duplicates"}, 3,
         "running jumps the dog",
         (exp_tok[]){{"running", W, 0, 0, 7}, {"run", W, 0, 0, 7}, {"jumps", W, 1, 8, 13},
                     {"jump", W, 1, 8, 13}, {"the", W, 2, 14, 17}, {"dog", W, 3, 18, 21}, END});
}

static void t_keyword(void **s) {
    (void)s;
    /* Lucene 4.10 */
    runn("{\"filter\":{\"k\":{\"type\":\"keyword_marker\",\"keywords\":[\"running\"]}}}", "whitespace",
         (const char *[]){"k", "porter_stem"}, 2, "running jumps Running",
         (exp_tok[]){{"running", W, 0, 0, 7}, {"jump", W, 1, 8, 13}, {"Run", W, 2, 14, 21}, END});
    runn("{\"filter\":{\"k\":{\"type\":\"keyword_marker\",\"keywords\":\"running, jumps\",\"ignore_case\":true}}}",
         "whitespace", (const char *[]){"k", "porter_stem"}, 2, "running jumps Running",
         (exp_tok[]){{"running", W, 0, 0, 7}, {"jumps", W, 1, 8, 13}, {"Running", W, 2, 14, 21}, END});
    runn("{\"filter\":{\"k\":{\"type\":\"keyword_marker\",\"keywords_pattern\":\"run.*\"}}}", "whitespace",
         (const char *[]){"k", "porter_stem"}, 2, "running jumps xrunning",
         (exp_tok[]){{"running", W, 0, 0, 7}, {"jump", W, 1, 8, 13}, {"xrun", W, 2, 14, 22}, END});
    bad1("{\"type\":\"keyword_marker\"}", TROVE_EARG,
         "keyword filter requires either `keywords`, `keywords_path`, or `keywords_pattern` to be configured");
    bad1("{\"type\":\"keyword_marker\",\"keywords\":[\"a\"],\"keywords_pattern\":\"a\"}", TROVE_EARG,
         "cannot specify both `keywords_pattern` and `keywords` or `keywords_path`");
    bad1("{\"type\":\"keyword_marker\",\"keywords_path\":\"k.txt\"}", TROVE_EUNSUPPORTED,
         "[keywords_path] is not supported for [f]");
    /* Lucene 4.10 */
    runn("{\"filter\":{\"o\":{\"type\":\"stemmer_override\",\"rules\":[\"running, runs => run\","
         "\"stemmer => stemmer\",\"runs => xx\"]}}}",
         "whitespace", (const char *[]){"o", "porter_stem"}, 2, "running runs stemmer jumping",
         (exp_tok[]){{"run", W, 0, 0, 7}, {"run", W, 1, 8, 12}, {"stemmer", W, 2, 13, 20},
                     {"jump", W, 3, 21, 28}, END});
    bad1("{\"type\":\"stemmer_override\"}", TROVE_EARG,
         "stemmer override filter requires either `rules` or `rules_path` to be configured");
    bad1("{\"type\":\"stemmer_override\",\"rules\":[\"a => b => c\"]}", TROVE_ERUNTIME,
         "Invalid Keyword override Rule:a => b => c");
    bad1("{\"type\":\"stemmer_override\",\"rules\":[\"a, => b\"]}", TROVE_ERUNTIME,
         "Invalid Keyword override Rule:a, => b");
    bad1("{\"type\":\"stemmer_override\",\"rules\":[\"a => b, c\"]}", TROVE_ERUNTIME,
         "Invalid Keyword override Rule:a => b, c");
}

static void t_pattern(void **s) {
    (void)s;
    /* Lucene 4.10 */
    run1("whitespace", "{\"type\":\"pattern_replace\",\"pattern\":\"a\",\"replacement\":\"b\"}",
         "banana aaa xyz",
         (exp_tok[]){{"bbnbnb", W, 0, 0, 6}, {"bbb", W, 1, 7, 10}, {"xyz", W, 2, 11, 14}, END});
    run1("whitespace",
         "{\"type\":\"pattern_replace\",\"pattern\":\"(a)(n)\",\"replacement\":\"$2$1\",\"all\":false}",
         "banana", (exp_tok[]){{"bnaana", W, 0, 0, 6}, END});
    run1("whitespace", "{\"type\":\"pattern_replace\",\"pattern\":\"x*\",\"replacement\":\"-\"}", "abc xax",
         (exp_tok[]){{"-a-b-c-", W, 0, 0, 3}, {"--a--", W, 1, 4, 7}, END});
    /* no replacement: matches are removed; flags; Java's \p{Upper} */
    run1("whitespace", "{\"type\":\"pattern_replace\",\"pattern\":\"O\",\"flags\":\"CASE_INSENSITIVE\"}",
         "foo", (exp_tok[]){{"f", W, 0, 0, 3}, END});
    run1("whitespace", "{\"type\":\"pattern_replace\",\"pattern\":\"\\\\p{Upper}\",\"replacement\":\"\\\\$\"}",
         "aBcD", (exp_tok[]){{"a$c$", W, 0, 0, 4}, END});
    bad1("{\"type\":\"pattern_replace\"}", TROVE_EARG,
         "pattern is missing for [f] token filter of type 'pattern_replace'");
    bad1("{\"type\":\"pattern_replace\",\"pattern\":\"a\",\"flags\":\"FOO\"}", TROVE_EARG,
         "Unknown regex flag [FOO]");
    bad1("{\"type\":\"pattern_replace\",\"pattern\":\"(a)\",\"replacement\":\"$2\"}", TROVE_EINDEXBOUNDS,
         "No group 2");
    tv_error err = TV_ERROR_INIT;
    assert_null(an1("whitespace", "{\"type\":\"pattern_replace\",\"pattern\":\"(a\"}", &err));
    assert_int_equal(err.code, TROVE_EPATTERN);
    assert_non_null(strstr(err.reason, "near index"));
    /* Lucene 4.10 */
    run1("whitespace",
         "{\"type\":\"pattern_capture\",\"patterns\":[\"(\\\\p{Ll}+|\\\\p{Lu}\\\\p{Ll}+|\\\\p{Lu}+)\",\"(\\\\d+)\"]}",
         "MyHTTPService123 plain",
         (exp_tok[]){{"MyHTTPService123", W, 0, 0, 16}, {"My", W, 0, 0, 16}, {"HTTPS", W, 0, 0, 16},
                     {"ervice", W, 0, 0, 16}, {"123", W, 0, 0, 16}, {"plain", W, 1, 17, 22}, END});
    run1("whitespace",
         "{\"type\":\"pattern_capture\",\"patterns\":[\"(\\\\w+)@(\\\\w+)\\\\.com\"],\"preserve_original\":false}",
         "john@example.com nothing",
         (exp_tok[]){{"john", W, 0, 0, 16}, {"example", W, 0, 0, 16}, {"nothing", W, 1, 17, 24}, END});
    run1("whitespace", "{\"type\":\"pattern_capture\",\"patterns\":[\"([a-z]+)\",\"(\\\\d+)\"]}",
         "abc123def456 abc",
         (exp_tok[]){{"abc123def456", W, 0, 0, 12}, {"abc", W, 0, 0, 12}, {"123", W, 0, 0, 12},
                     {"def", W, 0, 0, 12}, {"456", W, 0, 0, 12}, {"abc", W, 1, 13, 16}, END});
    bad1("{\"type\":\"pattern_capture\"}", TROVE_EARG,
         "required setting 'patterns' is missing for token filter [f]");
}

static void t_keep(void **s) {
    (void)s;
    /* Lucene 4.10 (jshell) KeepWordFilter; TypeTokenFilter (FilteringTokenFilters: gaps kept) */
    run1("whitespace", "{\"type\":\"keep\",\"keep_words\":[\"one\",\"Two\"]}", "one two Two three one",
         (exp_tok[]){{"one", W, 0, 0, 3}, {"Two", W, 2, 8, 11}, {"one", W, 4, 18, 21}, END});
    run1("whitespace", "{\"type\":\"keep\",\"keep_words\":[\"one\",\"Two\"],\"keep_words_case\":true}",
         "one two Two ONE three",
         (exp_tok[]){{"one", W, 0, 0, 3}, {"two", W, 1, 4, 7}, {"Two", W, 2, 8, 11}, {"ONE", W, 3, 12, 15}, END});
    bad1("{\"type\":\"keep\"}", TROVE_EARG, "keep requires either `keep_words` or `keep_words_path` to be configured");
    bad1("{\"type\":\"keep\",\"keep_words\":[\"a\"],\"keep_words_path\":\"x\"}", TROVE_EARG,
         "keep requires either `keep_words` or `keep_words_path` to be configured");
    bad1("{\"type\":\"keep\",\"keep_words\":[\"a\"],\"enable_position_increments\":false}", TROVE_EARG,
         "enable_position_increments is not supported anymore. Please fix your analysis chain");
    run1("standard", "{\"type\":\"keep_types\",\"types\":[\"<NUM>\"]}", "abc 123 def 45",
         (exp_tok[]){{"123", "<NUM>", 1, 4, 7}, {"45", "<NUM>", 3, 12, 14}, END});
    run1("standard", "{\"type\":\"keep_types\",\"types\":[\"<NUM>\"],\"mode\":\"EXCLUDE\"}", "abc 123 def 45",
         (exp_tok[]){{"abc", A, 0, 0, 3}, {"def", A, 2, 8, 11}, END});
    bad1("{\"type\":\"keep_types\"}", TROVE_EARG, "keep_types requires `types` to be configured");
    bad1("{\"type\":\"keep_types\",\"types\":[\"a\"],\"mode\":\"both\"}", TROVE_EARG,
         "`keep_types` tokenfilter mode can only be [include] or [exclude] but was [both].");
}

static void t_elision_misc(void **s) {
    (void)s;
    /* Lucene 4.10 */
    run1("standard", "{\"type\":\"elision\",\"articles\":[\"l\",\"j\"]}",
         "l'avion j'ai L'avion d'abord l\xe2\x80\x99" "eau",
         (exp_tok[]){{"avion", A, 0, 0, 7}, {"ai", A, 1, 8, 12}, {"L'avion", A, 2, 13, 20},
                     {"d'abord", A, 3, 21, 28}, {"eau", A, 4, 29, 34}, END});
    run1("standard", "{\"type\":\"elision\",\"articles\":[\"l\",\"j\"],\"articles_case\":true}", "L'avion J'ai",
         (exp_tok[]){{"avion", A, 0, 0, 7}, {"ai", A, 1, 8, 12}, END});
    bad1("{\"type\":\"elision\"}", TROVE_EARG, "elision filter requires [articles] or [articles_path] setting");
    /* bare name: French articles, any case */
    runn(NULL, "standard", (const char *[]){"elision"}, 1, "L'avion qu'il Jusqu'ici",
         (exp_tok[]){{"avion", A, 0, 0, 7}, {"il", A, 1, 8, 13}, {"ici", A, 2, 14, 23}, END});
    /* Lucene 4.10 */
    runn(NULL, "whitespace", (const char *[]){"apostrophe"}, 1, "T\xc3\xbcrkiye'de it's o\xe2\x80\x99" "clock",
         (exp_tok[]){{"T\xc3\xbcrkiye", W, 0, 0, 10}, {"it", W, 1, 11, 15}, {"o", W, 2, 16, 23}, END});
    /* DecimalDigitFilter: Arabic-Indic, Devanagari and fullwidth digits */
    runn(NULL, "whitespace", (const char *[]){"decimal_digit"}, 1,
         "\xd9\xa1\xd9\xa2\xd9\xa3 x\xe0\xa5\xaf \xef\xbc\x95\xc2\xb2",
         (exp_tok[]){{"123", W, 0, 0, 3}, {"x9", W, 1, 4, 6}, {"5\xc2\xb2", W, 2, 7, 9}, END});
    /* classic leaves standard-tokenizer types alone */
    runn(NULL, "standard", (const char *[]){"classic"}, 1, "John's I.B.M",
         (exp_tok[]){{"John's", A, 0, 0, 6}, {"I.B.M", A, 1, 7, 12}, END});
    /* payloads are parsed, stripped */
    run1("whitespace", "{\"type\":\"delimited_payload\",\"delimiter\":\"+\",\"encoding\":\"int\"}", "the+1 quick",
         (exp_tok[]){{"the", W, 0, 0, 5}, {"quick", W, 1, 6, 11}, END});
    runn(NULL, "whitespace", (const char *[]){"delimited_termfreq"}, 1, "a|3 b",
         (exp_tok[]){{"a", W, 0, 0, 3}, {"b", W, 1, 4, 5}, END});
    bad1("{\"type\":\"delimited_termfreq\",\"delimiter\":\"ab\"}", TROVE_EARG,
         "Setting [delimiter] must be a single, non-null character. [ab] was provided.");
    /* lowercase's language */
    bad1("{\"type\":\"lowercase\",\"language\":\"french\"}", TROVE_EARG,
         "language [french] not support for lower case");
}

static void t_fingerprint(void **s) {
    (void)s;
    /* Lucene 10's FingerprintFilter: sorted, distinct, offsets 0..end of text */
    runn(NULL, "whitespace", (const char *[]){"fingerprint"}, 1, "the quick the Brown fox ",
         (exp_tok[]){{"Brown fox quick the", "fingerprint", 0, 0, 24}, END});
    run1("whitespace", "{\"type\":\"fingerprint\",\"separator\":\"+\",\"max_output_size\":9}", "b a b",
         (exp_tok[]){{"a+b", "fingerprint", 0, 0, 5}, END});
    run1("whitespace", "{\"type\":\"fingerprint\",\"max_output_size\":2}", "b a", (exp_tok[]){END});
    runn(NULL, "whitespace", (const char *[]){"fingerprint"}, 1, "  ", (exp_tok[]){END});
    bad1("{\"type\":\"fingerprint\",\"separator\":\"ab\"}", TROVE_EARG,
         "Setting [separator] must be a single, non-null character. [ab] was provided.");
}

static void t_common_grams(void **s) {
    (void)s;
    /* Lucene 4.10 (jshell) CommonGramsFilter / CommonGramsQueryFilter; positionLength 2 */
    run1("whitespace", "{\"type\":\"common_grams\",\"common_words\":[\"the\",\"is\"]}", "the fox is fast",
         (exp_tok[]){{"the", W, 0, 0, 3}, {"the_fox", "gram", 0, 0, 7}, {"fox", W, 1, 4, 7},
                     {"fox_is", "gram", 1, 4, 10}, {"is", W, 2, 8, 10}, {"is_fast", "gram", 2, 8, 15},
                     {"fast", W, 3, 11, 15}, END});
    run1("whitespace",
         "{\"type\":\"common_grams\",\"common_words\":[\"the\",\"is\"],\"query_mode\":true,\"ignore_case\":true}",
         "The fox is fast",
         (exp_tok[]){{"The_fox", "gram", 0, 0, 7}, {"fox_is", "gram", 1, 4, 10}, {"is_fast", "gram", 2, 8, 15}, END});
    run1("whitespace", "{\"type\":\"common_grams\",\"common_words\":\"the\",\"query_mode\":true}", "fox runs the",
         (exp_tok[]){{"fox", W, 0, 0, 3}, {"runs_the", "gram", 1, 4, 12}, END});
    runn(NULL, "whitespace", (const char *[]){"common_grams"}, 1, "a b", /* pre-configured: no words */
         (exp_tok[]){{"a", W, 0, 0, 1}, {"b", W, 1, 2, 3}, END});
    bad1("{\"type\":\"common_grams\"}", TROVE_EARG,
         "missing or empty [common_words] or [common_words_path] configuration for common_grams token filter");
}

static void t_min_hash(void **s) {
    (void)s;
    tv_error err = TV_ERROR_INIT;
    tv_analyzer *an = an1("whitespace", "{\"type\":\"min_hash\",\"bucket_count\":4}", &err);
    assert_non_null(an);
    tv_arena a;
    tv_arena_init(&a);
    tv_tokens t;
    assert_int_equal(tv_analyze(an, &a, "a b c", 5, 0, &t), TROVE_OK);
    /* rotation fills every bucket: one token each, all at position 0 */
    assert_int_equal(t.len, 4);
    for (size_t i = 0; i < t.len; i++) {
        assert_string_equal(tv_token_type_name(t.items[i].type), "MIN_HASH");
        assert_int_equal(t.items[i].position, 0);
        assert_int_equal(t.items[i].end16, 5);
    }
    tv_tokens t2; /* deterministic */
    assert_int_equal(tv_analyze(an, &a, "a b c", 5, 0, &t2), TROVE_OK);
    assert_memory_equal(t.items[0].term, t2.items[0].term, t.items[0].term_len);
    tv_arena_fini(&a);
    tv_analyzer_free(an);
    bad1("{\"type\":\"min_hash\",\"hash_count\":0}", TROVE_EARG, "hashCount must be greater than zero");
    bad1("{\"type\":\"min_hash\",\"bucket_count\":0}", TROVE_EARG, "bucketCount must be greater than zero");
    bad1("{\"type\":\"min_hash\",\"hash_set_size\":0}", TROVE_EARG, "hashSetSize must be greater than zero");
}

static void t_bare_requires_settings(void **s) {
    (void)s;
    static const char *const names[] = {"keep", "keep_types", "keyword_marker", "pattern_replace",
                                        "pattern_capture", "stemmer_override", "condition",
                                        "predicate_token_filter", "hunspell"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        tv_error err = TV_ERROR_INIT;
        assert_null(tv_analyzer_compose(NULL, NULL, 0, "whitespace", &names[i], 1, NULL, 0, &err));
        assert_int_equal(err.code, TROVE_EARG);
        assert_string_equal(err.reason, "Analysis settings required - can't instantiate analysis factory");
    }
    /* a bare multiplexer has only the original */
    runn(NULL, "whitespace", (const char *[]){"multiplexer"}, 1, "a", (exp_tok[]){{"a", W, 0, 0, 1}, END});
}

static void t_multiplexer(void **s) {
    (void)s;
    const char *inl = "{\"filter\":{\"m\":{\"type\":\"multiplexer\",\"filters\":[\"lowercase\","
                      "\"lowercase, porter_stem\"]}}}";
    runn(inl, "whitespace", (const char *[]){"m"}, 1, "Running dogs",
         (exp_tok[]){{"Running", W, 0, 0, 7}, {"running", W, 0, 0, 7}, {"run", W, 0, 0, 7},
                     {"dogs", W, 1, 8, 12}, {"dog", W, 1, 8, 12}, END});
    /* a branch may name a filter defined after the multiplexer */
    inl = "{\"filter\":{\"a_mux\":{\"type\":\"multiplexer\",\"filters\":[\"z_up\"],\"preserve_original\":false},"
          "\"z_up\":{\"type\":\"uppercase\"}}}";
    runn(inl, "whitespace", (const char *[]){"a_mux"}, 1, "ab", (exp_tok[]){{"AB", W, 0, 0, 2}, END});
    bad1("{\"type\":\"multiplexer\",\"filters\":[\"nope\"]}", TROVE_EARG,
         "Multiplexing filter [f] refers to undefined tokenfilter [nope]");
    /* the text layer alone has no Painless: the api layer registers it
     * (test_api_analysis_scripting.c runs these filters) */
    bad1("{\"type\":\"condition\",\"filter\":[\"lowercase\"],\"script\":{\"source\":\"true\"}}",
         TROVE_EUNSUPPORTED, "filter [condition] is not supported: no Painless engine is registered for analysis");
    bad1("{\"type\":\"predicate_token_filter\",\"script\":{\"source\":\"true\"}}", TROVE_EUNSUPPORTED,
         "filter [predicate_token_filter] is not supported: no Painless engine is registered for analysis");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_ngram),          cmocka_unit_test(t_edge_ngram),
        cmocka_unit_test(t_truncate_limit), cmocka_unit_test(t_unique),
        cmocka_unit_test(t_keyword),        cmocka_unit_test(t_pattern),
        cmocka_unit_test(t_keep),           cmocka_unit_test(t_elision_misc),
        cmocka_unit_test(t_fingerprint),    cmocka_unit_test(t_common_grams),
        cmocka_unit_test(t_min_hash),       cmocka_unit_test(t_multiplexer),
        cmocka_unit_test(t_bare_requires_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
