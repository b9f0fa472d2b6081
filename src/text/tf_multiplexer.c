/*
 * tf_multiplexer.c — the `multiplexer` token filter (OpenSearch's
 * MultiplexerTokenFilterFactory), and `condition` / `predicate_token_filter`,
 * whose Painless predicate runs through the hooks the api layer registers
 * (tv_text_script_hooks: the script layer is above this one; rejected:
 * linking the interpreter into the text layer, a layer violation).
 *
 * multiplexer: `filters` is a list of branches, each a filter name or a
 * comma-separated chain of them; each token is emitted once per branch
 * (first unchanged when preserve_original, the default), every branch's
 * output stacked at the token's position, then duplicates at one position
 * removed (RemoveDuplicatesTokenFilter). OpenSearch runs the branches as
 * ConditionalTokenFilters that each see one copy of every token, so a
 * branch is applied here to one token at a time: filters that look across
 * tokens (shingles, common grams, ...) see a single token, as a
 * ConditionalTokenFilter's delegate mostly does. Branch filters are
 * resolved when the multiplexer is built (OpenSearch: when an analyzer
 * using it is), with OpenSearch's message for an unknown name.
 */
#include <string.h>

#include "text/settings_json.h"
#include "text/text_int.h"

typedef struct branch {
    tv_filter_def *filters;
    size_t n;
} branch;

typedef struct mux_cfg {
    branch *branches;
    size_t n;
} mux_cfg;

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static tv_status mux_build(tv_comp *c, const void **out, tv_error *err) {
    bool preserve;
    tv_status st = tv_comp_bool(c, "preserve_original", true, &preserve, err);
    if (st) return st;
    const char *const *vals;
    const size_t *lens;
    size_t n;
    tv_comp_list(c, "filters", &vals, &lens, &n);
    mux_cfg *m = tv_comp_alloc(c, sizeof *m);
    if (!m) return TROVE_ENOMEM;
    m->branches = tv_comp_alloc(c, (n + 1) * sizeof *m->branches);
    if (!m->branches) return TROVE_ENOMEM;
    m->n = 0;
    if (preserve) m->branches[m->n++] = (branch){NULL, 0}; /* the identity */
    for (size_t i = 0; i < n; i++) {
        const char *s = vals[i];
        size_t sl = lens[i], cnt = 1;
        for (size_t k = 0; k < sl; k++) cnt += s[k] == ',';
        branch *b = &m->branches[m->n++];
        b->filters = tv_comp_alloc(c, cnt * sizeof *b->filters);
        b->n = 0;
        if (!b->filters) return TROVE_ENOMEM;
        size_t from = 0;
        for (size_t k = 0; k <= sl; k++) { /* tokenizeToStringArray: trimmed, empties skipped */
            if (k < sl && s[k] != ',') continue;
            size_t x = from, y = k;
            from = k + 1;
            while (x < y && is_space(s[x])) x++;
            while (y > x && is_space(s[y - 1])) y--;
            if (x == y) continue;
            st = tv_comp_filter_ref(c, s + x, y - x, &b->filters[b->n], err);
            if (st == TROVE_ENOTFOUND)
                return tv_error_set(err, TROVE_EARG,
                                    "Multiplexing filter [%s] refers to undefined tokenfilter [%.*s]",
                                    tv_comp_name(c), (int)(y - x), s + x);
            if (st) return st;
            b->n++;
        }
    }
    *out = m;
    return TROVE_OK;
}

static tv_status mux_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const mux_cfg *m = cfg;
    tv_tokvec out = {0};
    uint32_t carry = 0; /* increments of tokens every branch dropped */
    for (size_t i = 0; i < v->len; i++) {
        size_t first_out = out.len;
        uint32_t inc = v->items[i].position + carry;
        for (size_t b = 0; b < m->n; b++) {
            tv_tokvec one = {0};
            if (tv_tokvec_push(a, &one, &v->items[i])) return TROVE_ENOMEM;
            one.items[0].position = 1;
            one.final_off = v->final_off;
            one.final_text = v->final_text;
            tv_status st = tv_filters_apply(a, m->branches[b].filters, m->branches[b].n, &one);
            if (st) return st;
            for (size_t k = 0; k < one.len; k++) {
                tv_token t = one.items[k];
                /* the first token out takes the input's increment; the rest stack */
                if (out.len == first_out) t.position = inc;
                else if (k == 0 || t.position > 0) t.position = 0;
                bool dup = false; /* RemoveDuplicatesTokenFilter, at this position */
                for (size_t j = first_out; j < out.len && !dup; j++)
                    dup = out.items[j].term_len == t.term_len &&
                          memcmp(out.items[j].term, t.term, t.term_len) == 0;
                if (dup) continue;
                if (tv_tokvec_push(a, &out, &t)) return TROVE_ENOMEM;
            }
        }
        carry = out.len == first_out ? inc : 0;
    }
    out.trailing = v->trailing + carry;
    *v = out;
    return TROVE_OK;
}

