/*
 * script.h — the script layer: OpenSearch's Painless, the subset
 * applications write, as a tree-walking interpreter.
 *
 * A script's source compiles once (lexer, recursive-descent parser to an
 * AST, then a resolver that binds every name to a local slot, a global or
 * a class and refuses what it cannot) into an immutable, reference-counted
 * tv_script that any number of threads may run at once; tv_script_get
 * keeps the last compiled scripts by (source, globals), as OpenSearch's
 * script cache does (100 entries). A run evaluates the tree over its own
 * value type (tv_sv: null, boolean, char, int, long, float, double,
 * String, List, Map, Map.Entry) whose strings, lists and maps live in the
 * caller's arena; nothing is freed before the run's arena is.
 *
 * Semantics are Java's where Painless uses Java's: binary numeric
 * promotion, int and long overflow wrap, integer division truncates and
 * "/ by zero" is an ArithmeticException, string concatenation with
 * Double.toString's digits, == is equals() (Painless's def equality:
 * numbers by value across boxes), casts narrow as Java's casts do.
 * Maps read from JSON keep their order when the caller asks for
 * LinkedHashMap semantics (_update's ctx._source) and print in HashMap
 * order otherwise, like maps a script creates ([:] and new HashMap()).
 *
 * Errors come back in OpenSearch's ScriptException shape (tv_script_error):
 * "compile error" or "runtime error", the script_stack excerpt with its
 * "^---- HERE" line, the position, and the Java exception that caused it.
 * What the subset leaves out (lambdas, method references, regexes, arrays
 * other than those split() returns, classes of the Painless API not
 * listed in eval.c) is a compile error (or, for a method reached through
 * def, a runtime error) naming it, never a guess. The sandbox: Painless's
 * loop counter (1,000,000 loop iterations per run, PainlessError), a
 * depth limit on parsing and evaluation, a maximum source size
 * (script.max_size_in_bytes, 65,535) and a cap on the memory a run takes.
 *
 * Files:
 *   lex.c     the lexer: tokens with byte offsets, Painless's literals
 *   parse.c   the parser (statements and expressions to the AST) and the
 *             resolver (scopes, slots, globals), compile errors, the cache
 *   value.c   values: strings, lists, maps (ordered or HashMap), Java's
 *             toString and equals, conversion from and to JSON
 *   eval.c    the interpreter: operators, statements, the methods and
 *             static classes of the subset, runtime errors
 *   movfn.c   MovingFunctions (the moving-function context's class)
 */
#ifndef TROVE_SCRIPT_H
#define TROVE_SCRIPT_H

#include "json/json.h"
#include "util/util.h"

/* ------------------------------------------------------------- values */

typedef enum tv_sv_type {
    TV_SV_NULL = 0,
    TV_SV_BOOL,
    TV_SV_CHAR,   /* v.c, a UTF-16 code unit (String.charAt) */
    TV_SV_INT,    /* v.i */
    TV_SV_LONG,   /* v.l */
    TV_SV_FLOAT,  /* v.f */
    TV_SV_DOUBLE, /* v.d */
    TV_SV_STRING, /* v.s (immutable) */
    TV_SV_LIST,   /* v.list: ArrayList, String[] or doc values */
    TV_SV_MAP,    /* v.map: HashMap or LinkedHashMap */
    TV_SV_ENTRY,  /* v.entry: a Map.Entry of entrySet() */
    TV_SV_OBJ,    /* v.obj: a date, a GeoPoint or a DayOfWeek (tv_sv_obj) */
} tv_sv_type;

typedef struct tv_sv_str {
    uint32_t len; /* bytes, UTF-8 */
    bool ascii;   /* every byte < 0x80: byte offsets are Java char indices */
    char s[];     /* NUL-terminated */
} tv_sv_str;

typedef struct tv_sv_list tv_sv_list;
typedef struct tv_sv_map tv_sv_map;
typedef struct tv_sv_entry tv_sv_entry;
typedef struct tv_sv_obj tv_sv_obj;

