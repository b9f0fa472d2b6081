/*
 * test_api_durable.c — a node on a data directory, through trove_request:
 * what was acknowledged is there after the node is closed and opened again
 * (documents, versions, seq_nos, mappings, settings, deletes, dropped
 * indices); the directory's lock; writes refused when the disk refuses
 * them; a torn translog tail cut off and a corrupt translog refused.
 * (The crash loop in tests/crash kills a server instead of closing it.)
 */
#include "api_test.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"

static char dir[256];

/* The body of (m, path) equals want (a body taken before a reopen). */
#define EXPECT_FMT_SAME(want, m, path)                                                   \
    do {                                                                                 \
        char *got_;                                                                      \
        int s_ = req((m), (path), NULL, &got_);                                          \
        if (s_ != 200 || strcmp(got_, (want)) != 0)                                      \
            fail_msg("%s %s after reopen\n want %s\n got  %d %s", (m), (path), (want), s_, got_); \
        free(got_);                                                                      \
    } while (0)

/* n documents /index/_doc/0..n-1, each with body. */
static void put_docs(const char *index, int n, const char *body) {
    for (int i = 0; i < n; i++) {
        char p[64];
        snprintf(p, sizeof p, "/%s/_doc/%d", index, i);
        OK("PUT", p, body);
    }
}

static void reopen(void) {
    trove_node_free(N);
    trove_options o = {.data_dir = dir};
    trove_error e;
    N = trove_node_open(&o, &e);
    if (!N) fail_msg("reopen: %s", e.message);
}

