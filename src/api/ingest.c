/*
 * ingest.c — ingest pipelines: their configuration read into processors
 * (validated as OpenSearch's ConfigurationUtils and processor factories
 * validate them at PUT time) and run over a document (IngestDocument,
 * CompoundProcessor, the processors of ingest-common).
 *
 * A pipeline's configuration is JSON in the node's state; a request that
 * needs a pipeline reads it into a tree of processors in its arena once
 * (tv_ingest caches them by id for a _bulk) and releases the scripts it
 * compiled (through the script layer's cache) at the end. The document is
 * a script value (script.h): a HashMap of the source with the metadata
 * fields (_index, _id, _routing, _version, _version_type) beside it, as
 * IngestDocument's sourceAndMetadata, and a second map for _ingest
 * (timestamp, and _value inside foreach). So the script processor and
 * `if` conditions see `ctx` as Painless sees it without any conversion,
 * and the source printed after a pipeline is in HashMap order, as
 * OpenSearch's IndexRequest.source(Map) writes it.
 *
 * Failures follow CompoundProcessor: a processor's error stops the
 * pipeline unless the processor has ignore_failure or on_failure (then
 * _ingest.on_failure_message/_processor_type/_processor_tag are set while
 * the handlers run, and the rest of that compound is skipped); a pipeline
 * may have its own on_failure. What the document's response shows of a
 * failure is the processor's own exception (IngestProcessorException is a
 * wrapper OpenSearch unwraps).
 *
 * Regular expressions (split, gsub, kv's field_split/value_split): Java's
 * syntax in the subset most pipelines use — literals, '.', escapes
 * (\s \S \d \D \w \W and escaped punctuation), classes [...] with ranges
 * and negation, each atom optionally followed by * + ? or {n,m} (greedy,
 * backtracking), and '|' between whole alternatives. Anything else
 * (groups, anchors, lookaround, lazy quantifiers) is refused at PUT time
 * with unsupported_operation_exception naming the pattern, never matched
 * differently from Java.
 *
 * Processors: set, remove, rename, lowercase, uppercase, trim, convert,
 * date, split, join, json, script, append, gsub, fail, drop, pipeline,
 * foreach, dot_expander, html_strip, urldecode, bytes, kv, csv, sort, copy,
 * remove_by_pattern. Others of OpenSearch (grok, dissect,
 * date_index_name, uri_parts, fingerprint, community_id, ...) answer 400
 * unsupported_operation_exception naming the type at PUT.
 *
 * Alternatives rejected: keeping compiled pipelines in the node's state
 * (they hold arena values and script references a clone would have to
 * share; reading a pipeline's JSON costs microseconds next to a write);
 * a JSON DOM as the document (the script processor would convert it to
 * script values and back for every document).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "api.h"
#include "index/date.h"
#include "index/tz.h"
#include "text/text.h"

/* ============================================================ regexes */

enum { RX_LIT, RX_ANY, RX_CLASS };
typedef struct rx_atom {
    uint8_t kind;
    bool neg;
    uint32_t ch;            /* RX_LIT (a byte) */
    uint8_t set[32];        /* RX_CLASS: bytes (ASCII classes; non-ASCII bytes literal) */
    int min, max;           /* max -1: unbounded */
} rx_atom;
typedef struct tv_rx {
    rx_atom *atoms;
    size_t n;
    struct tv_rx *alt; /* the next alternative, or NULL */
} tv_rx;

static void set_add(uint8_t *set, unsigned c) { set[c >> 3] |= (uint8_t)(1u << (c & 7)); }
static bool set_has(const uint8_t *set, unsigned c) { return set[c >> 3] & (1u << (c & 7)); }

/* \d \s \w (upper: negated) into set; false when e is not a class escape. */
static bool rx_class_escape(char e, uint8_t *set, bool *neg) {
    char l = (char)tolower((unsigned char)e);
    if (l != 'd' && l != 's' && l != 'w') return false;
    *neg = e != l;
    for (unsigned c = 0; c < 128; c++) {
        bool in = l == 'd' ? (c >= '0' && c <= '9')
                  : l == 's' ? (c == ' ' || c == '\t' || c == '\n' || c == 0x0b || c == '\f' || c == '\r')
                             : (isalnum((int)c) || c == '_');
        if (in) set_add(set, c);
    }
    return true;
}

static bool rx_escape_literal(char e, uint32_t *out) {
    switch (e) {
    case 't': *out = '\t'; return true;
    case 'n': *out = '\n'; return true;
    case 'r': *out = '\r'; return true;
    case 'f': *out = '\f'; return true;
    default:
        if (ispunct((unsigned char)e)) {
            *out = (unsigned char)e;
            return true;
        }
        return false;
    }
}

/* Compiles pattern p (NUL-terminated) into a; NULL when outside the subset. */
static tv_rx *rx_compile(tv_arena *a, const char *p) {
    size_t n = strlen(p);
    tv_rx *rx = tv_arena_calloc(a, 1, sizeof *rx);
    if (!rx) return NULL;
    rx->atoms = tv_arena_calloc(a, n + 1, sizeof *rx->atoms);
    if (!rx->atoms) return NULL;
    tv_rx *cur = rx;
    for (size_t i = 0; i < n;) {
        char c = p[i];
        if (c == '|') {
            tv_rx *nx = tv_arena_calloc(a, 1, sizeof *nx);
            if (!nx) return NULL;
            nx->atoms = tv_arena_calloc(a, n + 1, sizeof *nx->atoms);
            if (!nx->atoms) return NULL;
            cur->alt = nx;
            cur = nx;
            i++;
            continue;
        }
        rx_atom *at = &cur->atoms[cur->n];
        memset(at, 0, sizeof *at);
        at->min = at->max = 1;
        if (c == '(' || c == ')' || c == '^' || c == '$' || c == '*' || c == '+' || c == '?' || c == '{' ||
            c == '}' || c == ']')
            return NULL;
        if (c == '.') {
            at->kind = RX_ANY;
            i++;
        } else if (c == '\\') {
            if (i + 1 >= n) return NULL;
            char e = p[i + 1];
            if (rx_class_escape(e, at->set, &at->neg)) {
                at->kind = RX_CLASS;
            } else if (rx_escape_literal(e, &at->ch)) {
                at->kind = RX_LIT;
            } else {
                return NULL;
            }
            i += 2;
        } else if (c == '[') {
            at->kind = RX_CLASS;
            i++;
            if (i < n && p[i] == '^') {
                at->neg = true;
                i++;
            }
            bool first = true;
            while (i < n && (p[i] != ']' || first)) {
                first = false;
                unsigned lo;
                if (p[i] == '\\') {
                    if (i + 1 >= n) return NULL;
                    bool ng = false;
                    uint8_t tmp[32] = {0};
                    if (rx_class_escape(p[i + 1], tmp, &ng)) {
                        if (ng) return NULL;
                        for (int k = 0; k < 32; k++) at->set[k] |= tmp[k];
                        i += 2;
                        continue;
                    }
                    uint32_t lit;
                    if (!rx_escape_literal(p[i + 1], &lit)) return NULL;
                    lo = lit;
                    i += 2;
                } else if (p[i] == '[' || p[i] == '&') {
                    return NULL;
                } else {
                    lo = (unsigned char)p[i++];
                }
                if (i + 1 < n && p[i] == '-' && p[i + 1] != ']') {
                    unsigned hi = (unsigned char)p[i + 1];
                    if (hi == '\\' || hi < lo) return NULL;
                    for (unsigned k = lo; k <= hi; k++) set_add(at->set, k);
                    i += 2;
                } else {
                    set_add(at->set, lo);
                }
            }
            if (i >= n) return NULL;
            i++;
        } else {
            at->kind = RX_LIT;
            at->ch = (unsigned char)c;
            i++;
        }
        if (i < n) {
            char q = p[i];
            if (q == '*' || q == '+' || q == '?') {
                at->min = q == '+' ? 1 : 0;
                at->max = q == '?' ? 1 : -1;
                i++;
            } else if (q == '{') {
                char *end;
                long mn = strtol(p + i + 1, &end, 10);
                long mx = mn;
                if (end == p + i + 1) return NULL;
                if (*end == ',') {
                    if (end[1] == '}') {
                        mx = -1;
                        end++;
                    } else {
                        char *e2;
                        mx = strtol(end + 1, &e2, 10);
                        if (e2 == end + 1) return NULL;
                        end = e2;
                    }
                }
                if (*end != '}' || mn < 0 || mn > 1000 || (mx >= 0 && mx < mn)) return NULL;
                at->min = (int)mn;
                at->max = (int)mx;
                i = (size_t)(end - p) + 1;
            }
            if (i < n && (p[i] == '?' || p[i] == '+' || p[i] == '*' || p[i] == '{')) return NULL; /* lazy, possessive */
        }
        cur->n++;
    }
    return rx;
}

static bool rx_atom_match(const rx_atom *at, unsigned char c) {
    switch (at->kind) {
    case RX_LIT: return c == at->ch;
    case RX_ANY: return c != '\n' && c != '\r';
    default: return set_has(at->set, c) != at->neg;
    }
}

/* Matches atoms [k..) at s[i..n): the end of the match, or -1. */
static long rx_match_at(const tv_rx *rx, size_t k, const char *s, size_t i, size_t n, int depth) {
    if (k == rx->n) return (long)i;
    if (depth > 10000) return -1;
    const rx_atom *at = &rx->atoms[k];
    size_t cnt = 0;
    while (i + cnt < n && (at->max < 0 || (int)cnt < at->max) && rx_atom_match(at, (unsigned char)s[i + cnt])) cnt++;
    for (;;) {
        if ((int)cnt >= at->min) {
            long e = rx_match_at(rx, k + 1, s, i + cnt, n, depth + 1);
            if (e >= 0) return e;
        }
        if (cnt == 0) return -1;
        cnt--;
    }
}

/* Finds the first match in s[from..n): start and end, false when none. */
static bool rx_find(const tv_rx *rx, const char *s, size_t n, size_t from, size_t *ms, size_t *me) {
    for (size_t i = from; i <= n; i++) {
        for (const tv_rx *alt = rx; alt; alt = alt->alt) {
            long e = rx_match_at(alt, 0, s, i, n, 0);
            if (e >= 0) {
                *ms = i;
                *me = (size_t)e;
                return true;
            }
        }
    }
    return false;
}

/* ========================================================= processors */

typedef struct ing_proc ing_proc;
typedef struct ing_list {
    ing_proc **v;
    size_t n;
} ing_list;

typedef enum {
    P_SET, P_REMOVE, P_RENAME, P_LOWERCASE, P_UPPERCASE, P_TRIM, P_CONVERT, P_DATE, P_SPLIT, P_JOIN, P_JSON,
    P_SCRIPT, P_APPEND, P_GSUB, P_FAIL, P_DROP, P_PIPELINE, P_FOREACH, P_DOT_EXPANDER, P_HTML_STRIP,
    P_URLDECODE, P_BYTES, P_KV, P_CSV, P_SORT, P_COPY, P_REMOVE_BY_PATTERN,
} ing_kind;

static const char *const KIND_NAMES[] = {
    "set", "remove", "rename", "lowercase", "uppercase", "trim", "convert", "date", "split", "join", "json",
    "script", "append", "gsub", "fail", "drop", "pipeline", "foreach", "dot_expander", "html_strip",
    "urldecode", "bytes", "kv", "csv", "sort", "copy", "remove_by_pattern",
};

/* The processor types OpenSearch ships that trove does not run. */
static const char *const UNSUPPORTED_KINDS[] = {
    "grok", "dissect", "date_index_name", "uri_parts", "fingerprint", "community_id", "user_agent", "geoip", "attachment", "ip2geo", "text_embedding", "sparse_encoding",
    "text_image_embedding", "text_chunking", "circle",
};

const char *const *tv_ingest_processor_types(void) {
    /* sorted, as IngestInfo keeps them (a TreeSet by type) */
    static const char *const sorted[] = {
        "append", "bytes", "convert", "copy", "csv", "date", "dot_expander", "drop", "fail", "foreach", "gsub",
        "html_strip", "join", "json", "kv", "lowercase", "pipeline", "remove", "remove_by_pattern", "rename",
        "script", "set", "sort", "split", "trim", "uppercase", "urldecode", NULL,
    };
    return sorted;
}

struct ing_proc {
    ing_kind kind;
    const char *type, *tag, *description;
    tv_script *cond;       /* if */
    const char *cond_src;
    bool ignore_failure;
    ing_list on_failure;   /* n == 0: none */
    /* options (which ones a kind reads is said where it is read) */
    const char *field;     /* a template for set/append/remove single */
    const char **fields;   /* remove: list of templates */
    size_t nfields;
    const char **exclude;  /* remove exclude_field */
    size_t nexclude;
    const char *target;    /* target_field */
    const tv_json *value;  /* set/append value (templates inside) */
    const char *copy_from;
    bool override, ignore_empty, ignore_missing, allow_dups, add_to_root, preserve_trailing, trim_key_set;
    bool trim;
    const char *str1, *str2, *str3; /* separator / type / message / name / pattern / replacement / ... */
    tv_rx *rx1, *rx2;
    const char **formats;  /* date formats, csv target_fields, kv include_keys */
    size_t nformats;
    const char **excl_keys; /* kv exclude_keys */
    size_t nexcl_keys;
    const tv_tz *tz;
    const char *tz_template;
    const char *output_format;
    const char *prefix, *trim_key, *trim_value;
    bool strip_brackets;
    char quote, sep;
    const tv_json *empty_value;
    bool desc;             /* sort order */
    ing_proc *inner;       /* foreach */
    tv_api_script script;
    tv_script *compiled;
    int conv;              /* convert type */
};

struct tv_ingest {
    tv_req *r;
    tv_script **scripts;
    size_t nscripts, cscripts;
    /* pipelines read in this request */
    struct ing_cached {
        const char *id;
        struct ing_pipeline *p;
        tv_api_err *err; /* could not be read */
    } *cache;
    size_t ncache, ccache;
    bool verbose;        /* _simulate?verbose: record processor results */
    tv_jw *vw;           /* where the results go */
    int64_t now_us;
};

typedef struct ing_pipeline {
    const char *id;
    const char *description;
    ing_list procs;
    ing_list on_failure;
} ing_pipeline;

static bool keep_script(tv_ingest *g, tv_script *s) {
    if (g->nscripts == g->cscripts) {
        size_t nc = g->cscripts ? g->cscripts * 2 : 8;
        tv_script **v = tv_realloc(g->scripts, nc * sizeof *v);
        if (!v) {
            tv_script_release(s);
            g->r->oom = true;
            return false;
        }
        g->scripts = v;
        g->cscripts = nc;
    }
    g->scripts[g->nscripts++] = s;
    return true;
}

tv_ingest *tv_ingest_new(tv_req *r) {
    tv_ingest *g = tv_arena_calloc(&r->arena, 1, sizeof *g);
    if (!g) {
        r->oom = true;
        return NULL;
    }
    g->r = r;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    g->now_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
    return g;
}

void tv_ingest_free(tv_ingest *g) {
    if (!g) return;
    for (size_t i = 0; i < g->nscripts; i++) tv_script_release(g->scripts[i]);
    tv_free(g->scripts);
    tv_free(g->cache);
    g->scripts = NULL;
    g->cache = NULL;
    g->nscripts = g->ncache = 0;
}

/* ------------------------------------------------- configuration errors */

/* ConfigurationUtils.newConfigurationException: parse_exception with the
 * processor's type, tag and the property as metadata. */
static tv_api_err *cfg_err(tv_req *r, const char *type, const char *tag, const char *prop, const char *fmt, ...)
    TV_PRINTF(5, 6);
static tv_api_err *cfg_err(tv_req *r, const char *type, const char *tag, const char *prop, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tv_api_err *e = tv_api_err_new(r, TROVE_EPARSEEXC, "%s", buf);
    if (!e) return NULL;
    if (type) tv_api_err_meta(e, "processor_type", type);
    if (tag) tv_api_err_meta(e, "processor_tag", tag);
    if (prop) tv_api_err_meta(e, "property_name", prop);
    return e;
}

/* Java's class name of a JSON value as the configuration map holds it. */
static const char *json_class(const tv_json *v) {
    switch (v->type) {
    case TV_JSON_TRUE:
    case TV_JSON_FALSE: return "java.lang.Boolean";
    case TV_JSON_INT: return v->v.i >= INT32_MIN && v->v.i <= INT32_MAX ? "java.lang.Integer" : "java.lang.Long";
    case TV_JSON_UINT: return "java.math.BigInteger";
    case TV_JSON_DOUBLE: return "java.lang.Double";
    case TV_JSON_STRING: return "java.lang.String";
    case TV_JSON_ARRAY: return "java.util.ArrayList";
    case TV_JSON_OBJECT: return "java.util.HashMap";
    default: return "null";
    }
}

/* A processor's configuration while it is read: which keys were consumed. */
typedef struct cfg {
    tv_req *r;
    const tv_json *obj;
    bool *used;
    const char *type, *tag;
    tv_api_err **err;
} cfg;

static const tv_json *cfg_get(cfg *c, const char *key) {
    for (uint32_t i = 0; i < c->obj->len; i++)
        if (strcmp(c->obj->v.members[i].key, key) == 0) {
            c->used[i] = true;
            return c->obj->v.members[i].val.type == TV_JSON_NULL ? NULL : &c->obj->v.members[i].val;
        }
    return NULL;
}

