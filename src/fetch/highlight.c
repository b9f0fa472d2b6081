/*
 * highlight.c — the _search `highlight` option: OpenSearch 3.x's unified
 * (default) and plain highlighters over a hit's _source.
 *
 * Parsing (tv_hl_parse) follows HighlightBuilder / AbstractHighlighterBuilder
 * (ObjectParser "highlight" and "highlight_field"): the same keys, value
 * types and errors ("[l:c] [highlight] unknown field [x]", "... doesn't
 * support values of type: ...", "... failed to parse field [...]" with the
 * setter's message as the cause, "pre_tags are set but post_tags are not
 * set"). Options merge as HighlightBuilder.build does: field options, then
 * the global ones, then the defaults (fragment_size 100,
 * number_of_fragments 5, <em>/</em>, require_field_match true, ...).
 *
 * Binding (tv_hl_bind) is HighlightPhase.contextBuilders: a field name with
 * a wildcard expands over the mapping and keeps only text and keyword
 * fields; an explicit name is kept whatever its type; unmapped names drop
 * out; a name given twice keeps its first place and its last options. The
 * query terms for a field come from the search query (or the field's
 * highlight_query) the way Lucene's QueryVisitor term collector walks it:
 * every bool clause but must_not, dis_max, constant_score, the positive
 * side of boosting; leaves are terms (term, match, multi_match,
 * query_string, terms), phrases (match_phrase, match_phrase_prefix), term
 * automata (prefix, wildcard, regexp, fuzzy) and keyword ranges. With
 * require_field_match only leaves on that field count; without, every
 * field's but _id's.
 *
 * Fragments (tv_hl_write), unified highlighter, as OpenSearch's
 * CustomUnifiedHighlighter / CustomFieldHighlighter / CustomPassageFormatter
 * on Lucene's UnifiedHighlighter with the ANALYSIS offset source and
 * WEIGHT_MATCHES off: the field's _source values are joined with U+0000 and
 * re-analyzed with the field's index analyzer (each value separately,
 * positions continuing after position_increment_gap, offsets after the
 * separator). Matching tokens: terms; automaton-accepted terms; phrase
 * terms only where they form a phrase occurrence (each term highlighted on
 * its own, as without weight matches). Matches are walked in offset order;
 * a match at or past the current passage's end opens a new passage from
 * the break iterator (preceding(start + 1) .. following(start)); passages
 * are scored with Lucene's PassageScorer (k1 1.2, b 0.75, pivot 87) and the
 * best number_of_fragments kept (ties: the earlier passage is dropped
 * first), then printed in text order (or by score with order:score). The
 * break iterator is BoundedBreakIteratorScanner(sentence, word,
 * fragment_size) by default, the plain sentence iterator when
 * fragment_size <= 0, words for boundary_scanner:word, and the value
 * separator for number_of_fragments 0 and for keyword (untokenized)
 * fields. Every offset is in UTF-16 units (Java chars), mapped back to
 * bytes to print.
 *
 * Sentence boundaries are those of java.text.BreakIterator's sentence
 * instance (the JDK's rule-based iterator, Locale.ROOT), for what
 * application text contains, checked against Java 17 on the test strings:
 *   - after U+2029 (paragraph separator);
 *   - after ! ? (and fullwidth ！？, ideographic 。) followed by any more
 *     ! ? . and closing punctuation (" ' ) ] } ’ ” » ›), then any spaces
 *     (tab, LF, CR, FF, U+2028, space separators): always;
 *   - after . (or fullwidth ．) followed by any more periods and closing
 *     punctuation, then at least one space, when the next character is not
 *     a lowercase letter and not a digit ("Mr. Smith" breaks, "e.g. the"
 *     and "pi. 42" do not);
 *   - directly after such a period run (no space) when the next character
 *     is U+0000 (the value separator) or ASCII punctuation other than
 *     closing punctuation, periods, terminators and ',' ("end.Next" and
 *     "3.14" do not break);
 *   - newlines alone never break.
 * Not reproduced: the JDK's quirks on odd inputs (".\n\n" + lowercase
 * breaks in Java; "x.(-" and a text ending in ".\u0000" get extra breaks),
 * combining marks and format characters between the period and the space
 * (Java ignores them), and lowercase letters without a simple uppercase
 * mapping (ß) count as not lowercase here. Word boundaries (no_match_size,
 * the bounded scanner's inner breaks) are UAX #29's (tv_wb_next), which
 * agree with Java's word instance on the same kinds of text.
 *
 * Plain highlighter (type plain): Lucene's Highlighter per value with
 * QueryScorer weights (the boosts; phrase terms only inside a phrase
 * occurrence), TokenGroup, SimpleHTMLFormatter, and SimpleSpanFragmenter
 * (default, "span") or SimpleFragmenter ("simple"), NullFragmenter for
 * number_of_fragments 0; fragments ranked by score (ties: text order),
 * score 0 dropped, as PlainHighlighter does; no_match_size cuts the first
 * value at a token end (unencoded, as OpenSearch does).
 *
 * encoder html escapes " & < > ' / as Lucene's SimpleHTMLEncoder (&quot;
 * &amp; &lt; &gt; &#x27; &#x2F;) in the text, never in the tags.
 *
 * Output: fields with at least one fragment, in java.util.HashMap order of
 * their names (HighlightPhase collects them in a HashMap).
 *
 * Not reproduced, each failing loudly: matched_fields and a
 * boundary_scanner_locale other than root answer 400 naming themselves;
 * type fvh fails in the fetch phase as OpenSearch does on a field without
 * term vectors; on a field mapped with term_vector with_positions_offsets
 * (where OpenSearch's FastVectorHighlighter would run) it answers 400
 * unsupported. trove keeps no term vectors: the unified and plain
 * highlighters re-analyze such fields as any other, which is what their
 * output depends on.
 * Parsed and ignored, as the unified and plain highlighters ignore them:
 * highlight_filter, force_source, phrase_limit, boundary_chars,
 * boundary_max_scan, fragment_offset, options. A phrase with slop > 0
 * answers 400 (Lucene's sloppy span matching is not reproduced). The
 * plain highlighter's term weights are the query boosts (QueryScorer
 * without an IndexReader, as OpenSearch builds it). Alternatives
 * rejected: offsets from the postings (trove stores none; OpenSearch
 * re-analyzes too for fields indexed without offsets).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "query/automaton.h"
#include "query/parse.h"
#include "fetch/highlight.h"
#include "text/text.h"

/* ================================================================ options */

enum { HL_UNIFIED = 0, HL_PLAIN, HL_FVH, HL_UNKNOWN };
enum { BS_UNSET = 0, BS_CHARS, BS_WORD, BS_SENTENCE };

/* set bits */
enum {
    O_PRE = 1u << 0, O_POST = 1u << 1, O_ORDER = 1u << 2, O_FSIZE = 1u << 3, O_NFRAG = 1u << 4,
    O_RFM = 1u << 5, O_BS = 1u << 6, O_TYPE = 1u << 7, O_FRAGMENTER = 1u << 8, O_NOMATCH = 1u << 9,
    O_MAXOFF = 1u << 10, O_QUERY = 1u << 11,
};

typedef struct hl_opts {
    uint32_t set;
    const char *pre, *post; /* the first tag of each list (all highlighters use [0]) */
    bool score_order;
    int32_t fragment_size, nfrags, no_match, max_off;
    bool require_field_match;
    int scanner;
    int type;
    const char *type_name;
    const char *fragmenter;
    const tv_json *query;
} hl_opts;

typedef struct hl_spec {
    const char *name;
    hl_opts o;
} hl_spec;

struct tv_hl {
    hl_opts global;
    bool html;
    hl_spec *fields;
    uint32_t nfields;
};

/* ---------------------------------------------------------- parse errors */

static void linecol(tv_dsl *d, uint32_t off, uint32_t *l, uint32_t *c) {
    *l = *c = 0;
    if (d->src) tv_json_linecol(d->src, d->src_len, off, l, c);
}

static tv_status unknown_field(tv_dsl *d, const char *parser, const tv_json_member *m) {
    uint32_t l, c;
    linecol(d, m->key_off, &l, &c);
    return tv_dsl_error(d, TROVE_EXCONTENT, m->key_off, "[%u:%u] [%s] unknown field [%s]", l, c, parser, m->key);
}

static tv_status bad_type(tv_dsl *d, const char *parser, const tv_json_member *m, const tv_json *v) {
    uint32_t l, c;
    linecol(d, v->off, &l, &c);
    return tv_dsl_error(d, TROVE_EXCONTENT, v->off, "[%u:%u] [%s] %s doesn't support values of type: %s", l, c, parser,
                        m->key, tv_dsl_token_name(v));
}

static tv_status failed_field(tv_dsl *d, const char *parser, const tv_json_member *m, tv_status cause,
                              const char *fmt, ...) TV_PRINTF(5, 6);
static tv_status failed_field(tv_dsl *d, const char *parser, const tv_json_member *m, tv_status cause,
                              const char *fmt, ...) {
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    uint32_t l, c;
    linecol(d, m->val.off, &l, &c);
    tv_dsl_error(d, TROVE_EXCONTENT, m->val.off, "[%u:%u] [%s] failed to parse field [%s]", l, c, parser, m->key);
    return tv_error_cause(d->err, cause, "%s", buf);
}

static bool is_scalar(const tv_json *v) { return v->type != TV_JSON_OBJECT && v->type != TV_JSON_ARRAY; }

/* ObjectParser STRING: a string only. */
static tv_status get_str(tv_dsl *d, const char *parser, const tv_json_member *m, const char **out) {
    if (m->val.type != TV_JSON_STRING) return bad_type(d, parser, m, &m->val);
    *out = m->val.v.s;
    return TROVE_OK;
}

/* ObjectParser INT: a number or a string (Jackson's intValue). */
static tv_status get_int(tv_dsl *d, const char *parser, const tv_json_member *m, int32_t *out) {
    const tv_json *v = &m->val;
    if (!(v->type == TV_JSON_INT || v->type == TV_JSON_UINT || v->type == TV_JSON_DOUBLE || v->type == TV_JSON_STRING))
        return bad_type(d, parser, m, v);
    tv_error inner;
    tv_error_clear(&inner);
    tv_error *saved = d->err;
    d->err = &inner;
    tv_status st = tv_dsl_java_int(d, v, out);
    d->err = saved;
    if (st == TROVE_ENOMEM) return tv_error_set(d->err, st, "out of memory");
    if (st) return failed_field(d, parser, m, inner.code ? inner.code : st, "%s", inner.reason);
    return TROVE_OK;
}

