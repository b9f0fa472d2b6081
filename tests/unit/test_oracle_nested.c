/*
 * test_oracle_nested.c — randomized differential test of nested objects
 * against a brute-force model.
 *
 * Each round creates an index with a root keyword k (the doc's id, so that
 * results can be ordered by it), a nested object c (keyword a, long v) and
 * below it a nested object c.d (long w). Documents go in batches, each
 * sealed by a refresh; later batches overwrite or delete earlier ones, and
 * some rounds force-merge at the end, so blocks live in several segments,
 * are deleted whole and are merged. The model keeps each id's current
 * source.
 *
 * Then random requests run, each compared with what the model says:
 *   - a nested query on c (term on c.a, range on c.v, both in one child,
 *     or a nested query on c.d inside), and a nested query on c.d from the
 *     root: the matching roots, ordered by k;
 *   - the same with inner_hits (size 100): per hit, the offsets of the
 *     matching children in source order (constant scores tie, so children
 *     come in doc order: source order), for c.d from the root both levels
 *     of each grandchild's nested identity, and hierarchical inner hits
 *     (a nested c.d clause with its own inner_hits inside the c query);
 *   - _count, and _cat/indices docs.count (live roots plus their nested
 *     docs, as Lucene counts);
 *   - a nested aggregation: terms on c.a with the sum of c.v and a
 *     reverse_nested count per bucket, and the nested doc_count;
 *   - a nested sort on c.v (min ascending or max descending, missing last,
 *     then k): the order of the roots.
 *
 * TROVE_ORACLE_NESTED_CASES (default 3000) sets the number of requests,
 * TROVE_ORACLE_NESTED_SEED the seed; a mismatch prints the seed, the
 * request, the expected and the actual answer, and fails.
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <time.h>

#include "oracle_test.h"

/* ---------------------------------------------------------------- model */

#define MAXC 4
#define MAXD 3
#define MAXDOCS 60

typedef struct child {
    char a;        /* 0: no value, else 'a'..'e' */
    bool has_v;
    long v;
    int nd;
    long w[MAXD];
} child;

typedef struct mdoc {
    bool live;
    int nc;
    child c[MAXC];
} mdoc;

static mdoc docs[MAXDOCS];
static int ndocs;
static trove_node *node;
static uint64_t seed;

static tv_arena ar; /* per request */

static void ok(const char *m, const char *path, const char *body) {
    char *raw;
    tv_arena_reset(&ar);
    int st = oracle_request(node, &ar, m, path, body, NULL, &raw);
    if (st < 200 || st > 299) fail_msg("seed %llu: %s %s: %d %s", (unsigned long long)seed, m, path, st, raw);
}

static void gen_doc(mdoc *d) {
    d->live = true;
    d->nc = rn(MAXC + 1);
    for (int i = 0; i < d->nc; i++) {
        child *c = &d->c[i];
        c->a = coin(85) ? (char)('a' + rn(5)) : 0;
        c->has_v = coin(85);
        c->v = rn(20) - 5;
        c->nd = rn(MAXD + 1);
        for (int k = 0; k < c->nd; k++) c->w[k] = rn(10);
    }
}

/* The source of doc i: children as an array (or a lone object), with a
 * null element now and then, which makes no nested doc. */
static void source_of(int i, const mdoc *d, tv_buf *b) {
    char t[96];
    snprintf(t, sizeof t, "{\"k\":\"%03d\"", i);
    tv_buf_puts(b, t);
    bool lone = d->nc == 1 && coin(30);
    tv_buf_puts(b, lone ? ",\"c\":" : ",\"c\":[");
    for (int k = 0; k < d->nc; k++) {
        const child *c = &d->c[k];
        if (k) tv_buf_puts(b, ",");
        if (!lone && coin(10)) tv_buf_puts(b, "null,");
        tv_buf_puts(b, "{");
        bool first = true;
        if (c->a) {
            snprintf(t, sizeof t, "\"a\":\"%c\"", c->a);
            tv_buf_puts(b, t);
            first = false;
        }
        if (c->has_v) {
            snprintf(t, sizeof t, "%s\"v\":%ld", first ? "" : ",", c->v);
            tv_buf_puts(b, t);
            first = false;
        }
        if (c->nd) {
            tv_buf_puts(b, first ? "\"d\":[" : ",\"d\":[");
            for (int j = 0; j < c->nd; j++) {
                snprintf(t, sizeof t, "%s{\"w\":%ld}", j ? "," : "", c->w[j]);
                tv_buf_puts(b, t);
            }
            tv_buf_puts(b, "]");
        }
        tv_buf_puts(b, "}");
    }
    tv_buf_puts(b, lone ? "}" : "]}");
}

