/*
 * h_field_caps.c — GET|POST /_field_caps and /{index}/_field_caps: the
 * capabilities of fields (type, searchable, aggregatable, meta) merged
 * over the indices a request names, as OpenSearch 3.1 answers them.
 *
 * What OpenSearch does, and so what this file does:
 *   - RestFieldCapabilitiesAction: `fields` is split on ',' as Java's
 *     String.split does (trailing empty strings dropped); no field at all
 *     is the setter's IllegalArgumentException "specified fields can't be
 *     null or empty" (400 illegal_argument_exception, before the request
 *     is validated, so action_request_validation_exception's "no fields
 *     specified" is never what the REST API answers). IndicesOptions
 *     default to strictExpandOpen: ignore_unavailable false,
 *     allow_no_indices true, wildcards to open indices, and a closed index
 *     named explicitly is not an error. A body is {"index_filter": query};
 *     any other key is parsing_exception "request does not support [k]".
 *   - TransportFieldCapabilitiesAction: the expression resolves to
 *     concrete indices (aliases to their indices, missing names
 *     index_not_found_exception); one request per index; an index whose
 *     request fails (a closed index: its READ block) is left out of the
 *     answer silently (3.1 has no "failures" section), as is one the
 *     index_filter cannot match.
 *   - TransportFieldCapabilitiesIndexAction.shardOperation, per index:
 *     every pattern becomes names (no '*': the name itself; else every
 *     field type's full name matching it: leaves, multi-fields and the
 *     metadata fields, never objects); each name with a field type gives
 *     (familyTypeName, isSearchable, isAggregatable, meta); then each
 *     dotted name's parents up to the first already answered are added as
 *     "object" (false, false) when they are objects (a multi-field's
 *     parent is a field: skipped, the walk goes on).
 *   - merge: "indices" is the answering indices sorted by name; per field,
 *     per type, a builder collects (index, searchable, aggregatable) and
 *     meta (key -> set of values); include_unmapped adds type "unmapped"
 *     for the answering indices that lack the field; a field with more
 *     than one type lists "indices" under each type;
 *     non_searchable_indices / non_aggregatable_indices appear only when
 *     some index is and some is not; meta keys and values are sorted.
 *   - FieldCapabilitiesResponse.toXContent: {"indices":[..],"fields":{..}}
 *     where "fields" and each field's types are java.util.HashMaps: they
 *     print in HashMap iteration order: by bucket of String.hashCode for
 *     the map's capacity, then by insertion order within a bucket. Keys
 *     are inserted here in name order; OpenSearch inserts them in the
 *     order its per-index answers arrive, so two field names that share
 *     a bucket may print the other way round there.
 *
 * index_filter: OpenSearch keeps an index when the filter does not
 * rewrite to match_none on it (SearchService.canMatch, a per-shard rewrite
 * with the shard's value ranges, not a search). trove reproduces the two
 * exact cases, match_all (every index) and match_none (none); any other
 * query is refused with unsupported_operation_exception naming
 * index_filter rather than approximated.
 *
 * A field alias answers under its own name with its target's type and
 * capabilities (MapperService.fieldType resolves it; simpleMatchToFullName
 * lists it). Text's hidden "._index_prefix" / "._index_phrase" sub-fields
 * (index_prefixes, index_phrases), which no name lookup finds, answer
 * through their parent with their field types' names, "prefix" and
 * "phrase". Not modelled: a flat_object field is
 * answered as one field; OpenSearch's keyed sub-paths ("f.a.b", looked up
 * by exact name) and its internal "._value" / "._valueAndPath" keyword
 * sub-fields are not listed.
 *
 * Algorithm: one flat array of (field, type, index, searchable,
 * aggregatable, meta) entries, one per field per index, sorted by (field,
 * type, index) and then walked in groups; alternatives (hash maps of
 * builders, as OpenSearch) cost more code for the same result.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

/* The metadata fields of every OpenSearch 3.1 index (IndicesModule's
 * built-in metadata mappers) with their field types' answers. */
typedef struct meta_field {
    const char *name, *type;
    bool searchable, aggregatable;
} meta_field;

