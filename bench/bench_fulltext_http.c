/*
 * bench_fulltext_http.c — trove over HTTP as a peer of the full-text
 * benchmark (bench/fulltext/README.md has the protocol; bench/fulltext/run
 * drives it). Next to bench_fulltext_trove (the same requests through
 * trove_request in process) it measures what the transport adds to a
 * query: the HTTP server, the sockets and a client that does nothing else.
 * A benchmark, never a test.
 *
 *   bench_fulltext_http INDEX_DIR DOCS.ndjson
 *
 * The server. `TROVE serve --host 127.0.0.1 --port 0 --ready-json
 * --parent-pid PEER --idle-timeout 86400` is started with posix_spawn, in
 * memory (INDEX_DIR stays empty); TROVE is $TROVE_SERVER, or the `trove`
 * next to this program's own executable (the build directory has both).
 * Its one ready line on stdout names its url (the free port) and pid; its
 * stderr is ours. It stops when its stdin, a pipe from this process,
 * reaches EOF: closed on exit, or by the kernel when this process dies, so
 * no server outlives its peer (--parent-pid covers the same case once more).
 * The day-long idle timeout keeps the keep-alive connections open while the
 * harness indexes with the other engines.
 *
 * Indexing and queries are bench_fulltext_trove's, byte for byte
 * (bench/fulltext_trove.h: the mapping, the _bulk lines in batches of
 * about 4 MB, one refresh, POST /ft/_forcemerge?max_num_segments=1,
 * index_bytes from GET /ft/_stats/store, each query's path and body, and
 * how HITS, UNSUPPORTED and ERROR are read from the answer), so the
 * difference between the two peers is the transport alone. _bulk answers
 * are also checked for "errors":false.
 *
 * Timing. WALL_NS is the client's round trip on a keep-alive connection:
 * from just before the request is sent (head and body in one sendmsg) to
 * the last byte of the response read (its head parsed for Content-Length).
 * CPU_NS is the server process's CPU time for the query: the change of
 * the sum over its threads of /proc/PID/task/TID/schedstat's first field
 * (nanoseconds on CPU), read before sending and after receiving. The kernel
 * updates that field when a thread stops running (or on a tick), not while
 * it runs, and a server thread may still be finishing (writev returning,
 * epoll_wait) when the client has the answer; so each reading first waits,
 * yielding, until no server thread is in state R (at most 2 ms), and reads
 * the counters after that. The files stay open (one pread each). The
 * thread list is read once, after indexing: `trove serve` starts all its
 * threads before its ready line.
 *
 * Connections. One by default (engine "trove-http"). With
 * TROVE_HTTP_CONNECTIONS=2 (engine "trove-http2") two threads own one
 * connection each; for every query line both are released together (a
 * pthread barrier) and send the same request, one outstanding request per
 * connection (closed loop); WALL_NS is the mean of the two round trips,
 * CPU_NS the server's CPU delta over 2, and the two HITS must agree (else
 * ERROR). The server spreads connections over its event loops with
 * SO_REUSEPORT, which hashes the client's port: two connections land on
 * the same loop (and then wait for each other) by chance. So each
 * connection's loop is found once before READY (a few GET / on it alone,
 * and the server thread whose CPU time grew) and the second connection is
 * reopened until the two differ (up to 64 tries; READY says
 * "distinct_loops"). Nothing is pinned to a CPU.
 *
 * READY has, besides the protocol's fields, "connections",
 * "server_threads" and "server_rss_bytes" (the server's VmRSS then); the
 * harness's RSS figures are this client's, not the server's.
 *
 * The HTTP/1.1 client is the minimum that is correct for keep-alive (the
 * response reading is bench/http_rx.h, shared with bench_http_clone.c):
 * one response per request, Content-Length required
 * (trove sends no chunked answers; one would be refused, not misread),
 * bytes past the response fail the run, "connection: close" reopens the
 * connection before the next request (outside the timing). Buffers (the
 * request head, the received bytes, the query body) are reused, so a query
 * allocates nothing once they have grown. No socket timeout: a hung server
 * hangs this peer as a hung engine would hang bench_fulltext_trove.
 *
 * Rejected: libcurl (its own per-request bookkeeping would be measured as
 * trove's); timing from the harness (Python adds tens of microseconds);
 * the server's own CPU clock through clock_getcpuclockid (like schedstat, it
 * does not count the running slice of a thread on another CPU, and it
 * needs a thread-group walk per read as well).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fulltext_trove.h"
#include "util/util.h"

extern char **environ;

static pid_t server_pid = -1;
static int server_stdin = -1;

static void die(const char *what, const char *detail) {
    fprintf(stderr, "bench_fulltext_http: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    if (server_pid > 0) kill(server_pid, SIGKILL);
    exit(1);
}

#include "http_rx.h" /* after die(), which it calls */

