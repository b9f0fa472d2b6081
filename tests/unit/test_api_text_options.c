/*
 * test_api_text_options.c — the text field options that add hidden
 * sub-fields or only describe storage: index_prefixes (edge n-grams in
 * "<f>._index_prefix", prefix queries rewritten to a term on it),
 * index_phrases (2-shingles in "<f>._index_phrase", slop-0 phrases
 * rewritten to it), term_vector (accepted; highlighters work on such
 * fields), and the search_as_you_type field type (shingle and prefix
 * sub-fields), through trove_request.
 *
 * Expected answers follow OpenSearch 3.x's TextFieldMapper (PrefixConfig
 * validation, PrefixFieldType.accept / prefixQuery, phraseQuery),
 * TextParams.termVectors and the YAML suites search/190_index_prefix_search,
 * search/200_index_phrase_search and search.inner_hits/20_highlighting*;
 * the query strings are Lucene's toString of those queries. They were not
 * checked against a running OpenSearch.
 */
#include "api_test.h"

#define EXPL(idx, query, want)                                                                    \
    EXPECT_HAS("POST", "/" idx "/_validate/query?explain=true", "{\"query\":" query "}", 200, \
               "\"explanation\":\"" want "\"")

static void hits_are(const char *idx, const char *body, const char *want) {
    char path[128], got[512];
    snprintf(path, sizeof path, "/%s/_search", idx);
    char *out;
    int st = req("POST", path, body, &out);
    hit_list(out, true, got, sizeof got);
    if (st != 200 || strcmp(got, want) != 0) fail_msg("%s\n want %s\n got  %d %s", body, want, st, out);
    free(out);
}

static void t_prefix_mapping(void **s) {
    (void)s;
    OK("PUT", "/p0", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"index_prefixes\":{}}}}}");
    /* PrefixConfig prints both bounds; the hidden sub-field is not listed */
    EXPECT("GET", "/p0/_mapping", NULL, 200,
           "{\"p0\":{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"index_prefixes\":"
           "{\"min_chars\":2,\"max_chars\":5}}}}}}");
    EXPECT_HAS("PUT", "/p1", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"index_prefixes\":{\"min_chars\":0}}}}}",
               400, "min_chars [0] must be greater than zero");
    EXPECT_HAS("PUT", "/p1", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"index_prefixes\":{\"max_chars\":20}}}}}",
               400, "max_chars [20] must be less than 20");
    EXPECT_HAS("PUT", "/p1",
               "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"index_prefixes\":{\"min_chars\":4,\"max_chars\":3}}}}}",
               400, "min_chars [4] must be less than max_chars [3]");
    EXPECT_HAS("PUT", "/p1", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"index_prefixes\":{\"foo\":1}}}}}",
               400, "Mapping definition for [index_prefixes] has unsupported parameters:  [foo : 1]");
    EXPECT_HAS("PUT", "/p1",
               "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"index\":false,\"index_prefixes\":{}}}}}",
               400, "Cannot set index_prefixes on unindexed field [t]");
    /* not updatable */
    EXPECT_HAS("PUT", "/p0/_mapping",
               "{\"properties\":{\"t\":{\"type\":\"text\",\"index_prefixes\":{\"min_chars\":3}}}}", 400,
               "Cannot update parameter [index_prefixes]");
    /* the same definition again is no conflict, and the field still works */
    OK("PUT", "/p0/_mapping", "{\"properties\":{\"t\":{\"type\":\"text\",\"index_prefixes\":{\"max_chars\":5}}}}");
    OK("PUT", "/p0/_doc/1?refresh=true", "{\"t\":\"hello world\"}");
    hits_are("p0", "{\"query\":{\"prefix\":{\"t\":\"hel\"}}}", "1:1.0");
    OK("DELETE", "/p0", NULL);
}

