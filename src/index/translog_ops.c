/*
 * translog_ops.c — what the engine's translog records say (the store layer
 * frames and checksums them; see store.h), and their replay.
 *
 * Record body (version 1; varints are LEB128, as codec.h writes them):
 *   u8 type, then
 *   INDEX (1):    varint id_len, id bytes, varint routing_len + 1 (0: no
 *                 routing), routing bytes, varint zigzag(version), varint
 *                 seq_no, varint primary_term, varint source_len, source.
 *   DELETE (2):   as INDEX without the source.
 *   MAPPING (3):  the put-mapping body as JSON (the rest of the record).
 *   SETTINGS (4): the settings-update body as JSON (the rest).
 * An INDEX or DELETE record holds the outcome (version and seq_no as
 * assigned), not the request, so replay needs no version checks and gives
 * the same numbers whatever the clock did (tombstones expire by time). A
 * record that does not decode is TROVE_ECORRUPT: its checksum passed, so it
 * was written by a writer that disagrees with this reader.
 */
#include "index/codec.h"
#include "index/engine_int.h"
#include "json/json.h"

static inline uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

void tv_tlog_encode_write(tv_buf *b, uint8_t type, const tv_doc_meta *m, const char *source,
                          size_t source_len) {
    tv_buf_u8(b, type);
    tv_buf_varint(b, m->id_len);
    tv_buf_append(b, m->id, m->id_len);
    tv_buf_varint(b, m->routing ? (uint64_t)m->routing_len + 1 : 0);
    if (m->routing) tv_buf_append(b, m->routing, m->routing_len);
    tv_buf_varint(b, zigzag(m->version));
    tv_buf_varint(b, (uint64_t)m->seq_no);
    tv_buf_varint(b, (uint64_t)m->primary_term);
    if (type == TV_TLOG_INDEX) {
        tv_buf_varint(b, source_len);
        tv_buf_append(b, source, source_len);
    }
}

static size_t varint_len(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

size_t tv_tlog_write_size(uint8_t type, const tv_doc_meta *m, size_t source_len) {
    size_t n = 1 + varint_len(m->id_len) + m->id_len + varint_len(m->routing ? (uint64_t)m->routing_len + 1 : 0) +
               (m->routing ? m->routing_len : 0) + varint_len(zigzag(m->version)) + varint_len((uint64_t)m->seq_no) +
               varint_len((uint64_t)m->primary_term);
    if (type == TV_TLOG_INDEX) n += varint_len(source_len) + source_len;
    return n;
}

/* A length-prefixed byte string at *q; NULL when it does not fit. */
static const uint8_t *get_bytes(const uint8_t *q, const uint8_t *end, uint64_t n, const char **out) {
    if (!q || n > (uint64_t)(end - q)) return NULL;
    *out = (const char *)q;
    return q + n;
}

static tv_status corrupt(tv_error *err) {
    return tv_error_set(err, TROVE_ECORRUPT, "translog record does not decode");
}

static tv_status replay_json(tv_index *idx, uint8_t type, const uint8_t *q, const uint8_t *end,
                             tv_error *err) {
    tv_arena a;
    tv_arena_init(&a);
    tv_json *body = NULL;
    tv_json_error je;
    tv_status st = tv_json_parse(&a, q, (size_t)(end - q), &body, &je);
    if (st == TROVE_OK) {
        /* an update that failed when it was made fails again the same way
         * (validation is deterministic): nothing to apply */
        tv_error ignored = TV_ERROR_INIT;
        if (type == TV_TLOG_MAPPING) {
            (void)tv_index_put_mapping(idx, body, &ignored);
        } else {
            tv_index_lock(idx);
            (void)tv_settings_update(tv_index_settings(idx), body, &ignored);
            tv_index_unlock(idx);
        }
    } else {
        st = corrupt(err);
    }
    tv_arena_fini(&a);
    return st;
}

/* An INDEX or DELETE record's fields. */
typedef struct wrec {
    uint8_t type;
    uint64_t id_len, rt, version, seq_no, term, src_len;
    const char *id, *routing, *source;
} wrec;

static bool decode_write(const uint8_t *rec, size_t len, wrec *w) {
    const uint8_t *q = rec, *end = rec + len;
    memset(w, 0, sizeof *w);
    if (len < 1) return false;
    w->type = *q++;
    if (w->type != TV_TLOG_INDEX && w->type != TV_TLOG_DELETE) return false;
    q = tv_vget(q, end, &w->id_len);
    q = get_bytes(q, end, w->id_len, &w->id);
    if (q) q = tv_vget(q, end, &w->rt);
    if (q && w->rt) q = get_bytes(q, end, w->rt - 1, &w->routing);
    if (q) q = tv_vget(q, end, &w->version);
    if (q) q = tv_vget(q, end, &w->seq_no);
    if (q) q = tv_vget(q, end, &w->term);
    if (q && w->type == TV_TLOG_INDEX) {
        q = tv_vget(q, end, &w->src_len);
        q = get_bytes(q, end, w->src_len, &w->source);
    }
    return q && q == end && w->seq_no <= INT64_MAX;
}

bool tv_index_record_seq_no(const uint8_t *rec, size_t len, int64_t *seq_no) {
    wrec w;
    if (!decode_write(rec, len, &w)) return false;
    *seq_no = (int64_t)w.seq_no;
    return true;
}

tv_status tv_index_replay(tv_index *idx, const uint8_t *rec, size_t len, tv_error *err) {
    if (len < 1) return corrupt(err);
    if (rec[0] == TV_TLOG_MAPPING || rec[0] == TV_TLOG_SETTINGS) return replay_json(idx, rec[0], rec + 1, rec + len, err);
    wrec w;
    if (!decode_write(rec, len, &w)) return corrupt(err);
    tv_write_opts o;
    tv_write_opts_init(&o);
    o.replay = true;
    o.replay_version = unzigzag(w.version);
    o.replay_seq_no = (int64_t)w.seq_no;
    o.routing = w.routing;
    o.routing_len = w.routing ? (size_t)w.rt - 1 : 0;
    tv_write_result res;
    return w.type == TV_TLOG_INDEX ? tv_index_put(idx, w.id, (size_t)w.id_len, w.source, (size_t)w.src_len, &o, &res, err)
                                   : tv_index_delete(idx, w.id, (size_t)w.id_len, &o, &res, err);
}
