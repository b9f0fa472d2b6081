/*
 * feed.c — one feed: PostgreSQL tables kept equal to trove (or OpenSearch)
 * indices through logical replication (pgoutput), with no loss and no
 * duplicate.
 *
 * The invariant. Every write a feed sends is idempotent: a row becomes
 * "index this whole document under its key" (or, when an UPDATE leaves a
 * TOASTed column out, "update these fields"), a deleted row "delete this
 * key", a TRUNCATE "delete every document of the index". So replaying any
 * suffix of the change stream in order, from any earlier point, ends in
 * the same state; a crash anywhere only means replaying from the last
 * checkpoint. The checkpoint is the end LSN of the last transaction whose
 * documents the index has acknowledged (acknowledged = durable: trove's
 * translog, OpenSearch's translog). It is written after those documents,
 * in the document `_doc/<slot>` of the index `.trove_sync`, and only then
 * confirmed to PostgreSQL (the standby status's flush position), so the
 * slot never forgets a change the index has not made durable. A crash
 * between the documents and the checkpoint replays them (idempotent); a
 * crash between the checkpoint and the confirmation starts from the
 * checkpoint (PostgreSQL starts at the later of the two).
 *
 * The snapshot. A new feed creates the publication (FOR TABLE ...) and then
 * the slot with EXPORT_SNAPSHOT; while the replication connection stays
 * idle, a second connection reads every table inside that snapshot
 * (REPEATABLE READ, SET TRANSACTION SNAPSHOT) in key order, a cursor page
 * at a time, and the stream then starts at the slot's consistent point:
 * the snapshot holds exactly the transactions before it, the stream
 * exactly those after. After each page the checkpoint records the table
 * and its last key. A feed restarted mid-snapshot cannot have the exported
 * snapshot back (it dies with its connection), so it reads the rest of the
 * table (key > last key) and the remaining tables in a fresh snapshot, and
 * still streams from the consistent point: a row read fresh is at least as
 * new as the snapshot, and every change after the consistent point is
 * replayed over it in order, so each row ends as its last change left it.
 *
 * The document. _id is the key (the primary key, or the columns of the
 * replica identity index), in column order; one column is its text, several
 * are joined by '|' with '\' escaping '\' and '|' in each part ("a\|b|c"
 * is ("a|b", "c")). Fields are the columns (generated columns are not
 * replicated by PostgreSQL 15 and are left out of the snapshot too), each
 * value as pgvalue.c writes it. A table without a key is refused, and so
 * is one with REPLICA IDENTITY NOTHING or FULL without a primary key: the
 * message says what to run.
 *
 * The stream. START_REPLICATION with proto_version 2 and streaming on
 * (PostgreSQL 14 and later; 1 before): a transaction larger than
 * logical_decoding_work_mem arrives in blocks while it runs, and its
 * messages wait in a spool on the feeder's disk (spool.c) until its Stream
 * Commit, when they are replayed as one transaction; a Stream Abort drops
 * them (or the part an aborted subtransaction began). Smaller transactions
 * arrive whole at their commit. Either way only committed changes reach
 * the index, and memory stays bounded. Changes are appended to a
 * _bulk body; the batch is sent when it holds batch_rows rows or 8 MiB, and
 * whenever the socket has nothing more to read (low latency when the rate
 * is low, large batches when it is high). A batch may end inside a
 * transaction: the checkpoint then stays at the previous commit. A TRUNCATE
 * sends the batch, refreshes the index and deletes by query. A Relation
 * message (a schema change) adds the mapping of columns that appeared.
 *
 * Batches in flight. With in_flight 1 (the default) a sender thread writes
 * a batch, then its checkpoint, while the feed reads and converts the next
 * (the index and PostgreSQL each get a core); the next batch waits for it,
 * so at most one batch is written and one built (backpressure: the slot
 * holds the WAL, nothing is buffered without bound). Order is kept by one
 * rule: every other use of the sink waits for the batch in flight first
 * (drain), and PostgreSQL is told only checkpoints that are written
 * (`durable`), never the one a batch in flight will write. With in_flight
 * 0 nothing is read while a batch is written.
 *
 * Failures. A document the index refuses (a mapping conflict, a bad value)
 * is written to `.trove_sync_dead_letters` with the table, the key, the
 * LSN and the reason, and the stream goes on. A request that gets no
 * answer, 429 or 5xx is sent again after a pause, forever (the feed waits
 * rather than drop). A lost PostgreSQL connection restarts the feed from
 * its checkpoint after a pause.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "sync/sync.h"

#define CKPT_INDEX TV_SYNC_CKPT_INDEX
#define DEAD_INDEX TV_SYNC_DEAD_INDEX
#define MAX_BATCH_BYTES ((size_t)8 << 20)
#define STATUS_EVERY_MS 10000

/* set by a signal handler, or by the thread that runs a served feed: lock-free
 * atomics are async-signal-safe */
static _Atomic int stop_requested;

void tv_feed_stop(void) { stop_requested = 1; }

/* ------------------------------------------------------------ tables */

/* A table of the feed: as resolved at the start (table.c), and as the
 * stream's last Relation message shows it. */
typedef struct ftable ftable;
struct ftable {
    tv_stable s;
    TV_VEC(tv_scol) rcols; /* the Relation message's columns, with their fields */
    TV_VEC(int) rkey;      /* positions in rcols of the _id's columns, in _id order */
    bool relation_seen;
};

/* One action of a batch: what its dead letter would say. */
struct act {
    const struct ftable *t;
    char *id;   /* owned; NULL for a delete (a delete is never dead-lettered) */
    tv_lsn lsn;
    size_t src; /* where its document line starts in the body */
};

/* A _bulk body and its actions, in order. */
struct batch {
    tv_buf bulk;
    size_t rows;
    TV_VEC(struct act) acts;
};

typedef struct feed {
    const tv_feed_opts *o;
    tv_sink *sink;
    PGconn *sql;  /* catalog, publication, snapshot */
    PGconn *repl; /* replication=database */
    TV_VEC(ftable) tables;
    /* checkpoint */
    tv_lsn lsn;             /* stream from here */
    bool snapshot_done;
    size_t snap_table;      /* the table being read */
    TV_VEC(char *) snap_key; /* its last key read (NULL when none) */
    bool have_ckpt;
    /* the batch being built */
    struct batch b;
    tv_lsn batch_lsn;  /* the checkpoint once the batch is durable */
    int64_t batch_time; /* the commit time of batch_lsn's transaction */
    int64_t batch_since_ms; /* when the batch got its first action */
    tv_lsn cur_commit; /* the open transaction's commit end (from Begin), 0 none */
    int64_t cur_time;  /* its commit time (PostgreSQL's epoch, microseconds) */
    int64_t lsn_time;  /* the commit time of the checkpoint's (lsn's) transaction; 0 none */
    bool in_txn;
    uint64_t total_rows; /* rows handed to the index this run */
    uint64_t dead;       /* dead letters this run (the sender's while a batch flies) */
    /* the batch in flight (o->in_flight): a sender thread writes it and
     * then its checkpoint while the feed reads on; every other use of the
     * sink waits for it first (drain) */
    struct batch fly;
    char *fly_ckpt;      /* the checkpoint document to write after it (owned), NULL none */
    size_t fly_ckpt_len;
    tv_lsn fly_lsn;      /* that checkpoint's LSN */
    int64_t fly_time;    /* and its transaction's commit time */
    pthread_t fly_th;
    bool fly_thread;     /* fly_th runs it (else it was written in place) */
    bool flying;         /* a batch is in flight: drain waits for it */
    atomic_bool fly_done; /* it has finished */
    bool fly_ok;         /* its result, once done */
    bool fly_failed;     /* a batch failed: every later write fails until the feed restarts */
    char fly_error[256]; /* the sender's last message when it failed */
    tv_lsn durable;      /* the last checkpoint written: what may be confirmed to PostgreSQL */
    /* the stream */
    int proto;           /* pgoutput protocol: 2 (in-progress transactions streamed) or 1 */
    bool in_stream;      /* between Stream Start and Stream Stop */
    tv_spool *spool;     /* the streamed transaction of that block */
    TV_VEC(tv_spool *) spools; /* streamed transactions not ended yet */
    tv_buf id, oldid;    /* a change's _id, and its old one */
    tv_lsn confirmed;
    int64_t last_status_ms;
    tv_lsn wal_end;   /* the server's position from the last keepalive */
    tv_arena A;       /* per message */
    bool fatal;       /* a failure retrying cannot mend (the index refuses its mapping) */
} feed;

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* microseconds since 2000-01-01 UTC (PostgreSQL's epoch) */
static int64_t pg_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ((int64_t)ts.tv_sec - 946684800) * 1000000 + ts.tv_nsec / 1000;
}

/* Runs stmt with the feed's stats (sf) locked, when it keeps stats. */
#define STATS(f, stmt)                                 \
    do {                                               \
        tv_feed_stats *sf = (f)->o->stats;             \
        if (sf) {                                      \
            pthread_mutex_lock(&sf->mu);               \
            stmt;                                      \
            pthread_mutex_unlock(&sf->mu);             \
        }                                              \
    } while (0)

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static char *xstrdup(const char *s) { return tv_strndup(s, strlen(s)); }

