/* test_api_explain.c — score explanations through trove_request.
 *
 * Bodies are compared byte for byte. No OpenSearch runs here: every
 * expected tree is derived from Lucene 10's and OpenSearch 3.1's source
 * (BM25Similarity.BM25Scorer.explain / explainTF / idfExplain,
 * TermWeight.explain, PhraseWeight.explain, BooleanWeight.explain,
 * DisjunctionMaxWeight.explain, ConstantScoreWeight.explain, the query
 * cache's CachingWrapperWeight for filter clauses, Query.toString,
 * SearchHit.toInnerXContent, ExplainResponse.toXContent), and the
 * numbers were checked against an independent float32 evaluation of
 * BM25's formulas (k1 1.2, b 0.75, Java's float order).
 *
 * The fixture is one bulk with refresh: one segment, doc ids 0, 1, 2 in
 * order (Lucene's descriptions carry the segment-local doc id).
 *   1: "the quick brown fox" (4 terms)   2: "quick quick dog" (3)
 *   3: "lazy dog" (2)                     avgdl = 9 / 3 = 3.0
 */
#define _GNU_SOURCE
#define API_TEST_MASK_TOOK
#include "api_test.h"

static int setup_ex(void **s) {
    if (setup(s)) return -1;
    static const char *const mk[][3] = {
        {"PUT", "/i",
         "{\"settings\":{\"number_of_replicas\":0},\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"},"
         "\"tag\":{\"type\":\"keyword\"},\"n\":{\"type\":\"long\"}}}}"},
        {"POST", "/_bulk?refresh=true",
         "{\"index\":{\"_index\":\"i\",\"_id\":\"1\"}}\n{\"title\":\"the quick brown fox\",\"tag\":\"a\",\"n\":1}\n"
         "{\"index\":{\"_index\":\"i\",\"_id\":\"2\"}}\n{\"title\":\"quick quick dog\",\"tag\":\"b\",\"n\":2}\n"
         "{\"index\":{\"_index\":\"i\",\"_id\":\"3\"}}\n{\"title\":\"lazy dog\",\"tag\":\"a\",\"n\":3}\n"},
    };
    for (size_t i = 0; i < sizeof mk / sizeof mk[0]; i++) {
        trove_response r;
        if (trove_request(N, mk[i][0], mk[i][1], mk[i][2], strlen(mk[i][2]), &r) || r.status >= 300) return -1;
        trove_response_fini(&r);
    }
    return 0;
}

/* ------------------------------------------------------------ builders
 * The trees as Lucene builds them, assembled from their parts so that each
 * expectation reads like the Java that produces it. Strings are malloc'd
 * and freed by the caller (x_free). */

static char *pool[512];
static int npool;

static const char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static const char *fmt(const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    if (vasprintf(&s, f, ap) < 0) s = NULL;
    va_end(ap);
    assert_non_null(s);
    assert_true(npool < 512);
    pool[npool++] = s;
    return s;
}
static void x_free(void) {
    for (int i = 0; i < npool; i++) free(pool[i]);
    npool = 0;
}

/* Explanation.match(value, desc, details...) as SearchHit.buildExplanation
 * writes it */
