/* test_index_segment.c — segment builder, reader, merge and corruption,
 * checked against a brute-force model of random documents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "index/segment_int.h"

/* ------------------------------------------------------------------ model */

enum { F_TEXT = 0, F_KW = 1, F_NUM = 2, F_FREQ = 5 };
#define NVOCAB 400
#define MAXTOK 64

typedef struct mdoc {
    char id[24];
    char routing[8];
    bool has_routing;
    char *source;
    size_t source_len;
    bool has_source;
    int64_t version, seq, pterm;
    /* text field: positions with positions, norms */
    uint32_t ntext;
    uint32_t text[MAXTOK]; /* vocab ids, position = index * step */
    uint32_t step;
    bool text_present;
    /* freq-only text, no norms */
    uint32_t nfreq;
    uint32_t freq[8];
    /* keyword: docs-only postings + sorted set */
    uint32_t nkw;
    uint32_t kw[4];
    /* numeric */
    uint32_t nnum;
    int64_t num[4];
} mdoc;

static char vocab[NVOCAB][16];
static uint32_t vocab_len[NVOCAB];

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static uint32_t rndn(uint32_t n) { return (uint32_t)(rnd() % n); }
/* skewed choice: small ids are frequent (long postings) */
static uint32_t zipf(void) {
    uint32_t r = rndn(1000);
    if (r < 300) return rndn(4);
    if (r < 600) return rndn(30);
    return rndn(NVOCAB);
}

static void init_vocab(void) {
    for (int i = 0; i < NVOCAB; i++) {
        /* shared prefixes to exercise prefix compression */
        int n = snprintf(vocab[i], sizeof vocab[i], "%s%03d%s", i % 3 ? "ab" : "b", i,
                         i % 7 == 0 ? "zz" : "");
        vocab_len[i] = (uint32_t)n;
    }
}

static void gen_doc(mdoc *d, uint32_t i) {
    memset(d, 0, sizeof *d);
    snprintf(d->id, sizeof d->id, "doc-%u-%u", i, (unsigned)(rnd() % 1000));
    d->has_routing = rndn(5) == 0;
    if (d->has_routing) snprintf(d->routing, sizeof d->routing, "r%u", rndn(100));
    d->version = 1 + rndn(5);
    d->seq = i * 3 + rndn(3);
    d->pterm = 1 + rndn(2);
    d->has_source = rndn(10) != 0;
    if (d->has_source) {
        size_t n = rndn(10) == 0 ? 5000 + rndn(20000) : rndn(300);
        d->source = malloc(n + 1);
        for (size_t k = 0; k < n; k++) d->source[k] = (char)('a' + (k * 7 + i) % 26);
        d->source_len = n;
    }
    d->text_present = rndn(8) != 0;
    if (d->text_present) {
        d->ntext = rndn(MAXTOK);
        d->step = 1 + rndn(2);
        for (uint32_t k = 0; k < d->ntext; k++) d->text[k] = zipf();
    }
    d->nfreq = rndn(9);
    for (uint32_t k = 0; k < d->nfreq; k++) d->freq[k] = rndn(6);
    d->nkw = rndn(5);
    for (uint32_t k = 0; k < d->nkw; k++) d->kw[k] = rndn(50);
    d->nnum = rndn(4) == 0 ? 0 : 1 + rndn(3);
    for (uint32_t k = 0; k < d->nnum; k++) d->num[k] = (int64_t)rndn(2000) - 1000;
}

static void free_docs(mdoc *d, size_t n) {
    for (size_t i = 0; i < n; i++) free(d[i].source);
}

/* builds the parsed doc in arena */
static void to_parsed(const mdoc *d, tv_arena *a, tv_parsed_doc *pd, tv_doc_meta *meta) {
    memset(pd, 0, sizeof *pd);
    tv_doc_field *fs = tv_arena_calloc(a, 4, sizeof *fs);
    uint32_t nf = 0;
    if (d->text_present) {
        tv_doc_field *f = &fs[nf++];
        f->field = F_TEXT;
        f->type = TV_FT_TEXT;
        f->index_options = TV_IO_POSITIONS;
        f->norms = true;
        tv_token *t = tv_arena_calloc(a, d->ntext + 1, sizeof *t);
        for (uint32_t k = 0; k < d->ntext; k++) {
            t[k].term = vocab[d->text[k]];
            t[k].term_len = vocab_len[d->text[k]];
            t[k].position = k * d->step;
        }
        f->tokens = t;
        f->ntokens = d->ntext;
        f->field_length = d->ntext;
    }
    if (d->nkw) {
        tv_doc_field *f = &fs[nf++];
        f->field = F_KW;
        f->type = TV_FT_KEYWORD;
        f->index_options = TV_IO_DOCS;
        f->dv_kind = TV_DV_SORTED_SET;
        tv_token *t = tv_arena_calloc(a, d->nkw, sizeof *t);
        const char **keys = tv_arena_calloc(a, d->nkw, sizeof *keys);
        uint32_t *lens = tv_arena_calloc(a, d->nkw, sizeof *lens);
        for (uint32_t k = 0; k < d->nkw; k++) {
            t[k].term = keys[k] = vocab[d->kw[k]];
            t[k].term_len = lens[k] = vocab_len[d->kw[k]];
            t[k].position = k;
        }
        f->tokens = t;
        f->ntokens = d->nkw;
        f->keys = keys;
        f->key_lens = lens;
        f->nkeys = d->nkw;
    }
    if (d->nnum) {
        tv_doc_field *f = &fs[nf++];
        f->field = F_NUM;
        f->type = TV_FT_LONG;
        f->dv_kind = TV_DV_NUMERIC;
        f->nums = d->num;
        f->nnums = d->nnum;
    }
    if (d->nfreq) {
        tv_doc_field *f = &fs[nf++];
        f->field = F_FREQ;
        f->type = TV_FT_TEXT;
        f->index_options = TV_IO_FREQS;
        tv_token *t = tv_arena_calloc(a, d->nfreq, sizeof *t);
        for (uint32_t k = 0; k < d->nfreq; k++) {
            t[k].term = vocab[d->freq[k]];
            t[k].term_len = vocab_len[d->freq[k]];
            t[k].position = k;
        }
        f->tokens = t;
        f->ntokens = d->nfreq;
        f->field_length = d->nfreq;
    }
    pd->fields = fs;
    pd->nfields = nf;
    pd->source = d->has_source ? d->source : NULL;
    pd->source_len = d->has_source ? d->source_len : 0;
    memset(meta, 0, sizeof *meta);
    meta->id = d->id;
    meta->id_len = (uint32_t)strlen(d->id);
    meta->routing = d->has_routing ? d->routing : NULL;
    meta->routing_len = d->has_routing ? (uint32_t)strlen(d->routing) : 0;
    meta->version = d->version;
    meta->seq_no = d->seq;
    meta->primary_term = d->pterm;
}

static tv_segment *build(mdoc **docs, size_t n) {
    tv_segment_builder *b = tv_segment_builder_new();
    assert_non_null(b);
    tv_arena a;
    tv_arena_init(&a);
    for (size_t i = 0; i < n; i++) {
        tv_parsed_doc pd;
        tv_doc_meta meta;
        tv_arena_reset(&a);
        to_parsed(docs[i], &a, &pd, &meta);
        uint32_t id;
        assert_int_equal(tv_segment_builder_add(b, &pd, &meta, &id), TROVE_OK);
        assert_int_equal(id, (uint32_t)i);
    }
    assert_int_equal(tv_segment_builder_docs(b), (uint32_t)n);
    tv_segment *s = NULL;
    assert_int_equal(tv_segment_builder_finish(b, &s), TROVE_OK);
    assert_int_equal(tv_segment_builder_docs(b), 0);
    tv_segment_builder_free(b);
    tv_arena_fini(&a);
    return s;
}

