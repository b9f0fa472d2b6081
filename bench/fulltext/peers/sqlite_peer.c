/* sqlite_peer — the SQLite FTS5 peer of bench/fulltext (see ../README.md, "The peer protocol").
 *
 *     sqlite-peer INDEX_DIR DOCS.ndjson
 *
 * Indexes the "body" of every NDJSON line (decoded by ../ndjson.h; a malformed line is an error,
 * a line without a "body" string an empty document) into INDEX_DIR/fts.db,
 *     CREATE VIRTUAL TABLE docs USING fts5(body, content='', tokenize='unicode61 remove_diacritics 0')
 * (detail=full, the default, so phrases work; remove_diacritics 0 because StandardAnalyzer keeps
 * diacritics, "café" stays "café"; content='' makes it contentless: the index keeps postings,
 * positions and document sizes, which is all MATCH and bm25() need, but not a second copy of the
 * text, as Xapian keeps none), one transaction through one prepared INSERT, then the FTS5
 * 'optimize' command (merges all segments into one), commits, prints READY<TAB>{json} and answers
 * MODE<TAB>QUERY lines on stdin until EOF.
 *
 * Query translation (the README's query_string forms, default operator OR).  Every term is an FTS5
 * string, so it goes through the same unicode61 tokenizer as the documents (case folding included;
 * a word the tokenizer splits, "e-mail", becomes a phrase of its pieces):
 *
 *   word         "word"
 *   a b          "a" OR "b"
 *   +a +b        "a" AND "b"
 *   +a b         COUNT: "a" (b only scores in Lucene, the matching set is that of a);
 *                TOP_N: UNSUPPORTED, FTS5 has no optional scoring-only clause
 *   -a           (...) NOT ("a"); only prohibited clauses match nothing, as in Lucene
 *   "a b c"      "a b c"  (an FTS5 phrase: adjacent, in order)
 *   "a b"~N      NEAR("a" "b", N + nterms - 2).  FTS5's NEAR is unordered and counts the tokens
 *                strictly between the leftmost and the rightmost phrase, so for single-token phrases
 *                its span is at most N' + 2 positions; with N' = N + nterms - 2 the span limit is
 *                nterms + N, exactly Lucene's slop for in-order occurrences (for two terms N' = N).
 *                Reordered occurrences are admitted more generously than Lucene, which charges
 *                reordering extra slop: the conventional translation of a sloppy phrase to FTS5,
 *                and the same window as Xapian's OP_NEAR in xapian_peer.cc.  ~0 is an exact phrase.
 *                A sloppy phrase repeating a term is UNSUPPORTED: NEAR lets a single occurrence
 *                stand for both copies, which Lucene (and Xapian) never do.
 *   mos*         "mos" *  (FTS5 prefix query, no prefix index, as Lucene has none)
 *   th*e, t?e    UNSUPPORTED: FTS5 has only trailing-* prefix queries
 *   *sband       UNSUPPORTED: same
 *   /regex/      UNSUPPORTED: FTS5 has no regexp query
 *
 * COUNT is SELECT count(*) FROM docs WHERE docs MATCH ?; TOP_N is
 * SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT N, rank being FTS5's bm25()
 * (k1 1.2, b 0.75, fixed in SQLite's source), HITS the rows returned.
 */
#define _GNU_SOURCE
#include <sqlite3.h>

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../ndjson.h"

static int64_t now_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ------------------------------------------------------------------ a growable byte buffer */

typedef struct {
    char *p;
    size_t len, cap;
} buf_t;

static void buf_reserve(buf_t *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        fprintf(stderr, "sqlite-peer: out of memory\n");
        exit(1);
    }
    b->p = p;
    b->cap = cap;
}

static void buf_add(buf_t *b, const char *s, size_t n) {
    buf_reserve(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_addc(buf_t *b, char c) { buf_add(b, &c, 1); }
static void buf_adds(buf_t *b, const char *s) { buf_add(b, s, strlen(s)); }
static void buf_clear(buf_t *b) {
    b->len = 0;
    if (b->p) b->p[0] = '\0';
}

static void buf_printf(buf_t *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    buf_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* ------------------------------------------------------------------ query_string → FTS5 */

enum { T_OK, T_UNSUPPORTED, T_ERROR, T_NOTHING };
enum occur { SHOULD, MUST, MUST_NOT };

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Appends TEXT[0..n) as an FTS5 string: in double quotes, a quote doubled. */
static void fts_string(buf_t *out, const char *text, size_t n) {
    buf_addc(out, '"');
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '"') buf_addc(out, '"');
        buf_addc(out, text[i]);
    }
    buf_addc(out, '"');
}

/* Whether two words are equal up to ASCII case (unicode61 folds the rest; close enough here). */
static bool same_word(const char *a, size_t an, const char *b, size_t bn) {
    if (an != bn) return false;
    for (size_t i = 0; i < an; i++) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z') y = (char)(y - 'A' + 'a');
        if (x != y) return false;
    }
    return true;
}

