/*
 * h_alias.c — index aliases: POST /_aliases (add, remove, remove_index),
 * PUT|POST|DELETE /{index}/_alias(es)/{name}, GET|HEAD /_alias[/{name}],
 * GET|HEAD /{index}/_alias[/{name}], aliases in create-index bodies, and
 * alias filters applied to _search/_count through an alias.
 *
 * Aliases live in the node (trove_node.aliases, an array sorted by index
 * then alias, under the node lock): the index layer knows nothing about
 * them. Each entry is one AliasMetadata of one index: filter (compact JSON),
 * index/search routing, is_write_index, is_hidden. Index resolution
 * (node.c) expands an alias to its indices and reports, per index, the
 * filters of the aliases that reached it.
 *
 * POST /_aliases is atomic as in OpenSearch: every action is checked and
 * applied to a copy of the alias table, which replaces the node's only when
 * all succeeded. A linear array was chosen over a map of maps: alias counts
 * are small and the array keeps GET output trivially sorted.
 *
 * Alias filters on searches: the search layer takes a body, so the api
 * layer rewrites the body to {"query":{"bool":{"must":[Q],"filter":[F]}}}
 * — what OpenSearch's search context builds (the query, or match_all, as a
 * MUST clause and the alias filter as a FILTER clause, so scores are the
 * query's). A request whose indices need different filters cannot be
 * expressed as one body and is answered with unsupported_operation_exception.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

/* ------------------------------------------------------------ helpers */

static char *json_compact(tv_req *r, const tv_json *v) {
    char *s = tv_json_compact(v);
    if (!s) r->oom = true;
    return s;
}

/* A scalar JSON value as the string OpenSearch keeps (routing values). */
static const char *scalar_text(tv_req *r, const tv_json *v) {
    if (v->type == TV_JSON_STRING) return v->v.s;
    if (tv_json_is_number(v) && v->raw) return tv_arena_strndup(&r->arena, v->raw, v->raw_len);
    if (v->type == TV_JSON_TRUE) return "true";
    if (v->type == TV_JSON_FALSE) return "false";
    return NULL;
}

static int cmp_alias(const void *a, const void *b) {
    const tv_alias *x = a, *y = b;
    int c = strcmp(x->index, y->index);
    return c ? c : strcmp(x->alias, y->alias);
}

/* The alias-name rules of MetadataCreateIndexService.validateIndexOrAliasName. */
static const char *alias_name_invalid(const char *name) {
    for (const char *p = name; *p; p++)
        if (strchr("\\/*?\"<>| ,", *p))
            return "must not contain the following characters [ , \", *, \\, <, |, ,, >, /, ?]";
    if (strchr(name, '#')) return "must not contain '#'";
    if (strchr(name, ':')) return "must not contain ':'";
    if (name[0] == '_' || name[0] == '-' || name[0] == '+') return "must not start with '_', '-', or '+'";
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) return "must not be '.' or '..'";
    return NULL;
}

static bool fail_invalid_alias(tv_req *r, const char *name, const char *why) {
    tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
    if (!e) {
        r->oom = true;
        return false;
    }
    e->type = TROVE_EALIASNAME;
    e->reason = tv_arena_sprintf(&r->arena, "Invalid alias name [%s]%s%s", name, why[0] == ':' ? "" : ", ", why);
    e->status = 400;
    tv_api_err_meta(e, "index", name);
    tv_api_err_meta(e, "index_uuid", "_na_");
    if (!e->reason) {
        r->oom = true;
        return false;
    }
    tv_req_error(r, e);
    return false;
}

/* A table of aliases being edited (POST /_aliases works on a copy). */
typedef struct atable {
    tv_alias *a;
    size_t n, cap;
} atable;

static void atable_free(atable *t) {
    for (size_t i = 0; i < t->n; i++) tv_alias_fini(&t->a[i]);
    tv_free(t->a);
    t->a = NULL;
    t->n = t->cap = 0;
}

static bool atable_copy(atable *t, const tv_alias *src, size_t n) {
    t->a = n ? tv_calloc(n, sizeof *t->a) : NULL;
    t->n = 0;
    t->cap = n;
    if (n && !t->a) return false;
    for (size_t i = 0; i < n; i++) {
        tv_alias *d = &t->a[t->n++];
        const tv_alias *s = &src[i];
        d->is_write_index = s->is_write_index;
        d->is_hidden = s->is_hidden;
        d->alias = tv_strndup(s->alias, strlen(s->alias));
        d->index = tv_strndup(s->index, strlen(s->index));
        d->filter = s->filter ? tv_strndup(s->filter, strlen(s->filter)) : NULL;
        d->index_routing = s->index_routing ? tv_strndup(s->index_routing, strlen(s->index_routing)) : NULL;
        d->search_routing = s->search_routing ? tv_strndup(s->search_routing, strlen(s->search_routing)) : NULL;
        if (!d->alias || !d->index || (s->filter && !d->filter) || (s->index_routing && !d->index_routing) ||
            (s->search_routing && !d->search_routing))
            return false;
    }
    return true;
}

