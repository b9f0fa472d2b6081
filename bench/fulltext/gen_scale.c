/* gen_scale: the *scale* corpus of bench/fulltext.
 *
 *     gen_scale TRAIN.ndjson N OUT.ndjson [SEED]
 *
 * Reads the real corpus (NDJSON {"id","body"} lines, as make_corpus.py writes them, decoded by
 * ndjson.h; a line that is malformed or has no "body" string is skipped and counted), and learns
 *   - word bigrams: a token is a whitespace-separated word with its punctuation attached
 *     ("end.", "(see", "Webster's"), so the output reads like text with sentences and
 *     punctuation; the successors of each token are kept as the multiset seen in training, so a
 *     walk picks the next token with its bigram probability and token frequencies follow the
 *     training corpus's (Zipf) unigram distribution;
 *   - sentence starts: the tokens that follow a token ending a sentence (. ! ? possibly followed
 *     by a closing quote or bracket), as a multiset;
 *   - the distribution of document lengths in tokens (the empirical one: a length is drawn from
 *     the training documents).
 * Then writes N documents (default 1,000,000), ids "s0000001", ..., each a Markov walk of a drawn
 * length that starts at a drawn sentence start and restarts at one whenever the current token has
 * no successor (it only ended documents in training). Bigrams never span two training documents.
 *
 * Output is streamed through a fixed buffer; memory is that of the model (a few times the size of
 * the training tokens), whatever N is. The output depends only on the training file, N and SEED
 * (default 1): the generator is xoshiro256** seeded by splitmix64, with integer arithmetic only.
 * OUT may be "-" for standard output.
 *
 * Build: cc -O2 -o gen_scale gen_scale.c -lm   (ndjson.h, beside it, is its NDJSON decoder)
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ndjson.h"

static void die(const char *msg) {
    fprintf(stderr, "gen_scale: %s\n", msg);
    exit(1);
}

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) die("out of memory");
    return q;
}

/* ---- growable arrays ------------------------------------------------------------------------ */

typedef struct { uint32_t *v; size_t n, cap; } u32vec;
typedef struct { char *v; size_t n, cap; } bytes;

static void u32_push(u32vec *a, uint32_t x) {
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 1024;
        a->v = xrealloc(a->v, a->cap * sizeof *a->v);
    }
    a->v[a->n++] = x;
}

static void bytes_reserve(bytes *b, size_t extra) {
    if (b->n + extra > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->n + extra) c *= 2;
        b->v = xrealloc(b->v, c);
        b->cap = c;
    }
}

static void bytes_put(bytes *b, const char *s, size_t n) {
    bytes_reserve(b, n);
    memcpy(b->v + b->n, s, n);
    b->n += n;
}

/* ---- vocabulary ------------------------------------------------------------------------------ */

typedef struct {
    uint64_t off;   /* the token's bytes in `text` */
    uint32_t len;
    uint32_t hash;
} tok_t;

static bytes text;                 /* every distinct token's bytes, back to back */
static tok_t *toks;                /* id -> token */
static size_t ntoks, toks_cap;
static uint32_t *table;            /* open addressing: id + 1, 0 = empty */
static size_t table_cap;

static uint32_t hash_bytes(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h ^ (h >> 15);
}

static void table_grow(void) {
    size_t cap = table_cap ? table_cap * 2 : 1 << 16;
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t) die("out of memory");
    for (size_t id = 0; id < ntoks; id++) {
        size_t i = toks[id].hash & (cap - 1);
        while (t[i]) i = (i + 1) & (cap - 1);
        t[i] = (uint32_t)id + 1;
    }
    free(table);
    table = t;
    table_cap = cap;
}

