/*
 * mapping.c — mappings: parse a "mappings" object into a field tree, merge
 * updates with OpenSearch's conflict rules, print the tree as GET _mapping
 * does, and look fields up by path, id or wildcard.
 *
 * Model. A mapping is a tree of nodes (mapping_int.h): the root "_doc"
 * object, objects with properties, and leaves with multi-fields. Each leaf
 * keeps the parameters the user set, as (copied) JSON values indexed by a
 * parameter enum, next to the typed tv_field the rest of trove reads. A
 * per-type table lists the parameters in the order OpenSearch's
 * ParametrizedFieldMapper declares them, with their defaults and whether a
 * mapping update may change them; parsing, printing and merging are all
 * driven by that table, which is how OpenSearch itself works, so printing
 * ("only values that differ from the default, in declaration order") and
 * conflicts ("Cannot update parameter [analyzer] from [default] to
 * [english]") come out the same.
 *
 * Merging copies the base tree into a new arena, parses the update into the
 * same arena and merges node by node; existing nodes keep their field ids
 * and new nodes get the next ids in sorted-path order, so ids are dense and
 * stable for the life of an index. The base mapping is never modified
 * (snapshots and searches may hold it).
 *
 * Lookups: fields by id (array) and by path (sorted array, binary search).
 * A path below a flat_object field ("f.a.b") that no node maps resolves
 * to a sub-field synthesized on first use (a copy of f's node with the
 * full path and an id hashed from it, outside the dense range; cached in
 * the mapping under a mutex, see mapping_int.h), so the document parser
 * indexes each leaf value under the sub-field of its path and every query
 * kind finds it through the ordinary field lookup. Rejected for it:
 * OpenSearch's own layout (values in f._value, "path=value" terms in
 * f._valueAndPath), which needs every query on "f.a.b" rewritten in the
 * search layer; and dense ids for sub-paths, which would turn each new
 * path of a document into a mapping update.
 *
 * Text's hidden sub-fields (index_prefixes -> "<f>._index_prefix",
 * index_phrases -> "<f>._index_phrase", TextFieldMapper's PrefixFieldMapper
 * and PhraseFieldMapper) are multi-field nodes marked `hidden`, added when
 * the leaf is parsed: the document parser indexes them with the parent's
 * value as any multi-field, with the parent's analyzer wrapped in edge
 * n-grams or 2-shingles (finish_leaf). They get ids like any node but are
 * never printed and never found by path (the parent's tv_field points at
 * them), so wildcard expansion, highlighting and `fields` do not see them
 * (field_caps asks the parent). search_as_you_type (a text field declared
 * so) adds "_2gram".."_<max_shingle_size>gram" and "_index_prefix" the same
 * way (SearchAsYouTypeFieldMapper's shingle and prefix mappers), except
 * that they are found by path: queries name them. Rejected: generating their terms inside doc.c from the
 * parent's tokens (a special case in the indexing hot path, and their
 * norms, statistics and positions would need a second accumulator anyway).
 *
 * Alternatives rejected: storing the mapping as its JSON and re-parsing it
 * on every merge (ids would need a side table and conflicts would be
 * detected on text, not on values); a hash map by path (a sorted array is
 * smaller, immutable and serves wildcard expansion in order too).
 */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>

#include "index/date.h"
#include "index/mapping_int.h"

/* ---------------------------------------------------------------- JSON */

tv_json *tv_json_copy(tv_arena *a, const tv_json *v) {
    tv_json *out = tv_arena_alloc(a, sizeof *out);
    if (!out) return NULL;
    *out = *v;
    switch (v->type) {
    case TV_JSON_STRING:
        out->v.s = tv_arena_memdup(a, v->v.s, v->len);
        if (!out->v.s) return NULL;
        break;
    case TV_JSON_INT: case TV_JSON_UINT: case TV_JSON_DOUBLE:
        if (v->raw) {
            out->raw = tv_arena_memdup(a, v->raw, v->raw_len);
            if (!out->raw) return NULL;
        }
        break;
    case TV_JSON_ARRAY:
        out->v.items = v->len ? tv_arena_alloc(a, v->len * sizeof(tv_json)) : NULL;
        if (v->len && !out->v.items) return NULL;
        for (uint32_t i = 0; i < v->len; i++) {
            tv_json *c = tv_json_copy(a, &v->v.items[i]);
            if (!c) return NULL;
            out->v.items[i] = *c;
        }
        break;
    case TV_JSON_OBJECT:
        out->v.members = v->len ? tv_arena_alloc(a, v->len * sizeof(tv_json_member)) : NULL;
        if (v->len && !out->v.members) return NULL;
        for (uint32_t i = 0; i < v->len; i++) {
            tv_json_member *m = &out->v.members[i];
            *m = v->v.members[i];
            m->key = tv_arena_memdup(a, v->v.members[i].key, v->v.members[i].key_len);
            tv_json *c = tv_json_copy(a, &v->v.members[i].val);
            if (!m->key || !c) return NULL;
            m->val = *c;
        }
        break;
    default:
        break;
    }
    return out;
}

static tv_json *json_str(tv_arena *a, const char *s, size_t n) {
    tv_json *j = tv_arena_calloc(a, 1, sizeof *j);
    if (!j) return NULL;
    j->type = TV_JSON_STRING;
    j->v.s = tv_arena_memdup(a, s, n);
    j->len = (uint32_t)n;
    return j->v.s ? j : NULL;
}

static tv_json *json_bool(tv_arena *a, bool b) {
    tv_json *j = tv_arena_calloc(a, 1, sizeof *j);
    if (j) j->type = b ? TV_JSON_TRUE : TV_JSON_FALSE;
    return j;
}

static tv_json *json_int(tv_arena *a, int64_t i) {
    tv_json *j = tv_arena_calloc(a, 1, sizeof *j);
    if (j) {
        j->type = TV_JSON_INT;
        j->v.i = i;
    }
    return j;
}

static tv_json *json_dbl(tv_arena *a, double d) {
    tv_json *j = tv_arena_calloc(a, 1, sizeof *j);
    if (j) {
        j->type = TV_JSON_DOUBLE;
        j->v.d = d;
    }
    return j;
}

/* Java's toString of a scalar mapping value (for messages). */
void tv_json_to_java(const tv_json *v, tv_buf *b) {
    if (!v) {
        tv_buf_puts(b, "null");
        return;
    }
    switch (v->type) {
    case TV_JSON_NULL: tv_buf_puts(b, "null"); break;
    case TV_JSON_TRUE: tv_buf_puts(b, "true"); break;
    case TV_JSON_FALSE: tv_buf_puts(b, "false"); break;
    case TV_JSON_INT: tv_buf_printf(b, "%lld", (long long)v->v.i); break;
    case TV_JSON_UINT: tv_buf_printf(b, "%llu", (unsigned long long)v->v.u); break;
    case TV_JSON_DOUBLE: {
        if (v->raw) tv_buf_append(b, v->raw, v->raw_len);
        else {
            char tmp[40];
            tv_buf_append(b, tmp, tv_fmt_double(v->v.d, tmp));
        }
        break;
    }
    case TV_JSON_STRING: tv_buf_append(b, v->v.s, v->len); break;
    case TV_JSON_ARRAY:
        tv_buf_putc(b, '[');
        for (uint32_t i = 0; i < v->len; i++) {
            if (i) tv_buf_puts(b, ", ");
            tv_json_to_java(&v->v.items[i], b);
        }
        tv_buf_putc(b, ']');
        break;
    case TV_JSON_OBJECT:
        tv_buf_putc(b, '{');
        for (uint32_t i = 0; i < v->len; i++) {
            if (i) tv_buf_puts(b, ", ");
            tv_buf_append(b, v->v.members[i].key, v->v.members[i].key_len);
            tv_buf_putc(b, '=');
            tv_json_to_java(&v->v.members[i].val, b);
        }
        tv_buf_putc(b, '}');
        break;
    }
}

/* ---------------------------------------------------------------- params */

typedef enum pkind { K_BOOL, K_INT, K_FLOAT, K_DOUBLE, K_STRING, K_OBJECT, K_NULLVAL } pkind;

static const struct {
    const char *name;
    pkind kind;
} params[P_COUNT] = {
    [P_INDEX] = {"index", K_BOOL},
    [P_STORE] = {"store", K_BOOL},
    [P_DOC_VALUES] = {"doc_values", K_BOOL},
    [P_INDEX_OPTIONS] = {"index_options", K_STRING},
    [P_NORMS] = {"norms", K_BOOL},
    [P_TERM_VECTOR] = {"term_vector", K_STRING},
    [P_ANALYZER] = {"analyzer", K_STRING},
    [P_SEARCH_ANALYZER] = {"search_analyzer", K_STRING},
    [P_SEARCH_QUOTE_ANALYZER] = {"search_quote_analyzer", K_STRING},
    [P_SIMILARITY] = {"similarity", K_STRING},
    [P_POS_GAP] = {"position_increment_gap", K_INT},
    [P_FIELDDATA] = {"fielddata", K_BOOL},
    [P_FIELDDATA_FF] = {"fielddata_frequency_filter", K_OBJECT},
    [P_EAGER] = {"eager_global_ordinals", K_BOOL},
    [P_INDEX_PHRASES] = {"index_phrases", K_BOOL},
    [P_INDEX_PREFIXES] = {"index_prefixes", K_OBJECT},
    [P_BOOST] = {"boost", K_FLOAT},
    [P_META] = {"meta", K_OBJECT},
    [P_NULL_VALUE] = {"null_value", K_NULLVAL},
    [P_IGNORE_ABOVE] = {"ignore_above", K_INT},
    [P_USE_SIMILARITY] = {"use_similarity", K_BOOL},
    [P_NORMALIZER] = {"normalizer", K_STRING},
    [P_SPLIT_WS] = {"split_queries_on_whitespace", K_BOOL},
    [P_IGNORE_MALFORMED] = {"ignore_malformed", K_BOOL},
    [P_COERCE] = {"coerce", K_BOOL},
    [P_SCALING_FACTOR] = {"scaling_factor", K_DOUBLE},
    [P_FORMAT] = {"format", K_STRING},
    [P_LOCALE] = {"locale", K_STRING},
    [P_VALUE] = {"value", K_STRING},
    [P_IGNORE_Z] = {"ignore_z_value", K_BOOL},
    [P_ENABLE_POS_INC] = {"enable_position_increments", K_BOOL},
    [P_DEPTH_LIMIT] = {"depth_limit", K_INT},
    [P_MAX_SHINGLE] = {"max_shingle_size", K_INT},
    [P_MULTIVALUED] = {"multivalued", K_BOOL},
};

/* A parameter of a type: its default (as text: "true", "256", a string, or
 * NULL for "no value") and whether updates may change it. */
typedef struct tparam {
    mparam p;
    const char *def;
    bool updatable;
} tparam;

#define TP_END {P_COUNT, NULL, false}

static const tparam text_params[] = {
    {P_INDEX, "true", false},          {P_STORE, "false", false},
    {P_INDEX_OPTIONS, "positions", false}, {P_NORMS, "true", true},
    {P_TERM_VECTOR, "no", false},      {P_ANALYZER, "default", false},
    {P_SEARCH_ANALYZER, NULL, true},   {P_SEARCH_QUOTE_ANALYZER, NULL, true},
    {P_SIMILARITY, NULL, false},       {P_POS_GAP, "-1", false},
    {P_FIELDDATA, "false", true},      {P_FIELDDATA_FF, NULL, true},
    {P_EAGER, "false", true},          {P_INDEX_PHRASES, "false", false},
    {P_INDEX_PREFIXES, NULL, false},   {P_BOOST, "1.0", true},
    {P_META, NULL, true},              TP_END,
};
static const tparam keyword_params[] = {
    {P_INDEX, "true", false},        {P_DOC_VALUES, "true", false},
    {P_STORE, "false", false},       {P_NULL_VALUE, NULL, false},
    {P_EAGER, "false", true},        {P_IGNORE_ABOVE, "2147483647", true},
    {P_INDEX_OPTIONS, "docs", false}, {P_NORMS, "false", true},
    {P_SIMILARITY, NULL, false},     {P_USE_SIMILARITY, "false", true},
    {P_NORMALIZER, "default", false}, {P_SPLIT_WS, "false", true},
    {P_BOOST, "1.0", true},          {P_META, NULL, true},
    TP_END,
};
static const tparam number_params[] = {
    {P_INDEX, "true", false},           {P_DOC_VALUES, "true", false},
    {P_STORE, "false", false},          {P_IGNORE_MALFORMED, "false", true},
    {P_COERCE, "true", true},           {P_NULL_VALUE, NULL, false},
    {P_BOOST, "1.0", true},             {P_META, NULL, true},
    TP_END,
};
static const tparam scaled_params[] = {
    {P_INDEX, "true", false},   {P_DOC_VALUES, "true", false},
    {P_STORE, "false", false},  {P_IGNORE_MALFORMED, "false", true},
    {P_META, NULL, true},       {P_SCALING_FACTOR, NULL, false},
    {P_COERCE, "true", true},   {P_NULL_VALUE, NULL, false},
    TP_END,
};
static const tparam date_params[] = {
    {P_INDEX, "true", false},   {P_DOC_VALUES, "true", false},
    {P_STORE, "false", false},  {P_FORMAT, TV_DATE_DEFAULT_FORMAT, false},
    {P_LOCALE, NULL, false},    {P_NULL_VALUE, NULL, false},
    {P_IGNORE_MALFORMED, "false", true}, {P_BOOST, "1.0", true},
    {P_META, NULL, true},       TP_END,
};
static const tparam boolean_params[] = {
    {P_META, NULL, true},        {P_BOOST, "1.0", true},
    {P_DOC_VALUES, "true", false}, {P_INDEX, "true", false},
    {P_NULL_VALUE, NULL, false}, {P_STORE, "false", false},
    TP_END,
};

static const tparam date_nanos_params[] = {
    {P_INDEX, "true", false},   {P_DOC_VALUES, "true", false},
    {P_STORE, "false", false},  {P_FORMAT, TV_DATE_NANOS_DEFAULT_FORMAT, false},
    {P_LOCALE, NULL, false},    {P_NULL_VALUE, NULL, false},
    {P_IGNORE_MALFORMED, "false", true}, {P_BOOST, "1.0", true},
    {P_META, NULL, true},       TP_END,
};
static const tparam binary_params[] = {
    {P_META, NULL, true}, {P_STORE, "false", false}, {P_DOC_VALUES, "false", false}, TP_END,
};
static const tparam ip_params[] = {
    {P_INDEX, "true", false},  {P_DOC_VALUES, "true", false},
    {P_STORE, "false", false}, {P_IGNORE_MALFORMED, "false", true},
    {P_NULL_VALUE, NULL, false}, {P_META, NULL, true},
    TP_END,
};
/* search_as_you_type (SearchAsYouTypeFieldMapper.Builder.getParameters;
 * doc_values and max_shingle_size always print) */
static const tparam sayt_params[] = {
    {P_INDEX, "true", false},          {P_STORE, "false", false},
    {P_DOC_VALUES, "false", false},    {P_MAX_SHINGLE, "3", false},
    {P_ANALYZER, "default", false},    {P_SEARCH_ANALYZER, NULL, true},
    {P_SEARCH_QUOTE_ANALYZER, NULL, true}, {P_SIMILARITY, NULL, false},
    {P_INDEX_OPTIONS, "positions", false}, {P_NORMS, "true", true},
    {P_TERM_VECTOR, "no", false},      {P_MULTIVALUED, "false", true},
    {P_META, NULL, true},              TP_END,
};
/* match_only_text: in the order its doXContentBody prints them */
static const tparam mot_params[] = {
    {P_BOOST, "1.0", true},            {P_INDEX, "true", false},
    {P_STORE, "false", false},         {P_META, NULL, true},
    {P_INDEX_OPTIONS, "docs", false},  {P_TERM_VECTOR, "no", false},
    {P_NORMS, "false", true},          {P_ANALYZER, "default", false},
    {P_SEARCH_ANALYZER, NULL, true},   {P_SEARCH_QUOTE_ANALYZER, NULL, true},
    {P_SIMILARITY, NULL, false},       {P_EAGER, "false", true},
    {P_POS_GAP, "-1", false},          {P_FIELDDATA, "false", true},
    {P_FIELDDATA_FF, NULL, true},      {P_INDEX_PREFIXES, NULL, false},
    {P_INDEX_PHRASES, "false", false}, TP_END,
};
static const tparam geo_params[] = {
    {P_IGNORE_MALFORMED, "false", true}, {P_IGNORE_Z, "true", true},
    {P_NULL_VALUE, NULL, false},         {P_INDEX, "true", false},
    {P_DOC_VALUES, "true", false},       {P_STORE, "false", false},
    {P_META, NULL, true},                TP_END,
};
static const tparam constant_keyword_params[] = {
    {P_VALUE, NULL, false}, TP_END,
};
static const tparam wildcard_params[] = {
    {P_NULL_VALUE, NULL, false}, {P_IGNORE_ABOVE, "2147483647", true},
    {P_NORMALIZER, "default", false}, {P_DOC_VALUES, "true", false},
    {P_META, NULL, true},        TP_END,
};
/* flat_object: a keyword over every leaf value of an object (see
 * mapping_int.h), with OpenSearch 3's parameters */