/* ------------------------------------------- condition, predicate_token_filter */

static const tv_text_script_hooks *script_hooks;

void tv_text_set_script_hooks(const tv_text_script_hooks *h) { script_hooks = h; }

typedef struct cond_cfg {
    void *script;          /* the hooks' compiled handle */
    tv_filter_def *filters; /* condition: the chain applied to matching runs */
    size_t n;
} cond_cfg;

static void cond_release(void *p) {
    if (script_hooks && p) script_hooks->release(p);
}

/* Whether a setting key starts with `prefix` (script.params.x). */
static bool has_prefix(const tv_comp *c, const char *prefix) {
    if (!c->all) return false;
    size_t pl = strlen(prefix);
    for (size_t i = 0; i < c->all->len; i++) {
        const tv_sjson_entry *e = &c->all->items[i];
        if (e->key_len >= c->prefix_len + pl && memcmp(e->key, c->kind, strlen(c->kind)) == 0 &&
            e->key_len > c->prefix_len && memcmp(e->key + strlen(c->kind) + 1, c->name, c->name_len) == 0 &&
            memcmp(e->key + c->prefix_len, prefix, pl) == 0)
            return true;
    }
    return false;
}

/*
 * OpenSearch's ScriptedConditionTokenFilterFactory and
 * PredicateTokenFilterScriptFactory: `script` (Script.parse of the
 * settings under it: inline only, lang painless), and for condition a
 * non-empty `filter` list, resolved as the multiplexer resolves names.
 */
static tv_status cond_build_common(tv_comp *c, const void **out, tv_error *err, bool condition) {
    if (tv_comp_bare(c)) return tv_comp_requires_settings(err);
    size_t sl = 0, ll = 0;
    const char *src = tv_comp_str(c, "script.source", &sl);
    if (!src) src = tv_comp_str(c, "script.inline", &sl);
    const char *lang = tv_comp_str(c, "script.lang", &ll);
    if (!src && tv_comp_has(c, "script.id"))
        return tv_error_set(err, TROVE_EARG, "Cannot use stored scripts in tokenfilter [%s]", tv_comp_name(c));
    if (!src)
        return tv_error_set(err, TROVE_EARG,
                            "must specify either [source] for an inline script or [id] for a stored script");
    if (lang && !tv_streq(lang, ll, "painless"))
        return tv_error_set(err, TROVE_EARG, "script_lang not supported [%.*s]", (int)ll, lang);
    if (has_prefix(c, "script.params"))
        return tv_error_set(err, TROVE_EUNSUPPORTED, "[script.params] of tokenfilter [%s] is not supported",
                            tv_comp_name(c));
    if (!script_hooks)
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "filter [%s] is not supported: no Painless engine is registered for analysis",
                            condition ? "condition" : "predicate_token_filter");
    cond_cfg *cc = tv_comp_alloc(c, sizeof *cc);
    if (!cc) return TROVE_ENOMEM;
    memset(cc, 0, sizeof *cc);
    if (condition) {
        const char *const *vals;
        const size_t *lens;
        size_t n;
        tv_comp_list(c, "filter", &vals, &lens, &n);
        if (n == 0)
            return tv_error_set(err, TROVE_EARG, "Empty list of filters provided to tokenfilter [%s]",
                                tv_comp_name(c));
        cc->filters = tv_comp_alloc(c, n * sizeof *cc->filters);
        if (!cc->filters) return TROVE_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            tv_status st = tv_comp_filter_ref(c, vals[i], lens[i], &cc->filters[cc->n], err);
            if (st == TROVE_ENOTFOUND)
                return tv_error_set(err, TROVE_EARG, "ScriptedConditionTokenFilter [%s] refers to undefined token filter [%.*s]",
                                    tv_comp_name(c), (int)lens[i], vals[i]);
            if (st) return st;
            cc->n++;
        }
    }
    cc->script = script_hooks->compile(src, sl, err);
    if (!cc->script) return err->code ? err->code : TROVE_EARG;
    tv_status st = tv_comp_on_free(c, cond_release, cc->script);
    if (st) return st;
    *out = cc;
    return TROVE_OK;
}

