/* test_search_simple_query_string.c — simple_query_string: Lucene
 * SimpleQueryParser trees (operators, flags, unbalanced input never
 * failing), OpenSearch's field handling (most_fields dis_max, leniency on
 * `*`, quote_field_suffix), parameter errors, and end-to-end searches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "index/index.h"
#include "json/json.h"
#include "query/query.h"
#include "query/query_string.h"
#include "search/search.h"

static tv_index *g_idx;

static int setup(void **state) {
    (void)state;
    const char *mappings =
        "{\"properties\":{\"title\":{\"type\":\"text\"},\"body\":{\"type\":\"text\"},"
        "\"tag\":{\"type\":\"keyword\"},\"n\":{\"type\":\"long\"},"
        "\"user\":{\"properties\":{\"name\":{\"type\":\"text\",\"fields\":{\"raw\":{\"type\":\"keyword\"}}}}}}}";
    tv_arena a;
    tv_arena_init(&a);
    tv_json *m = NULL;
    assert_int_equal(tv_json_parse(&a, mappings, strlen(mappings), &m, NULL), TROVE_OK);
    tv_error err = TV_ERROR_INIT;
    g_idx = tv_index_new("test", NULL, m, &err);
    assert_non_null(g_idx);
    tv_arena_fini(&a);
    static const char *docs[] = {
        "{\"title\":\"quick brown fox\",\"body\":\"the lazy dog\",\"tag\":\"Alpha\",\"n\":1}",
        "{\"title\":\"lazy fox jumps\",\"body\":\"quick quick\",\"tag\":\"beta\",\"n\":2}",
        "{\"title\":\"quack\",\"body\":\"brown bear\",\"n\":3,\"user\":{\"name\":\"John Smith\"}}",
    };
    for (int i = 0; i < 3; i++) {
        char id[4];
        snprintf(id, sizeof id, "%d", i + 1);
        tv_write_opts o;
        tv_write_opts_init(&o);
        tv_write_result res;
        tv_error_clear(&err);
        assert_int_equal(tv_index_put(g_idx, id, strlen(id), docs[i], strlen(docs[i]), &o, &res, &err), TROVE_OK);
    }
    assert_int_equal(tv_index_refresh(g_idx), TROVE_OK);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    tv_index_release(g_idx);
    return 0;
}

static char *parse(const char *json, tv_error *err) {
    tv_arena a;
    tv_arena_init(&a);
    tv_json *q = NULL;
    assert_int_equal(tv_json_parse(&a, json, strlen(json), &q, NULL), TROVE_OK);
    const tv_snapshot *snap = tv_index_acquire(g_idx);
    tv_dsl d = {0};
    d.mapping = snap->mapping;
    d.arena = &a;
    d.src = json;
    d.src_len = strlen(json);
    d.err = err;
    tv_error_clear(err);
    tv_query *out = NULL;
    tv_status st = tv_dsl_parse_query(&d, q, &out);
    char *r = NULL;
    if (st == TROVE_OK) r = strdup(tv_query_debug_string(out, &a));
    else err->code = st;
    tv_snapshot_release(snap);
    tv_arena_fini(&a);
    return r;
}

static void build(char *json, size_t cap, const char *query, const char *params) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_strz(&w, query);
    snprintf(json, cap, "{\"simple_query_string\":{\"query\":%s%s%s}}", b.data, *params ? "," : "", params);
    tv_buf_fini(&b);
}

static void expect_sq(const char *query, const char *params, const char *want) {
    char json[2048];
    build(json, sizeof json, query, params);
    tv_error err = TV_ERROR_INIT;
    char *got = parse(json, &err);
    if (!got) fprintf(stderr, "%s\n  error %s: %s\n", json, trove_status_name(err.code), err.reason);
    assert_non_null(got);
    if (strcmp(got, want) != 0) fprintf(stderr, "%s\n  want [%s]\n  got  [%s]\n", json, want, got);
    assert_string_equal(got, want);
    free(got);
}

static void expect_sq_err(const char *query, const char *params, tv_status code, const char *reason) {
    char json[2048];
    build(json, sizeof json, query, params);
    tv_error err = TV_ERROR_INIT;
    char *got = parse(json, &err);
    if (got || err.code != code || strcmp(err.reason, reason) != 0)
        fprintf(stderr, "%s\n  want %s [%s]\n  got %s [%s]\n", json, trove_status_name(code), reason,
                trove_status_name(err.code), err.reason);
    assert_null(got);
    assert_int_equal(err.code, code);
    assert_string_equal(err.reason, reason);
}

#define F "\"fields\":[\"title\"]"
#define S(q, w) expect_sq(q, F, w)

static void test_operators(void **state) {
    (void)state;
    S("foo", "title:foo");
    S("foo bar", "title:foo title:bar");
    S("foo + bar", "+title:foo +title:bar");
    S("foo +bar", "+title:foo +title:bar");
    S("foo | bar", "title:foo title:bar");
    S("foo -bar", "title:foo (*:* -title:bar)");
    S("foo --bar", "title:foo title:bar");
    S("-foo", "*:* -title:foo");
    /* operator changes: the tree so far becomes one clause */
    S("a | b + c", "+(title:a title:b) +title:c");
    S("a + b | c", "(+title:a +title:b) title:c");
    S("a + b + c", "+title:a +title:b +title:c");
    S("(a | b) + c", "+(title:a title:b) +title:c");
    S("+a", "title:a");
    S("| a", "title:a");
    expect_sq("a b", "\"fields\":[\"title\"],\"default_operator\":\"and\"", "+title:a +title:b");
    /* phrases, slop, prefix, fuzzy */
    S("\"quick fox\"", "title:\"quick fox\"");
    S("\"quick fox\"~2", "title:\"quick fox\"~2");
    S("\"quick fox\"~", "title:\"quick fox\""); /* a trailing ~ is no slop */
    S("qui*", "title:qui*");
    S("Qui*", "title:qui*");
    S("quikc~", "title:quikc~2");
    S("quikc~1", "title:quikc~1");
    S("quikc~0", "title:quikc");
    S("quikc~9", "title:quikc~2");
    /* never an error */
    S("\"unbalanced", "title:unbalanced");
    S("(unbalanced", "title:unbalanced");
    S("unbalanced)", "title:unbalanced");
    S("()", "MatchNoDocsQuery(\"\")");
    S("\"\"", "MatchNoDocsQuery(\"\")");
    S("", "MatchNoDocsQuery(\"\")");
    S("+-|", "MatchNoDocsQuery(\"\")");
    S("a\\+b", "title:a title:b");
    S("*", "*:*");
    S("quick-fox", "title:quick title:fox");
}