static void atable_remove_at(atable *t, size_t i) {
    tv_alias_fini(&t->a[i]);
    memmove(&t->a[i], &t->a[i + 1], (t->n - i - 1) * sizeof *t->a);
    t->n--;
}

/* Adds (or replaces) an alias entry; takes ownership of e's strings. */
static bool atable_put(atable *t, tv_alias *e) {
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->a[i].index, e->index) == 0 && strcmp(t->a[i].alias, e->alias) == 0) {
            tv_alias_fini(&t->a[i]);
            t->a[i] = *e;
            return true;
        }
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 8;
        tv_alias *na = tv_realloc(t->a, nc * sizeof *na);
        if (!na) {
            tv_alias_fini(e);
            return false;
        }
        t->a = na;
        t->cap = nc;
    }
    t->a[t->n++] = *e;
    qsort(t->a, t->n, sizeof *t->a, cmp_alias);
    return true;
}

/* Installs t as the node's alias table (caller holds the write lock). */
static void atable_install(trove_node *n, atable *t) {
    for (size_t i = 0; i < n->st->naliases; i++) tv_alias_fini(&n->st->aliases[i]);
    tv_free(n->st->aliases);
    n->st->aliases = t->a;
    n->st->naliases = t->n;
    t->a = NULL;
    t->n = t->cap = 0;
}

/* Parses an alias definition ({filter, routing, index_routing,
 * search_routing, is_write_index, is_hidden}) into e (strings owned). */
static bool parse_alias_spec(tv_req *r, const tv_json *spec, tv_alias *e, const char *ctx) {
    e->is_write_index = -1;
    e->is_hidden = -1;
    bool action = strcmp(ctx, "alias") != 0, idx_given = false, srch_given = false;
    if (!spec || spec->type == TV_JSON_NULL) return true;
    if (spec->type != TV_JSON_OBJECT)
        return tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
    for (uint32_t i = 0; i < spec->len; i++) {
        const tv_json_member *m = &spec->v.members[i];
        const tv_json *v = &m->val;
        const char *k = m->key;
        if (strcmp(k, "filter") == 0) {
            if (v->type == TV_JSON_NULL) continue;
            if (v->type != TV_JSON_OBJECT)
                return tv_req_fail(r, TROVE_EARG, "[%s] filter must be an object", ctx);
            if (v->len == 0) continue;
            tv_free(e->filter);
            e->filter = json_compact(r, v);
            if (!e->filter) return false;
        } else if (strcmp(k, "routing") == 0 || strcmp(k, "index_routing") == 0 ||
                   strcmp(k, "search_routing") == 0 || strcmp(k, "indexRouting") == 0 ||
                   strcmp(k, "index-routing") == 0 || strcmp(k, "searchRouting") == 0 ||
                   strcmp(k, "search-routing") == 0) {
            const char *s = scalar_text(r, v);
            if (!s) {
                if (v->type == TV_JSON_NULL) continue;
                return tv_req_fail(r, TROVE_EARG, "[%s] %s must be a string", ctx, k);
            }
            bool general = k[0] == 'r';
            bool idx = k[0] != 's', srch = k[0] != 'i';
            /* AliasMetadata (an index's or a template's "aliases") applies
             * them in order; an alias action's index_routing and
             * search_routing win over its routing wherever they appear */
            if (action) {
                if (general) {
                    idx = !idx_given;
                    srch = !srch_given;
                } else if (idx) {
                    idx_given = true;
                } else {
                    srch_given = true;
                }
            }
            if (idx) {
                tv_free(e->index_routing);
                e->index_routing = tv_strndup(s, strlen(s));
                if (!e->index_routing) return !(r->oom = true);
            }
            if (srch) {
                tv_free(e->search_routing);
                e->search_routing = tv_strndup(s, strlen(s));
                if (!e->search_routing) return !(r->oom = true);
            }
        } else if (strcmp(k, "is_write_index") == 0 || strcmp(k, "is_hidden") == 0) {
            int8_t b;
            if (v->type == TV_JSON_TRUE || (v->type == TV_JSON_STRING && strcmp(v->v.s, "true") == 0))
                b = 1;
            else if (v->type == TV_JSON_FALSE || (v->type == TV_JSON_STRING && strcmp(v->v.s, "false") == 0))
                b = 0;
            else if (v->type == TV_JSON_NULL)
                b = -1;
            else
                return tv_req_fail(r, TROVE_EARG,
                                   "Failed to parse value [%s] as only [true] or [false] are allowed.",
                                   v->type == TV_JSON_STRING ? v->v.s : "?");
            if (k[3] == 'w')
                e->is_write_index = b;
            else
                e->is_hidden = b;
        } else if (strcmp(ctx, "alias") == 0) {
            return tv_req_fail(r, TROVE_EARG, "Unknown field [%s]", k);
        } else if (strcmp(k, "index") && strcmp(k, "indices") && strcmp(k, "alias") && strcmp(k, "aliases") &&
                   strcmp(k, "must_exist")) {
            return tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [%s] unknown field [%s]", ctx, k);
        }
    }
    return true;
}

