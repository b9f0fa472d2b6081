/*
 * h_scroll.c — scroll and point in time: search contexts that hold
 * snapshots.
 *
 * A context is what OpenSearch's SearchService keeps as a ReaderContext:
 * the snapshots of its indices (retained, so later writes, refreshes and
 * merges never change what it sees), a keep-alive and the time of its last
 * use. A scroll context also keeps what is needed to produce its next page:
 * the request body (text, re-parsed per page), the URL search parameters
 * (copied), the page size and the number of hits already handed out. Page
 * k is the search run again over the held snapshots with from = k * size
 * (the window limit lifted: the first page checks the batch size as
 * OpenSearch does); the order is total (sort values, then doc order), so
 * pages never overlap. Keeping a cursor (search_after of the last hit)
 * instead was rejected: score-sorted scrolls would need a score+doc cursor
 * the search layer does not offer, and re-running is cheap at the sizes a
 * test double sees.
 *
 * Registry: one per node (trove_node.search_ctxs, created on first use),
 * a list under one global mutex. Expiry is checked lazily: every access
 * first frees the contexts whose keep-alive has run out since their last
 * use, so an expired id answers exactly as an unknown one (404
 * search_context_missing_exception "No search context found for id [N]"
 * inside search_phase_execution_exception). A request copies what it needs
 * (retaining snapshots) under the mutex and searches without it.
 *
 * Ids: context numbers count up from 1 per node. A scroll id is
 * TransportSearchHelper's layout — URL-safe base64 (with padding) of
 * string "include_context_uuid", string "queryAndFetch" (one index) or
 * "queryThenFetch", vint count, then per index: string session uuid,
 * 8-byte big-endian context number, string node id (strings are a vint
 * length and the bytes). A PIT id is the same encoding of: vint 1, vint
 * count, per index: string index name, string index uuid, string session,
 * 8-byte context number, string node id, and a final vint 0. Anything that
 * does not decode is 400 illegal_argument_exception "Cannot parse scroll
 * id" (with the decoder's cause), as OpenSearch answers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

#define MAX_KEEP_ALIVE_MS (24LL * 3600 * 1000) /* search.max_keep_alive */

/* ------------------------------------------------------------ time values */

bool tv_api_parse_time_ms(tv_req *r, const char *key, const char *v, int64_t *ms) {
    tv_error err;
    tv_error_clear(&err);
    int64_t ns;
    if (tv_parse_time_value(v, strlen(v), key, &ns, &err) != TROVE_OK) {
        tv_api_err *e = tv_api_err_from(r, &err, NULL);
        if (e) tv_req_error(r, e);
        return false;
    }
    *ms = ns < 0 ? -1 : ns / 1000000;
    return true;
}

/* TimeValue.toString(): the largest unit the value reaches, one decimal,
 * ".0" dropped. */
void tv_api_time_str(int64_t ms, char *out, size_t cap) {
    static const struct {
        const char *u;
        int64_t ms;
    } units[] = {{"d", 86400000}, {"h", 3600000}, {"m", 60000}, {"s", 1000}};
    for (size_t i = 0; i < TV_ARRAY_LEN(units); i++) {
        if (ms >= units[i].ms) {
            double v = (double)ms / (double)units[i].ms;
            snprintf(out, cap, "%.1f", v);
            size_t l = strlen(out);
            if (l > 2 && strcmp(out + l - 2, ".0") == 0) out[l - 2] = '\0';
            snprintf(out + strlen(out), cap - strlen(out), "%s", units[i].u);
            return;
        }
    }
    snprintf(out, cap, "%lldms", (long long)ms);
}

/* ------------------------------------------------------------- contexts */

typedef struct sctx {
    struct sctx *next;
    int64_t num;
    bool pit;
    int64_t keep_alive, last_use, created;
    size_t n;
    char **names;
    tv_index **idx;
    const tv_snapshot **snaps;
    int64_t *mrw;
    void **picks;      /* per target: its shard narrowing (tv_api_target_pick_save) */
    uint32_t *nshards; /* per target: the shards it searches */
    char *id; /* the encoded scroll / PIT id */
    bool counted; /* registered: open in the statistics (ctx_count) */
    /* scroll */
    char *body;
    size_t body_len;
    tv_param *params; /* the first request's URL parameters */
    size_t nparams;
    int64_t size, offset;
} sctx;

typedef struct registry {
    sctx *head;
    int64_t next_num;
    char session[24];
} registry;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

/* SearchStats' scroll and point-in-time figures: a registered context is
 * open (scroll_current, point_in_time_current) on each index it reads until
 * it is freed, which counts it with its lifetime (scroll_total and time, as
 * onFreeScrollContext / onFreePitContext). */
static void ctx_count(sctx *c, bool open) {
    int64_t ns = (tv_now_ms() - c->created) * 1000000;
    for (size_t i = 0; i < c->n; i++) {
        if (!c->idx || !c->idx[i]) continue;
        tv_index_stat_add(c->idx[i], c->pit ? TV_STAT_PIT_CURRENT : TV_STAT_SCROLL_CURRENT, open ? 1 : -1);
        if (open) continue;
        tv_index_stat_add(c->idx[i], c->pit ? TV_STAT_PIT_TOTAL : TV_STAT_SCROLL_TOTAL, 1);
        tv_index_stat_add(c->idx[i], c->pit ? TV_STAT_PIT_NS : TV_STAT_SCROLL_NS, ns < 0 ? 0 : ns);
    }
}