static int setup_dir(void **s) {
    (void)s;
    snprintf(dir, sizeof dir, "/tmp/trove-durable-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    N = NULL;
    reopen();
    return 0;
}

static int teardown_dir(void **s) {
    (void)s;
    trove_node_free(N);
    N = NULL;
    tv_error e = TV_ERROR_INIT;
    tv_store_fault_arm(TV_STORE_OP_WRITE, 0, 0, false);
    tv_store_fault_arm(TV_STORE_OP_SYNC, 0, 0, false);
    tv_error_clear(&e);
    return tv_store_remove_tree(dir, &e) == TROVE_OK ? 0 : -1;
}

/* index_prefixes / index_phrases keep their hidden sub-fields across a
 * commit and translog replay. (The mapping is created in one request:
 * after an update that adds a field sorting before existing ones, a reopen
 * from a commit renumbers field ids for every field, which is an engine
 * issue of its own.) */
static void test_reopen_hidden_subfields(void **s) {
    (void)s;
    OK("PUT", "/hs", "{\"mappings\":{\"properties\":{\"z\":{\"type\":\"text\"},"
                     "\"a\":{\"type\":\"text\",\"index_prefixes\":{},\"index_phrases\":true}}}}");
    OK("PUT", "/hs/_doc/1", "{\"a\":\"quick brown fox\",\"z\":\"one\"}");
    OK("POST", "/hs/_flush", NULL);
    OK("PUT", "/hs/_doc/2?refresh=true", "{\"a\":\"quick brown dog\",\"z\":\"two\"}");
    const char *q1 = "{\"query\":{\"prefix\":{\"a\":\"bro\"}},\"_source\":false}";
    const char *q2 = "{\"query\":{\"match_phrase\":{\"a\":\"quick brown\"}},\"_source\":false}";
    char *before1, *before2;
    assert_int_equal(req("POST", "/hs/_search", q1, &before1), 200);
    assert_int_equal(req("POST", "/hs/_search", q2, &before2), 200);
    assert_non_null(strstr(before1, "\"total\":{\"value\":2"));
    assert_non_null(strstr(before2, "\"total\":{\"value\":2"));
    reopen();
    char *after1, *after2;
    OK("POST", "/hs/_refresh", NULL);
    assert_int_equal(req("POST", "/hs/_search", q1, &after1), 200);
    assert_int_equal(req("POST", "/hs/_search", q2, &after2), 200);
    assert_string_equal(strstr(before1, "\"hits\""), strstr(after1, "\"hits\""));
    assert_string_equal(strstr(before2, "\"hits\""), strstr(after2, "\"hits\""));
    free(before1);
    free(before2);
    free(after1);
    free(after2);
}

/* A mapping that grew numbers its new fields after the old ones (a field
 * sorting first included), and the committed segments store fields by
 * those ids: a reopen must give them back, across several commits. */
static void test_reopen_grown_mapping(void **s) {
    (void)s;
    OK("PUT", "/g", "{\"mappings\":{\"properties\":{\"z\":{\"type\":\"text\"}}}}");
    OK("PUT", "/g/_doc/1", "{\"z\":\"one\"}");
    OK("PUT", "/g/_mapping", "{\"properties\":{\"a\":{\"type\":\"text\"}}}");
    OK("PUT", "/g/_doc/2", "{\"z\":\"two\",\"a\":\"x\",\"b\":{\"c\":1}}"); /* dynamic b, b.c */
    OK("POST", "/g/_flush", NULL);
    OK("PUT", "/g/_doc/3", "{\"aa\":\"y\",\"z\":\"three\"}"); /* after the commit: the translog */
    static const char *const q[] = {"/g/_count?q=z:one", "/g/_count?q=a:x", "/g/_count?q=b.c:1",
                                    "/g/_count?q=aa:y", "/g/_count?q=z:three"};
    for (int round = 0; round < 3; round++) {
        reopen();
        for (size_t i = 0; i < sizeof q / sizeof *q; i++) EXPECT_HAS("GET", q[i], NULL, 200, "{\"count\":1,");
        if (round == 0) OK("POST", "/g/_flush", NULL); /* commits the field_ids of the grown mapping */
        if (round == 1) {
            OK("PUT", "/g/_mapping", "{\"properties\":{\"0first\":{\"type\":\"keyword\"}}}");
            OK("PUT", "/g/_doc/4?refresh=true", "{\"0first\":\"k\",\"z\":\"four\"}");
            OK("POST", "/g/_flush", NULL);
        }
    }
    EXPECT_HAS("GET", "/g/_count?q=0first:k", NULL, 200, "{\"count\":1,");
}

static void test_reopen_keeps_everything(void **s) {
    (void)s;
    OK("PUT", "/books", "{\"settings\":{\"number_of_replicas\":0},\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\"}}}}");
    OK("PUT", "/books/_doc/1", "{\"t\":\"the old man\"}");
    OK("PUT", "/books/_doc/1", "{\"t\":\"the old man and the sea\"}"); /* version 2 */
    OK("PUT", "/books/_doc/2?refresh=true", "{\"t\":\"moby dick\",\"n\":3}"); /* dynamic field n */
    OK("DELETE", "/books/_doc/2", NULL);
    OK("POST", "/books/_update/1", "{\"doc\":{\"k\":\"x\"}}");
    OK("PUT", "/books/_mapping", "{\"properties\":{\"tag\":{\"type\":\"keyword\"}}}");
    OK("PUT", "/books/_settings", "{\"index\":{\"refresh_interval\":\"7s\"}}");
    OK("POST", "/_bulk", "{\"index\":{\"_index\":\"auto\",\"_id\":\"a\"}}\n{\"z\":1}\n"
                         "{\"create\":{\"_index\":\"auto\",\"_id\":\"b\",\"routing\":\"r1\"}}\n{\"z\":2}\n");
    OK("PUT", "/gone", NULL);
    OK("PUT", "/gone/_doc/1", "{\"x\":1}");
    OK("DELETE", "/gone", NULL);
    /* a clone's writes stay in memory */
    trove_node *orig = N, *cl = trove_node_clone(N, NULL);
    assert_non_null(cl);
    N = cl;
    OK("PUT", "/books/_doc/9", "{\"t\":\"clone only\"}");
    OK("PUT", "/cloneidx", NULL);
    N = orig;
    trove_node_free(cl);
    char *mapping;
    assert_int_equal(req("GET", "/books/_mapping", NULL, &mapping), 200);

    reopen();
    EXPECT("GET", "/books/_doc/1", NULL, 200,
           "{\"_index\":\"books\",\"_id\":\"1\",\"_version\":3,\"_seq_no\":4,\"_primary_term\":1,\"found\":true,"
           "\"_source\":{\"t\":\"the old man and the sea\",\"k\":\"x\"}}");
    EXPECT("GET", "/books/_doc/2", NULL, 404, "{\"_index\":\"books\",\"_id\":\"2\",\"found\":false}");
    EXPECT("GET", "/books/_doc/9", NULL, 404, "{\"_index\":\"books\",\"_id\":\"9\",\"found\":false}");
    EXPECT_STATUS("GET", "/gone", NULL, 404);
    EXPECT_STATUS("GET", "/cloneidx", NULL, 404);
    EXPECT("GET", "/auto/_doc/b?routing=r1", NULL, 200,
           "{\"_index\":\"auto\",\"_id\":\"b\",\"_version\":1,\"_seq_no\":1,\"_primary_term\":1,\"_routing\":\"r1\","
           "\"found\":true,\"_source\":{\"z\":2}}");
    char *m2;
    assert_int_equal(req("GET", "/books/_mapping", NULL, &m2), 200);
    assert_string_equal(m2, mapping);
    EXPECT_HAS("GET", "/books/_settings", NULL, 200, "\"refresh_interval\":\"7s\"");
    /* recovered documents are searchable at once */
    EXPECT_HAS("GET", "/books/_search?q=t:sea", NULL, 200, "\"total\":{\"value\":1,\"relation\":\"eq\"}");
    /* the next write continues the sequence */
    EXPECT_HAS("PUT", "/books/_doc/3", "{\"t\":\"new\"}", 201, "\"_seq_no\":5");
    reopen();
    EXPECT_HAS("GET", "/books/_doc/3", NULL, 200, "\"_seq_no\":5");
    free(mapping);
    free(m2);
}

static void test_node_metadata_survives(void **s) {
    (void)s;
    OK("PUT", "/logs-1", NULL);
    OK("PUT", "/logs-2", NULL);
    OK("POST", "/_aliases", "{\"actions\":[{\"add\":{\"index\":\"logs-1\",\"alias\":\"logs\","
                           "\"filter\":{\"term\":{\"level\":\"error\"}},\"routing\":\"r\",\"is_write_index\":true}},"
                           "{\"add\":{\"index\":\"logs-2\",\"alias\":\"all\"}}]}");
    OK("PUT", "/_index_template/t1", "{\"index_patterns\":[\"tpl-*\"],\"priority\":5,"
                                     "\"template\":{\"settings\":{\"number_of_replicas\":0},"
                                     "\"mappings\":{\"properties\":{\"w\":{\"type\":\"keyword\"}}}}}");
    OK("PUT", "/_template/legacy", "{\"index_patterns\":[\"old-*\"],\"order\":1}");
    OK("POST", "/logs-2/_close", NULL);
    OK("PUT", "/_cluster/settings", "{\"persistent\":{\"search.max_buckets\":1000},"
                                    "\"transient\":{\"indices.recovery.max_bytes_per_sec\":\"50mb\"}}");
    char *aliases, *tpl, *legacy, *cluster, *root;
    assert_int_equal(req("GET", "/_alias", NULL, &aliases), 200);
    assert_int_equal(req("GET", "/_index_template/t1", NULL, &tpl), 200);
    assert_int_equal(req("GET", "/_template/legacy", NULL, &legacy), 200);
    assert_int_equal(req("GET", "/", NULL, &root), 200);
    reopen();
    EXPECT_FMT_SAME(aliases, "GET", "/_alias");
    EXPECT_FMT_SAME(tpl, "GET", "/_index_template/t1");
    EXPECT_FMT_SAME(legacy, "GET", "/_template/legacy");
    char *root2;
    assert_int_equal(req("GET", "/", NULL, &root2), 200);
    assert_non_null(strstr(root2, "\"cluster_uuid\""));
    char *u1 = strstr(root, "\"cluster_uuid\""), *u2 = strstr(root2, "\"cluster_uuid\"");
    assert_memory_equal(u1, u2, 40); /* the same cluster */
    EXPECT_HAS("GET", "/logs-2/_search", NULL, 400, "index_closed_exception");
    assert_int_equal(req("GET", "/_cluster/settings", NULL, &cluster), 200);
    assert_string_equal(cluster, "{\"persistent\":{\"search\":{\"max_buckets\":\"1000\"}},\"transient\":{}}");
    /* the template still applies */
    OK("PUT", "/tpl-a", NULL);
    EXPECT_HAS("GET", "/tpl-a/_mapping", NULL, 200, "\"w\":{\"type\":\"keyword\"}");
    /* an alias of a deleted index goes with it, on disk too */
    OK("DELETE", "/logs-1", NULL);
    reopen();
    EXPECT("GET", "/_alias/logs", NULL, 404, "{\"error\":\"alias [logs] missing\",\"status\":404}");
    free(aliases);
    free(tpl);
    free(legacy);
    free(cluster);
    free(root);
    free(root2);
}

/* Ingest pipelines are node metadata: they survive a restart, and a
 * deleted one stays deleted. */
static void test_pipelines_survive(void **s) {
    (void)s;
    OK("PUT", "/_ingest/pipeline/keep", "{\"processors\":[{\"set\":{\"field\":\"k\",\"value\":1}}]}");
    OK("PUT", "/_ingest/pipeline/gone", "{\"processors\":[]}");
    OK("DELETE", "/_ingest/pipeline/gone", NULL);
    reopen();
    EXPECT("GET", "/_ingest/pipeline", NULL, 200, "{\"keep\":{\"processors\":[{\"set\":{\"field\":\"k\",\"value\":1}}]}}");
    OK("PUT", "/p/_doc/1?pipeline=keep", "{}");
    EXPECT("GET", "/p/_source/1", NULL, 200, "{\"k\":1}");
    OK("DELETE", "/_ingest/pipeline/keep", NULL);
    reopen();
    EXPECT("GET", "/_ingest/pipeline", NULL, 200, "{}");
}

/* The files of the one index directory, sorted, space-separated. */
static void index_files(char *out, size_t cap) {
    char sub[512];
    snprintf(sub, sizeof sub, "%s/indices", dir);
    DIR *d = opendir(sub);
    struct dirent *e;
    char idx[300] = "";
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') snprintf(idx, sizeof idx, "%s/%s", sub, e->d_name);
    closedir(d);
    char names[32][64];
    int n = 0;
    d = opendir(idx);
    while ((e = readdir(d)) && n < 32)
        if (e->d_name[0] != '.') snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    out[0] = '\0';
    for (int i = 0; i < n; i++) snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? " " : "", names[i]);
}