/* Checks the invariants OpenSearch's AliasValidator and
 * IndexAbstraction.Alias check after a change: one write index per alias,
 * is_hidden the same on every index of an alias. */
static bool atable_validate(tv_req *r, const atable *t) {
    for (size_t i = 0; i < t->n; i++) /* AliasValidator.validateAliasStandalone */
        if (t->a[i].index_routing && strchr(t->a[i].index_routing, ','))
            return tv_req_fail(r, TROVE_EARG,
                               "alias [%s] has several index routing values associated with it", t->a[i].alias);
    for (size_t i = 0; i < t->n; i++) {
        const tv_alias *a = &t->a[i];
        size_t writes = 0;
        bool hidden_mismatch = false;
        tv_buf names;
        tv_buf_init(&names);
        for (size_t j = 0; j < t->n; j++) {
            const tv_alias *b = &t->a[j];
            if (strcmp(a->alias, b->alias) != 0) continue;
            if (b->is_write_index == 1) {
                tv_buf_printf(&names, "%s%s", writes ? ", " : "", b->index);
                writes++;
            }
            if ((a->is_hidden == 1) != (b->is_hidden == 1)) hidden_mismatch = true;
        }
        if (writes > 1) {
            tv_req_fail(r, TROVE_EILLEGALSTATE, "alias [%s] has more than one write index [%s]",
                        a->alias, names.data ? names.data : "");
            tv_buf_fini(&names);
            return false;
        }
        tv_buf_fini(&names);
        if (hidden_mismatch)
            return tv_req_fail(r, TROVE_EILLEGALSTATE,
                               "alias [%s] has is_hidden set to true on indices [%s] but does not have is_hidden "
                               "set to true on indices []; alias must have the same is_hidden setting on all "
                               "indices",
                               a->alias, a->index);
    }
    return true;
}

/* Adds an alias to an index in t: validates the name and the spec. */
static bool add_alias(tv_req *r, atable *t, const char *index, const char *alias, const tv_json *spec,
                      const char *ctx) {
    const char *bad = alias_name_invalid(alias);
    if (!alias[0]) return tv_req_fail(r, TROVE_EARG, "alias name is required");
    if (bad) return fail_invalid_alias(r, alias, bad);
    if (tv_map_has(&r->node->st->indices, alias, strlen(alias)))
        return fail_invalid_alias(r, alias, ": an index or data stream exists with the same name as the alias");
    tv_alias e;
    memset(&e, 0, sizeof e);
    if (!parse_alias_spec(r, spec, &e, ctx)) {
        tv_alias_fini(&e);
        return false;
    }
    e.alias = tv_strndup(alias, strlen(alias));
    e.index = tv_strndup(index, strlen(index));
    if (!e.alias || !e.index) {
        tv_alias_fini(&e);
        r->oom = true;
        return false;
    }
    if (!atable_put(t, &e)) {
        r->oom = true;
        return false;
    }
    return true;
}

bool tv_alias_rollover_locked(tv_req *r, const char *alias, const char *old_index, const char *new_index) {
    atable t;
    if (!atable_copy(&t, r->node->st->aliases, r->node->st->naliases)) {
        atable_free(&t);
        return !(r->oom = true);
    }
    int8_t hidden = -1;
    bool explicit_write = false;
    size_t at = t.n;
    for (size_t i = 0; i < t.n; i++)
        if (strcmp(t.a[i].alias, alias) == 0 && strcmp(t.a[i].index, old_index) == 0) {
            at = i;
            hidden = t.a[i].is_hidden;
            explicit_write = t.a[i].is_write_index == 1;
        }
    /* MetadataRolloverService.rolloverAliasToNewIndex: the new index gets a
     * plain alias (no filter or routing); an explicit write alias stays on
     * the old index as is_write_index false, any other leaves it */
    tv_alias add[2];
    memset(add, 0, sizeof add);
    size_t nadd = explicit_write ? 2 : 1;
    const char *idx[2] = {new_index, old_index};
    bool ok = true;
    for (size_t k = 0; k < nadd; k++) {
        add[k].alias = tv_strndup(alias, strlen(alias));
        add[k].index = tv_strndup(idx[k], strlen(idx[k]));
        add[k].is_write_index = explicit_write ? (k == 0) : -1;
        add[k].is_hidden = hidden;
        ok = ok && add[k].alias && add[k].index;
    }
    if (ok && !explicit_write && at < t.n) atable_remove_at(&t, at);
    for (size_t k = 0; k < nadd; k++) {
        if (!ok) tv_alias_fini(&add[k]);
        else if (!atable_put(&t, &add[k])) ok = false; /* it freed add[k] */
    }
    if (!ok) {
        atable_free(&t);
        return !(r->oom = true);
    }
    atable_install(r->node, &t);
    return true;
}

