/*
 * passwd.c — `trove passwd NAME --role ROLE [--role ROLE]... [--users FILE]`:
 * one line of a users file for `trove serve --users FILE`.
 *
 * The password comes from standard input, one line (without its line
 * ending), never from the command line, where other users of the machine
 * could read it in the process list; on a terminal echo is turned off
 * while it is typed (termios) and a prompt goes to stderr. It is hashed
 * with argon2id (auth.c: 3 passes over 64 MiB, one lane, a random 16-byte
 * salt from getrandom) and the buffer holding it is wiped afterwards.
 *
 * Without --users the line "name:hash:roles" goes to stdout. With --users
 * FILE the file gets it: the line of an existing user NAME is replaced in
 * place, otherwise the line is appended; every other line (comments
 * included) is kept byte for byte. The new file is written next to the old
 * one (a temporary file in the same directory), fsynced, given the old
 * file's mode (0600 for a new file: hashes are still worth protecting),
 * renamed over it and the directory fsynced, so a crash leaves the old
 * file or the new one, never half of either. Rejected: editing in place
 * (a crash mid-write loses users) and locking (one administrator runs this;
 * two concurrent runs each leave a whole file, the later one wins).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "cli/passwd.h"
#include "server/server.h"

#define MAX_ROLES 64
#define MAX_PASSWORD 1024

/* Reads one line of stdin into pw (cap bytes): its length, or -1. */
static ssize_t read_password(char *pw, size_t cap) {
    bool tty = isatty(STDIN_FILENO);
    struct termios old, quiet;
    if (tty && tcgetattr(STDIN_FILENO, &old) == 0) {
        quiet = old;
        quiet.c_lflag &= (tcflag_t)~ECHO;
        quiet.c_lflag |= ECHONL;
        fputs("Password: ", stderr);
        fflush(stderr);
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    } else {
        tty = false;
    }
    size_t n = 0;
    bool over = false, got_any = false;
    for (;;) {
        char ch;
        ssize_t r = read(STDIN_FILENO, &ch, 1); /* unbuffered: nothing past the line is consumed */
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got_any = true;
        if (ch == '\n') break;
        if (n + 1 < cap) pw[n++] = ch;
        else over = true;
    }
    if (tty) tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
    if (n && pw[n - 1] == '\r') n--;
    pw[n] = '\0';
    if (over) {
        fprintf(stderr, "trove passwd: the password is longer than %d bytes\n", MAX_PASSWORD - 1);
        return -1;
    }
    if (!got_any || n == 0) {
        fprintf(stderr, "trove passwd: no password on standard input (one line)\n");
        return -1;
    }
    return (ssize_t)n;
}

/* Is this users-file line NAME's? (Blank and comment lines are nobody's.) */
static bool line_names(const char *line, size_t len, const char *name) {
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t')) i++;
    if (i == len || line[i] == '#' || line[i] == '\n') return false;
    const char *colon = memchr(line + i, ':', len - i);
    if (!colon) return false;
    size_t nl = (size_t)(colon - line - i);
    return nl == strlen(name) && memcmp(line + i, name, nl) == 0;
}

