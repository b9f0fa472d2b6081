/*
 * bench_http_clone.c — the client side of the server rows of the fixture
 * benchmark (bench/fixture/run drives it; bench_fixture has the in-process
 * rows). A benchmark, never a test: it prints figures.
 *
 *   bench_http_clone --start-ready TROVE SEED RUNS [SERVER_ARG...]
 *   bench_http_clone --clones URL ROUNDS [EXPECTED_COUNT]
 *   bench_http_clone --writes URL N
 *   bench_http_clone --make-clones URL N
 *   bench_http_clone --req URL METHOD PATH
 *
 * --start-ready spawns `TROVE serve --port 0 --seed SEED --ready-json
 * [SERVER_ARG...]` RUNS times (after 5 warm-ups) with posix_spawn, its
 * stdin and stdout on pipes and stderr on /dev/null, and times from just
 * before posix_spawn to reading the ready line's newline; it then closes
 * the server's stdin (the way a test helper stops it) and reaps it, outside
 * the timing. --clones times, over ONE keep-alive connection to URL, rounds
 * of GET / (the floor of a request), POST /_trove/clones (the 201
 * {"id","url"} is parsed) and DELETE /_trove/clones/{id}, each request
 * timed alone; then rounds of "clone + first _count": POST /_trove/clones,
 * a new connection to the clone's url and GET /items/_count on it (its
 * count is checked against EXPECTED_COUNT when given), with the connection
 * and _count part also reported alone; the DELETE follows, untimed.
 * --writes times N single-document PUT /items/_doc/wI?refresh=true with
 * item-like bodies over one keep-alive connection. --make-clones creates N
 * clones and leaves them; --req makes one request and prints the body
 * (both are helpers for the script's RSS rows).
 *
 * Output: one line per row, `ROW name median_us=… p90_us=… p99_us=…
 * min_us=… mean_us=… max_us=… n=…`, for the script to tabulate; other lines are
 * comments. Every status is checked; any surprise exits non-zero.
 *
 * The HTTP/1.1 client is the minimum that is still correct for keep-alive:
 * a request goes out in one send (head and body), and exactly one response
 * is read back: bytes up to the blank line, the status line, Content-Length
 * (required: trove never sends chunked answers, and one that did would be
 * refused here rather than misread), then exactly that many body bytes;
 * bytes past that response fail the run (a client that waits for each
 * answer cannot have a second one pending). "connection:
 * close" ends the connection and is an error in the timed modes, since a
 * reconnect would be measured as a request. Sockets have TCP_NODELAY and
 * 10 s send/receive timeouts, so a hung server fails the run instead of
 * stalling it.
 *
 * Rejected: curl or wrk from the script (a process per request, or a load
 * generator's latency histogram instead of per-request figures for an
 * interleaved sequence); libcurl (a dependency for five requests); timing
 * the start in Python (Popen and readline add their own hundreds of
 * microseconds, which is what test_fixture_contract.py's timing mode
 * measures); fork+exec instead of posix_spawn (glibc's posix_spawn uses
 * CLONE_VFORK, which is what a well-behaved helper pays).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

extern char **environ;

static void die(const char *what, const char *detail) {
    fprintf(stderr, "bench_http_clone: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

#include "http_rx.h" /* after die(), which it calls */

static double *samples(int n) {
    double *t = malloc(sizeof *t * (size_t)(n > 0 ? n : 1));
    if (!t) die("out of memory", NULL);
    return t;
}

/* Sorts t[0..n) and prints the row's line. */
static void report(const char *row, double *t, int n) {
    double sum = 0;
    for (int i = 0; i < n; i++) sum += t[i];
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    printf("ROW %s median_us=%.1f p90_us=%.1f p99_us=%.1f min_us=%.1f mean_us=%.1f max_us=%.1f n=%d\n", row,
           t[n / 2], t[(int)(n * 0.9)], t[(int)(n * 0.99)], t[0], sum / n, t[n - 1], n);
    fflush(stdout);
}

/* ------------------------------------------------------------ HTTP client */

typedef struct {
    http_rx rx; /* the socket and the bytes received */
    char host[64];
    int port;
} conn;

typedef struct {
    int status;
    const char *body; /* NUL-terminated, borrowed until the next request */
    size_t body_len;
} resp;

