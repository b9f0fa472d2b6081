/*
 * util.h — the bottom layer: what every other folder of trove stands on.
 *
 * Owns: the status enum's tables (the enum itself is public, in trove.h),
 * the detailed internal error (tv_error), allocator hooks with a failing
 * allocator for tests, arenas (per-request memory), growable byte buffers,
 * typed vectors, a string-keyed hash map, bitsets, varint and bit-packing
 * helpers, hashing and a clock.
 *
 * Internal symbols are prefixed tv_ (public ones trove_). Nothing here knows
 * about JSON, text, indices or HTTP.
 *
 * Ownership conventions: _init/_fini for caller-storage objects, _new/_free
 * for heap objects, _free(NULL) is a no-op. Functions that allocate return
 * TROVE_ENOMEM (or NULL) on failure and never abort.
 *
 * Files:
 *   alloc.c     allocator hooks (tv_malloc/tv_realloc) and the failing
 *               allocator for tests (tv_alloc_fail_after)
 *   arena.c     arenas: bump allocation for memory that is freed all at once
 *   breaker.c   memory circuit breakers (request, fielddata,
 *               in_flight_requests, accounting, parent), as OpenSearch's
 *   buf.c       growable byte buffers with a sticky out-of-memory flag
 *   java.c      Java behaviour OpenSearch's answers depend on: TimeValue
 *               parsing, Double.parseDouble syntax, (long) of a double,
 *               ByteSizeValue printing, String.hashCode and HashMap order,
 *               DecimalFormat patterns
 *   map.c       the string-keyed hash map (open addressing, linear probing)
 *   misc.c      bitsets, LEB128 varints, clocks, byte comparison, simple
 *               wildcard matching and strict integer parsing
 *   status.c    the trove_status tables (message, OpenSearch error type, HTTP
 *               status, name) and the tv_error helpers
 *   utf8.c      UTF-8 decoding and encoding, well-formedness and
 *               UTF-16 lengths: the one codec every layer uses
 */
#ifndef TROVE_UTIL_H
#define TROVE_UTIL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trove.h"

typedef trove_status tv_status;

#define TV_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define TV_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TV_MAX(a, b) ((a) > (b) ? (a) : (b))
#define TV_UNUSED(x) ((void)(x))
#if defined(__GNUC__)
#define TV_LIKELY(x) __builtin_expect(!!(x), 1)
#define TV_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TV_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TV_LIKELY(x) (x)
#define TV_UNLIKELY(x) (x)
#define TV_PRINTF(f, a)
#endif

/* ---------------------------------------------------------------- errors */

/*
 * A detailed internal error. Layers fill it; the api layer turns it into
 * OpenSearch's error envelope:
 *   {"error":{"root_cause":[{type,reason,...}],"type":..,"reason":..,
 *             "caused_by":{..}},"status":N}
 * code     the status (type and HTTP status come from it)
 * reason   OpenSearch's "reason" text, exactly as OpenSearch words it
 * line/col 1-based position in a JSON body (parsing_exception), 0 if none
 * pos      byte offset in the input, SIZE_MAX if none
 * index    the index name for errors that carry "index" (may be empty)
 * cause_*  an optional "caused_by" (cause_code TROVE_OK means none)
 * type     when not TROVE_OK, the code whose OpenSearch type is printed
 *          instead of code's (code keeps the HTTP status: an
 *          aggregation_execution_exception answered as a 400);
 *          cause_type likewise for the cause, more[].type for deeper ones
 * more[]   deeper caused_by levels: more[0] is the cause of cause_*,
 *          more[1] the cause of more[0] (code TROVE_OK ends the chain)
 */
#define TV_ERROR_MORE_CAUSES 2
typedef struct tv_error_level {
    tv_status code;
    tv_status type;
    char reason[512];
} tv_error_level;

typedef struct tv_error {
    tv_status code;
    size_t pos;
    uint32_t line, col;
    char reason[1024];
    char index[256];
    tv_status cause_code;
    char cause_reason[1024];
    tv_status type;
    tv_status cause_type;
    tv_error_level more[TV_ERROR_MORE_CAUSES];
} tv_error;

