/*
 * index.h — the index layer: mappings, documents, segments, and the engine
 * that turns writes into searchable, versioned, copy-on-write snapshots.
 *
 * Owns, by file group:
 *   mapping.c, settings.c, doc.c   field types and mappings (parse, merge,
 *                                  dynamic rules, print as GET _mapping),
 *                                  index settings, and document parsing
 *                                  (source JSON + mapping -> tv_parsed_doc)
 *   range.c                        range field types: the encoding of a
 *                                  range's bounds, relations between ranges
 *   fields.c                       per-field helpers shared with search:
 *                                  type names, the sortable encoding of
 *                                  doubles, norm bytes, IP addresses and
 *                                  geo point quantization
 *   date.c, tz.c, rounding.c       dates (OpenSearch's formats, Java-style
 *                                  patterns, date math), time zones
 *                                  (java.time ids, the system's TZif files)
 *                                  and Rounding (calendar units and fixed
 *                                  intervals in a time zone)
 *   segment*.c, codec*.c           immutable segments: the builder that
 *                                  turns parsed documents into segment bytes,
 *                                  the reader API below, merging, the
 *                                  invariant check (segment_check.c) and
 *                                  bit-packing (codec.c)
 *   engine.c                       tv_index: the write buffer, refresh,
 *                                  versions and sequence numbers, deletes,
 *                                  snapshots, merge policy, clones
 *   translog_ops.c                 what the engine's translog records say
 *                                  (index, delete, mapping, settings) and
 *                                  their replay
 *
 * Upward contract: the search layer reads only through this header
 * (snapshots, segment reader calls, field metadata); the api layer writes
 * through tv_index_* calls. Nothing here knows about HTTP or the query DSL.
 *
 * Numbers in postings-free structures (doc values, points) are int64 in a
 * *sortable* encoding: integers as themselves, dates as epoch millis,
 * booleans as 0/1, floating types as tv_double_to_sortable(value) (so signed
 * int64 order equals numeric order), scaled_float as the scaled long.
 *
 * Thread safety: a tv_index serialises writers with its own lock; readers
 * take a snapshot (tv_index_acquire) and read it without locks. Segments and
 * snapshots are immutable and reference counted.
 */
#ifndef TROVE_INDEX_H
#define TROVE_INDEX_H

#include "json/json.h"
#include "text/text.h"
#include "util/util.h"

/* ================================================================ fields */

typedef enum tv_field_type {
    TV_FT_OBJECT = 0,
    TV_FT_TEXT,
    TV_FT_KEYWORD,
    TV_FT_LONG,
    TV_FT_INTEGER,
    TV_FT_SHORT,
    TV_FT_BYTE,
    TV_FT_DOUBLE,
    TV_FT_FLOAT,
    TV_FT_HALF_FLOAT,
    TV_FT_SCALED_FLOAT,
    TV_FT_UNSIGNED_LONG, /* reserved: mapping reports unsupported for now */
    TV_FT_DATE,
    TV_FT_BOOLEAN,
    /* Added with the second round of field types (see the notes below). */
    TV_FT_BINARY,          /* base64 in the source; never searchable. Doc values
                              (doc_values:true): sorted set of the decoded bytes.
                              Without doc values each doc gets one empty term
                              ("") so that exists finds it (as _field_names). */
    TV_FT_IP,              /* terms and sorted-set doc values are the 16-byte
                              tv_ip_parse encoding (IPv4 as ::ffff:a.b.c.d), so
                              byte order is address order; no points */
    TV_FT_MATCH_ONLY_TEXT, /* analyzed like text, postings DOCS only, no norms;
                              phrase queries must verify against _source */
    TV_FT_GEO_POINT,       /* nums: tv_geo_encode (Lucene's LatLonDocValuesField
                              packing: lat << 32 | lon, 32-bit encodings) */
    TV_FT_DATE_NANOS,      /* nums: epoch nanoseconds (1970 .. 2262) */
    TV_FT_RANGE,           /* integer_range .. ip_range (tv_field.range_type
                              the bounds' type): each range is one term and
                              one sorted-set doc value, its tv_range_encode
                              bytes (see range.c) */
} tv_field_type;

/* OpenSearch's name of a type ("text", "scaled_float"). Borrowed, static. */
const char *tv_field_type_name(tv_field_type t);
/* True for long/integer/short/byte/double/float/half_float/scaled_float/unsigned_long. */
bool tv_field_type_is_numeric(tv_field_type t);
/* True for double/float/half_float (values are tv_double_to_sortable). */
bool tv_field_type_is_floating(tv_field_type t);
/* True for range fields (integer_range ... ip_range). */
static inline bool tv_field_type_is_range(tv_field_type t) { return t == TV_FT_RANGE; }
/* True for the analyzed types: text and match_only_text. */
bool tv_field_type_is_text(tv_field_type t);

/*
 * Field types that are another type for every query. A mapping may declare
 * "constant_keyword", "wildcard" (both TV_FT_KEYWORD) or "token_count"
 * (TV_FT_INTEGER): tv_field.type is the type queries must treat the field
 * as, and this returns the name the mapping declared (what GET _mapping and
 * _field_caps print and what OpenSearch's messages name). Borrowed, static.
 *   constant_keyword  every document of the index is indexed with the
 *                     mapping's `value` (term, doc value), whether or not
 *                     its source has the field; so term/prefix/range/exists
 *                     queries, sorts and aggregations need no special case.
 *   wildcard          a keyword (doc values on by default, as OpenSearch 3).
 *   token_count       an integer: the number of tokens of its analyzer.
 */
struct tv_field;
const char *tv_field_declared_type(const struct tv_field *f);

/*
 * What the _field_caps API reports of a mapped field, as OpenSearch's
 * MappedFieldType answers it: familyTypeName() (the declared type name;
 * "integer" for token_count),
 * isSearchable(), isAggregatable() and the field's `meta` mapping
 * parameter (an object of strings, borrowed from the mapping; NULL when
 * unset or empty). Objects give "object", false, false.
 */
typedef struct tv_field_caps {
    const char *type;
    bool searchable;
    bool aggregatable;
    const tv_json *meta;
} tv_field_caps;
void tv_field_caps_of(const struct tv_field *f, tv_field_caps *out);
/* The `fielddata` mapping parameter of a text or match_only_text field
 * (false for every other type). */
bool tv_field_fielddata(const struct tv_field *f);

/*
 * unsigned_long values (0 .. 2^64-1) in the int64 sortable encoding: the
 * value with its top bit flipped (value - 2^63 as a signed number), so that
 * signed int64 order equals unsigned order. Queries on unsigned_long must
 * encode their bounds with tv_unsigned_to_sortable; sort values and
 * aggregation keys print tv_sortable_to_unsigned(v) as an exact integer.
 */
static inline int64_t tv_unsigned_to_sortable(uint64_t u) {
    return (int64_t)(u ^ 0x8000000000000000ull);
}
static inline uint64_t tv_sortable_to_unsigned(int64_t s) {
    return (uint64_t)s ^ 0x8000000000000000ull;
}

