/*
 * automaton.c — regexp, wildcard, prefix and Levenshtein automata over
 * Unicode code points, determinized for linear-time term matching.
 *
 * Pipeline. A pattern is parsed (regexp: Lucene's RegExp grammar, same
 * precedence, flags and error messages, positions in UTF-16 units as Java
 * reports them) into a small AST, the AST is compiled into a Thompson NFA
 * (states joined by epsilon edges and by code point *range* edges
 * [lo, hi]), and the NFA is determinized by subset construction into a DFA
 * whose transitions per state are sorted, disjoint ranges. Dead states
 * (those that cannot reach an accepting state) are removed, so a run fails
 * at the first code point that rules a term out and the literal prefix of
 * all accepted terms falls out of the start state's single-character chain.
 *
 * Subset construction over ranges: for a DFA state (a set of NFA states)
 * every range edge contributes two sweep events (lo: +target, hi+1:
 * -target); sorting the events and sweeping gives the disjoint intervals
 * and, for each, the set of targets active on it; the epsilon closure of
 * that set is the next DFA state. Sets are keyed by their sorted list of
 * "important" NFA states only (those with range edges, plus the final
 * state), which is what an epsilon-free NFA would hold, so the work count
 * below is comparable to Lucene's.
 *
 * Determinization limit: Lucene 10 counts work as the sum of the NFA-set
 * sizes of the DFA states it builds and gives up past 10x the
 * determinizeWorkLimit (OpenSearch's max_determinized_states, 10000 by
 * default) with TooComplexToDeterminizeException. We count the same way
 * and fail with the same message. Complement (`~`) and intersection (`&`)
 * determinize their operands (complement needs a DFA; intersection is a
 * product of two DFAs), embed the result back into the NFA, and charge
 * their work to the same budget.
 *
 * Matching: UTF-8 bytes are decoded one code point at a time and each
 * takes one transition (binary search over the state's ranges; a direct
 * 128-entry table per state for ASCII when the DFA is small), so a run is
 * linear in the term length. Lucene instead converts the code point DFA to
 * a byte DFA (UTF32ToUTF8); that avoids decoding but multiplies states, and
 * term dictionaries here are scanned term by term anyway.
 *
 * Enumerating a term dictionary (tv_automaton_cursor): terms come sorted
 * and front-coded, so a term resumes from the DFA state after the bytes it
 * shares with the one before, and a dead prefix seeks past every term
 * starting with it (Lucene's AutomatonTermsEnum). When every accepted
 * string ends with a literal (`*ing`, `h*band`, `/.*tern/`; found by
 * walking back from the accepting states while every edge into the set
 * carries the same code point) and no run can die once past the literal
 * prefix (every state from there takes every code point), the enumerator
 * may skip terms without that suffix before the DFA sees them: a leading
 * wildcard then costs a byte compare per term. Lucene reaches the same
 * effect block by block with its terms index; our blocks are short and
 * front-coded, so a per-term test is as cheap.
 *
 * Fuzzy: the Levenshtein automaton is built as the classic (position,
 * edits) NFA with transposition states and determinized like any other
 * (Lucene precomputes parametric tables instead; for the maximum of two
 * edits the subset construction is small and exact). The edit distance of
 * an accepted term, needed for scoring, is computed separately by a
 * bounded dynamic program (tv_edit_distance).
 *
 * Alternatives rejected: backtracking matchers (exponential worst cases,
 * no prefix extraction); lazy DFA construction at match time (mutable shared
 * state across threads, and no up-front limit error as OpenSearch gives).
 */
#include "query/automaton.h"

#include <stdio.h>
#include <stdlib.h>

#include "text/text.h"

/* ===================================================================== NFA */

typedef struct cedge {
    uint32_t from, lo, hi, to;
} cedge;
typedef struct eedge {
    uint32_t from, to;
} eedge;
typedef struct frag {
    uint32_t s, e;
} frag;

typedef struct tr_t {
    uint32_t lo, hi, to;
} tr_t;

/* A DFA under construction (heap). first has n + 1 entries once done. */
typedef struct dfa_t {
    uint32_t n;
    TV_VEC(tr_t) tr;
    TV_VEC(uint32_t) first;
    TV_VEC(uint8_t) acc;
} dfa_t;

typedef struct nfa {
    uint32_t n;
    TV_VEC(cedge) ce;
    TV_VEC(eedge) ee;
    /* CSR views, rebuilt when edges were added */
    uint32_t csr_n;
    size_t csr_ce, csr_ee;
    uint32_t *cfirst, *efirst;
    cedge *cs;
    uint32_t *es;
    /* limits and errors */
    uint32_t max_states;
    int limit;      /* determinizeWorkLimit */
    double effort;  /* spent so far */
    tv_status st;
    tv_error *err;
    const char *what; /* regexp source for messages, or NULL */
    size_t what_len;
} nfa;

#define NFA_HARD_CAP 2000000u

static void nfa_init(nfa *a, int limit, tv_error *err) {
    memset(a, 0, sizeof(*a));
    a->limit = limit > 0 ? limit : TV_AUTOMATON_DEFAULT_LIMIT;
    a->max_states = NFA_HARD_CAP;
    a->err = err;
}

static void nfa_fini(nfa *a) {
    tv_vec_fini(&a->ce);
    tv_vec_fini(&a->ee);
    tv_free(a->cfirst);
    tv_free(a->efirst);
    tv_free(a->cs);
    tv_free(a->es);
}

static void nfa_oom(nfa *a) {
    if (a->st == TROVE_OK) a->st = tv_error_oom(a->err);
}

static void too_complex(nfa *a, uint32_t states, size_t transitions, long limit) {
    if (a->st != TROVE_OK) return;
    if (a->what)
        a->st = tv_error_set(a->err, TROVE_ETOOCOMPLEX,
                             "Determinizing %.*s would require more than %ld effort.",
                             (int)TV_MIN(a->what_len, 800), a->what, limit);
    else
        a->st = tv_error_set(a->err, TROVE_ETOOCOMPLEX,
                             "Determinizing automaton with %u states and %zu transitions would "
                             "require more than %ld effort.",
                             states, transitions, limit);
}

static uint32_t new_state(nfa *a) {
    if (a->st != TROVE_OK) return 0;
    if (a->n >= a->max_states) {
        too_complex(a, a->n, a->ce.len, a->limit);
        return 0;
    }
    return a->n++;
}

static void add_char(nfa *a, uint32_t from, uint32_t lo, uint32_t hi, uint32_t to) {
    if (a->st != TROVE_OK) return;
    cedge e = {from, lo, hi, to};
    if (tv_vec_push(&a->ce, e)) nfa_oom(a);
}

static void add_eps(nfa *a, uint32_t from, uint32_t to) {
    if (a->st != TROVE_OK) return;
    eedge e = {from, to};
    if (tv_vec_push(&a->ee, e)) nfa_oom(a);
}

static frag f_range(nfa *a, uint32_t lo, uint32_t hi) {
    frag f;
    f.s = new_state(a);
    f.e = new_state(a);
    add_char(a, f.s, lo, hi, f.e);
    return f;
}

static frag f_epsilon(nfa *a) {
    frag f;
    f.s = new_state(a);
    f.e = new_state(a);
    add_eps(a, f.s, f.e);
    return f;
}

static frag f_nothing(nfa *a) {
    frag f;
    f.s = new_state(a);
    f.e = new_state(a);
    return f;
}

static frag f_concat(nfa *a, frag x, frag y) {
    add_eps(a, x.e, y.s);
    frag f = {x.s, y.e};
    return f;
}

static frag f_union(nfa *a, frag x, frag y) {
    frag f;
    f.s = new_state(a);
    f.e = new_state(a);
    add_eps(a, f.s, x.s);
    add_eps(a, f.s, y.s);
    add_eps(a, x.e, f.e);
    add_eps(a, y.e, f.e);
    return f;
}

static frag f_star(nfa *a, frag x) {
    frag f;
    f.s = new_state(a);
    f.e = new_state(a);
    add_eps(a, f.s, x.s);
    add_eps(a, f.s, f.e);
    add_eps(a, x.e, x.s);
    add_eps(a, x.e, f.e);
    return f;
}

static frag f_optional(nfa *a, frag x) {
    frag f;
    f.s = new_state(a);
    f.e = new_state(a);
    add_eps(a, f.s, x.s);
    add_eps(a, f.s, f.e);
    add_eps(a, x.e, f.e);
    return f;
}

static frag f_anystring(nfa *a) {
    frag f;
    f.s = new_state(a);
    f.e = new_state(a);
    add_char(a, f.s, 0, TV_MAX_CP, f.s);
    add_eps(a, f.s, f.e);
    return f;
}

