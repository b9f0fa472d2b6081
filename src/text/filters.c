/*
 * filters.c — token filters, each behaving as its Lucene counterpart:
 *   lowercase / uppercase  Character.toLowerCase/toUpperCase per code point
 *   stop                   StopFilter (removed tokens leave position gaps)
 *   asciifolding           ASCIIFoldingFilter (preserve_original emits the
 *                          folded token, then the original at the same position)
 *   trim                   TrimFilter (Character.isWhitespace at both ends;
 *                          offsets unchanged)
 *   length                 LengthFilter (min..max UTF-16 units, inclusive)
 *   snowball / stemmer / porter_stem   libstemmer (Snowball); `porter` is
 *                          the algorithm of Lucene's PorterStemFilter
 *   english_possessive     EnglishPossessiveFilter ('s, ’s, ＇s)
 *   minimal_english        EnglishMinimalStemFilter (plural -s/-es/-ies)
 *   edge n-grams           EdgeNGramTokenFilter without the original (the
 *                          hidden ._index_prefix field of index_prefixes):
 *                          the prefixes of min..max code points of each
 *                          token, stacked at its position with its offsets;
 *                          a token shorter than min leaves a position gap
 *   n-shingles             FixedShingleFilter(n, " ", "") of
 *                          search_as_you_type's sub-fields: a shingle starts
 *                          at each token and takes the next n positions, a
 *                          position without a token (a gap, or one of the
 *                          extra trailing positions the prefix sub-field
 *                          adds) contributing an empty filler; a shingle
 *                          that would run past the last position is not
 *                          emitted. Edge n-grams there keep the original
 *                          when it is longer than max (preserveOriginal).
 *   2-shingles             FixedShingleFilter(2) (the hidden ._index_phrase
 *                          field of index_phrases): "a b" for each pair of
 *                          adjacent tokens, at the first one's position,
 *                          offsets from a's start to b's end. Pairs across a
 *                          position gap (a removed stop word) are not
 *                          emitted: Lucene emits them with a "_" filler,
 *                          which no query trove builds can ask for, since
 *                          phrase queries whose tokens have gaps do not use
 *                          the shingle field (TextFieldType.phraseQuery).
 *
 * Filters rewrite the token array in place; a filter that adds tokens
 * (asciifolding with preserve_original) builds a new array in the arena.
 * Removing a token adds its position increment to the next kept token (or
 * to the array's trailing gap), which is how Lucene's FilteringTokenFilter
 * keeps phrase positions honest.
 *
 * libstemmer stemmers hold mutable state, so each thread keeps its own,
 * created on first use and freed at thread exit (pthread key destructor);
 * rejected: one stemmer per analyze call (an allocation per document) and
 * a mutex around shared stemmers (contention on the indexing path).
 *
 * Stem memo: beside each thread's stemmer sits a small cache of recent
 * (term -> stem) pairs, 2-way set associative (STEM_MEMO_SETS sets, LRU
 * within a set), terms and stems up to 30 bytes. A stemmer is a pure
 * function of the term's bytes, so the output is the same; what changes is
 * that a word seen recently costs a hash and a compare instead of a
 * libstemmer call (Snowball's generated code walks the word several times,
 * decoding UTF-8 per character). Text follows Zipf's law, so most tokens
 * are recent words: on one cold pass over 550 KB of English messages the
 * memo saves two thirds of libstemmer's instructions, on text it has seen
 * nearly all (docs/performance.md, "Analysis throughput"). One memo per
 * stemmer used per thread (128 KiB); the language files' UTF-16 rule sets
 * use it too (tv_stem_memo_for, keyed by the rule function). Rejected: a per-analyzer shared cache (locking on the
 * indexing path), an unbounded map (memory grows with the vocabulary),
 * and a hand-written Porter stemmer (a second implementation to keep
 * byte-identical with libstemmer's, for one algorithm of twenty).
 */
#include <libstemmer.h>
#include <pthread.h>
#include <stdlib.h>

#include "text/text_int.h"

/* ------------------------------------------------------------ term sets */

static const char *const english_words[] = {
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
    "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
    "these", "they", "this", "to", "was", "will", "with"};
