/* test_search_query_string.c — the query_string query: parse trees (as
 * Lucene-style strings, checked against what Lucene's classic parser and
 * OpenSearch build), errors with Lucene's messages, leniency, and end to
 * end searches through tv_search_run, including URI search (?q=). */
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

static tv_index *mkindex(void) {
    const char *mappings =
        "{\"properties\":{\"title\":{\"type\":\"text\"},\"body\":{\"type\":\"text\"},"
        "\"tag\":{\"type\":\"keyword\"},\"low\":{\"type\":\"keyword\",\"normalizer\":\"lowercase\"},"
        "\"n\":{\"type\":\"long\"},\"price\":{\"type\":\"double\"},\"ok\":{\"type\":\"boolean\"},"
        "\"when\":{\"type\":\"date\"},\"en\":{\"type\":\"text\",\"analyzer\":\"english\"},"
        "\"user\":{\"properties\":{\"name\":{\"type\":\"text\",\"fields\":{\"raw\":{\"type\":\"keyword\"}}}}}}}";
    tv_arena a;
    tv_arena_init(&a);
    tv_json *m = NULL;
    assert_int_equal(tv_json_parse(&a, mappings, strlen(mappings), &m, NULL), TROVE_OK);
    tv_error err = TV_ERROR_INIT;
    tv_index *idx = tv_index_new("test", NULL, m, &err);
    if (!idx) fprintf(stderr, "tv_index_new: %s\n", err.reason);
    assert_non_null(idx);
    tv_arena_fini(&a);
    static const char *docs[] = {
        "{\"title\":\"quick brown fox\",\"body\":\"the lazy dog\",\"tag\":\"Alpha\",\"low\":\"MiXed\",\"n\":1,\"price\":1.5,\"ok\":true,\"when\":\"2020-01-01\"}",
        "{\"title\":\"lazy fox jumps\",\"body\":\"quick quick\",\"tag\":\"beta\",\"low\":\"other\",\"n\":2,\"price\":2.5,\"ok\":false,\"when\":\"2020-01-02T10:00:00Z\"}",
        "{\"title\":\"quack\",\"body\":\"brown bear\",\"tag\":\"gamma delta\",\"n\":3,\"en\":\"running dogs\",\"user\":{\"name\":\"John Smith\"}}",
        "{\"title\":\"the fox and the hound\",\"n\":10,\"price\":10.0}",
    };
    for (int i = 0; i < 4; i++) {
        char id[4];
        snprintf(id, sizeof id, "%d", i + 1);
        tv_write_opts o;
        tv_write_opts_init(&o);
        tv_write_result res;
        tv_error_clear(&err);
        tv_status st = tv_index_put(idx, id, strlen(id), docs[i], strlen(docs[i]), &o, &res, &err);
        if (st) fprintf(stderr, "put: %s\n", err.reason);
        assert_int_equal(st, TROVE_OK);
    }
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    return idx;
}

static int setup(void **state) {
    (void)state;
    g_idx = mkindex();
    return 0;
}
static int teardown(void **state) {
    (void)state;
    tv_index_release(g_idx);
    return 0;
}

/* Parses a query object; returns its debug string (malloc'ed) or NULL
 * with err filled. */
static char *parse(const char *json, tv_error *err) {
    tv_arena a;
    tv_arena_init(&a);
    tv_json *q = NULL;
    tv_json_error je;
    if (tv_json_parse(&a, json, strlen(json), &q, &je) != TROVE_OK) {
        fprintf(stderr, "bad test json: %s (%s)\n", json, je.msg);
        fail();
    }
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
    if (st == TROVE_OK) {
        char *s = tv_query_debug_string(out, &a);
        assert_non_null(s);
        r = strdup(s);
    } else {
        err->code = st;
    }
    tv_snapshot_release(snap);
    tv_arena_fini(&a);
    return r;
}

/* query_string with extra parameters (a JSON fragment, may be ""). */
static void expect_qs(const char *query, const char *params, const char *want) {
    char json[2048];
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_strz(&w, query);
    snprintf(json, sizeof json, "{\"query_string\":{\"query\":%s%s%s}}", b.data, *params ? "," : "", params);
    tv_buf_fini(&b);
    tv_error err = TV_ERROR_INIT;
    char *got = parse(json, &err);
    if (!got) fprintf(stderr, "%s\n  error %s: %s\n", json, trove_status_name(err.code), err.reason);
    assert_non_null(got);
    if (strcmp(got, want) != 0) fprintf(stderr, "%s\n  want [%s]\n  got  [%s]\n", json, want, got);
    assert_string_equal(got, want);
    free(got);
}

