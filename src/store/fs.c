/*
 * fs.c — the data directory's lock and the file operations of store.h, with
 * the fsync discipline and the fault hook described there.
 *
 * Every write(2), fsync and rename of the store goes through the three
 * wrappers below (tv_store_sys_*), which consult the fault hook first: a
 * countdown per operation kind, decremented atomically, that makes one call
 * (or, sticky, every call from then on) fail with a chosen errno. Tests arm
 * it directly; the server arms it from TROVE_TEST_FAULT so that HTTP-level
 * fault tests need no LD_PRELOAD shim (which would not compose with the
 * sanitizer runtime).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store_int.h"

/* ------------------------------------------------------------ fault hook */

static struct {
    atomic_ullong countdown; /* 0: disarmed */
    atomic_int err;
    atomic_bool sticky, fired;
} faults[TV_STORE_OP_COUNT_];

void tv_store_fault_arm(tv_store_op op, uint64_t n, int errno_value, bool sticky) {
    if ((unsigned)op >= TV_STORE_OP_COUNT_) return;
    atomic_store(&faults[op].err, errno_value ? errno_value : EIO);
    atomic_store(&faults[op].sticky, sticky);
    atomic_store(&faults[op].fired, false);
    atomic_store(&faults[op].countdown, n);
}

bool tv_store_fault_arm_spec(const char *spec) {
    static const char *const ops[] = {"write", "sync", "rename"};
    char buf[128];
    if (!spec || strlen(spec) >= sizeof buf) return false;
    strcpy(buf, spec);
    char *save = NULL, *op = strtok_r(buf, ":", &save), *n = strtok_r(NULL, ":", &save);
    char *e = strtok_r(NULL, ":", &save), *st = strtok_r(NULL, ":", &save);
    if (!op || !n) return false;
    int k = -1;
    for (int i = 0; i < (int)TV_ARRAY_LEN(ops); i++)
        if (!strcmp(op, ops[i])) k = i;
    char *end;
    unsigned long long cnt = strtoull(n, &end, 10);
    if (k < 0 || *end || cnt == 0) return false;
    int ev = EIO;
    if (e && !strcmp(e, "ENOSPC")) ev = ENOSPC;
    else if (e && strcmp(e, "EIO")) return false;
    if (st && strcmp(st, "sticky")) return false;
    tv_store_fault_arm((tv_store_op)k, cnt, ev, st != NULL);
    return true;
}

/* True (errno set) when this call of op must fail. */
static bool fault(tv_store_op op) {
    if (atomic_load(&faults[op].fired) && atomic_load(&faults[op].sticky)) {
        errno = atomic_load(&faults[op].err);
        return true;
    }
    unsigned long long c = atomic_load(&faults[op].countdown);
    while (c) {
        if (atomic_compare_exchange_weak(&faults[op].countdown, &c, c - 1)) {
            if (c != 1) return false;
            atomic_store(&faults[op].fired, true);
            errno = atomic_load(&faults[op].err);
            return true;
        }
    }
    return false;
}

ssize_t tv_store_sys_write(int fd, const void *p, size_t n) {
    if (fault(TV_STORE_OP_WRITE)) return -1;
    return write(fd, p, n);
}

bool tv_store_write_faults(void) { return fault(TV_STORE_OP_WRITE); }

int tv_store_sys_sync(int fd, bool data_only) {
    if (fault(TV_STORE_OP_SYNC)) return -1;
    return data_only ? fdatasync(fd) : fsync(fd);
}

static int sys_rename(const char *from, const char *to) {
    if (fault(TV_STORE_OP_RENAME)) return -1;
    return rename(from, to);
}

/* ------------------------------------------------------------ helpers */

tv_status tv_store_errno(tv_error *err, int e, const char *what, const char *path) {
    return tv_error_set(err, TROVE_EIO, "%s [%s]: %s", what, path, strerror(e));
}

tv_status tv_store_write_all(int fd, const void *p, size_t n) {
    const char *q = p;
    while (n) {
        ssize_t w = tv_store_sys_write(fd, q, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return TROVE_EIO;
        }
        if (w == 0) {
            errno = ENOSPC;
            return TROVE_EIO;
        }
        q += w;
        n -= (size_t)w;
    }
    return TROVE_OK;
}

/* The parent directory of path ("." for a bare name) into buf. */
static void parent_of(const char *path, char *buf, size_t cap) {
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(buf, cap, ".");
    } else if (slash == path) {
        snprintf(buf, cap, "/");
    } else {
        snprintf(buf, cap, "%.*s", (int)(slash - path), path);
    }
}

tv_status tv_store_sync_dir(const char *dir, tv_error *err) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return tv_store_errno(err, errno, "failed to open directory", dir);
    int rc = tv_store_sys_sync(fd, false), e = errno;
    close(fd);
    return rc ? tv_store_errno(err, e, "failed to fsync directory", dir) : TROVE_OK;
}

static tv_status sync_parent(const char *path, tv_error *err) {
    char parent[4096];
    parent_of(path, parent, sizeof parent);
    return tv_store_sync_dir(parent, err);
}

/* ------------------------------------------------------------ directories */

struct tv_store_lock {
    int fd;
};

static tv_status mkdir_p(const char *dir, tv_error *err) {
    char buf[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof buf) return tv_error_set(err, TROVE_EARG, "bad data path [%s]", dir);
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) && errno != EEXIST) return tv_store_errno(err, errno, "failed to create directory", buf);
        buf[i] = c;
    }
    return TROVE_OK;
}

