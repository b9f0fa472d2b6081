/* test_index_engine.c — tv_index: writes, versions, seq_no, conflicts,
 * refresh visibility, snapshots, merge bound, clones, OOM paths, threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "index/engine_int.h"
#include "index/index.h"

/* ------------------------------------------------------------- helpers */

static tv_json *json(tv_arena *a, const char *s) {
    tv_json *v = NULL;
    if (!s) return NULL;
    assert_int_equal(tv_json_parse(a, s, strlen(s), &v, NULL), TROVE_OK);
    return v;
}

/* An index with the given settings/mappings JSON (NULL: none). */
static tv_index *mk(const char *settings, const char *mappings) {
    tv_arena a;
    tv_arena_init(&a);
    tv_error err = TV_ERROR_INIT;
    tv_index *idx = tv_index_new("test", json(&a, settings), json(&a, mappings), &err);
    if (!idx) fail_msg("tv_index_new: %s", err.reason);
    tv_arena_fini(&a);
    return idx;
}

/* No periodic refresh: visibility only through explicit refreshes. */
static tv_index *mk_manual(void) { return mk("{\"index\":{\"refresh_interval\":\"-1\"}}", NULL); }

static tv_write_result put_opts(tv_index *idx, const char *id, const char *src, const tv_write_opts *o) {
    tv_write_result r;
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_index_put(idx, id, strlen(id), src, strlen(src), o, &r, &err);
    if (st) fail_msg("put %s: %s %s", id, trove_status_name(st), err.reason);
    return r;
}

static tv_write_result put(tv_index *idx, const char *id, const char *src) {
    return put_opts(idx, id, src, NULL);
}

static tv_write_result del(tv_index *idx, const char *id) {
    tv_write_result r;
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_index_delete(idx, id, strlen(id), NULL, &r, &err);
    if (st) fail_msg("delete %s: %s %s", id, trove_status_name(st), err.reason);
    return r;
}

static void expect_result(tv_write_result r, tv_write_result_kind kind, int64_t version, int64_t seq_no) {
    assert_string_equal(tv_write_result_name(r.result), tv_write_result_name(kind));
    assert_int_equal(r.version, version);
    assert_int_equal(r.seq_no, seq_no);
    assert_int_equal(r.primary_term, 1);
}

/* Realtime (or not) get: returns found, fills version/seq_no and source. */
static bool get(tv_index *idx, const char *id, bool realtime, int64_t *version, int64_t *seq_no,
                char *src_out, size_t cap) {
    tv_arena a;
    tv_arena_init(&a);
    bool found = false;
    tv_doc_meta meta;
    const char *src;
    size_t len;
    assert_int_equal(tv_index_get(idx, id, strlen(id), realtime, &a, &found, &meta, &src, &len), TROVE_OK);
    if (found) {
        assert_int_equal(meta.id_len, strlen(id));
        assert_memory_equal(meta.id, id, meta.id_len);
        if (version) *version = meta.version;
        if (seq_no) *seq_no = meta.seq_no;
        if (src_out) {
            assert_true(len < cap);
            memcpy(src_out, src, len);
            src_out[len] = 0;
        }
    }
    tv_arena_fini(&a);
    return found;
}

static bool has(tv_index *idx, const char *id, bool realtime) {
    return get(idx, id, realtime, NULL, NULL, NULL, 0);
}

static uint64_t searchable(tv_index *idx) {
    const tv_snapshot *s = tv_index_acquire(idx);
    assert_non_null(s);
    uint64_t n = s->num_docs;
    tv_snapshot_release(s);
    return n;
}

/* Expects a failure with a given status and reason. */
static void expect_put_error(tv_index *idx, const char *id, const char *src, const tv_write_opts *o,
                             tv_status code, const char *reason) {
    tv_write_result r;
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_index_put(idx, id, strlen(id), src, strlen(src), o, &r, &err);
    assert_string_equal(trove_status_name(st), trove_status_name(code));
    assert_int_equal(err.code, code);
    assert_string_equal(err.reason, reason);
}

static void expect_del_error(tv_index *idx, const char *id, const tv_write_opts *o, tv_status code,
                             const char *reason) {
    tv_write_result r;
    tv_error err = TV_ERROR_INIT;
    tv_status st = tv_index_delete(idx, id, strlen(id), o, &r, &err);
    assert_string_equal(trove_status_name(st), trove_status_name(code));
    assert_string_equal(err.reason, reason);
}

/* ---------------------------------------------------------------- tests */

static void test_put_get_delete(void **state) {
    (void)state;
    tv_index *idx = mk_manual();
    assert_string_equal(tv_index_name(idx), "test");
    assert_true(strlen(tv_index_uuid(idx)) > 0);

    expect_result(put(idx, "1", "{\"title\":\"hello world\"}"), TV_RESULT_CREATED, 1, 0);
    char src[256];
    int64_t v, s;
    assert_true(get(idx, "1", true, &v, &s, src, sizeof src));
    assert_string_equal(src, "{\"title\":\"hello world\"}");
    assert_int_equal(v, 1);
    assert_int_equal(s, 0);
    /* not refreshed: invisible to search and to non-realtime get */
    assert_int_equal(searchable(idx), 0);
    assert_false(has(idx, "1", false));

    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    assert_int_equal(searchable(idx), 1);
    assert_true(get(idx, "1", false, &v, NULL, src, sizeof src));
    assert_string_equal(src, "{\"title\":\"hello world\"}");

    /* overwrite: realtime sees the new source, search the old until refresh */
    expect_result(put(idx, "1", "{\"title\":\"second\"}"), TV_RESULT_UPDATED, 2, 1);
    assert_true(get(idx, "1", true, &v, &s, src, sizeof src));
    assert_string_equal(src, "{\"title\":\"second\"}");
    assert_int_equal(v, 2);
    assert_int_equal(s, 1);
    assert_true(get(idx, "1", false, &v, NULL, src, sizeof src));
    assert_string_equal(src, "{\"title\":\"hello world\"}");
    assert_int_equal(v, 1);

    expect_result(del(idx, "1"), TV_RESULT_DELETED, 3, 2);
    assert_false(has(idx, "1", true));
    assert_true(has(idx, "1", false)); /* the published snapshot still has it */
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    assert_false(has(idx, "1", false));
    assert_int_equal(searchable(idx), 0);

    /* deleting again: not_found, version continues from the tombstone */
    expect_result(del(idx, "1"), TV_RESULT_NOT_FOUND, 4, 3);
    /* re-index within gc_deletes: created, version continues */
    expect_result(put(idx, "1", "{}"), TV_RESULT_CREATED, 5, 4);
    /* a missing doc: not_found, version 1, still takes a seq_no */
    expect_result(del(idx, "nope"), TV_RESULT_NOT_FOUND, 1, 5);
    expect_result(put(idx, "nope", "{}"), TV_RESULT_CREATED, 2, 6);
    expect_result(put(idx, "2", "{}"), TV_RESULT_CREATED, 1, 7);

    tv_index_stats st;
    tv_index_get_stats(idx, &st);
    assert_int_equal(st.docs_count, 3);
    tv_index_release(idx);
}