static const uint32_t english_lens[] = {1, 2, 3, 3, 2, 2, 2, 3, 2, 3, 2, 2, 4, 2, 2, 2, 3,
                                        2, 2, 2, 4, 4, 3, 5, 4, 5, 5, 4, 4, 2, 3, 4, 4};
static const tv_termset english_set = {english_words, english_lens, TV_ARRAY_LEN(english_words),
                                       false, NULL, 0};
/* the same words hashed (tv_termset_new), made once; the static set above
 * (binary search) if that allocation failed */
static const tv_termset *english_hashed;
static pthread_once_t english_once = PTHREAD_ONCE_INIT;
static void english_init(void) {
    size_t lens[TV_ARRAY_LEN(english_words)];
    for (size_t i = 0; i < TV_ARRAY_LEN(english_words); i++) lens[i] = english_lens[i];
    english_hashed = tv_termset_new(english_words, lens, TV_ARRAY_LEN(english_words), false);
}

const tv_termset *tv_stop_english(void) {
    pthread_once(&english_once, english_init);
    return english_hashed ? english_hashed : &english_set;
}

static inline int cmp_word(const char *a, size_t alen, const char *b, size_t blen) {
    /* the first bytes settle most steps of a binary search: no call for them */
    if (alen && blen && a[0] != b[0]) return (uint8_t)a[0] < (uint8_t)b[0] ? -1 : 1;
    return tv_memcmp2(a, alen, b, blen);
}

static inline uint32_t term_hash(const char *t, size_t n) {
    uint32_t h = 2166136261u ^ (uint32_t)n;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)t[i]) * 16777619u;
    return h ^ (h >> 15);
}

static bool set_has_exact(const tv_termset *s, const char *t, size_t n) {
    if (s->slots) {
        for (uint32_t i = term_hash(t, n) & s->mask;; i = (i + 1) & s->mask) {
            uint32_t k = s->slots[i];
            if (!k) return false;
            if (s->lens[k - 1] == n && memcmp(s->words[k - 1], t, n) == 0) return true;
        }
    }
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = cmp_word(s->words[mid], s->lens[mid], t, n);
        if (c == 0) return true;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return false;
}

/* Lower-cases [t, t+n) into out (capacity >= n*3+4: a case mapping grows
 * UTF-8 by half at most, but each invalid byte becomes U+FFFD, three
 * bytes). Returns bytes written. */
static size_t lower_into(const char *t, size_t n, char *out) {
    const uint8_t *s = (const uint8_t *)t, *end = s + n;
    size_t o = 0;
    while (s < end) {
        if (*s < 0x80) {
            uint8_t c = *s++;
            out[o++] = (char)((uint8_t)(c - 'A') < 26 ? c + 32 : c);
            continue;
        }
        uint32_t cp;
        s += tv_utf8_decode(s, end, &cp);
        o += tv_utf8_encode(tv_uc_lower(cp), (uint8_t *)out + o);
    }
    return o;
}

static size_t upper_into(const char *t, size_t n, char *out) {
    const uint8_t *s = (const uint8_t *)t, *end = s + n;
    size_t o = 0;
    while (s < end) {
        if (*s < 0x80) {
            uint8_t c = *s++;
            out[o++] = (char)((uint8_t)(c - 'a') < 26 ? c - 32 : c);
            continue;
        }
        uint32_t cp;
        s += tv_utf8_decode(s, end, &cp);
        o += tv_utf8_encode(tv_uc_upper(cp), (uint8_t *)out + o);
    }
    return o;
}

bool tv_termset_has(const tv_termset *s, const char *term, size_t len) {
    if (!s->ignore_case) return set_has_exact(s, term, len);
    char stackbuf[256];
    char *buf = stackbuf;
    size_t need = len * 3 + 4;
    if (need > sizeof stackbuf) {
        buf = tv_malloc(need);
        if (!buf) return set_has_exact(s, term, len); /* degrade: exact match */
    }
    size_t n = lower_into(term, len, buf);
    bool r = set_has_exact(s, buf, n);
    if (buf != stackbuf) tv_free(buf);
    return r;
}

typedef struct { const char *w; uint32_t len; } word_ref;
static int cmp_ref(const void *a, const void *b) {
    const word_ref *x = a, *y = b;
    return cmp_word(x->w, x->len, y->w, y->len);
}

