/*
 * h_tasks.c — the tasks API (GET /_tasks, GET /_tasks/{id}, _cancel), the
 * _rethrottle endpoints, and the registry of a node's running and stored
 * tasks that _delete_by_query, _update_by_query and _reindex run as.
 *
 * What a task is here: a by-query or reindex request while it runs, as
 * OpenSearch's BulkByScrollTask. A request with wait_for_completion=true
 * runs on its own thread registered as a task (listed, rethrottled,
 * cancelled while it runs; forgotten when it answers). One with
 * wait_for_completion=false is validated first (its errors answer the
 * request, as OpenSearch's REST layer throws them before a task exists),
 * then runs again on a thread of its own (tv_task_spawn: the same method,
 * target and body through trove_request, the handler finding its task in
 * a thread-local), and the request answers {"task":"<node>:<id>"}. When
 * it ends its answer is kept in memory as OpenSearch keeps it in the
 * .tasks index (task persistence): GET /_tasks/{id} answers
 * {"completed":true,"task":{...},"response":{...}} (or "error") for as
 * long as the node lives. A throttled request that arrives through
 * trove_request_nowait (the HTTP server's event loops, which must never
 * sleep) runs the same way and waits through retries (r->since_ms holds
 * minus the task id between asks).
 *
 * Throttling is OpenSearch's WorkerBulkByScrollTaskState: before each
 * scroll response is processed the worker waits until the previous
 * batch's start plus its size / requests_per_second, and counts that
 * delay in throttled_millis; a rethrottle to a faster rate rescales the
 * remaining delay (remaining * old / new, unlimited: none), a slower one
 * waits for the next batch. Waits are timed waits on the registry's
 * condition variable, so rethrottle, cancel and node shutdown wake them.
 *
 * Alternatives rejected: a thread pool (tasks are rare and mostly wait);
 * detached threads are counted instead of joined so that a stored task
 * holds no thread once it ended; keeping results in a real .tasks index
 * (a system index trove does not have: it would show in _cat/indices).
 * Task ids count from 1 per node; every task API call takes ids too, as
 * its own transport task does in OpenSearch.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "api.h"

struct tv_task {
    int64_t id;
    char action[64];
    char *description;
    int64_t start_ms;
    uint64_t start_ns, end_ns;
    bool store;  /* keep the result (wait_for_completion=false) */
    bool thread; /* runs on a task thread */
    bool done, cancelled;
    trove_node *node;
    char *method, *uri, *body; /* the request a task thread runs */
    size_t body_len;
    float rps;    /* requests_per_second now (INFINITY: unlimited) */
    unsigned gen; /* bumped by every rethrottle */
    bool has_status;
    tv_bbs_status st;
    tv_bbs_status *slices;
    size_t nslices;
    int res_status; /* the answer (0: out of memory) */
    char *res_body;
    size_t res_len;
};

typedef struct tv_tasks {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* any change: a task ended, rethrottled, cancelled */
    tv_task **v;
    size_t n, cap;
    int64_t next_id;
    int running; /* task threads not yet ended */
    bool closing;
} tv_tasks;

static _Thread_local tv_task *cur_task;
static pthread_mutex_t init_mu = PTHREAD_MUTEX_INITIALIZER;

tv_task *tv_task_current(void) { return cur_task; }

static tv_tasks *registry(trove_node *n) {
    pthread_mutex_lock(&init_mu);
    tv_tasks *g = n->tasks;
    if (!g && (g = tv_calloc(1, sizeof *g)) != NULL) {
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_mutex_init(&g->mu, NULL);
        pthread_cond_init(&g->cv, &ca);
        pthread_condattr_destroy(&ca);
        n->tasks = g;
    }
    pthread_mutex_unlock(&init_mu);
    return g;
}

static void task_free(tv_task *t) {
    if (!t) return;
    tv_free(t->description);
    tv_free(t->method);
    tv_free(t->uri);
    tv_free(t->body);
    tv_free(t->slices);
    tv_free(t->res_body);
    tv_free(t);
}

/* Takes the next id (caller holds g->mu). */
static int64_t next_id_locked(tv_tasks *g) { return ++g->next_id; }

static tv_task *task_new(tv_req *r, tv_tasks *g, const char *action, const char *description) {
    tv_task *t = tv_calloc(1, sizeof *t);
    if (!t) return NULL;
    snprintf(t->action, sizeof t->action, "%s", action);
    t->description = tv_strndup(description, strlen(description));
    t->node = r->node;
    t->start_ms = tv_now_ms();
    t->start_ns = tv_mono_ns();
    t->rps = INFINITY;
    /* BulkByScrollTask always has a status, zero until the worker starts */
    t->has_status = true;
    tv_bbs_status_init(&t->st, -1, INFINITY);
    if (!t->description) {
        tv_free(t);
        return NULL;
    }
    pthread_mutex_lock(&g->mu);
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 8;
        tv_task **v = tv_realloc(g->v, cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&g->mu);
            task_free(t);
            return NULL;
        }
        g->v = v;
        g->cap = cap;
    }
    t->id = next_id_locked(g);
    g->v[g->n++] = t;
    pthread_mutex_unlock(&g->mu);
    return t;
}

/* Removes t from the registry (caller holds g->mu). */
static void remove_locked(tv_tasks *g, tv_task *t) {
    for (size_t i = 0; i < g->n; i++)
        if (g->v[i] == t) {
            memmove(g->v + i, g->v + i + 1, (g->n - i - 1) * sizeof *g->v);
            g->n--;
            return;
        }
}

