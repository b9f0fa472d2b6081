/*
 * map.c — a string-keyed hash map with open addressing and linear probing.
 *
 * Used for names (indices, fields, aliases, analyzers) where lookups dominate
 * and tables are small to medium. Keys are copied; each slot keeps the full
 * 64-bit hash so probes compare hashes before bytes and growth never
 * rehashes strings. Deletion leaves a tombstone; the table is rebuilt when
 * live + tombstones pass 3/4 of capacity. Rejected: chaining (a pointer
 * chase per probe) and Robin Hood (more code for tables this small).
 */
#include "util.h"

#include <xxhash.h>

static char tombstone_;
#define TV_MAP_TOMBSTONE (&tombstone_)

uint64_t tv_hash(const void *p, size_t n) { return XXH3_64bits(p, n); }
uint32_t tv_checksum32(const void *p, size_t n) { return XXH32(p, n, 0); }

void tv_map_init(tv_map *m) {
    m->slots = NULL;
    m->cap = m->len = m->used = 0;
    m->borrowed = false;
}

void tv_map_init_borrowed(tv_map *m) {
    tv_map_init(m);
    m->borrowed = true;
}

void tv_map_fini(tv_map *m) {
    bool borrowed = m->borrowed;
    for (size_t i = 0; !borrowed && i < m->cap; i++)
        if (m->slots[i].key && m->slots[i].key != TV_MAP_TOMBSTONE) tv_free(m->slots[i].key);
    tv_free(m->slots);
    tv_map_init(m);
    m->borrowed = borrowed;
}

static tv_map_slot *find(const tv_map *m, const char *key, size_t len, uint64_t h) {
    if (!m->cap) return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        tv_map_slot *s = &m->slots[i];
        if (!s->key) return NULL;
        if (s->key != TV_MAP_TOMBSTONE && s->hash == h && s->key_len == len &&
            memcmp(s->key, key, len) == 0)
            return s;
    }
}

static tv_status rehash(tv_map *m, size_t ncap) {
    tv_map_slot *ns = tv_calloc(ncap, sizeof *ns);
    if (!ns) return TROVE_ENOMEM;
    for (size_t i = 0; i < m->cap; i++) {
        tv_map_slot *s = &m->slots[i];
        if (!s->key || s->key == TV_MAP_TOMBSTONE) continue;
        size_t j = s->hash & (ncap - 1);
        while (ns[j].key) j = (j + 1) & (ncap - 1);
        ns[j] = *s;
    }
    tv_free(m->slots);
    m->slots = ns;
    m->cap = ncap;
    m->used = m->len;
    return TROVE_OK;
}

tv_status tv_map_put(tv_map *m, const char *key, size_t len, void *value, void **old) {
    uint64_t h = tv_hash(key, len);
    tv_map_slot *s = find(m, key, len, h);
    if (s) {
        if (old) *old = s->value;
        s->value = value;
        return TROVE_OK;
    }
    if (old) *old = NULL;
    if ((m->used + 1) * 4 > m->cap * 3) {
        size_t ncap = m->cap ? m->cap : 8;
        while ((m->len + 1) * 4 > ncap * 3 / 2) ncap *= 2;
        tv_status st = rehash(m, ncap);
        if (st) return st;
    }
    /* a borrowed empty key may be NULL, which would read as an empty slot */
    char *k = m->borrowed ? (char *)(key ? key : "") : tv_strndup(key, len);
    if (!k) return TROVE_ENOMEM;
    size_t mask = m->cap - 1, i = h & mask;
    while (m->slots[i].key && m->slots[i].key != TV_MAP_TOMBSTONE) i = (i + 1) & mask;
    if (!m->slots[i].key) m->used++;
    m->slots[i] = (tv_map_slot){k, len, h, value};
    m->len++;
    return TROVE_OK;
}

void *tv_map_get(const tv_map *m, const char *key, size_t len) {
    tv_map_slot *s = find(m, key, len, tv_hash(key, len));
    return s ? s->value : NULL;
}

bool tv_map_has(const tv_map *m, const char *key, size_t len) {
    return find(m, key, len, tv_hash(key, len)) != NULL;
}

void *tv_map_del(tv_map *m, const char *key, size_t len) {
    tv_map_slot *s = find(m, key, len, tv_hash(key, len));
    if (!s) return NULL;
    void *v = s->value;
    if (!m->borrowed) tv_free(s->key);
    s->key = TV_MAP_TOMBSTONE;
    s->value = NULL;
    m->len--;
    return v;
}

bool tv_map_next(const tv_map *m, size_t *it, const char **key, size_t *len, void **value) {
    while (*it < m->cap) {
        tv_map_slot *s = &m->slots[(*it)++];
        if (s->key && s->key != TV_MAP_TOMBSTONE) {
            if (key) *key = s->key;
            if (len) *len = s->key_len;
            if (value) *value = s->value;
            return true;
        }
    }
    return false;
}

tv_status tv_map_copy(tv_map *dst, const tv_map *src) {
    tv_map_init(dst);
    size_t it = 0;
    const char *k;
    size_t kl;
    void *v;
    while (tv_map_next(src, &it, &k, &kl, &v)) {
        if (tv_map_put(dst, k, kl, v, NULL)) {
            tv_map_fini(dst);
            return TROVE_ENOMEM;
        }
    }
    return TROVE_OK;
}