static void expect_qs_err(const char *query, const char *params, tv_status code, const char *reason,
                          const char *cause) {
    char json[2048];
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_strz(&w, query);
    snprintf(json, sizeof json, "{\"query_string\":{\"query\":%s%s%s}}", b.data, *params ? "," : "", params);
    tv_buf_fini(&b);
    tv_error err = TV_ERROR_INIT;
    char *got = parse(json, &err);
    if (got || err.code != code || strcmp(err.reason, reason) != 0 ||
        (cause && strcmp(err.cause_reason, cause) != 0))
        fprintf(stderr, "%s\n  want %s [%s] / [%s]\n  got  %s [%s] / [%s] (%s)\n", json, trove_status_name(code),
                reason, cause ? cause : "", trove_status_name(err.code), err.reason, err.cause_reason,
                got ? got : "");
    assert_null(got);
    assert_int_equal(err.code, code);
    assert_string_equal(err.reason, reason);
    if (cause) assert_string_equal(err.cause_reason, cause);
}

#define T(q, w) expect_qs(q, "\"default_field\":\"title\"", w)

static void test_terms_and_operators(void **state) {
    (void)state;
    T("foo", "title:foo");
    T("Foo", "title:foo");
    T("foo bar", "title:foo title:bar");
    T("foo AND bar", "+title:foo +title:bar");
    T("foo && bar", "+title:foo +title:bar");
    T("foo OR bar", "title:foo title:bar");
    T("foo || bar", "title:foo title:bar");
    T("+foo -bar baz", "+title:foo title:baz -title:bar");
    T("foo NOT bar", "title:foo -title:bar");
    T("foo !bar", "title:foo -title:bar");
    /* classic binding, no precedence: AND makes both neighbours required */
    T("a AND b OR c", "+title:a +title:b title:c");
    T("a OR b AND c", "+title:b +title:c title:a");
    T("a b AND c", "+title:b +title:c title:a");
    T("-a AND b", "+title:b -title:a");
    T("NOT a", "#*:* -title:a");
    T("-a -b", "#*:* -title:a -title:b");
    T("(a b) AND c", "+(title:a title:b) +title:c");
    T("title:(a OR b) -c", "(title:a title:b) -title:c");
    /* a bare operator followed by space is a term, analyzed away */
    T("a + b", "title:a title:b");
    T("a - b", "title:a title:b");
    /* analysis: one token -> term, several -> a bool in the clause */
    T("quick-fox", "title:quick title:fox");
    T("+quick-fox lazy", "+(title:quick title:fox) title:lazy");
    T("a ... b", "title:a title:b");
    T("...", "MatchNoDocsQuery(\"\")");
    T("   ", "MatchNoDocsQuery(\"\")");
    /* default_operator AND */
    expect_qs("foo bar", "\"default_field\":\"title\",\"default_operator\":\"AND\"", "+title:foo +title:bar");
    expect_qs("a OR b c", "\"default_field\":\"title\",\"default_operator\":\"and\"", "+title:c title:a title:b");
    expect_qs("a b OR c", "\"default_field\":\"title\",\"default_operator\":\"AND\"", "+title:a title:b title:c");
    expect_qs("quick-fox", "\"default_field\":\"title\",\"default_operator\":\"AND\"", "+title:quick +title:fox");
}

