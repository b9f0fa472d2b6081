/*
 * trove.h — the one public header of libtrove.
 *
 * libtrove is a search engine that speaks the OpenSearch REST API in process.
 * A program opens a node, sends it REST requests with trove_request() and
 * reads back exactly the status and JSON body an OpenSearch 3.x server would
 * answer over HTTP. The HTTP server (`trove serve`) is a thin transport over
 * this same call.
 *
 * Conventions used throughout this header:
 *   - Byte inputs are (const void *p, size_t len) and need not be
 *     NUL-terminated.
 *   - "owned" results are freed by the caller with the function named;
 *     "borrowed" results stay valid for the time stated.
 *   - Every function that can fail returns a status (or NULL) and, when given
 *     a trove_error, fills it with a code, a byte position and a message.
 *   - The library never aborts on out-of-memory: it returns TROVE_ENOMEM.
 */
#ifndef TROVE_H
#define TROVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TROVE_VERSION_STRING "0.1.0"
/* The OpenSearch version whose REST API trove answers as. */
#define TROVE_OPENSEARCH_VERSION "3.1.0"
#define TROVE_LUCENE_VERSION "10.2.1"

/*
 * Status codes: one list, from which the enum, the messages, the OpenSearch
 * error types, the HTTP statuses and the Java classes are generated (see
 * trove_status_*()). It is the only place an OpenSearch error type is
 * spelled: an error that OpenSearch reports with a type of its own has a
 * code here.
 *
 *   X(NAME, http_status, "opensearch_error_type", os, "java.Class", "default message")
 *
 * os is 1 for OpenSearchException subclasses (their toString and root
 * cause follow OpenSearch's rules), java the class a non-OpenSearch
 * exception prints as (NULL: derived from the type). Several codes may
 * carry one type with different HTTP statuses or meanings (illegal_state_
 * exception is a 500 when trove fails, a 400 as a cause). Add new codes at
 * the end of the list only when no existing code carries the same type
 * and HTTP status.
 */
