/*
 * h_analyze.c — GET|POST [/{index}]/_analyze.
 *
 * Picks the analyzer as OpenSearch's TransportAnalyzeAction does: a named
 * `analyzer` (the index's registry first when an index is given, else the
 * built-ins: "failed to find global analyzer [x]"), a `tokenizer` with
 * `filter`s composed on the spot, a `field` (its index-time analyzer, a
 * keyword field's normalizer or the keyword analyzer, the index default
 * for an unmapped field), else the standard analyzer. Each token is
 * {token, start_offset, end_offset, type, position[, positionLength when
 * above 1]} with offsets in UTF-16
 * units, as Java strings count them. Several texts continue positions and
 * offsets as Lucene does: position += the analyzer's position increment
 * gap (100 for custom analyzers and text fields, 0 for built-ins and
 * composed chains), offsets += the text's length + 1.
 *
 * Tokenizers, filters and char filters are names or inline definitions
 * (objects), composed with the index's registry. explain:true shows each
 * stage of a custom chain (char filters' texts, the tokenizer's and each
 * filter's tokens, with their other attributes) or a built-in analyzer's
 * final tokens; index.analyze.max_token_count bounds every list. A
 * `normalizer` is the index's (or the built-in `lowercase`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "api.h"

static uint32_t utf16_len(const char *s, size_t n) {
    uint32_t u = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c & 0xC0) == 0x80) continue;
        u += c >= 0xF0 ? 2 : 1;
    }
    return u;
}

/* The UTF-16 length of each text (offsets of later texts start after it). */
static const uint32_t *texts_u16(tv_req *r, const tv_json *text, size_t ntexts) {
    uint32_t *u = tv_arena_calloc(&r->arena, ntexts + 1, sizeof *u);
    for (size_t i = 0; u && i < ntexts; i++) {
        const tv_json *t = text->type == TV_JSON_STRING ? text : &text->v.items[i];
        u[i] = t->type == TV_JSON_STRING ? utf16_len(t->v.s, t->len) : 0;
    }
    return u;
}

/* Whether explain's `attributes` filter lets attribute `key` through. */
static bool attr_wanted(const tv_json *attrs, const char *key) {
    if (!attrs || attrs->type == TV_JSON_NULL) return true;
    /* a scalar is a list of one name (its text), never an attribute's */
    if (attrs->type != TV_JSON_STRING && attrs->type != TV_JSON_ARRAY) return false;
    const tv_json *one = attrs->type == TV_JSON_STRING ? attrs : NULL;
    size_t n = one ? 1 : attrs->type == TV_JSON_ARRAY ? attrs->len : 0;
    if (n == 0) return true;
    for (size_t i = 0; i < n; i++) {
        const tv_json *a = one ? one : &attrs->v.items[i];
        if (a->type == TV_JSON_STRING && strcasecmp(a->v.s, key) == 0) return true;
    }
    return false;
}

/*
 * One list of tokens: stage s of every text, positions and offsets
 * continued across texts (+ gap positions, + 1 offset). With `extended`,
 * each token carries Lucene's other attributes, sorted by name, as explain
 * shows them: bytes, keyword (when the chain has KeywordAttribute),
 * positionLength, termFrequency.
 */