static void test_fields_and_boosts(void **state) {
    (void)state;
    T("body:foo bar", "body:foo title:bar");
    T("body:(foo bar) baz", "(body:foo body:bar) title:baz");
    T("foo^2", "(title:foo)^2.0");
    T("foo^0.5 bar", "(title:foo)^0.5 title:bar");
    T("(foo bar)^3", "(title:foo title:bar)^3.0");
    T("\"quick fox\"^2", "(title:\"quick fox\")^2.0");
    T("tag:Alpha", "tag:Alpha");
    T("tag:(Alpha beta)", "tag:Alpha beta");
    T("low:MiXeD", "low:mixed");
    T("missing:foo", "MatchNoDocsQuery(\"\")");
    T("user.name:John", "user.name:john");
    T("user.name.raw:John", "user.name.raw:John");
    T("n:2", "n:[2 TO 2]");
    T("price:1.5", "price:[1.5 TO 1.5]");
    T("ok:true", "ok:T");
    T("en:running", "en:run");
    /* escapes */
    T("title\\:x", "title:title:x"); /* UAX#29 keeps letter:letter together */
    T("a\\-b", "title:a title:b");
    T("\\(foo\\)", "title:foo");
    /* fields with boosts: dis_max over fields, tie_breaker */
    expect_qs("foo", "\"fields\":[\"title\",\"body^2\"]", "(title:foo | (body:foo)^2.0)");
    expect_qs("foo bar", "\"fields\":[\"title\",\"body\"]", "(title:foo title:bar | body:foo body:bar)");
    expect_qs("foo", "\"fields\":[\"title\",\"body\"],\"tie_breaker\":0.3", "(title:foo | body:foo)~0.3");
    expect_qs("foo", "\"fields\":[\"title\",\"body\"],\"type\":\"most_fields\"", "(title:foo | body:foo)~1.0");
    expect_qs("foo", "\"fields\":[\"user.*\"]", "(user.name:foo | user.name.raw:foo)");
    expect_qs("foo", "\"fields\":[\"title\"],\"boost\":2", "(title:foo)^2.0");
    /* the default: every field, leniently (numbers do not fail) */
    expect_qs("fox", "",
              "(body:fox | en:fox | low:fox | MatchNoDocsQuery(\"\") | MatchNoDocsQuery(\"\") | MatchNoDocsQuery(\"\") | "
              "tag:fox | title:fox | user.name:fox | user.name.raw:fox | MatchNoDocsQuery(\"\"))");
}

static void test_phrases_fuzzy_wildcards(void **state) {
    (void)state;
    T("\"quick brown fox\"", "title:\"quick brown fox\"");
    T("\"quick fox\"~2", "title:\"quick fox\"~2");
    T("\"quick\"", "title:quick");
    T("\"quick fox\"~2.7", "title:\"quick fox\"~2");
    expect_qs("\"quick fox\"", "\"default_field\":\"title\",\"phrase_slop\":3", "title:\"quick fox\"~3");
    T("\"Alpha\" AND tag:\"Alpha\"", "+title:alpha +tag:Alpha");
    T("quikc~", "title:quikc~1");
    T("quikc~1", "title:quikc~1");
    T("qu~", "title:qu~0");
    T("Quikcly~2", "title:quikcly~2");
    T("quikcly~5", "title:quikcly~2");
    T("quikc~^2", "(title:quikc~1)^2.0");
    T("qu?ck", "title:qu?ck");
    T("Qu?ck*", "title:qu?ck*");
    T("qui*", "title:qui*");
    T("Qui*", "title:qui*");
    T("tag:Al*", "tag:Al*");
    T("*", "FieldExistsQuery [field=title]");
    T("title:*", "FieldExistsQuery [field=title]");
    T("*:*", "*:*");
    T("/qu[ia]ck/", "title:/qu[ia]ck/");
    T("_exists_:body", "FieldExistsQuery [field=body]");
    T("-_exists_:body", "#*:* -FieldExistsQuery [field=body]");
    expect_qs("*", "", "*:*");
    expect_qs("fox", "\"default_field\":\"title\",\"type\":\"phrase\"", "title:fox");
    expect_qs("quick fox", "\"default_field\":\"title\",\"type\":\"phrase\"", "title:\"quick fox\"");
    expect_qs("*ick", "\"default_field\":\"title\"", "title:*ick");
}

static void test_ranges(void **state) {
    (void)state;
    T("n:[1 TO 5]", "n:[1 TO 5]");
    T("n:{1 TO 5}", "n:[2 TO 4]");
    T("n:[* TO 5]", "n:[-9223372036854775808 TO 5]");
    T("n:[2 TO *}", "n:[2 TO 9223372036854775807]");
    T("n:>=10", "n:[10 TO 9223372036854775807]");
    T("n:>10", "n:[11 TO 9223372036854775807]");
    T("n:<5", "n:[-9223372036854775808 TO 4]");
    T("n:<=5", "n:[-9223372036854775808 TO 5]");
    T("tag:[a TO c]", "tag:[a TO c]");
    T("title:{A TO C]", "title:{a TO c]");
    T("tag:[\"a b\" TO c]", "tag:[a b TO c]");
    T("n:[1 TO 5]^2", "(n:[1 TO 5])^2.0");
    T("when:[2020-01-01 TO 2020-01-01]", "when:[1577836800000 TO 1577923199999]");
    T("when:2020-01-01", "when:[1577836800000 TO 1577923199999]");
}

