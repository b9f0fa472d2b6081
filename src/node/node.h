/*
 * node.h — the node layer: what a node is and holds, none of which needs a
 * request. The api layer answers requests over it; functions here return
 * statuses and describe failures, and never write a response.
 *
 * Files:
 *   node.c      the node and its state (indices by name, aliases,
 *               templates, closed marks, cluster settings), the state's
 *               copy-on-write between a node and its clones, lookups,
 *               index expression resolution, identifiers
 *   durable.c   the data directory: index directories, commits and their
 *               manifest, node metadata, recovery, the translog syncer
 *   routing.c   shard routing emulation: OpenSearch's murmur3 shard of a
 *               document, _routing.required
 *
 * Thread safety: a node's rwlock guards its state (shared for lookups,
 * exclusive for changes); functions named _locked expect the caller to
 * hold it. Indices are reference-counted: a lookup returns a retained
 * index the caller releases.
 *
 * Memory: a node, its state and its data directory are heap objects the
 * node owns; results a function puts in an arena say so.
 */
#ifndef TROVE_NODE_H
#define TROVE_NODE_H

#include <pthread.h>
#include <stdatomic.h>

#include "index/index.h"
#include "json/json.h"
#include "util/util.h"

/* ----------------------------------------------------------------- node */

/* One alias of one index (AliasMetadata). Strings are owned (tv_malloc). */
typedef struct tv_alias {
    char *alias;
    char *index;
    char *filter;         /* compact JSON of the filter query, or NULL */
    char *index_routing;  /* NULL when unset */
    char *search_routing; /* NULL when unset */
    int8_t is_write_index; /* -1 unset, 0 false, 1 true */
    int8_t is_hidden;      /* -1 unset, 0 false, 1 true */
} tv_alias;

/* A stored index template (composable or legacy). Strings owned. */
typedef struct tv_template {
    char *name;
    char *body; /* the template as GET prints it, compact JSON */
    bool legacy;
    bool component; /* a component template (_component_template); legacy false */
} tv_template;

/* A stored script (PUT _scripts/{id}). Strings owned. */
typedef struct tv_stored_script {
    char *id;
    char *lang;
    char *source;
} tv_stored_script;

/*
 * What a node holds: its indices and the api layer's metadata (the index
 * layer has no notion of them). Shared copy-on-write between a node and its
 * lazy clones (node.c): `rc` counts the nodes using it plus the requests
 * pinned on it; nobody mutates a state whose rc says someone else can see
 * it. Guarded by the owning node's `lock`.
 */
typedef struct tv_node_state {
    atomic_uint rc;
    tv_map indices;          /* name -> tv_index* (one reference held) */
    char *node_name;
    char *cluster_name;
    /* the node's custom attributes (node.attr.*), a compact JSON object
     * sorted by name ({} when none); fixed at open, copied to clones */
    char *node_attrs;
    char cluster_uuid[24];
    tv_alias *aliases;       /* sorted by (index, alias) */
    size_t naliases;
    tv_map closed;           /* names of closed indices -> (void *)1 */
    tv_template *templates;  /* sorted by name */
    size_t ntemplates;
    tv_stored_script *scripts; /* sorted by id */
    size_t nscripts;
    char *cluster_persistent; /* flat JSON object of settings, or NULL */
    char *cluster_transient;
    int64_t version; /* the cluster state version: raised by the api layer
                        after each request that changed metadata */
    /* the api layer's snapshot metadata (h_snapshot.c), compact JSON or
     * NULL: repositories {"name":{"type":..,"settings":{..}},...} and
     * snapshots {"repo":[SnapshotInfo,...],...}; kept in memory only */
    char *repositories;
    char *snapshots;
    /* voting configuration exclusions [{"node_id":..,"node_name":..}]
     * (h_cluster_state.c), compact JSON or NULL */
    char *voting_exclusions;
    /* ingest pipelines (api h_ingest.c): compact JSON {"id":{config},...}
     * in the order they were first put, or NULL when there is none; kept
     * in node.json */
    char *pipelines;
} tv_node_state;

/* A node's data directory (durable.c); NULL: in memory. */
typedef struct tv_durable tv_durable;
/* An index of the data directory that could not be read back at open: not
 * served; its requests fail with the reason (tv_api_err_no_index), it shows
 * red in _cat/indices, and DELETE removes its directory. */
typedef struct tv_failed_index {
    char *name, *uuid, *dir, *reason;
} tv_failed_index;

struct trove_node {
    pthread_rwlock_t lock;   /* protects st (the pointer, and the state's
                                content while this node may write it) */
    tv_durable *durable;     /* owned; its state is never shared with clones */
    tv_node_state *st;       /* one reference held */
    atomic_uint inflight;    /* requests running on this node */
    char node_id[24];
    void *search_ctxs;       /* scroll and PIT contexts (h_scroll.c), own lock */
    void *tasks;             /* the task registry (api h_tasks.c), own lock */
    /* management API (h_trove.c) */
    _Atomic int frozen;      /* writes answer 403 trove_base_frozen */
    _Atomic int osmem;       /* ... or osmem's osmem_base_frozen */
    struct tv_mgmt *mgmt;    /* clone registry and transport, or NULL (owned) */
    void (*sync_status)(void *ud, tv_jw *w); /* GET /_trove/sync (trove serve --sync), or NULL */
    void *sync_status_ud;
    struct tv_node_breakers *brk; /* one reference: shared with clones (h_nodes.c) */
    /* HTTP connections the server holds for this node, open now and
     * opened since start (trove_node_http_conn; _nodes/stats http) */
    atomic_llong http_open, http_opened;
};

