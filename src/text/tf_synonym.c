/*
 * tf_synonym.c — the `synonym` and `synonym_graph` token filters
 * (OpenSearch's SynonymTokenFilterFactory / SynonymGraphTokenFilterFactory
 * over Lucene's SynonymMap, SynonymFilter and SynonymGraphFilter).
 *
 * Settings: `synonyms` (inline rules, one per list element; elements
 * starting with '#' skipped, as Analysis.parseWordList does), `format`
 * ("wordnet", any case, else Solr), `expand` (true), `lenient` (false),
 * `updateable` (false: true makes the filter search-time only),
 * `synonym_analyzer` (a built-in analyzer parses the rules instead of the
 * chain), `ignore_case` (deprecated, without effect). `synonyms_path`
 * answers unsupported: trove has no config directory.
 *
 * Rules are analyzed per analyzer (getChainAwareTokenFilterFactory): build
 * keeps the settings, and the chain hook, called for each analyzer that
 * lists the filter, analyzes every rule side with that analyzer's
 * tokenizer, char filters and the filters before this one (each as its
 * type's in_synonyms says), then builds the map in the registry's memory:
 * input phrase (terms joined by NUL, as SynonymMap.WORD_SEPARATOR) ->
 * output phrases in insertion order, duplicates dropped, keepOrig OR-ed.
 * A rule side that analyzes to nothing, to an empty term or to a stacked
 * or gapped token fails the build ("Failed to build synonyms"), unless
 * `lenient`, which drops the pairs it takes part in.
 *
 * Solr rules: "a, b, c" (expand: every ordered pair, keeping originals;
 * else each to the first, replacing), "a, b => c, d" (explicit, never
 * keeping originals), '\' escapes the next char (so "\," and "\=>" are
 * literal), lines empty or starting with '#' skipped; a second "=>" fails.
 * WordNet rules: s(SYNSETID,n,'word',...) lines grouped by the 9 chars of
 * the synset id, "''" an escaped quote.
 *
 * Matching is greedy longest-match from each token over consecutive tokens
 * whatever their position increments (as Lucene's FST walk), found by
 * binary search over the sorted input phrases (a phrase prefix is live
 * while some input starts with it plus NUL); rejected: an FST, whose gain
 * needs rule sets far larger than inline settings carry.
 * synonym_graph replays SynonymGraphFilter's node numbering over the whole
 * token array: outputs as side paths of a match, originals last, each
 * token's positionLength its span in nodes, SYNONYM tokens offset over the
 * whole match. synonym replays SynonymFilter's position slots: originals
 * kept (keepOrig) or dropped, outputs stacked on the slots of their words
 * (position increment 0 after the slot's first), a single-word output
 * spanning the match (positionLength = match length when originals are
 * kept), outputs past the input's end at the last token's offsets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "text/text_int.h"

typedef struct syn_entry {
    const char *in; /* terms joined by NUL */
    uint32_t in_len;
    uint32_t nouts;
    const uint32_t *outs; /* indexes into the words */
    bool keep_orig;
} syn_entry;

typedef struct syn_map {
    const syn_entry *e; /* sorted by input bytes */
    size_t n;
    const char *const *words; /* output phrases, NUL-joined terms */
    const uint32_t *wlens;
} syn_map;

typedef struct syn_cfg {
    const char *name;
    bool graph, expand, lenient, wordnet, updateable;
    const char *rules; /* the rules, one per line */
    size_t rules_len;
    bool has_rules;
    const tv_analyzer *syn_analyzer; /* synonym_analyzer (a built-in), or NULL */
    const syn_map *map;              /* per analyzer (chain); NULL before */
} syn_cfg;

/* ------------------------------------------------------------- settings */