static void ctx_free(sctx *c) {
    if (!c) return;
    if (c->counted) ctx_count(c, false);
    for (size_t i = 0; i < c->n; i++) {
        if (c->picks) tv_free(c->picks[i]);
        if (c->names) tv_free(c->names[i]);
        if (c->snaps) tv_snapshot_release(c->snaps[i]);
        if (c->idx && c->idx[i]) tv_index_release(c->idx[i]);
    }
    for (size_t i = 0; i < c->nparams; i++) {
        tv_free((char *)c->params[i].key);
        tv_free((char *)c->params[i].val);
    }
    tv_free(c->params);
    tv_free(c->names);
    tv_free(c->picks);
    tv_free(c->nshards);
    tv_free(c->idx);
    tv_free(c->snaps);
    tv_free(c->mrw);
    tv_free(c->id);
    tv_free(c->body);
    tv_free(c);
}

void tv_search_ctxs_free(trove_node *n) {
    registry *g = n ? n->search_ctxs : NULL;
    if (!g) return;
    for (sctx *c = g->head, *nx; c; c = nx) {
        nx = c->next;
        ctx_free(c);
    }
    tv_free(g);
    n->search_ctxs = NULL;
}

/* The node's registry with expired contexts swept; g_mu held. NULL on OOM. */
static registry *reg_locked(trove_node *n) {
    registry *g = n->search_ctxs;
    if (!g) {
        g = tv_calloc(1, sizeof *g);
        if (!g) return NULL;
        tv_node_new_uuid(g->session);
        g->next_num = 1;
        n->search_ctxs = g;
    }
    int64_t now = tv_now_ms();
    for (sctx **pp = &g->head; *pp;) {
        sctx *c = *pp;
        if (c->keep_alive >= 0 && now - c->last_use > c->keep_alive) {
            *pp = c->next;
            ctx_free(c);
        } else {
            pp = &c->next;
        }
    }
    return g;
}

static sctx *find_locked(registry *g, int64_t num, bool pit) {
    for (sctx *c = g->head; c; c = c->next)
        if (c->num == num && c->pit == pit) return c;
    return NULL;
}

static bool unlink_locked(registry *g, sctx *t) {
    for (sctx **pp = &g->head; *pp; pp = &(*pp)->next)
        if (*pp == t) {
            *pp = t->next;
            return true;
        }
    return false;
}

/* ------------------------------------------------------------- id coding */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void put_vint(tv_buf *b, uint32_t v) {
    while (v >= 0x80) {
        uint8_t c = (uint8_t)(v | 0x80);
        tv_buf_append(b, &c, 1);
        v >>= 7;
    }
    uint8_t c = (uint8_t)v;
    tv_buf_append(b, &c, 1);
}

static void put_str(tv_buf *b, const char *s) {
    put_vint(b, (uint32_t)strlen(s));
    tv_buf_puts(b, s);
}

static void put_long(tv_buf *b, int64_t v) {
    uint8_t x[8];
    for (int i = 0; i < 8; i++) x[i] = (uint8_t)((uint64_t)v >> (56 - 8 * i));
    tv_buf_append(b, x, 8);
}

static char *b64_encode(const uint8_t *in, size_t n) {
    char *o = tv_malloc((n + 2) / 3 * 4 + 1);
    if (!o) return NULL;
    size_t j = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n) v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n) v |= in[i + 2];
        o[j++] = b64[v >> 18 & 63];
        o[j++] = b64[v >> 12 & 63];
        o[j++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        o[j++] = i + 2 < n ? b64[v & 63] : '=';
    }
    o[j] = '\0';
    return o;
}

/* Java's Base64.getUrlDecoder().decode: NULL with *why on failure. */
static uint8_t *b64_decode(tv_arena *a, const char *s, size_t *outlen, const char **why) {
    size_t n = strlen(s);
    while (n && s[n - 1] == '=') n--;
    uint8_t *o = tv_arena_alloc(a, n * 3 / 4 + 3);
    if (!o) return NULL;
    uint32_t acc = 0;
    int bits = 0;
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = strchr(b64, s[i]);
        if (!p || !s[i]) {
            *why = tv_arena_sprintf(a, "Illegal base64 character %x", (unsigned)(unsigned char)s[i]);
            return NULL;
        }
        acc = acc << 6 | (uint32_t)(p - b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            o[j++] = (uint8_t)(acc >> bits);
        }
    }
    if (n % 4 == 1) {
        *why = "Last unit does not have enough valid bits";
        return NULL;
    }
    *outlen = j;
    return o;
}

typedef struct rd {
    const uint8_t *p;
    size_t n, i;
    bool bad;
} rd;

static uint32_t get_vint(rd *d) {
    uint32_t v = 0;
    for (int sh = 0; sh < 35; sh += 7) {
        if (d->i >= d->n) {
            d->bad = true;
            return 0;
        }
        uint8_t c = d->p[d->i++];
        v |= (uint32_t)(c & 0x7f) << sh;
        if (!(c & 0x80)) return v;
    }
    d->bad = true;
    return 0;
}

static const char *get_str(rd *d, tv_arena *a) {
    uint32_t l = get_vint(d);
    if (d->bad || l > d->n - d->i) {
        d->bad = true;
        return "";
    }
    const char *s = tv_arena_strndup(a, (const char *)d->p + d->i, l);
    d->i += l;
    return s ? s : "";
}