static tv_task *find_locked(tv_tasks *g, int64_t id) {
    for (size_t i = 0; i < g->n; i++)
        if (g->v[i]->id == id) return g->v[i];
    return NULL;
}

tv_task *tv_task_begin(tv_req *r, const char *action, const char *description) {
    tv_tasks *g = registry(r->node);
    tv_task *t = g ? task_new(r, g, action, description) : NULL;
    if (!t) r->oom = true;
    return t;
}

void tv_task_end(tv_req *r, tv_task *t) {
    if (!t) return;
    tv_tasks *g = r->node->tasks;
    pthread_mutex_lock(&g->mu);
    remove_locked(g, t);
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    task_free(t);
}

/* ------------------------------------------------------------- status */

void tv_bbs_status_init(tv_bbs_status *s, int64_t slice_id, float rps) {
    memset(s, 0, sizeof *s);
    s->slice_id = slice_id;
    s->rps = rps;
}

void tv_bbs_status_sum(tv_bbs_status *out, const tv_bbs_status *sl, size_t n, float rps) {
    tv_bbs_status_init(out, -1, rps);
    for (size_t i = 0; i < n; i++) {
        out->total += sl[i].total;
        out->updated += sl[i].updated;
        out->created += sl[i].created;
        out->deleted += sl[i].deleted;
        out->batches += sl[i].batches;
        out->version_conflicts += sl[i].version_conflicts;
        out->noops += sl[i].noops;
        out->retries_bulk += sl[i].retries_bulk;
        out->retries_search += sl[i].retries_search;
        out->throttled_ns += sl[i].throttled_ns;
        if (sl[i].throttled_until_ns &&
            (!out->throttled_until_ns || sl[i].throttled_until_ns < out->throttled_until_ns))
            out->throttled_until_ns = sl[i].throttled_until_ns;
        if (sl[i].canceled) out->canceled = sl[i].canceled;
    }
}

static void write_one(tv_jw *w, const tv_bbs_status *s, bool upd, bool cre) {
    if (s->slice_id >= 0) {
        tv_jw_keyz(w, "slice_id");
        tv_jw_int(w, s->slice_id);
    }
    tv_jw_keyz(w, "total");
    tv_jw_int(w, s->total);
    if (upd) {
        tv_jw_keyz(w, "updated");
        tv_jw_int(w, s->updated);
    }
    if (cre) {
        tv_jw_keyz(w, "created");
        tv_jw_int(w, s->created);
    }
    tv_jw_keyz(w, "deleted");
    tv_jw_int(w, s->deleted);
    tv_jw_keyz(w, "batches");
    tv_jw_int(w, s->batches);
    tv_jw_keyz(w, "version_conflicts");
    tv_jw_int(w, s->version_conflicts);
    tv_jw_keyz(w, "noops");
    tv_jw_int(w, s->noops);
    tv_jw_keyz(w, "retries");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "bulk");
    tv_jw_int(w, s->retries_bulk);
    tv_jw_keyz(w, "search");
    tv_jw_int(w, s->retries_search);
    tv_jw_obj_end(w);
    tv_jw_keyz(w, "throttled_millis");
    tv_jw_int(w, s->throttled_ns / 1000000);
    tv_jw_keyz(w, "requests_per_second");
    tv_jw_float(w, isinf(s->rps) ? -1.0f : s->rps);
    if (s->canceled) {
        tv_jw_keyz(w, "canceled");
        tv_jw_strz(w, s->canceled);
    }
    tv_jw_keyz(w, "throttled_until_millis");
    tv_jw_int(w, s->throttled_until_ns / 1000000);
}

void tv_bbs_status_write(tv_jw *w, const tv_bbs_status *s, bool upd, bool cre, const tv_bbs_status *sl,
                         size_t n) {
    write_one(w, s, upd, cre);
    if (!n) return;
    tv_jw_keyz(w, "slices");
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        tv_jw_obj_begin(w);
        write_one(w, &sl[i], upd, cre);
        tv_jw_obj_end(w);
    }
    tv_jw_arr_end(w);
}

void tv_task_publish(tv_task *t, const tv_bbs_status *leader, const tv_bbs_status *slices, size_t n) {
    if (!t) return;
    tv_tasks *g = t->node->tasks;
    pthread_mutex_lock(&g->mu);
    t->st = *leader;
    t->has_status = true;
    if (n && n != t->nslices) {
        tv_bbs_status *v = tv_realloc(t->slices, n * sizeof *v);
        if (v) {
            t->slices = v;
            t->nslices = n;
        }
    }
    if (n && n == t->nslices) memcpy(t->slices, slices, n * sizeof *slices);
    pthread_mutex_unlock(&g->mu);
}

void tv_task_set_rps(tv_task *t, float rps) {
    if (!t) return;
    tv_tasks *g = t->node->tasks;
    pthread_mutex_lock(&g->mu);
    if (!t->gen) t->rps = rps; /* unless a rethrottle came first */
    t->st.rps = t->rps;
    pthread_mutex_unlock(&g->mu);
}

float tv_task_rps(tv_task *t) {
    if (!t) return INFINITY;
    tv_tasks *g = t->node->tasks;
    pthread_mutex_lock(&g->mu);
    float v = t->rps;
    pthread_mutex_unlock(&g->mu);
    return v;
}

