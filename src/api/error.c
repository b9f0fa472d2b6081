/*
 * error.c — OpenSearch's error envelope.
 *
 * A failed request answers
 *   {"error":{"root_cause":[{type,reason,meta..}],"type":..,"reason":..,
 *             meta..,extra..,"caused_by":{..}},"status":N}
 * which is what OpenSearchException.generateFailureXContent writes:
 * root causes are found by descending through causes while they are
 * OpenSearchException subclasses (a Jackson or JDK exception ends the
 * descent, and then the outer exception is the root cause); root causes
 * are printed without their caused_by.
 *
 * Metadata ("index", "index_uuid", "shard", "resource.type", ...) lives in
 * OpenSearch in a java.util.HashMap keyed "opensearch.<key>", so its print
 * order is the HashMap's bucket order. We reproduce that order exactly:
 * Java's String.hashCode, the spread (h ^ h >>> 16), and a 16-bucket table
 * (the map never holds more than a handful of entries), ties in insertion
 * order. Hard-coding orders per exception was rejected: every new
 * exception would need its own order found by hand.
 *
 * tv_error (from lower layers) carries a status code whose OpenSearch type
 * comes from trove.h's table; tv_api_err_from() maps it, adding the
 * metadata OpenSearch attaches to that exception type. Every type here is
 * a code of that table: its string, whether it is an OpenSearchException
 * and its Java class come from there.
 */
#include <stdio.h>

#include "api.h"

bool tv_api_err_os(const tv_api_err *e) { return e->wrapper || tv_status_os(e->type); }

void tv_api_err_meta(tv_api_err *e, const char *key, const char *val) {
    if (e->nmeta >= TV_API_ERR_MAX_META) return;
    e->meta_key[e->nmeta] = key;
    e->meta_val[e->nmeta] = val;
    e->nmeta++;
}

static void write_meta(tv_jw *w, const tv_api_err *e) {
    int order[TV_API_ERR_MAX_META];
    unsigned bucket[TV_API_ERR_MAX_META];
    char full[128];
    for (int i = 0; i < e->nmeta; i++) {
        snprintf(full, sizeof full, "opensearch.%s", e->meta_key[i]);
        bucket[i] = tv_java_hm_bucket(full, strlen(full), (size_t)e->nmeta);
        order[i] = i;
    }
    /* stable insertion sort by bucket */
    for (int i = 1; i < e->nmeta; i++) {
        int x = order[i], j = i - 1;
        while (j >= 0 && bucket[order[j]] > bucket[x]) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = x;
    }
    for (int i = 0; i < e->nmeta; i++) {
        tv_jw_keyz(w, e->meta_key[order[i]]);
        tv_jw_strz(w, e->meta_val[order[i]]);
    }
}

/* Jackson throws JsonEOFException (a JsonParseException subclass, named
 * json_e_o_f_exception by OpenSearch) for every "Unexpected end-of-input"
 * failure; the JSON reader reports them all as one status, so the name is
 * chosen here, where every path that prints a JSON error meets. */
static tv_status print_type(const tv_api_err *e) {
    if (e->reason && e->type == TROVE_EJSON && strncmp(e->reason, "Unexpected end-of-input", 23) == 0)
        return TROVE_EJSONEOF;
    return e->type;
}

/* ---- error_trace=true: "stack_trace" (an emulation).
 *
 * OpenSearch adds "stack_trace" to every exception object when the request
 * has error_trace=true: Java's printStackTrace text, i.e. the exception's
 * toString, its frames ("\tat ..."), then "Caused by: " + each cause's
 * toString and frames. trove has no Java frames and does not invent any:
 * its stack_trace is the toString lines alone, built as Java builds them —
 * OpenSearchException.toString prefixes "[index/uuid]" (just "[index]" for
 * the "_na_" uuid) and "[[index][shard]]" from the metadata, then
 * detailedMessage ("SimpleName[message]", or for a chain
 * "A[m]; nested: B[n];"); other exceptions print their qualified class name
 * ": message". Class names come from the snake_case type (the inverse of
 * OpenSearch's getExceptionName); the JDK/Jackson ones trove reports have
 * their packages in a small table. The flag is per request and per thread
 * (set by the router around the handler), because error objects are
 * written from many places that have no request at hand. */
static _Thread_local bool t_error_trace;