static int64_t get_long(rd *d) {
    if (d->n - d->i < 8) {
        d->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (int k = 0; k < 8; k++) v = v << 8 | d->p[d->i++];
    return (int64_t)v;
}

/* Decoded id: the context number and session (and index names of a PIT). */
typedef struct ctx_ref {
    int64_t num;
    const char *session;
    const char *index; /* first index (PIT) or NULL */
} ctx_ref;

static bool id_fail(tv_req *r, bool scroll, tv_status type, const char *why) {
    tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
    tv_api_err *c = tv_arena_calloc(&r->arena, 1, sizeof *c);
    if (!e || !c) {
        r->oom = true;
        return false;
    }
    e->type = TROVE_EARG;
    e->reason = scroll ? "Cannot parse scroll id" : "invalid id";
    e->status = 400;
    c->type = type;
    c->reason = why;
    c->status = 400;
    e->cause = c;
    tv_req_error(r, e);
    return false;
}

static bool decode_id(tv_req *r, const char *id, bool scroll, ctx_ref *out) {
    size_t n = 0;
    const char *why = NULL;
    uint8_t *b = b64_decode(&r->arena, id, &n, &why);
    if (!b) {
        if (!why) return r->oom = true, false;
        return id_fail(r, scroll, TROVE_EARG, why);
    }
    rd d = {b, n, 0, false};
    memset(out, 0, sizeof *out);
    if (scroll) {
        const char *first = get_str(&d, &r->arena);
        if (strcmp(first, "include_context_uuid") == 0) (void)get_str(&d, &r->arena);
        uint32_t cnt = get_vint(&d);
        if (!d.bad && cnt > n) return id_fail(r, scroll, TROVE_EARG, "Invalid scroll id");
        for (uint32_t i = 0; i < cnt && !d.bad; i++) {
            const char *sess = get_str(&d, &r->arena);
            int64_t num = get_long(&d);
            (void)get_str(&d, &r->arena);
            if (i == 0) {
                out->session = sess;
                out->num = num;
            }
        }
    } else {
        (void)get_vint(&d);
        uint32_t cnt = get_vint(&d);
        if (!d.bad && cnt > n) d.bad = true;
        for (uint32_t i = 0; i < cnt && !d.bad; i++) {
            const char *iname = get_str(&d, &r->arena);
            (void)get_str(&d, &r->arena);
            const char *sess = get_str(&d, &r->arena);
            int64_t num = get_long(&d);
            (void)get_str(&d, &r->arena);
            if (i == 0) {
                out->session = sess;
                out->num = num;
                out->index = iname;
            }
        }
        (void)get_vint(&d);
    }
    if (d.bad) return id_fail(r, scroll, TROVE_EEOF, NULL);
    if (d.i != n) return id_fail(r, scroll, TROVE_EARG, "Not all bytes were read");
    if (!out->session) out->session = "";
    return true;
}

static char *encode_id(const sctx *c, const registry *g, const char *node_id) {
    tv_buf b;
    tv_buf_init(&b);
    if (!c->pit) {
        put_str(&b, "include_context_uuid");
        put_str(&b, c->n == 1 ? "queryAndFetch" : "queryThenFetch");
        put_vint(&b, (uint32_t)c->n);
        for (size_t i = 0; i < c->n; i++) {
            put_str(&b, g->session);
            put_long(&b, c->num);
            put_str(&b, node_id);
        }
    } else {
        put_vint(&b, 1);
        put_vint(&b, (uint32_t)c->n);
        for (size_t i = 0; i < c->n; i++) {
            put_str(&b, c->names[i]);
            put_str(&b, c->idx[i] ? tv_index_uuid(c->idx[i]) : "_na_");
            put_str(&b, g->session);
            put_long(&b, c->num);
            put_str(&b, node_id);
        }
        put_vint(&b, 0);
    }
    char *s = b.oom ? NULL : b64_encode((const uint8_t *)b.data, b.len);
    tv_buf_fini(&b);
    return s;
}

/* A new context over the targets (snapshots and indices retained). */
static sctx *ctx_new(const tv_search_target *t, tv_index *const *idx, size_t n, bool pit, int64_t keep_alive) {
    sctx *c = tv_calloc(1, sizeof *c);
    if (!c) return NULL;
    c->pit = pit;
    c->keep_alive = keep_alive;
    c->created = c->last_use = tv_now_ms();
    size_t k = n ? n : 1;
    c->names = tv_calloc(k, sizeof *c->names);
    c->idx = tv_calloc(k, sizeof *c->idx);
    c->snaps = tv_calloc(k, sizeof *c->snaps);
    c->mrw = tv_calloc(k, sizeof *c->mrw);
    c->picks = tv_calloc(k, sizeof *c->picks);
    c->nshards = tv_calloc(k, sizeof *c->nshards);
    if (!c->names || !c->idx || !c->snaps || !c->mrw || !c->picks || !c->nshards) {
        ctx_free(c);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        c->names[i] = tv_strndup(t[i].index, strlen(t[i].index));
        c->snaps[i] = tv_snapshot_retain(t[i].snap);
        c->idx[i] = idx && idx[i] ? tv_index_retain(idx[i]) : NULL;
        c->mrw[i] = t[i].max_result_window;
        c->nshards[i] = t[i].nshards;
        c->picks[i] = tv_api_target_pick_save(&t[i]);
        c->n = i + 1;
        if (!c->names[i] || (t[i].pick && !c->picks[i])) {
            ctx_free(c);
            return NULL;
        }
    }
    return c;
}

/* Registers c (numbering it and encoding its id, copied to *id in the
 * request arena: c itself may be freed by another request once the lock is
 * released). False on OOM (c freed). */
static bool ctx_register(tv_req *r, sctx *c, const char **id) {
    pthread_mutex_lock(&g_mu);
    registry *g = reg_locked(r->node);
    if (g) {
        c->num = g->next_num++;
        c->id = encode_id(c, g, r->node->node_id);
    }
    if (!g || !c->id) {
        pthread_mutex_unlock(&g_mu);
        ctx_free(c);
        r->oom = true;
        return false;
    }
    *id = tv_arena_strndup(&r->arena, c->id, strlen(c->id));
    if (!*id) {
        pthread_mutex_unlock(&g_mu);
        ctx_free(c);
        r->oom = true;
        return false;
    }
    c->next = g->head;
    g->head = c;
    c->counted = true;
    ctx_count(c, true);
    pthread_mutex_unlock(&g_mu);
    return true;
}

static void ctx_drop(tv_req *r, sctx *c) {
    pthread_mutex_lock(&g_mu);
    registry *g = r->node->search_ctxs;
    if (g && unlink_locked(g, c)) ctx_free(c);
    pthread_mutex_unlock(&g_mu);
}

/* "No search context found for id [N]" as a failed search. */
static void answer_missing(tv_req *r, int64_t num, const char *index) {
    tv_api_err *se = tv_arena_calloc(&r->arena, 1, sizeof *se);
    if (!se) {
        r->oom = true;
        return;
    }
    se->type = TROVE_ENOCONTEXT;
    se->reason = tv_arena_sprintf(&r->arena, "No search context found for id [%lld]", (long long)num);
    se->status = 404;
    if (!se->reason) {
        r->oom = true;
        return;
    }
    tv_api_search_shard_failure(r, se, index, index ? 0 : -1);
}

static bool shard_fail(tv_req *r, const char *index, tv_status type, int status, const char *reason) {
    tv_api_err *se = tv_arena_calloc(&r->arena, 1, sizeof *se);
    if (!se || !reason) {
        r->oom = true;
        return false;
    }
    se->type = type;
    se->reason = reason;
    se->status = status;
    if (index) tv_api_search_shard_failure(r, se, index, 0);
    else tv_req_error(r, se);
    return false;
}

static bool check_keep_alive(tv_req *r, int64_t ms, const char *index) {
    if (ms <= MAX_KEEP_ALIVE_MS) return true;
    char a[32], b[32];
    tv_api_time_str(ms, a, sizeof a);
    tv_api_time_str(MAX_KEEP_ALIVE_MS, b, sizeof b);
    return shard_fail(r, index, TROVE_EARG, 400,
                      tv_arena_sprintf(&r->arena,
                                       "Keep alive for request (%s) is too large. It must be less than (%s). This "
                                       "limit can be set by changing the [search.max_keep_alive] cluster level "
                                       "setting.",
                                       a, b));
}

/* A held context as one request uses it: targets retained, strings in the
 * request arena. */
typedef struct held {
    tv_search_target *t;
    tv_index **idx;
    size_t n;
    const char *id;
    const char *body;
    size_t body_len;
    tv_param *params;
    size_t nparams;
    int64_t from, size;
} held;

static void held_release(held *h) {
    for (size_t i = 0; i < h->n; i++) {
        tv_snapshot_release(h->t[i].snap);
        if (h->idx[i]) tv_index_release(h->idx[i]);
    }
    h->n = 0;
}

/* Copies c for use outside the lock (g_mu held). False on OOM. */
static bool hold_locked(tv_req *r, sctx *c, held *h) {
    memset(h, 0, sizeof *h);
    size_t k = c->n ? c->n : 1;
    h->t = tv_arena_calloc(&r->arena, k, sizeof *h->t);
    h->idx = tv_arena_calloc(&r->arena, k, sizeof *h->idx);
    h->id = tv_arena_strndup(&r->arena, c->id, strlen(c->id));
    h->body = c->body ? tv_arena_strndup(&r->arena, c->body, c->body_len) : NULL;
    h->body_len = c->body_len;
    h->params = c->nparams ? tv_arena_calloc(&r->arena, c->nparams, sizeof *h->params) : NULL;
    if (!h->t || !h->idx || !h->id || (c->body && !h->body) || (c->nparams && !h->params)) return false;
    for (size_t i = 0; i < c->nparams; i++) {
        h->params[i].key = tv_arena_strndup(&r->arena, c->params[i].key, strlen(c->params[i].key));
        h->params[i].val = tv_arena_strndup(&r->arena, c->params[i].val, strlen(c->params[i].val));
        if (!h->params[i].key || !h->params[i].val) return false;
    }
    h->nparams = c->nparams;
    for (size_t i = 0; i < c->n; i++) {
        h->t[i].index = tv_arena_strndup(&r->arena, c->names[i], strlen(c->names[i]));
        if (!h->t[i].index) return false;
    }
    for (size_t i = 0; i < c->n; i++) {
        h->t[i].snap = tv_snapshot_retain(c->snaps[i]);
        h->t[i].max_result_window = c->mrw[i];
        h->idx[i] = c->idx[i] ? tv_index_retain(c->idx[i]) : NULL;
    }
    h->n = c->n;
    for (size_t i = 0; i < c->n; i++)
        if (!tv_api_target_pick_restore(r, &h->t[i], c->picks[i], c->nshards[i])) return false;
    h->size = c->size;
    h->from = c->offset;
    return true;
}

/* ---------------------------------------------------------------- scroll */

static const char *hparam(const held *h, const char *key) {
    for (size_t i = h->nparams; i-- > 0;)
        if (strcmp(h->params[i].key, key) == 0) return h->params[i].val;
    return NULL;
}

void tv_api_scroll_start(tv_req *r, const tv_search_target *targets, tv_index *const *idx, size_t n,
                         const tv_json *body, tv_search_params *p, int64_t keep_alive) {
    /* SearchRequest.validate, scroll rules */
    tv_buf v;
    tv_buf_init(&v);
    int nv = 0;
    const tv_json *bt = body && body->type == TV_JSON_OBJECT ? tv_json_get(body, "track_total_hits") : NULL;
    bool tth_bad = p->track_total_hits ? strcmp(p->track_total_hits, "true") != 0
                                       : (bt && bt->type != TV_JSON_TRUE &&
                                          !(bt->type == TV_JSON_INT && bt->v.i == INT32_MAX));
    const tv_json *bf = body && body->type == TV_JSON_OBJECT ? tv_json_get(body, "from") : NULL;
    const tv_json *bs = body && body->type == TV_JSON_OBJECT ? tv_json_get(body, "size") : NULL;
    const tv_json *br = body && body->type == TV_JSON_OBJECT ? tv_json_get(body, "rescore") : NULL;
    int64_t from = p->from >= 0 ? p->from : (bf && bf->type == TV_JSON_INT ? bf->v.i : 0);
    int64_t size = p->size >= 0 ? p->size : (bs && bs->type == TV_JSON_INT ? bs->v.i : 10);
    p->scroll = true; /* the shard refuses collapse in a scroll */
    bool rc = false;
    if (!tv_req_param_bool(r, "request_cache", false, &rc)) {
        tv_buf_fini(&v);
        return;
    }
    if (tth_bad) tv_buf_printf(&v, "%d: disabling [track_total_hits] is not allowed in a scroll context;", ++nv);
    if (from > 0) tv_buf_printf(&v, "%d: using [from] is not allowed in a scroll context;", ++nv);
    if (size == 0) tv_buf_printf(&v, "%d: [size] cannot be [0] in a scroll context;", ++nv);
    if (br && ((br->type == TV_JSON_ARRAY && br->len) || br->type == TV_JSON_OBJECT))
        tv_buf_printf(&v, "%d: using [rescore] is not allowed in a scroll context;", ++nv);
    if (rc) tv_buf_printf(&v, "%d: [request_cache] cannot be used in a scroll context;", ++nv);
    nv = tv_api_shard_doc_errors(body, true, false, &v, nv);
    if (v.oom) {
        tv_buf_fini(&v);
        r->oom = true;
        return;
    }
    if (nv) {
        tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: %.*s", (int)v.len,
                    v.data);
        tv_buf_fini(&v);
        return;
    }
    tv_buf_fini(&v);
    if (!check_keep_alive(r, keep_alive, n ? targets[0].index : NULL)) return;
    for (size_t i = 0; i < n; i++) {
        int64_t mrw = targets[i].max_result_window > 0 ? targets[i].max_result_window : 10000;
        if (size > mrw) {
            shard_fail(r, targets[i].index, TROVE_EARG, 400,
                       tv_arena_sprintf(&r->arena,
                                        "Batch size is too large, size must be less than or equal to: [%lld] but "
                                        "was [%lld]. Scroll batch sizes cost as much memory as result windows so "
                                        "they are controlled by the [index.max_result_window] index level setting.",
                                        (long long)mrw, (long long)size));
            return;
        }
    }
    sctx *c = ctx_new(targets, idx, n, false, keep_alive);
    if (!c) {
        r->oom = true;
        return;
    }
    c->size = size;
    c->offset = size;
    if (r->body_len) {
        c->body = tv_strndup(r->body, r->body_len);
        c->body_len = r->body_len;
    }
    c->params = r->nparams ? tv_calloc(r->nparams, sizeof *c->params) : NULL;
    bool ok = !(r->body_len && !c->body) && !(r->nparams && !c->params);
    for (size_t i = 0; ok && i < r->nparams; i++) {
        c->params[i].key = tv_strndup(r->params[i].key, strlen(r->params[i].key));
        c->params[i].val = tv_strndup(r->params[i].val, strlen(r->params[i].val));
        c->nparams = i + 1;
        ok = c->params[i].key && c->params[i].val;
    }
    if (!ok) {
        ctx_free(c);
        r->oom = true;
        return;
    }
    const char *id;
    if (!ctx_register(r, c, &id)) return;
    p->track_total_hits = "true";
    p->from = 0;
    p->size = size;
    if (!tv_api_search_answer(r, targets, idx, n, body, p, "_scroll_id", id, false)) ctx_drop(r, c);
}

