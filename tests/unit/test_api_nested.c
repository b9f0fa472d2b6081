/* test_api_nested.c — nested objects through trove_request: the mapping
 * (printing, merge conflicts, limits), hidden nested docs (counts, top
 * level queries, `fields`, updates and deletes of whole blocks, merges), the nested
 * query (score modes, boost, nested scopes, ignore_unmapped, errors), its
 * inner_hits (offsets, _source, from/size), the nested and reverse_nested
 * aggregations, nested sorts, include_in_parent / include_in_root.
 *
 * Expected scores are not copied from trove's own output: index "flat"
 * holds the comment objects as top-level documents, so each comment's BM25
 * score there equals its nested doc's score (same per-field statistics),
 * and the nested scores are computed here from those with
 * ToParentBlockJoinQuery's arithmetic (a double sum, avg divided by the
 * count, cast to float). Floats are compared bit for bit: trove prints
 * Java's shortest representation, which strtof reads back exactly. */

#define API_TEST_MASK_KEYS "index_uuid", "node"
#include "api_test.h"

#include <math.h>

#define C1A "{\"author\":\"a\",\"text\":\"quick fox\",\"n\":1,\"votes\":[{\"v\":1},{\"v\":2}]}"
#define C1B "{\"author\":\"b\",\"text\":\"lazy dog\",\"n\":7}"
#define C2B "{\"author\":\"b\",\"text\":\"quick quick dog\",\"n\":3}"
#define C2C "{\"author\":\"c\",\"text\":\"quick\",\"n\":5,\"votes\":{\"v\":9}}"

static int load(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/n",
       "{\"mappings\":{\"properties\":{\"title\":{\"type\":\"keyword\"},\"comments\":{\"type\":\"nested\","
       "\"properties\":{\"author\":{\"type\":\"keyword\"},\"text\":{\"type\":\"text\"},\"n\":{\"type\":\"integer\"},"
       "\"votes\":{\"type\":\"nested\",\"properties\":{\"v\":{\"type\":\"integer\"}}}}}}}}");
    OK("POST", "/_bulk?refresh=true",
       "{\"index\":{\"_index\":\"n\",\"_id\":\"1\"}}\n{\"title\":\"t1\",\"comments\":[" C1A "," C1B "]}\n"
       "{\"index\":{\"_index\":\"n\",\"_id\":\"2\"}}\n{\"title\":\"t2\",\"comments\":[" C2B "," C2C "]}\n"
       "{\"index\":{\"_index\":\"n\",\"_id\":\"3\"}}\n{\"title\":\"t3\"}\n");
    /* the comments as documents of their own, for expected BM25 scores */
    OK("PUT", "/flat", "{\"mappings\":{\"properties\":{\"text\":{\"type\":\"text\"}}}}");
    OK("POST", "/_bulk?refresh=true",
       "{\"index\":{\"_index\":\"flat\",\"_id\":\"1a\"}}\n{\"text\":\"quick fox\"}\n"
       "{\"index\":{\"_index\":\"flat\",\"_id\":\"1b\"}}\n{\"text\":\"lazy dog\"}\n"
       "{\"index\":{\"_index\":\"flat\",\"_id\":\"2b\"}}\n{\"text\":\"quick quick dog\"}\n"
       "{\"index\":{\"_index\":\"flat\",\"_id\":\"2c\"}}\n{\"text\":\"quick\"}\n");
    return 0;
}

/* The _score of hit `id` in a search response (NAN when absent). */
static float score_of(const char *body, const char *id) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"_id\":\"%s\"", id);
    const char *p = strstr(body, pat);
    if (!p) return NAN;
    p = strstr(p, "\"_score\":");
    return p ? strtof(p + 9, NULL) : NAN;
}

static float flat_score(const char *id) {
    char *got;
    int st = req("POST", "/flat/_search", "{\"query\":{\"match\":{\"text\":\"quick\"}}}", &got);
    assert_int_equal(st, 200);
    float f = score_of(got, id);
    free(got);
    assert_false(isnan(f));
    return f;
}

static void ids_(const char *path, const char *body, const char *want, int line) {
    char *got;
    int st = req("POST", path, body, &got);
    char ids[512];
    hit_list(got, false, ids, sizeof ids);
    if (st != 200 || strcmp(ids, want) != 0)
        fail_msg("line %d: %s\n want 200 [%s]\n got  %d [%s] %s", line, body, want, st, ids, got);
    free(got);
}
#define IDS(body, want) ids_("/n/_search?filter_path=hits.hits._id", (body), (want), __LINE__)

static void test_mapping(void **s) {
    (void)s;
    EXPECT("GET", "/n/_mapping", NULL, 200,
           "{\"n\":{\"mappings\":{\"properties\":{\"comments\":{\"type\":\"nested\",\"properties\":{\"author\":{\"type\":"
           "\"keyword\"},\"n\":{\"type\":\"integer\"},\"text\":{\"type\":\"text\"},\"votes\":{\"type\":\"nested\","
           "\"properties\":{\"v\":{\"type\":\"integer\"}}}}},\"title\":{\"type\":\"keyword\"}}}}}");
    /* properties alone extend the nested object; a type change does not */
    OK("PUT", "/n/_mapping", "{\"properties\":{\"comments\":{\"properties\":{\"tag\":{\"type\":\"keyword\"}}}}}");
    EXPECT_HAS("GET", "/n/_mapping", NULL, 200, "\"comments\":{\"type\":\"nested\",\"properties\":{\"author\"");
    EXPECT("PUT", "/n/_mapping", "{\"properties\":{\"comments\":{\"type\":\"object\"}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"illegal_argument_exception\",\"reason\":\"object mapping "
           "[comments] can't be changed from nested to non-nested\"}],\"type\":\"illegal_argument_exception\","
           "\"reason\":\"object mapping [comments] can't be changed from nested to non-nested\"},\"status\":400}");
    OK("PUT", "/o", "{\"mappings\":{\"properties\":{\"obj\":{\"properties\":{\"x\":{\"type\":\"long\"}}}}}}");
    EXPECT_HAS("PUT", "/o/_mapping", "{\"properties\":{\"obj\":{\"type\":\"nested\"}}}", 400,
               "object mapping [obj] can't be changed from non-nested to nested");
    EXPECT_HAS("PUT", "/m",
               "{\"mappings\":{\"properties\":{\"k\":{\"type\":\"keyword\",\"fields\":{\"x\":{\"type\":\"nested\"}}}}}}", 400,
               "Type [nested] cannot be used in multi field");
    EXPECT_HAS("PUT", "/m",
               "{\"settings\":{\"index.mapping.nested_fields.limit\":1},\"mappings\":{\"properties\":{\"a\":{\"type\":"
               "\"nested\"},\"b\":{\"type\":\"nested\"}}}}",
               400, "Limit of nested fields [1] has been exceeded");
    EXPECT_HAS("PUT", "/m", "{\"mappings\":{\"properties\":{\"a\":{\"type\":\"nested\",\"include_in_parent\":\"x\"}}}}",
               400, "a.include_in_parent");
    EXPECT_HAS("PUT", "/m", "{\"mappings\":{\"properties\":{\"a\":{\"type\":\"object\",\"include_in_parent\":true}}}}",
               400, "Mapping definition for [a] has unsupported parameters:  [include_in_parent : true]");
    EXPECT_HAS("GET", "/n/_field_caps?fields=comments.*", NULL, 200,
               "\"comments\":{\"nested\":{\"type\":\"nested\",\"searchable\":false,\"aggregatable\":false}}");
}