/*
 * IP addresses as OpenSearch (InetAddresses.forString) reads them: dotted
 * IPv4 ("192.168.0.1") and RFC 4291 IPv6 text ("::1", "fe80::1%eth0" is
 * rejected, "::ffff:1.2.3.4"). tv_ip_parse fills the 16-byte encoding
 * (IPv4 mapped into ::ffff:0:0/96, as Lucene's InetAddressPoint) and
 * returns false for anything else. tv_ip_format prints the encoding as
 * OpenSearch's DocValueFormat.IP does (IPv4 dotted for mapped addresses,
 * else RFC 5952 compressed IPv6) into out (at least TV_IP_TEXT_MAX bytes,
 * NUL-terminated) and returns the length.
 */
#define TV_IP_TEXT_MAX 48
bool tv_ip_parse(const char *s, size_t len, uint8_t out[16]);
size_t tv_ip_format(const uint8_t ip[16], char *out);
/* Parses a CIDR block "a.b.c.d/n" or "v6/n" into the inclusive range of
 * 16-byte encodings it covers (for term queries on ip fields). */
bool tv_ip_parse_cidr(const char *s, size_t len, uint8_t lo[16], uint8_t hi[16]);

/*
 * geo_point values: Lucene's GeoEncodingUtils (latitude and longitude each
 * quantized to 32 bits) packed as in LatLonDocValuesField: the latitude's
 * encoding in the high 32 bits, the longitude's in the low 32 bits.
 * tv_geo_decode gives back the quantized degrees.
 */
int64_t tv_geo_encode(double lat, double lon);
void tv_geo_decode(int64_t packed, double *lat, double *lon);

typedef enum tv_index_options {
    TV_IO_DOCS = 0,
    TV_IO_FREQS,
    TV_IO_POSITIONS, /* default for text */
    TV_IO_OFFSETS,
} tv_index_options;

/* The kind of doc values a field has. */
typedef enum tv_dv_kind {
    TV_DV_NONE = 0,
    TV_DV_NUMERIC,    /* sorted numeric: int64 per value, ascending per doc */
    TV_DV_SORTED_SET, /* keyword: segment-local ordinals into sorted terms */
} tv_dv_kind;

/*
 * A leaf field of a mapping: every indexed path, including multi-fields
 * ("title.keyword") and object leaves ("user.name"). Objects themselves are
 * tv_field entries of type TV_FT_OBJECT (no postings). Immutable once
 * published in a mapping; borrowed from the mapping.
 */
/* A text field's term_vector option: TV_TV_NO, or TV_TV_YES plus what
 * with_positions / with_offsets / _payloads add. */
enum { TV_TV_NO = 0, TV_TV_YES = 1, TV_TV_POSITIONS = 2, TV_TV_OFFSETS = 4, TV_TV_PAYLOADS = 8 };

typedef struct tv_field {
    const char *path; /* full dotted path, NUL-terminated */
    uint32_t path_len;
    uint32_t id;      /* dense, stable for the life of the index */
    tv_field_type type;
    const struct tv_field *multi_parent; /* set on multi-fields: the field they hang under */
    /* nested objects: `nested` on an object mapped "type": "nested" (its
     * objects are indexed as nested docs, index.h "doc blocks");
     * nested_scope is the nearest nested object strictly above the field
     * (NULL: the root), so a field's values live in the docs of
     * nested_scope */
    bool nested;
    bool include_in_parent, include_in_root;
    const struct tv_field *nested_scope;

    /* what is indexed */
    bool index;       /* "index": searchable (postings or points) */
    bool doc_values;  /* "doc_values" */
    bool norms;       /* "norms" (text: true, keyword: false) */
    bool store;       /* "store" */
    tv_index_options index_options;
    tv_dv_kind dv_kind;

    /* text */
    const tv_analyzer *analyzer;        /* index-time */
    const tv_analyzer *search_analyzer; /* defaults to analyzer */
    const tv_analyzer *search_quote_analyzer; /* defaults to search_analyzer */
    uint32_t position_increment_gap;    /* 100 */

    /* text: the hidden sub-fields of index_prefixes ("<path>._index_prefix",
     * edge n-grams of prefix_min..prefix_max code points) and index_phrases
     * ("<path>._index_phrase", 2-shingles); NULL when not enabled. They
     * are multi-fields that tv_mapping_field does not find by name.
     * term_vector: the mapping's term_vector option (tv_term_vector bits);
     * trove keeps no term vectors (highlighters re-analyze, and offsets
     * come from the analysis), only the option. */
    const struct tv_field *prefix_field, *phrase_field;
    uint8_t prefix_min, prefix_max;
    uint8_t term_vector;
    /* search_as_you_type (a TV_FT_TEXT declared "search_as_you_type"):
     * sayt 1 on the root field, 2 on its "._<n>gram" shingle sub-fields,
     * 3 on its "._index_prefix"; the root's and the shingle fields'
     * prefix_field is the prefix sub-field (prefix_min 1, prefix_max 20),
     * shingles[i] the sub-field of shingles of i + 2 tokens (nshingles =
     * max_shingle_size - 1); shingle_size on the shingle sub-fields. */
    uint8_t sayt, nshingles, shingle_size;
    const struct tv_field *shingles[3];

    /* keyword */
    int32_t ignore_above;               /* -1: none */
    const tv_analyzer *normalizer;      /* NULL: none */

    /* values substituted for JSON null ("null_value"), NULL when unset:
     * the raw JSON of the mapping parameter */
    const tv_json *null_value;

    /* numbers */
    double scaling_factor;              /* scaled_float */
    bool coerce;                        /* default true */
    bool ignore_malformed;              /* default false */

    /* date */
    const char *format;                 /* "strict_date_optional_time||epoch_millis" */

    /* field aliases ("type": "alias", "path": target): an alias's entry is
     * a copy of its target's (same id, type and parameters, so it reads
     * the target's postings and doc values) with its own path, and
     * alias_target points at the target (NULL for every other field).
     * tv_mapping_field and tv_mapping_match_fields resolve aliases to
     * their targets; only tv_mapping_field_or_alias and
     * tv_mapping_match_names hand out alias entries, for answers keyed by
     * the name asked for (fields, docvalue_fields, highlight, field_caps). */
    const struct tv_field *alias_target;

    /* range fields (TV_FT_RANGE): the type of the bounds, TV_FT_INTEGER,
     * TV_FT_LONG, TV_FT_FLOAT, TV_FT_DOUBLE, TV_FT_DATE (format above) or
     * TV_FT_IP */
    tv_field_type range_type;
} tv_field;

/*
 * Range fields (range.c). A range is stored with inclusive bounds (gt and
 * lt are moved to the next value up or down, as RangeType.parseFrom/To
 * do) as 2 * w bytes: the lower bound then the upper, each in an
 * order-preserving big-endian encoding of w bytes (8: the sortable int64
 * with its sign bit flipped; for ip_range 16: the tv_ip_parse bytes), so
 * that memcmp orders bounds as values. tv_range_width gives w.
 * tv_range_relation: whether a stored range [a, b] stands in `rel` to the
 * query range [c, d] (both encoded): intersects (a <= d and c <= b),
 * contains (a <= c and d <= b) or within (c <= a and b <= d).
 */
