/*
 * bench_fixture.c — what a test suite pays for trove as an embedded fixture:
 * the in-process rows of the fixture benchmark (bench/fixture/run adds the
 * rows that need a server process). A benchmark, never a test: it prints
 * figures.
 *
 *   ./build-bench/bench_fixture [--runs N] [ROW...]
 *   ./build-bench/bench_fixture --write-items N DIR
 *
 * Rows (all when none is named):
 *   seed          trove_node_open + trove_node_load_seed of a 3-document
 *                 fixture (tests/fixtures/seed/items3), then the free
 *   clone         trove_node_clone of that fixture (1 index), then the free
 *   clone_count   trove_node_clone + GET /items/_count on the clone (3 docs),
 *                 and a clone of the 10,000-document index + a _count of
 *                 a term query on category (osmem's BenchmarkCloneReadOnly)
 *   clone_write   first write into a clone of a 10,000-document index: PUT
 *                 /items/_doc/new on a fresh clone (and with ?refresh=true)
 *   refresh       5,000 single-document PUT /items/_doc/ID?refresh=true in a
 *                 row on the 3-document fixture: per write, and the heap
 *                 retained afterwards (glibc mallinfo2: bytes in use)
 *   term          POST /items/_search on 10,000 documents: a term on
 *                 title.keyword matching one document (the shape of
 *                 osmem's BenchmarkTermQuery10k), and a term on category C
 *                 (size 10, C the most frequent category, about a quarter
 *                 of the documents)
 *   sort          100,000 documents, page of 10 (match_all, total hits not
 *                 tracked, as osmem's sort benchmark), sorted by price
 *                 (double), created (date), title.keyword (keyword), and by
 *                 category then price
 *
 * The items index is the fixture's: title (text + keyword), category
 * (keyword), price (double), created (date). Larger item sets are generated
 * here (items_doc): a deterministic generator (splitmix64, seed 42) drawing
 * titles of 2-4 words from 3 small word lists, one of 24 categories (skewed:
 * category k has weight 1/(k+1)), a price in [0.50, 500.00) with two
 * decimals, a creation time in 2020-2024 to the second. --write-items
 * writes the same documents as a seed directory, for the server rows.
 *
 * Every row warms up first, then reports the median, p90 and min over its
 * runs, in microseconds, with the request's status checked on every run.
 */
#define _GNU_SOURCE /* mallinfo2 */
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "trove.h"
#include "timing.h"

#define ITEMS_INDEX                                                                                  \
    "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0},\"mappings\":{\"properties\":{" \
    "\"title\":{\"type\":\"text\",\"fields\":{\"keyword\":{\"type\":\"keyword\"}}},"                 \
    "\"category\":{\"type\":\"keyword\"},\"price\":{\"type\":\"double\"},"                           \
    "\"created\":{\"type\":\"date\"}}}}"