static const meta_field meta_fields[] = {
    {"_data_stream_timestamp", "_data_stream_timestamp", false, false},
    {"_doc_count", "long", false, false}, /* familyTypeName is long */
    {"_field_names", "_field_names", true, false},
    {"_id", "_id", true, true}, /* indices.id_field_data.enabled: true */
    {"_ignored", "_ignored", true, false},
    {"_index", "_index", true, true},
    {"_nested_path", "_nested_path", true, false},
    {"_routing", "_routing", true, false},
    {"_seq_no", "_seq_no", true, true},
    {"_source", "_source", false, false},
    {"_version", "_version", false, false},
};

static const meta_field *find_meta(const char *name) {
    for (size_t i = 0; i < TV_ARRAY_LEN(meta_fields); i++)
        if (strcmp(meta_fields[i].name, name) == 0) return &meta_fields[i];
    return NULL;
}

/* One field of one index. */
typedef struct fc_ent {
    const char *field;
    const char *type;
    const char *index;
    bool searchable, aggregatable;
    const tv_json *meta; /* borrowed from a mapping kept until the answer */
} fc_ent;

typedef TV_VEC(fc_ent) fc_vec;
typedef TV_VEC(const char *) str_vec;

static int cmp_strp(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_ent(const void *a, const void *b) {
    const fc_ent *x = a, *y = b;
    int c = strcmp(x->field, y->field);
    if (c) return c;
    c = strcmp(x->type, y->type);
    if (c) return c;
    return strcmp(x->index, y->index);
}

/* Java's String.split(","): empty strings kept except trailing ones. */
static size_t split_fields(tv_arena *a, const char *s, const char ***out) {
    size_t n = 1;
    for (const char *p = s; *p; p++)
        if (*p == ',') n++;
    const char **v = tv_arena_calloc(a, n, sizeof *v);
    if (!v) return SIZE_MAX;
    size_t k = 0;
    const char *p = s;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        char *c = tv_arena_strndup(a, p, l);
        if (!c) return SIZE_MAX;
        v[k++] = c;
        if (!e) break;
        p = e + 1;
    }
    while (k && !*v[k - 1]) k--;
    *out = v;
    return k;
}

static bool has_wildcard(const char *p) { return strchr(p, '*') != NULL; }

/* The names one index answers for: the patterns' matches, sorted, unique. */
static bool index_names(tv_req *r, const tv_mapping *m, const char *const *pats, size_t npats, str_vec *names) {
    uint32_t nf = tv_mapping_field_count(m);
    for (size_t i = 0; i < npats; i++) {
        const char *p = pats[i];
        if (!has_wildcard(p)) {
            if (tv_vec_push(names, p)) goto oom;
            continue;
        }
        for (size_t k = 0; k < TV_ARRAY_LEN(meta_fields); k++)
            if (tv_simple_match(p, meta_fields[k].name, strlen(meta_fields[k].name)) &&
                tv_vec_push(names, meta_fields[k].name))
                goto oom;
        for (uint32_t id = 0; id < nf; id++) {
            const tv_field *f = tv_mapping_field_by_id(m, id);
            if (!f || f->type == TV_FT_OBJECT) continue;
            if (tv_simple_match(p, f->path, f->path_len) && tv_vec_push(names, f->path)) goto oom;
        }
        /* field aliases (not in the id table): MapperService lists them */
        size_t na = tv_mapping_match_names(m, "*", 1, NULL, 0);
        const tv_field **all = na ? tv_malloc(na * sizeof *all) : NULL;
        if (na && !all) goto oom;
        na = tv_mapping_match_names(m, "*", 1, all, na);
        for (size_t a = 0; a < na; a++) {
            const tv_field *f = all[a];
            if (!f->alias_target || !tv_simple_match(p, f->path, f->path_len)) continue;
            if (tv_vec_push(names, f->path)) {
                tv_free(all);
                goto oom;
            }
        }
        tv_free(all);
    }
    if (names->len > 1) qsort(names->items, names->len, sizeof *names->items, cmp_strp);
    size_t k = 0;
    for (size_t i = 0; i < names->len; i++)
        if (k == 0 || strcmp(names->items[k - 1], names->items[i]) != 0) names->items[k++] = names->items[i];
    names->len = k;
    return true;
oom:
    r->oom = true;
    return false;
}

/* A mapped field type of name in m (NULL: none; objects have none). A
 * field alias is its own entry: it answers under its name with its
 * target's capabilities. */