/* The process's circuit breakers, shared by a node and its clones. */
typedef struct tv_node_breakers {
    atomic_int rc;
    tv_breakers b;
} tv_node_breakers;

/* ========================================================== node.c */

/* A state with no index (rc 1), or NULL out of memory. */
tv_node_state *tv_node_state_new(void);
/* Drops one reference; the last frees the state and releases its indices. */
void tv_node_state_release(tv_node_state *st);
/* A private copy of a state: every index cloned (tv_index_clone shares
 * segments) and the metadata copied. O(indices). The caller holds the lock
 * of a node that uses src. NULL with err set on failure. */
tv_node_state *tv_node_state_copy(const tv_node_state *src, tv_error *err);
/* A node around st (its reference taken over); src_id: the node id a
 * clone derives its own from (NULL: a random one); brk: the breakers to
 * share (a clone's base's), or NULL for new ones over heap bytes. NULL out
 * of memory (st untouched). */
trove_node *tv_node_new(tv_node_state *st, const char *src_id, tv_node_breakers *brk, int64_t heap);
/* Frees the node's own parts: stops and frees its data directory, drops
 * its state. The api frees what it hung on the node first (trove_node_free). */
void tv_node_free(trove_node *n);
/* trove_node_clone for a request running on src (the management API):
 * that request does not count as a reader in flight. */
trove_node *tv_node_clone_from(trove_node *src, bool in_request, trove_error *err);

/* Looks up an index by exact name; returns retained or NULL. */
tv_index *tv_node_get_index(trove_node *n, const char *name);
/* True when an index of that exact name exists (no reference taken). */
bool tv_node_get_index_peek(trove_node *n, const char *name);
/* Gives n a private copy of its state when another node, or a request
 * other than the caller's (pinned: the state the caller pinned, or NULL),
 * can see it. False out of memory. */
bool tv_node_own(trove_node *n, const tv_node_state *pinned);

/* Looks up an index by exact name; returns retained or NULL. */
tv_index *tv_node_get_index(trove_node *n, const char *name);
/* True when an index of that exact name exists (no reference taken). */
bool tv_node_get_index_peek(trove_node *n, const char *name);
/* Index name validation (MetadataCreateIndexService rules). Returns NULL
 * when valid, else the description ("must be lowercase"). */
const char *tv_index_name_invalid(const char *name, tv_arena *a);

/* Indices an expression resolved to: retained, sorted by name. */
typedef struct tv_index_list {
    tv_index **items;
    size_t len;
    /* per item: the alias filter that applies to it (compact JSON query,
     * arena) when it was reached only through filtered aliases, else NULL.
     * NULL array when no item has one. */
    const char **filters;
} tv_index_list;
void tv_index_list_release(tv_index_list *l);

/* expand_wildcards states */
#define TV_EXPAND_OPEN 1u
#define TV_EXPAND_CLOSED 2u
#define TV_EXPAND_HIDDEN 4u

/* IndicesOptions as IndexNameExpressionResolver applies them. */
typedef struct tv_resolve_opts {
    bool ignore_unavailable;
    bool allow_no_indices;
    unsigned expand;       /* TV_EXPAND_* for wildcards and _all */
    bool forbid_closed;    /* a named closed index: index_closed_exception
                              (skipped when ignore_unavailable) */
    bool ignore_aliases;   /* aliases are errors (delete index) */
} tv_resolve_opts;

/* Why a resolution failed (tv_node_resolve_names). */
typedef struct tv_resolve_fail {
    enum { TV_RESOLVE_OK, TV_RESOLVE_MISSING, TV_RESOLVE_ALIAS, TV_RESOLVE_CLOSED } kind;
    const char *name; /* MISSING: the name or pattern not found (arena or
                         expr); ALIAS: the alias named where aliases are
                         refused */
    tv_index *closed; /* CLOSED: the closed index (a reference the caller
                         releases) */
} tv_resolve_fail;
/* Resolves an index expression: comma lists, `_all`, `*` wildcards over
 * indices and aliases, `-pattern` exclusions after a wildcard, hidden
 * indices (matched by a wildcard only with TV_EXPAND_HIDDEN, or when both
 * the pattern and the name start with '.'), closed indices; alias filters
 * in out->filters. TROVE_OK; TROVE_ENOMEM; else (ENOINDEX, EARG, ECLOSED)
 * *fail says what to answer. Parts and filters live in arena. */
tv_status tv_node_resolve_names(trove_node *n, tv_arena *arena, const char *expr, const tv_resolve_opts *o,
                                tv_index_list *out, tv_resolve_fail *fail);
