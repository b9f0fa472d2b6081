/*
 * test_api_highlight.c — the _search `highlight` option through
 * trove_request: the unified highlighter's passages (sentence boundaries,
 * fragment_size through BoundedBreakIteratorScanner, number_of_fragments,
 * order score, no_match_size, multi-valued fields, UTF-16 offsets), the
 * plain highlighter's fragments, tags, the html encoder, which query terms
 * highlight (match, phrase, prefix, wildcard, highlight_query,
 * require_field_match), wildcard field names, where "highlight" sits in a
 * hit, and the errors.
 *
 * Expected bodies were not produced by a running OpenSearch: each is
 * derived by hand from OpenSearch 3.x's sources (CustomUnifiedHighlighter,
 * CustomFieldHighlighter.highlightOffsetsEnums, BoundedBreakIteratorScanner,
 * CustomPassageFormatter, UnifiedHighlighter, PlainHighlighter,
 * HighlightBuilder, HighlightPhase) and Lucene's (SplittingBreakIterator,
 * PassageScorer, Highlighter.getBestTextFragments, SimpleSpanFragmenter,
 * SimpleHTMLEncoder); the sentence boundaries of every test string were
 * checked with java.text.BreakIterator.getSentenceInstance(Locale.ROOT) on
 * OpenJDK 17. The derivations of the less obvious ones are in comments.
 */
#define API_TEST_MASK_TOOK
#include "api_test.h"

/* The `"highlight":{...}` object of the first hit (malloc'd), or NULL. */
static char *hl_of(const char *body) {
    const char *p = strstr(body, "\"highlight\":");
    if (!p) return NULL;
    const char *q = p + strlen("\"highlight\":");
    int depth = 0;
    bool in_str = false;
    for (; *q; q++) {
        if (in_str) {
            if (*q == '\\') q++;
            else if (*q == '"') in_str = false;
            continue;
        }
        if (*q == '"') in_str = true;
        else if (*q == '{') depth++;
        else if (*q == '}' && --depth == 0) break;
    }
    size_t n = (size_t)(q - p) + 1;
    char *s = malloc(n + 1);
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

/* A search whose first hit's highlight must be exactly want (NULL: none). */
#define HL(path, body, want)                                                                       \
    do {                                                                                           \
        char *got_;                                                                                \
        int s_ = req("POST", (path), (body), &got_);                                              \
        char *h_ = hl_of(got_);                                                                    \
        const char *w_ = (want);                                                                   \
        if (s_ != 200 || (w_ ? !h_ || strcmp(h_, w_) != 0 : h_ != NULL))                           \
            fail_msg("%s\n want 200 %s\n got  %d %s", (body), w_ ? w_ : "(no highlight)", s_, got_); \
        free(h_);                                                                                  \
        free(got_);                                                                                \
    } while (0)

#define FOX "The quick brown fox jumps over the lazy dog. The dog sleeps. A fox is quick!"

static int load(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/h",
       "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\"},\"k\":{\"type\":\"keyword\"},\"n\":{\"type\":\"long\"},"
       "\"title\":{\"type\":\"text\"},\"tags\":{\"type\":\"text\"}}}}");
    OK("POST", "/h/_bulk?refresh=true",
       "{\"index\":{\"_id\":\"1\"}}\n{\"t\":\"" FOX "\",\"title\":\"Quick start\",\"k\":\"brown fox\",\"n\":5,"
       "\"tags\":[\"red fox\",\"blue bird\",\"fox and dog\"]}\n"
       "{\"index\":{\"_id\":\"2\"}}\n{\"t\":\"Use <b> & \\\"quotes\\\" or 'single' in a/b fox.\",\"title\":\"Fox\"}\n"
       "{\"index\":{\"_id\":\"3\"}}\n{\"t\":\"Caf\xc3\xa9 \xc3\xbc" "ber na\xc3\xafve \xf0\x9f\x98\x80 fox emoji. \xc3\x9cn\xc3\xaf" "code fox again.\",\"k\":\"fox\"}\n"
       "{\"index\":{\"_id\":\"4\"}}\n{\"t\":\"One fox. Two fox fox.\"}\n"
       "{\"index\":{\"_id\":\"5\"}}\n{\"t\":\"Mr. Smith met e.g. a fox. Then he left! the end? Yes\"}\n");
    OK("PUT", "/m", "{\"settings\":{\"index.highlight.max_analyzed_offset\":10},\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\"}}}}");
    OK("POST", "/m/_bulk?refresh=true", "{\"index\":{\"_id\":\"a\"}}\n{\"t\":\"a fox in a rather long text\"}\n");
    return 0;
}

