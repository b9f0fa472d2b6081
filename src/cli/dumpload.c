/*
 * dumpload.c — `trove dump INDEX --data DIR|--url URL [--out OUT]` and `trove load
 * OUT --data DIR`: an index out of a data directory as files OpenSearch (and
 * trove's seed loader) takes unchanged, and back into a data directory.
 *
 * The files are a seed directory (see seed.c): OUT/INDEX.index.json, the
 * create-index body ({"settings": the index's settings without the private
 * ones OpenSearch refuses on create (uuid, creation date, provided name,
 * version), "mappings": the mapping}), and OUT/INDEX.ndjson, _bulk lines
 * ({"index":{"_id":...,"routing":...}} then the _source) in _doc order. So
 * `curl -XPUT host/INDEX -d @OUT/INDEX.index.json` and `curl -XPOST
 * host/INDEX/_bulk --data-binary @OUT/INDEX.ndjson` load it into
 * OpenSearch, and `trove serve --seed OUT` into a fresh trove.
 *
 * Both go through trove_request on a node opened on DIR, exactly as a
 * client's requests would: dump pages with a scroll of 1,000 hits, load
 * sends _bulk bodies of about 1,000 actions (4 MiB at most). On a terminal
 * both draw a progress line on stderr. A directory in use by a running
 * server is refused (its lock); `trove dump INDEX --url http://HOST:PORT`
 * asks the running server (trove or OpenSearch, plain HTTP) the same
 * requests over one keep-alive connection instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netdb.h>
#include <sys/socket.h>

#include "cli/dumpload.h"
#include "json/json.h"
#include "store/store.h"
#include "util/util.h"

typedef struct conn {
    trove_node *node;    /* in process, or */
    int fd;              /* a keep-alive HTTP connection (-1: none) */
    const char *host;    /* its Host header */
    tv_arena arena;      /* the last answer's parse */
    trove_response last; /* and its body, which the parse's numbers borrow */
} conn;

/* ---- a minimal HTTP/1.1 client: one keep-alive connection, requests in
 * turn, responses framed by Content-Length or chunked encoding (what
 * OpenSearch and trove send) */

static int http_connect(const char *url, char *host, size_t cap) {
    if (strncmp(url, "http://", 7) != 0) {
        fprintf(stderr, "trove: --url takes http://HOST:PORT (no TLS), not [%s]\n", url);
        return -1;
    }
    snprintf(host, cap, "%s", url + 7);
    char *slash = strchr(host, '/');
    if (slash) *slash = '\0';
    char name[256], port[16] = "9200";
    const char *colon = strrchr(host, ':');
    snprintf(name, sizeof name, "%.*s", (int)(colon ? (size_t)(colon - host) : strlen(host)), host);
    if (colon) snprintf(port, sizeof port, "%s", colon + 1);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(name, port, &hints, &res) != 0 || !res) {
        fprintf(stderr, "trove: cannot resolve [%s]\n", host);
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) fprintf(stderr, "trove: cannot connect to [%s]: %s\n", host, strerror(errno));
    return fd;
}

/* Reads from fd into b until it holds at least `want` bytes; false at EOF. */
static bool fill(int fd, tv_buf *b, size_t want) {
    char chunk[65536];
    while (b->len < want) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        tv_buf_append(b, chunk, (size_t)n);
        if (b->oom) return false;
    }
    return true;
}

