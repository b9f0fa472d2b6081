/*
 * table.c — one table as a feed sees it: the catalog's columns and keys,
 * with the table's configuration applied (index name, _id columns, which
 * columns become fields and under what name, mappings). The feed and
 * `trove sync verify` both resolve tables here, so that what verify
 * compares is exactly what the feed writes.
 *
 * The _id. By default the key: the primary key, or the replica identity
 * index (REPLICA IDENTITY USING INDEX), its columns joined in column
 * order. Configured "id" columns must be NOT NULL and have a unique index
 * of exactly those columns (one document per row), and every change must
 * carry them: a DELETE (and an UPDATE that changes them) sends only the
 * replica identity's old values, so the columns must be the replica
 * identity's, unless it is FULL (every old value is sent). That is also
 * how a table without a primary key is fed: REPLICA IDENTITY FULL or USING
 * INDEX, and "id" naming a unique index's columns. Anything else is
 * refused, and the message says which statement makes it feedable.
 *
 * The snapshot reads in the order of the unique index the _id stands on
 * (`order`), so that the sort walks the index and the resume point "key >
 * last key" is one index range.
 *
 * Fields. Every replicated column (generated columns are not) becomes the
 * field of its name unless "include" lists others or "exclude" lists it;
 * "rename" gives a column another field name. Columns that appear later
 * (ADD COLUMN mid-stream) follow the same rules: excluded when "include"
 * is given, indexed otherwise. The _id's columns need not be fields.
 *
 * Ownership: tv_stable owns every string it holds and borrows its conf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "sync/sync.h"

#define MAX_KEY 32

static char *xstrdup(const char *s) { return tv_strndup(s, strlen(s)); }

static bool listed(const char *const *list, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0) return true;
    return false;
}

void tv_stable_fini(tv_stable *t) {
    tv_free(t->schema);
    tv_free(t->name);
    tv_free(t->qname);
    tv_free(t->index);
    for (size_t i = 0; i < t->cols.len; i++) {
        tv_free(t->cols.items[i].name);
        tv_free(t->cols.items[i].field);
    }
    tv_vec_fini(&t->cols);
    for (size_t i = 0; i < t->ids.len; i++) tv_free(t->ids.items[i]);
    tv_vec_fini(&t->ids);
    for (size_t i = 0; i < t->order.len; i++) tv_free(t->order.items[i]);
    tv_vec_fini(&t->order);
    memset(t, 0, sizeof *t);
}

char *tv_feed_index_name(const tv_feed_opts *o, const char *schema, const char *name) {
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_printf(&b, "%s", o->index_prefix ? o->index_prefix : "");
    if (strcmp(schema, "public") != 0) tv_buf_printf(&b, "%s.", schema);
    tv_buf_printf(&b, "%s", name);
    for (size_t i = 0; i < b.len; i++)
        if (b.data[i] >= 'A' && b.data[i] <= 'Z') b.data[i] = (char)(b.data[i] + 32);
    size_t n;
    return tv_buf_detach(&b, &n);
}

char *tv_stable_field(const tv_stable *t, const char *column, bool *oom) {
    const tv_table_conf *c = t->conf;
    *oom = false;
    if (c && c->include && !listed(c->include, c->ninclude, column)) return NULL;
    if (c && listed(c->exclude, c->nexclude, column)) return NULL;
    const char *field = column;
    for (size_t i = 0; c && i < c->nrename; i++)
        if (strcmp(c->rename[2 * i], column) == 0) field = c->rename[2 * i + 1];
    char *s = xstrdup(field);
    *oom = !s;
    return s;
}

void tv_stable_mapping(const tv_stable *t, const char *field, uint32_t type, int32_t typmod, const tv_pgv_opts *o,
                       tv_jw *w) {
    const tv_json *m = t->conf && t->conf->mappings ? tv_json_get(t->conf->mappings, field) : NULL;
    if (m) tv_jw_value(w, m);
    else tv_pgv_mapping(w, type, typmod, o);
}

/* ------------------------------------------------------------ catalog */