static tv_status syn_build(tv_comp *c, const void **out, bool graph, tv_error *err) {
    syn_cfg *g = tv_comp_alloc(c, sizeof *g);
    if (!g) return TROVE_ENOMEM;
    memset(g, 0, sizeof *g);
    g->graph = graph;
    g->name = tv_comp_strdup(c, c->name, c->name_len);
    tv_status st;
    if ((st = tv_comp_bool(c, "expand", true, &g->expand, err))) return st;
    if ((st = tv_comp_bool(c, "lenient", false, &g->lenient, err))) return st;
    if ((st = tv_comp_bool(c, "updateable", false, &g->updateable, err))) return st;
    size_t fl = 0;
    const char *fmt = tv_comp_str(c, "format", &fl);
    g->wordnet = fmt && fl == 7 && strncasecmp(fmt, "wordnet", 7) == 0;
    size_t al = 0;
    const char *an = tv_comp_str(c, "synonym_analyzer", &al);
    if (an) g->syn_analyzer = tv_analyzer_builtin(an, al); /* others: the chain, as getAnalyzer's null */
    if (tv_comp_has(c, "synonyms_path"))
        return tv_error_set(err, TROVE_EUNSUPPORTED,
                            "[synonyms_path] is not supported: trove has no config directory");
    const char *const *vals;
    const size_t *lens;
    size_t n;
    tv_comp_list(c, "synonyms", &vals, &lens, &n);
    g->has_rules = tv_comp_has(c, "synonyms");
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += lens[i] + 1;
    char *r = tv_comp_alloc(c, total + 1);
    if (!r || !g->name) return TROVE_ENOMEM;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] && vals[i][0] == '#') continue; /* Analysis.parseWordList */
        memcpy(r + o, vals[i], lens[i]);
        o += lens[i];
        r[o++] = '\n';
    }
    r[o] = 0;
    g->rules = r;
    g->rules_len = o;
    *out = g;
    return TROVE_OK;
}

static tv_status synonym_build(tv_comp *c, const void **cfg, tv_error *err) {
    return syn_build(c, cfg, false, err);
}
static tv_status synonym_graph_build(tv_comp *c, const void **cfg, tv_error *err) {
    return syn_build(c, cfg, true, err);
}

/* ---------------------------------------------------------- the parser */

typedef struct syn_add {
    const char *in, *out;
    uint32_t in_len, out_len;
    bool orig;
    uint32_t seq;
} syn_add;

typedef struct syn_parser {
    tv_arena *a; /* scratch */
    const tv_analyzer *an;
    bool lenient;
    TV_VEC(syn_add) adds;
    bool failed; /* an IllegalArgumentException: "Failed to build synonyms" */
    bool oom;
} syn_parser;

/* SynonymMap.Parser.analyze: the text's terms joined by NUL; a failure
 * (nothing left, an empty term, a position increment other than 1) sets
 * p->failed, or with lenient gives the empty phrase. */
static void analyze_phrase(syn_parser *p, const char *s, size_t n, const char **out,
                           uint32_t *out_len) {
    *out = "";
    *out_len = 0;
    tv_tokens toks;
    if (tv_analyze(p->an, p->a, s, n, 0, &toks)) {
        p->oom = true;
        return;
    }
    bool bad = toks.len == 0;
    size_t total = 0;
    for (size_t i = 0; i < toks.len && !bad; i++) {
        if (toks.items[i].term_len == 0 || toks.items[i].position != i) bad = true;
        total += toks.items[i].term_len + 1;
    }
    if (bad) {
        if (!p->lenient) p->failed = true;
        return;
    }
    char *b = tv_arena_alloc(p->a, total);
    if (!b) {
        p->oom = true;
        return;
    }
    size_t o = 0;
    for (size_t i = 0; i < toks.len; i++) {
        if (i) b[o++] = 0;
        memcpy(b + o, toks.items[i].term, toks.items[i].term_len);
        o += toks.items[i].term_len;
    }
    *out = b;
    *out_len = (uint32_t)o;
}

/* OpenSearch{Solr,Wordnet}SynonymParser.add: lenient drops empty sides. */
static void add_rule(syn_parser *p, const char *in, uint32_t il, const char *out, uint32_t ol,
                     bool orig) {
    if (p->failed || p->oom) return;
    if (il == 0 || ol == 0) return; /* only reachable with lenient */
    syn_add r = {in, out, il, ol, orig, (uint32_t)p->adds.len};
    if (tv_vec_push(&p->adds, r)) p->oom = true;
}

/* Java's String.trim: chars <= ' ' at both ends. */
static void jtrim(const char **s, size_t *n) {
    while (*n && (unsigned char)(*s)[0] <= ' ') (*s)++, (*n)--;
    while (*n && (unsigned char)(*s)[*n - 1] <= ' ') (*n)--;
}

