/*
 * h_template.c — index templates: composable (`_index_template`) and
 * legacy (`_template`) put/get/exists/delete, and their application when an
 * index is created (explicitly or by a first write).
 *
 * Templates are stored in the node (trove_node.templates, sorted by name)
 * as the compact JSON GET prints, with settings normalised the way
 * OpenSearch's Settings normalises them ("index." prefix, string values).
 * At index creation the composable template with the highest priority whose
 * index_patterns match the name is applied; when none matches, every
 * matching legacy template is applied in ascending `order` (a later one
 * overrides). Settings are merged key by key (the request wins), mappings
 * are merged object by object (the request wins on conflicts), aliases are
 * united. A composable template's composed_of component templates
 * (h_component_template.c) apply first, in their order, then the
 * template's own section; a put naming a component that does not exist is
 * refused. A JSON text store was chosen over a parsed tree: templates are
 * read rarely (index creation, GET) and a text survives clones trivially.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

static bool is_legacy(const tv_req *r) { return strncmp(r->path, "/_template", 10) == 0; }

static int find_template_locked(trove_node *n, const char *name, bool legacy) {
    for (size_t i = 0; i < n->st->ntemplates; i++)
        if (n->st->templates[i].legacy == legacy && !n->st->templates[i].component &&
            strcmp(n->st->templates[i].name, name) == 0)
            return (int)i;
    return -1;
}

static int cmp_template(const void *a, const void *b) {
    const tv_template *x = a, *y = b;
    return strcmp(x->name, y->name);
}

/* Writes a settings object normalised ({"index":{...}} nested). */
static bool write_norm_settings(tv_req *r, tv_jw *w, const tv_json *settings) {
    tv_kv *kv;
    size_t n;
    if (!tv_flatten_settings(&r->arena, settings, true, &kv, &n)) return !(r->oom = true);
    tv_json *j = tv_kv_to_json(&r->arena, kv, n, false);
    if (!j) return !(r->oom = true);
    tv_jw_value(w, j);
    return true;
}

static bool patterns_ok(tv_req *r, const tv_json *p, const char *name) {
    (void)name;
    if (!p || (p->type != TV_JSON_ARRAY && p->type != TV_JSON_STRING) || (p->type == TV_JSON_ARRAY && p->len == 0))
        return tv_req_fail(r, TROVE_EVALIDATION,
                           "Validation Failed: 1: index patterns are missing;");
    if (p->type == TV_JSON_ARRAY)
        for (uint32_t i = 0; i < p->len; i++)
            if (p->v.items[i].type != TV_JSON_STRING)
                return tv_req_fail(r, TROVE_EPARSE, "[index_patterns] must be strings");
    return true;
}

static void write_patterns(tv_jw *w, const tv_json *p) {
    tv_jw_arr_begin(w);
    if (p->type == TV_JSON_STRING) {
        tv_jw_value(w, p);
    } else {
        for (uint32_t i = 0; i < p->len; i++) tv_jw_value(w, &p->v.items[i]);
    }
    tv_jw_arr_end(w);
}

static bool check_template_section(tv_req *r, const tv_json *t) {
    for (uint32_t i = 0; t && i < t->len; i++) {
        const char *k = t->v.members[i].key;
        if (strcmp(k, "settings") && strcmp(k, "mappings") && strcmp(k, "aliases"))
            return tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [template] unknown field [%s]", k);
    }
    return true;
}

