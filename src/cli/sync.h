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

#endif /* TROVE_CLI_SYNC_H */