/* One pg_type row: typtype, typcategory, typbasetype, typelem, typarray. */
static bool type_row(PGconn *c, uint32_t oid, char *typtype, char *cat, uint32_t *base, uint32_t *elem,
                     uint32_t *array) {
    char s[16];
    snprintf(s, sizeof s, "%u", oid);
    const char *p[1] = {s};
    PGresult *r = PQexecParams(c, "SELECT typtype, typcategory, typbasetype, typelem, typarray FROM pg_type "
                                  "WHERE oid = $1::oid",
                               1, NULL, p, NULL, NULL, 0);
    bool ok = r && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
    if (ok) {
        *typtype = PQgetvalue(r, 0, 0)[0];
        *cat = PQgetvalue(r, 0, 1)[0];
        *base = (uint32_t)strtoul(PQgetvalue(r, 0, 2), NULL, 10);
        *elem = (uint32_t)strtoul(PQgetvalue(r, 0, 3), NULL, 10);
        *array = (uint32_t)strtoul(PQgetvalue(r, 0, 4), NULL, 10);
    }
    PQclear(r);
    return ok;
}

/* Types below 10000 are pgvalue.c's (hand-assigned, stable across
 * versions); the rest (initdb's and users') are asked about. */
uint32_t tv_stable_type(PGconn *c, uint32_t oid) {
    uint32_t t = oid;
    for (int depth = 0; depth < 16 && t >= 10000; depth++) {
        char typtype, cat;
        uint32_t base, elem, array;
        if (!type_row(c, t, &typtype, &cat, &base, &elem, &array)) return t;
        if (typtype == 'd' && base) {
            t = base; /* a domain: its base type */
            continue;
        }
        if (cat != 'A' || !elem) return t;
        /* an array of a user type: of what the element resolves to */
        uint32_t e = tv_stable_type(c, elem);
        char et, ec;
        uint32_t eb, ee, ea;
        if (!type_row(c, e, &et, &ec, &eb, &ee, &ea)) return t;
        if (et == 'e') return TV_PGV_STRING_ARRAY;
        return e < 10000 && ea ? ea : t;
    }
    return t;
}

typedef struct uindex {
    char name[300]; /* schema-qualified as regclass prints it */
    bool primary, replident, plain; /* plain: no predicate, no expression */
    int16_t key[MAX_KEY];           /* attnums in index order */
    int nkey;
} uindex;

/* The column of attnum `num` (the catalog order), or -1. */
static int col_of(const int16_t *nums, size_t ncols, int num) {
    for (size_t i = 0; i < ncols; i++)
        if (nums[i] == num) return (int)i;
    return -1;
}

/* Whether the index's columns are exactly the set `want` (column indexes). */
static bool same_set(const uindex *ix, const int16_t *nums, size_t ncols, const int *want, size_t nwant) {
    if ((size_t)ix->nkey != nwant) return false;
    for (int k = 0; k < ix->nkey; k++) {
        int c = col_of(nums, ncols, ix->key[k]);
        bool in = false;
        for (size_t j = 0; j < nwant && !in; j++) in = want[j] == c;
        if (c < 0 || !in) return false;
    }
    return true;
}

static bool push_name(void *vec_, const char *name) {
    TV_VEC(char *) *vec = vec_;
    char *s = xstrdup(name);
    if (!s || tv_vec_push(vec, s)) {
        tv_free(s);
        return false;
    }
    return true;
}

/* "table SCHEMA.NAME" and fmt (two %s: a and b) on stderr; false. */
static bool refuse(const tv_stable *t, const char *fmt, const char *a, const char *b) {
    char why[1024];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(why, sizeof why, fmt, a ? a : "", b ? b : "");
#pragma GCC diagnostic pop
    tv_sync_say("table %s.%s%s", t->schema, t->name, why);
    return false;
}

