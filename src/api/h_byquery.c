/*
 * h_byquery.c — POST /{index}/_delete_by_query and /{index}/_update_by_query,
 * and the worker both share with _reindex (h_reindex.c).
 *
 * Both work as OpenSearch's reindex module does, minus scripts: take a
 * snapshot of every target index at the start, find the matching
 * documents in _doc order with their _seq_no/_primary_term as of that
 * snapshot, then delete (or re-index with the source the snapshot holds,
 * keeping its routing) each one conditioned on if_seq_no/if_primary_term.
 * A document changed or deleted since the snapshot is a version conflict
 * exactly where OpenSearch's would be: conflicts=abort (the default)
 * stops after the batch (scroll_size, 1000) that saw it and answers 409
 * with the failures, conflicts=proceed counts it and goes on.
 *
 * Finding the documents reuses the search layer as it is: one _search over
 * the held snapshots (query, URL q/df/..., every live document, sort
 * _doc, seq_no_primary_term, version, _source only when needed), whose
 * response is read back and cut into scroll batches. A dedicated
 * collector in the search layer was rejected for now: the search layer is
 * being changed by others, and a test double's by-query sizes do not need
 * it. The _source of a hit is the stored bytes the search layer copied
 * verbatim into its (compact) response, so an update re-indexes the
 * document's own bytes.
 *
 * The worker (tv_bbs_run) is AbstractAsyncBulkByScrollAction's loop: per
 * scroll response the throttle delay (h_tasks.c), then the batch, cut to
 * what max_docs leaves (max_docs counts successful writes, so conflicts
 * under conflicts=proceed let more documents in); the status is published
 * to the request's task after each batch, and a cancelled task stops
 * with "canceled". slices (N or auto: the fewest shards of the targets)
 * partition the documents as a sliced scroll does (SliceBuilder: whole
 * shards when slices <= shards, else _id hashes within a shard,
 * TermsSliceQuery's murmur3 of the encoded _id, seed 7919), each slice a
 * worker with its own status, max_docs / slices and requests_per_second /
 * slices. The slices run one after another on the request's thread
 * rather than in parallel: so that their combined rate stays the
 * request's requests_per_second, a slice's delays are computed with the
 * whole rate (its status still shows its share, as OpenSearch's).
 * wait_for_active_shards above the one active copy a single node has
 * waits the bulk timeout and fails each item of the batch with
 * unavailable_shards_exception, as a replica-less OpenSearch node does.
 *
 * _update_by_query's script (src/script) runs on each document as its
 * batch is written (tv_bbs_script): op noop counts a noop, delete deletes,
 * and OpenSearch's checks of what the script left in ctx apply.
 * The documents _update_by_query writes go through the ingest pipelines
 * (?pipeline, else the index's default, then its final) as a bulk's index
 * requests do; a dropped document counts a noop.
 * Not supported, answered 400 unsupported_operation_exception: a script
 * of _delete_by_query, a pipeline that changes _index, _id or _routing in
 * _update_by_query, manual slicing (slice).
 * Response fields in OpenSearch's order (BulkByScrollResponse): took,
 * timed_out, total, updated (update only), deleted, batches,
 * version_conflicts, noops, retries {bulk, search}, throttled_millis,
 * requests_per_second, throttled_until_millis, slices, failures.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "api.h"
#include "query/parse.h"

/* The request's options once parsed and validated, in the order of
 * AbstractBulkByQueryRestHandler / AbstractBaseReindexRestHandler (the
 * body's by-query keys, the search parameters, scroll_size, conflicts,
 * search_timeout, then the common options and validate()), so the first
 * error OpenSearch would report is the one reported. */
typedef struct byq_opts {
    bool proceed;
    int64_t scroll_size;
    int64_t max_docs; /* -1: every match */
    int64_t slices;   /* 0: auto */
    float rps;        /* INFINITY: unlimited */
    bool has_query;   /* the body has a query (or q= gives one) */
    tv_json *sbody;   /* the body less the by-query keys (NULL: none) */
    bool has_script;  /* _update_by_query's script */
    tv_api_script script;
} byq_opts;

/* setMaxDocsValidateIdentical, then setMaxDocs. */
static bool set_max_docs(tv_req *r, byq_opts *o, int64_t n) {
    if (o->max_docs != -1 && o->max_docs != n)
        return tv_req_fail(r, TROVE_EARG,
                           "[max_docs] set to two different values [%lld] and [%lld]", (long long)o->max_docs,
                           (long long)n);
    if (n < 0)
        return tv_req_fail(r, TROVE_EARG,
                           "[max_docs] parameter cannot be negative, found [%lld]", (long long)n);
    if (n < o->slices)
        return tv_req_fail(r, TROVE_EARG, "[max_docs] should be >= [slices]");
    o->max_docs = n;
    return true;
}

/* An int URL parameter into *out; *given says whether it was there. */
static bool int_param(tv_req *r, const char *key, int64_t *out, bool *given) {
    *given = tv_req_param(r, key) != NULL;
    return !*given || tv_req_param_i64(r, key, -1, out);
}

/* The body's by-query keys (conflicts, max_docs / size, script, slice);
 * the rest is the search source. */
static bool body_options(tv_req *r, const char *api, byq_opts *o, const char **conflicts, bool *from,
                         bool *stored) {
    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body && r->body_len) return false;
    if (!body) return true;
    if (body->type != TV_JSON_OBJECT)
        return tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
    tv_json *sbody = tv_arena_alloc(&r->arena, sizeof *sbody);
    tv_json_member *ms = tv_arena_calloc(&r->arena, body->len + 1, sizeof *ms);
    if (!sbody || !ms) return (r->oom = true), false;
    *sbody = *body;
    uint32_t k = 0;
    for (uint32_t i = 0; i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const tv_json *v = &m->val;
        if (tv_streq(m->key, m->key_len, "conflicts")) {
            if (v->type != TV_JSON_STRING)
                return tv_req_fail(r, TROVE_EXCONTENT,
                                   "[%s] conflicts doesn't support values of type: %s", api + 1, tv_dsl_token_name(v));
            *conflicts = v->v.s;
        } else if (tv_streq(m->key, m->key_len, "max_docs") || tv_streq(m->key, m->key_len, "size")) {
            if (v->type != TV_JSON_INT)
                return tv_req_fail(r, TROVE_EXCONTENT, "[%s] failed to parse field [%s]",
                                   api + 1, m->key);
            if (!set_max_docs(r, o, v->v.i)) return false;
        } else if (tv_streq(m->key, m->key_len, "script") && api[1] == 'u') {
            tv_api_err *e = NULL;
            if (!tv_api_script_parse(r, v, &o->script, &e)) {
                if (e) tv_req_error(r, e);
                return false;
            }
            o->has_script = true;
        } else if (tv_streq(m->key, m->key_len, "script")) {
            return tv_req_fail(r, TROVE_EUNSUPPORTED,
                               "trove does not support scripts ([script] of %s)", api);
        } else if (tv_streq(m->key, m->key_len, "slice")) {
            return tv_req_fail(r, TROVE_EUNSUPPORTED,
                               "trove does not support manual slicing ([slice] of %s)", api);
        } else {
            o->has_query |= tv_streq(m->key, m->key_len, "query");
            *from |= tv_streq(m->key, m->key_len, "from");
            *stored |= tv_streq(m->key, m->key_len, "stored_fields");
            ms[k++] = *m;
        }
    }
    sbody->len = k;
    sbody->v.members = ms;
    o->sbody = sbody;
    return true;
}

