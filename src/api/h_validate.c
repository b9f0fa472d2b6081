/*
 * h_validate.c — GET|POST /_validate/query and /{index}/_validate/query
 * (RestValidateQueryAction + TransportValidateQueryAction).
 *
 * The request: explain, rewrite, all_shards; the index options; a body
 * {"query":{..}} or, without a body, URI search (?q= with df,
 * default_operator, analyzer) or match_all. The search layer
 * (tv_search_validate) parses the query once as the REST layer does and
 * once per target index, and prints the explanations.
 *
 * Answers, as OpenSearch builds them:
 *   - the body fails to parse (RestValidateQueryAction catches it): 200
 *     {"valid":false}, with explain=true plus "error": the exception's
 *     getDetailedMessage() for a ParsingException (parse errors that are
 *     not ParsingExceptions reach it wrapped by RestActions as
 *     ParsingException[Failed to parse]), getMessage() for anything else
 *     (an unknown default_operator);
 *   - a body without "query" ({}): 400 action_request_validation_exception
 *     "query cannot be null" (ValidateQueryRequest.validate);
 *   - else 200 {"_shards":{total,successful,failed},"valid":AND of the
 *     shards} and, with explain, rewrite or all_shards, "explanations": per
 *     index (sorted by name; "shard":0 with all_shards) {"index","valid",
 *     "error" when invalid, "explanation" when valid}. An invalid shard's
 *     error is QueryShardException.getDetailedMessage(): "[index/uuid]
 *     QueryShardException[msg]; nested: Cause[msg];; java.lang.Cause: msg"
 *     (OpenSearchException.toString + ExceptionsHelper.detailedMessage).
 * One shard per index, as everywhere in trove, so total = the number of
 * indices either way.
 *
 * Refused with 400 unsupported_operation_exception rather than guessed: an
 * explanation the search layer cannot print exactly, an explanation
 * through a filtered alias, an error whose Java class trove cannot name,
 * a malformed JSON body with explain=true (Jackson's message), lenient and
 * analyze_wildcard (as on _search).
 */
#include <stdio.h>
#include <strings.h>

#include "api.h"

/* ------------------------------------------------- Java exception text */

typedef struct jlevel {
    tv_status type; /* its OpenSearch type (a code of the status table) */
    const char *msg;
    const char *index; /* "[name/uuid]" metadata prefix, or NULL */
} jlevel;

static bool is_os(tv_status type) { return tv_status_os(type) && type != TROVE_EEXCEPTION; }

/* ExceptionsHelper.detailedMessage(levels[k]), trimmed. */
static void detailed(tv_buf *b, const jlevel *lv, size_t n, size_t k) {
    if (k + 1 >= n) {
        tv_status_simple_name(b, lv[k].type);
        tv_buf_printf(b, "[%s]", lv[k].msg);
        return;
    }
    for (size_t j = k; j < n; j++) {
        if (j > k) tv_buf_puts(b, " nested: ");
        tv_status_simple_name(b, lv[j].type);
        tv_buf_printf(b, "[%s];", lv[j].msg);
    }
}

/* OpenSearchException.getDetailedMessage() of levels[k]; false when a
 * class cannot be named. */
static bool detailed_message(tv_buf *b, const jlevel *lv, size_t n, size_t k) {
    for (size_t j = k; j < n; j++)
        if (!is_os(lv[j].type) && !tv_status_java(lv[j].type)) return false;
    if (lv[k].index) tv_buf_printf(b, "%s ", lv[k].index);
    detailed(b, lv, n, k);
    if (k + 1 < n) {
        tv_buf_puts(b, "; ");
        if (is_os(lv[k + 1].type)) return detailed_message(b, lv, n, k + 1);
        tv_buf_printf(b, "%s: %s", tv_status_java(lv[k + 1].type), lv[k + 1].msg);
    }
    return true;
}

