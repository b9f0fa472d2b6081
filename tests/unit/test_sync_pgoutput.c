/* test_sync_pgoutput.c — the replication stream decoder (src/sync/pgoutput.c):
 * CopyData frames, the standby status update, every pgoutput message of
 * protocols 1 and 2 in and out of a streamed block, truncation at every byte,
 * trailing bytes, unknown kinds, hostile counts (no allocation), out of
 * memory, and LSN text. Messages are built by hand, byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync.h"

static tv_arena A;

static int setup(void **state) {
    (void)state;
    tv_arena_init(&A);
    return 0;
}
static int teardown(void **state) {
    (void)state;
    tv_arena_fini(&A);
    return 0;
}

/* ---------------------------------------------------------- a builder */

typedef struct msg {
    uint8_t b[1024];
    size_t n;
} msg;

static void p8(msg *m, uint8_t v) {
    assert_true(m->n < sizeof m->b);
    m->b[m->n++] = v;
}
static void pbe(msg *m, uint64_t v, int n) {
    for (int i = n - 1; i >= 0; i--) p8(m, (uint8_t)(v >> (8 * i)));
}
static void p16(msg *m, uint16_t v) { pbe(m, v, 2); }
static void p32(msg *m, uint32_t v) { pbe(m, v, 4); }
static void p64(msg *m, uint64_t v) { pbe(m, v, 8); }
static void pmem(msg *m, const void *p, size_t n) {
    for (size_t i = 0; i < n; i++) p8(m, ((const uint8_t *)p)[i]);
}
static void pstr(msg *m, const char *s) { pmem(m, s, strlen(s) + 1); }
/* a 't' or 'b' value */
static void pval(msg *m, char kind, const char *s) {
    p8(m, (uint8_t)kind);
    p32(m, (uint32_t)strlen(s));
    pmem(m, s, strlen(s));
}

/* ------------------------------------------------------------ helpers */

static bool in_buf(const msg *m, const void *p, size_t n) {
    const uint8_t *q = p;
    return q >= m->b && q + n <= m->b + m->n;
}

static void decode_ok(const msg *m, int proto, bool in_stream, tv_pgo_msg *out) {
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_pgo_decode(m->b, m->n, proto, in_stream, &A, out, &err);
    if (st != TROVE_OK) fprintf(stderr, "unexpected error: %s\n", err.reason);
    assert_int_equal(st, TROVE_OK);
}

/* Decodes a heap copy of exactly len bytes (so that ASan sees any read past
 * the end) and returns the status; the reason goes to reason. */
static tv_status decode_copy(const uint8_t *b, size_t len, int proto, bool in_stream, char *reason, size_t cap) {
    uint8_t *c = malloc(len ? len : 1);
    assert_non_null(c);
    if (len) memcpy(c, b, len);
    tv_pgo_msg out;
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_pgo_decode(c, len, proto, in_stream, &A, &out, &err);
    if (st != TROVE_OK) {
        assert_int_equal(err.code, st);
        snprintf(reason, cap, "%s", err.reason);
    }
    free(c);
    return st;
}

static void decode_err(const msg *m, int proto, bool in_stream, const char *reason) {
    char got[1024] = "";
    tv_status st = decode_copy(m->b, m->n, proto, in_stream, got, sizeof got);
    if (st != TROVE_EPARSE || strcmp(got, reason) != 0)
        fprintf(stderr, "got  %d %s\nwant %d %s\n", st, got, TROVE_EPARSE, reason);
    assert_int_equal(st, TROVE_EPARSE);
    assert_string_equal(got, reason);
}

/* Every proper prefix of a valid message fails with EPARSE, and so does the
 * message with a byte (of a few values) after it. */
static void check_prefixes_and_trailing(const msg *m, int proto, bool in_stream) {
    char reason[1024];
    for (size_t k = 0; k < m->n; k++) {
        tv_status st = decode_copy(m->b, k, proto, in_stream, reason, sizeof reason);
        if (st != TROVE_EPARSE) fprintf(stderr, "prefix of %zu of %zu bytes: status %d\n", k, m->n, st);
        assert_int_equal(st, TROVE_EPARSE);
        assert_true(strncmp(reason, "pgoutput ", 9) == 0);
    }
    static const uint8_t extra[] = {0, 'N', 0xff};
    for (size_t i = 0; i < TV_ARRAY_LEN(extra); i++) {
        msg t = *m;
        p8(&t, extra[i]);
        tv_status st = decode_copy(t.b, t.n, proto, in_stream, reason, sizeof reason);
        assert_int_equal(st, TROVE_EPARSE);
        assert_non_null(strstr(reason, "1 trailing bytes"));
    }
    assert_int_equal(decode_copy(m->b, m->n, proto, in_stream, reason, sizeof reason), TROVE_OK);
}

/* ------------------------------------------------------------- frames */

