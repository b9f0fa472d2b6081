/*
 * settings.c — index settings: parse a create-index "settings" object,
 * apply PUT _settings updates, and print GET _settings bodies.
 *
 * Model. Like OpenSearch's Settings, the truth is a flat, sorted list of
 * "index.*" keys to string values (or lists of strings), kept as one JSON
 * object in the settings' arena. Input in any spelling ({"index":{"a":1}},
 * {"a":1}, {"index.a":"1"}) is flattened; each key is checked against the
 * table of settings trove knows (type, bounds, dynamic or not) and the
 * typed view in tv_settings is derived from the flat list. The analysis
 * subtree is rebuilt as nested JSON and handed to the text layer.
 *
 * Output. Flat output is the sorted list. Nested output reproduces
 * OpenSearch's Settings.getAsStructuredMap(), whose maps are
 * java.util.HashMap(2) filled in sorted key order: members come out in
 * HashMap iteration order (bucket = spread(String.hashCode) & (capacity-1),
 * ties in insertion order), which is what clients see from a real cluster.
 * The order is computed, not stored, so it follows from the keys alone.
 *
 * Alternatives rejected: a typed struct only (GET _settings must echo
 * exactly what was given, including settings trove only stores); sorted
 * nested output (simpler, but not what OpenSearch prints).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>

#include "index/index.h"
#include "index/mapping_int.h"

#define TV_OPENSEARCH_VERSION_CREATED "137227827" /* 3.1.0: 3010099 ^ 0x08000000 */

typedef enum skind { S_INT, S_TIME, S_BOOL, S_STRING, S_ANY, S_BYTES, S_CODEC, S_DURABILITY } skind;

typedef struct sdef {
    const char *key;  /* full key; a trailing '*' matches a prefix */
    skind kind;
    int64_t min, max;
    bool dynamic;
    bool priv;        /* set by trove, never by users */
} sdef;