void tv_h_template_put(tv_req *r) {
    bool legacy = is_legacy(r);
    if (!r->body_len) {
        tv_req_fail(r, TROVE_EPARSEEXC, "request body is required");
        return;
    }
    /* RestPutIndexTemplateAction reads ?order (an int) before the body,
     * whose "order" wins */
    int64_t url_order = 0;
    if (legacy && !tv_req_param_i64(r, "order", 0, &url_order)) return;
    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body) return;
    if (body->type != TV_JSON_OBJECT) {
        tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
        return;
    }
    bool create;
    if (!tv_req_param_bool(r, "create", false, &create)) return;
    const tv_json *pat = tv_json_get(body, "index_patterns");
    if (!pat && legacy) pat = tv_json_get(body, "template");
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_obj_begin(&w);
    if (legacy) {
        const tv_json *order = tv_json_get(body, "order"), *version = tv_json_get(body, "version");
        for (uint32_t i = 0; i < body->len; i++) {
            const char *k = body->v.members[i].key;
            if (strcmp(k, "order") && strcmp(k, "version") && strcmp(k, "index_patterns") && strcmp(k, "template") &&
                strcmp(k, "settings") && strcmp(k, "mappings") && strcmp(k, "aliases")) {
                tv_buf_fini(&b);
                tv_req_fail(r, TROVE_EARG, "unknown key [%s] in the template ", k);
                return;
            }
        }
        if (!patterns_ok(r, pat, r->p_name)) {
            tv_buf_fini(&b);
            return;
        }
        tv_jw_keyz(&w, "order");
        if (order && tv_json_is_number(order))
            tv_jw_value(&w, order);
        else
            tv_jw_int(&w, url_order);
        if (version) {
            tv_jw_keyz(&w, "version");
            tv_jw_value(&w, version);
        }
        tv_jw_keyz(&w, "index_patterns");
        write_patterns(&w, pat);
        tv_jw_keyz(&w, "settings");
        if (!write_norm_settings(r, &w, tv_json_get(body, "settings"))) {
            tv_buf_fini(&b);
            return;
        }
        const tv_json *m = tv_json_get(body, "mappings"), *al = tv_json_get(body, "aliases");
        tv_jw_keyz(&w, "mappings");
        if (m && m->type == TV_JSON_OBJECT)
            tv_jw_value(&w, m);
        else
            tv_jw_raw(&w, "{}", 2);
        tv_jw_keyz(&w, "aliases");
        if (!tv_alias_write_metadata(r, &w, al)) {
            tv_buf_fini(&b);
            return;
        }
    } else {
        for (uint32_t i = 0; i < body->len; i++) {
            const char *k = body->v.members[i].key;
            if (strcmp(k, "index_patterns") && strcmp(k, "template") && strcmp(k, "composed_of") &&
                strcmp(k, "priority") && strcmp(k, "version") && strcmp(k, "_meta") && strcmp(k, "data_stream")) {
                tv_buf_fini(&b);
                tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [index_template] unknown field [%s]",
                            k);
                return;
            }
        }
        const tv_json *t = tv_json_get(body, "template"), *co = tv_json_get(body, "composed_of");
        if (!patterns_ok(r, pat, r->p_name) || !check_template_section(r, t)) {
            tv_buf_fini(&b);
            return;
        }
        if (co && co->type != TV_JSON_ARRAY) {
            tv_buf_fini(&b);
            tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [index_template] composed_of doesn't support values of type: %s",
                        co->type == TV_JSON_OBJECT ? "START_OBJECT" : "VALUE_STRING");
            return;
        }
        /* MetadataIndexTemplateService.validateIndexTemplateV2: every
         * component named must exist */
        if (co && co->len) {
            tv_buf miss;
            tv_buf_init(&miss);
            size_t nmiss = 0;
            pthread_rwlock_rdlock(&r->node->lock);
            for (uint32_t i = 0; i < co->len; i++) {
                const tv_json *c = &co->v.items[i];
                if (c->type != TV_JSON_STRING) continue;
                if (tv_component_template_find_locked(r->node, c->v.s) >= 0) continue;
                tv_buf_printf(&miss, "%s%s", nmiss++ ? ", " : "", c->v.s);
            }
            pthread_rwlock_unlock(&r->node->lock);
            if (nmiss) {
                tv_buf_fini(&b);
                tv_req_fail(r, TROVE_ETEMPLATE,
                            "index_template [%s] invalid, cause [index template [%s] specifies component templates "
                            "[%.*s] that do not exist]",
                            r->p_name, r->p_name, (int)miss.len, miss.data ? miss.data : "");
                tv_buf_fini(&miss);
                return;
            }
            tv_buf_fini(&miss);
        }
        tv_jw_keyz(&w, "index_patterns");
        write_patterns(&w, pat);
        if (t) {
            tv_jw_keyz(&w, "template");
            tv_jw_obj_begin(&w);
            const tv_json *s = tv_json_get(t, "settings"), *m = tv_json_get(t, "mappings"),
                          *al = tv_json_get(t, "aliases");
            if (s) {
                tv_jw_keyz(&w, "settings");
                if (!write_norm_settings(r, &w, s)) {
                    tv_buf_fini(&b);
                    return;
                }
            }
            if (m) {
                tv_jw_keyz(&w, "mappings");
                tv_jw_value(&w, m);
            }
            if (al) {
                tv_jw_keyz(&w, "aliases");
                if (!tv_alias_write_metadata(r, &w, al)) {
                    tv_buf_fini(&b);
                    return;
                }
            }
            tv_jw_obj_end(&w);
        }
        tv_jw_keyz(&w, "composed_of");
        tv_jw_arr_begin(&w);
        for (uint32_t i = 0; co && i < co->len; i++) tv_jw_value(&w, &co->v.items[i]);
        tv_jw_arr_end(&w);
        const char *keys[] = {"priority", "version", "_meta", "data_stream"};
        for (size_t i = 0; i < TV_ARRAY_LEN(keys); i++) {
            const tv_json *v = tv_json_get(body, keys[i]);
            if (!v) continue;
            tv_jw_keyz(&w, keys[i]);
            tv_jw_value(&w, v);
        }
    }
    tv_jw_obj_end(&w);
    if (b.oom) {
        tv_buf_fini(&b);
        r->oom = true;
        return;
    }
    char *text = tv_strndup(b.data, b.len);
    char *name = tv_strndup(r->p_name, strlen(r->p_name));
    tv_buf_fini(&b);
    if (!text || !name) {
        tv_free(text);
        tv_free(name);
        r->oom = true;
        return;
    }
    pthread_rwlock_wrlock(&r->node->lock);
    int at = find_template_locked(r->node, name, legacy);
    bool ok = true;
    if (at >= 0 && create) {
        ok = false;
        tv_req_fail(r, TROVE_EARG, "%s [%s] already exists",
                    legacy ? "index_template" : "index template", name);
    } else if (at >= 0) {
        tv_free(r->node->st->templates[at].body);
        r->node->st->templates[at].body = text;
        tv_free(name);
        text = name = NULL;
    } else {
        tv_template *nt = tv_realloc(r->node->st->templates, (r->node->st->ntemplates + 1) * sizeof *nt);
        if (!nt) {
            ok = false;
            r->oom = true;
        } else {
            r->node->st->templates = nt;
            nt[r->node->st->ntemplates].name = name;
            nt[r->node->st->ntemplates].body = text;
            nt[r->node->st->ntemplates].legacy = legacy;
            nt[r->node->st->ntemplates].component = false;
            r->node->st->ntemplates++;
            qsort(nt, r->node->st->ntemplates, sizeof *nt, cmp_template);
            text = name = NULL;
        }
    }
    pthread_rwlock_unlock(&r->node->lock);
    tv_free(text);
    tv_free(name);
    if (!ok) return;
    tv_jw *o = tv_req_json(r, 200);
    tv_jw_obj_begin(o);
    tv_jw_keyz(o, "acknowledged");
    tv_jw_bool(o, true);
    tv_jw_obj_end(o);
}