static const char *E(const char *value, const char *desc, const char *details) {
    return fmt("{\"value\":%s,\"description\":\"%s\",\"details\":[%s]}", value, desc, details ? details : "");
}
/* BM25Similarity.idfExplain(collectionStats, termStats) */
static const char *IDF(const char *idf, int n, int ndocs) {
    return E(idf, "idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:",
             fmt("%s,%s", E(fmt("%d", n), "n, number of documents containing term", NULL),
                 E(fmt("%d", ndocs), "N, total number of documents with field", NULL)));
}
/* BM25Scorer.explainTF */
static const char *TF(const char *tf, const char *freq_leaf, const char *dl, const char *avgdl) {
    return E(tf, "tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:",
             fmt("%s,%s,%s,%s,%s", freq_leaf, E("1.2", "k1, term saturation parameter", NULL),
                 E("0.75", "b, length normalization parameter", NULL), E(dl, "dl, length of field", NULL),
                 E(avgdl, "avgdl, average length of field", NULL)));
}
/* TermWeight.explain over BM25Scorer.explain (boost NULL: 1) */
static const char *TERMW(const char *score, const char *q, int doc, const char *freq, const char *boost,
                         const char *idf, const char *tf, const char *dl) {
    const char *fl = E(freq, "freq, occurrences of term within document", NULL);
    const char *s = E(score, fmt("score(freq=%s), computed as boost * idf * tf from:", freq),
                      boost ? fmt("%s,%s,%s", E(boost, "boost", NULL), idf, TF(tf, fl, dl, "3.0"))
                            : fmt("%s,%s", idf, TF(tf, fl, dl, "3.0")));
    return E(score, fmt("weight(%s in %d) [PerFieldSimilarity], result of:", q, doc), s);
}

/* The fixture's numbers (doc 0: dl 4, avgdl 3):
 *   idf(quick) = ln(1 + 1.5 / 2.5) = 0.47000363, idf(fox) = idf(brown) =
 *   ln(1 + 2.5 / 1.5) = 0.98082924; tf(freq 1, dl 4) = 1 - 1 / (1 + 1 *
 *   1 / (1.2 * (0.25 + 0.75 * 4 / 3))) = 0.40000004 (float); score =
 *   w - w / (1 + freq * normInverse) with w = boost * idf. */
#define IDF_QUICK IDF("0.47000363", 2, 3)
#define IDF_FOX IDF("0.98082924", 1, 3)
#define QUICK0(boost, score) TERMW(score, "title:quick", 0, "1.0", boost, IDF_QUICK, "0.40000004", "4.0")
#define FOX0(boost, score) TERMW(score, "title:fox", 0, "1.0", boost, IDF_FOX, "0.40000004", "4.0")

static void expect_explain(const char *path, const char *body, int status, const char *matched,
                           const char *expl, int line) {
    const char *id = strrchr(path, '/') + 1;
    int idl = (int)strcspn(id, "?");
    const char *want = expl ? fmt("{\"_index\":\"i\",\"_id\":\"%.*s\",\"matched\":%s,\"explanation\":%s}", idl,
                                  id, matched, expl)
                            : fmt("{\"_index\":\"i\",\"_id\":\"%.*s\",\"matched\":false}", idl, id);
    char *got;
    int st = req("POST", path, body, &got);
    if (st != status || strcmp(got, want) != 0) {
        /* cmocka truncates long messages: the whole bodies on stderr */
        fprintf(stderr, "line %d: %s %s\n want %d %s\n got  %d %s\n", line, path, body ? body : "", status, want, st, got);
        fail_msg("line %d: explanation differs", line);
    }
    free(got);
    x_free();
}
#define EXPLAIN(path, body, status, matched, expl) expect_explain((path), (body), (status), (matched), (expl), __LINE__)

static void test_term(void **s) {
    (void)s;
    EXPLAIN("/i/_explain/1", "{\"query\":{\"term\":{\"title\":\"quick\"}}}", 200, "true",
            QUICK0(NULL, "0.18800145"));
    /* GET with the body, and the term's boost as BM25's "boost" factor:
     * w = 2 * 0.47000363 */
    EXPLAIN("/i/_explain/1", "{\"query\":{\"term\":{\"title\":{\"value\":\"quick\",\"boost\":2}}}}", 200, "true",
            QUICK0("2.0", "0.3760029"));
    /* freq 2, dl 3 = avgdl: tf = 2 / (2 + 1.2) = 0.625 */
    EXPLAIN("/i/_explain/2", "{\"query\":{\"term\":{\"title\":\"quick\"}}}", 200, "true",
            E("0.29375225", "weight(title:quick in 1) [PerFieldSimilarity], result of:",
              E("0.29375225", "score(freq=2.0), computed as boost * idf * tf from:",
                fmt("%s,%s", IDF_QUICK,
                    TF("0.625", E("2.0", "freq, occurrences of term within document", NULL), "3.0", "3.0")))));
    /* not matching: TermWeight's "no matching term" */
    EXPLAIN("/i/_explain/1", "{\"query\":{\"term\":{\"title\":\"dog\"}}}", 200, "false",
            E("0.0", "no matching term", NULL));
    /* the URI form: q=title:quick is a query_string of one term */
    EXPLAIN("/i/_explain/1?q=title:quick", NULL, 200, "true", QUICK0(NULL, "0.18800145"));
}