typedef enum tv_range_rel { TV_RANGE_INTERSECTS = 0, TV_RANGE_CONTAINS, TV_RANGE_WITHIN } tv_range_rel;
size_t tv_range_width(tv_field_type range_type);
void tv_range_encode_bound(tv_field_type range_type, int64_t sortable, const uint8_t *ip, uint8_t *out);
int64_t tv_range_decode_bound(const uint8_t *in);
bool tv_range_relation(const uint8_t *stored, const uint8_t *query, size_t w, tv_range_rel rel);
/* The type name a range field declared ("integer_range" ...). */
const char *tv_range_type_name(tv_field_type range_type);
/* The smallest and largest sortable bound of a numeric range type (for
 * open ends and for gt/lt adjustment): longs, ints, dates as themselves,
 * float and double as tv_double_to_sortable(-/+Infinity). */
void tv_range_limits(tv_field_type range_type, int64_t *min, int64_t *max);
/* The next value up (or down) of a sortable bound in its type (Math.nextUp
 * of a float or double, + 1 of an integer); saturates at the limits. */
int64_t tv_range_next(tv_field_type range_type, int64_t sortable, bool up);

/* Encodes a double so that int64 order equals numeric order (Lucene's
 * NumericUtils.doubleToSortableLong) and back. */
int64_t tv_double_to_sortable(double d);
double tv_sortable_to_double(int64_t s);

/* Lucene's SmallFloat.intToByte4 / byte4ToInt: the one-byte norm of a field
 * length (number of tokens) and the length it stands for. */
uint8_t tv_norm_encode(uint32_t length);
uint32_t tv_norm_decode(uint8_t norm);

/* ================================================================ mapping */

/*
 * A mapping: the root object's settings (dynamic, _source, date_detection,
 * ...) and the tree of properties. Immutable once built; an update makes a
 * new mapping (the engine swaps it under the write lock). Reference counted
 * so that snapshots and in-flight searches keep the one they started with.
 */
typedef struct tv_mapping tv_mapping;

/*
 * Parses the "mappings" object of a create-index request or a put-mapping
 * body (NULL: empty mapping). `analysis` resolves analyzer names (may be
 * NULL). Returns owned (tv_mapping_release) or NULL with err filled
 * (mapper_parsing_exception with OpenSearch's reasons, e.g.
 * "No handler for type [foo] declared on field [bar]"; a real OpenSearch
 * type that trove lacks gives TROVE_EMAPPER naming it too).
 */
tv_mapping *tv_mapping_parse(const tv_json *mappings, const tv_analysis *analysis, tv_error *err);
/*
 * Field ids. A mapping numbers its fields when parsed (in sorted path
 * order) and a merge numbers only the new ones after the old, so an index
 * whose mapping grew has ids a fresh parse of the printed mapping would not
 * give; segments store fields by id. tv_mapping_write_ids writes every
 * field's {"path": id} (the data directory keeps it beside the mapping), and
 * tv_mapping_parse_ids parses a mapping giving its fields those ids back
 * (fields not named get ids after the largest). TROVE_ECORRUPT when ids is
 * malformed or repeats an id.
 */
void tv_mapping_write_ids(const tv_mapping *m, tv_jw *w);
tv_mapping *tv_mapping_parse_ids(const tv_json *mappings, const tv_json *ids, const tv_analysis *analysis,
                                 tv_error *err);

/* Merges an update (put mapping body, or a dynamic update) into base with
 * OpenSearch's merge and conflict rules. Returns a new owned mapping (base is
 * untouched) or NULL with err filled (e.g. "mapper [f] cannot be changed from
 * type [long] to [text]"). */
tv_mapping *tv_mapping_merge(const tv_mapping *base, const tv_json *update,
                             const tv_analysis *analysis, tv_error *err);

tv_mapping *tv_mapping_retain(const tv_mapping *m);
void tv_mapping_release(const tv_mapping *m); /* NULL is a no-op */

/* Writes the mapping as GET /{index}/_mapping shows it under "mappings"
 * (the object itself: {"properties":{...}} or {} when empty). */
void tv_mapping_write(const tv_mapping *m, tv_jw *w);

/* Field lookup by full path; NULL if unmapped. A field alias gives its
 * target (FieldTypeLookup.get). Borrowed until release. */
const tv_field *tv_mapping_field(const tv_mapping *m, const char *path, size_t len);
/* An analyzer by name as the index's analysis resolves it (its custom
 * analyzers, then the built-ins; m may be NULL), for queries naming an
 * `analyzer`. NULL if none. Lives as long as the mapping. */
const tv_analyzer *tv_mapping_analyzer(const tv_mapping *m, const char *name, size_t len);
/* As tv_mapping_field, but a field alias gives its own entry (path the
 * alias's, alias_target set; see tv_field.alias_target). */
const tv_field *tv_mapping_field_or_alias(const tv_mapping *m, const char *path, size_t len);
/* The field an entry reads its values from: the target of an alias, else
 * the field itself. */
static inline const tv_field *tv_field_resolve(const tv_field *f) {
    return f && f->alias_target ? f->alias_target : f;
}
/* Field by id; NULL if out of range. */
const tv_field *tv_mapping_field_by_id(const tv_mapping *m, uint32_t id);
/* Number of field ids allocated (ids are 0..count-1). */
uint32_t tv_mapping_field_count(const tv_mapping *m);
/* Paths matching a simple wildcard pattern ("*", "user.*", "*name"), for
 * multi_match/query_string field lists and docvalue_fields. Fills up to cap
 * pointers; returns the total number of matches. Sorted by path. A
 * matching alias gives its target, once, and nothing when the target
 * matches too (QueryParserHelper's deduplication of aliases). */
size_t tv_mapping_match_fields(const tv_mapping *m, const char *pattern, size_t len,
                               const tv_field **out, size_t cap);
/* As tv_mapping_match_fields, but matching aliases are their own entries
 * (MapperService.simpleMatchToFullName: names, for answers keyed by name). */
size_t tv_mapping_match_names(const tv_mapping *m, const char *pattern, size_t len,
                              const tv_field **out, size_t cap);

/* Root-level options. */
typedef enum tv_dynamic {
    TV_DYNAMIC_TRUE = 0,
    TV_DYNAMIC_FALSE,
    TV_DYNAMIC_STRICT,
    /* "strict_allow_templates" (2.16): strict, but a new field that matches
     * a dynamic template is added. ("false_allow_templates" only arrived
     * in 3.3: like 3.1, trove refuses it as a non-boolean.) */
    TV_DYNAMIC_STRICT_ALLOW_TEMPLATES,
} tv_dynamic;
bool tv_mapping_source_enabled(const tv_mapping *m);

/* ================================================================ settings */

/*
 * Index settings as OpenSearch keeps them: a flat, sorted map of
 * "index.*" keys to string values ("index.number_of_shards": "1"), echoed by
 * GET /{index}/_settings in nested form. The engine reads its typed view.
 */
typedef struct tv_settings {
    uint32_t number_of_shards;   /* accepted, always behaves as 1 */
    uint32_t number_of_replicas;
    int64_t refresh_interval_ms; /* -1: disabled; default 1000 */
    int64_t max_result_window;   /* default 10000 */
    int64_t creation_date_ms;
    char uuid[32];
    char provided_name[256];
    tv_analysis *analysis;       /* owned */
    tv_json *flat;               /* every setting as given, flattened to
                                    "index.x.y": "string" pairs, sorted; owned
                                    via flat_arena */
    tv_arena flat_arena;
} tv_settings;