/* model queries */
static uint32_t m_text_freq(const mdoc *d, uint32_t term, uint32_t *pos) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < d->ntext; k++)
        if (d->text[k] == term) {
            if (pos) pos[n] = k * d->step;
            n++;
        }
    return n;
}
static uint32_t m_freq_freq(const mdoc *d, uint32_t term) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < d->nfreq; k++) n += d->freq[k] == term;
    return n;
}
static uint32_t m_kw_has(const mdoc *d, uint32_t term) {
    for (uint32_t k = 0; k < d->nkw; k++)
        if (d->kw[k] == term) return 1;
    return 0;
}
static uint32_t m_freq(const mdoc *d, uint32_t field, uint32_t term, uint32_t *pos) {
    if (field == F_TEXT) return m_text_freq(d, term, pos);
    if (field == F_FREQ) return m_freq_freq(d, term);
    return m_kw_has(d, term);
}

static int cmp_vocab(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return tv_memcmp2(vocab[x], vocab_len[x], vocab[y], vocab_len[y]);
}

/* norm byte per Lucene's SmallFloat.intToByte4, independently computed */
static uint8_t ref_norm(uint32_t len) {
    if (len < 24) return (uint8_t)len;
    uint64_t i = len - 24;
    int nb = i ? 64 - __builtin_clzll(i) : 0;
    if (nb < 4) return (uint8_t)(24 + i);
    int shift = nb - 4;
    return (uint8_t)(24 + (((i >> shift) & 7) | ((uint64_t)(shift + 1) << 3)));
}

/* ------------------------------------------------------------- verification */