static void test_frame_xlogdata(void **state) {
    (void)state;
    msg m = {0};
    p8(&m, 'w');
    p64(&m, 0x0000000116B37480ull);
    p64(&m, 0x00000001FFFFFFFFull);
    p64(&m, (uint64_t)-5);
    p8(&m, 'E');
    tv_pg_frame f;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_pg_frame_decode(m.b, m.n, &f, &err), TROVE_OK);
    assert_int_equal(f.kind, TV_PG_XLOGDATA);
    assert_true(f.wal_start == 0x0000000116B37480ull);
    assert_true(f.wal_end == 0x00000001FFFFFFFFull);
    assert_true(f.send_time == -5);
    assert_false(f.reply_requested);
    assert_ptr_equal(f.data, m.b + 25);
    assert_int_equal(f.len, 1);
    /* empty data is a frame; the pgoutput decoder refuses it */
    tv_error_clear(&err);
    assert_int_equal(tv_pg_frame_decode(m.b, 25, &f, &err), TROVE_OK);
    assert_int_equal(f.len, 0);
    for (size_t k = 0; k < 25; k++) {
        uint8_t *c = malloc(k ? k : 1);
        memcpy(c, m.b, k);
        tv_error_clear(&err);
        assert_int_equal(tv_pg_frame_decode(c, k, &f, &err), TROVE_EPARSE);
        assert_int_equal(err.code, TROVE_EPARSE);
        free(c);
    }
    tv_error_clear(&err);
    assert_int_equal(tv_pg_frame_decode(m.b, 10, &f, &err), TROVE_EPARSE);
    assert_string_equal(err.reason, "replication XLogData frame truncated at byte 9 reading the WAL end");
    assert_int_equal(err.pos, 9);
}

static void test_frame_keepalive(void **state) {
    (void)state;
    msg m = {0};
    p8(&m, 'k');
    p64(&m, 0xABCDEF0123456789ull);
    p64(&m, 778899);
    p8(&m, 1);
    tv_pg_frame f;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_pg_frame_decode(m.b, m.n, &f, &err), TROVE_OK);
    assert_int_equal(f.kind, TV_PG_KEEPALIVE);
    assert_true(f.wal_end == 0xABCDEF0123456789ull);
    assert_true(f.wal_start == 0);
    assert_true(f.send_time == 778899);
    assert_true(f.reply_requested);
    assert_null(f.data);
    assert_int_equal(f.len, 0);
    m.b[17] = 0;
    tv_error_clear(&err);
    assert_int_equal(tv_pg_frame_decode(m.b, m.n, &f, &err), TROVE_OK);
    assert_false(f.reply_requested);
    for (size_t k = 0; k < m.n; k++) {
        uint8_t *c = malloc(k ? k : 1);
        memcpy(c, m.b, k);
        tv_error_clear(&err);
        assert_int_equal(tv_pg_frame_decode(c, k, &f, &err), TROVE_EPARSE);
        free(c);
    }
    p8(&m, 0);
    tv_error_clear(&err);
    assert_int_equal(tv_pg_frame_decode(m.b, m.n, &f, &err), TROVE_EPARSE);
    assert_string_equal(err.reason, "replication keepalive frame has 1 trailing bytes at byte 18");
}

static void test_frame_errors(void **state) {
    (void)state;
    tv_pg_frame f;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_pg_frame_decode((const uint8_t *)"", 0, &f, &err), TROVE_EPARSE);
    assert_string_equal(err.reason, "replication frame truncated at byte 0 reading the kind");
    tv_error_clear(&err);
    assert_int_equal(tv_pg_frame_decode((const uint8_t *)"r", 1, &f, &err), TROVE_EPARSE);
    assert_string_equal(err.reason, "replication frame of unknown kind 'r'");
    const uint8_t b[] = {0x01, 0, 0};
    tv_error_clear(&err);
    assert_int_equal(tv_pg_frame_decode(b, sizeof b, &f, &err), TROVE_EPARSE);
    assert_string_equal(err.reason, "replication frame of unknown kind 0x01");
    assert_int_equal(tv_pg_frame_decode(b, sizeof b, &f, NULL), TROVE_EPARSE); /* err may be NULL */
}

static void test_standby_status(void **state) {
    (void)state;
    uint8_t out[34];
    memset(out, 0xee, sizeof out);
    tv_pg_standby_status(0x0102030405060708ull, -2, true, out);
    const uint8_t want[34] = {'r', 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8,
                              0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 1};
    assert_memory_equal(out, want, 34);
    tv_pg_standby_status(0, 0x11, false, out);
    for (int i = 1; i < 32; i++) assert_int_equal(out[i], 0);
    assert_int_equal(out[32], 0x11);
    assert_int_equal(out[33], 0);
}

/* ------------------------------------------------------ transactions */

