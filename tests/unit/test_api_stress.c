/* test_api_stress.c — concurrency smoke test (threads writing and searching one
 * node), the out-of-memory loop over a small request sequence, and the JSON
 * helpers behind source filtering and _update (HashMap key order, merge). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"

/* --------------------------------------------------------- concurrency */

#define THREADS 4
#define DOCS 100

typedef struct targ {
    trove_node *n;
    int t;
    int failures;
} targ;

static void *worker(void *p) {
    targ *a = p;
    char path[128], body[128];
    for (int i = 0; i < DOCS; i++) {
        trove_response r;
        snprintf(path, sizeof path, "/shared/_doc/%d-%d", a->t, i);
        snprintf(body, sizeof body, "{\"t\":\"word%d common\",\"n\":%d}", i % 7, i);
        if (trove_request(a->n, "PUT", path, body, strlen(body), &r) != 0 || (r.status != 201 && r.status != 200))
            a->failures++;
        trove_response_fini(&r);
        if (i % 10 == 0) {
            const char *q = "{\"query\":{\"match\":{\"t\":\"common\"}}}";
            if (trove_request(a->n, "POST", "/shared/_search", q, strlen(q), &r) != 0 || r.status != 200)
                a->failures++;
            trove_response_fini(&r);
            snprintf(path, sizeof path, "/own%d/_doc/%d", a->t, i);
            if (trove_request(a->n, "PUT", path, "{}", 2, &r) != 0 || r.status != 201) a->failures++;
            trove_response_fini(&r);
        }
        if (i % 25 == 0) {
            if (trove_request(a->n, "POST", "/_refresh", NULL, 0, &r) != 0 || r.status != 200) a->failures++;
            trove_response_fini(&r);
        }
    }
    return NULL;
}

static void test_concurrent(void **s) {
    (void)s;
    trove_node *n = trove_node_open(NULL, NULL);
    assert_non_null(n);
    pthread_t th[THREADS];
    targ args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (targ){n, i, 0};
        assert_int_equal(pthread_create(&th[i], NULL, worker, &args[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].failures, 0);
    }
    trove_response r;
    assert_int_equal(trove_request(n, "POST", "/shared/_refresh", NULL, 0, &r), 0);
    trove_response_fini(&r);
    assert_int_equal(trove_request(n, "GET", "/shared/_count", NULL, 0, &r), 0);
    char want[128];
    snprintf(want, sizeof want, "{\"count\":%d,", THREADS * DOCS);
    assert_non_null(strstr(r.body, want));
    trove_response_fini(&r);
    assert_int_equal(trove_request(n, "GET", "/own*/_count", NULL, 0, &r), 0);
    snprintf(want, sizeof want, "{\"count\":%d,", THREADS * (DOCS / 10));
    assert_non_null(strstr(r.body, want));
    trove_response_fini(&r);
    trove_node_free(n);
}

/* Sorts that qsort runs with a context in a file-scope variable (terms
 * buckets by order, _cat rows, rescored hits, collapse groups): two threads
 * sorting at once used to share it, and a soak crashed in the terms
 * comparator. Each thread's answers must equal the single-threaded ones. */
static const char *const sort_reqs[][3] = {
    {"POST", "/s/_search", "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"k.keyword\",\"size\":50,\"order\":[{\"m\":\"desc\"},"
                           "{\"_key\":\"asc\"}]},\"aggs\":{\"m\":{\"max\":{\"field\":\"n\"}}}}}}"},
    {"POST", "/s/_search", "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"k.keyword\",\"size\":50,\"order\":{\"_count\":\"asc\"}}}}}"},
    {"GET", "/_cat/indices?s=docs.count:desc,index&h=index,docs.count", NULL},
    {"POST", "/s/_search", "{\"query\":{\"match\":{\"t\":\"w1 w2 w3\"}},\"rescore\":{\"window_size\":50,\"query\":{"
                           "\"rescore_query\":{\"match\":{\"t\":\"w4\"}}}}}"},
};
#define NSORT (sizeof sort_reqs / sizeof sort_reqs[0])
static char *sort_want[NSORT];

typedef struct sarg {
    trove_node *n;
    int failures;
} sarg;

static void *sorter(void *p) {
    sarg *a = p;
    for (int i = 0; i < 200; i++) {
        size_t k = (size_t)i % NSORT;
        const char *b = sort_reqs[k][2];
        trove_response r;
        if (trove_request(a->n, sort_reqs[k][0], sort_reqs[k][1], b, b ? strlen(b) : 0, &r) != 0) {
            a->failures++;
            continue;
        }
        /* "took" differs: compare from the first '"timed_out"' on */
        const char *x = strstr(r.body, "\"timed_out\""), *y = strstr(sort_want[k], "\"timed_out\"");
        if (r.status != 200 || (x && y ? strcmp(x, y) : strcmp(r.body, sort_want[k]))) a->failures++;
        trove_response_fini(&r);
    }
    return NULL;
}

