/*
 * docvalue.c — doc values as a hit's "fields" print them (docvalue_fields):
 * each field type's value (dates in the field's format, ip addresses,
 * unsigned longs exact), and with an explicit "format" the date format or
 * a java.text.DecimalFormat pattern (util's tv_java_decimal_format); the
 * metadata doc values _seq_no, _version and _primary_term from the hit's
 * metadata; the docvalue_fields list's parser and the "fields" member's
 * writer every kind of hit shares.
 *
 * Ownership: rendered values live in the caller's arena.
 */
#include <math.h>
#include <stdio.h>

#include "fetch/fetch.h"
#include "index/date.h"

/* A doc value with an explicit docvalue_fields format: dates print with the
 * date format, numbers with a DecimalFormat pattern (always strings). */
static void write_formatted(tv_jw *w, const tv_field *f, int64_t x, const char *fmt) {
    char buf[400];
    if (f->type == TV_FT_DATE) tv_date_format(x, fmt, buf, sizeof buf);
    else if (f->type == TV_FT_DATE_NANOS) tv_date_format_nanos(x, fmt, buf, sizeof buf);
    else if (f->type == TV_FT_BOOLEAN) snprintf(buf, sizeof buf, "%s", x ? "true" : "false");
    else {
        double dv;
        if (tv_field_type_is_floating(f->type)) dv = tv_sortable_to_double(x);
        else if (f->type == TV_FT_SCALED_FLOAT) dv = (double)x / f->scaling_factor;
        else if (f->type == TV_FT_UNSIGNED_LONG) dv = (double)tv_sortable_to_unsigned(x);
        else dv = (double)x;
        tv_java_decimal_format(dv, fmt, buf, sizeof buf);
    }
    tv_jw_strz(w, buf);
}

static void write_value(tv_jw *w, const tv_field *f, int64_t x) {
    if (tv_field_type_is_floating(f->type)) tv_jw_double(w, tv_sortable_to_double(x));
    else if (f->type == TV_FT_SCALED_FLOAT) tv_jw_double(w, (double)x / f->scaling_factor);
    else if (f->type == TV_FT_BOOLEAN) tv_jw_bool(w, x != 0);
    else if (f->type == TV_FT_UNSIGNED_LONG) tv_jw_uint(w, tv_sortable_to_unsigned(x));
    else if (f->type == TV_FT_DATE_NANOS) {
        char buf[96];
        tv_date_format_nanos(x, f->format ? f->format : TV_DATE_NANOS_DEFAULT_FORMAT, buf, sizeof buf);
        tv_jw_strz(w, buf);
    }
    else if (f->type == TV_FT_DATE) {
        char buf[64];
        tv_date_format(x, f->format, buf, sizeof buf);
        tv_jw_strz(w, buf);
    } else tv_jw_int(w, x);
}

tv_status tv_fetch_docvalues_parse(tv_dsl *d, const tv_json *v, const char ***names, const char ***formats, size_t *n) {
    *names = tv_arena_alloc(d->arena, (v->len + 1) * sizeof **names);
    *formats = tv_arena_calloc(d->arena, v->len + 1, sizeof **formats);
    if (!*names || !*formats) return TROVE_ENOMEM;
    *n = 0;
    for (uint32_t j = 0; j < v->len; j++) {
        const tv_json *e = &v->v.items[j];
        const tv_json *fld = e->type == TV_JSON_OBJECT ? tv_json_get(e, "field") : NULL;
        if (e->type == TV_JSON_STRING) {
            (*names)[(*n)++] = e->v.s;
        } else if (fld && fld->type == TV_JSON_STRING) {
            const tv_json *fmt = tv_json_get(e, "format");
            if (fmt && fmt->type == TV_JSON_STRING && !tv_streq(fmt->v.s, fmt->len, "use_field_mapping"))
                (*formats)[*n] = fmt->v.s;
            (*names)[(*n)++] = fld->v.s;
        } else {
            return tv_dsl_error(d, TROVE_EPARSE, e->off, "[docvalue_fields] failed to parse");
        }
    }
    return TROVE_OK;
}