static int cmp_u32(const void *x, const void *y) {
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* Rebuilds the CSR views over all edges. */
static void nfa_csr(nfa *a) {
    if (a->st != TROVE_OK) return;
    if (a->csr_n == a->n && a->csr_ce == a->ce.len && a->csr_ee == a->ee.len && a->cfirst) return;
    tv_free(a->cfirst);
    tv_free(a->efirst);
    tv_free(a->cs);
    tv_free(a->es);
    a->cfirst = tv_calloc((size_t)a->n + 1, sizeof(uint32_t));
    a->efirst = tv_calloc((size_t)a->n + 1, sizeof(uint32_t));
    a->cs = tv_malloc((a->ce.len ? a->ce.len : 1) * sizeof(cedge));
    a->es = tv_malloc((a->ee.len ? a->ee.len : 1) * sizeof(uint32_t));
    if (!a->cfirst || !a->efirst || !a->cs || !a->es) {
        nfa_oom(a);
        return;
    }
    for (size_t i = 0; i < a->ce.len; i++) a->cfirst[a->ce.items[i].from + 1]++;
    for (size_t i = 0; i < a->ee.len; i++) a->efirst[a->ee.items[i].from + 1]++;
    for (uint32_t i = 0; i < a->n; i++) {
        a->cfirst[i + 1] += a->cfirst[i];
        a->efirst[i + 1] += a->efirst[i];
    }
    uint32_t *cpos = tv_malloc(((size_t)a->n + 1) * sizeof(uint32_t));
    uint32_t *epos = tv_malloc(((size_t)a->n + 1) * sizeof(uint32_t));
    if (!cpos || !epos) {
        tv_free(cpos);
        tv_free(epos);
        nfa_oom(a);
        return;
    }
    memcpy(cpos, a->cfirst, ((size_t)a->n + 1) * sizeof(uint32_t));
    memcpy(epos, a->efirst, ((size_t)a->n + 1) * sizeof(uint32_t));
    for (size_t i = 0; i < a->ce.len; i++) a->cs[cpos[a->ce.items[i].from]++] = a->ce.items[i];
    for (size_t i = 0; i < a->ee.len; i++) a->es[epos[a->ee.items[i].from]++] = a->ee.items[i].to;
    tv_free(cpos);
    tv_free(epos);
    a->csr_n = a->n;
    a->csr_ce = a->ce.len;
    a->csr_ee = a->ee.len;
}

/* ======================================================== determinization */

typedef struct sweep_ev {
    uint32_t pt;
    int32_t delta;
    uint32_t to;
} sweep_ev;

static int cmp_ev(const void *x, const void *y) {
    const sweep_ev *a = x, *b = y;
    return a->pt < b->pt ? -1 : a->pt > b->pt;
}

typedef struct det {
    nfa *a;
    uint32_t final;
    uint32_t *mark; /* generation stamps per NFA state */
    uint32_t gen;
    TV_VEC(uint32_t) stack;
    TV_VEC(uint32_t) set; /* scratch closure result */
    TV_VEC(uint32_t) pool; /* DFA state sets, concatenated */
    TV_VEC(uint32_t) off;  /* set i is pool[off[i] .. off[i+1]) */
    tv_map map;
} det;

static bool important(det *d, uint32_t s) {
    return s == d->final || d->a->cfirst[s + 1] > d->a->cfirst[s];
}

/* Epsilon closure of seeds into d->set (sorted, important states only). */
static bool closure(det *d, const uint32_t *seeds, size_t n) {
    nfa *a = d->a;
    d->set.len = 0;
    d->stack.len = 0;
    if (++d->gen == 0) {
        memset(d->mark, 0, (size_t)a->n * sizeof(uint32_t));
        d->gen = 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (d->mark[seeds[i]] == d->gen) continue;
        d->mark[seeds[i]] = d->gen;
        if (tv_vec_push(&d->stack, seeds[i])) return false;
    }
    while (d->stack.len) {
        uint32_t s = d->stack.items[--d->stack.len];
        if (important(d, s) && tv_vec_push(&d->set, s)) return false;
        for (uint32_t k = a->efirst[s]; k < a->efirst[s + 1]; k++) {
            uint32_t t = a->es[k];
            if (d->mark[t] == d->gen) continue;
            d->mark[t] = d->gen;
            if (tv_vec_push(&d->stack, t)) return false;
        }
    }
    if (d->set.len > 1) qsort(d->set.items, d->set.len, sizeof(uint32_t), cmp_u32);
    return true;
}

/* Looks up d->set; adds it as a new DFA state when absent. Returns the id
 * or UINT32_MAX on OOM. */
static uint32_t intern(det *d, dfa_t *out) {
    const char *key = d->set.len ? (const char *)d->set.items : "";
    size_t klen = d->set.len * sizeof(uint32_t);
    void *v = tv_map_get(&d->map, key, klen);
    if (v) return (uint32_t)((uintptr_t)v - 1);
    uint32_t id = out->n;
    if (tv_map_put(&d->map, key, klen, (void *)(uintptr_t)(id + 1), NULL) != TROVE_OK)
        return UINT32_MAX;
    if (tv_vec_reserve(&d->pool, d->pool.len + d->set.len)) return UINT32_MAX;
    if (d->set.len) {
        memcpy(d->pool.items + d->pool.len, d->set.items, d->set.len * sizeof(uint32_t));
        d->pool.len += d->set.len;
    }
    if (tv_vec_push(&d->off, (uint32_t)d->pool.len)) return UINT32_MAX;
    out->n++;
    return id;
}

static void dfa_fini(dfa_t *d) {
    tv_vec_fini(&d->tr);
    tv_vec_fini(&d->first);
    tv_vec_fini(&d->acc);
}

/* Subset construction from NFA state `start` with accepting state
 * `final`. Charges a->effort; fails with TROVE_ETOOCOMPLEX past
 * 10 * a->limit. */
static bool determinize(nfa *a, uint32_t start, uint32_t final, dfa_t *out) {
    memset(out, 0, sizeof(*out));
    nfa_csr(a);
    if (a->st != TROVE_OK) return false;
    det d;
    memset(&d, 0, sizeof(d));
    d.a = a;
    d.final = final;
    tv_map_init(&d.map);
    d.mark = tv_calloc(a->n ? a->n : 1, sizeof(uint32_t));
    uint32_t *cnt = tv_calloc(a->n ? a->n : 1, sizeof(uint32_t));
    uint32_t *apos = tv_calloc(a->n ? a->n : 1, sizeof(uint32_t));
    TV_VEC(uint32_t) active = {0};
    TV_VEC(sweep_ev) ev = {0};
    bool ok = false;
    double effort_limit = (double)a->limit * 10.0;
    if (!d.mark || !cnt || !apos) goto oom;
    if (tv_vec_push(&d.off, 0)) goto oom;
    if (!closure(&d, &start, 1)) goto oom;
    if (intern(&d, out) == UINT32_MAX) goto oom;
    for (uint32_t cur = 0; cur < out->n; cur++) {
        uint32_t so = d.off.items[cur], se = d.off.items[cur + 1];
        a->effort += (double)(se - so);
        if (a->effort >= effort_limit) {
            too_complex(a, a->n, a->ce.len, a->limit);
            goto done;
        }
        if (tv_vec_push(&out->first, (uint32_t)out->tr.len)) goto oom;
        bool acc = false;
        ev.len = 0;
        for (uint32_t k = so; k < se; k++) {
            uint32_t s = d.pool.items[k];
            if (s == final) acc = true;
            for (uint32_t j = a->cfirst[s]; j < a->cfirst[s + 1]; j++) {
                const cedge *c = &a->cs[j];
                sweep_ev e1 = {c->lo, 1, c->to}, e2 = {c->hi + 1, -1, c->to};
                if (tv_vec_push(&ev, e1) || tv_vec_push(&ev, e2)) goto oom;
            }
        }
        if (tv_vec_push(&out->acc, (uint8_t)acc)) goto oom;
        if (ev.len > 1) qsort(ev.items, ev.len, sizeof(sweep_ev), cmp_ev);
        size_t i = 0;
        active.len = 0;
        while (i < ev.len) {
            uint32_t p = ev.items[i].pt;
            while (i < ev.len && ev.items[i].pt == p) {
                sweep_ev *e = &ev.items[i++];
                if (e->delta > 0) {
                    if (cnt[e->to]++ == 0) {
                        apos[e->to] = (uint32_t)active.len;
                        if (tv_vec_push(&active, e->to)) goto oom;
                    }
                } else if (--cnt[e->to] == 0) {
                    uint32_t at = apos[e->to], last = active.items[--active.len];
                    active.items[at] = last;
                    apos[last] = at;
                }
            }
            if (i >= ev.len || active.len == 0 || p > TV_MAX_CP) continue;
            uint32_t q = ev.items[i].pt; /* next boundary: interval [p, q-1] */
            if (!closure(&d, active.items, active.len)) goto oom;
            if (d.set.len == 0) continue;
            uint32_t to = intern(&d, out);
            if (to == UINT32_MAX) goto oom;
            size_t ntr = out->tr.len - out->first.items[cur];
            if (ntr && out->tr.items[out->tr.len - 1].to == to &&
                out->tr.items[out->tr.len - 1].hi + 1 == p) {
                out->tr.items[out->tr.len - 1].hi = q - 1;
            } else {
                tr_t t = {p, q - 1, to};
                if (tv_vec_push(&out->tr, t)) goto oom;
            }
        }
    }
    if (tv_vec_push(&out->first, (uint32_t)out->tr.len)) goto oom;
    ok = true;
    goto done;
oom:
    nfa_oom(a);
done:
    tv_map_fini(&d.map);
    tv_free(d.mark);
    tv_free(cnt);
    tv_free(apos);
    tv_vec_fini(&active);
    tv_vec_fini(&ev);
    tv_vec_fini(&d.stack);
    tv_vec_fini(&d.set);
    tv_vec_fini(&d.pool);
    tv_vec_fini(&d.off);
    if (!ok) dfa_fini(out);
    return ok;
}

/* Makes the DFA total over [0, TV_MAX_CP] (adding a sink when needed) and
 * flips acceptance. */
static bool dfa_complement(nfa *a, dfa_t *d) {
    dfa_t r;
    memset(&r, 0, sizeof(r));
    uint32_t sink = d->n;
    bool need_sink = false;
    for (uint32_t s = 0; s < d->n; s++) {
        if (tv_vec_push(&r.first, (uint32_t)r.tr.len)) goto oom;
        if (tv_vec_push(&r.acc, (uint8_t)!d->acc.items[s])) goto oom;
        uint32_t next = 0;
        for (uint32_t k = d->first.items[s]; k < d->first.items[s + 1]; k++) {
            tr_t t = d->tr.items[k];
            if (t.lo > next) {
                tr_t g = {next, t.lo - 1, sink};
                need_sink = true;
                if (tv_vec_push(&r.tr, g)) goto oom;
            }
            if (tv_vec_push(&r.tr, t)) goto oom;
            next = t.hi + 1;
        }
        if (next <= TV_MAX_CP) {
            tr_t g = {next, TV_MAX_CP, sink};
            need_sink = true;
            if (tv_vec_push(&r.tr, g)) goto oom;
        }
    }
    r.n = d->n;
    if (need_sink) {
        tr_t g = {0, TV_MAX_CP, sink};
        if (tv_vec_push(&r.first, (uint32_t)r.tr.len) || tv_vec_push(&r.acc, 1) ||
            tv_vec_push(&r.tr, g))
            goto oom;
        r.n++;
    }
    if (tv_vec_push(&r.first, (uint32_t)r.tr.len)) goto oom;
    dfa_fini(d);
    *d = r;
    return true;
oom:
    dfa_fini(&r);
    nfa_oom(a);
    return false;
}

/* Product of two DFAs (intersection), reachable pairs only. */
static bool dfa_product(nfa *a, const dfa_t *x, const dfa_t *y, dfa_t *out) {
    memset(out, 0, sizeof(*out));
    tv_map map;
    tv_map_init(&map);
    TV_VEC(uint64_t) pairs = {0};
    double effort_limit = (double)a->limit * 10.0;
    uint64_t p0 = 0;
    if (x->n == 0 || y->n == 0) goto empty;
    if (tv_vec_push(&pairs, p0) || tv_map_put(&map, (const char *)&p0, 8, (void *)1, NULL))
        goto oom;
    for (size_t cur = 0; cur < pairs.len; cur++) {
        a->effort += 2;
        if (a->effort >= effort_limit) {
            too_complex(a, a->n, a->ce.len, a->limit);
            goto fail;
        }
        uint32_t sx = (uint32_t)(pairs.items[cur] >> 32), sy = (uint32_t)pairs.items[cur];
        if (tv_vec_push(&out->first, (uint32_t)out->tr.len) ||
            tv_vec_push(&out->acc, (uint8_t)(x->acc.items[sx] && y->acc.items[sy])))
            goto oom;
        uint32_t i = x->first.items[sx], ie = x->first.items[sx + 1];
        uint32_t j = y->first.items[sy], je = y->first.items[sy + 1];
        while (i < ie && j < je) {
            tr_t tx = x->tr.items[i], ty = y->tr.items[j];
            uint32_t lo = TV_MAX(tx.lo, ty.lo), hi = TV_MIN(tx.hi, ty.hi);
            if (lo <= hi) {
                uint64_t key = ((uint64_t)tx.to << 32) | ty.to;
                void *v = tv_map_get(&map, (const char *)&key, 8);
                uint32_t to;
                if (v) {
                    to = (uint32_t)((uintptr_t)v - 1);
                } else {
                    to = (uint32_t)pairs.len;
                    if (tv_vec_push(&pairs, key) ||
                        tv_map_put(&map, (const char *)&key, 8, (void *)(uintptr_t)(to + 1), NULL))
                        goto oom;
                }
                tr_t t = {lo, hi, to};
                if (tv_vec_push(&out->tr, t)) goto oom;
            }
            if (tx.hi < ty.hi) i++;
            else j++;
        }
    }
    out->n = (uint32_t)pairs.len;
    if (tv_vec_push(&out->first, (uint32_t)out->tr.len)) goto oom;
    tv_map_fini(&map);
    tv_vec_fini(&pairs);
    return true;
empty:
    out->n = 1;
    if (tv_vec_push(&out->first, 0) || tv_vec_push(&out->first, 0) || tv_vec_push(&out->acc, 0))
        goto oom;
    tv_map_fini(&map);
    tv_vec_fini(&pairs);
    return true;
oom:
    nfa_oom(a);
fail:
    tv_map_fini(&map);
    tv_vec_fini(&pairs);
    dfa_fini(out);
    return false;
}

/* Copies a DFA into the NFA as a fragment. */
static frag embed(nfa *a, const dfa_t *d) {
    frag f = {0, 0};
    if (a->st != TROVE_OK) return f;
    uint32_t base = a->n;
    for (uint32_t s = 0; s < d->n; s++) new_state(a);
    uint32_t end = new_state(a);
    if (a->st != TROVE_OK) return f;
    for (uint32_t s = 0; s < d->n; s++) {
        for (uint32_t k = d->first.items[s]; k < d->first.items[s + 1]; k++) {
            tr_t t = d->tr.items[k];
            add_char(a, base + s, t.lo, t.hi, base + t.to);
        }
        if (d->acc.items[s]) add_eps(a, base + s, end);
    }
    f.s = base;
    f.e = end;
    return f;
}

static frag f_complement(nfa *a, frag x) {
    frag f = {0, 0};
    dfa_t d;
    if (!determinize(a, x.s, x.e, &d)) return f;
    if (dfa_complement(a, &d)) f = embed(a, &d);
    dfa_fini(&d);
    return f;
}

static frag f_intersect(nfa *a, frag x, frag y) {
    frag f = {0, 0};
    dfa_t dx, dy, dp;
    if (!determinize(a, x.s, x.e, &dx)) return f;
    if (!determinize(a, y.s, y.e, &dy)) {
        dfa_fini(&dx);
        return f;
    }
    if (dfa_product(a, &dx, &dy, &dp)) {
        f = embed(a, &dp);
        dfa_fini(&dp);
    }
    dfa_fini(&dx);
    dfa_fini(&dy);
    return f;
}

/* ============================================================ final form */

struct tv_automaton {
    uint32_t n;
    const uint32_t *first; /* n + 1 */
    const tr_t *tr;
    const uint8_t *acc;
    const int32_t *ascii; /* n * 128 next states (-1: none), or NULL */
    const char *prefix;
    size_t prefix_len;
    bool empty, total, single;
    const char *single_s;
    size_t single_len;
    /* The literal UTF-8 suffix every accepted string ends with, and whether
     * no run can die once past the literal prefix (every state reachable
     * from the prefix's end takes every code point). With both, testing
     * the suffix first rejects a term as surely as the DFA would, and loses
     * no seek (see tv_automaton_cursor_next). */
    const char *suffix;
    size_t suffix_len;
    bool tail_never_dies;
};

#define ASCII_TABLE_MAX_STATES 2048
#define SUFFIX_MAX_STATES 4096
#define SUFFIX_MAX_CPS 64

/* The longest literal every accepted string ends with, as code points in
 * reverse order (cps[0] is the last character), for a DFA without dead or
 * unreachable states. Walks backwards from the accepting set: S holds the
 * states from which the suffix found so far leads to acceptance; while the
 * start state is not in S and every transition into S is the same single
 * code point c, c is one more character of the suffix and S becomes the
 * sources of those transitions. Every accepted string x is y + suffix with
 * y leading from the start into S; that is what keeps the loop sound. */
static size_t common_suffix(uint32_t n, const uint32_t *first, const tr_t *tr, const uint8_t *acc,
                            uint8_t *in, uint8_t *next, uint32_t *cps) {
    size_t k = 0;
    for (uint32_t s = 0; s < n; s++) in[s] = acc[s];
    while (k < SUFFIX_MAX_CPS && !in[0]) {
        bool seen = false, one = true;
        uint32_t c = 0;
        memset(next, 0, n);
        for (uint32_t s = 0; s < n && one; s++)
            for (uint32_t i = first[s]; i < first[s + 1]; i++) {
                if (!in[tr[i].to]) continue;
                if (tr[i].lo != tr[i].hi || (seen && tr[i].lo != c)) {
                    one = false;
                    break;
                }
                seen = true;
                c = tr[i].lo;
                next[s] = 1;
            }
        if (!one || !seen) break;
        cps[k++] = c;
        memcpy(in, next, n);
    }
    return k;
}

/* True when every state reachable from `from` takes every code point. */
static bool never_dies_from(uint32_t n, const uint32_t *first, const tr_t *tr, uint32_t from,
                            uint8_t *seen, uint32_t *stack) {
    memset(seen, 0, n);
    size_t sp = 0;
    stack[sp++] = from;
    seen[from] = 1;
    while (sp) {
        uint32_t s = stack[--sp];
        uint32_t want = 0;
        for (uint32_t i = first[s]; i < first[s + 1]; i++) {
            if (tr[i].lo != want) return false;
            want = tr[i].hi + 1;
            if (!seen[tr[i].to]) {
                seen[tr[i].to] = 1;
                stack[sp++] = tr[i].to;
            }
        }
        if (want != TV_MAX_CP + 1) return false;
    }
    return true;
}

/* Removes dead states, renumbers, and copies into the arena. */
static tv_status finish(nfa *a, dfa_t *d, tv_arena *arena, tv_automaton **out) {
    tv_automaton *r = tv_arena_calloc(arena, 1, sizeof(*r));
    uint8_t *live = tv_calloc(d->n ? d->n : 1, 1);
    uint32_t *rfirst = tv_calloc((size_t)d->n + 1, sizeof(uint32_t));
    uint32_t *rsrc = tv_malloc((d->tr.len ? d->tr.len : 1) * sizeof(uint32_t));
    uint32_t *stack = tv_malloc((d->n ? d->n : 1) * sizeof(uint32_t));
    uint32_t *newid = tv_malloc((d->n ? d->n : 1) * sizeof(uint32_t));
    tv_buf pre;
    tv_buf_init(&pre);
    tv_status st = TROVE_ENOMEM;
    if (!r || !live || !rfirst || !rsrc || !stack || !newid) goto out;
    /* reverse edges */
    for (uint32_t s = 0; s < d->n; s++)
        for (uint32_t k = d->first.items[s]; k < d->first.items[s + 1]; k++)
            rfirst[d->tr.items[k].to + 1]++;
    for (uint32_t s = 0; s < d->n; s++) rfirst[s + 1] += rfirst[s];
    {
        uint32_t *pos = tv_malloc(((size_t)d->n + 1) * sizeof(uint32_t));
        if (!pos) goto out;
        memcpy(pos, rfirst, ((size_t)d->n + 1) * sizeof(uint32_t));
        for (uint32_t s = 0; s < d->n; s++)
            for (uint32_t k = d->first.items[s]; k < d->first.items[s + 1]; k++)
                rsrc[pos[d->tr.items[k].to]++] = s;
        tv_free(pos);
    }
    size_t sp = 0;
    for (uint32_t s = 0; s < d->n; s++)
        if (d->acc.items[s]) {
            live[s] = 1;
            stack[sp++] = s;
        }
    while (sp) {
        uint32_t s = stack[--sp];
        for (uint32_t k = rfirst[s]; k < rfirst[s + 1]; k++) {
            uint32_t p = rsrc[k];
            if (!live[p]) {
                live[p] = 1;
                stack[sp++] = p;
            }
        }
    }
    uint32_t n = 0;
    size_t ntr = 0;
    for (uint32_t s = 0; s < d->n; s++) newid[s] = live[s] ? n++ : UINT32_MAX;
    if (d->n == 0 || !live[0]) {
        /* nothing is accepted: one rejecting state */
        uint32_t *first = tv_arena_calloc(arena, 2, sizeof(uint32_t));
        uint8_t *acc = tv_arena_calloc(arena, 1, 1);
        if (!first || !acc) goto out;
        r->n = 1;
        r->first = first;
        r->acc = acc;
        r->tr = NULL;
        r->empty = true;
        r->prefix = "";
        *out = r;
        st = TROVE_OK;
        goto out;
    }
    for (uint32_t s = 0; s < d->n; s++)
        if (live[s])
            for (uint32_t k = d->first.items[s]; k < d->first.items[s + 1]; k++)
                if (live[d->tr.items[k].to]) ntr++;
    uint32_t *first = tv_arena_alloc(arena, ((size_t)n + 1) * sizeof(uint32_t));
    tr_t *tr = tv_arena_alloc(arena, (ntr ? ntr : 1) * sizeof(tr_t));
    uint8_t *acc = tv_arena_alloc(arena, n);
    if (!first || !tr || !acc) goto out;
    size_t t = 0;
    for (uint32_t s = 0; s < d->n; s++) {
        if (!live[s]) continue;
        uint32_t ns = newid[s];
        first[ns] = (uint32_t)t;
        acc[ns] = d->acc.items[s];
        for (uint32_t k = d->first.items[s]; k < d->first.items[s + 1]; k++) {
            tr_t x = d->tr.items[k];
            if (!live[x.to]) continue;
            x.to = newid[x.to];
            /* merge ranges made adjacent by dropping dead ones */
            if (t > first[ns] && tr[t - 1].to == x.to && tr[t - 1].hi + 1 == x.lo) tr[t - 1].hi = x.hi;
            else tr[t++] = x;
        }
    }
    first[n] = (uint32_t)t;
    r->n = n;
    r->first = first;
    r->tr = tr;
    r->acc = acc;
    if (n <= ASCII_TABLE_MAX_STATES) {
        int32_t *tab = tv_arena_alloc(arena, (size_t)n * 128 * sizeof(int32_t));
        if (!tab) goto out;
        for (uint32_t s = 0; s < n; s++) {
            int32_t *row = tab + (size_t)s * 128;
            for (int c = 0; c < 128; c++) row[c] = -1;
            for (uint32_t k = first[s]; k < first[s + 1] && tr[k].lo < 128; k++)
                for (uint32_t c = tr[k].lo; c <= tr[k].hi && c < 128; c++) row[c] = (int32_t)tr[k].to;
        }
        r->ascii = tab;
    }
    /* literal prefix */
    {
        uint32_t s = 0;
        uint32_t steps = 0;
        while (!acc[s] && first[s + 1] - first[s] == 1 && tr[first[s]].lo == tr[first[s]].hi &&
               steps < 4096) {
            uint8_t enc[4];
            size_t k = tv_utf8_encode(tr[first[s]].lo, enc);
            tv_buf_append(&pre, enc, k);
            s = tr[first[s]].to;
            steps++;
        }
        bool single = acc[s] && first[s + 1] == first[s];
        if (pre.oom) goto out;
        if (!single && n <= SUFFIX_MAX_STATES && n <= d->n) {
            /* live, stack and newid are free again and hold >= n entries */
            uint32_t cps[SUFFIX_MAX_CPS];
            size_t k = common_suffix(n, first, tr, acc, live, (uint8_t *)newid, cps);
            if (k) {
                uint8_t *suf = tv_arena_alloc(arena, k * 4);
                if (!suf) goto out;
                size_t len = 0;
                for (size_t i = k; i-- > 0;) len += tv_utf8_encode(cps[i], suf + len);
                r->suffix = (const char *)suf;
                r->suffix_len = len;
                r->tail_never_dies = never_dies_from(n, first, tr, s, live, stack);
            }
        }
        char *p = tv_arena_memdup(arena, pre.data ? pre.data : "", pre.len);
        if (!p) goto out;
        r->prefix = p;
        r->prefix_len = pre.len;
        r->single = single;
        r->single_s = p;
        r->single_len = pre.len;
    }
    /* total: every state accepting and covering the whole alphabet */
    {
        bool total = true;
        for (uint32_t s = 0; s < n && total; s++) {
            if (!acc[s]) total = false;
            uint32_t next = 0;
            for (uint32_t k = first[s]; k < first[s + 1] && total; k++) {
                if (tr[k].lo != next) total = false;
                next = tr[k].hi + 1;
            }
            if (next != TV_MAX_CP + 1) total = false;
        }
        r->total = total;
    }
    *out = r;
    st = TROVE_OK;
out:
    tv_free(live);
    tv_free(rfirst);
    tv_free(rsrc);
    tv_free(stack);
    tv_free(newid);
    tv_buf_fini(&pre);
    if (st != TROVE_OK && a->st == TROVE_OK) a->st = tv_error_set(a->err, st, "out of memory");
    return st;
}

/* Determinizes the fragment and produces the final automaton. */
static tv_status compile_frag(nfa *a, frag f, tv_arena *arena, tv_automaton **out) {
    if (a->st != TROVE_OK) return a->st;
    dfa_t d;
    if (!determinize(a, f.s, f.e, &d)) return a->st;
    tv_status st = finish(a, &d, arena, out);
    dfa_fini(&d);
    return st;
}

/* ============================================================== matching */

static inline int32_t step(const tv_automaton *a, uint32_t s, uint32_t cp) {
    uint32_t lo = a->first[s], hi = a->first[s + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a->tr[mid].hi < cp) lo = mid + 1;
        else if (a->tr[mid].lo > cp) hi = mid;
        else return (int32_t)a->tr[mid].to;
    }
    return -1;
}

