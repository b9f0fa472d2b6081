/*
 * test_api_suggest.c — the term suggester through trove_request: exact
 * "suggest" sections (entries with UTF-16 offsets, options with Lucene's
 * float scores and doc freqs, their order), every option that changes the
 * answer (max_edits, prefix_length, suggest_mode, sort, size,
 * min_doc_freq, max_term_freq, min_word_length, string_distance), global
 * text, several suggestions (written sorted by name), typed_keys, the
 * reduce across two indices, size 0, the URL parameters, and the errors
 * OpenSearch gives.
 *
 * Where the expected values come from: no OpenSearch ran here. The single
 * index answers were produced by a throwaway Java program (not in the
 * repository) that indexes the same documents and calls Lucene's own
 * DirectSpellChecker (the packaged Lucene 4.10 jar, whose suggestSimilar,
 * ScoreTerm queue and comparators are the same code as Lucene 10's) with
 * the settings OpenSearch's DirectSpellcheckerSettings gives it
 * (lowerCaseTerms false, accuracy 0.5, max_inspections 5, ...); its scores
 * were then re-derived with Lucene 10's FuzzyTermsEnum formula
 * 1.0f - (float) ed / (float) min(cp(term), cp(word)) and printed with
 * Float.toString. Two things were derived from the OpenSearch 3.1 source
 * by hand instead: the merge of two indices (Suggest.Suggestion.reduce:
 * freq summed, score max, TermSuggestion.SCORE order), and the emoji token
 * of the multi-token case (Lucene 10's StandardTokenizer emits <EMOJI>
 * tokens; 4.10's does not). Error wording is OpenSearch 3.1's
 * (TermSuggestionBuilder, SuggestionBuilder, SuggestBuilder,
 * NamedXContentRegistry, RestSearchAction).
 */
#define API_TEST_MASK_TOOK
#include "api_test.h"

#define HEAD1 "{\"took\":0,\"timed_out\":false,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0},"

static int load(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/s",
       "{\"mappings\":{\"properties\":{\"body\":{\"type\":\"text\"},\"tag\":{\"type\":\"keyword\"},"
       "\"n\":{\"type\":\"integer\"}}}}");
    static const char *const docs[] = {"the quick brown fox", "quick brown dogs", "quack quick", "brown bread",
                                       "browne quickly", "tokens token toke", "token", "token taken",
                                       "caf\xc3\xa9 latte", "spelling speling", "spelling", "apple"};
    static const char *const tags[] = {"opensearch", "opensearch", "lucene"};
    char bulk[4096];
    size_t o = 0;
    for (int i = 0; i < 12; i++) {
        o += (size_t)snprintf(bulk + o, sizeof bulk - o, "{\"index\":{\"_id\":\"%d\"}}\n{\"body\":\"%s\"", i + 1, docs[i]);
        if (i < 3) o += (size_t)snprintf(bulk + o, sizeof bulk - o, ",\"tag\":\"%s\"", tags[i]);
        o += (size_t)snprintf(bulk + o, sizeof bulk - o, "}\n");
    }
    OK("POST", "/s/_bulk?refresh=true", bulk);
    OK("PUT", "/s2", "{\"mappings\":{\"properties\":{\"body\":{\"type\":\"text\"}}}}");
    OK("POST", "/s2/_bulk?refresh=true",
       "{\"index\":{\"_id\":\"1\"}}\n{\"body\":\"quick\"}\n{\"index\":{\"_id\":\"2\"}}\n{\"body\":\"quack attack\"}\n"
       "{\"index\":{\"_id\":\"3\"}}\n{\"body\":\"quirk\"}\n");
    return 0;
}

/* The response's "suggest" value (the text after "suggest": up to the
 * closing brace of the response), compared exactly. */
static void sugg_(const char *path, const char *body, const char *want, int line) {
    char *got;
    int st = req("POST", path, body, &got);
    const char *p = strstr(got, ",\"suggest\":");
    char *val = NULL;
    if (p) {
        p += strlen(",\"suggest\":");
        size_t n = strlen(p);
        val = strndup(p, n ? n - 1 : 0);
    }
    if (st != 200 || !val || strcmp(val, want) != 0)
        fail_msg("line %d: %s %s\n want 200 %s\n got  %d %s", line, path, body, want, st, got);
    free(val);
    free(got);
}
#define SUGG(path, body, want) sugg_((path), (body), (want), __LINE__)