bool tv_alias_add_from_body_locked(tv_req *r, const char *index, const tv_json *aliases) {
    if (!aliases || aliases->type == TV_JSON_NULL) return true;
    if (aliases->type != TV_JSON_OBJECT)
        return tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
    atable t;
    if (!atable_copy(&t, r->node->st->aliases, r->node->st->naliases)) {
        atable_free(&t);
        r->oom = true;
        return false;
    }
    for (uint32_t i = 0; i < aliases->len; i++) {
        const tv_json_member *m = &aliases->v.members[i];
        if (!add_alias(r, &t, index, m->key, &m->val, "alias")) {
            atable_free(&t);
            return false;
        }
    }
    if (!atable_validate(r, &t)) {
        atable_free(&t);
        return false;
    }
    atable_install(r->node, &t);
    return true;
}

/* Writes one alias's AliasMetadata fields (inside its object). */
static void write_alias_body(tv_jw *w, const tv_alias *a) {
    tv_jw_obj_begin(w);
    if (a->filter) {
        tv_jw_keyz(w, "filter");
        tv_jw_raw(w, a->filter, strlen(a->filter));
    }
    if (a->index_routing) {
        tv_jw_keyz(w, "index_routing");
        tv_jw_strz(w, a->index_routing);
    }
    if (a->search_routing) {
        tv_jw_keyz(w, "search_routing");
        tv_jw_strz(w, a->search_routing);
    }
    if (a->is_write_index >= 0) {
        tv_jw_keyz(w, "is_write_index");
        tv_jw_bool(w, a->is_write_index == 1);
    }
    if (a->is_hidden >= 0) {
        tv_jw_keyz(w, "is_hidden");
        tv_jw_bool(w, a->is_hidden == 1);
    }
    tv_jw_obj_end(w);
}

bool tv_alias_write_metadata(tv_req *r, tv_jw *w, const tv_json *aliases) {
    tv_jw_obj_begin(w);
    for (uint32_t i = 0; aliases && aliases->type == TV_JSON_OBJECT && i < aliases->len; i++) {
        const tv_json_member *m = &aliases->v.members[i];
        tv_alias e;
        memset(&e, 0, sizeof e);
        bool ok = parse_alias_spec(r, &m->val, &e, "alias");
        if (ok) {
            tv_jw_key(w, m->key, m->key_len);
            write_alias_body(w, &e);
        }
        tv_alias_fini(&e);
        if (!ok) return false;
    }
    tv_jw_obj_end(w);
    return true;
}

void tv_alias_write_index_aliases_locked(trove_node *n, tv_jw *w, const char *index) {
    tv_jw_obj_begin(w);
    for (size_t i = 0; i < n->st->naliases; i++) {
        if (strcmp(n->st->aliases[i].index, index) != 0) continue;
        tv_jw_keyz(w, n->st->aliases[i].alias);
        write_alias_body(w, &n->st->aliases[i]);
    }
    tv_jw_obj_end(w);
}

/* ------------------------------------------------------- POST /_aliases */

static void write_ack(tv_req *r) {
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "acknowledged");
    tv_jw_bool(w, true);
    tv_jw_obj_end(w);
}

/* A string or array-of-strings member as a list (arena). */
static bool str_list(tv_req *r, const tv_json *v, const char ***out, size_t *n, const char *what) {
    *out = NULL;
    *n = 0;
    if (!v) return true;
    /* AliasActions' setters: an empty name or list is refused */
    if (v->type == TV_JSON_STRING) {
        if (!v->len) return tv_req_fail(r, TROVE_EARG, "[%s] can't be empty string", what);
        *n = tv_split_commas(&r->arena, v->v.s, out);
        return true;
    }
    if (v->type != TV_JSON_ARRAY)
        return tv_req_fail(r, TROVE_EARG, "[%s] must be a string or an array", what);
    if (!v->len) return tv_req_fail(r, TROVE_EARG, "[%s] can't be empty", what);
    const char **l = tv_arena_calloc(&r->arena, v->len + 1, sizeof *l);
    if (!l) return !(r->oom = true);
    for (uint32_t i = 0; i < v->len; i++) {
        if (v->v.items[i].type != TV_JSON_STRING)
            return tv_req_fail(r, TROVE_EARG, "[%s] must contain strings", what);
        if (!v->v.items[i].len) return tv_req_fail(r, TROVE_EARG, "[%s] can't contain empty string", what);
        l[(*n)++] = v->v.items[i].v.s;
    }
    *out = l;
    return true;
}

/* Concrete indices an action names (wildcards over open and closed
 * indices; aliases expand to their indices). */
static bool action_indices(tv_req *r, const char *const *names, size_t n, tv_index_list *out) {
    tv_buf b;
    tv_buf_init(&b);
    for (size_t i = 0; i < n; i++) tv_buf_printf(&b, "%s%s", i ? "," : "", names[i]);
    char *expr = b.oom ? NULL : tv_arena_strndup(&r->arena, b.data ? b.data : "", b.len);
    tv_buf_fini(&b);
    if (!expr) return !(r->oom = true);
    tv_resolve_opts o = {.allow_no_indices = false, .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED};
    return tv_node_resolve_ex(r, expr, &o, out);
}

