/*
 * bench_http_load.c — writes the documents and queries of the HTTP load
 * benchmark (bench/http/run) as files, so that the script can load them
 * into a running `trove serve` with curl and point wrk at them.
 *
 *   bench_http_load [-n 10000] [-s 42] [--batch 1000] OUTDIR
 *
 * writes into OUTDIR:
 *   index.json          the create-index body (bench_engine's mapping: title
 *                       and body text, tag keyword, views long, date date)
 *   bulk-NNNN.ndjson    _bulk bodies of --batch documents each (ids 0..n-1)
 *   term.json           {"query":{"term":{"tag":T}},"size":10}, T the tag
 *                       whose document frequency is closest to 1% of n
 *   match.json          {"query":{"match":{"body":W}},"size":10}, W the body
 *                       word whose document frequency is closest to 7% of n
 *                       (bench_engine's med_term band)
 *   queries.txt         the chosen tag and word with their frequencies
 *
 * The documents are bench/corpus.h's (the same generator and seed as
 * bench_engine), so figures of the two benchmarks describe the same data.
 * Tag frequencies are counted here from the generated lines; word
 * frequencies come from the generator's own statistics.
 *
 * Rejected: generating NDJSON in the shell script (a second generator whose
 * documents would differ from bench_engine's); loading through libtrove in
 * this program (the point is to measure the server process, its RSS
 * included, as a client sees it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"

#define INDEX_BODY                                                                                   \
    "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0},"                               \
    "\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"},\"body\":{\"type\":\"text\"},"      \
    "\"tag\":{\"type\":\"keyword\"},\"views\":{\"type\":\"long\"},\"date\":{\"type\":\"date\"}}}}\n"

static void die(const char *msg, const char *arg) {
    fprintf(stderr, "bench_http_load: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    exit(1);
}

static void write_file(const char *dir, const char *name, const char *data, size_t len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) die("cannot create", path);
    if (fwrite(data, 1, len, f) != len || fclose(f) != 0) die("cannot write", path);
}

int main(int argc, char **argv) {
    uint32_t n = 10000, batch = 1000;
    uint64_t seed = 42;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 < argc && !strcmp(a, "-n")) n = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(a, "-s")) seed = strtoull(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(a, "--batch")) batch = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (a[0] != '-' && !dir) dir = a;
        else {
            fprintf(stderr, "usage: bench_http_load [-n 10000] [-s 42] [--batch 1000] OUTDIR\n");
            return 2;
        }
    }
    if (!dir || n == 0 || batch == 0) die("need an output directory and n, batch > 0", NULL);

    bc_corpus c;
    if (!bc_corpus_init(&c, seed)) die("out of memory", NULL);
    write_file(dir, "index.json", INDEX_BODY, strlen(INDEX_BODY));

    uint32_t tag_df[BC_NTAGS] = {0};
    tv_buf b, doc;
    tv_buf_init(&b);
    tv_buf_init(&doc);
    for (uint32_t k = 0; k * batch < n; k++) {
        tv_buf_clear(&b);
        for (uint32_t i = k * batch; i < n && i < (k + 1) * batch; i++) {
            tv_buf_clear(&doc);
            bc_doc(&c, &doc);
            if (doc.oom) die("out of memory", NULL);
            const char *t = strstr(doc.data, "\"tag\":\"tag-");
            if (t) {
                unsigned v = (unsigned)strtoul(t + 11, NULL, 10);
                if (v < BC_NTAGS) tag_df[v]++;
            }
            tv_buf_printf(&b, "{\"index\":{\"_id\":\"%u\"}}\n", i);
            tv_buf_append(&b, doc.data, doc.len);
            tv_buf_putc(&b, '\n');
        }
        if (b.oom) die("out of memory", NULL);
        char name[64];
        snprintf(name, sizeof name, "bulk-%04u.ndjson", k);
        write_file(dir, name, b.data, b.len);
    }

    /* the tag nearest 1% of the documents, the word nearest 7% */
    double want_tag = 0.01 * n, want_word = 0.07 * n;
    uint32_t bt = 0, bw = 0;
    for (uint32_t t = 1; t < BC_NTAGS; t++)
        if (fabs(tag_df[t] - want_tag) < fabs(tag_df[bt] - want_tag)) bt = t;
    for (uint32_t w = 1; w < BC_NWORDS; w++)
        if (fabs(c.df[w] - want_word) < fabs(c.df[bw] - want_word)) bw = w;
    size_t wl;
    const char *word = bc_word(&c, bw, &wl);

    char q[512];
    int ql = snprintf(q, sizeof q, "{\"query\":{\"term\":{\"tag\":\"tag-%03u\"}},\"size\":10}", bt);
    write_file(dir, "term.json", q, (size_t)ql);
    ql = snprintf(q, sizeof q, "{\"query\":{\"match\":{\"body\":\"%.*s\"}},\"size\":10}", (int)wl, word);
    write_file(dir, "match.json", q, (size_t)ql);
    ql = snprintf(q, sizeof q, "docs %u\nbytes %llu\ntag tag-%03u %u\nword %.*s %u\n", n,
                  (unsigned long long)c.source_bytes, bt, tag_df[bt], (int)wl, word, c.df[bw]);
    write_file(dir, "queries.txt", q, (size_t)ql);
    fputs(q, stdout);

    tv_buf_fini(&b);
    tv_buf_fini(&doc);
    bc_corpus_fini(&c);
    return 0;
}
