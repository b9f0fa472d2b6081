/*
 * h_rollover.c — POST /{alias}/_rollover[/{new_index}]: a new index for a
 * write alias when its current index meets a condition.
 *
 * As OpenSearch's TransportRolloverAction and MetadataRolloverService:
 *   1. the target must be an alias ("rollover target [x] does not exist";
 *      an index is "a [concrete index] but one of [alias, data_stream] was
 *      expected") with a write index (its is_write_index true one, or its
 *      only index);
 *   2. the new index's name is the URL's, or the write index's name with
 *      its trailing number plus one, zero-padded to six digits
 *      ("logs-1" → "logs-000002"); a name without "-<digits>" at its end is
 *      an error; the name is validated and must be free, even for a dry run;
 *   3. conditions (max_docs, max_age, max_size, max_primary_shard_size) are
 *      evaluated against the write index: documents, age since creation,
 *      store bytes (one shard: the primary shard is the index). With no
 *      conditions, or any met, the alias rolls over;
 *   4. unless dry_run: the new index is created with the request's
 *      settings, mappings and aliases (templates applied, as PUT /{index}),
 *      and the alias moves (tv_alias_rollover_locked).
 * The answer lists each condition as Condition.toString ("[max_docs: 1]")
 * in the HashMap order OpenSearch's map gives it.
 *
 * Data streams do not exist in trove, so a rollover target is an alias.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

typedef struct cond {
    const char *name;
    char value[64]; /* as Condition.toString prints it */
    int64_t limit;
    bool met;
} cond;

/* TimeValue.toString (toHumanReadableString(1)): the largest unit the
 * value reaches, one decimal truncated and dropped when 0. */
static void time_string(int64_t nanos, char *out, size_t cap) {
    static const struct {
        int64_t n;
        const char *suffix;
    } units[] = {{86400000000000LL, "d"}, {3600000000000LL, "h"}, {60000000000LL, "m"},
                 {1000000000LL, "s"},     {1000000LL, "ms"},        {1000LL, "micros"}};
    if (nanos < 0) {
        snprintf(out, cap, "%lld", (long long)nanos);
        return;
    }
    if (nanos == 0) {
        snprintf(out, cap, "0s");
        return;
    }
    double v = (double)nanos;
    const char *suffix = "nanos";
    for (size_t i = 0; i < TV_ARRAY_LEN(units); i++)
        if (nanos >= units[i].n) {
            v = (double)nanos / (double)units[i].n;
            suffix = units[i].suffix;
            break;
        }
    char d[32];
    size_t n = tv_fmt_double(v, d);
    d[n] = 0;
    char *dot = strchr(d, '.');
    if (dot && !strchr(d, 'E')) {
        if (dot[1] == '0') *dot = 0;
        else dot[2] = 0;
    }
    snprintf(out, cap, "%s%s", d, suffix);
}

static bool parse_conditions(tv_req *r, const tv_json *c, cond *out, size_t *n) {
    *n = 0;
    if (c->type != TV_JSON_OBJECT)
        return tv_req_fail(r, TROVE_EXCONTENT, "[rollover] conditions doesn't support values of type: %s",
                           c->type == TV_JSON_ARRAY ? "START_ARRAY" : "VALUE");
    for (uint32_t i = 0; i < c->len && *n < 4; i++) {
        const tv_json_member *m = &c->v.members[i];
        const tv_json *v = &m->val;
        cond *k = &out[*n];
        memset(k, 0, sizeof *k);
        char text[64];
        if (v->type == TV_JSON_STRING) snprintf(text, sizeof text, "%s", v->v.s);
        else if (tv_json_is_number(v)) snprintf(text, sizeof text, "%.*s", (int)v->raw_len, v->raw);
        else return tv_req_fail(r, TROVE_EXCONTENT, "[conditions] %s doesn't support values of type: %s", m->key,
                                tv_json_is_object(v) ? "START_OBJECT" : "VALUE");
        if (!strcmp(m->key, "max_docs")) {
            char *end;
            long long d = strtoll(text, &end, 10);
            if (*end || end == text) return tv_req_fail_number(r, "long", "max_docs", text);
            k->name = "max_docs";
            k->limit = d;
            snprintf(k->value, sizeof k->value, "%lld", d);
        } else if (!strcmp(m->key, "max_age")) {
            tv_error err = TV_ERROR_INIT;
            int64_t ns;
            if (tv_parse_time_value(text, strlen(text), "max_age", &ns, &err)) {
                tv_req_fail_tv(r, &err, NULL);
                return false;
            }
            k->name = "max_age";
            k->limit = ns;
            time_string(ns, k->value, sizeof k->value);
        } else if (!strcmp(m->key, "max_size") || !strcmp(m->key, "max_primary_shard_size")) {
            int64_t b;
            if (!tv_parse_byte_size(text, strlen(text), &b))
                return tv_req_fail(r, TROVE_EPARSEEXC,
                                   "failed to parse setting [%s] with value [%s] as a size in bytes: unit is missing "
                                   "or unrecognized",
                                   m->key, text);
            k->name = m->key[4] == 's' ? "max_size" : "max_primary_shard_size";
            k->limit = b;
            tv_java_byte_size(b, k->value, sizeof k->value);
        } else {
            return tv_req_fail(r, TROVE_EXCONTENT, "[conditions] unknown field [%s]", m->key);
        }
        /* a condition named twice: the map keeps the last */
        size_t j = 0;
        while (j < *n && strcmp(out[j].name, k->name)) j++;
        if (j < *n) out[j] = *k;
        else (*n)++;
    }
    return true;
}

