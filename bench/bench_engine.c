/*
 * bench_engine.c — indexing and query benchmarks of the whole engine on a
 * generated corpus (bench/corpus.h): 100k English-like documents by
 * default. A benchmark, never a test: it prints figures.
 *
 * Indexing, two ways, each on a fresh index with the same documents:
 *   bulk  POST /bench/_bulk through trove_request in batches of 1,000 (as a
 *         client would send them), then POST /bench/_refresh;
 *   put   tv_index_put per document straight into the engine (no REST, no
 *         bulk parsing), then tv_index_refresh.
 * Reported: docs/s and source MB/s over the write calls only (documents are
 * generated between timed calls), refresh time, segment count, store bytes
 * (tv_index_get_stats) per document, and peak RSS. The put run happens in a
 * forked child before anything else is allocated, so each run's peak RSS
 * (getrusage) is its own.
 *
 * Queries, on the index the bulk run built: luceneutil-shaped classes
 * (term, AND, OR, phrase at high/med/low frequency bands; see corpus.h),
 * sent as a client would send them to /bench/_search through trove_request:
 *   term   {"query":{"match":{"body":"w"}},"size":10}
 *   AND    {"query":{"match":{"body":{"query":"a b","operator":"and"}}},"size":10}
 *   OR     {"query":{"match":{"body":"a b"}},"size":10}
 *   phrase {"query":{"match_phrase":{"body":"a b"}},"size":10}
 * each also with "track_total_hits":false. Per class: one warm-up pass,
 * then R rounds over its Q queries; median, p99 and mean latency (µs) and
 * queries/s (1 / mean) over the Q*R samples. Before timing, every query is
 * run once with "track_total_hits":true, "size":0: the mean count is
 * printed, and for term and phrase classes each count is checked against
 * the generator's own document frequency (a mismatch is a bug somewhere).
 *
 * callgrind mode (--callgrind CLASS): indexes 20k documents, runs one
 * warm-up pass, then exactly --cg-queries (200) queries of CLASS inside
 * bench_cg_queries(), so
 *   valgrind --tool=callgrind --instr-atstart=no --toggle-collect=bench_cg_queries \
 *       ./build-bench/bench_engine --callgrind med_term
 * gives the instructions of 200 queries (divide by 200). Instrumentation
 * starts just before the warm-up when valgrind's callgrind.h is available,
 * so indexing runs at valgrind's uninstrumented speed. Instructions per
 * indexed document (engine path; the put run is a forked child, so name
 * the output per process):
 *   valgrind --tool=callgrind --toggle-collect=tv_index_put \
 *       --callgrind-out-file=cg.%p ./build-bench/bench_engine --only put -n 5000
 *
 * --metrics adds "metric NAME VALUE" lines, which bench/compare collects.
 *
 * Rejected: timing whole batches including generation (the generator would
 * be a third of the figure); building the query index with tv_index_put
 * (queries must meet the index a client would have built); Lucene-syntax
 * query_string (not in trove yet, and match/match_phrase are what clients
 * send).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/api.h"
#include "corpus.h"
#include "index/index.h"
#include "trove.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_START_INSTRUMENTATION
#endif

#define INDEX_BODY                                                                                   \
    "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0},"                               \
    "\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"},\"body\":{\"type\":\"text\"},"      \
    "\"tag\":{\"type\":\"keyword\"},\"views\":{\"type\":\"long\"},\"date\":{\"type\":\"date\"}}}}"

typedef struct opts {
    uint32_t ndocs;
    uint64_t seed;
    uint32_t batch;
    uint32_t nq;     /* queries per class */
    uint32_t rounds; /* timed passes over them */
    bool do_bulk, do_put, do_query;
    const char *classes; /* comma-separated filter, NULL: all */
    const char *cg_class;
    uint32_t cg_queries;
    const char *dump_queries;
    const char *dump_docs;
    bool metrics;
} opts;

static opts O = {.ndocs = 100000, .seed = 42, .batch = 1000, .nq = 50, .rounds = 5,
                 .do_bulk = true, .do_put = true, .do_query = true, .cg_queries = 200};

static double now_us(void) { return (double)tv_mono_ns() / 1e3; }

static double peak_rss_mb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static void metric(const char *name, double v) {
    if (O.metrics) printf("metric %s %.6g\n", name, v);
}

