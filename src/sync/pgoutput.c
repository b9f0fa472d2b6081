/*
 * pgoutput.c — the bytes of a logical replication stream: the CopyData
 * frames a walsender sends after START_REPLICATION (XLogData 'w', primary
 * keepalive 'k'), the standby status update trove sends back ('r'), the
 * messages of the pgoutput plugin, protocol versions 1 and 2 (PostgreSQL
 * 15's "Logical Replication Message Formats"), and LSNs as text. No I/O:
 * feed.c reads the frames with libpq and hands them here.
 *
 * Design. A decoder is one pass over one message with a read cursor (struct
 * rd) that knows the message's name, so that every error says which message
 * and which field at which byte ("pgoutput Relation message truncated at
 * byte 12 reading the column count"). Every read checks the bytes left
 * first; nothing is read past buf+len. Integers are big-endian (network
 * order) and assembled byte by byte, so alignment and host order do not
 * matter.
 *
 * Strictness. A message must be exactly as long as its fields: truncation,
 * an unknown message kind, an unknown tuple column kind, a string without
 * its NUL, a replica identity outside d/n/f/i, an Update's or Delete's
 * tuple marker out of place, and trailing bytes are all TROVE_EPARSE. The
 * stream messages (S, E, c, A) are refused under protocol 1, where the
 * server never sends them. Bytes PostgreSQL documents as flags are kept as
 * they come (commit flags, message flags, truncate options) or read the way
 * PostgreSQL's own reader does (a column is a key when flag bit 1 is set; a
 * stream segment is the first when its byte is 1), so a future flag bit
 * does not stop a feed. Protocol 3 and later (two-phase, parallel apply)
 * are not negotiated by trove and their messages are unknown kinds here.
 *
 * Hostile counts. A column or value count is checked against the bytes
 * left, at the smallest size one entry can have (10 bytes for a Relation
 * column, 1 for a tuple value, 4 for a truncated relation id), before the
 * array is allocated: a 65535-column claim in a 20-byte message fails
 * without touching the arena.
 *
 * Ownership. Decoded names are NUL-terminated copies in the caller's arena;
 * column, value and relation-id arrays are in the arena too; tuple values,
 * message contents and an XLogData frame's data point into the input, which
 * the caller keeps alive as long as it uses the result. On error the output
 * holds whatever was decoded before the error and must not be used.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sync/sync.h"

/* --------------------------------------------------------------- reading */

typedef struct rd {
    const uint8_t *buf;
    size_t len, off;
    const char *what; /* "pgoutput Relation message", "replication keepalive frame" */
    tv_error *err;
    tv_status st; /* TROVE_OK until the first error */
} rd;

static size_t left(const rd *r) { return r->len - r->off; }

static bool fail_at(rd *r, tv_status code, size_t pos, const char *fmt, ...) TV_PRINTF(4, 5);
static bool fail_at(rd *r, tv_status code, size_t pos, const char *fmt, ...) {
    char detail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    tv_error_set(r->err, code, "%s %s", r->what, detail);
    if (r->err && code == TROVE_EPARSE) r->err->pos = pos;
    r->st = code;
    return false;
}

static bool truncated(rd *r, const char *field) {
    return fail_at(r, TROVE_EPARSE, r->off, "truncated at byte %zu reading the %s", r->off, field);
}

static bool oom(rd *r) { return fail_at(r, TROVE_ENOMEM, r->off, "out of memory at byte %zu", r->off); }

static uint64_t be(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}

static bool get_n(rd *r, int n, const char *field, uint64_t *out) {
    *out = 0;
    if (left(r) < (size_t)n) return truncated(r, field);
    *out = be(r->buf + r->off, n);
    r->off += (size_t)n;
    return true;
}

static bool get_u8(rd *r, const char *field, uint8_t *out) {
    uint64_t v = 0;
    if (!get_n(r, 1, field, &v)) return false;
    *out = (uint8_t)v;
    return true;
}

static bool get_u16(rd *r, const char *field, uint16_t *out) {
    uint64_t v = 0;
    if (!get_n(r, 2, field, &v)) return false;
    *out = (uint16_t)v;
    return true;
}

static bool get_u32(rd *r, const char *field, uint32_t *out) {
    uint64_t v = 0;
    if (!get_n(r, 4, field, &v)) return false;
    *out = (uint32_t)v;
    return true;
}