/* Parses "http://HOST:PORT" (no path) into host and port. */
static void parse_url(const char *url, char *host, size_t hcap, int *port) {
    const char *p = strncmp(url, "http://", 7) == 0 ? url + 7 : url;
    const char *colon = strrchr(p, ':');
    if (!colon || (size_t)(colon - p) >= hcap) die("bad url", url);
    memcpy(host, p, (size_t)(colon - p));
    host[colon - p] = 0;
    *port = atoi(colon + 1);
    if (*port <= 0 || *port > 65535) die("bad url", url);
}

static void conn_open(conn *c, const char *url) {
    memset(c, 0, sizeof *c);
    parse_url(url, c->host, sizeof c->host, &c->port);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)c->port)};
    if (inet_pton(AF_INET, c->host, &a.sin_addr) != 1) die("not an IPv4 address", c->host);
    int fd = c->rx.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket", strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timeval tv = {.tv_sec = 10};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) die("connect", url);
}

static void conn_close(conn *c) {
    if (c->rx.fd >= 0) close(c->rx.fd);
    c->rx.fd = -1;
    free(c->rx.buf);
    c->rx.buf = NULL;
    c->rx.len = c->rx.cap = 0;
}

/* Sends one request and reads exactly one response into *r. A client that
 * waits for each answer has nothing buffered between responses: bytes past
 * the one response would be a second, unasked-for answer, and fail the
 * run, as they would mean a framing error on one side or the other. */
static void http(conn *c, const char *method, const char *path, const char *body, resp *r) {
    if (c->rx.closed) die("request on a closed connection", path);
    size_t blen = body ? strlen(body) : 0;
    char head[1024];
    int hn = snprintf(head, sizeof head,
                      "%s %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                      "Content-Length: %zu\r\n\r\n",
                      method, path, c->host, c->port, blen);
    if (hn < 0 || (size_t)hn >= sizeof head) die("request head too long", path);
    char *out = malloc((size_t)hn + blen);
    if (!out) die("out of memory", NULL);
    memcpy(out, head, (size_t)hn);
    if (blen) memcpy(out + hn, body, blen);
    for (size_t off = 0, n = (size_t)hn + blen; off < n;) {
        ssize_t k = send(c->rx.fd, out + off, n - off, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) die("send", strerror(errno));
        off += (size_t)k;
    }
    free(out);
    r->status = http_rx_response(&c->rx, &r->body, &r->body_len, path);
}

static void expect(const resp *r, int want, const char *what) {
    if (r->status != want) {
        fprintf(stderr, "%s -> %d: %.400s\n", what, r->status, r->body);
        die("unexpected status", what);
    }
}

/* Copies the JSON string value of "key" in body into out (no escapes are
 * expected: ids and loopback urls). */
static void json_str_field(const char *body, const char *key, char *out, size_t cap) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(body, pat);
    if (!p) die("field missing", key);
    p += strlen(pat);
    const char *e = strchr(p, '"');
    if (!e || (size_t)(e - p) >= cap) die("bad field", key);
    memcpy(out, p, (size_t)(e - p));
    out[e - p] = 0;
}

/* POST /_trove/clones on c; fills id and url. */
static void clone_create(conn *c, char *id, size_t idcap, char *url, size_t urlcap) {
    resp r;
    http(c, "POST", "/_trove/clones", NULL, &r);
    expect(&r, 201, "POST /_trove/clones");
    json_str_field(r.body, "id", id, idcap);
    json_str_field(r.body, "url", url, urlcap);
}

static void clone_delete(conn *c, const char *id) {
    char path[128];
    snprintf(path, sizeof path, "/_trove/clones/%s", id);
    resp r;
    http(c, "DELETE", path, NULL, &r);
    expect(&r, 200, "DELETE /_trove/clones/{id}");
}

/* ------------------------------------------------------------------ modes */

/* Reads from fd until a newline or EOF, at most timeout_ms in all; true
 * when a line arrived. */
static bool read_line(int fd, int timeout_ms) {
    char b[4096];
    double deadline = now_us() + timeout_ms * 1e3;
    for (;;) {
        int left = (int)((deadline - now_us()) / 1e3);
        if (left <= 0) return false;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int k = poll(&p, 1, left);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        ssize_t n = read(fd, b, sizeof b);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        if (memchr(b, '\n', (size_t)n)) return true;
    }
}