static void die(const char *what) {
    fprintf(stderr, "bench_engine: %s\n", what);
    exit(1);
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v and returns the median; *p99 nearest-rank, *mean. */
static double summarize(double *v, size_t n, double *p99, double *mean) {
    qsort(v, n, sizeof *v, cmp_d);
    double s = 0;
    for (size_t i = 0; i < n; i++) s += v[i];
    *mean = s / (double)n;
    size_t r = (size_t)ceil(0.99 * (double)n);
    *p99 = v[r ? r - 1 : 0];
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One request; dies on a transport failure, returns the HTTP status. */
static int request(trove_node *node, const char *method, const char *path, const char *body, size_t len,
                   trove_response *resp) {
    int rc = trove_request(node, method, path, body, len, resp);
    if (rc) {
        fprintf(stderr, "%s %s: %s\n", method, path, trove_status_message(rc));
        exit(1);
    }
    return resp->status;
}

static void expect(trove_node *node, const char *method, const char *path, const char *body, int want) {
    trove_response resp;
    if (request(node, method, path, body, body ? strlen(body) : 0, &resp) != want) {
        fprintf(stderr, "%s %s: HTTP %d: %.500s\n", method, path, resp.status, resp.body);
        exit(1);
    }
    trove_response_fini(&resp);
}

static void print_index_row(const char *how, uint32_t ndocs, double write_us, double refresh_us,
                            const tv_index_stats *st, uint64_t src_bytes, double batch_med_us) {
    double secs = write_us / 1e6;
    printf("%-5s %9u docs  %9.0f docs/s  %6.2f MB/s  batch median %8.1f ms  refresh %8.1f ms  "
           "%3u segments  %7.1f store bytes/doc (source %.1f)  peak RSS %.1f MB\n",
           how, ndocs, ndocs / secs, (double)src_bytes / 1e6 / secs, batch_med_us / 1e3, refresh_us / 1e3,
           st->segments, st->docs_count ? (double)st->store_bytes / (double)st->docs_count : 0.0,
           (double)src_bytes / ndocs, peak_rss_mb());
    if (st->docs_count != ndocs)
        printf("      warning: the index reports %llu documents, %u were sent\n", (unsigned long long)st->docs_count,
               ndocs);
    char name[64];
    snprintf(name, sizeof name, "%s.docs_per_s", how);
    metric(name, ndocs / secs);
    snprintf(name, sizeof name, "%s.refresh_ms", how);
    metric(name, refresh_us / 1e3);
    snprintf(name, sizeof name, "%s.segments", how);
    metric(name, st->segments);
    snprintf(name, sizeof name, "%s.store_bytes_per_doc", how);
    metric(name, st->docs_count ? (double)st->store_bytes / (double)st->docs_count : 0.0);
    snprintf(name, sizeof name, "%s.peak_rss_mb", how);
    metric(name, peak_rss_mb());
}

/* ------------------------------------------------------------ indexing */

/* _bulk in batches through trove_request, then _refresh. Leaves the index
 * "bench" in node. */
static void index_bulk(trove_node *node, bc_corpus *c, uint32_t ndocs, bool quiet) {
    expect(node, "PUT", "/bench", INDEX_BODY, 200);
    bc_corpus_reset(c);
    tv_buf b;
    tv_buf_init(&b);
    size_t nb = (ndocs + O.batch - 1) / O.batch;
    double *lat = tv_malloc((nb ? nb : 1) * sizeof *lat), total = 0;
    if (!lat) die("out of memory");
    for (size_t k = 0; k < nb; k++) {
        tv_buf_clear(&b);
        for (uint32_t i = (uint32_t)(k * O.batch); i < ndocs && i < (k + 1) * O.batch; i++) {
            tv_buf_printf(&b, "{\"index\":{\"_id\":\"%u\"}}\n", i);
            bc_doc(c, &b);
            tv_buf_putc(&b, '\n');
        }
        if (b.oom) die("out of memory");
        trove_response resp;
        double t0 = now_us();
        int status = request(node, "POST", "/bench/_bulk", b.data, b.len, &resp);
        lat[k] = now_us() - t0;
        total += lat[k];
        if (status != 200 || !resp.body || strstr(resp.body, "\"errors\":true")) {
            fprintf(stderr, "_bulk batch %zu: HTTP %d: %.800s\n", k, status, resp.body ? resp.body : "");
            exit(1);
        }
        trove_response_fini(&resp);
    }
    double t0 = now_us();
    expect(node, "POST", "/bench/_refresh", NULL, 200);
    double refresh = now_us() - t0;
    tv_index_stats st = {0};
    tv_index *idx = tv_node_get_index(node, "bench");
    if (!idx) die("index bench is missing after _bulk");
    tv_index_get_stats(idx, &st);
    tv_index_release(idx);
    double p99, mean, med = summarize(lat, nb, &p99, &mean);
    if (!quiet) {
        uint32_t distinct = 0;
        for (uint32_t w = 0; w < BC_NWORDS; w++) distinct += c->df[w] > 0;
        printf("corpus: %u documents, %.1f MB of JSON, %.1f body tokens per document, %u distinct body words\n",
               ndocs, (double)c->source_bytes / 1e6, (double)c->body_tokens / ndocs, distinct);
        print_index_row("bulk", ndocs, total, refresh, &st, c->source_bytes, med);
    }
    tv_free(lat);
    tv_buf_fini(&b);
}

/* tv_index_put per document straight into the engine, then refresh. */
static void index_put(bc_corpus *c, uint32_t ndocs) {
    tv_arena a;
    tv_arena_init(&a);
    tv_json *root;
    if (tv_json_parse(&a, INDEX_BODY, strlen(INDEX_BODY), &root, NULL)) die("index body");
    tv_error err;
    tv_error_clear(&err);
    tv_index *idx = tv_index_new("bench", tv_json_get(root, "settings"), tv_json_get(root, "mappings"), &err);
    if (!idx) die(err.reason);
    bc_corpus_reset(c);
    tv_buf b;
    tv_buf_init(&b);
    size_t *off = tv_malloc((O.batch + 1) * sizeof *off);
    size_t nb = (ndocs + O.batch - 1) / O.batch;
    double *lat = tv_malloc((nb ? nb : 1) * sizeof *lat), total = 0;
    if (!off || !lat) die("out of memory");
    tv_write_opts wo;
    tv_write_opts_init(&wo);
    for (size_t k = 0; k < nb; k++) {
        tv_buf_clear(&b);
        uint32_t first = (uint32_t)(k * O.batch), n = 0;
        for (uint32_t i = first; i < ndocs && i < (k + 1) * O.batch; i++, n++) {
            off[n] = b.len;
            bc_doc(c, &b);
        }
        off[n] = b.len;
        if (b.oom) die("out of memory");
        double t0 = now_us();
        for (uint32_t i = 0; i < n; i++) {
            char id[16];
            int il = snprintf(id, sizeof id, "%u", first + i);
            tv_write_result res;
            if (tv_index_put(idx, id, (size_t)il, b.data + off[i], off[i + 1] - off[i], &wo, &res, &err)) {
                fprintf(stderr, "tv_index_put %s: %s\n", id, err.reason);
                exit(1);
            }
        }
        lat[k] = now_us() - t0;
        total += lat[k];
    }
    double t0 = now_us();
    if (tv_index_refresh(idx)) die("tv_index_refresh failed");
    double refresh = now_us() - t0;
    tv_index_stats st = {0};
    tv_index_get_stats(idx, &st);
    double p99, mean, med = summarize(lat, nb, &p99, &mean);
    print_index_row("put", ndocs, total, refresh, &st, c->source_bytes, med);
    tv_index_release(idx);
    tv_free(lat);
    tv_free(off);
    tv_buf_fini(&b);
    tv_arena_fini(&a);
}

/* ------------------------------------------------------------ queries */

enum { V_TOP10 = 0, V_NOTOTAL, V_COUNT, NVARIANTS };
static const char *const variant_name[] = {"top10", "top10_nototal", "count"};
static const char *const variant_tail[] = {",\"size\":10", ",\"size\":10,\"track_total_hits\":false",
                                           ",\"size\":0,\"track_total_hits\":true"};

static char *query_body(const bc_corpus *c, bc_kind kind, const bc_query *q, int variant) {
    size_t l0, l1;
    const char *w0 = bc_word(c, q->w[0], &l0), *w1 = bc_word(c, q->w[1], &l1);
    tv_buf b;
    tv_buf_init(&b);
    switch (kind) {
    case BC_TERM: tv_buf_printf(&b, "{\"query\":{\"match\":{\"body\":\"%.*s\"}}", (int)l0, w0); break;
    case BC_AND:
        tv_buf_printf(&b, "{\"query\":{\"match\":{\"body\":{\"query\":\"%.*s %.*s\",\"operator\":\"and\"}}}", (int)l0,
                      w0, (int)l1, w1);
        break;
    case BC_OR: tv_buf_printf(&b, "{\"query\":{\"match\":{\"body\":\"%.*s %.*s\"}}", (int)l0, w0, (int)l1, w1); break;
    case BC_PHRASE:
        tv_buf_printf(&b, "{\"query\":{\"match_phrase\":{\"body\":\"%.*s %.*s\"}}", (int)l0, w0, (int)l1, w1);
        break;
    }
    tv_buf_printf(&b, "%s}", variant_tail[variant]);
    size_t len;
    char *s = tv_buf_detach(&b, &len);
    if (!s) die("out of memory");
    return s;
}

/* hits.total.value of a _search response, -1 when absent. */
static long long total_hits(const char *body) {
    const char *p = body ? strstr(body, "\"total\":{\"value\":") : NULL;
    return p ? strtoll(p + 17, NULL, 10) : -1;
}

/* Runs one search and returns its latency in µs; dies unless HTTP 200. */
static double timed_search(trove_node *node, const char *body, long long *hits) {
    trove_response resp;
    size_t len = strlen(body);
    double t0 = now_us();
    int status = request(node, "POST", "/bench/_search", body, len, &resp);
    double dt = now_us() - t0;
    if (status != 200) {
        fprintf(stderr, "_search %s: HTTP %d: %.600s\n", body, status, resp.body ? resp.body : "");
        exit(1);
    }
    if (hits) *hits = total_hits(resp.body);
    trove_response_fini(&resp);
    return dt;
}

static bool class_selected(const char *name) {
    if (!O.classes) return true;
    size_t n = strlen(name);
    for (const char *p = O.classes; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && !memcmp(p, name, n)) return true;
        if (!e) break;
        p = e + 1;
    }
    return false;
}

static void run_class(trove_node *node, const bc_corpus *c, const bc_class *k) {
    bc_query *q = tv_malloc(O.nq * sizeof *q);
    if (!q) die("out of memory");
    uint32_t n = bc_queries(c, k, O.nq, q);
    if (!n) {
        printf("%-14s  no queries: no words in the band at %u documents\n", k->name, c->ndocs);
        tv_free(q);
        return;
    }
    /* exact counts, checked against the generator where it knows them */
    double sum = 0;
    uint32_t agree = 0, checkable = k->kind == BC_TERM || k->kind == BC_PHRASE;
    for (uint32_t i = 0; i < n; i++) {
        char *body = query_body(c, k->kind, &q[i], V_COUNT);
        long long hits = -1;
        timed_search(node, body, &hits);
        sum += (double)hits;
        long long want = k->kind == BC_TERM ? q[i].df[0] : q[i].pdf;
        if (checkable && hits == want) agree++;
        else if (checkable && agree + 3 > i) /* show the first few */
            fprintf(stderr, "  %s %s: engine counts %lld, generator %lld\n", k->name, body, hits, want);
        tv_free(body);
    }
    char check[64] = "";
    if (checkable) snprintf(check, sizeof check, "  counts %u/%u exact", agree, n);
    for (int v = V_TOP10; v <= V_NOTOTAL; v++) {
        char **bodies = tv_malloc(n * sizeof *bodies);
        double *lat = tv_malloc((size_t)n * O.rounds * sizeof *lat);
        if (!bodies || !lat) die("out of memory");
        for (uint32_t i = 0; i < n; i++) bodies[i] = query_body(c, k->kind, &q[i], v);
        for (uint32_t i = 0; i < n; i++) timed_search(node, bodies[i], NULL); /* warm-up */
        size_t ns = 0;
        for (uint32_t r = 0; r < O.rounds; r++)
            for (uint32_t i = 0; i < n; i++) lat[ns++] = timed_search(node, bodies[i], NULL);
        double p99, mean, med = summarize(lat, ns, &p99, &mean);
        printf("%-14s %-14s %3u q x %u  median %9.1f us  p99 %9.1f us  mean %9.1f us  %8.0f q/s  "
               "hits %9.0f%s\n",
               k->name, variant_name[v], n, O.rounds, med, p99, mean, 1e6 / mean, sum / n, v == V_TOP10 ? check : "");
        char name[96];
        snprintf(name, sizeof name, "query.%s.%s.median_us", k->name, variant_name[v]);
        metric(name, med);
        snprintf(name, sizeof name, "query.%s.%s.p99_us", k->name, variant_name[v]);
        metric(name, p99);
        for (uint32_t i = 0; i < n; i++) tv_free(bodies[i]);
        tv_free(bodies);
        tv_free(lat);
    }
    fflush(stdout);
    tv_free(q);
}

/* ------------------------------------------------------------ callgrind */

/* The measured loop of --callgrind: exactly n searches. Kept out of line
 * (and named) for valgrind --toggle-collect=bench_cg_queries. */
__attribute__((noinline, used)) static long long bench_cg_queries(trove_node *node, char **bodies, uint32_t nb,
                                                                 uint32_t n) {
    long long sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        long long hits = 0;
        timed_search(node, bodies[i % nb], &hits);
        sum += hits;
    }
    return sum;
}