bool tv_automaton_run(const tv_automaton *a, const char *str, size_t len) {
    if (a->empty) return false;
    const uint8_t *p = (const uint8_t *)str, *end = p + len;
    uint32_t s = 0;
    while (p < end) {
        int32_t t;
        if (*p < 0x80 && a->ascii) {
            t = a->ascii[(size_t)s * 128 + *p];
            p++;
        } else {
            uint32_t cp;
            p += tv_utf8_decode(p, end, &cp);
            t = step(a, s, cp);
        }
        if (t < 0) return false;
        s = (uint32_t)t;
    }
    return a->acc[s];
}

/* The smallest code point above cp that state s takes, or UINT32_MAX (the
 * state's transitions are sorted by code point). */
static uint32_t next_taken(const tv_automaton *a, uint32_t s, uint32_t cp) {
    for (uint32_t i = a->first[s]; i < a->first[s + 1]; i++)
        if (a->tr[i].lo > cp) return a->tr[i].lo;
    return UINT32_MAX;
}

/* tv_automaton_run, and where the term died, for enumerating terms in
 * order (Lucene's AutomatonTermsEnum): *at is the byte offset of the
 * character after which no suffix can be accepted (every string with the
 * bytes s[0..at] plus that character is rejected), or SIZE_MAX when every
 * prefix of s stayed alive; *next is then the smallest code point above
 * that character the automaton takes at that point, or UINT32_MAX when it
 * takes none (every string starting with s[0..at) is then done). The
 * automaton has no dead states (they are removed when it is built), so a
 * missing transition is the death. */