/* ObjectParser BOOLEAN: true/false or their strings. */
static tv_status get_bool(tv_dsl *d, const char *parser, const tv_json_member *m, bool *out) {
    const tv_json *v = &m->val;
    if (v->type == TV_JSON_TRUE || v->type == TV_JSON_FALSE) { *out = v->type == TV_JSON_TRUE; return TROVE_OK; }
    if (v->type != TV_JSON_STRING) return bad_type(d, parser, m, v);
    if (tv_streq(v->v.s, v->len, "true")) { *out = true; return TROVE_OK; }
    if (tv_streq(v->v.s, v->len, "false")) { *out = false; return TROVE_OK; }
    return failed_field(d, parser, m, TROVE_EARG, "Failed to parse value [%s] as only [true] or [false] are allowed.", v->v.s);
}

/* ObjectParser STRING_ARRAY: an array of scalars or one string; the first
 * element is what the highlighters use. */
static tv_status get_tags(tv_dsl *d, const char *parser, const tv_json_member *m, const char **out) {
    const tv_json *v = &m->val;
    if (v->type == TV_JSON_STRING) { *out = v->v.s; return TROVE_OK; }
    if (v->type != TV_JSON_ARRAY) return bad_type(d, parser, m, v);
    *out = NULL;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json *e = &v->v.items[i];
        const char *s;
        size_t n;
        if (!is_scalar(e) || e->type == TV_JSON_NULL || !tv_dsl_scalar_text(e, &s, &n))
            return failed_field(d, parser, m, TROVE_EXCONTENT, "[%s] failed to parse", m->key);
        if (i == 0 && !(*out = tv_arena_strndup(d->arena, s, n))) return tv_error_oom(d->err);
    }
    /* an empty list: OpenSearch then fails at preTags()[0] in the fetch
     * phase; "" keeps the response defined */
    if (!*out) *out = "";
    return TROVE_OK;
}

static bool ieq(const char *a, size_t n, const char *lit) {
    size_t l = strlen(lit);
    if (n != l) return false;
    for (size_t i = 0; i < n; i++) {
        char x = a[i];
        if (x >= 'A' && x <= 'Z') x = (char)(x + 32);
        if (x != lit[i]) return false;
    }
    return true;
}

/* One option common to the top level and the fields
 * (AbstractHighlighterBuilder.setupParser); false when k is not one. */
static bool common_opt(tv_dsl *d, const char *parser, const tv_json_member *m, hl_opts *o, tv_status *st) {
    const char *k = m->key;
    size_t kl = m->key_len;
    const char *s = NULL;
    bool b;
    int32_t n;
    *st = TROVE_OK;
    if (tv_streq(k, kl, "pre_tags")) { if (!(*st = get_tags(d, parser, m, &o->pre))) o->set |= O_PRE; }
    else if (tv_streq(k, kl, "post_tags")) { if (!(*st = get_tags(d, parser, m, &o->post))) o->set |= O_POST; }
    else if (tv_streq(k, kl, "order")) {
        if (!(*st = get_str(d, parser, m, &s))) { o->score_order = ieq(s, strlen(s), "score"); o->set |= O_ORDER; }
    } else if (tv_streq(k, kl, "highlight_filter") || tv_streq(k, kl, "force_source")) *st = get_bool(d, parser, m, &b);
    else if (tv_streq(k, kl, "fragment_size")) { if (!(*st = get_int(d, parser, m, &o->fragment_size))) o->set |= O_FSIZE; }
    else if (tv_streq(k, kl, "number_of_fragments")) { if (!(*st = get_int(d, parser, m, &o->nfrags))) o->set |= O_NFRAG; }
    else if (tv_streq(k, kl, "require_field_match")) {
        if (!(*st = get_bool(d, parser, m, &o->require_field_match))) o->set |= O_RFM;
    } else if (tv_streq(k, kl, "boundary_scanner")) {
        if (!(*st = get_str(d, parser, m, &s))) {
            size_t sl = strlen(s);
            if (ieq(s, sl, "chars")) o->scanner = BS_CHARS;
            else if (ieq(s, sl, "word")) o->scanner = BS_WORD;
            else if (ieq(s, sl, "sentence")) o->scanner = BS_SENTENCE;
            else {
                /* Enum.valueOf(s.toUpperCase(ROOT)) */
                char up[128];
                size_t i = 0;
                for (; i < sl && i < sizeof up - 1; i++) up[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
                up[i] = '\0';
                *st = failed_field(d, parser, m, TROVE_EARG,
                                   "No enum constant org.opensearch.search.fetch.subphase.highlight.HighlightBuilder.BoundaryScannerType.%s", up);
            }
            if (!*st) o->set |= O_BS;
        }
    } else if (tv_streq(k, kl, "boundary_max_scan") || tv_streq(k, kl, "phrase_limit")) *st = get_int(d, parser, m, &n);
    else if (tv_streq(k, kl, "boundary_chars")) *st = get_str(d, parser, m, &s);
    else if (tv_streq(k, kl, "boundary_scanner_locale")) {
        if (!(*st = get_str(d, parser, m, &s)) && *s && !ieq(s, strlen(s), "root") && !ieq(s, strlen(s), "und"))
            *st = tv_dsl_error(d, TROVE_EUNSUPPORTED, m->val.off, "[highlight] boundary_scanner_locale [%s] is not supported by trove", s);
    } else if (tv_streq(k, kl, "type")) {
        if (!(*st = get_str(d, parser, m, &s))) {
            o->type_name = s;
            o->type = !strcmp(s, "unified") ? HL_UNIFIED : !strcmp(s, "plain") ? HL_PLAIN : !strcmp(s, "fvh") ? HL_FVH : HL_UNKNOWN;
            o->set |= O_TYPE;
        }
    } else if (tv_streq(k, kl, "fragmenter")) { if (!(*st = get_str(d, parser, m, &o->fragmenter))) o->set |= O_FRAGMENTER; }
    else if (tv_streq(k, kl, "no_match_size")) { if (!(*st = get_int(d, parser, m, &o->no_match))) o->set |= O_NOMATCH; }
    else if (tv_streq(k, kl, "max_analyzer_offset")) { if (!(*st = get_int(d, parser, m, &o->max_off))) o->set |= O_MAXOFF; }
    else if (tv_streq(k, kl, "options")) {
        if (m->val.type != TV_JSON_OBJECT) *st = bad_type(d, parser, m, &m->val);
    } else if (tv_streq(k, kl, "highlight_query")) {
        if (m->val.type != TV_JSON_OBJECT) *st = bad_type(d, parser, m, &m->val);
        else { o->query = &m->val; o->set |= O_QUERY; }
    } else return false;
    return true;
}

static tv_status post_check(tv_dsl *d, const hl_opts *o, uint32_t off) {
    if ((o->set & O_PRE) && !(o->set & O_POST))
        return tv_dsl_error(d, TROVE_EPARSE, off, "pre_tags are set but post_tags are not set");
    return TROVE_OK;
}

static tv_status parse_field(tv_dsl *d, const char *name, const tv_json *v, hl_spec *out) {
    memset(out, 0, sizeof *out);
    out->name = name;
    if (v->type != TV_JSON_OBJECT) {
        uint32_t l, c;
        linecol(d, v->off, &l, &c);
        return tv_dsl_error(d, TROVE_EXCONTENT, v->off,
                            "[%u:%u] [fields] can be a single object with any number of fields or an array where each entry is an object with a single field",
                            l, c);
    }
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        tv_status st;
        int32_t n;
        if (common_opt(d, "highlight_field", m, &out->o, &st)) { if (st) return st; continue; }
        if (tv_streq(m->key, m->key_len, "fragment_offset")) {
            if ((st = get_int(d, "highlight_field", m, &n))) return st;
        } else if (tv_streq(m->key, m->key_len, "matched_fields")) {
            return tv_dsl_error(d, TROVE_EUNSUPPORTED, m->val.off, "[highlight] matched_fields is not supported by trove");
        } else {
            return unknown_field(d, "highlight_field", m);
        }
    }
    return post_check(d, &out->o, v->off);
}

/* The inner error of a field becomes the cause of "[highlight] failed to
 * parse field [fields]" (ObjectParser.parseValue wraps it). */
static tv_status wrap_fields(tv_dsl *d, const tv_json_member *fm, tv_status st) {
    if (st == TROVE_ENOMEM || st == TROVE_EUNSUPPORTED) return st;
    char msg[sizeof d->err->reason];
    snprintf(msg, sizeof msg, "%s", d->err->reason);
    tv_status code = d->err->code;
    uint32_t l, c;
    linecol(d, fm->val.off, &l, &c);
    tv_dsl_error(d, TROVE_EXCONTENT, fm->val.off, "[%u:%u] [highlight] failed to parse field [fields]", l, c);
    return tv_error_cause(d->err, code ? code : st, "%s", msg);
}

static tv_status parse_fields(tv_dsl *d, const tv_json_member *fm, tv_hl *hl) {
    const tv_json *v = &fm->val;
    uint32_t n = v->len;
    if (v->type != TV_JSON_OBJECT && v->type != TV_JSON_ARRAY) return bad_type(d, "highlight", fm, v);
    hl->fields = tv_arena_calloc(d->arena, n ? n : 1, sizeof *hl->fields);
    if (!hl->fields) return tv_error_oom(d->err);
    for (uint32_t i = 0; i < n; i++) {
        tv_status st;
        if (v->type == TV_JSON_OBJECT) {
            st = parse_field(d, v->v.members[i].key, &v->v.members[i].val, &hl->fields[i]);
        } else {
            const tv_json *e = &v->v.items[i];
            if (e->type != TV_JSON_OBJECT || e->len != 1) {
                uint32_t l, c;
                linecol(d, e->off, &l, &c);
                tv_dsl_error(d, TROVE_EXCONTENT, e->off,
                             "[%u:%u] [fields] can be a single object with any number of fields or an array where each entry is an object with a single field",
                             l, c);
                st = TROVE_EXCONTENT;
            } else {
                st = parse_field(d, e->v.members[0].key, &e->v.members[0].val, &hl->fields[i]);
            }
        }
        if (st) return wrap_fields(d, fm, st);
    }
    hl->nfields = n;
    return TROVE_OK;
}