static void t_prefix_search(void **s) {
    (void)s;
    OK("PUT", "/pt", "{\"mappings\":{\"properties\":{\"text\":{\"type\":\"text\",\"index_prefixes\":"
                     "{\"min_chars\":2,\"max_chars\":5}},\"plain\":{\"type\":\"text\"}}}}");
    OK("PUT", "/pt/_doc/1", "{\"text\":\"some short words with a stupendously long one\"}");
    OK("PUT", "/pt/_doc/2", "{\"text\":\"sentence with UPPERCASE WORDS\",\"plain\":\"x\"}");
    OK("POST", "/pt/_refresh", NULL);
    /* in range: a term on the prefix field, constant score */
    /* _validate's explain does not print the sub-field queries (yet): it refuses */
    EXPECT_HAS("POST", "/pt/_validate/query?explain=true", "{\"query\":{\"prefix\":{\"text\":\"shor\"}}}", 400,
               "unsupported_operation_exception");
    hits_are("pt", "{\"query\":{\"query_string\":{\"default_field\":\"text\",\"query\":\"shor*\",\"boost\":2}}}", "1:2.0");
    hits_are("pt", "{\"query\":{\"prefix\":{\"text\":{\"value\":\"wor\",\"boost\":3}}}}", "1:3.0,2:3.0");
    /* one char short of min_chars: prefix-field terms of min_chars, or the
     * parent's term itself ("a" is a word of doc 1) */
    hits_are("pt", "{\"query\":{\"query_string\":{\"default_field\":\"text\",\"query\":\"a*\",\"boost\":2}}}", "1:2.0");
    hits_are("pt", "{\"query\":{\"prefix\":{\"text\":\"o\"}}}", "1:1.0");
    hits_are("pt", "{\"query\":{\"prefix\":{\"text\":\"x\"}}}", "");
    /* longer than max_chars: the ordinary prefix query on the field */
    hits_are("pt", "{\"query\":{\"query_string\":{\"default_field\":\"text\",\"query\":\"stupendousl*\"}}}", "1:1.0");
    EXPL("pt", "{\"prefix\":{\"text\":\"stupendousl\"}}", "text:stupendousl*");
    /* the prefix field holds the analyzed (lower-cased) terms */
    hits_are("pt", "{\"query\":{\"prefix\":{\"text\":\"upp\"}}}", "2:1.0");
    hits_are("pt", "{\"query\":{\"prefix\":{\"text\":\"UPP\"}}}", "");
    /* match_phrase_prefix and match_bool_prefix use it for their last term */
    hits_are("pt", "{\"query\":{\"match_bool_prefix\":{\"text\":\"sentence wo\"}}}", "2:1.3648143,1:1.0");
    /* match_phrase_prefix: one position is a (scored) term on the prefix
     * field; more would be a span query, refused */
    hits_are("pt", "{\"query\":{\"match_phrase_prefix\":{\"text\":\"wor\"}},\"_source\":false}",
             "1:0.13531679,2:0.13531679");
    EXPECT_HAS("POST", "/pt/_search", "{\"query\":{\"match_phrase_prefix\":{\"text\":\"short wor\"}}}", 400,
               "[match_phrase_prefix] on field [text] with [index_prefixes] is not supported by trove");
    /* a last term longer than max_chars keeps the ordinary phrase prefix */
    hits_are("pt", "{\"query\":{\"match_phrase_prefix\":{\"text\":\"a stupendous\"}},\"_source\":false}", "1:0.5545178");
    /* prefix queries on the sub-field are no expensive queries */
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"search.allow_expensive_queries\":false}}");
    hits_are("pt", "{\"query\":{\"prefix\":{\"text\":\"stu\"}}}", "1:1.0");
    EXPECT_HAS("POST", "/pt/_search", "{\"query\":{\"prefix\":{\"plain\":\"x\"}}}", 500,
               "[prefix] queries cannot be executed when 'search.allow_expensive_queries' is set to false");
    OK("PUT", "/_cluster/settings", "{\"transient\":{\"search.allow_expensive_queries\":null}}");
    /* field_caps lists the hidden field under its field type's name */
    EXPECT_HAS("GET", "/pt/_field_caps?fields=text*", NULL, 200,
               "\"text._index_prefix\":{\"prefix\":{\"type\":\"prefix\",\"searchable\":true,\"aggregatable\":false}}");
    EXPECT_HAS("GET", "/pt/_field_caps?fields=text._index_prefix", NULL, 200, "\"type\":\"prefix\"");
    OK("DELETE", "/pt", NULL);
}