static void test_match_and_phrase(void **s) {
    (void)s;
    /* match of two terms: BooleanQuery of SHOULD term queries, "sum of:"
     * (0.18800145 + 0.39233172 in double, as float) */
    EXPLAIN("/i/_explain/1", "{\"query\":{\"match\":{\"title\":\"quick fox\"}}}", 200, "true",
            E("0.5803332", "sum of:", fmt("%s,%s", QUICK0(NULL, "0.18800145"), FOX0(NULL, "0.39233172"))));
    /* doc 3 has neither: BooleanWeight's "No matching clauses" with no
     * details (non-matching SHOULD clauses add none) */
    EXPLAIN("/i/_explain/3", "{\"query\":{\"match\":{\"title\":\"quick fox\"}}}", 200, "false",
            E("0.0", "No matching clauses", NULL));
    /* match_phrase: PhraseWeight, "idf, sum of:" over both terms,
     * phraseFreq=1.0; idf = 0.47000363 + 0.98082924 = 1.4508328 */
    const char *pf = E("1.0", "phraseFreq=1.0", NULL);
    EXPLAIN("/i/_explain/1", "{\"query\":{\"match_phrase\":{\"title\":\"quick brown\"}}}", 200, "true",
            E("0.5803332", "weight(title:\\\"quick brown\\\" in 0) [PerFieldSimilarity], result of:",
              E("0.5803332", "score(phraseFreq=1.0), computed as boost * idf * tf from:",
                fmt("%s,%s", E("1.4508328", "idf, sum of:", fmt("%s,%s", IDF_QUICK, IDF_FOX)),
                    TF("0.40000004", pf, "4.0", "3.0")))));
    /* a sloppy phrase: SloppyPhraseMatcher's sloppyWeight 1 / (1 + 1) for a
     * match one position off; toString with "~slop" */
    const char *spf = E("0.5", "phraseFreq=0.5", NULL);
    EXPLAIN("/i/_explain/1", "{\"query\":{\"match_phrase\":{\"title\":{\"query\":\"quick fox\",\"slop\":1}}}}", 200,
            "true",
            E("0.3627082", "weight(title:\\\"quick fox\\\"~1 in 0) [PerFieldSimilarity], result of:",
              E("0.3627082", "score(phraseFreq=0.5), computed as boost * idf * tf from:",
                fmt("%s,%s", E("1.4508328", "idf, sum of:", fmt("%s,%s", IDF_QUICK, IDF_FOX)),
                    TF("0.25", spf, "4.0", "3.0")))));
    /* both terms present, not in order: "no matching phrase"; a missing
     * term: "no matching terms" */
    EXPLAIN("/i/_explain/1", "{\"query\":{\"match_phrase\":{\"title\":\"brown quick\"}}}", 200, "false",
            E("0.0", "no matching phrase", NULL));
    EXPLAIN("/i/_explain/2", "{\"query\":{\"match_phrase\":{\"title\":\"quick brown\"}}}", 200, "false",
            E("0.0", "no matching terms", NULL));
}