static void test_begin_commit_origin(void **state) {
    (void)state;
    msg b = {0};
    p8(&b, 'B');
    p64(&b, 0x00000002000000A0ull);
    p64(&b, 0x0002A1B2C3D4E5F6ull);
    p32(&b, 0xFFFFFFF0u);
    for (int proto = 1; proto <= 2; proto++)
        for (int s = 0; s <= 1; s++) { /* Begin never carries the stream xid */
            tv_pgo_msg o;
            decode_ok(&b, proto, s, &o);
            assert_int_equal(o.kind, TV_PGO_BEGIN);
            assert_int_equal(o.xid, 0);
            assert_true(o.u.begin.final_lsn == 0x00000002000000A0ull);
            assert_true(o.u.begin.commit_time == 0x0002A1B2C3D4E5F6ll);
            assert_int_equal(o.u.begin.xid, 0xFFFFFFF0u);
            check_prefixes_and_trailing(&b, proto, s);
        }

    msg c = {0};
    p8(&c, 'C');
    p8(&c, 0);
    p64(&c, 0x10);
    p64(&c, 0x20);
    p64(&c, (uint64_t)-1);
    tv_pgo_msg o;
    decode_ok(&c, 1, false, &o);
    assert_int_equal(o.kind, TV_PGO_COMMIT);
    assert_int_equal(o.u.commit.flags, 0);
    assert_true(o.u.commit.commit_lsn == 0x10);
    assert_true(o.u.commit.end_lsn == 0x20);
    assert_true(o.u.commit.commit_time == -1);
    check_prefixes_and_trailing(&c, 1, false);
    check_prefixes_and_trailing(&c, 2, true);

    msg g = {0};
    p8(&g, 'O');
    p64(&g, 0x123456789ull);
    pstr(&g, "pg_16389");
    decode_ok(&g, 2, false, &o);
    assert_int_equal(o.kind, TV_PGO_ORIGIN);
    assert_true(o.u.origin.lsn == 0x123456789ull);
    assert_string_equal(o.u.origin.name, "pg_16389");
    assert_false(in_buf(&g, o.u.origin.name, 1)); /* a copy in the arena */
    check_prefixes_and_trailing(&g, 1, false);
    check_prefixes_and_trailing(&g, 2, true);
    /* an empty name */
    msg e = {0};
    p8(&e, 'O');
    p64(&e, 1);
    pstr(&e, "");
    decode_ok(&e, 1, false, &o);
    assert_string_equal(o.u.origin.name, "");
    decode_err(&(msg){.b = {'O', 0, 0, 0, 0, 0, 0, 0, 1, 'a', 'b'}, .n = 11}, 1, false,
               "pgoutput Origin message truncated at byte 9 reading the origin name: no terminating NUL");
}

/* --------------------------------------------------- relation, type */

static msg relation_msg(bool xid) {
    msg m = {0};
    p8(&m, 'R');
    if (xid) p32(&m, 7777);
    p32(&m, 16385);
    pstr(&m, "public");
    pstr(&m, "items");
    p8(&m, 'd');
    p16(&m, 3);
    p8(&m, 1);
    pstr(&m, "id");
    p32(&m, 20);
    p32(&m, 0xFFFFFFFFu);
    p8(&m, 0);
    pstr(&m, "price");
    p32(&m, 1700);
    p32(&m, (10 << 16 | 2) + 4);
    p8(&m, 0);
    pstr(&m, "");
    p32(&m, 25);
    p32(&m, 0);
    return m;
}

static void check_relation(const tv_pgo_msg *o) {
    assert_int_equal(o->kind, TV_PGO_RELATION);
    assert_int_equal(o->u.relation.relid, 16385);
    assert_string_equal(o->u.relation.nspname, "public");
    assert_string_equal(o->u.relation.relname, "items");
    assert_int_equal(o->u.relation.replident, 'd');
    assert_int_equal(o->u.relation.ncols, 3);
    const tv_pgo_col *c = o->u.relation.cols;
    assert_true(c[0].key);
    assert_string_equal(c[0].name, "id");
    assert_int_equal(c[0].type_oid, 20);
    assert_int_equal(c[0].typmod, -1);
    assert_false(c[1].key);
    assert_string_equal(c[1].name, "price");
    assert_int_equal(c[1].type_oid, 1700);
    assert_int_equal(c[1].typmod, (10 << 16 | 2) + 4);
    assert_false(c[2].key);
    assert_string_equal(c[2].name, "");
    assert_int_equal(c[2].type_oid, 25);
    assert_int_equal(c[2].typmod, 0);
}