static void verify(const tv_segment *s, mdoc **docs, size_t n) {
    tv_arena a;
    tv_arena_init(&a);
    assert_int_equal(tv_segment_max_doc(s), (uint32_t)n);
    /* stored */
    for (size_t i = 0; i < n; i++) {
        tv_arena_reset(&a);
        tv_doc_meta m;
        const char *src;
        size_t sl;
        assert_int_equal(tv_segment_doc(s, (uint32_t)i, &a, &m, &src, &sl), TROVE_OK);
        assert_int_equal(m.id_len, strlen(docs[i]->id));
        assert_memory_equal(m.id, docs[i]->id, m.id_len);
        assert_int_equal(m.version, docs[i]->version);
        assert_int_equal(m.seq_no, docs[i]->seq);
        assert_int_equal(m.primary_term, docs[i]->pterm);
        if (docs[i]->has_routing) {
            assert_non_null(m.routing);
            assert_string_equal(m.routing, docs[i]->routing);
        } else {
            assert_null(m.routing);
        }
        if (docs[i]->has_source) {
            assert_non_null(src);
            assert_int_equal(sl, docs[i]->source_len);
            if (sl) assert_memory_equal(src, docs[i]->source, sl);
        } else {
            assert_null(src);
        }
        /* _id lookup: the filter never rules out an id the segment holds */
        tv_term_state st;
        assert_true(tv_segment_id_maybe(s, docs[i]->id, strlen(docs[i]->id)));
        assert_true(tv_segment_term(s, TV_FIELD_ID, docs[i]->id, strlen(docs[i]->id), &st));
        assert_int_equal(st.doc_freq, 1);
        tv_postings *p = tv_postings_open(s, TV_FIELD_ID, &st, 0, &a);
        assert_int_equal(tv_postings_next(p), (uint32_t)i);
        assert_int_equal(tv_postings_next(p), TV_NO_MORE_DOCS);
    }
    assert_int_equal(tv_segment_doc(s, (uint32_t)n, &a, NULL, NULL, NULL), TROVE_EARG);
    /* postings fields */
    static const uint32_t fields[] = {F_TEXT, F_FREQ, F_KW};
    uint32_t *mdocs = malloc(n * sizeof *mdocs), *mfreq = malloc(n * sizeof *mfreq);
    for (size_t fi = 0; fi < 3; fi++) {
        uint32_t field = fields[fi];
        tv_field_stats fs = {0};
        uint64_t sum_df = 0, sum_ttf = 0, doc_count = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t len = field == F_TEXT ? docs[i]->ntext : field == F_FREQ ? docs[i]->nfreq : docs[i]->nkw;
            doc_count += len > 0;
        }
        uint32_t present[NVOCAB], np = 0;
        for (uint32_t t = 0; t < NVOCAB; t++) {
            tv_arena_reset(&a);
            uint32_t df = 0;
            uint64_t ttf = 0;
            for (size_t i = 0; i < n; i++) {
                uint32_t f = m_freq(docs[i], field, t, NULL);
                if (f) {
                    mdocs[df] = (uint32_t)i;
                    mfreq[df++] = f;
                    ttf += f;
                }
            }
            tv_term_state st;
            bool found = tv_segment_term(s, field, vocab[t], vocab_len[t], &st);
            assert_int_equal(found, df > 0);
            if (!df) continue;
            present[np++] = t;
            sum_df += df;
            sum_ttf += field == F_KW ? df : ttf;
            assert_int_equal(st.doc_freq, df);
            assert_int_equal(st.total_term_freq, field == F_KW ? df : ttf);
            /* next, freqs, positions */
            tv_postings *p = tv_postings_open(s, field, &st, TV_POST_FREQS | TV_POST_POSITIONS, &a);
            assert_int_equal(tv_postings_cost(p), df);
            for (uint32_t k = 0; k < df; k++) {
                assert_int_equal(tv_postings_next(p), mdocs[k]);
                assert_int_equal(tv_postings_doc(p), mdocs[k]);
                assert_int_equal(tv_postings_freq(p), field == F_KW ? 1 : mfreq[k]);
                if (field == F_TEXT && (k % 3) == 0) { /* read positions of some docs only */
                    uint32_t pos[MAXTOK];
                    m_text_freq(docs[mdocs[k]], t, pos);
                    for (uint32_t q = 0; q < mfreq[k]; q++) assert_int_equal(tv_postings_next_pos(p), pos[q]);
                }
            }
            assert_int_equal(tv_postings_next(p), TV_NO_MORE_DOCS);
            assert_int_equal(tv_postings_next(p), TV_NO_MORE_DOCS);
            /* advance to random targets, mixed with next */
            p = tv_postings_open(s, field, &st, field == F_TEXT ? TV_POST_POSITIONS : 0, &a);
            uint32_t cur = 0;
            bool started = false;
            for (int step = 0; step < 60; step++) {
                uint32_t target = (started ? cur + 1 : 0) + rndn((uint32_t)n / 8 + 2);
                uint32_t got;
                if (rndn(4) == 0 && started) {
                    got = tv_postings_next(p);
                    target = cur + 1;
                } else {
                    got = tv_postings_advance(p, target);
                }
                uint32_t k = 0;
                while (k < df && mdocs[k] < target) k++;
                uint32_t want = k < df ? mdocs[k] : TV_NO_MORE_DOCS;
                assert_int_equal(got, want);
                if (got == TV_NO_MORE_DOCS) break;
                if (field == F_TEXT && rndn(2)) {
                    uint32_t pos[MAXTOK];
                    uint32_t fr = m_text_freq(docs[got], t, pos);
                    for (uint32_t q = 0; q < fr; q++) assert_int_equal(tv_postings_next_pos(p), pos[q]);
                }
                cur = got;
                started = true;
            }
            /* impacts bound every doc of their block */
            p = tv_postings_open(s, field, &st, TV_POST_FREQS | TV_POST_IMPACTS, &a);
            uint32_t k = 0;
            uint32_t target = 0;
            while (k < df) {
                const tv_impact *imp;
                size_t ni;
                uint32_t upto = tv_postings_impacts(p, target, &imp, &ni);
                assert_true(upto >= mdocs[k]);
                assert_true(ni >= 1);
                for (; k < df && mdocs[k] <= upto; k++) {
                    uint8_t norm = tv_segment_norm(s, field, mdocs[k]);
                    uint32_t fr = field == F_KW ? 1 : mfreq[k];
                    bool ok = false;
                    for (size_t q = 0; q < ni; q++) ok |= imp[q].freq >= fr && imp[q].norm <= norm;
                    assert_true(ok);
                }
                if (upto == TV_NO_MORE_DOCS) break;
                target = upto + 1;
            }
            assert_int_equal(k, df);
            const tv_impact *imp;
            size_t ni;
            assert_int_equal(tv_postings_impacts(p, mdocs[df - 1] + 1, &imp, &ni), TV_NO_MORE_DOCS);
            assert_int_equal(ni, 0);
        }
        assert_true(tv_segment_field_stats(s, field, &fs));
        assert_int_equal(fs.doc_count, doc_count);
        assert_int_equal(fs.sum_doc_freq, sum_df);
        assert_int_equal(fs.sum_total_term_freq, sum_ttf);
        /* enumeration and seek */
        qsort(present, np, sizeof present[0], cmp_vocab);
        tv_arena_reset(&a);
        tv_terms_iter *it = tv_terms_iter_new(s, field, &a);
        assert_non_null(it);
        const char *term;
        size_t tl;
        tv_term_state st;
        for (uint32_t k = 0; k < np; k++) {
            assert_true(tv_terms_iter_next(it, &term, &tl, &st));
            assert_int_equal(tl, vocab_len[present[k]]);
            assert_memory_equal(term, vocab[present[k]], tl);
            size_t sh = 0;
            if (k) /* the bytes shared with the term before (block starts may say less) */
                while (sh < tl && sh < vocab_len[present[k - 1]] && vocab[present[k - 1]][sh] == term[sh]) sh++;
            assert_true(tv_terms_iter_shared(it) <= sh);
            assert_memory_equal(term, vocab[present[k - (k > 0)]], tv_terms_iter_shared(it));
        }
        assert_false(tv_terms_iter_next(it, &term, &tl, &st));
        /* next_match: the terms under a prefix ending with a suffix, and
         * what each shares with the one returned before it */
        for (int q = 0; q < 60; q++) {
            char pre[8], suf[4];
            size_t pl = 0, sl = rndn(3);
            if (q % 3) pl = (size_t)snprintf(pre, sizeof pre, "%s", q % 3 == 1 ? "ab" : "ab1");
            for (size_t i = 0; i < sl; i++) suf[i] = (char)('0' + rndn(10));
            tv_terms_iter_seek(it, pre, pl);
            const char *prev = NULL;
            size_t prev_len = 0;
            char prev_buf[64];
            for (uint32_t k = 0; k < np; k++) {
                const char *v = vocab[present[k]];
                size_t vl = vocab_len[present[k]];
                if (tv_memcmp2(v, vl, pre, pl) < 0) continue;
                if (vl < pl || memcmp(v, pre, pl) != 0) break;
                if (vl < sl || memcmp(v + vl - sl, suf, sl) != 0) continue;
                assert_true(tv_terms_iter_next_match(it, pre, pl, suf, sl, &term, &tl, &st));
                assert_int_equal(tl, vl);
                assert_memory_equal(term, v, tl);
                size_t sh = 0;
                while (prev && sh < tl && sh < prev_len && prev[sh] == term[sh]) sh++;
                assert_true(tv_terms_iter_shared(it) <= sh);
                memcpy(prev_buf, term, tl);
                prev = prev_buf;
                prev_len = tl;
            }
            assert_false(tv_terms_iter_next_match(it, pre, pl, suf, sl, &term, &tl, &st));
        }
        for (int q = 0; q < 200; q++) {
            char target[20];
            size_t len;
            if (rndn(2)) {
                uint32_t v = rndn(NVOCAB);
                len = vocab_len[v] - rndn(3);
                memcpy(target, vocab[v], len);
            } else {
                len = (size_t)snprintf(target, sizeof target, "%s%u", rndn(2) ? "ab" : "", rndn(500));
            }
            if (q == 0) len = 0;
            if (q == 1) len = (size_t)snprintf(target, sizeof target, "zzzz");
            tv_terms_iter_seek(it, target, len);
            uint32_t k = 0;
            while (k < np && tv_memcmp2(vocab[present[k]], vocab_len[present[k]], target, len) < 0) k++;
            for (int r = 0; r < 3; r++, k++) {
                bool got = tv_terms_iter_next(it, &term, &tl, &st);
                assert_int_equal(got, k < np);
                if (!got) break;
                assert_int_equal(tl, vocab_len[present[k]]);
                assert_memory_equal(term, vocab[present[k]], tl);
                tv_term_state st2;
                assert_true(tv_segment_term(s, field, term, tl, &st2));
                assert_int_equal(st2.doc_freq, st.doc_freq);
            }
        }
        /* absent terms */
        tv_term_state st3;
        assert_false(tv_segment_term(s, field, "", 0, &st3));
        assert_false(tv_segment_term(s, field, "ab0", 3, &st3));
        assert_false(tv_segment_term(s, field, "zzzzzz", 6, &st3));
    }
    /* norms */
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(tv_segment_norm(s, F_TEXT, (uint32_t)i),
                         docs[i]->text_present ? ref_norm(docs[i]->ntext) : 0);
        assert_int_equal(tv_segment_norm(s, F_KW, (uint32_t)i), 0);
    }
    /* numeric doc values */
    for (size_t i = 0; i < n; i++) {
        int64_t v[8], want[4];
        uint32_t c = tv_segment_dv_numeric(s, F_NUM, (uint32_t)i, v, 8);
        assert_int_equal(c, docs[i]->nnum);
        memcpy(want, docs[i]->num, sizeof want);
        for (uint32_t x = 0; x < c; x++)
            for (uint32_t y = x + 1; y < c; y++)
                if (want[y] < want[x]) {
                    int64_t tmp = want[x];
                    want[x] = want[y];
                    want[y] = tmp;
                }
        for (uint32_t x = 0; x < c; x++) assert_int_equal(v[x], want[x]);
        assert_int_equal(tv_segment_dv_numeric(s, F_TEXT, (uint32_t)i, v, 8), 0);
    }
    /* sorted set */
    uint32_t nords = tv_segment_dv_ord_count(s, F_KW);
    for (uint32_t o = 1; o < nords; o++) {
        const char *t0, *t1;
        size_t l0, l1;
        assert_true(tv_segment_dv_term(s, F_KW, o - 1, &t0, &l0));
        assert_true(tv_segment_dv_term(s, F_KW, o, &t1, &l1));
        assert_true(tv_memcmp2(t0, l0, t1, l1) < 0);
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t o[8];
        uint32_t c = tv_segment_dv_ords(s, F_KW, (uint32_t)i, o, 8);
        uint32_t distinct = 0;
        for (uint32_t t = 0; t < NVOCAB; t++) distinct += m_kw_has(docs[i], t);
        assert_int_equal(c, distinct);
        for (uint32_t x = 0; x < c; x++) {
            const char *t;
            size_t l;
            assert_true(tv_segment_dv_term(s, F_KW, o[x], &t, &l));
            if (x) assert_true(o[x] > o[x - 1]);
            bool in = false;
            for (uint32_t k = 0; k < docs[i]->nkw; k++)
                in |= l == vocab_len[docs[i]->kw[k]] && memcmp(t, vocab[docs[i]->kw[k]], l) == 0;
            assert_true(in);
        }
    }
    /* points */
    for (int q = 0; q < 50; q++) {
        int64_t lo = (int64_t)rndn(2400) - 1200, hi = lo + rndn(300);
        if (q == 0) lo = INT64_MIN, hi = INT64_MAX;
        tv_bitset bs;
        assert_true(tv_bitset_init(&bs, n));
        assert_int_equal(tv_segment_points_range(s, F_NUM, lo, hi, &bs), TROVE_OK);
        for (size_t i = 0; i < n; i++) {
            bool want = false;
            for (uint32_t k = 0; k < docs[i]->nnum; k++) want |= docs[i]->num[k] >= lo && docs[i]->num[k] <= hi;
            assert_int_equal(tv_bitset_get(&bs, i), want);
        }
        tv_bitset_fini(&bs);
    }
    /* field docs (exists) */
    static const uint32_t all_fields[] = {F_TEXT, F_KW, F_NUM, F_FREQ};
    for (size_t fi = 0; fi < 4; fi++) {
        tv_arena_reset(&a);
        tv_postings *p = tv_postings_field_docs(s, all_fields[fi], &a);
        uint32_t cnt = 0;
        for (size_t i = 0; i < n; i++) {
            const mdoc *d = docs[i];
            bool has = all_fields[fi] == F_TEXT ? d->ntext > 0
                     : all_fields[fi] == F_KW   ? d->nkw > 0
                     : all_fields[fi] == F_NUM  ? d->nnum > 0
                                                : d->nfreq > 0;
            if (!has) continue;
            cnt++;
            assert_non_null(p);
            assert_int_equal(tv_postings_next(p), (uint32_t)i);
        }
        if (p) {
            assert_int_equal(tv_postings_next(p), TV_NO_MORE_DOCS);
            assert_int_equal(tv_postings_cost(p), cnt);
            /* advance */
            p = tv_postings_field_docs(s, all_fields[fi], &a);
            uint32_t target = rndn(10);
            uint32_t got = tv_postings_advance(p, target);
            size_t i = target;
            while (i < n && !(all_fields[fi] == F_TEXT ? docs[i]->ntext > 0
                              : all_fields[fi] == F_KW ? docs[i]->nkw > 0
                              : all_fields[fi] == F_NUM ? docs[i]->nnum > 0
                                                        : docs[i]->nfreq > 0))
                i++;
            assert_int_equal(got, i < n ? (uint32_t)i : TV_NO_MORE_DOCS);
        }
    }
    assert_null(tv_postings_field_docs(s, 77, &a));
    assert_false(tv_segment_field_stats(s, 77, &(tv_field_stats){0}));
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_segment_check(s, &err), TROVE_OK);
    free(mdocs);
    free(mfreq);
    tv_arena_fini(&a);
}

