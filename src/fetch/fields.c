/*
 * fields.c — the search body's "fields" option (OpenSearch's
 * FetchFieldsPhase): each hit's values of the requested mapped fields,
 * read from its _source the way the field's mapper reads them.
 *
 * The hit's _source is parsed again with the index's mapping
 * (tv_doc_parse), so keyword values come back normalized and without those
 * past ignore_above, numbers coerced to the field's type, null_value
 * substituted and malformed values dropped exactly as indexing did; values
 * keep their _source order. Text fields (no doc-value form) are read from
 * the _source JSON at their path (a multi-field at its parent's). Values
 * print as OpenSearch's value fetchers give them: integers as longs, float
 * and half_float as Java floats, double and scaled_float as doubles,
 * unsigned_long exactly, dates in the field's first format or the
 * requested one, booleans, ip addresses in canonical form, keyword and text
 * as strings. Unmapped fields are skipped unless include_unmapped, which
 * returns their _source scalars as they are.
 *
 * Field types whose fetcher trove does not reproduce (geo_point, binary,
 * flat_object, ...) answer 400 unsupported_operation_exception naming the
 * type. A field alias answers under its own name with its target's values
 * (FieldFetcher asks simpleMatchToIndexNames, which lists aliases). Fields
 * inside nested objects come out flat, as OpenSearch's
 * FieldFetcher reads them from the whole source.
 */
#include <stdio.h>
#include <stdlib.h>

#include "index/date.h"
#include "fetch/fetch.h"
#include "query/parse.h"

tv_status tv_fetch_fields_parse(tv_dsl *d, const tv_json *v, tv_fetch_spec **out, size_t *n) {
    if (v->type != TV_JSON_ARRAY)
        return tv_dsl_error(d, TROVE_EPARSE, v->off, "Unknown key for a %s in [fields].", tv_dsl_token_name(v));
    tv_fetch_spec *sp = tv_arena_calloc(d->arena, v->len + 1, sizeof *sp);
    if (!sp) return tv_error_oom(d->err);
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json *e = &v->v.items[i];
        if (e->type == TV_JSON_STRING) {
            sp[i].pattern = e->v.s;
            continue;
        }
        if (e->type != TV_JSON_OBJECT) return tv_dsl_error(d, TROVE_EPARSE, e->off, "[fields] failed to parse");
        for (uint32_t k = 0; k < e->len; k++) {
            const tv_json_member *m = &e->v.members[k];
            if (tv_streq(m->key, m->key_len, "field") && m->val.type == TV_JSON_STRING) sp[i].pattern = m->val.v.s;
            else if (tv_streq(m->key, m->key_len, "format") && m->val.type == TV_JSON_STRING) sp[i].format = m->val.v.s;
            else if (tv_streq(m->key, m->key_len, "include_unmapped")) {
                tv_status st = tv_dsl_bool(d, "fields", "include_unmapped", &m->val, &sp[i].include_unmapped);
                if (st) return st;
            } else {
                uint32_t l = 0, c = 0;
                if (d->src) tv_json_linecol(d->src, d->src_len, m->key_off, &l, &c);
                return tv_dsl_error(d, TROVE_EXCONTENT, m->key_off, "[%u:%u] [fields] unknown field [%s]", l, c, m->key);
            }
        }
        if (!sp[i].pattern) return tv_error_set(d->err, TROVE_EARG, "[field] must not be null");
    }
    *out = sp;
    *n = v->len;
    return TROVE_OK;
}

/* The JSON scalars at a dotted path of a source object ("a.b" reaches
 * {"a":{"b":x}}, {"a.b":x} and arrays of objects on the way), written as
 * they are, or as strings (text: TextFieldMapper's fetcher gives a
 * scalar's text). */
static void source_values(const tv_json *v, const char *path, size_t len, bool as_text, tv_jw *w, size_t *count) {
    if (v->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++) source_values(&v->v.items[i], path, len, as_text, w, count);
        return;
    }
    if (!len) {
        const char *s;
        size_t l;
        if (v->type == TV_JSON_OBJECT || v->type == TV_JSON_NULL) return;
        if (!as_text) tv_jw_value(w, v);
        else if (tv_dsl_scalar_text(v, &s, &l)) tv_jw_str(w, s, l);
        else return;
        (*count)++;
        return;
    }
    if (v->type != TV_JSON_OBJECT) return;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        size_t kl = m->key_len;
        if (kl > len || memcmp(m->key, path, kl) != 0) continue;
        if (kl == len) source_values(&m->val, "", 0, as_text, w, count);
        else if (path[kl] == '.') source_values(&m->val, path + kl + 1, len - kl - 1, as_text, w, count);
    }
}

