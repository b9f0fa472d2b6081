/*
 * store_int.h — private to the store layer's .c files (and its tests): the system-call
 * wrappers that consult the fault hook, and error helpers.
 */
#ifndef TROVE_STORE_INT_H
#define TROVE_STORE_INT_H

#include <sys/types.h>

#include "store/store.h"

/* write(2) / fsync or fdatasync, failing instead when the hook says so. */
ssize_t tv_store_sys_write(int fd, const void *p, size_t n);
/* True (errno set) when the write fault hook fails this write: for writes
 * that do not go through tv_store_sys_write (the translog's mapping). */
bool tv_store_write_faults(void);
int tv_store_sys_sync(int fd, bool data_only);
/* Writes all n bytes (retrying short writes and EINTR); TROVE_EIO with
 * errno set on failure. */
tv_status tv_store_write_all(int fd, const void *p, size_t n);
/* TROVE_EIO with reason "<what> [<path>]: <strerror(e)>". */
tv_status tv_store_errno(tv_error *err, int e, const char *what, const char *path);

#endif /* TROVE_STORE_INT_H */
