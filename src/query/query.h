/*
 * query.h — the query layer: the query DSL parsed into an AST, planned per
 * segment into scoring iterators, explained and printed as Lucene does.
 * The layers above (fetch, aggs, search) include it; the api reaches it
 * only through search.h.
 *
 * Three pieces:
 *
 *   1. The query AST (tv_query): what the DSL parser (dsl.c) and the
 *      query_string / simple_query_string / automaton parsers produce. It is
 *      allocated in the request arena, built against ONE target's mapping
 *      (field lookups and text analysis happen while parsing, once), and is
 *      read-only during execution except for the per-target statistics that
 *      tv_query_prepare() stores in leaves (BM25 weights).
 *
 *   2. The iterator interface (tv_iter): the AST is planned per segment
 *      (exec.c, tv_plan) into a tree of doc iterators with a small vtable:
 *      next / advance / score / shallow_advance + max_score (block-max),
 *      cost. Iterators live in the request arena; nothing is malloc'ed per
 *      document.
 *
 *   3. BM25 (bm25.c): Lucene 10's BM25Similarity in its exact float order.
 *
 * Files:
 *   dsl.c                   the DSL parser: JSON query objects -> tv_query,
 *                           the k_query_parsers table, and bool
 *   dsl_leaf.c              the parsers other than bool: full-text (match,
 *                           match_phrase(_prefix), multi_match), term-level
 *                           (term, terms, prefix, range, exists, ids),
 *                           compound (constant_score, dis_max, boosting),
 *                           and the per-field-type conversion of values
 *   dsl_nested.c            the nested query (ToParentBlockJoinQuery)
 *   dsl_synonym.c           SynonymQuery, and the queries match and
 *                           match_phrase build over stacked tokens and
 *                           token graphs (QueryBuilder's graph analysis)
 *   dsl_distance.c          the distance_feature query (date, date_nanos,
 *                           geo_point)
 *   dsl_geo.c               the geo_shape query (an envelope on a
 *                           geo_point field) and geo_bounding_box
 *   dsl_geo_distance.c      geo distances (Lucene's SloppyMath haversine,
 *                           the plane distance, DistanceUnit) and the
 *                           geo_distance query
 *   roaring.c               the portable RoaringBitmap decoder and the
 *                           terms query's value_type bitmap
 *   dsl_range_field.c       term and range queries (with `relation`) on
 *                           range fields (integer_range ... ip_range)
 *   dsl_script.c            the script and script_score queries, and the
 *                           iterator replaying pre-scored matches
 *                           (tv_iter_replay, function_score's too)
 *   qscript.c               Painless in searches: Script.parse, the per-request
 *                           compiled scripts, the doc accessor over doc values,
 *                           runs per document and their failures
 *   dsl_function_score.c    the function_score query (weight,
 *                           field_value_factor, decays, random_score)
 *   query_string.c          the query_string query, URI search (?q=), the
 *                           per-field machinery shared with
 *                           simple_query_string (query_string.h), and a
 *                           debug printer of the AST
 *   simple_query_string.c   the simple_query_string query (Lucene's
 *                           SimpleQueryParser)
 *   regexp.c                the wildcard, regexp and fuzzy queries
 *   automaton.c             regexp, wildcard, prefix and Levenshtein
 *                           automata, determinized for term matching
 *   rewrite.c               Lucene's query rewriting (IndexSearcher.rewrite)
 *                           over the AST, between parsing and statistics
 *   exec.c                  statistics (tv_query_prepare) and per-segment
 *                           planning into doc iterators (tv_plan), with
 *                           Lucene's scoring combinations and top-k pruning
 *   bm25.c                  BM25Similarity, bit for bit
 *   explain.c               Lucene's score explanation of one document
 *                           (a hit's _explanation, the _explain API)
 *   to_string.c             the AST as Lucene's Query.toString() prints it
 *                           (the explanation of _validate/query)
 *   profile.c               the Profile API's query tree (Lucene class
 *                           names and strings) and its timers: a
 *                           profiling iterator around each profiled node
 *
 * ------------------------------------------------------------------------
 * HOW TO ADD A QUERY KIND (for query_string.c, automaton.c, ...)
 *
 *   a) Parser: write `tv_status tv_dsl_parse_<name>(tv_dsl *d, const tv_json
 *      *body, tv_query **out)` in your own file, declare it below in the
 *      "extension parsers" block, and add one line to the table
 *      `k_query_parsers` in dsl.c ({"<name>", tv_dsl_parse_<name>}). Use the
 *      helpers declared here: tv_dsl_error() for OpenSearch's
 *      parsing_exception with [line:col], tv_dsl_field() to resolve a field,
 *      tv_dsl_analyze() to analyze query text, the tv_q_* constructors to
 *      build nodes. Your parser may return any existing node kind (a
 *      query_string usually becomes TV_Q_BOOL / TV_Q_TERM / TV_Q_PHRASE /
 *      TV_Q_MULTI_TERM trees).
 *
 *   b) Term-enumerating queries (wildcard, regexp, prefix, fuzzy): build a
 *      TV_Q_MULTI_TERM node with a tv_term_matcher (an accept callback over
 *      term bytes, plus an optional literal prefix used to seek the term
 *      dictionary). The planner enumerates each segment's terms, keeps the
 *      accepted ones, and runs them as a constant-score union (Lucene's
 *      CONSTANT_SCORE_BLENDED_REWRITE, OpenSearch's default). No edit of
 *      exec.c is needed.
 *
 *   c) Anything else (a scored fuzzy rewrite, span queries, ...): a
 *      TV_Q_EXT node carries a tv_query_ext vtable: prepare (collect
 *      statistics over the snapshot) and plan (build a tv_iter for a
 *      segment). Implement tv_iter_vt for your iterator; exec.c calls the
 *      hooks and never needs to know the kind.
 * ------------------------------------------------------------------------
 */
