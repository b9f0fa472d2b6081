/* test_query_dsl.c — the query DSL parser: AST shapes (what OpenSearch's
 * builders produce), minimum_should_match arithmetic, BM25 helpers, and the
 * exact parse errors with [line:col]. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "query/query.h"

static const char *k_mapping =
    "{\"properties\":{\"title\":{\"type\":\"text\"},\"tag\":{\"type\":\"keyword\"},"
    "\"n\":{\"type\":\"long\"},\"ok\":{\"type\":\"boolean\"},\"when\":{\"type\":\"date\"}}}";

typedef struct fx {
    tv_arena a;
    tv_mapping *m;
    tv_error err;
    tv_dsl d;
} fx;

static int setup(void **state) {
    fx *f = calloc(1, sizeof *f);
    tv_arena_init(&f->a);
    tv_json *mj;
    assert_int_equal(tv_json_parse(&f->a, k_mapping, strlen(k_mapping), &mj, NULL), TROVE_OK);
    f->m = tv_mapping_parse(mj, NULL, &f->err);
    assert_non_null(f->m);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx *f = *state;
    tv_mapping_release(f->m);
    tv_arena_fini(&f->a);
    free(f);
    return 0;
}

static tv_status parse(fx *f, const char *q, tv_query **out) {
    tv_json *j;
    assert_int_equal(tv_json_parse(&f->a, q, strlen(q), &j, NULL), TROVE_OK);
    memset(&f->d, 0, sizeof f->d);
    f->d.mapping = f->m;
    f->d.arena = &f->a;
    f->d.src = q;
    f->d.src_len = strlen(q);
    f->d.err = &f->err;
    tv_error_clear(&f->err);
    return tv_dsl_parse_query(&f->d, j, out);
}

static tv_query *ok(fx *f, const char *q) {
    tv_query *out = NULL;
    tv_status st = parse(f, q, &out);
    if (st) fprintf(stderr, "%s: %s\n", q, f->err.reason);
    assert_int_equal(st, TROVE_OK);
    assert_non_null(out);
    return out;
}

static void fails(fx *f, const char *q, tv_status code, const char *reason, uint32_t line, uint32_t col) {
    tv_query *out = NULL;
    tv_status st = parse(f, q, &out);
    if (st != code || strcmp(f->err.reason, reason)) fprintf(stderr, "%s -> %s: %s\n", q, trove_status_name(st), f->err.reason);
    assert_int_equal(st, code);
    assert_string_equal(f->err.reason, reason);
    if (line) {
        assert_int_equal(f->err.line, line);
        assert_int_equal(f->err.col, col);
    }
}

static void test_shapes(void **state) {
    fx *f = *state;
    tv_query *q = ok(f, "{\"match\":{\"title\":\"The Quick fox\"}}");
    assert_int_equal(q->kind, TV_Q_BOOL);
    assert_int_equal(q->u.boolq.nshould, 3);
    assert_int_equal(q->u.boolq.should[1]->kind, TV_Q_TERM);
    assert_memory_equal(q->u.boolq.should[1]->u.term.term, "quick", 5);

    q = ok(f, "{\"match\":{\"title\":{\"query\":\"fox\",\"boost\":2}}}");
    assert_int_equal(q->kind, TV_Q_TERM);
    assert_true(q->boost == 2.0f);
    assert_false(q->u.term.constant);

    q = ok(f, "{\"term\":{\"tag\":\"X\"}}");
    assert_int_equal(q->kind, TV_Q_TERM);
    assert_true(q->u.term.constant);

    q = ok(f, "{\"term\":{\"n\":7}}");
    assert_int_equal(q->kind, TV_Q_RANGE_NUM);
    assert_int_equal(q->u.nrange.lo, 7);
    assert_int_equal(q->u.nrange.hi, 7);
    q = ok(f, "{\"term\":{\"n\":7.5}}");
    assert_int_equal(q->kind, TV_Q_MATCH_NONE);
    q = ok(f, "{\"range\":{\"n\":{\"gt\":1.5,\"lt\":10}}}");
    assert_int_equal(q->u.nrange.lo, 2);
    assert_int_equal(q->u.nrange.hi, 9);
    q = ok(f, "{\"range\":{\"n\":{\"gt\":-1.5,\"lte\":-0.5}}}");
    assert_int_equal(q->u.nrange.lo, -1);
    assert_int_equal(q->u.nrange.hi, -1);
    q = ok(f, "{\"term\":{\"ok\":true}}");
    assert_int_equal(q->kind, TV_Q_TERM);
    assert_memory_equal(q->u.term.term, "T", 1);
    q = ok(f, "{\"range\":{\"when\":{\"gte\":\"2020-01-01\",\"lte\":\"2020-01-01\"}}}");
    assert_int_equal(q->u.nrange.lo, 1577836800000LL);
    assert_int_equal(q->u.nrange.hi, 1577836800000LL + 86400000LL - 1);

    q = ok(f, "{\"match_phrase\":{\"title\":\"quick the fox\"}}");
    assert_int_equal(q->kind, TV_Q_PHRASE);
    assert_int_equal(q->u.phrase.nterms, 3);
    assert_int_equal(q->u.phrase.terms[2].pos, 2);

    q = ok(f, "{\"bool\":{}}");
    assert_int_equal(q->kind, TV_Q_MATCH_ALL);
    q = ok(f, "{\"bool\":{\"must_not\":[{\"term\":{\"tag\":\"a\"}}]}}");
    assert_int_equal(q->kind, TV_Q_BOOL);
    assert_int_equal(q->u.boolq.nfilter, 1);
    assert_int_equal(q->u.boolq.filter[0]->kind, TV_Q_MATCH_ALL);
    /* OpenSearch 3's BoolQueryBuilder.doToQuery sets no minimum_should_match
     * of 1 in a filter context (the pre-7.0 rule is gone): with a MUST
     * clause, the SHOULD clause stays optional */
    q = ok(f, "{\"constant_score\":{\"filter\":{\"bool\":{\"should\":[{\"term\":{\"tag\":\"a\"}}],\"must\":{\"match_all\":{}}}}}}");
    assert_int_equal(q->u.cnst.inner->u.boolq.msm, 0);
    /* BoolQueryBuilder.rewriteMustClausesToFilter: range, and term on a
     * numeric field, move from MUST to FILTER (they score nothing) */
    q = ok(f, "{\"bool\":{\"must\":[{\"range\":{\"n\":{\"gte\":1}}},{\"term\":{\"n\":3}},{\"term\":{\"tag\":\"a\"}}]}}");
    assert_int_equal(q->u.boolq.nmust, 1);
    assert_int_equal(q->u.boolq.must[0]->kind, TV_Q_TERM);
    assert_int_equal(q->u.boolq.nfilter, 2);
    assert_int_equal(q->u.boolq.filter[0]->kind, TV_Q_RANGE_NUM);
    q = ok(f, "{\"match\":{\"unmapped\":\"x\"}}");
    assert_int_equal(q->kind, TV_Q_MATCH_NONE);
    q = ok(f, "{\"multi_match\":{\"query\":\"fox\",\"fields\":[\"title^3\",\"tag\"],\"tie_breaker\":0.3}}");
    assert_int_equal(q->kind, TV_Q_DISMAX);
    assert_int_equal(q->u.dismax.nsubs, 2);
    assert_true(q->u.dismax.subs[0]->boost == 3.0f);
    assert_true(q->u.dismax.tie_breaker == 0.3f);
    q = ok(f, "{\"match\":{\"title\":{\"query\":\"a b c d\",\"minimum_should_match\":\"75%\"}}}");
    assert_int_equal(q->u.boolq.msm, 3);
}