static void test_gc_deletes(void **state) {
    (void)state;
    tv_index *idx = mk_manual();
    expect_result(put(idx, "a", "{}"), TV_RESULT_CREATED, 1, 0);
    expect_result(put(idx, "a", "{}"), TV_RESULT_UPDATED, 2, 1);
    expect_result(del(idx, "a"), TV_RESULT_DELETED, 3, 2);
    tv_engine_test_advance_clock(61000); /* past index.gc_deletes (60s) */
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    expect_result(put(idx, "a", "{}"), TV_RESULT_CREATED, 1, 3);
    expect_result(del(idx, "a"), TV_RESULT_DELETED, 2, 4);
    tv_index_release(idx);

    /* index.gc_deletes is honoured (when the settings layer accepts it) */
    tv_arena a;
    tv_arena_init(&a);
    tv_error err = TV_ERROR_INIT;
    idx = tv_index_new("test", json(&a, "{\"index\":{\"refresh_interval\":\"-1\",\"gc_deletes\":\"1s\"}}"),
                       NULL, &err);
    tv_arena_fini(&a);
    if (!idx) {
        print_message("index.gc_deletes not accepted by tv_settings_parse: %s\n", err.reason);
        return;
    }
    put(idx, "a", "{}");
    del(idx, "a");
    tv_engine_test_advance_clock(500);
    expect_result(put(idx, "a", "{}"), TV_RESULT_CREATED, 3, 2);
    del(idx, "a");
    tv_engine_test_advance_clock(1500);
    expect_result(put(idx, "a", "{}"), TV_RESULT_CREATED, 1, 4);
    tv_index_release(idx);
}

static void test_create_and_conflicts(void **state) {
    (void)state;
    tv_index *idx = mk_manual();
    tv_write_opts o;
    tv_write_opts_init(&o);
    o.op_type = TV_OP_CREATE;
    expect_result(put_opts(idx, "1", "{\"a\":1}", &o), TV_RESULT_CREATED, 1, 0);
    expect_put_error(idx, "1", "{\"a\":2}", &o, TROVE_ECONFLICT,
                     "[1]: version conflict, document already exists (current version [1])");
    {
        tv_write_result r;
        tv_error err = TV_ERROR_INIT;
        tv_index_put(idx, "1", 1, "{}", 2, &o, &r, &err);
        assert_string_equal(err.index, "test");
        assert_string_equal(trove_status_type(err.code), "version_conflict_engine_exception");
        assert_int_equal(trove_status_http(err.code), 409);
    }
    /* the conflict consumed no seq_no */
    expect_result(put(idx, "1", "{\"a\":3}"), TV_RESULT_UPDATED, 2, 1);
    /* also conflicts after a refresh (doc in a segment) */
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    expect_put_error(idx, "1", "{}", &o, TROVE_ECONFLICT,
                     "[1]: version conflict, document already exists (current version [2])");
    /* create after delete is fine */
    expect_result(del(idx, "1"), TV_RESULT_DELETED, 3, 2);
    expect_result(put_opts(idx, "1", "{}", &o), TV_RESULT_CREATED, 4, 3);

    /* if_seq_no / if_primary_term */
    tv_write_opts c;
    tv_write_opts_init(&c);
    c.if_seq_no = 5;
    c.if_primary_term = 1;
    expect_put_error(idx, "1", "{}", &c, TROVE_ECONFLICT,
                     "[1]: version conflict, required seqNo [5], primary term [1]. current document "
                     "has seqNo [3] and primary term [1]");
    expect_put_error(idx, "missing", "{}", &c, TROVE_ECONFLICT,
                     "[missing]: version conflict, required seqNo [5], primary term [1]. but no "
                     "document was found");
    expect_del_error(idx, "missing", &c, TROVE_ECONFLICT,
                     "[missing]: version conflict, required seqNo [5], primary term [1]. but no "
                     "document was found");
    c.if_seq_no = 3;
    c.if_primary_term = 2;
    expect_del_error(idx, "1", &c, TROVE_ECONFLICT,
                     "[1]: version conflict, required seqNo [3], primary term [2]. current document "
                     "has seqNo [3] and primary term [1]");
    c.if_primary_term = 1;
    expect_result(put_opts(idx, "1", "{\"b\":1}", &c), TV_RESULT_UPDATED, 5, 4);
    c.if_seq_no = 4;
    tv_write_result r;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_index_delete(idx, "1", 1, &c, &r, &err), TROVE_OK);
    expect_result(r, TV_RESULT_DELETED, 6, 5);
    /* a deleted doc is "no document" for if_seq_no */
    c.if_seq_no = 5;
    expect_put_error(idx, "1", "{}", &c, TROVE_ECONFLICT,
                     "[1]: version conflict, required seqNo [5], primary term [1]. but no document "
                     "was found");

    /* request validation */
    tv_write_opts bad;
    tv_write_opts_init(&bad);
    bad.version = 3;
    expect_put_error(idx, "1", "{}", &bad, TROVE_EVALIDATION,
                     "Validation Failed: 1: internal versioning can not be used for optimistic "
                     "concurrency control. Please use `if_seq_no` and `if_primary_term` instead;");
    tv_write_opts_init(&bad);
    bad.op_type = TV_OP_CREATE;
    bad.version_type = TV_VT_EXTERNAL;
    bad.version = 3;
    expect_put_error(idx, "1", "{}", &bad, TROVE_EVALIDATION,
                     "Validation Failed: 1: create operations only support internal versioning. use "
                     "index instead;");
    tv_write_opts_init(&bad);
    bad.if_seq_no = 1;
    expect_put_error(idx, "1", "{}", &bad, TROVE_EVALIDATION,
                     "Validation Failed: 1: ifSeqNo is set, but primary term is [0];");
    tv_write_opts_init(&bad);
    bad.if_primary_term = 2;
    expect_del_error(idx, "1", &bad, TROVE_EVALIDATION,
                     "Validation Failed: 1: ifSeqNo is unassigned, but primary term is [2];");
    tv_write_opts_init(&bad);
    bad.version_type = TV_VT_EXTERNAL;
    bad.version = 2;
    bad.if_seq_no = 1;
    bad.if_primary_term = 1;
    expect_put_error(idx, "1", "{}", &bad, TROVE_EVALIDATION,
                     "Validation Failed: 1: compare and write operations can not use versioning;");
    tv_write_opts_init(&bad);
    bad.version_type = TV_VT_EXTERNAL;
    expect_put_error(idx, "1", "{}", &bad, TROVE_EVALIDATION,
                     "Validation Failed: 1: illegal version value [-3] for version type [EXTERNAL];");
    char longid[600];
    memset(longid, 'x', 513);
    longid[513] = 0;
    tv_write_opts_init(&bad);
    char expect[1200];
    snprintf(expect, sizeof expect,
             "Validation Failed: 1: id [%s] is too long, must be no longer than 512 bytes but was: 513;",
             longid);
    expect_put_error(idx, longid, "{}", &bad, TROVE_EVALIDATION, expect);
    /* none of these took a seq_no */
    expect_result(put(idx, "z", "{}"), TV_RESULT_CREATED, 1, 6);
    tv_index_release(idx);
}

