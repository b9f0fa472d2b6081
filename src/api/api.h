/*
 * api.h — the api layer: the OpenSearch REST API as a function.
 *
 * Owns: trove_request() (method + request target + body -> status +
 * headers + body), the router (OpenSearch's path trie semantics: explicit
 * segments before {param} segments, 405 with Allow for a known path and a
 * wrong method, 400 "no handler found" otherwise), URL parameter parsing
 * and validation ("contains unrecognized parameter" with did-you-mean), the
 * handlers of every endpoint, seed loading, and OpenSearch's error
 * envelope. The node itself (its state, clones, index resolution, the data
 * directory, shard routing) is the node layer's (node/node.h).
 *
 * Files:
 *   request.c      trove_request, opening/cloning/freeing nodes, index
 *                  expressions resolved and their failures answered,
 *                  single targets, auto-create on write
 *   router.c       request target parsing, the route table, dispatch,
 *                  parameter validation
 *   error.c        the error envelope (root_cause, metadata in OpenSearch's
 *                  order, caused_by, error_trace) and tv_error -> envelope
 *   response.c     filter_path, and settings flattened and printed
 *   body.c         request bodies as JSON, with OpenSearch's body errors
 *   authz.c        trove_request_classify: access level, action name and
 *                  target indices of a request, for authorization
 *   seed.c         trove_node_load_seed: a test fixture into a node
 *   shards.c       answers of a sharded index: routing errors, a document
 *                  on another shard, the "shard" of an error
 *   h_index.c      GET /, create/get/delete index, mappings, settings,
 *                  refresh, open/close
 *   h_doc.c        single-document APIs (index, create, get, source,
 *                  delete, update) and _mget
 *   h_bulk.c       _bulk
 *   h_byquery.c    _delete_by_query and _update_by_query, and the
 *                  by-scroll worker they share with _reindex (throttle,
 *                  slices, max_docs, the BulkByScrollResponse)
 *   h_reindex.c    _reindex within the node
 *   h_tasks.c      the tasks API (_tasks list/get/cancel, _rethrottle) and
 *                  the node's task registry: requests running as tasks on
 *                  threads, stored results of wait_for_completion=false
 *   h_search.c     _search and _count (and their answers with alias filters)
 *   h_msearch.c    _msearch
 *   h_scroll.c     scroll and point in time
 *   h_explain.c    _explain
 *   h_validate.c   _validate/query
 *   h_field_caps.c _field_caps (field capabilities merged over indices)
 *   h_analyze.c    _analyze
 *   h_alias.c      aliases: _aliases, PUT/DELETE/GET _alias
 *   h_template.c   index templates, composable and legacy
 *   h_script.c     scripts in requests (Script.parse, stored script lookup,
 *                  compilation, ScriptException envelopes) and the stored
 *                  scripts API (_scripts/{id})
 *   h_cluster.c    _cluster/health and _cluster/settings
 *   h_rollover.c   _rollover (a write alias to a new index)
 *   h_cluster_state.c  _cluster/state, voting config exclusions,
 *                  _cluster/pending_tasks, _remote/info
 *   h_cluster_stats.c  _cluster/stats
 *   h_cluster_alloc.c  _cluster/allocation/explain
 *   h_nodes.c      _nodes info, the breaker settings, the node's
 *                  identity and what /proc says of the process
 *   h_nodes_stats.c  _nodes/stats (every NodeStats section)
 *   h_stats.c      _stats, _flush, _forcemerge
 *   h_cat.c        _cat: health, indices, count, aliases, and the table
 *                  engine every _cat handler shares (cat_int.h)
 *   h_cat_templates.c  _cat/templates
 *   h_cat_shards.c _cat: shards, recovery
 *   h_cat_node.c   _cat: cluster_manager (master), thread_pool, plugins,
 *                  nodes, allocation, nodeattrs, pending_tasks
 *   h_component_template.c  component templates
 *   h_snapshot.c   snapshot repositories, snapshots (metadata kept in
 *                  memory), _cat/snapshots and _cat/repositories
 *   h_trove.c      the management API under /_trove (clones, freeze, sync
 *                  status; /_osmem its alias)
 *   ingest.c       ingest pipelines: configurations read and validated into
 *                  processors, run over documents (the write path's
 *                  pipelines, _simulate)
 *   h_ingest.c     the ingest API: PUT/GET/DELETE _ingest/pipeline,
 *                  _simulate, _ingest/processor/grok
 *
 * Thread safety: a node-level rwlock protects the table of indices (read
 * for lookups, write for create/delete); every request retains the
 * tv_index it works on and releases it when done, so an index deleted
 * while a request is using it stays alive until that request ends. Work
 * inside an index uses the index's own locking.
 *
 * Memory: each request has an arena (parsed bodies, decoded path and
 * parameters, temporary strings); the response body is a heap buffer that
 * is handed to the caller.
 *
 * Errors from lower layers arrive as tv_error. Interface rule for the
 * search layer: an error whose `index` field is set is a shard-level
 * failure and is wrapped in search_phase_execution_exception ("all shards
 * failed", failed_shards[...]) as OpenSearch does; an error without it is
 * a request-level error (parsing_exception, x_content_parse_exception,
 * action_request_validation_exception, ...) and is answered as is.
 */
#ifndef TROVE_API_H
#define TROVE_API_H

#include <pthread.h>
#include <stdatomic.h>

#include "index/index.h"
#include "json/json.h"
#include "node/node.h"
#include "script/script.h"
#include "search/search.h"
#include "util/util.h"

/* HTTP methods OpenSearch knows (RestRequest.Method). */
typedef enum tv_method {
    TV_GET = 0,
    TV_POST,
    TV_PUT,
    TV_DELETE,
    TV_HEAD,
    TV_OPTIONS,
    TV_PATCH,
    TV_TRACE,
    TV_CONNECT,
    TV_METHOD_COUNT
} tv_method;
const char *tv_method_name(tv_method m);

/* One URL query parameter (decoded, NUL-terminated, arena-allocated). */
typedef struct tv_param {
    const char *key;
    const char *val;
} tv_param;

/* ---------------------------------------------------------------- errors */

/*
 * An error as OpenSearch prints it. Metadata keys are printed in the order
 * OpenSearch's exception metadata map iterates them (a Java HashMap of
 * "opensearch.<key>"), so callers add them in OpenSearch's insertion order
 * and the writer reorders. The type is a code of the status table (its
 * type string, whether it is an OpenSearchException, its Java class);
 * status is the HTTP status, the type's own unless set otherwise.
 */
#define TV_API_ERR_MAX_META 6
typedef struct tv_api_err tv_api_err;
struct tv_api_err {
    tv_status type;
    const char *reason;
    const char *meta_key[TV_API_ERR_MAX_META];
    const char *meta_val[TV_API_ERR_MAX_META];
    int nmeta;
    int64_t line, col; /* printed when line > 0 (parsing_exception) */
    int status;
    bool wrapper; /* an OpenSearchException that carries a non-OpenSearch
                     cause's type and reason (a search shard failure's) */
    tv_api_err *cause;
    /* extra fields written after metadata (search_phase_execution_exception) */
    void (*extra)(tv_jw *w, const tv_api_err *e);
    const void *extra_ctx;
    tv_api_err *const *root_causes; /* overrides the root cause search */
    size_t nroot_causes;
};

/* ------------------------------------------------------------- requests */