static bool http_call(conn *c, const char *method, const char *path, const char *body, size_t len,
                      trove_response *r) {
    memset(r, 0, sizeof *r);
    tv_buf q;
    tv_buf_init(&q);
    tv_buf_printf(&q, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                  method, path, c->host, len);
    tv_buf_append(&q, body, len);
    bool ok = !q.oom;
    for (size_t off = 0; ok && off < q.len;) {
        ssize_t n = write(c->fd, q.data + off, q.len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) ok = false;
        else off += (size_t)n;
    }
    tv_buf_fini(&q);
    tv_buf in, out;
    tv_buf_init(&in);
    tv_buf_init(&out);
    char *hend = NULL;
    while (ok && !(hend = in.len ? memmem(in.data, in.len, "\r\n\r\n", 4) : NULL)) ok = fill(c->fd, &in, in.len + 1);
    if (ok) {
        *hend = '\0';
        size_t head = (size_t)(hend - in.data) + 4;
        r->status = atoi(in.data + 9); /* "HTTP/1.1 200" */
        const char *cl = strcasestr(in.data, "\r\ncontent-length:");
        bool chunked = strcasestr(in.data, "\r\ntransfer-encoding: chunked") != NULL;
        if (cl && !chunked) {
            size_t n = (size_t)strtoull(cl + 17, NULL, 10);
            ok = fill(c->fd, &in, head + n);
            if (ok) tv_buf_append(&out, in.data + head, n);
        } else if (chunked) {
            size_t at = head;
            for (;;) {
                char *crlf;
                while (ok && !(crlf = memmem(in.data + at, in.len - at, "\r\n", 2))) ok = fill(c->fd, &in, in.len + 1);
                if (!ok) break;
                size_t n = (size_t)strtoull(in.data + at, NULL, 16);
                at = (size_t)(crlf - in.data) + 2;
                ok = fill(c->fd, &in, at + n + 2);
                if (!ok || n == 0) break;
                tv_buf_append(&out, in.data + at, n);
                at += n + 2;
            }
        } else {
            ok = false; /* no framing: not a keep-alive answer we can read */
        }
    }
    tv_buf_fini(&in);
    size_t n = 0;
    tv_buf_putc(&out, '\0');
    r->body = ok && !out.oom ? tv_buf_detach(&out, &n) : NULL;
    r->body_len = r->body ? n - 1 : 0;
    tv_buf_fini(&out);
    return r->body != NULL;
}

/* One request; the parsed answer (valid until the next call) or NULL with
 * the reason printed. */
static tv_json *call(conn *c, const char *method, const char *path, const char *body, size_t len,
                     int want_status) {
    trove_response_fini(&c->last);
    tv_arena_reset(&c->arena);
    trove_response *r = &c->last;
    if (c->node ? trove_request(c->node, method, path, body, len, r) != 0 : !http_call(c, method, path, body, len, r)) {
        fprintf(stderr, "trove: %s %s: %s\n", method, path, c->node ? "out of memory" : "no answer");
        return NULL;
    }
    tv_json *j = NULL;
    tv_json_error je;
    if (r->status != want_status || tv_json_parse(&c->arena, r->body, r->body_len, &j, &je) != TROVE_OK) {
        fprintf(stderr, "trove: %s %s: %d %.*s\n", method, path, r->status,
                (int)TV_MIN(r->body_len, (size_t)2000), r->body ? r->body : "");
        j = NULL;
    }
    return j;
}

static void progress(const char *what, uint64_t done, uint64_t total, bool final) {
    if (!isatty(2)) return;
    if (total) fprintf(stderr, "\r%s %llu of %llu (%3.0f%%)", what, (unsigned long long)done,
                       (unsigned long long)total, 100.0 * (double)done / (double)total);
    else fprintf(stderr, "\r%s %llu", what, (unsigned long long)done);
    if (final) fputc('\n', stderr);
}

static trove_node *open_dir(const char *dir) {
    trove_options o = {.data_dir = dir};
    trove_error err;
    trove_node *n = trove_node_open(&o, &err);
    if (!n) fprintf(stderr, "trove: cannot open [%s]: %s\n", dir, err.message);
    return n;
}

static bool is_private_setting(const char *k) {
    static const char *const priv[] = {"index.uuid", "index.creation_date", "index.provided_name",
                                       "index.version.created", "index.version.upgraded", NULL};
    for (int i = 0; priv[i]; i++)
        if (!strcmp(k, priv[i])) return true;
    return false;
}