tv_status tv_fetch_write_fields(tv_jw *w, const tv_fetched *df, size_t n, tv_arena *a) {
    if (!n) return TROVE_OK;
    const char **names = tv_arena_alloc(a, n * sizeof *names);
    uint32_t *ord = tv_arena_alloc(a, n * sizeof *ord);
    if (!names || !ord) return TROVE_ENOMEM;
    for (size_t q = 0; q < n; q++) names[q] = df[q].name;
    tv_java_hashmap_order(names, (uint32_t)n, ord);
    tv_jw_keyz(w, "fields");
    tv_jw_obj_begin(w);
    for (size_t q = 0; q < n; q++) {
        const tv_fetched *e = &df[ord[q]];
        if (!e->json) continue;
        tv_jw_keyz(w, e->name);
        tv_jw_raw(w, e->json, e->len);
    }
    tv_jw_obj_end(w);
    return TROVE_OK;
}

/* _seq_no, _version and _primary_term: doc values of every Lucene doc in
 * OpenSearch (SeqNoFieldMapper, VersionFieldMapper); a nested doc shares
 * its root's _seq_no, has _version 1 and no _primary_term. 1 when name is
 * one of them (*n values in nums), else 0. */
static int meta_values(const char *name, const tv_doc_meta *meta, bool nested, int64_t *nums, uint32_t *n) {
    *n = 0;
    if (!strcmp(name, "_seq_no")) {
        if (meta) nums[(*n)++] = meta->seq_no;
    } else if (!strcmp(name, "_version")) {
        if (meta || nested) nums[(*n)++] = nested ? 1 : meta->version;
    } else if (!strcmp(name, "_primary_term")) {
        if (meta && !nested) nums[(*n)++] = meta->primary_term;
    } else {
        return 0;
    }
    return 1;
}

void tv_fetch_docvalues(tv_arena *arena, const tv_mapping *m, const tv_segment *seg, uint32_t doc, const char *const *names,
                        const char *const *formats, size_t nnames, const tv_doc_meta *meta, bool nested, tv_fetched *df,
                        size_t *ndf, tv_buf *fb) {
    for (size_t k = 0; k < nnames; k++) {
        int64_t nums[64];
        uint32_t ords[64];
        uint32_t n = 0;
        const tv_field *f = NULL;
        bool is_meta = meta_values(names[k], meta, nested, nums, &n);
        if (!is_meta) {
            f = m ? tv_mapping_field(m, names[k], strlen(names[k])) : NULL;
            if (!f) continue;
            if (f->dv_kind == TV_DV_NUMERIC) n = tv_segment_dv_numeric(seg, f->id, doc, nums, 64);
            else if (f->dv_kind == TV_DV_SORTED_SET) n = tv_segment_dv_ords(seg, f->id, doc, ords, 64);
        }
        if (!n) continue;
        /* FetchDocValuesPhase: a field named again (another format) adds
         * its values to the same list */
        size_t dup = *ndf;
        for (size_t q = 0; q < *ndf && dup == *ndf; q++)
            if (!strcmp(df[q].name, names[k])) dup = q;
        tv_buf_clear(fb);
        tv_jw fw;
        tv_jw_init(&fw, fb, false);
        tv_jw_arr_begin(&fw);
        for (uint32_t j = 0; j < TV_MIN(n, 64u); j++) {
            const char *fmt = formats ? formats[k] : NULL;
            if (is_meta) tv_jw_int(&fw, nums[j]);
            else if (f->dv_kind == TV_DV_NUMERIC && fmt) write_formatted(&fw, f, nums[j], fmt);
            else if (f->dv_kind == TV_DV_NUMERIC) write_value(&fw, f, nums[j]);
            else {
                const char *ts;
                size_t tl;
                if (!tv_segment_dv_term(seg, f->id, ords[j], &ts, &tl)) continue;
                if (f->type == TV_FT_IP && tl == 16) {
                    char ipt[TV_IP_TEXT_MAX];
                    tv_jw_str(&fw, ipt, tv_ip_format((const uint8_t *)ts, ipt));
                } else {
                    tv_jw_str(&fw, ts, tl);
                }
            }
        }
        tv_jw_arr_end(&fw);
        if (dup < *ndf) {
            if (fb->len <= 2) continue; /* nothing rendered */
            char *j = tv_arena_alloc(arena, df[dup].len + fb->len);
            if (!j) continue;
            memcpy(j, df[dup].json, df[dup].len - 1); /* without its ']' */
            size_t o = df[dup].len - 1;
            if (df[dup].len > 2) j[o++] = ',';
            memcpy(j + o, fb->data + 1, fb->len - 1); /* without the '[' */
            df[dup].json = j;
            df[dup].len = o + fb->len - 1;
            continue;
        }
        df[*ndf].name = names[k];
        df[*ndf].json = tv_arena_memdup(arena, fb->data ? fb->data : "", fb->len);
        df[(*ndf)++].len = fb->len;
    }
}