static void test_concurrent_sorts(void **s) {
    (void)s;
    trove_node *n = trove_node_open(NULL, NULL);
    assert_non_null(n);
    trove_response r;
    for (int idx = 0; idx < 3; idx++) {
        char body[4096 * 8];
        size_t o = 0;
        for (int i = 0; i < 300; i++)
            o += (size_t)snprintf(body + o, sizeof body - o,
                                  "{\"index\":{\"_index\":\"%s\"}}\n{\"k\":\"k%d\",\"n\":%d,\"t\":\"w%d w%d\"}\n",
                                  idx ? (idx == 1 ? "s2" : "s3") : "s", (i * 7) % 40, (i * 13) % 101, i % 5, i % 7);
        assert_int_equal(trove_request(n, "POST", "/_bulk?refresh=true", body, o, &r), 0);
        trove_response_fini(&r);
    }
    for (size_t k = 0; k < NSORT; k++) {
        const char *b = sort_reqs[k][2];
        assert_int_equal(trove_request(n, sort_reqs[k][0], sort_reqs[k][1], b, b ? strlen(b) : 0, &r), 0);
        assert_int_equal(r.status, 200);
        sort_want[k] = strdup(r.body);
        trove_response_fini(&r);
    }
    pthread_t th[THREADS];
    sarg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (sarg){n, 0};
        assert_int_equal(pthread_create(&th[i], NULL, sorter, &args[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].failures, 0);
    }
    for (size_t k = 0; k < NSORT; k++) free(sort_want[k]);
    trove_node_free(n);
}

/* ------------------------------------------------------------------ OOM */

typedef struct step {
    const char *m, *p, *b;
} step;

static const step seq[] = {
    {"PUT", "/o", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\"}}}}"},
    {"PUT", "/o/_doc/1", "{\"t\":\"hello world\"}"},
    {"POST", "/_bulk?refresh=true", "{\"index\":{\"_index\":\"o\",\"_id\":\"2\"}}\n{\"t\":\"hello there\"}\n"
                                    "{\"update\":{\"_index\":\"o\",\"_id\":\"1\"}}\n{\"doc\":{\"k\":1}}\n"},
    {"GET", "/o/_doc/1?_source_includes=t", NULL},
    {"POST", "/o/_update/1?_source=true", "{\"doc\":{\"k\":2}}"},
    {"POST", "/o/_search", "{\"query\":{\"match\":{\"t\":\"hello\"}}}"},
    {"POST", "/_mget", "{\"docs\":[{\"_index\":\"o\",\"_id\":\"1\"},{\"_index\":\"x\",\"_id\":\"1\"}]}"},
    {"GET", "/o/_search?sise=1", NULL},
    {"GET", "/nope/_doc/1", NULL},
    {"PATCH", "/o", NULL},
    {"DELETE", "/o", NULL},
};

static bool well_formed(const trove_response *r) {
    if (!r->body) return false;
    if (r->body_len == 0) return true;
    tv_arena a;
    tv_arena_init(&a);
    tv_json *root = NULL;
    long saved = 0;
    (void)saved;
    bool ok = tv_json_parse(&a, r->body, r->body_len, &root, NULL) == TROVE_OK;
    tv_arena_fini(&a);
    return ok;
}

/* For each step of the sequence, allocations fail after n = 0, 1, 2, ...
 * until the step succeeds: every attempt must answer TROVE_ENOMEM with no
 * body, or a complete JSON response (a 500 when the failure was deep); the
 * sanitizer build checks that nothing leaks on any of those paths. */
static void test_oom(void **s) {
    (void)s;
    long failures = 0, total = 0;
    trove_node *node = NULL;
    for (long n = 0; !node; n++) {
        tv_alloc_fail_after(n);
        node = trove_node_open(NULL, NULL);
        tv_alloc_fail_after(-1);
    }
    for (size_t i = 0; i < TV_ARRAY_LEN(seq); i++) {
        bool done = false;
        for (long n = 0; !done && n < 100000; n++) {
            trove_response r;
            tv_alloc_fail_after(n);
            int rc = trove_request(node, seq[i].m, seq[i].p, seq[i].b, seq[i].b ? strlen(seq[i].b) : 0, &r);
            tv_alloc_fail_after(-1);
            total++;
            if (rc != 0) {
                assert_int_equal(rc, TROVE_ENOMEM);
                assert_null(r.body);
                failures++;
                continue;
            }
            assert_true(well_formed(&r));
            if (r.status >= 500)
                assert_non_null(strstr(r.body, "\"status\":5"));
            else
                done = true;
            trove_response_fini(&r);
        }
        assert_true(done);
    }
    trove_node_free(node);
    assert_true(failures > 100); /* the loop really went through failing paths */
    print_message("OOM loop: %ld requests, %ld answered TROVE_ENOMEM\n", total, failures);
}

