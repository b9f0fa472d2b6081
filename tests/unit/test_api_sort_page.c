/*
 * test_api_sort_page.c — a sorted page equals the same slice of the whole
 * sorted result.
 *
 * The collector rejects a document early when its first sort key already
 * ranks it after the worst hit of a full page (reading no other key; for a
 * keyword, comparing segment ords with the worst hit's term placed among
 * them). A request for every hit never fills its heap before the end, so it
 * takes the plain path: its hits, sliced, are the reference for random
 * small pages over random documents — several segments, deletes, missing
 * and multi-valued keyword and numeric fields, ascending and descending,
 * min and max modes, missing first and last, one or two keys, _doc as a
 * second key, and from > 0. TROVE_SORT_CASES (default 400) and
 * TROVE_ORACLE_SEED apply.
 */
#include <stdint.h>

#define API_TEST_MASK_TOOK
#include "api_test.h"

static uint64_t rng_state;

static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}
static int rn(int n) { return (int)(rnd() % (uint32_t)n); }

/* The "hits" array of a response: from `"hits":[` of the inner hits to the
 * end (the page's ids, sort values and order). */
static char *hits_part(const char *body) {
    const char *p = strstr(body, "\"hits\":{");
    assert_non_null(p);
    p = strstr(p + 8, "\"hits\":[");
    assert_non_null(p);
    return strdup(p + 8);
}

/* The i-th hit object of a hits array (count braces), malloc'd. */
static char *nth_hit(const char *arr, int i, bool *found) {
    int depth = 0, k = -1;
    const char *start = NULL;
    bool in_str = false;
    for (const char *p = arr; *p; p++) {
        if (in_str) {
            if (*p == '\\') p++;
            else if (*p == '"') in_str = false;
            continue;
        }
        if (*p == '"') in_str = true;
        else if (*p == '{') {
            if (depth++ == 0 && ++k == i) start = p;
        } else if (*p == '}') {
            if (--depth == 0 && start) {
                size_t n = (size_t)(p - start) + 1;
                char *o = malloc(n + 1);
                memcpy(o, start, n);
                o[n] = 0;
                *found = true;
                return o;
            }
        } else if (*p == ']' && depth == 0) {
            break;
        }
    }
    *found = false;
    return NULL;
}

static void load(void) {
    OK("PUT", "/s",
       "{\"settings\":{\"refresh_interval\":\"-1\"},\"mappings\":{\"properties\":{\"k\":{\"type\":\"keyword\"},"
       "\"n\":{\"type\":\"long\"},\"d\":{\"type\":\"double\"}}}}");
    int id = 0;
    for (int seg = 0; seg < 4; seg++) {
        char *bulk = malloc(1 << 20);
        size_t o = 0;
        int n = 200 + rn(600);
        for (int i = 0; i < n; i++, id++) {
            o += (size_t)sprintf(bulk + o, "{\"index\":{\"_id\":\"%d\"}}\n{", id);
            bool comma = false;
            int kk = rn(10);
            if (kk < 6) {
                o += (size_t)sprintf(bulk + o, "\"k\":\"v%02d\"", rn(40));
                comma = true;
            } else if (kk < 8) {
                o += (size_t)sprintf(bulk + o, "\"k\":[\"v%02d\",\"v%02d\"]", rn(40), rn(40));
                comma = true;
            }
            int kn = rn(10);
            if (kn < 7) {
                o += (size_t)sprintf(bulk + o, "%s\"n\":%d", comma ? "," : "", rn(50) - 25);
                comma = true;
            } else if (kn < 8) {
                o += (size_t)sprintf(bulk + o, "%s\"n\":[%d,%d]", comma ? "," : "", rn(50), rn(50));
                comma = true;
            }
            if (rn(10) < 8) o += (size_t)sprintf(bulk + o, "%s\"d\":%d.5", comma ? "," : "", rn(30));
            o += (size_t)sprintf(bulk + o, "}\n");
            if (seg != 2 && rn(8) == 0) o += (size_t)sprintf(bulk + o, "{\"delete\":{\"_id\":\"%d\"}}\n", rn(id + 1));
        }
        bulk[o] = 0;
        OK("POST", "/s/_bulk", bulk);
        OK("POST", "/s/_refresh", NULL);
        free(bulk);
    }
}