static void t_phrases(void **s) {
    (void)s;
    EXPECT_HAS("PUT", "/ph",
               "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"index_phrases\":true,\"index_options\":\"freqs\"}}}}",
               400, "Cannot set index_phrases on field [t] if positions are not enabled");
    EXPECT_HAS("PUT", "/ph", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"index_phrases\":true,\"index\":false}}}}",
               400, "Cannot set index_phrases on unindexed field [t]");
    OK("PUT", "/ph", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"index_phrases\":true}}}}");
    EXPECT("GET", "/ph/_mapping", NULL, 200,
           "{\"ph\":{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"index_phrases\":true}}}}}");
    EXPECT_HAS("GET", "/ph/_field_caps?fields=*", NULL, 200,
               "\"t._index_phrase\":{\"phrase\":{\"type\":\"phrase\",\"searchable\":true,\"aggregatable\":false}}");
    OK("PUT", "/ph/_doc/1", "{\"t\":\"peter piper picked a peck of pickled peppers\"}");
    OK("PUT", "/ph/_doc/2", "{\"t\":[\"peter\",\"piper\"]}");
    OK("POST", "/ph/_refresh", NULL);
    /* slop: the ordinary phrase */
    EXPL("ph", "{\"match_phrase\":{\"t\":{\"query\":\"peter piper\",\"slop\":1}}}", "t:\\\"peter piper\\\"~1");
    /* values of an array are not shingled together */
    hits_are("ph", "{\"query\":{\"match_phrase\":{\"t\":\"peter piper\"}},\"_source\":false}", "1:0.13076457");
    hits_are("ph", "{\"query\":{\"match_phrase\":{\"t\":\"piper peter\"}},\"_source\":false}", "");
    hits_are("ph", "{\"query\":{\"match_phrase\":{\"t\":\"a peck of pickled\"}},\"_source\":false}", "1:0.39229375");
    hits_are("ph", "{\"query\":{\"query_string\":{\"query\":\"\\\"peter piper\\\"~1\",\"default_field\":\"t\"}},\"_source\":false}",
             "1:0.13308142");
    OK("DELETE", "/ph", NULL);
}

static void t_term_vector(void **s) {
    (void)s;
    EXPECT_HAS("PUT", "/tv", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"term_vector\":\"maybe\"}}}}", 400,
               "Unknown value [maybe] for field [term_vector] - accepted values are [no, yes, with_positions, "
               "with_offsets, with_positions_offsets, with_positions_payloads, with_positions_offsets_payloads]");
    OK("PUT", "/tv", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\",\"term_vector\":\"with_positions_offsets\"},"
                     "\"u\":{\"type\":\"text\",\"term_vector\":\"yes\"}}}}");
    EXPECT_HAS("GET", "/tv/_mapping", NULL, 200, "\"t\":{\"type\":\"text\",\"term_vector\":\"with_positions_offsets\"}");
    OK("PUT", "/tv/_doc/1?refresh=true", "{\"t\":\"The quick brown fox\",\"u\":\"The quick brown fox\"}");
    EXPECT_HAS("POST", "/tv/_search",
               "{\"query\":{\"match\":{\"t\":\"quick\"}},\"highlight\":{\"fields\":{\"t\":{}}}}", 200,
               "\"highlight\":{\"t\":[\"The <em>quick</em> brown fox\"]}");
    EXPECT_HAS("POST", "/tv/_search",
               "{\"query\":{\"match\":{\"t\":\"quick\"}},\"highlight\":{\"type\":\"plain\",\"fields\":{\"t\":{}}}}", 200,
               "\"highlight\":{\"t\":[\"The <em>quick</em> brown fox\"]}");
    /* the fast vector highlighter would run on t: not reproduced */
    EXPECT_HAS("POST", "/tv/_search",
               "{\"query\":{\"match\":{\"t\":\"quick\"}},\"highlight\":{\"type\":\"fvh\",\"fields\":{\"t\":{}}}}", 400,
               "the [fvh] highlighter on field [t] is not supported by trove");
    /* without offsets in the term vectors it fails as OpenSearch does */
    EXPECT_HAS("POST", "/tv/_search",
               "{\"query\":{\"match\":{\"u\":\"quick\"}},\"highlight\":{\"type\":\"fvh\",\"fields\":{\"u\":{}}}}", 400,
               "should be indexed with term vector with position offsets to be used with fast vector highlighter");
    OK("DELETE", "/tv", NULL);
}

