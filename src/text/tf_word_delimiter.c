/*
 * tf_word_delimiter.c — the `word_delimiter` and `word_delimiter_graph`
 * token filters: Lucene 10's WordDelimiterFilter and
 * WordDelimiterGraphFilter over WordDelimiterIterator, with OpenSearch's
 * WordDelimiter(Graph)TokenFilterFactory settings: generate_word_parts,
 * generate_number_parts, split_on_case_change, split_on_numerics,
 * stem_english_possessive (true), catenate_words, catenate_numbers,
 * catenate_all, preserve_original (false), protected_words (+ _case),
 * type_table ("c => TYPE" rules); the graph variant also ignore_keywords
 * (false) and adjust_offsets (true; the pre-configured filter used by
 * bare name has the same defaults). Neither may parse synonym rules.
 *
 * The iterator splits a term into subwords at delimiters (characters
 * whose type is SUBWORD_DELIM), at lower->upper case changes and at
 * letter<->digit changes, skipping an English possessive "'s"; character
 * types come from Lucene's table for Latin-1 (Java's isLowerCase /
 * isUpperCase / isDigit) and Character.getType beyond (letters and marks
 * ALPHA, numbers DIGIT, a supplementary character ALPHA|DIGIT as its
 * surrogates), or from the type_table (Character.getType for every
 * character, then the rules). Indexes count code points, which is Lucene's
 * UTF-16 walk since a surrogate pair never splits; offsets are turned into
 * UTF-16 and byte offsets by walking the analyzed text.
 *
 * word_delimiter replays WordDelimiterFilter's state machine: parts and
 * concatenations are buffered and released sorted by start offset (then
 * larger increment first); the first output after preserve_original is
 * stacked on it; a token made only of delimiters is dropped (taking back
 * one position when its increment was 1). word_delimiter_graph buffers
 * each token's parts with graph positions (a concatenation spans the
 * parts it joins, the preserved original all of them), sorts them by
 * start then longer end, and emits positionLength = the span; offsets
 * never go backwards. Rejected: one shared loop for both (the flat filter's
 * increments and concatenation order are its own, and Lucene keeps it).
 */
#include "text/text_int.h"

enum {
    WD_LOWER = 1, WD_UPPER = 2, WD_DIGIT = 4, WD_DELIM = 8, WD_ALPHA = 3,
};
enum {
    F_WORD_PARTS = 1, F_NUMBER_PARTS = 2, F_CAT_WORDS = 4, F_CAT_NUMBERS = 8, F_CAT_ALL = 16,
    F_PRESERVE = 32, F_SPLIT_CASE = 64, F_SPLIT_NUM = 128, F_POSSESSIVE = 256, F_IGNORE_KW = 512,
};

typedef struct wd_cfg {
    unsigned flags;
    const tv_termset *prot; /* NULL: none */
    const uint8_t *tab;     /* the type_table's types, NULL: Lucene's default */
    uint32_t tab_size;
    bool graph, adjust;
} wd_cfg;

/* WordDelimiterIterator.getType */
static uint8_t java_type(uint32_t cp) {
    if (cp >= 0x10000) return WD_ALPHA | WD_DIGIT; /* its surrogates */
    switch (tv_uc_props(cp)->gc) {
    case TV_GC_LU: return WD_UPPER;
    case TV_GC_LL: return WD_LOWER;
    case TV_GC_LT: case TV_GC_LM: case TV_GC_LO: case TV_GC_MN: case TV_GC_ME: case TV_GC_MC:
        return WD_ALPHA;
    case TV_GC_ND: case TV_GC_NL: case TV_GC_NO: return WD_DIGIT;
    case TV_GC_CS: return WD_ALPHA | WD_DIGIT;
    default: return WD_DELIM;
    }
}

/* DEFAULT_WORD_DELIM_TABLE (Latin-1): Character.isLowerCase (Ll and the
 * Other_Lowercase ª º), isUpperCase, isDigit; anything else a delimiter. */
static uint8_t latin1_type(uint32_t cp) {
    uint8_t gc = tv_uc_props(cp)->gc;
    if (gc == TV_GC_LL || cp == 0xAA || cp == 0xBA) return WD_LOWER;
    if (gc == TV_GC_LU) return WD_UPPER;
    if (gc == TV_GC_ND) return WD_DIGIT;
    return WD_DELIM;
}

static uint8_t char_type(const wd_cfg *g, uint32_t cp) {
    if (g->tab) return cp < g->tab_size ? g->tab[cp] : java_type(cp);
    return cp < 256 ? latin1_type(cp) : java_type(cp);
}