/* Parses the "settings" object of a create-index request (NULL: defaults).
 * Accepts both {"index":{"number_of_shards":1}} and
 * {"number_of_shards":1} and "index.number_of_shards" spellings. Unknown
 * settings: illegal_argument_exception "unknown setting [index.foo] ...".
 * Returns TROVE_OK with out filled (tv_settings_fini to release). */
tv_status tv_settings_parse(const tv_json *settings, const char *index_name, tv_settings *out,
                            tv_error *err);
/* tv_settings_parse of settings written by tv_settings_write (flat): private
 * settings are accepted and kept instead of generated. */
tv_status tv_settings_restore(const tv_json *flat, const char *index_name, tv_settings *out,
                              tv_error *err);
void tv_settings_fini(tv_settings *s);
/* Applies a dynamic settings update (PUT _settings); non-dynamic keys are
 * rejected as OpenSearch does. */
tv_status tv_settings_update(tv_settings *s, const tv_json *update, tv_error *err);
/* Writes {"index":{...}} as GET _settings shows it (flat=false) or flat. */
void tv_settings_write(const tv_settings *s, tv_jw *w, bool flat);
/* Typed reads of any flat setting ("index.mapping.total_fields.limit"):
 * def when unset or not an integer / boolean. */
int64_t tv_settings_int(const tv_settings *s, const char *key, int64_t def);
/* A byte-size setting ("512mb", "1kb"), def when unset or malformed. */
int64_t tv_settings_bytes(const tv_settings *s, const char *key, int64_t def);
bool tv_settings_bool(const tv_settings *s, const char *key, bool def);
/* A string setting's value (borrowed while the settings live: read under
 * the index's lock), NULL when unset. */
const char *tv_settings_str(const tv_settings *s, const char *key, size_t *len);

/*
 * The index.mapping.* limits OpenSearch's MapperService checks after every
 * mapping change (create index, put mapping, dynamic update), with its
 * messages (TROVE_EARG):
 *   index.mapping.total_fields.limit (1000): fields + objects + multi-fields
 *     "Limit of total fields [N] has been exceeded"
 *   index.mapping.depth.limit (20): an object at a.b is at depth 3
 *     "Limit of mapping depth [N] in index [i] has been exceeded due to
 *     object field [a.b]"
 *   index.mapping.field_name_length.limit (unbounded): full paths
 *     "Field name [p] in index [i] is too long. The limit is set to [N]
 *     characters but was [L] characters"
 * The engine calls it on the new mapping before publishing it (s may be
 * NULL: defaults). With index.mapping.total_fields.unmap_fields_beyond_limit
 * a dynamic update never exceeds the limit (tv_doc_parse_ex leaves the
 * extra fields unmapped), so the check only fails explicit mappings.
 */
tv_status tv_mapping_check_limits(const tv_mapping *m, const tv_settings *s, tv_error *err);
/* With index.derived_source.enabled, whether every field of m can have its
 * source rebuilt (FieldMapper.canDeriveSource): mapper_parsing_exception
 * naming the first that cannot (copy_to, keyword ignore_above/normalizer,
 * neither doc values nor store, disabled or nested objects, types without
 * a derived form). tv_mapping_check_limits runs it too. */
tv_status tv_mapping_check_derivable(const tv_mapping *m, const tv_settings *s, tv_error *err);
/* Number of mappers counted against index.mapping.total_fields.limit. */
uint32_t tv_mapping_total_fields(const tv_mapping *m);

/* ================================================================ documents */

/* One field's values in one document, as produced by tv_doc_parse. */
typedef struct tv_doc_field {
    uint32_t field;             /* tv_field.id */
    tv_field_type type;
    tv_index_options index_options;
    tv_dv_kind dv_kind;
    bool norms;
    /* inverted terms: analyzed text, the keyword value(s), boolean "T"/"F".
     * Positions are absolute within the field across array values. */
    const tv_token *tokens;
    uint32_t ntokens;
    uint32_t field_length;      /* for norms: tokens counted as Lucene's
                                   FieldInvertState length */
    /* numeric/date/boolean values in sortable encoding (points + doc values) */
    const int64_t *nums;
    uint32_t nnums;
    /* keyword doc values (sorted set): the (normalized) values */
    const char *const *keys;
    const uint32_t *key_lens;
    uint32_t nkeys;
} tv_doc_field;

typedef struct tv_parsed_doc tv_parsed_doc;
struct tv_parsed_doc {
    const char *id;
    uint32_t id_len;
    const char *routing;        /* NULL if none */
    uint32_t routing_len;
    const char *source;         /* _source bytes to store (NULL when disabled) */
    size_t source_len;
    tv_doc_field *fields;       /* sorted by field id, one entry per field */
    uint32_t nfields;
    /* Nested documents (objects of a `nested` field). A root doc lists
     * them in block order: each nested object after its own nested
     * objects, siblings in source order (OpenSearch's order: a post-order
     * walk), the root after all of them. A nested doc has no id, routing
     * or source; `nest` is 1 + the field id of the nested object mapping
     * it was parsed from (0 for the root). */
    uint32_t nest;
    const tv_parsed_doc *nested;
    uint32_t nnested;
};

/*
 * Parses a document's source against a mapping. Allocates everything in
 * arena. When the document introduces unmapped fields and dynamic is true,
 * *dynamic_update receives the mapping update to merge (a "properties"
 * object in the arena) and the caller must merge it and parse again with
 * the new mapping; with dynamic:false unmapped fields are kept in _source
 * only; with strict they fail (strict_dynamic_mapping_exception
 * "mapping set to strict, dynamic introduction of [f] within [_doc] is not
 * allowed"). Value errors are mapper_parsing_exception "failed to parse
 * field [f] of type [long] in document with id 'x'. Preview of field's
 * value: 'abc'" with a cause (number_format_exception ...).
 */
tv_status tv_doc_parse(const tv_mapping *m, const char *id, size_t id_len, const char *source,
                       size_t source_len, tv_arena *arena, tv_parsed_doc *out,
                       tv_json **dynamic_update, tv_error *err);

/* Options of tv_doc_parse_ex that come from index settings. */
typedef struct tv_doc_opts {
    /* index.mapping.total_fields.limit (< 0: none) and
     * index.mapping.total_fields.unmap_fields_beyond_limit: when set, a new
     * dynamic field (with its multi-fields and, for objects, everything
     * below) that would take the mapping past the limit is not mapped and
     * stays in _source only, as OpenSearch 3 does. */
    int64_t total_fields_limit;
    bool unmap_fields_beyond_limit;
    /* index.mapping.nested_objects.limit (10000): nested docs per document
     * (0 in a zeroed struct: the default) */
    int64_t nested_objects_limit;
    /* index.derived_source.enabled: the stored _source is the one
     * OpenSearch derives from doc values and stored fields (doc.c) */
    bool derived_source;
} tv_doc_opts;
/* Fills opts from settings (NULL: defaults, nothing unmapped). */
void tv_doc_opts_from_settings(const tv_settings *s, tv_doc_opts *opts);
/* tv_doc_parse with options (opts NULL: as tv_doc_parse). */
tv_status tv_doc_parse_ex(const tv_mapping *m, const tv_doc_opts *opts, const char *id,
                          size_t id_len, const char *source, size_t source_len, tv_arena *arena,
                          tv_parsed_doc *out, tv_json **dynamic_update, tv_error *err);