static void test_external_versions(void **state) {
    (void)state;
    tv_index *idx = mk_manual();
    tv_write_opts o;
    tv_write_opts_init(&o);
    o.version_type = TV_VT_EXTERNAL;
    o.version = 5;
    expect_result(put_opts(idx, "1", "{}", &o), TV_RESULT_CREATED, 5, 0);
    expect_put_error(idx, "1", "{}", &o, TROVE_ECONFLICT,
                     "[1]: version conflict, current version [5] is higher or equal to the one "
                     "provided [5]");
    o.version = 10;
    expect_result(put_opts(idx, "1", "{}", &o), TV_RESULT_UPDATED, 10, 1);
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    o.version_type = TV_VT_EXTERNAL_GTE;
    expect_result(put_opts(idx, "1", "{}", &o), TV_RESULT_UPDATED, 10, 2);
    o.version = 9;
    expect_put_error(idx, "1", "{}", &o, TROVE_ECONFLICT,
                     "[1]: version conflict, current version [10] is higher than the one provided [9]");
    /* internal versioning continues from an external version */
    expect_result(put(idx, "1", "{}"), TV_RESULT_UPDATED, 11, 3);
    /* external delete */
    o.version_type = TV_VT_EXTERNAL;
    o.version = 11;
    expect_del_error(idx, "1", &o, TROVE_ECONFLICT,
                     "[1]: version conflict, current version [11] is higher or equal to the one "
                     "provided [11]");
    o.version = 20;
    tv_write_result r;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_index_delete(idx, "1", 1, &o, &r, &err), TROVE_OK);
    expect_result(r, TV_RESULT_DELETED, 20, 4);
    /* the tombstone keeps the external version */
    o.version = 15;
    expect_put_error(idx, "1", "{}", &o, TROVE_ECONFLICT,
                     "[1]: version conflict, current version [20] is higher or equal to the one "
                     "provided [15]");
    o.version = 0; /* 0 is a valid external version */
    expect_result(put_opts(idx, "new", "{}", &o), TV_RESULT_CREATED, 0, 5);
    tv_index_release(idx);
}

static void test_dynamic_mapping(void **state) {
    (void)state;
    tv_index *idx = mk_manual();
    const tv_mapping *m = tv_index_mapping(idx);
    assert_null(tv_mapping_field(m, "title", 5));
    tv_mapping_release(m);
    const tv_snapshot *s0 = tv_index_acquire(idx);

    put(idx, "1", "{\"title\":\"hello\",\"n\":1}");
    m = tv_index_mapping(idx);
    assert_non_null(tv_mapping_field(m, "title", 5));
    assert_non_null(tv_mapping_field(m, "n", 1));
    tv_mapping_release(m);
    /* a new mapping is visible to new snapshots at once; old ones keep theirs */
    const tv_snapshot *s1 = tv_index_acquire(idx);
    assert_non_null(tv_mapping_field(s1->mapping, "title", 5));
    assert_null(tv_mapping_field(s0->mapping, "title", 5));
    assert_int_equal(s1->num_docs, 0);
    tv_snapshot_release(s0);
    tv_snapshot_release(s1);

    /* a mapping update survives a conflicting write */
    tv_write_opts o;
    tv_write_opts_init(&o);
    o.op_type = TV_OP_CREATE;
    expect_put_error(idx, "1", "{\"other\":true}", &o, TROVE_ECONFLICT,
                     "[1]: version conflict, document already exists (current version [1])");
    m = tv_index_mapping(idx);
    assert_non_null(tv_mapping_field(m, "other", 5));
    tv_mapping_release(m);

    /* a value the mapping rejects: error, no seq_no consumed */
    tv_write_result r;
    tv_error err = TV_ERROR_INIT;
    const char *bad = "{\"n\":\"not a number\"}";
    tv_error_clear(&err);
    assert_int_not_equal(tv_index_put(idx, "2", 1, bad, strlen(bad), NULL, &r, &err), TROVE_OK);
    assert_int_not_equal(err.code, TROVE_OK);
    expect_result(put(idx, "3", "{\"n\":2}"), TV_RESULT_CREATED, 1, 1);

    /* put mapping */
    tv_arena a;
    tv_arena_init(&a);
    tv_error_clear(&err);
    assert_int_equal(tv_index_put_mapping(idx, json(&a, "{\"properties\":{\"k\":{\"type\":\"keyword\"}}}"), &err),
                     TROVE_OK);
    tv_error_clear(&err);
    assert_int_not_equal(tv_index_put_mapping(idx, json(&a, "{\"properties\":{\"k\":{\"type\":\"long\"}}}"), &err),
                         TROVE_OK);
    tv_arena_fini(&a);
    const tv_snapshot *s2 = tv_index_acquire(idx);
    assert_non_null(tv_mapping_field(s2->mapping, "k", 1));
    tv_snapshot_release(s2);
    tv_index_release(idx);

    /* strict mapping */
    idx = mk("{\"index\":{\"refresh_interval\":\"-1\"}}", "{\"dynamic\":\"strict\",\"properties\":{\"a\":{\"type\":\"keyword\"}}}");
    put(idx, "1", "{\"a\":\"x\"}");
    tv_error_clear(&err);
    tv_error_clear(&err);
    assert_int_equal(tv_index_put(idx, "2", 1, "{\"b\":1}", 7, NULL, &r, &err), TROVE_ESTRICT);
    tv_index_release(idx);
}

