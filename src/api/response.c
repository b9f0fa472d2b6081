/*
 * response.c — response post-processing (filter_path) and the settings
 * helpers shared by cluster settings, index templates and _settings
 * filtering.
 *
 * filter_path: OpenSearch filters the response while it is generated
 * (FilterPathBasedFilter over the XContent generator). trove generates the
 * whole JSON body, then parses it back and writes only what the filters
 * keep: one pass over the tree with, per filter, the position reached in
 * its dotted path. Rules as OpenSearch's: a filter is a comma list of
 * dotted paths; `*` matches within one name, `**` matches any number of
 * levels; a path prefixed with `-` excludes; with both, inclusions are
 * applied first and exclusions then removed. Arrays are transparent
 * (a path step applies to every element's object). Objects and arrays
 * that end up empty are dropped, as Jackson's filtering generator does
 * (so `{}` is answered when nothing matches). Re-parsing was chosen over
 * threading filters through every writer: bodies are small, and every
 * handler stays unaware of it.
 *
 * Settings: a settings object ({"index":{"a":1}}, {"index.a":"1"}) is
 * flattened to sorted dotted keys with string values (Settings' model:
 * numbers and booleans become strings, arrays stay lists of strings);
 * later duplicates win.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

/* --------------------------------------------------------- settings */

typedef TV_VEC(tv_kv) kvvec;

static const tv_json *str_json(tv_arena *a, const char *s, size_t n) {
    tv_json *j = tv_arena_calloc(a, 1, sizeof *j);
    char *c = tv_arena_strndup(a, s, n);
    if (!j || !c) return NULL;
    j->type = TV_JSON_STRING;
    j->len = (uint32_t)n;
    j->v.s = c;
    return j;
}

/* A scalar as Settings keeps it (a string), NULL for null; *bad for objects. */
static const tv_json *setting_value(tv_arena *a, const tv_json *v, bool *bad) {
    switch (v->type) {
    case TV_JSON_NULL: return NULL;
    case TV_JSON_STRING: return v;
    case TV_JSON_TRUE: return str_json(a, "true", 4);
    case TV_JSON_FALSE: return str_json(a, "false", 5);
    case TV_JSON_INT:
    case TV_JSON_UINT:
    case TV_JSON_DOUBLE:
        if (v->raw) return str_json(a, v->raw, v->raw_len);
        {
            char buf[40];
            int n = snprintf(buf, sizeof buf, "%g", tv_json_as_double(v));
            return str_json(a, buf, (size_t)n);
        }
    case TV_JSON_ARRAY: {
        tv_json *arr = tv_arena_calloc(a, 1, sizeof *arr);
        tv_json *items = v->len ? tv_arena_calloc(a, v->len, sizeof *items) : NULL;
        if (!arr || (v->len && !items)) return NULL;
        arr->type = TV_JSON_ARRAY;
        arr->len = v->len;
        arr->v.items = items;
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json *e = setting_value(a, &v->v.items[i], bad);
            if (*bad) return NULL;
            if (e)
                items[i] = *e;
            else
                items[i].type = TV_JSON_NULL;
        }
        return arr;
    }
    default: *bad = true; return NULL;
    }
}

static bool flatten_rec(tv_arena *a, const tv_json *v, const char *prefix, kvvec *out, bool *oom) {
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        char *key = prefix[0] ? tv_arena_sprintf(a, "%s.%s", prefix, m->key) : tv_arena_strndup(a, m->key, m->key_len);
        if (!key) return !(*oom = true);
        if (m->val.type == TV_JSON_OBJECT) {
            if (!flatten_rec(a, &m->val, key, out, oom)) return false;
            continue;
        }
        bool bad = false;
        const tv_json *sv = setting_value(a, &m->val, &bad);
        if (bad) continue;
        if (!sv && m->val.type != TV_JSON_NULL) return !(*oom = true);
        tv_kv kv = {.key = key, .val = sv};
        if (tv_vec_push(out, kv)) return !(*oom = true);
    }
    return true;
}

static int cmp_kv_key(const void *a, const void *b) {
    const tv_kv *x = a, *y = b;
    return strcmp(x->key, y->key);
}

