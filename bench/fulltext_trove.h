/*
 * fulltext_trove.h — what trove's two full-text peers share (header-only:
 * CMake builds each bench/bench_*.c as its own program): the index they
 * create, the _bulk lines they load, the request each query line becomes
 * and how an answer is read back. bench_fulltext_trove sends the requests
 * through trove_request in process, bench_fulltext_http over HTTP to a
 * `trove serve` child; keeping the bytes in one place is what makes the
 * difference of the two a measure of the transport alone.
 * bench/fulltext/README.md has the protocol.
 */
#ifndef TROVE_BENCH_FULLTEXT_TROVE_H
#define TROVE_BENCH_FULLTEXT_TROVE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "util/util.h"

/* _bulk bodies of about this size */
#define FT_BATCH_BYTES (4u << 20)

/* PUT /ft: one shard, `body` a text field (the standard analyzer), no
 * _source (the Lucene peer stores no body either), dynamic mapping off (a
 * line's `id` becomes the _id only), no refresh until asked. */
#define FT_MAPPING                                                                                \
    "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0,\"refresh_interval\":\"-1\"}," \
    "\"mappings\":{\"dynamic\":false,\"_source\":{\"enabled\":false},"                            \
    "\"properties\":{\"body\":{\"type\":\"text\"}}}}"

/* Appends s as a JSON string (the library's own writer). */
static inline void ft_json_string(tv_buf *b, const char *s, size_t n) {
    tv_jw w;
    tv_jw_init(&w, b, false);
    tv_jw_str(&w, s, n);
}

/* Appends one document line (without its newline) to a _bulk body: the
 * index action with the line's "id" as _id, then the line itself. false
 * when the line is not a JSON object with a string "id". a is scratch. */
static inline bool ft_bulk_add(tv_buf *bulk, tv_arena *a, const char *line, size_t len) {
    tv_arena_reset(a);
    tv_json *doc;
    if (tv_json_parse(a, line, len, &doc, NULL) != TROVE_OK) return false;
    const tv_json *id = tv_json_get(doc, "id");
    if (!id || id->type != TV_JSON_STRING) return false;
    tv_buf_puts(bulk, "{\"index\":{\"_id\":");
    ft_json_string(bulk, id->v.s, id->len);
    tv_buf_puts(bulk, "}}\n");
    tv_buf_append(bulk, line, len);
    tv_buf_putc(bulk, '\n');
    return true;
}

/* Loads DOCS.ndjson: its lines as _bulk bodies of about FT_BATCH_BYTES,
 * each handed to send(ctx, body) (which sends it and checks the answer).
 * Returns the number of documents, or -1 when the file cannot be read or
 * a line is not an object with a string id (that line is printed on
 * stderr). */
static inline int64_t ft_load(const char *path, void (*send)(void *ctx, const tv_buf *bulk), void *ctx) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    tv_buf bulk;
    tv_buf_init(&bulk);
    tv_arena a;
    tv_arena_init(&a);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int64_t docs = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
        if (!len) continue;
        if (!ft_bulk_add(&bulk, &a, line, (size_t)len)) {
            fprintf(stderr, "bad document line (an object with a string id): %.200s\n", line);
            docs = -1;
            break;
        }
        docs++;
        if (bulk.len >= FT_BATCH_BYTES) {
            send(ctx, &bulk);
            tv_buf_clear(&bulk);
        }
    }
    if (docs >= 0 && bulk.len) send(ctx, &bulk);
    free(line);
    fclose(f);
    tv_buf_fini(&bulk);
    tv_arena_fini(&a);
    return docs;
}

/* One query line, MODE<TAB>QUERY, split in place (the line's end of line
 * already cut). NULL when fine, with *size 10 or 100 for TOP_N and 0 for
 * COUNT; otherwise the ERROR message, written to err. */