static void test_refresh_param(void **state) {
    (void)state;
    tv_index *idx = mk_manual();
    tv_write_opts o;
    tv_write_opts_init(&o);
    o.refresh = TV_REFRESH_TRUE;
    tv_write_result r = put_opts(idx, "1", "{}", &o);
    assert_true(r.forced_refresh);
    assert_int_equal(searchable(idx), 1);
    o.refresh = TV_REFRESH_WAIT_FOR;
    r = put_opts(idx, "2", "{}", &o);
    assert_false(r.forced_refresh);
    assert_int_equal(searchable(idx), 2);
    o.refresh = TV_REFRESH_FALSE;
    r = put_opts(idx, "3", "{}", &o);
    assert_false(r.forced_refresh);
    assert_int_equal(searchable(idx), 2);
    o.refresh = TV_REFRESH_TRUE;
    tv_error err = TV_ERROR_INIT;
    assert_int_equal(tv_index_delete(idx, "1", 1, &o, &r, &err), TROVE_OK);
    assert_true(r.forced_refresh);
    assert_int_equal(searchable(idx), 2);
    tv_index_release(idx);
}

static void test_lazy_refresh(void **state) {
    (void)state;
    /* explicit interval: visible once the interval has passed */
    tv_index *idx = mk("{\"index\":{\"refresh_interval\":\"1s\"}}", NULL);
    put(idx, "1", "{}");
    assert_int_equal(searchable(idx), 0);
    /* the engine's clock is the real one plus the advances: leave 100 ms
     * for the real one (a loaded TSan run took more than 1 ms here) */
    tv_engine_test_advance_clock(900);
    assert_int_equal(searchable(idx), 0);
    tv_engine_test_advance_clock(100);
    assert_int_equal(searchable(idx), 1);
    tv_index_release(idx);

    /* default interval: a search-idle index refreshes on the first search
     * (OpenSearch's first search on an idle shard waits for a refresh) */
    idx = mk(NULL, NULL);
    put(idx, "1", "{}");
    assert_int_equal(searchable(idx), 1);
    put(idx, "2", "{}");
    assert_int_equal(searchable(idx), 1); /* active: waits for the 1s interval */
    tv_engine_test_advance_clock(1000);
    assert_int_equal(searchable(idx), 2);
    tv_engine_test_advance_clock(31000); /* idle again */
    put(idx, "3", "{}");
    assert_int_equal(searchable(idx), 3);
    tv_index_release(idx);

    /* -1: never */
    idx = mk_manual();
    put(idx, "1", "{}");
    tv_engine_test_advance_clock(100000);
    assert_int_equal(searchable(idx), 0);
    tv_index_release(idx);
}

static void test_buffer_overwrite_once(void **state) {
    (void)state;
    tv_index *idx = mk_manual();
    for (int i = 0; i < 5; i++) put(idx, "same", "{\"v\":1}");
    put(idx, "other", "{}");
    del(idx, "other");
    assert_int_equal(tv_index_buffered_docs(idx), 1);
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    tv_index_stats st;
    tv_index_get_stats(idx, &st);
    assert_int_equal(st.docs_count, 1);
    assert_int_equal(st.docs_deleted, 0);
    assert_int_equal(st.segments, 1);
    assert_true(st.store_bytes > 0);
    const tv_snapshot *s = tv_index_acquire(idx);
    assert_int_equal(s->nsegs, 1);
    assert_int_equal(s->max_doc, 1);
    tv_snapshot_release(s);
    /* refresh with nothing new publishes nothing */
    s = tv_index_acquire(idx);
    uint64_t gen = s->generation;
    tv_snapshot_release(s);
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    s = tv_index_acquire(idx);
    assert_int_equal(s->generation, gen);
    tv_snapshot_release(s);
    tv_index_release(idx);
}

static uint64_t count_live(const tv_snapshot *s) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < s->nsegs; i++)
        for (uint32_t d = 0; d < s->segs[i].max_doc; d++) n += tv_segview_live(&s->segs[i], d);
    return n;
}