static bool fail_aliases_missing(tv_req *r, const char *const *names, size_t n) {
    tv_buf b;
    tv_buf_init(&b);
    for (size_t i = 0; i < n; i++) tv_buf_printf(&b, "%s%s", i ? "," : "", names[i]);
    tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
    char *list = b.oom ? NULL : tv_arena_strndup(&r->arena, b.data ? b.data : "", b.len);
    tv_buf_fini(&b);
    if (!e || !list) return !(r->oom = true);
    e->type = TROVE_ENOALIAS;
    e->reason = tv_arena_sprintf(&r->arena, "aliases [%s] missing", list);
    e->status = 404;
    tv_api_err_meta(e, "resource.type", "aliases");
    tv_api_err_meta(e, "resource.id", list);
    if (!e->reason) return !(r->oom = true);
    tv_req_error(r, e);
    return false;
}

/* Removes aliases matching any of names (wildcards, _all) from index;
 * counts removals. */
static size_t remove_matching(atable *t, const char *index, const char *const *names, size_t n) {
    size_t removed = 0;
    for (size_t i = 0; i < t->n;) {
        bool hit = false;
        if (strcmp(t->a[i].index, index) == 0)
            for (size_t j = 0; j < n && !hit; j++)
                hit = strcmp(names[j], "_all") == 0 || strcmp(names[j], "*") == 0 ||
                      tv_simple_match(names[j], t->a[i].alias, strlen(t->a[i].alias));
        if (hit) {
            atable_remove_at(t, i);
            removed++;
        } else {
            i++;
        }
    }
    return removed;
}

/* One parsed action of POST /_aliases, its indices resolved before the
 * node's write lock is taken (resolution takes the read lock). */
typedef struct action {
    const char *kind;
    const tv_json *spec;
    const char **al;
    size_t nal;
    tv_index_list l;
} action;

static bool prepare_action(tv_req *r, const char *kind, const tv_json *a, action *out) {
    out->kind = kind;
    out->spec = a;
    if (a->type != TV_JSON_OBJECT)
        return tv_req_fail(r, TROVE_EPARSE, "[%s] failed to parse field [%s]", "alias_action",
                           kind);
    const char **idx = NULL, **al = NULL;
    size_t nidx = 0, nal = 0, n1 = 0, n2 = 0;
    const char **i1 = NULL, **i2 = NULL, **a1 = NULL, **a2 = NULL;
    if (!str_list(r, tv_json_get(a, "index"), &i1, &n1, "index") ||
        !str_list(r, tv_json_get(a, "indices"), &i2, &n2, "indices"))
        return false;
    nidx = n1 + n2;
    idx = tv_arena_calloc(&r->arena, nidx + 1, sizeof *idx);
    if (!idx) return !(r->oom = true);
    for (size_t i = 0; i < n1; i++) idx[i] = i1[i];
    for (size_t i = 0; i < n2; i++) idx[n1 + i] = i2[i];
    size_t m1 = 0, m2 = 0;
    if (!str_list(r, tv_json_get(a, "alias"), &a1, &m1, "alias") ||
        !str_list(r, tv_json_get(a, "aliases"), &a2, &m2, "aliases"))
        return false;
    nal = m1 + m2;
    al = tv_arena_calloc(&r->arena, nal + 1, sizeof *al);
    if (!al) return !(r->oom = true);
    for (size_t i = 0; i < m1; i++) al[i] = a1[i];
    for (size_t i = 0; i < m2; i++) al[m1 + i] = a2[i];
    out->al = al;
    out->nal = nal;

    bool remove_index = strcmp(kind, "remove_index") == 0;
    tv_buf v;
    tv_buf_init(&v);
    int nerr = 0;
    if (nidx == 0) tv_buf_printf(&v, "Validation Failed: %d: One of [index] or [indices] is required;", ++nerr);
    if (!remove_index && nal == 0) {
        const char *pre = nerr ? "" : "Validation Failed: ";
        tv_buf_printf(&v, "%s%d: One of [alias] or [aliases] is required;", pre, ++nerr);
    }
    if (remove_index && nal) {
        const char *pre = nerr ? "" : "Validation Failed: ";
        tv_buf_printf(&v, "%s%d: [aliases] is unsupported for [REMOVE_INDEX];", pre, ++nerr);
    }
    if (nerr) {
        tv_req_fail(r, TROVE_EVALIDATION, "%s", v.data ? v.data : "");
        tv_buf_fini(&v);
        return false;
    }
    tv_buf_fini(&v);
    return action_indices(r, idx, nidx, &out->l);
}

