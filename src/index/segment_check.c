/*
 * segment_check.c — tv_segment_check: walks every structure of an open
 * segment through the public reader calls and verifies the invariants the
 * builder guarantees (terms strictly ascending and as many as declared,
 * postings strictly ascending with doc_freq docs and total_term_freq
 * occurrences, field statistics equal to the sums, impacts bounding every
 * doc of their block, positions non-decreasing, doc values ascending per
 * doc with ordinals in range, points sorted, every stored document
 * readable). For `trove check`, the segment fuzzer and the corruption tests.
 *
 * It reads only through the API a search uses, so a segment it accepts is
 * one searches can read without surprises; its cost is a full decode.
 */
#include "index/segment_int.h"

static bool imp_covers(const tv_impact *imp, size_t n, uint32_t freq, uint8_t norm) {
    for (size_t i = 0; i < n; i++)
        if (imp[i].freq >= freq && imp[i].norm <= norm) return true;
    return false;
}

static tv_status check_terms(const tv_segment *s, const tv_segfield *f, tv_arena *a, tv_error *err) {
    tv_terms_iter *it = tv_terms_iter_new(s, f->id, a);
    if (!it) return TROVE_ENOMEM;
    const char *t;
    size_t tl;
    tv_term_state st;
    char *prev = NULL;
    size_t prev_len = 0;
    uint64_t nterms = 0, sum_df = 0, sum_ttf = 0;
    tv_bitset seen;
    if (!tv_bitset_init(&seen, s->max_doc)) return TROVE_ENOMEM;
    tv_status rc = TROVE_OK;
    char *prevbuf = tv_arena_alloc(a, (size_t)f->max_term_len + 1);
    tv_arena ta;
    tv_arena_init(&ta);
    if (!prevbuf) rc = TROVE_ENOMEM;
    while (!rc && tv_terms_iter_next(it, &t, &tl, &st)) {
        if (prev && tv_memcmp2(prev, prev_len, t, tl) >= 0) {
            rc = tv_error_set(err, TROVE_ECORRUPT, "terms out of order in field [%u]", (unsigned)f->id);
            break;
        }
        tv_term_state st2;
        if (!tv_segment_term(s, f->id, t, tl, &st2) || st2.loc[0] != st.loc[0]) {
            rc = tv_error_set(err, TROVE_ECORRUPT, "term lookup disagrees with enumeration");
            break;
        }
        prev = tl <= f->max_term_len ? memcpy(prevbuf, t, tl) : prevbuf;
        prev_len = tl;
        nterms++;
        sum_df += st.doc_freq;
        sum_ttf += st.total_term_freq;
        tv_arena_reset(&ta);
        tv_postings *p = tv_postings_open(s, f->id, &st, TV_POST_FREQS | TV_POST_POSITIONS, &ta);
        if (!p) {
            rc = TROVE_ENOMEM;
            break;
        }
        tv_postings *q = tv_postings_open(s, f->id, &st, TV_POST_FREQS | TV_POST_IMPACTS, &ta);
        if (!q) {
            rc = TROVE_ENOMEM;
            break;
        }
        const tv_impact *imp = NULL;
        size_t ni = 0;
        uint32_t upto = 0;
        bool have_imp = false;
        uint64_t n = 0, ttf = 0;
        uint32_t last = 0;
        for (uint32_t d = tv_postings_next(p); d != TV_NO_MORE_DOCS; d = tv_postings_next(p)) {
            if ((n && d <= last) || d >= s->max_doc) {
                rc = tv_error_set(err, TROVE_ECORRUPT, "postings out of order");
                goto out;
            }
            last = d;
            n++;
            tv_bitset_set(&seen, d);
            uint32_t fr = tv_postings_freq(p);
            ttf += fr;
            uint32_t pp = 0;
            for (uint32_t k = 0; f->pos && k < fr && k < 100000; k++) {
                uint32_t ps = tv_postings_next_pos(p);
                if (ps < pp) {
                    rc = tv_error_set(err, TROVE_ECORRUPT, "positions out of order");
                    goto out;
                }
                pp = ps;
            }
            if (!have_imp || d > upto) {
                upto = tv_postings_impacts(q, d, &imp, &ni);
                have_imp = true;
            }
            uint8_t norm = tv_segment_norm(s, f->id, d);
            if (upto < d || !imp_covers(imp, ni, f->index_options >= TV_IO_FREQS ? fr : 1, norm)) {
                rc = tv_error_set(err, TROVE_ECORRUPT, "impacts do not bound doc [%u]", (unsigned)d);
                goto out;
            }
        }
        if (n != st.doc_freq || (f->index_options >= TV_IO_FREQS && ttf != st.total_term_freq)) {
            rc = tv_error_set(err, TROVE_ECORRUPT, "postings disagree with term statistics");
            break;
        }
    }
    if (!rc && (nterms != f->nterms || sum_df != f->stats.sum_doc_freq ||
                sum_ttf != f->stats.sum_total_term_freq || tv_bitset_count(&seen) != f->stats.doc_count))
        rc = tv_error_set(err, TROVE_ECORRUPT, "field [%u] statistics disagree with its terms",
                          (unsigned)f->id);
out:
    tv_arena_fini(&ta);
    tv_bitset_fini(&seen);
    return rc;
}

