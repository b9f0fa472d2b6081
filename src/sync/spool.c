/*
 * spool.c — one streamed in-progress transaction (pgoutput protocol 2),
 * kept on disk until PostgreSQL says how it ended.
 *
 * With streaming on, PostgreSQL sends a transaction larger than its
 * logical_decoding_work_mem in blocks while it is still running, and later
 * a Stream Commit or a Stream Abort. The feed writes only committed rows,
 * so each such transaction's messages wait here: appended as they come, in
 * an unlinked temporary file (memory stays bounded however large the
 * transaction; the file vanishes with the process), and read back in order
 * at its commit. A Stream Abort of a subtransaction (ROLLBACK TO SAVEPOINT)
 * drops that subtransaction's messages and every message after them, which
 * are its nested subtransactions': the spool remembers where each
 * subtransaction's first message begins and truncates there (PostgreSQL's
 * own apply worker does the same).
 *
 * Record format: u32 length (host order), then the message bytes.
 *
 * Ownership: a tv_spool owns its file descriptor and subtransaction list;
 * messages given to it are copied.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sync/sync.h"

typedef struct subx {
    uint32_t xid;
    uint64_t at; /* where its first message starts */
} subx;

struct tv_spool {
    uint32_t xid; /* the top-level transaction */
    int fd;
    uint64_t size;
    uint64_t count; /* messages */
    TV_VEC(subx) subs;
};

tv_spool *tv_spool_open(uint32_t xid) {
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/trove-spool-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) return NULL;
    unlink(path);
    tv_spool *s = tv_calloc(1, sizeof *s);
    if (!s) {
        close(fd);
        return NULL;
    }
    s->xid = xid;
    s->fd = fd;
    return s;
}

uint32_t tv_spool_xid(const tv_spool *s) { return s->xid; }

uint64_t tv_spool_count(const tv_spool *s) { return s->count; }

static bool write_at(int fd, const void *p, size_t n, uint64_t at) {
    const char *q = p;
    while (n) {
        ssize_t w = pwrite(fd, q, n, (off_t)at);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        q += w;
        n -= (size_t)w;
        at += (uint64_t)w;
    }
    return true;
}

bool tv_spool_add(tv_spool *s, uint32_t subxid, const uint8_t *msg, size_t len) {
    if (len > UINT32_MAX) return false;
    if (subxid && subxid != s->xid) {
        bool known = false;
        for (size_t i = 0; i < s->subs.len && !known; i++) known = s->subs.items[i].xid == subxid;
        if (!known && tv_vec_push(&s->subs, ((subx){subxid, s->size}))) return false;
    }
    uint32_t n = (uint32_t)len;
    if (!write_at(s->fd, &n, 4, s->size) || !write_at(s->fd, msg, len, s->size + 4)) {
        (void)!ftruncate(s->fd, (off_t)s->size);
        return false;
    }
    s->size += 4 + len;
    s->count++;
    return true;
}

bool tv_spool_abort_sub(tv_spool *s, uint32_t subxid) {
    for (size_t i = 0; i < s->subs.len; i++) {
        if (s->subs.items[i].xid != subxid) continue;
        uint64_t at = s->subs.items[i].at;
        s->subs.len = i; /* it, and the subtransactions after it */
        if (ftruncate(s->fd, (off_t)at) != 0) return false;
        /* count the messages left: the file is read once more only here */
        uint64_t count = 0, pos = 0;
        while (pos < at) {
            uint32_t n;
            if (pread(s->fd, &n, 4, (off_t)pos) != 4) return false;
            pos += 4 + (uint64_t)n;
            count++;
        }
        s->size = at;
        s->count = count;
        return true;
    }
    return true; /* nothing of it was spooled */
}

bool tv_spool_replay(tv_spool *s, bool (*fn)(void *ud, const uint8_t *msg, size_t len), void *ud) {
    uint8_t *buf = NULL;
    size_t cap = 0;
    uint64_t pos = 0;
    bool ok = true;
    while (ok && pos < s->size) {
        uint32_t n;
        ok = pread(s->fd, &n, 4, (off_t)pos) == 4 && pos + 4 + n <= s->size;
        if (ok && n > cap) {
            uint8_t *nb = tv_realloc(buf, n);
            ok = nb != NULL;
            if (ok) {
                buf = nb;
                cap = n;
            }
        }
        for (size_t got = 0; ok && got < n;) {
            ssize_t r = pread(s->fd, buf + got, n - got, (off_t)(pos + 4 + got));
            if (r < 0 && errno == EINTR) continue;
            ok = r > 0;
            if (ok) got += (size_t)r;
        }
        if (ok) ok = fn(ud, buf, n);
        pos += 4 + (uint64_t)n;
    }
    tv_free(buf);
    return ok;
}

void tv_spool_free(tv_spool *s) {
    if (!s) return;
    close(s->fd);
    tv_vec_fini(&s->subs);
    tv_free(s);
}