/* ------------------------------------------------------------ libpq */

static PGconn *pg_connect(const char *conninfo, bool replication) {
    const char *keys[] = {"dbname", "options", "application_name", replication ? "replication" : NULL, NULL};
    const char *vals[] = {conninfo, TV_SYNC_PG_OPTIONS, "trove sync", replication ? "database" : NULL, NULL};
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        tv_sync_say("cannot connect to PostgreSQL: %s", c ? PQerrorMessage(c) : "out of memory");
        PQfinish(c);
        return NULL;
    }
    return c;
}

/* Runs a command; true when its status is `want`. The result is cleared
 * unless out is given. */
static bool pg_exec(PGconn *c, const char *sql, ExecStatusType want, PGresult **out) {
    PGresult *r = PQexec(c, sql);
    bool ok = r && PQresultStatus(r) == want;
    if (!ok) tv_sync_say("%s: %s", sql, r ? PQresultErrorMessage(r) : PQerrorMessage(c));
    if (out && ok) *out = r;
    else PQclear(r);
    return ok;
}

/* ------------------------------------------------------------ naming */

/* Appends one id part, '\' and '|' escaped. */
static void id_part(tv_buf *b, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' || s[i] == '|') tv_buf_putc(b, '\\');
        tv_buf_putc(b, s[i]);
    }
}

/* ------------------------------------------------------------ tables */

static void rcols_clear(ftable *t) {
    for (size_t i = 0; i < t->rcols.len; i++) {
        tv_free(t->rcols.items[i].name);
        tv_free(t->rcols.items[i].field);
    }
    t->rcols.len = 0;
    t->rkey.len = 0;
}

static void table_free(ftable *t) {
    tv_stable_fini(&t->s);
    rcols_clear(t);
    tv_vec_fini(&t->rcols);
    tv_vec_fini(&t->rkey);
}

/* Resolves the feed's tables; two tables into one index are refused (a
 * TRUNCATE of one would empty the other's documents). */
static bool tables_load(feed *f) {
    for (size_t i = 0; i < f->o->ntables; i++) {
        ftable t;
        memset(&t, 0, sizeof t);
        if (!tv_stable_load(f->sql, f->o, &f->o->tables[i], &t.s) || tv_vec_push(&f->tables, t)) {
            table_free(&t);
            return false;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(f->tables.items[j].s.index, t.s.index) == 0) {
                tv_sync_say("tables %s.%s and %s.%s both feed the index [%s]: give each its own",
                            f->tables.items[j].s.schema, f->tables.items[j].s.name, t.s.schema, t.s.name, t.s.index);
                return false;
            }
    }
    return true;
}

static ftable *table_by_relid(feed *f, uint32_t relid) {
    for (size_t i = 0; i < f->tables.len; i++)
        if (f->tables.items[i].s.relid == relid) return &f->tables.items[i];
    return NULL;
}

/* ------------------------------------------------------------ sink calls */

static bool drain(feed *f);

/* Sends a request until it gets an answer that is not 429 or 5xx (the feed
 * waits rather than drop: every request it sends is idempotent). Returns
 * the parsed answer, or NULL when the status is another error (printed) or
 * the feed was asked to stop. The sender thread's call; the feed's own is
 * sink_call. */
static tv_json *sink_call_now(feed *f, const char *method, const char *path, const char *body, size_t len,
                              int want, bool quiet) {
    int pause = 100;
    for (;;) {
        if (tv_sink_request(f->sink, method, path, body, len)) {
            int st = f->sink->last.status;
            if (st != 429 && st < 500) break;
        }
        if (stop_requested) return NULL;
        tv_sync_say("%s %s: %s; retrying in %d ms", method, path,
                    f->sink->last.body ? "the index is busy or failing" : "no answer", pause);
        sleep_ms(pause);
        if (pause < 5000) pause *= 2;
    }
    trove_response *r = &f->sink->last;
    tv_json *j = NULL;
    tv_json_error je;
    if (r->status != want || tv_json_parse(&f->sink->arena, r->body, r->body_len, &j, &je) != TROVE_OK) {
        if (!quiet)
            tv_sync_say("%s %s: %d %.*s", method, path, r->status,
                        (int)TV_MIN(r->body_len, (size_t)1000), r->body ? r->body : "");
        return NULL;
    }
    return j;
}

/* sink_call_now once the batch in flight, if any, is written (the sink
 * serves one request at a time, and a request must not overtake the
 * batch); NULL when that batch failed. */
static tv_json *sink_call(feed *f, const char *method, const char *path, const char *body, size_t len, int want,
                          bool quiet) {
    return drain(f) ? sink_call_now(f, method, path, body, len, want, quiet) : NULL;
}

/* Creates the index with the columns' mapping unless it exists. */
static bool ensure_index(feed *f, ftable *t) {
    char path[600];
    snprintf(path, sizeof path, "/%s", t->s.index);
    if (!drain(f)) return false;
    bool exists = tv_sink_request(f->sink, "HEAD", path, NULL, 0) && f->sink->last.status == 200;
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_obj_begin(&w);
    if (!exists && t->s.conf->settings) {
        tv_jw_keyz(&w, "settings");
        tv_jw_value(&w, t->s.conf->settings);
    }
    if (!exists) {
        tv_jw_keyz(&w, "mappings");
        tv_jw_obj_begin(&w);
    }
    tv_jw_keyz(&w, "properties");
    tv_jw_obj_begin(&w);
    for (size_t i = 0; i < t->s.cols.len; i++) {
        tv_scol *c = &t->s.cols.items[i];
        if (!c->field) continue;
        tv_jw_keyz(&w, c->field);
        tv_stable_mapping(&t->s, c->field, c->type, c->typmod, &f->o->values, &w);
        c->mapped = true;
    }
    tv_jw_obj_end(&w);
    if (!exists) tv_jw_obj_end(&w);
    tv_jw_obj_end(&w);
    if (exists) {
        /* columns added while the feed was down: their mapping now (a
         * conflict with an existing field is left to the dead letters) */
        snprintf(path, sizeof path, "/%s/_mapping", t->s.index);
        if (!b.oom) (void)sink_call(f, "PUT", path, b.data, b.len, 200, true);
        tv_buf_fini(&b);
        return true;
    }
    bool ok = !b.oom && sink_call(f, "PUT", path, b.data, b.len, 200, true) != NULL;
    if (!ok && f->sink->last.status == 400 && f->sink->last.body &&
        strstr(f->sink->last.body, trove_status_type(TROVE_EEXISTS)))
        ok = true;
    if (!ok) {
        f->fatal = f->sink->last.body && f->sink->last.status >= 400 && f->sink->last.status < 500;
        tv_sync_say("cannot create index [%s]: %.*s", t->s.index,
                    (int)TV_MIN(f->sink->last.body_len, (size_t)1000), f->sink->last.body ? f->sink->last.body : "");
    }
    tv_buf_fini(&b);
    return ok;
}

/* ------------------------------------------------------------ checkpoint */

static void snap_key_clear(feed *f) {
    for (size_t i = 0; i < f->snap_key.len; i++) tv_free(f->snap_key.items[i]);
    f->snap_key.len = 0;
}

static bool ckpt_read(feed *f) {
    char path[300];
    snprintf(path, sizeof path, "/" CKPT_INDEX "/_doc/%s", f->o->slot);
    tv_json *j = sink_call(f, "GET", path, NULL, 0, 200, true);
    if (!j) {
        if (f->sink->last.status == 404) return true; /* a new feed */
        tv_sync_say("cannot read the checkpoint: %d %.*s", f->sink->last.status,
                    (int)TV_MIN(f->sink->last.body_len, (size_t)1000), f->sink->last.body ? f->sink->last.body : "");
        return false;
    }
    const tv_json *src = tv_json_get(j, "_source");
    const tv_json *lsn = tv_json_get(src, "lsn"), *done = tv_json_get(src, "snapshot_done");
    const tv_json *tab = tv_json_get(src, "snapshot_table"), *key = tv_json_get(src, "snapshot_key");
    if (!tv_json_is_string(lsn) || !tv_lsn_parse(lsn->v.s, &f->lsn) || !done || !tab ||
        tab->type != TV_JSON_INT) {
        tv_sync_say("the checkpoint %s is not one trove wrote", path);
        return false;
    }
    f->have_ckpt = true;
    f->snapshot_done = done->type == TV_JSON_TRUE;
    f->snap_table = (size_t)tab->v.i;
    snap_key_clear(f);
    if (key && key->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < key->len; i++) {
            const tv_json *k = &key->v.items[i];
            char *s = tv_json_is_string(k) ? tv_strndup(k->v.s, k->len) : NULL;
            if (!s || tv_vec_push(&f->snap_key, s)) {
                tv_free(s);
                return false;
            }
        }
    }
    return true;
}