static mdoc *gen_docs(size_t n) {
    mdoc *d = calloc(n, sizeof *d);
    for (size_t i = 0; i < n; i++) gen_doc(&d[i], (uint32_t)i);
    return d;
}

static mdoc **ptrs(mdoc *d, size_t n) {
    mdoc **p = malloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++) p[i] = &d[i];
    return p;
}

/* ------------------------------------------------------------------ tests */

static void test_build_and_read(void **state) {
    (void)state;
    static const size_t sizes[] = {1, 2, 127, 128, 129, 3000};
    for (size_t si = 0; si < TV_ARRAY_LEN(sizes); si++) {
        size_t n = sizes[si];
        mdoc *d = gen_docs(n);
        mdoc **p = ptrs(d, n);
        tv_segment *s = build(p, n);
        assert_non_null(s);
        verify(s, p, n);
        /* the same bytes through tv_segment_open */
        size_t len;
        const void *bytes = tv_segment_bytes_ptr(s, &len);
        assert_int_equal(len, tv_segment_bytes(s));
        tv_segment *s2;
        tv_error err = TV_ERROR_INIT;
        assert_int_equal(tv_segment_open(bytes, len, &s2, &err), TROVE_OK);
        assert_true(tv_segment_id(s2) != tv_segment_id(s));
        verify(s2, p, n);
        assert_ptr_equal(tv_segment_retain(s2), s2);
        tv_segment_release(s2);
        tv_segment_release(s2);
        tv_segment_release(s);
        tv_segment_release(NULL);
        free(p);
        free_docs(d, n);
        free(d);
    }
}

/* The _id filter rules out nearly every id a segment does not hold (about
 * 1% false positives by design; 3% allowed here), and all of them in an
 * empty segment. */
static void test_id_filter(void **state) {
    (void)state;
    size_t n = 3000;
    mdoc *d = gen_docs(n);
    mdoc **p = ptrs(d, n);
    tv_segment *s = build(p, n);
    assert_non_null(s);
    int fp = 0;
    char id[32];
    for (int i = 0; i < 10000; i++) {
        snprintf(id, sizeof id, "absent-%d", i);
        tv_term_state st;
        assert_false(tv_segment_term(s, TV_FIELD_ID, id, strlen(id), &st));
        fp += tv_segment_id_maybe(s, id, strlen(id));
    }
    assert_true(fp < 300);
    for (size_t i = 0; i < n; i++) assert_true(tv_segment_id_maybe(s, p[i]->id, strlen(p[i]->id)));
    tv_segment_release(s);
    free(p);
    free_docs(d, n);
    free(d);
}

static void test_empty_builder(void **state) {
    (void)state;
    tv_segment_builder *b = tv_segment_builder_new();
    tv_segment *s = (tv_segment *)1;
    assert_int_equal(tv_segment_builder_finish(b, &s), TROVE_OK);
    assert_null(s);
    tv_segment_builder_free(b);
    tv_segment_builder_free(NULL);
}

/* A dense term (every doc) and a long field: blocks of bit width 0, and
 * freqs/positions of many occurrences. */
/* Adds doc (its _id the decimal number) with one text field, 3, of n
 * tokens with positions, and optionally a _source. */
static void add_text_doc(tv_segment_builder *b, uint32_t doc, tv_token *t, uint32_t n, const char *src,
                         size_t src_len) {
    tv_doc_field f = {.field = 3, .type = TV_FT_TEXT, .index_options = TV_IO_POSITIONS,
                      .norms = true, .tokens = t, .ntokens = n, .field_length = n};
    char id[16];
    snprintf(id, sizeof id, "%u", doc);
    tv_parsed_doc pd = {.fields = &f, .nfields = 1, .source = src, .source_len = src_len};
    tv_doc_meta m = {.id = id, .id_len = (uint32_t)strlen(id), .version = 1};
    assert_int_equal(tv_segment_builder_add(b, &pd, &m, NULL), TROVE_OK);
}

static void test_dense_and_long(void **state) {
    (void)state;
    tv_segment_builder *b = tv_segment_builder_new();
    tv_arena a;
    tv_arena_init(&a);
    enum { N = 1000, L = 300 };
    for (uint32_t i = 0; i < N; i++) {
        tv_arena_reset(&a);
        uint32_t nt = i == 500 ? L : 1;
        tv_token *t = tv_arena_calloc(&a, nt, sizeof *t);
        for (uint32_t k = 0; k < nt; k++) {
            t[k].term = "the";
            t[k].term_len = 3;
            t[k].position = k * 5;
        }
        add_text_doc(b, i, t, nt, NULL, 0);
    }
    tv_segment *s;
    assert_int_equal(tv_segment_builder_finish(b, &s), TROVE_OK);
    tv_term_state st;
    assert_true(tv_segment_term(s, 3, "the", 3, &st));
    assert_int_equal(st.doc_freq, N);
    assert_int_equal(st.total_term_freq, N - 1 + L);
    tv_postings *p = tv_postings_open(s, 3, &st, TV_POST_POSITIONS, &a);
    assert_int_equal(tv_postings_advance(p, 500), 500);
    assert_int_equal(tv_postings_freq(p), L);
    for (uint32_t k = 0; k < L; k++) assert_int_equal(tv_postings_next_pos(p), k * 5);
    assert_int_equal(tv_postings_next(p), 501);
    assert_int_equal(tv_postings_freq(p), 1);
    assert_int_equal(tv_postings_next_pos(p), 0);
    const tv_impact *imp;
    size_t ni;
    uint32_t upto = tv_postings_impacts(p, 400, &imp, &ni);
    assert_int_equal(upto, 511);
    bool has_long = false;
    for (size_t k = 0; k < ni; k++) has_long |= imp[k].freq == L;
    assert_true(has_long);
    assert_int_equal(tv_postings_advance(p, N - 1), N - 1);
    assert_int_equal(tv_postings_next(p), TV_NO_MORE_DOCS);
    /* freq without TV_POST_FREQS is 1 */
    p = tv_postings_open(s, 3, &st, 0, &a);
    assert_int_equal(tv_postings_advance(p, 500), 500);
    assert_int_equal(tv_postings_freq(p), 1);
    tv_segment_release(s);
    tv_segment_builder_free(b);
    tv_arena_fini(&a);
}