/* The levels of a tv_error: itself, its cause, the causes below. */
static size_t err_levels(const tv_error *e, jlevel *lv, size_t at) {
    size_t n = at;
    lv[n].type = tv_error_type(e);
    lv[n].msg = e->reason;
    lv[n].index = NULL;
    n++;
    if (e->cause_code != TROVE_OK || e->cause_type != TROVE_OK) {
        lv[n].type = e->cause_type != TROVE_OK ? e->cause_type : e->cause_code;
        lv[n].msg = e->cause_reason;
        lv[n].index = NULL;
        n++;
        for (size_t i = 0; i < TV_ERROR_MORE_CAUSES; i++) {
            if (e->more[i].code == TROVE_OK && e->more[i].type == TROVE_OK) break;
            lv[n].type = e->more[i].type != TROVE_OK ? e->more[i].type : e->more[i].code;
            lv[n].msg = e->more[i].reason;
            lv[n].index = NULL;
            n++;
        }
    }
    return n;
}

/* The levels as the detailed message text (request arena; NULL, with
 * r->oom set, out of memory). */
static char *levels_text(tv_req *r, const jlevel *lv, size_t n) {
    tv_buf b;
    tv_buf_init(&b);
    char *out = NULL;
    if (detailed_message(&b, lv, n, 0) && !b.oom) out = tv_arena_strndup(&r->arena, b.data, b.len);
    else if (b.oom) r->oom = true;
    tv_buf_fini(&b);
    return out;
}

/* The "error" text of a request-level parse failure; NULL when unknown. */
static char *request_error(tv_req *r, const tv_error *e) {
    jlevel lv[8];
    size_t n = 0;
    char loc[300];
    tv_status type = tv_error_type(e);
    if (type == TROVE_EPARSE) {
        n = err_levels(e, lv, 0);
        const char *uq = "unknown query [";
        if (n == 1 && strncmp(e->reason, uq, strlen(uq)) == 0) {
            /* AbstractQueryBuilder.parseInnerQueryBuilder keeps the
             * registry's NamedObjectNotFoundException as the cause */
            const char *s = e->reason + strlen(uq);
            size_t l = strcspn(s, "]");
            snprintf(loc, sizeof loc, "[%u:%u] unknown field [%.*s]", e->line, e->col, (int)TV_MIN(l, 200), s);
            lv[1].type = TROVE_ENAMEDOBJECT;
            lv[1].msg = loc;
            lv[1].index = NULL;
            n = 2;
        }
    } else {
        /* RestActions.parseTopLevelQueryBuilder wraps the rest */
        lv[0].type = TROVE_EPARSE;
        lv[0].msg = "Failed to parse";
        lv[0].index = NULL;
        n = err_levels(e, lv, 1);
    }
    return levels_text(r, lv, n);
}

/* The "error" text of a shard that could not build the query. */
static char *shard_error(tv_req *r, const tv_error *e, tv_index *idx) {
    jlevel lv[8];
    size_t n;
    char prefix[600];
    snprintf(prefix, sizeof prefix, "[%s/%s]", tv_index_name(idx), tv_index_uuid(idx));
    tv_status type = tv_error_type(e);
    char wrapped[1200];
    if (type == TROVE_EQUERYSHARD) {
        n = err_levels(e, lv, 0);
        lv[0].index = prefix;
    } else if (type == TROVE_EPARSE) {
        n = err_levels(e, lv, 0);
    } else {
        /* QueryShardContext.toQuery: "failed to create query: {}" */
        snprintf(wrapped, sizeof wrapped, "failed to create query: %s", e->reason);
        lv[0].type = TROVE_EQUERYSHARD;
        lv[0].msg = wrapped;
        lv[0].index = prefix;
        n = err_levels(e, lv, 1);
    }
    return levels_text(r, lv, n);
}

/* ------------------------------------------------------------- answers */

static void answer_invalid(tv_req *r, bool explain, const char *error) {
    tv_jw *w = tv_req_json(r, 200);
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "valid");
    tv_jw_bool(w, false);
    if (explain) {
        tv_jw_keyz(w, "error");
        tv_jw_strz(w, error);
    }
    tv_jw_obj_end(w);
}

static bool cannot_name(tv_req *r) {
    return tv_req_fail(r, TROVE_EUNSUPPORTED,
                       "trove cannot print this error as OpenSearch's _validate/query does");
}

