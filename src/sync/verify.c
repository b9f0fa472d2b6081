/*
 * verify.c — `trove sync verify`: is every index equal to its table?
 *
 * PostgreSQL is the judge. The index's documents are copied (COPY FROM
 * STDIN) into a temporary table of (id, document); PostgreSQL reads each
 * document back into the table's row type (jsonb_populate_record, with
 * each field put back under its column's name and base64 bytea turned
 * back into \x hex) and compares the md5 of the indexed columns' text with
 * the md5 of the same columns of the row of the same _id, in one FULL
 * JOIN. The table is resolved by table.c, as the feed resolves it, so the
 * configuration (index, _id columns, include/exclude, renames) applies to
 * both sides. So a
 * value counts as equal exactly when PostgreSQL would store the indexed
 * value as the value the row holds, whatever the JSON spelling (1.50 and
 * "1.50", a timestamp with Z or +00:00), and the check needs no second
 * implementation of the type conversions to trust (the row alias is
 * trove_row: a table may have a column named like a short alias, and a
 * column wins over a row reference of the same name). Memory stays in
 * PostgreSQL: the feeder streams the documents through a scroll of 1,000.
 *
 * Output: per table, the rows checked and every difference (up to 20 of
 * each kind listed): a key missing from the index, a document without a
 * row, a document whose values differ. Exit status 0 when everything is
 * equal, 1 otherwise. Fields of dropped columns are ignored (PostgreSQL
 * ignores unknown keys); a renamed column is a difference until each row
 * is written again, which is the truth of the index.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "sync/sync.h"

#define SHOW 20

/* The SQL of a table's comparison, from its resolution (table.c):
 *   id     the _id from the row alias trove_row (the feed's _id rule);
 *   row    the indexed columns of trove_row, as one row value;
 *   back   the indexed columns of trove_doc, a record of the table's type
 *          read from the document;
 *   doc    the document with its fields back under their column names
 *          (base64 bytea back to \\x hex), from d.doc. */
static bool compare_sql(PGconn *c, const tv_stable *t, tv_buf *id, tv_buf *row, tv_buf *back, tv_buf *doc) {
    for (size_t k = 0; k < t->ids.len; k++) {
        char *q = PQescapeIdentifier(c, t->ids.items[k], strlen(t->ids.items[k]));
        if (t->ids.len == 1) tv_buf_printf(id, "trove_row.%s::text", q ? q : "");
        else
            tv_buf_printf(id, "%sreplace(replace(trove_row.%s::text, '\\', '\\\\'), '|', '\\|')",
                          k ? " || '|' || " : "", q ? q : "");
        PQfreemem(q);
    }
    tv_buf_printf(row, "ROW(");
    tv_buf_printf(back, "ROW(");
    tv_buf_printf(doc, "'{}'::jsonb");
    size_t n = 0;
    for (size_t i = 0; i < t->cols.len; i++) {
        const tv_scol *col = &t->cols.items[i];
        if (!col->field) continue;
        char *q = PQescapeIdentifier(c, col->name, strlen(col->name));
        char *name = PQescapeLiteral(c, col->name, strlen(col->name));
        char *field = PQescapeLiteral(c, col->field, strlen(col->field));
        tv_buf_printf(row, "%strove_row.%s", n ? ", " : "", q ? q : "");
        tv_buf_printf(back, "%strove_doc.%s", n ? ", " : "", q ? q : "");
        if (col->type == 17) /* bytea */
            tv_buf_printf(doc,
                          " || jsonb_build_object(%s, CASE WHEN jsonb_typeof(d.doc -> %s) = 'string' THEN "
                          "to_jsonb('\\x' || encode(decode(d.doc ->> %s, 'base64'), 'hex')) ELSE d.doc -> %s END)",
                          name ? name : "''", field ? field : "''", field ? field : "''", field ? field : "''");
        else
            tv_buf_printf(doc, " || jsonb_build_object(%s, d.doc -> %s)", name ? name : "''", field ? field : "''");
        PQfreemem(q);
        PQfreemem(name);
        PQfreemem(field);
        n++;
    }
    tv_buf_printf(row, ")");
    tv_buf_printf(back, ")");
    return !id->oom && !row->oom && !back->oom && !doc->oom;
}