/* _flush commits: segment files and a manifest, a new translog generation;
 * a reopen loads the commit and replays only what came after; a failed
 * commit loses nothing; files no commit needs are removed. */
static void test_flush_commits(void **s) {
    (void)s;
    OK("PUT", "/c", "{\"mappings\":{\"properties\":{\"t\":{\"type\":\"text\"}}}}");
    put_docs("c", 300, "{\"t\":\"before the commit\"}");
    OK("POST", "/c/_flush", NULL);
    char files[2048];
    index_files(files, sizeof files);
    assert_string_equal(files, "commit.json index.json seg-1-0.tvs translog-1.tlog");
    OK("DELETE", "/c/_doc/7", NULL);                 /* a committed doc: its live bit */
    OK("PUT", "/c/_doc/8", "{\"t\":\"overwritten\"}");
    OK("PUT", "/c/_mapping", "{\"properties\":{\"k\":{\"type\":\"keyword\"}}}");
    OK("PUT", "/c/_doc/new", "{\"t\":\"after the commit\",\"k\":\"x\"}");
    reopen();
    EXPECT_HAS("GET", "/c/_count", NULL, 200, "\"count\":300");
    EXPECT_STATUS("GET", "/c/_doc/7", NULL, 404);
    EXPECT_HAS("GET", "/c/_doc/8", NULL, 200, "\"_version\":2");
    EXPECT_HAS("GET", "/c/_mapping", NULL, 200, "\"k\":{\"type\":\"keyword\"}");
    EXPECT_HAS("GET", "/c/_count?q=t:commit", NULL, 200, "\"count\":299"); /* 298 before + "new" */
    /* a second commit keeps the first segment's file, adds the new ones and
     * a live-docs file, and drops the old translog */
    OK("POST", "/c/_flush", NULL);
    index_files(files, sizeof files);
    assert_non_null(strstr(files, "seg-1-0.tvs"));
    assert_non_null(strstr(files, "seg-1-0-2.liv"));
    assert_non_null(strstr(files, "translog-2.tlog"));
    assert_null(strstr(files, "translog-1.tlog"));
    /* a commit whose manifest cannot be written: an error, and nothing lost */
    OK("PUT", "/c/_doc/x1", "{\"t\":\"x1\"}");
    tv_store_fault_arm(TV_STORE_OP_RENAME, 2, EIO, false); /* a rename in the middle of the commit fails */
    EXPECT_HAS("POST", "/c/_flush", NULL, 500, "failed to rename");
    OK("PUT", "/c/_doc/x2", "{\"t\":\"x2\"}");
    reopen();
    EXPECT_HAS("GET", "/c/_count", NULL, 200, "\"count\":302");
    EXPECT_HAS("GET", "/c/_doc/x2", NULL, 200, "\"found\":true");
    OK("POST", "/c/_flush", NULL); /* and the next commit tidies up */
    reopen();
    EXPECT_HAS("GET", "/c/_count", NULL, 200, "\"count\":302");
    index_files(files, sizeof files);
    assert_null(strstr(files, "translog-2.tlog"));
    assert_null(strstr(files, "translog-3.tlog"));
}