/* The checkpoint document of the feed's position now into b. */
static void ckpt_body(const feed *f, tv_buf *b) {
    tv_jw w;
    tv_jw_init(&w, b, false);
    char lsn[18];
    tv_lsn_format(f->lsn, lsn);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "slot");
    tv_jw_strz(&w, f->o->slot);
    tv_jw_keyz(&w, "lsn");
    tv_jw_strz(&w, lsn);
    tv_jw_keyz(&w, "snapshot_done");
    tv_jw_bool(&w, f->snapshot_done);
    tv_jw_keyz(&w, "snapshot_table");
    tv_jw_int(&w, (int64_t)f->snap_table);
    tv_jw_keyz(&w, "snapshot_key");
    tv_jw_arr_begin(&w);
    for (size_t i = 0; i < f->snap_key.len; i++) tv_jw_strz(&w, f->snap_key.items[i]);
    tv_jw_arr_end(&w);
    tv_jw_keyz(&w, "rows");
    tv_jw_uint(&w, f->total_rows);
    tv_jw_obj_end(&w);
}

/* Writes a checkpoint document (at lsn), after the documents it covers
 * are durable; either thread (the sink is the caller's). */
static bool ckpt_put(feed *f, const char *body, size_t len, tv_lsn lsn, int64_t commit_time) {
    char path[300];
    snprintf(path, sizeof path, "/" CKPT_INDEX "/_doc/%s", f->o->slot);
    bool ok = sink_call_now(f, "PUT", path, body, len, 200, true) ||
              (f->sink->last.status == 201 && f->sink->last.body);
    if (!ok) tv_sync_say("cannot write the checkpoint");
    if (ok) STATS(f, (sf->lsn = lsn, sf->last_commit_ms = now_ms(), sf->commit_time = commit_time));
    return ok;
}

/* Writes the checkpoint of the feed's position now, after the batch in
 * flight. */
static bool ckpt_write(feed *f) {
    if (!drain(f)) return false;
    tv_buf b;
    tv_buf_init(&b);
    ckpt_body(f, &b);
    bool ok = !b.oom && ckpt_put(f, b.data, b.len, f->lsn, f->lsn_time);
    tv_buf_fini(&b);
    f->have_ckpt = ok;
    if (ok) f->durable = f->lsn;
    return ok;
}

/* ------------------------------------------------------------ the batch */

static void batch_clear(struct batch *b) {
    tv_buf_clear(&b->bulk);
    b->rows = 0;
    for (size_t i = 0; i < b->acts.len; i++) tv_free(b->acts.items[i].id);
    b->acts.len = 0;
}

static void batch_fini(struct batch *b) {
    batch_clear(b);
    tv_buf_fini(&b->bulk);
    tv_vec_fini(&b->acts);
}

/* Starts an action line of the batch being built. */
static void action(feed *f, const char *op, const ftable *t, const char *id, size_t idlen, tv_lsn lsn) {
    tv_buf *bulk = &f->b.bulk;
    if (!f->b.acts.len) f->batch_since_ms = now_ms();
    tv_jw w;
    tv_jw_init(&w, bulk, false);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, op);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "_index");
    tv_jw_strz(&w, t->s.index);
    tv_jw_keyz(&w, "_id");
    tv_jw_str(&w, id, idlen);
    tv_jw_obj_end(&w);
    tv_jw_obj_end(&w);
    tv_buf_putc(bulk, '\n');
    struct act a = {t, strcmp(op, "delete") ? tv_strndup(id, idlen) : NULL, lsn, bulk->len};
    if ((strcmp(op, "delete") && !a.id) || tv_vec_push(&f->b.acts, a)) {
        tv_free(a.id);
        bulk->oom = true;
    }
}

/* Appends one dead letter of table t to the _bulk body b (the document
 * line is left out when doc is NULL), counts it and reports it on stderr. */
static void dead_letter(feed *f, tv_buf *b, const ftable *t, const char *id, size_t idlen, tv_lsn lsn,
                        const char *type, const char *reason, const char *doc, size_t dlen) {
    char l[18];
    tv_lsn_format(lsn, l);
    tv_buf_printf(b, "{\"index\":{\"_index\":\"" DEAD_INDEX "\"}}\n");
    tv_jw w;
    tv_jw_init(&w, b, false);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "feed");
    tv_jw_strz(&w, f->o->slot);
    tv_jw_keyz(&w, "table");
    char table[300]; /* PostgreSQL names have at most 63 bytes */
    tv_jw_strz(&w, (snprintf(table, sizeof table, "%s.%s", t->s.schema, t->s.name), table));
    tv_jw_keyz(&w, "id");
    tv_jw_str(&w, id, idlen);
    tv_jw_keyz(&w, "lsn");
    tv_jw_strz(&w, l);
    tv_jw_keyz(&w, "type");
    tv_jw_strz(&w, type);
    tv_jw_keyz(&w, "reason");
    tv_jw_strz(&w, reason);
    if (doc) {
        tv_jw_keyz(&w, "document");
        tv_jw_str(&w, doc, dlen);
    }
    tv_jw_obj_end(&w);
    tv_buf_putc(b, '\n');
    f->dead++;
    STATS(f, sf->dead++);
    tv_sync_say("dead letter: %s.%s id [%.*s]: %s", t->s.schema, t->s.name, (int)idlen, id, reason);
}

/* The dead letters of the items a batch's _bulk answer refused. */
static void dead_letters(feed *f, const struct batch *bt, const tv_json *items) {
    tv_buf b;
    tv_buf_init(&b);
    for (uint32_t i = 0; i < items->len && i < bt->acts.len; i++) {
        const tv_json *it = &items->v.items[i];
        if (it->type != TV_JSON_OBJECT || it->len != 1) continue;
        const tv_json *res = &it->v.members[0].val;
        const tv_json *st = tv_json_get(res, "status"), *err = tv_json_get(res, "error");
        if (!err || !st || st->type != TV_JSON_INT) continue;
        const struct act *a = &bt->acts.items[i];
        if (!a->id) continue; /* a delete fails only with 404: nothing lost */
        size_t from = a->src, to = i + 1 < bt->acts.len ? bt->acts.items[i + 1].src : bt->bulk.len;
        /* the document line: from `from` to its newline */
        const char *doc = bt->bulk.data + from;
        const char *nl = memchr(doc, '\n', to > from ? to - from : 0);
        size_t dlen = nl ? (size_t)(nl - doc) : 0;
        const tv_json *reason = tv_json_get(err, "reason"), *type = tv_json_get(err, "type");
        dead_letter(f, &b, a->t, a->id, strlen(a->id), a->lsn, tv_json_is_string(type) ? type->v.s : "",
                    tv_json_is_string(reason) ? reason->v.s : "refused", doc, dlen);
    }
    if (b.len && !b.oom) {
        tv_json *j = sink_call_now(f, "POST", "/_bulk", b.data, b.len, 200, false);
        const tv_json *errs = tv_json_get(j, "errors");
        if (!j || !errs || errs->type != TV_JSON_FALSE)
            tv_sync_say("a dead letter could not be written either");
    }
    tv_buf_fini(&b);
}

/* Sends a batch through the sink (the caller's: the sender thread's, or
 * the feed's after drain); its documents are durable when this returns
 * true. */
static bool batch_write(feed *f, struct batch *bt) {
    if (!bt->bulk.len) return true;
    if (bt->bulk.oom) {
        tv_sync_say("out of memory building a batch");
        return false;
    }
    tv_json *j = sink_call_now(f, "POST", "/_bulk", bt->bulk.data, bt->bulk.len, 200, false);
    if (!j) return false;
    const tv_json *errs = tv_json_get(j, "errors"), *items = tv_json_get(j, "items");
    if (errs && errs->type == TV_JSON_TRUE && items && items->type == TV_JSON_ARRAY) {
        /* the answer lives in the sink's arena and last body: keep them
         * while dead letters are written through the same sink */
        tv_sink copy = *f->sink;
        tv_arena_init(&f->sink->arena);
        memset(&f->sink->last, 0, sizeof f->sink->last);
        dead_letters(f, bt, items);
        trove_response_fini(&copy.last);
        tv_arena_fini(&copy.arena);
    }
    STATS(f, sf->rows += bt->rows);
    return true;
}

/* The sender thread: the batch in flight, then its checkpoint. */
static void *sender(void *arg) {
    feed *f = arg;
    bool ok = batch_write(f, &f->fly) && (!f->fly_ckpt || ckpt_put(f, f->fly_ckpt, f->fly_ckpt_len, f->fly_lsn, f->fly_time));
    if (!ok) snprintf(f->fly_error, sizeof f->fly_error, "%s", tv_sync_last_said());
    f->fly_ok = ok;
    atomic_store(&f->fly_done, true);
    return NULL;
}

/* Waits for the batch in flight; false when it (or one before) failed:
 * the feed must restart from its checkpoint. */
