/*
 * h_component_template.c — component templates: PUT/POST, GET, HEAD and
 * DELETE /_component_template[/{name}] (OpenSearch's
 * RestPutComponentTemplateAction and friends).
 *
 * A component template is {"template": {settings, mappings, aliases},
 * "version", "_meta"}; it is kept in the node's template list
 * (tv_template.component) as the compact JSON GET prints, settings
 * normalised as index templates' are ("index." prefix, strings), so it is
 * copied with clones and written to a data directory's node metadata like
 * the index templates. Composable index templates name them in
 * composed_of; h_template.c refuses a put naming a missing one and applies
 * them at index creation. Deleting a component template an index template
 * still uses is refused as MetadataIndexTemplateService does.
 *
 * Rejected: a second list in the node state for component templates. The
 * template list already has the copy-on-write, the durable format and the
 * ordering; a flag costs one field.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

int tv_component_template_find_locked(trove_node *n, const char *name) {
    for (size_t i = 0; i < n->st->ntemplates; i++)
        if (n->st->templates[i].component && strcmp(n->st->templates[i].name, name) == 0) return (int)i;
    return -1;
}

static int cmp_template(const void *a, const void *b) {
    const tv_template *x = a, *y = b;
    return strcmp(x->name, y->name);
}

static void ack(tv_req *r) {
    tv_jw *o = tv_req_json(r, 200);
    tv_jw_obj_begin(o);
    tv_jw_keyz(o, "acknowledged");
    tv_jw_bool(o, true);
    tv_jw_obj_end(o);
}

/* PUT|POST /_component_template/{name} */
void tv_h_component_template_put(tv_req *r) {
    if (!r->body_len) {
        tv_req_fail(r, TROVE_EPARSEEXC, "request body is required");
        return;
    }
    bool create;
    if (!tv_req_param_bool(r, "create", false, &create)) return;
    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body) return;
    if (body->type != TV_JSON_OBJECT) {
        tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
        return;
    }
    for (uint32_t i = 0; i < body->len; i++) {
        const char *k = body->v.members[i].key;
        if (strcmp(k, "template") && strcmp(k, "version") && strcmp(k, "_meta")) {
            tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [component_template] unknown field [%s]", k);
            return;
        }
    }
    const tv_json *t = tv_json_get(body, "template"), *version = tv_json_get(body, "version"),
                  *meta = tv_json_get(body, "_meta");
    if (!t) {
        tv_req_fail(r, TROVE_EARG, "Required [template]");
        return;
    }
    if (t->type != TV_JSON_OBJECT) {
        tv_req_fail(r, TROVE_EXCONTENT, "[1:13] [component_template] failed to parse field [template]");
        return;
    }
    for (uint32_t i = 0; i < t->len; i++) {
        const char *k = t->v.members[i].key;
        if (strcmp(k, "settings") && strcmp(k, "mappings") && strcmp(k, "aliases")) {
            tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [template] unknown field [%s]", k);
            return;
        }
    }
    if (version && version->type != TV_JSON_INT && version->type != TV_JSON_NULL) {
        tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [component_template] failed to parse field [version]");
        return;
    }
    if (meta && meta->type != TV_JSON_OBJECT && meta->type != TV_JSON_NULL) {
        tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [component_template] failed to parse field [_meta]");
        return;
    }
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "template");
    tv_jw_obj_begin(&w);
    const tv_json *s = tv_json_get(t, "settings"), *m = tv_json_get(t, "mappings"), *al = tv_json_get(t, "aliases");
    if (s && s->type != TV_JSON_NULL) {
        tv_kv *kv;
        size_t n;
        tv_json *sj = NULL;
        if (!tv_flatten_settings(&r->arena, s, true, &kv, &n) || !(sj = tv_kv_to_json(&r->arena, kv, n, false))) {
            tv_buf_fini(&b);
            r->oom = true;
            return;
        }
        tv_jw_keyz(&w, "settings");
        tv_jw_value(&w, sj);
    }
    if (m && m->type != TV_JSON_NULL) {
        tv_jw_keyz(&w, "mappings");
        tv_jw_value(&w, m);
    }
    if (al && al->type != TV_JSON_NULL) {
        tv_jw_keyz(&w, "aliases");
        tv_jw_value(&w, al);
    }
    tv_jw_obj_end(&w);
    if (version && version->type != TV_JSON_NULL) {
        tv_jw_keyz(&w, "version");
        tv_jw_value(&w, version);
    }
    if (meta && meta->type != TV_JSON_NULL) {
        tv_jw_keyz(&w, "_meta");
        tv_jw_value(&w, meta);
    }
    tv_jw_obj_end(&w);
    char *text = b.oom ? NULL : tv_strndup(b.data, b.len);
    char *name = tv_strndup(r->p_name, strlen(r->p_name));
    tv_buf_fini(&b);
    if (!text || !name) {
        tv_free(text);
        tv_free(name);
        r->oom = true;
        return;
    }
    bool ok = true;
    pthread_rwlock_wrlock(&r->node->lock);
    tv_node_state *st = r->node->st;
    int at = tv_component_template_find_locked(r->node, name);
    if (at >= 0 && create) {
        ok = false;
        tv_req_fail(r, TROVE_EARG, "component template [%s] already exists", name);
    } else if (at >= 0) {
        tv_free(st->templates[at].body);
        st->templates[at].body = text;
        tv_free(name);
        text = name = NULL;
    } else {
        tv_template *nt = tv_realloc(st->templates, (st->ntemplates + 1) * sizeof *nt);
        if (!nt) {
            ok = false;
            r->oom = true;
        } else {
            st->templates = nt;
            nt[st->ntemplates] = (tv_template){.name = name, .body = text, .legacy = false, .component = true};
            st->ntemplates++;
            qsort(nt, st->ntemplates, sizeof *nt, cmp_template);
            text = name = NULL;
        }
    }
    pthread_rwlock_unlock(&r->node->lock);
    tv_free(text);
    tv_free(name);
    if (ok) ack(r);
}