/* A tv_error that holds no error, for declarations (TV_ERROR_INIT). */
#define TV_ERROR_INIT {.code = TROVE_OK, .pos = SIZE_MAX}
/* Resets e to "no error". e may be NULL. */
void tv_error_clear(tv_error *e);
/*
 * Sets code and a printf-formatted reason; returns code. e may be NULL.
 *
 * The first error wins: when e already holds an error, it is kept and its
 * code returned, so the error a request reports is the first thing that
 * went wrong, as OpenSearch reports the first exception it throws. A
 * tv_error must therefore start cleared (TV_ERROR_INIT, tv_error_clear, or
 * zeroed memory) and be cleared again before it is reused. A caller that
 * describes a callee's error at its own level (OpenSearch wrapping an
 * exception in another: "failed to create query: ...") says so with
 * tv_error_wrap. Debug builds assert that code is an error of the table.
 */
tv_status tv_error_set(tv_error *e, tv_status code, const char *fmt, ...) TV_PRINTF(3, 4);
/* Replaces whatever e holds with code and a reason (then add the wrapped
 * error as a cause); returns code. e may be NULL. */
tv_status tv_error_wrap(tv_error *e, tv_status code, const char *fmt, ...) TV_PRINTF(3, 4);
/* Out of memory: TROVE_ENOMEM with the status table's message; returns
 * TROVE_ENOMEM. e may be NULL. The one way an error says so. */
tv_status tv_error_oom(tv_error *e);
/* Sets the caused_by part; returns e->code (or code if e is NULL). */
tv_status tv_error_cause(tv_error *e, tv_status code, const char *fmt, ...) TV_PRINTF(3, 4);
/* Appends one more caused_by level below the deepest one set (the cause
 * of the cause ...); type TROVE_OK: the code's own type. Returns e->code.
 * Without a first cause it sets cause_*; past the last level it is a
 * no-op. */
tv_status tv_error_cause_add(tv_error *e, tv_status code, tv_status type, const char *fmt, ...) TV_PRINTF(4, 5);
/* Reports e as OpenSearch's exception `type` (a code of TROVE_STATUS_LIST)
 * while keeping e->code, which decides the HTTP status; returns e->code.
 * e may be NULL. */
tv_status tv_error_as(tv_error *e, tv_status type);
/* The type e prints: e->type when set, else e->code's. */
tv_status tv_error_type(const tv_error *e);
/* Copies code, pos and reason into a public trove_error (may be NULL). */
void tv_error_to_public(const tv_error *e, trove_error *out);

/* ------------------------------------------------------------- allocation */

/*
 * All heap memory of the library goes through these. They return NULL on
 * failure. tv_free(NULL) is a no-op.
 */
void *tv_malloc(size_t n);
void *tv_calloc(size_t count, size_t size);
void *tv_realloc(void *p, size_t n);
void tv_free(void *p);
char *tv_strndup(const char *s, size_t n); /* owned, NUL terminated */

/*
 * Test hook: after `n` more successful allocations, every allocation fails
 * until tv_alloc_fail_after(-1) is called. Process-wide, not thread-safe;
 * for unit tests only.
 */
void tv_alloc_fail_after(long n);

/* ------------------------------------------------------------------ arena */

/*
 * A bump allocator for memory that dies together (a request, a parse).
 * Allocations are 8-byte aligned (16 for sizes >= 16). Freeing the arena
 * frees everything allocated from it. Not thread-safe.
 */
typedef struct tv_arena_block tv_arena_block;
struct tv_breakers;
struct tv_breaker_trip;
typedef struct tv_arena {
    tv_arena_block *head;
    char *ptr, *end;
    size_t total; /* bytes obtained from the heap */
    /* Optional (tv_arena_charge): each block is reserved on the request
     * breaker before it is allocated; a refused block makes the
     * allocation return NULL and fills *trip. */
    struct tv_breakers *breakers;
    struct tv_breaker_trip *trip;
    int64_t charged;
    bool tripped;
    bool charge_off; /* stop charging (what is charged stays until fini) */
} tv_arena;

void tv_arena_init(tv_arena *a);
void tv_arena_fini(tv_arena *a);
/* Frees all but the first block and rewinds it. */
void tv_arena_reset(tv_arena *a);
/* From now on, a's blocks are reserved on s's request breaker (released
 * by fini); a refused block fills *trip (borrowed, must outlive a) and
 * sets a->tripped. */