static const tv_field *field_type(const tv_mapping *m, const char *name, const char **hidden_type) {
    size_t nl = strlen(name);
    const tv_field *f = tv_mapping_field_or_alias(m, name, nl);
    *hidden_type = NULL;
    if (!f && nl > 14 && (!strcmp(name + nl - 14, "._index_prefix") || !strcmp(name + nl - 14, "._index_phrase"))) {
        /* text's hidden sub-fields (PrefixFieldType "prefix", PhraseFieldType
         * "phrase"), found through their parent */
        const tv_field *p = tv_mapping_field_or_alias(m, name, nl - 14);
        bool pre = name[nl - 3] == 'f';
        f = p ? (pre ? p->prefix_field : p->phrase_field) : NULL;
        if (f) *hidden_type = pre ? "prefix" : "phrase";
    }
    if (!f || f->type == TV_FT_OBJECT || f->id >= tv_mapping_field_count(m)) return NULL; /* a flat_object sub-path */
    return f;
}

/* Appends e and records its name in seen (the index's answered names). */
static bool add_ent(tv_req *r, fc_vec *out, tv_map *seen, fc_ent e) {
    if (tv_vec_push(out, e) || tv_map_put(seen, e.field, strlen(e.field), (void *)1, NULL) != TROVE_OK) {
        r->oom = true;
        return false;
    }
    return true;
}

/* shardOperation for one index: appends its entries to out. */
static bool index_caps(tv_req *r, const char *index, const tv_mapping *m, const char *const *pats, size_t npats,
                       fc_vec *out) {
    str_vec names = {0};
    tv_map seen;
    tv_map_init_borrowed(&seen);
    bool ok = index_names(r, m, pats, npats, &names);
    for (size_t i = 0; ok && i < names.len; i++) {
        const char *name = names.items[i];
        fc_ent e = {.field = name, .index = index};
        const meta_field *mf = find_meta(name);
        const char *hidden_type = NULL;
        const tv_field *f = mf ? NULL : field_type(m, name, &hidden_type);
        if (mf) {
            e.type = mf->type;
            e.searchable = mf->searchable;
            e.aggregatable = mf->aggregatable;
        } else if (f) {
            tv_field_caps c;
            tv_field_caps_of(f, &c);
            e.field = f->path;
            e.type = c.type;
            e.searchable = c.searchable;
            e.aggregatable = c.aggregatable;
            e.meta = c.meta;
            if (hidden_type) e.type = hidden_type;
        } else {
            continue;
        }
        if (tv_map_has(&seen, e.field, strlen(e.field))) continue;
        if (!(ok = add_ent(r, out, &seen, e)) || mf) continue;
        /* the objects above it, up to one already answered */
        const char *path = f->path;
        size_t len = f->path_len;
        while (ok && len) {
            while (len && path[len - 1] != '.') len--;
            if (!len) break;
            len--; /* the parent's length */
            if (tv_map_has(&seen, path, len)) break;
            const tv_field *p = tv_mapping_field(m, path, len);
            if (p && p->type == TV_FT_OBJECT) {
                fc_ent o = {.field = p->path, .type = p->nested ? "nested" : "object", .index = index};
                ok = add_ent(r, out, &seen, o);
            }
        }
    }
    tv_map_fini(&seen);
    tv_vec_fini(&names);
    return ok;
}

/* ------------------------------------------------------------- output */

typedef struct hm_key {
    const char *key;
    uint32_t bucket;
    size_t seq;  /* insertion order */
    size_t from; /* first entry of the group */
    size_t to;   /* one past its last entry */
} hm_key;

static int cmp_hm_key(const void *a, const void *b) {
    const hm_key *x = a, *y = b;
    if (x->bucket != y->bucket) return x->bucket < y->bucket ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void write_index_list(tv_jw *w, const char *key, const fc_ent *e, size_t n, int which, bool want) {
    tv_jw_keyz(w, key);
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        bool v = which == 0 ? true : which == 1 ? e[i].searchable : e[i].aggregatable;
        if (v == want) tv_jw_strz(w, e[i].index);
    }
    tv_jw_arr_end(w);
}

typedef struct meta_kv {
    const char *k, *v;
} meta_kv;