static const tparam flat_object_params[] = {
    {P_DEPTH_LIMIT, "20", false},       {P_DOC_VALUES, "true", false},
    {P_IGNORE_ABOVE, "2147483647", true}, {P_INDEX, "true", false},
    {P_INDEX_OPTIONS, "docs", false},   {P_EAGER, "false", true},
    {P_NORMS, "false", true},           {P_NULL_VALUE, NULL, false},
    {P_SIMILARITY, NULL, false},        {P_NORMALIZER, "default", false},
    {P_SPLIT_WS, "false", true},        {P_META, NULL, true},
    TP_END,
};
/* the range types: RangeFieldMapper.Builder.getParameters() order */
static const tparam range_params[] = {
    {P_INDEX, "true", false},          {P_DOC_VALUES, "true", false},
    {P_STORE, "false", false},         {P_COERCE, "true", true},
    {P_FORMAT, TV_DATE_DEFAULT_FORMAT, false}, {P_LOCALE, NULL, false},
    {P_BOOST, "1.0", true},            {P_META, NULL, true},
    {P_IGNORE_MALFORMED, "false", true}, TP_END,
};
static const tparam token_count_params[] = {
    {P_INDEX, "true", false},    {P_DOC_VALUES, "true", false},
    {P_STORE, "false", false},   {P_ANALYZER, NULL, true},
    {P_NULL_VALUE, NULL, false}, {P_ENABLE_POS_INC, "true", false},
    {P_BOOST, "1.0", true},      {P_META, NULL, true},
    TP_END,
};

static const tparam *type_params(tv_field_type t) {
    switch (t) {
    case TV_FT_UNSIGNED_LONG: return number_params;
    case TV_FT_DATE_NANOS: return date_nanos_params;
    case TV_FT_BINARY: return binary_params;
    case TV_FT_IP: return ip_params;
    case TV_FT_MATCH_ONLY_TEXT: return mot_params;
    case TV_FT_GEO_POINT: return geo_params;
    case TV_FT_TEXT: return text_params;
    case TV_FT_KEYWORD: return keyword_params;
    case TV_FT_LONG: case TV_FT_INTEGER: case TV_FT_SHORT: case TV_FT_BYTE:
    case TV_FT_DOUBLE: case TV_FT_FLOAT: case TV_FT_HALF_FLOAT:
        return number_params;
    case TV_FT_SCALED_FLOAT: return scaled_params;
    case TV_FT_DATE: return date_params;
    case TV_FT_BOOLEAN: return boolean_params;
    case TV_FT_RANGE: return range_params;
    default: return NULL;
    }
}

/* The parameter table of a node: aliases have their own. */
static const tparam *node_params(const mnode *n) {
    static const tparam no_params[] = {TP_END};
    if (n->is_alias) return no_params;
    if (n->decl_type) {
        if (strcmp(n->decl_type, "constant_keyword") == 0) return constant_keyword_params;
        if (strcmp(n->decl_type, "wildcard") == 0) return wildcard_params;
        if (strcmp(n->decl_type, "token_count") == 0) return token_count_params;
        if (strcmp(n->decl_type, "flat_object") == 0) return flat_object_params;
        if (strcmp(n->decl_type, "search_as_you_type") == 0) return n->hidden ? type_params(TV_FT_TEXT) : sayt_params;
    }
    return type_params(n->f.type);
}

/* The type name a node declared. */
static const char *node_type_name(const mnode *n) {
    if (n->hidden == 4) return "prefix"; /* search_as_you_type's PrefixFieldType */
    return n->decl_type ? n->decl_type : tv_field_type_name(n->f.type);
}

const char *tv_field_declared_type(const tv_field *f) {
    if (!f) return "unknown";
    f = tv_field_resolve(f);
    if (f->type == TV_FT_OBJECT) return f->nested ? "nested" : "object";
    return node_type_name(tv_mnode_of(f));
}

/* _field_caps: MappedFieldType.isSearchable() is "indexed" (OpenSearch's
 * doc-values fallback for queries does not change the flag), and
 * isAggregatable() is "fielddataBuilder does not throw": doc values for
 * keyword, numbers, dates, booleans, ip, geo_point and binary; the
 * fielddata parameter for text; never for match_only_text; always for
 * constant_keyword (ConstantIndexFieldData). token_count reports
 * "integer". */
bool tv_field_fielddata(const tv_field *f) {
    f = tv_field_resolve(f);
    if (!f || (f->type != TV_FT_TEXT && f->type != TV_FT_MATCH_ONLY_TEXT)) return false;
    const tv_json *fd = tv_mnode_of(f)->p[P_FIELDDATA];
    return fd && fd->type == TV_JSON_TRUE;
}

void tv_field_caps_of(const tv_field *f, tv_field_caps *out) {
    memset(out, 0, sizeof *out);
    f = tv_field_resolve(f); /* an alias reports its target (FieldTypeLookup) */
    out->type = tv_field_declared_type(f);
    if (!f || f->type == TV_FT_OBJECT) return;
    const mnode *n = tv_mnode_of(f);
    /* TokenCountFieldType is an integer NumberFieldType that keeps
     * NumberType.INTEGER's name */
    if (n->decl_type && strcmp(n->decl_type, "token_count") == 0) out->type = "integer";
    const tv_json *meta = n->p[P_META];
    out->meta = meta && meta->type == TV_JSON_OBJECT && meta->len ? meta : NULL;
    bool indexed = n->p[P_INDEX] ? n->p[P_INDEX]->type == TV_JSON_TRUE : true;
    if (f->type == TV_FT_TEXT) {
        out->searchable = indexed;
        out->aggregatable = n->p[P_FIELDDATA] && n->p[P_FIELDDATA]->type == TV_JSON_TRUE;
    } else if (f->type == TV_FT_MATCH_ONLY_TEXT) {
        out->searchable = indexed;
        out->aggregatable = false;
    } else if (f->type == TV_FT_BINARY) {
        out->searchable = false;
        out->aggregatable = f->doc_values;
    } else if (n->decl_type && strcmp(n->decl_type, "constant_keyword") == 0) {
        out->searchable = true;
        out->aggregatable = true;
    } else {
        out->searchable = n->decl_type && strcmp(n->decl_type, "flat_object") == 0 ? indexed : f->index;
        out->aggregatable = f->doc_values;
    }
}

static const tparam *find_tparam(const tparam *tp, const char *name, size_t len) {
    for (; tp && tp->p != P_COUNT; tp++)
        if (tv_streq(name, len, params[tp->p].name)) return tp;
    return NULL;
}

/* The leaf types trove implements. */
static bool leaf_type_from_name(const char *s, size_t n, tv_field_type *out, const char **decl) {
    static const struct {
        const char *name;
        tv_field_type t;
        const char *decl;
    } names[] = {
        {"binary", TV_FT_BINARY, NULL}, {"ip", TV_FT_IP, NULL},
        {"match_only_text", TV_FT_MATCH_ONLY_TEXT, NULL}, {"geo_point", TV_FT_GEO_POINT, NULL},
        {"date_nanos", TV_FT_DATE_NANOS, NULL}, {"unsigned_long", TV_FT_UNSIGNED_LONG, NULL},
        {"constant_keyword", TV_FT_KEYWORD, "constant_keyword"},
        {"wildcard", TV_FT_KEYWORD, "wildcard"},
        {"token_count", TV_FT_INTEGER, "token_count"},
        {"flat_object", TV_FT_KEYWORD, "flat_object"},
        {"search_as_you_type", TV_FT_TEXT, "search_as_you_type"},
        {"integer_range", TV_FT_RANGE, "integer_range"}, {"long_range", TV_FT_RANGE, "long_range"},
        {"float_range", TV_FT_RANGE, "float_range"}, {"double_range", TV_FT_RANGE, "double_range"},
        {"date_range", TV_FT_RANGE, "date_range"}, {"ip_range", TV_FT_RANGE, "ip_range"},
        {"text", TV_FT_TEXT, NULL},       {"keyword", TV_FT_KEYWORD, NULL},
        {"long", TV_FT_LONG, NULL},       {"integer", TV_FT_INTEGER, NULL},
        {"short", TV_FT_SHORT, NULL},     {"byte", TV_FT_BYTE, NULL},
        {"double", TV_FT_DOUBLE, NULL},   {"float", TV_FT_FLOAT, NULL},
        {"half_float", TV_FT_HALF_FLOAT, NULL}, {"scaled_float", TV_FT_SCALED_FLOAT, NULL},
        {"date", TV_FT_DATE, NULL},       {"boolean", TV_FT_BOOLEAN, NULL},
    };
    for (size_t i = 0; i < TV_ARRAY_LEN(names); i++)
        if (tv_streq(s, n, names[i].name)) {
            *out = names[i].t;
            *decl = names[i].decl;
            return true;
        }
    return false;
}

/* Real OpenSearch 3 field types that trove does not implement. */
static bool opensearch_type(const char *s, size_t n) {
    static const char *const names[] = {
        "flat_object", "geo_shape", "completion", "search_as_you_type",
        "join", "percolator", "rank_feature", "rank_features",
        "knn_vector", "dense_vector", "sparse_vector", "murmur3", "annotated_text", "icu_collation_keyword",
        "semantic", "star_tree", "derived", "xy_point", "xy_shape", "histogram",
        "version", "point", "shape", "object_array", "text_embedding",
    };
    for (size_t i = 0; i < TV_ARRAY_LEN(names); i++)
        if (tv_streq(s, n, names[i])) return true;
    return false;
}

/* Parameters every field mapper silently ignores when its type does not
 * declare them (OpenSearch's DEPRECATED_PARAMS). */
static bool ignored_param(const char *s, size_t n) {
    static const char *const names[] = {"store", "meta", "boost", "index", "doc_values",
                                        "index_options", "similarity"};
    for (size_t i = 0; i < TV_ARRAY_LEN(names); i++)
        if (tv_streq(s, n, names[i])) return true;
    return false;
}

/* ---------------------------------------------------------------- parser */

typedef struct pctx {
    tv_mapping *m;
    tv_arena *a;
    tv_error *err;
    tv_status st;
} pctx;

static tv_status oom(pctx *c) {
    c->st = tv_error_oom(c->err);
    return c->st;
}

static mnode *new_node(pctx *c, const char *name, size_t nlen, const char *parent_path,
                       size_t plen) {
    mnode *n = tv_arena_calloc(c->a, 1, sizeof *n);
    if (!n) return NULL;
    n->name = tv_arena_strndup(c->a, name, nlen);
    n->name_len = (uint32_t)nlen;
    char *path = tv_arena_alloc(c->a, plen + nlen + 2);
    if (!n->name || !path) return NULL;
    if (plen) {
        memcpy(path, parent_path, plen);
        path[plen] = '.';
        memcpy(path + plen + 1, name, nlen);
        path[plen + 1 + nlen] = '\0';
        n->f.path_len = (uint32_t)(plen + 1 + nlen);
    } else {
        memcpy(path, name, nlen);
        path[nlen] = '\0';
        n->f.path_len = (uint32_t)nlen;
    }
    n->f.path = path;
    n->f.id = UINT32_MAX;
    n->dynamic = -1;
    n->enabled = -1;
    n->nested_decl = -1;
    return n;
}

static void add_child(mnode *parent, mnode *kid) {
    kid->next = NULL;
    if (parent->last) parent->last->next = kid;
    else parent->first = kid;
    parent->last = kid;
}

static mnode *find_child(const mnode *n, const char *name, size_t len) {
    for (mnode *k = n->first; k; k = k->next)
        if (k->name_len == len && memcmp(k->name, name, len) == 0) return k;
    return NULL;
}

static void remaining_fields(const tv_json_member *mem, tv_buf *b) {
    tv_buf_printf(b, " [%.*s : ", (int)mem->key_len, mem->key);
    tv_json_to_java(&mem->val, b);
    tv_buf_putc(b, ']');
}

static tv_status bool_value(pctx *c, const tv_json *v, const char *what, bool *out) {
    if (v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE) {
        *out = v->type == TV_JSON_TRUE;
        return TROVE_OK;
    }
    if (v->type == TV_JSON_STRING && tv_streq(v->v.s, v->len, "true")) {
        *out = true;
        return TROVE_OK;
    }
    if (v->type == TV_JSON_STRING && tv_streq(v->v.s, v->len, "false")) {
        *out = false;
        return TROVE_OK;
    }
    tv_buf b;
    tv_buf_init(&b);
    tv_json_to_java(v, &b);
    c->st = tv_error_set(c->err, TROVE_EARG, "Could not convert [%s] to boolean", what);
    tv_error_cause(c->err, TROVE_EARG,
                   "Failed to parse value [%s] as only [true] or [false] are allowed.",
                   b.data ? b.data : "");
    tv_buf_fini(&b);
    return c->st;
}

/* Parses a dynamic setting (true/false/"strict"/"true"/"false"). */
static tv_status dynamic_value(pctx *c, const tv_json *v, const char *obj_name, int8_t *out) {
    if (v->type == TV_JSON_STRING && tv_streq(v->v.s, v->len, "strict")) {
        *out = TV_DYNAMIC_STRICT;
        return TROVE_OK;
    }
    if (v->type == TV_JSON_STRING && tv_streq(v->v.s, v->len, "strict_allow_templates")) {
        *out = TV_DYNAMIC_STRICT_ALLOW_TEMPLATES;
        return TROVE_OK;
    }
    char what[300];
    snprintf(what, sizeof what, "%s.dynamic", obj_name);
    bool b;
    if (bool_value(c, v, what, &b)) return c->st;
    *out = b ? TV_DYNAMIC_TRUE : TV_DYNAMIC_FALSE;
    return TROVE_OK;
}

static tv_status prefix_config(pctx *c, mnode *n, const tv_json *v, tv_json **out);

/* Normalises a leaf parameter's JSON into the canonical value stored. */
static tv_status parse_param(pctx *c, mnode *n, const tparam *tp, const tv_json *v,
                             const char *type_name) {
    mparam p = tp->p;
    const char *pname = params[p].name;
    tv_json *out = NULL;
    if (v->type == TV_JSON_NULL && p != P_NULL_VALUE && p != P_INDEX_PREFIXES)
        return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                    "[%s] on mapper [%s] of type [%s] must not have a [null] value",
                                    pname, n->name, type_name);
    switch (params[p].kind) {
    case K_BOOL: {
        bool b;
        if (bool_value(c, v, pname, &b)) return c->st;
        out = json_bool(c->a, b);
        break;
    }
    case K_INT: {
        int64_t i;
        if (v->type == TV_JSON_INT) i = v->v.i;
        else if (v->type == TV_JSON_DOUBLE) i = tv_java_d2l(v->v.d);
        else if (v->type == TV_JSON_STRING && tv_parse_i64(v->v.s, v->len, &i)) {
        } else {
            tv_buf b;
            tv_buf_init(&b);
            tv_json_to_java(v, &b);
            c->st = tv_error_set(c->err, TROVE_ENUMBERFORMAT, "For input string: \"%s\"",
                                 b.data ? b.data : "");
            tv_buf_fini(&b);
            return c->st;
        }
        if (i < INT32_MIN || i > INT32_MAX)
            return c->st = tv_error_set(c->err, TROVE_EARG, "Value [%lld] is out of range for an integer",
                                        (long long)i);
        if (p == P_IGNORE_ABOVE && i < 0)
            return c->st = tv_error_set(c->err, TROVE_EARG,
                                        "[ignore_above] must be positive, got [%lld]", (long long)i);
        out = json_int(c->a, i);
        break;
    }
    case K_FLOAT: case K_DOUBLE: {
        double d;
        if (tv_json_is_number(v)) d = tv_json_as_double(v);
        else if (v->type == TV_JSON_STRING) {
            char tmp[64];
            char *end;
            size_t n2 = TV_MIN(v->len, sizeof tmp - 1);
            memcpy(tmp, v->v.s, n2);
            tmp[n2] = '\0';
            d = strtod(tmp, &end);
            if (end == tmp || *end)
                return c->st = tv_error_set(c->err, TROVE_ENUMBERFORMAT,
                                            "For input string: \"%.*s\"", (int)v->len, v->v.s);
        } else {
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "Failed to parse mapping parameter [%s] on field [%s]",
                                        pname, n->name);
        }
        if (params[p].kind == K_FLOAT) d = (double)(float)d;
        out = json_dbl(c->a, d);
        break;
    }
    case K_STRING: {
        if (v->type == TV_JSON_STRING) {
            out = json_str(c->a, v->v.s, v->len);
        } else if (v->type != TV_JSON_OBJECT && v->type != TV_JSON_ARRAY) {
            tv_buf b;
            tv_buf_init(&b);
            tv_json_to_java(v, &b);
            out = json_str(c->a, b.data ? b.data : "", b.len);
            tv_buf_fini(&b);
        } else {
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "Failed to parse mapping parameter [%s] on field [%s]: "
                                        "expected a string",
                                        pname, n->name);
        }
        break;
    }
    case K_OBJECT:
        if (p == P_INDEX_PREFIXES && v->type != TV_JSON_NULL) {
            if (prefix_config(c, n, v, &out)) return c->st;
            break;
        }
        if (p == P_META && v->type != TV_JSON_OBJECT)
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "[meta] must be an object, got %s[%.*s] for field [%s]",
                                        v->type == TV_JSON_STRING ? "String" : "Object",
                                        v->type == TV_JSON_STRING ? (int)v->len : 0,
                                        v->type == TV_JSON_STRING ? v->v.s : "", n->f.path);
        out = tv_json_copy(c->a, v);
        break;
    case K_NULLVAL:
        out = tv_json_copy(c->a, v);
        break;
    }
    if (!out) return oom(c);
    n->p[p] = out;
    return TROVE_OK;
}

static tv_status parse_properties(pctx *c, mnode *obj, const tv_json *props);
static tv_status parse_field(pctx *c, mnode *parent, const char *name, size_t nlen,
                             const tv_json *def, bool multi);

static bool str_in(const tv_json *v, const char *const *allowed) {
    for (; *allowed; allowed++)
        if (tv_streq(v->v.s, v->len, *allowed)) return true;
    return false;
}

/* index_prefixes and index_phrases (TextFieldMapper.Builder's
 * buildPrefixMapper / buildPhraseMapper, after the position gap check):
 * validated, then the hidden sub-fields "_index_prefix" / "_index_phrase"
 * are added as multi-fields marked hidden (indexed with the parent's
 * value by doc.c like any multi-field; never printed, never found by
 * name; finish_leaf gives them their analyzers). */
