/*
 * seed.c — trove_node_load_seed: loads a test fixture ("seed") into a node.
 *
 * A seed is either a directory or a single NDJSON file. A directory is
 * applied in four steps, each over its files sorted by name (byte order):
 *
 *   1. NAME.template.json  PUT  /_index_template/NAME
 *   2. INDEX.index.json    PUT  /INDEX
 *   3. INDEX.ndjson        POST /INDEX/_bulk?refresh=true (an action may
 *                          still name its own _index)
 *   4. aliases.json        POST /_aliases
 *
 * Other files (README, hidden files) are ignored. A single file must end in
 * .ndjson and is sent as POST /_bulk?refresh=true, so its actions name
 * their index. These are the seed formats of an existing in-memory fake of
 * OpenSearch, so fixtures written for it load unchanged.
 *
 * Everything goes through trove_request, exactly as a client's requests
 * would: the seed gets OpenSearch's validation and error reasons for free,
 * and the loader needs no knowledge of the index layer.
 *
 * Errors. The first failure stops loading (what was applied before stays
 * applied) and the error names the file, the line and OpenSearch's reason:
 * "PATH:LINE: TYPE: REASON". For a bulk file the line is the action line
 * of the first failed item. It is found only after a failure, by walking
 * the file's lines again (an action line is followed by a source line
 * except for delete), so a seed that loads pays for one parse of its bulk
 * body, inside _bulk. A whole-request failure of _bulk names the first line
 * that is not a JSON object, if any. err->code is the trove_status whose
 * OpenSearch type and HTTP status match the failure (TROVE_EARG when none
 * does), err->pos the byte offset of the line in the file.
 *
 * Rejected: sending each bulk item as its own request to know its line
 * (a request per document makes large seeds slow), and parsing the seed
 * files here to build documents directly (a second, diverging path).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json/json.h"
#include "trove.h"
#include "util/util.h"

/* Fills err with "path[:line]: message" and returns code. */
static int fail(trove_error *err, int code, const char *path, uint32_t line, size_t pos, const char *fmt, ...)
    TV_PRINTF(6, 7);
static int fail(trove_error *err, int code, const char *path, uint32_t line, size_t pos, const char *fmt, ...) {
    if (!err) return code;
    err->code = code;
    err->pos = pos;
    int n = line ? snprintf(err->message, sizeof err->message, "%s:%u: ", path, line)
                 : snprintf(err->message, sizeof err->message, "%s: ", path);
    if (n < 0) n = 0;
    if ((size_t)n < sizeof err->message) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message + n, sizeof err->message - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return code;
}

static bool ends_with(const char *s, const char *suf) {
    size_t n = strlen(s), m = strlen(suf);
    return n > m && memcmp(s + n - m, suf, m) == 0;
}

/* Reads a whole file into an owned NUL-terminated buffer. */
static int read_file(const char *path, char **out, size_t *len, trove_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) return fail(err, TROVE_EIO, path, 0, SIZE_MAX, "cannot open the seed file: %s", strerror(errno));
    tv_buf b;
    tv_buf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) tv_buf_append(&b, chunk, n);
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        tv_buf_fini(&b);
        return fail(err, TROVE_EIO, path, 0, SIZE_MAX, "cannot read the seed file");
    }
    *out = tv_buf_detach(&b, len);
    if (!*out) return fail(err, TROVE_ENOMEM, path, 0, SIZE_MAX, "out of memory");
    return 0;
}

/* Appends s percent-encoded (everything but unreserved characters). */
static void put_encoded(tv_buf *b, const char *s, size_t n) {
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
            c == '_' || c == '.' || c == '~' || c >= 0x80) {
            tv_buf_putc(b, (char)c);
        } else {
            tv_buf_putc(b, '%');
            tv_buf_putc(b, hex[c >> 4]);
            tv_buf_putc(b, hex[c & 15]);
        }
    }
}

/* The trove_status whose OpenSearch type and HTTP status are these. */
static int status_of(const char *type, int http) {
    if (type) {
        for (int c = 1; c < TROVE_STATUS_COUNT_; c++)
            if (trove_status_http(c) == http && strcmp(trove_status_type(c), type) == 0) return c;
        for (int c = 1; c < TROVE_STATUS_COUNT_; c++)
            if (strcmp(trove_status_type(c), type) == 0) return c;
    }
    return TROVE_EARG;
}