/* Looks up a scroll or PIT context by its encoded id; on success h holds
 * it (from/size of the next page claimed for a scroll). */
static bool lookup(tv_req *r, const char *id, bool pit, int64_t keep_alive, held *h) {
    ctx_ref ref;
    if (!decode_id(r, id, !pit, &ref)) return false;
    pthread_mutex_lock(&g_mu);
    registry *g = reg_locked(r->node);
    if (!g) {
        pthread_mutex_unlock(&g_mu);
        r->oom = true;
        return false;
    }
    sctx *c = strcmp(ref.session, g->session) == 0 ? find_locked(g, ref.num, pit) : NULL;
    if (!c) {
        pthread_mutex_unlock(&g_mu);
        answer_missing(r, ref.num, pit ? ref.index : NULL);
        return false;
    }
    if (keep_alive >= 0) {
        if (keep_alive > MAX_KEEP_ALIVE_MS) {
            pthread_mutex_unlock(&g_mu);
            return check_keep_alive(r, keep_alive, c->n ? ref.index : NULL);
        }
        c->keep_alive = keep_alive;
    }
    c->last_use = tv_now_ms();
    bool ok = hold_locked(r, c, h);
    if (ok && !pit) c->offset += c->size;
    pthread_mutex_unlock(&g_mu);
    if (!ok) {
        held_release(h);
        r->oom = true;
    }
    return ok;
}