static tv_status hidden_subfields(pctx *c, mnode *n) {
    const tv_json *pre = n->p[P_INDEX_PREFIXES], *phr = n->p[P_INDEX_PHRASES];
    bool want_pre = pre && pre->type == TV_JSON_OBJECT, want_phr = phr && phr->type == TV_JSON_TRUE;
    bool indexed = !n->p[P_INDEX] || n->p[P_INDEX]->type == TV_JSON_TRUE;
    if (want_pre && !indexed)
        return c->st = tv_error_set(c->err, TROVE_EARG, "Cannot set index_prefixes on unindexed field [%s]",
                                    n->name);
    if (want_phr && !indexed)
        return c->st = tv_error_set(c->err, TROVE_EARG, "Cannot set index_phrases on unindexed field [%s]",
                                    n->name);
    const tv_json *io = n->p[P_INDEX_OPTIONS];
    if (want_phr && io && (tv_streq(io->v.s, io->len, "docs") || tv_streq(io->v.s, io->len, "freqs")))
        return c->st = tv_error_set(c->err, TROVE_EARG,
                                    "Cannot set index_phrases on field [%s] if positions are not enabled",
                                    n->name);
    for (int i = 0; i < 2; i++) {
        if (!(i == 0 ? want_pre : want_phr)) continue;
        const char *name = i == 0 ? "_index_prefix" : "_index_phrase";
        mnode *old = find_child(n, name, 13);
        if (old && old->hidden) continue;
        if (old)
            return c->st = tv_error_set(c->err, TROVE_EUNSUPPORTED,
                                        "multi-field [%s.%s] beside [%s] on field [%s] is not supported by trove",
                                        n->f.path, name, i == 0 ? "index_prefixes" : "index_phrases",
                                        n->f.path);
        mnode *k = new_node(c, name, 13, n->f.path, n->f.path_len);
        if (!k) return oom(c);
        k->f.type = TV_FT_TEXT;
        k->is_multi = true;
        k->hidden = i == 0 ? 1 : 2;
        add_child(n, k);
    }
    return TROVE_OK;
}

/* search_as_you_type (SearchAsYouTypeFieldMapper.Builder): the validators
 * of doc_values and max_shingle_size, then the sub-fields "_2gram" ..
 * "_<max>gram" and "_index_prefix" as hidden multi-fields (found by path,
 * never printed). */
static tv_status sayt_subfields(pctx *c, mnode *n) {
    const tv_json *dv = n->p[P_DOC_VALUES], *ms = n->p[P_MAX_SHINGLE];
    if (dv && dv->type == TV_JSON_TRUE)
        return c->st = tv_error_set(c->err, TROVE_EMAPPER, "Cannot set [doc_values] on field of type [search_as_you_type]");
    int64_t max = ms ? ms->v.i : 3;
    if (max < 2 || max > 4)
        return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                    "[max_shingle_size] must be at least [2] and at most [4], got [%lld]", (long long)max);
    for (int64_t i = 2; i <= max + 1; i++) {
        char name[16];
        int nl = i <= max ? snprintf(name, sizeof name, "_%lldgram", (long long)i) : snprintf(name, sizeof name, "_index_prefix");
        mnode *old = find_child(n, name, (size_t)nl);
        if (old && old->hidden) continue;
        if (old)
            return c->st = tv_error_set(c->err, TROVE_EUNSUPPORTED,
                                        "multi-field [%s.%s] of a [search_as_you_type] field is not supported by trove",
                                        n->f.path, name);
        mnode *k = new_node(c, name, (size_t)nl, n->f.path, n->f.path_len);
        if (!k) return oom(c);
        k->f.type = TV_FT_TEXT;
        k->decl_type = "search_as_you_type";
        k->is_multi = true;
        k->hidden = i <= max ? 3 : 4;
        add_child(n, k);
    }
    return TROVE_OK;
}

/* PrefixConfig of "index_prefixes" (TextFieldMapper.parsePrefixConfig):
 * min_chars and max_chars as integers (defaults 2 and 5), nothing else,
 * 1 <= min <= max < 20. Stored as {"min_chars":m,"max_chars":M}, which is
 * how GET _mapping prints it. */
static tv_status prefix_config(pctx *c, mnode *n, const tv_json *v, tv_json **out) {
    if (v->type != TV_JSON_OBJECT)
        return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                    "Failed to parse mapping parameter [index_prefixes] on field [%s]",
                                    n->name);
    int64_t mm[2] = {2, 5};
    tv_buf rest;
    tv_buf_init(&rest);
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        int which = tv_streq(m->key, m->key_len, "min_chars") ? 0
                    : tv_streq(m->key, m->key_len, "max_chars") ? 1 : -1;
        if (which < 0) {
            remaining_fields(m, &rest);
            continue;
        }
        const tv_json *x = &m->val;
        if (x->type == TV_JSON_NULL) continue; /* nodeIntegerValue(null, default) */
        if (x->type == TV_JSON_INT) mm[which] = (int32_t)x->v.i; /* Number.intValue() */
        else if (x->type == TV_JSON_DOUBLE) mm[which] = (int32_t)tv_java_d2l(x->v.d);
        else {
            int64_t iv;
            tv_buf b;
            tv_buf_init(&b);
            tv_json_to_java(x, &b);
            bool ok = b.data && tv_parse_i64(b.data, b.len, &iv) && iv >= INT32_MIN && iv <= INT32_MAX;
            if (!ok) {
                c->st = tv_error_set(c->err, TROVE_ENUMBERFORMAT, "For input string: \"%s\"",
                                     b.data ? b.data : "");
                tv_buf_fini(&b);
                tv_buf_fini(&rest);
                return c->st;
            }
            tv_buf_fini(&b);
            mm[which] = iv;
        }
    }
    if (rest.len) {
        c->st = tv_error_set(c->err, TROVE_EMAPPER,
                             "Mapping definition for [index_prefixes] has unsupported parameters: %s",
                             rest.data);
        tv_buf_fini(&rest);
        return c->st;
    }
    tv_buf_fini(&rest);
    if (mm[0] > mm[1])
        return c->st = tv_error_set(c->err, TROVE_EARG, "min_chars [%lld] must be less than max_chars [%lld]",
                                    (long long)mm[0], (long long)mm[1]);
    if (mm[0] < 1)
        return c->st = tv_error_set(c->err, TROVE_EARG, "min_chars [%lld] must be greater than zero",
                                    (long long)mm[0]);
    if (mm[1] >= 20)
        return c->st = tv_error_set(c->err, TROVE_EARG, "max_chars [%lld] must be less than 20",
                                    (long long)mm[1]);
    tv_json *o = tv_arena_calloc(c->a, 1, sizeof *o);
    tv_json_member *mem = tv_arena_calloc(c->a, 2, sizeof *mem);
    tv_json *a = json_int(c->a, mm[0]), *b = json_int(c->a, mm[1]);
    if (!o || !mem || !a || !b) return oom(c);
    o->type = TV_JSON_OBJECT;
    o->len = 2;
    o->v.members = mem;
    mem[0].key = "min_chars";
    mem[0].key_len = 9;
    mem[0].val = *a;
    mem[1].key = "max_chars";
    mem[1].key_len = 9;
    mem[1].val = *b;
    *out = o;
    return TROVE_OK;
}

/* Validates values of a leaf's parameters (OpenSearch's validators) and
 * rejects features trove does not implement. */
static tv_status validate_leaf(pctx *c, mnode *n, const char *type_name) {
    const char *path = n->f.path;
    const tv_json *v;
    /* RangeFieldMapper.Builder.setupFieldType */
    if (n->f.type == TV_FT_RANGE && n->p[P_FORMAT] && strcmp(n->decl_type, "date_range") != 0)
        return c->st = tv_error_set(c->err, TROVE_EARG,
                                    "field [%s] of type [range] should not define a dateTimeFormatter unless it "
                                    "is a DATE type",
                                    n->name);
    if ((v = n->p[P_INDEX_OPTIONS])) {
        static const char *const text_io[] = {"docs", "freqs", "positions", "offsets", NULL};
        static const char *const kw_io[] = {"docs", "freqs", NULL};
        static const char *const mot_io[] = {"docs", NULL};
        const char *const *allowed = n->f.type == TV_FT_TEXT ? text_io : kw_io;
        if (n->f.type == TV_FT_MATCH_ONLY_TEXT) {
            if (!str_in(v, mot_io))
                return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                            "Unknown value [%.*s] for field [index_options] - "
                                            "accepted values are [docs]",
                                            (int)v->len, v->v.s);
        } else if (!str_in(v, allowed))
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        n->f.type == TV_FT_TEXT
                                            ? "Unknown value [%.*s] for field [index_options] - "
                                              "accepted values are [docs, freqs, positions, offsets]"
                                            : "Unknown value [%.*s] for field [index_options] - "
                                              "accepted values are [docs, freqs]",
                                        (int)v->len, v->v.s);
    }
    if ((v = n->p[P_TERM_VECTOR])) { /* TextParams.termVectors */
        static const char *const tv_values[] = {"no", "yes", "with_positions", "with_offsets",
                                                "with_positions_offsets", "with_positions_payloads",
                                                "with_positions_offsets_payloads", NULL};
        if (!str_in(v, tv_values))
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "Unknown value [%.*s] for field [term_vector] - accepted values "
                                        "are [no, yes, with_positions, with_offsets, "
                                        "with_positions_offsets, with_positions_payloads, "
                                        "with_positions_offsets_payloads]",
                                        (int)v->len, v->v.s);
    }
    /* keyword-like fields score term queries as constants (3.x), which is
     * what the boolean similarity gives too, unless use_similarity asks
     * for BM25 */
    const tv_json *us = n->p[P_USE_SIMILARITY];
    bool constant_scored = n->f.type == TV_FT_KEYWORD && !(us && us->type == TV_JSON_TRUE);
    if ((v = n->p[P_SIMILARITY]) && !tv_streq(v->v.s, v->len, "BM25") &&
        !(constant_scored && tv_streq(v->v.s, v->len, "boolean")))
        return c->st = tv_error_set(c->err, TROVE_EUNSUPPORTED,
                                    "[similarity] [%.*s] on field [%s] is not supported by trove",
                                    (int)v->len, v->v.s, path);
    if (n->f.type == TV_FT_MATCH_ONLY_TEXT) {
        if ((v = n->p[P_NORMS]) && v->type == TV_JSON_TRUE)
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "Norms cannot be enabled on for match_only_text field");
        if ((v = n->p[P_INDEX_PHRASES]) && v->type == TV_JSON_TRUE)
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "Index phrases cannot be enabled on for match_only_text "
                                        "field. Use text field instead");
        if ((v = n->p[P_INDEX_PREFIXES]) && v->type != TV_JSON_NULL)
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "Index prefixes cannot be enabled on for match_only_text "
                                        "field. Use text field instead");
        if (n->p[P_POS_GAP])
            return c->st = tv_error_set(c->err, TROVE_EARG,
                                        "Cannot set position_increment_gap on field [%s] without "
                                        "positions enabled",
                                        n->name);
    }
    if (n->decl_type && strcmp(n->decl_type, "constant_keyword") == 0 && !n->p[P_VALUE])
        return c->st = tv_error_set(c->err, TROVE_EPARSEEXC,
                                    "Field [%s] is missing required parameter [value]", n->name);
    if (n->decl_type && strcmp(n->decl_type, "token_count") == 0 && !n->p[P_ANALYZER])
        return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                    "Analyzer must be set for field [%s] but wasn't.", n->name);
    bool sayt = n->decl_type && strcmp(n->decl_type, "search_as_you_type") == 0;
    if (sayt && sayt_subfields(c, n)) return c->st;
    if (n->f.type == TV_FT_TEXT && !sayt && hidden_subfields(c, n)) return c->st;
    if ((v = n->p[P_POS_GAP])) {
        if (v->v.i < 0)
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "[position_increment_gap] for field [%s] cannot be negative",
                                        path);
        const tv_json *io = n->p[P_INDEX_OPTIONS];
        if (io && (tv_streq(io->v.s, io->len, "docs") || tv_streq(io->v.s, io->len, "freqs")))
            return c->st = tv_error_set(c->err, TROVE_EARG,
                                        "Cannot set position_increment_gap on field [%s] without "
                                        "positions enabled",
                                        n->name);
    }
    if (n->f.type == TV_FT_SCALED_FLOAT) {
        v = n->p[P_SCALING_FACTOR];
        if (!v) return c->st = tv_error_set(c->err, TROVE_EARG, "Field [scaling_factor] is required");
        if (!(v->v.d > 0) || v->v.d == INFINITY) {
            char tmp[40];
            tv_fmt_double(v->v.d, tmp);
            return c->st = tv_error_set(c->err, TROVE_EARG,
                                        "[scaling_factor] must be a positive number, got [%s]", tmp);
        }
    }
    if ((v = n->p[P_FORMAT])) {
        char *fmt = tv_arena_strndup(c->a, v->v.s, v->len);
        if (!fmt) return oom(c);
        tv_error inner;
        tv_error_clear(&inner);
        tv_status st = tv_date_format_check(fmt, &inner);
        if (st == TROVE_EUNSUPPORTED) return c->st = tv_error_set(c->err, st, "%s", inner.reason);
        if (st)
            return c->st = tv_error_set(c->err, TROVE_EMAPPER, "Error parsing [format] on field [%s]: %s",
                                        n->name, inner.reason);
    }
    if ((v = n->p[P_NULL_VALUE]) && v->type != TV_JSON_NULL) {
        /* validate the null_value against the type now, as OpenSearch does */
        bool ok = true;
        switch (n->f.type) {
        case TV_FT_BOOLEAN:
            ok = v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE ||
                 (v->type == TV_JSON_STRING && (tv_streq(v->v.s, v->len, "true") ||
                                                tv_streq(v->v.s, v->len, "false")));
            break;
        case TV_FT_DATE: case TV_FT_DATE_NANOS: {
            int64_t ms;
            const tv_json *fmtj = n->p[P_FORMAT];
            char *fmt = fmtj ? tv_arena_strndup(c->a, fmtj->v.s, fmtj->len) : NULL;
            if (n->f.type == TV_FT_DATE)
                ok = v->type == TV_JSON_STRING && tv_date_parse(fmt, v->v.s, v->len, &ms, NULL) == TROVE_OK;
            else
                ok = v->type == TV_JSON_STRING &&
                     tv_date_parse_nanos(fmt ? fmt : TV_DATE_NANOS_DEFAULT_FORMAT, v->v.s, v->len,
                                         &ms, NULL) == TROVE_OK;
            if (!ok && tv_json_is_number(v)) ok = true;
            break;
        }
        case TV_FT_IP: {
            uint8_t ip[16];
            if (v->type != TV_JSON_STRING || !tv_ip_parse(v->v.s, v->len, ip)) {
                tv_buf b;
                tv_buf_init(&b);
                tv_json_to_java(v, &b);
                c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                     "Error parsing [null_value] on field [%s]: '%s' is not an IP "
                                     "string literal.",
                                     n->name, b.data ? b.data : "");
                tv_buf_fini(&b);
                return c->st;
            }
            break;
        }
        case TV_FT_GEO_POINT:
            ok = v->type == TV_JSON_STRING || v->type == TV_JSON_ARRAY || v->type == TV_JSON_OBJECT;
            break;
        case TV_FT_KEYWORD: case TV_FT_TEXT:
            ok = v->type != TV_JSON_OBJECT && v->type != TV_JSON_ARRAY;
            break;
        default:
            if (tv_field_type_is_numeric(n->f.type)) {
                if (v->type == TV_JSON_STRING) {
                    char tmp[64];
                    char *end;
                    size_t l = TV_MIN(v->len, sizeof tmp - 1);
                    memcpy(tmp, v->v.s, l);
                    tmp[l] = '\0';
                    strtod(tmp, &end);
                    ok = end != tmp && !*end;
                } else {
                    ok = tv_json_is_number(v);
                }
            }
            break;
        }
        if (!ok) {
            tv_buf b;
            tv_buf_init(&b);
            tv_json_to_java(v, &b);
            c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                 "Failed to parse mapping: [null_value] [%s] is not a valid value "
                                 "for field [%s] of type [%s]",
                                 b.data ? b.data : "", path, node_type_name(n));
            tv_buf_fini(&b);
            return c->st;
        }
    }
    return TROVE_OK;
}

static tv_status parse_multi_fields(pctx *c, mnode *n, const tv_json *fields) {
    if (!tv_json_is_object(fields))
        return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                    "Expected map for property [fields] on field [%s] but got a %s",
                                    n->name, fields->type == TV_JSON_STRING ? "class java.lang.String"
                                                                          : "class java.util.ArrayList");
    for (uint32_t i = 0; i < fields->len; i++) {
        const tv_json_member *mem = &fields->v.members[i];
        if (memchr(mem->key, '.', mem->key_len))
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "Field name [%.*s] which is a multi field of [%s] cannot "
                                        "contain '.'",
                                        (int)mem->key_len, mem->key, n->name);
        if (!tv_json_is_object(&mem->val))
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "illegal field [%.*s], only fields can be specified inside "
                                        "fields",
                                        (int)mem->key_len, mem->key);
        if (parse_field(c, n, mem->key, mem->key_len, &mem->val, true)) return c->st;
    }
    return TROVE_OK;
}