static void test_errors(void **state) {
    (void)state;
    const char *P = "\"default_field\":\"title\"";
    expect_qs_err("foo:(", P, TROVE_EQUERYSHARD, "Failed to parse query [foo:(]",
                  "Cannot parse 'foo:(': Encountered \"<EOF>\" at line 1, column 5.\n"
                  "Was expecting one of:\n    <NOT> ...\n    \"+\" ...\n    \"-\" ...\n    <BAREOPER> ...\n"
                  "    \"(\" ...\n    \"*\" ...\n    <QUOTED> ...\n    <TERM> ...\n    <PREFIXTERM> ...\n"
                  "    <WILDTERM> ...\n    <REGEXPTERM> ...\n    \"[\" ...\n    \"{\" ...\n    <NUMBER> ...\n"
                  "    <TERM> ...\n    ");
    expect_qs_err("a)", P, TROVE_EQUERYSHARD, "Failed to parse query [a)]",
                  "Cannot parse 'a)': Encountered \" \")\" \") \"\" at line 1, column 1.\n"
                  "Was expecting one of:\n    <EOF> \n    <AND> ...\n    <OR> ...\n    <NOT> ...\n"
                  "    \"+\" ...\n    \"-\" ...\n    <BAREOPER> ...\n    \"(\" ...\n    \"*\" ...\n"
                  "    \"^\" ...\n    <QUOTED> ...\n    <TERM> ...\n    <FUZZY_SLOP> ...\n"
                  "    <PREFIXTERM> ...\n    <WILDTERM> ...\n    <REGEXPTERM> ...\n    \"[\" ...\n"
                  "    \"{\" ...\n    <NUMBER> ...\n    <TERM> ...\n    ");
    expect_qs_err("foo AND", P, TROVE_EQUERYSHARD, "Failed to parse query [foo AND]",
                  "Cannot parse 'foo AND': Encountered \"<EOF>\" at line 1, column 7.\n"
                  "Was expecting one of:\n    <NOT> ...\n    \"+\" ...\n    \"-\" ...\n    <BAREOPER> ...\n"
                  "    \"(\" ...\n    \"*\" ...\n    <QUOTED> ...\n    <TERM> ...\n    <PREFIXTERM> ...\n"
                  "    <WILDTERM> ...\n    <REGEXPTERM> ...\n    \"[\" ...\n    \"{\" ...\n    <NUMBER> ...\n"
                  "    <TERM> ...\n    \"*\" ...\n    ");
    expect_qs_err("a^", P, TROVE_EQUERYSHARD, "Failed to parse query [a^]",
                  "Cannot parse 'a^': Encountered \"<EOF>\" at line 1, column 2.\n"
                  "Was expecting:\n    <NUMBER> ...\n    ");
    expect_qs_err("\"abc", P, TROVE_EQUERYSHARD, "Failed to parse query [\"abc]",
                  "Cannot parse '\"abc': Lexical error at line 1, column 5.  Encountered: <EOF> after prefix "
                  "\"\\\"abc\" (in lexical state 2)");
    expect_qs_err("a^x", P, TROVE_EQUERYSHARD, "Failed to parse query [a^x]",
                  "Cannot parse 'a^x': Lexical error at line 1, column 3.  Encountered: 'x' (120),");
    expect_qs_err("a ]", P, TROVE_EQUERYSHARD, "Failed to parse query [a ]]",
                  "Cannot parse 'a ]': Lexical error at line 1, column 3.  Encountered: ']' (93), (in lexical state 2)");
    expect_qs_err("[a TO b", P, TROVE_EQUERYSHARD, "Failed to parse query [[a TO b]",
                  "Cannot parse '[a TO b': Encountered \"<EOF>\" at line 1, column 7.\n"
                  "Was expecting one of:\n    \"]\" ...\n    \"}\" ...\n    ");
    expect_qs_err("a\\u00", P, TROVE_EQUERYSHARD, "Failed to parse query [a\\u00]",
                  "Cannot parse 'a\\u00': Truncated unicode escape sequence.");
    expect_qs_err("*ick", "\"default_field\":\"title\",\"allow_leading_wildcard\":false", TROVE_EQUERYSHARD,
                  "Failed to parse query [*ick]",
                  "Cannot parse '*ick': '*' or '?' not allowed as first character in WildcardQuery");
    /* value errors: not lenient unless asked (or the default `*` fields) */
    expect_qs_err("n:abc", P, TROVE_EQUERYSHARD, "failed to create query: For input string: \"abc\"", NULL);
    expect_qs("n:abc", "\"default_field\":\"title\",\"lenient\":true", "MatchNoDocsQuery(\"\")");
    expect_qs("n:abc", "", "MatchNoDocsQuery(\"\")");
    expect_qs_err("/a(b/", P, TROVE_EQUERYSHARD, "failed to create query: expected ')' at position 3", NULL);
    expect_qs_err("n:*a", P, TROVE_EQUERYSHARD,
                  "Can only use wildcard queries on keyword and text fields - not on [n] which is of type [long]", NULL);
    /* parameters */
    expect_qs_err("a", "\"default_field\":\"title\",\"fields\":[\"body\"]", TROVE_EVALIDATION,
                  "Validation Failed: 1: cannot use [fields] parameter in conjunction with [default_field];", NULL);
    expect_qs_err("a", "\"foo\":1", TROVE_EPARSE, "[query_string] query does not support [foo]", NULL);
    expect_qs_err("a", "\"default_operator\":\"xor\"", TROVE_EARG,
                  "operator needs to be either [AND, OR], but not [xor]", NULL);
    expect_qs_err("a", "\"analyzer\":\"nope\"", TROVE_EQUERYSHARD, "[query_string] analyzer [nope] not found", NULL);
    tv_error err = TV_ERROR_INIT;
    assert_null(parse("{\"query_string\":{\"default_field\":\"title\"}}", &err));
    assert_int_equal(err.code, TROVE_EPARSE);
    assert_string_equal(err.reason, "[query_string] must be provided with a [query]");
}