/* A translog past index.translog.flush_threshold_size is committed by the
 * syncer, without a _flush. */
static void test_commit_by_translog_size(void **s) {
    (void)s;
    OK("PUT", "/z", "{\"settings\":{\"index.translog.flush_threshold_size\":\"2kb\"}}");
    put_docs("z", 40, "{\"t\":\"enough text to pass two kilobytes of translog soon\"}");
    char files[2048] = "";
    /* the manifest, then the old translog's removal (polled: the syncer
     * thread does both, in that order) */
    for (int tries = 0; tries < 50 && (!strstr(files, "commit.json") || strstr(files, "translog.tlog")); tries++) {
        usleep(100 * 1000);
        index_files(files, sizeof files);
    }
    assert_non_null(strstr(files, "commit.json"));
    assert_null(strstr(files, "translog.tlog"));
    /* that commit is a periodic flush in the statistics (counted by the
     * syncer thread once the commit is done: polled as well) */
    for (int tries = 0; tries < 50; tries++) {
        char *body = NULL;
        req("GET", "/z/_stats/flush", NULL, &body);
        bool counted = body && strstr(body, "\"periodic\":1,");
        free(body);
        if (counted) break;
        usleep(100 * 1000);
    }
    EXPECT_HAS("GET", "/z/_stats/flush", NULL, 200, "\"flush\":{\"total\":1,\"periodic\":1,");
    reopen();
    EXPECT_HAS("GET", "/z/_count", NULL, 200, "\"count\":40");
}

