/*
 * status.c — the tables behind trove_status: message, OpenSearch error type,
 * HTTP status and name of each code, all generated from TROVE_STATUS_LIST in
 * trove.h so that the four can never disagree. Also the tv_error helpers.
 */
#include <stdio.h>

#include "util.h"

#define TV_STATUS_MSG_(name, http, type, msg) msg,
#define TV_STATUS_TYPE_(name, http, type, msg) type,
#define TV_STATUS_HTTP_(name, http, type, msg) http,
#define TV_STATUS_NAME_(name, http, type, msg) #name,
static const char *const status_msg[] = {TROVE_STATUS_LIST(TV_STATUS_MSG_)};
static const char *const status_type[] = {TROVE_STATUS_LIST(TV_STATUS_TYPE_)};
static const int status_http[] = {TROVE_STATUS_LIST(TV_STATUS_HTTP_)};
static const char *const status_name[] = {TROVE_STATUS_LIST(TV_STATUS_NAME_)};

static int valid(int code) { return code >= 0 && code < TROVE_STATUS_COUNT_; }

const char *trove_status_message(int code) { return valid(code) ? status_msg[code] : "unknown status"; }
const char *trove_status_type(int code) { return valid(code) ? status_type[code] : "exception"; }
int trove_status_http(int code) { return valid(code) ? status_http[code] : 500; }
const char *trove_status_name(int code) { return valid(code) ? status_name[code] : "UNKNOWN"; }

void tv_error_clear(tv_error *e) {
    if (!e) return;
    e->code = TROVE_OK;
    e->pos = SIZE_MAX;
    e->line = e->col = 0;
    e->reason[0] = '\0';
    e->index[0] = '\0';
    e->cause_code = TROVE_OK;
    e->cause_reason[0] = '\0';
    e->type[0] = '\0';
    e->cause_type[0] = '\0';
    for (int i = 0; i < TV_ERROR_MORE_CAUSES; i++) {
        e->more[i].code = TROVE_OK;
        e->more[i].type[0] = '\0';
        e->more[i].reason[0] = '\0';
    }
}

tv_status tv_error_set(tv_error *e, tv_status code, const char *fmt, ...) {
    if (!e) return code;
    tv_error_clear(e);
    e->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->reason, sizeof e->reason, fmt, ap);
    va_end(ap);
    return code;
}

tv_status tv_error_cause(tv_error *e, tv_status code, const char *fmt, ...) {
    if (!e) return code;
    e->cause_code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->cause_reason, sizeof e->cause_reason, fmt, ap);
    va_end(ap);
    return e->code;
}

tv_status tv_error_cause_add(tv_error *e, tv_status code, const char *type, const char *fmt, ...) {
    if (!e) return code;
    char *reason = NULL, *tbuf = NULL;
    size_t rcap = 0, tcap = 0;
    if (e->cause_code == TROVE_OK) {
        e->cause_code = code;
        reason = e->cause_reason;
        rcap = sizeof e->cause_reason;
        tbuf = e->cause_type;
        tcap = sizeof e->cause_type;
    } else {
        for (int i = 0; i < TV_ERROR_MORE_CAUSES; i++) {
            if (e->more[i].code != TROVE_OK) continue;
            e->more[i].code = code;
            reason = e->more[i].reason;
            rcap = sizeof e->more[i].reason;
            tbuf = e->more[i].type;
            tcap = sizeof e->more[i].type;
            break;
        }
    }
    if (!reason) return e->code;
    snprintf(tbuf, tcap, "%s", type ? type : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, rcap, fmt, ap);
    va_end(ap);
    return e->code;
}

void tv_error_to_public(const tv_error *e, trove_error *out) {
    if (!out) return;
    out->code = e ? (int)e->code : TROVE_OK;
    out->pos = e ? e->pos : SIZE_MAX;
    snprintf(out->message, sizeof out->message, "%s", e ? e->reason : "");
}

const char *trove_version(void) { return TROVE_VERSION_STRING; }
