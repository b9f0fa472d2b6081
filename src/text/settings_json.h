/*
 * settings_json.h — flattening the "analysis" settings JSON into dotted
 * keys (internal to src/text). See settings_json.c.
 */
#ifndef TROVE_TEXT_SETTINGS_JSON_H
#define TROVE_TEXT_SETTINGS_JSON_H

#include "util/util.h"

typedef struct tv_sjson_val {
    const char *s; /* string form (NUL-terminated, in the arena) */
    size_t len;
    bool is_string, is_null;
} tv_sjson_val;

typedef struct tv_sjson_entry {
    const char *key; /* "analyzer.my.filter" */
    size_t key_len;
    tv_sjson_val *vals;
    size_t nvals;
    bool is_array;
} tv_sjson_entry;

typedef struct tv_sjson_list {
    tv_sjson_entry *items;
    size_t len, cap;
} tv_sjson_list;

/* Flattens [json, json+len) (an object) into out, everything in arena.
 * TROVE_EARG for malformed JSON or a non-object; TROVE_ENOMEM on OOM. */
tv_status tv_sjson_flatten(tv_arena *a, const char *json, size_t len, tv_sjson_list *out);

#endif /* TROVE_TEXT_SETTINGS_JSON_H */
