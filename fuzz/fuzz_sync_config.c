/*
 * fuzz_sync_config.c — a feed's configuration file (src/sync/config.c) on
 * arbitrary bytes: the file's JSON, its keys and the per-table objects.
 *
 * Properties: no crash, no leak, no read past the input (the replay and
 * fuzz builds run under ASan). An accepted configuration has what a feed
 * needs: a connection string, 1 to 256 tables each with a name, include
 * and exclude not both, rename pairs with both names, id lists that are
 * not empty, an in_flight of 0 or 1 and a batch size of 1 to 1,000,000.
 * Any violation aborts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sync/sync.h"

static void check(bool ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_sync_config: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[] = "/tmp/trove-fuzz-config-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 0;
    bool written = write(fd, data, size) == (ssize_t)size;
    close(fd);
    if (written) {
        tv_feed_opts o = {.slot = "s", .publication = "p", .index_prefix = "", .batch_rows = 5000, .in_flight = 1};
        void *storage = NULL;
        if (tv_feed_config_load(path, &o, &storage)) {
            check(o.pg && o.pg[0], "accepted without pg");
            check(o.ntables >= 1 && o.ntables <= 256 && o.tables, "accepted without tables");
            check(o.batch_rows >= 1 && o.batch_rows <= 1000000, "batch size out of range");
            check(o.in_flight == 0 || o.in_flight == 1, "in_flight out of range");
            check(o.flush_ms >= 0, "negative flush interval");
            for (size_t i = 0; i < o.ntables; i++) {
                const tv_table_conf *t = &o.tables[i];
                check(t->table && t->table[0], "a table without a name");
                check(!(t->include && t->exclude), "include and exclude both");
                check(!t->id || t->nid > 0, "an empty id list");
                for (size_t k = 0; k < t->nid; k++) check(t->id[k] && t->id[k][0], "an empty id column");
                for (size_t k = 0; k < t->nrename; k++)
                    check(t->rename[2 * k] && t->rename[2 * k + 1] && t->rename[2 * k + 1][0], "a rename pair");
                check(!t->mappings || t->mappings->type == TV_JSON_OBJECT, "mappings not an object");
                check(!t->settings || t->settings->type == TV_JSON_OBJECT, "settings not an object");
            }
        }
        tv_feed_config_free(storage);
    }
    unlink(path);
    return 0;
}