/* Tokens reach the builder in any order: interleaved terms, positions out
 * of order and repeated (a synonym at the same position). Postings group
 * each term's occurrences with ascending positions, and _source of docs
 * spread over many chunks reads back whole. */
static void test_token_order_and_chunks(void **state) {
    (void)state;
    tv_segment_builder *b = tv_segment_builder_new();
    tv_arena a;
    tv_arena_init(&a);
    enum { N = 300 };
    static const char *terms[] = {"b", "a", "b", "c", "a", "b", "a"};
    static const uint32_t poss[] = {9, 4, 2, 0, 4, 7, 1};
    char src[2048];
    for (uint32_t i = 0; i < N; i++) {
        tv_token t[7];
        memset(t, 0, sizeof t);
        for (uint32_t k = 0; k < 7; k++) {
            t[k].term = terms[k];
            t[k].term_len = 1;
            t[k].position = poss[k] + (i & 1);
        }
        int n = snprintf(src, sizeof src, "{\"i\":%u,\"pad\":\"", i);
        uint32_t pad = 100 + (i * 37) % 1500;
        for (uint32_t k = 0; k < pad; k++) src[n++] = (char)('a' + (i + k) % 26);
        n += snprintf(src + n, sizeof src - (size_t)n, "\"}");
        add_text_doc(b, i, t, 7, src, (size_t)n);
    }
    tv_segment *s;
    assert_int_equal(tv_segment_builder_finish(b, &s), TROVE_OK);
    assert_true(s->nchunks > 10);
    static const char *want_t[] = {"a", "b", "c"};
    static const uint32_t want_f[] = {3, 3, 1};
    static const uint32_t want_p[3][3] = {{1, 4, 4}, {2, 7, 9}, {0, 0, 0}};
    for (uint32_t w = 0; w < 3; w++) {
        tv_term_state st;
        assert_true(tv_segment_term(s, 3, want_t[w], 1, &st));
        assert_int_equal(st.doc_freq, N);
        tv_postings *p = tv_postings_open(s, 3, &st, TV_POST_POSITIONS, &a);
        for (uint32_t d = 0; d < N; d++) {
            assert_int_equal(tv_postings_next(p), d);
            assert_int_equal(tv_postings_freq(p), want_f[w]);
            for (uint32_t k = 0; k < want_f[w]; k++)
                assert_int_equal(tv_postings_next_pos(p), want_p[w][k] + (d & 1));
        }
        assert_int_equal(tv_postings_next(p), TV_NO_MORE_DOCS);
    }
    for (uint32_t i = 0; i < N; i++) {
        const char *got;
        size_t len;
        tv_doc_meta m;
        assert_int_equal(tv_segment_doc(s, i, &a, &m, &got, &len), TROVE_OK);
        int n = snprintf(src, sizeof src, "{\"i\":%u,\"pad\":\"", i);
        assert_true(len == 100 + (i * 37) % 1500 + (size_t)n + 2);
        assert_memory_equal(got, src, (size_t)n);
        assert_int_equal(got[len - 1], '}');
        assert_int_equal(got[n + 5], (char)('a' + (i + 5) % 26));
    }
    /* through a chunk cache: pages of hits in any order, each page read
     * with its highest doc as `upto` (and some pages with a wrong, too low
     * upto, which must cost a decompression, never a wrong source) give
     * the bytes tv_segment_doc gives */
    uint64_t seed = 12345;
    for (int page = 0; page < 200; page++) {
        tv_stored_cache cache;
        tv_stored_cache_init(&cache);
        uint32_t docs[12], upto = 0;
        for (int k = 0; k < 12; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t spread = page % 3 == 0 ? N : 40; /* clustered pages share chunks */
            docs[k] = (uint32_t)((seed >> 33) % spread + (page % 3 ? (uint32_t)page % (N - 40) : 0));
            if (docs[k] > upto) upto = docs[k];
        }
        for (int k = 0; k < 12; k++) {
            const char *want, *got;
            size_t wl, gl;
            uint32_t u = page % 7 == 0 ? docs[k] : upto;
            assert_int_equal(tv_segment_doc(s, docs[k], &a, NULL, &want, &wl), TROVE_OK);
            assert_int_equal(tv_segment_doc_cached(s, docs[k], u, &cache, &a, NULL, &got, &gl), TROVE_OK);
            assert_int_equal(gl, wl);
            assert_memory_equal(got, want, wl);
        }
    }
    tv_segment_release(s);
    tv_segment_builder_free(b);
    tv_arena_fini(&a);
}

/* Positions read a doc at a time (tv_postings_positions) equal the ones
 * read one by one, across docs an advance skips (whose positions are
 * passed chunk by chunk), with gaps of 1 to 15 bits in one chunk, docs
 * whose positions straddle two chunks of 128, and after part of a doc was
 * read with tv_postings_next_pos. */
static void test_positions_batch(void **state) {
    (void)state;
    enum { N = 400 };
    tv_segment_builder *b = tv_segment_builder_new();
    tv_arena a;
    tv_arena_init(&a);
    static uint32_t want[N][40]; /* positions stay below 2^31: 37 gaps of at most 20,000 */
    static uint32_t nwant[N];
    for (uint32_t d = 0; d < N; d++) {
        tv_token t[40];
        memset(t, 0, sizeof t);
        /* large first positions too: a chunk's width is its largest value */
        uint32_t f = 1 + (d * 7) % 37, pos = d % 3 == 0 ? d % 5 : d % 3 == 1 ? 200 + d : 30000 + d;
        for (uint32_t k = 0; k < f; k++) {
            t[k].term = "x";
            t[k].term_len = 1;
            t[k].position = pos;
            want[d][k] = pos;
            uint32_t gap = (d + k) % 3 == 0 ? 20000 : (d + k) % 3 == 1 ? 300 : 1 + (k % 3);
            pos += gap;
        }
        nwant[d] = f;
        add_text_doc(b, d, t, f, NULL, 0);
    }
    tv_segment *s;
    assert_int_equal(tv_segment_builder_finish(b, &s), TROVE_OK);
    for (uint32_t stride = 1; stride <= 5; stride += 2) {
        tv_term_state st;
        assert_true(tv_segment_term(s, 3, "x", 1, &st));
        tv_postings *p = tv_postings_open(s, 3, &st, TV_POST_FREQS | TV_POST_POSITIONS, &a);
        uint32_t got[40];
        for (uint32_t d = tv_postings_next(p); d != TV_NO_MORE_DOCS;
             d = d + stride < N ? tv_postings_advance(p, d + stride) : TV_NO_MORE_DOCS) {
            assert_int_equal(tv_postings_freq(p), nwant[d]);
            uint32_t k = 0;
            if (d % 4 == 1) /* some read one by one first */
                for (; k < nwant[d] / 2; k++) got[k] = tv_postings_next_pos(p);
            k += tv_postings_positions(p, got + k, 40 - k);
            assert_int_equal(k, nwant[d]);
            assert_memory_equal(got, want[d], k * sizeof *got);
            assert_int_equal(tv_postings_positions(p, got, 40), 0); /* nothing left */
        }
    }
    tv_segment_release(s);
    tv_segment_builder_free(b);
    tv_arena_fini(&a);
}