/* AbstractBaseReindexRestHandler.parseRequestsPerSecond (Float.parseFloat,
 * -1 for unlimited, else > 0). */
bool tv_bbs_parse_rps(tv_req *r, float *out) {
    const char *v = tv_req_param(r, "requests_per_second");
    *out = INFINITY;
    if (!v) return true;
    bool num = tv_java_double_syntax(v, strlen(v));
    double d = num ? strtod(v, NULL) : 0;
    if (!num || (d != -1 && !(d > 0)))
        return tv_req_fail(r, TROVE_EARG,
                           "[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.");
    if (d != -1) *out = (float)d;
    return true;
}

static bool parse_options(tv_req *r, const char *api, bool update, byq_opts *o) {
    memset(o, 0, sizeof *o);
    o->max_docs = -1;
    o->slices = 1;
    o->scroll_size = 1000;
    const char *conflicts = NULL;
    bool body_from = false, body_stored = false, given;
    if (!body_options(r, api, o, &conflicts, &body_from, &body_stored)) return false;
    /* RestSearchAction.parseSearchRequest: from, size (max_docs here),
     * terminate_after, scroll */
    int64_t from = -1, size, ta;
    if (!int_param(r, "from", &from, &given)) return false;
    if (given && from < 0)
        return tv_req_fail(r, TROVE_EARG,
                           "[from] parameter cannot be negative, found [%lld]", (long long)from);
    if (!int_param(r, "size", &size, &given)) return false;
    if (given && size != -1 && !set_max_docs(r, o, size)) return false;
    if (!int_param(r, "terminate_after", &ta, &given)) return false;
    if (given && ta < 0) return tv_req_fail(r, TROVE_EARG, "terminateAfter must be > 0");
    int64_t ms;
    const char *sc = tv_req_param(r, "scroll");
    if (sc && !tv_api_parse_time_ms(r, "scroll", sc, &ms)) return false;
    /* scroll_size is the search's size */
    if (!int_param(r, "scroll_size", &o->scroll_size, &given)) return false;
    if (given && o->scroll_size < 0)
        return tv_req_fail(r, TROVE_EARG,
                           "[size] parameter cannot be negative, found [%lld]", (long long)o->scroll_size);
    if (tv_req_param(r, "conflicts")) conflicts = tv_req_param(r, "conflicts");
    if (conflicts) {
        if (strcmp(conflicts, "proceed") == 0)
            o->proceed = true;
        else if (strcmp(conflicts, "abort") != 0)
            return tv_req_fail(r, TROVE_EARG,
                               "conflicts may only be \"proceed\" or \"abort\" but was [%s]", conflicts);
    }
    const char *st = tv_req_param(r, "search_timeout");
    if (st && !tv_api_parse_time_ms(r, "search_timeout", st, &ms)) return false;
    /* setCommonOptions: refresh and timeout are read by the caller and the
     * router; then slices, requests_per_second, max_docs */
    const char *sl = tv_req_param(r, "slices");
    if (sl && strcmp(sl, "auto") == 0) {
        o->slices = 0;
    } else if (sl) {
        int64_t v;
        if (!tv_parse_i64(sl, strlen(sl), &v) || v < INT32_MIN || v > INT32_MAX || v < 1)
            return tv_req_fail(r, TROVE_EARG,
                               "[slices] must be a positive integer or the string \"auto\", but was [%s]", sl);
        o->slices = v;
    }
    if (!tv_bbs_parse_rps(r, &o->rps)) return false;
    int64_t md;
    if (!int_param(r, "max_docs", &md, &given)) return false;
    if (given && !set_max_docs(r, o, md)) return false;
    /* AbstractBulkByScrollRequest.validate (with the search request's) */
    tv_buf m;
    tv_buf_init(&m);
    int nerr = 0;
    if (o->scroll_size == 0) tv_buf_printf(&m, "%d: [size] cannot be [0] in a scroll context;", ++nerr);
    if (from != -1 || body_from) tv_buf_printf(&m, "%d: from is not supported in this context;", ++nerr);
    if (body_stored) tv_buf_printf(&m, "%d: stored_fields is not supported in this context;", ++nerr);
    if (o->max_docs == 0)
        tv_buf_printf(&m, "%d: maxDocs should be greater than 0 if the request is limited to some number of "
                          "documents or -1 if it isn't but it was [0];", ++nerr);
    /* DeleteByQueryRequest.validate */
    if (!update && !o->has_query && !tv_req_param(r, "q")) tv_buf_printf(&m, "%d: query is missing;", ++nerr);
    bool ok = nerr == 0;
    if (!ok) tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: %s", m.data);
    if (m.oom) r->oom = true;
    tv_buf_fini(&m);
    return ok;
}


/* ------------------------------------------------------------- slicing */

/* Uid.encodeId: numeric ids packed two digits a byte, URL-safe base64 ids
 * decoded (escaped when the first byte is >= 0xfd), else 0xff + UTF-8.
 * out holds at least len + 2 bytes. */
