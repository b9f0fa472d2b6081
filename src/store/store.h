/*
 * store.h — where data lives on disk: the data directory's lock, files
 * written atomically, and the translog. Below index (the engine decides
 * what a translog record says; this layer only frames, checksums, writes,
 * syncs and reads records back). Uses util only.
 *
 * fsync discipline (the whole of it lives here):
 *   - a new file is written to NAME.tmp, fsynced, renamed over NAME, and
 *     the directory fsynced (tv_store_write_atomic): after a crash NAME is
 *     either the old bytes or the new ones, never a mix;
 *   - a new directory is fsynced with its parent before anything relies on
 *     it (tv_store_mkdir);
 *   - the translog is appended with write(2) and made durable by
 *     tv_translog_sync (fdatasync), which callers run before they
 *     acknowledge (index.translog.durability: request) or on a timer
 *     (async).
 * Every write, fsync and rename goes through the fault hook
 * (tv_store_fault_arm), so tests can make the Nth one fail.
 *
 * Ownership: every tv_translog is owned by its opener and closed with
 * tv_translog_close; paths are borrowed for the duration of a call.
 *
 * Files:
 *   fs.c          the data directory's lock, the file operations (atomic
 *                 writes, directories) and the fault hook every write,
 *                 fsync and rename passes through
 *   translog.c    the append-only translog: appends through a mapped window
 *                 of a preallocated file, group-commit syncs, recovery
 */
#ifndef TROVE_STORE_H
#define TROVE_STORE_H

#include "util/util.h"

/* ------------------------------------------------------------ directories */

/* An exclusively locked data directory (flock on DIR/node.lock). */
typedef struct tv_store_lock tv_store_lock;

/* Creates dir (and its parents) if needed and takes its lock. A directory
 * another process holds gives TROVE_EILLEGALSTATE with OpenSearch's wording
 * ("failed to obtain node locks, tried [DIR]; maybe these locations are not
 * writable or multiple nodes were started on the same data path"). */
tv_status tv_store_lock_dir(const char *dir, tv_store_lock **out, tv_error *err);
void tv_store_unlock(tv_store_lock *l); /* NULL is a no-op */

/* mkdir + fsync of the new directory's parent. An existing directory is
 * TROVE_OK. */
tv_status tv_store_mkdir(const char *path, tv_error *err);
/* Removes a directory and everything below it (not following symlinks),
 * then fsyncs its parent. A missing path is TROVE_OK. */
tv_status tv_store_remove_tree(const char *path, tv_error *err);
/* Renames (atomically, on one filesystem) and fsyncs the parent of `to`. */
tv_status tv_store_rename(const char *from, const char *to, tv_error *err);
/* fsync of a directory. */
tv_status tv_store_sync_dir(const char *dir, tv_error *err);

/* Writes bytes to path atomically (tmp file, fsync, rename, fsync dir). */
tv_status tv_store_write_atomic(const char *path, const void *bytes, size_t len, tv_error *err);
/* Reads a whole file into a tv_malloc'd buffer (NUL-terminated, *len
 * without the NUL). TROVE_ENOTFOUND when it does not exist. */
tv_status tv_store_read_file(const char *path, char **out, size_t *len, tv_error *err);

/* Maps a whole file read-only (MAP_SHARED: pages come from the page cache,
 * nothing is read until touched). TROVE_ENOTFOUND when it does not exist;
 * an empty file is TROVE_ECORRUPT (nothing to map). */
tv_status tv_store_map(const char *path, const uint8_t **out, size_t *len, tv_error *err);
void tv_store_unmap(const uint8_t *p, size_t len);

/* Calls fn for each entry of dir (not "." or ".."), in no order. */
tv_status tv_store_list(const char *dir, void (*fn)(void *ctx, const char *name), void *ctx,
                        tv_error *err);

/* ------------------------------------------------------------ fault hook */