static const char *token_name(const tv_json *v) {
    switch (v->type) {
    case TV_JSON_ARRAY: return "START_ARRAY";
    case TV_JSON_STRING: return "VALUE_STRING";
    case TV_JSON_TRUE:
    case TV_JSON_FALSE: return "VALUE_BOOLEAN";
    case TV_JSON_NULL: return "VALUE_NULL";
    default: return "VALUE_NUMBER";
    }
}

static bool reject_param(tv_req *r, const char *key) {
    if (!tv_req_param(r, key)) return true;
    return tv_req_fail(r, TROVE_EUNSUPPORTED,
                       "trove does not support the [%s] parameter of _validate/query", key);
}

void tv_h_validate_query(tv_req *r) {
    bool explain, rewrite, all_shards, iu, ani;
    if (!tv_req_param_bool(r, "explain", false, &explain) || !tv_req_param_bool(r, "rewrite", false, &rewrite) ||
        !tv_req_param_bool(r, "all_shards", false, &all_shards) ||
        !tv_req_param_bool(r, "ignore_unavailable", false, &iu) ||
        !tv_req_param_bool(r, "allow_no_indices", true, &ani))
        return;
    const char *ew = tv_req_param(r, "expand_wildcards");
    if (ew && strcmp(ew, "open") != 0 && strcmp(ew, "all") != 0 && strcmp(ew, "open,closed") != 0)
        return (void)tv_req_fail(r, TROVE_EUNSUPPORTED,
                                 "trove does not support expand_wildcards [%s]", ew);

    /* the body, as RestValidateQueryAction reads it */
    tv_search_params p;
    tv_search_params_init(&p);
    tv_api_search_limits(r, &p);
    const tv_json *query = NULL;
    if (r->body_len) {
        tv_json *body = NULL;
        if (tv_json_parse(&r->arena, r->body, r->body_len, &body, NULL) != TROVE_OK || !body) {
            if (!explain) return answer_invalid(r, false, NULL);
            return (void)tv_req_fail(r, TROVE_EUNSUPPORTED,
                                     "trove cannot print Jackson's error for a malformed body in _validate/query");
        }
        if (body->type != TV_JSON_OBJECT) {
            char *m = tv_arena_sprintf(&r->arena, "ParsingException[Expected [START_OBJECT] but found [%s]]",
                                       token_name(body));
            if (!m) return (void)(r->oom = true);
            return answer_invalid(r, explain, m);
        }
        bool has_query = false;
        for (uint32_t i = 0; i < body->len; i++) {
            const tv_json_member *m = &body->v.members[i];
            if (tv_streq(m->key, m->key_len, "query")) {
                query = &m->val;
                has_query = true;
                continue;
            }
            if (!has_query) { /* this key comes first: nothing else parsed */
                char *e = tv_arena_sprintf(&r->arena, "ParsingException[request does not support [%s]]", m->key);
                if (!e) return (void)(r->oom = true);
                return answer_invalid(r, explain, e);
            }
            /* the query before it is parsed first: its error wins */
            tv_error err = TV_ERROR_INIT;
            p.body_text = r->body;
            p.body_text_len = r->body_len;
            tv_status st = tv_search_validate(NULL, 0, query, &p, false, false, &r->arena, NULL, &err);
            if (st == TROVE_ENOMEM) return (void)(r->oom = true);
            if (st == TROVE_EUNSUPPORTED) {
                tv_req_fail_tv(r, &err, NULL);
                return;
            }
            if (st != TROVE_OK) {
                char *e = explain ? request_error(r, &err) : NULL;
                if (explain && !e) {
                    if (!r->oom) cannot_name(r);
                    return;
                }
                return answer_invalid(r, explain, e);
            }
            char *e = tv_arena_sprintf(&r->arena, "ParsingException[request does not support [%s]]", m->key);
            if (!e) return (void)(r->oom = true);
            return answer_invalid(r, explain, e);
        }
        if (!has_query)
            return (void)tv_req_fail(r, TROVE_EVALIDATION,
                                     "Validation Failed: 1: query cannot be null;");
        p.body_text = r->body;
        p.body_text_len = r->body_len;
    } else if (tv_req_param(r, "q")) {
        /* RestActions.urlParamsToQueryBuilder */
        p.q = tv_req_param(r, "q");
        p.df = tv_req_param(r, "df");
        p.analyzer = tv_req_param(r, "analyzer");
        p.default_operator = tv_req_param(r, "default_operator");
        if (!reject_param(r, "lenient") || !reject_param(r, "analyze_wildcard")) return;
        const char *op = p.default_operator;
        if (op && strcasecmp(op, "AND") != 0 && strcasecmp(op, "OR") != 0) {
            /* Operator.fromString's IllegalArgumentException: its message */
            char *e = tv_arena_sprintf(&r->arena, "No enum constant org.opensearch.index.query.Operator.%s", op);
            if (!e) return (void)(r->oom = true);
            for (char *c = e + strlen(e) - strlen(op); *c; c++)
                if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 32);
            return answer_invalid(r, explain, e);
        }
    }

    tv_index_list l;
    if (!tv_node_resolve(r, r->p_index, iu, ani, &l)) return;
    bool want = explain || rewrite || all_shards;
    size_t nt = 0;
    tv_search_target *targets = tv_api_targets(r, &l, &nt);
    tv_validate_result *res = tv_arena_calloc(&r->arena, l.len + 1, sizeof *res);
    if (!res) r->oom = true;
    bool filtered = false;
    for (size_t i = 0; l.filters && i < l.len; i++) filtered |= l.filters[i] != NULL;
    tv_error err;
    tv_error_clear(&err);
    tv_status st = TROVE_OK;
    if (!r->oom) {
        if (want && filtered)
            tv_req_fail(r, TROVE_EUNSUPPORTED,
                        "trove cannot print the [explain] of a filtered alias in _validate/query");
        else
            st = tv_search_validate(targets, nt, query, &p, want, rewrite, &r->arena, res, &err);
    }
    if (r->oom || r->status) {
        /* answered above */
    } else if (st == TROVE_ENOMEM) {
        r->oom = true;
    } else if (st == TROVE_EUNSUPPORTED) {
        tv_req_fail_tv(r, &err, NULL);
    } else if (st != TROVE_OK) {
        char *e = explain ? request_error(r, &err) : NULL;
        if (explain && !e) {
            if (!r->oom) cannot_name(r);
        } else {
            answer_invalid(r, explain, e);
        }
    } else {
        bool valid = true;
        char **errs = nt ? tv_arena_calloc(&r->arena, nt, sizeof *errs) : NULL;
        for (size_t i = 0; i < nt && !r->oom; i++) {
            valid = valid && res[i].valid;
            if (!res[i].valid && want && !(errs[i] = shard_error(r, &res[i].err, l.items[i])) && !r->oom) {
                cannot_name(r);
                break;
            }
        }
        if (nt && !errs) r->oom = true;
        if (!r->oom && !r->status) {
            tv_jw *w = tv_req_json(r, 200);
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "_shards");
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "total");
            tv_jw_uint(w, nt);
            tv_jw_keyz(w, "successful");
            tv_jw_uint(w, nt);
            tv_jw_keyz(w, "failed");
            tv_jw_uint(w, 0);
            tv_jw_obj_end(w);
            tv_jw_keyz(w, "valid");
            tv_jw_bool(w, valid);
            if (want && nt) {
                tv_jw_keyz(w, "explanations");
                tv_jw_arr_begin(w);
                for (size_t i = 0; i < nt; i++) {
                    tv_jw_obj_begin(w);
                    tv_jw_keyz(w, "index");
                    tv_jw_strz(w, targets[i].index);
                    if (all_shards) {
                        tv_jw_keyz(w, "shard");
                        tv_jw_int(w, 0);
                    }
                    tv_jw_keyz(w, "valid");
                    tv_jw_bool(w, res[i].valid);
                    if (!res[i].valid) {
                        tv_jw_keyz(w, "error");
                        tv_jw_strz(w, errs[i]);
                    } else if (res[i].explanation) {
                        tv_jw_keyz(w, "explanation");
                        tv_jw_strz(w, res[i].explanation);
                    }
                    tv_jw_obj_end(w);
                }
                tv_jw_arr_end(w);
            }
            tv_jw_obj_end(w);
        }
    }
    for (size_t i = 0; i < nt; i++) tv_snapshot_release(targets[i].snap);
    tv_index_list_release(&l);
}