tv_termset *tv_termset_new(const char *const *words, const size_t *lens, size_t n,
                           bool ignore_case) {
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) bytes += lens[i] * 3 + 5;
    /* one block: the struct, the pointer and length arrays, the strings */
    size_t nslots = 8;
    while (nslots < 2 * n) nslots *= 2; /* at most half full */
    size_t head = sizeof(tv_termset) + n * sizeof(char *) + n * sizeof(uint32_t) +
                  nslots * sizeof(uint32_t);
    head = (head + 7) & ~(size_t)7;
    char *block = tv_malloc(head + bytes + 1);
    word_ref *refs = tv_malloc((n ? n : 1) * sizeof *refs);
    if (!block || !refs) {
        tv_free(block);
        tv_free(refs);
        return NULL;
    }
    tv_termset *s = (tv_termset *)block;
    const char **wp = (const char **)(block + sizeof(tv_termset));
    uint32_t *lp = (uint32_t *)(block + sizeof(tv_termset) + n * sizeof(char *));
    uint32_t *slots = lp + n;
    char *str = block + head;
    for (size_t i = 0; i < n; i++) {
        size_t k = ignore_case ? lower_into(words[i], lens[i], str) : lens[i];
        if (!ignore_case) memcpy(str, words[i], k);
        str[k] = 0;
        refs[i].w = str;
        refs[i].len = (uint32_t)k;
        str += k + 1;
    }
    qsort(refs, n, sizeof *refs, cmp_ref);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && cmp_ref(&refs[m - 1], &refs[i]) == 0) continue;
        refs[m++] = refs[i];
    }
    for (size_t i = 0; i < m; i++) {
        wp[i] = refs[i].w;
        lp[i] = refs[i].len;
    }
    tv_free(refs);
    s->words = wp;
    s->lens = lp;
    s->n = m;
    s->ignore_case = ignore_case;
    memset(slots, 0, nslots * sizeof *slots);
    for (size_t i = 0; i < m; i++) {
        uint32_t k = term_hash(wp[i], lp[i]) & (uint32_t)(nslots - 1);
        while (slots[k]) k = (k + 1) & (uint32_t)(nslots - 1);
        slots[k] = (uint32_t)i + 1;
    }
    s->slots = slots;
    s->mask = (uint32_t)(nslots - 1);
    return s;
}

void tv_termset_free(tv_termset *s) {
    if (s && s != &english_set && s != english_hashed) tv_free(s);
}

/* ------------------------------------------------------------ stemmers */

const char *const tv_stem_algos[] = {"porter", "english", "arabic", "armenian", "basque",
                                     "catalan", "danish", "dutch", "finnish", "french",
                                     "german", "hungarian", "irish", "italian", "lithuanian",
                                     "norwegian", "portuguese", "romanian", "russian",
                                     "spanish", "swedish", "turkish"};
const size_t tv_stem_algo_count = TV_ARRAY_LEN(tv_stem_algos);
#define STEM_MAX 32
_Static_assert(TV_ARRAY_LEN(tv_stem_algos) <= STEM_MAX, "stemmer cache size");

int tv_stem_algo_find(const char *name, size_t len) {
    for (size_t i = 0; i < tv_stem_algo_count; i++)
        if (tv_streq(name, len, tv_stem_algos[i])) return (int)i;
    return -1;
}

/* ---- the stem memo (see the file comment) */
#ifndef STEM_MEMO_SETS
#define STEM_MEMO_SETS 1024 /* a power of two; 2 ways of 64 bytes: 128 KiB */
#endif
#define STEM_MEMO_MAX 30   /* longest term (and stem) kept, in bytes */

typedef struct memo_slot {
    uint8_t klen, slen; /* klen 0: empty; slen 0xFF: the stem is the term */
    char key[STEM_MEMO_MAX];
    char stem[STEM_MEMO_MAX];
    uint8_t pad[2];
} memo_slot;
_Static_assert(sizeof(memo_slot) == 64, "one cache line a slot");

struct tv_stem_memo {
    memo_slot way[STEM_MEMO_SETS][2]; /* way[s][0] is the most recently used */
};
typedef struct tv_stem_memo stem_memo;