static bool cfg_fail(cfg *c, const char *prop, const char *fmt, ...) TV_PRINTF(3, 4);
static bool cfg_fail(cfg *c, const char *prop, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!*c->err) *c->err = cfg_err(c->r, c->type, c->tag, prop, "%s", buf);
    return false;
}

/* readStringProperty: *out NULL when absent and not required. */
static bool cfg_str(cfg *c, const char *key, bool required, const char *def, const char **out) {
    const tv_json *v = cfg_get(c, key);
    if (!v) {
        if (required && !def) return cfg_fail(c, key, "[%s] required property is missing", key);
        *out = def;
        return true;
    }
    if (v->type != TV_JSON_STRING)
        return cfg_fail(c, key, "[%s] property isn't a string, but of type [%s]", key, json_class(v));
    *out = v->v.s;
    return true;
}

/* readStringOrIntProperty-like reading of booleans: readBooleanProperty. */
static bool cfg_bool(cfg *c, const char *key, bool def, bool *out) {
    const tv_json *v = cfg_get(c, key);
    if (!v) {
        *out = def;
        return true;
    }
    if (v->type != TV_JSON_TRUE && v->type != TV_JSON_FALSE)
        return cfg_fail(c, key, "[%s] property isn't a boolean, but of type [%s]", key, json_class(v));
    *out = v->type == TV_JSON_TRUE;
    return true;
}

/* A list of strings; a non-string item fails with readList's message
 * ("isn't a list of strings") or, item_type, with the item's type (as
 * readOptionalStringOrList). */
static bool cfg_strs(cfg *c, const char *key, bool required, bool item_type, const char ***out, size_t *n) {
    const tv_json *v = cfg_get(c, key);
    *out = NULL;
    *n = 0;
    if (!v) {
        if (required) return cfg_fail(c, key, "[%s] required property is missing", key);
        return true;
    }
    if (v->type != TV_JSON_ARRAY)
        return cfg_fail(c, key, "[%s] property isn't a list, but of type [%s]", key, json_class(v));
    const char **a = tv_arena_calloc(&c->r->arena, v->len + 1, sizeof *a);
    if (!a) return c->r->oom = true, false;
    for (uint32_t i = 0; i < v->len; i++) {
        if (v->v.items[i].type != TV_JSON_STRING) {
            if (item_type)
                return cfg_fail(c, key, "[%s] property isn't a string, but of type [%s]", key, json_class(&v->v.items[i]));
            return cfg_fail(c, key, "[%s] property isn't a list of strings", key);
        }
        a[i] = v->v.items[i].v.s;
    }
    *out = a;
    *n = v->len;
    return true;
}

/* readOptionalList / readList of strings. */
static bool cfg_str_list(cfg *c, const char *key, bool required, const char ***out, size_t *n) {
    return cfg_strs(c, key, required, false, out, n);
}

/* A string or a list of strings (remove's field). */
static bool cfg_str_or_list(cfg *c, const char *key, bool required, const char ***out, size_t *n) {
    const tv_json *v = cfg_get(c, key);
    if (v && v->type == TV_JSON_STRING) {
        const char **a = tv_arena_calloc(&c->r->arena, 1, sizeof *a);
        *out = NULL;
        *n = 0;
        if (!a) return c->r->oom = true, false;
        a[0] = v->v.s;
        *out = a;
        *n = 1;
        return true;
    }
    return cfg_strs(c, key, required, true, out, n);
}

static bool cfg_rx(cfg *c, const char *key, const char *pat, tv_rx **out) {
    *out = rx_compile(&c->r->arena, pat);
    if (*out) return true;
    if (c->r->oom) return false;
    if (!*c->err)
        *c->err = tv_api_err_new(c->r, TROVE_EUNSUPPORTED,
                                 "trove does not support the regular expression [%s] of [%s] in processor [%s] "
                                 "(supported: literals, '.', \\s \\d \\w and their negations, [classes], "
                                 "quantifiers * + ? {n,m}, '|')",
                                 pat, key, c->type);
    return false;
}

static ing_proc *read_processor(tv_ingest *g, const tv_json *entry, tv_api_err **err, int depth);

/* readProcessorConfigs: a list of single-key objects. */
static bool read_list(tv_ingest *g, const tv_json *arr, ing_list *out, tv_api_err **err, int depth) {
    out->n = 0;
    out->v = tv_arena_calloc(&g->r->arena, arr->len + 1, sizeof *out->v);
    if (!out->v) return g->r->oom = true, false;
    for (uint32_t i = 0; i < arr->len; i++) {
        ing_proc *p = read_processor(g, &arr->v.items[i], err, depth + 1);
        if (!p) return false;
        out->v[out->n++] = p;
    }
    return true;
}

static bool known_unsupported(const char *t) {
    for (size_t i = 0; i < sizeof UNSUPPORTED_KINDS / sizeof *UNSUPPORTED_KINDS; i++)
        if (strcmp(UNSUPPORTED_KINDS[i], t) == 0) return true;
    return false;
}

static bool compile_script(tv_ingest *g, cfg *c, const char *src, size_t len, tv_script **out) {
    tv_script_error se;
    tv_script *s = tv_script_get(src, len, TV_SCRIPT_G_CTX, &se);
    if (!s) {
        if (se.code == TROVE_ENOMEM) return g->r->oom = true, false;
        tv_api_script as = {.source = src, .len = len};
        if (!*c->err) *c->err = tv_api_script_error(g->r, &as, &se);
        if (*c->err) {
            tv_api_err_meta(*c->err, "processor_type", c->type);
            if (c->tag) tv_api_err_meta(*c->err, "processor_tag", c->tag);
        }
        return false;
    }
    if (!keep_script(g, s)) return false;
    *out = s;
    return true;
}

/* Reads the options of one processor of kind k from c into p. */
static bool read_options(tv_ingest *g, cfg *c, ing_proc *p, int depth) {
    tv_req *r = g->r;
    switch (p->kind) {
    case P_SET:
    case P_APPEND: {
        if (!cfg_str(c, "field", true, NULL, &p->field)) return false;
        if (p->kind == P_SET) {
            if (!cfg_str(c, "copy_from", false, NULL, &p->copy_from)) return false;
        }
        p->value = cfg_get(c, "value");
        if (p->copy_from && p->value)
            return cfg_fail(c, "copy_from", "[copy_from] cannot set both `copy_from` and `value` in the same processor");
        if (!p->copy_from && !p->value) return cfg_fail(c, "value", "[value] required property is missing");
        if (p->kind == P_SET) {
            if (!cfg_bool(c, "override", true, &p->override)) return false;
            if (!cfg_bool(c, "ignore_empty_value", false, &p->ignore_empty)) return false;
        } else {
            if (!cfg_bool(c, "allow_duplicates", true, &p->allow_dups)) return false;
        }
        return true;
    }
    case P_REMOVE: {
        if (!cfg_str_or_list(c, "field", false, &p->fields, &p->nfields)) return false;
        if (!cfg_str_or_list(c, "exclude_field", false, &p->exclude, &p->nexclude)) return false;
        if (p->fields && p->exclude)
            return cfg_fail(c, "field", "[field] either field or exclude_field must be set");
        if (!p->fields && !p->exclude)
            return cfg_fail(c, "field", "[field] either field or exclude_field must be set");
        return cfg_bool(c, "ignore_missing", false, &p->ignore_missing);
    }
    case P_RENAME:
        if (!cfg_str(c, "field", true, NULL, &p->field) || !cfg_str(c, "target_field", true, NULL, &p->target))
            return false;
        if (!cfg_bool(c, "override_target", false, &p->override)) return false;
        return cfg_bool(c, "ignore_missing", false, &p->ignore_missing);
    case P_LOWERCASE:
    case P_UPPERCASE:
    case P_TRIM:
    case P_HTML_STRIP:
    case P_URLDECODE:
    case P_BYTES:
    case P_JSON:
    case P_SORT:
    case P_JOIN:
    case P_SPLIT:
    case P_GSUB:
    case P_CONVERT:
    case P_DATE:
    case P_KV:
    case P_CSV:
        if (!cfg_str(c, "field", true, NULL, &p->field)) return false;
        break;
    case P_SCRIPT: {
        const tv_json *lang = cfg_get(c, "lang");
        const tv_json *src = cfg_get(c, "source");
        const tv_json *id = cfg_get(c, "id");
        const tv_json *params = cfg_get(c, "params");
        const tv_json *inl = cfg_get(c, "inline");
        if (inl && !src) src = inl;
        (void)cfg_get(c, "options");
        if (src && id) return cfg_fail(c, NULL, "Only one of [id] or [source] may be configured");
        if (!src && !id) return cfg_fail(c, NULL, "Need [id] or [source] parameter to refer to scripts");
        if (lang && (lang->type != TV_JSON_STRING || strcmp(lang->v.s, "painless") != 0)) {
            if (!c->err[0])
                *c->err = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support script lang [%s] in ingest",
                                         lang->type == TV_JSON_STRING ? lang->v.s : "?");
            return false;
        }
        if (params && params->type != TV_JSON_OBJECT)
            return cfg_fail(c, "params", "[params] property isn't a map, but of type [%s]", json_class(params));
        p->script.params = params;
        if (src) {
            if (src->type != TV_JSON_STRING)
                return cfg_fail(c, "source", "[source] property isn't a string, but of type [%s]", json_class(src));
            p->script.source = src->v.s;
            p->script.len = src->len;
            return compile_script(g, c, src->v.s, src->len, &p->compiled);
        }
        if (id->type != TV_JSON_STRING)
            return cfg_fail(c, "id", "[id] property isn't a string, but of type [%s]", json_class(id));
        p->script.id = id->v.s;
        tv_api_err *e = NULL;
        p->compiled = tv_api_script_compile(r, &p->script, TV_SCRIPT_G_CTX, &e);
        if (!p->compiled) {
            if (!*c->err) *c->err = e;
            return false;
        }
        return keep_script(g, p->compiled);
    }
    case P_COPY:
        if (!cfg_str(c, "source_field", true, NULL, &p->field) || !cfg_str(c, "target_field", true, NULL, &p->target))
            return false;
        if (!cfg_bool(c, "ignore_missing", false, &p->ignore_missing)) return false;
        if (!cfg_bool(c, "remove_source", false, &p->add_to_root)) return false;
        return cfg_bool(c, "override_target", false, &p->override);
    case P_REMOVE_BY_PATTERN: {
        if (!cfg_str_or_list(c, "field_pattern", false, &p->fields, &p->nfields)) return false;
        if (!cfg_str_or_list(c, "exclude_field_pattern", false, &p->exclude, &p->nexclude)) return false;
        if ((!p->fields && !p->exclude) || (p->fields && p->exclude))
            return cfg_fail(c, "field_pattern", "[field_pattern] ether field_pattern or exclude_field_pattern must be set");
        const char *key = p->fields ? "field_pattern" : "exclude_field_pattern";
        const char **pats = p->fields ? p->fields : p->exclude;
        size_t np = p->fields ? p->nfields : p->nexclude;
        tv_buf b;
        tv_buf_init(&b);
        int ne = 0;
        for (size_t i = 0; i < np; i++) {
            const char *f = pats[i];
            if (strchr(f, ' ')) tv_buf_printf(&b, "%d: %s [%s] must not contain a space;", ++ne, key, f);
            if (strchr(f, ',')) tv_buf_printf(&b, "%d: %s [%s] must not contain a ',';", ++ne, key, f);
            if (strchr(f, '#')) tv_buf_printf(&b, "%d: %s [%s] must not contain a '#';", ++ne, key, f);
            if (strchr(f, ':')) tv_buf_printf(&b, "%d: %s [%s] must not contain a ':';", ++ne, key, f);
            if (f[0] == '_') tv_buf_printf(&b, "%d: %s [%s] must not start with '_';", ++ne, key, f);
            if (strpbrk(f, "\\/?\"<>| ,"))
                tv_buf_printf(&b, "%d: %s [%s] must not contain the following characters [ , \", *, \\, <, |, ,, >, /, ?];",
                              ++ne, key, f);
        }
        bool bad = ne > 0;
        if (bad) cfg_fail(c, key, "[%s] Validation Failed: %s", key, b.oom ? "" : b.data);
        if (b.oom) r->oom = true;
        tv_buf_fini(&b);
        return !bad && !r->oom;
    }
    case P_FAIL:
        return cfg_str(c, "message", true, NULL, &p->str1);
    case P_DROP:
        return true;
    case P_PIPELINE:
        if (!cfg_str(c, "name", true, NULL, &p->str1)) return false;
        return cfg_bool(c, "ignore_missing_pipeline", false, &p->ignore_missing);
    case P_FOREACH: {
        if (!cfg_str(c, "field", true, NULL, &p->field)) return false;
        if (!cfg_bool(c, "ignore_missing", false, &p->ignore_missing)) return false;
        const tv_json *pr = cfg_get(c, "processor");
        if (!pr) return cfg_fail(c, "processor", "[processor] required property is missing");
        if (pr->type != TV_JSON_OBJECT)
            return cfg_fail(c, "processor", "[processor] property isn't a map, but of type [%s]", json_class(pr));
        if (pr->len != 1) return cfg_fail(c, "processor", "[processor] Must specify exactly one processor type");
        p->inner = read_processor(g, pr, c->err, depth + 1);
        return p->inner != NULL;
    }
    case P_DOT_EXPANDER:
        if (!cfg_str(c, "field", true, NULL, &p->field)) return false;
        if (!cfg_str(c, "path", false, NULL, &p->str1)) return false;
        if (!strchr(p->field, '.')) return cfg_fail(c, "field", "[field] field does not contain a dot");
        if (p->field[0] == '.' || p->field[strlen(p->field) - 1] == '.' || strstr(p->field, ".."))
            return cfg_fail(c, "field", "[field] Field [%s] is invalid", p->field);
        return true;
    }
    /* field processors: target_field, ignore_missing and their own */
    if (p->kind != P_DATE && p->kind != P_CSV && !cfg_str(c, "target_field", false, p->field, &p->target))
        return false;
    if (p->kind != P_DATE && p->kind != P_JOIN && p->kind != P_SORT && p->kind != P_JSON &&
        !cfg_bool(c, "ignore_missing", false, &p->ignore_missing))
        return false;
    switch (p->kind) {
    case P_CONVERT: {
        const char *t;
        if (!cfg_str(c, "type", true, NULL, &t)) return false;
        static const char *const types[] = {"integer", "long", "float", "double", "boolean", "string", "auto", "ip"};
        p->conv = -1;
        for (int i = 0; i < 8; i++)
            if (strcmp(types[i], t) == 0) p->conv = i;
        if (p->conv < 0) return cfg_fail(c, "type", "[type] type [%s] not supported, cannot convert field.", t);
        return true;
    }
    case P_SPLIT:
        if (!cfg_str(c, "separator", true, NULL, &p->str1)) return false;
        if (!cfg_bool(c, "preserve_trailing", false, &p->preserve_trailing)) return false;
        return cfg_rx(c, "separator", p->str1, &p->rx1);
    case P_GSUB:
        if (!cfg_str(c, "pattern", true, NULL, &p->str1) || !cfg_str(c, "replacement", true, NULL, &p->str2))
            return false;
        return cfg_rx(c, "pattern", p->str1, &p->rx1);
    case P_JOIN:
        return cfg_str(c, "separator", true, NULL, &p->str1);
    case P_JSON: {
        if (!cfg_bool(c, "add_to_root", false, &p->add_to_root)) return false;
        const tv_json *tf = NULL;
        for (uint32_t i = 0; i < c->obj->len; i++)
            if (strcmp(c->obj->v.members[i].key, "target_field") == 0) tf = &c->obj->v.members[i].val;
        if (p->add_to_root && tf && tf->type != TV_JSON_NULL)
            return cfg_fail(c, "target_field", "[target_field] Cannot set a target field while also setting `add_to_root` to true");
        return true;
    }
    case P_SORT: {
        const char *o;
        if (!cfg_str(c, "order", false, "asc", &o)) return false;
        if (strcmp(o, "asc") != 0 && strcmp(o, "desc") != 0)
            return cfg_fail(c, "order", "[order] Sort direction [%s] not recognized. Valid values are: [asc, desc]", o);
        p->desc = o[0] == 'd';
        return true;
    }
    case P_DATE: {
        if (!cfg_str(c, "target_field", false, "@timestamp", &p->target)) return false;
        if (!cfg_str_list(c, "formats", true, &p->formats, &p->nformats)) return false;
        const char *tz = NULL, *loc = NULL;
        if (!cfg_str(c, "timezone", false, NULL, &tz) || !cfg_str(c, "locale", false, NULL, &loc)) return false;
        if (!cfg_str(c, "output_format", false, "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", &p->output_format)) return false;
        if (loc && strcmp(loc, "ENGLISH") != 0 && strcmp(loc, "en") != 0 && strcmp(loc, "en_US") != 0 &&
            strcmp(loc, "ROOT") != 0 && strcmp(loc, "en-US") != 0) {
            if (!*c->err) *c->err = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support the date processor's locale [%s]", loc);
            return false;
        }
        if (tz && strstr(tz, "{{")) {
            if (!*c->err) *c->err = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support a template as the date processor's timezone");
            return false;
        }
        tv_error te;
        tv_error_clear(&te);
        p->tz = tv_tz_utc();
        if (tz && tv_tz_get(tz, strlen(tz), &p->tz, &te) != TROVE_OK) {
            if (te.code == TROVE_ENOMEM) return r->oom = true, false;
            return cfg_fail(c, "timezone", "[timezone] %s", te.reason);
        }
        tv_error_clear(&te);
        if (tv_date_format_check(p->output_format, &te) != TROVE_OK) {
            if (!*c->err) *c->err = tv_api_err_new(r, te.code == TROVE_EUNSUPPORTED ? TROVE_EUNSUPPORTED : TROVE_EARG, "%s", te.reason);
            return false;
        }
        for (size_t i = 0; i < p->nformats; i++) {
            const char *f = p->formats[i];
            if (strcmp(f, "ISO8601") == 0 || strcmp(f, "UNIX") == 0 || strcmp(f, "UNIX_MS") == 0) continue;
            if (strcmp(f, "TAI64N") == 0) {
                if (!*c->err) *c->err = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support the date format [TAI64N]");
                return false;
            }
            tv_error_clear(&te);
            if (tv_date_format_check(f, &te) != TROVE_OK) {
                if (!*c->err) *c->err = tv_api_err_new(r, te.code == TROVE_EUNSUPPORTED ? TROVE_EUNSUPPORTED : TROVE_EARG, "%s", te.reason);
                return false;
            }
        }
        return true;
    }
    case P_KV: {
        const char *fs, *vs;
        if (!cfg_str(c, "field_split", true, NULL, &fs) || !cfg_str(c, "value_split", true, NULL, &vs)) return false;
        if (!cfg_rx(c, "field_split", fs, &p->rx1) || !cfg_rx(c, "value_split", vs, &p->rx2)) return false;
        p->str2 = vs;
        if (!cfg_str_list(c, "include_keys", false, &p->formats, &p->nformats)) return false;
        if (!cfg_str_list(c, "exclude_keys", false, &p->excl_keys, &p->nexcl_keys)) return false;
        if (!cfg_str(c, "prefix", false, "", &p->prefix)) return false;
        if (!cfg_str(c, "trim_key", false, NULL, &p->trim_key)) return false;
        if (!cfg_str(c, "trim_value", false, NULL, &p->trim_value)) return false;
        if (!cfg_bool(c, "strip_brackets", false, &p->strip_brackets)) return false;
        if (p->target == p->field) p->target = NULL; /* kv: no target is the root */
        {
            const tv_json *tf = NULL;
            for (uint32_t i = 0; i < c->obj->len; i++)
                if (strcmp(c->obj->v.members[i].key, "target_field") == 0) tf = &c->obj->v.members[i].val;
            if (tf && tf->type == TV_JSON_STRING) p->target = tf->v.s;
        }
        return true;
    }
    case P_CSV: {
        if (!cfg_str_list(c, "target_fields", true, &p->formats, &p->nformats)) return false;
        if (p->nformats == 0) return cfg_fail(c, "target_fields", "[target_fields] target fields list can't be empty");
        const char *sep, *quote;
        if (!cfg_str(c, "separator", false, ",", &sep) || !cfg_str(c, "quote", false, "\"", &quote)) return false;
        if (strlen(sep) != 1) return cfg_fail(c, "separator", "[separator] separator has to be single character like , or ;");
        if (strlen(quote) != 1) return cfg_fail(c, "quote", "[quote] quote has to be single character like \" or '");
        p->sep = sep[0];
        p->quote = quote[0];
        if (!cfg_bool(c, "trim", false, &p->trim)) return false;
        p->empty_value = cfg_get(c, "empty_value");
        return true;
    }
    default:
        return true;
    }
}