/* OUT/INDEX.index.json from the index's flat settings and mapping. */
static bool dump_meta(conn *c, const char *index, FILE *f) {
    char path[600];
    snprintf(path, sizeof path, "/%s/_settings?flat_settings=true", index);
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "settings");
    tv_json *s = call(c, "GET", path, NULL, 0, 200);
    const tv_json *flat = s ? tv_json_get(tv_json_get(s, index), "settings") : NULL;
    if (!flat || flat->type != TV_JSON_OBJECT) goto fail;
    tv_jw_obj_begin(&w);
    for (uint32_t i = 0; i < flat->len; i++) {
        const tv_json_member *m = &flat->v.members[i];
        if (is_private_setting(m->key)) continue;
        tv_jw_key(&w, m->key, m->key_len);
        tv_jw_value(&w, &m->val);
    }
    tv_jw_obj_end(&w);
    snprintf(path, sizeof path, "/%s/_mapping", index);
    tv_json *mj = call(c, "GET", path, NULL, 0, 200);
    const tv_json *map = mj ? tv_json_get(tv_json_get(mj, index), "mappings") : NULL;
    if (!map) goto fail;
    tv_jw_keyz(&w, "mappings");
    tv_jw_value(&w, map);
    tv_jw_obj_end(&w);
    tv_buf_putc(&b, '\n');
    bool ok = !b.oom && fwrite(b.data, 1, b.len, f) == b.len;
    tv_buf_fini(&b);
    return ok;
fail:
    tv_buf_fini(&b);
    return false;
}

/* Writes one page of hits as _bulk lines; returns how many (-1 on error).
 * *nosrc counts hits without a _source (the mapping disables it). */
static long dump_hits(const tv_json *ans, FILE *f, tv_buf *b, uint64_t *nosrc) {
    const tv_json *hits = tv_json_get(tv_json_get(ans, "hits"), "hits");
    if (!hits || hits->type != TV_JSON_ARRAY) return -1;
    for (uint32_t i = 0; i < hits->len; i++) {
        const tv_json *h = &hits->v.items[i];
        const tv_json *id = tv_json_get(h, "_id"), *rt = tv_json_get(h, "_routing"), *src = tv_json_get(h, "_source");
        if (!id || id->type != TV_JSON_STRING) return -1;
        tv_buf_clear(b);
        tv_jw w;
        tv_jw_init(&w, b, false);
        tv_jw_obj_begin(&w);
        tv_jw_keyz(&w, "index");
        tv_jw_obj_begin(&w);
        tv_jw_keyz(&w, "_id");
        tv_jw_str(&w, id->v.s, id->len);
        if (rt && rt->type == TV_JSON_STRING) {
            tv_jw_keyz(&w, "routing");
            tv_jw_str(&w, rt->v.s, rt->len);
        }
        tv_jw_obj_end(&w);
        tv_jw_obj_end(&w);
        tv_buf_putc(b, '\n');
        tv_jw_init(&w, b, false);
        if (src) {
            tv_jw_value(&w, src);
        } else { /* _source disabled: the document's fields are gone */
            tv_buf_puts(b, "{}");
            ++*nosrc;
        }
        tv_buf_putc(b, '\n');
        if (b->oom || fwrite(b->data, 1, b->len, f) != b->len) return -1;
    }
    return (long)hits->len;
}

static FILE *open_out(const char *out, const char *index, const char *ext) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s", out, index, ext);
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "trove: cannot write [%s]: %s\n", path, strerror(errno));
    return f;
}