static void test_snapshot_isolation(void **state) {
    (void)state;
    tv_index *idx = mk_manual();
    char id[16], src[64];
    for (int i = 0; i < 10; i++) {
        snprintf(id, sizeof id, "%d", i);
        snprintf(src, sizeof src, "{\"v\":%d}", i);
        put(idx, id, src);
    }
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    const tv_snapshot *s1 = tv_index_acquire(idx);
    assert_int_equal(s1->num_docs, 10);
    assert_int_equal(count_live(s1), 10);

    del(idx, "5");
    put(idx, "6", "{\"v\":66}");
    put(idx, "10", "{\"v\":10}");
    /* unpublished changes never show in a held snapshot */
    assert_int_equal(count_live(s1), 10);
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    const tv_snapshot *s2 = tv_index_acquire(idx);
    assert_int_equal(s1->num_docs, 10);
    assert_int_equal(count_live(s1), 10);
    assert_int_equal(s2->num_docs, 10);
    assert_int_equal(count_live(s2), 10);
    assert_true(s2->generation > s1->generation);
    /* the old snapshot still reads the old version of 6 */
    tv_arena a;
    tv_arena_init(&a);
    bool seen_old6 = false;
    for (uint32_t i = 0; i < s1->nsegs; i++)
        for (uint32_t d = 0; d < s1->segs[i].max_doc; d++) {
            tv_doc_meta meta;
            const char *source;
            size_t len;
            assert_int_equal(tv_segment_doc(s1->segs[i].seg, d, &a, &meta, &source, &len), TROVE_OK);
            if (meta.id_len == 1 && meta.id[0] == '6') {
                assert_true(tv_segview_live(&s1->segs[i], d));
                assert_int_equal(meta.version, 1);
                assert_memory_equal(source, "{\"v\":6}", len);
                seen_old6 = true;
            }
        }
    assert_true(seen_old6);
    tv_arena_fini(&a);
    tv_snapshot_release(s1);
    /* the index may be released while a snapshot is held */
    tv_index_release(idx);
    assert_int_equal(count_live(s2), 10);
    assert_non_null(s2->mapping);
    tv_snapshot_release(s2);
}

/* Calls fn with every live document's segment and _id, in snapshot
 * order; returns how many there were. */
static uint32_t each_live(tv_index *idx, void (*fn)(void *ud, uint32_t seg, const char *id, size_t len), void *ud) {
    const tv_snapshot *s = tv_index_acquire(idx);
    tv_arena a;
    tv_arena_init(&a);
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->nsegs; i++)
        for (uint32_t d = 0; d < s->segs[i].max_doc; d++) {
            if (!tv_segview_live(&s->segs[i], d)) continue;
            tv_doc_meta meta;
            const char *source;
            size_t len;
            tv_arena_reset(&a);
            assert_int_equal(tv_segment_doc(s->segs[i].seg, d, &a, &meta, &source, &len), TROVE_OK);
            fn(ud, i, meta.id, meta.id_len);
            n++;
        }
    tv_arena_fini(&a);
    tv_snapshot_release(s);
    return n;
}

/* each_live: the ids d0, d1, ... in order, skipping those in skip[] (-1 ended),
 * in segment `only` (or all when UINT32_MAX). */
typedef struct in_order {
    int next;
    const int *skip;
    uint32_t only;
} in_order;

static void check_in_order(void *ud, uint32_t seg, const char *id, size_t len) {
    in_order *o = ud;
    if (o->only != UINT32_MAX && seg != o->only) return;
    for (bool again = true; again;) {
        again = false;
        for (const int *k = o->skip; k && *k >= 0; k++)
            if (*k == o->next) {
                o->next++;
                again = true;
            }
    }
    char want[32];
    snprintf(want, sizeof want, "d%d", o->next++);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(id, want, len);
}

/* The background merge's hook: says the merge is done, then waits to be
 * let go before it installs. */
static pthread_mutex_t bg_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bg_cv = PTHREAD_COND_INITIALIZER;
static int bg_state; /* 0 idle, 1 merged (waiting), 2 go */

static void bg_hook(void) {
    pthread_mutex_lock(&bg_mu);
    bg_state = 1;
    pthread_cond_broadcast(&bg_cv);
    while (bg_state != 2) pthread_cond_wait(&bg_cv, &bg_mu);
    pthread_mutex_unlock(&bg_mu);
}

static uint32_t segments_of(tv_index *idx) {
    tv_index_stats st;
    tv_index_get_stats(idx, &st);
    return st.segments;
}

/* A merge past TV_ENGINE_BG_MERGE_DOCS runs off the writer lock: writes,
 * deletes and refreshes go on during it, and what they deleted in its
 * window stays deleted once it is installed. */
static void test_background_merge_keeps_what_happened_meanwhile(void **state) {
    (void)state;
    tv_engine_bg_merge_hook = bg_hook;
    bg_state = 0;
    tv_index *idx = mk_manual();
    char id[32], src[64];
    const int per = 6000, nseg = TV_ENGINE_MERGE_FACTOR; /* 10 segments of one level: 60,000 docs */
    for (int s = 0; s < nseg; s++) {
        for (int i = 0; i < per; i++) {
            int n = s * per + i;
            snprintf(id, sizeof id, "d%d", n);
            snprintf(src, sizeof src, "{\"n\":%d}", n);
            put(idx, id, src);
        }
        assert_int_equal(tv_index_refresh(idx), TROVE_OK); /* the tenth starts the merge and returns */
    }
    pthread_mutex_lock(&bg_mu);
    while (bg_state != 1) pthread_cond_wait(&bg_cv, &bg_mu);
    pthread_mutex_unlock(&bg_mu);
    /* merged, not installed: the index goes on */
    assert_int_equal(segments_of(idx), nseg);
    del(idx, "d5");
    del(idx, "d59999");
    put(idx, "d6001", "{\"n\":-1}");
    put(idx, "new", "{\"n\":1000000}");
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    assert_int_equal(searchable(idx), per * nseg - 1);
    pthread_mutex_lock(&bg_mu);
    bg_state = 2;
    pthread_cond_broadcast(&bg_cv);
    pthread_mutex_unlock(&bg_mu);
    for (int spin = 0; segments_of(idx) > 2 && spin < 10000; spin++) usleep(1000);
    assert_int_equal(segments_of(idx), 2); /* the merged one and the refresh's */
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    assert_int_equal(searchable(idx), per * nseg - 1);
    int64_t v, seq;
    char got[64];
    assert_false(get(idx, "d5", false, &v, &seq, got, sizeof got));
    assert_false(get(idx, "d59999", false, &v, &seq, got, sizeof got));
    assert_true(get(idx, "d6001", false, &v, &seq, got, sizeof got));
    assert_string_equal(got, "{\"n\":-1}");
    assert_true(get(idx, "d6000", false, &v, &seq, got, sizeof got));
    /* the order of insertion holds: the merged documents, then the new ones */
    static const int gone[] = {5, 6001, -1};
    in_order o = {0, gone, 0};
    assert_int_equal(each_live(idx, check_in_order, &o), per * nseg - 1);
    tv_index_release(idx);
    tv_engine_bg_merge_hook = NULL;
}