tv_status tv_hl_parse(tv_dsl *d, const tv_json *v, tv_hl **out) {
    if (v->type != TV_JSON_OBJECT)
        return tv_dsl_error(d, TROVE_EPARSE, v->off, "Unknown key for a %s in [highlight].", tv_dsl_token_name(v));
    tv_hl *hl = tv_arena_calloc(d->arena, 1, sizeof *hl);
    if (!hl) return tv_error_oom(d->err);
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        tv_status st;
        const char *s = NULL;
        if (common_opt(d, "highlight", m, &hl->global, &st)) { if (st) return st; continue; }
        if (tv_streq(m->key, m->key_len, "tags_schema")) {
            if ((st = get_str(d, "highlight", m, &s))) return st;
            if (!strcmp(s, "styled")) {
                hl->global.pre = "<em class=\"hlt1\">";
                hl->global.post = "</em>";
            } else if (!strcmp(s, "default")) {
                hl->global.pre = "<em>";
                hl->global.post = "</em>";
            } else {
                return failed_field(d, "highlight", m, TROVE_EARG, "Unknown tag schema [%s]", s);
            }
            hl->global.set |= O_PRE | O_POST;
        } else if (tv_streq(m->key, m->key_len, "encoder")) {
            if ((st = get_str(d, "highlight", m, &s))) return st;
            hl->html = !strcmp(s, "html");
        } else if (tv_streq(m->key, m->key_len, "fields")) {
            if ((st = parse_fields(d, m, hl))) return st;
        } else {
            return unknown_field(d, "highlight", m);
        }
    }
    tv_status st = post_check(d, &hl->global, v->off);
    if (st) return st;
    *out = hl;
    return TROVE_OK;
}

/* ================================================================ binding */

enum { LK_TERM, LK_MULTI, LK_RANGE, LK_PHRASE };

typedef struct hl_leaf {
    uint8_t kind;
    bool prefix_last; /* phrase_prefix: the last term is a prefix */
    float weight;     /* product of the boosts down to the leaf */
    const char *term; /* LK_TERM */
    uint32_t len;
    const tv_query *q; /* LK_MULTI, LK_RANGE, LK_PHRASE */
} hl_leaf;

typedef TV_VEC(hl_leaf) leaf_vec;

typedef struct hl_field {
    const char *name; /* the response's key: the field's full name */
    const tv_field *f;
    hl_opts o;        /* resolved */
    hl_leaf *leaves;
    uint32_t nleaves;
    bool has_phrase;
} hl_field;

struct tv_hl_target {
    const tv_hl *hl;
    const char *index;
    int64_t max_offset; /* index.highlight.max_analyzed_offset */
    hl_field *fields;   /* LinkedHashMap order */
    uint32_t nfields;
    uint32_t *order;    /* HashMap iteration order of fields */
};

static bool field_ok(const tv_query *q, const tv_field *f, bool rfm) {
    if (rfm) return q->field && f && (q->field == f || (q->field->path_len == f->path_len && !memcmp(q->field->path, f->path, f->path_len)));
    return q->field_id != TV_FIELD_ID;
}

static tv_status collect(const tv_query *q, const tv_field *f, bool rfm, float boost, leaf_vec *out, int depth) {
    if (!q || depth > 200) return TROVE_OK;
    float w = boost * q->boost;
    hl_leaf l;
    memset(&l, 0, sizeof l);
    l.weight = w;
    l.q = q;
    switch ((tv_qkind)q->kind) {
    case TV_Q_TERM:
        if (!field_ok(q, f, rfm)) return TROVE_OK;
        l.kind = LK_TERM;
        l.term = q->u.term.term;
        l.len = q->u.term.len;
        return tv_vec_push(out, l) ? TROVE_ENOMEM : TROVE_OK;
    case TV_Q_TERM_SET:
        if (!field_ok(q, f, rfm)) return TROVE_OK;
        for (uint32_t i = 0; i < q->u.set.nterms; i++) {
            l.kind = LK_TERM;
            l.term = q->u.set.terms[i].term;
            l.len = q->u.set.terms[i].len;
            if (tv_vec_push(out, l)) return TROVE_ENOMEM;
        }
        return TROVE_OK;
    case TV_Q_PHRASE:
    case TV_Q_PHRASE_PREFIX:
        if (!field_ok(q, f, rfm) || !q->u.phrase.nterms) return TROVE_OK;
        /* Lucene's sloppy span matching is not reproduced: refused, not
         * approximated */
        if (q->u.phrase.slop > 0) return TROVE_EUNSUPPORTED;
        l.kind = LK_PHRASE;
        l.prefix_last = q->kind == TV_Q_PHRASE_PREFIX;
        return tv_vec_push(out, l) ? TROVE_ENOMEM : TROVE_OK;
    case TV_Q_MULTI_TERM:
        if (!field_ok(q, f, rfm)) return TROVE_OK;
        l.kind = LK_MULTI;
        return tv_vec_push(out, l) ? TROVE_ENOMEM : TROVE_OK;
    case TV_Q_RANGE_TERM:
        if (!field_ok(q, f, rfm)) return TROVE_OK;
        l.kind = LK_RANGE;
        return tv_vec_push(out, l) ? TROVE_ENOMEM : TROVE_OK;
    case TV_Q_BOOL: {
        tv_status st = TROVE_OK;
        for (uint32_t i = 0; i < q->u.boolq.nmust && !st; i++) st = collect(q->u.boolq.must[i], f, rfm, w, out, depth + 1);
        for (uint32_t i = 0; i < q->u.boolq.nshould && !st; i++) st = collect(q->u.boolq.should[i], f, rfm, w, out, depth + 1);
        for (uint32_t i = 0; i < q->u.boolq.nfilter && !st; i++) st = collect(q->u.boolq.filter[i], f, rfm, w, out, depth + 1);
        return st;
    }
    case TV_Q_DISMAX: {
        tv_status st = TROVE_OK;
        for (uint32_t i = 0; i < q->u.dismax.nsubs && !st; i++) st = collect(q->u.dismax.subs[i], f, rfm, w, out, depth + 1);
        return st;
    }
    case TV_Q_CONST: return collect(q->u.cnst.inner, f, rfm, w, out, depth + 1);
    case TV_Q_BOOSTING: return collect(q->u.boosting.positive, f, rfm, w, out, depth + 1);
    default: return TROVE_OK;
    }
}

static void merge_opts(hl_opts *dst, const hl_opts *src) {
    uint32_t add = src->set & ~dst->set;
    if (add & O_PRE) dst->pre = src->pre;
    if (add & O_POST) dst->post = src->post;
    if (add & O_ORDER) dst->score_order = src->score_order;
    if (add & O_FSIZE) dst->fragment_size = src->fragment_size;
    if (add & O_NFRAG) dst->nfrags = src->nfrags;
    if (add & O_RFM) dst->require_field_match = src->require_field_match;
    if (add & O_BS) dst->scanner = src->scanner;
    if (add & O_TYPE) { dst->type = src->type; dst->type_name = src->type_name; }
    if (add & O_FRAGMENTER) dst->fragmenter = src->fragmenter;
    if (add & O_NOMATCH) dst->no_match = src->no_match;
    if (add & O_MAXOFF) dst->max_off = src->max_off;
    if (add & O_QUERY) dst->query = src->query;
    dst->set |= add;
}

static bool is_wild(const char *s) { return strchr(s, '*') != NULL; }