static bool get_u64(rd *r, const char *field, uint64_t *out) { return get_n(r, 8, field, out); }

static bool get_i64(rd *r, const char *field, int64_t *out) {
    uint64_t v = 0;
    if (!get_n(r, 8, field, &v)) return false;
    *out = (int64_t)v; /* two's complement, as PostgreSQL sends it */
    return true;
}

/* A NUL-terminated String: copied into A (the copy owned by A). */
static bool get_str(rd *r, tv_arena *A, const char *field, const char **out) {
    const uint8_t *s = r->buf + r->off;
    const uint8_t *nul = left(r) ? memchr(s, 0, left(r)) : NULL;
    if (!nul)
        return fail_at(r, TROVE_EPARSE, r->off, "truncated at byte %zu reading the %s: no terminating NUL", r->off,
                       field);
    size_t n = (size_t)(nul - s);
    char *copy = tv_arena_strndup(A, (const char *)s, n);
    if (!copy) return oom(r);
    *out = copy;
    r->off += n + 1;
    return true;
}

/* Byte[n] borrowed from the input. */
static bool get_bytes(rd *r, uint32_t n, const char *field, const char **out) {
    if (left(r) < n)
        return fail_at(r, TROVE_EPARSE, r->off, "truncated at byte %zu reading the %s (%u bytes declared, %zu left)",
                       r->off, field, n, left(r));
    *out = (const char *)r->buf + r->off;
    r->off += n;
    return true;
}

/* A count of entries of at least `min` bytes each must fit the bytes left. */
static bool count_fits(rd *r, uint64_t n, size_t min, size_t at, const char *what) {
    if (n <= left(r) / min) return true;
    return fail_at(r, TROVE_EPARSE, at, "declares %llu %s at byte %zu but only %zu bytes are left",
                   (unsigned long long)n, what, at, left(r));
}

static bool done(rd *r) {
    if (r->off == r->len) return true;
    return fail_at(r, TROVE_EPARSE, r->off, "has %zu trailing bytes at byte %zu", left(r), r->off);
}

/* A kind byte for a message: 'x' when printable, else 0xNN. */
static const char *kind_text(uint8_t k, char buf[8]) {
    if (k >= 0x20 && k < 0x7f) snprintf(buf, 8, "'%c'", k);
    else snprintf(buf, 8, "0x%02X", k);
    return buf;
}

/* -------------------------------------------------------------- frames */

tv_status tv_pg_frame_decode(const uint8_t *buf, size_t len, tv_pg_frame *out, tv_error *err) {
    memset(out, 0, sizeof *out);
    rd r = {buf, len, 0, "replication frame", err, TROVE_OK};
    uint8_t kind;
    if (!get_u8(&r, "kind", &kind)) return r.st;
    if (kind == TV_PG_XLOGDATA) {
        r.what = "replication XLogData frame";
        out->kind = TV_PG_XLOGDATA;
        if (!get_u64(&r, "WAL start", &out->wal_start) || !get_u64(&r, "WAL end", &out->wal_end) ||
            !get_i64(&r, "send time", &out->send_time))
            return r.st;
        out->data = buf + r.off; /* borrowed: the rest of the frame */
        out->len = left(&r);
        return TROVE_OK;
    }
    if (kind == TV_PG_KEEPALIVE) {
        r.what = "replication keepalive frame";
        out->kind = TV_PG_KEEPALIVE;
        uint8_t reply;
        if (!get_u64(&r, "WAL end", &out->wal_end) || !get_i64(&r, "send time", &out->send_time) ||
            !get_u8(&r, "reply flag", &reply) || !done(&r))
            return r.st;
        out->reply_requested = reply != 0;
        return TROVE_OK;
    }
    char kb[8];
    fail_at(&r, TROVE_EPARSE, 0, "of unknown kind %s", kind_text(kind, kb));
    return r.st;
}

