/*
 * h_analyze.c — GET|POST [/{index}]/_analyze.
 *
 * Picks the analyzer as OpenSearch's TransportAnalyzeAction does: a named
 * `analyzer` (the index's registry first when an index is given, else the
 * built-ins: "failed to find global analyzer [x]"), a `tokenizer` with
 * `filter`s composed on the spot, a `field` (its index-time analyzer, a
 * keyword field's normalizer or the keyword analyzer, the index default
 * for an unmapped field), else the standard analyzer. Each token is
 * {token, start_offset, end_offset, type, position} with offsets in UTF-16
 * units, as Java strings count them. Several texts continue positions and
 * offsets as Lucene does: position += the analyzer's position increment
 * gap (100 for custom analyzers and text fields, 0 for built-ins and
 * composed chains), offsets += the text's length + 1.
 *
 * Tokenizers, filters and char filters are names or inline definitions
 * (objects), composed with the index's registry. Not offered: explain:true
 * (detailed per-filter output) and normalizers: answered with
 * unsupported_operation_exception.
 */
#include <stdio.h>
#include <stdlib.h>

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
    if (explain && explain->type == TV_JSON_TRUE) {
        tv_req_fail(r, TROVE_EUNSUPPORTED, "trove does not support _analyze explain");
        return;
    }
    if (norm) {
        tv_req_fail(r, TROVE_EUNSUPPORTED, "trove does not support _analyze with a normalizer");
        return;
    }
    /* tokenizer, filters and char filters: names, or inline definitions
     * gathered into one "analysis" object under generated names */
    tv_buf inl;
    tv_buf_init(&inl);
    tv_jw iw;
    tv_jw_init(&iw, &inl, false);
    tv_jw_obj_begin(&iw);
    const char *tokname = NULL, **fnames = NULL, **cfnames = NULL;
    size_t nf = 0, ncf = 0;
    if (tok && tok->type == TV_JSON_OBJECT) {
        tv_jw_keyz(&iw, "tokenizer");
        tv_jw_obj_begin(&iw);
        tv_jw_keyz(&iw, "_inline_tokenizer");
        tv_jw_value(&iw, tok);
        tv_jw_obj_end(&iw);
        tokname = "_inline_tokenizer";
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
    if (an) {
        const char *name = an->type == TV_JSON_STRING ? an->v.s : "";
        a = idx ? tv_analysis_get(reg, name, strlen(name)) : tv_analyzer_builtin(name, strlen(name));
        if (!a) {
            tv_req_fail(r, TROVE_EARG, idx ? "failed to find analyzer [%s]"
                                                                           : "failed to find global analyzer [%s]",
                        name);
            goto done;
        }
        if (a != tv_analyzer_builtin(name, strlen(name))) gap = 100;
    } else if (tok || nf || ncf) {
        owned = tv_analyzer_compose(reg, inl.data, inl.len, tokname, fnames, nf, cfnames, ncf, &err);
        if (!owned) {
            if (err.code == TROVE_ENOMEM || err.code == TROVE_OK)
                r->oom = true;
            else
                tv_req_fail_tv(r, &err, idx);
            goto done;
        }
        a = owned;
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
        tv_jw *w = tv_req_json(r, 200);
        tv_jw_obj_begin(w);
        tv_jw_keyz(w, "tokens");
        tv_jw_arr_begin(w);
        uint32_t pos_base = 0, off_base = 0;
        for (size_t i = 0; i < ntexts; i++) {
            const tv_json *t = text->type == TV_JSON_STRING ? text : &text->v.items[i];
            if (t->type != TV_JSON_STRING) continue;
            tv_tokens toks;
            if (tv_analyze(a, &r->arena, t->v.s, t->len, pos_base, &toks) != TROVE_OK) {
                r->oom = true;
                break;
            }
            for (size_t k = 0; k < toks.len; k++) {
                const tv_token *tk = &toks.items[k];
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
                tv_jw_int(w, tk->position);
                if (tk->pos_len > 1) { /* AnalyzeToken: only when > 1 */
                    tv_jw_keyz(w, "positionLength");
                    tv_jw_int(w, tk->pos_len);
                }
                tv_jw_obj_end(w);
            }
            pos_base = (toks.len ? toks.end_position : pos_base) + gap;
            off_base += utf16_len(t->v.s, t->len) + 1;
        }
        tv_jw_arr_end(w);
        tv_jw_obj_end(w);
    }
done:
    tv_buf_fini(&inl);
    tv_analyzer_free(owned);
    tv_mapping_release(mapping);
    if (idx) tv_index_release(idx);
}