#define Q1 "{\"_source\":false,\"query\":{\"ids\":{\"values\":[\"1\"]}},"
#define HQ(q) "\"highlight_query\":" q
#define MFOX "{\"match\":{\"t\":\"fox\"}}"

static void test_unified_defaults(void **s) {
    (void)s;
    /* 76 chars: the scanner grows the first sentence's window while it
     * stays <= fragment_size 100, so one passage holds all three sentences */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"bool\":{\"filter\":{\"ids\":{\"values\":[\"1\"]}},\"must\":{\"match\":{\"t\":\"fox\"}}}},"
                     "\"highlight\":{\"fields\":{\"t\":{}}}}",
       "\"highlight\":{\"t\":[\"The quick brown <em>fox</em> jumps over the lazy dog. The dog sleeps. A <em>fox</em> is quick!\"]}");
    /* where it goes: after _source, before sort */
    EXPECT("POST", "/h/_search",
           "{\"query\":{\"match\":{\"title\":\"start\"}},\"_source\":[\"title\"],\"sort\":[\"n\"],\"highlight\":{\"fields\":{\"title\":{}}}}", 200,
           "{\"took\":0,\"timed_out\":false,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0},"
           "\"hits\":{\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[{\"_index\":\"h\",\"_id\":\"1\",\"_score\":null,"
           "\"_source\":{\"title\":\"Quick start\"},\"highlight\":{\"title\":[\"Quick <em>start</em>\"]},\"sort\":[5]}]}}");
    /* a hit whose fields have no term of the query: no "highlight" key */
    HL("/h/_search", Q1 "\"highlight\":{\"fields\":{\"t\":{}}}}", NULL);
}

static void test_fragment_size(void **s) {
    (void)s;
    /* sentences [0,45) [45,61) [61,76). fox@16: window [0,45) > 20, so
     * remaining = 20 - 17 = 3 and the end is the word boundary after 20
     * (25); fox@63: window [61,76) fits */
    HL("/h/_search", Q1 "\"highlight\":{\"fields\":{\"t\":{\"fragment_size\":20," HQ(MFOX) "}}}}",
       "\"highlight\":{\"t\":[\"The quick brown <em>fox</em> jumps\",\"A <em>fox</em> is quick!\"]}");
    /* number_of_fragments 1 keeps the better passage: the shorter one
     * ("A fox is quick!", 15 chars) scores above the first (25 chars) */
    HL("/h/_search", Q1 "\"highlight\":{\"fields\":{\"t\":{\"fragment_size\":20,\"number_of_fragments\":1," HQ(MFOX) "}}}}",
       "\"highlight\":{\"t\":[\"A <em>fox</em> is quick!\"]}");
    /* number_of_fragments 0: the whole value */
    HL("/h/_search", Q1 "\"highlight\":{\"fields\":{\"t\":{\"fragment_size\":20,\"number_of_fragments\":0," HQ(MFOX) "}}}}",
       "\"highlight\":{\"t\":[\"The quick brown <em>fox</em> jumps over the lazy dog. The dog sleeps. A <em>fox</em> is quick!\"]}");
    /* fragment_size 0: plain sentences */
    HL("/h/_search", Q1 "\"highlight\":{\"fields\":{\"t\":{\"fragment_size\":0," HQ("{\"match\":{\"t\":\"dog\"}}") "}}}}",
       "\"highlight\":{\"t\":[\"The quick brown fox jumps over the lazy <em>dog</em>.\",\"The <em>dog</em> sleeps.\"]}");
    /* Java's sentence rules: "Mr. Smith" breaks (capital after the space),
     * "e.g. a" does not (lower case), "left! the" does (! always), "end? Yes"
     * does: [0,4) [4,26) [26,40) [40,49) [49,52) (Java 17 agrees) */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"ids\":{\"values\":[\"5\"]}},\"highlight\":{\"fields\":{\"t\":{\"fragment_size\":0,"
                     HQ("{\"match\":{\"t\":\"smith left end yes\"}}") "}}}}",
       "\"highlight\":{\"t\":[\"<em>Smith</em> met e.g. a fox.\",\"Then he <em>left</em>!\",\"the <em>end</em>?\",\"<em>Yes</em>\"]}");
    /* boundary_scanner word: one word per passage */
    HL("/h/_search", Q1 "\"highlight\":{\"boundary_scanner\":\"word\",\"fields\":{\"t\":{" HQ(MFOX) "}}}}",
       "\"highlight\":{\"t\":[\"<em>fox</em>\",\"<em>fox</em>\"]}");
}