/* {"suggest":{"t":{"text":TEXT,"term":{"field":"body" OPTS}}}} */
#define TERM(text, opts) "{\"size\":0,\"suggest\":{\"t\":{\"text\":\"" text "\",\"term\":{\"field\":\"body\"" opts "}}}}"
#define ENTRY(text, off, len, opts) \
    "{\"text\":\"" text "\",\"offset\":" #off ",\"length\":" #len ",\"options\":[" opts "]}"
#define OPT(text, score, freq) "{\"text\":\"" text "\",\"score\":" score ",\"freq\":" #freq "}"
#define ONE(entries) "{\"t\":[" entries "]}"

static void test_edits(void **s) {
    (void)s;
    /* a transposition is one edit (0.8); quack is two away (0.6) */
    SUGG("/s/_search", TERM("quikc", ""), ONE(ENTRY("quikc", 0, 5, OPT("quick", "0.8", 3) "," OPT("quack", "0.6", 1))));
    /* one and two edits from a 4-letter word: 1 - ed / 4 */
    SUGG("/s/_search", TERM("brwn", ""), ONE(ENTRY("brwn", 0, 4, OPT("brown", "0.75", 3) "," OPT("browne", "0.5", 1))));
    SUGG("/s/_search", TERM("brwn", ",\"max_edits\":1"), ONE(ENTRY("brwn", 0, 4, OPT("brown", "0.75", 3))));
    /* the score's float: 1 - 1/7 and 1 - 2/7 */
    SUGG("/s/_search", TERM("spellin", ""),
         ONE(ENTRY("spellin", 0, 7, OPT("spelling", "0.85714287", 2) "," OPT("speling", "0.71428573", 1))));
    /* the first letter must match (prefix_length 1), unless prefix_length 0
     * (the second pass still fixes one letter) */
    SUGG("/s/_search", TERM("wuick", ""), ONE(ENTRY("wuick", 0, 5, "")));
    SUGG("/s/_search", TERM("wuick", ",\"prefix_length\":0"), ONE(ENTRY("wuick", 0, 5, OPT("quick", "0.8", 3))));
    /* shorter than min_word_length: nothing */
    SUGG("/s/_search", TERM("tokes", ",\"min_word_length\":6"), ONE(ENTRY("tokes", 0, 5, "")));
    /* string distances: levenshtein counts the transposition twice and
     * drops quack (0.4 < accuracy); damerau_levenshtein equals internal */
    SUGG("/s/_search", TERM("quikc", ",\"string_distance\":\"levenshtein\""), ONE(ENTRY("quikc", 0, 5, OPT("quick", "0.6", 3))));
    SUGG("/s/_search", TERM("quikc", ",\"string_distance\":\"damerau_levenshtein\""),
         ONE(ENTRY("quikc", 0, 5, OPT("quick", "0.8", 3) "," OPT("quack", "0.6", 1))));
    /* a keyword field: the whole text is one token */
    SUGG("/s/_search", "{\"size\":0,\"suggest\":{\"t\":{\"text\":\"opensaerch\",\"term\":{\"field\":\"tag\"}}}}",
         ONE(ENTRY("opensaerch", 0, 10, OPT("opensearch", "0.9", 2))));
    /* a field without terms (a number): entries, no options */
    SUGG("/s/_search", "{\"size\":0,\"suggest\":{\"t\":{\"text\":\"12345\",\"term\":{\"field\":\"n\"}}}}",
         ONE(ENTRY("12345", 0, 5, "")));
}

static void test_modes(void **s) {
    (void)s;
    /* toke is in the index: missing gives nothing, popular only terms in
     * more docs, always everything */
    SUGG("/s/_search", TERM("toke", ""), ONE(ENTRY("toke", 0, 4, "")));
    SUGG("/s/_search", TERM("toke", ",\"suggest_mode\":\"popular\""), ONE(ENTRY("toke", 0, 4, OPT("token", "0.75", 3))));
    SUGG("/s/_search", TERM("toke", ",\"suggest_mode\":\"ALWAYS\""),
         ONE(ENTRY("toke", 0, 4, OPT("token", "0.75", 3) "," OPT("taken", "0.5", 1) "," OPT("tokens", "0.5", 1))));
    /* a word in more than max_term_freq of the docs is not corrected
     * (quick: 3 of 12 docs > ceil(0.01 * 12)); an absolute limit of 3 lets it */
    SUGG("/s/_search", TERM("quick", ",\"suggest_mode\":\"always\""), ONE(ENTRY("quick", 0, 5, "")));
    SUGG("/s/_search", TERM("quick", ",\"suggest_mode\":\"always\",\"max_term_freq\":3"),
         ONE(ENTRY("quick", 0, 5, OPT("quack", "0.8", 1) "," OPT("quickly", "0.6", 1))));
    /* min_doc_freq 2: candidates in more than 2 docs */
    SUGG("/s/_search", TERM("tokes", ",\"min_doc_freq\":2"), ONE(ENTRY("tokes", 0, 5, OPT("token", "0.8", 3))));
}

