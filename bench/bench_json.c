/*
 * bench_json.c — JSON parsing throughput: trove's reader against jansson.
 *
 *   bench_json [--mb N] [--runs N] [--only trove|jansson] [FILE.ndjson]
 *
 * Without FILE it generates N MB (default 100) of NDJSON documents that look
 * like what a search engine ingests: ids, titles and bodies with some
 * escapes and non-ASCII text (accents, CJK, emoji), integers, doubles,
 * booleans, nulls, nested objects and arrays of objects. The generator is
 * deterministic, so every run and every machine parses the same bytes.
 *
 * Each parser parses every line of the file; the best of --runs passes is
 * reported in MB/s (1 MB = 10^6 bytes). trove parses with
 * tv_json_parse_line() into an arena reset every 256 documents (a _bulk
 * request keeps its documents in one arena); jansson parses each line with
 * json_loadb() and frees it with json_decref(). Neither result is used
 * beyond a checksum that keeps the work from being optimised away.
 *
 * For instruction counts: valgrind --tool=callgrind bench_json --mb 5
 * --runs 1 --only trove (and --only jansson), then divide by the MB.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json/json.h"
#ifdef HAVE_JANSSON
#include <jansson.h>
#endif

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static unsigned pick(unsigned n) { return (unsigned)(next() % n); }

static const char *words[] = {
    "search", "engine", "index", "query", "document", "shard", "lucene", "token",
    "analyzer", "score", "the", "of", "and", "a", "to", "in", "is", "for", "on", "with",
    "caf\xc3\xa9", "na\xc3\xafve", "\xc3\xbc" "ber", "stra\xc3\x9f" "e", "\xe6\x97\xa5\xe6\x9c\xac",
    "\xe6\xa4\x9c\xe7\xb4\xa2", "\xf0\x9f\x98\x80", "\\\"quoted\\\"", "tab\\there", "line\\nbreak",
    "\\u00e9t\\u00e9", "path\\/to", "data", "fast", "memory", "disk", "block", "postings",
};

static void put_words(tv_buf *b, unsigned n) {
    for (unsigned i = 0; i < n; i++) {
        if (i) tv_buf_putc(b, ' ');
        tv_buf_puts(b, words[pick(TV_ARRAY_LEN(words))]);
    }
}

static void gen_doc(tv_buf *b, unsigned id) {
    tv_buf_printf(b, "{\"id\":%u,\"sku\":\"SKU-%08u\",\"title\":\"", id, (unsigned)pick(100000000));
    put_words(b, 3 + pick(8));
    tv_buf_puts(b, "\",\"body\":\"");
    put_words(b, 40 + pick(120));
    tv_buf_printf(b, "\",\"price\":%u.%02u,\"rating\":%.4f,\"views\":%llu,\"in_stock\":%s,", pick(10000),
                  pick(100), (double)pick(50000) / 10000.0, (unsigned long long)(next() >> 20),
                  pick(2) ? "true" : "false");
    tv_buf_printf(b, "\"created\":\"20%02u-%02u-%02uT%02u:%02u:%02uZ\",", pick(25), 1 + pick(12), 1 + pick(28),
                  pick(24), pick(60), pick(60));
    tv_buf_printf(b, "\"location\":{\"lat\":%.6f,\"lon\":%.6f},", (double)pick(180000000) / 1e6 - 90,
                  (double)pick(360000000) / 1e6 - 180);
    tv_buf_puts(b, "\"tags\":[");
    for (unsigned i = 0, n = pick(6); i < n; i++) {
        tv_buf_printf(b, "%s\"", i ? "," : "");
        put_words(b, 1);
        tv_buf_putc(b, '"');
    }
    tv_buf_puts(b, "],\"related\":[");
    for (unsigned i = 0, n = pick(5); i < n; i++)
        tv_buf_printf(b, "%s{\"id\":%u,\"score\":%.17g,\"boost\":%d}", i ? "," : "", pick(1000000),
                      (double)next() / 18446744073709551616.0, (int)pick(200) - 100);
    tv_buf_printf(b, "],\"meta\":{\"source\":\"gen\",\"version\":%u,\"deleted\":null,\"ratio\":%ge%d}}\n",
                  pick(10), (double)pick(1000) / 7.0, (int)pick(40) - 20);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t run_trove(const char *data, size_t len, uint64_t *sum) {
    tv_arena a;
    tv_arena_init(&a);
    size_t off = 0, docs = 0;
    tv_json *v;
    tv_json_error e;
    for (;;) {
        tv_status st = tv_json_parse_line(&a, data, len, &off, &v, &e);
        if (st != TROVE_OK) {
            fprintf(stderr, "trove: parse error at %u:%u: %s\n", e.line, e.col, e.msg);
            exit(1);
        }
        if (!v) break;
        *sum += v->len;
        if (++docs % 256 == 0) tv_arena_reset(&a);
    }
    tv_arena_fini(&a);
    return docs;
}

#ifdef HAVE_JANSSON
static size_t run_jansson(const char *data, size_t len, uint64_t *sum) {
    size_t off = 0, docs = 0;
    while (off < len) {
        const char *s = data + off;
        const char *nl = memchr(s, '\n', len - off);
        size_t n = nl ? (size_t)(nl - s) : len - off;
        off += n + (nl ? 1 : 0);
        if (n == 0) continue;
        json_error_t err;
        json_t *j = json_loadb(s, n, 0, &err);
        if (!j) {
            fprintf(stderr, "jansson: %s at %d:%d\n", err.text, err.line, err.column);
            exit(1);
        }
        *sum += json_object_size(j);
        json_decref(j);
        docs++;
    }
    return docs;
}
#endif

int main(int argc, char **argv) {
    double mb = 100;
    int runs = 5;
    const char *only = NULL, *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mb") && i + 1 < argc) mb = atof(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (argv[i][0] != '-') path = argv[i];
        else {
            fprintf(stderr, "usage: %s [--mb N] [--runs N] [--only trove|jansson] [FILE.ndjson]\n", argv[0]);
            return 2;
        }
    }
    tv_buf b;
    tv_buf_init(&b);
    if (path) {
        FILE *f = fopen(path, "rb");
        if (!f) {
            perror(path);
            return 1;
        }
        char chunk[1 << 16];
        size_t n;
        while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) tv_buf_append(&b, chunk, n);
        fclose(f);
    } else {
        size_t target = (size_t)(mb * 1e6);
        for (unsigned id = 1; b.len < target; id++) gen_doc(&b, id);
    }
    if (b.oom) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    printf("input: %.1f MB%s%s\n", (double)b.len / 1e6, path ? " from " : " generated", path ? path : "");
    struct {
        const char *name;
        size_t (*fn)(const char *, size_t, uint64_t *);
    } parsers[] = {
        {"trove", run_trove},
#ifdef HAVE_JANSSON
        {"jansson", run_jansson},
#endif
    };
    double best_trove = 0, best_other = 0;
    for (size_t p = 0; p < TV_ARRAY_LEN(parsers); p++) {
        if (only && strcmp(only, parsers[p].name) != 0) continue;
        double best = 1e30;
        size_t docs = 0;
        uint64_t sum = 0;
        for (int r = 0; r < runs; r++) {
            double t0 = now();
            docs = parsers[p].fn(b.data, b.len, &sum);
            double t = now() - t0;
            if (t < best) best = t;
        }
        double mbs = (double)b.len / 1e6 / best;
        printf("%-8s %8.1f MB/s  (%zu docs, best of %d: %.3f s, check %llu)\n", parsers[p].name, mbs,
               docs, runs, best, (unsigned long long)sum);
        if (p == 0) best_trove = mbs;
        else best_other = mbs;
    }
    if (best_trove > 0 && best_other > 0) printf("trove / jansson: %.2fx\n", best_trove / best_other);
    tv_buf_fini(&b);
    return 0;
}