static ing_proc *read_processor(tv_ingest *g, const tv_json *entry, tv_api_err **err, int depth) {
    tv_req *r = g->r;
    if (depth > 64) {
        *err = tv_api_err_new(r, TROVE_EPARSEEXC, "pipeline configuration nested too deeply");
        return NULL;
    }
    if (entry->type != TV_JSON_OBJECT || entry->len != 1) {
        /* readProcessorConfigs: each entry is a map of one type */
        if (entry->type == TV_JSON_OBJECT && entry->len > 1) {
            *err = tv_api_err_new(r, TROVE_EPARSEEXC, "processor config map must have exactly one key but found [%u]", entry->len);
        } else {
            *err = tv_api_err_new(r, TROVE_EPARSEEXC, "processor [%s] doesn't support one or more provided configuration parameters",
                                  entry->type == TV_JSON_STRING ? entry->v.s : json_class(entry));
        }
        return NULL;
    }
    const char *type = entry->v.members[0].key;
    const tv_json *conf = &entry->v.members[0].val;
    int kind = -1;
    for (size_t i = 0; i < sizeof KIND_NAMES / sizeof *KIND_NAMES; i++)
        if (strcmp(KIND_NAMES[i], type) == 0) kind = (int)i;
    const char *tag = NULL;
    if (conf->type == TV_JSON_OBJECT) {
        const tv_json *t = tv_json_get(conf, "tag");
        if (t && t->type == TV_JSON_STRING) tag = t->v.s;
    }
    if (kind < 0) {
        if (known_unsupported(type))
            *err = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support the ingest processor [%s]", type);
        else
            *err = cfg_err(r, type, tag, NULL, "No processor type exists with name [%s]", type);
        return NULL;
    }
    if (conf->type != TV_JSON_OBJECT) {
        /* a script's short form is a string of source */
        if (kind == P_SCRIPT && conf->type == TV_JSON_STRING) {
            ing_proc *p = tv_arena_calloc(&r->arena, 1, sizeof *p);
            if (!p) return r->oom = true, NULL;
            p->kind = P_SCRIPT;
            p->type = type;
            p->script.source = conf->v.s;
            p->script.len = conf->len;
            bool used = false;
            cfg c = {r, conf, &used, type, NULL, err};
            if (!compile_script(g, &c, conf->v.s, conf->len, &p->compiled)) return NULL;
            return p;
        }
        *err = cfg_err(r, type, NULL, NULL, "[%s] property isn't a map, but of type [%s]", type, json_class(conf));
        return NULL;
    }
    ing_proc *p = tv_arena_calloc(&r->arena, 1, sizeof *p);
    bool *used = tv_arena_calloc(&r->arena, conf->len + 1, sizeof *used);
    if (!p || !used) return r->oom = true, NULL;
    p->kind = (ing_kind)kind;
    p->type = type;
    cfg c = {r, conf, used, type, NULL, err};
    /* the common options (ConfigurationUtils.readProcessor) */
    const tv_json *tj = cfg_get(&c, "tag");
    if (tj) {
        if (tj->type != TV_JSON_STRING) return cfg_fail(&c, "tag", "[tag] property isn't a string, but of type [%s]", json_class(tj)), NULL;
        p->tag = tj->v.s;
        c.tag = p->tag;
    }
    if (!cfg_str(&c, "description", false, NULL, &p->description)) return NULL;
    if (!cfg_bool(&c, "ignore_failure", false, &p->ignore_failure)) return NULL;
    const tv_json *of = cfg_get(&c, "on_failure");
    if (of) {
        if (of->type != TV_JSON_ARRAY)
            return cfg_fail(&c, "on_failure", "[on_failure] property isn't a list, but of type [%s]", json_class(of)), NULL;
        if (of->len == 0) return cfg_fail(&c, "on_failure", "[on_failure] processors list cannot be empty"), NULL;
        if (!read_list(g, of, &p->on_failure, err, depth)) return NULL;
    }
    const tv_json *cond = cfg_get(&c, "if");
    if (cond) {
        const char *src = NULL;
        size_t len = 0;
        if (cond->type == TV_JSON_STRING) {
            src = cond->v.s;
            len = cond->len;
        } else if (cond->type == TV_JSON_OBJECT) {
            const tv_json *s = tv_json_get(cond, "source");
            const tv_json *l = tv_json_get(cond, "lang");
            if (l && (l->type != TV_JSON_STRING || strcmp(l->v.s, "painless") != 0)) {
                *err = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove does not support a condition of another lang than painless");
                return NULL;
            }
            if (!s || s->type != TV_JSON_STRING || tv_json_get(cond, "id") || tv_json_get(cond, "params")) {
                *err = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove supports an ingest condition as an inline source only");
                return NULL;
            }
            src = s->v.s;
            len = s->len;
        } else {
            return cfg_fail(&c, "if", "[if] property isn't a string, but of type [%s]", json_class(cond)), NULL;
        }
        p->cond_src = src;
        if (!compile_script(g, &c, src, len, &p->cond)) return NULL;
    }
    if (!read_options(g, &c, p, depth)) {
        if (!*err && !r->oom) *err = cfg_err(r, type, p->tag, NULL, "invalid configuration");
        return NULL;
    }
    /* config.isEmpty() == false: the keys left, in HashMap order */
    const char *left[64];
    uint32_t nleft = 0;
    for (uint32_t i = 0; i < conf->len && nleft < 64; i++)
        if (!used[i]) left[nleft++] = conf->v.members[i].key;
    if (nleft) {
        uint32_t order[64];
        tv_java_hashmap_order(left, nleft, order);
        tv_buf b;
        tv_buf_init(&b);
        tv_buf_putc(&b, '[');
        for (uint32_t i = 0; i < nleft; i++) {
            if (i) tv_buf_puts(&b, ", ");
            tv_buf_puts(&b, left[order[i]]);
        }
        tv_buf_putc(&b, ']');
        *err = cfg_err(r, type, p->tag, NULL, "processor [%s] doesn't support one or more provided configuration parameters %s",
                       type, b.oom ? "" : b.data);
        tv_buf_fini(&b);
        return NULL;
    }
    return p;
}

/* Pipeline.create over a configuration object. */
static ing_pipeline *read_pipeline(tv_ingest *g, const char *id, const tv_json *conf, tv_api_err **err) {
    tv_req *r = g->r;
    ing_pipeline *pl = tv_arena_calloc(&r->arena, 1, sizeof *pl);
    if (!pl) return r->oom = true, NULL;
    pl->id = id;
    if (conf->type != TV_JSON_OBJECT) {
        *err = tv_api_err_new(r, TROVE_EPARSEEXC, "pipeline configuration must be an object");
        return NULL;
    }
    const tv_json *procs = NULL, *of = NULL;
    const char *left[64];
    uint32_t nleft = 0;
    for (uint32_t i = 0; i < conf->len; i++) {
        const tv_json_member *m = &conf->v.members[i];
        if (m->val.type == TV_JSON_NULL) continue;
        if (strcmp(m->key, "description") == 0) {
            if (m->val.type != TV_JSON_STRING) {
                *err = cfg_err(r, NULL, NULL, "description", "[description] property isn't a string, but of type [%s]", json_class(&m->val));
                return NULL;
            }
            pl->description = m->val.v.s;
        } else if (strcmp(m->key, "version") == 0) {
            if (m->val.type != TV_JSON_INT && !(m->val.type == TV_JSON_STRING)) {
                *err = cfg_err(r, NULL, NULL, "version", "Failed to parse property [version] with value [%s]", json_class(&m->val));
                return NULL;
            }
        } else if (strcmp(m->key, "processors") == 0) {
            procs = &m->val;
        } else if (strcmp(m->key, "on_failure") == 0) {
            of = &m->val;
        } else if (strcmp(m->key, "_meta") == 0) {
            if (m->val.type != TV_JSON_OBJECT) {
                *err = cfg_err(r, NULL, NULL, "_meta", "[_meta] property isn't a map, but of type [%s]", json_class(&m->val));
                return NULL;
            }
        } else if (nleft < 64) {
            left[nleft++] = m->key;
        }
    }
    if (!procs) {
        *err = cfg_err(r, NULL, NULL, "processors", "[processors] required property is missing");
        return NULL;
    }
    if (procs->type != TV_JSON_ARRAY) {
        *err = cfg_err(r, NULL, NULL, "processors", "[processors] property isn't a list, but of type [%s]", json_class(procs));
        return NULL;
    }
    if (!read_list(g, procs, &pl->procs, err, 0)) return NULL;
    if (of) {
        if (of->type != TV_JSON_ARRAY) {
            *err = cfg_err(r, NULL, NULL, "on_failure", "[on_failure] property isn't a list, but of type [%s]", json_class(of));
            return NULL;
        }
        if (!read_list(g, of, &pl->on_failure, err, 0)) return NULL;
        if (pl->on_failure.n == 0) {
            *err = tv_api_err_new(r, TROVE_EPARSEEXC, "pipeline [%s] cannot have an empty on_failure option defined", id);
            return NULL;
        }
    }
    if (nleft) {
        uint32_t order[64];
        tv_java_hashmap_order(left, nleft, order);
        tv_buf b;
        tv_buf_init(&b);
        for (uint32_t i = 0; i < nleft; i++) {
            if (i) tv_buf_puts(&b, ", ");
            tv_buf_puts(&b, left[order[i]]);
        }
        *err = tv_api_err_new(r, TROVE_EPARSEEXC, "pipeline [%s] doesn't support one or more provided configuration parameters [%s]",
                              id, b.oom ? "" : b.data);
        tv_buf_fini(&b);
        return NULL;
    }
    return pl;
}

bool tv_ingest_validate(tv_ingest *g, const char *id, const tv_json *conf, tv_api_err **err) {
    *err = NULL;
    return read_pipeline(g, id, conf, err) != NULL;
}

/* The configuration of a stored pipeline (arena copy), NULL when none. */
const tv_json *tv_ingest_stored(tv_req *r, const char *id) {
    pthread_rwlock_rdlock(&r->node->lock);
    const char *all = r->node->st->pipelines;
    char *copy = all ? tv_arena_strndup(&r->arena, all, strlen(all)) : NULL;
    if (all && !copy) r->oom = true;
    pthread_rwlock_unlock(&r->node->lock);
    if (!copy) return NULL;
    tv_json *j;
    if (tv_json_parse(&r->arena, copy, strlen(copy), &j, NULL) != TROVE_OK) {
        r->oom = true;
        return NULL;
    }
    return tv_json_get(j, id);
}

/* The pipeline of that id, read once per request. NULL with *err (it does
 * not exist: *err NULL and *missing true; its configuration no longer
 * reads) or r->oom. */
static ing_pipeline *get_pipeline(tv_ingest *g, const char *id, bool *missing, tv_api_err **err) {
    *missing = false;
    *err = NULL;
    for (size_t i = 0; i < g->ncache; i++)
        if (strcmp(g->cache[i].id, id) == 0) {
            *err = g->cache[i].err;
            *missing = !g->cache[i].p && !g->cache[i].err;
            return g->cache[i].p;
        }
    const tv_json *conf = tv_ingest_stored(g->r, id);
    if (g->r->oom) return NULL;
    ing_pipeline *p = NULL;
    if (!conf) {
        *missing = true;
    } else {
        p = read_pipeline(g, id, conf, err);
        if (g->r->oom) return NULL;
    }
    if (g->ncache == g->ccache) {
        size_t nc = g->ccache ? g->ccache * 2 : 4;
        struct ing_cached *v = tv_realloc(g->cache, nc * sizeof *v);
        if (!v) return g->r->oom = true, NULL;
        g->cache = v;
        g->ccache = nc;
    }
    const char *cid = tv_arena_strndup(&g->r->arena, id, strlen(id));
    if (!cid) return g->r->oom = true, NULL;
    g->cache[g->ncache++] = (struct ing_cached){cid, p, *err};
    return p;
}

/* ============================================================ documents */

typedef struct ing_doc {
    tv_sv src;    /* sourceAndMetadata: a HashMap */
    tv_sv ingest; /* _ingest: a HashMap */
} ing_doc;

/* A runtime failure of a processor. */
typedef struct ing_fail {
    tv_api_err *e;
    const char *ptype, *ptag;
} ing_fail;

typedef struct ing_run {
    tv_ingest *g;
    tv_req *r;
    ing_doc *doc;
    const char *stack[32]; /* pipelines being run (cycle detection) */
    int nstack;
    bool dropped;
} ing_run;

static const char *sv_class(const tv_sv *v) {
    switch (v->type) {
    case TV_SV_BOOL: return "java.lang.Boolean";
    case TV_SV_CHAR: return "java.lang.Character";
    case TV_SV_INT: return "java.lang.Integer";
    case TV_SV_LONG: return "java.lang.Long";
    case TV_SV_FLOAT: return "java.lang.Float";
    case TV_SV_DOUBLE: return "java.lang.Double";
    case TV_SV_STRING: return "java.lang.String";
    case TV_SV_LIST: return "java.util.ArrayList";
    case TV_SV_MAP: return "java.util.HashMap";
    default: return "null";
    }
}

static tv_api_err *run_err(ing_run *x, tv_status code, const char *fmt, ...) TV_PRINTF(3, 4);
static tv_api_err *run_err(ing_run *x, tv_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char buf[2048];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return tv_api_err_new(x->r, code, "%s", buf);
}

static bool sv_str(ing_run *x, const char *s, size_t n, tv_sv *out) {
    if (!tv_sv_string(&x->r->arena, s, n, out)) return x->r->oom = true, false;
    return true;
}