static bool apply_action(tv_req *r, atable *t, action *ac, tv_buf *deleted) {
    tv_index_list *l = &ac->l;
    bool ok = true;
    if (strcmp(ac->kind, "add") == 0) {
        for (size_t i = 0; ok && i < l->len; i++)
            for (size_t j = 0; ok && j < ac->nal; j++)
                ok = add_alias(r, t, tv_index_name(l->items[i]), ac->al[j], ac->spec, "add");
    } else if (strcmp(ac->kind, "remove") == 0) {
        bool must_exist = true;
        const tv_json *me = tv_json_get(ac->spec, "must_exist");
        if (me && me->type == TV_JSON_FALSE) must_exist = false;
        size_t removed = 0;
        for (size_t i = 0; i < l->len; i++) removed += remove_matching(t, tv_index_name(l->items[i]), ac->al, ac->nal);
        if (!removed && must_exist) ok = fail_aliases_missing(r, ac->al, ac->nal);
    } else {
        for (size_t i = 0; i < l->len; i++)
            tv_buf_printf(deleted, "%s%s", deleted->len ? "," : "", tv_index_name(l->items[i]));
    }
    return ok;
}

void tv_h_aliases_post(tv_req *r) {
    if (!r->body_len) {
        tv_req_fail(r, TROVE_EPARSEEXC, "request body is required");
        return;
    }
    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body) return;
    const tv_json *actions = tv_json_get(body, "actions");
    if (body->type != TV_JSON_OBJECT || (actions && actions->type != TV_JSON_ARRAY)) {
        tv_req_fail(r, TROVE_EPARSE, "[aliases] failed to parse field [actions]");
        return;
    }
    if (!actions || actions->len == 0) {
        tv_req_fail(r, TROVE_EVALIDATION,
                    "Validation Failed: 1: Must specify at least one alias action;");
        return;
    }
    action *acts = tv_arena_calloc(&r->arena, actions->len, sizeof *acts);
    if (!acts) {
        r->oom = true;
        return;
    }
    size_t nacts = 0;
    bool ok = true;
    for (uint32_t i = 0; ok && i < actions->len; i++) {
        const tv_json *act = &actions->v.items[i];
        if (act->type != TV_JSON_OBJECT || act->len != 1) {
            ok = tv_req_fail(r, TROVE_EARG, "Expected field name but got %s",
                             act->type == TV_JSON_OBJECT ? "END_OBJECT" : "VALUE");
            break;
        }
        const char *kind = act->v.members[0].key;
        if (strcmp(kind, "add") != 0 && strcmp(kind, "remove") != 0 && strcmp(kind, "remove_index") != 0) {
            ok = tv_req_fail(r, TROVE_EPARSE, "Unknown field [%s]", kind);
            break;
        }
        ok = prepare_action(r, kind, &act->v.members[0].val, &acts[nacts]);
        if (ok) nacts++;
    }
    tv_buf deleted;
    tv_buf_init(&deleted);
    if (ok) {
        pthread_rwlock_wrlock(&r->node->lock);
        atable t;
        ok = atable_copy(&t, r->node->st->aliases, r->node->st->naliases);
        if (!ok) r->oom = true;
        for (size_t i = 0; ok && i < nacts; i++) ok = apply_action(r, &t, &acts[i], &deleted);
        if (ok) ok = atable_validate(r, &t);
        if (ok) {
            atable_install(r->node, &t);
            /* remove_index: drop the named indices */
            if (deleted.len) {
                const char **names = NULL;
                char *dl = tv_arena_strndup(&r->arena, deleted.data, deleted.len);
                size_t nn = dl ? tv_split_commas(&r->arena, dl, &names) : 0;
                for (size_t i = 0; i < nn; i++) {
                    tv_index *cur = tv_map_get(&r->node->st->indices, names[i], strlen(names[i]));
                    tv_error derr = TV_ERROR_INIT;
                    if (!cur) continue;
                    if (tv_durable_drop_index(r->node, cur, &derr) != TROVE_OK) {
                        /* stays served: the request has already succeeded */
                        fprintf(stderr, "trove: remove_index [%s]: %s\n", names[i], derr.reason);
                        continue;
                    }
                    tv_node_forget_index_locked(r->node, names[i]);
                    tv_map_del(&r->node->st->indices, names[i], strlen(names[i]));
                    tv_index_release(cur);
                }
            }
        }
        atable_free(&t);
        pthread_rwlock_unlock(&r->node->lock);
    }
    for (size_t i = 0; i < nacts; i++) tv_index_list_release(&acts[i].l);
    tv_buf_fini(&deleted);
    if (ok) write_ack(r);
}

/* ------------------------------------ PUT|DELETE /{index}/_alias/{name} */

