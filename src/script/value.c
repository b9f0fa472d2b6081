/*
 * value.c — the values scripts compute with.
 *
 * Strings are immutable UTF-8 with a flag for all-ASCII (then Java's char
 * indices are byte offsets; otherwise indices are counted in UTF-16 units,
 * as String.length and substring count them). Lists are growable arrays.
 * Maps are an entry array in insertion order plus, past 8 entries, an
 * open-addressing index by Java hashCode: a removal marks its entry dead
 * (the index keeps pointing at it as a tombstone) and the array is
 * compacted when half of it is dead. An ordered map iterates in insertion
 * order (LinkedHashMap); a HashMap iterates as Java's does, by bucket of
 * the spread hash for the table size its entries imply, then insertion
 * (tv_java_hashmap_order, for string keys; other keys keep insertion
 * order, which only the rare map with non-string keys would show).
 * Everything is allocated in the run's arena: a grown array leaves its old
 * block there (amortised, freed with the arena).
 * Alternatives rejected: reference counting (a run is short and its arena
 * dies with it), a tree map (Painless maps are hash maps).
 */
#include <stdio.h>
#include <math.h>
#include <stddef.h>

#include "script_int.h"

bool tv_sv_string(tv_arena *a, const char *s, size_t len, tv_sv *out) {
    if (len > UINT32_MAX - 1) return false;
    tv_sv_str *x = tv_arena_alloc(a, sizeof *x + len + 1);
    if (!x) return false;
    x->len = (uint32_t)len;
    bool ascii = true;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] >= 0x80) ascii = false;
    x->ascii = ascii;
    if (len) memcpy(x->s, s, len);
    x->s[len] = 0;
    out->type = TV_SV_STRING;
    out->v.s = x;
    return true;
}

bool tv_sv_string_buf(tv_arena *a, const tv_buf *b, tv_sv *out) {
    if (b->oom) return false;
    return tv_sv_string(a, b->data ? b->data : "", b->len, out);
}

uint32_t tv_sv_str_u16len(const tv_sv_str *s) {
    if (s->ascii) return s->len;
    return (uint32_t)tv_utf16_len(s->s, s->len);
}

uint32_t tv_sv_str_byte_at(const tv_sv_str *s, uint32_t i) {
    if (s->ascii) return i;
    const uint8_t *p = (const uint8_t *)s->s, *end = p + s->len;
    uint32_t u = 0;
    while (p < end && u < i) {
        uint32_t cp;
        size_t n = tv_utf8_decode(p, end, &cp);
        u += cp >= 0x10000 ? 2 : 1;
        p += n;
    }
    return (uint32_t)(p - (const uint8_t *)s->s);
}

bool tv_sv_list_new(tv_arena *a, tv_sv_list_kind kind, tv_sv *out) {
    tv_sv_list *l = tv_arena_calloc(a, 1, sizeof *l);
    if (!l) return false;
    l->kind = (uint8_t)kind;
    out->type = TV_SV_LIST;
    out->v.list = l;
    return true;
}

bool tv_sv_list_reserve(tv_arena *a, tv_sv_list *l, uint32_t n) {
    if (n <= l->cap) return true;
    uint32_t cap = l->cap ? l->cap : 4;
    while (cap < n) {
        if (cap > UINT32_MAX / 2) return false;
        cap *= 2;
    }
    tv_sv *items = tv_arena_alloc(a, (size_t)cap * sizeof *items);
    if (!items) return false;
    if (l->len) memcpy(items, l->items, l->len * sizeof *items);
    l->items = items;
    l->cap = cap;
    return true;
}

bool tv_sv_list_add(tv_arena *a, tv_sv_list *l, tv_sv v) {
    if (!tv_sv_list_reserve(a, l, l->len + 1)) return false;
    l->items[l->len++] = v;
    return true;
}

bool tv_sv_map_new(tv_arena *a, bool ordered, tv_sv *out) {
    tv_sv_map *m = tv_arena_calloc(a, 1, sizeof *m);
    if (!m) return false;
    m->ordered = ordered;
    out->type = TV_SV_MAP;
    out->v.map = m;
    return true;
}

/* ---- hashing and equality ---- */


/* ------------------------------------------------------------- objects */

bool tv_sv_date(tv_arena *a, uint8_t kind, int64_t sec, int32_t nano, tv_sv *out) {
    tv_sv_obj *o = tv_arena_calloc(a, 1, sizeof *o);
    if (!o) return false;
    o->kind = kind;
    o->sec = sec;
    o->nano = nano;
    out->type = TV_SV_OBJ;
    out->v.obj = o;
    return true;
}