/* ------------------------------------------------------------ settings */

static const char *const type_names[] = {"LOWER", "UPPER", "ALPHA", "DIGIT", "ALPHANUM",
                                         "SUBWORD_DELIM"};
static const uint8_t type_values[] = {WD_LOWER, WD_UPPER, WD_ALPHA, WD_DIGIT, WD_ALPHA | WD_DIGIT,
                                      WD_DELIM};

static bool is_jspace(char ch) { return ch == ' ' || (ch >= '\t' && ch <= '\r'); }

/* OpenSearch's parseString: the rule's left side with its escapes
 * (\\ \n \t \r \b \f \uXXXX; another escaped character stands for
 * itself) as UTF-16 units (at most 2 kept) in *u, their count in *nu. */
static tv_status parse_lhs(const char *s, size_t n, uint32_t *u, size_t *nu, tv_error *err) {
    *nu = 0;
    const uint8_t *p = (const uint8_t *)s, *end = p + n;
    while (p < end) {
        uint32_t c;
        if (*p == '\\') {
            p++;
            if (p >= end) return tv_error_set(err, TROVE_ERUNTIME, "Invalid escaped char in [%.*s]", (int)n, s);
            p += tv_utf8_decode(p, end, &c);
            switch (c) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                if (end - p < 4) return tv_error_set(err, TROVE_ERUNTIME, "Invalid escaped char in [%.*s]", (int)n, s);
                c = 0;
                for (int k = 0; k < 4; k++) {
                    uint8_t h = p[k];
                    int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                            : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                    if (d < 0)
                        return tv_error_set(err, TROVE_EARG, "For input string: \"%.4s\" under radix 16",
                                            (const char *)p);
                    c = c * 16 + (uint32_t)d;
                }
                p += 4;
                break;
            }
            default: break; /* \\ and any other: the character itself */
            }
            if (*nu < 2) u[*nu] = c;
            *nu += c >= 0x10000 ? 2 : 1;
            continue;
        }
        p += tv_utf8_decode(p, end, &c);
        size_t units = c >= 0x10000 ? 2 : 1;
        if (*nu < 2) u[*nu] = c;
        *nu += units;
    }
    return TROVE_OK;
}

static tv_status parse_types(tv_comp *c, wd_cfg *g, tv_error *err) {
    if (tv_comp_has(c, "type_table_path"))
        return tv_error_set(err, TROVE_EUNSUPPORTED, "[type_table_path] is not supported for [%s]",
                            c->name);
    if (!tv_comp_has(c, "type_table")) return TROVE_OK;
    const char *const *vals;
    const size_t *lens;
    size_t n;
    tv_comp_list_csv(c, "type_table", &vals, &lens, &n);
    uint32_t *keys = tv_comp_alloc(c, (n ? n : 1) * sizeof *keys);
    uint8_t *types = tv_comp_alloc(c, n ? n : 1);
    if (!keys || !types) return TROVE_ENOMEM;
    uint32_t size = 256;
    for (size_t i = 0; i < n; i++) {
        const char *r = vals[i];
        size_t rl = lens[i];
        /* (.*)\s*=>\s*(.*)\s*$ found: the last "=>" of the rule's first line */
        size_t line = 0;
        while (line < rl && r[line] != '\n' && r[line] != '\r') line++;
        size_t arrow = SIZE_MAX;
        for (size_t k = 0; k + 1 < line; k++)
            if (r[k] == '=' && r[k + 1] == '>') arrow = k;
        if (arrow == SIZE_MAX)
            return tv_error_set(err, TROVE_ERUNTIME, "Invalid Mapping Rule : [%.*s]", (int)rl, r);
        size_t ls = 0, le = arrow, rs = arrow + 2, re = line;
        while (ls < le && is_jspace(r[ls])) ls++;
        while (le > ls && is_jspace(r[le - 1])) le--;
        while (rs < re && is_jspace(r[rs])) rs++;
        while (re > rs && is_jspace(r[re - 1])) re--;
        uint32_t u[2];
        size_t nu;
        tv_status st = parse_lhs(r + ls, le - ls, u, &nu, err);
        if (st) return st;
        int ty = -1;
        for (size_t k = 0; k < TV_ARRAY_LEN(type_names); k++)
            if (tv_streq(r + rs, re - rs, type_names[k])) ty = type_values[k];
        if (nu != 1)
            return tv_error_set(err, TROVE_ERUNTIME,
                                "Invalid Mapping Rule : [%.*s]. Only a single character is allowed.",
                                (int)rl, r);
        if (ty < 0)
            return tv_error_set(err, TROVE_ERUNTIME, "Invalid Mapping Rule : [%.*s]. Illegal type.",
                                (int)rl, r);
        keys[i] = u[0];
        types[i] = (uint8_t)ty;
        if (u[0] + 1 > size) size = u[0] + 1;
    }
    uint8_t *tab = tv_comp_alloc(c, size);
    if (!tab) return TROVE_ENOMEM;
    for (uint32_t i = 0; i < size; i++) tab[i] = java_type(i);
    for (size_t i = 0; i < n; i++) tab[keys[i]] = types[i];
    g->tab = tab;
    g->tab_size = size;
    return TROVE_OK;
}

