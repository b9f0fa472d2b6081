/*
 * source.c — a hit's "_source" with includes/excludes applied, and the
 * "_version"/"_seq_no"/"_primary_term" members and the exact "total" of a
 * hits object that every kind of hit shares
 * (search hits, inner hits, top_hits).
 *
 * Filtering parses the stored JSON, filters it (json's tv_json_filter:
 * XContentMapValues.filter) and writes it again in the document's order.
 *
 * Ownership: the parsed source lives in the caller's arena; nothing else
 * outlives a call.
 */
#include "fetch/fetch.h"

void tv_fetch_write_total(tv_jw *w, uint64_t n, bool as_int) {
    tv_jw_keyz(w, "total");
    if (as_int) {
        tv_jw_uint(w, n);
        return;
    }
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "value");
    tv_jw_uint(w, n);
    tv_jw_keyz(w, "relation");
    tv_jw_strz(w, "eq");
    tv_jw_obj_end(w);
}

void tv_hit_write_versions(tv_jw *w, const tv_doc_meta *m, bool version, bool seq_no) {
    if (version) {
        tv_jw_keyz(w, "_version");
        tv_jw_int(w, m->version);
    }
    if (seq_no) {
        tv_jw_keyz(w, "_seq_no");
        tv_jw_int(w, m->seq_no);
        tv_jw_keyz(w, "_primary_term");
        tv_jw_int(w, m->primary_term);
    }
}

void tv_fetch_write_source(tv_jw *w, tv_arena *a, const char *src, size_t len, const char **inc, size_t ninc,
                           const char **exc, size_t nexc) {
    tv_json *doc = NULL;
    if ((!ninc && !nexc) || tv_json_parse(a, src, len, &doc, NULL) != TROVE_OK) {
        tv_jw_raw(w, src, len);
        return;
    }
    const tv_json *f = tv_json_filter(a, doc, inc, ninc, exc, nexc, false);
    if (f) tv_jw_value(w, f);
    else w->out->oom = true; /* the request answers out of memory */
}