/* The relation: oid and replica identity. */
static bool load_relation(PGconn *c, tv_stable *t) {
    const char *params[2] = {t->schema, t->name};
    PGresult *r = PQexecParams(c,
                               "SELECT c.oid, c.relreplident FROM pg_class c JOIN pg_namespace n ON n.oid = "
                               "c.relnamespace WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')",
                               2, NULL, params, NULL, NULL, 0);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        tv_sync_say("reading the catalog: %s", PQerrorMessage(c));
        PQclear(r);
        return false;
    }
    if (PQntuples(r) != 1) {
        PQclear(r);
        return refuse(t, " does not exist%s%s", NULL, NULL);
    }
    t->relid = (uint32_t)strtoul(PQgetvalue(r, 0, 0), NULL, 10);
    t->replident = PQgetvalue(r, 0, 1)[0];
    PQclear(r);
    if (t->replident == 'n')
        return refuse(t,
                      " has REPLICA IDENTITY NOTHING, so its deletes would not say which row: run ALTER TABLE %s "
                      "REPLICA IDENTITY DEFAULT (with a primary key)%s",
                      t->qname, NULL);
    return true;
}

/* Runs a catalog query whose $1 is t's oid: its rows, or NULL with what
 * failed said ("reading the WHAT of TABLE: ..."). */
static PGresult *about(PGconn *c, const tv_stable *t, const char *sql, const char *what) {
    char relid[16];
    snprintf(relid, sizeof relid, "%u", t->relid);
    const char *p[1] = {relid};
    PGresult *r = PQexecParams(c, sql, 1, NULL, p, NULL, NULL, 0);
    if (r && PQresultStatus(r) == PGRES_TUPLES_OK) return r;
    tv_sync_say("reading the %s of %s.%s: %s", what, t->schema, t->name, PQerrorMessage(c));
    PQclear(r);
    return NULL;
}

/* Columns (attnum order, generated ones left out) into t->cols, their
 * attnums into nums and NOT NULL flags into notnull (MAX columns). */
static bool load_columns(PGconn *c, tv_stable *t, int16_t *nums, bool *notnull, size_t max) {
    PGresult *r = about(c, t,
                        "SELECT attname, atttypid, atttypmod, attnum, attnotnull FROM pg_attribute "
                        "WHERE attrelid = $1::oid AND attnum > 0 AND NOT attisdropped AND attgenerated = '' "
                        "ORDER BY attnum",
                        "columns");
    if (!r) return false;
    bool ok = (size_t)PQntuples(r) <= max;
    if (!ok) tv_sync_say("table %s.%s has more than %zu columns", t->schema, t->name, max);
    for (int i = 0; ok && i < PQntuples(r); i++) {
        tv_scol col = {.name = xstrdup(PQgetvalue(r, i, 0)),
                       .type = (uint32_t)strtoul(PQgetvalue(r, i, 1), NULL, 10),
                       .typmod = (int32_t)strtol(PQgetvalue(r, i, 2), NULL, 10)};
        bool oom = !col.name;
        if (!oom) col.field = tv_stable_field(t, col.name, &oom);
        col.type = tv_stable_type(c, col.type);
        nums[i] = (int16_t)atoi(PQgetvalue(r, i, 3));
        notnull[i] = PQgetvalue(r, i, 4)[0] == 't';
        if (oom || tv_vec_push(&t->cols, col)) {
            tv_free(col.name);
            tv_free(col.field);
            ok = false;
        }
    }
    PQclear(r);
    return ok;
}

/* The table's unique indexes (the primary key first). */
static int load_indexes(PGconn *c, const tv_stable *t, uindex *out, int max) {
    PGresult *r = about(c, t,
                        "SELECT indexrelid::regclass::text, indisprimary, indisreplident, indkey::text, "
                        "indpred IS NULL AND indexprs IS NULL FROM pg_index WHERE indrelid = $1::oid AND "
                        "indisunique AND indisvalid ORDER BY NOT indisprimary, indexrelid",
                        "indexes");
    if (!r) return -1;
    int n = 0;
    for (int i = 0; i < PQntuples(r) && n < max; i++) {
        uindex *ix = &out[n];
        memset(ix, 0, sizeof *ix);
        snprintf(ix->name, sizeof ix->name, "%s", PQgetvalue(r, i, 0));
        ix->primary = PQgetvalue(r, i, 1)[0] == 't';
        ix->replident = PQgetvalue(r, i, 2)[0] == 't';
        ix->plain = PQgetvalue(r, i, 4)[0] == 't';
        const char *s = PQgetvalue(r, i, 3);
        while (*s && ix->nkey < MAX_KEY) {
            char *end;
            long v = strtol(s, &end, 10);
            if (end == s) break;
            ix->key[ix->nkey++] = (int16_t)v;
            s = end;
        }
        if (*s) continue; /* wider than MAX_KEY: not a usable key */
        n++;
    }
    PQclear(r);
    return n;
}