bool tv_task_cancelled(tv_task *t, const char **why) {
    if (!t) return false;
    tv_tasks *g = t->node->tasks;
    pthread_mutex_lock(&g->mu);
    bool c = t->cancelled || g->closing;
    pthread_mutex_unlock(&g->mu);
    if (c && why) *why = "by user request";
    return c;
}

static void timespec_at(struct timespec *ts, uint64_t ns) {
    ts->tv_sec = (time_t)(ns / 1000000000u);
    ts->tv_nsec = (long)(ns % 1000000000u);
}

bool tv_task_throttle(tv_task *t, int64_t delay_ns, float sched_rps, int64_t *until_ns, int64_t *credited_ns) {
    *credited_ns = delay_ns;
    if (delay_ns <= 0) return !tv_task_cancelled(t, NULL);
    uint64_t deadline = tv_mono_ns() + (uint64_t)delay_ns;
    if (!t) { /* not a task: sleep (a request nobody can rethrottle) */
        struct timespec ts = {(time_t)(delay_ns / 1000000000), (long)(delay_ns % 1000000000)};
        nanosleep(&ts, NULL);
        return true;
    }
    tv_tasks *g = t->node->tasks;
    pthread_mutex_lock(&g->mu);
    unsigned gen = t->gen;
    for (;;) {
        uint64_t now = tv_mono_ns();
        /* a cancel runs the delayed batch at once (handleCancel rethrottles
         * to unlimited); so does a rethrottle to a rate not slower than
         * the one this delay was scheduled with: remaining * old / new */
        float nr = t->cancelled || g->closing ? INFINITY : t->rps;
        if ((t->gen != gen || t->cancelled || g->closing) && !(nr < sched_rps)) {
            gen = t->gen;
            double rem = deadline > now ? (double)(deadline - now) : 0;
            int64_t nd = isinf(nr) ? 0 : (int64_t)llround(rem * sched_rps / nr);
            deadline = now + (uint64_t)nd;
            *credited_ns = nd;
        }
        gen = t->gen;
        if (now >= deadline) break;
        *until_ns = (int64_t)(deadline - now);
        struct timespec ts;
        timespec_at(&ts, deadline);
        pthread_cond_timedwait(&g->cv, &g->mu, &ts);
    }
    *until_ns = 0;
    bool ok = !(t->cancelled || g->closing);
    pthread_mutex_unlock(&g->mu);
    return ok;
}

/* -------------------------------------------------------- task threads */

typedef struct tinfo tinfo;
static void write_info(const char *node_id, tv_jw *w, const tinfo *ti, bool detailed);
static void write_result(tv_arena *a, tv_jw *w, const tinfo *ti);
static void store_result(tv_task *t);

static void *task_main(void *arg) {
    tv_task *t = arg;
    cur_task = t;
    trove_response resp;
    int rc = trove_request(t->node, t->method, t->uri, t->body, t->body_len, &resp);
    cur_task = NULL;
    tv_routing_cache_drop(); /* this thread's remembered mapping */
    tv_tasks *g = t->node->tasks;
    pthread_mutex_lock(&g->mu);
    if (rc == TROVE_OK) {
        t->res_status = resp.status;
        t->res_body = resp.body;
        t->res_len = resp.body_len;
        tv_free(resp.allow);
    }
    t->end_ns = tv_mono_ns();
    pthread_mutex_unlock(&g->mu);
    if (t->store && rc == TROVE_OK) store_result(t);
    pthread_mutex_lock(&g->mu);
    t->done = true;
    if (t->store) { /* its result lives in .tasks now */
        remove_locked(g, t);
        task_free(t);
    }
    g->running--;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

/* Answers the ended task's answer and forgets it. */
static void answer_from(tv_req *r, tv_tasks *g, tv_task *t) {
    remove_locked(g, t);
    pthread_mutex_unlock(&g->mu);
    if (!t->res_status) {
        r->oom = true;
    } else {
        tv_req_json(r, t->res_status);
        tv_buf_append(&r->out, t->res_body, t->res_len);
    }
    task_free(t);
}

static void wait_for(tv_req *r, tv_tasks *g, tv_task *t) {
    pthread_mutex_lock(&g->mu);
    if (r->nowait && !t->done) {
        pthread_mutex_unlock(&g->mu);
        r->since_ms = -t->id;
        r->waits = true;
        r->retry_ms = 20;
        return;
    }
    while (!t->done) pthread_cond_wait(&g->cv, &g->mu);
    answer_from(r, g, t);
}

bool tv_task_resume(tv_req *r) {
    if (!r->nowait || r->since_ms >= 0) return false;
    tv_tasks *g = registry(r->node);
    if (!g) return (r->oom = true);
    pthread_mutex_lock(&g->mu);
    tv_task *t = find_locked(g, -r->since_ms);
    if (!t) {
        pthread_mutex_unlock(&g->mu);
        tv_req_fail(r, TROVE_EINTERNAL, "the task this request waited for is gone");
        return true;
    }
    if (!t->done) {
        pthread_mutex_unlock(&g->mu);
        r->waits = true;
        r->retry_ms = 20;
        return true;
    }
    answer_from(r, g, t);
    return true;
}

void tv_task_spawn(tv_req *r, const char *action, const char *description, bool store) {
    tv_tasks *g = registry(r->node);
    tv_task *t = g ? task_new(r, g, action, description) : NULL;
    if (!t) {
        r->oom = true;
        return;
    }
    t->store = store;
    t->thread = true;
    const char *m = tv_method_name(r->method);
    t->method = tv_strndup(m, strlen(m));
    t->uri = tv_strndup(r->uri, strlen(r->uri));
    t->body = r->body_len ? tv_malloc(r->body_len) : NULL;
    if (t->body) memcpy(t->body, r->body, r->body_len);
    t->body_len = r->body_len;
    pthread_attr_t at;
    pthread_t th;
    bool ok = t->method && t->uri && (!r->body_len || t->body);
    pthread_mutex_lock(&g->mu);
    if (ok) {
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        g->running++;
        if (pthread_create(&th, &at, task_main, t) != 0) {
            g->running--;
            ok = false;
        }
        pthread_attr_destroy(&at);
    }
    if (!ok) {
        remove_locked(g, t);
        pthread_mutex_unlock(&g->mu);
        task_free(t);
        r->oom = true;
        return;
    }
    int64_t tid = t->id; /* a stored task frees itself when it ends */
    pthread_mutex_unlock(&g->mu);
    if (!store) {
        wait_for(r, g, t);
        return;
    }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "task");
    char id[64];
    snprintf(id, sizeof id, "%s:%lld", r->node->node_id, (long long)tid);
    tv_jw_strz(w, id);
    tv_jw_obj_end(w);
}