static tv_status flag(tv_comp *c, const char *key, bool def, unsigned bit, unsigned *flags,
                      tv_error *err) {
    bool b;
    tv_status st = tv_comp_bool(c, key, def, &b, err);
    if (!st && b) *flags |= bit;
    return st;
}

static tv_status wd_read(tv_comp *c, wd_cfg *g, tv_error *err) {
    tv_status st;
    if ((st = parse_types(c, g, err))) return st;
    unsigned f = 0;
    if ((st = flag(c, "generate_word_parts", true, F_WORD_PARTS, &f, err)) ||
        (st = flag(c, "generate_number_parts", true, F_NUMBER_PARTS, &f, err)) ||
        (st = flag(c, "catenate_words", false, F_CAT_WORDS, &f, err)) ||
        (st = flag(c, "catenate_numbers", false, F_CAT_NUMBERS, &f, err)) ||
        (st = flag(c, "catenate_all", false, F_CAT_ALL, &f, err)) ||
        (st = flag(c, "split_on_case_change", true, F_SPLIT_CASE, &f, err)) ||
        (st = flag(c, "preserve_original", false, F_PRESERVE, &f, err)) ||
        (st = flag(c, "split_on_numerics", true, F_SPLIT_NUM, &f, err)) ||
        (st = flag(c, "stem_english_possessive", true, F_POSSESSIVE, &f, err)))
        return st;
    if (g->graph && (st = flag(c, "ignore_keywords", false, F_IGNORE_KW, &f, err))) return st;
    /* Analysis.getWordSet: a list or comma-separated string, _case for case */
    if (tv_comp_has(c, "protected_words_path"))
        return tv_error_set(err, TROVE_EUNSUPPORTED, "[protected_words_path] is not supported for [%s]",
                            c->name);
    if (tv_comp_has(c, "protected_words")) {
        bool ic;
        if ((st = tv_comp_bool(c, "protected_words_case", false, &ic, err))) return st;
        const char *const *vals;
        const size_t *lens;
        size_t n;
        tv_comp_list_csv(c, "protected_words", &vals, &lens, &n);
        if ((st = tv_comp_termset(c, vals, lens, n, ic, &g->prot))) return st;
    }
    g->flags = f;
    return TROVE_OK;
}

static tv_status wd_build(tv_comp *c, const void **out, tv_error *err) {
    wd_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    memset(g, 0, sizeof *g);
    tv_status st = wd_read(c, g, err);
    if (st) return st;
    *out = g;
    return TROVE_OK;
}

static tv_status wdg_build(tv_comp *c, const void **out, tv_error *err) {
    wd_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    memset(g, 0, sizeof *g);
    g->graph = true;
    tv_status st = wd_read(c, g, err);
    if (st) return st;
    if ((st = tv_comp_bool(c, "adjust_offsets", true, &g->adjust, err))) return st;
    *out = g;
    return TROVE_OK;
}

/* ------------------------------------------------------------ the iterator */

#define DONE (-1)

typedef struct wd_it {
    const uint32_t *ch;  /* code points */
    const uint8_t *ty;   /* their types */
    int len, start_b, end_b, current, end;
    bool final_poss, skip_poss;
    bool split_case, split_num, stem_poss;
} wd_it;

static bool is_alpha(int t) { return (t & WD_ALPHA) != 0; }
static bool is_digit(int t) { return (t & WD_DIGIT) != 0; }
static bool is_delim(int t) { return (t & WD_DELIM) != 0; }
static bool is_upper(int t) { return (t & WD_UPPER) != 0; }

static bool it_break(const wd_it *it, int last, int type) {
    if (type & last) return false;
    if (!it->split_case && is_alpha(last) && is_alpha(type)) return false;
    if (is_upper(last) && is_alpha(type)) return false;
    if (!it->split_num && ((is_alpha(last) && is_digit(type)) || (is_digit(last) && is_alpha(type))))
        return false;
    return true;
}

