/*
 * fuzz_api_datadir.c — arbitrary bytes as the files of a committed index on
 * a data directory: the input is u16 n0, u16 n1 (little-endian), then n0
 * bytes of commit.json, n1 bytes of its segment's live-docs file, and the
 * rest as the translog after the commit. They are
 * written over a real committed index (built once: three documents, one of
 * them deleted after a first commit, then a second commit, so a manifest, a
 * segment file, a live-docs file and a translog generation exist), then
 * `trove check` reads the directory and a node opens it and searches it.
 * Whatever the bytes, nothing may crash, hang, leak or trip a sanitizer;
 * damage must show as a corrupt (red) index or a check that is not clean.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "store/store.h"
#include "trove.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64], idxdir[300];
static bool ready;

static void req(trove_node *n, const char *m, const char *p, const char *body) {
    trove_response r;
    if (trove_request(n, m, p, body, body ? strlen(body) : 0, &r) == 0) trove_response_fini(&r);
}

static void cleanup(void) {
    tv_error e = TV_ERROR_INIT;
    (void)tv_store_remove_tree(root, &e);
}

/* The fixture: a data directory with one committed index "f". */
static bool setup(void) {
    snprintf(root, sizeof root, "/tmp/trove-fuzz-datadir-XXXXXX");
    if (!mkdtemp(root)) return false;
    atexit(cleanup);
    trove_options o = {.data_dir = root};
    trove_node *n = trove_node_open(&o, NULL);
    if (!n) return false;
    req(n, "PUT", "/f", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\"},\"n\":{\"type\":\"long\"}}}}");
    req(n, "PUT", "/f/_doc/1", "{\"t\":\"one fish\",\"n\":1}");
    req(n, "PUT", "/f/_doc/2", "{\"t\":\"two fish\",\"n\":2}");
    req(n, "PUT", "/f/_doc/3?routing=r", "{\"t\":\"red fish\",\"n\":3}");
    req(n, "POST", "/f/_flush", NULL);
    req(n, "DELETE", "/f/_doc/2", NULL);
    req(n, "POST", "/f/_flush", NULL);
    req(n, "PUT", "/f/_doc/4", "{\"t\":\"blue fish\",\"n\":4}");
    trove_node_free(n);
    char sub[200];
    snprintf(sub, sizeof sub, "%s/indices", root);
    DIR *d = opendir(sub);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') snprintf(idxdir, sizeof idxdir, "%s/%s", sub, e->d_name);
    if (d) closedir(d);
    return idxdir[0] != '\0';
}

static void put_file(const char *name, const uint8_t *p, size_t n) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s", idxdir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return;
    if (n) fwrite(p, 1, n, f);
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!ready && !(ready = setup())) abort();
    /* parts: commit.json, live docs, translog */
    if (size < 4) return 0;
    size_t n0 = (size_t)data[0] | (size_t)data[1] << 8, n1 = (size_t)data[2] | (size_t)data[3] << 8;
    const uint8_t *p = data + 4;
    size_t left = size - 4;
    if (n0 > left) n0 = left;
    if (n1 > left - n0) n1 = left - n0;
    put_file("commit.json", p, n0);
    put_file("seg-1-0-2.liv", p + n0, n1);
    put_file("translog-2.tlog", p + n0 + n1, left - n0 - n1);
    tv_buf report;
    tv_buf_init(&report);
    tv_error err = TV_ERROR_INIT;
    bool clean;
    tv_error_clear(&err);
    (void)tv_durable_check(root, &report, &clean, &err);
    tv_buf_fini(&report);
    trove_options o = {.data_dir = root};
    trove_node *n = trove_node_open(&o, NULL);
    if (n) {
        trove_response r;
        if (trove_request(n, "GET", "/f/_search?q=t:fish", NULL, 0, &r) == 0) trove_response_fini(&r);
        if (trove_request(n, "GET", "/_cat/indices", NULL, 0, &r) == 0) trove_response_fini(&r);
        trove_node_free(n); /* a replay may have cut a torn tail: the next input writes it again */
    }
    return 0;
}