void tv_tasks_free(trove_node *n) {
    tv_tasks *g = n->tasks;
    if (!g) return;
    pthread_mutex_lock(&g->mu);
    g->closing = true;
    pthread_cond_broadcast(&g->cv);
    while (g->running > 0) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    for (size_t i = 0; i < g->n; i++) task_free(g->v[i]);
    tv_free(g->v);
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
    tv_free(g);
    n->tasks = NULL;
}

/* ------------------------------------------------------------ answers */

/* A snapshot of a task's info taken under the lock. */
struct tinfo {
    int64_t id, parent;
    const char *action, *description;
    int64_t start_ms, running_ns;
    bool cancellable, cancelled, has_status;
    tv_bbs_status st;
    tv_bbs_status *slices;
    size_t nslices;
    bool done, store;
    const char *res;
    size_t res_len;
    int res_status;
};

static bool snap_locked(tv_req *r, const tv_task *t, tinfo *o) {
    memset(o, 0, sizeof *o);
    o->id = t->id;
    o->action = tv_arena_strndup(&r->arena, t->action, strlen(t->action));
    o->description = tv_arena_strndup(&r->arena, t->description, strlen(t->description));
    o->start_ms = t->start_ms;
    o->running_ns = (int64_t)((t->done ? t->end_ns : tv_mono_ns()) - t->start_ns);
    o->cancellable = true;
    o->cancelled = t->cancelled;
    o->has_status = t->has_status;
    o->st = t->st;
    o->done = t->done;
    o->store = t->store;
    o->res_status = t->res_status;
    if (t->nslices) {
        o->slices = tv_arena_alloc(&r->arena, t->nslices * sizeof *o->slices);
        if (!o->slices) return false;
        memcpy(o->slices, t->slices, t->nslices * sizeof *o->slices);
        o->nslices = t->nslices;
    }
    if (t->res_body) {
        char *c = tv_arena_alloc(&r->arena, t->res_len + 1);
        if (!c) return false;
        memcpy(c, t->res_body, t->res_len);
        c[t->res_len] = 0;
        o->res = c;
        o->res_len = t->res_len;
    }
    return o->action && o->description;
}

/* TaskInfo.toXContent inside an open object. */
static void write_info(const char *node_id, tv_jw *w, const tinfo *ti, bool detailed) {
    char id[64];
    tv_jw_keyz(w, "node");
    tv_jw_strz(w, node_id);
    tv_jw_keyz(w, "id");
    tv_jw_int(w, ti->id);
    tv_jw_keyz(w, "type");
    tv_jw_strz(w, "transport");
    tv_jw_keyz(w, "action");
    tv_jw_strz(w, ti->action);
    if (detailed && ti->has_status) {
        tv_jw_keyz(w, "status");
        tv_jw_obj_begin(w);
        tv_bbs_status_write(w, &ti->st, true, true, ti->slices, ti->nslices);
        tv_jw_obj_end(w);
    }
    if (detailed && ti->description) {
        tv_jw_keyz(w, "description");
        tv_jw_strz(w, ti->description);
    }
    tv_jw_keyz(w, "start_time_in_millis");
    tv_jw_int(w, ti->start_ms);
    tv_jw_keyz(w, "running_time_in_nanos");
    tv_jw_int(w, ti->running_ns);
    tv_jw_keyz(w, "cancellable");
    tv_jw_bool(w, ti->cancellable);
    tv_jw_keyz(w, "cancelled");
    tv_jw_bool(w, ti->cancelled);
    if (ti->parent) {
        tv_jw_keyz(w, "parent_task_id");
        snprintf(id, sizeof id, "%s:%lld", node_id, (long long)ti->parent);
        tv_jw_strz(w, id);
    }
    tv_jw_keyz(w, "headers");
    tv_jw_obj_begin(w);
    tv_jw_obj_end(w);
}

/* TaskId(String): "<node>:<long>". False with the 400 answered. */
static bool parse_task_id(tv_req *r, const char *s, const char **node, int64_t *id) {
    const char *c = s ? strchr(s, ':') : NULL;
    if (!c || strchr(c + 1, ':') || !tv_parse_i64(c + 1, strlen(c + 1), id))
        return tv_req_fail(r, TROVE_EARG, "malformed task id %s", s ? s : "");
    *node = tv_arena_strndup(&r->arena, s, (size_t)(c - s));
    if (!*node) return (r->oom = true), false;
    return true;
}

