/*
 * test_api_profile.c — the Profile API ("profile": true on _search)
 * through trove_request: the section's shape (shards sorted by id, the
 * searches, the query tree with Lucene's class names and strings, the
 * breakdown keys in OpenSearch's order, the collector tree, the
 * aggregation profiles with their debug), that its numbers are measured
 * (counts equal to the calls the search made, times that add up), and
 * the refusals for what trove does not profile as OpenSearch would.
 *
 * Shapes follow OpenSearch 3.1's SearchProfileShardResults, ProfileResult,
 * CollectorResult and the aggregation YAML tests; the key orders are
 * those OpenSearch's responses print (HashMap order).
 */
#include "api_test.h"
#include "json/json.h"

static tv_json *search_json(tv_arena *a, const char *path, const char *body) {
    trove_response r;
    assert_int_equal(trove_request(N, "POST", path, body, strlen(body), &r), 0);
    if (r.status != 200) fail_msg("%s: %d %s", body, r.status, r.body);
    tv_json *j = NULL;
    assert_int_equal(tv_json_parse(a, r.body, r.body_len, &j, NULL), TROVE_OK);
    trove_response_fini(&r);
    return j;
}

static const tv_json *at(const tv_json *j, const char *path) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *tok = strtok(buf, "."); tok && j; tok = strtok(NULL, ".")) {
        if (j->type == TV_JSON_ARRAY) {
            uint32_t i = (uint32_t)atoi(tok);
            j = i < j->len ? &j->v.items[i] : NULL;
        } else {
            j = tv_json_get(j, tok);
        }
    }
    if (!j) fail_msg("no [%s]", path);
    return j;
}

static int64_t num(const tv_json *j, const char *path) {
    const tv_json *v = at(j, path);
    if (v->type != TV_JSON_INT && v->type != TV_JSON_UINT) fail_msg("[%s] is not an integer", path);
    return v->type == TV_JSON_INT ? v->v.i : (int64_t)v->v.u;
}

static const char *str(const tv_json *j, const char *path) {
    const tv_json *v = at(j, path);
    if (v->type != TV_JSON_STRING) fail_msg("[%s] is not a string", path);
    return v->v.s;
}

static const char *const k_qkeys[] = {
    "set_min_competitive_score_count", "match_count", "shallow_advance_count", "set_min_competitive_score",
    "next_doc", "match", "next_doc_count", "score_count", "compute_max_score_count", "compute_max_score",
    "advance", "advance_count", "score", "build_scorer_count", "create_weight", "shallow_advance",
    "create_weight_count", "build_scorer",
};

static const char *const k_akeys[] = {
    "reduce", "post_collection_count", "build_leaf_collector", "build_aggregation", "build_aggregation_count",
    "build_leaf_collector_count", "post_collection", "initialize", "initialize_count", "reduce_count", "collect",
    "collect_count",
};

/* The breakdown has exactly these keys in this order; time_in_nanos is
 * the sum of its timings (the keys without _count). */
static void check_breakdown(const tv_json *node, const char *const *keys, size_t n) {
    const tv_json *b = at(node, "breakdown");
    assert_int_equal(b->type, TV_JSON_OBJECT);
    assert_int_equal(b->len, n);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(b->v.members[i].key, keys[i]) != 0) fail_msg("breakdown key %zu: %s, want %s", i, b->v.members[i].key, keys[i]);
        size_t kl = strlen(keys[i]);
        bool count = kl > 6 && strcmp(keys[i] + kl - 6, "_count") == 0;
        if (!count) sum += (uint64_t)b->v.members[i].val.v.i;
    }
    assert_int_equal(num(node, "time_in_nanos"), (int64_t)sum);
}

