/*
 * config.c — a feed's configuration file (`trove sync --config FILE`,
 * `trove serve --data DIR --sync FILE`): one JSON object,
 *
 *   {"pg": "postgresql://...",
 *    "tables": ["public.orders",
 *               {"table": "public.products", "index": "catalog",
 *                "id": ["sku"], "exclude": ["cost"],
 *                "rename": {"title": "name"},
 *                "mappings": {"name": {"type": "text"}},
 *                "settings": {"number_of_shards": 1}}],
 *    "index_prefix": "", "slot": "trove_sync", "publication": "trove_sync",
 *    "batch_size": 5000, "in_flight": 1, "flush_interval": "0ms",
 *    "numeric_as_number": false}
 *
 * "pg" and "tables" are required; a table is its name or an object (see
 * tv_table_conf, and table.c for what each key means). An unknown key, or
 * a value of the wrong type, is an error naming it (a typo must not
 * silently feed the wrong thing); whether the names match the table's
 * columns is checked against the catalog when the feed starts. The
 * options keep the command line's defaults; on the command line an option
 * given after --config wins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync.h"

typedef struct storage {
    char *text;             /* the file */
    tv_arena arena;         /* its parse: every string o points to, and the lists */
    tv_table_conf *tables;
} storage;

void tv_feed_config_free(void *p) {
    storage *st = p;
    if (!st) return;
    tv_free(st->text);
    tv_arena_fini(&st->arena);
    tv_free(st);
}

/* "PATH: WHY KEY" on stderr (no space when why ends with '.': "tables[].id"). */
static bool bad(const char *path, const char *why, const char *key) {
    size_t n = strlen(why);
    const char *sep = !key || (n && why[n - 1] == '.') ? "" : " ";
    fprintf(stderr, "trove sync: %s: %s%s%s\n", path, why, sep, key ? key : "");
    return false;
}

/* A list of non-empty strings (column names) into *out (in A). */
static bool names(tv_arena *A, const tv_json *v, const char *const **out, size_t *n) {
    if (v->type != TV_JSON_ARRAY || v->len > 1600) return false;
    const char **list = tv_arena_calloc(A, v->len ? v->len : 1, sizeof *list);
    if (!list) return false;
    for (uint32_t i = 0; i < v->len; i++) {
        if (!tv_json_is_string(&v->v.items[i]) || !v->v.items[i].len) return false;
        list[i] = v->v.items[i].v.s;
    }
    *out = list;
    *n = v->len;
    return true;
}

/* One entry of "tables": a name, or an object. */
static bool table_conf(const char *path, tv_arena *A, const tv_json *v, tv_table_conf *tc) {
    memset(tc, 0, sizeof *tc);
    if (tv_json_is_string(v) && v->len) {
        tc->table = v->v.s;
        return true;
    }
    if (v->type != TV_JSON_OBJECT) return bad(path, "needs table names or objects in", "tables");
    for (uint32_t i = 0; i < v->len; i++) {
        const char *k = v->v.members[i].key;
        const tv_json *x = &v->v.members[i].val;
        if (strcmp(k, "table") == 0 || strcmp(k, "index") == 0) {
            if (!tv_json_is_string(x) || !x->len) return bad(path, "needs a non-empty string at tables[].", k);
            if (k[0] == 't') tc->table = x->v.s;
            else tc->index = x->v.s;
        } else if (strcmp(k, "id") == 0 || strcmp(k, "include") == 0 || strcmp(k, "exclude") == 0) {
            bool ok = k[0] == 'i' && k[1] == 'd'  ? names(A, x, &tc->id, &tc->nid) && tc->nid
                      : k[0] == 'i'               ? names(A, x, &tc->include, &tc->ninclude)
                                                  : names(A, x, &tc->exclude, &tc->nexclude);
            if (!ok) return bad(path, "needs an array of column names at tables[].", k);
        } else if (strcmp(k, "rename") == 0) {
            if (x->type != TV_JSON_OBJECT) return bad(path, "needs an object {column: field} at tables[].", k);
            const char **pairs = tv_arena_calloc(A, 2 * (size_t)x->len + 1, sizeof *pairs);
            if (!pairs) return bad(path, "out of memory", NULL);
            for (uint32_t r = 0; r < x->len; r++) {
                const tv_json *to = &x->v.members[r].val;
                if (!tv_json_is_string(to) || !to->len)
                    return bad(path, "needs a non-empty field name at tables[].rename.", x->v.members[r].key);
                pairs[2 * r] = x->v.members[r].key;
                pairs[2 * r + 1] = to->v.s;
            }
            tc->rename = pairs;
            tc->nrename = x->len;
        } else if (strcmp(k, "mappings") == 0) {
            if (x->type != TV_JSON_OBJECT) return bad(path, "needs an object {field: mapping} at tables[].", k);
            for (uint32_t m = 0; m < x->len; m++)
                if (x->v.members[m].val.type != TV_JSON_OBJECT)
                    return bad(path, "needs a mapping object at tables[].mappings.", x->v.members[m].key);
            tc->mappings = x;
        } else if (strcmp(k, "settings") == 0) {
            if (x->type != TV_JSON_OBJECT) return bad(path, "needs an object at tables[].", k);
            tc->settings = x;
        } else {
            return bad(path, "unknown key tables[].", k);
        }
    }
    if (!tc->table) return bad(path, "needs", "tables[].table");
    if (tc->include && tc->exclude) return bad(path, "takes include or exclude, not both, at tables[] of", tc->table);
    return true;
}