static size_t encode_id(const char *id, size_t len, unsigned char *out) {
    bool digits = len > 0;
    for (size_t i = 0; i < len; i++) digits &= id[i] >= '0' && id[i] <= '9';
    if (digits) {
        size_t n = 0;
        out[n++] = 0xfe;
        for (size_t i = 0; i < len; i += 2) {
            int b1 = id[i] - '0', b2 = i + 1 == len ? 0x0f : id[i + 1] - '0';
            out[n++] = (unsigned char)((b1 << 4) | b2);
        }
        return n;
    }
    bool b64 = len > 0 && (len & 3) != 1;
    if (b64 && (len & 3) == 2) b64 = strchr("AQgw", id[len - 1]) != NULL;
    if (b64 && (len & 3) == 3) b64 = strchr("AEIMQUYcgkosw048", id[len - 1]) != NULL;
    for (size_t i = 0; b64 && i < len; i++) {
        char c = id[i];
        b64 = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-' || c == '_';
    }
    if (b64) {
        unsigned char tmp[len];
        size_t n = 0;
        uint32_t acc = 0;
        int bits = 0;
        for (size_t i = 0; i < len; i++) {
            char c = id[i];
            int v = c >= 'A' && c <= 'Z' ? c - 'A'
                    : c >= 'a' && c <= 'z' ? c - 'a' + 26
                    : c >= '0' && c <= '9' ? c - '0' + 52
                    : c == '-' ? 62 : 63;
            acc = (acc << 6) | (uint32_t)v;
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                tmp[n++] = (unsigned char)(acc >> bits);
            }
        }
        size_t k = 0;
        if (n && tmp[0] >= 0xfd) out[k++] = 0xfd;
        memcpy(out + k, tmp, n);
        return k + n;
    }
    out[0] = 0xff;
    memcpy(out + 1, id, len);
    return len + 1;
}

/* The slice (of max) a sliced scroll gives a document on shard `shard` of
 * an index of num_shards shards (SliceBuilder.toFilter over _id). */
static int64_t slice_of(const char *id, size_t len, uint32_t shard, uint32_t num_shards, int64_t max) {
    if (max >= (int64_t)num_shards) {
        int64_t per = max / num_shards + (max % num_shards > (int64_t)shard ? 1 : 0);
        if (per <= 1) return shard;
        unsigned char *b = tv_malloc(len + 2);
        if (!b) return shard;
        size_t n = encode_id(id, len, b);
        int32_t h = (int32_t)tv_murmur3_x86_32(b, n, 7919);
        tv_free(b);
        int64_t k = ((int64_t)h % per + per) % per;
        return shard + k * num_shards;
    }
    return shard % max;
}

/* -------------------------------------------------------------- worker */

/* One document as the search found it. */
static bool read_docs(tv_req *r, const tv_json *hits, const char *text, size_t text_len, const tv_search_target *t,
                      const tv_index_list *l, size_t nt, tv_bbs_doc **out, size_t *n) {
    size_t nh = hits && hits->type == TV_JSON_ARRAY ? hits->len : 0;
    tv_bbs_doc *d = tv_arena_calloc(&r->arena, nh + 1, sizeof *d);
    if (!d) return (r->oom = true), false;
    size_t k = 0;
    for (size_t i = 0; i < nh; i++) {
        const tv_json *h = &hits->v.items[i];
        const tv_json *jx = tv_json_get(h, "_index"), *jid = tv_json_get(h, "_id");
        const tv_json *jsq = tv_json_get(h, "_seq_no"), *jpt = tv_json_get(h, "_primary_term");
        const tv_json *jv = tv_json_get(h, "_version"), *jr = tv_json_get(h, "_routing");
        if (!jx || !jid || !jsq || !jpt) continue;
        tv_bbs_doc *x = &d[k];
        for (size_t j = 0; j < nt; j++)
            if (strcmp(t[j].index, jx->v.s) == 0) x->idx = l->items[j];
        if (!x->idx) continue;
        x->index = jx->v.s;
        x->id = jid->v.s;
        x->id_len = jid->len;
        x->seq_no = jsq->v.i;
        x->primary_term = jpt->v.i;
        x->version = jv && jv->type == TV_JSON_INT ? jv->v.i : 1;
        if (jr && jr->type == TV_JSON_STRING) {
            x->routing = jr->v.s;
            x->routing_len = jr->len;
        }
        /* the stored bytes: from the _source value to the next member */
        for (uint32_t m = 0; m < h->len; m++) {
            if (!tv_streq(h->v.members[m].key, h->v.members[m].key_len, "_source")) continue;
            const tv_json *src = &h->v.members[m].val;
            size_t end = m + 1 < h->len ? h->v.members[m + 1].key_off - 1 : text_len;
            if (src->off > end) break;
            while (end > src->off && (text[end - 1] == ' ' || text[end - 1] == '\n' ||
                                      (src->type == TV_JSON_OBJECT && text[end - 1] != '}')))
                end--;
            x->src = text + src->off;
            x->src_len = end - src->off;
        }
        k++;
    }
    *out = d;
    *n = k;
    return true;
}

typedef struct failure {
    const char *index, *id;
    tv_api_err *cause;
    int status;
} failure;

typedef struct worker {
    tv_bbs_status st;
    failure *fails;
    size_t nfails;
    bool fatal; /* the request's answer is set (an error that ends it) */
} worker;

/* The batch's bulk when wait_for_active_shards asks for more copies than
 * the one active: the bulk waits its timeout, then each item fails. */
static bool unavailable(tv_req *r, const tv_bbs_job *j, tv_task *task, tv_bbs_doc *b, size_t n, worker *wk,
                        int *status) {
    int64_t until = 0, credited;
    tv_task_throttle(task, j->timeout_ms * 1000000, INFINITY, &until, &credited);
    char ts[32];
    tv_api_time_str(j->timeout_ms, ts, sizeof ts);
    for (size_t i = 0; i < n; i++) {
        tv_index *dst = j->dest_name ? j->dest : b[i].idx;
        const char *name = j->dest_name ? j->dest_name : tv_index_name(dst);
        size_t same = j->dest_name ? n : 0;
        for (size_t k = 0; k < n && !j->dest_name; k++) same += b[k].idx == dst;
        tv_api_err *e = tv_api_err_new(r, TROVE_EUNAVAILSHARDS,
                                       "[%s][0] Not enough active copies to meet shard count of [%s] (have 1, needed "
                                       "%lld). Timeout: [%s], request: [BulkShardRequest [[%s][0]] containing [%zu] "
                                       "requests]",
                                       name, j->wfas_text, (long long)j->wfas, ts, name, same);
        if (!e) return false;
        tv_api_err_meta(e, "index", name);
        tv_api_err_meta(e, "shard", "0");
        tv_api_err_meta(e, "index_uuid", dst ? tv_index_uuid(dst) : "_na_");
        failure *f = &wk->fails[wk->nfails++];
        f->index = name;
        f->id = b[i].id;
        f->cause = e;
        f->status = 503;
        if (*status < 503) *status = 503;
    }
    return true;
}