static void test_hidden_docs(void **s) {
    (void)s;
    IDS("{\"query\":{\"match_all\":{}}}", "1,2,3");
    EXPECT_HAS("POST", "/n/_count", "{\"query\":{\"match_all\":{}}}", 200, "\"count\":3");
    /* a nested field seen from the root has no values there */
    IDS("{\"query\":{\"term\":{\"comments.author\":\"a\"}}}", "");
    IDS("{\"query\":{\"bool\":{\"must_not\":{\"term\":{\"title\":\"t1\"}}}}}", "2,3");
    EXPECT_HAS("POST", "/n/_search?size=0", "{\"aggs\":{\"t\":{\"terms\":{\"field\":\"comments.author\"}}}}", 200,
               "\"t\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":[]}");
    /* fields inside nested objects come out flat, in source order, as
     * FieldFetcher reads them from the whole source */
    EXPECT("POST", "/n/_search?filter_path=hits.hits.fields",
           "{\"_source\":false,\"query\":{\"term\":{\"title\":\"t1\"}},\"fields\":[\"comments.n\",\"comments.author\","
           "\"comments.votes.v\"]}",
           200,
           "{\"hits\":{\"hits\":[{\"fields\":{\"comments.votes.v\":[1,2],\"comments.author\":[\"a\",\"b\"],"
           "\"comments.n\":[1,7]}}]}}"); /* (HashMap order: buckets 1, 5, 12) */
    /* Lucene's counts: 3 roots, 4 comments, 3 votes */
    EXPECT("GET", "/_cat/indices/n?h=docs.count,docs.deleted", NULL, 200, "10 0\n");
}

static void test_scores(void **s) {
    (void)s;
    float a1 = flat_score("1a"), b2 = flat_score("2b"), c2 = flat_score("2c");
    struct {
        const char *mode;
        float d1, d2;
    } cases[] = {
        {"avg", a1, (float)(((double)b2 + c2) / 2)},
        {"sum", a1, (float)((double)b2 + c2)},
        {"max", a1, (float)fmax(b2, c2)},
        {"min", a1, (float)fmin(b2, c2)},
        {"none", 0.0f, 0.0f},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[256];
        snprintf(body, sizeof body,
                 "{\"query\":{\"nested\":{\"path\":\"comments\",\"score_mode\":\"%s\",\"query\":{\"match\":{"
                 "\"comments.text\":\"quick\"}}}}}",
                 cases[i].mode);
        char *got;
        assert_int_equal(req("POST", "/n/_search", body, &got), 200);
        float d1 = score_of(got, "1"), d2 = score_of(got, "2");
        if (memcmp(&d1, &cases[i].d1, sizeof d1) || memcmp(&d2, &cases[i].d2, sizeof d2))
            fail_msg("%s: want %.9g %.9g got %.9g %.9g: %s", cases[i].mode, cases[i].d1, cases[i].d2, d1, d2, got);
        assert_null(strstr(got, "\"_id\":\"3\""));
        free(got);
    }
    /* the nested query's boost reaches the child weights (BM25 with boost
     * 2 is exactly twice the score) */
    char *got;
    assert_int_equal(req("POST", "/n/_search",
                         "{\"query\":{\"nested\":{\"path\":\"comments\",\"score_mode\":\"sum\",\"boost\":2,\"query\":{"
                         "\"match\":{\"comments.text\":\"quick\"}}}}}",
                         &got),
                     200);
    float want = (float)((double)(2 * b2) + 2 * c2), d2 = score_of(got, "2");
    if (memcmp(&want, &d2, sizeof d2)) fail_msg("boost: want %.9g got %.9g: %s", want, d2, got);
    free(got);
    /* inside bool: must adds the nested score to the others */
    IDS("{\"query\":{\"bool\":{\"must\":[{\"nested\":{\"path\":\"comments\",\"query\":{\"term\":{\"comments.author\":"
        "\"b\"}}}},{\"nested\":{\"path\":\"comments\",\"query\":{\"range\":{\"comments.n\":{\"gte\":5}}}}}]}}}",
        "1,2");
    /* one child must match both clauses when they are in one nested query */
    IDS("{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"bool\":{\"must\":[{\"term\":{\"comments.author\":"
        "\"b\"}},{\"range\":{\"comments.n\":{\"gte\":5}}}]}}}}}",
        "1");
}