/* Extracts the stored error's inner object (its "error" member without
 * root_cause) or writes the stored response. */
static void write_result(tv_arena *a, tv_jw *w, const tinfo *ti) {
    if (!ti->res) return;
    tv_json *doc = NULL;
    if (tv_json_parse(a, ti->res, ti->res_len, &doc, NULL) != TROVE_OK || !doc) return;
    const tv_json *err = tv_json_get(doc, "error");
    if (err && err->type == TV_JSON_OBJECT && ti->res_status >= 400) {
        tv_jw_keyz(w, "error");
        tv_jw_obj_begin(w);
        for (uint32_t i = 0; i < err->len; i++) {
            const tv_json_member *m = &err->v.members[i];
            if (tv_streq(m->key, m->key_len, "root_cause")) continue;
            tv_jw_key(w, m->key, m->key_len);
            tv_jw_value(w, &m->val);
        }
        tv_jw_obj_end(w);
        return;
    }
    tv_jw_keyz(w, "response");
    tv_jw_raw(w, ti->res, ti->res_len);
}

static bool wait_param(tv_req *r, int64_t *timeout_ms) {
    const char *to = tv_req_param(r, "timeout");
    *timeout_ms = 30000;
    if (to && !tv_api_parse_time_ms(r, "timeout", to, timeout_ms)) return false;
    if (*timeout_ms < 0) *timeout_ms = 0;
    return true;
}

/* GET /_tasks/{task_id} */
void tv_h_tasks_get(tv_req *r) {
    const char *node;
    int64_t id, timeout;
    bool wfc;
    if (!tv_req_param_bool(r, "wait_for_completion", false, &wfc)) return;
    if (!wait_param(r, &timeout)) return;
    if (!parse_task_id(r, r->p_id, &node, &id)) return;
    if (strcmp(node, r->node->node_id) != 0) {
        tv_req_fail(r, TROVE_ENOTFOUND,
                    "task [%s] belongs to the node [%s] which isn't part of the cluster and there is no record of "
                    "the task",
                    r->p_id, node);
        return;
    }
    tv_tasks *g = registry(r->node);
    if (!g) return (void)(r->oom = true);
    if (!r->since_ms) r->since_ms = (int64_t)(tv_mono_ns() / 1000000u);
    pthread_mutex_lock(&g->mu);
    next_id_locked(g);
    tv_task *t = find_locked(g, id);
    if (t && wfc && !t->done) {
        uint64_t deadline = (uint64_t)(r->since_ms + timeout) * 1000000u;
        if (r->nowait) {
            pthread_mutex_unlock(&g->mu);
            if (tv_mono_ns() < deadline) {
                r->waits = true;
                r->retry_ms = 20;
                return;
            }
            tv_req_fail(r, TROVE_ETIMEOUT, "Timed out waiting for completion of task [%s]", r->p_id);
            return;
        }
        struct timespec ts;
        timespec_at(&ts, deadline);
        while (t && !t->done && tv_mono_ns() < deadline) {
            pthread_cond_timedwait(&g->cv, &g->mu, &ts);
            t = find_locked(g, id);
        }
        if (t && !t->done) {
            pthread_mutex_unlock(&g->mu);
            tv_req_fail(r, TROVE_ETIMEOUT, "Timed out waiting for completion of task [%s]", r->p_id);
            return;
        }
    }
    tinfo ti;
    bool running = t && !t->done;
    if (running && !snap_locked(r, t, &ti)) {
        pthread_mutex_unlock(&g->mu);
        r->oom = true;
        return;
    }
    pthread_mutex_unlock(&g->mu);
    if (!running) { /* a stored result (TransportGetTaskAction.getFinishedTaskFromIndex) */
        char path[96];
        snprintf(path, sizeof path, "/.tasks/_source/%s:%lld", node, (long long)id);
        trove_response resp;
        int rc = trove_request(r->node, "GET", path, NULL, 0, &resp);
        if (rc != TROVE_OK) return (void)(r->oom = true);
        if (resp.status == 200) {
            tv_req_json(r, 200);
            if (r->pretty) {
                tv_jw_raw(&r->w, resp.body, resp.body_len);
            } else {
                tv_buf_append(&r->out, resp.body, resp.body_len);
            }
        } else {
            tv_req_fail(r, TROVE_ENOTFOUND, "task [%s] isn't running and hasn't stored its results", r->p_id);
        }
        trove_response_fini(&resp);
        return;
    }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "completed");
    tv_jw_bool(w, false);
    tv_jw_keyz(w, "task");
    tv_jw_obj_begin(w);
    write_info(r->node->node_id, w, &ti, true);
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}

/* ------------------------------------------------- list, cancel, rethrottle */

typedef enum { G_NODES, G_PARENTS, G_NONE } group_by;

typedef struct listing {
    tinfo *v;
    size_t n;
    tv_api_err **node_failures;
    size_t nnf;
    tv_api_err **task_failures; /* with their task ids */
    int64_t *tf_ids;
    size_t ntf;
} listing;

static bool parse_group(tv_req *r, group_by *g) {
    const char *v = tv_req_param(r, "group_by");
    *g = G_NODES;
    if (!v || strcmp(v, "nodes") == 0) return true;
    if (strcmp(v, "parents") == 0) return (*g = G_PARENTS), true;
    if (strcmp(v, "none") == 0) return (*g = G_NONE), true;
    return tv_req_fail(r, TROVE_EARG, "Unknown group by value %s", v);
}