static bool name_match_any(const char *const *names, size_t n, const char *name) {
    if (n == 0) return true;
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], "_all") == 0 || tv_simple_match(names[i], name, strlen(name))) return true;
    return false;
}

/* GET|HEAD /_component_template[/{name}] */
void tv_h_component_template_get(tv_req *r) {
    bool flat;
    if (!tv_req_param_bool(r, "flat_settings", false, &flat)) return;
    const char **names = NULL;
    size_t nn = r->p_name ? tv_split_commas(&r->arena, r->p_name, &names) : 0;
    size_t found = 0;
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "component_templates");
    tv_jw_arr_begin(w);
    pthread_rwlock_rdlock(&r->node->lock);
    for (size_t i = 0; i < r->node->st->ntemplates; i++) {
        const tv_template *t = &r->node->st->templates[i];
        if (!t->component || !name_match_any(names, nn, t->name)) continue;
        found++;
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "name");
        tv_jw_strz(w, t->name);
        tv_jw_keyz(w, "component_template");
        tv_json *j = NULL;
        if (flat && tv_json_parse(&r->arena, t->body, strlen(t->body), &j, NULL) == TROVE_OK) {
            tv_json *tt = (tv_json *)tv_json_get(j, "template");
            tv_json *s = tt ? (tv_json *)tv_json_get(tt, "settings") : NULL;
            tv_kv *kv;
            size_t n;
            if (s && tv_flatten_settings(&r->arena, s, false, &kv, &n)) {
                tv_json *fj = tv_kv_to_json(&r->arena, kv, n, true);
                if (fj) *s = *fj;
            }
        }
        if (j)
            tv_jw_value(w, j);
        else
            tv_jw_raw(w, t->body, strlen(t->body));
        tv_jw_obj_end(w);
    }
    pthread_rwlock_unlock(&r->node->lock);
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
    bool wildcard = false;
    for (size_t i = 0; i < nn; i++)
        if (strchr(names[i], '*') || strcmp(names[i], "_all") == 0) wildcard = true;
    if (r->method == TV_HEAD) {
        tv_req_empty(r, found || (!nn) ? 200 : 404);
        return;
    }
    if (!found && nn && !wildcard)
        tv_req_fail(r, TROVE_ENOTFOUND, "component template matching [%s] not found", r->p_name);
}

/* DELETE /_component_template/{name} (names and wildcards, comma list) */
void tv_h_component_template_delete(tv_req *r) {
    const char **names = NULL;
    size_t nn = tv_split_commas(&r->arena, r->p_name ? r->p_name : "", &names);
    pthread_rwlock_wrlock(&r->node->lock);
    tv_node_state *st = r->node->st;
    /* which would go; refuse when an index template still uses one */
    tv_buf used, users;
    tv_buf_init(&used);
    tv_buf_init(&users);
    size_t matched = 0, nused = 0, nusers = 0;
    for (size_t i = 0; i < st->ntemplates; i++) {
        const tv_template *c = &st->templates[i];
        if (!c->component || !nn || !name_match_any(names, nn, c->name)) continue;
        matched++;
        bool in_use = false;
        for (size_t j = 0; j < st->ntemplates; j++) {
            const tv_template *t = &st->templates[j];
            if (t->legacy || t->component) continue;
            tv_json *tj = NULL;
            if (tv_json_parse(&r->arena, t->body, strlen(t->body), &tj, NULL) != TROVE_OK) continue;
            const tv_json *co = tv_json_get(tj, "composed_of");
            for (uint32_t k = 0; co && co->type == TV_JSON_ARRAY && k < co->len; k++) {
                const tv_json *e = &co->v.items[k];
                if (e->type != TV_JSON_STRING || strcmp(e->v.s, c->name) != 0) continue;
                in_use = true;
                tv_buf_printf(&users, "%s%s", nusers++ ? ", " : "", t->name);
                break;
            }
        }
        if (in_use) tv_buf_printf(&used, "%s%s", nused++ ? ", " : "", c->name);
    }
    bool ok = true;
    if (nused) {
        ok = false;
        tv_req_fail(r, TROVE_EARG, "component templates [%.*s] cannot be removed as they are still in use by index "
                                   "templates [%.*s]",
                    (int)used.len, used.data ? used.data : "", (int)users.len, users.data ? users.data : "");
    } else if (!matched) {
        bool all = nn == 1 && (strcmp(names[0], "*") == 0 || strcmp(names[0], "_all") == 0);
        if (!all) {
            ok = false;
            tv_req_fail(r, TROVE_ENOTFOUND, "%s", r->p_name ? r->p_name : "");
        }
    } else {
        size_t k = 0;
        for (size_t i = 0; i < st->ntemplates; i++) {
            tv_template *t = &st->templates[i];
            if (t->component && name_match_any(names, nn, t->name)) {
                tv_free(t->name);
                tv_free(t->body);
                continue;
            }
            st->templates[k++] = *t;
        }
        st->ntemplates = k;
    }
    pthread_rwlock_unlock(&r->node->lock);
    tv_buf_fini(&used);
    tv_buf_fini(&users);
    if (ok) ack(r);
}