/* The task's status: the worker's, or with slices their sum and them. */
static void publish(tv_task *task, const tv_bbs_job *j, const tv_bbs_status *st, tv_bbs_status *all, size_t nall,
                    size_t me) {
    if (!all) {
        tv_task_publish(task, st, NULL, 0);
        return;
    }
    all[me] = *st;
    tv_bbs_status lead;
    tv_bbs_status_sum(&lead, all, nall, tv_task_rps(task));
    tv_task_publish(task, &lead, all, nall);
    (void)j;
}

/* One worker over its documents. */
static bool work(tv_req *r, const tv_bbs_job *j, tv_task *task, tv_bbs_doc *docs, size_t n, int64_t max_docs,
                 float share_rps, worker *wk, uint64_t t0, int *status, tv_bbs_status *all, size_t nall,
                 size_t me) {
    tv_bbs_status *st = &wk->st;
    st->total = max_docs >= 0 && (size_t)max_docs < n ? max_docs : (int64_t)n;
    (void)t0;
    int64_t last_size = 0;
    size_t pos = 0;
    for (;;) {
        /* a scroll response arrives: the batch waits lastBatchSize /
         * requests_per_second (at most an hour: throttleWaitTime) */
        float rate = task ? tv_task_rps(task) : j->rps;
        st->rps = isinf(rate) ? rate : rate / (float)(nall ? nall : 1);
        if (!isinf(rate) && last_size > 0) {
            float secs = (float)last_size / rate;
            float ns = 1e9f * secs;
            int64_t delay = ns >= 3.6e12f ? (int64_t)3600000000000 : (int64_t)ns;
            publish(task, j, st, all, nall, me);
            int64_t credited;
            bool ok = tv_task_throttle(task, delay, rate, &st->throttled_until_ns, &credited);
            st->throttled_ns += credited;
            if (!ok) {
                st->canceled = "by user request";
                break;
            }
        }
        const char *why;
        if (tv_task_cancelled(task, &why)) {
            st->canceled = why;
            break;
        }
        size_t end = pos + (size_t)j->scroll_size < n ? pos + (size_t)j->scroll_size : n;
        if (pos >= n) break; /* the empty response: done */
        int64_t done = st->updated + st->created + st->deleted;
        if (max_docs >= 0 && (int64_t)(end - pos) > max_docs - done) end = pos + (size_t)(max_docs - done);
        st->batches++;
        tv_bbs_doc *b = docs + pos;
        size_t bn = end - pos;
        pos += (size_t)j->scroll_size < n - pos ? (size_t)j->scroll_size : n - pos;
        bool stop = false;
        if (j->wfas > 1) {
            if (!unavailable(r, j, task, b, bn, wk, status)) return false;
            stop = true;
        }
        for (size_t i = 0; i < bn && !stop; i++) {
            tv_bbs_outcome oc;
            tv_api_err *e = NULL;
            int rc = j->apply(r, j->ud, &b[i], &oc, &e);
            if (rc == TV_BBS_FATAL) {
                wk->fatal = true;
                return true;
            }
            if (rc == TV_BBS_OOM) return false;
            if (rc == TV_BBS_OK) {
                switch (oc) {
                case TV_BBS_UPDATED: st->updated++; break;
                case TV_BBS_CREATED: st->created++; break;
                case TV_BBS_DELETED: st->deleted++; break;
                case TV_BBS_NOOP: st->noops++; break;
                }
                continue;
            }
            if (rc == TV_BBS_CONFLICT) st->version_conflicts++;
            if (rc == TV_BBS_CONFLICT && j->proceed) continue;
            failure *f = &wk->fails[wk->nfails++];
            f->index = j->dest_name ? j->dest_name : b[i].index;
            f->id = b[i].id;
            f->cause = e;
            f->status = e && e->status ? e->status : 500;
            if (f->status > *status) *status = f->status;
        }
        last_size = (int64_t)bn;
        publish(task, j, st, all, nall, me);
        if (wk->nfails) break; /* failures end the worker */
        if (max_docs >= 0 && st->updated + st->created + st->deleted >= max_docs) break;
    }
    st->throttled_until_ns = 0;
    if (all) all[me] = *st;
    return true;
}