static bool drain(feed *f) {
    if (f->flying) {
        if (f->fly_thread) pthread_join(f->fly_th, NULL);
        f->flying = false;
        if (!f->fly_ok) {
            f->fly_failed = true;
            tv_sync_remember(f->fly_error); /* the sender's message, as the feed's */
        }
        else if (f->fly_ckpt) {
            f->durable = f->fly_lsn;
            f->have_ckpt = true;
        }
        tv_free(f->fly_ckpt);
        f->fly_ckpt = NULL;
        batch_clear(&f->fly);
    }
    return !f->fly_failed;
}

/* Hands the batch being built to the index, followed by the checkpoint of
 * the feed's position now when ckpt: written before this returns when
 * o->in_flight is 0, else by a sender thread while the feed reads on (the
 * next submit, or any other request, waits for it). False when a batch
 * failed. */
static bool submit(feed *f, bool ckpt) {
    if (!drain(f)) return false;
    f->total_rows += f->b.rows;
    if (!f->o->in_flight) {
        bool ok = batch_write(f, &f->b);
        batch_clear(&f->b);
        return ok && (!ckpt || ckpt_write(f));
    }
    struct batch t = f->fly;
    f->fly = f->b;
    f->b = t; /* the emptied buffers of the last batch, reused */
    f->fly_ckpt = NULL;
    if (ckpt) {
        tv_buf b;
        tv_buf_init(&b);
        ckpt_body(f, &b);
        if (b.oom) {
            tv_buf_fini(&b);
            return false;
        }
        f->fly_ckpt = tv_buf_detach(&b, &f->fly_ckpt_len);
        f->fly_lsn = f->lsn;
        f->fly_time = f->lsn_time;
    }
    atomic_store(&f->fly_done, false);
    f->flying = true;
    f->fly_thread = pthread_create(&f->fly_th, NULL, sender, f) == 0;
    if (!f->fly_thread) {
        (void)sender(f); /* no thread to be had: write it now */
        return drain(f);
    }
    return true;
}

/* Writes the batch being built now, after the one in flight. */
static bool batch_send(feed *f) {
    if (!drain(f)) return false;
    f->total_rows += f->b.rows;
    bool ok = batch_write(f, &f->b);
    batch_clear(&f->b);
    return ok;
}

/* ------------------------------------------------------------ documents */

/* One row as a document into the batch: the columns that have a field, in
 * column order, value i from get(). partial: only the columns present (an
 * UPDATE that left TOASTed columns out); their object-valued columns are
 * first set to null so that the merge replaces them whole. */
typedef struct rowsrc {
    size_t n;
    const tv_scol *cols; /* a column without a field is not written */
    /* value i: NULL data = SQL NULL; unchanged = left out */
    const char *(*get)(const void *ud, size_t i, size_t *len, bool *unchanged);
    const void *ud;
} rowsrc;

static bool is_object_type(uint32_t oid) { return oid == 114 || oid == 3802; }

/* Builds the id; false when a key column is NULL or missing. */
static bool row_id(const rowsrc *r, const int *keypos, size_t nkeys, tv_buf *id) {
    tv_buf_clear(id);
    for (size_t k = 0; k < nkeys; k++) {
        if (keypos[k] < 0 || (size_t)keypos[k] >= r->n) return false;
        size_t len;
        bool unch;
        const char *v = r->get(r->ud, (size_t)keypos[k], &len, &unch);
        if (!v || unch) return false;
        if (k) tv_buf_putc(id, '|');
        if (nkeys == 1) tv_buf_append(id, v, len);
        else id_part(id, v, len);
    }
    return !id->oom;
}

/* Appends the row's document; false when a value does not convert (the row
 * is then dead-lettered by the caller). */
static bool row_doc(feed *f, const rowsrc *r, bool partial, tv_buf *out) {
    tv_jw w;
    tv_jw_init(&w, out, false);
    tv_jw_obj_begin(&w);
    if (partial) {
        tv_jw_keyz(&w, "doc");
        tv_jw_obj_begin(&w);
    }
    for (size_t i = 0; i < r->n; i++) {
        size_t len;
        bool unch = false;
        if (!r->cols[i].field) continue;
        const char *v = r->get(r->ud, i, &len, &unch);
        if (unch) continue;
        tv_jw_keyz(&w, r->cols[i].field);
        if (!v) tv_jw_null(&w);
        else if (!tv_pgv_json(&w, r->cols[i].type, v, len, &f->o->values)) return false;
    }
    if (partial) {
        tv_jw_obj_end(&w);
        tv_jw_keyz(&w, "doc_as_upsert");
        tv_jw_bool(&w, true);
    }
    tv_jw_obj_end(&w);
    return !out->oom;
}

/* A row that could not be converted: straight to the dead letters. */
static void dead_row(feed *f, const ftable *t, const char *id, size_t idlen, tv_lsn lsn, const char *why) {
    if (!drain(f)) return; /* the sender counts dead letters too; and the feed restarts anyway */
    tv_buf b;
    tv_buf_init(&b);
    dead_letter(f, &b, t, id, idlen, lsn, trove_status_type(TROVE_ESYNC), why, NULL, 0);
    if (!b.oom) (void)sink_call(f, "POST", "/_bulk", b.data, b.len, 200, false);
    tv_buf_fini(&b);
}

/* Adds an upsert (or partial update) of a row to the batch. */
static void add_row(feed *f, const ftable *t, const rowsrc *r, const int *keypos, size_t nkeys, tv_lsn lsn,
                    tv_buf *id) {
    if (!row_id(r, keypos, nkeys, id)) {
        dead_row(f, t, "", 0, lsn, "a row without its key columns");
        return;
    }
    bool partial = false;
    for (size_t i = 0; i < r->n && !partial; i++) {
        size_t len;
        bool unch = false;
        if (r->cols[i].field) (void)r->get(r->ud, i, &len, &unch);
        partial = unch;
    }
    size_t mark = f->b.bulk.len, nact = f->b.acts.len;
    if (partial) {
        /* object columns are replaced, not merged: null them first */
        bool any = false;
        for (size_t i = 0; i < r->n; i++) {
            size_t len;
            bool unch = false;
            if (!r->cols[i].field || !is_object_type(r->cols[i].type)) continue;
            (void)r->get(r->ud, i, &len, &unch);
            if (unch) continue;
            if (!any) {
                action(f, "update", t, id->data, id->len, lsn);
                tv_buf_printf(&f->b.bulk, "{\"doc\":{");
            } else {
                tv_buf_putc(&f->b.bulk, ',');
            }
            tv_jw w;
            tv_jw_init(&w, &f->b.bulk, false);
            tv_jw_strz(&w, r->cols[i].field);
            tv_buf_printf(&f->b.bulk, ":null");
            any = true;
        }
        if (any) tv_buf_printf(&f->b.bulk, "},\"doc_as_upsert\":true}\n");
    }
    action(f, partial ? "update" : "index", t, id->data, id->len, lsn);
    if (!row_doc(f, r, partial, &f->b.bulk)) {
        /* drop what this row appended, and dead-letter it */
        f->b.bulk.len = mark;
        f->b.bulk.oom = false;
        while (f->b.acts.len > nact) tv_free(f->b.acts.items[--f->b.acts.len].id);
        tv_buf idc;
        tv_buf_init(&idc);
        tv_buf_append(&idc, id->data, id->len);
        dead_row(f, t, idc.data ? idc.data : "", idc.len, lsn, "a value does not convert to JSON");
        tv_buf_fini(&idc);
        return;
    }
    tv_buf_putc(&f->b.bulk, '\n');
    f->b.rows++;
}

static void add_delete(feed *f, const ftable *t, const char *id, size_t idlen) {
    action(f, "delete", t, id, idlen, 0);
    f->b.rows++;
}

/* ------------------------------------------------------------ snapshot */

typedef struct pgrow {
    PGresult *r;
    int row;
    const int *sel; /* per table column: its column in the result, -1 when not selected */
} pgrow;

static const char *pgrow_get(const void *ud, size_t i, size_t *len, bool *unchanged) {
    const pgrow *p = ud;
    int c = p->sel[i];
    *unchanged = false;
    *len = 0;
    if (c < 0 || PQgetisnull(p->r, p->row, c)) return NULL;
    *len = (size_t)PQgetlength(p->r, p->row, c);
    return PQgetvalue(p->r, p->row, c);
}

/* The position in names of column `name`, or -1. */
static int name_pos(const tv_scol *cols, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(cols[i].name, name) == 0) return (int)i;
    return -1;
}

static void progress(const feed *f, const ftable *t, uint64_t done, bool final) {
    if (f->o->quiet || !isatty(2)) return;
    fprintf(stderr, "\rtrove sync: snapshot of %s.%s: %llu rows", t->s.schema, t->s.name, (unsigned long long)done);
    if (final) fputc('\n', stderr);
}

/* Reads table t from the snapshot the transaction of f->sql holds, after
 * the key in f->snap_key when there is one; a checkpoint after each page. */