bool tv_api_error_trace_set(bool on) {
    bool prev = t_error_trace;
    t_error_trace = on;
    return prev;
}

static const char *meta_get(const tv_api_err *e, const char *key) {
    for (int i = 0; i < e->nmeta; i++)
        if (strcmp(e->meta_key[i], key) == 0) return e->meta_val[i];
    return NULL;
}

/* Java's toString of one exception of the chain starting at e. */
static void java_to_string(tv_buf *b, const tv_api_err *e) {
    tv_status type = print_type(e);
    if (tv_api_err_os(e)) {
        const char *index = meta_get(e, "index"), *uuid = meta_get(e, "index_uuid"),
                   *shard = meta_get(e, "shard");
        if (index) {
            if (uuid && strcmp(uuid, "_na_") != 0)
                tv_buf_printf(b, "[%s/%s]", index, uuid);
            else
                tv_buf_printf(b, "[%s]", index);
            if (shard) tv_buf_printf(b, "[[%s][%s]]", index, shard);
            tv_buf_append(b, " ", 1);
        }
        if (!e->cause) {
            tv_status_simple_name(b, type);
            tv_buf_printf(b, "[%s]", e->reason ? e->reason : "null");
            return;
        }
        for (const tv_api_err *x = e; x; x = x->cause) {
            tv_status_simple_name(b, print_type(x));
            if (x->reason) tv_buf_printf(b, "[%s]", x->reason);
            tv_buf_append(b, x->cause ? "; nested: " : ";", x->cause ? 10 : 1);
        }
        return;
    }
    tv_status_java_name(b, type);
    if (e->reason) tv_buf_printf(b, ": %s", e->reason);
}

static void write_stack_trace(tv_jw *w, const tv_api_err *e) {
    tv_buf b;
    tv_buf_init(&b);
    java_to_string(&b, e);
    for (const tv_api_err *c = e->cause; c; c = c->cause) {
        tv_buf_append(&b, "\nCaused by: ", 12);
        java_to_string(&b, c);
    }
    tv_jw_keyz(w, "stack_trace");
    if (b.oom)
        w->out->oom = true;
    else
        tv_jw_str(w, b.data ? b.data : "", b.len);
    tv_buf_fini(&b);
}

void tv_api_err_write_inner(tv_jw *w, const tv_api_err *e, bool skip_cause) {
    tv_jw_keyz(w, "type");
    const char *type = trove_status_type(print_type(e));
    tv_jw_strz(w, type[0] ? type : trove_status_type(TROVE_EEXCEPTION));
    tv_jw_keyz(w, "reason");
    if (e->reason)
        tv_jw_strz(w, e->reason);
    else
        tv_jw_null(w);
    write_meta(w, e);
    if (e->line > 0) {
        tv_jw_keyz(w, "line");
        tv_jw_int(w, e->line);
        tv_jw_keyz(w, "col");
        tv_jw_int(w, e->col);
    }
    if (e->extra) e->extra(w, e);
    if (!skip_cause && e->cause) {
        tv_jw_keyz(w, "caused_by");
        tv_jw_obj_begin(w);
        tv_api_err_write_inner(w, e->cause, false);
        tv_jw_obj_end(w);
    }
    if (t_error_trace) write_stack_trace(w, e);
}

static const tv_api_err *root_cause(const tv_api_err *e) {
    while (tv_api_err_os(e) && e->cause && tv_api_err_os(e->cause)) e = e->cause;
    return e;
}

void tv_api_err_write_failure(tv_jw *w, const tv_api_err *e) {
    tv_jw_keyz(w, "error");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "root_cause");
    tv_jw_arr_begin(w);
    if (e->root_causes) {
        for (size_t i = 0; i < e->nroot_causes; i++) {
            tv_jw_obj_begin(w);
            tv_api_err_write_inner(w, root_cause(e->root_causes[i]), true);
            tv_jw_obj_end(w);
        }
    } else {
        tv_jw_obj_begin(w);
        tv_api_err_write_inner(w, root_cause(e), true);
        tv_jw_obj_end(w);
    }
    tv_jw_arr_end(w);
    tv_api_err_write_inner(w, e, false);
    tv_jw_obj_end(w);
}

