/*
 * sync.c — the `trove sync` command: options into a tv_feed_opts, the
 * destination (a data directory opened in process, or a URL) into a
 * tv_sink, SIGINT/SIGTERM into tv_feed_stop so that a stopped feed sends
 * what it holds and writes its checkpoint before it exits.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h" /* trove_node_set_sync_status */
#include "cli/sync.h"
#include "sync/sync.h"

void tv_cli_sync_usage(FILE *out) {
    fprintf(out,
            "usage: trove sync --pg CONNINFO --tables TABLE[,TABLE...] (--data DIR | --to URL)\n"
            "                  [--config FILE]   (JSON: pg, tables, index_prefix, slot, publication,\n"
            "                                     batch_size, in_flight, flush_interval,\n"
            "                                     numeric_as_number; later options win)\n"
            "                  [--index-prefix PREFIX] [--slot NAME] [--publication NAME]\n"
            "                  [--batch-size ROWS] [--in-flight 0|1] [--flush-interval TIME]\n"
            "                  [--numeric-as-number] [--once] [--quiet]\n"
            "       trove sync drop --pg CONNINFO [--slot NAME] [--publication NAME] (--data DIR | --to URL)\n"
            "       trove sync verify --pg CONNINFO --tables TABLE[,TABLE...] (--data DIR | --to URL)\n"
            "                  [--index-prefix PREFIX]\n"
            "       trove sync status --pg CONNINFO [--slot NAME] [--tables ...] [--warn-wal 1gb] (--data DIR | --to URL)\n"
            "\n"
            "Keeps one index per PostgreSQL table equal to the table, through logical replication\n"
            "(pgoutput): a snapshot of every table, then every committed change, with no loss and no\n"
            "duplicate across crashes and restarts of either side.\n"
            "\n"
            "  --pg CONNINFO         a libpq connection string or postgresql:// URI; its user needs the\n"
            "                        REPLICATION attribute, and the server wal_level=logical\n"
            "  --tables LIST         schema.table or table (schema public), comma-separated; each needs a\n"
            "                        primary key (or REPLICA IDENTITY USING INDEX)\n"
            "  --data DIR            write into the trove data directory DIR, in process\n"
            "  --to URL              write through _bulk to http://HOST:PORT (trove serve or OpenSearch)\n"
            "  --index-prefix P      index name = P + table (schema.table outside public), lower case\n"
            "  --slot NAME           the replication slot, created if absent (trove_sync)\n"
            "  --publication NAME    the publication, created if absent (trove_sync)\n"
            "  --batch-size ROWS     rows per _bulk request (5000)\n"
            "  --in-flight 0|1       batches being written while the next is read (1): 0 reads\n"
            "                        nothing while a batch is written\n"
            "  --flush-interval TIME how long a partial batch waits for more rows (0ms: it is sent\n"
            "                        whenever PostgreSQL has sent all it has); larger batches, more lag\n"
            "  --numeric-as-number   numeric columns as numbers (scaled_float) instead of strings\n"
            "  --once                stop once caught up with PostgreSQL's WAL position at the start\n"
            "  --quiet               no progress on stderr\n"
            "\n"
            "Document _id: the key; several key columns are joined with '|', each escaping '\\' and '|'\n"
            "with '\\'. In --config, a table may be an object instead of its name:\n"
            "  {\"table\": \"public.products\",   the table (the only key required)\n"
            "   \"index\": \"catalog\",           its index, instead of prefix + name\n"
            "   \"id\": [\"sku\"],                the _id's columns: NOT NULL, with a unique index of exactly\n"
            "                                  them, and the replica identity's (or REPLICA IDENTITY FULL)\n"
            "   \"include\": [...] | \"exclude\": [...],  which columns become fields\n"
            "   \"rename\": {\"title\": \"name\"},   column -> field name\n"
            "   \"mappings\": {\"name\": {\"type\": \"text\"}},  over the mapping made from the column type\n"
            "   \"settings\": {...}}             the index's settings when the feed creates it\n"
            "verify applies the same rules.\n"
            "\n"
            "The checkpoint is the document .trove_sync/_doc/SLOT; rows the index refuses go to\n"
            ".trove_sync_dead_letters. `trove sync drop` drops the slot, the publication and the\n"
            "checkpoint (not the indices). `trove sync verify` compares every row with its document\n"
            "(PostgreSQL reads each document back into the row type and compares md5s) and prints\n"
            "every difference; exit status 1 when there is one. `trove sync status` prints the slot\n"
            "(active, confirmed, WAL retained: a warning past --warn-wal), the checkpoint and its lag\n"
            "behind PostgreSQL in bytes, the snapshot's progress and the dead letters.\n");
}