static int run_callgrind(trove_node *node, bc_corpus *c) {
    const bc_class *k = NULL;
    for (size_t i = 0; i < BC_NCLASSES; i++)
        if (!strcmp(bc_classes[i].name, O.cg_class)) k = &bc_classes[i];
    if (!k) {
        fprintf(stderr, "unknown class %s\n", O.cg_class);
        return 2;
    }
    index_bulk(node, c, O.ndocs, true);
    uint32_t want = O.cg_queries < 50 ? O.cg_queries : 50;
    bc_query *q = tv_malloc(want * sizeof *q);
    char **bodies = tv_malloc(want * sizeof *bodies);
    if (!q || !bodies) die("out of memory");
    uint32_t n = bc_queries(c, k, want, q);
    if (!n) die("no queries in this class's band");
    for (uint32_t i = 0; i < n; i++) bodies[i] = query_body(c, k->kind, &q[i], V_TOP10);
    CALLGRIND_START_INSTRUMENTATION;
    for (uint32_t i = 0; i < n; i++) timed_search(node, bodies[i], NULL); /* warm-up, not collected */
    double t0 = now_us();
    long long sum = bench_cg_queries(node, bodies, n, O.cg_queries);
    double dt = now_us() - t0;
    printf("callgrind workload: %u documents, %u queries of %s (%u distinct), %lld hits in total, %.1f us/query\n",
           O.ndocs, O.cg_queries, k->name, n, sum, dt / O.cg_queries);
    for (uint32_t i = 0; i < n; i++) tv_free(bodies[i]);
    tv_free(bodies);
    tv_free(q);
    return 0;
}

