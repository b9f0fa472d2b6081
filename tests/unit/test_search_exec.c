/* test_search_exec.c — _search/_count end to end over real indices:
 * golden BM25 scores (computed independently, in float32 step by step as
 * Lucene 10's BM25Similarity does), bool/phrase/range/terms/exists/ids,
 * pagination, sort, search_after, totals, deletes across segments, and
 * the request-level errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "index/index.h"
#include "json/json.h"
#include "search/search.h"

static tv_index *mkindex(const char *mappings) {
    tv_arena a;
    tv_arena_init(&a);
    tv_json *m = NULL;
    if (mappings) assert_int_equal(tv_json_parse(&a, mappings, strlen(mappings), &m, NULL), TROVE_OK);
    tv_error err = TV_ERROR_INIT;
    tv_index *idx = tv_index_new("test", NULL, m, &err);
    if (!idx) fprintf(stderr, "tv_index_new: %s\n", err.reason);
    assert_non_null(idx);
    tv_arena_fini(&a);
    return idx;
}

static void put(tv_index *idx, const char *id, const char *src) {
    tv_write_opts o;
    tv_write_opts_init(&o);
    tv_write_result res;
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_index_put(idx, id, strlen(id), src, strlen(src), &o, &res, &err);
    if (st) fprintf(stderr, "put %s: %s\n", id, err.reason);
    assert_int_equal(st, TROVE_OK);
}

static void del(tv_index *idx, const char *id) {
    tv_write_opts o;
    tv_write_opts_init(&o);
    tv_write_result res;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_index_delete(idx, id, strlen(id), &o, &res, &err), TROVE_OK);
}

/* Runs a search (or count); returns the body (owned) or NULL with *err. */
static char *search_p(tv_index *idx, const char *body, bool count, const tv_search_params *pp,
                      tv_error *err, tv_status *rc) {
    tv_arena a;
    tv_arena_init(&a);
    tv_json *b = NULL;
    if (body) assert_int_equal(tv_json_parse(&a, body, strlen(body), &b, NULL), TROVE_OK);
    const tv_snapshot *snap = tv_index_acquire(idx);
    assert_non_null(snap);
    tv_search_target t = {"test", snap, 10000};
    tv_search_params p;
    if (pp) p = *pp;
    else tv_search_params_init(&p);
    p.body_text = body;
    p.body_text_len = body ? strlen(body) : 0;
    tv_buf out;
    tv_buf_init(&out);
    tv_jw w;
    tv_jw_init(&w, &out, false);
    tv_status st = count ? tv_search_count(&t, 1, b, &p, &a, &w, err) : tv_search_run(&t, 1, b, &p, &a, &w, err);
    tv_snapshot_release(snap);
    tv_arena_fini(&a);
    if (rc) *rc = st;
    if (st) {
        tv_buf_fini(&out);
        return NULL;
    }
    char *s = tv_buf_detach(&out, NULL);
    return s;
}

static char *search(tv_index *idx, const char *body) {
    tv_error err = TV_ERROR_INIT;
    tv_status st;
    tv_error_clear(&err);
    char *r = search_p(idx, body, false, NULL, &err, &st);
    if (!r) fprintf(stderr, "search failed (%s): %s\n", trove_status_name(st), err.reason);
    assert_non_null(r);
    return r;
}

static void expect(const char *hay, const char *needle) {
    if (!strstr(hay, needle)) fprintf(stderr, "expected %s\n   in %s\n", needle, hay);
    assert_non_null(strstr(hay, needle));
}

static tv_index *fox_index(void) {
    tv_index *idx = mkindex("{\"properties\":{\"title\":{\"type\":\"text\"},\"tag\":{\"type\":\"keyword\"},"
                            "\"n\":{\"type\":\"long\"},\"price\":{\"type\":\"double\"}}}");
    put(idx, "1", "{\"title\":\"quick brown fox\",\"tag\":\"a\",\"n\":5,\"price\":1.5}");
    put(idx, "2", "{\"title\":\"lazy fox\",\"tag\":\"b\",\"n\":10}");
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    return idx;
}