void tv_req_error(tv_req *r, const tv_api_err *e) {
    tv_jw *w = tv_req_json(r, e->status ? e->status : 500);
    tv_jw_obj_begin(w);
    tv_api_err_write_failure(w, e);
    tv_jw_keyz(w, "status");
    tv_jw_int(w, r->status);
    tv_jw_obj_end(w);
}

static tv_api_err *err_new(tv_req *r) {
    tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
    if (!e) r->oom = true;
    return e;
}

static tv_api_err *err_vnew(tv_req *r, tv_status code, const char *fmt, va_list ap) {
    tv_api_err *e = err_new(r);
    if (!e) return NULL;
    char tmp[2048];
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    e->type = code;
    e->status = trove_status_http(code);
    e->reason = tv_arena_strndup(&r->arena, tmp, strlen(tmp));
    if (!e->reason) {
        r->oom = true;
        return NULL;
    }
    return e;
}

tv_api_err *tv_api_err_new(tv_req *r, tv_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tv_api_err *e = err_vnew(r, code, fmt, ap);
    va_end(ap);
    return e;
}

bool tv_req_fail(tv_req *r, tv_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tv_api_err *e = err_vnew(r, code, fmt, ap);
    va_end(ap);
    if (e) tv_req_error(r, e);
    return false;
}

tv_api_err *tv_api_err_no_index(tv_req *r, const char *name) {
    tv_api_err *e = err_new(r);
    if (!e) return NULL;
    tv_failed_index f;
    if (tv_durable_failed(r->node, name, &f)) { /* on disk, but not read back at open */
        e->type = TROVE_ECORRUPT;
        e->reason = tv_arena_sprintf(&r->arena, "index [%s] was not recovered from its data directory: %s",
                                     name, f.reason);
        e->status = trove_status_http(TROVE_ECORRUPT);
        tv_api_err_meta(e, "index", name);
        char *u = tv_arena_strndup(&r->arena, f.uuid, strlen(f.uuid));
        tv_api_err_meta(e, "index_uuid", u ? u : "_na_");
        if (!e->reason || !u) r->oom = true;
        return e;
    }
    e->type = TROVE_ENOINDEX;
    e->reason = tv_arena_sprintf(&r->arena, "no such index [%s]", name);
    e->status = trove_status_http(TROVE_ENOINDEX);
    tv_api_err_meta(e, "index", name);
    tv_api_err_meta(e, "index_uuid", "_na_");
    tv_api_err_meta(e, "resource.type", "index_or_alias");
    tv_api_err_meta(e, "resource.id", name);
    if (!e->reason) r->oom = true;
    return e;
}

/* ---- tv_error's type overrides and deeper cause levels (err->type,
 * err->cause_type, err->more[]): exceptions without a status of their own
 * (input_coercion_exception, date_time_parse_exception as a third cause,
 * ...) keep OpenSearch's names and nesting. */
static tv_status level_type(tv_status code, tv_status type) {
    tv_status t = type != TROVE_OK ? type : code;
    return trove_status_type(t)[0] ? t : TROVE_EEXCEPTION;
}

static void err_more_causes(tv_req *r, const tv_error *err, tv_api_err *parent) {
    for (int i = 0; i < TV_ERROR_MORE_CAUSES && err->more[i].code != TROVE_OK; i++) {
        tv_api_err *c = err_new(r);
        if (!c) return;
        const tv_error_level *m = &err->more[i];
        c->type = level_type(m->code, m->type);
        c->reason = tv_arena_strndup(&r->arena, m->reason, strlen(m->reason));
        if (!c->reason) r->oom = true;
        c->status = trove_status_http(m->code);
        parent->cause = c;
        parent = c;
    }
}