static bool run_dead(const tv_automaton *a, const char *str, size_t len, size_t *at, uint32_t *next) {
    *at = SIZE_MAX;
    *next = UINT32_MAX;
    if (a->empty) {
        *at = 0;
        return false;
    }
    const uint8_t *p = (const uint8_t *)str, *end = p + len;
    uint32_t s = 0;
    while (p < end) {
        const uint8_t *here = p;
        uint32_t cp = *p;
        int32_t t;
        if (*p < 0x80 && a->ascii) {
            t = a->ascii[(size_t)s * 128 + *p];
            p++;
        } else {
            p += tv_utf8_decode(p, end, &cp);
            t = step(a, s, cp);
        }
        if (t < 0) {
            *at = (size_t)(here - (const uint8_t *)str);
            *next = next_taken(a, s, cp);
            return false;
        }
        s = (uint32_t)t;
    }
    return a->acc[s];
}

/* The seek target after a run died in front of the character at byte
 * offset `at` (its code point having no transition; next as run_dead
 * gives it): the smallest string it could still take there, term[0..at)
 * then `next`; with no such character, past every string starting with
 * term[0..at) (its last byte below 0xFF incremented, what follows
 * dropped). */
static size_t seek_target(const char *term, size_t at, uint32_t next, char *out) {
    memcpy(out, term, at);
    size_t n = at;
    if (next != UINT32_MAX) {
        n += tv_utf8_encode(next, (uint8_t *)out + at);
    } else {
        while (n && (uint8_t)out[n - 1] == 0xFF) n--;
        if (n) out[n - 1] = (char)((uint8_t)out[n - 1] + 1);
    }
    return n;
}

bool tv_automaton_next(const tv_automaton *a, const char *term, size_t len, char *out, size_t *out_len) {
    size_t at;
    uint32_t next;
    *out_len = SIZE_MAX;
    if (run_dead(a, term, len, &at, &next)) return true;
    if (at == SIZE_MAX) return false;
    *out_len = seek_target(term, at, next, out);
    return false;
}

bool tv_automaton_cursor_init(tv_automaton_cursor *c, const tv_automaton *a, size_t max_len,
                              tv_arena *arena) {
    c->a = a;
    c->cap = max_len;
    c->valid = 0;
    c->states = tv_arena_alloc(arena, (max_len + 1) * sizeof(int32_t));
    if (!c->states) return false;
    c->states[0] = 0;
    return true;
}

bool tv_automaton_cursor_next(tv_automaton_cursor *c, const char *term, size_t len, size_t shared,
                              char *out, size_t *out_len) {
    const tv_automaton *a = c->a;
    *out_len = SIZE_MAX;
    if (a->empty || len > c->cap) {
        c->valid = 0;
        return tv_automaton_next(a, term, len, out, out_len);
    }
    size_t v = c->valid < shared ? c->valid : shared;
    while (v > 0 && c->states[v] < 0) v--; /* back to a code point boundary */
    const uint8_t *p = (const uint8_t *)term + v, *end = (const uint8_t *)term + len;
    int32_t *states = c->states;
    uint32_t s = (uint32_t)states[v];
    while (p < end) {
        const uint8_t *here = p;
        uint32_t cp = *p;
        int32_t t;
        if (cp < 0x80 && a->ascii) {
            t = a->ascii[(size_t)s * 128 + cp];
            p++;
        } else {
            p += tv_utf8_decode(p, end, &cp);
            t = step(a, s, cp);
        }
        size_t at = (size_t)(here - (const uint8_t *)term);
        if (t < 0) {
            c->valid = at;
            *out_len = seek_target(term, at, next_taken(a, s, cp), out);
            return false;
        }
        for (size_t i = at + 1; i < (size_t)(p - (const uint8_t *)term); i++) states[i] = -1;
        s = (uint32_t)t;
        states[p - (const uint8_t *)term] = t;
    }
    c->valid = len;
    return a->acc[s];
}

