/*
 * body.c — request bodies as JSON, with the errors OpenSearch gives
 * for a body it cannot read (per context: a document, a map, a query).
 * Source filtering and the partial-update merge are the json layer's
 * (xcontent.c); comma lists and wildcard matches are util's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

/* ------------------------------------------------------------- helpers */

/* ---------------------------------------------------------------- bodies */

const tv_json *tv_req_parse_body(tv_req *r, tv_body_ctx ctx) {
    if (!r->body || r->body_len == 0) return NULL;
    tv_json *root = NULL;
    tv_json_error je;
    memset(&je, 0, sizeof je);
    tv_status st = tv_json_parse(&r->arena, r->body, r->body_len, &root, &je);
    if (st == TROVE_OK) return root;
    if (st == TROVE_ENOMEM) {
        r->oom = true;
        return NULL;
    }
    char *jmsg = tv_arena_sprintf(&r->arena,
                                  "%s\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` "
                                  "disabled); line: %u, column: %u]",
                                  je.msg, je.line, je.col);
    tv_api_err *e = tv_arena_calloc(&r->arena, 1, sizeof *e);
    tv_api_err *c = tv_arena_calloc(&r->arena, 1, sizeof *c);
    if (!jmsg || !e || !c) {
        r->oom = true;
        return NULL;
    }
    c->type = st == TROVE_ELIMIT ? TROVE_ESTREAMLIMIT : TROVE_EJSON;
    c->reason = jmsg;
    c->status = 400;
    if (ctx == TV_BODY_MAP) {
        e->type = TROVE_EPARSEEXC;
        e->reason = "Failed to parse content to map";
        e->status = 400;
        e->cause = c;
        tv_req_error(r, e);
    } else {
        tv_req_error(r, c);
    }
    return NULL;
}
