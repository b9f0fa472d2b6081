/*
 * test_store.c — the store layer: the translog's records come back in
 * order after a reopen; a file cut at any byte of its last record (a crash
 * mid-append) opens with every earlier record and appends continue; a
 * damaged record with records after it, a damaged length and a bad header
 * are corruption; a failed write leaves no byte behind; a failed fsync
 * stops the translog; atomic files and the directory lock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store.h"

static char dir[256], path[512];

static int setup(void **s) {
    (void)s;
    snprintf(dir, sizeof dir, "/tmp/trove-store-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(path, sizeof path, "%s/t.tlog", dir);
    return 0;
}

static int teardown(void **s) {
    (void)s;
    for (int op = 0; op < TV_STORE_OP_COUNT_; op++) tv_store_fault_arm((tv_store_op)op, 0, 0, false);
    tv_error e = TV_ERROR_INIT;
    return tv_store_remove_tree(dir, &e) == TROVE_OK ? 0 : -1;
}

typedef struct seen {
    int n;
    char recs[64][64];
} seen;

static tv_status collect(void *ctx, const uint8_t *body, size_t len) {
    seen *s = ctx;
    assert_true(len < 64 && s->n < 64);
    memcpy(s->recs[s->n], body, len);
    s->recs[s->n][len] = '\0';
    s->n++;
    return TROVE_OK;
}

static tv_status open_seen(seen *s, tv_translog **t, tv_error *e) {
    memset(s, 0, sizeof *s);
    return tv_translog_open(path, collect, s, t, e);
}

static void write_records(int n) {
    tv_translog *t;
    tv_error e = TV_ERROR_INIT;
    seen s;
    tv_error_clear(&e);
    assert_int_equal(open_seen(&s, &t, &e), TROVE_OK);
    for (int i = 0; i < n; i++) {
        char r[32];
        int len = snprintf(r, sizeof r, "record %d", i);
        tv_error_clear(&e);
        assert_int_equal(tv_translog_append(t, r, (size_t)len, &e), TROVE_OK);
    }
    assert_true(tv_translog_dirty(t));
    tv_error_clear(&e);
    assert_int_equal(tv_translog_sync(t, &e), TROVE_OK);
    assert_false(tv_translog_dirty(t));
    tv_translog_close(t);
}

static long file_size(void) {
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    return (long)sb.st_size;
}

static void test_records_come_back(void **st) {
    (void)st;
    write_records(3);
    seen s;
    tv_translog *t;
    tv_error e = TV_ERROR_INIT;
    assert_int_equal(open_seen(&s, &t, &e), TROVE_OK);
    assert_int_equal(s.n, 3);
    assert_string_equal(s.recs[0], "record 0");
    assert_string_equal(s.recs[2], "record 2");
    tv_error_clear(&e);
    assert_int_equal(tv_translog_append(t, "more", 4, &e), TROVE_OK);
    tv_translog_close(t);
    tv_error_clear(&e);
    assert_int_equal(open_seen(&s, &t, &e), TROVE_OK);
    assert_int_equal(s.n, 4);
    assert_string_equal(s.recs[3], "more");
    tv_translog_close(t);
}

static void test_torn_tail_at_every_byte(void **st) {
    (void)st;
    write_records(4);
    long full = file_size();
    char *orig;
    size_t olen;
    tv_error e = TV_ERROR_INIT;
    assert_int_equal(tv_store_read_file(path, &orig, &olen, &e), TROVE_OK);
    long last = full - (12 + 8); /* "record 3" is 8 bytes after a 12-byte frame */
    for (long cut = last; cut < full; cut++) {
        FILE *f = fopen(path, "wb");
        fwrite(orig, 1, (size_t)cut, f);
        fclose(f);
        seen s;
        tv_translog *t;
        tv_error_clear(&e);
        assert_int_equal(open_seen(&s, &t, &e), TROVE_OK);
        assert_int_equal(s.n, 3);
        assert_int_equal(file_size(), last); /* the torn bytes are gone */
        tv_error_clear(&e);
        assert_int_equal(tv_translog_append(t, "next", 4, &e), TROVE_OK);
        tv_translog_close(t);
        tv_error_clear(&e);
        assert_int_equal(open_seen(&s, &t, &e), TROVE_OK);
        assert_int_equal(s.n, 4);
        assert_string_equal(s.recs[3], "next");
        tv_translog_close(t);
    }
    /* zeros where the last record should be (allocated, never written) */
    FILE *f = fopen(path, "wb");
    fwrite(orig, 1, (size_t)last, f);
    for (int i = 0; i < 40; i++) fputc(0, f);
    fclose(f);
    seen s;
    tv_translog *t;
    tv_error_clear(&e);
    assert_int_equal(open_seen(&s, &t, &e), TROVE_OK);
    assert_int_equal(s.n, 3);
    tv_translog_close(t);
    /* torn at birth: only part of the header */
    f = fopen(path, "wb");
    fwrite(orig, 1, 5, f);
    fclose(f);
    tv_error_clear(&e);
    assert_int_equal(open_seen(&s, &t, &e), TROVE_OK);
    assert_int_equal(s.n, 0);
    tv_translog_close(t);
    free(orig);
}