bool tv_automaton_accept(const void *state, const char *term, size_t len) {
    return tv_automaton_run((const tv_automaton *)state, term, len);
}

const char *tv_automaton_prefix(const tv_automaton *a, size_t *len) {
    *len = a->prefix_len;
    return a->prefix;
}

const char *tv_automaton_tail_suffix(const tv_automaton *a, size_t *len) {
    *len = a->tail_never_dies ? a->suffix_len : 0;
    return a->tail_never_dies ? a->suffix : NULL;
}

bool tv_automaton_is_empty(const tv_automaton *a) { return a->empty; }
bool tv_automaton_is_total(const tv_automaton *a) { return a->total; }
uint32_t tv_automaton_states(const tv_automaton *a) { return a->n; }

bool tv_automaton_single(const tv_automaton *a, const char **s, size_t *len) {
    if (!a->single || a->empty) return false;
    *s = a->single_s;
    *len = a->single_len;
    return true;
}

/* ============================================================ code points */

size_t tv_cp_count(const char *s, size_t len) {
    const uint8_t *p = (const uint8_t *)s, *end = p + len;
    size_t n = 0;
    while (p < end) {
        uint32_t cp;
        p += tv_utf8_decode(p, end, &cp);
        n++;
    }
    return n;
}

/* Decodes UTF-8 into a heap array of code points (*n set). */
static uint32_t *decode_all(const char *s, size_t len, size_t *n) {
    uint32_t *cps = tv_malloc((len ? len : 1) * sizeof(uint32_t));
    if (!cps) return NULL;
    const uint8_t *p = (const uint8_t *)s, *end = p + len;
    size_t k = 0;
    while (p < end) p += tv_utf8_decode(p, end, &cps[k++]);
    *n = k;
    return cps;
}

/* Java's Character.toLowerCase / toUpperCase of one code point. */
static uint32_t cp_case(uint32_t cp, bool lower) {
    uint8_t enc[4];
    size_t k = tv_utf8_encode(cp, enc);
    tv_buf b;
    tv_buf_init(&b);
    if (lower) tv_utf8_lower((const char *)enc, k, &b);
    else tv_utf8_upper((const char *)enc, k, &b);
    uint32_t r = cp;
    if (!b.oom && b.len) tv_utf8_decode((const uint8_t *)b.data, (const uint8_t *)b.data + b.len, &r);
    tv_buf_fini(&b);
    return r;
}

/* A code point matching itself and its case twins. */
static frag f_char_ci(nfa *a, uint32_t cp, bool ascii_only) {
    uint32_t alts[3] = {cp, cp, cp};
    size_t n = 1;
    if (ascii_only) {
        if (cp <= 128) {
            if (cp >= 'a' && cp <= 'z') alts[n++] = cp - 32;
            else if (cp >= 'A' && cp <= 'Z') alts[n++] = cp + 32;
        }
    } else {
        uint32_t lo = cp_case(cp, true), up = cp_case(cp, false);
        if (lo != cp) alts[n++] = lo;
        if (up != cp && up != lo) alts[n++] = up;
    }
    frag f;
    f.s = new_state(a);
    f.e = new_state(a);
    for (size_t i = 0; i < n; i++) add_char(a, f.s, alts[i], alts[i], f.e);
    return f;
}

/* ================================================================ regexp */

enum {
    RE_UNION,
    RE_CONCAT,
    RE_INTER,
    RE_OPT,
    RE_STAR,
    RE_MIN,
    RE_MINMAX,
    RE_COMPL,
    RE_CHAR,
    RE_SET, /* sorted disjoint ranges */
    RE_EMPTY,
    RE_STRING,
    RE_ANYSTRING,
    RE_INTERVAL,
};

typedef struct re_node re_node;
struct re_node {
    uint8_t kind;
    re_node *x, *y;
    uint32_t c;
    int64_t min, max;
    int digits;
    uint32_t *r; /* RE_SET: 2 * nr bounds; RE_STRING: code points */
    uint32_t nr;
};

typedef struct re_parser {
    const uint32_t *cp;
    size_t n, pos;
    int flags;
    int depth;
    tv_arena *tmp;
    tv_status st;
    tv_error *err;
} re_parser;

#define RE_MAX_DEPTH 500

/* Position in UTF-16 units, as Java reports. */
static size_t u16pos(const re_parser *p, size_t pos) {
    size_t u = 0;
    for (size_t i = 0; i < pos && i < p->n; i++) u += p->cp[i] > 0xFFFF ? 2 : 1;
    return u;
}

static re_node *re_fail(re_parser *p, const char *fmt, size_t pos) {
    if (p->st == TROVE_OK) p->st = tv_error_set(p->err, TROVE_EARG, fmt, u16pos(p, pos));
    return NULL;
}

static re_node *re_oom(re_parser *p) {
    if (p->st == TROVE_OK) p->st = tv_error_oom(p->err);
    return NULL;
}

static re_node *re_new(re_parser *p, uint8_t kind) {
    re_node *n = tv_arena_calloc(p->tmp, 1, sizeof(re_node));
    if (!n) {
        if (p->st == TROVE_OK) p->st = tv_error_oom(p->err);
        return NULL;
    }
    n->kind = kind;
    return n;
}

static re_node *re_pair(re_parser *p, uint8_t kind, re_node *x, re_node *y) {
    if (!x || (!y && kind != RE_OPT && kind != RE_STAR && kind != RE_COMPL && kind != RE_MIN &&
               kind != RE_MINMAX))
        return NULL;
    re_node *n = re_new(p, kind);
    if (n) {
        n->x = x;
        n->y = y;
    }
    return n;
}

static bool more(re_parser *p) { return p->pos < p->n; }
static bool peek(re_parser *p, const char *set) {
    return more(p) && p->cp[p->pos] < 128 && p->cp[p->pos] && strchr(set, (int)p->cp[p->pos]);
}
static bool match(re_parser *p, uint32_t c) {
    if (more(p) && p->cp[p->pos] == c) {
        p->pos++;
        return true;
    }
    return false;
}
static bool check(re_parser *p, int flag) { return (p->flags & flag) != 0; }
static bool next_cp(re_parser *p, uint32_t *c) {
    if (!more(p)) {
        if (p->st == TROVE_OK) p->st = tv_error_set(p->err, TROVE_EARG, "unexpected end-of-string");
        return false;
    }
    *c = p->cp[p->pos++];
    return true;
}

static re_node *parse_union(re_parser *p);

/* Range sets ---------------------------------------------------------- */

typedef TV_VEC(uint32_t) rvec;