static void test_order_score(void **s) {
    (void)s;
    /* "One fox. Two fox fox.": passages [0,9) and [9,20) (the second
     * sentence is 12 > 10: remaining 5, word boundary after 19 is 20).
     * PassageScorer: the same term weight; tf 1/(1+1.2*(.25+.75*9/87)) =
     * .718 and norm 1+1/ln(87) = 1.224 against 2/(2+1.2*(.25+.75*11/87)) =
     * .829 and 1+1/ln(96) = 1.219: the second scores higher */
    const char *b = "{\"_source\":false,\"query\":{\"ids\":{\"values\":[\"4\"]}},\"highlight\":{%s\"fields\":{\"t\":{\"fragment_size\":10,"
                    HQ(MFOX) "}}}}";
    char body[512];
    snprintf(body, sizeof body, b, "");
    HL("/h/_search", body, "\"highlight\":{\"t\":[\"One <em>fox</em>.\",\"Two <em>fox</em> <em>fox</em>\"]}");
    snprintf(body, sizeof body, b, "\"order\":\"score\",");
    HL("/h/_search", body, "\"highlight\":{\"t\":[\"Two <em>fox</em> <em>fox</em>\",\"One <em>fox</em>.\"]}");
    /* number_of_fragments 1 keeps the best */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"ids\":{\"values\":[\"4\"]}},\"highlight\":{\"fields\":{\"t\":{\"fragment_size\":10,\"number_of_fragments\":1,"
                     HQ(MFOX) "}}}}",
       "\"highlight\":{\"t\":[\"Two <em>fox</em> <em>fox</em>\"]}");
}

static void test_terms(void **s) {
    (void)s;
    /* match_phrase: only the occurrence inside the phrase, each term on its own */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"match_phrase\":{\"t\":\"lazy dog\"}},\"highlight\":{\"fields\":{\"t\":{}}}}",
       "\"highlight\":{\"t\":[\"The quick brown fox jumps over the <em>lazy</em> <em>dog</em>. The dog sleeps. A fox is quick!\"]}");
    /* prefix and wildcard: every term the automaton accepts */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"prefix\":{\"t\":\"qu\"}},\"highlight\":{\"fields\":{\"t\":{}}}}",
       "\"highlight\":{\"t\":[\"The <em>quick</em> brown fox jumps over the lazy dog. The dog sleeps. A fox is <em>quick</em>!\"]}");
    HL("/h/_search", "{\"_source\":false,\"query\":{\"wildcard\":{\"t\":\"d?g\"}},\"highlight\":{\"fields\":{\"t\":{}}}}",
       "\"highlight\":{\"t\":[\"The quick brown fox jumps over the lazy <em>dog</em>. The <em>dog</em> sleeps. A fox is quick!\"]}");
    /* bool: must_not terms do not highlight; filter ones do */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"bool\":{\"must\":{\"match\":{\"t\":\"fox\"}},\"filter\":{\"term\":{\"t\":\"lazy\"}},"
                     "\"must_not\":{\"term\":{\"t\":\"cat\"}},\"should\":{\"term\":{\"t\":\"sleeps\"}}}},\"highlight\":{\"fields\":{\"t\":{\"number_of_fragments\":0}}}}",
       "\"highlight\":{\"t\":[\"The quick brown <em>fox</em> jumps over the <em>lazy</em> dog. The dog <em>sleeps</em>. A <em>fox</em> is quick!\"]}");
    /* require_field_match false: the title query's terms on every field
     * the wildcard names (text and keyword only: n is left out) */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"match\":{\"title\":\"quick\"}},\"highlight\":{\"require_field_match\":false,\"fields\":{\"*\":{\"number_of_fragments\":0}}}}",
       "\"highlight\":{\"t\":[\"The <em>quick</em> brown fox jumps over the lazy dog. The dog sleeps. A fox is <em>quick</em>!\"],"
       "\"title\":[\"<em>Quick</em> start\"]}");
    /* with it (the default) only title */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"match\":{\"title\":\"quick\"}},\"highlight\":{\"fields\":{\"*\":{}}}}",
       "\"highlight\":{\"title\":[\"<em>Quick</em> start\"]}");
    /* keyword: the whole value is the token */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"term\":{\"k\":\"brown fox\"}},\"highlight\":{\"fields\":{\"k\":{},\"t\":{}}}}",
       "\"highlight\":{\"k\":[\"<em>brown fox</em>\"]}");
}