/* The memoized stem of [t, +n) into *stem / *slen (*same when the stem is
 * the term); false when not memoized. */
static inline bool memo_get(stem_memo *m, uint32_t h, const char *t, uint32_t n,
                            const char **stem, uint32_t *slen, bool *same) {
    memo_slot *set = m->way[h & (STEM_MEMO_SETS - 1)];
    for (int w = 0; w < 2; w++) {
        memo_slot *e = &set[w];
        if (e->klen != n || memcmp(e->key, t, n) != 0) continue;
        if (w) { /* LRU: the hit becomes the most recent way */
            memo_slot tmp = set[0];
            set[0] = set[1];
            set[1] = tmp;
            e = &set[0];
        }
        *same = e->slen == 0xFF;
        *stem = e->stem;
        *slen = *same ? n : e->slen;
        return true;
    }
    return false;
}

static void memo_put(stem_memo *m, uint32_t h, const char *t, uint32_t n, const char *stem,
                     uint32_t slen, bool same) {
    if (!same && slen > STEM_MEMO_MAX) return;
    memo_slot *set = m->way[h & (STEM_MEMO_SETS - 1)];
    set[1] = set[0];
    memo_slot *e = &set[0];
    e->klen = (uint8_t)n;
    memcpy(e->key, t, n);
    e->slen = same ? 0xFF : (uint8_t)slen;
    if (!same) memcpy(e->stem, stem, slen);
}

#define STEM_EXT_MAX 16 /* memos of the language files' stemmers a thread keeps */

typedef struct stem_cache {
    struct sb_stemmer *s[STEM_MAX];
    stem_memo *memo[STEM_MAX]; /* NULL until used (or when its allocation failed) */
    struct {
        const void *id;
        stem_memo *m;
    } ext[STEM_EXT_MAX]; /* tv_stem_memo_for's, by id */
} stem_cache;

static pthread_key_t stem_key;
static pthread_once_t stem_once = PTHREAD_ONCE_INIT;
static bool stem_key_ok;

static void stem_cache_free(void *p) {
    stem_cache *c = p;
    for (size_t i = 0; i < STEM_MAX; i++) {
        if (c->s[i]) sb_stemmer_delete(c->s[i]);
        tv_free(c->memo[i]);
    }
    for (size_t i = 0; i < STEM_EXT_MAX; i++) tv_free(c->ext[i].m);
    tv_free(c);
}
static void stem_key_init(void) { stem_key_ok = pthread_key_create(&stem_key, stem_cache_free) == 0; }

/* This thread's cache (NULL when it cannot be made). */
static stem_cache *cache_get(void) {
    pthread_once(&stem_once, stem_key_init);
    if (!stem_key_ok) return NULL;
    stem_cache *c = pthread_getspecific(stem_key);
    if (!c) {
        c = tv_calloc(1, sizeof *c);
        if (!c) return NULL;
        if (pthread_setspecific(stem_key, c) != 0) {
            tv_free(c);
            return NULL;
        }
    }
    return c;
}

tv_stem_memo *tv_stem_memo_for(const void *id) {
    stem_cache *c = cache_get();
    if (!c) return NULL;
    for (size_t i = 0; i < STEM_EXT_MAX; i++) {
        if (c->ext[i].id == id) return c->ext[i].m;
        if (!c->ext[i].id) {
            stem_memo *m = tv_calloc(1, sizeof *m);
            if (!m) return NULL;
            c->ext[i].id = id;
            c->ext[i].m = m;
            return m;
        }
    }
    return NULL; /* a thread using more stemmers than that: the rest run uncached */
}

bool tv_stem_memo_get(tv_stem_memo *m, const char *t, uint32_t n, const char **out,
                      uint32_t *outlen, bool *same) {
    return n && n <= STEM_MEMO_MAX && memo_get(m, term_hash(t, n), t, n, out, outlen, same);
}

void tv_stem_memo_put(tv_stem_memo *m, const char *t, uint32_t n, const char *out,
                      uint32_t outlen, bool same) {
    if (n && n <= STEM_MEMO_MAX) memo_put(m, term_hash(t, n), t, n, out, outlen, same);
}