/* A deep copy (set's copy_from, foreach, conditions' read-only view). */
static bool sv_copy(ing_run *x, const tv_sv *v, tv_sv *out) {
    tv_arena *a = &x->r->arena;
    if (v->type == TV_SV_LIST) {
        if (!tv_sv_list_new(a, TV_SV_ARRAYLIST, out)) return x->r->oom = true, false;
        for (uint32_t i = 0; i < v->v.list->len; i++) {
            tv_sv c;
            if (!sv_copy(x, &v->v.list->items[i], &c) || !tv_sv_list_add(a, out->v.list, c)) return x->r->oom = true, false;
        }
        return true;
    }
    if (v->type == TV_SV_MAP) {
        if (!tv_sv_map_new(a, false, out)) return x->r->oom = true, false;
        uint32_t it = 0;
        const tv_sv *k, *val;
        while (tv_sv_map_next(v->v.map, &it, &k, &val)) {
            tv_sv c;
            if (k->type != TV_SV_STRING) continue;
            if (!sv_copy(x, val, &c) || !tv_sv_map_put_str(a, out->v.map, k->v.s->s, k->v.s->len, c))
                return x->r->oom = true, false;
        }
        return true;
    }
    *out = *v;
    return true;
}

/* IngestDocument.FieldPath: the root map a path starts at and its rest. */
static const char *path_root(ing_run *x, const char *path, tv_sv **root) {
    if (strncmp(path, "_ingest.", 8) == 0) {
        *root = &x->doc->ingest;
        return path + 8;
    }
    *root = &x->doc->src;
    if (strncmp(path, "_source.", 8) == 0) return path + 8;
    return path;
}

static bool parse_index(const char *s, size_t n, long *out) {
    if (n == 0 || n > 10) return false;
    long v = 0;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        i = 1;
        if (n == 1) return false;
    }
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = neg ? -v : v;
    return true;
}

/* A list element of a path as an index into l: false with *e when it is
 * not an integer or out of bounds (IngestDocument's messages). */
static bool list_index(ing_run *x, const tv_sv_list *l, const char *el, size_t n, const char *path, long *i,
                       tv_api_err **e) {
    if (!parse_index(el, n, i)) {
        *e = run_err(x, TROVE_EARG, "[%.*s] is not an integer, cannot be used as an index as part of path [%s]", (int)n, el, path);
        return false;
    }
    if (*i < 0 || (uint32_t)*i >= l->len) {
        *e = run_err(x, TROVE_EARG, "[%ld] is out of bounds for array with length [%u] as part of path [%s]", *i, l->len, path);
        return false;
    }
    return true;
}

/* Resolves one path element against ctx (a map or list). *out NULL when
 * absent; *e set when the element cannot be resolved (errors as
 * IngestDocument's resolve). */
static tv_sv *resolve_step(ing_run *x, tv_sv *ctx, const char *el, size_t n, const char *path, tv_api_err **e) {
    if (ctx->type == TV_SV_NULL) {
        *e = run_err(x, TROVE_EARG, "cannot resolve [%.*s] from null as part of path [%s]", (int)n, el, path);
        return NULL;
    }
    if (ctx->type == TV_SV_MAP) {
        const tv_sv *v = tv_sv_map_get_str(ctx->v.map, el, n);
        if (!v) {
            *e = run_err(x, TROVE_EARG, "field [%.*s] not present as part of path [%s]", (int)n, el, path);
            return NULL;
        }
        return (tv_sv *)v;
    }
    if (ctx->type == TV_SV_LIST) {
        long i;
        if (!list_index(x, ctx->v.list, el, n, path, &i, e)) return NULL;
        return &ctx->v.list->items[i];
    }
    *e = run_err(x, TROVE_EARG, "cannot resolve [%.*s] from object of type [%s] as part of path [%s]", (int)n, el,
                 sv_class(ctx), path);
    return NULL;
}

/* getFieldValue: NULL with *e when the path does not resolve. */
static tv_sv *get_field(ing_run *x, const char *path, tv_api_err **e) {
    *e = NULL;
    if (!*path) {
        *e = run_err(x, TROVE_EARG, "path cannot be null nor empty");
        return NULL;
    }
    tv_sv *ctx;
    const char *p = path_root(x, path, &ctx);
    if (strcmp(path, "_ingest") == 0) return &x->doc->ingest;
    while (1) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        ctx = resolve_step(x, ctx, p, n, path, e);
        if (!ctx) return NULL;
        if (!dot) return ctx;
        p = dot + 1;
    }
}

static bool has_field(ing_run *x, const char *path) {
    tv_api_err *e;
    tv_sv *v = get_field(x, path, &e);
    return v != NULL;
}

/* setFieldValue / appendFieldValue. */
static bool set_field(ing_run *x, const char *path, tv_sv val, bool append, bool allow_dups, tv_api_err **e) {
    *e = NULL;
    tv_arena *a = &x->r->arena;
    if (!*path) {
        *e = run_err(x, TROVE_EARG, "path cannot be null nor empty");
        return false;
    }
    tv_sv *ctx;
    const char *p = path_root(x, path, &ctx);
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (!dot) {
            /* the leaf */
            if (ctx->type == TV_SV_MAP) {
                if (append) {
                    const tv_sv *old = tv_sv_map_get_str(ctx->v.map, p, n);
                    if (old) {
                        tv_sv list = *old;
                        if (old->type != TV_SV_LIST) {
                            if (!tv_sv_list_new(a, TV_SV_ARRAYLIST, &list) || !tv_sv_list_add(a, list.v.list, *old))
                                return x->r->oom = true, false;
                        }
                        const tv_sv *vals = &val;
                        uint32_t nv = 1;
                        if (val.type == TV_SV_LIST) {
                            vals = val.v.list->items;
                            nv = val.v.list->len;
                        }
                        for (uint32_t i = 0; i < nv; i++) {
                            bool dup = false;
                            if (!allow_dups)
                                for (uint32_t k = 0; k < list.v.list->len && !dup; k++)
                                    dup = tv_sv_equals(&list.v.list->items[k], &vals[i]);
                            if (!dup && !tv_sv_list_add(a, list.v.list, vals[i])) return x->r->oom = true, false;
                        }
                        val = list;
                    }
                }
                if (!tv_sv_map_put_str(a, ctx->v.map, p, n, val)) return x->r->oom = true, false;
                return true;
            }
            if (ctx->type == TV_SV_LIST) {
                long i;
                if (!list_index(x, ctx->v.list, p, n, path, &i, e)) return false;
                if (append) {
                    tv_sv *slot = &ctx->v.list->items[i];
                    tv_sv list = *slot;
                    if (slot->type != TV_SV_LIST) {
                        if (!tv_sv_list_new(a, TV_SV_ARRAYLIST, &list) || !tv_sv_list_add(a, list.v.list, *slot))
                            return x->r->oom = true, false;
                    }
                    if (!tv_sv_list_add(a, list.v.list, val)) return x->r->oom = true, false;
                    *slot = list;
                } else {
                    ctx->v.list->items[i] = val;
                }
                return true;
            }
            *e = run_err(x, TROVE_EARG, "cannot set [%.*s] with parent object of type [%s] as part of path [%s]", (int)n, p,
                         sv_class(ctx), path);
            return false;
        }
        if (ctx->type == TV_SV_NULL) {
            *e = run_err(x, TROVE_EARG, "cannot set [%.*s] with null parent as part of path [%s]", (int)n, p, path);
            return false;
        }
        if (ctx->type == TV_SV_MAP) {
            const tv_sv *next = tv_sv_map_get_str(ctx->v.map, p, n);
            if (!next) {
                tv_sv m;
                if (!tv_sv_map_new(a, false, &m) || !tv_sv_map_put_str(a, ctx->v.map, p, n, m)) return x->r->oom = true, false;
                next = tv_sv_map_get_str(ctx->v.map, p, n);
            }
            ctx = (tv_sv *)next;
        } else {
            /* a list index, or resolve's error */
            ctx = resolve_step(x, ctx, p, n, path, e);
            if (!ctx) return false;
        }
        p = dot + 1;
    }
}

/* removeField. */
static bool remove_field(ing_run *x, const char *path, tv_api_err **e) {
    *e = NULL;
    tv_sv *ctx;
    const char *p = path_root(x, path, &ctx);
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (!dot) {
            if (ctx->type == TV_SV_MAP) {
                tv_sv old;
                if (!tv_sv_map_remove_str(ctx->v.map, p, n, &old)) {
                    *e = run_err(x, TROVE_EARG, "field [%.*s] not present as part of path [%s]", (int)n, p, path);
                    return false;
                }
                return true;
            }
            if (ctx->type == TV_SV_LIST) {
                long i;
                tv_sv_list *l = ctx->v.list;
                if (!list_index(x, l, p, n, path, &i, e)) return false;
                memmove(&l->items[i], &l->items[i + 1], (l->len - (uint32_t)i - 1) * sizeof *l->items);
                l->len--;
                return true;
            }
            if (ctx->type == TV_SV_NULL) {
                *e = run_err(x, TROVE_EARG, "cannot remove [%.*s] from null as part of path [%s]", (int)n, p, path);
                return false;
            }
            *e = run_err(x, TROVE_EARG, "cannot remove [%.*s] from object of type [%s] as part of path [%s]", (int)n, p,
                         sv_class(ctx), path);
            return false;
        }
        ctx = resolve_step(x, ctx, p, n, path, e);
        if (!ctx) return false;
        p = dot + 1;
    }
}

/* ------------------------------------------------------------ templates */

/* The value a mustache name resolves to in the template model (the
 * document, _ingest, _source), or NULL. Dots walk maps and list indices. */
static const tv_sv *tmpl_lookup(ing_run *x, const char *name, size_t n) {
    tv_sv *ctx = &x->doc->src;
    const char *p = name, *end = name + n;
    if (n >= 7 && strncmp(name, "_ingest", 7) == 0 && (n == 7 || name[7] == '.')) {
        ctx = &x->doc->ingest;
        p = n == 7 ? end : name + 8;
        if (p == end) return ctx;
    } else if (n >= 7 && strncmp(name, "_source", 7) == 0 && (n == 7 || name[7] == '.')) {
        p = n == 7 ? end : name + 8;
        if (p == end) return ctx;
    }
    while (p < end) {
        const char *dot = memchr(p, '.', (size_t)(end - p));
        size_t k = dot ? (size_t)(dot - p) : (size_t)(end - p);
        if (ctx->type == TV_SV_MAP) {
            const tv_sv *v = tv_sv_map_get_str(ctx->v.map, p, k);
            if (!v) return NULL;
            ctx = (tv_sv *)v;
        } else if (ctx->type == TV_SV_LIST) {
            long i;
            if (!parse_index(p, k, &i) || i < 0 || (uint32_t)i >= ctx->v.list->len) return NULL;
            ctx = &ctx->v.list->items[i];
        } else {
            return NULL;
        }
        if (!dot) break;
        p = dot + 1;
    }
    return ctx;
}

/* Renders a template: {{name}} (JSON-escaped, as the ingest templates'
 * default content type escapes) and {{{name}}} (raw). Section tags and
 * other mustache features are refused. */
static bool render(ing_run *x, const char *t, tv_buf *out, tv_api_err **e) {
    *e = NULL;
    const char *p = t;
    while (*p) {
        const char *o = strstr(p, "{{");
        if (!o) {
            tv_buf_puts(out, p);
            break;
        }
        tv_buf_append(out, p, (size_t)(o - p));
        bool triple = o[2] == '{';
        const char *s = o + (triple ? 3 : 2);
        const char *c = strstr(s, triple ? "}}}" : "}}");
        if (!c) {
            *e = run_err(x, TROVE_EUNSUPPORTED, "trove cannot render the template [%s]", t);
            return false;
        }
        while (s < c && *s == ' ') s++;
        const char *ce = c;
        while (ce > s && ce[-1] == ' ') ce--;
        if (s < ce && (*s == '#' || *s == '^' || *s == '/' || *s == '!' || *s == '>' || *s == '&' || *s == '=')) {
            *e = run_err(x, TROVE_EUNSUPPORTED, "trove does not support mustache sections in ingest templates: [%s]", t);
            return false;
        }
        const tv_sv *v = tmpl_lookup(x, s, (size_t)(ce - s));
        if (v && v->type != TV_SV_NULL) {
            tv_buf tmp;
            tv_buf_init(&tmp);
            tv_sv_to_string(&tmp, v);
            if (triple) {
                tv_buf_append(out, tmp.data ? tmp.data : "", tmp.len);
            } else {
                for (size_t i = 0; i < tmp.len; i++) {
                    unsigned char ch = (unsigned char)tmp.data[i];
                    if (ch == '"' || ch == '\\') {
                        tv_buf_putc(out, '\\');
                        tv_buf_putc(out, (char)ch);
                    } else if (ch < 0x20) {
                        char esc[8];
                        if (ch == '\n') tv_buf_puts(out, "\\n");
                        else if (ch == '\t') tv_buf_puts(out, "\\t");
                        else if (ch == '\r') tv_buf_puts(out, "\\r");
                        else {
                            snprintf(esc, sizeof esc, "\\u%04x", ch);
                            tv_buf_puts(out, esc);
                        }
                    } else {
                        tv_buf_putc(out, (char)ch);
                    }
                }
            }
            if (tmp.oom) out->oom = true;
            tv_buf_fini(&tmp);
        }
        p = c + (triple ? 3 : 2);
    }
    if (out->oom) x->r->oom = true;
    return !out->oom;
}

/* A template rendered into the arena. */
static const char *render_str(ing_run *x, const char *t, tv_api_err **e) {
    *e = NULL;
    if (!strstr(t, "{{")) return t;
    tv_buf b;
    tv_buf_init(&b);
    const char *res = NULL;
    if (render(x, t, &b, e)) {
        res = tv_arena_strndup(&x->r->arena, b.data ? b.data : "", b.len);
        if (!res) x->r->oom = true;
    }
    tv_buf_fini(&b);
    return res;
}

/* ValueSource: a configured value with its strings rendered. */
static bool value_of(ing_run *x, const tv_json *j, tv_sv *out, tv_api_err **e) {
    tv_arena *a = &x->r->arena;
    *e = NULL;
    if (j->type == TV_JSON_STRING) {
        const char *s = render_str(x, j->v.s, e);
        if (!s) return false;
        return sv_str(x, s, strlen(s), out);
    }
    if (j->type == TV_JSON_ARRAY) {
        if (!tv_sv_list_new(a, TV_SV_ARRAYLIST, out)) return x->r->oom = true, false;
        for (uint32_t i = 0; i < j->len; i++) {
            tv_sv v;
            if (!value_of(x, &j->v.items[i], &v, e)) return false;
            if (!tv_sv_list_add(a, out->v.list, v)) return x->r->oom = true, false;
        }
        return true;
    }
    if (j->type == TV_JSON_OBJECT) {
        if (!tv_sv_map_new(a, false, out)) return x->r->oom = true, false;
        for (uint32_t i = 0; i < j->len; i++) {
            tv_sv v;
            const char *k = render_str(x, j->v.members[i].key, e);
            if (!k || !value_of(x, &j->v.members[i].val, &v, e)) return false;
            if (!tv_sv_map_put_str(a, out->v.map, k, strlen(k), v)) return x->r->oom = true, false;
        }
        return true;
    }
    tv_status st = tv_sv_from_json(a, j, false, out);
    if (st == TROVE_ENOMEM) return x->r->oom = true, false;
    if (st != TROVE_OK) {
        *e = run_err(x, TROVE_EUNSUPPORTED, "trove cannot hold the value of this processor");
        return false;
    }
    return true;
}

/* ----------------------------------------------------------- processors */

/* A field's value for the field processors: NULL when missing and
 * ignore_missing (then *skip), else *e. */
static tv_sv *field_value(ing_run *x, const ing_proc *p, bool *skip, tv_api_err **e) {
    *skip = false;
    tv_sv *v = get_field(x, p->field, e);
    if (!v || v->type == TV_SV_NULL) {
        if (p->ignore_missing) {
            *e = NULL;
            *skip = true;
            return NULL;
        }
        if (v) *e = run_err(x, TROVE_EARG, "field [%s] is null, cannot process it.", p->field);
        return NULL;
    }
    return v;
}

/* The error of a field value that is not a String ("cannot be cast"). */
static tv_api_err *str_cast_err(ing_run *x, const ing_proc *p, const tv_sv *v) {
    return run_err(x, TROVE_EARG, "field [%s] of type [%s] cannot be cast to [java.lang.String]", p->field, sv_class(v));
}

/* The error of an item of a list field that is not a String. */
static tv_api_err *item_cast_err(ing_run *x, const ing_proc *p, const tv_sv *it) {
    tv_buf b;
    tv_buf_init(&b);
    tv_sv_to_string(&b, it);
    tv_api_err *e = run_err(x, TROVE_EARG, "value [%s] of type [%s] in list field [%s] cannot be cast to [java.lang.String]",
                            b.data ? b.data : "", sv_class(it), p->field);
    tv_buf_fini(&b);
    return e;
}

/* field_value that must be a String (split, kv, csv). */
static tv_sv *string_field(ing_run *x, const ing_proc *p, bool *skip, tv_api_err **e) {
    tv_sv *v = field_value(x, p, skip, e);
    if (v && v->type != TV_SV_STRING) {
        *e = str_cast_err(x, p, v);
        return NULL;
    }
    return v;
}

/* A field that must be a List (join, sort): NULL with *e otherwise. */
static tv_sv *list_field(ing_run *x, const ing_proc *p, tv_api_err **e) {
    tv_sv *v = get_field(x, p->field, e);
    if (v && v->type != TV_SV_LIST) {
        *e = run_err(x, TROVE_EARG, "field [%s] of type [%s] cannot be cast to [java.util.List]", p->field, sv_class(v));
        return NULL;
    }
    return v;
}