static int mode_start_ready(int argc, char **argv) {
    if (argc < 5) die("usage: --start-ready TROVE SEED RUNS [SERVER_ARG...]", NULL);
    const char *bin = argv[2], *seed = argv[3];
    int runs = atoi(argv[4]);
    if (runs < 1) runs = 1;
    int extra = argc - 5;
    char **av = calloc((size_t)(8 + extra), sizeof *av);
    if (!av) die("out of memory", NULL);
    int k = 0;
    av[k++] = (char *)bin;
    av[k++] = "serve";
    av[k++] = "--port";
    av[k++] = "0";
    av[k++] = "--seed";
    av[k++] = (char *)seed;
    av[k++] = "--ready-json";
    for (int i = 0; i < extra; i++) av[k++] = argv[5 + i];
    av[k] = NULL;
    double *t = samples(runs);
    for (int i = -5; i < runs; i++) {
        int in[2], out[2];
        if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) die("pipe", strerror(errno));
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        pid_t pid;
        double t0 = now_us();
        int rc = posix_spawn(&pid, bin, &fa, NULL, av, environ);
        if (rc != 0) die("posix_spawn", strerror(rc));
        close(in[0]);
        close(out[1]);
        bool ok = read_line(out[0], 10000);
        double t1 = now_us();
        posix_spawn_file_actions_destroy(&fa);
        if (!ok) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            die("no ready line within 10 s", bin);
        }
        close(in[1]); /* stdin EOF: the server stops */
        int st;
        double deadline = now_us() + 10e6;
        while (waitpid(pid, &st, WNOHANG) == 0) {
            if (now_us() > deadline) {
                kill(pid, SIGKILL);
                waitpid(pid, &st, 0);
                die("server did not stop on stdin EOF", bin);
            }
            usleep(200);
        }
        close(out[0]);
        if (i >= 0) t[i] = t1 - t0;
    }
    report("start_ready", t, runs);
    free(t);
    free(av);
    return 0;
}

static int mode_clones(int argc, char **argv) {
    if (argc < 4) die("usage: --clones URL ROUNDS [EXPECTED_COUNT]", NULL);
    int rounds = atoi(argv[3]);
    if (rounds < 1) rounds = 1;
    long want = argc > 4 ? atol(argv[4]) : -1;
    int warm = rounds / 10 < 50 ? 50 : rounds / 10;
    conn c;
    conn_open(&c, argv[2]);
    double *tg = samples(rounds), *tp = samples(rounds), *td = samples(rounds);
    char id[64], url[128];
    resp r;
    for (int i = -warm; i < rounds; i++) {
        double t0 = now_us();
        http(&c, "GET", "/", NULL, &r);
        double t1 = now_us();
        expect(&r, 200, "GET /");
        double t2 = now_us();
        clone_create(&c, id, sizeof id, url, sizeof url);
        double t3 = now_us();
        clone_delete(&c, id);
        double t4 = now_us();
        if (i >= 0) tg[i] = t1 - t0, tp[i] = t3 - t2, td[i] = t4 - t3;
    }
    report("get_root", tg, rounds);
    report("post_clone", tp, rounds);
    report("delete_clone", td, rounds);

    /* clone + first _count on the clone's own port */
    double *tc = samples(rounds), *tq = samples(rounds);
    long count = -1;
    for (int i = -warm; i < rounds; i++) {
        double t0 = now_us();
        clone_create(&c, id, sizeof id, url, sizeof url);
        double t1 = now_us();
        conn cc;
        conn_open(&cc, url);
        http(&cc, "GET", "/items/_count", NULL, &r);
        double t2 = now_us();
        expect(&r, 200, "GET /items/_count on a clone");
        const char *p = strstr(r.body, "\"count\":");
        count = p ? atol(p + 8) : -1;
        if (want >= 0 && count != want) {
            fprintf(stderr, "clone _count: %s\n", r.body);
            die("unexpected count on a clone", NULL);
        }
        conn_close(&cc);
        clone_delete(&c, id);
        if (i >= 0) tc[i] = t2 - t0, tq[i] = t2 - t1;
    }
    report("clone_count", tc, rounds);
    report("clone_count_only", tq, rounds);
    printf("# clone _count: %ld documents\n", count);
    conn_close(&c);
    free(tg);
    free(tp);
    free(td);
    free(tc);
    free(tq);
    return 0;
}