static bool ends_possessive(const wd_it *it, int pos) {
    return it->stem_poss && pos > 2 && it->ch[pos - 2] == '\'' &&
           (it->ch[pos - 1] == 's' || it->ch[pos - 1] == 'S') && is_alpha(it->ty[pos - 3]) &&
           (pos == it->end_b || is_delim(it->ty[pos]));
}

static void it_set(wd_it *it, int len) {
    it->len = it->end_b = len;
    it->current = it->start_b = it->end = 0;
    it->skip_poss = it->final_poss = false;
    while (it->start_b < len && is_delim(it->ty[it->start_b])) it->start_b++;
    while (it->end_b > it->start_b && is_delim(it->ty[it->end_b - 1])) it->end_b--;
    if (ends_possessive(it, it->end_b)) it->final_poss = true;
    it->current = it->start_b;
}

static int it_next(wd_it *it) {
    it->current = it->end;
    if (it->current == DONE) return DONE;
    if (it->skip_poss) {
        it->current += 2;
        it->skip_poss = false;
    }
    int last = 0;
    while (it->current < it->end_b && is_delim(last = it->ty[it->current])) it->current++;
    if (it->current >= it->end_b) return it->end = DONE;
    for (it->end = it->current + 1; it->end < it->end_b; it->end++) {
        int type = it->ty[it->end];
        if (it_break(it, last, type)) break;
        last = type;
    }
    if (it->end < it->end_b - 1 && ends_possessive(it, it->end + 2)) it->skip_poss = true;
    return it->end;
}

static int it_type(const wd_it *it) {
    if (it->end == DONE) return 0;
    int t = it->ty[it->current];
    return t == WD_LOWER || t == WD_UPPER ? WD_ALPHA : t;
}

static bool it_single(const wd_it *it) {
    if (it->final_poss) return it->current == it->start_b && it->end == it->end_b - 2;
    return it->current == it->start_b && it->end == it->end_b;
}

/* ----------------------------------------------------- per-token state */

/* One input token decoded: code points, types, and the byte and UTF-16
 * offset of each code point within the term (plus the end). */
typedef struct wterm {
    const tv_token *t;
    uint32_t *ch, *bo, *uo;
    uint8_t *ty;
    int n;
} wterm;

static tv_status decode(tv_arena *a, const wd_cfg *g, const tv_token *t, wterm *w) {
    size_t cap = (size_t)t->term_len + 1;
    w->t = t;
    w->ch = tv_arena_alloc(a, cap * sizeof *w->ch);
    w->bo = tv_arena_alloc(a, cap * sizeof *w->bo);
    w->uo = tv_arena_alloc(a, cap * sizeof *w->uo);
    w->ty = tv_arena_alloc(a, cap);
    if (!w->ch || !w->bo || !w->uo || !w->ty) return TROVE_ENOMEM;
    const uint8_t *s = (const uint8_t *)t->term, *e = s + t->term_len, *p = s;
    int n = 0;
    uint32_t u = 0;
    while (p < e) {
        uint32_t cp;
        w->bo[n] = (uint32_t)(p - s);
        w->uo[n] = u;
        p += tv_utf8_decode(p, e, &cp);
        w->ch[n] = cp;
        w->ty[n] = char_type(g, cp);
        u += cp >= 0x10000 ? 2 : 1;
        n++;
    }
    w->bo[n] = t->term_len;
    w->uo[n] = u;
    w->n = n;
    return TROVE_OK;
}

/* The byte offset, in the analyzed text, of UTF-16 offset u16 at or after
 * token t's start (clamped to the text's end). */
static uint32_t byte_at(const tv_tokvec *v, const tv_token *t, uint32_t u16) {
    if (!v->final_text) return t->start + (u16 - t->start16); /* ASCII guess */
    const uint8_t *s = (const uint8_t *)v->final_text, *e = s + v->final_off;
    const uint8_t *p = s + t->start;
    uint32_t u = t->start16;
    if (u16 < u) return t->start;
    while (u < u16 && p < e) {
        uint32_t cp;
        p += tv_utf8_decode(p, e, &cp);
        u += cp >= 0x10000 ? 2 : 1;
    }
    return (uint32_t)(p - s);
}

static void set_offsets(const tv_tokvec *v, const tv_token *t, tv_token *o, uint32_t s16,
                        uint32_t e16) {
    o->start16 = s16;
    o->end16 = e16;
    o->start = s16 == t->start16 ? t->start : s16 == t->end16 ? t->end : byte_at(v, t, s16);
    o->end = e16 == t->end16 ? t->end : e16 == t->start16 ? t->start : byte_at(v, t, e16);
}