static void test_golden_one_doc(void **state) {
    (void)state;
    tv_index *idx = mkindex("{\"properties\":{\"title\":{\"type\":\"text\"}}}");
    put(idx, "1", "{\"title\":\"quick brown fox\"}");
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    char *r = search(idx, "{\"query\":{\"match\":{\"title\":\"fox\"}}}");
    assert_non_null(strstr(r, "{\"took\":"));
    assert_string_equal(strchr(r, ','), ",\"timed_out\":false,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0},"
                           "\"hits\":{\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":0.13076457,"
                           "\"hits\":[{\"_index\":\"test\",\"_id\":\"1\",\"_score\":0.13076457,\"_source\":{\"title\":\"quick brown fox\"}}]}}");
    tv_free(r);
    tv_index_release(idx);
}

static void test_golden_two_docs(void **state) {
    (void)state;
    tv_index *idx = fox_index();
    char *r = search(idx, "{\"query\":{\"match\":{\"title\":\"fox\"}}}");
    /* the shorter field scores higher */
    expect(r, "\"max_score\":0.09025819,\"hits\":[{\"_index\":\"test\",\"_id\":\"2\",\"_score\":0.09025819");
    expect(r, "{\"_index\":\"test\",\"_id\":\"1\",\"_score\":0.0766057,");
    tv_free(r);
    r = search(idx, "{\"query\":{\"match\":{\"title\":\"quick fox\"}}}");
    expect(r, "\"_id\":\"1\",\"_score\":0.36784405");
    expect(r, "\"_id\":\"2\",\"_score\":0.09025819");
    tv_free(r);
    r = search(idx, "{\"query\":{\"match\":{\"title\":{\"query\":\"fox\",\"boost\":2}}}}");
    expect(r, "\"_id\":\"1\",\"_score\":0.1532114");
    tv_free(r);
    /* and: only doc 1 */
    r = search(idx, "{\"query\":{\"match\":{\"title\":{\"query\":\"quick fox\",\"operator\":\"and\"}}}}");
    expect(r, "\"total\":{\"value\":1,\"relation\":\"eq\"}");
    expect(r, "\"_id\":\"1\",\"_score\":0.36784405");
    tv_free(r);
    /* keyword term queries are constant score in OpenSearch 3 */
    r = search(idx, "{\"query\":{\"term\":{\"tag\":\"a\"}}}");
    expect(r, "\"max_score\":1.0,\"hits\":[{\"_index\":\"test\",\"_id\":\"1\",\"_score\":1.0");
    tv_free(r);
    tv_index_release(idx);
}

static void test_phrase(void **state) {
    (void)state;
    tv_index *idx = fox_index();
    char *r = search(idx, "{\"query\":{\"match_phrase\":{\"title\":\"quick brown\"}}}");
    expect(r, "\"total\":{\"value\":1,\"relation\":\"eq\"}");
    expect(r, "\"_id\":\"1\",\"_score\":0.5824767");
    tv_free(r);
    r = search(idx, "{\"query\":{\"match_phrase\":{\"title\":\"quick fox\"}}}");
    expect(r, "\"total\":{\"value\":0,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[]");
    tv_free(r);
    r = search(idx, "{\"query\":{\"match_phrase\":{\"title\":{\"query\":\"quick fox\",\"slop\":1}}}}");
    expect(r, "\"_id\":\"1\",\"_score\":0.23283744");
    tv_free(r);
    r = search(idx, "{\"query\":{\"match_phrase_prefix\":{\"title\":\"quick br\"}}}");
    expect(r, "\"total\":{\"value\":1,\"relation\":\"eq\"}");
    expect(r, "\"_id\":\"1\"");
    tv_free(r);
    tv_index_release(idx);
}

