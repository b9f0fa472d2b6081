/*
 * text_test.h — helpers shared by the unit tests of the text layer:
 * check() runs an analyzer and compares its tokens (term, type, position,
 * UTF-16 offsets, positionLength) with an expected list, printing both on a mismatch, and
 * asserts that every token's byte offsets agree with its UTF-16 ones over
 * the input; reg() builds a registry from "analysis" settings JSON; B()
 * is a built-in analyzer by name; expect_error() asserts that settings are
 * refused with a given code and reason.
 *
 * Header-only and static: each test program includes it once, after
 * cmocka's prerequisites.
 */
#ifndef TROVE_TEXT_TEST_H
#define TROVE_TEXT_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "text/text.h"

typedef struct exp_tok {
    const char *term;
    const char *type; /* NULL: not checked */
    int pos;          /* -1: not checked */
    int start16, end16; /* -1: not checked */
    int len;          /* positionLength (1 for a token without one); 0: not checked */
} exp_tok;

#define END {NULL, NULL, -1, -1, -1}

static inline void check(const tv_analyzer *an, const char *text, const exp_tok *exp) {
    assert_non_null(an);
    tv_arena a;
    tv_arena_init(&a);
    tv_tokens toks;
    assert_int_equal(tv_analyze(an, &a, text, strlen(text), 0, &toks), TROVE_OK);
    size_t n = 0;
    while (exp[n].term) n++;
    bool ok = toks.len == n;
    for (size_t i = 0; ok && i < n; i++) {
        const tv_token *t = &toks.items[i];
        if (t->term_len != strlen(exp[i].term) || memcmp(t->term, exp[i].term, t->term_len) != 0) ok = false;
        if (exp[i].type && strcmp(tv_token_type_name(t->type), exp[i].type) != 0) ok = false;
        if (exp[i].pos >= 0 && (int)t->position != exp[i].pos) ok = false;
        if (exp[i].start16 >= 0 && ((int)t->start16 != exp[i].start16 || (int)t->end16 != exp[i].end16)) ok = false;
        if (exp[i].len > 0 && (t->pos_len > 1 ? t->pos_len : 1) != exp[i].len) ok = false;
    }
    if (!ok) {
        fprintf(stderr, "analyzer %s on [%s]:\n", tv_analyzer_name(an), text);
        for (size_t i = 0; i < toks.len; i++) {
            const tv_token *t = &toks.items[i];
            fprintf(stderr, "  got [%.*s] %s pos=%u off=%u-%u bytes=%u-%u len=%u\n", (int)t->term_len, t->term,
                    tv_token_type_name(t->type), t->position, t->start16, t->end16, t->start, t->end,
                    t->pos_len > 1 ? t->pos_len : 1);
        }
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, "  want [%s] %s pos=%d off=%d-%d len=%d\n", exp[i].term,
                    exp[i].type ? exp[i].type : "?", exp[i].pos, exp[i].start16, exp[i].end16, exp[i].len);
    }
    /* invariants: byte offsets agree with the UTF-16 ones */
    for (size_t i = 0; i < toks.len; i++) {
        const tv_token *t = &toks.items[i];
        assert_true(t->start <= t->end && t->end <= strlen(text));
        assert_int_equal(t->start16, tv_utf16_len(text, t->start));
        assert_int_equal(t->end16, tv_utf16_len(text, t->end));
    }
    tv_arena_fini(&a);
    assert_true(ok);
}

static inline const tv_analyzer *B(const char *name) { return tv_analyzer_builtin(name, strlen(name)); }

static inline tv_analysis *reg(const char *json, tv_error *err) {
    return tv_analysis_new(json, strlen(json), err);
}

/* Asserts that settings JSON is refused with that code and reason. */
static inline void expect_error(const char *json, int code, const char *reason) {
    tv_error err = TV_ERROR_INIT;
    tv_analysis *r = reg(json, &err);
    if (r) fprintf(stderr, "accepted: %s\n", json);
    assert_null(r);
    if (strcmp(err.reason, reason) != 0) fprintf(stderr, "reason: %s\n", err.reason);
    assert_int_equal(err.code, code);
    assert_string_equal(err.reason, reason);
}

#endif /* TROVE_TEXT_TEST_H */
