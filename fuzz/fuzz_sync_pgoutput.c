/*
 * fuzz_sync_pgoutput.c — the replication stream decoder (src/sync/
 * pgoutput.c) on arbitrary bytes.
 *
 * Input: byte 0 chooses the pgoutput protocol (bit 0: 1 or 2) and whether
 * the message comes inside a streamed block (bit 1); the rest is decoded as
 * a CopyData frame and as a pgoutput message, and when it is an XLogData
 * frame its data is decoded as a pgoutput message too. The first 8 bytes
 * also go through the LSN text round trip and the standby status update,
 * and the rest through the LSN parser as a string.
 *
 * Properties: no crash, no read past the input (the replay and fuzz builds
 * run under ASan). A failure is TROVE_EPARSE with a reason naming the frame
 * or message and a position inside the input. A success is lossless: every
 * borrowed value lies inside the input, every array has its count, and the
 * message written back from the decoded fields (by the encoder below) is
 * byte for byte the input, except for the bits PostgreSQL defines as
 * booleans or leaves unused in flag bytes that are read as booleans (a
 * column's flags, Stream Start's first flag), where re-decoding must give
 * the same fields. Any mismatch aborts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync.h"

static void check(bool ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_sync_pgoutput: %s\n", what);
        abort();
    }
}

/* ------------------------------------------------------------ encoder */

typedef struct enc {
    uint8_t b[1 << 16];
    bool lossy[1 << 16]; /* a byte read as a boolean: compare by meaning */
    size_t n;
    bool over;
} enc;

static void e8(enc *e, uint8_t v, bool lossy) {
    if (e->n >= sizeof e->b) {
        e->over = true;
        return;
    }
    e->lossy[e->n] = lossy;
    e->b[e->n++] = v;
}
static void ebe(enc *e, uint64_t v, int n) {
    for (int i = n - 1; i >= 0; i--) e8(e, (uint8_t)(v >> (8 * i)), false);
}
static void emem(enc *e, const void *p, size_t n) {
    for (size_t i = 0; i < n; i++) e8(e, ((const uint8_t *)p)[i], false);
}
static void estr(enc *e, const char *s) { emem(e, s, strlen(s) + 1); }

static void etuple(enc *e, const tv_pgo_tuple *t) {
    ebe(e, t->n, 2);
    for (uint16_t i = 0; i < t->n; i++) {
        e8(e, (uint8_t)t->v[i].kind, false);
        if (t->v[i].kind == TV_PGO_TEXT || t->v[i].kind == TV_PGO_BINARY) {
            ebe(e, t->v[i].len, 4);
            emem(e, t->v[i].data, t->v[i].len);
        }
    }
}