/* One phrase's FTS5 expression.  Whitespace-separated words count as the phrase's terms.  Returns
 * false when a sloppy phrase repeats a word: FTS5's NEAR lets one occurrence satisfy both copies
 * ("aa aa"~1 matches a lone "aa"), where Lucene needs two occurrences. */
static bool fts_phrase(buf_t *out, const char *text, size_t n, int slop) {
    size_t nwords = 0;
    for (size_t i = 0; i < n;) {
        while (i < n && is_space(text[i])) i++;
        if (i >= n) break;
        nwords++;
        while (i < n && !is_space(text[i])) i++;
    }
    if (slop <= 0 || nwords <= 1) {
        fts_string(out, text, n);
        return true;
    }
    for (size_t i = 0; i < n;) {
        while (i < n && is_space(text[i])) i++;
        if (i >= n) break;
        size_t s = i;
        while (i < n && !is_space(text[i])) i++;
        for (size_t j = i; j < n;) {
            while (j < n && is_space(text[j])) j++;
            if (j >= n) break;
            size_t t = j;
            while (j < n && !is_space(text[j])) j++;
            if (same_word(text + s, i - s, text + t, j - t)) return false;
        }
    }
    buf_adds(out, "NEAR(");
    bool first = true;
    for (size_t i = 0; i < n;) {
        while (i < n && is_space(text[i])) i++;
        if (i >= n) break;
        size_t s = i;
        while (i < n && !is_space(text[i])) i++;
        if (!first) buf_addc(out, ' ');
        first = false;
        fts_string(out, text + s, i - s);
    }
    buf_printf(out, ", %ld)", (long)slop + (long)nwords - 2);
    return true;
}

/* Translates Q (NUL-terminated) into OUT.  COUNT says whether the query is a COUNT (then optional
 * clauses beside required ones can be dropped: they change scores only).  Returns T_OK, T_NOTHING
 * (the query matches nothing, no need to ask), or T_UNSUPPORTED/T_ERROR with WHY set. */
