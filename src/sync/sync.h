/*
 * sync.h — the sync layer: PostgreSQL change data capture into trove
 * (`trove sync`). It sits beside the server, above api: it writes through
 * trove_request in process, or through _bulk over HTTP to any
 * OpenSearch-compatible URL. feed.c, table.c, verify.c and status.c talk to
 * PostgreSQL (libpq); the other rooms are pure and tested without a
 * database.
 *
 * Rooms:
 *   pgoutput.c  the replication stream's bytes: CopyData frames (XLogData,
 *               primary keepalive) and pgoutput messages, protocol 1 and 2
 *               (streamed in-progress transactions). No I/O. Fuzzed.
 *   pgvalue.c   a PostgreSQL value in text output format -> JSON, by type
 *               OID; a column type -> an OpenSearch field mapping.
 *   table.c     one table as a feed sees it: the catalog (columns, key)
 *               and its configuration (index, _id columns, fields,
 *               renames, mappings), shared by the feed and verify (libpq).
 *   spool.c     a streamed in-progress transaction (protocol 2) kept on
 *               disk until its commit or abort.
 *   feed.c      one feed: slot and publication, the snapshot, the stream,
 *               batches and checkpoints (libpq).
 *   sink.c      where a feed's batches go: a node in process or a URL.
 *   config.c    a feed's configuration file (--config): one JSON object
 *               (pg, tables, options); unknown keys and wrong types fail.
 *   verify.c    `trove sync verify`: each index compared with its table,
 *               PostgreSQL doing the comparison (libpq).
 *   status.c    `trove sync status`: the slot, the checkpoint, the lag in
 *               bytes and the dead letters (libpq).
 */
#ifndef TROVE_SYNC_H
#define TROVE_SYNC_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json/json.h"
#include "trove.h"
#include "util/util.h"

/* ------------------------------------------------------------ pgoutput.c */

/* A PostgreSQL LSN (XLogRecPtr). Printed "%X/%X" (high, low 32 bits). */
typedef uint64_t tv_lsn;

/* One CopyData message of a logical replication stream (after
 * START_REPLICATION), as the server sends it. */
typedef enum {
    TV_PG_XLOGDATA = 'w',  /* a chunk of the stream: data is a pgoutput message */
    TV_PG_KEEPALIVE = 'k', /* primary keepalive */
} tv_pg_frame_kind;

typedef struct tv_pg_frame {
    tv_pg_frame_kind kind;
    tv_lsn wal_start;    /* 'w': the LSN of this data */
    tv_lsn wal_end;      /* the server's current end of WAL */
    int64_t send_time;   /* microseconds since 2000-01-01 UTC */
    bool reply_requested; /* 'k': answer with a standby status update now */
    const uint8_t *data; /* 'w': the pgoutput message (borrowed from the frame) */
    size_t len;
} tv_pg_frame;

/* Decodes one CopyData payload. Returns TROVE_OK, or TROVE_EPARSE with err
 * set for a truncated or unknown frame. data points into buf. */
tv_status tv_pg_frame_decode(const uint8_t *buf, size_t len, tv_pg_frame *out, tv_error *err);

/* A standby status update ('r') confirming written = flushed = applied =
 * lsn at `now` (microseconds since 2000-01-01 UTC): 34 bytes into out. */
void tv_pg_standby_status(tv_lsn lsn, int64_t now, bool reply_requested, uint8_t out[34]);

/* pgoutput message kinds (the first byte). */
typedef enum {
    TV_PGO_BEGIN = 'B',
    TV_PGO_COMMIT = 'C',
    TV_PGO_ORIGIN = 'O',
    TV_PGO_RELATION = 'R',
    TV_PGO_TYPE = 'Y',
    TV_PGO_INSERT = 'I',
    TV_PGO_UPDATE = 'U',
    TV_PGO_DELETE = 'D',
    TV_PGO_TRUNCATE = 'T',
    TV_PGO_MESSAGE = 'M',
    TV_PGO_STREAM_START = 'S',  /* protocol 2 */
    TV_PGO_STREAM_STOP = 'E',   /* protocol 2 */
    TV_PGO_STREAM_COMMIT = 'c', /* protocol 2 */
    TV_PGO_STREAM_ABORT = 'A',  /* protocol 2 */
} tv_pgo_kind;

/* A Relation message's column. */
typedef struct tv_pgo_col {
    bool key; /* part of the replica identity (flag 1) */
    const char *name;
    uint32_t type_oid;
    int32_t typmod;
} tv_pgo_col;

