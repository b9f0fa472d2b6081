/*
 * status.c — `trove sync status`: where a feed stands, from the two places
 * that know: PostgreSQL's pg_replication_slots (is a feeder attached, what
 * has it confirmed, how much WAL the slot keeps) and the feed's checkpoint
 * document (what the index holds for certain, the snapshot's progress),
 * plus the count of its dead letters. The lag is PostgreSQL's current WAL
 * position minus the checkpoint, in bytes. A slot retaining more WAL than
 * --warn-wal (1gb) is reported on stderr, loudly: a feed stopped for good
 * must be dropped (`trove sync drop`) or PostgreSQL's disk fills.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

#include "sync/sync.h"

/* ------------------------------------------------------------ messages */

/* Each thread's last message: a feed's failure is told by the message
 * that preceded it (GET /_trove/sync's last_error). */
static _Thread_local char last_said[256];

void tv_sync_say(const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    size_t len = strlen(msg);
    while (len && msg[len - 1] == '\n') msg[--len] = '\0'; /* libpq's messages end with one */
    fprintf(stderr, "trove sync: %s\n", msg);
    tv_sync_remember(msg);
}

void tv_sync_remember(const char *msg) { snprintf(last_said, sizeof last_said, "%s", msg); }

const char *tv_sync_last_said(void) { return last_said; }

/* ------------------------------------------------------------ status */

int tv_feed_status(const tv_feed_opts *o, tv_sink *sink, int64_t warn_bytes) {
    const char *keys[] = {"dbname", "application_name", NULL};
    const char *vals[] = {o->pg, "trove sync status", NULL};
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "trove sync status: cannot connect to PostgreSQL: %s", c ? PQerrorMessage(c) : "\n");
        PQfinish(c);
        return 1;
    }
    const char *p[1] = {o->slot};
    PGresult *r = PQexecParams(c,
                               "SELECT s.active, s.confirmed_flush_lsn::text, pg_current_wal_lsn()::text, "
                               "pg_wal_lsn_diff(pg_current_wal_lsn(), s.restart_lsn)::bigint, s.wal_status "
                               "FROM pg_replication_slots s WHERE s.slot_name = $1",
                               1, NULL, p, NULL, NULL, 0);
    int rc = 0;
    tv_lsn current = 0;
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        fprintf(stderr, "trove sync status: %s", PQerrorMessage(c));
        rc = 1;
    } else if (PQntuples(r) == 0) {
        printf("slot %s: none (no feed, or dropped)\n", o->slot);
        rc = 1;
    } else {
        int64_t retained = PQgetisnull(r, 0, 3) ? 0 : strtoll(PQgetvalue(r, 0, 3), NULL, 10);
        tv_lsn_parse(PQgetvalue(r, 0, 2), &current);
        printf("slot %s: %s, confirmed %s, PostgreSQL at %s, retains %lld bytes of WAL (%s)\n", o->slot,
               PQgetvalue(r, 0, 0)[0] == 't' ? "active" : "inactive (no feeder attached)",
               PQgetisnull(r, 0, 1) ? "-" : PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 2), (long long)retained,
               PQgetvalue(r, 0, 4));
        if (warn_bytes > 0 && retained > warn_bytes)
            fprintf(stderr,
                    "trove sync status: WARNING: slot %s retains %lld bytes of WAL, more than %lld: start its "
                    "feed, or drop it (trove sync drop) before PostgreSQL's disk fills\n",
                    o->slot, (long long)retained, (long long)warn_bytes);
    }
    PQclear(r);
    PQfinish(c);
    char path[400];
    snprintf(path, sizeof path, "/" TV_SYNC_CKPT_INDEX "/_doc/%s", o->slot);
    tv_json *j = tv_sink_call(sink, "GET", path, NULL, 0, 200, true);
    const tv_json *src = tv_json_get(j, "_source");
    const tv_json *lsn = tv_json_get(src, "lsn"), *done = tv_json_get(src, "snapshot_done");
    const tv_json *tab = tv_json_get(src, "snapshot_table"), *rows = tv_json_get(src, "rows");
    tv_lsn at = 0;
    if (!tv_json_is_string(lsn) || !tv_lsn_parse(lsn->v.s, &at)) {
        printf("checkpoint: none\n");
        return 1;
    }
    printf("checkpoint: %s, %llu bytes behind PostgreSQL; snapshot %s", lsn->v.s,
           (unsigned long long)(current > at ? current - at : 0),
           done && done->type == TV_JSON_TRUE ? "done" : "in progress");
    if (!(done && done->type == TV_JSON_TRUE) && tab && tab->type == TV_JSON_INT && tab->v.i >= 0 &&
        (size_t)tab->v.i < o->ntables)
        printf(" (table %s)", o->tables[tab->v.i].table);
    printf("; %llu rows written by its last run\n",
           rows && rows->type == TV_JSON_INT ? (unsigned long long)rows->v.i : 0ull);
    tv_buf q;
    tv_buf_init(&q);
    tv_jw w;
    tv_jw_init(&w, &q, false);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "query");
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "term");
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "feed.keyword");
    tv_jw_strz(&w, o->slot);
    tv_jw_obj_end(&w);
    tv_jw_obj_end(&w);
    tv_jw_obj_end(&w);
    tv_json *cnt = q.oom ? NULL
                         : tv_sink_call(sink, "POST", "/" TV_SYNC_DEAD_INDEX "/_count", q.data, q.len, 200, true);
    const tv_json *n = tv_json_get(cnt, "count");
    printf("dead letters: %lld (in %s)\n", n && n->type == TV_JSON_INT ? (long long)n->v.i : 0ll,
           TV_SYNC_DEAD_INDEX);
    tv_buf_fini(&q);
    return rc;
}

