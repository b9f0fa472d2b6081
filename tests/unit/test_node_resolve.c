/* test_node_resolve.c — the node layer without a request: index expression
 * resolution (tv_node_resolve_names) over a node's indices, aliases and
 * closed marks, its failures described rather than answered, and the
 * copy-on-write of a node's state (tv_node_own). Links the node layer
 * only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/node.h"

static void add_index(trove_node *n, const char *name, bool hidden) {
    tv_arena a;
    tv_arena_init(&a);
    tv_json *settings = NULL;
    const char *s = hidden ? "{\"index\":{\"hidden\":true}}" : "{}";
    assert_int_equal(tv_json_parse(&a, s, strlen(s), &settings, NULL), TROVE_OK);
    tv_error err = TV_ERROR_INIT;
    tv_index *idx = tv_index_new(name, settings, NULL, &err);
    if (!idx) fail_msg("tv_index_new: %s", err.reason);
    assert_int_equal(tv_map_put(&n->st->indices, name, strlen(name), idx, NULL), TROVE_OK);
    tv_arena_fini(&a);
}

static void add_alias(trove_node *n, const char *alias, const char *index, const char *filter) {
    tv_alias *grown = tv_realloc(n->st->aliases, (n->st->naliases + 1) * sizeof *grown);
    assert_non_null(grown);
    n->st->aliases = grown;
    tv_alias *al = &grown[n->st->naliases++];
    memset(al, 0, sizeof *al);
    al->alias = tv_strndup(alias, strlen(alias));
    al->index = tv_strndup(index, strlen(index));
    al->filter = filter ? tv_strndup(filter, strlen(filter)) : NULL;
    al->is_write_index = al->is_hidden = -1;
}

/* logs-1, logs-2, metrics, .hidden (hidden), closed-1 (closed); alias
 * "all-logs" over both logs indices, the second with a filter */
static int setup(void **state) {
    tv_node_state *st = tv_node_state_new();
    trove_node *n = st ? tv_node_new(st, NULL, NULL, 0) : NULL;
    assert_non_null(n);
    add_index(n, "logs-1", false);
    add_index(n, "logs-2", false);
    add_index(n, "metrics", false);
    add_index(n, ".hidden", true);
    add_index(n, "closed-1", false);
    assert_int_equal(tv_map_put(&n->st->closed, "closed-1", 8, (void *)1, NULL), TROVE_OK);
    add_alias(n, "all-logs", "logs-1", NULL);
    add_alias(n, "all-logs", "logs-2", "{\"term\":{\"x\":1}}");
    *state = n;
    return 0;
}

static int teardown(void **state) {
    tv_node_free(*state);
    return 0;
}

/* The names an expression resolves to, comma-joined ("" for none), or
 * the failure: "MISSING:name", "ALIAS:name", "CLOSED:name". */
static const char *resolve(trove_node *n, const char *expr, tv_resolve_opts o, char *out, size_t cap) {
    tv_arena a;
    tv_arena_init(&a);
    tv_index_list l;
    tv_resolve_fail f;
    tv_status st = tv_node_resolve_names(n, &a, expr, &o, &l, &f);
    out[0] = 0;
    if (st == TROVE_OK) {
        for (size_t i = 0; i < l.len; i++)
            snprintf(out + strlen(out), cap - strlen(out), "%s%s%s", i ? "," : "", tv_index_name(l.items[i]),
                     l.filters && l.filters[i] ? "(filtered)" : "");
        tv_index_list_release(&l);
    } else if (f.kind == TV_RESOLVE_CLOSED) {
        snprintf(out, cap, "CLOSED:%s", tv_index_name(f.closed));
        tv_index_release(f.closed);
    } else {
        snprintf(out, cap, "%s:%s", f.kind == TV_RESOLVE_ALIAS ? "ALIAS" : "MISSING", f.name);
    }
    tv_arena_fini(&a);
    return out;
}

static const tv_resolve_opts search_opts = {.expand = TV_EXPAND_OPEN, .forbid_closed = true};

static void test_names_and_wildcards(void **state) {
    trove_node *n = *state;
    char b[256];
    tv_resolve_opts o = search_opts;
    /* sorted by name; hidden and closed indices stay out of _all */
    assert_string_equal(resolve(n, NULL, o, b, sizeof b), "logs-1,logs-2,metrics");
    assert_string_equal(resolve(n, "_all", o, b, sizeof b), "logs-1,logs-2,metrics");
    assert_string_equal(resolve(n, "metrics,logs-2", o, b, sizeof b), "logs-2,metrics");
    assert_string_equal(resolve(n, "logs-*", o, b, sizeof b), "logs-1,logs-2");
    /* an exclusion applies after a wildcard */
    assert_string_equal(resolve(n, "logs-*,-logs-1", o, b, sizeof b), "logs-2");
    /* a hidden index matches a wildcard only when both start with '.' */
    assert_string_equal(resolve(n, "*", o, b, sizeof b), "logs-1,logs-2,metrics");
    assert_string_equal(resolve(n, ".h*", o, b, sizeof b), ".hidden");
    o.expand |= TV_EXPAND_HIDDEN | TV_EXPAND_CLOSED;
    assert_string_equal(resolve(n, "*", o, b, sizeof b), ".hidden,closed-1,logs-1,logs-2,metrics");
}

static void test_aliases(void **state) {
    trove_node *n = *state;
    char b[256];
    tv_resolve_opts o = search_opts;
    /* an index reached only through a filtered alias carries the filter */
    assert_string_equal(resolve(n, "all-logs", o, b, sizeof b), "logs-1,logs-2(filtered)");
    /* named directly as well: no filter */
    assert_string_equal(resolve(n, "all-logs,logs-2", o, b, sizeof b), "logs-1,logs-2");
    o.ignore_aliases = true;
    assert_string_equal(resolve(n, "all-logs", o, b, sizeof b), "ALIAS:all-logs");
}

static void test_failures(void **state) {
    trove_node *n = *state;
    char b[256];
    tv_resolve_opts o = search_opts;
    assert_string_equal(resolve(n, "metrics,nope", o, b, sizeof b), "MISSING:nope");
    assert_string_equal(resolve(n, "closed-1", o, b, sizeof b), "CLOSED:closed-1");
    /* a wildcard matching nothing fails only without allow_no_indices */
    assert_string_equal(resolve(n, "zz*", o, b, sizeof b), "MISSING:zz*");
    o.allow_no_indices = true;
    assert_string_equal(resolve(n, "zz*", o, b, sizeof b), "");
    o.ignore_unavailable = true;
    assert_string_equal(resolve(n, "metrics,nope,closed-1", o, b, sizeof b), "metrics");
}

static void test_own_state(void **state) {
    trove_node *n = *state;
    trove_error pub;
    trove_node *c = tv_node_clone_from(n, false, &pub);
    assert_non_null(c);
    /* a clone shares the state until one of them writes */
    assert_ptr_equal(c->st, n->st);
    assert_true(tv_node_own(c, NULL));
    assert_ptr_not_equal(c->st, n->st);
    char b[256];
    assert_string_equal(resolve(c, "all-logs", search_opts, b, sizeof b), "logs-1,logs-2(filtered)");
    /* now alone: owning again keeps the state */
    tv_node_state *mine = c->st;
    assert_true(tv_node_own(c, NULL));
    assert_ptr_equal(c->st, mine);
    tv_node_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_names_and_wildcards, setup, teardown),
        cmocka_unit_test_setup_teardown(test_aliases, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_own_state, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