/* v's toString into b (initialised here); false out of memory (then b is
 * already released). */
static bool sv_text(ing_run *x, const tv_sv *v, tv_buf *b) {
    tv_buf_init(b);
    tv_sv_to_string(b, v);
    if (b->oom) {
        tv_buf_fini(b);
        return x->r->oom = true, false;
    }
    return true;
}

static bool html_strip(ing_run *x, const char *s, size_t n, tv_sv *out);
static bool url_decode(ing_run *x, const char *s, size_t n, tv_sv *out, tv_api_err **e);

/* The string processors (AbstractStringProcessor): one string, or a list
 * of strings. */
static bool string_op(ing_run *x, const ing_proc *p, const tv_sv_str *s, tv_sv *out, tv_api_err **e) {
    switch (p->kind) {
    case P_LOWERCASE:
    case P_UPPERCASE: {
        /* String.toLowerCase/toUpperCase(Locale.ROOT): per code point, but
         * for the context-sensitive and expanding mappings (final sigma,
         * sharp s, ligatures), which trove refuses rather than guesses */
        if (!s->ascii && ((p->kind == P_LOWERCASE && (strstr(s->s, "\xce\xa3") || strstr(s->s, "\xc4\xb0"))) ||
                          (p->kind == P_UPPERCASE && (strstr(s->s, "\xc3\x9f") || strstr(s->s, "\xef\xac") ||
                                                      strstr(s->s, "\xc5\x89"))))) {
            *e = run_err(x, TROVE_EUNSUPPORTED, "trove's %s processor does not apply Java's context-sensitive case mappings", p->type);
            return false;
        }
        tv_buf b;
        tv_buf_init(&b);
        if (p->kind == P_LOWERCASE) tv_utf8_lower(s->s, s->len, &b);
        else tv_utf8_upper(s->s, s->len, &b);
        bool ok = !b.oom && sv_str(x, b.data ? b.data : "", b.len, out);
        if (b.oom) x->r->oom = true;
        tv_buf_fini(&b);
        return ok;
    }
    case P_TRIM: {
        /* String.trim: code units <= ' ' */
        uint32_t a = 0, z = s->len;
        while (a < z && (unsigned char)s->s[a] <= ' ') a++;
        while (z > a && (unsigned char)s->s[z - 1] <= ' ') z--;
        return sv_str(x, s->s + a, z - a, out);
    }
    case P_BYTES: {
        int64_t n;
        if (!tv_parse_byte_size(s->s, s->len, &n)) {
            *e = run_err(x, TROVE_EPARSEEXC,
                         "failed to parse setting [Ingest Field] with value [%s] as a size in bytes: unit is missing or "
                         "unrecognized",
                         s->s);
            return false;
        }
        *out = tv_sv_long(n);
        return true;
    }
    case P_HTML_STRIP: return html_strip(x, s->s, s->len, out);
    case P_URLDECODE: return url_decode(x, s->s, s->len, out, e);
    default: return false;
    }
}

/* Applies one to a field's value, or to each item of a list value (into
 * a new ArrayList), and sets the target: the string processors, convert. */
typedef bool (*ing_value_fn)(ing_run *x, const ing_proc *p, const tv_sv *v, bool in_list, tv_sv *out, tv_api_err **e);
static bool map_field(ing_run *x, const ing_proc *p, ing_value_fn one, tv_api_err **e) {
    bool skip;
    tv_sv *v = field_value(x, p, &skip, e);
    if (!v) return skip;
    tv_sv out;
    if (v->type == TV_SV_LIST) {
        if (!tv_sv_list_new(&x->r->arena, TV_SV_ARRAYLIST, &out)) return x->r->oom = true, false;
        for (uint32_t i = 0; i < v->v.list->len; i++) {
            tv_sv o;
            if (!one(x, p, &v->v.list->items[i], true, &o, e)) return false;
            if (!tv_sv_list_add(&x->r->arena, out.v.list, o)) return x->r->oom = true, false;
        }
    } else if (!one(x, p, v, false, &out, e)) {
        return false;
    }
    return set_field(x, p->target, out, false, true, e);
}

static bool string_one(ing_run *x, const ing_proc *p, const tv_sv *v, bool in_list, tv_sv *out, tv_api_err **e) {
    if (v->type != TV_SV_STRING) {
        *e = in_list ? item_cast_err(x, p, v) : str_cast_err(x, p, v);
        return false;
    }
    return string_op(x, p, v->v.s, out, e);
}

static bool run_string_proc(ing_run *x, const ing_proc *p, tv_api_err **e) { return map_field(x, p, string_one, e); }