/* The translog statistics of a data directory are its file's: the bytes
 * (a 16-byte header, then each record framed) and the writes since the
 * last commit, replayed ones included after a reopen; a flush starts a
 * new, empty generation. */
static void test_translog_stats(void **s) {
    (void)s;
    OK("PUT", "/t", NULL);
    EXPECT_HAS("GET", "/t/_stats/translog", NULL, 200,
               "\"translog\":{\"operations\":0,\"size_in_bytes\":16,\"uncommitted_operations\":0,"
               "\"uncommitted_size_in_bytes\":16,");
    OK("PUT", "/t/_doc/1", "{\"a\":1}");
    OK("PUT", "/t/_doc/2", "{\"a\":2}");
    /* as in memory (test_api_stats.c): 27 bytes a record, framed */
    EXPECT_HAS("GET", "/t/_stats/translog", NULL, 200,
               "\"translog\":{\"operations\":2,\"size_in_bytes\":70,\"uncommitted_operations\":2,");
    reopen();
    EXPECT_HAS("GET", "/t/_stats/translog", NULL, 200, "\"translog\":{\"operations\":2,\"size_in_bytes\":70,");
    EXPECT_HAS("GET", "/t/_stats/indexing", NULL, 200, "\"index_total\":0,"); /* replay is not indexing */
    OK("POST", "/t/_flush", NULL);
    EXPECT_HAS("GET", "/t/_stats/translog,flush", NULL, 200,
               "\"flush\":{\"total\":1,\"periodic\":0,\"total_time_in_millis\":");
    EXPECT_HAS("GET", "/t/_stats/translog", NULL, 200, "\"translog\":{\"operations\":0,\"size_in_bytes\":16,");
}