/* ------------------------------------------------ GET /_trove/sync */

void tv_feed_stats_init(tv_feed_stats *s) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    s->state = "starting";
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    s->started_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void tv_feed_stats_fini(tv_feed_stats *s) { pthread_mutex_destroy(&s->mu); }

void tv_feed_stats_json(void *ud, tv_jw *w) {
    const tv_feed_opts *o = ud;
    tv_feed_stats *s = o->stats;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    pthread_mutex_lock(&s->mu);
    char lsn[18], server[18];
    tv_lsn_format(s->lsn, lsn);
    tv_lsn_format(s->server_lsn, server);
    double secs = (double)(now - s->started_ms) / 1000.0;
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "slot");
    tv_jw_strz(w, o->slot);
    tv_jw_keyz(w, "publication");
    tv_jw_strz(w, o->publication);
    tv_jw_keyz(w, "tables");
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < o->ntables; i++) tv_jw_strz(w, o->tables[i].table);
    tv_jw_arr_end(w);
    tv_jw_keyz(w, "state");
    tv_jw_strz(w, s->state);
    if (strcmp(s->state, "snapshot") == 0 && s->snap_table < o->ntables) {
        tv_jw_keyz(w, "snapshot");
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "table");
        tv_jw_strz(w, o->tables[s->snap_table].table);
        tv_jw_keyz(w, "rows");
        tv_jw_uint(w, s->snap_rows);
        tv_jw_obj_end(w);
    }
    tv_jw_keyz(w, "checkpoint_lsn");
    tv_jw_strz(w, lsn);
    tv_jw_keyz(w, "server_lsn");
    tv_jw_strz(w, server);
    tv_jw_keyz(w, "lag_bytes");
    tv_jw_uint(w, s->server_lsn > s->lsn ? s->server_lsn - s->lsn : 0);
    /* lag: 0 when caught up with what PostgreSQL last said it has; else
     * the age of the last transaction the index holds for certain */
    tv_jw_keyz(w, "lag_millis");
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    int64_t pg_now_us = ((int64_t)rt.tv_sec - 946684800) * 1000000 + rt.tv_nsec / 1000;
    if (s->server_lsn <= s->lsn) tv_jw_int(w, 0);
    else if (s->commit_time) tv_jw_int(w, TV_MAX(pg_now_us - s->commit_time, (int64_t)0) / 1000);
    else tv_jw_null(w);
    tv_jw_keyz(w, "since_checkpoint_millis");
    tv_jw_int(w, s->last_commit_ms ? now - s->last_commit_ms : -1);
    tv_jw_keyz(w, "rows");
    tv_jw_uint(w, s->rows);
    tv_jw_keyz(w, "rows_per_second");
    tv_jw_double(w, secs > 0 ? (double)s->rows / secs : 0.0);
    tv_jw_keyz(w, "dead_letters");
    tv_jw_uint(w, s->dead);
    tv_jw_keyz(w, "last_error");
    if (s->last_error[0]) tv_jw_strz(w, s->last_error);
    else tv_jw_null(w);
    tv_jw_obj_end(w);
    pthread_mutex_unlock(&s->mu);
}