static void encode(enc *e, const tv_pgo_msg *m, int proto, bool in_stream) {
    e->n = 0;
    e->over = false;
    e8(e, (uint8_t)m->kind, false);
    bool has_xid = m->kind == TV_PGO_RELATION || m->kind == TV_PGO_TYPE || m->kind == TV_PGO_INSERT ||
                   m->kind == TV_PGO_UPDATE || m->kind == TV_PGO_DELETE || m->kind == TV_PGO_TRUNCATE ||
                   m->kind == TV_PGO_MESSAGE;
    if (has_xid && proto == 2 && in_stream) ebe(e, m->xid, 4);
    switch (m->kind) {
    case TV_PGO_BEGIN:
        ebe(e, m->u.begin.final_lsn, 8);
        ebe(e, (uint64_t)m->u.begin.commit_time, 8);
        ebe(e, m->u.begin.xid, 4);
        break;
    case TV_PGO_COMMIT:
        e8(e, m->u.commit.flags, false);
        ebe(e, m->u.commit.commit_lsn, 8);
        ebe(e, m->u.commit.end_lsn, 8);
        ebe(e, (uint64_t)m->u.commit.commit_time, 8);
        break;
    case TV_PGO_ORIGIN:
        ebe(e, m->u.origin.lsn, 8);
        estr(e, m->u.origin.name);
        break;
    case TV_PGO_RELATION:
        ebe(e, m->u.relation.relid, 4);
        estr(e, m->u.relation.nspname);
        estr(e, m->u.relation.relname);
        e8(e, (uint8_t)m->u.relation.replident, false);
        ebe(e, m->u.relation.ncols, 2);
        for (uint16_t i = 0; i < m->u.relation.ncols; i++) {
            const tv_pgo_col *c = &m->u.relation.cols[i];
            e8(e, c->key ? 1 : 0, true);
            estr(e, c->name);
            ebe(e, c->type_oid, 4);
            ebe(e, (uint32_t)c->typmod, 4);
        }
        break;
    case TV_PGO_TYPE:
        ebe(e, m->u.type.oid, 4);
        estr(e, m->u.type.nspname);
        estr(e, m->u.type.typname);
        break;
    case TV_PGO_INSERT:
        ebe(e, m->u.insert.relid, 4);
        e8(e, 'N', false);
        etuple(e, &m->u.insert.newt);
        break;
    case TV_PGO_UPDATE:
        ebe(e, m->u.update.relid, 4);
        if (m->u.update.oldkind) {
            e8(e, (uint8_t)m->u.update.oldkind, false);
            etuple(e, &m->u.update.oldt);
        }
        e8(e, 'N', false);
        etuple(e, &m->u.update.newt);
        break;
    case TV_PGO_DELETE:
        ebe(e, m->u.del.relid, 4);
        e8(e, (uint8_t)m->u.del.oldkind, false);
        etuple(e, &m->u.del.oldt);
        break;
    case TV_PGO_TRUNCATE:
        ebe(e, m->u.truncate.nrels, 4);
        e8(e, m->u.truncate.options, false);
        for (uint32_t i = 0; i < m->u.truncate.nrels; i++) ebe(e, m->u.truncate.relids[i], 4);
        break;
    case TV_PGO_MESSAGE:
        e8(e, m->u.message.flags, false);
        ebe(e, m->u.message.lsn, 8);
        estr(e, m->u.message.prefix);
        ebe(e, m->u.message.len, 4);
        emem(e, m->u.message.content, m->u.message.len);
        break;
    case TV_PGO_STREAM_START:
        ebe(e, m->u.stream_start.xid, 4);
        e8(e, m->u.stream_start.first ? 1 : 0, true);
        break;
    case TV_PGO_STREAM_STOP: break;
    case TV_PGO_STREAM_COMMIT:
        ebe(e, m->u.stream_commit.xid, 4);
        e8(e, m->u.stream_commit.flags, false);
        ebe(e, m->u.stream_commit.commit_lsn, 8);
        ebe(e, m->u.stream_commit.end_lsn, 8);
        ebe(e, (uint64_t)m->u.stream_commit.commit_time, 8);
        break;
    case TV_PGO_STREAM_ABORT:
        ebe(e, m->u.stream_abort.xid, 4);
        ebe(e, m->u.stream_abort.subxid, 4);
        break;
    }
}

/* ------------------------------------------------------------- checks */

static bool inside(const uint8_t *buf, size_t len, const void *p, size_t n) {
    const uint8_t *q = p;
    return q >= buf && n <= len && q <= buf + len - n;
}

/* A name: NUL-terminated, a copy (not in the input), its bytes and NUL in
 * the input somewhere. */
static void check_name(const uint8_t *buf, size_t len, const char *s) {
    check(s != NULL, "a name is NULL");
    size_t n = strlen(s);
    check(n < len, "a name longer than the message");
    check(!inside(buf, len, s, 1), "a name is not a copy");
}