static int setup_p(void **s) {
    if (setup(s)) return -1;
    OK("PUT", "/p", "{\"settings\":{\"refresh_interval\":-1},\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"},"
                    "\"tag\":{\"type\":\"keyword\"},\"n\":{\"type\":\"long\"},\"d\":{\"type\":\"double\"}}}}");
    const char *docs[] = {
        "{\"title\":\"red fox\",\"tag\":\"a\",\"n\":1,\"d\":1.5}", "{\"title\":\"red dog\",\"tag\":\"b\",\"n\":2,\"d\":2.5}",
        "{\"title\":\"blue fox\",\"tag\":\"a\",\"n\":11,\"d\":1.5}", "{\"title\":\"red cat\",\"tag\":\"c\",\"n\":17,\"d\":9.0}",
        "{\"title\":\"green\",\"tag\":\"a\",\"n\":3,\"d\":0.5}",
    };
    for (int i = 0; i < 5; i++) {
        char path[32];
        snprintf(path, sizeof path, "/p/_doc/%d", i + 1);
        OK("PUT", path, docs[i]);
    }
    OK("POST", "/p/_refresh", NULL);
    OK("PUT", "/q", "{\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"}}}}");
    OK("PUT", "/q/_doc/1?refresh=true", "{\"title\":\"red\"}");
    return 0;
}

static void test_no_profile_unless_asked(void **s) {
    (void)s;
    char *got;
    assert_int_equal(req("POST", "/p/_search", "{\"query\":{\"match\":{\"title\":\"red\"}}}", &got), 200);
    assert_null(strstr(got, "\"profile\""));
    free(got);
    assert_int_equal(req("POST", "/p/_search", "{\"profile\":false}", &got), 200);
    assert_null(strstr(got, "\"profile\""));
    free(got);
}

static void test_query_tree(void **s) {
    (void)s;
    tv_arena a;
    tv_arena_init(&a);
    tv_json *j = search_json(&a, "/p/_search",
                             "{\"profile\":true,\"query\":{\"bool\":{\"must\":[{\"match\":{\"title\":\"red\"}}],"
                             "\"filter\":[{\"term\":{\"tag\":\"a\"}}]}}}");
    const tv_json *sh = at(j, "profile.shards.0");
    const char *id = str(sh, "id");
    size_t il = strlen(id);
    assert_true(id[0] == '[' && il > 8 && strcmp(id + il - 6, "[p][0]") == 0);
    assert_int_equal(num(sh, "inbound_network_time_in_millis"), 0);
    assert_int_equal(num(sh, "outbound_network_time_in_millis"), 0);
    assert_int_equal(at(sh, "searches")->len, 1);
    const tv_json *root = at(sh, "searches.0.query.0");
    assert_string_equal(str(root, "type"), "BooleanQuery");
    assert_string_equal(str(root, "description"), "+title:red #tag:a");
    check_breakdown(root, k_qkeys, TV_ARRAY_LEN(k_qkeys));
    assert_int_equal(num(root, "breakdown.create_weight_count"), 1);
    assert_int_equal(num(root, "breakdown.build_scorer_count"), 1); /* one segment */
    assert_true(num(root, "breakdown.create_weight") > 0);
    /* one hit (doc 1: red and a): scored once */
    assert_int_equal(num(j, "hits.total.value"), 1);
    assert_int_equal(num(root, "breakdown.score_count"), 1);
    assert_true(num(root, "breakdown.next_doc_count") + num(root, "breakdown.advance_count") >= 2);
    const tv_json *kids = at(root, "children");
    assert_int_equal(kids->len, 2);
    assert_string_equal(str(kids, "0.type"), "TermQuery");
    assert_string_equal(str(kids, "0.description"), "title:red");
    assert_string_equal(str(kids, "1.type"), "TermQuery"); /* a filter clause: no ConstantScore */
    assert_string_equal(str(kids, "1.description"), "tag:a");
    check_breakdown(&kids->v.items[0], k_qkeys, TV_ARRAY_LEN(k_qkeys));
    check_breakdown(&kids->v.items[1], k_qkeys, TV_ARRAY_LEN(k_qkeys));
    /* the filter is never scored; the must clause once, for the hit */
    assert_int_equal(num(kids, "1.breakdown.score_count"), 0);
    assert_int_equal(num(kids, "0.breakdown.score_count"), 1);
    /* a parent's time includes its children's */
    assert_true(num(root, "time_in_nanos") >= num(kids, "1.time_in_nanos"));
    assert_true(num(at(sh, "searches.0"), "rewrite_time") > 0);
    const tv_json *c = at(sh, "searches.0.collector");
    assert_int_equal(c->len, 1);
    assert_string_equal(str(c, "0.name"), "TopScoreDocCollector");
    assert_string_equal(str(c, "0.reason"), "search_top_hits");
    assert_int_equal(at(sh, "aggregations")->len, 0);
    assert_null(tv_json_get(sh, "fetch")); /* fetch profiling came in 3.2 */
    tv_arena_fini(&a);
}