static void test_bool_and_filters(void **state) {
    (void)state;
    tv_index *idx = fox_index();
    char *r = search(idx, "{\"query\":{\"bool\":{\"filter\":{\"range\":{\"n\":{\"gte\":6}}}}}}");
    expect(r, "\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":0.0,\"hits\":[{\"_index\":\"test\",\"_id\":\"2\",\"_score\":0.0");
    tv_free(r);
    r = search(idx, "{\"query\":{\"bool\":{\"must_not\":{\"term\":{\"tag\":\"a\"}}}}}");
    expect(r, "\"total\":{\"value\":1,\"relation\":\"eq\"}");
    expect(r, "\"_id\":\"2\",\"_score\":0.0");
    tv_free(r);
    r = search(idx, "{\"query\":{\"bool\":{\"must\":{\"match\":{\"title\":\"fox\"}},\"filter\":[{\"term\":{\"n\":5}}]}}}");
    expect(r, "\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":0.0766057,");
    tv_free(r);
    r = search(idx, "{\"query\":{\"constant_score\":{\"filter\":{\"exists\":{\"field\":\"price\"}},\"boost\":3}}}");
    expect(r, "\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":3.0,");
    tv_free(r);
    r = search(idx, "{\"query\":{\"ids\":{\"values\":[\"2\",\"9\"]}}}");
    expect(r, "\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":1.0,\"hits\":[{\"_index\":\"test\",\"_id\":\"2\"");
    tv_free(r);
    r = search(idx, "{\"query\":{\"terms\":{\"tag\":[\"a\",\"b\",\"c\"]}}}");
    expect(r, "\"total\":{\"value\":2,\"relation\":\"eq\"}");
    tv_free(r);
    r = search(idx, "{\"query\":{\"prefix\":{\"title\":\"qui\"}}}");
    expect(r, "\"total\":{\"value\":1,\"relation\":\"eq\"},\"max_score\":1.0");
    tv_free(r);
    r = search(idx, "{\"query\":{\"range\":{\"price\":{\"gt\":1.5}}}}");
    expect(r, "\"total\":{\"value\":0,");
    tv_free(r);
    r = search(idx, "{\"query\":{\"range\":{\"price\":{\"gte\":1.5}}}}");
    expect(r, "\"total\":{\"value\":1,");
    tv_free(r);
    r = search(idx, "{\"query\":{\"match\":{\"nope\":\"fox\"}}}");
    expect(r, "\"total\":{\"value\":0,");
    tv_free(r);
    r = search(idx, "{\"query\":{\"dis_max\":{\"queries\":[{\"match\":{\"title\":\"quick\"}},{\"match\":{\"title\":\"fox\"}}],\"tie_breaker\":0.5}}}");
    expect(r, "\"total\":{\"value\":2,");
    tv_free(r);
    tv_index_release(idx);
}

static void test_pagination_sort_after(void **state) {
    (void)state;
    tv_index *idx = mkindex("{\"properties\":{\"n\":{\"type\":\"long\"},\"k\":{\"type\":\"keyword\"}}}");
    char id[16], src[64];
    for (int i = 0; i < 25; i++) {
        snprintf(id, sizeof id, "%d", i);
        snprintf(src, sizeof src, "{\"n\":%d,\"k\":\"k%02d\"}", (i * 7) % 25, i);
        put(idx, id, src);
        if (i % 10 == 9) assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    }
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    char *r = search(idx, "{\"size\":2,\"sort\":[{\"n\":\"desc\"}],\"_source\":false}");
    expect(r, "\"total\":{\"value\":25,\"relation\":\"eq\"},\"max_score\":null,\"hits\":[{\"_index\":\"test\",\"_id\":\"7\",\"_score\":null,\"sort\":[24]}");
    tv_free(r);
    r = search(idx, "{\"size\":2,\"sort\":[{\"n\":\"desc\"}],\"_source\":false,\"search_after\":[23]}");
    expect(r, "\"hits\":[{\"_index\":\"test\",\"_id\":\"21\",\"_score\":null,\"sort\":[22]},{\"_index\":\"test\",\"_id\":\"3\",\"_score\":null,\"sort\":[21]}]");
    tv_free(r);
    r = search(idx, "{\"from\":3,\"size\":1,\"sort\":[\"k\"],\"_source\":[\"k\"]}");
    expect(r, "{\"_index\":\"test\",\"_id\":\"3\",\"_score\":null,\"_source\":{\"k\":\"k03\"},\"sort\":[\"k03\"]}");
    tv_free(r);
    r = search(idx, "{\"track_total_hits\":10,\"size\":0}");
    expect(r, "\"total\":{\"value\":10,\"relation\":\"gte\"},\"max_score\":null,\"hits\":[]");
    tv_free(r);
    r = search(idx, "{\"track_total_hits\":false,\"size\":1}");
    expect(r, "\"hits\":{\"max_score\":1.0,\"hits\":[{\"_index\":\"test\",\"_id\":\"0\"");
    tv_free(r);
    /* deletes across segments */
    del(idx, "0");
    del(idx, "24");
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    tv_error err = TV_ERROR_INIT;
    tv_status st;
    tv_error_clear(&err);
    r = search_p(idx, "{\"query\":{\"range\":{\"n\":{\"gte\":0}}}}", true, NULL, &err, &st);
    assert_non_null(r);
    assert_string_equal(r, "{\"count\":23,\"_shards\":{\"total\":1,\"successful\":1,\"skipped\":0,\"failed\":0}}");
    tv_free(r);
    tv_error_clear(&err);
    r = search_p(idx, NULL, true, NULL, &err, &st);
    expect(r, "{\"count\":23,");
    tv_free(r);
    r = search(idx, "{\"size\":1,\"_source\":false}");
    expect(r, "\"total\":{\"value\":23,\"relation\":\"eq\"},\"max_score\":1.0,\"hits\":[{\"_index\":\"test\",\"_id\":\"1\",");
    tv_free(r);
    tv_index_release(idx);
}

static void test_request_errors(void **state) {
    (void)state;
    tv_index *idx = fox_index();
    tv_error err = TV_ERROR_INIT;
    tv_status st;
    tv_error_clear(&err);
    char *r = search_p(idx, "{\"query\":{\"foo\":{}}}", false, NULL, &err, &st);
    assert_null(r);
    assert_int_equal(st, TROVE_EPARSE);
    assert_string_equal(err.reason, "unknown query [foo]");
    assert_int_equal(err.line, 1);
    assert_int_equal(err.col, 17);
    tv_error_clear(&err);
    r = search_p(idx, "{\"query\":{\"matc\":{}}}", false, NULL, &err, &st);
    assert_string_equal(err.reason, "unknown query [matc] did you mean [match]?");
    tv_error_clear(&err);
    r = search_p(idx, "{\"query\":{\"match\":{\"title\":{\"query\":\"x\",\"bar\":1}}}}", false, NULL, &err, &st);
    assert_int_equal(st, TROVE_EPARSE);
    assert_string_equal(err.reason, "[match] query does not support [bar]");
    tv_error_clear(&err);
    r = search_p(idx, "{\"query\":{\"term\":\"x\"}}", false, NULL, &err, &st);
    assert_string_equal(err.reason, "[term] query malformed, no start_object after query name");
    tv_error_clear(&err);
    r = search_p(idx, "{\"query\":{\"match_all\":{}},\"foo\":1}", false, NULL, &err, &st);
    assert_string_equal(err.reason, "Unknown key for a VALUE_NUMBER in [foo].");
    tv_error_clear(&err);
    r = search_p(idx, "{\"from\":10000,\"size\":1}", false, NULL, &err, &st);
    assert_int_equal(st, TROVE_EARG);
    assert_non_null(strstr(err.reason, "Result window is too large, from + size must be less than or equal to: [10000] but was [10001]."));
    tv_error_clear(&err);
    r = search_p(idx, "{\"slice\":{\"id\":0,\"max\":2}}", false, NULL, &err, &st);
    assert_int_equal(st, TROVE_EUNSUPPORTED);
    tv_error_clear(&err);
    r = search_p(idx, "{\"query\":{\"term\":{\"n\":\"abc\"}}}", false, NULL, &err, &st);
    assert_int_equal(st, TROVE_EQUERYSHARD);
    tv_error_clear(&err);
    r = search_p(idx, "{\"sort\":[\"nope\"]}", false, NULL, &err, &st);
    assert_int_equal(st, TROVE_EQUERYSHARD);
    assert_string_equal(err.reason, "No mapping found for [nope] in order to sort on");
    tv_error_clear(&err);
    r = search_p(idx, "{\"query\":{}}", false, NULL, &err, &st);
    assert_int_equal(st, TROVE_EARG);
    tv_index_release(idx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_one_doc),
        cmocka_unit_test(test_golden_two_docs),
        cmocka_unit_test(test_phrase),
        cmocka_unit_test(test_bool_and_filters),
        cmocka_unit_test(test_pagination_sort_after),
        cmocka_unit_test(test_request_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
