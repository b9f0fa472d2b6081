/*
 * auth.c — HTTP Basic authentication and role-based authorization for
 * `trove serve --users FILE`, and the password hashing of `trove passwd`.
 *
 * The users file. One user per line, "name:hash:roles"; blank lines and
 * lines starting with '#' are ignored. hash is an argon2id encoded hash
 * ($argon2id$v=19$m=..,t=..,p=..$salt$hash, libargon2's format), roles a
 * comma-separated list of ROLE[:PATTERN], ROLE one of read < write < admin
 * (each includes the ones before), PATTERN an index pattern with '*'
 * wildcards limiting that entry to indices whose names match. The file is
 * read once at start; any fault (unreadable, a malformed line, a duplicate
 * name) stops the server with "FILE:LINE: reason". Passwords are never in
 * it, and the server never prints a line of it.
 *
 * Authentication. The Authorization header must be "Basic" and base64 of
 * "name:password". Verification is argon2id (argon2_verify), which is slow
 * on purpose (tens of milliseconds and 64 MiB with trove passwd's cost),
 * so each loop keeps a small cache of verified header values: 64 entries,
 * direct-mapped, keyed by SHA-256 of a per-process random key followed by
 * the header value, holding the user and an expiry (10 minutes). A keep-
 * alive client pays argon2 once per loop and ten minutes, not per request.
 * The cache holds neither the password nor the header: only the keyed
 * digest, which a memory dump cannot reverse without the random key and a
 * brute force of its own. Failures are cached too (10 seconds), so a client
 * retrying the same wrong credentials does not cost argon2 each time. An
 * unknown name is verified against another user's hash, so that the time
 * taken does not tell which names exist. The decoded header is wiped
 * (explicit_bzero) as soon as it has been checked.
 *
 * Verification never runs on the loop. Each loop's authenticator has one
 * verifier thread: a cache miss queues a job (the digest and a copy of
 * the header value, wiped after use) and answers "pending"; the engine
 * parks that connection (it reads nothing more) and the loop goes on
 * serving everyone else. The thread verifies jobs in order and signals an
 * eventfd; the loop moves the results into its cache and resumes its
 * parked connections, which ask again and now hit the cache. A header
 * already being verified is not queued twice. At most 32 verifications
 * wait per loop: beyond that (a flood of distinct credentials) a request
 * with new credentials gets 401 at once, so an attacker cannot make the
 * queue, or the wait for a legitimate login, grow without bound, and
 * clients whose credentials are cached are never slowed down. A thread
 * per loop rather than a shared pool keeps the cache and the queue free
 * of cross-loop locking; at most one argon2 (64 MiB) runs per loop.
 *
 * Authorization. trove_request_classify (the api layer) tells the access
 * level, OpenSearch's action name and the indices of the request, with the
 * route matched as the router will match it. A role without pattern grants
 * its level everywhere; a patterned entry grants its level on requests
 * whose every index expression matches one of the user's patterns at that
 * level or above (a request on the whole node, `_all` or `*`, or without
 * index, needs an entry without pattern; requests that reach no index data
 * such as GET / or a scroll continuation need only the level). Patterns
 * match the names as the request spells them (an alias is matched by its
 * own name), and a wildcard in the request must be covered by a wildcard
 * of the pattern, so "logs-*" grants "logs-2024" and "logs-*" but not
 * "l*". The body is classified only when a pattern has to decide and the
 * route takes indices from its body (_bulk, _mget, _msearch). Refusals are
 * OpenSearch security plugin's: 401 with WWW-Authenticate and the body
 * "Unauthorized", 403 security_exception "no permissions for [ACTION] and
 * User [name=NAME, backend_roles=[], requestedTenant=null]".
 *
 * Rejected: bcrypt or crypt(3) hashes (argon2id is OpenSearch security's
 * recommended modern choice and memory-hard); a shared cache across loops
 * (a lock on every request for a hit rate a per-loop cache already has
 * with keep-alive); caching by connection (clients spread requests over
 * many connections, and a header may change between requests).
 */
#define _GNU_SOURCE
#include <argon2.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "server/server.h"