typedef struct tv_req {
    trove_node *node;
    tv_arena arena;
    tv_method method;
    const char *uri;      /* the whole request target */
    const char *raw_path; /* up to '?', NUL-terminated */
    const char *path;     /* raw_path percent-decoded */
    const char *body;
    size_t body_len;
    tv_param *params;
    size_t nparams;
    /* path parameters of the matched route (decoded) or NULL */
    const char *p_index;
    const char *p_index_given; /* {index} as the path named it, before an
                                  alias was replaced by its index (doc APIs) */
    const char *p_id;
    const char *p_name; /* {name}, {alias}, {metric} ... path parameter */
    const char *p_name2; /* a second such parameter (/_cat/aliases/{name}) */
    const char *p_name3; /* a third (/_nodes/{id}/stats/{metric}/{index_metric}) */
    const char *const *route_params; /* the matched route's parameter list */
    int64_t in_flight; /* bytes reserved on the in-flight requests breaker */
    tv_breaker_trip *trip; /* filled by a refused reservation (trove_request's) */
    const char *path_params[5];       /* its path parts' names (NULL-ended) */
    bool pretty;
    /* waiting (trove_request_nowait): a handler that waits for a condition
     * starts its timeout at since_ms (tv_mono_ns in ms; 0: not started,
     * the handler sets it) and, with nowait, never sleeps: it sets waits
     * and retry_ms and answers nothing */
    bool nowait;
    int64_t since_ms;
    bool waits;
    int retry_ms;
    /* response */
    int status;
    const char *content_type;
    tv_buf out;
    tv_jw w;
    char *allow; /* Allow header value (owned) or NULL */
    bool oom;
    tv_node_state *pinned; /* the node's state when it was shared as the
                              request began (one reference), else NULL */
} tv_req;

/* Answers 429 circuit_breaking_exception for a refused reservation, with
 * OpenSearch's bytes_wanted, bytes_limit and durability. (error.c) */
void tv_req_breaker_error(tv_req *r, const tv_breaker_trip *t);
/* For a handler that leaves some of its route's parameters unread in
 * this request (RestSearchAction reads suggest_size only with a
 * suggest_field): fails with OpenSearch's "contains unrecognized
 * parameter" error, did-you-mean included, when any of `unread`
 * (NULL-ended) was given; true otherwise. */
bool tv_req_fail_unread(tv_req *r, const char *const *unread);
/* Fails with OpenSearch's "request [path] contains unrecognized <what>: [x]
 * -> did you mean [y]?" (bad: sorted, unique; cands: NULL-terminated). */
void tv_req_fail_unrecognized(tv_req *r, const char *what, const char *const *bad, size_t nbad,
                              const char *const *cands);
/* A URL parameter's value, or NULL when absent. */
const char *tv_req_param(const tv_req *r, const char *key);
/* Boolean parameter with OpenSearch's rules ("true"/"false"/"" = true);
 * sets an illegal_argument error and returns false on a bad value. */
bool tv_req_param_bool(tv_req *r, const char *key, bool def, bool *out);
/* Integer parameter; NumberFormat-style illegal_argument on bad value. */
bool tv_req_param_i64(tv_req *r, const char *key, int64_t def, int64_t *out);

/* RestRequest.paramAsInt/paramAsLong failure: illegal_argument_exception
 * "Failed to parse <kind> parameter [key] with value [val]" caused by
 * number_format_exception "For input string: "val"". Returns false. */
bool tv_req_fail_number(tv_req *r, const char *kind, const char *key, const char *val);

/* Starts a JSON response with the given status (resets any body). */
tv_jw *tv_req_json(tv_req *r, int status);
/* A response with no body (HEAD). */
void tv_req_empty(tv_req *r, int status);

/* Writes an error envelope {"error":{...},"status":N} as the response. */
void tv_req_error(tv_req *r, const tv_api_err *e);
/* Answers the error `code` (its type and HTTP status from the status
 * table) with a reason (printf); returns false so handlers can `return
 * tv_req_fail(...)`. */
bool tv_req_fail(tv_req *r, tv_status code, const char *fmt, ...) TV_PRINTF(3, 4);
/* Answers a tv_error from a lower layer (metadata from err->index etc.). */
void tv_req_fail_tv(tv_req *r, const tv_error *err, tv_index *idx);

/* Converts a tv_error to an envelope error allocated in the arena. idx (may
 * be NULL) supplies index_uuid. */
tv_api_err *tv_api_err_from(tv_req *r, const tv_error *err, tv_index *idx);
/* Writes an exception object's inner fields (type, reason, metadata,
 * caused_by) — what OpenSearch's generateThrowableXContent writes. */
void tv_api_err_write_inner(tv_jw *w, const tv_api_err *e, bool skip_cause);
/* Sets whether error objects written on this thread carry "stack_trace"
 * (error_trace=true; an emulation, see error.c). Returns the previous
 * value. */
bool tv_api_error_trace_set(bool on);
/* Writes "error":{root_cause..,inner..} (generateFailureXContent). */
void tv_api_err_write_failure(tv_jw *w, const tv_api_err *e);
/* Adds a metadata pair (key without the "opensearch." prefix). */
void tv_api_err_meta(tv_api_err *e, const char *key, const char *val);
/* Is e an OpenSearchException (its type's, or a wrapper)? */
bool tv_api_err_os(const tv_api_err *e);
/* A new error of type `code` with its HTTP status and a reason (printf),
 * in the request arena; NULL (r->oom set) out of memory. */
tv_api_err *tv_api_err_new(tv_req *r, tv_status code, const char *fmt, ...) TV_PRINTF(3, 4);
/* The OpenSearch exception for an index that is missing. */
tv_api_err *tv_api_err_no_index(tv_req *r, const char *name);

/* ------------------------------------------------------------ node ops */


/* Before a request that changes the node's state (router.c, for every
 * handler tv_handler_writes names): gives the node a private copy of its
 * state when another node or a pinned request can see it. False on OOM. */
bool tv_node_own_state(tv_req *r);

/* Gets or auto-creates (writes to a missing index). Returns retained, or
 * NULL with the response already set to the error. */
tv_index *tv_node_index_for_write(tv_req *r, const char *name);
/*
 * Resolves an index expression ("a,b", "logs-*", "_all", NULL) to retained
 * indices sorted by name. Missing concrete names fail with
 * index_not_found_exception (the response is set, returns false) unless
 * ignore_unavailable. Wildcards matching nothing are fine.
 */
/* Search semantics (IndicesOptions.strictExpandOpenAndForbidClosed with
 * the URL's ignore_unavailable / allow_no_indices / expand_wildcards):
 * an explicitly named closed index fails with index_closed_exception. */
bool tv_node_resolve(tv_req *r, const char *expr, bool ignore_unavailable, bool allow_no_indices,
                     tv_index_list *out);
/* Reads ignore_unavailable, allow_no_indices and expand_wildcards from the
 * URL over the defaults already in o. False with the response set on a bad
 * value. */
bool tv_resolve_opts_parse(tv_req *r, tv_resolve_opts *o);
/* Resolves an index expression: comma lists, `_all`, `*` wildcards over
 * indices and aliases, `-pattern` exclusions after a wildcard, hidden
 * indices (matched by a wildcard only with TV_EXPAND_HIDDEN, or when both
 * the pattern and the name start with '.'), closed indices. Sorted by
 * name; retained. */