static const sdef defs[] = {
    {"index.number_of_shards", S_INT, 1, 1024, false, false},
    {"index.number_of_replicas", S_INT, 0, INT32_MAX, true, false},
    {"index.refresh_interval", S_TIME, -1, INT64_MAX, true, false},
    {"index.gc_deletes", S_TIME, -1, INT64_MAX, true, false},
    {"index.max_result_window", S_INT, 1, INT32_MAX, true, false},
    {"index.max_inner_result_window", S_INT, 1, INT32_MAX, true, false},
    {"index.max_rescore_window", S_INT, 1, INT32_MAX, true, false},
    {"index.max_docvalue_fields_search", S_INT, 0, INT32_MAX, true, false},
    {"index.max_script_fields", S_INT, 0, INT32_MAX, true, false},
    {"index.max_ngram_diff", S_INT, 0, INT32_MAX, true, false},
    {"index.max_shingle_diff", S_INT, 0, INT32_MAX, true, false},
    {"index.max_terms_count", S_INT, 1, INT32_MAX, true, false},
    {"index.max_regex_length", S_INT, 1, INT32_MAX, true, false},
    {"index.highlight.max_analyzed_offset", S_INT, 1, INT32_MAX, true, false},
    {"index.mapping.total_fields.limit", S_INT, 0, INT64_MAX, true, false},
    {"index.mapping.depth.limit", S_INT, 1, INT64_MAX, true, false},
    {"index.mapping.nested_fields.limit", S_INT, 0, INT64_MAX, true, false},
    {"index.mapping.field_name_length.limit", S_INT, 1, INT64_MAX, true, false},
    {"index.number_of_routing_shards", S_INT, 1, 1024, false, false},
    {"index.priority", S_INT, 0, INT32_MAX, true, false},
    {"index.hidden", S_BOOL, 0, 0, true, false},
    {"index.blocks.read_only", S_BOOL, 0, 0, true, false},
    {"index.blocks.read_only_allow_delete", S_BOOL, 0, 0, true, false},
    {"index.blocks.read", S_BOOL, 0, 0, true, false},
    {"index.blocks.write", S_BOOL, 0, 0, true, false},
    {"index.blocks.metadata", S_BOOL, 0, 0, true, false},
    {"index.codec", S_CODEC, 0, 0, false, false},
    {"index.codec.compression_level", S_INT, 1, 6, false, false},
    {"index.auto_expand_replicas", S_STRING, 0, 0, true, false},
    {"index.translog.durability", S_DURABILITY, 0, 0, true, false},
    {"index.translog.sync_interval", S_TIME, 0, INT64_MAX, true, false},
    {"index.translog.flush_threshold_size", S_BYTES, 0, INT64_MAX, true, false},
    {"index.translog.generation_threshold_size", S_BYTES, 0, INT64_MAX, true, false},
    {"index.translog.retention.age", S_TIME, -1, INT64_MAX, true, false},
    {"index.translog.retention.size", S_BYTES, -1, INT64_MAX, true, false},
    {"index.search.idle.after", S_TIME, 0, INT64_MAX, true, false},
    {"index.query.default_field", S_ANY, 0, 0, true, false},
    {"index.query_string.lenient", S_BOOL, 0, 0, true, false},
    {"index.derived_source.enabled", S_BOOL, 0, 0, false, false},
    {"index.derived_source.translog.enabled", S_BOOL, 0, 0, true, false},
    {"index.mapping.nested_objects.limit", S_INT, 0, INT64_MAX, true, false},
    {"index.mapping.total_fields.unmap_fields_beyond_limit", S_BOOL, 0, 0, true, false},
    {"index.soft_deletes.enabled", S_BOOL, 0, 0, false, false},
    {"index.soft_deletes.retention.operations", S_INT, 0, INT64_MAX, true, false},
    {"index.soft_deletes.retention_lease.period", S_TIME, 0, INT64_MAX, true, false},
    {"index.routing_partition_size", S_INT, 1, 1024, false, false},
    {"index.routing.rebalance.enable", S_STRING, 0, 0, true, false},
    {"index.unassigned.node_left.delayed_timeout", S_TIME, 0, INT64_MAX, true, false},
    {"index.requests.cache.enable", S_BOOL, 0, 0, true, false},
    {"index.queries.cache.enabled", S_BOOL, 0, 0, false, false},
    {"index.load_fixed_bitset_filters_eagerly", S_BOOL, 0, 0, false, false},
    {"index.shard.check_on_startup", S_STRING, 0, 0, false, false},
    {"index.max_slices_per_scroll", S_INT, 1, INT32_MAX, true, false},
    {"index.max_adjacency_matrix_filters", S_INT, 1, INT32_MAX, true, false},
    {"index.max_refresh_listeners", S_INT, 0, INT32_MAX, true, false},
    {"index.default_pipeline", S_STRING, 0, 0, true, false},
    {"index.final_pipeline", S_STRING, 0, 0, true, false},
    {"index.append_only.enabled", S_BOOL, 0, 0, false, false},
    {"index.search.concurrent_segment_search.enabled", S_BOOL, 0, 0, true, false},
    {"index.search.concurrent_segment_search.mode", S_STRING, 0, 0, true, false},
    {"index.search.slowlog.*", S_ANY, 0, 0, true, false},
    {"index.indexing.slowlog.*", S_ANY, 0, 0, true, false},
    {"index.merge.*", S_ANY, 0, 0, true, false},
    {"index.blocks.search_only", S_BOOL, 0, 0, true, false},
    {"index.replication.type", S_STRING, 0, 0, false, false},
    {"index.write.wait_for_active_shards", S_STRING, 0, 0, true, false},
    {"index.routing.allocation.*", S_ANY, 0, 0, true, false},
    {"index.store.type", S_STRING, 0, 0, false, false},
    {"index.analysis.*", S_ANY, 0, 0, false, false},
    {"index.uuid", S_STRING, 0, 0, false, true},
    {"index.creation_date", S_STRING, 0, 0, false, true},
    {"index.provided_name", S_STRING, 0, 0, false, true},
    {"index.version.created", S_STRING, 0, 0, false, true},
};

static const sdef *find_def(const char *k, size_t n) {
    for (size_t i = 0; i < TV_ARRAY_LEN(defs); i++) {
        size_t dl = strlen(defs[i].key);
        if (defs[i].key[dl - 1] == '*') {
            if (n >= dl - 1 && memcmp(k, defs[i].key, dl - 1) == 0) return &defs[i];
        } else if (tv_streq(k, n, defs[i].key)) {
            return &defs[i];
        }
    }
    return NULL;
}

/* ------------------------------------------------------------ flat list */

typedef struct kv {
    char *key;
    size_t key_len;
    tv_json *val; /* string, array of strings, or NULL (reset) */
} kv;

typedef TV_VEC(kv) kvvec;

static tv_json *jstr(tv_arena *a, const char *s, size_t n) {
    tv_json *j = tv_arena_calloc(a, 1, sizeof *j);
    if (!j) return NULL;
    j->type = TV_JSON_STRING;
    j->len = (uint32_t)n;
    j->v.s = tv_arena_memdup(a, s, n);
    return j->v.s ? j : NULL;
}