typedef struct piece {
    const char *s;
    size_t n;
} piece;

/* SolrSynonymParser.split: pieces between separators, a backslash keeping
 * itself and the next char; empty pieces dropped. Pieces are arena copies. */
static size_t solr_split(syn_parser *p, const char *s, size_t n, const char *sep, piece *out,
                         size_t cap) {
    size_t sl = strlen(sep), k = 0, pos = 0;
    char *buf = tv_arena_alloc(p->a, n + 1);
    if (!buf) {
        p->oom = true;
        return 0;
    }
    size_t b = 0, start = 0;
    while (pos < n) {
        if (pos + sl <= n && memcmp(s + pos, sep, sl) == 0) {
            if (b > start && k < cap) out[k++] = (piece){buf + start, b - start};
            start = b;
            pos += sl;
            continue;
        }
        char ch = s[pos++];
        if (ch == '\\') {
            buf[b++] = ch;
            if (pos >= n) break;
            ch = s[pos++];
        }
        buf[b++] = ch;
    }
    if (b > start && k < cap) out[k++] = (piece){buf + start, b - start};
    return k;
}

/* Unescapes (a backslash stands for the next char), trims, analyzes. */
static void solr_side(syn_parser *p, piece pc, const char **out, uint32_t *ol) {
    char *u = tv_arena_alloc(p->a, pc.n + 1);
    if (!u) {
        p->oom = true;
        return;
    }
    size_t o = 0;
    for (size_t i = 0; i < pc.n; i++) {
        if (pc.s[i] == '\\' && i + 1 < pc.n) u[o++] = pc.s[++i];
        else u[o++] = pc.s[i];
    }
    const char *t = u;
    jtrim(&t, &o);
    analyze_phrase(p, t, o, out, ol);
}

static void parse_solr_line(syn_parser *p, const char *line, size_t n, bool expand) {
    if (n == 0 || line[0] == '#') return;
    piece sides[3];
    size_t ns = solr_split(p, line, n, "=>", sides, 3);
    size_t cap = n + 1;
    piece *ins = tv_arena_alloc(p->a, cap * sizeof *ins);
    piece *outs = tv_arena_alloc(p->a, cap * sizeof *outs);
    const char **iw = tv_arena_alloc(p->a, cap * sizeof *iw);
    const char **ow = tv_arena_alloc(p->a, cap * sizeof *ow);
    uint32_t *il = tv_arena_alloc(p->a, cap * sizeof *il);
    uint32_t *ol = tv_arena_alloc(p->a, cap * sizeof *ol);
    if (!ins || !outs || !iw || !ow || !il || !ol) {
        p->oom = true;
        return;
    }
    if (ns > 1) {
        if (ns != 2) { /* "more than one explicit mapping specified on the same line" */
            p->failed = true;
            return;
        }
        size_t ni = solr_split(p, sides[0].s, sides[0].n, ",", ins, cap);
        for (size_t i = 0; i < ni; i++) solr_side(p, ins[i], &iw[i], &il[i]);
        size_t no = solr_split(p, sides[1].s, sides[1].n, ",", outs, cap);
        for (size_t i = 0; i < no; i++) solr_side(p, outs[i], &ow[i], &ol[i]);
        for (size_t i = 0; i < ni; i++)
            for (size_t j = 0; j < no; j++) add_rule(p, iw[i], il[i], ow[j], ol[j], false);
        return;
    }
    size_t ni = solr_split(p, line, n, ",", ins, cap);
    for (size_t i = 0; i < ni; i++) solr_side(p, ins[i], &iw[i], &il[i]);
    if (expand) {
        for (size_t i = 0; i < ni; i++)
            for (size_t j = 0; j < ni; j++)
                if (i != j) add_rule(p, iw[i], il[i], iw[j], il[j], true);
    } else {
        for (size_t i = 0; i < ni; i++) add_rule(p, iw[i], il[i], iw[0], il[0], false);
    }
}

static void parse_solr(syn_parser *p, const char *r, size_t n, bool expand) {
    size_t b = 0;
    for (size_t i = 0; i <= n && !p->failed && !p->oom; i++) {
        if (i < n && r[i] != '\n' && r[i] != '\r') continue;
        if (i < n || i > b) parse_solr_line(p, r + b, i - b, expand);
        if (i < n && r[i] == '\r' && i + 1 < n && r[i + 1] == '\n') i++;
        b = i + 1;
    }
}