/* Appends s to a COPY text-format field (backslash, tab, newline, CR). */
static void copy_field(tv_buf *b, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '\\') tv_buf_append(b, "\\\\", 2);
        else if (ch == '\t') tv_buf_append(b, "\\t", 2);
        else if (ch == '\n') tv_buf_append(b, "\\n", 2);
        else if (ch == '\r') tv_buf_append(b, "\\r", 2);
        else tv_buf_putc(b, ch);
    }
}

/* Streams the index's documents into the temporary table trove_verify. */
static bool load_docs(PGconn *c, tv_sink *s, const char *index, uint64_t *n) {
    *n = 0;
    PGresult *r = PQexec(c, "DROP TABLE IF EXISTS pg_temp.trove_verify; CREATE TEMP TABLE trove_verify "
                            "(id text, doc jsonb)");
    bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok) return false;
    char path[700];
    snprintf(path, sizeof path, "/%s/_refresh", index);
    (void)tv_sink_call(s, "POST", path, NULL, 0, 200, true);
    r = PQexec(c, "COPY trove_verify FROM STDIN");
    ok = r && PQresultStatus(r) == PGRES_COPY_IN;
    PQclear(r);
    if (!ok) return false;
    snprintf(path, sizeof path, "/%s/_search?scroll=5m", index);
    static const char first[] = "{\"size\":1000,\"sort\":[\"_doc\"],\"query\":{\"match_all\":{}}}";
    tv_json *ans = tv_sink_call(s, "POST", path, first, sizeof first - 1, 200, false);
    tv_buf row, req;
    tv_buf_init(&row);
    tv_buf_init(&req);
    char *scroll = NULL;
    while (ans && ok) {
        const tv_json *hits = tv_json_get(tv_json_get(ans, "hits"), "hits"), *sid = tv_json_get(ans, "_scroll_id");
        if (!hits || hits->type != TV_JSON_ARRAY || hits->len == 0) break;
        tv_buf_clear(&row);
        for (uint32_t i = 0; i < hits->len; i++) {
            const tv_json *id = tv_json_get(&hits->v.items[i], "_id"), *src = tv_json_get(&hits->v.items[i], "_source");
            if (!tv_json_is_string(id) || !src) continue;
            copy_field(&row, id->v.s, id->len);
            tv_buf_putc(&row, '\t');
            tv_buf doc;
            tv_buf_init(&doc);
            tv_jw w;
            tv_jw_init(&w, &doc, false);
            tv_jw_value(&w, src);
            copy_field(&row, doc.data ? doc.data : "{}", doc.len);
            tv_buf_fini(&doc);
            tv_buf_putc(&row, '\n');
            (*n)++;
        }
        ok = !row.oom && PQputCopyData(c, row.data ? row.data : "", (int)row.len) == 1;
        tv_free(scroll);
        scroll = tv_json_is_string(sid) ? tv_strndup(sid->v.s, sid->len) : NULL;
        if (!scroll) break;
        tv_buf_clear(&req);
        tv_jw w;
        tv_jw_init(&w, &req, false);
        tv_jw_obj_begin(&w);
        tv_jw_keyz(&w, "scroll");
        tv_jw_strz(&w, "5m");
        tv_jw_keyz(&w, "scroll_id");
        tv_jw_strz(&w, scroll);
        tv_jw_obj_end(&w);
        ans = req.oom ? NULL : tv_sink_call(s, "POST", "/_search/scroll", req.data, req.len, 200, false);
    }
    if (scroll) {
        tv_buf_clear(&req);
        tv_buf_printf(&req, "{\"scroll_id\":\"%s\"}", scroll);
        (void)tv_sink_call(s, "DELETE", "/_search/scroll", req.data, req.len, 200, true);
    }
    tv_free(scroll);
    tv_buf_fini(&row);
    tv_buf_fini(&req);
    if (PQputCopyEnd(c, ok ? NULL : "trove sync verify: reading the index failed") != 1) ok = false;
    r = PQgetResult(c);
    if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
        fprintf(stderr, "trove sync verify: loading the documents: %s", PQerrorMessage(c));
        ok = false;
    }
    PQclear(r);
    while ((r = PQgetResult(c))) PQclear(r);
    return ok && ans;
}