static bool scroll_body_ids(tv_req *r, const tv_json *b, const char *what, const char **scroll_id,
                            const char **scroll) {
    (void)what;
    if (b->type != TV_JSON_OBJECT)
        return tv_req_fail(r, TROVE_EARG, "Malformed content, must start with an object");
    for (uint32_t i = 0; i < b->len; i++) {
        const tv_json_member *m = &b->v.members[i];
        if (tv_streq(m->key, m->key_len, "scroll_id") && m->val.type == TV_JSON_STRING) {
            *scroll_id = m->val.v.s;
        } else if (tv_streq(m->key, m->key_len, "scroll") && m->val.type == TV_JSON_STRING) {
            *scroll = m->val.v.s;
        } else {
            return tv_req_fail(r, TROVE_EARG,
                               "Unknown parameter [%s] in request body or parameter is of the wrong type[%s] ", m->key,
                               m->val.type == TV_JSON_OBJECT  ? "START_OBJECT"
                               : m->val.type == TV_JSON_ARRAY ? "START_ARRAY"
                               : m->val.type == TV_JSON_STRING ? "VALUE_STRING"
                               : m->val.type == TV_JSON_NULL   ? "VALUE_NULL"
                               : tv_json_is_bool(&m->val)      ? "VALUE_BOOLEAN"
                                                               : "VALUE_NUMBER");
        }
    }
    return true;
}