#define CACHE_SLOTS 64
#define CACHE_OK_NS (600ull * 1000000000ull)
#define CACHE_FAIL_NS (10ull * 1000000000ull)
#define MAX_CRED 4096 /* longest Authorization value considered */
#define MAX_INFLIGHT 32 /* verifications queued per loop; beyond: 401 */

/* argon2id cost of trove passwd: 3 passes over 64 MiB, one lane */
#define HASH_T 3
#define HASH_M_KIB (64u * 1024u)
#define HASH_P 1
#define SALT_LEN 16
#define HASH_LEN 32

typedef struct role {
    int level; /* TROVE_ACCESS_READ .. ADMIN */
    char *pattern; /* NULL: every index */
} role;

typedef struct user {
    char *name;
    char *hash;
    role *roles;
    size_t nroles;
} user;

struct tv_users {
    user *v;
    size_t n;
    unsigned char key[32]; /* the cache's digest key, random per process */
};

typedef struct slot {
    unsigned char digest[32];
    const user *u; /* NULL: a cached failure */
    uint64_t expires;
    bool used;
} slot;

/* One verification for the verifier thread. */
typedef struct job {
    unsigned char digest[32];
    char *value; /* a copy of the header value, wiped when freed */
    size_t len;
    const user *u; /* the result */
    struct job *next;
} job;

struct tv_auth {
    const tv_users *users;
    slot cache[CACHE_SLOTS]; /* the loop's only */
    job *inflight[MAX_INFLIGHT]; /* the loop's view: queued or running */
    size_t ninflight;
    /* shared with the verifier thread, under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job *todo, **todo_tail;
    job *done;
    bool stop;
    int efd; /* the thread's "done" signal to the loop */
    pthread_t thread;
};

/* ------------------------------------------------------------- parsing */

static bool name_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '@' || c == '+' || c == '-';
}