static bool snapshot_table(feed *f, ftable *t, size_t ti) {
    if (!ensure_index(f, t)) return false;
    /* the columns read: those with a field, and the _id's; sel maps the
     * table's columns to the result's */
    const tv_stable *st = &t->s;
    int *sel = tv_calloc(st->cols.len ? st->cols.len : 1, sizeof *sel);
    if (!sel) return false;
    tv_buf q;
    tv_buf_init(&q);
    tv_buf_printf(&q, "DECLARE trove_snapshot NO SCROLL CURSOR FOR SELECT ");
    int nsel = 0;
    for (size_t c = 0; c < st->cols.len; c++) {
        const char *name = st->cols.items[c].name;
        bool id = false;
        for (size_t k = 0; k < st->ids.len && !id; k++) id = strcmp(st->ids.items[k], name) == 0;
        sel[c] = -1;
        if (!id && !st->cols.items[c].field) continue;
        char *qc = PQescapeIdentifier(f->sql, name, strlen(name));
        tv_buf_printf(&q, "%s%s", nsel ? ", " : "", qc ? qc : "");
        PQfreemem(qc);
        sel[c] = nsel++;
    }
    if (!nsel) tv_buf_printf(&q, "NULL");
    /* positions of the _id's columns (_id order), and in the result of the
     * sort's (index order) */
    int keypos[64], ordpos[64];
    size_t nid = TV_MIN(st->ids.len, (size_t)64), nkeys = TV_MIN(st->order.len, (size_t)64);
    for (size_t k = 0; k < nid; k++) keypos[k] = name_pos(st->cols.items, st->cols.len, st->ids.items[k]);
    for (size_t k = 0; k < nkeys; k++) {
        int c = name_pos(st->cols.items, st->cols.len, st->order.items[k]);
        ordpos[k] = c < 0 ? -1 : sel[c];
    }
    tv_buf_printf(&q, " FROM ONLY %s", t->s.qname);
    tv_buf keylist;
    tv_buf_init(&keylist);
    for (size_t k = 0; k < nkeys; k++) {
        char *qk = PQescapeIdentifier(f->sql, st->order.items[k], strlen(st->order.items[k]));
        tv_buf_printf(&keylist, "%s%s", k ? ", " : "", qk ? qk : "");
        PQfreemem(qk);
    }
    if (f->snap_key.len == nkeys && nkeys) {
        tv_buf_printf(&q, " WHERE (%.*s) > (", (int)keylist.len, keylist.data);
        for (size_t k = 0; k < nkeys; k++) {
            char *lit = PQescapeLiteral(f->sql, f->snap_key.items[k], strlen(f->snap_key.items[k]));
            tv_buf_printf(&q, "%s%s", k ? ", " : "", lit ? lit : "NULL");
            PQfreemem(lit);
        }
        tv_buf_printf(&q, ")");
    }
    tv_buf_printf(&q, " ORDER BY %.*s", (int)keylist.len, keylist.data);
    tv_buf_fini(&keylist);
    bool ok = !q.oom && pg_exec(f->sql, q.data ? q.data : "", PGRES_COMMAND_OK, NULL);
    tv_buf_fini(&q);
    tv_buf id;
    tv_buf_init(&id);
    uint64_t done = 0;
    char fetch[64];
    snprintf(fetch, sizeof fetch, "FETCH %zu FROM trove_snapshot", f->o->batch_rows);
    while (ok && !stop_requested) {
        PGresult *r = NULL;
        if (!pg_exec(f->sql, fetch, PGRES_TUPLES_OK, &r)) {
            ok = false;
            break;
        }
        int n = PQntuples(r);
        if (n == 0) {
            PQclear(r);
            break;
        }
        for (int i = 0; i < n; i++) {
            pgrow pr = {r, i, sel};
            rowsrc src = {st->cols.len, st->cols.items, pgrow_get, &pr};
            add_row(f, t, &src, keypos, nid, f->lsn, &id);
        }
        /* the page's last key, then the page and the checkpoint */
        snap_key_clear(f);
        for (size_t k = 0; k < nkeys && ok; k++) {
            char *s = ordpos[k] < 0 ? NULL : xstrdup(PQgetvalue(r, n - 1, ordpos[k]));
            if (!s || tv_vec_push(&f->snap_key, s)) {
                tv_free(s);
                ok = false;
            }
        }
        PQclear(r);
        done += (uint64_t)n;
        f->snap_table = ti;
        STATS(f, (sf->state = "snapshot", sf->snap_table = ti, sf->snap_rows = done));
        ok = ok && submit(f, true);
        progress(f, t, done, false);
    }
    tv_buf_fini(&id);
    tv_free(sel);
    if (ok && !stop_requested) ok = pg_exec(f->sql, "CLOSE trove_snapshot", PGRES_COMMAND_OK, NULL);
    progress(f, t, done, true);
    if (ok && !stop_requested) {
        char path[600];
        snprintf(path, sizeof path, "/%s/_refresh", t->s.index);
        (void)sink_call(f, "POST", path, NULL, 0, 200, true);
    }
    return ok && !stop_requested;
}

/* ------------------------------------------------------------ setup */

static bool ensure_publication(feed *f) {
    char *pub = PQescapeLiteral(f->sql, f->o->publication, strlen(f->o->publication));
    char *qpub = PQescapeIdentifier(f->sql, f->o->publication, strlen(f->o->publication));
    tv_buf q;
    tv_buf_init(&q);
    tv_buf_printf(&q, "SELECT 1 FROM pg_publication WHERE pubname = %s", pub ? pub : "''");
    PGresult *r = NULL;
    bool ok = pub && qpub && pg_exec(f->sql, q.data ? q.data : "", PGRES_TUPLES_OK, &r);
    bool exists = ok && PQntuples(r) == 1;
    PQclear(r);
    tv_buf_clear(&q);
    if (ok && !exists) {
        tv_buf_printf(&q, "CREATE PUBLICATION %s FOR TABLE ", qpub);
        for (size_t i = 0; i < f->tables.len; i++) tv_buf_printf(&q, "%s%s", i ? ", " : "", f->tables.items[i].s.qname);
        ok = !q.oom && pg_exec(f->sql, q.data, PGRES_COMMAND_OK, NULL);
    } else if (ok) {
        for (size_t i = 0; ok && i < f->tables.len; i++) {
            ftable *t = &f->tables.items[i];
            tv_buf_clear(&q);
            tv_buf_printf(&q, "SELECT 1 FROM pg_publication_rel pr JOIN pg_publication p ON p.oid = pr.prpubid "
                              "WHERE p.pubname = %s AND pr.prrelid = %u", pub, t->s.relid);
            r = NULL;
            ok = !q.oom && pg_exec(f->sql, q.data, PGRES_TUPLES_OK, &r);
            bool has = ok && PQntuples(r) == 1;
            PQclear(r);
            if (ok && !has) {
                tv_buf_clear(&q);
                tv_buf_printf(&q, "ALTER PUBLICATION %s ADD TABLE %s", qpub, t->s.qname);
                ok = !q.oom && pg_exec(f->sql, q.data, PGRES_COMMAND_OK, NULL);
            }
        }
    }
    tv_buf_fini(&q);
    PQfreemem(pub);
    PQfreemem(qpub);
    return ok;
}

/* Whether the slot exists; its confirmed position into *confirmed. */
static int slot_state(feed *f, tv_lsn *confirmed) {
    const char *p[1] = {f->o->slot};
    PGresult *r = PQexecParams(f->sql,
                               "SELECT confirmed_flush_lsn::text, plugin, database, current_database() FROM pg_replication_slots "
                               "WHERE slot_name = $1",
                               1, NULL, p, NULL, NULL, 0);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        tv_sync_say("reading pg_replication_slots: %s", PQerrorMessage(f->sql));
        PQclear(r);
        return -1;
    }
    int exists = PQntuples(r) == 1;
    if (exists && strcmp(PQgetvalue(r, 0, 1), "pgoutput") != 0) {
        tv_sync_say("slot %s exists with plugin %s, not pgoutput: choose another --slot", f->o->slot,
                    PQgetvalue(r, 0, 1));
        exists = -1;
    } else if (exists && strcmp(PQgetvalue(r, 0, 2), PQgetvalue(r, 0, 3)) != 0) {
        tv_sync_say("slot %s belongs to database %s, not %s: choose another --slot", f->o->slot,
                    PQgetvalue(r, 0, 2), PQgetvalue(r, 0, 3));
        exists = -1;
    } else if (exists && !PQgetisnull(r, 0, 0)) {
        tv_lsn_parse(PQgetvalue(r, 0, 0), confirmed);
    }
    PQclear(r);
    return exists;
}

/* ------------------------------------------------------------ the stream */

typedef struct tuplesrc {
    const tv_pgo_tuple *t;
} tuplesrc;

static const char *tuple_get(const void *ud, size_t i, size_t *len, bool *unchanged) {
    const tv_pgo_tuple *t = ((const tuplesrc *)ud)->t;
    *unchanged = false;
    *len = 0;
    if (i >= t->n) return NULL;
    const tv_pgo_value *v = &t->v[i];
    if (v->kind == TV_PGO_UNCHANGED) {
        *unchanged = true;
        return NULL;
    }
    if (v->kind != TV_PGO_TEXT) return NULL;
    *len = v->len;
    return v->data;
}