tv_status tv_hl_bind(tv_dsl *d, const tv_hl *hl, const tv_search_target *t, const tv_query *q,
                     tv_hl_target **out) {
    tv_hl_target *ht = tv_arena_calloc(d->arena, 1, sizeof *ht);
    if (!ht) return tv_error_oom(d->err);
    ht->hl = hl;
    ht->index = t->index ? t->index : "";
    ht->max_offset = t->max_analyzed_offset > 0 ? t->max_analyzed_offset : 1000000;
    hl_opts defaults;
    memset(&defaults, 0, sizeof defaults);
    defaults.set = O_PRE | O_POST | O_ORDER | O_FSIZE | O_NFRAG | O_RFM | O_NOMATCH;
    defaults.pre = "<em>";
    defaults.post = "</em>";
    defaults.fragment_size = 100;
    defaults.nfrags = 5;
    defaults.require_field_match = true;
    hl_opts global = hl->global;
    merge_opts(&global, &defaults);
    /* highlight_query: built once per option set (HighlightBuilder.build) */
    tv_query *gq = NULL;
    tv_status st;
    if (global.query) {
        if ((st = tv_dsl_parse_query(d, global.query, &gq)) || (st = tv_query_rewrite(&gq, d->arena)))
            return st == TROVE_ENOMEM ? tv_error_oom(d->err) : st;
    }
    const tv_mapping *mp = d->mapping;
    size_t cap = 0;
    for (uint32_t i = 0; i < hl->nfields; i++) {
        size_t n = 1;
        if (mp && is_wild(hl->fields[i].name)) n = tv_mapping_match_names(mp, hl->fields[i].name, strlen(hl->fields[i].name), NULL, 0);
        cap += n;
    }
    ht->fields = tv_arena_calloc(d->arena, cap ? cap : 1, sizeof *ht->fields);
    if (!ht->fields) return tv_error_oom(d->err);
    for (uint32_t i = 0; i < hl->nfields; i++) {
        const hl_spec *sp = &hl->fields[i];
        hl_opts o = sp->o;
        merge_opts(&o, &global);
        tv_query *fq = gq;
        if ((sp->o.set & O_QUERY) && sp->o.query) {
            if ((st = tv_dsl_parse_query(d, sp->o.query, &fq)) || (st = tv_query_rewrite(&fq, d->arena)))
                return st == TROVE_ENOMEM ? tv_error_oom(d->err) : st;
        }
        const tv_query *hq = fq ? fq : q;
        const tv_field **cands = NULL;
        size_t nc = 0;
        bool wild = is_wild(sp->name);
        if (!mp) continue;
        if (wild) {
            size_t total = tv_mapping_match_names(mp, sp->name, strlen(sp->name), NULL, 0);
            cands = tv_arena_calloc(d->arena, total ? total : 1, sizeof *cands);
            if (!cands) return tv_error_oom(d->err);
            nc = tv_mapping_match_names(mp, sp->name, strlen(sp->name), cands, total);
            if (nc > total) nc = total;
        } else {
            const tv_field *f = tv_mapping_field_or_alias(mp, sp->name, strlen(sp->name));
            cands = tv_arena_alloc(d->arena, sizeof *cands);
            if (!cands) return tv_error_oom(d->err);
            if (f) cands[nc++] = f;
        }
        for (size_t k = 0; k < nc; k++) {
            /* a field alias highlights its target under its own name */
            const tv_field *named = cands[k], *f = tv_field_resolve(named);
            if (f->type == TV_FT_OBJECT) continue;
            if (wild && f->type != TV_FT_TEXT && f->type != TV_FT_KEYWORD) continue;
            /* fvh cannot highlight a field without term vectors: a
             * wildcard skips it (canHighlight), an explicit name fails
             * in the fetch phase */
            bool tv_po = f->type == TV_FT_TEXT && (f->term_vector & (TV_TV_POSITIONS | TV_TV_OFFSETS)) ==
                                                       (TV_TV_POSITIONS | TV_TV_OFFSETS);
            if (o.type == HL_FVH && tv_po) /* FastVectorHighlighter would run: not reproduced */
                return tv_error_set(d->err, TROVE_EUNSUPPORTED,
                                    "the [fvh] highlighter on field [%s] is not supported by trove", named->path);
            if (wild && o.type == HL_FVH) continue;
            leaf_vec lv = {0};
            if ((st = collect(hq, f, o.require_field_match, 1.0f, &lv, 0))) {
                tv_vec_fini(&lv);
                if (st == TROVE_EUNSUPPORTED)
                    return tv_error_set(d->err, st, "highlighting a phrase with [slop] greater than 0 is not supported by trove");
                return tv_error_oom(d->err);
            }
            hl_field hf;
            memset(&hf, 0, sizeof hf);
            hf.name = named->path;
            hf.f = f;
            hf.o = o;
            if (lv.len) {
                hf.leaves = tv_arena_alloc(d->arena, lv.len * sizeof *hf.leaves);
                if (!hf.leaves) { tv_vec_fini(&lv); return tv_error_oom(d->err); }
                memcpy(hf.leaves, lv.items, lv.len * sizeof *hf.leaves);
                hf.nleaves = (uint32_t)lv.len;
                for (size_t j = 0; j < lv.len; j++) hf.has_phrase |= lv.items[j].kind == LK_PHRASE;
            }
            tv_vec_fini(&lv);
            uint32_t j = 0;
            while (j < ht->nfields && strcmp(ht->fields[j].name, hf.name) != 0) j++;
            ht->fields[j] = hf; /* a repeated name keeps its place, takes the new options */
            if (j == ht->nfields) ht->nfields++;
        }
    }
    ht->order = tv_arena_alloc(d->arena, (ht->nfields + 1) * sizeof *ht->order);
    const char **names = tv_arena_alloc(d->arena, (ht->nfields + 1) * sizeof *names);
    if (!ht->order || !names) return tv_error_oom(d->err);
    for (uint32_t i = 0; i < ht->nfields; i++) names[i] = ht->fields[i].name;
    tv_java_hashmap_order(names, ht->nfields, ht->order);
    *out = ht;
    return TROVE_OK;
}

/* ================================================================ text */

/* The content being highlighted: UTF-8 bytes with a UTF-16 index. */
typedef struct text {
    const char *s;
    uint32_t n;    /* bytes */
    uint32_t n16;  /* UTF-16 units */
    uint32_t *u2b; /* n16 + 1: byte offset of each unit */
    uint32_t *cps; /* code points, ncp */
    uint32_t *cpu; /* ncp + 1: UTF-16 offset of each code point */
    uint32_t ncp;
    uint32_t *wb;  /* word boundaries (UTF-16), lazily */
    uint32_t nwb;
} text;

static tv_status text_init(text *t, tv_arena *a, const char *s, size_t n) {
    memset(t, 0, sizeof *t);
    t->s = s;
    t->n = (uint32_t)n;
    t->u2b = tv_arena_alloc(a, (n * 2 + 2) * sizeof *t->u2b);
    t->cps = tv_arena_alloc(a, (n + 1) * sizeof *t->cps);
    t->cpu = tv_arena_alloc(a, (n + 2) * sizeof *t->cpu);
    if (!t->u2b || !t->cps || !t->cpu) return TROVE_ENOMEM;
    const uint8_t *p = (const uint8_t *)s, *end = p + n;
    uint32_t u = 0, b = 0, c = 0;
    while (p < end) {
        uint32_t cp;
        size_t k = tv_utf8_decode(p, end, &cp);
        t->cps[c] = cp;
        t->cpu[c++] = u;
        t->u2b[u++] = b;
        if (cp >= 0x10000) t->u2b[u++] = b;
        p += k;
        b += (uint32_t)k;
    }
    t->u2b[u] = b;
    t->cpu[c] = u;
    t->n16 = u;
    t->ncp = c;
    return TROVE_OK;
}

static tv_status text_words(text *t, tv_arena *a) {
    if (t->wb) return TROVE_OK;
    t->wb = tv_arena_alloc(a, (t->ncp + 2) * sizeof *t->wb);
    if (!t->wb) return TROVE_ENOMEM;
    uint32_t n = 0, u = 0;
    size_t pos = 0;
    const uint8_t *p = (const uint8_t *)t->s, *end = p + t->n;
    t->wb[n++] = 0;
    while (pos < t->n) {
        size_t nx = tv_wb_next(t->s, t->n, pos);
        if (nx <= pos) nx = pos + 1;
        while (pos < nx && pos < t->n) {
            uint32_t cp;
            pos += tv_utf8_decode(p + pos, end, &cp);
            u += cp >= 0x10000 ? 2 : 1;
        }
        t->wb[n++] = u;
    }
    t->nwb = n;
    return TROVE_OK;
}

/* A sorted boundary list as a java.text.BreakIterator. */
typedef struct bounds {
    const uint32_t *b;
    uint32_t n;
} bounds;

/* last boundary < off, or -1 */
static int64_t b_preceding(const bounds *bs, int64_t off) {
    uint32_t lo = 0, hi = bs->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if ((int64_t)bs->b[mid] < off) lo = mid + 1;
        else hi = mid;
    }
    return lo == 0 ? -1 : (int64_t)bs->b[lo - 1];
}

/* first boundary > off, or -1 */
static int64_t b_following(const bounds *bs, int64_t off) {
    uint32_t lo = 0, hi = bs->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if ((int64_t)bs->b[mid] <= off) lo = mid + 1;
        else hi = mid;
    }
    return lo == bs->n ? -1 : (int64_t)bs->b[lo];
}

static bool s_space(uint32_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x2028 || c == 0xa0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200a) || c == 0x202f || c == 0x205f || c == 0x3000;
}
static bool s_term(uint32_t c) { return c == '!' || c == '?' || c == 0x3002 || c == 0xff01 || c == 0xff1f; }
static bool s_period(uint32_t c) { return c == '.' || c == 0xff0e; }
static bool s_close(uint32_t c) {
    return c == '"' || c == '\'' || c == ')' || c == ']' || c == '}' || c == 0x2019 || c == 0x201d || c == 0xbb || c == 0x203a;
}
static bool s_digit(uint32_t c) { return c >= '0' && c <= '9'; }
static bool s_lower(uint32_t c) {
    if (c < 0x80) return c >= 'a' && c <= 'z';
    uint8_t u8[4];
    size_t k = tv_utf8_encode(c, u8);
    tv_buf up;
    tv_buf_init(&up);
    tv_utf8_upper((const char *)u8, k, &up);
    bool lower = !up.oom && (up.len != k || memcmp(up.data, u8, k) != 0);
    tv_buf_fini(&up);
    return lower;
}
static bool s_breaks_directly(uint32_t c) {
    if (c == 0) return true;
    if (c >= 0x80) return false;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || s_digit(c)) return false;
    return !(s_space(c) || c == ',' || s_close(c) || s_period(c) || s_term(c));
}

/* Sentence boundaries (UTF-16 offsets): see the rules at the top. */
static tv_status sentence_bounds(const text *t, tv_arena *a, bounds *out) {
    uint32_t *b = tv_arena_alloc(a, (t->ncp + 2) * sizeof *b);
    if (!b) return TROVE_ENOMEM;
    uint32_t n = 0, i = 0;
    const uint32_t *c = t->cps;
    b[n++] = 0;
#define PUSH(x) do { uint32_t x_ = (x); if (x_ > b[n - 1]) b[n++] = x_; } while (0)
    while (i < t->ncp) {
        if (c[i] == 0) {
            /* SplittingBreakIterator: each value is its own text, so the
             * separator ends one and the next starts after it */
            PUSH(t->cpu[i]);
            PUSH(t->cpu[i + 1]);
            i++;
            continue;
        }
        if (c[i] == 0x2029) {
            i++;
            if (i < t->ncp) PUSH(t->cpu[i]);
            continue;
        }
        if (s_term(c[i])) {
            uint32_t j = i + 1;
            while (j < t->ncp && (s_term(c[j]) || s_period(c[j]) || s_close(c[j]))) j++;
            while (j < t->ncp && s_space(c[j])) j++;
            if (j < t->ncp) PUSH(t->cpu[j]);
            i = j;
            continue;
        }
        if (s_period(c[i])) {
            uint32_t j = i + 1;
            while (j < t->ncp && (s_period(c[j]) || s_close(c[j]))) j++;
            uint32_t k = j;
            while (k < t->ncp && s_space(c[k])) k++;
            if (k < t->ncp) {
                if (k > j) {
                    if (!s_lower(c[k]) && !s_digit(c[k])) PUSH(t->cpu[k]);
                } else if (s_breaks_directly(c[j])) {
                    PUSH(t->cpu[j]);
                }
            }
            i = k > j ? k : j;
            continue;
        }
        i++;
    }
    if (t->n16 > 0) PUSH(t->n16);
#undef PUSH
    out->b = b;
    out->n = n;
    return TROVE_OK;
}