static void put_doc(int i) {
    tv_buf b;
    tv_buf_init(&b);
    source_of(i, &docs[i], &b);
    char path[64];
    snprintf(path, sizeof path, "/o/_doc/%03d", i);
    ok("PUT", path, b.data);
    tv_buf_fini(&b);
}

static void build_round(bool *merged) {
    char *raw;
    tv_arena_reset(&ar);
    oracle_request(node, &ar, "DELETE", "/o", NULL, NULL, &raw);
    ok("PUT", "/o",
       "{\"settings\":{\"refresh_interval\":-1},\"mappings\":{\"properties\":{\"k\":{\"type\":\"keyword\"},\"c\":{\"type\":"
       "\"nested\",\"properties\":{\"a\":{\"type\":\"keyword\"},\"v\":{\"type\":\"long\"},\"d\":{\"type\":\"nested\","
       "\"properties\":{\"w\":{\"type\":\"long\"}}}}}}}}");
    ndocs = 5 + rn(MAXDOCS - 5);
    memset(docs, 0, sizeof docs);
    int batches = 1 + rn(5), done = 0;
    for (int bt = 0; bt < batches; bt++) {
        int upto = bt == batches - 1 ? ndocs : done + rn(ndocs - done + 1);
        for (; done < upto; done++) {
            gen_doc(&docs[done]);
            put_doc(done);
        }
        /* overwrite or delete some earlier ones */
        for (int k = 0; k < done && bt; k++) {
            if (!coin(15)) continue;
            if (coin(50)) {
                gen_doc(&docs[k]);
                put_doc(k);
            } else if (docs[k].live) {
                char path[64];
                snprintf(path, sizeof path, "/o/_doc/%03d", k);
                ok("DELETE", path, NULL);
                docs[k].live = false;
            }
        }
        ok("POST", "/o/_refresh", NULL);
    }
    *merged = coin(30);
    if (*merged) {
        ok("POST", "/o/_forcemerge?max_num_segments=1", NULL);
        ok("POST", "/o/_refresh", NULL);
    }
}

/* -------------------------------------------------------------- queries */

typedef struct cq {
    int kind;     /* 0 term a, 1 range v, 2 term a + range v, 3 term a + nested d range w */
    char a;
    long lo, hi;
    long wlo;
} cq;

static bool child_matches(const child *c, const cq *q) {
    bool ta = c->a == q->a, tv = c->has_v && c->v >= q->lo && c->v <= q->hi;
    bool td = false;
    for (int k = 0; k < c->nd; k++) td |= c->w[k] >= q->wlo;
    switch (q->kind) {
    case 0: return ta;
    case 1: return tv;
    case 2: return ta && tv;
    default: return ta && td;
    }
}

static void cq_json(const cq *q, bool inner_d, char *out, size_t cap) {
    char ta[64], tv[96], td[240];
    snprintf(ta, sizeof ta, "{\"term\":{\"c.a\":\"%c\"}}", q->a);
    snprintf(tv, sizeof tv, "{\"range\":{\"c.v\":{\"gte\":%ld,\"lte\":%ld}}}", q->lo, q->hi);
    snprintf(td, sizeof td, "{\"nested\":{\"path\":\"c.d\",\"query\":{\"range\":{\"c.d.w\":{\"gte\":%ld}}}%s}}", q->wlo,
             inner_d ? ",\"inner_hits\":{\"size\":100}" : "");
    switch (q->kind) {
    case 0: snprintf(out, cap, "%s", ta); break;
    case 1: snprintf(out, cap, "%s", tv); break;
    case 2: snprintf(out, cap, "{\"bool\":{\"filter\":[%s,%s]}}", ta, tv); break;
    default: snprintf(out, cap, "{\"bool\":{\"filter\":[%s,%s]}}", ta, td); break;
    }
}

static void fail_case(const char *what, const char *body, const char *want, const char *got, const char *raw) {
    fail_msg("seed %llu: %s\n request %s\n want %s\n got  %s\n raw %.2000s", (unsigned long long)seed, what, body, want,
             got, raw);
}

static const tv_json *path_get(const tv_json *j, const char *a, const char *b, const char *c) {
    if (j && a) j = tv_json_get(j, a);
    if (j && b) j = tv_json_get(j, b);
    if (j && c) j = tv_json_get(j, c);
    return j;
}

