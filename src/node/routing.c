/*
 * routing.c — answering as if the index were sharded.
 *
 * trove keeps every document of an index in one place, but an OpenSearch
 * index has `number_of_shards` shards and a document lives on exactly one
 * of them, picked from its routing value (the `routing` parameter, or the
 * _id when there is none). A get, exists, delete or update whose routing
 * picks another shard than the one the document was indexed on does not
 * find it in OpenSearch (404), so trove must not either. This file
 * computes the shard exactly as OpenSearch's OperationRouting does:
 *
 *   hash      = murmur3_x86_32(UTF-16LE code units of the string, seed 0)
 *   offset    = floorMod(hash(_id), routing_partition_size)   (partitioned
 *               indices only, else 0)
 *   shard     = floorMod(hash(routing or _id) + offset, routing_num_shards)
 *               / (routing_num_shards / number_of_shards)
 *
 * routing_num_shards is index.number_of_routing_shards when set, else the
 * default OpenSearch computes at index creation: the largest
 * number_of_shards * 2^k not above 1024 (k >= 1), i.e.
 * number_of_shards << max(1, 10 - ceil(log2(number_of_shards))).
 *
 * The document's own shard is computed from its stored _routing (or _id);
 * the request's from its routing (or _id). Both use the same settings, so
 * the comparison needs no stored shard number.
 *
 * A search with routing reaches only the shards its values route to
 * (tv_routing_search_shards: OperationRouting.computeTargetedShards, with
 * routing_partition_size offsets); the api layer keeps the documents whose
 * own shard is among them (h_search.c's target_shards) and counts those
 * shards in _shards.
 *
 * `_routing.required` in the mapping makes a request without routing fail
 * with routing_missing_exception; the flag is read from the mapping as
 * tv_mapping_write prints it (the index layer's header offers no
 * accessor).
 *
 * Not emulated (a single store cannot): two documents with one _id on two
 * shards (indexing an existing _id with another routing replaces it), and
 * per-shard refresh.
 *
 * Alternatives rejected: storing a shard number per document (needs an
 * index-layer change and gains nothing, the routing is stored); hashing
 * the UTF-8 bytes (differs from OpenSearch for every string).
 */
#include <pthread.h>

#include "node/node.h"

static uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

/* One 4-byte block of MurmurHash3 x86_32 (Austin Appleby's public-domain
 * algorithm). */
static uint32_t mix_block(uint32_t h, uint32_t k) {
    k *= 0xcc9e2d51u;
    k = rotl32(k, 15);
    k *= 0x1b873593u;
    h ^= k;
    h = rotl32(h, 13);
    return h * 5 + 0xe6546b64u;
}

/* murmur3_x86_32 with seed 0 over the UTF-16LE bytes of the string,
 * streamed two code units (one block) at a time: no buffer. */
int32_t tv_routing_hash(const char *str, size_t len) {
    const unsigned char *s = (const unsigned char *)str;
    uint32_t h = 0, pending = 0;
    bool have = false;
    size_t units = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += tv_utf8_decode(s + i, s + len, &cp); /* malformed: U+FFFD, one byte */
        uint32_t u[2];
        int nu = 1;
        if (cp >= 0x10000) {
            uint32_t v = cp - 0x10000;
            u[0] = 0xD800 | (v >> 10);
            u[1] = 0xDC00 | (v & 0x3FF);
            nu = 2;
        } else {
            u[0] = cp;
        }
        for (int k = 0; k < nu; k++) {
            units++;
            if (!have) {
                pending = u[k];
                have = true;
            } else {
                h = mix_block(h, pending | u[k] << 16);
                have = false;
            }
        }
    }
    if (have) {
        uint32_t k = pending;
        k *= 0xcc9e2d51u;
        k = rotl32(k, 15);
        k *= 0x1b873593u;
        h ^= k;
    }
    h ^= (uint32_t)(units * 2);
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return (int32_t)h;
}

static int64_t floor_mod(int64_t a, int64_t m) {
    int64_t r = a % m;
    return r < 0 ? r + m : r;
}

uint32_t tv_routing_default_shards(uint32_t num_shards) {
    if (num_shards == 0) num_shards = 1;
    int log2n = 0;
    while ((1u << log2n) < num_shards) log2n++; /* ceil(log2) */
    int splits = 10 - log2n;
    if (splits < 1) splits = 1;
    return num_shards << splits;
}

void tv_shard_route_of(tv_index *idx, tv_shard_route *rt) {
    tv_index_lock(idx);
    tv_settings *s = tv_index_settings(idx);
    uint32_t ns = s && s->number_of_shards ? s->number_of_shards : 1;
    int64_t rns = s ? tv_settings_int(s, "index.number_of_routing_shards", 0) : 0;
    int64_t ps = s ? tv_settings_int(s, "index.routing_partition_size", 1) : 1;
    tv_index_unlock(idx);
    rt->num_shards = ns;
    rt->routing_num_shards = rns > 0 ? (uint32_t)rns : tv_routing_default_shards(ns);
    if (rt->routing_num_shards < ns || rt->routing_num_shards % ns) rt->routing_num_shards = ns;
    rt->partition_size = ps > 0 ? (uint32_t)ps : 1;
}