static void write_tokens(tv_jw *w, const tv_stage *stages, size_t ntexts, size_t nst, size_t s,
                         uint32_t gap, const uint32_t *u16, const tv_json *attrs, bool extended) {
    tv_jw_arr_begin(w);
    uint32_t pos_base = 0, off_base = 0;
    for (size_t i = 0; i < ntexts; i++) {
        const tv_stage *st = &stages[i * nst + s];
        const tv_tokens *toks = &st->tokens;
        for (size_t k = 0; k < toks->len; k++) {
            const tv_token *tk = &toks->items[k];
            uint32_t plen = tk->pos_len > 1 ? tk->pos_len : 1;
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "token");
            tv_jw_str(w, tk->term, tk->term_len);
            tv_jw_keyz(w, "start_offset");
            tv_jw_int(w, (int64_t)off_base + tk->start16);
            tv_jw_keyz(w, "end_offset");
            tv_jw_int(w, (int64_t)off_base + tk->end16);
            tv_jw_keyz(w, "type");
            tv_jw_strz(w, tv_token_type_name(tk->type));
            tv_jw_keyz(w, "position");
            tv_jw_int(w, (int64_t)pos_base + tk->position);
            if (plen > 1) {
                tv_jw_keyz(w, "positionLength");
                tv_jw_int(w, plen);
            }
            if (extended) {
                if (attr_wanted(attrs, "bytes")) {
                    char hex[3 * 64 + 8];
                    tv_buf b;
                    tv_buf_init(&b);
                    tv_buf_putc(&b, '[');
                    for (uint32_t x = 0; x < tk->term_len; x++) {
                        snprintf(hex, sizeof hex, x ? " %02x" : "%02x", (unsigned char)tk->term[x]);
                        tv_buf_puts(&b, hex);
                    }
                    tv_buf_putc(&b, ']');
                    tv_jw_keyz(w, "bytes");
                    tv_jw_str(w, b.data ? b.data : "[]", b.data ? b.len : 2);
                    tv_buf_fini(&b);
                }
                if (st->keyword_attr && attr_wanted(attrs, "keyword")) {
                    tv_jw_keyz(w, "keyword");
                    tv_jw_bool(w, (tk->flags & TV_TOKF_KEYWORD) != 0);
                }
                if (attr_wanted(attrs, "positionLength")) {
                    tv_jw_keyz(w, "positionLength");
                    tv_jw_int(w, plen);
                }
                if (attr_wanted(attrs, "termFrequency")) {
                    tv_jw_keyz(w, "termFrequency");
                    tv_jw_int(w, 1);
                }
            }
            tv_jw_obj_end(w);
        }
        pos_base += (toks->len ? toks->end_position : 0) + gap;
        off_base += u16[i] + 1;
    }
    tv_jw_arr_end(w);
}

/* OpenSearch builds an inline definition under the name "__anonymous__"
 * followed by its type (AnalysisRegistry.getComponentFactory), which its
 * errors show; trove's generated names (unique per definition) are put
 * back to that in an error's reason (a buffer of cap bytes), in place.
 * Names are taken last first, so "_inline_filter_1" never eats the start
 * of "_inline_filter_12". */
typedef struct inline_name {
    const char *gen, *type;
} inline_name;

static void anonymous_names(char *reason, size_t cap, const inline_name *names, size_t n) {
    for (size_t k = n; k-- > 0;) {
        if (!names[k].gen || !names[k].type) continue;
        char to[160];
        snprintf(to, sizeof to, "__anonymous__%s", names[k].type);
        size_t fl = strlen(names[k].gen), tl = strlen(to);
        char *p = reason;
        while ((p = strstr(p, names[k].gen))) {
            size_t rest = strlen(p + fl) + 1;
            if ((size_t)(p - reason) + tl + rest > cap) break; /* no room: leave it */
            memmove(p + tl, p + fl, rest);
            memcpy(p, to, tl);
            p += tl;
        }
    }
}