/* One column value of a TupleData. */
typedef enum {
    TV_PGO_NULL = 'n',
    TV_PGO_UNCHANGED = 'u', /* an unchanged TOASTed value: not sent */
    TV_PGO_TEXT = 't',      /* text output format */
    TV_PGO_BINARY = 'b',    /* binary format (never requested by trove) */
} tv_pgo_value_kind;

typedef struct tv_pgo_value {
    tv_pgo_value_kind kind;
    const char *data; /* TEXT/BINARY: borrowed from the message, not NUL-terminated */
    uint32_t len;
} tv_pgo_value;

typedef struct tv_pgo_tuple {
    uint16_t n;
    tv_pgo_value *v; /* n values (in the arena) */
} tv_pgo_tuple;

/*
 * One decoded pgoutput message. Names are NUL-terminated copies in the
 * arena given to tv_pgo_decode; values point into the message bytes.
 */
typedef struct tv_pgo_msg {
    tv_pgo_kind kind;
    /* protocol 2, inside a streamed block (between Stream Start and Stream
     * Stop): the transaction a Relation, Type, Insert, Update, Delete,
     * Truncate or Message belongs to; 0 otherwise */
    uint32_t xid;
    union {
        struct {
            tv_lsn final_lsn; /* the commit's LSN */
            int64_t commit_time;
            uint32_t xid;
        } begin;
        struct {
            uint8_t flags;
            tv_lsn commit_lsn;
            tv_lsn end_lsn; /* the LSN to confirm once the transaction is durable */
            int64_t commit_time;
        } commit;
        struct {
            tv_lsn lsn;
            const char *name;
        } origin;
        struct {
            uint32_t relid;
            const char *nspname; /* "" for pg_catalog */
            const char *relname;
            char replident; /* 'd' default, 'n' nothing, 'f' full, 'i' index */
            uint16_t ncols;
            tv_pgo_col *cols;
        } relation;
        struct {
            uint32_t oid;
            const char *nspname;
            const char *typname;
        } type;
        struct {
            uint32_t relid;
            tv_pgo_tuple newt;
        } insert;
        struct {
            uint32_t relid;
            char oldkind; /* 0: no old tuple, 'K': old key, 'O': old full row */
            tv_pgo_tuple oldt;
            tv_pgo_tuple newt;
        } update;
        struct {
            uint32_t relid;
            char oldkind; /* 'K' or 'O' */
            tv_pgo_tuple oldt;
        } del;
        struct {
            uint8_t options; /* 1 CASCADE, 2 RESTART IDENTITY */
            uint32_t nrels;
            uint32_t *relids;
        } truncate;
        struct {
            uint8_t flags; /* 1: transactional */
            tv_lsn lsn;
            const char *prefix;
            const char *content; /* borrowed */
            uint32_t len;
        } message;
        struct {
            uint32_t xid;
            bool first; /* the transaction's first segment */
        } stream_start;
        struct {
            uint32_t xid;
            uint8_t flags;
            tv_lsn commit_lsn;
            tv_lsn end_lsn;
            int64_t commit_time;
        } stream_commit;
        struct {
            uint32_t xid;
            uint32_t subxid; /* == xid: the whole transaction aborted */
        } stream_abort;
    } u;
} tv_pgo_msg;

/*
 * Decodes one pgoutput message (an XLogData frame's data). proto is the
 * negotiated protocol version (1 or 2); in_stream says the message comes
 * between Stream Start and Stream Stop (protocol 2 then prefixes the
 * transaction id to data messages). Allocates names, column and value
 * arrays in A. Returns TROVE_OK, or TROVE_EPARSE with err saying what is
 * wrong (truncated, unknown kind, bad value kind, trailing bytes, a
 * Stream message in protocol 1); TROVE_ENOMEM when A is out of memory;
 * TROVE_EARG for a proto other than 1 or 2. Never reads past buf+len. On
 * failure *out holds a partial decode: do not use it.
 */
tv_status tv_pgo_decode(const uint8_t *buf, size_t len, int proto, bool in_stream, tv_arena *A, tv_pgo_msg *out,
                        tv_error *err);

/* "%X/%X" of an LSN into out (at least 18 bytes). */
void tv_lsn_format(tv_lsn lsn, char out[18]);
/* Parses "%X/%X"; false when malformed. */
bool tv_lsn_parse(const char *s, tv_lsn *out);

/* ------------------------------------------------------------- pgvalue.c */

/* How some types become JSON (the feed's configuration). */
typedef struct tv_pgv_opts {
    bool numeric_as_number; /* numeric -> a JSON number and a scaled_float
                               field (scaling_factor from the column's
                               scale); default: a string and a keyword */
} tv_pgv_opts;