static tv_status condition_build(tv_comp *c, const void **out, tv_error *err) {
    return cond_build_common(c, out, err, true);
}
static tv_status predicate_build(tv_comp *c, const void **out, tv_error *err) {
    return cond_build_common(c, out, err, false);
}

/* The script's verdict on token t at absolute position pos: 1, 0, or -1. */
static int cond_test(tv_arena *a, const cond_cfg *cc, const tv_token *t, int32_t pos) {
    tv_text_token_info info = {
        .term = t->term, .term_len = t->term_len, .type = tv_token_type_name(t->type),
        .position = pos, .position_increment = (int32_t)t->position,
        .position_length = t->pos_len > 1 ? t->pos_len : 1,
        .start_offset = (int32_t)t->start16, .end_offset = (int32_t)t->end16,
        .keyword = (t->flags & TV_TOKF_KEYWORD) != 0};
    tv_error err = TV_ERROR_INIT;
    return script_hooks->test(cc->script, &info, a, &err);
}

/* predicate_token_filter (ScriptFilteringTokenFilter, a FilteringTokenFilter):
 * keeps the tokens the script accepts; positions count every incoming token. */
static tv_status predicate_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const cond_cfg *cc = cfg;
    size_t o = 0;
    uint32_t carry = 0;
    int32_t pos = -1;
    for (size_t i = 0; i < v->len; i++) {
        tv_token t = v->items[i];
        pos += (int32_t)t.position;
        int r = cond_test(a, cc, &t, pos);
        if (r < 0) return TROVE_ESCRIPT;
        if (!r) {
            carry += t.position;
            continue;
        }
        t.position += carry;
        carry = 0;
        v->items[o++] = t;
    }
    v->len = o;
    v->trailing += carry;
    return TROVE_OK;
}

/* condition (Lucene's ConditionalTokenFilter): each maximal run of tokens
 * the script accepts goes through the filters as a stream of its own;
 * what the run's filters removed at its end moves to the next token. */
static tv_status condition_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const cond_cfg *cc = cfg;
    tv_tokvec out = {0};
    out.final_text = v->final_text;
    out.final_off = v->final_off;
    out.morph = v->morph;
    int32_t pos = -1;
    uint32_t carry = 0;
    size_t i = 0;
    while (i < v->len) {
        tv_token t = v->items[i];
        pos += (int32_t)t.position;
        int r = cond_test(a, cc, &t, pos);
        if (r < 0) return TROVE_ESCRIPT;
        if (!r) {
            t.position += carry;
            carry = 0;
            if (tv_tokvec_push(a, &out, &t)) return TROVE_ENOMEM;
            i++;
            continue;
        }
        tv_tokvec run = {0};
        run.final_text = v->final_text;
        run.final_off = v->final_off;
        run.morph = v->morph;
        if (tv_tokvec_push(a, &run, &t)) return TROVE_ENOMEM;
        i++;
        while (i < v->len) {
            tv_token u = v->items[i];
            int ru = cond_test(a, cc, &u, pos + (int32_t)u.position);
            if (ru < 0) return TROVE_ESCRIPT;
            if (!ru) break; /* tested again (same position) when read as the next token */
            pos += (int32_t)u.position;
            if (tv_tokvec_push(a, &run, &u)) return TROVE_ENOMEM;
            i++;
        }
        tv_status st = tv_filters_apply(a, cc->filters, cc->n, &run);
        if (st) return st;
        for (size_t k = 0; k < run.len; k++) {
            tv_token x = run.items[k];
            x.position += carry;
            carry = 0;
            if (tv_tokvec_push(a, &out, &x)) return TROVE_ENOMEM;
        }
        carry += run.trailing;
    }
    out.trailing = v->trailing + carry;
    *v = out;
    return TROVE_OK;
}

const tv_filter_type tv_tf_multiplexer = {"multiplexer", mux_build, mux_apply};
const tv_filter_type tv_tf_condition = {"condition", condition_build, condition_apply};
const tv_filter_type tv_tf_predicate = {"predicate_token_filter", predicate_build, predicate_apply};