void tv_h_scroll(tv_req *r) {
    const char *scroll_id = r->p_id ? r->p_id : tv_req_param(r, "scroll_id");
    const char *scroll = tv_req_param(r, "scroll");
    bool as_int = false;
    if (!tv_req_param_bool(r, "rest_total_hits_as_int", false, &as_int)) return;
    int64_t keep_alive = -1;
    if (scroll && !tv_api_parse_time_ms(r, "scroll", scroll, &keep_alive)) return;
    if (r->body_len) {
        const tv_json *b = tv_req_parse_body(r, TV_BODY_PARSER);
        if (!b) return;
        const char *bscroll = NULL;
        if (!scroll_body_ids(r, b, "scroll", &scroll_id, &bscroll)) return;
        if (bscroll && !tv_api_parse_time_ms(r, "scroll", bscroll, &keep_alive)) return;
    }
    if (!scroll_id || !*scroll_id)
        return (void)tv_req_fail(r, TROVE_EVALIDATION,
                                 "Validation Failed: 1: scrollId is missing;");
    held h;
    if (!lookup(r, scroll_id, false, keep_alive, &h)) return;
    tv_search_params p;
    tv_search_params_init(&p);
    tv_api_search_limits(r, &p);
    p.source = hparam(&h, "_source");
    p.source_includes = hparam(&h, "_source_includes");
    p.source_excludes = hparam(&h, "_source_excludes");
    p.sort = hparam(&h, "sort");
    p.q = hparam(&h, "q");
    p.df = hparam(&h, "df");
    p.default_operator = hparam(&h, "default_operator");
    p.analyzer = hparam(&h, "analyzer");
    const char *bv;
    p.version = (bv = hparam(&h, "version")) && strcmp(bv, "false") != 0;
    p.seq_no_primary_term = (bv = hparam(&h, "seq_no_primary_term")) && strcmp(bv, "false") != 0;
    p.track_total_hits = "true";
    p.rest_total_hits_as_int = as_int;
    p.from = h.from;
    p.size = h.size;
    p.skip_aggs = true; /* only the first response carries aggregations */
    p.body_text = h.body;
    p.body_text_len = h.body_len;
    tv_json *body = NULL;
    if (h.body && tv_json_parse(&r->arena, h.body, h.body_len, &body, NULL) != TROVE_OK) body = NULL;
    for (size_t i = 0; i < h.n; i++) h.t[i].max_result_window = INT64_MAX; /* pages past the window */
    tv_api_search_answer(r, h.t, h.idx, h.n, body, &p, "_scroll_id", h.id, false);
    held_release(&h);
}

/* Clears contexts by encoded id (or every one of a kind with "_all").
 * Returns the number freed; -1 with the response set on a bad id. */
static int64_t clear_ids(tv_req *r, const char **ids, size_t n, bool pit, bool *freed_each) {
    bool all = false;
    for (size_t i = 0; i < n; i++) all |= strcmp(ids[i], "_all") == 0;
    ctx_ref *refs = n ? tv_arena_calloc(&r->arena, n, sizeof *refs) : NULL;
    if (n && !refs) return r->oom = true, -1;
    if (!all)
        for (size_t i = 0; i < n; i++)
            if (!decode_id(r, ids[i], !pit, &refs[i])) return -1;
    int64_t freed = 0;
    pthread_mutex_lock(&g_mu);
    registry *g = reg_locked(r->node);
    if (!g) {
        pthread_mutex_unlock(&g_mu);
        r->oom = true;
        return -1;
    }
    if (all) {
        for (sctx **pp = &g->head; *pp;) {
            sctx *c = *pp;
            if (c->pit == pit) {
                *pp = c->next;
                ctx_free(c);
                freed++;
            } else {
                pp = &c->next;
            }
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            sctx *c = strcmp(refs[i].session, g->session) == 0 ? find_locked(g, refs[i].num, pit) : NULL;
            if (freed_each) freed_each[i] = c != NULL;
            if (c && unlink_locked(g, c)) {
                ctx_free(c);
                freed++;
            }
        }
    }
    pthread_mutex_unlock(&g_mu);
    return freed;
}