typedef struct tv_sv {
    uint8_t type; /* tv_sv_type */
    union {
        bool b;
        uint16_t c;
        int32_t i;
        int64_t l;
        float f;
        double d;
        const tv_sv_str *s;
        tv_sv_list *list;
        tv_sv_map *map;
        tv_sv_entry *entry;
        const tv_sv_obj *obj;
    } v;
} tv_sv;

/* What a list is to a script. */
typedef enum tv_sv_list_kind {
    TV_SV_ARRAYLIST = 0, /* java.util.ArrayList */
    TV_SV_ARRAY,         /* String[] (split): [i] and .length, fixed size */
    TV_SV_DOCVALUES,     /* ScriptDocValues: .value, .values, .empty, size(), get(i), [i] */
} tv_sv_list_kind;

/* What the values of a TV_SV_DOCVALUES list are (ScriptDocValues' class). */
typedef enum tv_sv_dv_kind {
    TV_SV_DV_PLAIN = 0, /* Longs, Doubles, Strings, Booleans */
    TV_SV_DV_DATES,     /* Dates: JodaCompatibleZonedDateTime */
    TV_SV_DV_GEO,       /* GeoPoints */
} tv_sv_dv_kind;

struct tv_sv_list {
    tv_sv *items;
    uint32_t len, cap;
    uint8_t kind; /* tv_sv_list_kind */
    uint8_t dv;   /* TV_SV_DOCVALUES: tv_sv_dv_kind */
    const char *field; /* TV_SV_DOCVALUES: the field's name (for errors) */
};

/* The objects of the subset that are neither numbers, strings nor
 * collections: immutable, in the run's arena. */
typedef enum tv_sv_obj_kind {
    TV_SV_O_DATE = 0, /* JodaCompatibleZonedDateTime at UTC: sec, nano */
    TV_SV_O_INSTANT,  /* java.time.Instant: sec, nano */
    TV_SV_O_GEO,      /* org.opensearch.common.geo.GeoPoint: lat, lon */
    TV_SV_O_DOW,      /* java.time.DayOfWeek: sec is 1 (MONDAY) .. 7 */
    TV_SV_O_TOKEN,    /* AnalysisPredicateScript.Token: tok */
} tv_sv_obj_kind;

/* The token an analysis predicate script sees (`token`): its getters
 * getTerm, getType, getPosition, getPositionIncrement, getPositionLength,
 * getStartOffset, getEndOffset (UTF-16) and isKeyword. */
typedef struct tv_sv_token {
    const char *term, *type;
    uint32_t term_len, type_len;
    int32_t position, position_increment, position_length, start_offset, end_offset;
    bool keyword;
} tv_sv_token;

struct tv_sv_obj {
    uint8_t kind;  /* tv_sv_obj_kind */
    int32_t nano;  /* 0 .. 999,999,999 */
    int64_t sec;   /* seconds since the epoch */
    double lat, lon;
    const tv_sv_token *tok; /* TV_SV_O_TOKEN */
};

struct tv_sv_entry {
    tv_sv key, val;
};

static inline tv_sv tv_sv_null(void) { tv_sv v = {.type = TV_SV_NULL}; return v; }
static inline tv_sv tv_sv_bool(bool b) { tv_sv v = {.type = TV_SV_BOOL, .v.b = b}; return v; }
static inline tv_sv tv_sv_int(int32_t i) { tv_sv v = {.type = TV_SV_INT, .v.i = i}; return v; }
static inline tv_sv tv_sv_long(int64_t l) { tv_sv v = {.type = TV_SV_LONG, .v.l = l}; return v; }
static inline tv_sv tv_sv_double(double d) { tv_sv v = {.type = TV_SV_DOUBLE, .v.d = d}; return v; }

/* A String value (bytes copied into a). Returns false out of memory. */
bool tv_sv_string(tv_arena *a, const char *s, size_t len, tv_sv *out);
/* A date (kind TV_SV_O_DATE or TV_SV_O_INSTANT: epoch seconds and the
 * nanoseconds of that second), a GeoPoint. False out of memory. */
