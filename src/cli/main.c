/*
 * main.c — the `trove` command: `trove --version` and `trove serve`.
 *
 * Options are parsed by hand (a handful of --name value pairs, also
 * accepted as --name=value); getopt_long was not worth a dependency on its
 * global state for this. Other subcommands arrive with their issues.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/server.h"
#include "trove.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: trove --version\n"
            "       trove serve [--host 127.0.0.1] [--port 9200] [--threads N] [--idle-timeout SECONDS]\n"
            "       trove help\n");
}

static bool parse_int(const char *s, long lo, long hi, int *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = (int)v;
    return true;
}

static int cmd_serve(int argc, char **argv) {
    tv_server_options o = {.host = "127.0.0.1", .port = 9200, .threads = 0, .idle_timeout_s = 300};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        char name[32];
        const char *eq = strchr(a, '=');
        if (strncmp(a, "--", 2) != 0 || (eq && (size_t)(eq - a) >= sizeof name)) goto bad;
        if (eq) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            v = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
            if (i + 1 >= argc) goto bad;
            v = argv[++i];
        }
        if (strcmp(name, "--host") == 0) {
            o.host = v;
        } else if (strcmp(name, "--port") == 0) {
            if (!parse_int(v, 0, 65535, &o.port)) goto bad;
        } else if (strcmp(name, "--threads") == 0) {
            if (!parse_int(v, 1, 256, &o.threads)) goto bad;
        } else if (strcmp(name, "--idle-timeout") == 0) {
            if (!parse_int(v, 1, 86400, &o.idle_timeout_s)) goto bad;
        } else {
            goto bad;
        }
        continue;
    bad:
        fprintf(stderr, "trove serve: bad option [%s]\n", a);
        usage(stderr);
        return 2;
    }
    trove_error err;
    trove_node *node = trove_node_open(NULL, &err);
    if (!node) {
        fprintf(stderr, "trove: cannot open the node: %s\n", err.message);
        return 1;
    }
    int rc = tv_server_run(node, &o);
    trove_node_free(node);
    return rc;
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
    if (argc >= 2 && strcmp(argv[1], "serve") == 0) return cmd_serve(argc, argv);
    usage(stderr);
    return 2;
}