/* Boundaries at 0, at and after each U+0000, and at the end
 * (CustomSeparatorBreakIterator inside SplittingBreakIterator: each
 * value is one passage). */
static tv_status sep_bounds(const text *t, tv_arena *a, bounds *out) {
    uint32_t *b = tv_arena_alloc(a, (2 * t->ncp + 2) * sizeof *b);
    if (!b) return TROVE_ENOMEM;
    uint32_t n = 0;
    b[n++] = 0;
    for (uint32_t i = 0; i < t->ncp; i++) {
        if (t->cps[i] != 0) continue;
        if (t->cpu[i] > b[n - 1]) b[n++] = t->cpu[i];
        if (t->cpu[i + 1] > b[n - 1]) b[n++] = t->cpu[i + 1];
    }
    if (t->n16 > b[n - 1]) b[n++] = t->n16;
    out->b = b;
    out->n = n;
    return TROVE_OK;
}

/* BoundedBreakIteratorScanner over sentence (main) and word (inner)
 * boundaries, as the unified highlighter calls it: preceding(start + 1)
 * then following(start), with increasing offsets. */
typedef struct bounded {
    bounds main, inner;
    int64_t max_len;
    int64_t lim; /* the end of the current value: main boundaries past it are DONE */
    int64_t last_preceding, win_start, win_end, in_start, in_end;
} bounded;

static int64_t bounded_preceding(bounded *s, int64_t off) {
    if (off > s->win_start && off < s->win_end) {
        s->in_start = s->in_end;
        s->in_end = s->win_end;
    } else {
        s->win_start = s->in_start = b_preceding(&s->main, off);
        s->win_end = s->in_end = b_following(&s->main, off - 1);
        while (s->in_end - s->in_start < s->max_len) {
            int64_t ne = b_following(&s->main, s->in_end);
            if (ne > s->lim) ne = -1;
            if (ne == -1 || ne - s->in_start > s->max_len) break;
            s->win_end = s->in_end = ne;
        }
    }
    if (s->in_end - s->in_start > s->max_len) {
        if (off - s->max_len > s->in_start) {
            int64_t p = b_preceding(&s->inner, off - s->max_len);
            if (p > s->in_start) s->in_start = p;
        }
        int64_t remaining = s->max_len - (off - s->in_start);
        if (remaining < 0) remaining = 0;
        if (off + remaining < s->win_end) {
            int64_t f = b_following(&s->inner, off + remaining);
            s->in_end = f == -1 || f > s->win_end ? s->win_end : f;
        }
    }
    s->last_preceding = off - 1;
    return s->in_start;
}

/* ---------------------------------------------------------- the encoder */

static void put_text(tv_buf *b, const char *s, size_t n, bool html) {
    if (!html) { tv_buf_append(b, s, n); return; }
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rep = NULL;
        switch (s[i]) {
        case '"': rep = "&quot;"; break;
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '\'': rep = "&#x27;"; break;
        case '/': rep = "&#x2F;"; break;
        default: break;
        }
        if (!rep) continue;
        tv_buf_append(b, s + from, i - from);
        tv_buf_puts(b, rep);
        from = i + 1;
    }
    tv_buf_append(b, s + from, n - from);
}

/* the UTF-16 range [a, b) of t, encoded */
static void put_range(tv_buf *out, const text *t, int64_t a, int64_t b, bool html) {
    if (a < 0) a = 0;
    if (b > t->n16) b = t->n16;
    if (b <= a) return;
    put_text(out, t->s + t->u2b[a], t->u2b[b] - t->u2b[a], html);
}

/* ============================================================ matching */

static bool has_prefix(const char *t, size_t tl, const char *p, size_t pl) { return tl >= pl && memcmp(t, p, pl) == 0; }

static bool ci_eq(const char *a, size_t an, const char *b, size_t bn) {
    if (an != bn) return false;
    for (size_t i = 0; i < an; i++) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x = (char)(x + 32);
        if (y >= 'A' && y <= 'Z') y = (char)(y + 32);
        if (x != y) return false;
    }
    return true;
}

/* What the term enumeration of exec.c accepts for a matcher. */
static bool matcher_accepts(const tv_term_matcher *m, const char *t, size_t tl) {
    if (m->prefix && !m->case_insensitive && !has_prefix(t, tl, m->prefix, m->prefix_len)) return false;
    if (m->case_insensitive) {
        if (m->exact && !ci_eq(t, tl, m->prefix, m->prefix_len)) return false;
    } else if (m->exact && tl != m->prefix_len) {
        return false;
    }
    if (m->automaton && !m->case_insensitive) return tv_automaton_run(m->automaton, t, tl);
    if (m->accept) return m->accept(m->state, t, tl);
    return true;
}

static int bytes_cmp(const char *a, size_t an, const char *b, size_t bn) {
    int c = memcmp(a, b, an < bn ? an : bn);
    if (c) return c;
    return an < bn ? -1 : an > bn ? 1 : 0;
}

static bool range_accepts(const tv_query *q, const char *t, size_t tl) {
    if (q->u.trange.lo) {
        int c = bytes_cmp(t, tl, q->u.trange.lo, q->u.trange.lo_len);
        if (c < 0 || (c == 0 && !q->u.trange.lo_incl)) return false;
    }
    if (q->u.trange.hi) {
        int c = bytes_cmp(t, tl, q->u.trange.hi, q->u.trange.hi_len);
        if (c > 0 || (c == 0 && !q->u.trange.hi_incl)) return false;
    }
    return true;
}

/* The weight a token gets from the position-insensitive leaves (0: none). */
static float token_weight(const hl_field *hf, const tv_token *tk) {
    float w = 0;
    for (uint32_t i = 0; i < hf->nleaves; i++) {
        const hl_leaf *l = &hf->leaves[i];
        bool ok = false;
        if (l->kind == LK_TERM) ok = l->len == tk->term_len && !memcmp(l->term, tk->term, l->len);
        else if (l->kind == LK_MULTI) ok = matcher_accepts(&l->q->u.multi.m, tk->term, tk->term_len);
        else if (l->kind == LK_RANGE) ok = range_accepts(l->q, tk->term, tk->term_len);
        if (ok && l->weight > w) w = l->weight;
    }
    return w;
}

static bool phrase_term_eq(const hl_leaf *l, uint32_t j, const tv_token *tk) {
    const tv_qterm *qt = &l->q->u.phrase.terms[j];
    if (l->prefix_last && j + 1 == l->q->u.phrase.nterms) return has_prefix(tk->term, tk->term_len, qt->term, qt->len);
    return qt->len == tk->term_len && !memcmp(qt->term, tk->term, qt->len);
}

/* First token index with position >= pos (tokens sorted by position). */
static size_t first_at(const tv_token *tk, size_t n, int64_t pos) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if ((int64_t)tk[mid].position < pos) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Marks (w[i] = max(w[i], weight)) the tokens that take part in an
 * occurrence of phrase leaf l: exact positions for slop 0; with slop s,
 * every term within s positions of where the phrase puts it (an
 * approximation of Lucene's sloppy span matching). */
static void mark_phrase(const hl_leaf *l, const tv_token *tk, size_t n, float *w, uint32_t *tmp) {
    uint32_t nt = l->q->u.phrase.nterms;
    int64_t slop = l->q->u.phrase.slop;
    const tv_qterm *qt = l->q->u.phrase.terms;
    for (size_t i = 0; i < n; i++) {
        if (!phrase_term_eq(l, 0, &tk[i])) continue;
        int64_t base = (int64_t)tk[i].position - qt[0].pos;
        bool ok = true;
        tmp[0] = (uint32_t)i;
        for (uint32_t j = 1; j < nt && ok; j++) {
            int64_t want = base + qt[j].pos;
            ok = false;
            int64_t best = INT64_MAX;
            for (size_t k = first_at(tk, n, want - slop); k < n && (int64_t)tk[k].position <= want + slop; k++) {
                if (k == i || !phrase_term_eq(l, j, &tk[k])) continue;
                int64_t dist = (int64_t)tk[k].position - want;
                if (dist < 0) dist = -dist;
                if (dist < best) { best = dist; tmp[j] = (uint32_t)k; ok = true; }
            }
        }
        if (!ok) continue;
        for (uint32_t j = 0; j < nt; j++)
            if (w[tmp[j]] < l->weight) w[tmp[j]] = l->weight;
    }
}

/* Every token's weight (0: not highlighted). */
static tv_status weigh_tokens(const hl_field *hf, const tv_token *tk, size_t n, tv_arena *a, float **out) {
    float *w = tv_arena_calloc(a, n ? n : 1, sizeof *w);
    if (!w) return TROVE_ENOMEM;
    for (size_t i = 0; i < n; i++) w[i] = token_weight(hf, &tk[i]);
    if (hf->has_phrase) {
        for (uint32_t k = 0; k < hf->nleaves; k++) {
            const hl_leaf *l = &hf->leaves[k];
            if (l->kind != LK_PHRASE) continue;
            uint32_t *tmp = tv_arena_alloc(a, l->q->u.phrase.nterms * sizeof *tmp);
            if (!tmp) return TROVE_ENOMEM;
            mark_phrase(l, tk, n, w, tmp);
        }
    }
    *out = w;
    return TROVE_OK;
}

/* ============================================================ values */

typedef TV_VEC(const char *) str_vec;
typedef TV_VEC(uint32_t) u32_vec;

typedef struct values {
    str_vec s;
    u32_vec n;
} values;

static tv_status add_value(values *vs, const tv_json *v) {
    const char *s;
    size_t n;
    if (v->type == TV_JSON_NULL || v->type == TV_JSON_OBJECT) return TROVE_OK;
    if (v->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++) {
            tv_status st = add_value(vs, &v->v.items[i]);
            if (st) return st;
        }
        return TROVE_OK;
    }
    if (v->type == TV_JSON_STRING) { s = v->v.s; n = v->len; }
    else if (!tv_dsl_scalar_text(v, &s, &n)) return TROVE_OK;
    if (tv_vec_push(&vs->s, s) || tv_vec_push(&vs->n, (uint32_t)n)) return TROVE_ENOMEM;
    return TROVE_OK;
}