/* ================================================================ segments */

/* Sentinel doc id: the iterator is exhausted. */
#define TV_NO_MORE_DOCS UINT32_MAX

typedef struct tv_segment tv_segment;
struct tv_segview;

/* Per-field statistics of a segment (deleted documents still count, as in
 * Lucene). */
typedef struct tv_field_stats {
    uint32_t doc_count;         /* documents with at least one term */
    uint64_t sum_total_term_freq;
    uint64_t sum_doc_freq;
} tv_field_stats;

/* Where a term's postings are; filled by a lookup or enumeration, read by
 * tv_postings_open. Opaque apart from the statistics. */
typedef struct tv_term_state {
    uint32_t doc_freq;
    uint64_t total_term_freq;
    uint64_t loc[3]; /* segment-private */
} tv_term_state;

/* One competitive (freq, norm) pair bounding scores within a block. */
typedef struct tv_impact {
    uint32_t freq;
    uint8_t norm;
} tv_impact;

typedef struct tv_postings tv_postings;   /* doc iterator over one term or a field */
typedef struct tv_terms_iter tv_terms_iter;

tv_segment *tv_segment_retain(const tv_segment *s);
void tv_segment_release(const tv_segment *s); /* NULL is a no-op */
uint32_t tv_segment_max_doc(const tv_segment *s);
/* A process-unique id, for caches and debugging. */
uint64_t tv_segment_id(const tv_segment *s);
/* Bytes the segment occupies (for _stats store size). */
size_t tv_segment_bytes(const tv_segment *s);

/* False when the field has no postings in the segment. */
bool tv_segment_field_stats(const tv_segment *s, uint32_t field, tv_field_stats *out);

/* Exact term lookup. False when absent. */
bool tv_segment_term(const tv_segment *s, uint32_t field, const void *term, size_t len,
                     tv_term_state *out);

/* Whether the segment may hold a document with _id id: false means surely
 * not (a Bloom filter of its ids, about 1% false positives, built on the
 * first call: 10 bits per id). Thread-safe. Out of memory: true. */
bool tv_segment_id_maybe(const tv_segment *s, const void *id, size_t len);

/* Term enumeration in byte order (for prefix/wildcard/regexp/fuzzy/range on
 * keywords). Allocated in arena; NULL when the field has no terms. */
tv_terms_iter *tv_terms_iter_new(const tv_segment *s, uint32_t field, tv_arena *arena);
/* Positions before the first term >= target (call _next to read it). */
void tv_terms_iter_seek(tv_terms_iter *it, const void *target, size_t len);
/* Next term; term bytes borrowed until the next call. */
bool tv_terms_iter_next(tv_terms_iter *it, const char **term, size_t *len, tv_term_state *st);
/* As _next, skipping terms that do not end with suffix[0..slen); false
 * also at the first term that does not start with prefix[0..plen) (the
 * iterator was sought to the prefix). */
bool tv_terms_iter_next_match(tv_terms_iter *it, const char *prefix, size_t plen, const char *suffix,
                              size_t slen, const char **term, size_t *len, tv_term_state *st);
/* How many leading bytes the term the last _next returned shares with the
 * one returned before it (0 for the first term and after a seek). */
size_t tv_terms_iter_shared(const tv_terms_iter *it);
/* The longest term of the iterator's field in this segment. */
size_t tv_terms_iter_max_len(const tv_terms_iter *it);

/* Postings flags. */
#define TV_POST_FREQS 1u
#define TV_POST_POSITIONS 2u
#define TV_POST_IMPACTS 4u

/* Opens a doc iterator for a term. Allocated in arena. The iterator starts
 * before the first doc: call _next or _advance. */
tv_postings *tv_postings_open(const tv_segment *s, uint32_t field, const tv_term_state *st,
                              unsigned flags, tv_arena *arena);
/* Docs that have any value in field (exists query); NULL if none. */
tv_postings *tv_postings_field_docs(const tv_segment *s, uint32_t field, tv_arena *arena);
/* Current doc (TV_NO_MORE_DOCS at the end; undefined before the first call). */
/* (Inline for the hot loops of conjunctions and phrases: the current doc is
 * the first member of struct tv_postings, which segment.c asserts.) */
static inline uint32_t tv_postings_doc(const tv_postings *p) { return *(const uint32_t *)(const void *)p; }
uint32_t tv_postings_next(tv_postings *p);
/* First doc >= target (target greater than the current doc). */
uint32_t tv_postings_advance(tv_postings *p, uint32_t target);
/* ORs every doc after the current one (all of them when not started) below
 * nbits into the bitset words, block by block; the postings end. */
void tv_postings_or_bits(tv_postings *p, uint64_t *words, uint32_t nbits);
/* Term frequency in the current doc (1 without TV_POST_FREQS). */
uint32_t tv_postings_freq(tv_postings *p);
/* Next position of the current doc, ascending; call at most freq times. */
uint32_t tv_postings_next_pos(tv_postings *p);
/* The current doc's positions not read yet, at most cap of them, into out
 * (ascending); returns how many. The same values tv_postings_next_pos
 * would return one by one. */
uint32_t tv_postings_positions(tv_postings *p, uint32_t *out, uint32_t cap);
/* Upper bound on the number of docs (for planning). */
uint64_t tv_postings_cost(const tv_postings *p);
/*
 * Block-max support (TV_POST_IMPACTS): moves block metadata (not the doc
 * cursor) to the block containing target and returns the last doc id the
 * returned impacts cover. *imp and *n receive the competitive (freq, norm)
 * pairs of that block (borrowed until the next call).
 */
uint32_t tv_postings_impacts(tv_postings *p, uint32_t target, const tv_impact **imp, size_t *n);

/* Norm byte of a doc's field (0 when the doc has no value or the field has
 * no norms). */
uint8_t tv_segment_norm(const tv_segment *s, uint32_t field, uint32_t doc);
/* The field's norms as one byte per doc (max_doc of them, borrowed from
 * the segment), or NULL when it has none: what tv_segment_norm reads, for
 * a scorer that reads one per hit. */
const uint8_t *tv_segment_norms(const tv_segment *s, uint32_t field);

/* Doc values. Each returns the number of values the doc has (0 if none),
 * writing at most cap of them into out (ascending). */
uint32_t tv_segment_dv_numeric(const tv_segment *s, uint32_t field, uint32_t doc, int64_t *out,
                               uint32_t cap);
uint32_t tv_segment_dv_ords(const tv_segment *s, uint32_t field, uint32_t doc, uint32_t *out,
                            uint32_t cap);
/* A field's numeric doc values in one segment, looked up once: for a
 * caller that reads them doc after doc (aggregations). Valid for the
 * segment's life; ok false when the field has none there (reads give 0). */
typedef struct tv_dv_reader {
    const void *f;       /* the segment's field (private) */
    uint32_t max_doc;
} tv_dv_reader;
void tv_segment_dv_reader(const tv_segment *s, uint32_t field, tv_dv_reader *out);
/* As tv_segment_dv_numeric. */
uint32_t tv_dv_read_numeric(const tv_dv_reader *r, uint32_t doc, int64_t *out, uint32_t cap);