static int translate(const char *q, bool count, buf_t *out, const char **why) {
    static buf_t parts[3], clause, text;
    int nparts[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) buf_clear(&parts[k]);
    buf_clear(out);
    size_t i = 0, n = strlen(q);
    for (;;) {
        while (i < n && is_space(q[i])) i++;
        if (i >= n) break;
        int occ = SHOULD;
        if (q[i] == '+') occ = MUST, i++;
        else if (q[i] == '-') occ = MUST_NOT, i++;
        if (i >= n || is_space(q[i])) return *why = "dangling operator", T_ERROR;
        buf_clear(&clause);
        buf_clear(&text);
        if (q[i] == '"') {
            size_t j = i + 1;
            while (j < n && q[j] != '"') {
                if (q[j] == '\\' && j + 1 < n) j++;
                buf_addc(&text, q[j++]);
            }
            if (j >= n) return *why = "unterminated phrase", T_ERROR;
            j++;
            long slop = -1;
            if (j < n && q[j] == '~') {
                j++;
                size_t d = j;
                slop = 0;
                while (j < n && q[j] >= '0' && q[j] <= '9' && slop < 100000) slop = slop * 10 + (q[j++] - '0');
                if (j == d) return *why = "phrase ~ without an integer slop", T_UNSUPPORTED;
            }
            if (j < n && !is_space(q[j])) return *why = "syntax after a phrase (boost?)", T_UNSUPPORTED;
            if (!fts_phrase(&clause, text.p ? text.p : "", text.len, (int)slop))
                return *why = "sloppy phrase repeating a term: FTS5's NEAR lets one occurrence match both",
                       T_UNSUPPORTED;
            i = j;
        } else if (q[i] == '/') {
            return *why = "regexp: FTS5 has no regexp query", T_UNSUPPORTED;
        } else {
            /* A bare word, with Lucene's backslash escapes. */
            bool prefix = false, wildcard = false, leading = false;
            size_t start = i;
            while (i < n && !is_space(q[i])) {
                char c = q[i];
                if (c == '\\' && i + 1 < n) {
                    buf_addc(&text, q[i + 1]);
                    i += 2;
                    continue;
                }
                if (c == '*' || c == '?') {
                    if (i == start) leading = true;
                    if (c == '*' && (i + 1 == n || is_space(q[i + 1])) && !wildcard && i != start) prefix = true;
                    else wildcard = true;
                    i++;
                    continue;
                }
                if (strchr("()[]{}:^~!\"/", c))
                    return *why = "query_string syntax not in the benchmark forms", T_UNSUPPORTED;
                /* Lowercase ASCII here; unicode61 folds the rest of the case itself. */
                buf_addc(&text, (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c);
                i++;
            }
            if (leading) return *why = "leading wildcard: FTS5 has only trailing-* prefix queries", T_UNSUPPORTED;
            if (wildcard) return *why = "wildcard inside a term: FTS5 has only trailing-* prefix queries", T_UNSUPPORTED;
            if (text.len == 0) return *why = "empty term", T_ERROR;
            size_t wl = i - start;
            if (occ == SHOULD && ((wl == 3 && (!memcmp(q + start, "AND", 3) || !memcmp(q + start, "NOT", 3))) ||
                                  (wl == 2 && !memcmp(q + start, "OR", 2))))
                return *why = "boolean keyword operators are not in the benchmark forms", T_UNSUPPORTED;
            fts_string(&clause, text.p, text.len);
            if (prefix) buf_adds(&clause, " *");
        }
        buf_t *part = &parts[occ];
        if (nparts[occ]++) buf_adds(part, occ == MUST ? " AND " : " OR ");
        buf_addc(part, '(');
        buf_add(part, clause.p, clause.len);
        buf_addc(part, ')');
    }
    if (nparts[MUST] + nparts[SHOULD] + nparts[MUST_NOT] == 0) return *why = "empty query", T_ERROR;
    if (nparts[MUST] && nparts[SHOULD] && !count)
        return *why = "optional clauses beside required ones only score: FTS5 cannot express that", T_UNSUPPORTED;
    buf_t *pos = nparts[MUST] ? &parts[MUST] : nparts[SHOULD] ? &parts[SHOULD] : NULL;
    if (!pos) return T_NOTHING;
    if (nparts[MUST_NOT]) {
        buf_addc(out, '(');
        buf_add(out, pos->p, pos->len);
        buf_adds(out, ") NOT (");
        buf_add(out, parts[MUST_NOT].p, parts[MUST_NOT].len);
        buf_addc(out, ')');
    } else {
        buf_add(out, pos->p, pos->len);
    }
    return T_OK;
}

/* ------------------------------------------------------------------ the engine */

static sqlite3 *db;

static void die(const char *what) {
    fprintf(stderr, "sqlite-peer: %s: %s\n", what, db ? sqlite3_errmsg(db) : "no database");
    exit(1);
}

static void exec(const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "sqlite-peer: %s: %s\n", sql, err ? err : "?");
        exit(1);
    }
}

/* The index's size: the database file (journal_mode=OFF leaves no journal beside it). */
static long long file_bytes(const char *file) {
    struct stat st;
    return stat(file, &st) == 0 ? (long long)st.st_size : 0;
}