int tv_cli_dump(const char *index, const char *dir, const char *url, const char *out) {
    if (mkdir(out, 0755) && errno != EEXIST) {
        fprintf(stderr, "trove: cannot create [%s]: %s\n", out, strerror(errno));
        return 1;
    }
    char host[300];
    conn c = {.fd = -1, .host = host};
    if (url) c.fd = http_connect(url, host, sizeof host);
    else c.node = open_dir(dir);
    if (!c.node && c.fd < 0) return 1;
    tv_arena_init(&c.arena);
    int rc = 1;
    tv_buf line;
    tv_buf_init(&line);
    FILE *meta = open_out(out, index, "index.json"), *docs = open_out(out, index, "ndjson");
    char path[600];
    snprintf(path, sizeof path, "/%s/_count", index);
    tv_json *cnt = meta && docs ? call(&c, "GET", path, NULL, 0, 200) : NULL;
    const tv_json *cv = cnt ? tv_json_get(cnt, "count") : NULL;
    uint64_t total = cv && cv->type == TV_JSON_INT ? (uint64_t)cv->v.i : 0, done = 0, nosrc = 0;
    if (!cnt || !dump_meta(&c, index, meta)) goto out;
    snprintf(path, sizeof path, "/%s/_search?scroll=5m", index);
    static const char first[] = "{\"size\":1000,\"sort\":[\"_doc\"],\"query\":{\"match_all\":{}}}";
    tv_json *ans = call(&c, "POST", path, first, sizeof first - 1, 200);
    char *sid = NULL;
    for (;;) {
        if (!ans) goto out;
        const tv_json *s = tv_json_get(ans, "_scroll_id");
        tv_free(sid);
        sid = s && s->type == TV_JSON_STRING ? tv_strndup(s->v.s, s->len) : NULL;
        long n = dump_hits(ans, docs, &line, &nosrc);
        if (n < 0 || !sid) {
            tv_free(sid);
            goto out;
        }
        done += (uint64_t)n;
        progress("dumped", done, total, false);
        if (n == 0) break;
        tv_buf req;
        tv_buf_init(&req);
        tv_buf_printf(&req, "{\"scroll\":\"5m\",\"scroll_id\":\"%s\"}", sid);
        ans = req.oom ? NULL : call(&c, "POST", "/_search/scroll", req.data, req.len, 200);
        tv_buf_fini(&req);
    }
    if (sid) {
        tv_buf req;
        tv_buf_init(&req);
        tv_buf_printf(&req, "{\"scroll_id\":\"%s\"}", sid);
        (void)call(&c, "DELETE", "/_search/scroll", req.data, req.len, 200);
        tv_buf_fini(&req);
        tv_free(sid);
    }
    progress("dumped", done, total, true);
    if (nosrc)
        fprintf(stderr, "trove: warning: %llu documents of [%s] have no _source (disabled in the mapping): "
                        "they are dumped as {}\n", (unsigned long long)nosrc, index);
    rc = 0;
out:
    if (meta && fclose(meta)) rc = 1;
    if (docs && fclose(docs)) rc = 1;
    tv_buf_fini(&line);
    trove_response_fini(&c.last);
    tv_arena_fini(&c.arena);
    trove_node_free(c.node);
    if (c.fd >= 0) close(c.fd);
    if (rc == 0) fprintf(stderr, "trove: dumped %llu documents of [%s] to [%s]\n", (unsigned long long)done, index, out);
    return rc;
}

/* Sends bulk (about 1,000 actions) and reports its failures; false on the
 * first failed item or request. */