/* Runs a search and compares its hits, as "id;" (with inner: "id[offsets,];"
 * from inner hits named c), with want. */
static void expect_hits(const char *what, const char *body, const tv_buf *want, bool inner) {
    tv_json *res = NULL;
    char *raw;
    tv_arena_reset(&ar);
    int st = oracle_request(node, &ar, "POST", "/o/_search", body, NULL, &raw);
    if (st == 200) assert_int_equal(tv_json_parse(&ar, raw, strlen(raw), &res, NULL), TROVE_OK);
    const tv_json *hits = path_get(res, "hits", "hits", NULL);
    tv_buf got;
    tv_buf_init(&got);
    char t[32];
    for (uint32_t h = 0; hits && h < hits->len; h++) {
        const tv_json *hit = &hits->v.items[h], *id = tv_json_get(hit, "_id");
        tv_buf_append(&got, id->v.s, id->len);
        if (inner) {
            tv_buf_puts(&got, "[");
            const tv_json *ih = tv_json_get(hit, "inner_hits");
            const tv_json *arr = ih && ih->len ? path_get(&ih->v.members[0].val, "hits", "hits", NULL) : NULL;
            for (uint32_t k = 0; arr && k < arr->len; k++) {
                /* the offsets of the identity's levels, dot separated */
                const tv_json *nid = tv_json_get(&arr->v.items[k], "_nested");
                for (int lv = 0; nid; lv++, nid = tv_json_get(nid, "_nested")) {
                    const tv_json *off = tv_json_get(nid, "offset");
                    snprintf(t, sizeof t, "%s%lld", lv ? "." : "", off ? (long long)tv_json_as_double(off) : -1LL);
                    tv_buf_puts(&got, t);
                }
                /* hierarchical inner hits: the last level's offsets of the hits nested here */
                const tv_json *sub = tv_json_get(&arr->v.items[k], "inner_hits");
                const tv_json *sarr = sub && sub->len ? path_get(&sub->v.members[0].val, "hits", "hits", NULL) : NULL;
                if (sarr) {
                    tv_buf_puts(&got, "{");
                    for (uint32_t j = 0; j < sarr->len; j++) {
                        const tv_json *o = tv_json_get(&sarr->v.items[j], "_nested"), *last = NULL;
                        for (; o; o = tv_json_get(o, "_nested")) last = tv_json_get(o, "offset");
                        snprintf(t, sizeof t, "%lld,", last ? (long long)tv_json_as_double(last) : -1LL);
                        tv_buf_puts(&got, t);
                    }
                    tv_buf_puts(&got, "}");
                }
                tv_buf_puts(&got, ",");
            }
            tv_buf_puts(&got, "]");
        }
        tv_buf_puts(&got, ";");
    }
    const char *w = want->data ? want->data : "", *g = got.data ? got.data : "";
    if (st != 200 || strcmp(w, g)) fail_case(what, body, w, g, raw);
    tv_buf_fini(&got);
}

static void check_query(bool inner) {
    cq q = {rn(4), (char)('a' + rn(5)), 0, 0, rn(10)};
    q.lo = rn(20) - 6;
    q.hi = q.lo + rn(10);
    char qj[400], body[900];
    /* with inner hits, the nested c.d clause sometimes has its own: they
     * nest inside each c hit */
    bool inner_d = inner && q.kind == 3 && coin(50);
    cq_json(&q, inner_d, qj, sizeof qj);
    snprintf(body, sizeof body,
             "{\"size\":100,\"sort\":[{\"k\":\"asc\"}],\"_source\":false,\"query\":{\"nested\":{\"path\":\"c\","
             "\"score_mode\":\"%s\",\"query\":%s%s}}}",
             coin(50) ? "none" : "max", qj, inner ? ",\"inner_hits\":{\"size\":100}" : "");
    tv_buf want;
    tv_buf_init(&want);
    char t[64];
    for (int i = 0; i < ndocs; i++) {
        if (!docs[i].live) continue;
        bool any = false;
        for (int k = 0; k < docs[i].nc; k++) any |= child_matches(&docs[i].c[k], &q);
        if (!any) continue;
        snprintf(t, sizeof t, "%03d", i);
        tv_buf_puts(&want, t);
        if (inner) {
            tv_buf_puts(&want, "[");
            for (int k = 0; k < docs[i].nc; k++)
                if (child_matches(&docs[i].c[k], &q)) {
                    snprintf(t, sizeof t, "%d", k);
                    tv_buf_puts(&want, t);
                    if (inner_d) {
                        tv_buf_puts(&want, "{");
                        for (int j = 0; j < docs[i].c[k].nd; j++)
                            if (docs[i].c[k].w[j] >= q.wlo) {
                                snprintf(t, sizeof t, "%d,", j);
                                tv_buf_puts(&want, t);
                            }
                        tv_buf_puts(&want, "}");
                    }
                    tv_buf_puts(&want, ",");
                }
            tv_buf_puts(&want, "]");
        }
        tv_buf_puts(&want, ";");
    }
    expect_hits(inner ? "nested query with inner_hits" : "nested query", body, &want, inner);
    tv_buf_fini(&want);
}