static void test_uuid_survives(void **s) {
    (void)s;
    OK("PUT", "/u", NULL);
    trove_response r1, r2;
    assert_int_equal(trove_request(N, "GET", "/_cat/indices/u?h=uuid", NULL, 0, &r1), 0);
    reopen();
    assert_int_equal(trove_request(N, "GET", "/_cat/indices/u?h=uuid", NULL, 0, &r2), 0);
    assert_true(r1.body_len > 10);
    assert_string_equal(r1.body, r2.body);
    trove_response_fini(&r1);
    trove_response_fini(&r2);
}

static void test_lock(void **s) {
    (void)s;
    trove_options o = {.data_dir = dir};
    trove_error e;
    assert_null(trove_node_open(&o, &e));
    assert_int_equal(e.code, TROVE_EILLEGALSTATE);
    assert_non_null(strstr(e.message, "failed to obtain node locks"));
    reopen(); /* the lock goes with the node */
}

static void test_write_refused_when_disk_is_full(void **s) {
    (void)s;
    OK("PUT", "/f", NULL);
    OK("PUT", "/f/_doc/1", "{\"a\":1}");
    tv_store_fault_arm(TV_STORE_OP_WRITE, 1, ENOSPC, false);
    EXPECT_HAS("PUT", "/f/_doc/2", "{\"a\":2}", 500, "No space left on device");
    EXPECT_STATUS("GET", "/f/_doc/2", NULL, 404); /* refused means not applied */
    EXPECT_HAS("GET", "/f/_doc/1", NULL, 200, "\"found\":true"); /* reads go on */
    EXPECT_HAS("PUT", "/f/_doc/3", "{\"a\":3}", 201, "\"_seq_no\":1"); /* space is back */
    tv_store_fault_arm(TV_STORE_OP_WRITE, 2, ENOSPC, true); /* the bulk's second item on */
    char *bulk;
    assert_int_equal(req("POST", "/_bulk", "{\"index\":{\"_index\":\"f\",\"_id\":\"4\"}}\n{\"a\":4}\n"
                                           "{\"index\":{\"_index\":\"f\",\"_id\":\"5\"}}\n{\"a\":5}\n", &bulk), 200);
    assert_non_null(strstr(bulk, "\"errors\":true"));
    assert_non_null(strstr(bulk, "\"status\":201"));
    assert_non_null(strstr(bulk, "\"status\":500"));
    free(bulk);
    tv_store_fault_arm(TV_STORE_OP_WRITE, 0, 0, false);
    reopen();
    EXPECT_HAS("GET", "/f/_doc/3", NULL, 200, "\"found\":true");
    EXPECT_HAS("GET", "/f/_doc/4", NULL, 200, "\"found\":true");
    EXPECT_STATUS("GET", "/f/_doc/2", NULL, 404);
    EXPECT_STATUS("GET", "/f/_doc/5", NULL, 404);
}

static void test_failed_fsync_stops_writes(void **s) {
    (void)s;
    OK("PUT", "/g", NULL);
    tv_store_fault_arm(TV_STORE_OP_SYNC, 1, EIO, false);
    EXPECT_HAS("PUT", "/g/_doc/1", "{\"a\":1}", 500, "failed to fsync translog");
    /* the kernel may have dropped the pages: no later write is believed */
    EXPECT_HAS("PUT", "/g/_doc/2", "{\"a\":2}", 500, "restart to recover");
    EXPECT_STATUS("GET", "/g", NULL, 200);
    reopen(); /* a restart recovers, with whatever reached the disk */
    OK("PUT", "/g/_doc/3", "{\"a\":3}");
}

/* async durability: the request does not wait for a sync; the syncer
 * thread syncs within sync_interval with no further write (the armed fault
 * fires there, which the next write then reports). */