/* ------------------------------------------------------------ dumps */

static void dump_queries(bc_corpus *c) {
    FILE *f = fopen(O.dump_queries, "w");
    if (!f) die(strerror(errno));
    bc_query *q = tv_malloc(O.nq * sizeof *q);
    tv_buf b;
    tv_buf_init(&b);
    for (size_t k = 0; k < BC_NCLASSES; k++) {
        uint32_t n = bc_queries(c, &bc_classes[k], O.nq, q);
        for (uint32_t i = 0; i < n; i++) {
            tv_buf_clear(&b);
            bc_query_text(c, bc_classes[k].kind, &q[i], &b);
            fputs("{\"query\":\"", f);
            for (size_t j = 0; j < b.len; j++) {
                if (b.data[j] == '"') fputc('\\', f);
                fputc(b.data[j], f);
            }
            fprintf(f, "\",\"class\":\"%s\",\"df\":[%u", bc_classes[k].name, q[i].df[0]);
            if (bc_classes[k].kind != BC_TERM) fprintf(f, ",%u", q[i].df[1]);
            fputc(']', f);
            if (bc_classes[k].kind == BC_PHRASE) fprintf(f, ",\"phrase_df\":%u", q[i].pdf);
            fprintf(f, ",\"docs\":%u}\n", c->ndocs);
        }
    }
    tv_buf_fini(&b);
    tv_free(q);
    fclose(f);
}