bool tv_sv_date(tv_arena *a, uint8_t kind, int64_t sec, int32_t nano, tv_sv *out);
bool tv_sv_geo(tv_arena *a, double lat, double lon, tv_sv *out);
/* A date's epoch milliseconds (Instant.toEpochMilli, saturated where Java
 * would overflow). */
int64_t tv_sv_date_millis(const tv_sv_obj *o);
/* An empty list (kind) or map (ordered: LinkedHashMap, else HashMap). */
bool tv_sv_list_new(tv_arena *a, tv_sv_list_kind kind, tv_sv *out);
bool tv_sv_map_new(tv_arena *a, bool ordered, tv_sv *out);
/* Appends to a list. False out of memory. */
bool tv_sv_list_add(tv_arena *a, tv_sv_list *l, tv_sv v);
/* Map.put (a new key is appended; an existing one keeps its place) and
 * Map.get (NULL when absent) by a string key. */
bool tv_sv_map_put_str(tv_arena *a, tv_sv_map *m, const char *key, size_t len, tv_sv v);
const tv_sv *tv_sv_map_get_str(const tv_sv_map *m, const char *key, size_t len);
/* Map.remove of a string key: true when it was there (*old gets it). */
bool tv_sv_map_remove_str(tv_sv_map *m, const char *key, size_t len, tv_sv *old);
/* Live entries: iterate with *it = 0 until false. */
bool tv_sv_map_next(const tv_sv_map *m, uint32_t *it, const tv_sv **key, const tv_sv **val);
uint32_t tv_sv_map_size(const tv_sv_map *m);

/*
 * JSON to a value: objects become maps (ordered: LinkedHashMap, as
 * XContentHelper.convertToMap(.., true) reads them; else HashMap),
 * arrays ArrayLists, integers Integer when they fit an int else Long (as
 * Jackson reads them), other numbers Double. An integer above
 * Long.MAX_VALUE (a BigInteger to OpenSearch) is refused:
 * TROVE_EUNSUPPORTED. TROVE_ENOMEM out of memory.
 */
tv_status tv_sv_from_json(tv_arena *a, const tv_json *j, bool ordered, tv_sv *out);
/* A value as JSON (what XContentBuilder writes for it: maps in their
 * iteration order, chars as one-character strings). */
void tv_sv_write_json(tv_jw *w, const tv_sv *v);
/* Java's String.valueOf of a value (AbstractCollection/AbstractMap
 * toString for lists and maps) appended to b. */
void tv_sv_to_string(tv_buf *b, const tv_sv *v);
/* Painless's == (Object.equals, numbers compared by value). */
bool tv_sv_equals(const tv_sv *a, const tv_sv *b);
/* Object.equals (HashMap key equality: Integer 1 and Long 1 differ). */
bool tv_sv_key_equals(const tv_sv *a, const tv_sv *b);
/* The Java class a value prints as in errors ("java.lang.Integer"). */
const char *tv_sv_class(const tv_sv *v);

/* ---------------------------------------------------------- compile */

/* The globals a script context gives its scripts (params is always
 * there). A script naming one its context lacks does not compile
 * ("cannot resolve symbol [ctx]"). */
enum {
    TV_SCRIPT_G_CTX = 1u << 0,   /* ctx: update, update_by_query, reindex, ingest */
    TV_SCRIPT_G_DOC = 1u << 1,   /* doc['field']: search contexts */
    TV_SCRIPT_G_SCORE = 1u << 2, /* _score: score and sort scripts */
    TV_SCRIPT_G_VALUES = 1u << 3, /* values and MovingFunctions: moving_fn scripts */
    TV_SCRIPT_G_AGGVALUE = 1u << 5, /* _value: an aggregation's value script */
    TV_SCRIPT_G_TOKEN = 1u << 6,    /* token: the analysis predicate context */
    TV_SCRIPT_G_SCOREFN = 1u << 4, /* the score context's functions (ScoreScriptUtils):
                                      saturation, sigmoid, randomScore, decay* */
};