/* A scalar as the string OpenSearch stores. */
static tv_json *scalar_str(tv_arena *a, const tv_json *v) {
    switch (v->type) {
    case TV_JSON_STRING: return jstr(a, v->v.s, v->len);
    case TV_JSON_TRUE: return jstr(a, "true", 4);
    case TV_JSON_FALSE: return jstr(a, "false", 5);
    case TV_JSON_INT: case TV_JSON_UINT: case TV_JSON_DOUBLE: {
        if (v->raw) return jstr(a, v->raw, v->raw_len);
        char tmp[40];
        size_t n = tv_fmt_double(tv_json_as_double(v), tmp);
        return jstr(a, tmp, n);
    }
    default: return NULL;
    }
}

static tv_status flatten(tv_arena *a, const tv_json *v, const char *prefix, size_t plen, kvvec *out,
                         tv_error *err) {
    if (v->type == TV_JSON_OBJECT) {
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json_member *m = &v->v.members[i];
            size_t kl = plen + (plen ? 1 : 0) + m->key_len;
            char *k = tv_arena_alloc(a, kl + 1);
            if (!k) return tv_error_oom(err);
            if (plen) {
                memcpy(k, prefix, plen);
                k[plen] = '.';
            }
            memcpy(k + (plen ? plen + 1 : 0), m->key, m->key_len);
            k[kl] = '\0';
            tv_status st = flatten(a, &m->val, k, kl, out, err);
            if (st) return st;
        }
        return TROVE_OK;
    }
    kv e = {.key = (char *)prefix, .key_len = plen, .val = NULL};
    if (v->type == TV_JSON_ARRAY) {
        tv_json *arr = tv_arena_calloc(a, 1, sizeof *arr);
        if (!arr) return tv_error_oom(err);
        arr->type = TV_JSON_ARRAY;
        arr->len = v->len;
        arr->v.items = v->len ? tv_arena_calloc(a, v->len, sizeof(tv_json)) : NULL;
        if (v->len && !arr->v.items) return tv_error_oom(err);
        for (uint32_t i = 0; i < v->len; i++) {
            tv_json *s = scalar_str(a, &v->v.items[i]);
            if (!s)
                return tv_error_set(err, TROVE_EARG,
                                    "Failed to load settings from [%s]: arrays of objects are not "
                                    "settings",
                                    prefix);
            arr->v.items[i] = *s;
        }
        e.val = arr;
    } else if (v->type != TV_JSON_NULL) {
        e.val = scalar_str(a, v);
        if (!e.val) return tv_error_oom(err);
    }
    if (tv_vec_push(out, e)) return tv_error_oom(err);
    return TROVE_OK;
}

/* Adds the "index." prefix where missing. */
static tv_status normalize_keys(tv_arena *a, kvvec *v, tv_error *err) {
    for (size_t i = 0; i < v->len; i++) {
        kv *e = &v->items[i];
        if (e->key_len >= 6 && memcmp(e->key, "index.", 6) == 0) continue;
        char *k = tv_arena_alloc(a, e->key_len + 7);
        if (!k) return tv_error_oom(err);
        memcpy(k, "index.", 6);
        memcpy(k + 6, e->key, e->key_len);
        k[e->key_len + 6] = '\0';
        e->key = k;
        e->key_len += 6;
    }
    return TROVE_OK;
}

static int cmp_kv(const void *a, const void *b) {
    const kv *x = a, *y = b;
    return tv_memcmp2(x->key, x->key_len, y->key, y->key_len);
}

/* ------------------------------------------------------------ values */

/* TimeValue.parseTimeValue into milliseconds (util/java.c); false on a
 * bad value (err, when given, says why). */
static bool parse_time(const char *s, size_t n, const char *key, int64_t *ms, tv_error *err) {
    int64_t ns;
    if (tv_parse_time_value(s, n, key, &ns, err) != TROVE_OK) return false;
    *ms = ns < 0 && ns >= -1000000 ? -1 : ns / 1000000;
    return true;
}

static bool strieq(const char *a, size_t n, const char *lit) {
    if (strlen(lit) != n) return false;
    for (size_t i = 0; i < n; i++) {
        char c = (a[i] >= 'A' && a[i] <= 'Z') ? (char)(a[i] + 32) : a[i];
        if (c != lit[i]) return false;
    }
    return true;
}