static bool actions_match(tv_req *r, const char *action) {
    const char *a = tv_req_param(r, "actions");
    if (!a || !*a) return true;
    const char **pats;
    size_t n = tv_split_commas(&r->arena, a, &pats);
    for (size_t i = 0; i < n; i++)
        if (tv_simple_match(pats[i], action, strlen(action))) return true;
    return false;
}

/* ListTasksResponse / CancelTasksResponse (BaseTasksResponse) */
static void write_listing(tv_req *r, const listing *l, group_by gb, bool detailed) {
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    if (l->ntf) {
        tv_jw_keyz(w, "task_failures");
        tv_jw_arr_begin(w);
        for (size_t i = 0; i < l->ntf; i++) {
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "task_id");
            tv_jw_int(w, l->tf_ids[i]);
            tv_jw_keyz(w, "node_id");
            tv_jw_strz(w, r->node->node_id);
            tv_jw_keyz(w, "status");
            tv_jw_strz(w, "BAD_REQUEST");
            tv_jw_keyz(w, "reason");
            tv_jw_obj_begin(w);
            tv_api_err_write_inner(w, l->task_failures[i], false);
            tv_jw_obj_end(w);
            tv_jw_obj_end(w);
        }
        tv_jw_arr_end(w);
    }
    if (l->nnf) {
        tv_jw_keyz(w, "node_failures");
        tv_jw_arr_begin(w);
        for (size_t i = 0; i < l->nnf; i++) {
            tv_jw_obj_begin(w);
            tv_api_err_write_inner(w, l->node_failures[i], false);
            tv_jw_obj_end(w);
        }
        tv_jw_arr_end(w);
    }
    char id[64];
    if (gb == G_NODES) {
        tv_jw_keyz(w, "nodes");
        tv_jw_obj_begin(w);
        if (l->n) {
            tv_jw_keyz(w, r->node->node_id);
            tv_jw_obj_begin(w);
            tv_api_node_head(r, w);
            tv_jw_keyz(w, "tasks");
            tv_jw_obj_begin(w);
            for (size_t i = 0; i < l->n; i++) {
                snprintf(id, sizeof id, "%s:%lld", r->node->node_id, (long long)l->v[i].id);
                tv_jw_keyz(w, id);
                tv_jw_obj_begin(w);
                write_info(r->node->node_id, w, &l->v[i], detailed);
                tv_jw_obj_end(w);
            }
            tv_jw_obj_end(w);
            tv_jw_obj_end(w);
        }
        tv_jw_obj_end(w);
    } else if (gb == G_NONE) {
        tv_jw_keyz(w, "tasks");
        tv_jw_arr_begin(w);
        for (size_t i = 0; i < l->n; i++) {
            tv_jw_obj_begin(w);
            write_info(r->node->node_id, w, &l->v[i], detailed);
            tv_jw_obj_end(w);
        }
        tv_jw_arr_end(w);
    } else { /* parents: top-level tasks (a parent not listed makes its child top-level) */
        tv_jw_keyz(w, "tasks");
        tv_jw_obj_begin(w);
        for (size_t i = 0; i < l->n; i++) {
            bool has_parent = false;
            for (size_t j = 0; j < l->n; j++) has_parent |= l->v[i].parent && l->v[j].id == l->v[i].parent;
            if (has_parent) continue;
            snprintf(id, sizeof id, "%s:%lld", r->node->node_id, (long long)l->v[i].id);
            tv_jw_keyz(w, id);
            tv_jw_obj_begin(w);
            write_info(r->node->node_id, w, &l->v[i], detailed);
            bool kids = false;
            for (size_t j = 0; j < l->n; j++) {
                if (l->v[j].parent != l->v[i].id) continue;
                if (!kids) {
                    tv_jw_keyz(w, "children");
                    tv_jw_arr_begin(w);
                    kids = true;
                }
                tv_jw_obj_begin(w);
                write_info(r->node->node_id, w, &l->v[j], detailed);
                tv_jw_obj_end(w);
            }
            if (kids) tv_jw_arr_end(w);
            tv_jw_obj_end(w);
        }
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
}

static bool push(tv_req *r, listing *l, size_t cap, const tinfo *ti) {
    (void)r;
    if (l->n >= cap) return false;
    l->v[l->n++] = *ti;
    return true;
}

static tv_api_err *failed_node(tv_req *r, const char *node, tv_api_err *cause) {
    tv_api_err *e = tv_api_err_new(r, TROVE_EFAILEDNODE, "Failed node [%s]", node);
    if (!e) return NULL;
    tv_api_err_meta(e, "node_id", node);
    e->cause = cause;
    return e;
}