void tv_h_analyze(tv_req *r) {
    const tv_json *body = NULL;
    if (r->body_len) {
        body = tv_req_parse_body(r, TV_BODY_PARSER);
        if (!body) return;
        if (body->type != TV_JSON_OBJECT) {
            tv_req_fail(r, TROVE_EPARSEEXC, "Failed to parse content to map");
            return;
        }
    }
    const tv_json *text = tv_json_get(body, "text"), *an = tv_json_get(body, "analyzer"),
                  *tok = tv_json_get(body, "tokenizer"), *filt = tv_json_get(body, "filter"),
                  *cf = tv_json_get(body, "char_filter"), *field = tv_json_get(body, "field"),
                  *norm = tv_json_get(body, "normalizer"), *explain = tv_json_get(body, "explain");
    for (uint32_t i = 0; body && i < body->len; i++) {
        const char *k = body->v.members[i].key;
        if (strcmp(k, "text") && strcmp(k, "analyzer") && strcmp(k, "tokenizer") && strcmp(k, "filter") &&
            strcmp(k, "char_filter") && strcmp(k, "field") && strcmp(k, "normalizer") && strcmp(k, "explain") &&
            strcmp(k, "attributes") && strcmp(k, "token_filter")) {
            tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [analyze_request] unknown field [%s]", k);
            return;
        }
    }
    if (!filt) filt = tv_json_get(body, "token_filter");
    /* validation, in AnalyzeAction.Request.validate's order */
    tv_buf v;
    tv_buf_init(&v);
    int nv = 0;
    bool has_text = text && ((text->type == TV_JSON_STRING) || (text->type == TV_JSON_ARRAY && text->len > 0));
    if (!has_text) tv_buf_printf(&v, "%d: text is missing;", ++nv);
    if (norm && !r->p_index) tv_buf_printf(&v, "%d: index is required if normalizer is specified;", ++nv);
    if (norm && (tok || an)) tv_buf_printf(&v, "%d: tokenizer/analyze should be null if normalizer is specified;", ++nv);
    if (an && (tok || (filt && filt->type == TV_JSON_ARRAY && filt->len) || (cf && cf->type == TV_JSON_ARRAY && cf->len)))
        tv_buf_printf(&v, "%d: custom tokenizer or filters cannot be specified when a named analyzer is used;", ++nv);
    if (nv) {
        tv_req_fail(r, TROVE_EVALIDATION, "Validation Failed: %s", v.data);
        tv_buf_fini(&v);
        return;
    }
    tv_buf_fini(&v);
    /* tokenizer, filters and char filters: names, or inline definitions
     * gathered into one "analysis" object under generated names */
    tv_buf inl;
    tv_buf_init(&inl);
    tv_jw iw;
    tv_jw_init(&iw, &inl, false);
    tv_jw_obj_begin(&iw);
    const char *tokname = NULL, **fnames = NULL, **cfnames = NULL;
    size_t nf = 0, ncf = 0;
    inline_name *gen_names = NULL; /* the generated names, for errors */
    size_t ngen = 0;
    {
        size_t cap = 1 + (filt && filt->type == TV_JSON_ARRAY ? filt->len : 0) +
                     (cf && cf->type == TV_JSON_ARRAY ? cf->len : 0);
        gen_names = tv_arena_calloc(&r->arena, cap, sizeof *gen_names);
        if (!gen_names) {
            tv_buf_fini(&inl);
            r->oom = true;
            return;
        }
    }
    if (tok && tok->type == TV_JSON_OBJECT) {
        tv_jw_keyz(&iw, "tokenizer");
        tv_jw_obj_begin(&iw);
        tv_jw_keyz(&iw, "_inline_tokenizer");
        tv_jw_value(&iw, tok);
        tv_jw_obj_end(&iw);
        tokname = "_inline_tokenizer";
        const tv_json *ty = tv_json_get(tok, "type");
        gen_names[ngen++] = (inline_name){tokname, ty && ty->type == TV_JSON_STRING ? ty->v.s : NULL};
    } else if (tok && tok->type == TV_JSON_STRING) {
        tokname = tok->v.s;
    } else if (tok) {
        tv_buf_fini(&inl);
        tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [analyze_request] failed to parse field [tokenizer]");
        return;
    }
    const tv_json *lists[2] = {filt, cf};
    const char *kinds[2] = {"filter", "char_filter"};
    const char **outs[2] = {NULL, NULL};
    size_t counts[2] = {0, 0};
    for (int l = 0; l < 2; l++) {
        const tv_json *list = lists[l];
        if (!list) continue;
        if (list->type != TV_JSON_ARRAY) {
            tv_buf_fini(&inl);
            tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [analyze_request] failed to parse field [%s]",
                        kinds[l]);
            return;
        }
        outs[l] = tv_arena_calloc(&r->arena, list->len + 1, sizeof *outs[l]);
        if (!outs[l]) {
            tv_buf_fini(&inl);
            r->oom = true;
            return;
        }
        bool opened = false;
        for (uint32_t i = 0; i < list->len; i++) {
            const tv_json *e = &list->v.items[i];
            if (e->type == TV_JSON_STRING) {
                outs[l][counts[l]++] = e->v.s;
                continue;
            }
            if (e->type != TV_JSON_OBJECT) {
                tv_buf_fini(&inl);
                tv_req_fail(r, TROVE_EXCONTENT, "[1:2] [analyze_request] failed to parse field [%s]",
                            kinds[l]);
                return;
            }
            if (!opened) {
                tv_jw_keyz(&iw, kinds[l]);
                tv_jw_obj_begin(&iw);
                opened = true;
            }
            char *nm = tv_arena_sprintf(&r->arena, "_inline_%s_%u", kinds[l], i);
            if (!nm) {
                tv_buf_fini(&inl);
                r->oom = true;
                return;
            }
            tv_jw_keyz(&iw, nm);
            tv_jw_value(&iw, e);
            outs[l][counts[l]++] = nm;
            const tv_json *ty = tv_json_get(e, "type");
            gen_names[ngen++] = (inline_name){nm, ty && ty->type == TV_JSON_STRING ? ty->v.s : NULL};
        }
        if (opened) tv_jw_obj_end(&iw);
    }
    tv_jw_obj_end(&iw);
    fnames = outs[0];
    nf = counts[0];
    cfnames = outs[1];
    ncf = counts[1];
    if (inl.oom) {
        tv_buf_fini(&inl);
        r->oom = true;
        return;
    }

    tv_index *idx = NULL;
    if (r->p_index) {
        const char *t = tv_node_single_target(r, r->p_index, false);
        if (t) idx = tv_node_get_index(r->node, t);
        if (!idx) {
            tv_buf_fini(&inl);
            if (!t) return;
            tv_api_err *e = tv_api_err_no_index(r, r->p_index);
            if (e) tv_req_error(r, e);
            return;
        }
    }
    const tv_analysis *reg = NULL;
    const tv_mapping *mapping = NULL;
    if (idx) {
        tv_index_lock(idx);
        reg = tv_index_settings(idx)->analysis; /* immutable, lives as long as the index */
        tv_index_unlock(idx);
        mapping = tv_index_mapping(idx);
    }
    const tv_analyzer *a = NULL;
    tv_analyzer *owned = NULL;
    uint32_t gap = 0;
    tv_error err;
    tv_error_clear(&err);
    if (norm) {
        /* TransportAnalyzeAction: the index's normalizer, its char filters
         * and filters ahead of the keyword tokenizer */
        const char *name = norm->type == TV_JSON_STRING ? norm->v.s : "";
        a = tv_analysis_normalizer(reg, name, strlen(name));
        if (!a) {
            tv_req_fail(r, TROVE_EARG, "failed to find normalizer under [%s]", name);
            goto done;
        }
    } else if (an) {
        const char *name = an->type == TV_JSON_STRING ? an->v.s : "";
        a = idx ? tv_analysis_get(reg, name, strlen(name)) : tv_analyzer_builtin(name, strlen(name));
        tv_error berr;
        if (!a && tv_analyzer_builtin_error(name, strlen(name), &berr)) {
            tv_req_fail(r, berr.code, "%s", berr.reason);
            goto done;
        }
        if (!a && tv_analyzer_unsupported(name, strlen(name))) {
            tv_req_fail(r, TROVE_EUNSUPPORTED, "analyzer [%s] is not supported", name);
            goto done;
        }
        if (!a) {
            tv_req_fail(r, TROVE_EARG, idx ? "failed to find analyzer [%s]"
                                                                           : "failed to find global analyzer [%s]",
                        name);
            goto done;
        }
        if (a != tv_analyzer_builtin(name, strlen(name))) gap = 100;
    } else if (tok || nf || ncf) {
        /* filters without a tokenizer make a custom normalizer (keyword
         * tokenizer; only filters that work on whole values) */
        bool as_norm = !tok;
        owned = tv_analyzer_compose(reg, inl.data, inl.len, as_norm ? "keyword" : tokname, fnames, nf,
                                    cfnames, ncf, &err);
        if (!owned) {
            if (err.code == TROVE_ENOMEM || err.code == TROVE_OK) {
                r->oom = true;
            } else {
                anonymous_names(err.reason, sizeof err.reason, gen_names, ngen);
                tv_req_fail_tv(r, &err, idx);
            }
            goto done;
        }
        a = owned;
        bool in_cf = false;
        long bad = as_norm ? tv_analyzer_not_normalizing(owned, &in_cf) : -1;
        if (bad >= 0) {
            /* named as OpenSearch names the factory: inline ones anonymous */
            const tv_json *list = in_cf ? cf : filt;
            const tv_json *e = &list->v.items[bad];
            const tv_json *ty = e->type == TV_JSON_OBJECT ? tv_json_get(e, "type") : NULL;
            tv_req_fail(r, TROVE_EARG, "Custom normalizer may not use %s [%s%s]",
                        in_cf ? "char filter" : "filter", e->type == TV_JSON_STRING ? "" : "__anonymous__",
                        e->type == TV_JSON_STRING ? e->v.s : ty && ty->type == TV_JSON_STRING ? ty->v.s : "");
            goto done;
        }
    } else if (field && field->type == TV_JSON_STRING && mapping) {
        const tv_field *f = tv_mapping_field(mapping, field->v.s, field->len);
        if (f && f->type == TV_FT_TEXT) {
            a = f->analyzer;
            gap = f->position_increment_gap;
        } else if (f && f->type == TV_FT_KEYWORD) {
            a = f->normalizer ? f->normalizer : tv_analyzer_builtin("keyword", 7);
        }
    }
    if (!a) a = reg ? tv_analysis_get(reg, "default", 7) : NULL;
    if (!a) a = tv_analyzer_builtin("standard", 8);
    {
        size_t ntexts = text->type == TV_JSON_STRING ? 1 : text->len;
        bool detail = explain && explain->type == TV_JSON_TRUE;
        size_t nst = detail ? tv_analyzer_stage_count(a) : 1;
        tv_stage *stages = tv_arena_calloc(&r->arena, ntexts * nst + 1, sizeof *stages);
        if (!stages) {
            r->oom = true;
            goto done;
        }
        for (size_t i = 0; i < ntexts; i++) {
            const tv_json *t = text->type == TV_JSON_STRING ? text : &text->v.items[i];
            const char *ts = t->type == TV_JSON_STRING ? t->v.s : "";
            size_t tl = t->type == TV_JSON_STRING ? t->len : 0;
            tv_status st = detail ? tv_analyze_stages(a, &r->arena, ts, tl, 0, &stages[i * nst])
                                  : tv_analyze(a, &r->arena, ts, tl, 0, &stages[i].tokens);
            if (st == TROVE_ESCRIPT) { /* a condition / predicate_token_filter script failed */
                tv_req_fail(r, TROVE_ESCRIPT, "runtime error");
                goto done;
            }
            if (st != TROVE_OK) {
                r->oom = true;
                goto done;
            }
        }
        /* index.analyze.max_token_count bounds each list of tokens */
        int64_t max_tokens = idx ? tv_settings_int(tv_index_settings(idx), "index.analyze.max_token_count", 10000)
                                 : 10000;
        for (size_t s = 0; s < nst; s++) {
            int64_t count = 0;
            for (size_t i = 0; i < ntexts; i++) count += (int64_t)stages[i * nst + s].tokens.len;
            if (count > max_tokens) {
                tv_req_fail(r, TROVE_EINTERNAL,
                            "The number of tokens produced by calling _analyze has exceeded the allowed "
                            "maximum of [%lld]. This limit can be set by changing the "
                            "[index.analyze.max_token_count] index level setting.",
                            (long long)max_tokens);
                goto done;
            }
        }
        const tv_json *attrs = tv_json_get(body, "attributes");
        tv_jw *w = tv_req_json(r, 200);
        tv_jw_obj_begin(w);
        if (!detail) {
            tv_jw_keyz(w, "tokens");
            write_tokens(w, stages, ntexts, 1, 0, gap, texts_u16(r, text, ntexts), NULL, false);
        } else {
            const uint32_t *u16 = texts_u16(r, text, ntexts);
            tv_jw_keyz(w, "detail");
            tv_jw_obj_begin(w);
            tv_jw_keyz(w, "custom_analyzer");
            tv_jw_bool(w, stages[0].kind != TV_STAGE_ANALYZER);
            if (stages[0].kind == TV_STAGE_ANALYZER) {
                tv_jw_keyz(w, "analyzer");
                tv_jw_obj_begin(w);
                tv_jw_keyz(w, "name");
                tv_jw_strz(w, stages[0].name);
                tv_jw_keyz(w, "tokens");
                write_tokens(w, stages, ntexts, nst, 0, gap, u16, attrs, true);
                tv_jw_obj_end(w);
            } else {
                size_t s = 0;
                tv_jw_keyz(w, "charfilters");
                tv_jw_arr_begin(w);
                for (; s < nst && stages[s].kind == TV_STAGE_CHARFILTER; s++) {
                    tv_jw_obj_begin(w);
                    tv_jw_keyz(w, "name");
                    tv_jw_strz(w, stages[s].name);
                    tv_jw_keyz(w, "filtered_text");
                    tv_jw_arr_begin(w);
                    for (size_t i = 0; i < ntexts; i++)
                        tv_jw_str(w, stages[i * nst + s].text, stages[i * nst + s].text_len);
                    tv_jw_arr_end(w);
                    tv_jw_obj_end(w);
                }
                tv_jw_arr_end(w);
                for (bool first = true; s < nst; s++, first = false) {
                    if (first) {
                        tv_jw_keyz(w, "tokenizer");
                    } else if (stages[s - 1].kind == TV_STAGE_TOKENIZER) {
                        tv_jw_keyz(w, "tokenfilters");
                        tv_jw_arr_begin(w);
                    }
                    tv_jw_obj_begin(w);
                    tv_jw_keyz(w, "name");
                    tv_jw_strz(w, stages[s].name);
                    tv_jw_keyz(w, "tokens");
                    write_tokens(w, stages, ntexts, nst, s, gap, u16, attrs, true);
                    tv_jw_obj_end(w);
                }
                if (nst && stages[nst - 1].kind == TV_STAGE_FILTER) tv_jw_arr_end(w);
                else {
                    tv_jw_keyz(w, "tokenfilters");
                    tv_jw_arr_begin(w);
                    tv_jw_arr_end(w);
                }
            }
            tv_jw_obj_end(w);
        }
        tv_jw_obj_end(w);
    }