static void test_async_durability_syncs_on_its_own(void **s) {
    (void)s;
    OK("PUT", "/a", "{\"settings\":{\"index.translog.durability\":\"ASYNC\","
                    "\"index.translog.sync_interval\":\"300ms\"}}");
    tv_store_fault_arm(TV_STORE_OP_SYNC, 1, EIO, false);
    EXPECT_HAS("PUT", "/a/_doc/1", "{\"x\":1}", 201, "\"created\""); /* not synced in the request */
    usleep(900 * 1000);
    EXPECT_HAS("PUT", "/a/_doc/2", "{\"x\":2}", 500, "restart to recover");
    /* _flush syncs at once, whatever the durability */
    OK("PUT", "/b", "{\"settings\":{\"index.translog.durability\":\"async\","
                    "\"index.translog.sync_interval\":\"1h\"}}");
    OK("PUT", "/b/_doc/1", "{\"x\":1}");
    tv_store_fault_arm(TV_STORE_OP_SYNC, 1, EIO, false);
    EXPECT_HAS("POST", "/b/_flush", NULL, 500, "failed to fsync translog");
}

static void test_torn_tail_and_corruption(void **s) {
    (void)s;
    OK("PUT", "/t", NULL);
    put_docs("t", 5, "{\"body\":\"some text to fill the record\"}");
    OK("PUT", "/other/_doc/1", "{\"a\":1}");
    trove_node_free(N);
    N = NULL;
    char path[1024];
    /* which translog is t's: the one whose index.json names it */
    char sub[512], found[1024] = "";
    snprintf(sub, sizeof sub, "%s/indices", dir);
    DIR *d = opendir(sub);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char meta[1024];
        snprintf(meta, sizeof meta, "%s/%s/index.json", sub, e->d_name);
        FILE *f = fopen(meta, "r");
        char buf[64] = "";
        if (f) {
            if (!fgets(buf, sizeof buf, f)) buf[0] = '\0';
            fclose(f);
        }
        if (strstr(buf, "\"name\":\"t\"")) snprintf(found, sizeof found, "%s/%s/translog.tlog", sub, e->d_name);
    }
    closedir(d);
    assert_true(found[0] != '\0');
    snprintf(path, sizeof path, "%s", found);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    /* a crash in the middle of the last append: cut it short */
    assert_int_equal(truncate(path, sb.st_size - 5), 0);
    reopen();
    EXPECT_HAS("GET", "/t/_count", NULL, 200, "\"count\":4");
    EXPECT_HAS("PUT", "/t/_doc/9", "{\"body\":\"after the cut\"}", 201, "\"_seq_no\":4");
    trove_node_free(N);
    N = NULL;
    /* a flipped bit in the first record: not a torn tail */
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 40, SEEK_SET), 0);
    int c = fgetc(f);
    assert_int_equal(fseek(f, 40, SEEK_SET), 0);
    fputc(c ^ 0x04, f);
    fclose(f);
    reopen();
    /* not served, and saying why */
    EXPECT_HAS("GET", "/t/_count", NULL, 500, "\"type\":\"corrupt_index_exception\"");
    EXPECT_HAS("GET", "/t/_count", NULL, 500, "was not recovered from its data directory: translog [");
    EXPECT_HAS("GET", "/_cat/indices/t?h=health,index", NULL, 200, "red t");
    EXPECT_HAS("GET", "/_cluster/health", NULL, 200, "\"status\":\"red\"");
    EXPECT_HAS("PUT", "/t/_doc/1", "{\"a\":1}", 500, "corrupt_index_exception"); /* no auto-create over it */
    EXPECT_HAS("PUT", "/t", NULL, 400, "resource_already_exists_exception");
    EXPECT_HAS("GET", "/other/_doc/1", NULL, 200, "\"found\":true"); /* the rest is served */
    assert_int_equal(stat(path, &sb), 0); /* and the evidence left alone */
    /* until it is deleted */
    OK("DELETE", "/t", NULL);
    assert_int_not_equal(stat(path, &sb), 0);
    EXPECT_STATUS("GET", "/t/_count", NULL, 404);
    OK("PUT", "/t/_doc/1", "{\"a\":1}");
    reopen();
    EXPECT_HAS("GET", "/t/_count", NULL, 200, "\"count\":1");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reopen_keeps_everything, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_node_metadata_survives, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_pipelines_survive, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_flush_commits, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_commit_by_translog_size, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_translog_stats, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_uuid_survives, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_lock, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_reopen_hidden_subfields, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_reopen_grown_mapping, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_write_refused_when_disk_is_full, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_failed_fsync_stops_writes, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_async_durability_syncs_on_its_own, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_torn_tail_and_corruption, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