bool tv_node_resolve_ex(tv_req *r, const char *expr, const tv_resolve_opts *o, tv_index_list *out);
/* index_closed_exception for an index (400, reason "closed"). */
void tv_req_fail_closed(tv_req *r, tv_index *idx);
/* Resolves a single-index request target (doc APIs): an alias becomes its
 * one index (reads) or its write index (writes), a closed index fails with
 * index_closed_exception. Returns the concrete name (arena or name itself),
 * the name unchanged when nothing matches (the handler answers missing
 * indices), or NULL with the response set. */
const char *tv_node_single_target(tv_req *r, const char *name, bool write);
/* tv_node_index_for_write for callers that report errors per item
 * (_bulk): an alias without a write index, or a closed index, gives NULL
 * with *err set and the response untouched. Other failures (auto-create)
 * answer the response as tv_node_index_for_write does. */
tv_index *tv_node_index_for_write_err(tv_req *r, const char *name, tv_api_err **err);
/* Metadata.resolve(Write)IndexRouting: when `alias` (an alias that
 * resolved to `index`) has an index_routing, *out becomes it; a request
 * routing that differs, or an index_routing with several values, gives
 * false with *err (illegal_argument_exception) set. Otherwise *out =
 * routing. False with *err NULL: out of memory (r->oom). */
bool tv_node_alias_routing(tv_req *r, const char *alias, const char *index, const char *routing,
                           const char **out, tv_api_err **err);
/* Creates an index as PUT /{index} does, with templates applied and
 * aliases from the body (NULL: none) added. Caller holds node->lock for
 * writing and checked that name is free and valid. Returns the new index
 * (the node's reference; not retained for the caller) or NULL with the
 * response set (or r->oom). */
tv_index *tv_node_create_index_locked(tv_req *r, const char *name, const tv_json *settings,
                                      const tv_json *mappings, const tv_json *aliases);

/* Shard header {"total":replicas+1,"successful":1,"failed":0}. */
void tv_write_shards(tv_jw *w, int64_t total, int64_t successful);
/* ------------------------------------------------------------- handlers */

typedef void (*tv_handler)(tv_req *r);

void tv_h_root(tv_req *r);
void tv_h_index_create(tv_req *r);
void tv_h_index_get(tv_req *r);
void tv_h_index_exists(tv_req *r);
void tv_h_index_delete(tv_req *r);
void tv_h_mapping_get(tv_req *r);
void tv_h_mapping_put(tv_req *r);
void tv_h_settings_get(tv_req *r);
void tv_h_refresh(tv_req *r);
void tv_h_doc_index(tv_req *r);  /* PUT|POST /{index}/_doc/{id}, POST /{index}/_doc */
void tv_h_doc_create(tv_req *r); /* /{index}/_create/{id} */
void tv_h_doc_get(tv_req *r);    /* GET|HEAD /{index}/_doc/{id} */
void tv_h_explain(tv_req *r);    /* GET|POST /{index}/_explain/{id} (h_explain.c) */
void tv_h_source_get(tv_req *r); /* GET|HEAD /{index}/_source/{id} */
void tv_h_doc_delete(tv_req *r);
void tv_h_doc_update(tv_req *r);
void tv_h_mget(tv_req *r);
void tv_h_bulk(tv_req *r);
void tv_h_search(tv_req *r);
void tv_h_count(tv_req *r);
void tv_h_unsupported(tv_req *r); /* known OpenSearch API trove lacks */

/* ------------------------------------------------- document helpers */

/* What to return of _source (FetchSourceContext). */
typedef struct tv_source_ctx {
    bool fetch;     /* false: no _source */
    bool explicit_; /* _source/_source_includes/_source_excludes was given */
    const char **incl;
    size_t nincl;
    const char **excl;
    size_t nexcl;
} tv_source_ctx;

/* A "script" of a request body (Script.parse), inline or stored. */
typedef struct tv_api_script {
    const char *source; /* inline source (arena), or the stored script's once resolved */
    size_t len;
    const char *id;     /* a stored script's id, or NULL */
    const tv_json *params; /* an object, or NULL */
} tv_api_script;

/* Script.parse: "source" (the short form), or {source|id, lang, params,
 * options}. False with *e (or r->oom) on error. */
bool tv_api_script_parse(tv_req *r, const tv_json *v, tv_api_script *s, tv_api_err **e);
/* Resolves a stored script and compiles (through the script cache) for a
 * context with `globals` (TV_SCRIPT_G_*). Returns a reference to release,
 * or NULL with *e (a stored script not found, a ScriptException) or
 * r->oom. */
tv_script *tv_api_script_compile(tv_req *r, tv_api_script *s, unsigned globals, tv_api_err **e);
/* A script error as OpenSearch's ScriptException (script_stack, script,
 * lang, position, caused_by), or out of memory (NULL, r->oom). */
tv_api_err *tv_api_script_error(tv_req *r, const tv_api_script *s, const tv_script_error *err);
/* Registers the Painless hooks of the text layer's condition and
 * predicate_token_filter (h_analyze.c); trove_node_open calls it. */
void tv_api_register_analysis_scripts(void);
/* tv_stored_script_fn (query/request.h) over the node's stored scripts:
 * ctx is the tv_req; the source is copied into its arena (NULL: no such
 * painless script). */
const char *tv_api_stored_script(const void *ctx, const char *id, size_t *len);
/* The params of s as a script value (an empty map when none). */
bool tv_api_script_params(tv_req *r, const tv_api_script *s, tv_sv *out);

/* A parsed _update request. */
typedef struct tv_update_req {
    tv_write_opts opts;
    const tv_json *doc, *upsert;
    const char *doc_raw, *upsert_raw; /* compact JSON of doc/upsert (arena) */
    size_t doc_len, upsert_len;
    bool doc_as_upsert, detect_noop, want_source;
    tv_source_ctx sc;
    int64_t retry_on_conflict;
    bool has_script, scripted_upsert;
    tv_api_script script;
} tv_update_req;

bool tv_api_parse_refresh(const char *v, tv_refresh *out);
bool tv_api_parse_version_type(const char *v, tv_version_type *out);
/* IndexRequest/DeleteRequest.validate: appends "N: msg;" items to v. */
void tv_api_validate_write(tv_buf *v, int *n, const char *id, const tv_write_opts *o, bool is_delete);
/* 201 created, 404 not_found, else 200. */
int tv_api_write_status(const tv_write_result *res);
/* DocWriteResponse fields (_index .. _primary_term), inside an open object. */
void tv_api_write_result(tv_jw *w, const char *index, const char *id, size_t id_len, const tv_write_result *res,
                         int64_t shard_total);
/* A write failure from the index layer as OpenSearch reports it. */
tv_api_err *tv_api_write_error(tv_req *r, const tv_error *err, tv_index *idx);
/* FetchSourceContext.parseFromRestRequest. */
bool tv_api_source_ctx(tv_req *r, const char *source, const char *incl, const char *excl, tv_source_ctx *sc);
/* "_source": filtered as sc asks (key=false: the value only). */
bool tv_api_write_source(tv_req *r, tv_jw *w, const char *src, size_t len, const tv_source_ctx *sc, bool key);
/* GetResult fields after _index/_id for a found document. */
bool tv_api_write_get_found(tv_req *r, tv_jw *w, tv_index *idx, const tv_doc_meta *meta, const char *src,
                            size_t srclen, const tv_source_ctx *sc, const char *const *stored, size_t nstored,
                            bool with_version);