/* GET /_tasks */
void tv_h_tasks_list(tv_req *r) {
    bool detailed, wfc;
    group_by gb;
    int64_t timeout;
    if (!tv_req_param_bool(r, "detailed", false, &detailed)) return;
    if (!tv_req_param_bool(r, "wait_for_completion", false, &wfc)) return;
    if (!parse_group(r, &gb)) return;
    if (!wait_param(r, &timeout)) return;
    const char *ptid = tv_req_param(r, "parent_task_id");
    const char *pnode = NULL;
    int64_t pid = 0;
    if (ptid && *ptid && strcmp(ptid, "unset") != 0 && !parse_task_id(r, ptid, &pnode, &pid)) return;
    bool here = tv_api_node_selects(r, tv_req_param(r, "nodes"));
    tv_tasks *g = registry(r->node);
    if (!g) return (void)(r->oom = true);
    if (!r->since_ms) r->since_ms = (int64_t)(tv_mono_ns() / 1000000u);
    pthread_mutex_lock(&g->mu);
    if (wfc && here) { /* every matching task other than this one ends */
        uint64_t deadline = (uint64_t)(r->since_ms + timeout) * 1000000u;
        for (;;) {
            bool busy = false;
            for (size_t i = 0; i < g->n; i++)
                busy |= !g->v[i]->done && actions_match(r, g->v[i]->action) && !pnode;
            if (!busy) break;
            if (tv_mono_ns() >= deadline) {
                pthread_mutex_unlock(&g->mu);
                tv_req_fail(r, TROVE_ETIMEOUT, "Timed out waiting for completion of tasks");
                return;
            }
            if (r->nowait) {
                pthread_mutex_unlock(&g->mu);
                r->waits = true;
                r->retry_ms = 20;
                return;
            }
            struct timespec ts;
            timespec_at(&ts, deadline);
            pthread_cond_timedwait(&g->cv, &g->mu, &ts);
        }
    }
    /* this request is a task too, with its node-level child */
    int64_t self = next_id_locked(g), child = next_id_locked(g);
    listing l;
    memset(&l, 0, sizeof l);
    size_t cap = g->n + 2;
    l.v = tv_arena_calloc(&r->arena, cap, sizeof *l.v);
    bool ok = l.v != NULL;
    if (here) {
        for (size_t i = 0; ok && i < g->n; i++) {
            tinfo ti;
            if (g->v[i]->done || !actions_match(r, g->v[i]->action) || pnode) continue;
            ok = snap_locked(r, g->v[i], &ti) && push(r, &l, cap, &ti);
        }
    }
    pthread_mutex_unlock(&g->mu);
    if (!ok) return (void)(r->oom = true);
    tinfo me = {.id = self, .action = "cluster:monitor/tasks/lists", .description = "", .start_ms = tv_now_ms()};
    tinfo kid = {.id = child, .parent = self, .action = "cluster:monitor/tasks/lists[n]", .description = "",
                 .start_ms = me.start_ms};
    if (here && !pnode && actions_match(r, me.action)) push(r, &l, cap, &me);
    if (here && (!pnode || (strcmp(pnode, r->node->node_id) == 0 && pid == self)) && actions_match(r, kid.action))
        push(r, &l, cap, &kid);
    /* by id */
    for (size_t i = 1; i < l.n; i++)
        for (size_t j = i; j > 0 && l.v[j - 1].id > l.v[j].id; j--) {
            tinfo x = l.v[j];
            l.v[j] = l.v[j - 1];
            l.v[j - 1] = x;
        }
    write_listing(r, &l, gb, detailed);
}

/* Runs op on the tasks a cancel or rethrottle names: one by id
 * ({task_id} path part), or every task matching actions/nodes. */
typedef enum { OP_CANCEL, OP_RETHROTTLE } task_op;

static void tasks_op(tv_req *r, task_op op, float rps) {
    group_by gb;
    bool wfc = false;
    if (!parse_group(r, &gb)) return;
    if (op == OP_CANCEL && !tv_req_param_bool(r, "wait_for_completion", false, &wfc)) return;
    const char *tid = r->p_id;
    if (!tid) tid = tv_req_param(r, "task_id");
    const char *node = NULL;
    int64_t id = 0;
    if (tid && *tid && strcmp(tid, "unset") != 0 && !parse_task_id(r, tid, &node, &id)) return;
    if (op == OP_RETHROTTLE && !node)
        return (void)tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: 1: task id must be provided;");
    tv_tasks *g = registry(r->node);
    if (!g) return (void)(r->oom = true);
    listing l;
    memset(&l, 0, sizeof l);
    pthread_mutex_lock(&g->mu);
    next_id_locked(g);
    size_t cap = g->n + 1;
    l.v = tv_arena_calloc(&r->arena, cap, sizeof *l.v);
    l.node_failures = tv_arena_calloc(&r->arena, 1, sizeof *l.node_failures);
    bool ok = l.v && l.node_failures;
    tv_api_err *nf = NULL;
    if (ok && node && strcmp(node, r->node->node_id) != 0) {
        nf = tv_api_err_new(r, TROVE_ENOSUCHNODE, "No such node [%s]", node);
        if (nf) tv_api_err_meta(nf, "node_id", node);
        nf = nf ? failed_node(r, node, nf) : NULL;
        ok = nf != NULL;
    } else if (ok && node) {
        tv_task *t = find_locked(g, id);
        if (!t || t->done) {
            tv_api_err *c = tv_api_err_new(r, TROVE_ENOTFOUND, "task [%s] is missing", tid);
            nf = c ? failed_node(r, r->node->node_id, c) : NULL;
            ok = nf != NULL;
        } else {
            if (op == OP_CANCEL) {
                t->cancelled = true;
            } else { /* the status shows the new rate at once */
                t->rps = rps;
                t->gen++;
                t->st.rps = rps;
                for (size_t k = 0; k < t->nslices; k++) t->slices[k].rps = isinf(rps) ? rps : rps / (float)t->nslices;
            }
            tinfo ti;
            ok = snap_locked(r, t, &ti) && push(r, &l, cap, &ti);
        }
    } else if (ok && tv_api_node_selects(r, tv_req_param(r, "nodes"))) {
        for (size_t i = 0; ok && i < g->n; i++) {
            tv_task *t = g->v[i];
            if (t->done || !actions_match(r, t->action)) continue;
            if (op == OP_CANCEL) t->cancelled = true;
            tinfo ti;
            ok = snap_locked(r, t, &ti) && push(r, &l, cap, &ti);
        }
    }
    pthread_cond_broadcast(&g->cv);
    /* wait_for_completion: until the cancelled tasks ended (a cancel wakes
     * their throttle at once, so this is short: it blocks even a loop) */
    for (size_t i = 0; ok && wfc && i < l.n; i++) {
        tv_task *w;
        while ((w = find_locked(g, l.v[i].id)) != NULL && !w->done) pthread_cond_wait(&g->cv, &g->mu);
    }
    pthread_mutex_unlock(&g->mu);
    if (!ok) return (void)(r->oom = true);
    if (nf) l.node_failures[l.nnf++] = nf;
    write_listing(r, &l, gb, op == OP_RETHROTTLE);
}