static tv_status check_value(const sdef *d, const kv *e, tv_error *err) {
    if (!e->val) return TROVE_OK;
    if (e->val->type != TV_JSON_STRING) {
        if (d->kind == S_ANY) return TROVE_OK;
        return tv_error_set(err, TROVE_EARG, "Failed to parse value for setting [%s]", e->key);
    }
    const char *s = e->val->v.s;
    size_t n = e->val->len;
    switch (d->kind) {
    case S_INT: {
        int64_t v;
        if (!tv_parse_i64(s, n, &v) || v < INT32_MIN || (v > INT32_MAX && d->max <= INT32_MAX))
            return tv_error_set(err, TROVE_EARG, "Failed to parse value [%.*s] for setting [%s]",
                                (int)n, s, e->key);
        if (v < d->min)
            return tv_error_set(err, TROVE_EARG,
                                "Failed to parse value [%.*s] for setting [%s] must be >= %lld",
                                (int)n, s, e->key, (long long)d->min);
        if (v > d->max)
            return tv_error_set(err, TROVE_EARG,
                                "Failed to parse value [%.*s] for setting [%s] must be <= %lld",
                                (int)n, s, e->key, (long long)d->max);
        return TROVE_OK;
    }
    case S_TIME: {
        int64_t ms;
        if (!parse_time(s, n, e->key, &ms, err)) return err ? err->code : TROVE_EARG;
        if (ms < d->min)
            return tv_error_set(err, TROVE_EARG,
                                "failed to parse value [%.*s] for setting [%s], must be >= [%s]",
                                (int)n, s, e->key, d->min == -1 ? "-1" : "0ms");
        return TROVE_OK;
    }
    case S_BOOL:
        if (!tv_streq(s, n, "true") && !tv_streq(s, n, "false"))
            return tv_error_set(err, TROVE_EARG,
                                "Failed to parse value [%.*s] as only [true] or [false] are "
                                "allowed.",
                                (int)n, s);
        if (tv_streq(s, n, "false") && strcmp(e->key, "index.derived_source.translog.enabled") == 0)
            /* the source trove stores is the derived one from the first
             * read on: translog reads cannot show the original */
            return tv_error_set(err, TROVE_EUNSUPPORTED,
                                "index setting [index.derived_source.translog.enabled] [false] is not "
                                "supported by trove (translog reads show the derived source too)");
        return TROVE_OK;
    case S_BYTES: {
        int64_t b;
        if (!tv_parse_byte_size(s, n, &b))
            return tv_error_set(err, TROVE_EPARSEEXC,
                                "failed to parse setting [%s] with value [%.*s] as a size in "
                                "bytes: unit is missing or unrecognized",
                                e->key, (int)n, s);
        if (b < d->min)
            return tv_error_set(err, TROVE_EARG,
                                "failed to parse value [%.*s] for setting [%s], must be >= [%s]",
                                (int)n, s, e->key, d->min == -1 ? "-1" : "0b");
        return TROVE_OK;
    }
    case S_CODEC: {
        static const char *const codecs[] = {"default", "lz4", "best_compression", "zlib",
                                             "lucene_default", NULL};
        for (const char *const *c = codecs; *c; c++)
            if (tv_streq(s, n, *c)) return TROVE_OK;
        return tv_error_set(err, TROVE_EARG,
                            "unknown value for [index.codec] must be one of [default, lz4, "
                            "best_compression, zlib] but was: %.*s",
                            (int)n, s);
    }
    case S_DURABILITY:
        if (strieq(s, n, "request") || strieq(s, n, "async")) return TROVE_OK;
        {
            char up[64];
            size_t k = 0;
            for (; k < n && k + 1 < sizeof up; k++)
                up[k] = (s[k] >= 'a' && s[k] <= 'z') ? (char)(s[k] - 32) : s[k];
            up[k] = '\0';
            return tv_error_set(err, TROVE_EARG,
                                "No enum constant org.opensearch.index.translog.Translog.Durability.%s",
                                up);
        }
    default:
        return TROVE_OK;
    }
}

static tv_status check_key(const kv *e, bool creating, tv_error *err, const sdef **out) {
    const sdef *d = find_def(e->key, e->key_len);
    if (!d)
        return tv_error_set(err, TROVE_EARG,
                            "unknown setting [%s] please check that any required plugins are "
                            "installed, or check the breaking changes documentation for removed "
                            "settings",
                            e->key);
    if (d->priv && creating)
        return tv_error_set(err, TROVE_EARG, "private index setting [%s] can not be set explicitly",
                            e->key);
    *out = d;
    return check_value(d, e, err);
}

/* ------------------------------------------------------------ derived */

static const tv_json *flat_get(const tv_settings *s, const char *key) {
    return s->flat ? tv_json_get(s->flat, key) : NULL;
}

static int64_t flat_int(const tv_settings *s, const char *key, int64_t def) {
    const tv_json *v = flat_get(s, key);
    int64_t out;
    if (v && v->type == TV_JSON_STRING && tv_parse_i64(v->v.s, v->len, &out)) return out;
    return def;
}