static bool is_protected(const wd_cfg *g, const tv_token *t) {
    return g->prot && tv_termset_has(g->prot, t->term, t->term_len);
}

static bool should_concat(unsigned f, int type) {
    return ((f & F_CAT_WORDS) && is_alpha(type)) || ((f & F_CAT_NUMBERS) && is_digit(type));
}
static bool should_parts(unsigned f, int type) {
    return ((f & F_WORD_PARTS) && is_alpha(type)) || ((f & F_NUMBER_PARTS) && is_digit(type));
}

/* A concatenation being built: [start, end) in code points of the term,
 * its text in the arena. */
typedef struct wcat {
    char *buf;
    size_t len, cap;
    int start, end, type, count, start_pos;
} wcat;

static tv_status cat_add(tv_arena *a, wcat *c, const wterm *w, int from, int to) {
    size_t n = w->bo[to] - w->bo[from];
    if (c->len + n > c->cap) {
        size_t cap = (c->len + n) * 2 + 16;
        char *b = tv_arena_alloc(a, cap);
        if (!b) return TROVE_ENOMEM;
        if (c->len) memcpy(b, c->buf, c->len);
        c->buf = b;
        c->cap = cap;
    }
    memcpy(c->buf + c->len, w->t->term + w->bo[from], n);
    c->len += n;
    c->count++;
    c->end = to;
    return TROVE_OK;
}
static void cat_clear(wcat *c) {
    c->len = 0;
    c->start = c->end = c->type = c->count = 0;
}
static char *cat_text(tv_arena *a, const wcat *c) {
    char *t = tv_arena_alloc(a, c->len + 1);
    if (!t) return NULL;
    memcpy(t, c->buf, c->len);
    t[c->len] = 0;
    return t;
}

/* ----------------------------------------------- WordDelimiterFilter */

typedef struct wdf {
    tv_arena *a;
    const wd_cfg *g;
    const tv_tokvec *in;
    tv_tokvec *out;
    wd_it it;
    wterm w;
    int accum;
    bool first, has_output, following_original, illegal;
    int last_concat;
    wcat concat, all;
    tv_token *buf; /* buffered parts and concatenations */
    size_t nbuf, capbuf;
} wdf;

/* WordDelimiterFilter.position */
static uint32_t wdf_position(wdf *s, bool inject) {
    int pi = s->accum;
    if (s->has_output) {
        s->accum = 0;
        return inject ? 0 : (uint32_t)(pi > 1 ? pi : 1);
    }
    s->has_output = true;
    if (!s->following_original) {
        s->following_original = true;
        return 0;
    }
    s->accum = 0;
    return (uint32_t)(pi > 1 ? pi : 1);
}

/* A new token on the saved one: cleared attributes but type, as
 * clearAttributes() then setType(savedType). */
static tv_token wdf_tok(const wdf *s) {
    const tv_token *t = s->w.t;
    tv_token o = {0};
    o.type = t->type;
    return o;
}

static tv_status wdf_part(wdf *s, bool single, tv_token *o) {
    const wterm *w = &s->w;
    const tv_token *t = w->t;
    *o = wdf_tok(s);
    o->term = t->term + w->bo[s->it.current];
    o->term_len = w->bo[s->it.end] - w->bo[s->it.current];
    uint32_t st = t->start16 + w->uo[s->it.current], en = t->start16 + w->uo[s->it.end];
    if (s->illegal) {
        if (single && st <= t->end16) set_offsets(s->in, t, o, st, t->end16);
        else set_offsets(s->in, t, o, t->start16, t->end16);
    } else {
        set_offsets(s->in, t, o, st, en);
    }
    o->position = wdf_position(s, false);
    return TROVE_OK;
}

static tv_status wdf_write(wdf *s, wcat *c, tv_token *o) {
    const wterm *w = &s->w;
    const tv_token *t = w->t;
    *o = wdf_tok(s);
    if (!(o->term = cat_text(s->a, c))) return TROVE_ENOMEM;
    o->term_len = (uint32_t)c->len;
    if (s->illegal) set_offsets(s->in, t, o, t->start16, t->end16);
    else set_offsets(s->in, t, o, t->start16 + w->uo[c->start], t->start16 + w->uo[c->end]);
    o->position = wdf_position(s, true);
    s->accum = 0;
    cat_clear(c);
    return TROVE_OK;
}

static tv_status wdf_buffer(wdf *s, const tv_token *o) {
    if (s->nbuf == s->capbuf) {
        size_t cap = s->capbuf ? s->capbuf * 2 : 8;
        tv_token *b = tv_arena_alloc(s->a, cap * sizeof *b);
        if (!b) return TROVE_ENOMEM;
        if (s->nbuf) memcpy(b, s->buf, s->nbuf * sizeof *b);
        s->buf = b;
        s->capbuf = cap;
    }
    s->buf[s->nbuf++] = *o;
    return TROVE_OK;
}

