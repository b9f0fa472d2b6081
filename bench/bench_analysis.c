/*
 * bench_analysis.c — trove's side of bench/analysis/run: analysis throughput of one analyzer
 * over a file of texts (one a line), in process, as indexing runs it (tv_analyze per text, the
 * arena reset between texts).
 *
 * Usage: bench_analysis RUNS WARMUP REPEAT FILE ANALYZER [cpu]
 *   ANALYZER is a built-in analyzer name ("standard", "english", ...), TOKENIZER:FILTER,FILTER
 *   (composed as _analyze composes named components), or index "analysis" settings JSON (it
 *   starts with '{') defining an analyzer named "bench" (components with settings: ngram
 *   sizes, synonym rules, html_strip, ...). Every line of FILE is analysed REPEAT
 *   times per pass; WARMUP passes, then RUNS timed passes. Prints one JSON line:
 *   {"bytes": N, "tokens": N, "median_s": S}  (bytes of UTF-8 analysed per pass), or
 *   {"error": "..."} when trove has no such analyzer. With "cpu" a pass is timed by this
 *   thread's CPU clock (CLOCK_THREAD_CPUTIME_ID) instead of the monotonic clock: on a machine
 *   other jobs share, waiting for a core then does not count.
 * The Java oracle's --bench mode (tests/analysis/LuceneOracle.java) measures Lucene 4.10 the
 * same way (same texts, same repeat, warm-up, median of RUNS), so the run script can print both
 * side by side. Not a test: figures only.
 */
#include <stdio.h>
#include <stdlib.h>

#include "timing.h"
#include "text/text.h"

/* This thread's CPU time in microseconds. */
static double cpu_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void json_str(const char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') putchar('\\');
        putchar((unsigned char)*s < 0x20 ? ' ' : *s);
    }
    putchar('"');
}

int main(int argc, char **argv) {
    if (argc != 6 && !(argc == 7 && strcmp(argv[6], "cpu") == 0)) {
        fprintf(stderr, "usage: bench_analysis RUNS WARMUP REPEAT FILE ANALYZER [cpu]\n");
        return 2;
    }
    bool cpu = argc == 7;
    int runs = atoi(argv[1]), warm = atoi(argv[2]), repeat = atoi(argv[3]);
    if (runs < 1 || runs > 101 || warm < 0 || repeat < 1) return 2;
    FILE *f = fopen(argv[4], "rb");
    if (!f) {
        perror(argv[4]);
        return 1;
    }
    tv_buf text;
    tv_buf_init(&text);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) tv_buf_append(&text, chunk, n);
    fclose(f);

    /* line starts and lengths */
    size_t nlines = 0, cap = 1024;
    size_t *off = malloc(cap * sizeof *off), *len = malloc(cap * sizeof *len);
    for (size_t i = 0; i < text.len;) {
        size_t j = i;
        while (j < text.len && text.data[j] != '\n') j++;
        if (nlines == cap) {
            cap *= 2;
            off = realloc(off, cap * sizeof *off);
            len = realloc(len, cap * sizeof *len);
        }
        off[nlines] = i;
        len[nlines++] = j - i;
        i = j + 1;
    }

    const char *spec = argv[5];
    const tv_analyzer *an = NULL;
    tv_analyzer *owned = NULL;
    tv_analysis *settings = NULL;
    const char *colon = strchr(spec, ':');
    if (spec[0] == '{') {
        tv_error err = {0};
        settings = tv_analysis_new(spec, strlen(spec), &err);
        if (!settings) {
            printf("{\"error\":");
            json_str(err.reason[0] ? err.reason : "bad settings");
            printf("}\n");
            return 0;
        }
        an = tv_analysis_get(settings, "bench", 5);
    } else if (!colon) {
        an = tv_analyzer_builtin(spec, strlen(spec));
    } else {
        char tok[256];
        const char *filters[32];
        size_t nf = 0;
        snprintf(tok, sizeof tok, "%.*s", (int)(colon - spec), spec);
        char *fl = strdup(colon + 1);
        for (char *save = NULL, *p = strtok_r(fl, ",", &save); p && nf < 32; p = strtok_r(NULL, ",", &save))
            filters[nf++] = p;
        tv_error err = {0};
        owned = tv_analyzer_compose(NULL, NULL, 0, tok, filters, nf, NULL, 0, &err);
        an = owned;
        if (!owned) {
            printf("{\"error\":");
            json_str(err.reason[0] ? err.reason : "cannot compose");
            printf("}\n");
            return 0;
        }
    }
    if (!an) {
        printf("{\"error\":\"no built-in analyzer [%s]\"}\n", spec);
        return 0;
    }

    tv_arena a;
    tv_arena_init(&a);
    double *times = malloc((size_t)runs * sizeof *times);
    size_t bytes = 0, tokens = 0;
    for (int pass = 0; pass < warm + runs; pass++) {
        double t0 = cpu ? cpu_us() : now_us();
        bytes = tokens = 0;
        for (int r = 0; r < repeat; r++) {
            for (size_t i = 0; i < nlines; i++) {
                tv_tokens t;
                if (tv_analyze(an, &a, text.data + off[i], len[i], 0, &t) != TROVE_OK) {
                    fprintf(stderr, "analyze failed\n");
                    return 1;
                }
                tokens += t.len;
                bytes += len[i];
                tv_arena_reset(&a);
            }
        }
        if (pass >= warm) times[pass - warm] = ((cpu ? cpu_us() : now_us()) - t0) / 1e6;
    }
    qsort(times, (size_t)runs, sizeof *times, cmp_d);
    printf("{\"bytes\":%zu,\"tokens\":%zu,\"median_s\":%.6f}\n", bytes, tokens, times[runs / 2]);
    tv_arena_fini(&a);
    tv_analyzer_free(owned);
    tv_analysis_free(settings);
    free(times);
    free(off);
    free(len);
    tv_buf_fini(&text);
    return 0;
}