tv_status tv_segment_check(const tv_segment *s, tv_error *err) {
    tv_arena a;
    tv_arena_init(&a);
    tv_status rc = TROVE_OK;
    for (uint32_t i = 0; i < s->nfields && !rc; i++) {
        const tv_segfield *f = &s->fields[i];
        tv_arena_reset(&a);
        if (f->terms) rc = check_terms(s, f, &a, err);
        if (rc) break;
        for (uint32_t d = 0; d < s->max_doc && !rc; d++) {
            int64_t v[8];
            uint32_t n = tv_segment_dv_numeric(s, f->id, d, v, 8);
            for (uint32_t k = 1; k < n && k < 8; k++)
                if (v[k] < v[k - 1]) rc = tv_error_set(err, TROVE_ECORRUPT, "doc values out of order");
            uint32_t o[8];
            n = tv_segment_dv_ords(s, f->id, d, o, 8);
            for (uint32_t k = 0; k < n && k < 8; k++) {
                const char *t;
                size_t tl;
                if ((k && o[k] <= o[k - 1]) || !tv_segment_dv_term(s, f->id, o[k], &t, &tl))
                    rc = tv_error_set(err, TROVE_ECORRUPT, "bad ordinals");
            }
        }
        for (uint64_t k = 1; f->has_points && k < f->pt_vals.n && !rc; k++)
            if (tv_col_get(&f->pt_vals, k) < tv_col_get(&f->pt_vals, k - 1) ||
                (uint64_t)tv_col_get(&f->pt_docs, k) >= s->max_doc)
                rc = tv_error_set(err, TROVE_ECORRUPT, "points out of order");
        for (uint32_t k = 1; f->has_dvs && k < f->dvs_nords && !rc; k++) {
            const char *t0, *t1;
            size_t l0, l1;
            if (!tv_segment_dv_term(s, f->id, k - 1, &t0, &l0) ||
                !tv_segment_dv_term(s, f->id, k, &t1, &l1) || tv_memcmp2(t0, l0, t1, l1) >= 0)
                rc = tv_error_set(err, TROVE_ECORRUPT, "doc value terms out of order");
        }
        if (rc) break;
        tv_postings *p = tv_postings_field_docs(s, f->id, &a);
        if (p) {
            uint64_t n = 0;
            for (uint32_t d = tv_postings_next(p); d != TV_NO_MORE_DOCS; d = tv_postings_next(p)) n++;
            if (n != f->fdocs_count) rc = tv_error_set(err, TROVE_ECORRUPT, "field docs count");
        }
    }
    for (uint32_t d = 0; d < s->max_doc && !rc; d++) {
        tv_arena_reset(&a);
        tv_doc_meta m;
        const char *src;
        size_t sl;
        rc = tv_segment_doc(s, d, &a, &m, &src, &sl);
        if (rc == TROVE_ECORRUPT) tv_error_set(err, rc, "stored document [%u] unreadable", (unsigned)d);
    }
    tv_arena_fini(&a);
    return rc;
}