static bool name_match_any(const char *const *names, size_t n, const char *name) {
    if (n == 0) return true;
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], "_all") == 0 || tv_simple_match(names[i], name, strlen(name))) return true;
    return false;
}

void tv_h_template_get(tv_req *r) {
    bool legacy = is_legacy(r);
    bool flat;
    if (!tv_req_param_bool(r, "flat_settings", false, &flat)) return;
    const char **names = NULL;
    size_t nn = r->p_name ? tv_split_commas(&r->arena, r->p_name, &names) : 0;
    pthread_rwlock_rdlock(&r->node->lock);
    size_t found = 0;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    if (!legacy) {
        tv_jw_keyz(w, "index_templates");
        tv_jw_arr_begin(w);
    }
    for (size_t i = 0; i < r->node->st->ntemplates; i++) {
        const tv_template *t = &r->node->st->templates[i];
        if (t->legacy != legacy || t->component || !name_match_any(names, nn, t->name)) continue;
        found++;
        tv_json *j = NULL;
        if (flat && tv_json_parse(&r->arena, t->body, strlen(t->body), &j, NULL) == TROVE_OK) {
            /* settings as flat keys */
            tv_json *holder = legacy ? j : (tv_json *)tv_json_get(j, "template");
            tv_json *s = holder ? (tv_json *)tv_json_get(holder, "settings") : NULL;
            tv_kv *kv;
            size_t n;
            if (s && tv_flatten_settings(&r->arena, s, false, &kv, &n)) {
                tv_json *fj = tv_kv_to_json(&r->arena, kv, n, true);
                if (fj) *s = *fj;
            }
        }
        if (legacy) {
            tv_jw_keyz(w, t->name);
        } else {
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "name");
            tv_jw_strz(w, t->name);
            tv_jw_keyz(w, "index_template");
        }
        if (j)
            tv_jw_value(w, j);
        else
            tv_jw_raw(w, t->body, strlen(t->body));
        if (!legacy) tv_jw_obj_end(w);
    }
    if (!legacy) tv_jw_arr_end(w);
    tv_jw_obj_end(w);
    pthread_rwlock_unlock(&r->node->lock);
    bool wildcard = false;
    for (size_t i = 0; i < nn; i++)
        if (strchr(names[i], '*')) wildcard = true;
    if (r->method == TV_HEAD) {
        tv_req_empty(r, found ? 200 : 404);
        return;
    }
    if (!found && nn && !wildcard) {
        if (legacy) {
            tv_jw *e = tv_req_json(r, 404);
            tv_jw_obj_begin(e);
            tv_jw_obj_end(e);
        } else {
            tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
            if (!e) {
                r->oom = true;
                return;
            }
            e->type = TROVE_ENOTFOUND;
            e->reason = tv_arena_sprintf(&r->arena, "index template matching [%s] not found", r->p_name);
            e->status = 404;
            if (!e->reason) {
                r->oom = true;
                return;
            }
            tv_req_error(r, e);
        }
    }
}