static tv_status parse_copy_to(pctx *c, mnode *n, const tv_json *v) {
    if (n->is_multi)
        return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                    "copy_to in multi fields is not allowed. Found the copy_to in "
                                    "field [%s] which is within a multi field.",
                                    n->name);
    tv_json *arr = tv_arena_calloc(c->a, 1, sizeof *arr);
    if (!arr) return oom(c);
    arr->type = TV_JSON_ARRAY;
    if (v->type == TV_JSON_STRING) {
        tv_json *one = json_str(c->a, v->v.s, v->len);
        if (!one) return oom(c);
        arr->len = 1;
        arr->v.items = one;
    } else if (v->type == TV_JSON_ARRAY) {
        arr->len = v->len;
        arr->v.items = v->len ? tv_arena_calloc(c->a, v->len, sizeof(tv_json)) : NULL;
        if (v->len && !arr->v.items) return oom(c);
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json *e = &v->v.items[i];
            tv_json *one;
            if (e->type == TV_JSON_STRING) {
                one = json_str(c->a, e->v.s, e->len);
            } else if (e->type != TV_JSON_OBJECT && e->type != TV_JSON_ARRAY &&
                       e->type != TV_JSON_NULL) {
                tv_buf b;
                tv_buf_init(&b);
                tv_json_to_java(e, &b);
                one = json_str(c->a, b.data ? b.data : "", b.len);
                tv_buf_fini(&b);
            } else {
                return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                            "Failed to parse mapping parameter [copy_to] on field "
                                            "[%s]: expected a string",
                                            n->name);
            }
            if (!one) return oom(c);
            arr->v.items[i] = *one;
        }
    } else if (v->type == TV_JSON_NULL) {
        return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                    "[copy_to] on mapper [%s] of type [%s] must not have a [null] "
                                    "value",
                                    n->name, node_type_name(n));
    } else {
        tv_buf b;
        tv_buf_init(&b);
        tv_json_to_java(v, &b);
        tv_json *one = json_str(c->a, b.data ? b.data : "", b.len);
        tv_buf_fini(&b);
        if (!one) return oom(c);
        arr->len = 1;
        arr->v.items = one;
    }
    n->copy_to = arr;
    return TROVE_OK;
}

static tv_status parse_leaf(pctx *c, mnode *n, const tv_json *def, const char *type_name) {
    const tparam *tp = node_params(n);
    for (uint32_t i = 0; i < def->len; i++) {
        const tv_json_member *mem = &def->v.members[i];
        const char *k = mem->key;
        size_t kl = mem->key_len;
        if (tv_streq(k, kl, "type")) continue;
        if (tv_streq(k, kl, "fields")) {
            if (parse_multi_fields(c, n, &mem->val)) return c->st;
            continue;
        }
        if (tv_streq(k, kl, "copy_to")) {
            if (parse_copy_to(c, n, &mem->val)) return c->st;
            continue;
        }
        if (n->decl_type && strcmp(n->decl_type, "constant_keyword") == 0 &&
            tv_streq(k, kl, "value") && mem->val.type != TV_JSON_STRING)
            return c->st = tv_error_set(c->err, TROVE_EPARSEEXC,
                                        "Field [%s] is expected to be a string value", n->name);
        const tparam *t = find_tparam(tp, k, kl);
        if (!t) {
            if (ignored_param(k, kl)) continue;
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "unknown parameter [%.*s] on mapper [%s] of type [%s]",
                                        (int)kl, k, n->name, type_name);
        }
        if (parse_param(c, n, t, &mem->val, type_name)) return c->st;
    }
    return validate_leaf(c, n, type_name);
}

static tv_status parse_object_body(pctx *c, mnode *n, const tv_json *def) {
    tv_buf rest;
    tv_buf_init(&rest);
    for (uint32_t i = 0; i < def->len; i++) {
        const tv_json_member *mem = &def->v.members[i];
        const char *k = mem->key;
        size_t kl = mem->key_len;
        if (tv_streq(k, kl, "type")) continue;
        if (tv_streq(k, kl, "properties")) {
            if (parse_properties(c, n, &mem->val)) goto fail;
        } else if (tv_streq(k, kl, "dynamic")) {
            if (dynamic_value(c, &mem->val, n->name, &n->dynamic)) goto fail;
        } else if (tv_streq(k, kl, "enabled")) {
            bool b;
            char what[300];
            snprintf(what, sizeof what, "%s.enabled", n->name);
            if (bool_value(c, &mem->val, what, &b)) goto fail;
            n->enabled = b;
        } else if (n->f.nested && (tv_streq(k, kl, "include_in_parent") || tv_streq(k, kl, "include_in_root"))) {
            bool b;
            char what[300];
            snprintf(what, sizeof what, "%s.%.*s", n->name, (int)kl, k);
            if (bool_value(c, &mem->val, what, &b)) goto fail;
            if (kl == 17) n->f.include_in_parent = b;
            else n->f.include_in_root = b;
        } else {
            remaining_fields(mem, &rest);
        }
    }
    if (rest.len) {
        c->st = tv_error_set(c->err, TROVE_EMAPPER,
                             "Mapping definition for [%s] has unsupported parameters: %s", n->name,
                             rest.data);
        goto fail;
    }
    tv_buf_fini(&rest);
    return TROVE_OK;
fail:
    tv_buf_fini(&rest);
    return c->st;
}

/* A field alias (FieldAliasMapper.TypeParser): "path" is required (a JSON
 * null is no path; another scalar is its Java string); any other
 * parameter is left over. The target is resolved by resolve_aliases once
 * the whole mapping is known. */
static tv_status parse_alias(pctx *c, mnode *n, const tv_json *def) {
    const tv_json *path = NULL;
    tv_buf rest;
    tv_buf_init(&rest);
    for (uint32_t i = 0; i < def->len; i++) {
        const tv_json_member *mem = &def->v.members[i];
        if (tv_streq(mem->key, mem->key_len, "type")) continue;
        if (tv_streq(mem->key, mem->key_len, "path")) path = &mem->val;
        else remaining_fields(mem, &rest);
    }
    if (!path || path->type == TV_JSON_NULL) {
        tv_buf_fini(&rest);
        return c->st = tv_error_set(c->err, TROVE_EMAPPER, "The [path] property must be specified for field [%s].",
                                    n->name);
    }
    if (rest.len) {
        c->st = tv_error_set(c->err, TROVE_EMAPPER, "Mapping definition for [%s] has unsupported parameters: %s",
                             n->name, rest.data);
        tv_buf_fini(&rest);
        return c->st;
    }
    tv_buf_fini(&rest);
    n->is_alias = true;
    if (path->type == TV_JSON_STRING) {
        n->alias_to = tv_arena_strndup(c->a, path->v.s, path->len);
        n->alias_to_len = path->len;
    } else {
        tv_buf b;
        tv_buf_init(&b);
        tv_json_to_java(path, &b);
        n->alias_to = tv_arena_strndup(c->a, b.data ? b.data : "", b.len);
        n->alias_to_len = (uint32_t)b.len;
        tv_buf_fini(&b);
    }
    return n->alias_to ? TROVE_OK : oom(c);
}

/* Parses one field definition `name: def` under parent (an object, or a
 * leaf for multi-fields). Dotted names expand to objects. */
static tv_status parse_field(pctx *c, mnode *parent, const char *name, size_t nlen,
                             const tv_json *def, bool multi) {
    if (nlen == 0)
        return c->st = tv_error_set(c->err, TROVE_EARG, "field name cannot be an empty string");
    if (!multi) {
        const char *dot = memchr(name, '.', nlen);
        if (dot) {
            size_t head = (size_t)(dot - name);
            if (head == 0 || head + 1 == nlen)
                return c->st = tv_error_set(c->err, TROVE_EARG,
                                            "field name cannot contain only whitespace: ['%.*s']",
                                            (int)nlen, name);
            mnode *obj = find_child(parent, name, head);
            if (!obj) {
                obj = new_node(c, name, head, parent->f.path, parent == c->m->root ? 0 : parent->f.path_len);
                if (!obj) return oom(c);
                obj->f.type = TV_FT_OBJECT;
                add_child(parent, obj);
            } else if (obj->f.type != TV_FT_OBJECT) {
                return c->st = tv_error_set(c->err, TROVE_EARG,
                                            "can't merge a non object mapping [%s] with an object "
                                            "mapping",
                                            obj->f.path);
            }
            return parse_field(c, obj, dot + 1, nlen - head - 1, def, false);
        }
    }
    if (!tv_json_is_object(def)) {
        if (def->type == TV_JSON_NULL)
            return c->st = tv_error_set(c->err, TROVE_EMAPPER, "No type specified for field [%.*s]",
                                        (int)nlen, name);
        return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                    "Expected map for property [fields] on field [%.*s] but got a "
                                    "class java.lang.String",
                                    (int)nlen, name);
    }
    const tv_json *type = tv_json_get(def, "type");
    const char *tname;
    size_t tlen;
    char tbuf[64];
    if (type) {
        if (type->type == TV_JSON_STRING) {
            tname = type->v.s;
            tlen = type->len;
        } else {
            tv_buf b;
            tv_buf_init(&b);
            tv_json_to_java(type, &b);
            snprintf(tbuf, sizeof tbuf, "%s", b.data ? b.data : "");
            tv_buf_fini(&b);
            tname = tbuf;
            tlen = strlen(tbuf);
        }
    } else if (!multi && (tv_json_get(def, "properties") || def->len == 0 ||
                          tv_json_get(def, "dynamic") || tv_json_get(def, "enabled"))) {
        tname = "object";
        tlen = 6;
    } else {
        return c->st = tv_error_set(c->err, TROVE_EMAPPER, "No type specified for field [%.*s]",
                                    (int)nlen, name);
    }
    char *type_name = tv_arena_strndup(c->a, tname, tlen);
    if (!type_name) return oom(c);
    tv_field_type ft;
    const char *decl = NULL;
    bool is_nested = tv_streq(tname, tlen, "nested");
    bool is_object = is_nested || tv_streq(tname, tlen, "object");
    bool is_alias = tv_streq(tname, tlen, "alias");
    if (is_alias) {
        if (multi)
            return c->st = tv_error_set(c->err, TROVE_EMAPPER, "Type [alias] cannot be used in multi field");
        ft = TV_FT_KEYWORD; /* until finalize copies the target's entry */
        decl = "alias";
    } else if (is_object) {
        if (multi)
            return c->st = tv_error_set(c->err, TROVE_EMAPPER, "Type [%s] cannot be used in multi field",
                                        is_nested ? "nested" : "object");
        ft = TV_FT_OBJECT;
    } else if (!leaf_type_from_name(tname, tlen, &ft, &decl)) {
        if (opensearch_type(tname, tlen))
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "No handler for type [%s] declared on field [%.*s]: field "
                                        "type [%s] is not supported by trove",
                                        type_name, (int)nlen, name, type_name);
        return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                    "No handler for type [%s] declared on field [%.*s]", type_name,
                                    (int)nlen, name);
    }
    mnode *existing = find_child(parent, name, nlen);
    if (existing) {
        /* the same name twice (e.g. "a.b" and "a":{"properties":{"b"}}):
         * objects merge, anything else replaces as the later definition */
        if (existing->f.type == TV_FT_OBJECT && is_object && existing->f.nested == is_nested)
            return parse_object_body(c, existing, def);
    }
    mnode *n = new_node(c, name, nlen, parent->f.path,
                        parent == c->m->root ? 0 : parent->f.path_len);
    if (!n) return oom(c);
    n->f.type = ft;
    n->decl_type = decl;
    n->is_multi = multi;
    if (existing) {
        /* unlink the earlier definition */
        mnode **pp = &parent->first;
        parent->last = NULL;
        for (mnode *k = parent->first; k; k = k->next) {
            if (k == existing) {
                *pp = k->next;
                continue;
            }
            pp = &k->next;
            parent->last = k;
        }
        parent->last = NULL;
        for (mnode *k = parent->first; k; k = k->next) parent->last = k;
    }
    add_child(parent, n);
    if (is_object) {
        n->f.nested = is_nested;
        n->nested_decl = type ? is_nested : -1;
        return parse_object_body(c, n, def);
    }
    if (is_alias) return parse_alias(c, n, def);
    return parse_leaf(c, n, def, type_name);
}

static tv_status parse_properties(pctx *c, mnode *obj, const tv_json *props) {
    if (!tv_json_is_object(props)) {
        if (tv_json_is_array(props) && props->len == 0) return TROVE_OK;
        return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                    "Expected map for property [properties] on field [%s] but got a "
                                    "%s",
                                    obj->name, "class java.lang.String");
    }
    for (uint32_t i = 0; i < props->len; i++) {
        const tv_json_member *mem = &props->v.members[i];
        if (parse_field(c, obj, mem->key, mem->key_len, &mem->val, false)) return c->st;
    }
    return TROVE_OK;
}

static tv_status string_array(pctx *c, const tv_json *v, const char *what, const tv_json **out) {
    if (v->type == TV_JSON_STRING) {
        /* a single string is a one-element list */
        tv_json *arr = tv_arena_calloc(c->a, 1, sizeof *arr);
        tv_json *s = json_str(c->a, v->v.s, v->len);
        if (!arr || !s) return oom(c);
        arr->type = TV_JSON_ARRAY;
        arr->len = 1;
        arr->v.items = s;
        *out = arr;
        return TROVE_OK;
    }
    if (!tv_json_is_array(v))
        return c->st = tv_error_set(c->err, TROVE_EMAPPER, "[%s] must be an array of strings", what);
    for (uint32_t i = 0; i < v->len; i++)
        if (v->v.items[i].type != TV_JSON_STRING)
            return c->st = tv_error_set(c->err, TROVE_EMAPPER, "[%s] must be an array of strings",
                                        what);
    *out = tv_json_copy(c->a, v);
    return *out ? TROVE_OK : oom(c);
}

/* ---------------------------------------------------------- dynamic templates */

static const char *const match_types[] = {"object", "string", "long",   "double",
                                          "boolean", "date",  "binary", NULL};

/* Validates a "dynamic_templates" value (OpenSearch's DynamicTemplate.parse)
 * and keeps a copy: an array of {name: {conditions..., mapping: {...}}}. */
static tv_status parse_dynamic_templates(pctx *c, const tv_json *v) {
    if (v->type == TV_JSON_NULL) {
        c->m->dynamic_templates = NULL;
        return TROVE_OK;
    }
    if (!tv_json_is_array(v))
        return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                    "Dynamic template syntax error. An array of named objects is "
                                    "expected.");
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json *t = &v->v.items[i];
        if (!tv_json_is_object(t) || t->len != 1 || !tv_json_is_object(&t->v.members[0].val))
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "Dynamic template syntax error. An array of named objects "
                                        "is expected.");
        const tv_json *body = &t->v.members[0].val;
        const tv_json *mapping = NULL;
        for (uint32_t j = 0; j < body->len; j++) {
            const tv_json_member *m = &body->v.members[j];
            const tv_json *x = &m->val;
            if (tv_streq(m->key, m->key_len, "mapping")) {
                if (!tv_json_is_object(x))
                    return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                                "Dynamic template syntax error. An array of named "
                                                "objects is expected.");
                mapping = x;
            } else if (tv_streq(m->key, m->key_len, "match") ||
                       tv_streq(m->key, m->key_len, "unmatch") ||
                       tv_streq(m->key, m->key_len, "path_match") ||
                       tv_streq(m->key, m->key_len, "path_unmatch")) {
                if (x->type != TV_JSON_STRING)
                    return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                                "Illegal dynamic template parameter: [%.*s]",
                                                (int)m->key_len, m->key);
            } else if (tv_streq(m->key, m->key_len, "match_mapping_type")) {
                bool ok = x->type == TV_JSON_STRING &&
                          (tv_streq(x->v.s, x->len, "*") || str_in(x, match_types));
                if (!ok) {
                    tv_buf b;
                    tv_buf_init(&b);
                    tv_json_to_java(x, &b);
                    c->st = tv_error_set(c->err, TROVE_EARG,
                                         "No field type matched on [%s], possible values are "
                                         "[object, string, long, double, boolean, date, binary]",
                                         b.data ? b.data : "");
                    tv_buf_fini(&b);
                    return c->st;
                }
            } else if (tv_streq(m->key, m->key_len, "match_pattern")) {
                if (x->type != TV_JSON_STRING || !(tv_streq(x->v.s, x->len, "simple") ||
                                                   tv_streq(x->v.s, x->len, "regex"))) {
                    tv_buf b;
                    tv_buf_init(&b);
                    tv_json_to_java(x, &b);
                    c->st = tv_error_set(c->err, TROVE_EARG,
                                         "No matching pattern matched on [%s]", b.data ? b.data : "");
                    tv_buf_fini(&b);
                    return c->st;
                }
            } else {
                return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                            "Illegal dynamic template parameter: [%.*s]",
                                            (int)m->key_len, m->key);
            }
        }
        if (!mapping)
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "template [%.*s] must have a mapping set",
                                        (int)t->v.members[0].key_len, t->v.members[0].key);
    }
    c->m->dynamic_templates = tv_json_copy(c->a, v);
    return c->m->dynamic_templates ? TROVE_OK : oom(c);
}

/* Java's Pattern.matches for the common subset of regexes templates use:
 * POSIX extended syntax after translating \d \w \s and their negations,
 * anchored at both ends. A pattern POSIX cannot compile matches nothing. */
static bool regex_full_match(const char *pat, size_t plen, const char *s, size_t slen) {
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_puts(&b, "^(");
    for (size_t i = 0; i < plen; i++) {
        if (pat[i] == '\\' && i + 1 < plen) {
            char n = pat[++i];
            switch (n) {
            case 'd': tv_buf_puts(&b, "[0-9]"); break;
            case 'D': tv_buf_puts(&b, "[^0-9]"); break;
            case 'w': tv_buf_puts(&b, "[A-Za-z0-9_]"); break;
            case 'W': tv_buf_puts(&b, "[^A-Za-z0-9_]"); break;
            case 's': tv_buf_puts(&b, "[[:space:]]"); break;
            case 'S': tv_buf_puts(&b, "[^[:space:]]"); break;
            default:
                tv_buf_putc(&b, '\\');
                tv_buf_putc(&b, n);
            }
        } else {
            tv_buf_putc(&b, pat[i]);
        }
    }
    tv_buf_puts(&b, ")$");
    char *subject = tv_malloc(slen + 1);
    bool ok = false;
    regex_t re;
    if (!b.oom && subject && regcomp(&re, b.data, REG_EXTENDED | REG_NOSUB) == 0) {
        memcpy(subject, s, slen);
        subject[slen] = '\0';
        ok = regexec(&re, subject, 0, NULL, 0) == 0;
        regfree(&re);
    }
    tv_free(subject);
    tv_buf_fini(&b);
    return ok;
}

