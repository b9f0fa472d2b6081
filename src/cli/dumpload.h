/*
 * dumpload.h — `trove dump` and `trove load` (dumpload.c), called by main.c.
 * Both return the process exit status (0 on success) and print what went
 * wrong on stderr.
 */
#ifndef TROVE_CLI_DUMPLOAD_H
#define TROVE_CLI_DUMPLOAD_H

/* Writes out/INDEX.index.json and out/INDEX.ndjson from the index in the
 * data directory dir, or (url not NULL) of the server at url (creating out
 * if needed). */
int tv_cli_dump(const char *index, const char *dir, const char *url, const char *out);
/* Creates every index of the dump directory in (its INDEX.index.json) in
 * the data directory dir and loads its INDEX.ndjson. */
int tv_cli_load(const char *in, const char *dir);

#endif /* TROVE_CLI_DUMPLOAD_H */