done:
    tv_buf_fini(&inl);
    tv_analyzer_free(owned);
    tv_mapping_release(mapping);
    if (idx) tv_index_release(idx);
}

/* ------------------------------------------ analysis predicate scripts */

/*
 * The hooks through which the text layer's `condition` and
 * `predicate_token_filter` run Painless (AnalysisPredicateScript): the
 * source compiles through the script cache with the `token` global; a run
 * gets the token as an AnalysisPredicateScript.Token object and must
 * return a boolean. A compile error is OpenSearch's script_exception
 * "compile error" caused by the Java exception (without the script_stack
 * and position fields, which a tv_error cannot carry).
 */
static void *pred_compile(const char *src, size_t len, tv_error *err) {
    tv_script_error se;
    memset(&se, 0, sizeof se);
    tv_script *s = tv_script_get(src, len, TV_SCRIPT_G_TOKEN, &se);
    if (s) return s;
    if (se.code == TROVE_ENOMEM) {
        tv_error_oom(err);
        return NULL;
    }
    if (se.code != TROVE_ESCRIPT) {
        tv_error_set(err, se.code ? se.code : TROVE_EARG, "%s", se.cause_reason);
        return NULL;
    }
    tv_error_set(err, TROVE_ESCRIPT, se.compile ? "compile error" : "runtime error");
    tv_error_cause(err, se.cause ? se.cause : TROVE_EARG, "%s", se.cause_reason);
    return NULL;
}