/* type and reason of an OpenSearch error object ({"type","reason",...}). */
static void error_parts(const tv_json *e, const char **type, const char **reason) {
    const tv_json *t = tv_json_get(e, "type"), *r = tv_json_get(e, "reason");
    *type = tv_json_is_string(t) ? t->v.s : "error";
    *reason = tv_json_is_string(r) ? r->v.s : "";
}

/* Next non-blank line of [p, p+len) from *off: sets [*ls, *le) and returns
 * its 1-based number through *line (counted from *line as it was). */
static bool next_line(const char *p, size_t len, size_t *off, uint32_t *line, size_t *ls, size_t *le) {
    while (*off < len) {
        size_t s = *off, e = s;
        while (e < len && p[e] != '\n') e++;
        *off = e < len ? e + 1 : e;
        (*line)++;
        size_t t = s;
        while (t < e && (p[t] == ' ' || p[t] == '\t' || p[t] == '\r')) t++;
        if (t < e) {
            *ls = s;
            *le = e;
            return true;
        }
    }
    return false;
}

/* Line of the action of bulk item `item` (0-based); 0 when not found. */
static uint32_t bulk_item_line(const char *p, size_t len, size_t item, size_t *pos) {
    tv_arena a;
    tv_arena_init(&a);
    size_t off = 0, ls = 0, le = 0, k = 0;
    uint32_t line = 0, found = 0;
    while (next_line(p, len, &off, &line, &ls, &le)) {
        tv_json *v = NULL;
        if (tv_json_parse(&a, p + ls, le - ls, &v, NULL) != TROVE_OK || !tv_json_is_object(v) || v->len == 0)
            break;
        if (k == item) {
            found = line;
            *pos = ls;
            break;
        }
        k++;
        bool has_source = strcmp(v->v.members[0].key, "delete") != 0;
        tv_arena_reset(&a);
        if (has_source && !next_line(p, len, &off, &line, &ls, &le)) break;
    }
    tv_arena_fini(&a);
    return found;
}

/* First line that is not a JSON value (0 when all are). */
static uint32_t first_bad_line(const char *p, size_t len, size_t *pos) {
    tv_arena a;
    tv_arena_init(&a);
    size_t off = 0, ls = 0, le = 0;
    uint32_t line = 0, found = 0;
    while (next_line(p, len, &off, &line, &ls, &le)) {
        tv_json *v = NULL;
        if (tv_json_parse(&a, p + ls, le - ls, &v, NULL) != TROVE_OK) {
            found = line;
            *pos = ls;
            break;
        }
        tv_arena_reset(&a);
    }
    tv_arena_fini(&a);
    return found;
}