/* script.max_size_in_bytes's default. */
#define TV_SCRIPT_MAX_SIZE 65535
/* Painless's loop counter limit (iterations of all loops of one run). */
#define TV_SCRIPT_MAX_LOOP 1000000

/*
 * An error as OpenSearch's ScriptException reports it:
 *   script_exception, reason "compile error" / "runtime error",
 *   script_stack [snippet, pointer], script, lang "painless",
 *   position {offset, start, end}, caused_by {cause: type, cause_reason}.
 * code is TROVE_ESCRIPT for script errors, TROVE_ENOMEM out of memory,
 * TROVE_EARG for a script refused before compiling (too large: reason).
 */
typedef struct tv_script_error {
    tv_status code;
    bool compile;        /* "compile error", else "runtime error" */
    tv_status cause;     /* the Java exception: TROVE_EARG, TROVE_ENULLPOINTER, ... */
    char cause_reason[512];
    char stack[2][256];  /* the excerpt and its "^---- HERE" line ("" when none) */
    bool has_pos;
    uint32_t offset, start, end;
} tv_script_error;

typedef struct tv_script tv_script;

/*
 * Compiles src[0..len) for a context with `globals` (TV_SCRIPT_G_*).
 * Returns a script with one reference (tv_script_release), or NULL with
 * err filled. Thread-safe; the script is immutable and may be run by
 * several threads at once.
 */
tv_script *tv_script_compile(const char *src, size_t len, unsigned globals, tv_script_error *err);
/* tv_script_compile through the process-wide cache: the same (source,
 * globals) compiles once. Returns one reference. Thread-safe. */
tv_script *tv_script_get(const char *src, size_t len, unsigned globals, tv_script_error *err);
/* The cache's counters since the process started (ScriptStats): scripts
 * compiled through it and entries evicted for room. */
void tv_script_cache_stats(int64_t *compilations, int64_t *evictions);
void tv_script_retain(tv_script *s);
void tv_script_release(tv_script *s); /* NULL is a no-op */
const char *tv_script_source(const tv_script *s, size_t *len);

/* ------------------------------------------------------------------ run */

/*
 * The doc accessor of search contexts: doc['field'] calls it once per
 * field and document; it fills *out with a TV_SV_DOCVALUES list (values
 * in doc-values order: longs, doubles, strings, booleans) in the run's
 * arena. It returns TROVE_OK, or an error with err->cause and
 * err->cause_reason set (e.g. TROVE_EARG "No field found for [f] in
 * mapping"), which becomes the run's runtime error.
 */
typedef tv_status (*tv_script_doc_fn)(void *ud, const char *field, size_t len, tv_arena *a, tv_sv *out,
                                      tv_script_error *err);

/*
 * The functions a script's context provides (OpenSearch's static imports
 * and class bindings) that need more than the script layer knows: the
 * host (the query layer) computes them. Arguments arrive converted to the
 * parameter types (numbers as doubles or ints, Strings, a GeoPoint or a
 * date object). The host returns TROVE_OK with *out, or an error with
 * err->cause and err->cause_reason set (the run's runtime error).
 */
typedef enum tv_script_fn {
    TV_SCRIPT_FN_NONE = 0,
    /* the score context's (TV_SCRIPT_G_SCOREFN); computed in the script layer: */
    TV_SCRIPT_FN_SATURATION,     /* (double value, double k) */
    TV_SCRIPT_FN_SIGMOID,        /* (double value, double k, double a) */
    TV_SCRIPT_FN_DECAY_NUM_LINEAR, /* (double origin, scale, offset, decay, docValue) */
    TV_SCRIPT_FN_DECAY_NUM_EXP,
    TV_SCRIPT_FN_DECAY_NUM_GAUSS,
    /* ... by the host: */
    TV_SCRIPT_FN_RANDOM_DOC,     /* (int seed) */
    TV_SCRIPT_FN_RANDOM_FIELD,   /* (int seed, String field) */
    TV_SCRIPT_FN_DECAY_GEO_LINEAR, /* (String origin, String scale, String offset, double decay, GeoPoint) */
    TV_SCRIPT_FN_DECAY_GEO_EXP,
    TV_SCRIPT_FN_DECAY_GEO_GAUSS,
    TV_SCRIPT_FN_DECAY_DATE_LINEAR, /* (String origin, String scale, String offset, double decay, date) */
    TV_SCRIPT_FN_DECAY_DATE_EXP,
    TV_SCRIPT_FN_DECAY_DATE_GAUSS,
    /* GeoPoints' distances (any context with doc): (lat1, lon1, lat2, lon2) in meters */
    TV_SCRIPT_FN_ARC_DISTANCE,   /* GeoUtils.arcDistance */
    TV_SCRIPT_FN_PLANE_DISTANCE, /* GeoUtils.planeDistance */
} tv_script_fn;

