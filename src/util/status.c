/*
 * status.c — the tables behind trove_status: message, OpenSearch error type,
 * HTTP status and name of each code, all generated from TROVE_STATUS_LIST in
 * trove.h so that the four can never disagree. Also the tv_error helpers.
 */
#include <assert.h>
#include <stdio.h>

#include "util.h"

#define TV_STATUS_MSG_(name, http, type, os, java, msg) msg,
#define TV_STATUS_TYPE_(name, http, type, os, java, msg) type,
#define TV_STATUS_HTTP_(name, http, type, os, java, msg) http,
#define TV_STATUS_NAME_(name, http, type, os, java, msg) #name,
#define TV_STATUS_OS_(name, http, type, os, java, msg) os,
#define TV_STATUS_JAVA_(name, http, type, os, java, msg) java,
static const char *const status_msg[] = {TROVE_STATUS_LIST(TV_STATUS_MSG_)};
static const char *const status_type[] = {TROVE_STATUS_LIST(TV_STATUS_TYPE_)};
static const int status_http[] = {TROVE_STATUS_LIST(TV_STATUS_HTTP_)};
static const char *const status_name[] = {TROVE_STATUS_LIST(TV_STATUS_NAME_)};
static const bool status_os[] = {TROVE_STATUS_LIST(TV_STATUS_OS_)};
static const char *const status_java[] = {TROVE_STATUS_LIST(TV_STATUS_JAVA_)};

static int valid(int code) { return code >= 0 && code < TROVE_STATUS_COUNT_; }

const char *trove_status_message(int code) { return valid(code) ? status_msg[code] : "unknown status"; }
const char *trove_status_type(int code) { return valid(code) ? status_type[code] : "exception"; }
int trove_status_http(int code) { return valid(code) ? status_http[code] : 500; }
const char *trove_status_name(int code) { return valid(code) ? status_name[code] : "UNKNOWN"; }
bool tv_status_os(tv_status code) { return valid((int)code) && status_os[code]; }
const char *tv_status_java(tv_status code) { return valid((int)code) ? status_java[code] : NULL; }

void tv_status_simple_name(tv_buf *b, tv_status code) {
    const char *java = tv_status_java(code);
    if (java) {
        const char *dot = strrchr(java, '.');
        tv_buf_puts(b, dot ? dot + 1 : java);
        return;
    }
    bool up = true;
    for (const char *p = trove_status_type(code); *p; p++) {
        if (*p == '_') {
            up = true;
            continue;
        }
        tv_buf_putc(b, up && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p);
        up = false;
    }
}

void tv_status_java_name(tv_buf *b, tv_status code) {
    const char *java = tv_status_java(code);
    if (java) tv_buf_puts(b, java);
    else tv_status_simple_name(b, code);
}

void tv_error_clear(tv_error *e) {
    if (!e) return;
    e->code = TROVE_OK;
    e->pos = SIZE_MAX;
    e->line = e->col = 0;
    e->reason[0] = '\0';
    e->index[0] = '\0';
    e->cause_code = TROVE_OK;
    e->cause_reason[0] = '\0';
    e->type = TROVE_OK;
    e->cause_type = TROVE_OK;
    for (int i = 0; i < TV_ERROR_MORE_CAUSES; i++) {
        e->more[i].code = TROVE_OK;
        e->more[i].type = TROVE_OK;
        e->more[i].reason[0] = '\0';
    }
}

static tv_status error_vset(tv_error *e, tv_status code, const char *fmt, va_list ap) {
    tv_error_clear(e);
    e->code = code;
    vsnprintf(e->reason, sizeof e->reason, fmt, ap);
    return code;
}

tv_status tv_error_set(tv_error *e, tv_status code, const char *fmt, ...) {
    assert(code != TROVE_OK && valid((int)code));
    if (!e) return code;
    if (e->code != TROVE_OK) return e->code; /* the first error wins */
    va_list ap;
    va_start(ap, fmt);
    error_vset(e, code, fmt, ap);
    va_end(ap);
    return code;
}

tv_status tv_error_wrap(tv_error *e, tv_status code, const char *fmt, ...) {
    assert(code != TROVE_OK && valid((int)code));
    if (!e) return code;
    va_list ap;
    va_start(ap, fmt);
    error_vset(e, code, fmt, ap);
    va_end(ap);
    return code;
}

tv_status tv_error_oom(tv_error *e) { return tv_error_set(e, TROVE_ENOMEM, "%s", trove_status_message(TROVE_ENOMEM)); }

tv_status tv_error_cause(tv_error *e, tv_status code, const char *fmt, ...) {
    if (!e) return code;
    e->cause_code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->cause_reason, sizeof e->cause_reason, fmt, ap);
    va_end(ap);
    return e->code;
}

tv_status tv_error_cause_add(tv_error *e, tv_status code, tv_status type, const char *fmt, ...) {
    if (!e) return code;
    char *reason = NULL;
    size_t rcap = 0;
    if (e->cause_code == TROVE_OK) {
        e->cause_code = code;
        e->cause_type = type;
        reason = e->cause_reason;
        rcap = sizeof e->cause_reason;
    } else {
        for (int i = 0; i < TV_ERROR_MORE_CAUSES; i++) {
            if (e->more[i].code != TROVE_OK) continue;
            e->more[i].code = code;
            e->more[i].type = type;
            reason = e->more[i].reason;
            rcap = sizeof e->more[i].reason;
            break;
        }
    }
    if (!reason) return e->code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, rcap, fmt, ap);
    va_end(ap);
    return e->code;
}

tv_status tv_error_as(tv_error *e, tv_status type) {
    assert(valid((int)type) && status_type[type][0]);
    if (!e) return type;
    e->type = type;
    return e->code;
}

tv_status tv_error_type(const tv_error *e) { return e->type != TROVE_OK ? e->type : e->code; }

void tv_error_to_public(const tv_error *e, trove_error *out) {
    if (!out) return;
    out->code = e ? (int)e->code : TROVE_OK;
    out->pos = e ? e->pos : SIZE_MAX;
    snprintf(out->message, sizeof out->message, "%s", e ? e->reason : "");
}

const char *trove_version(void) { return TROVE_VERSION_STRING; }
