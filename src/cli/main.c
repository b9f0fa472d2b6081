/*
 * main.c — the `trove` command: `trove --version`, `trove serve`, `trove
 * check DIR` (the data directory's report, tv_durable_check), `trove
 * dump` / `trove load` (dumpload.c) and `trove passwd` (passwd.c).
 *
 * Options are parsed by hand (a handful of --name value pairs, also
 * accepted as --name=value, and a few value-less flags); getopt_long was
 * not worth a dependency on its global state for this. Other subcommands
 * arrive with their issues.
 *
 * Fixture mode. Test suites start `trove serve --port 0 --seed DIR
 * --ready-json` as a child: the seeds are loaded (trove_node_load_seed)
 * before anything listens, then, once every listener is bound, exactly one
 * line goes to stdout, {"url":…,"pid":…,"version":…,"indices":[…]}
 * (everything else goes to stderr), so a helper reads one line and knows
 * the server is ready and where. The process stops on SIGINT/SIGTERM, when
 * its stdin reaches EOF (with --ready-json, unless --no-stdin-watch: a test
 * runner that dies closes the pipe, so no server outlives it) and when the
 * process named by --parent-pid disappears. Those two watches run on one
 * small thread polling stdin and a pidfd of the parent (or, on kernels
 * without pidfd_open, probing it with kill(pid, 0) every 100 ms); when one
 * fires, the thread sends the process SIGTERM, so every way of stopping
 * takes the server's one orderly shutdown path. Rejected: watching inside
 * the event loops (the transport would learn about test fixtures) and
 * PR_SET_PDEATHSIG (it follows the real parent thread, not a named pid).
 *
 * osmem mode. osmem (an in-memory OpenSearch fake) ships test helpers for
 * Python, Node and Java that start their server binary, named by
 * OSMEM_SERVER_BIN, with no subcommand: `BIN --parent-pid N [--seed P]...
 * [--freeze] [--no-ja] [--addr HOST:PORT]`, and expect osmem's defaults
 * (127.0.0.1 and a free port, the ready line, exit on stdin EOF). So
 * `trove` whose first argument is an option runs the server that way:
 * Go's flag spellings (-name and --name, =value or a separate value), the
 * ready line with osmem's "japanese" key (true when trove was built with
 * MeCab, its IPADIC is installed and --no-ja was not given), and the node in osmem's flavour (a frozen base refuses
 * writes with 403 osmem_base_frozen). --allow-dot-names is accepted (trove
 * takes dot-prefixed names as OpenSearch does); --serverless is refused:
 * trove does not emulate OpenSearch Serverless. `trove serve` accepts
 * --addr and --no-ja too.
 * --freeze freezes the node once the seeds are loaded: writes answer 403
 * until POST /_trove/base/unfreeze; clones (POST /_trove/clones) take them.
 *
 * Security, opt-in. --tls-cert FILE --tls-key FILE serve HTTPS (server/
 * tls.c) and --users FILE requires HTTP Basic authentication with roles
 * (server/auth.c; `trove passwd`, passwd.c, writes the file). Both files
 * are read before the node opens, so a bad one stops the command at once
 * with exit status 1 and a message naming the file (and line). `trove
 * serve` on an address other than loopback without --users warns on
 * stderr: anyone who reaches the port could read and change every index.
 * Fixture and osmem modes are unchanged unless these options are given;
 * the ready line's url says https when TLS is on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "api/api.h" /* trove_node_set_frozen (--freeze) */