static int cmp_pair(const void *x, const void *y) {
    const uint32_t *a = x, *b = y;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Sorts and merges ranges in place. */
static void rset_norm(rvec *v) {
    size_t n = v->len / 2;
    if (n == 0) return;
    qsort(v->items, n, 2 * sizeof(uint32_t), cmp_pair);
    size_t w = 0;
    for (size_t i = 1; i < n; i++) {
        uint32_t lo = v->items[2 * i], hi = v->items[2 * i + 1];
        if (lo <= v->items[2 * w + 1] + 1) {
            if (hi > v->items[2 * w + 1]) v->items[2 * w + 1] = hi;
        } else {
            w++;
            v->items[2 * w] = lo;
            v->items[2 * w + 1] = hi;
        }
    }
    v->len = 2 * (w + 1);
}

static bool rset_add(rvec *v, uint32_t lo, uint32_t hi) {
    return tv_vec_push(v, lo) == 0 && tv_vec_push(v, hi) == 0;
}

/* Complement within [0, TV_MAX_CP]; v must be normalized. */
static bool rset_negate(rvec *v) {
    rvec r = {0};
    uint32_t next = 0;
    for (size_t i = 0; i < v->len; i += 2) {
        if (v->items[i] > next && !rset_add(&r, next, v->items[i] - 1)) goto oom;
        next = v->items[i + 1] + 1;
    }
    if (next <= TV_MAX_CP && !rset_add(&r, next, TV_MAX_CP)) goto oom;
    tv_vec_fini(v);
    *v = r;
    return true;
oom:
    tv_vec_fini(&r);
    return false;
}

/* Adds a predefined class (\d \D \s \S \w \W) to v. */
static bool rset_predef(rvec *v, uint32_t cls) {
    rvec t = {0};
    bool ok = true;
    switch (cls) {
    case 'd':
    case 'D':
        ok = rset_add(&t, '0', '9');
        break;
    case 's':
    case 'S':
        ok = rset_add(&t, ' ', ' ') && rset_add(&t, '\t', '\t') && rset_add(&t, '\n', '\n') &&
             rset_add(&t, '\r', '\r');
        break;
    default: /* w W */
        ok = rset_add(&t, 'a', 'z') && rset_add(&t, 'A', 'Z') && rset_add(&t, '_', '_') &&
             rset_add(&t, '0', '9');
        break;
    }
    rset_norm(&t);
    if (ok && cls >= 'A' && cls <= 'Z') ok = rset_negate(&t);
    for (size_t i = 0; ok && i < t.len; i += 2) ok = rset_add(v, t.items[i], t.items[i + 1]);
    tv_vec_fini(&t);
    return ok;
}

static re_node *set_node(re_parser *p, rvec *v) {
    rset_norm(v);
    re_node *n = re_new(p, RE_SET);
    if (!n) return NULL;
    n->r = (uint32_t *)tv_arena_memdup(p->tmp, v->items ? (const char *)v->items : "",
                           v->len * sizeof(uint32_t));
    if (!n->r) {
        if (p->st == TROVE_OK) p->st = tv_error_oom(p->err);
        return NULL;
    }
    n->nr = (uint32_t)(v->len / 2);
    return n;
}

/* After a consumed '\': a predefined class letter (returns 1 and sets
 * *cls), an escaped backslash (returns 2, *cls = '\\'), an error (-1), or
 * nothing special (0: the caller reads the escaped character). Mirrors
 * Lucene's matchPredefinedCharacterClass. */
static int predefined(re_parser *p, uint32_t *cls) {
    if (!match(p, '\\')) return 0;
    if (peek(p, "dDwWsS")) {
        *cls = p->cp[p->pos++];
        return 1;
    }
    if (peek(p, "\\")) {
        *cls = p->cp[p->pos++];
        return 2;
    }
    if (peek(p, "abcefghijklmnopqrtuvxyz") || peek(p, "ABCEFGHIJKLMNOPQRTUVXYZ")) {
        uint32_t c = p->cp[p->pos++];
        if (p->st == TROVE_OK)
            p->st = tv_error_set(p->err, TROVE_EARG, "invalid character class \\%c", (char)c);
        return -1;
    }
    return 0;
}

/* Lucene's parseCharExp: an optional '\' then any code point. */
static bool parse_char_exp(re_parser *p, uint32_t *c) {
    match(p, '\\');
    return next_cp(p, c);
}

static void ci_add(re_parser *p, rvec *v, uint32_t c) {
    if ((p->flags & TV_RE_CASE_INSENSITIVE) && c <= 128) {
        if (c >= 'a' && c <= 'z') rset_add(v, c - 32, c - 32);
        else if (c >= 'A' && c <= 'Z') rset_add(v, c + 32, c + 32);
    }
}

static re_node *parse_char_class_exp(re_parser *p) {
    /* '[' already matched */
    bool negate = match(p, '^');
    rvec v = {0};
    re_node *res = NULL;
    do {
        uint32_t cls;
        int pd = predefined(p, &cls);
        if (pd < 0) goto out;
        if (pd == 1) {
            if (!rset_predef(&v, cls)) goto oom;
            continue;
        }
        uint32_t c;
        if (pd == 2) c = cls;
        else if (!parse_char_exp(p, &c)) goto out;
        if (pd != 2 && match(p, '-')) {
            uint32_t to;
            if (!parse_char_exp(p, &to)) goto out;
            if (c > to) {
                if (p->st == TROVE_OK)
                    p->st = tv_error_set(p->err, TROVE_EARG,
                                         "invalid range: from (%u) cannot be > to (%u)", c, to);
                goto out;
            }
            if (!rset_add(&v, c, to)) goto oom;
        } else {
            if (!rset_add(&v, c, c)) goto oom;
            ci_add(p, &v, c);
        }
    } while (more(p) && !peek(p, "]"));
    rset_norm(&v);
    if (negate && !rset_negate(&v)) goto oom;
    if (!match(p, ']')) {
        re_fail(p, "expected ']' at position %zu", p->pos);
        goto out;
    }
    res = set_node(p, &v);
    goto out;
oom:
    if (p->st == TROVE_OK) p->st = tv_error_oom(p->err);
out:
    tv_vec_fini(&v);
    return res;
}

static re_node *string_node(re_parser *p, const uint32_t *s, size_t n) {
    re_node *e = re_new(p, RE_STRING);
    if (!e) return NULL;
    e->r = (uint32_t *)tv_arena_memdup(p->tmp, n ? (const char *)s : "", n * sizeof(uint32_t));
    e->nr = (uint32_t)n;
    if (!e->r) return NULL;
    return e;
}

static bool parse_int(const uint32_t *s, size_t n, int64_t *out) {
    /* Java Integer.parseInt: optional sign, digits, int range */
    size_t i = 0;
    bool neg = false;
    if (n == 0) return false;
    if (s[0] == '+' || s[0] == '-') {
        neg = s[0] == '-';
        i = 1;
        if (n == 1) return false;
    }
    int64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
        if (v > 2147483648LL) return false;
    }
    if (neg) v = -v;
    if (v > 2147483647LL || v < -2147483648LL) return false;
    *out = v;
    return true;
}

static re_node *parse_simple(re_parser *p) {
    if (match(p, '.')) {
        rvec v = {0};
        if (!rset_add(&v, 0, TV_MAX_CP)) return re_oom(p);
        re_node *n = set_node(p, &v);
        tv_vec_fini(&v);
        return n;
    }
    if (check(p, TV_RE_EMPTY) && match(p, '#')) return re_new(p, RE_EMPTY);
    if (check(p, TV_RE_ANYSTRING) && match(p, '@')) return re_new(p, RE_ANYSTRING);
    if (match(p, '"')) {
        size_t start = p->pos;
        while (more(p) && !peek(p, "\"")) p->pos++;
        if (!match(p, '"')) return re_fail(p, "expected '\"' at position %zu", p->pos);
        return string_node(p, p->cp + start, p->pos - 1 - start);
    }
    if (match(p, '(')) {
        if (match(p, ')')) return string_node(p, NULL, 0);
        if (++p->depth > RE_MAX_DEPTH) {
            if (p->st == TROVE_OK)
                p->st = tv_error_set(p->err, TROVE_EARG, "regular expression is nested too deeply");
            return NULL;
        }
        re_node *e = parse_union(p);
        p->depth--;
        if (!e) return NULL;
        if (!match(p, ')')) return re_fail(p, "expected ')' at position %zu", p->pos);
        return e;
    }
    if ((check(p, TV_RE_AUTOMATON) || check(p, TV_RE_INTERVAL)) && match(p, '<')) {
        size_t start = p->pos;
        while (more(p) && !peek(p, ">")) p->pos++;
        if (!match(p, '>')) return re_fail(p, "expected '>' at position %zu", p->pos);
        const uint32_t *s = p->cp + start;
        size_t n = p->pos - 1 - start, dash = SIZE_MAX, ndash = 0;
        for (size_t i = 0; i < n; i++)
            if (s[i] == '-') {
                if (dash == SIZE_MAX) dash = i;
                ndash++;
            }
        if (dash == SIZE_MAX) {
            if (!check(p, TV_RE_AUTOMATON))
                return re_fail(p, "interval syntax error at position %zu", p->pos - 1);
            /* named automata: no provider is configured, as in OpenSearch */
            tv_buf b;
            tv_buf_init(&b);
            for (size_t i = 0; i < n; i++) {
                uint8_t enc[4];
                tv_buf_append(&b, enc, tv_utf8_encode(s[i], enc));
            }
            if (p->st == TROVE_OK)
                p->st = tv_error_set(p->err, TROVE_EARG, "'%.*s' not found", (int)TV_MIN(b.len, 512),
                                     b.data ? b.data : "");
            tv_buf_fini(&b);
            return NULL;
        }
        if (!check(p, TV_RE_INTERVAL))
            return re_fail(p, "illegal identifier at position %zu", p->pos - 1);
        int64_t lo, hi;
        if (dash == 0 || dash == n - 1 || ndash != 1 || !parse_int(s, dash, &lo) ||
            !parse_int(s + dash + 1, n - dash - 1, &hi))
            return re_fail(p, "interval syntax error at position %zu", p->pos - 1);
        re_node *e = re_new(p, RE_INTERVAL);
        if (!e) return NULL;
        e->digits = dash == n - dash - 1 ? (int)dash : 0;
        if (lo > hi) {
            int64_t t = lo;
            lo = hi;
            hi = t;
        }
        if (lo < 0) return re_fail(p, "interval syntax error at position %zu", p->pos - 1);
        e->min = lo;
        e->max = hi;
        return e;
    }
    uint32_t cls;
    int pd = predefined(p, &cls);
    if (pd < 0) return NULL;
    if (pd == 1) {
        rvec v = {0};
        re_node *n = NULL;
        if (rset_predef(&v, cls)) n = set_node(p, &v);
        else re_oom(p);
        tv_vec_fini(&v);
        return n;
    }
    uint32_t c;
    if (pd == 2) c = cls;
    else if (!parse_char_exp(p, &c)) return NULL;
    re_node *e = re_new(p, RE_CHAR);
    if (e) e->c = c;
    return e;
}

static re_node *parse_charclass_or_simple(re_parser *p) {
    if (match(p, '[')) return parse_char_class_exp(p);
    return parse_simple(p);
}

static re_node *parse_compl(re_parser *p) {
    size_t n = 0;
    while (check(p, TV_RE_COMPLEMENT) && match(p, '~')) n++;
    re_node *e = parse_charclass_or_simple(p);
    while (e && n--) e = re_pair(p, RE_COMPL, e, NULL);
    return e;
}

static re_node *parse_repeat(re_parser *p) {
    re_node *e = parse_compl(p);
    while (e && peek(p, "?*+{")) {
        if (match(p, '?')) e = re_pair(p, RE_OPT, e, NULL);
        else if (match(p, '*')) e = re_pair(p, RE_STAR, e, NULL);
        else if (match(p, '+')) {
            e = re_pair(p, RE_MIN, e, NULL);
            if (e) e->min = 1;
        } else if (match(p, '{')) {
            size_t start = p->pos;
            while (peek(p, "0123456789")) p->pos++;
            if (start == p->pos) return re_fail(p, "integer expected at position %zu", p->pos);
            int64_t n, m = -1;
            if (!parse_int(p->cp + start, p->pos - start, &n)) {
                if (p->st == TROVE_OK) {
                    tv_buf b;
                    tv_buf_init(&b);
                    for (size_t i = start; i < p->pos; i++) tv_buf_putc(&b, (char)p->cp[i]);
                    p->st = tv_error_set(p->err, TROVE_EARG, "For input string: \"%.*s\"",
                                         (int)TV_MIN(b.len, 64), b.data ? b.data : "");
                    tv_buf_fini(&b);
                }
                return NULL;
            }
            if (match(p, ',')) {
                start = p->pos;
                while (peek(p, "0123456789")) p->pos++;
                if (start != p->pos && !parse_int(p->cp + start, p->pos - start, &m)) {
                    if (p->st == TROVE_OK)
                        p->st = tv_error_set(p->err, TROVE_EARG, "For input string: \"%zu digits\"",
                                             p->pos - start);
                    return NULL;
                }
            } else {
                m = n;
            }
            if (!match(p, '}')) return re_fail(p, "expected '}' at position %zu", p->pos);
            if (m == -1) {
                e = re_pair(p, RE_MIN, e, NULL);
                if (e) e->min = n;
            } else {
                e = re_pair(p, RE_MINMAX, e, NULL);
                if (e) {
                    e->min = n;
                    e->max = m;
                }
            }
        }
    }
    return e;
}

static re_node *parse_concat(re_parser *p) {
    re_node *e = parse_repeat(p);
    while (e && more(p) && !peek(p, ")|") && (!check(p, TV_RE_INTERSECTION) || !peek(p, "&")))
        e = re_pair(p, RE_CONCAT, e, parse_repeat(p));
    return e;
}

