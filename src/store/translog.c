/*
 * translog.c — the append-only operation log of store.h (format and
 * recovery rules there).
 *
 * Appends go through a shared mapping of the file, not a write(2) each: a
 * system call per document was a fifth of bulk indexing's time. The file
 * is reserved ahead (posix_fallocate, in steps that grow with the log up
 * to 8 MiB) and a window of it (up to 8 MiB) is mapped; an append copies
 * its framed record into the window. Once the blocks are reserved the copy
 * cannot fail, so the rule "a refused append leaves nothing" holds where
 * it can fail: the reservation, before anything is copied. A record that
 * does not fit the window is written with pwrite into the reserved space.
 * A process that dies after an append leaves the record in the page cache,
 * as a write(2) would; fdatasync writes a shared mapping's dirty pages like
 * any others. The reserved, never written tail reads as zeros, which
 * recovery reads as the end (store.h); close cuts it off.
 *
 * Syncs are group commits: `written` is the file size after the last
 * append, `synced` what the last fdatasync covered. A caller whose append is
 * already covered returns at once; otherwise it takes sync_mu, rechecks, and
 * syncs everything written so far, for every waiter. After a failed sync the
 * translog is `failed` for good (appends and syncs say so): Linux may have
 * dropped the dirty pages, so a later successful fsync would prove nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store_int.h"

#define TLOG_MAGIC "TROVETLG"
#define TLOG_VERSION 1u
#define TLOG_HEADER 16u
#define TLOG_FRAME 12u
#define TLOG_WINDOW ((uint64_t)8 << 20) /* the mapped window, at most */
#define TLOG_STEP_MIN ((uint64_t)64 << 10) /* the first reservation step */

struct tv_translog {
    atomic_uint rc;            /* references: the last tv_translog_close closes */
    int fd;
    char *path;
    uint64_t size;             /* bytes of records (appends are ordered by the caller) */
    uint64_t reserved;         /* bytes of the file allocated (size <= reserved) */
    uint8_t *map;              /* the window: file bytes [map_off, map_off + map_len) */
    uint64_t map_off, map_len;
    atomic_ullong written;     /* size after the last append */
    atomic_ullong synced;      /* size the last successful sync covered */
    atomic_bool failed;
    pthread_mutex_t sync_mu;
};

static inline uint32_t ld32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline void st32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

static void header(uint8_t *h) {
    memcpy(h, TLOG_MAGIC, 8);
    st32(h + 8, TLOG_VERSION);
    st32(h + 12, tv_checksum32(h, 12));
}

tv_status tv_translog_scan(const char *path, const uint8_t *b, size_t n,
                          tv_status (*fn)(void *, const uint8_t *, size_t), void *ctx, size_t *valid,
                          tv_error *err) {
    if (n < TLOG_HEADER || memcmp(b, TLOG_MAGIC, 8) || ld32(b + 8) != TLOG_VERSION ||
        ld32(b + 12) != tv_checksum32(b, 12)) {
        if (n < TLOG_HEADER && (n == 0 || !memcmp(b, TLOG_MAGIC, TV_MIN(n, (size_t)8)))) {
            *valid = 0; /* torn while being created: nothing was ever in it */
            return TROVE_OK;
        }
        return tv_error_set(err, TROVE_ECORRUPT, "translog [%s] has a bad header", path);
    }
    size_t at = TLOG_HEADER;
    while (at < n) {
        size_t left = n - at;
        if (left < TLOG_FRAME) break; /* a torn frame */
        uint32_t len = ld32(b + at), lsum = ld32(b + at + 4), sum = ld32(b + at + 8);
        if (lsum != tv_checksum32(b + at, 4) || len == 0 || len > TV_TRANSLOG_MAX_RECORD) {
            /* space the file system allocated but the crash left unwritten
             * reads as zeros; anything else is damage */
            bool zero = true;
            for (size_t k = at; k < n && zero; k++) zero = b[k] == 0;
            if (zero) break;
            return tv_error_set(err, TROVE_ECORRUPT, "translog [%s] is corrupt at offset [%zu]", path, at);
        }
        if (len > left - TLOG_FRAME) break; /* cut short: torn */
        if (tv_checksum32(b + at + TLOG_FRAME, len) != sum) {
            if (at + TLOG_FRAME + len == n) break; /* the last record: torn */
            return tv_error_set(err, TROVE_ECORRUPT, "translog [%s] is corrupt at offset [%zu]", path, at);
        }
        tv_status st = fn ? fn(ctx, b + at + TLOG_FRAME, len) : TROVE_OK;
        if (st) return st;
        at += TLOG_FRAME + len;
    }
    *valid = at;
    return TROVE_OK;
}