/* One bound of a range field's source value as RangeType.formatValue
 * prints parseValue's result; false when it does not parse. */
static bool range_bound_value(const tv_field *f, const char *format, const tv_json *v, tv_jw *w) {
    tv_field_type rt = f->range_type;
    const char *s = NULL;
    size_t n = 0;
    if (v->type == TV_JSON_STRING) {
        s = v->v.s;
        n = v->len;
    } else if (tv_json_is_number(v) && v->raw) {
        s = v->raw;
        n = v->raw_len;
    }
    if (rt == TV_FT_IP) {
        uint8_t ip[16];
        char t[TV_IP_TEXT_MAX];
        if (v->type != TV_JSON_STRING || !tv_ip_parse(s, n, ip)) return false;
        tv_jw_str(w, t, tv_ip_format(ip, t));
        return true;
    }
    if (rt == TV_FT_DATE) {
        int64_t ms;
        char buf[128];
        if (!s || tv_date_parse(f->format, s, n, &ms, NULL)) return false;
        tv_date_format(ms, format ? format : f->format, buf, sizeof buf);
        tv_jw_strz(w, buf);
        return true;
    }
    double d;
    if (tv_json_is_number(v)) {
        d = tv_json_as_double(v);
    } else if (s && f->coerce) {
        char tmp[64], *end;
        if (n == 0 || n >= sizeof tmp) return false;
        memcpy(tmp, s, n);
        tmp[n] = 0;
        d = strtod(tmp, &end);
        if (*end) return false;
    } else {
        return false;
    }
    if (rt == TV_FT_INTEGER || rt == TV_FT_LONG) {
        if (v->type == TV_JSON_INT) tv_jw_int(w, v->v.i);
        else tv_jw_int(w, tv_java_d2l(d));
    } else if (rt == TV_FT_FLOAT) {
        tv_jw_float(w, (float)d);
    } else {
        tv_jw_double(w, d);
    }
    return true;
}

/* A range field's source values (RangeFieldType's value fetcher): each
 * object's keys with their values parsed and formatted, in HashMap order;
 * an ip_range CIDR string as InetAddresses.toCidrString prints it. A value
 * that does not parse is left out, as indexing ignored it. */
static void range_values(const tv_field *f, const char *format, const tv_json *v, const char *path, size_t len,
                         tv_jw *w, size_t *count) {
    if (v->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++) range_values(f, format, &v->v.items[i], path, len, w, count);
        return;
    }
    if (!len) {
        if (v->type == TV_JSON_STRING && f->range_type == TV_FT_IP) {
            const char *slash = memchr(v->v.s, '/', v->len);
            uint8_t ip[16], lo[16], hi[16];
            char t[TV_IP_TEXT_MAX];
            if (!slash || !tv_ip_parse_cidr(v->v.s, v->len, lo, hi) ||
                !tv_ip_parse(v->v.s, (size_t)(slash - v->v.s), ip))
                return;
            size_t tl = tv_ip_format(ip, t);
            tv_buf b;
            tv_buf_init(&b);
            tv_buf_append(&b, t, tl);
            tv_buf_append(&b, slash, v->len - (size_t)(slash - v->v.s));
            tv_jw_str(w, b.data ? b.data : "", b.len);
            tv_buf_fini(&b);
            (*count)++;
            return;
        }
        if (v->type != TV_JSON_OBJECT || v->len > 16) return;
        const char *names[16];
        uint32_t order[16];
        for (uint32_t i = 0; i < v->len; i++) names[i] = v->v.members[i].key;
        tv_java_hashmap_order(names, v->len, order);
        /* check every bound first: one that does not parse drops the range */
        tv_buf scratch;
        tv_buf_init(&scratch);
        tv_jw sw;
        tv_jw_init(&sw, &scratch, false);
        bool ok = true;
        for (uint32_t i = 0; i < v->len && ok; i++) {
            tv_jw_arr_begin(&sw);
            ok = v->v.members[i].val.type != TV_JSON_NULL && range_bound_value(f, format, &v->v.members[i].val, &sw);
            tv_jw_arr_end(&sw);
        }
        tv_buf_fini(&scratch);
        if (!ok) return;
        tv_jw_obj_begin(w);
        for (uint32_t i = 0; i < v->len; i++) {
            const tv_json_member *m = &v->v.members[order[i]];
            tv_jw_key(w, m->key, m->key_len);
            range_bound_value(f, format, &m->val, w);
        }
        tv_jw_obj_end(w);
        (*count)++;
        return;
    }
    if (v->type != TV_JSON_OBJECT) return;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        size_t kl = m->key_len;
        if (kl > len || memcmp(m->key, path, kl) != 0) continue;
        if (kl == len) range_values(f, format, &m->val, "", 0, w, count);
        else if (path[kl] == '.') range_values(f, format, &m->val, path + kl + 1, len - kl - 1, w, count);
    }
}