static void test_bool(void **s) {
    (void)s;
    /* must, must_not, should, filter in BoolQueryBuilder's order; the
     * filter and must_not weights are created without scores and wrapped by
     * the query cache (a ConstantScoreWeight of score 1: the query's
     * toString); the SHOULD's boost 2 reaches its BM25: w = 2 * 0.98082924 */
    const char *q = "{\"query\":{\"bool\":{\"must\":[{\"match\":{\"title\":\"quick\"}}],"
                    "\"must_not\":[{\"term\":{\"title\":\"lazy\"}}],"
                    "\"should\":[{\"term\":{\"title\":{\"value\":\"fox\",\"boost\":2}}}],"
                    "\"filter\":[{\"term\":{\"title\":\"brown\"}}]}}}";
    EXPLAIN("/i/_explain/1", q, 200, "true",
            E("0.9726649", "sum of:",
              fmt("%s,%s,%s", QUICK0(NULL, "0.18800145"), FOX0("2.0", "0.78466344"),
                  E("0.0", "match on required clause, product of:",
                    fmt("%s,%s", E("0.0", "# clause", NULL), E("1.0", "title:brown", NULL))))));
    /* doc 2: the filter fails ("no match on required clause (q)" around
     * the cached weight's "<q> doesn't match id 1") */
    EXPLAIN("/i/_explain/2", q, 200, "false",
            E("0.0", "Failure to meet condition(s) of required/prohibited clause(s)",
              fmt("%s,%s", TERMW("0.29375225", "title:quick", 1, "2.0", NULL, IDF_QUICK, "0.625", "3.0"),
                  E("0.0", "no match on required clause (title:brown)",
                    E("0.0", "title:brown doesn't match id 1", NULL)))));
    /* a matching must_not: "match on prohibited clause (q)" */
    EXPLAIN("/i/_explain/3",
            "{\"query\":{\"bool\":{\"must\":[{\"term\":{\"title\":\"dog\"}}],\"must_not\":[{\"term\":{\"title\":\"lazy\"}}]}}}",
            200, "false",
            E("0.0", "Failure to meet condition(s) of required/prohibited clause(s)",
              fmt("%s,%s", TERMW("0.24737033", "title:dog", 2, "1.0", NULL, IDF("0.47000363", 2, 3), "0.5263158", "2.0"),
                  E("0.0", "match on prohibited clause (title:lazy)", E("1.0", "title:lazy", NULL)))));
    /* minimum_should_match: "Failure to match minimum number of optional
     * clauses: 2" */
    EXPLAIN("/i/_explain/2",
            "{\"query\":{\"bool\":{\"should\":[{\"term\":{\"title\":\"quick\"}},{\"term\":{\"title\":\"fox\"}},"
            "{\"term\":{\"title\":\"lazy\"}}],\"minimum_should_match\":2}}}",
            200, "false",
            E("0.0", "Failure to match minimum number of optional clauses: 2",
              TERMW("0.29375225", "title:quick", 1, "2.0", NULL, IDF_QUICK, "0.625", "3.0")));
}