/*
 * Writes the JSON value of one non-NULL column value of type `oid`, given
 * in PostgreSQL's text output format as the feed's sessions produce it
 * (DateStyle ISO, TimeZone UTC, IntervalStyle postgres, bytea_output hex,
 * extra_float_digits 3). oid is a built-in type's OID, or a user type
 * already resolved by the feed (a domain to its base type; an enum, range,
 * composite or other user type stays as is and is written as a string).
 * Returns false when the text is not a valid value of the type; w may then
 * hold part of a value: the caller discards the document it was writing
 * and dead-letters the row.
 */
bool tv_pgv_json(tv_jw *w, uint32_t oid, const char *text, size_t len, const tv_pgv_opts *o);

/*
 * The OpenSearch field mapping for a column of type `oid` (typmod as the
 * Relation message gives it: numeric's precision and scale), written as a
 * JSON object to w ({"type":"long"}, ...). Array types map as their
 * element type.
 */
void tv_pgv_mapping(tv_jw *w, uint32_t oid, int32_t typmod, const tv_pgv_opts *o);

/* The element type of a built-in array type, or 0 when oid is not one. */
uint32_t tv_pgv_array_elem(uint32_t oid);
/* Types of trove's own, for what the feed resolves user types to (no
 * PostgreSQL OID comes near: OIDs of user objects count up from 16384):
 * a string written as it is (keyword), and an array of those (an array of
 * an enum). */
#define TV_PGV_STRING 0xFFFFFF00u
#define TV_PGV_STRING_ARRAY 0xFFFFFF01u

/* --------------------------------------------------------------- spool.c */

/* One streamed transaction's messages, on disk until it ends (spool.c). */
typedef struct tv_spool tv_spool;

/* A new, empty spool of top-level transaction xid: an unlinked temporary
 * file in $TMPDIR (else /tmp). NULL when it cannot be made. */
tv_spool *tv_spool_open(uint32_t xid);
uint32_t tv_spool_xid(const tv_spool *s);
/* Messages in it now. */
uint64_t tv_spool_count(const tv_spool *s);
/* Appends a copy of one message of (sub)transaction subxid (the
 * top-level xid or 0 for its own); false (nothing appended) on a write
 * failure. */
bool tv_spool_add(tv_spool *s, uint32_t subxid, const uint8_t *msg, size_t len);
/* A subtransaction aborted: drops its messages and all after them (its
 * nested subtransactions'). Nothing when none of it was spooled. False
 * on an I/O failure. */
bool tv_spool_abort_sub(tv_spool *s, uint32_t subxid);
/* Calls fn with each message in order (borrowed for the call) until it
 * returns false; false then, or on a read failure. */
bool tv_spool_replay(tv_spool *s, bool (*fn)(void *ud, const uint8_t *msg, size_t len), void *ud);
void tv_spool_free(tv_spool *s);

/* ---------------------------------------------------------------- sink.c */

/*
 * Where requests go: a node in process (trove_request) or an OpenSearch-
 * compatible server over one keep-alive HTTP/1.1 connection (plain
 * http://HOST:PORT; trove serve or OpenSearch). The same REST calls either
 * way, so a feed, `trove dump` and `trove load` are written once. Not
 * thread-safe: one user at a time.
 */
typedef struct tv_sink {
    trove_node *node;    /* in process (borrowed), or */
    char url[512];       /* the server: http://HOST:PORT */
    char host[300];      /* its Host header */
    int fd;              /* the keep-alive connection (-1: none yet or broken) */
    tv_arena arena;      /* the last answer's parse */
    trove_response last; /* the last answer; the parse's numbers borrow it */
} tv_sink;

/* A sink on node (borrowed: it must outlive the sink). */
void tv_sink_init_node(tv_sink *s, trove_node *node);
/* A sink on url ("http://HOST[:PORT]", default port 9200). Connects lazily;
 * false (with the reason on stderr) when url is not of that form. */
bool tv_sink_init_url(tv_sink *s, const char *url);
/* Releases the connection, the last answer and the arena (not the node). */
void tv_sink_fini(tv_sink *s);

/* One request: true with s->last filled (any status), false when no answer
 * came (connection refused or broken: it reconnects on the next call; out
 * of memory). body may be NULL when len is 0. */
bool tv_sink_request(tv_sink *s, const char *method, const char *path, const char *body, size_t len);

/* tv_sink_request, then the answer parsed as JSON in s->arena (valid until
 * the next call) when its status is want_status; otherwise NULL, with
 * "trove: METHOD PATH: STATUS BODY" on stderr unless quiet. */