/* The term of a segment-local ordinal (borrowed for the segment's life). */
bool tv_segment_dv_term(const tv_segment *s, uint32_t field, uint32_t ord, const char **term,
                        size_t *len);
uint32_t tv_segment_dv_ord_count(const tv_segment *s, uint32_t field);

/* Points: sets in out (sized max_doc) every doc with a value of field in
 * [lo, hi] (sortable encoding, inclusive). */
tv_status tv_segment_points_range(const tv_segment *s, uint32_t field, int64_t lo, int64_t hi,
                                  tv_bitset *out);
/* A field's points in a segment, sorted by value (sortable encoding),
 * deleted docs' included: n entries (0: none), the i-th value and its
 * doc read with tv_points_value / tv_points_doc (i < n). */
typedef struct tv_points_view {
    const void *f; /* the segment's field (private) */
    uint64_t n;
} tv_points_view;
void tv_segment_points(const tv_segment *s, uint32_t field, tv_points_view *out);
int64_t tv_points_value(const tv_points_view *p, uint64_t i);
uint32_t tv_points_doc(const tv_points_view *p, uint64_t i);

/* Stored data of a doc: the _source bytes (NULL/0 when not stored), the _id,
 * _routing, and the version metadata. Bytes are allocated in arena (stored
 * sources are compressed in the segment). */
typedef struct tv_doc_meta {
    const char *id;
    uint32_t id_len;
    const char *routing; /* NULL if none */
    uint32_t routing_len;
    int64_t version;
    int64_t seq_no;
    int64_t primary_term;
} tv_doc_meta;
tv_status tv_segment_doc(const tv_segment *s, uint32_t doc, tv_arena *arena, tv_doc_meta *meta,
                         const char **source, size_t *source_len);

/* Decompressed stored-source chunks kept across the reads of one request
 * (the hits of a page), so that hits sharing a chunk decompress it once.
 * Caller storage: zero-initialise (or tv_stored_cache_init); the buffers
 * live in the arena given to the reads, so the cache and every source it
 * returned are valid until that arena is reset. Not thread-safe. */
#define TV_STORED_CACHE_WAYS 8
typedef struct tv_stored_cache {
    struct {
        const tv_segment *seg; /* NULL: empty way */
        uint32_t chunk;
        const char *raw; /* the chunk's first `have` bytes, decompressed */
        size_t have;
    } way[TV_STORED_CACHE_WAYS];
    unsigned next; /* the way the next miss replaces */
} tv_stored_cache;
static inline void tv_stored_cache_init(tv_stored_cache *c) { memset(c, 0, sizeof *c); }

/* tv_segment_doc through a cache: `upto` (>= doc) is the highest doc of this
 * segment the caller will read through the same cache, so that a miss
 * decompresses the chunk far enough for every later read of it (to the end
 * of the chunk when upto lies beyond). The source returned points into the
 * cache's buffer (arena). */
tv_status tv_segment_doc_cached(const tv_segment *s, uint32_t doc, uint32_t upto, tv_stored_cache *cache,
                                tv_arena *arena, tv_doc_meta *meta, const char **source, size_t *source_len);

/* The reserved field id under which every segment indexes each doc's _id as
 * a term (one posting per doc): the engine's id lookup and the ids query
 * use tv_segment_term(seg, TV_FIELD_ID, id, len, &st). */
#define TV_FIELD_ID 0xFFFFFFFEu

/*
 * Doc blocks (nested documents). A root document with nested objects is
 * stored as a block of consecutive docs: its nested docs in the order
 * tv_parsed_doc.nested gives, then the root. tv_segment_nest is 0 for a
 * root doc and 1 + the field id of its nested object mapping for a nested
 * doc. tv_segment_roots is the bitset (max_doc bits) of root docs, NULL
 * when every doc is a root; *nroots receives their count (may be NULL).
 * Nested docs have no _id term and no _source; tv_segment_nest_docs gives
 * the docs of one nested object. The engine never marks a
 * nested doc live (tv_segview.live has root docs only), so every query,
 * count and aggregation over a snapshot sees root docs only, and a nested
 * doc lives exactly as long as its root.
 */
uint32_t tv_segment_nest(const tv_segment *s, uint32_t doc);
const uint64_t *tv_segment_roots(const tv_segment *s, uint32_t *nroots);
/* The bitset of the docs whose nest value is `nest` (the docs of one
 * nested object), built from the NESTED column on first use and kept for
 * the segment's life (thread-safe; borrowed). NULL when the segment has
 * none (or out of memory: *oom set). */
const uint64_t *tv_segment_nest_docs(const tv_segment *s, uint32_t nest, bool *oom);

/* ---------------------------------------------------------- segment builder */

/*
 * Builds one immutable segment from parsed documents (the engine's write
 * buffer seals through this at refresh). Not thread-safe; one writer.
 */
typedef struct tv_segment_builder tv_segment_builder;

/* Returns owned (tv_segment_builder_free) or NULL on OOM. */
tv_segment_builder *tv_segment_builder_new(void);
void tv_segment_builder_free(tv_segment_builder *b);
/* Number of docs added since creation or the last finish. */
uint32_t tv_segment_builder_docs(const tv_segment_builder *b);
/* Adds a document, after its nested documents (doc->nested, in order);
 * it gets the next segment-local doc id (returned in *docid, may be NULL). Copies everything it keeps (doc and meta may be
 * freed after the call). meta supplies _id, _routing, version, seq_no and
 * primary_term; doc->id is ignored in favour of meta->id. */
tv_status tv_segment_builder_add(tv_segment_builder *b, const tv_parsed_doc *doc,
                                 const tv_doc_meta *meta, uint32_t *docid);
/* Seals the added documents into a segment (owned, refcount 1; release with
 * tv_segment_release) and resets the builder for reuse. With no documents
 * added, *out is NULL and TROVE_OK is returned. */
tv_status tv_segment_builder_finish(tv_segment_builder *b, tv_segment **out);

/* Merges the live documents of several segment views, in order, into one
 * new segment (doc ids renumbered densely). Statistics of the result count
 * only the docs kept. */
tv_status tv_segment_merge(const struct tv_segview *views, size_t n, tv_segment **out);

/* Opens a segment over serialized bytes (the same layout the builder
 * produces; what a store will mmap). The bytes are copied (owned by the
 * segment). Every structure is validated or bounds-checked on access:
 * corrupt input gives TROVE_ECORRUPT, never a crash. */
tv_status tv_segment_open(const void *bytes, size_t len, tv_segment **out, tv_error *err);
/* Opens a segment file by mapping it (read-only, shared): its pages are
 * read as queries touch them. Checksums are not verified (that would read
 * every page; trove check does it); the structure is, as for bytes. */
tv_status tv_segment_open_file(const char *path, tv_segment **out, tv_error *err);
/* Walks every structure of s through the reader calls and verifies the
 * builder's invariants (see segment_check.c). TROVE_OK, TROVE_ECORRUPT with
 * err filled, or TROVE_ENOMEM. Cost: a full decode of the segment. */
tv_status tv_segment_check(const tv_segment *s, tv_error *err);
/* The segment's serialized bytes (borrowed for the segment's life). */
const void *tv_segment_bytes_ptr(const tv_segment *s, size_t *len);