static void one_line_print(const char *tag, const char *msg) {
    printf("%s\t", tag);
    for (const char *s = msg; *s; s++) putchar(*s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s);
    putchar('\n');
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s INDEX_DIR DOCS.ndjson\n", argv[0]);
        return 2;
    }
    char *path;
    if (asprintf(&path, "%s/fts.db", argv[1]) < 0) return 1;
    if (mkdir(argv[1], 0777) != 0 && errno != EEXIST) {
        perror(argv[1]);
        return 1;
    }
    FILE *in = fopen(argv[2], "rb");
    if (!in) {
        perror(argv[2]);
        return 1;
    }
    for (const char *suffix = ""; suffix; suffix = *suffix ? NULL : "-journal") {
        /* INDEX_DIR should be empty; start from scratch if it is not. */
        char *p;
        if (asprintf(&p, "%s%s", path, suffix) >= 0) {
            if (unlink(p) != 0 && errno != ENOENT) perror(p);
            free(p);
        }
    }

    int64_t t0 = now_ns(CLOCK_MONOTONIC);
    if (sqlite3_open(path, &db) != SQLITE_OK) die("open");
    exec("PRAGMA journal_mode=OFF");
    exec("PRAGMA synchronous=OFF");
    exec("PRAGMA locking_mode=EXCLUSIVE");
    exec("PRAGMA cache_size=-262144"); /* 256 MiB of page cache while loading */
    exec("CREATE VIRTUAL TABLE docs USING fts5(body, content='', tokenize='unicode61 remove_diacritics 0')");
    exec("BEGIN");
    sqlite3_stmt *ins;
    if (sqlite3_prepare_v2(db, "INSERT INTO docs(rowid, body) VALUES(?, ?)", -1, &ins, NULL) != SQLITE_OK)
        die("prepare insert");
    buf_t body = {0};
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long long ndocs = 0, lineno = 0;
    while ((len = getline(&line, &cap, in)) > 0) {
        lineno++;
        if (ndjson_blank(line, (size_t)len)) continue;
        int found = ndjson_string_field(line, (size_t)len, "body", &body.p, &body.cap, &body.len);
        if (found == -2) {
            fprintf(stderr, "sqlite-peer: out of memory\n");
            return 1;
        }
        if (found < 0) {
            fprintf(stderr, "sqlite-peer: %s:%lld: malformed document line\n", argv[2], lineno);
            return 1;
        }
        sqlite3_bind_int64(ins, 1, ++ndocs);
        sqlite3_bind_text(ins, 2, found ? body.p : "", (int)body.len, SQLITE_STATIC);
        if (sqlite3_step(ins) != SQLITE_DONE) die("insert");
        sqlite3_reset(ins);
    }
    free(line);
    fclose(in);
    sqlite3_finalize(ins);
    exec("INSERT INTO docs(docs) VALUES('optimize')");
    exec("COMMIT");
    double secs = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e9;

    /* Serving: a modest page cache plus memory-mapped reads (capped by SQLITE_MAX_MMAP_SIZE). */
    exec("PRAGMA cache_size=-65536");
    exec("PRAGMA mmap_size=68719476736");
    printf("READY\t{\"engine\":\"sqlite\",\"version\":\"%s\",\"docs\":%lld,\"index_seconds\":%.3f,"
           "\"index_bytes\":%lld}\n",
           sqlite3_libversion(), ndocs, secs, file_bytes(path));
    fflush(stdout);

    sqlite3_stmt *count_stmt, *top_stmt;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM docs WHERE docs MATCH ?", -1, &count_stmt, NULL) != SQLITE_OK)
        die("prepare count");
    if (sqlite3_prepare_v2(db, "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT ?", -1, &top_stmt,
                           NULL) != SQLITE_OK)
        die("prepare top");

    buf_t expr = {0};
    line = NULL;
    cap = 0;
    while ((len = getline(&line, &cap, stdin)) > 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab) {
            one_line_print("ERROR", "expected MODE<TAB>QUERY");
            fflush(stdout);
            continue;
        }
        *tab = '\0';
        const char *mode = line, *query = tab + 1;
        bool count = false;
        long topn = 0;
        if (!strcmp(mode, "COUNT")) {
            count = true;
        } else if (!strncmp(mode, "TOP_", 4) && mode[4] && strspn(mode + 4, "0123456789") == strlen(mode + 4)) {
            topn = strtol(mode + 4, NULL, 10);
        } else {
            one_line_print("ERROR", "unknown mode");
            fflush(stdout);
            continue;
        }
        int64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), w0 = now_ns(CLOCK_MONOTONIC);
        const char *why = NULL;
        int r = translate(query, count, &expr, &why);
        long long hits = 0;
        if (r == T_OK) {
            sqlite3_stmt *st = count ? count_stmt : top_stmt;
            sqlite3_bind_text(st, 1, expr.p, (int)expr.len, SQLITE_STATIC);
            if (!count) sqlite3_bind_int64(st, 2, topn);
            int rc;
            while ((rc = sqlite3_step(st)) == SQLITE_ROW) hits = count ? sqlite3_column_int64(st, 0) : hits + 1;
            if (rc != SQLITE_DONE) {
                static char msg[512];
                snprintf(msg, sizeof msg, "%s", sqlite3_errmsg(db));
                r = T_ERROR;
                why = msg;
            }
            sqlite3_reset(st);
            sqlite3_clear_bindings(st);
        }
        int64_t w1 = now_ns(CLOCK_MONOTONIC), c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
        if (r == T_OK || r == T_NOTHING) {
            printf("OK\t%lld\t%lld\t%lld\n", hits, (long long)(c1 - c0), (long long)(w1 - w0));
        } else {
            one_line_print(r == T_UNSUPPORTED ? "UNSUPPORTED" : "ERROR", why ? why : "unknown");
        }
        fflush(stdout);
    }
    free(line);
    sqlite3_finalize(count_stmt);
    sqlite3_finalize(top_stmt);
    sqlite3_close(db);
    return 0;
}