bool tv_flatten_settings(tv_arena *a, const tv_json *obj, bool index_prefix, tv_kv **out, size_t *n) {
    *out = NULL;
    *n = 0;
    if (!obj || obj->type != TV_JSON_OBJECT) return true;
    kvvec v = {0};
    bool oom = false;
    if (!flatten_rec(a, obj, "", &v, &oom)) {
        tv_vec_fini(&v);
        return false;
    }
    for (size_t i = 0; index_prefix && i < v.len; i++) {
        if (strncmp(v.items[i].key, "index.", 6) == 0) continue;
        char *k = tv_arena_sprintf(a, "index.%s", v.items[i].key);
        if (!k) {
            tv_vec_fini(&v);
            return false;
        }
        v.items[i].key = k;
    }
    /* stable sort keeping the last of equal keys */
    for (size_t i = 1; i < v.len; i++) {
        tv_kv x = v.items[i];
        size_t j = i;
        while (j > 0 && cmp_kv_key(&v.items[j - 1], &x) > 0) {
            v.items[j] = v.items[j - 1];
            j--;
        }
        v.items[j] = x;
    }
    size_t k = 0;
    for (size_t i = 0; i < v.len; i++) {
        if (i + 1 < v.len && strcmp(v.items[i].key, v.items[i + 1].key) == 0) continue;
        v.items[k++] = v.items[i];
    }
    tv_kv *res = k ? tv_arena_calloc(a, k, sizeof *res) : NULL;
    if (k && !res) {
        tv_vec_fini(&v);
        return false;
    }
    if (k) memcpy(res, v.items, k * sizeof *res);
    tv_vec_fini(&v);
    *out = res;
    *n = k;
    return true;
}

/* Nested object of kv[lo, hi) skipping `skip` key bytes. */
static tv_json *nest(tv_arena *a, const tv_kv *kv, size_t lo, size_t hi, size_t skip) {
    tv_json *o = tv_arena_calloc(a, 1, sizeof *o);
    tv_json_member *mem = hi > lo ? tv_arena_calloc(a, hi - lo, sizeof *mem) : NULL;
    if (!o || (hi > lo && !mem)) return NULL;
    o->type = TV_JSON_OBJECT;
    o->v.members = mem;
    size_t i = lo;
    while (i < hi) {
        const char *k = kv[i].key + skip;
        const char *dot = strchr(k, '.');
        tv_json_member *m = &mem[o->len++];
        if (!dot) {
            m->key = k;
            m->key_len = (uint32_t)strlen(k);
            if (kv[i].val)
                m->val = *kv[i].val;
            else
                m->val.type = TV_JSON_NULL;
            i++;
            continue;
        }
        size_t seg = (size_t)(dot - k), j = i + 1;
        while (j < hi && strncmp(kv[j].key + skip, k, seg) == 0 && kv[j].key[skip + seg] == '.') j++;
        m->key = tv_arena_strndup(a, k, seg);
        m->key_len = (uint32_t)seg;
        tv_json *sub = nest(a, kv, i, j, skip + seg + 1);
        if (!m->key || !sub) return NULL;
        m->val = *sub;
        i = j;
    }
    return o;
}

tv_json *tv_kv_to_json(tv_arena *a, const tv_kv *kv, size_t n, bool flat) {
    if (!flat) {
        tv_json *nested = nest(a, kv, 0, n, 0);
        return nested ? tv_json_hm_order(a, nested) : NULL;
    }
    tv_json *o = tv_arena_calloc(a, 1, sizeof *o);
    tv_json_member *mem = n ? tv_arena_calloc(a, n, sizeof *mem) : NULL;
    if (!o || (n && !mem)) return NULL;
    o->type = TV_JSON_OBJECT;
    o->len = (uint32_t)n;
    o->v.members = mem;
    for (size_t i = 0; i < n; i++) {
        mem[i].key = kv[i].key;
        mem[i].key_len = (uint32_t)strlen(kv[i].key);
        if (kv[i].val)
            mem[i].val = *kv[i].val;
        else
            mem[i].val.type = TV_JSON_NULL;
    }
    return o;
}

/* ------------------------------------------------------- filter_path */

typedef struct fpath {
    const char **steps;
    size_t n;
    bool exclude;
} fpath;

/* Does step pattern match name? ("*" wildcards within a name). */
static bool step_match(const char *pat, const char *name, size_t len) {
    return tv_simple_match(pat, name, len);
}

/*
 * For each filter, the set of positions reached is tracked as a bitmask
 * (positions 0..63 within its steps). A key advances a position p when
 * steps[p] matches it, or stays there when steps[p] is "**".
 */
typedef struct fstate {
    uint64_t pos[16];
} fstate;

static bool advance(const fpath *f, size_t nf, const fstate *in, const char *key, size_t kl, fstate *out,
                    bool *full_incl, bool *full_excl, bool *any_incl, bool *any_excl) {
    *full_incl = *full_excl = *any_incl = *any_excl = false;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < nf; i++) {
        uint64_t cur = in->pos[i], next = 0;
        for (size_t p = 0; p < f[i].n && p < 63; p++) {
            if (!(cur >> p & 1)) continue;
            const char *st = f[i].steps[p];
            if (strcmp(st, "**") == 0) {
                next |= 1ull << p; /* ** absorbs this key */
                /* ** may also match zero levels: try the next step */
                if (p + 1 < f[i].n && step_match(f[i].steps[p + 1], key, kl)) next |= 1ull << (p + 2);
                if (p + 1 == f[i].n) next |= 1ull << f[i].n;
            } else if (step_match(st, key, kl)) {
                next |= 1ull << (p + 1);
            }
        }
        /* expand: a position at a "**" step is also at the step after it */
        for (size_t p = 0; p < f[i].n && p < 63; p++)
            if ((next >> p & 1) && strcmp(f[i].steps[p], "**") == 0 && p + 1 == f[i].n) next |= 1ull << f[i].n;
        out->pos[i] = next;
        bool full = f[i].n < 64 && (next >> f[i].n & 1);
        bool partial = (next & ~(f[i].n < 64 ? 1ull << f[i].n : 0)) != 0;
        if (f[i].exclude) {
            *full_excl = *full_excl || full;
            *any_excl = *any_excl || partial;
        } else {
            *full_incl = *full_incl || full;
            *any_incl = *any_incl || partial;
        }
    }
    return true;
}