/* XContentMapValues.extractRawValues: path segments match nested objects
 * or dotted keys; arrays flatten. */
static tv_status extract(values *vs, const tv_json *v, const char *path, size_t plen) {
    if (v->type == TV_JSON_ARRAY) {
        for (uint32_t i = 0; i < v->len; i++) {
            tv_status st = extract(vs, &v->v.items[i], path, plen);
            if (st) return st;
        }
        return TROVE_OK;
    }
    if (v->type != TV_JSON_OBJECT) return TROVE_OK;
    for (uint32_t i = 0; i < v->len; i++) {
        const tv_json_member *m = &v->v.members[i];
        if (m->key_len > plen || memcmp(m->key, path, m->key_len) != 0) continue;
        tv_status st = TROVE_OK;
        if (m->key_len == plen) st = add_value(vs, &m->val);
        else if (path[m->key_len] == '.') st = extract(vs, &m->val, path + m->key_len + 1, plen - m->key_len - 1);
        if (st) return st;
    }
    return TROVE_OK;
}

/* ============================================================ unified */

typedef struct passage {
    int64_t start, end;
    uint32_t m0, nm; /* its matches: [m0, m0 + nm) of the match list */
    float score;
} passage;

typedef struct match {
    uint32_t start, end; /* UTF-16 */
    uint32_t term;       /* index of the distinct term */
} match;

/* Lucene's PassageScorer with k1 1.2, b 0.75, pivot 87. */
static float passage_score(const passage *p, const match *ms, const uint32_t *freq_in_doc, uint32_t *scratch_term,
                           uint32_t *scratch_cnt, int64_t content_len) {
    const float k1 = 1.2f, b = 0.75f, pivot = 87.0f;
    uint32_t nd = 0;
    for (uint32_t i = 0; i < p->nm; i++) {
        uint32_t t = ms[p->m0 + i].term, j = 0;
        while (j < nd && scratch_term[j] != t) j++;
        if (j == nd) { scratch_term[nd] = t; scratch_cnt[nd++] = 0; }
        scratch_cnt[j]++;
    }
    float score = 0;
    float plen = (float)(p->end - p->start);
    for (uint32_t j = 0; j < nd; j++) {
        float num_docs = 1 + (float)(int32_t)content_len / pivot;
        float weight = (k1 + 1) * (float)log(1 + (num_docs + 0.5) / (freq_in_doc[scratch_term[j]] + 0.5));
        float norm = k1 * ((1 - b) + b * (plen / pivot));
        float tf = (float)scratch_cnt[j] / ((float)scratch_cnt[j] + norm);
        score += tf * weight;
    }
    score *= 1 + 1 / (float)log(pivot + (double)p->start);
    return score;
}

typedef struct frag {
    char *s;
    size_t len;
    float score;
} frag;

typedef TV_VEC(frag) frag_vec;

static bool has_text(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80) return true;
        if (!(c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f))) return true;
    }
    return false;
}

/* CustomPassageFormatter for one passage, appended to frags when it has
 * text. */
static tv_status format_passage(const text *t, const passage *p, const match *ms, const hl_opts *o, bool html,
                                tv_arena *a, frag_vec *frags) {
    tv_buf sb;
    tv_buf_init(&sb);
    int64_t pos = p->start;
    for (uint32_t i = 0; i < p->nm; i++) {
        int64_t start = ms[p->m0 + i].start;
        put_range(&sb, t, pos, start, html);
        int64_t end = ms[p->m0 + i].end;
        while (i + 1 < p->nm && (int64_t)ms[p->m0 + i + 1].start < end) end = ms[p->m0 + ++i].end;
        if (end > p->end) end = p->end;
        tv_buf_puts(&sb, o->pre);
        put_range(&sb, t, start, end, html);
        tv_buf_puts(&sb, o->post);
        pos = end;
    }
    put_range(&sb, t, pos, pos > p->end ? pos : p->end, html);
    size_t n = sb.len;
    /* a trailing U+2029 or U+0000 goes, then String.trim */
    if (n >= 3 && (unsigned char)sb.data[n - 3] == 0xe2 && (unsigned char)sb.data[n - 2] == 0x80 &&
        (unsigned char)sb.data[n - 1] == 0xa9)
        n -= 3;
    else if (n >= 1 && sb.data[n - 1] == '\0')
        n -= 1;
    size_t s0 = 0;
    while (s0 < n && (unsigned char)sb.data[s0] <= ' ') s0++;
    while (n > s0 && (unsigned char)sb.data[n - 1] <= ' ') n--;
    tv_status st = TROVE_OK;
    if (sb.oom) st = TROVE_ENOMEM;
    else if (has_text(sb.data + s0, n - s0)) {
        frag f;
        f.s = tv_arena_memdup(a, sb.data + s0, n - s0);
        f.len = n - s0;
        f.score = p->score;
        if (!f.s || tv_vec_push(frags, f)) st = TROVE_ENOMEM;
    }
    tv_buf_fini(&sb);
    return st;
}

/* text and match_only_text are analyzed as they were indexed */
static bool tokenized(const tv_field *f) { return tv_field_type_is_text(f->type); }

static const tv_analyzer *index_analyzer(const tv_field *f) {
    if (tv_field_type_is_text(f->type) && f->analyzer) return f->analyzer;
    if (f->type == TV_FT_KEYWORD && f->normalizer) return f->normalizer;
    return tv_analyzer_builtin("keyword", 7);
}

typedef TV_VEC(tv_token) tok_vec;

static tv_status max_offset_error(tv_hl_target *ht, const hl_field *hf, tv_error *err, const char *doc, int64_t max) {
    tv_error_set(err, TROVE_EARG,
                 "The length of [%s] field of [%s] doc of [%s] index has exceeded [%lld] - maximum allowed to be analyzed for highlighting. This maximum can be set by changing the [index.highlight.max_analyzed_offset] index level setting. For large texts, indexing with offsets or term vectors is recommended!",
                 hf->name, doc, ht->index, (long long)max);
    snprintf(err->index, sizeof err->index, "%s", ht->index);
    return TROVE_EARG;
}

static tv_status shard_arg(tv_hl_target *ht, tv_error *err, const char *msg) {
    tv_error_set(err, TROVE_EARG, "%s", msg);
    snprintf(err->index, sizeof err->index, "%s", ht->index);
    return TROVE_EARG;
}