tv_api_err *tv_api_err_from(tv_req *r, const tv_error *err, tv_index *idx) {
    tv_api_err *e = err_new(r);
    if (!e) return NULL;
    tv_status code = err->code;
    if (code == TROVE_OK) code = TROVE_EINTERNAL;
    e->type = level_type(code, err->type);
    e->reason = tv_arena_strndup(&r->arena, err->reason, strlen(err->reason));
    if (!e->reason) r->oom = true;
    e->status = trove_status_http(code);
    if (code == TROVE_EPARSE && err->line > 0) {
        e->line = err->line;
        e->col = err->col;
    }
    const char *iname = err->index;
    /* SearchException and its subclasses keep their shard target but print no metadata */
    bool no_meta = err->type == TROVE_ESEARCH || err->type == TROVE_EFETCHPHASE;
    if (tv_status_os(e->type) && iname[0] && !no_meta) {
        const char *uuid = "_na_";
        if (idx && strcmp(tv_index_name(idx), iname) == 0) uuid = tv_index_uuid(idx);
        char *iname_c = tv_arena_strndup(&r->arena, iname, strlen(iname));
        if (!iname_c) {
            r->oom = true;
            return e;
        }
        if (code == TROVE_ENOINDEX) {
            tv_api_err_meta(e, "index", iname_c);
            tv_api_err_meta(e, "index_uuid", "_na_");
            tv_api_err_meta(e, "resource.type", "index_or_alias");
            tv_api_err_meta(e, "resource.id", iname_c);
        } else if (code == TROVE_ECONFLICT || code == TROVE_ENODOC) {
            /* ShardId-carrying exceptions: setShard adds index, index_uuid, shard */
            tv_api_err_meta(e, "index", iname_c);
            tv_api_err_meta(e, "index_uuid", uuid);
            tv_api_err_meta(e, "shard", "0");
        } else {
            tv_api_err_meta(e, "index", iname_c);
            tv_api_err_meta(e, "index_uuid", uuid);
        }
    } else if (tv_status_os(e->type) && idx && (code == TROVE_ECONFLICT || code == TROVE_ENODOC)) {
        tv_api_err_meta(e, "index", tv_index_name(idx));
        tv_api_err_meta(e, "index_uuid", tv_index_uuid(idx));
        tv_api_err_meta(e, "shard", "0");
    }
    if (err->cause_code != TROVE_OK) {
        tv_api_err *c = err_new(r);
        if (!c) return e;
        c->type = level_type(err->cause_code, err->cause_type);
        c->reason = tv_arena_strndup(&r->arena, err->cause_reason, strlen(err->cause_reason));
        if (!c->reason) r->oom = true;
        c->status = trove_status_http(err->cause_code);
        e->cause = c;
        err_more_causes(r, err, c);
    }
    if (code == TROVE_ENOMEM) e->status = 500;
    return e;
}

void tv_req_fail_tv(tv_req *r, const tv_error *err, tv_index *idx) {
    tv_api_err *e = tv_api_err_from(r, err, idx);
    if (e) tv_req_error(r, e);
}

/* ------------------------------------------------------------ breakers */

typedef struct breaker_extra {
    int64_t wanted, limit;
    const char *durability;
} breaker_extra;

static void write_breaker_extra(tv_jw *w, const tv_api_err *e) {
    const breaker_extra *x = e->extra_ctx;
    tv_jw_keyz(w, "bytes_wanted");
    tv_jw_int(w, x->wanted);
    tv_jw_keyz(w, "bytes_limit");
    tv_jw_int(w, x->limit);
    tv_jw_keyz(w, "durability");
    tv_jw_strz(w, x->durability);
}

void tv_req_breaker_error(tv_req *r, const tv_breaker_trip *t) {
    tv_api_err *e = err_new(r);
    breaker_extra *x = tv_arena_calloc(&r->arena, 1, sizeof *x);
    char *msg = tv_arena_alloc(&r->arena, 1024);
    if (!e || !x || !msg) return (void)(r->oom = true);
    tv_breaker_trip_message(t, msg, 1024);
    x->wanted = t->wanted;
    x->limit = t->limit;
    /* CircuitBreaker.Durability: fielddata and accounting hold memory for
     * good; a parent trip is transient when most of the children's usage
     * is (request, in-flight) */
    bool permanent = t->kind == TV_BREAKER_FIELDDATA || t->kind == TV_BREAKER_ACCOUNTING;
    if (t->kind == TV_BREAKER_PARENT)
        permanent = t->usages[TV_BREAKER_REQUEST] + t->usages[TV_BREAKER_IN_FLIGHT] <
                    t->usages[TV_BREAKER_FIELDDATA] + t->usages[TV_BREAKER_ACCOUNTING];
    x->durability = permanent ? "PERMANENT" : "TRANSIENT";
    e->type = TROVE_EBREAKER;
    e->reason = msg;
    e->status = trove_status_http(TROVE_EBREAKER);
    e->extra = write_breaker_extra;
    e->extra_ctx = x;
    tv_req_error(r, e);
}