/* Closed state and hidden setting of an index (caller holds node->lock for
 * tv_node_is_closed_locked). */
bool tv_node_is_closed_locked(trove_node *n, const char *name);
bool tv_node_is_closed(trove_node *n, const char *name);
bool tv_index_is_hidden(tv_index *idx);
/* True when name is an alias (any index). */
bool tv_node_is_alias(trove_node *n, const char *name);
/* Drops the api-layer metadata of an index that goes away (aliases, closed
 * mark). Caller holds node->lock for writing. */
void tv_node_forget_index_locked(trove_node *n, const char *name);
/* True when name is an alias of some index (caller holds node->lock). */
bool tv_node_alias_in_use_locked(trove_node *n, const char *name);
/* Alias metadata: frees one entry's strings. */
void tv_alias_fini(tv_alias *a);
/* The shard total of an index's write header (replicas + 1). */
int64_t tv_index_shard_total(tv_index *idx);
int64_t tv_index_shard_total(tv_index *idx);

/* Random 20-char URL-safe base64 id (time-based, like OpenSearch's). */
void tv_node_new_id(char out[24]);
/* Random 22-char URL-safe base64 uuid. */
void tv_node_new_uuid(char out[24]);


/* ======================================================= durable.c */

/* Locks dir and reads its indices into n's (fresh) state; sets n->durable. */
tv_status tv_durable_open(trove_node *n, const char *dir, tv_error *err);
void tv_durable_free(tv_durable *d); /* NULL is a no-op */
/* The data directory's path (borrowed), NULL for NULL. */
const char *tv_durable_dir(const tv_durable *d);
/* Stops the syncer thread (before the node's state goes). */
void tv_durable_stop(tv_durable *d);
/* Puts a new index on disk and attaches its translog; before the index
 * enters the table (caller holds the node lock). No-op in memory. */
tv_status tv_durable_create_index(trove_node *n, tv_index *idx, const tv_json *mappings, tv_error *err);
/* Removes a deleted index's directory. No-op in memory. */
tv_status tv_durable_drop_index(trove_node *n, tv_index *idx, tv_error *err);
/* Syncs every index's translog as its durability setting says (after a
 * writing handler, before the response). No-op in memory. */
tv_status tv_durable_sync(trove_node *n, tv_error *err);
/* _flush of an index on a data directory: commits it (segment files, a
 * manifest, a new translog generation; durable.c). No-op in memory. */
tv_status tv_durable_commit(trove_node *n, tv_index *idx, tv_error *err);
/* Whether name is a failed index (*out borrowed until the next drop). */
bool tv_durable_failed(trove_node *n, const char *name, tv_failed_index *out);
/* Copies of every failed index (name, uuid, reason) in the arena. */
size_t tv_durable_failed_list(trove_node *n, tv_arena *a, tv_failed_index **out);
/* Removes a failed index's directory; TROVE_ENOTFOUND when name is none. */
tv_status tv_durable_drop_failed(trove_node *n, const char *name, tv_error *err);
/* `trove check DIR`: takes the directory's lock, reads every index back
 * without changing a byte (checksums, record decoding, seq_no order,
 * replay), appends one line per index to report; *clean when nothing is
 * corrupt (a torn tail is what a crash leaves: clean). */
tv_status tv_durable_check(const char *dir, tv_buf *report, bool *clean, tv_error *err);
/* ======================================================= routing.c */

/* How an index spreads documents over its (emulated) shards. */
typedef struct tv_shard_route {
    uint32_t num_shards;
    uint32_t routing_num_shards;
    uint32_t partition_size; /* index.routing_partition_size, 1: none */
} tv_shard_route;
/* Murmur3HashFunction.hash: murmur3_x86_32, seed 0, over the UTF-16LE
 * code units of the UTF-8 string. */
int32_t tv_routing_hash(const char *s, size_t len);
/* The routing_num_shards OpenSearch picks when none is set. */
uint32_t tv_routing_default_shards(uint32_t num_shards);
/* Reads the index's routing settings. */
void tv_shard_route_of(tv_index *idx, tv_shard_route *rt);
/* OperationRouting.generateShardId (routing NULL: the _id routes). */
uint32_t tv_shard_id(const tv_shard_route *rt, const char *id, size_t id_len, const char *routing,
                         size_t routing_len);
/* Marks in set (num_shards bits) the shards a search with this routing
 * value reaches (OperationRouting.computeTargetedShards): one, or
 * routing_partition_size of them on a partitioned index. */
void tv_routing_search_shards(const tv_shard_route *rt, const char *routing, size_t len, uint64_t *set);
/* True when a request with req_routing (NULL: none) reaches the shard the
 * document (stored routing doc_routing, NULL: none) lives on. */
bool tv_same_shard(tv_index *idx, const char *id, size_t id_len, const char *req_routing, size_t req_len,
                       const char *doc_routing, size_t doc_len);
/* The mapping's _routing.required. */
bool tv_routing_required(tv_index *idx);
/* Releases the calling thread's remembered mapping (trove_node_free). */
void tv_routing_cache_drop(void);

#endif /* TROVE_NODE_H */