static uint32_t intern(const char *s, size_t n) {
    if ((ntoks + 1) * 2 > table_cap) table_grow();
    uint32_t h = hash_bytes(s, n);
    size_t i = h & (table_cap - 1);
    while (table[i]) {
        tok_t *t = &toks[table[i] - 1];
        if (t->hash == h && t->len == n && memcmp(text.v + t->off, s, n) == 0) return table[i] - 1;
        i = (i + 1) & (table_cap - 1);
    }
    if (ntoks >= UINT32_MAX - 2) die("vocabulary too large");
    if (ntoks == toks_cap) {
        toks_cap = toks_cap ? toks_cap * 2 : 1 << 16;
        toks = xrealloc(toks, toks_cap * sizeof *toks);
    }
    toks[ntoks].off = text.n;
    toks[ntoks].len = (uint32_t)n;
    toks[ntoks].hash = h;
    bytes_put(&text, s, n);
    table[i] = (uint32_t)ntoks + 1;
    return (uint32_t)ntoks++;
}

/* ---- random numbers: xoshiro256** seeded by splitmix64 --------------------------------------- */

static uint64_t rs[4];

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rnd(void) {
    uint64_t r = rotl(rs[1] * 5, 7) * 9, t = rs[1] << 17;
    rs[2] ^= rs[0]; rs[3] ^= rs[1]; rs[1] ^= rs[2]; rs[0] ^= rs[3];
    rs[2] ^= t; rs[3] = rotl(rs[3], 45);
    return r;
}

/* uniform in [0, n), n < 2^32 (Lemire's multiply-shift; the bias is below 2^-32 * n) */
static inline uint32_t below(uint32_t n) { return (uint32_t)(((rnd() >> 32) * (uint64_t)n) >> 32); }

static inline uint64_t below64(uint64_t n) {
    if (n <= UINT32_MAX) return below((uint32_t)n);
    return rnd() % n;
}

/* ---- the model ------------------------------------------------------------------------------- */

typedef struct {
    uint64_t succ;      /* first successor in `succ` */
    uint32_t nsucc;     /* how many successors (with repetition) */
    uint32_t esclen;    /* the token as JSON string content */
    uint64_t esc;       /* offset in `esc` */
} node_t;

static int ends_sentence(const char *s, uint32_t n) {
    while (n > 0 && (s[n - 1] == '"' || s[n - 1] == '\'' || s[n - 1] == ')' || s[n - 1] == ']'))
        n--;
    if (n >= 3 && (unsigned char)s[n - 3] == 0xE2 && (unsigned char)s[n - 2] == 0x80 &&
        ((unsigned char)s[n - 1] == 0x9D || (unsigned char)s[n - 1] == 0x99))  /* ” ’ */
        n -= 3;
    return n > 1 && (s[n - 1] == '.' || s[n - 1] == '!' || s[n - 1] == '?');
}