int tv_stem_memo_apply(tv_stem_memo *m, tv_arena *a, tv_token *t) {
    const char *r;
    uint32_t n;
    bool same;
    if (!m || !tv_stem_memo_get(m, t->term, t->term_len, &r, &n, &same)) return 0;
    if (same) return 1;
    char *o = tv_arena_memdup(a, r, n);
    if (!o) return -1;
    t->term = o;
    t->term_len = n;
    return 1;
}

/* This thread's stemmer for algo, and its memo in *memo (NULL if none). */
static struct sb_stemmer *stemmer_get(int algo, stem_memo **memo) {
    *memo = NULL;
    if (algo < 0 || (size_t)algo >= tv_stem_algo_count) return NULL;
    stem_cache *c = cache_get();
    if (!c) return NULL;
    if (!c->s[algo]) c->s[algo] = sb_stemmer_new(tv_stem_algos[algo], "UTF_8");
    if (c->s[algo] && !c->memo[algo]) c->memo[algo] = tv_calloc(1, sizeof(stem_memo));
    *memo = c->memo[algo]; /* without one (out of memory) stemming still works, uncached */
    return c->s[algo];
}

/* -------------------------------------------------------------- filters */

static bool java_white(uint32_t cp) {
    if (cp < 0x80) return (cp >= 9 && cp <= 13) || (cp >= 0x1C && cp <= 0x20);
    return (tv_uc_props(cp)->flags & TV_UCF_JWHITE) != 0;
}

static tv_status case_filter(tv_arena *a, tv_tokvec *v, bool lower) {
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        const uint8_t *s = (const uint8_t *)t->term;
        bool change = false;
        for (uint32_t k = 0; k < t->term_len; k++) {
            uint8_t c = s[k];
            if (c >= 0x80 || (lower ? (uint8_t)(c - 'A') < 26 : (uint8_t)(c - 'a') < 26)) {
                change = true;
                break;
            }
        }
        if (!change) continue;
        char *out = tv_arena_alloc(a, (size_t)t->term_len * 3 + 4);
        if (!out) return TROVE_ENOMEM;
        size_t n = lower ? lower_into(t->term, t->term_len, out) : upper_into(t->term, t->term_len, out);
        t->term = out;
        t->term_len = (uint32_t)n;
    }
    return TROVE_OK;
}

/* Keeps tokens for which pred() holds; moves position increments of removed ones. */
static void compact(tv_tokvec *v, bool (*pred)(const tv_filter_def *, const tv_token *),
                    const tv_filter_def *f) {
    size_t o = 0;
    uint32_t carry = 0;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        bool keep = pred(f, t);
        if (!keep) {
            carry += t->position;
            continue;
        }
        tv_token kt = *t;
        kt.position += carry;
        carry = 0;
        v->items[o++] = kt;
    }
    v->len = o;
    v->trailing += carry;
}

static bool keep_stop(const tv_filter_def *f, const tv_token *t) {
    return !tv_termset_has(f->stop, t->term, t->term_len);
}
static bool keep_length(const tv_filter_def *f, const tv_token *t) {
    size_t n = tv_utf16_len(t->term, t->term_len);
    return n >= f->min && n <= f->max;
}