static void test_flags(void **state) {
    (void)state;
    expect_sq("a + b", "\"fields\":[\"title\"],\"flags\":\"NONE\"", "title:a title:b");
    expect_sq("a -b", "\"fields\":[\"title\"],\"flags\":\"OR|AND\"", "title:a title:b");
    expect_sq("a -b", "\"fields\":[\"title\"],\"flags\":\"not\"", "title:a title:b"); /* no WHITESPACE: one token */
    expect_sq("a -b", "\"fields\":[\"title\"],\"flags\":\"not|whitespace\"", "title:a (*:* -title:b)");
    expect_sq("qui*", "\"fields\":[\"title\"],\"flags\":\"NONE\"", "title:qui");
    expect_sq("\"a b\"", "\"fields\":[\"title\"],\"flags\":\"AND\"", "title:a title:b");
    expect_sq("\"a b\"~3", "\"fields\":[\"title\"],\"flags\":\"PHRASE\"", "title:\"a b\" title:3");
    expect_sq("\"a b\"~3", "\"fields\":[\"title\"],\"flags\":\"PHRASE|SLOP\"", "title:\"a b\"~3");
    expect_sq("a~1", "\"fields\":[\"title\"],\"flags\":0", "title:a title:1");
    expect_sq("a~1", "\"fields\":[\"title\"],\"flags\":-1", "title:a~1");
    expect_sq_err("a", "\"flags\":\"AND|BOGUS\"", TROVE_EARG, "Unknown simple_query_string flag [BOGUS]");
}