static bool html_strip(ing_run *x, const char *s, size_t n, tv_sv *out) {
    /* HTMLStripCharFilter, the common cases: tags removed, block-level
     * tags and <br> become "\n", the basic entities decoded */
    tv_buf b;
    tv_buf_init(&b);
    for (size_t i = 0; i < n;) {
        if (s[i] == '<') {
            size_t j = i + 1;
            while (j < n && s[j] != '>') j++;
            if (j >= n) {
                tv_buf_append(&b, s + i, n - i);
                break;
            }
            const char *t = s + i + 1;
            size_t tl = j - i - 1;
            if (*t == '/') t++, tl--;
            size_t k = 0;
            while (k < tl && isalnum((unsigned char)t[k])) k++;
            static const char *const blocks[] = {"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6",
                                                 "tr", "td", "table", "blockquote", "pre", "dd", "dt", "dl", "hr",
                                                 "address", "center", "form", "th", "title", "body", "html", "head"};
            bool block = false;
            for (size_t q = 0; q < sizeof blocks / sizeof *blocks; q++)
                if (strlen(blocks[q]) == k && strncasecmp(blocks[q], t, k) == 0) block = true;
            if (block) tv_buf_putc(&b, '\n');
            i = j + 1;
        } else if (s[i] == '&') {
            static const struct { const char *e; const char *r; } ents[] = {
                {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&nbsp;", "\xc2\xa0"}};
            bool done = false;
            for (size_t q = 0; q < sizeof ents / sizeof *ents && !done; q++) {
                size_t el = strlen(ents[q].e);
                if (n - i >= el && strncmp(s + i, ents[q].e, el) == 0) {
                    tv_buf_puts(&b, ents[q].r);
                    i += el;
                    done = true;
                }
            }
            if (!done) tv_buf_putc(&b, s[i++]);
        } else {
            tv_buf_putc(&b, s[i++]);
        }
    }
    bool ok = !b.oom && sv_str(x, b.data ? b.data : "", b.len, out);
    if (b.oom) x->r->oom = true;
    tv_buf_fini(&b);
    return ok;
}

static int hexv(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* URLDecoder.decode(s, UTF-8). */
static bool url_decode(ing_run *x, const char *s, size_t n, tv_sv *out, tv_api_err **e) {
    char *b = tv_arena_alloc(&x->r->arena, n + 1);
    if (!b) return x->r->oom = true, false;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '+') {
            b[k++] = ' ';
        } else if (s[i] == '%') {
            if (i + 2 >= n) {
                *e = run_err(x, TROVE_EARG, "URLDecoder: Incomplete trailing escape (%%) pattern");
                return false;
            }
            int h = hexv(s[i + 1]), l = hexv(s[i + 2]);
            if (h < 0 || l < 0) {
                *e = run_err(x, TROVE_EARG, "URLDecoder: Illegal hex characters in escape (%%) pattern - Error at index 0 in: \"%c%c\"",
                             s[i + 1], s[i + 2]);
                return false;
            }
            b[k++] = (char)(h * 16 + l);
            i += 2;
        } else {
            b[k++] = s[i];
        }
    }
    return sv_str(x, b, k, out);
}

/* ConvertProcessor. */
static bool convert_one(ing_run *x, const ing_proc *p, const tv_sv *v, bool in_list, tv_sv *out, tv_api_err **e) {
    (void)in_list;
    tv_buf b;
    if (!sv_text(x, v, &b)) return false;
    const char *s = b.data ? b.data : "";
    size_t n = b.len;
    bool ok = true;
    switch (p->conv) {
    case 0:
    case 1: {
        int64_t l;
        bool hex = n > 2 && (s[0] == '0') && (s[1] == 'x' || s[1] == 'X');
        bool nhex = n > 3 && s[0] == '-' && s[1] == '0' && (s[2] == 'x' || s[2] == 'X');
        if (hex || nhex) {
            char *end;
            errno = 0;
            long long q = strtoll(s, &end, 16);
            ok = *end == 0 && errno == 0;
            l = q;
        } else {
            ok = tv_parse_i64(s, n, &l);
        }
        if (ok && p->conv == 0 && (l < INT32_MIN || l > INT32_MAX)) ok = false;
        if (!ok) {
            *e = run_err(x, TROVE_EARG, "unable to convert [%s] to %s", s, p->conv == 0 ? "integer" : "long");
            break;
        }
        *out = p->conv == 0 ? tv_sv_int((int32_t)l) : tv_sv_long(l);
        break;
    }
    case 2:
    case 3: {
        if (!tv_java_double_syntax(s, n)) {
            *e = run_err(x, TROVE_EARG, "unable to convert [%s] to %s", s, p->conv == 2 ? "float" : "double");
            ok = false;
            break;
        }
        double d = strtod(s, NULL);
        if (p->conv == 2) {
            tv_sv f = {.type = TV_SV_FLOAT};
            f.v.f = (float)d;
            *out = f;
        } else {
            *out = tv_sv_double(d);
        }
        break;
    }
    case 4:
        if (strcasecmp(s, "true") == 0) *out = tv_sv_bool(true);
        else if (strcasecmp(s, "false") == 0) *out = tv_sv_bool(false);
        else {
            *e = run_err(x, TROVE_EARG, "[%s] is not a boolean value, cannot convert to boolean", s);
            ok = false;
        }
        break;
    case 5: ok = sv_str(x, s, n, out); break;
    case 6: {
        /* auto: only strings convert (long, double, boolean, else the string) */
        if (v->type != TV_SV_STRING) {
            *out = *v;
            break;
        }
        int64_t l;
        if (tv_parse_i64(s, n, &l)) {
            *out = (l >= INT32_MIN && l <= INT32_MAX) ? tv_sv_int((int32_t)l) : tv_sv_long(l);
        } else if (tv_java_double_syntax(s, n)) {
            tv_sv f = {.type = TV_SV_FLOAT};
            f.v.f = (float)strtod(s, NULL);
            *out = f;
        } else if (strcasecmp(s, "true") == 0 || strcasecmp(s, "false") == 0) {
            *out = tv_sv_bool(strcasecmp(s, "true") == 0);
        } else {
            *out = *v;
        }
        break;
    }
    case 7: {
        /* ip: validated, kept as the string */
        bool valid = false;
        unsigned char buf[16];
        char tmp[64];
        if (n < sizeof tmp) {
            memcpy(tmp, s, n);
            tmp[n] = 0;
            valid = inet_pton(AF_INET, tmp, buf) == 1 || inet_pton(AF_INET6, tmp, buf) == 1;
        }
        if (!valid) {
            *e = run_err(x, TROVE_EARG, "'%s' is not an IP string literal.", s);
            ok = false;
            break;
        }
        ok = sv_str(x, s, n, out);
        break;
    }
    }
    tv_buf_fini(&b);
    return ok;
}

static bool run_convert(ing_run *x, const ing_proc *p, tv_api_err **e) { return map_field(x, p, convert_one, e); }

static bool run_date(ing_run *x, const ing_proc *p, tv_api_err **e) {
    tv_sv *v = get_field(x, p->field, e);
    if (!v) return false;
    tv_buf b;
    if (!sv_text(x, v, &b)) return false;
    const char *s = b.data ? b.data : "";
    int64_t ms = 0;
    bool ok = false;
    tv_api_err *last = NULL;
    for (size_t i = 0; i < p->nformats && !ok; i++) {
        const char *f = p->formats[i];
        tv_error te;
        tv_error_clear(&te);
        if (strcmp(f, "UNIX") == 0 || strcmp(f, "UNIX_MS") == 0) {
            /* UNIX: (long) (Double.parseDouble(s) * 1000); UNIX_MS: Long.parseLong(s) */
            if (strcmp(f, "UNIX") == 0 && tv_java_double_syntax(s, b.len)) {
                ms = tv_java_d2l(strtod(s, NULL) * 1000);
                ok = true;
            } else if (strcmp(f, "UNIX_MS") == 0 && tv_parse_i64(s, b.len, &ms)) {
                ok = true;
            } else {
                last = run_err(x, TROVE_ENUMBERFORMAT, "For input string: \"%s\"", s);
            }
            continue;
        }
        const char *ff = strcmp(f, "ISO8601") == 0 ? "iso8601" : f;
        if (tv_date_parse_ex_tz(ff, s, b.len, false, p->tz, &ms, &te) == TROVE_OK) {
            ok = true;
        } else {
            if (te.code == TROVE_ENOMEM) {
                tv_buf_fini(&b);
                return x->r->oom = true, false;
            }
            last = run_err(x, TROVE_EARG, "%s", te.reason);
        }
    }
    if (!ok) {
        /* DateProcessor: "unable to parse date [x]" caused by the last failure */
        *e = run_err(x, TROVE_EARG, "unable to parse date [%s]", s);
        if (*e) (*e)->cause = last;
        tv_buf_fini(&b);
        return false;
    }
    tv_buf_fini(&b);
    char out[128];
    size_t n = tv_date_format_tz(ms, p->output_format, p->tz, out, sizeof out);
    if (n >= sizeof out) n = sizeof out - 1;
    tv_sv sv;
    if (!sv_str(x, out, n, &sv)) return false;
    return set_field(x, p->target, sv, false, true, e);
}

/* String.split(regex, limit) into a list of strings: no match gives the
 * whole string; a zero-width match at 0 gives no leading empty string;
 * limit 0 drops trailing empty strings, limit > 0 caps the pieces. */
static bool rx_split(ing_run *x, const tv_rx *rx, const char *s, size_t n, int limit, tv_sv *out) {
    tv_arena *a = &x->r->arena;
    if (!tv_sv_list_new(a, TV_SV_ARRAYLIST, out)) return x->r->oom = true, false;
    size_t at = 0, from = 0, ms, me;
    bool matched = false;
    while ((limit <= 0 || (int)out->v.list->len < limit - 1) && from <= n && rx_find(rx, s, n, from, &ms, &me)) {
        if (me == ms) {
            if (ms == 0) {
                from = 1;
                continue;
            }
            if (ms >= n) break;
        }
        matched = true;
        tv_sv piece;
        if (!sv_str(x, s + at, ms - at, &piece) || !tv_sv_list_add(a, out->v.list, piece)) return x->r->oom = true, false;
        at = me;
        from = me > ms ? me : ms + 1;
    }
    tv_sv last;
    if (!sv_str(x, s + at, n - at, &last) || !tv_sv_list_add(a, out->v.list, last)) return x->r->oom = true, false;
    if (matched && limit == 0)
        while (out->v.list->len > 0 && out->v.list->items[out->v.list->len - 1].v.s->len == 0) out->v.list->len--;
    return true;
}

static bool run_split(ing_run *x, const ing_proc *p, tv_api_err **e) {
    bool skip;
    tv_sv *v = string_field(x, p, &skip, e);
    if (!v) return skip;
    tv_sv list;
    if (!rx_split(x, p->rx1, v->v.s->s, v->v.s->len, p->preserve_trailing ? -1 : 0, &list)) return false;
    return set_field(x, p->target, list, false, true, e);
}

static bool run_gsub(ing_run *x, const ing_proc *p, tv_api_err **e) {
    bool skip;
    tv_sv *v = field_value(x, p, &skip, e);
    if (!v) return skip;
    tv_sv out;
    const tv_sv *items = v;
    uint32_t nitems = 1;
    bool list = v->type == TV_SV_LIST;
    if (list) {
        items = v->v.list->items;
        nitems = v->v.list->len;
        if (!tv_sv_list_new(&x->r->arena, TV_SV_ARRAYLIST, &out)) return x->r->oom = true, false;
    }
    for (uint32_t k = 0; k < nitems; k++) {
        const tv_sv *it = &items[k];
        if (it->type != TV_SV_STRING) {
            *e = list ? item_cast_err(x, p, it) : str_cast_err(x, p, it);
            return false;
        }
        if (strchr(p->str2, '$') || strchr(p->str2, '\\')) {
            *e = run_err(x, TROVE_EUNSUPPORTED, "trove does not support group references in gsub's replacement [%s]", p->str2);
            return false;
        }
        const char *s = it->v.s->s;
        size_t n = it->v.s->len, at = 0, from = 0, ms, me;
        tv_buf b;
        tv_buf_init(&b);
        while (from <= n && rx_find(p->rx1, s, n, from, &ms, &me)) {
            tv_buf_append(&b, s + at, ms - at);
            tv_buf_puts(&b, p->str2);
            at = me;
            if (me == ms) {
                if (ms < n) tv_buf_putc(&b, s[ms]);
                at = ms + 1;
                from = ms + 1;
            } else {
                from = me;
            }
        }
        if (at < n) tv_buf_append(&b, s + at, n - at);
        tv_sv o;
        bool ok = !b.oom && sv_str(x, b.data ? b.data : "", b.len, &o);
        if (b.oom) x->r->oom = true;
        tv_buf_fini(&b);
        if (!ok) return false;
        if (list) {
            if (!tv_sv_list_add(&x->r->arena, out.v.list, o)) return x->r->oom = true, false;
        } else {
            out = o;
        }
    }
    return set_field(x, p->target, out, false, true, e);
}

static bool run_join(ing_run *x, const ing_proc *p, tv_api_err **e) {
    tv_sv *v = list_field(x, p, e);
    if (!v) return false;
    tv_buf b;
    tv_buf_init(&b);
    for (uint32_t i = 0; i < v->v.list->len; i++) {
        if (i) tv_buf_puts(&b, p->str1);
        tv_sv_to_string(&b, &v->v.list->items[i]);
    }
    tv_sv o;
    bool ok = !b.oom && sv_str(x, b.data ? b.data : "", b.len, &o);
    if (b.oom) x->r->oom = true;
    tv_buf_fini(&b);
    return ok && set_field(x, p->target, o, false, true, e);
}

static bool run_json(ing_run *x, const ing_proc *p, tv_api_err **e) {
    tv_sv *v = get_field(x, p->field, e);
    if (!v) return false;
    tv_buf b;
    if (!sv_text(x, v, &b)) return false;
    char *copy = tv_arena_strndup(&x->r->arena, b.data ? b.data : "", b.len);
    size_t n = b.len;
    tv_buf_fini(&b);
    if (!copy) return x->r->oom = true, false;
    tv_json *j;
    tv_json_error je;
    if (tv_json_parse(&x->r->arena, copy, n, &j, &je) != TROVE_OK) {
        if (je.code == TROVE_ENOMEM) return x->r->oom = true, false;
        *e = run_err(x, TROVE_EARG, "com.fasterxml.jackson.core.JsonParseException: %s", je.msg);
        return false;
    }
    tv_sv out;
    tv_status st = tv_sv_from_json(&x->r->arena, j, false, &out);
    if (st == TROVE_ENOMEM) return x->r->oom = true, false;
    if (st != TROVE_OK) {
        *e = run_err(x, TROVE_EUNSUPPORTED, "trove cannot hold the JSON of field [%s]", p->field);
        return false;
    }
    if (p->add_to_root) {
        if (out.type != TV_SV_MAP) {
            *e = run_err(x, TROVE_EARG, "cannot add non-map fields to root of document");
            return false;
        }
        uint32_t it = 0;
        const tv_sv *k, *val;
        while (tv_sv_map_next(out.v.map, &it, &k, &val))
            if (!tv_sv_map_put_str(&x->r->arena, x->doc->src.v.map, k->v.s->s, k->v.s->len, *val)) return x->r->oom = true, false;
        return true;
    }
    return set_field(x, p->target, out, false, true, e);
}

static int sv_cmp(const tv_sv *a, const tv_sv *b) {
    if (a->type == TV_SV_STRING && b->type == TV_SV_STRING) return strcmp(a->v.s->s, b->v.s->s);
    double da = a->type == TV_SV_INT ? a->v.i : a->type == TV_SV_LONG ? (double)a->v.l : a->type == TV_SV_FLOAT ? a->v.f : a->v.d;
    double db = b->type == TV_SV_INT ? b->v.i : b->type == TV_SV_LONG ? (double)b->v.l : b->type == TV_SV_FLOAT ? b->v.f : b->v.d;
    return da < db ? -1 : da > db;
}

static bool run_sort(ing_run *x, const ing_proc *p, tv_api_err **e) {
    tv_sv *v = list_field(x, p, e);
    if (!v) return false;
    tv_sv copy;
    if (!sv_copy(x, v, &copy)) return false;
    tv_sv_list *l = copy.v.list;
    bool str = false, num = false;
    for (uint32_t i = 0; i < l->len; i++) {
        uint8_t t = l->items[i].type;
        if (t == TV_SV_STRING) str = true;
        else if (t == TV_SV_INT || t == TV_SV_LONG || t == TV_SV_FLOAT || t == TV_SV_DOUBLE) num = true;
        else {
            *e = run_err(x, TROVE_EUNSUPPORTED, "trove sorts lists of strings or of numbers only");
            return false;
        }
    }
    if (str && num) {
        *e = run_err(x, TROVE_ECLASSCAST, "class java.lang.String cannot be cast to class java.lang.Number");
        return false;
    }
    for (uint32_t i = 1; i < l->len; i++) { /* stable insertion sort (Collections.sort is stable) */
        tv_sv v2 = l->items[i];
        uint32_t j = i;
        while (j > 0 && (p->desc ? sv_cmp(&l->items[j - 1], &v2) < 0 : sv_cmp(&l->items[j - 1], &v2) > 0)) {
            l->items[j] = l->items[j - 1];
            j--;
        }
        l->items[j] = v2;
    }
    return set_field(x, p->target, copy, false, true, e);
}

static bool run_dot_expander(ing_run *x, const ing_proc *p, tv_api_err **e) {
    tv_sv *map = &x->doc->src;
    if (p->str1) {
        map = get_field(x, p->str1, e);
        if (!map) return false;
    }
    if (map->type != TV_SV_MAP) return true;
    const tv_sv *v = tv_sv_map_get_str(map->v.map, p->field, strlen(p->field));
    if (!v) return true;
    tv_sv val = *v;
    tv_sv old;
    tv_sv_map_remove_str(map->v.map, p->field, strlen(p->field), &old);
    char *full = p->str1 ? tv_arena_sprintf(&x->r->arena, "%s.%s", p->str1, p->field) : (char *)p->field;
    if (!full) return x->r->oom = true, false;
    /* an existing value at the path: append (as the processor does) */
    if (has_field(x, full)) return set_field(x, full, val, true, true, e);
    return set_field(x, full, val, false, true, e);
}

static bool trim_chars(const char *set, const char *s, size_t *a, size_t *z) {
    while (*a < *z && strchr(set, s[*a])) (*a)++;
    while (*z > *a && strchr(set, s[*z - 1])) (*z)--;
    return true;
}

static bool run_kv(ing_run *x, const ing_proc *p, tv_api_err **e) {
    bool skip;
    tv_sv *v = string_field(x, p, &skip, e);
    if (!v) return skip;
    tv_sv pairs;
    if (!rx_split(x, p->rx1, v->v.s->s, v->v.s->len, 0, &pairs)) return false;
    for (uint32_t i = 0; i < pairs.v.list->len; i++) {
        const tv_sv_str *f = pairs.v.list->items[i].v.s;
        tv_sv kv;
        if (!rx_split(x, p->rx2, f->s, f->len, 2, &kv)) return false;
        if (kv.v.list->len != 2) {
            *e = run_err(x, TROVE_EARG, "field [%s] does not contain value_split [%s]", p->field, p->str2 ? p->str2 : "");
            return false;
        }
        const tv_sv_str *ks = kv.v.list->items[0].v.s, *vs = kv.v.list->items[1].v.s;
        size_t ka = 0, kz = ks->len, va = 0, vz = vs->len;
        if (p->trim_key) trim_chars(p->trim_key, ks->s, &ka, &kz);
        if (p->trim_value) trim_chars(p->trim_value, vs->s, &va, &vz);
        if (p->strip_brackets && vz - va >= 2 && strchr("([<\"'", vs->s[va]) && strchr(")]>\"'", vs->s[vz - 1])) va++, vz--;
        char *key = tv_arena_strndup(&x->r->arena, ks->s + ka, kz - ka);
        if (!key) return x->r->oom = true, false;
        bool keep = true;
        if (p->formats) {
            keep = false;
            for (size_t k = 0; k < p->nformats; k++)
                if (strcmp(p->formats[k], key) == 0) keep = true;
        }
        for (size_t k = 0; k < p->nexcl_keys; k++)
            if (strcmp(p->excl_keys[k], key) == 0) keep = false;
        if (!keep) continue;
        char *path = p->target ? tv_arena_sprintf(&x->r->arena, "%s.%s%s", p->target, p->prefix, key)
                               : tv_arena_sprintf(&x->r->arena, "%s%s", p->prefix, key);
        tv_sv val;
        if (!path || !sv_str(x, vs->s + va, vz - va, &val)) return x->r->oom = true, false;
        if (!set_field(x, path, val, true, true, e)) return false;
    }
    return true;
}

static bool run_csv(ing_run *x, const ing_proc *p, tv_api_err **e) {
    bool skip;
    tv_sv *v = string_field(x, p, &skip, e);
    if (!v) return skip;
    const char *s = v->v.s->s;
    size_t n = v->v.s->len, i = 0;
    size_t col = 0;
    tv_buf b;
    tv_buf_init(&b);
    bool ok = true;
    while (col < p->nformats && ok) {
        tv_buf_clear(&b);
        size_t st = i;
        bool quoted = false;
        if (p->trim)
            while (i < n && s[i] == ' ') i++;
        if (i < n && s[i] == p->quote) {
            quoted = true;
            i++;
            for (;;) {
                if (i >= n) {
                    *e = run_err(x, TROVE_EARG, "Unmatched quote");
                    ok = false;
                    break;
                }
                if (s[i] == p->quote) {
                    if (i + 1 < n && s[i + 1] == p->quote) {
                        tv_buf_putc(&b, p->quote);
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                tv_buf_putc(&b, s[i++]);
            }
            if (!ok) break;
            if (p->trim)
                while (i < n && s[i] == ' ') i++;
            if (i < n && s[i] != p->sep) {
                *e = run_err(x, TROVE_EARG, "Illegal character inside unquoted field at %zu", i);
                ok = false;
                break;
            }
        } else {
            i = st;
            while (i < n && s[i] != p->sep) {
                if (s[i] == p->quote) {
                    *e = run_err(x, TROVE_EARG, "Illegal character inside unquoted field at %zu", i);
                    ok = false;
                    break;
                }
                tv_buf_putc(&b, s[i++]);
            }
            if (!ok) break;
        }
        size_t a = 0, z = b.len;
        if (p->trim && !quoted) trim_chars(" ", b.data ? b.data : "", &a, &z);
        if (z > a || quoted) {
            tv_sv val;
            if (!sv_str(x, (b.data ? b.data : "") + a, z - a, &val)) {
                ok = false;
                break;
            }
            if (!set_field(x, p->formats[col], val, false, true, e)) ok = false;
        } else if (p->empty_value) {
            tv_sv val;
            if (tv_sv_from_json(&x->r->arena, p->empty_value, false, &val) != TROVE_OK) {
                x->r->oom = true;
                ok = false;
            } else if (!set_field(x, p->formats[col], val, false, true, e)) {
                ok = false;
            }
        }
        col++;
        if (i >= n) break;
        i++; /* the separator */
    }
    if (b.oom) x->r->oom = true;
    tv_buf_fini(&b);
    return ok && !x->r->oom;
}

static const char *meta_str(ing_run *x, const char *k);

static bool is_meta(const char *name) {
    return name[0] == '_' && (!strcmp(name, "_index") || !strcmp(name, "_id") || !strcmp(name, "_routing") ||
                              !strcmp(name, "_version") || !strcmp(name, "_version_type") ||
                              !strcmp(name, "_if_seq_no") || !strcmp(name, "_if_primary_term"));
}

/* Removes the top-level fields of the document that drops(p, keep, name)
 * picks (collected first: the map cannot change while walked). */
typedef bool (*ing_drop_fn)(const ing_proc *p, const char *const *keep, const tv_sv_str *name);
static bool drop_top_fields(ing_run *x, const ing_proc *p, const char *const *keep, ing_drop_fn drops) {
    tv_sv_map *m = x->doc->src.v.map;
    uint32_t it = 0;
    const tv_sv *k, *val;
    const char **drop = tv_arena_calloc(&x->r->arena, tv_sv_map_size(m) + 1, sizeof *drop);
    size_t nd = 0;
    if (!drop) return x->r->oom = true, false;
    while (tv_sv_map_next(m, &it, &k, &val))
        if (drops(p, keep, k->v.s)) drop[nd++] = k->v.s->s;
    for (size_t i = 0; i < nd; i++) {
        tv_sv old;
        tv_sv_map_remove_str(m, drop[i], strlen(drop[i]), &old);
    }
    return true;
}

static bool drops_by_pattern(const ing_proc *p, const char *const *keep, const tv_sv_str *name) {
    (void)keep;
    if (is_meta(name->s)) return false;
    bool matched = false;
    const char **pats = p->fields ? p->fields : p->exclude;
    size_t np = p->fields ? p->nfields : p->nexclude;
    for (size_t i = 0; i < np && !matched; i++) matched = tv_simple_match(pats[i], name->s, name->len);
    return matched == (p->fields != NULL);
}

/* RemoveByPatternProcessor: top-level fields (not metadata) matching a
 * pattern go, or with exclude_field_pattern those matching none. */
static bool run_remove_by_pattern(ing_run *x, const ing_proc *p) { return drop_top_fields(x, p, NULL, drops_by_pattern); }

/* remove's exclude_field: all but the metadata and the (rendered) keep. */
static bool drops_unkept(const ing_proc *p, const char *const *keep, const tv_sv_str *name) {
    bool kept = is_meta(name->s);
    for (size_t i = 0; i < p->nexclude && !kept; i++) kept = strcmp(keep[i], name->s) == 0;
    return !kept;
}

/* CopyProcessor. */
static bool run_copy(ing_run *x, const ing_proc *p, tv_api_err **e) {
    const char *src = render_str(x, p->field, e);
    if (!src) return false;
    if (!*src || !has_field(x, src)) {
        if (p->ignore_missing) return true;
        *e = !*src ? run_err(x, TROVE_EARG, "source field path cannot be null nor empty")
                   : run_err(x, TROVE_EARG, "source field [%s] doesn't exist", src);
        return false;
    }
    const char *dst = render_str(x, p->target, e);
    if (!dst) return false;
    if (!*dst) {
        *e = run_err(x, TROVE_EARG, "target field path cannot be null nor empty");
        return false;
    }
    if (strcmp(src, dst) == 0) {
        *e = run_err(x, TROVE_EARG, "source field path and target field path cannot be same");
        return false;
    }
    tv_api_err *ge;
    tv_sv *old = has_field(x, dst) ? get_field(x, dst, &ge) : NULL;
    if (!p->override && old && old->type != TV_SV_NULL) {
        *e = run_err(x, TROVE_EARG, "target field [%s] already exists", dst);
        return false;
    }
    tv_sv *v = get_field(x, src, e);
    if (!v) return false;
    tv_sv copy;
    if (!sv_copy(x, v, &copy) || !set_field(x, dst, copy, false, true, e)) return false;
    if (p->add_to_root) return remove_field(x, src, e);
    return true;
}

static bool run_remove(ing_run *x, const ing_proc *p, tv_api_err **e) {
    if (p->fields) {
        for (size_t i = 0; i < p->nfields; i++) {
            const char *f = render_str(x, p->fields[i], e);
            if (!f) return false;
            if (!*f || !has_field(x, f)) {
                if (p->ignore_missing) continue;
                *e = !*f ? run_err(x, TROVE_EARG, "field path cannot be null nor empty")
                         : run_err(x, TROVE_EARG, "field [%s] doesn't exist", f);
                return false;
            }
            if (strcmp(f, "_index") == 0 || strcmp(f, "_version") == 0 || strcmp(f, "_version_type") == 0) {
                *e = run_err(x, TROVE_EARG, "cannot remove metadata field [%s]", f);
                return false;
            }
            if (strcmp(f, "_id") == 0) {
                const char *vt = meta_str(x, "_version_type");
                if (vt && strcmp(vt, "internal") != 0) {
                    const char *ver = meta_str(x, "_version");
                    *e = run_err(x, TROVE_EARG,
                                 "cannot remove metadata field [_id] when specifying external version for the document, "
                                 "version: %s, version_type: %s",
                                 ver ? ver : "null", vt);
                    return false;
                }
            }
            if (!remove_field(x, f, e)) return false;
        }
        return true;
    }
    /* exclude_field: every top-level field but these and the metadata */
    const char **keep = tv_arena_calloc(&x->r->arena, p->nexclude + 1, sizeof *keep);
    if (!keep) return x->r->oom = true, false;
    for (size_t i = 0; i < p->nexclude; i++) {
        keep[i] = render_str(x, p->exclude[i], e);
        if (!keep[i]) return false;
    }
    return drop_top_fields(x, p, keep, drops_unkept);
}

static bool run_set(ing_run *x, const ing_proc *p, tv_api_err **e) {
    const char *f = render_str(x, p->field, e);
    if (!f) return false;
    tv_sv val;
    if (p->copy_from) {
        tv_sv *src = get_field(x, p->copy_from, e);
        if (!src) return false;
        if (!sv_copy(x, src, &val)) return false;
    } else if (!value_of(x, p->value, &val, e)) {
        return false;
    }
    if (p->ignore_empty && (val.type == TV_SV_NULL || (val.type == TV_SV_STRING && val.v.s->len == 0))) return true;
    if (!p->override && has_field(x, f)) {
        tv_sv *old = get_field(x, f, e);
        if (old && old->type != TV_SV_NULL) return true;
    }
    return set_field(x, f, val, false, true, e);
}

static bool run_append(ing_run *x, const ing_proc *p, tv_api_err **e) {
    const char *f = render_str(x, p->field, e);
    if (!f) return false;
    tv_sv val;
    if (!value_of(x, p->value, &val, e)) return false;
    if (!has_field(x, f)) {
        /* a new field becomes a list */
        tv_sv list = val;
        if (val.type != TV_SV_LIST) {
            if (!tv_sv_list_new(&x->r->arena, TV_SV_ARRAYLIST, &list) || !tv_sv_list_add(&x->r->arena, list.v.list, val))
                return x->r->oom = true, false;
        } else if (!p->allow_dups) {
            tv_sv dd;
            if (!tv_sv_list_new(&x->r->arena, TV_SV_ARRAYLIST, &dd)) return x->r->oom = true, false;
            for (uint32_t i = 0; i < val.v.list->len; i++) {
                bool dup = false;
                for (uint32_t k = 0; k < dd.v.list->len && !dup; k++) dup = tv_sv_equals(&dd.v.list->items[k], &val.v.list->items[i]);
                if (!dup && !tv_sv_list_add(&x->r->arena, dd.v.list, val.v.list->items[i])) return x->r->oom = true, false;
            }
            list = dd;
        }
        return set_field(x, f, list, false, true, e);
    }
    return set_field(x, f, val, true, p->allow_dups, e);
}

static bool run_rename(ing_run *x, const ing_proc *p, tv_api_err **e) {
    const char *f = render_str(x, p->field, e);
    if (!f) return false;
    const char *t = render_str(x, p->target, e);
    if (!t) return false;
    if (!has_field(x, f)) {
        if (p->ignore_missing) return true;
        *e = run_err(x, TROVE_EARG, "field [%s] doesn't exist", f);
        return false;
    }
    if (has_field(x, t) && !p->override) {
        *e = run_err(x, TROVE_EARG, "field [%s] already exists", t);
        return false;
    }
    tv_sv *v = get_field(x, f, e);
    if (!v) return false;
    tv_sv val = *v;
    if (!remove_field(x, f, e)) return false;
    if (!set_field(x, t, val, false, true, e)) {
        /* put it back, as the processor does */
        tv_api_err *e2;
        set_field(x, f, val, false, true, &e2);
        return false;
    }
    return true;
}

/* Turns a script runtime error into the processor's failure. */
static tv_api_err *script_fail(ing_run *x, const ing_proc *p, const char *src, size_t len, const tv_script_error *se) {
    if (se->code == TROVE_ENOMEM) {
        x->r->oom = true;
        return NULL;
    }
    tv_api_script as = {.source = src, .len = len};
    (void)p;
    return tv_api_script_error(x->r, &as, se);
}

static bool run_script(ing_run *x, const ing_proc *p, tv_api_err **e) {
    tv_script_env env;
    memset(&env, 0, sizeof env);
    env.arena = &x->r->arena;
    env.ctx = x->doc->src;
    if (!tv_api_script_params(x->r, &p->script, &env.params)) return false;
    tv_sv res;
    tv_script_error se;
    if (tv_script_run(p->compiled, &env, &res, &se) != TROVE_OK) {
        size_t len;
        const char *src = tv_script_source(p->compiled, &len);
        *e = script_fail(x, p, src, len, &se);
        return false;
    }
    return true;
}

static bool eval_cond(ing_run *x, const ing_proc *p, bool *out, tv_api_err **e) {
    tv_script_env env;
    memset(&env, 0, sizeof env);
    env.arena = &x->r->arena;
    /* the condition sees a read-only document: it runs over a copy */
    if (!sv_copy(x, &x->doc->src, &env.ctx)) return false;
    if (!tv_sv_map_new(env.arena, false, &env.params)) return x->r->oom = true, false;
    tv_sv res;
    tv_script_error se;
    if (tv_script_run(p->cond, &env, &res, &se) != TROVE_OK) {
        *e = script_fail(x, p, p->cond_src, strlen(p->cond_src), &se);
        return false;
    }
    if (res.type != TV_SV_BOOL) {
        *e = run_err(x, TROVE_ECLASSCAST, "Cannot cast from [%s] to [boolean].",
                     res.type == TV_SV_NULL ? "null" : sv_class(&res));
        return false;
    }
    *out = res.v.b;
    return true;
}

/* ------------------------------------------------------------ execution */

static bool run_list(ing_run *x, const ing_list *l, const ing_list *on_failure, bool ignore_failure, ing_fail *f);
static bool run_pipeline(ing_run *x, ing_pipeline *pl, ing_fail *f);

/* The verbose recorder of _simulate (TrackingResultProcessor): one entry
 * per processor run. */
static void record(ing_run *x, const ing_proc *p, const tv_api_err *err, bool skipped, bool dropped_doc);

static bool run_foreach(ing_run *x, const ing_proc *p, ing_fail *f) {
    tv_api_err *e = NULL;
    tv_sv *v = get_field(x, p->field, &e);
    if (!v || v->type == TV_SV_NULL) {
        if (p->ignore_missing) return true;
        if (v) e = run_err(x, TROVE_EARG, "field [%s] is null, cannot loop over its elements.", p->field);
        f->e = e;
        return false;
    }
    if (v->type != TV_SV_LIST) {
        f->e = run_err(x, TROVE_EARG, "field [%s] of type [%s] cannot be cast to [java.util.List]", p->field, sv_class(v));
        return false;
    }
    tv_sv_list *l = v->v.list;
    tv_sv outl;
    if (!tv_sv_list_new(&x->r->arena, TV_SV_ARRAYLIST, &outl)) return x->r->oom = true, false;
    const tv_sv *prev = tv_sv_map_get_str(x->doc->ingest.v.map, "_value", 6);
    tv_sv saved = prev ? *prev : tv_sv_null();
    bool had = prev != NULL;
    for (uint32_t i = 0; i < l->len; i++) {
        if (!tv_sv_map_put_str(&x->r->arena, x->doc->ingest.v.map, "_value", 6, l->items[i])) return x->r->oom = true, false;
        ing_list one = {(ing_proc **)&p->inner, 1};
        if (!run_list(x, &one, NULL, false, f)) return false;
        if (x->dropped) return true;
        const tv_sv *nv = tv_sv_map_get_str(x->doc->ingest.v.map, "_value", 6);
        if (!tv_sv_list_add(&x->r->arena, outl.v.list, nv ? *nv : tv_sv_null())) return x->r->oom = true, false;
    }
    if (had) tv_sv_map_put_str(&x->r->arena, x->doc->ingest.v.map, "_value", 6, saved);
    else {
        tv_sv old;
        tv_sv_map_remove_str(x->doc->ingest.v.map, "_value", 6, &old);
    }
    return set_field(x, p->field, outl, false, true, &f->e);
}

/* One processor. False with f filled (its failure) or r->oom. */
static bool run_one(ing_run *x, const ing_proc *p, ing_fail *f) {
    tv_api_err *e = NULL;
    bool ok = true;
    f->ptype = p->type;
    f->ptag = p->tag;
    switch (p->kind) {
    case P_SET: ok = run_set(x, p, &e); break;
    case P_APPEND: ok = run_append(x, p, &e); break;
    case P_REMOVE: ok = run_remove(x, p, &e); break;
    case P_COPY: ok = run_copy(x, p, &e); break;
    case P_REMOVE_BY_PATTERN: ok = run_remove_by_pattern(x, p); break;
    case P_RENAME: ok = run_rename(x, p, &e); break;
    case P_LOWERCASE:
    case P_UPPERCASE:
    case P_TRIM:
    case P_HTML_STRIP:
    case P_URLDECODE: ok = run_string_proc(x, p, &e); break;
    case P_CONVERT: ok = run_convert(x, p, &e); break;
    case P_DATE: ok = run_date(x, p, &e); break;
    case P_SPLIT: ok = run_split(x, p, &e); break;
    case P_GSUB: ok = run_gsub(x, p, &e); break;
    case P_JOIN: ok = run_join(x, p, &e); break;
    case P_JSON: ok = run_json(x, p, &e); break;
    case P_BYTES: ok = run_string_proc(x, p, &e); break;
    case P_SORT: ok = run_sort(x, p, &e); break;
    case P_DOT_EXPANDER: ok = run_dot_expander(x, p, &e); break;
    case P_KV: ok = run_kv(x, p, &e); break;
    case P_CSV: ok = run_csv(x, p, &e); break;
    case P_SCRIPT: ok = run_script(x, p, &e); break;
    case P_FAIL: {
        const char *m = render_str(x, p->str1, &e);
        if (m) e = run_err(x, TROVE_EFAILPROC, "%s", m);
        ok = false;
        break;
    }
    case P_DROP:
        x->dropped = true;
        return true;
    case P_FOREACH: {
        ing_fail inner = {0};
        if (!run_foreach(x, p, &inner)) {
            if (x->r->oom) return false;
            *f = inner;
            if (!f->ptype) f->ptype = p->type, f->ptag = p->tag;
            return false;
        }
        return true;
    }
    case P_PIPELINE: {
        const char *name = render_str(x, p->str1, &e);
        if (!name) break;
        bool missing;
        tv_api_err *pe;
        ing_pipeline *pl = get_pipeline(x->g, name, &missing, &pe);
        if (x->r->oom) return false;
        if (!pl) {
            if (missing && p->ignore_missing) return true;
            e = missing ? run_err(x, TROVE_EARG, "Pipeline processor configured for non-existent pipeline [%s]", name) : pe;
            ok = false;
            break;
        }
        for (int i = 0; i < x->nstack; i++)
            if (strcmp(x->stack[i], name) == 0) {
                e = run_err(x, TROVE_EINTERNAL, "Cycle detected for pipeline: %s", name);
                ok = false;
            }
        if (!ok) break;
        if (x->nstack >= 32) {
            e = run_err(x, TROVE_EINTERNAL, "Cycle detected for pipeline: %s", name);
            ok = false;
            break;
        }
        ing_fail inner = {0};
        if (!run_pipeline(x, pl, &inner)) {
            if (x->r->oom) return false;
            *f = inner;
            return false;
        }
        return true;
    }
    }
    if (x->r->oom) return false;
    if (!ok) {
        if (!e) e = run_err(x, TROVE_EINTERNAL, "processor [%s] failed", p->type);
        f->e = e;
        f->ptype = p->type;
        f->ptag = p->tag;
        return false;
    }
    return true;
}

static bool put_meta_str(ing_run *x, const char *k, const char *v) {
    tv_sv s;
    if (!v) {
        tv_sv old;
        tv_sv_map_remove_str(x->doc->ingest.v.map, k, strlen(k), &old);
        return true;
    }
    if (!sv_str(x, v, strlen(v), &s)) return false;
    if (!tv_sv_map_put_str(&x->r->arena, x->doc->ingest.v.map, k, strlen(k), s)) return x->r->oom = true, false;
    return true;
}

/* CompoundProcessor.execute: the processors in order; a failure goes to
 * on_failure (the rest is skipped), or is ignored, or ends the run. */
static bool run_list(ing_run *x, const ing_list *l, const ing_list *on_failure, bool ignore_failure, ing_fail *f) {
    for (size_t i = 0; i < l->n; i++) {
        const ing_proc *p = l->v[i];
        if (p->cond) {
            bool yes;
            tv_api_err *e = NULL;
            if (!eval_cond(x, p, &yes, &e)) {
                if (x->r->oom) return false;
                f->e = e;
                f->ptype = p->type;
                f->ptag = p->tag;
                if (x->g->verbose) record(x, p, e, false, false);
                if (p->ignore_failure || ignore_failure) continue;
                if (p->on_failure.n) goto proc_failure;
                goto list_failure;
            }
            if (!yes) {
                if (x->g->verbose) record(x, p, NULL, true, false);
                continue;
            }
        }
        {
            ing_fail pf = {0};
            if (x->g->verbose && p->kind == P_PIPELINE) record(x, p, NULL, false, false);
            if (run_one(x, p, &pf)) {
                if (x->g->verbose && p->kind != P_PIPELINE) record(x, p, NULL, false, x->dropped);
                if (x->dropped) return true;
                continue;
            }
            if (x->r->oom) return false;
            *f = pf;
            if (x->g->verbose && p->kind != P_PIPELINE && p->kind != P_FOREACH) record(x, p, pf.e, false, false);
        }
        if (p->ignore_failure) continue;
        if (p->on_failure.n) {
        proc_failure:;
            /* the processor's own on_failure: its failure metadata while
             * the handlers run; then the next processor */
            const tv_sv *om = tv_sv_map_get_str(x->doc->ingest.v.map, "on_failure_message", 18);
            const tv_sv *ot = tv_sv_map_get_str(x->doc->ingest.v.map, "on_failure_processor_type", 25);
            const tv_sv *og = tv_sv_map_get_str(x->doc->ingest.v.map, "on_failure_processor_tag", 24);
            tv_sv sm = om ? *om : tv_sv_null(), st = ot ? *ot : tv_sv_null(), sg = og ? *og : tv_sv_null();
            bool hm = om, ht = ot, hg = og;
            if (!put_meta_str(x, "on_failure_message", f->e ? f->e->reason : "") ||
                !put_meta_str(x, "on_failure_processor_type", f->ptype) || !put_meta_str(x, "on_failure_processor_tag", f->ptag))
                return false;
            ing_fail hf = {0};
            if (!run_list(x, &p->on_failure, NULL, false, &hf)) {
                if (!x->r->oom) *f = hf;
                return false;
            }
            tv_arena *a = &x->r->arena;
            tv_sv old;
            if (hm) tv_sv_map_put_str(a, x->doc->ingest.v.map, "on_failure_message", 18, sm);
            else tv_sv_map_remove_str(x->doc->ingest.v.map, "on_failure_message", 18, &old);
            if (ht) tv_sv_map_put_str(a, x->doc->ingest.v.map, "on_failure_processor_type", 25, st);
            else tv_sv_map_remove_str(x->doc->ingest.v.map, "on_failure_processor_type", 25, &old);
            if (hg) tv_sv_map_put_str(a, x->doc->ingest.v.map, "on_failure_processor_tag", 24, sg);
            else tv_sv_map_remove_str(x->doc->ingest.v.map, "on_failure_processor_tag", 24, &old);
            if (x->dropped) return true;
            continue;
        }
    list_failure:
        if (ignore_failure) continue;
        if (on_failure && on_failure->n) {
            if (!put_meta_str(x, "on_failure_message", f->e ? f->e->reason : "") ||
                !put_meta_str(x, "on_failure_processor_type", f->ptype) || !put_meta_str(x, "on_failure_processor_tag", f->ptag))
                return false;
            ing_fail hf = {0};
            bool ok = run_list(x, on_failure, NULL, false, &hf);
            if (!ok) {
                if (!x->r->oom) *f = hf;
                return false;
            }
            put_meta_str(x, "on_failure_message", NULL);
            put_meta_str(x, "on_failure_processor_type", NULL);
            put_meta_str(x, "on_failure_processor_tag", NULL);
            return true; /* the rest of the pipeline is skipped */
        }
        return false;
    }
    return true;
}

static bool run_pipeline(ing_run *x, ing_pipeline *pl, ing_fail *f) {
    x->stack[x->nstack++] = pl->id;
    const tv_sv *prev = tv_sv_map_get_str(x->doc->ingest.v.map, "pipeline", 8);
    tv_sv saved = prev ? *prev : tv_sv_null();
    /* IngestDocument.executePipeline: _ingest.pipeline names the pipeline
     * while it runs */
    if (!put_meta_str(x, "pipeline", pl->id)) return false;
    bool ok = run_list(x, &pl->procs, &pl->on_failure, false, f);
    if (prev) {
        if (!tv_sv_map_put_str(&x->r->arena, x->doc->ingest.v.map, "pipeline", 8, saved)) x->r->oom = true;
    } else {
        put_meta_str(x, "pipeline", NULL);
    }
    x->nstack--;
    return ok;
}

/* ----------------------------------------------------- document in, out */

static bool doc_put_str(ing_run *x, const char *k, const char *v) {
    tv_sv s;
    if (!sv_str(x, v, strlen(v), &s)) return false;
    if (!tv_sv_map_put_str(&x->r->arena, x->doc->src.v.map, k, strlen(k), s)) return x->r->oom = true, false;
    return true;
}

/* The _ingest.timestamp (ZonedDateTime.now(UTC), microseconds as the
 * JVM's clock gives them, printed as strict_date_optional_time_nanos). */
static void timestamp_str(int64_t us, char *out, size_t cap) {
    int64_t ms = us / 1000;
    int64_t days = ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000);
    int64_t rem = ms - days * 86400000;
    int64_t y;
    unsigned mo, d;
    tv_civil_from_days(days, &y, &mo, &d);
    int h = (int)(rem / 3600000), mi = (int)(rem / 60000 % 60), s = (int)(rem / 1000 % 60);
    int frac = (int)(rem % 1000) * 1000 + (int)(us % 1000);
    if (frac % 1000 == 0)
        snprintf(out, cap, "%04lld-%02u-%02uT%02d:%02d:%02d.%03dZ", (long long)y, mo, d, h, mi, s, frac / 1000);
    else
        snprintf(out, cap, "%04lld-%02u-%02uT%02d:%02d:%02d.%06dZ", (long long)y, mo, d, h, mi, s, frac);
}

static bool doc_init(tv_ingest *g, ing_run *x, ing_doc *doc, const tv_ingest_doc *d, tv_api_err **err) {
    tv_req *r = g->r;
    memset(x, 0, sizeof *x);
    x->g = g;
    x->r = r;
    x->doc = doc;
    tv_json *j;
    tv_json_error je;
    char *copy = tv_arena_memdup(&r->arena, d->src, d->src_len);
    if (!copy && d->src_len) return r->oom = true, false;
    tv_status st = tv_json_parse(&r->arena, copy ? copy : "", d->src_len, &j, &je);
    if (st == TROVE_ENOMEM) return r->oom = true, false;
    if (st != TROVE_OK || j->type != TV_JSON_OBJECT) {
        /* IndexRequest.sourceAsMap: the document parse failure */
        *err = tv_api_err_new(r, TROVE_EPARSEEXC, "Failed to parse content to map");
        return false;
    }
    st = tv_sv_from_json(&r->arena, j, false, &doc->src);
    if (st == TROVE_ENOMEM) return r->oom = true, false;
    if (st != TROVE_OK) {
        *err = tv_api_err_new(r, TROVE_EUNSUPPORTED, "trove cannot run an ingest pipeline over a number above Long.MAX_VALUE");
        return false;
    }
    if (!tv_sv_map_new(&r->arena, false, &doc->ingest)) return r->oom = true, false;
    if (!doc_put_str(x, "_index", d->index)) return false;
    if (d->id) {
        if (!doc_put_str(x, "_id", d->id)) return false;
    } else if (!tv_sv_map_put_str(&r->arena, doc->src.v.map, "_id", 3, tv_sv_null())) {
        return r->oom = true, false;
    }
    if (d->routing && !doc_put_str(x, "_routing", d->routing)) return false;
    if (d->has_version && !tv_sv_map_put_str(&r->arena, doc->src.v.map, "_version", 8, tv_sv_long(d->version)))
        return r->oom = true, false;
    if (d->version_type && !doc_put_str(x, "_version_type", d->version_type)) return false;
    char ts[48];
    timestamp_str(g->now_us, ts, sizeof ts);
    tv_sv tsv;
    if (!sv_str(x, ts, strlen(ts), &tsv) || !tv_sv_map_put_str(&r->arena, doc->ingest.v.map, "timestamp", 9, tsv))
        return r->oom = true, false;
    return true;
}

/* A metadata field as a string (NULL when absent or null). */
static const char *meta_str(ing_run *x, const char *k) {
    const tv_sv *v = tv_sv_map_get_str(x->doc->src.v.map, k, strlen(k));
    if (!v || v->type == TV_SV_NULL) return NULL;
    if (v->type == TV_SV_STRING) return v->v.s->s;
    tv_buf b;
    tv_buf_init(&b);
    tv_sv_to_string(&b, v);
    char *s = tv_arena_strndup(&x->r->arena, b.data ? b.data : "", b.len);
    tv_buf_fini(&b);
    if (!s) x->r->oom = true;
    return s;
}

/* Takes the metadata out of the document and writes its source. */
static bool doc_finish(ing_run *x, tv_ingest_doc *d) {
    tv_req *r = x->r;
    const char *idx = meta_str(x, "_index");
    const char *id = meta_str(x, "_id");
    const char *rt = meta_str(x, "_routing");
    if (r->oom) return false;
    d->index = idx ? idx : "";
    d->id = id;
    d->routing = rt;
    static const char *const meta[] = {"_index", "_id", "_routing", "_version", "_version_type", "_if_seq_no",
                                       "_if_primary_term"};
    for (size_t i = 0; i < sizeof meta / sizeof *meta; i++) {
        tv_sv old;
        tv_sv_map_remove_str(x->doc->src.v.map, meta[i], strlen(meta[i]), &old);
    }
    tv_buf b;
    tv_buf_init(&b);
    tv_jw w;
    tv_jw_init(&w, &b, false);
    tv_sv_write_json(&w, &x->doc->src);
    char *s = b.oom ? NULL : tv_arena_strndup(&r->arena, b.data ? b.data : "{}", b.len);
    tv_buf_fini(&b);
    if (!s) return r->oom = true, false;
    d->src = s;
    d->src_len = strlen(s);
    return true;
}

/* The failure of a pipeline as the document's error (the processor's own). */
static tv_api_err *failure_err(ing_run *x, const ing_fail *f) {
    if (f->e) return f->e;
    return run_err(x, TROVE_EINTERNAL, "pipeline failed");
}

/* The pipelines an index names (default_pipeline, final_pipeline) into the
 * arena; NULL for none or _none. */
static void index_pipelines(tv_req *r, const char *name, const char **def, const char **fin) {
    *def = *fin = NULL;
    tv_index *idx = tv_node_get_index(r->node, name);
    if (!idx) {
        /* an alias: its write index (or its one index) */
        pthread_rwlock_rdlock(&r->node->lock);
        const char *target = NULL;
        int count = 0;
        for (size_t i = 0; i < r->node->st->naliases; i++) {
            const tv_alias *a = &r->node->st->aliases[i];
            if (strcmp(a->alias, name) != 0) continue;
            count++;
            if (a->is_write_index == 1 || !target) target = a->index;
        }
        char *t = target && count ? tv_arena_strndup(&r->arena, target, strlen(target)) : NULL;
        pthread_rwlock_unlock(&r->node->lock);
        if (t) idx = tv_node_get_index(r->node, t);
        if (!idx && !count) {
            /* an index the write will create: what its templates set
             * (IngestService.resolvePipelines) */
            const char *v = tv_api_template_setting(r, name, "default_pipeline");
            if (v && strcmp(v, "_none") != 0) *def = v;
            v = tv_api_template_setting(r, name, "final_pipeline");
            if (v && strcmp(v, "_none") != 0) *fin = v;
            return;
        }
    }
    if (!idx) return;
    tv_index_lock(idx);
    size_t n;
    const char *v = tv_settings_str(tv_index_settings(idx), "index.default_pipeline", &n);
    if (v && !tv_streq(v, n, "_none")) *def = tv_arena_strndup(&r->arena, v, n);
    v = tv_settings_str(tv_index_settings(idx), "index.final_pipeline", &n);
    if (v && !tv_streq(v, n, "_none")) *fin = tv_arena_strndup(&r->arena, v, n);
    tv_index_unlock(idx);
    tv_index_release(idx);
}

bool tv_ingest_has_pipelines(tv_req *r, const char *req_pipeline, const char *index) {
    if (req_pipeline && strcmp(req_pipeline, "_none") != 0) return true;
    const char *def, *fin;
    index_pipelines(r, index, &def, &fin);
    return (def && !req_pipeline) || fin;
}

/* One pipeline over the document: false with *err (or r->oom). */
static bool exec_one(ing_run *x, const char *id, tv_api_err **err) {
    bool missing;
    tv_api_err *pe;
    ing_pipeline *pl = get_pipeline(x->g, id, &missing, &pe);
    if (x->r->oom) return false;
    if (!pl) {
        *err = missing ? tv_api_err_new(x->r, TROVE_EARG, "pipeline with id [%s] does not exist", id) : pe;
        return false;
    }
    ing_fail f = {0};
    if (!run_pipeline(x, pl, &f)) {
        if (!x->r->oom) *err = failure_err(x, &f);
        return false;
    }
    return true;
}

bool tv_ingest_write(tv_ingest *g, const char *req_pipeline, tv_ingest_doc *d, tv_api_err **err) {
    tv_req *r = g->r;
    *err = NULL;
    d->dropped = false;
    const char *def, *fin;
    index_pipelines(r, d->index, &def, &fin);
    if (r->oom) return false;
    /* IngestService.resolvePipelines: the request's pipeline, else the
     * index's default; then the final one */
    const char *first = req_pipeline ? (strcmp(req_pipeline, "_none") == 0 ? NULL : req_pipeline) : def;
    if (!first && !fin) return true;
    ing_run x;
    ing_doc doc;
    if (!doc_init(g, &x, &doc, d, err)) return false;
    const char *orig = d->index;
    /* step 0 the first pipeline, step 1 the final one */
    for (int step = 0; step < 2; step++) {
        const char *id = step == 0 ? first : fin;
        if (!id) continue;
        if (!exec_one(&x, id, err)) return false;
        if (x.dropped) {
            d->dropped = true;
            return true;
        }
        const char *now = meta_str(&x, "_index");
        if (!now || strcmp(now, orig) == 0) continue;
        if (step == 1) {
            *err = tv_api_err_new(r, TROVE_EINTERNAL, "final pipeline [%s] can't change the target index", fin);
            return false;
        }
        /* a rerouted document gets its new index's final pipeline */
        const char *d2;
        index_pipelines(r, now, &d2, &fin);
        orig = now;
    }
    return doc_finish(&x, d);
}

/* ============================================================ _simulate */

static void write_doc(tv_jw *w, ing_run *x, bool with_pipeline) {
    (void)with_pipeline;
    tv_jw_obj_begin(w);
    static const char *const meta[] = {"_index", "_id", "_routing", "_version", "_version_type", "_if_seq_no",
                                       "_if_primary_term"};
    tv_sv src;
    if (!sv_copy(x, &x->doc->src, &src)) return;
    for (size_t i = 0; i < sizeof meta / sizeof *meta; i++) {
        const tv_sv *v = tv_sv_map_get_str(src.v.map, meta[i], strlen(meta[i]));
        if (v && v->type != TV_SV_NULL) {
            tv_jw_keyz(w, meta[i]);
            tv_sv_write_json(w, v);
        }
        tv_sv old;
        tv_sv_map_remove_str(src.v.map, meta[i], strlen(meta[i]), &old);
    }
    tv_jw_keyz(w, "_source");
    tv_sv_write_json(w, &src);
    tv_jw_keyz(w, "_ingest");
    tv_sv_write_json(w, &x->doc->ingest);
    tv_jw_obj_end(w);
}

static void write_error_obj(tv_jw *w, const tv_api_err *e) {
    tv_jw_obj_begin(w);
    tv_api_err_write_failure(w, e);
    tv_jw_obj_end(w);
}

static void write_cond(tv_jw *w, const ing_proc *p, bool result) {
    if (!p->cond_src) return;
    tv_jw_keyz(w, "if");
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "condition");
    tv_jw_strz(w, p->cond_src);
    tv_jw_keyz(w, "result");
    tv_jw_bool(w, result);
    tv_jw_obj_end(w);
}

/* SimulateProcessorResult.toXContent: processor_type, status,
 * description, tag, if, then the error (or ignored_error) and the doc. */
static void record(ing_run *x, const ing_proc *p, const tv_api_err *err, bool skipped, bool dropped_doc) {
    tv_jw *w = x->g->vw;
    if (!w) return;
    tv_jw_obj_begin(w);
    tv_jw_keyz(w, "processor_type");
    tv_jw_strz(w, p->type);
    tv_jw_keyz(w, "status");
    tv_jw_strz(w, skipped ? "skipped" : err ? (p->ignore_failure ? "error_ignored" : "error") : dropped_doc ? "dropped" : "success");
    if (p->description) {
        tv_jw_keyz(w, "description");
        tv_jw_strz(w, p->description);
    }
    if (p->tag) {
        tv_jw_keyz(w, "tag");
        tv_jw_strz(w, p->tag);
    }
    write_cond(w, p, !skipped);
    if (err && p->ignore_failure) {
        tv_jw_keyz(w, "ignored_error");
        write_error_obj(w, err);
    } else if (err) {
        tv_api_err_write_failure(w, err);
    }
    if (!skipped && !dropped_doc && p->kind != P_PIPELINE && (!err || p->ignore_failure)) {
        tv_jw_keyz(w, "doc");
        write_doc(w, x, true);
    }
    tv_jw_obj_end(w);
}

/* Reads a simulate request's pipeline (stored id, or the body's). */
static ing_pipeline *simulate_pipeline(tv_ingest *g, const char *id, const tv_json *body, tv_api_err **err) {
    tv_req *r = g->r;
    if (id) {
        bool missing;
        ing_pipeline *pl = get_pipeline(g, id, &missing, err);
        if (!pl && missing && !r->oom)
            *err = tv_api_err_new(r, TROVE_EARG, "pipeline [%s] does not exist", id);
        return pl;
    }
    const tv_json *pj = tv_json_get(body, "pipeline");
    if (!pj || pj->type == TV_JSON_NULL) {
        *err = cfg_err(r, NULL, NULL, "pipeline", "[pipeline] required property is missing");
        return NULL;
    }
    if (pj->type != TV_JSON_OBJECT) {
        *err = cfg_err(r, NULL, NULL, "pipeline", "[pipeline] property isn't a map, but of type [%s]", json_class(pj));
        return NULL;
    }
    return read_pipeline(g, "_simulate_pipeline", pj, err);
}

/* The simulate body's docs, every one checked before any runs: false
 * with *e (NULL out of memory) for the first fault. */
static bool sim_docs_ok(tv_req *r, const tv_json *docs, tv_api_err **e) {
    if (!docs || docs->type == TV_JSON_NULL)
        return *e = cfg_err(r, NULL, NULL, "docs", "[docs] required property is missing"), false;
    if (docs->type != TV_JSON_ARRAY)
        return *e = cfg_err(r, NULL, NULL, "docs", "[docs] property isn't a list, but of type [%s]", json_class(docs)), false;
    if (docs->len == 0) return *e = cfg_err(r, NULL, NULL, "docs", "must specify at least one document in [docs]"), false;
    for (uint32_t i = 0; i < docs->len; i++) {
        const tv_json *d = &docs->v.items[i];
        if (d->type != TV_JSON_OBJECT)
            return *e = cfg_err(r, NULL, NULL, NULL, "malformed [docs] section, should include an inner object"), false;
        const tv_json *s = tv_json_get(d, "_source");
        if (!s) return *e = cfg_err(r, NULL, NULL, "_source", "[_source] required property is missing"), false;
        if (s->type != TV_JSON_OBJECT)
            return *e = cfg_err(r, NULL, NULL, "_source", "[_source] property isn't a map, but of type [%s]", json_class(s)),
                   false;
    }
    return true;
}

void tv_ingest_simulate(tv_ingest *g, const char *id, const tv_json *body, bool verbose) {
    tv_req *r = g->r;
    tv_api_err *err = NULL;
    if (!body || body->type != TV_JSON_OBJECT)
        return (void)tv_req_fail(r, TROVE_EPARSEEXC, "request body or source parameter is required");
    ing_pipeline *pl = simulate_pipeline(g, id, body, &err);
    if (!pl) {
        if (err) tv_req_error(r, err);
        return;
    }
    const tv_json *docs = tv_json_get(body, "docs");
    if (!sim_docs_ok(r, docs, &err)) {
        if (err) tv_req_error(r, err);
        return;
    }
    tv_buf out;
    tv_buf_init(&out);
    tv_jw w;
    tv_jw_init(&w, &out, r->pretty);
    tv_jw_obj_begin(&w);
    tv_jw_keyz(&w, "docs");
    tv_jw_arr_begin(&w);
    for (uint32_t i = 0; i < docs->len && !r->oom; i++) {
        const tv_json *d = &docs->v.items[i];
        const tv_json *s = tv_json_get(d, "_source");
        char *src = tv_json_compact(s);
        if (!src) {
            r->oom = true;
            break;
        }
        tv_ingest_doc id_ = {0};
        const tv_json *v;
        id_.index = (v = tv_json_get(d, "_index")) && v->type == TV_JSON_STRING ? v->v.s : "_index";
        id_.id = (v = tv_json_get(d, "_id")) && v->type == TV_JSON_STRING ? v->v.s : "_id";
        id_.routing = (v = tv_json_get(d, "_routing")) && v->type == TV_JSON_STRING ? v->v.s : NULL;
        if ((v = tv_json_get(d, "_version")) && v->type == TV_JSON_INT) {
            id_.has_version = true;
            id_.version = v->v.i;
        }
        id_.version_type = (v = tv_json_get(d, "_version_type")) && v->type == TV_JSON_STRING ? v->v.s : NULL;
        char *acopy = tv_arena_strndup(&r->arena, src, strlen(src));
        tv_free(src);
        if (!acopy) {
            r->oom = true;
            break;
        }
        id_.src = acopy;
        id_.src_len = strlen(acopy);
        ing_run x;
        ing_doc doc;
        tv_api_err *e = NULL;
        if (!doc_init(g, &x, &doc, &id_, &e)) {
            if (r->oom) break;
            write_error_obj(&w, e);
            continue;
        }
        tv_jw_obj_begin(&w);
        if (verbose) {
            g->verbose = true;
            g->vw = &w;
            tv_jw_keyz(&w, "processor_results");
            tv_jw_arr_begin(&w);
            ing_fail f = {0};
            run_pipeline(&x, pl, &f);
            tv_jw_arr_end(&w);
            g->verbose = false;
            g->vw = NULL;
        } else {
            ing_fail f = {0};
            bool ok = run_pipeline(&x, pl, &f);
            if (r->oom) break;
            if (!ok) {
                tv_jw_keyz(&w, "error");
                tv_jw_obj_begin(&w);
                tv_jw_keyz(&w, "root_cause");
                tv_jw_arr_begin(&w);
                tv_jw_obj_begin(&w);
                tv_api_err_write_inner(&w, failure_err(&x, &f), true);
                tv_jw_obj_end(&w);
                tv_jw_arr_end(&w);
                tv_api_err_write_inner(&w, failure_err(&x, &f), false);
                tv_jw_obj_end(&w);
            } else if (!x.dropped) {
                tv_jw_keyz(&w, "doc");
                write_doc(&w, &x, false);
            } else {
                tv_jw_keyz(&w, "doc");
                tv_jw_null(&w);
            }
        }
        tv_jw_obj_end(&w);
    }
    tv_jw_arr_end(&w);
    tv_jw_obj_end(&w);
    if (out.oom) r->oom = true;
    if (!r->oom) {
        tv_jw *rw = tv_req_json(r, 200);
        tv_jw_raw(rw, out.data, out.len);
    }
    tv_buf_fini(&out);
}