/* A Relation message: the table's columns as the stream now sends them. */
static bool on_relation(feed *f, const tv_pgo_msg *m) {
    ftable *t = table_by_relid(f, m->u.relation.relid);
    if (!t) return true; /* not ours (a publication shared with others) */
    rcols_clear(t);
    tv_buf props;
    tv_buf_init(&props);
    tv_jw w;
    tv_jw_init(&w, &props, false);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "properties");
    tv_jw_obj_begin(&w);
    bool newcols = false;
    for (uint16_t i = 0; i < m->u.relation.ncols; i++) {
        const tv_pgo_col *c = &m->u.relation.cols[i];
        bool oom = false;
        tv_scol rc = {.name = xstrdup(c->name), .type = tv_stable_type(f->sql, c->type_oid), .typmod = c->typmod};
        if (rc.name) rc.field = tv_stable_field(&t->s, c->name, &oom);
        if (!rc.name || oom || tv_vec_push(&t->rcols, rc)) {
            tv_free(rc.name);
            tv_free(rc.field);
            tv_buf_fini(&props);
            return false;
        }
        if (!rc.field) continue;
        bool known = false;
        for (size_t k = 0; k < t->s.cols.len && !known; k++)
            known = t->s.cols.items[k].mapped && strcmp(t->s.cols.items[k].name, c->name) == 0;
        if (!known) {
            /* a column added since the start: map it now (once) */
            tv_jw_keyz(&w, rc.field);
            tv_stable_mapping(&t->s, rc.field, rc.type, c->typmod, &f->o->values, &w);
            newcols = true;
            tv_scol kc = {.name = xstrdup(c->name), .field = xstrdup(rc.field), .type = rc.type,
                          .typmod = c->typmod, .mapped = true};
            if (!kc.name || !kc.field || tv_vec_push(&t->s.cols, kc)) {
                tv_free(kc.name);
                tv_free(kc.field);
            }
        }
    }
    /* the _id's columns by name, in _id order (-1: missing, so the row
     * cannot be written and is dead-lettered) */
    for (size_t k = 0; k < t->s.ids.len; k++)
        if (tv_vec_push(&t->rkey, name_pos(t->rcols.items, t->rcols.len, t->s.ids.items[k]))) {
            tv_buf_fini(&props);
            return false;
        }
    tv_jw_obj_end(&w);
    tv_jw_obj_end(&w);
    t->relation_seen = true;
    if (newcols && !props.oom) {
        /* earlier rows of the batch first: the mapping applies to the next */
        if (!batch_send(f)) {
            tv_buf_fini(&props);
            return false;
        }
        char path[600];
        snprintf(path, sizeof path, "/%s/_mapping", t->s.index);
        if (!sink_call(f, "PUT", path, props.data, props.len, 200, false))
            tv_sync_say("the new columns of %s.%s keep dynamic mappings", t->s.schema, t->s.name);
    }
    tv_buf_fini(&props);
    return true;
}

static bool on_truncate(feed *f, const tv_pgo_msg *m) {
    if (!batch_send(f)) return false;
    for (uint32_t i = 0; i < m->u.truncate.nrels; i++) {
        ftable *t = table_by_relid(f, m->u.truncate.relids[i]);
        if (!t) continue;
        char path[700];
        snprintf(path, sizeof path, "/%s/_refresh", t->s.index);
        (void)sink_call(f, "POST", path, NULL, 0, 200, true);
        snprintf(path, sizeof path, "/%s/_delete_by_query?refresh=true&conflicts=proceed", t->s.index);
        static const char all[] = "{\"query\":{\"match_all\":{}}}";
        if (!sink_call(f, "POST", path, all, sizeof all - 1, 200, false)) return false;
    }
    return true;
}

static bool on_change(feed *f, const tv_pgo_msg *m) {
    tv_buf *id = &f->id, *oldid = &f->oldid;
    uint32_t relid = m->kind == TV_PGO_INSERT   ? m->u.insert.relid
                     : m->kind == TV_PGO_UPDATE ? m->u.update.relid
                                                : m->u.del.relid;
    ftable *t = table_by_relid(f, relid);
    if (!t) return true;
    if (!t->relation_seen) {
        tv_sync_say("a change of %s.%s before its Relation message", t->s.schema, t->s.name);
        return false;
    }
    tv_lsn lsn = f->cur_commit;
    if (m->kind == TV_PGO_INSERT) {
        tuplesrc ts = {&m->u.insert.newt};
        rowsrc r = {TV_MIN((size_t)m->u.insert.newt.n, t->rcols.len), t->rcols.items, tuple_get, &ts};
        add_row(f, t, &r, t->rkey.items, t->rkey.len, lsn, id);
        return true;
    }
    if (m->kind == TV_PGO_UPDATE) {
        tuplesrc ns = {&m->u.update.newt};
        rowsrc r = {TV_MIN((size_t)m->u.update.newt.n, t->rcols.len), t->rcols.items, tuple_get, &ns};
        if (m->u.update.oldkind) {
            /* the old key: a changed primary key deletes the old document */
            tuplesrc os = {&m->u.update.oldt};
            rowsrc o = {TV_MIN((size_t)m->u.update.oldt.n, t->rcols.len), t->rcols.items, tuple_get, &os};
            if (row_id(&o, t->rkey.items, t->rkey.len, oldid) && row_id(&r, t->rkey.items, t->rkey.len, id) &&
                (oldid->len != id->len || memcmp(oldid->data, id->data, id->len) != 0))
                add_delete(f, t, oldid->data, oldid->len);
        }
        add_row(f, t, &r, t->rkey.items, t->rkey.len, lsn, id);
        return true;
    }
    tuplesrc os = {&m->u.del.oldt};
    rowsrc o = {TV_MIN((size_t)m->u.del.oldt.n, t->rcols.len), t->rcols.items, tuple_get, &os};
    if (!row_id(&o, t->rkey.items, t->rkey.len, id)) {
        dead_row(f, t, "", 0, lsn, "a delete without its key columns");
        return true;
    }
    add_delete(f, t, id->data, id->len);
    return true;
}

static bool commit_point(feed *f);

/* One decoded message of a committed transaction (or of a streamed one,
 * replayed at its commit). */
static bool on_message(feed *f, const tv_pgo_msg *m) {
    bool good = true;
    switch (m->kind) {
    case TV_PGO_BEGIN:
        f->in_txn = true;
        f->cur_commit = m->u.begin.final_lsn;
        f->cur_time = m->u.begin.commit_time;
        break;
    case TV_PGO_COMMIT:
        f->in_txn = false;
        f->batch_lsn = m->u.commit.end_lsn;
        f->batch_time = m->u.commit.commit_time;
        break;
    case TV_PGO_RELATION: good = on_relation(f, m); break;
    case TV_PGO_INSERT:
    case TV_PGO_UPDATE:
    case TV_PGO_DELETE: good = on_change(f, m); break;
    case TV_PGO_TRUNCATE: good = on_truncate(f, m); break;
    default: break; /* Origin, Type, Message: nothing to index */
    }
    if (good && (f->b.rows >= f->o->batch_rows || f->b.bulk.len >= MAX_BATCH_BYTES)) good = commit_point(f);
    return good;
}

/* A replayed message of a streamed transaction (it carries its xid). */
static bool replay_one(void *ud, const uint8_t *msg, size_t len) {
    feed *f = ud;
    tv_arena_reset(&f->A);
    tv_pgo_msg m;
    tv_error err;
    tv_error_clear(&err);
    if (tv_pgo_decode(msg, len, 2, true, &f->A, &m, &err) != TROVE_OK) {
        tv_sync_say("a spooled message: %s", err.reason);
        return false;
    }
    return on_message(f, &m);
}

static size_t spool_at(feed *f, uint32_t xid) {
    for (size_t i = 0; i < f->spools.len; i++)
        if (tv_spool_xid(f->spools.items[i]) == xid) return i;
    return SIZE_MAX;
}

static void spool_drop(feed *f, size_t i) {
    if (f->spool == f->spools.items[i]) f->spool = NULL;
    tv_spool_free(f->spools.items[i]);
    f->spools.items[i] = f->spools.items[--f->spools.len];
}

static void spools_clear(feed *f) {
    while (f->spools.len) spool_drop(f, f->spools.len - 1);
    f->in_stream = false;
}

/* One XLogData frame's pgoutput message. A streamed transaction's
 * messages go to its spool, and are replayed as a transaction at its
 * Stream Commit (the checkpoint then moves to its end, as for a Commit);
 * a Stream Abort drops the spool, or the part an aborted subtransaction
 * began. */