static void test_relation(void **state) {
    (void)state;
    msg m = relation_msg(false);
    tv_pgo_msg o;
    decode_ok(&m, 1, false, &o);
    check_relation(&o);
    assert_int_equal(o.xid, 0);
    assert_false(in_buf(&m, o.u.relation.relname, 1));
    check_prefixes_and_trailing(&m, 1, false);
    check_prefixes_and_trailing(&m, 2, false);
    /* protocol 1 has no stream xid even when the caller says in_stream */
    decode_ok(&m, 1, true, &o);
    check_relation(&o);
    check_prefixes_and_trailing(&m, 1, true);

    msg s = relation_msg(true);
    decode_ok(&s, 2, true, &o);
    check_relation(&o);
    assert_int_equal(o.xid, 7777);
    check_prefixes_and_trailing(&s, 2, true);
    /* the same bytes outside a stream: the xid is read as the relid and the
     * rest no longer lines up */
    assert_int_equal(decode_copy(s.b, s.n, 2, false, (char[256]){0}, 256), TROVE_EPARSE);

    /* no columns, pg_catalog's empty namespace, every replica identity */
    const char idents[] = "dnfi";
    for (int i = 0; i < 4; i++) {
        msg z = {0};
        p8(&z, 'R');
        p32(&z, 1);
        pstr(&z, "");
        pstr(&z, "pg_class");
        p8(&z, (uint8_t)idents[i]);
        p16(&z, 0);
        decode_ok(&z, 1, false, &o);
        assert_string_equal(o.u.relation.nspname, "");
        assert_int_equal(o.u.relation.replident, idents[i]);
        assert_int_equal(o.u.relation.ncols, 0);
        check_prefixes_and_trailing(&z, 1, false);
    }

    /* flag bits other than 1 do not make a key */
    msg f = relation_msg(false);
    f.b[1 + 4 + 7 + 6 + 1 + 2] = 2;
    decode_ok(&f, 1, false, &o);
    assert_false(o.u.relation.cols[0].key);
    f.b[1 + 4 + 7 + 6 + 1 + 2] = 3;
    decode_ok(&f, 1, false, &o);
    assert_true(o.u.relation.cols[0].key);

    /* the example of an error */
    msg t = relation_msg(false);
    t.n = 12;
    decode_err(&t, 1, false,
               "pgoutput Relation message truncated at byte 12 reading the relation name: no terminating NUL");
    t.n = 18;
    decode_err(&t, 1, false, "pgoutput Relation message truncated at byte 18 reading the replica identity");
    t.n = 20;
    decode_err(&t, 1, false, "pgoutput Relation message truncated at byte 19 reading the column count");
    msg r = relation_msg(false);
    r.b[18] = 'x';
    decode_err(&r, 1, false, "pgoutput Relation message has unknown replica identity 'x' at byte 18");
}

static void test_type(void **state) {
    (void)state;
    for (int s = 0; s <= 1; s++) {
        msg m = {0};
        p8(&m, 'Y');
        if (s) p32(&m, 42);
        p32(&m, 16400);
        pstr(&m, "public");
        pstr(&m, "mood");
        tv_pgo_msg o;
        decode_ok(&m, 2, s, &o);
        assert_int_equal(o.kind, TV_PGO_TYPE);
        assert_int_equal(o.xid, s ? 42 : 0);
        assert_int_equal(o.u.type.oid, 16400);
        assert_string_equal(o.u.type.nspname, "public");
        assert_string_equal(o.u.type.typname, "mood");
        check_prefixes_and_trailing(&m, 2, s);
        if (!s) check_prefixes_and_trailing(&m, 1, false);
    }
}

/* ------------------------------------------------------------ tuples */

static void tuple4(msg *m) {
    p16(m, 4);
    pval(m, 't', "42");
    p8(m, 'n');
    p8(m, 'u');
    pval(m, 'b', "");
}

static void check_tuple4(const msg *m, const tv_pgo_tuple *t) {
    assert_int_equal(t->n, 4);
    assert_int_equal(t->v[0].kind, TV_PGO_TEXT);
    assert_int_equal(t->v[0].len, 2);
    assert_memory_equal(t->v[0].data, "42", 2);
    assert_true(in_buf(m, t->v[0].data, t->v[0].len)); /* borrowed */
    assert_int_equal(t->v[1].kind, TV_PGO_NULL);
    assert_null(t->v[1].data);
    assert_int_equal(t->v[1].len, 0);
    assert_int_equal(t->v[2].kind, TV_PGO_UNCHANGED);
    assert_null(t->v[2].data);
    assert_int_equal(t->v[3].kind, TV_PGO_BINARY);
    assert_int_equal(t->v[3].len, 0);
    assert_true(in_buf(m, t->v[3].data, 0));
}

static void test_insert(void **state) {
    (void)state;
    for (int proto = 1; proto <= 2; proto++)
        for (int s = 0; s <= 1; s++) {
            bool xid = proto == 2 && s;
            msg m = {0};
            p8(&m, 'I');
            if (xid) p32(&m, 0x80000001u);
            p32(&m, 16385);
            p8(&m, 'N');
            tuple4(&m);
            tv_pgo_msg o;
            decode_ok(&m, proto, s, &o);
            assert_int_equal(o.kind, TV_PGO_INSERT);
            assert_int_equal(o.xid, xid ? 0x80000001u : 0);
            assert_int_equal(o.u.insert.relid, 16385);
            check_tuple4(&m, &o.u.insert.newt);
            check_prefixes_and_trailing(&m, proto, s);
        }
    /* a value with NUL bytes and a large text */
    msg m = {0};
    p8(&m, 'I');
    p32(&m, 1);
    p8(&m, 'N');
    p16(&m, 2);
    p8(&m, 't');
    p32(&m, 3);
    pmem(&m, "a\0b", 3);
    char big[600];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    pval(&m, 't', big);
    tv_pgo_msg o;
    decode_ok(&m, 1, false, &o);
    assert_int_equal(o.u.insert.newt.v[0].len, 3);
    assert_memory_equal(o.u.insert.newt.v[0].data, "a\0b", 3);
    assert_int_equal(o.u.insert.newt.v[1].len, 599);
    /* zero columns */
    msg z = {0};
    p8(&z, 'I');
    p32(&z, 1);
    p8(&z, 'N');
    p16(&z, 0);
    decode_ok(&z, 1, false, &o);
    assert_int_equal(o.u.insert.newt.n, 0);
    check_prefixes_and_trailing(&z, 1, false);
    /* a marker other than N */
    z.b[5] = 'K';
    decode_err(&z, 1, false, "pgoutput Insert message has tuple marker 'K' at byte 5 where 'N' is expected");
    /* an unknown column kind */
    msg k = {0};
    p8(&k, 'I');
    p32(&k, 1);
    p8(&k, 'N');
    p16(&k, 2);
    p8(&k, 'n');
    p8(&k, 'x');
    decode_err(&k, 1, false, "pgoutput Insert message has unknown tuple column kind 'x' at byte 9 (column 2)");
    k.b[9] = 0;
    decode_err(&k, 1, false, "pgoutput Insert message has unknown tuple column kind 0x00 at byte 9 (column 2)");
    k.b[9] = 'T';
    decode_err(&k, 1, false, "pgoutput Insert message has unknown tuple column kind 'T' at byte 9 (column 2)");
}