#ifndef TROVE_QUERY_QUERY_H
#define TROVE_QUERY_QUERY_H

#include "index/index.h"
#include "json/json.h"
#include "query/request.h"
#include "util/util.h"

/* ================================================================= BM25 */

#define TV_BM25_K1 1.2f
#define TV_BM25_B 0.75f

/*
 * A BM25 scorer for one term (or one phrase) in one target: Lucene's
 * BM25Similarity.BM25Scorer. weight = boost * idf (float); cache[n] =
 * 1 / (k1 * ((1 - b) + b * LENGTH_TABLE[n] / avgdl)) for each norm byte n.
 * score(freq, norm) = weight - weight / (1 + freq * cache[norm]).
 */
typedef struct tv_bm25 {
    float weight;
    float idf;
    float avgdl;
    float cache[256];
} tv_bm25;

/* Lucene's idf: (float) log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)). */
float tv_bm25_idf(uint64_t doc_freq, uint64_t doc_count);
/* avgdl = (float) (sumTotalTermFreq / (double) docCount). */
float tv_bm25_avgdl(uint64_t sum_total_term_freq, uint64_t doc_count);
/* Fills a scorer from a boost, an idf (already summed for phrases) and the
 * field's statistics. */
void tv_bm25_init(tv_bm25 *s, float boost, float idf, uint64_t sum_total_term_freq,
                  uint64_t doc_count);
static inline float tv_bm25_score(const tv_bm25 *s, float freq, uint8_t norm) {
    float ni = s->cache[norm];
    return s->weight - s->weight / (1.0f + freq * ni);
}

/* ================================================================== AST */

typedef enum tv_qkind {
    TV_Q_MATCH_ALL = 0, /* score = boost */
    TV_Q_MATCH_NONE,
    TV_Q_TERM,       /* one term of one field: BM25 (or constant when .constant) */
    TV_Q_PHRASE,     /* terms at relative positions, slop; BM25 on the phrase freq */
    TV_Q_BOOL,       /* must / should / must_not / filter, minimum_should_match */
    TV_Q_DISMAX,     /* max + tie_breaker * others */
    TV_Q_CONST,      /* constant_score(filter): score = boost */
    TV_Q_BOOSTING,   /* positive, scaled by negative_boost where negative matches */
    TV_Q_TERM_SET,   /* terms / ids / keyword term lists: constant-score union */
    TV_Q_MULTI_TERM, /* prefix, wildcard, regexp ...: terms accepted by a matcher */
    TV_Q_RANGE_NUM,  /* points range over sortable int64 [lo, hi] */
    TV_Q_RANGE_TERM, /* keyword range over term bytes */
    TV_Q_EXISTS,     /* docs with any value in field */
    TV_Q_PHRASE_PREFIX, /* phrase whose last term is a prefix (max_expansions) */
    TV_Q_EXT,        /* an extension: see tv_query_ext */
} tv_qkind;

typedef struct tv_query tv_query;
typedef struct tv_iter tv_iter;
struct tv_plan_ctx;

/* A term of a phrase: bytes and its position offset in the phrase. */
typedef struct tv_qterm {
    const char *term;
    uint32_t len;
    uint32_t pos;
} tv_qterm;

/* Accepts or rejects a term (automaton queries). `prefix` (may be NULL) is
 * a literal every accepted term starts with: the planner seeks there and
 * stops enumerating past it. */
typedef struct tv_term_matcher {
    bool (*accept)(const void *state, const char *term, size_t len);
    const void *state;
    const char *prefix;
    uint32_t prefix_len;
    uint32_t max_terms; /* 0: unlimited (else stop after, e.g. max_expansions) */
    bool exact;         /* the term must equal prefix (not just start with it) */
    bool case_insensitive; /* compare with prefix ASCII-case-insensitively;
                              prefix is then lower-case and no seek is done */
    /* The automaton behind accept, when there is one: the planner then runs
     * it itself and, when a term dies at some prefix, seeks past every term
     * with that prefix (Lucene's AutomatonTermsEnum does the same). */
    const struct tv_automaton *automaton;
} tv_term_matcher;