static const char *key(void) {
    static char buf[8][128];
    static int next;
    char *b = buf[next++ % 8];
    static const char *const fields[] = {"k", "n", "d"};
    const char *f = fields[rn(3)];
    const char *order = rn(2) ? "asc" : "desc";
    const char *mode = rn(3) == 0 ? (rn(2) ? ",\"mode\":\"min\"" : ",\"mode\":\"max\"") : "";
    const char *missing = rn(3) == 0 ? (rn(2) ? ",\"missing\":\"_first\"" : ",\"missing\":\"_last\"") : "";
    snprintf(b, 128, "{\"%s\":{\"order\":\"%s\"%s%s}}", f, order, mode, missing);
    return b;
}

static void test_pages_equal_slices(void **s) {
    (void)s;
    const char *env = getenv("TROVE_ORACLE_SEED");
    rng_state = (env ? strtoull(env, NULL, 10) : 20261201) | 1;
    env = getenv("TROVE_SORT_CASES");
    long cases = env ? atol(env) : 400;
    load();
    for (long c = 0; c < cases; c++) {
        char sort[512];
        int shape = rn(4);
        if (shape == 0) snprintf(sort, sizeof sort, "[%s]", key());
        else if (shape == 1) snprintf(sort, sizeof sort, "[%s,%s]", key(), key());
        else if (shape == 2) snprintf(sort, sizeof sort, "[%s,{\"_doc\":\"desc\"}]", key());
        else snprintf(sort, sizeof sort, "[%s,%s,\"_doc\"]", key(), key());
        const char *query = rn(3) == 0 ? "{\"term\":{\"k\":\"v07\"}}" : "{\"match_all\":{}}";
        int size = 1 + rn(20), from = rn(3) == 0 ? rn(6) : 0;
        char body[1024], *got, *all;
        snprintf(body, sizeof body, "{\"size\":10000,\"_source\":false,\"query\":%s,\"sort\":%s}", query, sort);
        assert_int_equal(req("POST", "/s/_search", body, &all), 200);
        snprintf(body, sizeof body, "{\"from\":%d,\"size\":%d,\"_source\":false,\"query\":%s,\"sort\":%s}", from,
                 size, query, sort);
        assert_int_equal(req("POST", "/s/_search", body, &got), 200);
        char *ga = hits_part(got), *aa = hits_part(all);
        for (int i = 0; i < size; i++) {
            bool f1, f2;
            char *h1 = nth_hit(ga, i, &f1), *h2 = nth_hit(aa, from + i, &f2);
            if (f1 != f2 || (f1 && strcmp(h1, h2) != 0))
                fail_msg("%s\n hit %d of the page: %s\n hit %d of all:      %s", body, i, f1 ? h1 : "(none)",
                         from + i, f2 ? h2 : "(none)");
            free(h1);
            free(h2);
        }
        free(ga);
        free(aa);
        free(got);
        free(all);
    }
    print_message("sorted pages: %ld cases, 0 differences\n", cases);
}

/* a sort field that is long in one index and double in another compares
 * as numbers across them; unsigned_long beside another type is refused */
static void test_sort_mixed_numeric_types(void **s) {
    (void)s;
    OK("PUT", "/m1", "{\"mappings\":{\"properties\":{\"c\":{\"type\":\"long\"}}}}");
    OK("PUT", "/m2", "{\"mappings\":{\"properties\":{\"c\":{\"type\":\"double\"}}}}");
    OK("PUT", "/m1/_doc/a?refresh=true", "{\"c\":300}");
    OK("PUT", "/m2/_doc/b?refresh=true", "{\"c\":299.5}");
    OK("PUT", "/m2/_doc/c?refresh=true", "{\"c\":-1.5}");
    OK("PUT", "/m1/_doc/d?refresh=true", "{\"c\":-2}");
    EXPECT("POST", "/m1,m2/_search?filter_path=hits.hits._id,hits.hits.sort", "{\"sort\":[{\"c\":\"desc\"}]}", 200,
           "{\"hits\":{\"hits\":[{\"_id\":\"a\",\"sort\":[300]},{\"_id\":\"b\",\"sort\":[299.5]},{\"_id\":\"c\","
           "\"sort\":[-1.5]},{\"_id\":\"d\",\"sort\":[-2]}]}}");
    OK("PUT", "/m3", "{\"mappings\":{\"properties\":{\"c\":{\"type\":\"unsigned_long\"}}}}");
    EXPECT_HAS("POST", "/m1,m3/_search", "{\"sort\":[{\"c\":\"asc\"}]}", 400,
               "Can't do sort across indices, as a field has [unsigned_long] type in one index, and different type "
               "in another index!");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pages_equal_slices, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sort_mixed_numeric_types, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