typedef struct wn_word {
    const char *s;
    uint32_t n;
} wn_word;

static void wordnet_synset(syn_parser *p, const wn_word *w, size_t n, bool expand) {
    if (n <= 1) return;
    for (size_t i = 0; i < n; i++) {
        if (expand) {
            for (size_t j = 0; j < n; j++)
                if (i != j) add_rule(p, w[i].s, w[i].n, w[j].s, w[j].n, true);
        } else {
            add_rule(p, w[i].s, w[i].n, w[0].s, w[0].n, false);
        }
    }
}

/* WordnetSynonymParser: s(100000001,1,'word',n,1,0). lines, grouped by
 * synset id (chars 2..10); a line too short for an id, or without two
 * quotes, fails (Java's substring would throw). */
static void parse_wordnet(syn_parser *p, const char *r, size_t n, bool expand) {
    size_t nlines = 1;
    for (size_t i = 0; i < n; i++) nlines += r[i] == '\n';
    wn_word *set = tv_arena_alloc(p->a, nlines * sizeof *set);
    if (!set) {
        p->oom = true;
        return;
    }
    size_t ns = 0;
    const char *last = NULL;
    size_t b = 0;
    for (size_t i = 0; i <= n && !p->failed && !p->oom; i++) {
        if (i < n && r[i] != '\n' && r[i] != '\r') continue;
        size_t e = i;
        bool is_line = i < n || i > b;
        if (i < n && r[i] == '\r' && i + 1 < n && r[i + 1] == '\n') i++;
        if (!is_line) break;
        const char *line = r + b;
        size_t ln = e - b;
        b = i + 1;
        if (ln < 11) {
            p->failed = true;
            return;
        }
        if (!last || memcmp(last, line + 2, 9) != 0) {
            wordnet_synset(p, set, ns, expand);
            ns = 0;
        }
        last = line + 2;
        const char *q1 = memchr(line, '\'', ln);
        const char *q2 = NULL;
        for (size_t k = ln; k-- > 0;)
            if (line[k] == '\'') {
                q2 = line + k;
                break;
            }
        size_t st = q1 ? (size_t)(q1 - line) + 1 : 0;
        size_t en = q2 ? (size_t)(q2 - line) : (size_t)-1;
        if (en == (size_t)-1 || en < st) {
            p->failed = true;
            return;
        }
        char *t = tv_arena_alloc(p->a, en - st + 1);
        if (!t) {
            p->oom = true;
            return;
        }
        size_t o = 0;
        for (size_t k = st; k < en; k++) {
            t[o++] = line[k];
            if (line[k] == '\'' && k + 1 < en && line[k + 1] == '\'') k++;
        }
        analyze_phrase(p, t, o, &set[ns].s, &set[ns].n);
        ns++;
    }
    if (!p->failed && !p->oom) wordnet_synset(p, set, ns, expand);
}

/* --------------------------------------------------------- the map */

static int bytes_cmp(const char *a, size_t al, const char *b, size_t bl) {
    int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al < bl ? -1 : al > bl);
}

static int add_cmp(const void *x, const void *y) {
    const syn_add *a = x, *b = y;
    int c = bytes_cmp(a->in, a->in_len, b->in, b->in_len);
    return c ? c : (a->seq < b->seq ? -1 : a->seq > b->seq);
}