/* Extension hooks (TV_Q_EXT). */
typedef struct tv_query_ext {
    /* Gathers statistics over the snapshot (may be NULL). Called once per
     * target before planning, with the accumulated boost. */
    tv_status (*prepare)(tv_query *q, const tv_snapshot *snap, float boost, tv_arena *arena);
    /* Builds the iterator for one segment; *out NULL means no match. */
    tv_status (*plan)(tv_query *q, const tv_segview *sv, struct tv_plan_ctx *ctx, tv_iter **out);
    void *state;
} tv_query_ext;

/* tv_query.flags: what the OpenSearch builder that produced a node was, for
 * BoolQueryBuilder's rewrites (dsl.c). */
#define TV_QF_SCORE_IRRELEVANT 1u /* range, or term/terms/match on a numeric
                                     field: a MUST clause moves to FILTER */
#define TV_QF_RANGE 2u            /* produced by the range query */

struct tv_query {
    uint8_t kind;      /* tv_qkind */
    uint8_t flags;     /* TV_QF_* */
    uint8_t ncomplement; /* range on a points field: number of complement */
    struct tv_query *complement[2]; /* ranges (below, above) for
                                       rewriteMustNotRangeClausesToShould */
    float boost;       /* this node's boost (1.0 = none) */
    const tv_field *field; /* leaf kinds: the field (never NULL for leaves
                              that match anything; unmapped fields parse to
                              TV_Q_MATCH_NONE) */
    uint32_t field_id; /* field->id, or TV_FIELD_ID for _id */
    /* The DSL query whose parser returned this node (tv_dsl_parse_query
     * sets it: "match", "term", ...) and that query's JSON body; NULL for
     * nodes a parser built inside its own result. Read by to_string.c to
     * print the node as OpenSearch's Lucene query prints. */
    const char *origin;
    const tv_json *origin_src;
    float score_boost; /* set by tv_query_prepare: the product of the boosts
                          from the root down to this node (Lucene's boost
                          argument of createWeight); constant scores use it */
    union {
        struct {           /* TV_Q_TERM */
            const char *term;
            uint32_t len;
            bool constant;    /* constant score (points, case_insensitive ...) */
            tv_bm25 *sim;     /* set by prepare (NULL: term absent everywhere) */
            /* set by prepare, which looks the term up in every segment of
             * snap for its statistics: the states found (found[i] says
             * whether segment i has the term), so the plan and the total
             * count need no second lookup */
            const tv_snapshot *snap;
            tv_term_state *states;
            uint8_t *found;
        } term;
        struct {           /* TV_Q_PHRASE, TV_Q_PHRASE_PREFIX */
            tv_qterm *terms;
            uint32_t nterms;
            uint32_t slop;
            uint32_t max_expansions; /* phrase_prefix */
            tv_bm25 *sim;
        } phrase;
        struct {           /* TV_Q_BOOL */
            tv_query **must, **should, **must_not, **filter;
            uint32_t nmust, nshould, nmust_not, nfilter;
            int32_t msm;        /* resolved minimum_should_match (0 = none) */
        } boolq;
        struct {           /* TV_Q_DISMAX */
            tv_query **subs;
            uint32_t nsubs;
            float tie_breaker;
        } dismax;
        struct {           /* TV_Q_CONST */
            tv_query *inner;
        } cnst;
        struct {           /* TV_Q_BOOSTING */
            tv_query *positive, *negative;
            float negative_boost;
        } boosting;
        struct {           /* TV_Q_TERM_SET */
            tv_qterm *terms; /* sorted, deduplicated (pos unused) */
            uint32_t nterms;
        } set;
        struct {           /* TV_Q_MULTI_TERM */
            tv_term_matcher m;
        } multi;
        struct {           /* TV_Q_RANGE_NUM (inclusive bounds, sortable) */
            int64_t lo, hi;
        } nrange;
        struct {           /* TV_Q_RANGE_TERM (NULL bound = open) */
            const char *lo, *hi;
            uint32_t lo_len, hi_len;
            bool lo_incl, hi_incl;
        } trange;
        tv_query_ext ext;  /* TV_Q_EXT */
    } u;
};

/* ------------------------------------------------------------- the parser */

/* Parser state for one target: mapping, arena, the body's source text (for
 * [line:col] in errors), and the error being filled. */
