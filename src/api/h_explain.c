/*
 * h_explain.c — GET|POST /{index}/_explain/{id}: why a document matches a
 * query, and what its score is made of (RestExplainAction,
 * TransportExplainAction, ExplainResponse).
 *
 * The steps, in OpenSearch's order, each with its own failure:
 *   1. RestExplainAction: the body is {"query":{..}} (RestActions
 *      .getQueryContent: any other key is a parsing_exception); `q` with
 *      df / analyzer / default_operator replaces it (a query_string query);
 *      stored_fields, _source, _source_includes, _source_excludes; routing
 *      and preference.
 *   2. ExplainRequest.validate: no query -> action_request_validation_
 *      exception "query is missing".
 *   3. the index (index_not_found_exception, 404), then a missing routing
 *      where _routing is required (routing_missing_exception).
 *   4. the shard's non-realtime get by _id: a document that is not there
 *      (or lives on the shard another routing reaches) answers
 *      {"_index","_id","matched":false} with 404 — before the query is
 *      parsed, as the shard parses it only for a document it has.
 *   5. the query parsed, rewritten and explained on the shard's searcher
 *      (search layer, explain.c), and the get result when stored fields or
 *      source were asked for (GetResult.toXContentEmbedded: _seq_no,
 *      _primary_term, _routing, found, _source, fields).
 * ExplainResponse.toXContent: _index, _id, matched, explanation {value,
 * description, details}, get; status 200 when the document exists.
 *
 * `lenient` and `analyze_wildcard` are refused as _search refuses them
 * (trove's query_string does not implement them).
 */
#include "api.h"

static void answer_error(tv_req *r, const tv_error *err, tv_index *idx) {
    if (err->code == TROVE_ENOMEM) {
        r->oom = true;
        return;
    }
    tv_req_fail_tv(r, err, idx);
}

void tv_h_explain(tv_req *r) {
    static const char *const refused[] = {"lenient", "analyze_wildcard"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        if (tv_req_param(r, refused[i])) {
            tv_req_fail(r, TROVE_EUNSUPPORTED,
                        "trove does not support the [%s] parameter of _explain", refused[i]);
            return;
        }
    const char *dop = tv_req_param(r, "default_operator");
    if (dop && strcmp(dop, "AND") != 0 && strcmp(dop, "OR") != 0 && strcmp(dop, "and") != 0 &&
        strcmp(dop, "or") != 0) {
        tv_req_fail(r, TROVE_EARG,
                    "No enum constant org.opensearch.index.query.Operator.%s", dop);
        return;
    }
    /* FetchSourceContext.parseFromRestRequest: null unless a _source
     * parameter is given; the get part is shown when it fetches source or
     * stored_fields are named */
    const char *srcp = tv_req_param(r, "_source"), *inc = tv_req_param(r, "_source_includes"),
               *exc = tv_req_param(r, "_source_excludes");
    tv_source_ctx sc;
    if (!tv_api_source_ctx(r, srcp, inc, exc, &sc)) return;
    bool src_given = srcp || inc || exc;
    const char **stored = NULL;
    size_t nstored = 0;
    const char *sf = tv_req_param(r, "stored_fields");
    if (sf) {
        nstored = tv_split_commas(&r->arena, sf, &stored);
        if (!stored) {
            r->oom = true;
            return;
        }
        if (!src_given) {
            sc.fetch = false;
            for (size_t i = 0; i < nstored; i++)
                if (strcmp(stored[i], "_source") == 0) sc.fetch = true;
        }
    }
    bool want_get = sf || (src_given && sc.fetch);

    const tv_json *body = tv_req_parse_body(r, TV_BODY_PARSER);
    if (!body && r->body_len) return;
    tv_search_params p;
    tv_search_params_init(&p);
    tv_api_search_limits(r, &p);
    p.q = tv_req_param(r, "q");
    p.df = tv_req_param(r, "df");
    p.default_operator = dop;
    p.analyzer = tv_req_param(r, "analyzer");
    p.body_text = r->body;
    p.body_text_len = r->body_len;

    tv_error err = TV_ERROR_INIT;
    tv_explain_result res;
    /* steps 1 and 2: the request alone */
    tv_status st = tv_search_explain(NULL, body, &p, r->p_id, strlen(r->p_id), &r->arena, &res, &err);
    if (st) return answer_error(r, &err, NULL);

    tv_index *idx = tv_node_get_index(r->node, r->p_index);
    if (!idx) {
        tv_api_err *e = tv_api_err_no_index(r, r->p_index);
        if (e) tv_req_error(r, e);
        return;
    }
    const char *routing = tv_req_param(r, "routing");
    if (routing && !*routing) routing = NULL;
    if (!routing && tv_routing_required(idx)) {
        tv_api_err *e = tv_api_err_routing_missing(r, tv_index_name(idx), r->p_id);
        if (e) tv_req_error(r, e);
        tv_index_release(idx);
        return;
    }
    const tv_snapshot *snap = tv_index_acquire(idx);
    if (!snap) {
        r->oom = true;
        tv_index_release(idx);
        return;
    }
    tv_search_target t;
    memset(&t, 0, sizeof t);
    t.index = tv_index_name(idx);
    t.snap = snap;
    st = tv_search_explain(&t, body, &p, r->p_id, strlen(r->p_id), &r->arena, &res, &err);
    if (!st && res.exists &&
        !tv_same_shard(idx, r->p_id, strlen(r->p_id), routing, routing ? strlen(routing) : 0, res.meta.routing,
                           res.meta.routing ? res.meta.routing_len : 0))
        res.exists = false; /* the routing reaches another shard */
    if (st) {
        answer_error(r, &err, idx);
    } else {
        tv_jw *w = tv_req_json(r, res.exists ? 200 : 404);
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "_index");
        tv_jw_strz(w, tv_index_name(idx));
        tv_jw_keyz(w, "_id");
        tv_jw_strz(w, r->p_id);
        tv_jw_keyz(w, "matched");
        tv_jw_bool(w, res.exists && res.matched);
        if (res.exists) {
            tv_jw_keyz(w, "explanation");
            tv_jw_obj_begin(w);
            tv_search_explain_write(w, &res);
            tv_jw_obj_end(w);
            if (want_get) {
                tv_jw_keyz(w, "get");
                tv_jw_obj_begin(w);
                tv_api_write_get_found(r, w, idx, &res.meta, res.src, res.src_len, &sc, stored, nstored, false);
                tv_jw_obj_end(w);
            }
        }
        tv_jw_obj_end(w);
    }
    tv_snapshot_release(snap);
    tv_index_release(idx);
}