typedef enum tv_store_op {
    TV_STORE_OP_WRITE = 0, /* write(2) of any store file */
    TV_STORE_OP_SYNC,      /* fsync / fdatasync of a file or directory */
    TV_STORE_OP_RENAME,
    TV_STORE_OP_COUNT_
} tv_store_op;

/* Makes the nth next call of op (1 = the next one) fail with errno_value
 * (EIO, ENOSPC, ...); every later call too when sticky, else only that
 * one. n == 0 disarms. Process-wide; for tests. */
void tv_store_fault_arm(tv_store_op op, uint64_t n, int errno_value, bool sticky);
/* Arms faults from a spec such as "write:120:ENOSPC", "sync:3:EIO:sticky"
 * (the server reads it from the TROVE_TEST_FAULT environment variable).
 * false when the spec is malformed. */
bool tv_store_fault_arm_spec(const char *spec);

/* -------------------------------------------------------------- translog */

/*
 * An append-only log of records, each durable once tv_translog_sync
 * returns. File format (version 1, little-endian):
 *   [0,8)   magic "TROVETLG"
 *   [8,12)  u32 version (1)
 *   [12,16) u32 xxh32 of bytes [0,12)
 *   records, each: u32 body length (1 .. TV_TRANSLOG_MAX_RECORD), u32
 *   xxh32 of those 4 bytes, u32 xxh32 of the body, the body.
 * Recovery (tv_translog_open): records are read in order until the end.
 * What a crash during an append leaves is a torn tail: a frame or body cut
 * short by the end of the file, a last record whose body fails its
 * checksum, or zeros to the end. It holds an operation nobody was told
 * succeeded, and is cut off (the file truncated and synced). Anything else
 * (a bad header, a length whose checksum fails with non-zero bytes around
 * it, a bad body with more records after it) is corruption: TROVE_ECORRUPT
 * and the file untouched. The length's own checksum is what keeps a
 * damaged length from passing as a record cut short.
 */
#define TV_TRANSLOG_MAX_RECORD (1u << 30)

typedef struct tv_translog tv_translog;

/* Opens (creating when missing) the translog at path and calls fn with
 * each record's body (borrowed for the call) in order; fn returning
 * non-OK stops the replay with that status. Returns owned. */
tv_status tv_translog_open(const char *path, tv_status (*fn)(void *ctx, const uint8_t *body, size_t len),
                           void *ctx, tv_translog **out, tv_error *err);
/* Replays the records of a translog's bytes b[0,n) (path names it in
 * errors); *valid is the length of the prefix of whole, valid records,
 * where appends continue. fn may be NULL. (What open does with the file;
 * the translog fuzz target calls it directly.) */
tv_status tv_translog_scan(const char *path, const uint8_t *b, size_t n,
                          tv_status (*fn)(void *, const uint8_t *, size_t), void *ctx, size_t *valid,
                          tv_error *err);

/* Appends one record (not yet durable). On failure nothing of it stays in
 * the file (it is truncated back) and TROVE_EIO says why. Not thread-safe
 * against other appends (the index's writer lock orders them). */
tv_status tv_translog_append(tv_translog *t, const void *body, size_t len, tv_error *err);
/* Makes every record appended so far durable. Thread-safe; concurrent
 * callers share one fdatasync. After a failed sync the translog refuses
 * appends until reopened (the kernel may have dropped the unsynced pages,
 * so a later sync could not be believed). */
tv_status tv_translog_sync(tv_translog *t, tv_error *err);
/* Whether records were appended since the last successful sync. */
bool tv_translog_dirty(tv_translog *t);
/* Whether a sync failed (appends and syncs refused until reopened). */
bool tv_translog_failed(tv_translog *t);
/* Bytes in the file. */
uint64_t tv_translog_size(tv_translog *t);
/* Another reference to t (a syncer holds one across its sync, so that a
 * commit replacing the translog cannot close it under the sync). */
tv_translog *tv_translog_retain(tv_translog *t);
/* Drops a reference; the last one syncs (best effort) and closes. NULL is
 * a no-op. */
void tv_translog_close(tv_translog *t);

#endif /* TROVE_STORE_H */