#define TROVE_STATUS_LIST(X)                                                                               \
    X(OK, 200, "", 0, NULL, "ok")                                                                          \
    X(ENOMEM, 500, "out_of_memory_error", 0, NULL, "out of memory")                                        \
    X(EINTERNAL, 500, "illegal_state_exception", 0, "java.lang.IllegalStateException", "internal error")    \
    X(ECORRUPT, 500, "corrupt_index_exception", 1, NULL, "corrupt data")                                   \
    X(EIO, 500, "io_exception", 0, NULL, "input/output error")                                             \
    X(EARG, 400, "illegal_argument_exception", 0, "java.lang.IllegalArgumentException", "illegal argument") \
    X(EPARSE, 400, "parsing_exception", 1, NULL, "parse error")                                            \
    X(EXCONTENT, 400, "x_content_parse_exception", 0, "org.opensearch.core.xcontent.XContentParseException", \
      "failed to parse content")                                                                           \
    X(EJSON, 400, "json_parse_exception", 0, "com.fasterxml.jackson.core.JsonParseException", "malformed JSON") \
    X(ENOTXCONTENT, 400, "not_x_content_exception", 0, NULL,                                               \
      "Compressor detection can only be called on some xcontent bytes or compressed "                     \
      "xcontent bytes")                                                                                    \
    X(EMAPPER, 400, "mapper_parsing_exception", 1, NULL, "failed to parse mapping")                        \
    X(ESTRICT, 400, "strict_dynamic_mapping_exception", 1, NULL, "mapping set to strict")                  \
    X(EVALIDATION, 400, "action_request_validation_exception", 0, NULL, "Validation Failed")               \
    X(EUNSUPPORTED, 400, "unsupported_operation_exception", 0, "java.lang.UnsupportedOperationException",  \
      "unsupported")                                                                                       \
    X(EINDEXNAME, 400, "invalid_index_name_exception", 1, NULL, "invalid index name")                      \
    X(EEXISTS, 400, "resource_already_exists_exception", 1, NULL, "already exists")                        \
    X(ENOINDEX, 404, "index_not_found_exception", 1, NULL, "no such index")                                \
    X(ENODOC, 404, "document_missing_exception", 1, NULL, "document missing")                              \
    X(ENOTFOUND, 404, "resource_not_found_exception", 1, NULL, "not found")                                \
    X(ECONFLICT, 409, "version_conflict_engine_exception", 1, NULL, "version conflict")                    \
    X(EQUERYSHARD, 400, "query_shard_exception", 1, NULL, "failed to create query")                        \
    X(ESEARCHPHASE, 400, "search_phase_execution_exception", 1, NULL, "all shards failed")                 \
    X(ECLOSED, 400, "index_closed_exception", 1, NULL, "closed")                                           \
    X(ENUMBERFORMAT, 400, "number_format_exception", 0, "java.lang.NumberFormatException", "not a number") \
    X(EILLEGALSTATE, 400, "illegal_state_exception", 0, "java.lang.IllegalStateException", "illegal state") \
    X(ETOOLARGE, 413, "content_too_long_exception", 1, NULL, "request entity too large")                   \
    X(ETIMEOUT, 408, "timeout_exception", 1, NULL, "timed out")                                            \
    X(ENOHANDLER, 400, "", 0, NULL, "no handler found")                                                    \
    X(EMETHOD, 405, "", 0, NULL, "method not allowed")                                                     \
    X(EDATEPARSE, 400, "date_time_parse_exception", 0, "java.time.format.DateTimeParseException",          \
      "failed to parse date")                                                                              \
    X(EARITHMETIC, 400, "arithmetic_exception", 0, "java.lang.ArithmeticException", "arithmetic error")    \
    X(ETOOCOMPLEX, 400, "too_complex_to_determinize_exception", 0,                                         \
      "org.apache.lucene.util.automaton.TooComplexToDeterminizeException", "too complex")                 \
    X(ELIMIT, 400, "illegal_argument_exception", 0, "java.lang.IllegalArgumentException", "limit exceeded") \
    X(EPARSEEXC, 400, "parse_exception", 1, NULL, "failed to parse")                                       \
    X(EMAPPEREXC, 400, "mapper_exception", 1, NULL, "mapper error")                                        \
    X(ETOOMANYBUCKETS, 503, "too_many_buckets_exception", 0, NULL, "too many buckets")                     \
    X(ETOOMANYCLAUSES, 400, "too_many_clauses", 0, NULL, "too many clauses")                               \
    X(ETOOMANYNESTED, 500, "too_many_nested_clauses", 0, NULL, "too many nested clauses")                  \
    X(EWAIT, 500, "illegal_state_exception", 0, "java.lang.IllegalStateException",                         \
      "the request waits: ask again")                                                                      \
    X(ENAMEDOBJECT, 400, "named_object_not_found_exception", 0,                                            \
      "org.opensearch.core.xcontent.NamedObjectNotFoundException", "unknown named object")                 \
    X(ENULLPOINTER, 500, "null_pointer_exception", 0, "java.lang.NullPointerException", "null pointer")    \
    X(ESEARCH, 500, "search_exception", 1, NULL, "search failed")                                          \
    X(EFETCHPHASE, 500, "fetch_phase_execution_exception", 1, NULL, "fetch phase failed")                  \
    X(EINPUTCOERCION, 400, "input_coercion_exception", 0, NULL, "number out of range")                     \
    X(EAGGEXEC, 500, "aggregation_execution_exception", 0, NULL, "aggregation failed")                     \
    X(EAGGINIT, 500, "aggregation_initialization_exception", 0, NULL, "aggregation refused")               \
    X(EZONERULES, 400, "zone_rules_exception", 0, NULL, "unknown time zone")                               \
    X(EDATETIME, 400, "date_time_exception", 0, NULL, "invalid time zone")                                 \
    X(ELONGLINE, 400, "too_long_http_line_exception", 0, NULL, "HTTP line too long")                       \
    X(ELONGHEADER, 400, "too_long_http_header_exception", 0, NULL, "HTTP header too long")                 \
    X(EDECOMPRESS, 400, "decompression_exception", 0, NULL, "failed to decompress")                        \
    X(ECONTENTTYPE, 400, "content_type_header_exception", 0, NULL, "bad Content-Type")                     \
    X(ENOSOURCE, 400, "document_source_missing_exception", 1, NULL, "source missing")                      \
    X(ETEMPLATE, 400, "invalid_index_template_exception", 1, NULL, "invalid index template")               \
    X(ENOTEMPLATE, 404, "index_template_missing_exception", 1, NULL, "no such index template")             \
    X(EALIASNAME, 400, "invalid_alias_name_exception", 1, NULL, "invalid alias name")                      \
    X(ENOALIAS, 404, "aliases_not_found_exception", 1, NULL, "no such alias")                              \
    X(ESTREAMLIMIT, 400, "stream_constraints_exception", 0, NULL, "JSON nesting too deep")                 \
    X(ENOCONTEXT, 404, "search_context_missing_exception", 1, NULL, "no such search context")              \
    X(ENOROUTING, 400, "routing_missing_exception", 1, NULL, "routing missing")                            \
    X(EEOF, 500, "e_o_f_exception", 0, NULL, "end of input")                                               \
    X(EJSONEOF, 400, "json_e_o_f_exception", 0, "com.fasterxml.jackson.core.io.JsonEOFException",          \
      "unexpected end of JSON")                                                                            \
    X(EBREAKER, 429, "circuit_breaking_exception", 1, NULL, "circuit breaker tripped")                     \
    X(ESHARDSTATE, 400, "illegal_index_shard_state_exception", 1, NULL, "illegal shard state")             \
    X(ESEARCHPARSE, 400, "search_parse_exception", 1, NULL, "failed to parse search")                      \
    X(EARRAYINDEX, 500, "array_index_out_of_bounds_exception", 0, "java.lang.ArrayIndexOutOfBoundsException", \
      "index out of bounds")                                                                               \
    X(EEXCEPTION, 500, "exception", 1, NULL, "failed")                                                     \
    X(ERUNTIME, 500, "runtime_exception", 0, "java.lang.RuntimeException", "runtime error")                \
    X(EFROZEN, 403, "trove_base_frozen", 0, NULL, "the base is frozen")                                    \
    X(EOSMEMFROZEN, 403, "osmem_base_frozen", 0, NULL, "the base is frozen")                               \
    X(EOSMEMNOCLONE, 404, "osmem_clone_not_found", 0, NULL, "no such clone")                               \
    X(ESYNC, 500, "trove_sync_exception", 0, NULL, "sync failed")                                          \
    X(ESECURITY, 403, "security_exception", 1, NULL, "no permissions")                                     \
    X(EREPOSITORY, 500, "repository_exception", 1, NULL, "repository failure")                             \
    X(ENOREPOSITORY, 404, "repository_missing_exception", 1, NULL, "no such repository")                   \
    X(ENOSNAPSHOT, 404, "snapshot_missing_exception", 1, NULL, "no such snapshot")                         \
    X(ESNAPSHOTNAME, 400, "invalid_snapshot_name_exception", 1, NULL, "invalid snapshot name")             \
    X(ESCRIPT, 400, "script_exception", 1, NULL, "script error")                                           \
    X(ECLASSCAST, 400, "class_cast_exception", 0, "java.lang.ClassCastException", "class cast")              \
    X(EPAINLESS, 400, "painless_error", 0, "org.opensearch.painless.PainlessError", "painless error")       \
    X(EINDEXBOUNDS, 400, "index_out_of_bounds_exception", 0, "java.lang.IndexOutOfBoundsException",          \
      "index out of bounds")                                                                               \
    X(EPATTERN, 400, "pattern_syntax_exception", 0, "java.util.regex.PatternSyntaxException",             \
      "bad regular expression")                                                                            \
    X(ESTRINGBOUNDS, 400, "string_index_out_of_bounds_exception", 0,                                       \
      "java.lang.StringIndexOutOfBoundsException", "string index out of bounds")                           \
    X(ECONCMOD, 400, "concurrent_modification_exception", 0, "java.util.ConcurrentModificationException",   \
      "concurrent modification")                                                                           \
    X(ENOSUCHELEMENT, 400, "no_such_element_exception", 0, "java.util.NoSuchElementException", "no element")\
    X(EFAILEDNODE, 500, "failed_node_exception", 1, NULL, "node failed")                                   \
    X(ENOSUCHNODE, 500, "no_such_node_exception", 1, NULL, "no such node")                                 \
    X(EUNAVAILSHARDS, 503, "unavailable_shards_exception", 1, NULL, "not enough active shard copies")   \
    X(EFAILPROC, 500, "fail_processor_exception", 0, "org.opensearch.ingest.common.FailProcessorException",  \
      "fail processor")