static void test_fields(void **state) {
    (void)state;
    expect_sq("foo", "\"fields\":[\"title\",\"body^2\"]", "(title:foo | (body:foo)^2.0)~1.0");
    expect_sq("foo bar", "\"fields\":[\"title\",\"body\"]", "(title:foo | body:foo)~1.0 (title:bar | body:bar)~1.0");
    expect_sq("\"a b\"", "\"fields\":[\"user.name\"],\"quote_field_suffix\":\".raw\"", "user.name.raw:a b");
    expect_sq("foo", "\"fields\":[\"missing\"]", "MatchNoDocsQuery(\"\")");
    /* default fields `*` are lenient */
    expect_sq("fox", "", "(body:fox | MatchNoDocsQuery(\"\") | tag:fox | title:fox | user.name:fox | user.name.raw:fox)~1.0");
    expect_sq_err("fox", "\"fields\":[\"n\"]", TROVE_EQUERYSHARD, "failed to create query: For input string: \"fox\"");
    expect_sq("fox", "\"fields\":[\"n\"],\"lenient\":true", "MatchNoDocsQuery(\"\")");
    expect_sq("a b c", "\"fields\":[\"title\"],\"minimum_should_match\":\"2\"", "(title:a title:b title:c)~2");
    expect_sq("a", "\"fields\":[\"title\"],\"boost\":3", "(title:a)^3.0");
    expect_sq_err("a", "\"bogus\":1", TROVE_EPARSE, "[simple_query_string] unsupported field [bogus]");
    expect_sq_err("a", "\"analyzer\":\"nope\"", TROVE_EQUERYSHARD, "[simple_query_string] analyzer [nope] not found");
    tv_error err = TV_ERROR_INIT;
    assert_null(parse("{\"simple_query_string\":{\"fields\":[\"title\"]}}", &err));
    assert_string_equal(err.reason, "[simple_query_string] query text missing");
}

static void hit_set(const char *r, char *out, size_t cap) {
    out[0] = 0;
    char ids[16];
    size_t k = 0;
    const char *p = r;
    while ((p = strstr(p, "\"_id\":\"")) != NULL && k < sizeof ids) {
        ids[k++] = p[7];
        p += 8;
    }
    for (size_t i = 0; i < k; i++)
        for (size_t j = i + 1; j < k; j++)
            if (ids[j] < ids[i]) { char t = ids[i]; ids[i] = ids[j]; ids[j] = t; }
    size_t n = 0;
    for (size_t i = 0; i < k && n + 2 < cap; i++) {
        if (i) out[n++] = ',';
        out[n++] = ids[i];
    }
    out[n] = 0;
}

static void expect_hits(const char *query, const char *params, const char *ids) {
    char json[2048], body[2200];
    build(json, sizeof json, query, params);
    snprintf(body, sizeof body, "{\"query\":%s}", json);
    tv_arena a;
    tv_arena_init(&a);
    tv_json *b = NULL;
    assert_int_equal(tv_json_parse(&a, body, strlen(body), &b, NULL), TROVE_OK);
    const tv_snapshot *snap = tv_index_acquire(g_idx);
    tv_search_target t = {"test", snap, 10000};
    tv_search_params p;
    tv_search_params_init(&p);
    tv_buf out;
    tv_buf_init(&out);
    tv_jw w;
    tv_jw_init(&w, &out, false);
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_search_run(&t, 1, b, &p, &a, &w, &err);
    if (st) fprintf(stderr, "%s: %s\n", body, err.reason);
    assert_int_equal(st, TROVE_OK);
    char got[64];
    hit_set(out.data, got, sizeof got);
    if (strcmp(got, ids) != 0) fprintf(stderr, "%s\n  want {%s} got {%s}\n", body, ids, got);
    assert_string_equal(got, ids);
    tv_buf_fini(&out);
    tv_snapshot_release(snap);
    tv_arena_fini(&a);
}

static void test_search(void **state) {
    (void)state;
    expect_hits("fox", F, "1,2");
    expect_hits("fox -lazy", "\"fields\":[\"title\"],\"default_operator\":\"and\"", "1");
    expect_hits("fox + lazy", F, "2");
    expect_hits("\"brown fox\"", F, "1");
    expect_hits("qu*", F, "1,3");
    expect_hits("quikc~1", F, "1");
    expect_hits("quick", "", "1,2");
    expect_hits("smith | beta", "", "2,3");
    expect_hits("-fox", F, "3");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_operators), cmocka_unit_test(test_flags),
        cmocka_unit_test(test_fields), cmocka_unit_test(test_search),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