/* The names of the index's columns in index order into vec. */
static bool index_names(const tv_stable *t, const uindex *ix, const int16_t *nums, void *vec) {
    for (int k = 0; k < ix->nkey; k++) {
        int c = col_of(nums, t->cols.len, ix->key[k]);
        if (c < 0 || !push_name(vec, t->cols.items[c].name)) return false;
    }
    return true;
}

/* The default _id: the key index's columns, in column order. */
static bool default_id(tv_stable *t, const uindex *key, const int16_t *nums) {
    if (!key) {
        if (t->replident == 'f')
            return refuse(t,
                          " has REPLICA IDENTITY FULL but no primary key: name the columns of a unique index as its "
                          "\"id\" in the feed's config, or add a primary key (ALTER TABLE %s ADD PRIMARY KEY (...))%s",
                          t->qname, NULL);
        tv_sync_say(
                "table %s.%s has no primary key, so its rows have no document id: add one (ALTER TABLE "
                "%s ADD PRIMARY KEY (...)), or name a unique index of NOT NULL columns (ALTER TABLE %s REPLICA "
                "IDENTITY USING INDEX ...)",
                t->schema, t->name, t->qname, t->qname);
        return false;
    }
    if (!key->plain) return refuse(t, ": its key %s has an expression: name a key of plain columns%s", key->name, NULL);
    for (size_t c = 0; c < t->cols.len; c++)
        for (int k = 0; k < key->nkey; k++)
            if (key->key[k] == nums[c] && !push_name(&t->ids, t->cols.items[c].name)) return false;
    if (t->ids.len != (size_t)key->nkey) return refuse(t, ": its key %s names a generated column%s", key->name, NULL);
    return index_names(t, key, nums, &t->order);
}

/* Configured _id columns: unique, NOT NULL, carried by every change. */
static bool configured_id(tv_stable *t, const uindex *ix, int nix, const uindex *key, const int16_t *nums,
                          const bool *notnull) {
    const tv_table_conf *tc = t->conf;
    int want[MAX_KEY];
    if (tc->nid > MAX_KEY) return refuse(t, ": \"id\" names more than 32 columns%s%s", NULL, NULL);
    for (size_t i = 0; i < tc->nid; i++) {
        want[i] = -1;
        for (size_t c = 0; c < t->cols.len; c++)
            if (strcmp(t->cols.items[c].name, tc->id[i]) == 0) want[i] = (int)c;
        if (want[i] < 0) return refuse(t, ": \"id\" names [%s], which is not a column of it%s", tc->id[i], NULL);
        for (size_t j = 0; j < i; j++)
            if (want[j] == want[i]) return refuse(t, ": \"id\" names [%s] twice%s", tc->id[i], NULL);
        if (!notnull[want[i]])
            return refuse(t,
                          ": the \"id\" column [%s] can be NULL: make it NOT NULL (ALTER TABLE ... ALTER COLUMN %s "
                          "SET NOT NULL)",
                          tc->id[i], tc->id[i]);
    }
    const uindex *u = NULL;
    for (int i = 0; i < nix && !u; i++)
        if (ix[i].plain && same_set(&ix[i], nums, t->cols.len, want, tc->nid)) u = &ix[i];
    if (!u)
        return refuse(t,
                      ": its \"id\" columns are not unique: they need a unique index of exactly those columns "
                      "(CREATE UNIQUE INDEX ON %s (...))%s",
                      t->qname, NULL);
    if (t->replident != 'f' && !(key && same_set(key, nums, t->cols.len, want, tc->nid))) {
        tv_sync_say(
                "table %s.%s: its \"id\" columns are not its replica identity, so a delete would not "
                "carry them: run ALTER TABLE %s REPLICA IDENTITY USING INDEX %s (or REPLICA IDENTITY FULL)",
                t->schema, t->name, t->qname, strchr(u->name, '.') ? strchr(u->name, '.') + 1 : u->name);
        return false;
    }
    for (size_t i = 0; i < tc->nid; i++)
        if (!push_name(&t->ids, tc->id[i])) return false;
    return index_names(t, u, nums, &t->order);
}