/* Parses an update body; false with *e (or r->oom) on error. */
bool tv_api_parse_update(tv_req *r, const tv_json *body, const char *text, size_t text_len, tv_update_req *u,
                         tv_api_err **e);
/* Runs an update; writes the response fields into w (inside an open
 * object; w may be NULL) and returns the HTTP status, or 0 with *e set (or
 * r->oom) on failure. */
int tv_api_update(tv_req *r, tv_index *idx, const char *id, const tv_update_req *u, tv_jw *w, tv_api_err **e);

/* ------------------------------------------- sharded answers (shards.c) */

/* True when a document with this _id exists but on another shard than the
 * routing (NULL: the _id) reaches: the write must answer not found. Sets
 * r->oom on failure. */
bool tv_api_doc_elsewhere(tv_req *r, tv_index *idx, const char *id, size_t id_len, const char *routing,
                          size_t routing_len);
/* A delete that found nothing on its shard: result not_found, _version 1
 * (no _seq_no: nothing was written). */
void tv_api_write_not_found(tv_jw *w, const char *index, const char *id, size_t id_len, int64_t shard_total);
/* Sets the "shard" metadata of e (and its causes) to the shard the _id
 * and routing reach (errors are built with shard 0). */
void tv_api_err_fix_shard(tv_req *r, tv_api_err *e, tv_index *idx, const char *id, const char *routing,
                          size_t routing_len);
/* routing_missing_exception "routing is required for [index]/[id]". */
tv_api_err *tv_api_err_routing_missing(tv_req *r, const char *index, const char *id);
/* index_not_found_exception of a require_alias write to a non-alias. */
tv_api_err *tv_api_err_require_alias(tv_req *r, const char *name);
/* FetchSourceContext.fromXContent: true/false, "field", ["a","b"], or
 * {"includes"|"include": s|[..], "excludes"|"exclude": s|[..]}. */
bool tv_api_source_ctx_json(tv_req *r, const tv_json *v, tv_source_ctx *sc);

/* ------------------------------------------ aliases, settings, output */

/* Adds the aliases of a create-index body ({"a":{...},"b":{}}) to index;
 * caller holds node->lock for writing. False with the response set. */
bool tv_alias_add_from_body_locked(tv_req *r, const char *index, const tv_json *aliases);
/* Rollover's alias move (caller holds node->lock for writing): alias is
 * added to new_index; it leaves old_index, or stays there as
 * is_write_index false when it was the explicit write alias. */
bool tv_alias_rollover_locked(tv_req *r, const char *alias, const char *old_index, const char *new_index);
/* A template's "aliases" as AliasMetadata writes them ("routing" becomes
 * index_routing and search_routing); false with the error answered when a
 * spec is bad. */
bool tv_alias_write_metadata(tv_req *r, tv_jw *w, const tv_json *aliases);
/* Writes {"alias":{...},...} of one index (caller holds node->lock). */
void tv_alias_write_index_aliases_locked(trove_node *n, tv_jw *w, const char *index);

/* A flattened setting: dotted key and string (or array) value, NULL for a
 * null (a reset). Arena-allocated. */
typedef struct tv_kv {
    const char *key;
    const tv_json *val;
} tv_kv;
/* Flattens a settings object to sorted unique keys (later duplicates win),
 * values as strings; index_prefix adds "index." where missing. False on
 * OOM. */
bool tv_flatten_settings(tv_arena *a, const tv_json *obj, bool index_prefix, tv_kv **out, size_t *n);
/* The kv list as a JSON object: flat, or nested in HashMap order (as
 * Settings.toXContent prints it). NULL on OOM. */
tv_json *tv_kv_to_json(tv_arena *a, const tv_kv *kv, size_t n, bool flat);
/* Splits on '.' into non-empty arena strings. */
size_t tv_split_dots(tv_arena *a, const char *s, const char ***out);
/* Rewrites a JSON body keeping what filter_path keeps; false when the body
 * does not parse or on OOM (then out is unspecified). */
bool tv_filter_path_apply(tv_arena *a, const char *filter, const char *json, size_t len, bool pretty, tv_buf *out);

/* Handlers of the cluster, alias, _cat, _stats, template and _analyze APIs. */
void tv_h_cluster_health(tv_req *r);
void tv_h_cluster_settings_get(tv_req *r);
void tv_h_cluster_settings_put(tv_req *r);
void tv_h_rollover(tv_req *r);
void tv_h_settings_put(tv_req *r);
void tv_h_index_open(tv_req *r);
void tv_h_index_close(tv_req *r);
void tv_h_aliases_post(tv_req *r);
void tv_h_alias_put(tv_req *r);
void tv_h_alias_delete(tv_req *r);
void tv_h_alias_get(tv_req *r); /* GET and HEAD */
void tv_h_search_aliased(tv_req *r); /* _search with alias filters */
void tv_h_count_aliased(tv_req *r);
void tv_h_cat_health(tv_req *r);
/* h_nodes.c: _nodes/stats (the breaker metric) and the breakers' settings */
void tv_h_nodes_stats(tv_req *r);
void tv_h_nodes_stats_node(tv_req *r);
/* A breaker setting's new value checked as OpenSearch's settings updater
 * does (false: the 400 is set); other keys pass. */
bool tv_api_breaker_setting_check(tv_req *r, const char *key, const tv_json *val);
/* Recomputes n's breaker limits from its cluster settings. */
void tv_api_breakers_apply(trove_node *n);
void tv_h_cat_indices(tv_req *r);
void tv_h_cat_count(tv_req *r);
void tv_h_cat_aliases(tv_req *r);
void tv_h_stats(tv_req *r);
/* h_stats.c, for _nodes/stats: CommonStats' metric names in output order
 * (bit i of a mask is [i]; NULL-terminated), the fields of one CommonStats
 * object (the caller opens and closes it), and CommonStats.add. */
extern const char *const tv_api_stats_metrics[];
#define TV_API_STATS_ALL ((1u << 16) - 1)
void tv_api_write_common_stats(tv_jw *w, const tv_index_stats *st, unsigned mask, bool human, bool fd_fields,
                               bool comp_fields);
void tv_api_stats_add(tv_index_stats *a, const tv_index_stats *b);
void tv_h_flush(tv_req *r);      /* _flush */
/* h_stats.c: a get by id that started at t0 (tv_mono_ns), in the index's
 * GetStats (exists or missing, with its time). */
void tv_api_count_get(tv_index *idx, bool found, uint64_t t0);
/* h_stats.c: flushes one index as _flush does (translog synced, refreshed,
 * committed on a data directory) and counts the flush. The close of an
 * index flushes too. TROVE_OK, or err filled (TROVE_ENOMEM on OOM). */
tv_status tv_api_flush_index(tv_req *r, tv_index *idx, tv_error *err);
void tv_h_forcemerge(tv_req *r); /* _forcemerge */
/* The string value of index setting `key` ("default_pipeline") that the
 * index templates matching a new index `name` would give it (in the
 * arena), NULL when none does. (h_template.c) */
const char *tv_api_template_setting(tv_req *r, const char *name, const char *key);
void tv_h_template_put(tv_req *r);
void tv_h_template_get(tv_req *r); /* GET and HEAD */
void tv_h_script_put(tv_req *r);    /* PUT/POST _scripts/{id}[/{context}] */
void tv_h_script_get(tv_req *r);
void tv_h_script_delete(tv_req *r);
void tv_h_template_delete(tv_req *r);
void tv_h_analyze(tv_req *r);
void tv_h_field_caps(tv_req *r); /* GET|POST [/{index}]/_field_caps (h_field_caps.c) */