static bool glob(const char *p, size_t pl, const char *s, size_t sl);

static bool template_pattern(bool regex, const tv_json *pat, const char *s, size_t n) {
    return regex ? regex_full_match(pat->v.s, pat->len, s, n) : glob(pat->v.s, pat->len, s, n);
}

/* Copies v replacing {name} and {dynamic_type} in keys and string values. */
static tv_json *render_template(tv_arena *a, const tv_json *v, const char *name, size_t nlen,
                                const char *dtype) {
    tv_json *out = tv_arena_alloc(a, sizeof *out);
    if (!out) return NULL;
    *out = *v;
    if (v->type == TV_JSON_STRING) {
        tv_buf b;
        tv_buf_init(&b);
        for (uint32_t i = 0; i < v->len;) {
            if (v->len - i >= 6 && memcmp(v->v.s + i, "{name}", 6) == 0) {
                tv_buf_append(&b, name, nlen);
                i += 6;
            } else if (v->len - i >= 14 && memcmp(v->v.s + i, "{dynamic_type}", 14) == 0) {
                tv_buf_puts(&b, dtype);
                i += 14;
            } else {
                tv_buf_putc(&b, v->v.s[i++]);
            }
        }
        out->v.s = b.len ? tv_arena_memdup(a, b.data, b.len) : "";
        out->len = (uint32_t)b.len;
        bool bad = b.oom || !out->v.s;
        tv_buf_fini(&b);
        return bad ? NULL : out;
    }
    if (v->type == TV_JSON_ARRAY) {
        out->v.items = v->len ? tv_arena_alloc(a, v->len * sizeof(tv_json)) : NULL;
        if (v->len && !out->v.items) return NULL;
        for (uint32_t i = 0; i < v->len; i++) {
            tv_json *c = render_template(a, &v->v.items[i], name, nlen, dtype);
            if (!c) return NULL;
            out->v.items[i] = *c;
        }
        return out;
    }
    if (v->type == TV_JSON_OBJECT) {
        out->v.members = v->len ? tv_arena_alloc(a, v->len * sizeof(tv_json_member)) : NULL;
        if (v->len && !out->v.members) return NULL;
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json_member *m = &v->v.members[i];
            tv_json key = {.type = TV_JSON_STRING, .len = m->key_len, .v.s = m->key};
            tv_json *k = render_template(a, &key, name, nlen, dtype);
            tv_json *c = render_template(a, &m->val, name, nlen, dtype);
            if (!k || !c) return NULL;
            out->v.members[i] = *m;
            out->v.members[i].key = k->v.s;
            out->v.members[i].key_len = k->len;
            out->v.members[i].val = *c;
        }
        return out;
    }
    return tv_json_copy(a, v);
}

const tv_json *tv_mapping_dynamic_template(const tv_mapping *m, const char *path, size_t plen,
                                           const char *name, size_t nlen, const char *mtype,
                                           const char *dynamic_type, tv_arena *arena) {
    const tv_json *ts = m ? m->dynamic_templates : NULL;
    for (uint32_t i = 0; ts && i < ts->len; i++) {
        const tv_json *body = &ts->v.items[i].v.members[0].val;
        const tv_json *match = tv_json_get(body, "match"), *unmatch = tv_json_get(body, "unmatch"),
                      *pmatch = tv_json_get(body, "path_match"),
                      *punmatch = tv_json_get(body, "path_unmatch"),
                      *mmt = tv_json_get(body, "match_mapping_type"),
                      *mp = tv_json_get(body, "match_pattern"),
                      *mapping = tv_json_get(body, "mapping");
        bool regex = mp && tv_streq(mp->v.s, mp->len, "regex");
        if (pmatch && !template_pattern(regex, pmatch, path, plen)) continue;
        if (match && !template_pattern(regex, match, name, nlen)) continue;
        if (punmatch && template_pattern(regex, punmatch, path, plen)) continue;
        if (unmatch && template_pattern(regex, unmatch, name, nlen)) continue;
        if (mmt && !tv_streq(mmt->v.s, mmt->len, "*") && !tv_streq(mmt->v.s, mmt->len, mtype))
            continue;
        return render_template(arena, mapping, name, nlen, dynamic_type);
    }
    return NULL;
}

/* Parses the root object of a mapping body into m (which may already hold
 * a tree: merges parse updates into a separate mapping). */
static tv_status parse_root(pctx *c, const tv_json *body) {
    tv_mapping *m = c->m;
    if (!body) return TROVE_OK;
    if (!tv_json_is_object(body))
        return c->st = tv_error_set(c->err, TROVE_EMAPPER, "Root mapping definition must be an object");
    /* {"_doc": {...}} is accepted as the body itself */
    if (body->len == 1 && tv_streq(body->v.members[0].key, body->v.members[0].key_len, "_doc") &&
        tv_json_is_object(&body->v.members[0].val))
        body = &body->v.members[0].val;
    tv_buf rest;
    tv_buf_init(&rest);
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *mem = &body->v.members[i];
        const char *k = mem->key;
        size_t kl = mem->key_len;
        const tv_json *v = &mem->val;
        if (tv_streq(k, kl, "properties")) {
            if (parse_properties(c, m->root, v)) goto fail;
        } else if (tv_streq(k, kl, "dynamic")) {
            int8_t d;
            if (dynamic_value(c, v, "_doc", &d)) goto fail;
            m->dynamic = (tv_dynamic)d;
            m->dynamic_set = true;
        } else if (tv_streq(k, kl, "date_detection")) {
            if (bool_value(c, v, "date_detection", &m->date_detection)) goto fail;
            m->date_detection_set = true;
        } else if (tv_streq(k, kl, "numeric_detection")) {
            if (bool_value(c, v, "numeric_detection", &m->numeric_detection)) goto fail;
            m->numeric_detection_set = true;
        } else if (tv_streq(k, kl, "dynamic_date_formats")) {
            if (string_array(c, v, "dynamic_date_formats", &m->dynamic_date_formats)) goto fail;
            for (uint32_t j = 0; j < m->dynamic_date_formats->len; j++) {
                const tv_json *f = &m->dynamic_date_formats->v.items[j];
                char *fmt = tv_arena_strndup(c->a, f->v.s, f->len);
                if (!fmt) {
                    oom(c);
                    goto fail;
                }
                tv_error inner = TV_ERROR_INIT;
                if (tv_date_format_check(fmt, &inner)) {
                    c->st = tv_error_set(c->err, TROVE_EMAPPER, "%s", inner.reason);
                    goto fail;
                }
            }
        } else if (tv_streq(k, kl, "dynamic_templates")) {
            if (parse_dynamic_templates(c, v)) goto fail;
        } else if (tv_streq(k, kl, "_meta")) {
            if (!tv_json_is_object(v)) {
                c->st = tv_error_set(c->err, TROVE_EMAPPER, "[_meta] must be an object");
                goto fail;
            }
            if (!(m->meta = tv_json_copy(c->a, v))) {
                oom(c);
                goto fail;
            }
        } else if (tv_streq(k, kl, "_source")) {
            if (!tv_json_is_object(v)) {
                c->st = tv_error_set(c->err, TROVE_EMAPPER, "[_source] must be an object");
                goto fail;
            }
            for (uint32_t j = 0; j < v->len; j++) {
                const tv_json_member *sm = &v->v.members[j];
                if (tv_streq(sm->key, sm->key_len, "enabled")) {
                    if (bool_value(c, &sm->val, "enabled", &m->source_enabled)) goto fail;
                    m->source_enabled_set = true;
                } else if (tv_streq(sm->key, sm->key_len, "includes")) {
                    if (string_array(c, &sm->val, "includes", &m->source_includes)) goto fail;
                } else if (tv_streq(sm->key, sm->key_len, "excludes")) {
                    if (string_array(c, &sm->val, "excludes", &m->source_excludes)) goto fail;
                } else {
                    c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                         "unknown parameter [%.*s] on mapper [_source] of type "
                                         "[_source]",
                                         (int)sm->key_len, sm->key);
                    goto fail;
                }
            }
        } else if (tv_streq(k, kl, "_routing")) {
            if (!tv_json_is_object(v)) {
                c->st = tv_error_set(c->err, TROVE_EMAPPER, "[_routing] must be an object");
                goto fail;
            }
            for (uint32_t j = 0; j < v->len; j++) {
                const tv_json_member *sm = &v->v.members[j];
                if (tv_streq(sm->key, sm->key_len, "required")) {
                    if (bool_value(c, &sm->val, "required", &m->routing_required)) goto fail;
                    m->routing_set = true;
                } else {
                    c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                         "unknown parameter [%.*s] on mapper [_routing] of type "
                                         "[_routing]",
                                         (int)sm->key_len, sm->key);
                    goto fail;
                }
            }
        } else {
            remaining_fields(mem, &rest);
        }
    }
    if (rest.len) {
        c->st = tv_error_set(c->err, TROVE_EMAPPER,
                             "Root mapping definition has unsupported parameters: %s", rest.data);
        goto fail;
    }
    tv_buf_fini(&rest);
    return TROVE_OK;
fail:
    tv_buf_fini(&rest);
    return c->st;
}

/* ---------------------------------------------------------------- build */

static tv_mapping *mapping_alloc(void) {
    tv_mapping *m = tv_calloc(1, sizeof *m);
    if (!m) return NULL;
    atomic_init(&m->refs, 1);
    if (pthread_mutex_init(&m->flat_mu, NULL)) {
        tv_free(m);
        return NULL;
    }
    tv_arena_init(&m->arena);
    m->dynamic = TV_DYNAMIC_TRUE;
    m->date_detection = true;
    m->source_enabled = true;
    m->root = tv_arena_calloc(&m->arena, 1, sizeof(mnode));
    if (!m->root) {
        tv_arena_fini(&m->arena);
        pthread_mutex_destroy(&m->flat_mu);
        tv_free(m);
        return NULL;
    }
    m->root->name = "_doc";
    m->root->name_len = 4;
    m->root->f.path = "";
    m->root->f.type = TV_FT_OBJECT;
    m->root->f.id = UINT32_MAX;
    m->root->dynamic = -1;
    m->root->enabled = -1;
    return m;
}

static void mapping_free(tv_mapping *m) {
    if (!m) return;
    for (uint32_t i = 0; i < m->nowned; i++) tv_analyzer_free(m->owned_analyzers[i]);
    tv_free(m->owned_analyzers);
    tv_free(m->by_id);
    tv_free(m->by_path);
    tv_arena_fini(&m->arena);
    pthread_mutex_destroy(&m->flat_mu);
    tv_free(m);
}

tv_mapping *tv_mapping_retain(const tv_mapping *m) {
    tv_mapping *mm = (tv_mapping *)m;
    if (mm) atomic_fetch_add(&mm->refs, 1);
    return mm;
}

void tv_mapping_release(const tv_mapping *m) {
    tv_mapping *mm = (tv_mapping *)m;
    if (mm && atomic_fetch_sub(&mm->refs, 1) == 1) mapping_free(mm);
}

static int cmp_node(const void *a, const void *b) {
    const mnode *x = *(const mnode *const *)a, *y = *(const mnode *const *)b;
    return tv_memcmp2(x->name, x->name_len, y->name, y->name_len);
}

static int cmp_field_path(const void *a, const void *b) {
    const tv_field *x = *(const tv_field *const *)a, *y = *(const tv_field *const *)b;
    return tv_memcmp2(x->path, x->path_len, y->path, y->path_len);
}

/* Sorts children into kids[], counts nodes. */
static tv_status sort_tree(tv_mapping *m, mnode *n, uint32_t *count) {
    uint32_t k = 0;
    for (mnode *c = n->first; c; c = c->next) k++;
    n->nkids = k;
    n->kids = k ? tv_arena_alloc(&m->arena, k * sizeof(mnode *)) : NULL;
    if (k && !n->kids) return TROVE_ENOMEM;
    k = 0;
    for (mnode *c = n->first; c; c = c->next) n->kids[k++] = c;
    if (k > 1) qsort(n->kids, k, sizeof(mnode *), cmp_node);
    for (uint32_t i = 0; i < k; i++) {
        (*count)++;
        if (sort_tree(m, n->kids[i], count)) return TROVE_ENOMEM;
    }
    return TROVE_OK;
}

static void assign_ids(mnode *n, uint32_t *next, uint32_t *max_id) {
    for (uint32_t i = 0; i < n->nkids; i++) {
        mnode *k = n->kids[i];
        if (k->is_alias) continue; /* takes its target's id */
        if (k->f.id == UINT32_MAX) k->f.id = (*next)++;
        if (k->f.id + 1 > *max_id) *max_id = k->f.id + 1;
        assign_ids(k, next, max_id);
    }
}

static const tv_json *pv(const mnode *n, mparam p) { return n->p[p]; }

static bool pbool(const mnode *n, mparam p, bool def) {
    const tv_json *v = n->p[p];
    return v ? v->type == TV_JSON_TRUE : def;
}

typedef struct fctx {
    tv_mapping *m;
    const tv_analysis *analysis;
    tv_error *err;
} fctx;

static const tv_analyzer *resolve_analyzer(fctx *c, const tv_json *name, bool *bad) {
    if (!name) return NULL;
    const tv_analyzer *a = tv_analysis_get(c->analysis, name->v.s, name->len);
    if (!a && tv_streq(name->v.s, name->len, "default"))
        a = tv_analysis_get(c->analysis, "standard", 8);
    if (!a) *bad = true;
    return a;
}