/* The next index name: prefix "-" number+1 as %06d (rollover's generated
 * name), or NULL with the error answered. */
static const char *next_name(tv_req *r, const char *src) {
    const char *dash = strrchr(src, '-');
    bool digits = dash && dash[1];
    for (const char *p = dash ? dash + 1 : src; digits && *p; p++) digits = *p >= '0' && *p <= '9';
    if (!digits) {
        tv_req_fail(r, TROVE_EARG, "index name [%s] does not match pattern '^.*-\\d+$'", src);
        return NULL;
    }
    long long n = strtoll(dash + 1, NULL, 10);
    const char *s = tv_arena_sprintf(&r->arena, "%.*s-%06lld", (int)(dash - src), src, n + 1);
    if (!s) r->oom = true;
    return s;
}

static bool fail_exists(tv_req *r, const char *name, tv_index *idx) {
    tv_api_err *e = tv_api_err_new(r, TROVE_EEXISTS, "index [%s/%s] already exists", name, tv_index_uuid(idx));
    if (!e) return false;
    tv_api_err_meta(e, "index", name);
    char *u = tv_arena_strndup(&r->arena, tv_index_uuid(idx), strlen(tv_index_uuid(idx)));
    tv_api_err_meta(e, "index_uuid", u ? u : "_na_");
    tv_req_error(r, e);
    return false;
}

/* The alias's write index (caller holds the node lock), or NULL with the
 * error answered. */
static const char *write_index_of(tv_req *r, const char *alias) {
    const tv_node_state *st = r->node->st;
    if (tv_map_get(&st->indices, alias, strlen(alias))) {
        tv_req_fail(r, TROVE_EARG, "rollover target is a [concrete index] but one of [alias, data_stream] was expected");
        return NULL;
    }
    const char *only = NULL, *writer = NULL;
    size_t n = 0;
    for (size_t i = 0; i < st->naliases; i++) {
        const tv_alias *a = &st->aliases[i];
        if (strcmp(a->alias, alias)) continue;
        n++;
        only = a->index;
        if (a->is_write_index == 1) writer = a->index;
    }
    if (!n) {
        tv_req_fail(r, TROVE_EARG, "rollover target [%s] does not exist", alias);
        return NULL;
    }
    if (!writer && n == 1) {
        for (size_t i = 0; i < st->naliases; i++)
            if (!strcmp(st->aliases[i].alias, alias) && st->aliases[i].is_write_index != 0) writer = only;
    }
    if (!writer) {
        tv_req_fail(r, TROVE_EARG, "rollover target [%s] does not point to a write index", alias);
        return NULL;
    }
    const char *s = tv_arena_strndup(&r->arena, writer, strlen(writer));
    if (!s) r->oom = true;
    return s;
}

