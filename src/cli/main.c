/*
 * main.c — the `trove` command. For now: `trove --version`. The server
 * (`trove serve`) and the other subcommands arrive with their issues.
 */
#include <stdio.h>
#include <string.h>

#include "trove.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: trove --version\n"
            "       trove help\n");
}

int main(int argc, char **argv) {
    if (argc >= 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0)) {
        printf("trove %s (OpenSearch %s API)\n", trove_version(), TROVE_OPENSEARCH_VERSION);
        return 0;
    }
    if (argc >= 2 && (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    usage(stderr);
    return 2;
}