/* Writes v filtered; returns whether anything was written. For
 * objects/arrays the body is buffered so empty containers vanish. */
static bool write_filtered(tv_jw *w, tv_buf *tmp_owner, const tv_json *v, const fpath *f, size_t nf,
                           const fstate *st, bool included, bool has_incl, const char *key, size_t kl);

static bool write_obj_filtered(tv_jw *w, const tv_json *v, const fpath *f, size_t nf, const fstate *st,
                               bool included, bool has_incl, const char *key, size_t kl) {
    /* children go into a scratch writer; only non-empty results are kept */
    tv_buf sb;
    tv_buf_init(&sb);
    tv_jw sw;
    tv_jw_init(&sw, &sb, false);
    bool any = false;
    if (v->type == TV_JSON_OBJECT) {
        tv_jw_obj_begin(&sw);
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json_member *m = &v->v.members[i];
            fstate ns;
            bool fi, fe, ai, ae;
            advance(f, nf, st, m->key, m->key_len, &ns, &fi, &fe, &ai, &ae);
            if (fe) continue;
            bool inc = included || fi;
            if (!inc && !ai && has_incl) continue;
            if (write_filtered(&sw, NULL, &m->val, f, nf, &ns, inc, has_incl, m->key, m->key_len)) any = true;
        }
        tv_jw_obj_end(&sw);
    } else {
        tv_jw_arr_begin(&sw);
        for (uint32_t i = 0; i < v->len; i++)
            if (write_filtered(&sw, NULL, &v->v.items[i], f, nf, st, included, has_incl, NULL, 0)) any = true;
        tv_jw_arr_end(&sw);
    }
    if (any || (included && v->len == 0)) {
        if (key) tv_jw_key(w, key, kl);
        tv_jw_raw(w, sb.data, sb.len);
        if (sb.oom) w->out->oom = true;
    }
    tv_buf_fini(&sb);
    return any || (included && v->len == 0);
}

static bool write_filtered(tv_jw *w, tv_buf *tmp_owner, const tv_json *v, const fpath *f, size_t nf,
                           const fstate *st, bool included, bool has_incl, const char *key, size_t kl) {
    (void)tmp_owner;
    if (v->type == TV_JSON_OBJECT || v->type == TV_JSON_ARRAY)
        return write_obj_filtered(w, v, f, nf, st, included, has_incl, key, kl);
    if (!included && has_incl) return false;
    if (key) tv_jw_key(w, key, kl);
    tv_jw_value(w, v);
    return true;
}

bool tv_filter_path_apply(tv_arena *a, const char *filter, const char *json, size_t len, bool pretty, tv_buf *out) {
    const char **parts = NULL;
    size_t np = tv_split_commas(a, filter, &parts);
    if (np == 0) return false;
    if (np > 16) np = 16;
    fpath *f = tv_arena_calloc(a, np, sizeof *f);
    if (!f) return false;
    bool has_incl = false;
    for (size_t i = 0; i < np; i++) {
        const char *p = parts[i];
        if (p[0] == '-') {
            f[i].exclude = true;
            p++;
        } else {
            has_incl = true;
        }
        f[i].n = tv_split_dots(a, p, &f[i].steps);
    }
    tv_json *root = NULL;
    if (tv_json_parse(a, json, len, &root, NULL) != TROVE_OK) return false;
    fstate st;
    memset(&st, 0, sizeof st);
    for (size_t i = 0; i < np; i++) st.pos[i] = 1;
    tv_jw w;
    tv_jw_init(&w, out, pretty);
    if (!write_filtered(&w, NULL, root, f, np, &st, !has_incl, has_incl, NULL, 0)) {
        tv_jw_obj_begin(&w);
        tv_jw_obj_end(&w);
    }
    return !out->oom;
}

size_t tv_split_dots(tv_arena *a, const char *s, const char ***out) {
    size_t n = 1;
    for (const char *p = s; *p; p++)
        if (*p == '.') n++;
    const char **l = tv_arena_calloc(a, n, sizeof *l);
    if (!l) {
        *out = NULL;
        return 0;
    }
    size_t k = 0;
    const char *b = s;
    for (const char *p = s;; p++) {
        if (*p == '.' || *p == '\0') {
            if (p > b) l[k++] = tv_arena_strndup(a, b, (size_t)(p - b));
            if (!*p) break;
            b = p + 1;
        }
    }
    *out = l;
    return k;
}