static int64_t ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ------------------------------------------------------------ the server */

/* Starts the server; returns its port, its version in version. */
static int server_start(const char *bin, char *version, size_t vcap) {
    if (access(bin, X_OK) != 0) die("no trove server binary (set TROVE_SERVER)", bin);
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) die("pipe", strerror(errno));
    char ppid[24];
    snprintf(ppid, sizeof ppid, "%ld", (long)getpid());
    char *av[] = {(char *)bin, "serve", "--host", "127.0.0.1", "--port", "0", "--ready-json", "--parent-pid", ppid,
                  "--idle-timeout", "86400", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    int rc = posix_spawn(&server_pid, bin, &fa, NULL, av, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) die("posix_spawn", strerror(rc));
    close(in[0]);
    close(out[1]);
    server_stdin = in[1];

    /* the ready line: {"url":"http://127.0.0.1:PORT","pid":...,"version":...} */
    char line[4096];
    size_t n = 0;
    int64_t deadline = ns() + 120 * (int64_t)1000000000;
    while (!memchr(line, '\n', n)) {
        int left = (int)((deadline - ns()) / 1000000);
        if (left <= 0 || n + 1 >= sizeof line) die("no ready line from the server", bin);
        struct pollfd p = {.fd = out[0], .events = POLLIN};
        int k = poll(&p, 1, left);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) continue;
        ssize_t r = read(out[0], line + n, sizeof line - 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) die("the server exited before its ready line", bin);
        n += (size_t)r;
    }
    close(out[0]); /* nothing more comes on stdout (the server ignores SIGPIPE) */
    line[n] = 0;
    tv_arena a;
    tv_arena_init(&a);
    tv_json *j;
    if (tv_json_parse(&a, line, strcspn(line, "\n"), &j, NULL) != TROVE_OK) die("bad ready line", line);
    const tv_json *url = tv_json_get(j, "url"), *pid = tv_json_get(j, "pid"), *ver = tv_json_get(j, "version");
    if (!url || url->type != TV_JSON_STRING || !ver || ver->type != TV_JSON_STRING || !pid) die("bad ready line", line);
    const char *colon = memrchr(url->v.s, ':', url->len);
    int port = colon ? atoi(colon + 1) : 0;
    if (port <= 0 || port > 65535) die("bad url in the ready line", line);
    snprintf(version, vcap, "%.*s", (int)ver->len, ver->v.s);
    tv_arena_fini(&a);
    return port;
}

/* Closes the server's stdin (it stops) and reaps it; SIGKILL after 10 s. */
static void server_stop(void) {
    if (server_pid <= 0) return;
    close(server_stdin);
    int st = 0;
    int64_t deadline = ns() + 10 * (int64_t)1000000000;
    while (waitpid(server_pid, &st, WNOHANG) == 0) {
        if (ns() > deadline) {
            fprintf(stderr, "bench_fulltext_http: the server did not stop on stdin EOF; killing it\n");
            kill(server_pid, SIGKILL);
            waitpid(server_pid, &st, 0);
            break;
        }
        usleep(1000);
    }
    server_pid = -1;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fprintf(stderr, "bench_fulltext_http: the server exited with status %d\n", st);
}

/* The server's threads: their schedstat and stat files, kept open. */
typedef struct {
    int sched_fd, stat_fd;
    int64_t ns; /* on CPU, at the last reading */
} task;

static task *tasks;
static int ntasks;