static void test_msm(void **state) {
    (void)state;
    struct { int n; const char *spec; int want; } cases[] = {
        {4, "2", 2},      {4, "-1", 3},    {4, "75%", 3},   {4, "-25%", 3},  {3, "75%", 2},
        {3, "-25%", 3},   {5, "3<90%", 4}, {3, "3<90%", 3}, {10, "2<-25% 9<-3", 7},
        {6, "2<-25% 9<-3", 5}, {2, "2<-25% 9<-3", 2}, {4, " 2 < 50% ", 2}, {2, "-5", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int32_t got = -1;
        assert_true(tv_min_should_match(cases[i].n, cases[i].spec, strlen(cases[i].spec), &got));
        if (got != cases[i].want) fprintf(stderr, "msm(%d, %s) = %d\n", cases[i].n, cases[i].spec, got);
        assert_int_equal(got, cases[i].want);
    }
    int32_t got;
    assert_false(tv_min_should_match(3, "abc", 3, &got));
    assert_false(tv_min_should_match(3, "1<", 2, &got));
}

static void test_bm25_math(void **state) {
    (void)state;
    /* idf(df=1, N=1) = ln(1 + 0.5/1.5) */
    assert_true(tv_bm25_idf(1, 1) == (float)log(1.0 + 0.5 / 1.5));
    assert_true(tv_bm25_idf(2, 2) == 0.18232156f);
    tv_bm25 s;
    tv_bm25_init(&s, 1.0f, tv_bm25_idf(1, 1), 3, 1);
    assert_true(tv_bm25_score(&s, 1.0f, tv_norm_encode(3)) == 0.13076457f);
    /* monotone in freq, bounded by the weight */
    assert_true(tv_bm25_score(&s, 2.0f, 3) > tv_bm25_score(&s, 1.0f, 3));
    assert_true(tv_bm25_score(&s, 1000.0f, 3) < s.weight);
}

static void test_errors(void **state) {
    fx *f = *state;
    fails(f, "{\"foo\":{}}", TROVE_EPARSE, "unknown query [foo]", 1, 8);
    fails(f, "{\"termz\":{}}", TROVE_EPARSE, "unknown query [termz] did you mean any of [term, terms]?", 1, 10);
    fails(f, "{\"match\":{\"title\":{\"query\":\"x\",\n\"bar\":1}}}", TROVE_EPARSE, "[match] query does not support [bar]", 2, 7);
    fails(f, "{\"term\":[1]}", TROVE_EPARSE, "[term] query malformed, no start_object after query name", 1, 9);
    fails(f, "{\"term\":{\"a\":1,\"b\":2}}", TROVE_EPARSE, "[term] query doesn't support multiple fields, found [a] and [b]", 0, 0);
    fails(f, "{\"term\":{\"tag\":{\"value\":1,\"x\":2}}}", TROVE_EPARSE, "[term] query does not support [x]", 0, 0);
    fails(f, "{\"match_all\":{}, \"term\":{}}", TROVE_EPARSE, "[match_all] malformed query, expected [END_OBJECT] but found [FIELD_NAME]", 1, 18);
    fails(f, "{\"bool\":{\"must\":{\"match_all\":{}},\"foo\":{}}}", TROVE_EPARSE, "[bool] query does not support [foo]", 0, 0);
    fails(f, "{\"match_all\":{\"x\":1}}", TROVE_EXCONTENT, "[1:15] [match_all] unknown field [x]", 0, 0);
    fails(f, "{\"bool\":{\"must\":{}}}", TROVE_EARG, "query malformed, empty clause found at [1:18]", 0, 0);
    fails(f, "{\"constant_score\":{}}", TROVE_EPARSE, "[constant_score] requires a 'filter' element", 0, 0);
    fails(f, "{\"exists\":{}}", TROVE_EPARSE, "[exists] must be provided with a [field]", 0, 0);
    /* resolved by toQuery on the shard: query_shard_exception around
     * Integer.parseInt's NumberFormatException (of the text before '%') */
    fails(f, "{\"match\":{\"title\":{\"query\":\"a b\",\"minimum_should_match\":\"x%\"}}}", TROVE_EQUERYSHARD,
          "failed to create query: For input string: \"x\"", 0, 0);
    assert_int_equal(f->err.cause_code, TROVE_ENUMBERFORMAT);
    assert_string_equal(f->err.cause_reason, "For input string: \"x\"");
    fails(f, "{\"term\":{\"ok\":\"maybe\"}}", TROVE_EARG, "Can't parse boolean value [maybe], expected [true] or [false]", 0, 0);
    fails(f, "{\"geo_shape\":{\"loc\":{}}}", TROVE_EUNSUPPORTED, "[geo_shape] a query without [shape] is not supported by trove", 0, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_shapes, setup, teardown),
        cmocka_unit_test(test_msm),
        cmocka_unit_test(test_bm25_math),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