void tv_bbs_run(tv_req *r, tv_task *task, const tv_bbs_job *j, tv_bbs_doc *docs, size_t n, uint64_t t0,
                tv_index *const *refresh, size_t nrefresh) {
    int64_t slices = j->slices < 1 ? 1 : j->slices;
    int status = 200;
    tv_task_set_rps(task, j->rps);
    worker *wk = tv_arena_calloc(&r->arena, (size_t)slices, sizeof *wk);
    tv_bbs_status *all = slices > 1 ? tv_arena_calloc(&r->arena, (size_t)slices, sizeof *all) : NULL;
    tv_bbs_doc *part = tv_arena_calloc(&r->arena, n + 1, sizeof *part);
    size_t *cnt = tv_arena_calloc(&r->arena, (size_t)slices + 1, sizeof *cnt);
    if (!wk || (slices > 1 && !all) || !part || !cnt) return (void)(r->oom = true);
    /* the documents of each slice, in _doc order within it */
    int64_t *which = tv_arena_calloc(&r->arena, n + 1, sizeof *which);
    if (!which) return (void)(r->oom = true);
    for (size_t i = 0; i < n && slices > 1; i++) {
        tv_shard_route rt;
        tv_shard_route_of(docs[i].idx, &rt);
        uint32_t sh = tv_shard_id(&rt, docs[i].id, docs[i].id_len, docs[i].routing, docs[i].routing_len);
        which[i] = slice_of(docs[i].id, docs[i].id_len, sh, rt.num_shards ? rt.num_shards : 1, slices);
    }
    size_t k = 0;
    for (int64_t s = 0; s < slices; s++) {
        size_t from = k;
        for (size_t i = 0; i < n; i++)
            if (which[i] == s) part[k++] = docs[i];
        cnt[s] = k - from;
    }
    float share = isinf(j->rps) ? INFINITY : j->rps / (float)slices;
    size_t off = 0;
    for (int64_t s = 0; s < slices; s++) {
        tv_bbs_status_init(&wk[s].st, slices > 1 ? s : -1, share);
        wk[s].fails = tv_arena_calloc(&r->arena, cnt[s] + 1, sizeof *wk[s].fails);
        if (!wk[s].fails) return (void)(r->oom = true);
        if (all) all[s] = wk[s].st;
    }
    for (int64_t s = 0; s < slices; s++) {
        int64_t md = j->max_docs < 0 ? -1 : slices > 1 ? j->max_docs / slices : j->max_docs;
        if (!work(r, j, task, part + off, cnt[s], md, share, &wk[s], t0, &status, all, all ? (size_t)slices : 0,
                  (size_t)s))
            return (void)(r->oom = true);
        if (wk[s].fatal) return; /* answered */
        off += cnt[s];
    }
    if (j->refresh)
        for (size_t i = 0; i < nrefresh; i++) tv_index_refresh(refresh[i]);
    tv_bbs_status lead;
    if (all)
        tv_bbs_status_sum(&lead, all, (size_t)slices, j->rps);
    else
        lead = wk[0].st;
    tv_task_publish(task, &lead, all, all ? (size_t)slices : 0);
    tv_jw *rw = tv_req_json(r, status);
    tv_jw_obj_begin(rw);
    tv_jw_keyz(rw, "took");
    tv_jw_uint(rw, (tv_mono_ns() - t0) / 1000000);
    tv_jw_keyz(rw, "timed_out");
    tv_jw_bool(rw, false);
    tv_bbs_status_write(rw, &lead, j->upd_field, j->cre_field, all, all ? (size_t)slices : 0);
    tv_jw_keyz(rw, "failures");
    tv_jw_arr_begin(rw);
    for (int64_t s = 0; s < slices; s++)
        for (size_t i = 0; i < wk[s].nfails; i++) {
            failure *f = &wk[s].fails[i];
            tv_jw_obj_begin(rw);
            tv_jw_keyz(rw, "index");
            tv_jw_strz(rw, f->index);
            tv_jw_keyz(rw, "id");
            tv_jw_strz(rw, f->id);
            tv_jw_keyz(rw, "cause");
            tv_jw_obj_begin(rw);
            if (f->cause) tv_api_err_write_inner(rw, f->cause, false);
            tv_jw_obj_end(rw);
            tv_jw_keyz(rw, "status");
            tv_jw_int(rw, f->status);
            tv_jw_obj_end(rw);
        }
    tv_jw_arr_end(rw);
    tv_jw_obj_end(rw);
}

bool tv_bbs_parse_wfas(tv_req *r, tv_bbs_job *j) {
    const char *v = tv_req_param(r, "wait_for_active_shards");
    j->wfas = 1;
    j->wfas_text = "1";
    j->timeout_ms = 60000; /* the bulk's default timeout */
    const char *to = tv_req_param(r, "timeout");
    if (to && !tv_api_parse_time_ms(r, "timeout", to, &j->timeout_ms)) return false;
    if (!v) return true;
    j->wfas_text = v;
    if (strcmp(v, "all") == 0) {
        j->wfas = -1; /* resolved against the written index */
        return true;
    }
    int64_t n;
    if (!tv_parse_i64(v, strlen(v), &n) || n > INT32_MAX || n < INT32_MIN)
        return tv_req_fail(r, TROVE_EARG, "cannot parse ActiveShardCount[%s]", v);
    if (n < 0 && n != -1 && n != -2) return tv_req_fail(r, TROVE_EARG, "shard count cannot be a negative value");
    j->wfas = n == -1 ? -1 : n == -2 ? 1 : n;
    return true;
}

bool tv_bbs_search(tv_req *r, const tv_index_list *l, tv_search_target **tp, size_t *ntp, const tv_json *sbody,
                   bool url_query, bool source, bool version, tv_buf *out, tv_bbs_doc **docs, size_t *nd) {
    tv_search_params p;
    tv_search_params_init(&p);
    tv_api_search_limits(r, &p);
    if (url_query) {
        p.q = tv_req_param(r, "q");
        p.df = tv_req_param(r, "df");
        p.default_operator = tv_req_param(r, "default_operator");
        p.analyzer = tv_req_param(r, "analyzer");
    }
    /* AbstractAsyncBulkByScrollAction: _doc order unless the body sorts */
    if (!tv_json_get(sbody, "sort")) p.sort = "_doc";
    p.seq_no_primary_term = true;
    p.version = version;
    p.source = source ? "true" : "false";
    p.track_total_hits = "true";
    p.body_text = r->body;
    p.body_text_len = r->body_len;
    uint64_t docs_n = 0;
    size_t nt = 0;
    tv_search_target *t = tv_api_targets(r, l, &nt);
    *tp = t;
    *ntp = nt;
    for (size_t i = 0; i < nt; i++) {
        t[i].max_result_window = INT64_MAX;
        docs_n += t[i].snap->num_docs;
    }
    if (r->oom) return false;
    p.size = (int64_t)docs_n;
    if (p.size > INT32_MAX) p.size = INT32_MAX;
    tv_error err;
    tv_error_clear(&err);
    tv_jw w;
    tv_jw_init(&w, out, false);
    tv_status st = tv_search_run(t, nt, sbody, &p, &r->arena, &w, &err);
    if (st == TROVE_ENOMEM || out->oom) return (r->oom = true), false;
    if (st != TROVE_OK) { /* answered as _search answers it */
        tv_api_search_answer(r, t, l->items, nt, sbody, &p, NULL, NULL, false);
        return false;
    }
    tv_json *res = NULL;
    if (tv_json_parse(&r->arena, out->data, out->len, &res, NULL) != TROVE_OK) return (r->oom = true), false;
    return read_docs(r, tv_json_get(tv_json_get(res, "hits"), "hits"), out->data, out->len, t, l, nt, docs, nd);
}

bool tv_bbs_check_source(tv_req *r, const tv_json *sbody) {
    tv_search_params p;
    tv_search_params_init(&p);
    tv_api_search_limits(r, &p);
    p.body_text = r->body;
    p.body_text_len = r->body_len;
    p.size = 0;
    tv_error err;
    tv_error_clear(&err);
    tv_buf out;
    tv_buf_init(&out);
    tv_jw w;
    tv_jw_init(&w, &out, false);
    tv_status st = tv_search_run(NULL, 0, sbody, &p, &r->arena, &w, &err);
    tv_buf_fini(&out);
    if (st == TROVE_OK) return true;
    if (st == TROVE_ENOMEM) return (r->oom = true), false;
    tv_api_search_answer(r, NULL, NULL, 0, sbody, &p, NULL, NULL, false);
    return false;
}