static void escape_json(bytes *out, const char *s, uint32_t n) {
    static const char hex[] = "0123456789abcdef";
    for (uint32_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            bytes_put(out, e, 2);
        } else if (c < 0x20 || c == 0x7f) {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            bytes_put(out, e, 6);
        } else {
            bytes_put(out, (const char *)&c, 1);
        }
    }
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: gen_scale TRAIN.ndjson N OUT.ndjson [SEED]\n"
                        "  N defaults to 1000000 when given as 0; SEED defaults to 1\n");
        return 2;
    }
    char *endp;
    errno = 0;
    unsigned long long ndocs = strtoull(argv[2], &endp, 10);
    if (errno || *endp || argv[2][0] == '-') die("N must be a non-negative integer");
    if (ndocs == 0) ndocs = 1000000;
    uint64_t seed = 1;
    if (argc == 5) {
        errno = 0;
        seed = strtoull(argv[4], &endp, 10);
        if (errno || *endp) die("SEED must be an integer");
    }

    double t0 = now();
    FILE *in = fopen(argv[1], "rb");
    if (!in) { perror(argv[1]); return 1; }

    /* 1. tokens of every training document, documents separated by SEP */
    const uint32_t SEP = UINT32_MAX;
    u32vec stream = {0}, lengths = {0};
    bytes body = {0};
    char *line = NULL;
    size_t linecap = 0;
    ssize_t len;
    uint64_t lineno = 0, bad = 0, train_bytes = 0;
    while ((len = getline(&line, &linecap, in)) > 0) {
        lineno++;
        int found = ndjson_string_field(line, (size_t)len, "body", &body.v, &body.cap, &body.n);
        if (found == -2) die("out of memory");
        if (found != 1) {
            if (!ndjson_blank(line, (size_t)len)) bad++;
            continue;
        }
        train_bytes += body.n;
        uint32_t words = 0;
        size_t i = 0;
        while (i < body.n) {
            while (i < body.n && (body.v[i] == ' ' || body.v[i] == '\t' || body.v[i] == '\n' ||
                                  body.v[i] == '\r' || body.v[i] == '\f' || body.v[i] == '\v'))
                i++;
            size_t j = i;
            while (j < body.n && !(body.v[j] == ' ' || body.v[j] == '\t' || body.v[j] == '\n' ||
                                   body.v[j] == '\r' || body.v[j] == '\f' || body.v[j] == '\v'))
                j++;
            if (j > i) {
                u32_push(&stream, intern(body.v + i, j - i));
                words++;
            }
            i = j;
        }
        if (words) {
            u32_push(&lengths, words);
            u32_push(&stream, SEP);
        }
    }
    if (ferror(in)) die("error reading the training file");
    fclose(in);
    free(line);
    free(body.v);
    free(table);
    table = NULL;
    if (bad)
        fprintf(stderr, "gen_scale: %llu of %llu lines were malformed or had no \"body\" string, "
                        "skipped\n", (unsigned long long)bad, (unsigned long long)lineno);
    if (lengths.n == 0) die("the training file has no document with text");

    /* 2. renumber the tokens by descending frequency (ties by first appearance), so that the
     * frequent ones, which most steps of the walk visit, share a small, cached part of `node` */
    {
        uint64_t *key = calloc(ntoks, sizeof *key);
        if (!key) die("out of memory");
        for (size_t i = 0; i < stream.n; i++)
            if (stream.v[i] != SEP) key[stream.v[i]] += (uint64_t)1 << 32;
        for (size_t v = 0; v < ntoks; v++) key[v] = ((~key[v]) & ~(uint64_t)UINT32_MAX) | v;
        qsort(key, ntoks, sizeof *key, cmp_u64);
        uint32_t *newid = malloc(ntoks * sizeof *newid);
        tok_t *sorted = malloc(ntoks * sizeof *sorted);
        if (!newid || !sorted) die("out of memory");
        for (size_t r = 0; r < ntoks; r++) {
            uint32_t old = (uint32_t)(key[r] & UINT32_MAX);
            newid[old] = (uint32_t)r;
            sorted[r] = toks[old];
        }
        for (size_t i = 0; i < stream.n; i++)
            if (stream.v[i] != SEP) stream.v[i] = newid[stream.v[i]];
        free(toks);
        toks = sorted;
        free(newid);
        free(key);
    }

    /* 3. successor multisets, grouped by token (a counting sort of the bigrams) */
    node_t *node = calloc(ntoks, sizeof *node);
    if (!node) die("out of memory");
    uint64_t nbigrams = 0;
    for (size_t i = 0; i + 1 < stream.n; i++)
        if (stream.v[i] != SEP && stream.v[i + 1] != SEP) { node[stream.v[i]].nsucc++; nbigrams++; }
    uint32_t *succ = malloc((nbigrams ? nbigrams : 1) * sizeof *succ);
    if (!succ) die("out of memory");
    uint64_t acc = 0;
    for (size_t v = 0; v < ntoks; v++) { node[v].succ = acc; acc += node[v].nsucc; node[v].nsucc = 0; }
    u32vec starts = {0};
    for (size_t i = 0; i + 1 < stream.n; i++) {
        uint32_t a = stream.v[i], b = stream.v[i + 1];
        if (a == SEP || b == SEP) continue;
        succ[node[a].succ + node[a].nsucc++] = b;
        if (ends_sentence(text.v + toks[a].off, toks[a].len)) u32_push(&starts, b);
    }
    if (starts.n == 0)  /* no sentences: start anywhere */
        for (size_t i = 0; i < stream.n; i++)
            if (stream.v[i] != SEP) u32_push(&starts, stream.v[i]);
    uint64_t ntrain_tokens = stream.n - lengths.n;
    free(stream.v);

    /* 4. each token as JSON string content */
    bytes esc = {0};
    for (size_t v = 0; v < ntoks; v++) {
        node[v].esc = esc.n;
        escape_json(&esc, text.v + toks[v].off, toks[v].len);
        node[v].esclen = (uint32_t)(esc.n - node[v].esc);
    }
    free(text.v);
    free(toks);
    fprintf(stderr, "gen_scale: trained on %zu docs, %llu bytes, %llu tokens, %zu distinct, "
                    "%zu sentence starts in %.1f s\n",
            lengths.n, (unsigned long long)train_bytes, (unsigned long long)ntrain_tokens, ntoks,
            starts.n, now() - t0);

    /* 5. the walks. A step's cost is one cache miss in `succ`, and one walk's steps depend on
     * each other; so WALKS documents are walked side by side, step by step, for the CPU to
     * overlap their misses, each with its own splitmix64 stream seeded from the main generator.
     * The documents are then written in order. */
    uint64_t sm = seed;
    for (int i = 0; i < 4; i++) rs[i] = splitmix64(&sm);
    FILE *out = strcmp(argv[3], "-") == 0 ? stdout : fopen(argv[3], "wb");
    if (!out) { perror(argv[3]); return 1; }
    enum { WALKS = 16 };
    struct { uint64_t rng; uint32_t cur, left; bytes b; } w[WALKS];
    memset(w, 0, sizeof w);
    uint64_t written = 0;
    const uint64_t nstarts = starts.n;
    double t1 = now();
    for (unsigned long long d0 = 1; d0 <= ndocs; d0 += WALKS) {
        int nw = ndocs - d0 + 1 < WALKS ? (int)(ndocs - d0 + 1) : WALKS;
        int active = nw;
        for (int j = 0; j < nw; j++) {
            w[j].b.n = 0;
            bytes_reserve(&w[j].b, 64);
            w[j].b.n = (size_t)snprintf(w[j].b.v, 64, "{\"id\":\"s%07llu\",\"body\":\"", d0 + j);
            w[j].left = lengths.v[below((uint32_t)lengths.n)];
            w[j].cur = starts.v[below64(nstarts)];
            w[j].rng = rnd();
            node_t *nd = &node[w[j].cur];
            bytes_put(&w[j].b, esc.v + nd->esc, nd->esclen);
            if (--w[j].left == 0) active--;
        }
        while (active) {
            for (int j = 0; j < nw; j++) {
                if (!w[j].left) continue;
                uint64_t r = splitmix64(&w[j].rng) >> 32;
                node_t *nd = &node[w[j].cur];
                uint32_t next;
                if (nd->nsucc)
                    next = succ[nd->succ + ((r * nd->nsucc) >> 32)];
                else
                    next = starts.v[nstarts <= UINT32_MAX ? (r * nstarts) >> 32 : r % nstarts];
                w[j].cur = next;
                nd = &node[next];
                bytes *b = &w[j].b;
                if (b->n + nd->esclen + 1 > b->cap) bytes_reserve(b, nd->esclen + 1);
                b->v[b->n] = ' ';
                memcpy(b->v + b->n + 1, esc.v + nd->esc, nd->esclen);
                b->n += nd->esclen + 1;
                if (--w[j].left == 0) active--;
            }
        }
        for (int j = 0; j < nw; j++) {
            bytes_put(&w[j].b, "\"}\n", 3);
            if (fwrite(w[j].b.v, 1, w[j].b.n, out) != w[j].b.n) die("error writing the output");
            written += w[j].b.n;
        }
    }
    if (out == stdout ? fflush(out) != 0 : fclose(out) != 0) die("error writing the output");
    double dt = now() - t1;
    fprintf(stderr, "gen_scale: wrote %llu docs, %llu bytes in %.1f s (%.0f MB/s), seed %llu\n",
            ndocs, (unsigned long long)written, dt, dt > 0 ? written / dt / 1e6 : 0.0,
            (unsigned long long)seed);
    for (int j = 0; j < WALKS; j++) free(w[j].b.v);
    free(esc.v);
    free(node);
    free(succ);
    free(starts.v);
    free(lengths.v);
    return 0;
}
