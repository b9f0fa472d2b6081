/*
 * feed.c — one PostgreSQL feed (work in progress).
 */
#include "sync/sync.h"
