/*
 * xcontent.c — what OpenSearch does to a JSON object through its Java
 * maps: the order a HashMap prints it in, XContentMapValues.filter
 * (_source includes and excludes) and XContentHelper.update (the partial
 * update merge). The index (a mapping's _source includes/excludes), the
 * fetch phase (a hit's _source filter) and the api (GET's _source filter,
 * _update) all filter through this one implementation.
 *
 * Key order. OpenSearch filters a source by parsing it into unordered Java
 * HashMaps (XContentHelper.convertToMap(bytes, ordered=false)) and printing
 * the filtered maps, so a filtered _source comes out in HashMap iteration
 * order at every level, not in document order. We reproduce that order:
 * Java's String.hashCode over UTF-16 code units, the spread h ^ (h >>> 16),
 * the table size a HashMap reaches by inserting n keys (16, doubling while
 * n > 0.75 * size), and insertion order within a bucket (resizes keep it).
 * The _update merge works on an ordered map of the stored source (existing
 * keys keep their place) and an unordered map of the partial doc (new keys
 * are appended in HashMap order), exactly as XContentHelper.update.
 *
 * Filtering follows XContentMapValues.filter: include and exclude patterns
 * ('*' wildcards) also match every path below a matching path; an object
 * is kept when it matched an include itself or kept something inside;
 * array elements that are objects are filtered, scalar elements survive
 * only when the array's own path was included. Paths are matched as
 * strings rather than compiled to automata: patterns and documents are
 * small, and the string form is easy to check against the Java code.
 */
#include <stdlib.h>
#include <string.h>

#include "json/json.h"

/* Can some extension of s match pat? */
static bool glob_alive(const char *pat, const char *s, size_t slen) {
    size_t i = 0;
    for (; pat[i] && i < slen; i++) {
        if (pat[i] == '*') return true;
        if (pat[i] != s[i]) return false;
    }
    return i == slen; /* s consumed: the rest of pat extends it */
}

/* ------------------------------------------------------- HashMap order */

typedef struct hm_item {
    uint32_t bucket;
    uint32_t seq;
    const tv_json_member *m;
    const tv_json *val; /* may differ from &m->val (merge) */
} hm_item;