static const tv_doc_field *parsed_field(const tv_parsed_doc *pd, uint32_t id) {
    for (uint32_t i = 0; i < pd->nfields; i++)
        if (pd->fields[i].field == id) return &pd->fields[i];
    return NULL;
}

/* A keyword, ip, number, date or boolean field's parsed values into w;
 * false for another type. */
static bool parsed_values(const tv_field *f, const char *format, const tv_doc_field *df, tv_jw *w, size_t *count) {
    if (f->type == TV_FT_KEYWORD || f->type == TV_FT_IP) {
        for (uint32_t i = 0; df && i < df->nkeys; i++) {
            if (f->type == TV_FT_IP && df->key_lens[i] == 16) {
                char ipt[TV_IP_TEXT_MAX];
                tv_jw_str(w, ipt, tv_ip_format((const uint8_t *)df->keys[i], ipt));
            } else {
                tv_jw_str(w, df->keys[i], df->key_lens[i]);
            }
            (*count)++;
        }
        return true;
    }
    if (!(tv_field_type_is_numeric(f->type) || f->type == TV_FT_DATE || f->type == TV_FT_DATE_NANOS ||
          f->type == TV_FT_BOOLEAN))
        return false;
    for (uint32_t i = 0; df && i < df->nnums; i++) {
        int64_t x = df->nums[i];
        char buf[128];
        switch (f->type) {
        case TV_FT_DOUBLE: tv_jw_double(w, tv_sortable_to_double(x)); break;
        case TV_FT_FLOAT:
        case TV_FT_HALF_FLOAT: tv_jw_float(w, (float)tv_sortable_to_double(x)); break;
        case TV_FT_SCALED_FLOAT: tv_jw_double(w, (double)x / f->scaling_factor); break;
        case TV_FT_UNSIGNED_LONG: tv_jw_uint(w, tv_sortable_to_unsigned(x)); break;
        case TV_FT_BOOLEAN: tv_jw_bool(w, x != 0); break;
        case TV_FT_DATE:
            tv_date_format(x, format ? format : f->format, buf, sizeof buf);
            tv_jw_strz(w, buf);
            break;
        case TV_FT_DATE_NANOS:
            tv_date_format_nanos(x, format ? format : f->format ? f->format : TV_DATE_NANOS_DEFAULT_FORMAT, buf, sizeof buf);
            tv_jw_strz(w, buf);
            break;
        default: tv_jw_int(w, x); break;
        }
        (*count)++;
    }
    return true;
}

/* One field's values into w (an array); *count of them. A field inside a
 * nested object takes its values from the nested docs of that object, in
 * source order (FieldFetcher reads the whole source: the values come out
 * flat, not grouped per object). */
static tv_status field_values(const tv_field *f, const char *format, const tv_parsed_doc *pd, const tv_json *src,
                              tv_jw *w, size_t *count, tv_error *err) {
    if (tv_field_type_is_text(f->type)) {
        const tv_field *base = f->multi_parent ? f->multi_parent : tv_field_resolve(f);
        source_values(src, base->path, base->path_len, true, w, count);
        return TROVE_OK;
    }
    if (f->type == TV_FT_RANGE) {
        const tv_field *base = f->multi_parent ? f->multi_parent : tv_field_resolve(f);
        range_values(f, format, src, base->path, base->path_len, w, count);
        return TROVE_OK;
    }
    bool known = true;
    if (f->nested_scope) {
        for (uint32_t k = 0; k < pd->nnested && known; k++)
            if (pd->nested[k].nest == f->nested_scope->id + 1)
                known = parsed_values(f, format, parsed_field(&pd->nested[k], f->id), w, count);
    } else {
        known = parsed_values(f, format, parsed_field(pd, f->id), w, count);
    }
    if (known) return TROVE_OK;
    return tv_error_set(err, TROVE_EUNSUPPORTED, "[fields] of a [%s] field is not supported by trove", tv_field_type_name(f->type));
}

static tv_status push(tv_arena *a, tv_fetched **items, size_t *n, size_t *cap, const char *name, tv_buf *b) {
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*items)[i].name, name)) return TROVE_OK; /* asked twice: once */
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        tv_fetched *ni = tv_arena_alloc(a, nc * sizeof *ni);
        if (!ni) return TROVE_ENOMEM;
        if (*n) memcpy(ni, *items, *n * sizeof *ni);
        *items = ni;
        *cap = nc;
    }
    char *j = tv_arena_memdup(a, b->data ? b->data : "", b->len);
    if (!j) return TROVE_ENOMEM;
    (*items)[*n].name = name;
    (*items)[*n].json = j;
    (*items)[(*n)++].len = b->len;
    return TROVE_OK;
}

