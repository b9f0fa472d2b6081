/*
 * fuzz_index_flat_object.c — feeds arbitrary bytes as a document to a
 * mapping with flat_object fields (one with depth_limit, normalizer and
 * ignore_above, one at the root) and a root set to strict_allow_templates
 * (an object inside relaxing it) with dynamic templates, merging dynamic updates
 * and parsing again as the engine does. Parsed fields must be sorted by
 * id, sub-field ids must lie in their reserved range, and looking the
 * input up as a field path twice must give the same field. Nothing may
 * crash, leak or trip a sanitizer.
 */
#include <stdint.h>
#include <string.h>

#include "index/index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char mapping_json[] =
    "{\"dynamic\":\"strict_allow_templates\",\"dynamic_templates\":["
    "{\"s\":{\"match\":\"s*\",\"match_mapping_type\":\"string\",\"mapping\":{\"type\":\"keyword\"}}},"
    "{\"o\":{\"match\":\"o*\",\"match_mapping_type\":\"object\",\"mapping\":{\"type\":\"object\","
    "\"properties\":{\"k\":{\"type\":\"keyword\"}}}}},"
    "{\"n\":{\"match\":\"n*\",\"mapping\":{\"type\":\"long\"}}}],"
    "\"properties\":{"
    "\"f\":{\"type\":\"flat_object\",\"depth_limit\":4,\"ignore_above\":8,\"null_value\":\"NULL\"},"
    "\"g\":{\"type\":\"flat_object\",\"doc_values\":false},"
    "\"lax\":{\"dynamic\":true,\"properties\":{}}}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *p = (const char *)data;
    tv_arena a;
    tv_arena_init(&a);
    tv_json *mj = NULL;
    tv_json_error je;
    tv_error err = TV_ERROR_INIT;
    if (tv_json_parse(&a, mapping_json, sizeof mapping_json - 1, &mj, &je) != TROVE_OK) {
        tv_arena_fini(&a);
        return 0;
    }
    tv_error_clear(&err);
    tv_mapping *m = tv_mapping_parse(mj, NULL, &err);
    for (int round = 0; m && round < 3; round++) {
        tv_parsed_doc d;
        tv_json *upd = NULL;
        tv_error_clear(&err);
        tv_status st = tv_doc_parse(m, "id", 2, p, size, &a, &d, &upd, &err);
        if (st != TROVE_OK) break;
        if (!upd) {
            for (uint32_t i = 0; i < d.nfields; i++) {
                if (i && d.fields[i - 1].field >= d.fields[i].field) __builtin_trap(); /* sorted */
                uint32_t id = d.fields[i].field;
                if (id < tv_mapping_field_count(m)) continue;
                /* a flat_object sub-field: outside the dense ids, in the
                 * range reserved for them */
                if (id < 0x80000000u || id > 0xBFFFFFFFu) __builtin_trap();
            }
            break;
        }
        tv_error_clear(&err);
        tv_mapping *m2 = tv_mapping_merge(m, upd, NULL, &err);
        if (!m2) break;
        tv_mapping_release(m);
        m = m2;
    }
    /* sub-field lookups by arbitrary path */
    if (m && size > 2) {
        const tv_field *f1 = tv_mapping_field(m, p, size);
        const tv_field *f2 = tv_mapping_field(m, p, size);
        if (f1 != f2) __builtin_trap();
    }
    tv_mapping_release(m);
    tv_arena_fini(&a);
    return 0;
}