static void test_update(void **state) {
    (void)state;
    const char olds[] = {0, 'K', 'O'};
    for (int proto = 1; proto <= 2; proto++)
        for (int s = 0; s <= 1; s++)
            for (int i = 0; i < 3; i++) {
                bool xid = proto == 2 && s;
                msg m = {0};
                p8(&m, 'U');
                if (xid) p32(&m, 99);
                p32(&m, 500);
                if (olds[i]) {
                    p8(&m, (uint8_t)olds[i]);
                    p16(&m, 1);
                    pval(&m, 't', "old");
                }
                p8(&m, 'N');
                tuple4(&m);
                tv_pgo_msg o;
                decode_ok(&m, proto, s, &o);
                assert_int_equal(o.kind, TV_PGO_UPDATE);
                assert_int_equal(o.xid, xid ? 99 : 0);
                assert_int_equal(o.u.update.relid, 500);
                assert_int_equal(o.u.update.oldkind, olds[i]);
                if (olds[i]) {
                    assert_int_equal(o.u.update.oldt.n, 1);
                    assert_int_equal(o.u.update.oldt.v[0].kind, TV_PGO_TEXT);
                    assert_int_equal(o.u.update.oldt.v[0].len, 3);
                    assert_memory_equal(o.u.update.oldt.v[0].data, "old", 3);
                } else {
                    assert_int_equal(o.u.update.oldt.n, 0);
                    assert_null(o.u.update.oldt.v);
                }
                check_tuple4(&m, &o.u.update.newt);
                check_prefixes_and_trailing(&m, proto, s);
            }
    msg m = {0};
    p8(&m, 'U');
    p32(&m, 1);
    p8(&m, 'X');
    decode_err(&m, 1, false,
               "pgoutput Update message has tuple marker 'X' at byte 5 where 'K', 'O' or 'N' is expected");
    msg k = {0};
    p8(&k, 'U');
    p32(&k, 1);
    p8(&k, 'K');
    p16(&k, 0);
    p8(&k, 'K');
    p16(&k, 0);
    decode_err(&k, 1, false, "pgoutput Update message has tuple marker 'K' at byte 8 where 'N' is expected");
    k.n = 8;
    decode_err(&k, 1, false, "pgoutput Update message truncated at byte 8 reading the tuple marker");
}

static void test_delete(void **state) {
    (void)state;
    const char olds[] = {'K', 'O'};
    for (int proto = 1; proto <= 2; proto++)
        for (int s = 0; s <= 1; s++)
            for (int i = 0; i < 2; i++) {
                bool xid = proto == 2 && s;
                msg m = {0};
                p8(&m, 'D');
                if (xid) p32(&m, 3);
                p32(&m, 501);
                p8(&m, (uint8_t)olds[i]);
                tuple4(&m);
                tv_pgo_msg o;
                decode_ok(&m, proto, s, &o);
                assert_int_equal(o.kind, TV_PGO_DELETE);
                assert_int_equal(o.xid, xid ? 3 : 0);
                assert_int_equal(o.u.del.relid, 501);
                assert_int_equal(o.u.del.oldkind, olds[i]);
                check_tuple4(&m, &o.u.del.oldt);
                check_prefixes_and_trailing(&m, proto, s);
            }
    msg m = {0};
    p8(&m, 'D');
    p32(&m, 1);
    p8(&m, 'N');
    p16(&m, 0);
    decode_err(&m, 1, false, "pgoutput Delete message has tuple marker 'N' at byte 5 where 'K' or 'O' is expected");
}

static void test_truncate(void **state) {
    (void)state;
    for (int proto = 1; proto <= 2; proto++)
        for (int s = 0; s <= 1; s++) {
            bool xid = proto == 2 && s;
            msg m = {0};
            p8(&m, 'T');
            if (xid) p32(&m, 12);
            p32(&m, 3);
            p8(&m, 3);
            p32(&m, 16385);
            p32(&m, 16390);
            p32(&m, 0xFFFFFFFFu);
            tv_pgo_msg o;
            decode_ok(&m, proto, s, &o);
            assert_int_equal(o.kind, TV_PGO_TRUNCATE);
            assert_int_equal(o.xid, xid ? 12 : 0);
            assert_int_equal(o.u.truncate.options, 3);
            assert_int_equal(o.u.truncate.nrels, 3);
            assert_int_equal(o.u.truncate.relids[0], 16385);
            assert_int_equal(o.u.truncate.relids[1], 16390);
            assert_int_equal(o.u.truncate.relids[2], 0xFFFFFFFFu);
            check_prefixes_and_trailing(&m, proto, s);
        }
    msg z = {0};
    p8(&z, 'T');
    p32(&z, 0);
    p8(&z, 0);
    tv_pgo_msg o;
    decode_ok(&z, 1, false, &o);
    assert_int_equal(o.u.truncate.nrels, 0);
    check_prefixes_and_trailing(&z, 1, false);
}

