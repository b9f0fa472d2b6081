/*
 * fuzz_script_painless.c — the Painless interpreter against arbitrary
 * source text.
 *
 * Compiles the input for a context with every global (ctx, doc, _score,
 * the score context's functions) and, when it compiles, runs it over a
 * small ctx (_source with numbers, a string, a list and a map), params, a
 * doc accessor (fields named d* hold dates, g* GeoPoints, others a long)
 * and a host whose functions answer a constant, under the run limits
 * (loop counter, an 8 MiB memory cap). Whatever the input, compile
 * and run must return (no crash, no leak under ASan), an error must carry
 * its OpenSearch shape (a cause, an excerpt with "^---- HERE" inside the
 * source's range), and ctx must still print as JSON that parses.
 */
#include <stdio.h>
#include <stdlib.h>

#include "script/script.h"

static void check(bool ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_script_painless: %s\n", what);
        abort();
    }
}

static tv_status doc_values(void *ud, const char *field, size_t len, tv_arena *a, tv_sv *out, tv_script_error *err) {
    (void)ud;
    if (len == 0) {
        snprintf(err->cause_reason, sizeof err->cause_reason, "No field found for [] in mapping");
        err->cause = TROVE_EARG;
        return TROVE_EARG;
    }
    if (!tv_sv_list_new(a, TV_SV_DOCVALUES, out)) return TROVE_ENOMEM;
    out->v.list->field = field;
    tv_sv v = tv_sv_long((int64_t)len);
    if (field[0] == 'd') {
        out->v.list->dv = TV_SV_DV_DATES;
        if (!tv_sv_date(a, TV_SV_O_DATE, (int64_t)len * 86400 * 365 - 40000000000LL, (int32_t)len * 1000, &v))
            return TROVE_ENOMEM;
    } else if (field[0] == 'g') {
        out->v.list->dv = TV_SV_DV_GEO;
        if (!tv_sv_geo(a, (double)len, -(double)len, &v)) return TROVE_ENOMEM;
    }
    if (len > 1 && !tv_sv_list_add(a, out->v.list, v)) return TROVE_ENOMEM; /* "x": a missing value */
    return TROVE_OK;
}

static tv_status host(void *ud, tv_script_fn fn, const tv_sv *args, uint32_t nargs, tv_arena *a, tv_sv *out,
                      tv_script_error *err) {
    (void)ud;
    (void)a;
    (void)args;
    (void)nargs;
    if (fn == TV_SCRIPT_FN_DECAY_DATE_EXP) {
        err->cause = TROVE_EPARSEEXC;
        snprintf(err->cause_reason, sizeof err->cause_reason, "could not read the current timestamp");
        return TROVE_ESCRIPT;
    }
    *out = tv_sv_double(0.5);
    return TROVE_OK;
}

static void check_error(const tv_script_error *err, size_t len) {
    check(err->code == TROVE_ESCRIPT || err->code == TROVE_ENOMEM || err->code == TROVE_EARG, "unexpected error code");
    if (err->code != TROVE_ESCRIPT) return;
    check(err->cause != TROVE_OK, "a script error without a cause");
    check(err->has_pos && err->offset <= len && err->start <= err->offset && err->end <= len, "position outside the source");
    check(strstr(err->stack[1], "^---- HERE") != NULL, "no pointer line");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *src = (const char *)data;
    tv_script_error err;
    tv_script *s = tv_script_compile(src, size, TV_SCRIPT_G_CTX | TV_SCRIPT_G_DOC | TV_SCRIPT_G_SCORE | TV_SCRIPT_G_SCOREFN, &err);
    if (!s) {
        check_error(&err, size);
        return 0;
    }
    tv_arena a;
    tv_arena_init(&a);
    static const char ctx_json[] = "{\"_source\":{\"a\":1,\"b\":[1,2.5,\"x\"],\"c\":\"str\",\"d\":{\"e\":null}},"
                                   "\"op\":\"index\",\"_id\":\"1\"}";
    static const char params_json[] = "{\"x\":1,\"s\":\"p\",\"l\":[3,2,1]}";
    tv_json *cj = NULL, *pj = NULL;
    check(tv_json_parse(&a, ctx_json, sizeof ctx_json - 1, &cj, NULL) == TROVE_OK, "ctx json");
    check(tv_json_parse(&a, params_json, sizeof params_json - 1, &pj, NULL) == TROVE_OK, "params json");
    tv_script_env env;
    memset(&env, 0, sizeof env);
    env.arena = &a;
    env.max_bytes = 8u << 20;
    env.score = 1.5;
    env.doc = doc_values;
    env.host = host;
    uint32_t nb = tv_script_nbinds(s);
    env.binds = nb ? tv_arena_calloc(&a, nb, sizeof *env.binds) : NULL;
    env.bind_arena = &a;
    check(!nb || env.binds, "binds");
    check(tv_sv_from_json(&a, cj, true, &env.ctx) == TROVE_OK, "ctx value");
    check(tv_sv_from_json(&a, pj, false, &env.params) == TROVE_OK, "params value");
    tv_sv res;
    tv_status st = tv_script_run(s, &env, &res, &err);
    if (st != TROVE_OK) check_error(&err, size);
    /* whatever the script did, ctx still prints as JSON */
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_sv_write_json(&w, &env.ctx);
    if (!b.oom) {
        tv_json *back = NULL;
        tv_arena a2;
        tv_arena_init(&a2);
        check(tv_json_parse(&a2, b.data, b.len, &back, NULL) == TROVE_OK, "ctx does not print as JSON");
        tv_arena_fini(&a2);
    }
    tv_buf_fini(&b);
    if (st == TROVE_OK) {
        tv_buf_init(&b);
        tv_sv_to_string(&b, &res);
        tv_buf_fini(&b);
        tv_buf_init(&b); /* the result (dates, GeoPoints ...) prints as JSON that parses */
        tv_jw_init(&w, &b, false);
        tv_sv_write_json(&w, &res);
        if (!b.oom && b.len) {
            tv_json *back = NULL;
            tv_arena a2;
            tv_arena_init(&a2);
            check(tv_json_parse(&a2, b.data, b.len, &back, NULL) == TROVE_OK, "the result does not print as JSON");
            tv_arena_fini(&a2);
        }
        tv_buf_fini(&b);
    }
    tv_arena_fini(&a);
    tv_script_release(s);
    return 0;
}