bool tv_auth_name_check(const char *name, char *err, size_t errlen) {
    size_t n = strlen(name);
    if (n == 0 || n > 128) {
        snprintf(err, errlen, "a user name has 1 to 128 characters");
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (!name_char((unsigned char)name[i])) {
            snprintf(err, errlen, "a user name has only letters, digits and . _ @ + - (not [%c])", name[i]);
            return false;
        }
    return true;
}

static bool pattern_char(unsigned char c) {
    return c > 0x20 && c < 0x7f && c != ',' && c != ':' && c != '"' && c != '\\' && c != '/';
}

/* Parses roles into *out (tv_malloc'd), or fails with the reason. */
static bool parse_roles(const char *s, role **out, size_t *nout, char *err, size_t errlen) {
    *out = NULL;
    *nout = 0;
    if (!*s) {
        snprintf(err, errlen, "no role (expected read, write or admin, each optionally :PATTERN)");
        return false;
    }
    size_t cap = 1;
    for (const char *p = s; *p; p++) cap += *p == ',';
    role *v = tv_calloc(cap, sizeof *v);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    size_t n = 0;
    for (const char *p = s;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        size_t rl = colon ? (size_t)(colon - p) : len;
        int level = tv_streq(p, rl, "read") ? TROVE_ACCESS_READ
                    : tv_streq(p, rl, "write") ? TROVE_ACCESS_WRITE
                    : tv_streq(p, rl, "admin") ? TROVE_ACCESS_ADMIN
                                               : 0;
        if (!level) {
            snprintf(err, errlen, "unknown role [%.*s] (expected read, write or admin, each optionally :PATTERN)",
                     (int)(rl > 64 ? 64 : rl), p);
            goto fail;
        }
        v[n].level = level;
        if (colon) {
            const char *pat = colon + 1;
            size_t pl = len - rl - 1;
            bool ok = pl > 0 && pl <= 255;
            for (size_t i = 0; ok && i < pl; i++) ok = pattern_char((unsigned char)pat[i]);
            if (!ok) {
                snprintf(err, errlen, "bad index pattern in role [%.*s]", (int)(len > 80 ? 80 : len), p);
                goto fail;
            }
            v[n].pattern = tv_malloc(pl + 1);
            if (!v[n].pattern) {
                snprintf(err, errlen, "out of memory");
                goto fail;
            }
            memcpy(v[n].pattern, pat, pl);
            v[n].pattern[pl] = '\0';
        }
        n++;
        if (!e) break;
        p = e + 1;
    }
    *out = v;
    *nout = n;
    return true;
fail:
    for (size_t i = 0; i <= n && i < cap; i++) tv_free(v[i].pattern);
    tv_free(v);
    return false;
}

bool tv_auth_roles_check(const char *roles, char *err, size_t errlen) {
    role *v;
    size_t n;
    if (!parse_roles(roles, &v, &n, err, errlen)) return false;
    for (size_t i = 0; i < n; i++) tv_free(v[i].pattern);
    tv_free(v);
    return true;
}

static bool b64_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

static bool num_field(const char **p, const char *name) {
    size_t l = strlen(name);
    if (strncmp(*p, name, l) != 0) return false;
    const char *q = *p + l;
    if (*q < '0' || *q > '9') return false;
    while (*q >= '0' && *q <= '9') q++;
    *p = q;
    return true;
}

/* $argon2id$v=19$m=N,t=N,p=N$SALT$HASH with unpadded base64 parts. */
static bool hash_format_ok(const char *h) {
    const char *p = h;
    if (strncmp(p, "$argon2id$", 10) != 0) return false;
    p += 10;
    if (!num_field(&p, "v=") || *p++ != '$') return false;
    if (!num_field(&p, "m=") || *p++ != ',' || !num_field(&p, "t=") || *p++ != ',' || !num_field(&p, "p=") ||
        *p++ != '$')
        return false;
    for (int part = 0; part < 2; part++) {
        const char *s = p;
        while (b64_char((unsigned char)*p)) p++;
        if (p - s < 4) return false;
        if (part == 0 && *p++ != '$') return false;
    }
    return *p == '\0';
}

static void user_fini(user *u) {
    tv_free(u->name);
    tv_free(u->hash);
    for (size_t i = 0; i < u->nroles; i++) tv_free(u->roles[i].pattern);
    tv_free(u->roles);
}

void tv_users_free(tv_users *u) {
    if (!u) return;
    for (size_t i = 0; i < u->n; i++) user_fini(&u->v[i]);
    tv_free(u->v);
    tv_free(u);
}

size_t tv_users_count(const tv_users *u) { return u ? u->n : 0; }

static char *dup_n(const char *s, size_t n) {
    char *d = tv_malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

tv_users *tv_users_load(const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read the users file: %s", path, strerror(errno));
        return NULL;
    }
    tv_users *us = tv_calloc(1, sizeof *us);
    char *line = NULL;
    size_t lcap = 0, cap = 0;
    unsigned lineno = 0;
    char why[200];
    if (!us) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto fail;
    }
    if (getrandom(us->key, sizeof us->key, 0) != (ssize_t)sizeof us->key) {
        snprintf(err, errlen, "%s: getrandom failed: %s", path, strerror(errno));
        goto fail;
    }
    ssize_t got;
    while ((got = getline(&line, &lcap, f)) >= 0) {
        lineno++;
        size_t n = (size_t)got;
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
        line[n] = '\0';
        const char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s || *s == '#') continue;
        /* name:hash:roles (the hash has no ':'; a role's pattern follows one) */
        const char *c1 = strchr(s, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) {
            snprintf(err, errlen, "%s:%u: expected name:hash:roles", path, lineno);
            goto fail;
        }
        size_t end = strlen(s);
        while (end && (s[end - 1] == ' ' || s[end - 1] == '\t')) end--;
        char *name = dup_n(s, (size_t)(c1 - s));
        char *hash = dup_n(c1 + 1, (size_t)(c2 - c1 - 1));
        char *roles = dup_n(c2 + 1, (size_t)(s + end - c2 - 1));
        if (!name || !hash || !roles) {
            tv_free(name), tv_free(hash), tv_free(roles);
            snprintf(err, errlen, "%s: out of memory", path);
            goto fail;
        }
        user u = {.name = name, .hash = hash};
        bool ok = tv_auth_name_check(name, why, sizeof why);
        if (ok && !hash_format_ok(hash)) {
            snprintf(why, sizeof why, "the hash is not an argon2id encoded hash ($argon2id$v=19$m=...,t=...,p=...$salt$hash)");
            ok = false;
        }
        for (size_t i = 0; ok && i < us->n; i++)
            if (strcmp(us->v[i].name, name) == 0) {
                snprintf(why, sizeof why, "user [%s] is defined twice", name);
                ok = false;
            }
        if (ok) ok = parse_roles(roles, &u.roles, &u.nroles, why, sizeof why);
        tv_free(roles);
        if (!ok) {
            user_fini(&u);
            snprintf(err, errlen, "%s:%u: %s", path, lineno, why);
            goto fail;
        }
        if (us->n == cap) {
            size_t nc = cap ? cap * 2 : 8;
            user *v = tv_realloc(us->v, nc * sizeof *v);
            if (!v) {
                user_fini(&u);
                snprintf(err, errlen, "%s: out of memory", path);
                goto fail;
            }
            us->v = v;
            cap = nc;
        }
        us->v[us->n++] = u;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: cannot read the users file: %s", path, strerror(errno));
        goto fail;
    }
    if (us->n == 0) {
        snprintf(err, errlen, "%s: no user defined (add one with trove passwd NAME --role ROLE --users %s)", path,
                 path);
        goto fail;
    }
    free(line);
    fclose(f);
    return us;