/* Unmapped source leaves under a pattern (include_unmapped). */
static tv_status unmapped_leaves(tv_arena *a, const tv_mapping *m, const tv_json *v, tv_buf *path, const char *pat,
                                 tv_fetched **items, size_t *n, size_t *cap) {
    if (v->type != TV_JSON_OBJECT) return TROVE_OK;
    size_t base = path->len;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *mb = &v->v.members[i];
        path->len = base;
        if (base) tv_buf_putc(path, '.');
        tv_buf_append(path, mb->key, mb->key_len);
        if (mb->val.type == TV_JSON_OBJECT) {
            tv_status st = unmapped_leaves(a, m, &mb->val, path, pat, items, n, cap);
            if (st) return st;
            continue;
        }
        if (path->oom) return TROVE_ENOMEM;
        if (!tv_glob_match(pat, strlen(pat), path->data, path->len) || tv_mapping_field(m, path->data, path->len)) continue;
        tv_buf b;
        tv_buf_init(&b);
        tv_jw w;
        tv_jw_init(&w, &b, false);
        tv_jw_arr_begin(&w);
        size_t cnt = 0;
        source_values(&mb->val, "", 0, false, &w, &cnt);
        tv_jw_arr_end(&w);
        tv_status st = TROVE_OK;
        if (cnt) {
            char *name = tv_arena_strndup(a, path->data, path->len);
            st = name ? push(a, items, n, cap, name, &b) : TROVE_ENOMEM;
        }
        tv_buf_fini(&b);
        if (st) return st;
    }
    path->len = base;
    return TROVE_OK;
}

tv_status tv_fetch_fields(tv_arena *a, const tv_mapping *m, const tv_fetch_spec *specs, size_t nspecs, const char *id,
                          size_t id_len, const char *src, size_t src_len, tv_fetched **out, size_t *nout,
                          tv_error *err) {
    *out = NULL;
    *nout = 0;
    if (!m || !src) return TROVE_OK;
    tv_json *doc = NULL;
    if (tv_json_parse(a, src, src_len, &doc, NULL) != TROVE_OK || !doc) return TROVE_OK;
    tv_parsed_doc pd;
    tv_json *upd = NULL;
    tv_error perr;
    tv_error_clear(&perr);
    if (tv_doc_parse(m, id, id_len, src, src_len, a, &pd, &upd, &perr) != TROVE_OK) memset(&pd, 0, sizeof pd);
    size_t cap = 0;
    for (size_t s = 0; s < nspecs; s++) {
        const char *pat = specs[s].pattern;
        size_t pl = strlen(pat);
        const tv_field *one = NULL;
        const tv_field **fs = NULL;
        size_t nf = 0;
        if (memchr(pat, '*', pl)) {
            nf = tv_mapping_match_names(m, pat, pl, NULL, 0);
            fs = tv_arena_calloc(a, nf + 1, sizeof *fs);
            if (!fs) return tv_error_oom(err);
            nf = tv_mapping_match_names(m, pat, pl, fs, nf);
        } else if ((one = tv_mapping_field_or_alias(m, pat, pl))) {
            fs = &one;
            nf = 1;
        }
        for (size_t i = 0; i < nf; i++) {
            const tv_field *f = fs[i];
            if (f->type == TV_FT_OBJECT) continue;
            /* a value fetcher with a format exists for dates only (geo's
             * formats are not rendered by trove: refused below as well) */
            if (specs[s].format && f->type != TV_FT_DATE && f->type != TV_FT_DATE_NANOS)
                return tv_error_set(err, TROVE_EARG, "Field [%s] of type [%s] doesn't support formats.", f->path,
                                    tv_field_declared_type(f));
            tv_buf b;
            tv_buf_init(&b);
            tv_jw w;
            tv_jw_init(&w, &b, false);
            tv_jw_arr_begin(&w);
            size_t cnt = 0;
            tv_status st = field_values(f, specs[s].format, &pd, doc, &w, &cnt, err);
            tv_jw_arr_end(&w);
            if (!st && b.oom) st = tv_error_oom(err);
            if (!st && cnt && push(a, out, nout, &cap, f->path, &b)) st = tv_error_oom(err);
            tv_buf_fini(&b);
            if (st) return st;
        }
        if (specs[s].include_unmapped) {
            tv_buf path;
            tv_buf_init(&path);
            tv_status st = unmapped_leaves(a, m, doc, &path, pat, out, nout, &cap);
            tv_buf_fini(&path);
            if (st) return tv_error_oom(err);
        }
    }
    return TROVE_OK;
}