void tv_arena_charge(tv_arena *a, struct tv_breakers *s, struct tv_breaker_trip *trip);
/* Returns n bytes borrowed until fini/reset, or NULL on OOM. n == 0 is valid. */
void *tv_arena_alloc(tv_arena *a, size_t n);
void *tv_arena_calloc(tv_arena *a, size_t count, size_t size);
/* Copies n bytes and appends a NUL. */
char *tv_arena_strndup(tv_arena *a, const char *s, size_t n);
char *tv_arena_memdup(tv_arena *a, const void *p, size_t n);
char *tv_arena_sprintf(tv_arena *a, const char *fmt, ...) TV_PRINTF(2, 3);

/* ------------------------------------------------------------------- buf */

/*
 * A growable byte buffer. data is always NUL-terminated when len > 0 or
 * after any append (the NUL is not counted in len). Appends never fail
 * visibly: on OOM the buffer sets `oom` and ignores further appends (a
 * sticky error, checked once at the end).
 */
typedef struct tv_buf {
    char *data;
    size_t len, cap;
    bool oom;
} tv_buf;

void tv_buf_init(tv_buf *b);
void tv_buf_fini(tv_buf *b);
void tv_buf_clear(tv_buf *b); /* len = 0, keeps capacity */
/* Ensures room for `extra` more bytes plus the NUL. Returns false on OOM. */
bool tv_buf_reserve(tv_buf *b, size_t extra);
void tv_buf_append_slow(tv_buf *b, const void *p, size_t n);
/* Appends n bytes. Inline for the case with room: segment serialisation
 * and the JSON writer append a few bytes at a time. */
static inline void tv_buf_append(tv_buf *b, const void *p, size_t n) {
    if (TV_LIKELY(!b->oom && n < b->cap - b->len)) { /* cap > len whenever data exists */
        if (n) memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = '\0';
        return;
    }
    tv_buf_append_slow(b, p, n);
}
/* One byte; inline because the JSON writer puts most punctuation this way. */
static inline void tv_buf_putc(tv_buf *b, char c) {
    if (TV_LIKELY(b->len + 2 <= b->cap && !b->oom)) {
        b->data[b->len++] = c;
        b->data[b->len] = '\0';
        return;
    }
    tv_buf_append(b, &c, 1);
}
void tv_buf_puts(tv_buf *b, const char *s);
/* The status table's other columns (status.c): is the exception an
 * OpenSearchException; its Java class for the others (NULL: unknown);
 * Class.getSimpleName and, for non-OpenSearch exceptions, getName (the
 * simple name when the class is unknown). */
bool tv_status_os(tv_status code);
const char *tv_status_java(tv_status code);
void tv_status_simple_name(tv_buf *b, tv_status code);
void tv_status_java_name(tv_buf *b, tv_status code);
void tv_buf_printf(tv_buf *b, const char *fmt, ...) TV_PRINTF(2, 3);
void tv_buf_vprintf(tv_buf *b, const char *fmt, va_list ap);
/* Takes the bytes: returns owned (free with tv_free), leaves b empty.
 * Returns NULL if the buffer is in the oom state. Never NULL otherwise
 * (an empty buffer gives ""). */
char *tv_buf_detach(tv_buf *b, size_t *len);

/* ---------------------------------------------------------------- vectors */

/*
 * Typed growable arrays on the heap:
 *   TV_VEC(int) v = {0};
 *   if (tv_vec_push(&v, 42)) goto oom;
 *   ... v.items[i] ...; tv_vec_fini(&v);
 * tv_vec_push returns 0 on success, -1 on OOM (the vector is unchanged).
 */
#define TV_VEC(T)     \
    struct {          \
        T *items;     \
        size_t len;   \
        size_t cap;   \
    }
int tv_vec_reserve_(void **items, size_t *cap, size_t need, size_t elem);
#define tv_vec_reserve(v, n) \
    tv_vec_reserve_((void **)&(v)->items, &(v)->cap, (n), sizeof(*(v)->items))