static void test_merge_equals_fresh_build(void **state) {
    (void)state;
    for (int round = 0; round < 3; round++) {
        size_t sizes[3] = {300 + rndn(400), 1 + rndn(50), 200 + rndn(300)};
        mdoc *d[3];
        tv_segment *segs[3];
        tv_segview views[3];
        uint64_t *live[3];
        mdoc **kept = malloc((sizes[0] + sizes[1] + sizes[2]) * sizeof *kept);
        size_t nk = 0;
        for (int k = 0; k < 3; k++) {
            d[k] = gen_docs(sizes[k]);
            mdoc **p = ptrs(d[k], sizes[k]);
            segs[k] = build(p, sizes[k]);
            free(p);
            live[k] = calloc((sizes[k] + 63) / 64, 8);
            uint32_t nlive = 0;
            for (size_t i = 0; i < sizes[k]; i++) {
                bool alive = round == 0 && k == 1 ? true : rndn(4) != 0;
                if (alive) {
                    live[k][i >> 6] |= 1ull << (i & 63);
                    kept[nk++] = &d[k][i];
                    nlive++;
                }
            }
            views[k] = (tv_segview){segs[k], (round == 0 && k == 1) ? NULL : live[k], 0,
                                    (uint32_t)sizes[k], nlive};
        }
        tv_segment *merged;
        assert_int_equal(tv_segment_merge(views, 3, &merged), TROVE_OK);
        tv_segment *fresh = build(kept, nk);
        size_t l1, l2;
        const void *b1 = tv_segment_bytes_ptr(merged, &l1), *b2 = tv_segment_bytes_ptr(fresh, &l2);
        assert_int_equal(l1, l2);
        assert_memory_equal(b1, b2, l1);
        verify(merged, kept, nk);
        tv_segment_release(merged);
        tv_segment_release(fresh);
        for (int k = 0; k < 3; k++) {
            tv_segment_release(segs[k]);
            free(live[k]);
            free_docs(d[k], sizes[k]);
            free(d[k]);
        }
        free(kept);
    }
}

static void test_merge_all_deleted(void **state) {
    (void)state;
    mdoc *d = gen_docs(10);
    mdoc **p = ptrs(d, 10);
    tv_segment *s = build(p, 10);
    uint64_t live = 0;
    tv_segview v = {s, &live, 0, 10, 0};
    tv_segment *m = (tv_segment *)1;
    assert_int_equal(tv_segment_merge(&v, 1, &m), TROVE_OK);
    assert_null(m);
    tv_segment_release(s);
    free(p);
    free_docs(d, 10);
    free(d);
}

/* ----------------------------------------------------------- doc blocks */

#define F_CHILD 7   /* a numeric field of the nested docs */
#define NEST_A 9    /* 1 + the field id of nested object "a" */
#define NEST_B 12   /* 1 + the field id of nested object "b" */

/* Root i of a block test gets i % 4 nested docs: alternately of "a" and
 * "b", each with child value i * 10 + k. */
static uint32_t block_kids(size_t i) { return (uint32_t)(i % 4); }

/* Builds blocks for roots d[idx[0..n)], through the builder's block add. */
static tv_segment *build_blocks(mdoc *d, const size_t *idx, size_t n) {
    tv_segment_builder *b = tv_segment_builder_new();
    assert_non_null(b);
    tv_arena a;
    tv_arena_init(&a);
    for (size_t j = 0; j < n; j++) {
        size_t i = idx[j];
        tv_parsed_doc pd;
        tv_doc_meta meta;
        tv_arena_reset(&a);
        to_parsed(&d[i], &a, &pd, &meta);
        uint32_t nk = block_kids(i);
        tv_parsed_doc *kids = tv_arena_calloc(&a, nk + 1, sizeof *kids);
        for (uint32_t k = 0; k < nk; k++) {
            tv_doc_field *fs = tv_arena_calloc(&a, 1, sizeof *fs);
            int64_t *v = tv_arena_alloc(&a, sizeof *v);
            *v = (int64_t)(i * 10 + k);
            fs[0] = (tv_doc_field){.field = F_CHILD, .type = TV_FT_LONG, .dv_kind = TV_DV_NUMERIC, .nums = v, .nnums = 1};
            kids[k] = (tv_parsed_doc){.fields = fs, .nfields = 1, .nest = k % 2 ? NEST_B : NEST_A};
        }
        pd.nested = kids;
        pd.nnested = nk;
        uint32_t id;
        assert_int_equal(tv_segment_builder_add(b, &pd, &meta, &id), TROVE_OK);
    }
    tv_segment *s = NULL;
    assert_int_equal(tv_segment_builder_finish(b, &s), TROVE_OK);
    tv_segment_builder_free(b);
    tv_arena_fini(&a);
    return s;
}

/* The block layout: nested docs then their root, nest values, roots,
 * stored data only on roots, the per-object doc bitsets. */
static void verify_blocks(const tv_segment *s, mdoc *d, const size_t *idx, size_t n) {
    uint32_t doc = 0, nroots;
    const uint64_t *roots = tv_segment_roots(s, &nroots);
    assert_int_equal(nroots, n);
    tv_arena a;
    tv_arena_init(&a);
    bool oom = false;
    const uint64_t *da = tv_segment_nest_docs(s, NEST_A, &oom), *db = tv_segment_nest_docs(s, NEST_B, &oom);
    assert_false(oom);
    assert_null(tv_segment_nest_docs(s, NEST_A + 1, &oom));
    uint32_t na = 0, nb = 0;
    for (size_t j = 0; j < n; j++) {
        size_t i = idx[j];
        for (uint32_t k = 0; k < block_kids(i); k++, doc++) {
            assert_int_equal(tv_segment_nest(s, doc), k % 2 ? NEST_B : NEST_A);
            assert_false(roots && ((roots[doc >> 6] >> (doc & 63)) & 1));
            int64_t v;
            assert_int_equal(tv_segment_dv_numeric(s, F_CHILD, doc, &v, 1), 1);
            assert_true(v == (int64_t)(i * 10 + k));
            tv_term_state id;
            tv_doc_meta m;
            const char *src;
            size_t sl;
            assert_int_equal(tv_segment_doc(s, doc, &a, &m, &src, &sl), TROVE_OK);
            assert_null(src);
            assert_int_equal(m.id_len, 0);
            assert_int_equal(m.seq_no, d[i].seq); /* the root's numbers */
            (void)id;
            const uint64_t *mine = k % 2 ? db : da, *other = k % 2 ? da : db;
            assert_true((mine[doc >> 6] >> (doc & 63)) & 1);
            assert_false(other && ((other[doc >> 6] >> (doc & 63)) & 1));
            *(k % 2 ? &nb : &na) += 1;
        }
        assert_int_equal(tv_segment_nest(s, doc), 0);
        assert_true(!roots || ((roots[doc >> 6] >> (doc & 63)) & 1));
        tv_term_state id;
        assert_true(tv_segment_term(s, TV_FIELD_ID, d[i].id, strlen(d[i].id), &id));
        assert_int_equal(id.doc_freq, 1);
        doc++;
    }
    size_t ca = 0, cb = 0;
    for (uint32_t w = 0; w < (doc + 63) / 64; w++) {
        ca += da ? (size_t)__builtin_popcountll(da[w]) : 0;
        cb += db ? (size_t)__builtin_popcountll(db[w]) : 0;
    }
    assert_int_equal(ca, na);
    assert_int_equal(cb, nb);
    assert_int_equal(tv_segment_max_doc(s), doc);
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_segment_check(s, &err), TROVE_OK);
    tv_arena_fini(&a);
}