static void flip(long at, int bit) {
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, at, SEEK_SET);
    int c = fgetc(f);
    fseek(f, at, SEEK_SET);
    fputc(c ^ (1 << bit), f);
    fclose(f);
}

static void test_corruption_is_not_a_torn_tail(void **st) {
    (void)st;
    static const long where[] = {
        3,       /* the magic */
        16 + 1,  /* the first record's length */
        16 + 6,  /* the length's checksum */
        16 + 12, /* the first record's body */
    };
    for (size_t w = 0; w < sizeof where / sizeof *where; w++) {
        unlink(path);
        write_records(3);
        long before = file_size();
        flip(where[w], 2);
        seen s;
        tv_translog *t = NULL;
        tv_error e = TV_ERROR_INIT;
        assert_int_equal(open_seen(&s, &t, &e), TROVE_ECORRUPT);
        assert_null(t);
        assert_non_null(strstr(e.reason, "translog ["));
        assert_int_equal(file_size(), before); /* left as it was */
    }
}

static void test_failed_write_leaves_nothing(void **st) {
    (void)st;
    write_records(2);
    long before = file_size();
    seen s;
    tv_translog *t;
    tv_error e = TV_ERROR_INIT;
    assert_int_equal(open_seen(&s, &t, &e), TROVE_OK);
    /* the disk is full when the record is written (reserved) */
    char big[10000];
    memset(big, 'x', sizeof big);
    tv_store_fault_arm(TV_STORE_OP_WRITE, 1, ENOSPC, false);
    tv_error_clear(&e);
    assert_int_equal(tv_translog_append(t, big, sizeof big, &e), TROVE_EIO);
    assert_non_null(strstr(e.reason, "No space left on device"));
    assert_int_equal(tv_translog_size(t), (uint64_t)before);
    tv_error_clear(&e);
    assert_int_equal(tv_translog_append(t, "after", 5, &e), TROVE_OK);
    tv_error_clear(&e);
    assert_int_equal(tv_translog_sync(t, &e), TROVE_OK);
    tv_translog_close(t);
    assert_int_equal(file_size(), before + 12 + 5); /* nothing of the refused record */
    tv_error_clear(&e);
    assert_int_equal(open_seen(&s, &t, &e), TROVE_OK);
    assert_int_equal(s.n, 3);
    assert_string_equal(s.recs[2], "after");
    tv_translog_close(t);
}

static void test_failed_sync_is_final(void **st) {
    (void)st;
    seen s;
    tv_translog *t;
    tv_error e = TV_ERROR_INIT;
    assert_int_equal(open_seen(&s, &t, &e), TROVE_OK);
    tv_error_clear(&e);
    assert_int_equal(tv_translog_append(t, "a", 1, &e), TROVE_OK);
    tv_store_fault_arm(TV_STORE_OP_SYNC, 1, EIO, false);
    tv_error_clear(&e);
    assert_int_equal(tv_translog_sync(t, &e), TROVE_EIO);
    tv_error_clear(&e);
    assert_int_equal(tv_translog_sync(t, &e), TROVE_EIO);
    tv_error_clear(&e);
    assert_int_equal(tv_translog_append(t, "b", 1, &e), TROVE_EIO);
    assert_non_null(strstr(e.reason, "restart to recover"));
    tv_translog_close(t);
    tv_error_clear(&e);
    assert_int_equal(open_seen(&s, &t, &e), TROVE_OK); /* reopened, it works again */
    tv_error_clear(&e);
    assert_int_equal(tv_translog_append(t, "c", 1, &e), TROVE_OK);
    tv_error_clear(&e);
    assert_int_equal(tv_translog_sync(t, &e), TROVE_OK);
    tv_translog_close(t);
}