/* Checks one table; returns the differences found, or -1 when it could
 * not check. */
static long verify_table(PGconn *c, tv_sink *s, const tv_feed_opts *o, const tv_table_conf *tc) {
    tv_stable t;
    memset(&t, 0, sizeof t);
    tv_buf id, row, back, doc, q;
    tv_buf_init(&id);
    tv_buf_init(&row);
    tv_buf_init(&back);
    tv_buf_init(&doc);
    tv_buf_init(&q);
    long diffs = -1;
    uint64_t ndocs = 0;
    if (tv_stable_load(c, o, tc, &t) && compare_sql(c, &t, &id, &row, &back, &doc) &&
        load_docs(c, s, t.index, &ndocs)) {
        /* a dropped column's field is ignored (it is in no column's
         * place); a renamed column is a difference until its rows are
         * written again, which is the truth of the index */
        tv_buf_printf(&q,
                      "WITH r AS (SELECT %s AS id, md5(%s::text) AS h FROM %s trove_row), "
                      "d AS (SELECT d.id, md5(%s::text) AS h FROM trove_verify d, "
                      "LATERAL jsonb_populate_record(NULL::%s, %s) trove_doc) "
                      "SELECT CASE WHEN d.id IS NULL THEN 'missing from the index' WHEN r.id IS NULL THEN "
                      "'not in the table' ELSE 'different' END, coalesce(r.id, d.id), "
                      "count(*) OVER (PARTITION BY (d.id IS NULL), (r.id IS NULL)), "
                      "row_number() OVER (PARTITION BY (d.id IS NULL), (r.id IS NULL) ORDER BY coalesce(r.id, d.id)), "
                      "(SELECT count(*) FROM r) "
                      "FROM r FULL JOIN d ON d.id = r.id WHERE r.h IS DISTINCT FROM d.h ORDER BY 1, 2",
                      id.data, row.data, t.qname, back.data, t.qname, doc.data);
        PGresult *r = q.oom ? NULL : PQexec(c, q.data);
        if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
            fprintf(stderr, "trove sync verify: comparing %s.%s: %s", t.schema, t.name, PQerrorMessage(c));
        } else {
            diffs = PQntuples(r);
            printf("%s.%s -> %s: %llu documents, %ld difference%s\n", t.schema, t.name, t.index,
                   (unsigned long long)ndocs, diffs, diffs == 1 ? "" : "s");
            for (int i = 0; i < PQntuples(r); i++) {
                long nth = atol(PQgetvalue(r, i, 3));
                if (nth <= SHOW) printf("  %s: [%s]\n", PQgetvalue(r, i, 0), PQgetvalue(r, i, 1));
                else if (nth == SHOW + 1)
                    printf("  ... %ld more %s\n", atol(PQgetvalue(r, i, 2)) - SHOW, PQgetvalue(r, i, 0));
            }
        }
        PQclear(r);
    }
    tv_stable_fini(&t);
    tv_buf_fini(&id);
    tv_buf_fini(&row);
    tv_buf_fini(&back);
    tv_buf_fini(&doc);
    tv_buf_fini(&q);
    return diffs;
}

int tv_feed_verify(const tv_feed_opts *o, tv_sink *sink) {
    const char *keys[] = {"dbname", "options", "application_name", NULL};
    const char *vals[] = {o->pg, TV_SYNC_PG_OPTIONS " -c client_min_messages=warning", "trove sync verify", NULL};
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "trove sync verify: cannot connect to PostgreSQL: %s", c ? PQerrorMessage(c) : "\n");
        PQfinish(c);
        return 1;
    }
    int rc = 0;
    for (size_t i = 0; i < o->ntables; i++) {
        long d = verify_table(c, sink, o, &o->tables[i]);
        if (d != 0) rc = 1;
    }
    PQfinish(c);
    return rc;
}
