/*
 * profile.c — the "profile" section of a _search response ("profile":
 * true), as OpenSearch 3.1's SearchProfileShardResults writes it: one
 * object per shard (a trove target is one shard, "[node][index][0]"),
 * sorted by that id, with
 *   id, inbound_network_time_in_millis, outbound_network_time_in_millis
 *     (0: the coordinator and the shard are one process, as on a
 *     single-node cluster where OpenSearch measures 0 too),
 *   searches: [{query: [trees], rewrite_time, collector: [tree]}] — the
 *     query, then the global aggregations' match-all search,
 *   aggregations: [the aggregators' profiles],
 * and no "fetch" section (OpenSearch added fetch profiling in 3.2).
 *
 * A query node is {type, description, time_in_nanos, breakdown,
 * children?}: time_in_nanos is the sum of the timings (Lucene's
 * AbstractProfileBreakdown.toNodeTime), the breakdown every
 * QueryTimingType and its _count twin in the order OpenSearch's HashMap of
 * those eighteen keys iterates. The numbers come from query/profile.c's
 * timers; the collector times from search.c's clocks around collection.
 *
 * Rejected: building the JSON while the search runs (targets finish in
 * any order and the shards must be sorted by id).
 */
#include <stdlib.h>

#include "aggs/aggs.h"
#include "search/search_int.h"

/* QueryProfileBreakdown's map in the order its HashMap iterates. */
static const struct {
    tv_qtiming t;
    bool count;
    const char *name;
} k_query_breakdown[] = {
    {TV_QT_SET_MIN_COMPETITIVE_SCORE, true, "set_min_competitive_score_count"},
    {TV_QT_MATCH, true, "match_count"},
    {TV_QT_SHALLOW_ADVANCE, true, "shallow_advance_count"},
    {TV_QT_SET_MIN_COMPETITIVE_SCORE, false, "set_min_competitive_score"},
    {TV_QT_NEXT_DOC, false, "next_doc"},
    {TV_QT_MATCH, false, "match"},
    {TV_QT_NEXT_DOC, true, "next_doc_count"},
    {TV_QT_SCORE, true, "score_count"},
    {TV_QT_COMPUTE_MAX_SCORE, true, "compute_max_score_count"},
    {TV_QT_COMPUTE_MAX_SCORE, false, "compute_max_score"},
    {TV_QT_ADVANCE, false, "advance"},
    {TV_QT_ADVANCE, true, "advance_count"},
    {TV_QT_SCORE, false, "score"},
    {TV_QT_BUILD_SCORER, true, "build_scorer_count"},
    {TV_QT_CREATE_WEIGHT, false, "create_weight"},
    {TV_QT_SHALLOW_ADVANCE, false, "shallow_advance"},
    {TV_QT_CREATE_WEIGHT, true, "create_weight_count"},
    {TV_QT_BUILD_SCORER, false, "build_scorer"},
};

static void write_qnode(tv_jw *w, const tv_qprof_node *n) {
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "type");
    tv_jw_strz(w, n->type);
    tv_jw_keyz(w, "description");
    tv_jw_strz(w, n->description);
    tv_jw_keyz(w, "time_in_nanos");
    tv_jw_uint(w, tv_qprof_node_time(n));
    tv_jw_keyz(w, "breakdown");
    tv_jw_obj_begin(w);
    for (size_t i = 0; i < TV_ARRAY_LEN(k_query_breakdown); i++) {
        tv_jw_keyz(w, k_query_breakdown[i].name);
        tv_jw_uint(w, k_query_breakdown[i].count ? n->count[k_query_breakdown[i].t] : n->ns[k_query_breakdown[i].t]);
    }
    tv_jw_obj_end(w);
    if (n->nkids) {
        tv_jw_keyz(w, "children");
        tv_jw_arr_begin(w);
        for (uint32_t i = 0; i < n->nkids; i++) write_qnode(w, n->kids[i]);
        tv_jw_arr_end(w);
    }
    tv_jw_obj_end(w);
}

static void write_coll(tv_jw *w, const tv_coll_prof *c) {
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "name");
    tv_jw_strz(w, c->name);
    tv_jw_keyz(w, "reason");
    tv_jw_strz(w, c->reason);
    tv_jw_keyz(w, "time_in_nanos");
    tv_jw_uint(w, c->ns);
    if (c->nkids) {
        tv_jw_keyz(w, "children");
        tv_jw_arr_begin(w);
        for (uint32_t i = 0; i < c->nkids; i++) write_coll(w, &c->kids[i]);
        tv_jw_arr_end(w);
    }
    tv_jw_obj_end(w);
}

typedef struct sorted {
    const char *id;
    const tv_shard_prof *s;
} sorted;

static int sorted_cmp(const void *a, const void *b) {
    return strcmp(((const sorted *)a)->id, ((const sorted *)b)->id);
}

void tv_search_profile_write(tv_jw *w, const tv_shard_prof *shards, size_t n, const char *node_id, tv_arena *a) {
    sorted *ord = tv_arena_alloc(a, (n + 1) * sizeof *ord);
    tv_buf b;
    tv_buf_init(&b);
    for (size_t i = 0; ord && i < n; i++) {
        tv_buf_clear(&b);
        tv_buf_printf(&b, "[%s][%s][0]", node_id ? node_id : "", shards[i].index ? shards[i].index : "");
        ord[i].id = b.oom ? NULL : tv_arena_strndup(a, b.data ? b.data : "", b.len);
        ord[i].s = &shards[i];
        if (!ord[i].id) ord = NULL;
    }
    tv_buf_fini(&b);
    tv_jw_keyz(w, "profile");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "shards");
    tv_jw_arr_begin(w);
    if (!ord) { /* out of memory: the writer's buffer reports it */
        tv_jw_arr_end(w);
        tv_jw_obj_end(w);
        return;
    }
    /* a TreeSet of the ids: String.compareTo is UTF-16 order, which is
     * byte order for the ASCII of node ids and index names */
    if (n > 1) qsort(ord, n, sizeof *ord, sorted_cmp);
    for (size_t i = 0; i < n; i++) {
        const tv_shard_prof *s = ord[i].s;
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "id");
        tv_jw_strz(w, ord[i].id);
        tv_jw_keyz(w, "inbound_network_time_in_millis");
        tv_jw_int(w, 0);
        tv_jw_keyz(w, "outbound_network_time_in_millis");
        tv_jw_int(w, 0);
        tv_jw_keyz(w, "searches");
        tv_jw_arr_begin(w);
        for (uint32_t k = 0; k < s->nsearches; k++) {
            const tv_search_prof *sp = &s->searches[k];
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "query");
            tv_jw_arr_begin(w);
            for (size_t r = 0; r < sp->q.nroots; r++) write_qnode(w, sp->q.roots[r]);
            tv_jw_arr_end(w);
            tv_jw_keyz(w, "rewrite_time");
            tv_jw_uint(w, sp->rewrite_ns);
            tv_jw_keyz(w, "collector");
            tv_jw_arr_begin(w);
            if (sp->coll.name) write_coll(w, &sp->coll);
            tv_jw_arr_end(w);
            tv_jw_obj_end(w);
        }
        tv_jw_arr_end(w);
        tv_jw_keyz(w, "aggregations");
        tv_jw_arr_begin(w);
        tv_agg_profile_write(s->aggs, w);
        tv_agg_profile_write(s->global_aggs, w);
        tv_jw_arr_end(w);
        tv_jw_obj_end(w);
    }
    tv_jw_arr_end(w);
    tv_jw_obj_end(w);
}