fail:
    free(line);
    fclose(f);
    tv_users_free(us);
    return NULL;
}

/* -------------------------------------------------------- authenticate */

static const user *verify(const tv_users *us, const char *value, size_t len);

static void job_free(job *j) {
    if (!j) return;
    if (j->value) {
        explicit_bzero(j->value, j->len);
        tv_free(j->value);
    }
    tv_free(j);
}

/* The verifier thread: argon2 off the loop, one job at a time. */
static void *verifier_main(void *arg) {
    tv_auth *a = arg;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        while (!a->todo && !a->stop) pthread_cond_wait(&a->cv, &a->mu);
        if (a->stop) break;
        job *j = a->todo;
        a->todo = j->next;
        if (!a->todo) a->todo_tail = &a->todo;
        pthread_mutex_unlock(&a->mu);
        j->u = verify(a->users, j->value, j->len);
        explicit_bzero(j->value, j->len);
        pthread_mutex_lock(&a->mu);
        j->next = a->done;
        a->done = j;
        uint64_t one = 1;
        if (write(a->efd, &one, sizeof one) < 0) { /* a full counter is readable anyway */
        }
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

tv_auth *tv_auth_new(const tv_users *u) {
    tv_auth *a = tv_calloc(1, sizeof *a);
    if (!a) return NULL;
    a->users = u;
    a->todo_tail = &a->todo;
    a->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (a->efd < 0) {
        tv_free(a);
        return NULL;
    }
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->cv, NULL);
    /* argon2 needs little stack; the loop's signals stay blocked in it */
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 256 * 1024);
    int rc = pthread_create(&a->thread, &at, verifier_main, a);
    pthread_attr_destroy(&at);
    if (rc != 0) {
        pthread_cond_destroy(&a->cv);
        pthread_mutex_destroy(&a->mu);
        close(a->efd);
        tv_free(a);
        return NULL;
    }
    return a;
}

void tv_auth_free(tv_auth *a) {
    if (!a) return;
    pthread_mutex_lock(&a->mu);
    a->stop = true;
    pthread_cond_signal(&a->cv);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->thread, NULL);
    for (job *j = a->todo, *n; j; j = n) n = j->next, job_free(j);
    for (job *j = a->done, *n; j; j = n) n = j->next, job_free(j);
    pthread_cond_destroy(&a->cv);
    pthread_mutex_destroy(&a->mu);
    close(a->efd);
    explicit_bzero(a->cache, sizeof a->cache);
    tv_free(a);
}

int tv_auth_fd(const tv_auth *a) { return a->efd; }