/* nested c.d from the root: roots with a grandchild w in [lo, hi]; with
 * inner hits, each matching grandchild's identity (c offset . d offset),
 * in doc order (a child's grandchildren come before it) */
static void check_deep(bool inner) {
    long lo = rn(10), hi = lo + rn(4);
    char body[300];
    snprintf(body, sizeof body,
             "{\"size\":100,\"sort\":[{\"k\":\"asc\"}],\"_source\":false,\"query\":{\"nested\":{\"path\":\"c.d\","
             "\"query\":{\"range\":{\"c.d.w\":{\"gte\":%ld,\"lte\":%ld}}}%s}}}",
             lo, hi, inner ? ",\"inner_hits\":{\"size\":100}" : "");
    tv_buf want;
    tv_buf_init(&want);
    char t[32];
    for (int i = 0; i < ndocs; i++) {
        if (!docs[i].live) continue;
        tv_buf ids;
        tv_buf_init(&ids);
        bool any = false;
        for (int k = 0; k < docs[i].nc; k++)
            for (int j = 0; j < docs[i].c[k].nd; j++) {
                if (docs[i].c[k].w[j] < lo || docs[i].c[k].w[j] > hi) continue;
                any = true;
                snprintf(t, sizeof t, "%d.%d,", k, j);
                tv_buf_puts(&ids, t);
            }
        if (any) {
            snprintf(t, sizeof t, "%03d", i);
            tv_buf_puts(&want, t);
            if (inner) {
                tv_buf_puts(&want, "[");
                tv_buf_append(&want, ids.data, ids.len);
                tv_buf_puts(&want, "]");
            }
            tv_buf_puts(&want, ";");
        }
        tv_buf_fini(&ids);
    }
    expect_hits(inner ? "nested c.d from the root with inner_hits" : "nested c.d from the root", body, &want, inner);
    tv_buf_fini(&want);
}

static void check_counts(void) {
    long roots = 0, all = 0;
    for (int i = 0; i < ndocs; i++) {
        if (!docs[i].live) continue;
        roots++;
        all++;
        for (int k = 0; k < docs[i].nc; k++) all += 1 + docs[i].c[k].nd;
    }
    char *raw, want[64];
    tv_arena_reset(&ar);
    int st = oracle_request(node, &ar, "GET", "/o/_count", NULL, NULL, &raw);
    snprintf(want, sizeof want, "{\"count\":%ld,", roots);
    if (st != 200 || strncmp(raw, want, strlen(want))) fail_case("_count", "", want, raw, raw);
    st = oracle_request(node, &ar, "GET", "/_cat/indices/o?h=docs.count", NULL, NULL, &raw);
    snprintf(want, sizeof want, "%ld\n", all);
    if (st != 200 || strcmp(raw, want)) fail_case("docs.count", "", want, raw, raw);
}