/* Fills the typed tv_field of a leaf from its parameters. */
static tv_status finish_leaf(fctx *c, mnode *n, const mnode *parent) {
    tv_field *f = &n->f;
    tv_field_type t = f->type;
    f->multi_parent = n->is_multi ? &parent->f : NULL;
    f->prefix_field = f->phrase_field = NULL; /* set by the hidden kids (clone_tree copied the base's) */
    f->sayt = f->nshingles = f->shingle_size = 0;
    memset(f->shingles, 0, sizeof f->shingles);
    if (n->decl_type && strcmp(n->decl_type, "search_as_you_type") == 0 && !n->hidden) f->sayt = 1;
    bool is_ck = n->decl_type && strcmp(n->decl_type, "constant_keyword") == 0;
    bool is_tc = n->decl_type && strcmp(n->decl_type, "token_count") == 0;
    f->index = t == TV_FT_BINARY ? false : pbool(n, P_INDEX, true);
    f->store = pbool(n, P_STORE, false);
    f->doc_values = tv_field_type_is_text(t) ? false
                    : is_ck                  ? true /* the constant, for sorts and aggs */
                    : pbool(n, P_DOC_VALUES, t != TV_FT_BINARY);
    f->norms = t == TV_FT_MATCH_ONLY_TEXT ? false : pbool(n, P_NORMS, t == TV_FT_TEXT);
    /* a flat_object with index:false is still searched through its doc
     * values; postings give the same answers */
    if (n->decl_type && strcmp(n->decl_type, "flat_object") == 0 && f->doc_values) f->index = true;
    f->ignore_above = -1;
    f->coerce = pbool(n, P_COERCE, true);
    f->ignore_malformed = pbool(n, P_IGNORE_MALFORMED, false);
    f->null_value = pv(n, P_NULL_VALUE);
    if (f->null_value && f->null_value->type == TV_JSON_NULL) f->null_value = NULL;
    f->position_increment_gap = 100;
    f->index_options = t == TV_FT_TEXT ? TV_IO_POSITIONS : TV_IO_DOCS;
    if (t == TV_FT_MATCH_ONLY_TEXT) f->index_options = TV_IO_DOCS;
    const tv_json *io = pv(n, P_INDEX_OPTIONS);
    if (io) {
        if (tv_streq(io->v.s, io->len, "docs")) f->index_options = TV_IO_DOCS;
        else if (tv_streq(io->v.s, io->len, "freqs")) f->index_options = TV_IO_FREQS;
        else if (tv_streq(io->v.s, io->len, "positions")) f->index_options = TV_IO_POSITIONS;
        else f->index_options = TV_IO_OFFSETS;
    }
    f->dv_kind = TV_DV_NONE;
    if (f->doc_values)
        f->dv_kind = t == TV_FT_KEYWORD || t == TV_FT_IP || t == TV_FT_BINARY || t == TV_FT_RANGE
                         ? TV_DV_SORTED_SET
                         : TV_DV_NUMERIC;
    if (t == TV_FT_RANGE) {
        const char *d = n->decl_type;
        f->range_type = !strcmp(d, "integer_range") ? TV_FT_INTEGER
                        : !strcmp(d, "long_range")  ? TV_FT_LONG
                        : !strcmp(d, "float_range") ? TV_FT_FLOAT
                        : !strcmp(d, "double_range") ? TV_FT_DOUBLE
                        : !strcmp(d, "date_range")  ? TV_FT_DATE
                                                    : TV_FT_IP;
        if (f->range_type == TV_FT_DATE) {
            const tv_json *fmt = pv(n, P_FORMAT);
            f->format = fmt ? tv_arena_strndup(&c->m->arena, fmt->v.s, fmt->len) : TV_DATE_DEFAULT_FORMAT;
            if (!f->format) return tv_error_oom(c->err);
        }
    }
    if (t == TV_FT_MATCH_ONLY_TEXT) f->index_options = TV_IO_DOCS;
    if (tv_field_type_is_text(t) || is_tc) {
        bool bad = false;
        const tv_json *an = pv(n, P_ANALYZER), *sa = pv(n, P_SEARCH_ANALYZER),
                      *sqa = pv(n, P_SEARCH_QUOTE_ANALYZER), *which = NULL;
        f->analyzer = an ? resolve_analyzer(c, an, &bad) : NULL;
        if (bad) which = an;
        if (!f->analyzer && !bad) {
            f->analyzer = tv_analysis_get(c->analysis, "default", 7);
            if (!f->analyzer) f->analyzer = tv_analysis_get(c->analysis, "standard", 8);
        }
        f->search_analyzer = sa ? resolve_analyzer(c, sa, &bad) : NULL;
        if (bad && !which) which = sa;
        if (!f->search_analyzer && !bad) {
            f->search_analyzer = an ? NULL : tv_analysis_get(c->analysis, "default_search", 14);
            if (!f->search_analyzer) f->search_analyzer = f->analyzer;
        }
        f->search_quote_analyzer = sqa ? resolve_analyzer(c, sqa, &bad) : NULL;
        if (bad && !which) which = sqa;
        if (!f->search_quote_analyzer && !bad) {
            f->search_quote_analyzer =
                sa || an ? NULL : tv_analysis_get(c->analysis, "default_search_quoted", 21);
            if (!f->search_quote_analyzer) f->search_quote_analyzer = f->search_analyzer;
        }
        if (bad && tv_analyzer_builtin_error(which->v.s, which->len, c->err)) return c->err->code;
        if (bad && tv_analyzer_unsupported(which->v.s, which->len))
            return tv_error_set(c->err, TROVE_EUNSUPPORTED, "analyzer [%.*s] is not supported",
                                (int)which->len, which->v.s);
        if (bad)
            return tv_error_set(c->err, TROVE_EARG, "analyzer [%.*s] has not been configured in mappings",
                                (int)which->len, which->v.s);
        /* TextParams: the index analyzer must run at index time
         * (NamedAnalyzer.checkAllowedInMode; updateable synonyms do not) */
        char fnames[256];
        if (an && !tv_analyzer_time_check(f->analyzer, "index time", fnames, sizeof fnames))
            return tv_error_set(c->err, TROVE_EMAPPEREXC,
                                "analyzer [%s] contains filters [%s] that are not allowed to run in index time mode.",
                                tv_analyzer_name(f->analyzer), fnames);
        const tv_json *gap = pv(n, P_POS_GAP);
        if (gap) f->position_increment_gap = (uint32_t)gap->v.i;
    }
    if (t == TV_FT_KEYWORD && !is_ck) {
        const tv_json *ia = pv(n, P_IGNORE_ABOVE);
        if (ia && ia->v.i != INT32_MAX) f->ignore_above = (int32_t)ia->v.i;
        const tv_json *nz = pv(n, P_NORMALIZER);
        if (nz && !tv_streq(nz->v.s, nz->len, "default")) {
            /* KeywordFieldMapper: the index's normalizers, then `lowercase` */
            const tv_analyzer *an = tv_analysis_normalizer(c->analysis, nz->v.s, nz->len);
            if (!an)
                return tv_error_set(c->err, TROVE_EMAPPER, "normalizer [%.*s] not found for field [%s]",
                                    (int)nz->len, nz->v.s, f->path);
            f->normalizer = an;
        }
    }
    if (n->hidden >= 3) {
        /* SearchAsYouTypeFieldMapper.Builder.build: the shingle fields
         * copy the root's field type and wrap its index and search
         * analyzers in shingles; the prefix field has no norms, indexes
         * shingle prefixes and searches with the root's search analyzer
         * wrapped in shingles of max_shingle_size */
        const tv_field *pf = &parent->f;
        tv_field *pw = &((mnode *)parent)->f;
        const tv_json *ms = pv(parent, P_MAX_SHINGLE);
        uint32_t max = ms ? (uint32_t)ms->v.i : 3;
        f->index_options = pf->index_options;
        f->position_increment_gap = pf->position_increment_gap;
        f->norms = n->hidden == 3 ? pf->norms : false;
        uint32_t size = n->hidden == 3 ? (uint32_t)(n->name[1] - '0') : max;
        tv_analyzer *ai = tv_analyzer_wrap(pf->analyzer, n->hidden == 3 ? TV_WRAP_SHINGLE_N : TV_WRAP_SAYT_PREFIX, size, 0);
        tv_analyzer *as = tv_analyzer_wrap(pf->search_analyzer, TV_WRAP_SHINGLE_N, size, 0);
        tv_analyzer **grown = ai && as ? tv_realloc(c->m->owned_analyzers, (c->m->nowned + 2) * sizeof(tv_analyzer *)) : NULL;
        if (!grown) {
            tv_analyzer_free(ai);
            tv_analyzer_free(as);
            return tv_error_oom(c->err);
        }
        c->m->owned_analyzers = grown;
        c->m->owned_analyzers[c->m->nowned++] = ai;
        c->m->owned_analyzers[c->m->nowned++] = as;
        f->analyzer = ai;
        f->search_analyzer = as;
        f->search_quote_analyzer = n->hidden == 3 ? as : pf->search_analyzer;
        const mnode *pre = tv_mnode_child(parent, "_index_prefix", 13);
        if (n->hidden == 3) {
            f->sayt = 2;
            f->shingle_size = (uint8_t)size;
            f->prefix_field = pre ? &pre->f : NULL;
            f->prefix_min = 1;
            f->prefix_max = 20;
            if (size - 2 < 3) pw->shingles[size - 2] = f;
            if (size - 1 > pw->nshingles) pw->nshingles = (uint8_t)(size - 1);
        } else {
            f->sayt = 3;
            pw->prefix_field = f;
            pw->prefix_min = 1;
            pw->prefix_max = 20;
        }
    } else if (n->hidden) {
        /* TextFieldMapper's PrefixFieldMapper / PhraseFieldMapper: the
         * parent's field type (prefix: no norms, docs only when the
         * parent has freqs) and its index analyzer wrapped */
        const tv_field *pf = &parent->f;
        f->index_options = pf->index_options;
        f->position_increment_gap = pf->position_increment_gap;
        f->norms = n->hidden == 1 ? false : pf->norms;
        if (n->hidden == 1 && pf->index_options == TV_IO_FREQS) f->index_options = TV_IO_DOCS;
        const tv_json *pc = pv(parent, P_INDEX_PREFIXES);
        uint32_t mn = 0, mx = 0;
        if (n->hidden == 1) {
            mn = (uint32_t)pc->v.members[0].val.v.i;
            mx = (uint32_t)pc->v.members[1].val.v.i;
        }
        tv_analyzer *an = tv_analyzer_wrap(pf->analyzer, n->hidden == 1 ? TV_WRAP_EDGE_NGRAM : TV_WRAP_SHINGLE2,
                                           mn, mx);
        tv_analyzer **grown = an ? tv_realloc(c->m->owned_analyzers, (c->m->nowned + 1) * sizeof(tv_analyzer *))
                                 : NULL;
        if (!grown) {
            tv_analyzer_free(an);
            return tv_error_oom(c->err);
        }
        c->m->owned_analyzers = grown;
        c->m->owned_analyzers[c->m->nowned++] = an;
        f->analyzer = f->search_analyzer = f->search_quote_analyzer = an;
        tv_field *pw = &((mnode *)parent)->f;
        if (n->hidden == 1) {
            pw->prefix_field = f;
            pw->prefix_min = (uint8_t)mn;
            pw->prefix_max = (uint8_t)mx;
        } else {
            pw->phrase_field = f;
        }
    }
    if (t == TV_FT_TEXT) {
        const tv_json *tvp = pv(n, P_TERM_VECTOR);
        f->term_vector = TV_TV_NO;
        if (tvp) {
            static const char *const names[] = {"no", "yes", "with_positions", "with_offsets",
                                                "with_positions_offsets", "with_positions_payloads",
                                                "with_positions_offsets_payloads"};
            static const uint8_t vals[] = {TV_TV_NO, TV_TV_YES, TV_TV_YES | TV_TV_POSITIONS,
                                           TV_TV_YES | TV_TV_OFFSETS,
                                           TV_TV_YES | TV_TV_POSITIONS | TV_TV_OFFSETS,
                                           TV_TV_YES | TV_TV_POSITIONS | TV_TV_PAYLOADS,
                                           TV_TV_YES | TV_TV_POSITIONS | TV_TV_OFFSETS | TV_TV_PAYLOADS};
            for (size_t i = 0; i < TV_ARRAY_LEN(names); i++)
                if (tv_streq(tvp->v.s, tvp->len, names[i])) f->term_vector = vals[i];
        }
    }
    if (t == TV_FT_SCALED_FLOAT) f->scaling_factor = pv(n, P_SCALING_FACTOR)->v.d;
    if (t == TV_FT_DATE || t == TV_FT_DATE_NANOS) {
        const tv_json *fmt = pv(n, P_FORMAT);
        f->format = fmt                    ? tv_arena_strndup(&c->m->arena, fmt->v.s, fmt->len)
                    : t == TV_FT_DATE_NANOS ? TV_DATE_NANOS_DEFAULT_FORMAT
                                            : TV_DATE_DEFAULT_FORMAT;
        if (!f->format) return tv_error_oom(c->err);
    }
    return TROVE_OK;
}

static tv_status finish_tree(fctx *c, mnode *n) {
    for (uint32_t i = 0; i < n->nkids; i++) {
        mnode *k = n->kids[i];
        if (k->is_alias) continue; /* resolve_aliases */
        if (k->f.type != TV_FT_OBJECT) {
            tv_status st = finish_leaf(c, k, n);
            if (st) return st;
        } else {
            k->f.index = false;
            k->f.dv_kind = TV_DV_NONE;
            k->f.ignore_above = -1;
        }
        tv_status st = finish_tree(c, k);
        if (st) return st;
    }
    return TROVE_OK;
}

static void collect(tv_mapping *m, mnode *n, uint32_t *np, const tv_field *scope) {
    for (uint32_t i = 0; i < n->nkids; i++) {
        mnode *k = n->kids[i];
        k->f.nested_scope = scope;
        if (!k->is_alias) m->by_id[k->f.id] = &k->f;
        if (k->hidden == 0 || k->hidden >= 3) m->by_path[(*np)++] = &k->f; /* text's hidden: reached from the parent only */
        if (k->decl_type && strcmp(k->decl_type, "flat_object") == 0) m->has_flat = true;
        collect(m, k, np, k->f.nested ? &k->f : scope);
    }
}

/* The ids a restored mapping had (tv_mapping_write_ids: {"path": id}):
 * each node named there takes its id back; *next is past the largest.
 * False when an id is not a number below 2^24. */
static bool apply_ids(mnode *n, const tv_json *ids, uint32_t *next) {
    for (uint32_t i = 0; i < n->nkids; i++) {
        mnode *k = n->kids[i];
        if (!k->is_alias) {
            for (uint32_t j = 0; j < ids->len; j++) {
                const tv_json_member *e = &ids->v.members[j];
                if (e->key_len != k->f.path_len || memcmp(e->key, k->f.path, e->key_len) != 0) continue;
                if (e->val.type != TV_JSON_INT || e->val.v.i < 0 || e->val.v.i >= (1 << 24)) return false;
                k->f.id = (uint32_t)e->val.v.i;
                if (k->f.id + 1 > *next) *next = k->f.id + 1;
                break;
            }
        }
        if (!apply_ids(k, ids, next)) return false;
    }
    return true;
}

/* True when two nodes share an id (a corrupt id map). */
static bool ids_clash(const mnode *n, uint8_t *seen, uint32_t nseen) {
    for (uint32_t i = 0; i < n->nkids; i++) {
        const mnode *k = n->kids[i];
        if (!k->is_alias) {
            if (k->f.id >= nseen || seen[k->f.id]) return true;
            seen[k->f.id] = 1;
        }
        if (ids_clash(k, seen, nseen)) return true;
    }
    return false;
}

/* Sorts, assigns ids (ids: the ones a restored mapping had, or NULL),
 * resolves analyzers, builds lookup tables. */
static tv_status finalize(tv_mapping *m, uint32_t base_next, const tv_analysis *analysis, const tv_json *ids,
                          tv_error *err) {
    uint32_t count = 0;
    m->analysis = analysis;
    if (sort_tree(m, m->root, &count)) return tv_error_oom(err);
    if (ids && (ids->type != TV_JSON_OBJECT || !apply_ids(m->root, ids, &base_next)))
        return tv_error_set(err, TROVE_ECORRUPT, "the saved field ids of the mapping are malformed");
    uint32_t next = base_next, max_id = base_next;
    assign_ids(m->root, &next, &max_id);
    if (ids) {
        uint8_t *seen = tv_calloc(max_id ? max_id : 1, 1);
        if (!seen) return tv_error_oom(err);
        bool clash = ids_clash(m->root, seen, max_id);
        tv_free(seen);
        if (clash) return tv_error_set(err, TROVE_ECORRUPT, "the saved field ids of the mapping repeat an id");
    }
    m->nfields = max_id;
    m->by_id = tv_calloc(max_id ? max_id : 1, sizeof(tv_field *));
    m->by_path = tv_calloc(count ? count : 1, sizeof(tv_field *));
    if (!m->by_id || !m->by_path) return tv_error_oom(err);
    fctx fc = {m, analysis, err};
    tv_status st = finish_tree(&fc, m->root);
    if (st) return st;
    uint32_t np = 0;
    collect(m, m->root, &np, NULL);
    m->nleaves_paths = np;
    qsort(m->by_path, np, sizeof(tv_field *), cmp_field_path);
    return TROVE_OK;
}

static const tv_field *exact_field(const tv_mapping *m, const char *path, size_t len);

/* FieldAliasMapper.validate of every alias, once the whole mapping is
 * known (so a target may come later in the body or in a later update):
 * the target must be another, existing, non-object field that is not an
 * alias, in the same nested scope. The alias's entry then becomes a copy
 * of the target's under its own path. Run after finalize, so its errors
 * are not wrapped in "Failed to parse mapping" (MapperService validates
 * the merged mapper outside its parse). */
static tv_status resolve_aliases(tv_mapping *m, mnode *n, tv_error *err) {
    for (uint32_t i = 0; i < n->nkids; i++) {
        mnode *k = n->kids[i];
        if (!k->is_alias) {
            tv_status st = resolve_aliases(m, k, err);
            if (st) return st;
            continue;
        }
        const char *p = k->alias_to;
        int pl = (int)k->alias_to_len;
        if (tv_streq(p, (size_t)pl, k->f.path))
            return tv_error_set(err, TROVE_EMAPPER,
                                "Invalid [path] value [%.*s] for field alias [%s]: an alias cannot refer to itself.",
                                pl, p, k->f.path);
        const tv_field *t = exact_field(m, p, (size_t)pl);
        if (!t || t->type == TV_FT_OBJECT)
            return tv_error_set(err, TROVE_EMAPPER,
                                "Invalid [path] value [%.*s] for field alias [%s]: an alias must refer to an "
                                "existing field in the mappings.",
                                pl, p, k->f.path);
        if (tv_mnode_of(t)->is_alias)
            return tv_error_set(err, TROVE_EMAPPER,
                                "Invalid [path] value [%.*s] for field alias [%s]: an alias cannot refer to "
                                "another alias.",
                                pl, p, k->f.path);
        const tv_field *as = k->f.nested_scope, *ts = t->nested_scope;
        if (as != ts) {
            char a1[600], a2[600];
            if (as) snprintf(a1, sizeof a1, "The alias's nested scope is [%s]", as->path);
            else snprintf(a1, sizeof a1, "The alias is not nested");
            if (ts) snprintf(a2, sizeof a2, "the target's nested scope is [%s].", ts->path);
            else snprintf(a2, sizeof a2, "the target is not nested.");
            return tv_error_set(err, TROVE_EARG,
                                "Invalid [path] value [%.*s] for field alias [%s]: an alias must have the same "
                                "nested scope as its target. %s, but %s",
                                pl, p, k->f.path, a1, a2);
        }
        const char *path = k->f.path;
        uint32_t path_len = k->f.path_len;
        k->f = *t;
        k->f.path = path;
        k->f.path_len = path_len;
        k->f.alias_target = t;
        k->f.nested_scope = as;
    }
    return TROVE_OK;
}

/* Wraps a create-index parse error as OpenSearch does. */
static void wrap_parse_error(tv_error *err) {
    if (!err || err->code == TROVE_ENOMEM || err->code == TROVE_EUNSUPPORTED) return;
    tv_status inner = err->code;
    char reason[sizeof err->reason];
    memcpy(reason, err->reason, sizeof reason);
    tv_error_wrap(err, TROVE_EMAPPER, "Failed to parse mapping [_doc]: %s", reason);
    tv_error_cause(err, inner, "%s", reason);
}

tv_mapping *tv_mapping_parse(const tv_json *mappings, const tv_analysis *analysis, tv_error *err) {
    return tv_mapping_parse_ids(mappings, NULL, analysis, err);
}

tv_mapping *tv_mapping_parse_ids(const tv_json *mappings, const tv_json *ids, const tv_analysis *analysis,
                                 tv_error *err) {
    tv_error_clear(err);
    tv_mapping *m = mapping_alloc();
    if (!m) {
        tv_error_oom(err);
        return NULL;
    }
    pctx c = {m, &m->arena, err, TROVE_OK};
    if (parse_root(&c, mappings) || finalize(m, 0, analysis, ids, err)) {
        if (err && err->code != TROVE_ECORRUPT) wrap_parse_error(err);
        mapping_free(m);
        return NULL;
    }
    if (resolve_aliases(m, m->root, err)) {
        mapping_free(m);
        return NULL;
    }
    return m;
}