static tv_status unified(tv_hl_target *ht, const hl_field *hf, const values *vs, tv_arena *a, uint32_t seg_doc,
                         frag_vec *frags, tv_error *err) {
    const hl_opts *o = &hf->o;
    bool html = ht->hl->html;
    /* buildHighlighter: the break iterator first (unified has no chars scanner) */
    if (tokenized(hf->f) && o->nfrags != 0 && o->scanner == BS_CHARS)
        return shard_arg(ht, err, "Invalid boundary scanner type: CHARS");
    /* NoOpOffsetStrategy: no terms for the field and no no_match_size */
    if (!hf->nleaves && o->no_match <= 0) return TROVE_OK;
    /* the content: values joined with U+0000 */
    size_t total = 0;
    for (size_t i = 0; i < vs->s.len; i++) total += vs->n.items[i] + 1;
    char *content = tv_arena_alloc(a, total + 1);
    if (!content) return TROVE_ENOMEM;
    size_t cl = 0;
    for (size_t i = 0; i < vs->s.len; i++) {
        if (i) content[cl++] = '\0';
        memcpy(content + cl, vs->s.items[i], vs->n.items[i]);
        cl += vs->n.items[i];
    }
    text t;
    if (text_init(&t, a, content, cl)) return TROVE_ENOMEM;
    if ((o->set & O_MAXOFF) && o->max_off > ht->max_offset) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "max_analyzer_offset has exceeded [%lld] - maximum allowed to be analyzed for highlighting. This maximum can be set by changing the [index.highlight.max_analyzed_offset] index level setting. For large texts, indexing with offsets or term vectors is recommended!",
                 (long long)ht->max_offset);
        return shard_arg(ht, err, msg);
    }
    if (!(o->set & O_MAXOFF) && (int64_t)t.n16 > ht->max_offset) {
        char doc[16];
        snprintf(doc, sizeof doc, "%u", seg_doc);
        return max_offset_error(ht, hf, err, doc, ht->max_offset);
    }
    if (t.n16 == 0) return TROVE_OK;
    bool tok = tokenized(hf->f);
    /* analysis: each value on its own, offsets and positions continued */
    const tv_analyzer *an = index_analyzer(hf->f);
    tok_vec toks = {0};
    uint32_t u16_base = 0, pos_base = 0;
    uint32_t gap = tv_field_type_is_text(hf->f->type) ? hf->f->position_increment_gap : 0;
    tv_status st = TROVE_OK;
    for (size_t i = 0; i < vs->s.len && !st; i++) {
        tv_tokens tv;
        memset(&tv, 0, sizeof tv);
        st = tv_analyze(an, a, vs->s.items[i], vs->n.items[i], pos_base, &tv);
        if (st) break;
        for (size_t k = 0; k < tv.len; k++) {
            tv_token x = tv.items[k];
            if ((o->set & O_MAXOFF) && (int64_t)x.start16 > o->max_off) break; /* LimitTokenOffsetFilter */
            x.start16 += u16_base;
            x.end16 += u16_base;
            if (tv_vec_push(&toks, x)) { st = TROVE_ENOMEM; break; }
        }
        u16_base += (uint32_t)tv_utf16_len(vs->s.items[i], vs->n.items[i]) + 1;
        pos_base = (tv.len || tv.end_position ? tv.end_position : pos_base) + gap;
    }
    float *w = NULL;
    if (!st) st = weigh_tokens(hf, toks.items, toks.len, a, &w);
    /* the matches, by (start, end) */
    match *ms = NULL;
    uint32_t nm = 0, nterms = 0;
    uint32_t *freq = NULL;
    if (!st) {
        ms = tv_arena_alloc(a, (toks.len + 1) * sizeof *ms);
        freq = tv_arena_calloc(a, toks.len + 1, sizeof *freq);
        const tv_token **tterm = tv_arena_alloc(a, (toks.len + 1) * sizeof *tterm);
        if (!ms || !freq || !tterm) st = TROVE_ENOMEM;
        for (size_t i = 0; !st && i < toks.len; i++) {
            if (w[i] <= 0) continue;
            const tv_token *x = &toks.items[i];
            uint32_t j = 0;
            while (j < nterms && !(tterm[j]->term_len == x->term_len && !memcmp(tterm[j]->term, x->term, x->term_len))) j++;
            if (j == nterms) tterm[nterms++] = x;
            freq[j]++;
            ms[nm].start = x->start16;
            ms[nm].end = x->end16;
            ms[nm++].term = j;
        }
        /* insertion sort: tokens come nearly in offset order */
        for (uint32_t i = 1; !st && i < nm; i++)
            for (uint32_t j = i; j > 0 && (ms[j - 1].start > ms[j].start ||
                                           (ms[j - 1].start == ms[j].start && ms[j - 1].end > ms[j].end)); j--) {
                match x = ms[j];
                ms[j] = ms[j - 1];
                ms[j - 1] = x;
            }
    }
    tv_vec_fini(&toks);
    if (st) return st;
    /* the break iterator */
    bounds simple = {0};
    bounded bi;
    memset(&bi, 0, sizeof bi);
    bool use_bounded = false;
    if (!tok || o->nfrags == 0) st = sep_bounds(&t, a, &simple);
    else if (o->scanner == BS_WORD) {
        st = text_words(&t, a);
        simple.b = t.wb;
        simple.n = t.nwb;
    } else if (o->fragment_size > 0) {
        use_bounded = true;
        st = sentence_bounds(&t, a, &bi.main);
        if (!st) st = text_words(&t, a);
        bi.inner.b = t.wb;
        bi.inner.n = t.nwb;
        bi.max_len = o->fragment_size;
        bi.last_preceding = bi.win_start = bi.win_end = bi.in_start = -1;
        bi.in_end = 0;
    } else {
        st = sentence_bounds(&t, a, &simple);
    }
    if (st) return st;
    /* the values' separators, for the bounded scanner's slices */
    uint32_t *seps = tv_arena_alloc(a, (t.ncp + 1) * sizeof *seps), nseps = 0;
    if (!seps) return TROVE_ENOMEM;
    for (uint32_t k = 0; k < t.ncp; k++)
        if (t.cps[k] == 0) seps[nseps++] = t.cpu[k];
    int64_t sl_s = 0, sl_e = nseps ? seps[0] : t.n16;
    bi.lim = sl_e;
    int64_t max_passages = (!tok || o->nfrags == 0) ? (o->nfrags == 0 ? INT32_MAX - 1 : o->nfrags) : o->nfrags;
    int64_t clen = t.n16;
    passage *q = tv_arena_alloc(a, (nm + 1) * sizeof *q); /* the kept passages */
    uint32_t *sc_t = tv_arena_alloc(a, (nm + 1) * sizeof *sc_t), *sc_c = tv_arena_alloc(a, (nm + 1) * sizeof *sc_c);
    if (!q || !sc_t || !sc_c) return TROVE_ENOMEM;
    uint32_t nq = 0;
    passage cur = {-1, -1, 0, 0, 0};
    for (uint32_t i = 0; i <= nm; i++) {
        bool last = i == nm;
        int64_t start = last ? 0 : ms[i].start, end = last ? 0 : ms[i].end;
        if (!last && start < clen && end > clen) continue;
        if (last || start >= cur.end) {
            if (cur.start != -1) {
                /* maybeAddPassage */
                cur.score = passage_score(&cur, ms, freq, sc_t, sc_c, clen);
                uint32_t mi = 0;
                for (uint32_t k = 1; k < nq; k++)
                    if (q[k].score < q[mi].score || (q[k].score == q[mi].score && q[k].start < q[mi].start)) mi = k;
                if ((int64_t)nq == max_passages && nq && cur.score < q[mi].score) {
                    /* cannot compete */
                } else {
                    q[nq++] = cur;
                    if ((int64_t)nq > max_passages) {
                        mi = 0;
                        for (uint32_t k = 1; k < nq; k++)
                            if (q[k].score < q[mi].score || (q[k].score == q[mi].score && q[k].start < q[mi].start)) mi = k;
                        q[mi] = q[--nq];
                    }
                }
                cur.start = cur.end = -1;
                cur.nm = 0;
            }
            if (last || start >= clen) break;
            int64_t ps, pf;
            if (use_bounded) {
                if (start < sl_s || start > sl_e) {
                    /* SplittingBreakIterator moves to the value holding
                     * start: the scanner starts afresh there */
                    sl_s = 0;
                    sl_e = clen;
                    for (uint32_t k = 0; k < nseps; k++) {
                        if ((int64_t)seps[k] <= start) sl_s = seps[k] + 1;
                        else { sl_e = seps[k]; break; }
                    }
                    bi.last_preceding = bi.win_start = bi.win_end = bi.in_start = -1;
                    bi.in_end = 0;
                    bi.lim = sl_e;
                }
                ps = bounded_preceding(&bi, start + 1);
                pf = bi.in_end;
            } else {
                ps = b_preceding(&simple, start + 1);
                pf = b_following(&simple, start);
            }
            cur.start = ps < 0 ? 0 : ps;
            cur.end = pf < 0 || pf > clen ? clen : pf;
            cur.m0 = i;
            cur.nm = 0;
        }
        cur.nm++;
    }
    if (nq == 0 && o->no_match > 0) {
        /* CustomFieldHighlighter.getSummaryPassagesNoHighlight */
        int64_t pos = 0;
        while (pos < clen && t.s[t.u2b[pos]] == '\0') pos++;
        if (pos < clen) {
            int64_t end = pos;
            while (end < clen && t.s[t.u2b[end]] != '\0') end++;
            if (o->no_match + pos < end) {
                if (text_words(&t, a)) return TROVE_ENOMEM;
                bounds wb = {t.wb, t.nwb};
                end = b_following(&wb, o->no_match + pos);
                if (end == -1) end = clen;
            }
            passage p = {pos, end, 0, 0, NAN};
            return format_passage(&t, &p, ms, o, html, a, frags);
        }
        return TROVE_OK;
    }
    /* text order */
    for (uint32_t i = 1; i < nq; i++)
        for (uint32_t j = i; j > 0 && q[j - 1].start > q[j].start; j--) {
            passage x = q[j];
            q[j] = q[j - 1];
            q[j - 1] = x;
        }
    for (uint32_t i = 0; i < nq; i++)
        if ((st = format_passage(&t, &q[i], ms, o, html, a, frags))) return st;
    if (o->score_order) {
        for (size_t i = 1; i < frags->len; i++)
            for (size_t j = i; j > 0 && frags->items[j - 1].score < frags->items[j].score; j--) {
                frag x = frags->items[j];
                frags->items[j] = frags->items[j - 1];
                frags->items[j - 1] = x;
            }
    }
    return TROVE_OK;
}

/* ============================================================ plain */

typedef struct pfrag {
    size_t start, end; /* into the value's output buffer */
    float score;
    uint32_t num;
} pfrag;

typedef TV_VEC(pfrag) pfrag_vec;