void tv_h_rollover(tv_req *r) {
    const char *alias = r->p_name, *want = r->p_name2;
    bool dry_run;
    if (!tv_req_param_bool(r, "dry_run", false, &dry_run)) return;
    const tv_json *body = r->body_len ? tv_req_parse_body(r, TV_BODY_PARSER) : NULL;
    if (r->body_len && !body) return;
    const tv_json *settings = NULL, *mappings = NULL, *aliases = NULL;
    cond conds[4];
    size_t nconds = 0;
    if (body && body->type != TV_JSON_OBJECT) {
        tv_req_fail(r, TROVE_EPARSEEXC, "request body must be an object");
        return;
    }
    for (uint32_t i = 0; body && i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (!strcmp(m->key, "conditions")) {
            if (!parse_conditions(r, &m->val, conds, &nconds)) return;
        } else if (!strcmp(m->key, "settings")) {
            settings = &m->val;
        } else if (!strcmp(m->key, "mappings")) {
            mappings = &m->val;
        } else if (!strcmp(m->key, "aliases")) {
            aliases = &m->val;
        } else {
            tv_req_fail(r, TROVE_EXCONTENT, "[rollover] unknown field [%s]", m->key);
            return;
        }
    }
    pthread_rwlock_rdlock(&r->node->lock);
    const char *src = write_index_of(r, alias);
    const char *name = src ? (want ? want : next_name(r, src)) : NULL;
    const char *bad = name ? tv_index_name_invalid(name, &r->arena) : NULL;
    tv_index *idx = name ? tv_map_get(&r->node->st->indices, src, strlen(src)) : NULL;
    tv_index *clash = name ? tv_map_get(&r->node->st->indices, name, strlen(name)) : NULL;
    if (idx) tv_index_retain(idx);
    pthread_rwlock_unlock(&r->node->lock);
    if (!name) {
        if (idx) tv_index_release(idx);
        return;
    }
    if (bad) {
        if (idx) tv_index_release(idx);
        tv_api_err *e = tv_api_err_new(r, TROVE_EINDEXNAME, "Invalid index name [%s], %s", name, bad);
        if (!e) return;
        tv_api_err_meta(e, "index", name);
        tv_api_err_meta(e, "index_uuid", "_na_");
        tv_req_error(r, e);
        return;
    }
    if (clash) {
        if (idx) tv_index_release(idx);
        fail_exists(r, name, clash);
        return;
    }
    if (!idx) { /* the alias names an index that failed to load */
        tv_req_fail(r, TROVE_EARG, "rollover target [%s] does not point to a write index", alias);
        return;
    }
    tv_index_stats ist;
    tv_index_get_stats(idx, &ist);
    tv_index_lock(idx);
    int64_t created = tv_index_settings(idx)->creation_date_ms;
    tv_index_unlock(idx);
    tv_index_release(idx);
    int64_t age_ns = (tv_now_ms() - created) * 1000000LL;
    bool any = nconds == 0;
    for (size_t i = 0; i < nconds; i++) {
        cond *c = &conds[i];
        if (c->name[4] == 'd') c->met = (int64_t)ist.docs_count >= c->limit;
        else if (c->name[4] == 'a') c->met = age_ns >= c->limit;
        else c->met = (int64_t)ist.store_bytes >= c->limit;
        any |= c->met;
    }
    bool rolled = any && !dry_run;
    if (rolled) {
        pthread_rwlock_wrlock(&r->node->lock);
        tv_index *now = tv_map_get(&r->node->st->indices, name, strlen(name));
        const char *still = now ? NULL : write_index_of(r, alias);
        bool ok = false;
        if (now) fail_exists(r, name, now);
        else if (still && strcmp(still, src))
            tv_req_fail(r, TROVE_EARG, "rollover target [%s] changed its write index during the rollover", alias);
        else if (still && tv_node_create_index_locked(r, name, settings, mappings, aliases))
            ok = tv_alias_rollover_locked(r, alias, src, name);
        pthread_rwlock_unlock(&r->node->lock);
        if (!ok) return;
    }
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "acknowledged");
    tv_jw_bool(w, rolled);
    tv_jw_keyz(w, "shards_acknowledged");
    tv_jw_bool(w, rolled);
    tv_jw_keyz(w, "old_index");
    tv_jw_strz(w, src);
    tv_jw_keyz(w, "new_index");
    tv_jw_strz(w, name);
    tv_jw_keyz(w, "rolled_over");
    tv_jw_bool(w, rolled);
    tv_jw_keyz(w, "dry_run");
    tv_jw_bool(w, dry_run);
    tv_jw_keyz(w, "conditions");
    tv_jw_obj_begin(w);
    const char *keys[4];
    for (size_t i = 0; i < nconds; i++) {
        char *k = tv_arena_sprintf(&r->arena, "[%s: %s]", conds[i].name, conds[i].value);
        if (!k) {
            r->oom = true;
            return;
        }
        keys[i] = k;
    }
    uint32_t order[4];
    tv_java_hashmap_order(keys, (uint32_t)nconds, order);
    for (size_t i = 0; i < nconds; i++) {
        tv_jw_keyz(w, keys[order[i]]);
        tv_jw_bool(w, conds[order[i]].met);
    }
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
}