static void test_message(void **state) {
    (void)state;
    for (int proto = 1; proto <= 2; proto++)
        for (int s = 0; s <= 1; s++) {
            bool xid = proto == 2 && s;
            msg m = {0};
            p8(&m, 'M');
            if (xid) p32(&m, 1234);
            p8(&m, 1);
            p64(&m, 0xFEDCBA9876543210ull);
            pstr(&m, "trove");
            p32(&m, 5);
            pmem(&m, "a\0b\xff", 5);
            tv_pgo_msg o;
            decode_ok(&m, proto, s, &o);
            assert_int_equal(o.kind, TV_PGO_MESSAGE);
            assert_int_equal(o.xid, xid ? 1234 : 0);
            assert_int_equal(o.u.message.flags, 1);
            assert_true(o.u.message.lsn == 0xFEDCBA9876543210ull);
            assert_string_equal(o.u.message.prefix, "trove");
            assert_int_equal(o.u.message.len, 5);
            assert_memory_equal(o.u.message.content, "a\0b\xff", 5);
            assert_true(in_buf(&m, o.u.message.content, 5));
            check_prefixes_and_trailing(&m, proto, s);
        }
    msg e = {0};
    p8(&e, 'M');
    p8(&e, 0);
    p64(&e, 1);
    pstr(&e, "");
    p32(&e, 0);
    tv_pgo_msg o;
    decode_ok(&e, 1, false, &o);
    assert_int_equal(o.u.message.flags, 0);
    assert_string_equal(o.u.message.prefix, "");
    assert_int_equal(o.u.message.len, 0);
    check_prefixes_and_trailing(&e, 1, false);
}

/* ------------------------------------------------------------ streams */

static void test_stream(void **state) {
    (void)state;
    tv_pgo_msg o;
    for (int first = 0; first <= 1; first++) {
        msg m = {0};
        p8(&m, 'S');
        p32(&m, 777);
        p8(&m, (uint8_t)first);
        decode_ok(&m, 2, false, &o);
        assert_int_equal(o.kind, TV_PGO_STREAM_START);
        assert_int_equal(o.u.stream_start.xid, 777);
        assert_int_equal(o.u.stream_start.first, first);
        assert_int_equal(o.xid, 0);
        check_prefixes_and_trailing(&m, 2, false);
        check_prefixes_and_trailing(&m, 2, true);
        decode_err(&m, 1, false, "pgoutput Stream Start message is not part of protocol 1");
    }
    msg e = {0};
    p8(&e, 'E');
    decode_ok(&e, 2, true, &o);
    assert_int_equal(o.kind, TV_PGO_STREAM_STOP);
    check_prefixes_and_trailing(&e, 2, true);
    decode_err(&e, 1, false, "pgoutput Stream Stop message is not part of protocol 1");

    msg c = {0};
    p8(&c, 'c');
    p32(&c, 778);
    p8(&c, 0);
    p64(&c, 0x1000);
    p64(&c, 0x1040);
    p64(&c, 712345678901234ull);
    decode_ok(&c, 2, false, &o);
    assert_int_equal(o.kind, TV_PGO_STREAM_COMMIT);
    assert_int_equal(o.xid, 0);
    assert_int_equal(o.u.stream_commit.xid, 778);
    assert_int_equal(o.u.stream_commit.flags, 0);
    assert_true(o.u.stream_commit.commit_lsn == 0x1000);
    assert_true(o.u.stream_commit.end_lsn == 0x1040);
    assert_true(o.u.stream_commit.commit_time == 712345678901234ll);
    check_prefixes_and_trailing(&c, 2, false);
    decode_err(&c, 1, false, "pgoutput Stream Commit message is not part of protocol 1");

    msg a = {0};
    p8(&a, 'A');
    p32(&a, 779);
    p32(&a, 780);
    decode_ok(&a, 2, false, &o);
    assert_int_equal(o.kind, TV_PGO_STREAM_ABORT);
    assert_int_equal(o.u.stream_abort.xid, 779);
    assert_int_equal(o.u.stream_abort.subxid, 780);
    check_prefixes_and_trailing(&a, 2, false);
    check_prefixes_and_trailing(&a, 2, true);
    decode_err(&a, 1, false, "pgoutput Stream Abort message is not part of protocol 1");
    /* protocol 4's abort LSN and time are trailing bytes here */
    p64(&a, 1);
    p64(&a, 2);
    decode_err(&a, 2, false, "pgoutput Stream Abort message has 16 trailing bytes at byte 9");
}

/* ------------------------------------------------------------- errors */