static void test_term_counts(void **s) {
    (void)s;
    tv_arena a;
    tv_arena_init(&a);
    /* a keyword term scores a constant: ConstantScoreQuery over TermQuery */
    tv_json *j = search_json(&a, "/p/_search", "{\"profile\":true,\"query\":{\"term\":{\"tag\":\"a\"}}}");
    const tv_json *root = at(j, "profile.shards.0.searches.0.query.0");
    assert_string_equal(str(root, "type"), "ConstantScoreQuery");
    assert_string_equal(str(root, "description"), "ConstantScore(tag:a)");
    assert_string_equal(str(root, "children.0.type"), "TermQuery");
    assert_string_equal(str(root, "children.0.description"), "tag:a");
    /* three docs have tag a: three hits, and next_doc called until the end */
    assert_int_equal(num(j, "hits.total.value"), 3);
    assert_int_equal(num(root, "breakdown.next_doc_count"), 4);
    assert_int_equal(num(root, "children.0.breakdown.next_doc_count"), 4);
    assert_int_equal(num(root, "breakdown.score_count"), 3);
    /* the text match_all at the top is OpenSearch 3's approximation */
    j = search_json(&a, "/p/_search", "{\"profile\":true,\"query\":{\"match_all\":{}}}");
    root = at(j, "profile.shards.0.searches.0.query.0");
    assert_string_equal(str(root, "type"), "ApproximateScoreQuery");
    assert_string_equal(str(root, "description"),
                        "ApproximateScoreQuery(originalQuery=*:*, approximationQuery=Approximate(*:*))");
    assert_null(tv_json_get(root, "children"));
    tv_arena_fini(&a);
}

