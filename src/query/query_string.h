/*
 * query_string.h — pieces shared by query_string.c and
 * simple_query_string.c (private to src/query/).
 *
 * Both parsers turn a user's query text into the same AST (query.h). What
 * they share is OpenSearch's per-field machinery around Lucene's parsers:
 * field lists with boosts and wildcards (QueryParserHelper), the analysis
 * of a piece of text into a term / bool / phrase per field and the
 * dis_max over fields (MultiMatchQuery + Lucene's QueryBuilder), the
 * term-level pieces (prefix, wildcard, regexp, fuzzy, range, exists) per
 * field, leniency, and the debug printer. Everything is allocated in the
 * dsl arena; nothing here needs freeing.
 *
 * "Null query": several builders may produce no query at all (the text
 * analyzed to nothing); they then return TROVE_OK with *out == NULL, as
 * Lucene returns null, and callers drop the clause.
 */
#ifndef TROVE_QUERY_QUERY_STRING_H
#define TROVE_QUERY_QUERY_STRING_H

#include "query/parse.h"

typedef struct tv_qs_field {
    const tv_field *f;
    float boost;
} tv_qs_field;

typedef struct tv_qs_fields {
    tv_qs_field *items;
    uint32_t n, cap;
} tv_qs_fields;

/* MultiMatchQueryBuilder.Type as query_string uses it. */
typedef enum tv_qs_type {
    TV_QS_BEST_FIELDS = 0,
    TV_QS_MOST_FIELDS,
    TV_QS_PHRASE,
    TV_QS_PHRASE_PREFIX,
} tv_qs_type;

/* MatchQuery.Type of one field's text query. */
typedef enum tv_qs_mtype { TV_QS_M_BOOLEAN = 0, TV_QS_M_PHRASE, TV_QS_M_PHRASE_PREFIX } tv_qs_mtype;

/* Settings of one parse (query_string or simple_query_string). */
typedef struct tv_qs_ctx {
    tv_dsl *d;
    const char *qname;   /* "query_string" / "simple_query_string" (errors) */
    uint32_t off;        /* JSON offset of the query text, for errors */
    bool and_op;         /* default_operator AND */
    bool lenient;
    const tv_analyzer *analyzer;       /* forced analyzer (NULL: per field) */
    const tv_analyzer *quote_analyzer; /* forced quote analyzer */
    const char *quote_suffix;          /* quote_field_suffix (NULL: none) */
    size_t quote_suffix_len;
    tv_qs_type type;
    float tie;           /* dis_max tie_breaker */
    uint32_t phrase_slop;
    const char *fuzziness; /* spec ("AUTO", "1", ...) */
    size_t fuzziness_len;
    int64_t fuzzy_prefix;
    int64_t fuzzy_max_exp;
    bool fuzzy_transpositions;
    bool analyze_wildcard;
    bool allow_leading_wildcard;
    int max_states;
    const char *time_zone; /* NULL: UTC */
    size_t time_zone_len;
} tv_qs_ctx;

void tv_qs_ctx_init(tv_qs_ctx *c, tv_dsl *d, const char *qname);

/* OpenSearch's QueryParserHelper.resolveMappingField: appends the fields a
 * name or a simple wildcard pattern ("*", "title*") names, with weight
 * `boost` (duplicates multiply). suffix (may be NULL): when field+suffix
 * is mapped it replaces field. Objects and unmapped names add nothing. */
tv_status tv_qs_add_fields(tv_qs_ctx *c, tv_qs_fields *out, const char *name, size_t len,
                           float boost, const char *suffix, size_t suffix_len);
/* Parses "name^boost" entries of a JSON array and resolves them. */
tv_status tv_qs_fields_from_json(tv_qs_ctx *c, const tv_json *arr, tv_qs_fields *out, bool *all);

/* The per-field text query: MultiMatchQuery.parse(type, fields, text) —
 * analysis per field (term / bool with the default operator / phrase with
 * slop), field boosts, dis_max with c->tie over fields. *out NULL when
 * nothing is left after analysis; MATCH_NONE when no field is mapped. */
tv_status tv_qs_text_query(tv_qs_ctx *c, const tv_qs_fields *fs, const char *text, size_t len,
                           tv_qs_mtype mtype, uint32_t slop, float tie, tv_query **out);

/* Per-field multi-term queries over a field list, combined by dis_max
 * (tie). These apply leniency (c->lenient) per field. */
tv_status tv_qs_prefix_query(tv_qs_ctx *c, const tv_qs_fields *fs, const char *text, size_t len,
                             float tie, tv_query **out);
tv_status tv_qs_fuzzy_query(tv_qs_ctx *c, const tv_qs_fields *fs, const char *text, size_t len,
                            int edits, float tie, tv_query **out);

/* Field analysis normalization (Analyzer.normalize): keyword normalizers,
 * lower-casing for text fields whose analyzer lower-cases. */
tv_status tv_qs_normalize(tv_qs_ctx *c, const tv_field *f, const tv_analyzer *forced,
                          const char *s, size_t n, const char **out, size_t *out_len);

/* A BOOL node from clause lists (arena copies). */
tv_query *tv_qs_bool(tv_dsl *d, tv_query **must, uint32_t nmust, tv_query **should,
                     uint32_t nshould, tv_query **must_not, uint32_t nmust_not);

/* Queries.maybeApplyMinimumShouldMatch on q (a BOOL): resolves spec for
 * its optional clauses. */
tv_status tv_qs_apply_msm(tv_qs_ctx *c, tv_query *q, const tv_json *spec);

/* Wraps a non-query_shard error (number format, date parse, ...) as
 * OpenSearch's QueryShardContext does: "failed to create query: <msg>"
 * caused by the original. */
tv_status tv_qs_wrap_error(tv_qs_ctx *c, tv_status st);

/* The index analyzer named by a JSON value, or an error naming it. */
tv_status tv_qs_analyzer(tv_qs_ctx *c, const char *param, const tv_json *v, const tv_analyzer **out);

/* The AST as text, in the style of Lucene's Query.toString
 * ("+title:foo -title:bar body:baz", "(a | b)~0.3", "title:\"a b\"~2",
 * "(x)^2.0"). A bool prints its clauses must, filter, should, must_not.
 * Returns a string in the arena (NULL on OOM). For tests and debugging. */
char *tv_query_debug_string(const tv_query *q, tv_arena *arena);

#endif /* TROVE_QUERY_QUERY_STRING_H */