/* ---- the script of _update_by_query (AbstractAsyncBulkByScrollAction's
 * ScriptApplier): ctx is {_index, _id, _version, _routing, _source, op:
 * "index"} with _source read into HashMaps (as IndexRequest.sourceAsMap
 * reads it, so a re-indexed document's keys come out in HashMap order);
 * afterwards op and _source must still be there, _index, _id, _version
 * and _routing unchanged, op one of noop, index, delete, and nothing else
 * added to ctx. */


static bool ctx_text(tv_req *r, tv_sv *ctx, const char *k, const char *s, size_t n) {
    tv_sv v = tv_sv_null();
    if (s && !tv_sv_string(&r->arena, s, n, &v)) return (r->oom = true), false;
    if (!tv_sv_map_put_str(&r->arena, ctx->v.map, k, strlen(k), v)) return (r->oom = true), false;
    return true;
}

/* Reindexer's ReindexScriptApplier: what a reindex script may change in
 * ctx (k: 0 _index, 1 _id, 2 _version, 3 _routing) becomes the dest
 * request's. A cleared _id (an auto-generated one) and a set _version are
 * refused as not supported. */
static bool reindex_changed(tv_req *r, int k, const tv_sv *nv, tv_bbs_act *act, tv_api_err **e) {
    tv_buf b;
    tv_buf_init(&b);
    if (nv->type != TV_SV_NULL) tv_sv_to_string(&b, nv); /* Objects.toString */
    char *text = nv->type == TV_SV_NULL ? NULL : tv_arena_strndup(&r->arena, b.data ? b.data : "", b.len);
    bool oom = b.oom || (nv->type != TV_SV_NULL && !text);
    tv_buf_fini(&b);
    if (oom) return !(r->oom = true);
    switch (k) {
    case 0:
        if (!text) {
            *e = tv_api_err_new(r, TROVE_ENULLPOINTER, "Can't reindex without a destination index!");
            return false;
        }
        act->index = text;
        return true;
    case 1:
        if (!text) {
            *e = tv_api_err_new(r, TROVE_EUNSUPPORTED,
                                "trove does not support a reindex script that clears [_id] (an auto-generated id)");
            return false;
        }
        act->id = text;
        return true;
    case 2:
        if (text) {
            *e = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support a reindex script that sets [_version]");
            return false;
        }
        act->version_cleared = true; /* internal versioning, any version */
        return true;
    default:
        act->routing_set = true;
        act->routing = text;
        return true;
    }
}

bool tv_bbs_script(tv_req *r, tv_api_script *as, tv_script **sc, const tv_bbs_doc *d, bool reindex, tv_bbs_act *act,
                   tv_api_err **e) {
    *e = NULL;
    memset(act, 0, sizeof *act);
    if (!*sc) {
        *sc = tv_api_script_compile(r, as, TV_SCRIPT_G_CTX, e);
        if (!*sc) return false;
    }
    tv_sv ctx, source = tv_sv_null();
    if (!d->src) {
        *e = tv_api_err_new(r, TROVE_EARG, "[%s][%s] didn't store _source", d->index, d->id);
        return false;
    }
    tv_json *src = NULL;
    if (tv_json_parse(&r->arena, d->src, d->src_len, &src, NULL) != TROVE_OK) return (r->oom = true), false;
    if (!tv_sv_map_new(&r->arena, false, &ctx)) return (r->oom = true), false;
    {
        tv_status st = tv_sv_from_json(&r->arena, src, false, &source);
        if (st == TROVE_ENOMEM) return (r->oom = true), false;
        if (st != TROVE_OK) {
            *e = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support integers above Long.MAX_VALUE in scripts");
            return false;
        }
    }
    tv_sv version = tv_sv_long(d->version);
    if (!ctx_text(r, &ctx, "_index", d->index, strlen(d->index)) || !ctx_text(r, &ctx, "_id", d->id, d->id_len) ||
        !tv_sv_map_put_str(&r->arena, ctx.v.map, "_version", 8, version) ||
        !ctx_text(r, &ctx, "_routing", d->routing, d->routing_len) ||
        !tv_sv_map_put_str(&r->arena, ctx.v.map, "_source", 7, source))
        return (r->oom = true), false;
    tv_sv op;
    if (!tv_sv_string(&r->arena, "index", 5, &op) || !tv_sv_map_put_str(&r->arena, ctx.v.map, "op", 2, op))
        return (r->oom = true), false;
    tv_sv oldx = *tv_sv_map_get_str(ctx.v.map, "_index", 6), oldid = *tv_sv_map_get_str(ctx.v.map, "_id", 3);
    tv_sv oldr = *tv_sv_map_get_str(ctx.v.map, "_routing", 8);
    tv_script_env env;
    memset(&env, 0, sizeof env);
    env.arena = &r->arena;
    env.ctx = ctx;
    if (!tv_api_script_params(r, as, &env.params)) {
        if (!r->oom)
            *e = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support integers above Long.MAX_VALUE in script params");
        return false;
    }
    tv_script_error err;
    tv_sv res;
    if (tv_script_run(*sc, &env, &res, &err) != TROVE_OK) {
        *e = tv_api_script_error(r, as, &err);
        return false;
    }
    tv_sv v;
    if (!tv_sv_map_remove_str(ctx.v.map, "op", 2, &v) || v.type == TV_SV_NULL) {
        *e = tv_api_err_new(r, TROVE_EARG, "Script cleared operation type");
        return false;
    }
    if (v.type != TV_SV_STRING) {
        *e = tv_api_err_new(r, TROVE_ECLASSCAST, "class %s cannot be cast to class java.lang.String", "java.lang.Object");
        return false;
    }
    const tv_sv_str *nop = v.v.s;
    tv_sv nsrc;
    if (!tv_sv_map_remove_str(ctx.v.map, "_source", 7, &nsrc) || nsrc.type == TV_SV_NULL) {
        *e = tv_api_err_new(r, TROVE_EARG, "Script cleared source");
        return false;
    }
    static const char *const fields[] = {"_index", "_id", "_version", "_routing"};
    const tv_sv olds[] = {oldx, oldid, version, oldr};
    for (int k = 0; k < 4; k++) {
        tv_sv nv = tv_sv_null();
        tv_sv_map_remove_str(ctx.v.map, fields[k], strlen(fields[k]), &nv);
        if (tv_sv_key_equals(&olds[k], &nv)) continue;
        if (!reindex) {
            *e = tv_api_err_new(r, TROVE_EARG, "Modifying [%s] not allowed", fields[k]);
            return false;
        }
        if (!reindex_changed(r, k, &nv, act, e)) return false;
    }
    char lower[64];
    size_t nl = nop->len < sizeof lower - 1 ? nop->len : sizeof lower - 1;
    for (size_t k = 0; k < nl; k++) lower[k] = (char)(nop->s[k] >= 'A' && nop->s[k] <= 'Z' ? nop->s[k] + 32 : nop->s[k]);
    lower[nl] = 0;
    if (strcmp(lower, "noop") == 0) {
        act->kind = TV_BBS_ACT_NOOP;
        return true;
    }
    if (strcmp(lower, "delete") == 0) {
        act->kind = TV_BBS_ACT_DELETE;
        return true;
    }
    if (strcmp(lower, "index") != 0 || nop->len >= sizeof lower) {
        *e = tv_api_err_new(r, TROVE_EARG, "Operation type [%.*s] not allowed, only [noop, index, delete] are allowed",
                            (int)nop->len, nop->s);
        return false;
    }
    if (tv_sv_map_size(ctx.v.map)) {
        tv_buf b;
        tv_buf_init(&b);
        uint32_t it = 0, cnt = 0, n = tv_sv_map_size(ctx.v.map);
        const tv_sv *k, *x;
        const char **names = tv_arena_alloc(&r->arena, (n + 1) * sizeof *names);
        uint32_t *ord = tv_arena_alloc(&r->arena, (n + 1) * sizeof *ord);
        if (!names || !ord) return (r->oom = true), false;
        while (tv_sv_map_next(ctx.v.map, &it, &k, &x)) /* ctx's keys are strings */
            names[cnt++] = k->type == TV_SV_STRING ? k->v.s->s : "";
        tv_java_hashmap_order(names, cnt, ord);
        for (uint32_t q = 0; q < cnt; q++) {
            if (q) tv_buf_putc(&b, ',');
            tv_buf_puts(&b, names[ord[q]]);
        }
        *e = tv_api_err_new(r, TROVE_EARG, "Invalid fields added to context [%s]", b.data ? b.data : "");
        tv_buf_fini(&b);
        return false;
    }
    if (nsrc.type != TV_SV_MAP) {
        *e = tv_api_err_new(r, TROVE_ECLASSCAST, "class %s cannot be cast to class java.util.Map", "java.lang.Object");
        return false;
    }
    tv_buf b;
    tv_buf_init(&b);
    tv_jw jw;
    tv_jw_init(&jw, &b, false);
    tv_sv_write_json(&jw, &nsrc);
    char *c = b.oom ? NULL : tv_arena_memdup(&r->arena, b.data ? b.data : "", b.len);
    act->len = b.len;
    tv_buf_fini(&b);
    if (!c) return (r->oom = true), false;
    act->kind = TV_BBS_ACT_INDEX;
    act->src = c;
    return true;
}