/* SynonymMap.Builder.build: entries by input, outputs deduplicated. */
static tv_status map_build(tv_comp *c, syn_parser *p, const syn_map **out) {
    syn_map *m = tv_comp_alloc(c, sizeof *m);
    if (!m) return TROVE_ENOMEM;
    memset(m, 0, sizeof *m);
    size_t n = p->adds.len;
    syn_add *adds = p->adds.items;
    if (n) qsort(adds, n, sizeof *adds, add_cmp);
    syn_entry *e = tv_comp_alloc(c, (n ? n : 1) * sizeof *e);
    const char **words = tv_comp_alloc(c, (n ? n : 1) * sizeof *words);
    uint32_t *wlens = tv_comp_alloc(c, (n ? n : 1) * sizeof *wlens);
    uint32_t *ords = tv_comp_alloc(c, (n ? n : 1) * sizeof *ords);
    if (!e || !words || !wlens || !ords) return TROVE_ENOMEM;
    size_t ne = 0, nw = 0, no = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && bytes_cmp(adds[j].in, adds[j].in_len, adds[i].in, adds[i].in_len) == 0) j++;
        syn_entry *x = &e[ne++];
        x->in = tv_comp_strdup(c, adds[i].in, adds[i].in_len);
        if (!x->in) return TROVE_ENOMEM;
        x->in_len = adds[i].in_len;
        x->outs = ords + no;
        x->nouts = 0;
        x->keep_orig = false;
        for (size_t k = i; k < j; k++) {
            x->keep_orig |= adds[k].orig;
            /* the output's word (shared by every entry that outputs it) */
            uint32_t w = UINT32_MAX;
            for (size_t q = 0; q < nw && w == UINT32_MAX; q++)
                if (wlens[q] == adds[k].out_len && memcmp(words[q], adds[k].out, wlens[q]) == 0)
                    w = (uint32_t)q;
            if (w == UINT32_MAX) {
                words[nw] = tv_comp_strdup(c, adds[k].out, adds[k].out_len);
                if (!words[nw]) return TROVE_ENOMEM;
                wlens[nw] = adds[k].out_len;
                w = (uint32_t)nw++;
            }
            bool dup = false;
            for (uint32_t q = 0; q < x->nouts && !dup; q++) dup = x->outs[q] == w;
            if (!dup) ords[no + x->nouts++] = w;
        }
        no += x->nouts;
        i = j;
    }
    m->e = e;
    m->n = ne;
    m->words = words;
    m->wlens = wlens;
    *out = m;
    return TROVE_OK;
}

static tv_status syn_chain(tv_comp *c, const tv_analyzer_chain *before, const void **cfgp,
                           tv_error *err) {
    const syn_cfg *g = *cfgp;
    if (!g->has_rules)
        return tv_error_set(err, TROVE_EARG,
                            "synonym requires either `synonyms` or `synonyms_path` to be configured");
    syn_cfg *ng = tv_comp_alloc(c, sizeof *ng);
    if (!ng) return TROVE_ENOMEM;
    *ng = *g;
    tv_analyzer an = {.name = (char *)"_synonyms_", .is_static = true, .tok = *before->tok,
                      .nfilters = before->nfilters, .filters = (tv_filter_def *)before->filters,
                      .ncharfilters = before->ncharfilters,
                      .charfilters = (tv_charfilter_def *)before->charfilters};
    syn_parser p = {.an = g->syn_analyzer ? g->syn_analyzer : &an, .lenient = g->lenient};
    tv_arena a;
    tv_arena_init(&a);
    p.a = &a;
    if (g->wordnet) parse_wordnet(&p, g->rules, g->rules_len, g->expand);
    else parse_solr(&p, g->rules, g->rules_len, g->expand);
    tv_status st = TROVE_OK;
    if (p.oom) st = TROVE_ENOMEM;
    else if (p.failed) st = tv_error_set(err, TROVE_EARG, "Failed to build synonyms");
    else st = map_build(c, &p, &ng->map);
    tv_vec_fini(&p.adds);
    tv_arena_fini(&a);
    if (st == TROVE_ENOMEM) tv_error_oom(err);
    if (st) return st;
    *cfgp = ng;
    return TROVE_OK;
}

/* ------------------------------------------------------------ matching */

/* The entry whose input is exactly key, or NULL; *live: some input starts
 * with key followed by NUL (the match may go on). */
static const syn_entry *map_find(const syn_map *m, const char *key, size_t kl, bool *live) {
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (bytes_cmp(m->e[mid].in, m->e[mid].in_len, key, kl) < 0) lo = mid + 1;
        else hi = mid;
    }
    const syn_entry *hit = NULL;
    size_t i = lo;
    if (i < m->n && bytes_cmp(m->e[i].in, m->e[i].in_len, key, kl) == 0) hit = &m->e[i++];
    /* entries after key that extend it: the first one tells */
    *live = i < m->n && m->e[i].in_len > kl && memcmp(m->e[i].in, key, kl) == 0 &&
            m->e[i].in[kl] == 0;
    return hit;
}