/* ================================================================ snapshots */

/* One segment as seen by a snapshot: its live docs and its doc id base. */
typedef struct tv_segview {
    const tv_segment *seg;
    const uint64_t *live; /* bit per doc, 1 = live; NULL: all live */
    uint32_t doc_base;    /* global doc id of the segment's doc 0 */
    uint32_t max_doc;
    uint32_t num_docs;    /* live documents */
} tv_segview;

static inline bool tv_segview_live(const tv_segview *v, uint32_t doc) {
    return !v->live || ((v->live[doc >> 6] >> (doc & 63)) & 1);
}

/* An immutable, reference-counted view of an index: what searches read. */
typedef struct tv_snapshot {
    const tv_mapping *mapping; /* the mapping in force when published */
    const tv_segview *segs;
    uint32_t nsegs;
    uint64_t max_doc;          /* sum of max_doc */
    uint64_t num_docs;         /* sum of num_docs */
    uint64_t generation;       /* increases with every published snapshot */
} tv_snapshot;

const tv_snapshot *tv_snapshot_retain(const tv_snapshot *s);
void tv_snapshot_release(const tv_snapshot *s); /* NULL is a no-op */

/* ================================================================ engine */

typedef struct tv_index tv_index;

/*
 * Creates an index from a create-index body's parsed "settings" and
 * "mappings" (either may be NULL). Returns owned (tv_index_release) or NULL
 * with err filled.
 */
tv_index *tv_index_new(const char *name, const tv_json *settings, const tv_json *mappings,
                       tv_error *err);
/* The same for an index read back from disk: settings are the flat ones
 * it was created with (private ones such as index.uuid and
 * index.creation_date kept, not generated); field_ids (NULL: as a parse
 * numbers them) the ids its fields had (tv_mapping_write_ids). */
tv_index *tv_index_restore(const char *name, const tv_json *flat_settings, const tv_json *mappings,
                           const tv_json *field_ids, tv_error *err);
tv_index *tv_index_retain(tv_index *idx);
void tv_index_release(tv_index *idx);

/* Copy-on-write clone: shares segments, mapping and settings; later writes
 * on either side are invisible to the other. O(1) in documents. */
tv_index *tv_index_clone(tv_index *idx, tv_error *err);

const char *tv_index_name(const tv_index *idx);
const char *tv_index_uuid(const tv_index *idx);
/* The current mapping (retained: release when done). */
const tv_mapping *tv_index_mapping(tv_index *idx);
/* Settings are read under the index's lock by the api layer. */
tv_settings *tv_index_settings(tv_index *idx);
void tv_index_lock(tv_index *idx);
void tv_index_unlock(tv_index *idx);

/* Merges a put-mapping body into the index's mapping. */
tv_status tv_index_put_mapping(tv_index *idx, const tv_json *body, tv_error *err);

typedef enum tv_op_type { TV_OP_INDEX = 0, TV_OP_CREATE } tv_op_type;
typedef enum tv_version_type {
    TV_VT_INTERNAL = 0,
    TV_VT_EXTERNAL,
    TV_VT_EXTERNAL_GTE,
} tv_version_type;
typedef enum tv_refresh { TV_REFRESH_FALSE = 0, TV_REFRESH_TRUE, TV_REFRESH_WAIT_FOR } tv_refresh;

#define TV_SEQ_NO_UNSET (-2)   /* OpenSearch's UNASSIGNED_SEQ_NO */
#define TV_VERSION_UNSET (-3)  /* OpenSearch's Versions.MATCH_ANY */

typedef struct tv_write_opts {
    tv_op_type op_type;
    int64_t if_seq_no;          /* TV_SEQ_NO_UNSET when absent */
    int64_t if_primary_term;    /* 0 when absent */
    int64_t version;            /* TV_VERSION_UNSET when absent */
    tv_version_type version_type;
    const char *routing;        /* NULL when absent */
    size_t routing_len;
    tv_refresh refresh;
    /* Translog replay: apply as recorded, with this version and seq_no, no
     * conditions checked and nothing logged. */
    bool replay;
    int64_t replay_version, replay_seq_no;
} tv_write_opts;

/* Fills opts with defaults (index, no conditions, no refresh). */
void tv_write_opts_init(tv_write_opts *opts);

typedef enum tv_write_result_kind {
    TV_RESULT_CREATED = 0,
    TV_RESULT_UPDATED,
    TV_RESULT_DELETED,
    TV_RESULT_NOT_FOUND,
    TV_RESULT_NOOP,
} tv_write_result_kind;
/* "created", "updated", ... Borrowed, static. */
const char *tv_write_result_name(tv_write_result_kind k);

typedef struct tv_write_result {
    tv_write_result_kind result;
    int64_t version;
    int64_t seq_no;
    int64_t primary_term;
    bool forced_refresh;
} tv_write_result;

/*
 * Indexes (or creates) a document: parses source against the mapping
 * (merging dynamic updates), checks op_type and version conditions, assigns
 * version and seq_no, and makes the doc visible to realtime get at once and
 * to search at the next refresh. Conflicts: TROVE_ECONFLICT with
 * OpenSearch's reason ("[id]: version conflict, document already exists
 * (current version [1])"). Parse failures: TROVE_EMAPPER and friends.
 */
tv_status tv_index_put(tv_index *idx, const char *id, size_t id_len, const char *source,
                       size_t source_len, const tv_write_opts *opts, tv_write_result *res,
                       tv_error *err);

/* Deletes by id. A missing doc is TROVE_OK with result TV_RESULT_NOT_FOUND
 * (and still consumes a seq_no, as OpenSearch does). */
tv_status tv_index_delete(tv_index *idx, const char *id, size_t id_len, const tv_write_opts *opts,
                          tv_write_result *res, tv_error *err);

/* Realtime get by id (sees unrefreshed writes when realtime is true; else
 * only the last refreshed snapshot). *found false when absent. Source and
 * meta strings are allocated in arena. */
tv_status tv_index_get(tv_index *idx, const char *id, size_t id_len, bool realtime,
                       tv_arena *arena, bool *found, tv_doc_meta *meta, const char **source,
                       size_t *source_len);

/* ---------------------------------------------------------- durability */

/*
 * With a translog attached (tv_index_attach_translog, owned by the index
 * from then on), every applied write appends a record before it becomes
 * visible: an index or delete (id, routing, version, seq_no, source), a
 * put-mapping body (tv_index_put_mapping) and a settings update
 * (tv_index_log_settings). A write whose record cannot be appended is
 * refused (TROVE_EIO) and changes nothing. Replaying the records in order
 * into a fresh index with the same creation settings and mappings
 * (tv_index_replay) rebuilds it: the same documents, versions, seq_nos and
 * mapping. Not replayed: the dynamic mapping update of a write that then
 * failed its version check (it consumed no seq_no and is not logged).
 */
typedef struct tv_translog tv_translog;
void tv_index_attach_translog(tv_index *idx, tv_translog *tl);
/* Appends a settings update body (PUT _settings) to the translog, before
 * the caller applies it; TROVE_OK without a translog. */
tv_status tv_index_log_settings(tv_index *idx, const char *body, size_t len, tv_error *err);
/* Applies one translog record (tv_translog_open's callback). */
tv_status tv_index_replay(tv_index *idx, const uint8_t *rec, size_t len, tv_error *err);
/* The seq_no an INDEX or DELETE record carries; false for other records
 * and for records that do not decode. */