static inline const char *ft_parse_line(char *line, int *size, const char **q, char *err, size_t errcap) {
    char *tab = strchr(line, '\t');
    if (!tab) return "no tab in the line";
    *tab = 0;
    const char *mode = line;
    *q = tab + 1;
    *size = strcmp(mode, "TOP_10") == 0 ? 10 : strcmp(mode, "TOP_100") == 0 ? 100 : 0;
    if (!*size && strcmp(mode, "COUNT") != 0) {
        snprintf(err, errcap, "unknown mode [%s]", mode);
        return err;
    }
    return NULL;
}

/* The request of a query (a query_string query on `body`: default
 * operator OR, leading wildcards allowed, as the README's syntax means):
 * TOP_N is POST /ft/_search {"size":N,"track_total_hits":false,
 * "stored_fields":"_none_","query":...} (hits without _id or _source: the
 * Lucene peer reads no stored field either), COUNT (size 0) is POST
 * /ft/_count {"query":...}. body is cleared first; returns the path. */
static inline const char *ft_query_request(tv_buf *body, int size, const char *q) {
    tv_buf_clear(body);
    if (size) tv_buf_printf(body, "{\"size\":%d,\"track_total_hits\":false,\"stored_fields\":\"_none_\",", size);
    else tv_buf_putc(body, '{');
    tv_buf_puts(body, "\"query\":{\"query_string\":{\"default_field\":\"body\",\"query\":");
    ft_json_string(body, q, strlen(q));
    tv_buf_puts(body, "}}}");
    return size ? "/ft/_search" : "/ft/_count";
}

/* The next query line on stdin (getline's buffer in *line, *cap): its
 * request, the path returned and the body in *body, with *size as
 * ft_parse_line gives it. A line that does not parse is answered ERROR
 * here and skipped. NULL at the end of input. */
static inline const char *ft_next_query(char **line, size_t *cap, tv_buf *body, int *size) {
    ssize_t len;
    while ((len = getline(line, cap, stdin)) > 0) {
        char *l = *line;
        while (len && (l[len - 1] == '\n' || l[len - 1] == '\r')) len--;
        l[len] = 0;
        char why[128];
        const char *q, *bad = ft_parse_line(l, size, &q, why, sizeof why);
        if (!bad) return ft_query_request(body, *size, q);
        printf("ERROR\t%s\n", bad);
        fflush(stdout);
    }
    return NULL;
}

/* The value of `"key":<digits>` after `from` in a response, or -1. */
static inline long long ft_number_after(const char *body, const char *from, const char *key) {
    const char *p = from ? strstr(body, from) : body;
    if (!p) return -1;
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    p = strstr(p, pat);
    return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/* Hits in a search response: the objects of hits.hits (each has "_index"). */
static inline long long ft_count_hits(const char *body) {
    const char *p = strstr(body, "\"hits\":{");
    p = p ? strstr(p + 8, "\"hits\":[") : NULL;
    if (!p) return -1;
    long long k = 0;
    for (p = strstr(p, "\"_index\":"); p; p = strstr(p + 9, "\"_index\":")) k++;
    return k;
}

/* HITS of a 200 answer (NUL-terminated): the count for COUNT (size 0),
 * the hits returned for TOP_N. */
static inline long long ft_hits(const char *body, int size) {
    return size ? ft_count_hits(body) : ft_number_after(body, NULL, "count");
}

/* Prints the answer line of a non-200 response, and flushes: UNSUPPORTED
 * with the reason of a 400 unsupported_operation_exception, else ERROR
 * with the status and the start of the body. */
static inline void ft_print_refusal(int status, const char *body) {
    if (status == 400 && strstr(body, "\"unsupported_operation_exception\"")) {
        const char *why = strstr(body, "\"reason\":\"");
        printf("UNSUPPORTED\t%.*s\n", why ? (int)strcspn(why + 10, "\"") : 7, why ? why + 10 : "unknown");
    } else {
        printf("ERROR\t%d %.300s\n", status, body);
    }
    fflush(stdout);
}

#endif /* TROVE_BENCH_FULLTEXT_TROVE_H */