static void test_aggregations(void **s) {
    (void)s;
    tv_arena a;
    tv_arena_init(&a);
    tv_json *j = search_json(&a, "/p/_search",
                             "{\"profile\":true,\"size\":0,\"aggs\":{\"h\":{\"histogram\":{\"field\":\"n\",\"interval\":5},"
                             "\"aggs\":{\"avg_d\":{\"avg\":{\"field\":\"d\"}}}}}}");
    const tv_json *sh = at(j, "profile.shards.0");
    /* no query: Lucene's match-all */
    assert_string_equal(str(sh, "searches.0.query.0.type"), "MatchAllDocsQuery");
    assert_string_equal(str(sh, "searches.0.query.0.description"), "*:*");
    const tv_json *c = at(sh, "searches.0.collector.0");
    assert_string_equal(str(c, "name"), "MultiCollector");
    assert_string_equal(str(c, "reason"), "search_multi");
    assert_string_equal(str(c, "children.0.name"), "EarlyTerminatingCollector");
    assert_string_equal(str(c, "children.0.reason"), "search_count");
    assert_string_equal(str(c, "children.1.name"), "ProfilingAggregator: [h]");
    assert_string_equal(str(c, "children.1.reason"), "aggregation");
    const tv_json *h = at(sh, "aggregations.0");
    assert_int_equal(at(sh, "aggregations")->len, 1);
    assert_string_equal(str(h, "type"), "NumericHistogramAggregator");
    assert_string_equal(str(h, "description"), "h");
    check_breakdown(h, k_akeys, TV_ARRAY_LEN(k_akeys));
    assert_int_equal(num(h, "breakdown.collect_count"), 5);
    assert_int_equal(num(h, "breakdown.initialize_count"), 1);
    assert_int_equal(num(h, "breakdown.build_leaf_collector_count"), 1);
    assert_int_equal(num(h, "breakdown.reduce"), 0);
    assert_true(num(h, "breakdown.collect") > 0);
    assert_true(num(h, "breakdown.initialize") > 0);
    /* keys 0 (1, 2, 3), 10 (11), 15 (17): three buckets made */
    assert_int_equal(num(h, "debug.total_buckets"), 3);
    const tv_json *k = at(h, "children.0");
    assert_string_equal(str(k, "type"), "AvgAggregator");
    assert_string_equal(str(k, "description"), "avg_d");
    check_breakdown(k, k_akeys, TV_ARRAY_LEN(k_akeys));
    assert_int_equal(num(k, "breakdown.collect_count"), 5);
    assert_null(tv_json_get(k, "debug"));
    /* a parent's collect time includes its sub-aggregation's */
    assert_true(num(h, "breakdown.collect") >= num(k, "breakdown.collect"));

    /* cardinality: which leaf collector each segment used */
    j = search_json(&a, "/p/_search",
                    "{\"profile\":true,\"size\":0,\"aggs\":{\"c\":{\"cardinality\":{\"field\":\"tag\"}}}}");
    h = at(j, "profile.shards.0.aggregations.0");
    assert_string_equal(str(h, "type"), "CardinalityAggregator");
    assert_int_equal(num(h, "debug.ordinals_collectors_used"), 1);
    assert_int_equal(num(h, "debug.numeric_collectors_used"), 0);
    assert_int_equal(num(h, "debug.string_hashing_collectors_used"), 0);
    j = search_json(&a, "/p/_search",
                    "{\"profile\":true,\"size\":0,\"aggs\":{\"c\":{\"cardinality\":{\"field\":\"n\"}}}}");
    assert_int_equal(num(j, "profile.shards.0.aggregations.0.debug.numeric_collectors_used"), 1);
    assert_int_equal(num(j, "profile.shards.0.aggregations.0.debug.ordinals_collectors_used"), 0);
    tv_arena_fini(&a);
}

static void test_global_search(void **s) {
    (void)s;
    tv_arena a;
    tv_arena_init(&a);
    tv_json *j = search_json(&a, "/p/_search",
                             "{\"profile\":true,\"size\":0,\"query\":{\"match\":{\"title\":\"fox\"}},"
                             "\"aggs\":{\"all\":{\"global\":{},\"aggs\":{\"m\":{\"max\":{\"field\":\"n\"}}}}}}");
    const tv_json *sh = at(j, "profile.shards.0");
    assert_int_equal(at(sh, "searches")->len, 2);
    const tv_json *g = at(sh, "searches.1");
    assert_string_equal(str(g, "query.0.type"), "ConstantScoreQuery");
    assert_string_equal(str(g, "query.0.description"), "ConstantScore(*:*)");
    assert_string_equal(str(g, "query.0.children.0.type"), "MatchAllDocsQuery");
    /* five docs, then the end */
    assert_int_equal(num(g, "query.0.breakdown.next_doc_count"), 6);
    assert_string_equal(str(g, "collector.0.name"), "ProfilingAggregator: [all]");
    assert_string_equal(str(g, "collector.0.reason"), "aggregation_global");
    /* the query's own search has no aggregation collector */
    assert_string_equal(str(sh, "searches.0.collector.0.name"), "EarlyTerminatingCollector");
    const tv_json *ag = at(sh, "aggregations.0");
    assert_string_equal(str(ag, "type"), "GlobalAggregator");
    assert_int_equal(num(ag, "breakdown.collect_count"), 5);
    assert_string_equal(str(ag, "children.0.type"), "MaxAggregator");
    assert_int_equal(num(ag, "children.0.breakdown.collect_count"), 5);
    tv_arena_fini(&a);
}

