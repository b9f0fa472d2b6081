/*
 * docvalue.c — doc values as a hit's "fields" print them (docvalue_fields):
 * each field type's value (dates in the field's format, ip addresses,
 * unsigned longs exact), and with an explicit "format" the date format or
 * a java.text.DecimalFormat pattern (util's tv_java_decimal_format).
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

void tv_fetch_docvalues(tv_arena *arena, const tv_mapping *m, const tv_segment *seg, uint32_t doc, const char *const *names,
                        const char *const *formats, size_t nnames, tv_fetched *df, size_t *ndf, tv_buf *fb) {
    for (size_t k = 0; k < nnames; k++) {
        const tv_field *f = m ? tv_mapping_field(m, names[k], strlen(names[k])) : NULL;
        if (!f) continue;
        int64_t nums[64];
        uint32_t ords[64];
        uint32_t n = 0;
        if (f->dv_kind == TV_DV_NUMERIC) n = tv_segment_dv_numeric(seg, f->id, doc, nums, 64);
        else if (f->dv_kind == TV_DV_SORTED_SET) n = tv_segment_dv_ords(seg, f->id, doc, ords, 64);
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
            if (f->dv_kind == TV_DV_NUMERIC && fmt) write_formatted(&fw, f, nums[j], fmt);
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