/* ---------------------------------------------------------------- merge */

static mnode *clone_tree(tv_arena *a, const mnode *n) {
    mnode *c = tv_arena_alloc(a, sizeof *c);
    if (!c) return NULL;
    *c = *n;
    c->first = c->last = c->next = NULL;
    c->kids = NULL;
    c->nkids = 0;
    c->name = tv_arena_strndup(a, n->name, n->name_len);
    c->f.path = tv_arena_strndup(a, n->f.path, n->f.path_len);
    if (!c->name || !c->f.path) return NULL;
    for (int i = 0; i < P_COUNT; i++)
        if (n->p[i] && !(c->p[i] = tv_json_copy(a, n->p[i]))) return NULL;
    if (n->copy_to && !(c->copy_to = tv_json_copy(a, n->copy_to))) return NULL;
    if (n->is_alias && !(c->alias_to = tv_arena_strndup(a, n->alias_to, n->alias_to_len))) return NULL;
    for (uint32_t i = 0; i < n->nkids; i++) {
        mnode *k = clone_tree(a, n->kids[i]);
        if (!k) return NULL;
        add_child(c, k);
    }
    return c;
}

/* The value a parameter has on a node (given or default) as Java prints it. */
static void param_string(const mnode *n, const tparam *tp, tv_buf *b) {
    const tv_json *v = n->p[tp->p];
    if (v) {
        if (tp->p == P_META && v->len == 0) tv_buf_puts(b, "{}");
        else tv_json_to_java(v, b);
        return;
    }
    if (tp->p == P_SEARCH_ANALYZER) {
        const tv_json *an = n->p[P_ANALYZER];
        tv_buf_puts(b, "default");
        (void)an;
        if (an) {
            b->len = 0;
            tv_buf_append(b, an->v.s, an->len);
        }
        return;
    }
    if (tp->p == P_SEARCH_QUOTE_ANALYZER) {
        const tv_json *sa = n->p[P_SEARCH_ANALYZER] ? n->p[P_SEARCH_ANALYZER] : n->p[P_ANALYZER];
        if (sa) tv_buf_append(b, sa->v.s, sa->len);
        else tv_buf_puts(b, "default");
        return;
    }
    if (tp->p == P_META) {
        tv_buf_puts(b, "{}");
        return;
    }
    tv_buf_puts(b, tp->def ? tp->def : "null");
}

static tv_status merge_leaf(pctx *c, mnode *dst, mnode *src);

/* src's nodes live in the same arena as dst (the update was parsed into
 * it), so new nodes are moved, not copied. */
static tv_status merge_children(pctx *c, mnode *dst, mnode *src) {
    mnode *next;
    for (mnode *s = src->first; s; s = next) {
        next = s->next;
        mnode *d = find_child(dst, s->name, s->name_len);
        if (!d) {
            add_child(dst, s);
            continue;
        }
        bool d_obj = d->f.type == TV_FT_OBJECT, s_obj = s->f.type == TV_FT_OBJECT;
        if (d->is_alias) {
            /* FieldAliasMapper.merge: the update's alias replaces it */
            if (!s->is_alias)
                return c->st = tv_error_set(c->err, TROVE_EARG,
                                            "Cannot merge a field alias mapping [%s] with a mapping that is not "
                                            "for a field alias.",
                                            d->f.path);
            d->alias_to = s->alias_to;
            d->alias_to_len = s->alias_to_len;
            continue;
        }
        if (d_obj && !s_obj)
            return c->st = tv_error_set(c->err, TROVE_EARG,
                                        "can't merge a non object mapping [%s] with an object mapping",
                                        s->f.path);
        if (!d_obj && s_obj)
            return c->st = tv_error_set(c->err, TROVE_EARG,
                                        "mapper [%s] cannot be changed from type [%s] to "
                                        "[ObjectMapper]",
                                        d->f.path, tv_field_type_name(d->f.type));
        if (d_obj && d->f.nested != s->f.nested && (s->f.nested || s->nested_decl == 0))
            return c->st = tv_error_set(c->err, TROVE_EARG,
                                        "object mapping [%s] can't be changed from %s to %s", d->f.path,
                                        d->f.nested ? "nested" : "non-nested", d->f.nested ? "non-nested" : "nested");
        if (d_obj && d->f.nested && (s->f.include_in_parent != d->f.include_in_parent ||
                                     s->f.include_in_root != d->f.include_in_root) && s->nested_decl == 1)
            return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                        "the [include_in_%s] parameter can't be updated on a nested object mapping",
                                        s->f.include_in_parent != d->f.include_in_parent ? "parent" : "root");
        if (d_obj) {
            if (s->dynamic >= 0) d->dynamic = s->dynamic;
            if (s->enabled >= 0) {
                bool de = d->enabled != 0, se = s->enabled != 0;
                if (de != se)
                    return c->st = tv_error_set(c->err, TROVE_EMAPPER,
                                                "the [enabled] parameter can't be updated for the "
                                                "object mapping [%s]",
                                                d->f.path);
                d->enabled = s->enabled;
            }
            if (merge_children(c, d, s)) return c->st;
        } else {
            if (merge_leaf(c, d, s)) return c->st;
        }
    }
    return TROVE_OK;
}

static tv_status merge_leaf(pctx *c, mnode *dst, mnode *src) {
    if (dst->f.type != src->f.type || strcmp(node_type_name(dst), node_type_name(src)) != 0)
        return c->st = tv_error_set(c->err, TROVE_EARG,
                                    "mapper [%s] cannot be changed from type [%s] to [%s]",
                                    dst->f.path, node_type_name(dst), node_type_name(src));
    const tparam *tp = node_params(dst);
    tv_buf conflicts, cur, inc;
    tv_buf_init(&conflicts);
    tv_buf_init(&cur);
    tv_buf_init(&inc);
    for (const tparam *t = tp; t->p != P_COUNT; t++) {
        tv_buf_clear(&cur);
        tv_buf_clear(&inc);
        param_string(dst, t, &cur);
        param_string(src, t, &inc);
        bool equal = cur.len == inc.len && (cur.len == 0 || memcmp(cur.data, inc.data, cur.len) == 0);
        bool ok = t->updatable || equal;
        if (t->p == P_NORMS) /* norms may be disabled, never enabled */
            ok = equal || (tv_streq(cur.data, cur.len, "true") && tv_streq(inc.data, inc.len, "false"));
        if (!ok)
            tv_buf_printf(&conflicts, "\n\tCannot update parameter [%s] from [%s] to [%s]",
                          params[t->p].name, cur.data ? cur.data : "", inc.data ? inc.data : "");
    }
    if (conflicts.len) {
        c->st = tv_error_set(c->err, TROVE_EARG, "Mapper for [%s] conflicts with existing mapper:%s",
                             dst->f.path, conflicts.data);
    } else {
        for (int i = 0; i < P_COUNT; i++) dst->p[i] = src->p[i];
        dst->copy_to = src->copy_to;
    }
    tv_buf_fini(&conflicts);
    tv_buf_fini(&cur);
    tv_buf_fini(&inc);
    if (c->st) return c->st;
    /* multi-fields: update or add */
    mnode *next;
    for (mnode *s = src->first; s; s = next) {
        next = s->next;
        mnode *d = find_child(dst, s->name, s->name_len);
        if (!d) {
            add_child(dst, s);
        } else if (merge_leaf(c, d, s)) {
            return c->st;
        }
    }
    return TROVE_OK;
}

/* RootObjectMapper's merge of dynamic templates: a template of the update
 * replaces the base's template of the same name in place, others are
 * appended in order. */
static const tv_json *merge_templates(tv_arena *a, const tv_json *base, const tv_json *upd) {
    uint32_t cap = (base ? base->len : 0) + upd->len;
    tv_json *out = tv_arena_calloc(a, 1, sizeof *out);
    tv_json *items = cap ? tv_arena_calloc(a, cap, sizeof(tv_json)) : NULL;
    if (!out || (cap && !items)) return NULL;
    uint32_t n = 0;
    for (uint32_t i = 0; base && i < base->len; i++) items[n++] = base->v.items[i];
    for (uint32_t i = 0; i < upd->len; i++) {
        const tv_json_member *um = &upd->v.items[i].v.members[0];
        uint32_t j = 0;
        for (; j < n; j++) {
            const tv_json_member *bm = &items[j].v.members[0];
            if (bm->key_len == um->key_len && memcmp(bm->key, um->key, um->key_len) == 0) break;
        }
        items[j] = upd->v.items[i];
        if (j == n) n++;
    }
    out->type = TV_JSON_ARRAY;
    out->len = n;
    out->v.items = items;
    return out;
}

static bool json_array_equal(const tv_json *a, const tv_json *b) {
    if (!a || !b) return (!a || a->len == 0) && (!b || b->len == 0);
    return tv_json_equal(a, b);
}

tv_mapping *tv_mapping_merge(const tv_mapping *base, const tv_json *update,
                             const tv_analysis *analysis, tv_error *err) {
    tv_error_clear(err);
    /* A put-mapping body wrapped in the type name is refused since 2.0
     * (typeless APIs); only tv_mapping_parse (create index, templates)
     * still unwraps {"_doc": {...}}. */
    if (update && tv_json_is_object(update) && update->len == 1 &&
        tv_streq(update->v.members[0].key, update->v.members[0].key_len, "_doc")) {
        tv_error_set(err, TROVE_EARG, "Types cannot be provided in put mapping requests");
        return NULL;
    }
    if (!base) return tv_mapping_parse(update, analysis, err);
    tv_mapping *m = mapping_alloc();
    if (!m) {
        tv_error_oom(err);
        return NULL;
    }
    pctx c = {m, &m->arena, err, TROVE_OK};
    /* copy the base */
    m->dynamic = base->dynamic;
    m->dynamic_set = base->dynamic_set;
    m->date_detection = base->date_detection;
    m->date_detection_set = base->date_detection_set;
    m->numeric_detection = base->numeric_detection;
    m->numeric_detection_set = base->numeric_detection_set;
    m->source_enabled = base->source_enabled;
    m->source_enabled_set = base->source_enabled_set;
    m->routing_required = base->routing_required;
    m->routing_set = base->routing_set;
    if ((base->dynamic_templates &&
         !(m->dynamic_templates = tv_json_copy(&m->arena, base->dynamic_templates))) ||
        (base->dynamic_date_formats &&
         !(m->dynamic_date_formats = tv_json_copy(&m->arena, base->dynamic_date_formats))) ||
        (base->meta && !(m->meta = tv_json_copy(&m->arena, base->meta))) ||
        (base->source_includes &&
         !(m->source_includes = tv_json_copy(&m->arena, base->source_includes))) ||
        (base->source_excludes &&
         !(m->source_excludes = tv_json_copy(&m->arena, base->source_excludes)))) {
        oom(&c);
        goto fail;
    }
    for (uint32_t i = 0; i < base->root->nkids; i++) {
        mnode *k = clone_tree(&m->arena, base->root->kids[i]);
        if (!k) {
            oom(&c);
            goto fail;
        }
        add_child(m->root, k);
    }
    /* parse the update into a scratch mapping sharing our arena */
    tv_mapping *u = mapping_alloc();
    if (!u) {
        oom(&c);
        goto fail;
    }
    pctx uc = {u, &m->arena, err, TROVE_OK};
    tv_status st = parse_root(&uc, update);
    if (!st) {
        if (u->dynamic_set) {
            m->dynamic = u->dynamic;
            m->dynamic_set = true;
        }
        if (u->date_detection_set) {
            m->date_detection = u->date_detection;
            m->date_detection_set = true;
        }
        if (u->numeric_detection_set) {
            m->numeric_detection = u->numeric_detection;
            m->numeric_detection_set = true;
        }
        if (u->dynamic_date_formats) m->dynamic_date_formats = u->dynamic_date_formats;
        if (u->dynamic_templates) {
            const tv_json *merged = merge_templates(&m->arena, m->dynamic_templates, u->dynamic_templates);
            if (!merged) st = oom(&c);
            m->dynamic_templates = merged;
        }
        if (u->meta) m->meta = u->meta;
        if (u->source_enabled_set || u->source_includes || u->source_excludes) {
            tv_buf conf;
            tv_buf_init(&conf);
            bool ue = u->source_enabled_set ? u->source_enabled : true;
            if (ue != m->source_enabled)
                tv_buf_printf(&conf, "\n\tCannot update parameter [enabled] from [%s] to [%s]",
                              m->source_enabled ? "true" : "false", ue ? "true" : "false");
            if (!json_array_equal(m->source_includes, u->source_includes))
                tv_buf_puts(&conf, "\n\tCannot update parameter [includes]");
            if (!json_array_equal(m->source_excludes, u->source_excludes))
                tv_buf_puts(&conf, "\n\tCannot update parameter [excludes]");
            if (conf.len)
                st = tv_error_set(err, TROVE_EARG,
                                  "Mapper for [_source] conflicts with existing mapper:%s", conf.data);
            tv_buf_fini(&conf);
        }
        if (!st && u->routing_set && u->routing_required != m->routing_required)
            st = tv_error_set(err, TROVE_EARG,
                              "Mapper for [_routing] conflicts with existing mapper:\n\tCannot "
                              "update parameter [required] from [%s] to [%s]",
                              m->routing_required ? "true" : "false",
                              u->routing_required ? "true" : "false");
        if (!st) st = merge_children(&c, m->root, u->root);
    }
    /* u's nodes live in m's arena; free only u's shell */
    tv_arena_fini(&u->arena);
    tv_free(u);
    if (st) goto fail;
    if (finalize(m, base->nfields, analysis, NULL, err) || resolve_aliases(m, m->root, err)) goto fail;
    return m;
fail:
    mapping_free(m);
    return NULL;
}

/* ---------------------------------------------------------------- lookups */


const mnode *tv_mapping_root(const tv_mapping *m) { return m->root; }