static void test_misc_params(void **state) {
    (void)state;
    expect_qs("a b c", "\"default_field\":\"title\",\"minimum_should_match\":2", "(title:a title:b title:c)~2");
    expect_qs("a b c", "\"default_field\":\"title\",\"minimum_should_match\":\"-1\"", "(title:a title:b title:c)~2");
    expect_qs("(a)", "\"default_field\":\"title\",\"escape\":true", "title:a");
    expect_qs("foo", "\"default_field\":\"title\",\"analyzer\":\"whitespace\"", "title:foo");
    expect_qs("Foo", "\"default_field\":\"title\",\"analyzer\":\"whitespace\"", "title:Foo");
    expect_qs("\"a b\"", "\"fields\":[\"user.name\"],\"quote_field_suffix\":\".raw\"", "user.name.raw:a b");
    expect_qs("a", "\"fields\":[\"user.name\"],\"quote_field_suffix\":\".raw\"", "user.name:a");
    expect_qs("quikc~", "\"default_field\":\"title\",\"fuzziness\":2", "title:quikc~2");
    expect_qs("a", "\"default_field\":\"title\",\"auto_generate_synonyms_phrase_query\":false,\"rewrite\":\"x\","
                   "\"time_zone\":\"+01:00\",\"fuzzy_rewrite\":\"y\",\"analyze_wildcard\":true",
              "title:a");
    expect_qs("when:2020-01-01", "\"default_field\":\"title\",\"time_zone\":\"+01:00\"",
              "when:[1577833200000 TO 1577919599999]");
    expect_qs("quick br*", "\"default_field\":\"title\",\"analyze_wildcard\":true", "title:quick title:br*");
}

/* ------------------------------------------------------------ end to end */