uint32_t tv_shard_id(const tv_shard_route *rt, const char *id, size_t id_len, const char *routing,
                         size_t routing_len) {
    if (rt->num_shards <= 1) return 0;
    int64_t offset = 0;
    if (rt->partition_size > 1) offset = floor_mod(tv_routing_hash(id, id_len), rt->partition_size);
    int32_t h = routing ? tv_routing_hash(routing, routing_len) : tv_routing_hash(id, id_len);
    /* Java int addition wraps */
    int32_t sum = (int32_t)((uint32_t)h + (uint32_t)offset);
    uint32_t factor = rt->routing_num_shards / rt->num_shards;
    return (uint32_t)(floor_mod(sum, rt->routing_num_shards) / factor);
}

void tv_routing_search_shards(const tv_shard_route *rt, const char *routing, size_t len, uint64_t *set) {
    if (rt->num_shards <= 1) {
        set[0] |= 1;
        return;
    }
    int32_t h = tv_routing_hash(routing, len);
    uint32_t factor = rt->routing_num_shards / rt->num_shards;
    uint32_t parts = rt->partition_size > 1 ? rt->partition_size : 1;
    for (uint32_t off = 0; off < parts; off++) {
        int32_t sum = (int32_t)((uint32_t)h + off); /* Java int addition wraps */
        uint32_t shard = (uint32_t)(floor_mod(sum, rt->routing_num_shards) / factor);
        set[shard / 64] |= 1ull << (shard % 64);
    }
}

bool tv_same_shard(tv_index *idx, const char *id, size_t id_len, const char *req_routing, size_t req_len,
                       const char *doc_routing, size_t doc_len) {
    if ((req_routing == NULL) == (doc_routing == NULL) &&
        (!req_routing || (req_len == doc_len && memcmp(req_routing, doc_routing, req_len) == 0)))
        return true;
    tv_shard_route rt;
    tv_shard_route_of(idx, &rt);
    if (rt.num_shards <= 1) return true;
    return tv_shard_id(&rt, id, id_len, req_routing, req_len) ==
           tv_shard_id(&rt, id, id_len, doc_routing, doc_len);
}

/* _routing.required, read from the mapping as tv_mapping_write prints it.
 * Serialising a mapping per write would cost as much as the write for
 * large mappings, so each thread remembers the answer for the last mapping
 * it read (holding a reference, so no other mapping can reuse the address
 * while it is remembered; released at thread exit by the key's
 * destructor). */
typedef struct req_cache {
    const tv_mapping *m;
    bool required;
} req_cache;

static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static bool cache_ok;

static void cache_free(void *p) {
    req_cache *c = p;
    if (!c) return;
    tv_mapping_release(c->m);
    tv_free(c);
}

static void cache_init(void) { cache_ok = pthread_key_create(&cache_key, cache_free) == 0; }

static bool mapping_routing_required(const tv_mapping *m) {
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_mapping_write(m, &w);
    bool req = false;
    if (!b.oom && b.data) {
        tv_arena a;
        tv_arena_init(&a);
        tv_json *root = NULL;
        if (tv_json_parse(&a, b.data, b.len, &root, NULL) == TROVE_OK && root && root->type == TV_JSON_OBJECT) {
            const tv_json *rt = tv_json_get(root, "_routing");
            const tv_json *rq = rt && rt->type == TV_JSON_OBJECT ? tv_json_get(rt, "required") : NULL;
            req = rq && rq->type == TV_JSON_TRUE;
        }
        tv_arena_fini(&a);
    }
    tv_buf_fini(&b);
    return req;
}

bool tv_routing_required(tv_index *idx) {
    const tv_mapping *m = tv_index_mapping(idx);
    if (!m) return false;
    pthread_once(&cache_once, cache_init);
    req_cache *c = cache_ok ? pthread_getspecific(cache_key) : NULL;
    if (c && c->m == m) {
        tv_mapping_release(m);
        return c->required;
    }
    bool req = mapping_routing_required(m);
    if (cache_ok) {
        if (!c && (c = tv_calloc(1, sizeof *c)) != NULL && pthread_setspecific(cache_key, c) != 0) {
            tv_free(c);
            c = NULL;
        }
        if (c) {
            tv_mapping_release(c->m);
            c->m = m; /* keeps the reference */
            c->required = req;
            return req;
        }
    }
    tv_mapping_release(m);
    return req;
}

void tv_routing_cache_drop(void) {
    if (!cache_ok) return;
    req_cache *c = pthread_getspecific(cache_key);
    if (!c) return;
    pthread_setspecific(cache_key, NULL);
    cache_free(c);
}