/* POST /_tasks/_cancel, /_tasks/{task_id}/_cancel */
void tv_h_tasks_cancel(tv_req *r) { tasks_op(r, OP_CANCEL, 0); }

/* POST /_{delete_by_query,update_by_query,reindex}/{task_id}/_rethrottle:
 * RestRethrottleAction (requests_per_second required, -1 unlimited). */
void tv_h_rethrottle(tv_req *r) {
    const char *v = tv_req_param(r, "requests_per_second");
    if (!v)
        return (void)tv_req_fail(r, TROVE_EARG, "requests_per_second is a required parameter");
    bool num = tv_java_double_syntax(v, strlen(v));
    double d = num ? strtod(v, NULL) : 0;
    if (!num || (d != -1 && !(d > 0)))
        return (void)tv_req_fail(r, TROVE_EARG,
                                 "[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.");
    tasks_op(r, OP_RETHROTTLE, d == -1 ? INFINITY : (float)d);
}

/* ------------------------------------------------- task persistence */

/* The .tasks index as TaskResultsService creates it. */
static const char tasks_index_body[] =
    "{\"settings\":{\"index\":{\"number_of_shards\":1,\"auto_expand_replicas\":\"0-1\",\"priority\":2147483647}},"
    "\"mappings\":{\"_meta\":{\"version\":3},\"dynamic\":\"strict\",\"properties\":{"
    "\"completed\":{\"type\":\"boolean\"},"
    "\"task\":{\"properties\":{\"action\":{\"type\":\"keyword\"},\"cancellable\":{\"type\":\"boolean\"},"
    "\"cancelled\":{\"type\":\"boolean\"},\"id\":{\"type\":\"long\"},\"parent_task_id\":{\"type\":\"keyword\"},"
    "\"node\":{\"type\":\"keyword\"},\"running_time_in_nanos\":{\"type\":\"long\"},"
    "\"start_time_in_millis\":{\"type\":\"long\"},\"type\":{\"type\":\"keyword\"},"
    "\"status\":{\"type\":\"object\",\"enabled\":false},\"description\":{\"type\":\"text\"},"
    "\"headers\":{\"type\":\"object\",\"enabled\":false}}},"
    "\"response\":{\"type\":\"object\",\"enabled\":false},\"error\":{\"type\":\"object\",\"enabled\":false}}}}";

/* TaskResultsService.storeResult: the TaskResult as a document of the
 * .tasks index (created on first use), id "<node>:<id>". Called by the
 * task's thread once its request answered. */
static void store_result(tv_task *t) {
    tv_tasks *g = t->node->tasks;
    tv_arena a;
    tv_arena_init(&a);
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tinfo ti;
    memset(&ti, 0, sizeof ti);
    pthread_mutex_lock(&g->mu);
    ti.id = t->id;
    ti.action = t->action;
    ti.description = t->description;
    ti.start_ms = t->start_ms;
    ti.running_ns = (int64_t)(t->end_ns - t->start_ns);
    ti.cancellable = true;
    ti.cancelled = t->cancelled;
    ti.has_status = t->has_status;
    ti.st = t->st;
    ti.slices = t->slices;
    ti.nslices = t->nslices;
    ti.done = true;
    ti.res = t->res_body;
    ti.res_len = t->res_len;
    ti.res_status = t->res_status;
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "completed");
    tv_jw_bool(&w, true);
    tv_jw_keyz(&w, "task");
    tv_jw_obj_begin(&w);
    write_info(t->node->node_id, &w, &ti, true);
    tv_jw_obj_end(&w);
    write_result(&a, &w, &ti);
    tv_jw_obj_end(&w);
    pthread_mutex_unlock(&g->mu);
    char path[96];
    trove_response resp;
    if (!b.oom) {
        if (trove_request(t->node, "PUT", "/.tasks", tasks_index_body, sizeof tasks_index_body - 1, &resp) ==
            TROVE_OK)
            trove_response_fini(&resp);
        snprintf(path, sizeof path, "/.tasks/_doc/%s:%lld", t->node->node_id, (long long)t->id);
        if (trove_request(t->node, "PUT", path, b.data, b.len, &resp) == TROVE_OK) trove_response_fini(&resp);
    }
    tv_buf_fini(&b);
    tv_arena_fini(&a);
}