static bool on_frame(feed *f, const uint8_t *data, size_t len) {
    tv_arena_reset(&f->A);
    tv_pgo_msg m;
    tv_error err;
    tv_error_clear(&err);
    if (tv_pgo_decode(data, len, f->proto, f->in_stream, &f->A, &m, &err) != TROVE_OK) {
        tv_sync_say("%s", err.reason);
        return false;
    }
    switch (m.kind) {
    case TV_PGO_STREAM_START: {
        size_t i = spool_at(f, m.u.stream_start.xid);
        if (i == SIZE_MAX) {
            tv_spool *sp = tv_spool_open(m.u.stream_start.xid);
            if (!sp || tv_vec_push(&f->spools, sp)) {
                tv_sync_say("cannot spool a streamed transaction: %s", strerror(errno));
                tv_spool_free(sp);
                return false;
            }
            i = f->spools.len - 1;
        }
        f->spool = f->spools.items[i];
        f->in_stream = true;
        return true;
    }
    case TV_PGO_STREAM_STOP:
        f->in_stream = false;
        f->spool = NULL;
        return true;
    case TV_PGO_STREAM_ABORT: {
        size_t i = spool_at(f, m.u.stream_abort.xid);
        if (i == SIZE_MAX) return true;
        if (m.u.stream_abort.subxid == m.u.stream_abort.xid) spool_drop(f, i);
        else if (!tv_spool_abort_sub(f->spools.items[i], m.u.stream_abort.subxid)) return false;
        return true;
    }
    case TV_PGO_STREAM_COMMIT: {
        uint32_t xid = m.u.stream_commit.xid;
        tv_lsn commit = m.u.stream_commit.commit_lsn, end = m.u.stream_commit.end_lsn;
        int64_t when = m.u.stream_commit.commit_time;
        size_t i = spool_at(f, xid);
        f->in_txn = true;
        f->cur_commit = commit;
        f->cur_time = when;
        if (i != SIZE_MAX) {
            bool ok = tv_spool_replay(f->spools.items[i], replay_one, f);
            spool_drop(f, i);
            if (!ok) return false;
        }
        f->in_txn = false;
        f->batch_lsn = end;
        f->batch_time = when;
        return true;
    }
    default:
        if (f->in_stream) {
            if (!f->spool || !tv_spool_add(f->spool, m.xid, data, len)) {
                tv_sync_say("cannot spool a streamed transaction: %s", strerror(errno));
                return false;
            }
            return true;
        }
        return on_message(f, &m);
    }
}

/* Tells PostgreSQL the durable checkpoint (a standby status: written =
 * flushed = applied), asking for a keepalive back when reply. */
static bool send_status(feed *f, bool reply) {
    uint8_t msg[34];
    tv_pg_standby_status(f->durable, pg_now(), reply, msg);
    if (PQputCopyData(f->repl, (const char *)msg, sizeof msg) != 1 || PQflush(f->repl) != 0) {
        tv_sync_say("sending the standby status: %s", PQerrorMessage(f->repl));
        return false;
    }
    f->confirmed = f->durable;
    f->last_status_ms = now_ms();
    return true;
}

/* Takes in a batch in flight that has finished, and confirms what is
 * durable. */
static bool collect(feed *f) {
    if (f->flying && atomic_load(&f->fly_done) && !drain(f)) return false;
    return f->durable > f->confirmed ? send_status(f, false) : true;
}

/* A batch boundary: the batch being built goes to the index, followed by
 * the checkpoint when a transaction ended in it (f->lsn is then where the
 * feed will stand once that is durable). */
static bool commit_point(feed *f) {
    bool ckpt = f->batch_lsn > f->lsn;
    if (ckpt) {
        f->lsn = f->batch_lsn;
        f->lsn_time = f->batch_time;
    }
    if ((f->b.rows || ckpt) && !submit(f, ckpt)) return false;
    return collect(f);
}

/* Streams from f->lsn until stopped (or caught up with `target`, when
 * once). Returns 0 when it should end, 1 to restart after a failure. */
static int stream(feed *f, tv_lsn target) {
    char lsn[18];
    tv_lsn_format(f->lsn, lsn);
    char *pub = PQescapeIdentifier(f->repl, f->o->publication, strlen(f->o->publication));
    char *slot = PQescapeIdentifier(f->repl, f->o->slot, strlen(f->o->slot));
    tv_buf q;
    tv_buf_init(&q);
    /* publication_names is a list of identifiers inside a string literal */
    /* protocol 2 streams transactions larger than logical_decoding_work_mem
     * while they run (PostgreSQL 14 and later); 1 sends them whole */
    f->proto = PQserverVersion(f->repl) >= 140000 ? 2 : 1;
    f->in_stream = false;
    tv_buf_printf(&q, "START_REPLICATION SLOT %s LOGICAL %s (proto_version '%d', %spublication_names '",
                  slot ? slot : "", lsn, f->proto, f->proto == 2 ? "streaming 'on', " : "");
    for (const char *p = pub ? pub : ""; *p; p++) {
        if (*p == '\'') tv_buf_putc(&q, '\'');
        tv_buf_putc(&q, *p);
    }
    tv_buf_printf(&q, "')");
    PQfreemem(pub);
    PQfreemem(slot);
    bool ok = !q.oom && pg_exec(f->repl, q.data, PGRES_COPY_BOTH, NULL);
    tv_buf_fini(&q);
    if (!ok) return 1;
    STATS(f, sf->state = "streaming");
    if (!drain(f)) return 1;
    f->durable = f->lsn;
    f->confirmed = 0;
    f->wal_end = 0; /* positions of this stream only: an earlier one's may be past what this one sent */
    f->batch_lsn = f->lsn;
    int rc = 1;
    int64_t last_ask = 0;
    for (;;) {
        if (stop_requested) {
            rc = commit_point(f) && drain(f) && collect(f) ? 0 : 1;
            break;
        }
        char *buf = NULL;
        int n = PQgetCopyData(f->repl, &buf, 1);
        if (n == 0) {
            /* nothing to read now: the batch goes (once it has waited
             * flush_ms for more rows), then wait */
            int64_t wait_ms = 100;
            if (f->o->flush_ms && f->b.rows) {
                int64_t left = f->batch_since_ms + f->o->flush_ms - now_ms();
                if (left > 0) wait_ms = TV_MIN(wait_ms, left);
                if (left > 0 ? !collect(f) : !commit_point(f)) break;
            } else if (!commit_point(f)) {
                break;
            }
            bool idle = !f->in_txn && !f->b.rows;
            if (idle && f->wal_end > f->confirmed && f->wal_end > f->lsn) {
                /* nothing of ours up to the server's position: confirm it
                 * so that an idle slot does not hold WAL forever */
                if (now_ms() - f->last_status_ms > 1000) {
                    f->lsn = f->wal_end;
                    f->lsn_time = 0; /* no transaction of ours: caught up */
                    if (!ckpt_write(f) || !send_status(f, false)) break;
                }
            }
            if (f->o->once && idle && target && (f->lsn >= target || f->wal_end >= target)) {
                rc = drain(f) && collect(f) ? 0 : 1;
                break;
            }
            if (now_ms() - f->last_status_ms > STATUS_EVERY_MS && !send_status(f, false)) break;
            if (f->o->once && idle && now_ms() - last_ask > 100) {
                /* ask for a keepalive: it tells the server's position */
                last_ask = now_ms();
                if (!send_status(f, true)) break;
            }
            int fd = PQsocket(f->repl);
            fd_set rs;
            FD_ZERO(&rs);
            FD_SET(fd, &rs);
            struct timeval tv = {0, (long)wait_ms * 1000};
            int s = select(fd + 1, &rs, NULL, NULL, &tv);
            if (s < 0 && errno != EINTR) break;
            if (s > 0 && !PQconsumeInput(f->repl)) {
                tv_sync_say("the replication connection: %s", PQerrorMessage(f->repl));
                break;
            }
            continue;
        }
        if (n < 0) {
            if (n == -2) {
                tv_sync_say("the replication stream: %s", PQerrorMessage(f->repl));
            } else {
                /* the server ended the stream: its reason is the result */
                PGresult *r = PQgetResult(f->repl);
                const char *why = r ? PQresultErrorMessage(r) : "";
                tv_sync_say("the replication stream ended%s%s", *why ? ": " : "", why);
                PQclear(r);
            }
            break;
        }
        tv_pg_frame fr;
        tv_error err;
        tv_error_clear(&err);
        if (tv_pg_frame_decode((const uint8_t *)buf, (size_t)n, &fr, &err) != TROVE_OK) {
            tv_sync_say("%s", err.reason);
            PQfreemem(buf);
            break;
        }
        if (fr.wal_end > f->wal_end) {
            f->wal_end = fr.wal_end;
            STATS(f, sf->server_lsn = f->wal_end);
        }
        bool good = true;
        if (fr.kind == TV_PG_KEEPALIVE) {
            if (fr.reply_requested) good = send_status(f, false);
        } else {
            good = on_frame(f, fr.data, fr.len);
        }
        PQfreemem(buf);
        if (!good) break;
    }
    return rc;
}

/* ------------------------------------------------------------ run */

static void feed_close(feed *f) {
    spools_clear(f);
    PQfinish(f->sql);
    PQfinish(f->repl);
    f->sql = f->repl = NULL;
    for (size_t i = 0; i < f->tables.len; i++) table_free(&f->tables.items[i]);
    f->tables.len = 0;
}

