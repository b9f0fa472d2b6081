/*
 * fuzz_index_segment.c — random bytes into tv_segment_open; whatever opens
 * is walked through every reader call (tv_segment_check plus seeks,
 * advances, impacts, doc values, points and stored docs).
 *
 * Inputs whose first byte is odd get their checksums recomputed first, so
 * mutations reach the structural validation behind the checksums instead of
 * stopping at a checksum mismatch.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "index/segment_int.h"

static void walk(const tv_segment *s) {
    tv_error err = TV_ERROR_INIT;
    /* a small file can claim many docs of nothing: keep each input cheap */
    tv_error_clear(&err);
    if (tv_segment_max_doc(s) <= 4096) (void)tv_segment_check(s, &err);
    tv_arena a;
    tv_arena_init(&a);
    uint32_t max_doc = tv_segment_max_doc(s);
    for (uint32_t i = 0; i < tv_segment_nfields(s); i++) {
        uint32_t f = tv_segment_field_at(s, i)->id;
        tv_arena_reset(&a);
        tv_terms_iter *it = tv_terms_iter_new(s, f, &a);
        const char *t;
        size_t tl;
        tv_term_state st;
        int cnt = 0;
        while (it && cnt++ < 200 && tv_terms_iter_next(it, &t, &tl, &st)) {
            tv_postings *p = tv_postings_open(s, f, &st, TV_POST_POSITIONS | TV_POST_FREQS, &a);
            if (!p) break;
            uint32_t target = 1;
            for (uint32_t d = tv_postings_advance(p, target); d != TV_NO_MORE_DOCS;
                 d = (cnt & 1) ? tv_postings_next(p) : tv_postings_advance(p, d + 3)) {
                uint32_t fr = tv_postings_freq(p);
                for (uint32_t k = 0; k < fr && k < 20; k++) tv_postings_next_pos(p);
            }
            const tv_impact *imp;
            size_t ni;
            for (uint32_t tg = 0; tg < max_doc; tg = tg * 2 + 1) {
                uint32_t upto = tv_postings_impacts(p, tg, &imp, &ni);
                for (size_t k = 0; k < ni; k++) (void)imp[k].freq;
                if (upto == TV_NO_MORE_DOCS) break;
            }
        }
        if (it) {
            tv_terms_iter_seek(it, "m", 1);
            tv_terms_iter_next(it, &t, &tl, &st);
            tv_terms_iter_seek(it, "", 0);
            tv_terms_iter_next(it, &t, &tl, &st);
        }
        tv_segment_term(s, f, "a", 1, &st);
        tv_field_stats fs;
        tv_segment_field_stats(s, f, &fs);
        tv_postings *p = tv_postings_field_docs(s, f, &a);
        if (p) {
            tv_postings_advance(p, max_doc / 2);
            while (tv_postings_next(p) != TV_NO_MORE_DOCS) {
            }
        }
        uint32_t nords = tv_segment_dv_ord_count(s, f);
        for (uint32_t o = 0; o < nords && o < 64; o++) tv_segment_dv_term(s, f, o, &t, &tl);
        tv_bitset bs;
        const tv_segfield *sf = tv_segment_field_at(s, i);
        if ((!sf->has_points || sf->pt_vals.n < (1u << 20)) && tv_bitset_init(&bs, max_doc)) {
            tv_segment_points_range(s, f, INT64_MIN, INT64_MAX, &bs);
            tv_bitset_fini(&bs);
        }
        for (uint32_t d = 0; d < max_doc && d < 64; d++) {
            int64_t v[4];
            uint32_t o[4];
            tv_segment_dv_numeric(s, f, d, v, 4);
            tv_segment_dv_ords(s, f, d, o, 4);
            tv_segment_norm(s, f, d);
        }
    }
    for (uint32_t d = 0; d < max_doc && d < 64; d++) {
        tv_doc_meta m;
        const char *src;
        size_t sl;
        tv_arena_reset(&a);
        tv_segment_doc(s, d, &a, &m, &src, &sl);
    }
    /* the chunk-cached reads of a page of hits, upto beyond every chunk */
    tv_arena_reset(&a);
    tv_stored_cache cache;
    tv_stored_cache_init(&cache);
    for (uint32_t d = 0; d < max_doc && d < 64; d++) {
        const char *src;
        size_t sl;
        tv_segment_doc_cached(s, d, max_doc - 1, &cache, &a, NULL, &src, &sl);
    }
    tv_arena_fini(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    if (size && (data[0] & 1)) {
        /* the magic's first byte is 'T' (even): flip it back, fix checksums */
        copy[0] ^= 1;
        tv_segment_fix_checksums(copy, size);
    }
    tv_segment *s = NULL;
    if (tv_segment_open(copy, size, &s, NULL) == TROVE_OK) {
        walk(s);
        tv_segment_release(s);
    }
    free(copy);
    return 0;
}