/* Rebuilds nested JSON of keys under prefix (sorted flat list) into w. */
static void write_nested_sorted(tv_jw *w, const tv_json *flat, size_t lo, size_t hi, size_t skip);

static tv_status derive(tv_settings *s, tv_error *err, bool build_analysis) {
    s->number_of_shards = (uint32_t)flat_int(s, "index.number_of_shards", 1);
    s->number_of_replicas = (uint32_t)flat_int(s, "index.number_of_replicas", 1);
    s->max_result_window = flat_int(s, "index.max_result_window", 10000);
    s->refresh_interval_ms = 1000;
    const tv_json *ri = flat_get(s, "index.refresh_interval");
    if (ri && ri->type == TV_JSON_STRING) parse_time(ri->v.s, ri->len, "index.refresh_interval", &s->refresh_interval_ms, NULL);
    s->creation_date_ms = flat_int(s, "index.creation_date", 0);
    const tv_json *u = flat_get(s, "index.uuid");
    if (u) snprintf(s->uuid, sizeof s->uuid, "%.*s", (int)u->len, u->v.s);
    const tv_json *pn = flat_get(s, "index.provided_name");
    if (pn) snprintf(s->provided_name, sizeof s->provided_name, "%.*s", (int)pn->len, pn->v.s);
    if (!build_analysis) return TROVE_OK;
    /* analysis: the keys under index.analysis. as nested JSON */
    size_t lo = SIZE_MAX, hi = 0;
    for (uint32_t i = 0; i < s->flat->len; i++) {
        const tv_json_member *m = &s->flat->v.members[i];
        if (m->key_len > 15 && memcmp(m->key, "index.analysis.", 15) == 0) {
            if (lo == SIZE_MAX) lo = i;
            hi = i + 1;
        }
    }
    tv_analysis *an;
    tv_analysis_index ix = TV_ANALYSIS_INDEX_DEFAULTS;
    ix.max_ngram_diff = (int32_t)flat_int(s, "index.max_ngram_diff", 1);
    ix.max_shingle_diff = (int32_t)flat_int(s, "index.max_shingle_diff", 3);
    if (lo == SIZE_MAX) {
        an = tv_analysis_new_ex(NULL, 0, &ix, err);
    } else {
        tv_buf b;
        tv_buf_init(&b);
        tv_jw w;
        tv_jw_init(&w, &b, false);
        write_nested_sorted(&w, s->flat, lo, hi, 15);
        if (b.oom) {
            tv_buf_fini(&b);
            return tv_error_oom(err);
        }
        an = tv_analysis_new_ex(b.data, b.len, &ix, err);
        tv_buf_fini(&b);
    }
    if (!an) return err && err->code ? err->code : TROVE_ENOMEM;
    tv_analysis_free(s->analysis);
    s->analysis = an;
    return TROVE_OK;
}

/* Stores the sorted kv list as s->flat (in s->flat_arena). */
static tv_status store_flat(tv_settings *s, kvvec *v, tv_error *err) {
    qsort(v->items, v->len, sizeof(kv), cmp_kv);
    /* later duplicates win; drop NULL (reset) values */
    size_t n = 0;
    for (size_t i = 0; i < v->len; i++) {
        if (i + 1 < v->len && cmp_kv(&v->items[i], &v->items[i + 1]) == 0) continue;
        if (!v->items[i].val) continue;
        v->items[n++] = v->items[i];
    }
    tv_json *flat = tv_arena_calloc(&s->flat_arena, 1, sizeof *flat);
    tv_json_member *mem = n ? tv_arena_calloc(&s->flat_arena, n, sizeof *mem) : NULL;
    if (!flat || (n && !mem)) return tv_error_oom(err);
    for (size_t i = 0; i < n; i++) {
        mem[i].key = v->items[i].key;
        mem[i].key_len = (uint32_t)v->items[i].key_len;
        mem[i].val = *v->items[i].val;
    }
    flat->type = TV_JSON_OBJECT;
    flat->len = (uint32_t)n;
    flat->v.members = mem;
    s->flat = flat;
    return TROVE_OK;
}