static tv_status fold_filter(tv_arena *a, const tv_filter_def *f, tv_tokvec *v) {
    tv_tokvec out = {0};
    out.trailing = v->trailing;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        const uint8_t *s = (const uint8_t *)t->term, *end = s + t->term_len;
        bool ascii = true;
        for (const uint8_t *q = s; q < end; q++)
            if (*q >= 0x80) {
                ascii = false;
                break;
            }
        bool changed = false;
        tv_token folded = *t;
        if (!ascii) {
            /* a folded code point is at most 4 ASCII bytes ("(10)" style) per UTF-8 byte */
            char *o = tv_arena_alloc(a, (size_t)t->term_len * 4 + 4);
            if (!o) return TROVE_ENOMEM;
            size_t n = 0;
            const uint8_t *q = s;
            while (q < end) {
                if (*q < 0x80) {
                    o[n++] = (char)*q++;
                    continue;
                }
                uint32_t cp;
                size_t k = tv_utf8_decode(q, end, &cp);
                size_t flen;
                const char *rep = tv_uc_ascii_fold(cp, &flen);
                if (rep && flen <= 4 * k) {
                    memcpy(o + n, rep, flen);
                    n += flen;
                    changed = true;
                } else {
                    memcpy(o + n, q, k);
                    n += k;
                }
                q += k;
            }
            folded.term = o;
            folded.term_len = (uint32_t)n;
        }
        if (!changed) {
            if (!f->preserve_original) continue; /* in place: nothing to do */
            if (tv_tokvec_push(a, &out, t)) return TROVE_ENOMEM;
            continue;
        }
        if (!f->preserve_original) {
            *t = folded;
            continue;
        }
        if (tv_tokvec_push(a, &out, &folded)) return TROVE_ENOMEM;
        tv_token orig = *t;
        orig.position = 0;
        if (tv_tokvec_push(a, &out, &orig)) return TROVE_ENOMEM;
    }
    if (f->preserve_original) *v = out;
    return TROVE_OK;
}

static void trim_filter(tv_tokvec *v) {
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        const uint8_t *s = (const uint8_t *)t->term, *b = s, *e = s + t->term_len;
        while (b < e) {
            uint32_t cp;
            size_t k = tv_utf8_decode(b, e, &cp);
            if (!java_white(cp)) break;
            b += k;
        }
        while (e > b) {
            const uint8_t *q = e - 1;
            while (q > b && (*q & 0xC0) == 0x80 && e - q < 4) q--;
            uint32_t cp;
            size_t k = tv_utf8_decode(q, e, &cp);
            if (q + k != e) { /* not one whole code point: stop */
                if (!java_white(e[-1])) break;
                e--;
                continue;
            }
            if (!java_white(cp)) break;
            e = q;
        }
        t->term = (const char *)b;
        t->term_len = (uint32_t)(e - b);
    }
}

/* Whether the term is shorter than min UTF-16 units, counting only when
 * it must: a unit takes 1 to 3 UTF-8 bytes (a surrogate pair 4 for 2). */
static inline bool shorter_than(const char *s, uint32_t n, uint32_t min) {
    if (n < min) return true;
    if (n >= 3 * min) return false;
    for (uint32_t i = 0; i < n; i++)
        if ((uint8_t)s[i] >= 0x80) return tv_utf16_len(s, n) < min;
    return false; /* ASCII: n units */
}

static tv_status stem_filter(tv_arena *a, const tv_filter_def *f, tv_tokvec *v) {
    stem_memo *memo;
    struct sb_stemmer *st = stemmer_get(f->algo, &memo);
    if (!st) return TROVE_ENOMEM;
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        if (t->flags & TV_TOKF_KEYWORD) continue;
        /* Lucene's PorterStemFilter (min 3) leaves shorter words alone */
        if (f->min && shorter_than(t->term, t->term_len, f->min)) continue;
        const char *r;
        uint32_t n, h = 0;
        bool same, memoize = memo && t->term_len && t->term_len <= STEM_MEMO_MAX;
        if (memoize) h = term_hash(t->term, t->term_len);
        if (!memoize || !memo_get(memo, h, t->term, t->term_len, &r, &n, &same)) {
            r = (const char *)sb_stemmer_stem(st, (const sb_symbol *)t->term, (int)t->term_len);
            if (!r) return TROVE_ENOMEM;
            n = (uint32_t)sb_stemmer_length(st);
            same = n == t->term_len && memcmp(r, t->term, n) == 0;
            if (memoize) memo_put(memo, h, t->term, t->term_len, r, n, same);
        }
        if (same) continue;
        char *o = tv_arena_memdup(a, r, (size_t)n);
        if (!o) return TROVE_ENOMEM;
        t->term = o;
        t->term_len = (uint32_t)n;
    }
    return TROVE_OK;
}

static void possessive_filter(tv_tokvec *v) {
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        const char *s = t->term;
        uint32_t n = t->term_len;
        if (n < 2 || (s[n - 1] != 's' && s[n - 1] != 'S')) continue;
        if (s[n - 2] == '\'') t->term_len = n - 2;
        else if (n >= 4 && memcmp(s + n - 4, "\xE2\x80\x99", 3) == 0) t->term_len = n - 4;  /* ’ */
        else if (n >= 4 && memcmp(s + n - 4, "\xEF\xBC\x87", 3) == 0) t->term_len = n - 4;  /* ＇ */
    }
}