/* The longest match starting at token i: its entry and length in tokens. */
static const syn_entry *longest(const syn_map *m, tv_arena *a, const tv_tokvec *v, size_t i,
                                size_t *mlen, char **scratch, size_t *scap) {
    const syn_entry *best = NULL;
    size_t kl = 0;
    for (size_t k = i; k < v->len; k++) {
        const tv_token *t = &v->items[k];
        size_t need = kl + 1 + t->term_len;
        if (need > *scap) {
            size_t nc = need * 2 + 64;
            char *nb = tv_arena_alloc(a, nc);
            if (!nb) return best;
            if (kl) memcpy(nb, *scratch, kl);
            *scratch = nb;
            *scap = nc;
        }
        if (k > i) (*scratch)[kl++] = 0;
        memcpy(*scratch + kl, t->term, t->term_len);
        kl += t->term_len;
        bool live = false;
        const syn_entry *e = map_find(m, *scratch, kl, &live);
        if (e) {
            best = e;
            *mlen = k - i + 1;
        }
        if (!live) break;
    }
    return best;
}

/* A SYNONYM token of term [s, s+n) (copied into the arena). */
static tv_status syn_token(tv_arena *a, const char *s, size_t n, tv_token *t) {
    memset(t, 0, sizeof *t);
    char *d = tv_arena_memdup(a, s, n);
    if (!d && n) return TROVE_ENOMEM;
    t->term = d ? d : "";
    t->term_len = (uint32_t)n;
    t->type = TV_TOK_SYNONYM;
    return TROVE_OK;
}

/* The words of output phrase w: count, and the k-th word. */
static size_t phrase_words(const char *s, size_t n) {
    size_t c = 1;
    for (size_t i = 0; i < n; i++) c += s[i] == 0;
    return c;
}
static void phrase_word(const char *s, size_t n, size_t k, const char **ws, size_t *wn) {
    size_t b = 0, idx = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != 0) continue;
        if (idx++ == k) {
            *ws = s + b;
            *wn = i - b;
            return;
        }
        b = i + 1;
    }
    *ws = s;
    *wn = 0;
}

/* ------------------------------------------------------- synonym_graph */

typedef struct gtok {
    int64_t src; /* input token index, or -1: word `word` of output `out` */
    uint32_t out, word;
    int64_t start_node, end_node;
} gtok;