static void random_uuid(char out[32]) {
    uint8_t b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t r = getrandom(b + got, sizeof b - got, 0);
        if (r <= 0) {
            /* fall back to a clock-seeded mix: uniqueness, not secrecy */
            uint64_t x = tv_mono_ns() ^ ((uint64_t)tv_now_ms() << 20);
            for (size_t i = got; i < sizeof b; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b[i] = (uint8_t)x;
            }
            break;
        }
        got += (size_t)r;
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* variant */
    static const char enc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t o = 0;
    for (size_t i = 0; i < 16; i += 3) {
        uint32_t v = (uint32_t)b[i] << 16;
        if (i + 1 < 16) v |= (uint32_t)b[i + 1] << 8;
        if (i + 2 < 16) v |= b[i + 2];
        out[o++] = enc[(v >> 18) & 63];
        out[o++] = enc[(v >> 12) & 63];
        if (i + 1 < 16) out[o++] = enc[(v >> 6) & 63];
        if (i + 2 < 16) out[o++] = enc[v & 63];
    }
    out[o] = '\0'; /* 22 characters */
}

static tv_status settings_parse(const tv_json *settings, const char *index_name, bool restoring,
                                tv_settings *out, tv_error *err) {
    tv_error_clear(err);
    memset(out, 0, sizeof *out);
    tv_arena_init(&out->flat_arena);
    tv_arena *a = &out->flat_arena;
    kvvec v = {0};
    tv_status st = TROVE_OK;
    if (settings && settings->type != TV_JSON_OBJECT && settings->type != TV_JSON_NULL) {
        st = tv_error_set(err, TROVE_EPARSE, "Failed to parse settings: expected an object");
        goto fail;
    }
    if (settings && settings->type == TV_JSON_OBJECT) {
        if ((st = flatten(a, settings, "", 0, &v, err))) goto fail;
        if ((st = normalize_keys(a, &v, err))) goto fail;
        for (size_t i = 0; i < v.len; i++) {
            const sdef *d;
            if ((st = check_key(&v.items[i], !restoring, err, &d))) goto fail;
        }
    }
    /* defaults and generated values */
    char uuid[32];
    random_uuid(uuid);
    char date[32];
    snprintf(date, sizeof date, "%lld", (long long)tv_now_ms());
    const char *name = index_name ? index_name : "";
    struct {
        const char *k, *v;
        bool only_if_missing;
    } gen[] = {
        {"index.number_of_shards", "1", true},
        {"index.number_of_replicas", "1", true},
        {"index.replication.type", "DOCUMENT", true},
        {"index.uuid", uuid, false},
        {"index.creation_date", date, false},
        {"index.provided_name", name, false},
        {"index.version.created", TV_OPENSEARCH_VERSION_CREATED, false},
    };
    for (size_t g = 0; g < TV_ARRAY_LEN(gen); g++) {
        bool have = false;
        for (size_t i = 0; i < v.len; i++)
            if (tv_streq(v.items[i].key, v.items[i].key_len, gen[g].k) && v.items[i].val) have = true;
        if (have && (gen[g].only_if_missing || restoring)) continue;
        kv e = {.key = tv_arena_strndup(a, gen[g].k, strlen(gen[g].k)), .key_len = strlen(gen[g].k),
                .val = jstr(a, gen[g].v, strlen(gen[g].v))};
        if (!e.key || !e.val || tv_vec_push(&v, e)) {
            st = tv_error_oom(err);
            goto fail;
        }
    }
    /* generated values are appended last, so sort stability is not needed:
     * store_flat keeps the last of equal keys */
    if ((st = store_flat(out, &v, err))) goto fail;
    if ((st = derive(out, err, true))) goto fail;
    tv_vec_fini(&v);
    return TROVE_OK;
fail:
    tv_vec_fini(&v);
    tv_settings_fini(out);
    return st;
}

tv_status tv_settings_parse(const tv_json *settings, const char *index_name, tv_settings *out,
                            tv_error *err) {
    return settings_parse(settings, index_name, false, out, err);
}

tv_status tv_settings_restore(const tv_json *flat, const char *index_name, tv_settings *out,
                              tv_error *err) {
    return settings_parse(flat, index_name, true, out, err);
}

void tv_settings_fini(tv_settings *s) {
    if (!s) return;
    tv_analysis_free(s->analysis);
    s->analysis = NULL;
    s->flat = NULL;
    tv_arena_fini(&s->flat_arena);
}