typedef struct tv_dsl {
    const tv_mapping *mapping;
    tv_arena *arena;
    const char *src; /* body text (may be NULL: line/col then stay 0) */
    size_t src_len;
    tv_error *err;
    int depth;       /* nesting guard */
    bool filter_ctx; /* inside a filter clause (informational: OpenSearch 3
                        gives filter-context bools no special msm) */
    /* The target's snapshot (may be NULL): BoolQueryBuilder's
     * rewriteMustNotRangeClausesToShould looks at every segment's values. */
    const tv_snapshot *snap;
    const char *index; /* the target index's name (may be NULL): shard failures name it */
    /* nested queries (dsl_nested.c): the enclosing nested query's path
     * while its inner query parses (NULL: the root), and the nested
     * queries with inner_hits seen so far, in parse order */
    const tv_field *nested_scope;
    struct tv_nested_q *nested_q; /* the enclosing nested query (NULL: none) */
    const struct tv_inner_hits_ops *inner_hits; /* NULL: inner_hits refused */
    struct tv_nested_q **nested_ih;
    uint32_t nnested_ih;
    int nested_aggs; /* nested aggregations enclosing the one being bound (collect.c) */
    /* The first boost Lucene's BoostQuery would refuse (negative, -0.0,
     * NaN, infinite) seen while the current top-level query parses: the
     * shard failure is raised once the whole query parsed, as toQuery
     * runs after parsing in OpenSearch. */
    bool bad_boost_seen;
    float bad_boost;
    int64_t max_inner_window; /* the target's index.max_inner_result_window (0: 100) */
    int64_t max_clauses;      /* indices.query.bool.max_clause_count (0: 1024) */
    int64_t max_terms;        /* the target's index.max_terms_count (0: 65536) */
    bool total_as_int;        /* ?rest_total_hits_as_int: every hits.total (inner
                                 hits, top_hits) is a number, as SearchHits writes it */
    bool disallow_expensive;  /* search.allow_expensive_queries is false */
    tv_terms_lookup_fn lookup; /* terms lookups (request.h; NULL: refused) */
    const void *lookup_ctx;
    /* Named queries ("_name"), as QueryShardContext.addNamedQuery keeps
     * them: each one parsed a second time into a tree of its own (so it
     * can be rewritten and prepared alone, boost 1 at its root, as
     * MatchedQueriesPhase weighs it); a later one of the same name
     * replaces the earlier. named_off: while that second parse runs. */
    struct tv_named_q *named;
    uint32_t nnamed, cnamed;
    bool named_off;
    struct tv_qscripts *scripts; /* the request's scripts (NULL: scripts refused) */
} tv_dsl;

/* One named query: its name and its own tree. */
typedef struct tv_named_q {
    const char *name;
    tv_query *q;
} tv_named_q;

/* A parser state over arena and err, with the body's text from params
 * (may be NULL) for [line:col] in errors; no mapping yet. */
void tv_dsl_init(tv_dsl *d, tv_arena *arena, tv_error *err, const tv_search_params *params);
/* Parses a query object ({"match":{...}}) into *out. */
tv_status tv_dsl_parse_query(tv_dsl *d, const tv_json *q, tv_query **out);
/* A filter of the documents on the shards pick keeps (a routed search):
 * each live document's stored _id and _routing read once per segment. NULL
 * out of memory. */
tv_query *tv_q_shard_pick(tv_dsl *d, const tv_shard_pick *pick);

/* parsing_exception (or other code) at a JSON value's position. */
tv_status tv_dsl_error(tv_dsl *d, tv_status code, uint32_t off, const char *fmt, ...)
    TV_PRINTF(4, 5);
/* When search.allow_expensive_queries is false: the OpenSearchException
 * the field type or query raises on the shard ("<what> cannot be executed
 * when 'search.allow_expensive_queries' is set to false.<tail>"), a shard
 * failure of type "exception"; else TROVE_OK. what: "[prefix] queries",
 * "[joining] queries", ...; tail "" or a hint. */
tv_status tv_dsl_expensive(tv_dsl *d, const char *what, const char *tail);
/* Field lookup (NULL when unmapped). */
const tv_field *tv_dsl_field(tv_dsl *d, const char *name, size_t len);
/* Analyzes query text with an analyzer (NULL: the field's search analyzer,
 * or the keyword normalizer for keyword fields). */
tv_status tv_dsl_analyze(tv_dsl *d, const tv_field *f, const tv_analyzer *an, const char *text,
                         size_t len, tv_tokens *out);

/* Node constructors (arena; NULL on OOM). */
tv_query *tv_q_new(tv_dsl *d, tv_qkind kind);
tv_query *tv_q_term(tv_dsl *d, const tv_field *f, const char *term, size_t len);

/* OpenSearch's Queries.calculateMinShouldMatch: resolves a spec ("2",
 * "-1", "75%", "3<90%", "2<-25% 9<-3") for n optional clauses. Returns
 * false on a malformed spec. */
bool tv_min_should_match(int32_t n, const char *spec, size_t len, int32_t *out);

/* ---- extension parsers (defined in their own files; see the table in
 * dsl.c). Declare new ones here. */
/* dsl_range_field.c: the range (from, to: NULL for an open end) and term
 * ([v, v], intersects) queries on a range field (f->type TV_FT_RANGE):
 * a constant-score query over the field's stored ranges in relation rel
 * to the query's; fmt (NULL: the field's) and tz read date_range bounds. */
tv_status tv_dsl_range_field_query(tv_dsl *d, const tv_field *f, const tv_json *from, bool incl_lo,
                                   const tv_json *to, bool incl_hi, tv_range_rel rel, const char *fmt, int32_t tz,
                                   tv_query **out);
