/*
 * explain.c — the _explain API: the document with an _id, and Lucene's
 * explanation of its score for a query (query/explain.c builds the
 * explanation). The document is looked up first: TransportExplainAction
 * parses the query on the shard after the get, so a missing doc answers
 * before any query error.
 *
 * Ownership: the result lives in the request arena.
 */
#include "query/parse.h"
#include "search/search.h"
#include "search/search_int.h"

/* The live doc with this _id: newest segment first (a doc updated in a
 * later segment is deleted in the earlier one). */
static bool find_doc(const tv_snapshot *snap, const char *id, size_t len, tv_arena *a, uint32_t *seg, uint32_t *doc) {
    for (uint32_t i = snap->nsegs; i-- > 0;) {
        const tv_segview *sv = &snap->segs[i];
        tv_term_state ts;
        if (!tv_segment_term(sv->seg, TV_FIELD_ID, id, len, &ts)) continue;
        tv_postings *p = tv_postings_open(sv->seg, TV_FIELD_ID, &ts, 0, a);
        if (!p) continue;
        for (uint32_t d = tv_postings_next(p); d != TV_NO_MORE_DOCS; d = tv_postings_next(p))
            if (tv_segview_live(sv, d)) {
                *seg = i;
                *doc = d;
                return true;
            }
    }
    return false;
}

tv_status tv_search_explain(const tv_search_target *t, const tv_json *body, const tv_search_params *params,
                            const char *id, size_t id_len, tv_arena *arena, tv_explain_result *res,
                            tv_error *err) {
    memset(res, 0, sizeof *res);
    tv_error_clear(err);
    tv_dsl d;
    tv_search_dsl_init(&d, arena, err, params);
    /* RestActions.getQueryContent: {"query":{..}} and nothing else */
    const tv_json *qj = NULL;
    if (body && body->type != TV_JSON_OBJECT)
        return tv_dsl_error(&d, TROVE_EPARSE, body->off, "Expected [START_OBJECT] but found [%s]",
                            body->type == TV_JSON_ARRAY ? "START_ARRAY" : "VALUE_STRING");
    for (uint32_t i = 0; body && i < body->len; i++) {
        const tv_json_member *m = &body->v.members[i];
        if (tv_streq(m->key, m->key_len, "query")) qj = &m->val;
        else return tv_dsl_error(&d, TROVE_EPARSE, m->key_off, "request does not support [%s]", m->key);
    }
    if (params && params->q && tv_query_string_from_params(arena, params, &qj))
        return tv_error_oom(err);
    if (!qj) return tv_error_set(err, TROVE_EVALIDATION, "Validation Failed: 1: query is missing;");
    if (!t) return TROVE_OK; /* the request's own checks only */
    uint32_t seg = 0, doc = 0;
    res->exists = find_doc(t->snap, id, id_len, arena, &seg, &doc);
    /* TransportExplainAction parses the query on the shard after the get:
     * a missing doc answers before any query error */
    if (!res->exists) return TROVE_OK;
    d.mapping = t->snap->mapping;
    d.snap = t->snap;
    tv_query *q = NULL;
    tv_status st = tv_dsl_parse_query(&d, qj, &q);
    if (!st) st = tv_query_rewrite(&q, arena);
    if (st) return st == TROVE_ENOMEM ? tv_error_oom(err) : st;
    if ((st = tv_explain_check(q, err))) return st;
    if ((st = tv_query_prepare(q, t->snap, arena))) return tv_error_set(err, st, "out of memory");
    const tv_expl *e = NULL;
    if ((st = tv_explain(q, t->snap, seg, doc, arena, &e))) return tv_error_set(err, st, "%s", trove_status_message(st));
    res->expl = e;
    res->matched = tv_expl_match(e);
    st = tv_segment_doc(t->snap->segs[seg].seg, doc, arena, &res->meta, &res->src, &res->src_len);
    if (st) return tv_error_set(err, st, "failed to load document");
    return TROVE_OK;
}

void tv_search_explain_write(tv_jw *w, const tv_explain_result *res) {
    if (res->expl) tv_expl_write_members(w, res->expl);
}