static int pred_test(void *handle, const tv_text_token_info *tok, tv_arena *a, tv_error *err) {
    tv_sv_token *t = tv_arena_calloc(a, 1, sizeof *t);
    tv_sv_obj *o = tv_arena_calloc(a, 1, sizeof *o);
    if (!t || !o) return tv_error_oom(err), -1;
    t->term = tok->term;
    t->term_len = (uint32_t)tok->term_len;
    t->type = tok->type;
    t->type_len = (uint32_t)strlen(tok->type);
    t->position = tok->position;
    t->position_increment = tok->position_increment;
    t->position_length = tok->position_length;
    t->start_offset = tok->start_offset;
    t->end_offset = tok->end_offset;
    t->keyword = tok->keyword;
    o->kind = TV_SV_O_TOKEN;
    o->tok = t;
    tv_script_env env;
    memset(&env, 0, sizeof env);
    env.arena = a;
    env.params = tv_sv_null();
    env.token.type = TV_SV_OBJ;
    env.token.v.obj = o;
    tv_sv res;
    tv_script_error se;
    memset(&se, 0, sizeof se);
    tv_status st = tv_script_run(handle, &env, &res, &se);
    if (st) {
        tv_error_set(err, st == TROVE_ENOMEM ? TROVE_ENOMEM : TROVE_ESCRIPT, "runtime error");
        return -1;
    }
    if (res.type != TV_SV_BOOL) { /* execute() returns boolean: a ClassCastException */
        tv_error_set(err, TROVE_ESCRIPT, "runtime error");
        return -1;
    }
    return res.v.b ? 1 : 0;
}

static void pred_release(void *handle) { tv_script_release(handle); }

static const tv_text_script_hooks pred_hooks = {pred_compile, pred_test, pred_release};

static pthread_once_t pred_once = PTHREAD_ONCE_INIT;
static void pred_register(void) { tv_text_set_script_hooks(&pred_hooks); }
void tv_api_register_analysis_scripts(void) { pthread_once(&pred_once, pred_register); }