static void check_aggs(void) {
    const char *body = "{\"size\":0,\"aggs\":{\"n\":{\"nested\":{\"path\":\"c\"},\"aggs\":{\"a\":{\"terms\":{\"field\":"
                       "\"c.a\",\"order\":{\"_key\":\"asc\"}},\"aggs\":{\"s\":{\"sum\":{\"field\":\"c.v\"}},\"r\":{"
                       "\"reverse_nested\":{}}}}}}}}";
    long count[5] = {0}, sum[5] = {0}, rev[5] = {0}, nested = 0;
    for (int i = 0; i < ndocs; i++) {
        if (!docs[i].live) continue;
        bool seen[5] = {0};
        for (int k = 0; k < docs[i].nc; k++) {
            const child *c = &docs[i].c[k];
            nested++;
            if (!c->a) continue;
            int x = c->a - 'a';
            count[x]++;
            if (c->has_v) sum[x] += c->v;
            if (!seen[x]) rev[x]++;
            seen[x] = true;
        }
    }
    char want[512], t[96];
    snprintf(want, sizeof want, "n=%ld;", nested);
    for (int x = 0; x < 5; x++) {
        if (!count[x]) continue;
        snprintf(t, sizeof t, "%c:%ld:%ld:%ld;", 'a' + x, count[x], sum[x], rev[x]);
        strcat(want, t);
    }
    char *raw, got[512] = "";
    tv_json *res = NULL;
    tv_arena_reset(&ar);
    int st = oracle_request(node, &ar, "POST", "/o/_search", body, NULL, &raw);
    if (st == 200) assert_int_equal(tv_json_parse(&ar, raw, strlen(raw), &res, NULL), TROVE_OK);
    const tv_json *n = path_get(res, "aggregations", "n", NULL);
    if (n) {
        snprintf(got, sizeof got, "n=%lld;", (long long)tv_json_as_double(tv_json_get(n, "doc_count")));
        const tv_json *b = path_get(n, "a", "buckets", NULL);
        for (uint32_t i = 0; b && i < b->len; i++) {
            const tv_json *e = &b->v.items[i];
            const tv_json *key = tv_json_get(e, "key");
            snprintf(t, sizeof t, "%.*s:%lld:%lld:%lld;", (int)key->len, key->v.s,
                     (long long)tv_json_as_double(tv_json_get(e, "doc_count")),
                     (long long)tv_json_as_double(path_get(e, "s", "value", NULL)),
                     (long long)tv_json_as_double(path_get(e, "r", "doc_count", NULL)));
            strcat(got, t);
        }
    }
    if (st != 200 || strcmp(want, got)) fail_case("nested aggregation", body, want, got, raw);
}

static int sort_cmp_desc;
static long sort_key(const mdoc *d, bool *has) {
    long best = 0;
    *has = false;
    for (int k = 0; k < d->nc; k++) {
        if (!d->c[k].has_v) continue;
        if (!*has || (sort_cmp_desc ? d->c[k].v > best : d->c[k].v < best)) best = d->c[k].v;
        *has = true;
    }
    return best;
}

static int by_key(const void *x, const void *y) {
    int i = *(const int *)x, j = *(const int *)y;
    bool hi, hj;
    long a = sort_key(&docs[i], &hi), b = sort_key(&docs[j], &hj);
    if (hi != hj) return hi ? -1 : 1; /* missing last */
    if (hi && a != b) return (a < b ? -1 : 1) * (sort_cmp_desc ? -1 : 1);
    return i - j; /* then k ascending */
}

static void check_sort(void) {
    sort_cmp_desc = coin(50);
    char body[300];
    snprintf(body, sizeof body,
             "{\"size\":100,\"_source\":false,\"sort\":[{\"c.v\":{\"order\":\"%s\",\"nested\":{\"path\":\"c\"}}},{\"k\":"
             "\"asc\"}]}",
             sort_cmp_desc ? "desc" : "asc");
    int ids[MAXDOCS], n = 0;
    for (int i = 0; i < ndocs; i++)
        if (docs[i].live) ids[n++] = i;
    qsort(ids, (size_t)n, sizeof *ids, by_key);
    tv_buf want;
    tv_buf_init(&want);
    char t[16];
    for (int i = 0; i < n; i++) {
        snprintf(t, sizeof t, "%03d;", ids[i]);
        tv_buf_puts(&want, t);
    }
    expect_hits("nested sort", body, &want, false);
    tv_buf_fini(&want);
}

static void test_oracle_nested(void **state) {
    (void)state;
    const char *e = getenv("TROVE_ORACLE_NESTED_SEED");
    seed = e ? strtoull(e, NULL, 10) : (uint64_t)time(NULL);
    rng_state = seed * 2654435761u + 1;
    e = getenv("TROVE_ORACLE_NESTED_CASES");
    long cases = e ? atol(e) : 3000, done = 0;
    node = trove_node_open(NULL, NULL);
    assert_non_null(node);
    tv_arena_init(&ar);
    while (done < cases) {
        bool merged;
        build_round(&merged);
        check_counts();
        for (int k = 0; k < 30 && done < cases; k++, done++) {
            switch (rn(5)) {
            case 0: check_query(false); break;
            case 1: check_query(true); break;
            case 2: check_deep(coin(50)); break;
            case 3: check_aggs(); break;
            default: check_sort(); break;
            }
        }
    }
    tv_arena_fini(&ar);
    trove_node_free(node);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_oracle_nested)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