static void check_tuple(const uint8_t *buf, size_t len, const tv_pgo_tuple *t) {
    check(t->n == 0 || t->v != NULL, "tuple values missing");
    for (uint16_t i = 0; i < t->n; i++) {
        const tv_pgo_value *v = &t->v[i];
        switch (v->kind) {
        case TV_PGO_NULL:
        case TV_PGO_UNCHANGED: check(v->data == NULL && v->len == 0, "a NULL/unchanged value has bytes"); break;
        case TV_PGO_TEXT:
        case TV_PGO_BINARY: check(inside(buf, len, v->data, v->len), "a value outside the message"); break;
        default: check(false, "a value of unknown kind");
        }
    }
}

static bool tuple_eq(const tv_pgo_tuple *a, const tv_pgo_tuple *b) {
    if (a->n != b->n) return false;
    for (uint16_t i = 0; i < a->n; i++) {
        if (a->v[i].kind != b->v[i].kind || a->v[i].len != b->v[i].len) return false;
        if (a->v[i].len && memcmp(a->v[i].data, b->v[i].data, a->v[i].len) != 0) return false;
    }
    return true;
}

static bool msg_eq(const tv_pgo_msg *a, const tv_pgo_msg *b) {
    if (a->kind != b->kind || a->xid != b->xid) return false;
    switch (a->kind) {
    case TV_PGO_BEGIN:
        return a->u.begin.final_lsn == b->u.begin.final_lsn && a->u.begin.commit_time == b->u.begin.commit_time &&
               a->u.begin.xid == b->u.begin.xid;
    case TV_PGO_COMMIT:
        return a->u.commit.flags == b->u.commit.flags && a->u.commit.commit_lsn == b->u.commit.commit_lsn &&
               a->u.commit.end_lsn == b->u.commit.end_lsn && a->u.commit.commit_time == b->u.commit.commit_time;
    case TV_PGO_ORIGIN: return a->u.origin.lsn == b->u.origin.lsn && !strcmp(a->u.origin.name, b->u.origin.name);
    case TV_PGO_RELATION:
        if (a->u.relation.relid != b->u.relation.relid || strcmp(a->u.relation.nspname, b->u.relation.nspname) ||
            strcmp(a->u.relation.relname, b->u.relation.relname) ||
            a->u.relation.replident != b->u.relation.replident ||
            a->u.relation.ncols != b->u.relation.ncols)
            return false;
        for (uint16_t i = 0; i < a->u.relation.ncols; i++) {
            const tv_pgo_col *x = &a->u.relation.cols[i], *y = &b->u.relation.cols[i];
            if (x->key != y->key || strcmp(x->name, y->name) || x->type_oid != y->type_oid || x->typmod != y->typmod)
                return false;
        }
        return true;
    case TV_PGO_TYPE:
        return a->u.type.oid == b->u.type.oid && !strcmp(a->u.type.nspname, b->u.type.nspname) &&
               !strcmp(a->u.type.typname, b->u.type.typname);
    case TV_PGO_INSERT: return a->u.insert.relid == b->u.insert.relid && tuple_eq(&a->u.insert.newt, &b->u.insert.newt);
    case TV_PGO_UPDATE:
        return a->u.update.relid == b->u.update.relid && a->u.update.oldkind == b->u.update.oldkind &&
               tuple_eq(&a->u.update.oldt, &b->u.update.oldt) && tuple_eq(&a->u.update.newt, &b->u.update.newt);
    case TV_PGO_DELETE:
        return a->u.del.relid == b->u.del.relid && a->u.del.oldkind == b->u.del.oldkind &&
               tuple_eq(&a->u.del.oldt, &b->u.del.oldt);
    case TV_PGO_TRUNCATE:
        return a->u.truncate.options == b->u.truncate.options && a->u.truncate.nrels == b->u.truncate.nrels &&
               (a->u.truncate.nrels == 0 ||
                !memcmp(a->u.truncate.relids, b->u.truncate.relids, a->u.truncate.nrels * sizeof(uint32_t)));
    case TV_PGO_MESSAGE:
        return a->u.message.flags == b->u.message.flags && a->u.message.lsn == b->u.message.lsn &&
               !strcmp(a->u.message.prefix, b->u.message.prefix) && a->u.message.len == b->u.message.len &&
               (a->u.message.len == 0 || !memcmp(a->u.message.content, b->u.message.content, a->u.message.len));
    case TV_PGO_STREAM_START:
        return a->u.stream_start.xid == b->u.stream_start.xid && a->u.stream_start.first == b->u.stream_start.first;
    case TV_PGO_STREAM_STOP: return true;
    case TV_PGO_STREAM_COMMIT:
        return a->u.stream_commit.xid == b->u.stream_commit.xid &&
               a->u.stream_commit.flags == b->u.stream_commit.flags &&
               a->u.stream_commit.commit_lsn == b->u.stream_commit.commit_lsn &&
               a->u.stream_commit.end_lsn == b->u.stream_commit.end_lsn &&
               a->u.stream_commit.commit_time == b->u.stream_commit.commit_time;
    case TV_PGO_STREAM_ABORT:
        return a->u.stream_abort.xid == b->u.stream_abort.xid && a->u.stream_abort.subxid == b->u.stream_abort.subxid;
    }
    return false;
}