void tv_h_template_delete(tv_req *r) {
    bool legacy = is_legacy(r);
    const char **names = NULL;
    size_t nn = tv_split_commas(&r->arena, r->p_name ? r->p_name : "", &names);
    size_t removed = 0;
    pthread_rwlock_wrlock(&r->node->lock);
    size_t k = 0;
    for (size_t i = 0; i < r->node->st->ntemplates; i++) {
        tv_template *t = &r->node->st->templates[i];
        if (t->legacy == legacy && !t->component && nn && name_match_any(names, nn, t->name)) {
            tv_free(t->name);
            tv_free(t->body);
            removed++;
            continue;
        }
        r->node->st->templates[k++] = *t;
    }
    r->node->st->ntemplates = k;
    pthread_rwlock_unlock(&r->node->lock);
    bool wildcard = nn && (strchr(r->p_name, '*') != NULL);
    if (!removed && !wildcard) {
        tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
        if (!e) {
            r->oom = true;
            return;
        }
        e->type = TROVE_ENOTEMPLATE;
        e->reason = tv_arena_sprintf(&r->arena, "index_template [%s] missing", r->p_name ? r->p_name : "");
        e->status = 404;
        if (!e->reason) {
            r->oom = true;
            return;
        }
        tv_req_error(r, e);
        return;
    }
    tv_jw *o = tv_req_json(r, 200);
    tv_jw_obj_begin(o);
    tv_jw_keyz(o, "acknowledged");
    tv_jw_bool(o, true);
    tv_jw_obj_end(o);
}

/* ------------------------------------------------- index creation */

/* Mapping merge of a template and a later one or the request: objects are
 * merged key by key (existing keys keep their place, new keys follow in
 * their order), anything else is replaced by the later value. NULL on OOM. */
static tv_json *merge_json(tv_arena *a, const tv_json *base, const tv_json *over) {
    if (base->type != TV_JSON_OBJECT || over->type != TV_JSON_OBJECT) return (tv_json *)over;
    tv_json *o = tv_arena_calloc(a, 1, sizeof *o);
    size_t cap = (size_t)base->len + over->len;
    tv_json_member *ms = cap ? tv_arena_calloc(a, cap, sizeof *ms) : NULL;
    if (!o || (cap && !ms)) return NULL;
    o->type = TV_JSON_OBJECT;
    o->v.members = ms;
    uint32_t n = 0;
    for (uint32_t i = 0; i < base->len; i++) ms[n++] = base->v.members[i];
    for (uint32_t i = 0; i < over->len; i++) {
        const tv_json_member *m = &over->v.members[i];
        uint32_t at = UINT32_MAX;
        for (uint32_t j = 0; j < n && at == UINT32_MAX; j++)
            if (ms[j].key_len == m->key_len && memcmp(ms[j].key, m->key, m->key_len) == 0) at = j;
        if (at == UINT32_MAX) {
            ms[n++] = *m;
            continue;
        }
        tv_json *v = merge_json(a, &ms[at].val, &m->val);
        if (!v) return NULL;
        ms[at].val = *v;
    }
    o->len = n;
    return o;
}

