/*
 * tf_dedup.c — `unique` (OpenSearch's UniqueTokenFilter) and
 * `remove_duplicates` (Lucene's RemoveDuplicatesTokenFilter).
 *
 * unique drops a token whose term was seen before in the stream (or, with
 * only_on_same_position, before at the same position); the dropped token's
 * position increment is lost, as in OpenSearch's filter, which is not a
 * FilteringTokenFilter. remove_duplicates drops a stacked token (increment
 * 0) whose term an earlier token of its position already has.
 *
 * Seen terms live in a small open-addressing hash in the arena (FNV-1a of
 * the bytes), cleared per position when only positions matter; rejected: a
 * sorted list (a sort per token) and a linear scan (quadratic on long
 * texts).
 */
#include "text/text_int.h"

typedef struct seen_set {
    const tv_token **slots;
    size_t cap, n;
} seen_set;

static uint64_t fnv(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h;
}

static tv_status seen_init(tv_arena *a, seen_set *s, size_t want) {
    size_t cap = 16;
    while (cap < want * 2) cap *= 2;
    s->slots = tv_arena_alloc(a, cap * sizeof *s->slots);
    if (!s->slots) return TROVE_ENOMEM;
    memset(s->slots, 0, cap * sizeof *s->slots);
    s->cap = cap;
    s->n = 0;
    return TROVE_OK;
}

static void seen_clear(seen_set *s) {
    if (s->n) memset(s->slots, 0, s->cap * sizeof *s->slots);
    s->n = 0;
}

/* Adds t's term; returns whether it was there already. */
static bool seen_add(seen_set *s, const tv_token *t) {
    size_t m = s->cap - 1, i = (size_t)fnv(t->term, t->term_len) & m;
    for (;; i = (i + 1) & m) {
        const tv_token *o = s->slots[i];
        if (!o) break;
        if (o->term_len == t->term_len && memcmp(o->term, t->term, t->term_len) == 0) return true;
    }
    s->slots[i] = t;
    s->n++;
    return false;
}

typedef struct unique_cfg {
    bool same_position; /* only_on_same_position (remove_duplicates: always) */
} unique_cfg;

static tv_status unique_build(tv_comp *c, const void **out, tv_error *err) {
    unique_cfg *u = tv_comp_alloc(c, sizeof *u);
    if (!u) return TROVE_ENOMEM;
    memset(u, 0, sizeof *u);
    tv_status st = tv_comp_bool(c, "only_on_same_position", false, &u->same_position, err);
    if (st) return st;
    *out = u;
    return TROVE_OK;
}

static tv_status unique_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    static const unique_cfg dflt = {true};
    const unique_cfg *u = cfg ? cfg : &dflt;
    seen_set s;
    if (seen_init(a, &s, v->len)) return TROVE_ENOMEM;
    /* the kept tokens are compacted to the front; the set points at them */
    size_t o = 0;
    for (size_t i = 0; i < v->len; i++) {
        tv_token t = v->items[i];
        if (u->same_position && t.position > 0) seen_clear(&s);
        v->items[o] = t;
        bool dup = seen_add(&s, &v->items[o]);
        if (u->same_position && t.position > 0) dup = false;
        if (!dup) o++;
    }
    v->len = o;
    return TROVE_OK;
}

const tv_filter_type tv_tf_unique = {"unique", unique_build, unique_apply};
const tv_filter_type tv_tf_remove_duplicates = {"remove_duplicates", NULL, unique_apply};
