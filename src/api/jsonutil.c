/*
 * jsonutil.c — request bodies and small JSON helpers of the API (comma
 * lists, compact text, simple wildcard matches). Source filtering and the
 * partial-update merge are the json layer's (xcontent.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

/* ------------------------------------------------------------- helpers */

bool tv_simple_match(const char *pat, const char *s, size_t slen) {
    return tv_glob_match(pat, strlen(pat), s, slen);
}

char *tv_json_compact(const tv_json *v) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_value(&w, v);
    char *s = b.oom ? NULL : tv_strndup(b.data ? b.data : "", b.len);
    tv_buf_fini(&b);
    return s;
}

size_t tv_split_commas(tv_arena *a, const char *s, const char ***out) {
    size_t n = 1;
    for (const char *p = s; *p; p++)
        if (*p == ',') n++;
    const char **v = tv_arena_calloc(a, n, sizeof *v);
    *out = v;
    if (!v) return 0;
    size_t k = 0;
    const char *p = s;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        /* trim spaces as Strings.splitStringByCommaToArray + trim do */
        while (len && *p == ' ') {
            p++;
            len--;
        }
        while (len && p[len - 1] == ' ') len--;
        if (len) {
            char *c = tv_arena_strndup(a, p, len);
            if (!c) {
                *out = NULL;
                return 0;
            }
            v[k++] = c;
        }
        if (!e) break;
        p = e + 1;
    }
    return k;
}

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