tv_status tv_translog_open(const char *path, tv_status (*fn)(void *ctx, const uint8_t *body, size_t len),
                           void *ctx, tv_translog **out, tv_error *err) {
    *out = NULL;
    char *bytes = NULL;
    size_t n = 0, valid = 0;
    tv_status st = tv_store_read_file(path, &bytes, &n, err);
    if (st == TROVE_ENOTFOUND) st = TROVE_OK;
    if (st) return st;
    st = tv_translog_scan(path, (const uint8_t *)bytes, n, fn, ctx, &valid, err);
    tv_free(bytes);
    if (st) return st;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return tv_store_errno(err, errno, "failed to open translog", path);
    tv_translog *t = tv_calloc(1, sizeof *t);
    char *p = tv_strndup(path, strlen(path));
    if (!t || !p) {
        close(fd);
        tv_free(t);
        tv_free(p);
        return tv_error_set(err, TROVE_ENOMEM, "out of memory opening translog [%s]", path);
    }
    atomic_init(&t->rc, 1);
    t->fd = fd;
    t->path = p;
    pthread_mutex_init(&t->sync_mu, NULL);
    if (valid < TLOG_HEADER) { /* new (or torn at birth): write the header */
        uint8_t h[TLOG_HEADER];
        header(h);
        if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET) < 0 || tv_store_write_all(fd, h, TLOG_HEADER) ||
            tv_store_sys_sync(fd, false)) {
            st = tv_store_errno(err, errno, "failed to create translog", path);
            goto fail;
        }
        valid = TLOG_HEADER;
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = '\0';
        if ((st = tv_store_sync_dir(slash ? dir : ".", err))) goto fail;
    } else if (valid < n) { /* a torn tail: cut it off, durably */
        if (ftruncate(fd, (off_t)valid) || tv_store_sys_sync(fd, false)) {
            st = tv_store_errno(err, errno, "failed to truncate the torn tail of translog", path);
            goto fail;
        }
    }
    if (lseek(fd, (off_t)valid, SEEK_SET) < 0) {
        st = tv_store_errno(err, errno, "failed to seek translog", path);
        goto fail;
    }
    t->size = t->reserved = valid;
    atomic_init(&t->written, valid);
    atomic_init(&t->synced, valid);
    *out = t;
    return TROVE_OK;
fail:
    tv_translog_close(t);
    return st;
}

/* Reserves the file up to at least `end`, a step past it; errno on failure. */
static bool reserve(tv_translog *t, uint64_t end) {
    if (end <= t->reserved) return true;
    uint64_t step = TV_MIN(TV_MAX(t->size, TLOG_STEP_MIN), TLOG_WINDOW);
    uint64_t want = (end + step + TLOG_STEP_MIN - 1) / TLOG_STEP_MIN * TLOG_STEP_MIN;
    int e = posix_fallocate(t->fd, (off_t)t->reserved, (off_t)(want - t->reserved));
    if (e) {
        errno = e;
        return false;
    }
    t->reserved = want;
    return true;
}

static void unmap(tv_translog *t) {
    if (t->map) munmap(t->map, t->map_len);
    t->map = NULL;
    t->map_off = t->map_len = 0;
}

/* Maps the window from the page holding t->size over the reserved space;
 * false (no window) when mmap fails. */
static bool remap(tv_translog *t) {
    unmap(t);
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t off = t->size / page * page, len = TV_MIN(t->reserved - off, TLOG_WINDOW);
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, (off_t)off);
    if (m == MAP_FAILED) return false;
    t->map = m;
    t->map_off = off;
    t->map_len = len;
    return true;
}

