/*
 * an_pattern.c — the `pattern` analyzer (OpenSearch's PatternAnalyzer and
 * PatternAnalyzerProvider): the pattern tokenizer in split mode (pattern,
 * default \W+, and flags), then lower-casing (`lowercase`, true by
 * default), then a stop filter (`stopwords`, none by default; `ignore_case`).
 * The chain reuses tok_pattern.c's tokenizer and the core lowercase and
 * stop filters; rejected: a separate regex pass of its own.
 */
#include "text/text_int.h"

extern const tv_tokenizer_type tv_tok_pattern;
tv_status tv_tok_pattern_config(tv_comp *c, const char *pat, size_t plen, int64_t group,
                                const void **out, tv_error *err);

static tv_status pattern_analyzer_build(tv_comp *c, tv_analyzer_parts *p, tv_error *err) {
    size_t pl = 0;
    const char *pat = tv_comp_str(c, "pattern", &pl);
    if (!pat) {
        if (tv_comp_has(c, "pattern"))
            return tv_error_set(err, TROVE_EARG, "Analyzer [%s] of type pattern must have a `pattern` set",
                                tv_comp_name(c));
        pat = "\\W+";
        pl = 3;
    }
    bool lowercase, ignore_case;
    tv_status st;
    if ((st = tv_comp_bool(c, "lowercase", true, &lowercase, err))) return st;
    if ((st = tv_comp_bool(c, "ignore_case", false, &ignore_case, err))) return st;
    const tv_termset *stop = NULL;
    if ((st = tv_comp_words(c, "stopwords", NULL, ignore_case, &stop, err))) return st;
    memset(&p->tok, 0, sizeof p->tok);
    p->tok.kind = TV_TK_EXT;
    p->tok.ext = &tv_tok_pattern;
    if ((st = tv_tok_pattern_config(c, pat, pl, -1, &p->tok.cfg, err))) return st;
    if (lowercase) p->filters[p->nfilters++] = (tv_filter_def){.kind = TV_TF_LOWERCASE};
    if (stop && stop->n) p->filters[p->nfilters++] = (tv_filter_def){.kind = TV_TF_STOP, .stop = stop};
    return TROVE_OK;
}

const tv_analyzer_type tv_an_pattern = {"pattern", pattern_analyzer_build};