/* ---------------------------------------------------------- by query */

typedef struct byq_ctx {
    bool update;
    tv_api_script *as; /* the script (NULL: none) */
    tv_script *sc;     /* ... compiled at the first document (one reference) */
    const char *pipeline; /* _update_by_query's ?pipeline, or NULL */
    tv_ingest *ing;       /* the pipelines read, once one runs */
} byq_ctx;

/* The index request an update by query writes goes through the ingest
 * pipelines (the request's, else the index's default, then its final) as
 * a bulk's does. TV_BBS_OK with the source replaced, or *dropped set. */
static int byq_ingest(tv_req *r, byq_ctx *c, const tv_bbs_doc *d, const char **src, size_t *len, bool *dropped,
                      tv_api_err **err) {
    *dropped = false;
    const char *name = tv_index_name(d->idx);
    if (!tv_ingest_has_pipelines(r, c->pipeline, name)) return TV_BBS_OK;
    if (!c->ing && !(c->ing = tv_ingest_new(r))) return TV_BBS_OOM;
    char *id = tv_arena_strndup(&r->arena, d->id, d->id_len);
    char *rt = d->routing ? tv_arena_strndup(&r->arena, d->routing, d->routing_len) : NULL;
    if (!id || (d->routing && !rt)) return TV_BBS_OOM;
    tv_ingest_doc in = {.index = name, .id = id, .routing = rt, .has_version = true, .version = d->version,
                        .version_type = "internal", .src = *src, .src_len = *len};
    if (!tv_ingest_write(c->ing, c->pipeline, &in, err)) return r->oom ? TV_BBS_OOM : TV_BBS_FAILED;
    if (in.dropped) {
        *dropped = true;
        return TV_BBS_OK;
    }
    if (strcmp(in.index, name) != 0 || !in.id || strcmp(in.id, id) != 0 ||
        (in.routing ? !rt || strcmp(in.routing, rt) != 0 : rt != NULL)) {
        tv_req_fail(r, TROVE_EUNSUPPORTED,
                    "trove does not support an ingest pipeline that changes _index, _id or _routing in _update_by_query");
        return TV_BBS_FATAL;
    }
    *src = in.src;
    *len = in.src_len;
    return TV_BBS_OK;
}