static void tasks_open(void) {
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%ld/task", (long)server_pid);
    DIR *d = opendir(dir);
    if (!d) die("cannot list the server's threads", dir);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        task *t = realloc(tasks, sizeof *tasks * (size_t)(ntasks + 1));
        if (!t) die("out of memory", NULL);
        tasks = t;
        char p[128];
        snprintf(p, sizeof p, "%s/%s/schedstat", dir, e->d_name);
        tasks[ntasks].sched_fd = open(p, O_RDONLY | O_CLOEXEC);
        snprintf(p, sizeof p, "%s/%s/stat", dir, e->d_name);
        tasks[ntasks].stat_fd = open(p, O_RDONLY | O_CLOEXEC);
        if (tasks[ntasks].sched_fd < 0 || tasks[ntasks].stat_fd < 0) die("cannot open", p);
        tasks[ntasks].ns = 0;
        ntasks++;
    }
    closedir(d);
    if (!ntasks) die("the server has no threads?", dir);
}

static void tasks_close(void) {
    for (int i = 0; i < ntasks; i++) close(tasks[i].sched_fd), close(tasks[i].stat_fd);
    free(tasks);
    tasks = NULL;
    ntasks = 0;
}

/* Whether the thread is running or runnable (state R in its stat line). */
static bool task_running(const task *t) {
    char b[512];
    ssize_t k = pread(t->stat_fd, b, sizeof b - 1, 0);
    if (k <= 0) die("cannot read a server thread's stat", strerror(errno));
    b[k] = 0;
    const char *p = strrchr(b, ')'); /* after "TID (comm)" */
    return p && p[1] == ' ' && p[2] == 'R';
}

/* The server's CPU time so far (ns), once none of its threads is running;
 * each thread's own figure is left in tasks[i].ns. */
static int64_t server_cpu(void) {
    int64_t deadline = 0;
    for (;;) {
        bool busy = false;
        for (int i = 0; i < ntasks && !busy; i++) busy = task_running(&tasks[i]);
        if (!busy) break;
        int64_t now = ns();
        if (!deadline) deadline = now + 2000000;
        else if (now > deadline) break;
        sched_yield();
    }
    int64_t sum = 0;
    for (int i = 0; i < ntasks; i++) {
        char b[128];
        ssize_t k = pread(tasks[i].sched_fd, b, sizeof b - 1, 0);
        if (k <= 0) die("cannot read a server thread's schedstat", strerror(errno));
        b[k] = 0;
        tasks[i].ns = strtoll(b, NULL, 10);
        sum += tasks[i].ns;
    }
    return sum;
}

/* ------------------------------------------------------------ HTTP client */

typedef struct {
    http_rx rx;  /* the socket and the bytes received */
    int port;
    tv_buf head; /* the request head */
    int status;  /* of the last response */
    const char *body; /* its body, NUL-terminated, in rx.buf */
    size_t body_len;
} conn;

static void conn_connect(conn *c) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)c->port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = c->rx.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket", strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) die("connect to the server", strerror(errno));
    c->rx.closed = false;
}

static void conn_open(conn *c, int port) {
    memset(c, 0, sizeof *c);
    c->port = port;
    tv_buf_init(&c->head);
    conn_connect(c);
}

static void conn_reconnect(conn *c) {
    close(c->rx.fd);
    conn_connect(c);
}

static void conn_fini(conn *c) {
    if (c->rx.fd >= 0) close(c->rx.fd);
    c->rx.fd = -1;
    tv_buf_fini(&c->head);
    free(c->rx.buf);
    c->rx.buf = NULL;
}

/* The request head for a body of len bytes (before the clock starts). */
static void conn_prepare(conn *c, const char *method, const char *path, size_t len) {
    if (c->rx.closed) conn_reconnect(c);
    tv_buf_clear(&c->head);
    tv_buf_printf(&c->head,
                  "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                  "Content-Length: %zu\r\n\r\n",
                  method, path, c->port, len);
    if (c->head.oom) die("out of memory", NULL);
}

/* Sends the prepared head and body, reads exactly one response: status,
 * body and body_len are set. The part the clock measures. */
static void conn_exchange(conn *c, const char *body, size_t len) {
    struct iovec iov[2] = {{c->head.data, c->head.len}, {(void *)body, len}};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = len ? 2 : 1};
    size_t left = c->head.len + len;
    while (left) {
        ssize_t k = sendmsg(c->rx.fd, &m, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) die("send", strerror(errno));
        left -= (size_t)k;
        while (k > 0 && m.msg_iovlen) { /* skip what went out */
            size_t step = (size_t)k < m.msg_iov->iov_len ? (size_t)k : m.msg_iov->iov_len;
            m.msg_iov->iov_base = (char *)m.msg_iov->iov_base + step;
            m.msg_iov->iov_len -= step;
            k -= (ssize_t)step;
            if (!m.msg_iov->iov_len) m.msg_iov++, m.msg_iovlen--;
        }
    }

    c->status = http_rx_response(&c->rx, &c->body, &c->body_len, NULL);
}

