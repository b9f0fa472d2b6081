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
 * requests over one keep-alive connection instead (tv_sink, the sync
 * layer's client, which `trove sync --to URL` writes through too).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/dumpload.h"
#include "json/json.h"
#include "store/store.h"
#include "sync/sync.h" /* tv_sink: a node in process or a URL */
#include "util/util.h"

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
static bool dump_meta(tv_sink *c, const char *index, FILE *f) {
    char path[600];
    snprintf(path, sizeof path, "/%s/_settings?flat_settings=true", index);
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "settings");
    tv_json *s = tv_sink_call(c, "GET", path, NULL, 0, 200, false);
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
    tv_json *mj = tv_sink_call(c, "GET", path, NULL, 0, 200, false);
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
    tv_sink c;
    trove_node *node = NULL;
    if (url) {
        if (!tv_sink_init_url(&c, url)) return 1;
    } else {
        if (!(node = open_dir(dir))) return 1;
        tv_sink_init_node(&c, node);
    }
    int rc = 1;
    tv_buf line;
    tv_buf_init(&line);
    FILE *meta = open_out(out, index, "index.json"), *docs = open_out(out, index, "ndjson");
    char path[600];
    snprintf(path, sizeof path, "/%s/_count", index);
    tv_json *cnt = meta && docs ? tv_sink_call(&c, "GET", path, NULL, 0, 200, false) : NULL;
    const tv_json *cv = cnt ? tv_json_get(cnt, "count") : NULL;
    uint64_t total = cv && cv->type == TV_JSON_INT ? (uint64_t)cv->v.i : 0, done = 0, nosrc = 0;
    if (!cnt || !dump_meta(&c, index, meta)) goto out;
    snprintf(path, sizeof path, "/%s/_search?scroll=5m", index);
    static const char first[] = "{\"size\":1000,\"sort\":[\"_doc\"],\"query\":{\"match_all\":{}}}";
    tv_json *ans = tv_sink_call(&c, "POST", path, first, sizeof first - 1, 200, false);
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
        ans = req.oom ? NULL : tv_sink_call(&c, "POST", "/_search/scroll", req.data, req.len, 200, false);
        tv_buf_fini(&req);
    }
    if (sid) {
        tv_buf req;
        tv_buf_init(&req);
        tv_buf_printf(&req, "{\"scroll_id\":\"%s\"}", sid);
        (void)tv_sink_call(&c, "DELETE", "/_search/scroll", req.data, req.len, 200, false);
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
    tv_sink_fini(&c);
    trove_node_free(node);
    if (rc == 0) fprintf(stderr, "trove: dumped %llu documents of [%s] to [%s]\n", (unsigned long long)done, index, out);
    return rc;
}

/* Sends bulk (about 1,000 actions) and reports its failures; false on the
 * first failed item or request. */
static bool send_bulk(tv_sink *c, const char *index, tv_buf *bulk) {
    if (!bulk->len) return true;
    char path[600];
    snprintf(path, sizeof path, "/%s/_bulk", index);
    tv_json *ans = tv_sink_call(c, "POST", path, bulk->data, bulk->len, 200, false);
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
    trove_node *node = open_dir(dir);
    if (!node) return 1;
    tv_sink c;
    tv_sink_init_node(&c, node);
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
        tv_json *ok = tv_sink_call(&c, "PUT", path, body, blen, 200, false);
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
        (void)tv_sink_call(&c, "POST", path, NULL, 0, 200, false);
    }
    rc = 0;
out:
    if (f) fclose(f);
    free(line);
    for (size_t i = 0; i < idx.v.len; i++) tv_free(idx.v.items[i]);
    tv_vec_fini(&idx.v);
    tv_buf_fini(&bulk);
    tv_sink_fini(&c);
    trove_node_free(node);
    return rc;
}