static void test_nested_blocks(void **state) {
    (void)state;
    size_t n = 300;
    mdoc *d = gen_docs(n);
    size_t *all = malloc(n * sizeof *all), *kept = malloc(n * sizeof *kept);
    for (size_t i = 0; i < n; i++) all[i] = i;
    tv_segment *s = build_blocks(d, all, n);
    verify_blocks(s, d, all, n);
    /* reopened from its bytes */
    size_t len;
    const void *bytes = tv_segment_bytes_ptr(s, &len);
    tv_segment *s2;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_segment_open(bytes, len, &s2, &err), TROVE_OK);
    verify_blocks(s2, d, all, n);
    tv_segment_release(s2);
    /* a merge keeps the blocks of live roots whole: the same bytes as a
     * fresh build of those blocks */
    uint32_t md = tv_segment_max_doc(s);
    uint64_t *live = calloc((md + 63) / 64, 8);
    size_t nk = 0;
    uint32_t doc = 0;
    for (size_t i = 0; i < n; i++) {
        doc += block_kids(i);
        if (rndn(3) != 0) {
            live[doc >> 6] |= 1ull << (doc & 63);
            kept[nk++] = i;
        }
        doc++;
    }
    tv_segview v = {s, live, 0, md, (uint32_t)nk};
    tv_segment *merged, *fresh = build_blocks(d, kept, nk);
    assert_int_equal(tv_segment_merge(&v, 1, &merged), TROVE_OK);
    size_t l1, l2;
    const void *b1 = tv_segment_bytes_ptr(merged, &l1), *b2 = tv_segment_bytes_ptr(fresh, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(b1, b2, l1);
    verify_blocks(merged, d, kept, nk);
    tv_segment_release(merged);
    tv_segment_release(fresh);
    /* roots without nested docs: no NESTED section, every doc a root */
    size_t plain[3] = {0, 4, 8};
    tv_segment *p = build_blocks(d, plain, 3);
    uint32_t nr;
    assert_null(tv_segment_roots(p, &nr));
    assert_int_equal(nr, 3);
    tv_segment_release(p);
    tv_segment_release(s);
    free(live);
    free(all);
    free(kept);
    free_docs(d, n);
    free(d);
}

/* Reads every API over a segment that opened from damaged bytes: must not
 * crash (ASan/UBSan watch) whatever it returns. */
static void walk(const tv_segment *s) {
    tv_error err = TV_ERROR_INIT;
    (void)tv_segment_check(s, &err);
    tv_arena a;
    tv_arena_init(&a);
    static const uint32_t fields[] = {F_TEXT, F_KW, F_NUM, F_FREQ, TV_FIELD_ID};
    for (size_t fi = 0; fi < TV_ARRAY_LEN(fields); fi++) {
        uint32_t f = fields[fi];
        tv_terms_iter *it = tv_terms_iter_new(s, f, &a);
        const char *t;
        size_t tl;
        tv_term_state st;
        int cnt = 0;
        while (it && tv_terms_iter_next(it, &t, &tl, &st) && cnt++ < 2000) {
            tv_postings *p = tv_postings_open(s, f, &st, TV_POST_FREQS | TV_POST_POSITIONS, &a);
            for (uint32_t d = tv_postings_advance(p, 3); d != TV_NO_MORE_DOCS; d = tv_postings_next(p)) {
                uint32_t fr = tv_postings_freq(p);
                for (uint32_t k = 0; k < fr && k < 50; k++) tv_postings_next_pos(p);
            }
            const tv_impact *imp;
            size_t ni;
            tv_postings_impacts(p, 0, &imp, &ni);
            tv_postings_impacts(p, 200, &imp, &ni);
        }
        if (it) tv_terms_iter_seek(it, "ab1", 3);
        if (it) tv_terms_iter_next(it, &t, &tl, &st);
        tv_segment_term(s, f, "ab100", 5, &st);
        tv_postings *p = tv_postings_field_docs(s, f, &a);
        while (p && tv_postings_next(p) != TV_NO_MORE_DOCS) {
        }
        uint32_t nords = tv_segment_dv_ord_count(s, f);
        for (uint32_t o = 0; o < nords && o < 100; o++) tv_segment_dv_term(s, f, o, &t, &tl);
        tv_bitset bs;
        tv_bitset_init(&bs, tv_segment_max_doc(s));
        tv_segment_points_range(s, f, -500, 500, &bs);
        tv_bitset_fini(&bs);
        for (uint32_t d = 0; d < tv_segment_max_doc(s) && d < 300; d++) {
            int64_t v[4];
            uint32_t o[4];
            tv_segment_dv_numeric(s, f, d, v, 4);
            tv_segment_dv_ords(s, f, d, o, 4);
            tv_segment_norm(s, f, d);
        }
        tv_arena_reset(&a);
    }
    for (uint32_t d = 0; d < tv_segment_max_doc(s) && d < 300; d++) {
        tv_doc_meta m;
        const char *src;
        size_t sl;
        tv_segment_doc(s, d, &a, &m, &src, &sl);
    }
    tv_arena_fini(&a);
}

static void test_corruption(void **state) {
    (void)state;
    mdoc *d = gen_docs(400);
    mdoc **p = ptrs(d, 400);
    tv_segment *s = build(p, 400);
    size_t len;
    const uint8_t *orig = tv_segment_bytes_ptr(s, &len);
    uint8_t *buf = malloc(len);
    int opened = 0, rejected = 0;
    for (int iter = 0; iter < 300; iter++) {
        memcpy(buf, orig, len);
        size_t blen = len;
        int mode = iter % 4;
        if (mode == 0) { /* truncate */
            blen = rndn((uint32_t)len);
        } else {
            int flips = 1 + (int)rndn(4);
            for (int k = 0; k < flips; k++) buf[rndn((uint32_t)len)] ^= (uint8_t)(1u << rndn(8));
            if (mode >= 2) tv_segment_fix_checksums(buf, blen); /* reach the structural checks */
        }
        tv_segment *c = NULL;
        tv_error err = TV_ERROR_INIT;
        tv_status st = tv_segment_open(buf, blen, &c, &err);
        if (st == TROVE_OK) {
            opened++;
            walk(c);
            tv_segment_release(c);
        } else {
            assert_int_equal(st, TROVE_ECORRUPT);
            assert_int_equal(err.code, TROVE_ECORRUPT);
            rejected++;
            if (mode == 1) assert_non_null(strstr(err.reason, "corrupt segment") ? err.reason : NULL);
        }
    }
    assert_true(rejected > 0);
    assert_true(opened > 0); /* fixed checksums let some damaged segments through */
    /* unfixed bit flips are always caught by the checksums */
    for (int iter = 0; iter < 50; iter++) {
        memcpy(buf, orig, len);
        buf[rndn((uint32_t)len)] ^= 0x10;
        tv_segment *c = NULL;
        assert_int_equal(tv_segment_open(buf, len, &c, NULL), TROVE_ECORRUPT);
    }
    tv_segment *c = NULL;
    assert_int_equal(tv_segment_open("TROVESEG", 8, &c, NULL), TROVE_ECORRUPT);
    assert_int_equal(tv_segment_open("", 0, &c, NULL), TROVE_ECORRUPT);
    free(buf);
    tv_segment_release(s);
    free(p);
    free_docs(d, 400);
    free(d);
}