/* ------------------------------- cluster, nodes, _cat and snapshots */

/* h_cluster_state.c */
void tv_h_cluster_state(tv_req *r);              /* GET /_cluster/state[/{metric}[/{index}]] */
void tv_h_voting_exclusions_post(tv_req *r);     /* POST /_cluster/voting_config_exclusions */
void tv_h_voting_exclusions_delete(tv_req *r);   /* DELETE /_cluster/voting_config_exclusions */
void tv_h_cluster_pending_tasks(tv_req *r);      /* GET /_cluster/pending_tasks */
void tv_h_remote_info(tv_req *r);                /* GET /_remote/info */
/* The cluster state's state_uuid for the node's current version (caller
 * holds node->lock). */
void tv_api_state_uuid(trove_node *n, char out[24]);
/* An index's number_of_shards (at least 1) and, when replicas is set,
 * number_of_replicas. */
int64_t tv_api_index_shards(tv_index *idx, int64_t *replicas);
/* UnassignedInfo of an index's replicas on one node: INDEX_CREATED at its
 * creation date. */
void tv_api_write_unassigned_info(tv_jw *w, tv_index *idx);
/* The allocation id of a shard's started primary (stable per index uuid
 * and shard). */
void tv_api_allocation_id(tv_index *idx, int shard, char out[24]);
/* Epoch milliseconds as OpenSearch's strict_date_optional_time in UTC. */
void tv_api_format_date(int64_t ms, char out[40]);
/* h_cluster_stats.c */
void tv_h_cluster_stats(tv_req *r);              /* GET /_cluster/stats[/nodes/{node_id}] */
/* h_cluster_alloc.c */
void tv_h_cluster_allocation_explain(tv_req *r); /* GET|POST /_cluster/allocation/explain */

/* h_nodes.c: the node's identity, the process, nodes info */
#define TV_API_TRANSPORT_ADDRESS "127.0.0.1:9300"
extern const char *const tv_api_node_roles[]; /* NULL-ended, sorted */
void tv_api_write_node_roles(tv_jw *w);
/* The node's attributes: the custom ones (--node-attr, sorted by name) as
 * a JSON object in r's arena, and the attributes object _nodes and the
 * cluster state write (the custom ones, then the
 * shard_indexing_pressure_enabled OpenSearch adds). */
const tv_json *tv_api_node_attrs(tv_req *r);
/* The node's plugins as a JSON array of PluginInfo objects (h_nodes.c):
 * analysis-kuromoji when Japanese analysis is available, else empty.
 * _nodes and _cluster/stats write it. */
void tv_api_plugins_json(tv_jw *w);
void tv_api_write_node_attributes(tv_req *r, tv_jw *w);
/* Reads a whole small /proc file into buf (NUL-terminated); false when it
 * cannot be read. The number after "key" (and blanks or a colon) in such
 * a text, -1 when the key is absent. (h_nodes.c) */
bool tv_api_read_proc(const char *path, char *buf, size_t cap);
int64_t tv_api_proc_field(const char *text, const char *key);
/* The node's settings as sorted kv in r's arena: cluster.name, node.name,
 * node.attr.*, and with `defaults` the defaults of the settings trove
 * honours (breakers, search.max_buckets, ...). r->oom set on failure. */
size_t tv_api_node_settings(tv_req *r, bool defaults, tv_kv **out);
void tv_api_node_ephemeral_id(trove_node *n, char out[24]);
/* What the process and the system say about themselves (/proc). */
typedef struct tv_api_sys {
    int64_t pid, processors, start_ms, cpu_ms;
    int64_t rss_bytes, virtual_bytes;
    int64_t mem_total, mem_free, swap_total, swap_free;
    int64_t open_fds, max_fds;
    char os_name[64], os_arch[64], os_version[128], pretty_name[128];
} tv_api_sys;
void tv_api_sys_info(tv_api_sys *s);
/* A thread pool as OpenSearch sizes it (ThreadPool.Names). */
typedef struct tv_api_pool {
    const char *name, *type;
    int64_t core, max, queue_size;
    const char *keep_alive; /* scaling pools, else NULL */
} tv_api_pool;
/* The pools sorted by name into out (up to cap); returns how many exist. */
size_t tv_api_thread_pools(tv_api_pool *out, size_t cap);
void tv_h_nodes_info(tv_req *r);      /* GET /_nodes */
void tv_h_nodes_info_one(tv_req *r);  /* GET /_nodes/{node_id or metric} */
void tv_h_nodes_info_node(tv_req *r); /* GET /_nodes/{node_id}/{metric} */

/* h_component_template.c */
void tv_h_component_template_put(tv_req *r);
void tv_h_component_template_get(tv_req *r); /* GET and HEAD */
void tv_h_component_template_delete(tv_req *r);
/* The index of a component template in the node's template list, or -1
 * (caller holds node->lock). */
int tv_component_template_find_locked(trove_node *n, const char *name);

/* _cat: h_cat_templates.c, h_cat_shards.c, h_cat_node.c */
void tv_h_cat_templates(tv_req *r);
void tv_h_cat_shards(tv_req *r);
void tv_h_cat_recovery(tv_req *r);
void tv_h_cat_cluster_manager(tv_req *r); /* and the deprecated /_cat/master */
void tv_h_cat_thread_pool(tv_req *r);
void tv_h_cat_plugins(tv_req *r);
void tv_h_cat_pending_tasks(tv_req *r);
void tv_h_cat_nodeattrs(tv_req *r);
void tv_h_cat_nodes(tv_req *r);
void tv_h_cat_allocation(tv_req *r);

/* h_snapshot.c */
void tv_h_repository_put(tv_req *r);
void tv_h_repository_get(tv_req *r);
void tv_h_repository_delete(tv_req *r);
void tv_h_repository_verify(tv_req *r);
void tv_h_repository_cleanup(tv_req *r);
void tv_h_snapshot_create(tv_req *r);
void tv_h_snapshot_get(tv_req *r);
void tv_h_snapshot_delete(tv_req *r);
void tv_h_snapshot_status(tv_req *r);
void tv_h_cat_snapshots(tv_req *r);
void tv_h_cat_repositories(tv_req *r);

/* Runs the router over a prepared request. */
void tv_api_dispatch(tv_req *r);

/* ----------------------------------------------------------- json utils */

/* Parses a request body; on failure answers OpenSearch's error for the
 * given context and returns NULL. */
typedef enum tv_body_ctx {
    TV_BODY_MAP,    /* convertToMap: parse_exception "Failed to parse content to map" */
    TV_BODY_PARSER, /* a streaming parser: json_parse_exception / x_content_parse_exception */
} tv_body_ctx;
const tv_json *tv_req_parse_body(tv_req *r, tv_body_ctx ctx);



/* ------------------------------------------------- search APIs (apiB) */
/* URI search, _msearch, _delete_by_query / _update_by_query, scroll and
 * point in time: h_search.c, h_msearch.c, h_byquery.c, h_scroll.c. */

/*
 * Runs a search (count: a _count) over targets whose snapshots the caller
 * holds, and answers r: 200 with the search layer's response — preceded by
 * "<id_key>":"<id>" when id_key is set (_scroll_id, pit_id) — or the error,
 * shard failures wrapped in search_phase_execution_exception. idx[i] (may
 * be NULL, or idx itself) is the index of targets[i], for index_uuid.
 * Returns true on a 200 answer.
 */