static void test_dismax_constant_match_all(void **s) {
    (void)s;
    /* dis_max: "max plus 0.3 times others of:" (float)(max + others * tie)
     * = 0.39233172 + 0.18800145 * 0.3 */
    EXPLAIN("/i/_explain/1",
            "{\"query\":{\"dis_max\":{\"tie_breaker\":0.3,\"queries\":[{\"term\":{\"title\":\"quick\"}},"
            "{\"term\":{\"title\":\"fox\"}}]}}}",
            200, "true",
            E("0.44873217", "max plus 0.3 times others of:", fmt("%s,%s", QUICK0(NULL, "0.18800145"), FOX0(NULL, "0.39233172"))));
    /* tie_breaker 0: "max of:"; nothing matching: "No matching clause" over
     * the subs' own no-match explanations */
    EXPLAIN("/i/_explain/1",
            "{\"query\":{\"dis_max\":{\"queries\":[{\"term\":{\"title\":\"quick\"}},{\"term\":{\"title\":\"fox\"}}]}}}",
            200, "true", E("0.39233172", "max of:", fmt("%s,%s", QUICK0(NULL, "0.18800145"), FOX0(NULL, "0.39233172"))));
    EXPLAIN("/i/_explain/3",
            "{\"query\":{\"dis_max\":{\"queries\":[{\"term\":{\"title\":\"quick\"}},{\"term\":{\"title\":\"fox\"}}]}}}",
            200, "false",
            E("0.0", "No matching clause", fmt("%s,%s", E("0.0", "no matching term", NULL), E("0.0", "no matching term", NULL))));
    /* constant_score: ConstantScoreWeight, "^boost" unless 1 */
    EXPLAIN("/i/_explain/1", "{\"query\":{\"constant_score\":{\"filter\":{\"term\":{\"title\":\"quick\"}}}}}", 200,
            "true", E("1.0", "ConstantScore(title:quick)", NULL));
    EXPLAIN("/i/_explain/1", "{\"query\":{\"constant_score\":{\"filter\":{\"term\":{\"title\":\"quick\"}},\"boost\":1.5}}}",
            200, "true", E("1.5", "ConstantScore(title:quick)^1.5", NULL));
    EXPLAIN("/i/_explain/3", "{\"query\":{\"constant_score\":{\"filter\":{\"term\":{\"title\":\"quick\"}}}}}", 200,
            "false", E("0.0", "ConstantScore(title:quick) doesn't match id 2", NULL));
    /* match_all: *:* (MatchAllDocsQuery's ConstantScoreWeight) */
    EXPLAIN("/i/_explain/2", "{\"query\":{\"match_all\":{}}}", 200, "true", E("1.0", "*:*", NULL));
    EXPLAIN("/i/_explain/2", "{\"query\":{\"match_all\":{\"boost\":2}}}", 200, "true", E("2.0", "*:*^2.0", NULL));
    /* a boosted bool: no node of its own, the boost reaches the leaves;
     * a boosted clause prints as (q)^B in its parent's toString */
    EXPLAIN("/i/_explain/2",
            "{\"query\":{\"bool\":{\"must\":[{\"term\":{\"title\":{\"value\":\"lazy\",\"boost\":3}}}],"
            "\"should\":[{\"term\":{\"title\":\"quick\"}}]}}}",
            200, "false",
            E("0.0", "Failure to meet condition(s) of required/prohibited clause(s)",
              fmt("%s,%s", E("0.0", "no match on required clause ((title:lazy)^3.0)", E("0.0", "no matching term", NULL)),
                  TERMW("0.29375225", "title:quick", 1, "2.0", NULL, IDF_QUICK, "0.625", "3.0"))));
    EXPLAIN("/i/_explain/1", "{\"query\":{\"bool\":{\"should\":[{\"term\":{\"title\":\"quick\"}}],\"filter\":[{\"term\":{\"title\":\"fox\"}}],\"boost\":2}}}",
            200, "true",
            E("0.3760029", "sum of:",
              fmt("%s,%s", QUICK0("2.0", "0.3760029"),
                  E("0.0", "match on required clause, product of:",
                    fmt("%s,%s", E("0.0", "# clause", NULL), E("1.0", "title:fox", NULL))))));
}