static char *do_search(const char *body, const char *q, tv_error *err) {
    tv_arena a;
    tv_arena_init(&a);
    tv_json *b = NULL;
    if (body) assert_int_equal(tv_json_parse(&a, body, strlen(body), &b, NULL), TROVE_OK);
    const tv_snapshot *snap = tv_index_acquire(g_idx);
    tv_search_target t = {"test", snap, 10000};
    tv_search_params p;
    tv_search_params_init(&p);
    if (body) {
        p.body_text = body;
        p.body_text_len = strlen(body);
    }
    p.q = q;
    tv_buf out;
    tv_buf_init(&out);
    tv_jw w;
    tv_jw_init(&w, &out, false);
    tv_error_clear(err);
    tv_status st = tv_search_run(&t, 1, b, &p, &a, &w, err);
    tv_snapshot_release(snap);
    tv_arena_fini(&a);
    if (st) {
        tv_buf_fini(&out);
        return NULL;
    }
    return tv_buf_detach(&out, NULL);
}

static void hit_ids(const char *r, char *out, size_t cap) {
    out[0] = 0;
    const char *p = r;
    size_t n = 0;
    while ((p = strstr(p, "\"_id\":\"")) != NULL) {
        p += 7;
        const char *e = strchr(p, '"');
        if (n && n + 1 < cap) out[n++] = ',';
        while (p < e && n + 1 < cap) out[n++] = *p++;
        out[n] = 0;
    }
}

static void expect_hits(const char *query, const char *params, const char *ids) {
    char body[2048];
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_strz(&w, query);
    snprintf(body, sizeof body, "{\"query\":{\"query_string\":{\"query\":%s%s%s}}}", b.data, *params ? "," : "",
             params);
    tv_buf_fini(&b);
    tv_error err = TV_ERROR_INIT;
    char *r = do_search(body, NULL, &err);
    if (!r) fprintf(stderr, "%s: %s\n", body, err.reason);
    assert_non_null(r);
    char got[256];
    hit_ids(r, got, sizeof got);
    if (strcmp(got, ids) != 0) fprintf(stderr, "%s\n  want [%s] got [%s]\n  %s\n", body, ids, got, r);
    assert_string_equal(got, ids);
    free(r);
}

static void sorted(char *s) {
    /* sorts a "3,1,2" list in place (single-digit ids) */
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i += 2)
        for (size_t j = i + 2; j < n; j += 2)
            if (s[j] < s[i]) { char t = s[i]; s[i] = s[j]; s[j] = t; }
}

static void expect_set(const char *query, const char *params, const char *ids) {
    char body[2048];
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_strz(&w, query);
    snprintf(body, sizeof body, "{\"query\":{\"query_string\":{\"query\":%s%s%s}}}", b.data, *params ? "," : "",
             params);
    tv_buf_fini(&b);
    tv_error err = TV_ERROR_INIT;
    char *r = do_search(body, NULL, &err);
    if (!r) fprintf(stderr, "%s: %s\n", body, err.reason);
    assert_non_null(r);
    char got[256];
    hit_ids(r, got, sizeof got);
    sorted(got);
    if (strcmp(got, ids) != 0) fprintf(stderr, "%s\n  want {%s} got {%s}\n  %s\n", body, ids, got, r);
    assert_string_equal(got, ids);
    free(r);
}