static void test_scopes(void **s) {
    (void)s;
    /* a nested query inside another joins to the enclosing path's docs */
    IDS("{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"bool\":{\"must\":[{\"term\":{\"comments.author\":"
        "\"c\"}},{\"nested\":{\"path\":\"comments.votes\",\"query\":{\"range\":{\"comments.votes.v\":{\"gte\":2}}}}}]}}}}}",
        "2");
    IDS("{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"bool\":{\"must\":[{\"term\":{\"comments.author\":"
        "\"a\"}},{\"nested\":{\"path\":\"comments.votes\",\"query\":{\"range\":{\"comments.votes.v\":{\"gte\":2}}}}}]}}}}}",
        "1");
    /* from the root, the deeper path joins straight to the roots */
    IDS("{\"query\":{\"nested\":{\"path\":\"comments.votes\",\"query\":{\"range\":{\"comments.votes.v\":{\"lte\":2}}}}}}",
        "1");
    IDS("{\"query\":{\"nested\":{\"path\":\"nope\",\"ignore_unmapped\":true,\"query\":{\"match_all\":{}}}}}", "");
    /* must_not over children: docs with a comment not by b */
    IDS("{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"bool\":{\"must_not\":{\"term\":{\"comments.author\":"
        "\"b\"}}}}}}}",
        "1,2");
}