static void dump_docs(bc_corpus *c) {
    FILE *f = fopen(O.dump_docs, "w");
    if (!f) die(strerror(errno));
    bc_corpus_reset(c);
    tv_buf b;
    tv_buf_init(&b);
    for (uint32_t i = 0; i < O.ndocs; i++) {
        tv_buf_clear(&b);
        tv_buf_printf(&b, "{\"index\":{\"_id\":\"%u\"}}\n", i);
        bc_doc(c, &b);
        tv_buf_putc(&b, '\n');
        fwrite(b.data, 1, b.len, f);
    }
    tv_buf_fini(&b);
    fclose(f);
}

/* ------------------------------------------------------------ main */

static void usage(void) {
    fprintf(stderr,
            "usage: bench_engine [-n DOCS] [-s SEED] [-q QUERIES] [-r ROUNDS] [-b BATCH]\n"
            "                    [--only bulk|put|index|query] [--classes a,b,...] [--metrics]\n"
            "                    [--callgrind CLASS [--cg-queries N]]\n"
            "                    [--dump-queries FILE] [--dump-docs FILE.ndjson]\n"
            "classes:");
    for (size_t i = 0; i < BC_NCLASSES; i++) fprintf(stderr, " %s", bc_classes[i].name);
    fputc('\n', stderr);
    exit(2);
}