static int cmp_kv(const void *a, const void *b) {
    const meta_kv *x = a, *y = b;
    int c = strcmp(x->k, y->k);
    return c ? c : strcmp(x->v, y->v);
}

/* FieldCapabilities.toXContent of one (field, type) group e[0..n). */
static bool write_caps(tv_req *r, tv_jw *w, const fc_ent *e, size_t n, bool with_indices) {
    bool s = true, a = true, any_s = false, any_a = false;
    size_t nmeta = 0;
    for (size_t i = 0; i < n; i++) {
        s &= e[i].searchable;
        a &= e[i].aggregatable;
        any_s |= e[i].searchable;
        any_a |= e[i].aggregatable;
        if (e[i].meta) nmeta += e[i].meta->len;
    }
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "type");
    tv_jw_strz(w, e[0].type);
    tv_jw_keyz(w, "searchable");
    tv_jw_bool(w, s);
    tv_jw_keyz(w, "aggregatable");
    tv_jw_bool(w, a);
    if (with_indices) write_index_list(w, "indices", e, n, 0, true);
    if (!s && any_s) write_index_list(w, "non_searchable_indices", e, n, 1, false);
    if (!a && any_a) write_index_list(w, "non_aggregatable_indices", e, n, 2, false);
    if (nmeta) {
        meta_kv *kv = tv_arena_calloc(&r->arena, nmeta, sizeof *kv);
        if (!kv) {
            r->oom = true;
            return false;
        }
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            for (uint32_t j = 0; e[i].meta && j < e[i].meta->len; j++) {
                const tv_json_member *m = &e[i].meta->v.members[j];
                if (m->val.type != TV_JSON_STRING) continue;
                kv[k].k = m->key;
                kv[k].v = m->val.v.s;
                k++;
            }
        qsort(kv, k, sizeof *kv, cmp_kv);
        tv_jw_keyz(w, "meta");
        tv_jw_obj_begin(w);
        for (size_t i = 0; i < k; i++) {
            bool new_key = i == 0 || strcmp(kv[i - 1].k, kv[i].k) != 0;
            if (!new_key && strcmp(kv[i - 1].v, kv[i].v) == 0) continue; /* a set */
            if (new_key) {
                if (i) tv_jw_arr_end(w);
                tv_jw_keyz(w, kv[i].k);
                tv_jw_arr_begin(w);
            }
            tv_jw_strz(w, kv[i].v);
        }
        if (k) tv_jw_arr_end(w);
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    return true;
}