/* regexp.c: term-pattern queries */
tv_status tv_dsl_parse_wildcard(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_regexp(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_fuzzy(tv_dsl *d, const tv_json *body, tv_query **out);
/* A FuzzyQuery of one term (already analyzed or normalized) on a text or
 * keyword field f: Lucene's default scoring rewrite over max_expansions
 * terms, or a constant-score union when constant (fuzzy_rewrite
 * constant_score). Errors of the automaton are left in d->err. */
tv_status tv_q_fuzzy_build(tv_dsl *d, const tv_field *f, const char *s, size_t n, int edits,
                           int64_t prefix_length, uint32_t max_expansions, bool transpositions,
                           bool constant, tv_query **out);
/* query_string.c, simple_query_string.c: Lucene query syntaxes; URI
 * search's ?q= as a {"query_string":{...}} object (*out NULL without q) */
tv_status tv_dsl_parse_query_string(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_simple_query_string(tv_dsl *d, const tv_json *body, tv_query **out);
/* dsl_nested.c: the nested query. Its inner_hits are the fetch layer's
 * (fetch/inner_hits.c): the parser reaches them through d->inner_hits,
 * keeps each nested query with inner_hits in d->nested_ih (or, inside
 * another one that has inner_hits, in that one's kids), and the fetch
 * phase collects and writes them from there. */
typedef struct tv_inner_hits tv_inner_hits; /* the options: fetch/inner_hits.c */
typedef struct tv_nested_q {
    tv_query *inner;
    float inner_boost0;    /* the inner query's own boost */
    const tv_field *path;  /* the nested object */
    const tv_field *scope; /* the enclosing nested query's path (NULL: root) */
    int mode;              /* score_mode (dsl_nested.c) */
    tv_inner_hits *ih;     /* NULL: no inner_hits */
    const char *ih_key;    /* the inner_hits' name, else the path */
    bool ih_prepared;      /* the inner query's weights are the inner hits'
                              (boost 1); a prepare of the query clears it */
    /* nested queries with inner_hits inside this one's inner query (when
     * this one has inner_hits: they nest inside each of its hits) */
    struct tv_nested_q **kids;
    uint32_t nkids;
} tv_nested_q;
/* How the parser reaches the fetch layer's inner_hits (tv_dsl.inner_hits;
 * NULL: inner_hits answer unsupported_operation_exception). */
typedef struct tv_inner_hits_ops {
    /* InnerHitBuilder: the "inner_hits" object into *out (arena), and its
     * "name" (NULL: none given). */
    tv_status (*parse)(tv_dsl *d, const tv_json *v, tv_inner_hits **out, const char **name);
    /* After the inner query parsed against the target: the shard-side
     * checks (index.max_inner_result_window, the sort's fields). */
    tv_status (*check)(tv_dsl *d, tv_nested_q *nq);
} tv_inner_hits_ops;
tv_status tv_dsl_parse_nested(tv_dsl *d, const tv_json *body, tv_query **out);
/* The docs of nested object `path` in a segment, and a nested scope's
 * parent docs (scope NULL: the roots); bitsets the segment keeps
 * (borrowed, read-only), NULL when it has none (*oom set when out of
 * memory). */
const uint64_t *tv_nested_path_bits(const tv_segment *seg, const tv_field *path, bool *oom);
const uint64_t *tv_nested_parent_bits(const tv_segment *seg, const tv_field *scope, bool *oom);
/* dsl_function_score.c: function_score */
tv_status tv_dsl_parse_function_score(tv_dsl *d, const tv_json *body, tv_query **out);
/* dsl_script.c */
tv_status tv_dsl_parse_script(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_dsl_parse_script_score(tv_dsl *d, const tv_json *body, tv_query **out);
tv_status tv_query_string_from_params(tv_arena *arena, const tv_search_params *p,
                                      const tv_json **out);

/* roaring.c: a RoaringBitmap in its portable serialization, decoded into
 * arena (the bytes are copied; membership is answered from the copy).
 * TROVE_ECORRUPT for malformed input, TROVE_ENOMEM. */
typedef struct tv_roaring tv_roaring;
tv_status tv_roaring_decode(const void *bytes, size_t len, tv_arena *arena, tv_roaring **out);
bool tv_roaring_contains(const tv_roaring *r, uint32_t v);

/* =============================================================== iterators */

/* What tv_iter_count may use: scratch memory for bitsets, and the
 * segment's max_doc. */
typedef struct tv_count_ctx {
    tv_arena *arena;
    uint32_t max_doc;
} tv_count_ctx;

typedef struct tv_iter_vt {
    /* Next matching doc (TV_NO_MORE_DOCS at the end). */
    uint32_t (*next)(tv_iter *it);
    /* First matching doc >= target (target > current doc). */
    uint32_t (*advance)(tv_iter *it, uint32_t target);
    /* Score of the current doc. */
    float (*score)(tv_iter *it);
    /* Block-max (may be NULL: then max_score is it->max_score everywhere):
     * moves block metadata to target's block and returns the last doc of
     * the window it describes; */
    uint32_t (*shallow)(tv_iter *it, uint32_t target);
    /* an upper bound of scores for docs in [current window .. upto]. */
    float (*block_max)(tv_iter *it, uint32_t upto);
    /* Top-k pruning (may be NULL: no pruning). From now on next() may skip
     * any doc whose score is <= min (such a doc cannot enter the top hits:
     * the collector's worst hit has that score and an earlier doc); every
     * doc it returns is positioned exactly as without pruning, so score()
     * is unchanged. Only the root iterator is told; min only grows. */
    void (*set_min_score)(tv_iter *it, float min);
    /* Exact number of matching docs of an iterator not started yet, when
     * it can be had without iterating doc by doc (a bitset's popcount;
     * conjunctions and disjunctions of postings by bitset words); false
     * and nothing moved when not (may be NULL). The caller does not
     * iterate it afterwards. */
    bool (*count)(tv_iter *it, const tv_count_ctx *cx, uint64_t *out);
    /* ORs every doc of an iterator not started yet into words (nbits
     * bits), straight from its postings blocks (may be NULL). The
     * iterator is used up. */
    void (*or_bits)(tv_iter *it, uint64_t *words, uint32_t nbits);
} tv_iter_vt;



struct tv_iter {
    const tv_iter_vt *vt;
    uint32_t doc;     /* current doc; UINT32_MAX-1 (TV_ITER_UNSET) before the first */
    uint64_t cost;    /* estimated number of matches */
    float max_score;  /* upper bound over the whole segment */
};

#define TV_ITER_UNSET (UINT32_MAX - 1)

static inline uint32_t tv_iter_next(tv_iter *it) { return it->vt->next(it); }
static inline uint32_t tv_iter_advance(tv_iter *it, uint32_t t) { return it->vt->advance(it, t); }
static inline float tv_iter_score(tv_iter *it) { return it->vt->score(it); }
/* False when the iterator cannot prune (then nothing changes). */
static inline bool tv_iter_set_min_score(tv_iter *it, float min) {
    if (!it->vt->set_min_score) return false;
    it->vt->set_min_score(it, min);
    return true;
}

/* The exact match count of an iterator not started, when it is known
 * without iterating; false otherwise. */
static inline bool tv_iter_count(tv_iter *it, const tv_count_ctx *cx, uint64_t *out) {
    if (!it->vt->count || it->doc != TV_ITER_UNSET) return false;
    return it->vt->count(it, cx, out);
}

/* A TV_Q_TERM's state in segment sv of snap (the lookup prepare did, when
 * it did one on this snapshot; else a lookup). False: absent. */
bool tv_query_term_state(const tv_query *q, const tv_snapshot *snap, const tv_segview *sv, tv_term_state *out);

typedef struct tv_qprof tv_qprof;
/* What the plan must be able to do. */
typedef struct tv_plan_ctx {
    tv_arena *arena;
    const tv_snapshot *snap;
    bool scores;      /* scores are needed */
    bool impacts;     /* block-max pruning may be used */
    tv_qprof *prof;   /* NULL, or time and wrap the nodes it profiles */
} tv_plan_ctx;

/* A scan of one field's numeric doc values in segment sv (exec.c): each
 * doc with values is offered to test(state, values, n, &score), which says
 * whether it matches and may set its score (score on entry: the iterator's
 * constant `score`). For queries answered from doc values (geo boxes,
 * bitmaps, distance_feature). Allocated in the plan's arena. */
typedef bool (*tv_dv_test)(const void *state, const int64_t *v, uint32_t n, float *score);
tv_status tv_iter_dv_scan(const tv_segview *sv, uint32_t field_id, tv_dv_test test, const void *state, float score,
                          float max_score, tv_arena *arena, tv_iter **out);
/* An iterator replaying n (doc, score) pairs (docs ascending), copied into
 * arena, with max_score and an exact count: how the script_score and
 * function_score plans hand over the matches they scored up front
 * (dsl_script.c). *out NULL when n is 0; TROVE_ENOMEM (err untouched) when
 * the arena fails. */
tv_status tv_iter_replay(const uint32_t *docs, const float *scores, uint32_t n, float max_score, tv_arena *arena,
                         tv_iter **out);

/* Lucene's Query.rewrite loop (IndexSearcher.rewrite) over the AST:
 * BooleanQuery.rewrite's rules that change matching structure or score
 * arithmetic (one-clause bools, match-none clauses, flattening of nested
 * disjunctions, inlining of required bools, SHOULD count versus msm, ...),
 * DisjunctionMaxQuery and ConstantScoreQuery simplifications. Run once per
 * target after parsing, before tv_query_prepare. New nodes are allocated in
 * arena; *q is replaced. (rewrite.c) */
tv_status tv_query_rewrite(tv_query **q, tv_arena *arena);
/* indices.query.bool.max_clause_count (rewrite.c; max <= 0: the default).
 * _bool_: a bool wider than max, as BooleanQuery.Builder refuses it while
 * toQuery runs (query_shard_exception caused by too_many_clauses).
 * _nested_: more than max + 1 leaves in the rewritten tree, as
 * IndexSearcher.rewrite refuses it (too_many_nested_clauses, 500). */
#define TV_MAX_CLAUSE_COUNT 1024
tv_status tv_query_check_bool_clauses(const tv_query *q, int64_t max, tv_error *err);
tv_status tv_query_check_nested_clauses(const tv_query *q, int64_t max, tv_error *err);

/* Gathers statistics (BM25 weights) for a target's snapshot. */
tv_status tv_query_prepare(tv_query *q, const tv_snapshot *snap, tv_arena *arena);
/* Builds a segment's iterator; *out NULL when nothing can match. */
tv_status tv_plan(tv_query *q, const tv_segview *sv, tv_plan_ctx *ctx, tv_iter **out);

/* Iterator building blocks other files may reuse. */
tv_iter *tv_iter_bitset(tv_arena *a, const tv_bitset *bits, uint32_t max_doc, float score);
tv_iter *tv_iter_all(tv_arena *a, uint32_t max_doc, float score);

/* ============================================================ explanations */

/* Lucene's Query.toString() of q, as _validate/query's explanation prints
 * it (to_string.c): *out in arena; TROVE_EUNSUPPORTED (err names the query
 * kind) when trove cannot print it exactly, TROVE_ENOMEM. rewritten: q is
 * tv_query_rewrite's result. */
tv_status tv_query_to_string(const tv_query *q, const tv_mapping *mapping, bool rewritten, tv_arena *arena,
                             const char **out, tv_error *err);
/* One node of a rewritten tree as Lucene prints it where it stands:
 * scoring (a MUST/SHOULD clause or the top) or not (MUST_NOT, FILTER,
 * inside constant_score); depth 0 is the top. TROVE_EUNSUPPORTED with
 * *bad naming the query kind trove cannot print, TROVE_ENOMEM. */
tv_status tv_query_to_string_node(const tv_query *q, const tv_mapping *mapping, bool scoring, int depth,
                                  tv_arena *arena, const char **out, const char **bad);

/* ============================================================== profiling */

/* QueryTimingType, in its declaration order (profile.c). */
typedef enum tv_qtiming {
    TV_QT_CREATE_WEIGHT,
    TV_QT_BUILD_SCORER,
    TV_QT_NEXT_DOC,
    TV_QT_ADVANCE,
    TV_QT_MATCH,
    TV_QT_SCORE,
    TV_QT_SHALLOW_ADVANCE,
    TV_QT_COMPUTE_MAX_SCORE,
    TV_QT_SET_MIN_COMPETITIVE_SCORE,
    TV_QT_COUNT
} tv_qtiming;
const char *tv_qtiming_name(tv_qtiming t); /* "create_weight", ... */

/* One profiled Lucene query: its class name and toString, the measured
 * nanoseconds and calls per timing type, its children. */
typedef struct tv_qprof_node {
    const tv_query *q;          /* the AST node it measures (NULL: inner) */
    const char *type, *description;
    uint64_t ns[TV_QT_COUNT], count[TV_QT_COUNT];
    struct tv_qprof_node **kids;
    uint32_t nkids;
    struct tv_qprof_node *inner; /* a keyword term's TermQuery under its
                                    ConstantScoreQuery (same iterator) */
} tv_qprof_node;

/* A search's profiled query trees (the query, then the post_filter). */
struct tv_qprof {
    tv_qprof_node **roots;
    size_t nroots;
    tv_qprof_node **nodes; /* every node with q set (lookup) */
    size_t nnodes;
};

/* Adds the tree of rewritten query q (request_query: the request's own
 * query, false for the match-all of a request without one) as a new root
 * of prof (zeroed by the caller first). TROVE_EUNSUPPORTED with err set
 * for a query whose Lucene tree trove does not reproduce; arena. */
tv_status tv_qprof_build(const tv_query *q, bool request_query, const tv_mapping *m, tv_arena *a, tv_qprof *prof,
                         tv_error *err);
tv_qprof_node *tv_qprof_find(const tv_qprof *p, const tv_query *q);
/* A node's time_in_nanos: the sum of its timings. */
uint64_t tv_qprof_node_time(const tv_qprof_node *n);
/* A profiling iterator around `in` (exec.c wraps each profiled node's). */
tv_iter *tv_qprof_wrap(tv_qprof_node *n, tv_iter *in, tv_arena *a);
/* tv_query_prepare with each node's create_weight timed into prof. */
tv_status tv_query_prepare_profiled(tv_query *q, const tv_snapshot *snap, tv_arena *arena, tv_qprof *prof);

/* Lucene's score explanation of one doc (explain.c). Arena-allocated,
 * read-only. */
typedef struct tv_expl tv_expl;
/* TROVE_EUNSUPPORTED (unsupported_operation_exception "[explain] of a
 * [<kind>] query is not supported by trove") when the rewritten query has
 * a node whose Lucene explanation trove does not reproduce exactly. */
tv_status tv_explain_check(const tv_query *q, tv_error *err);
/* Explains segment seg's doc (segment-local) for a query rewritten and
 * prepared on snap (tv_explain_check passed). *out lives in arena. */
tv_status tv_explain(tv_query *q, const tv_snapshot *snap, uint32_t seg, uint32_t doc, tv_arena *arena,
                     const tv_expl **out);
bool tv_expl_match(const tv_expl *e);
float tv_expl_value(const tv_expl *e);
/* Writes {"value":..,"description":..,"details":[..]} (tv_expl_write) or
 * only its members into an object the caller opened. */
void tv_expl_write(tv_jw *w, const tv_expl *e);
void tv_expl_write_members(tv_jw *w, const tv_expl *e);
/* The hit writer's parts (search.c calls them): "_shard" and "_node" before "_index";
 * "_explanation" of segment seg's doc. */
void tv_explain_hit_head(tv_jw *w, const tv_search_params *p, size_t target, const char *index,
                         const tv_doc_meta *meta);
tv_status tv_explain_hit(tv_jw *w, tv_query *q, const tv_snapshot *snap, uint32_t seg, uint32_t doc,
                         tv_arena *arena);
/* The phrase frequency of a phrase iterator's current doc (exec.c). */
float tv_iter_phrase_freq(const tv_iter *it);

/* ============================================================ scripts */

/*
 * Painless in searches (qscript.c). A request's scripts compile once
 * (through the script layer's cache) when the request parses and are held
 * here until it ends (tv_qscripts_fini); the first script that fails
 * leaves its ScriptException in `fail` for the api layer.
 */
typedef struct tv_qscripts {
    tv_script **held;
    uint32_t nheld, cheld;
    tv_script_failure fail;
    tv_stored_script_fn stored;
    const void *stored_ctx;
} tv_qscripts;
void tv_qscripts_init(tv_qscripts *c, const tv_search_params *params);
void tv_qscripts_fini(tv_qscripts *c); /* releases the held scripts */

/* One parsed and compiled script (Script.parse). */
typedef struct tv_qscript {
    tv_script *s;       /* held by the request's tv_qscripts */
    const char *src;    /* the source (arena) */
    size_t len;
    tv_sv params;       /* the params map (d->arena), an empty HashMap when none */
    bool wants_source;  /* the source names _source: params._source is loaded */
    tv_qscripts *owner;
} tv_qscript;

/*
 * Script.parse of v (the string short form or {source|id, lang, params,
 * options}) and its compilation for a context with `globals`
 * (TV_SCRIPT_G_*). Parse errors are request errors; a compile error is
 * the shard's (err->index = d->index) script_exception, recorded in the
 * request's failure. *out in d->arena.
 */
tv_status tv_dsl_script(tv_dsl *d, const tv_json *v, unsigned globals, tv_qscript **out);
/* Records a script's failure (the first one of the request is kept) and
 * sets err: script_exception ("compile error"/"runtime error") naming
 * index (NULL: a request-level failure). Returns err's code. */
tv_status tv_qscript_fail(const tv_qscript *qs, const char *src, size_t len, tv_qscripts *c,
                          const tv_script_error *se, tv_error *err, const char *index);
/* A script result of the wrong type: the runtime error of a
 * ClassCastException "Cannot cast <what> to <to>" (what: a Java class
 * name or "null"), recorded and set as tv_qscript_fail does. */
tv_status tv_qscript_cast_fail(const tv_qscript *qs, const char *what, const char *to, tv_error *err,
                               const char *index);

/*
 * A script run per document: a scratch arena reset before each run (the
 * result lives there until the next run or fini), the doc accessor over
 * the segment's doc values, params._source when the script names it.
 */
typedef struct tv_qscript_exec {
    const tv_qscript *qs;
    const tv_mapping *mapping;
    const tv_segment *seg;
    uint32_t doc;
    tv_arena scratch;
    const char *index; /* failures name it (NULL: request-level) */
    tv_error *err;
    bool quiet;        /* a failure sets err only (ignore_failure): not recorded */
    tv_sv values;      /* TV_SCRIPT_G_VALUES: the moving-function window (null: none) */
    uint32_t doc_base; /* the segment's first doc in the target (randomScore's _getDocBaseId) */
    tv_sv agg_value;   /* TV_SCRIPT_G_AGGVALUE: _value */
    /* the script instance's class bindings (one instance per segment, as
     * OpenSearch makes a ScoreScript per leaf) and their strings */
    tv_script_bind *binds;
    const tv_segment *bind_seg;
    tv_arena keep;
} tv_qscript_exec;
void tv_qscript_exec_init(tv_qscript_exec *x, const tv_qscript *qs, const tv_mapping *m, const char *index,
                          tv_error *err);
void tv_qscript_exec_fini(tv_qscript_exec *x);
/* Runs the script for doc of seg (seg NULL: no doc: doc[...] fails) with
 * _score = score and extra params (vars: a map whose entries are added to
 * params, or NULL). TROVE_OK with *out, else err set (and the failure
 * recorded). */
tv_status tv_qscript_run(tv_qscript_exec *x, const tv_segment *seg, uint32_t doc, double score,
                         const tv_sv *vars, tv_sv *out);
/* A script result as a number (Number.doubleValue()); false when it is
 * not a number (*what gets its Java class name). */
bool tv_qscript_number(const tv_sv *v, double *out, const char **what);

#endif /* TROVE_QUERY_QUERY_H */
