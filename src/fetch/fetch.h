/*
 * fetch.h — the fetch layer: everything that turns a hit into JSON.
 *
 * A search (src/search) collects hits as (target, segment, doc); the fetch
 * layer writes what OpenSearch's FetchPhase and its sub-phases write for
 * each: the "_source" with includes/excludes (source.c), the version
 * members, docvalue_fields (docvalue.c) and "fields" (fields.c),
 * highlighting (highlight.c, highlight.h), the inner hits of nested
 * queries and the nested identity of a nested hit (inner_hits.c), and the
 * sort that top_hits and inner_hits share (hit_sort.c). The "sort" option
 * itself (of a search body, top_hits and inner_hits: its forms, options and
 * OpenSearch's parse errors) is parsed in sort.c.
 *
 * Reads indices through index.h snapshots and queries through
 * query/query.h (inner hits and highlighting run the query again); knows
 * nothing of aggregations or of the search's collectors.
 *
 * Ownership: everything a function returns lives in the request arena it
 * is given; nothing here needs freeing.
 */
#ifndef TROVE_FETCH_H
#define TROVE_FETCH_H

#include "index/index.h"
#include "json/json.h"
#include "query/query.h"
#include "util/util.h"

/* =============================================================== sort */

/* TV_SORT_GEO: _geo_distance (GeoDistanceSortBuilder); TV_SORT_SCRIPT: _script */
typedef enum { TV_SORT_SCORE, TV_SORT_DOC, TV_SORT_FIELD, TV_SORT_GEO, TV_SORT_SCRIPT } tv_sort_kind;
/* MultiValueMode; DEFAULT: min ascending, max descending */
typedef enum {
    TV_SORT_MODE_DEFAULT,
    TV_SORT_MODE_MIN,
    TV_SORT_MODE_MAX,
    TV_SORT_MODE_SUM,
    TV_SORT_MODE_AVG,
    TV_SORT_MODE_MEDIAN
} tv_sort_mode;

/* One sort key as SortBuilder parses it (sort.c). */
typedef struct tv_sort_spec {
    tv_sort_kind kind;
    tv_sort_mode mode;
    bool desc;
    bool missing_first;
    const char *field;
    size_t field_len;
    const char *unmapped_type;
    /* "nested": {"path", "filter"}: the value of a root is picked over
     * the values of its children of path (that match filter) */
    const char *nested_path;
    const tv_json *nested_filter;
    const tv_json *numeric_type, *format; /* given (the search ignores them) */
    /* _geo_distance: the field (field/field_len), its points (lat, lon
     * pairs), meters per unit, plane (else arc), ignore_unmapped */
    double *geo_points;
    uint32_t geo_npoints;
    double geo_unit_m;
    bool geo_plane, geo_ignore_unmapped;
    int geo_validation; /* 0 coerce, 1 ignore_malformed, 2 strict */
    /* _shard_doc (kind TV_SORT_DOC): the value is (shard index << 32) |
     * the shard-wide doc id (ShardDocSortField) */
    bool shard_doc;
    /* _script (ScriptSortBuilder): the script and its type (string, else number) */
    const tv_json *script;
    bool script_string;
} tv_sort_spec;

/* The "sort" value (a name, an object, or an array of those) into *out
 * (arena, *n keys), with OpenSearch's parse errors. */
tv_status tv_sort_parse(tv_dsl *d, const tv_json *v, tv_sort_spec **out, size_t *n);

/* =========================================================== hit sort */

/* A sort of top_hits or inner_hits (hit_sort.c): keys are _score (field
 * NULL) or a field's doc value. */
#define TV_HIT_SORT_MAX 4
typedef struct tv_hit_sort_key {
    const char *field; /* NULL: _score */
    bool desc;
} tv_hit_sort_key;
typedef struct tv_hit_sort {
    tv_hit_sort_key *keys; /* none: _score descending */
    uint32_t n;
} tv_hit_sort;