static int cmp_hm(const void *a, const void *b) {
    const hm_item *x = a, *y = b;
    if (x->bucket != y->bucket) return x->bucket < y->bucket ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorts items (with seq = insertion order) into HashMap iteration order. */
static void hm_sort(hm_item *it, size_t n) {
    for (size_t i = 0; i < n; i++) it[i].bucket = tv_java_hm_bucket(it[i].m->key, it[i].m->key_len, n);
    qsort(it, n, sizeof *it, cmp_hm);
}

/* A copy of v whose objects list their members in HashMap iteration order
 * (stable by current member order), recursively: what printing a value
 * that went through unordered maps gives. */
tv_json *tv_json_hm_order(tv_arena *a, const tv_json *v) {
    tv_json *o = tv_arena_alloc(a, sizeof *o);
    if (!o) return NULL;
    *o = *v;
    if (v->type == TV_JSON_OBJECT && v->len) {
        hm_item *it = tv_arena_alloc(a, v->len * sizeof *it);
        tv_json_member *ms = tv_arena_alloc(a, v->len * sizeof *ms);
        if (!it || !ms) return NULL;
        for (uint32_t i = 0; i < v->len; i++) {
            it[i].seq = i;
            it[i].m = &v->v.members[i];
        }
        hm_sort(it, v->len);
        for (uint32_t i = 0; i < v->len; i++) {
            ms[i] = *it[i].m;
            tv_json *c = tv_json_hm_order(a, &it[i].m->val);
            if (!c) return NULL;
            ms[i].val = *c;
        }
        o->v.members = ms;
    } else if (v->type == TV_JSON_ARRAY && v->len) {
        tv_json *items = tv_arena_alloc(a, v->len * sizeof *items);
        if (!items) return NULL;
        for (uint32_t i = 0; i < v->len; i++) {
            tv_json *c = tv_json_hm_order(a, &v->v.items[i]);
            if (!c) return NULL;
            items[i] = *c;
        }
        o->v.items = items;
    }
    return o;
}

/* ------------------------------------------------------------ filtering */


typedef struct pats {
    const char *const *p;
    size_t n;
} pats;

/* accept: the path matches a pattern or lies below a matching path */
static bool pats_accept(const pats *ps, const char *s, size_t n) {
    for (size_t i = 0; i < ps->n; i++) {
        if (tv_simple_match(ps->p[i], s, n)) return true;
        for (size_t k = 0; k < n; k++)
            if (s[k] == '.' && tv_simple_match(ps->p[i], s, k)) return true;
    }
    return false;
}

/* alive: some extension of the path can still be accepted */
static bool pats_alive(const pats *ps, const char *s, size_t n) {
    for (size_t i = 0; i < ps->n; i++) {
        if (glob_alive(ps->p[i], s, n)) return true;
        for (size_t k = 0; k < n; k++)
            if (s[k] == '.' && tv_simple_match(ps->p[i], s, k)) return true;
    }
    return false;
}

/* An automaton state in string form: the path read so far, or dead, or
 * (include side) the match-all automaton. */
typedef struct ast {
    const char *path; /* arena string */
    size_t len;
    bool dead, all;
} ast;

typedef struct fctx {
    tv_arena *a;
    pats inc, exc;
    bool oom;
    bool hashmap; /* members in HashMap order (else document order) */
} fctx;

static ast st_step(fctx *c, const pats *ps, ast s, const char *str, size_t n) {
    if (s.dead || s.all) return s;
    char *p = tv_arena_alloc(c->a, s.len + n + 1);
    if (!p) {
        c->oom = true;
        s.dead = true;
        return s;
    }
    memcpy(p, s.path, s.len);
    memcpy(p + s.len, str, n);
    p[s.len + n] = '\0';
    ast o = {p, s.len + n, false, false};
    if (!pats_alive(ps, p, o.len)) o.dead = true;
    return o;
}

static bool st_accept(const pats *ps, ast s) {
    if (s.all) return true;
    if (s.dead) return false;
    return pats_accept(ps, s.path, s.len);
}

static tv_json *filter_list(fctx *c, const tv_json *arr, ast inc, ast exc);

static tv_json *filter_map(fctx *c, const tv_json *obj, ast inc, ast exc) {
    tv_json *o = tv_arena_calloc(c->a, 1, sizeof *o);
    tv_json_member *ms = obj->len ? tv_arena_alloc(c->a, obj->len * sizeof *ms) : NULL;
    hm_item *it = obj->len ? tv_arena_alloc(c->a, obj->len * sizeof *it) : NULL;
    if (!o || (obj->len && (!ms || !it))) {
        c->oom = true;
        return NULL;
    }
    o->type = TV_JSON_OBJECT;
    o->v.members = ms;
    for (uint32_t i = 0; i < obj->len; i++) {
        it[i].seq = i;
        it[i].m = &obj->v.members[i];
    }
    if (c->hashmap) hm_sort(it, obj->len); /* iterate the source HashMap */
    uint32_t n = 0;
    for (uint32_t i = 0; i < obj->len; i++) {
        const tv_json_member *m = it[i].m;
        ast is = st_step(c, &c->inc, inc, m->key, m->key_len);
        if (is.dead) continue;
        ast es = st_step(c, &c->exc, exc, m->key, m->key_len);
        if (!es.dead && st_accept(&c->exc, es)) continue;
        ast sub = is;
        bool inc_acc = st_accept(&c->inc, is);
        if (inc_acc) {
            if (es.dead || st_step(c, &c->exc, es, ".", 1).dead) {
                ms[n] = *m;
                n++;
                continue;
            }
            sub.all = true;
            sub.dead = false;
        }
        if (m->val.type == TV_JSON_OBJECT) {
            sub = st_step(c, &c->inc, sub, ".", 1);
            if (sub.dead) continue;
            if (!es.dead) es = st_step(c, &c->exc, es, ".", 1);
            tv_json *f = filter_map(c, &m->val, sub, es);
            if (!f) return NULL;
            if (inc_acc || f->len) {
                ms[n] = *m;
                ms[n].val = *f;
                n++;
            }
        } else if (m->val.type == TV_JSON_ARRAY) {
            tv_json *f = filter_list(c, &m->val, sub, es);
            if (!f) return NULL;
            if (inc_acc || f->len) {
                ms[n] = *m;
                ms[n].val = *f;
                n++;
            }
        } else if (inc_acc && (es.dead || !st_accept(&c->exc, es))) {
            ms[n] = *m;
            n++;
        }
    }
    o->len = n;
    return o;
}

static tv_json *filter_list(fctx *c, const tv_json *arr, ast inc, ast exc) {
    tv_json *o = tv_arena_calloc(c->a, 1, sizeof *o);
    tv_json *items = arr->len ? tv_arena_alloc(c->a, arr->len * sizeof *items) : NULL;
    if (!o || (arr->len && !items)) {
        c->oom = true;
        return NULL;
    }
    o->type = TV_JSON_ARRAY;
    o->v.items = items;
    bool is_include = st_accept(&c->inc, inc);
    uint32_t n = 0;
    for (uint32_t i = 0; i < arr->len; i++) {
        const tv_json *v = &arr->v.items[i];
        if (v->type == TV_JSON_OBJECT) {
            ast is = st_step(c, &c->inc, inc, ".", 1);
            ast es = exc.dead ? exc : st_step(c, &c->exc, exc, ".", 1);
            tv_json *f = filter_map(c, v, is, es);
            if (!f) return NULL;
            if (f->len) items[n++] = *f;
        } else if (v->type == TV_JSON_ARRAY) {
            tv_json *f = filter_list(c, v, inc, exc);
            if (!f) return NULL;
            if (f->len) items[n++] = *f;
        } else if (is_include) {
            items[n++] = *v;
        }
    }
    o->len = n;
    return o;
}

tv_json *tv_json_filter(tv_arena *a, const tv_json *src, const char *const *incl, size_t nincl,
                        const char *const *excl, size_t nexcl, bool hashmap) {
    if (src->type != TV_JSON_OBJECT) return hashmap ? tv_json_hm_order(a, src) : (tv_json *)src;
    fctx c = {a, {incl, nincl}, {excl, nexcl}, false, hashmap};
    ast inc = {"", 0, false, nincl == 0};
    ast exc = {"", 0, nexcl == 0, false};
    tv_json *f = filter_map(&c, src, inc, exc);
    if (!f || c.oom) return NULL;
    return hashmap ? tv_json_hm_order(a, f) : f;
}

/* ---------------------------------------------------------------- merge */


/* Java Objects.equals over parsed JSON values: numbers compare by type and
 * value (an Integer never equals a Double), maps regardless of order. */
static bool java_equal(const tv_json *a, const tv_json *b) {
    if (a->type != b->type) return false;
    switch (a->type) {
    case TV_JSON_NULL:
    case TV_JSON_TRUE:
    case TV_JSON_FALSE: return true;
    case TV_JSON_INT: return a->v.i == b->v.i;
    case TV_JSON_UINT: return a->v.u == b->v.u;
    case TV_JSON_DOUBLE: return a->v.d == b->v.d;
    case TV_JSON_STRING: return a->len == b->len && memcmp(a->v.s, b->v.s, a->len) == 0;
    case TV_JSON_ARRAY:
        if (a->len != b->len) return false;
        for (uint32_t i = 0; i < a->len; i++)
            if (!java_equal(&a->v.items[i], &b->v.items[i])) return false;
        return true;
    case TV_JSON_OBJECT:
        if (a->len != b->len) return false;
        for (uint32_t i = 0; i < a->len; i++) {
            const tv_json *o = tv_json_getn(b, a->v.members[i].key, a->v.members[i].key_len);
            if (!o || !java_equal(&a->v.members[i].val, o)) return false;
        }
        return true;
    }
    return false;
}

/* XContentHelper.update on (ordered base, unordered changes). Returns the
 * merged object in output order, NULL on OOM. */
static tv_json *merge_rec(tv_arena *a, const tv_json *base, const tv_json *changes, bool check,
                          bool *modified) {
    uint32_t nb = base->len, nc = changes->len;
    tv_json *o = tv_arena_calloc(a, 1, sizeof *o);
    tv_json_member *ms = tv_arena_alloc(a, ((size_t)nb + nc + 1) * sizeof *ms);
    hm_item *ch = tv_arena_alloc(a, ((size_t)nc + 1) * sizeof *ch);
    if (!o || !ms || !ch) return NULL;
    *o = *base;
    o->v.members = ms;
    if (nb) memcpy(ms, base->v.members, nb * sizeof *ms); /* members may be NULL when empty */
    uint32_t n = nb;
    for (uint32_t i = 0; i < nc; i++) {
        ch[i].seq = i;
        ch[i].m = &changes->v.members[i];
    }
    hm_sort(ch, nc);
    bool mod = false;
    for (uint32_t i = 0; i < nc; i++) {
        const tv_json_member *cm = ch[i].m;
        uint32_t bi = UINT32_MAX;
        for (uint32_t j = 0; j < n; j++)
            if (ms[j].key_len == cm->key_len && memcmp(ms[j].key, cm->key, cm->key_len) == 0) {
                bi = j;
                break;
            }
        if (bi == UINT32_MAX) {
            tv_json *v = tv_json_hm_order(a, &cm->val);
            if (!v) return NULL;
            ms[n] = *cm;
            ms[n].val = *v;
            n++;
            mod = true;
            continue;
        }
        const tv_json *old = &ms[bi].val;
        if (old->type == TV_JSON_OBJECT && cm->val.type == TV_JSON_OBJECT) {
            bool sub = false;
            tv_json *v = merge_rec(a, old, &cm->val, check && !mod, &sub);
            if (!v) return NULL;
            ms[bi].val = *v;
            mod |= sub;
        } else {
            tv_json *v = tv_json_hm_order(a, &cm->val);
            if (!v) return NULL;
            tv_json oldv = *old;
            ms[bi].val = *v;
            if (mod) continue;
            if (!check) {
                mod = true;
                continue;
            }
            mod = !java_equal(&oldv, &cm->val);
        }
    }
    o->len = n;
    *modified = mod;
    return o;
}

tv_json *tv_json_merge(tv_arena *a, const tv_json *base, const tv_json *changes, bool detect_noop,
                       bool *changed) {
    *changed = true;
    if (base->type != TV_JSON_OBJECT || changes->type != TV_JSON_OBJECT) return tv_json_hm_order(a, changes);
    return merge_rec(a, base, changes, detect_noop, changed);
}