static bool send_bulk(conn *c, const char *index, tv_buf *bulk) {
    if (!bulk->len) return true;
    char path[600];
    snprintf(path, sizeof path, "/%s/_bulk", index);
    tv_json *ans = call(c, "POST", path, bulk->data, bulk->len, 200);
    tv_buf_clear(bulk);
    if (!ans) return false;
    const tv_json *e = tv_json_get(ans, "errors");
    if (e && e->type == TV_JSON_TRUE) {
        const tv_json *items = tv_json_get(ans, "items");
        for (uint32_t i = 0; items && i < items->len; i++) {
            const tv_json *r = items->v.items[i].len ? &items->v.items[i].v.members[0].val : NULL;
            const tv_json *err = r ? tv_json_get(r, "error") : NULL;
            const tv_json *why = err ? tv_json_get(err, "reason") : NULL;
            if (err) {
                fprintf(stderr, "\ntrove: load: item failed: %.*s\n", why ? (int)why->len : 0, why ? why->v.s : "");
                return false;
            }
        }
    }
    return true;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct names {
    TV_VEC(char *) v;
    bool oom;
} names;

/* tv_store_list's callback: keeps INDEX of each INDEX.index.json. */
static void collect_index(void *ctx, const char *name) {
    static const char suffix[] = ".index.json";
    names *ns = ctx;
    size_t len = strlen(name), k = sizeof suffix - 1;
    if (name[0] == '.' || len <= k || strcmp(name + len - k, suffix)) return;
    char *c = tv_strndup(name, len - k);
    if (!c || tv_vec_push(&ns->v, c)) {
        tv_free(c);
        ns->oom = true;
    }
}

int tv_cli_load(const char *in, const char *dir) {
    conn c = {.node = open_dir(dir), .fd = -1};
    if (!c.node) return 1;
    tv_arena_init(&c.arena);
    int rc = 1;
    char *line = NULL;
    size_t cap = 0;
    tv_buf bulk;
    tv_buf_init(&bulk);
    FILE *f = NULL;
    /* every INDEX.index.json of the directory (in name order), with its INDEX.ndjson */
    names idx = {0};
    tv_error err;
    tv_error_clear(&err);
    if (tv_store_list(in, collect_index, &idx, &err) != TROVE_OK || idx.oom || !idx.v.len) {
        fprintf(stderr, "trove: [%s] holds no INDEX.index.json\n", in);
        goto out;
    }
    qsort(idx.v.items, idx.v.len, sizeof *idx.v.items, cmp_name);
    for (size_t i = 0; i < idx.v.len; i++) {
        const char *index = idx.v.items[i];
        char p[4096];
        snprintf(p, sizeof p, "%s/%s.index.json", in, index);
        char *body = NULL;
        size_t blen = 0;
        tv_status rs = tv_store_read_file(p, &body, &blen, &err);
        if (rs != TROVE_OK) {
            fprintf(stderr, "trove: cannot read [%s]: %s\n", p, rs == TROVE_ENOTFOUND ? "no such file" : err.reason);
            goto out;
        }
        char path[600];
        snprintf(path, sizeof path, "/%s", index);
        tv_json *ok = call(&c, "PUT", path, body, blen, 200);
        tv_free(body);
        if (!ok) goto out;
        snprintf(p, sizeof p, "%s/%s.ndjson", in, index);
        f = fopen(p, "r");
        if (!f) continue; /* an index without documents */
        struct stat sb;
        uint64_t total = fstat(fileno(f), &sb) == 0 ? (uint64_t)sb.st_size : 0, done = 0;
        ssize_t n;
        size_t actions = 0;
        while ((n = getline(&line, &cap, f)) > 0) {
            done += (uint64_t)n;
            tv_buf_append(&bulk, line, (size_t)n);
            if (line[n - 1] != '\n') tv_buf_putc(&bulk, '\n');
            /* dump writes index actions, each two lines: flush after a
             * source line, every 1,000 actions or 4 MiB */
            if (++actions % 2 == 0 && (actions % 2000 == 0 || bulk.len > ((size_t)4 << 20))) {
                if (bulk.oom || !send_bulk(&c, index, &bulk)) goto out;
                progress(index, done, total, false);
            }
        }
        if (bulk.oom || !send_bulk(&c, index, &bulk)) goto out;
        progress(index, done, total, true);
        fclose(f);
        f = NULL;
        snprintf(path, sizeof path, "/%s/_refresh", index);
        (void)call(&c, "POST", path, NULL, 0, 200);
    }
    rc = 0;
out:
    if (f) fclose(f);
    free(line);
    for (size_t i = 0; i < idx.v.len; i++) tv_free(idx.v.items[i]);
    tv_vec_fini(&idx.v);
    tv_buf_fini(&bulk);
    trove_response_fini(&c.last);
    tv_arena_fini(&c.arena);
    trove_node_free(c.node);
    return rc;
}