static void test_sort_size(void **s) {
    (void)s;
    SUGG("/s/_search", TERM("quicky", ""),
         ONE(ENTRY("quicky", 0, 6, OPT("quickly", "0.8333333", 1) "," OPT("quick", "0.8", 3) "," OPT("quack", "0.6", 1))));
    SUGG("/s/_search", TERM("quicky", ",\"sort\":\"frequency\""),
         ONE(ENTRY("quicky", 0, 6, OPT("quick", "0.8", 3) "," OPT("quickly", "0.8333333", 1) "," OPT("quack", "0.6", 1))));
    /* equal scores: the higher freq first, then the text */
    SUGG("/s/_search", TERM("tokes", ""),
         ONE(ENTRY("tokes", 0, 5,
                   OPT("token", "0.8", 3) "," OPT("tokens", "0.8", 1) "," OPT("toke", "0.75", 1) "," OPT("taken", "0.6", 1))));
    /* small queues (shard_size * max_inspections): a full queue skips
     * candidates that do not beat its least */
    SUGG("/s/_search", TERM("tokes", ",\"shard_size\":1,\"max_inspections\":1"), ONE(ENTRY("tokes", 0, 5, OPT("token", "0.8", 3))));
    SUGG("/s/_search", TERM("tokes", ",\"shard_size\":2,\"max_inspections\":1"),
         ONE(ENTRY("tokes", 0, 5, OPT("token", "0.8", 3) "," OPT("tokens", "0.8", 1))));
    SUGG("/s/_search", TERM("quicky", ",\"shard_size\":2,\"max_inspections\":1"),
         ONE(ENTRY("quicky", 0, 6, OPT("quickly", "0.8333333", 1) "," OPT("quick", "0.8", 3))));
    SUGG("/s/_search", TERM("tokes", ",\"size\":2"), ONE(ENTRY("tokes", 0, 5, OPT("token", "0.8", 3) "," OPT("tokens", "0.8", 1))));
}

static void test_tokens(void **s) {
    (void)s;
    /* naïve (5 UTF-16 units, 6 bytes), an emoji (2 units, 4 bytes; the
     * writer escapes it as a surrogate pair), then the misspelling at
     * UTF-16 offset 9 (byte 12) */
    SUGG("/s/_search", TERM("na\xc3\xafve \xf0\x9f\x98\x80 brwn", ""),
         ONE(ENTRY("na\xc3\xafve", 0, 5, "") "," ENTRY("\\uD83D\\uDE00", 6, 2, "") ","
             ENTRY("brwn", 9, 4, OPT("brown", "0.75", 3) "," OPT("browne", "0.5", 1))));
    /* the field's analyzer lower-cases; an explicit analyzer does not */
    SUGG("/s/_search", TERM("Brwn", ""), ONE(ENTRY("brwn", 0, 4, OPT("brown", "0.75", 3) "," OPT("browne", "0.5", 1))));
    SUGG("/s/_search", TERM("Brwn", ",\"analyzer\":\"whitespace\""), ONE(ENTRY("Brwn", 0, 4, "")));
    /* no tokens: no entries */
    SUGG("/s/_search", TERM("", ""), "{\"t\":[]}");
}

