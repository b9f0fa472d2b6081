/*
 * bench_postings.c — decode speed of segment postings: docs per second for
 * next() (with and without freqs) and for advance() with short and long
 * strides, on terms of several densities. A micro benchmark, never a test.
 *
 *   ./bench_postings [ndocs]     (default 1000000)
 *
 * The segment is built in memory with the segment builder from synthetic
 * documents: term "d" in every doc, "h" in every other doc with freq 1..4,
 * "s" in ~1% of docs, "r" in ~20% at random.
 */
#include <stdio.h>
#include <stdlib.h>

#include "index/segment_int.h"

static uint64_t rng = 42;
static uint32_t rndn(uint32_t n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static double now_s(void) { return (double)tv_mono_ns() / 1e9; }

static tv_segment *build(uint32_t ndocs) {
    tv_segment_builder *b = tv_segment_builder_new();
    tv_arena a;
    tv_arena_init(&a);
    for (uint32_t d = 0; d < ndocs; d++) {
        tv_arena_reset(&a);
        tv_token *t = tv_arena_calloc(&a, 8, sizeof *t);
        uint32_t n = 0;
        t[n++] = (tv_token){.term = "d", .term_len = 1, .position = 0};
        if (d % 2 == 0) {
            uint32_t f = 1 + rndn(4);
            for (uint32_t k = 0; k < f; k++) t[n++] = (tv_token){.term = "h", .term_len = 1, .position = 1 + k};
        }
        if (rndn(100) == 0) t[n++] = (tv_token){.term = "s", .term_len = 1, .position = 6};
        if (rndn(5) == 0) t[n++] = (tv_token){.term = "r", .term_len = 1, .position = 7};
        tv_doc_field f = {.field = 1, .type = TV_FT_TEXT, .index_options = TV_IO_POSITIONS,
                          .norms = true, .tokens = t, .ntokens = n, .field_length = n};
        char id[16];
        int il = snprintf(id, sizeof id, "%u", d);
        tv_parsed_doc pd = {.fields = &f, .nfields = 1};
        tv_doc_meta m = {.id = id, .id_len = (uint32_t)il, .version = 1};
        if (tv_segment_builder_add(b, &pd, &m, NULL)) {
            fprintf(stderr, "add failed\n");
            exit(1);
        }
    }
    tv_segment *s = NULL;
    if (tv_segment_builder_finish(b, &s)) exit(1);
    tv_segment_builder_free(b);
    tv_arena_fini(&a);
    return s;
}

static volatile uint64_t sink;

static void bench_term(const tv_segment *s, const char *term) {
    tv_term_state st;
    if (!tv_segment_term(s, 1, term, 1, &st)) return;
    tv_arena a;
    tv_arena_init(&a);
    const int rounds = 5;
    double best_next = 1e9, best_freq = 1e9, best_adv8 = 1e9, best_adv1k = 1e9;
    uint64_t adv8_calls = 0, adv1k_calls = 0;
    for (int r = 0; r < rounds; r++) {
        tv_arena_reset(&a);
        tv_postings *p = tv_postings_open(s, 1, &st, 0, &a);
        double t0 = now_s();
        uint64_t sum = 0;
        for (uint32_t d = tv_postings_next(p); d != TV_NO_MORE_DOCS; d = tv_postings_next(p)) sum += d;
        double t1 = now_s();
        if (t1 - t0 < best_next) best_next = t1 - t0;
        p = tv_postings_open(s, 1, &st, TV_POST_FREQS, &a);
        t0 = now_s();
        for (uint32_t d = tv_postings_next(p); d != TV_NO_MORE_DOCS; d = tv_postings_next(p))
            sum += tv_postings_freq(p);
        t1 = now_s();
        if (t1 - t0 < best_freq) best_freq = t1 - t0;
        /* advance with stride 8 docs and 1000 docs */
        p = tv_postings_open(s, 1, &st, 0, &a);
        uint64_t calls = 0;
        t0 = now_s();
        for (uint32_t d = tv_postings_advance(p, 0); d != TV_NO_MORE_DOCS; d = tv_postings_advance(p, d + 8)) calls++;
        t1 = now_s();
        if (t1 - t0 < best_adv8) best_adv8 = t1 - t0;
        adv8_calls = calls;
        p = tv_postings_open(s, 1, &st, 0, &a);
        calls = 0;
        t0 = now_s();
        for (uint32_t d = tv_postings_advance(p, 0); d != TV_NO_MORE_DOCS; d = tv_postings_advance(p, d + 1000)) calls++;
        t1 = now_s();
        if (t1 - t0 < best_adv1k) best_adv1k = t1 - t0;
        adv1k_calls = calls;
        sink += sum;
    }
    printf("term %-2s df %8u | next %7.1f Mdocs/s | next+freq %7.1f Mdocs/s | advance(+8) %6.1f Mcalls/s | advance(+1000) %6.1f Mcalls/s\n",
           term, st.doc_freq, st.doc_freq / best_next / 1e6, st.doc_freq / best_freq / 1e6,
           adv8_calls / best_adv8 / 1e6, adv1k_calls / best_adv1k / 1e6);
    tv_arena_fini(&a);
}

int main(int argc, char **argv) {
    uint32_t ndocs = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000;
    double t0 = now_s();
    tv_segment *s = build(ndocs);
    double t1 = now_s();
    printf("built %u docs in %.2f s (%.0f docs/s), segment %zu bytes\n", ndocs, t1 - t0,
           ndocs / (t1 - t0), tv_segment_bytes(s));
    const char *terms[] = {"d", "h", "r", "s"};
    for (size_t i = 0; i < 4; i++) bench_term(s, terms[i]);
    /* id lookups */
    tv_arena a;
    tv_arena_init(&a);
    const int nlook = 200000;
    t0 = now_s();
    uint64_t found = 0;
    for (int i = 0; i < nlook; i++) {
        char id[16];
        int il = snprintf(id, sizeof id, "%u", rndn(ndocs));
        tv_term_state st;
        found += tv_segment_term(s, TV_FIELD_ID, id, (size_t)il, &st);
    }
    t1 = now_s();
    printf("_id term lookups: %.2f M/s (%llu found)\n", nlook / (t1 - t0) / 1e6, (unsigned long long)found);
    tv_arena_fini(&a);
    tv_segment_release(s);
    return 0;
}