static tv_status emit(tv_arena *a, tv_tokvec *out, const tv_token *o) {
    return tv_tokvec_push(a, out, o);
}

/* flushConcatenation: whether it wrote (into *o) */
static tv_status wdf_flush(wdf *s, wcat *c, tv_token *o, bool *wrote) {
    s->last_concat = c->count;
    *wrote = false;
    if (c->count != 1 || !should_parts(s->g->flags, c->type)) {
        *wrote = true;
        return wdf_write(s, c, o);
    }
    cat_clear(c);
    return TROVE_OK;
}

/* Stable insertion sort by start offset, then larger increment first
 * (the filter's OffsetSorter over InPlaceMergeSorter, which is stable). */
static void wdf_sort(tv_token *b, size_t n) {
    for (size_t i = 1; i < n; i++) {
        tv_token x = b[i];
        size_t j = i;
        while (j > 0 && (b[j - 1].start16 > x.start16 ||
                         (b[j - 1].start16 == x.start16 && b[j - 1].position < x.position))) {
            b[j] = b[j - 1];
            j--;
        }
        b[j] = x;
    }
}

/* The parts of the saved token (the loop of incrementToken while it has
 * saved state). */
static tv_status wdf_parts(wdf *s) {
    unsigned f = s->g->flags;
    tv_token o;
    tv_status st;
    size_t pos = 0; /* bufferedPos */
    for (;;) {
        if (s->it.end == DONE) {
            if (s->concat.len) {
                bool wrote;
                if ((st = wdf_flush(s, &s->concat, &o, &wrote))) return st;
                if (wrote) {
                    if ((st = wdf_buffer(s, &o))) return st;
                    continue;
                }
            }
            if (s->all.len) {
                if (s->all.count > s->last_concat) {
                    if ((st = wdf_write(s, &s->all, &o)) || (st = wdf_buffer(s, &o))) return st;
                    continue;
                }
                cat_clear(&s->all);
            }
            if (pos < s->nbuf) {
                if (pos == 0) wdf_sort(s->buf, s->nbuf);
                o = s->buf[pos++];
                if (s->first && o.position == 0) o.position = 1;
                s->first = false;
                if ((st = emit(s->a, s->out, &o))) return st;
                continue;
            }
            s->nbuf = 0;
            return TROVE_OK;
        }
        if (it_single(&s->it)) {
            if ((st = wdf_part(s, true, &o))) return st;
            it_next(&s->it);
            s->first = false;
            if ((st = emit(s->a, s->out, &o))) return st;
            continue;
        }
        int type = it_type(&s->it);
        if (s->concat.len && (s->concat.type & type) == 0) {
            bool wrote;
            if ((st = wdf_flush(s, &s->concat, &o, &wrote))) return st;
            s->has_output = false;
            if (wrote) {
                if ((st = wdf_buffer(s, &o))) return st;
                continue;
            }
        }
        if (should_concat(f, type)) {
            if (!s->concat.len) {
                s->concat.type = type;
                s->concat.start = s->it.current;
            }
            if ((st = cat_add(s->a, &s->concat, &s->w, s->it.current, s->it.end))) return st;
        }
        if (f & F_CAT_ALL) {
            if (!s->all.len) s->all.start = s->it.current;
            if ((st = cat_add(s->a, &s->all, &s->w, s->it.current, s->it.end))) return st;
        }
        if (should_parts(f, type)) {
            if ((st = wdf_part(s, false, &o)) || (st = wdf_buffer(s, &o))) return st;
        }
        it_next(&s->it);
    }
}