/* The configuration's column names must name columns; fields must differ. */
static bool check_fields(const tv_stable *t) {
    const tv_table_conf *tc = t->conf;
    const char *const *lists[3] = {tc->include, tc->exclude, NULL};
    size_t ns[3] = {tc->ninclude, tc->nexclude, 0};
    const char *what[3] = {"include", "exclude", "rename"};
    for (int l = 0; l < 3; l++) {
        size_t n = l == 2 ? tc->nrename : ns[l];
        for (size_t i = 0; i < n; i++) {
            const char *name = l == 2 ? tc->rename[2 * i] : lists[l][i];
            bool found = false;
            for (size_t c = 0; c < t->cols.len && !found; c++) found = strcmp(t->cols.items[c].name, name) == 0;
            if (!found) return refuse(t, ": \"%s\" names [%s], which is not a column of it", what[l], name);
            if (l == 2) {
                bool oom;
                char *f = tv_stable_field(t, name, &oom);
                tv_free(f);
                if (!f && !oom) return refuse(t, ": \"rename\" names [%s], which is not indexed%s", name, NULL);
            }
        }
    }
    for (size_t a = 0; a < t->cols.len; a++)
        for (size_t b = a + 1; b < t->cols.len; b++)
            if (t->cols.items[a].field && t->cols.items[b].field &&
                strcmp(t->cols.items[a].field, t->cols.items[b].field) == 0)
                return refuse(t, ": two columns become the field [%s]%s", t->cols.items[a].field, NULL);
    if (tc->mappings) {
        for (uint32_t m = 0; m < tc->mappings->len; m++) {
            const char *k = tc->mappings->v.members[m].key;
            bool found = false;
            for (size_t c = 0; c < t->cols.len && !found; c++)
                found = t->cols.items[c].field && strcmp(t->cols.items[c].field, k) == 0;
            if (!found) return refuse(t, ": \"mappings\" names [%s], which is not a field of its documents%s", k, NULL);
        }
    }
    return true;
}

bool tv_stable_load(PGconn *c, const tv_feed_opts *o, const tv_table_conf *tc, tv_stable *t) {
    t->conf = tc;
    const char *spec = tc->table;
    const char *dot = strchr(spec, '.');
    t->schema = dot ? tv_strndup(spec, (size_t)(dot - spec)) : xstrdup("public");
    t->name = xstrdup(dot ? dot + 1 : spec);
    if (!t->schema || !t->name) return false;
    char *qs = PQescapeIdentifier(c, t->schema, strlen(t->schema));
    char *qn = PQescapeIdentifier(c, t->name, strlen(t->name));
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_printf(&b, "%s.%s", qs ? qs : "", qn ? qn : "");
    PQfreemem(qs);
    PQfreemem(qn);
    size_t n;
    t->qname = tv_buf_detach(&b, &n);
    t->index = tc->index ? xstrdup(tc->index) : tv_feed_index_name(o, t->schema, t->name);
    if (!t->qname || !t->index || !load_relation(c, t)) return false;
    int16_t nums[1600];
    bool notnull[1600];
    if (!load_columns(c, t, nums, notnull, 1600)) return false;
    uindex ix[64];
    int nix = load_indexes(c, t, ix, 64);
    if (nix < 0) return false;
    const uindex *key = NULL;
    for (int i = 0; i < nix && !key; i++)
        if (t->replident == 'i' ? ix[i].replident : ix[i].primary) key = &ix[i];
    if (!check_fields(t)) return false;
    return tc->nid ? configured_id(t, ix, nix, key, nums, notnull) : default_id(t, key, nums);
}