static re_node *parse_inter(re_parser *p) {
    re_node *e = parse_concat(p);
    while (e && check(p, TV_RE_INTERSECTION) && match(p, '&'))
        e = re_pair(p, RE_INTER, e, parse_concat(p));
    return e;
}

static re_node *parse_union(re_parser *p) {
    re_node *e = parse_inter(p);
    while (e && match(p, '|')) e = re_pair(p, RE_UNION, e, parse_inter(p));
    return e;
}

/* Decimal intervals ---------------------------------------------------- */

/* Strings of length L (positions i.. of L) between lo and hi (digit
 * strings of length L), constrained by tightness. */
static frag digits_between(nfa *a, const char *lo, const char *hi, int L, int i, bool tlo,
                           bool thi) {
    if (a->st != TROVE_OK) return (frag){0, 0};
    if (i == L) return f_epsilon(a);
    if (!tlo && !thi) {
        frag f = f_range(a, '0', '9');
        for (int k = i + 1; k < L; k++) f = f_concat(a, f, f_range(a, '0', '9'));
        return f;
    }
    char lc = tlo ? lo[i] : '0', hc = thi ? hi[i] : '9';
    if (lc == hc) return f_concat(a, f_range(a, (uint32_t)lc, (uint32_t)lc),
                                  digits_between(a, lo, hi, L, i + 1, tlo, thi));
    frag f = f_concat(a, f_range(a, (uint32_t)lc, (uint32_t)lc),
                      digits_between(a, lo, hi, L, i + 1, tlo, false));
    if (hc - lc >= 2)
        f = f_union(a, f,
                    f_concat(a, f_range(a, (uint32_t)lc + 1, (uint32_t)hc - 1),
                             digits_between(a, lo, hi, L, i + 1, false, false)));
    f = f_union(a, f,
                f_concat(a, f_range(a, (uint32_t)hc, (uint32_t)hc),
                         digits_between(a, lo, hi, L, i + 1, false, thi)));
    return f;
}

static frag f_interval(nfa *a, int64_t min, int64_t max, int digits) {
    char lo[24], hi[24];
    if (digits > 0) {
        /* exactly `digits` characters, zero-padded */
        int ly = snprintf(hi, sizeof(hi), "%lld", (long long)max);
        if (ly > digits || digits > 20) return f_nothing(a);
        snprintf(lo, sizeof(lo), "%0*lld", digits, (long long)min);
        snprintf(hi, sizeof(hi), "%0*lld", digits, (long long)max);
        return digits_between(a, lo, hi, digits, 0, true, true);
    }
    /* any number of leading zeros, then the number */
    frag body = {0, 0};
    bool have = false;
    if (min == 0) {
        body = f_range(a, '0', '0');
        have = true;
    }
    int64_t from = min < 1 ? 1 : min;
    if (max >= 1) {
        int lx = snprintf(lo, sizeof(lo), "%lld", (long long)from);
        int ly = snprintf(hi, sizeof(hi), "%lld", (long long)max);
        for (int L = lx; L <= ly; L++) {
            char l[24], h[24];
            if (L == lx) memcpy(l, lo, (size_t)L + 1);
            else {
                l[0] = '1';
                memset(l + 1, '0', (size_t)L - 1);
                l[L] = 0;
            }
            if (L == ly) memcpy(h, hi, (size_t)L + 1);
            else {
                memset(h, '9', (size_t)L);
                h[L] = 0;
            }
            frag f = digits_between(a, l, h, L, 0, true, true);
            body = have ? f_union(a, body, f) : f;
            have = true;
        }
    }
    if (!have) return f_nothing(a);
    frag zeros = f_star(a, f_range(a, '0', '0'));
    return f_concat(a, zeros, body);
}

/* AST -> NFA ----------------------------------------------------------- */

static bool is_spine(uint8_t k) { return k == RE_UNION || k == RE_CONCAT || k == RE_INTER; }

static frag build(nfa *a, const re_node *e, int flags);

/* Union / concatenation / intersection chains are left-deep (the parser
 * builds them in a loop): walk the spine instead of recursing on it. */
static frag build_spine(nfa *a, const re_node *e, int flags) {
    frag none = {0, 0};
    uint8_t k = e->kind;
    size_t n = 0;
    for (const re_node *t = e; t->kind == k; t = t->x) n++;
    const re_node **items = tv_malloc((n + 1) * sizeof(*items));
    if (!items) {
        nfa_oom(a);
        return none;
    }
    size_t i = n;
    const re_node *t = e;
    while (t->kind == k) {
        items[i--] = t->y;
        t = t->x;
    }
    items[0] = t;
    frag f = build(a, items[0], flags);
    for (i = 1; i <= n && a->st == TROVE_OK; i++) {
        frag y = build(a, items[i], flags);
        if (a->st != TROVE_OK) break;
        if (k == RE_UNION) f = f_union(a, f, y);
        else if (k == RE_CONCAT) f = f_concat(a, f, y);
        else f = f_intersect(a, f, y);
    }
    tv_free(items);
    return a->st == TROVE_OK ? f : none;
}

static frag build(nfa *a, const re_node *e, int flags) {
    frag none = {0, 0};
    if (a->st != TROVE_OK) return none;
    switch (e->kind) {
    case RE_UNION:
    case RE_CONCAT:
    case RE_INTER:
        return build_spine(a, e, flags);
    case RE_OPT:
        return f_optional(a, build(a, e->x, flags));
    case RE_STAR:
        return f_star(a, build(a, e->x, flags));
    case RE_MIN:
    case RE_MINMAX: {
        int64_t min = e->min, max = e->kind == RE_MINMAX ? e->max : -1;
        if (max >= 0 && min > max) return f_nothing(a);
        size_t edges_before = a->ce.len;
        uint32_t states_before = a->n;
        frag one = build(a, e->x, flags);
        if (a->st != TROVE_OK) return none;
        /* Lucene refuses (states - 1) * count above the work limit; the
         * range edges of one copy stand for its states - 1 */
        int64_t per = (int64_t)(a->ce.len - edges_before);
        int64_t count = max >= 0 ? max : min;
        if (per * count > a->limit) {
            too_complex(a, a->n - states_before, a->ce.len - edges_before, (long)(per * count));
            return none;
        }
        if ((uint64_t)(a->n - states_before + 2) * (uint64_t)(count + 1) > NFA_HARD_CAP) {
            too_complex(a, a->n, a->ce.len, a->limit);
            return none;
        }
        frag f = f_epsilon(a);
        for (int64_t i = 0; i < min && a->st == TROVE_OK; i++) {
            frag x = i == 0 ? one : build(a, e->x, flags);
            f = f_concat(a, f, x);
        }
        if (max < 0) {
            frag x = min == 0 ? one : build(a, e->x, flags);
            f = f_concat(a, f, f_star(a, x));
        } else {
            /* x{0,k} as (x(x(x)?)?)? */
            int64_t opt = max - min;
            if (opt > 0) {
                frag tail = f_optional(a, min == 0 ? one : build(a, e->x, flags));
                for (int64_t i = 1; i < opt && a->st == TROVE_OK; i++) {
                    frag x = build(a, e->x, flags);
                    tail = f_optional(a, f_concat(a, x, tail));
                }
                f = f_concat(a, f, tail);
            }
        }
        return f;
    }
    case RE_COMPL: {
        frag x = build(a, e->x, flags);
        if (a->st != TROVE_OK) return none;
        return f_complement(a, x);
    }
    case RE_CHAR:
        if (flags & TV_RE_CASE_INSENSITIVE) return f_char_ci(a, e->c, true);
        return f_range(a, e->c, e->c);
    case RE_SET: {
        frag f;
        f.s = new_state(a);
        f.e = new_state(a);
        for (uint32_t i = 0; i < e->nr; i++) add_char(a, f.s, e->r[2 * i], e->r[2 * i + 1], f.e);
        return f;
    }
    case RE_EMPTY:
        return f_nothing(a);
    case RE_STRING: {
        frag f = f_epsilon(a);
        for (uint32_t i = 0; i < e->nr; i++) {
            frag c = (flags & TV_RE_CASE_INSENSITIVE) ? f_char_ci(a, e->r[i], true)
                                                       : f_range(a, e->r[i], e->r[i]);
            f = f_concat(a, f, c);
        }
        return f;
    }
    case RE_ANYSTRING:
        return f_anystring(a);
    case RE_INTERVAL:
        return f_interval(a, e->min, e->max, e->digits);
    }
    return none;
}

/* Nesting depth that build() recurses through: unary chains (a***, ~~~a)
 * and parenthesised groups, not the left-deep spines. */
static int re_depth(const re_node *e) {
    int d = 0;
    while (e && !is_spine(e->kind) && e->x) {
        d++;
        e = e->x;
    }
    if (!e) return d;
    if (is_spine(e->kind)) {
        int best = 0;
        uint8_t k = e->kind;
        while (e->kind == k) {
            int r = re_depth(e->y);
            if (r > best) best = r;
            e = e->x;
        }
        int r = re_depth(e);
        if (r > best) best = r;
        d += best + 1;
    }
    return d;
}

tv_status tv_regexp_compile(const char *re, size_t len, int flags, int work_limit, tv_arena *arena,
                            tv_automaton **out, tv_error *err) {
    *out = NULL;
    if (flags & ~0x1ff)
        return tv_error_set(err, TROVE_EARG, "Illegal syntax flag");
    size_t n = 0;
    uint32_t *cps = decode_all(re, len, &n);
    if (!cps) return tv_error_oom(err);
    tv_arena tmp;
    tv_arena_init(&tmp);
    re_parser p = {cps, n, 0, flags, 0, &tmp, TROVE_OK, err};
    re_node *e;
    if (n == 0) e = string_node(&p, NULL, 0);
    else {
        e = parse_union(&p);
        if (e && p.pos < p.n) e = re_fail(&p, "end-of-string expected at position %zu", p.pos);
    }
    tv_status st = p.st;
    if (st == TROVE_OK && !e) st = tv_error_oom(err);
    if (st == TROVE_OK && re_depth(e) > 2 * RE_MAX_DEPTH)
        st = tv_error_set(err, TROVE_EARG, "regular expression is nested too deeply");
    if (st == TROVE_OK) {
        nfa a;
        nfa_init(&a, work_limit, err);
        a.what = re;
        a.what_len = len;
        frag f = build(&a, e, flags);
        a.what = NULL; /* the final determinization names the automaton */
        if (a.st == TROVE_OK) compile_frag(&a, f, arena, out);
        st = a.st;
        nfa_fini(&a);
    }
    tv_arena_fini(&tmp);
    tv_free(cps);
    return st;
}