static tv_status wdf_apply(tv_arena *a, const wd_cfg *g, tv_tokvec *v) {
    tv_tokvec out = {0};
    wdf s = {.a = a, .g = g, .in = v, .out = &out, .first = true};
    s.it.split_case = g->flags & F_SPLIT_CASE;
    s.it.split_num = g->flags & F_SPLIT_NUM;
    s.it.stem_poss = g->flags & F_POSSESSIVE;
    tv_status st;
    for (size_t i = 0; i < v->len; i++) {
        const tv_token *t = &v->items[i];
        if ((g->flags & F_IGNORE_KW) && (t->flags & TV_TOKF_KEYWORD)) {
            if ((st = emit(a, &out, t))) return st;
            continue;
        }
        if ((st = decode(a, g, t, &s.w))) return st;
        s.accum += (int)t->position;
        s.it.ch = s.w.ch;
        s.it.ty = s.w.ty;
        it_set(&s.it, s.w.n);
        it_next(&s.it);
        if ((s.it.current == 0 && s.it.end == s.w.n) || is_protected(g, t)) {
            tv_token o = *t;
            o.position = (uint32_t)s.accum;
            s.accum = 0;
            s.first = false;
            if ((st = emit(a, &out, &o))) return st;
            continue;
        }
        if (s.it.end == DONE && !(g->flags & F_PRESERVE)) {
            if (t->position == 1 && !s.first) s.accum--;
            continue;
        }
        s.illegal = t->end16 - t->start16 != s.w.uo[s.w.n];
        s.has_output = false;
        s.following_original = !(g->flags & F_PRESERVE);
        s.last_concat = 0;
        if (g->flags & F_PRESERVE) {
            tv_token o = *t;
            o.position = (uint32_t)s.accum;
            s.accum = 0;
            s.first = false;
            if ((st = emit(a, &out, &o))) return st;
        }
        if ((st = wdf_parts(&s))) return st;
    }
    /* the accumulated increments of dropped tokens are lost, as in Lucene
     * (end() reports the input's own final increment) */
    out.trailing = v->trailing;
    *v = out;
    return TROVE_OK;
}

/* ------------------------------------------ WordDelimiterGraphFilter */

typedef struct gpart {
    const char *term; /* NULL: a slice of the saved term */
    uint32_t term_len;
    int start_pos, end_pos, start_part, end_part;
} gpart;

typedef struct wdg {
    tv_arena *a;
    const wd_cfg *g;
    wd_it it;
    wterm w;
    gpart *parts;
    size_t nparts, capparts;
    int word_pos, last_concat;
    wcat concat, all;
} wdg;

static tv_status wdg_buffer(wdg *s, const char *term, uint32_t len, int sp, int ep, int spart,
                            int epart) {
    if (s->nparts == s->capparts) {
        size_t cap = s->capparts ? s->capparts * 2 : 8;
        gpart *p = tv_arena_alloc(s->a, cap * sizeof *p);
        if (!p) return TROVE_ENOMEM;
        if (s->nparts) memcpy(p, s->parts, s->nparts * sizeof *p);
        s->parts = p;
        s->capparts = cap;
    }
    s->parts[s->nparts++] = (gpart){term, len, sp, ep, spart, epart};
    return TROVE_OK;
}

static tv_status wdg_write(wdg *s, wcat *c) {
    char *t = cat_text(s->a, c);
    if (!t) return TROVE_ENOMEM;
    return wdg_buffer(s, t, (uint32_t)c->len, c->start_pos, s->word_pos, c->start, c->end);
}

static tv_status wdg_flush(wdg *s, wcat *c) {
    if (s->word_pos == c->start_pos) s->word_pos++;
    s->last_concat = c->count;
    tv_status st = TROVE_OK;
    if (c->count != 1 || !should_parts(s->g->flags, c->type)) st = wdg_write(s, c);
    cat_clear(c);
    return st;
}

static tv_status wdg_concat(wdg *s, wcat *c) {
    if (!c->len) {
        c->type = it_type(&s->it);
        c->start = s->it.current;
        c->start_pos = s->word_pos;
    }
    return cat_add(s->a, c, &s->w, s->it.current, s->it.end);
}

/* bufferWordParts */
static tv_status wdg_parts(wdg *s) {
    unsigned f = s->g->flags;
    tv_status st;
    s->nparts = 0;
    s->last_concat = 0;
    s->word_pos = 0;
    if ((f & F_PRESERVE) && (st = wdg_buffer(s, NULL, 0, 0, 1, 0, s->w.n))) return st;
    if (it_single(&s->it)) {
        if ((st = wdg_buffer(s, NULL, 0, s->word_pos, s->word_pos + 1, s->it.current, s->it.end)))
            return st;
        s->word_pos++;
        it_next(&s->it);
    } else {
        while (s->it.end != DONE) {
            int type = it_type(&s->it);
            if (s->concat.len && (s->concat.type & type) == 0 && (st = wdg_flush(s, &s->concat)))
                return st;
            if (should_concat(f, type) && (st = wdg_concat(s, &s->concat))) return st;
            if ((f & F_CAT_ALL) && (st = wdg_concat(s, &s->all))) return st;
            if (should_parts(f, type)) {
                if ((st = wdg_buffer(s, NULL, 0, s->word_pos, s->word_pos + 1, s->it.current,
                                     s->it.end)))
                    return st;
                s->word_pos++;
            }
            it_next(&s->it);
        }
        if (s->concat.len && (st = wdg_flush(s, &s->concat))) return st;
        if (s->all.len) {
            if (s->all.count > s->last_concat) {
                if (s->word_pos == s->all.start_pos) s->word_pos++;
                if ((st = wdg_write(s, &s->all))) return st;
            }
            cat_clear(&s->all);
        }
    }
    if (f & F_PRESERVE) {
        if (s->word_pos == 0) s->word_pos++;
        s->parts[0].end_pos = s->word_pos;
    }
    /* PositionSorter (stable): start part, then the longer end first */
    size_t from = (f & F_PRESERVE) ? 1 : 0;
    for (size_t i = from + 1; i < s->nparts; i++) {
        gpart x = s->parts[i];
        size_t j = i;
        while (j > from && (s->parts[j - 1].start_part > x.start_part ||
                            (s->parts[j - 1].start_part == x.start_part &&
                             s->parts[j - 1].end_part < x.end_part))) {
            s->parts[j] = s->parts[j - 1];
            j--;
        }
        s->parts[j] = x;
    }
    return TROVE_OK;
}