/* A hit of top_hits or inner_hits: where its doc is, its score, and its
 * sort keys' values. */
typedef struct tv_hit {
    float score;
    const struct tv_search_target *t;
    uint32_t seg, doc;
    int64_t sv[TV_HIT_SORT_MAX];
    const char *ss[TV_HIT_SORT_MAX];
    uint32_t sl[TV_HIT_SORT_MAX];
    uint8_t sk[TV_HIT_SORT_MAX]; /* 0 missing, 1 number, 2 bytes */
} tv_hit;

/* The "sort" value of top_hits or inner_hits (what names the option in
 * errors) into *out (arena). */
tv_status tv_hit_sort_parse(tv_dsl *d, const tv_json *sort, const char *what, tv_hit_sort *out);
/* <0 when x ranks before y: the keys (missing values last), then
 * target, segment and doc. */
int tv_hit_cmp(const tv_hit_sort *s, const tv_hit *x, const tv_hit *y);
/* Each key's value of segment seg's doc into h (f: the keys' fields, NULL
 * for _score or unmapped): the smallest value ascending, the largest
 * descending. TROVE_ENOMEM only. */
tv_status tv_hit_sort_keys(const tv_hit_sort *s, const tv_field *const *f, const tv_segment *seg, uint32_t doc,
                           tv_arena *arena, tv_hit *h);
/* The hit's "sort" key and array as SearchHit prints it. */
void tv_hit_write_sort(tv_jw *w, const tv_hit_sort *s, const tv_field *const *fields, const tv_hit *h);

/* ===================================================== source, versions */

/* Writes a stored _source (the value, not the key) with includes and
 * excludes applied (source.c); unfiltered when both are empty or the
 * source does not parse. */
void tv_fetch_write_source(tv_jw *w, tv_arena *a, const char *src, size_t len, const char **inc, size_t ninc,
                           const char **exc, size_t nexc);
/* A hit's "_version" and "_seq_no"/"_primary_term" members, as asked. */
void tv_hit_write_versions(tv_jw *w, const tv_doc_meta *m, bool version, bool seq_no);
/* An exact "total" member of a hits object: {"value":n,"relation":"eq"},
 * or n itself when as_int (rest_total_hits_as_int). */
void tv_fetch_write_total(tv_jw *w, uint64_t n, bool as_int);

/* ============================================================= fields */

/* One entry of the body's "fields" (fields.c). */
typedef struct tv_fetch_spec {
    const char *pattern;   /* a field name or a wildcard pattern */
    const char *format;    /* dates: the format to print with (NULL: the field's) */
    bool include_unmapped;
} tv_fetch_spec;

/* One field of a hit: its name and its values as a rendered JSON array. */
typedef struct tv_fetched {
    const char *name;
    const char *json;
    size_t len;
} tv_fetched;

tv_status tv_fetch_fields_parse(tv_dsl *d, const tv_json *v, tv_fetch_spec **out, size_t *n);
/* The requested fields of one hit from its _source, in request order
 * (each field once); everything in arena. TROVE_EUNSUPPORTED (err set) for
 * a field type whose values trove cannot fetch. */
tv_status tv_fetch_fields(tv_arena *a, const tv_mapping *m, const tv_fetch_spec *specs, size_t nspecs, const char *id,
                          size_t id_len, const char *src, size_t src_len, tv_fetched **out, size_t *nout,
                          tv_error *err);

/* A "docvalue_fields" list (strings, or {"field", "format"}) into names
 * and formats (NULL: the field's own; "use_field_mapping" is that too),
 * in the parser's arena (docvalue.c). */