bool tv_regexp_parse_flags(const char *s, size_t len, int *out, tv_error *err) {
    static const struct {
        const char *name;
        int v;
    } names[] = {{"INTERSECTION", TV_RE_INTERSECTION}, {"COMPLEMENT", TV_RE_COMPLEMENT},
                 {"EMPTY", TV_RE_EMPTY},               {"ANYSTRING", TV_RE_ANYSTRING},
                 {"INTERVAL", TV_RE_INTERVAL},         {"NONE", TV_RE_NONE},
                 {"ALL", TV_RE_ALL}};
    if (len == 0) {
        *out = TV_RE_ALL;
        return true;
    }
    int magic = TV_RE_NONE;
    size_t i = 0;
    while (i <= len) {
        size_t j = i;
        while (j < len && s[j] != '|') j++;
        size_t n = j - i;
        if (n > 0) {
            int found = -1;
            for (size_t k = 0; k < TV_ARRAY_LEN(names) && found < 0; k++) {
                if (strlen(names[k].name) != n) continue;
                bool eq = true;
                for (size_t m = 0; m < n && eq; m++) {
                    char c = s[i + m];
                    if (c >= 'a' && c <= 'z') c = (char)(c - 32);
                    eq = c == names[k].name[m];
                }
                if (eq) found = (int)k;
            }
            if (found < 0) {
                tv_error_set(err, TROVE_EARG, "Unknown regexp flag [%.*s]", (int)TV_MIN(n, 200),
                             s + i);
                return false;
            }
            if (names[found].v == TV_RE_ALL) {
                *out = TV_RE_ALL;
                return true;
            }
            magic |= names[found].v;
        }
        i = j + 1;
    }
    *out = magic;
    return true;
}

/* ============================================================ wildcards */

tv_status tv_wildcard_compile(const char *pat, size_t len, bool case_insensitive, int work_limit,
                              tv_arena *arena, tv_automaton **out, tv_error *err) {
    *out = NULL;
    size_t n = 0;
    uint32_t *cps = decode_all(pat, len, &n);
    if (!cps) return tv_error_oom(err);
    nfa a;
    nfa_init(&a, work_limit, err);
    frag f = f_epsilon(&a);
    for (size_t i = 0; i < n && a.st == TROVE_OK; i++) {
        uint32_t c = cps[i];
        frag x;
        if (c == '*') x = f_anystring(&a);
        else if (c == '?') x = f_range(&a, 0, TV_MAX_CP);
        else {
            if (c == '\\' && i + 1 < n) c = cps[++i];
            x = case_insensitive ? f_char_ci(&a, c, false) : f_range(&a, c, c);
        }
        f = f_concat(&a, f, x);
    }
    tv_status st = compile_frag(&a, f, arena, out);
    nfa_fini(&a);
    tv_free(cps);
    return st;
}

tv_status tv_prefix_compile(const char *prefix, size_t len, bool case_insensitive,
                            tv_arena *arena, tv_automaton **out, tv_error *err) {
    *out = NULL;
    size_t n = 0;
    uint32_t *cps = decode_all(prefix, len, &n);
    if (!cps) return tv_error_oom(err);
    nfa a;
    nfa_init(&a, INT32_MAX / 16, err);
    frag f = f_epsilon(&a);
    for (size_t i = 0; i < n && a.st == TROVE_OK; i++)
        f = f_concat(&a, f, case_insensitive ? f_char_ci(&a, cps[i], false)
                                             : f_range(&a, cps[i], cps[i]));
    f = f_concat(&a, f, f_anystring(&a));
    tv_status st = compile_frag(&a, f, arena, out);
    nfa_fini(&a);
    tv_free(cps);
    return st;
}

/* ============================================================ Levenshtein */

tv_status tv_levenshtein_compile(const char *term, size_t len, int max_edits, int prefix_len,
                                 bool transpositions, tv_arena *arena, tv_automaton **out,
                                 tv_error *err) {
    *out = NULL;
    if (max_edits < 0 || max_edits > 2)
        return tv_error_set(err, TROVE_EARG, "maxEdits must be between 0 and 2");
    if (prefix_len < 0) return tv_error_set(err, TROVE_EARG, "prefixLength cannot be negative.");
    size_t n = 0;
    uint32_t *cps = decode_all(term, len, &n);
    if (!cps) return tv_error_oom(err);
    nfa a;
    nfa_init(&a, INT32_MAX / 16, err);
    size_t pl = TV_MIN((size_t)prefix_len, n);
    frag f = f_epsilon(&a);
    for (size_t i = 0; i < pl; i++) f = f_concat(&a, f, f_range(&a, cps[i], cps[i]));
    const uint32_t *t = cps + pl;
    size_t m = n - pl;
    int k = max_edits;
    if (m == 0 || k == 0) {
        for (size_t i = 0; i < m; i++) f = f_concat(&a, f, f_range(&a, t[i], t[i]));
    } else if (a.st == TROVE_OK) {
        /* states (i, e): i code points of t consumed, e edits spent */
        size_t cols = (size_t)k + 1;
        if ((m + 1) * cols * 2 + 4 > NFA_HARD_CAP) {
            too_complex(&a, a.n, a.ce.len, a.limit);
        } else {
            uint32_t base = a.n;
            for (size_t i = 0; i < (m + 1) * cols; i++) new_state(&a);
            uint32_t tbase = a.n; /* transposition states T(i, e) */
            for (size_t i = 0; i < (m + 1) * cols; i++) new_state(&a);
            uint32_t fin = new_state(&a);
#define LS(i, e) (base + (uint32_t)((i) * cols + (size_t)(e)))
#define TS(i, e) (tbase + (uint32_t)((i) * cols + (size_t)(e)))
            add_eps(&a, f.e, LS(0, 0));
            for (size_t i = 0; i <= m; i++) {
                for (int e = 0; e <= k; e++) {
                    if (i < m) add_char(&a, LS(i, e), t[i], t[i], LS(i + 1, e));
                    if (e < k) {
                        add_char(&a, LS(i, e), 0, TV_MAX_CP, LS(i, e + 1)); /* insertion */
                        if (i < m) {
                            add_char(&a, LS(i, e), 0, TV_MAX_CP, LS(i + 1, e + 1)); /* subst */
                            add_eps(&a, LS(i, e), LS(i + 1, e + 1));               /* deletion */
                        }
                        if (transpositions && i + 1 < m && t[i] != t[i + 1]) {
                            add_char(&a, LS(i, e), t[i + 1], t[i + 1], TS(i, e));
                            add_char(&a, TS(i, e), t[i], t[i], LS(i + 2, e + 1));
                        }
                    }
                    if (i == m) add_eps(&a, LS(i, e), fin);
                }
            }
#undef LS
#undef TS
            f.e = fin;
        }
    }
    tv_status st = compile_frag(&a, f, arena, out);
    nfa_fini(&a);
    tv_free(cps);
    return st;
}

int tv_edit_distance(const char *as, size_t alen, const char *bs, size_t blen, int max,
                     bool transpositions) {
    size_t n = 0, m = 0;
    uint32_t *a = decode_all(as, alen, &n);
    uint32_t *b = decode_all(bs, blen, &m);
    int *rows = tv_malloc(3 * (m + 1) * sizeof(int));
    int result = max + 1;
    if (!a || !b || !rows) goto out;
    if ((n > m ? n - m : m - n) > (size_t)max) goto out;
    int *pp = rows, *prev = rows + (m + 1), *cur = rows + 2 * (m + 1);
    for (size_t j = 0; j <= m; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = (int)i;
        int rowmin = cur[0];
        for (size_t j = 1; j <= m; j++) {
            int cost = a[i - 1] == b[j - 1] ? 0 : 1;
            int v = prev[j - 1] + cost;
            if (prev[j] + 1 < v) v = prev[j] + 1;
            if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
            if (transpositions && i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                pp[j - 2] + 1 < v)
                v = pp[j - 2] + 1;
            cur[j] = v;
            if (v < rowmin) rowmin = v;
        }
        if (rowmin > max) goto out;
        int *t = pp;
        pp = prev;
        prev = cur;
        cur = t;
    }
    result = prev[m] > max ? max + 1 : prev[m];
out:
    tv_free(a);
    tv_free(b);
    tv_free(rows);
    return result;
}

int tv_fuzziness_distance(const char *spec, size_t n, const char *term, size_t term_len) {
    int low = 3, high = 6;
    bool is_auto = false;
    if (n >= 4 && (spec[0] | 32) == 'a' && (spec[1] | 32) == 'u' && (spec[2] | 32) == 't' &&
        (spec[3] | 32) == 'o') {
        if (n == 4) is_auto = true;
        else if (spec[4] == ':') {
            const char *p = spec + 5, *end = spec + n, *comma = memchr(p, ',', (size_t)(end - p));
            int64_t l, h;
            if (!comma || !tv_parse_i64(p, (size_t)(comma - p), &l) ||
                !tv_parse_i64(comma + 1, (size_t)(end - comma - 1), &h) || l < 0 || h < l ||
                h > INT32_MAX)
                return -1;
            low = (int)l;
            high = (int)h;
            is_auto = true;
        } else {
            return -1;
        }
    }
    if (is_auto) {
        size_t cps = tv_cp_count(term, term_len);
        if (cps < (size_t)low) return 0;
        if (cps < (size_t)high) return 1;
        return 2;
    }
    /* a number: Java Float.parseFloat, then (int), capped at 2 */
    char buf[64];
    if (n == 0 || n >= sizeof(buf)) return -1;
    memcpy(buf, spec, n);
    buf[n] = 0;
    char *endp;
    double v = strtod(buf, &endp);
    if (*endp == 'f' || *endp == 'F' || *endp == 'd' || *endp == 'D') endp++;
    if (*endp != 0 || v != v) return -1;
    if (v < 0) return -1;
    int d = v >= 2 ? 2 : (int)v;
    return d;
}