/* Record i of the window test: its length and its bytes, from i alone. */
static size_t rec_len(uint32_t i) {
    if (i == 7) return (size_t)5 << 20; /* more than half a window: written, not mapped */
    return 1 + (i * 2654435761u) % 9000;
}
static uint8_t rec_byte(uint32_t i, size_t k) { return (uint8_t)(i * 31 + k * 7); }

typedef struct checked {
    uint32_t n;
    bool bad;
} checked;

static tv_status check_rec(void *ctx, const uint8_t *body, size_t len) {
    checked *c = ctx;
    if (len != rec_len(c->n)) c->bad = true;
    for (size_t k = 0; k < len && !c->bad; k++) c->bad = body[k] != rec_byte(c->n, k);
    c->n++;
    return TROVE_OK;
}

/* Many records across windows and reservation steps (one of them bigger
 * than half a window) come back byte for byte, whether the log was closed
 * or its process died without closing it (the mapping's pages are the
 * file's: nothing acknowledged is lost with the process). */
static void test_records_across_windows_survive_a_dying_process(void **st) {
    (void)st;
    const uint32_t n = 4000; /* about 18 MB */
    uint8_t *buf = malloc(rec_len(7));
    assert_non_null(buf);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        tv_translog *t;
        tv_error e = TV_ERROR_INIT;
        if (tv_translog_open(path, NULL, NULL, &t, &e)) _exit(2);
        for (uint32_t i = 0; i < n; i++) {
            for (size_t k = 0; k < rec_len(i); k++) buf[k] = rec_byte(i, k);
            tv_error_clear(&e);
            if (tv_translog_append(t, buf, rec_len(i), &e)) _exit(3);
        }
        _exit(0); /* no sync, no close */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (int round = 0; round < 2; round++) {
        checked c = {0, false};
        tv_translog *t;
        tv_error e = TV_ERROR_INIT;
        assert_int_equal(tv_translog_open(path, check_rec, &c, &t, &e), TROVE_OK);
        assert_int_equal(c.n, n);
        assert_false(c.bad);
        uint64_t size = tv_translog_size(t);
        tv_translog_close(t); /* the second round: after a close, which cuts the reserved tail */
        if (round == 1) assert_int_equal((uint64_t)file_size(), size);
    }
    free(buf);
}

static void test_atomic_files_and_lock(void **st) {
    (void)st;
    char p[600];
    snprintf(p, sizeof p, "%s/meta.json", dir);
    tv_error e = TV_ERROR_INIT;
    assert_int_equal(tv_store_write_atomic(p, "{\"v\":1}", 7, &e), TROVE_OK);
    tv_store_fault_arm(TV_STORE_OP_RENAME, 1, EIO, false);
    tv_error_clear(&e);
    assert_int_equal(tv_store_write_atomic(p, "{\"v\":2}", 7, &e), TROVE_EIO);
    char *b;
    size_t n;
    tv_error_clear(&e);
    assert_int_equal(tv_store_read_file(p, &b, &n, &e), TROVE_OK);
    assert_string_equal(b, "{\"v\":1}"); /* the old bytes, whole */
    free(b);
    char tmp[640];
    snprintf(tmp, sizeof tmp, "%s.tmp", p);
    assert_int_not_equal(access(tmp, F_OK), 0); /* no leftover */
    tv_error_clear(&e);
    assert_int_equal(tv_store_read_file(tmp, &b, &n, &e), TROVE_ENOTFOUND);
    tv_store_lock *l1, *l2;
    tv_error_clear(&e);
    assert_int_equal(tv_store_lock_dir(dir, &l1, &e), TROVE_OK);
    tv_error_clear(&e);
    assert_int_equal(tv_store_lock_dir(dir, &l2, &e), TROVE_EILLEGALSTATE);
    tv_store_unlock(l1);
    tv_error_clear(&e);
    assert_int_equal(tv_store_lock_dir(dir, &l2, &e), TROVE_OK);
    tv_store_unlock(l2);
    assert_true(tv_store_fault_arm_spec("write:3:ENOSPC:sticky"));
    assert_false(tv_store_fault_arm_spec("write:0"));
    assert_false(tv_store_fault_arm_spec("fsync:1"));
    assert_false(tv_store_fault_arm_spec("sync:1:EPERM"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_records_come_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_torn_tail_at_every_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corruption_is_not_a_torn_tail, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_write_leaves_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_sync_is_final, setup, teardown),
        cmocka_unit_test_setup_teardown(test_records_across_windows_survive_a_dying_process, setup, teardown),
        cmocka_unit_test_setup_teardown(test_atomic_files_and_lock, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