static int b64_val(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Standard base64 with optional padding into out (cap >= n): decoded
 * length, or -1 when malformed. */
static ssize_t b64_decode(const char *s, size_t n, unsigned char *out) {
    while (n && s[n - 1] == '=') n--;
    if (n % 4 == 1) return -1;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64_val((unsigned char)s[i]);
        if (v < 0) return -1;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    return (ssize_t)o;
}

static bool digest_of(const tv_users *us, const char *value, size_t len, unsigned char out[32]) {
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    unsigned int dl = 0;
    bool ok = m && EVP_DigestInit_ex(m, EVP_sha256(), NULL) == 1 && EVP_DigestUpdate(m, us->key, sizeof us->key) == 1 &&
              EVP_DigestUpdate(m, value, len) == 1 && EVP_DigestFinal_ex(m, out, &dl) == 1 && dl == 32;
    EVP_MD_CTX_free(m);
    return ok;
}

/* Checks "Basic base64(name:password)" with argon2: the user or NULL.
 * Runs on the verifier thread (reads only the users table). */
static const user *verify(const tv_users *us, const char *value, size_t len) {
    if (len < 6 || strncasecmp(value, "Basic ", 6) != 0) return NULL;
    const char *b = value + 6;
    size_t bn = len - 6;
    while (bn && *b == ' ') b++, bn--;
    unsigned char buf[MAX_CRED];
    ssize_t dn = b64_decode(b, bn, buf);
    const user *found = NULL;
    if (dn > 0) {
        unsigned char *colon = memchr(buf, ':', (size_t)dn);
        if (colon) {
            size_t nl = (size_t)(colon - buf);
            const char *pw = (const char *)colon + 1;
            size_t pl = (size_t)dn - nl - 1;
            const user *u = NULL;
            for (size_t i = 0; i < us->n && !u; i++)
                if (strlen(us->v[i].name) == nl && memcmp(us->v[i].name, buf, nl) == 0) u = &us->v[i];
            /* an unknown name costs a verification too (against another
             * user's hash), so timing does not tell names apart */
            const char *hash = u ? u->hash : us->v[0].hash;
            int rc = argon2_verify(hash, pw, pl, Argon2_id);
            if (u && rc == ARGON2_OK) found = u;
        }
    }
    explicit_bzero(buf, sizeof buf);
    return found;
}

static slot *slot_of(tv_auth *a, const unsigned char d[32]) { return &a->cache[d[0] % CACHE_SLOTS]; }

void tv_auth_done(tv_auth *a) {
    uint64_t n;
    if (read(a->efd, &n, sizeof n) < 0) { /* nothing new: spurious wake-up */
    }
    pthread_mutex_lock(&a->mu);
    job *done = a->done;
    a->done = NULL;
    pthread_mutex_unlock(&a->mu);
    uint64_t now = tv_mono_ns();
    for (job *j = done, *nx; j; j = nx) {
        nx = j->next;
        slot *s = slot_of(a, j->digest);
        memcpy(s->digest, j->digest, sizeof j->digest);
        s->u = j->u;
        s->used = true;
        s->expires = now + (j->u ? CACHE_OK_NS : CACHE_FAIL_NS);
        for (size_t i = 0; i < a->ninflight; i++)
            if (a->inflight[i] == j) {
                a->inflight[i] = a->inflight[--a->ninflight];
                break;
            }
        job_free(j);
    }
}

const void *tv_auth_authenticate(void *ud, const char *value, size_t len) {
    tv_auth *a = ud;
    if (!value || len == 0 || len > MAX_CRED) return NULL;
    unsigned char d[32];
    if (!digest_of(a->users, value, len, d)) return NULL;
    slot *s = slot_of(a, d);
    if (s->used && tv_mono_ns() < s->expires && memcmp(s->digest, d, sizeof d) == 0) return s->u;
    /* a miss: verify on the thread, unless it already is (a client's
     * pipelined or parallel requests with the same header) */
    for (size_t i = 0; i < a->ninflight; i++)
        if (memcmp(a->inflight[i]->digest, d, sizeof d) == 0) return TV_HTTP_AUTH_PENDING;
    if (a->ninflight == MAX_INFLIGHT) return NULL; /* a flood of new credentials: refuse, do not queue */
    job *j = tv_calloc(1, sizeof *j);
    if (!j || !(j->value = tv_malloc(len))) {
        tv_free(j);
        return NULL;
    }
    memcpy(j->digest, d, sizeof d);
    memcpy(j->value, value, len);
    j->len = len;
    a->inflight[a->ninflight++] = j;
    pthread_mutex_lock(&a->mu);
    *a->todo_tail = j;
    a->todo_tail = &j->next;
    pthread_cond_signal(&a->cv);
    pthread_mutex_unlock(&a->mu);
    return TV_HTTP_AUTH_PENDING;
}

/* ----------------------------------------------------------- authorize */

/* Does the index expression s match pattern p ('*' matches any run,
 * including a '*' of s, so a wildcard in s needs a wildcard in p)? */
static bool glob(const char *p, const char *s) {
    const char *star = NULL, *resume = NULL;
    while (*s) {
        if (*p == '*') {
            star = p++;
            resume = s;
        } else if (*p == *s) {
            p++;
            s++;
        } else if (star) {
            p = star + 1;
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*p == '*') p++;
    return *p == '\0';
}

/* Grants by roles without a pattern (or a request that needs none). */
static bool grants_everywhere(const user *u, const trove_request_class *c) {
    if (c->access == TROVE_ACCESS_NONE) return true;
    for (size_t i = 0; i < u->nroles; i++)
        if (u->roles[i].level >= c->access && !u->roles[i].pattern) return true;
    return false;
}

static bool grants(const user *u, const trove_request_class *c) {
    if (grants_everywhere(u, c)) return true;
    if (c->scope == TROVE_SCOPE_ANY) {
        for (size_t i = 0; i < u->nroles; i++)
            if (u->roles[i].level >= c->access) return true;
        return false;
    }
    if (c->scope != TROVE_SCOPE_INDICES || c->nindices == 0) return false;
    for (size_t k = 0; k < c->nindices; k++) {
        bool ok = false;
        for (size_t i = 0; i < u->nroles && !ok; i++)
            ok = u->roles[i].level >= c->access && u->roles[i].pattern && glob(u->roles[i].pattern, c->indices[k]);
        if (!ok) return false;
    }
    return true;
}

static void deny_body(tv_buf *b, const char *action, const char *name) {
    /* names and action names need no JSON escaping (checked characters) */
    char reason[512];
    snprintf(reason, sizeof reason,
             "no permissions for [%s] and User [name=%s, backend_roles=[], requestedTenant=null]", action, name);
    tv_buf_clear(b);
    const char *type = trove_status_type(TROVE_ESECURITY);
    tv_buf_printf(b, "{\"error\":{\"root_cause\":[{\"type\":\"%s\",\"reason\":\"%s\"}],\"type\":\"%s\",\"reason\":\"%s\"},"
                     "\"status\":%d}",
                  type, reason, type, reason, trove_status_http(TROVE_ESECURITY));
}

bool tv_auth_authorize(void *ud, const void *who, const char *method, const char *target, const void *body,
                       size_t len, tv_buf *deny) {
    (void)ud;
    const user *u = who;
    trove_request_class c;
    if (trove_request_classify(method, target, NULL, 0, &c) != 0) {
        deny_body(deny, "cluster:admin/unclassified", u->name); /* out of memory: refuse */
        return false;
    }
    bool ok = grants_everywhere(u, &c);
    if (!ok && c.body_names_indices && len) {
        trove_request_class_fini(&c);
        if (trove_request_classify(method, target, body, len, &c) != 0) {
            deny_body(deny, "cluster:admin/unclassified", u->name);
            return false;
        }
    }
    if (!ok) ok = grants(u, &c);
    if (!ok) deny_body(deny, c.action, u->name);
    trove_request_class_fini(&c);
    return ok;
}

/* ---------------------------------------------------------------- hash */

bool tv_auth_hash_password(const char *pw, size_t n, char *out, size_t cap, char *err, size_t errlen) {
    unsigned char salt[SALT_LEN];
    if (getrandom(salt, sizeof salt, 0) != (ssize_t)sizeof salt) {
        snprintf(err, errlen, "getrandom failed: %s", strerror(errno));
        return false;
    }
    size_t need = argon2_encodedlen(HASH_T, HASH_M_KIB, HASH_P, SALT_LEN, HASH_LEN, Argon2_id);
    if (need > cap) {
        snprintf(err, errlen, "internal error: hash buffer too small");
        return false;
    }
    int rc = argon2id_hash_encoded(HASH_T, HASH_M_KIB, HASH_P, pw, n, salt, SALT_LEN, HASH_LEN, out, cap);
    if (rc != ARGON2_OK) {
        snprintf(err, errlen, "argon2id failed: %s", argon2_error_message(rc));
        return false;
    }
    return true;
}