static void test_inner_hits(void **s) {
    (void)s;
    EXPECT("POST", "/n/_search?filter_path=hits.hits._id,hits.hits.inner_hits",
           "{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"term\":{\"comments.author\":\"b\"}},"
           "\"inner_hits\":{}}}}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"inner_hits\":{\"comments\":{\"hits\":{\"total\":{\"value\":1,"
           "\"relation\":\"eq\"},\"max_score\":1.0,\"hits\":[{\"_index\":\"n\",\"_id\":\"1\",\"_nested\":{\"field\":"
           "\"comments\",\"offset\":1},\"_score\":1.0,\"_source\":" C1B "}]}}}},{\"_id\":\"2\",\"inner_hits\":{"
           "\"comments\":{\"hits\":{\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":1.0,\"hits\":[{\"_index\":"
           "\"n\",\"_id\":\"2\",\"_nested\":{\"field\":\"comments\",\"offset\":0},\"_score\":1.0,\"_source\":" C2B
           "}]}}}}]}}");
    /* docvalue_fields of a nested hit: its own doc values, its root's
     * _seq_no, _version 1 and no _primary_term, as nested docs hold them
     * (printed in HashMap order) */
    EXPECT("POST", "/n/_search?filter_path=hits.hits.fields,hits.hits.inner_hits.*.hits.hits.fields",
           "{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"term\":{\"comments.author\":\"b\"}},"
           "\"inner_hits\":{\"docvalue_fields\":[\"comments.author\",\"_seq_no\",\"_version\",\"_primary_term\"]}}},"
           "\"docvalue_fields\":[\"_seq_no\",\"_primary_term\"],\"sort\":[\"title\"]}",
           200,
           "{\"hits\":{\"hits\":[{\"fields\":{\"_seq_no\":[0],\"_primary_term\":[1]},\"inner_hits\":{\"comments\":{"
           "\"hits\":{\"hits\":[{\"fields\":{\"_seq_no\":[0],\"comments.author\":[\"b\"],\"_version\":[1]}}]}}}},"
           "{\"fields\":{\"_seq_no\":[1],\"_primary_term\":[1]},\"inner_hits\":{\"comments\":{\"hits\":{\"hits\":[{"
           "\"fields\":{\"_seq_no\":[1],\"comments.author\":[\"b\"],\"_version\":[1]}}]}}}}]}}");
    /* rest_total_hits_as_int makes every hits.total a number, inner hits' too */
    EXPECT_HAS("POST", "/n/_search?rest_total_hits_as_int=true&filter_path=hits.total,hits.hits.inner_hits.*.hits.total",
               "{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"term\":{\"comments.author\":\"b\"}},"
               "\"inner_hits\":{}}}}",
               200, "{\"hits\":{\"total\":2,\"hits\":[{\"inner_hits\":{\"comments\":{\"hits\":{\"total\":1}}}}");
    /* ranked by score (the flat scores say 2c beats 2b), then paged;
     * version, no _source, a name */
    float b2 = flat_score("2b"), c2 = flat_score("2c");
    assert_true(c2 > b2);
    char *got;
    assert_int_equal(req("POST", "/n/_search?filter_path=hits.hits.inner_hits",
                         "{\"query\":{\"bool\":{\"filter\":{\"term\":{\"title\":\"t2\"}},\"must\":{\"nested\":{\"path\":"
                         "\"comments\",\"query\":{\"match\":{\"comments.text\":\"quick\"}},\"inner_hits\":{\"name\":"
                         "\"q\",\"size\":1,\"version\":true,\"_source\":false}}}}}}",
                         &got),
                     200);
    assert_non_null(strstr(got, "{\"hits\":{\"hits\":[{\"inner_hits\":{\"q\":{\"hits\":{\"total\":{\"value\":2,"
                                "\"relation\":\"eq\"},\"max_score\":"));
    assert_non_null(strstr(got, "\"hits\":[{\"_index\":\"n\",\"_id\":\"2\",\"_nested\""));
    /* the scores, numerically: the best child, which is also the max */
    float ms = NAN, sc = NAN;
    const char *p = strstr(got, "\"max_score\":");
    if (p) ms = strtof(p + 12, NULL);
    p = strstr(got, "\"_score\":");
    if (p) sc = strtof(p + 9, NULL);
    if (memcmp(&ms, &c2, sizeof ms) || memcmp(&sc, &c2, sizeof sc)) fail_msg("want %.9g: %s", c2, got);
    assert_non_null(strstr(got, "\"_nested\":{\"field\":\"comments\",\"offset\":1},\"_version\":1,\"_score\":"));
    assert_null(strstr(got, "_source"));
    free(got);
    /* from past the matches: the total stays */
    /* (max_score is over every match, as MaxScoreCollector's) */
    EXPECT_HAS("POST", "/n/_search",
               "{\"query\":{\"bool\":{\"filter\":{\"term\":{\"title\":\"t1\"}},\"should\":{\"nested\":{\"path\":"
               "\"comments\",\"query\":{\"match_all\":{}},\"inner_hits\":{\"from\":5}}}}}}",
               200, "\"inner_hits\":{\"comments\":{\"hits\":{\"total\":{\"value\":2,\"relation\":\"eq\"},\"max_score\":1.0,"
                    "\"hits\":[]}}}");
    /* size 0: the total alone */
    EXPECT_HAS("POST", "/n/_search",
               "{\"query\":{\"bool\":{\"filter\":{\"term\":{\"title\":\"t1\"}},\"should\":{\"nested\":{\"path\":"
               "\"comments\",\"query\":{\"match_all\":{}},\"inner_hits\":{\"size\":0}}}}}}",
               200, "\"inner_hits\":{\"comments\":{\"hits\":{\"total\":{\"value\":2,\"relation\":\"eq\"},\"max_score\":null,"
                    "\"hits\":[]}}}");
    EXPECT_HAS("POST", "/n/_search",
               "{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"match_all\":{}},\"inner_hits\":{\"size\":101}}}}",
               400,
               "Inner result window is too large, the inner hit definition's [comments]'s from + size must be less than "
               "or equal to: [100] but was [101].");
    /* sort by a field: no scores (max_score null) unless track_scores,
     * a "sort" array, missing values last */
    EXPECT("POST", "/n/_search?filter_path=hits.hits.inner_hits",
           "{\"query\":{\"bool\":{\"filter\":{\"term\":{\"title\":\"t1\"}},\"must\":{\"nested\":{\"path\":\"comments\","
           "\"query\":{\"match_all\":{}},\"inner_hits\":{\"_source\":false,\"sort\":[{\"comments.n\":\"desc\"}]}}}}}}",
           200,
           "{\"hits\":{\"hits\":[{\"inner_hits\":{\"comments\":{\"hits\":{\"total\":{\"value\":2,\"relation\":\"eq\"},"
           "\"max_score\":null,\"hits\":[{\"_index\":\"n\",\"_id\":\"1\",\"_nested\":{\"field\":\"comments\",\"offset\":1},"
           "\"_score\":null,\"sort\":[7]},{\"_index\":\"n\",\"_id\":\"1\",\"_nested\":{\"field\":\"comments\",\"offset\":0},"
           "\"_score\":null,\"sort\":[1]}]}}}}]}}");
    EXPECT_HAS("POST", "/n/_search?filter_path=hits.hits.inner_hits",
               "{\"query\":{\"bool\":{\"filter\":{\"term\":{\"title\":\"t2\"}},\"must\":{\"nested\":{\"path\":"
               "\"comments\",\"query\":{\"match_all\":{}},\"inner_hits\":{\"_source\":false,\"track_scores\":true,"
               "\"sort\":[{\"comments.author\":{\"order\":\"desc\"}}]}}}}}}",
               200,
               "\"max_score\":1.0,\"hits\":[{\"_index\":\"n\",\"_id\":\"2\",\"_nested\":{\"field\":\"comments\",\"offset\":1},"
               "\"_score\":1.0,\"sort\":[\"c\"]},{\"_index\":\"n\",\"_id\":\"2\",\"_nested\":{\"field\":\"comments\","
               "\"offset\":0},\"_score\":1.0,\"sort\":[\"b\"]}]");
    EXPECT_HAS("POST", "/n/_search",
               "{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"match_all\":{}},\"inner_hits\":{\"sort\":["
               "\"nope\"]}}}}",
               400, "No mapping found for [nope] in order to sort on");
    EXPECT_HAS("POST", "/n/_search",
               "{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"match_all\":{}},\"inner_hits\":{\"bogus\":1}}}}",
               400, "[inner_hits] unknown field [bogus]");
    /* highlight in inner hits: the inner query's terms over each object */
    EXPECT("POST", "/n/_search?filter_path=hits.hits._id,hits.hits.inner_hits.*.hits.hits.highlight",
           "{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"match\":{\"comments.text\":\"quick\"}},"
           "\"inner_hits\":{\"_source\":false,\"highlight\":{\"fields\":{\"comments.text\":{}}}}}}}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"2\",\"inner_hits\":{\"comments\":{\"hits\":{\"hits\":[{\"highlight\":{"
           "\"comments.text\":[\"<em>quick</em>\"]}},{\"highlight\":{\"comments.text\":[\"<em>quick</em> <em>quick</em> "
           "dog\"]}}]}}}},{\"_id\":\"1\",\"inner_hits\":{\"comments\":{\"hits\":{\"hits\":[{\"highlight\":{"
           "\"comments.text\":[\"<em>quick</em> fox\"]}}]}}}}]}}");
    /* a source filter in inner_hits, by full path */
    EXPECT("POST", "/n/_search?filter_path=hits.hits.inner_hits.*.hits.hits._source",
           "{\"query\":{\"bool\":{\"filter\":{\"term\":{\"title\":\"t1\"}},\"must\":{\"nested\":{\"path\":\"comments\","
           "\"query\":{\"match_all\":{}},\"inner_hits\":{\"_source\":{\"excludes\":[\"comments.votes\",\"comments.text\"]}}}}}}}",
           200,
           "{\"hits\":{\"hits\":[{\"inner_hits\":{\"comments\":{\"hits\":{\"hits\":[{\"_source\":{\"author\":\"a\",\"n\":1}},"
           "{\"_source\":{\"author\":\"b\",\"n\":7}}]}}}}]}}");
    /* a deeper path from the root: the identity has both levels */
    EXPECT("POST", "/n/_search?filter_path=hits.hits._id,hits.hits.inner_hits",
           "{\"query\":{\"nested\":{\"path\":\"comments.votes\",\"query\":{\"range\":{\"comments.votes.v\":{\"gte\":2}}},"
           "\"inner_hits\":{}}}}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"inner_hits\":{\"comments.votes\":{\"hits\":{\"total\":{\"value\":1,"
           "\"relation\":\"eq\"},\"max_score\":1.0,\"hits\":[{\"_index\":\"n\",\"_id\":\"1\",\"_nested\":{\"field\":"
           "\"comments\",\"offset\":0,\"_nested\":{\"field\":\"votes\",\"offset\":1}},\"_score\":1.0,\"_source\":{"
           "\"v\":2}}]}}}},{\"_id\":\"2\",\"inner_hits\":{\"comments.votes\":{\"hits\":{\"total\":{\"value\":1,"
           "\"relation\":\"eq\"},\"max_score\":1.0,\"hits\":[{\"_index\":\"n\",\"_id\":\"2\",\"_nested\":{\"field\":"
           "\"comments\",\"offset\":1,\"_nested\":{\"field\":\"votes\",\"offset\":0}},\"_score\":1.0,\"_source\":{"
           "\"v\":9}}]}}}}]}}");
    /* inside a nested query without inner_hits, inner_hits are not looked
     * for (extractInnerHitBuilders); inside one with them, they would nest */
    EXPECT("POST", "/n/_search?filter_path=hits.hits._id,hits.hits.inner_hits",
           "{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"nested\":{\"path\":\"comments.votes\","
           "\"query\":{\"match_all\":{}},\"inner_hits\":{}}}}}}",
           200, "{\"hits\":{\"hits\":[{\"_id\":\"1\"},{\"_id\":\"2\"}]}}");
    /* hierarchical: each comment's inner hit holds its votes' inner hits,
     * with the whole identity from the root */
    EXPECT("POST", "/n/_search?filter_path=hits.hits._id,hits.hits.inner_hits",
           "{\"_source\":false,\"query\":{\"nested\":{\"path\":\"comments\",\"inner_hits\":{\"_source\":false},"
           "\"query\":{\"nested\":{\"path\":\"comments.votes\",\"query\":{\"range\":{\"comments.votes.v\":{\"gte\":2}}},"
           "\"inner_hits\":{}}}}}}",
           200,
           "{\"hits\":{\"hits\":[{\"_id\":\"1\",\"inner_hits\":{\"comments\":{\"hits\":{\"total\":{\"value\":1,"
           "\"relation\":\"eq\"},\"max_score\":1.0,\"hits\":[{\"_index\":\"n\",\"_id\":\"1\",\"_nested\":{\"field\":"
           "\"comments\",\"offset\":0},\"_score\":1.0,\"inner_hits\":{\"comments.votes\":{\"hits\":{\"total\":{"
           "\"value\":1,\"relation\":\"eq\"},\"max_score\":1.0,\"hits\":[{\"_index\":\"n\",\"_id\":\"1\",\"_nested\":{"
           "\"field\":\"comments\",\"offset\":0,\"_nested\":{\"field\":\"votes\",\"offset\":1}},\"_score\":1.0,"
           "\"_source\":{\"v\":2}}]}}}}]}}}},{\"_id\":\"2\",\"inner_hits\":{\"comments\":{\"hits\":{\"total\":{"
           "\"value\":1,\"relation\":\"eq\"},\"max_score\":1.0,\"hits\":[{\"_index\":\"n\",\"_id\":\"2\",\"_nested\":{"
           "\"field\":\"comments\",\"offset\":1},\"_score\":1.0,\"inner_hits\":{\"comments.votes\":{\"hits\":{"
           "\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":1.0,\"hits\":[{\"_index\":\"n\",\"_id\":\"2\","
           "\"_nested\":{\"field\":\"comments\",\"offset\":1,\"_nested\":{\"field\":\"votes\",\"offset\":0}},"
           "\"_score\":1.0,\"_source\":{\"v\":9}}]}}}}]}}}}]}}");
}