/* Writes the merged answer of the sorted entries. */
static bool write_answer(tv_req *r, const char *const *indices, size_t nindices, fc_vec *ents, bool include_unmapped) {
    /* include_unmapped: an "unmapped" entry for every answering index
     * that lacks a field some index has */
    if (ents->len > 1) qsort(ents->items, ents->len, sizeof *ents->items, cmp_ent);
    if (include_unmapped && ents->len) {
        size_t n0 = ents->len;
        for (size_t i = 0; i < n0;) {
            size_t j = i;
            while (j < n0 && strcmp(ents->items[j].field, ents->items[i].field) == 0) j++;
            for (size_t x = 0; x < nindices; x++) {
                bool has = false;
                for (size_t k = i; k < j && !has; k++) has = strcmp(ents->items[k].index, indices[x]) == 0;
                if (has) continue;
                fc_ent u = {.field = ents->items[i].field, .type = "unmapped", .index = indices[x]};
                if (tv_vec_push(ents, u)) {
                    r->oom = true;
                    return false;
                }
            }
            i = j;
        }
    }
    if (ents->len > 1) qsort(ents->items, ents->len, sizeof *ents->items, cmp_ent);
    /* groups: fields, and types within each field */
    size_t nfields = 0;
    for (size_t i = 0; i < ents->len; i++)
        if (i == 0 || strcmp(ents->items[i - 1].field, ents->items[i].field) != 0) nfields++;
    hm_key *fk = tv_arena_calloc(&r->arena, nfields ? nfields : 1, sizeof *fk);
    if (!fk) {
        r->oom = true;
        return false;
    }
    size_t nf = 0;
    for (size_t i = 0; i < ents->len;) {
        size_t j = i;
        while (j < ents->len && strcmp(ents->items[j].field, ents->items[i].field) == 0) j++;
        fk[nf] = (hm_key){.key = ents->items[i].field, .seq = nf, .from = i, .to = j};
        nf++;
        i = j;
    }
    for (size_t i = 0; i < nf; i++) fk[i].bucket = tv_java_hm_bucket(fk[i].key, strlen(fk[i].key), nf);
    if (nf > 1) qsort(fk, nf, sizeof *fk, cmp_hm_key);

    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "indices");
    tv_jw_arr_begin(w);
    for (size_t i = 0; i < nindices; i++) tv_jw_strz(w, indices[i]);
    tv_jw_arr_end(w);
    tv_jw_keyz(w, "fields");
    tv_jw_obj_begin(w);
    for (size_t f = 0; f < nf; f++) {
        const fc_ent *e = ents->items;
        hm_key tk[16];
        hm_key *types = tk;
        size_t nt = 0, cap = TV_ARRAY_LEN(tk);
        for (size_t i = fk[f].from; i < fk[f].to;) {
            size_t j = i;
            while (j < fk[f].to && strcmp(e[j].type, e[i].type) == 0) j++;
            if (nt == cap) {
                hm_key *g = tv_arena_calloc(&r->arena, cap * 2, sizeof *g);
                if (!g) {
                    r->oom = true;
                    return false;
                }
                memcpy(g, types, nt * sizeof *g);
                types = g;
                cap *= 2;
            }
            types[nt] = (hm_key){.key = e[i].type, .seq = nt, .from = i, .to = j};
            nt++;
            i = j;
        }
        for (size_t i = 0; i < nt; i++) types[i].bucket = tv_java_hm_bucket(types[i].key, strlen(types[i].key), nt);
        if (nt > 1) qsort(types, nt, sizeof *types, cmp_hm_key);
        tv_jw_keyz(w, fk[f].key);
        tv_jw_obj_begin(w);
        for (size_t t = 0; t < nt; t++) {
            tv_jw_keyz(w, types[t].key);
            if (!write_caps(r, w, e + types[t].from, types[t].to - types[t].from, nt > 1)) return false;
        }
        tv_jw_obj_end(w);
    }
    tv_jw_obj_end(w);
    tv_jw_obj_end(w);
    return true;
}

/* -------------------------------------------------------------- body */

/* A ParsingException at [line:col], caused by cause (may be NULL). */
static bool parsing_error(tv_req *r, uint32_t line, uint32_t col, const char *reason, tv_api_err *cause) {
    tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
    if (!e) {
        r->oom = true;
        return false;
    }
    e->type = TROVE_EPARSE;
    e->reason = reason;
    e->line = line;
    e->col = col;
    e->status = 400;
    e->cause = cause;
    tv_req_error(r, e);
    return false;
}

/* RestActions.getQueryContent("index_filter", parser). *all: the filter
 * matches every index (none given, or match_all); false with the response
 * set on an error. */