typedef enum trove_status {
#define TROVE_STATUS_ENUM_(name, http, type, os, java, msg) TROVE_##name,
    TROVE_STATUS_LIST(TROVE_STATUS_ENUM_)
#undef TROVE_STATUS_ENUM_
    TROVE_STATUS_COUNT_
} trove_status;

/* Default message of a status ("out of memory"). Borrowed, static. */
const char *trove_status_message(int code);
/* OpenSearch error type of a status ("index_not_found_exception"), "" for OK. */
const char *trove_status_type(int code);
/* HTTP status OpenSearch answers for a status (404 for TROVE_ENOINDEX). */
int trove_status_http(int code);
/* The enum name without prefix ("ENOINDEX"), for logs and tests. */
const char *trove_status_name(int code);

/*
 * A detailed failure: code is a trove_status, pos the byte offset in the
 * input where the failure was found (SIZE_MAX when none applies), message a
 * NUL-terminated English sentence. The struct may grow at the end.
 */
typedef struct trove_error {
    int code;
    size_t pos;
    char message[256];
} trove_error;

typedef struct trove_node trove_node;

/*
 * Options for trove_node_open(). Zero-initialise, then set what you need.
 * NULL options mean: in memory, defaults.
 */
typedef struct trove_options {
    const char *data_dir; /* NULL: in memory. Else a directory the node locks and keeps
                             its indices in (created if missing): every acknowledged
                             write is in a fsynced translog there, replayed on open. */
    const char *node_name; /* NULL: "trove" */
    const char *cluster_name; /* NULL: "trove" */
    /* The memory budget the circuit breakers' limits are shares of (as
     * OpenSearch's are of the JVM heap): request 60%, in-flight requests
     * 100%, parent 95% (checked against the resident set). 0: half of the
     * machine's memory. A clone shares its base's breakers. */
    int64_t heap_bytes;
    /* The node's custom attributes (OpenSearch's node.attr.NAME settings:
     * allocation-awareness tags such as rack or zone), as "NAME=VALUE"
     * strings; NULL or empty: none. Shown by _nodes, _cat/nodeattrs, the
     * cluster state and _cluster/settings?include_defaults. Borrowed: copied
     * by trove_node_open(). */
    const char *const *node_attrs;
    size_t n_node_attrs;
} trove_options;