/* A setup request whose status must be 200; the body stays in c. */
static void must(conn *c, const char *method, const char *path, const char *body, size_t len) {
    conn_prepare(c, method, path, len);
    conn_exchange(c, body, len);
    if (c->status != 200) {
        fprintf(stderr, "%s %s -> %d %.2000s\n", method, path, c->status, c->body);
        die("unexpected status", path);
    }
}

/* --------------------------------------------------------------- loading */

static void send_bulk(void *conn_, const tv_buf *b) {
    conn *c = conn_;
    if (b->oom) die("out of memory", NULL);
    must(c, "POST", "/ft/_bulk", b->data, b->len);
    const char *e = strstr(c->body, "\"errors\":");
    if (!e || strncmp(e + 9, "false", 5) != 0) {
        fprintf(stderr, "%.2000s\n", c->body);
        die("_bulk reported errors", NULL);
    }
}

static long long server_rss(void) {
    char p[64], l[256];
    snprintf(p, sizeof p, "/proc/%ld/status", (long)server_pid);
    FILE *f = fopen(p, "r");
    long long kb = -1;
    if (!f) return -1;
    while (fgets(l, sizeof l, f))
        if (strncmp(l, "VmRSS:", 6) == 0) kb = strtoll(l + 6, NULL, 10);
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

/* The server thread that serves c: the one whose CPU time grows most over
 * a few requests on c alone. */
static int conn_loop(conn *c) {
    int64_t *before = malloc(sizeof *before * (size_t)ntasks);
    if (!before) die("out of memory", NULL);
    server_cpu();
    for (int i = 0; i < ntasks; i++) before[i] = tasks[i].ns;
    for (int k = 0; k < 8; k++) must(c, "GET", "/", NULL, 0);
    server_cpu();
    int best = 0;
    for (int i = 1; i < ntasks; i++)
        if (tasks[i].ns - before[i] > tasks[best].ns - before[best]) best = i;
    free(before);
    return best;
}

/* ------------------------------------------------- two connections at once */

typedef struct {
    conn c;
    pthread_t thread;
    int64_t wall;
    long long hits;
} sender;

static struct shared_round {
    pthread_barrier_t go, done;
    bool quit;
    const char *path;
    const tv_buf *body;
    int size;
} shared;

static void *sender_main(void *arg) {
    sender *s = arg;
    for (;;) {
        pthread_barrier_wait(&shared.go);
        if (shared.quit) break;
        conn_prepare(&s->c, "POST", shared.path, shared.body->len);
        int64_t w0 = ns();
        conn_exchange(&s->c, shared.body->data, shared.body->len);
        s->wall = ns() - w0;
        s->hits = s->c.status == 200 ? ft_hits(s->c.body, shared.size) : -1;
        pthread_barrier_wait(&shared.done);
    }
    return NULL;
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv) {
    if (argc != 3) die("usage: bench_fulltext_http INDEX_DIR DOCS.ndjson", NULL);
    signal(SIGPIPE, SIG_IGN);
    const char *nc = getenv("TROVE_HTTP_CONNECTIONS");
    int nconn = nc && *nc ? atoi(nc) : 1;
    if (nconn != 1 && nconn != 2) die("TROVE_HTTP_CONNECTIONS is 1 or 2", nc);
    char bin[PATH_MAX];
    const char *env = getenv("TROVE_SERVER");
    if (env && *env) {
        snprintf(bin, sizeof bin, "%s", env);
    } else { /* the trove next to this executable */
        ssize_t k = readlink("/proc/self/exe", bin, sizeof bin - 7);
        if (k <= 0) die("readlink /proc/self/exe", strerror(errno));
        bin[k] = 0;
        char *slash = strrchr(bin, '/');
        strcpy(slash ? slash + 1 : bin, "trove");
    }

    int64_t t0 = ns();
    char version[64];
    int port = server_start(bin, version, sizeof version);
    sender s[2];
    conn_open(&s[0].c, port);
    conn *c = &s[0].c;
    must(c, "PUT", "/ft", FT_MAPPING, strlen(FT_MAPPING));
    int64_t docs = ft_load(argv[2], send_bulk, c);
    if (docs < 0) die("cannot load the documents", argv[2]);
    must(c, "POST", "/ft/_refresh", NULL, 0);
    must(c, "POST", "/ft/_forcemerge?max_num_segments=1", NULL, 0);
    double secs = (double)(ns() - t0) / 1e9;
    must(c, "GET", "/ft/_stats/store", NULL, 0);
    long long bytes = ft_number_after(c->body, "\"primaries\"", "size_in_bytes");
    tasks_open();

    bool distinct = true;
    if (nconn == 2) {
        conn_open(&s[1].c, port);
        int l0 = conn_loop(&s[0].c);
        for (int tries = 0; conn_loop(&s[1].c) == l0; tries++) {
            if (tries == 64) {
                distinct = false;
                break;
            }
            conn_reconnect(&s[1].c);
        }
        if (pthread_barrier_init(&shared.go, NULL, 3) || pthread_barrier_init(&shared.done, NULL, 3))
            die("pthread_barrier_init", NULL);
        for (int i = 0; i < 2; i++)
            if (pthread_create(&s[i].thread, NULL, sender_main, &s[i]) != 0) die("pthread_create", NULL);
    }
    printf("READY\t{\"engine\":\"%s\",\"version\":\"%s\",\"docs\":%lld,\"index_seconds\":%.3f,\"index_bytes\":%lld,"
           "\"connections\":%d,\"server_threads\":%d,\"server_rss_bytes\":%lld",
           nconn == 2 ? "trove-http2" : "trove-http", version, (long long)docs, secs, bytes, nconn, ntasks,
           server_rss());
    if (nconn == 2) printf(",\"distinct_loops\":%s", distinct ? "true" : "false");
    printf("}\n");
    fflush(stdout);

    tv_buf body;
    tv_buf_init(&body);
    char *line = NULL;
    size_t cap = 0;
    int size;
    const char *path;
    while ((path = ft_next_query(&line, &cap, &body, &size))) {
        if (body.oom) die("out of memory", NULL);
        if (nconn == 1) {
            conn_prepare(c, "POST", path, body.len);
            int64_t cpu0 = server_cpu(), w0 = ns();
            conn_exchange(c, body.data, body.len);
            int64_t w1 = ns(), cpu1 = server_cpu();
            if (c->status == 200) {
                printf("OK\t%lld\t%lld\t%lld\n", ft_hits(c->body, size), (long long)(cpu1 - cpu0),
                       (long long)(w1 - w0));
                fflush(stdout);
            } else {
                ft_print_refusal(c->status, c->body);
            }
            continue;
        }
        shared.path = path;
        shared.body = &body;
        shared.size = size;
        int64_t cpu0 = server_cpu();
        pthread_barrier_wait(&shared.go);
        pthread_barrier_wait(&shared.done);
        int64_t cpu1 = server_cpu();
        if (s[0].c.status != s[1].c.status) {
            printf("ERROR\tthe connections disagree: status %d and %d\n", s[0].c.status, s[1].c.status);
            fflush(stdout);
        } else if (s[0].c.status != 200) {
            ft_print_refusal(s[0].c.status, s[0].c.body);
        } else if (s[0].hits != s[1].hits) {
            printf("ERROR\tthe connections disagree: %lld and %lld hits\n", s[0].hits, s[1].hits);
            fflush(stdout);
        } else {
            printf("OK\t%lld\t%lld\t%lld\n", s[0].hits, (long long)(cpu1 - cpu0) / 2,
                   (long long)(s[0].wall + s[1].wall) / 2);
            fflush(stdout);
        }
    }
    if (nconn == 2) {
        shared.quit = true;
        pthread_barrier_wait(&shared.go);
        for (int i = 0; i < 2; i++) pthread_join(s[i].thread, NULL);
        pthread_barrier_destroy(&shared.go);
        pthread_barrier_destroy(&shared.done);
        conn_fini(&s[1].c);
    }
    conn_fini(&s[0].c);
    free(line);
    tv_buf_fini(&body);
    tasks_close();
    server_stop();
    return 0;
}