static void t_search_as_you_type(void **s) {
    (void)s;
    EXPECT_HAS("PUT", "/sy", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"search_as_you_type\",\"max_shingle_size\":5}}}}",
               400, "[max_shingle_size] must be at least [2] and at most [4], got [5]");
    EXPECT_HAS("PUT", "/sy", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"search_as_you_type\",\"doc_values\":true}}}}",
               400, "Cannot set [doc_values] on field of type [search_as_you_type]");
    OK("PUT", "/sy", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"search_as_you_type\",\"fields\":{\"k\":{\"type\":\"keyword\"}}}}}}");
    /* doc_values and max_shingle_size always print; the sub-fields never */
    EXPECT("GET", "/sy/_mapping", NULL, 200,
           "{\"sy\":{\"mappings\":{\"properties\":{\"t\":{\"type\":\"search_as_you_type\",\"doc_values\":false,"
           "\"max_shingle_size\":3,\"fields\":{\"k\":{\"type\":\"keyword\"}}}}}}}");
    /* field_caps lists them: shingle fields as search_as_you_type, the prefix field as prefix */
    EXPECT_HAS("GET", "/sy/_field_caps?fields=t._index_prefix", NULL, 200, "\"type\":\"prefix\"");
    EXPECT_HAS("GET", "/sy/_field_caps?fields=t._3gram", NULL, 200, "\"type\":\"search_as_you_type\"");
    EXPECT_HAS("GET", "/sy/_field_caps?fields=t._4gram", NULL, 200, "\"fields\":{}");
    OK("PUT", "/sy/_doc/1", "{\"t\":\"quick brown fox jumps\"}");
    OK("PUT", "/sy/_doc/2", "{\"t\":\"brown fox\"}");
    OK("POST", "/sy/_refresh", NULL);
    /* the documented query: bool_prefix over the root and its shingles */
    hits_are("sy", "{\"query\":{\"multi_match\":{\"query\":\"brown f\",\"type\":\"bool_prefix\","
                   "\"fields\":[\"t\",\"t._2gram\",\"t._3gram\"]}},\"_source\":false}",
             "2:1.0959587,1:1.0729287");
    /* a shingle field analyzes into shingles: "quick brown f" is one prefix */
    hits_are("sy", "{\"query\":{\"match_bool_prefix\":{\"t._3gram\":\"quick brown f\"}},\"_source\":false}", "1:1.0");
    hits_are("sy", "{\"query\":{\"match_bool_prefix\":{\"t._3gram\":\"quick fox j\"}},\"_source\":false}", "");
    /* phrases go to the shingle field of their length: a term of _3gram,
     * scored by its statistics (doc 2 has no 3-shingle) */
    hits_are("sy", "{\"query\":{\"match_phrase\":{\"t\":\"quick brown fox\"}},\"_source\":false}", "1:0.13076457");
    hits_are("sy", "{\"query\":{\"match_phrase\":{\"t\":\"quick brown fox jumps\"}},\"_source\":false}", "1:0.26152915");
    hits_are("sy", "{\"query\":{\"match_phrase\":{\"t\":\"fox brown\"}},\"_source\":false}", "");
    /* prefix queries use the prefix field (constant score) */
    hits_are("sy", "{\"query\":{\"prefix\":{\"t\":\"bro\"}},\"_source\":false}", "1:1.0,2:1.0");
    EXPECT_HAS("POST", "/sy/_search", "{\"query\":{\"match_phrase_prefix\":{\"t\":\"brown f\"}}}", 400,
               "unsupported_operation_exception");
    hits_are("sy", "{\"query\":{\"term\":{\"t.k\":\"brown fox\"}},\"_source\":false}", "2:1.0");
    OK("DELETE", "/sy", NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_prefix_mapping),
        cmocka_unit_test(t_prefix_search),
        cmocka_unit_test(t_phrases),
        cmocka_unit_test(t_term_vector),
        cmocka_unit_test(t_search_as_you_type),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