/*
 * A response from trove_request(). body is owned by the response (NUL
 * terminated, body_len bytes without the NUL) and is released by
 * trove_response_fini(); content_type is borrowed, static.
 */
typedef struct trove_response {
    int status;
    const char *content_type;
    char *body;
    size_t body_len;
    /* Value of the HTTP Allow header ("POST,GET") on 405 responses, NULL
     * otherwise. Owned by the response, released by trove_response_fini(). */
    char *allow;
} trove_response;

/*
 * Opens a node. Returns owned; free with trove_node_free(). On failure returns
 * NULL and fills err (which may be NULL).
 */
trove_node *trove_node_open(const trove_options *opts, trove_error *err);

/*
 * Copy-on-write clone of a node: every index of the clone starts with the same
 * documents, mappings, settings and aliases; later writes on either side are
 * invisible to the other. O(1) when no request is running on the source: the
 * two nodes share their state until either side writes, and that first write
 * copies the table of indices (O(number of indices); no document is copied).
 * With requests running on the source it copies the table at once. Returns
 * owned; free with trove_node_free(), in any order with its source. Thread-safe
 * against concurrent requests on the source node.
 */
trove_node *trove_node_clone(trove_node *node, trove_error *err);

/* Frees a node and everything it owns. NULL is a no-op. Clones stay valid. */
void trove_node_free(trove_node *node);

/*
 * Runs one REST request in process, as an OpenSearch 3.x server would over
 * HTTP. method is "GET", "PUT", "POST", "DELETE" or "HEAD"; path_and_query is
 * the request target ("/my-index/_search?size=3"); body may be NULL when
 * body_len is 0. Fills out (owned; release with trove_response_fini()).
 * Returns 0 when a response was produced (whatever its HTTP status), or a
 * trove_status when none could be (TROVE_ENOMEM), in which case out->body is
 * NULL. Safe to call from several threads at once on one node.
 */
int trove_request(trove_node *node, const char *method, const char *path_and_query,
                  const void *body, size_t body_len, trove_response *out);

/*
 * trove_request for a caller that must never wait: a transport serving
 * many connections from one thread. A request that waits for a condition
 * (GET /_cluster/health with wait_for_status, or naming an index that does
 * not exist yet, until its `timeout`) answers as trove_request once the
 * condition holds or the timeout has passed; before that it returns
 * TROVE_EWAIT at once, leaves out empty and sets *retry_ms: ask again with
 * the same request and the same *since after that many milliseconds.
 * *since is 0 on a request's first ask: a TROVE_EWAIT answer sets it to
 * the moment the request started waiting (an opaque clock; the caller
 * keeps it across asks and clears it for the next request). Every other request answers as
 * trove_request. Thread-safe as trove_request.
 */
int trove_request_nowait(trove_node *node, const char *method, const char *path_and_query, const void *body,
                         size_t body_len, int64_t *since, int *retry_ms, trove_response *out);

/* Releases a response's body. Safe on a zeroed or already released response. */
void trove_response_fini(trove_response *r);

/* trove's version string ("0.1.0"). Borrowed, static. */
const char *trove_version(void);