void tv_h_alias_put(tv_req *r) {
    const tv_json *body = NULL;
    if (r->body_len) {
        body = tv_req_parse_body(r, TV_BODY_PARSER);
        if (!body) return;
    }
    /* RestIndexPutAliasAction: the body's "index" and "alias" override
     * the path's; any other field than an alias's is refused */
    const char *name = r->p_name, *index = r->p_index;
    for (uint32_t i = 0; body && body->type == TV_JSON_OBJECT && i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        const char *k = m->key;
        bool is_index = !strcmp(k, "index"), is_alias = !strcmp(k, "alias");
        if ((is_index || is_alias) && m->val.type == TV_JSON_STRING) {
            if (is_index) index = m->val.v.s;
            else name = m->val.v.s;
        } else if (!is_index && !is_alias && strcmp(k, "filter") && strcmp(k, "routing") &&
                   strcmp(k, "index_routing") && strcmp(k, "indexRouting") && strcmp(k, "index-routing") &&
                   strcmp(k, "search_routing") && strcmp(k, "searchRouting") && strcmp(k, "search-routing") &&
                   strcmp(k, "is_write_index") && strcmp(k, "is_hidden")) {
            tv_req_fail(r, TROVE_EARG, "unknown field [%s]", k);
            return;
        }
    }
    if (!index || !*index || !name) {
        tv_buf v;
        tv_buf_init(&v);
        int n = 0;
        if (!name) tv_buf_printf(&v, "%d: [alias] is required;", ++n);
        if (!index || !*index) tv_buf_printf(&v, "%s%d: One of [index] or [indices] is required;", n ? " " : "", n + 1);
        tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: %.*s", (int)v.len, v.data ? (const char *)v.data : "");
        tv_buf_fini(&v);
        return;
    }
    tv_resolve_opts o = {.allow_no_indices = false, .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED};
    tv_index_list l;
    if (!tv_node_resolve_ex(r, index, &o, &l)) return;
    pthread_rwlock_wrlock(&r->node->lock);
    atable t;
    bool ok = atable_copy(&t, r->node->st->aliases, r->node->st->naliases);
    if (!ok) r->oom = true;
    for (size_t i = 0; ok && i < l.len; i++)
        ok = add_alias(r, &t, tv_index_name(l.items[i]), name, body, "put_alias");
    if (ok) ok = atable_validate(r, &t);
    if (ok) atable_install(r->node, &t);
    atable_free(&t);
    pthread_rwlock_unlock(&r->node->lock);
    tv_index_list_release(&l);
    if (ok) write_ack(r);
}

void tv_h_alias_delete(tv_req *r) {
    tv_resolve_opts o = {.allow_no_indices = false, .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED};
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    const char **names = NULL;
    size_t nn = tv_split_commas(&r->arena, r->p_name ? r->p_name : "", &names);
    pthread_rwlock_wrlock(&r->node->lock);
    atable t;
    bool ok = atable_copy(&t, r->node->st->aliases, r->node->st->naliases);
    if (!ok) r->oom = true;
    size_t removed = 0;
    for (size_t i = 0; ok && i < l.len; i++) removed += remove_matching(&t, tv_index_name(l.items[i]), names, nn);
    if (ok && !removed) ok = fail_aliases_missing(r, names, nn);
    if (ok) atable_install(r->node, &t);
    atable_free(&t);
    pthread_rwlock_unlock(&r->node->lock);
    tv_index_list_release(&l);
    if (ok) write_ack(r);
}

/* ------------------------------------------------ GET|HEAD ..._alias.. */

static bool name_matches(const char *const *names, size_t n, const char *alias) {
    if (n == 0) return true;
    bool hit = false;
    bool wildcard_seen = false;
    for (size_t j = 0; j < n; j++) {
        const char *p = names[j];
        bool neg = p[0] == '-' && wildcard_seen;
        if (neg) p++;
        if (strchr(p, '*')) wildcard_seen = true;
        bool m = strcmp(p, "_all") == 0 || tv_simple_match(p, alias, strlen(alias));
        if (m) hit = !neg;
    }
    return hit;
}