static void test_api_shapes(void **s) {
    (void)s;
    /* missing doc: ExplainResponse(index, id, false), 404 */
    EXPLAIN("/i/_explain/9", "{\"query\":{\"match_all\":{}}}", 404, "false", NULL);
    /* missing index */
    EXPECT("POST", "/nope/_explain/1", "{\"query\":{\"match_all\":{}}}", 404,
           "{\"error\":{\"root_cause\":[{\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope]\","
           "\"index\":\"nope\",\"resource.id\":\"nope\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\"}],"
           "\"type\":\"index_not_found_exception\",\"reason\":\"no such index [nope]\",\"index\":\"nope\","
           "\"resource.id\":\"nope\",\"resource.type\":\"index_or_alias\",\"index_uuid\":\"X\"},\"status\":404}");
    /* ExplainRequest.validate; RestActions.getQueryContent */
    EXPECT("POST", "/i/_explain/1", NULL, 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: query is missing;\"}],\"type\":\"action_request_validation_exception\",\"reason\":\"Validation "
           "Failed: 1: query is missing;\"},\"status\":400}");
    EXPECT("POST", "/i/_explain/1", "{\"size\":1}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"parsing_exception\",\"reason\":\"request does not support "
           "[size]\",\"line\":1,\"col\":2}],\"type\":\"parsing_exception\",\"reason\":\"request does not support "
           "[size]\",\"line\":1,\"col\":2},\"status\":400}");
    /* the get part: GetResult.toXContentEmbedded when _source or
     * stored_fields are asked for */
    EXPECT("GET", "/i/_explain/3?_source_includes=tag", "{\"query\":{\"match_all\":{}}}", 200,
           "{\"_index\":\"i\",\"_id\":\"3\",\"matched\":true,\"explanation\":{\"value\":1.0,\"description\":\"*:*\","
           "\"details\":[]},\"get\":{\"_seq_no\":2,\"_primary_term\":1,\"found\":true,\"_source\":{\"tag\":\"a\"}}}");
    EXPECT("GET", "/i/_explain/3?_source=false", "{\"query\":{\"match_all\":{}}}", 200,
           "{\"_index\":\"i\",\"_id\":\"3\",\"matched\":true,\"explanation\":{\"value\":1.0,\"description\":\"*:*\","
           "\"details\":[]}}");
    /* kinds whose Lucene tree trove does not reproduce */
    EXPECT("POST", "/i/_explain/1", "{\"query\":{\"range\":{\"n\":{\"gte\":1}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"unsupported_operation_exception\",\"reason\":\"[explain] of a "
           "[range] query is not supported by trove\"}],\"type\":\"unsupported_operation_exception\",\"reason\":\""
           "[explain] of a [range] query is not supported by trove\"},\"status\":400}");
    EXPECT("POST", "/i/_search", "{\"explain\":true,\"query\":{\"match_phrase_prefix\":{\"title\":\"quick b\"}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"unsupported_operation_exception\",\"reason\":\"[explain] of a "
           "[match_phrase_prefix] query is not supported by trove\"}],\"type\":\"unsupported_operation_exception\","
           "\"reason\":\"[explain] of a [match_phrase_prefix] query is not supported by trove\"},\"status\":400}");
    EXPECT("POST", "/i/_search", "{\"explain\":true,\"rescore\":{\"query\":{\"rescore_query\":{\"match_all\":{}}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"unsupported_operation_exception\",\"reason\":\"[explain] with "
           "[rescore] is not supported by trove\"}],\"type\":\"unsupported_operation_exception\",\"reason\":\""
           "[explain] with [rescore] is not supported by trove\"},\"status\":400}");
    EXPECT("POST", "/i/_search", "{\"explain\":true,\"query\":{\"bool\":{\"filter\":[{\"term\":{\"tag\":\"a\"}}],\"must\":[{\"match_all\":{}}]}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"unsupported_operation_exception\",\"reason\":\"[explain] of a "
           "[term] query is not supported by trove\"}],\"type\":\"unsupported_operation_exception\",\"reason\":\""
           "[explain] of a [term] query is not supported by trove\"},\"status\":400}");
}

/* The value of the first "key":<number> at or after p (as text). */
static const char *num_after(const char *p, const char *key, char *out, size_t cap) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *q = strstr(p, pat);
    if (!q) return NULL;
    q += strlen(pat);
    size_t n = strcspn(q, ",}");
    if (n >= cap) n = cap - 1;
    memcpy(out, q, n);
    out[n] = '\0';
    return q + n;
}