static void test_two_shards_sorted(void **s) {
    (void)s;
    tv_arena a;
    tv_arena_init(&a);
    tv_json *j = search_json(&a, "/q,p/_search", "{\"profile\":true,\"query\":{\"match\":{\"title\":\"red\"}}}");
    const tv_json *shards = at(j, "profile.shards");
    assert_int_equal(shards->len, 2);
    const char *a0 = str(shards, "0.id"), *a1 = str(shards, "1.id");
    assert_true(strcmp(a0, a1) < 0);
    assert_non_null(strstr(a0, "][p][0]"));
    assert_non_null(strstr(a1, "][q][0]"));
    /* the hits counted per shard: p has three "red" docs, q one */
    assert_int_equal(num(shards, "0.searches.0.query.0.breakdown.score_count"), 3);
    assert_int_equal(num(shards, "1.searches.0.query.0.breakdown.score_count"), 1);
    tv_arena_fini(&a);
}

/* The filter rewrite counts date histograms from the sorted values: the
 * buckets must be those collection gives (a query that is not a
 * match-all collects doc by doc), over several BKD leaves. */
static void test_date_histogram_filter_rewrite(void **s) {
    (void)s;
    OK("PUT", "/dh", "{\"settings\":{\"refresh_interval\":-1},\"mappings\":{\"properties\":{\"d\":{\"type\":\"date\"},"
                     "\"k\":{\"type\":\"keyword\"}}}}");
    char *bulk = malloc(1500 * 96);
    size_t o = 0;
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 1500; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        /* 2020 .. mid 2021, in ms */
        int64_t ms = 1577836800000LL + (int64_t)(x % (540ull * 86400000ull));
        o += (size_t)sprintf(bulk + o, "{\"index\":{\"_index\":\"dh\"}}\n{\"d\":%lld,\"k\":\"a\"}\n", (long long)ms);
    }
    o += (size_t)sprintf(bulk + o, "{\"index\":{\"_index\":\"dh\"}}\n{\"k\":\"a\"}\n"); /* no date */
    OK("POST", "/_bulk?refresh=true", bulk);
    free(bulk);
    tv_arena a;
    tv_arena_init(&a);
    const char *aggs = "\"aggs\":{\"h\":{\"date_histogram\":{\"field\":\"d\",\"calendar_interval\":\"month\"}}}}";
    char body[512];
    snprintf(body, sizeof body, "{\"profile\":true,\"size\":0,%s", aggs);
    tv_json *fast = search_json(&a, "/dh/_search", body);
    snprintf(body, sizeof body, "{\"profile\":true,\"size\":0,\"query\":{\"term\":{\"k\":\"a\"}},%s", aggs);
    tv_json *slow = search_json(&a, "/dh/_search", body);
    const tv_json *fb = at(fast, "aggregations.h.buckets"), *sb = at(slow, "aggregations.h.buckets");
    assert_int_equal(fb->len, 18);
    assert_int_equal(fb->len, sb->len);
    int64_t total = 0;
    for (uint32_t i = 0; i < fb->len; i++) {
        assert_int_equal(num(&fb->v.items[i], "key"), num(&sb->v.items[i], "key"));
        assert_int_equal(num(&fb->v.items[i], "doc_count"), num(&sb->v.items[i], "doc_count"));
        total += num(&fb->v.items[i], "doc_count");
    }
    assert_int_equal(total, 1500);
    const tv_json *fp = at(fast, "profile.shards.0.aggregations.0");
    assert_string_equal(str(fp, "type"), "DateHistogramAggregator");
    assert_int_equal(num(fp, "debug.optimized_segments"), 1);
    assert_int_equal(num(fp, "debug.unoptimized_segments"), 0);
    assert_true(num(fp, "debug.leaf_visited") >= 1 && num(fp, "debug.leaf_visited") <= 3); /* 3 leaves of <= 512 */
    assert_int_equal(num(fp, "debug.total_buckets"), 18);
    assert_int_equal(num(fp, "breakdown.collect_count"), 0); /* counted, not collected */
    const tv_json *sp = at(slow, "profile.shards.0.aggregations.0");
    assert_null(tv_json_get(at(sp, "debug"), "optimized_segments"));
    assert_int_equal(num(sp, "breakdown.collect_count"), 1501);
    /* other roundings: time zones (DST), offsets, fixed intervals, weeks,
     * and auto_date_histogram's rung chosen from the bounds */
    const char *variants[] = {
        "\"date_histogram\":{\"field\":\"d\",\"calendar_interval\":\"day\",\"time_zone\":\"America/New_York\"}",
        "\"date_histogram\":{\"field\":\"d\",\"fixed_interval\":\"7h\",\"offset\":\"+25m\"}",
        "\"date_histogram\":{\"field\":\"d\",\"calendar_interval\":\"week\",\"time_zone\":\"Europe/Paris\"}",
        "\"date_histogram\":{\"field\":\"d\",\"calendar_interval\":\"quarter\",\"min_doc_count\":0}",
        "\"auto_date_histogram\":{\"field\":\"d\",\"buckets\":10}",
        "\"auto_date_histogram\":{\"field\":\"d\",\"buckets\":400}",
    };
    for (size_t v = 0; v < TV_ARRAY_LEN(variants); v++) {
        snprintf(body, sizeof body, "{\"size\":0,\"aggs\":{\"h\":{%s}}}", variants[v]);
        fast = search_json(&a, "/dh/_search", body);
        snprintf(body, sizeof body, "{\"size\":0,\"query\":{\"term\":{\"k\":\"a\"}},\"aggs\":{\"h\":{%s}}}", variants[v]);
        slow = search_json(&a, "/dh/_search", body);
        fb = at(fast, "aggregations.h.buckets");
        sb = at(slow, "aggregations.h.buckets");
        if (fb->len != sb->len) fail_msg("%s: %u buckets, collected %u", variants[v], fb->len, sb->len);
        for (uint32_t i = 0; i < fb->len; i++) {
            if (num(&fb->v.items[i], "key") != num(&sb->v.items[i], "key") ||
                num(&fb->v.items[i], "doc_count") != num(&sb->v.items[i], "doc_count"))
                fail_msg("%s: bucket %u differs", variants[v], i);
        }
    }
    tv_arena_fini(&a);
}