tv_status tv_fetch_docvalues_parse(tv_dsl *d, const tv_json *v, const char ***names, const char ***formats, size_t *n);
/* One hit's docvalue_fields (docvalue.c): each of names[0..nnames) that
 * the mapping maps and the doc has values of, printed with formats[k]
 * (NULL, or formats NULL: the field's own), appended to df at *ndf, or
 * to the values of the entry df already holds for the name. The metadata
 * fields _seq_no, _version and _primary_term come from meta (NULL: none),
 * as a nested doc holds them (nested: its root's _seq_no, _version 1, no
 * _primary_term). fb is the caller's scratch buffer; a rendered value
 * lives in arena. */
void tv_fetch_docvalues(tv_arena *arena, const tv_mapping *m, const tv_segment *seg, uint32_t doc, const char *const *names,
                        const char *const *formats, size_t nnames, const tv_doc_meta *meta, bool nested, tv_fetched *df,
                        size_t *ndf, tv_buf *fb);
/* A hit's "fields" member from its document fields df[0..n) (none: not
 * written), in the HashMap order SearchHit prints them; nonzero out of
 * memory. */
tv_status tv_fetch_write_fields(tv_jw *w, const tv_fetched *df, size_t n, tv_arena *a);

/* ========================================================== inner hits */

/* What the nested query's parser calls for its "inner_hits"
 * (tv_dsl.inner_hits): the searches that fetch hits set it. */
extern const tv_inner_hits_ops tv_fetch_inner_hits;

/* The nested identity of a nested doc (FetchPhase's NestedIdentity): the
 * root doc of its block and, from the outermost nested object in, each
 * level's path (rel: below the level above, the whole path for the
 * outermost) and offset among that parent's objects of the path.
 * TROVE_EINTERNAL for a root doc or a block the mapping does not explain.
 * _write writes "_nested": {...} (each level's inside the one above);
 * _source is the doc's object within the root's parsed source (NULL when
 * absent). */
#define TV_NESTED_MAX_LEVELS 24
typedef struct tv_nested_ident {
    uint32_t root;
    uint32_t n;
    struct {
        const char *rel;
        uint32_t offset;
    } level[TV_NESTED_MAX_LEVELS];
} tv_nested_ident;
tv_status tv_nested_identity(const tv_mapping *m, const tv_segment *seg, uint32_t doc, tv_nested_ident *out);
void tv_nested_ident_write(tv_jw *w, const tv_nested_ident *id);
const tv_json *tv_nested_ident_source(const tv_nested_ident *id, const tv_json *root_src);
/* Writes a nested hit's "_source": obj, or (with includes / excludes)
 * obj filtered as FetchSourcePhase filters a nested hit (the patterns
 * apply to obj wrapped in its paths, full paths from the root); {} when
 * the filter leaves no object. */
tv_status tv_nested_write_source(tv_jw *w, tv_arena *a, const tv_nested_ident *id, const tv_json *obj, const char **inc,
                                 size_t ninc, const char **exc, size_t nexc);

/* The inner hits of the nested queries of one target's query (defs: the
 * target parse's tv_dsl.nested_ih). _bind binds their highlight to target
 * t (d->mapping is t's), as tv_hl_bind binds the search's. _collect runs
 * them over the page's hits of the target at once (m hits: page index,
 * segment and root doc of each; npage the page's size); _write then
 * writes the members of page hit `page`'s "inner_hits" object. */
tv_status tv_inner_hits_bind(tv_dsl *d, const struct tv_search_target *t, tv_nested_q *const *defs, uint32_t n);
tv_status tv_inner_hits_collect(tv_nested_q *const *defs, uint32_t n, const tv_snapshot *snap, uint32_t npage,
                                const uint32_t *page, const uint32_t *segs, const uint32_t *docs, uint32_t m, tv_arena *a,
                                tv_error *err);
tv_status tv_inner_hits_write(tv_nested_q *const *defs, uint32_t n, const tv_snapshot *snap, uint32_t seg, uint32_t doc,
                              uint32_t page, const char *index, tv_arena *a, tv_jw *out, tv_error *err);

#endif /* TROVE_FETCH_H */