#include "text/text.h" /* tv_ja_available, tv_ja_disable (--no-ja) */
#include "cli/dumpload.h"
#include "cli/passwd.h"
#include "cli/sync.h"
#include "store/store.h" /* tv_store_fault_arm_spec (TROVE_TEST_FAULT) */
#include "server/server.h"
#include "trove.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: trove --version\n"
            "       trove serve [--host 127.0.0.1] [--port 9200] [--addr HOST:PORT] [--threads N]\n"
            "                   [--idle-timeout SECONDS] [--header-timeout SECONDS] [--max-connections N]\n"
            "                   [--seed PATH]... [--data DIR] [--ready-json]\n"
            "                   [--parent-pid PID] [--no-stdin-watch] [--no-ja] [--freeze]\n"
            "                   [--tls-cert FILE --tls-key FILE] [--users FILE] [--heap SIZE] [--sync CONFIG]\n"
            "                   [--node-attr NAME=VALUE]...\n"
            "           --sync: run the PostgreSQL feed of CONFIG (see trove sync --help) inside the\n"
            "             server, into --data DIR; GET /_trove/sync shows it\n"
            "           --tls-cert/--tls-key: HTTPS (PEM certificate chain and private key; TLS 1.2+);\n"
            "             clone listeners speak TLS too\n"
            "           --header-timeout: a request head not complete this long closes the connection (30)\n"
            "           --max-connections: connections open at once; more are closed on accept (65536)\n"
            "           --node-attr: a custom node attribute (OpenSearch's node.attr.NAME setting),\n"
            "             shown by _nodes, _cat/nodeattrs and the cluster state\n"
            "           --heap: the memory budget the circuit breakers' limits are shares of (\"512mb\";\n"
            "             default half of the machine's memory): requests past it answer 429\n"
            "           --users: HTTP Basic authentication; FILE has lines name:argon2id-hash:roles,\n"
            "             roles read|write|admin[:INDEX-PATTERN],... (see trove passwd --help)\n"
            "       trove [--addr 127.0.0.1:0] [--seed PATH]... [--freeze] [--no-ja] [--parent-pid PID]\n"
            "             [--no-stdin-watch]   (osmem mode: the ready line, 127.0.0.1:0 and stdin watch by default)\n"
            "       trove check DIR   (verifies a data directory; exit 0 when clean)\n"
            "       trove dump INDEX --data DIR|--url URL [--out OUT]   (OUT/INDEX.index.json and OUT/INDEX.ndjson)\n"
            "       trove load OUT --data DIR                 (creates and loads every index of a dump)\n"
            "       trove passwd NAME --role ROLE [--role ROLE]... [--users FILE]\n"
            "                   (password on stdin; prints or stores a --users line)\n"
            "       trove sync --pg CONNINFO --tables T[,T...] (--data DIR | --to URL) [...]\n"
            "                   (PostgreSQL tables kept equal to indices; see trove sync --help)\n"
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

/* ------------------------------------------------------ fixture mode */

typedef struct serve_ctx {
    trove_node *node;
    const char *host;
    bool ready_json;
    bool watch_stdin;
    bool osmem; /* osmem mode: the ready line has "japanese" */
    bool https; /* --tls-cert: the ready line's url is https */
    long parent_pid; /* 0: none */
} serve_ctx;

static void put_json_str(FILE *f, const char *s, size_t n) {
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* The ready line: one JSON object on stdout, flushed. */
static void on_ready(void *ud, int port) {
    serve_ctx *sc = ud;
    if (!sc->ready_json) return;
    /* a wildcard address is reached through loopback */
    const char *host = strcmp(sc->host, "0.0.0.0") == 0 ? "127.0.0.1"
                       : strcmp(sc->host, "::") == 0    ? "::1"
                                                        : sc->host;
    bool v6 = strchr(host, ':') != NULL;
    fprintf(stdout, "{\"url\":\"%s://%s%s%s:%d\",\"pid\":%ld,\"version\":", sc->https ? "https" : "http",
            v6 ? "[" : "", host, v6 ? "]" : "", port, (long)getpid());
    put_json_str(stdout, trove_version(), strlen(trove_version()));
    /* osmem's key: Japanese analysis (built with MeCab, its dictionary
     * found, no --no-ja); `trove serve`'s line keeps its four keys (the
     * fixture contract, tests/api/test_fixture_contract.py) */
    if (sc->osmem) fputs(tv_ja_available() ? ",\"japanese\":true" : ",\"japanese\":false", stdout);
    fputs(",\"indices\":[", stdout);
    trove_response r;
    if (trove_request(sc->node, "GET", "/_cat/indices?h=index&s=index", NULL, 0, &r) == 0) {
        if (r.status == 200) {
            bool first = true;
            for (const char *p = r.body, *e; p && *p; p = *e ? e + 1 : e) {
                e = strchr(p, '\n');
                if (!e) e = p + strlen(p);
                size_t n = (size_t)(e - p);
                while (n && (p[n - 1] == ' ' || p[n - 1] == '\r')) n--;
                if (!n) continue;
                if (!first) fputc(',', stdout);
                put_json_str(stdout, p, n);
                first = false;
            }
        }
        trove_response_fini(&r);
    }
    fputs("]}\n", stdout);
    fflush(stdout);
}

static void *watch_main(void *arg) {
    serve_ctx *sc = arg;
    int pidfd = -1;
#ifdef SYS_pidfd_open
    if (sc->parent_pid > 0) pidfd = (int)syscall(SYS_pidfd_open, (pid_t)sc->parent_pid, 0);
#endif
    const char *why = NULL;
    char buf[4096];
    while (!why) {
        struct pollfd fds[2];
        int n = 0, in_at = -1, pid_at = -1;
        if (sc->watch_stdin) {
            in_at = n;
            fds[n++] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN};
        }
        if (pidfd >= 0) {
            pid_at = n;
            fds[n++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
        }
        int timeout = sc->parent_pid > 0 && pidfd < 0 ? 100 : -1;
        int r = poll(fds, (nfds_t)n, timeout);
        if (r < 0 && errno != EINTR) {
            why = "cannot watch stdin";
            break;
        }
        if (sc->parent_pid > 0 && pidfd < 0 && kill((pid_t)sc->parent_pid, 0) != 0 && errno == ESRCH)
            why = "the parent process is gone";
        if (pid_at >= 0 && r > 0 && fds[pid_at].revents) why = "the parent process is gone";
        if (in_at >= 0 && r > 0 && fds[in_at].revents) {
            ssize_t k = read(STDIN_FILENO, buf, sizeof buf);
            if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN)) why = "stdin closed";
        }
    }
    if (pidfd >= 0) close(pidfd);
    fprintf(stderr, "trove: %s, stopping\n", why);
    fflush(stderr);
    kill(getpid(), SIGTERM);
    return NULL;
}