static void test_aggs(void **s) {
    (void)s;
    EXPECT("POST", "/n/_search?size=0&filter_path=aggregations",
           "{\"aggs\":{\"c\":{\"nested\":{\"path\":\"comments\"},\"aggs\":{\"by\":{\"terms\":{\"field\":"
           "\"comments.author\"},\"aggs\":{\"back\":{\"reverse_nested\":{},\"aggs\":{\"t\":{\"terms\":{\"field\":"
           "\"title\"}}}}}},\"n\":{\"sum\":{\"field\":\"comments.n\"}}}}}}",
           200,
           "{\"aggregations\":{\"c\":{\"doc_count\":4,\"by\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,"
           "\"buckets\":[{\"key\":\"b\",\"doc_count\":2,\"back\":{\"doc_count\":2,\"t\":{\"doc_count_error_upper_bound\":0,"
           "\"sum_other_doc_count\":0,\"buckets\":[{\"key\":\"t1\",\"doc_count\":1},{\"key\":\"t2\",\"doc_count\":1}]}}},"
           "{\"key\":\"a\",\"doc_count\":1,\"back\":{\"doc_count\":1,\"t\":{\"doc_count_error_upper_bound\":0,"
           "\"sum_other_doc_count\":0,\"buckets\":[{\"key\":\"t1\",\"doc_count\":1}]}}},{\"key\":\"c\",\"doc_count\":1,"
           "\"back\":{\"doc_count\":1,\"t\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":[{"
           "\"key\":\"t2\",\"doc_count\":1}]}}}]},\"n\":{\"value\":16.0}}}}");
    /* two levels: votes under comments, back up to the comments */
    EXPECT("POST", "/n/_search?size=0&filter_path=aggregations",
           "{\"aggs\":{\"c\":{\"nested\":{\"path\":\"comments\"},\"aggs\":{\"v\":{\"nested\":{\"path\":"
           "\"comments.votes\"},\"aggs\":{\"max\":{\"max\":{\"field\":\"comments.votes.v\"}},\"up\":{\"reverse_nested\":"
           "{\"path\":\"comments\"},\"aggs\":{\"a\":{\"terms\":{\"field\":\"comments.author\"}}}}}}}}}}",
           200,
           "{\"aggregations\":{\"c\":{\"doc_count\":4,\"v\":{\"doc_count\":3,\"max\":{\"value\":9.0},\"up\":{\"doc_count\":2,"
           "\"a\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,\"buckets\":[{\"key\":\"a\",\"doc_count\":1},"
           "{\"key\":\"c\",\"doc_count\":1}]}}}}}}");
    /* the query picks the roots; a filter inside reads the children */
    EXPECT("POST", "/n/_search?size=0&filter_path=aggregations&typed_keys",
           "{\"query\":{\"term\":{\"title\":\"t2\"}},\"aggs\":{\"c\":{\"nested\":{\"path\":\"comments\"},\"aggs\":{\"f\":{"
           "\"filter\":{\"term\":{\"comments.author\":\"b\"}},\"aggs\":{\"avg\":{\"avg\":{\"field\":\"comments.n\"}}}}}},"
           "\"gone\":{\"nested\":{\"path\":\"nope\"}}}}",
           200,
           "{\"aggregations\":{\"nested#c\":{\"doc_count\":2,\"filter#f\":{\"doc_count\":1,\"avg#avg\":{\"value\":3.0}}},"
           "\"nested#gone\":{\"doc_count\":0}}}");
    EXPECT_HAS("POST", "/n/_search?size=0", "{\"aggs\":{\"r\":{\"reverse_nested\":{}}}}", 400,
               "Reverse nested aggregation [r] can only be used inside a [nested] aggregation");
    EXPECT_HAS("POST", "/n/_search?size=0", "{\"aggs\":{\"c\":{\"nested\":{\"path\":\"title\"}}}}", 500,
               "\"type\":\"aggregation_execution_exception\",\"reason\":\"[nested] nested path [title] is not nested\"");
    EXPECT_HAS("POST", "/n/_search?size=0", "{\"aggs\":{\"c\":{\"nested\":{}}}}", 400,
               "Missing [path] field for nested aggregation [c]");
    EXPECT_HAS("POST", "/n/_search?size=0", "{\"aggs\":{\"c\":{\"nested\":{\"path\":1}}}}", 400,
               "Unexpected token VALUE_NUMBER in [c].");
    /* top_hits of nested docs: the root's _id, the nested identity, the
     * object's source; the parent's score (1.0 for match_all), ties in
     * doc order */
    EXPECT("POST", "/n/_search?size=0&filter_path=aggregations.c.h",
           "{\"aggs\":{\"c\":{\"nested\":{\"path\":\"comments\"},\"aggs\":{\"h\":{\"top_hits\":{}}}}}}", 200,
           "{\"aggregations\":{\"c\":{\"h\":{\"hits\":{\"total\":{\"value\":4,\"relation\":\"eq\"},\"max_score\":1.0,"
           "\"hits\":[{\"_index\":\"n\",\"_id\":\"1\",\"_nested\":{\"field\":\"comments\",\"offset\":0},\"_score\":1.0,"
           "\"_source\":" C1A "},{\"_index\":\"n\",\"_id\":\"1\",\"_nested\":{\"field\":\"comments\",\"offset\":1},"
           "\"_score\":1.0,\"_source\":" C1B "},{\"_index\":\"n\",\"_id\":\"2\",\"_nested\":{\"field\":\"comments\","
           "\"offset\":0},\"_score\":1.0,\"_source\":" C2B "}]}}}}}");
    /* two levels: the identity nests, the source is the innermost object */
    EXPECT("POST", "/n/_search?size=0&filter_path=aggregations.c.v.h.hits.hits",
           "{\"aggs\":{\"c\":{\"nested\":{\"path\":\"comments\"},\"aggs\":{\"v\":{\"nested\":{\"path\":"
           "\"comments.votes\"},\"aggs\":{\"h\":{\"top_hits\":{\"size\":2,\"sort\":[{\"comments.votes.v\":\"desc\"}]}}}}}}}}",
           200,
           "{\"aggregations\":{\"c\":{\"v\":{\"h\":{\"hits\":{\"hits\":[{\"_index\":\"n\",\"_id\":\"2\",\"_nested\":{"
           "\"field\":\"comments\",\"offset\":1,\"_nested\":{\"field\":\"votes\",\"offset\":0}},\"_score\":null,"
           "\"_source\":{\"v\":9},\"sort\":[9]},{\"_index\":\"n\",\"_id\":\"1\",\"_nested\":{\"field\":\"comments\","
           "\"offset\":0,\"_nested\":{\"field\":\"votes\",\"offset\":1}},\"_score\":null,\"_source\":{\"v\":2},"
           "\"sort\":[2]}]}}}}}}");
    /* a source filter names full paths: it applies to the object wrapped
     * in its paths, then the object is unwrapped (FetchSourcePhase) */
    EXPECT("POST", "/n/_search?size=0&filter_path=aggregations.c.h.hits.hits._source",
           "{\"aggs\":{\"c\":{\"nested\":{\"path\":\"comments\"},\"aggs\":{\"h\":{\"top_hits\":{\"size\":2,\"_source\":{"
           "\"includes\":[\"comments.author\",\"comments.n\"]}}}}}}}",
           200,
           "{\"aggregations\":{\"c\":{\"h\":{\"hits\":{\"hits\":[{\"_source\":{\"author\":\"a\",\"n\":1}},{\"_source\":{"
           "\"author\":\"b\",\"n\":7}}]}}}}}");
    EXPECT("POST", "/n/_search?size=0&filter_path=aggregations.c.h.hits.hits._source",
           "{\"aggs\":{\"c\":{\"nested\":{\"path\":\"comments\"},\"aggs\":{\"h\":{\"top_hits\":{\"size\":1,\"_source\":{"
           "\"includes\":[\"author\"]}}}}}}}",
           200, "{\"aggregations\":{\"c\":{\"h\":{\"hits\":{\"hits\":[{\"_source\":{}}]}}}}}"); /* (nothing left: {}) */
}

static void test_sort(void **s) {
    (void)s;
    /* 1: n 1,7; 2: n 3,5; 3: none (last) */
    IDS("{\"sort\":[{\"comments.n\":{\"order\":\"asc\",\"nested\":{\"path\":\"comments\"}}}]}", "1,2,3");
    IDS("{\"sort\":[{\"comments.n\":{\"order\":\"desc\",\"nested\":{\"path\":\"comments\"}}}]}", "1,2,3");
    IDS("{\"sort\":[{\"comments.n\":{\"order\":\"asc\",\"mode\":\"max\",\"nested\":{\"path\":\"comments\"}}}]}", "2,1,3");
    /* avg ties (4 and 4): doc order */
    IDS("{\"sort\":[{\"comments.n\":{\"order\":\"desc\",\"mode\":\"avg\",\"nested\":{\"path\":\"comments\"}}}]}", "1,2,3");
    /* only b's comments count: 1 has 7, 2 has 3 */
    IDS("{\"sort\":[{\"comments.n\":{\"order\":\"asc\",\"nested\":{\"path\":\"comments\",\"filter\":{\"term\":{"
        "\"comments.author\":\"b\"}}}}}]}",
        "2,1,3");
    EXPECT_HAS("POST", "/n/_search", "{\"sort\":[{\"comments.n\":{\"order\":\"asc\",\"nested\":{\"path\":\"comments\"}}}]}",
               200, "\"_id\":\"1\",\"_score\":null,\"_source\":{\"title\":\"t1\",\"comments\":[" C1A "," C1B "]},\"sort\":[1]}");
    EXPECT_HAS("POST", "/n/_search", "{\"sort\":[{\"comments.author\":{\"order\":\"desc\",\"nested\":{\"path\":\"comments\"}}}]}",
               200, "\"sort\":[\"c\"]");
    EXPECT_HAS("POST", "/n/_search", "{\"sort\":[{\"comments.n\":\"asc\"}]}", 400,
               "it is mandatory to set the [nested] context on the nested sort field: [comments.n].");
    EXPECT_HAS("POST", "/n/_search", "{\"sort\":[{\"comments.n\":{\"nested\":{\"path\":\"title\"}}}]}", 400,
               "[nested] nested object under path [title] is not of nested type");
}

static void test_errors(void **s) {
    (void)s;
    EXPECT("POST", "/n/_search", "{\"query\":{\"nested\":{\"path\":\"nope\",\"query\":{\"match_all\":{}}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"query_shard_exception\",\"reason\":\"failed to create query: [nested] "
           "failed to find nested object under path [nope]\",\"index\":\"n\",\"index_uuid\":\"X\"}],\"type\":"
           "\"search_phase_execution_exception\",\"reason\":\"all shards failed\",\"phase\":\"query\",\"grouped\":true,"
           "\"failed_shards\":[{\"shard\":0,\"index\":\"n\",\"node\":\"X\",\"reason\":{\"type\":\"query_shard_exception\","
           "\"reason\":\"failed to create query: [nested] failed to find nested object under path [nope]\",\"index\":"
           "\"n\",\"index_uuid\":\"X\",\"caused_by\":{\"type\":\"illegal_state_exception\",\"reason\":\"[nested] failed to "
           "find nested object under path [nope]\"}}}],\"caused_by\":{\"type\":\"query_shard_exception\",\"reason\":"
           "\"failed to create query: [nested] failed to find nested object under path [nope]\",\"index\":\"n\","
           "\"index_uuid\":\"X\",\"caused_by\":{\"type\":\"illegal_state_exception\",\"reason\":\"[nested] failed to find "
           "nested object under path [nope]\"}}},\"status\":400}");
    EXPECT_HAS("POST", "/n/_search", "{\"query\":{\"nested\":{\"path\":\"title\",\"query\":{\"match_all\":{}}}}}", 400,
               "[nested] nested object under path [title] is not of nested type");
    EXPECT_HAS("POST", "/n/_search", "{\"query\":{\"nested\":{\"query\":{\"match_all\":{}}}}}", 400,
               "[nested] requires 'path' field");
    EXPECT_HAS("POST", "/n/_search", "{\"query\":{\"nested\":{\"path\":\"comments\"}}}", 400,
               "[nested] requires 'query' field");
    EXPECT_HAS("POST", "/n/_search",
               "{\"query\":{\"nested\":{\"path\":\"comments\",\"score_mode\":\"total\",\"query\":{\"match_all\":{}}}}}",
               400, "No score mode for child query [total] found");
    EXPECT_HAS("POST", "/n/_search", "{\"query\":{\"nested\":{\"path\":\"comments\",\"bogus\":1,\"query\":{}}}}", 400,
               "[nested] query does not support [bogus]");
    EXPECT_HAS("POST", "/n/_search",
               "{\"explain\":true,\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"match_all\":{}}}}}", 400,
               "[explain] of a [nested] query is not supported by trove");

}

static void test_writes(void **s) {
    (void)s;
    /* an update replaces the whole block; a delete removes it */
    OK("PUT", "/n/_doc/1?refresh=true", "{\"title\":\"t1\",\"comments\":[{\"author\":\"z\",\"n\":2}]}");
    IDS("{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"term\":{\"comments.author\":\"a\"}}}}}", "");
    IDS("{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"term\":{\"comments.author\":\"z\"}}}}}", "1");
    OK("DELETE", "/n/_doc/2?refresh=true", NULL);
    EXPECT_HAS("POST", "/n/_search?size=0",
               "{\"aggs\":{\"c\":{\"nested\":{\"path\":\"comments\"},\"aggs\":{\"a\":{\"terms\":{\"field\":"
               "\"comments.author\"}}}}}}",
               200, "\"c\":{\"doc_count\":1,\"a\":{\"doc_count_error_upper_bound\":0,\"sum_other_doc_count\":0,"
                    "\"buckets\":[{\"key\":\"z\",\"doc_count\":1}]}}");
    EXPECT("GET", "/_cat/indices/n?h=docs.count,docs.deleted", NULL, 200, "3 9\n");
    /* a merge keeps blocks whole and drops the deleted ones */
    OK("POST", "/n/_forcemerge?max_num_segments=1", NULL);
    OK("POST", "/n/_refresh", NULL);
    EXPECT("GET", "/_cat/indices/n?h=docs.count,docs.deleted", NULL, 200, "3 0\n");
    IDS("{\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"term\":{\"comments.author\":\"z\"}}}}}", "1");
    /* doc 1 was indexed again after doc 3: it comes later now */
    IDS("{\"query\":{\"match_all\":{}}}", "3,1");
    /* index.mapping.nested_objects.limit counts every nested doc */
    OK("PUT", "/lim", "{\"settings\":{\"index.mapping.nested_objects.limit\":2},\"mappings\":{\"properties\":{\"a\":{"
                      "\"type\":\"nested\",\"properties\":{\"b\":{\"type\":\"nested\"}}}}}}");
    OK("PUT", "/lim/_doc/1", "{\"a\":[{\"b\":{\"x\":1}}]}");
    EXPECT("PUT", "/lim/_doc/2", "{\"a\":[{\"b\":{\"x\":1}},{}]}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"mapper_parsing_exception\",\"reason\":\"failed to parse\"}],\"type\":"
           "\"mapper_parsing_exception\",\"reason\":\"failed to parse\",\"caused_by\":{\"type\":"
           "\"illegal_argument_exception\",\"reason\":\"The number of nested documents has exceeded the allowed limit "
           "of [2]. This limit can be set by changing the [index.mapping.nested_objects.limit] index level "
           "setting.\"}},\"status\":400}");
}

static void test_include_in_parent(void **s) {
    (void)s;
    OK("PUT", "/ip",
       "{\"mappings\":{\"properties\":{\"a\":{\"type\":\"nested\",\"include_in_parent\":true,\"properties\":{\"x\":{"
       "\"type\":\"keyword\"},\"b\":{\"type\":\"nested\",\"include_in_root\":true,\"properties\":{\"y\":{\"type\":"
       "\"keyword\"}}}}}}}}");
    EXPECT_HAS("GET", "/ip/_mapping", NULL, 200,
               "\"a\":{\"type\":\"nested\",\"include_in_parent\":true,\"properties\":{\"b\":{\"type\":\"nested\","
               "\"include_in_root\":true,");
    OK("PUT", "/ip/_doc/1?refresh=true", "{\"a\":[{\"x\":\"p\",\"b\":{\"y\":\"q\"}},{\"x\":\"r\"}]}");
    /* a's fields are the root's too (flattened: x p and r together) */
    ids_("/ip/_search", "{\"query\":{\"term\":{\"a.x\":\"r\"}}}", "1", __LINE__);
    ids_("/ip/_search", "{\"query\":{\"term\":{\"a.b.y\":\"q\"}}}", "1", __LINE__);
    /* still nested docs too */
    ids_("/ip/_search", "{\"query\":{\"nested\":{\"path\":\"a\",\"query\":{\"term\":{\"a.x\":\"p\"}}}}}", "1", __LINE__);
    ids_("/ip/_search",
         "{\"query\":{\"nested\":{\"path\":\"a\",\"query\":{\"bool\":{\"must\":[{\"term\":{\"a.x\":\"r\"}},{\"term\":{"
         "\"a.b.y\":\"q\"}}]}}}}}",
         "", __LINE__);
    /* b is not in a's docs (include_in_root, not include_in_parent) */
    ids_("/ip/_search",
         "{\"query\":{\"nested\":{\"path\":\"a\",\"query\":{\"term\":{\"a.b.y\":\"q\"}}}}}", "", __LINE__);
}

/* top_hits fetch the query's nested inner hits for their root hits (the
 * search's fetch sub-phases run for top_hits), after the page's own. */
static void test_top_hits_inner_hits(void **s) {
    (void)s;
    char *got;
    int st = req("POST", "/n/_search?filter_path=aggregations",
                 "{\"size\":1,\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"match\":{\"comments.text\":\"quick\"}},"
                 "\"inner_hits\":{\"_source\":false}}},\"aggs\":{\"t\":{\"terms\":{\"field\":\"title\"},"
                 "\"aggs\":{\"h\":{\"top_hits\":{\"size\":1,\"_source\":false}}}}}}",
                 &got);
    assert_int_equal(st, 200);
    /* t1: comment 0 matches; t2: both, comment 1 ("quick") scoring first */
    const char *t1 = strstr(got, "\"key\":\"t1\""), *t2 = strstr(got, "\"key\":\"t2\"");
    assert_non_null(t1);
    assert_non_null(t2);
    const char *ih1 = strstr(t1, "\"inner_hits\":{\"comments\":{\"hits\":{\"total\":{\"value\":1,");
    const char *ih2 = strstr(t2, "\"inner_hits\":{\"comments\":{\"hits\":{\"total\":{\"value\":2,");
    if (!ih1 || ih1 > t2 || !ih2) fail_msg("%s", got);
    assert_non_null(strstr(ih1, "\"_nested\":{\"field\":\"comments\",\"offset\":0}"));
    assert_non_null(strstr(ih2, "\"_nested\":{\"field\":\"comments\",\"offset\":1}"));
    free(got);
    /* without inner_hits in the query, none */
    st = req("POST", "/n/_search?filter_path=aggregations",
             "{\"size\":0,\"query\":{\"nested\":{\"path\":\"comments\",\"query\":{\"match_all\":{}}}},"
             "\"aggs\":{\"h\":{\"top_hits\":{\"size\":3}}}}",
             &got);
    assert_int_equal(st, 200);
    assert_null(strstr(got, "inner_hits"));
    free(got);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_mapping, load, teardown),
        cmocka_unit_test_setup_teardown(test_hidden_docs, load, teardown),
        cmocka_unit_test_setup_teardown(test_scores, load, teardown),
        cmocka_unit_test_setup_teardown(test_scopes, load, teardown),
        cmocka_unit_test_setup_teardown(test_inner_hits, load, teardown),
        cmocka_unit_test_setup_teardown(test_top_hits_inner_hits, load, teardown),
        cmocka_unit_test_setup_teardown(test_aggs, load, teardown),
        cmocka_unit_test_setup_teardown(test_sort, load, teardown),
        cmocka_unit_test_setup_teardown(test_errors, load, teardown),
        cmocka_unit_test_setup_teardown(test_writes, load, teardown),
        cmocka_unit_test_setup_teardown(test_include_in_parent, load, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