tv_status tv_settings_update(tv_settings *s, const tv_json *update, tv_error *err) {
    tv_error_clear(err);
    if (!update || update->type != TV_JSON_OBJECT)
        return tv_error_set(err, TROVE_EVALIDATION, "Validation Failed: 1: no settings to update;");
    tv_arena tmp;
    tv_arena_init(&tmp);
    kvvec v = {0};
    tv_status st;
    if ((st = flatten(&tmp, update, "", 0, &v, err))) goto done;
    if ((st = normalize_keys(&tmp, &v, err))) goto done;
    tv_buf nondyn;
    tv_buf_init(&nondyn);
    for (size_t i = 0; i < v.len; i++) {
        const sdef *d;
        if ((st = check_key(&v.items[i], false, err, &d))) {
            tv_buf_fini(&nondyn);
            goto done;
        }
        if (!d->dynamic) {
            if (nondyn.len) tv_buf_puts(&nondyn, ", ");
            tv_buf_append(&nondyn, v.items[i].key, v.items[i].key_len);
        }
    }
    if (nondyn.len) {
        st = tv_error_set(err, TROVE_EARG,
                          "Can't update non dynamic settings [[%s]] for open indices [[%s/%s]]",
                          nondyn.data, s->provided_name, s->uuid);
        tv_buf_fini(&nondyn);
        goto done;
    }
    tv_buf_fini(&nondyn);
    {
        /* new list = old entries + updates (NULL resets), into a fresh arena */
        tv_settings ns = *s;
        tv_arena_init(&ns.flat_arena);
        kvvec all = {0};
        for (uint32_t i = 0; i < s->flat->len; i++) {
            const tv_json_member *m = &s->flat->v.members[i];
            kv e = {.key = tv_arena_strndup(&ns.flat_arena, m->key, m->key_len), .key_len = m->key_len,
                    .val = tv_json_copy(&ns.flat_arena, &m->val)};
            if (!e.key || !e.val || tv_vec_push(&all, e)) {
                st = tv_error_oom(err);
                break;
            }
        }
        for (size_t i = 0; !st && i < v.len; i++) {
            kv e = {.key = tv_arena_strndup(&ns.flat_arena, v.items[i].key, v.items[i].key_len),
                    .key_len = v.items[i].key_len,
                    .val = v.items[i].val ? tv_json_copy(&ns.flat_arena, v.items[i].val) : NULL};
            if (!e.key || (v.items[i].val && !e.val) || tv_vec_push(&all, e))
                st = tv_error_oom(err);
        }
        /* stable: a stable sort keeps updates after the old values */
        for (size_t i = 1; !st && i < all.len; i++) { /* insertion sort (small lists) */
            kv x = all.items[i];
            size_t j = i;
            while (j > 0 && cmp_kv(&all.items[j - 1], &x) > 0) {
                all.items[j] = all.items[j - 1];
                j--;
            }
            all.items[j] = x;
        }
        if (!st) {
            size_t n = 0;
            for (size_t i = 0; i < all.len; i++) {
                if (i + 1 < all.len && cmp_kv(&all.items[i], &all.items[i + 1]) == 0) continue;
                if (!all.items[i].val) continue;
                all.items[n++] = all.items[i];
            }
            all.len = n;
            tv_json *flat = tv_arena_calloc(&ns.flat_arena, 1, sizeof *flat);
            tv_json_member *mem = n ? tv_arena_calloc(&ns.flat_arena, n, sizeof *mem) : NULL;
            if (!flat || (n && !mem)) {
                st = tv_error_oom(err);
            } else {
                for (size_t i = 0; i < n; i++) {
                    mem[i].key = all.items[i].key;
                    mem[i].key_len = (uint32_t)all.items[i].key_len;
                    mem[i].val = *all.items[i].val;
                }
                flat->type = TV_JSON_OBJECT;
                flat->len = (uint32_t)n;
                flat->v.members = mem;
                ns.flat = flat;
                derive(&ns, err, false);
            }
        }
        tv_vec_fini(&all);
        if (st) {
            tv_arena_fini(&ns.flat_arena);
        } else {
            tv_arena_fini(&s->flat_arena);
            *s = ns; /* analysis pointer unchanged (not dynamic) */
        }
    }
done:
    tv_vec_fini(&v);
    tv_arena_fini(&tmp);
    return st;
}

int64_t tv_settings_bytes(const tv_settings *s, const char *key, int64_t def) {
    const tv_json *v = flat_get(s, key);
    int64_t out;
    if (v && v->type == TV_JSON_STRING && tv_parse_byte_size(v->v.s, v->len, &out)) return out;
    return def;
}

int64_t tv_settings_int(const tv_settings *s, const char *key, int64_t def) {
    return s ? flat_int(s, key, def) : def;
}

const char *tv_settings_str(const tv_settings *s, const char *key, size_t *len) {
    const tv_json *v = s ? flat_get(s, key) : NULL;
    if (!v || v->type != TV_JSON_STRING) return NULL;
    *len = v->len;
    return v->v.s;
}