static unsigned long num_arg(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) usage();
    char *end;
    unsigned long v = strtoul(argv[++*i], &end, 10);
    if (*end || v == 0) usage();
    return v;
}

int main(int argc, char **argv) {
    bool ndocs_given = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-n")) O.ndocs = (uint32_t)num_arg(argc, argv, &i), ndocs_given = true;
        else if (!strcmp(a, "-s")) O.seed = num_arg(argc, argv, &i);
        else if (!strcmp(a, "-q")) O.nq = (uint32_t)num_arg(argc, argv, &i);
        else if (!strcmp(a, "-r")) O.rounds = (uint32_t)num_arg(argc, argv, &i);
        else if (!strcmp(a, "-b")) O.batch = (uint32_t)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--cg-queries")) O.cg_queries = (uint32_t)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--metrics")) O.metrics = true;
        else if (i + 1 < argc && !strcmp(a, "--classes")) O.classes = argv[++i];
        else if (i + 1 < argc && !strcmp(a, "--callgrind")) O.cg_class = argv[++i];
        else if (i + 1 < argc && !strcmp(a, "--dump-queries")) O.dump_queries = argv[++i];
        else if (i + 1 < argc && !strcmp(a, "--dump-docs")) O.dump_docs = argv[++i];
        else if (i + 1 < argc && !strcmp(a, "--only")) {
            const char *m = argv[++i];
            O.do_bulk = !strcmp(m, "bulk") || !strcmp(m, "index");
            O.do_put = !strcmp(m, "put") || !strcmp(m, "index");
            O.do_query = !strcmp(m, "query");
            if (!O.do_bulk && !O.do_put && !O.do_query) usage();
        } else usage();
    }
    if (O.cg_class && !ndocs_given) O.ndocs = 20000;

    bc_corpus c;
    if (!bc_corpus_init(&c, O.seed)) die("out of memory");
    if (O.dump_docs || O.dump_queries) {
        if (O.dump_docs) dump_docs(&c);
        if (O.dump_queries) {
            bc_corpus_reset(&c);
            tv_buf b;
            tv_buf_init(&b);
            for (uint32_t i = 0; i < O.ndocs; i++) tv_buf_clear(&b), bc_doc(&c, &b);
            tv_buf_fini(&b);
            dump_queries(&c);
        }
        bc_corpus_fini(&c);
        return 0;
    }

    trove_error err;
    if (O.cg_class) {
        trove_node *node = trove_node_open(NULL, &err);
        if (!node) die(err.message);
        int rc = run_callgrind(node, &c);
        trove_node_free(node);
        bc_corpus_fini(&c);
        return rc;
    }

    double load[3] = {0};
    getloadavg(load, 3);
    printf("bench_engine: %u documents (seed %llu), batches of %u, %u queries x %u rounds per class; "
           "load average %.2f %.2f %.2f\n",
           O.ndocs, (unsigned long long)O.seed, O.batch, O.nq, O.rounds, load[0], load[1], load[2]);
    fflush(stdout);

    if (O.do_put) { /* in a child, so that its peak RSS is its own */
        pid_t pid = fork();
        if (pid < 0) die("fork failed");
        if (pid == 0) {
            index_put(&c, O.ndocs);
            fflush(stdout);
            _exit(0);
        }
        int ws;
        if (waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws)) die("the put run failed");
    }
    if (O.do_bulk || O.do_query) {
        trove_node *node = trove_node_open(NULL, &err);
        if (!node) die(err.message);
        index_bulk(node, &c, O.ndocs, !O.do_bulk);
        if (O.do_query) {
            double t0 = now_us();
            for (size_t k = 0; k < BC_NCLASSES; k++)
                if (class_selected(bc_classes[k].name)) run_class(node, &c, &bc_classes[k]);
            printf("queries took %.1f s\n", (now_us() - t0) / 1e6);
        }
        trove_node_free(node);
    }
    getloadavg(load, 3);
    printf("load average at the end: %.2f %.2f %.2f\n", load[0], load[1], load[2]);
    bc_corpus_fini(&c);
    return 0;
}