static void test_merge_bound(void **state) {
    (void)state;
    tv_index *idx = mk_manual();
    char id[16];
    uint32_t max_segs = 0;
    for (int i = 0; i < 1000; i++) {
        snprintf(id, sizeof id, "d%d", i);
        put(idx, id, "{\"f\":\"x\"}");
        assert_int_equal(tv_index_refresh(idx), TROVE_OK);
        tv_index_stats st;
        tv_index_get_stats(idx, &st);
        if (st.segments > max_segs) max_segs = st.segments;
    }
    tv_index_stats st;
    tv_index_get_stats(idx, &st);
    print_message("1000 single-doc refreshes: %u segments at the end, %u at most\n", st.segments, max_segs);
    assert_true(st.segments <= 30);
    assert_true(max_segs <= 30);
    assert_int_equal(st.docs_count, 1000);
    assert_int_equal(searchable(idx), 1000);
    /* documents keep insertion order across merges */
    in_order o = {0, NULL, UINT32_MAX};
    assert_int_equal(each_live(idx, check_in_order, &o), 1000);
    for (int i = 0; i < 1000; i += 97) {
        snprintf(id, sizeof id, "d%d", i);
        assert_true(has(idx, id, true));
        assert_true(has(idx, id, false));
    }

    /* updating one id over and over leaves no pile of dead segments */
    for (int i = 0; i < 300; i++) {
        put(idx, "hot", "{}");
        assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    }
    tv_index_get_stats(idx, &st);
    assert_true(st.segments <= 30);
    assert_int_equal(st.docs_count, 1001);
    int64_t v;
    assert_true(get(idx, "hot", true, &v, NULL, NULL, 0));
    assert_int_equal(v, 300);
    tv_index_release(idx);
}

static void test_clone_isolation(void **state) {
    (void)state;
    tv_index *src = mk_manual();
    put(src, "a", "{\"v\":\"a\"}");
    put(src, "b", "{\"v\":\"b\"}");
    assert_int_equal(tv_index_refresh(src), TROVE_OK);
    put(src, "c", "{\"v\":\"c\"}"); /* unrefreshed */
    del(src, "b");                   /* unrefreshed delete of a segment doc */

    tv_error err = TV_ERROR_INIT;
    tv_index *cl = tv_index_clone(src, &err);
    assert_non_null(cl);
    assert_string_equal(tv_index_name(cl), "test");
    assert_string_equal(tv_index_uuid(cl), tv_index_uuid(src));
    assert_int_equal(tv_index_settings(cl)->refresh_interval_ms, -1);

    /* the clone sees exactly what the source saw */
    for (int side = 0; side < 2; side++) {
        tv_index *x = side ? cl : src;
        assert_true(has(x, "a", true));
        assert_false(has(x, "b", true));
        assert_true(has(x, "c", true));
        assert_true(has(x, "b", false));
        assert_false(has(x, "c", false));
        assert_int_equal(searchable(x), 2);
        tv_index_stats st;
        tv_index_get_stats(x, &st);
        assert_int_equal(st.docs_count, 2);
    }
    /* seq_no and versions continue on both sides */
    expect_result(put(cl, "a", "{\"v\":\"clone\"}"), TV_RESULT_UPDATED, 2, 4);
    expect_result(put(src, "a", "{\"v\":\"source\"}"), TV_RESULT_UPDATED, 2, 4);
    char buf[64];
    assert_true(get(cl, "a", true, NULL, NULL, buf, sizeof buf));
    assert_string_equal(buf, "{\"v\":\"clone\"}");
    assert_true(get(src, "a", true, NULL, NULL, buf, sizeof buf));
    assert_string_equal(buf, "{\"v\":\"source\"}");

    /* writes, deletes and refreshes on the clone leave the source alone */
    put(cl, "d", "{}");
    del(cl, "c");
    assert_int_equal(tv_index_refresh(cl), TROVE_OK);
    assert_int_equal(searchable(cl), 2); /* a(clone), d */
    assert_false(has(src, "d", true));
    assert_true(has(src, "c", true));
    assert_int_equal(searchable(src), 2); /* a, b: the source has not refreshed */
    assert_true(get(src, "a", false, NULL, NULL, buf, sizeof buf));
    assert_string_equal(buf, "{\"v\":\"a\"}");

    /* and the other way round */
    del(src, "a");
    assert_int_equal(tv_index_refresh(src), TROVE_OK);
    assert_int_equal(searchable(src), 1); /* c */
    assert_true(has(src, "c", false));
    assert_true(has(cl, "a", false));
    assert_true(get(cl, "a", true, NULL, NULL, buf, sizeof buf));
    assert_string_equal(buf, "{\"v\":\"clone\"}");

    /* a clone of a clone; the source may go away first */
    tv_error_clear(&err);
    tv_index *cl2 = tv_index_clone(cl, &err);
    assert_non_null(cl2);
    tv_index_release(src);
    put(cl2, "e", "{\"new\":\"field\"}");
    assert_int_equal(tv_index_refresh(cl2), TROVE_OK);
    assert_int_equal(searchable(cl2), 3);
    assert_int_equal(searchable(cl), 2);
    const tv_mapping *m = tv_index_mapping(cl);
    assert_null(tv_mapping_field(m, "new", 3));
    tv_mapping_release(m);
    m = tv_index_mapping(cl2);
    assert_non_null(tv_mapping_field(m, "new", 3));
    tv_mapping_release(m);
    tv_index_release(cl);
    tv_index_release(cl2);
}