static int byq_apply(tv_req *r, void *ud, const tv_bbs_doc *d, tv_bbs_outcome *oc, tv_api_err **err) {
    byq_ctx *c = ud;
    tv_bbs_act act = {.kind = TV_BBS_ACT_INDEX};
    if (c->as) {
        tv_api_err *se = NULL;
        if (!tv_bbs_script(r, c->as, &c->sc, d, false, &act, &se)) {
            if (r->oom) return TV_BBS_OOM;
            if (se) tv_req_error(r, se);
            return TV_BBS_FATAL;
        }
        if (act.kind == TV_BBS_ACT_NOOP) {
            *oc = TV_BBS_NOOP;
            return TV_BBS_OK;
        }
    }
    tv_write_opts o;
    tv_write_opts_init(&o);
    o.if_seq_no = d->seq_no;
    o.if_primary_term = d->primary_term;
    o.routing = d->routing;
    o.routing_len = d->routing_len;
    tv_write_result wr;
    tv_error we;
    tv_error_clear(&we);
    tv_status ws;
    if (c->as && act.kind == TV_BBS_ACT_DELETE) {
        ws = tv_index_delete(d->idx, d->id, d->id_len, &o, &wr, &we);
        *oc = TV_BBS_DELETED;
    } else if (c->as || c->update) {
        const char *src = c->as ? act.src : d->src;
        size_t len = c->as ? act.len : d->src_len;
        if (!c->as && !d->src) { /* AbstractAsyncBulkByScrollAction.buildBulk */
            tv_req_fail(r, TROVE_EARG, "[%s][%s] didn't store _source", d->index, d->id);
            return TV_BBS_FATAL;
        }
        bool dropped;
        int ir = byq_ingest(r, c, d, &src, &len, &dropped, err);
        if (ir != TV_BBS_OK) return ir;
        if (dropped) {
            *oc = TV_BBS_NOOP;
            return TV_BBS_OK;
        }
        ws = tv_index_put(d->idx, d->id, d->id_len, src, len, &o, &wr, &we);
        *oc = TV_BBS_UPDATED;
    } else {
        ws = tv_index_delete(d->idx, d->id, d->id_len, &o, &wr, &we);
        *oc = TV_BBS_DELETED;
    }
    if (ws == TROVE_OK) return TV_BBS_OK;
    if (ws == TROVE_ENOMEM) return TV_BBS_OOM;
    *err = tv_api_write_error(r, &we, d->idx);
    if (!*err) return TV_BBS_OOM;
    return ws == TROVE_ECONFLICT ? TV_BBS_CONFLICT : TV_BBS_FAILED;
}

/* "[a, b]" (Arrays.toString of the search's indices). */
const char *tv_bbs_indices_desc(tv_req *r, const char *expr) {
    if (!expr || !*expr) return "[all indices]";
    const char **parts;
    size_t n = tv_split_commas(&r->arena, expr, &parts);
    tv_buf b;
    tv_buf_init(&b);
    tv_buf_putc(&b, '[');
    for (size_t i = 0; i < n; i++) tv_buf_printf(&b, "%s%s", i ? ", " : "", parts[i]);
    tv_buf_putc(&b, ']');
    const char *s = b.oom ? NULL : tv_arena_strndup(&r->arena, b.data, b.len);
    tv_buf_fini(&b);
    if (!s) r->oom = true;
    return s ? s : "";
}

int64_t tv_bbs_auto_slices(const tv_index_list *l) {
    int64_t m = 0;
    for (size_t i = 0; i < l->len; i++) {
        tv_shard_route rt;
        tv_shard_route_of(l->items[i], &rt);
        if (!m || (int64_t)rt.num_shards < m) m = rt.num_shards;
    }
    return m ? m : 1;
}

static void by_query(tv_req *r, bool update) {
    if (tv_task_resume(r)) return;
    uint64_t t0 = tv_mono_ns();
    const char *api = update ? "_update_by_query" : "_delete_by_query";
    bool wfc, refresh = false, iu, ani;
    const char *rv = tv_req_param(r, "refresh");
    if (rv && !tv_req_param_bool(r, "refresh", false, &refresh)) return;
    byq_opts bo;
    if (!parse_options(r, api, update, &bo)) return;
    if (!tv_req_param_bool(r, "wait_for_completion", true, &wfc)) return;
    if (!tv_req_param_bool(r, "ignore_unavailable", false, &iu)) return;
    if (!tv_req_param_bool(r, "allow_no_indices", true, &ani)) return;
    tv_bbs_job j;
    memset(&j, 0, sizeof j);
    if (!tv_bbs_parse_wfas(r, &j)) return;
    if (tv_req_param(r, "lenient") || tv_req_param(r, "analyze_wildcard"))
        return (void)tv_req_fail(r, TROVE_EUNSUPPORTED,
                                 "trove does not support the [%s] parameter of %s",
                                 tv_req_param(r, "lenient") ? "lenient" : "analyze_wildcard", api);
    /* the request runs as a task: on a thread of its own when nobody waits
     * for it, or when it would sleep on a loop that must not */
    tv_task *task = tv_task_current();
    bool mine = false;
    if (!task) {
        const char *action = update ? "indices:data/write/update/byquery" : "indices:data/write/delete/byquery";
        const char *ix = tv_bbs_indices_desc(r, r->p_index);
        const char *desc = tv_arena_sprintf(&r->arena, "%s %s", update ? "update-by-query" : "delete-by-query", ix);
        if (!desc) return (void)(r->oom = true);
        if (!wfc || (r->nowait && !isinf(bo.rps))) {
            tv_task_spawn(r, action, desc, !wfc);
            return;
        }
        if (!(task = tv_task_begin(r, action, desc))) return;
        mine = true;
    }

    /* the snapshot every decision is made against */
    tv_index_list l;
    memset(&l, 0, sizeof l);
    size_t nt = 0;
    tv_search_target *t = NULL;
    tv_buf out;
    tv_buf_init(&out);
    tv_bbs_doc *dv;
    size_t nd;
    if (!tv_node_resolve(r, r->p_index, iu, ani, &l)) goto out;
    if (!tv_bbs_search(r, &l, &t, &nt, bo.sbody, true, update, bo.has_script, &out, &dv, &nd)) goto done;
    byq_ctx c = {update, bo.has_script ? &bo.script : NULL, NULL, update ? tv_req_param(r, "pipeline") : NULL, NULL};
    j.proceed = bo.proceed;
    j.scroll_size = bo.scroll_size;
    j.max_docs = bo.max_docs;
    j.slices = bo.slices ? bo.slices : tv_bbs_auto_slices(&l);
    j.rps = bo.rps;
    j.refresh = refresh;
    j.apply = byq_apply;
    j.ud = &c;
    j.upd_field = update;
    if (j.wfas < 0) { /* all: every copy of the (first) index */
        j.wfas = 1;
        for (size_t i = 0; i < l.len; i++)
            if (tv_index_shard_total(l.items[i]) > j.wfas) j.wfas = tv_index_shard_total(l.items[i]);
    }
    tv_bbs_run(r, task, &j, dv, nd, t0, l.items, l.len);
    tv_script_release(c.sc);
    tv_ingest_free(c.ing);
done:
    for (size_t i = 0; i < nt; i++) tv_snapshot_release(t[i].snap);
out:
    tv_buf_fini(&out);
    tv_index_list_release(&l);
    if (mine) tv_task_end(r, task);
}

void tv_h_delete_by_query(tv_req *r) { by_query(r, false); }
void tv_h_update_by_query(tv_req *r) { by_query(r, true); }