/* EnglishMinimalStemmer: -ies -> -y (not after a/e), keep -us/-ss and
 * -aes/-ees/-oes, drop -es/-s otherwise. */
static tv_status minimal_english(tv_arena *a, tv_tokvec *v) {
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        const char *s = t->term;
        uint32_t n = t->term_len;
        if (n < 3 || s[n - 1] != 's' || (t->flags & TV_TOKF_KEYWORD)) continue;
        char c2 = s[n - 2];
        if (c2 == 'u' || c2 == 's') continue;
        if (c2 == 'e') {
            if (n > 3 && s[n - 3] == 'i' && s[n - 4] != 'a' && s[n - 4] != 'e') {
                char *o = tv_arena_memdup(a, s, n - 2);
                if (!o) return TROVE_ENOMEM;
                o[n - 3] = 'y';
                t->term = o;
                t->term_len = n - 2;
                continue;
            }
            if (s[n - 3] == 'i' || s[n - 3] == 'a' || s[n - 3] == 'o' || s[n - 3] == 'e') continue;
        }
        t->term_len = n - 1;
    }
    return TROVE_OK;
}

/* EdgeNGramTokenFilter(min, max, preserveOriginal = false). Lengths are
 * in code points, as Lucene counts them. */
static tv_status edge_ngram_filter(tv_arena *a, const tv_filter_def *f, tv_tokvec *v) {
    tv_tokvec out = {0};
    uint32_t pending = 0; /* increments of tokens that produced no gram */
    for (size_t i = 0; i < v->len; i++) {
        tv_token *t = &v->items[i];
        pending += t->position;
        const uint8_t *s = (const uint8_t *)t->term, *end = s + t->term_len, *q = s;
        uint32_t ncp = 0;
        bool first = true;
        while (q < end && ncp < f->max) {
            uint32_t cp;
            q += tv_utf8_decode(q, end, &cp);
            ncp++;
            if (ncp < f->min) continue;
            tv_token g = *t;
            g.term_len = (uint32_t)(q - s);
            g.position = first ? pending : 0;
            if (tv_tokvec_push(a, &out, &g)) return TROVE_ENOMEM;
            if (first) pending = 0;
            first = false;
        }
        if (f->preserve_original) { /* all grams emitted; the original when longer (or shorter) */
            while (q < end && ncp <= f->max) {
                uint32_t cp;
                q += tv_utf8_decode(q, end, &cp);
                ncp++;
            }
            if (ncp > f->max || ncp < f->min) {
                tv_token g = *t;
                g.position = first ? pending : 0;
                if (tv_tokvec_push(a, &out, &g)) return TROVE_ENOMEM;
                if (first) pending = 0;
            }
        }
    }
    out.trailing = v->trailing + pending;
    *v = out;
    return TROVE_OK;
}

/* FixedShingleFilter(2) over adjacent tokens (see the file comment). */
static tv_status shingle2_filter(tv_arena *a, tv_tokvec *v) {
    tv_tokvec out = {0};
    uint32_t pending = 0;
    for (size_t i = 0; i < v->len; i++) {
        const tv_token *t = &v->items[i];
        pending += t->position;
        if (i + 1 == v->len || v->items[i + 1].position != 1) continue;
        const tv_token *u = &v->items[i + 1];
        char *term = tv_arena_alloc(a, (size_t)t->term_len + u->term_len + 2);
        if (!term) return TROVE_ENOMEM;
        memcpy(term, t->term, t->term_len);
        term[t->term_len] = ' ';
        memcpy(term + t->term_len + 1, u->term, u->term_len);
        term[t->term_len + 1 + u->term_len] = 0;
        tv_token g = *t;
        g.term = term;
        g.term_len = t->term_len + 1 + u->term_len;
        g.end = u->end;
        g.end16 = u->end16;
        g.type = TV_TOK_WORD; /* Lucene's "shingle" type */
        g.position = pending;
        pending = 0;
        if (tv_tokvec_push(a, &out, &g)) return TROVE_ENOMEM;
    }
    out.trailing = v->trailing + pending;
    *v = out;
    return TROVE_OK;
}