static void test_unknown_and_proto(void **state) {
    (void)state;
    decode_err(&(msg){.n = 0}, 1, false, "pgoutput message truncated at byte 0 reading the kind");
    /* protocol 3+ (two-phase) kinds and others are unknown */
    const char *kinds = "bPKrpXZza";
    for (const char *k = kinds; *k; k++) {
        msg m = {0};
        p8(&m, (uint8_t)*k);
        p64(&m, 0);
        char want[64];
        snprintf(want, sizeof want, "pgoutput message of unknown kind '%c'", *k);
        decode_err(&m, 2, false, want);
    }
    decode_err(&(msg){.b = {0x80}, .n = 1}, 1, false, "pgoutput message of unknown kind 0x80");
    tv_pgo_msg o;
    tv_error err = TV_ERROR_INIT;
    const uint8_t e[] = {'E'};
    tv_error_clear(&err);
    assert_int_equal(tv_pgo_decode(e, 1, 3, false, &A, &o, &err), TROVE_EARG);
    tv_error_clear(&err);
    assert_int_equal(tv_pgo_decode(e, 1, 0, false, &A, &o, &err), TROVE_EARG);
    assert_int_equal(tv_pgo_decode(e, 1, 3, false, &A, &o, NULL), TROVE_EARG);
    assert_int_equal(tv_pgo_decode(e, 1, 2, false, &A, &o, NULL), TROVE_OK);
    /* the error position is the offending byte */
    msg m = relation_msg(false);
    m.n = 23; /* 2 bytes of columns: the count does not fit */
    tv_error_clear(&err);
    assert_int_equal(tv_pgo_decode(m.b, m.n, 1, false, &A, &o, &err), TROVE_EPARSE);
    assert_int_equal(err.pos, 19);
    m.n = 51; /* inside the third column's type */
    tv_error_clear(&err);
    assert_int_equal(tv_pgo_decode(m.b, m.n, 1, false, &A, &o, &err), TROVE_EPARSE);
    assert_int_equal(err.pos, 50);
    assert_string_equal(err.reason, "pgoutput Relation message truncated at byte 50 reading the column type");
    m.n = 55; /* inside its type modifier */
    tv_error_clear(&err);
    assert_int_equal(tv_pgo_decode(m.b, m.n, 1, false, &A, &o, &err), TROVE_EPARSE);
    assert_int_equal(err.pos, 54);
}

/* A count the remaining bytes cannot hold fails before its array is
 * allocated: the arena (warmed up with one small allocation, so that short
 * names still fit its first block) does not grow. */
static void hostile(const msg *m, int proto, bool in_stream, const char *reason) {
    tv_arena a;
    tv_arena_init(&a);
    assert_non_null(tv_arena_alloc(&a, 1));
    size_t before = a.total;
    tv_pgo_msg o;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_pgo_decode(m->b, m->n, proto, in_stream, &a, &o, &err), TROVE_EPARSE);
    assert_string_equal(err.reason, reason);
    assert_int_equal(a.total, before);
    tv_arena_fini(&a);
}

static void test_hostile_counts(void **state) {
    (void)state;
    msg r = {0};
    p8(&r, 'R');
    p32(&r, 1);
    p8(&r, 0);
    p8(&r, 0);
    p8(&r, 'f');
    p16(&r, 65535);
    pmem(&r, "abc", 3);
    hostile(&r, 1, false, "pgoutput Relation message declares 65535 columns at byte 8 but only 3 bytes are left");
    /* one column needs 10 bytes: 9 are not enough for one */
    msg r1 = {0};
    p8(&r1, 'R');
    p32(&r1, 1);
    p8(&r1, 0);
    p8(&r1, 0);
    p8(&r1, 'f');
    p16(&r1, 1);
    pmem(&r1, "\0\0\0\0\0\0\0\0\0", 9);
    decode_err(&r1, 1, false, "pgoutput Relation message declares 1 columns at byte 8 but only 9 bytes are left");

    msg t = {0};
    p8(&t, 'I');
    p32(&t, 1);
    p8(&t, 'N');
    p16(&t, 65535);
    pmem(&t, "nnn", 3);
    hostile(&t, 1, false, "pgoutput Insert message declares 65535 tuple columns at byte 6 but only 3 bytes are left");
    msg u = {0};
    p8(&u, 'U');
    p32(&u, 5);
    p32(&u, 1);
    p8(&u, 'O');
    p16(&u, 4);
    pmem(&u, "nnn", 3);
    hostile(&u, 2, true, "pgoutput Update message declares 4 tuple columns at byte 10 but only 3 bytes are left");

    msg x = {0};
    p8(&x, 'T');
    p32(&x, 0xFFFFFFFFu);
    p8(&x, 0);
    p32(&x, 1);
    hostile(&x, 1, false,
            "pgoutput Truncate message declares 4294967295 relations at byte 1 but only 4 bytes are left");
    msg x2 = {0};
    p8(&x2, 'T');
    p32(&x2, 2);
    p8(&x2, 0);
    p32(&x2, 1);
    p8(&x2, 0);
    p8(&x2, 0);
    p8(&x2, 0);
    hostile(&x2, 1, false, "pgoutput Truncate message declares 2 relations at byte 1 but only 7 bytes are left");

    /* lengths are borrowed, never allocated, but must fit too */
    msg v = {0};
    p8(&v, 'I');
    p32(&v, 1);
    p8(&v, 'N');
    p16(&v, 1);
    p8(&v, 't');
    p32(&v, 0xFFFFFFFFu);
    pmem(&v, "abc", 3);
    decode_err(&v, 1, false,
               "pgoutput Insert message truncated at byte 13 reading the tuple value (4294967295 bytes declared, 3 "
               "left)");
    msg mm = {0};
    p8(&mm, 'M');
    p8(&mm, 0);
    p64(&mm, 0);
    pstr(&mm, "p");
    p32(&mm, 0x80000000u);
    decode_err(&mm, 1, false,
               "pgoutput Message message truncated at byte 16 reading the content (2147483648 bytes declared, 0 "
               "left)");
}