/* Whether the catalog connection was lost (a failure worth retrying). */
static bool gone(feed *f) {
    if (PQstatus(f->sql) != CONNECTION_OK) return true;
    PGresult *r = PQexec(f->sql, "SELECT 1");
    bool ok = r && PQresultStatus(r) == PGRES_TUPLES_OK;
    PQclear(r);
    return !ok;
}

/* One attempt: set up, snapshot when needed, stream. 0 done, 1 failed
 * (retry), 2 failed for good (a table it cannot feed). */
static int attempt(feed *f) {
    f->sql = pg_connect(f->o->pg, false);
    if (!f->sql) return 1;
    /* a failure the server answered (no such table, no key, no permission)
     * is for good; a lost connection (PostgreSQL restarting) is retried */
    if (!tables_load(f)) return gone(f) ? 1 : 2;
    if (!ckpt_read(f)) return 2;
    {
        /* the checkpoint index keeps its documents unmapped */
        static const char body[] = "{\"settings\":{\"number_of_replicas\":0},\"mappings\":{\"dynamic\":false}}";
        if (!tv_sink_request(f->sink, "HEAD", "/" CKPT_INDEX, NULL, 0) || f->sink->last.status != 200)
            (void)sink_call(f, "PUT", "/" CKPT_INDEX, body, sizeof body - 1, 200, true);
    }
    if (!ensure_publication(f)) return gone(f) ? 1 : 2;
    tv_lsn confirmed = 0;
    int exists = slot_state(f, &confirmed);
    if (exists < 0) return gone(f) ? 1 : 2;
    f->repl = pg_connect(f->o->pg, true);
    if (!f->repl) return 1;
    bool fresh = false;
    if (!exists) {
        if (f->have_ckpt)
            tv_sync_say("slot %s is gone (dropped?): the tables are read again from the start",
                        f->o->slot);
        char *slot = PQescapeIdentifier(f->repl, f->o->slot, strlen(f->o->slot));
        tv_buf q;
        tv_buf_init(&q);
        tv_buf_printf(&q, "CREATE_REPLICATION_SLOT %s LOGICAL pgoutput EXPORT_SNAPSHOT", slot ? slot : "");
        PQfreemem(slot);
        PGresult *r = NULL;
        bool ok = !q.oom && pg_exec(f->repl, q.data, PGRES_TUPLES_OK, &r);
        tv_buf_fini(&q);
        if (!ok) return 1;
        tv_lsn cp = 0;
        if (!tv_lsn_parse(PQgetvalue(r, 0, 1), &cp)) {
            PQclear(r);
            return 1;
        }
        f->lsn = cp;
        f->snapshot_done = false;
        f->snap_table = 0;
        snap_key_clear(f);
        tv_buf q2;
        tv_buf_init(&q2);
        char *lit = PQescapeLiteral(f->sql, PQgetvalue(r, 0, 2), strlen(PQgetvalue(r, 0, 2)));
        tv_buf_printf(&q2, "SET TRANSACTION SNAPSHOT %s", lit ? lit : "''");
        PQfreemem(lit);
        PQclear(r);
        ok = pg_exec(f->sql, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", PGRES_COMMAND_OK, NULL) && !q2.oom &&
             pg_exec(f->sql, q2.data, PGRES_COMMAND_OK, NULL);
        tv_buf_fini(&q2);
        if (!ok) return 1;
        fresh = true;
        if (!ckpt_write(f)) return 1;
    } else if (!f->have_ckpt) {
        /* a slot made by a feed that died before its first checkpoint */
        f->lsn = confirmed;
        f->snapshot_done = false;
        f->snap_table = 0;
        snap_key_clear(f);
    }
    if (!f->snapshot_done) {
        if (!fresh && !pg_exec(f->sql, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", PGRES_COMMAND_OK, NULL))
            return 1;
        for (size_t i = f->snap_table; i < f->tables.len; i++) {
            if (i != f->snap_table) snap_key_clear(f);
            if (!snapshot_table(f, &f->tables.items[i], i)) return stop_requested ? 0 : 1;
            f->snap_table = i + 1;
            snap_key_clear(f);
            if (!ckpt_write(f)) return 1;
        }
        if (!pg_exec(f->sql, "COMMIT", PGRES_COMMAND_OK, NULL)) return 1;
        f->snapshot_done = true;
        if (!ckpt_write(f)) return 1;
    } else {
        for (size_t i = 0; i < f->tables.len; i++)
            if (!ensure_index(f, &f->tables.items[i])) return 1;
    }
    tv_lsn target = 0;
    if (f->o->once) {
        PGresult *r = NULL;
        if (!pg_exec(f->sql, "SELECT pg_current_wal_lsn()::text", PGRES_TUPLES_OK, &r)) return 1;
        tv_lsn_parse(PQgetvalue(r, 0, 0), &target);
        PQclear(r);
    }
    int rc = stream(f, target);
    if (rc == 0) {
        /* a clean stop commits what the feed wrote (segments instead of a
         * translog to replay at the next open); a failure here costs only
         * that replay */
        char path[700];
        for (size_t i = 0; i < f->tables.len; i++) {
            snprintf(path, sizeof path, "/%s/_flush", f->tables.items[i].s.index);
            (void)sink_call(f, "POST", path, NULL, 0, 200, true);
        }
        (void)sink_call(f, "POST", "/" CKPT_INDEX "/_flush", NULL, 0, 200, true);
    }
    return rc;
}

int tv_feed_run(const tv_feed_opts *o, tv_sink *sink) {
    feed f;
    memset(&f, 0, sizeof f);
    f.o = o;
    f.sink = sink;
    tv_buf_init(&f.b.bulk);
    tv_buf_init(&f.id);
    tv_buf_init(&f.oldid);
    tv_buf_init(&f.fly.bulk);
    tv_arena_init(&f.A);
    int rc, pause = 500;
    char why[256] = ""; /* what a failure said last (the message before it) */
    for (;;) {
        STATS(&f, sf->state = "starting");
        tv_sync_remember("");
        rc = attempt(&f);
        if (!drain(&f) && rc == 0) rc = 1; /* the last batch must land before its tables go */
        if (rc == 1 && f.fatal) rc = 2;
        snprintf(why, sizeof why, "%s", *tv_sync_last_said() ? tv_sync_last_said() : "see the log");
        feed_close(&f);
        batch_clear(&f.b);
        f.fly_failed = false;
        f.in_txn = false;
        if (rc != 1 || stop_requested) break;
        STATS(&f, (sf->state = "retrying", snprintf(sf->last_error, sizeof sf->last_error, "%s", why)));
        tv_sync_say("restarting from the checkpoint in %d ms", pause);
        sleep_ms(pause);
        if (pause < 10000) pause *= 2;
    }
    STATS(&f, (sf->state = rc == 0 ? "stopped" : "failed",
               rc != 0 ? (void)snprintf(sf->last_error, sizeof sf->last_error, "%s", why) : (void)0));
    if (rc == 0 && !o->quiet) {
        char l[18];
        tv_lsn_format(f.lsn, l);
        tv_sync_say("stopped at %s (%llu rows this run, %llu dead letters)", l,
                    (unsigned long long)f.total_rows, (unsigned long long)f.dead);
    }
    batch_fini(&f.b);
    batch_fini(&f.fly);
    tv_vec_fini(&f.spools);
    tv_buf_fini(&f.id);
    tv_buf_fini(&f.oldid);
    snap_key_clear(&f);
    tv_vec_fini(&f.snap_key);
    tv_vec_fini(&f.tables);
    tv_arena_fini(&f.A);
    return rc == 0 ? 0 : 1;
}

int tv_feed_drop(const tv_feed_opts *o, tv_sink *sink) {
    PGconn *c = pg_connect(o->pg, false);
    if (!c) return 1;
    int rc = 0;
    const char *p[1] = {o->slot};
    PGresult *r = PQexecParams(c,
                               "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                               "WHERE slot_name = $1",
                               1, NULL, p, NULL, NULL, 0);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        tv_sync_say("dropping slot %s: %s", o->slot, PQerrorMessage(c));
        rc = 1;
    }
    PQclear(r);
    char *qpub = PQescapeIdentifier(c, o->publication, strlen(o->publication));
    tv_buf q;
    tv_buf_init(&q);
    tv_buf_printf(&q, "DROP PUBLICATION IF EXISTS %s", qpub ? qpub : "");
    PQfreemem(qpub);
    if (q.oom || !pg_exec(c, q.data, PGRES_COMMAND_OK, NULL)) rc = 1;
    tv_buf_fini(&q);
    PQfinish(c);
    char path[300];
    snprintf(path, sizeof path, "/" CKPT_INDEX "/_doc/%s", o->slot);
    if (!tv_sink_request(sink, "DELETE", path, NULL, 0) ||
        (sink->last.status != 200 && sink->last.status != 404)) {
        tv_sync_say("cannot delete the checkpoint %s", path);
        rc = 1;
    }
    return rc;
}