bool tv_api_search_answer(tv_req *r, const tv_search_target *targets, tv_index *const *idx, size_t n,
                          const tv_json *body, const tv_search_params *p, const char *id_key,
                          const char *id, bool count);
/* The search targets of resolved indices (request arena): each index's
 * snapshot acquired (the caller releases targets[0..*nt)) and its search
 * limits (max_result_window, max_docvalue_fields, max_rescore_window,
 * max_analyzed_offset) from its settings. On OOM r->oom is set and *nt
 * says how many were acquired (NULL when none could be allocated). */
/* A target's shard narrowing (routing, `_shards:` preference) kept beyond
 * the request (a scroll's later pages): a heap copy (tv_free) or NULL when
 * every shard is searched, and its restoration into t in r's arena. */
void *tv_api_target_pick_save(const tv_search_target *t);
bool tv_api_target_pick_restore(tv_req *r, tv_search_target *t, const void *saved, uint32_t nshards);
tv_search_target *tv_api_targets(tv_req *r, const tv_index_list *l, size_t *nt);
/* Answers a shard failure as OpenSearch reports a search whose every shard
 * failed: search_phase_execution_exception "all shards failed" (phase
 * "query", failed_shards [{shard, index, node, reason}]; index NULL prints
 * null and omits node, as a scroll whose context is gone). */
void tv_api_search_shard_failure(tv_req *r, tv_api_err *shard_err, const char *index, int shard);
/* TimeValue.parseTimeValue(v, key): milliseconds, or false with the
 * response set to OpenSearch's error for a bad value. */
bool tv_api_parse_time_ms(tv_req *r, const char *key, const char *v, int64_t *ms);
/* TimeValue.toString() of milliseconds: "1s", "1.5m", "250ms". (h_scroll.c) */
void tv_api_time_str(int64_t ms, char *out, size_t cap);

/* Scroll and PIT contexts of a node (h_scroll.c). The registry hangs off
 * trove_node.search_ctxs and is freed with the node. */
void tv_search_ctxs_free(trove_node *n);
/* A _search with ?scroll: validates (SearchRequest.validate's scroll
 * rules), opens a context over the targets (snapshots retained) and
 * answers the first page with _scroll_id. */
void tv_api_scroll_start(tv_req *r, const tv_search_target *targets, tv_index *const *idx, size_t n,
                         const tv_json *body, tv_search_params *p, int64_t keep_alive_ms);
/* A _search whose body names a point in time ("pit": {"id", "keep_alive"}). */
void tv_api_pit_search(tv_req *r, const tv_json *body, tv_search_params *p);
/* SearchRequest.validate's _shard_doc rules over the body's "sort" (a
 * "_shard_doc" name or object key): appended to v as "N: message;" after
 * nv earlier errors; returns the new count. (h_search.c) */
int tv_api_shard_doc_errors(const tv_json *body, bool scroll, bool pit, tv_buf *v, int nv);
/* The search request's URL parameters that only the transport-level
 * request reads (SearchRequest's setters): pre_filter_shard_size and
 * max_concurrent_shard_requests (>= 1), and with batched
 * batched_reduce_size (>= 2). Sets the error and returns false on a bad
 * value. (h_search.c) */
bool tv_api_search_request_params(tv_req *r, bool batched);
/* The node-wide search limits from the cluster settings into p:
 * search.max_buckets, indices.query.bool.max_clause_count. (h_search.c) */
void tv_api_search_limits(tv_req *r, tv_search_params *p);

void tv_h_msearch(tv_req *r);         /* GET|POST [/{index}]/_msearch */
void tv_h_delete_by_query(tv_req *r); /* POST /{index}/_delete_by_query */
void tv_h_update_by_query(tv_req *r); /* POST /{index}/_update_by_query */
void tv_h_scroll(tv_req *r);          /* GET|POST /_search/scroll[/{scroll_id}] */
void tv_h_clear_scroll(tv_req *r);    /* DELETE /_search/scroll[/{scroll_id}] */
void tv_h_pit_create(tv_req *r);      /* POST /{index}/_search/point_in_time */
void tv_h_pit_delete(tv_req *r);      /* DELETE /_search/point_in_time */
void tv_h_pit_delete_all(tv_req *r);  /* DELETE /_search/point_in_time/_all */
void tv_h_validate_query(tv_req *r);  /* GET|POST [/{index}]/_validate/query (h_validate.c) */
void tv_h_pit_list(tv_req *r);        /* GET /_search/point_in_time/_all */


/* ---------------------------------------------------- tasks (h_tasks.c) */

/*
 * BulkByScrollTask.Status: what one worker of a by-query or reindex
 * request has done (a leader's is its slices' sum). throttled and
 * throttled_until in nanoseconds; rps INFINITY when unlimited.
 */
typedef struct tv_bbs_status {
    int64_t slice_id; /* -1: not a slice */
    int64_t total, updated, created, deleted, batches, version_conflicts, noops, retries_bulk, retries_search;
    int64_t throttled_ns, throttled_until_ns;
    float rps;
    const char *canceled; /* static reason, or NULL */
} tv_bbs_status;
void tv_bbs_status_init(tv_bbs_status *s, int64_t slice_id, float rps);
/* The status's fields inside an open object (BulkByScrollTask.Status
 * innerXContent): updated and created only when asked (the responses of
 * _delete_by_query and _update_by_query leave them out), then the slices'
 * statuses as "slices" when n > 0. */
void tv_bbs_status_write(tv_jw *w, const tv_bbs_status *s, bool updated, bool created, const tv_bbs_status *slices,
                         size_t n);
/* The leader's status: the slices' sum. */
void tv_bbs_status_sum(tv_bbs_status *out, const tv_bbs_status *slices, size_t n, float rps);

/*
 * A task: a by-query or reindex request while it runs (listed by GET
 * /_tasks, rethrottled, cancelled), and, when it ran with
 * wait_for_completion=false, its stored result (GET /_tasks/{id}).
 * Owned by the node's registry; pointers stay valid while the request
 * that began it runs.
 */
typedef struct tv_task tv_task;
/* The task the calling thread runs for (a task thread's request), or NULL. */
tv_task *tv_task_current(void);
/* Registers a task for a request that runs on this thread. action:
 * OpenSearch's action name; description as its request describes itself.
 * NULL out of memory. */
tv_task *tv_task_begin(tv_req *r, const char *action, const char *description);
/* Ends a task begun with tv_task_begin (its result is not kept). */
void tv_task_end(tv_req *r, tv_task *t);
/*
 * Runs r again on a task thread (the same method, target and body; the
 * handler finds itself through tv_task_current). store: keep the result
 * for GET /_tasks/{id} (wait_for_completion=false), and answer
 * {"task":"<node>:<id>"}; otherwise r waits for the task (blocking, or
 * through trove_request_nowait's retries) and answers what it answered.
 * Sets r's response (or r->oom).
 */
void tv_task_spawn(tv_req *r, const char *action, const char *description, bool store);
/* A request asked again while it waits for the task it spawned (r->since_ms
 * < 0): answers the task's answer, or waits again. True when r was such a
 * request. */
bool tv_task_resume(tv_req *r);
/* The task's status, published for GET /_tasks (worker: the running slice
 * or the only worker; slices: all of them, or NULL). */
