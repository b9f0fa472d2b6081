/*
 * source.c — a hit's "_source" with includes/excludes applied, and the
 * "_version"/"_seq_no"/"_primary_term" members every kind of hit shares
 * (search hits, inner hits, top_hits).
 *
 * Filtering re-serialises the stored JSON (OpenSearch's
 * XContentMapValues.filter: a pattern matches a full dotted path; "*" is a
 * wildcard; an include of an object keeps all of it; an object only
 * partly included is kept only when something of it survives).
 *
 * Ownership: the parsed source lives in the caller's arena; nothing else
 * outlives a call.
 */
#include "fetch/fetch.h"

typedef struct src_filter {
    const char **inc;
    size_t ninc;
    const char **exc;
    size_t nexc;
} src_filter;

static bool glob(const char *p, const char *s, size_t sl) { return tv_glob_match(p, strlen(p), s, sl); }

static bool any_glob(const char **ps, size_t n, const char *path, size_t len) {
    for (size_t i = 0; i < n; i++)
        if (glob(ps[i], path, len)) return true;
    return false;
}

/* can some include pattern match a path below `path.`? */
static bool inc_below(const char **ps, size_t n, const char *path, size_t len) {
    for (size_t i = 0; i < n; i++) {
        const char *p = ps[i];
        size_t pl = strlen(p);
        /* compare the pattern's prefix up to the first '*' */
        size_t k = 0;
        while (k < pl && k < len && p[k] != '*' && p[k] == path[k]) k++;
        if (k < pl && p[k] == '*') return true;
        if (k == len && k < pl && p[k] == '.') return true;
    }
    return false;
}

static void write_filtered(tv_jw *w, const tv_json *v, const src_filter *sf, tv_buf *path, bool included);

static void write_filtered_obj(tv_jw *w, const tv_json *v, const src_filter *sf, tv_buf *path, bool included) {
    tv_jw_obj_begin(w);
    size_t base = path->len;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        path->len = base;
        if (base) tv_buf_putc(path, '.');
        tv_buf_append(path, m->key, m->key_len);
        if (sf->nexc && any_glob(sf->exc, sf->nexc, path->data, path->len)) continue;
        bool inc = included || !sf->ninc || any_glob(sf->inc, sf->ninc, path->data, path->len);
        if (!inc) {
            if (m->val.type != TV_JSON_OBJECT && m->val.type != TV_JSON_ARRAY) continue;
            if (!inc_below(sf->inc, sf->ninc, path->data, path->len)) continue;
            /* only keep a partially-included object when something survives */
            tv_buf probe;
            tv_buf_init(&probe);
            tv_jw pw;
            tv_jw_init(&pw, &probe, false);
            tv_buf p2;
            tv_buf_init(&p2);
            tv_buf_append(&p2, path->data, path->len);
            write_filtered(&pw, &m->val, sf, &p2, false);
            bool empty = probe.len <= 2;
            tv_buf_fini(&probe);
            tv_buf_fini(&p2);
            if (empty) continue;
        }
        tv_jw_key(w, m->key, m->key_len);
        write_filtered(w, &m->val, sf, path, inc);
    }
    path->len = base;
    if (path->data) path->data[base] = 0;
    tv_jw_obj_end(w);
}

static void write_filtered(tv_jw *w, const tv_json *v, const src_filter *sf, tv_buf *path, bool included) {
    if (v->type == TV_JSON_OBJECT) {
        write_filtered_obj(w, v, sf, path, included);
    } else if (v->type == TV_JSON_ARRAY) {
        tv_jw_arr_begin(w);
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json *e = &v->v.items[i];
            if (e->type == TV_JSON_OBJECT || e->type == TV_JSON_ARRAY) write_filtered(w, e, sf, path, included);
            else if (included) tv_jw_value(w, e);
        }
        tv_jw_arr_end(w);
    } else {
        tv_jw_value(w, v);
    }
}

void tv_hit_write_versions(tv_jw *w, const tv_doc_meta *m, bool version, bool seq_no) {
    if (version) {
        tv_jw_keyz(w, "_version");
        tv_jw_int(w, m->version);
    }
    if (seq_no) {
        tv_jw_keyz(w, "_seq_no");
        tv_jw_int(w, m->seq_no);
        tv_jw_keyz(w, "_primary_term");
        tv_jw_int(w, m->primary_term);
    }
}

void tv_fetch_write_source(tv_jw *w, tv_arena *a, const char *src, size_t len, const char **inc, size_t ninc,
                           const char **exc, size_t nexc) {
    if (!ninc && !nexc) {
        tv_jw_raw(w, src, len);
        return;
    }
    src_filter sf = {inc, ninc, exc, nexc};
    tv_json *doc = NULL;
    if (tv_json_parse(a, src, len, &doc, NULL) != TROVE_OK) {
        tv_jw_raw(w, src, len);
        return;
    }
    tv_buf path;
    tv_buf_init(&path);
    write_filtered(w, doc, &sf, &path, false);
    tv_buf_fini(&path);
}