/* FixedShingleFilter(n, " ", "") with f->max extra trailing positions
 * (see the file comment). Tokens are taken one per position (a stacked
 * token, increment 0, is dropped: search_as_you_type's analyzers stack
 * none). */
static tv_status shingle_n_filter(tv_arena *a, const tv_filter_def *f, tv_tokvec *v) {
    uint32_t n = f->min;
    size_t cnt = 0;
    uint64_t pos = 0;
    /* absolute positions (0-based) of the kept tokens */
    uint64_t *ap = tv_arena_alloc(a, (v->len ? v->len : 1) * sizeof *ap);
    const tv_token **tk = tv_arena_alloc(a, (v->len ? v->len : 1) * sizeof *tk);
    if (!ap || !tk) return TROVE_ENOMEM;
    bool started = false;
    for (size_t i = 0; i < v->len; i++) {
        const tv_token *t = &v->items[i];
        if (started && t->position == 0) continue;
        pos = started ? pos + t->position : (t->position ? t->position - 1 : 0);
        started = true;
        ap[cnt] = pos;
        tk[cnt++] = t;
    }
    tv_tokvec out = {0};
    if (!cnt) {
        out.trailing = v->trailing;
        *v = out;
        return TROVE_OK;
    }
    uint64_t end = ap[cnt - 1] + 1 + f->max; /* one past the last position, fillers included */
    uint64_t prev = 0;
    bool any = false;
    for (size_t i = 0; i < cnt; i++) {
        if (ap[i] + n > end) break;
        size_t len = n - 1;
        for (size_t k = i; k < cnt && ap[k] < ap[i] + n; k++) len += tk[k]->term_len;
        char *term = tv_arena_alloc(a, len + 1);
        if (!term) return TROVE_ENOMEM;
        size_t o = 0, k = i;
        const tv_token *lastt = tk[i];
        for (uint32_t j = 0; j < n; j++) {
            if (j) term[o++] = ' ';
            if (k < cnt && ap[k] == ap[i] + j) {
                memcpy(term + o, tk[k]->term, tk[k]->term_len);
                o += tk[k]->term_len;
                lastt = tk[k];
                k++;
            }
        }
        term[o] = 0;
        tv_token g = *tk[i];
        g.term = term;
        g.term_len = (uint32_t)o;
        g.end = lastt->end;
        g.end16 = lastt->end16;
        g.type = TV_TOK_WORD;
        g.position = (uint32_t)(any ? ap[i] - prev : ap[i] + 1);
        prev = ap[i];
        any = true;
        if (tv_tokvec_push(a, &out, &g)) return TROVE_ENOMEM;
    }
    out.trailing = v->trailing;
    *v = out;
    return TROVE_OK;
}

tv_status tv_filter_apply(tv_arena *a, const tv_filter_def *f, tv_tokvec *v) {
    switch (f->kind) {
    case TV_TF_LOWERCASE: return case_filter(a, v, true);
    case TV_TF_UPPERCASE: return case_filter(a, v, false);
    case TV_TF_STOP: compact(v, keep_stop, f); return TROVE_OK;
    case TV_TF_LENGTH: compact(v, keep_length, f); return TROVE_OK;
    case TV_TF_ASCIIFOLDING: return fold_filter(a, f, v);
    case TV_TF_TRIM: trim_filter(v); return TROVE_OK;
    case TV_TF_SNOWBALL: return stem_filter(a, f, v);
    case TV_TF_POSSESSIVE: possessive_filter(v); return TROVE_OK;
    case TV_TF_MINIMAL_EN: return minimal_english(a, v);
    case TV_TF_EDGE_NGRAM: return edge_ngram_filter(a, f, v);
    case TV_TF_SHINGLE2: return shingle2_filter(a, v);
    case TV_TF_SHINGLE_N: return shingle_n_filter(a, f, v);
    case TV_TF_EXT: return f->ext->apply(a, f->cfg, v);
    default: return TROVE_EINTERNAL;
    }
}
