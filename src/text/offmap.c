/*
 * offmap.c — offset correction for char filters, as Lucene's
 * BaseCharFilter keeps it: ascending output offsets, each with the
 * cumulative difference (input - output) that holds from there on;
 * correcting an offset takes the difference of the last point at or before
 * it (binary search). Arrays grow in the analysis arena.
 */
#include "text/text_int.h"

tv_status tv_offmap_add(tv_arena *a, tv_offmap *m, uint32_t out_off, int32_t diff) {
    if (m->n && m->off[m->n - 1] == out_off) {
        m->diff[m->n - 1] = diff;
        return TROVE_OK;
    }
    if (m->n == m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 16;
        uint32_t *no = tv_arena_alloc(a, ncap * sizeof *no);
        int32_t *nd = tv_arena_alloc(a, ncap * sizeof *nd);
        if (!no || !nd) return TROVE_ENOMEM;
        if (m->n) {
            memcpy(no, m->off, m->n * sizeof *no);
            memcpy(nd, m->diff, m->n * sizeof *nd);
        }
        m->off = no;
        m->diff = nd;
        m->cap = ncap;
    }
    m->off[m->n] = out_off;
    m->diff[m->n++] = diff;
    return TROVE_OK;
}

uint32_t tv_offmap_correct(const tv_offmap *m, uint32_t off) {
    size_t lo = 0, hi = m->n; /* first point > off */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->off[mid] <= off) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return off;
    int64_t r = (int64_t)off + m->diff[lo - 1];
    return r < 0 ? 0 : (uint32_t)r;
}