/* --addr HOST:PORT (IPv6 as [::1]:PORT). host points into a static copy. */
static bool parse_addr(const char *v, const char **host, int *port) {
    static char h[256];
    const char *colon = strrchr(v, ':');
    if (!colon || colon == v) return false;
    size_t n = (size_t)(colon - v);
    const char *hs = v;
    if (v[0] == '[' && colon[-1] == ']') {
        hs = v + 1;
        n -= 2;
    }
    if (n == 0 || n >= sizeof h) return false;
    memcpy(h, hs, n);
    h[n] = '\0';
    if (!parse_int(colon + 1, 0, 65535, port)) return false;
    *host = h;
    return true;
}

#define MAX_SEEDS 64

/* `trove serve` (options from argv[first]), or osmem mode (osmem: its
 * defaults and spellings, see the top of this file). */
/* `trove check DIR`: the report on stdout; exit 0 clean, 1 not clean (or
 * the directory cannot be read: in use, missing), 2 usage. */
static int cmd_check(int argc, char **argv) {
    if (argc != 3 || argv[2][0] == '-') {
        usage(stderr);
        return 2;
    }
    tv_buf report;
    tv_buf_init(&report);
    tv_error err;
    tv_error_clear(&err);
    bool clean = false;
    tv_status st = tv_durable_check(argv[2], &report, &clean, &err);
    if (report.len) fwrite(report.data, 1, report.len, stdout);
    tv_buf_fini(&report);
    if (st) {
        fprintf(stderr, "trove check: %s\n", err.reason);
        return 1;
    }
    return clean ? 0 : 1;
}

/* `trove dump INDEX --data DIR|--url URL [--out OUT]`, `trove load OUT --data DIR`. */
static int cmd_dump_load(int argc, char **argv) {
    bool dump = strcmp(argv[1], "dump") == 0;
    const char *what = NULL, *data = NULL, *out = NULL, *url = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--data") == 0 && i + 1 < argc) data = argv[++i];
        else if (dump && strcmp(argv[i], "--out") == 0 && i + 1 < argc) out = argv[++i];
        else if (dump && strcmp(argv[i], "--url") == 0 && i + 1 < argc) url = argv[++i];
        else if (argv[i][0] != '-' && !what) what = argv[i];
        else goto bad;
    }
    if (!what || !data == !url || (!dump && !data)) goto bad;
    return dump ? tv_cli_dump(what, data, url, out ? out : what) : tv_cli_load(what, data);
bad:
    usage(stderr);
    return 2;
}