static void die(const char *what, const char *detail) {
    fprintf(stderr, "bench_fixture: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

/* Sorts t[0..n) and prints "median, p90, min" for one row. */
static void report(const char *row, double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    printf("%-34s median %9.3f us  p90 %9.3f us  min %9.3f us  (%d runs)\n", row, t[n / 2],
           t[(int)(n * 0.9)], t[0], n);
    fflush(stdout);
}

/* One request whose status must be `want`; the response is released. */
static void req(trove_node *n, const char *method, const char *path, const char *body, int want) {
    trove_response r;
    if (trove_request(n, method, path, body, body ? strlen(body) : 0, &r) != 0) die("request failed", path);
    if (r.status != want) {
        fprintf(stderr, "%s %s -> %d: %s\n", method, path, r.status, r.body);
        die("unexpected status", path);
    }
    trove_response_fini(&r);
}

static trove_node *open_node(void) {
    trove_error err;
    trove_node *n = trove_node_open(NULL, &err);
    if (!n) die("open", err.message);
    return n;
}

/* ----------------------------------------------------------- item generator */

static uint64_t rng_state = 42;

static uint64_t rng(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static const char *const adjectives[] = {"red",   "blue",   "green", "black", "white",  "small",
                                         "large", "vintage", "handmade", "wooden", "steel", "soft",
                                         "bright", "classic", "compact", "heavy"};
static const char *const materials[] = {"wool", "ceramic", "enamel", "cotton", "leather", "glass",
                                        "oak",  "linen",   "copper", "silk",   "bamboo",  "stone"};
static const char *const nouns[] = {"scarf", "mug",   "teapot", "lamp",  "chair", "jacket", "bowl",
                                    "vase",  "shelf", "table",  "kettle", "pillow", "blanket", "basket",
                                    "clock", "mirror", "candle", "plate", "glove",  "hat"};
static const char *const categories[] = {
    "kitchen", "clothing", "garden", "toys",   "books",  "office", "outdoor", "sports",
    "beauty",  "health",   "music",  "tools",  "pets",   "travel", "baby",    "crafts",
    "lighting", "bedding", "bath",   "storage", "decor", "gifts",  "party",   "auto"};
#define NCAT (sizeof categories / sizeof *categories)
#define COUNT(a) (sizeof(a) / sizeof *(a))

/* Category k with weight 1/(k+1). */
static unsigned draw_category(void) {
    static double cum[NCAT];
    static double total;
    if (total == 0) {
        for (unsigned k = 0; k < NCAT; k++) cum[k] = (total += 1.0 / (k + 1));
    }
    double u = (double)(rng() >> 11) / 9007199254740992.0 * total;
    for (unsigned k = 0; k < NCAT; k++)
        if (u < cum[k]) return k;
    return NCAT - 1;
}

/* Writes item document i into buf (NUL-terminated); returns its length. */
static int items_doc(char *buf, size_t cap) {
    char title[128];
    int tl = 0;
    unsigned words = 2 + (unsigned)(rng() % 3);
    if (words >= 3) tl += snprintf(title + tl, sizeof title - (size_t)tl, "%s ", adjectives[rng() % COUNT(adjectives)]);
    if (words >= 4) tl += snprintf(title + tl, sizeof title - (size_t)tl, "%s ", adjectives[rng() % COUNT(adjectives)]);
    tl += snprintf(title + tl, sizeof title - (size_t)tl, "%s %s", materials[rng() % COUNT(materials)],
                   nouns[rng() % COUNT(nouns)]);
    title[0] = (char)(title[0] - 'a' + 'A');
    unsigned cents = 50 + (unsigned)(rng() % 49950);
    int64_t secs = 1577836800 + (int64_t)(rng() % (5ull * 365 * 86400)); /* 2020-01-01 + 5 years */
    time_t tt = (time_t)secs;
    struct tm tm;
    gmtime_r(&tt, &tm);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return snprintf(buf, cap, "{\"title\":\"%s\",\"category\":\"%s\",\"price\":%u.%02u,\"created\":\"%s\"}",
                    title, categories[draw_category()], cents / 100, cents % 100, date);
}

/* A node with the items index and n generated documents, refreshed. */
static trove_node *items_node(int n) {
    rng_state = 42;
    trove_node *node = open_node();
    req(node, "PUT", "/items", ITEMS_INDEX, 200);
    size_t cap = 4u << 20, len = 0;
    char *bulk = malloc(cap);
    if (!bulk) die("out of memory", NULL);
    for (int i = 0; i < n; i++) {
        if (cap - len < 512) {
            req(node, "POST", "/items/_bulk", bulk, 200);
            len = 0;
        }
        len += (size_t)snprintf(bulk + len, cap - len, "{\"index\":{\"_id\":\"%d\"}}\n", i);
        len += (size_t)items_doc(bulk + len, cap - len);
        bulk[len++] = '\n';
        bulk[len] = 0;
    }
    if (len) req(node, "POST", "/items/_bulk", bulk, 200);
    free(bulk);
    req(node, "POST", "/items/_refresh", NULL, 200);
    return node;
}

static void write_items(int n, const char *dir) {
    rng_state = 42;
    mkdir(dir, 0755);
    char path[4096];
    snprintf(path, sizeof path, "%s/items.index.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write", path);
    fputs(ITEMS_INDEX "\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/items.ndjson", dir);
    if (!(f = fopen(path, "w"))) die("cannot write", path);
    char doc[512];
    for (int i = 0; i < n; i++) {
        items_doc(doc, sizeof doc);
        fprintf(f, "{\"index\":{\"_id\":\"%d\"}}\n%s\n", i, doc);
    }
    fclose(f);
}

/* ----------------------------------------------------------------- rows */

static const char *seed_dir = "tests/fixtures/seed/items3";

static trove_node *seeded(void) {
    trove_error err;
    trove_node *n = open_node();
    if (trove_node_load_seed(n, seed_dir, &err) != 0) die("seed", err.message);
    return n;
}

static void row_seed(int runs) {
    double *t = malloc(sizeof *t * (size_t)runs), *tf = malloc(sizeof *tf * (size_t)runs);
    for (int i = -50; i < runs; i++) {
        double t0 = now_us();
        trove_node *n = seeded();
        double t1 = now_us();
        trove_node_free(n);
        double t2 = now_us();
        if (i >= 0) t[i] = t1 - t0, tf[i] = t2 - t1;
    }
    report("open + seed (3 docs)", t, runs);
    report("  free of that node", tf, runs);
    free(t);
    free(tf);
}

/* Clones are made in batches of 100 and freed after the batch, so the
 * figure is the clone alone, the way a test pays it. */
static void row_clone(int runs) {
    trove_node *base = seeded();
    enum { BATCH = 100 };
    trove_node *c[BATCH];
    int rounds = runs / BATCH > 0 ? runs / BATCH : 1;
    double *t = malloc(sizeof *t * (size_t)rounds), *tf = malloc(sizeof *tf * (size_t)rounds);
    for (int r = -5; r < rounds; r++) {
        double t0 = now_us();
        for (int i = 0; i < BATCH; i++)
            if (!(c[i] = trove_node_clone(base, NULL))) die("clone", NULL);
        double t1 = now_us();
        for (int i = 0; i < BATCH; i++) trove_node_free(c[i]);
        double t2 = now_us();
        if (r >= 0) t[r] = (t1 - t0) / BATCH, tf[r] = (t2 - t1) / BATCH;
    }
    report("trove_node_clone (1 index)", t, rounds);
    report("  trove_node_free of a clone", tf, rounds);
    free(t);
    free(tf);
    trove_node_free(base);
}

static void time_clone_count(trove_node *base, const char *row, const char *body, int runs) {
    double *t = malloc(sizeof *t * (size_t)runs);
    for (int i = -100; i < runs; i++) {
        double t0 = now_us();
        trove_node *c = trove_node_clone(base, NULL);
        if (!c) die("clone", NULL);
        req(c, body ? "POST" : "GET", "/items/_count", body, 200);
        double t1 = now_us();
        trove_node_free(c);
        if (i >= 0) t[i] = t1 - t0;
    }
    report(row, t, runs);
    free(t);
}

static void row_clone_count(int runs) {
    trove_node *base = seeded();
    time_clone_count(base, "clone + _count (3 docs)", NULL, runs);
    trove_node_free(base);
    base = items_node(10000);
    time_clone_count(base, "clone of 10k + term _count", "{\"query\":{\"term\":{\"category\":\"kitchen\"}}}", runs);
    trove_node_free(base);
}

static void row_clone_write(int runs) {
    trove_node *base = items_node(10000);
    const char *doc = "{\"title\":\"Green linen apron\",\"category\":\"kitchen\",\"price\":12.0,"
                      "\"created\":\"2024-04-01\"}";
    double *t = malloc(sizeof *t * (size_t)runs), *tr = malloc(sizeof *tr * (size_t)runs);
    for (int i = -20; i < runs; i++) {
        trove_node *c = trove_node_clone(base, NULL);
        if (!c) die("clone", NULL);
        double t0 = now_us();
        req(c, "PUT", "/items/_doc/new", doc, 201);
        double t1 = now_us();
        trove_node_free(c);
        c = trove_node_clone(base, NULL);
        if (!c) die("clone", NULL);
        double t2 = now_us();
        req(c, "PUT", "/items/_doc/new?refresh=true", doc, 201);
        double t3 = now_us();
        trove_node_free(c);
        if (i >= 0) t[i] = t1 - t0, tr[i] = t3 - t2;
    }
    report("first write into a 10k clone", t, runs);
    report("  the same with ?refresh=true", tr, runs);
    free(t);
    free(tr);
    trove_node_free(base);
}

static size_t heap_in_use(void) {
    malloc_trim(0);
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

static void row_refresh(void) {
    enum { WRITES = 5000 };
    trove_node *n = seeded();
    size_t before = heap_in_use();
    double *t = malloc(sizeof *t * WRITES);
    char path[64], doc[512];
    rng_state = 7;
    double t_all = now_us();
    for (int i = 0; i < WRITES; i++) {
        snprintf(path, sizeof path, "/items/_doc/w%d?refresh=true", i);
        items_doc(doc, sizeof doc);
        double t0 = now_us();
        req(n, "PUT", path, doc, 201);
        t[i] = now_us() - t0;
    }
    t_all = now_us() - t_all;
    size_t after = heap_in_use();
    report("PUT ?refresh=true, 5,000 in a row", t, WRITES);
    printf("%-34s mean %9.3f us; heap retained %.2f MiB (%zu -> %zu bytes in use)\n", "", t_all / WRITES,
           (double)(after - before) / (1 << 20), before, after);
    free(t);
    trove_node_free(n);
}

static void time_search(trove_node *n, const char *row, const char *body, int runs) {
    double *t = malloc(sizeof *t * (size_t)runs);
    for (int i = -50; i < runs; i++) {
        double t0 = now_us();
        req(n, "POST", "/items/_search", body, 200);
        if (i >= 0) t[i] = now_us() - t0;
    }
    report(row, t, runs);
    free(t);
}

static void row_term(int runs) {
    trove_node *n = items_node(10000);
    /* the title of document 5000, which no other document has */
    trove_response r;
    if (trove_request(n, "GET", "/items/_doc/5000", NULL, 0, &r) != 0 || r.status != 200) die("get", "5000");
    const char *t = strstr(r.body, "\"title\":\"");
    if (!t) die("no title", r.body);
    t += 9;
    char body[256];
    snprintf(body, sizeof body, "{\"query\":{\"term\":{\"title.keyword\":\"%.*s\"}}}", (int)(strchr(t, '"') - t), t);
    trove_response_fini(&r);
    trove_request(n, "POST", "/items/_count", body, strlen(body), &r);
    fprintf(stderr, "title.keyword term %s: %s\n", body, r.body);
    trove_response_fini(&r);
    time_search(n, "term on title.keyword, 10k docs", body, runs);
    time_search(n, "term query, 10k docs", "{\"query\":{\"term\":{\"category\":\"kitchen\"}}}", runs);
    time_search(n, "  the same, size 0",
                "{\"size\":0,\"query\":{\"term\":{\"category\":\"kitchen\"}}}", runs);
    trove_node_free(n);
}

static void row_sort(int runs) {
    trove_node *n = items_node(100000);
    static const struct {
        const char *row, *sort;
    } s[] = {
        {"sort 100k by price (double)", "[{\"price\":\"asc\"}]"},
        {"sort 100k by created (date)", "[{\"created\":\"desc\"}]"},
        {"sort 100k by title.keyword", "[{\"title.keyword\":\"asc\"}]"},
        {"sort 100k by category, price", "[{\"category\":\"asc\"},{\"price\":\"desc\"}]"},
    };
    char body[256];
    for (size_t i = 0; i < COUNT(s); i++) {
        snprintf(body, sizeof body, "{\"size\":10,\"track_total_hits\":false,\"sort\":%s}", s[i].sort);
        time_search(n, s[i].row, body, runs);
    }
    trove_node_free(n);
}

int main(int argc, char **argv) {
    int runs = 2000, first = 1;
    if (argc > 1 && strcmp(argv[1], "--write-items") == 0) {
        if (argc != 4) die("usage: bench_fixture --write-items N DIR", NULL);
        write_items(atoi(argv[2]), argv[3]);
        return 0;
    }
    if (argc > 2 && strcmp(argv[1], "--runs") == 0) {
        runs = atoi(argv[2]);
        if (runs < 1) runs = 1;
        first = 3;
    }
    const char *env = getenv("TROVE_SOURCE_DIR");
    static char seedbuf[4096];
    if (env) snprintf(seedbuf, sizeof seedbuf, "%s/tests/fixtures/seed/items3", env), seed_dir = seedbuf;
    bool all = first >= argc;
    for (int a = first; a < argc || all; a++) {
        const char *row = all ? NULL : argv[a];
#define ROW(name) (all || strcmp(row, name) == 0)
        if (ROW("seed")) row_seed(runs);
        if (ROW("clone")) row_clone(runs * 10);
        if (ROW("clone_count")) row_clone_count(runs);
        if (ROW("clone_write")) row_clone_write(runs / 10 > 0 ? runs / 10 : 1);
        if (ROW("refresh")) row_refresh();
        if (ROW("term")) row_term(runs);
        if (ROW("sort")) row_sort(runs / 20 > 0 ? runs / 20 : 1);
#undef ROW
        if (all) break;
    }
    return 0;
}