static void test_several(void **s) {
    (void)s;
    /* the global text serves suggestions without their own; the answer
     * lists them by name */
    SUGG("/s/_search",
         "{\"size\":0,\"suggest\":{\"text\":\"quikc\",\"zz\":{\"term\":{\"field\":\"body\"}},"
         "\"aa\":{\"text\":\"brwn\",\"term\":{\"field\":\"body\",\"size\":1}}}}",
         "{\"aa\":[" ENTRY("brwn", 0, 4, OPT("brown", "0.75", 3)) "],\"zz\":["
         ENTRY("quikc", 0, 5, OPT("quick", "0.8", 3) "," OPT("quack", "0.6", 1)) "]}");
    /* typed_keys */
    SUGG("/s/_search?typed_keys=true", TERM("brwn", ",\"size\":1"), "{\"term#t\":[" ENTRY("brwn", 0, 4, OPT("brown", "0.75", 3)) "]}");
    /* two indices: options merged by text, freqs summed, sorted by score
     * then freq (s2 alone: quick 0.8/1, quack 0.6/1, quirk 0.6/1) */
    SUGG("/s2/_search", TERM("quikc", ""),
         ONE(ENTRY("quikc", 0, 5, OPT("quick", "0.8", 1) "," OPT("quack", "0.6", 1) "," OPT("quirk", "0.6", 1))));
    SUGG("/s,s2/_search", TERM("quikc", ""),
         ONE(ENTRY("quikc", 0, 5, OPT("quick", "0.8", 4) "," OPT("quack", "0.6", 2) "," OPT("quirk", "0.6", 1))));
    SUGG("/s,s2/_search", TERM("quikc", ",\"size\":1"), ONE(ENTRY("quikc", 0, 5, OPT("quick", "0.8", 4))));
}

static void test_whole_body(void **s) {
    (void)s;
    /* size 0 with only a suggestion */
    EXPECT("POST", "/s/_search", TERM("brwn", ",\"size\":1"), 200,
           HEAD1 "\"hits\":{\"total\":{\"value\":12,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[]},\"suggest\":{\"t\":["
           ENTRY("brwn", 0, 4, OPT("brown", "0.75", 3)) "]}}");
    /* after the aggregations */
    EXPECT("POST", "/s/_search",
           "{\"size\":0,\"aggs\":{\"m\":{\"max\":{\"field\":\"n\"}}},\"suggest\":{\"t\":{\"text\":\"brwn\",\"term\":{\"field\":\"body\",\"size\":1}}}}",
           200,
           HEAD1 "\"hits\":{\"total\":{\"value\":12,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[]},"
                 "\"aggregations\":{\"m\":{\"value\":null}},\"suggest\":{\"t\":[" ENTRY("brwn", 0, 4, OPT("brown", "0.75", 3)) "]}}");
    /* with hits */
    EXPECT("POST", "/s/_search",
           "{\"_source\":false,\"query\":{\"match\":{\"body\":\"apple\"}},\"suggest\":{\"t\":{\"text\":\"aple\",\"term\":{\"field\":\"body\"}}}}",
           200,
           HEAD1 "\"hits\":{\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":1.2468152,\"hits\":[{\"_index\":\"s\",\"_id\":\"12\","
                 "\"_score\":1.2468152}]},\"suggest\":{\"t\":[" ENTRY("aple", 0, 4, OPT("apple", "0.75", 1)) "]}}");
}

static void test_url_params(void **s) {
    (void)s;
    /* RestSearchAction: a term suggestion named after the field */
    SUGG("/s/_search?size=0&suggest_field=body&suggest_text=quikc&suggest_mode=missing", NULL,
         "{\"body\":[" ENTRY("quikc", 0, 5, OPT("quick", "0.8", 3) "," OPT("quack", "0.6", 1)) "]}");
    SUGG("/s/_search?size=0&suggest_field=body&suggest_text=quikc&suggest_mode=always&suggest_size=1", NULL,
         "{\"body\":[" ENTRY("quikc", 0, 5, OPT("quick", "0.8", 3)) "]}");
    /* the text defaults to q (which also queries) */
    SUGG("/s/_search?q=quikc&suggest_field=body&suggest_mode=missing", NULL,
         "{\"body\":[" ENTRY("quikc", 0, 5, OPT("quick", "0.8", 3) "," OPT("quack", "0.6", 1)) "]}");
    /* the URL's suggestion replaces the body's */
    SUGG("/s/_search?suggest_field=body&suggest_text=brwn&suggest_mode=missing&suggest_size=1", TERM("quikc", ""),
         "{\"body\":[" ENTRY("brwn", 0, 4, OPT("brown", "0.75", 3)) "]}");
    /* SuggestMode.resolve(null): OpenSearch's NullPointerException */
    EXPECT_HAS("POST", "/s/_search?suggest_field=body&suggest_text=brwn", NULL, 500,
               "\"type\":\"null_pointer_exception\",\"reason\":\"Input string is null\"");
    EXPECT_HAS("POST", "/s/_search?suggest_field=body&suggest_text=brwn&suggest_mode=sometimes", NULL, 400,
               "\"reason\":\"No enum constant org.opensearch.search.suggest.term.TermSuggestionBuilder.SuggestMode.SOMETIMES\"");
    EXPECT_HAS("POST", "/s/_search?suggest_field=body&suggest_text=brwn&suggest_mode=missing&suggest_size=0", NULL, 400,
               "\"type\":\"illegal_argument_exception\",\"reason\":\"size must be positive\"");
    EXPECT_HAS("POST", "/s/_search?suggest_field=body&suggest_text=brwn&suggest_mode=missing&suggest_size=x", NULL, 400,
               "\"reason\":\"Failed to parse int parameter [suggest_size] with value [x]\"");
}