static void put_be64(uint8_t *p, uint64_t v) {
    for (int i = 7; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

void tv_pg_standby_status(tv_lsn lsn, int64_t now, bool reply_requested, uint8_t out[34]) {
    out[0] = 'r';
    put_be64(out + 1, lsn);  /* written */
    put_be64(out + 9, lsn);  /* flushed */
    put_be64(out + 17, lsn); /* applied */
    put_be64(out + 25, (uint64_t)now);
    out[33] = reply_requested ? 1 : 0;
}

/* ------------------------------------------------------------- pgoutput */

static const char *kind_name(uint8_t k) {
    switch (k) {
    case TV_PGO_BEGIN: return "Begin";
    case TV_PGO_COMMIT: return "Commit";
    case TV_PGO_ORIGIN: return "Origin";
    case TV_PGO_RELATION: return "Relation";
    case TV_PGO_TYPE: return "Type";
    case TV_PGO_INSERT: return "Insert";
    case TV_PGO_UPDATE: return "Update";
    case TV_PGO_DELETE: return "Delete";
    case TV_PGO_TRUNCATE: return "Truncate";
    case TV_PGO_MESSAGE: return "Message";
    case TV_PGO_STREAM_START: return "Stream Start";
    case TV_PGO_STREAM_STOP: return "Stream Stop";
    case TV_PGO_STREAM_COMMIT: return "Stream Commit";
    case TV_PGO_STREAM_ABORT: return "Stream Abort";
    default: return NULL;
    }
}

/* TupleData: Int16 count, then per column a kind byte and for 't'/'b' an
 * Int32 length and the bytes. The value array is in A; the bytes are
 * borrowed from the message. */
static bool get_tuple(rd *r, tv_arena *A, tv_pgo_tuple *t) {
    size_t at = r->off;
    if (!get_u16(r, "tuple column count", &t->n)) return false;
    if (!count_fits(r, t->n, 1, at, "tuple columns")) return false;
    if (t->n == 0) return true;
    t->v = tv_arena_alloc(A, (size_t)t->n * sizeof *t->v);
    if (!t->v) return oom(r);
    for (uint16_t i = 0; i < t->n; i++) {
        tv_pgo_value *v = &t->v[i];
        size_t kat = r->off;
        uint8_t k;
        if (!get_u8(r, "tuple column kind", &k)) return false;
        v->data = NULL;
        v->len = 0;
        switch (k) {
        case TV_PGO_NULL:
        case TV_PGO_UNCHANGED: v->kind = (tv_pgo_value_kind)k; break;
        case TV_PGO_TEXT:
        case TV_PGO_BINARY:
            v->kind = (tv_pgo_value_kind)k;
            if (!get_u32(r, "tuple value length", &v->len) || !get_bytes(r, v->len, "tuple value", &v->data))
                return false;
            break;
        default: {
            char kb[8];
            return fail_at(r, TROVE_EPARSE, kat, "has unknown tuple column kind %s at byte %zu (column %u)",
                           kind_text(k, kb), kat, (unsigned)i + 1);
        }
        }
    }
    return true;
}

/* The marker byte before a tuple ('N', 'K', 'O'), without consuming it. */
static bool peek_marker(rd *r, uint8_t *m) {
    *m = 0;
    if (!left(r)) return truncated(r, "tuple marker");
    *m = r->buf[r->off];
    return true;
}

static bool bad_marker(rd *r, uint8_t m, const char *expected) {
    char kb[8];
    return fail_at(r, TROVE_EPARSE, r->off, "has tuple marker %s at byte %zu where %s is expected", kind_text(m, kb),
                   r->off, expected);
}

static bool decode_relation(rd *r, tv_arena *A, tv_pgo_msg *m) {
    uint8_t ident;
    if (!get_u32(r, "relation id", &m->u.relation.relid) || !get_str(r, A, "namespace", &m->u.relation.nspname) ||
        !get_str(r, A, "relation name", &m->u.relation.relname))
        return false;
    size_t iat = r->off;
    if (!get_u8(r, "replica identity", &ident)) return false;
    if (ident != 'd' && ident != 'n' && ident != 'f' && ident != 'i') {
        char kb[8];
        return fail_at(r, TROVE_EPARSE, iat, "has unknown replica identity %s at byte %zu", kind_text(ident, kb), iat);
    }
    m->u.relation.replident = (char)ident;
    size_t at = r->off;
    uint16_t n;
    if (!get_u16(r, "column count", &n)) return false;
    /* a column: Int8 flags, a String (at least its NUL), Int32 type, Int32 typmod */
    if (!count_fits(r, n, 10, at, "columns")) return false;
    m->u.relation.ncols = n;
    if (n == 0) return true;
    tv_pgo_col *cols = tv_arena_alloc(A, (size_t)n * sizeof *cols);
    if (!cols) return oom(r);
    m->u.relation.cols = cols;
    for (uint16_t i = 0; i < n; i++) {
        uint8_t flags;
        uint32_t typmod;
        if (!get_u8(r, "column flags", &flags) || !get_str(r, A, "column name", &cols[i].name) ||
            !get_u32(r, "column type", &cols[i].type_oid) || !get_u32(r, "column type modifier", &typmod))
            return false;
        cols[i].key = (flags & 1) != 0;
        cols[i].typmod = (int32_t)typmod;
    }
    return true;
}

static bool decode_update(rd *r, tv_arena *A, tv_pgo_msg *m) {
    uint8_t mk = 0;
    if (!get_u32(r, "relation id", &m->u.update.relid) || !peek_marker(r, &mk)) return false;
    if (mk == 'K' || mk == 'O') {
        m->u.update.oldkind = (char)mk;
        r->off++;
        if (!get_tuple(r, A, &m->u.update.oldt) || !peek_marker(r, &mk)) return false;
    }
    if (mk != 'N') return bad_marker(r, mk, m->u.update.oldkind ? "'N'" : "'K', 'O' or 'N'");
    r->off++;
    return get_tuple(r, A, &m->u.update.newt);
}

tv_status tv_pgo_decode(const uint8_t *buf, size_t len, int proto, bool in_stream, tv_arena *A, tv_pgo_msg *out,
                        tv_error *err) {
    memset(out, 0, sizeof *out);
    if (proto != 1 && proto != 2)
        return tv_error_set(err, TROVE_EARG, "pgoutput protocol version %d is not supported (1 or 2)", proto);
    rd r = {buf, len, 0, "pgoutput message", err, TROVE_OK};
    uint8_t kind;
    if (!get_u8(&r, "kind", &kind)) return r.st;
    const char *name = kind_name(kind);
    char kb[8];
    if (!name) {
        fail_at(&r, TROVE_EPARSE, 0, "of unknown kind %s", kind_text(kind, kb));
        return r.st;
    }
    char what[64];
    snprintf(what, sizeof what, "pgoutput %s message", name);
    r.what = what;
    out->kind = (tv_pgo_kind)kind;

    bool streamed = kind == TV_PGO_STREAM_START || kind == TV_PGO_STREAM_STOP || kind == TV_PGO_STREAM_COMMIT ||
                    kind == TV_PGO_STREAM_ABORT;
    if (streamed && proto < 2) {
        fail_at(&r, TROVE_EPARSE, 0, "is not part of protocol 1");
        return r.st;
    }
    /* protocol 2 inside a streamed block: data messages carry the xid */
    bool has_xid = kind == TV_PGO_RELATION || kind == TV_PGO_TYPE || kind == TV_PGO_INSERT || kind == TV_PGO_UPDATE ||
                   kind == TV_PGO_DELETE || kind == TV_PGO_TRUNCATE || kind == TV_PGO_MESSAGE;
    if (has_xid && proto >= 2 && in_stream && !get_u32(&r, "transaction id", &out->xid)) return r.st;

    bool ok = true;
    switch (kind) {
    case TV_PGO_BEGIN:
        ok = get_u64(&r, "final LSN", &out->u.begin.final_lsn) &&
             get_i64(&r, "commit time", &out->u.begin.commit_time) && get_u32(&r, "transaction id", &out->u.begin.xid);
        break;
    case TV_PGO_COMMIT:
        ok = get_u8(&r, "flags", &out->u.commit.flags) && get_u64(&r, "commit LSN", &out->u.commit.commit_lsn) &&
             get_u64(&r, "end LSN", &out->u.commit.end_lsn) &&
             get_i64(&r, "commit time", &out->u.commit.commit_time);
        break;
    case TV_PGO_ORIGIN:
        ok = get_u64(&r, "origin LSN", &out->u.origin.lsn) && get_str(&r, A, "origin name", &out->u.origin.name);
        break;
    case TV_PGO_RELATION: ok = decode_relation(&r, A, out); break;
    case TV_PGO_TYPE:
        ok = get_u32(&r, "type OID", &out->u.type.oid) && get_str(&r, A, "namespace", &out->u.type.nspname) &&
             get_str(&r, A, "type name", &out->u.type.typname);
        break;
    case TV_PGO_INSERT: {
        uint8_t mk = 0;
        ok = get_u32(&r, "relation id", &out->u.insert.relid) && peek_marker(&r, &mk);
        if (ok && mk != 'N') ok = bad_marker(&r, mk, "'N'");
        if (ok) r.off++;
        ok = ok && get_tuple(&r, A, &out->u.insert.newt);
        break;
    }
    case TV_PGO_UPDATE: ok = decode_update(&r, A, out); break;
    case TV_PGO_DELETE: {
        uint8_t mk = 0;
        ok = get_u32(&r, "relation id", &out->u.del.relid) && peek_marker(&r, &mk);
        if (ok && mk != 'K' && mk != 'O') ok = bad_marker(&r, mk, "'K' or 'O'");
        if (ok) {
            out->u.del.oldkind = (char)mk;
            r.off++;
        }
        ok = ok && get_tuple(&r, A, &out->u.del.oldt);
        break;
    }
    case TV_PGO_TRUNCATE: {
        size_t at = r.off;
        uint32_t n;
        ok = get_u32(&r, "relation count", &n) && get_u8(&r, "options", &out->u.truncate.options) &&
             count_fits(&r, n, 4, at, "relations");
        if (!ok) break;
        out->u.truncate.nrels = n;
        if (n == 0) break;
        out->u.truncate.relids = tv_arena_alloc(A, (size_t)n * sizeof(uint32_t));
        if (!out->u.truncate.relids) {
            ok = oom(&r);
            break;
        }
        for (uint32_t i = 0; ok && i < n; i++) ok = get_u32(&r, "relation id", &out->u.truncate.relids[i]);
        break;
    }
    case TV_PGO_MESSAGE:
        ok = get_u8(&r, "flags", &out->u.message.flags) && get_u64(&r, "LSN", &out->u.message.lsn) &&
             get_str(&r, A, "prefix", &out->u.message.prefix) &&
             get_u32(&r, "content length", &out->u.message.len) &&
             get_bytes(&r, out->u.message.len, "content", &out->u.message.content);
        break;
    case TV_PGO_STREAM_START: {
        uint8_t first = 0;
        ok = get_u32(&r, "transaction id", &out->u.stream_start.xid) && get_u8(&r, "first segment flag", &first);
        out->u.stream_start.first = first == 1;
        break;
    }
    case TV_PGO_STREAM_STOP: break;
    case TV_PGO_STREAM_COMMIT:
        ok = get_u32(&r, "transaction id", &out->u.stream_commit.xid) &&
             get_u8(&r, "flags", &out->u.stream_commit.flags) &&
             get_u64(&r, "commit LSN", &out->u.stream_commit.commit_lsn) &&
             get_u64(&r, "end LSN", &out->u.stream_commit.end_lsn) &&
             get_i64(&r, "commit time", &out->u.stream_commit.commit_time);
        break;
    case TV_PGO_STREAM_ABORT:
        /* PostgreSQL 16's protocol 4 appends the abort LSN and time; not here */
        ok = get_u32(&r, "transaction id", &out->u.stream_abort.xid) &&
             get_u32(&r, "subtransaction id", &out->u.stream_abort.subxid);
        break;
    }
    if (!ok || !done(&r)) return r.st;
    return TROVE_OK;
}

/* ------------------------------------------------------------------ LSN */

void tv_lsn_format(tv_lsn lsn, char out[18]) {
    snprintf(out, 18, "%X/%X", (unsigned)(lsn >> 32), (unsigned)(lsn & 0xffffffffu));
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* 1 to 8 hex digits from *s, stopping at the first non-hex byte. */
static bool hex_half(const char **s, uint32_t *out) {
    uint32_t v = 0;
    int n = 0;
    for (int d; (d = hexval(**s)) >= 0; (*s)++) {
        if (++n > 8) return false;
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return n > 0;
}

bool tv_lsn_parse(const char *s, tv_lsn *out) {
    uint32_t hi, lo;
    if (!s || !hex_half(&s, &hi) || *s++ != '/' || !hex_half(&s, &lo) || *s) return false;
    *out = (uint64_t)hi << 32 | lo;
    return true;
}