bool tv_index_record_seq_no(const uint8_t *rec, size_t len, int64_t *seq_no);
/* Who asks tv_index_sync. */
typedef enum tv_sync_mode {
    TV_SYNC_REQUEST = 0, /* after a writing request: request durability syncs now, async when due */
    TV_SYNC_TIMER,       /* the syncer's tick: only async translogs, when due */
    TV_SYNC_FORCE,       /* _flush: now, whatever the durability */
} tv_sync_mode;
/* Makes the writes so far durable as index.translog.durability says:
 * request (the default) syncs now; async only when sync_interval (5s) has
 * passed since the last sync. TROVE_OK without a translog. */
tv_status tv_index_sync(tv_index *idx, tv_sync_mode mode, tv_error *err);
/* Whether a translog is attached. */
bool tv_index_durable(const tv_index *idx);
/* Whether the translog outgrew index.translog.flush_threshold_size (512mb
 * by default): time for a commit. */
bool tv_index_translog_full(tv_index *idx);

/*
 * Commits (the store writes the files; see durable.c). tv_index_commit_begin
 * seals the write buffer and, under the writer lock, takes what the index
 * holds (segments, a copy of each live-docs bitset, next_seq_no, mapping
 * and settings as JSON) and swaps in the next translog generation, so that
 * every write before the point is in the segments and every write after it
 * in `next`. The point owns the old translog. tv_index_install puts
 * committed segments back into a fresh index at open (before replay).
 */
typedef struct tv_commit_seg {
    const tv_segment *seg; /* retained */
    uint64_t *live;        /* copy of the live bitset (tv_malloc), NULL: all live */
    uint32_t max_doc;
} tv_commit_seg;
typedef struct tv_commit_point {
    tv_commit_seg *segs;
    uint32_t nsegs;
    int64_t next_seq_no;
    char *settings_json, *mapping_json; /* tv_malloc'd */
    char *field_ids_json;               /* tv_mapping_write_ids, tv_malloc'd */
    tv_translog *old_tl;                /* owned */
} tv_commit_point;
tv_status tv_index_commit_begin(tv_index *idx, tv_translog *next, tv_commit_point *cp, tv_error *err);
void tv_commit_point_fini(tv_commit_point *cp);
/* Segments (references taken) with their live bitsets (copied; NULL: all
 * live) become the index's, and next_seq_no continues from there. */
tv_status tv_index_install(tv_index *idx, const tv_segment *const *segs, const uint64_t *const *lives,
                           uint32_t n, int64_t next_seq_no, tv_error *err);

/* Publishes all buffered writes as a new snapshot (POST _refresh). */
tv_status tv_index_refresh(tv_index *idx);
/* POST _forcemerge?max_num_segments=N: merges the index's segments down to
 * at most max_segments (at least 1), dropping deleted documents. The
 * merged segments are published at once when nothing is unpublished, else
 * by the next refresh. TROVE_OK or TROVE_ENOMEM (the index unchanged). */
tv_status tv_index_force_merge(tv_index *idx, uint32_t max_segments);

/*
 * The snapshot searches should read. Emulates OpenSearch's periodic
 * refresh (index.refresh_interval) lazily: if buffered writes are older
 * than the interval, refreshes first. Returns retained; release with
 * tv_snapshot_release. NULL only on OOM.
 */
const tv_snapshot *tv_index_acquire(tv_index *idx);

/*
 * What an index counts for _stats (OpenSearch's shard-level statistics),
 * kept as atomic counters in the index and added to where the work is done:
 * the engine counts writes (not replayed ones), refreshes, merges and its
 * translog; the api and search layers count gets, flushes, no-op updates and
 * search phases through tv_index_stat_add. Times are nanoseconds of the
 * monotonic clock (OpenSearch sums nanoseconds and prints milliseconds).
 * A clone starts with its source's counts (the same history).
 */
typedef enum tv_stat {
    TV_STAT_INDEX_TOTAL = 0, TV_STAT_INDEX_NS, TV_STAT_INDEX_FAILED,
    TV_STAT_DELETE_TOTAL, TV_STAT_DELETE_NS, TV_STAT_NOOP_UPDATE,
    TV_STAT_GET_EXISTS, TV_STAT_GET_EXISTS_NS, TV_STAT_GET_MISSING, TV_STAT_GET_MISSING_NS,
    TV_STAT_QUERY_TOTAL, TV_STAT_QUERY_NS, TV_STAT_FETCH_TOTAL, TV_STAT_FETCH_NS,
    TV_STAT_SCROLL_TOTAL, TV_STAT_SCROLL_NS, TV_STAT_SCROLL_CURRENT,
    TV_STAT_PIT_TOTAL, TV_STAT_PIT_NS, TV_STAT_PIT_CURRENT,
    TV_STAT_SUGGEST_TOTAL, TV_STAT_SUGGEST_NS,
    TV_STAT_REFRESH_TOTAL, TV_STAT_REFRESH_NS,
    TV_STAT_FLUSH_TOTAL, TV_STAT_FLUSH_PERIODIC, TV_STAT_FLUSH_NS,
    TV_STAT_MERGE_TOTAL, TV_STAT_MERGE_NS, TV_STAT_MERGE_DOCS, TV_STAT_MERGE_BYTES,
    TV_STAT_MERGE_CURRENT, TV_STAT_MERGE_CURRENT_DOCS, TV_STAT_MERGE_CURRENT_BYTES,
    TV_STAT__COUNT
} tv_stat;
/* Adds v to one counter. Thread-safe, lock-free. */
void tv_index_stat_add(tv_index *idx, tv_stat s, int64_t v);
/* A flush happened: without a translog it ends the in-memory translog's
 * operations (with one, the commit's translog swap does). When counted
 * (POST _flush, the close of an index, or a commit by translog size when
 * periodic; not the flush inside _forcemerge, as in OpenSearch) it is
 * added to the flush statistics with its time. */
void tv_index_note_flush(tv_index *idx, bool counted, bool periodic, int64_t ns);
/* Zeroes the activity counters (not the figures of what is open: merges,
 * scrolls and point-in-time contexts): what OpenSearch's statistics show
 * when a close or an open recreates an index's shards. */
void tv_index_stats_restart(tv_index *idx);

/* Counts for _stats/_cat. */
typedef struct tv_index_stats {
    uint64_t docs_count;    /* live docs, refreshed and not */
    uint64_t docs_deleted;
    uint64_t store_bytes;
    uint32_t segments;
    uint64_t buffer_bytes;      /* the write buffer (index_writer_memory) */
    uint64_t version_map_bytes; /* id map of the buffer and delete tombstones, estimated */
    /* translog: INDEX and DELETE records since the last commit (with a
     * translog: its file's bytes; without: those records' encoded bytes,
     * framed as the file frames them) and the ms since it was last written */
    uint64_t tlog_ops, tlog_bytes;
    int64_t tlog_age_ms;
    int64_t ctr[TV_STAT__COUNT]; /* the counters, read one by one */
} tv_index_stats;
void tv_index_get_stats(tv_index *idx, tv_index_stats *out);

#endif /* TROVE_INDEX_H */