static void test_oom(void **state) {
    (void)state;
    msg m = relation_msg(false);
    for (long n = 0; n < 8; n++) {
        tv_arena a;
        tv_arena_init(&a);
        tv_pgo_msg o;
        tv_error err = TV_ERROR_INIT;
        tv_alloc_fail_after(n);
        tv_error_clear(&err);
        tv_status st = tv_pgo_decode(m.b, m.n, 1, false, &a, &o, &err);
        tv_alloc_fail_after(-1);
        if (st == TROVE_OK) {
            check_relation(&o);
        } else {
            assert_int_equal(st, TROVE_ENOMEM);
            assert_non_null(strstr(err.reason, "pgoutput Relation message out of memory"));
        }
        tv_arena_fini(&a);
    }
    tv_arena a;
    tv_arena_init(&a);
    tv_pgo_msg o;
    tv_alloc_fail_after(0);
    assert_int_equal(tv_pgo_decode(m.b, m.n, 1, false, &a, &o, NULL), TROVE_ENOMEM);
    msg t = {0};
    p8(&t, 'T');
    p32(&t, 1);
    p8(&t, 0);
    p32(&t, 9);
    assert_int_equal(tv_pgo_decode(t.b, t.n, 1, false, &a, &o, NULL), TROVE_ENOMEM);
    msg i = {0};
    p8(&i, 'I');
    p32(&i, 1);
    p8(&i, 'N');
    p16(&i, 1);
    p8(&i, 'n');
    assert_int_equal(tv_pgo_decode(i.b, i.n, 1, false, &a, &o, NULL), TROVE_ENOMEM);
    tv_alloc_fail_after(-1);
    tv_arena_fini(&a);
}

/* ---------------------------------------------------------------- LSN */

static void test_lsn_format(void **state) {
    (void)state;
    char s[18];
    tv_lsn_format(0, s);
    assert_string_equal(s, "0/0");
    tv_lsn_format(0x16B3748, s);
    assert_string_equal(s, "0/16B3748");
    tv_lsn_format(0x00000001000000ABull, s);
    assert_string_equal(s, "1/AB");
    tv_lsn_format(0xFFFFFFFFFFFFFFFFull, s);
    assert_string_equal(s, "FFFFFFFF/FFFFFFFF");
    tv_lsn_format(0xABCDEF0000000000ull, s);
    assert_string_equal(s, "ABCDEF00/0");
    /* round trips */
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 2000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        tv_lsn v = i % 3 == 0 ? x >> (i % 64) : x;
        tv_lsn_format(v, s);
        tv_lsn back = 0;
        assert_true(tv_lsn_parse(s, &back));
        assert_true(back == v);
    }
}

static void test_lsn_parse(void **state) {
    (void)state;
    tv_lsn v = 0;
    assert_true(tv_lsn_parse("0/0", &v));
    assert_true(v == 0);
    assert_true(tv_lsn_parse("16/B374D848", &v));
    assert_true(v == 0x16B374D848ull);
    assert_true(tv_lsn_parse("ffffffff/ffffffff", &v));
    assert_true(v == UINT64_MAX);
    assert_true(tv_lsn_parse("00000001/0000000a", &v));
    assert_true(v == 0x10000000Aull);
    const char *bad[] = {"",        "/",         "0/",          "/0",      "0//0",     "123456789/0",
                         "0/123456789", "0/0 ",  " 0/0",        "0/0x",    "g/0",      "0x1/0",
                         "+1/0",    "-1/0",      "1/2/3",       "0",       "0/-1",     "1 /2",
                         "0/\n",    "FFFFFFFFF/0", "1/g"};
    for (size_t i = 0; i < TV_ARRAY_LEN(bad); i++) {
        v = 12345;
        if (tv_lsn_parse(bad[i], &v)) fprintf(stderr, "accepted [%s]\n", bad[i]);
        assert_false(tv_lsn_parse(bad[i], &v));
        assert_true(v == 12345); /* untouched */
    }
    assert_false(tv_lsn_parse(NULL, &v));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_frame_xlogdata, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frame_keepalive, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frame_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_standby_status, setup, teardown),
        cmocka_unit_test_setup_teardown(test_begin_commit_origin, setup, teardown),
        cmocka_unit_test_setup_teardown(test_relation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_type, setup, teardown),
        cmocka_unit_test_setup_teardown(test_insert, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_message, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_and_proto, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oom, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lsn_format, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lsn_parse, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