static tv_status graph_apply(tv_arena *a, const syn_cfg *g, tv_tokvec *v) {
    const syn_map *m = g->map;
    tv_tokvec o = {0};
    char *scratch = NULL;
    size_t scap = 0;
    int64_t last_out = -1, next_out = 0;
    gtok *buf = NULL;
    size_t bcap = 0;
    for (size_t i = 0; i < v->len;) {
        size_t len = 0;
        const syn_entry *e = longest(m, a, v, i, &len, &scratch, &scap);
        if (!e) {
            tv_token t = v->items[i++];
            last_out += t.position;
            next_out = last_out + (t.pos_len > 1 ? t.pos_len : 1);
            if (tv_tokvec_push(a, &o, &t)) return TROVE_ENOMEM;
            continue;
        }
        /* bufferOutputTokens */
        size_t words_total = 0;
        for (uint32_t p = 0; p < e->nouts; p++)
            words_total += phrase_words(m->words[e->outs[p]], m->wlens[e->outs[p]]);
        size_t need = words_total + len;
        if (need > bcap) {
            bcap = need * 2;
            buf = tv_arena_alloc(a, bcap * sizeof *buf);
            if (!buf) return TROVE_ENOMEM;
        }
        size_t nb = 0;
        int64_t total = e->keep_orig ? (int64_t)len - 1 : 0;
        for (uint32_t p = 0; p < e->nouts; p++)
            total += (int64_t)phrase_words(m->words[e->outs[p]], m->wlens[e->outs[p]]) - 1;
        int64_t start = next_out, end = start + total + 1, newc = 0;
        for (uint32_t p = 0; p < e->nouts; p++) {
            size_t pw = phrase_words(m->words[e->outs[p]], m->wlens[e->outs[p]]);
            int64_t pend;
            if (pw == 1) {
                pend = end;
            } else {
                pend = next_out + newc + 1;
                newc += (int64_t)pw - 1;
            }
            buf[nb++] = (gtok){-1, p, 0, start, pend};
        }
        if (e->keep_orig) {
            int64_t iend = len == 1 ? end : next_out + newc + 1;
            buf[nb++] = (gtok){(int64_t)i, 0, 0, start, iend};
        }
        next_out = end;
        for (uint32_t p = 0; p < e->nouts; p++) {
            size_t pw = phrase_words(m->words[e->outs[p]], m->wlens[e->outs[p]]);
            if (pw <= 1) continue;
            int64_t ln = buf[p].end_node;
            for (size_t k = 1; k + 1 < pw; k++, ln++)
                buf[nb++] = (gtok){-1, p, (uint32_t)k, ln, ln + 1};
            buf[nb++] = (gtok){-1, p, (uint32_t)(pw - 1), ln, end};
        }
        if (e->keep_orig && len > 1) {
            int64_t ln = buf[e->nouts].end_node;
            for (size_t k = 1; k + 1 < len; k++, ln++)
                buf[nb++] = (gtok){(int64_t)(i + k), 0, 0, ln, ln + 1};
            buf[nb++] = (gtok){(int64_t)(i + len - 1), 0, 0, ln, end};
        }
        /* releaseBufferedToken, for each */
        const tv_token *first = &v->items[i], *lastt = &v->items[i + len - 1];
        for (size_t k = 0; k < nb; k++) {
            tv_token t;
            if (buf[k].src >= 0) {
                t = v->items[buf[k].src];
            } else {
                const char *ws;
                size_t wn;
                uint32_t w = e->outs[buf[k].out];
                phrase_word(m->words[w], m->wlens[w], buf[k].word, &ws, &wn);
                if (syn_token(a, ws, wn, &t)) return TROVE_ENOMEM;
                t.start = first->start;
                t.start16 = first->start16;
                t.end = lastt->end;
                t.end16 = lastt->end16;
            }
            t.position = (uint32_t)(buf[k].start_node - last_out);
            last_out = buf[k].start_node;
            t.pos_len = (uint16_t)(buf[k].end_node - buf[k].start_node);
            if (tv_tokvec_push(a, &o, &t)) return TROVE_ENOMEM;
        }
        i += len;
    }
    o.trailing = v->trailing;
    *v = o;
    return TROVE_OK;
}

/* ------------------------------------------------------------- synonym */

typedef struct slot_out {
    const char *s;
    uint32_t n;
    int64_t end;   /* byte end offset, -1: the slot input's */
    uint32_t end16;
    uint16_t pos_len;
} slot_out;

typedef struct slot {
    slot_out *outs;
    uint32_t count, upto, cap;
    uint32_t pos_incr;
    bool keep_orig, matched, consumed;
} slot;

static tv_status slot_add(tv_arena *a, slot *s, slot_out x) {
    if (s->count == s->cap) {
        uint32_t nc = s->cap ? s->cap * 2 : 4;
        slot_out *n = tv_arena_alloc(a, nc * sizeof *n);
        if (!n) return TROVE_ENOMEM;
        if (s->count) memcpy(n, s->outs, s->count * sizeof *n);
        s->outs = n;
        s->cap = nc;
    }
    s->outs[s->count++] = x;
    return TROVE_OK;
}