#define IAE(reason) \
    "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"" reason "\"}],\"type\":" \
    "\"illegal_argument_exception\",\"reason\":\"" reason "\"},\"status\":400}"
#define PE(reason, l, c)                                                                                     \
    "{\"error\":{\"root_cause\":[{\"type\":\"parsing_exception\",\"reason\":\"" reason "\",\"line\":" #l     \
    ",\"col\":" #c "}],\"type\":\"parsing_exception\",\"reason\":\"" reason "\",\"line\":" #l ",\"col\":" #c \
    "},\"status\":400}"
/* An IllegalArgumentException raised on the shard of index s. */
#define SPE_IAE(reason)                                                                                          \
    "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"" reason "\"}],\"type\":"     \
    "\"search_phase_execution_exception\",\"reason\":\"all shards failed\",\"phase\":\"query\",\"grouped\":true,"    \
    "\"failed_shards\":[{\"shard\":0,\"index\":\"s\",\"node\":\"X\",\"reason\":{\"type\":"                      \
    "\"illegal_argument_exception\",\"reason\":\"" reason "\"}}],\"caused_by\":{\"type\":"                          \
    "\"illegal_argument_exception\",\"reason\":\"" reason "\",\"caused_by\":{\"type\":"                            \
    "\"illegal_argument_exception\",\"reason\":\"" reason "\"}}},\"status\":400}"

/* An error body with the node id masked. */
static void err_(const char *body, int status, const char *want, int line) {
    char *got;
    int st = req("POST", "/s/_search", body, &got);
    char *p = strstr(got, "\"node\":\"");
    if (p) {
        p += 8;
        char *e = strchr(p, '"');
        if (e) memmove(p + 1, e, strlen(e) + 1), *p = 'X';
    }
    if (st != status || strcmp(got, want) != 0) fail_msg("line %d: %s\n want %d %s\n got  %d %s", line, body, status, want, st, got);
    free(got);
}
#define ERR(body, st, want) err_((body), (st), (want), __LINE__)