typedef tv_status (*tv_script_host_fn)(void *ud, tv_script_fn fn, const tv_sv *args, uint32_t nargs, tv_arena *a,
                                       tv_sv *out, tv_script_error *err);

/* A class binding's constructor arguments, kept from its first call for
 * the life of a script instance (Painless constructs a bound class once
 * per instance: OpenSearch makes one ScoreScript per segment). */
#define TV_SCRIPT_BIND_ARGS 4
typedef struct tv_script_bind {
    bool set;
    tv_sv args[TV_SCRIPT_BIND_ARGS];
} tv_script_bind;
/* The number of class-binding call sites of s (env->binds' length). */
uint32_t tv_script_nbinds(const tv_script *s);

typedef struct tv_script_env {
    tv_arena *arena; /* the run's values live here */
    tv_sv params;    /* a map, or null (an empty map is used) */
    tv_sv ctx;       /* TV_SCRIPT_G_CTX: the ctx map */
    double score;    /* TV_SCRIPT_G_SCORE: _score */
    tv_sv values;    /* TV_SCRIPT_G_VALUES: the window (a list of Doubles) */
    tv_sv agg_value; /* TV_SCRIPT_G_AGGVALUE: _value */
    tv_sv token;     /* TV_SCRIPT_G_TOKEN: a TV_SV_O_TOKEN object */
    tv_script_doc_fn doc; /* TV_SCRIPT_G_DOC */
    void *doc_ud;
    tv_script_host_fn host; /* the context's functions (NULL: none) */
    void *host_ud;
    /* class-binding instances (tv_script_nbinds entries, cleared by the
     * caller for a new instance) and the arena their strings are copied
     * to; NULL: each call constructs anew */
    tv_script_bind *binds;
    tv_arena *bind_arena;
    size_t max_bytes; /* 0: 64 MiB; a run that takes more fails */
} tv_script_env;

/*
 * Runs s once. *result gets the value of the last `return` (null when
 * none). Values the script stored into env->ctx (and the maps and lists
 * reachable from it) are changed in place. Returns TROVE_OK, or
 * TROVE_ESCRIPT / TROVE_ENOMEM with err filled. Reentrant: a run touches
 * only env and its arena.
 */
tv_status tv_script_run(const tv_script *s, tv_script_env *env, tv_sv *result, tv_script_error *err);

/* ---------------------------------------------------- MovingFunctions */

/* OpenSearch's MovingFunctions over a window of n doubles (movfn.c):
 * what the moving-function context's scripts call, and the aggregations'
 * native path for a script that is one such call. holtWinters fails with
 * OpenSearch's message when the window holds fewer than 2 * period values. */
double tv_movfn_max(const double *v, size_t n);
double tv_movfn_min(const double *v, size_t n);
double tv_movfn_sum(const double *v, size_t n);
double tv_movfn_unweighted_avg(const double *v, size_t n);
double tv_movfn_std_dev(const double *v, size_t n, double avg);
double tv_movfn_linear_weighted_avg(const double *v, size_t n);
double tv_movfn_ewma(const double *v, size_t n, double alpha);
double tv_movfn_holt(const double *v, size_t n, double alpha, double beta);
tv_status tv_movfn_holt_winters(const double *v, size_t n, double alpha, double beta, double gamma, int period,
                                bool multiplicative, double *out, tv_error *err);

#endif /* TROVE_SCRIPT_H */