const mnode *tv_mnode_child(const mnode *n, const char *name, size_t len) {
    size_t lo = 0, hi = n->nkids;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = tv_memcmp2(n->kids[mid]->name, n->kids[mid]->name_len, name, len);
        if (c == 0) return n->kids[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

static const tv_field *exact_field(const tv_mapping *m, const char *path, size_t len) {
    size_t lo = 0, hi = m->nleaves_paths;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const tv_field *f = m->by_path[mid];
        int c = tv_memcmp2(f->path, f->path_len, path, len);
        if (c == 0) return f;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

bool tv_field_is_flat_object(const tv_field *f) {
    f = tv_field_resolve(f);
    if (!f || f->type != TV_FT_KEYWORD) return false;
    const mnode *n = tv_mnode_of(f);
    return n->decl_type && strcmp(n->decl_type, "flat_object") == 0;
}

static uint32_t flat_sub_id(const char *path, size_t len) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= (uint8_t)path[i];
        h *= 16777619u;
    }
    return TV_FLAT_SUB_ID_BASE | (h & 0x3FFFFFFFu);
}

const tv_field *tv_mapping_flat_sub(const tv_mapping *m, const tv_field *flat, const char *rel,
                                    size_t rel_len) {
    tv_mapping *mm = (tv_mapping *)m; /* the cache is the mutable part */
    size_t plen = flat->path_len + 1 + rel_len;
    const mnode *parent = tv_mnode_of(flat);
    pthread_mutex_lock(&mm->flat_mu);
    for (mnode *s = mm->flat_subs; s; s = s->next)
        if (s->f.path_len == plen && memcmp(s->f.path, flat->path, flat->path_len) == 0 &&
            s->f.path[flat->path_len] == '.' &&
            memcmp(s->f.path + flat->path_len + 1, rel, rel_len) == 0) {
            pthread_mutex_unlock(&mm->flat_mu);
            return &s->f;
        }
    mnode *s = tv_arena_alloc(&mm->arena, sizeof *s);
    char *p = tv_arena_alloc(&mm->arena, plen + 1);
    if (!s || !p) {
        pthread_mutex_unlock(&mm->flat_mu);
        return NULL;
    }
    *s = *parent;
    memcpy(p, flat->path, flat->path_len);
    p[flat->path_len] = '.';
    memcpy(p + flat->path_len + 1, rel, rel_len);
    p[plen] = '\0';
    size_t last = rel_len;
    while (last && rel[last - 1] != '.') last--;
    s->name = p + flat->path_len + 1 + last;
    s->name_len = (uint32_t)(rel_len - last);
    s->f.path = p;
    s->f.path_len = (uint32_t)plen;
    s->f.id = flat_sub_id(p, plen);
    s->f.multi_parent = NULL;
    s->copy_to = NULL;
    s->first = s->last = NULL;
    s->kids = NULL;
    s->nkids = 0;
    s->next = mm->flat_subs;
    mm->flat_subs = s;
    pthread_mutex_unlock(&mm->flat_mu);
    return &s->f;
}

const tv_field *tv_mapping_field(const tv_mapping *m, const char *path, size_t len) {
    return tv_field_resolve(tv_mapping_field_or_alias(m, path, len));
}

const tv_field *tv_mapping_field_or_alias(const tv_mapping *m, const char *path, size_t len) {
    if (!m) return NULL;
    const tv_field *f = exact_field(m, path, len);
    if (f || !m->has_flat) return f;
    /* "f.a.b" under a flat_object field f */
    for (size_t i = 1; i + 1 < len; i++) {
        if (path[i] != '.') continue;
        const tv_field *p = exact_field(m, path, i);
        if (!p) continue;
        if (tv_field_is_flat_object(p)) {
            if (path[len - 1] == '.' || path[i + 1] == '.') return NULL;
            return tv_mapping_flat_sub(m, p, path + i + 1, len - i - 1);
        }
        if (p->type != TV_FT_OBJECT) return NULL;
    }
    return NULL;
}

const tv_field *tv_mapping_field_by_id(const tv_mapping *m, uint32_t id) {
    return m && id < m->nfields ? m->by_id[id] : NULL;
}

uint32_t tv_mapping_field_count(const tv_mapping *m) { return m ? m->nfields : 0; }

bool tv_mapping_source_enabled(const tv_mapping *m) { return !m || m->source_enabled; }

tv_dynamic tv_mapping_dynamic_of(const tv_mapping *m, const char *obj_path, size_t len) {
    /* the innermost object on the path with an explicit setting wins */
    while (len) {
        const tv_field *f = tv_mapping_field(m, obj_path, len);
        if (f && f->type == TV_FT_OBJECT) {
            const mnode *n = tv_mnode_of(f);
            if (n->dynamic >= 0) return (tv_dynamic)n->dynamic;
        }
        while (len && obj_path[len - 1] != '.') len--;
        if (len) len--; /* drop the dot */
    }
    return m->dynamic;
}

/* Glob match with '*' only. */
static bool glob(const char *p, size_t pl, const char *s, size_t sl) { return tv_glob_match(p, pl, s, sl); }

size_t tv_mapping_match_names(const tv_mapping *m, const char *pattern, size_t len,
                              const tv_field **out, size_t cap) {
    size_t n = 0;
    if (!m) return 0;
    for (uint32_t i = 0; i < m->nleaves_paths; i++) {
        const tv_field *f = m->by_path[i];
        if (f->type == TV_FT_OBJECT) continue;
        if (!glob(pattern, len, f->path, f->path_len)) continue;
        if (n < cap) out[n] = f;
        n++;
    }
    return n;
}

size_t tv_mapping_match_fields(const tv_mapping *m, const char *pattern, size_t len,
                               const tv_field **out, size_t cap) {
    size_t n = 0;
    if (!m) return 0;
    for (uint32_t i = 0; i < m->nleaves_paths; i++) {
        const tv_field *f = m->by_path[i];
        if (f->type == TV_FT_OBJECT) continue;
        if (!glob(pattern, len, f->path, f->path_len)) continue;
        if (f->alias_target) {
            const tv_field *t = f->alias_target;
            /* the target is listed on its own, or by an earlier alias */
            bool seen = glob(pattern, len, t->path, t->path_len);
            for (uint32_t j = 0; j < i && !seen; j++) {
                const tv_field *g = m->by_path[j];
                seen = g->alias_target == t && glob(pattern, len, g->path, g->path_len);
            }
            if (seen) continue;
            f = t;
        }
        if (n < cap) out[n] = f;
        n++;
    }
    return n;
}

/* ---------------------------------------------------------------- writer */

static bool param_is_default(const mnode *n, const tparam *t) {
    const tv_json *v = n->p[t->p];
    if (!v) return true;
    tv_buf a, b;
    tv_buf_init(&a);
    tv_buf_init(&b);
    tv_json_to_java(v, &a);
    mnode tmp = *n;
    tmp.p[t->p] = NULL;
    param_string(&tmp, t, &b);
    bool eq = a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
    if (t->p == P_META) eq = v->len == 0;
    if (params[t->p].kind == K_NULLVAL) eq = false;
    tv_buf_fini(&a);
    tv_buf_fini(&b);
    return eq;
}

static const char *analyzer_name(const mnode *n, mparam p, size_t *len) {
    const tv_json *v = n->p[p];
    if (!v) {
        if (p == P_ANALYZER) {
            *len = 7;
            return "default";
        }
        return analyzer_name(n, p == P_SEARCH_QUOTE_ANALYZER ? P_SEARCH_ANALYZER : P_ANALYZER, len);
    }
    *len = v->len;
    return v->v.s;
}

static void write_param_value(tv_jw *w, const mnode *n, mparam p) {
    const tv_json *v = n->p[p];
    if (params[p].kind == K_FLOAT) tv_jw_float(w, (float)v->v.d);
    else if (params[p].kind == K_DOUBLE) tv_jw_double(w, v->v.d);
    else tv_jw_value(w, v);
}

static void write_node(tv_jw *w, const mnode *n);

static void write_leaf(tv_jw *w, const mnode *n) {
    tv_jw_keyz(w, "type");
    tv_jw_strz(w, node_type_name(n));
    const tparam *tp = node_params(n);
    bool is_wc = n->decl_type && strcmp(n->decl_type, "wildcard") == 0;
    for (const tparam *t = tp; t->p != P_COUNT; t++) {
        bool print = !param_is_default(n, t);
        if (n->f.type == TV_FT_RANGE && (t->p == P_FORMAT || t->p == P_LOCALE) &&
            strcmp(n->decl_type, "date_range") != 0)
            continue; /* neverSerialize */
        if (n->decl_type && strcmp(n->decl_type, "search_as_you_type") == 0 &&
            (t->p == P_DOC_VALUES || t->p == P_MAX_SHINGLE)) {
            /* alwaysSerialize */
            tv_jw_keyz(w, params[t->p].name);
            if (t->p == P_DOC_VALUES) tv_jw_bool(w, false);
            else tv_jw_int(w, n->p[P_MAX_SHINGLE] ? n->p[P_MAX_SHINGLE]->v.i : 3);
            continue;
        }
        if (is_wc && t->p == P_DOC_VALUES) {
            /* wildcard always prints doc_values (alwaysSerialize) */
            tv_jw_keyz(w, "doc_values");
            tv_jw_bool(w, pbool(n, P_DOC_VALUES, true));
            continue;
        }
        if (tv_field_type_is_text(n->f.type) &&
            (t->p == P_ANALYZER || t->p == P_SEARCH_ANALYZER || t->p == P_SEARCH_QUOTE_ANALYZER)) {
            size_t l1, l2, l3;
            const char *a = analyzer_name(n, P_ANALYZER, &l1);
            const char *s = analyzer_name(n, P_SEARCH_ANALYZER, &l2);
            const char *q = analyzer_name(n, P_SEARCH_QUOTE_ANALYZER, &l3);
            bool as = l1 == l2 && memcmp(a, s, l1) == 0, sq = l2 == l3 && memcmp(s, q, l2) == 0,
                 aq = l1 == l3 && memcmp(a, q, l1) == 0;
            if (t->p == P_ANALYZER) {
                print = (n->p[P_ANALYZER] && !tv_streq(a, l1, "default")) || !as || !aq;
                if (print) {
                    tv_jw_keyz(w, "analyzer");
                    tv_jw_str(w, a, l1);
                }
            } else if (t->p == P_SEARCH_ANALYZER) {
                print = !as || !sq;
                if (print) {
                    tv_jw_keyz(w, "search_analyzer");
                    tv_jw_str(w, s, l2);
                }
            } else {
                print = !sq;
                if (print) {
                    tv_jw_keyz(w, "search_quote_analyzer");
                    tv_jw_str(w, q, l3);
                }
            }
            continue;
        }
        if (!print) continue;
        tv_jw_keyz(w, params[t->p].name);
        write_param_value(w, n, t->p);
    }
    uint32_t shown = 0;
    for (uint32_t i = 0; i < n->nkids; i++) shown += !n->kids[i]->hidden;
    if (shown) {
        tv_jw_keyz(w, "fields");
        tv_jw_obj_begin(w);
        for (uint32_t i = 0; i < n->nkids; i++)
            if (!n->kids[i]->hidden) write_node(w, n->kids[i]);
        tv_jw_obj_end(w);
    }
    if (n->copy_to && n->copy_to->len) {
        tv_jw_keyz(w, "copy_to");
        tv_jw_value(w, n->copy_to);
    }
}

static const char *dynamic_name(tv_dynamic d) {
    switch (d) {
    case TV_DYNAMIC_STRICT: return "strict";
    case TV_DYNAMIC_FALSE: return "false";
    case TV_DYNAMIC_STRICT_ALLOW_TEMPLATES: return "strict_allow_templates";
    case TV_DYNAMIC_TRUE: break;
    }
    return "true";
}

static void write_object_body(tv_jw *w, const mnode *n) {
    if (n->f.nested) { /* ObjectMapper.toXContent */
        tv_jw_keyz(w, "type");
        tv_jw_strz(w, "nested");
        if (n->f.include_in_parent) {
            tv_jw_keyz(w, "include_in_parent");
            tv_jw_bool(w, true);
        }
        if (n->f.include_in_root) {
            tv_jw_keyz(w, "include_in_root");
            tv_jw_bool(w, true);
        }
    } else if (n->nkids == 0) {
        tv_jw_keyz(w, "type");
        tv_jw_strz(w, "object");
    }
    if (n->dynamic >= 0) {
        tv_jw_keyz(w, "dynamic");
        tv_jw_strz(w, dynamic_name((tv_dynamic)n->dynamic));
    }
    if (n->enabled == 0) {
        tv_jw_keyz(w, "enabled");
        tv_jw_bool(w, false);
    }
    if (n->nkids) {
        tv_jw_keyz(w, "properties");
        tv_jw_obj_begin(w);
        for (uint32_t i = 0; i < n->nkids; i++) write_node(w, n->kids[i]);
        tv_jw_obj_end(w);
    }
}

static void write_node(tv_jw *w, const mnode *n) {
    tv_jw_key(w, n->name, n->name_len);
    tv_jw_obj_begin(w);
    if (n->is_alias) {
        tv_jw_keyz(w, "type");
        tv_jw_strz(w, "alias");
        tv_jw_keyz(w, "path");
        tv_jw_str(w, n->alias_to, n->alias_to_len);
    } else if (n->f.type == TV_FT_OBJECT) {
        write_object_body(w, n);
    } else {
        write_leaf(w, n);
    }
    tv_jw_obj_end(w);
}

void tv_mapping_write(const tv_mapping *m, tv_jw *w) {
    tv_jw_obj_begin(w);
    if (!m) {
        tv_jw_obj_end(w);
        return;
    }
    if (m->dynamic_set) {
        tv_jw_keyz(w, "dynamic");
        tv_jw_strz(w, dynamic_name((tv_dynamic)m->dynamic));
    }
    if (m->meta) {
        tv_jw_keyz(w, "_meta");
        tv_jw_value(w, m->meta);
    }
    if (m->routing_required) {
        tv_jw_keyz(w, "_routing");
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "required");
        tv_jw_bool(w, true);
        tv_jw_obj_end(w);
    }
    bool src_inc = m->source_includes && m->source_includes->len;
    bool src_exc = m->source_excludes && m->source_excludes->len;
    if (!m->source_enabled || src_inc || src_exc) {
        tv_jw_keyz(w, "_source");
        tv_jw_obj_begin(w);
        if (!m->source_enabled) {
            tv_jw_keyz(w, "enabled");
            tv_jw_bool(w, false);
        }
        if (src_inc) {
            tv_jw_keyz(w, "includes");
            tv_jw_value(w, m->source_includes);
        }
        if (src_exc) {
            tv_jw_keyz(w, "excludes");
            tv_jw_value(w, m->source_excludes);
        }
        tv_jw_obj_end(w);
    }
    if (m->dynamic_date_formats) {
        tv_jw_keyz(w, "dynamic_date_formats");
        tv_jw_value(w, m->dynamic_date_formats);
    }
    if (m->dynamic_templates) {
        tv_jw_keyz(w, "dynamic_templates");
        tv_jw_value(w, m->dynamic_templates);
    }
    if (m->date_detection_set) {
        tv_jw_keyz(w, "date_detection");
        tv_jw_bool(w, m->date_detection);
    }
    if (m->numeric_detection_set) {
        tv_jw_keyz(w, "numeric_detection");
        tv_jw_bool(w, m->numeric_detection);
    }
    if (m->root->nkids) {
        tv_jw_keyz(w, "properties");
        tv_jw_obj_begin(w);
        for (uint32_t i = 0; i < m->root->nkids; i++) write_node(w, m->root->kids[i]);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
}

/* ------------------------------------------------------- derived source */

/* FieldMapper.canDeriveSource over one node and what is below it: which
 * fields index.derived_source.enabled can rebuild from doc values or
 * stored fields (doc.c's derive_source), with OpenSearch's refusals. */
static tv_status derivable(const mnode *k, tv_error *err) {
    const tv_field *f = &k->f;
    if (k->is_alias) return TROVE_OK;
    if (f->type == TV_FT_OBJECT) {
        if (k->enabled == 0 || f->nested)
            return tv_error_set(err, TROVE_EMAPPER,
                                "Derived source is not supported for %s field as it is disabled/nested", f->path);
        for (uint32_t i = 0; i < k->nkids; i++) {
            tv_status st = derivable(k->kids[i], err);
            if (st) return st;
        }
        return TROVE_OK;
    }
    if (k->copy_to && k->copy_to->len)
        return tv_error_set(err, TROVE_EMAPPER, "Unable to derive source for fields with copy_to parameter set");
    const char *decl = tv_field_declared_type(f);
    switch (f->type) {
    case TV_FT_TEXT:
    case TV_FT_MATCH_ONLY_TEXT:
        return TROVE_OK; /* stored whenever derived source is on */
    case TV_FT_KEYWORD:
        if (strcmp(decl, "constant_keyword") == 0) return TROVE_OK;
        if (f->ignore_above >= 0 || f->normalizer)
            return tv_error_set(err, TROVE_EMAPPER,
                                "Unable to derive source for [%s] with ignore_above and/or normalizer set", f->path);
        if (strcmp(decl, "wildcard") == 0 && !f->doc_values)
            return tv_error_set(err, TROVE_EMAPPER, "Unable to derive source for [%s] with doc values disabled",
                                f->path);
        break;
    case TV_FT_BINARY:
        if (!f->store)
            return tv_error_set(err, TROVE_EMAPPER, "Unable to derive source for [%s] with store disabled", f->path);
        return TROVE_OK;
    case TV_FT_INTEGER:
        if (strcmp(decl, "token_count") == 0) goto unsupported;
        break;
    case TV_FT_LONG: case TV_FT_SHORT: case TV_FT_BYTE: case TV_FT_DOUBLE: case TV_FT_FLOAT:
    case TV_FT_HALF_FLOAT: case TV_FT_SCALED_FLOAT: case TV_FT_UNSIGNED_LONG: case TV_FT_DATE:
    case TV_FT_DATE_NANOS: case TV_FT_BOOLEAN: case TV_FT_IP: case TV_FT_GEO_POINT:
        break;
    default:
    unsupported:
        return tv_error_set(err, TROVE_EMAPPER, "Derive source is not supported for field [%s] with field type [%s]",
                            f->path, decl);
    }
    if (!f->store && !f->doc_values)
        return tv_error_set(err, TROVE_EMAPPER, "Unable to derive source for [%s] with stored and docValues disabled",
                            f->path);
    return TROVE_OK;
}

tv_status tv_mapping_check_derivable(const tv_mapping *m, const tv_settings *s, tv_error *err) {
    if (!m || !tv_settings_bool(s, "index.derived_source.enabled", false)) return TROVE_OK;
    for (uint32_t i = 0; i < m->root->nkids; i++) {
        tv_status st = derivable(m->root->kids[i], err);
        if (st) return st;
    }
    return TROVE_OK;
}

/* ---------------------------------------------------------------- ids */

static void write_ids(const mnode *n, tv_jw *w) {
    for (uint32_t i = 0; i < n->nkids; i++) {
        const mnode *k = n->kids[i];
        if (!k->is_alias) {
            tv_jw_key(w, k->f.path, k->f.path_len);
            tv_jw_uint(w, k->f.id);
        }
        write_ids(k, w);
    }
}

void tv_mapping_write_ids(const tv_mapping *m, tv_jw *w) {
    tv_jw_obj_begin(w);
    if (m) write_ids(m->root, w);
    tv_jw_obj_end(w);
}

/* ---------------------------------------------------------------- limits */

uint32_t tv_mapping_total_fields(const tv_mapping *m) { return m ? m->nleaves_paths : 0; }

tv_status tv_mapping_check_limits(const tv_mapping *m, const tv_settings *s, tv_error *err) {
    if (!m) return TROVE_OK;
    const char *index = s ? s->provided_name : "";
    int64_t total = tv_settings_int(s, "index.mapping.total_fields.limit", 1000);
    int64_t depth = tv_settings_int(s, "index.mapping.depth.limit", 20);
    int64_t name_len = tv_settings_int(s, "index.mapping.field_name_length.limit", INT64_MAX);
    if ((int64_t)m->nleaves_paths > total)
        return tv_error_set(err, TROVE_EARG, "Limit of total fields [%lld] has been exceeded",
                            (long long)total);
    int64_t nested_limit = tv_settings_int(s, "index.mapping.nested_fields.limit", 50), nested = 0;
    for (uint32_t i = 0; i < m->nleaves_paths; i++) nested += m->by_path[i]->nested;
    if (nested > nested_limit)
        return tv_error_set(err, TROVE_EARG, "Limit of nested fields [%lld] has been exceeded",
                            (long long)nested_limit);
    for (uint32_t i = 0; i < m->nleaves_paths; i++) {
        const tv_field *f = m->by_path[i];
        if ((int64_t)f->path_len > name_len) {
            /* the name OpenSearch checks is the mapper's full path */
            return tv_error_set(err, TROVE_EARG,
                                "Field name [%s] in index [%s] is too long. The limit is set to "
                                "[%lld] characters but was [%u] characters",
                                f->path, index, (long long)name_len, f->path_len);
        }
        if (f->type == TV_FT_OBJECT) {
            int64_t d = 2;
            for (uint32_t k = 0; k < f->path_len; k++) d += f->path[k] == '.';
            if (d > depth)
                return tv_error_set(err, TROVE_EARG,
                                    "Limit of mapping depth [%lld] in index [%s] has been exceeded "
                                    "due to object field [%s]",
                                    (long long)depth, index, f->path);
        }
    }
    return tv_mapping_check_derivable(m, s, err);
}

const tv_analyzer *tv_mapping_analyzer(const tv_mapping *m, const char *name, size_t len) {
    return tv_analysis_get(m ? m->analysis : NULL, name, len);
}