static bool parse_body(tv_req *r, bool *all) {
    *all = true;
    if (!r->body || r->body_len == 0) return true;
    size_t i = 0;
    while (i < r->body_len && strchr(" \t\r\n", r->body[i])) i++;
    if (i == r->body_len) return true;
    tv_json *b = NULL;
    tv_json_error je;
    memset(&je, 0, sizeof je);
    tv_status st = tv_json_parse(&r->arena, r->body, r->body_len, &b, &je);
    if (st == TROVE_ENOMEM) {
        r->oom = true;
        return false;
    }
    if (st != TROVE_OK) {
        /* the catch-all of getQueryContent: "Failed to parse" caused by
         * Jackson's error (located here where Jackson stopped, not at
         * the parser's last token as OpenSearch locates it) */
        tv_api_err *c = tv_arena_calloc(&r->arena, 1, sizeof *c);
        if (!c) {
            r->oom = true;
            return false;
        }
        c->type = st == TROVE_ELIMIT ? TROVE_ESTREAMLIMIT : TROVE_EJSON;
        c->reason = tv_arena_sprintf(&r->arena,
                                     "%s\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` "
                                     "disabled); line: %u, column: %u]",
                                     je.msg, je.line, je.col);
        c->status = 400;
        return parsing_error(r, je.line, je.col, "Failed to parse", c);
    }
    uint32_t line = 1, col = 1;
    if (b->type != TV_JSON_OBJECT) {
        static const char *const tok[] = {"VALUE_NULL",          "VALUE_BOOLEAN",       "VALUE_BOOLEAN",
                                          "VALUE_NUMBER_INT",    "VALUE_NUMBER_INT",    "VALUE_NUMBER_FLOAT",
                                          "VALUE_STRING",        "START_ARRAY",         "START_OBJECT"};
        tv_json_linecol(r->body, r->body_len, b->off, &line, &col);
        char *m = tv_arena_sprintf(&r->arena, "Expected [START_OBJECT] but found [%s]", tok[b->type]);
        return m ? parsing_error(r, line, col, m, NULL) : (r->oom = true, false);
    }
    const tv_json *filter = NULL;
    for (uint32_t k = 0; k < b->len; k++) {
        const tv_json_member *m = &b->v.members[k];
        if (!tv_streq(m->key, m->key_len, "index_filter")) {
            tv_json_linecol(r->body, r->body_len, m->key_off, &line, &col);
            char *msg = tv_arena_sprintf(&r->arena, "request does not support [%s]", m->key);
            return msg ? parsing_error(r, line, col, msg, NULL) : (r->oom = true, false);
        }
        filter = &m->val;
        if (filter->type != TV_JSON_OBJECT) {
            tv_json_linecol(r->body, r->body_len, filter->off, &line, &col);
            return parsing_error(r, line, col, "[_na] query malformed, must start with start_object", NULL);
        }
    }
    if (!filter) return true;
    if (filter->type == TV_JSON_OBJECT && filter->len == 1 && filter->v.members[0].val.type == TV_JSON_OBJECT) {
        const tv_json_member *q = &filter->v.members[0];
        if (tv_streq(q->key, q->key_len, "match_all")) return true;
        if (tv_streq(q->key, q->key_len, "match_none")) {
            *all = false;
            return true;
        }
    }
    return tv_req_fail(r, TROVE_EUNSUPPORTED,
                       "trove supports [index_filter] of _field_caps only as match_all or match_none (OpenSearch "
                       "keeps an index when the filter cannot rewrite to match_none on it)");
}

/* ----------------------------------------------------------- handler */

void tv_h_field_caps(tv_req *r) {
    const char *fp = tv_req_param(r, "fields");
    const char **pats = NULL;
    size_t npats = fp ? split_fields(&r->arena, fp, &pats) : 0;
    if (npats == SIZE_MAX) {
        r->oom = true;
        return;
    }
    if (npats == 0) {
        tv_req_fail(r, TROVE_EARG, "specified fields can't be null or empty");
        return;
    }
    tv_resolve_opts o = {.ignore_unavailable = false, .allow_no_indices = true, .expand = TV_EXPAND_OPEN};
    if (!tv_resolve_opts_parse(r, &o)) return;
    bool include_unmapped;
    if (!tv_req_param_bool(r, "include_unmapped", false, &include_unmapped)) return;
    bool all;
    if (!parse_body(r, &all)) return;

    tv_index_list l;
    if (!tv_node_resolve_ex(r, r->p_index, &o, &l)) return;
    const tv_mapping **maps = tv_arena_calloc(&r->arena, l.len ? l.len : 1, sizeof *maps);
    const char **names = tv_arena_calloc(&r->arena, l.len ? l.len : 1, sizeof *names);
    fc_vec ents = {0};
    size_t nnames = 0;
    if (!maps || !names) {
        r->oom = true;
        goto done;
    }
    for (size_t i = 0; i < l.len && all; i++) {
        const char *name = tv_index_name(l.items[i]);
        if (tv_node_is_closed(r->node, name)) continue; /* its READ block fails its request */
        maps[i] = tv_index_mapping(l.items[i]);
        if (!maps[i]) {
            r->oom = true;
            goto done;
        }
        names[nnames++] = name;
        if (!index_caps(r, name, maps[i], pats, npats, &ents)) goto done;
    }
    write_answer(r, names, nnames, &ents, include_unmapped);
done:
    for (size_t i = 0; maps && i < l.len; i++) tv_mapping_release(maps[i]);
    tv_vec_fini(&ents);
    tv_index_list_release(&l);
}