/* Sends one seed file. bulk: the body is NDJSON for _bulk. */
static int apply(trove_node *node, const char *method, const char *target, const char *path, bool bulk,
                 trove_error *err) {
    char *body = NULL;
    size_t len = 0;
    int rc = read_file(path, &body, &len, err);
    if (rc) return rc;
    trove_response r;
    rc = trove_request(node, method, target, body, len, &r);
    if (rc) {
        tv_free(body);
        return fail(err, rc, path, 0, SIZE_MAX, "%s", trove_status_message(rc));
    }
    bool ok = r.status >= 200 && r.status < 300;
    /* a bulk answer starts {"took":N,"errors":false, when every item passed */
    if (ok && bulk && r.body) {
        const char *e = strstr(r.body, "\"errors\":");
        ok = e && (size_t)(e - r.body) < 48 && strncmp(e + 9, "false", 5) == 0;
    }
    if (ok) {
        trove_response_fini(&r);
        tv_free(body);
        return 0;
    }
    tv_arena a;
    tv_arena_init(&a);
    tv_json *root = NULL;
    const char *type = "error", *reason = "";
    uint32_t line = 0;
    size_t pos = SIZE_MAX;
    int http = r.status;
    if (!r.body || tv_json_parse(&a, r.body, r.body_len, &root, NULL) != TROVE_OK) {
        reason = r.body ? r.body : "";
    } else if (r.status >= 200 && r.status < 300) {
        /* bulk with errors: the first failed item */
        const tv_json *items = tv_json_get(root, "items");
        for (uint32_t i = 0; tv_json_is_array(items) && i < items->len; i++) {
            const tv_json *it = &items->v.items[i];
            if (!tv_json_is_object(it) || it->len == 0) continue;
            const tv_json *res = &it->v.members[0].val;
            const tv_json *e = tv_json_get(res, "error");
            if (!e) continue;
            error_parts(e, &type, &reason);
            const tv_json *st = tv_json_get(res, "status");
            if (tv_json_is_number(st)) http = (int)tv_json_as_double(st);
            line = bulk_item_line(body, len, i, &pos);
            break;
        }
    } else {
        const tv_json *e = tv_json_get(root, "error");
        if (tv_json_is_object(e)) error_parts(e, &type, &reason);
        else if (tv_json_is_string(e)) reason = e->v.s;
        if (bulk) {
            line = first_bad_line(body, len, &pos);
        } else {
            tv_json *v;
            tv_json_error je;
            if (tv_json_parse(&a, body, len, &v, &je) != TROVE_OK) {
                line = je.line;
                pos = je.pos;
            }
        }
    }
    rc = fail(err, status_of(type, http), path, line, pos, "%s: %s", type, reason);
    tv_arena_fini(&a);
    trove_response_fini(&r);
    tv_free(body);
    return rc;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int load_dir(trove_node *node, const char *dir, trove_error *err) {
    DIR *d = opendir(dir);
    if (!d) return fail(err, TROVE_EIO, dir, 0, SIZE_MAX, "cannot open the seed directory: %s", strerror(errno));
    TV_VEC(char *) names = {0};
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        if (!ends_with(de->d_name, ".json") && !ends_with(de->d_name, ".ndjson")) continue;
        char *s = tv_malloc(strlen(de->d_name) + 1);
        if (!s || tv_vec_push(&names, s)) {
            tv_free(s);
            rc = fail(err, TROVE_ENOMEM, dir, 0, SIZE_MAX, "out of memory");
            break;
        }
        strcpy(s, de->d_name);
    }
    closedir(d);
    if (names.len) qsort(names.items, names.len, sizeof names.items[0], cmp_names);
    static const char *const steps[] = {".template.json", ".index.json", ".ndjson", NULL};
    tv_buf path, target;
    tv_buf_init(&path);
    tv_buf_init(&target);
    for (int step = 0; step < 4 && rc == 0; step++) {
        for (size_t i = 0; i < names.len && rc == 0; i++) {
            const char *n = names.items[i];
            size_t stem;
            if (step < 3) {
                if (!ends_with(n, steps[step])) continue;
                stem = strlen(n) - strlen(steps[step]);
            } else {
                if (strcmp(n, "aliases.json") != 0) continue;
                stem = 0;
            }
            tv_buf_clear(&path);
            tv_buf_clear(&target);
            tv_buf_printf(&path, "%s/%s", dir, n);
            const char *method = "PUT";
            if (step == 0) {
                tv_buf_puts(&target, "/_index_template/");
                put_encoded(&target, n, stem);
            } else if (step == 1) {
                tv_buf_putc(&target, '/');
                put_encoded(&target, n, stem);
            } else if (step == 2) {
                method = "POST";
                tv_buf_putc(&target, '/');
                put_encoded(&target, n, stem);
                tv_buf_puts(&target, "/_bulk?refresh=true");
            } else {
                method = "POST";
                tv_buf_puts(&target, "/_aliases");
            }
            if (path.oom || target.oom) rc = fail(err, TROVE_ENOMEM, dir, 0, SIZE_MAX, "out of memory");
            else rc = apply(node, method, target.data, path.data, step == 2, err);
        }
    }
    tv_buf_fini(&path);
    tv_buf_fini(&target);
    for (size_t i = 0; i < names.len; i++) tv_free(names.items[i]);
    tv_vec_fini(&names);
    return rc;
}

int trove_node_load_seed(trove_node *node, const char *path, trove_error *err) {
    if (err) {
        err->code = 0;
        err->pos = SIZE_MAX;
        err->message[0] = '\0';
    }
    if (!node || !path || !*path) return fail(err, TROVE_EARG, path ? path : "(null)", 0, SIZE_MAX, "no node or no seed path");
    struct stat st;
    if (stat(path, &st) != 0) return fail(err, TROVE_EIO, path, 0, SIZE_MAX, "cannot read the seed: %s", strerror(errno));
    if (S_ISDIR(st.st_mode)) return load_dir(node, path, err);
    if (!ends_with(path, ".ndjson"))
        return fail(err, TROVE_EARG, path, 0, SIZE_MAX,
                    "a seed is a directory or an .ndjson file whose actions name their index");
    return apply(node, "POST", "/_bulk?refresh=true", path, true, err);
}
