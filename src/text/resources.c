/*
 * resources.c — the analysis data embedded from Debian's Lucene 4.10 jars
 * (gen_resources.py writes the table at build time): raw bytes by name,
 * and word lists parsed once into cached term sets, as Lucene's
 * WordlistLoader reads them (snowball and plain formats).
 *
 * The cache is a short list under a mutex: sets are built when an index's
 * analysis settings are parsed, never per document. Rejected: committing
 * the lists (they are Lucene's files, and the jar is the reference the
 * analysis tests compare against anyway).
 */
#include <pthread.h>

#include "text/text_int.h"

const char *tv_resource(const char *name, size_t *len) {
    for (size_t i = 0; i < tv_text_resource_count; i++)
        if (strcmp(tv_text_resources[i].name, name) == 0) {
            *len = tv_text_resources[i].len;
            return tv_text_resources[i].data;
        }
    return NULL;
}

static bool ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

/* Splits a list into words (pointers into data); returns the count. */
static size_t parse_words(const char *d, size_t n, bool snowball, const char **w, size_t *l) {
    size_t cnt = 0;
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && d[e] != '\n') e++;
        size_t end = e;
        if (snowball) {
            for (size_t k = i; k < e; k++)
                if (d[k] == '|') {
                    end = k;
                    break;
                }
            for (size_t k = i; k < end;) {
                while (k < end && ws(d[k])) k++;
                size_t b = k;
                while (k < end && !ws(d[k])) k++;
                if (k > b) {
                    if (w) {
                        w[cnt] = d + b;
                        l[cnt] = k - b;
                    }
                    cnt++;
                }
            }
        } else if (!(e > i && d[i] == '#')) {
            size_t b = i;
            while (b < end && ws(d[b])) b++;
            while (end > b && ws(d[end - 1])) end--;
            if (end > b) {
                if (w) {
                    w[cnt] = d + b;
                    l[cnt] = end - b;
                }
                cnt++;
            }
        }
        i = e + 1;
    }
    return cnt;
}

typedef struct cached {
    const char *name;
    bool snowball;
    tv_termset *set;
} cached;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static cached cache[128];
static size_t ncache;

const tv_termset *tv_resource_words(const char *name, bool snowball) {
    size_t n;
    const char *d = tv_resource(name, &n);
    if (!d) return NULL;
    tv_termset *found = NULL;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < ncache && !found; i++)
        if (cache[i].snowball == snowball && strcmp(cache[i].name, name) == 0) found = cache[i].set;
    if (!found && ncache < TV_ARRAY_LEN(cache)) {
        size_t cnt = parse_words(d, n, snowball, NULL, NULL);
        const char **w = tv_malloc((cnt + 1) * sizeof *w);
        size_t *l = tv_malloc((cnt + 1) * sizeof *l);
        if (w && l) {
            parse_words(d, n, snowball, w, l);
            found = tv_termset_new(w, l, cnt, false);
            if (found) cache[ncache++] = (cached){name, snowball, found};
        }
        tv_free(w);
        tv_free(l);
    }
    pthread_mutex_unlock(&mu);
    return found;
}