static tv_status plain_apply(tv_arena *a, const syn_cfg *g, tv_tokvec *v) {
    const syn_map *m = g->map;
    size_t n = v->len;
    size_t maxw = 1;
    for (size_t w = 0; m->n && w < m->n; w++)
        for (uint32_t p = 0; p < m->e[w].nouts; p++) {
            size_t pw = phrase_words(m->words[m->e[w].outs[p]], m->wlens[m->e[w].outs[p]]);
            if (pw > maxw) maxw = pw;
        }
    size_t nslots = n + maxw + 1;
    slot *sl = tv_arena_calloc(a, nslots, sizeof *sl);
    if (!sl) return TROVE_ENOMEM;
    for (size_t s = 0; s < nslots; s++) sl[s].pos_incr = 1;
    tv_tokvec o = {0};
    char *scratch = NULL;
    size_t scap = 0;
    size_t read = 0, skip = 0;
    for (;;) {
        while (skip) {
            slot *s = &sl[read];
            const tv_token *in = read < n ? &v->items[read] : NULL;
            if (in && !s->consumed && (s->keep_orig || !s->matched)) {
                if (tv_tokvec_push(a, &o, in)) return TROVE_ENOMEM;
                s->consumed = true;
                s->keep_orig = s->matched = false;
                if (s->upto < s->count) s->pos_incr = 0;
                else read++, skip--;
                continue;
            }
            s->consumed = true;
            s->keep_orig = s->matched = false;
            if (s->upto < s->count) {
                slot_out *x = &s->outs[s->upto++];
                tv_token t;
                if (syn_token(a, x->s, x->n, &t)) return TROVE_ENOMEM;
                t.position = s->pos_incr;
                s->pos_incr = 0;
                t.start = in ? in->start : 0;
                t.start16 = in ? in->start16 : 0;
                t.end = x->end >= 0 ? (uint32_t)x->end : in ? in->end : 0;
                t.end16 = x->end >= 0 ? x->end16 : in ? in->end16 : 0;
                t.pos_len = x->pos_len;
                if (tv_tokvec_push(a, &o, &t)) return TROVE_ENOMEM;
                if (s->upto == s->count) read++, skip--;
            } else {
                read++, skip--;
            }
        }
        if (read >= n) {
            /* outputs past the input's end, at the last token's offsets */
            slot *s = read < nslots ? &sl[read] : NULL;
            if (!s || s->upto >= s->count) break;
            slot_out *x = &s->outs[s->upto++];
            tv_token t;
            if (syn_token(a, x->s, x->n, &t)) return TROVE_ENOMEM;
            t.position = s->pos_incr;
            s->pos_incr = 0;
            const tv_token *lt = &v->items[n - 1];
            t.start = lt->start;
            t.start16 = lt->start16;
            t.end = lt->end;
            t.end16 = lt->end16;
            t.pos_len = 1;
            if (tv_tokvec_push(a, &o, &t)) return TROVE_ENOMEM;
            if (s->upto == s->count) read++;
            continue;
        }
        /* parse */
        size_t len = 0;
        const syn_entry *e = longest(m, a, v, read, &len, &scratch, &scap);
        if (!e) {
            skip = 1;
            continue;
        }
        skip = len;
        const tv_token *lastt = &v->items[read + len - 1];
        for (uint32_t p = 0; p < e->nouts; p++) {
            uint32_t w = e->outs[p];
            size_t pw = phrase_words(m->words[w], m->wlens[w]);
            for (size_t k = 0; k < pw; k++) {
                slot_out x;
                size_t wn;
                phrase_word(m->words[w], m->wlens[w], k, &x.s, &wn);
                x.n = (uint32_t)wn;
                if (pw == 1) {
                    x.end = lastt->end;
                    x.end16 = lastt->end16;
                    x.pos_len = (uint16_t)(e->keep_orig ? len : 1);
                } else {
                    x.end = -1;
                    x.end16 = 0;
                    x.pos_len = 1;
                }
                if (slot_add(a, &sl[read + k], x)) return TROVE_ENOMEM;
            }
        }
        for (size_t k = 0; k < len; k++) {
            sl[read + k].keep_orig |= e->keep_orig;
            sl[read + k].matched = true;
        }
    }
    o.trailing = v->trailing;
    *v = o;
    return TROVE_OK;
}

static tv_status syn_apply(tv_arena *a, const void *cfg, tv_tokvec *v) {
    const syn_cfg *g = cfg;
    if (!g->map || g->map->n == 0 || v->len == 0) return TROVE_OK; /* fst == null: as is */
    return g->graph ? graph_apply(a, g, v) : plain_apply(a, g, v);
}

static const char *syn_search_only(const void *cfg) {
    const syn_cfg *g = cfg;
    return g->updateable ? g->name : NULL;
}

const tv_filter_type tv_tf_synonym = {"synonym", synonym_build, syn_apply, syn_chain,
                                      TV_SYN_SKIP, syn_search_only};
/* synonym_graph's per-analyzer factory keeps the default getSynonymFilter
 * (itself), unlike synonym's (IDENTITY_FILTER) */
const tv_filter_type tv_tf_synonym_graph = {"synonym_graph", synonym_graph_build, syn_apply,
                                            syn_chain, TV_SYN_SELF, syn_search_only};