static void test_values_and_text(void **s) {
    (void)s;
    /* each value its own text (SplittingBreakIterator); values without a
     * match give nothing */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"match\":{\"tags\":\"fox\"}},\"highlight\":{\"fields\":{\"tags\":{}}}}",
       "\"highlight\":{\"tags\":[\"red <em>fox</em>\",\"<em>fox</em> and dog\"]}");
    HL("/h/_search", "{\"_source\":false,\"query\":{\"match\":{\"tags\":\"bird\"}},\"highlight\":{\"fields\":{\"tags\":{\"number_of_fragments\":0}}}}",
       "\"highlight\":{\"tags\":[\"blue <em>bird</em>\"]}");
    /* UTF-16 offsets: é ü ï count one, the emoji two. Sentences [0,30)
     * [30,48): fox@19 gets remaining 0, so the passage ends at the word
     * boundary after 20, 22 */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"ids\":{\"values\":[\"3\"]}},\"highlight\":{\"fields\":{\"t\":{\"fragment_size\":20," HQ(MFOX) "}}}}",
       "\"highlight\":{\"t\":[\"Caf\xc3\xa9 \xc3\xbc" "ber na\xc3\xafve \\uD83D\\uDE00 <em>fox</em>\",\"\xc3\x9cn\xc3\xaf" "code <em>fox</em> again.\"]}");
    /* tags: the first of each list; tags_schema styled */
    HL("/h/_search", Q1 "\"highlight\":{\"pre_tags\":[\"<b>\",\"<i>\"],\"post_tags\":\"</b>\",\"fields\":{\"t\":{\"number_of_fragments\":0," HQ("{\"term\":{\"t\":\"dog\"}}") "}}}}",
       "\"highlight\":{\"t\":[\"The quick brown fox jumps over the lazy <b>dog</b>. The <b>dog</b> sleeps. A fox is quick!\"]}");
    HL("/h/_search", "{\"_source\":false,\"query\":{\"match\":{\"title\":\"fox\"}},\"highlight\":{\"tags_schema\":\"styled\",\"fields\":{\"title\":{}}}}",
       "\"highlight\":{\"title\":[\"<em class=\\\"hlt1\\\">Fox</em>\"]}");
    /* encoder html: SimpleHTMLEncoder on the text, not on the tags */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"ids\":{\"values\":[\"2\"]}},\"highlight\":{\"encoder\":\"html\",\"fields\":{\"t\":{" HQ(MFOX) "}}}}",
       "\"highlight\":{\"t\":[\"Use &lt;b&gt; &amp; &quot;quotes&quot; or &#x27;single&#x27; in a&#x2F;b <em>fox</em>.\"]}");
    /* the default encoder keeps the text (JSON-escaped only) */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"ids\":{\"values\":[\"2\"]}},\"highlight\":{\"fields\":{\"t\":{" HQ(MFOX) "}}}}",
       "\"highlight\":{\"t\":[\"Use <b> & \\\"quotes\\\" or 'single' in a/b <em>fox</em>.\"]}");
    /* no_match_size: the first value up to the word boundary after 20 */
    HL("/h/_search", Q1 "\"highlight\":{\"fields\":{\"t\":{\"no_match_size\":20}}}}",
       "\"highlight\":{\"t\":[\"The quick brown fox jumps\"]}");
    HL("/h/_search", Q1 "\"highlight\":{\"fields\":{\"tags\":{\"no_match_size\":5}}}}", "\"highlight\":{\"tags\":[\"red fox\"]}");
}