static void test_oom(void **state) {
    (void)state;
    mdoc *d = gen_docs(60);
    mdoc **p = ptrs(d, 60);
    int ok = 0;
    for (long fail = 0; fail < 400; fail += 7) {
        tv_segment_builder *b = tv_segment_builder_new();
        if (!b) continue;
        tv_arena a;
        tv_arena_init(&a);
        tv_alloc_fail_after(fail);
        tv_status st = TROVE_OK;
        for (size_t i = 0; i < 60 && !st; i++) {
            tv_parsed_doc pd;
            tv_doc_meta meta;
            tv_alloc_fail_after(-1);
            tv_arena_reset(&a);
            to_parsed(p[i], &a, &pd, &meta);
            tv_alloc_fail_after(fail);
            st = tv_segment_builder_add(b, &pd, &meta, NULL);
        }
        tv_segment *s = NULL;
        tv_status st2 = tv_segment_builder_finish(b, &s);
        tv_alloc_fail_after(-1);
        if (!st) st = st2;
        if (st == TROVE_OK) {
            assert_non_null(s);
            ok++;
        } else {
            assert_int_equal(st, TROVE_ENOMEM);
            assert_null(s);
        }
        tv_segment_release(s);
        tv_segment_builder_free(b);
        tv_arena_fini(&a);
    }
    (void)ok;
    /* merge and open under a failing allocator */
    tv_segment *src = build(p, 60);
    uint64_t live = ~0ull ^ 0x5;
    tv_segview v = {src, &live, 0, 60, 58};
    for (long fail = 0; fail < 600; fail += 5) {
        tv_segment *m = NULL;
        tv_alloc_fail_after(fail);
        tv_status st = tv_segment_merge(&v, 1, &m);
        tv_alloc_fail_after(-1);
        if (st == TROVE_OK) {
            assert_int_equal(tv_segment_max_doc(m), 58);
        } else {
            assert_int_equal(st, TROVE_ENOMEM);
            assert_null(m);
        }
        tv_segment_release(m);
    }
    size_t len;
    const void *bytes = tv_segment_bytes_ptr(src, &len);
    for (long fail = 0; fail < 3; fail++) {
        tv_segment *o = NULL;
        tv_error err = TV_ERROR_INIT;
        tv_alloc_fail_after(fail);
        tv_error_clear(&err);
        tv_status st = tv_segment_open(bytes, len, &o, &err);
        tv_alloc_fail_after(-1);
        assert_true(st == TROVE_OK || st == TROVE_ENOMEM);
        tv_segment_release(o);
    }
    tv_segment_release(src);
    free(p);
    free_docs(d, 60);
    free(d);
}

/* Columns store value - slope*i - min: numeric doc values on a line (up,
 * down, with noise), and lines whose residuals leave the int64 range, read
 * back exactly; seq_nos in doc order cost no bits, and ids sharing a prefix
 * are stored front-coded. */
static void test_column_lines(void **state) {
    (void)state;
    enum { N = 300 };
    static const int64_t ext[] = {INT64_MIN, INT64_MAX, -1, 0, INT64_MAX, INT64_MIN + 1};
    for (int shape = 0; shape < 4; shape++) {
        tv_segment_builder *b = tv_segment_builder_new();
        int64_t want[N];
        for (uint32_t i = 0; i < N; i++) {
            want[i] = shape == 0 ? 5 + 3 * (int64_t)i
                    : shape == 1 ? 1000000 - 7 * (int64_t)i + (int64_t)rndn(4)
                    : shape == 2 ? ext[i % TV_ARRAY_LEN(ext)]
                                 : (i < N - 1 ? INT64_MIN + (int64_t)i : INT64_MAX);
            tv_doc_field f = {.field = F_NUM, .type = TV_FT_LONG, .dv_kind = TV_DV_NUMERIC,
                              .nums = &want[i], .nnums = 1};
            char id[16];
            snprintf(id, sizeof id, "id%05u", i);
            tv_parsed_doc pd = {.fields = &f, .nfields = 1};
            tv_doc_meta m = {.id = id, .id_len = 7, .version = 1, .seq_no = i, .primary_term = 1};
            assert_int_equal(tv_segment_builder_add(b, &pd, &m, NULL), TROVE_OK);
        }
        tv_segment *s;
        assert_int_equal(tv_segment_builder_finish(b, &s), TROVE_OK);
        for (uint32_t i = 0; i < N; i++) {
            int64_t v[2];
            assert_int_equal(tv_segment_dv_numeric(s, F_NUM, i, v, 2), 1);
            assert_true(v[0] == want[i]);
        }
        if (shape == 0) {
            assert_int_equal(s->m_seq.bits, 0);
            assert_true(s->m_id_blob_len < N * 4); /* 7-byte ids front-coded */
            assert_int_equal(s->fields[0].dvn_vals.bits, 0);
        }
        tv_arena a;
        tv_arena_init(&a);
        tv_doc_meta m;
        const char *src;
        size_t sl;
        assert_int_equal(tv_segment_doc(s, N - 1, &a, &m, &src, &sl), TROVE_OK);
        assert_int_equal(m.seq_no, N - 1);
        assert_memory_equal(m.id, "id00299", 7);
        tv_arena_fini(&a);
        tv_segment_release(s);
        tv_segment_builder_free(b);
    }
}

/* With TROVE_WRITE_FUZZ_SEEDS=DIR, writes the segment fuzzer's seed files
 * (fuzz/corpus/index_segment) to DIR instead of testing: segments of model
 * docs (sources cut to 64 bytes, to keep the files small); the
 * *_fixsum ones start with 'U' so the fuzzer recomputes their checksums. */
static int write_fuzz_seeds(const char *dir) {
    static const struct { const char *name; size_t n; bool fixsum; } seeds[] = {
        {"one_doc", 1, false}, {"small", 30, false}, {"blocks", 400, false},
        {"small_fixsum", 12, true}, {"blocks_fixsum", 300, true},
    };
    for (size_t i = 0; i < TV_ARRAY_LEN(seeds); i++) {
        mdoc *d = gen_docs(seeds[i].n);
        for (size_t k = 0; k < seeds[i].n; k++)
            if (d[k].source_len > 64) d[k].source_len = 64;
        mdoc **p = ptrs(d, seeds[i].n);
        tv_segment *s = build(p, seeds[i].n);
        size_t len;
        const uint8_t *bytes = tv_segment_bytes_ptr(s, &len);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, seeds[i].name);
        FILE *f = fopen(path, "wb");
        if (!f) return 1;
        fputc(seeds[i].fixsum ? 'U' : bytes[0], f);
        fwrite(bytes + 1, 1, len - 1, f);
        if (fclose(f)) return 1;
        tv_segment_release(s);
        free(p);
        free_docs(d, seeds[i].n);
        free(d);
    }
    /* doc blocks (a NESTED section and _nested_path postings) */
    for (int fixsum = 0; fixsum < 2; fixsum++) {
        size_t n = 24, idx[24];
        mdoc *d = gen_docs(n);
        for (size_t k = 0; k < n; k++) {
            idx[k] = k;
            if (d[k].source_len > 64) d[k].source_len = 64;
        }
        tv_segment *s = build_blocks(d, idx, n);
        size_t len;
        const uint8_t *bytes = tv_segment_bytes_ptr(s, &len);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, fixsum ? "nested_fixsum" : "nested");
        FILE *f = fopen(path, "wb");
        if (!f) return 1;
        fputc(fixsum ? 'U' : bytes[0], f);
        fwrite(bytes + 1, 1, len - 1, f);
        if (fclose(f)) return 1;
        tv_segment_release(s);
        free_docs(d, n);
        free(d);
    }
    return 0;
}

int main(void) {
    init_vocab();
    const char *seed_dir = getenv("TROVE_WRITE_FUZZ_SEEDS");
    if (seed_dir) return write_fuzz_seeds(seed_dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_builder),
        cmocka_unit_test(test_build_and_read),
        cmocka_unit_test(test_dense_and_long),
        cmocka_unit_test(test_positions_batch), cmocka_unit_test(test_merge_equals_fresh_build),
        cmocka_unit_test(test_merge_all_deleted),
        cmocka_unit_test(test_nested_blocks),
        cmocka_unit_test(test_token_order_and_chunks),
        cmocka_unit_test(test_column_lines),
        cmocka_unit_test(test_corruption),
        cmocka_unit_test(test_oom),
        cmocka_unit_test(test_id_filter), /* last: gen_docs advances the generator the others replay */
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