static int fsync_dir_of(const char *path) {
    char *copy = strdup(path);
    if (!copy) return -1;
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(copy);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* Replaces or appends NAME's line in path, atomically. */
static int write_users(const char *path, const char *name, const char *entry) {
    tv_buf out;
    tv_buf_init(&out);
    mode_t mode = 0600;
    bool replaced = false;
    FILE *f = fopen(path, "r");
    if (f) {
        struct stat st;
        if (fstat(fileno(f), &st) == 0) mode = st.st_mode & 07777;
        char *line = NULL;
        size_t cap = 0;
        ssize_t got;
        while ((got = getline(&line, &cap, f)) >= 0) {
            if (line_names(line, (size_t)got, name)) {
                if (!replaced) tv_buf_printf(&out, "%s\n", entry);
                replaced = true; /* a second line of the same name is dropped */
                continue;
            }
            tv_buf_append(&out, line, (size_t)got);
            if (line[got - 1] != '\n') tv_buf_putc(&out, '\n');
        }
        bool bad = ferror(f);
        free(line);
        fclose(f);
        if (bad) {
            fprintf(stderr, "trove passwd: cannot read %s: %s\n", path, strerror(errno));
            tv_buf_fini(&out);
            return 1;
        }
    } else if (errno != ENOENT) {
        fprintf(stderr, "trove passwd: cannot read %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (!replaced) tv_buf_printf(&out, "%s\n", entry);
    if (out.oom) {
        fprintf(stderr, "trove passwd: out of memory\n");
        tv_buf_fini(&out);
        return 1;
    }
    size_t tl = strlen(path) + 16;
    char *tmp = malloc(tl);
    if (!tmp) {
        tv_buf_fini(&out);
        return 1;
    }
    snprintf(tmp, tl, "%s.tmp.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    int rc = 1;
    if (fd < 0) {
        fprintf(stderr, "trove passwd: cannot create a file next to %s: %s\n", path, strerror(errno));
        goto done;
    }
    size_t off = 0;
    while (off < out.len) {
        ssize_t w = write(fd, out.data + off, out.len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
    if (off != out.len || fchmod(fd, mode) != 0 || fsync(fd) != 0) {
        fprintf(stderr, "trove passwd: cannot write %s: %s\n", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        goto done;
    }
    close(fd);
    if (rename(tmp, path) != 0) {
        fprintf(stderr, "trove passwd: cannot replace %s: %s\n", path, strerror(errno));
        unlink(tmp);
        goto done;
    }
    if (fsync_dir_of(path) != 0) {
        fprintf(stderr, "trove passwd: cannot sync the directory of %s: %s\n", path, strerror(errno));
        goto done;
    }
    fprintf(stderr, "trove passwd: user %s %s %s\n", name, replaced ? "updated in" : "added to", path);
    rc = 0;
done:
    free(tmp);
    tv_buf_fini(&out);
    return rc;
}

void tv_cli_passwd_usage(FILE *out) {
    fprintf(out,
            "usage: trove passwd NAME --role ROLE [--role ROLE]... [--users FILE]\n"
            "  Reads NAME's password from standard input (one line; not echoed on a terminal),\n"
            "  hashes it with argon2id and prints the users-file line NAME:HASH:ROLES, or with\n"
            "  --users FILE adds it to FILE (replacing NAME's line; written atomically, mode 0600\n"
            "  for a new file). ROLE is read, write or admin (write includes read, admin\n"
            "  everything), optionally limited to indices matching a pattern: read:logs-*.\n"
            "  Repeat --role for several: --role read:logs-* --role read:metrics-*\n");
}

int tv_cli_passwd(int argc, char **argv) {
    const char *name = NULL, *file = NULL;
    const char *roles[MAX_ROLES];
    int nroles = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            tv_cli_passwd_usage(stdout);
            return 0;
        }
        if (strncmp(a, "--role=", 7) == 0) v = a + 7, a = "--role";
        else if (strncmp(a, "--users=", 8) == 0) v = a + 8, a = "--users";
        else if ((strcmp(a, "--role") == 0 || strcmp(a, "--users") == 0) && i + 1 < argc) v = argv[++i];
        if (v && strcmp(a, "--role") == 0 && nroles < MAX_ROLES && *v) {
            roles[nroles++] = v;
        } else if (v && strcmp(a, "--users") == 0 && *v && !file) {
            file = v;
        } else if (!v && a[0] != '-' && !name) {
            name = a;
        } else {
            fprintf(stderr, "trove passwd: bad argument [%s]\n", argv[i]);
            tv_cli_passwd_usage(stderr);
            return 2;
        }
    }
    if (!name || nroles == 0) {
        tv_cli_passwd_usage(stderr);
        return 2;
    }
    char why[256];
    if (!tv_auth_name_check(name, why, sizeof why)) {
        fprintf(stderr, "trove passwd: %s\n", why);
        return 2;
    }
    tv_buf rl;
    tv_buf_init(&rl);
    for (int i = 0; i < nroles; i++) tv_buf_printf(&rl, "%s%s", i ? "," : "", roles[i]);
    if (rl.oom || !tv_auth_roles_check(rl.data, why, sizeof why)) {
        fprintf(stderr, "trove passwd: %s\n", rl.oom ? "out of memory" : why);
        tv_buf_fini(&rl);
        return 2;
    }
    char pw[MAX_PASSWORD];
    ssize_t pn = read_password(pw, sizeof pw);
    if (pn < 0) {
        explicit_bzero(pw, sizeof pw);
        tv_buf_fini(&rl);
        return 1;
    }
    char hash[256];
    bool ok = tv_auth_hash_password(pw, (size_t)pn, hash, sizeof hash, why, sizeof why);
    explicit_bzero(pw, sizeof pw);
    if (!ok) {
        fprintf(stderr, "trove passwd: %s\n", why);
        tv_buf_fini(&rl);
        return 1;
    }
    tv_buf entry;
    tv_buf_init(&entry);
    tv_buf_printf(&entry, "%s:%s:%s", name, hash, rl.data);
    tv_buf_fini(&rl);
    int rc = 0;
    if (entry.oom) {
        fprintf(stderr, "trove passwd: out of memory\n");
        rc = 1;
    } else if (file) {
        rc = write_users(file, name, entry.data);
    } else {
        printf("%s\n", entry.data);
        rc = fflush(stdout) == 0 ? 0 : 1;
    }
    tv_buf_fini(&entry);
    return rc;
}