static void test_plain(void **s) {
    (void)s;
    /* SimpleSpanFragmenter, 20: new fragments before "jumps" (end 25),
     * "dog" (43) and "a" (62); fragments 0 and 3 score 1, ranked before the
     * others, in text order; the text between tokens opens the next one */
    HL("/h/_search", Q1 "\"highlight\":{\"type\":\"plain\",\"fields\":{\"t\":{\"fragment_size\":20," HQ(MFOX) "}}}}",
       "\"highlight\":{\"t\":[\"The quick brown <em>fox</em>\",\". A <em>fox</em> is quick!\"]}");
    /* number_of_fragments 0: NullFragmenter, the whole value */
    HL("/h/_search", Q1 "\"highlight\":{\"type\":\"plain\",\"fields\":{\"t\":{\"number_of_fragments\":0," HQ(MFOX) "}}}}",
       "\"highlight\":{\"t\":[\"The quick brown <em>fox</em> jumps over the lazy dog. The dog sleeps. A <em>fox</em> is quick!\"]}");
    /* simple fragmenter: a new fragment before the token ending at or
     * after 30 * n ("over" ends at 30, "a" at 62); phrase terms only
     * inside the phrase */
    HL("/h/_search", Q1 "\"highlight\":{\"type\":\"plain\",\"fragmenter\":\"simple\",\"fields\":{\"t\":{\"fragment_size\":30,"
                       HQ("{\"match_phrase\":{\"t\":\"the dog\"}}") "}}}}",
       "\"highlight\":{\"t\":[\" over the lazy dog. <em>The</em> <em>dog</em> sleeps\"]}");
    /* no_match_size: cut at the end of the last token ending before 8
     * ("b", 6), not encoded */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"ids\":{\"values\":[\"2\"]}},\"highlight\":{\"type\":\"plain\",\"encoder\":\"html\",\"fields\":{\"t\":{\"no_match_size\":8}}}}",
       "\"highlight\":{\"t\":[\"Use <b\"]}");
    /* multi-valued: each value on its own */
    HL("/h/_search", "{\"_source\":false,\"query\":{\"match\":{\"tags\":\"fox\"}},\"highlight\":{\"type\":\"plain\",\"fields\":{\"tags\":{}}}}",
       "\"highlight\":{\"tags\":[\"red <em>fox</em>\",\"<em>fox</em> and dog\"]}");
}

#define SPE(type, reason, idx)                                                                                     \
    "{\"error\":{\"root_cause\":[{\"type\":\"" type "\",\"reason\":\"" reason "\"}],\"type\":\"search_phase_execution_exception\"," \
    "\"reason\":\"all shards failed\",\"phase\":\"query\",\"grouped\":true,\"failed_shards\":[{\"shard\":0,\"index\":\"" idx "\"," \
    "\"node\":\"X\",\"reason\":{\"type\":\"" type "\",\"reason\":\"" reason "\"}}],\"caused_by\":{\"type\":\"" type "\",\"reason\":\"" \
    reason "\",\"caused_by\":{\"type\":\"" type "\",\"reason\":\"" reason "\"}}},\"status\":400}"

#define MAXOFF(field, doc, idx)                                                                                         \
    "The length of [" field "] field of [" doc "] doc of [" idx "] index has exceeded [10] - maximum allowed to be analyzed for " \
    "highlighting. This maximum can be set by changing the [index.highlight.max_analyzed_offset] index level setting. For large " \
    "texts, indexing with offsets or term vectors is recommended!"

/* the node id is random: compare with it masked */
static void expect_masked(const char *path, const char *body, int status, const char *want) {
    char *got;
    int st = req("POST", path, body, &got);
    char *n = strstr(got, "\"node\":\"");
    if (n) {
        char *e = strchr(n + 8, '"');
        if (e) memmove(n + 9, e, strlen(e) + 1), n[8] = 'X';
    }
    if (st != status || strcmp(got, want) != 0) fail_msg("%s\n want %d %s\n got  %d %s", body, status, want, st, got);
    free(got);
}