bool tv_sv_geo(tv_arena *a, double lat, double lon, tv_sv *out) {
    tv_sv_obj *o = tv_arena_calloc(a, 1, sizeof *o);
    if (!o) return false;
    o->kind = TV_SV_O_GEO;
    o->lat = lat;
    o->lon = lon;
    out->type = TV_SV_OBJ;
    out->v.obj = o;
    return true;
}

int64_t tv_sv_date_millis(const tv_sv_obj *o) {
    int64_t ms;
    if (__builtin_mul_overflow(o->sec, (int64_t)1000, &ms) || __builtin_add_overflow(ms, (int64_t)(o->nano / 1000000), &ms))
        return o->sec < 0 ? INT64_MIN : INT64_MAX;
    return ms;
}

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && ((a < 0) != (b < 0))); }

/* The proleptic Gregorian calendar fields of an instant at UTC (java.time's
 * ISO chronology): days to civil date by era arithmetic. */
void tv_sv_civil(int64_t sec, tv_sv_civil_t *c) {
    int64_t days = floor_div(sec, 86400), sod = sec - days * 86400;
    c->hour = (int)(sod / 3600);
    c->minute = (int)(sod / 60 % 60);
    c->second = (int)(sod % 60);
    c->dow = (int)((days % 7 + 7 + 3) % 7) + 1; /* 1970-01-01 was a Thursday (4) */
    int64_t z = days + 719468;
    int64_t era = floor_div(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    c->day = (int)(doy - (153 * mp + 2) / 5 + 1);
    c->month = (int)(mp < 10 ? mp + 3 : mp - 9);
    c->year = y + (c->month <= 2);
    bool leap = (c->year % 4 == 0 && c->year % 100 != 0) || c->year % 400 == 0;
    static const int cum[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    c->doy = cum[c->month - 1] + c->day + (leap && c->month > 2);
}

/* strict_date_time / strict_date_optional_time_nanos as OpenSearch prints
 * a date: yyyy-MM-dd'T'HH:mm:ss, a fraction of 3 to 9 digits, 'Z'. An
 * Instant (ISO_INSTANT) prints its fraction in groups of 3, none when 0. */
size_t tv_sv_date_format(const tv_sv_obj *o, char *buf, size_t cap) {
    tv_sv_civil_t c;
    tv_sv_civil(o->sec, &c);
    char y[32];
    if (c.year > 9999) snprintf(y, sizeof y, "+%lld", (long long)c.year);
    else if (c.year < 0) snprintf(y, sizeof y, "-%04lld", (long long)-c.year);
    else snprintf(y, sizeof y, "%04lld", (long long)c.year);
    char frac[16] = "";
    int32_t n = o->nano;
    if (o->kind == TV_SV_O_INSTANT) {
        if (n % 1000000 == 0 && n) snprintf(frac, sizeof frac, ".%03d", n / 1000000);
        else if (n % 1000 == 0 && n) snprintf(frac, sizeof frac, ".%06d", n / 1000);
        else if (n) snprintf(frac, sizeof frac, ".%09d", n);
    } else {
        snprintf(frac, sizeof frac, ".%09d", n);
        size_t l = strlen(frac);
        while (l > 4 && frac[l - 1] == '0') frac[--l] = 0;
    }
    int w = snprintf(buf, cap, "%s-%02d-%02dT%02d:%02d:%02d%sZ", y, c.month, c.day, c.hour, c.minute, c.second, frac);
    return w < 0 ? 0 : (size_t)w >= cap ? cap - 1 : (size_t)w;
}

const char *const tv_sv_dow_names[8] = {"", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"};

static uint32_t java_long_hash(int64_t l) { return (uint32_t)((uint64_t)l ^ ((uint64_t)l >> 32)); }

static uint32_t obj_hash(const tv_sv_obj *o) {
    switch (o->kind) {
    case TV_SV_O_INSTANT: return java_long_hash(o->sec) + 51u * (uint32_t)o->nano;
    case TV_SV_O_DATE: { /* ZonedDateTime at UTC: LocalDate ^ LocalTime (the offset and zone hash to 0) */
        tv_sv_civil_t c;
        tv_sv_civil(o->sec, &c);
        int32_t yv = (int32_t)c.year;
        uint32_t dh = ((uint32_t)yv & 0xFFFFF800u) ^ (((uint32_t)yv << 11) + ((uint32_t)c.month << 6) + (uint32_t)c.day);
        int64_t nod = ((int64_t)c.hour * 3600 + c.minute * 60 + c.second) * 1000000000LL + o->nano;
        return dh ^ java_long_hash(nod);
    }
    case TV_SV_O_GEO: {
        int64_t a, b;
        double la = o->lat, lo = o->lon;
        if (la != la) la = NAN;
        if (lo != lo) lo = NAN;
        memcpy(&a, &la, 8);
        memcpy(&b, &lo, 8);
        if (o->lat == 0.0 && !signbit(o->lat)) a = 0;
        if (o->lon == 0.0 && !signbit(o->lon)) b = 0;
        return 31u * java_long_hash(a) + java_long_hash(b);
    }
    default: return (uint32_t)o->sec;
    }
}

static bool obj_equals(const tv_sv_obj *a, const tv_sv_obj *b) {
    if (a->kind != b->kind) return false;
    if (a->kind == TV_SV_O_TOKEN) return a->tok == b->tok; /* Object.equals: identity */
    if (a->kind == TV_SV_O_GEO)
        return (a->lat == b->lat || (a->lat != a->lat && b->lat != b->lat)) &&
               (a->lon == b->lon || (a->lon != a->lon && b->lon != b->lon));
    return a->sec == b->sec && a->nano == b->nano;
}

static uint32_t java_double_hash(double d) {
    uint64_t bits;
    if (d != d) bits = 0x7ff8000000000000ull;
    else memcpy(&bits, &d, 8);
    return (uint32_t)(bits ^ (bits >> 32));
}

/* Collections that hold themselves make hashing, equality and printing
 * recurse without end (Java overflows its stack): each top-level call
 * gets a depth limit and a budget of values visited. */
#define WORK_BUDGET 2000000
static _Thread_local int hash_depth;
static _Thread_local long hash_work;

static uint32_t hash_rec(const tv_sv *v);

uint32_t tv_sv_hash(const tv_sv *v) {
    if (hash_depth == 0) hash_work = 0;
    if (hash_depth > 100 || ++hash_work > WORK_BUDGET) return 0;
    hash_depth++;
    uint32_t h = hash_rec(v);
    hash_depth--;
    return h;
}

static uint32_t hash_rec(const tv_sv *v) {
    switch (v->type) {
    case TV_SV_NULL: return 0;
    case TV_SV_BOOL: return v->v.b ? 1231 : 1237;
    case TV_SV_CHAR: return v->v.c;
    case TV_SV_INT: return (uint32_t)v->v.i;
    case TV_SV_LONG: return (uint32_t)((uint64_t)v->v.l ^ ((uint64_t)v->v.l >> 32));
    case TV_SV_FLOAT: {
        float f = v->v.f;
        uint32_t b;
        if (f != f) b = 0x7fc00000u;
        else memcpy(&b, &f, 4);
        return b;
    }
    case TV_SV_DOUBLE: return java_double_hash(v->v.d);
    case TV_SV_STRING: return (uint32_t)tv_java_string_hash(v->v.s->s, v->v.s->len);
    case TV_SV_LIST: {
        uint32_t h = 1;
        for (uint32_t i = 0; i < v->v.list->len; i++) h = 31 * h + tv_sv_hash(&v->v.list->items[i]);
        return h;
    }
    case TV_SV_MAP: {
        uint32_t h = 0, it = 0;
        const tv_sv *k, *x;
        while (tv_sv_map_next(v->v.map, &it, &k, &x)) h += tv_sv_hash(k) ^ tv_sv_hash(x);
        return h;
    }
    case TV_SV_ENTRY: return tv_sv_hash(&v->v.entry->key) ^ tv_sv_hash(&v->v.entry->val);
    case TV_SV_OBJ: return obj_hash(v->v.obj);
    }
    return 0;
}

static bool is_num(const tv_sv *v) {
    return v->type == TV_SV_INT || v->type == TV_SV_LONG || v->type == TV_SV_FLOAT || v->type == TV_SV_DOUBLE ||
           v->type == TV_SV_CHAR;
}

static bool list_equals(const tv_sv_list *a, const tv_sv_list *b, bool key) {
    if (a->len != b->len) return false;
    for (uint32_t i = 0; i < a->len; i++)
        if (key ? !tv_sv_key_equals(&a->items[i], &b->items[i]) : !tv_sv_equals(&a->items[i], &b->items[i]))
            return false;
    return true;
}

static bool map_equals(const tv_sv_map *a, const tv_sv_map *b) {
    if (a->live != b->live) return false;
    uint32_t it = 0;
    const tv_sv *k, *x;
    while (tv_sv_map_next(a, &it, &k, &x)) {
        const tv_sv *y = tv_sv_map_get(b, k);
        if (!y || !tv_sv_key_equals(x, y)) return false;
    }
    return true;
}

static _Thread_local int eq_depth;
static _Thread_local long eq_work;

static bool key_equals_rec(const tv_sv *a, const tv_sv *b);

/* Object.equals */
bool tv_sv_key_equals(const tv_sv *a, const tv_sv *b) {
    if (eq_depth == 0) eq_work = 0;
    if (eq_depth > 100 || ++eq_work > WORK_BUDGET) return false; /* collections holding themselves */
    eq_depth++;
    bool r = key_equals_rec(a, b);
    eq_depth--;
    return r;
}

static bool key_equals_rec(const tv_sv *a, const tv_sv *b) {
    if (a->type != b->type) return false;
    switch (a->type) {
    case TV_SV_NULL: return true;
    case TV_SV_BOOL: return a->v.b == b->v.b;
    case TV_SV_CHAR: return a->v.c == b->v.c;
    case TV_SV_INT: return a->v.i == b->v.i;
    case TV_SV_LONG: return a->v.l == b->v.l;
    case TV_SV_FLOAT: return memcmp(&a->v.f, &b->v.f, 4) == 0 || (a->v.f != a->v.f && b->v.f != b->v.f);
    case TV_SV_DOUBLE: return java_double_hash(a->v.d) == java_double_hash(b->v.d) &&
                              (a->v.d == b->v.d || (a->v.d != a->v.d && b->v.d != b->v.d) ||
                               memcmp(&a->v.d, &b->v.d, 8) == 0);
    case TV_SV_STRING: return a->v.s->len == b->v.s->len && memcmp(a->v.s->s, b->v.s->s, a->v.s->len) == 0;
    case TV_SV_LIST: return a->v.list == b->v.list || list_equals(a->v.list, b->v.list, true);
    case TV_SV_MAP: return a->v.map == b->v.map || map_equals(a->v.map, b->v.map);
    case TV_SV_ENTRY:
        return tv_sv_key_equals(&a->v.entry->key, &b->v.entry->key) &&
               tv_sv_key_equals(&a->v.entry->val, &b->v.entry->val);
    case TV_SV_OBJ: return a->v.obj == b->v.obj || obj_equals(a->v.obj, b->v.obj);
    }
    return false;
}

/* Painless's def ==: numbers by value after promotion, else equals */
bool tv_sv_equals(const tv_sv *a, const tv_sv *b) {
    if (is_num(a) && is_num(b) && (a->type != TV_SV_CHAR || b->type != TV_SV_CHAR)) {
        if (a->type == TV_SV_DOUBLE || b->type == TV_SV_DOUBLE || a->type == TV_SV_FLOAT || b->type == TV_SV_FLOAT) {
            double x = a->type == TV_SV_DOUBLE ? a->v.d : a->type == TV_SV_FLOAT ? a->v.f
                     : a->type == TV_SV_LONG ? (double)a->v.l : a->type == TV_SV_INT ? a->v.i : a->v.c;
            double y = b->type == TV_SV_DOUBLE ? b->v.d : b->type == TV_SV_FLOAT ? b->v.f
                     : b->type == TV_SV_LONG ? (double)b->v.l : b->type == TV_SV_INT ? b->v.i : b->v.c;
            if (a->type != TV_SV_DOUBLE && b->type != TV_SV_DOUBLE) return (float)x == (float)y;
            return x == y;
        }
        int64_t x = a->type == TV_SV_LONG ? a->v.l : a->type == TV_SV_INT ? a->v.i : a->v.c;
        int64_t y = b->type == TV_SV_LONG ? b->v.l : b->type == TV_SV_INT ? b->v.i : b->v.c;
        return x == y;
    }
    if (a->type == TV_SV_LIST && b->type == TV_SV_LIST) return a->v.list == b->v.list || list_equals(a->v.list, b->v.list, true);
    return tv_sv_key_equals(a, b);
}

/* ---- maps ---- */

static int32_t find(const tv_sv_map *m, const tv_sv *key, uint32_t h) {
    if (!m->idx) {
        for (uint32_t i = 0; i < m->len; i++)
            if (!m->e[i].dead && m->e[i].hash == h && tv_sv_key_equals(&m->e[i].key, key)) return (int32_t)i;
        return -1;
    }
    uint32_t mask = m->idx_cap - 1;
    for (uint32_t s = h & mask;; s = (s + 1) & mask) {
        int32_t i = m->idx[s];
        if (i < 0) return -1;
        if (!m->e[i].dead && m->e[i].hash == h && tv_sv_key_equals(&m->e[i].key, key)) return i;
    }
}

static bool reindex(tv_arena *a, tv_sv_map *m) {
    /* compact dead entries, then rebuild the index */
    uint32_t k = 0;
    for (uint32_t i = 0; i < m->len; i++)
        if (!m->e[i].dead) m->e[k++] = m->e[i];
    m->len = k;
    if (m->live < 8) {
        m->idx = NULL;
        m->idx_cap = 0;
        return true;
    }
    uint32_t cap = 16;
    while (cap < m->cap * 2) cap *= 2;
    int32_t *idx = tv_arena_alloc(a, (size_t)cap * sizeof *idx);
    if (!idx) return false;
    memset(idx, 0xff, (size_t)cap * sizeof *idx);
    for (uint32_t i = 0; i < m->len; i++) {
        uint32_t s = m->e[i].hash & (cap - 1);
        while (idx[s] >= 0) s = (s + 1) & (cap - 1);
        idx[s] = (int32_t)i;
    }
    m->idx = idx;
    m->idx_cap = cap;
    return true;
}

const tv_sv *tv_sv_map_get(const tv_sv_map *m, const tv_sv *key) {
    int32_t i = find(m, key, tv_sv_hash(key));
    return i < 0 ? NULL : &m->e[i].val;
}

bool tv_sv_map_put(tv_arena *a, tv_sv_map *m, const tv_sv *key, tv_sv v, tv_sv *old, bool *had) {
    uint32_t h = tv_sv_hash(key);
    int32_t i = find(m, key, h);
    if (i >= 0) {
        if (old) *old = m->e[i].val;
        if (had) *had = true;
        m->e[i].val = v;
        return true;
    }
    if (had) *had = false;
    if (old) *old = tv_sv_null();
    if (m->len == m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 4;
        if (m->live * 2 < m->len) { /* mostly dead: compact in place */
            if (!reindex(a, m)) return false;
        } else {
            sv_mentry *e = tv_arena_alloc(a, (size_t)cap * sizeof *e);
            if (!e) return false;
            if (m->len) memcpy(e, m->e, m->len * sizeof *e);
            m->e = e;
            m->cap = cap;
            if (m->idx && !reindex(a, m)) return false;
        }
    }
    sv_mentry *e = &m->e[m->len++];
    e->key = *key;
    e->val = v;
    e->hash = h;
    e->dead = false;
    m->live++;
    if (!m->idx && m->live >= 8) return reindex(a, m);
    if (m->idx) {
        if (m->len * 2 > m->idx_cap) return reindex(a, m);
        uint32_t s = h & (m->idx_cap - 1);
        while (m->idx[s] >= 0) s = (s + 1) & (m->idx_cap - 1);
        m->idx[s] = (int32_t)(m->len - 1);
    }
    return true;
}

bool tv_sv_map_remove(tv_sv_map *m, const tv_sv *key, tv_sv *old) {
    int32_t i = find(m, key, tv_sv_hash(key));
    if (i < 0) return false;
    if (old) *old = m->e[i].val;
    m->e[i].dead = true;
    m->live--;
    if (!m->idx) { /* small: compact now */
        memmove(&m->e[i], &m->e[i + 1], (m->len - (uint32_t)i - 1) * sizeof *m->e);
        m->len--;
    }
    return true;
}

void tv_sv_map_clear(tv_sv_map *m) {
    m->len = 0;
    m->live = 0;
    m->idx = NULL;
    m->idx_cap = 0;
}

uint32_t tv_sv_map_size(const tv_sv_map *m) { return m->live; }

bool tv_sv_map_next(const tv_sv_map *m, uint32_t *it, const tv_sv **key, const tv_sv **val) {
    while (*it < m->len && m->e[*it].dead) (*it)++;
    if (*it >= m->len) return false;
    *key = &m->e[*it].key;
    *val = &m->e[*it].val;
    (*it)++;
    return true;
}

bool tv_sv_map_put_str(tv_arena *a, tv_sv_map *m, const char *key, size_t len, tv_sv v) {
    tv_sv k;
    if (!tv_sv_string(a, key, len, &k)) return false;
    return tv_sv_map_put(a, m, &k, v, NULL, NULL);
}

static bool str_key_is(const sv_mentry *e, uint32_t h, const char *key, size_t len) {
    return !e->dead && e->hash == h && e->key.type == TV_SV_STRING && e->key.v.s->len == len &&
           memcmp(e->key.v.s->s, key, len) == 0;
}

const tv_sv *tv_sv_map_get_str(const tv_sv_map *m, const char *key, size_t len) {
    uint32_t h = (uint32_t)tv_java_string_hash(key, len);
    if (m->idx) {
        uint32_t mask = m->idx_cap - 1;
        for (uint32_t s = h & mask;; s = (s + 1) & mask) {
            int32_t i = m->idx[s];
            if (i < 0) return NULL;
            if (str_key_is(&m->e[i], h, key, len)) return &m->e[i].val;
        }
    }
    for (uint32_t i = 0; i < m->len; i++)
        if (str_key_is(&m->e[i], h, key, len)) return &m->e[i].val;
    return NULL;
}

bool tv_sv_map_remove_str(tv_sv_map *m, const char *key, size_t len, tv_sv *old) {
    const tv_sv *v = tv_sv_map_get_str(m, key, len);
    if (!v) return false;
    const sv_mentry *e = (const sv_mentry *)((const char *)v - offsetof(sv_mentry, val));
    tv_sv k = e->key;
    return tv_sv_map_remove(m, &k, old);
}

uint32_t *tv_sv_map_order(tv_arena *a, const tv_sv_map *m, uint32_t *n) {
    uint32_t *pos = tv_arena_alloc(a, ((size_t)m->live + 1) * sizeof *pos);
    if (!pos) return NULL;
    uint32_t k = 0;
    bool strings = true;
    for (uint32_t i = 0; i < m->len; i++)
        if (!m->e[i].dead) {
            pos[k++] = i;
            if (m->e[i].key.type != TV_SV_STRING) strings = false;
        }
    *n = k;
    if (m->ordered || !strings || k < 2) return pos;
    const char **names = tv_arena_alloc(a, (size_t)k * sizeof *names);
    uint32_t *order = tv_arena_alloc(a, (size_t)k * sizeof *order);
    uint32_t *out = tv_arena_alloc(a, (size_t)k * sizeof *out);
    if (!names || !order || !out) return NULL;
    for (uint32_t i = 0; i < k; i++) names[i] = m->e[pos[i]].key.v.s->s;
    tv_java_hashmap_order(names, k, order);
    for (uint32_t i = 0; i < k; i++) out[i] = pos[order[i]];
    return out;
}

/* ---- JSON ---- */

tv_status tv_sv_from_json(tv_arena *a, const tv_json *j, bool ordered, tv_sv *out) {
    switch (j->type) {
    case TV_JSON_NULL: *out = tv_sv_null(); return TROVE_OK;
    case TV_JSON_TRUE: *out = tv_sv_bool(true); return TROVE_OK;
    case TV_JSON_FALSE: *out = tv_sv_bool(false); return TROVE_OK;
    case TV_JSON_INT:
        *out = j->v.i >= INT32_MIN && j->v.i <= INT32_MAX ? tv_sv_int((int32_t)j->v.i) : tv_sv_long(j->v.i);
        return TROVE_OK;
    case TV_JSON_UINT: return TROVE_EUNSUPPORTED;
    case TV_JSON_DOUBLE: *out = tv_sv_double(j->v.d); return TROVE_OK;
    case TV_JSON_STRING: return tv_sv_string(a, j->v.s, j->len, out) ? TROVE_OK : TROVE_ENOMEM;
    case TV_JSON_ARRAY: {
        if (!tv_sv_list_new(a, TV_SV_ARRAYLIST, out) || !tv_sv_list_reserve(a, out->v.list, j->len))
            return TROVE_ENOMEM;
        for (uint32_t i = 0; i < j->len; i++) {
            tv_sv x;
            tv_status st = tv_sv_from_json(a, &j->v.items[i], ordered, &x);
            if (st != TROVE_OK) return st;
            out->v.list->items[out->v.list->len++] = x;
        }
        return TROVE_OK;
    }
    case TV_JSON_OBJECT: {
        if (!tv_sv_map_new(a, ordered, out)) return TROVE_ENOMEM;
        for (uint32_t i = 0; i < j->len; i++) {
            tv_sv x;
            tv_status st = tv_sv_from_json(a, &j->v.members[i].val, ordered, &x);
            if (st != TROVE_OK) return st;
            if (!tv_sv_map_put_str(a, out->v.map, j->v.members[i].key, j->v.members[i].key_len, x))
                return TROVE_ENOMEM;
        }
        return TROVE_OK;
    }
    }
    return TROVE_EINTERNAL;
}

static void write_json(tv_jw *w, const tv_sv *v, tv_arena *scratch, int depth, long *work) {
    if (depth > TV_JW_MAX_DEPTH - 8 || ++*work > WORK_BUDGET * 10 || w->out->oom ||
        w->out->len > ((size_t)256 << 20)) {
        /* deeper than JSON can be written, or a map that holds itself */
        w->out->oom = true;
        return;
    }
    char tmp[8];
    switch (v->type) {
    case TV_SV_NULL: tv_jw_null(w); break;
    case TV_SV_BOOL: tv_jw_bool(w, v->v.b); break;
    case TV_SV_CHAR: {
        size_t n = tv_utf8_encode(v->v.c >= 0xD800 && v->v.c < 0xE000 ? 0xFFFD : v->v.c, (uint8_t *)tmp);
        tv_jw_str(w, tmp, n);
        break;
    }
    case TV_SV_INT: tv_jw_int(w, v->v.i); break;
    case TV_SV_LONG: tv_jw_int(w, v->v.l); break;
    case TV_SV_FLOAT: tv_jw_float(w, v->v.f); break;
    case TV_SV_DOUBLE: tv_jw_double(w, v->v.d); break;
    case TV_SV_STRING: tv_jw_str(w, v->v.s->s, v->v.s->len); break;
    case TV_SV_LIST:
        tv_jw_arr_begin(w);
        for (uint32_t i = 0; i < v->v.list->len; i++) write_json(w, &v->v.list->items[i], scratch, depth + 1, work);
        tv_jw_arr_end(w);
        break;
    case TV_SV_MAP: {
        uint32_t n = 0;
        uint32_t *ord = tv_sv_map_order(scratch, v->v.map, &n);
        if (!ord) {
            w->out->oom = true;
            return;
        }
        tv_jw_obj_begin(w);
        for (uint32_t i = 0; i < n; i++) {
            const sv_mentry *e = &v->v.map->e[ord[i]];
            if (e->key.type == TV_SV_STRING) {
                tv_jw_key(w, e->key.v.s->s, e->key.v.s->len);
            } else {
                tv_buf b;
                tv_buf_init(&b);
                tv_sv_to_string(&b, &e->key);
                tv_jw_key(w, b.data ? b.data : "", b.len);
                tv_buf_fini(&b);
            }
            write_json(w, &e->val, scratch, depth + 1, work);
        }
        tv_jw_obj_end(w);
        break;
    }
    case TV_SV_ENTRY:
        tv_jw_obj_begin(w);
        if (v->v.entry->key.type == TV_SV_STRING) {
            tv_jw_key(w, v->v.entry->key.v.s->s, v->v.entry->key.v.s->len);
        } else {
            tv_buf b;
            tv_buf_init(&b);
            tv_sv_to_string(&b, &v->v.entry->key);
            tv_jw_key(w, b.data ? b.data : "", b.len);
            tv_buf_fini(&b);
        }
        write_json(w, &v->v.entry->val, scratch, depth + 1, work);
        tv_jw_obj_end(w);
        break;
    case TV_SV_OBJ: {
        const tv_sv_obj *o = v->v.obj;
        if (o->kind == TV_SV_O_GEO) { /* GeoPoint.toXContent */
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "lat");
            tv_jw_double(w, o->lat);
            tv_jw_keyz(w, "lon");
            tv_jw_double(w, o->lon);
            tv_jw_obj_end(w);
        } else if (o->kind == TV_SV_O_DOW) {
            tv_jw_strz(w, tv_sv_dow_names[o->sec]);
        } else if (o->kind == TV_SV_O_TOKEN) { /* not an XContent value: its toString */
            tv_jw_strz(w, "org.opensearch.script.AnalysisPredicateScript$Token");
        } else { /* XContentBuilder's dates: strict_date_optional_time_nanos */
            char b[64];
            tv_sv_obj z = *o;
            z.kind = TV_SV_O_DATE;
            tv_jw_str(w, b, tv_sv_date_format(&z, b, sizeof b));
        }
        break;
    }
    }
}

void tv_sv_write_json(tv_jw *w, const tv_sv *v) {
    tv_arena scratch;
    tv_arena_init(&scratch);
    long work = 0;
    write_json(w, v, &scratch, 0, &work);
    tv_arena_fini(&scratch);
}

static void to_string(tv_buf *b, const tv_sv *v, tv_arena *scratch, int depth, long *work) {
    char tmp[40];
    if (depth > 100 || ++*work > WORK_BUDGET || b->len > ((size_t)64 << 20)) {
        b->oom = true; /* Java overflows its stack */
        return;
    }
    switch (v->type) {
    case TV_SV_NULL: tv_buf_puts(b, "null"); break;
    case TV_SV_BOOL: tv_buf_puts(b, v->v.b ? "true" : "false"); break;
    case TV_SV_CHAR: {
        size_t n = tv_utf8_encode(v->v.c >= 0xD800 && v->v.c < 0xE000 ? 0xFFFD : v->v.c, (uint8_t *)tmp);
        tv_buf_append(b, tmp, n);
        break;
    }
    case TV_SV_INT: tv_buf_printf(b, "%d", v->v.i); break;
    case TV_SV_LONG: tv_buf_printf(b, "%lld", (long long)v->v.l); break;
    case TV_SV_FLOAT: tv_buf_append(b, tmp, tv_fmt_float(v->v.f, tmp)); break;
    case TV_SV_DOUBLE: tv_buf_append(b, tmp, tv_fmt_double(v->v.d, tmp)); break;
    case TV_SV_STRING: tv_buf_append(b, v->v.s->s, v->v.s->len); break;
    case TV_SV_LIST:
        tv_buf_putc(b, '[');
        for (uint32_t i = 0; i < v->v.list->len; i++) {
            if (i) tv_buf_puts(b, ", ");
            const tv_sv *x = &v->v.list->items[i];
            if (x->type == TV_SV_LIST && x->v.list == v->v.list)
                tv_buf_puts(b, "(this Collection)");
            else
                to_string(b, x, scratch, depth + 1, work);
        }
        tv_buf_putc(b, ']');
        break;
    case TV_SV_MAP: {
        uint32_t n = 0;
        uint32_t *ord = tv_sv_map_order(scratch, v->v.map, &n);
        if (!ord) {
            b->oom = true;
            return;
        }
        tv_buf_putc(b, '{');
        for (uint32_t i = 0; i < n; i++) {
            if (i) tv_buf_puts(b, ", ");
            const tv_sv *k = &v->v.map->e[ord[i]].key, *x = &v->v.map->e[ord[i]].val;
            if (k->type == TV_SV_MAP && k->v.map == v->v.map)
                tv_buf_puts(b, "(this Map)");
            else
                to_string(b, k, scratch, depth + 1, work);
            tv_buf_putc(b, '=');
            if (x->type == TV_SV_MAP && x->v.map == v->v.map)
                tv_buf_puts(b, "(this Map)");
            else
                to_string(b, x, scratch, depth + 1, work);
        }
        tv_buf_putc(b, '}');
        break;
    }
    case TV_SV_ENTRY:
        to_string(b, &v->v.entry->key, scratch, depth + 1, work);
        tv_buf_putc(b, '=');
        to_string(b, &v->v.entry->val, scratch, depth + 1, work);
        break;
    case TV_SV_OBJ: {
        const tv_sv_obj *o = v->v.obj;
        if (o->kind == TV_SV_O_GEO) { /* GeoPoint.toString: lat + ", " + lon */
            tv_buf_append(b, tmp, tv_fmt_double(o->lat, tmp));
            tv_buf_puts(b, ", ");
            tv_buf_append(b, tmp, tv_fmt_double(o->lon, tmp));
        } else if (o->kind == TV_SV_O_DOW) {
            tv_buf_puts(b, tv_sv_dow_names[o->sec]);
        } else if (o->kind == TV_SV_O_TOKEN) {
            tv_buf_puts(b, "org.opensearch.script.AnalysisPredicateScript$Token");
        } else {
            char d[64];
            tv_buf_append(b, d, tv_sv_date_format(o, d, sizeof d));
        }
        break;
    }
    }
}

void tv_sv_to_string(tv_buf *b, const tv_sv *v) {
    tv_arena scratch;
    tv_arena_init(&scratch);
    long work = 0;
    to_string(b, v, &scratch, 0, &work);
    tv_arena_fini(&scratch);
}

const char *tv_sv_class(const tv_sv *v) {
    switch (v->type) {
    case TV_SV_NULL: return "null";
    case TV_SV_BOOL: return "java.lang.Boolean";
    case TV_SV_CHAR: return "java.lang.Character";
    case TV_SV_INT: return "java.lang.Integer";
    case TV_SV_LONG: return "java.lang.Long";
    case TV_SV_FLOAT: return "java.lang.Float";
    case TV_SV_DOUBLE: return "java.lang.Double";
    case TV_SV_STRING: return "java.lang.String";
    case TV_SV_LIST:
        return v->v.list->kind == TV_SV_ARRAY ? "java.lang.String[]"
             : v->v.list->kind == TV_SV_DOCVALUES ? "org.opensearch.index.fielddata.ScriptDocValues"
                                                    : "java.util.ArrayList";
    case TV_SV_MAP: return v->v.map->ordered ? "java.util.LinkedHashMap" : "java.util.HashMap";
    case TV_SV_ENTRY: return "java.util.HashMap$Node";
    case TV_SV_OBJ:
        switch (v->v.obj->kind) {
        case TV_SV_O_DATE: return "org.opensearch.script.JodaCompatibleZonedDateTime";
        case TV_SV_O_INSTANT: return "java.time.Instant";
        case TV_SV_O_GEO: return "org.opensearch.common.geo.GeoPoint";
        case TV_SV_O_TOKEN: return "org.opensearch.script.AnalysisPredicateScript$Token";
        default: return "java.time.DayOfWeek";
        }
    }
    return "java.lang.Object";
}