void tv_h_alias_get(tv_req *r) {
    const char **names = NULL;
    size_t nn = r->p_name ? tv_split_commas(&r->arena, r->p_name, &names) : 0;
    tv_resolve_opts o = {.allow_no_indices = true,
                         .expand = TV_EXPAND_OPEN | TV_EXPAND_CLOSED | TV_EXPAND_HIDDEN,
                         .ignore_aliases = false};
    if (!tv_resolve_opts_parse(r, &o)) return;
    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    pthread_rwlock_rdlock(&r->node->lock);
    /* which requested names (non-wildcard) matched nothing */
    tv_buf missing;
    tv_buf_init(&missing);
    size_t nmissing = 0;
    for (size_t j = 0; j < nn; j++) {
        if (strchr(names[j], '*') || strcmp(names[j], "_all") == 0 || names[j][0] == '-') continue;
        bool found = false;
        for (size_t i = 0; i < r->node->st->naliases && !found; i++) {
            if (strcmp(r->node->st->aliases[i].alias, names[j]) != 0) continue;
            for (size_t k = 0; k < l.len && !found; k++)
                if (strcmp(tv_index_name(l.items[k]), r->node->st->aliases[i].index) == 0) found = true;
        }
        if (!found) {
            tv_buf_printf(&missing, "%s%s", nmissing ? "," : "", names[j]);
            nmissing++;
        }
    }
    bool any = false;
    int status = nmissing ? 404 : 200;
    tv_jw *w = tv_req_json(r, status);
    tv_jw_obj_begin(w);
    if (nmissing) {
        tv_jw_keyz(w, "error");
        char *msg = tv_arena_sprintf(&r->arena, "alias%s [%s] missing", nmissing > 1 ? "es" : "",
                                     missing.data ? missing.data : "");
        tv_jw_strz(w, msg ? msg : "");
        if (!msg) r->oom = true;
        tv_jw_keyz(w, "status");
        tv_jw_int(w, 404);
    }
    for (size_t k = 0; k < l.len; k++) {
        const char *iname = tv_index_name(l.items[k]);
        bool has = false;
        for (size_t i = 0; i < r->node->st->naliases && !has; i++)
            if (strcmp(r->node->st->aliases[i].index, iname) == 0 && name_matches(names, nn, r->node->st->aliases[i].alias))
                has = true;
        if (!has && nn) continue;
        any = any || has;
        tv_jw_keyz(w, iname);
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "aliases");
        tv_jw_obj_begin(w);
        for (size_t i = 0; i < r->node->st->naliases; i++) {
            const tv_alias *a = &r->node->st->aliases[i];
            if (strcmp(a->index, iname) != 0 || !name_matches(names, nn, a->alias)) continue;
            tv_jw_keyz(w, a->alias);
            write_alias_body(w, a);
        }
        tv_jw_obj_end(w);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    pthread_rwlock_unlock(&r->node->lock);
    tv_buf_fini(&missing);
    tv_index_list_release(&l);
    if (r->method == TV_HEAD) tv_req_empty(r, nn && (nmissing || !any) ? 404 : 200);
}

/* --------------------------------------- _search/_count through aliases */

/* Rewrites the body so that the query runs under the alias filter. */
static bool wrap_body(tv_req *r, const char *filter) {
    const tv_json *body = NULL;
    if (r->body_len) {
        tv_json *b = NULL;
        if (tv_json_parse(&r->arena, r->body, r->body_len, &b, NULL) != TROVE_OK || b->type != TV_JSON_OBJECT)
            return true; /* the handler reports the body's error */
        body = b;
    }
    tv_buf out;
    tv_buf_init(&out);
    tv_jw w;
    tv_jw_init(&w, &out, false);
    const tv_json *q = tv_json_get(body, "query");
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "query");
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "bool");
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "must");
    tv_jw_arr_begin(&w);
    if (q)
        tv_jw_value(&w, q);
    else
        tv_jw_raw(&w, "{\"match_all\":{}}", strlen("{\"match_all\":{}}"));
    tv_jw_arr_end(&w);
    tv_jw_keyz(&w, "filter");
    tv_jw_arr_begin(&w);
    tv_jw_raw(&w, filter, strlen(filter));
    tv_jw_arr_end(&w);
    tv_jw_obj_end(&w);
    tv_jw_obj_end(&w);
    for (uint32_t i = 0; body && i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (tv_streq(m->key, m->key_len, "query")) continue;
        tv_jw_key(&w, m->key, m->key_len);
        tv_jw_value(&w, &m->val);
    }
    tv_jw_obj_end(&w);
    char *nb = out.oom ? NULL : tv_arena_strndup(&r->arena, out.data, out.len);
    size_t nl = out.len;
    tv_buf_fini(&out);
    if (!nb) return !(r->oom = true);
    r->body = nb;
    r->body_len = nl;
    return true;
}

static void search_through_aliases(tv_req *r, bool count) {
    if (r->p_index && !strchr(r->p_index, '*') && !strchr(r->p_index, ',') && tv_node_is_alias(r->node, r->p_index)) {
        bool iu, ani;
        if (!tv_req_param_bool(r, "ignore_unavailable", false, &iu)) return;
        if (!tv_req_param_bool(r, "allow_no_indices", true, &ani)) return;
        tv_index_list l;
        if (!tv_node_resolve(r, r->p_index, iu, ani, &l)) return;
        const char *f = l.filters && l.len ? l.filters[0] : NULL;
        bool same = true;
        for (size_t i = 1; i < l.len; i++) {
            const char *g = l.filters ? l.filters[i] : NULL;
            if ((f == NULL) != (g == NULL) || (f && strcmp(f, g) != 0)) same = false;
        }
        tv_index_list_release(&l);
        if (!same) {
            tv_req_fail(r, TROVE_EUNSUPPORTED,
                        "trove cannot search indices with different alias filters in one request");
            return;
        }
        if (f && !wrap_body(r, f)) return;
    }
    if (count)
        tv_h_count(r);
    else
        tv_h_search(r);
}

void tv_h_search_aliased(tv_req *r) { search_through_aliases(r, false); }
void tv_h_count_aliased(tv_req *r) { search_through_aliases(r, true); }