tv_status tv_store_lock_dir(const char *dir, tv_store_lock **out, tv_error *err) {
    *out = NULL;
    tv_status st = mkdir_p(dir, err);
    if (st) return st;
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/node.lock", dir) >= sizeof path)
        return tv_error_set(err, TROVE_EARG, "bad data path [%s]", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return tv_store_errno(err, errno, "failed to open the node lock", path);
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        close(fd);
        return tv_error_set(err, TROVE_EILLEGALSTATE,
                            "failed to obtain node locks, tried [%s]; maybe these locations are not "
                            "writable or multiple nodes were started on the same data path",
                            dir);
    }
    tv_store_lock *l = tv_malloc(sizeof *l);
    if (!l) {
        close(fd);
        return tv_error_oom(err);
    }
    l->fd = fd;
    *out = l;
    return TROVE_OK;
}

void tv_store_unlock(tv_store_lock *l) {
    if (!l) return;
    close(l->fd); /* releases the flock */
    tv_free(l);
}

tv_status tv_store_mkdir(const char *path, tv_error *err) {
    if (mkdir(path, 0755)) {
        if (errno == EEXIST) return TROVE_OK;
        return tv_store_errno(err, errno, "failed to create directory", path);
    }
    return sync_parent(path, err);
}

static tv_status remove_below(int dirfd, const char *shown, tv_error *err) {
    DIR *d = fdopendir(dirfd);
    if (!d) {
        close(dirfd);
        return tv_store_errno(err, errno, "failed to read directory", shown);
    }
    tv_status st = TROVE_OK;
    struct dirent *e;
    while (st == TROVE_OK && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat sb;
        if (fstatat(dirfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW)) continue;
        if (S_ISDIR(sb.st_mode)) {
            int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
            if (sub < 0) st = tv_store_errno(err, errno, "failed to open directory", e->d_name);
            else st = remove_below(sub, e->d_name, err);
            if (st == TROVE_OK && unlinkat(dirfd, e->d_name, AT_REMOVEDIR))
                st = tv_store_errno(err, errno, "failed to remove directory", e->d_name);
        } else if (unlinkat(dirfd, e->d_name, 0)) {
            st = tv_store_errno(err, errno, "failed to remove file", e->d_name);
        }
    }
    closedir(d);
    return st;
}

tv_status tv_store_remove_tree(const char *path, tv_error *err) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return errno == ENOENT ? TROVE_OK : tv_store_errno(err, errno, "failed to open directory", path);
    tv_status st = remove_below(fd, path, err);
    if (st) return st;
    if (rmdir(path)) return tv_store_errno(err, errno, "failed to remove directory", path);
    return sync_parent(path, err);
}

tv_status tv_store_rename(const char *from, const char *to, tv_error *err) {
    if (sys_rename(from, to)) return tv_store_errno(err, errno, "failed to rename", from);
    return sync_parent(to, err);
}

tv_status tv_store_write_atomic(const char *path, const void *bytes, size_t len, tv_error *err) {
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp)
        return tv_error_set(err, TROVE_EARG, "path too long [%s]", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return tv_store_errno(err, errno, "failed to create", tmp);
    if (tv_store_write_all(fd, bytes, len) || tv_store_sys_sync(fd, false)) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return tv_store_errno(err, e, "failed to write", tmp);
    }
    if (close(fd)) {
        int e = errno;
        unlink(tmp);
        return tv_store_errno(err, e, "failed to write", tmp);
    }
    tv_status st = tv_store_rename(tmp, path, err);
    if (st) unlink(tmp);
    return st;
}

tv_status tv_store_read_file(const char *path, char **out, size_t *len, tv_error *err) {
    *out = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return TROVE_ENOTFOUND;
        return tv_store_errno(err, errno, "failed to open", path);
    }
    struct stat sb;
    if (fstat(fd, &sb)) {
        int e = errno;
        close(fd);
        return tv_store_errno(err, e, "failed to stat", path);
    }
    size_t n = (size_t)sb.st_size, got = 0;
    char *buf = tv_malloc(n + 1);
    if (!buf) {
        close(fd);
        return tv_error_set(err, TROVE_ENOMEM, "out of memory reading [%s]", path);
    }
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            int e = r < 0 ? errno : EIO;
            close(fd);
            tv_free(buf);
            return tv_store_errno(err, e, "failed to read", path);
        }
        got += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return TROVE_OK;
}

tv_status tv_store_map(const char *path, const uint8_t **out, size_t *len, tv_error *err) {
    *out = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? TROVE_ENOTFOUND : tv_store_errno(err, errno, "failed to open", path);
    struct stat sb;
    if (fstat(fd, &sb)) {
        int e = errno;
        close(fd);
        return tv_store_errno(err, e, "failed to stat", path);
    }
    if (sb.st_size <= 0) {
        close(fd);
        return tv_error_set(err, TROVE_ECORRUPT, "[%s] is empty", path);
    }
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd); /* the mapping keeps the file */
    if (p == MAP_FAILED) return tv_store_errno(err, e, "failed to map", path);
    *out = p;
    *len = (size_t)sb.st_size;
    return TROVE_OK;
}

void tv_store_unmap(const uint8_t *p, size_t len) {
    if (p) munmap((void *)p, len);
}

tv_status tv_store_list(const char *dir, void (*fn)(void *ctx, const char *name), void *ctx,
                        tv_error *err) {
    DIR *d = opendir(dir);
    if (!d) return tv_store_errno(err, errno, "failed to read directory", dir);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) fn(ctx, e->d_name);
    closedir(d);
    return TROVE_OK;
}
