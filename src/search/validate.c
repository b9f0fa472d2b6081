/*
 * validate.c — _validate/query on the search side: parse (and, with
 * rewrite, rewrite) a query against each target without running it, and
 * print the Lucene query OpenSearch would have built (query/to_string.c).
 *
 * What OpenSearch does (TransportValidateQueryAction): the REST layer
 * parses the body into a QueryBuilder (RestActions.getQueryContent; a
 * failure there answers {"valid":false} without reaching a shard), then
 * each shard runs QueryShardContext.toQuery (shard-level rewrite + the
 * builders' doToQuery); a QueryShardException or ParsingException there
 * makes that shard's answer invalid. The explanation is
 * context.query().toString(): the unrewritten Lucene query, or with
 * rewrite=true IndexSearcher.rewrite's result (except that a rewrite to
 * MatchNoDocsQuery prints the unrewritten query).
 *
 * Here: one parse with no mapping finds the errors OpenSearch raises while
 * parsing the body (request-level: the builders' fromXContent needs no
 * mapping); then one parse per target with its mapping finds the shard
 * errors. trove's parser builds the tree OpenSearch's builders build
 * (dsl.c), and the root node each query parser returns carries that
 * query's name and JSON body (tv_query.origin), so the printer knows which
 * builder a node came from.
 */
#include "query/parse.h"
#include "search/search.h"
#include "search/search_int.h"

static tv_status parse(tv_dsl *d, const tv_json *query, tv_query **out) {
    if (query) return tv_dsl_parse_query(d, query, out);
    *out = tv_q_new(d, TV_Q_MATCH_ALL);
    if (!*out) return tv_error_oom(d->err);
    (*out)->origin = "match_all"; /* ValidateQueryRequest's default query */
    return TROVE_OK;
}

/* Errors OpenSearch raises while parsing the body (no mapping needed). */
static bool request_level(tv_status st) {
    return st != TROVE_OK && st != TROVE_EQUERYSHARD && st != TROVE_EUNSUPPORTED && st != TROVE_ENOMEM;
}

tv_status tv_search_validate(const tv_search_target *targets, size_t ntargets, const tv_json *query,
                             const tv_search_params *params, bool explain, bool rewrite, tv_arena *arena,
                             tv_validate_result *out, tv_error *err) {
    tv_error_clear(err);
    if (params && params->q && !query) {
        if (tv_query_string_from_params(arena, params, &query) != TROVE_OK)
            return tv_error_oom(err);
    }
    tv_dsl d;
    tv_search_dsl_init(&d, arena, err, params);
    /* the body as the REST layer parses it: no mapping */
    tv_query *q = NULL;
    tv_status st = parse(&d, query, &q);
    if (st == TROVE_ENOMEM || st == TROVE_EUNSUPPORTED) return st;
    if (request_level(st)) return st; /* err filled */
    tv_error_clear(err);
    for (size_t i = 0; i < ntargets; i++) {
        tv_validate_result *r = &out[i];
        memset(r, 0, sizeof *r);
        tv_error_clear(&r->err);
        tv_dsl td = d;
        td.err = &r->err;
        td.depth = 0;
        td.mapping = targets[i].snap ? targets[i].snap->mapping : NULL;
        td.snap = targets[i].snap;
        st = parse(&td, query, &q);
        if (st == TROVE_ENOMEM || st == TROVE_EUNSUPPORTED) {
            *err = r->err;
            return st;
        }
        if (st != TROVE_OK) {
            r->valid = false;
            continue;
        }
        r->valid = true;
        if (!explain && !rewrite) continue;
        if ((st = tv_query_to_string(q, td.mapping, false, arena, &r->explanation, err))) return st;
        if (rewrite) {
            tv_query *rq = q;
            if ((st = tv_query_rewrite(&rq, arena))) return tv_error_set(err, st, "out of memory");
            /* a rewrite to MatchNoDocsQuery prints the parsed query */
            if (rq->kind != TV_Q_MATCH_NONE &&
                (st = tv_query_to_string(rq, td.mapping, true, arena, &r->explanation, err)))
                return st;
        }
    }
    return TROVE_OK;
}