/* An item-like document for write i: title of 3 words, one of 8
 * categories, a price with two decimals, a date in 2024 (a small LCG; the
 * exact values do not matter, only that the documents differ). */
static void item_body(int i, char *buf, size_t cap) {
    static const char *const adj[] = {"Red", "Blue", "Green", "Small", "Large", "Vintage", "Wooden", "Soft"};
    static const char *const mat[] = {"wool", "ceramic", "enamel", "cotton", "glass", "oak", "linen", "copper"};
    static const char *const noun[] = {"scarf", "mug", "teapot", "lamp", "chair", "bowl", "vase", "clock"};
    static const char *const cat[] = {"clothing", "kitchen", "garden", "toys", "books", "office", "decor", "bath"};
    uint32_t x = (uint32_t)i * 2654435761u + 12345u;
#define NEXT() (x = x * 1103515245u + 12345u, x >> 16)
    unsigned a = NEXT() % 8, m = NEXT() % 8, n = NEXT() % 8, k = NEXT() % 8;
    unsigned cents = 50 + NEXT() % 49950, day = NEXT() % 28 + 1, mon = NEXT() % 12 + 1;
#undef NEXT
    snprintf(buf, cap, "{\"title\":\"%s %s %s\",\"category\":\"%s\",\"price\":%u.%02u,\"created\":\"2024-%02u-%02u\"}",
             adj[a], mat[m], noun[n], cat[k], cents / 100, cents % 100, mon, day);
}

static int mode_writes(int argc, char **argv) {
    if (argc < 4) die("usage: --writes URL N", NULL);
    int n = atoi(argv[3]);
    if (n < 1) n = 1;
    conn c;
    conn_open(&c, argv[2]);
    double *t = samples(n);
    char path[64], body[256];
    resp r;
    double t_all = now_us();
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "/items/_doc/w%d?refresh=true", i);
        item_body(i, body, sizeof body);
        double t0 = now_us();
        http(&c, "PUT", path, body, &r);
        t[i] = now_us() - t0;
        expect(&r, 201, "PUT /items/_doc/ID?refresh=true");
    }
    t_all = now_us() - t_all;
    report("writes", t, n);
    printf("# %d writes in %.3f s\n", n, t_all / 1e6);
    conn_close(&c);
    free(t);
    return 0;
}

static int mode_make_clones(int argc, char **argv) {
    if (argc < 4) die("usage: --make-clones URL N", NULL);
    int n = atoi(argv[3]);
    conn c;
    conn_open(&c, argv[2]);
    char id[64], url[128];
    for (int i = 0; i < n; i++) clone_create(&c, id, sizeof id, url, sizeof url);
    printf("# made %d clones\n", n);
    conn_close(&c);
    return 0;
}

static int mode_req(int argc, char **argv) {
    if (argc < 5) die("usage: --req URL METHOD PATH", NULL);
    conn c;
    conn_open(&c, argv[2]);
    resp r;
    http(&c, argv[3], argv[4], NULL, &r);
    fwrite(r.body, 1, r.body_len, stdout);
    putchar('\n');
    int ok = r.status >= 200 && r.status < 300;
    if (!ok) fprintf(stderr, "bench_http_clone: %s %s -> %d\n", argv[3], argv[4], r.status);
    conn_close(&c);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    const char *m = argc > 1 ? argv[1] : "";
    if (strcmp(m, "--start-ready") == 0) return mode_start_ready(argc, argv);
    if (strcmp(m, "--clones") == 0) return mode_clones(argc, argv);
    if (strcmp(m, "--writes") == 0) return mode_writes(argc, argv);
    if (strcmp(m, "--make-clones") == 0) return mode_make_clones(argc, argv);
    if (strcmp(m, "--req") == 0) return mode_req(argc, argv);
    fprintf(stderr,
            "usage: bench_http_clone --start-ready TROVE SEED RUNS [SERVER_ARG...]\n"
            "       bench_http_clone --clones URL ROUNDS [EXPECTED_COUNT]\n"
            "       bench_http_clone --writes URL N\n"
            "       bench_http_clone --make-clones URL N\n"
            "       bench_http_clone --req URL METHOD PATH\n");
    return 2;
}