/* Collects "key": string or [strings] from a body object into ids. */
static bool body_id_list(tv_req *r, const tv_json *b, const char *key, const char ***ids, size_t *n) {
    if (b->type != TV_JSON_OBJECT)
        return tv_req_fail(r, TROVE_EARG, "Malformed content, must start with an object");
    size_t cap = 0;
    for (uint32_t i = 0; i < b->len; i++) cap += b->v.members[i].val.type == TV_JSON_ARRAY ? b->v.members[i].val.len : 1;
    *ids = tv_arena_calloc(&r->arena, cap + 1, sizeof **ids);
    if (!*ids) return r->oom = true, false;
    *n = 0;
    for (uint32_t i = 0; i < b->len; i++) {
        const tv_json_member *m = &b->v.members[i];
        const tv_json *v = &m->val;
        bool ok = tv_streq(m->key, m->key_len, key);
        if (ok && v->type == TV_JSON_STRING) {
            (*ids)[(*n)++] = v->v.s;
        } else if (ok && v->type == TV_JSON_ARRAY) {
            for (uint32_t j = 0; j < v->len; j++) {
                if (v->v.items[j].type != TV_JSON_STRING)
                    return tv_req_fail(r, TROVE_EARG,
                                       "%s array element should only contain %s", key,
                                       strcmp(key, "pit_id") == 0 ? "pit_id" : "scroll_id");
                (*ids)[(*n)++] = v->v.items[j].v.s;
            }
        } else {
            return tv_req_fail(r, TROVE_EARG,
                               "Unknown parameter [%s] in request body or parameter is of the wrong type[%s] ", m->key,
                               v->type == TV_JSON_OBJECT ? "START_OBJECT" : v->type == TV_JSON_NULL ? "VALUE_NULL"
                               : tv_json_is_bool(v)      ? "VALUE_BOOLEAN"
                                                         : "VALUE_NUMBER");
        }
    }
    return true;
}

void tv_h_clear_scroll(tv_req *r) {
    const char **ids = NULL;
    size_t n = 0;
    const char *q = r->p_id ? r->p_id : tv_req_param(r, "scroll_id");
    if (q) n = tv_split_commas(&r->arena, q, &ids);
    if (r->body_len) {
        const tv_json *b = tv_req_parse_body(r, TV_BODY_PARSER);
        if (!b) return;
        if (!body_id_list(r, b, "scroll_id", &ids, &n)) return;
    }
    if (n == 0)
        return (void)tv_req_fail(r, TROVE_EVALIDATION,
                                 "Validation Failed: 1: no scroll ids specified;");
    int64_t freed = clear_ids(r, ids, n, false, NULL);
    if (freed < 0) return;
    tv_jw *w = tv_req_json(r, freed ? 200 : 404);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "succeeded");
    tv_jw_bool(w, true);
    tv_jw_keyz(w, "num_freed");
    tv_jw_int(w, freed);
    tv_jw_obj_end(w);
}

/* ------------------------------------------------------------------- PIT */

void tv_h_pit_create(tv_req *r) {
    const char *ka = tv_req_param(r, "keep_alive");
    bool partial;
    if (!tv_req_param_bool(r, "allow_partial_pit_creation", true, &partial)) return;
    int64_t keep_alive = -1;
    if (ka && !tv_api_parse_time_ms(r, "keep_alive", ka, &keep_alive)) return;
    if (!ka)
        return (void)tv_req_fail(r, TROVE_EVALIDATION,
                                 "Validation Failed: 1: keep alive not specified;");
    bool iu, ani;
    if (!tv_req_param_bool(r, "ignore_unavailable", false, &iu)) return;
    if (!tv_req_param_bool(r, "allow_no_indices", true, &ani)) return;
    tv_index_list l;
    if (!tv_node_resolve(r, r->p_index, iu, ani, &l)) return;
    size_t nt = 0;
    tv_search_target *t = tv_api_targets(r, &l, &nt);
    if (!r->oom && check_keep_alive(r, keep_alive, nt ? t[0].index : NULL)) {
        sctx *c = ctx_new(t, l.items, nt, true, keep_alive);
        if (!c) {
            r->oom = true;
        } else {
            int64_t created = c->created;
            const char *id;
            if (ctx_register(r, c, &id)) {
                {
                    tv_jw *w = tv_req_json(r, 200);
                    tv_jw_obj_begin(w);
                    tv_jw_keyz(w, "pit_id");
                    tv_jw_strz(w, id);
                    tv_jw_keyz(w, "_shards");
                    tv_jw_obj_begin(w);
                    tv_jw_keyz(w, "total");
                    tv_jw_int(w, (int64_t)nt);
                    tv_jw_keyz(w, "successful");
                    tv_jw_int(w, (int64_t)nt);
                    tv_jw_keyz(w, "skipped");
                    tv_jw_int(w, 0);
                    tv_jw_keyz(w, "failed");
                    tv_jw_int(w, 0);
                    tv_jw_obj_end(w);
                    tv_jw_keyz(w, "creation_time");
                    tv_jw_int(w, created);
                    tv_jw_obj_end(w);
                }
            }
        }
    }
    for (size_t i = 0; i < nt; i++) tv_snapshot_release(t[i].snap);
    tv_index_list_release(&l);
}