bool tv_settings_bool(const tv_settings *s, const char *key, bool def) {
    const tv_json *v = s ? flat_get(s, key) : NULL;
    if (v && v->type == TV_JSON_STRING) {
        if (tv_streq(v->v.s, v->len, "true")) return true;
        if (tv_streq(v->v.s, v->len, "false")) return false;
    }
    return def;
}

/* ------------------------------------------------------------ writing */

/* Nested output of members [lo, hi) of the sorted flat object, skipping the
 * first `skip` key bytes (common prefix), in sorted order. */
static void write_nested_sorted(tv_jw *w, const tv_json *flat, size_t lo, size_t hi, size_t skip) {
    tv_jw_obj_begin(w);
    size_t i = lo;
    while (i < hi) {
        const tv_json_member *m = &flat->v.members[i];
        const char *k = m->key + skip;
        size_t kl = m->key_len - skip;
        const char *dot = memchr(k, '.', kl);
        if (!dot) {
            tv_jw_key(w, k, kl);
            tv_jw_value(w, &m->val);
            i++;
            continue;
        }
        size_t seg = (size_t)(dot - k);
        size_t j = i + 1;
        while (j < hi) {
            const tv_json_member *n = &flat->v.members[j];
            if (n->key_len - skip <= seg || memcmp(n->key + skip, k, seg) != 0 ||
                n->key[skip + seg] != '.')
                break;
            j++;
        }
        tv_jw_key(w, k, seg);
        write_nested_sorted(w, flat, i, j, skip + seg + 1);
        i = j;
    }
    tv_jw_obj_end(w);
}

typedef struct hnode {
    const char *key;
    size_t key_len;
    size_t lo, hi, skip; /* the members below this key (objects) */
    const tv_json *val;  /* leaf value, or NULL for objects */
    uint32_t order;      /* insertion order */
    uint32_t bucket;
} hnode;

static int cmp_hnode(const void *a, const void *b) {
    const hnode *x = a, *y = b;
    if (x->bucket != y->bucket) return x->bucket < y->bucket ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* As write_nested_sorted but in java.util.HashMap(2) iteration order. */
static void write_nested_hash(tv_jw *w, const tv_json *flat, size_t lo, size_t hi, size_t skip) {
    TV_VEC(hnode) v = {0};
    size_t i = lo;
    while (i < hi) {
        const tv_json_member *m = &flat->v.members[i];
        const char *k = m->key + skip;
        size_t kl = m->key_len - skip;
        const char *dot = memchr(k, '.', kl);
        hnode h = {.key = k, .order = (uint32_t)v.len};
        if (!dot) {
            h.key_len = kl;
            h.val = &m->val;
            i++;
        } else {
            size_t seg = (size_t)(dot - k);
            size_t j = i + 1;
            while (j < hi) {
                const tv_json_member *n = &flat->v.members[j];
                if (n->key_len - skip <= seg || memcmp(n->key + skip, k, seg) != 0 ||
                    n->key[skip + seg] != '.')
                    break;
                j++;
            }
            h.key_len = seg;
            h.lo = i;
            h.hi = j;
            h.skip = skip + seg + 1;
            i = j;
        }
        if (tv_vec_push(&v, h)) {
            w->out->oom = true;
            tv_vec_fini(&v);
            return;
        }
    }
    /* HashMap(2): capacity doubles whenever size exceeds 0.75 * capacity */
    size_t cap = 2, thr = 1;
    for (size_t n = 1; n <= v.len; n++)
        if (n > thr) {
            cap *= 2;
            thr = cap * 3 / 4;
        }
    for (size_t j = 0; j < v.len; j++) {
        uint32_t hh = (uint32_t)tv_java_string_hash(v.items[j].key, v.items[j].key_len);
        hh ^= hh >> 16;
        v.items[j].bucket = hh & (uint32_t)(cap - 1);
    }
    if (v.len > 1) qsort(v.items, v.len, sizeof(hnode), cmp_hnode);
    tv_jw_obj_begin(w);
    for (size_t j = 0; j < v.len; j++) {
        tv_jw_key(w, v.items[j].key, v.items[j].key_len);
        if (v.items[j].val) tv_jw_value(w, v.items[j].val);
        else write_nested_hash(w, flat, v.items[j].lo, v.items[j].hi, v.items[j].skip);
    }
    tv_jw_obj_end(w);
    tv_vec_fini(&v);
}

void tv_settings_write(const tv_settings *s, tv_jw *w, bool flat) {
    if (!s->flat) {
        tv_jw_obj_begin(w);
        tv_jw_obj_end(w);
        return;
    }
    if (flat) {
        tv_jw_value(w, s->flat);
        return;
    }
    write_nested_hash(w, s->flat, 0, s->flat->len, 0);
}