static bool pwrite_all(int fd, const void *p, size_t n, uint64_t at) {
    const char *q = p;
    while (n) {
        ssize_t w = pwrite(fd, q, n, (off_t)at);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = ENOSPC;
            return false;
        }
        q += w;
        n -= (size_t)w;
        at += (uint64_t)w;
    }
    return true;
}

tv_status tv_translog_append(tv_translog *t, const void *body, size_t len, tv_error *err) {
    if (atomic_load(&t->failed))
        return tv_error_set(err, TROVE_EIO, "translog [%s] failed an earlier fsync; restart to recover", t->path);
    if (len == 0 || len > TV_TRANSLOG_MAX_RECORD)
        return tv_error_set(err, TROVE_EARG, "translog record of [%zu] bytes", len);
    uint8_t frame[TLOG_FRAME];
    st32(frame, (uint32_t)len);
    st32(frame + 4, tv_checksum32(frame, 4));
    st32(frame + 8, tv_checksum32(body, len));
    uint64_t end = t->size + TLOG_FRAME + len;
    if (tv_store_write_faults() || !reserve(t, end))
        return tv_store_errno(err, errno, "failed to write translog", t->path);
    bool mapped = (t->map && t->size >= t->map_off && end <= t->map_off + t->map_len) ||
                  (end - t->size <= TLOG_WINDOW / 2 && remap(t) && end <= t->map_off + t->map_len);
    if (mapped) {
        uint8_t *at = t->map + (t->size - t->map_off);
        memcpy(at, frame, TLOG_FRAME);
        memcpy(at + TLOG_FRAME, body, len);
    } else if (!pwrite_all(t->fd, frame, TLOG_FRAME, t->size) || !pwrite_all(t->fd, body, len, t->size + TLOG_FRAME)) {
        /* into reserved space, so this is an I/O error: zero what part of
         * the record landed, so that it reads as the end */
        int e = errno;
        static const uint8_t zeros[TLOG_FRAME];
        (void)pwrite_all(t->fd, zeros, TLOG_FRAME, t->size);
        return tv_store_errno(err, e, "failed to write translog", t->path);
    }
    t->size = end;
    atomic_store(&t->written, t->size);
    return TROVE_OK;
}

tv_status tv_translog_sync(tv_translog *t, tv_error *err) {
    uint64_t want = atomic_load(&t->written);
    if (atomic_load(&t->synced) >= want && !atomic_load(&t->failed)) return TROVE_OK;
    pthread_mutex_lock(&t->sync_mu);
    tv_status st = TROVE_OK;
    if (atomic_load(&t->failed)) {
        st = tv_error_set(err, TROVE_EIO, "translog [%s] failed an earlier fsync; restart to recover", t->path);
    } else if (atomic_load(&t->synced) < want) {
        uint64_t upto = atomic_load(&t->written);
        if (tv_store_sys_sync(t->fd, true)) {
            atomic_store(&t->failed, true);
            st = tv_store_errno(err, errno, "failed to fsync translog", t->path);
        } else {
            atomic_store(&t->synced, upto);
        }
    }
    pthread_mutex_unlock(&t->sync_mu);
    return st;
}

bool tv_translog_dirty(tv_translog *t) { return atomic_load(&t->synced) < atomic_load(&t->written); }

bool tv_translog_failed(tv_translog *t) { return atomic_load(&t->failed); }

uint64_t tv_translog_size(tv_translog *t) { return atomic_load(&t->written); }

tv_translog *tv_translog_retain(tv_translog *t) {
    if (t) atomic_fetch_add_explicit(&t->rc, 1, memory_order_relaxed);
    return t;
}

void tv_translog_close(tv_translog *t) {
    if (!t || atomic_fetch_sub_explicit(&t->rc, 1, memory_order_acq_rel) != 1) return;
    unmap(t);
    if (t->fd >= 0) {
        if (!atomic_load(&t->failed)) {
            /* the reserved tail goes (it would read as the end anyway) */
            if (t->reserved > t->size) (void)!ftruncate(t->fd, (off_t)t->size);
            (void)tv_store_sys_sync(t->fd, true);
        }
        close(t->fd);
    }
    pthread_mutex_destroy(&t->sync_mu);
    tv_free(t->path);
    tv_free(t);
}