/* --------------------------------------------------------- json helpers */

static char *write_json(tv_json *v) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_value(&w, v);
    size_t n;
    char *s = tv_buf_detach(&b, &n);
    return s;
}

static char *filter(const char *src, const char *incl, const char *excl) {
    tv_arena a;
    tv_arena_init(&a);
    tv_json *doc = NULL;
    assert_int_equal(tv_json_parse(&a, src, strlen(src), &doc, NULL), TROVE_OK);
    const char **in = NULL, **ex = NULL;
    size_t nin = incl ? tv_split_commas(&a, incl, &in) : 0;
    size_t nex = excl ? tv_split_commas(&a, excl, &ex) : 0;
    tv_json *f = tv_json_filter(&a, doc, in, nin, ex, nex, true);
    assert_non_null(f);
    char *s = write_json(f);
    tv_arena_fini(&a);
    return s;
}

static void check(char *got, const char *want) {
    if (strcmp(got, want) != 0) fail_msg("want %s\n got %s", want, got);
    tv_free(got);
}

static void test_filter(void **s) {
    (void)s;
    /* HashMap order: "a" (bucket 1) before "b" (bucket 2) */
    check(filter("{\"b\":1,\"a\":2}", "*", NULL), "{\"a\":2,\"b\":1}");
    check(filter("{\"include\":{\"field1\":\"v1\",\"field2\":\"v2\"},\"count\":1}", "include.field1", NULL),
          "{\"include\":{\"field1\":\"v1\"}}");
    check(filter("{\"include\":{\"field1\":\"v1\",\"field2\":\"v2\"},\"count\":1}", "include", "*.field2"),
          "{\"include\":{\"field1\":\"v1\"}}");
    check(filter("{\"a\":[{\"x\":1,\"y\":2},3],\"b\":4}", "a.x", NULL), "{\"a\":[{\"x\":1}]}");
    check(filter("{\"a\":[{\"x\":1,\"y\":2},3],\"b\":4}", NULL, "a.y"), "{\"a\":[{\"x\":1},3],\"b\":4}");
    check(filter("{\"a\":{\"b\":{}}}", "a.b", NULL), "{\"a\":{\"b\":{}}}");
    check(filter("{\"a\":{\"c\":1}}", "a.b", NULL), "{}");
    check(filter("{\"obj\":{\"x\":1},\"objx\":2}", "obj*", "obj.x"), "{\"objx\":2,\"obj\":{}}");
    assert_true(tv_simple_match("a*c", "abbc", 4));
    assert_false(tv_simple_match("a*c", "abbd", 4));
    assert_true(tv_simple_match("*", "", 0));
}

static char *merge(const char *base, const char *ch, bool noop, bool *changed) {
    tv_arena a;
    tv_arena_init(&a);
    tv_json *b = NULL, *c = NULL;
    assert_int_equal(tv_json_parse(&a, base, strlen(base), &b, NULL), TROVE_OK);
    assert_int_equal(tv_json_parse(&a, ch, strlen(ch), &c, NULL), TROVE_OK);
    tv_json *m = tv_json_merge(&a, b, c, noop, changed);
    assert_non_null(m);
    char *s = write_json(m);
    tv_arena_fini(&a);
    return s;
}

static void test_merge(void **s) {
    (void)s;
    bool ch;
    check(merge("{\"z\":1,\"o\":{\"q\":1}}", "{\"o\":{\"a\":2},\"b\":3,\"a\":4}", true, &ch),
          "{\"z\":1,\"o\":{\"q\":1,\"a\":2},\"a\":4,\"b\":3}");
    assert_true(ch);
    check(merge("{\"n\":1,\"o\":{\"a\":[1,2]}}", "{\"o\":{\"a\":[1,2]},\"n\":1}", true, &ch),
          "{\"n\":1,\"o\":{\"a\":[1,2]}}");
    assert_false(ch);
    /* an Integer never equals a Double */
    check(merge("{\"n\":1}", "{\"n\":1.0}", true, &ch), "{\"n\":1.0}");
    assert_true(ch);
    check(merge("{\"n\":1}", "{\"n\":1}", false, &ch), "{\"n\":1}");
    assert_true(ch);
    /* replaced object values come out in HashMap order */
    check(merge("{\"o\":5}", "{\"o\":{\"b\":1,\"a\":2}}", true, &ch), "{\"o\":{\"a\":2,\"b\":1}}");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_concurrent),
        cmocka_unit_test(test_concurrent_sorts),
        cmocka_unit_test(test_oom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
