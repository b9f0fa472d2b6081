/*
 * config.c — a feed's configuration file (`trove sync --config FILE`,
 * `trove serve --data DIR --sync FILE`): one JSON object,
 *
 *   {"pg": "postgresql://...", "tables": ["public.products", "orders"],
 *    "index_prefix": "", "slot": "trove_sync", "publication": "trove_sync",
 *    "batch_size": 5000, "numeric_as_number": false}
 *
 * "pg" and "tables" are required; an unknown key, or a value of the wrong
 * type, is an error naming it (a typo must not silently feed the wrong
 * thing). The options keep the command line's defaults; on the command line
 * an option given after --config wins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync.h"

typedef struct storage {
    char *text;             /* the file */
    tv_arena arena;         /* its parse: every string o points to */
    const char **tables;
} storage;

void tv_feed_config_free(void *p) {
    storage *st = p;
    if (!st) return;
    tv_free(st->text);
    tv_free(st->tables);
    tv_arena_fini(&st->arena);
    tv_free(st);
}

static bool bad(const char *path, const char *why, const char *key) {
    fprintf(stderr, "trove sync: %s: %s%s%s\n", path, why, key ? " " : "", key ? key : "");
    return false;
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
                return bad(path, "needs an array of 1 to 256 table names at", k);
            st->tables = tv_calloc(v->len, sizeof *st->tables);
            if (!st->tables) return bad(path, "out of memory", NULL);
            for (uint32_t t = 0; t < v->len; t++) {
                if (!tv_json_is_string(&v->v.items[t]) || !v->v.items[t].len)
                    return bad(path, "needs table names (strings) in", k);
                st->tables[t] = v->v.items[t].v.s;
            }
            o->tables = st->tables;
            o->ntables = v->len;
        } else if (strcmp(k, "batch_size") == 0) {
            if (v->type != TV_JSON_INT || v->v.i < 1 || v->v.i > 1000000)
                return bad(path, "needs an integer from 1 to 1000000 at", k);
            o->batch_rows = (size_t)v->v.i;
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