static void on_signal(int sig) {
    (void)sig;
    tv_feed_stop();
}

int tv_cli_sync(int argc, char **argv) {
    int i = 2;
    bool drop = false, verify = false, status = false;
    int64_t warn_wal = (int64_t)1 << 30;
    if (i < argc && strcmp(argv[i], "drop") == 0) {
        drop = true;
        i++;
    } else if (i < argc && strcmp(argv[i], "verify") == 0) {
        verify = true;
        i++;
    } else if (i < argc && strcmp(argv[i], "status") == 0) {
        status = true;
        i++;
    }
    tv_feed_opts o = {.slot = "trove_sync", .publication = "trove_sync", .index_prefix = "", .batch_rows = 5000,
                     .in_flight = 1};
    const char *data = NULL, *to = NULL, *tables = NULL;
    void *config = NULL; /* --config: owns the strings it set in o */
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            tv_cli_sync_usage(stdout);
            return 0;
        }
        if (strcmp(a, "--once") == 0) {
            o.once = true;
            continue;
        }
        if (strcmp(a, "--quiet") == 0) {
            o.quiet = true;
            continue;
        }
        if (strcmp(a, "--numeric-as-number") == 0) {
            o.values.numeric_as_number = true;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "trove sync: %s needs a value (trove sync --help)\n", a);
            return 2;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--config") == 0) {
            tv_feed_config_free(config);
            if (!tv_feed_config_load(v, &o, &config)) {
                tv_feed_config_free(config);
                return 2;
            }
        } else if (strcmp(a, "--pg") == 0) o.pg = v;
        else if (strcmp(a, "--tables") == 0) tables = v;
        else if (strcmp(a, "--data") == 0) data = v;
        else if (strcmp(a, "--to") == 0) to = v;
        else if (strcmp(a, "--index-prefix") == 0) o.index_prefix = v;
        else if (strcmp(a, "--slot") == 0) o.slot = v;
        else if (strcmp(a, "--publication") == 0) o.publication = v;
        else if (strcmp(a, "--warn-wal") == 0) {
            if (!tv_parse_byte_size(v, strlen(v), &warn_wal) || warn_wal < 0) {
                fprintf(stderr, "trove sync: --warn-wal takes a size (\"1gb\", \"512mb\"), not [%s]\n", v);
                return 2;
            }
        }
        else if (strcmp(a, "--flush-interval") == 0) {
            int64_t ns;
            if (tv_parse_time_value(v, strlen(v), "--flush-interval", &ns, NULL) != TROVE_OK || ns < 0) {
                fprintf(stderr, "trove sync: --flush-interval takes a time (\"200ms\", \"1s\"), not [%s]\n", v);
                return 2;
            }
            o.flush_ms = ns / 1000000;
        }
        else if (strcmp(a, "--in-flight") == 0) {
            if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
                fprintf(stderr, "trove sync: --in-flight takes 0 or 1, not [%s]\n", v);
                return 2;
            }
            o.in_flight = v[0] - '0';
        }
        else if (strcmp(a, "--batch-size") == 0) {
            char *end;
            errno = 0;
            unsigned long n = strtoul(v, &end, 10);
            if (errno || *end || n < 1 || n > 1000000 || v[0] == '-') {
                fprintf(stderr, "trove sync: --batch-size takes 1 to 1000000 rows, not [%s]\n", v);
                return 2;
            }
            o.batch_rows = n;
        } else {
            fprintf(stderr, "trove sync: unknown option %s (trove sync --help)\n", a);
            return 2;
        }
    }
    if (!o.pg || (!drop && !status && !tables && !o.ntables) || !data == !to) {
        fprintf(stderr, "trove sync: needs --pg, --tables (or --config) and one of --data or --to (trove sync --help)\n");
        tv_feed_config_free(config);
        return 2;
    }
    /* the table list, split in place on a copy */
    char *list = tables ? strdup(tables) : NULL;
    tv_table_conf names[256];
    size_t n = 0;
    for (char *save = NULL, *t = list ? strtok_r(list, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ') t++;
        if (!*t) continue;
        if (n == 256) {
            fprintf(stderr, "trove sync: at most 256 tables per feed\n");
            free(list);
            tv_feed_config_free(config);
            return 2;
        }
        names[n++] = (tv_table_conf){.table = t};
    }
    if (tables) {
        o.tables = names;
        o.ntables = n;
    }
    if (!drop && !status && !o.ntables) {
        fprintf(stderr, "trove sync: --tables names no table\n");
        free(list);
        tv_feed_config_free(config);
        return 2;
    }
    trove_node *node = NULL;
    tv_sink sink;
    if (data) {
        trove_options no = {.data_dir = data};
        trove_error err;
        node = trove_node_open(&no, &err);
        if (!node) {
            fprintf(stderr, "trove sync: cannot open [%s]: %s\n", data, err.message);
            free(list);
            return 1;
        }
        tv_sink_init_node(&sink, node);
    } else if (!tv_sink_init_url(&sink, to)) {
        free(list);
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    int rc = drop     ? tv_feed_drop(&o, &sink)
             : verify ? tv_feed_verify(&o, &sink)
             : status ? tv_feed_status(&o, &sink, warn_wal)
                      : tv_feed_run(&o, &sink);
    tv_sink_fini(&sink);
    trove_node_free(node);
    free(list);
    tv_feed_config_free(config);
    return rc;
}

/* ------------------------------------------------ trove serve --sync */

static struct {
    bool running;
    pthread_t thread;
    tv_feed_opts o;
    tv_feed_stats stats;
    tv_sink sink;
    void *config;
} served;

static void *feed_main(void *arg) {
    (void)arg;
    if (tv_feed_run(&served.o, &served.sink) != 0)
        fprintf(stderr, "trove serve: the feed of --sync stopped; GET /_trove/sync says why\n");
    return NULL;
}

int tv_cli_sync_start(trove_node *node, const char *config) {
    memset(&served.o, 0, sizeof served.o);
    served.o = (tv_feed_opts){.slot = "trove_sync", .publication = "trove_sync", .index_prefix = "",
                              .batch_rows = 5000, .in_flight = 1, .quiet = true};
    if (!tv_feed_config_load(config, &served.o, &served.config)) {
        tv_feed_config_free(served.config);
        served.config = NULL;
        return 1;
    }
    tv_feed_stats_init(&served.stats);
    served.o.stats = &served.stats;
    tv_sink_init_node(&served.sink, node);
    trove_node_set_sync_status(node, tv_feed_stats_json, &served.o);
    if (pthread_create(&served.thread, NULL, feed_main, NULL) != 0) {
        fprintf(stderr, "trove serve: cannot start the feed's thread\n");
        trove_node_set_sync_status(node, NULL, NULL);
        tv_sink_fini(&served.sink);
        tv_feed_stats_fini(&served.stats);
        tv_feed_config_free(served.config);
        return 1;
    }
    served.running = true;
    return 0;
}

void tv_cli_sync_stop(trove_node *node) {
    if (!served.running) return;
    tv_feed_stop();
    pthread_join(served.thread, NULL);
    trove_node_set_sync_status(node, NULL, NULL);
    tv_sink_fini(&served.sink);
    tv_feed_stats_fini(&served.stats);
    tv_feed_config_free(served.config);
    served.running = false;
}