void tv_api_pit_search(tv_req *r, const tv_json *body, tv_search_params *p) {
    /* RestSearchAction.preparePointInTime */
    tv_buf v;
    tv_buf_init(&v);
    int nv = 0;
    if (r->p_index && *r->p_index) tv_buf_printf(&v, "%d: [indices] cannot be used with point in time;", ++nv);
    if (tv_req_param(r, "ignore_unavailable") || tv_req_param(r, "allow_no_indices") ||
        tv_req_param(r, "expand_wildcards"))
        tv_buf_printf(&v, "%d: [indicesOptions] cannot be used with point in time;", ++nv);
    if (tv_req_param(r, "routing")) tv_buf_printf(&v, "%d: [routing] cannot be used with point in time;", ++nv);
    if (tv_req_param(r, "preference"))
        tv_buf_printf(&v, "%d: [preference] cannot be used with point in time;", ++nv);
    nv = tv_api_shard_doc_errors(body, false, true, &v, nv);
    if (v.oom) {
        tv_buf_fini(&v);
        r->oom = true;
        return;
    }
    if (nv) {
        tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: %.*s", (int)v.len,
                    v.data);
        tv_buf_fini(&v);
        return;
    }
    tv_buf_fini(&v);
    const tv_json *pit = tv_json_get(body, "pit");
    if (pit->type != TV_JSON_OBJECT)
        return (void)tv_req_fail(r, TROVE_EPARSE, "[pit] failed to parse object");
    const char *id = NULL, *ka = NULL;
    for (uint32_t i = 0; i < pit->len; i++) {
        const tv_json_member *m = &pit->v.members[i];
        if (tv_streq(m->key, m->key_len, "id") && m->val.type == TV_JSON_STRING)
            id = m->val.v.s;
        else if (tv_streq(m->key, m->key_len, "keep_alive") && m->val.type == TV_JSON_STRING)
            ka = m->val.v.s;
        else
            return (void)tv_req_fail(r, TROVE_EXCONTENT, "[pit] unknown field [%s]", m->key);
    }
    if (!id)
        return (void)tv_req_fail(r, TROVE_EXCONTENT,
                                 "Required [id]");
    int64_t keep_alive = -1;
    if (ka && !tv_api_parse_time_ms(r, "keep_alive", ka, &keep_alive)) return;
    /* the body without "pit" (the search layer rejects keys it lacks) */
    tv_json *b2 = tv_arena_alloc(&r->arena, sizeof *b2);
    tv_json_member *ms = tv_arena_calloc(&r->arena, body->len + 1, sizeof *ms);
    if (!b2 || !ms) {
        r->oom = true;
        return;
    }
    *b2 = *body;
    uint32_t k = 0;
    for (uint32_t i = 0; i < body->len; i++)
        if (!tv_streq(body->v.members[i].key, body->v.members[i].key_len, "pit")) ms[k++] = body->v.members[i];
    b2->len = k;
    b2->v.members = ms;
    held h;
    if (!lookup(r, id, true, keep_alive, &h)) return;
    tv_api_search_answer(r, h.t, h.idx, h.n, b2, p, "pit_id", h.id, false);
    held_release(&h);
}

static void write_pit_results(tv_req *r, const char **ids, size_t n) {
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "pits");
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "successful");
        tv_jw_bool(w, true);
        tv_jw_keyz(w, "pit_id");
        tv_jw_strz(w, ids[i]);
        tv_jw_obj_end(w);
    }
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
}

void tv_h_pit_delete(tv_req *r) {
    const char **ids = NULL;
    size_t n = 0;
    if (r->body_len) {
        const tv_json *b = tv_req_parse_body(r, TV_BODY_PARSER);
        if (!b) return;
        if (!body_id_list(r, b, "pit_id", &ids, &n)) return;
    }
    if (n == 0)
        return (void)tv_req_fail(r, TROVE_EVALIDATION,
                                 "Validation Failed: 1: No pit ids specified;");
    for (size_t i = 0; i < n; i++)
        if (strcmp(ids[i], "_all") == 0) return tv_h_pit_delete_all(r);
    if (clear_ids(r, ids, n, true, NULL) < 0) return;
    write_pit_results(r, ids, n); /* an unknown PIT counts as deleted, as OpenSearch's freeReaderContextsIfFound */
}

/* Ids of every live PIT (g_mu held), in creation order. */
static size_t pit_ids_locked(tv_req *r, registry *g, const char ***ids, int64_t **ka, int64_t **created) {
    size_t n = 0;
    for (sctx *c = g->head; c; c = c->next) n += c->pit;
    *ids = tv_arena_calloc(&r->arena, n + 1, sizeof **ids);
    if (ka) *ka = tv_arena_calloc(&r->arena, n + 1, sizeof **ka);
    if (created) *created = tv_arena_calloc(&r->arena, n + 1, sizeof **created);
    if (!*ids || (ka && !*ka) || (created && !*created)) {
        r->oom = true;
        return 0;
    }
    size_t i = n;
    for (sctx *c = g->head; c; c = c->next) { /* the list is newest first */
        if (!c->pit) continue;
        i--;
        (*ids)[i] = tv_arena_strndup(&r->arena, c->id, strlen(c->id));
        if (!(*ids)[i]) r->oom = true;
        if (ka) (*ka)[i] = c->keep_alive;
        if (created) (*created)[i] = c->created;
    }
    return r->oom ? 0 : n;
}

void tv_h_pit_delete_all(tv_req *r) {
    pthread_mutex_lock(&g_mu);
    registry *g = reg_locked(r->node);
    const char **ids = NULL;
    size_t n = g ? pit_ids_locked(r, g, &ids, NULL, NULL) : 0;
    if (!g) r->oom = true;
    if (g && !r->oom) {
        for (sctx **pp = &g->head; *pp;) {
            sctx *c = *pp;
            if (c->pit) {
                *pp = c->next;
                ctx_free(c);
            } else {
                pp = &c->next;
            }
        }
    }
    pthread_mutex_unlock(&g_mu);
    if (r->oom) return;
    write_pit_results(r, ids, n);
}

void tv_h_pit_list(tv_req *r) {
    pthread_mutex_lock(&g_mu);
    registry *g = reg_locked(r->node);
    const char **ids = NULL;
    int64_t *ka = NULL, *created = NULL;
    size_t n = g ? pit_ids_locked(r, g, &ids, &ka, &created) : 0;
    if (!g) r->oom = true;
    pthread_mutex_unlock(&g_mu);
    if (r->oom) return;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "pits");
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "pit_id");
        tv_jw_strz(w, ids[i]);
        tv_jw_keyz(w, "creation_time");
        tv_jw_int(w, created[i]);
        tv_jw_keyz(w, "keep_alive");
        tv_jw_int(w, ka[i]);
        tv_jw_obj_end(w);
    }
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
}