static int cmd_serve(int argc, char **argv, int first, bool osmem) {
    tv_server_options o = {.host = "127.0.0.1", .port = osmem ? 0 : 9200, .threads = 0, .idle_timeout_s = 300};
    static serve_ctx sc; /* static: the detached watcher may outlive this frame */
    sc = (serve_ctx){.watch_stdin = true, .ready_json = osmem, .osmem = osmem};
    const char *seeds[MAX_SEEDS];
    int nseeds = 0;
    bool freeze = false;
    const char *data_dir = NULL, *tls_cert = NULL, *tls_key = NULL, *users_file = NULL, *sync_config = NULL;
    int64_t heap = 0; /* --heap: the breakers' budget (0: half of memory) */
    const char *attrs[MAX_SEEDS];
    size_t nattrs = 0;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i], *v = NULL, *given = argv[i];
        char name[32], dashed[64];
        if (osmem && a[0] == '-' && a[1] != '-' && a[1]) { /* Go's flag package: -name == --name */
            snprintf(dashed, sizeof dashed, "-%s", a);
            a = dashed;
        }
        const char *eq = strchr(a, '=');
        if (strncmp(a, "--", 2) != 0 || (eq && (size_t)(eq - a) >= sizeof name)) goto bad;
        if (!eq && osmem && strcmp(a, "--allow-dot-names") == 0) continue;
        if (!eq) {
            /* flags without a value */
            if (strcmp(a, "--help") == 0) {
                usage(stdout);
                return 0;
            }
            if (strcmp(a, "--ready-json") == 0) {
                sc.ready_json = true;
                continue;
            }
            if (strcmp(a, "--no-stdin-watch") == 0) {
                sc.watch_stdin = false;
                continue;
            }
            if (strcmp(a, "--no-ja") == 0) { /* the kuromoji components answer 400 */
                tv_ja_disable();
                continue;
            }
            if (strcmp(a, "--freeze") == 0) {
                freeze = true; /* frozen base once seeded (POST /_trove/base/freeze) */
                continue;
            }
        }
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
        } else if (strcmp(name, "--addr") == 0) {
            if (!parse_addr(v, &o.host, &o.port)) goto bad;
        } else if (strcmp(name, "--threads") == 0) {
            if (!parse_int(v, 1, 256, &o.threads)) goto bad;
        } else if (strcmp(name, "--idle-timeout") == 0) {
            if (!parse_int(v, 1, 86400, &o.idle_timeout_s)) goto bad;
        } else if (strcmp(name, "--header-timeout") == 0) {
            if (!parse_int(v, 1, 86400, &o.header_timeout_s)) goto bad;
        } else if (strcmp(name, "--max-connections") == 0) {
            if (!parse_int(v, 1, 10000000, &o.max_connections)) goto bad;
        } else if (strcmp(name, "--seed") == 0) {
            if (nseeds == MAX_SEEDS || !*v) goto bad;
            seeds[nseeds++] = v;
        } else if (strcmp(name, "--data") == 0) {
            if (!*v) goto bad;
            data_dir = v;
        } else if (strcmp(name, "--sync") == 0) {
            if (!*v) goto bad;
            sync_config = v;
        } else if (strcmp(name, "--tls-cert") == 0) {
            if (!*v) goto bad;
            tls_cert = v;
        } else if (strcmp(name, "--tls-key") == 0) {
            if (!*v) goto bad;
            tls_key = v;
        } else if (strcmp(name, "--users") == 0) {
            if (!*v) goto bad;
            users_file = v;
        } else if (strcmp(name, "--node-attr") == 0) {
            if (nattrs == MAX_SEEDS || !strchr(v, '=') || *v == '=') goto bad;
            attrs[nattrs++] = v;
        } else if (strcmp(name, "--heap") == 0) {
            /* the breakers' budget: a byte size ("512mb") */
            if (!tv_parse_byte_size(v, strlen(v), &heap) || heap <= 0) goto bad;
        } else if (osmem && strcmp(name, "--serverless") == 0) {
            fprintf(stderr, "trove: --serverless is not supported: trove does not emulate OpenSearch Serverless\n");
            return 2;
        } else if (strcmp(name, "--parent-pid") == 0) {
            int pid;
            if (!parse_int(v, 1, 0x3fffffff, &pid)) goto bad;
            sc.parent_pid = pid;
        } else {
            goto bad;
        }
        continue;
    bad:
        fprintf(stderr, "trove%s: bad option [%s]\n", osmem ? "" : " serve", given);
        usage(stderr);
        return 2;
    }
    if (!tls_cert != !tls_key) {
        fprintf(stderr, "trove: --tls-cert and --tls-key go together\n");
        return 2;
    }
    /* the security files first: a bad one fails before anything loads */
    char why[512];
    tv_tls *tls = NULL;
    tv_users *users = NULL;
    if (tls_cert && !(tls = tv_tls_new(tls_cert, tls_key, why, sizeof why))) {
        fprintf(stderr, "trove: %s\n", why);
        return 1;
    }
    if (users_file && !(users = tv_users_load(users_file, why, sizeof why))) {
        fprintf(stderr, "trove: %s\n", why);
        tv_tls_free(tls);
        return 1;
    }
    o.tls = tls;
    o.users = users;
    sc.https = tls != NULL;
    if (!osmem && !users && strcmp(o.host, "127.0.0.1") != 0 && strcmp(o.host, "::1") != 0 &&
        strcmp(o.host, "localhost") != 0)
        fprintf(stderr,
                "trove: warning: serving %s without --users: anyone who can reach this address can read "
                "and change every index (see trove passwd --help)\n",
                o.host);
    trove_error err;
    const char *fault = getenv("TROVE_TEST_FAULT"); /* fault tests: "write:N[:ENOSPC][:sticky]" */
    if (fault && *fault && !tv_store_fault_arm_spec(fault)) {
        fprintf(stderr, "trove: bad TROVE_TEST_FAULT [%s]\n", fault);
        tv_users_free(users);
        tv_tls_free(tls);
        return 2;
    }
    trove_options no = {.data_dir = data_dir, .heap_bytes = heap, .node_attrs = attrs, .n_node_attrs = nattrs};
    trove_node *node = trove_node_open(&no, &err);
    if (!node) {
        fprintf(stderr, "trove: cannot open the node: %s\n", err.message);
        tv_users_free(users);
        tv_tls_free(tls);
        return 1;
    }
    for (int i = 0; i < nseeds; i++) {
        if (trove_node_load_seed(node, seeds[i], &err) != 0) {
            fprintf(stderr, "trove: cannot load seed: %s\n", err.message);
            trove_node_free(node);
            tv_users_free(users);
            tv_tls_free(tls);
            return 1;
        }
    }
    if (osmem) trove_node_set_osmem_flavor(node, true);
    if (freeze) trove_node_set_frozen(node, true);
    sc.node = node;
    sc.host = o.host;
    if (!sc.ready_json) sc.watch_stdin = false;
    o.on_ready = on_ready;
    o.on_ready_ud = &sc;
    if (sc.watch_stdin || sc.parent_pid > 0) {
        /* the watcher stops the server with SIGTERM: block it first, so that
         * it reaches the server's sigwait, not this thread's default action */
        sigset_t sigs;
        sigemptyset(&sigs);
        sigaddset(&sigs, SIGINT);
        sigaddset(&sigs, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &sigs, NULL);
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&at, 64 * 1024);
        int prc = pthread_create(&t, &at, watch_main, &sc);
        pthread_attr_destroy(&at);
        if (prc != 0) {
            fprintf(stderr, "trove: cannot start the stdin/parent watcher\n");
            trove_node_free(node);
            tv_users_free(users);
            tv_tls_free(tls);
            return 1;
        }
    }
    if (sync_config) {
        /* the feed's thread must leave SIGINT/SIGTERM to the server's sigwait */
        sigset_t sigs;
        sigemptyset(&sigs);
        sigaddset(&sigs, SIGINT);
        sigaddset(&sigs, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &sigs, NULL);
        if (!data_dir) {
            fprintf(stderr, "trove: --sync needs --data DIR (the feed's checkpoint must survive a restart)\n");
            trove_node_free(node);
            tv_users_free(users);
            tv_tls_free(tls);
            return 2;
        }
        if (tv_cli_sync_start(node, sync_config) != 0) {
            trove_node_free(node);
            tv_users_free(users);
            tv_tls_free(tls);
            return 1;
        }
    }
    int rc = tv_server_run(node, &o);
    tv_cli_sync_stop(node);
    trove_node_free(node);
    tv_users_free(users);
    tv_tls_free(tls);
    return rc;
}

int main(int argc, char **argv) {
    if (argc >= 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-version") == 0 ||
                      strcmp(argv[1], "version") == 0)) {
        printf("trove %s (OpenSearch %s API)\n", trove_version(), TROVE_OPENSEARCH_VERSION);
        return 0;
    }
    if (argc >= 2 && (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "serve") == 0) return cmd_serve(argc, argv, 2, false);
    if (argc >= 2 && strcmp(argv[1], "check") == 0) return cmd_check(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "passwd") == 0) return tv_cli_passwd(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "sync") == 0) return tv_cli_sync(argc, argv);
    if (argc >= 2 && (strcmp(argv[1], "dump") == 0 || strcmp(argv[1], "load") == 0)) return cmd_dump_load(argc, argv);
    if (argc >= 2 && argv[1][0] == '-') return cmd_serve(argc, argv, 1, true); /* osmem mode */
    usage(stderr);
    return 2;
}
