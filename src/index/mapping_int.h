/*
 * mapping_int.h — private to mapping.c and doc.c: the tree behind a
 * tv_mapping, and the parameters of each field as the user set them (what
 * GET _mapping prints and what merges compare).
 *
 * A mapping owns one arena holding every node, path, name and copied JSON
 * value; it is immutable once built and freed when its last reference goes.
 */
#ifndef TROVE_INDEX_MAPPING_INT_H
#define TROVE_INDEX_MAPPING_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "index/index.h"

/* Mapping parameters of leaf fields (the union over all types). */
typedef enum mparam {
    P_INDEX = 0, P_STORE, P_DOC_VALUES, P_INDEX_OPTIONS, P_NORMS, P_TERM_VECTOR, P_ANALYZER,
    P_SEARCH_ANALYZER, P_SEARCH_QUOTE_ANALYZER, P_SIMILARITY, P_POS_GAP, P_FIELDDATA,
    P_FIELDDATA_FF, P_EAGER, P_INDEX_PHRASES, P_INDEX_PREFIXES, P_BOOST, P_META, P_NULL_VALUE,
    P_IGNORE_ABOVE, P_USE_SIMILARITY, P_NORMALIZER, P_SPLIT_WS, P_IGNORE_MALFORMED, P_COERCE,
    P_SCALING_FACTOR, P_FORMAT, P_LOCALE, P_VALUE, P_IGNORE_Z, P_ENABLE_POS_INC,
    P_DEPTH_LIMIT, P_MAX_SHINGLE, P_MULTIVALUED,
    P_COUNT
} mparam;

typedef struct mnode mnode;
struct mnode {
    const char *name; /* simple name */
    uint32_t name_len;
    tv_field f;       /* f.path is the full path; f.id UINT32_MAX until assigned */
    bool is_multi;    /* a multi-field of its parent leaf */
    uint8_t hidden;   /* a sub-field the mapping adds (also is_multi), never
                         printed: text's 1 "_index_prefix" and 2
                         "_index_phrase" (not found by path either);
                         search_as_you_type's 3 "_<n>gram" and 4
                         "_index_prefix" (found by path); 0 otherwise */
    const char *decl_type; /* the type name the mapping declared when it differs
                              from tv_field_type_name(f.type) (aliases:
                              constant_keyword, wildcard, token_count); NULL
                              otherwise. Static string. */
    const tv_json *copy_to; /* array of target paths, NULL when unset */
    /* leaf parameters as given (NULL: not set), copied into the mapping arena */
    const tv_json *p[P_COUNT];
    /* object options */
    int8_t dynamic;   /* -1 unset, else tv_dynamic */
    int8_t enabled;   /* -1 unset, 0, 1 */
    /* field aliases: the "path" parameter (alias_to set, f is filled from
     * the target's entry when the mapping is finalized) */
    bool is_alias;
    const char *alias_to;
    uint32_t alias_to_len;
    int8_t nested_decl; /* objects: -1 no "type" given, 0 "object", 1 "nested"
                           (f.nested says what it is) */
    /* children: object properties or leaf multi-fields, in insertion order
     * until finalisation sorts them into kids[] */
    mnode *first, *last, *next;
    mnode **kids;
    uint32_t nkids;
};

struct tv_mapping {
    atomic_int refs;
    tv_arena arena;
    mnode *root;
    const tv_analysis *analysis; /* the registry its analyzers come from (may be NULL) */
    /* root options */
    tv_dynamic dynamic;
    bool dynamic_set;
    bool date_detection, date_detection_set;
    bool numeric_detection, numeric_detection_set;
    const tv_json *dynamic_date_formats; /* array of strings or NULL (default) */
    const tv_json *meta;                 /* _meta */
    const tv_json *dynamic_templates;    /* validated array, NULL when unset */
    bool source_enabled;
    const tv_json *source_includes, *source_excludes; /* arrays or NULL */
    bool source_enabled_set;
    bool routing_required, routing_set;
    /* fields */
    const tv_field **by_id;
    uint32_t nfields;
    const tv_field **by_path; /* sorted by path */
    uint32_t nleaves_paths;
    /* flat_object sub-fields ("f.a.b") handed out by tv_mapping_field:
     * synthesized on first lookup, chained through mnode.next, allocated in
     * the arena under flat_mu (the only mutable part of a published
     * mapping). has_flat: some field is a flat_object. */
    bool has_flat;
    pthread_mutex_t flat_mu;
    mnode *flat_subs;
    /* composed normalizers to free */
    tv_analyzer **owned_analyzers;
    uint32_t nowned;
};

/* The node of a field (cast back from tv_field: f is mnode's member). */
static inline const mnode *tv_mnode_of(const tv_field *f) {
    return (const mnode *)((const char *)f - offsetof(mnode, f));
}

/* The root "_doc" object and its sorted children, for doc.c. */
const mnode *tv_mapping_root(const tv_mapping *m);
/* A child of an object (property) or leaf (multi-field) by simple name. */
const mnode *tv_mnode_child(const mnode *n, const char *name, size_t len);
/* Effective dynamic setting of an object (inherits from its parents). */
tv_dynamic tv_mapping_dynamic_of(const tv_mapping *m, const char *obj_path, size_t len);

/* Java's toString of a parsed value ("true", "{a=b}", "[1, 2]"), for messages. */
void tv_json_to_java(const tv_json *v, tv_buf *b);

/* The first dynamic template of m that matches a new field (OpenSearch's
 * DynamicTemplate.match): `path` is the full dotted path, `name` the last
 * element, `mtype` the JSON type name ("string", "long", "double",
 * "boolean", "object", "date", "binary"). Returns the template's "mapping"
 * object with {name} and {dynamic_type} substituted (allocated in arena) or
 * NULL when none matches. `dynamic_type` is the default mapping type
 * ("text", "long", "float", "boolean", "object", "date"). */
const tv_json *tv_mapping_dynamic_template(const tv_mapping *m, const char *path, size_t plen,
                                           const char *name, size_t nlen, const char *mtype,
                                           const char *dynamic_type, tv_arena *arena);

/* flat_object: a field `f` declared "flat_object" is a keyword for every
 * query (tv_field.type TV_FT_KEYWORD). Each leaf value of the JSON object
 * under it is indexed as a keyword term in f itself and in the sub-field
 * of its dotted path ("f.a.b"), which tv_mapping_field synthesizes on
 * demand: same parameters as f, path "f.a.b", and an id outside the dense
 * range, TV_FLAT_SUB_ID_BASE | 30 bits of the FNV-1a hash of the path, so
 * that the document parser and every query agree on it without a mapping
 * update. (Two sub-paths whose hashes collide share postings: with n
 * distinct paths the chance is about n^2 / 2^31.) */
#define TV_FLAT_SUB_ID_BASE 0x80000000u
bool tv_field_is_flat_object(const tv_field *f);
/* The sub-field of a flat_object field `flat` for the path
 * flat->path + "." + rel (NULL on OOM). */
const tv_field *tv_mapping_flat_sub(const tv_mapping *m, const tv_field *flat, const char *rel,
                                    size_t rel_len);

/* Deep copy of a JSON value into an arena (NULL on OOM). */
tv_json *tv_json_copy(tv_arena *a, const tv_json *v);

#endif /* TROVE_INDEX_MAPPING_INT_H */