static void test_search_end_to_end(void **state) {
    (void)state;
    const char *T1 = "\"default_field\":\"title\"";
    expect_set("fox", T1, "1,2,4");
    expect_set("fox AND lazy", T1, "2");
    expect_set("fox -lazy", T1, "1,4");
    expect_set("NOT fox", T1, "3");
    expect_set("\"brown fox\"", T1, "1");
    expect_set("\"fox brown\"", T1, "");
    expect_set("\"fox brown\"~2", T1, "1");
    expect_set("qu?ck OR quack", T1, "1,3");
    expect_set("qu*", T1, "1,3");
    expect_set("Qu*", T1, "1,3");
    expect_set("/qu[ia]ck/", T1, "1,3");
    expect_set("quikc~", T1, "1");
    expect_set("n:[2 TO 3]", T1, "2,3");
    expect_set("n:>=3", T1, "3,4");
    expect_set("price:<2", T1, "1");
    expect_set("tag:beta OR low:mixed", T1, "1,2");
    expect_set("tag:\"gamma delta\"", T1, "3");
    expect_set("_exists_:en", T1, "3");
    expect_set("when:2020-01-02", T1, "2");
    expect_set("when:[2020-01-01 TO 2020-01-01]", T1, "1");
    expect_set("ok:false", T1, "2");
    expect_set("*:*", T1, "1,2,3,4");
    /* every field by default */
    expect_set("quick", "", "1,2");
    expect_set("brown", "", "1,3");
    expect_set("2", "", "2");
    expect_set("smith", "", "3");
    expect_set("beta", "", "2");
    expect_set("quick", "\"fields\":[\"body\"]", "2");
    /* scores: a boosted field wins */
    expect_hits("quick", "\"fields\":[\"title\",\"body^10\"]", "2,1");
    expect_hits("quick", "\"fields\":[\"title^10\",\"body\"]", "1,2");
    expect_hits("fox^5 OR dog", "\"default_field\":\"body\"", "1");
    /* URI search: q, df, default_operator */
    tv_error err = TV_ERROR_INIT;
    char *r = do_search(NULL, "title:fox AND title:lazy", &err);
    assert_non_null(r);
    char got[64];
    hit_ids(r, got, sizeof got);
    assert_string_equal(got, "2");
    free(r);
    tv_error_clear(&err);
    r = do_search(NULL, "title:(", &err);
    assert_null(r);
    assert_int_equal(err.code, TROVE_EQUERYSHARD);
    assert_string_equal(err.reason, "Failed to parse query [title:(]");
    assert_int_equal(err.cause_code, TROVE_EPARSEEXC);
}

static void test_search_uri_params(void **state) {
    (void)state;
    tv_arena a;
    tv_arena_init(&a);
    tv_search_params p;
    tv_search_params_init(&p);
    const tv_json *j = NULL;
    assert_int_equal(tv_query_string_from_params(&a, &p, &j), TROVE_OK);
    assert_null(j);
    p.q = "fox lazy";
    p.df = "title";
    p.default_operator = "AND";
    assert_int_equal(tv_query_string_from_params(&a, &p, &j), TROVE_OK);
    assert_non_null(j);
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_value(&w, j);
    assert_string_equal(b.data,
                        "{\"query_string\":{\"query\":\"fox lazy\",\"default_field\":\"title\",\"default_operator\":\"AND\"}}");
    tv_buf_fini(&b);
    tv_arena_fini(&a);
    /* through the search */
    const tv_snapshot *snap = tv_index_acquire(g_idx);
    tv_arena_init(&a);
    tv_search_target t = {"test", snap, 10000};
    tv_buf out;
    tv_buf_init(&out);
    tv_jw_init(&w, &out, false);
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_search_run(&t, 1, NULL, &p, &a, &w, &err), TROVE_OK);
    char got[64];
    hit_ids(out.data, got, sizeof got);
    assert_string_equal(got, "2");
    tv_buf_fini(&out);
    tv_arena_fini(&a);
    tv_snapshot_release(snap);
}

static void test_oom(void **state) {
    (void)state;
    const char *json = "{\"query_string\":{\"query\":\"a b^2 \\\"c d\\\"~1 e* f~ [a TO b] n:>3 /x+/ -g\","
                       "\"fields\":[\"title\",\"body^2\",\"n\"],\"lenient\":true}}";
    long n = 0;
    for (;; n++) {
        tv_arena a;
        tv_arena_init(&a);
        tv_json *q = NULL;
        assert_int_equal(tv_json_parse(&a, json, strlen(json), &q, NULL), TROVE_OK);
        const tv_snapshot *snap = tv_index_acquire(g_idx);
        tv_dsl d = {0};
        d.mapping = snap->mapping;
        d.arena = &a;
        tv_error err = TV_ERROR_INIT;
        d.err = &err;
        tv_alloc_fail_after(n);
        tv_query *out = NULL;
        tv_status st = tv_dsl_parse_query(&d, q, &out);
        tv_alloc_fail_after(-1);
        tv_snapshot_release(snap);
        tv_arena_fini(&a);
        if (st == TROVE_OK) break;
        assert_int_equal(st, TROVE_ENOMEM);
        assert_true(n < 100000);
    }
    assert_true(n > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terms_and_operators), cmocka_unit_test(test_fields_and_boosts),
        cmocka_unit_test(test_phrases_fuzzy_wildcards), cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_errors), cmocka_unit_test(test_misc_params),
        cmocka_unit_test(test_search_end_to_end), cmocka_unit_test(test_search_uri_params),
        cmocka_unit_test(test_oom),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