static bool patterns_match(const tv_json *p, const char *name) {
    if (!p) return false;
    if (p->type == TV_JSON_STRING) return tv_simple_match(p->v.s, name, strlen(name));
    for (uint32_t i = 0; p->type == TV_JSON_ARRAY && i < p->len; i++)
        if (p->v.items[i].type == TV_JSON_STRING && tv_simple_match(p->v.items[i].v.s, name, strlen(name)))
            return true;
    return false;
}

typedef struct tsec {
    const tv_json *settings, *mappings, *aliases;
} tsec;

/* Template sections that apply to a new index name, in application order
 * (later overrides earlier). Caller holds the node lock. */
static size_t matching_templates(tv_req *r, const char *name, tsec *out, size_t cap) {
    trove_node *n = r->node;
    const tv_json *best = NULL;
    double best_prio = -1;
    for (size_t i = 0; i < n->st->ntemplates; i++) {
        if (n->st->templates[i].legacy || n->st->templates[i].component) continue;
        tv_json *j = NULL;
        if (tv_json_parse(&r->arena, n->st->templates[i].body, strlen(n->st->templates[i].body), &j, NULL) != TROVE_OK)
            continue;
        if (!patterns_match(tv_json_get(j, "index_patterns"), name)) continue;
        const tv_json *p = tv_json_get(j, "priority");
        double prio = p && tv_json_is_number(p) ? tv_json_as_double(p) : 0;
        if (!best || prio > best_prio) {
            best = j;
            best_prio = prio;
        }
    }
    if (best) {
        /* the component templates in composed_of order, then the
         * template's own (MetadataIndexTemplateService.collectSettings /
         * collectMappings: later ones win) */
        size_t k = 0;
        const tv_json *co = tv_json_get(best, "composed_of");
        for (uint32_t i = 0; co && co->type == TV_JSON_ARRAY && i < co->len && k + 1 < cap; i++) {
            const tv_json *c = &co->v.items[i];
            int at = c->type == TV_JSON_STRING ? tv_component_template_find_locked(n, c->v.s) : -1;
            tv_json *cj = NULL;
            if (at < 0 || tv_json_parse(&r->arena, n->st->templates[at].body, strlen(n->st->templates[at].body), &cj,
                                        NULL) != TROVE_OK)
                continue;
            const tv_json *ct = tv_json_get(cj, "template");
            if (!ct) continue;
            out[k].settings = tv_json_get(ct, "settings");
            out[k].mappings = tv_json_get(ct, "mappings");
            out[k].aliases = tv_json_get(ct, "aliases");
            k++;
        }
        const tv_json *t = tv_json_get(best, "template");
        if (t && k < cap) {
            out[k].settings = tv_json_get(t, "settings");
            out[k].mappings = tv_json_get(t, "mappings");
            out[k].aliases = tv_json_get(t, "aliases");
            k++;
        }
        return k;
    }
    /* legacy: ascending order */
    size_t k = 0;
    double orders[64];
    for (size_t i = 0; i < n->st->ntemplates && k < cap && k < 64; i++) {
        if (!n->st->templates[i].legacy) continue; /* composable or component */
        tv_json *j = NULL;
        if (tv_json_parse(&r->arena, n->st->templates[i].body, strlen(n->st->templates[i].body), &j, NULL) != TROVE_OK)
            continue;
        if (!patterns_match(tv_json_get(j, "index_patterns"), name)) continue;
        const tv_json *o = tv_json_get(j, "order");
        double ord = o && tv_json_is_number(o) ? tv_json_as_double(o) : 0;
        size_t at = k;
        while (at > 0 && orders[at - 1] > ord) {
            orders[at] = orders[at - 1];
            out[at] = out[at - 1];
            at--;
        }
        orders[at] = ord;
        out[at].settings = tv_json_get(j, "settings");
        out[at].mappings = tv_json_get(j, "mappings");
        out[at].aliases = tv_json_get(j, "aliases");
        k++;
    }
    return k;
}

/* One index setting ("default_pipeline": index.default_pipeline) in a
 * template section's settings, nested or flat; NULL when absent. */