tv_json *tv_sink_call(tv_sink *s, const char *method, const char *path, const char *body, size_t len,
                      int want_status, bool quiet);

/* ---------------------------------------------------------------- feed.c */

/* What a running feed is doing, for GET /_trove/sync (status.c). The feed
 * writes it under mu at its milestones (a page, a batch, a failure); a
 * reader locks mu too. */
typedef struct tv_feed_stats {
    pthread_mutex_t mu;
    const char *state;   /* "starting", "snapshot", "streaming", "retrying", "stopped" (static) */
    tv_lsn lsn;          /* the checkpoint */
    tv_lsn server_lsn;   /* PostgreSQL's position as the stream last told it */
    uint64_t rows;       /* rows written since the start */
    uint64_t dead;       /* dead letters since the start */
    size_t snap_table;   /* the table being read (snapshot) */
    uint64_t snap_rows;  /* its rows read so far */
    int64_t started_ms;  /* CLOCK_MONOTONIC ms */
    int64_t last_commit_ms; /* when the checkpoint last moved */
    int64_t commit_time; /* the checkpoint's last transaction's commit time
                            (microseconds since 2000-01-01 UTC), 0 unknown */
    char last_error[256];
} tv_feed_stats;

/*
 * One table of a feed and how it becomes an index (config.c; on the command
 * line --tables gives the name alone). Every member but table is optional
 * (NULL / 0: the default). Strings and JSON are borrowed from the config.
 */
typedef struct tv_table_conf {
    const char *table;          /* "schema.table", or "table" in public */
    const char *index;          /* the index; default index_prefix + name */
    const char *const *id;      /* the _id's columns in order; default the key */
    size_t nid;
    const char *const *include; /* only these columns become fields */
    size_t ninclude;
    const char *const *exclude; /* these columns do not (not with include) */
    size_t nexclude;
    const char *const *rename;  /* nrename pairs: column, field name */
    size_t nrename;
    const tv_json *mappings;    /* {field: mapping}, over the generated ones */
    const tv_json *settings;    /* the index's settings when the feed creates it */
} tv_table_conf;

/* One feed: PostgreSQL tables kept equal to indices (see feed.c). */
typedef struct tv_feed_opts {
    const char *pg;            /* libpq connection string or postgresql:// URI */
    const tv_table_conf *tables;
    size_t ntables;
    const char *index_prefix;  /* prepended to every index name ("") */
    const char *slot;          /* replication slot ("trove_sync") */
    const char *publication;   /* publication ("trove_sync") */
    size_t batch_rows;         /* a batch is sent past this many rows (5000) */
    int in_flight;             /* batches written while the next is read: 0 or 1 (1) */
    int64_t flush_ms;          /* a partial batch waits this long for more rows
                                  (0: it goes whenever PostgreSQL has sent all it has) */
    bool once;                 /* return once caught up with the WAL position
                                  PostgreSQL had when the stream started */
    bool quiet;                /* no progress on stderr */
    tv_pgv_opts values;
    tv_feed_stats *stats;      /* kept up to date when not NULL (initialise with tv_feed_stats_init) */
} tv_feed_opts;

void tv_feed_stats_init(tv_feed_stats *s);
void tv_feed_stats_fini(tv_feed_stats *s);
/* Writes one feed's object for GET /_trove/sync; ud is a tv_feed_opts
 * whose stats are set (the signature trove_node_set_sync_status takes). */
void tv_feed_stats_json(void *ud, tv_jw *w);

/*
 * Reads a feed's configuration (config.c): a JSON object with "pg",
 * "tables" (an array of "schema.table" names, or of objects {"table", and
 * optionally "index", "id", "include", "exclude", "rename", "mappings",
 * "settings"}), and optionally "index_prefix", "slot", "publication",
 * "batch_size", "in_flight", "flush_interval", "numeric_as_number". Fills o
 * (strings owned by *storage: free with tv_feed_config_free). Returns true,
 * or false with the reason (FILE: ...) on stderr.
 */
bool tv_feed_config_load(const char *path, tv_feed_opts *o, void **storage);
void tv_feed_config_free(void *storage);

/* Runs the feed until tv_feed_stop (or, with once, caught up). Writes
 * through sink. Returns 0, or 1 with the reason on stderr (a table it
 * cannot feed, an unreachable PostgreSQL at the start). A connection lost
 * later is retried from the last checkpoint. */
int tv_feed_run(const tv_feed_opts *o, tv_sink *sink);
/* Drops the feed's slot and publication and its checkpoint (not the
 * indices). Returns 0 or 1. */