#define tv_vec_push(v, x) \
    (tv_vec_reserve((v), (v)->len + 1) == 0 ? ((v)->items[(v)->len++] = (x), 0) : -1)
#define tv_vec_fini(v) (tv_free((v)->items), (v)->items = NULL, (v)->len = (v)->cap = 0)

/* ------------------------------------------------------------------ hash */

/* 64-bit hash of bytes (xxh3). */
uint64_t tv_hash(const void *p, size_t n);
/* Lucene's StringHelper.murmurhash3_x86_32 of bytes (terms partitions,
 * random_score). */
uint32_t tv_murmur3_x86_32(const void *data, size_t len, uint32_t seed);
/* 32-bit CRC32C-free checksum for formats: xxh32 of bytes with seed 0. */
uint32_t tv_checksum32(const void *p, size_t n);

/*
 * A string-keyed hash map (open addressing, linear probing). Keys are copied
 * and owned by the map (or, after tv_map_init_borrowed, borrowed: the caller
 * keeps every key's bytes alive and unchanged as long as the map); values
 * are borrowed pointers the caller manages. Iteration order is unspecified:
 * sort if an order is needed.
 */
typedef struct tv_map_slot {
    char *key; /* NULL: empty slot; TV_MAP_TOMBSTONE: deleted */
    size_t key_len;
    uint64_t hash;
    void *value;
} tv_map_slot;
typedef struct tv_map {
    tv_map_slot *slots;
    size_t cap, len, used; /* used counts tombstones too */
    bool borrowed;         /* keys are the caller's (tv_map_init_borrowed) */
} tv_map;

void tv_map_init(tv_map *m);
/* A map that stores the key pointers it is given instead of copies (for
 * keys that already live in an arena: no allocation per key). */
void tv_map_init_borrowed(tv_map *m);
void tv_map_fini(tv_map *m); /* frees keys; not values */
/* Inserts or replaces. Returns TROVE_OK or TROVE_ENOMEM. If old is not NULL
 * it receives the replaced value (or NULL). */
tv_status tv_map_put(tv_map *m, const char *key, size_t key_len, void *value, void **old);
/* Returns the value or NULL. */
void *tv_map_get(const tv_map *m, const char *key, size_t key_len);
bool tv_map_has(const tv_map *m, const char *key, size_t key_len);
/* Removes; returns the removed value or NULL. */
void *tv_map_del(tv_map *m, const char *key, size_t key_len);
/* Iterates: start with *it = 0; returns false when done. key is borrowed. */
bool tv_map_next(const tv_map *m, size_t *it, const char **key, size_t *key_len, void **value);
/* A deep copy of the table (keys copied, values shared). */
tv_status tv_map_copy(tv_map *dst, const tv_map *src);

/* ---------------------------------------------------------------- bitset */

typedef struct tv_bitset {
    uint64_t *words;
    size_t nbits;
} tv_bitset;

/* All bits clear. Returns false on OOM. */
bool tv_bitset_init(tv_bitset *b, size_t nbits);
void tv_bitset_fini(tv_bitset *b);
static inline void tv_bitset_set(tv_bitset *b, size_t i) { b->words[i >> 6] |= 1ull << (i & 63); }
static inline void tv_bitset_clear(tv_bitset *b, size_t i) { b->words[i >> 6] &= ~(1ull << (i & 63)); }
static inline bool tv_bitset_get(const tv_bitset *b, size_t i) { return (b->words[i >> 6] >> (i & 63)) & 1; }
size_t tv_bitset_count(const tv_bitset *b);
/* The first set bit >= from, or SIZE_MAX. */
size_t tv_bitset_next(const tv_bitset *b, size_t from);
/* The last set bit < before, or SIZE_MAX. */
size_t tv_bitset_prev(const tv_bitset *b, size_t before);
/* The same over bare words of n bits: bit d; the first set bit >= from (n
 * when none); the last set bit < before (UINT32_MAX when none). */