static void test_errors(void **s) {
    (void)s;
    ERR("{\"suggest\":{\"t\":{\"text\":\"x\",\"term\":{}}}}", 400,
        "{\"error\":{\"root_cause\":[{\"type\":\"parse_exception\",\"reason\":\"the required field option [field] is missing\"}],"
        "\"type\":\"parse_exception\",\"reason\":\"the required field option [field] is missing\"},\"status\":400}");
    ERR("{\"suggest\":{\"t\":{\"text\":\"x\"}}}", 400,
        "{\"error\":{\"root_cause\":[{\"type\":\"parse_exception\",\"reason\":\"missing suggestion object\"}],"
        "\"type\":\"parse_exception\",\"reason\":\"missing suggestion object\"},\"status\":400}");
    ERR("{\"suggest\":{\"t\":{\"text\":\"x\",\"term\":{\"field\":\"body\",\"foo\":1}}}}", 400,
        PE("suggester[term] doesn't support field [foo]", 1, 58));
    ERR("{\"suggest\":{\"t\":{\"text\":\"x\",\"term\":{\"field\":\"body\",\"size\":{}}}}}", 400,
        PE("suggester[term] parsing failed on [size]", 1, 59));
    ERR("{\"suggest\":{\"t\":{\"text\":\"x\",\"foo\":1,\"term\":{\"field\":\"body\"}}}}", 400,
        PE("suggestion does not support [foo]", 1, 35));
    ERR("{\"suggest\":{\"t\":{\"text\":\"x\",\"foo\":{\"field\":\"body\"}}}}", 400,
        "{\"error\":{\"root_cause\":[{\"type\":\"named_object_not_found_exception\",\"reason\":\"[1:35] unknown field [foo]\"}],"
        "\"type\":\"named_object_not_found_exception\",\"reason\":\"[1:35] unknown field [foo]\"},\"status\":400}");
    ERR("{\"suggest\":{\"t\":{\"text\":\"x\",\"phrase\":{\"field\":\"body\"}}}}", 400,
        "{\"error\":{\"root_cause\":[{\"type\":\"unsupported_operation_exception\",\"reason\":\"the [phrase] suggester is not supported by trove\"}],"
        "\"type\":\"unsupported_operation_exception\",\"reason\":\"the [phrase] suggester is not supported by trove\"},\"status\":400}");
    EXPECT_HAS("POST", "/s/_search", "{\"suggest\":{\"t\":{\"prefix\":\"x\",\"completion\":{\"field\":\"body\"}}}}", 400,
               "\"reason\":\"the [completion] suggester is not supported by trove\"");
    ERR("{\"suggest\":{\"size\":3}}", 400, IAE("[suggest] does not support [size]"));
    ERR("{\"suggest\":{\"t\":[]}}", 400, PE("unexpected token [START_ARRAY] after [t]", 1, 17));
    ERR("{\"suggest\":\"x\"}", 400, PE("Unknown key for a VALUE_STRING in [suggest].", 1, 12));
    ERR(TERM("x", ",\"max_edits\":3"), 400, IAE("maxEdits must be between 1 and 2"));
    ERR(TERM("x", ",\"size\":0"), 400, IAE("size must be positive"));
    ERR(TERM("x", ",\"accuracy\":2"), 400, IAE("accuracy must be between 0 and 1"));
    ERR(TERM("x", ",\"prefix_length\":-1"), 400, IAE("prefixLength must be positive"));
    ERR(TERM("x", ",\"min_word_length\":0"), 400, IAE("minWordLength must be greater or equal to 1"));
    ERR(TERM("x", ",\"max_inspections\":-1"), 400, IAE("maxInspections must be positive"));
    ERR(TERM("x", ",\"max_term_freq\":2.5"), 400, IAE("if maxTermFreq is greater than 1, it must not be a fraction"));
    ERR(TERM("x", ",\"min_doc_freq\":-1"), 400, IAE("minDocFreq must be positive"));
    ERR(TERM("x", ",\"sort\":\"alpha\""), 400, IAE("No enum constant org.opensearch.search.suggest.SortBy.ALPHA"));
    ERR(TERM("x", ",\"suggest_mode\":\"never\""), 400,
        IAE("No enum constant org.opensearch.search.suggest.term.TermSuggestionBuilder.SuggestMode.NEVER"));
    ERR(TERM("x", ",\"string_distance\":\"hamming\""), 400, IAE("Illegal distance option hamming"));
    EXPECT_HAS("POST", "/s/_search", TERM("x", ",\"string_distance\":\"jaro_winkler\""), 400,
               "\"type\":\"unsupported_operation_exception\",\"reason\":\"the [jaro_winkler] string_distance of the term suggester is not supported by trove\"");
    ERR("{\"suggest\":{\"t\":{\"text\":\"x\",\"term\":{\"field\":\"\"}}}}", 400, IAE("suggestion field name is empty"));
    /* raised on the shard */
    ERR("{\"suggest\":{\"t\":{\"text\":\"x\",\"term\":{\"field\":\"nope\"}}}}", 400, SPE_IAE("no mapping found for field [nope]"));
    ERR("{\"suggest\":{\"t\":{\"term\":{\"field\":\"body\"}}}}", 400, SPE_IAE("The required text option is missing"));
    ERR(TERM("x", ",\"analyzer\":\"nope\""), 400, SPE_IAE("analyzer [nope] doesn't exists"));
    /* max_inspections 0: DirectSpellChecker peeks into an empty queue at
     * the first candidate (a NullPointerException on the shard: 500) */
    EXPECT_HAS("POST", "/s/_search", TERM("quikc", ",\"max_inspections\":0"), 500,
               "\"failed_shards\":[{\"shard\":0,\"index\":\"s\"");
    EXPECT_HAS("POST", "/s/_search", TERM("quikc", ",\"max_inspections\":0"), 500,
               "\"type\":\"null_pointer_exception\",\"reason\":\"Cannot read field \\\"boost\\\" because the return value of "
               "\\\"java.util.PriorityQueue.peek()\\\" is null\"");
    /* _count takes no suggest */
    EXPECT_HAS("POST", "/s/_count", "{\"suggest\":{}}", 400, "\"reason\":\"request does not support [suggest]\"");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edits),   cmocka_unit_test(test_modes),      cmocka_unit_test(test_sort_size),
        cmocka_unit_test(test_tokens),  cmocka_unit_test(test_several),    cmocka_unit_test(test_whole_body),
        cmocka_unit_test(test_url_params), cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, load, teardown);
}
