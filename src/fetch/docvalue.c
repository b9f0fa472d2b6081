/*
 * docvalue.c — doc values as a hit's "fields" print them (docvalue_fields):
 * each field type's value (dates in the field's format, ip addresses,
 * unsigned longs exact), and with an explicit "format" the date format or
 * a java.text.DecimalFormat pattern (tv_decimal_format, which the
 * aggregations' "format" uses too).
 *
 * Ownership: rendered values live in the caller's arena.
 */
#include <math.h>
#include <stdio.h>

#include "fetch/fetch.h"
#include "index/date.h"

/*
 * java.text.DecimalFormat for the patterns docvalue_fields formats use:
 * "#.0", "0.00", "#,##0.###", "#": the integer part's '0's are the minimum
 * integer digits (none: "0.5" prints ".5", as Java does), its ',' sets the
 * grouping size, the fraction's '0's the minimum and '0'+'#' the maximum
 * fraction digits; HALF_EVEN rounding (printf rounds the exact binary value
 * to nearest-even, as DecimalFormat does). Literal prefix/suffix text and
 * exponent patterns are not interpreted (such patterns print the plain
 * number). Writes a NUL-terminated string into out (cap >= 400).
 */
void tv_decimal_format(double x, const char *pat, char *out, size_t cap) {
    int min_int = 0, min_frac = 0, max_frac = 0, group = 0;
    bool frac = false, valid = true;
    int since_comma = -1;
    for (const char *p = pat; *p && *p != ';'; p++) {
        char ch = *p;
        if (ch == '.') { if (frac) valid = false; frac = true; continue; }
        if (ch == ',') { if (!frac) since_comma = 0; continue; }
        if (ch == '0' || ch == '#') {
            if (frac) { max_frac++; if (ch == '0') min_frac = max_frac; }
            else { if (ch == '0') min_int++; if (since_comma >= 0) since_comma++; }
            continue;
        }
        valid = false;
    }
    if (since_comma > 0) group = since_comma;
    if (!valid || !isfinite(x)) {
        if (isnan(x)) snprintf(out, cap, "NaN");
        else if (isinf(x)) snprintf(out, cap, "%s\xe2\x88\x9e", x < 0 ? "-" : ""); /* U+221E */
        else snprintf(out, cap, "%.17g", x);
        return;
    }
    if (max_frac > 340) max_frac = 340;
    char num[400];
    snprintf(num, sizeof num, "%.*f", max_frac, fabs(x));
    char *dot = strchr(num, '.');
    size_t ilen = dot ? (size_t)(dot - num) : strlen(num);
    const char *fr = dot ? dot + 1 : "";
    size_t flen = strlen(fr);
    while ((int)flen > min_frac && fr[flen - 1] == '0') flen--;
    bool neg = signbit(x) != 0; /* as Java: -0.0 and negatives rounding to 0 keep the sign */
    /* integer digits without leading zeros, then padded to min_int */
    const char *ip = num;
    while (ilen > 0 && *ip == '0') { ip++; ilen--; }
    char digits[400];
    size_t nd = 0;
    for (int k = (int)ilen; k < min_int && nd < 340; k++) digits[nd++] = '0';
    for (size_t k = 0; k < ilen && nd < 390; k++) digits[nd++] = ip[k];
    size_t o = 0;
    if (neg && o + 1 < cap) out[o++] = '-';
    for (size_t k = 0; k < nd && o + 2 < cap; k++) {
        if (group > 0 && k > 0 && (nd - k) % (size_t)group == 0) out[o++] = ',';
        out[o++] = digits[k];
    }
    if (flen > 0 || (nd == 0 && min_frac == 0 && max_frac == 0)) {
        if (flen > 0) {
            if (o + 1 < cap) out[o++] = '.';
            for (size_t k = 0; k < flen && o + 1 < cap; k++) out[o++] = fr[k];
        } else if (o + 1 < cap) {
            out[o++] = '0'; /* "#" of 0 prints "0" */
        }
    }
    out[o < cap ? o : cap - 1] = 0;
}

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
        tv_decimal_format(dv, fmt, buf, sizeof buf);
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
        bool dup = false;
        for (size_t q = 0; q < *ndf && !dup; q++) dup = !strcmp(df[q].name, names[k]);
        if (dup) continue;
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
        df[*ndf].name = names[k];
        df[*ndf].json = tv_arena_memdup(arena, fb->data ? fb->data : "", fb->len);
        df[(*ndf)++].len = fb->len;
    }
}