static void test_errors(void **s) {
    (void)s;
    /* sloppy phrases: Lucene's span matching is not reproduced */
    EXPECT_HAS("POST", "/h/_search", "{\"query\":{\"match_phrase\":{\"t\":{\"query\":\"quick fox\",\"slop\":2}}},\"highlight\":{\"fields\":{\"t\":{}}}}",
               400, "\"reason\":\"highlighting a phrase with [slop] greater than 0 is not supported by trove\"");
    EXPECT("POST", "/h/_search", "{\"highlight\":{\"foo\":1,\"fields\":{\"t\":{}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"x_content_parse_exception\",\"reason\":\"[1:15] [highlight] unknown field [foo]\"}],"
           "\"type\":\"x_content_parse_exception\",\"reason\":\"[1:15] [highlight] unknown field [foo]\"},\"status\":400}");
    EXPECT("POST", "/h/_search", "{\"highlight\":{\"fields\":{\"t\":{\"foo\":1}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"x_content_parse_exception\",\"reason\":\"[1:24] [highlight] failed to parse field [fields]\"}],"
           "\"type\":\"x_content_parse_exception\",\"reason\":\"[1:24] [highlight] failed to parse field [fields]\","
           "\"caused_by\":{\"type\":\"x_content_parse_exception\",\"reason\":\"[1:30] [highlight_field] unknown field [foo]\"}},\"status\":400}");
    EXPECT("POST", "/h/_search", "{\"highlight\":{\"fields\":[{\"t\":{},\"u\":{}}]}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"x_content_parse_exception\",\"reason\":\"[1:24] [highlight] failed to parse field [fields]\"}],"
           "\"type\":\"x_content_parse_exception\",\"reason\":\"[1:24] [highlight] failed to parse field [fields]\","
           "\"caused_by\":{\"type\":\"x_content_parse_exception\",\"reason\":\"[1:25] [fields] can be a single object with any number of fields "
           "or an array where each entry is an object with a single field\"}},\"status\":400}");
    EXPECT("POST", "/h/_search", "{\"highlight\":{\"pre_tags\":[\"<b>\"],\"fields\":{\"t\":{}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parsing_exception\",\"reason\":\"pre_tags are set but post_tags are not set\",\"line\":1,\"col\":14}],"
           "\"type\":\"parsing_exception\",\"reason\":\"pre_tags are set but post_tags are not set\",\"line\":1,\"col\":14},\"status\":400}");
    EXPECT("POST", "/h/_search", "{\"highlight\":{\"tags_schema\":\"x\",\"fields\":{\"t\":{}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"x_content_parse_exception\",\"reason\":\"[1:29] [highlight] failed to parse field [tags_schema]\"}],"
           "\"type\":\"x_content_parse_exception\",\"reason\":\"[1:29] [highlight] failed to parse field [tags_schema]\","
           "\"caused_by\":{\"type\":\"illegal_argument_exception\",\"reason\":\"Unknown tag schema [x]\"}},\"status\":400}");
    EXPECT("POST", "/h/_search", "{\"highlight\":{\"fragment_size\":\"x\"}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"x_content_parse_exception\",\"reason\":\"[1:31] [highlight] failed to parse field [fragment_size]\"}],"
           "\"type\":\"x_content_parse_exception\",\"reason\":\"[1:31] [highlight] failed to parse field [fragment_size]\","
           "\"caused_by\":{\"type\":\"number_format_exception\",\"reason\":\"For input string: \\\"x\\\"\"}},\"status\":400}");
    EXPECT("POST", "/h/_search", "{\"highlight\":{\"order\":1}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"x_content_parse_exception\",\"reason\":\"[1:23] [highlight] order doesn't support values of type: VALUE_NUMBER\"}],"
           "\"type\":\"x_content_parse_exception\",\"reason\":\"[1:23] [highlight] order doesn't support values of type: VALUE_NUMBER\"},\"status\":400}");
    EXPECT("POST", "/h/_search", "{\"highlight\":\"t\"}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parsing_exception\",\"reason\":\"Unknown key for a VALUE_STRING in [highlight].\",\"line\":1,\"col\":14}],"
           "\"type\":\"parsing_exception\",\"reason\":\"Unknown key for a VALUE_STRING in [highlight].\",\"line\":1,\"col\":14},\"status\":400}");
    EXPECT("POST", "/h/_search", "{\"highlight\":{\"fields\":{\"t\":{\"matched_fields\":[\"t\"]}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"unsupported_operation_exception\",\"reason\":\"[highlight] matched_fields is not supported by trove\"}],"
           "\"type\":\"unsupported_operation_exception\",\"reason\":\"[highlight] matched_fields is not supported by trove\"},\"status\":400}");
    /* fetch-phase failures: only when there is a hit to highlight */
    expect_masked("/h/_search", "{\"query\":{\"match\":{\"t\":\"fox\"}},\"highlight\":{\"fields\":{\"t\":{\"type\":\"fvh\"}}}}", 400,
                  SPE("illegal_argument_exception",
                      "the field [t] should be indexed with term vector with position offsets to be used with fast vector highlighter", "h"));
    expect_masked("/h/_search", "{\"query\":{\"match\":{\"t\":\"fox\"}},\"highlight\":{\"fields\":{\"t\":{\"type\":\"x\"}}}}", 400,
                  SPE("illegal_argument_exception", "unknown highlighter type [x] for the field [t]", "h"));
    HL("/h/_search", "{\"query\":{\"match\":{\"t\":\"nothing\"}},\"highlight\":{\"fields\":{\"t\":{\"type\":\"x\"}}}}", NULL);
    expect_masked("/h/_search", "{\"query\":{\"match\":{\"t\":\"fox\"}},\"highlight\":{\"boundary_scanner\":\"chars\",\"fields\":{\"t\":{}}}}", 400,
                  SPE("illegal_argument_exception", "Invalid boundary scanner type: CHARS", "h"));
    expect_masked("/h/_search", "{\"query\":{\"match\":{\"t\":\"fox\"}},\"highlight\":{\"type\":\"plain\",\"fragmenter\":\"x\",\"fields\":{\"t\":{}}}}", 400,
                  SPE("illegal_argument_exception", "unknown fragmenter option [x] for the field [t]", "h"));
    /* index.highlight.max_analyzed_offset 10: unified names the Lucene
     * doc id, plain the _id */
    expect_masked("/m/_search", "{\"query\":{\"match\":{\"t\":\"fox\"}},\"highlight\":{\"fields\":{\"t\":{}}}}", 400,
                  SPE("illegal_argument_exception", MAXOFF("t", "0", "m"), "m"));
    expect_masked("/m/_search", "{\"query\":{\"match\":{\"t\":\"fox\"}},\"highlight\":{\"type\":\"plain\",\"fields\":{\"t\":{}}}}", 400,
                  SPE("illegal_argument_exception", MAXOFF("t", "a", "m"), "m"));
    expect_masked("/m/_search", "{\"query\":{\"match\":{\"t\":\"fox\"}},\"highlight\":{\"fields\":{\"t\":{\"max_analyzer_offset\":20}}}}", 400,
                  SPE("illegal_argument_exception",
                      "max_analyzer_offset has exceeded [10] - maximum allowed to be analyzed for highlighting. This maximum can be set by "
                      "changing the [index.highlight.max_analyzed_offset] index level setting. For large texts, indexing with offsets or "
                      "term vectors is recommended!", "m"));
    /* a smaller max_analyzer_offset analyzes only the tokens starting at or before it */
    HL("/m/_search", "{\"_source\":false,\"query\":{\"match\":{\"t\":\"fox\"}},\"highlight\":{\"fields\":{\"t\":{\"max_analyzer_offset\":5}}}}",
       "\"highlight\":{\"t\":[\"a <em>fox</em> in a rather long text\"]}");
    /* no term for the field: nothing analyzed, no error */
    HL("/m/_search", "{\"_source\":false,\"query\":{\"match_all\":{}},\"highlight\":{\"fields\":{\"t\":{}}}}", NULL);
}