static inline bool tv_bits_get(const uint64_t *w, uint32_t d) { return (w[d >> 6] >> (d & 63)) & 1; }
static inline uint32_t tv_bits_next(const uint64_t *w, uint32_t from, uint32_t n) {
    tv_bitset b = {(uint64_t *)w, n};
    size_t i = tv_bitset_next(&b, from);
    return i == SIZE_MAX ? n : (uint32_t)i;
}
static inline uint32_t tv_bits_prev(const uint64_t *w, uint32_t before, uint32_t n) {
    tv_bitset b = {(uint64_t *)w, n};
    size_t i = tv_bitset_prev(&b, before);
    return i == SIZE_MAX ? UINT32_MAX : (uint32_t)i;
}

/* ---------------------------------------------------------------- varint */

/* LEB128 unsigned varints. Writers return bytes written (<= 10). */
size_t tv_varint_put(uint8_t *out, uint64_t v);
/* Reads from [p, end). Returns bytes consumed, 0 on truncated/overlong input. */
size_t tv_varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v);
static inline uint64_t tv_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t tv_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* ----------------------------------------------------------------- misc */

/* Milliseconds since the Unix epoch (wall clock). */
int64_t tv_now_ms(void);
/* Monotonic nanoseconds. */
uint64_t tv_mono_ns(void);

/* Byte-string equality and comparison helpers. */
static inline bool tv_streq(const char *a, size_t alen, const char *lit) {
    size_t n = strlen(lit);
    return alen == n && memcmp(a, lit, n) == 0;
}
int tv_memcmp2(const void *a, size_t alen, const void *b, size_t blen); /* lexicographic, unsigned */

/* ---- utf8.c: the UTF-8 codec ---- */

/* Decodes one code point from [p, end). Returns bytes consumed (1..4); an
 * invalid or truncated sequence decodes as U+FFFD consuming 1 byte. */
size_t tv_utf8_decode(const uint8_t *p, const uint8_t *end, uint32_t *cp);
/* Encodes cp (<= 0x10FFFF) into out (>= 4 bytes); returns bytes written. */
size_t tv_utf8_encode(uint32_t cp, uint8_t *out);
/* True when [p, p+n) is well-formed UTF-8. */
bool tv_utf8_valid(const void *p, size_t n);
/* Number of UTF-16 code units of [p, p+n) (Java String.length()). */
size_t tv_utf16_len(const void *p, size_t n);

/* java.lang.String.hashCode of UTF-8 s[0..n) (over its UTF-16 code
 * units; an invalid byte counts as U+FFFD). */
int32_t tv_java_string_hash(const char *s, size_t n);
/* The order a java.util.HashMap<String, ...> iterates names[0..n) inserted
 * in that order (by bucket of the spread hash, then insertion): OpenSearch
 * prints several maps (aggregations, document fields) that way. order
 * receives indices into names. */
void tv_java_hashmap_order(const char *const *names, uint32_t n, uint32_t *order);
/* The bucket of key in a java.util.HashMap<String, ...> holding n keys
 * (its iteration order is by bucket, then insertion). */
uint32_t tv_java_hm_bucket(const char *key, size_t len, size_t n);
/* java.text.DecimalFormat's digit patterns ("#.0", "0.00", "#,##0.###") with literal
 * prefix and suffix text:
 * see java.c. out: NUL-terminated, cap >= 400. */
void tv_java_decimal_format(double x, const char *pat, char *out, size_t cap);

/* Simple wildcard match: '*' matches any run of bytes (including none),
 * every other byte matches itself (OpenSearch's Regex.simpleMatch). Linear
 * backtracking over the last star only. */
bool tv_glob_match(const char *pat, size_t plen, const char *s, size_t slen);
/* tv_glob_match with a NUL-terminated pattern (Regex.simpleMatch). */
bool tv_simple_match(const char *pat, const char *s, size_t slen);
/* Splits a comma list into space-trimmed, non-empty arena strings
 * (Strings.splitStringByCommaToArray); *out NULL and 0 out of memory. */
size_t tv_split_commas(tv_arena *a, const char *s, const char ***out);

/* Parses a decimal int64 from the whole of [s, s+n). Returns false if not a
 * valid integer or out of range. */
bool tv_parse_i64(const char *s, size_t n, int64_t *out);

/* ---- java.c: Java's parsing rules OpenSearch's answers depend on ---- */