void tv_task_publish(tv_task *t, const tv_bbs_status *leader, const tv_bbs_status *slices, size_t n);
/* requests_per_second of the task now (rethrottle changes it); INFINITY:
 * unlimited. */
float tv_task_rps(tv_task *t);
/* The request's requests_per_second, as the task starts (a rethrottle
 * that came first wins). */
void tv_task_set_rps(tv_task *t, float rps);
/* The throttle's delay before a batch (DelayedPrepareBulkRequest):
 * sleeps delay_ns, scheduled at sched_rps; a rethrottle to a rate not
 * slower than that rescales the remaining delay (remaining * old / new,
 * unlimited: none), a cancel ends it at once. *until_ns follows the
 * remaining delay; *credited_ns is the delay of the schedule that ran
 * (what throttled_millis counts). False when cancelled. */
bool tv_task_throttle(tv_task *t, int64_t delay_ns, float sched_rps, int64_t *until_ns, int64_t *credited_ns);
/* Has the task been cancelled (then its reason in *why)? */
bool tv_task_cancelled(tv_task *t, const char **why);
/* Cancels and joins every task thread and frees the registry. */
void tv_tasks_free(trove_node *n);

void tv_h_tasks_list(tv_req *r);       /* GET /_tasks */
void tv_h_tasks_get(tv_req *r);        /* GET /_tasks/{task_id} */
void tv_h_tasks_cancel(tv_req *r);     /* POST /_tasks[/{task_id}]/_cancel */
void tv_h_rethrottle(tv_req *r);       /* POST /_{reindex,update_by_query,delete_by_query}/{task_id}/_rethrottle */
void tv_h_reindex(tv_req *r);          /* POST /_reindex (h_reindex.c) */

/* h_nodes.c: does a node_id list select this node; the node's
 * name, transport_address, host, ip, roles and attributes (inside its
 * open object). */
bool tv_api_node_selects(tv_req *r, const char *ids);
void tv_api_node_head(tv_req *r, tv_jw *w);
/* The "_nodes" {total, successful, failed} and "cluster_name" members a
 * nodes-level answer opens with (one: this node was selected). */
void tv_api_nodes_header(tv_req *r, tv_jw *w, bool one);

/* --------------------------------- the by-scroll worker (h_byquery.c) */

/* One document a by-query or reindex found (request arena). */
typedef struct tv_bbs_doc {
    const char *index;
    tv_index *idx;
    const char *id;
    size_t id_len;
    int64_t seq_no, primary_term, version;
    const char *routing; /* NULL: none */
    size_t routing_len;
    const char *src; /* the stored _source bytes, NULL when not stored */
    size_t src_len;
} tv_bbs_doc;

typedef enum { TV_BBS_UPDATED, TV_BBS_CREATED, TV_BBS_DELETED, TV_BBS_NOOP } tv_bbs_outcome;
/* What an apply callback returns. */
enum { TV_BBS_OK, TV_BBS_CONFLICT, TV_BBS_FAILED, TV_BBS_FATAL, TV_BBS_OOM };

/* A by-scroll request's options and its per-document write. */
typedef struct tv_bbs_job {
    bool proceed;        /* conflicts=proceed */
    int64_t scroll_size; /* documents per batch */
    int64_t max_docs;    /* -1: all */
    int64_t slices;      /* resolved, >= 1 */
    float rps;           /* INFINITY: unlimited */
    bool refresh;
    int64_t wfas;        /* wait_for_active_shards (-1: all, resolved by the caller) */
    const char *wfas_text;
    int64_t timeout_ms;  /* the bulk's timeout */
    tv_index *dest;      /* reindex: the index written when it exists, else NULL */
    const char *dest_name; /* reindex: the index written (failures name it), else NULL */
    bool upd_field, cre_field; /* the response prints updated / created */
    /* writes one document: TV_BBS_OK (*oc set), TV_BBS_CONFLICT or
     * TV_BBS_FAILED (*err set), TV_BBS_FATAL (r's answer set: the request
     * ends), TV_BBS_OOM */
    int (*apply)(tv_req *r, void *ud, const tv_bbs_doc *d, tv_bbs_outcome *oc, tv_api_err **err);
    void *ud;
} tv_bbs_job;
/* Runs the job's workers over docs (in _doc order) and answers r with the
 * BulkByScrollResponse; refreshes `refresh` when the job says so. */
void tv_bbs_run(tv_req *r, tv_task *task, const tv_bbs_job *j, tv_bbs_doc *docs, size_t n, uint64_t t0,
                tv_index *const *refresh, size_t nrefresh);
/* The by-scroll search over resolved indices: every live document in _doc
 * order with _seq_no/_primary_term (version: _version; source: the stored
 * _source), the query of sbody (url_query: and q/df/analyzer/
 * default_operator from the URL). *t (*nt of them) are the targets whose
 * snapshots the caller releases; out (the caller's, fini'd by it) holds
 * the text the docs point into. False with r answered (as _search) or
 * r->oom. */
bool tv_bbs_search(tv_req *r, const tv_index_list *l, tv_search_target **t, size_t *nt, const tv_json *sbody,
                   bool url_query, bool source, bool version, tv_buf *out, tv_bbs_doc **docs, size_t *nd);
/* What a by-scroll script (_update_by_query, _reindex) left for its
 * document: index its new _source, delete it, or nothing; and for a
 * reindex what it changed of the dest request (NULL / false: unchanged). */
typedef enum { TV_BBS_ACT_INDEX, TV_BBS_ACT_DELETE, TV_BBS_ACT_NOOP } tv_bbs_act_kind;
typedef struct tv_bbs_act {
    tv_bbs_act_kind kind;
    const char *src; /* TV_BBS_ACT_INDEX: the new source (arena) */
    size_t len;
    const char *index, *id; /* reindex: ctx._index / ctx._id set to these */
    bool routing_set;       /* reindex: ctx._routing changed, to routing (NULL: none) */
    const char *routing;
    bool version_cleared;   /* reindex: ctx._version = null (internal versioning) */
} tv_bbs_act;
/* Runs the script of a by-scroll request on d (compiled into *sc at the
 * first document): ctx {_index, _id, _version, _routing, _source, op} and
 * OpenSearch's checks of what it left there (a reindex may change _index,
 * _id and _routing; an update by query changes none). False with *e, or
 * r->oom. */
bool tv_bbs_script(tv_req *r, tv_api_script *as, tv_script **sc, const tv_bbs_doc *d, bool reindex, tv_bbs_act *act,
                   tv_api_err **e);
/* Parses a search body as the request's parse would (ReindexRequest
 * parses source as a search source): false with r answered on an error. */
bool tv_bbs_check_source(tv_req *r, const tv_json *sbody);
/* requests_per_second from the URL (INFINITY when absent or -1). */
bool tv_bbs_parse_rps(tv_req *r, float *out);
/* wait_for_active_shards and timeout from the URL into j. */
bool tv_bbs_parse_wfas(tv_req *r, tv_bbs_job *j);
/* Arrays.toString of an index expression's parts ("[a, b]"). */
const char *tv_bbs_indices_desc(tv_req *r, const char *expr);
/* slices=auto: the fewest shards among the indices. */
int64_t tv_bbs_auto_slices(const tv_index_list *l);

/* ------------------------------------------------ management (h_trove.c) */