/* a keyword's values over ignore_above are not highlighted, by either
 * highlighter */
static void test_keyword_ignore_above(void **s) {
    (void)s;
    OK("PUT", "/ia", "{\"mappings\":{\"properties\":{\"k1\":{\"type\":\"keyword\"},\"k2\":{\"type\":\"keyword\","
                     "\"ignore_above\":3}}}}");
    OK("PUT", "/ia/_doc/1?refresh=true", "{\"k1\":\"123\",\"k2\":\"123\"}");
    OK("PUT", "/ia/_doc/2?refresh=true", "{\"k1\":\"1234\",\"k2\":\"1234\"}");
    const char *types[] = {"unified", "plain"};
    for (int i = 0; i < 2; i++) {
        char body[256];
        snprintf(body, sizeof body,
                 "{\"query\":{\"prefix\":{\"k1\":\"12\"}},\"sort\":[\"k1\"],\"highlight\":{\"require_field_match\":"
                 "false,\"fields\":{\"k2\":{\"type\":\"%s\"}}}}",
                 types[i]);
        EXPECT("POST", "/ia/_search?filter_path=hits.hits._id,hits.hits.highlight", body, 200,
               "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"highlight\":{\"k2\":[\"<em>123</em>\"]}},{\"_id\":\"2\"}]}}");
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unified_defaults), cmocka_unit_test(test_fragment_size), cmocka_unit_test(test_order_score),
        cmocka_unit_test(test_terms),            cmocka_unit_test(test_values_and_text), cmocka_unit_test(test_plain),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_keyword_ignore_above),
    };
    return cmocka_run_group_tests(tests, load, teardown);
}