static enc E;

static void check_pgoutput(const uint8_t *buf, size_t len, int proto, bool in_stream) {
    tv_arena a;
    tv_arena_init(&a);
    tv_pgo_msg m;
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_pgo_decode(buf, len, proto, in_stream, &a, &m, &err);
    if (st != TROVE_OK) {
        check(st == TROVE_EPARSE, "unexpected status");
        check(err.code == st, "error code differs");
        check(strncmp(err.reason, "pgoutput ", 9) == 0, "reason does not name pgoutput");
        check(err.pos <= len, "error position outside the message");
        tv_arena_fini(&a);
        return;
    }
    check(len > 0 && m.kind == buf[0], "kind is not the first byte");
    if (!(proto == 2 && in_stream)) check(m.xid == 0, "a stream xid outside a stream");
    switch (m.kind) {
    case TV_PGO_ORIGIN: check_name(buf, len, m.u.origin.name); break;
    case TV_PGO_RELATION:
        check_name(buf, len, m.u.relation.nspname);
        check_name(buf, len, m.u.relation.relname);
        check(strchr("dnfi", m.u.relation.replident) && m.u.relation.replident, "bad replica identity");
        check(m.u.relation.ncols == 0 || m.u.relation.cols, "columns missing");
        for (uint16_t i = 0; i < m.u.relation.ncols; i++) check_name(buf, len, m.u.relation.cols[i].name);
        break;
    case TV_PGO_TYPE:
        check_name(buf, len, m.u.type.nspname);
        check_name(buf, len, m.u.type.typname);
        break;
    case TV_PGO_INSERT: check_tuple(buf, len, &m.u.insert.newt); break;
    case TV_PGO_UPDATE:
        check(m.u.update.oldkind == 0 || m.u.update.oldkind == 'K' || m.u.update.oldkind == 'O', "bad old kind");
        if (!m.u.update.oldkind) check(m.u.update.oldt.n == 0, "an old tuple without a kind");
        check_tuple(buf, len, &m.u.update.oldt);
        check_tuple(buf, len, &m.u.update.newt);
        break;
    case TV_PGO_DELETE:
        check(m.u.del.oldkind == 'K' || m.u.del.oldkind == 'O', "bad delete kind");
        check_tuple(buf, len, &m.u.del.oldt);
        break;
    case TV_PGO_TRUNCATE:
        check(m.u.truncate.nrels <= len / 4, "more relations than bytes");
        check(m.u.truncate.nrels == 0 || m.u.truncate.relids, "relation ids missing");
        break;
    case TV_PGO_MESSAGE:
        check_name(buf, len, m.u.message.prefix);
        check(inside(buf, len, m.u.message.content, m.u.message.len), "message content outside");
        break;
    case TV_PGO_STREAM_START:
    case TV_PGO_STREAM_STOP:
    case TV_PGO_STREAM_COMMIT:
    case TV_PGO_STREAM_ABORT: check(proto == 2, "a stream message in protocol 1"); break;
    default: break;
    }
    /* written back: the same bytes, but for booleans */
    encode(&E, &m, proto, in_stream);
    check(!E.over && E.n == len, "re-encoding has another length");
    for (size_t i = 0; i < len; i++) check(E.lossy[i] || E.b[i] == buf[i], "re-encoding differs");
    /* and decoded again: the same fields */
    uint8_t *copy = malloc(len);
    check(copy != NULL, "oom");
    memcpy(copy, E.b, len);
    tv_pgo_msg m2;
    tv_error_clear(&err);
    check(tv_pgo_decode(copy, len, proto, in_stream, &a, &m2, &err) == TROVE_OK, "re-encoding does not decode");
    check(msg_eq(&m, &m2), "re-decoding differs");
    free(copy);
    tv_arena_fini(&a);
}