static void test_refusals(void **s) {
    (void)s;
    EXPECT("POST", "/p/_search", "{\"profile\":true,\"query\":{\"range\":{\"n\":{\"gte\":1}}}}", 400,
           "{\"error\":{\"root_cause\":[{\"type\":\"unsupported_operation_exception\",\"reason\":\"[profile] of a [range] "
           "query is not supported by trove\"}],\"type\":\"unsupported_operation_exception\",\"reason\":\"[profile] of a "
           "[range] query is not supported by trove\"},\"status\":400}");
    EXPECT_HAS("POST", "/p/_search", "{\"profile\":true,\"sort\":[{\"n\":\"asc\"}]}", 400,
               "\"reason\":\"[profile] with [sort] is not supported by trove\"");
    EXPECT_HAS("POST", "/p/_search", "{\"profile\":true,\"query\":{\"match\":{\"title\":{\"query\":\"red\",\"boost\":2}}}}",
               400, "\"reason\":\"[profile] of a [boost] query is not supported by trove\"");
    /* without profile the same requests run */
    OK("POST", "/p/_search", "{\"query\":{\"range\":{\"n\":{\"gte\":1}}}}");
    EXPECT_HAS("POST", "/p/_search", "{\"profile\":\"maybe\"}", 400, "parsing_exception");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_profile_unless_asked),
        cmocka_unit_test(test_query_tree),
        cmocka_unit_test(test_term_counts),
        cmocka_unit_test(test_aggregations),
        cmocka_unit_test(test_global_search),
        cmocka_unit_test(test_two_shards_sorted),
        cmocka_unit_test(test_date_histogram_filter_rewrite),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup_p, teardown);
}