static void test_seal_pending(void **state) {
    (void)state;
    tv_index *idx = mk_manual();
    put(idx, "1", "{}");
    put(idx, "2", "{}");
    assert_int_equal(tv_index_seal(idx), TROVE_OK);
    assert_int_equal(tv_index_buffered_docs(idx), 0);
    assert_true(has(idx, "1", true));
    assert_false(has(idx, "1", false));
    assert_int_equal(searchable(idx), 0);
    expect_result(put(idx, "1", "{}"), TV_RESULT_UPDATED, 2, 2);
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    assert_int_equal(searchable(idx), 2);
    tv_index_release(idx);
}

/* -------------------------------------------------------------------- OOM */

/* A small workload; every step may fail with TROVE_ENOMEM only. Returns the
 * number of failures seen. */
static int oom_workload(tv_index **pidx) {
    int fails = 0;
    tv_status st;
    tv_write_result r;
    tv_error err = TV_ERROR_INIT;
#define STEP(call)                                                              \
    do {                                                                        \
        st = (call);                                                            \
        if (st != TROVE_OK) {                                                   \
            if (st != TROVE_ENOMEM) fail_msg("%s: %s", #call, trove_status_name(st)); \
            fails++;                                                            \
        }                                                                       \
    } while (0)
    tv_arena a;
    tv_arena_init(&a);
    if (!*pidx) {
        tv_json *settings = NULL;
        const char *sj = "{\"index\":{\"refresh_interval\":\"-1\"}}";
        if (tv_json_parse(&a, sj, strlen(sj), &settings, NULL)) {
            tv_arena_fini(&a);
            return 1;
        }
        *pidx = tv_index_new("oom", settings, NULL, &err);
        if (!*pidx) {
            assert_int_equal(err.code, TROVE_ENOMEM);
            tv_arena_fini(&a);
            return 1;
        }
    }
    tv_index *idx = *pidx;
    tv_error_clear(&err);
    STEP(tv_index_put(idx, "1", 1, "{\"t\":\"a b\",\"n\":1}", 17, NULL, &r, &err));
    tv_error_clear(&err);
    STEP(tv_index_put(idx, "2", 1, "{\"t\":\"c\",\"k\":true}", 18, NULL, &r, &err));
    STEP(tv_index_refresh(idx));
    tv_error_clear(&err);
    STEP(tv_index_put(idx, "1", 1, "{\"t\":\"d\"}", 9, NULL, &r, &err));
    tv_error_clear(&err);
    STEP(tv_index_delete(idx, "2", 1, NULL, &r, &err));
    tv_error_clear(&err);
    tv_index *cl = tv_index_clone(idx, &err);
    if (!cl) {
        assert_int_equal(err.code, TROVE_ENOMEM);
        fails++;
    } else {
        tv_error_clear(&err);
        STEP(tv_index_put(cl, "3", 1, "{\"x\":1}", 7, NULL, &r, &err));
        STEP(tv_index_refresh(cl));
        tv_index_release(cl);
    }
    STEP(tv_index_refresh(idx));
    /* enough single-doc refreshes for a merge */
    for (int i = 0; i < TV_ENGINE_MERGE_FACTOR; i++) {
        char id[8];
        snprintf(id, sizeof id, "m%d", i);
        tv_error_clear(&err);
        STEP(tv_index_put(idx, id, strlen(id), "{\"t\":\"m\"}", 9, NULL, &r, &err));
        STEP(tv_index_refresh(idx));
    }
    bool found;
    tv_doc_meta meta;
    const char *source;
    size_t len;
    STEP(tv_index_get(idx, "1", 1, true, &a, &found, &meta, &source, &len));
    STEP(tv_index_get(idx, "1", 1, false, &a, &found, &meta, &source, &len));
    const tv_snapshot *s = tv_index_acquire(idx);
    if (!s) fails++;
    tv_snapshot_release(s);
    tv_arena_fini(&a);
#undef STEP
    return fails;
}

static void test_oom(void **state) {
    (void)state;
    int clean_runs = 0;
    long n;
    for (n = 0; n < 100000 && clean_runs == 0; n++) {
        tv_index *idx = NULL;
        tv_alloc_fail_after(n);
        int fails = oom_workload(&idx);
        tv_alloc_fail_after(-1);
        if (fails == 0) clean_runs++;
        if (!idx) continue;
        /* still usable and consistent */
        tv_write_result r;
        tv_error err = TV_ERROR_INIT;
        assert_int_equal(tv_index_put(idx, "after", 5, "{\"t\":\"z\"}", 9, NULL, &r, &err), TROVE_OK);
        assert_int_equal(tv_index_refresh(idx), TROVE_OK);
        assert_true(has(idx, "after", false));
        tv_index_stats st;
        tv_index_get_stats(idx, &st);
        uint64_t live = 0;
        const char *ids[] = {"1", "2", "after", "m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"};
        for (size_t i = 0; i < TV_ARRAY_LEN(ids); i++) live += has(idx, ids[i], true);
        assert_int_equal(st.docs_count, live);
        assert_int_equal(searchable(idx), live);
        tv_index_release(idx);
    }
    assert_int_equal(clean_runs, 1);
    print_message("OOM: each of the workload's %ld allocations failed once\n", n - 1);
}

/* --------------------------------------------------------------- threads */

typedef struct thr_ctx {
    tv_index *idx;
    int who;
    atomic_int *writers_left;
    int64_t deadline_ms;
    uint64_t iters, ops, checks;
} thr_ctx;

/* Writers put w<who>-<i> = {"w":who,"i":i}; every third iteration they
 * overwrite the previous doc with {} (version 2) and delete the one before. */
static void *writer(void *p) {
    thr_ctx *c = p;
    char id[32], src[64];
    uint64_t i;
    for (i = 0; tv_engine_now_ms() < c->deadline_ms || i < 30; i++) {
        snprintf(id, sizeof id, "w%d-%llu", c->who, (unsigned long long)i);
        snprintf(src, sizeof src, "{\"w\":%d,\"i\":%llu}", c->who, (unsigned long long)i);
        tv_write_result r;
        tv_error err = TV_ERROR_INIT;
        if (tv_index_put(c->idx, id, strlen(id), src, strlen(src), NULL, &r, &err)) abort();
        c->ops++;
        if (i % 3 == 2) {
            snprintf(id, sizeof id, "w%d-%llu", c->who, (unsigned long long)i - 1);
            tv_error_clear(&err);
            if (tv_index_put(c->idx, id, strlen(id), "{}", 2, NULL, &r, &err)) abort();
            if (r.version != 2 || r.result != TV_RESULT_UPDATED) abort();
            snprintf(id, sizeof id, "w%d-%llu", c->who, (unsigned long long)i - 2);
            tv_error_clear(&err);
            if (tv_index_delete(c->idx, id, strlen(id), NULL, &r, &err)) abort();
            if (r.result != TV_RESULT_DELETED || r.version != 2) abort();
            c->ops += 2;
        }
        if (i % 25 == 0 && tv_index_refresh(c->idx)) abort();
    }
    c->iters = i;
    atomic_fetch_sub(c->writers_left, 1);
    return NULL;
}

/* A stored doc must be one a writer wrote, whole: version 1 is the original
 * source of that id, version 2 the overwrite. */
static void check_doc(const tv_doc_meta *m, const char *src, size_t len) {
    char expect[64];
    int w;
    unsigned long long i;
    char idz[32];
    if (m->id_len >= sizeof idz) abort();
    memcpy(idz, m->id, m->id_len);
    idz[m->id_len] = 0;
    if (sscanf(idz, "w%d-%llu", &w, &i) != 2) abort();
    if (m->version == 1) snprintf(expect, sizeof expect, "{\"w\":%d,\"i\":%llu}", w, i);
    else if (m->version == 2) snprintf(expect, sizeof expect, "{}");
    else abort();
    if (len != strlen(expect) || memcmp(src, expect, len) != 0) abort();
}

static void *reader(void *p) {
    thr_ctx *c = p;
    uint64_t last_gen = 0;
    tv_arena a;
    tv_arena_init(&a);
    while (atomic_load(c->writers_left) > 0) {
        const tv_snapshot *s = tv_index_acquire(c->idx);
        if (!s) abort();
        if (s->generation < last_gen) abort();
        last_gen = s->generation;
        uint64_t live = 0, maxd = 0;
        for (uint32_t i = 0; i < s->nsegs; i++) {
            const tv_segview *v = &s->segs[i];
            uint32_t n = 0;
            for (uint32_t d = 0; d < v->max_doc; d++) n += tv_segview_live(v, d);
            if (n != v->num_docs || v->doc_base != maxd) abort();
            live += n;
            maxd += v->max_doc;
        }
        if (live != s->num_docs || maxd != s->max_doc) abort();
        /* read a few stored docs */
        for (uint32_t i = 0; i < s->nsegs; i++) {
            const tv_segview *v = &s->segs[i];
            tv_doc_meta meta;
            const char *src;
            size_t len;
            uint32_t d = (uint32_t)(c->checks % v->max_doc);
            if (tv_segment_doc(v->seg, d, &a, &meta, &src, &len)) abort();
            check_doc(&meta, src, len);
        }
        /* realtime gets of docs being written */
        char id[32];
        snprintf(id, sizeof id, "w%d-%llu", (int)(c->checks & 1), (unsigned long long)(c->checks % 50));
        bool found;
        tv_doc_meta meta;
        const char *src;
        size_t len;
        if (tv_index_get(c->idx, id, strlen(id), true, &a, &found, &meta, &src, &len)) abort();
        if (found) check_doc(&meta, src, len);
        tv_arena_reset(&a);
        tv_snapshot_release(s);
        c->checks++;
    }
    tv_arena_fini(&a);
    return NULL;
}

static void test_threads(void **state) {
    (void)state;
    tv_index *idx = mk("{\"index\":{\"refresh_interval\":\"-1\"}}", NULL);
    atomic_int left;
    atomic_init(&left, 2);
    thr_ctx ctx[4];
    pthread_t th[4];
    int64_t deadline = tv_engine_now_ms() + 800;
    for (int i = 0; i < 4; i++) {
        ctx[i] = (thr_ctx){idx, i, &left, deadline, 0, 0, 0};
        assert_int_equal(pthread_create(&th[i], NULL, i < 2 ? writer : reader, &ctx[i]), 0);
    }
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    print_message("writers: %llu + %llu iterations; readers: %llu + %llu checks\n",
                  (unsigned long long)ctx[0].iters, (unsigned long long)ctx[1].iters,
                  (unsigned long long)ctx[2].checks, (unsigned long long)ctx[3].checks);
    assert_int_equal(tv_index_refresh(idx), TROVE_OK);
    /* per writer: one doc per iteration, minus one delete per third */
    uint64_t expect = 0, ops = 0;
    for (int w = 0; w < 2; w++) {
        expect += ctx[w].iters - ctx[w].iters / 3;
        ops += ctx[w].ops;
    }
    tv_index_stats st;
    tv_index_get_stats(idx, &st);
    assert_int_equal(st.docs_count, expect);
    assert_int_equal(searchable(idx), expect);
    /* seq_no: one per operation */
    tv_write_result r = put(idx, "last", "{}");
    assert_int_equal(r.seq_no, ops);
    tv_index_release(idx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get_delete),
        cmocka_unit_test(test_gc_deletes),
        cmocka_unit_test(test_create_and_conflicts),
        cmocka_unit_test(test_external_versions),
        cmocka_unit_test(test_dynamic_mapping),
        cmocka_unit_test(test_refresh_param),
        cmocka_unit_test(test_lazy_refresh),
        cmocka_unit_test(test_buffer_overwrite_once),
        cmocka_unit_test(test_snapshot_isolation),
        cmocka_unit_test(test_merge_bound),
        cmocka_unit_test(test_background_merge_keeps_what_happened_meanwhile),
        cmocka_unit_test(test_clone_isolation),
        cmocka_unit_test(test_seal_pending),
        cmocka_unit_test(test_oom),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