bool tv_feed_config_load(const char *path, tv_feed_opts *o, void **out) {
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return bad(path, "cannot be read", NULL);
    storage *st = tv_calloc(1, sizeof *st);
    tv_buf b;
    tv_buf_init(&b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) tv_buf_append(&b, chunk, n);
    fclose(f);
    if (!st || b.oom) {
        tv_buf_fini(&b);
        tv_free(st);
        return bad(path, "out of memory", NULL);
    }
    st->text = tv_buf_detach(&b, &n);
    tv_arena_init(&st->arena);
    *out = st;
    tv_json *root;
    tv_json_error je;
    if (tv_json_parse(&st->arena, st->text, n, &root, &je) != TROVE_OK) {
        fprintf(stderr, "trove sync: %s:%u:%u: %s\n", path, je.line, je.col, je.msg);
        return false;
    }
    if (root->type != TV_JSON_OBJECT) return bad(path, "must hold one JSON object", NULL);
    for (uint32_t i = 0; i < root->len; i++) {
        const tv_json_member *m = &root->v.members[i];
        const tv_json *v = &m->val;
        const char *k = m->key;
        if (strcmp(k, "pg") == 0 || strcmp(k, "index_prefix") == 0 || strcmp(k, "slot") == 0 ||
            strcmp(k, "publication") == 0) {
            if (!tv_json_is_string(v) || (strcmp(k, "index_prefix") != 0 && !v->len))
                return bad(path, "needs a non-empty string at", k);
            if (k[0] == 'p' && k[1] == 'g') o->pg = v->v.s;
            else if (k[0] == 'i') o->index_prefix = v->v.s;
            else if (k[0] == 's') o->slot = v->v.s;
            else o->publication = v->v.s;
        } else if (strcmp(k, "tables") == 0) {
            if (v->type != TV_JSON_ARRAY || v->len == 0 || v->len > 256)
                return bad(path, "needs an array of 1 to 256 tables at", k);
            st->tables = tv_arena_calloc(&st->arena, v->len, sizeof *st->tables);
            if (!st->tables) return bad(path, "out of memory", NULL);
            for (uint32_t t = 0; t < v->len; t++)
                if (!table_conf(path, &st->arena, &v->v.items[t], &st->tables[t])) return false;
            o->tables = st->tables;
            o->ntables = v->len;
        } else if (strcmp(k, "batch_size") == 0) {
            if (v->type != TV_JSON_INT || v->v.i < 1 || v->v.i > 1000000)
                return bad(path, "needs an integer from 1 to 1000000 at", k);
            o->batch_rows = (size_t)v->v.i;
        } else if (strcmp(k, "in_flight") == 0) {
            if (v->type != TV_JSON_INT || v->v.i < 0 || v->v.i > 1) return bad(path, "needs 0 or 1 at", k);
            o->in_flight = (int)v->v.i;
        } else if (strcmp(k, "flush_interval") == 0) {
            int64_t ns;
            if (!tv_json_is_string(v) || tv_parse_time_value(v->v.s, v->len, k, &ns, NULL) != TROVE_OK || ns < 0)
                return bad(path, "needs a time (\"200ms\", \"1s\") at", k);
            o->flush_ms = ns / 1000000;
        } else if (strcmp(k, "numeric_as_number") == 0) {
            if (v->type != TV_JSON_TRUE && v->type != TV_JSON_FALSE) return bad(path, "needs true or false at", k);
            o->values.numeric_as_number = v->type == TV_JSON_TRUE;
        } else {
            return bad(path, "unknown key", k);
        }
    }
    if (!o->pg) return bad(path, "needs", "\"pg\"");
    if (!o->ntables) return bad(path, "needs", "\"tables\"");
    return true;
}