int tv_feed_drop(const tv_feed_opts *o, tv_sink *sink);
/* Compares every table with its index (verify.c): prints each difference
 * on stdout; returns 0 when every index equals its table, 1 otherwise. */
int tv_feed_verify(const tv_feed_opts *o, tv_sink *sink);
/* Prints the feed's state (status.c): the slot (active, confirmed, WAL it
 * retains), the checkpoint (LSN, lag behind PostgreSQL, snapshot progress,
 * rows), the dead letters; warns when the slot retains more than
 * warn_bytes of WAL. Returns 0, or 1 when the feed cannot be found. */
int tv_feed_status(const tv_feed_opts *o, tv_sink *sink, int64_t warn_bytes);
/* The session settings of every connection the sync layer opens: the text
 * output pgvalue.c reads, and the same row text on both sides of verify. */
#define TV_SYNC_PG_OPTIONS \
    "-c DateStyle=ISO -c TimeZone=UTC -c IntervalStyle=postgres -c bytea_output=hex -c extra_float_digits=3"
/* The indices a feed writes besides its tables' (feed.c). */
#define TV_SYNC_CKPT_INDEX ".trove_sync"
#define TV_SYNC_DEAD_INDEX ".trove_sync_dead_letters"
/* ---------------------------------------------------------------- table.c */

typedef struct pg_conn PGconn; /* libpq's */

/* A column as the feed writes it. */
typedef struct tv_scol {
    char *name;     /* the column (owned) */
    char *field;    /* its field in the document (owned); NULL: not indexed */
    uint32_t type;  /* type OID */
    int32_t typmod;
    bool mapped;    /* the feed has sent its mapping */
} tv_scol;

/* One table resolved against the catalog and its configuration. */
typedef struct tv_stable {
    const tv_table_conf *conf; /* borrowed */
    char *schema, *name;       /* as PostgreSQL spells them */
    char *qname;               /* "schema"."name", quoted for SQL */
    char *index;               /* the target index */
    uint32_t relid;
    char replident;            /* 'd', 'i', 'f' ('n' is refused) */
    TV_VEC(tv_scol) cols;      /* catalog columns in attnum order (generated ones left out) */
    TV_VEC(char *) ids;        /* the _id's columns, in _id order */
    TV_VEC(char *) order;      /* the same, in the order of their unique index (the snapshot's sort) */
} tv_stable;

/*
 * Resolves one table (t zeroed by the caller): its columns and key from the
 * catalog through c, the index name, and the configuration applied — each
 * column's field, the _id columns. Refuses, with the reason and what to run
 * on stderr: a missing table; REPLICA IDENTITY NOTHING; no key; configured
 * _id columns that are not unique and NOT NULL, or that a delete would not
 * carry (not the replica identity, unless it is FULL); an include, exclude
 * or rename naming no column; two columns renamed to one field; mappings
 * naming no field. Returns false then (t may be half filled: fini it).
 */
bool tv_stable_load(PGconn *c, const tv_feed_opts *o, const tv_table_conf *tc, tv_stable *t);
void tv_stable_fini(tv_stable *t);
/* The field of a column under the table's configuration: owned copy of the
 * renamed or own name, or NULL when the column is not indexed (*oom set
 * when out of memory). For columns the stream reveals later too. */
char *tv_stable_field(const tv_stable *t, const char *column, bool *oom);
/* The type a column of type `oid` is written as (pgvalue.c's OIDs): a
 * domain's base type (through domains of domains), an array of a domain
 * as the array of its base type, an array of an enum TV_PGV_STRING_ARRAY;
 * other types (built-in, enums, composites, ranges) as they are, and so
 * is any type the catalog cannot be asked about. */
uint32_t tv_stable_type(PGconn *c, uint32_t oid);
/* Writes field's mapping to w: the configured one, or the type's. */
void tv_stable_mapping(const tv_stable *t, const char *field, uint32_t type, int32_t typmod, const tv_pgv_opts *o,
                       tv_jw *w);

/* The index of table schema.name: prefix + name (schema.name outside
 * public), lower case. Owned (tv_free); NULL when out of memory. */
char *tv_feed_index_name(const tv_feed_opts *o, const char *schema, const char *name);
/* Asks a running feed to send what it holds and return; async-signal-safe. */
void tv_feed_stop(void);

/* "trove sync: MESSAGE" on stderr (status.c), remembered as this thread's
 * last message; a trailing newline in the message is dropped. */
void tv_sync_say(const char *fmt, ...) TV_PRINTF(1, 2);
/* Remembers msg as this thread's last message without printing it. */
void tv_sync_remember(const char *msg);
/* This thread's last message ("" when none). */
const char *tv_sync_last_said(void);

#endif