static void test_search_explain(void **s) {
    (void)s;
    /* SearchHit.toInnerXContent: _shard and _node first, _explanation last;
     * the explanation's value is the hit's _score */
    char *got;
    int st = req("POST", "/i/_search", "{\"explain\":true,\"query\":{\"match\":{\"title\":\"quick fox\"}}}", &got);
    assert_int_equal(st, 200);
    char *node = field(got, "_node");
    assert_non_null(node);
    const char *want = fmt(
        "{\"took\":0,\"timed_out\":false,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0},"
        "\"hits\":{\"total\":{\"value\":2,\"relation\":\"eq\"},\"max_score\":0.5803332,\"hits\":["
        "{\"_shard\":\"[i][0]\",\"_node\":\"%s\",\"_index\":\"i\",\"_id\":\"1\",\"_score\":0.5803332,\"_source\":{"
        "\"title\":\"the quick brown fox\",\"tag\":\"a\",\"n\":1},\"_explanation\":%s},"
        "{\"_shard\":\"[i][0]\",\"_node\":\"%s\",\"_index\":\"i\",\"_id\":\"2\",\"_score\":0.29375225,\"_source\":{"
        "\"title\":\"quick quick dog\",\"tag\":\"b\",\"n\":2},\"_explanation\":%s}]}}",
        node, E("0.5803332", "sum of:", fmt("%s,%s", QUICK0(NULL, "0.18800145"), FOX0(NULL, "0.39233172"))), node,
        E("0.29375225", "sum of:", TERMW("0.29375225", "title:quick", 1, "2.0", NULL, IDF_QUICK, "0.625", "3.0")));
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "want %s\ngot  %s\n", want, got);
        fail_msg("search body differs");
    }
    free(got);
    /* ?explain=true, and the node id is the node's (as _nodes shows it) */
    st = req("GET", "/i/_search?explain=true&q=title:dog&_source=false", NULL, &got);
    assert_int_equal(st, 200);
    assert_non_null(strstr(got, "\"_shard\":\"[i][0]\",\"_node\":\""));
    assert_non_null(strstr(got, "\"_explanation\":{\"value\":"));
    free(got);
    free(node);
    x_free();
}

/* Random documents and queries: every hit's explanation value equals its
 * _score (the same float), and _explain agrees on matching. */