/* Whether Double.parseDouble accepts [s, s+n) (after Java's trim): a
 * signed decimal with optional fraction, exponent and f/d suffix, NaN or
 * Infinity. (Hexadecimal floats are not recognised.) */
bool tv_java_double_syntax(const char *s, size_t n);
/* TimeValue.parseTimeValue(v, setting): *nanos (saturating; -1 for "-1",
 * 0 for "0"), or err set as OpenSearch answers a bad value (an
 * illegal_argument_exception) and that status returned. err may be NULL. */
tv_status tv_parse_time_value(const char *v, size_t n, const char *setting, int64_t *nanos, tv_error *err);
/* Java's (long) of a double: NaN 0, out of range saturated. */
int64_t tv_java_d2l(double v);
/* ByteSizeValue.toString: "512b", "1kb", "1.5mb" (one decimal, truncated,
 * dropped when 0). */
void tv_java_byte_size(int64_t bytes, char *out, size_t cap);
/* TimeValue.toString of a value in milliseconds: "0s", "12ms", "1.5s",
 * "9.1m", "1.2d" (the largest unit reached, one decimal truncated,
 * dropped when 0). */
void tv_java_time_value(int64_t ms, char *out, size_t cap);

/* ByteSizeValue.parseBytesSizeValue: "-1", "0", or a number with a unit
 * (b, k/kb, m/mb, g/gb, t/tb, p/pb; case-insensitive). */
bool tv_parse_byte_size(const char *s, size_t n, int64_t *out);
/* MemorySizeValue: a percentage of heap ("60%", 0..100) or a byte size. */
bool tv_parse_memory_size(const char *s, size_t n, int64_t heap, int64_t *out);

/* ---- breaker.c: memory circuit breakers (HierarchyCircuitBreakerService) ---- */

typedef enum tv_breaker_kind {
    TV_BREAKER_REQUEST,
    TV_BREAKER_FIELDDATA,
    TV_BREAKER_IN_FLIGHT,
    TV_BREAKER_ACCOUNTING,
    TV_BREAKER_PARENT,
    TV_BREAKER_COUNT
} tv_breaker_kind;

typedef struct tv_breaker {
    _Atomic int64_t used;    /* bytes reserved (before overhead) */
    _Atomic int64_t limit;   /* bytes; -1: none */
    _Atomic int64_t tripped; /* times it refused */
    double overhead;         /* estimate = used * overhead */
} tv_breaker;

typedef struct tv_breakers {
    tv_breaker b[TV_BREAKER_COUNT];
    int64_t heap;              /* what percentages are of */
    _Atomic bool real_memory;  /* parent: resident set (true) or the children's sum */
    _Atomic int64_t rss;       /* cached resident set and when it was read */
    _Atomic uint64_t rss_at;
} tv_breakers;

/* What a refused reservation reports (CircuitBreakingException). */
typedef struct tv_breaker_trip {
    tv_breaker_kind kind; /* the breaker that refused */
    char label[64];       /* what wanted the bytes ("<http_request>") */
    int64_t wanted, limit; /* bytes_wanted, bytes_limit */
    int64_t real_usage, new_bytes; /* parent with real memory */
    int64_t usages[TV_BREAKER_PARENT]; /* each child's estimate */
} tv_breaker_trip;

/* Defaults: limits as OpenSearch's shares of heap (<= 0: half of physical
 * memory), parent on real memory. */
void tv_breakers_init(tv_breakers *s, int64_t heap);
const char *tv_breaker_name(tv_breaker_kind k);
/* Reserves bytes on child k, then checks the parent. false: refused,
 * nothing reserved, *trip (may be NULL) filled. s NULL: always true.
 * Thread-safe. */
bool tv_breaker_add(tv_breakers *s, tv_breaker_kind k, int64_t bytes, const char *label, tv_breaker_trip *trip);
void tv_breaker_release(tv_breakers *s, tv_breaker_kind k, int64_t bytes);
/* The stats' estimated size (the parent's: its usage as it checks it). */
int64_t tv_breaker_estimate(tv_breakers *s, tv_breaker_kind k);
/* CircuitBreakingException's message for a trip. */
void tv_breaker_trip_message(const tv_breaker_trip *t, char *out, size_t cap);

#endif /* TROVE_UTIL_H */