/* Lucene's Highlighter.getBestTextFragments over one value. */
static tv_status plain_value(const hl_field *hf, bool html, const char *val, size_t vlen, tv_arena *a, frag_vec *frags) {
    const hl_opts *o = &hf->o;
    tv_tokens tv;
    memset(&tv, 0, sizeof tv);
    tv_status st = tv_analyze(index_analyzer(hf->f), a, val, vlen, 0, &tv);
    if (st) return st;
    size_t ntok = tv.len;
    if ((o->set & O_MAXOFF)) {
        size_t k = 0;
        while (k < ntok && (int64_t)tv.items[k].start16 <= o->max_off) k++;
        ntok = k;
    }
    float *w = NULL;
    if ((st = weigh_tokens(hf, tv.items, ntok, a, &w))) return st;
    text t;
    if (text_init(&t, a, val, vlen)) return TROVE_ENOMEM;
    int fragmenter = o->nfrags == 0 ? 0 : (o->fragmenter && !strcmp(o->fragmenter, "simple")) ? 1 : 2; /* null, simple, span */
    int64_t fsize = o->fragment_size;
    int64_t tsize = t.n16;
    int64_t nfr = 1;        /* currentNumFrags */
    int64_t fpos = -1, wait_for = -1;
    tv_buf sb;
    tv_buf_init(&sb);
    pfrag_vec pf = {0};
    pfrag cur = {0, 0, 0, 0};
    /* per-fragment unique-term score */
    const tv_token **seen = tv_arena_alloc(a, (ntok + 1) * sizeof *seen);
    if (!seen) { tv_buf_fini(&sb); return TROVE_ENOMEM; }
    size_t nseen = 0;
    float total = 0;
    int64_t last_end = 0;
    int64_t g_start = 0, g_end = 0;
    float g_tot = 0;
    int g_n = 0;
    for (size_t i = 0; i <= ntok; i++) {
        const tv_token *x = i < ntok ? &tv.items[i] : NULL;
        if (g_n > 0 && (!x || (int64_t)x->start16 >= g_end)) {
            /* flush the group */
            if (g_start > last_end) put_range(&sb, &t, last_end, g_start, html);
            if (g_tot > 0) tv_buf_puts(&sb, o->pre);
            put_range(&sb, &t, g_start, g_end, html);
            if (g_tot > 0) tv_buf_puts(&sb, o->post);
            if (g_end > last_end) last_end = g_end;
            g_n = 0;
            g_tot = 0;
            if (!x) break;
            bool isnew = false;
            if (fragmenter == 1) {
                isnew = (int64_t)x->end16 >= fsize * nfr;
            } else if (fragmenter == 2) {
                fpos += (int64_t)x->position - (int64_t)tv.items[i - 1].position;
                bool waiting = false;
                if (wait_for <= fpos) wait_for = -1;
                else if (wait_for != -1) waiting = true;
                if (!waiting) {
                    /* a phrase occurrence starting here: wait for its end */
                    if (w[i] > 0 && hf->has_phrase) {
                        for (uint32_t k = 0; k < hf->nleaves; k++) {
                            const hl_leaf *l = &hf->leaves[k];
                            if (l->kind != LK_PHRASE || !phrase_term_eq(l, 0, x)) continue;
                            const tv_qterm *qt = l->q->u.phrase.terms;
                            uint32_t nt = l->q->u.phrase.nterms;
                            /* span [p, p + last pos] of an occurrence at fpos */
                            int64_t p0 = (int64_t)x->position - qt[0].pos;
                            bool ok = true;
                            for (uint32_t j = 1; j < nt && ok; j++) {
                                ok = false;
                                for (size_t m = i; m < ntok && (int64_t)tv.items[m].position <= p0 + qt[j].pos; m++)
                                    if ((int64_t)tv.items[m].position == p0 + qt[j].pos && phrase_term_eq(l, j, &tv.items[m])) ok = true;
                            }
                            if (ok && p0 == fpos) { wait_for = p0 + qt[nt - 1].pos + 1; break; }
                        }
                    }
                    isnew = (int64_t)x->end16 >= fsize * nfr && (tsize - (int64_t)x->end16) >= (fsize >> 1);
                }
            }
            if (isnew) {
                nfr++;
                cur.score = total;
                cur.end = sb.len;
                if (tv_vec_push(&pf, cur)) { st = TROVE_ENOMEM; break; }
                cur.start = sb.len;
                cur.num = (uint32_t)pf.len;
                nseen = 0;
                total = 0;
            }
        }
        if (!x) break;
        /* QueryScorer.getTokenScore: a term counts once per fragment */
        float s = w[i];
        if (s > 0) {
            size_t k = 0;
            while (k < nseen && !(seen[k]->term_len == x->term_len && !memcmp(seen[k]->term, x->term, x->term_len))) k++;
            if (k == nseen) { seen[nseen++] = x; total += s; }
        }
        if (g_n == 0) { g_start = x->start16; g_end = x->end16; }
        else {
            if ((int64_t)x->start16 < g_start) g_start = x->start16;
            if ((int64_t)x->end16 > g_end) g_end = x->end16;
        }
        g_tot += s;
        g_n++;
    }
    if (!st) {
        cur.score = total;
        if (last_end < tsize) put_range(&sb, &t, last_end, tsize, html);
        cur.end = sb.len;
        if (tv_vec_push(&pf, cur)) st = TROVE_ENOMEM;
    }
    if (!st && sb.oom) st = TROVE_ENOMEM;
    if (!st) {
        /* the best max(1, number_of_fragments): score desc, then text order */
        for (size_t i = 1; i < pf.len; i++)
            for (size_t j = i; j > 0 && (pf.items[j - 1].score < pf.items[j].score); j--) {
                pfrag x = pf.items[j];
                pf.items[j] = pf.items[j - 1];
                pf.items[j - 1] = x;
            }
        size_t keep = (size_t)(o->nfrags == 0 ? 1 : o->nfrags < 0 ? 0 : o->nfrags);
        for (size_t i = 0; i < pf.len && i < keep && !st; i++) {
            if (!(pf.items[i].score > 0)) continue;
            frag f;
            f.len = pf.items[i].end - pf.items[i].start;
            f.s = tv_arena_memdup(a, sb.data + pf.items[i].start, f.len ? f.len : 1);
            f.score = pf.items[i].score;
            if (!f.s || tv_vec_push(frags, f)) st = TROVE_ENOMEM;
        }
    }
    tv_vec_fini(&pf);
    tv_buf_fini(&sb);
    return st;
}

static tv_status plain(tv_hl_target *ht, const hl_field *hf, const values *vs, tv_arena *a, const char *id,
                       size_t id_len, frag_vec *frags, tv_error *err) {
    const hl_opts *o = &hf->o;
    if (o->nfrags != 0 && o->fragmenter && strcmp(o->fragmenter, "simple") && strcmp(o->fragmenter, "span")) {
        char msg[512];
        snprintf(msg, sizeof msg, "unknown fragmenter option [%s] for the field [%s]", o->fragmenter, hf->name);
        return shard_arg(ht, err, msg);
    }
    tv_status st;
    for (size_t i = 0; i < vs->s.len; i++) {
        const char *v = vs->s.items[i];
        size_t n = vs->n.items[i];
        if (!(o->set & O_MAXOFF) && (int64_t)tv_utf16_len(v, n) > ht->max_offset) {
            char doc[300];
            snprintf(doc, sizeof doc, "%.*s", (int)id_len, id);
            return max_offset_error(ht, hf, err, doc, ht->max_offset);
        }
        if ((st = plain_value(hf, ht->hl->html, v, n, a, frags))) return st;
    }
    if (o->score_order) {
        /* Math.round(o2.score - o1.score) */
        for (size_t i = 1; i < frags->len; i++)
            for (size_t j = i; j > 0 && lroundf(frags->items[j].score - frags->items[j - 1].score) > 0; j--) {
                frag x = frags->items[j];
                frags->items[j] = frags->items[j - 1];
                frags->items[j - 1] = x;
            }
    }
    size_t keep = o->nfrags == 0 ? 1 : (size_t)(o->nfrags < 0 ? 0 : o->nfrags);
    if (o->nfrags == 0 && vs->s.len > 1 && frags->len > 0) keep = frags->len;
    if (frags->len > keep) frags->len = keep;
    if (frags->len == 0 && o->no_match > 0 && vs->s.len > 0) {
        /* findGoodEndForNoHighlightExcerpt on the first value, unencoded */
        tv_tokens tv;
        memset(&tv, 0, sizeof tv);
        if ((st = tv_analyze(index_analyzer(hf->f), a, vs->s.items[0], vs->n.items[0], 0, &tv))) return st;
        int64_t end = -1;
        for (size_t k = 0; k < tv.len; k++) {
            if ((int64_t)tv.items[k].end16 >= o->no_match) {
                if ((int64_t)tv.items[k].end16 == o->no_match) end = o->no_match;
                goto done;
            }
            end = tv.items[k].end16;
        }
    done:
        if (end > 0) {
            text t;
            if (text_init(&t, a, vs->s.items[0], vs->n.items[0])) return TROVE_ENOMEM;
            frag f;
            f.len = t.u2b[end > t.n16 ? t.n16 : end];
            f.s = tv_arena_memdup(a, vs->s.items[0], f.len ? f.len : 1);
            f.score = 0;
            if (!f.s || tv_vec_push(frags, f)) return TROVE_ENOMEM;
        }
    }
    return TROVE_OK;
}

/* ============================================================ writing */

tv_status tv_hl_write(tv_hl_target *ht, tv_arena *arena, const char *src, size_t src_len, uint32_t seg_doc,
                      const char *id, size_t id_len, tv_jw *out, tv_error *err) {
    if (!ht || !ht->nfields) return TROVE_OK;
    tv_json *doc = NULL;
    if (src && tv_json_parse(arena, src, src_len, &doc, NULL) != TROVE_OK) doc = NULL;
    frag_vec *res = tv_arena_calloc(arena, ht->nfields, sizeof *res);
    if (!res) return tv_error_oom(err);
    tv_status st = TROVE_OK;
    for (uint32_t i = 0; i < ht->nfields && !st; i++) {
        const hl_field *hf = &ht->fields[i];
        if (hf->o.type == HL_UNKNOWN) {
            char msg[400];
            snprintf(msg, sizeof msg, "unknown highlighter type [%s] for the field [%s]", hf->o.type_name, hf->name);
            st = shard_arg(ht, err, msg);
            break;
        }
        if (hf->o.type == HL_FVH) {
            char msg[400];
            snprintf(msg, sizeof msg,
                     "the field [%s] should be indexed with term vector with position offsets to be used with fast vector highlighter",
                     hf->name);
            st = shard_arg(ht, err, msg);
            break;
        }
        if (!doc) continue;
        const tv_field *sf = hf->f->multi_parent ? hf->f->multi_parent : hf->f;
        values vs;
        memset(&vs, 0, sizeof vs);
        st = extract(&vs, doc, sf->path, sf->path_len);
        /* HighlightUtils: a keyword's values over ignore_above were not
         * indexed and are not highlighted */
        if (!st && hf->f->type == TV_FT_KEYWORD && hf->f->ignore_above >= 0) {
            size_t k = 0;
            for (size_t j = 0; j < vs.s.len; j++)
                if ((int64_t)tv_utf16_len(vs.s.items[j], vs.n.items[j]) <= hf->f->ignore_above) {
                    vs.s.items[k] = vs.s.items[j];
                    vs.n.items[k++] = vs.n.items[j];
                }
            vs.s.len = vs.n.len = k;
        }
        if (!st && vs.s.len) {
            if (hf->o.type == HL_PLAIN) st = plain(ht, hf, &vs, arena, id, id_len, &res[i], err);
            else st = unified(ht, hf, &vs, arena, seg_doc, &res[i], err);
        }
        tv_vec_fini(&vs.s);
        tv_vec_fini(&vs.n);
    }
    if (st) {
        for (uint32_t i = 0; i < ht->nfields; i++) tv_vec_fini(&res[i]);
        return st == TROVE_ENOMEM ? tv_error_oom(err) : st;
    }
    bool opened = false;
    for (uint32_t k = 0; k < ht->nfields; k++) {
        uint32_t i = ht->order[k];
        if (!res[i].len) continue;
        if (!opened) {
            tv_jw_keyz(out, "highlight");
            tv_jw_obj_begin(out);
            opened = true;
        }
        tv_jw_keyz(out, ht->fields[i].name);
        tv_jw_arr_begin(out);
        for (size_t j = 0; j < res[i].len; j++) tv_jw_str(out, res[i].items[j].s, res[i].items[j].len);
        tv_jw_arr_end(out);
    }
    if (opened) tv_jw_obj_end(out);
    for (uint32_t i = 0; i < ht->nfields; i++) tv_vec_fini(&res[i]);
    return TROVE_OK;
}