static uint64_t be64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

static void check_frame(const uint8_t *buf, size_t len, int proto, bool in_stream) {
    tv_pg_frame f;
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_pg_frame_decode(buf, len, &f, &err);
    if (st != TROVE_OK) {
        check(st == TROVE_EPARSE, "unexpected frame status");
        check(strncmp(err.reason, "replication ", 12) == 0, "reason does not name the frame");
        return;
    }
    if (f.kind == TV_PG_XLOGDATA) {
        check(len >= 25 && buf[0] == 'w', "short XLogData");
        check(f.wal_start == be64(buf + 1) && f.wal_end == be64(buf + 9) && f.send_time == (int64_t)be64(buf + 17),
              "XLogData header");
        check(f.data == buf + 25 && f.len == len - 25, "XLogData data");
        check_pgoutput(f.data, f.len, proto, in_stream);
    } else {
        check(f.kind == TV_PG_KEEPALIVE && len == 18 && buf[0] == 'k', "keepalive");
        check(f.wal_end == be64(buf + 1) && f.send_time == (int64_t)be64(buf + 9), "keepalive fields");
        check(f.reply_requested == (buf[17] != 0), "keepalive reply flag");
        check(f.data == NULL && f.len == 0, "keepalive data");
    }
}

static void check_lsn(const uint8_t *buf, size_t len) {
    if (len >= 8) {
        tv_lsn v = be64(buf), back = 0;
        char s[18];
        tv_lsn_format(v, s);
        check(tv_lsn_parse(s, &back) && back == v, "LSN round trip");
        uint8_t st[34];
        tv_pg_standby_status(v, (int64_t)~v, buf[0] & 1, st);
        check(st[0] == 'r' && be64(st + 1) == v && be64(st + 9) == v && be64(st + 17) == v &&
                  be64(st + 25) == ~v && st[33] == (buf[0] & 1),
              "standby status");
    }
    if (len <= 64) {
        char s[65];
        memcpy(s, buf, len);
        s[len] = 0;
        tv_lsn v;
        if (tv_lsn_parse(s, &v)) {
            char out[18], *slash = strchr(s, '/');
            check(slash && strlen(s) <= 17, "parsed a malformed LSN");
            tv_lsn_format(v, out);
            tv_lsn again;
            check(tv_lsn_parse(out, &again) && again == v, "LSN re-parse");
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    int proto = (data[0] & 1) + 1;
    bool in_stream = (data[0] & 2) != 0;
    const uint8_t *buf = data + 1;
    size_t len = size - 1;
    check_frame(buf, len, proto, in_stream);
    check_pgoutput(buf, len, proto, in_stream);
    check_lsn(buf, len);
    return 0;
}