static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static void test_random_values(void **s) {
    (void)s;
    static const char *const words[] = {"a", "b", "c", "d", "e", "f", "g"};
    OK("PUT", "/r", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\"},\"u\":{\"type\":\"text\"}}}}");
    char *bulk = malloc(1 << 16);
    for (int round = 0; round < 3; round++) { /* three refreshes: three segments */
        size_t o = 0;
        for (int d = 0; d < 40; d++) {
            o += (size_t)sprintf(bulk + o, "{\"index\":{\"_id\":\"%d\"}}\n{\"t\":\"", round * 40 + d);
            for (uint32_t k = 0, n = 1 + rnd(8); k < n; k++) o += (size_t)sprintf(bulk + o, "%s ", words[rnd(7)]);
            o += (size_t)sprintf(bulk + o, "\",\"u\":\"");
            for (uint32_t k = 0, n = 1 + rnd(4); k < n; k++) o += (size_t)sprintf(bulk + o, "%s ", words[rnd(7)]);
            o += (size_t)sprintf(bulk + o, "\"}\n");
        }
        bulk[o] = '\0';
        OK("POST", "/r/_bulk?refresh=true", bulk);
    }
    OK("DELETE", "/r/_doc/5?refresh=true", NULL);
    char q[1024], body[1200];
    int compared = 0;
    for (int it = 0; it < 300; it++) {
        const char *w1 = words[rnd(7)], *w2 = words[rnd(7)], *w3 = words[rnd(7)];
        switch (rnd(7)) {
        case 0: snprintf(q, sizeof q, "{\"term\":{\"t\":{\"value\":\"%s\",\"boost\":%u}}}", w1, 1 + rnd(3)); break;
        case 1: snprintf(q, sizeof q, "{\"match\":{\"t\":\"%s %s %s\"}}", w1, w2, w3); break;
        case 2: snprintf(q, sizeof q, "{\"match_phrase\":{\"t\":{\"query\":\"%s %s\",\"slop\":%u}}}", w1, w2, rnd(3)); break;
        case 3:
            snprintf(q, sizeof q,
                     "{\"bool\":{\"must\":[{\"match\":{\"t\":\"%s\"}}],\"should\":[{\"match\":{\"u\":\"%s %s\"}}],"
                     "\"must_not\":[{\"term\":{\"u\":\"%s\"}}]}}",
                     w1, w2, w3, words[rnd(7)]);
            break;
        case 4:
            snprintf(q, sizeof q,
                     "{\"dis_max\":{\"tie_breaker\":0.%u,\"queries\":[{\"match\":{\"t\":\"%s %s\"}},{\"match\":{\"u\":\"%s\"}}]}}",
                     rnd(10), w1, w2, w3);
            break;
        case 5:
            snprintf(q, sizeof q,
                     "{\"bool\":{\"should\":[{\"term\":{\"t\":\"%s\"}},{\"term\":{\"u\":\"%s\"}},{\"match_phrase\":"
                     "{\"t\":\"%s %s\"}}],\"minimum_should_match\":%u,\"filter\":[{\"term\":{\"t\":\"%s\"}}]}}",
                     w1, w2, w3, w1, 1 + rnd(2), words[rnd(7)]);
            break;
        default:
            snprintf(q, sizeof q, "{\"constant_score\":{\"filter\":{\"match_phrase\":{\"u\":\"%s %s\"}},\"boost\":%u}}", w1, w2, 1 + rnd(4));
        }
        snprintf(body, sizeof body, "{\"explain\":true,\"size\":200,\"_source\":false,\"query\":%s}", q);
        char *got;
        int st = req("POST", "/r/_search", body, &got);
        if (st != 200) fail_msg("%s\n %d %s", body, st, got);
        bool hit[120] = {false};
        for (const char *p = strstr(got, "\"hits\":["); p && (p = strstr(p, "\"_id\":\"")) != NULL;) {
            int id = atoi(p + 7);
            char sc[32], ev[32];
            p = num_after(p, "_score", sc, sizeof sc);
            assert_non_null(p);
            const char *e = strstr(p, "\"_explanation\":");
            assert_non_null(e);
            num_after(e, "value", ev, sizeof ev);
            if (strcmp(sc, ev) != 0) fail_msg("%s\n doc %d: _score %s, explanation %s\n%s", body, id, sc, ev, got);
            if (id >= 0 && id < 120) hit[id] = true;
            compared++;
        }
        free(got);
        /* _explain on a few docs: matched exactly for the hits (doc 5 is
         * deleted: not found) */
        snprintf(body, sizeof body, "{\"query\":%s}", q);
        for (int k = 0; k < 3; k++) {
            int id = (int)rnd(120);
            char path[64];
            snprintf(path, sizeof path, "/r/_explain/%d", id);
            st = req("POST", path, body, &got);
            if (id == 5) {
                if (st != 404) fail_msg("%s %s: %d %s", path, body, st, got);
            } else if (st != 200 || !strstr(got, hit[id] ? "\"matched\":true" : "\"matched\":false")) {
                fail_msg("%s %s: hit %d, got %d %s", path, body, hit[id], st, got);
            }
            free(got);
        }
    }
    free(bulk);
    if (compared < 1000) fail_msg("only %d hits compared", compared);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_term, setup_ex, teardown),
        cmocka_unit_test_setup_teardown(test_match_and_phrase, setup_ex, teardown),
        cmocka_unit_test_setup_teardown(test_bool, setup_ex, teardown),
        cmocka_unit_test_setup_teardown(test_dismax_constant_match_all, setup_ex, teardown),
        cmocka_unit_test_setup_teardown(test_api_shapes, setup_ex, teardown),
        cmocka_unit_test_setup_teardown(test_search_explain, setup_ex, teardown),
        cmocka_unit_test_setup_teardown(test_random_values, setup_ex, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
