/*
 * bench_text.c — analysis throughput: MB/s of input through the standard
 * analyzer (and, for reference, whitespace, english and simple) over
 * generated English-like text and over multilingual text (accented Latin,
 * Cyrillic, Greek, CJK, Thai, emoji). Documents of ~1 KiB are analyzed one
 * at a time with the arena reset between documents, as indexing does.
 *
 * Usage: bench_text [MB] [repeats] [analyzer]   (defaults: 8 MB, 5 repeats,
 * all four analyzers; the median run is reported). Not a test: prints
 * figures only. For exact instruction counts on a noisy machine:
 *   valgrind --tool=callgrind --toggle-collect=tv_analyze bench_text 1 1 standard
 */
#include <stdio.h>
#include <stdlib.h>

#include "text/text.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static const char *const english[] = {
    "the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be",
    "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have",
    "an", "had", "they", "you", "were", "their", "one", "all", "we", "can", "her", "has",
    "there", "been", "if", "more", "when", "will", "would", "who", "so", "no", "search",
    "engine", "index", "document", "query", "analysis", "tokenizer", "running", "Lucene",
    "OpenSearch", "performance", "throughput", "latency", "segment", "postings", "Unicode",
    "boundary", "international", "characters", "don't", "it's", "O'Reilly", "2024", "3.14",
    "1,000", "e-mail", "user@example.com", "http://example.com/path", "U.S.A.", "well-known"};
static const char *const multi[] = {
    "café", "naïve", "Ærøskøbing", "straße", "Müller", "façade", "здравствуйте", "мир",
    "Ελληνικά", "καλημέρα", "我是中国人", "東京都", "ひらがな", "カタカナ", "한국어", "ภาษาไทย",
    "👍🏽", "🇺🇸", "👩‍❤️‍👩", "Ünïcödé", "עברית", "العربية", "हिन्दी", "2024年", "१२३"};

static size_t gen(char *buf, size_t cap, const char *const *words, size_t nwords, bool mixed) {
    size_t n = 0;
    int sentence = 0;
    while (n + 64 < cap) {
        const char *w;
        if (mixed && rnd() % 3 == 0) w = multi[rnd() % (sizeof multi / sizeof multi[0])];
        else {
            /* Zipf-like: small indices more often */
            uint32_t r = rnd() % 1000;
            size_t i = (size_t)((r * r) / 1000 * nwords / 1000);
            w = words[i % nwords];
        }
        size_t l = strlen(w);
        memcpy(buf + n, w, l);
        if (sentence == 0 && buf[n] >= 'a' && buf[n] <= 'z') buf[n] -= 32;
        n += l;
        sentence++;
        if (sentence > 8 && rnd() % 6 == 0) {
            buf[n++] = rnd() % 4 ? '.' : ',';
            sentence = 0;
        }
        buf[n++] = rnd() % 40 ? ' ' : '\n';
    }
    return n;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double run(const tv_analyzer *an, const char *buf, size_t len, int repeats, size_t *ntok) {
    double times[32];
    tv_arena a;
    tv_arena_init(&a);
    for (int r = 0; r < repeats; r++) {
        uint64_t t0 = tv_mono_ns();
        size_t toks = 0;
        for (size_t off = 0; off < len;) {
            size_t end = off + 1024 < len ? off + 1024 : len;
            while (end < len && buf[end] != ' ' && buf[end] != '\n') end++; /* whole words */
            tv_tokens t;
            if (tv_analyze(an, &a, buf + off, end - off, 0, &t) != TROVE_OK) {
                fprintf(stderr, "analyze failed\n");
                exit(1);
            }
            toks += t.len;
            tv_arena_reset(&a);
            off = end;
        }
        times[r] = (double)(tv_mono_ns() - t0) / 1e9;
        *ntok = toks;
    }
    tv_arena_fini(&a);
    qsort(times, (size_t)repeats, sizeof times[0], cmp_d);
    return (double)len / 1e6 / times[repeats / 2];
}

int main(int argc, char **argv) {
    size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 8;
    int repeats = argc > 2 ? atoi(argv[2]) : 5;
    if (repeats < 1 || repeats > 31) repeats = 5;
    size_t cap = mb * 1000 * 1000;
    char *buf = malloc(cap);
    if (!buf) return 1;
    const char *const names[] = {"standard", "whitespace", "simple", "english"};
    for (int kind = 0; kind < 2; kind++) {
        size_t len = gen(buf, cap, english, sizeof english / sizeof english[0], kind == 1);
        printf("%s text, %.1f MB, %zu UTF-16 units\n", kind ? "multilingual" : "English-like",
               (double)len / 1e6, tv_utf16_len(buf, len));
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            if (argc > 3 && strcmp(argv[3], names[i]) != 0) continue;
            size_t ntok = 0;
            double mbs = run(tv_analyzer_builtin(names[i], strlen(names[i])), buf, len, repeats, &ntok);
            printf("  %-10s %8.1f MB/s  %9zu tokens\n", names[i], mbs, ntok);
        }
    }
    free(buf);
    return 0;
}
