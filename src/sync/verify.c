/*
 * verify.c — `trove sync verify`: is every index equal to its table?
 *
 * PostgreSQL is the judge. The index's documents are copied (COPY FROM
 * STDIN) into a temporary table of (id, document); PostgreSQL reads each
 * document back into the table's row type (jsonb_populate_record, after
 * turning base64 bytea fields back into \x hex) and compares the md5 of its
 * text with the md5 of the row of the same key, in one FULL JOIN. So a
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

/* The id expression of a table's key, in column order (the feed's _id):
 * one column as text; several joined with '|', '\' and '|' escaped. */
static bool key_expr(PGconn *c, const char *schema, const char *name, tv_buf *out, tv_buf *bytea) {
    const char *p[2] = {schema, name};
    PGresult *r = PQexecParams(
        c,
        "SELECT a.attname, format_type(a.atttypid, NULL) = 'bytea', "
        "a.attnum = ANY (coalesce((SELECT i.indkey::int2[] FROM pg_index i WHERE i.indrelid = cl.oid AND "
        "CASE WHEN cl.relreplident = 'i' THEN i.indisreplident ELSE i.indisprimary END), '{}')) "
        "FROM pg_class cl JOIN pg_namespace n ON n.oid = cl.relnamespace JOIN pg_attribute a ON a.attrelid = cl.oid "
        "WHERE n.nspname = $1 AND cl.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
        2, NULL, p, NULL, NULL, 0);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) == 0) {
        fprintf(stderr, "trove sync verify: table %s.%s: %s", schema, name,
                r && PQresultStatus(r) == PGRES_TUPLES_OK ? "does not exist\n" : PQerrorMessage(c));
        PQclear(r);
        return false;
    }
    int keys = 0;
    for (int i = 0; i < PQntuples(r); i++) keys += PQgetvalue(r, i, 2)[0] == 't';
    int k = 0;
    for (int i = 0; i < PQntuples(r); i++) {
        const char *col = PQgetvalue(r, i, 0);
        char *q = PQescapeIdentifier(c, col, strlen(col));
        char *lit = PQescapeLiteral(c, col, strlen(col));
        if (PQgetvalue(r, i, 1)[0] == 't')
            tv_buf_printf(bytea, " || CASE WHEN jsonb_typeof(d.doc -> %s) = 'string' THEN jsonb_build_object(%s, "
                                 "'\\x' || encode(decode(d.doc ->> %s, 'base64'), 'hex')) ELSE '{}' END",
                          lit ? lit : "''", lit ? lit : "''", lit ? lit : "''");
        if (PQgetvalue(r, i, 2)[0] == 't') {
            if (keys == 1) tv_buf_printf(out, "trove_row.%s::text", q ? q : "");
            else
                tv_buf_printf(out, "%sreplace(replace(trove_row.%s::text, '\\', '\\\\'), '|', '\\|')", k ? " || '|' || " : "",
                              q ? q : "");
            k++;
        }
        PQfreemem(q);
        PQfreemem(lit);
    }
    PQclear(r);
    if (!keys) fprintf(stderr, "trove sync verify: table %s.%s has no key\n", schema, name);
    return keys > 0 && !out->oom && !bytea->oom;
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
static long verify_table(PGconn *c, tv_sink *s, const tv_feed_opts *o, const char *spec) {
    const char *dot = strchr(spec, '.');
    char schema[256], name[256];
    snprintf(schema, sizeof schema, "%.*s", dot ? (int)(dot - spec) : 6, dot ? spec : "public");
    snprintf(name, sizeof name, "%s", dot ? dot + 1 : spec);
    char *idx = tv_feed_index_name(o, schema, name);
    tv_buf key, bytea, q;
    tv_buf_init(&key);
    tv_buf_init(&bytea);
    tv_buf_init(&q);
    long diffs = -1;
    uint64_t ndocs = 0;
    char *qs = PQescapeIdentifier(c, schema, strlen(schema)), *qn = PQescapeIdentifier(c, name, strlen(name));
    if (idx && qs && qn && key_expr(c, schema, name, &key, &bytea) && load_docs(c, s, idx, &ndocs)) {
        tv_buf_printf(&q,
                      "WITH r AS (SELECT %s AS id, md5(trove_row::text) AS h FROM %s.%s trove_row), "
                      "d AS (SELECT d.id, md5(jsonb_populate_record(NULL::%s.%s, d.doc%s)::text) AS h "
                      "FROM trove_verify d) "
                      "SELECT CASE WHEN d.id IS NULL THEN 'missing from the index' WHEN r.id IS NULL THEN "
                      "'not in the table' ELSE 'different' END, coalesce(r.id, d.id), "
                      "count(*) OVER (PARTITION BY (d.id IS NULL), (r.id IS NULL)), "
                      "row_number() OVER (PARTITION BY (d.id IS NULL), (r.id IS NULL) ORDER BY coalesce(r.id, d.id)), "
                      "(SELECT count(*) FROM r) "
                      "FROM r FULL JOIN d ON d.id = r.id WHERE r.h IS DISTINCT FROM d.h ORDER BY 1, 2",
                      key.data, qs, qn, qs, qn, bytea.len ? bytea.data : "");
        PGresult *r = q.oom ? NULL : PQexec(c, q.data);
        if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
            fprintf(stderr, "trove sync verify: comparing %s.%s: %s", schema, name, PQerrorMessage(c));
        } else {
            diffs = PQntuples(r);
            printf("%s.%s -> %s: %llu documents, %ld difference%s\n", schema, name, idx,
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
    PQfreemem(qs);
    PQfreemem(qn);
    tv_free(idx);
    tv_buf_fini(&key);
    tv_buf_fini(&bytea);
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
        long d = verify_table(c, sink, o, o->tables[i]);
        if (d != 0) rc = 1;
    }
    PQfinish(c);
    return rc;
}