static const tv_json *section_setting(const tv_json *st, const char *key) {
    if (!st || st->type != TV_JSON_OBJECT) return NULL;
    const tv_json *ix = tv_json_get(st, "index");
    const tv_json *v = ix && ix->type == TV_JSON_OBJECT ? tv_json_get(ix, key) : NULL;
    if (!v) {
        char flat[128];
        snprintf(flat, sizeof flat, "index.%s", key);
        v = tv_json_get(st, flat);
    }
    if (!v) v = tv_json_get(st, key);
    return v;
}

const char *tv_api_template_setting(tv_req *r, const char *name, const char *key) {
    const char *out = NULL;
    pthread_rwlock_rdlock(&r->node->lock);
    tsec ts[16];
    size_t nt = matching_templates(r, name, ts, TV_ARRAY_LEN(ts));
    for (size_t i = 0; i < nt; i++) {
        const tv_json *v = section_setting(ts[i].settings, key);
        if (v && v->type == TV_JSON_STRING) out = v->v.s;
        else if (v && v->type == TV_JSON_NULL) out = NULL;
    }
    pthread_rwlock_unlock(&r->node->lock);
    return out;
}

tv_index *tv_node_create_index_locked(tv_req *r, const char *name, const tv_json *settings,
                                      const tv_json *mappings, const tv_json *aliases) {
    tsec ts[16];
    size_t nt = matching_templates(r, name, ts, TV_ARRAY_LEN(ts));
    const tv_json *eff_settings = settings, *eff_mappings = mappings;
    if (nt) {
        /* settings: template keys, then the request's, the last one wins */
        TV_VEC(tv_kv) all = {0};
        bool ok = true;
        for (size_t i = 0; i <= nt && ok; i++) {
            const tv_json *s = i < nt ? ts[i].settings : settings;
            tv_kv *kv;
            size_t n;
            if (!tv_flatten_settings(&r->arena, s, true, &kv, &n)) ok = false;
            for (size_t j = 0; ok && j < n; j++)
                if (tv_vec_push(&all, kv[j])) ok = false;
        }
        tv_json *obj = NULL;
        if (ok) {
            tv_json *tmp = tv_kv_to_json(&r->arena, all.items, all.len, true);
            tv_kv *kv;
            size_t n;
            if (!tmp || !tv_flatten_settings(&r->arena, tmp, true, &kv, &n))
                ok = false;
            else
                obj = tv_kv_to_json(&r->arena, kv, n, true);
        }
        tv_vec_fini(&all);
        if (!ok || !obj) {
            r->oom = true;
            return NULL;
        }
        eff_settings = obj;
        /* mappings: merged object by object, the request last */
        const tv_json *m = NULL;
        for (size_t i = 0; i <= nt; i++) {
            const tv_json *x = i < nt ? ts[i].mappings : mappings;
            if (!x || x->type != TV_JSON_OBJECT) continue;
            if (!m) {
                m = x;
                continue;
            }
            m = merge_json(&r->arena, m, x);
            if (!m) {
                r->oom = true;
                return NULL;
            }
        }
        eff_mappings = m;
    }
    tv_error err;
    tv_error_clear(&err);
    tv_index *idx = tv_index_new(name, eff_settings, eff_mappings, &err);
    if (!idx) {
        if (err.code == TROVE_ENOMEM || err.code == TROVE_OK)
            r->oom = true;
        else
            tv_req_fail_tv(r, &err, NULL);
        return NULL;
    }
    if (tv_durable_create_index(r->node, idx, eff_mappings, &err) != TROVE_OK) {
        if (err.code == TROVE_ENOMEM) r->oom = true;
        else tv_req_fail_tv(r, &err, NULL);
        tv_index_release(idx);
        return NULL;
    }
    if (tv_map_put(&r->node->st->indices, name, strlen(name), idx, NULL) != TROVE_OK) {
        tv_index_release(idx);
        r->oom = true;
        return NULL;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < nt; i++) ok = tv_alias_add_from_body_locked(r, name, ts[i].aliases);
    if (ok) ok = tv_alias_add_from_body_locked(r, name, aliases);
    if (!ok) {
        tv_node_forget_index_locked(r->node, name);
        tv_map_del(&r->node->st->indices, name, strlen(name));
        tv_index_release(idx);
        return NULL;
    }
    return idx;
}