static tv_status wdg_apply(tv_arena *a, const wd_cfg *g, tv_tokvec *v) {
    tv_tokvec out = {0};
    wdg s = {.a = a, .g = g};
    s.it.split_case = g->flags & F_SPLIT_CASE;
    s.it.split_num = g->flags & F_SPLIT_NUM;
    s.it.stem_poss = g->flags & F_POSSESSIVE;
    int accum = 0;
    uint32_t last_start16 = 0, last_start = 0; /* offsets never go backwards */
    tv_status st;
    for (size_t i = 0; i < v->len; i++) {
        const tv_token *t = &v->items[i];
        if ((g->flags & F_IGNORE_KW) && (t->flags & TV_TOKF_KEYWORD)) {
            if ((st = emit(a, &out, t))) return st;
            continue;
        }
        if ((st = decode(a, g, t, &s.w))) return st;
        accum += (int)t->position;
        s.it.ch = s.w.ch;
        s.it.ty = s.w.ty;
        it_set(&s.it, s.w.n);
        it_next(&s.it);
        if ((s.it.current == 0 && s.it.end == s.w.n) || is_protected(g, t)) {
            tv_token o = *t;
            o.position = (uint32_t)accum;
            accum = 0;
            if ((st = emit(a, &out, &o))) return st;
            continue;
        }
        if (s.it.end == DONE) {
            if (!(g->flags & F_PRESERVE)) continue;
            accum = 0;
            if ((st = emit(a, &out, t))) return st;
            continue;
        }
        bool adjusting = g->adjust && t->end16 - t->start16 == s.w.uo[s.w.n];
        if ((st = wdg_parts(&s))) return st;
        int word_pos = 0;
        for (size_t k = 0; k < s.nparts; k++) {
            const gpart *p = &s.parts[k];
            tv_token o = *t;
            uint32_t so = t->start16, eo = t->end16;
            if (adjusting) {
                so = t->start16 + s.w.uo[p->start_part];
                eo = t->start16 + s.w.uo[p->end_part];
            }
            set_offsets(v, t, &o, so, eo);
            if (o.start16 < last_start16) o.start16 = last_start16, o.start = last_start;
            if (o.end16 < last_start16) o.end16 = last_start16, o.end = last_start;
            last_start16 = o.start16;
            last_start = o.start;
            if (p->term) {
                o.term = p->term;
                o.term_len = p->term_len;
            } else {
                o.term = t->term + s.w.bo[p->start_part];
                o.term_len = s.w.bo[p->end_part] - s.w.bo[p->start_part];
            }
            o.position = (uint32_t)(accum + p->start_pos - word_pos);
            accum = 0;
            o.pos_len = (uint16_t)(p->end_pos - p->start_pos);
            word_pos = p->start_pos;
            if ((st = emit(a, &out, &o))) return st;
        }
    }
    out.trailing = v->trailing;
    *v = out;
    return TROVE_OK;
}

static tv_status wd_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const wd_cfg *g = cfg;
    return g->graph ? wdg_apply(a, g, v) : wdf_apply(a, g, v);
}

const tv_filter_type tv_tf_word_delimiter = {
    .name = "word_delimiter",
    .build = wd_build,
    .apply = wd_apply,
    .in_synonyms = TV_SYN_REJECT,
};

const tv_filter_type tv_tf_word_delimiter_graph = {
    .name = "word_delimiter_graph",
    .build = wdg_build,
    .apply = wd_apply,
    .in_synonyms = TV_SYN_REJECT,
};