/*
 * Loads a test fixture ("seed") into node through trove_request, as a
 * client's requests would. path is either
 *   - a directory, applied in four steps, each over its files sorted by
 *     name: NAME.template.json (PUT /_index_template/NAME), INDEX.index.json
 *     (PUT /INDEX), INDEX.ndjson (POST /INDEX/_bulk?refresh=true; an action
 *     may name its own _index), then aliases.json (POST /_aliases); other
 *     files are ignored; or
 *   - a single .ndjson file sent to POST /_bulk?refresh=true (its actions
 *     name their index).
 * Documents are searchable when it returns. Returns 0, or a trove_status
 * when a step failed: loading stops at the first failed request or bulk
 * item (what was applied before stays applied) and err (may be NULL) gets
 * the status matching OpenSearch's error type, pos = the byte offset of the
 * failing line in its file (SIZE_MAX when none), and message =
 * "FILE:LINE: TYPE: REASON" (":LINE" only when known; for a bulk file it is
 * the action line of the first failed item). TROVE_EIO when a file cannot
 * be read, TROVE_EARG when path is neither a directory nor an .ndjson file.
 * path is borrowed for the call. Thread-safe as trove_request is: requests
 * from other threads may interleave with the seed's.
 */
int trove_node_load_seed(trove_node *node, const char *path, trove_error *err);

/*
 * Authorization support: what a request needs, so that a transport (the
 * HTTP server's --users) or an embedding program can decide whether its
 * caller may make it, with the route matched exactly as trove_request()
 * will match it.
 *
 * access: TROVE_ACCESS_NONE when no handler would run (an unknown path or
 * method: trove_request answers 400 or 405 without touching any index);
 * READ for searches, gets, counts, mget/msearch, field_caps, analyze, _cat,
 * metadata and monitoring GETs (mappings, settings, aliases, templates,
 * stats, health, GET /); WRITE for document writes, _bulk, by-query writes,
 * refresh and flush; ADMIN for everything else (index create/delete/open/
 * close, mapping/settings/alias/template changes, cluster settings,
 * forcemerge, /_trove management, and routes not classified).
 *
 * scope: TROVE_SCOPE_INDICES when the request reaches only the index
 * expressions listed in indices (names, aliases or patterns with '*', as
 * the request spells them, exclusions "-x" left out); TROVE_SCOPE_CLUSTER
 * when it reaches the whole node (no index named, `_all` or `*`, or a
 * cluster-wide API); TROVE_SCOPE_ANY when it reaches no index data (GET /,
 * continuing or clearing a scroll, deleting a point in time, _analyze
 * without an index).
 *
 * action: OpenSearch's transport action name for the request
 * ("indices:data/read/search", "indices:admin/create",
 * "cluster:monitor/health"), static.
 */
typedef enum trove_access {
    TROVE_ACCESS_NONE = 0,
    TROVE_ACCESS_READ = 1,
    TROVE_ACCESS_WRITE = 2,
    TROVE_ACCESS_ADMIN = 3,
} trove_access;

typedef enum trove_scope {
    TROVE_SCOPE_INDICES = 0,
    TROVE_SCOPE_CLUSTER = 1,
    TROVE_SCOPE_ANY = 2,
} trove_scope;

typedef struct trove_request_class {
    int access;          /* trove_access */
    int scope;           /* trove_scope */
    const char *action;  /* borrowed, static; "" for TROVE_ACCESS_NONE */
    char **indices;      /* owned (one block): nindices NUL-terminated strings */
    size_t nindices;
    /* 1 when the route can name indices in its body (_bulk, _mget,
     * _msearch): they are in indices only when the body was given. */
    int body_names_indices;
} trove_request_class;

/*
 * Classifies one request as trove_request(node, method, path_and_query,
 * body, body_len, ...) would route it. body may be NULL (then body_len is
 * 0): the class is complete except for the indices a body can name (see
 * body_names_indices), which costs nothing for large bodies; given, the
 * body's index names are added (_bulk action lines' _index, _mget docs'
 * _index, _msearch header lines' index, or TROVE_SCOPE_CLUSTER when a
 * header names none and the path has no index). A body that does not
 * parse makes the scope TROVE_SCOPE_CLUSTER (trove_request would refuse
 * it). Needs no node: the answer depends on the request only. Fills out
 * (release with trove_request_class_fini) and returns 0, or TROVE_EARG /
 * TROVE_ENOMEM (out is then empty). Thread-safe.
 */
int trove_request_classify(const char *method, const char *path_and_query, const void *body, size_t body_len,
                           trove_request_class *out);

/* Releases a class's indices. Safe on a zeroed or already released class. */
void trove_request_class_fini(trove_request_class *c);

#ifdef __cplusplus
}
#endif
#endif /* TROVE_H */