/*
 * Clone transport: how a clone made by POST /_trove/clones is reached. The
 * server registers it; the api layer never calls the server itself.
 * open(ud, clone, &token) makes clone reachable and returns its port (> 0)
 * or -1; on success the transport OWNS clone (it frees it with
 * trove_node_free once closed and no connection uses it any more) and
 * token identifies it. close(ud, token) stops serving it (new connections
 * are refused from then on). Without a transport, POST /_trove/clones
 * answers 400 illegal_argument_exception (in-process users call
 * trove_node_clone() directly).
 */
typedef int (*tv_clone_open_fn)(void *ud, trove_node *clone, void **token);
typedef void (*tv_clone_close_fn)(void *ud, void *token);
/* Sets (or, with open NULL, removes) base's clone transport. Removing it
 * closes every live clone through the old close callback. Not thread-safe
 * against requests on base: call before serving and after the loops end.
 * Returns TROVE_OK or TROVE_ENOMEM. */
int trove_node_set_clone_transport(trove_node *base, tv_clone_open_fn open, tv_clone_close_fn close, void *ud);
/* Makes the URLs of base's clones https:// (their listeners speak TLS).
 * Call after trove_node_set_clone_transport, before serving. */
void trove_node_set_clone_https(trove_node *base, bool on);
/* Freezes (or thaws) a node: while frozen, writes answer 403. */
void trove_node_set_frozen(trove_node *n, bool frozen);
/* osmem's flavour: a frozen node refuses writes with osmem's 403
 * osmem_base_frozen instead of trove_base_frozen (trove started the way
 * osmem's test helpers start their server). */
void trove_node_set_osmem_flavor(trove_node *n, bool on);
void tv_h_osmem_base(tv_req *r); /* GET /_osmem/base */
bool trove_node_is_frozen(trove_node *n);
/* Releases the registry (node.c calls it from trove_node_free). */
void tv_trove_mgmt_free(trove_node *n);
/* Answers 403 trove_base_frozen and returns true when the node is frozen
 * and handler h (matched for r->method) changes the node. */
bool tv_trove_refuse_frozen(tv_req *r, tv_handler h);
/* Does handler h (matched for r) change the node's state? The handlers a
 * frozen node refuses, plus refresh and flush and any ?refresh=true:
 * before them the router gives the node a private state. */
bool tv_handler_writes(const tv_req *r, tv_handler h);
void tv_h_trove_info(tv_req *r);           /* GET /_trove */
void tv_h_trove_freeze(tv_req *r);         /* POST /_trove/base/freeze */
void tv_h_trove_unfreeze(tv_req *r);       /* POST /_trove/base/unfreeze */
void tv_h_trove_clone_create(tv_req *r);   /* POST /_trove/clones */
void tv_h_trove_clone_list(tv_req *r);     /* GET /_trove/clones */
void tv_h_trove_clone_get(tv_req *r);      /* GET /_trove/clones/{id} */
void tv_h_trove_clone_delete(tv_req *r);   /* DELETE /_trove/clones/{id} */
void tv_h_trove_clone_delete_all(tv_req *r); /* DELETE /_trove/clones */
/* A feed running inside the server (trove serve --sync) registers how GET
 * /_trove/sync describes it: fn writes one JSON object with w (from any
 * thread: it must lock what it reads). The api layer never calls the sync
 * layer itself. fn NULL removes it. Call before serving and after the
 * loops end, as the clone transport. */
void trove_node_set_sync_status(trove_node *n, void (*fn)(void *ud, tv_jw *w), void *ud);
/* The server's HTTP connection counters of a node (_nodes/stats http):
 * +1 when it accepts a connection for n, -1 when it closes it. */
void trove_node_http_conn(trove_node *n, int delta);
void tv_h_trove_sync(tv_req *r);           /* GET /_trove/sync: {"feeds":[...]} */

/* ------------------------------------------------- ingest (ingest.c) */

/* A request's ingest work: the pipelines it read (once each) and the
 * scripts they compiled. In the request's arena; tv_ingest_free releases
 * what it holds outside it. */
typedef struct tv_ingest tv_ingest;
tv_ingest *tv_ingest_new(tv_req *r); /* NULL: r->oom */
void tv_ingest_free(tv_ingest *g);   /* NULL is a no-op */

/* A document on its way to an index (IndexRequest's parts a pipeline may
 * change). Strings live in the request's arena or the caller's. */
typedef struct tv_ingest_doc {
    const char *index;   /* the index (or alias) named by the request */
    const char *id;      /* NULL: to be generated */
    const char *routing; /* NULL: none */
    bool has_version;
    int64_t version;
    const char *version_type; /* "internal", ... or NULL */
    const char *src;
    size_t src_len;
    bool dropped;        /* out: a drop processor ended it */
} tv_ingest_doc;

/* Does a write of index with this request pipeline (NULL: none) run any
 * pipeline (the request's, the index's default or final)? */
bool tv_ingest_has_pipelines(tv_req *r, const char *req_pipeline, const char *index);
/*
 * Runs the pipelines of a write (IngestService): the request's pipeline
 * (NULL: the index's index.default_pipeline; "_none": none), then the
 * index's index.final_pipeline (of the new index when the first pipeline
 * changed _index). On success d holds the document to write (index, id,
 * routing and source as the pipelines left them) or d->dropped. False
 * with *err (the item's failure: "pipeline with id [x] does not exist",
 * a processor's exception) or r->oom.
 */
bool tv_ingest_write(tv_ingest *g, const char *req_pipeline, tv_ingest_doc *d, tv_api_err **err);
/* Reads a pipeline configuration as PUT does (every processor
 * validated); false with *err. */
bool tv_ingest_validate(tv_ingest *g, const char *id, const tv_json *conf, tv_api_err **err);
/* A stored pipeline's configuration (parsed in the arena), NULL when none. */
const tv_json *tv_ingest_stored(tv_req *r, const char *id);
/* The processor types trove runs, sorted, NULL-ended (nodes info). */
const char *const *tv_ingest_processor_types(void);
/* _simulate: answers r (the stored pipeline id, or the body's). */
void tv_ingest_simulate(tv_ingest *g, const char *id, const tv_json *body, bool verbose);

/* "internal", "external", "external_gte" (h_doc.c). */
const char *tv_api_version_type_name(tv_version_type t);
/* The members of the answer for a document a drop processor ended (h_doc.c). */
void tv_api_write_dropped(tv_jw *w, const char *index, const char *id);

void tv_h_ingest_put(tv_req *r);      /* PUT /_ingest/pipeline/{id} */
void tv_h_ingest_get(tv_req *r);      /* GET /_ingest/pipeline[/{id}] */
void tv_h_ingest_delete(tv_req *r);   /* DELETE /_ingest/pipeline/{id} */
void tv_h_ingest_simulate(tv_req *r); /* GET|POST /_ingest/pipeline[/{id}]/_simulate */

/* ------------------------------------------------------ authorization */

/*
 * The route dispatch would run for (method, target), found without running
 * it (router.c), for trove_request_classify (authz.c). Returns 1 with out
 * filled (h, pattern: static; index: the {index} path segment decoded into
 * a, or NULL when the route has none), 0 when no handler would run (no
 * route for the method, or a path dispatch refuses with 400), -1 when out
 * of memory. Thread-safe.
 */
typedef struct tv_route_info {
    tv_handler h;
    const char *pattern;
    const char *index;
} tv_route_info;
int tv_route_find(tv_arena *a, tv_method m, const char *uri, tv_route_info *out);

#endif /* TROVE_API_H */
