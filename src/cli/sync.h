/*
 * sync.h — `trove sync` (sync.c), called by main.c: returns the process
 * exit status (0 on success) and prints what went wrong on stderr.
 */
#ifndef TROVE_CLI_SYNC_H
#define TROVE_CLI_SYNC_H

#include <stdio.h>

/* `trove sync [drop] --pg CONNINFO --tables T[,T...] ...` (argv[1] is "sync"). */
int tv_cli_sync(int argc, char **argv);
/* Its help text. */
void tv_cli_sync_usage(FILE *out);

typedef struct trove_node trove_node;
/* `trove serve --data DIR --sync CONFIG`: starts the feed of CONFIG on a
 * thread of its own, writing into node in process, and registers it for
 * GET /_trove/sync. Call with SIGINT/SIGTERM blocked (the server takes
 * them). Returns 0, or 1 with the reason on stderr. */
int tv_cli_sync_start(trove_node *node, const char *config);
/* Stops that feed (it sends what it holds and writes its checkpoint),
 * waits for it and unregisters it. No-op when none was started. */
void tv_cli_sync_stop(trove_node *node);

#endif /* TROVE_CLI_SYNC_H */
