/*
 * passwd.h — `trove passwd` (passwd.c), called by main.c: returns the
 * process exit status (0 on success) and prints what went wrong on stderr.
 */
#ifndef TROVE_CLI_PASSWD_H
#define TROVE_CLI_PASSWD_H

#include <stdio.h>

/* `trove passwd NAME --role ROLE [--role ROLE]... [--users FILE]`
 * (argv[1] is "passwd"). */
int tv_cli_passwd(int argc, char **argv);
/* Its help text. */
void tv_cli_passwd_usage(FILE *out);

#endif /* TROVE_CLI_PASSWD_H */
